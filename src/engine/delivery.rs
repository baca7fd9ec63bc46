//! Where a template goes and what each member cluster receives: the owner's placement through
//! the filter stage (`placement`) and the override chain per target cluster (`overrides`),
//! for `explain` in both the file and the live form.

use serde_json::Value;

use crate::model::cluster::Cluster;
use crate::model::policy::Placement;
use crate::model::OverridePolicy;

use super::overrides::{apply_for_cluster, ClusterOverrides};
use super::placement::{evaluate, BindingView, PlacementResult};

/// What `explain` knows beyond the claim.
pub struct DeliveryInput<'a> {
    /// The template's manifest.
    pub template: &'a Value,
    /// The owner's placement (after admission defaults); `None` without an owner.
    pub placement: Option<&'a Placement>,
    /// The Cluster objects known (files or control plane); empty when none were given.
    pub clusters: &'a [Cluster],
    /// Every OverridePolicy and ClusterOverridePolicy known.
    pub overrides: &'a [&'a OverridePolicy],
    /// The binding's scheduler inputs (live); default for a new binding.
    pub binding: BindingView<'a>,
    /// The binding's `spec.clusters` (live), the default override targets.
    pub bound: Option<&'a [String]>,
    /// `--clusters`: the clusters to compute overrides for, overriding the default.
    pub chosen: &'a [String],
}

pub struct Delivery {
    /// `None` when no Cluster objects are known or the template has no owner.
    pub placement: Option<PlacementResult>,
    pub overrides: Vec<ClusterOverrides>,
}

/// The override targets: `--clusters`, else the binding's clusters, else the clusters the
/// placement selects (the feasible set, or its cluster names without Cluster objects).
fn targets(input: &DeliveryInput<'_>, placement: Option<&PlacementResult>) -> Vec<String> {
    if !input.chosen.is_empty() {
        return input.chosen.to_vec();
    }
    if let Some(bound) = input.bound {
        return bound.to_vec();
    }
    match (placement, input.placement) {
        (Some(p), _) => p.decided.feasible.clone(),
        (None, Some(pl)) => pl
            .named_clusters()
            .into_iter()
            .map(str::to_string)
            .collect(),
        (None, None) => Vec::new(),
    }
}

pub fn deliver(input: &DeliveryInput<'_>) -> Delivery {
    let placement = match input.placement {
        Some(p) if !input.clusters.is_empty() => Some(evaluate(p, input.clusters, &input.binding)),
        _ => None,
    };
    let named: Vec<Cluster>;
    // Without Cluster objects a cluster is known by its name only: targetCluster rules that
    // look at labels or fields cannot match it.
    let clusters: &[Cluster] = if input.clusters.is_empty() {
        named = targets(input, None)
            .iter()
            .map(|n| Cluster::named(n))
            .collect();
        &named
    } else {
        input.clusters
    };
    let overrides = if input.overrides.is_empty() && input.chosen.is_empty() {
        Vec::new()
    } else {
        targets(input, placement.as_ref())
            .iter()
            .map(|name| {
                let cluster = clusters.iter().find(|c| c.name == *name);
                apply_for_cluster(input.template, name, cluster, input.overrides)
            })
            .collect()
    };
    Delivery {
        placement,
        overrides,
    }
}

/// Whether the scheduler treats the template as a workload (replicas > 0), which makes a
/// term's overflowAffinities count (§B.3). The API server defaults absent replicas to 1.
pub fn is_workload(template: &Value) -> bool {
    let kind = template.get("kind").and_then(Value::as_str).unwrap_or("");
    let replicas = template.pointer("/spec/replicas").and_then(Value::as_i64);
    match kind {
        "Deployment" | "StatefulSet" | "ReplicaSet" => replicas.unwrap_or(1) > 0,
        _ => replicas.is_some_and(|r| r > 0),
    }
}

/// Which template is delivered and which policy will own it (an explanation's `template` and
/// `eventual`): the placement is that policy's.
#[derive(Clone, Copy)]
pub struct Owned<'a> {
    pub template: usize,
    pub eventual: Option<&'a crate::model::PolicyRef>,
}

/// Placement and overrides against the control plane: the binding's scheduling state (its
/// clusters skip two filters, its eviction tasks and observed affinity term count) and its
/// clusters as the default override targets.
pub fn from_live_binding(
    state: &crate::engine::state::State,
    e: Owned<'_>,
    template: &serde_json::Value,
    binding: Option<&serde_json::Value>,
    inv: &crate::model::Inventory,
    clusters: &[Cluster],
    chosen: &[String],
) -> Delivery {
    let names = |v: Option<&serde_json::Value>, key: &str| -> Vec<String> {
        v.and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|x| x[key].as_str().map(str::to_string))
            .collect()
    };
    let bound = binding.map(|b| names(b.pointer("/spec/clusters"), "name"));
    let evicting = names(
        binding.and_then(|b| b.pointer("/spec/gracefulEvictionTasks")),
        "fromCluster",
    );
    let observed = binding.and_then(|b| {
        b.pointer("/status/schedulerObservedAffinityName")
            .and_then(serde_json::Value::as_str)
    });
    let placement = e
        .eventual
        .and_then(|o| state.find_policy(o))
        .and_then(|p| state.policy(p).spec.placement.as_ref());
    let overrides: Vec<&OverridePolicy> = inv.overrides().collect();
    let tpl = &state.templates[e.template];
    let scheduled = bound.clone().unwrap_or_default();
    deliver(&DeliveryInput {
        template,
        placement,
        clusters,
        overrides: &overrides,
        binding: BindingView {
            api_version: &tpl.api_version,
            kind: &tpl.kind,
            scheduled: &scheduled,
            evicting: &evicting,
            observed_affinity: observed,
            workload: is_workload(template),
        },
        bound: bound.as_deref(),
        chosen,
    })
}

/// Placement and overrides from the files: the eventual owner's placement over the Cluster
/// objects of the inputs, and the override chain for the chosen or selected clusters (no
/// binding: nothing is scheduled yet).
pub fn from_files(
    inv: &crate::model::Inventory,
    state: &crate::engine::state::State,
    decision: Owned<'_>,
    template: &serde_json::Value,
    chosen: &[String],
) -> Delivery {
    let clusters = Cluster::from_inventory(inv);
    let overrides: Vec<&OverridePolicy> = inv.overrides().collect();
    let placement = decision
        .eventual
        .and_then(|o| state.find_policy(o))
        .and_then(|p| state.policy(p).spec.placement.as_ref());
    let tpl = &state.templates[decision.template];
    deliver(&DeliveryInput {
        template,
        placement,
        clusters: &clusters,
        overrides: &overrides,
        binding: BindingView {
            api_version: &tpl.api_version,
            kind: &tpl.kind,
            workload: is_workload(template),
            ..Default::default()
        },
        bound: None,
        chosen,
    })
}

/// What one member cluster receives of a template under one owner: the override policies
/// applied (in order) and the error that drops the cluster's Work, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Received {
    pub policies: Vec<String>,
    pub manifest: Option<serde_json::Value>,
    pub error: Option<String>,
}

/// One member cluster whose share of a moved template changes.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterChange {
    pub cluster: String,
    /// `None`: not a target under that owner.
    pub before: Option<Received>,
    pub after: Option<Received>,
}

/// A moved template's delivery before and after the move, per member cluster that changes.
#[derive(Clone, Debug, PartialEq)]
pub struct DeliveryChange {
    pub template: usize,
    pub before: Option<crate::model::PolicyRef>,
    pub after: crate::model::PolicyRef,
    pub clusters: Vec<ClusterChange>,
}
