//! Where a template goes and what each member cluster receives: the owner's placement through
//! the filter stage (`placement`) and the override chain per target cluster (`overrides`),
//! for `explain` in both the file and the live form.

use serde_json::Value;

use crate::model::binding::BindingSpec;
use crate::model::cluster::Cluster;
use crate::model::policy::Placement;
use crate::model::OverridePolicy;

use super::overrides::defaulted::defaulted_field;
use super::overrides::{apply_for_cluster, label_dependent_rules, ClusterOverrides};
use super::placement::{evaluate, BindingView, PlacementResult};
use super::replicas::{CapacitySource, ReplicaView};

/// What `explain` knows beyond the claim.
pub struct DeliveryInput<'a> {
    /// The template's manifest.
    pub template: &'a Value,
    /// The owner's placement (after admission defaults; the empty one when it has none, as
    /// Karmada gives its bindings); `None` without an owner.
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
    /// Where the Cluster objects come from: a missing `status.resourceSummary` is the
    /// scheduler's 0 on a control plane, a missing input in files.
    pub capacity: CapacitySource,
    /// karmada-scheduler's `CustomizedClusterResourceModeling` gate (Karmada's default: on).
    pub traits: super::replicas::SchedulerTraits,
    /// The clusters of the workloads that carry the template along as a dependency
    /// ([`super::dependencies::required_by`]): the binding controller sends it there too,
    /// overridden for each (`mergeTargetClusters`, `pkg/controllers/binding/common.go:58`).
    pub carried_to: &'a [String],
    /// `clusters` are known by their names only (no Cluster objects: [`named_where_decided`]):
    /// override rules that look at labels or fields are not evaluated for them.
    pub named_only: bool,
}

pub struct Delivery {
    /// `None` when no Cluster objects are known or the template has no owner.
    pub placement: Option<PlacementResult>,
    /// When the owner has a placement but the files hold no Cluster objects (a repository
    /// seldom does: clusters are registered with `karmadactl join`), the placement is not
    /// evaluated: the clusters it names (maybe none), for the report to say so. An owner
    /// without a placement has nothing to evaluate; a control plane without clusters is read,
    /// not missing.
    pub unplaced: Option<super::placement::Unevaluated>,
    /// With [`Delivery::unplaced`], whether the clusters it names are candidates only: their
    /// names alone do not decide where the placement puts the template
    /// ([`super::placement::decided_by_names`]: it picks among them, or selects by labels), or
    /// a workload's replicas are divided among them, which leaves a cluster given none (fewer
    /// replicas than clusters, a weight of 0) out (`removeZeroReplicasCluster`).
    pub unplaced_picks: bool,
    /// Without Cluster objects, the placement was evaluated over clusters known by the names it
    /// gives, which alone decide it ([`named_where_decided`]).
    pub by_names: bool,
    pub overrides: Vec<ClusterOverrides>,
    /// Why the template's replica fields could not be read (a request that is not a quantity):
    /// the placement then has no assignment.
    pub replicas_problem: Option<String>,
}

/// The override targets: `--clusters`, else the binding's clusters, else the clusters the
/// placement selects (the feasible set, or its cluster names without Cluster objects).
fn targets(input: &DeliveryInput<'_>, placement: Option<&PlacementResult>) -> Vec<String> {
    if !input.chosen.is_empty() {
        return input.chosen.to_vec();
    }
    let mut out = own_targets(input, placement);
    for c in input.carried_to {
        if !out.contains(c) {
            out.push(c.clone());
        }
    }
    out
}

/// The clusters of the template's own binding: bound (live), else selected by its placement.
fn own_targets(input: &DeliveryInput<'_>, placement: Option<&PlacementResult>) -> Vec<String> {
    if let Some(bound) = input.bound {
        return bound.to_vec();
    }
    match (placement, input.placement) {
        (Some(p), _) => reachable_clusters(p),
        (None, Some(pl)) => pl
            .named_clusters()
            .into_iter()
            .map(str::to_string)
            .collect(),
        (None, None) => Vec::new(),
    }
}

impl Delivery {
    /// The clusters the template goes to, as the override targets are chosen without
    /// `--clusters`: the feasible clusters, or the ones the placement names when no Cluster
    /// objects are known.
    pub fn clusters(&self) -> Vec<String> {
        match (&self.placement, &self.unplaced) {
            (Some(p), _) => reachable_clusters(p),
            (None, Some(u)) => u.named.clone(),
            (None, None) => Vec::new(),
        }
    }

    /// Whether the clusters listed for the template are candidates of which the placement
    /// selects only some, unknown which: a placement not evaluated for want of Cluster objects
    /// that picks among the clusters it names ([`Delivery::unplaced_picks`]), one evaluated
    /// whose selection the inputs do not decide ([`PlacementResult::selection_unknown`]), or a
    /// division whose clusters follow the template's uid, which it does not have yet
    /// ([`PlacementResult::under_other_tie_break`]).
    pub fn selection_unknown(&self) -> bool {
        self.unplaced_picks
            || self
                .placement
                .as_ref()
                .is_some_and(|p| p.selection_unknown() || !p.under_other_tie_break().is_empty())
    }
}

/// The clusters a placement sends the template to: the assignment's when the scheduler's steps
/// after the filter are known (`spec.clusters`: spread constraints select among the feasible
/// clusters, and a division drops the clusters it leaves without replicas,
/// `removeZeroReplicasCluster`, `pkg/scheduler/core/common.go:153`, unless karmada-scheduler
/// runs with the non-default `--enable-empty-workload-propagation`), else the feasible ones.
/// None when the attempt failed: a binding whose schedule fails after the filter (a spread
/// selection error, `failed to select clusters`, pkg/scheduler/core/generic_scheduler.go:98-101)
/// gets no `spec.clusters`, however many clusters were feasible.
pub fn scheduled_clusters(p: &PlacementResult) -> Vec<String> {
    if p.decided.error.is_some() {
        return Vec::new();
    }
    match &p.decided.assignment {
        Some(super::replicas::Outcome::Scheduled(s)) => {
            s.shares.iter().map(|share| share.cluster.clone()).collect()
        }
        _ => p.decided.feasible.clone(),
    }
}

/// [`scheduled_clusters`], and those the other uid tie-break sends the template to
/// ([`PlacementResult::under_other_tie_break`]): the clusters that may receive it.
fn reachable_clusters(p: &PlacementResult) -> Vec<String> {
    let mut out = scheduled_clusters(p);
    out.extend(p.under_other_tie_break());
    out
}

pub fn deliver(input: &DeliveryInput<'_>) -> Delivery {
    // The binding's replicas and replica requirements, as Karmada's interpreters read
    // them, so that each attempt also selects and divides (`replicas`).
    let workload = super::replicas::workload::from_template(input.template);
    let placement = match input.placement {
        Some(p) if !input.clusters.is_empty() => {
            let mut view = input.binding;
            view.replicas = workload.as_ref().ok().map(|workload| ReplicaView {
                workload,
                capacity: input.capacity,
                traits: input.traits,
                previous: &[],
            });
            Some(evaluate(p, input.clusters, &view))
        }
        _ => None,
    };
    let named: Vec<Cluster>;
    // Without Cluster objects a cluster is known by its name only: targetCluster rules that
    // look at labels or fields cannot match it.
    let by_name_only = input.clusters.is_empty() || input.named_only;
    let clusters: &[Cluster] = if by_name_only {
        named = targets(input, placement.as_ref())
            .iter()
            .map(|n| Cluster::named(n))
            .collect();
        &named
    } else {
        input.clusters
    };
    // Templates read from files are as written; karmada-apiserver stores built-in kinds with
    // their defaults, which may give a failing patch its path.
    let as_written = input.capacity == CapacitySource::Declared;
    let overrides = if input.overrides.is_empty() && input.chosen.is_empty() {
        Vec::new()
    } else {
        targets(input, placement.as_ref())
            .iter()
            .map(|name| {
                let cluster = clusters.iter().find(|c| c.name == *name);
                let mut result = apply_for_cluster(input.template, name, cluster, input.overrides);
                if by_name_only {
                    result.unevaluated =
                        label_dependent_rules(input.template, name, input.overrides);
                }
                if as_written {
                    result.defaulted = result.error.as_ref().and_then(|e| {
                        defaulted_field(input.binding.api_version, input.template, &e.message)
                    });
                }
                result
            })
            .collect()
    };
    let unplaced = input
        .placement
        .filter(|_| input.capacity == CapacitySource::Declared)
        .and_then(|p| super::placement::unevaluated(p, input.clusters));
    let unplaced_picks = unplaced.is_some()
        && input.placement.is_some_and(|p| {
            let divides = divides_replicas(input.template);
            !super::placement::decided_by_names(p, divides)
                || (divides
                    && super::replicas::Strategy::of(p) != super::replicas::Strategy::Duplicated)
        });
    Delivery {
        placement,
        unplaced,
        unplaced_picks,
        by_names: false,
        overrides,
        replicas_problem: workload
            .err()
            .map(|e| format!("the template's resources: {e}")),
    }
}

/// Whether the scheduler has replicas of `template` to divide among clusters, so that a
/// division by capacity or by weights decides which clusters keep it: Karmada's interpreters
/// (the default one, the third-party ones it ships) read replicas above 0 from it (a Job's are min(parallelism, completions)), or, for another
/// kind, it writes `spec.replicas` above 0 (as an interpreter customization reads it). 0
/// replicas with requirements are divided too, but every share is 0 whatever the clusters.
pub fn divides_replicas(template: &Value) -> bool {
    match super::replicas::workload::from_template(template) {
        Ok(w) if w.interpreted => w.replicas > 0,
        _ => is_workload(template),
    }
}

/// Whether a spread constraint may fail the selection whatever the clusters' state, as far as
/// their names tell: one by cluster that asks for more than one (`minGroups`, the feasible
/// clusters may be fewer: select_clusters_by_cluster.go), one by region (the clusters may
/// declare none), or one the selection does not support (by label, zone, provider).
pub fn spread_may_fail(placement: &Placement) -> bool {
    use super::replicas::select::spread_field;
    placement
        .spread_constraints
        .iter()
        .any(|c| spread_field(c) != "cluster" || c.min_groups.unwrap_or(1) > 1)
}

/// Whether the scheduler assigns `template` 0 replicas on every cluster and so lists none: a
/// workload with 0 replicas whose resource requests or node claim make the scheduler divide
/// them all the same (`AssignReplicas`, pkg/scheduler/core/common.go:68), every share 0 and
/// dropped (`removeZeroReplicasCluster`, common.go:153), and karmada-scheduler's
/// `--enable-empty-workload-propagation` off by default, as this tool takes it
/// (cmd/scheduler/app/options/options.go).
pub fn assigned_nothing(template: &Value) -> bool {
    crate::engine::replicas::workload::from_template(template)
        .is_ok_and(|w| w.interpreted && w.replicas == 0 && w.requirements.is_some())
}

/// The manifest as the API server stores it: a namespaced template whose file sets no namespace
/// is created in the request's namespace (`kubectl apply -n`, else `default`), and the override
/// chain reads it from `metadata.namespace` to pick the OverridePolicies of that namespace
/// (`overridemanager.go` `getOverridersFromOverridePolicies`). `namespace` empty: cluster-scoped.
pub fn stored_manifest(mut template: Value, namespace: &str) -> Value {
    if namespace.is_empty() {
        return template;
    }
    if let Some(meta) = template.get_mut("metadata").and_then(Value::as_object_mut) {
        let unset = meta
            .get("namespace")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty);
        if unset {
            meta.insert("namespace".into(), Value::String(namespace.to_string()));
        }
    }
    template
}

/// Whether the scheduler treats the template as a workload whose replicas it assigns (replicas
/// above 0, or replica requirements: `AssignReplicas`, common.go:68), which makes a term's
/// overflowAffinities count (§B.3) and a division's clusters depend on it.
pub fn is_workload(template: &Value) -> bool {
    match super::replicas::workload::from_template(template) {
        // What Karmada's interpreters read: a Job's min(parallelism, completions), a Pod's one
        // replica, a CloneSet's spec.replicas, the requests of the pod template.
        Ok(w) if w.interpreted => w.divides(),
        // Another kind (as an interpreter customization reads `spec.replicas`), or requests that
        // are no quantity: the API server defaults absent replicas of the apps kinds to 1.
        _ => {
            let kind = template.get("kind").and_then(Value::as_str).unwrap_or("");
            let replicas = template.pointer("/spec/replicas").and_then(Value::as_i64);
            match kind {
                "Deployment" | "StatefulSet" | "ReplicaSet" => replicas.unwrap_or(1) > 0,
                _ => replicas.is_some_and(|r| r > 0),
            }
        }
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
        .map(|p| state.policy(p).spec.scheduled_placement());
    let overrides: Vec<&OverridePolicy> = inv.stored_overrides();
    let tpl = &state.templates[e.template];
    let scheduled = bound.clone().unwrap_or_default();
    // A dependency's binding is dispatched to the clusters of the bindings requiring it too.
    let required: Vec<String> = binding
        .and_then(|b| serde_json::from_value::<BindingSpec>(b["spec"].clone()).ok())
        .map(|spec| {
            spec.required_additions()
                .into_iter()
                .flat_map(|(_, adds)| adds)
                .map(|c| c.name.clone())
                .collect()
        })
        .unwrap_or_default();
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
            replicas: None,
        },
        bound: bound.as_deref(),
        chosen,
        capacity: CapacitySource::Live,
        traits: scheduler_traits(state),
        carried_to: &required,
        named_only: false,
    })
}

/// The Cluster objects `clusters`, or where there are none, the clusters `placement` is
/// evaluated over by its names ([`named_where_decided`]; `fleet`: the configuration's
/// `knownClusters`); with whether they are those.
pub fn or_named(
    clusters: Vec<Cluster>,
    (placement, fleet): (Option<&Placement>, &[String]),
    names_decide: impl Fn(&Placement) -> bool,
) -> (Vec<Cluster>, bool) {
    if !clusters.is_empty() {
        return (clusters, false);
    }
    match placement.filter(|p| names_decide(p)) {
        Some(p) => (known_by_names(p, fleet), true),
        None => (clusters, false),
    }
}

/// Whether the names of the clusters `placement` selects decide where `template` goes, so
/// that without Cluster objects it is evaluated over them: they decide the placement
/// ([`super::placement::decided_by_names`]), or no cluster receives the template whatever
/// they are (every share of its 0 replicas is 0, [`assigned_nothing`], and no spread
/// constraint may fail the selection first).
pub fn names_decide(placement: &Placement, template: &Value) -> bool {
    super::placement::decided_by_names(placement, divides_replicas(template))
        || (placement.targets_only_named_clusters()
            && assigned_nothing(template)
            && !spread_may_fail(placement))
}

/// Without Cluster objects, the clusters a placement is evaluated over where their names alone
/// decide it ([`super::placement::decided_by_names`]: it selects by names only, and nothing
/// picks among them by their state): clusters known by those names only. `plan` evaluates such
/// a placement so too; any other is not evaluated (`None`).
pub fn named_where_decided(
    placement: &Placement,
    divides: bool,
    fleet: &[String],
) -> Option<Vec<Cluster>> {
    super::placement::decided_by_names(placement, divides).then(|| known_by_names(placement, fleet))
}

/// The clusters known by their names only that a placement its names decide is evaluated over:
/// the configuration's `knownClusters` (`fleet`) when it lists them (a cluster the placement
/// names outside them does not exist, and Karmada's scheduler only considers the registered
/// Clusters: `findClustersThatFit` over the cluster snapshot), else those `placement` names.
fn known_by_names(placement: &Placement, fleet: &[String]) -> Vec<Cluster> {
    if !fleet.is_empty() {
        return fleet.iter().map(|n| Cluster::named(n)).collect();
    }
    placement
        .named_clusters()
        .into_iter()
        .map(Cluster::named)
        .collect()
}

/// Placement and overrides from the files: the eventual owner's placement over the Cluster
/// objects of the inputs, and the override chain for the chosen or selected clusters (no
/// binding: nothing is scheduled yet) and those of the workloads that carry the template
/// along (`carried_to`).
pub fn from_files(
    inv: &crate::model::Inventory,
    state: &crate::engine::state::State,
    decision: Owned<'_>,
    template: &serde_json::Value,
    chosen: &[String],
    carried_to: &[String],
) -> Delivery {
    let overrides: Vec<&OverridePolicy> = inv.stored_overrides();
    let placement = decision
        .eventual
        .and_then(|o| state.find_policy(o))
        .map(|p| state.policy(p).spec.scheduled_placement());
    let fleet = &state.options.known_clusters;
    let (clusters, by_names) = or_named(Cluster::from_inventory(inv), (placement, fleet), |p| {
        names_decide(p, template)
    });
    let tpl = &state.templates[decision.template];
    let mut delivery = deliver(&DeliveryInput {
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
        capacity: CapacitySource::Declared,
        traits: scheduler_traits(state),
        carried_to,
        named_only: by_names,
    });
    if let Some(u) = &mut delivery.unplaced {
        u.known_by_name = fleet.clone();
    }
    if by_names {
        delivery.by_names = true;
        // Clusters known by name only report nothing: the note says so once, not per API.
        if let Some(p) = &mut delivery.placement {
            p.unreported.clear();
        }
    }
    delivery
}

/// `CustomizedClusterResourceModeling` (Beta, default on): the general estimator reads the
/// clusters' resource models only with it (`pkg/estimator/client/general.go`).
pub fn scheduler_traits(state: &crate::engine::state::State) -> super::replicas::SchedulerTraits {
    super::replicas::SchedulerTraits {
        resource_modeling: state
            .options
            .gates
            .enabled("CustomizedClusterResourceModeling"),
        webster: state.options.version() >= crate::model::KarmadaVersion::new(1, 16),
    }
}

/// What one member cluster receives of a template under one owner: the override policies
/// applied (in order) and the error that drops the cluster's Work, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Received {
    pub policies: Vec<String>,
    pub manifest: Option<serde_json::Value>,
    pub error: Option<String>,
    /// The rule whose failure `error` is: its policy (`cop/NAME`, `op/NS/NAME`) and index.
    pub failed_rule: Option<(String, usize)>,
    /// The field the API server's defaulting may fill, so that `error` may not happen
    /// ([`ClusterOverrides::defaulted`]).
    pub defaulted: Option<String>,
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
    /// How many replicas each member cluster receives before and after, when that changes
    /// (a fresh schedule on each side, `replicas`).
    pub replicas: Option<ReplicaShift>,
    /// The owner whose target clusters are unknown (no Cluster objects, and a placement that
    /// selects clusters rather than naming them): what each cluster receives is not evaluated.
    pub unevaluated: Option<crate::model::PolicyRef>,
}

/// One member cluster's replicas before and after (0: not among the binding's clusters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaChange {
    pub cluster: String,
    pub before: i32,
    pub after: i32,
}

/// The replica assignment's change between two placements of one template.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ReplicaShift {
    /// The clusters whose replicas change, in name order.
    pub clusters: Vec<ReplicaChange>,
    /// The schedule's error on a side that fails (its assignment is then empty).
    pub before_error: Option<String>,
    pub after_error: Option<String>,
}

/// A side's assignment for the comparison: `None` when it cannot be known (no Cluster
/// objects, a template without replicas, capacity that the inputs do not declare).
pub fn assignment_of(d: &Delivery) -> Option<Result<Vec<super::replicas::Target>, String>> {
    use super::replicas::{Outcome, Why};
    let decided = &d.placement.as_ref()?.decided;
    if let Some(e) = &decided.error {
        return Some(Err(e.text().to_string()));
    }
    match decided.assignment.as_ref()? {
        Outcome::Scheduled(s) if s.shares.iter().all(|x| x.why != Why::NoReplicas) => {
            Some(Ok(s.targets()))
        }
        _ => None,
    }
}

/// The replica changes between two sides; `None` when a side is unknown or nothing changes.
pub fn replica_shift(
    before: Option<Result<Vec<super::replicas::Target>, String>>,
    after: Option<Result<Vec<super::replicas::Target>, String>>,
) -> Option<ReplicaShift> {
    let (before, after) = (before?, after?);
    let list =
        |side: &Result<Vec<super::replicas::Target>, String>| side.clone().unwrap_or_default();
    let (b, a) = (list(&before), list(&after));
    let mut names: Vec<&str> = b.iter().chain(&a).map(|t| t.cluster.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let count = |side: &[super::replicas::Target], n: &str| {
        side.iter()
            .find(|t| t.cluster == n)
            .map_or(0, |t| t.replicas)
    };
    let clusters: Vec<ReplicaChange> = names
        .into_iter()
        .map(|n| ReplicaChange {
            cluster: n.to_string(),
            before: count(&b, n),
            after: count(&a, n),
        })
        .filter(|c| c.before != c.after)
        .collect();
    let shift = ReplicaShift {
        clusters,
        before_error: before.err(),
        after_error: after.err(),
    };
    (!shift.clusters.is_empty() || shift.before_error != shift.after_error).then_some(shift)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::stored_manifest;

    #[test]
    fn a_template_without_a_namespace_is_stored_in_the_requests() {
        let t = json!({"metadata": {"name": "nginx"}});
        assert_eq!(
            stored_manifest(t.clone(), "default")["metadata"]["namespace"],
            "default"
        );
        let set = json!({"metadata": {"name": "nginx", "namespace": "shop"}});
        assert_eq!(stored_manifest(set.clone(), "default"), set);
        // Cluster-scoped: no namespace added.
        assert_eq!(stored_manifest(t.clone(), ""), t);
    }
}

#[cfg(test)]
mod scheduled_tests {
    use serde_json::json;

    use super::scheduled_clusters;
    use crate::engine::placement::{evaluate, BindingView};
    use crate::model::cluster::Cluster;
    use crate::model::meta::ObjectMeta;
    use crate::model::policy::Placement;

    #[test]
    fn a_schedule_that_fails_after_the_filter_sends_the_template_nowhere() {
        let clusters: Vec<Cluster> = ["c1", "c2", "c3"]
            .iter()
            .map(|n| {
                let meta = ObjectMeta {
                    name: (*n).into(),
                    ..ObjectMeta::default()
                };
                Cluster::from_json(&meta, &json!({"spec": {}}))
            })
            .collect();
        // spreadByLabel only: every cluster is feasible, the selection fails
        // (select_clusters.go:54, generic_scheduler.go:98-101): no `spec.clusters`.
        let placement: Placement = serde_json::from_value(json!({"spreadConstraints": [
            {"spreadByLabel": "zone", "minGroups": 2, "maxGroups": 2}]}))
        .unwrap();
        let view = BindingView {
            api_version: "apps/v1",
            kind: "Deployment",
            workload: true,
            ..BindingView::default()
        };
        let r = evaluate(&placement, &clusters, &view);
        assert_eq!(r.decided.feasible.len(), 3);
        assert!(r.decided.error.is_some());
        assert!(scheduled_clusters(&r).is_empty());
        // Without spread constraints the same clusters receive it.
        let r = evaluate(&Placement::default(), &clusters, &view);
        assert_eq!(scheduled_clusters(&r).len(), 3);
    }
}
