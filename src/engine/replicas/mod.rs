//! How many replicas each member cluster receives: the scheduler's steps after the filter
//! (replica-assignment.md; `pkg/scheduler/core/generic_scheduler.go` Schedule →
//! `SelectClusters` → `AssignReplicas`), over the clusters the filter stage kept.
//!
//! Pure: the caller gives the feasible clusters (the filter stage, `placement`), the placement,
//! the clusterAffinities term being tried, and the template's replica fields (`workload`). The
//! answer is the binding's `spec.clusters` after the schedule, an error worded as the scheduler
//! words it (which moves a clusterAffinities schedule to its next term), or "unknown" with the
//! inputs that are missing (a Cluster declared without `status.resourceSummary` where capacity
//! decides).

pub mod divide;
pub mod estimator;
pub mod quantity;
pub mod select;
pub mod workload;

#[cfg(test)]
mod tests;

use crate::engine::cluster_match::cluster_matches;
use crate::model::cluster::Cluster;
use crate::model::policy::{ClusterAffinityTerm, Placement};

pub use divide::{Target, TieBreak};
pub use estimator::{Basis, CapacityError};
pub use workload::{Requirements, Workload};

use divide::{Apportion, Dynamic};
use select::{Candidate, StrategyView};

/// The division the placement asks for (`newAssignState`, assignment.go).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    Duplicated,
    StaticWeight,
    DynamicWeight,
    Aggregated,
    /// A type/preference pair the scheduler has no division for.
    Unsupported {
        ty: String,
        preference: String,
    },
}

impl Strategy {
    /// The strategy's name in the scheduler (`assignment.go` strategy constants).
    pub fn as_str(&self) -> &'static str {
        match self {
            Strategy::Duplicated => "Duplicated",
            Strategy::StaticWeight => "StaticWeight",
            Strategy::DynamicWeight => "DynamicWeight",
            Strategy::Aggregated => "Aggregated",
            Strategy::Unsupported { .. } => "Unsupported",
        }
    }

    /// No `replicaScheduling` is Duplicated (`ReplicaSchedulingType()`); an absent type is the
    /// CRD default Divided, an absent or empty preference the webhook's Weighted
    /// (`SetReplicaDivisionPreferenceWeighted`); a `weightPreference.dynamicWeight` makes
    /// weights dynamic and the static list is ignored.
    pub fn of(placement: &Placement) -> Strategy {
        let Some(rs) = &placement.replica_scheduling else {
            return Strategy::Duplicated;
        };
        let ty = rs.replica_scheduling_type.as_deref().unwrap_or("Divided");
        let preference = rs
            .replica_division_preference
            .as_deref()
            .filter(|p| !p.is_empty())
            .unwrap_or("Weighted");
        match (ty, preference) {
            ("Duplicated", _) => Strategy::Duplicated,
            ("Divided", "Aggregated") => Strategy::Aggregated,
            ("Divided", "Weighted") => {
                let dynamic = rs
                    .weight_preference
                    .as_ref()
                    .is_some_and(|w| !w.dynamic_weight.as_deref().unwrap_or("").is_empty());
                if dynamic {
                    Strategy::DynamicWeight
                } else {
                    Strategy::StaticWeight
                }
            }
            _ => Strategy::Unsupported {
                ty: ty.to_string(),
                preference: preference.to_string(),
            },
        }
    }
}

/// Where the Cluster objects come from, which decides what a missing
/// `status.resourceSummary` means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapacitySource {
    /// Read from the control plane: a missing summary is what the scheduler sees (0 replicas).
    Live,
    /// Declared in files, usually without status: a missing summary is a missing input (and
    /// the templates are as written, without the API server's defaults).
    Declared,
}

/// What the assignment reads besides the placement and the clusters.
#[derive(Clone, Copy, Debug)]
pub struct ReplicaView<'a> {
    pub workload: &'a Workload,
    pub capacity: CapacitySource,
    /// What of karmada-scheduler's release and gates the schedule depends on.
    pub traits: SchedulerTraits,
    /// The binding's `spec.clusters`; empty for a fresh schedule.
    pub previous: &'a [Target],
}

/// What of karmada-scheduler's release and gates a schedule depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchedulerTraits {
    /// The `CustomizedClusterResourceModeling` gate (on by default).
    pub resource_modeling: bool,
    /// Weights are apportioned by Webster's method, from v1.16.0 (commits 85c322d17 and
    /// d698ee591, `Dispenser.AllocateByWeight`); before, by `Dispenser.TakeByWeight`
    /// ([`divide::Apportion::Floor`]).
    pub webster: bool,
}

impl Default for SchedulerTraits {
    fn default() -> SchedulerTraits {
        SchedulerTraits {
            resource_modeling: true,
            webster: true,
        }
    }
}

/// Why a cluster gets its share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Duplicated: every selected cluster gets all the replicas.
    Duplicated,
    /// Static weights: `weight` of `total` (the weights of the clusters that divide).
    StaticWeight { weight: i64, total: i64 },
    /// Dynamic weights by available replicas.
    Dynamic { available: i32 },
    /// Aggregated: the fewest clusters, by available replicas.
    Aggregated { available: i32 },
    /// A template without replicas: listed with none.
    NoReplicas,
}

/// One entry of the binding's `spec.clusters` with its reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Share {
    pub cluster: String,
    pub replicas: i32,
    pub why: Why,
}

/// Something the answer depends on beyond the inputs, or a caveat of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssignmentNote {
    /// Ties are broken by the template's uid (not known for a manifest not created yet): with
    /// the other parity the shares are `other`.
    UidTieBreak { other: Vec<Target> },
    /// Capacity decides; karmada-scheduler with `--enable-scheduler-estimator` also asks the
    /// per-node estimator service and takes the smaller answer.
    EstimatorService,
    /// Aggregated over more than 12 clusters with a tie at the cut: Go's unstable sort may keep
    /// another of the tied clusters.
    UnstableSortTie,
    /// Before v1.16 a replica left after the floors went to one of several clusters equal in
    /// weight and last replicas, ordered at random: another of them may get it.
    RandomWeightTie,
    /// The kind has no replica interpreter in Karmada's default interpreter: listed without
    /// replicas unless a resource interpreter customization says otherwise.
    KindWithoutReplicas,
}

/// A schedule that succeeds: `spec.clusters` and how it came about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    pub strategy: Strategy,
    pub shares: Vec<Share>,
    pub notes: Vec<AssignmentNote>,
}

impl Scheduled {
    pub fn targets(&self) -> Vec<Target> {
        self.shares
            .iter()
            .map(|s| Target::new(&s.cluster, s.replicas))
            .collect()
    }
}

/// A schedule that fails, with the scheduler's condition reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    /// `framework.UnschedulableError` (not enough available replicas): condition reason
    /// `Unschedulable`; otherwise `SchedulerError`.
    pub unschedulable: bool,
    /// `Schedule`'s error text (`failed to select clusters: ...`, `failed to assign replicas: ...`).
    pub message: String,
    pub notes: Vec<AssignmentNote>,
}

/// The outcome of the steps after the filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Scheduled(Scheduled),
    Failed(Failed),
    /// Capacity decides and these Clusters declare none (`status.resourceSummary`).
    Unknown {
        missing: Vec<String>,
    },
    /// A quantity of a Cluster does not parse.
    Invalid(CapacityError),
}

/// `SelectClusters` then `AssignReplicas` for one attempt: `feasible` in the snapshot's order,
/// `term` the clusterAffinities term tried (its overflow affinities order the candidates).
pub fn schedule(
    feasible: &[&Cluster],
    placement: &Placement,
    term: Option<&ClusterAffinityTerm>,
    view: &ReplicaView<'_>,
) -> Outcome {
    let strategy = Strategy::of(placement);
    let w = view.workload;
    let mut notes = Vec::new();
    let estimates = match estimates(feasible, view) {
        Ok(e) => e,
        Err(e) => return Outcome::Invalid(e),
    };
    let overflow = overflow_term(placement, term);
    let mut candidates: Vec<Candidate<'_>> = feasible
        .iter()
        .zip(&estimates)
        .map(|(c, (est, _))| candidate(c, *est, placement, term, view.previous))
        .collect();
    select::sort_candidates(&mut candidates);
    if w.replicas > 0 && needs_capacity(placement, &strategy, overflow.is_some(), candidates.len())
    {
        if view.capacity == CapacitySource::Declared {
            let missing: Vec<String> = feasible
                .iter()
                .zip(&estimates)
                .filter(|(_, (_, b))| *b == Basis::NoSummary)
                .map(|(c, _)| c.name.clone())
                .collect();
            if !missing.is_empty() {
                return Outcome::Unknown { missing };
            }
        }
        notes.push(AssignmentNote::EstimatorService);
    }
    if !w.interpreted {
        notes.push(AssignmentNote::KindWithoutReplicas);
    }
    let selected = match select::select_best(
        placement,
        StrategyView::of(placement),
        candidates,
        w.replicas,
    ) {
        Ok(s) => s,
        Err(e) => {
            return Outcome::Failed(Failed {
                unschedulable: false,
                message: format!("failed to select clusters: {e}"),
                notes,
            })
        }
    };
    let tie = TieBreak::of_uid(w.uid.as_deref());
    let how = match view.traits.webster {
        true => Apportion::Webster(tie),
        false => Apportion::Floor,
    };
    let first = assign(
        &selected,
        placement,
        &strategy,
        w,
        view.previous,
        overflow,
        how,
    );
    // Webster's ties follow the template's uid, which a manifest not yet created lacks.
    if w.uid.is_none() && view.traits.webster {
        let other = match tie {
            TieBreak::Ascending => TieBreak::Descending,
            TieBreak::Descending => TieBreak::Ascending,
        };
        let second = assign(
            &selected,
            placement,
            &strategy,
            w,
            view.previous,
            overflow,
            Apportion::Webster(other),
        );
        if let (Ok(a), Ok(b)) = (&first, &second) {
            if a.shares != b.shares {
                notes.push(AssignmentNote::UidTieBreak {
                    other: b
                        .shares
                        .iter()
                        .map(|s| Target::new(&s.cluster, s.replicas))
                        .collect(),
                });
            }
        }
    }
    match first {
        Ok(mut s) => {
            s.notes.splice(0..0, notes);
            Outcome::Scheduled(s)
        }
        Err(mut f) => {
            f.notes.splice(0..0, notes);
            Outcome::Failed(f)
        }
    }
}

/// Each feasible cluster's estimate. A template without replicas is not estimated
/// (`calAvailableReplicas`: every cluster gets MaxInt32).
fn estimates(
    feasible: &[&Cluster],
    view: &ReplicaView<'_>,
) -> Result<Vec<(i32, Basis)>, CapacityError> {
    feasible
        .iter()
        .map(|c| {
            if view.workload.replicas == 0 {
                return Ok((i32::MAX, Basis::Pods));
            }
            let e = estimator::estimate(
                c,
                view.workload.requirements.as_ref(),
                view.traits.resource_modeling,
            )?;
            Ok((e.replicas, e.basis))
        })
        .collect()
}

fn candidate<'c>(
    c: &'c Cluster,
    estimate: i32,
    placement: &Placement,
    term: Option<&ClusterAffinityTerm>,
    previous: &[Target],
) -> Candidate<'c> {
    let assigned = previous
        .iter()
        .find(|t| t.cluster == c.name)
        .map_or(0, |t| t.replicas);
    Candidate {
        cluster: c,
        score: if previous.iter().any(|t| t.cluster == c.name) {
            100
        } else {
            0
        },
        overflow_order: overflow_order(c, placement, term),
        available: i64::from(estimate) + i64::from(assigned),
        allocatable: estimate,
    }
}

/// `getClusterOverflowOrder` (group_clusters.go): 0 for the term's affinity, i + 1 for its
/// i-th overflow affinity, 1000 otherwise; 0 without clusterAffinities.
fn overflow_order(c: &Cluster, placement: &Placement, term: Option<&ClusterAffinityTerm>) -> i32 {
    let Some(term) = term.filter(|_| placement.cluster_affinity.is_none()) else {
        return 0;
    };
    if cluster_matches(c, &term.affinity) {
        return 0;
    }
    term.overflow_affinities
        .iter()
        .flatten()
        .position(|o| cluster_matches(c, &o.affinity))
        .map_or(1000, |i| i as i32 + 1)
}

/// `enableOverflow` (common.go): the term being tried has `overflowAffinities` (even empty).
fn overflow_term<'t>(
    placement: &Placement,
    term: Option<&'t ClusterAffinityTerm>,
) -> Option<&'t ClusterAffinityTerm> {
    term.filter(|t| placement.cluster_affinity.is_none() && t.overflow_affinities.is_some())
}

/// Whether available replicas can change the outcome: dynamic weights, Aggregated, overflow
/// tiers, and spread selection that picks by capacity (region groups, a cluster constraint
/// that divides or keeps fewer clusters than there are).
fn needs_capacity(placement: &Placement, strategy: &Strategy, overflow: bool, n: usize) -> bool {
    if matches!(strategy, Strategy::DynamicWeight | Strategy::Aggregated) || overflow {
        return true;
    }
    let view = StrategyView::of(placement);
    if placement.spread_constraints.is_empty() || view.ignores_spread {
        return false;
    }
    let sc = &placement.spread_constraints;
    if sc.iter().any(|c| c.spread_by_field == "region") {
        return true;
    }
    match sc.iter().rev().find(|c| c.spread_by_field == "cluster") {
        Some(c) => {
            let keep = n.min(c.max_groups.unwrap_or(0).max(0) as usize);
            let fails = keep == 0 || n < c.min_groups.unwrap_or(0).max(0) as usize;
            !fails && (!view.ignores_resources || keep < n)
        }
        None => false,
    }
}

/// `AssignReplicas` (common.go) over the selected clusters.
fn assign(
    selected: &[Candidate<'_>],
    placement: &Placement,
    strategy: &Strategy,
    w: &Workload,
    previous: &[Target],
    overflow: Option<&ClusterAffinityTerm>,
    how: Apportion,
) -> Result<Scheduled, Failed> {
    let failed = |unschedulable, message: String| Failed {
        unschedulable,
        message: format!("failed to assign replicas: {message}"),
        notes: Vec::new(),
    };
    if selected.is_empty() {
        return Err(failed(false, "no clusters available to schedule".into()));
    }
    if !w.divides() {
        return Ok(Scheduled {
            strategy: strategy.clone(),
            shares: selected
                .iter()
                .map(|c| Share {
                    cluster: c.name().to_string(),
                    replicas: 0,
                    why: Why::NoReplicas,
                })
                .collect(),
            notes: Vec::new(),
        });
    }
    let mut notes = Vec::new();
    let shares = if overflow.is_some() {
        by_tiers(selected, placement, strategy, w, previous, how, &mut notes)
    } else {
        to_clusters(
            selected, placement, strategy, w.replicas, previous, how, &mut notes,
        )
    }
    .map_err(|(unschedulable, m)| failed(unschedulable, m))?;
    Ok(Scheduled {
        strategy: strategy.clone(),
        shares,
        notes,
    })
}

type Division = Result<Vec<Share>, (bool, String)>;

/// `assignWorkloadReplicas` with overflow: tier by tier (overflow order), each tier given
/// `min(remaining, its available replicas)`.
fn by_tiers(
    selected: &[Candidate<'_>],
    placement: &Placement,
    strategy: &Strategy,
    w: &Workload,
    previous: &[Target],
    how: Apportion,
    notes: &mut Vec<AssignmentNote>,
) -> Division {
    let mut orders: Vec<i32> = selected.iter().map(|c| c.overflow_order).collect();
    orders.sort_unstable();
    orders.dedup();
    let mut remaining = i64::from(w.replicas);
    let mut out = Vec::new();
    for order in orders {
        let tier: Vec<Candidate<'_>> = selected
            .iter()
            .filter(|c| c.overflow_order == order)
            .cloned()
            .collect();
        let available: i64 = tier.iter().map(|c| c.available).sum();
        let replicas = remaining.min(available).max(0) as i32;
        out.extend(to_clusters(
            &tier, placement, strategy, replicas, previous, how, notes,
        )?);
        remaining -= i64::from(replicas);
        if remaining <= 0 {
            break;
        }
    }
    if remaining > 0 {
        return Err((
            true,
            "Clusters available replicas are not enough to schedule.".into(),
        ));
    }
    Ok(out)
}

/// Adds `note` when `holds`, once: tiers of an overflow placement divide one after another.
fn note_once(notes: &mut Vec<AssignmentNote>, holds: bool, note: AssignmentNote) {
    if holds && !notes.contains(&note) {
        notes.push(note);
    }
}

/// `assignReplicasToClusters`: the strategy's division, zero shares dropped.
#[allow(clippy::too_many_arguments)]
fn to_clusters(
    selected: &[Candidate<'_>],
    placement: &Placement,
    strategy: &Strategy,
    replicas: i32,
    previous: &[Target],
    how: Apportion,
    notes: &mut Vec<AssignmentNote>,
) -> Division {
    let shares: Vec<Share> = match strategy {
        Strategy::Duplicated => selected
            .iter()
            .map(|c| Share {
                cluster: c.name().to_string(),
                replicas,
                why: Why::Duplicated,
            })
            .collect(),
        Strategy::StaticWeight => {
            let clusters: Vec<&Cluster> = selected.iter().map(|c| c.cluster).collect();
            let list = placement
                .replica_scheduling
                .as_ref()
                .and_then(|r| r.weight_preference.as_ref())
                .map(|w| w.static_weight_list.as_slice());
            let weights = divide::static_weights(&clusters, list);
            let total: i64 = weights.iter().map(|(_, w)| *w).sum();
            let by_name: std::collections::HashMap<&str, i64> =
                weights.iter().map(|(n, w)| (n.as_str(), *w)).collect();
            let divided = divide::by_static_weights(replicas, &weights, previous, how);
            note_once(notes, divided.random_tie, AssignmentNote::RandomWeightTie);
            divided
                .targets
                .into_iter()
                .map(|t| {
                    let weight = by_name.get(t.cluster.as_str()).copied().unwrap_or(0);
                    Share {
                        why: Why::StaticWeight { weight, total },
                        cluster: t.cluster,
                        replicas: t.replicas,
                    }
                })
                .collect()
        }
        Strategy::DynamicWeight | Strategy::Aggregated => {
            let kind = if *strategy == Strategy::Aggregated {
                Dynamic::Aggregated
            } else {
                Dynamic::Weighted
            };
            let available: Vec<Target> = selected
                .iter()
                .map(|c| Target::new(c.name(), c.allocatable))
                .collect();
            let (targets, trace) = divide::dynamic(kind, replicas, &available, previous, how)
                .map_err(|e| (true, format!("failed to scale up: {}", e.message())))?;
            note_once(notes, trace.random_tie, AssignmentNote::RandomWeightTie);
            note_once(notes, trace.order_dependent, AssignmentNote::UnstableSortTie);
            let by_name: std::collections::HashMap<&str, i32> = available
                .iter()
                .map(|a| (a.cluster.as_str(), a.replicas))
                .collect();
            targets
                .into_iter()
                .map(|t| {
                    let available = by_name.get(t.cluster.as_str()).copied().unwrap_or(0);
                    Share {
                        why: if kind == Dynamic::Aggregated {
                            Why::Aggregated { available }
                        } else {
                            Why::Dynamic { available }
                        },
                        cluster: t.cluster,
                        replicas: t.replicas,
                    }
                })
                .collect()
        }
        Strategy::Unsupported { ty, preference } => {
            return Err((
                false,
                format!("unsupported replica scheduling strategy, replicaSchedulingType: {ty}, replicaDivisionPreference: {preference}, please try another scheduling strategy"),
            ))
        }
    };
    Ok(shares.into_iter().filter(|s| s.replicas > 0).collect())
}

/// The hook the filter stage calls for each attempt (`placement::attempt`): `None` without
/// replica fields, without feasible clusters, or when the filters or the spread selection
/// failed already (`failed_before`); otherwise the steps after the filter, whose failure decides the attempt (a
/// capacity failure moves a clusterAffinities schedule to its next term,
/// `scheduleResourceBindingWithClusterAffinities`).
pub fn after_filter(
    feasible: &[&Cluster],
    placement: &Placement,
    term: Option<&str>,
    view: Option<&ReplicaView<'_>>,
    failed_before: bool,
) -> Option<Outcome> {
    let view = view?;
    if feasible.is_empty() || failed_before {
        return None;
    }
    let term = term.and_then(|name| {
        placement
            .cluster_affinities
            .iter()
            .flatten()
            .find(|t| t.affinity_name == name)
    });
    Some(schedule(feasible, placement, term, view))
}
