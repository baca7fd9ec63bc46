//! ResourceBinding / ClusterResourceBinding (`work.karmada.io/v1alpha2`) and Work
//! (`work.karmada.io/v1alpha1`): the parts that say where a template went and whether dispatch
//! to each cluster is suspended.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::meta::ObjectMeta;
use super::policy::Suspension;
use super::PolicyKind;
use crate::kube::kinds::{CRB_ID_LABEL, RB_ID_LABEL};
use crate::source::Node;

#[derive(Clone, Debug)]
pub struct Binding {
    pub cluster_scoped: bool,
    pub meta: ObjectMeta,
    pub spec: BindingSpec,
    /// `status.conditions` (`Scheduled`, `FullyApplied`, ...), as the controllers report them.
    pub conditions: Vec<Condition>,
    pub doc: usize,
}

/// The name Karmada gives the binding of template `kind`/`name` (`names.GenerateBindingName`,
/// `pkg/util/names/names.go:105-118`): `name-kind` in lower case, a `:` of the name (RBAC
/// objects) as `.`.
pub fn generated_name(kind: &str, name: &str) -> String {
    format!("{}-{kind}", name.replace(':', ".")).to_lowercase()
}

impl Binding {
    /// Whether this is the binding Karmada's detector keeps for its resource: one of another name
    /// (written by hand, or left from a copy) is not the one the controllers read and update.
    pub fn is_generated(&self) -> bool {
        let r = &self.spec.resource;
        self.meta.name == generated_name(&r.kind, &r.name)
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BindingSpec {
    pub resource: BindingResource,
    pub clusters: Vec<TargetCluster>,
    pub suspension: Option<BindingSuspension>,
    /// The bindings that require this one's resource as a dependency, with their clusters
    /// (`BindingSnapshot`, written by the dependencies distributor's `buildAttachedBinding`).
    pub required_by: Vec<BindingSnapshot>,
}

impl BindingSpec {
    /// The clusters the binding controller dispatches to: `spec.clusters`, then those of the
    /// requiring bindings it lacks, in order (`mergeTargetClusters`,
    /// pkg/controllers/binding/common.go). An attached binding has no clusters of its own.
    pub fn target_clusters(&self) -> Vec<&TargetCluster> {
        let added = self
            .required_additions()
            .into_iter()
            .flat_map(|(_, adds)| adds);
        self.clusters.iter().chain(added).collect()
    }

    /// Each requiring binding with the clusters of its that the merge adds, in order.
    pub fn required_additions(&self) -> Vec<(&BindingSnapshot, Vec<&TargetCluster>)> {
        let mut seen: Vec<&str> = self.clusters.iter().map(|c| c.name.as_str()).collect();
        self.required_by
            .iter()
            .map(|r| {
                let adds: Vec<&TargetCluster> = r
                    .clusters
                    .iter()
                    .filter(|c| {
                        let new = !seen.contains(&c.name.as_str());
                        if new {
                            seen.push(&c.name);
                        }
                        new
                    })
                    .collect();
                (r, adds)
            })
            .collect()
    }
}

/// One binding that requires another's resource, as the required binding records it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BindingSnapshot {
    pub namespace: String,
    pub name: String,
    pub clusters: Vec<TargetCluster>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BindingResource {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub uid: String,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TargetCluster {
    pub name: String,
    pub replicas: Option<i64>,
}

/// The binding's suspension: the policy's, copied wholesale, plus the binding-only `scheduling`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BindingSuspension {
    #[serde(flatten)]
    pub policy: Suspension,
    pub scheduling: Option<bool>,
}

impl Binding {
    pub fn from_node(kind: &str, meta: ObjectMeta, root: &Node, doc: usize) -> Option<Binding> {
        let spec = root.get("spec").map(Node::to_json).unwrap_or_default();
        let spec = serde_json::from_value(spec).ok()?;
        Some(Binding {
            cluster_scoped: kind == "ClusterResourceBinding",
            meta,
            spec,
            conditions: status_conditions(root),
            doc,
        })
    }

    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }

    /// The binding's permanent id, which its Works carry as a label (Karmada ≥ 1.8).
    pub fn permanent_id(&self) -> Option<&str> {
        self.meta.label(if self.cluster_scoped {
            CRB_ID_LABEL
        } else {
            RB_ID_LABEL
        })
    }

    /// The clusters the scheduler gave the binding (`spec.clusters`), without those it is
    /// dispatched to as a dependency ([`BindingSpec::target_clusters`]).
    pub fn scheduled_clusters(&self) -> Vec<&str> {
        self.spec.clusters.iter().map(|c| c.name.as_str()).collect()
    }
}

#[derive(Clone, Debug)]
pub struct Work {
    pub meta: ObjectMeta,
    pub suspend_dispatching: Option<bool>,
    pub conditions: Vec<Condition>,
    pub doc: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub message: String,
    pub last_transition_time: String,
}

impl Work {
    pub fn from_node(meta: ObjectMeta, root: &Node, doc: usize) -> Work {
        let suspend_dispatching = root
            .get("spec")
            .and_then(|s| s.get("suspendDispatching"))
            .and_then(|n| match n.value {
                crate::source::Value::Bool(b) => Some(b),
                _ => None,
            });
        let conditions = status_conditions(root);
        Work {
            meta,
            suspend_dispatching,
            conditions,
            doc,
        }
    }

    /// The member cluster, from the execution namespace `karmada-es-<cluster>`.
    pub fn cluster(&self) -> Option<&str> {
        self.meta.namespace.as_deref()?.strip_prefix("karmada-es-")
    }

    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }
}

/// `status.conditions` of an object; none when absent or not a list of conditions.
fn status_conditions(root: &Node) -> Vec<Condition> {
    root.get("status")
        .and_then(|s| s.get("conditions"))
        .map(Node::to_json)
        .and_then(|j| serde_json::from_value(j).ok())
        .unwrap_or_default()
}

impl Work {
    /// A Work as the API returns it (`--wait` reads them live).
    pub fn from_json(j: &serde_json::Value) -> Work {
        let root = Node::from_json(j, crate::source::Span::default());
        Work::from_node(ObjectMeta::from_node(root.get("metadata")), &root, 0)
    }
}

/// The clusters each policy's bindings list, keyed by the policy's permanent-id label and id
/// (the `spec.clusters` Karmada scheduled, §2.3 `ensureWork` targets). One grouping for files
/// and for the control plane, for one policy or for a freeze over many.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoundClusters(BTreeMap<(&'static str, String), Vec<String>>);

impl BoundClusters {
    /// Groups typed bindings (files).
    pub fn from_bindings<'a>(bindings: impl IntoIterator<Item = &'a Binding>) -> BoundClusters {
        let mut out = BoundClusters::default();
        for b in bindings {
            out.add(|label| b.meta.label(label), b.scheduled_clusters());
        }
        out
    }

    /// Groups bindings as the API returns them (live).
    pub fn from_json(bindings: &[serde_json::Value]) -> BoundClusters {
        let mut out = BoundClusters::default();
        for b in bindings {
            let clusters: Vec<&str> = b["spec"]["clusters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["name"].as_str())
                .collect();
            out.add(|label| b["metadata"]["labels"][label].as_str(), clusters);
        }
        out
    }

    fn add<'a>(&mut self, label_value: impl Fn(&str) -> Option<&'a str>, clusters: Vec<&str>) {
        for kind in [
            PolicyKind::PropagationPolicy,
            PolicyKind::ClusterPropagationPolicy,
        ] {
            let label = kind.permanent_id_label();
            if let Some(id) = label_value(label) {
                self.0
                    .entry((label, id.to_string()))
                    .or_default()
                    .extend(clusters.iter().map(|c| c.to_string()));
            }
        }
    }

    /// The clusters bound to the policy with this permanent id (`None`: no binding lists any,
    /// so the placement decides).
    pub fn of(&self, kind: PolicyKind, permanent_id: Option<&str>) -> Option<Vec<String>> {
        let key = (kind.permanent_id_label(), permanent_id?.to_string());
        self.0.get(&key).filter(|c| !c.is_empty()).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `names.GenerateBindingName` (`pkg/util/names/names.go:105-118`).
    #[test]
    fn the_generated_name_is_name_dash_kind_in_lower_case() {
        assert_eq!(generated_name("Deployment", "nginx"), "nginx-deployment");
        assert_eq!(
            generated_name("ClusterRole", "System:Admin"),
            "system.admin-clusterrole"
        );
    }

    /// `mergeTargetClusters`: the binding's own clusters, then the requiring bindings' it lacks.
    #[test]
    fn an_attached_binding_targets_the_clusters_of_the_bindings_requiring_it() {
        let spec: BindingSpec = serde_json::from_value(serde_json::json!({
            "clusters": [{"name": "m2", "replicas": 1}],
            "requiredBy": [
                {"namespace": "shop", "name": "web-deployment", "clusters": [{"name": "m1", "replicas": 2}, {"name": "m2"}]},
                {"namespace": "shop", "name": "api-deployment", "clusters": [{"name": "m3"}]}
            ]
        }))
        .unwrap();
        let names: Vec<&str> = spec
            .target_clusters()
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(names, ["m2", "m1", "m3"]);
        assert_eq!(spec.target_clusters()[0].replicas, Some(1));
        assert!(BindingSpec::default().target_clusters().is_empty());
    }
}
