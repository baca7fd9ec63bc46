//! OverridePolicy and ClusterOverridePolicy: kept with their selectors and rules so admission
//! can check them and `dependentOverrides` can be resolved.

use serde::Deserialize;

use super::meta::ObjectMeta;
use super::policy::ResourceSelector;
use crate::source::Node;

#[derive(Clone, Debug)]
pub struct OverridePolicy {
    /// `OverridePolicy` or `ClusterOverridePolicy`.
    pub cluster_scoped: bool,
    pub meta: ObjectMeta,
    pub spec: OverrideSpec,
    /// The raw spec, for the rules that inspect overriders in detail.
    pub raw_spec: serde_json::Value,
    pub doc: usize,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OverrideSpec {
    pub resource_selectors: Vec<ResourceSelector>,
    pub override_rules: Option<Vec<serde_json::Value>>,
    pub target_cluster: Option<serde_json::Value>,
    pub overriders: Option<serde_json::Value>,
}

impl OverridePolicy {
    pub fn from_node(kind: &str, meta: ObjectMeta, root: &Node, doc: usize) -> OverridePolicy {
        let raw_spec = root.get("spec").map(Node::to_json).unwrap_or_default();
        let spec = serde_json::from_value(raw_spec.clone()).unwrap_or_default();
        OverridePolicy {
            cluster_scoped: kind == "ClusterOverridePolicy",
            meta,
            spec,
            raw_spec,
            doc,
        }
    }
}
