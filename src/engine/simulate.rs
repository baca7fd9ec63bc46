//! Controller events over a settled snapshot (claim-and-preemption.md §0, §4.4, §5.5, §6, §7):
//! policy created, updated (selectors, priority), deleted, and controller restart. The policy
//! worker is modelled as Karmada's default single FIFO worker
//! (`--concurrent-propagation-policy-syncs=1`); template reconciles run as they are enqueued.

use std::collections::VecDeque;

use crate::model::{Policy, PolicyKind, PolicyRef};

use super::admission::{scheduler_name_changes, SCHEDULER_NAME_IMMUTABLE};
use super::claim::ClaimMeta;
use super::rank::{self, FreshMatchWhy};
use super::reconcile::{
    fresh_match, overrides_block_preemption, preempt_one, settle, template_reconcile,
    PreemptOutcome,
};
use super::state::{admit_policy, PolicyEntry, State, TemplateEntry};

/// One change to apply, in command-line order.
#[derive(Clone, Debug)]
pub enum Change {
    /// Create, or update the policy of the same kind/namespace/name.
    Apply(Box<Policy>),
    /// Policies created or updated at once (one file applied, one revision synced): all are
    /// stored before the controllers react, so a template none of them held goes to the best
    /// match among them (the template reconcile looks for the best match over every policy
    /// the informer holds by then: claim-and-preemption.md §6.3), whatever their order.
    ApplyTogether(Vec<Policy>),
    /// Delete a policy.
    Delete(PolicyRef),
    /// A template whose labels (or deletion) change: the detector's update handler reconciles
    /// it with its new labels (`OnUpdate`, claim-and-preemption.md §4.2): a claim whose policy
    /// is gone is released and the template matched afresh, one whose policy still exists is
    /// kept even where it no longer matches.
    UpdateTemplate(Box<TemplateEntry>),
}

/// The changes of `preempt-check`, gathered in command-line order, and the policies applied
/// (which decide the template kinds a live check reads).
#[derive(Clone, Debug, Default)]
pub struct ChangeList {
    pub applied: Vec<Policy>,
    pub changes: Vec<Change>,
}

impl ChangeList {
    /// `--apply FILE`: every policy among `objects` is created or updated, together with those
    /// of the `--apply` files just before (no `--delete` between). Returns how many policies
    /// were added and how many other objects were ignored.
    pub fn apply(&mut self, objects: Vec<crate::model::Object>) -> (usize, usize) {
        let (before, mut ignored) = (self.applied.len(), 0);
        for o in objects {
            match o {
                crate::model::Object::Policy(p) => self.applied.push(*p),
                _ => ignored += 1,
            }
        }
        // Consecutive `--apply` files are one apply, as `kubectl apply -f A -f B` sends them.
        let new = &self.applied[before..];
        match self.changes.last_mut() {
            Some(Change::ApplyTogether(together)) => together.extend_from_slice(new),
            _ if !new.is_empty() => self.changes.push(Change::ApplyTogether(new.to_vec())),
            _ => {}
        }
        (self.applied.len() - before, ignored)
    }

    /// `--delete TYPE/[NS/]NAME`, resolved.
    pub fn delete(&mut self, policy: PolicyRef) {
        self.changes.push(Change::Delete(policy));
    }
}

/// How a template's claim last moved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MoveKind {
    #[default]
    None,
    /// Claimed or re-matched normally (waiting list, release and re-match).
    Matched,
    /// Taken by a preemptor.
    Preempted,
    /// Released with no policy to take it.
    Released,
}

/// The mutable world: the snapshot plus every template's claim metadata.
#[derive(Clone, Debug)]
pub struct World {
    pub state: State,
    pub claims: Vec<ClaimMeta>,
    pub last_move: Vec<MoveKind>,
    /// Policies the changes created or updated (slots), in order, without repeats.
    pub changed: Vec<usize>,
    pub rejected: Vec<(PolicyRef, Vec<String>)>,
    /// Policies the changes deleted.
    pub deleted: Vec<PolicyRef>,
    /// Those of [`World::deleted`] that set `preserveResourcesOnDeletion: true`: their
    /// bindings keep it, so deleting a template they held later keeps its copies.
    pub deleted_preserving: Vec<PolicyRef>,
    /// Templates a policy's own update let go, in order: the claim Karmada removes when the
    /// updated policy no longer matches (`cleanPPUnmatchedRBs` / `cleanCPPUnmatchedRBs`,
    /// pkg/detector/policy.go), whatever claims the template next. A later delete of that
    /// policy no longer holds them.
    pub released: Vec<(PolicyRef, usize)>,
}

/// Why a change could not be processed at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeError {
    /// `--delete` of a policy that is neither in the state nor named by a claim.
    NotFound(PolicyRef),
}

impl World {
    /// Settles every template as after a controller restart (§7): the `before` owners.
    pub fn settled(state: State) -> World {
        let claims: Vec<ClaimMeta> = (0..state.templates.len())
            .map(|t| settle(&state, t).claim)
            .collect();
        let n = claims.len();
        World {
            state,
            claims,
            last_move: vec![MoveKind::None; n],
            changed: Vec::new(),
            rejected: Vec::new(),
            deleted: Vec::new(),
            deleted_preserving: Vec::new(),
            released: Vec::new(),
        }
    }

    /// Whether `policy`'s own update let go of template `t` ([`World::released`]).
    pub fn released_by_update(&self, policy: &PolicyRef, t: usize) -> bool {
        self.released.iter().any(|(p, r)| p == policy && *r == t)
    }

    pub fn owner(&self, t: usize) -> Option<PolicyRef> {
        self.claims[t].owner()
    }

    fn set_move(&mut self, t: usize, before: &Option<PolicyRef>, kind: MoveKind) {
        let after = self.claims[t].owner();
        if after != *before {
            self.last_move[t] = if after.is_none() {
                MoveKind::Released
            } else {
                kind
            };
        }
    }

    fn reconcile_template(&mut self, t: usize) {
        let before = self.owner(t);
        let mut c = std::mem::take(&mut self.claims[t]);
        template_reconcile(&self.state, t, &mut c);
        self.claims[t] = c;
        self.set_move(t, &before, MoveKind::Matched);
    }

    /// Templates whose claim names policy `p` (by kind, namespace and name).
    fn claimed_by(&self, p: usize) -> Vec<usize> {
        let r = self.state.policy(p).reference();
        (0..self.claims.len())
            .filter(|&t| self.claims[t].owner().as_ref() == Some(&r))
            .collect()
    }

    /// Unclaimed, processed templates that any selector of `p` matches (`GetMatching`, §6.3).
    fn waiting_matches(&self, p: usize) -> Vec<usize> {
        let pol = self.state.policy(p);
        let mut out = Vec::new();
        for rs in &pol.spec.resource_selectors {
            for &t in self.state.templates_of(&rs.api_version, &rs.kind) {
                let tpl = &self.state.templates[t];
                if tpl.excluded.is_none()
                    && self.claims[t].owner().is_none()
                    && pol.match_priority(&tpl.target()).matches()
                {
                    out.push(t);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// `HandlePropagationPolicyCreationOrUpdate` / the CPP twin (`detector.go:1239-1362`).
    fn policy_reconcile(&mut self, p: usize) {
        if self.state.policies[p].is_none() {
            return;
        }
        if self.state.policy(p).terminating {
            self.delete_now(p);
            return;
        }
        // (a) §6.2: own claims on templates no longer matched are released, then re-matched.
        for t in self.claimed_by(p) {
            let pol = self.state.policy(p);
            let matches = pol
                .match_priority(&self.state.templates[t].target())
                .matches();
            if !matches && self.state.binding_carries_claim(t, p) {
                let before = self.owner(t);
                self.released.push((pol.reference(), t));
                self.claims[t].release(pol.kind);
                self.reconcile_template(t);
                self.set_move(t, &before, MoveKind::Matched);
            } else {
                // (b) own templates re-enqueued: the claim is kept (and re-stamped).
                self.reconcile_template(t);
            }
        }
        // (c) waiting templates matching any selector; overrides gate (§6.5).
        let waiting = self.waiting_matches(p);
        if !waiting.is_empty() && !self.state.missing_overrides(p).is_empty() {
            return;
        }
        for t in waiting {
            self.reconcile_template(t);
        }
        // (d) preemption (§5.1-§5.3), selector by selector, in list order.
        let pol = self.state.policy(p);
        if !pol.preemption_enabled(&self.state.options.gates) {
            return;
        }
        let targets: Vec<usize> = pol
            .spec
            .resource_selectors
            .iter()
            .filter(|rs| !rs.name.is_empty())
            .filter_map(|rs| {
                let ns = if pol.is_pp() && rs.namespace.is_empty() {
                    pol.namespace.as_str()
                } else {
                    rs.namespace.as_str()
                };
                self.state
                    .find_template(&rs.api_version, &rs.kind, ns, &rs.name)
            })
            .collect();
        for t in targets {
            let before = self.owner(t);
            let mut c = std::mem::take(&mut self.claims[t]);
            let outcome = preempt_one(&self.state, p, t, &mut c);
            self.claims[t] = c;
            if matches!(outcome, PreemptOutcome::Took { .. }) {
                self.set_move(t, &before, MoveKind::Preempted);
                // The label change triggers a template reconcile: the new claimer is applied.
                self.reconcile_template(t);
            }
        }
    }

    /// Deletion (§6.1): claims released, templates re-matched, the policy gone.
    fn delete_now(&mut self, p: usize) {
        let kind = self.state.policy(p).kind;
        self.state.policy_mut(p).terminating = true;
        let owned = self.claimed_by(p);
        for &t in &owned {
            let before = self.owner(t);
            self.claims[t].release(kind);
            self.set_move(t, &before, MoveKind::Released);
        }
        self.state.remove_policy(p);
        for t in owned {
            let before = self.owner(t);
            self.reconcile_template(t);
            if self.owner(t).is_some() {
                self.set_move(t, &before, MoveKind::Matched);
                if self.last_move[t] == MoveKind::Released {
                    self.last_move[t] = MoveKind::Matched;
                }
            }
        }
    }

    /// Processes one change; rejected policies are recorded and change nothing.
    pub fn apply(&mut self, change: Change) -> Result<(), ChangeError> {
        match change {
            Change::Delete(r) => {
                let Some(p) = self.state.find_policy(&r) else {
                    return Err(ChangeError::NotFound(r));
                };
                if self.state.policy(p).spec.preserve_resources_on_deletion == Some(true) {
                    self.deleted_preserving.push(r.clone());
                }
                self.deleted.push(r.clone());
                // A template it let go and took back before the delete is held again.
                let held = self.claimed_by(p);
                self.released.retain(|(q, t)| q != &r || !held.contains(t));
                self.changed.retain(|&c| c != p);
                self.delete_now(p);
                Ok(())
            }
            Change::Apply(policy) => {
                self.apply_together(std::slice::from_ref(&policy));
                Ok(())
            }
            Change::ApplyTogether(policies) => {
                self.apply_together(&policies);
                Ok(())
            }
            Change::UpdateTemplate(entry) => {
                self.update_template(*entry);
                Ok(())
            }
        }
    }

    /// The template of `entry`'s identity takes its labels, deletion, exclusion and
    /// dependencies, and is reconciled; its claim stays the world's (a manifest in git carries
    /// none). A template the world does not hold is left to the caller (it is created).
    fn update_template(&mut self, entry: TemplateEntry) {
        let found = self.state.find_template(
            &entry.api_version,
            &entry.kind,
            &entry.namespace,
            &entry.name,
        );
        let Some(t) = found else {
            return;
        };
        let old = &mut self.state.templates[t];
        old.labels = entry.labels;
        old.terminating = entry.terminating;
        old.excluded = entry.excluded;
        old.dependencies = entry.dependencies;
        self.reconcile_template(t);
    }

    /// Stores every policy of `policies` that admission takes, then runs the policy worker
    /// over each in order (with the re-queues a lowered priority causes).
    fn apply_together(&mut self, policies: &[Policy]) {
        let mut queue: VecDeque<usize> = VecDeque::new();
        for policy in policies {
            queue.extend(self.store_policy(policy));
        }
        while let Some(q) = queue.pop_front() {
            self.policy_reconcile(q);
        }
    }

    /// Admits and stores one policy; returns the policies the worker must reconcile for it
    /// (none when admission refuses it or its spec did not change).
    fn store_policy(&mut self, policy: &Policy) -> Vec<usize> {
        let reference = policy.reference();
        let (spec, mut errors) = admit_policy(policy, self.state.options.version());
        let existing = self.state.find_policy(&reference);
        if let Some(old) = existing {
            // validateUpdate (validation-suspension-failover.md §1.1): schedulerName is immutable.
            let old = self.state.policy(old);
            let (old_name, new_name) = (&old.spec.scheduler_name, &spec.scheduler_name);
            if old.known && scheduler_name_changes(old_name.as_deref(), new_name.as_deref()) {
                errors.insert(0, SCHEDULER_NAME_IMMUTABLE.into());
            }
        }
        if !errors.is_empty() {
            self.rejected.push((reference, errors));
            return Vec::new();
        }
        let mut queue = Vec::new();
        let p = match existing {
            Some(p) => {
                let old = self.state.policy(p).clone();
                // The update handler ignores updates that leave the generation (spec) unchanged.
                if old.known && old.spec == spec && old.terminating == policy.is_terminating() {
                    self.note_changed(p);
                    return Vec::new();
                }
                let entry = PolicyEntry {
                    spec,
                    known: true,
                    doc: Some(policy.doc),
                    terminating: old.terminating || policy.is_terminating(),
                    ..old.clone()
                };
                self.state.upsert_policy(entry);
                queue.push(p);
                // §5.5: a lowered priority re-queues the preemptors in the open interval
                // (new, old), highest first (detector.go:993-1029, 1080-1117).
                let new_prio = self.state.policy(p).priority();
                let old_prio = old.priority();
                if self.state.options.gates.preemption() && old.known && new_prio < old_prio {
                    queue.extend(self.deprioritization_requeue(p, new_prio, old_prio));
                }
                p
            }
            None => {
                // CREATE: the mutating webhook writes a new permanent-id (M6).
                let id = format!("generated:{reference}");
                let p = self.state.upsert_policy(PolicyEntry {
                    kind: policy.kind,
                    namespace: reference.namespace.clone().unwrap_or_default(),
                    name: reference.name.clone(),
                    id,
                    id_generated: true,
                    spec,
                    terminating: policy.is_terminating(),
                    known: true,
                    doc: Some(policy.doc),
                });
                queue.push(p);
                p
            }
        };
        self.note_changed(p);
        queue
    }

    fn note_changed(&mut self, p: usize) {
        if !self.changed.contains(&p) {
            self.changed.push(p);
        }
    }

    /// `HandleDeprioritizedPropagationPolicy` / `...ClusterPropagationPolicy` (§5.5): same-namespace
    /// PPs (or all CPPs) with `preemption: Always` and `new < priority < old`, highest first.
    pub fn deprioritization_requeue(&self, p: usize, new: i32, old: i32) -> Vec<usize> {
        let pol = self.state.policy(p);
        let mut v: Vec<usize> = self
            .state
            .live_policies()
            .filter(|(i, q)| {
                *i != p
                    && q.kind == pol.kind
                    && (q.kind == PolicyKind::ClusterPropagationPolicy
                        || q.namespace == pol.namespace)
                    && q.known
                    && q.preemption_always()
                    && new < q.priority()
                    && q.priority() < old
            })
            .map(|(i, _)| i)
            .collect();
        // A heap ordered by descending priority; equal priorities in an unspecified order
        // (here by name, for a stable answer).
        v.sort_by(|&a, &b| {
            let (qa, qb) = (self.state.policy(a), self.state.policy(b));
            qb.priority()
                .cmp(&qa.priority())
                .then_with(|| qa.name.cmp(&qb.name))
        });
        v
    }

    /// Controller restart (§0): every policy gets an add event (informer order), then every
    /// template is reconciled; every preemptor therefore runs its pass again.
    pub fn restart(&mut self) {
        let mut order: Vec<usize> = self.state.live_policies().map(|(i, _)| i).collect();
        order.sort_by(|&a, &b| {
            let (pa, pb) = (self.state.policy(a), self.state.policy(b));
            (pa.is_pp(), &pa.namespace, &pa.name).cmp(&(pb.is_pp(), &pb.namespace, &pb.name))
        });
        for p in order {
            self.policy_reconcile(p);
        }
        for t in 0..self.claims.len() {
            self.reconcile_template(t);
        }
    }
}

/// Why a changed policy that matches a template does not own it (the preempt-check contract).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockReason {
    EqualPriority {
        holder: PolicyRef,
        ours: i32,
        theirs: i32,
        /// The policy sets `preemption: Always`.
        preempts: bool,
        /// The PropagationPolicyPreemption gate is on. With `preempts`, a higher priority
        /// alone would do; otherwise `preemptionEnabled` (pkg/detector/preemption.go:49-58)
        /// stops it before any priority is compared.
        gate: bool,
    },
    LowerPriority {
        holder: PolicyRef,
        ours: i32,
        theirs: i32,
        /// As for [`BlockReason::EqualPriority`].
        preempts: bool,
        gate: bool,
    },
    FeatureGateDisabled {
        holder: Option<PolicyRef>,
    },
    PreemptionNever {
        holder: Option<PolicyRef>,
    },
    CppCannotPreemptPp {
        holder: PolicyRef,
    },
    /// Matches by label or match-all; preemption only reaches templates a selector names.
    NotNamed {
        holder: Option<PolicyRef>,
        /// A CPP selector names the template but sets no namespace: the preemption fetch uses
        /// an empty namespace and misses a namespaced template (§5.4, inferred).
        cpp_without_namespace: bool,
    },
    Terminating,
    /// The best match (or the preemptor) waits for missing dependentOverrides.
    DependentOverridesMissing {
        policy: PolicyRef,
        missing: Vec<String>,
    },
    /// The change matched the template afresh (unclaimed, or its claim released), and the
    /// fresh match chose a better policy among those that match it (§2.3, §6.1-§6.3);
    /// preemption never changes a fresh match's result (§7, step 5).
    FreshMatch {
        winner: PolicyRef,
        why: FreshMatchWhy,
    },
    /// The claim names a policy that cannot be fetched: preemption retries.
    HolderMissing {
        holder: PolicyRef,
    },
}

impl BlockReason {
    /// The contract's reason code.
    pub fn code(&self) -> &'static str {
        match self {
            BlockReason::EqualPriority { .. } => "equal-priority",
            BlockReason::LowerPriority { .. } => "lower-priority",
            BlockReason::FeatureGateDisabled { .. } => "feature-gate-disabled",
            BlockReason::PreemptionNever { .. } => "preemption-never",
            BlockReason::CppCannotPreemptPp { .. } => "cpp-cannot-preempt-pp",
            BlockReason::NotNamed { .. } => "not-named",
            BlockReason::Terminating => "terminating",
            BlockReason::DependentOverridesMissing { .. } => "dependent-overrides-missing",
            BlockReason::FreshMatch { .. } => "fresh-match",
            BlockReason::HolderMissing { .. } => "holder-missing",
        }
    }
}

impl BlockReason {
    /// Whether it stops a takeover the policy asks for, rather than a policy simply ranking
    /// below the owner: a lower priority is said only of a policy with `preemption: Always`.
    pub fn is_takeover_blocked(&self) -> bool {
        !matches!(
            self,
            BlockReason::LowerPriority {
                preempts: false,
                ..
            }
        )
    }
}

/// Why `winner` beats `loser` in the fresh match of template `t`.
pub fn fresh_match_why(st: &State, winner: usize, loser: usize, t: usize) -> FreshMatchWhy {
    let (w, l) = (st.policy(winner), st.policy(loser));
    let target = st.templates[t].target();
    let selectors = (w.match_priority(&target), l.match_priority(&target));
    let (_, decider) = rank::compare(&w.rank_key(selectors.0), &l.rank_key(selectors.1));
    FreshMatchWhy {
        decider,
        priorities: (w.priority(), l.priority()),
        selectors,
        names: (w.name.clone(), l.name.clone()),
    }
}

/// Why policy `p` (which matches template `t`) does not own it in `world`.
pub fn block_reason(world: &World, p: usize, t: usize) -> BlockReason {
    why_not(&world.state, p, t, &world.owner(t), &|x| {
        world.claims[x].owner().is_some()
    })
}

/// Why policy `p`, which matches template `t`, does not own it when `owner` does. `claimed`
/// tells whether another template is claimed (for the overrides gate, §6.5). Checked in the
/// order that names the most fundamental blocker first: a CPP never preempts a PP (§5.3);
/// equal or lower priority never preempts (`preemption.go:128, 200`); then the switches
/// (`preemption: Always`, the gate, §5.1) and the naming requirement (§5.2, §5.4).
pub fn why_not(
    st: &State,
    p: usize,
    t: usize,
    owner: &Option<PolicyRef>,
    claimed: &dyn Fn(usize) -> bool,
) -> BlockReason {
    let pol = st.policy(p);
    let tpl = &st.templates[t];
    let named = st.names_template(p, t);
    let Some(owner) = owner.clone() else {
        // Unclaimed although p matches: the fresh winner (p or another) waits for overrides.
        let m = fresh_match(st, t);
        if let Some((w, missing)) = m.waiting_for_overrides {
            return BlockReason::DependentOverridesMissing {
                policy: st.policy(w).reference(),
                missing,
            };
        }
        return BlockReason::DependentOverridesMissing {
            policy: pol.reference(),
            missing: st.missing_overrides(p),
        };
    };
    let holder = st.find_policy(&owner);
    if pol.preemption_always() && named && tpl.terminating {
        return BlockReason::Terminating;
    }
    if !pol.is_pp() && owner.kind == PolicyKind::PropagationPolicy {
        return BlockReason::CppCannotPreemptPp { holder: owner };
    }
    let Some(h) = holder.map(|h| st.policy(h)) else {
        return BlockReason::HolderMissing { holder: owner };
    };
    if h.kind == pol.kind {
        let (ours, theirs) = (pol.priority(), h.priority());
        if ours == theirs {
            return BlockReason::EqualPriority {
                holder: owner,
                ours,
                theirs,
                preempts: pol.preemption_always(),
                gate: st.options.gates.preemption(),
            };
        }
        if ours < theirs {
            return BlockReason::LowerPriority {
                holder: owner,
                ours,
                theirs,
                preempts: pol.preemption_always(),
                gate: st.options.gates.preemption(),
            };
        }
    }
    if !pol.preemption_always() {
        return BlockReason::PreemptionNever {
            holder: Some(owner),
        };
    }
    if !st.options.gates.preemption() {
        return BlockReason::FeatureGateDisabled {
            holder: Some(owner),
        };
    }
    if !named {
        let cpp_without_namespace = !pol.is_pp()
            && !tpl.namespace.is_empty()
            && pol.spec.resource_selectors.iter().any(|rs| {
                rs.namespace.is_empty()
                    && *rs.name == *tpl.name
                    && *rs.kind == *tpl.kind
                    && *rs.api_version == *tpl.api_version
            });
        return BlockReason::NotNamed {
            holder: Some(owner),
            cpp_without_namespace,
        };
    }
    let missing = overrides_block_preemption(st, p, claimed);
    if missing.is_empty() && !h.known {
        return BlockReason::HolderMissing { holder: owner };
    }
    BlockReason::DependentOverridesMissing {
        policy: pol.reference(),
        missing,
    }
}

/// One template in the preempt-check report.
#[derive(Clone, Debug)]
pub struct ResourceChange {
    pub template: usize,
    pub before: Option<PolicyRef>,
    pub after: Option<PolicyRef>,
    pub preempted: bool,
    pub blocked_by: Vec<(PolicyRef, BlockReason)>,
}

/// The preempt-check answer.
#[derive(Clone, Debug)]
pub struct CheckReport {
    pub world: World,
    pub rejected: Vec<(PolicyRef, Vec<String>)>,
    pub resources: Vec<ResourceChange>,
    /// Templates Karmada processes (not [excluded](super::claim::Excluded)) neither moved nor
    /// matched by a changed policy.
    pub unchanged: usize,
    /// Moved templates whose member clusters receive something else after the move
    /// ([`super::check_notes::delivery_changes`]); filled by callers that have the manifests.
    pub deliveries: Vec<super::delivery::DeliveryChange>,
}

/// `preempt-check`: settle the state, process the changes in order, and report every template
/// whose owner changes and every template a changed policy matches but does not get.
///
/// A change's `before` is the claim in the input (the template's claim labels and
/// annotations), not the settled state (a template without a claim starts where it settles): deleting a policy that is already terminating in the
/// input moves its templates away from it, although the settled state had moved them already.
/// A template is reported when the changes move it from where it settles to another owner than
/// its input claim, when a changed policy cannot take it, or when its input claim names a changed
/// (or deleted) policy and differs from where it ends up.
pub fn check(state: State, changes: Vec<Change>) -> Result<CheckReport, ChangeError> {
    // Policies of the state that admission refuses are rejected too: they take no part, and the
    // report says so once, as for a refused change.
    let refused: Vec<(PolicyRef, Vec<String>)> = state
        .rejected
        .iter()
        .map(|r| (r.policy.clone(), r.errors.clone()))
        .collect();
    let mut world = World::settled(state);
    let settled: Vec<Option<PolicyRef>> = (0..world.claims.len()).map(|t| world.owner(t)).collect();
    for c in changes {
        world.apply(c)?;
    }
    let mut touched: Vec<PolicyRef> = world
        .changed
        .iter()
        .filter(|&&p| world.state.policies[p].is_some())
        .map(|&p| world.state.policy(p).reference())
        .collect();
    touched.extend(world.deleted.iter().cloned());
    let mut resources = Vec::new();
    for (t, settled_before) in settled.into_iter().enumerate() {
        // A template without a claim (manifests in git never carry one) starts from where it
        // settles: the owner Karmada would give it before the changes.
        let before = world.state.templates[t]
            .claim()
            .owner()
            .or_else(|| settled_before.clone());
        let after = world.owner(t);
        // A template the change matched afresh (no policy held it, or its claim was released,
        // §6.1-§6.3), taken by the best of the policies that match it: the others lost the
        // fresh match, whatever their preemption settings. Not one a preemptor took later.
        let fresh_winner = match &after {
            Some(owner) if world.last_move[t] == MoveKind::Matched => fresh_match(&world.state, t)
                .chosen
                .filter(|&w| world.state.policy(w).reference() == *owner),
            _ => None,
        };
        let mut blocked_by = Vec::new();
        if world.state.templates[t].excluded.is_none() {
            for &p in &world.changed {
                if world.state.policies[p].is_none() {
                    continue;
                }
                let pol = world.state.policy(p);
                if after.as_ref() == Some(&pol.reference()) {
                    continue;
                }
                if pol
                    .match_priority(&world.state.templates[t].target())
                    .matches()
                {
                    let reason = match fresh_winner {
                        Some(w) => BlockReason::FreshMatch {
                            winner: world.state.policy(w).reference(),
                            why: fresh_match_why(&world.state, w, p, t),
                        },
                        None => block_reason(&world, p, t),
                    };
                    blocked_by.push((pol.reference(), reason));
                }
            }
        }
        let claim_moves = after != before && before.as_ref().is_some_and(|b| touched.contains(b));
        // Moved from where it settles, but back to the claim it holds now: nothing changes for
        // it (a deleted preemptor that had not taken it yet, preemption.go:109-153).
        let moves = after != settled_before && after != before;
        if moves || !blocked_by.is_empty() || claim_moves {
            resources.push(ResourceChange {
                template: t,
                preempted: after != before && world.last_move[t] == MoveKind::Preempted,
                before,
                after,
                blocked_by,
            });
        }
    }
    // The templates the detector never processes (a skipped namespace, a version not served)
    // are not "other templates": no change could touch them.
    let processed = |t: usize| world.state.templates[t].excluded.is_none();
    let unchanged = (0..world.state.templates.len())
        .filter(|&t| processed(t))
        .count()
        - resources.iter().filter(|r| processed(r.template)).count();
    let mut rejected = refused;
    rejected.extend(world.rejected.iter().cloned());
    Ok(CheckReport {
        world,
        rejected,
        resources,
        unchanged,
        deliveries: Vec::new(),
    })
}

/// Templates to list: the kinds the changed policies select, before and after the change.
pub fn touched_kinds(
    policies: &crate::model::Inventory,
    applied: &[crate::model::Policy],
    changes: &[Change],
    d: &crate::source::live::Discovered,
) -> Vec<crate::source::live::ResourceType> {
    let deleted: Vec<&crate::model::PolicyRef> = changes
        .iter()
        .filter_map(|c| match c {
            Change::Delete(r) => Some(r),
            Change::Apply(_) | Change::ApplyTogether(_) | Change::UpdateTemplate(_) => None,
        })
        .collect();
    let touched = policies.policies().filter(|p| {
        let r = p.reference();
        deleted.contains(&&r) || applied.iter().any(|a| a.reference() == r)
    });
    let mut kinds = crate::model::kinds::selected_kinds(touched, d);
    for k in crate::model::kinds::selected_kinds(applied.iter(), d) {
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::state::testutil::*;
    use crate::model::Object;
    use serde_json::json;

    fn policy_of(o: Object) -> Box<Policy> {
        match o {
            Object::Policy(p) => p,
            _ => unreachable!(),
        }
    }

    fn named(prio: i32, preempt: bool) -> serde_json::Value {
        json!({"priority": prio, "preemption": if preempt {"Always"} else {"Never"},
               "resourceSelectors": [{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx"}]})
    }

    fn claimed_nginx(holder: &str) -> Object {
        let (l, a) = pp_claim("default", holder);
        let l: Vec<(&str, &str)> = l.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let a: Vec<(&str, &str)> = a.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        deploy("default", "nginx", &l, &a)
    }

    fn nginx_owner(w: &World) -> Option<PolicyRef> {
        let t = w
            .state
            .find_template("apps/v1", "Deployment", "default", "nginx")
            .unwrap();
        w.owner(t)
    }

    /// Lowering a holder from 5 to 3 requeues preemptors in (3, 5): one at 4 takes over, one
    /// at 5 (equal to the old priority) is not requeued.
    #[test]
    fn deprioritization_open_interval() {
        for (preemptor_prio, want) in [(4, "p"), (5, "holder"), (3, "holder")] {
            let st = state(
                vec![
                    claimed_nginx("holder"),
                    pp("default", "holder", named(5, false)),
                    pp("default", "p", named(preemptor_prio, true)),
                ],
                true,
            );
            let mut w = World::settled(st);
            assert_eq!(nginx_owner(&w), Some(PolicyRef::pp("default", "holder")));
            w.apply(Change::Apply(policy_of(pp(
                "default",
                "holder",
                named(3, false),
            ))))
            .unwrap();
            assert_eq!(
                nginx_owner(&w),
                Some(PolicyRef::pp("default", want)),
                "preemptor at {preemptor_prio}"
            );
        }
    }

    #[test]
    fn deprioritization_requeues_highest_first() {
        let st = state(
            vec![
                claimed_nginx("holder"),
                pp("default", "holder", named(9, false)),
                pp("default", "a", named(4, true)),
                pp("default", "b", named(7, true)),
                pp("default", "c", named(9, true)),
            ],
            true,
        );
        let w = World::settled(st);
        let holder = w
            .state
            .find_policy(&PolicyRef::pp("default", "holder"))
            .unwrap();
        let names: Vec<_> = w
            .deprioritization_requeue(holder, 1, 9)
            .into_iter()
            .map(|p| w.state.policy(p).name.clone())
            .collect();
        assert_eq!(names, vec!["b", "a"]);
    }

    #[test]
    fn new_policy_without_preemption_never_moves_a_claim() {
        let st = state(
            vec![
                claimed_nginx("holder"),
                pp("default", "holder", named(0, false)),
            ],
            true,
        );
        let r = check(
            st,
            vec![Change::Apply(policy_of(pp(
                "default",
                "better",
                named(100, false),
            )))],
        )
        .unwrap();
        assert_eq!(r.resources.len(), 1);
        assert_eq!(
            r.resources[0].after,
            Some(PolicyRef::pp("default", "holder"))
        );
        assert_eq!(r.resources[0].blocked_by[0].1.code(), "preemption-never");
    }

    /// A new policy claims waiting templates; a later, better policy without preemption does
    /// not move the claim (§4.4, §6.3).
    #[test]
    fn created_policies_claim_waiting_templates_first_come() {
        let st = state(vec![deploy("default", "nginx", &[], &[])], true);
        let r = check(
            st,
            vec![
                Change::Apply(policy_of(pp("default", "first", named(0, false)))),
                Change::Apply(policy_of(pp("default", "better", named(9, false)))),
            ],
        )
        .unwrap();
        assert_eq!(r.resources.len(), 1);
        let c = &r.resources[0];
        assert_eq!(c.before, None);
        assert_eq!(c.after, Some(PolicyRef::pp("default", "first")));
        assert!(!c.preempted);
        assert_eq!(c.blocked_by.len(), 1);
        assert_eq!(c.blocked_by[0].1.code(), "preemption-never");
    }

    /// Policies applied together (one file, one revision) are all stored before any
    /// reconcile: an unclaimed template goes to the best match among them, in either order,
    /// and the others lost the fresh match rather than being blocked (§6.3, §7 step 5).
    #[test]
    fn policies_applied_together_give_a_waiting_template_to_the_best_match() {
        let catch_all =
            json!({"resourceSelectors": [{"apiVersion":"apps/v1","kind":"Deployment"}]});
        for swapped in [false, true] {
            let st = state(vec![deploy("default", "nginx", &[], &[])], false);
            let mut together = vec![
                *policy_of(pp("default", "catch-all", catch_all.clone())),
                *policy_of(pp("default", "web", named(0, false))),
            ];
            if swapped {
                together.reverse();
            }
            let r = check(st, vec![Change::ApplyTogether(together)]).unwrap();
            let c = &r.resources[0];
            assert_eq!(
                c.after,
                Some(PolicyRef::pp("default", "web")),
                "swapped: {swapped}"
            );
            assert_eq!(c.blocked_by.len(), 1);
            let (loser, reason) = &c.blocked_by[0];
            assert_eq!(*loser, PolicyRef::pp("default", "catch-all"));
            assert_eq!(reason.code(), "fresh-match");
            let BlockReason::FreshMatch { winner, why } = reason else {
                unreachable!()
            };
            assert_eq!(*winner, PolicyRef::pp("default", "web"));
            assert_eq!(
                why.to_string(),
                "more precise selector (name beats all; both priority 0)"
            );
        }
    }

    /// A claim released in the change (its policy deleted) is matched afresh: a policy the
    /// change adds that ranks lower lost the fresh match (§6.1). One a preemptor took later, in
    /// a separate apply, says why it cannot take it back.
    #[test]
    fn a_rematch_is_a_fresh_match_and_a_later_preemption_is_not() {
        let catch_all =
            || json!({"resourceSelectors": [{"apiVersion":"apps/v1","kind":"Deployment"}]});
        let st = state(
            vec![claimed_nginx("old"), pp("default", "old", named(0, false))],
            false,
        );
        let r = check(
            st,
            vec![
                Change::Delete(PolicyRef::pp("default", "old")),
                Change::ApplyTogether(vec![
                    *policy_of(pp("default", "all", catch_all())),
                    *policy_of(pp("default", "nginx", named(0, false))),
                ]),
            ],
        )
        .unwrap();
        let c = &r.resources[0];
        assert_eq!(c.after, Some(PolicyRef::pp("default", "nginx")));
        assert_eq!(c.blocked_by[0].1.code(), "fresh-match");
        let st = state(vec![deploy("default", "nginx", &[], &[])], true);
        let r = check(
            st,
            vec![
                Change::ApplyTogether(vec![*policy_of(pp("default", "all", catch_all()))]),
                Change::ApplyTogether(vec![*policy_of(pp("default", "hi", named(5, true)))]),
            ],
        )
        .unwrap();
        let c = &r.resources[0];
        assert_eq!(c.after, Some(PolicyRef::pp("default", "hi")));
        assert!(c.preempted);
        assert_eq!(c.blocked_by[0].1.code(), "lower-priority");
    }

    #[test]
    fn cpp_selector_without_namespace_is_reported() {
        let st = state(
            vec![
                deploy(
                    "default",
                    "nginx",
                    &[("clusterpropagationpolicy.karmada.io/permanent-id", "c-id")],
                    &[("clusterpropagationpolicy.karmada.io/name", "c")],
                ),
                cpp(
                    "c",
                    json!({"priority": 1, "resourceSelectors": [{"apiVersion":"apps/v1","kind":"Deployment"}]}),
                ),
                cpp(
                    "d",
                    json!({"priority": 9, "preemption": "Always",
                    "resourceSelectors": [{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx"}]}),
                ),
            ],
            true,
        );
        let w = World::settled(st);
        let d = w.state.find_policy(&PolicyRef::cpp("d")).unwrap();
        assert_eq!(w.owner(0), Some(PolicyRef::cpp("c")));
        assert!(matches!(
            block_reason(&w, d, 0),
            BlockReason::NotNamed {
                cpp_without_namespace: true,
                ..
            }
        ));
    }

    #[test]
    fn deleting_the_claimer_rematches_without_preemption() {
        let st = state(
            vec![
                claimed_nginx("a"),
                pp("default", "a", named(0, false)),
                pp(
                    "default",
                    "b",
                    json!({"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}]}),
                ),
            ],
            false,
        );
        let r = check(st, vec![Change::Delete(PolicyRef::pp("default", "a"))]).unwrap();
        assert_eq!(r.resources.len(), 1);
        assert_eq!(r.resources[0].after, Some(PolicyRef::pp("default", "b")));
        assert!(!r.resources[0].preempted);
    }

    #[test]
    fn selector_change_releases_and_rematches() {
        let st = state(
            vec![
                claimed_nginx("a"),
                pp("default", "a", named(9, false)),
                pp(
                    "default",
                    "b",
                    json!({"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}]}),
                ),
            ],
            false,
        );
        let moved = pp(
            "default",
            "a",
            json!({"priority": 9, "resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","name":"other"}]}),
        );
        let r = check(st, vec![Change::Apply(policy_of(moved))]).unwrap();
        assert_eq!(r.resources[0].after, Some(PolicyRef::pp("default", "b")));
    }

    #[test]
    fn restart_runs_every_preemptor_again_and_agrees_with_settle() {
        let objects = vec![
            claimed_nginx("holder"),
            pp("default", "holder", named(1, false)),
            pp("default", "p", named(2, true)),
        ];
        let mut w = World {
            claims: state(objects.clone(), true)
                .templates
                .iter()
                .map(|t| t.claim().clone())
                .collect(),
            ..World::settled(state(objects.clone(), true))
        };
        assert_eq!(nginx_owner(&w), Some(PolicyRef::pp("default", "holder")));
        w.restart();
        let settled = World::settled(state(objects, true));
        assert_eq!(nginx_owner(&w), nginx_owner(&settled));
        assert_eq!(nginx_owner(&w), Some(PolicyRef::pp("default", "p")));
    }

    #[test]
    fn rejected_policy_changes_nothing() {
        let st = state(
            vec![
                claimed_nginx("holder"),
                pp("default", "holder", named(0, false)),
            ],
            true,
        );
        let bad = pp(
            "default",
            "bad",
            json!({"priority": 9, "preemption": "Always",
            "resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment"}]}),
        );
        let r = check(st, vec![Change::Apply(policy_of(bad))]).unwrap();
        assert_eq!(r.rejected.len(), 1);
        assert!(r.rejected[0].1[0].contains("name cannot be empty if preemption is Always"));
        assert!(r.resources.is_empty());
    }

    /// Deleting a policy that is already terminating in the input: its template's claim moves
    /// to the next policy, and `before` is the claim as the input has it (issue 17).
    #[test]
    fn deleting_a_terminating_claimer_reports_the_move_from_the_input_claim() {
        let mut old = policy_of(pp("default", "old", named(5, false)));
        old.meta.deletion_timestamp = Some("2026-12-01T00:00:00Z".into());
        let st = state(
            vec![
                claimed_nginx("old"),
                Object::Policy(old),
                pp("default", "next", named(1, false)),
            ],
            true,
        );
        let r = check(st, vec![Change::Delete(PolicyRef::pp("default", "old"))]).unwrap();
        assert_eq!(r.resources.len(), 1, "{:?}", r.resources);
        assert_eq!(r.resources[0].before, Some(PolicyRef::pp("default", "old")));
        assert_eq!(r.resources[0].after, Some(PolicyRef::pp("default", "next")));
    }

    /// A template Karmada never processes (in a namespace the detector skips) is not one of the
    /// "other templates" the report says no change touches.
    #[test]
    fn unchanged_counts_only_the_templates_karmada_processes() {
        let st = state(
            vec![
                deploy("default", "other", &[], &[]),
                deploy("karmada-system", "karmada-controller-manager", &[], &[]),
                deploy("default", "nginx", &[], &[]),
            ],
            true,
        );
        let p = pp("default", "p", named(0, false));
        let r = check(st, vec![Change::Apply(policy_of(p))]).unwrap();
        assert_eq!(r.resources.len(), 1, "{:?}", r.resources);
        assert_eq!(r.unchanged, 1);
    }
}
