//! Dispatch suspension (`spec.suspension`): settings that do nothing, clusters that are not
//! targets or do not exist, suspensions that do not reach what users expect, and suspensions
//! that stall failover. Facts: validation-suspension-failover.md §1.2 (only S1 is validated),
//! §2 (the path to Works) and §3.4 (what stalls in failover).

use crate::engine::suspension::{failover_candidates, stalls, target_clusters, Stall, State};
use crate::lint::finding::{Finding, Severity};
use crate::lint::options::LintOptions;
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::cluster::is_dns1123_label;
use crate::model::policy::{AffinityAt, ClusterAffinity};
use crate::model::{Inventory, Policy};
use crate::source::FieldPath;

pub const NO_EFFECT: RuleDoc = RuleDoc {
    id: "suspension-no-effect",
    group: RuleGroup::Semantics,
    default_severity: Severity::Info,
    summary: "A suspension setting that pauses nothing (`dispatching: false`, an empty cluster list)",
    rationale: "Karmada accepts `dispatching: false` and empty `dispatchingOnClusters`, and they change nothing. \
                Readers of the manifest may believe the policy is paused, or that removing the line resumes it.",
    example: "spec:\n  suspension:\n    dispatching: false\n",
    fix: "Remove `spec.suspension` to dispatch normally, or set `dispatching: true` / list the clusters to pause.",
    reference: "pkg/util/validation/validation.go:86-99 (validateSuspension: the only suspension check); pkg/controllers/binding/common.go:363-376 (shouldSuspendDispatching)",
};

pub const NOT_TARGETED: RuleDoc = RuleDoc {
    id: "suspended-cluster-not-targeted",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A cluster in `dispatchingOnClusters` that the placement never selects",
    rationale: "Suspension is applied per Work, and a cluster outside the placement has no Work: the entry pauses \
                nothing. Usually the name is misspelled, or the placement changed and the suspension did not.",
    example: "spec:\n  placement:\n    clusterAffinity:\n      clusterNames: [member1, member2]\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member3]\n",
    fix: "Suspend a cluster the placement targets, or drop the stale entry.",
    reference: "pkg/controllers/binding/common.go:53-156 (ensureWork: one Work per target cluster, suspended by shouldSuspendDispatching)",
};

pub const INVALID_CLUSTER_NAME: RuleDoc = RuleDoc {
    id: "invalid-cluster-name",
    group: RuleGroup::Semantics,
    default_severity: Severity::Error,
    summary: "A cluster name that no cluster can have (not a DNS-1123 label)",
    rationale: "Karmada does not validate the names in `clusterNames`, so a name like `us uk` (a YAML list folded \
                into one string) or `Member1` is accepted and silently matches no cluster.",
    example: "spec:\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [us uk]\n",
    fix: "Write one lowercase cluster name per list item: `clusterNames: [us, uk]`.",
    reference: "pkg/util/validation/validation.go:86-99 (validateSuspension does not check clusterNames); pkg/apis/cluster/validation/validation.go:45-53 (ValidateClusterName: a DNS-1123 label)",
};

pub const UNKNOWN_CLUSTER: RuleDoc = RuleDoc {
    id: "unknown-cluster",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A cluster name that is not among `knownClusters` of the configuration",
    rationale: "Placement and suspension names are not checked by Karmada; a typo propagates to, or pauses, nothing. \
                Only checked when `.karmada-policy.yaml` lists `knownClusters`.",
    example: "# .karmada-policy.yaml: knownClusters: [member1, member2]\nspec:\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [membr2]\n",
    fix: "Fix the name, or add the cluster to `knownClusters`.",
    reference: "",
};

pub const LAZY: RuleDoc = RuleDoc {
    id: "lazy-suspension",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "Suspension on a policy with `activationPreference: Lazy`",
    rationale: "For a Lazy policy, policy changes do not update bindings: suspending or resuming takes effect only \
                when someone next changes the resource template, not when the policy is applied.",
    example: "spec:\n  activationPreference: Lazy\n  suspension:\n    dispatching: true\n",
    fix: "Drop `activationPreference: Lazy`, or touch the templates after changing the suspension.",
    reference: "pkg/detector/detector.go:461-468 (ApplyPolicy returns before updating the binding on a Karmada-driven change of a Lazy policy), :550-557 (ApplyClusterPolicy)",
};

pub const DEPENDENCIES: RuleDoc = RuleDoc {
    id: "suspension-with-propagate-deps",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "Suspension on a policy with `propagateDeps: true`: dependencies are not suspended",
    rationale: "Attached bindings of dependencies (ConfigMaps, Secrets, the ServiceAccount, PersistentVolumeClaims) do not carry the suspension, so they keep \
                being dispatched, also to new target clusters, while the workload itself is paused.",
    example: "spec:\n  propagateDeps: true\n  suspension:\n    dispatching: true\n",
    fix: "Expect dependencies to keep flowing, or suspend the policies that own them explicitly.",
    reference: "pkg/dependenciesdistributor/dependencies_distributor.go:753-788 (buildAttachedBinding copies no Suspension)",
};

pub const STALLS_FAILOVER: RuleDoc = RuleDoc {
    id: "suspension-stalls-failover",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A suspended policy with application or cluster failover configured",
    rationale: "Failover keeps evicting and rescheduling while dispatch is suspended, but the replacement cluster \
                receives nothing. With purgeMode Gracefully the old copy is deleted after the grace period, leaving no \
                running copy until resume; with Directly the outage is immediate; with Never the eviction stalls \
                indefinitely. Severity: error for Directly and Never, warning for Gracefully. Cluster failover \
                counts only where it runs: with the `Failover` gate, `--enable-taint-manager` (default true) \
                and, from Karmada 1.14, `--enable-no-execute-taint-eviction=true`; elsewhere `failover-gate-off` \
                reports the policy instead.",
    example: "spec:\n  propagateDeps: true\n  failover:\n    application:\n      decisionConditions:\n        tolerationSeconds: 120\n      purgeMode: Directly\n  suspension:\n    dispatching: true\n",
    fix: "Resume dispatching before failover matters, suspend only clusters that are not failover targets, or \
          accept the stall knowingly (`karmada-policy.io/ignore: \"suspension-stalls-failover: <why>\"`).",
    reference: "pkg/controllers/binding/common.go:363-376 (shouldSuspendDispatching); pkg/controllers/execution/execution_controller.go:135-138 (Controller.Reconcile skips a suspended Work); pkg/controllers/gracefuleviction/evictiontask.go:67-116 (assessSingleTask, allScheduledResourceInHealthyState)",
};

pub static RULE: Rule = Rule {
    docs: &[
        NO_EFFECT,
        NOT_TARGETED,
        INVALID_CLUSTER_NAME,
        UNKNOWN_CLUSTER,
        LAZY,
        DEPENDENCIES,
        STALLS_FAILOVER,
    ],
    checks: &[Check::PerObject(|o| check(o.inventory, o.opts))],
};

pub fn check(inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in inventory.admitted_policies() {
        check_cluster_names(inventory, opts, p, &mut out);
        let Some(s) = &p.spec.suspension else {
            continue;
        };
        let f = |doc: &RuleDoc, path: FieldPath, message: String| {
            finding(inventory, p, doc, path, message)
        };
        if !s.is_active() {
            out.push(f(
                &NO_EFFECT,
                FieldPath::parse("spec.suspension"),
                format!(
                    "{} suspends nothing: {}",
                    p.reference(),
                    if s.dispatching == Some(false) {
                        "`dispatching: false` is the same as no suspension"
                    } else {
                        "no cluster is listed"
                    }
                ),
            ));
            continue;
        }
        if s.dispatching == Some(false) && !s.suspended_clusters().is_empty() {
            out.push(f(
                &NO_EFFECT,
                FieldPath::parse("spec.suspension.dispatching"),
                "`dispatching: false` has no effect; only dispatchingOnClusters pauses anything"
                    .into(),
            ));
        }
        check_targets(inventory, p, &mut out);
        let state = State::of(Some(s));
        let candidates = failover_candidates(&p.spec);
        // Where cluster failover does not run, failover-gate-off reports the setting instead
        // (GateSet::why_no_cluster_failover).
        let cluster_failover = opts.gates.cluster_failover();
        for stall in stalls(
            &p.spec,
            &state,
            (candidates.as_deref(), cluster_failover),
            &[],
            None,
        ) {
            match &stall {
                Stall::Lazy => out.push(f(
                    &LAZY,
                    FieldPath::parse("spec.activationPreference"),
                    format!(
                        "{} is suspended with activationPreference: Lazy: {stall}",
                        p.reference()
                    ),
                )),
                Stall::DependenciesKeepFlowing => out.push(f(
                    &DEPENDENCIES,
                    FieldPath::parse("spec.propagateDeps"),
                    format!("{} is suspended, but {stall}", p.reference()),
                )),
                Stall::ApplicationFailover { purge_mode }
                | Stall::ClusterFailover { purge_mode } => {
                    let which = if matches!(stall, Stall::ApplicationFailover { .. }) {
                        "spec.failover.application"
                    } else {
                        "spec.failover.cluster"
                    };
                    let mut finding = f(
                        &STALLS_FAILOVER,
                        FieldPath::parse(which),
                        format!("{} suspends {}: {stall}", p.reference(), describe(&state)),
                    );
                    if matches!(purge_mode.as_str(), "Directly" | "Never" | "Immediately") {
                        finding.severity = Severity::Error;
                    }
                    let susp = p_doc_span(inventory, p, &FieldPath::parse("spec.suspension"));
                    finding = finding.related(&susp.0, susp.1, "suspended here");
                    out.push(finding);
                }
                Stall::UnhealthyTarget { .. } => {}
            }
        }
    }
    out
}

fn describe(state: &State) -> String {
    match state {
        State::AllClusters => "dispatching to all clusters".into(),
        State::Clusters(c) => format!("dispatching to {}", c.join(", ")),
        State::NotSuspended => "nothing".into(),
    }
}

/// `dispatchingOnClusters` entries that the placement can never select.
fn check_targets(inventory: &Inventory, p: &Policy, out: &mut Vec<Finding>) {
    let Some(targets) = target_clusters(&p.spec, None) else {
        return; // selected by labels or fields: any cluster may be a target
    };
    let Some(s) = &p.spec.suspension else { return };
    for (i, name) in s.suspended_clusters().iter().enumerate() {
        if !targets.contains(name) && is_dns1123_label(name) {
            let path =
                FieldPath::parse("spec.suspension.dispatchingOnClusters.clusterNames").index(i);
            out.push(finding(
                inventory,
                p,
                &NOT_TARGETED,
                path,
                format!(
                    "{} suspends dispatching to {name}, which its placement does not select (targets: {}): this pauses nothing",
                    p.reference(),
                    targets.join(", ")
                ),
            ));
        }
    }
}

/// Cluster names in the placement and the suspension: well-formed, and known when configured.
fn check_cluster_names(
    inventory: &Inventory,
    opts: &LintOptions,
    p: &Policy,
    out: &mut Vec<Finding>,
) {
    for (at, name) in cluster_name_fields(p) {
        if !is_dns1123_label(name) {
            out.push(finding(
                inventory,
                p,
                &INVALID_CLUSTER_NAME,
                at.path(),
                format!(
                    "`{name}` is not a valid cluster name (a lowercase DNS-1123 label): it matches no cluster{}",
                    if name.contains(' ') || name.contains(',') {
                        "; was a list written as one string?"
                    } else {
                        ""
                    }
                ),
            ));
        } else if !opts.known_clusters.is_empty() && !opts.known_clusters.iter().any(|k| k == name)
        {
            out.push(finding(
                inventory,
                p,
                &UNKNOWN_CLUSTER,
                at.path(),
                format!(
                    "cluster `{name}` is not among knownClusters ({})",
                    opts.known_clusters.join(", ")
                ),
            ));
        }
    }
}

/// Every field of the PP/CPP CRDs that names member clusters, `[]` standing for each item of a
/// list (`cluster_name_fields_are_every_one_the_crd_has` lists them from the CRD).
pub const CLUSTER_NAME_FIELDS: &[&str] = &[
    "spec.suspension.dispatchingOnClusters.clusterNames",
    "spec.placement.clusterAffinity.clusterNames",
    "spec.placement.clusterAffinity.exclude",
    "spec.placement.clusterAffinities[].clusterNames",
    "spec.placement.clusterAffinities[].exclude",
    "spec.placement.clusterAffinities[].overflowAffinities[].clusterNames",
    "spec.placement.clusterAffinities[].overflowAffinities[].exclude",
    "spec.placement.replicaScheduling.weightPreference.staticWeightList[].targetCluster.clusterNames",
    "spec.placement.replicaScheduling.weightPreference.staticWeightList[].targetCluster.exclude",
];

/// Where in the spec a cluster name is: one of [`CLUSTER_NAME_FIELDS`], the items of its
/// lists (`[]`, outer first) and the name's place in its own list. The path is built from the
/// pattern only for a name that is reported.
#[derive(Clone, Copy, Debug, PartialEq)]
struct NameAt {
    field: &'static str,
    items: [usize; 2],
    name: usize,
}

impl NameAt {
    fn path(self) -> FieldPath {
        let mut items = self.items.into_iter();
        let mut path = FieldPath::root();
        for segment in self.field.split('.') {
            path = match segment.strip_suffix("[]") {
                Some(key) => path.key(key).index(items.next().unwrap_or_default()),
                None => path.key(segment),
            };
        }
        path.index(self.name)
    }
}

/// Each cluster name the policy writes, with where it is, in [`CLUSTER_NAME_FIELDS`] order,
/// read from the typed spec: serializing each policy's placement to walk it as JSON was the
/// costliest per-policy rule of a large lint.
fn cluster_name_fields(p: &Policy) -> Vec<(NameAt, &str)> {
    let [suspended, names, excluded, term_names, term_excluded, overflow_names, overflow_excluded, weight_names, weight_excluded] =
        *CLUSTER_NAME_FIELDS
    else {
        unreachable!("CLUSTER_NAME_FIELDS lists nine fields")
    };
    let mut out = Vec::new();
    let spec = &p.spec;
    if let Some(c) = spec
        .suspension
        .as_ref()
        .and_then(|s| s.dispatching_on_clusters.as_ref())
    {
        names_in(&mut out, suspended, [0, 0], &c.cluster_names);
    }
    let Some(placement) = &spec.placement else {
        return out;
    };
    // The affinities' lists, pattern by pattern: each affinity's place gives the pattern pair
    // it fills (clusterAffinity, a term, an overflow term) and the list indices in it.
    let affinities: Vec<_> = placement
        .affinities()
        .map(|(at, a)| match at {
            AffinityAt::Single => (0, [0, 0], a),
            AffinityAt::Term(t) => (1, [t, 0], a),
            AffinityAt::Overflow(t, o) => (2, [t, o], a),
        })
        .collect();
    let pairs = [
        (names, excluded),
        (term_names, term_excluded),
        (overflow_names, overflow_excluded),
    ];
    for (place, (names_field, excluded_field)) in pairs.into_iter().enumerate() {
        for (field, exclude) in [(names_field, false), (excluded_field, true)] {
            for (_, items, a) in affinities.iter().filter(|(p, ..)| *p == place) {
                names_in(&mut out, field, *items, listed(a, exclude));
            }
        }
    }
    let weights = placement
        .replica_scheduling
        .as_ref()
        .and_then(|r| r.weight_preference.as_ref())
        .map_or(&[][..], |w| &w.static_weight_list);
    for (field, exclude) in [(weight_names, false), (weight_excluded, true)] {
        for (w, weight) in weights.iter().enumerate() {
            names_in(
                &mut out,
                field,
                [w, 0],
                listed(&weight.target_cluster, exclude),
            );
        }
    }
    out
}

/// An affinity's `exclude` or its `clusterNames`.
fn listed(a: &ClusterAffinity, exclude: bool) -> &[String] {
    if exclude {
        &a.exclude
    } else {
        &a.cluster_names
    }
}

/// `list`'s names, each at its place in `field`.
fn names_in<'p>(
    out: &mut Vec<(NameAt, &'p str)>,
    field: &'static str,
    items: [usize; 2],
    list: &'p [String],
) {
    let at = |name| NameAt { field, items, name };
    out.extend(list.iter().enumerate().map(|(i, n)| (at(i), n.as_str())));
}

fn p_doc_span(
    inventory: &Inventory,
    p: &Policy,
    path: &FieldPath,
) -> (std::sync::Arc<crate::source::Source>, crate::source::Span) {
    let doc = &inventory.documents[p.doc];
    (doc.source.clone(), doc.root.locate(path))
}

fn finding(
    inventory: &Inventory,
    p: &Policy,
    doc: &RuleDoc,
    path: FieldPath,
    message: String,
) -> Finding {
    let d = &inventory.documents[p.doc];
    let mut f = Finding::new(doc.id, doc.default_severity, message)
        .at(&d.source, d.root.locate_value(&path))
        .field(path.to_string())
        .object(super::policy_object_ref(p));
    f.doc = Some(p.doc);
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    fn lint_str(text: &str, opts: &LintOptions) -> Vec<Finding> {
        let l = load(Source::new("p.yaml", text));
        let inv = Inventory::from_documents(l.documents, "default");
        check(&inv, opts)
    }

    const HEAD: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: nginx\n  namespace: default\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n";

    fn ids(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.rule).collect()
    }

    #[test]
    fn dispatching_false_has_no_effect() {
        let f = lint_str(
            &format!("{HEAD}  suspension:\n    dispatching: false\n"),
            &LintOptions::default(),
        );
        assert_eq!(ids(&f), ["suspension-no-effect"]);
        let loc = f[0].location.as_ref().unwrap();
        assert_eq!(loc.span.start.line, 12);
        let ok = lint_str(
            &format!("{HEAD}  suspension:\n    dispatching: true\n"),
            &LintOptions::default(),
        );
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn suspended_cluster_outside_the_placement() {
        let text = format!(
            "{HEAD}  placement:\n    clusterAffinity:\n      clusterNames: [member1, member2]\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member2, member3]\n"
        );
        let f = lint_str(&text, &LintOptions::default());
        assert_eq!(ids(&f), ["suspended-cluster-not-targeted"]);
        assert_eq!(
            f[0].field.as_deref(),
            Some("spec.suspension.dispatchingOnClusters.clusterNames[1]")
        );
        let loc = f[0].location.as_ref().unwrap();
        assert_eq!((loc.span.start.line, loc.span.start.col), (16, 31));
        // A label-selected placement may target any cluster: nothing to say.
        let text = format!(
            "{HEAD}  placement:\n    clusterAffinity:\n      labelSelector: {{matchLabels: {{env: prod}}}}\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member3]\n"
        );
        assert!(lint_str(&text, &LintOptions::default()).is_empty());
    }

    #[test]
    fn folded_list_is_an_invalid_cluster_name_and_unknown_clusters_warn() {
        let text = format!(
            "{HEAD}  suspension:\n    dispatchingOnClusters:\n      clusterNames: [us uk]\n"
        );
        let f = lint_str(&text, &LintOptions::default());
        assert_eq!(ids(&f), ["invalid-cluster-name"]);
        assert!(f[0].message.contains("was a list written as one string?"));
        let opts = LintOptions {
            known_clusters: vec!["member1".into()],
            ..LintOptions::default()
        };
        let text = format!(
            "{HEAD}  suspension:\n    dispatchingOnClusters:\n      clusterNames: [membr1]\n"
        );
        assert_eq!(ids(&lint_str(&text, &opts)), ["unknown-cluster"]);
    }

    #[test]
    fn lazy_and_dependencies() {
        let text = format!("{HEAD}  activationPreference: Lazy\n  propagateDeps: true\n  suspension:\n    dispatching: true\n");
        assert_eq!(
            ids(&lint_str(&text, &LintOptions::default())),
            ["lazy-suspension", "suspension-with-propagate-deps"]
        );
    }

    #[test]
    fn failover_stall_severity_follows_purge_mode() {
        let fo = |mode: &str| {
            format!("{HEAD}  propagateDeps: true\n  failover:\n    application:\n      decisionConditions:\n        tolerationSeconds: 60\n      purgeMode: {mode}\n  suspension:\n    dispatching: true\n")
        };
        for (mode, sev, words) in [
            (
                "Gracefully",
                Severity::Warning,
                "no running copy until resume",
            ),
            ("Directly", Severity::Error, "immediate outage"),
            ("Never", Severity::Error, "indefinite stall"),
        ] {
            let f: Vec<_> = lint_str(&fo(mode), &LintOptions::default())
                .into_iter()
                .filter(|f| f.rule == "suspension-stalls-failover")
                .collect();
            assert_eq!(f.len(), 1, "{mode}");
            assert_eq!(f[0].severity, sev, "{mode}");
            assert!(f[0].message.contains(words), "{}", f[0].message);
            assert_eq!(f[0].related[0].location.span.start.line, 17);
        }
        // Suspending only a cluster that is not a failover candidate does not stall failover.
        let text = format!("{HEAD}  placement:\n    clusterAffinity:\n      clusterNames: [member1, member2]\n  failover:\n    cluster: {{}}\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member3]\n");
        assert!(
            !ids(&lint_str(&text, &LintOptions::default())).contains(&"suspension-stalls-failover")
        );
    }

    #[test]
    fn dns1123_labels() {
        assert!(is_dns1123_label("member-1"));
        assert!(!is_dns1123_label("Member1"));
        assert!(!is_dns1123_label("us uk"));
        assert!(!is_dns1123_label("-a"));
        assert!(!is_dns1123_label(""));
    }

    /// Every `clusterNames`/`exclude` list of the CRD (the ClusterAffinity shapes and
    /// SuspendClusters) is one of CLUSTER_NAME_FIELDS, and no entry is made up.
    #[test]
    fn cluster_name_fields_are_every_one_the_crd_has() {
        fn walk(schema: &serde_json::Value, path: String, out: &mut Vec<String>) {
            if let Some(props) = schema.get("properties").and_then(|p| p.as_object()) {
                for (name, sub) in props {
                    let p = if path.is_empty() {
                        name.clone()
                    } else {
                        format!("{path}.{name}")
                    };
                    if matches!(name.as_str(), "clusterNames" | "exclude") {
                        out.push(p.clone());
                    }
                    walk(sub, p, out);
                }
            }
            if let Some(items) = schema.get("items") {
                walk(items, format!("{path}[]"), out);
            }
        }
        for kind in ["PropagationPolicy", "ClusterPropagationPolicy"] {
            let schema: serde_json::Value =
                serde_json::from_str(crate::schema::schema_text(kind).unwrap()).unwrap();
            let mut found = Vec::new();
            walk(&schema, String::new(), &mut found);
            found.sort();
            let mut ours: Vec<String> = CLUSTER_NAME_FIELDS.iter().map(|s| s.to_string()).collect();
            ours.sort();
            assert_eq!(found, ours, "{kind}");
        }
        // cluster_name_fields reads only these two fields of the spec.
        for field in CLUSTER_NAME_FIELDS {
            assert!(
                field.starts_with("spec.suspension.") || field.starts_with("spec.placement."),
                "{field}"
            );
        }
    }

    /// The typed walk finds what walking the serialized spec along each CLUSTER_NAME_FIELDS
    /// pattern finds, in the same order, on a spec that fills every one of them twice.
    #[test]
    fn cluster_names_are_those_the_field_patterns_reach() {
        fn expand(
            v: &serde_json::Value,
            segments: &[&str],
            at: String,
            out: &mut Vec<(String, String)>,
        ) {
            let Some((first, rest)) = segments.split_first() else {
                return;
            };
            let (key, each) = match first.strip_suffix("[]") {
                Some(k) => (k, true),
                None => (*first, false),
            };
            let Some(child) = v.get(key) else { return };
            let at = if at.is_empty() {
                key.to_string()
            } else {
                format!("{at}.{key}")
            };
            let items = child.as_array().into_iter().flatten().enumerate();
            if rest.is_empty() {
                out.extend(
                    items.map(|(i, n)| (format!("{at}[{i}]"), n.as_str().unwrap().to_string())),
                );
            } else if each {
                items.for_each(|(i, item)| expand(item, rest, format!("{at}[{i}]"), out));
            } else {
                expand(child, rest, at, out);
            }
        }
        let affinity =
            |p: &str| format!("clusterNames: [{p}-a, {p}-b]\n{{i}}exclude: [{p}-x, {p}-y]");
        let term = |t: &str| {
            format!(
                "- affinityName: {t}\n  {}\n  overflowAffinities:\n    - affinityName: {t}o1\n      {}\n    - affinityName: {t}o2\n      {}",
                affinity(t).replace("{i}", "  "),
                affinity(&format!("{t}o1")).replace("{i}", "      "),
                affinity(&format!("{t}o2")).replace("{i}", "      "),
            )
        };
        let indent = |text: String, by: &str| {
            text.lines()
                .map(|l| format!("{by}{l}\n"))
                .collect::<String>()
        };
        let text = format!(
            "{HEAD}  placement:\n    clusterAffinity:\n      {}\n    clusterAffinities:\n{}{}    replicaScheduling:\n      replicaSchedulingType: Divided\n      weightPreference:\n        staticWeightList:\n          - targetCluster:\n              {}\n            weight: 1\n          - targetCluster:\n              {}\n            weight: 2\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [s-a, s-b]\n",
            affinity("a").replace("{i}", "      "),
            indent(term("t1"), "      "),
            indent(term("t2"), "      "),
            affinity("w1").replace("{i}", "              "),
            affinity("w2").replace("{i}", "              "),
        );
        let l = load(Source::new("p.yaml", &text));
        assert!(l.problems.is_empty(), "{:?}\n{text}", l.problems);
        let inv = Inventory::from_documents(l.documents, "default");
        let p = inv.policies().next().expect("a policy");
        let typed: Vec<(String, String)> = cluster_name_fields(p)
            .into_iter()
            .map(|(at, name)| (at.path().to_string(), name.to_string()))
            .collect();
        let json = serde_json::json!({ "spec": serde_json::to_value(&p.spec).unwrap() });
        let mut walked = Vec::new();
        for pattern in CLUSTER_NAME_FIELDS {
            let segments: Vec<&str> = pattern.split('.').collect();
            expand(&json, &segments, String::new(), &mut walked);
        }
        assert_eq!(typed, walked);
        // Every pattern is reached twice or more (the spec above fills each one).
        for pattern in CLUSTER_NAME_FIELDS {
            let leaf = pattern.replace("[]", "");
            let reached = walked.iter().filter(|(path, _)| {
                let bare: String = path
                    .split('[')
                    .map(|s| s.split_once(']').map_or(s, |(_, r)| r))
                    .collect();
                bare == leaf
            });
            assert!(reached.count() >= 2, "{pattern}");
        }
    }

    #[test]
    fn static_weight_target_clusters_are_checked() {
        let text = format!(
            "{HEAD}  placement:\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      weightPreference:\n        staticWeightList:\n          - targetCluster:\n              clusterNames: [us uk]\n            weight: 1\n"
        );
        let f = lint_str(&text, &LintOptions::default());
        let bad: Vec<_> = f
            .iter()
            .filter(|f| f.rule == "invalid-cluster-name")
            .collect();
        assert_eq!(bad.len(), 1, "{f:#?}");
        assert_eq!(
            bad[0].field.as_deref(),
            Some("spec.placement.replicaScheduling.weightPreference.staticWeightList[0].targetCluster.clusterNames[0]")
        );
    }
}
