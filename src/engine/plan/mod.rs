//! `plan`: what going from one state of a control plane to another does to the fleet, before
//! it happens. The two states are inventories (a base revision and the working tree, or the
//! live control plane and the files applied to it); the answer is, for one control plane:
//! the policies added, changed and removed with their admission verdict; every template whose
//! owner changes and why, or that a changed policy matches but does not get and why; per member
//! cluster, the templates it gains and loses, the replicas, the manifest fields the overrides
//! change and the dispatching suspended or resumed; and the hazards of the change.
//!
//! The owners come from the claim engine: the base settled as Karmada converges to it, then the
//! changed policies applied and the removed ones deleted as successive controller events
//! ([`crate::engine::simulate::check`]), then the created templates reconciled. What each
//! cluster receives comes from the owner's placement (`placement`) and the override chain
//! (`overrides`), or, for the live base, from the binding's schedule. Pure: no I/O.

pub mod hazards;
pub mod scope;
pub mod share;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use crate::engine::dependencies::Carriers;
use crate::engine::ownership::Blocked;
use crate::engine::reconcile::template_reconcile;
use crate::engine::replicas::CapacitySource;
use crate::engine::simulate::{check, BlockReason, CheckReport, MoveKind, ResourceChange};
use crate::engine::state::{admit_policy, Options, Prepared, State};
use crate::model::{Inventory, Object, ObjectRef, OverridePolicy, Policy, PolicyRef};

pub use hazards::Hazard;
use scope::{subset, Changed, Subset};
use share::{compare, Delivered, Pair, SideView};

/// The cluster name standing for "every cluster the placement selects" when the inputs have
/// no Cluster objects to evaluate its selectors against.
pub const ANY_CLUSTER: &str = "*";

/// The two states. Plain files of a git revision share most of their files with the working
/// tree: those are read once, as `shared`, and belong to both states.
#[derive(Clone, Copy)]
pub struct Sides<'a> {
    pub shared: Option<&'a Inventory>,
    pub base: &'a Inventory,
    pub head: &'a Inventory,
}

impl<'a> Sides<'a> {
    /// Two whole states.
    pub fn whole(base: &'a Inventory, head: &'a Inventory) -> Sides<'a> {
        Sides {
            shared: None,
            base,
            head,
        }
    }

    fn base_parts(&self) -> Vec<&'a Inventory> {
        self.shared.into_iter().chain([self.base]).collect()
    }

    fn head_parts(&self) -> Vec<&'a Inventory> {
        self.shared.into_iter().chain([self.head]).collect()
    }
}

/// How the states are read.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// The engine's options (release, gates, claims naming absent policies).
    pub options: Options,
    /// The base is the live control plane: its bindings say where each template is now.
    pub live: bool,
}

/// How a policy or override differs between the states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Edit {
    Added,
    Changed,
    Removed,
}

impl Edit {
    pub fn as_str(self) -> &'static str {
        match self {
            Edit::Added => "added",
            Edit::Changed => "changed",
            Edit::Removed => "removed",
        }
    }
}

/// A PropagationPolicy or ClusterPropagationPolicy added, changed or removed. `refused`: the
/// admission chain's errors on the head version (the base version for a removed one); a
/// refused policy is never stored, so it takes no part, and a refused update leaves the stored
/// version in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyEdit {
    pub policy: PolicyRef,
    pub edit: Edit,
    pub refused: Vec<String>,
    /// A changed policy whose base version admission let through: stored, it stays in place
    /// when the update is refused.
    pub stored: bool,
}

impl PolicyEdit {
    /// What a refusal means for the control plane, said after "refused by admission".
    pub fn refusal_effect(&self) -> &'static str {
        if self.stored {
            "the stored version stays"
        } else {
            "takes no part"
        }
    }
}

/// An OverridePolicy or ClusterOverridePolicy added, changed or removed. `refused`: the
/// admission chain's errors on the head version of an added or changed one, which is then
/// never stored and overrides nothing (a refused update leaves the stored version in place).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideEdit {
    pub cluster_scoped: bool,
    pub namespace: Option<String>,
    pub name: String,
    pub edit: Edit,
    pub refused: Vec<String>,
    /// A changed one whose base version admission let through.
    pub stored: bool,
}

impl OverrideEdit {
    /// As a plan names it: `op/NAMESPACE/NAME` or `cop/NAME`.
    pub fn short_name(&self) -> String {
        let short = if self.cluster_scoped { "cop" } else { "op" };
        match &self.namespace {
            Some(ns) if !self.cluster_scoped => format!("{short}/{ns}/{}", self.name),
            _ => format!("{short}/{}", self.name),
        }
    }

    /// What a refusal means for the control plane, said after "refused by admission".
    pub fn refusal_effect(&self) -> &'static str {
        if self.stored {
            "the stored version stays"
        } else {
            "overrides nothing"
        }
    }

    pub fn kind(&self) -> &'static str {
        if self.cluster_scoped {
            "ClusterOverridePolicy"
        } else {
            "OverridePolicy"
        }
    }
}

/// Why a template's owner changes, or that it does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnerMove {
    Unchanged,
    /// A new template: the best policy claims it (claim-and-preemption.md §3).
    Created,
    /// The template is removed: its binding and Works go with it.
    Deleted,
    /// An unclaimed template claimed by a new or changed policy (§6.3).
    Claimed,
    /// Taken by a preemptor (§5).
    Preempted,
    /// The owner lets it go and no policy takes it.
    Released(Cause),
    /// The owner lets it go and another policy takes it.
    Rematched(Cause),
}

/// Why an owner lets a template go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The policy is removed (§6.1).
    PolicyRemoved,
    /// The policy's selectors no longer match it (§6.2).
    SelectorsChanged,
    /// Anything else (a claim naming a policy that is gone).
    Other,
}

/// One member cluster's share of a template in one state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Share {
    /// It receives the template; with `undecided`, it is among the clusters the scheduler
    /// picks from and may receive it.
    pub receives: bool,
    /// Without Cluster objects, the placement names the cluster but picks among the named
    /// ones by their state (a spread constraint, a division by capacity): whether this one
    /// receives the template is the scheduler's choice ([`crate::engine::placement::decided_by_names`]).
    pub undecided: bool,
    /// Replicas, where both states know them.
    pub replicas: Option<i64>,
    pub suspended: bool,
    /// Why the override chain writes no Work for the cluster.
    pub error: Option<String>,
}

/// One changed field of the manifest a cluster receives (a JSON Pointer).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldChange {
    pub path: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// A member cluster whose share of a template changes.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterDelta {
    pub cluster: String,
    pub before: Share,
    pub after: Share,
    pub manifest: Vec<FieldChange>,
    /// For [`ANY_CLUSTER`]: the clusters the other side names, which are among every selected
    /// cluster and are reported on their own (a placement of every cluster narrowed to `dc1`:
    /// every selected cluster but dc1 loses the template, dc1 keeps it).
    pub except: Vec<String>,
}

impl ClusterDelta {
    /// Whether either side only may hold the template (a candidate, [`Share::undecided`]).
    pub fn undecided(&self) -> bool {
        self.before.undecided || self.after.undecided
    }
}

/// One template the change reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplatePlan {
    pub template: ObjectRef,
    pub before: Option<PolicyRef>,
    pub after: Option<PolicyRef>,
    pub moved: OwnerMove,
    /// Changed policies that match it but do not get it, and why.
    pub blocked_by: Vec<Blocked>,
    /// The template keeps its binding without a policy: the member clusters keep what they
    /// have, and the override chain still renders it.
    pub orphaned: bool,
    /// The workloads that carry it along as a dependency after the change (their owner sets
    /// `propagateDeps`, [`crate::engine::dependencies::required_by`]): released by its policy,
    /// it stays propagated through the attached binding, and its changes still reach them.
    pub carried_by: Vec<ObjectRef>,
    /// The owner before sets `preserveResourcesOnDeletion`: a cluster that loses the template
    /// keeps its copy (the Work carries the flag, `execution_controller.go` `handleWorkDelete`).
    pub preserved: bool,
    pub clusters: Vec<ClusterDelta>,
    /// Clusters the new placement selects but the scheduler's filters exclude, and why; the
    /// scheduler's error when no cluster fits.
    pub excluded: Vec<(String, String)>,
    pub unschedulable: Option<String>,
    /// The replicas per cluster the scheduler gives under the other tie-break: Webster's ties
    /// follow the template's uid (`tieBreakerByUID`, pkg/util/helper/binding.go), which a
    /// manifest in git does not carry. Empty when the uid decides nothing.
    pub replicas_otherwise: Vec<(String, i64)>,
    /// The same before the change: a rescale from 3 to 2 over equal weights takes a replica
    /// from the cluster the uid gave 2, which may be either.
    pub replicas_otherwise_before: Vec<(String, i64)>,
    /// A Namespace karmada-controller-manager's namespace controller copies to every member
    /// cluster, whatever policy owns it or none (pkg/controllers/namespace).
    pub namespace_controller: bool,
    /// The owner after the change is `activationPreference: Lazy` and the change reaches the
    /// template through its policies only: Karmada claims it but refreshes the binding from
    /// the policy only when the template itself is next updated (`ApplyPolicy` returns before
    /// `BuildResourceBinding` when `ResourceChangeByKarmada` and the policy is Lazy,
    /// pkg/detector/detector.go). Until then the binding keeps the clusters it has (a template
    /// no binding held gets none); the clusters listed are where it goes then.
    pub lazy: bool,
    /// Why the clusters a side may send it to are candidates (`undecided`): the side after the
    /// change's reason where it has candidates, else the side before's.
    pub undecided_by: UndecidedBy,
}

/// Why the scheduler's choice among some clusters is not known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UndecidedBy {
    /// No Cluster objects: the placement's labels, or the clusters' state, pick among the
    /// clusters it selects or names.
    #[default]
    NoClusterObjects,
    /// The Cluster objects do not declare what the scheduler picks among them by (their
    /// available replicas, where they have no `status.resourceSummary`; or a score this tool
    /// does not model).
    UndeclaredState,
    /// Webster's ties follow the template's uid, which the manifest does not carry
    /// (`tieBreakerByUID`, pkg/util/helper/binding.go): each tie-break gives other clusters.
    UidTie,
    /// The schedule before the change fails without a FitError, so the binding holds the
    /// clusters an earlier schedule gave it ([`share::Delivered::held_unknown`]), which the
    /// inputs do not show.
    EarlierSchedule,
}

/// Where a template goes on each side, as [`Run::clusters`] compares them.
struct Shares {
    /// The member clusters whose share changes.
    deltas: Vec<ClusterDelta>,
    /// The shares before under the other tie-break.
    was_otherwise: Vec<(String, i64)>,
    /// What the template gets after.
    now: Delivered,
    /// [`TemplatePlan::undecided_by`].
    undecided_by: UndecidedBy,
    /// The schedule after the change fails, and not as the one before did: worth reporting
    /// even where the binding keeps its clusters.
    failed_anew: bool,
}

/// The plan of one control plane (one environment).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EnvPlan {
    pub policies: Vec<PolicyEdit>,
    pub overrides: Vec<OverrideEdit>,
    pub changes: Vec<TemplatePlan>,
    pub hazards: Vec<Hazard>,
}

/// One line of a plan's list of policies: a policy's or an override policy's edit, named
/// (`pp/NS/NAME`, `op/NS/NAME`), with admission's refusal and what it means.
pub struct EditLine<'a> {
    pub edit: Edit,
    pub name: String,
    pub refused: &'a [String],
    pub effect: &'static str,
}

impl EnvPlan {
    /// The policies' edits, then the override policies', as the plan lists them.
    pub fn edit_lines(&self) -> impl Iterator<Item = EditLine<'_>> {
        let policies = self.policies.iter().map(|e| EditLine {
            edit: e.edit,
            name: e.policy.to_string(),
            refused: &e.refused,
            effect: e.refusal_effect(),
        });
        let overrides = self.overrides.iter().map(|o| EditLine {
            edit: o.edit,
            name: o.short_name(),
            refused: &o.refused,
            effect: o.refusal_effect(),
        });
        policies.chain(overrides)
    }

    /// Whether the change does anything Karmada acts on.
    pub fn has_changes(&self) -> bool {
        !self.policies.is_empty() || !self.overrides.is_empty() || !self.changes.is_empty()
    }
}

/// The plan of going from `sides.base` to `sides.head`.
pub fn plan(sides: &Sides<'_>, settings: &Settings) -> EnvPlan {
    let changed = Changed::of(sides, settings);
    if changed.is_empty() {
        return EnvPlan::default();
    }
    let (base_parts, head_parts) = (sides.base_parts(), sides.head_parts());
    let coverage = changed
        .coverage()
        .with_dependencies(&[&base_parts, &head_parts])
        .with_carriers(&[&base_parts, &head_parts]);
    let kept = scope::kept(&[&base_parts, &head_parts], &coverage);
    let base = subset(&base_parts, &coverage, &kept);
    let head = subset(&head_parts, &coverage, &kept);
    let before = State::from_inventory(&base.inventory, settings.options.clone());
    let events = changed.delta.events(
        &before,
        &updated_templates(&head, &changed, &settings.options),
    );
    let Ok(mut report) = check(before.clone(), events) else {
        return EnvPlan::default(); // only deletes of absent policies fail, and none is asked
    };
    let created = reconcile_created(&mut report, &head, &changed.created, &settings.options);
    let mut views = Views::of(&before, &report.world.state, &base, &head, &changed);
    views.live = settings.live;
    let run = Run {
        changed: &changed,
        report: &report,
        base: &base,
        head: &head,
        settings,
        created,
    };
    let changes = run.template_plans(&views.before(), &views.after());
    let in_turn = policy_edits(&changed, settings.options.version());
    let overrides: Vec<OverrideEdit> = changed
        .overrides
        .iter()
        .map(|(e, _, _)| e.clone())
        .collect();
    // Every copy applied is judged (a later copy refused is a failed apply), each policy
    // listed once.
    let mut hazards = hazards::refused(&in_turn, &overrides);
    let policies = one_edit_per_policy(in_turn);
    hazards.extend(run.hazards(&before, &changes));
    EnvPlan {
        policies,
        overrides,
        changes,
        hazards,
    }
}

/// The head's entries of the templates both sides hold (the events take those whose labels
/// changed: [`crate::engine::ownership::template_updates`]).
fn updated_templates(
    head: &Subset<'_>,
    changed: &Changed<'_>,
    options: &Options,
) -> Vec<crate::engine::state::TemplateEntry> {
    let objects: Vec<Object> = head
        .inventory
        .templates()
        .filter(|t| !changed.created.contains(&t.reference()))
        .map(|t| Object::Template(t.clone()))
        .collect();
    Prepared::from_objects(options, &objects).templates
}

/// The templates only at head, added to the world after the policy events and reconciled as
/// the detector does a new template (a fresh match). Their slots, first to last.
fn reconcile_created(
    report: &mut CheckReport,
    head: &Subset<'_>,
    created: &HashSet<ObjectRef>,
    options: &Options,
) -> std::ops::Range<usize> {
    let world = &mut report.world;
    let first = world.state.templates.len();
    let objects: Vec<Object> = head
        .inventory
        .templates()
        .filter(|t| created.contains(&t.reference()))
        .map(|t| Object::Template(t.clone()))
        .collect();
    for entry in Prepared::from_objects(options, &objects).templates {
        let t = world.state.add_template(entry);
        if t == world.claims.len() {
            world.claims.push(Default::default());
            world.last_move.push(MoveKind::None);
        }
        let mut claim = std::mem::take(&mut world.claims[t]);
        template_reconcile(&world.state, t, &mut claim);
        world.claims[t] = claim;
    }
    first..world.state.templates.len()
}

/// The override policies the control plane holds after the change: the head's that admission
/// lets through, and where it refuses the head's version of one, the base's stored version (a
/// refused update leaves it in place, as it leaves a policy's).
fn overrides_after<'a>(base: &'a Inventory, head: &'a Inventory) -> Vec<&'a OverridePolicy> {
    let mut out = head.stored_overrides();
    let refused: Vec<_> = head
        .applied_overrides()
        .into_iter()
        .filter(|op| op.admission.refusal().is_some())
        .map(OverridePolicy::identity)
        .collect();
    for stored in base.stored_overrides() {
        let id = stored.identity();
        if refused.contains(&id) && !out.iter().any(|o| o.identity() == id) {
            out.push(stored);
        }
    }
    out
}

/// What the deliveries of each state read.
struct Views<'a> {
    before: &'a State,
    after: &'a State,
    base_clusters: &'a [crate::model::cluster::Cluster],
    head_clusters: &'a [crate::model::cluster::Cluster],
    base_overrides: Vec<&'a OverridePolicy>,
    head_overrides: Vec<&'a OverridePolicy>,
    bindings: Vec<&'a crate::model::binding::Binding>,
    /// The workloads of each state by the dependencies they name.
    carriers: (Carriers, Carriers),
    /// The base is the control plane (its Clusters' status is what the scheduler reads).
    live: bool,
}

impl<'a> Views<'a> {
    fn of(
        before: &'a State,
        after: &'a State,
        base: &'a Subset<'_>,
        head: &'a Subset<'_>,
        changed: &'a Changed<'_>,
    ) -> Views<'a> {
        Views {
            before,
            after,
            base_clusters: &changed.base_clusters,
            head_clusters: &changed.head_clusters,
            base_overrides: base.inventory.stored_overrides(),
            head_overrides: overrides_after(&base.inventory, &head.inventory),
            bindings: base.inventory.bindings().collect(),
            carriers: (Carriers::of(before), Carriers::of(after)),
            live: false,
        }
    }

    /// What a missing `status.resourceSummary` means: the control plane's Clusters are what
    /// the scheduler reads (0 replicas), files' Clusters a missing input.
    fn capacity(&self) -> CapacitySource {
        if self.live {
            CapacitySource::Live
        } else {
            CapacitySource::Declared
        }
    }

    fn before(&self) -> SideView<'_> {
        SideView {
            state: self.before,
            clusters: self.base_clusters,
            overrides: &self.base_overrides,
            bindings: &self.bindings,
            capacity: self.capacity(),
            carriers: &self.carriers.0,
        }
    }

    fn after(&self) -> SideView<'_> {
        SideView {
            state: self.after,
            clusters: self.head_clusters,
            overrides: &self.head_overrides,
            bindings: &[],
            capacity: self.capacity(),
            carriers: &self.carriers.1,
        }
    }
}

/// One plan's inputs, once computed.
struct Run<'a> {
    changed: &'a Changed<'a>,
    report: &'a CheckReport,
    base: &'a Subset<'a>,
    head: &'a Subset<'a>,
    settings: &'a Settings,
    created: std::ops::Range<usize>,
}

impl Run<'_> {
    /// Every template the change reaches, in the order of the world's slots.
    fn template_plans(&self, before: &SideView<'_>, after: &SideView<'_>) -> Vec<TemplatePlan> {
        let st = &self.report.world.state;
        let reported: BTreeMap<usize, &ResourceChange> = self
            .report
            .resources
            .iter()
            .map(|r| (r.template, r))
            .collect();
        let mut out = Vec::new();
        for t in 0..st.templates.len() {
            let r = st.templates[t].reference();
            let Some(template) = self.head.manifest(&r).or_else(|| self.base.manifest(&r)) else {
                continue;
            };
            // Where the template is before: the base's manifest (its replicas), where it has one.
            let base_manifest = self.base.manifest(&r);
            let unchanged = base_manifest.as_ref() == Some(&template);
            let was = base_manifest.unwrap_or_else(|| template.clone());
            let mut plan = self.owners(t, &r, reported.get(&t).copied(), after);
            plan.preserved = before.preserves(plan.before.as_ref());
            plan.lazy = self.lazy_deferred(t, &plan, unchanged);
            let Shares {
                deltas,
                was_otherwise,
                now,
                undecided_by,
                failed_anew,
            } = self.clusters(t, &plan, (&was, &template), before, after);
            plan.clusters = deltas;
            plan.replicas_otherwise_before = was_otherwise;
            plan.undecided_by = undecided_by;
            plan.excluded = now.excluded;
            plan.unschedulable = now.error;
            plan.replicas_otherwise = now.otherwise;
            if plan.before != plan.after
                || !plan.blocked_by.is_empty()
                || !plan.clusters.is_empty()
                || failed_anew
            {
                out.push(plan);
            }
        }
        out
    }

    /// The owners of template `t` before and after, and why they differ.
    /// `now`: the world's state as the deliveries read it.
    fn owners(
        &self,
        t: usize,
        r: &ObjectRef,
        reported: Option<&ResourceChange>,
        now: &SideView<'_>,
    ) -> TemplatePlan {
        let world = &self.report.world;
        let created = self.created.contains(&t);
        let deleted = self.changed.deleted.contains(r);
        let (before, after, preempted, blocked) = match reported {
            Some(c) => (
                c.before.clone(),
                c.after.clone(),
                c.preempted,
                blocked(&c.blocked_by),
            ),
            None => (world.owner(t), world.owner(t), false, Vec::new()),
        };
        let before = if created { None } else { before };
        let after = if deleted { None } else { after };
        let moved = if created {
            OwnerMove::Created
        } else if deleted {
            OwnerMove::Deleted
        } else {
            self.owner_move(t, before.as_ref(), after.as_ref(), preempted)
        };
        let carried_by = if after.is_none() && !deleted {
            now.carriers
                .required_by(&world.state, t)
                .into_iter()
                .map(|r| r.workload)
                .collect()
        } else {
            Vec::new()
        };
        // A Namespace the namespace controller copies everywhere stays on every member cluster
        // and up to date without an owner.
        let synced = crate::engine::namespace_sync::synced(&world.state, &world.state.templates[t]);
        TemplatePlan {
            template: r.clone(),
            orphaned: before.is_some() && after.is_none() && !deleted && !synced,
            carried_by,
            before,
            after,
            moved,
            blocked_by: blocked,
            preserved: false,
            clusters: Vec::new(),
            excluded: Vec::new(),
            unschedulable: None,
            replicas_otherwise: Vec::new(),
            replicas_otherwise_before: Vec::new(),
            namespace_controller: synced,
            lazy: false,
            undecided_by: UndecidedBy::default(),
        }
    }

    /// Whether the binding of template `t` waits for the template's next update
    /// ([`TemplatePlan::lazy`]): its owner after is Lazy, the change moves it or changes that
    /// policy, and the change leaves the template itself as it was (an update by the user
    /// builds the binding whatever the policy's preference).
    fn lazy_deferred(&self, t: usize, plan: &TemplatePlan, unchanged: bool) -> bool {
        let Some(after) = &plan.after else {
            return false;
        };
        let st = &self.report.world.state;
        let lazy = st
            .find_policy(after)
            .is_some_and(|p| st.policy(p).spec.lazy());
        let policy_changed = plan.before != plan.after
            || self
                .changed
                .delta
                .applied()
                .iter()
                .any(|p| p.reference() == *after);
        lazy && policy_changed && unchanged && !self.created.contains(&t)
    }

    fn owner_move(
        &self,
        t: usize,
        before: Option<&PolicyRef>,
        after: Option<&PolicyRef>,
        preempted: bool,
    ) -> OwnerMove {
        if before == after {
            return OwnerMove::Unchanged;
        }
        if preempted {
            return OwnerMove::Preempted;
        }
        let Some(b) = before else {
            return OwnerMove::Claimed;
        };
        let st = &self.report.world.state;
        let cause = if self.report.world.deleted.contains(b) {
            Cause::PolicyRemoved
        } else if st.find_policy(b).is_some_and(|p| {
            !st.policy(p)
                .match_priority(&st.templates[t].target())
                .matches()
        }) {
            Cause::SelectorsChanged
        } else {
            Cause::Other
        };
        match after {
            Some(_) => OwnerMove::Rematched(cause),
            None => OwnerMove::Released(cause),
        }
    }

    /// The member clusters whose share of template `t` changes; `templates`: its manifest
    /// before and after (the manifests' fields are compared on the one after, so that only what
    /// overrides change shows). With them, the shares before under the other tie-break
    /// ([`TemplatePlan::replicas_otherwise_before`]) and what the template gets after.
    fn clusters(
        &self,
        t: usize,
        plan: &TemplatePlan,
        templates: (&Value, &Value),
        before: &SideView<'_>,
        after: &SideView<'_>,
    ) -> Shares {
        let (base_template, template) = templates;
        let entry = &self.report.world.state.templates[t];
        // A Namespace the namespace controller copies is on every member cluster while it
        // exists, whoever owns it ([`Run::owners`] found it so).
        let synced = plan.namespace_controller;
        // Where its own binding puts it (`was_own`), and with the clusters of the workloads that
        // carry it along (`was`).
        let (was_own, was) = if synced && plan.moved != OwnerMove::Created {
            let everywhere = before.everywhere();
            (everywhere.clone(), everywhere)
        } else if plan.moved == OwnerMove::Created {
            (Delivered::default(), Delivered::default())
        } else {
            let own = before
                .delivered(
                    entry,
                    base_template,
                    plan.before.as_ref(),
                    self.settings.live,
                )
                .held_unknown();
            let carried = self.carried(&plan.template, before, self.base);
            (own.clone(), with_carriers(own, carried))
        };
        // A binding that keeps its schedule still goes where its carriers go after the change
        // (the binding controller merges their clusters on each sync).
        let carried_after = || self.carried(&plan.template, after, self.head);
        // A change of the template's replicas is a rescale: the scheduler assigns again
        // (`scheduler.go` `doScheduleBinding`: replicas changed, not only the placement).
        let replicas = crate::engine::replicas::workload::replicas_of;
        let rescaled = replicas(base_template) != replicas(template);
        // The binding keeps its clusters, under the suspension `from` gives it.
        let stays = |from: Delivered| {
            let own = Delivered {
                suspended: from.suspended,
                suspension: from.suspension,
                excluded: Vec::new(),
                error: None,
                ..was_own.clone()
            };
            with_carriers(own, carried_after())
        };
        // Whether the scheduler takes the binding again (else it keeps its schedule): not when
        // orphaned, nor when its placement and replicas stay, whichever policy owns it.
        let scheduled_again =
            !plan.orphaned && (rescaled || !self.keeps_schedule(plan, before, after));
        let unserved = after
            .unserved_scheduler(plan.after.as_ref())
            .filter(|_| !was.targets.is_empty());
        // The schedule after the change fails where the one before did not, or otherwise.
        let mut failed_anew = false;
        let now = if plan.moved == OwnerMove::Deleted {
            Delivered::default()
        } else if synced {
            after.everywhere()
        } else if plan.orphaned {
            // The binding stays as it was: same clusters, same suspension.
            stays(was_own.clone())
        } else if !scheduled_again && (plan.before == plan.after || unserved.is_none()) {
            stays(after.delivered(entry, template, plan.after.as_ref(), false))
        } else if let Some(name) = unserved {
            // Claimed anew by a policy no scheduler serves: the detector rebuilds the binding
            // but keeps its clusters, the scheduling result (detector.go
            // `BuildResourceBinding` callers keep `Spec.Clusters`), and no scheduler takes it
            // again: the template stays where it is.
            Delivered {
                error: Some(format!(
                    "no karmada-scheduler of this control plane serves schedulerName `{name}`: the binding keeps the clusters it was scheduled to"
                )),
                ..stays(was_own.clone())
            }
        } else {
            let own = after.delivered(entry, template, plan.after.as_ref(), false);
            failed_anew = own.error.is_some() && own.error != was_own.error;
            if own.error_keeps_previous {
                // No FitError: the scheduler returns before patching the binding
                // (pkg/scheduler/scheduler.go `scheduleResourceBindingWithClusterAffinity`).
                let kept = stays(own.clone());
                Delivered {
                    error: own.error.map(|e| {
                        format!("{e}: not a FitError, so the binding keeps the clusters it has")
                    }),
                    ..kept
                }
            } else {
                // A FitError clears the binding's clusters, whichever an earlier schedule gave.
                let own = Delivered {
                    error: own.error.map(|e| match was_own.held_unknown {
                        true => format!(
                            "{}: the binding's clusters from an earlier schedule, if any, lose it",
                            e.trim_end_matches('.')
                        ),
                        false => e,
                    }),
                    ..own
                };
                with_carriers(own.or_kept(&was_own), carried_after())
            }
        };
        // Webster's ties follow the template's uid, the same on both sides.
        let (was, now) = match (was.otherwise.is_empty(), now.otherwise.is_empty()) {
            (true, false) => (was, now.with_uid_candidates()),
            (false, true) => (was.with_uid_candidates(), now),
            _ => (was, now),
        };
        let mut deltas = compare(&Pair {
            before: (before, &was),
            after: (after, &now),
            template,
        });
        // Scheduled again among candidates on both sides (`maxGroups: 1` to `2`, a rescale,
        // every cluster by labels narrowed to named ones that it still divides among): each
        // cluster both sides may hold may change, which is the scheduler's choice. Not where the
        // binding keeps its schedule (a removed policy leaves its binding as it is).
        // A named cluster a label selector may hold is such a candidate too.
        let candidates = |d: &Delivered| d.undecided || d.any_by_selectors;
        if candidates(&was) && candidates(&now) && scheduled_again && now.error.is_none() && !synced
        {
            deltas.extend(may_change_on_both(&was, &now, &deltas));
            deltas.sort_by(|a, b| a.cluster.cmp(&b.cluster));
        }
        // Rescaled under a placement evaluated for no cluster in particular (it selects by
        // labels, and there are no Cluster objects): every selected cluster gets the new count
        // where the placement duplicates, and may get another share where it divides.
        if deltas.is_empty()
            && rescaled
            && scheduled_again
            && was.all_selected()
            && now.all_selected()
        {
            let share = |replicas: Option<i64>| Share {
                receives: true,
                undecided: replicas.is_none(),
                replicas,
                ..Share::default()
            };
            let (old, new) = match after.duplicates(plan.after.as_ref()) {
                true => (
                    replicas(base_template).map(i64::from),
                    replicas(template).map(i64::from),
                ),
                false => (None, None),
            };
            deltas.push(ClusterDelta {
                cluster: ANY_CLUSTER.to_string(),
                before: share(old),
                after: share(new),
                manifest: Vec::new(),
                except: Vec::new(),
            });
        }
        Shares {
            deltas,
            failed_anew,
            // The uid's own line says what it decides: another reason first.
            undecided_by: [&now, &was]
                .into_iter()
                .filter(|d| d.undecided || d.held_unknown)
                .map(|d| d.undecided_by)
                .min_by_key(|by| *by == UndecidedBy::UidTie)
                .unwrap_or_default(),
            was_otherwise: was.otherwise,
            now,
        }
    }

    /// Where the workloads that carry template `r` along as a dependency on one side go (their
    /// owners set `propagateDeps`): the binding of a dependency, attached or its own, lists
    /// them in `RequiredBy`, and its Works go to its own clusters and theirs
    /// (`mergeTargetClusters`, pkg/controllers/binding/common.go;
    /// pkg/dependenciesdistributor/dependencies_distributor.go).
    fn carried(
        &self,
        r: &ObjectRef,
        side: &SideView<'_>,
        manifests: &Subset<'_>,
    ) -> Vec<Delivered> {
        let state = side.state;
        let Some(t) = state.template_of(r) else {
            return Vec::new();
        };
        side.carriers
            .required_by(state, t)
            .iter()
            .filter_map(|carrier| {
                let workload = manifests.manifest(&carrier.workload)?;
                let entry = &state.templates[state.template_of(&carrier.workload)?];
                Some(side.delivered(entry, &workload, Some(&carrier.policy), self.settings.live))
            })
            .collect()
    }

    /// Whether the scheduler leaves the binding's clusters as they are: an owner on both sides
    /// with the same placement, and the same member clusters (it reschedules on a placement
    /// change, a rescale, or a cluster change).
    fn keeps_schedule(
        &self,
        plan: &TemplatePlan,
        before: &SideView<'_>,
        after: &SideView<'_>,
    ) -> bool {
        let (Some(b), Some(a)) = (&plan.before, &plan.after) else {
            return false;
        };
        let placement = |v: &SideView<'_>, r: &PolicyRef| {
            v.state
                .find_policy(r)
                .map(|p| v.state.policy(p).spec.placement.clone())
        };
        // Another owner with the same placement is no reason to schedule again: the
        // scheduler compares the binding's placement with the one it last applied
        // (`placementChanged`, pkg/scheduler/scheduler.go), whichever policy wrote it.
        !self.changed.clusters_changed()
            && placement(before, b).is_some()
            && placement(before, b) == placement(after, a)
    }

    fn hazards(&self, before: &State, changes: &[TemplatePlan]) -> Vec<Hazard> {
        let removed: Vec<PolicyRef> = self
            .changed
            .delta
            .removed()
            .iter()
            .map(|p| p.reference())
            .collect();
        let removed_overrides: Vec<&OverridePolicy> = self
            .changed
            .overrides
            .iter()
            .filter(|(e, _, _)| e.edit == Edit::Removed)
            .filter_map(|(_, b, _)| *b)
            .collect();
        let after = &self.report.world.state;
        let applied: Vec<_> = self
            .changed
            .delta
            .applied()
            .iter()
            .filter_map(|p| {
                let r = p.reference();
                let now = after.policy(after.find_policy(&r)?);
                let was = before.find_policy(&r).map(|i| before.policy(i));
                Some((r, was, now))
            })
            .collect();
        let mut out = hazards::removed_holding(&removed, before, changes);
        out.extend(hazards::removed_with_override(
            &removed,
            &removed_overrides,
            before,
            changes,
        ));
        let cluster_failover = self.settings.options.gates.cluster_failover();
        out.extend(hazards::suspended_with_failover(&applied, cluster_failover));
        out.extend(hazards::without_policy(changes));
        out
    }
}

fn blocked(list: &[(PolicyRef, BlockReason)]) -> Vec<Blocked> {
    list.iter()
        .filter(|(_, b)| b.is_takeover_blocked())
        .map(|(policy, reason)| Blocked {
            policy: policy.clone(),
            reason: reason.clone(),
        })
        .collect()
}

/// The policies added, changed and removed, each copy applied in turn, with the admission
/// verdict: a changed one's is the UPDATE's of the copy stored then, whose `validateUpdate` (an
/// immutable scheduler name or permanent id) answers first and alone, as the controllers'
/// simulation applies it.
fn policy_edits(changed: &Changed<'_>, version: crate::model::KarmadaVersion) -> Vec<PolicyEdit> {
    let delta = &changed.delta;
    // What the control plane stores of each reference as the copies are applied in turn: the
    // base's (a base copy admission refused was never stored: the head's is a creation), then
    // each applied copy admission lets through.
    let mut stored_now: HashMap<PolicyRef, &Policy> = delta
        .touched()
        .iter()
        .filter(|old| admit_policy(old, version).1.is_empty())
        .map(|p| (p.reference(), p))
        .collect();
    let mut out: Vec<PolicyEdit> = Vec::new();
    for p in delta.applied() {
        let stored = stored_now.get(&p.reference()).copied();
        let update = stored.map(|old| crate::engine::admission::validate_update(old, p));
        let refused: Vec<String> = match update {
            Some(violations) if !violations.is_empty() => violations
                .iter()
                .map(crate::engine::admission::Violation::karmada_error)
                .collect(),
            _ => admit_policy(p, version).1,
        };
        if refused.is_empty() {
            stored_now.insert(p.reference(), p);
        }
        out.push(PolicyEdit {
            policy: p.reference(),
            edit: if stored.is_some() {
                Edit::Changed
            } else {
                Edit::Added
            },
            refused,
            stored: stored.is_some(),
        });
    }
    // A base copy admission refused was never stored: removing it changes nothing.
    out.extend(
        delta
            .removed()
            .iter()
            .filter(|p| admit_policy(p, version).1.is_empty())
            .map(|p| PolicyEdit {
                policy: p.reference(),
                edit: Edit::Removed,
                refused: Vec::new(),
                stored: false,
            }),
    );
    out
}

/// `edits` ([`policy_edits`], every copy applied) with one edit per policy, by reference: its
/// first copy's.
fn one_edit_per_policy(mut edits: Vec<PolicyEdit>) -> Vec<PolicyEdit> {
    edits.sort_by(|a, b| a.policy.cmp(&b.policy));
    edits.dedup_by(|a, b| a.policy == b.policy);
    edits
}

/// The clusters candidates on both sides may hold (`*` covers every cluster but the named ones)
/// that `deltas` does not list yet, each as may change.
fn may_change_on_both(
    was: &Delivered,
    now: &Delivered,
    deltas: &[ClusterDelta],
) -> Vec<ClusterDelta> {
    let undecided = Share {
        receives: true,
        undecided: true,
        ..Share::default()
    };
    let names: std::collections::BTreeSet<&String> =
        was.targets.iter().chain(&now.targets).collect();
    // `*` itself only where both sides pick among every cluster they select.
    let both_pick = was.undecided && now.undecided;
    names
        .into_iter()
        .filter(|c| *c != ANY_CLUSTER || both_pick)
        .filter(|c| was.covers(c) && now.covers(c))
        .filter(|c| !deltas.iter().any(|d| &d.cluster == *c))
        .map(|c| ClusterDelta {
            cluster: c.clone(),
            before: undecided.clone(),
            after: undecided.clone(),
            manifest: Vec::new(),
            except: Vec::new(),
        })
        .collect()
}

/// `own` and the clusters of the workloads that carry it along: the union of the targets,
/// each suspended by `own`'s binding's suspension, not the carrier's (the dependencies
/// distributor copies none into the attached binding, `buildAttachedBinding`, and each Work
/// follows its own binding: `ensureWork`, pkg/controllers/binding/common.go); the replicas stay
/// `own`'s (a dependency has none of its own).
fn with_carriers(own: Delivered, carriers: Vec<Delivered>) -> Delivered {
    let own_targets = own.targets.clone();
    let mut out = own;
    for c in carriers {
        for t in c.targets {
            if !out.targets.contains(&t) {
                out.targets.push(t);
            }
        }
        // A carrier's candidates make the dependency's clusters the scheduler's choice too,
        // but for those the dependency's own binding holds for certain (Karmada sends it to
        // the union, `mergeTargetClusters`).
        if c.undecided && !out.undecided {
            out.certain.extend(own_targets.iter().cloned());
            out.undecided = true;
        }
    }
    out.targets.sort();
    let suspension = out.suspension.clone();
    let carried_only = out.targets.iter().filter(|t| !own_targets.contains(t));
    let suspended: Vec<String> = carried_only
        .filter(|c| suspension.as_ref().is_some_and(|s| s.suspends(c)))
        .cloned()
        .collect();
    out.suspended.extend(suspended);
    out
}

/// Marks, in each environment's plan, the policy and override changes made identically in
/// several environments: one edit to a base that several overlays or clusters build on.
pub fn mark_shared(envs: &mut [(String, EnvPlan)]) {
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, p) in envs.iter() {
        let subjects = p
            .edit_lines()
            .map(|l| format!("{} ({})", l.name, l.edit.as_str()));
        for s in subjects {
            seen.entry(s).or_default().push(name.clone());
        }
    }
    for (name, p) in envs.iter_mut() {
        for (subject, environments) in &seen {
            if environments.len() > 1 && environments.contains(name) {
                p.hazards.push(Hazard::Shared {
                    subject: subject.clone(),
                    environments: environments.clone(),
                });
            }
        }
    }
}
