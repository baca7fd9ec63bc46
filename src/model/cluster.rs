//! Member clusters (`cluster.karmada.io/v1alpha1` Cluster): the parts the scheduler's filter
//! stage and the override manager's `targetCluster` read: labels, provider/region/zones,
//! taints, API enablements and deletion (overrides-and-placement.md §A.4, §B.1-§B.7); and the
//! Ready condition and taints the suspension engine reads ([`Cluster::ready`]); and the capacity
//! the scheduler's general estimator reads (`status.resourceSummary`, `spec.resourceModels`,
//! replica-assignment.md "The general estimator").

use serde::Deserialize;

use super::meta::ObjectMeta;
use super::{Inventory, StringMap, Template};
use crate::source::{Document, FieldPath, Location};

pub const CLUSTER_API_VERSION: &str = "cluster.karmada.io/v1alpha1";

/// RFC 1123 label: lowercase alphanumerics and '-', starting and ending alphanumeric, ≤ 63.
/// A cluster's name is one (`ValidateClusterName`, pkg/apis/cluster/validation/validation.go),
/// so any other name matches no cluster.
pub fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// One member cluster as the scheduler's snapshot holds it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cluster {
    pub name: String,
    pub labels: StringMap,
    /// A cluster being deleted is skipped silently but still counts (§B.1).
    pub deleting: bool,
    pub spec: ClusterSpec,
    pub status: ClusterStatus,
    /// Where the Cluster object is written, when it is one of the input files (not read live,
    /// nor known by name only): findings judged against the known clusters point at it.
    pub origin: Option<Location>,
}

/// Where `doc`'s `metadata.name` is (the document's start when it has none).
pub fn name_location(doc: &Document) -> Location {
    let name = FieldPath::parse("metadata.name");
    let tree = doc.tree_for(&name);
    Location {
        source: doc.source.clone(),
        span: tree.locate(&name),
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterSpec {
    pub provider: String,
    pub region: String,
    /// Deprecated single zone; the aggregated apiserver copies it into `zones` when `zones` is
    /// empty (`mutation.go:42-47`), and nothing else reads it.
    pub zone: String,
    pub zones: Vec<String>,
    pub taints: Vec<Taint>,
    /// `spec.resourceModels`: node grades by resource ranges (`cluster_types.go` ResourceModel).
    pub resource_models: Vec<ResourceModel>,
}

/// One grade of `spec.resourceModels`: the estimator builds each node of the grade from the
/// ranges' `min` (`general.go` buildModelNodes).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceModel {
    #[serde(deserialize_with = "lenient_int")]
    pub grade: i64,
    pub ranges: Vec<ResourceModelRange>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceModelRange {
    pub name: String,
    pub min: QuantityText,
    pub max: QuantityText,
}

/// `status.resourceSummary` (`cluster_types.go` ResourceSummary): what the cluster status
/// controller aggregates over the member's nodes and pods.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceSummary {
    pub allocatable: ResourceList,
    pub allocating: ResourceList,
    pub allocated: ResourceList,
    pub allocatable_modelings: Vec<AllocatableModeling>,
}

/// How many of the cluster's nodes fall in one grade of `spec.resourceModels`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AllocatableModeling {
    #[serde(deserialize_with = "lenient_int")]
    pub grade: i64,
    #[serde(deserialize_with = "lenient_int")]
    pub count: i64,
}

/// A `corev1.ResourceList`: resource name to quantity, as written.
pub type ResourceList = std::collections::BTreeMap<String, QuantityText>;

/// A resource quantity as written (`"500m"`, `"8Gi"`, `110`): YAML numbers are kept as their
/// text, anything else as its JSON text (which then fails to parse as a quantity, reported where
/// it is used) so that one odd value does not lose the rest of the Cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuantityText(pub String);

impl<'de> Deserialize<'de> for QuantityText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(QuantityText(match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        }))
    }
}

/// An integer field that tolerates other JSON (then 0) rather than failing the whole Cluster.
fn lenient_int<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    Ok(serde_json::Value::deserialize(d)?.as_i64().unwrap_or(0))
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Taint {
    pub key: String,
    pub value: String,
    pub effect: String,
}

impl std::fmt::Display for Taint {
    /// `Taint.ToString`: `key=value:effect`, or `key:effect` without a value (§B.4).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}:{}", self.key, self.effect)
        } else {
            write!(f, "{}={}:{}", self.key, self.value, self.effect)
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterStatus {
    pub api_enablements: Vec<ApiEnablement>,
    pub conditions: Vec<Condition>,
    /// `None` when absent or `null`: the general estimator then answers 0 (`general.go`).
    pub resource_summary: Option<ResourceSummary>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ApiEnablement {
    pub group_version: String,
    pub resources: Vec<ApiResourceRef>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ApiResourceRef {
    pub name: String,
    pub kind: String,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
}

/// `Cluster.APIEnablement(gvk)` (`cluster_helper.go:46-66`), and what the inputs do not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApiState {
    Enabled,
    /// Not listed while `CompleteAPIEnablements=True`.
    Disabled,
    /// Not listed and the list may be incomplete (Karmada's `APIUnknown`: the scheduler
    /// excludes the cluster as it does a disabled API).
    Unknown,
    /// The input reports no API enablement at all for the cluster (no `status.apiEnablements`
    /// and no `CompleteAPIEnablements` condition): a Cluster manifest kept in git, a name in
    /// `knownClusters`. The real cluster's status is not known, so it is taken to serve the API
    /// (and said so), never excluded for it.
    NotReported,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Raw {
    spec: ClusterSpec,
    status: ClusterStatus,
}

impl Cluster {
    /// Types a Cluster object's JSON; `meta` is its already-typed metadata.
    pub fn from_json(meta: &ObjectMeta, object: &serde_json::Value) -> Cluster {
        let raw: Raw = serde_json::from_value(object.clone()).unwrap_or_default();
        let mut spec = raw.spec;
        if spec.zones.is_empty() && !spec.zone.is_empty() {
            spec.zones = vec![spec.zone.clone()];
        }
        Cluster {
            name: meta.name.clone(),
            labels: meta.labels.clone(),
            deleting: meta.deletion_timestamp.is_some(),
            spec,
            status: raw.status,
            origin: None,
        }
    }

    /// Types a Cluster object read from the control plane (JSON with its metadata).
    pub fn from_object(object: &serde_json::Value) -> Cluster {
        let meta = &object["metadata"];
        let mut labels = StringMap::new();
        for (k, v) in meta["labels"].as_object().into_iter().flatten() {
            if let Some(v) = v.as_str() {
                labels.insert(k.clone(), v.to_string());
            }
        }
        let meta = ObjectMeta {
            name: meta["name"].as_str().unwrap_or("").to_string(),
            labels,
            deletion_timestamp: meta["deletionTimestamp"].as_str().map(str::to_string),
            ..ObjectMeta::default()
        };
        Cluster::from_json(&meta, object)
    }

    /// The Cluster objects among the inventory's templates (they are cluster-scoped objects
    /// like any other to the classifier), in input order.
    pub fn from_inventory(inv: &Inventory) -> Vec<Cluster> {
        inv.templates()
            .filter(|t| Cluster::is_cluster(t))
            .map(|t| {
                let doc = inv.documents.get(t.doc);
                let json = doc.map(|d| d.full_tree().to_json()).unwrap_or_default();
                Cluster {
                    origin: doc.map(name_location),
                    ..Cluster::from_json(&t.meta, &json)
                }
            })
            .collect()
    }

    /// Whether a template is a `cluster.karmada.io/v1alpha1` Cluster.
    pub fn is_cluster(t: &Template) -> bool {
        t.api_version == CLUSTER_API_VERSION && t.kind == "Cluster"
    }

    /// A cluster known by name only (`knownClusters`): no labels, taints or APIs.
    pub fn named(name: &str) -> Cluster {
        Cluster {
            name: name.to_string(),
            ..Cluster::default()
        }
    }

    /// The `Ready` condition: `Some(false)` when NotReady or Unknown, `None` when absent.
    pub fn ready(&self) -> Option<bool> {
        self.status
            .conditions
            .iter()
            .find(|c| c.type_ == "Ready")
            .map(|c| c.status == "True")
    }

    /// Whether the input reports the cluster's API enablements (see [`ApiState::NotReported`]).
    pub fn reports_apis(&self) -> bool {
        !self.status.api_enablements.is_empty()
            || self
                .status
                .conditions
                .iter()
                .any(|c| c.type_ == "CompleteAPIEnablements")
    }

    pub fn api_state(&self, api_version: &str, kind: &str) -> ApiState {
        if !self.reports_apis() {
            return ApiState::NotReported;
        }
        let listed =
            self.status.api_enablements.iter().any(|e| {
                e.group_version == api_version && e.resources.iter().any(|r| r.kind == kind)
            });
        if listed {
            ApiState::Enabled
        } else if self
            .status
            .conditions
            .iter()
            .any(|c| c.type_ == "CompleteAPIEnablements" && c.status == "True")
        {
            ApiState::Disabled
        } else {
            ApiState::Unknown
        }
    }
}

/// The clusters whose API enablements the inputs do not report ([`ApiState::NotReported`]),
/// for the note that says they were taken to serve every API.
pub fn unreported(clusters: &[Cluster]) -> Vec<&str> {
    clusters
        .iter()
        .filter(|c| !c.reports_apis())
        .map(|c| c.name.as_str())
        .collect()
}

/// The note every subcommand gives once for [`unreported`] clusters, `None` when there are none.
pub fn unreported_note(clusters: &[Cluster]) -> Option<String> {
    let names = unreported(clusters);
    (!names.is_empty()).then(|| assumed_apis_note(&names))
}

/// "no API enablements reported for member1, member2 (...): taken to serve every API".
pub fn assumed_apis_note<S: AsRef<str>>(names: &[S]) -> String {
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    format!(
        "no API enablements reported for {} (status.apiEnablements absent from the inputs): taken to serve every API",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    const CLUSTERS: &str = r#"
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: member1, labels: {env: prod}}
spec:
  provider: aws
  region: eu-west-1
  zone: eu-west-1a
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}, {key: maint, effect: NoExecute}]
status:
  apiEnablements: [{groupVersion: apps/v1, resources: [{name: deployments, kind: Deployment}]}]
  conditions: [{type: CompleteAPIEnablements, status: "True"}]
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: member2, deletionTimestamp: "2026-01-01T00:00:00Z"}
"#;

    #[test]
    fn clusters_are_typed_from_the_inventory() {
        let docs = load(Source::new("c.yaml", CLUSTERS)).documents;
        let inv = Inventory::from_documents(docs, "default");
        let c = Cluster::from_inventory(&inv);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].name, "member1");
        assert_eq!(c[0].labels.get("env"), Some("prod"));
        assert_eq!(
            c[0].spec.zones,
            vec!["eu-west-1a"],
            "zone copied into zones"
        );
        assert_eq!(c[0].spec.taints[0].to_string(), "dedicated=gpu:NoSchedule");
        assert_eq!(c[0].spec.taints[1].to_string(), "maint:NoExecute");
        assert_eq!(c[0].api_state("apps/v1", "Deployment"), ApiState::Enabled);
        assert_eq!(c[0].api_state("v1", "ConfigMap"), ApiState::Disabled);
        assert!(c[1].deleting);
        assert_eq!(c[0].ready(), None);
        let live = Cluster::from_object(&serde_json::json!({"metadata":{"name":"m1"},
            "spec":{"taints":[{"key":"k","effect":"NoExecute"}]},
            "status":{"conditions":[{"type":"Ready","status":"False","reason":"x"}]}}));
        assert_eq!(live.ready(), Some(false));
        assert_eq!(live.spec.taints[0].to_string(), "k:NoExecute");
        assert_eq!(
            c[1].api_state("apps/v1", "Deployment"),
            ApiState::NotReported
        );
        let incomplete = Cluster::from_object(&serde_json::json!({"metadata":{"name":"m3"},
            "status":{"apiEnablements":[{"groupVersion":"v1","resources":[{"kind":"ConfigMap"}]}]}}));
        assert_eq!(
            incomplete.api_state("apps/v1", "Deployment"),
            ApiState::Unknown
        );
    }
}
