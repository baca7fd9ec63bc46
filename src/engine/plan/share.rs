//! What each member cluster receives of one template in one state: the clusters its owner's
//! placement selects (live, the binding's clusters where the schedule stands), whether
//! dispatching to each is suspended, and the manifest the override chain gives each; then the
//! clusters whose share differs between the two states, with the manifest's changed fields.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{ClusterDelta, FieldChange, Share, UndecidedBy, ANY_CLUSTER};
use crate::engine::delivery::{
    assigned_nothing, assignment_of, deliver, divides_replicas, is_workload, named_where_decided,
    scheduled_clusters, scheduler_traits, spread_may_fail, DeliveryInput,
};
use crate::engine::dependencies::Carriers;
use crate::engine::overrides::apply_for_cluster;
use crate::engine::placement::{
    every_selected_cluster_receives, BindingView, Filter, ScheduleError,
};
use crate::engine::replicas::CapacitySource;
use crate::engine::state::{PolicyEntry, State, TemplateEntry};
use crate::model::binding::Binding;
use crate::model::cluster::Cluster;
use crate::model::policy::{Placement, Suspension};
use crate::model::{OverridePolicy, PolicyRef};

/// One state as the deliveries read it.
pub struct SideView<'a> {
    pub state: &'a State,
    /// The Cluster objects of the state (empty when the inputs have none).
    pub clusters: &'a [Cluster],
    pub overrides: &'a [&'a OverridePolicy],
    /// The bindings of the control plane (live base only): where each template is scheduled.
    pub bindings: &'a [&'a Binding],
    /// Where the Cluster objects come from (what a missing resource summary means).
    pub capacity: CapacitySource,
    /// The workloads of `state` by the dependencies they name.
    pub carriers: &'a Carriers,
}

/// Where one template goes in one state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Delivered {
    /// The target clusters, sorted ([`ANY_CLUSTER`]: every cluster the placement selects, when
    /// the inputs have no Cluster objects to evaluate its selectors against).
    pub targets: Vec<String>,
    /// The targets whose dispatching is suspended.
    pub suspended: BTreeSet<String>,
    /// The suspension the binding carries, which decides for each cluster its Works go to
    /// (those a carrier of it adds too: `ensureWork`, pkg/controllers/binding/common.go).
    pub suspension: Option<Suspension>,
    /// Replicas per target, where known (the binding's `spec.clusters[].replicas`).
    pub replicas: Vec<(String, i64)>,
    /// Why nothing is scheduled: the scheduler's error when no cluster fits, or a `schedulerName`
    /// no scheduler serves.
    pub error: Option<String>,
    /// Clusters the placement selects that the filter stage excludes (a taint, a missing API,
    /// an eviction), with the scheduler's reason.
    pub excluded: Vec<(String, String)>,
    /// The replicas per cluster under the other tie-break, where Webster's ties follow the
    /// template's uid and the manifest carries none (as in git): empty otherwise.
    pub otherwise: Vec<(String, i64)>,
    /// `targets` are the clusters the scheduler picks among, not those it picks: without
    /// Cluster objects, a placement that names its clusters but chooses among them by their
    /// state.
    pub undecided: bool,
    /// With `undecided`, the targets that receive the template for certain all the same: a
    /// dependency's own clusters beside the candidates of a workload that carries it.
    pub certain: BTreeSet<String>,
    /// [`ANY_CLUSTER`] stands for the clusters an affinity's labels or fields select: whether a
    /// cluster the other side names is among them is unknown (without an affinity it is every
    /// cluster, which holds them all).
    pub any_by_selectors: bool,
    /// With `undecided`, why.
    pub undecided_by: UndecidedBy,
    /// With [`UndecidedBy::UndeclaredState`], the schedule may also fail for want of that
    /// capacity (a division by it: `Clusters available replicas are not enough`), which is no
    /// FitError: the binding then keeps the clusters it has (pkg/scheduler/scheduler.go
    /// `scheduleResourceBindingWithClusterAffinity` returns before patching).
    pub may_keep_previous: bool,
    /// `error` is no FitError (a spread selection or a division failed, not the filters): the
    /// scheduler returns before patching and the binding keeps the clusters it has.
    pub error_keeps_previous: bool,
    /// Clusters outside `targets` that keep the template only if the schedule fails that way
    /// ([`Delivered::or_kept`]): they may lose it, and gain nothing.
    pub kept_if_failed: BTreeSet<String>,
    /// Any cluster outside `targets` may hold the template: the schedule fails without a
    /// FitError, and the binding keeps the clusters an earlier schedule gave it, which the
    /// inputs do not show ([`Delivered::held_unknown`]).
    pub held_unknown: bool,
}

impl Delivered {
    /// Where Webster's tie follows the template's uid, which the manifest lacks
    /// ([`Delivered::otherwise`]): a cluster only the other tie-break gives replicas may
    /// receive it (with those replicas), those both give receive it for certain. For a side
    /// compared with one whose division does not tie: where both tie, the same uid breaks
    /// both, and they are compared under one tie-break (the report gives the other).
    pub fn with_uid_candidates(mut self) -> Delivered {
        let others: Vec<String> = self
            .otherwise
            .iter()
            .map(|(c, _)| c.clone())
            .filter(|c| !self.targets.contains(c))
            .collect();
        if others.is_empty() {
            return self;
        }
        if !self.undecided {
            self.certain = self
                .targets
                .iter()
                .filter(|t| self.otherwise.iter().any(|(c, _)| c == *t))
                .cloned()
                .collect();
            self.undecided = true;
            self.undecided_by = UndecidedBy::UidTie;
        }
        // Each with the replicas the other tie-break gives it.
        let counts: Vec<(String, i64)> = self
            .otherwise
            .iter()
            .filter(|(c, _)| others.contains(c))
            .cloned()
            .collect();
        self.replicas.extend(counts);
        self.targets.extend(others);
        self.targets.sort();
        self
    }

    /// The side before the change where its schedule fails without a FitError
    /// ([`Delivered::error_keeps_previous`]): the binding holds whatever clusters an earlier
    /// schedule gave it (none, if it never had one), so a cluster the change sends the template
    /// to may hold it already.
    pub fn held_unknown(mut self) -> Delivered {
        if self.error_keeps_previous {
            self.held_unknown = true;
            self.undecided_by = UndecidedBy::EarlierSchedule;
        }
        self
    }

    /// What the binding gets where the schedule after the change may fail without a FitError
    /// ([`Delivered::may_keep_previous`]): the clusters it has (`previous`) may keep the template
    /// as well (`kept_if_failed`), and a single cluster past the filters that holds it now keeps
    /// it either way (the division gives it every replica or fails).
    pub fn or_kept(mut self, previous: &Delivered) -> Delivered {
        if !self.may_keep_previous {
            return self;
        }
        if let [only] = self.targets.as_slice() {
            let held =
                previous.covers(only) && (!previous.undecided || previous.certain.contains(only));
            if held {
                self.certain.insert(only.clone());
            }
        }
        self.kept_if_failed = previous
            .targets
            .iter()
            .filter(|t| !self.targets.contains(t))
            .cloned()
            .collect();
        self
    }

    /// Whether the targets are every cluster the placement selects ([`ANY_CLUSTER`]).
    pub fn all_selected(&self) -> bool {
        self.targets.iter().any(|t| t == ANY_CLUSTER)
    }

    /// Whether `name` is among the targets: named, or a cluster the other side names that
    /// [`ANY_CLUSTER`] includes.
    pub fn covers(&self, name: &str) -> bool {
        self.targets.iter().any(|t| t == name) || (name != ANY_CLUSTER && self.all_selected())
    }
}

impl SideView<'_> {
    /// The policy `owner` of this state.
    fn policy(&self, owner: &PolicyRef) -> Option<&PolicyEntry> {
        self.state
            .find_policy(owner)
            .map(|p| self.state.policy(p))
            .filter(|p| p.known)
    }

    /// Whether `owner`'s placement gives every cluster it selects all the replicas
    /// (Duplicated, or no replicaScheduling).
    pub fn duplicates(&self, owner: Option<&PolicyRef>) -> bool {
        owner.and_then(|o| self.policy(o)).is_some_and(|p| {
            let placement = p.spec.placement.clone().unwrap_or_default();
            crate::engine::replicas::Strategy::of(&placement)
                == crate::engine::replicas::Strategy::Duplicated
        })
    }

    /// The `schedulerName` of `owner` when no karmada-scheduler of this control plane serves
    /// it.
    pub fn unserved_scheduler(&self, owner: Option<&PolicyRef>) -> Option<String> {
        let policy = owner.and_then(|o| self.policy(o))?;
        self.state.unserved_scheduler(policy).map(str::to_string)
    }

    /// Whether `owner` keeps the member clusters' copies when their Works go
    /// (`preserveResourcesOnDeletion`).
    pub fn preserves(&self, owner: Option<&PolicyRef>) -> bool {
        owner
            .and_then(|o| self.policy(o))
            .is_some_and(|p| p.spec.preserve_resources_on_deletion == Some(true))
    }

    /// Every member cluster of this side: the Cluster objects, else [`ANY_CLUSTER`].
    pub fn everywhere(&self) -> Delivered {
        let mut targets: Vec<String> = self.clusters.iter().map(|c| c.name.clone()).collect();
        if targets.is_empty() {
            targets.push(ANY_CLUSTER.to_string());
        }
        targets.sort();
        Delivered {
            targets,
            ..Delivered::default()
        }
    }

    /// The binding of `entry`, if the control plane has one.
    fn binding(&self, entry: &TemplateEntry) -> Option<&Binding> {
        self.bindings.iter().copied().find(|b| {
            let r = &b.spec.resource;
            r.name == *entry.name
                && r.kind == *entry.kind
                && r.namespace == *entry.namespace
                && r.api_version == *entry.api_version
        })
    }

    /// Where `entry` goes under `owner`. `from_binding`: the binding's schedule stands (the
    /// control plane as it is now).
    pub fn delivered(
        &self,
        entry: &TemplateEntry,
        template: &Value,
        owner: Option<&PolicyRef>,
        from_binding: bool,
    ) -> Delivered {
        let Some(policy) = owner.and_then(|o| self.policy(o)) else {
            return Delivered::default();
        };
        let suspension = policy.spec.suspension.as_ref();
        if from_binding {
            if let Some(b) = self.binding(entry) {
                return scheduled(b, suspension);
            }
        }
        // karmada-scheduler takes only the bindings of its own name (`schedulerNameFilter`,
        // pkg/scheduler/event_handler.go:380-386): one no scheduler serves goes nowhere.
        if let Some(name) = self.state.unserved_scheduler(policy) {
            return Delivered {
                error: Some(format!(
                    "never scheduled: no karmada-scheduler of this control plane serves schedulerName `{name}`"
                )),
                ..Delivered::default()
            };
        }
        let placement = policy.spec.placement.clone().unwrap_or_default();
        let mut d = self.placed(entry, template, &placement);
        d.suspended = d
            .targets
            .iter()
            .filter(|c| suspension.is_some_and(|s| s.suspends(c)))
            .cloned()
            .collect();
        d.suspension = suspension.cloned();
        d
    }

    /// The filter stage over the Cluster objects; without them, over the clusters a placement
    /// names where their names alone decide ([`decided_by_names`]); where it names them but
    /// picks among them by their state, those clusters as `undecided` candidates; any other
    /// placement reaches clusters the inputs do not describe.
    fn placed(&self, entry: &TemplateEntry, template: &Value, placement: &Placement) -> Delivered {
        let divides = divides_replicas(template);
        let named: Vec<Cluster>;
        let clusters = if self.clusters.is_empty() {
            // Every share is 0 whatever the clusters: the scheduler lists none of them (unless
            // a spread constraint may fail the selection before, which keeps them).
            if assigned_nothing(template) && !spread_may_fail(placement) {
                return Delivered::default();
            }
            if placement.bounded_by_names().is_none() {
                return Delivered {
                    targets: vec![ANY_CLUSTER.to_string()],
                    undecided: !every_selected_cluster_receives(placement, divides),
                    any_by_selectors: placement.affinities().next().is_some(),
                    ..Delivered::default()
                };
            }
            // Named clusters the selectors (names and labels in one affinity), or the state,
            // pick among are candidates.
            let fleet = &self.state.options.known_clusters;
            let Some(by_names) = named_where_decided(placement, divides, fleet) else {
                return Delivered {
                    targets: candidates(placement),
                    undecided: true,
                    may_keep_previous: divides_by_capacity(placement, divides),
                    ..Delivered::default()
                };
            };
            named = by_names;
            &named
        } else {
            self.clusters
        };
        let d = deliver(&DeliveryInput {
            template,
            placement: Some(placement),
            clusters,
            overrides: &[],
            binding: BindingView {
                api_version: &entry.api_version,
                kind: &entry.kind,
                workload: is_workload(template),
                ..BindingView::default()
            },
            bound: None,
            chosen: &[],
            capacity: self.capacity,
            traits: scheduler_traits(self.state),
            carried_to: &[],
            named_only: self.clusters.is_empty(),
        });
        // Replicas per cluster where the scheduler divides them (`replicas`); none for a
        // template without replicas or a duplicated placement the assignment cannot know.
        let replicas = match assignment_of(&d) {
            Some(Ok(targets)) => targets
                .into_iter()
                .map(|t| (t.cluster, i64::from(t.replicas)))
                .collect(),
            _ => Vec::new(),
        };
        let Some(p) = d.placement else {
            return Delivered::default();
        };
        // The Cluster objects do not decide which of the clusters past the filters the
        // scheduler keeps: they are candidates.
        if p.selection_unknown() {
            let mut targets = p.decided.feasible.clone();
            targets.sort();
            return Delivered {
                targets,
                undecided: true,
                undecided_by: UndecidedBy::UndeclaredState,
                may_keep_previous: divides_by_capacity(placement, divides),
                ..Delivered::default()
            };
        }
        let otherwise = p
            .other_tie_break()
            .iter()
            .map(|t| (t.cluster.clone(), i64::from(t.replicas)))
            .collect();
        let mut targets = scheduled_clusters(&p);
        targets.sort();
        // `replicas: 0` and no requirements: the scheduler lists every selected cluster with 0
        // replicas and no division (replica-assignment.md, "Which path"), and the template
        // goes as it is, with its 0.
        let replicas = if replicas.is_empty() && scaled_to_zero(template) {
            targets
                .iter()
                .filter(|t| *t != ANY_CLUSTER)
                .map(|t| (t.clone(), 0))
                .collect()
        } else {
            replicas
        };
        let excluded = p
            .decided
            .excluded
            .iter()
            .filter(|e| e.first().filter != Filter::ClusterAffinity)
            .map(|e| {
                let f = e.first();
                (
                    e.cluster.clone(),
                    format!("{} {}", f.filter.as_str(), f.reason),
                )
            })
            .collect();
        let error_keeps_previous = p
            .decided
            .error
            .as_ref()
            .is_some_and(|e| !matches!(e, ScheduleError::NoClusterFit(_)));
        Delivered {
            targets,
            error_keeps_previous,
            error: p.decided.error.map(|e| e.text().to_string()),
            excluded,
            replicas,
            otherwise,
            ..Delivered::default()
        }
    }

    /// The manifest `cluster` receives of `template` (its override chain), or why none.
    pub fn manifest(&self, cluster: &str, template: &Value) -> Result<Value, String> {
        let named;
        let found = match self.clusters.iter().find(|c| c.name == cluster) {
            Some(c) => Some(c),
            None if self.clusters.is_empty() => {
                named = Cluster::named(cluster);
                Some(&named)
            }
            None => None,
        };
        let o = apply_for_cluster(template, cluster, found, self.overrides);
        match (o.manifest, o.error) {
            (Some(m), None) => Ok(m),
            (_, Some(e)) => Err(e.message),
            (None, None) => Ok(template.clone()),
        }
    }
}

/// Whether the scheduler divides `template`'s replicas by the clusters' available replicas
/// (dynamic weights, Aggregated), which may fail for want of them: `Clusters available
/// replicas are not enough`, no FitError, so the binding keeps the clusters it has.
/// `divides`: the template has replicas to divide ([`divides_replicas`]).
fn divides_by_capacity(placement: &Placement, divides: bool) -> bool {
    use crate::engine::replicas::Strategy;
    divides
        && matches!(
            Strategy::of(placement),
            Strategy::DynamicWeight | Strategy::Aggregated
        )
}

/// Whether `template` is a workload Karmada's interpreters read replicas from, with 0 of
/// them and no requirements.
fn scaled_to_zero(template: &Value) -> bool {
    crate::engine::replicas::workload::from_template(template)
        .is_ok_and(|w| w.interpreted && w.replicas == 0 && w.requirements.is_none())
}

/// The binding's schedule: its clusters, their replicas, and the suspension it carries (the
/// policy's, copied when the binding was last synced; `detector.go` `MergePolicySuspension`).
fn scheduled(b: &Binding, policy_suspension: Option<&Suspension>) -> Delivered {
    let mut targets: Vec<String> = b.spec.clusters.iter().map(|c| c.name.clone()).collect();
    targets.sort();
    let suspension = b
        .spec
        .suspension
        .as_ref()
        .map(|s| &s.policy)
        .or(policy_suspension);
    Delivered {
        suspended: targets
            .iter()
            .filter(|c| suspension.is_some_and(|s| s.suspends(c)))
            .cloned()
            .collect(),
        suspension: suspension.cloned(),
        excluded: Vec::new(),
        replicas: b
            .spec
            .clusters
            .iter()
            .filter_map(|c| Some((c.name.clone(), c.replicas?)))
            .collect(),
        targets,
        ..Delivered::default()
    }
}

/// The clusters a placement that selects by names only can pick from: every term's names but
/// its `exclude`d ones, sorted.
fn candidates(placement: &Placement) -> Vec<String> {
    placement
        .bounded_by_names()
        .unwrap_or_default()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The two states of one template, for [`compare`].
pub struct Pair<'a> {
    pub before: (&'a SideView<'a>, &'a Delivered),
    pub after: (&'a SideView<'a>, &'a Delivered),
    pub template: &'a Value,
}

/// The clusters whose share differs, by name: received or not, replicas, suspension, and the
/// fields of the manifest the override chains change (both states applied to the same
/// template, so that only what overrides do shows; for a cluster that gains the template, what
/// its overrides set against the template).
pub fn compare(pair: &Pair<'_>) -> Vec<ClusterDelta> {
    let (bv, bd) = pair.before;
    let (av, ad) = pair.after;
    let names: BTreeSet<&String> = bd.targets.iter().chain(&ad.targets).collect();
    // Every selected cluster (no Cluster objects) on one side includes the clusters the other
    // side names: they receive the template on both.
    let named = |d: &Delivered| -> Vec<String> {
        d.targets
            .iter()
            .filter(|t| *t != ANY_CLUSTER)
            .cloned()
            .collect()
    };
    let replicas = |d: &Delivered, c: &str| d.replicas.iter().find(|(n, _)| n == c).map(|r| r.1);
    let mut out = Vec::new();
    for name in names {
        let share = |v: &SideView<'_>, d: &Delivered| -> (Share, Option<Value>) {
            if !d.covers(name) {
                // Kept only where the new schedule fails: it may lose the template. Or held
                // from a schedule before the inputs: it may have it already.
                let share = Share {
                    undecided: d.kept_if_failed.contains(name) || d.held_unknown,
                    ..Share::default()
                };
                return (share, None);
            }
            let manifest = v.manifest(name, pair.template);
            // A named cluster held through the selectors' `*`: whether they select it is unknown.
            let through_selectors =
                d.any_by_selectors && name != ANY_CLUSTER && !d.targets.contains(name);
            let share = Share {
                receives: true,
                undecided: (d.undecided && !d.certain.contains(name)) || through_selectors,
                replicas: replicas(d, name),
                suspended: d.suspended.contains(name)
                    || (!d.targets.contains(name) && d.suspended.contains(ANY_CLUSTER)),
                error: manifest.as_ref().err().cloned(),
            };
            (share, manifest.ok())
        };
        let (mut before, bm) = share(bv, bd);
        let (mut after, am) = share(av, ad);
        // Replicas are compared only when both states know them (a cluster that gains or
        // loses the template keeps the count of the side that has it, and so does one that is a
        // candidate on one side and certain on the other: it may gain those replicas).
        if before.receives
            && after.receives
            && (before.replicas.is_none() || after.replicas.is_none())
            && before.undecided == after.undecided
        {
            before.replicas = None;
            after.replicas = None;
        }
        // A cluster that gains the template: the fields its overrides set, against the
        // template.
        let manifest = match (&bm, &am) {
            (Some(b), Some(a)) => field_changes(b, a),
            (None, Some(a)) if !before.receives => field_changes(pair.template, a),
            _ => Vec::new(),
        };
        if before != after || !manifest.is_empty() {
            let except = match (bd.all_selected(), ad.all_selected()) {
                (true, false) if *name == ANY_CLUSTER => named(ad),
                (false, true) if *name == ANY_CLUSTER => named(bd),
                _ => Vec::new(),
            };
            out.push(ClusterDelta {
                cluster: name.clone(),
                before,
                after,
                manifest,
                except,
            });
        }
    }
    out
}

/// The leaves where two manifests differ, as JSON Pointers (RFC 6901, the paths of Karmada's
/// plaintext overrider), in document order; a value only one side has is `None` on the other.
pub fn field_changes(before: &Value, after: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    walk(String::new(), Some(before), Some(after), &mut out);
    out
}

fn walk(path: String, b: Option<&Value>, a: Option<&Value>, out: &mut Vec<FieldChange>) {
    match (b, a) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: Vec<&String> = x
                .keys()
                .chain(y.keys().filter(|k| !x.contains_key(*k)))
                .collect();
            for k in keys {
                let p = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
                walk(p, x.get(k), y.get(k), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                walk(format!("{path}/{i}"), x.get(i), y.get(i), out);
            }
        }
        (x, y) if x != y => out.push(FieldChange {
            path: if path.is_empty() { "/".into() } else { path },
            before: x.cloned(),
            after: y.cloned(),
        }),
        _ => {}
    }
}
