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
use crate::model::policy::{ClusterAffinity, Placement, Toleration};

use super::replicas::select::{spread_field, SpreadSelection, UNSUPPORTED_SPREAD};
use super::replicas::Strategy;

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
    /// The template's replica fields and the capacity inputs: with them each attempt also
    /// selects and divides (`super::replicas`), and capacity can fail a term.
    pub replicas: Option<super::replicas::ReplicaView<'a>>,
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
    /// The steps after the filter (`super::replicas`) when the caller gave the template's
    /// replica fields ([`BindingView::replicas`]): `spec.clusters`, the error that made the
    /// attempt fail, or the inputs missing to know.
    pub assignment: Option<super::replicas::Outcome>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleError {
    /// No cluster passed the filters: condition reason `NoClusterFit`.
    NoClusterFit(String),
    /// Spread selection or assignment failed: condition reason `SchedulerError`.
    Scheduler(String),
    /// Not enough available replicas (`framework.UnschedulableError`): condition reason
    /// `Unschedulable`.
    Unschedulable(String),
}

impl ScheduleError {
    pub fn text(&self) -> &str {
        match self {
            ScheduleError::NoClusterFit(s)
            | ScheduleError::Scheduler(s)
            | ScheduleError::Unschedulable(s) => s,
        }
    }

    /// The binding's `Scheduled` condition reason (`getConditionByError`, helper.go).
    pub fn reason(&self) -> &'static str {
        match self {
            ScheduleError::NoClusterFit(_) => "NoClusterFit",
            ScheduleError::Scheduler(_) => "SchedulerError",
            ScheduleError::Unschedulable(_) => "Unschedulable",
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

    /// The assignment under the other tie-break, where it differs: Webster's ties follow the
    /// template's uid (`tieBreakerByUID`, pkg/util/helper/binding.go), which a manifest not yet
    /// created lacks. Empty where the uid decides nothing.
    pub fn other_tie_break(&self) -> &[super::replicas::Target] {
        use super::replicas::{AssignmentNote, Outcome};
        let Some(Outcome::Scheduled(s)) = &self.decided.assignment else {
            return &[];
        };
        s.notes
            .iter()
            .find_map(|n| match n {
                AssignmentNote::UidTieBreak { other } => Some(other.as_slice()),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The clusters the assignment leaves out that the other tie-break gives replicas
    /// ([`PlacementResult::other_tie_break`]): one replica over two equal weights goes to
    /// either.
    pub fn under_other_tie_break(&self) -> Vec<String> {
        use super::replicas::Outcome;
        let Some(Outcome::Scheduled(s)) = &self.decided.assignment else {
            return Vec::new();
        };
        self.other_tie_break()
            .iter()
            .filter(|t| !s.shares.iter().any(|share| share.cluster == t.cluster))
            .map(|t| t.cluster.clone())
            .collect()
    }

    /// Whether the decided attempt selects only some of its feasible clusters, unknown which:
    /// spread constraints pick among them by score, which is not modelled, or capacity decides
    /// and the Cluster objects declare none (a division drops the clusters it leaves without
    /// replicas, `removeZeroReplicasCluster`, pkg/scheduler/core/common.go; a spread
    /// constraint that picks fewer clusters than pass the filters orders them by available
    /// replicas, spreadconstraint/util.go `sortClusters`).
    pub fn selection_unknown(&self) -> bool {
        use super::replicas::Outcome;
        self.decided.error.is_none()
            && match &self.decided.assignment {
                Some(Outcome::Scheduled(_)) => false,
                Some(Outcome::Unknown { .. } | Outcome::Invalid(_)) => true,
                Some(Outcome::Failed(_)) | None => self.decided.picks.is_some(),
            }
    }
}

// ---- cluster matching (`util.ClusterMatches`, §A.4): in `cluster_match`, shared with the
// overrides' targetCluster and the replica division's static weights ----

pub use super::cluster_match::cluster_matches;

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

/// A spread constraint's field, `minGroups` and `maxGroups` as the scheduler reads them: the
/// webhook's defaulting applied (a constraint with neither field nor label spreads by
/// `cluster`, `minGroups` 0 becomes 1: `pkg/util/helper/policy.go:32-44`), `maxGroups` as set
/// (0 when absent). The field is [`spread_field`], shared with the replica selection.
fn min_groups(sc: &crate::model::policy::SpreadConstraint) -> usize {
    match sc.min_groups {
        None | Some(0) => 1,
        Some(n) => n.max(0) as usize,
    }
}

fn max_groups(sc: &crate::model::policy::SpreadConstraint) -> usize {
    sc.max_groups.unwrap_or(0).max(0) as usize
}

const SELECT_PREFIX: &str = "failed to select clusters: ";

/// Spread selection after the filter (§B.8; `spreadconstraint/select_clusters.go`,
/// `SelectBestClusters`): an error, or how many clusters scoring picks (cluster spread only).
/// The constraints are keyed by field, the last one of a field winning
/// (`selectBestClustersBySpreadConstraints`); a region constraint decides over a cluster one.
fn select(placement: &Placement, feasible: &[&Cluster]) -> Result<Option<usize>, String> {
    let constraints = &placement.spread_constraints;
    if SpreadSelection::of(placement) == SpreadSelection::Every {
        return Ok(None);
    }
    let by_field = |field: &str| {
        constraints
            .iter()
            .rev()
            .find(|sc| spread_field(sc) == field)
    };
    if let Some(region) = by_field("region") {
        return select_by_region(region, by_field("cluster"), feasible).map(|()| None);
    }
    let Some(sc) = by_field("cluster") else {
        // SpreadSelection::Unsupported, whatever the clusters: the answer `lint` reports
        // (spread-constraints-unschedulable).
        return Err(format!("{SELECT_PREFIX}{UNSUPPORTED_SPREAD}"));
    };
    // `select_clusters_by_cluster.go:27-30`.
    if feasible.len() < min_groups(sc) {
        return Err(format!("{SELECT_PREFIX}the number of feasible clusters is less than spreadConstraint.MinGroups"));
    }
    match sc.max_groups {
        Some(0) => Err("failed to assign replicas: no clusters available to schedule".into()),
        Some(max) if (max as usize) < feasible.len() => Ok(Some(max as usize)),
        _ => Ok(None),
    }
}

/// `select_clusters_by_region.go`, `selectBestClustersByRegion`: enough regions among the
/// feasible clusters (`:30-32`), then a set of regions, as many as the region constraint
/// allows, holding at least the cluster constraint's `minGroups` clusters (`selectRegions`,
/// `:35-39`). Which regions scoring picks is not modelled; whether any set exists is.
fn select_by_region(
    region: &crate::model::policy::SpreadConstraint,
    cluster: Option<&crate::model::policy::SpreadConstraint>,
    feasible: &[&Cluster],
) -> Result<(), String> {
    // `group_clusters.go`, `generateRegionInfo`: clusters without a region are in no group.
    let mut regions: std::collections::BTreeMap<&str, usize> = Default::default();
    for c in feasible.iter().filter(|c| !c.spec.region.is_empty()) {
        *regions.entry(c.spec.region.as_str()).or_default() += 1;
    }
    if regions.len() < min_groups(region) {
        return Err(format!(
            "{SELECT_PREFIX}the number of feasible region is less than spreadConstraint.MinGroups"
        ));
    }
    // Without a cluster constraint its minGroups is Go's zero value.
    let target = cluster.map_or(0, min_groups);
    let sizes: Vec<usize> = regions.into_values().collect();
    if !regions_can_hold(sizes, min_groups(region), max_groups(region), target) {
        return Err(format!("{SELECT_PREFIX}the number of clusters is less than the cluster spreadConstraint.MinGroups"));
    }
    Ok(())
}

/// Whether `findFeasiblePaths` (`select_groups.go`) finds any path: a set of between `min` and
/// `max` groups whose sizes add up to `target` or more. Its depth-first search reaches every
/// such set (a path is taken as soon as it qualifies, and only shorter ones are extended), so
/// one exists exactly when the largest groups that fit in `max` do: no search is needed.
fn regions_can_hold(mut sizes: Vec<usize>, min: usize, max: usize, target: usize) -> bool {
    let take = max.min(sizes.len());
    if take < min {
        return false;
    }
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes[..take].iter().sum::<usize>() >= target
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
    } else {
        match select(placement, &feasible_clusters) {
            Ok(picks) => (None, picks),
            Err(e) => (Some(ScheduleError::Scheduler(e)), None),
        }
    };
    // The steps after the filter (selection, division) when the caller gave replica fields:
    // their failure is the attempt's. A failed filter or selection ends the schedule before
    // any division (`Schedule`, pkg/scheduler/core/generic_scheduler.go).
    let assignment = super::replicas::after_filter(
        &feasible_clusters,
        placement,
        term.as_deref(),
        view.replicas.as_ref(),
        error.is_some(),
    );
    let error = match &assignment {
        Some(super::replicas::Outcome::Scheduled(_)) => None,
        Some(super::replicas::Outcome::Failed(f)) if f.unschedulable => {
            Some(ScheduleError::Unschedulable(f.message.clone()))
        }
        Some(super::replicas::Outcome::Failed(f)) => {
            Some(ScheduleError::Scheduler(f.message.clone()))
        }
        _ => error,
    };
    Attempt {
        term,
        feasible,
        excluded,
        error,
        picks,
        assignment,
    }
}

/// Whether the clusters' names alone decide where `placement` puts a template, so that
/// without Cluster objects it can be evaluated over the clusters it names (as existing, untainted
/// clusters): it selects by `clusterNames` only; no spread constraint chooses among them, which
/// the scheduler does by score and available replicas (`SelectBestClusters`,
/// pkg/scheduler/core/spreadconstraint); and, where the template has replicas to divide
/// (`divides`, [`super::delivery::divides_replicas`]), they are not divided by the clusters'
/// capacity (dynamic weights, Aggregated) or by weights that pick clusters by labels. Or the
/// selection fails whatever the clusters are.
pub fn decided_by_names(placement: &Placement, divides: bool) -> bool {
    let division_by_names = || match Strategy::of(placement) {
        Strategy::Duplicated => true,
        Strategy::StaticWeight => placement
            .replica_scheduling
            .as_ref()
            .and_then(|r| r.weight_preference.as_ref())
            .is_none_or(|w| {
                w.static_weight_list
                    .iter()
                    .all(|e| e.target_cluster.selectable_names().is_some())
            }),
        Strategy::DynamicWeight | Strategy::Aggregated | Strategy::Unsupported { .. } => false,
    };
    // No spread constraint by region or cluster: the selection fails whatever the clusters
    // (`failed to select clusters: just support cluster and region spread constraint`), or
    // no named cluster passes the filters; either way the names decide it.
    let selection_fails = || SpreadSelection::of(placement) == SpreadSelection::Unsupported;
    placement.targets_only_named_clusters()
        && (selection_fails()
            || ((spread_decides_nothing(placement) || spread_keeps_every_name(placement))
                && (!divides || division_by_names())))
}

/// Whether the spread constraints keep every cluster a single affinity names, whichever they
/// are: each spreads by cluster and allows as many groups as there are names, at least as
/// many as it asks for, so the selection takes them all (`selectBestClustersByCluster`,
/// spreadconstraint/select_clusters_by_cluster.go: the first `min(maxGroups, n)` clusters).
fn spread_keeps_every_name(placement: &Placement) -> bool {
    let single = placement
        .cluster_affinity
        .as_ref()
        .is_some_and(|a| a.exclude.is_empty() && placement.cluster_affinities.is_none());
    if !single {
        return false;
    }
    let n = placement.named_clusters().len() as i64;
    n > 0
        && placement.spread_constraints.iter().all(|c| {
            spread_field(c) == "cluster"
                && c.max_groups.is_some_and(|max| max >= n)
                && c.min_groups.unwrap_or(1) <= n
        })
}

/// Whether every cluster a placement selects receives the template, whichever clusters they
/// are: what a placement that selects by labels, or every cluster, gives where the inputs have
/// no Cluster objects to evaluate it against. Not where the scheduler picks among them: a
/// workload's replicas divided (Aggregated fills as few clusters as their capacity allows, a
/// weight list leaves a cluster it gives no replica out: `assignment.go`
/// `assignByDynamicStrategy`, `assignByStaticWeightStrategy`), a spread constraint that
/// bounds the groups, or cluster affinity terms tried in turn (the first that fits wins).
/// `divides`: the template is a workload with replicas to divide.
pub fn every_selected_cluster_receives(placement: &Placement, divides: bool) -> bool {
    spread_decides_nothing(placement)
        && (!divides || Strategy::of(placement) == Strategy::Duplicated)
        && placement
            .cluster_affinities
            .as_ref()
            .is_none_or(|terms| terms.len() <= 1)
}

/// Whether the spread constraints leave the clusters to the names: there are none, or none is
/// a provider, region or zone one, which the filter reads whatever the division
/// (plugins/spreadconstraint/spread_constraint.go:55-63), and either a static-weighted
/// division ignores them (`shouldIgnoreSpreadConstraint`, select_clusters.go:57-69) or,
/// spreading by label alone, the selection fails whatever the clusters (`just support cluster
/// and region spread constraint`, :41-55).
fn spread_decides_nothing(placement: &Placement) -> bool {
    use super::replicas::select::{SpreadSelection, StrategyView};
    let constraints = &placement.spread_constraints;
    let unfiltered = || {
        constraints
            .iter()
            .all(|c| !matches!(spread_field(c), "provider" | "region" | "zone"))
    };
    constraints.is_empty()
        || ((StrategyView::of(placement).ignores_spread
            || SpreadSelection::of(placement) == SpreadSelection::Unsupported)
            && unfiltered())
}

/// A placement that cannot be evaluated for want of Cluster objects (files seldom hold them:
/// clusters are registered with `karmadactl join`): the clusters it names (maybe none), for a
/// report to say so. `None` when there are clusters, or when the placement is the empty one
/// and so says nothing to evaluate.
pub fn unevaluated(placement: &Placement, clusters: &[Cluster]) -> Option<Unevaluated> {
    (clusters.is_empty() && *placement != Placement::default()).then(|| Unevaluated {
        named: placement
            .named_clusters()
            .into_iter()
            .map(str::to_string)
            .collect(),
        known_by_name: Vec::new(),
    })
}

/// A placement not evaluated for want of Cluster objects ([`unevaluated`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unevaluated {
    /// The clusters the placement names (maybe none).
    pub named: Vec<String>,
    /// The clusters known by their names only (the configuration's `knownClusters`): the
    /// fleet is known, but not the labels, fields, taints or capacity this placement selects
    /// or divides by ([`decided_by_names`] is false for it).
    pub known_by_name: Vec<String>,
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
