use super::*;
use crate::model::feature_gates::GateSet;
use crate::model::test_support::inventory;

const NGINX: &str = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\nspec:\n  replicas: 3\n";

fn policy(name: &str, extra: &str, clusters: &str) -> String {
    format!(
        "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n{extra}  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n  placement:\n    clusterAffinity:\n      clusterNames: [{clusters}]\n"
    )
}

fn settings(gates: &str) -> Settings {
    Settings {
        options: Options {
            gates: GateSet::parse(Default::default(), gates).unwrap(),
            ..Options::default()
        },
        live: false,
    }
}

fn run(base: &str, head: &str, gates: &str) -> EnvPlan {
    let (b, h) = (inventory("b.yaml", base), inventory("h.yaml", head));
    plan(&Sides::whole(&b, &h), &settings(gates))
}

fn cluster<'a>(c: &'a TemplatePlan, name: &str) -> &'a ClusterDelta {
    c.clusters
        .iter()
        .find(|d| d.cluster == name)
        .unwrap_or_else(|| panic!("{name} in {:?}", c.clusters))
}

#[test]
fn nothing_changed_is_an_empty_plan() {
    let text = format!("{NGINX}{}", policy("a", "", "member1"));
    let p = run(&text, &text, "");
    assert!(!p.has_changes());
    assert_eq!(p, EnvPlan::default());
}

#[test]
fn a_placement_change_moves_the_template_between_clusters() {
    let p = run(
        &format!("{NGINX}{}", policy("a", "", "member1")),
        &format!("{NGINX}{}", policy("a", "", "member2")),
        "",
    );
    assert_eq!(p.policies.len(), 1);
    assert_eq!(p.policies[0].edit, Edit::Changed);
    assert!(p.policies[0].refused.is_empty());
    let c = &p.changes[0];
    assert_eq!(c.moved, OwnerMove::Unchanged);
    assert!(cluster(c, "member1").before.receives && !cluster(c, "member1").after.receives);
    assert!(!cluster(c, "member2").before.receives && cluster(c, "member2").after.receives);
}

#[test]
fn a_takeover_by_preemption_and_a_blocked_one() {
    let base = format!("{NGINX}{}", policy("a", "  priority: 1\n", "member1"));
    let taker = policy("b", "  priority: 5\n  preemption: Always\n", "member2");
    let p = run(
        &base,
        &format!("{base}{taker}"),
        "PropagationPolicyPreemption=true",
    );
    let c = &p.changes[0];
    assert_eq!(c.moved, OwnerMove::Preempted);
    assert_eq!(c.after, Some(PolicyRef::pp("default", "b")));
    assert!(cluster(c, "member2").after.receives);
    // The gate off: the new policy matches but does not get it.
    let p = run(&base, &format!("{base}{taker}"), "");
    let c = &p.changes[0];
    assert_eq!(c.after, Some(PolicyRef::pp("default", "a")));
    assert_eq!(c.blocked_by[0].reason.code(), "feature-gate-disabled");
    assert!(c.clusters.is_empty());
}

#[test]
fn an_override_change_changes_one_clusters_manifest() {
    let op = |replicas: u32| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata:\n  name: scale\n  namespace: default\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n  overrideRules:\n    - targetCluster:\n        clusterNames: [member2]\n      overriders:\n        plaintext:\n          - path: /spec/replicas\n            operator: replace\n            value: {replicas}\n")
    };
    let state = format!("{NGINX}{}", policy("a", "", "member1, member2"));
    let p = run(
        &format!("{state}{}", op(1)),
        &format!("{state}{}", op(5)),
        "",
    );
    assert!(p.policies.is_empty());
    assert_eq!(p.overrides[0].edit, Edit::Changed);
    let c = &p.changes[0];
    assert_eq!(c.clusters.len(), 1, "{:?}", c.clusters);
    let d = cluster(c, "member2");
    assert_eq!(d.manifest.len(), 1);
    assert_eq!(d.manifest[0].path, "/spec/replicas");
    assert_eq!(d.manifest[0].before, Some(serde_json::json!(1)));
    assert_eq!(d.manifest[0].after, Some(serde_json::json!(5)));
}

#[test]
fn removing_a_policy_and_its_override_is_a_hazard_and_the_override_stops_applying() {
    let op = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata:\n  name: zero\n  namespace: default\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n  overrideRules:\n    - overriders:\n        plaintext:\n          - path: /spec/replicas\n            operator: replace\n            value: 0\n";
    let p = run(
        &format!("{NGINX}{}{op}", policy("a", "", "member1")),
        NGINX,
        "",
    );
    let codes: Vec<&str> = p.hazards.iter().map(Hazard::code).collect();
    assert_eq!(
        codes,
        [
            "policy-removed-holding-templates",
            "policy-and-override-removed",
            "template-left-without-policy"
        ]
    );
    let c = &p.changes[0];
    assert!(c.orphaned);
    assert_eq!(c.moved, OwnerMove::Released(Cause::PolicyRemoved));
    let d = cluster(c, "member1");
    assert!(d.before.receives && d.after.receives, "the binding stays");
    assert_eq!(d.manifest[0].before, Some(serde_json::json!(0)));
    assert_eq!(d.manifest[0].after, Some(serde_json::json!(3)));
}

#[test]
fn deleting_a_template_with_its_policy_says_whether_member_copies_are_kept() {
    for (extra, preserve) in [("", false), ("  preserveResourcesOnDeletion: true\n", true)] {
        let p = run(&format!("{NGINX}{}", policy("a", extra, "member1")), "", "");
        let Hazard::RemovedHolding {
            preserve: p_,
            deleted,
            ..
        } = &p.hazards[0]
        else {
            panic!("{:?}", p.hazards);
        };
        assert_eq!(*p_, preserve);
        assert_eq!(deleted.len(), 1);
        assert_eq!(p.changes[0].moved, OwnerMove::Deleted);
        assert!(!cluster(&p.changes[0], "member1").after.receives);
    }
}

#[test]
fn a_new_template_is_claimed_and_reaches_its_clusters() {
    let state = policy("a", "", "member1");
    let p = run(&state, &format!("{state}{NGINX}"), "");
    let c = &p.changes[0];
    assert_eq!(c.moved, OwnerMove::Created);
    assert_eq!(c.after, Some(PolicyRef::pp("default", "a")));
    assert!(cluster(c, "member1").after.receives);
}

#[test]
fn suspending_a_policy_with_failover_is_a_hazard() {
    let failover = "  propagateDeps: true\n  failover:\n    application:\n      decisionConditions:\n        tolerationSeconds: 60\n      purgeMode: Never\n";
    let p = run(
        &format!("{NGINX}{}", policy("a", failover, "member1")),
        &format!(
            "{NGINX}{}",
            policy(
                "a",
                &format!("{failover}  suspension:\n    dispatching: true\n"),
                "member1"
            )
        ),
        "",
    );
    assert_eq!(p.hazards[0].code(), "suspension-with-failover", "{p:?}");
    let d = cluster(&p.changes[0], "member1");
    assert!(!d.before.suspended && d.after.suspended);
}

/// Cluster failover stalls under a suspension only where it runs: the `Failover` gate, and
/// from 1.14 `--enable-no-execute-taint-eviction=true` (as lint's failover-gate-off says).
#[test]
fn suspending_cluster_failover_is_a_hazard_only_where_it_runs() {
    use crate::model::controller_flags::{ControllerFlags, NO_EXECUTE_TAINT_EVICTION};
    let failover = "  failover:\n    cluster: {purgeMode: Gracefully}\n";
    let (b, h) = (
        inventory(
            "b.yaml",
            &format!("{NGINX}{}", policy("a", failover, "member1")),
        ),
        inventory(
            "h.yaml",
            &format!(
                "{NGINX}{}",
                policy(
                    "a",
                    &format!("{failover}  suspension:\n    dispatching: true\n"),
                    "member1"
                )
            ),
        ),
    );
    let hazards = |s: &Settings| {
        plan(&Sides::whole(&b, &h), s)
            .hazards
            .iter()
            .filter(|h| h.code() == "suspension-with-failover")
            .count()
    };
    assert_eq!(hazards(&settings("Failover=true")), 0, "the gate alone");
    let mut flags = ControllerFlags::default();
    flags.set(NO_EXECUTE_TAINT_EVICTION, true, "c.yaml:2".into());
    let mut on = settings("Failover=true");
    on.options.gates = on.options.gates.with_flags(&flags).unwrap();
    assert_eq!(hazards(&on), 1);
}

#[test]
fn shared_changes_are_marked_in_each_environment() {
    let p = run(
        &format!("{NGINX}{}", policy("a", "", "member1")),
        &format!("{NGINX}{}", policy("a", "", "member2")),
        "",
    );
    let mut envs = vec![
        ("prod".to_string(), p.clone()),
        ("staging".to_string(), p),
        ("dev".to_string(), EnvPlan::default()),
    ];
    mark_shared(&mut envs);
    assert_eq!(envs[0].1.hazards.len(), 1);
    assert_eq!(
        envs[1].1.hazards[0].code(),
        "change-reaches-several-environments"
    );
    assert!(envs[2].1.hazards.is_empty());
}

#[test]
fn field_changes_name_json_pointers() {
    let a = serde_json::json!({"spec": {"a/b": 1, "list": [1, 2]}});
    let b = serde_json::json!({"spec": {"a/b": 2, "list": [1], "new": true}});
    let paths: Vec<String> = share::field_changes(&a, &b)
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert_eq!(paths, ["/spec/a~1b", "/spec/list/1", "/spec/new"]);
}

#[test]
fn shared_files_are_read_once_and_only_the_changed_files_differ() {
    let shared = inventory("s.yaml", &format!("{NGINX}{}", policy("a", "", "member1")));
    let base = inventory("c.yaml", "");
    let head = inventory(
        "c.yaml",
        &policy("b", "  priority: 9\n  preemption: Always\n", "member2"),
    );
    let p = plan(
        &Sides {
            shared: Some(&shared),
            base: &base,
            head: &head,
        },
        &settings("PropagationPolicyPreemption=true"),
    );
    assert_eq!(p.policies.len(), 1);
    assert_eq!(p.changes[0].after, Some(PolicyRef::pp("default", "b")));
}

/// A division that leaves a cluster without replicas: the scheduler drops it from the binding
/// (`removeZeroReplicasCluster`), so no Work goes there and the plan does not say it gains the
/// template (it did, from the feasible clusters). Which of two equal weights gets the one
/// replica follows the template's uid: with one, a single cluster receives it; without, each
/// may (`tieBreakerByUID`).
#[test]
fn a_cluster_a_division_leaves_without_replicas_does_not_receive_it() {
    let one = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\n  uid: 6a1f2c3e-0000-4000-8000-000000000001\nspec:\n  replicas: 1\n";
    let clusters = "---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: m1}\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: m2}\n";
    let divided = "  placement:\n    clusterAffinity: {clusterNames: [m1, m2]}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n        - {targetCluster: {clusterNames: [m1]}, weight: 1}\n        - {targetCluster: {clusterNames: [m2]}, weight: 1}\n";
    let pp = format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n{divided}");
    let p = run(
        &format!("{one}{clusters}"),
        &format!("{one}{clusters}{pp}"),
        "",
    );
    let c = &p.changes[0];
    let receiving: Vec<&str> = c
        .clusters
        .iter()
        .filter(|d| d.after.receives)
        .map(|d| d.cluster.as_str())
        .collect();
    assert_eq!(receiving.len(), 1, "{:?}", c.clusters);
    assert!(c.clusters.iter().all(|d| !d.after.undecided), "{c:?}");
    let one = one.replace("  uid: 6a1f2c3e-0000-4000-8000-000000000001\n", "");
    let p = run(
        &format!("{one}{clusters}"),
        &format!("{one}{clusters}{pp}"),
        "",
    );
    let c = &p.changes[0];
    let candidates: Vec<(&str, bool, bool)> = c
        .clusters
        .iter()
        .map(|d| (d.cluster.as_str(), d.after.receives, d.after.undecided))
        .collect();
    assert_eq!(candidates, [("m1", true, true), ("m2", true, true)]);
    assert_eq!(c.undecided_by, UndecidedBy::UidTie);
    // Each with the replica the tie-break that sends it there gives it.
    let counts: Vec<Option<i64>> = c.clusters.iter().map(|d| d.after.replicas).collect();
    assert_eq!(counts, [Some(1), Some(1)], "{c:?}");
}

/// Without Cluster objects a placement of every cluster includes the clusters the other side
/// names: narrowed to member1, every selected cluster but member1 loses the template, and
/// member1 keeps it (it used to both lose it as "every selected cluster" and gain it).
#[test]
fn every_cluster_narrowed_to_one_keeps_that_one() {
    let every = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: a\n  namespace: default\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n";
    let p = run(
        &format!("{NGINX}{every}"),
        &format!("{NGINX}{}", policy("a", "", "member1")),
        "",
    );
    let c = &p.changes[0];
    assert_eq!(c.clusters.len(), 1, "{:?}", c.clusters);
    let rest = cluster(c, ANY_CLUSTER);
    assert_eq!(rest.except, vec!["member1".to_string()]);
    assert!(rest.before.receives && !rest.after.receives);
    // And widened back: every selected cluster but member1 gains it.
    let p = run(
        &format!("{NGINX}{}", policy("a", "", "member1")),
        &format!("{NGINX}{every}"),
        "",
    );
    let rest = cluster(&p.changes[0], ANY_CLUSTER);
    assert_eq!(rest.except, vec!["member1".to_string()]);
    assert!(!rest.before.receives && rest.after.receives);
}

/// Every cluster under a division of the replicas is not every cluster receiving them:
/// Aggregated fills as few clusters as their capacity allows, so a placement narrowed from it
/// to named clusters that duplicate is a "may" for them (each gets all 3 replicas after, and
/// may have had none before), and for the rest. From a duplicated placement of every
/// cluster, the named ones keep their copy (the test above).
#[test]
fn every_cluster_divided_then_named_clusters_may_gain_it() {
    let aggregated = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: a\n  namespace: default\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n  placement:\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}\n";
    let p = run(
        &format!("{NGINX}{aggregated}"),
        &format!("{NGINX}{}", policy("a", "", "member1, member2")),
        "",
    );
    let c = &p.changes[0];
    assert_eq!(c.clusters.len(), 3, "{:?}", c.clusters);
    let rest = cluster(c, ANY_CLUSTER);
    assert_eq!(
        rest.except,
        vec!["member1".to_string(), "member2".to_string()]
    );
    assert!(rest.before.receives && rest.before.undecided && !rest.after.receives);
    for name in ["member1", "member2"] {
        let d = cluster(c, name);
        assert!(d.before.receives && d.before.undecided, "{d:?}");
        assert_eq!(d.before.replicas, None);
        assert!(d.after.receives && !d.after.undecided, "{d:?}");
        assert_eq!(d.after.replicas, Some(3));
    }
    // By a label selector (duplicated), whether the named clusters were among those it
    // selected is unknown: each may gain it, where every cluster (no affinity) held them all.
    let labelled = aggregated.replace(
        "  placement:\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}\n",
        "  placement:\n    clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}\n",
    );
    assert_ne!(labelled, aggregated);
    let p = run(
        &format!("{NGINX}{labelled}"),
        &format!("{NGINX}{}", policy("a", "", "member1")),
        "",
    );
    let d = cluster(&p.changes[0], "member1");
    assert!(
        d.before.undecided && !d.after.undecided && d.after.receives,
        "{d:?}"
    );
    // A ConfigMap is not divided: every selected cluster gets it, named ones included.
    let cm = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: nginx, namespace: default}\n";
    let selects_cm = |p: &str| {
        p.replace(
            "apps/v1\n      kind: Deployment",
            "v1\n      kind: ConfigMap",
        )
    };
    let p = run(
        &format!("{cm}{}", selects_cm(aggregated)),
        &format!("{cm}{}", selects_cm(&policy("a", "", "member1"))),
        "",
    );
    let c = &p.changes[0];
    assert_eq!(c.clusters.len(), 1, "{:?}", c.clusters);
    assert!(!cluster(c, ANY_CLUSTER).before.undecided);
}

/// Candidates on both sides: every cluster by labels, divided, narrowed to named clusters that
/// it still divides (Aggregated): each named cluster may change, the rest may lose it. A
/// removed policy leaves its binding as it is, and another policy with the same placement
/// does not schedule it again (`placementChanged`): nothing may change there.
#[test]
fn candidates_on_both_sides_may_change_unless_the_schedule_stays() {
    let by_labels = |name: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n    clusterAffinity: {{labelSelector: {{matchLabels: {{env: prod}}}}}}\n    replicaScheduling: {{replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}}\n")
    };
    let named = by_labels("a").replace(
        "labelSelector: {matchLabels: {env: prod}}",
        "clusterNames: [member1, member2]",
    );
    let p = run(
        &format!("{NGINX}{}", by_labels("a")),
        &format!("{NGINX}{named}"),
        "",
    );
    let c = &p.changes[0];
    let names: Vec<&str> = c.clusters.iter().map(|d| d.cluster.as_str()).collect();
    assert_eq!(
        names,
        [ANY_CLUSTER, "member1", "member2"],
        "{:?}",
        c.clusters
    );
    for d in &c.clusters[1..] {
        assert!(
            d.before.undecided && d.after.undecided && d.after.receives,
            "{d:?}"
        );
    }
    // Removed: the binding stays; replaced by an equal placement: not scheduled again.
    let p = run(&format!("{NGINX}{}", by_labels("a")), NGINX, "");
    assert!(p.changes[0].clusters.is_empty(), "{:?}", p.changes[0]);
    let p = run(
        &format!("{NGINX}{}", by_labels("a")),
        &format!("{NGINX}{}", by_labels("b")),
        "",
    );
    assert!(p.changes[0].clusters.is_empty(), "{:?}", p.changes[0]);
    // Names and labels in one affinity: only the named clusters can be picked.
    let both = by_labels("a").replace(
        "labelSelector: {matchLabels: {env: prod}}",
        "clusterNames: [member1], labelSelector: {matchLabels: {env: prod}}",
    );
    let p = run(&format!("{NGINX}{named}"), &format!("{NGINX}{both}"), "");
    let c = &p.changes[0];
    assert!(
        c.clusters.iter().all(|d| d.cluster != ANY_CLUSTER),
        "{:?}",
        c.clusters
    );
    // member2 only may keep it: the division over member1 may fail for want of capacity,
    // which keeps the binding's clusters (no FitError).
    let member2 = cluster(c, "member2");
    assert!(
        !member2.after.receives && member2.after.undecided,
        "{member2:?}"
    );
    // A Job's replicas are divided too (min(parallelism, completions)).
    let job = "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: nginx, namespace: default}\nspec: {parallelism: 2, completions: 4}\n";
    let selects_job = |p: &str| p.replace("apps/v1, kind: Deployment", "batch/v1, kind: Job");
    let duplicated_to_member1 = by_labels("a")
        .replace(
            "labelSelector: {matchLabels: {env: prod}}",
            "clusterNames: [member1]",
        )
        .replace(
            "    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}\n",
            "",
        );
    let p = run(
        &format!("{job}{}", selects_job(&by_labels("a"))),
        &format!("{job}{}", selects_job(&duplicated_to_member1)),
        "",
    );
    let d = cluster(&p.changes[0], "member1");
    assert!(d.before.undecided && !d.after.undecided, "{d:?}");
    assert_eq!(d.after.replicas, Some(2));
}

/// A dependency goes where the workloads that carry it go (`propagateDeps`): widening the
/// workload's placement widens it too, whether it has no policy of its own or one that keeps
/// its own schedule (the binding controller merges the carriers' clusters,
/// `mergeTargetClusters`).
#[test]
fn a_dependency_follows_its_carrier_to_new_clusters() {
    let app = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers: [{name: c, image: nginx}]\n      volumes: [{name: c, configMap: {name: cfg}}]\n";
    let carrier = |clusters: &str| policy("a", "  propagateDeps: true\n", clusters);
    let own = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: cfg, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: cfg}]\n  placement: {clusterAffinity: {clusterNames: [member3]}}\n";
    for extra in ["", own] {
        let p = run(
            &format!("{app}{}{extra}", carrier("member1")),
            &format!("{app}{}{extra}", carrier("member1, member2")),
            "",
        );
        let cfg = p
            .changes
            .iter()
            .find(|c| c.template.name == "cfg")
            .unwrap_or_else(|| panic!("{:?}", p.changes));
        assert_eq!(cfg.clusters.len(), 1, "{:?}", cfg.clusters);
        let d = cluster(cfg, "member2");
        assert!(!d.before.receives && d.after.receives, "{d:?}");
    }
    // The carrier moved to candidates (every cluster by labels, divided): its own cluster
    // stays the dependency's for certain, the carrier's old one may lose it.
    let by_labels = carrier("member1").replace(
        "    clusterAffinity:\n      clusterNames: [member1]\n",
        "    clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}\n",
    );
    let p = run(
        &format!("{app}{}{own}", carrier("member1")),
        &format!("{app}{by_labels}{own}"),
        "",
    );
    let cfg = p.changes.iter().find(|c| c.template.name == "cfg").unwrap();
    assert!(
        cfg.clusters.iter().all(|d| d.cluster != "member3"),
        "{:?}",
        cfg.clusters
    );
    assert!(
        cluster(cfg, "member1").after.undecided,
        "{:?}",
        cfg.clusters
    );
}

/// An override of a dependency applies on the clusters its carriers take it to: the binding
/// controller renders a Work for each of `mergeTargetClusters(Clusters, RequiredBy)` and runs
/// the override chain for each (`ensureWork`, pkg/controllers/binding/common.go), although the
/// change names neither the workload nor its policy.
#[test]
fn an_override_of_a_dependency_changes_the_clusters_its_carriers_take_it_to() {
    let app = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {a: b}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers: [{name: c, image: nginx, envFrom: [{configMapRef: {name: cfg}}]}]\n";
    let base = format!(
        "{app}{}",
        policy("a", "  propagateDeps: true\n", "member1, member2")
    );
    let op = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: cfg, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: cfg}]\n  overrideRules:\n    - targetCluster: {clusterNames: [member1]}\n      overriders:\n        plaintext: [{path: /data/a, operator: replace, value: m1}]\n";
    let own = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: cfg, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: cfg}]\n  placement: {clusterAffinity: {clusterNames: [member3]}}\n";
    // The override alone, then with a policy of the dependency's own (to member3).
    for (extra, clusters) in [("", 1), (own, 2)] {
        let p = run(&base, &format!("{base}{op}{extra}"), "");
        let cfg = p
            .changes
            .iter()
            .find(|c| c.template.name == "cfg")
            .unwrap_or_else(|| panic!("{:?}", p.changes));
        assert_eq!(cfg.clusters.len(), clusters, "{:?}", cfg.clusters);
        let d = cluster(cfg, "member1");
        assert!(d.before.receives && d.after.receives, "{d:?}");
        assert_eq!(d.manifest.len(), 1, "{d:?}");
        assert_eq!(d.manifest[0].path, "/data/a");
        assert_eq!(d.manifest[0].after, Some(serde_json::json!("m1")));
        assert!(p.changes.iter().all(|c| c.template.name != "nginx"));
    }
    // The gate off, nothing carries it: the override changes nothing.
    let p = run(&base, &format!("{base}{op}"), "PropagateDeps=false");
    assert!(p.changes.is_empty(), "{:?}", p.changes);
    // The carrier suspended: its own Works wait, the dependency's attached binding carries no
    // suspension (`buildAttachedBinding`), so the override reaches member1 all the same.
    let suspended = format!(
        "{app}{}",
        policy(
            "a",
            "  propagateDeps: true\n  suspension: {dispatching: true}\n",
            "member1, member2"
        )
    );
    let p = run(&suspended, &format!("{suspended}{op}"), "");
    let cfg = p.changes.iter().find(|c| c.template.name == "cfg").unwrap();
    let d = cluster(cfg, "member1");
    assert!(!d.before.suspended && !d.after.suspended, "{d:?}");
}

/// Without Cluster objects, names alone decide only where nothing picks among the named
/// clusters by their state: under a spread constraint (one of three by score) or a division by
/// available replicas each named cluster may receive the template (`undecided`), none for
/// certain; a plain list of names or a duplicated placement is evaluated by name.
#[test]
fn without_cluster_objects_a_choice_among_named_clusters_is_not_evaluated() {
    let placements = [
        ("spreadConstraints: [{spreadByField: cluster, maxGroups: 1, minGroups: 1}]", false),
        (
            "replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {dynamicWeight: AvailableReplicas}}",
            false,
        ),
        ("replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}", false),
        (
            "replicaScheduling: {replicaSchedulingType: Divided, weightPreference: {staticWeightList: [{targetCluster: {labelSelector: {matchLabels: {a: b}}}, weight: 1}]}}",
            false,
        ),
        ("replicaScheduling: {replicaSchedulingType: Duplicated}", true),
        ("clusterTolerations: [{key: k, operator: Exists}]", true),
    ];
    for (extra, by_name) in placements {
        let pp = format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n    clusterAffinity: {{clusterNames: [m1, m2, m3]}}\n    {extra}\n");
        let p = run(NGINX, &format!("{NGINX}{pp}"), "");
        let names: Vec<(&str, bool)> = p.changes[0]
            .clusters
            .iter()
            .map(|d| (d.cluster.as_str(), d.after.undecided))
            .collect();
        let undecided = !by_name;
        assert_eq!(
            names,
            [("m1", undecided), ("m2", undecided), ("m3", undecided)],
            "{extra}"
        );
    }
}

/// A placement the scheduler decides among its named clusters, moved to other names: the
/// clusters no longer named keep the template only if the new division fails for want of
/// capacity (no FitError keeps the binding's clusters), and those newly named may get it, so
/// the template is in the plan (round twenty-one: it was left out, as if nothing changed).
#[test]
fn an_undecided_placement_moved_to_other_names_is_planned() {
    let pp = |names: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n    clusterAffinity: {{clusterNames: [{names}]}}\n    replicaScheduling: {{replicaSchedulingType: Divided, weightPreference: {{dynamicWeight: AvailableReplicas}}}}\n")
    };
    let p = run(
        &format!("{NGINX}{}", pp("m1, m3")),
        &format!("{NGINX}{}", pp("m4, m5")),
        "",
    );
    assert_eq!(p.changes.len(), 1, "{p:?}");
    let shares: Vec<(&str, bool, bool)> = p.changes[0]
        .clusters
        .iter()
        .map(|d| (d.cluster.as_str(), d.before.receives, d.after.receives))
        .collect();
    assert_eq!(
        shares,
        [
            ("m1", true, false),
            ("m3", true, false),
            ("m4", false, true),
            ("m5", false, true)
        ]
    );
    assert!(p.changes[0].clusters.iter().all(ClusterDelta::undecided));
}

/// A spread constraint widened over the same named clusters (`maxGroups: 1` to `2`): which of
/// them change is the scheduler's choice, so each is listed as it may change, not left out.
#[test]
fn an_undecided_placement_rescheduled_among_the_same_names_may_change_each() {
    let pp = |groups: u8| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n    clusterAffinity: {{clusterNames: [m1, m2, m3]}}\n    spreadConstraints: [{{spreadByField: cluster, maxGroups: {groups}, minGroups: 1}}]\n")
    };
    let p = run(
        &format!("{NGINX}{}", pp(1)),
        &format!("{NGINX}{}", pp(2)),
        "",
    );
    assert_eq!(p.changes.len(), 1, "{p:?}");
    let c = &p.changes[0];
    let names: Vec<&str> = c.clusters.iter().map(|d| d.cluster.as_str()).collect();
    assert_eq!(names, ["m1", "m2", "m3"]);
    assert!(c
        .clusters
        .iter()
        .all(|d| d.before == d.after && d.after.undecided && d.after.receives));
}

/// A new policy written three times, the second naming another scheduler: applied in turn the
/// third replaces the first (the template goes to member3) and the second is an update the
/// webhook refuses, a failed apply: one edit, added, and a `policy-refused` hazard.
#[test]
fn a_refused_copy_among_new_copies_is_a_hazard_of_the_added_policy() {
    let head = [
        NGINX.to_string(),
        policy("a", "", "member1"),
        policy("a", "  schedulerName: custom\n", "member2"),
        policy("a", "  schedulerName: default-scheduler\n", "member3"),
    ]
    .concat();
    let p = run(NGINX, &head, "");
    let edits: Vec<(Edit, bool)> = p
        .policies
        .iter()
        .map(|e| (e.edit, e.refused.is_empty()))
        .collect();
    assert_eq!(edits, [(Edit::Added, true)], "{p:#?}");
    let codes: Vec<&str> = p.hazards.iter().map(Hazard::code).collect();
    assert_eq!(codes, ["policy-refused"], "{p:#?}");
    let after = &p.changes[0].after;
    assert_eq!(after.as_ref().map(|r| r.name.as_str()), Some("a"));
    assert!(cluster(&p.changes[0], "member3").after.receives, "{p:#?}");
}

/// Cluster objects without `status.resourceSummary` under a spread constraint that keeps two of
/// three: for a workload the scheduler orders them by score, then available replicas, which
/// they do not declare (`sortClusters`, spreadconstraint/util.go), so each may lose it; a
/// ConfigMap has no replicas to estimate (every cluster MaxInt32) and the names decide.
#[test]
fn clusters_that_declare_no_capacity_leave_a_spread_selection_to_the_scheduler() {
    let clusters = registered_clusters(&["m1", "m2", "m3"]);
    let cm = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\n";
    let pp = |spread: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}, {{apiVersion: v1, kind: ConfigMap, name: cfg}}]\n  placement:\n    replicaScheduling: {{replicaSchedulingType: Duplicated}}\n{spread}")
    };
    let p = run(
        &format!("{NGINX}{cm}{clusters}{}", pp("")),
        &format!(
            "{NGINX}{cm}{clusters}{}",
            pp("    spreadConstraints: [{spreadByField: cluster, maxGroups: 2, minGroups: 1}]\n")
        ),
        "",
    );
    let change = |kind: &str| {
        p.changes
            .iter()
            .find(|c| c.template.kind == kind)
            .unwrap_or_else(|| panic!("{kind} in {p:?}"))
    };
    let deployment = change("Deployment");
    assert_eq!(
        deployment.undecided_by,
        UndecidedBy::UndeclaredState,
        "{deployment:?}"
    );
    for name in ["m1", "m2", "m3"] {
        let d = cluster(deployment, name);
        assert!(d.before.receives && !d.before.undecided, "{d:?}");
        assert!(d.after.receives && d.after.undecided, "{d:?}");
    }
    let configmap = change("ConfigMap");
    assert_eq!(configmap.undecided_by, UndecidedBy::NoClusterObjects);
    let lost: Vec<(&str, bool)> = configmap
        .clusters
        .iter()
        .map(|d| (d.cluster.as_str(), d.after.receives))
        .collect();
    assert_eq!(lost, [("m3", false)]);
}

/// A Deployment with 0 replicas and resource requests: the scheduler divides its 0 replicas
/// (the requests make it a workload, `AssignReplicas`, common.go), every share is 0 and dropped
/// (`removeZeroReplicasCluster`), so it goes nowhere under any placement, with or without
/// Cluster objects: moving it from a label selector to names changes nothing.
#[test]
fn zero_replicas_with_requests_go_nowhere_whatever_the_placement() {
    let zero = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\nspec:\n  replicas: 0\n  template:\n    spec:\n      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]\n";
    let pp = |placement: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n{placement}")
    };
    let by_labels = pp("    clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted}\n");
    let by_names = pp("    clusterAffinity: {clusterNames: [m1, m2]}\n    replicaScheduling: {replicaSchedulingType: Duplicated}\n");
    let p = run(
        &format!("{zero}{by_labels}"),
        &format!("{zero}{by_names}"),
        "",
    );
    assert_eq!(p.policies.len(), 1, "{p:?}");
    assert!(p.changes.is_empty(), "{:?}", p.changes);
    // The same Deployment without requests is listed on every selected cluster with its 0.
    let plain = zero.replace(", resources: {requests: {cpu: 100m}}", "");
    let p = run(
        &format!("{plain}{by_labels}"),
        &format!("{plain}{by_names}"),
        "",
    );
    assert!(!p.changes.is_empty(), "{p:?}");
}

/// A schedule that fails for another reason than no cluster fitting (a spread constraint's
/// `minGroups` above the clusters past the filters) is no FitError: karmada-scheduler returns
/// before patching the binding (`scheduleResourceBindingWithClusterAffinity`,
/// pkg/scheduler/scheduler.go), which keeps its clusters. The template is listed as not
/// scheduled, and no cluster loses it. Where no cluster fits (a FitError) the binding's
/// clusters are cleared.
#[test]
fn a_schedule_that_fails_without_a_fit_error_keeps_the_clusters() {
    let clusters = registered_clusters(&["m1", "m2"]);
    let pp = |extra: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n    clusterAffinity: {{clusterNames: [m1]}}\n{extra}")
    };
    let base = format!("{NGINX}{clusters}{}", pp(""));
    let p = run(
        &base,
        &format!(
            "{NGINX}{clusters}{}",
            pp("    spreadConstraints: [{spreadByField: cluster, maxGroups: 2, minGroups: 2}]\n")
        ),
        "",
    );
    let c = &p.changes[0];
    assert!(c.clusters.is_empty(), "{c:?}");
    assert!(
        c.unschedulable.as_deref().is_some_and(|e| e.contains(
            "less than spreadConstraint.MinGroups: not a FitError, so the binding keeps the clusters it has"
        )),
        "{c:?}"
    );
    // No cluster fits (m3 is not registered): a FitError, and m1 loses it.
    let p = run(
        &base,
        &format!("{NGINX}{clusters}{}", pp("").replace("[m1]", "[m3]")),
        "",
    );
    let c = &p.changes[0];
    assert!(!cluster(c, "m1").after.receives, "{c:?}");
}

/// The mirror: the schedule before the change fails without a FitError, so the binding holds
/// the clusters an earlier schedule gave it, which the inputs do not show (none, if it never
/// had one). A cluster the change sends the template to may hold it already: it may gain it,
/// for that reason.
#[test]
fn a_schedule_before_that_fails_without_a_fit_error_leaves_the_old_clusters_open() {
    let clusters = registered_clusters(&["m1", "m2"]);
    let pp = |extra: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n    clusterAffinity: {{clusterNames: [m1]}}\n{extra}")
    };
    let failing =
        pp("    spreadConstraints: [{spreadByField: cluster, maxGroups: 2, minGroups: 2}]\n");
    let p = run(
        &format!("{NGINX}{clusters}{failing}"),
        &format!("{NGINX}{clusters}{}", pp("")),
        "",
    );
    let c = &p.changes[0];
    let m1 = cluster(c, "m1");
    assert!(m1.before.undecided && !m1.before.receives, "{c:?}");
    assert!(m1.after.receives && !m1.after.undecided, "{c:?}");
    assert_eq!(c.undecided_by, UndecidedBy::EarlierSchedule, "{c:?}");
    assert_eq!(c.clusters.len(), 1, "{c:?}");
    // Failing the same way on both sides: the binding keeps what it has, and nothing changes.
    let p = run(
        &format!("{NGINX}{clusters}{failing}"),
        &format!(
            "{NGINX}{clusters}{}",
            failing.replace("maxGroups: 2", "maxGroups: 3")
        ),
        "",
    );
    assert!(p.changes.iter().all(|c| c.clusters.is_empty()), "{p:?}");
    // No cluster fits after the change (m3 is not registered): a FitError clears the binding,
    // so whatever an earlier schedule gave it goes, which is said, not named.
    let p = run(
        &format!("{NGINX}{clusters}{failing}"),
        &format!("{NGINX}{clusters}{}", pp("").replace("[m1]", "[m3]")),
        "",
    );
    let c = &p.changes[0];
    assert!(
        c.unschedulable
            .as_deref()
            .is_some_and(|e| e
                .ends_with(": the binding's clusters from an earlier schedule, if any, lose it")),
        "{c:?}"
    );
}

/// A division by capacity the Cluster objects do not declare may also fail for want of it (no
/// FitError: the binding keeps its clusters), so a cluster it leaves out only may lose the
/// template; narrowed to one cluster that holds it, that cluster keeps it either way (every
/// replica, or the old schedule).
#[test]
fn a_division_by_undeclared_capacity_may_keep_the_old_clusters() {
    let clusters = registered_clusters(&["m1", "m2", "m3"]);
    let pp = |placement: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n{placement}")
    };
    let p = run(
        &format!("{NGINX}{clusters}{}", pp("    replicaScheduling: {replicaSchedulingType: Duplicated}\n")),
        &format!(
            "{NGINX}{clusters}{}",
            pp("    clusterAffinity: {clusterNames: [m1]}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {dynamicWeight: AvailableReplicas}}\n")
        ),
        "",
    );
    let c = &p.changes[0];
    let shares: Vec<(&str, bool, bool)> = c
        .clusters
        .iter()
        .map(|d| (d.cluster.as_str(), d.after.receives, d.after.undecided))
        .collect();
    // m2 and m3 keep it only if the division fails: they may lose it, receiving nothing new.
    assert_eq!(shares, [("m2", false, true), ("m3", false, true)], "{c:?}");
}

/// A workload scaled to 0 with requests under a spread constraint, without Cluster objects:
/// the selection may fail before the assignment (`minGroups`), keeping the binding's clusters,
/// so it is not taken as going nowhere for certain.
#[test]
fn zero_replicas_under_a_spread_constraint_may_keep_their_clusters() {
    let deployment = |replicas: u32| {
        format!("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: nginx, namespace: default}}\nspec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 100m}}}}}}]\n")
    };
    let pp = |extra: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n    clusterAffinity: {{clusterNames: [m1]}}\n    replicaScheduling: {{replicaSchedulingType: Duplicated}}\n{extra}")
    };
    let p = run(
        &format!("{}{}", deployment(2), pp("")),
        &format!(
            "{}{}",
            deployment(0),
            pp("    spreadConstraints: [{spreadByField: cluster, maxGroups: 2, minGroups: 2}]\n")
        ),
        "",
    );
    let m1 = cluster(&p.changes[0], "m1");
    assert!(m1.after.receives && m1.after.undecided, "{m1:?}");
}

/// Cluster objects of these names, as registered without their status (`syncMode: Push`).
fn registered_clusters(names: &[&str]) -> String {
    names
        .iter()
        .map(|c| format!("---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {{name: {c}}}\nspec: {{syncMode: Push}}\n"))
        .collect()
}

/// The same uid breaks Webster's ties before and after the change: one replica to two over
/// three equal weights gives m1 then m1 and m2, or m3 then m2 and m3, so under either only m2
/// gains it. Both sides are compared under one tie-break, not as candidates each.
#[test]
fn a_uid_tie_on_both_sides_is_compared_under_one_tie_break() {
    let deployment = |replicas: u32| {
        format!("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: nginx, namespace: default}}\nspec:\n  replicas: {replicas}\n")
    };
    let pp = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: a, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  placement:\n    clusterAffinity: {clusterNames: [m1, m2, m3]}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [m1, m2, m3]}, weight: 1}]}}\n";
    let p = run(
        &format!("{}{pp}", deployment(1)),
        &format!("{}{pp}", deployment(2)),
        "",
    );
    let c = &p.changes[0];
    let shares: Vec<(&str, bool, bool, bool)> = c
        .clusters
        .iter()
        .map(|d| {
            (
                d.cluster.as_str(),
                d.before.receives,
                d.after.receives,
                d.after.undecided,
            )
        })
        .collect();
    assert_eq!(shares, [("m2", false, true, false)], "{c:?}");
    assert!(!c.replicas_otherwise.is_empty() && !c.replicas_otherwise_before.is_empty());
}

/// A spread constraint by cluster that keeps as many clusters as the placement names, and asks
/// for no more than one, takes every named cluster: names alone decide it, and a Deployment
/// scaled to 0 with requests leaves each of them for certain.
#[test]
fn a_spread_constraint_that_keeps_every_name_is_decided_by_names() {
    let deployment = |replicas: u32| {
        format!("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: nginx, namespace: default}}\nspec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 100m}}}}}}]\n")
    };
    let pp = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: a, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  placement:\n    clusterAffinity: {clusterNames: [m1, m2]}\n    replicaScheduling: {replicaSchedulingType: Duplicated}\n    spreadConstraints: [{spreadByField: cluster, maxGroups: 2, minGroups: 1}]\n";
    let p = run(
        &format!("{}{pp}", deployment(2)),
        &format!("{}{pp}", deployment(0)),
        "",
    );
    let c = &p.changes[0];
    for name in ["m1", "m2"] {
        let d = cluster(c, name);
        assert!(d.before.receives && !d.before.undecided, "{d:?}");
        assert!(!d.after.receives, "{d:?}");
    }
}

/// A Lazy policy's change reaches the binding only on the template's next update
/// (`ApplyPolicy`, pkg/detector/detector.go): the plan marks it, and not where the same change
/// updates the template too, nor for a template it creates, nor for a policy that is not Lazy.
#[test]
fn a_lazy_policys_change_waits_for_the_templates_next_update() {
    let lazy = "  activationPreference: Lazy\n";
    let base = format!("{NGINX}{}", policy("a", lazy, "member1"));
    let p = run(
        &base,
        &format!("{NGINX}{}", policy("a", lazy, "member2")),
        "",
    );
    assert!(p.changes[0].lazy, "{:?}", p.changes);
    assert!(cluster(&p.changes[0], "member2").after.receives);

    let updated = NGINX.replace("replicas: 3", "replicas: 4");
    let p = run(
        &base,
        &format!("{updated}{}", policy("a", lazy, "member2")),
        "",
    );
    assert!(!p.changes[0].lazy, "{:?}", p.changes);

    // A new Lazy policy claims a template no policy held: its binding waits too.
    let p = run(NGINX, &base, "");
    assert_eq!(p.changes[0].moved, OwnerMove::Claimed);
    assert!(p.changes[0].lazy);
    // A template created with the policy is an update by the user.
    let p = run("", &base, "");
    assert!(!p.changes[0].lazy);

    let p = run(
        &format!("{NGINX}{}", policy("a", "", "member1")),
        &format!("{NGINX}{}", policy("a", "", "member2")),
        "",
    );
    assert!(!p.changes[0].lazy);
}
