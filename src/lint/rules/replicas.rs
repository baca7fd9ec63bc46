//! Replica rules (replica-assignment.md, `engine::replicas`): what a placement's replica
//! scheduling does with the known member clusters and the templates the policy owns, where the
//! answer is certain from the inputs. Static weights are checked against the clusters the
//! placement can select (every clusterAffinities term); replica counts against the templates the
//! policy owns once Karmada settles; capacity against the Cluster objects' declared
//! `status.resourceSummary`.

use std::collections::BTreeSet;

use crate::engine::reconcile::Owner;
use crate::engine::replicas::select::{spread_field, SpreadSelection, UNSUPPORTED_SPREAD};
use crate::engine::replicas::{
    self, estimator, workload, CapacitySource, Outcome, ReplicaView, Strategy, Why,
};
use crate::engine::state::PolicyEntry;
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::cluster::Cluster;
use crate::model::policy::{ClusterAffinity, Placement, StaticClusterWeight};
use crate::source::FieldPath;

use super::placement::{only_term, selected_kinds, Views};

pub const WEIGHT_TARGETS_NO_CLUSTER: RuleDoc = RuleDoc {
    id: "static-weight-targets-no-cluster",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A `staticWeightList` entry whose `targetCluster` matches no cluster the placement can select",
    rationale: "Static weights are read only for the clusters the placement selects: an entry that matches none of \
                them divides nothing, and its weight is lost (often a misspelled name or label). The other entries \
                divide all the replicas among themselves. Checked against the Cluster objects (every \
                clusterAffinities term counts as selectable); without them, where names alone decide (a placement \
                and entries given by `clusterNames` only).",
    example: "spec:\n  placement:\n    clusterAffinity: {clusterNames: [member1, member2]}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n        - {targetCluster: {clusterNames: [member1]}, weight: 2}\n        - {targetCluster: {clusterNames: [membr2]}, weight: 1}\n",
    fix: "Target a cluster the placement selects, or drop the entry.",
    reference: "pkg/scheduler/core/division_algorithm.go:38-72 (getStaticWeightInfoList: the largest matching weight; clusters with weight 0 are left out)",
};

pub const WEIGHTS_MATCH_NO_CLUSTER: RuleDoc = RuleDoc {
    id: "static-weights-match-no-cluster",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A `staticWeightList` none of whose entries matches a cluster the placement selects",
    rationale: "When no selected cluster matches any entry, the weight sum is 0 and Karmada silently weighs every \
                selected cluster 1: the replicas are spread evenly, which is not what the list says. Checked against \
                the Cluster objects; without them, where names alone decide (a placement and entries given by \
                `clusterNames` only).",
    example: "spec:\n  placement:\n    clusterAffinity: {clusterNames: [member1, member2]}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n        - {targetCluster: {labelSelector: {matchLabels: {tier: gold}}}, weight: 3}\n",
    fix: "Make the entries match the selected clusters (names, labels, fields).",
    reference: "pkg/scheduler/core/division_algorithm.go:38-72 (getStaticWeightInfoList: a zero weight sum gives every cluster weight 1)",
};

pub const MIN_GROUPS_EXCEED_REPLICAS: RuleDoc = RuleDoc {
    id: "replicas-below-min-groups",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A divided template with fewer replicas than its spread constraint's `minGroups`",
    rationale: "Spread selection keeps at least `minGroups` clusters, but dividing fewer replicas than that leaves \
                some of them with 0, and clusters with 0 replicas are dropped from the binding: the workload runs \
                in fewer groups than the constraint promises. Duplicated and static weights are not concerned \
                (the first copies the replicas, the second ignores spread constraints).",
    example: "# Deployment web has replicas: 2\nspec:\n  placement:\n    spreadConstraints:\n    - {spreadByField: cluster, minGroups: 3, maxGroups: 3}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}\n",
    fix: "Raise the template's replicas to at least minGroups, or lower minGroups.",
    reference: "pkg/scheduler/core/spreadconstraint/select_clusters_by_cluster.go:25-46 (selectBestClustersByCluster); pkg/scheduler/core/division_algorithm.go:75-101 (dynamicDivideReplicas); pkg/scheduler/core/util.go:189-197 (removeZeroReplicasCluster)",
};

pub const EXCEEDS_DECLARED_CAPACITY: RuleDoc = RuleDoc {
    id: "replicas-exceed-declared-capacity",
    group: RuleGroup::Semantics,
    default_severity: Severity::Info,
    summary: "Duplicated or static weights put more replicas on a cluster than its declared capacity fits",
    rationale: "Duplicated and static weights do not look at capacity: Karmada assigns the replicas and the member \
                cluster leaves the extra pods Pending. The capacity is the general estimator's answer from the \
                Cluster's `status.resourceSummary` (allocatable minus allocated minus allocating, and the pods \
                limit) for the template's requests.",
    example: "# Cluster member1 reports 2 cpu free; Deployment web requests 1 cpu and has 5 replicas\nspec:\n  placement:\n    clusterAffinity: {clusterNames: [member1]}\n",
    fix: "Divide by dynamic weights or Aggregated (they respect capacity), lower the replicas, or add capacity.",
    reference: "pkg/scheduler/core/assignment.go:181-211 (assignByDuplicatedStrategy, assignByStaticWeightStrategy: no capacity read); pkg/estimator/client/general.go:66-108,445-505 (maxAvailableReplicas, getAllowedPodNumber, getMaximumReplicasBasedOnClusterSummary)",
};

pub const CAPACITY_UNDECLARED: RuleDoc = RuleDoc {
    id: "dynamic-placement-capacity-unknown",
    group: RuleGroup::Semantics,
    default_severity: Severity::Info,
    summary: "A dynamic-weight or Aggregated placement over clusters that declare no resource summary",
    rationale: "Dynamic weights and Aggregated divide by each cluster's available replicas, which Karmada reads from \
                the Cluster's `status.resourceSummary`. The Cluster objects given declare none for some selected \
                clusters, so how many replicas each receives depends on live capacity (`explain` against the control \
                plane shows it).",
    example: "# Cluster member1 has no status\nspec:\n  placement:\n    clusterAffinity: {clusterNames: [member1]}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}\n",
    fix: "Nothing to fix: informational. Give the Cluster objects with their status to check the division.",
    reference: "pkg/scheduler/core/division_algorithm.go:75-101 (dynamicDivideReplicas); pkg/estimator/client/general.go:66-72 (maxAvailableReplicas: no resourceSummary, 0 replicas)",
};

pub const SPREAD_IGNORED: RuleDoc = RuleDoc {
    id: "spread-constraints-ignored",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "`spreadConstraints` the scheduler ignores: beside static weights, or a zone, provider or spreadByLabel constraint beside a region or cluster one",
    rationale: "With `replicaSchedulingType: Divided`, `replicaDivisionPreference: Weighted` and a \
                `staticWeightList` (no `dynamicWeight`), or no weight preference at all, karmada-scheduler skips \
                the spread constraints (`shouldIgnoreSpreadConstraint`): every feasible cluster is selected and \
                the replicas are divided by the weights, however few groups `maxGroups` allows. A placement \
                that expects, say, exactly two of three clusters gets all three. Otherwise the scheduler selects \
                by the region constraint, else by the cluster one, and by nothing else: a `zone` or `provider` \
                constraint beside them only drops the clusters without that field (the SpreadConstraint filter), \
                its `minGroups` and `maxGroups` are never enforced (all the selected clusters may be in one \
                zone), and a `spreadByLabel` constraint is read nowhere.",
    example: "spec:\n  placement:\n    clusterAffinity: {clusterNames: [member1, member2, member3]}\n    spreadConstraints:\n    - {spreadByField: cluster, maxGroups: 2, minGroups: 2}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n        - {targetCluster: {clusterNames: [member1]}, weight: 1}\n        - {targetCluster: {clusterNames: [member2, member3]}, weight: 1}\n",
    fix: "Narrow the clusters with `clusterAffinity` (or `clusterAffinities`) instead, or divide by \
          `dynamicWeight: AvailableReplicas` or `Aggregated`, which the spread constraints do apply to. For a \
          zone, provider or label constraint: spread by region (with a cluster constraint), or choose the \
          clusters of each zone with `clusterAffinity`; drop the constraint if only its filter is wanted.",
    reference: "pkg/scheduler/core/spreadconstraint/select_clusters.go:28-39 (SelectBestClusters), :41-55 \
                (selectBestClustersBySpreadConstraints: region, else cluster), :57-69 (shouldIgnoreSpreadConstraint); \
                pkg/scheduler/core/spreadconstraint/group_clusters.go:380-416 (zone groups computed, never selected by); \
                pkg/scheduler/framework/plugins/spreadconstraint/spread_constraint.go:48-66 (the filter: clusters without \
                the field)",
};

pub const SPREAD_UNSCHEDULABLE: RuleDoc = RuleDoc {
    id: "spread-constraints-unschedulable",
    group: RuleGroup::Semantics,
    default_severity: Severity::Error,
    summary: "`spreadConstraints` with no region or cluster constraint (only spreadByLabel): every scheduling attempt fails",
    rationale: "karmada-scheduler selects clusters by a region spread constraint, else by a cluster one; with \
                neither it fails with `failed to select clusters: just support cluster and region spread \
                constraint`, on every attempt and whatever the member clusters, so the binding is never scheduled \
                and nothing propagates. Admission accepts such constraints: only `spreadByLabel` ones (Karmada's own \
                artifacts/example/policy_with_labelSelector.yaml), since any `spreadByField` must come with a \
                cluster one and a constraint with neither defaults to cluster. `spreadByLabel` is read nowhere in \
                the scheduler. Not reported when static weights make the scheduler skip the constraints \
                (`spread-constraints-ignored`).",
    example: "spec:\n  placement:\n    clusterAffinity: {clusterNames: [member1, member2, member3]}\n    spreadConstraints:\n    - {spreadByLabel: failuredomain.kubernetes.io/zone, minGroups: 2, maxGroups: 2}\n",
    fix: "Spread by `spreadByField: cluster` (or by `region`, with a cluster constraint), or drop the \
          spreadByLabel constraint and choose the clusters with `clusterAffinity` (a labelSelector on the label).",
    reference: "pkg/scheduler/core/spreadconstraint/select_clusters.go:41-55 (selectBestClustersBySpreadConstraints: \
                \"just support cluster and region spread constraint\"); pkg/scheduler/core/generic_scheduler.go:98-101 \
                (Schedule: \"failed to select clusters\"); pkg/util/validation/validation.go:265-313 \
                (ValidateSpreadConstraint); pkg/util/helper/policy.go:32-44 (SetDefaultSpreadConstraints)",
};

pub static RULE: Rule = Rule {
    docs: &[
        SPREAD_IGNORED,
        SPREAD_UNSCHEDULABLE,
        WEIGHT_TARGETS_NO_CLUSTER,
        WEIGHTS_MATCH_NO_CLUSTER,
        MIN_GROUPS_EXCEED_REPLICAS,
        EXCEEDS_DECLARED_CAPACITY,
        CAPACITY_UNDECLARED,
    ],
    checks: &[Check::Semantic(check)],
};

const WEIGHTS: &str = "spec.placement.replicaScheduling.weightPreference.staticWeightList";

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let objects = !a.clusters.is_empty() && !a.clusters.names_only;
    let mut views = Views::new(&a.clusters);
    for (i, p) in a.state.live_policies() {
        if !p.known || p.terminating || p.doc.is_none() {
            continue;
        }
        let Some(placement) = &p.spec.placement else {
            continue;
        };
        check_spread_selection(a, i, p, placement, &mut out);
        let strategy = Strategy::of(placement);
        if objects {
            let selectable = selectable(placement, &selected_kinds(p), &mut views);
            if strategy == Strategy::StaticWeight {
                check_weights(a, i, p, placement, &selectable, &mut out);
            }
            if matches!(strategy, Strategy::DynamicWeight | Strategy::Aggregated) {
                check_undeclared(a, i, p, &selectable, &mut out);
            }
        } else if strategy == Strategy::StaticWeight {
            check_weights_by_name(a, i, p, placement, &mut out);
        }
    }
    check_templates(a, objects, &mut views, &mut out);
    out
}

/// spread-constraints-ignored (static weights skip them all; or the constraints a region or
/// cluster selection never reads) and spread-constraints-unschedulable, from the engine's
/// [`SpreadSelection`] (the answer the placement evaluation gives `explain`). None depends on
/// the clusters: reported with or without them (`no-cluster-fits` leaves the selection error
/// to this rule).
fn check_spread_selection(
    a: &Analysis<'_>,
    i: usize,
    p: &PolicyEntry,
    placement: &Placement,
    out: &mut Vec<Finding>,
) {
    let path = FieldPath::parse("spec.placement.spreadConstraints");
    let selection = SpreadSelection::of(placement);
    if selection == SpreadSelection::Every && !placement.spread_constraints.is_empty() {
        out.push(a.policy_finding(
            i,
            &SPREAD_IGNORED,
            &path,
            format!(
                "{}: spreadConstraints are ignored by the scheduler with static weights (Divided, Weighted, no dynamicWeight): every feasible cluster is selected",
                p.reference()
            ),
        ));
        return;
    }
    if selection == SpreadSelection::Unsupported {
        out.push(a.policy_finding(
            i,
            &SPREAD_UNSCHEDULABLE,
            &path,
            format!(
                "{}: no spread constraint is by region or cluster (spreadByLabel is not read by the scheduler): every scheduling attempt fails with \"failed to select clusters: {UNSUPPORTED_SPREAD}\": a new binding gets no cluster (one scheduled before keeps its clusters)",
                p.reference()
            ),
        ));
        return;
    }
    let by = if selection == SpreadSelection::Region {
        "region"
    } else {
        "cluster"
    };
    for n in selection.unread(placement) {
        let sc = &placement.spread_constraints[n];
        let what = if sc.spread_by_field.is_empty() {
            format!(
                "the spreadByLabel {} constraint is read nowhere",
                sc.spread_by_label
            )
        } else {
            // `unread` leaves only zone and provider fields: the field names what is dropped.
            let field = &sc.spread_by_field;
            format!(
                "the {field} constraint only drops clusters without a {field}; its minGroups and maxGroups are not enforced"
            )
        };
        out.push(a.policy_finding(
            i,
            &SPREAD_IGNORED,
            &path.clone().index(n),
            format!(
                "{}: the scheduler selects clusters by the {by} spread constraint only: {what}",
                p.reference()
            ),
        ));
    }
}

/// The clusters the placement can select for any of its kinds and any of its terms.
fn selectable<'v>(
    placement: &Placement,
    kinds: &[(String, String)],
    views: &mut Views<'v>,
) -> Vec<Cluster> {
    let terms = placement.cluster_affinities.as_ref().map_or(0, Vec::len);
    let placements: Vec<Placement> = if placement.cluster_affinity.is_none() && terms > 0 {
        (0..terms).map(|t| only_term(placement, t)).collect()
    } else {
        vec![placement.clone()]
    };
    let mut names = BTreeSet::new();
    for k in kinds {
        for pl in &placements {
            names.extend(views.evaluate(pl, k).decided.feasible.iter().cloned());
        }
    }
    views
        .clusters()
        .iter()
        .filter(|c| names.contains(&c.name))
        .cloned()
        .collect()
}

/// The placement's static weight list, when it has one.
fn static_weights(placement: &Placement) -> Option<&[StaticClusterWeight]> {
    placement
        .replica_scheduling
        .as_ref()
        .and_then(|r| r.weight_preference.as_ref())
        .map(|w| w.static_weight_list.as_slice())
        .filter(|l| !l.is_empty())
}

fn check_weights(
    a: &Analysis<'_>,
    i: usize,
    p: &PolicyEntry,
    placement: &Placement,
    selectable: &[Cluster],
    out: &mut Vec<Finding>,
) {
    let Some(list) = static_weights(placement) else {
        return;
    };
    if selectable.is_empty() {
        return; // no-cluster-fits reports the placement
    }
    let matched: Vec<bool> = list
        .iter()
        .map(|e| {
            selectable
                .iter()
                .any(|c| crate::engine::placement::cluster_matches(c, &e.target_cluster))
        })
        .collect();
    let names: Vec<&str> = selectable.iter().map(|c| c.name.as_str()).collect();
    report_weights(a, i, p, list, &matched, &names, out);
}

/// [`check_weights`] without Cluster objects, where names alone decide: a placement that
/// selects by `clusterNames` only can select no cluster outside them, and an entry that targets
/// by `clusterNames` only matches none of those it does not name (`util.ClusterMatches`).
/// Entries with label or field selectors, or none at all, leave it undecided.
fn check_weights_by_name(
    a: &Analysis<'_>,
    i: usize,
    p: &PolicyEntry,
    placement: &Placement,
    out: &mut Vec<Finding>,
) {
    let Some(list) = static_weights(placement) else {
        return;
    };
    let Some(names) = placement
        .cluster_affinity
        .as_ref()
        .and_then(ClusterAffinity::selectable_names)
        .filter(|_| {
            placement
                .cluster_affinities
                .as_ref()
                .is_none_or(Vec::is_empty)
        })
    else {
        return;
    };
    if names.is_empty() {
        return; // no-cluster-fits reports the placement
    }
    let mut matched = Vec::with_capacity(list.len());
    for e in list {
        let Some(targets) = e.target_cluster.selectable_names() else {
            return;
        };
        matched.push(names.iter().any(|n| targets.contains(n)));
    }
    report_weights(a, i, p, list, &matched, &names, out);
}

/// The findings of a static weight list whose entries `matched` a selectable cluster or not.
fn report_weights(
    a: &Analysis<'_>,
    i: usize,
    p: &PolicyEntry,
    list: &[StaticClusterWeight],
    matched: &[bool],
    names: &[&str],
    out: &mut Vec<Finding>,
) {
    if !matched.contains(&true) {
        out.push(a.policy_finding(
            i,
            &WEIGHTS_MATCH_NO_CLUSTER,
            &FieldPath::parse(WEIGHTS),
            format!(
                "{}: no staticWeightList entry matches a cluster the placement selects ({}): Karmada weighs every selected cluster 1 and spreads the replicas evenly",
                p.reference(),
                names.join(", ")
            ),
        ));
        return;
    }
    for (e, entry) in list.iter().enumerate() {
        if !matched[e] {
            out.push(a.policy_finding(
                i,
                &WEIGHT_TARGETS_NO_CLUSTER,
                &FieldPath::parse(WEIGHTS).index(e),
                format!(
                    "{}: staticWeightList[{e}] (weight {}) matches none of the clusters the placement selects ({}): its weight divides nothing",
                    p.reference(),
                    entry.weight,
                    names.join(", ")
                ),
            ));
        }
    }
}

fn check_undeclared(
    a: &Analysis<'_>,
    i: usize,
    p: &PolicyEntry,
    selectable: &[Cluster],
    out: &mut Vec<Finding>,
) {
    let missing: Vec<&str> = selectable
        .iter()
        .filter(|c| c.status.resource_summary.is_none())
        .map(|c| c.name.as_str())
        .collect();
    if missing.is_empty() {
        return;
    }
    out.push(a.policy_finding(
        i,
        &CAPACITY_UNDECLARED,
        &FieldPath::parse("spec.placement.replicaScheduling"),
        format!(
            "{}: divides replicas by available capacity, and {} no status.resourceSummary: the shares depend on live capacity",
            p.reference(),
            match missing.as_slice() {
                [one] => format!("Cluster {one} declares"),
                many => format!("Clusters {} declare", many.join(", ")),
            }
        ),
    ));
}

/// The per-template rules: replicas below minGroups, and more replicas on a cluster than it
/// declares capacity for (Duplicated and static weights).
fn check_templates(a: &Analysis<'_>, objects: bool, views: &mut Views<'_>, out: &mut Vec<Finding>) {
    let summaries = objects
        && a.clusters
            .clusters
            .iter()
            .any(|c| c.status.resource_summary.is_some());
    for (t, tpl) in a.state.templates.iter().enumerate() {
        let Owner::Policy(p) = a.settled[t].owner else {
            continue;
        };
        let p = p as usize;
        let pol = a.state.policy(p);
        let Some(placement) = &pol.spec.placement else {
            continue;
        };
        let strategy = Strategy::of(placement);
        let spread = !placement.spread_constraints.is_empty()
            && matches!(strategy, Strategy::DynamicWeight | Strategy::Aggregated);
        let capacity =
            summaries && matches!(strategy, Strategy::Duplicated | Strategy::StaticWeight);
        if !spread && !capacity {
            continue;
        }
        let Some(json) = tpl
            .doc
            .and_then(|d| a.inventory.documents.get(d))
            .map(|d| d.full_tree().to_json())
        else {
            continue;
        };
        let Ok(w) = workload::from_template(&json) else {
            continue;
        };
        if !w.interpreted || w.replicas == 0 {
            continue;
        }
        if spread {
            below_min_groups(a, p, placement, &tpl.reference().to_string(), &w, out);
        }
        if capacity {
            let kind = (tpl.api_version.to_string(), tpl.kind.to_string());
            over_capacity(
                a,
                p,
                placement,
                &tpl.reference().to_string(),
                &w,
                &kind,
                views,
                out,
            );
        }
    }
}

fn below_min_groups(
    a: &Analysis<'_>,
    p: usize,
    placement: &Placement,
    template: &str,
    w: &workload::Workload,
    out: &mut Vec<Finding>,
) {
    for (n, sc) in placement.spread_constraints.iter().enumerate() {
        let min = sc.min_groups.unwrap_or(1);
        // A spreadByLabel constraint has no field: never a cluster one.
        let field = spread_field(sc);
        if i64::from(w.replicas) < min && matches!(field, "cluster" | "region") {
            out.push(a.policy_finding(
                p,
                &MIN_GROUPS_EXCEED_REPLICAS,
                &FieldPath::parse("spec.placement.spreadConstraints").index(n),
                format!(
                    "{}: {template} has {} replica(s), fewer than minGroups {min} by {field}: at most {} {field}(s) receive replicas, the others get 0 and are dropped",
                    a.state.policy(p).reference(),
                    w.replicas,
                    w.replicas
                ),
            ));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn over_capacity(
    a: &Analysis<'_>,
    p: usize,
    placement: &Placement,
    template: &str,
    w: &workload::Workload,
    kind: &(String, String),
    views: &mut Views<'_>,
    out: &mut Vec<Finding>,
) {
    let result = views.evaluate(placement, kind);
    if result.decided.error.is_some() {
        return;
    }
    let clusters = views.clusters();
    let feasible: Vec<&Cluster> = clusters
        .iter()
        .filter(|c| result.decided.feasible.contains(&c.name))
        .collect();
    let view = ReplicaView {
        workload: w,
        capacity: CapacitySource::Declared,
        traits: crate::engine::delivery::scheduler_traits(a.state),
        previous: &[],
    };
    let term = result.decided.term.as_deref().and_then(|name| {
        placement
            .cluster_affinities
            .iter()
            .flatten()
            .find(|t| t.affinity_name == name)
    });
    let Outcome::Scheduled(s) = replicas::schedule(&feasible, placement, term, &view) else {
        return;
    };
    let mut over = Vec::new();
    for share in &s.shares {
        let Some(c) = feasible.iter().find(|c| c.name == share.cluster) else {
            continue;
        };
        if c.status.resource_summary.is_none() || matches!(share.why, Why::NoReplicas) {
            continue;
        }
        let Ok(e) = estimator::estimate(c, w.requirements.as_ref(), true) else {
            continue;
        };
        if share.replicas > e.replicas {
            over.push(format!(
                "{} gets {} but fits {}",
                share.cluster, share.replicas, e.replicas
            ));
        }
    }
    if over.is_empty() {
        return;
    }
    out.push(a.policy_finding(
        p,
        &EXCEEDS_DECLARED_CAPACITY,
        &FieldPath::parse("spec.placement"),
        format!(
            "{}: {template}: {} (capacity from status.resourceSummary; Karmada does not check it for {}: the extra pods stay Pending)",
            a.state.policy(p).reference(),
            over.join(", "),
            s.strategy.as_str()
        ),
    ));
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::lint_rule;

    const LABEL_SPREAD: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  placement:\n    clusterAffinity: {clusterNames: [c1, c2, c3]}\n    spreadConstraints:\n    - {spreadByLabel: zone, minGroups: 2, maxGroups: 2}\n";

    const CLUSTERS: &str = "---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: c1}\nspec: {zones: [z1]}\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: c2}\nspec: {zones: [z1]}\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: c3}\nspec: {zones: [z2]}\n";

    #[test]
    fn spread_by_label_only_never_schedules_with_or_without_clusters() {
        // select_clusters.go:41-55: neither region nor cluster, whatever the clusters.
        let f = lint_rule(LABEL_SPREAD, "spread-constraints-unschedulable", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message
                .contains("just support cluster and region spread constraint"),
            "{}",
            f[0].message
        );
        let with = format!("{LABEL_SPREAD}{CLUSTERS}");
        assert_eq!(
            lint_rule(&with, "spread-constraints-unschedulable", false).len(),
            1
        );
        // Reported once: no-cluster-fits leaves the selection error to this rule.
        assert!(lint_rule(&with, "no-cluster-fits", false).is_empty());
        // Static weights skip the constraints: spread-constraints-ignored says so instead.
        let weighted = format!("{LABEL_SPREAD}    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n");
        assert!(lint_rule(&weighted, "spread-constraints-unschedulable", false).is_empty());
    }

    #[test]
    fn zone_and_label_constraints_beside_a_cluster_one_are_not_enforced() {
        let text = LABEL_SPREAD.replace(
            "    - {spreadByLabel: zone, minGroups: 2, maxGroups: 2}\n",
            "    - {spreadByField: zone, minGroups: 2, maxGroups: 2}\n    - {spreadByField: cluster, minGroups: 2, maxGroups: 2}\n    - {spreadByLabel: rack}\n",
        );
        let f = lint_rule(&text, "spread-constraints-ignored", false);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(
            f[0].message.contains("the zone constraint"),
            "{}",
            f[0].message
        );
        assert_eq!(
            f[0].field.as_deref(),
            Some("spec.placement.spreadConstraints[0]")
        );
        assert!(
            f[1].message.contains("spreadByLabel rack"),
            "{}",
            f[1].message
        );
        assert!(lint_rule(&text, "spread-constraints-unschedulable", false).is_empty());
        // Region and cluster alone: both read.
        let text = LABEL_SPREAD.replace(
            "    - {spreadByLabel: zone, minGroups: 2, maxGroups: 2}\n",
            "    - {spreadByField: region, minGroups: 1, maxGroups: 2}\n    - {spreadByField: cluster, minGroups: 2, maxGroups: 2}\n",
        );
        assert!(lint_rule(&text, "spread-constraints-ignored", false).is_empty());
    }

    fn pp(affinity: &str, weights: &str) -> String {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: p, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n    clusterAffinity: {affinity}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n{weights}")
    }

    #[test]
    fn without_cluster_objects_names_alone_decide_the_static_weights() {
        // ccie7599/karmada-lke's shape: the placement can only select eu and us, the only
        // entry names uk: every weight is 0 and Karmada weighs eu and us 1 each.
        let text = pp(
            "{clusterNames: [eu, us]}",
            "        - {targetCluster: {clusterNames: [uk]}, weight: 1}\n",
        );
        let f = lint_rule(&text, "static-weights-match-no-cluster", false);
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("(eu, us)"), "{}", f[0].message);
        // One entry of two names no selectable cluster: its weight divides nothing.
        let text = pp(
            "{clusterNames: [eu, us]}",
            "        - {targetCluster: {clusterNames: [eu]}, weight: 2}\n        - {targetCluster: {clusterNames: [uk]}, weight: 1}\n",
        );
        assert!(lint_rule(&text, "static-weights-match-no-cluster", false).is_empty());
        let f = lint_rule(&text, "static-weight-targets-no-cluster", false);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message.contains("staticWeightList[1]"),
            "{}",
            f[0].message
        );
        // An excluded name, a label selector on either side: names alone do not decide.
        let text = pp(
            "{clusterNames: [eu, us], exclude: [eu]}",
            "        - {targetCluster: {clusterNames: [eu]}, weight: 1}\n",
        );
        assert_eq!(
            lint_rule(&text, "static-weights-match-no-cluster", false).len(),
            1
        );
        for (affinity, target) in [
            (
                "{clusterNames: [eu, us]}",
                "{labelSelector: {matchLabels: {tier: gold}}}",
            ),
            (
                "{labelSelector: {matchLabels: {env: prod}}}",
                "{clusterNames: [uk]}",
            ),
        ] {
            let text = pp(
                affinity,
                &format!("        - {{targetCluster: {target}, weight: 1}}\n"),
            );
            assert!(lint_rule(&text, "static-weights-match-no-cluster", false).is_empty());
        }
    }
}
