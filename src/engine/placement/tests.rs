//! Facts from Karmada's scheduler unit tests (`plugins/*/..._test.go`) and from
//! overrides-and-placement.md's run examples: inputs and expected feasible sets.

use serde_json::json;

use super::*;
use crate::model::meta::ObjectMeta;

fn cluster(name: &str, body: serde_json::Value) -> Cluster {
    let mut labels = crate::model::StringMap::new();
    if let Some(l) = body.pointer("/metadata/labels").and_then(|l| l.as_object()) {
        for (k, v) in l {
            labels.insert(k.clone(), v.as_str().unwrap().to_string());
        }
    }
    let meta = ObjectMeta {
        name: name.into(),
        labels,
        deletion_timestamp: body
            .pointer("/metadata/deletionTimestamp")
            .map(|_| "now".to_string()),
        ..ObjectMeta::default()
    };
    Cluster::from_json(&meta, &body)
}

/// A cluster serving apps/v1 Deployment (APIEnablement passes).
fn ready(name: &str, spec: serde_json::Value) -> Cluster {
    let mut body = json!({"spec": spec, "status": {"apiEnablements": [
        {"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]}
    ]}});
    if let Some(labels) = body["spec"]
        .as_object_mut()
        .and_then(|s| s.remove("labels"))
    {
        body["metadata"] = json!({ "labels": labels });
    }
    cluster(name, body)
}

fn placement(v: serde_json::Value) -> Placement {
    serde_json::from_value(v).unwrap()
}

fn deploy() -> BindingView<'static> {
    BindingView {
        api_version: "apps/v1",
        kind: "Deployment",
        ..BindingView::default()
    }
}

fn reasons(r: &PlacementResult) -> Vec<(String, Filter, String)> {
    r.decided
        .excluded
        .iter()
        .map(|e| {
            (
                e.cluster.clone(),
                e.first().filter,
                e.first().reason.clone(),
            )
        })
        .collect()
}

/// Example 1 (`selector_test.go`-style): fieldSelector semantics on zones/provider/region.
#[test]
fn field_selector_matches_as_cluster_matches_does() {
    let cs = [
        ready("c1", json!({"provider": "aws", "zones": ["z1", "z2"]})),
        ready("c2", json!({})),
        ready("c3", json!({"provider": "gcp", "region": "r1"})),
    ];
    let cases = [
        (
            json!({"fieldSelector": {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["z1"]}]}}),
            vec!["c2", "c3"],
        ),
        (
            json!({"fieldSelector": {"matchExpressions": [{"key": "provider", "operator": "NotIn", "values": ["gcp"]}]}}),
            vec!["c1", "c2"],
        ),
        (
            json!({"fieldSelector": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}}),
            vec!["c1"],
        ),
        (
            json!({"clusterNames": ["c1", "c2"], "exclude": ["c1"]}),
            vec!["c2"],
        ),
        (
            json!({"fieldSelector": {"matchExpressions": [{"key": "region", "operator": "In", "values": ["r1"]}]}}),
            vec!["c3"],
        ),
        (
            json!({"fieldSelector": {"matchExpressions": [{"key": "unknown", "operator": "In", "values": ["x"]}]}}),
            vec![],
        ),
    ];
    for (affinity, want) in cases {
        let a: ClusterAffinity = serde_json::from_value(affinity.clone()).unwrap();
        let got: Vec<&str> = cs
            .iter()
            .filter(|c| cluster_matches(c, &a))
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(got, want, "{affinity}");
    }
}

/// `cluster_affinity_test.go`: label selector, names, exclude; no affinity = every cluster.
#[test]
fn cluster_affinity_filter() {
    let cs = [
        ready("member1", json!({"labels": {"env": "prod"}})),
        ready("member2", json!({"labels": {"env": "dev"}})),
    ];
    let p =
        placement(json!({"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}}));
    let r = evaluate(&p, &cs, &deploy());
    assert_eq!(r.decided.feasible, vec!["member1"]);
    assert_eq!(
        reasons(&r),
        vec![(
            "member2".into(),
            Filter::ClusterAffinity,
            "cluster(s) did not match the placement cluster affinity constraint".into()
        )]
    );
    assert_eq!(r.decided.term, None);
    let all = evaluate(&Placement::default(), &cs, &deploy());
    assert_eq!(all.decided.feasible, vec!["member1", "member2"]);
}

/// `taint_toleration_test.go` and Example 8: first untolerated taint in list order; effects
/// NoSchedule and NoExecute alike; PreferNoSchedule ignored; already scheduled clusters pass.
#[test]
fn taint_toleration_filter() {
    let tainted = |name: &str| {
        ready(
            name,
            json!({"taints": [
                {"key": "maint", "value": "infra", "effect": "NoSchedule"},
                {"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"},
                {"key": "soft", "effect": "PreferNoSchedule"}
            ]}),
        )
    };
    let cs = [tainted("member1")];
    let p = placement(
        json!({"clusterTolerations": [{"key": "cluster.karmada.io/not-ready", "operator": "Exists"}]}),
    );
    assert_eq!(
        reasons(&evaluate(&p, &cs, &deploy())),
        vec![(
            "member1".into(),
            Filter::TaintToleration,
            "cluster(s) had untolerated taint {maint=infra:NoSchedule}".into()
        )]
    );
    let wrong_effect = placement(json!({"clusterTolerations": [
        {"key": "cluster.karmada.io/not-ready", "operator": "Exists"},
        {"key": "maint", "operator": "Equal", "value": "infra", "effect": "NoExecute", "tolerationSeconds": 30}
    ]}));
    assert!(!evaluate(&wrong_effect, &cs, &deploy()).succeeded());
    let all = placement(json!({"clusterTolerations": [{"operator": "Exists"}]}));
    assert_eq!(
        evaluate(&all, &cs, &deploy()).decided.feasible,
        vec!["member1"]
    );
    // An empty key with Equal tolerates any taint carrying that value.
    let t = Toleration {
        operator: "Equal".into(),
        value: "infra".into(),
        ..Toleration::default()
    };
    assert!(tolerates(&t, &cs[0].spec.taints[0]));
    // "cluster already in target clusters": the taint is not looked at.
    let scheduled = vec!["member1".to_string()];
    let view = BindingView {
        scheduled: &scheduled,
        ..deploy()
    };
    assert!(evaluate(&Placement::default(), &cs, &view).succeeded());
}

/// `api_enablement_test.go`: the kind must be listed under its groupVersion; APIUnknown (other
/// APIs listed, the list maybe incomplete) fails too; a scheduled cluster passes. A cluster
/// whose input reports no API enablement at all (a Cluster manifest kept in git) is not known
/// to lack the API: it passes, and the note names it.
#[test]
fn api_enablement_filter() {
    let configmaps_only = json!({"status": {"apiEnablements": [
        {"groupVersion": "v1", "resources": [{"name": "configmaps", "kind": "ConfigMap"}]}]}});
    let cs = [
        ready("member1", json!({})),
        cluster(
            "member2",
            json!({"status": {"conditions": [{"type": "CompleteAPIEnablements", "status": "True"}]}}),
        ),
        cluster("member3", configmaps_only),
        cluster("member4", json!({})),
    ];
    let r = evaluate(&Placement::default(), &cs, &deploy());
    assert_eq!(r.decided.feasible, vec!["member1", "member4"]);
    assert_eq!(
        crate::model::cluster::unreported(&cs),
        vec!["member4"],
        "the one the note names"
    );
    assert_eq!(r.decided.excluded.len(), 2);
    assert!(r
        .decided
        .excluded
        .iter()
        .all(|e| e.first().reason == "cluster(s) did not have the API resource"));
    let scheduled = vec!["member3".to_string()];
    let view = BindingView {
        scheduled: &scheduled,
        ..deploy()
    };
    assert_eq!(
        evaluate(&Placement::default(), &cs, &view).decided.feasible,
        vec!["member1", "member3", "member4"]
    );
}

/// `cluster_eviction_test.go`: a graceful-eviction source is refused even when scheduled.
#[test]
fn cluster_eviction_filter() {
    let cs = [ready("member1", json!({})), ready("member2", json!({}))];
    let evicting = vec!["member1".to_string()];
    let view = BindingView {
        scheduled: &evicting,
        evicting: &evicting,
        ..deploy()
    };
    let r = evaluate(&Placement::default(), &cs, &view);
    assert_eq!(r.decided.feasible, vec!["member2"]);
    assert_eq!(
        reasons(&r)[0].2,
        "cluster(s) is in the process of eviction".to_string()
    );
}

/// `spread_constraint_test.go`: a spreadByField needs that property; selection errors.
#[test]
fn spread_constraint_filter_and_selection() {
    let cs = [
        ready(
            "member1",
            json!({"provider": "aws", "region": "r1", "zones": ["z"]}),
        ),
        ready("member2", json!({})),
    ];
    let p = placement(json!({"spreadConstraints": [
        {"spreadByField": "region", "minGroups": 1},
        {"spreadByField": "cluster", "minGroups": 1}
    ]}));
    let r = evaluate(&p, &cs, &deploy());
    assert_eq!(r.decided.feasible, vec!["member1"]);
    assert_eq!(reasons(&r)[0].2, "cluster(s) did not have region property");
    let too_many =
        placement(json!({"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 3}]}));
    let r = evaluate(&too_many, &cs, &deploy());
    assert_eq!(
        r.decided.error,
        Some(ScheduleError::Scheduler("failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups".into()))
    );
    let zone_only =
        placement(json!({"spreadConstraints": [{"spreadByField": "zone", "minGroups": 1}]}));
    assert_eq!(
        evaluate(&zone_only, &cs, &deploy())
            .decided
            .error
            .unwrap()
            .text(),
        "failed to select clusters: just support cluster and region spread constraint"
    );
    let max_one = placement(
        json!({"spreadConstraints": [{"spreadByField": "cluster", "maxGroups": 1, "minGroups": 1}]}),
    );
    let r = evaluate(&max_one, &cs, &deploy());
    assert!(r.succeeded());
    assert_eq!(r.decided.picks, Some(1), "scoring picks one of the two");
}

/// Example 9: terms tried from the observed one forward; an earlier term is never retried;
/// when all fail the first attempt's error is reported.
#[test]
fn cluster_affinities_fall_back_in_order() {
    let cs = [
        ready("a", json!({})),
        ready(
            "b",
            json!({"taints": [{"key": "x", "effect": "NoSchedule"}]}),
        ),
        ready("c", json!({})),
    ];
    let p = placement(json!({"clusterAffinities": [
        {"affinityName": "primary", "clusterNames": ["a"]},
        {"affinityName": "backup", "clusterNames": ["b"]},
        {"affinityName": "last", "clusterNames": ["c"]}
    ]}));
    let r = evaluate(&p, &cs, &deploy());
    assert_eq!(r.decided.term.as_deref(), Some("primary"));
    assert_eq!(r.decided.feasible, vec!["a"]);
    let view = BindingView {
        observed_affinity: Some("backup"),
        ..deploy()
    };
    let r = evaluate(&p, &cs, &view);
    assert_eq!(r.attempts.len(), 2);
    assert_eq!(r.decided.term.as_deref(), Some("last"));
    assert_eq!(r.decided.feasible, vec!["c"]);
    let none = placement(json!({"clusterAffinities": [
        {"affinityName": "one", "clusterNames": ["b"]},
        {"affinityName": "two", "clusterNames": ["zz"]}
    ]}));
    let r = evaluate(&none, &cs, &deploy());
    assert!(!r.succeeded());
    assert_eq!(
        r.decided.term.as_deref(),
        Some("one"),
        "first error reported"
    );
    assert_eq!(
        r.decided.error.as_ref().unwrap().text(),
        "0/3 clusters are available: 1 cluster(s) had untolerated taint {x:NoSchedule}, 2 cluster(s) did not match the placement cluster affinity constraint."
    );
}

/// Example 10: the histogram counts first reasons, sorts as strings, and N counts deleting
/// clusters, which get no reason.
#[test]
fn fit_error_text_as_the_scheduler_words_it() {
    let mut cs: Vec<Cluster> = (0..10)
        .map(|i| ready(&format!("aff{i}"), json!({"labels": {"env": "dev"}})))
        .collect();
    // APIUnknown: other APIs listed, not the Deployment's.
    let no_api = json!({"metadata": {"labels": {"env": "prod"}}, "status": {"apiEnablements": [
        {"groupVersion": "v1", "resources": [{"name": "configmaps", "kind": "ConfigMap"}]}]}});
    cs.push(cluster("noapi1", no_api.clone()));
    cs.push(cluster("noapi2", no_api));
    cs.push(cluster(
        "gone",
        json!({"metadata": {"deletionTimestamp": "x"}}),
    ));
    let p =
        placement(json!({"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}}));
    let r = evaluate(&p, &cs, &deploy());
    assert_eq!(
        r.decided.error.unwrap().text(),
        "0/13 clusters are available: 10 cluster(s) did not match the placement cluster affinity constraint, 2 cluster(s) did not have the API resource."
    );
    assert_eq!(
        fit_error_text(0, &[]),
        "0/0 clusters are available: no cluster exists."
    );
}

/// `Test_selectBestClustersByRegion` (karmada `pkg/scheduler/core/spreadconstraint/
/// select_clusters_by_region_test.go`), as facts: the regions' sizes among the feasible
/// clusters, the region and cluster constraints, and whether selection fails (which regions
/// scoring picks is not modelled).
#[test]
fn region_selection_facts() {
    let region_error = "failed to select clusters: the number of feasible region is less than spreadConstraint.MinGroups";
    let cluster_error = "failed to select clusters: the number of clusters is less than the cluster spreadConstraint.MinGroups";
    // (case, cluster count per region, region min/max, cluster min/max, error)
    type Case<'a> = (
        &'a str,
        &'a [usize],
        (i64, i64),
        (i64, i64),
        Option<&'a str>,
    );
    let cases: &[Case] = &[
        (
            "select cluster from the region with the higher score",
            &[2, 3],
            (1, 1),
            (2, 2),
            None,
        ),
        (
            "select cluster from the region with enough clusters",
            &[2, 3],
            (1, 1),
            (3, 3),
            None,
        ),
        (
            "...enough clusters and higher score",
            &[1, 3, 2, 4],
            (2, 2),
            (4, 5),
            None,
        ),
        (
            "select cluster from more than `minGroups` regions",
            &[1, 3, 2, 1, 1],
            (1, 3),
            (6, 8),
            None,
        ),
        (
            "no enough region",
            &[2, 3],
            (3, 3),
            (3, 3),
            Some(region_error),
        ),
        (
            "no enough clusters",
            &[2, 3],
            (1, 1),
            (4, 4),
            Some(cluster_error),
        ),
        (
            "no more regions to replace",
            &[2],
            (1, 1),
            (3, 4),
            Some(cluster_error),
        ),
    ];
    for (case, sizes, (rmin, rmax), (cmin, cmax), want) in cases {
        let mut cs = Vec::new();
        for (r, n) in sizes.iter().enumerate() {
            for i in 0..*n {
                cs.push(ready(
                    &format!("r{r}-{i}"),
                    json!({"region": format!("R{r}")}),
                ));
            }
        }
        let p = placement(json!({"spreadConstraints": [
            {"spreadByField": "region", "minGroups": rmin, "maxGroups": rmax},
            {"spreadByField": "cluster", "minGroups": cmin, "maxGroups": cmax}
        ]}));
        let r = evaluate(&p, &cs, &deploy());
        assert_eq!(
            r.decided.error.as_ref().map(ScheduleError::text),
            *want,
            "{case}"
        );
        // The filter stage's feasible set stays whole either way.
        assert_eq!(r.decided.feasible.len(), cs.len(), "{case}");
    }
    // A region constraint without maxGroups admits no set of regions (`findFeasiblePaths`
    // stops at a path as long as maxConstraint, 0).
    let cs = [ready("a", json!({"region": "R1"}))];
    let p = placement(json!({"spreadConstraints": [
        {"spreadByField": "region", "minGroups": 1},
        {"spreadByField": "cluster", "minGroups": 1}
    ]}));
    assert_eq!(
        evaluate(&p, &cs, &deploy())
            .decided
            .error
            .as_ref()
            .map(ScheduleError::text),
        Some(cluster_error)
    );
}

/// `generic_scheduler.go` `Schedule`: selection runs after the filters, on their feasible set;
/// when it fails, that set is still what the filters let through.
#[test]
fn a_selection_failure_keeps_the_feasible_set() {
    let cs = [
        ready("member1", json!({})),
        ready(
            "member2",
            json!({"taints": [{"key": "x", "effect": "NoSchedule"}]}),
        ),
    ];
    let p = placement(json!({"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 2}]}));
    let r = evaluate(&p, &cs, &deploy());
    assert_eq!(r.decided.feasible, ["member1"]);
    assert_eq!(r.decided.excluded.len(), 1);
    assert_eq!(
        r.decided.error,
        Some(ScheduleError::Scheduler(
            "failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups".into()
        ))
    );
}

/// `scheduler.go` `scheduleResourceBindingWithClusterAffinities`: any error of a term's
/// `Schedule`, a selection error included, moves on to the next term. Here the first term's
/// clusters span the two regions the region constraint wants but hold fewer clusters than the
/// cluster constraint's minGroups (`selectBestClustersByRegion`, `:35-39`).
#[test]
fn a_term_failing_the_cluster_spread_falls_through_to_the_next() {
    let cs = [
        ready("a", json!({"region": "r1"})),
        ready("b", json!({"region": "r2"})),
        ready("c", json!({"region": "r1"})),
    ];
    let p = placement(json!({
        "clusterAffinities": [
            {"affinityName": "pair", "clusterNames": ["a", "b"]},
            {"affinityName": "all", "clusterNames": ["a", "b", "c"]}
        ],
        "spreadConstraints": [
            {"spreadByField": "region", "minGroups": 2, "maxGroups": 2},
            {"spreadByField": "cluster", "minGroups": 3, "maxGroups": 3}
        ]
    }));
    let r = evaluate(&p, &cs, &deploy());
    assert_eq!(r.attempts.len(), 2);
    assert_eq!(
        r.attempts[0].error.as_ref().map(ScheduleError::text),
        Some("failed to select clusters: the number of clusters is less than the cluster spreadConstraint.MinGroups")
    );
    assert_eq!(r.attempts[0].feasible, ["a", "b"]);
    assert!(r.succeeded());
    assert_eq!(r.decided.term.as_deref(), Some("all"));
    assert_eq!(r.decided.feasible, ["a", "b", "c"]);
}

#[test]
fn spread_constraints_a_static_division_ignores_leave_the_clusters_to_the_names() {
    let weighted = |spread: serde_json::Value, dynamic: bool| {
        let mut weights = serde_json::json!({"staticWeightList": [
            {"targetCluster": {"clusterNames": ["m1"]}, "weight": 10000},
            {"targetCluster": {"clusterNames": ["m2"]}, "weight": 1}]});
        if dynamic {
            weights = serde_json::json!({"dynamicWeight": "AvailableReplicas"});
        }
        placement(serde_json::json!({
            "clusterAffinity": {"clusterNames": ["m1", "m2"]},
            "spreadConstraints": spread,
            "replicaScheduling": {"replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted", "weightPreference": weights}}))
    };
    let by_cluster =
        serde_json::json!([{"spreadByField": "cluster", "maxGroups": 1, "minGroups": 1}]);
    assert!(decided_by_names(&weighted(by_cluster.clone(), false), true));
    // A division by available replicas reads them; a region constraint filters the clusters
    // without a region, whatever the division.
    assert!(!decided_by_names(&weighted(by_cluster, true), true));
    let by_region = serde_json::json!([{"spreadByField": "region", "maxGroups": 1},
        {"spreadByField": "cluster", "minGroups": 1}]);
    assert!(!decided_by_names(&weighted(by_region, false), true));
    let duplicated = placement(serde_json::json!({
        "clusterAffinity": {"clusterNames": ["m1", "m2"]},
        "spreadConstraints": [{"spreadByField": "cluster", "maxGroups": 1}]}));
    assert!(!decided_by_names(&duplicated, true));
    // Spread by a label alone fails whatever the clusters: the names decide that too.
    let by_label = placement(serde_json::json!({
        "clusterAffinity": {"clusterNames": ["m1", "m2"]},
        "spreadConstraints": [{"spreadByLabel": "zone", "maxGroups": 1}]}));
    assert!(decided_by_names(&by_label, true));
}
