//! PropagationPolicy and ClusterPropagationPolicy (`policy.karmada.io/v1alpha1`), every spec field
//! of the CRDs in `../shared/karmada/crds`. Fields are optional where the API has no default, so
//! the admission step can tell "absent" from "zero" as Karmada does.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PropagationSpec {
    pub resource_selectors: Vec<ResourceSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub association: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub propagate_deps: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<Placement>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dependent_overrides: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failover: Option<FailoverBehavior>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_resolution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activation_preference: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspension: Option<Suspension>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preserve_resources_on_deletion: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_priority: Option<SchedulePriority>,
}

impl PropagationSpec {
    /// The placement the scheduler reads for the policy's bindings: its own, or the empty one.
    /// `PropagationSpec.Placement` is a struct, not a pointer (propagation_types.go:90): a
    /// policy without `placement` gives its bindings `{}`, which every cluster passing the
    /// taint, API and eviction filters fits.
    pub fn scheduled_placement(&self) -> &Placement {
        static EMPTY: std::sync::LazyLock<Placement> = std::sync::LazyLock::new(Placement::default);
        self.placement.as_ref().unwrap_or(&EMPTY)
    }

    /// `spec.priority`, 0 when absent (`ExplicitPriority()`, propagation_helper.go:21-26).
    pub fn explicit_priority(&self) -> i32 {
        self.priority.unwrap_or(0)
    }

    /// `preemption: Always` (an absent value counts as Never).
    pub fn preemption_always(&self) -> bool {
        self.preemption.as_deref() == Some("Always")
    }

    pub fn propagate_deps(&self) -> bool {
        self.propagate_deps.unwrap_or(false)
    }

    /// `activationPreference: Lazy` (exactly that string, pkg/util/policy.go:22-27).
    pub fn lazy(&self) -> bool {
        self.activation_preference.as_deref() == Some("Lazy")
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceSelector {
    pub api_version: String,
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `None` when absent or `null` (match-all); `Some` even when `{}` (a label match).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelector {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_expressions: Option<Vec<LabelSelectorRequirement>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Placement {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_affinity: Option<ClusterAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_affinities: Option<Vec<ClusterAffinityTerm>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cluster_tolerations: Vec<Toleration>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spread_constraints: Vec<SpreadConstraint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica_scheduling: Option<ReplicaSchedulingStrategy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload_affinity: Option<WorkloadAffinity>,
}

/// Where a cluster affinity is in a placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AffinityAt {
    /// `clusterAffinity`.
    Single,
    /// `clusterAffinities[term]`.
    Term(usize),
    /// `clusterAffinities[term].overflowAffinities[overflow]`.
    Overflow(usize, usize),
}

impl Placement {
    /// Every cluster affinity of the placement, with where it is: `clusterAffinity`, then each
    /// term of `clusterAffinities` followed by its overflow terms. The one walk of the
    /// placement's affinities: what a caller reads of them (names, exclusions) is its own.
    pub fn affinities(&self) -> impl Iterator<Item = (AffinityAt, &ClusterAffinity)> {
        let single = self
            .cluster_affinity
            .iter()
            .map(|a| (AffinityAt::Single, a));
        let terms = self
            .cluster_affinities
            .iter()
            .flatten()
            .enumerate()
            .flat_map(|(t, term)| {
                let overflows = term.overflow_affinities.iter().flatten().enumerate();
                std::iter::once((AffinityAt::Term(t), &term.affinity))
                    .chain(overflows.map(move |(o, ov)| (AffinityAt::Overflow(t, o), &ov.affinity)))
            });
        single.chain(terms)
    }

    /// Every cluster name the placement names explicitly (affinity and affinity terms, overflow
    /// terms included), minus nothing: callers decide what `exclude` means for them.
    pub fn named_clusters(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .affinities()
            .flat_map(|(_, a)| a.cluster_names.iter().map(String::as_str))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The clusters the placement can select whatever its selectors ask, where every affinity
    /// it has (each term, each overflow) names clusters: their names, sorted; `None` otherwise.
    pub fn bounded_by_names(&self) -> Option<Vec<&str>> {
        let mut out: Vec<&str> = Vec::new();
        let mut any = false;
        for (_, a) in self.affinities() {
            out.extend(a.names_bound()?);
            any = true;
        }
        out.sort_unstable();
        out.dedup();
        any.then_some(out)
    }

    /// Whether the placement restricts clusters only by explicit names (no label or field
    /// selectors, no empty affinity that would mean "every cluster").
    pub fn targets_only_named_clusters(&self) -> bool {
        let by_names = ClusterAffinity::selects_by_names_only;
        match (&self.cluster_affinity, &self.cluster_affinities) {
            (Some(a), None) => by_names(a),
            (None, Some(terms)) if !terms.is_empty() => terms.iter().all(|t| {
                by_names(&t.affinity)
                    && t.overflow_affinities
                        .iter()
                        .flatten()
                        .all(|o| by_names(&o.affinity))
            }),
            _ => false,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterAffinity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_selector: Option<FieldSelector>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cluster_names: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

impl ClusterAffinity {
    /// Karmada's "inline ClusterAffinity is empty" (validation.go:444-455).
    pub fn is_empty(&self) -> bool {
        self.label_selector.is_none()
            && self.field_selector.is_none()
            && self.cluster_names.is_empty()
            && self.exclude.is_empty()
    }

    /// Whether the affinity selects by `clusterNames` alone: no label or field selector, and
    /// at least one name (with none, it matches every cluster; `util.ClusterMatches`).
    pub fn selects_by_names_only(&self) -> bool {
        !self.cluster_names.is_empty()
            && self.label_selector.is_none()
            && self.field_selector.is_none()
    }

    /// The clusters an affinity can match whatever its selectors ask, where it names clusters:
    /// its `clusterNames` but the `exclude`d ones, sorted (`util.ClusterMatches` ANDs the
    /// names with the label and field selectors); `None` where it names none.
    pub fn names_bound(&self) -> Option<Vec<&str>> {
        if self.cluster_names.is_empty() {
            return None;
        }
        let mut names: Vec<&str> = self
            .cluster_names
            .iter()
            .map(String::as_str)
            .filter(|n| !self.exclude.iter().any(|x| x == n))
            .collect();
        names.sort_unstable();
        names.dedup();
        Some(names)
    }

    /// The clusters an affinity that [selects by names only](Self::selects_by_names_only) can
    /// match, sorted and without `exclude`d names; `None` for any other affinity.
    pub fn selectable_names(&self) -> Option<Vec<&str>> {
        self.names_bound().filter(|_| self.selects_by_names_only())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterAffinityTerm {
    pub affinity_name: String,
    #[serde(flatten)]
    pub affinity: ClusterAffinity,
    /// `None` when absent: Karmada checks `overflowAffinities != nil`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overflow_affinities: Option<Vec<OverflowAffinityTerm>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OverflowAffinityTerm {
    pub affinity_name: String,
    #[serde(flatten)]
    pub affinity: ClusterAffinity,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FieldSelector {
    pub match_expressions: Vec<FieldSelectorRequirement>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FieldSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Toleration {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub operator: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub effect: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SpreadConstraint {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub spread_by_field: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub spread_by_label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_groups: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_groups: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReplicaSchedulingStrategy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica_scheduling_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica_division_preference: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight_preference: Option<WeightPreference>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WeightPreference {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub static_weight_list: Vec<StaticClusterWeight>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dynamic_weight: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StaticClusterWeight {
    pub target_cluster: ClusterAffinity,
    pub weight: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkloadAffinity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<WorkloadAffinityTerm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anti_affinity: Option<WorkloadAffinityTerm>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkloadAffinityTerm {
    pub group_by_label_key: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FailoverBehavior {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub application: Option<ApplicationFailoverBehavior>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterFailoverBehavior>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ApplicationFailoverBehavior {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_conditions: Option<DecisionConditions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub purge_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_preservation: Option<StatePreservation>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DecisionConditions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ClusterFailoverBehavior {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub purge_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_preservation: Option<StatePreservation>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StatePreservation {
    pub rules: Vec<StatePreservationRule>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StatePreservationRule {
    pub alias_label_name: String,
    pub json_path: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Suspension {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatching: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatching_on_clusters: Option<SuspendClusters>,
}

impl Suspension {
    /// Whether dispatch to `cluster` is paused (`shouldSuspendDispatching`, binding/common.go:363-376).
    pub fn suspends(&self, cluster: &str) -> bool {
        self.dispatching == Some(true)
            || self
                .dispatching_on_clusters
                .as_ref()
                .is_some_and(|c| c.cluster_names.iter().any(|n| n == cluster))
    }

    pub fn suspends_all(&self) -> bool {
        self.dispatching == Some(true)
    }

    pub fn suspended_clusters(&self) -> &[String] {
        self.dispatching_on_clusters
            .as_ref()
            .map_or(&[], |c| c.cluster_names.as_slice())
    }

    /// Whether anything is paused at all.
    pub fn is_active(&self) -> bool {
        self.suspends_all() || !self.suspended_clusters().is_empty()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SuspendClusters {
    pub cluster_names: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SchedulePriority {
    pub priority_class_source: String,
    pub priority_class_name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectable_names_are_the_names_less_exclude_and_only_for_name_only_affinities() {
        let a: ClusterAffinity =
            serde_json::from_str(r#"{"clusterNames":["m2","m1","m2","m3"],"exclude":["m3"]}"#)
                .unwrap();
        assert_eq!(a.selectable_names(), Some(vec!["m1", "m2"]));
        let labels: ClusterAffinity = serde_json::from_str(
            r#"{"clusterNames":["m1"],"labelSelector":{"matchLabels":{"a":"b"}}}"#,
        )
        .unwrap();
        assert_eq!(labels.selectable_names(), None);
        // No names: every cluster, not none.
        assert_eq!(ClusterAffinity::default().selectable_names(), None);
    }

    #[test]
    fn empty_label_selector_is_kept_distinct_from_absent() {
        let a: ResourceSelector =
            serde_json::from_str(r#"{"apiVersion":"v1","kind":"ConfigMap","labelSelector":{}}"#)
                .unwrap();
        assert!(a.label_selector.is_some());
        let b: ResourceSelector =
            serde_json::from_str(r#"{"apiVersion":"v1","kind":"ConfigMap","labelSelector":null}"#)
                .unwrap();
        assert!(b.label_selector.is_none());
    }

    #[test]
    fn suspension_per_cluster() {
        let s: Suspension =
            serde_json::from_str(r#"{"dispatchingOnClusters":{"clusterNames":["member2"]}}"#)
                .unwrap();
        assert!(s.suspends("member2"));
        assert!(!s.suspends("member1"));
        assert!(!s.suspends_all());
    }
}
