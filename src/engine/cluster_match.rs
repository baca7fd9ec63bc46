//! Whether a member cluster satisfies a `ClusterAffinity` (`util.ClusterMatches`,
//! `pkg/util/selector.go`; overrides-and-placement.md §A.4): the scheduler's ClusterAffinity
//! filter, the override manager's `targetCluster` and the static weights' `targetCluster` all
//! read it.

use crate::model::cluster::Cluster;
use crate::model::policy::{ClusterAffinity, FieldSelectorRequirement};

use super::selector::label_selector_matches;

/// Whether `cluster` satisfies the affinity: exclude first, then labelSelector, fieldSelector
/// and clusterNames ANDed (`selector.go:98-164`).
pub fn cluster_matches(cluster: &Cluster, affinity: &ClusterAffinity) -> bool {
    if affinity.exclude.contains(&cluster.name) {
        return false;
    }
    if let Some(ls) = &affinity.label_selector {
        if !label_selector_matches(ls, &cluster.labels).unwrap_or(false) {
            return false;
        }
    }
    if let Some(fs) = &affinity.field_selector {
        if !fs
            .match_expressions
            .iter()
            .all(|r| field_matches(cluster, r))
        {
            return false;
        }
    }
    affinity.cluster_names.is_empty() || affinity.cluster_names.contains(&cluster.name)
}

/// One fieldSelector requirement: `zone` against `spec.zones` as a set, `provider`/`region` as
/// label requirements (absent when empty), other keys never present (§A.4 table).
fn field_matches(cluster: &Cluster, r: &FieldSelectorRequirement) -> bool {
    if r.key == "zone" {
        let zones = &cluster.spec.zones;
        return match r.operator.as_str() {
            "In" => zones.iter().any(|z| r.values.contains(z)),
            "NotIn" => !zones.iter().any(|z| r.values.contains(z)),
            "Exists" => !zones.is_empty(),
            "DoesNotExist" => zones.is_empty(),
            _ => false,
        };
    }
    let value = match r.key.as_str() {
        "provider" => Some(cluster.spec.provider.as_str()),
        "region" => Some(cluster.spec.region.as_str()),
        _ => None,
    }
    .filter(|v| !v.is_empty());
    // `labels.NewRequirement` refuses empty values for In/NotIn and values for Exists.
    match r.operator.as_str() {
        "In" if !r.values.is_empty() => value.is_some_and(|v| r.values.iter().any(|x| x == v)),
        "NotIn" if !r.values.is_empty() => value.is_none_or(|v| !r.values.iter().any(|x| x == v)),
        "Exists" if r.values.is_empty() => value.is_some(),
        "DoesNotExist" if r.values.is_empty() => value.is_none(),
        "Gt" | "Lt" if r.values.len() == 1 => {
            let (Some(v), Ok(bound)) = (value, r.values[0].parse::<i64>()) else {
                return false;
            };
            v.parse::<i64>().is_ok_and(|n| {
                if r.operator == "Gt" {
                    n > bound
                } else {
                    n < bound
                }
            })
        }
        _ => false,
    }
}
