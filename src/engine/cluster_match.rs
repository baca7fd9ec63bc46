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

/// The plainest cluster a selecting affinity (labelSelector or fieldSelector, no clusterNames)
/// selects: unnamed, with only the labels and fields the affinity requires (the first value of
/// an `In`). What holds for it holds for a cluster of the fleet that carries just those; used
/// where the fleet is not known, to say what happens on "a cluster labelled `hardware=pi`".
/// `None` when the affinity names clusters, selects none by labels or fields, or contradicts
/// itself.
pub fn witness(affinity: &ClusterAffinity) -> Option<Cluster> {
    if !affinity.cluster_names.is_empty()
        || (affinity.label_selector.is_none() && affinity.field_selector.is_none())
    {
        return None;
    }
    let mut cluster = Cluster::named("");
    if let Some(ls) = &affinity.label_selector {
        for (k, v) in ls.match_labels.iter().flatten() {
            cluster.labels.insert(k.clone(), v.clone());
        }
        for r in ls.match_expressions.iter().flatten() {
            let value = match (r.operator.as_str(), r.values.as_deref()) {
                ("In", Some([first, ..])) => first.clone(),
                ("Exists", _) => String::new(),
                _ => continue,
            };
            if !cluster.labels.contains_key(&r.key) {
                cluster.labels.insert(r.key.clone(), value);
            }
        }
    }
    for r in affinity
        .field_selector
        .iter()
        .flat_map(|f| &f.match_expressions)
    {
        let value = match (r.operator.as_str(), r.values.first()) {
            ("In", Some(first)) => first.clone(),
            ("Exists", _) => "any".to_string(),
            _ => continue,
        };
        match r.key.as_str() {
            "provider" if cluster.spec.provider.is_empty() => cluster.spec.provider = value,
            "region" if cluster.spec.region.is_empty() => cluster.spec.region = value,
            "zone" if cluster.spec.zones.is_empty() => cluster.spec.zones = vec![value],
            _ => {}
        }
    }
    cluster_matches(&cluster, affinity).then_some(cluster)
}

/// "labels hardware=pi, tier; region eu": what a [`witness`] carries, as a finding says it.
pub fn describe_witness(cluster: &Cluster) -> String {
    let labels: Vec<String> = cluster
        .labels
        .iter()
        .map(|(k, v)| {
            if v.is_empty() {
                k.to_string()
            } else {
                format!("{k}={v}")
            }
        })
        .collect();
    let mut parts = Vec::new();
    if !labels.is_empty() {
        parts.push(format!("labels {}", labels.join(", ")));
    }
    for (field, value) in [
        ("provider", cluster.spec.provider.as_str()),
        ("region", cluster.spec.region.as_str()),
        (
            "zone",
            cluster.spec.zones.first().map_or("", String::as_str),
        ),
    ] {
        if !value.is_empty() {
            parts.push(format!("{field} {value}"));
        }
    }
    parts.join("; ")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn affinity(json: &str) -> ClusterAffinity {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_witness_carries_what_the_affinity_requires_and_no_more() {
        let a = affinity(
            r#"{"labelSelector": {"matchLabels": {"hw": "pi"}, "matchExpressions": [
                {"key": "region", "operator": "In", "values": ["eu", "us"]},
                {"key": "gpu", "operator": "Exists"},
                {"key": "env", "operator": "NotIn", "values": ["dev"]}]},
              "fieldSelector": {"matchExpressions": [{"key": "provider", "operator": "In", "values": ["aws"]}]}}"#,
        );
        let w = witness(&a).expect("a cluster this affinity selects");
        assert!(cluster_matches(&w, &a));
        assert_eq!(w.name, "");
        assert_eq!(
            describe_witness(&w),
            "labels gpu, hw=pi, region=eu; provider aws"
        );
        // Names, nothing selecting, or a contradiction: no witness.
        assert!(witness(&affinity(
            r#"{"clusterNames": ["m1"], "labelSelector": {"matchLabels": {"a": "b"}}}"#
        ))
        .is_none());
        assert!(witness(&affinity(r#"{"exclude": ["m1"]}"#)).is_none());
        let contradiction = r#"{"labelSelector": {"matchLabels": {"a": "b"}, "matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}}"#;
        assert!(witness(&affinity(contradiction)).is_none());
    }
}
