//! The scheduler's filter stage for one placement (overrides-and-placement.md Part B): which
//! member clusters a template can land on, and why each other cluster is excluded, with the
//! scheduler's own reason strings and its `0/N clusters are available` text.
//!
//! Karmada runs its filter plugins in Go map order (random per scheduler process) and keeps only
//! the first failure per cluster (§B.2). To stay deterministic every plugin runs for every
//! cluster; the first failure in registry order is the reported one and the others are kept.
//! Scoring and replica division are out of scope: where spread constraints make the scheduler
//! pick some of the feasible clusters by score, the result says how many it picks.

use serde::Serialize;

use crate::model::cluster::{ApiState, Cluster, Taint};
use crate::model::policy::{ClusterAffinity, FieldSelectorRequirement, Placement, Toleration};

use super::selector::label_selector_matches;

/// A filter plugin of the scheduler's default registry (§B.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Filter {
    ClusterAffinity,
    TaintToleration,
    APIEnablement,
    ClusterEviction,
    SpreadConstraint,
}

impl Filter {
    pub fn as_str(self) -> &'static str {
        match self {
            Filter::ClusterAffinity => "ClusterAffinity",
            Filter::TaintToleration => "TaintToleration",
            Filter::APIEnablement => "APIEnablement",
            Filter::ClusterEviction => "ClusterEviction",
            Filter::SpreadConstraint => "SpreadConstraint",
        }
    }
}

/// One plugin's refusal of one cluster, with the scheduler's reason string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub filter: Filter,
    pub reason: String,
}

/// A cluster the filter stage excludes: `failures[0]` is the reported one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exclusion {
    pub cluster: String,
    pub failures: Vec<Failure>,
}

impl Exclusion {
    pub fn first(&self) -> &Failure {
        &self.failures[0]
    }
}

/// What the scheduler knows about the template and its binding besides the placement.
#[derive(Clone, Copy, Debug, Default)]
pub struct BindingView<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    /// The binding's `spec.clusters`: they skip TaintToleration and APIEnablement (§B.9).
    pub scheduled: &'a [String],
    /// `fromCluster` of the binding's `gracefulEvictionTasks` (§B.7).
    pub evicting: &'a [String],
    /// `status.schedulerObservedAffinityName` (§B.10); `None` for a new binding.
    pub observed_affinity: Option<&'a str>,
    /// replicas > 0 (or replica requirements): a term's overflowAffinities count (§B.3).
    pub workload: bool,
}

/// One scheduling attempt with one affinity (the single one, or one term).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The term's `affinityName`; `None` for `clusterAffinity` or no affinity at all.
    pub term: Option<String>,
    pub feasible: Vec<String>,
    pub excluded: Vec<Exclusion>,
    /// The attempt's error as the scheduler words it (`0/N clusters are available: …`, or a
    /// spread-selection error); `None` on success.
    pub error: Option<ScheduleError>,
    /// Spread constraints pick this many of the feasible clusters by score (out of scope).
    pub picks: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleError {
    /// No cluster passed the filters: condition reason `NoClusterFit`.
    NoClusterFit(String),
    /// Spread selection or assignment failed: condition reason `SchedulerError`.
    Scheduler(String),
}

impl ScheduleError {
    pub fn text(&self) -> &str {
        match self {
            ScheduleError::NoClusterFit(s) | ScheduleError::Scheduler(s) => s,
        }
    }
}

/// The filter stage's outcome: the attempt that decided, and every attempt made (§B.10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementResult {
    /// The successful attempt, or when every attempt failed the first one (whose error the
    /// scheduler reports).
    pub decided: Attempt,
    pub attempts: Vec<Attempt>,
    /// Number of clusters in the snapshot (deleting ones included).
    pub total: usize,
    /// The clusters whose API enablements the inputs do not report: taken to serve the API
    /// (`ApiState::NotReported`), which the report says.
    pub unreported: Vec<String>,
}

impl PlacementResult {
    pub fn succeeded(&self) -> bool {
        self.decided.error.is_none()
    }
}

// ---- cluster matching (`util.ClusterMatches`, §A.4), shared with overrides' targetCluster ----

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

// ---- the filter plugins ----

const AFFINITY_REASON: &str = "cluster(s) did not match the placement cluster affinity constraint";
const API_REASON: &str = "cluster(s) did not have the API resource";
const EVICTION_REASON: &str = "cluster(s) is in the process of eviction";

/// `Toleration.ToleratesTaint` without comparison operators (§B.4).
pub fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    if !t.effect.is_empty() && t.effect != taint.effect {
        return false;
    }
    if !t.key.is_empty() && t.key != taint.key {
        return false;
    }
    match t.operator.as_str() {
        "" | "Equal" => t.value == taint.value,
        "Exists" => true,
        _ => false,
    }
}

/// The first NoSchedule/NoExecute taint, in the cluster's order, that no toleration tolerates.
pub fn untolerated_taint<'c>(
    cluster: &'c Cluster,
    tolerations: &[Toleration],
) -> Option<&'c Taint> {
    cluster.spec.taints.iter().find(|taint| {
        matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute")
            && !tolerations.iter().any(|t| tolerates(t, taint))
    })
}

fn spread_failure(cluster: &Cluster, placement: &Placement) -> Option<String> {
    placement
        .spread_constraints
        .iter()
        .find_map(|sc| match sc.spread_by_field.as_str() {
            "provider" if cluster.spec.provider.is_empty() => Some("provider"),
            "region" if cluster.spec.region.is_empty() => Some("region"),
            "zone" if cluster.spec.zones.is_empty() => Some("zones"),
            _ => None,
        })
        .map(|p| format!("cluster(s) did not have {p} property"))
}

/// Every plugin's verdict on one cluster, in registry order.
fn run_filters(
    cluster: &Cluster,
    placement: &Placement,
    affinities: &[&ClusterAffinity],
    view: &BindingView<'_>,
) -> Vec<Failure> {
    let mut out = Vec::new();
    let scheduled = view.scheduled.contains(&cluster.name);
    if !affinities.is_empty() && !affinities.iter().any(|a| cluster_matches(cluster, a)) {
        out.push(Failure {
            filter: Filter::ClusterAffinity,
            reason: AFFINITY_REASON.into(),
        });
    }
    if !scheduled {
        if let Some(taint) = untolerated_taint(cluster, &placement.cluster_tolerations) {
            out.push(Failure {
                filter: Filter::TaintToleration,
                reason: format!("cluster(s) had untolerated taint {{{taint}}}"),
            });
        }
        // A cluster whose API enablements the inputs do not report is taken to serve the API
        // (the note naming it says so); one that reports them is judged as the scheduler does.
        if !matches!(
            cluster.api_state(view.api_version, view.kind),
            ApiState::Enabled | ApiState::NotReported
        ) {
            out.push(Failure {
                filter: Filter::APIEnablement,
                reason: API_REASON.into(),
            });
        }
    }
    if view.evicting.contains(&cluster.name) {
        out.push(Failure {
            filter: Filter::ClusterEviction,
            reason: EVICTION_REASON.into(),
        });
    }
    if let Some(reason) = spread_failure(cluster, placement) {
        out.push(Failure {
            filter: Filter::SpreadConstraint,
            reason,
        });
    }
    out
}

/// `FitError.Error()` (§B.11): a histogram of first reasons, sorted as strings.
pub fn fit_error_text(total: usize, excluded: &[Exclusion]) -> String {
    if total == 0 || excluded.is_empty() {
        return format!("0/{total} clusters are available: no cluster exists.");
    }
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    for e in excluded {
        *counts.entry(&e.first().reason).or_default() += 1;
    }
    let mut entries: Vec<String> = counts.iter().map(|(r, n)| format!("{n} {r}")).collect();
    entries.sort();
    format!("0/{total} clusters are available: {}.", entries.join(", "))
}

/// Spread selection after the filter (§B.8): an error, or how many clusters scoring picks.
fn select(placement: &Placement, feasible: usize) -> Result<Option<usize>, String> {
    let constraints = &placement.spread_constraints;
    if constraints.is_empty() || static_weighted(placement) {
        return Ok(None);
    }
    // The webhook defaults a constraint without field or label to `cluster` and minGroups 0 to 1.
    let field = |sc: &crate::model::policy::SpreadConstraint| {
        if sc.spread_by_field.is_empty() && sc.spread_by_label.is_empty() {
            "cluster".to_string()
        } else {
            sc.spread_by_field.clone()
        }
    };
    let min = |sc: &crate::model::policy::SpreadConstraint| match sc.min_groups {
        None | Some(0) => 1,
        Some(n) => n.max(0) as usize,
    };
    let by_cluster = constraints.iter().find(|sc| field(sc) == "cluster");
    let by_region = constraints.iter().any(|sc| field(sc) == "region");
    if by_region {
        // Region grouping needs the regions of the feasible clusters; the caller checks it.
        return Ok(None);
    }
    let Some(sc) = by_cluster else {
        return Err(
            "failed to select clusters: just support cluster and region spread constraint".into(),
        );
    };
    if feasible < min(sc) {
        return Err("failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups".into());
    }
    match sc.max_groups {
        Some(0) => Err("failed to assign replicas: no clusters available to schedule".into()),
        Some(max) if (max as usize) < feasible => Ok(Some(max as usize)),
        _ => Ok(None),
    }
}

/// Divided + Weighted with a static weight list (or none) and no dynamic weight: spread
/// selection is skipped and every feasible cluster is kept (`select_clusters.go:57-69`).
fn static_weighted(placement: &Placement) -> bool {
    let Some(rs) = &placement.replica_scheduling else {
        return false;
    };
    let divided = rs.replica_scheduling_type.as_deref() == Some("Divided");
    let weighted = rs
        .replica_division_preference
        .as_deref()
        .unwrap_or("Weighted")
        == "Weighted";
    divided
        && weighted
        && rs
            .weight_preference
            .as_ref()
            .is_none_or(|w| w.dynamic_weight.as_deref().unwrap_or("").is_empty())
}

/// Region spread: too few distinct regions among the feasible clusters.
fn region_error(placement: &Placement, clusters: &[&Cluster]) -> Option<String> {
    let sc = placement
        .spread_constraints
        .iter()
        .find(|sc| sc.spread_by_field == "region")?;
    let mut regions: Vec<&str> = clusters.iter().map(|c| c.spec.region.as_str()).collect();
    regions.sort_unstable();
    regions.dedup();
    let min = sc.min_groups.filter(|n| *n > 0).unwrap_or(1) as usize;
    (regions.len() < min).then(|| {
        "failed to select clusters: the number of feasible region is less than spreadConstraint.MinGroups".to_string()
    })
}

/// One `Schedule` call with the given affinities (§B.1).
fn attempt(
    clusters: &[Cluster],
    placement: &Placement,
    term: Option<String>,
    affinities: &[&ClusterAffinity],
    view: &BindingView<'_>,
) -> Attempt {
    let mut feasible = Vec::new();
    let mut feasible_clusters = Vec::new();
    let mut excluded = Vec::new();
    for c in clusters.iter().filter(|c| !c.deleting) {
        let failures = run_filters(c, placement, affinities, view);
        if failures.is_empty() {
            feasible.push(c.name.clone());
            feasible_clusters.push(c);
        } else {
            excluded.push(Exclusion {
                cluster: c.name.clone(),
                failures,
            });
        }
    }
    let (error, picks) = if feasible.is_empty() {
        (
            Some(ScheduleError::NoClusterFit(fit_error_text(
                clusters.len(),
                &excluded,
            ))),
            None,
        )
    } else if let Some(e) = region_error(placement, &feasible_clusters) {
        (Some(ScheduleError::Scheduler(e)), None)
    } else {
        match select(placement, feasible.len()) {
            Ok(picks) => (None, picks),
            Err(e) => (Some(ScheduleError::Scheduler(e)), None),
        }
    };
    Attempt {
        term,
        feasible,
        excluded,
        error,
        picks,
    }
}

/// The filter stage for `placement` over `clusters`, with the clusterAffinities fallback
/// (§B.10): from the observed term (0 for a new binding) forward on any error, never wrapping;
/// when all fail, the first attempt's error is the one reported.
pub fn evaluate(
    placement: &Placement,
    clusters: &[Cluster],
    view: &BindingView<'_>,
) -> PlacementResult {
    let terms = match (&placement.cluster_affinity, &placement.cluster_affinities) {
        (None, Some(terms)) if !terms.is_empty() => terms,
        (single, _) => {
            let affinities: Vec<&ClusterAffinity> = single.iter().collect();
            let a = attempt(clusters, placement, None, &affinities, view);
            return PlacementResult {
                decided: a.clone(),
                attempts: vec![a],
                total: clusters.len(),
                unreported: unreported(clusters),
            };
        }
    };
    let start = view
        .observed_affinity
        .and_then(|name| terms.iter().position(|t| t.affinity_name == name))
        .unwrap_or(0);
    let mut attempts = Vec::new();
    for term in &terms[start..] {
        let mut affinities = vec![&term.affinity];
        if view.workload {
            affinities.extend(
                term.overflow_affinities
                    .iter()
                    .flatten()
                    .map(|o| &o.affinity),
            );
        }
        let a = attempt(
            clusters,
            placement,
            Some(term.affinity_name.clone()),
            &affinities,
            view,
        );
        let ok = a.error.is_none();
        attempts.push(a);
        if ok {
            break;
        }
    }
    let decided = attempts
        .iter()
        .find(|a| a.error.is_none())
        .unwrap_or(&attempts[0])
        .clone();
    PlacementResult {
        decided,
        attempts,
        total: clusters.len(),
        unreported: unreported(clusters),
    }
}

fn unreported(clusters: &[Cluster]) -> Vec<String> {
    crate::model::cluster::unreported(clusters)
        .into_iter()
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests;
