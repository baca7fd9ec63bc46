//! The decision for one template: its owner now, after its next reconcile, and eventually
//! (restart model, §7), every candidate with its rank and why it wins or loses, per-cluster
//! suspension of the eventual owner, and notes. Reasons are enums; renderers word them.

use std::cmp::Ordering;

use crate::model::feature_gates::GateSet;
use crate::model::{ObjectRef, PolicyKind, PolicyRef};

use super::claim::Excluded;
use super::dependencies::RequiredBy;
use super::rank::{self, Decider};
use super::reconcile::{
    settle, template_reconcile, ClaimCheck, IdleReason, PreemptOutcome, Settled,
};
use super::selector::ImplicitPriority;
use super::simulate::{why_not, BlockReason};
use super::state::State;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnerHow {
    /// The claim in the metadata is kept (§0 steps 1-2).
    KeptClaim,
    /// The best fresh match (§2.3, §3).
    FreshMatch,
    /// Took the template from the holder (§5.3); `theirs` is `None` for PP over CPP (no comparison).
    Preempted {
        from: PolicyRef,
        ours: i32,
        theirs: Option<i32>,
    },
}

/// Why a candidate wins or loses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    Owner(OwnerHow),
    /// Held the claim and lost it to a preemptor.
    PreemptedBy {
        by: PolicyRef,
        ours: i32,
        theirs: i32,
    },
    /// Being deleted: never newly matched (`detector.go:401-407`).
    Terminating,
    /// The detector never processes the template (§1.4).
    TemplateExcluded(Excluded),
    /// Loses the fresh ranking against `by`, on the field `decider`.
    Outranked {
        by: PolicyRef,
        decider: Decider,
        ours: (i32, ImplicitPriority),
        theirs: (i32, ImplicitPriority),
    },
    /// Wins the fresh match but its dependentOverrides are missing (§6.5).
    WaitsForOverrides(Vec<String>),
    /// Ties with the winning preemptor at the top priority: whichever runs first wins (§5.6).
    OrderDependent {
        winner: PolicyRef,
        priority: i32,
    },
    /// Would win a fresh match (or at least could take it), but `holder` keeps the claim.
    ClaimKept {
        holder: PolicyRef,
        would_win_fresh: bool,
        blocker: BlockReason,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub policy: PolicyRef,
    pub priority: i32,
    pub implicit: ImplicitPriority,
    pub rank: usize,
    pub selected: bool,
    pub why: Why,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuspendedBy {
    Dispatching,
    DispatchingOnClusters,
}

impl SuspendedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            SuspendedBy::Dispatching => "dispatching",
            SuspendedBy::DispatchingOnClusters => "dispatchingOnClusters",
        }
    }
}

/// Dispatch to one cluster (`shouldSuspendDispatching`, binding/common.go:363-376).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterSuspension {
    /// A cluster name, or `*` for "every cluster" when no cluster is known.
    pub cluster: String,
    pub suspended: bool,
    pub by: Option<SuspendedBy>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// Preemptors name this template but the gate is off (§5.1).
    GateOff {
        preemptors: Vec<PolicyRef>,
        /// Why the gate is off: set so, or the release's default ([`GateSet::why_off`]).
        ///
        /// [`GateSet::why_off`]: crate::model::feature_gates::GateSet::why_off
        why: String,
    },
    /// A preemptor's handler stops before preempting (§6.5).
    OverridesBlockPreemption {
        policy: PolicyRef,
        missing: Vec<String>,
    },
    /// Several preemptors tie at the top priority: order-dependent (§5.6).
    AmbiguousPreemptors {
        tied: Vec<PolicyRef>,
        priority: i32,
    },
    /// The new owner is Lazy: the binding follows only on the next template change (§6.4).
    LazyActivation {
        policy: PolicyRef,
    },
    /// The fresh winner waits for dependentOverrides; no CPP fallback (§6.5).
    WaitingForOverrides {
        policy: PolicyRef,
        missing: Vec<String>,
    },
    Excluded(Excluded),
    /// The claim names a policy missing from the inputs: dropped as stale (§4.2).
    StaleClaim {
        claimer: PolicyRef,
    },
    ClaimerTerminating {
        claimer: PolicyRef,
        released: bool,
    },
    /// The claimer's selectors no longer match; the template reconcile keeps the claim, the
    /// policy's own update handler releases it when its binding carries it (§4.2, §6.2).
    NoLongerMatches {
        claimer: PolicyRef,
        released: bool,
    },
    /// The claim's permanent-id differs from the policy's: re-stamped (§4.3).
    Restamped {
        claimer: PolicyRef,
    },
    /// The claimer is only known from the claim.
    UnknownClaimer {
        claimer: PolicyRef,
    },
    /// Some claim keys without a complete claim: unclaimed (§4.2).
    PartialClaim,
    /// Both a PP and a CPP claim: the PP claim counts, the CPP keys are stripped (§3).
    BothClaims,
    /// No policy matches: the template waits (§6.3).
    NoCandidates,
    /// A Namespace karmada-controller-manager's namespace controller copies to every member
    /// cluster whatever policy claims it ([`super::namespace_sync`]).
    NamespaceSynced,
    /// The owner's `schedulerName` is served by no karmada-scheduler of the control plane: its
    /// binding is never scheduled (`schedulerNameFilter`, pkg/scheduler/event_handler.go:380-386).
    SchedulerNotServed {
        policy: PolicyRef,
        name: String,
    },
    /// A policy that admission rejects would match: it never exists in Karmada.
    Rejected {
        policy: PolicyRef,
        errors: Vec<String>,
        /// A later copy of a stored policy, refused as an update of it: the stored copy stays.
        update: bool,
        /// How many documents of the policy are refused alike.
        copies: usize,
    },
    /// An override policy that admission rejects selects the template: it is never stored,
    /// so it overrides nothing (`OverridePolicy demo/web-image`).
    OverrideRejected {
        policy: String,
        error: String,
    },
    /// A policy's selector is aimed at the template (its kind and group, namespace and name)
    /// but never matches (an invalid labelSelector, a version the detector does not watch).
    SelectorNeverMatches {
        policy: PolicyRef,
        reason: String,
    },
    /// A preemptor cannot fetch the holder named by the claim: it retries (§5.6).
    HolderMissing {
        preemptor: PolicyRef,
        holder: PolicyRef,
    },
    /// The template is being deleted: preemption skips it (§5.2).
    TemplateTerminating,
}

#[derive(Clone, Debug)]
pub struct Explanation {
    pub template: usize,
    pub resource: ObjectRef,
    pub current: Option<PolicyRef>,
    pub after_reconcile: Option<PolicyRef>,
    pub eventual: Option<PolicyRef>,
    pub preempted: bool,
    pub candidates: Vec<Candidate>,
    pub suspension: Vec<ClusterSuspension>,
    pub notes: Vec<Note>,
    /// The workloads whose `propagateDeps` carry the template to their clusters
    /// ([`Explanation::with_required_by`]): the caller reads them, as they need the
    /// workloads' objects.
    pub required_by: Vec<RequiredBy>,
    /// The release, gates and controller-manager flags the answer assumes (the state's).
    pub assumed: GateSet,
}

impl Explanation {
    /// This explanation with the workloads that carry the template along as a dependency: a
    /// template no policy matches does not wait then, it is propagated with them.
    pub fn with_required_by(mut self, required_by: Vec<RequiredBy>) -> Explanation {
        if !required_by.is_empty() {
            self.notes.retain(|n| !matches!(n, Note::NoCandidates));
        }
        self.required_by = required_by;
        self
    }
}

/// Explains template `t` of the state.
pub fn explain(state: &State, t: usize) -> Explanation {
    let tpl = &state.templates[t];
    let current = tpl.claim().owner();
    let mut after = tpl.claim().clone();
    template_reconcile(state, t, &mut after);
    let after_reconcile = after.owner();
    let s = settle(state, t);
    let eventual = s.owner.clone();
    let mut notes = Vec::new();

    // Candidates: every matching policy, ranked as the fresh match ranks them; terminating
    // ones last (they are not candidates for Karmada).
    let mut matching = state.matching_policies(t);
    matching.sort_by(|a, b| {
        let (pa, pb) = (state.policy(a.0), state.policy(b.0));
        pa.terminating
            .cmp(&pb.terminating)
            .then_with(|| rank::compare(&pb.rank_key(b.1), &pa.rank_key(a.1)).0)
    });
    let owner_entry = eventual
        .as_ref()
        .and_then(|o| state.find_policy(o))
        .map(|i| (i, state.policy(i)));
    let owner_implicit = owner_entry.map(|(_, p)| p.match_priority(&tpl.target()));
    let claimed = |x: usize| {
        if x == t {
            s.claim.owner().is_some()
        } else {
            state.templates[x].claim().owner().is_some()
        }
    };
    let candidates: Vec<Candidate> = matching
        .iter()
        .enumerate()
        .map(|(i, &(p, implicit))| {
            let pol = state.policy(p);
            let r = pol.reference();
            let selected = eventual.as_ref() == Some(&r);
            let why = candidate_why(
                state,
                t,
                &s,
                p,
                implicit,
                owner_entry.map(|(i, _)| i),
                owner_implicit,
                &claimed,
            );
            Candidate {
                policy: r,
                priority: pol.priority(),
                implicit,
                rank: i + 1,
                selected,
                why,
            }
        })
        .collect();

    // Notes.
    if let Some(e) = &tpl.excluded {
        notes.push(Note::Excluded((**e).clone()));
    }
    if tpl.claim().is_partial() {
        notes.push(Note::PartialClaim);
    }
    if tpl.claim().has_both() {
        notes.push(Note::BothClaims);
    }
    match &s.claim_check {
        ClaimCheck::Stale(c) => notes.push(Note::StaleClaim { claimer: c.clone() }),
        ClaimCheck::ClaimerTerminating { claimer, released } => {
            notes.push(Note::ClaimerTerminating {
                claimer: claimer.clone(),
                released: *released,
            })
        }
        ClaimCheck::NoLongerMatches { claimer, released } => notes.push(Note::NoLongerMatches {
            claimer: claimer.clone(),
            released: *released,
        }),
        ClaimCheck::Restamped => {
            if let Some(c) = &current {
                notes.push(Note::Restamped { claimer: c.clone() });
            }
        }
        ClaimCheck::Unknown(c) => notes.push(Note::UnknownClaimer { claimer: c.clone() }),
        ClaimCheck::None | ClaimCheck::Valid => {}
    }
    if let Some(m) = &s.fresh {
        if let Some((w, missing)) = &m.waiting_for_overrides {
            notes.push(Note::WaitingForOverrides {
                policy: state.policy(*w).reference(),
                missing: missing.clone(),
            });
        }
    }
    let gate_off: Vec<PolicyRef> = s
        .idle_preemptors
        .iter()
        .filter(|(_, r)| *r == IdleReason::GateOff)
        .map(|(p, _)| state.policy(*p).reference())
        .collect();
    if !gate_off.is_empty() {
        notes.push(Note::GateOff {
            preemptors: gate_off,
            why: state.options.gates.why_off("PropagationPolicyPreemption"),
        });
    }
    for (p, r) in &s.idle_preemptors {
        if let IdleReason::OverridesMissing(missing) = r {
            notes.push(Note::OverridesBlockPreemption {
                policy: state.policy(*p).reference(),
                missing: missing.clone(),
            });
        }
    }
    for step in &s.preemption {
        match &step.outcome {
            PreemptOutcome::HolderMissing(h) => notes.push(Note::HolderMissing {
                preemptor: state.policy(step.policy).reference(),
                holder: h.clone(),
            }),
            PreemptOutcome::TemplateTerminating if !notes.contains(&Note::TemplateTerminating) => {
                notes.push(Note::TemplateTerminating)
            }
            _ => {}
        }
    }
    if !s.ambiguous.is_empty() {
        notes.push(Note::AmbiguousPreemptors {
            tied: s
                .ambiguous
                .iter()
                .map(|&p| state.policy(p).reference())
                .collect(),
            priority: state.policy(s.ambiguous[0]).priority(),
        });
    }
    if let Some((_, owner)) = owner_entry {
        if eventual != current && owner.spec.lazy() {
            notes.push(Note::LazyActivation {
                policy: owner.reference(),
            });
        }
        if let Some(name) = state.unserved_scheduler(owner) {
            notes.push(Note::SchedulerNotServed {
                policy: owner.reference(),
                name: name.to_string(),
            });
        }
    }
    for r in state.rejected_matching(t) {
        let update = r.update_of.is_some();
        // Copies refused alike (variant directories reusing a policy's name) say so once.
        if let Some(Note::Rejected {
            policy,
            errors,
            update: same_update,
            copies,
        }) = notes.last_mut()
        {
            if *policy == r.policy && *errors == r.errors && *same_update == update {
                *copies += 1;
                continue;
            }
        }
        notes.push(Note::Rejected {
            policy: r.policy.clone(),
            errors: r.errors.clone(),
            update,
            copies: 1,
        });
    }
    let synced = super::namespace_sync::synced(state, tpl);
    if synced {
        notes.push(Note::NamespaceSynced);
    }
    // A Namespace no policy matches does not wait: the namespace controller has it everywhere.
    if candidates.is_empty() && tpl.excluded.is_none() && eventual.is_none() && !synced {
        notes.push(Note::NoCandidates);
        notes.extend(never_matching_selectors_aimed_at(state, t));
    }

    Explanation {
        template: t,
        resource: tpl.reference(),
        current,
        after_reconcile,
        eventual,
        preempted: s.preempted,
        candidates,
        suspension: suspension(state, t, owner_entry.map(|(i, _)| i)),
        notes,
        required_by: Vec::new(),
        assumed: state.options.gates.clone(),
    }
}

#[allow(clippy::too_many_arguments)]
fn candidate_why(
    state: &State,
    t: usize,
    s: &Settled,
    p: usize,
    implicit: ImplicitPriority,
    owner: Option<usize>,
    owner_implicit: Option<ImplicitPriority>,
    claimed: &dyn Fn(usize) -> bool,
) -> Why {
    let pol = state.policy(p);
    let r = pol.reference();
    let tpl = &state.templates[t];
    if s.owner.as_ref() == Some(&r) {
        let took_from = s
            .preemption
            .iter()
            .rev()
            .find_map(|step| match &step.outcome {
                PreemptOutcome::Took { from } if step.policy == p => Some(from.clone()),
                _ => None,
            });
        if let Some(from) = s
            .matched_owner
            .clone()
            .or(took_from)
            .filter(|_| s.preempted)
        {
            let theirs = match (from.kind, pol.kind) {
                (PolicyKind::ClusterPropagationPolicy, PolicyKind::PropagationPolicy) => None,
                _ => state.find_policy(&from).map(|h| state.policy(h).priority()),
            };
            return Why::Owner(OwnerHow::Preempted {
                from,
                ours: pol.priority(),
                theirs,
            });
        }
        let fresh = s.fresh.as_ref().is_some_and(|m| m.chosen == Some(p));
        return Why::Owner(if fresh {
            OwnerHow::FreshMatch
        } else {
            OwnerHow::KeptClaim
        });
    }
    if pol.terminating {
        return Why::Terminating;
    }
    if let Some(e) = &tpl.excluded {
        return Why::TemplateExcluded((**e).clone());
    }
    if let Some(by) = s
        .owner
        .clone()
        .filter(|_| s.preempted && s.matched_owner.as_ref() == Some(&r))
    {
        let theirs = state
            .find_policy(&by)
            .map_or(0, |b| state.policy(b).priority());
        return Why::PreemptedBy {
            by,
            ours: pol.priority(),
            theirs,
        };
    }
    if let Some(winner) = s
        .owner
        .clone()
        .filter(|_| s.preempted && s.ambiguous.contains(&p))
    {
        return Why::OrderDependent {
            winner,
            priority: pol.priority(),
        };
    }
    let ours_key = pol.rank_key(implicit);
    let Some(o) = owner else {
        // Unclaimed: the fresh winner waits for overrides, or the claim's holder is unknown.
        if let Some((w, missing)) = s
            .fresh
            .as_ref()
            .and_then(|m| m.waiting_for_overrides.clone())
        {
            if w == p {
                return Why::WaitsForOverrides(missing);
            }
            let wp = state.policy(w);
            let wi = wp.match_priority(&tpl.target());
            let (_, decider) = rank::compare(&ours_key, &wp.rank_key(wi));
            return Why::Outranked {
                by: wp.reference(),
                decider,
                ours: (pol.priority(), implicit),
                theirs: (wp.priority(), wi),
            };
        }
        let holder = s.owner.clone();
        return Why::ClaimKept {
            holder: holder.clone().unwrap_or_else(|| r.clone()),
            would_win_fresh: true,
            blocker: why_not(state, p, t, &holder, claimed),
        };
    };
    let op = state.policy(o);
    let oi = owner_implicit.unwrap_or(ImplicitPriority::MisMatch);
    if op.known && oi.matches() {
        let (ord, decider) = rank::compare(&ours_key, &op.rank_key(oi));
        if ord == Ordering::Less {
            return Why::Outranked {
                by: op.reference(),
                decider,
                ours: (pol.priority(), implicit),
                theirs: (op.priority(), oi),
            };
        }
    }
    Why::ClaimKept {
        holder: op.reference(),
        would_win_fresh: true,
        blocker: why_not(state, p, t, &s.owner, claimed),
    }
}

/// Per-cluster dispatch suspension of the owner's `spec.suspension` (the binding copies it,
/// validation-suspension-failover.md §2.2-§2.3), over the clusters known for the template:
/// the binding's targets, the placement's named clusters and the suspended names.
fn suspension(state: &State, t: usize, owner: Option<usize>) -> Vec<ClusterSuspension> {
    let Some(o) = owner else { return Vec::new() };
    let pol = state.policy(o);
    let mut clusters: Vec<String> = Vec::new();
    if let Some(b) = state.binding_of(t) {
        clusters.extend(b.clusters.iter().cloned());
    }
    if let Some(pl) = &pol.spec.placement {
        clusters.extend(pl.named_clusters().into_iter().map(str::to_string));
    }
    let susp = pol.spec.suspension.clone().unwrap_or_default();
    clusters.extend(susp.suspended_clusters().iter().cloned());
    clusters.sort();
    clusters.dedup();
    if clusters.is_empty() && susp.suspends_all() {
        clusters.push("*".into());
    }
    clusters
        .into_iter()
        .map(|c| {
            let by = if susp.suspends_all() {
                Some(SuspendedBy::Dispatching)
            } else if susp.suspended_clusters().contains(&c) {
                Some(SuspendedBy::DispatchingOnClusters)
            } else {
                None
            };
            ClusterSuspension {
                cluster: c,
                suspended: by.is_some(),
                by,
            }
        })
        .collect()
}

/// The dispatch rows once the placement is evaluated: every cluster it sends the template to
/// (a placement by label or by spread names none of them beforehand), suspended as the
/// policy's `suspension` says, and the suspended names it does not; a cluster it leaves
/// without the template (a division left it no replicas) is no "dispatching" target. Karmada
/// judges each target cluster of the binding (`shouldSuspendDispatching`,
/// pkg/controllers/binding/common.go).
pub fn dispatch_over(rows: Vec<ClusterSuspension>, receiving: &[String]) -> Vec<ClusterSuspension> {
    // Read before the `*` row goes.
    let all = suspends_all(&rows);
    let rows: Vec<ClusterSuspension> = rows
        .into_iter()
        .filter(|r| r.suspended || receiving.contains(&r.cluster))
        .filter(|r| r.cluster != "*" || receiving.is_empty())
        .collect();
    with_rows_for(rows, receiving, all)
}

/// The dispatch rows with a row for each of `clusters` they lack. The binding's Works go to
/// its own clusters and to those of the workloads that carry it along as a dependency
/// (`mergeTargetClusters(Clusters, RequiredBy)` in `ensureWork`,
/// pkg/controllers/binding/common.go), and each is suspended by the binding's own suspension,
/// the owner's (`shouldSuspendDispatching(bindingSpec.Suspension, targetCluster)`): not by the
/// carriers' (the dependencies distributor copies none, `buildAttachedBinding`). A cluster not
/// named by `dispatchingOnClusters` is suspended only where dispatching is.
pub fn dispatched_also_to(
    rows: Vec<ClusterSuspension>,
    clusters: &[String],
) -> Vec<ClusterSuspension> {
    let all = suspends_all(&rows);
    with_rows_for(rows, clusters, all)
}

/// Whether the rows are those of a suspension of all dispatching.
fn suspends_all(rows: &[ClusterSuspension]) -> bool {
    rows.iter().any(|r| r.by == Some(SuspendedBy::Dispatching))
}

/// `rows` with a row for each of `clusters` they lack, suspended when `all` is.
fn with_rows_for(
    mut rows: Vec<ClusterSuspension>,
    clusters: &[String],
    all: bool,
) -> Vec<ClusterSuspension> {
    for c in clusters {
        if !rows.iter().any(|r| r.cluster == *c) {
            rows.push(ClusterSuspension {
                cluster: c.clone(),
                suspended: all,
                by: all.then_some(SuspendedBy::Dispatching),
            });
        }
    }
    rows.sort_by(|a, b| a.cluster.cmp(&b.cluster));
    rows
}

/// The policies with a selector aimed at template `t` (same kind and API group; a namespace and
/// name that fit) that never matches it, and why: what a user looking at an unclaimed template
/// most likely meant to claim it (`pkg/util/selector.go` `ResourceSelectorPriority`).
fn never_matching_selectors_aimed_at(state: &State, t: usize) -> Vec<Note> {
    let tpl = &state.templates[t];
    let group = crate::model::group_of(&tpl.api_version);
    let mut notes = Vec::new();
    for (_, policy) in state.live_policies() {
        // A PropagationPolicy of another namespace never aims at a namespaced template; one
        // aimed at a cluster-scoped template is what `pp-selects-cluster-scoped` explains.
        if policy.kind == PolicyKind::PropagationPolicy
            && !tpl.namespace.is_empty()
            && policy.namespace != *tpl.namespace
        {
            continue;
        }
        let aimed = policy.spec.resource_selectors.iter().filter(|rs| {
            rs.kind == *tpl.kind
                && crate::model::group_of(&rs.api_version) == group
                && (rs.namespace.is_empty()
                    || rs.namespace == *tpl.namespace
                    || tpl.namespace.is_empty())
                && (rs.name.is_empty() || rs.name == *tpl.name)
        });
        for rs in aimed {
            if let Some(why) = state.never_matched(policy.kind, rs) {
                notes.push(Note::SelectorNeverMatches {
                    policy: policy.reference(),
                    reason: why.reason(),
                });
            }
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::state::testutil::*;
    use serde_json::json;

    /// The evaluated placement decides the rows: every receiving cluster (a label selector
    /// names none), `dispatching: true` over all of them, and `*` only while none is known.
    #[test]
    fn dispatch_rows_cover_every_receiving_cluster() {
        let row = |cluster: &str, by: Option<SuspendedBy>| ClusterSuspension {
            cluster: cluster.into(),
            suspended: by.is_some(),
            by,
        };
        let receiving = ["m1".to_string(), "m2".to_string()];
        let on_m1 = vec![row("m1", Some(SuspendedBy::DispatchingOnClusters))];
        assert_eq!(
            dispatch_over(on_m1, &receiving),
            vec![
                row("m1", Some(SuspendedBy::DispatchingOnClusters)),
                row("m2", None)
            ]
        );
        let all = || vec![row("*", Some(SuspendedBy::Dispatching))];
        let d = Some(SuspendedBy::Dispatching);
        assert_eq!(
            dispatch_over(all(), &receiving),
            vec![row("m1", d), row("m2", d)]
        );
        assert_eq!(dispatch_over(all(), &[]), all());
        // A named cluster the division leaves without replicas is no target.
        assert_eq!(
            dispatch_over(vec![row("m3", None)], &receiving[..1]),
            vec![row("m1", None)]
        );
    }

    /// The clusters the carriers of a dependency take it to are the binding's targets too,
    /// suspended as its own suspension says: a named one only where it names them, all of them
    /// where it suspends dispatching.
    #[test]
    fn dispatch_rows_take_in_the_carriers_clusters() {
        let row = |cluster: &str, by: Option<SuspendedBy>| ClusterSuspension {
            cluster: cluster.into(),
            suspended: by.is_some(),
            by,
        };
        let carried = ["m1".to_string(), "m3".to_string()];
        let on_m3 = vec![
            row("m2", None),
            row("m3", Some(SuspendedBy::DispatchingOnClusters)),
        ];
        assert_eq!(
            dispatched_also_to(on_m3, &carried),
            vec![
                row("m1", None),
                row("m2", None),
                row("m3", Some(SuspendedBy::DispatchingOnClusters))
            ]
        );
        let d = Some(SuspendedBy::Dispatching);
        assert_eq!(
            dispatched_also_to(vec![row("m2", d)], &carried),
            vec![row("m1", d), row("m2", d), row("m3", d)]
        );
    }

    #[test]
    fn kept_claim_and_restart_preemption() {
        let (l, a) = pp_claim("default", "low");
        let mut labels: Vec<(&str, &str)> = vec![("app", "nginx")];
        labels.extend(l.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let a: Vec<(&str, &str)> = a.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let objects = vec![
            deploy("default", "nginx", &labels, &a),
            pp(
                "default",
                "low",
                json!({"priority": 1, "resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"default","labelSelector":{"matchLabels":{"app":"nginx"}}}]}),
            ),
            pp(
                "default",
                "high",
                json!({"priority": 5, "preemption":"Always", "resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"default","name":"nginx"}]}),
            ),
        ];
        let on = explain(&state(objects.clone(), true), 0);
        assert_eq!(on.current, Some(PolicyRef::pp("default", "low")));
        assert_eq!(on.after_reconcile, Some(PolicyRef::pp("default", "low")));
        assert_eq!(on.eventual, Some(PolicyRef::pp("default", "high")));
        assert!(on.preempted);
        assert_eq!(on.candidates[0].policy.name, "high");
        assert!(on.candidates[0].selected);
        assert!(matches!(
            on.candidates[1].why,
            Why::PreemptedBy {
                ours: 1,
                theirs: 5,
                ..
            }
        ));

        let off = explain(&state(objects, false), 0);
        assert_eq!(off.eventual, Some(PolicyRef::pp("default", "low")));
        assert!(!off.preempted);
        assert!(matches!(
            off.candidates[0].why,
            Why::ClaimKept {
                blocker: BlockReason::FeatureGateDisabled { .. },
                ..
            }
        ));
        assert!(off.notes.iter().any(|n| matches!(n, Note::GateOff { .. })));
    }

    #[test]
    fn equal_top_preemptors_are_order_dependent() {
        let (l, a) = pp_claim("default", "base");
        let l: Vec<(&str, &str)> = l.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let a: Vec<(&str, &str)> = a.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let named = |prio: i32| {
            json!({"priority": prio, "preemption": "Always",
                   "resourceSelectors": [{"apiVersion":"apps/v1","kind":"Deployment","name":"api"}]})
        };
        let objects = vec![
            deploy("default", "api", &l, &a),
            pp(
                "default",
                "base",
                json!({"priority": 1, "resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}]}),
            ),
            pp("default", "x", named(7)),
            pp("default", "z", named(7)),
        ];
        let e = explain(&state(objects, true), 0);
        assert_eq!(e.eventual, Some(PolicyRef::pp("default", "x")));
        assert_eq!(
            e.candidates[1].why,
            Why::OrderDependent {
                winner: PolicyRef::pp("default", "x"),
                priority: 7
            }
        );
        assert!(e
            .notes
            .iter()
            .any(|n| matches!(n, Note::AmbiguousPreemptors { priority: 7, .. })));
    }

    #[test]
    fn suspension_per_cluster() {
        let objects = vec![
            deploy("default", "web", &[], &[]),
            pp(
                "default",
                "p",
                json!({"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}],
                "placement":{"clusterAffinity":{"clusterNames":["member1","member2"]}},
                "suspension":{"dispatchingOnClusters":{"clusterNames":["member2"]}}}),
            ),
        ];
        let e = explain(&state(objects, false), 0);
        assert_eq!(
            e.suspension,
            vec![
                ClusterSuspension {
                    cluster: "member1".into(),
                    suspended: false,
                    by: None
                },
                ClusterSuspension {
                    cluster: "member2".into(),
                    suspended: true,
                    by: Some(SuspendedBy::DispatchingOnClusters)
                },
            ]
        );
    }
}
