//! What the scheduler knows of a template's replicas: `spec.replicas` and
//! `spec.replicaRequirements` of its binding, as Karmada's default resource interpreter derives
//! them (`pkg/resourceinterpreter/default/native/replica.go`, `helper.GenerateReplicaRequirements`
//! in `pkg/util/helper/binding.go`, `util.Resource` in `pkg/util/resource.go`), and before it the
//! third-party customizations Karmada ships (`third_party`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::quantity::{BadQuantity, Quantity};

mod third_party;

/// The binding's replica fields for one template.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Workload {
    /// `spec.replicas` of the binding.
    pub replicas: i32,
    /// `spec.replicaRequirements`; `None` when the pod template has neither requests (nor limits
    /// standing in for them) nor a node claim.
    pub requirements: Option<Requirements>,
    /// The template's `metadata.uid` (the binding's `spec.resource.uid`): its FNV-32a parity
    /// orders Webster ties. `None` for a manifest not created yet.
    pub uid: Option<String>,
    /// Whether Karmada reads replicas for this kind at all: its default interpreter (Deployment,
    /// ReplicaSet, StatefulSet, Job, Pod) or a third-party customization it ships (CloneSet,
    /// ...: [`from_template`]). Other kinds have none unless a customization of your own adds
    /// them, which this tool does not run.
    pub interpreted: bool,
}

/// `ReplicaRequirements` after `util.Resource`'s normalisation: cpu in millis, other resources
/// in whole units, only resources above zero, non-scalar unknown names dropped.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Requirements {
    pub resource_request: BTreeMap<String, Quantity>,
    /// A `nodeClaim` (nodeSelector, required node affinity or tolerations): it makes the
    /// requirements non-nil; the general estimator does not otherwise read it.
    pub node_claim: bool,
}

impl Workload {
    /// Whether the scheduler assigns replicas (`common.go` AssignReplicas: replicas > 0 or
    /// requirements); otherwise every selected cluster is listed without replicas.
    pub fn divides(&self) -> bool {
        self.replicas > 0 || self.requirements.is_some()
    }
}

/// Why the replicas of a template cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unread {
    /// A request or limit that is no quantity.
    #[error(transparent)]
    Quantity(#[from] BadQuantity),
    /// The interpreter's script fails on the template (a `GetReplicas` that returns no number,
    /// a pod template that is no table): Karmada's detector records `GetReplicasFailed` and
    /// builds no binding (`pkg/detector/detector.go` BuildResourceBinding).
    #[error("the resource interpreter fails: {0}")]
    Script(&'static str),
}

/// What an interpreter's `GetReplicas` returns: the replicas (before Karmada's `int32`) and
/// the requirements.
type Read = (i64, Option<Requirements>);

/// A template's replica fields as Karmada's interpreters read them: the third-party
/// customizations Karmada ships first, then the default interpreter, as
/// `customResourceInterpreterImpl.GetReplicas` consults them
/// (`pkg/resourceinterpreter/interpreter.go`). Fields the apiserver defaults are defaulted as it
/// would (`replicas` 1 for Deployment, ReplicaSet and StatefulSet; Job `parallelism` 1,
/// `completions` = parallelism when both are absent).
pub fn from_template(template: &Value) -> Result<Workload, Unread> {
    let api_version = template["apiVersion"].as_str().unwrap_or("");
    let kind = template["kind"].as_str().unwrap_or("");
    let uid = template
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())
        .map(str::to_string);
    let read = third_party::third_party(api_version, kind, template)
        .or_else(|| native(api_version, kind, template).map(|r| r.map_err(Unread::from)));
    let Some(read) = read else {
        return Ok(Workload {
            uid,
            ..Workload::default()
        });
    };
    let (replicas, requirements) = read?;
    Ok(Workload {
        replicas: replicas.clamp(0, i64::from(i32::MAX)) as i32,
        requirements,
        uid,
        interpreted: true,
    })
}

/// The default interpreter (`pkg/resourceinterpreter/default/native/replica.go`): `None` for a
/// kind it reads no replicas from.
fn native(api_version: &str, kind: &str, template: &Value) -> Option<Result<Read, BadQuantity>> {
    let int = |p: &str| template.pointer(p).and_then(Value::as_i64);
    let (replicas, pod_spec) = match (api_version, kind) {
        ("apps/v1", "Deployment" | "ReplicaSet" | "StatefulSet") => (
            int("/spec/replicas").unwrap_or(1),
            template.pointer("/spec/template/spec"),
        ),
        // replica.go jobReplica: min(parallelism, completions).
        ("batch/v1", "Job") => {
            let parallelism = int("/spec/parallelism").unwrap_or(1);
            let completions = int("/spec/completions").unwrap_or(parallelism);
            (
                parallelism.min(completions),
                template.pointer("/spec/template/spec"),
            )
        }
        ("v1", "Pod") => (1, template.get("spec")),
        _ => return None,
    };
    let requirements = match pod_spec {
        Some(spec) => requirements(spec),
        None => Ok(None),
    };
    Some(requirements.map(|r| (replicas, r)))
}

/// The replicas the default interpreter reads from `template` ([`from_template`], defaults
/// included): `None` for a kind it reads none from, or a quantity it cannot parse.
pub fn replicas_of(template: &Value) -> Option<i32> {
    from_template(template)
        .ok()
        .filter(|w| w.interpreted)
        .map(|w| w.replicas)
}

/// The replicas Karmada's interpreters read from `template` ([`from_template`]) where the
/// manifest writes the fields they read them from (`spec.replicas`; a Job's `parallelism` or
/// `completions`; the third-party kinds' fields): `None` for another kind, a Pod (or a kind
/// whose script reads a constant), or fields left to defaults (an autoscaler or a live object
/// may hold another count than the default).
pub fn written_replicas(template: &Value) -> Option<i32> {
    let written = |p: &str| template.pointer(p).is_some_and(|v| !v.is_null());
    let fields: &[&str] = match (
        template["apiVersion"].as_str().unwrap_or(""),
        template["kind"].as_str().unwrap_or(""),
    ) {
        ("apps/v1", "Deployment" | "ReplicaSet" | "StatefulSet") => &["/spec/replicas"],
        ("batch/v1", "Job") => &["/spec/parallelism", "/spec/completions"],
        (api_version, kind) => third_party::counted_fields(api_version, kind)?,
    };
    if !fields.iter().any(|f| written(f)) {
        return None;
    }
    replicas_of(template)
}

/// `GenerateReplicaRequirements`: the node claim and the pod's effective request.
fn requirements(spec: &Value) -> Result<Option<Requirements>, BadQuantity> {
    let node_claim = node_claim(spec);
    let mut total = Resource::default();
    for c in spec["containers"].as_array().into_iter().flatten() {
        total.add(&container_requests(c)?);
    }
    for c in spec["initContainers"].as_array().into_iter().flatten() {
        total.set_max(&container_requests(c)?);
    }
    if let Some(overhead) = spec.get("overhead").and_then(Value::as_object) {
        total.add(&parse_list(overhead)?);
    }
    let resource_request = total.resource_list();
    Ok(
        (node_claim || !resource_request.is_empty()).then_some(Requirements {
            resource_request,
            node_claim,
        }),
    )
}

/// `GenerateNodeClaimByPodSpec`: a non-empty nodeSelector (an empty one does not survive the
/// apiserver's `omitempty`), required node affinity, or tolerations.
fn node_claim(spec: &Value) -> bool {
    let selector = spec["nodeSelector"]
        .as_object()
        .is_some_and(|m| !m.is_empty());
    let affinity = !spec
        .pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution")
        .unwrap_or(&Value::Null)
        .is_null();
    let tolerations = spec["tolerations"]
        .as_array()
        .is_some_and(|t| !t.is_empty());
    selector || affinity || tolerations
}

/// A container's requests, limits standing in for missing ones (`AddPodTemplateRequest`).
fn container_requests(c: &Value) -> Result<Vec<(String, Quantity)>, BadQuantity> {
    let empty = serde_json::Map::new();
    let requests = c
        .pointer("/resources/requests")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let limits = c
        .pointer("/resources/limits")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut out = parse_list(requests)?;
    for (k, v) in parse_list(limits)? {
        if !requests.contains_key(&k) {
            out.push((k, v));
        }
    }
    Ok(out)
}

fn parse_list(m: &serde_json::Map<String, Value>) -> Result<Vec<(String, Quantity)>, BadQuantity> {
    m.iter()
        .map(|(k, v)| {
            let text = v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string());
            Ok((k.clone(), Quantity::parse(&text)?))
        })
        .collect()
}

/// How `util.Resource` keeps one resource: cpu in millis, the others in whole units; names
/// that are neither native nor scalar are dropped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Milli,
    Whole,
}

fn unit_of(name: &str) -> Option<Unit> {
    match name {
        "cpu" => Some(Unit::Milli),
        "memory" | "pods" | "ephemeral-storage" => Some(Unit::Whole),
        n if is_scalar_resource_name(n) => Some(Unit::Whole),
        _ => None,
    }
}

/// `util.Resource` over resource names.
#[derive(Default)]
struct Resource(BTreeMap<String, i64>);

impl Resource {
    fn amount(name: &str, q: Quantity) -> Option<i64> {
        Some(match unit_of(name)? {
            Unit::Milli => q.milli_value(),
            Unit::Whole => q.value(),
        })
    }

    fn add(&mut self, list: &[(String, Quantity)]) {
        for (name, q) in list {
            if let Some(n) = Self::amount(name, *q) {
                let e = self.0.entry(name.clone()).or_default();
                *e = e.saturating_add(n);
            }
        }
    }

    /// `SetMaxResource`: an init container's request counts when it exceeds what is there.
    fn set_max(&mut self, list: &[(String, Quantity)]) {
        for (name, q) in list {
            if let Some(n) = Self::amount(name, *q) {
                let e = self.0.entry(name.clone()).or_default();
                *e = (*e).max(n);
            }
        }
    }

    /// `ResourceList()`: the resources above zero.
    fn resource_list(&self) -> BTreeMap<String, Quantity> {
        self.0
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(name, n)| {
                let q = match unit_of(name) {
                    Some(Unit::Milli) => Quantity::from_millis(*n),
                    _ => Quantity::from_units(*n),
                };
                (name.clone(), q)
            })
            .collect()
    }
}

/// `lifted.IsScalarResourceName`: an extended resource (a qualified, non-native name), a huge
/// page, a prefixed native resource (`*kubernetes.io/*`) or an attachable volume count.
pub fn is_scalar_resource_name(name: &str) -> bool {
    is_extended_resource_name(name)
        || name.starts_with("hugepages-")
        || name.contains("kubernetes.io/")
        || name.starts_with("attachable-volumes-")
}

/// `lifted.IsExtendedResourceName`: not native, not `requests.*`, and `requests.<name>` is a
/// qualified name.
fn is_extended_resource_name(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    if native || name.starts_with("requests.") {
        return false;
    }
    is_qualified_name(&format!("requests.{name}"))
}

/// `validation.IsQualifiedName`: `[prefix/]name`, prefix a DNS-1123 subdomain, name at most 63
/// characters of alphanumerics, `-`, `_`, `.`, starting and ending alphanumeric.
fn is_qualified_name(s: &str) -> bool {
    let (prefix, name) = match s.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, s),
    };
    let name_ok = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !label.starts_with('-')
                    && !label.ends_with('-')
            })
    });
    name_ok && prefix_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    /// `replica_test.go` Test_deployReplica, Test_jobReplica, Test_podReplica (replicas and
    /// requirements), and `binding_test.go` TestGenerateReplicaRequirements (limits stand in
    /// for requests, init containers by maximum).
    #[test]
    fn replicas_and_requirements_as_the_default_interpreter() {
        let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"uid": "u1"},
        "spec": {"replicas": 3, "template": {"spec": {
            "containers": [
                {"resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}},
                {"resources": {"limits": {"cpu": "200m", "nvidia.com/gpu": 1}}},
            ],
            "initContainers": [{"resources": {"requests": {"cpu": "1"}}}],
        }}}});
        let w = from_template(&deploy).unwrap();
        assert_eq!(w.replicas, 3);
        assert_eq!(w.uid.as_deref(), Some("u1"));
        let r = w.requirements.unwrap();
        assert_eq!(r.resource_request["cpu"], q("1"), "init container max wins");
        assert_eq!(r.resource_request["memory"], q("128Mi"));
        assert_eq!(r.resource_request["nvidia.com/gpu"], q("1"));
        assert!(!r.node_claim);

        let job = json!({"apiVersion": "batch/v1", "kind": "Job",
            "spec": {"parallelism": 5, "completions": 2, "template": {"spec": {"containers": [{}]}}}});
        let w = from_template(&job).unwrap();
        assert_eq!((w.replicas, w.requirements), (2, None));

        let defaulted = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "spec": {"template": {"spec": {"tolerations": [{"operator": "Exists"}], "containers": [{}]}}}});
        let w = from_template(&defaulted).unwrap();
        assert_eq!(w.replicas, 1, "the apiserver defaults replicas to 1");
        assert!(w.requirements.unwrap().node_claim);

        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "spec": {"containers": [{"resources": {"requests": {"foo": "1", "memory": "1"}}}]}});
        let w = from_template(&pod).unwrap();
        assert_eq!(w.replicas, 1);
        let r = w.requirements.unwrap();
        assert_eq!(
            r.resource_request.keys().collect::<Vec<_>>(),
            ["memory"],
            "foo is dropped"
        );

        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {}});
        let w = from_template(&cm).unwrap();
        assert!(!w.interpreted && !w.divides());
    }

    #[test]
    fn scalar_resource_names() {
        assert!(is_scalar_resource_name("nvidia.com/gpu"));
        assert!(is_scalar_resource_name("hugepages-2Mi"));
        assert!(is_scalar_resource_name("attachable-volumes-aws-ebs"));
        assert!(!is_scalar_resource_name("foo"));
        assert!(!is_scalar_resource_name("Example.COM/x"));
    }
}
