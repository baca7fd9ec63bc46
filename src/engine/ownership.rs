//! Ownership changes of a change set (`lint --base`, rendered by `output/`): the owner of every
//! template at base and after the change is applied to a control plane that holds the base
//! (the claim engine, [`crate::engine::simulate::check`]), including the moves that do not
//! happen and why (equal priority, preemption off...). Pure over two inventories.

use std::collections::{HashMap, HashSet};

use crate::engine::simulate::{check, BlockReason, Change};
use crate::engine::state::{
    admit_policy, applied_in_turn, InTurn, Options, PolicyCopy, Prepared, State, TemplateEntry,
};
use crate::model::feature_gates::GateSet;
use crate::model::{Inventory, KarmadaVersion, Object, ObjectRef, Policy, PolicyRef};

/// A policy that matches a template but does not own it after the change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    pub policy: PolicyRef,
    pub reason: BlockReason,
}

/// One template whose owner changes, or which a changed policy would take but cannot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnershipChange {
    pub resource: ObjectRef,
    pub before: Option<PolicyRef>,
    pub after: Option<PolicyRef>,
    /// Whether the move is a preemption.
    pub preempted: bool,
    pub blocked_by: Vec<Blocked>,
    /// The environments of a GitOps repository where this change happens (`lint --base` over
    /// rendered environments; empty for plain manifests, which are one control plane).
    pub environments: Vec<String>,
    /// How many replicas each member cluster receives before and after, when that changes and
    /// the inputs have Cluster objects (`super::replica_changes`).
    pub replicas: Option<super::delivery::ReplicaShift>,
}

/// The engine's options for a lint run in the release of `gates`, the inputs taken as the
/// whole control plane (claims naming absent policies are stale).
pub fn engine_options(gates: &GateSet) -> Options {
    Options {
        gates: gates.clone(),
        filters: super::claim::Filters::of_flags(gates.flags()),
        ..Options::default()
    }
}

/// Whether two writings of one policy are the same update for Karmada: same spec once
/// admission has defaulted it (writing out `priority: 0`, `preemption: Never` or a selector's
/// namespace stores the same object as leaving them out: the CRD defaults and the mutating
/// webhook fill them in), same labels (the permanent id) and same deletion state.
fn same_policy(a: &Policy, b: &Policy, version: KarmadaVersion) -> bool {
    // The typed spec leaves out what the API server refuses (an unknown field under strict
    // validation): a version refused where the other is not is a change, which the API server
    // refuses.
    let refused = |p: &Policy| p.admission.refusal().is_some();
    if refused(a) != refused(b) {
        return false;
    }
    let same_spec = || {
        a.spec == b.spec
            || (std::mem::discriminant(&a.admission) == std::mem::discriminant(&b.admission)
                && admit_policy(a, version).0 == admit_policy(b, version).0)
    };
    a.meta.labels == b.meta.labels && a.is_terminating() == b.is_terminating() && same_spec()
}

/// One side's policies applied in turn ([`applied_in_turn`]).
struct InForce<'a> {
    /// Every copy in document order, with what applying it does (`None` when the copy is the
    /// only one of its reference).
    copies: Vec<(&'a Policy, Option<InTurn>)>,
    /// Of each reference, the copy the control plane holds: the last one stored, else the prior
    /// one it kept, else (no copy admitted) the last one.
    held: HashMap<PolicyRef, &'a Policy>,
    /// The references whose copy held is the prior one: none of this side's copies applies.
    held_from_prior: HashSet<PolicyRef>,
}

/// `policies` (one side, in document order) applied in turn over `prior` (what the control
/// plane holds before them: the base's [`InForce::held`] for the head, nothing for the base).
fn in_force<'a>(policies: &[&'a Policy], prior: &HashMap<PolicyRef, &'a Policy>) -> InForce<'a> {
    let mut by_ref: HashMap<PolicyRef, Vec<usize>> = HashMap::new();
    for (i, p) in policies.iter().enumerate() {
        by_ref.entry(p.reference()).or_default().push(i);
    }
    let copy = |p: &'a Policy, doc: usize| PolicyCopy {
        doc,
        admitted: p.admission.refusal().is_none(),
        scheduler_name: p.spec.scheduler_name.as_deref(),
    };
    let mut fates: Vec<Option<InTurn>> = vec![None; policies.len()];
    let mut held = HashMap::new();
    let mut held_from_prior = HashSet::new();
    for (reference, indexes) in by_ref {
        let before = prior.get(&reference).copied();
        let mut copies: Vec<PolicyCopy<'_>> =
            before.map(|b| copy(b, usize::MAX)).into_iter().collect();
        copies.extend(indexes.iter().map(|&i| copy(policies[i], i)));
        let mut turns = applied_in_turn(&copies);
        if before.is_some() {
            turns.remove(0);
        }
        let stored = indexes
            .iter()
            .zip(&turns)
            .filter(|(_, t)| matches!(t, InTurn::Creates | InTurn::Replaces(_)))
            .map(|(&i, _)| i)
            .next_back();
        let last = *indexes.last().expect("a reference has a copy");
        let kept = before.filter(|b| b.admission.refusal().is_none());
        let copy_held = match (stored, kept) {
            (Some(i), _) => policies[i],
            (None, Some(b)) => {
                held_from_prior.insert(reference.clone());
                b
            }
            (None, None) => policies[last],
        };
        held.insert(reference, copy_held);
        if indexes.len() > 1 || before.is_some() {
            for (&i, turn) in indexes.iter().zip(turns) {
                fates[i] = Some(turn);
            }
        }
    }
    InForce {
        copies: policies.iter().copied().zip(fates).collect(),
        held,
        held_from_prior,
    }
}

/// The ownership changes of going from `base` to `head`: the base settled as Karmada converges
/// to it, then every added or changed policy applied together (stored at once, reconciled in
/// head document order) and every removed one deleted, as successive controller events.
/// Templates only present on one side are not ownership changes (they are created or
/// deleted); a policy that matches a template without owning it is reported unless it simply
/// ranks lower than the owner.
pub fn ownership_changes(
    base: &Inventory,
    head: &Inventory,
    options: Options,
) -> Vec<OwnershipChange> {
    let delta = Delta::of(base.policies(), head.policies(), options.version());
    if delta.is_empty() {
        return Vec::new();
    }
    let scope = delta.scope();
    let head_templates: Vec<Object> = head
        .templates()
        .filter(|t| scope.covers(&t.api_version, &t.kind, t.namespace()))
        .map(|t| Object::Template(t.clone()))
        .collect();
    let head_templates = Prepared::from_objects(&options, &head_templates).templates;
    let mut changes = delta.changes(&scope.subset(base), &head_templates, options.clone());
    add_replica_changes(base, head, &mut changes, options);
    changes
}

/// Fills `replicas` of the moves and appends a "stays" change for each template whose owner
/// keeps it while its placement changes the replicas some cluster receives.
fn add_replica_changes(
    base: &Inventory,
    head: &Inventory,
    changes: &mut Vec<OwnershipChange>,
    options: Options,
) {
    use super::replica_changes::{replica_changes, Move};
    let moves: Vec<Move<'_>> = changes
        .iter()
        .map(|c| Move {
            resource: &c.resource,
            before: c.before.as_ref(),
            after: c.after.as_ref(),
        })
        .collect();
    let found = replica_changes(base, head, &moves, options);
    for (c, shift) in changes.iter_mut().zip(found.moves) {
        c.replicas = shift;
    }
    for (resource, policy, shift) in found.stays {
        changes.push(OwnershipChange {
            resource,
            before: Some(policy.clone()),
            after: Some(policy),
            preempted: false,
            blocked_by: Vec::new(),
            environments: Vec::new(),
            replicas: Some(shift),
        });
    }
}

/// The policies a change set adds or changes (head versions, in head order), the base versions
/// of the changed ones, and the removed ones (by reference).
#[derive(Clone, Debug, Default)]
pub struct Delta {
    applied: Vec<Policy>,
    touched: Vec<Policy>,
    removed: Vec<Policy>,
}

impl Delta {
    /// Every policy of each side, as the side's documents applied in turn leave it
    /// (`in_force`: of several copies of one reference, the one stored last, on both sides;
    /// copies within a side are the duplicate-identity rule's, and comparing the head's first
    /// copy with the base's last made an unchanged repository of duplicated policies a change).
    /// A head copy the API server refuses after another was stored (an update changing
    /// `schedulerName`, a copy refused on its own) is applied too, right after the copy held
    /// (whose update it is), when the base holds no such copy: applying the head fails there.
    pub fn of<'a>(
        base: impl Iterator<Item = &'a Policy>,
        head: impl Iterator<Item = &'a Policy>,
        version: KarmadaVersion,
    ) -> Delta {
        let base: Vec<&Policy> = base.collect();
        let head: Vec<&Policy> = head.collect();
        let base_in_force = in_force(&base, &HashMap::new());
        let head_in_force = in_force(&head, &base_in_force.held);
        let held_in_head = |r: &PolicyRef| !head_in_force.held_from_prior.contains(r);
        let in_base = |p: &Policy| {
            base.iter()
                .any(|b| b.reference() == p.reference() && same_policy(b, p, version))
        };
        // A refused copy the base lacks, by reference: applied right after the copy held.
        let mut refused: HashMap<PolicyRef, Vec<&Policy>> = HashMap::new();
        for (p, fate) in &head_in_force.copies {
            let refused_later = matches!(
                fate,
                Some(InTurn::UpdateRefused { .. } | InTurn::Refused { stored: Some(_) })
            );
            // One the base had fails there too, and is no change, unless the control plane
            // keeps a copy the head no longer has: then the repository's copies never apply.
            if refused_later && (!in_base(p) || !held_in_head(&p.reference())) {
                refused.entry(p.reference()).or_default().push(p);
            }
        }
        let mut delta = Delta::default();
        for (p, _) in &head_in_force.copies {
            let reference = p.reference();
            let held = head_in_force
                .held
                .get(&reference)
                .is_some_and(|h| std::ptr::eq(*h, *p));
            // The refused copies come after the copy held, or where the first of them stands
            // when the control plane keeps the base's copy.
            if !held && (held_in_head(&reference) || !refused.contains_key(&reference)) {
                continue;
            }
            let base_version = base_in_force.held.get(&reference);
            if held && !base_version.is_some_and(|b| same_policy(b, p, version)) {
                delta.applied.push((*p).clone());
                delta.touched.extend(base_version.map(|b| (*b).clone()));
            }
            for r in refused.remove(&reference).unwrap_or_default() {
                delta.applied.push(r.clone());
                delta.touched.extend(base_version.map(|b| (*b).clone()));
            }
        }
        delta.removed = base_in_force
            .held
            .into_values()
            .filter(|p| !head_in_force.held.contains_key(&p.reference()))
            .cloned()
            .collect();
        delta.removed.sort_by_key(|p| p.reference());
        delta
    }

    /// Nothing applied, nothing removed: no template can change owner.
    pub fn is_empty(&self) -> bool {
        self.applied.is_empty() && self.removed.is_empty()
    }

    /// The head versions of the added and changed policies, in head order.
    pub fn applied(&self) -> &[Policy] {
        &self.applied
    }

    /// The base versions of the changed policies.
    pub fn touched(&self) -> &[Policy] {
        &self.touched
    }

    /// The policies the head no longer has (base versions, by reference).
    pub fn removed(&self) -> &[Policy] {
        &self.removed
    }

    /// The controller events of the change set over `state` (the base): the templates of
    /// `head` whose labels changed updated first (kustomize's and Flux's apply order puts
    /// workloads, Services, ConfigMaps and Secrets before custom resources such as policies),
    /// then every added or changed policy applied together (in head order), then every removed
    /// one that `state` holds deleted.
    pub fn events(&self, state: &State, head: &[TemplateEntry]) -> Vec<Change> {
        let mut changes = template_updates(state, head);
        if !self.applied.is_empty() {
            changes.push(Change::ApplyTogether(self.applied.clone()));
        }
        changes.extend(
            self.removed
                .iter()
                .map(Policy::reference)
                .filter(|r| state.find_policy(r).is_some())
                .map(Change::Delete),
        );
        changes
    }

    /// Only templates a changed policy (either version) may select can change owner; the
    /// snapshot keeps those and the policies that may select or claim them (a claim moves only
    /// through an event of a policy that matches the template: claim-and-preemption.md §4-§6).
    pub fn scope(&self) -> Scope {
        Scope::of(
            self.applied
                .iter()
                .chain(&self.touched)
                .chain(&self.removed),
        )
    }

    /// The changes over `base_subset` (the base through `Scope::subset` of [`Delta::scope`]),
    /// reported for the templates of `head_templates` (the head's templates in that scope).
    pub fn changes(
        self,
        base_subset: &Inventory,
        head: &[TemplateEntry],
        options: Options,
    ) -> Vec<OwnershipChange> {
        if self.is_empty() {
            return Vec::new();
        }
        let head_templates: HashSet<ObjectRef> =
            head.iter().map(TemplateEntry::reference).collect();
        let state = State::from_inventory(base_subset, options);
        let changes = self.events(&state, head);
        let Ok(report) = check(state, changes) else {
            return Vec::new(); // only deletes of absent policies fail, and those were filtered
        };
        let st = &report.world.state;
        let mut out = Vec::new();
        for rc in report.resources {
            let resource = st.templates[rc.template].reference();
            if !head_templates.contains(&resource) {
                continue;
            }
            let blocked_by: Vec<Blocked> = rc
                .blocked_by
                .into_iter()
                .filter(|(_, b)| b.is_takeover_blocked())
                .map(|(policy, reason)| Blocked { policy, reason })
                .collect();
            if rc.before == rc.after && blocked_by.is_empty() {
                continue;
            }
            out.push(OwnershipChange {
                resource,
                before: rc.before,
                after: rc.after,
                preempted: rc.preempted,
                blocked_by,
                environments: Vec::new(),
                replicas: None,
            });
        }
        out
    }
}

/// The updates of the templates both `state` and `head` hold whose labels, deletion or
/// exclusion differ (what the claim engine reads of a template): `head`'s entries, in `state`'s
/// order.
pub fn template_updates(state: &State, head: &[TemplateEntry]) -> Vec<Change> {
    let mut updated: Vec<(usize, &TemplateEntry)> = head
        .iter()
        .filter_map(|h| {
            let t = state.find_template(&h.api_version, &h.kind, &h.namespace, &h.name)?;
            let b = &state.templates[t];
            let differs = b.labels != h.labels
                || b.terminating != h.terminating
                || b.excluded.is_some() != h.excluded.is_some();
            differs.then_some((t, h))
        })
        .collect();
    updated.sort_by_key(|(t, _)| *t);
    updated
        .into_iter()
        .map(|(_, h)| Change::UpdateTemplate(Box::new(h.clone())))
        .collect()
}

/// The (apiVersion, kind, namespace) space a set of policies can select: a PP only its own
/// namespace (`detector.go:382-391`), a CPP its selectors' namespace or any (`None`).
pub struct Scope {
    keys: HashMap<(String, String), Vec<Option<String>>>,
}

impl Scope {
    fn of<'a>(policies: impl Iterator<Item = &'a Policy>) -> Scope {
        let mut keys: HashMap<(String, String), Vec<Option<String>>> = HashMap::new();
        for p in policies {
            let pp_ns = p.reference().namespace;
            for rs in &p.spec.resource_selectors {
                let ns = match &pp_ns {
                    Some(ns) => Some(ns.clone()),
                    None if !rs.namespace.is_empty() => Some(rs.namespace.clone()),
                    None => None,
                };
                keys.entry((rs.api_version.clone(), rs.kind.clone()))
                    .or_default()
                    .push(ns);
            }
        }
        Scope { keys }
    }

    /// Whether a template of this apiVersion, kind and namespace (`""`: cluster-scoped) is in
    /// the scope.
    pub fn covers(&self, api_version: &str, kind: &str, namespace: &str) -> bool {
        self.keys
            .get(&(api_version.to_string(), kind.to_string()))
            .is_some_and(|v| {
                v.iter()
                    .any(|ns| ns.as_deref().is_none_or(|n| n == namespace))
            })
    }

    /// The templates in scope, every policy that may select one of them or that claims one,
    /// and all overrides, bindings and works.
    fn subset(&self, inv: &Inventory) -> Inventory {
        use crate::model::Object;
        let mut kept = Kept::default();
        let mut objects = Vec::new();
        for o in &inv.objects {
            if let Object::Template(t) = o {
                if self.covers(&t.api_version, &t.kind, t.namespace()) {
                    let claim =
                        crate::engine::claim::ClaimMeta::read(&t.meta.labels, &t.meta.annotations);
                    kept.template(&t.api_version, &t.kind, t.namespace(), &claim);
                    objects.push(o.clone());
                }
            }
        }
        for o in &inv.objects {
            match o {
                Object::Template(_) => {}
                Object::Policy(p) => {
                    if kept.selects(&p.reference(), &p.spec.resource_selectors) {
                        objects.push(o.clone());
                    }
                }
                other => objects.push(other.clone()),
            }
        }
        Inventory {
            documents: Vec::new(),
            objects,
            problems: Vec::new(),
        }
    }
}

/// What `Scope::subset` keeps of the policies, from the templates it keeps: those that may
/// select one of them or that claim one. Fed template by template, in document order.
#[derive(Default)]
pub struct Kept {
    spaces: HashMap<(String, String), HashSet<String>>,
    claimers: HashSet<PolicyRef>,
}

impl Kept {
    /// A template of the scope, and its claim keys.
    pub fn template(
        &mut self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        claim: &crate::engine::claim::ClaimMeta,
    ) {
        self.spaces
            .entry((api_version.to_string(), kind.to_string()))
            .or_default()
            .insert(namespace.to_string());
        self.claimers.extend(claim.pp_claim());
        self.claimers.extend(claim.cpp_claim());
    }

    /// Whether the policy `reference` with these selectors is kept.
    pub fn selects(
        &self,
        reference: &PolicyRef,
        selectors: &[crate::model::policy::ResourceSelector],
    ) -> bool {
        let ns = &reference.namespace;
        let selects = selectors.iter().any(|rs| {
            self.spaces
                .get(&(rs.api_version.clone(), rs.kind.clone()))
                .is_some_and(|set| ns.as_ref().is_none_or(|n| set.contains(n)))
        });
        selects || self.claimers.contains(reference)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_support::{inventory, pp};

    const NGINX: &str = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\n";

    fn gate_on() -> Options {
        engine_options(
            &GateSet::parse(Default::default(), "PropagationPolicyPreemption=true").unwrap(),
        )
    }

    /// Copies of one policy applied in turn: a later copy changing `schedulerName` is an update
    /// the webhook refuses, so the first copy is the one held. A change to that copy is planned
    /// while the refused copy, already at the base, is not; a refused copy the change adds is
    /// applied (and refused) after the held one.
    #[test]
    fn copies_of_a_policy_are_compared_as_applied_in_turn() {
        let version = KarmadaVersion::default();
        let custom = pp("a", "  schedulerName: custom\n");
        let base = inventory("a.yaml", &(pp("a", "") + &custom));
        let raised = inventory("a.yaml", &(pp("a", "  priority: 3\n") + &custom));
        let applied = |head: &Inventory| {
            let delta = Delta::of(base.policies(), head.policies(), version);
            let names = |ps: &[Policy]| -> Vec<String> {
                ps.iter()
                    .map(|p| p.spec.scheduler_name.clone().unwrap_or_default())
                    .collect()
            };
            (names(delta.applied()), names(delta.touched()))
        };
        assert!(Delta::of(base.policies(), base.policies(), version).is_empty());
        // The head drops the stored copy and keeps the refused one: the control plane keeps a
        // copy the repository no longer has, and applying the head fails.
        let only_custom = inventory("a.yaml", &custom);
        let dropped = Delta::of(base.policies(), only_custom.policies(), version);
        assert_eq!(dropped.applied().len(), 1);
        assert_eq!(
            dropped.applied()[0].spec.scheduler_name.as_deref(),
            Some("custom")
        );
        assert_eq!(applied(&raised), (vec![String::new()], vec![String::new()]));
        let only_first = inventory("a.yaml", &pp("a", ""));
        let delta = Delta::of(only_first.policies(), base.policies(), version);
        assert_eq!(delta.applied().len(), 1);
        assert_eq!(
            delta.applied()[0].spec.scheduler_name.as_deref(),
            Some("custom")
        );
        assert_eq!(
            delta.touched()[0].spec.scheduler_name,
            None,
            "the held copy is the one updated"
        );
        // A new policy written three times, the second naming another scheduler: the third
        // replaces the first and is the one created; the second, refused, comes after it.
        let three = inventory(
            "a.yaml",
            &(pp("a", "  priority: 1\n") + &custom + &pp("a", "  priority: 3\n")),
        );
        let priority_and_scheduler = |delta: &Delta| -> Vec<(Option<i32>, Option<String>)> {
            delta
                .applied()
                .iter()
                .map(|p| (p.spec.priority, p.spec.scheduler_name.clone()))
                .collect()
        };
        let created_third = [(Some(3), None), (None, Some("custom".to_string()))];
        let delta = Delta::of(std::iter::empty(), three.policies(), version);
        assert_eq!(priority_and_scheduler(&delta), created_third);
        // Over a base that stores the first copy, a head whose first copy changes the
        // scheduler: that copy is refused as an update of the base's, the second replaces the
        // base's and is the one held (planned first).
        let head = inventory("a.yaml", &(custom.clone() + &pp("a", "  priority: 3\n")));
        let delta = Delta::of(only_first.policies(), head.policies(), version);
        assert_eq!(priority_and_scheduler(&delta), created_third);
    }

    /// The shared policy removed, a per-application one added and the template relabelled for
    /// it: the claim is released with its policy and the template, matched with its new labels,
    /// is the new policy's (keiretsu-labs/kubernetes-manifests 2c343654c). Without the template
    /// update the base's labels matched nothing and the template was left unclaimed.
    #[test]
    fn a_template_relabelled_for_a_new_policy_moves_to_it() {
        let deploy = |label: &str| {
            format!("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  labels: {{{label}}}\n")
        };
        let cpp = |name: &str, label: &str| {
            format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {{name: {name}}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, labelSelector: {{matchLabels: {{{label}}}}}}}]\n")
        };
        let base = inventory(
            "a.yaml",
            &(deploy("tier: floating") + &cpp("floating", "tier: floating")),
        );
        let head = inventory("a.yaml", &(deploy("app: web") + &cpp("web", "app: web")));
        let changes = ownership_changes(&base, &head, gate_on());
        let moves: Vec<(Option<PolicyRef>, Option<PolicyRef>)> =
            changes.into_iter().map(|c| (c.before, c.after)).collect();
        assert_eq!(
            moves,
            [(
                Some(PolicyRef::cpp("floating")),
                Some(PolicyRef::cpp("web"))
            )]
        );
        // The template relabelled while its policy stays: the claim is kept (the detector's
        // update handler keeps a claim whose policy no longer matches), so nothing moves.
        let head = inventory(
            "a.yaml",
            &(deploy("app: web") + &cpp("floating", "tier: floating") + &cpp("web", "app: web")),
        );
        let moves: Vec<_> = ownership_changes(&base, &head, gate_on())
            .into_iter()
            .filter(|c| c.before != c.after)
            .collect();
        assert!(moves.is_empty(), "{moves:?}");
    }

    /// chaosi-zju/karmada-demo keeps copies of its policies in several files: `lint --base` of
    /// the unchanged repository listed 23 "changes" (each the head's first copy against the
    /// base's last). The last copy of each side is what the control plane holds.
    #[test]
    fn copies_within_an_unchanged_side_change_nothing() {
        // b's first copy differs from its last: compared with the base's last, it was applied
        // again as a change of an unchanged side.
        let b = "  priority: 2\n  preemption: Always\n";
        let text = format!(
            "{NGINX}{}{}{}",
            pp("a", "  priority: 2\n"),
            pp("b", &format!("{b}  schedulerName: other\n")),
            pp("b", b)
        );
        let base = inventory("b.yaml", &text);
        let head = inventory("h.yaml", &text);
        let version = KarmadaVersion::LATEST;
        assert!(Delta::of(base.policies(), head.policies(), version).is_empty());
        assert!(ownership_changes(&base, &head, gate_on()).is_empty());
    }

    /// Writing out what admission fills in stores the same object (jittuki/Karmada-project
    /// a0eab47): `priority: 0`, `preemption: Never` and `conflictResolution: Abort` are CRD
    /// defaults (`propagation_types.go`), a selector's namespace is the policy's own when unset
    /// (the mutating webhook, `pkg/webhook/propagationpolicy/mutating.go`). A real change is
    /// still one.
    #[test]
    fn writing_out_admission_defaults_is_no_change() {
        let base = inventory("b.yaml", &format!("{NGINX}{}", pp("a", "")));
        let explicit = pp(
            "a",
            "  priority: 0\n  preemption: Never\n  conflictResolution: Abort\n",
        )
        .replace(
            "      name: nginx\n",
            "      name: nginx\n      namespace: default\n",
        );
        let head = inventory("h.yaml", &format!("{NGINX}{explicit}"));
        let version = KarmadaVersion::LATEST;
        assert_ne!(
            base.policies().next().unwrap().spec,
            head.policies().next().unwrap().spec
        );
        assert!(Delta::of(base.policies(), head.policies(), version).is_empty());
        let raised = inventory("h.yaml", &format!("{NGINX}{}", pp("a", "  priority: 1\n")));
        assert!(!Delta::of(base.policies(), raised.policies(), version).is_empty());
    }

    #[test]
    fn raised_priority_with_preemption_moves_the_template() {
        let base = inventory(
            "b.yaml",
            &format!(
                "{NGINX}{}{}",
                pp("a", "  priority: 5\n"),
                pp("b", "  priority: 1\n  preemption: Always\n")
            ),
        );
        let head = inventory(
            "h.yaml",
            &format!(
                "{NGINX}{}{}",
                pp("a", "  priority: 5\n"),
                pp("b", "  priority: 10\n  preemption: Always\n")
            ),
        );
        let changes = ownership_changes(&base, &head, gate_on());
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].before, Some(PolicyRef::pp("default", "a")));
        assert_eq!(changes[0].after, Some(PolicyRef::pp("default", "b")));
        assert!(changes[0].preempted);
    }

    #[test]
    fn equal_priority_preemptor_is_reported_blocked() {
        let base = inventory("b.yaml", &format!("{NGINX}{}", pp("a", "  priority: 5\n")));
        let head = inventory(
            "h.yaml",
            &format!(
                "{NGINX}{}{}",
                pp("a", "  priority: 5\n"),
                pp("b", "  priority: 5\n  preemption: Always\n")
            ),
        );
        let changes = ownership_changes(&base, &head, gate_on());
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].after, Some(PolicyRef::pp("default", "a")));
        assert_eq!(changes[0].blocked_by[0].reason.code(), "equal-priority");
        // Nothing changed: nothing to report.
        assert!(ownership_changes(&base, &base, gate_on()).is_empty());
    }

    #[test]
    fn deleting_the_owner_hands_the_template_over_and_unrelated_templates_stay_out() {
        let cpp = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: all\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n";
        let other =
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: other\n";
        let base = inventory(
            "b.yaml",
            &format!("{NGINX}{other}{cpp}{}", pp("a", "  priority: 5\n")),
        );
        let head = inventory("h.yaml", &format!("{NGINX}{other}{cpp}"));
        let changes = ownership_changes(&base, &head, gate_on());
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].before, Some(PolicyRef::pp("default", "a")));
        assert_eq!(changes[0].after, Some(PolicyRef::cpp("all")));
        assert!(!changes[0].preempted);
        let scope = Scope::of(base.policies().filter(|p| p.meta.name == "a"));
        let kept = scope.subset(&base);
        assert_eq!(kept.templates().count(), 1, "the ConfigMap is out of scope");
        assert_eq!(kept.policies().count(), 2, "the CPP may select nginx");
    }
}
