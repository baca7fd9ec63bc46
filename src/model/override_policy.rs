//! OverridePolicy and ClusterOverridePolicy: kept with their selectors and rules so admission
//! can check them and `dependentOverrides` can be resolved.

use serde::Deserialize;

use super::meta::ObjectMeta;
use super::policy::{ClusterAffinity, ResourceSelector};
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
    /// The admission chain's verdict, as on a [`super::Policy`]: one the API server refuses is
    /// never stored and overrides nothing ([`super::Inventory::stored_overrides`]).
    pub admission: super::Admission,
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
    /// What one document of it replaces another by: kind, namespace and name.
    pub fn identity(&self) -> (bool, Option<&str>, &str) {
        (
            self.cluster_scoped,
            self.meta.namespace.as_deref(),
            self.meta.name.as_str(),
        )
    }

    pub fn from_node(kind: &str, meta: ObjectMeta, root: &Node, doc: usize) -> OverridePolicy {
        let raw_spec = root.get("spec").map(Node::to_json).unwrap_or_default();
        let spec = serde_json::from_value(raw_spec.clone()).unwrap_or_default();
        OverridePolicy {
            cluster_scoped: kind == "ClusterOverridePolicy",
            meta,
            spec,
            raw_spec,
            doc,
            admission: super::Admission::Unchecked,
        }
    }
}

/// One rule as the override manager walks it: a targetCluster (none = every cluster) and the
/// overriders it applies (`override_types.go`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OverrideRule {
    pub target_cluster: Option<ClusterAffinity>,
    pub overriders: Overriders,
}

/// The overriders of one rule, by type; Karmada applies them in the fixed order image,
/// command, args, labels, annotations, fieldOverrider, plaintext (§A.5).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Overriders {
    pub plaintext: Vec<PlaintextOverrider>,
    pub image_overrider: Vec<ImageOverrider>,
    pub command_overrider: Vec<CommandArgsOverrider>,
    pub args_overrider: Vec<CommandArgsOverrider>,
    pub labels_overrider: Vec<LabelAnnotationOverrider>,
    pub annotations_overrider: Vec<LabelAnnotationOverrider>,
    pub field_overrider: Vec<FieldOverrider>,
}

impl Overriders {
    /// No overrider at all: whether the rule applies to a cluster changes nothing there.
    pub fn is_empty(&self) -> bool {
        self.empty_for_webhook() && self.field_overrider.is_empty()
    }

    /// Karmada's `emptyOverrides`: it does not look at fieldOverrider (§A.6).
    pub fn empty_for_webhook(&self) -> bool {
        self.plaintext.is_empty()
            && self.image_overrider.is_empty()
            && self.command_overrider.is_empty()
            && self.args_overrider.is_empty()
            && self.labels_overrider.is_empty()
            && self.annotations_overrider.is_empty()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PlaintextOverrider {
    pub path: String,
    pub operator: String,
    /// Absent serialises as JSON `null`, so `add` without a value writes null (§A.7).
    pub value: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ImageOverrider {
    pub predicate: Option<ImagePredicate>,
    pub component: String,
    pub operator: String,
    pub value: String,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ImagePredicate {
    pub path: String,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CommandArgsOverrider {
    pub container_name: String,
    pub operator: String,
    pub value: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelAnnotationOverrider {
    pub operator: String,
    pub value: std::collections::BTreeMap<String, String>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FieldOverrider {
    pub field_path: String,
    pub json: Vec<SubPatch>,
    pub yaml: Vec<SubPatch>,
}

/// A JSON or YAML patch operation inside a fieldOverrider.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SubPatch {
    pub sub_path: String,
    pub operator: String,
    pub value: Option<serde_json::Value>,
}

/// The rules and the deprecated top-level fields, typed from the raw spec.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OverrideRules {
    pub override_rules: Vec<OverrideRule>,
    pub target_cluster: Option<ClusterAffinity>,
    pub overriders: Overriders,
}

/// `OverridePolicy NS/NAME` or `ClusterOverridePolicy NAME`, as explain names an override
/// policy (`kind` is [`OverridePolicy::kind`]'s spelling).
pub fn display_id(kind: &str, namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    }
}

impl OverridePolicy {
    /// [`display_id`] of this one (a cluster-scoped one by its name alone).
    pub fn display_id(&self) -> String {
        let namespace = self
            .meta
            .namespace
            .as_deref()
            .filter(|_| !self.cluster_scoped);
        display_id(self.kind(), namespace, &self.meta.name)
    }

    /// `PolicyKind`-like spelling for contracts: `OverridePolicy` / `ClusterOverridePolicy`.
    pub fn kind(&self) -> &'static str {
        if self.cluster_scoped {
            "ClusterOverridePolicy"
        } else {
            "OverridePolicy"
        }
    }

    /// The typed rules; a spec that does not type yields none (the schema rule reports it).
    pub fn typed_rules(&self) -> OverrideRules {
        serde_json::from_value(self.raw_spec.clone()).unwrap_or_default()
    }

    /// The rules the manager walks: `overrideRules`, or when it is empty one rule made of the
    /// deprecated top-level `targetCluster` and `overriders` (`om.go:230-244`, §A.6).
    pub fn effective_rules(&self) -> Vec<OverrideRule> {
        let typed = self.typed_rules();
        if typed.override_rules.is_empty() {
            vec![OverrideRule {
                target_cluster: typed.target_cluster,
                overriders: typed.overriders,
            }]
        } else {
            typed.override_rules
        }
    }
}
