//! The detector's per-template steps over a [`State`]: fresh matching (§2.3, §3), the template
//! reconcile (§0, §4.2), one preemptor acting on one template (§5.2, §5.3), and the settled
//! restart model for one template (§7).

use crate::model::{PolicyKind, PolicyRef};

use super::claim::ClaimMeta;
use super::rank;
use super::selector::ImplicitPriority;
use super::state::{PolicyEntry, State};

/// The best PP and the best CPP for a template, and who would claim it (§3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FreshMatch {
    pub best_pp: Option<(usize, ImplicitPriority)>,
    pub best_cpp: Option<(usize, ImplicitPriority)>,
    /// The policy that claims: the best PP, else the best CPP; `None` when that policy's
    /// dependentOverrides are missing (no CPP fallback, `policy.go:70-73`).
    pub chosen: Option<usize>,
    /// The winner that cannot claim yet, and the overrides it waits for.
    pub waiting_for_overrides: Option<(usize, Vec<String>)>,
}

/// `LookForMatchedPolicy` then `LookForMatchedClusterPolicy` (§3): policies being deleted are
/// not candidates (`detector.go:401-407, 429-435`).
pub fn fresh_match(state: &State, t: usize) -> FreshMatch {
    fresh_match_among(state, &state.matching_policies(t))
}

/// [`fresh_match`] over the template's matches as [`State::matching_policies`] returns them
/// (callers that already hold them skip a second matching pass).
pub fn fresh_match_among(state: &State, matches: &[(usize, ImplicitPriority)]) -> FreshMatch {
    let cands = || {
        matches.iter().filter(|&&(i, _)| {
            let p = state.policy(i);
            !p.terminating && p.known
        })
    };
    let key = |c: &&(usize, ImplicitPriority)| state.policy(c.0).rank_key(c.1);
    // Cluster-scoped templates: the PP lookup is skipped (`detector.go:382-384`); matching
    // already gives PPs nothing for them.
    let best_pp = rank::best(cands().filter(|c| state.policy(c.0).is_pp()), key).copied();
    let best_cpp = rank::best(cands().filter(|c| !state.policy(c.0).is_pp()), key).copied();
    let winner = best_pp.or(best_cpp).map(|c| c.0);
    let mut m = FreshMatch {
        best_pp,
        best_cpp,
        chosen: winner,
        waiting_for_overrides: None,
    };
    if let Some(w) = winner {
        let missing = state.missing_overrides(w);
        if !missing.is_empty() {
            m.chosen = None;
            m.waiting_for_overrides = Some((w, missing));
        }
    }
    m
}

/// Writes policy `p`'s claim on the template (§4.3).
pub fn write_claim(state: &State, t: usize, p: usize, claim: &mut ClaimMeta) {
    let pol = state.policy(p);
    match pol.kind {
        PolicyKind::PropagationPolicy => {
            let has_labels = !state.templates[t].labels.is_empty();
            claim.claim_pp(&pol.namespace, &pol.name, &pol.id, has_labels)
        }
        PolicyKind::ClusterPropagationPolicy => claim.claim_cpp(&pol.name, &pol.id),
    }
}

/// What a template reconcile did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReconcileOutcome {
    /// The detector never processes this template (§1.4).
    Excluded,
    /// An existing claim is kept (§0 steps 1-2), whatever better policy exists (§4.4).
    Kept(PolicyRef),
    /// Freshly claimed by the best match.
    Claimed(usize),
    /// No policy could claim it: it waits (§6.3).
    Waiting,
}

/// `ResourceDetector.Reconcile` → `propagateResource` for one template (§0; §4.2 for claims).
/// Stale claims (policy not found) are removed and the template re-matched.
pub fn template_reconcile(state: &State, t: usize, claim: &mut ClaimMeta) -> ReconcileOutcome {
    if state.templates[t].excluded.is_some() {
        return ReconcileOutcome::Excluded;
    }
    while let Some(owner) = claim.owner() {
        match state.find_policy(&owner) {
            // §4.2 "Policy not found": claim keys removed, the update re-matches.
            None => claim.release(owner.kind),
            Some(p) => {
                let pol = state.policy(p);
                // Terminating (error, retry), no longer matching (return nil), overrides
                // missing (not re-applied), unknown spec: the claim stays.
                let matches =
                    pol.known && pol.match_priority(&state.templates[t].target()).matches();
                if !pol.terminating && matches && state.missing_overrides(p).is_empty() {
                    // ApplyPolicy re-writes the claim (a new permanent-id is re-stamped; a PP
                    // claim strips CPP keys, §4.3).
                    write_claim(state, t, p, claim);
                }
                return ReconcileOutcome::Kept(owner);
            }
        }
    }
    let m = fresh_match(state, t);
    match m.chosen {
        Some(p) => {
            write_claim(state, t, p, claim);
            ReconcileOutcome::Claimed(p)
        }
        None => ReconcileOutcome::Waiting,
    }
}

/// Why a preemptor leaves a template alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreemptOutcome {
    /// The claim moved to the preemptor.
    Took { from: PolicyRef },
    /// The preemptor already owns it (`:117-119`, `:190-192`).
    AlreadyOwner,
    /// Unclaimed templates are never touched by preemption (§5.1).
    Unclaimed,
    /// The template is being deleted (§5.2 step 1).
    TemplateTerminating,
    /// The holder named by the claim does not exist: error and retry (§5.6).
    HolderMissing(PolicyRef),
    /// `preemptor.priority <= holder.priority` (`:128`, `:200`): equal never preempts.
    NotHigher {
        holder: PolicyRef,
        ours: i32,
        theirs: i32,
    },
    /// A CPP never takes a PP's template (§5.3).
    CppCannotPreemptPp { holder: PolicyRef },
}

/// One preemptor's pass over one template it names (§5.2-§5.3, `preemption.go:62-224`).
pub fn preempt_one(state: &State, p: usize, t: usize, claim: &mut ClaimMeta) -> PreemptOutcome {
    if state.templates[t].terminating {
        return PreemptOutcome::TemplateTerminating;
    }
    let pol = state.policy(p);
    let before = claim.owner();
    match pol.kind {
        PolicyKind::PropagationPolicy => {
            let mut blocked = None;
            let mut taken_from_pp = None;
            // preemptPropagationPolicy (:109-153): annotations only, not the id label.
            if let (Some(ns), Some(name)) = (claim.pp_namespace.clone(), claim.pp_name.clone()) {
                if ns == pol.namespace && name == pol.name {
                    blocked = Some(PreemptOutcome::AlreadyOwner);
                } else {
                    let holder = PolicyRef::pp(&ns, &name);
                    match state.find_policy(&holder) {
                        // Get error: returned, the CPP step is not reached.
                        None => return PreemptOutcome::HolderMissing(holder),
                        Some(h) => {
                            let theirs = state.policy(h).priority();
                            if pol.priority() <= theirs {
                                blocked = Some(PreemptOutcome::NotHigher {
                                    holder,
                                    ours: pol.priority(),
                                    theirs,
                                });
                            } else {
                                write_claim(state, t, p, claim);
                                taken_from_pp = Some(holder);
                            }
                        }
                    }
                }
            }
            // preemptClusterPropagationPolicyDirectly (:156-181): no priority comparison; on
            // the same in-memory object, so it sees CPP keys only if the PP step left them.
            let taken_from_cpp = claim.cpp_name.clone();
            if taken_from_cpp.is_some() {
                write_claim(state, t, p, claim);
            }
            let after = claim.owner();
            if after != before && after == Some(pol.reference()) {
                // `before` is None when the annotations named a holder without the id label
                // (a partial claim): preemption reads annotations only (§4.2).
                let from = before.unwrap_or_else(|| match &taken_from_cpp {
                    Some(c) => PolicyRef::cpp(c),
                    None => taken_from_pp.clone().unwrap_or_else(|| pol.reference()),
                });
                return PreemptOutcome::Took { from };
            }
            blocked.unwrap_or(PreemptOutcome::Unclaimed)
        }
        PolicyKind::ClusterPropagationPolicy => {
            // preemptClusterPropagationPolicy (:184-224).
            let Some(name) = claim.cpp_name.clone() else {
                return match claim.owner() {
                    Some(holder) => PreemptOutcome::CppCannotPreemptPp { holder },
                    None => PreemptOutcome::Unclaimed,
                };
            };
            if name == pol.name {
                return PreemptOutcome::AlreadyOwner;
            }
            let holder = PolicyRef::cpp(&name);
            let Some(h) = state.find_policy(&holder) else {
                return PreemptOutcome::HolderMissing(holder);
            };
            let theirs = state.policy(h).priority();
            if pol.priority() <= theirs {
                return PreemptOutcome::NotHigher {
                    holder,
                    ours: pol.priority(),
                    theirs,
                };
            }
            write_claim(state, t, p, claim);
            let after = claim.owner();
            if after != before && after == Some(pol.reference()) {
                PreemptOutcome::Took { from: holder }
            } else {
                // The template also carries a PP claim, which still counts (§3).
                PreemptOutcome::CppCannotPreemptPp {
                    holder: after.unwrap_or(holder),
                }
            }
        }
    }
}

/// What became of the claim found in the metadata, in the restart model (§7 step 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimCheck {
    /// No complete claim in the metadata.
    None,
    /// Kept: the claimer exists, is live and matches.
    Valid,
    /// Kept, and re-stamped with the claimer's current permanent-id.
    Restamped,
    /// Dropped: the claimer does not exist (§4.2).
    Stale(PolicyRef),
    /// The claimer is being deleted: dropped when the ids agree, else left alone (§6.1).
    ClaimerTerminating { claimer: PolicyRef, released: bool },
    /// The claimer's selectors no longer match: dropped when its binding carries the claim (§6.2).
    NoLongerMatches { claimer: PolicyRef, released: bool },
    /// The claimer is only known from the claim (spec unknown): kept.
    Unknown(PolicyRef),
}

/// One preemptor's turn, in the order it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreemptStep {
    pub policy: usize,
    pub outcome: PreemptOutcome,
}

/// The restart model for one template (§7): what Karmada converges to when every object is
/// processed again, the claim in the metadata standing in for the history.
#[derive(Clone, Debug)]
pub struct Settled {
    pub claim_check: ClaimCheck,
    /// The claims after step 3 (validation), before any fresh match.
    pub validated: ClaimMeta,
    /// Set when step 4 ran (no valid claim).
    pub fresh: Option<FreshMatch>,
    /// Owner after steps 3-4, before preemption.
    pub matched_owner: Option<PolicyRef>,
    /// Preemptors that ran (gate on), in processing order.
    pub preemption: Vec<PreemptStep>,
    /// Preemptors declaring `preemption: Always` that name this template but did not run:
    /// gate off, or blocked by missing overrides (§5.1, §6.5).
    pub idle_preemptors: Vec<(usize, IdleReason)>,
    /// Several preemptors tie at the winning priority: the result depends on processing order.
    pub ambiguous: Vec<usize>,
    pub claim: ClaimMeta,
    pub owner: Option<PolicyRef>,
    /// The owner came from a preemption.
    pub preempted: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdleReason {
    GateOff,
    /// The handler returns before preempting while a waiting template it matches needs
    /// overrides that are missing (`detector.go:1268-1274`).
    OverridesMissing(Vec<String>),
}

/// §7 step 3 on a claim: validate it against the policies (and the policy add handlers that a
/// restart runs: deletion cleanup §6.1, unmatched cleanup §6.2, stale claims §4.2).
pub fn validate_claim(state: &State, t: usize, claim: &mut ClaimMeta) -> ClaimCheck {
    let mut check = ClaimCheck::None;
    loop {
        let Some(owner) = claim.owner() else {
            return check;
        };
        let id = claim.owner_id().unwrap_or_default().to_string();
        let Some(p) = state.find_policy(&owner) else {
            claim.release(owner.kind);
            check = ClaimCheck::Stale(owner);
            continue;
        };
        let pol = state.policy(p);
        if !pol.known {
            return ClaimCheck::Unknown(owner);
        }
        if pol.terminating {
            // NeedCleanupClaimMetadata (§6.1): only when the template's id is the policy's.
            let released = id == pol.id || pol.id_generated;
            if released {
                claim.release(owner.kind);
                check = ClaimCheck::ClaimerTerminating {
                    claimer: owner,
                    released,
                };
                continue;
            }
            return ClaimCheck::ClaimerTerminating {
                claimer: owner,
                released,
            };
        }
        if !pol.match_priority(&state.templates[t].target()).matches() {
            let released = state.binding_carries_claim(t, p);
            if released {
                claim.release(owner.kind);
                check = ClaimCheck::NoLongerMatches {
                    claimer: owner,
                    released,
                };
                continue;
            }
            return ClaimCheck::NoLongerMatches {
                claimer: owner,
                released,
            };
        }
        if id != pol.id && !pol.id_generated {
            write_claim(state, t, p, claim);
            return ClaimCheck::Restamped;
        }
        return if matches!(check, ClaimCheck::None) {
            ClaimCheck::Valid
        } else {
            check
        };
    }
}

/// Preemptors of a template: `preemption: Always`, live, with a selector naming it (§7 step 5).
/// Sorted in a stable processing order: CPPs by name, then PPs by namespace/name (the informer
/// list order at start-up; a PP's claim cannot be taken by a CPP, so running CPPs first yields
/// the same end state as any interleaving, up to ties).
pub fn preemptors(state: &State, t: usize) -> Vec<usize> {
    let mut v: Vec<usize> = state
        .naming_policies(t)
        .into_iter()
        .filter(|&i| {
            let p = state.policy(i);
            p.known && !p.terminating && p.preemption_always()
        })
        .collect();
    v.sort_by(|&a, &b| {
        let (pa, pb) = (state.policy(a), state.policy(b));
        (pa.is_pp(), &pa.namespace, &pa.name).cmp(&(pb.is_pp(), &pb.namespace, &pb.name))
    });
    v
}

/// Whether the policy's add/update handler stops before preempting (§6.5): some unclaimed
/// template it matches exists, and an override it depends on is missing.
pub fn overrides_block_preemption(
    state: &State,
    p: usize,
    claims: &dyn Fn(usize) -> bool,
) -> Vec<String> {
    let missing = state.missing_overrides(p);
    if missing.is_empty() {
        return missing;
    }
    let pol = state.policy(p);
    let waiting_match = pol.spec.resource_selectors.iter().any(|rs| {
        state
            .templates_of(&rs.api_version, &rs.kind)
            .iter()
            .any(|&t| {
                state.templates[t].excluded.is_none()
                    && !claims(t)
                    && pol.match_priority(&state.templates[t].target()).matches()
            })
    });
    if waiting_match {
        missing
    } else {
        Vec::new()
    }
}

/// The restart model (§7) for template `t`.
pub fn settle(state: &State, t: usize) -> Settled {
    settle_matched(state, t, None)
}

/// [`settle`] for a caller that already holds the template's matches
/// ([`State::matching_policies`]): the fresh match reuses them.
pub fn settle_with(state: &State, t: usize, matches: &[(usize, ImplicitPriority)]) -> Settled {
    settle_matched(state, t, Some(matches))
}

/// An owner as the lint rules keep it for every template: the slot of a policy of the state
/// (nearly always), or a claimed policy the state does not hold. A [`PolicyRef`] per owner
/// was two strings per template, twice: the largest part of a 100,000-document analysis.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Owner {
    #[default]
    None,
    Policy(u32),
    Unknown(Box<PolicyRef>),
}

impl Owner {
    fn slot(p: usize) -> Owner {
        Owner::Policy(u32::try_from(p).expect("fewer than 2^32 policies"))
    }

    fn of(state: &State, owner: Option<PolicyRef>) -> Owner {
        match owner {
            None => Owner::None,
            Some(r) => match state.find_policy(&r) {
                Some(p) => Owner::slot(p),
                None => Owner::Unknown(Box::new(r)),
            },
        }
    }

    /// The owner's reference, `None` for no owner.
    pub fn reference(&self, state: &State) -> Option<PolicyRef> {
        match self {
            Owner::None => None,
            Owner::Policy(p) => Some(state.policy(*p as usize).reference()),
            Owner::Unknown(r) => Some((**r).clone()),
        }
    }

    /// Whether the owner is policy `p` of the state.
    pub fn is(&self, p: usize) -> bool {
        matches!(self, Owner::Policy(o) if *o as usize == p)
    }

    pub fn is_some(&self) -> bool {
        *self != Owner::None
    }
}

/// What the lint rules read of a settled template: the owner before and after preemption.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SettledOwner {
    /// [`Settled::matched_owner`].
    pub matched_owner: Owner,
    /// [`Settled::owner`].
    pub owner: Owner,
    /// [`Settled::preempted`].
    pub preempted: bool,
}

impl SettledOwner {
    /// The owners of `settled`, a template of `state`.
    pub fn of(state: &State, settled: Settled) -> SettledOwner {
        SettledOwner {
            matched_owner: Owner::of(state, settled.matched_owner),
            owner: Owner::of(state, settled.owner),
            preempted: settled.preempted,
        }
    }
}

/// [`settle_with`] reduced to its owners, without building the claims and the steps for the
/// common case (most templates of a repository): no claim keys at all and no policy naming
/// the template. There §7 step 3 finds nothing, step 4 writes the fresh winner's claim (so
/// the owner is the winner, whichever its kind), and step 5 has no preemptor. `named` is
/// [`State::is_named`] for `t` (callers settling every template get it with the template's
/// matches from [`State::matching_policies_and_named_into`]).
pub fn settle_owner(
    state: &State,
    t: usize,
    matches: &[(usize, ImplicitPriority)],
    named: bool,
) -> SettledOwner {
    let tpl = &state.templates[t];
    if tpl.excluded.is_some() {
        return SettledOwner::default();
    }
    if !named && *tpl.claim() == ClaimMeta::default() {
        let owner = fresh_match_among(state, matches)
            .chosen
            .map_or(Owner::None, Owner::slot);
        return SettledOwner {
            matched_owner: owner.clone(),
            owner,
            preempted: false,
        };
    }
    SettledOwner::of(state, settle_with(state, t, matches))
}

fn settle_matched(
    state: &State,
    t: usize,
    matches: Option<&[(usize, ImplicitPriority)]>,
) -> Settled {
    let tpl = &state.templates[t];
    let mut claim = tpl.claim().clone();
    let mut s = Settled {
        claim_check: ClaimCheck::None,
        validated: claim.clone(),
        fresh: None,
        matched_owner: None,
        preemption: Vec::new(),
        idle_preemptors: Vec::new(),
        ambiguous: Vec::new(),
        claim: claim.clone(),
        owner: None,
        preempted: false,
    };
    // §7 step 1: never processed.
    if tpl.excluded.is_some() {
        return s;
    }
    // Step 2-3.
    s.claim_check = validate_claim(state, t, &mut claim);
    s.validated = claim.clone();
    // Step 4.
    if claim.owner().is_none() {
        let m = match matches {
            Some(matches) => fresh_match_among(state, matches),
            None => fresh_match(state, t),
        };
        if let Some(p) = m.chosen {
            write_claim(state, t, p, &mut claim);
        }
        s.fresh = Some(m);
    }
    s.matched_owner = claim.owner();
    // Step 5: every preemptor's pass runs again at start-up (§0).
    let preemptors = preemptors(state, t);
    let unclaimed_elsewhere = |other: usize| {
        if other == t {
            return claim.owner().is_some();
        }
        // Other templates: their metadata claim stands for their settled state.
        let c = &state.templates[other].claim();
        c.owner().is_some_and(|o| state.find_policy(&o).is_some())
    };
    let mut runnable = Vec::new();
    for &p in &preemptors {
        if !state.options.gates.preemption() {
            s.idle_preemptors.push((p, IdleReason::GateOff));
            continue;
        }
        let missing = overrides_block_preemption(state, p, &unclaimed_elsewhere);
        if !missing.is_empty() {
            s.idle_preemptors
                .push((p, IdleReason::OverridesMissing(missing)));
            continue;
        }
        runnable.push(p);
    }
    for &p in &runnable {
        let outcome = preempt_one(state, p, t, &mut claim);
        s.preemption.push(PreemptStep { policy: p, outcome });
    }
    s.owner = claim.owner();
    s.preempted = s.owner != s.matched_owner;
    s.ambiguous = ambiguous_preemptors(state, s.matched_owner.as_ref(), &runnable, tpl.terminating);
    s.claim = claim;
    s
}

/// Preemptors that tie at the top priority among those that could take the template: which of
/// them wins depends on the order they are processed (§5.6, §7 step 5).
fn ambiguous_preemptors(
    state: &State,
    owner: Option<&PolicyRef>,
    runnable: &[usize],
    terminating: bool,
) -> Vec<usize> {
    let Some(owner) = owner else {
        return Vec::new();
    };
    // Contenders are runnable preemptors: none, no tie (and no holder lookup).
    if terminating || runnable.len() < 2 {
        return Vec::new();
    }
    let holder = state.find_policy(owner).map(|h| state.policy(h));
    let holder_prio = holder.map(PolicyEntry::priority);
    let contenders: Vec<usize> = match owner.kind {
        PolicyKind::PropagationPolicy => runnable
            .iter()
            .copied()
            .filter(|&p| {
                let pol = state.policy(p);
                pol.is_pp()
                    && holder_prio.is_some_and(|h| pol.priority() > h)
                    && pol.reference() != *owner
            })
            .collect(),
        PolicyKind::ClusterPropagationPolicy => {
            let pps: Vec<usize> = runnable
                .iter()
                .copied()
                .filter(|&p| state.policy(p).is_pp())
                .collect();
            if pps.is_empty() {
                runnable
                    .iter()
                    .copied()
                    .filter(|&p| {
                        let pol = state.policy(p);
                        holder_prio.is_some_and(|h| pol.priority() > h) && pol.reference() != *owner
                    })
                    .collect()
            } else {
                pps
            }
        }
    };
    let Some(top) = contenders.iter().map(|&p| state.policy(p).priority()).max() else {
        return Vec::new();
    };
    let tied: Vec<usize> = contenders
        .into_iter()
        .filter(|&p| state.policy(p).priority() == top)
        .collect();
    if tied.len() > 1 {
        tied
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::state::testutil::*;
    use serde_json::json;

    fn owner_of(state: &State, name: &str) -> Option<PolicyRef> {
        let t = state
            .find_template("apps/v1", "Deployment", "default", name)
            .unwrap();
        settle(state, t).owner
    }

    fn claimed(
        ns: &str,
        policy: &str,
        name: &str,
        labels: &[(&str, &str)],
    ) -> crate::model::Object {
        let (l, a) = pp_claim(ns, policy);
        let mut labels: Vec<(&str, &str)> = labels.to_vec();
        labels.extend(l.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let a: Vec<(&str, &str)> = a.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        deploy(ns, name, &labels, &a)
    }

    fn named(prio: i32, preempt: bool) -> serde_json::Value {
        json!({"priority": prio, "preemption": if preempt {"Always"} else {"Never"},
               "resourceSelectors": [{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx"}]})
    }

    fn cpp_named(prio: i32, preempt: bool) -> serde_json::Value {
        json!({"priority": prio, "preemption": if preempt {"Always"} else {"Never"},
               "resourceSelectors": [{"apiVersion":"apps/v1","kind":"Deployment","namespace":"default","name":"nginx"}]})
    }

    /// Table: (what, objects, gate, expected eventual owner of default/nginx).
    #[test]
    fn preemption_rules_table() {
        let holder5 = || pp("default", "holder", named(5, false));
        let cases: Vec<(&str, Vec<crate::model::Object>, bool, Option<PolicyRef>)> = vec![
            (
                "equal priority never preempts",
                vec![
                    claimed("default", "holder", "nginx", &[]),
                    holder5(),
                    pp("default", "takeover", named(5, true)),
                ],
                true,
                Some(PolicyRef::pp("default", "holder")),
            ),
            (
                "strictly higher preempts",
                vec![
                    claimed("default", "holder", "nginx", &[]),
                    holder5(),
                    pp("default", "takeover", named(6, true)),
                ],
                true,
                Some(PolicyRef::pp("default", "takeover")),
            ),
            (
                "gate off: no preemption",
                vec![
                    claimed("default", "holder", "nginx", &[]),
                    holder5(),
                    pp("default", "takeover", named(6, true)),
                ],
                false,
                Some(PolicyRef::pp("default", "holder")),
            ),
            (
                "preemption Never: claim kept although better",
                vec![
                    claimed("default", "holder", "nginx", &[]),
                    holder5(),
                    pp("default", "better", named(9, false)),
                ],
                true,
                Some(PolicyRef::pp("default", "holder")),
            ),
            (
                "implicit priority is ignored by preemption (name vs label at equal priority)",
                vec![
                    claimed("default", "holder", "nginx", &[("app", "nginx")]),
                    pp(
                        "default",
                        "holder",
                        json!({"priority": 1, "resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchLabels":{"app":"nginx"}}}]}),
                    ),
                    pp("default", "takeover", named(1, true)),
                ],
                true,
                Some(PolicyRef::pp("default", "holder")),
            ),
            (
                "CPP preemptor never takes a PP's template",
                vec![
                    claimed("default", "holder", "nginx", &[]),
                    holder5(),
                    cpp("big", cpp_named(1000, true)),
                ],
                true,
                Some(PolicyRef::pp("default", "holder")),
            ),
            (
                "PP preemptor takes a CPP's template whatever the priority",
                vec![
                    deploy(
                        "default",
                        "nginx",
                        &[("clusterpropagationpolicy.karmada.io/permanent-id", "c-id")],
                        &[("clusterpropagationpolicy.karmada.io/name", "c")],
                    ),
                    cpp("c", cpp_named(100, false)),
                    pp("default", "low", named(-5, true)),
                ],
                true,
                Some(PolicyRef::pp("default", "low")),
            ),
            (
                "CPP over CPP needs strictly higher",
                vec![
                    deploy(
                        "default",
                        "nginx",
                        &[("clusterpropagationpolicy.karmada.io/permanent-id", "c-id")],
                        &[("clusterpropagationpolicy.karmada.io/name", "c")],
                    ),
                    cpp("c", cpp_named(3, false)),
                    cpp("d", cpp_named(3, true)),
                    cpp("e", cpp_named(4, true)),
                ],
                true,
                Some(PolicyRef::cpp("e")),
            ),
            (
                "highest of several preemptors wins",
                vec![
                    claimed("default", "holder", "nginx", &[]),
                    holder5(),
                    pp("default", "p6", named(6, true)),
                    pp("default", "p8", named(8, true)),
                    pp("default", "p7", named(7, true)),
                ],
                true,
                Some(PolicyRef::pp("default", "p8")),
            ),
            (
                "a preemptor does not need to be the best match",
                vec![
                    claimed("default", "holder", "nginx", &[]),
                    holder5(),
                    pp("default", "p6", named(6, true)),
                    pp("default", "top", named(50, false)),
                ],
                true,
                Some(PolicyRef::pp("default", "p6")),
            ),
            (
                "unclaimed template: fresh best match, preemption irrelevant",
                vec![
                    deploy("default", "nginx", &[], &[]),
                    pp("default", "a", named(1, true)),
                    pp("default", "b", named(2, false)),
                ],
                true,
                Some(PolicyRef::pp("default", "b")),
            ),
            (
                "PP at -5 beats CPP at 100 on a fresh match",
                vec![
                    deploy("default", "nginx", &[("app", "web")], &[]),
                    pp(
                        "default",
                        "team",
                        json!({"priority": -5, "resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchLabels":{"app":"web"}}}]}),
                    ),
                    cpp("platform", cpp_named(100, false)),
                ],
                false,
                Some(PolicyRef::pp("default", "team")),
            ),
            (
                "stale claim (policy missing): re-matched",
                vec![
                    claimed("default", "gone", "nginx", &[]),
                    pp("default", "b", named(0, false)),
                ],
                false,
                Some(PolicyRef::pp("default", "b")),
            ),
            (
                "claimer no longer matches: released and re-matched",
                vec![
                    claimed("default", "holder", "nginx", &[]),
                    pp(
                        "default",
                        "holder",
                        json!({"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","name":"other"}]}),
                    ),
                    pp("default", "b", named(0, false)),
                ],
                false,
                Some(PolicyRef::pp("default", "b")),
            ),
            (
                "missing dependentOverrides: no CPP fallback",
                vec![
                    deploy("default", "nginx", &[], &[]),
                    pp(
                        "default",
                        "a",
                        json!({"dependentOverrides":["op"], "resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}]}),
                    ),
                    cpp("c", cpp_named(0, false)),
                ],
                false,
                None,
            ),
            (
                "CPP preemptor without a selector namespace misses a namespaced template",
                vec![
                    deploy(
                        "default",
                        "nginx",
                        &[("clusterpropagationpolicy.karmada.io/permanent-id", "c-id")],
                        &[("clusterpropagationpolicy.karmada.io/name", "c")],
                    ),
                    cpp("c", cpp_named(1, false)),
                    cpp(
                        "d",
                        json!({"priority": 9, "preemption": "Always",
                               "resourceSelectors": [{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx"}]}),
                    ),
                ],
                true,
                Some(PolicyRef::cpp("c")),
            ),
            (
                "name tie-break: ab before abc",
                vec![
                    deploy("default", "nginx", &[], &[]),
                    pp("default", "abc", named(0, false)),
                    pp("default", "ab", named(0, false)),
                ],
                false,
                Some(PolicyRef::pp("default", "ab")),
            ),
            (
                "labelSelector {} beats no selector at equal priority",
                vec![
                    deploy("default", "nginx", &[], &[]),
                    pp(
                        "default",
                        "a-all",
                        json!({"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}]}),
                    ),
                    pp(
                        "default",
                        "z-empty",
                        json!({"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{}}]}),
                    ),
                ],
                false,
                Some(PolicyRef::pp("default", "z-empty")),
            ),
            (
                "PPs only claim templates in their own namespace",
                vec![
                    deploy("default", "nginx", &[], &[]),
                    pp(
                        "other",
                        "a",
                        json!({"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}]}),
                    ),
                ],
                false,
                None,
            ),
            (
                "claimed-by label: never claimed",
                vec![
                    deploy(
                        "default",
                        "nginx",
                        &[("resourcetemplate.karmada.io/claimed-by", "mcs")],
                        &[],
                    ),
                    pp("default", "a", named(0, false)),
                ],
                false,
                None,
            ),
        ];
        for (what, objects, gate, want) in cases {
            let st = state(objects, gate);
            assert_eq!(owner_of(&st, "nginx"), want, "{what}");
        }
    }

    /// The owners-only path agrees with the full restart model on every kind of template:
    /// unclaimed (matched or not), claimed, partially claimed, named by a preemptor, excluded.
    #[test]
    fn settle_owner_agrees_with_settle() {
        let (l, a) = pp_claim("default", "holder");
        let l: Vec<(&str, &str)> = l.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let a: Vec<(&str, &str)> = a.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let objects = || {
            vec![
                claimed("default", "holder", "nginx", &[("app", "web")]),
                deploy("default", "free", &[("app", "web")], &[]),
                deploy("default", "lonely", &[("app", "db")], &[]),
                deploy("default", "partial", &[], &a[..1]),
                deploy("default", "stale", &l, &[]),
                deploy("kube-system", "skipped", &[("app", "web")], &[]),
                deploy(
                    "default",
                    "by-cpp",
                    &[("clusterpropagationpolicy.karmada.io/permanent-id", "c-id")],
                    &[("clusterpropagationpolicy.karmada.io/name", "c")],
                ),
                deploy("other", "elsewhere", &[("app", "web")], &[]),
                pp("default", "holder", named(1, false)),
                pp("default", "takeover", named(5, true)),
                pp(
                    "default",
                    "web",
                    json!({"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchLabels":{"app":"web"}}}]}),
                ),
                cpp(
                    "c",
                    json!({"priority": 3, "resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}]}),
                ),
            ]
        };
        for gate in [false, true] {
            let st = state(objects(), gate);
            assert!(st.templates.len() >= 8);
            for t in 0..st.templates.len() {
                let full = SettledOwner::of(&st, settle(&st, t));
                let named = st.named_templates();
                assert_eq!(named[t], st.is_named(t));
                let fast = settle_owner(&st, t, &st.matching_policies(t), named[t]);
                assert_eq!(
                    fast, full,
                    "template {} (gate {gate})",
                    st.templates[t].name
                );
            }
        }
    }

    #[test]
    fn terminating_policy_is_skipped_by_fresh_matching() {
        let mut st = state(
            vec![
                deploy("default", "nginx", &[], &[]),
                pp("default", "a", named(9, false)),
                pp("default", "b", named(0, false)),
            ],
            false,
        );
        let a = st.find_policy(&PolicyRef::pp("default", "a")).unwrap();
        st.policy_mut(a).terminating = true;
        assert_eq!(owner_of(&st, "nginx"), Some(PolicyRef::pp("default", "b")));
    }

    #[test]
    fn terminating_template_is_not_preempted() {
        let mut st = state(
            vec![
                claimed("default", "holder", "nginx", &[]),
                pp("default", "holder", named(1, false)),
                pp("default", "p", named(9, true)),
            ],
            true,
        );
        st.templates[0].terminating = true;
        let s = settle(&st, 0);
        assert_eq!(s.owner, Some(PolicyRef::pp("default", "holder")));
        assert_eq!(s.preemption[0].outcome, PreemptOutcome::TemplateTerminating);
    }

    /// A stray CPP name annotation without its id label: unclaimed for matching (§4.2), but the
    /// PP→CPP preemption step reads annotations only, so any PP preemptor claims the template
    /// (`preemption.go:156-181`), whatever the priority of the PP that matched it.
    #[test]
    fn partial_cpp_annotation_is_taken_by_any_pp_preemptor() {
        let objects = vec![
            deploy(
                "default",
                "nginx",
                &[],
                &[("clusterpropagationpolicy.karmada.io/name", "gone")],
            ),
            pp("default", "best", named(9, false)),
            pp("default", "low", named(1, true)),
        ];
        let st = state(objects, true);
        let s = settle(&st, 0);
        assert_eq!(s.matched_owner, Some(PolicyRef::pp("default", "best")));
        assert_eq!(s.owner, Some(PolicyRef::pp("default", "low")));
        let e = crate::engine::explain::explain(&st, 0);
        assert!(e.preempted);
    }

    #[test]
    fn equal_top_preemptors_are_ambiguous() {
        let st = state(
            vec![
                claimed("default", "holder", "nginx", &[]),
                pp("default", "holder", named(1, false)),
                pp("default", "x", named(7, true)),
                pp("default", "y", named(7, true)),
            ],
            true,
        );
        let s = settle(&st, 0);
        assert_eq!(s.ambiguous.len(), 2);
        assert!(s.preempted);
    }

    #[test]
    fn template_reconcile_keeps_a_claim_whose_policy_no_longer_matches() {
        let st = state(
            vec![
                claimed("default", "holder", "nginx", &[]),
                pp(
                    "default",
                    "holder",
                    json!({"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","name":"other"}]}),
                ),
                pp("default", "b", named(0, false)),
            ],
            false,
        );
        let mut c = st.templates[0].claim().clone();
        assert_eq!(
            template_reconcile(&st, 0, &mut c),
            ReconcileOutcome::Kept(PolicyRef::pp("default", "holder"))
        );
    }
}
