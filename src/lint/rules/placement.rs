//! Placement rules that need the member clusters (Cluster objects from the inputs or the
//! control plane, else `knownClusters` names): a placement no cluster fits, a
//! `clusterAffinities` term that never fits, a toleration for a taint no cluster has, and a
//! suspended cluster the placement never selects. They run the engine's filter stage
//! ([`crate::engine::placement`], overrides-and-placement.md Part B) for each kind the policy
//! selects, as for a new binding.
//!
//! What the inputs cannot say is not held against a policy: a cluster whose API enablements
//! the inputs do not report (a Cluster object without status, or a bare name) is taken to serve
//! every kind, as the engine's filter stage takes it everywhere (`ApiState::NotReported`), and
//! against bare names only `clusterNames` and `exclude` can rule a cluster out.

use std::collections::HashMap;
use std::rc::Rc;

use crate::model::cluster::Cluster;

use crate::engine::placement::{evaluate, Attempt, BindingView, PlacementResult, ScheduleError};
use crate::engine::replicas::select::SpreadSelection;
use crate::engine::state::PolicyEntry;
use crate::engine::suspension::target_clusters;
use crate::lint::analysis::{Analysis, KnownClusters};
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::policy::{ClusterAffinity, Placement};
use crate::source::FieldPath;

pub const NO_CLUSTER_FITS: RuleDoc = RuleDoc {
    id: "no-cluster-fits",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A placement that no known member cluster satisfies",
    rationale: "The scheduler's filter stage (cluster affinity, taints and tolerations, API enablement, spread \
                constraints) excludes every cluster, so the binding is never scheduled and nothing propagates: its \
                only trace is a `0/N clusters are available` condition on the ResourceBinding (karmada#2026). The \
                finding names the filter that excludes each cluster. Checked against the Cluster objects of the \
                input (or, with `--live`, the control plane's), else against `knownClusters` by name.",
    example: "# Cluster member1 has the taint dedicated=gpu:NoSchedule\nspec:\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n",
    fix: "Fix the affinity (names, labels, fields), tolerate the taint, or add the cluster the placement means.",
    reference: "pkg/scheduler/core/generic_scheduler.go:119-163 (findClustersThatFit) and the filter plugins in pkg/scheduler/framework/plugins/ (clusteraffinity, tainttoleration, apienablement, clustereviction, spreadconstraint); pkg/scheduler/framework/types.go:68-90 (FitError.Error); karmada#2026",
};

pub const TERM_NEVER_FITS: RuleDoc = RuleDoc {
    id: "affinity-term-never-fits",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A `clusterAffinities` term that no known member cluster satisfies",
    rationale: "The scheduler tries the terms in order and moves to the next one when no cluster fits. A term that \
                never fits is never the one that schedules: with other terms fitting, the placement silently falls \
                through to them (a backup term that cannot serve as a backup). Checked only when some term fits: \
                otherwise `no-cluster-fits` reports the placement.",
    example: "spec:\n  placement:\n    clusterAffinities:\n    - {affinityName: primary, clusterNames: [member1]}\n    - {affinityName: backup, clusterNames: [membr2]}\n",
    fix: "Fix the term's selectors, or drop the term.",
    reference: "pkg/scheduler/scheduler.go:618-684 (scheduleResourceBindingWithClusterAffinities: terms tried in order from the observed one)",
};

pub const TOLERATION_UNUSED: RuleDoc = RuleDoc {
    id: "toleration-matches-no-taint",
    group: RuleGroup::Semantics,
    default_severity: Severity::Info,
    summary: "A `clusterTolerations` entry that tolerates no taint of any known member cluster",
    rationale: "Tolerations only let a placement onto clusters with matching taints; one that matches no taint \
                does nothing, often because its key, value or effect is misspelled. The taints Karmada's cluster \
                controller adds on failure (`cluster.karmada.io/not-ready`, `unreachable`, `unschedulable`) are \
                not reported: no cluster has them until it fails. Checked only against Cluster objects.",
    example: "# Cluster member1 has the taint dedicated=gpu:NoSchedule\nspec:\n  placement:\n    clusterTolerations:\n    - {key: dedicated, operator: Equal, value: gpus, effect: NoSchedule}\n",
    fix: "Match the taint's key, value and effect, or drop the toleration.",
    reference: "pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go:53-84 (TaintToleration.Filter); k8s.io/api/core/v1/toleration.go:52-77 (Toleration.ToleratesTaint)",
};

pub const SUSPENDED_EXCLUDED: RuleDoc = RuleDoc {
    id: "suspended-cluster-never-selected",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A cluster in `dispatchingOnClusters` that the placement's filters always exclude",
    rationale: "Suspension is applied per Work, and a cluster the placement never selects has no Work: the entry \
                pauses nothing. Where `suspended-cluster-not-targeted` compares names, this rule runs the \
                scheduler's filters against the known clusters (labels, fields, taints, APIs, every \
                clusterAffinities term) and names the filter that excludes the cluster, or says no such cluster \
                exists.",
    example: "# Cluster member2 has the label env=dev\nspec:\n  placement:\n    clusterAffinity:\n      labelSelector: {matchLabels: {env: prod}}\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member2]\n",
    fix: "Suspend a cluster the placement selects, or drop the stale entry.",
    reference: "pkg/controllers/binding/common.go:53-156 (ensureWork: Works only for the binding's clusters); pkg/scheduler/core/generic_scheduler.go:119-163 (findClustersThatFit)",
};

pub static RULE: Rule = Rule {
    docs: &[
        NO_CLUSTER_FITS,
        TERM_NEVER_FITS,
        TOLERATION_UNUSED,
        SUSPENDED_EXCLUDED,
    ],
    checks: &[Check::Semantic(check)],
};

/// Taint keys Karmada's cluster controller adds to failing clusters
/// (`pkg/apis/cluster/v1alpha1/well_known_constants.go`).
const CONTROLLER_TAINTS: &[&str] = &[
    "cluster.karmada.io/not-ready",
    "cluster.karmada.io/unreachable",
    "cluster.karmada.io/unschedulable",
];

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    if a.clusters.is_empty() {
        return Vec::new();
    }
    let mut views = Views::new(&a.clusters);
    let mut out = Vec::new();
    for (i, p) in a.state.live_policies() {
        if !p.known || p.terminating || p.doc.is_none() {
            continue;
        }
        let written = p.spec.placement.clone().unwrap_or_default();
        let mut placement = if a.clusters.names_only {
            names_only(&written)
        } else {
            written.clone()
        };
        // Constraints no selection reads fail every attempt, whatever the clusters:
        // spread-constraints-unschedulable says so. They filter no cluster (only spreadByLabel
        // ones remain after admission), so the filter stage is judged without them.
        if SpreadSelection::of(&placement) == SpreadSelection::Unsupported {
            placement.spread_constraints.clear();
        }
        let kinds = selected_kinds(p);
        let fits = check_fit(a, i, p, &placement, &kinds, &mut views, &mut out);
        if fits {
            check_terms(a, i, &placement, &kinds, &mut views, &mut out);
        }
        if !a.clusters.names_only {
            check_tolerations(a, i, p, &written, &mut out);
        }
        check_suspended(a, i, p, &placement, &kinds, &mut views, &mut out);
    }
    out
}

/// The `(apiVersion, kind)` pairs the policy selects, in selector order: the template kinds
/// its placement is evaluated for (API enablement depends on them).
pub(crate) fn selected_kinds(p: &PolicyEntry) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for rs in &p.spec.resource_selectors {
        let k = (rs.api_version.clone(), rs.kind.clone());
        if !rs.kind.is_empty() && !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The known clusters and the filter stage's results, kept by placement and kind: most
/// policies of a repository share a handful of placements.
pub(crate) struct Views<'c> {
    known: &'c KnownClusters,
    results: HashMap<(String, (String, String)), Rc<PlacementResult>>,
}

impl<'c> Views<'c> {
    pub(crate) fn new(known: &'c KnownClusters) -> Views<'c> {
        Views {
            known,
            results: HashMap::new(),
        }
    }

    /// The known member clusters.
    pub(crate) fn clusters(&self) -> &'c [Cluster] {
        &self.known.clusters
    }

    /// The filter stage for `placement` and a template of `kind`, as for a new binding.
    pub(crate) fn evaluate(
        &mut self,
        placement: &Placement,
        kind: &(String, String),
    ) -> Rc<PlacementResult> {
        let key = (
            serde_json::to_string(placement).unwrap_or_default(),
            kind.clone(),
        );
        if let Some(r) = self.results.get(&key) {
            return r.clone();
        }
        let r = Rc::new(evaluate(placement, &self.known.clusters, &view(kind)));
        self.results.insert(key, r.clone());
        r
    }
}

/// A new binding of the kind; a workload, so that overflow terms count (the more permissive
/// reading: a finding must hold whatever the template's replicas).
fn view(kind: &(String, String)) -> BindingView<'_> {
    BindingView {
        api_version: &kind.0,
        kind: &kind.1,
        workload: true,
        ..BindingView::default()
    }
}

/// The placement as far as bare cluster names can judge it: label and field selectors dropped
/// (a name may carry any labels), spread constraints too (a name has no provider or region).
fn names_only(p: &Placement) -> Placement {
    let strip = |a: &mut ClusterAffinity| {
        a.label_selector = None;
        a.field_selector = None;
    };
    let mut p = p.clone();
    if let Some(a) = &mut p.cluster_affinity {
        strip(a);
    }
    for term in p.cluster_affinities.iter_mut().flatten() {
        strip(&mut term.affinity);
        for o in term.overflow_affinities.iter_mut().flatten() {
            strip(&mut o.affinity);
        }
    }
    p.spread_constraints.clear();
    p
}

/// `member1 did not match the placement cluster affinity constraint (ClusterAffinity)`, for
/// each excluded cluster, every filter that excludes it.
fn exclusions(attempt: &Attempt) -> String {
    attempt
        .excluded
        .iter()
        .map(|e| {
            let why: Vec<String> = e.failures.iter().map(failure_text).collect();
            format!("{} {}", e.cluster, why.join(" and "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why an attempt scheduled nothing: the excluded clusters, or the spread selection's error.
fn attempt_failure(attempt: &Attempt) -> String {
    match &attempt.error {
        Some(ScheduleError::Scheduler(e)) => format!(
            "{e} (feasible: {})",
            if attempt.feasible.is_empty() {
                "none".to_string()
            } else {
                attempt.feasible.join(", ")
            }
        ),
        _ => exclusions(attempt),
    }
}

fn kind_text(kind: &(String, String)) -> String {
    format!("{} {}", kind.0, kind.1)
}

/// no-cluster-fits, for the first kind no cluster fits; whether every kind fits.
fn check_fit(
    a: &Analysis<'_>,
    i: usize,
    p: &PolicyEntry,
    placement: &Placement,
    kinds: &[(String, String)],
    views: &mut Views<'_>,
    out: &mut Vec<Finding>,
) -> bool {
    let failing: Vec<(&(String, String), Rc<PlacementResult>)> = kinds
        .iter()
        .map(|k| (k, views.evaluate(placement, k)))
        .filter(|(_, r)| !r.succeeded())
        .collect();
    let Some((kind, result)) = failing.first() else {
        return true;
    };
    let also = match failing.len() {
        1 => String::new(),
        n => format!(" (and {} more selected kinds)", n - 1),
    };
    let detail = if result.attempts.len() > 1 {
        let per_term: Vec<String> = result
            .attempts
            .iter()
            .map(|t| {
                format!(
                    "term {}: {}",
                    t.term.as_deref().unwrap_or(""),
                    attempt_failure(t)
                )
            })
            .collect();
        format!("no clusterAffinities term fits: {}", per_term.join(" | "))
    } else {
        attempt_failure(&result.decided)
    };
    let karmada = result
        .decided
        .error
        .as_ref()
        .map(ScheduleError::text)
        .unwrap_or_default();
    out.push(a.clusters.cite(a.policy_finding(
        i,
        &NO_CLUSTER_FITS,
        &FieldPath::parse("spec.placement"),
        format!(
            "{}: no known cluster fits the placement of {}{also}: {detail}. The binding would report: {karmada}",
            p.reference(),
            kind_text(kind),
        ),
    )));
    false
}

/// The placement with only term `t` of its clusterAffinities: that term's own attempt.
pub(crate) fn only_term(placement: &Placement, t: usize) -> Placement {
    let mut p = placement.clone();
    if let Some(terms) = &mut p.cluster_affinities {
        let term = terms[t].clone();
        *terms = vec![term];
    }
    p
}

/// affinity-term-never-fits: each term that fits no cluster for some selected kind.
fn check_terms(
    a: &Analysis<'_>,
    i: usize,
    placement: &Placement,
    kinds: &[(String, String)],
    views: &mut Views<'_>,
    out: &mut Vec<Finding>,
) {
    let Some(terms) = placement
        .cluster_affinities
        .as_ref()
        .filter(|_| placement.cluster_affinity.is_none())
    else {
        return;
    };
    for (t, term) in terms.iter().enumerate() {
        let alone = only_term(placement, t);
        let failed = kinds.iter().find_map(|k| {
            let r = views.evaluate(&alone, k);
            (!r.succeeded()).then(|| (k, r.decided.clone()))
        });
        let Some((kind, attempt)) = failed else {
            continue;
        };
        let next = if t + 1 < terms.len() {
            "the scheduler moves on to the next term"
        } else {
            "it is the last term: the placement relies on the ones before it"
        };
        out.push(a.clusters.cite(a.policy_finding(
            i,
            &TERM_NEVER_FITS,
            &FieldPath::parse("spec.placement.clusterAffinities").index(t),
            format!(
                "{}: clusterAffinities term `{}` fits no known cluster for {}: {}; {next}",
                a.state.policy(i).reference(),
                term.affinity_name,
                kind_text(kind),
                attempt_failure(&attempt)
            ),
        )));
    }
}

/// toleration-matches-no-taint: tolerations that tolerate no taint of any known cluster.
fn check_tolerations(
    a: &Analysis<'_>,
    i: usize,
    p: &PolicyEntry,
    placement: &Placement,
    out: &mut Vec<Finding>,
) {
    for (t, tol) in placement.cluster_tolerations.iter().enumerate() {
        let tolerates_all = tol.key.is_empty() && tol.operator == "Exists";
        if tolerates_all || CONTROLLER_TAINTS.contains(&tol.key.as_str()) {
            continue;
        }
        let used = a.clusters.clusters.iter().any(|c| {
            c.spec
                .taints
                .iter()
                .any(|taint| crate::engine::placement::tolerates(tol, taint))
        });
        if used {
            continue;
        }
        let value = match tol.operator.as_str() {
            "Exists" => String::new(),
            _ => format!("={}", tol.value),
        };
        let effect = if tol.effect.is_empty() {
            "any effect".to_string()
        } else {
            tol.effect.clone()
        };
        out.push(a.clusters.cite(a.policy_finding(
            i,
            &TOLERATION_UNUSED,
            &FieldPath::parse("spec.placement.clusterTolerations").index(t),
            format!(
                "{}: toleration {}{value} ({effect}) tolerates no taint of the known clusters ({})",
                p.reference(),
                if tol.key.is_empty() {
                    "<any key>"
                } else {
                    &tol.key
                },
                a.clusters.describe()
            ),
        )));
    }
}

/// suspended-cluster-never-selected: suspended names the filters exclude in every attempt
/// the scheduler could make (each term on its own), or that name no known cluster.
fn check_suspended(
    a: &Analysis<'_>,
    i: usize,
    p: &PolicyEntry,
    placement: &Placement,
    kinds: &[(String, String)],
    views: &mut Views<'_>,
    out: &mut Vec<Finding>,
) {
    let Some(s) = &p.spec.suspension else { return };
    // Names that suspended-cluster-not-targeted reports already (explicit names only).
    let named_targets = target_clusters(&p.spec, None);
    let placements: Vec<Placement> = match &placement.cluster_affinities {
        Some(terms) if placement.cluster_affinity.is_none() && !terms.is_empty() => {
            (0..terms.len()).map(|t| only_term(placement, t)).collect()
        }
        _ => vec![placement.clone()],
    };
    for (n, name) in s.suspended_clusters().iter().enumerate() {
        if named_targets.as_ref().is_some_and(|t| !t.contains(name)) {
            continue;
        }
        let path = FieldPath::parse("spec.suspension.dispatchingOnClusters.clusterNames").index(n);
        let why = if !a.clusters.clusters.iter().any(|c| c.name == *name) {
            // unknown-cluster reports names missing from knownClusters.
            if a.clusters.names_only {
                continue;
            }
            format!(
                "no Cluster named {name} exists (known: {})",
                a.clusters.describe()
            )
        } else {
            match never_selected(name, &placements, kinds, views) {
                Some(why) => why,
                None => continue,
            }
        };
        out.push(a.clusters.cite(a.policy_finding(
            i,
            &SUSPENDED_EXCLUDED,
            &path,
            format!(
                "{} suspends dispatching to {name}, which its placement never selects: {why}; this pauses nothing",
                p.reference()
            ),
        )));
    }
}

/// Why `name` is excluded from every attempt (each term on its own) for every selected kind,
/// told for the first kind; `None` when some attempt keeps it for some kind.
fn never_selected(
    name: &str,
    placements: &[Placement],
    kinds: &[(String, String)],
    views: &mut Views<'_>,
) -> Option<String> {
    let mut first = None;
    for k in kinds {
        let mut reasons = Vec::new();
        for pl in placements {
            let r = views.evaluate(pl, k);
            let attempt = &r.attempts[0];
            let excluded = attempt.excluded.iter().find(|e| e.cluster == name)?;
            let why: Vec<String> = excluded.failures.iter().map(failure_text).collect();
            let term = attempt
                .term
                .as_ref()
                .map(|t| format!("term {t}: "))
                .unwrap_or_default();
            reasons.push(format!("{term}{}", why.join(" and ")));
        }
        first.get_or_insert_with(|| format!("for {}, it {}", kind_text(k), reasons.join("; ")));
    }
    first
}

/// `had untolerated taint {dedicated=gpu:NoSchedule} (TaintToleration)`: the scheduler's
/// reason without its `cluster(s)` histogram prefix, and the filter.
fn failure_text(f: &crate::engine::placement::Failure) -> String {
    let reason = f.reason.strip_prefix("cluster(s) ").unwrap_or(&f.reason);
    format!("{reason} ({})", f.filter.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::test_support::lint_rule;

    const CLUSTERS: &str = "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member1, labels: {env: prod}}\nspec:\n  region: eu\n  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member2, labels: {env: dev}}\nspec: {region: us}\nstatus:\n  apiEnablements: [{groupVersion: v1, resources: [{name: configmaps, kind: ConfigMap}]}]\n  conditions: [{type: CompleteAPIEnablements, status: \"True\"}]\n---\n";

    fn policy(placement: &str) -> String {
        format!("{CLUSTERS}apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: p, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  placement:\n{placement}")
    }

    #[test]
    fn no_cluster_fits_names_the_filter_of_each_cluster() {
        let text = policy("    clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}\n");
        let f = lint_rule(&text, "no-cluster-fits", false);
        assert_eq!(f.len(), 1, "{f:?}");
        let m = &f[0].message;
        assert!(
            m.contains(
                "member1 had untolerated taint {dedicated=gpu:NoSchedule} (TaintToleration)"
            ),
            "{m}"
        );
        assert!(m.contains("member2 did not match the placement cluster affinity constraint (ClusterAffinity) and did not have the API resource (APIEnablement)"), "{m}");
        assert!(m.contains("0/2 clusters are available: 1 cluster(s) did not match the placement cluster affinity constraint, 1 cluster(s) had untolerated taint {dedicated=gpu:NoSchedule}."), "{m}");
        // Tolerating the taint fits member1 (its status lists no APIs: taken as serving them).
        let ok = policy("    clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}\n    clusterTolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]\n");
        assert!(lint_rule(&ok, "no-cluster-fits", false).is_empty());
    }

    #[test]
    fn a_term_that_never_fits_and_the_fallback() {
        let text = policy("    clusterAffinities:\n    - {affinityName: primary, clusterNames: [member2]}\n    - {affinityName: backup, clusterNames: [member1]}\n    clusterTolerations: [{key: dedicated, operator: Exists}]\n");
        let f = lint_rule(&text, "affinity-term-never-fits", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            f[0].field.as_deref(),
            Some("spec.placement.clusterAffinities[0]")
        );
        assert!(f[0].message.contains("term `primary`"), "{}", f[0].message);
        assert!(lint_rule(&text, "no-cluster-fits", false).is_empty());
    }

    #[test]
    fn tolerations_for_taints_no_cluster_has() {
        let text = policy("    clusterTolerations:\n    - {key: dedicated, operator: Equal, value: gpus, effect: NoSchedule}\n    - {key: dedicated, operator: Exists}\n    - {key: cluster.karmada.io/not-ready, operator: Exists, effect: NoExecute}\n");
        let f = lint_rule(&text, "toleration-matches-no-taint", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            f[0].field.as_deref(),
            Some("spec.placement.clusterTolerations[0]")
        );
    }

    #[test]
    fn suspended_clusters_the_filters_exclude_or_that_do_not_exist() {
        let text = policy("    clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}\n    clusterTolerations: [{key: dedicated, operator: Exists}]\n  suspension:\n    dispatchingOnClusters: {clusterNames: [member1, member2, member9]}\n");
        let f = lint_rule(&text, "suspended-cluster-never-selected", false);
        let fields: Vec<_> = f.iter().map(|f| f.field.clone().unwrap()).collect();
        assert_eq!(
            fields,
            [
                "spec.suspension.dispatchingOnClusters.clusterNames[1]",
                "spec.suspension.dispatchingOnClusters.clusterNames[2]"
            ]
        );
        assert!(
            f[0].message.contains("(ClusterAffinity)"),
            "{}",
            f[0].message
        );
        assert!(
            f[1].message.contains("no Cluster named member9 exists"),
            "{}",
            f[1].message
        );
    }

    #[test]
    fn names_only_judge_names_and_nothing_else() {
        let known = KnownClusters::of(
            Vec::new(),
            &crate::lint::LintOptions {
                known_clusters: vec!["member1".into()],
                ..Default::default()
            },
        );
        assert!(known.names_only);
        let p: Placement = serde_json::from_value(serde_json::json!({
            "clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}, "exclude": ["member1"]},
            "spreadConstraints": [{"spreadByField": "region", "minGroups": 2}]
        }))
        .unwrap();
        let stripped = names_only(&p);
        let kind = ("apps/v1".to_string(), "Deployment".to_string());
        let r = evaluate(&stripped, &known.clusters, &view(&kind));
        assert!(!r.succeeded(), "exclude still rules member1 out");
        let mut allowed = stripped.clone();
        allowed.cluster_affinity.as_mut().unwrap().exclude.clear();
        assert!(evaluate(&allowed, &known.clusters, &view(&kind)).succeeded());
    }
}
