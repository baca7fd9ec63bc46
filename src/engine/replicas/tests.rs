//! Facts from Karmada's own tests (karmada-io/karmada at f8fdd02, v1.19 line): each case's
//! inputs and expected result, cited by file and test name. Cases are kept as the tests state
//! them; a few are rephrased through the public steps where the Go test calls an internal one.

use serde_json::json;

use super::divide::{self, Dynamic, Target, TieBreak};
use super::estimator::{estimate, Basis};
use super::select::{self, Candidate, GroupInfo, Region, StrategyView};
use super::*;
use crate::model::cluster::Cluster;
use crate::model::meta::ObjectMeta;
use crate::model::policy::{Placement, SpreadConstraint, StaticClusterWeight};

fn cluster(name: &str, body: serde_json::Value) -> Cluster {
    let meta = ObjectMeta {
        name: name.into(),
        ..ObjectMeta::default()
    };
    Cluster::from_json(&meta, &body)
}

fn named(name: &str) -> Cluster {
    Cluster::named(name)
}

fn t(name: &str, n: i32) -> Target {
    Target::new(name, n)
}

fn targets(list: &[(&str, i32)]) -> Vec<Target> {
    list.iter().map(|(n, r)| t(n, *r)).collect()
}

fn weight_list(list: &[(&str, i64)]) -> Vec<StaticClusterWeight> {
    list.iter()
        .map(|(n, w)| {
            serde_json::from_value(json!({"targetCluster": {"clusterNames": [n]}, "weight": w}))
                .unwrap()
        })
        .collect()
}

fn placement(v: serde_json::Value) -> Placement {
    serde_json::from_value(v).unwrap()
}

// ---- assignment_test.go Test_assignByStaticWeightStrategy ----

#[test]
fn static_weight_strategy() {
    let m = ["member1", "member2", "member3"];
    #[allow(clippy::type_complexity)]
    let cases: &[(&str, usize, Option<&[(&str, i64)]>, i32, &[(&str, i32)])] = &[
        (
            "replica 12, weight 3:2:1",
            3,
            Some(&[("member1", 3), ("member2", 2), ("member3", 1)]),
            12,
            &[("member1", 6), ("member2", 4), ("member3", 2)],
        ),
        (
            "replica 12, default weight",
            3,
            None,
            12,
            &[("member1", 4), ("member2", 4), ("member3", 4)],
        ),
        (
            "replica 13, weight 3:2:1",
            3,
            Some(&[("member1", 3), ("member2", 2), ("member3", 1)]),
            13,
            &[("member1", 7), ("member2", 4), ("member3", 2)],
        ),
        (
            "replica 14, weight 3:2:1",
            3,
            Some(&[("member1", 3), ("member2", 2), ("member3", 1)]),
            14,
            &[("member1", 7), ("member2", 5), ("member3", 2)],
        ),
        (
            "insufficient replica assignment should get 0 replica",
            2,
            Some(&[("member1", 1), ("member2", 1)]),
            0,
            &[("member1", 0), ("member2", 0)],
        ),
        (
            "selected cluster without weight should be ignored",
            2,
            Some(&[("member1", 1)]),
            2,
            &[("member1", 2)],
        ),
        (
            "cluster with multiple weights",
            2,
            Some(&[("member1", 1), ("member2", 1), ("member1", 2)]),
            3,
            &[("member1", 2), ("member2", 1)],
        ),
    ];
    for (name, n, list, replicas, want) in cases {
        let clusters: Vec<Cluster> = m[..*n].iter().map(|c| named(c)).collect();
        let refs: Vec<&Cluster> = clusters.iter().collect();
        let list = list.map(weight_list);
        let weights = divide::static_weights(&refs, list.as_deref());
        let got =
            divide::by_static_weights(*replicas, &weights, &[], TieBreak::Ascending.into()).targets;
        assert_eq!(got, targets(want), "{name}");
    }
}

// ---- generic_scheduler_test.go Test_DistributionOfReplicas (AssignReplicas, static) ----

#[test]
fn distribution_of_replicas() {
    #[allow(clippy::type_complexity)]
    let cases: &[(&str, &[i64], i32, &[i32])] = &[
        ("replica 3, static weighted 1:1", &[1, 1], 3, &[2, 1]),
        ("replica 3, static weighted 1:1:1, change replicas from 3 to 5, before change", &[1, 1, 1], 3, &[1, 1, 1]),
        ("replica 3, static weighted 1:1:1, change replicas from 3 to 5, after change", &[1, 1, 1], 5, &[2, 2, 1]),
        ("replica 7, static weighted 2:1:1:1, change replicas from 7 to 8, before change", &[2, 1, 1, 1], 7, &[3, 2, 1, 1]),
        ("replica 7, static weighted 2:1:1:1, change replicas from 7 to 8, after change", &[2, 1, 1, 1], 8, &[3, 2, 2, 1]),
        ("replica 9, static weighted 2:1:1:1, change replicas from 9 to 8, before change", &[2, 1, 1, 1], 9, &[3, 2, 2, 2]),
        ("replica 9, static weighted 2:1:1:1, change replicas from 9 to 8, after change", &[2, 1, 1, 1], 8, &[3, 2, 2, 1]),
        ("replica 6, static weighted 1:1:1:1, change static weighted from 1:1:1:1 to 2:1:1:1, before change", &[1, 1, 1, 1], 6, &[2, 2, 1, 1]),
        ("replica 6, static weighted 1:1:1:1, change static weighted from 1:1:1:1 to 2:1:1:1, after change", &[2, 1, 1, 1], 6, &[3, 1, 1, 1]),
        ("replica 5, static weighted 1:1:1, add a new cluster and change static weight to 1:1:1:1, before change", &[1, 1, 1], 5, &[2, 2, 1]),
        ("replica 5, static weighted 1:1:1, add a new cluster and change static weight to 1:1:1:1, after change", &[1, 1, 1, 1], 5, &[2, 1, 1, 1]),
        ("replica 6, static weighted 1:1:1:1, remove a cluster and change static weight to 1:1:1, before change", &[1, 1, 1, 1], 6, &[2, 2, 1, 1]),
        ("replica 6, static weighted 1:1:1:1, remove a cluster and change static weight to 1:1:1, after change", &[1, 1, 1], 6, &[2, 2, 2]),
    ];
    for (name, weights, replicas, want) in cases {
        let names: Vec<String> = (1..=weights.len()).map(|i| format!("member{i}")).collect();
        let clusters: Vec<Cluster> = names.iter().map(|n| named(n)).collect();
        let refs: Vec<&Cluster> = clusters.iter().collect();
        let list: Vec<(&str, i64)> = names
            .iter()
            .map(String::as_str)
            .zip(weights.iter().copied())
            .collect();
        let pl = placement(
            json!({"replicaScheduling": {"replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"staticWeightList": weight_list(&list).iter().map(|w| serde_json::to_value(w).unwrap()).collect::<Vec<_>>()}}}),
        );
        let w = Workload {
            replicas: *replicas,
            interpreted: true,
            ..Workload::default()
        };
        let out = schedule(&refs, &pl, None, &view(&w, CapacitySource::Declared));
        let Outcome::Scheduled(s) = out else {
            panic!("{name}: {out:?}")
        };
        let want: Vec<Target> = names
            .iter()
            .zip(want.iter())
            .map(|(n, r)| t(n, *r))
            .collect();
        assert_eq!(s.targets(), want, "{name}");
    }
}

fn view(w: &Workload, capacity: CapacitySource) -> ReplicaView<'_> {
    ReplicaView {
        workload: w,
        capacity,
        traits: SchedulerTraits::default(),
        previous: &[],
    }
}

// ---- division_algorithm_test.go Test_dynamicDivideReplicas ----

#[test]
fn dynamic_divide_replicas() {
    #[allow(clippy::type_complexity)]
    let cases: &[(&str, Dynamic, &[(&str, i32)], i32, &[(&str, i32)])] = &[
        (
            "replica 12, dynamic weight 18:12:6",
            Dynamic::Weighted,
            &[("member1", 18), ("member2", 12), ("member3", 6)],
            12,
            &[("member1", 6), ("member2", 4), ("member3", 2)],
        ),
        (
            "replica 12, dynamic weight 20:12:6",
            Dynamic::Weighted,
            &[("member1", 20), ("member2", 12), ("member3", 6)],
            12,
            &[("member1", 6), ("member2", 4), ("member3", 2)],
        ),
        (
            "replica 12, dynamic weight 6:12:6",
            Dynamic::Weighted,
            &[("member1", 6), ("member2", 12), ("member3", 6)],
            12,
            &[("member1", 3), ("member2", 6), ("member3", 3)],
        ),
        (
            "replica 12, aggregated 12:6:6",
            Dynamic::Aggregated,
            &[("member2", 12), ("member1", 6), ("member3", 6)],
            12,
            &[("member2", 12)],
        ),
        (
            "replica 12, aggregated 6:6:6",
            Dynamic::Aggregated,
            &[("member1", 6), ("member2", 6), ("member3", 6)],
            12,
            &[("member1", 6), ("member2", 6)],
        ),
    ];
    for (name, kind, available, replicas, want) in cases {
        // No previous assignment: dynamicScaleUp over these allocatable replicas.
        let (got, _) = divide::dynamic(
            *kind,
            *replicas,
            &targets(available),
            &[],
            TieBreak::Ascending.into(),
        )
        .unwrap();
        assert_eq!(divide::drop_zero(got), targets(want), "{name}");
    }
}

// ---- assignment_test.go Test_dynamicScaleUp and Test_dynamicScale ----

#[test]
fn dynamic_scale_up_and_scale() {
    #[allow(clippy::type_complexity)]
    let cases: &[(
        &str,
        Dynamic,
        &[(&str, i32)],
        &[(&str, i32)],
        i32,
        Option<&[(&str, i32)]>,
    )] = &[
        // Test_dynamicScaleUp
        (
            "replica 12, dynamic weight 6:8:10",
            Dynamic::Weighted,
            &[("member1", 6), ("member2", 8), ("member3", 10)],
            &[],
            12,
            Some(&[("member1", 3), ("member2", 4), ("member3", 5)]),
        ),
        (
            "replica 12, dynamic weight 8:8:10",
            Dynamic::Weighted,
            &[("member1", 8), ("member2", 8), ("member3", 10)],
            &[],
            12,
            Some(&[("member1", 4), ("member2", 4), ("member3", 4)]),
        ),
        (
            "replica 12, dynamic weight 3:3:3",
            Dynamic::Weighted,
            &[("member1", 3), ("member2", 3), ("member3", 3)],
            &[],
            12,
            None,
        ),
        (
            "replica 12, aggregated 6:8:10",
            Dynamic::Aggregated,
            &[("member1", 6), ("member2", 8), ("member3", 10)],
            &[],
            12,
            Some(&[("member2", 5), ("member3", 7)]),
        ),
        (
            "replica 12, aggregated 12:8:10",
            Dynamic::Aggregated,
            &[("member1", 12), ("member2", 8), ("member3", 10)],
            &[],
            12,
            Some(&[("member1", 12)]),
        ),
        (
            "replica 12, aggregated 3:3:3",
            Dynamic::Aggregated,
            &[("member1", 3), ("member2", 3), ("member3", 3)],
            &[],
            12,
            None,
        ),
        (
            "replica 12, dynamic weight 3:3, with cluster3 disappeared and cluster2 appeared",
            Dynamic::Weighted,
            &[("member1", 3), ("member2", 3)],
            &[("member1", 6), ("member3", 6)],
            12,
            Some(&[("member1", 9), ("member2", 3)]),
        ),
        // Test_dynamicScale
        (
            "replica 12 -> 6, dynamic weighted 1:1:1",
            Dynamic::Weighted,
            &[("member1", 1), ("member2", 1), ("member3", 1)],
            &[("member1", 2), ("member2", 4), ("member3", 6)],
            6,
            Some(&[("member1", 1), ("member2", 2), ("member3", 3)]),
        ),
        (
            "replica 12 -> 24, dynamic weighted 10:10:10",
            Dynamic::Weighted,
            &[("member1", 10), ("member2", 10), ("member3", 10)],
            &[("member1", 2), ("member2", 4), ("member3", 6)],
            24,
            Some(&[("member1", 6), ("member2", 8), ("member3", 10)]),
        ),
        (
            "replica 12 -> 24, dynamic weighted 1:1:1",
            Dynamic::Weighted,
            &[("member1", 1), ("member2", 1), ("member3", 1)],
            &[("member1", 2), ("member2", 4), ("member3", 6)],
            24,
            None,
        ),
        (
            "replica 12 -> 6, aggregated 1:1:1",
            Dynamic::Aggregated,
            &[("member1", 1), ("member2", 1), ("member3", 1)],
            &[("member1", 4), ("member2", 8)],
            6,
            Some(&[("member2", 6)]),
        ),
        (
            "replica 12 -> 8, aggregated 100:100",
            Dynamic::Aggregated,
            &[("member1", 100), ("member2", 100)],
            &[("member1", 4), ("member2", 8)],
            8,
            Some(&[("member2", 8)]),
        ),
        (
            "replica 12 -> 24, aggregated 4:6:8",
            Dynamic::Aggregated,
            &[("member1", 4), ("member2", 6), ("member3", 8)],
            &[("member1", 4), ("member2", 8)],
            24,
            Some(&[("member1", 7), ("member2", 12), ("member3", 5)]),
        ),
        (
            "replica 12 -> 24, aggregated 6:6:20",
            Dynamic::Aggregated,
            &[("member1", 6), ("member2", 6), ("member3", 20)],
            &[("member1", 4), ("member2", 8)],
            24,
            Some(&[("member1", 10), ("member2", 14)]),
        ),
        (
            "replica 12 -> 24, aggregated 1:1:1",
            Dynamic::Aggregated,
            &[("member1", 1), ("member2", 1), ("member3", 1)],
            &[("member1", 4), ("member2", 8)],
            24,
            None,
        ),
        (
            "replica 12 -> 24, aggregated 4:8:12, with cluster2 disappeared and cluster4 appeared",
            Dynamic::Aggregated,
            &[("member1", 4), ("member3", 8), ("member4", 12)],
            &[("member1", 4), ("member2", 8)],
            24,
            Some(&[("member1", 7), ("member3", 7), ("member4", 10)]),
        ),
    ];
    for (name, kind, available, previous, replicas, want) in cases {
        let got = divide::dynamic(
            *kind,
            *replicas,
            &targets(available),
            &targets(previous),
            TieBreak::Ascending.into(),
        );
        match (got, want) {
            (Ok((got, _)), Some(want)) => {
                let mut got = divide::drop_zero(got);
                got.sort_by(|a, b| a.cluster.cmp(&b.cluster));
                assert_eq!(got, targets(want), "{name}");
            }
            (Err(_), None) => {}
            (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
        }
    }
}

// ---- assignment_test.go Test_assignByDuplicatedStrategy, common_test.go TestAssignReplicas ----

#[test]
fn duplicated_and_assign_replicas() {
    let c = [named("member1"), named("member2")];
    let refs: Vec<&Cluster> = c.iter().collect();
    let dup = Workload {
        replicas: 2,
        interpreted: true,
        ..Workload::default()
    };
    let Outcome::Scheduled(s) = schedule(
        &refs,
        &Placement::default(),
        None,
        &view(&dup, CapacitySource::Declared),
    ) else {
        panic!()
    };
    assert_eq!(
        s.targets(),
        targets(&[("member1", 2), ("member2", 2)]),
        "test with multiple cluster"
    );

    // TestAssignReplicas "Non-workload scenario (zero replicas)": every cluster, no replicas.
    let none = Workload {
        interpreted: true,
        ..Workload::default()
    };
    let Outcome::Scheduled(s) = schedule(
        &refs,
        &Placement::default(),
        None,
        &view(&none, CapacitySource::Declared),
    ) else {
        panic!()
    };
    assert_eq!(s.targets(), targets(&[("member1", 0), ("member2", 0)]));
    assert!(s.shares.iter().all(|s| s.why == Why::NoReplicas));

    // "Assign replicas to single cluster": Divided + Weighted without weightPreference.
    let three = Workload {
        replicas: 3,
        interpreted: true,
        ..Workload::default()
    };
    let weighted = placement(
        json!({"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}}),
    );
    let Outcome::Scheduled(s) = schedule(
        &refs[..1],
        &weighted,
        None,
        &view(&three, CapacitySource::Declared),
    ) else {
        panic!()
    };
    assert_eq!(s.targets(), targets(&[("member1", 3)]));

    // "No clusters available".
    let out = schedule(
        &[],
        &weighted,
        None,
        &view(&three, CapacitySource::Declared),
    );
    assert!(
        matches!(&out, Outcome::Failed(f) if f.message == "failed to assign replicas: no clusters available to schedule"),
        "{out:?}"
    );

    // "Unsupported replica scheduling strategy".
    let odd = placement(
        json!({"replicaScheduling": {"replicaSchedulingType": "UnsupportedType", "replicaDivisionPreference": "UnsupportedPreference"}}),
    );
    let out = schedule(
        &refs[..1],
        &odd,
        None,
        &view(&three, CapacitySource::Declared),
    );
    assert!(
        matches!(&out, Outcome::Failed(f) if f.message.contains("unsupported replica scheduling strategy")),
        "{out:?}"
    );
}

/// common_test.go TestAssignReplicas, the three overflow cases: tiers by overflow order, each
/// given min(remaining, its available replicas).
#[test]
fn overflow_tiers() {
    let (c1, c2) = (named("member1"), named("member2"));
    let dynamic = placement(json!({
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted", "weightPreference": {"dynamicWeight": "AvailableReplicas"}},
        "clusterAffinities": [{"affinityName": "affinity1", "clusterNames": ["member1"],
            "overflowAffinities": [{"affinityName": "overflow", "clusterNames": ["member2"]}]}]}));
    let term = dynamic.cluster_affinities.as_ref().unwrap()[0].clone();
    let cand = |c: &Cluster, order, available: i64, allocatable| Candidate {
        cluster: leaked(c),
        score: 0,
        overflow_order: order,
        available,
        allocatable,
    };
    #[allow(clippy::type_complexity)]
    let cases: &[(&str, i64, i32, i64, i32, i32, &[(&str, i32)], Result<&[(&str, i32)], &str>)] = &[
        ("Overflow: primary group has enough capacity, no overflow needed", 10, 10, 10, 10, 5, &[], Ok(&[("member1", 5)])),
        ("Overflow: primary group capacity exhausted, remaining replicas overflow to next tier", 2, 2, 10, 10, 5, &[], Ok(&[("member1", 2), ("member2", 3)])),
        ("Overflow: all tiers exhausted, scheduling fails", 2, 2, 2, 2, 10, &[], Err("failed to assign replicas: Clusters available replicas are not enough to schedule.")),
        ("Overflow: AvailableReplicas greater than AllocatableReplicas due to previously assigned replicas", 5, 2, 10, 10, 8, &[("member1", 3)], Ok(&[("member1", 5), ("member2", 3)])),
    ];
    for (name, a1, al1, a2, al2, replicas, previous, want) in cases {
        let selected = vec![cand(&c1, 0, *a1, *al1), cand(&c2, 1, *a2, *al2)];
        let w = Workload {
            replicas: *replicas,
            interpreted: true,
            ..Workload::default()
        };
        let got = assign(
            &selected,
            &dynamic,
            &Strategy::of(&dynamic),
            &w,
            &targets(previous),
            Some(&term),
            TieBreak::Ascending.into(),
        );
        match (got, want) {
            (Ok(s), Ok(want)) => assert_eq!(s.targets(), targets(want), "{name}"),
            (Err(f), Err(msg)) => assert_eq!(f.message, *msg, "{name}"),
            (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
        }
    }
}

/// The candidates borrow their clusters; the tests' clusters live for the whole test.
fn leaked(c: &Cluster) -> &'static Cluster {
    Box::leak(Box::new(c.clone()))
}

// ---- spreadconstraint/select_clusters_test.go TestSelectBestClusters ----

#[test]
fn select_best_clusters() {
    // generateClusterInfo: (name, score, available, provider, region, zone).
    let info = [
        ("member4", 60, 50, "R2"),
        ("member2", 40, 60, "R1"),
        ("member3", 30, 80, "R1"),
        ("member1", 20, 40, "R1"),
    ];
    let clusters: Vec<Cluster> = info
        .iter()
        .map(|(n, _, _, r)| cluster(n, json!({"spec": {"region": r}})))
        .collect();
    let candidates = || -> Vec<Candidate<'_>> {
        info.iter()
            .zip(&clusters)
            .map(|((_, score, available, _), c)| Candidate {
                cluster: c,
                score: *score,
                overflow_order: 0,
                available: *available,
                allocatable: *available as i32,
            })
            .collect()
    };
    let by_cluster =
        |max, min| json!([{"spreadByField": "cluster", "maxGroups": max, "minGroups": min}]);
    #[allow(clippy::type_complexity)]
    let cases: Vec<(&str, serde_json::Value, i32, Result<Vec<&str>, &str>)> = vec![
        ("select clusters by cluster score", json!({"spreadConstraints": by_cluster(2, 1)}), 100, Ok(vec!["member4", "member2"])),
        ("select clusters by cluster score and ignore available resources when scheduling strategy is duplicated",
            json!({"spreadConstraints": by_cluster(2, 1), "replicaScheduling": {"replicaSchedulingType": "Duplicated"}}), 120, Ok(vec!["member4", "member2"])),
        ("select clusters by cluster score and ignore available resources when scheduling strategy is static weight",
            json!({"spreadConstraints": by_cluster(2, 1), "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted",
                "weightPreference": {"staticWeightList": [{"targetCluster": {"clusterNames": ["member1"]}, "weight": 2}]}}}), 120,
            Ok(vec!["member4", "member2", "member3", "member1"])),
        ("select clusters by cluster score and satisfy available resources",
            json!({"spreadConstraints": by_cluster(2, 1), "replicaScheduling": {"replicaSchedulingType": "Divided"}}), 120, Ok(vec!["member4", "member3"])),
        ("select clusters by cluster score and insufficient resources",
            json!({"spreadConstraints": by_cluster(2, 1), "replicaScheduling": {"replicaSchedulingType": "Divided"}}), 200, Err("no enough resource when selecting 2 clusters")),
        ("select clusters by cluster score and exceeded the number of available clusters.",
            json!({"spreadConstraints": by_cluster(7, 7)}), 30, Err("the number of feasible clusters is less than spreadConstraint.MinGroups")),
    ];
    for (name, pl, need, want) in cases {
        let pl = placement(pl);
        // The test's placements are not defaulted; Divided alone has no preference there.
        let mut strategy = StrategyView::of(&pl);
        if pl
            .replica_scheduling
            .as_ref()
            .is_some_and(|r| r.replica_division_preference.is_none())
        {
            strategy.ignores_spread = false;
        }
        let got = select::select_best(&pl, strategy, candidates(), need);
        match (got, want) {
            (Ok(got), Ok(want)) => assert_eq!(
                got.iter().map(|c| c.name()).collect::<Vec<_>>(),
                want,
                "{name}"
            ),
            (Err(e), Err(msg)) => assert_eq!(e, msg, "{name}"),
            (got, want) => panic!("{name}: got {:?}, want {want:?}", got.map(|v| v.len())),
        }
    }
}

// ---- spreadconstraint/select_groups_test.go TestSelectGroups ----

#[test]
fn select_groups() {
    #[allow(clippy::type_complexity)]
    let cases: &[(&str, &[(&str, usize, i64)], usize, usize, usize, &[&str])] = &[
        ("empty groups", &[], 2, 3, 1, &[]),
        ("no enough groups", &[("R1", 1, 80)], 2, 3, 1, &[]),
        (
            "no enough value",
            &[("R1", 1, 80), ("R2", 2, 30)],
            2,
            3,
            4,
            &[],
        ),
        ("select one group", &[("R1", 1, 80)], 1, 3, 1, &["R1"]),
        (
            "prioritize one path",
            &[
                ("R1", 1, 80),
                ("R3", 1, 80),
                ("R2", 1, 60),
                ("R5", 2, 60),
                ("R4", 5, 50),
                ("R6", 3, 50),
            ],
            1,
            3,
            10,
            &["R5", "R4", "R6"],
        ),
        (
            "select groups with less total number",
            &[
                ("R1", 1, 80),
                ("R2", 4, 40),
                ("R3", 1, 30),
                ("R4", 3, 30),
                ("R5", 3, 20),
                ("R6", 5, 10),
            ],
            2,
            6,
            5,
            &["R1", "R2"],
        ),
        (
            "select groups with the highest score",
            &[
                ("R1", 1, 60),
                ("R2", 1, 50),
                ("R3", 1, 40),
                ("R4", 3, 30),
                ("R5", 3, 20),
                ("R6", 3, 10),
            ],
            1,
            3,
            6,
            &["R1", "R4", "R5"],
        ),
        (
            "select groups that are chosen earlier",
            &[("R1", 1, 60), ("R2", 2, 50), ("R3", 3, 40), ("R4", 4, 30)],
            1,
            2,
            5,
            &["R1", "R4"],
        ),
        (
            "select groups with greater value",
            &[("R4", 1, 60), ("R3", 3, 50), ("R1", 3, 40), ("R2", 4, 30)],
            1,
            2,
            5,
            &["R3", "R1"],
        ),
    ];
    for (name, groups, min, max, target, want) in cases {
        let groups: Vec<GroupInfo> = groups
            .iter()
            .map(|(n, v, w)| GroupInfo {
                name: n.to_string(),
                value: *v,
                weight: *w,
            })
            .collect();
        let got = select::select_groups(groups, *min, *max, *target);
        assert_eq!(
            got.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(),
            *want,
            "{name}"
        );
    }
}

// ---- spreadconstraint/select_clusters_by_region_test.go Test_selectBestClustersByRegion ----

#[test]
fn select_best_clusters_by_region() {
    let clusters: Vec<Cluster> = ["member1", "member2", "member3", "member4", "member5"]
        .iter()
        .map(|n| named(n))
        .collect();
    let regions = || {
        let c = |i: usize, score| Candidate {
            cluster: &clusters[i],
            score,
            overflow_order: 0,
            available: 40,
            allocatable: 40,
        };
        vec![
            Region {
                name: "R1".into(),
                clusters: vec![c(0, 100), c(1, 80)],
                score: 100,
            },
            Region {
                name: "R2".into(),
                clusters: vec![c(2, 80), c(3, 80), c(4, 60)],
                score: 80,
            },
        ]
    };
    let sc = |field: &str, min, max| SpreadConstraint {
        spread_by_field: field.into(),
        min_groups: Some(min),
        max_groups: Some(max),
        ..SpreadConstraint::default()
    };
    let names = |v: Vec<Candidate<'_>>| v.iter().map(|c| c.name().to_string()).collect::<Vec<_>>();
    let got = select::pick_regions(&sc("region", 1, 1), &sc("cluster", 2, 2), regions()).unwrap();
    assert_eq!(
        names(got),
        ["member1", "member2"],
        "select cluster from the region with the higher score"
    );
    let got = select::pick_regions(&sc("region", 1, 1), &sc("cluster", 3, 3), regions()).unwrap();
    assert_eq!(
        names(got),
        ["member3", "member4", "member5"],
        "select cluster from the region with enough clusters"
    );
}

// ---- pkg/util/helper/webstermethod_test.go TestAllocateWebsterSeats ----

#[test]
fn webster_seats() {
    let votes: Vec<(String, i64)> = [
        ("PartyA", 100000),
        ("PartyB", 80000),
        ("PartyC", 30000),
        ("PartyD", 20000),
    ]
    .iter()
    .map(|(n, v)| (n.to_string(), *v))
    .collect();
    let rounds: [[i32; 4]; 8] = [
        [1, 0, 0, 0],
        [1, 1, 0, 0],
        [2, 1, 0, 0],
        [2, 1, 1, 0],
        [2, 2, 1, 0],
        [2, 2, 1, 1],
        [3, 2, 1, 1],
        [3, 3, 1, 1],
    ];
    for (i, want) in rounds.iter().enumerate() {
        let got = divide::webster(i as i32 + 1, &votes, &[], TieBreak::Ascending);
        let got: Vec<i32> = got.iter().map(|t| t.replicas).collect();
        assert_eq!(got, want, "classic example, round {}", i + 1);
    }
    assert!(
        divide::webster(1, &[], &[], TieBreak::Ascending).is_empty(),
        "empty party votes"
    );
    let two = vec![("PartyA".to_string(), 3), ("PartyB".to_string(), 1)];
    let got = divide::webster(
        1,
        &two,
        &[t("PartyA", 1), t("PartyB", 0)],
        TieBreak::Ascending,
    );
    assert_eq!(
        got,
        targets(&[("PartyA", 1), ("PartyB", 1)]),
        "tie-breaker is nil, expect break tie by seats"
    );
    let even = vec![("PartyA".to_string(), 1), ("PartyB".to_string(), 1)];
    assert_eq!(
        divide::webster(1, &even, &[], TieBreak::Ascending),
        targets(&[("PartyA", 1), ("PartyB", 0)]),
        "break tie by name"
    );
    assert_eq!(
        divide::webster(1, &even, &[], TieBreak::Descending),
        targets(&[("PartyA", 0), ("PartyB", 1)]),
        "sortNameDescending"
    );
}

// ---- pkg/estimator/client/general_test.go ----

fn summary(s: serde_json::Value) -> Cluster {
    cluster("c", json!({"status": {"resourceSummary": s}}))
}

fn req(list: &[(&str, &str)]) -> Requirements {
    Requirements {
        resource_request: list
            .iter()
            .map(|(k, v)| (k.to_string(), quantity::Quantity::parse(v).unwrap()))
            .collect(),
        node_claim: false,
    }
}

#[test]
fn general_estimator() {
    // TestMaxAvailableReplicasGeneral (cases without assumed workloads).
    let e = |c: &Cluster, r: Option<&Requirements>| estimate(c, r, true).unwrap();
    assert_eq!(e(&named("c"), None).replicas, 0, "nil resource summary");
    assert_eq!(e(&named("c"), None).basis, Basis::NoSummary);
    assert_eq!(
        e(
            &summary(json!({"allocatable": {"pods": "10"}, "allocated": {"pods": "10"}})),
            None
        )
        .replicas,
        0,
        "no allowed pods"
    );
    assert_eq!(
        e(&summary(json!({"allocatable": {"pods": "10"}})), None).replicas,
        10,
        "nil replica requirements"
    );
    let basic = summary(
        json!({"allocatable": {"pods": "100", "cpu": "4", "memory": "8Gi"}, "allocated": {"pods": "20", "cpu": "1", "memory": "2Gi"}}),
    );
    assert_eq!(
        e(&basic, Some(&req(&[("cpu", "500m"), ("memory", "1Gi")]))).replicas,
        6,
        "basic resource estimation"
    );
    // TestGetAllowedPodNumber (through requirements-free estimates).
    assert_eq!(e(&summary(json!({"allocatable": {"pods": "100"}, "allocated": {"pods": "40"}, "allocating": {"pods": "10"}})), None).replicas, 50, "normal case");
    assert_eq!(
        e(&summary(json!({"allocated": {"pods": "10"}})), None).replicas,
        0,
        "no allocatable pods"
    );
    assert_eq!(e(&summary(json!({"allocatable": {"pods": "100"}, "allocated": {"pods": "90"}, "allocating": {"pods": "20"}})), None).replicas, 0, "over allocation");
    // TestGetMaximumReplicasBasedOnClusterSummary (with pods to spare).
    let short = summary(
        json!({"allocatable": {"pods": "100", "cpu": "4", "memory": "2Gi"}, "allocated": {"cpu": "1", "memory": "1.5Gi"}}),
    );
    assert_eq!(
        e(&short, Some(&req(&[("cpu", "500m"), ("memory", "1Gi")]))).replicas,
        0,
        "insufficient memory"
    );
    // A requested resource the cluster does not list gives 0.
    assert_eq!(
        e(&basic, Some(&req(&[("nvidia.com/gpu", "1")]))).replicas,
        0
    );
}

#[test]
fn estimator_resource_models() {
    // TestMaxAvailableReplicasGeneralWithResourceModels (baseline without assumed workloads).
    let c = cluster(
        "c",
        json!({
        "spec": {"resourceModels": [
            {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "1"}]},
            {"grade": 1, "ranges": [{"name": "cpu", "min": "1", "max": "2"}]}]},
        "status": {"resourceSummary": {"allocatable": {"pods": "100", "cpu": "3"},
            "allocatableModelings": [{"grade": 0, "count": 0}, {"grade": 1, "count": 3}]}}}),
    );
    let r = req(&[("cpu", "500m")]);
    assert_eq!(estimate(&c, Some(&r), true).unwrap().replicas, 6);
    assert_eq!(estimate(&c, Some(&r), true).unwrap().basis, Basis::Models);
    // Gate off: the summary (3 cpu / 500m).
    assert_eq!(estimate(&c, Some(&r), false).unwrap().replicas, 6);
    assert_eq!(estimate(&c, Some(&r), false).unwrap().basis, Basis::Summary);

    // TestGetMaximumReplicasBasedOnResourceModels: three grades of one node each.
    let graded = |ranges: serde_json::Value| {
        cluster(
            "c",
            json!({"spec": {"resourceModels": ranges},
            "status": {"resourceSummary": {"allocatable": {"pods": "1000"},
                "allocatableModelings": [{"grade": 0, "count": 1}, {"grade": 1, "count": 1}, {"grade": 2, "count": 1}]}}}),
        )
    };
    let cpu_only = graded(json!([
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "1"}]},
        {"grade": 1, "ranges": [{"name": "cpu", "min": "1", "max": "2"}]},
        {"grade": 2, "ranges": [{"name": "cpu", "min": "2", "max": "4"}]}]));
    let models =
        |c: &Cluster, r: &[(&str, &str)]| estimate(c, Some(&req(r)), true).unwrap().replicas;
    assert_eq!(
        models(&cpu_only, &[("cpu", "1.5")]),
        1,
        "Partially compliant grades"
    );
    assert_eq!(models(&cpu_only, &[("cpu", "3")]), 0, "No compliant grades");
    let cpu_mem = graded(json!([
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "1"}, {"name": "memory", "min": "0", "max": "1Gi"}]},
        {"grade": 1, "ranges": [{"name": "cpu", "min": "1", "max": "2"}, {"name": "memory", "min": "1Gi", "max": "2Gi"}]},
        {"grade": 2, "ranges": [{"name": "cpu", "min": "2", "max": "4"}, {"name": "memory", "min": "2Gi", "max": "4Gi"}]}]));
    assert_eq!(
        models(&cpu_mem, &[("cpu", "1"), ("memory", "1.5Gi")]),
        1,
        "Multi resource request"
    );
    assert_eq!(
        models(&cpu_mem, &[("cpu", "1"), ("memory", "2.5Gi")]),
        0,
        "request exceeds highest grade"
    );
}

// ---- whole schedules (replica-assignment.md; scheduler.go scheduleResourceBindingWithClusterAffinities) ----

fn pods(name: &str, n: i64) -> Cluster {
    cluster(
        name,
        json!({"status": {"resourceSummary": {"allocatable": {"pods": n.to_string()}}}}),
    )
}

#[test]
fn dynamic_weights_by_estimate_and_missing_summaries() {
    let c = [pods("member1", 20), pods("member2", 10), named("member3")];
    let refs: Vec<&Cluster> = c.iter().collect();
    let dynamic = placement(
        json!({"replicaScheduling": {"replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted", "weightPreference": {"dynamicWeight": "AvailableReplicas"}}}),
    );
    let w = Workload {
        replicas: 6,
        interpreted: true,
        uid: Some("u".into()),
        ..Workload::default()
    };
    // Declared: member3 has no summary, and capacity decides.
    assert_eq!(
        schedule(&refs, &dynamic, None, &view(&w, CapacitySource::Declared)),
        Outcome::Unknown {
            missing: vec!["member3".into()]
        }
    );
    // Live: the scheduler sees 0 there.
    let Outcome::Scheduled(s) = schedule(&refs, &dynamic, None, &view(&w, CapacitySource::Live))
    else {
        panic!()
    };
    assert_eq!(s.targets(), targets(&[("member1", 4), ("member2", 2)]));
    assert_eq!(s.shares[0].why, Why::Dynamic { available: 20 });
    assert!(s.notes.contains(&AssignmentNote::EstimatorService));
    // Not enough: Unschedulable with the scheduler's text.
    let big = Workload {
        replicas: 31,
        ..w.clone()
    };
    let Outcome::Failed(f) = schedule(&refs, &dynamic, None, &view(&big, CapacitySource::Live))
    else {
        panic!()
    };
    assert!(f.unschedulable);
    assert_eq!(f.message, "failed to assign replicas: failed to scale up: Clusters available replicas 30 are not enough to schedule.");
}

#[test]
fn uid_parity_decides_ties() {
    let c = [named("member1"), named("member2")];
    let refs: Vec<&Cluster> = c.iter().collect();
    let weighted = placement(
        json!({"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}}),
    );
    let w = Workload {
        replicas: 3,
        interpreted: true,
        ..Workload::default()
    };
    let Outcome::Scheduled(s) =
        schedule(&refs, &weighted, None, &view(&w, CapacitySource::Declared))
    else {
        panic!()
    };
    assert_eq!(s.targets(), targets(&[("member1", 2), ("member2", 1)]));
    assert!(s.notes.contains(&AssignmentNote::UidTieBreak {
        other: targets(&[("member1", 1), ("member2", 2)])
    }));
    // A uid whose FNV-32a hash is odd orders names descending.
    let odd = (0..100)
        .map(|i| format!("uid-{i}"))
        .find(|u| TieBreak::of_uid(Some(u)) == TieBreak::Descending)
        .unwrap();
    let w = Workload {
        uid: Some(odd),
        ..w
    };
    let Outcome::Scheduled(s) =
        schedule(&refs, &weighted, None, &view(&w, CapacitySource::Declared))
    else {
        panic!()
    };
    assert_eq!(s.targets(), targets(&[("member1", 1), ("member2", 2)]));
    assert!(s.notes.is_empty(), "{:?}", s.notes);
}

#[test]
fn absent_max_groups_selects_no_cluster() {
    // karmada#4617: maxGroups is not defaulted, and 0 keeps no cluster.
    let c = [named("member1"), named("member2")];
    let refs: Vec<&Cluster> = c.iter().collect();
    let pl =
        placement(json!({"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1}]}));
    let w = Workload {
        replicas: 2,
        interpreted: true,
        ..Workload::default()
    };
    let out = schedule(&refs, &pl, None, &view(&w, CapacitySource::Declared));
    assert!(
        matches!(&out, Outcome::Failed(f) if f.message == "failed to assign replicas: no clusters available to schedule"),
        "{out:?}"
    );
}

// ---- before v1.16: Dispenser.TakeByWeight (pkg/util/helper/binding.go:112-144 @v1.15.0) ----

/// Each cluster its floor, the rest to the heaviest first, then to the one with more replicas
/// before (Benedict-CS/Meal-Provider-Frontend: 11 replicas at 2:3:3, 4 and 7 before on the
/// first two, is 2/5/4 at v1.15 and 3/4/4 by Webster from v1.16).
#[test]
fn take_by_weight_floors_then_the_heaviest() {
    let weights: Vec<(String, i64)> = [("gke-1", 2), ("gke-2", 3), ("gke-3", 3)]
        .iter()
        .map(|(n, w)| (n.to_string(), *w))
        .collect();
    let before = targets(&[("gke-1", 4), ("gke-2", 7)]);
    let got = divide::take_by_weight(11, &weights, &before);
    assert_eq!(
        got.targets,
        targets(&[("gke-1", 2), ("gke-2", 5), ("gke-3", 4)])
    );
    assert!(!got.random_tie);
    // Fresh: gke-2 and gke-3 tie on weight and last replicas; which gets the replica is random.
    let got = divide::take_by_weight(11, &weights, &[]);
    assert_eq!(got.targets.iter().map(|t| t.replicas).sum::<i32>(), 11);
    assert!(got.random_tie);
    // Exact division: nothing left, no tie.
    let got = divide::take_by_weight(8, &weights, &[]);
    assert_eq!(
        got.targets,
        targets(&[("gke-1", 2), ("gke-2", 3), ("gke-3", 3)])
    );
    assert!(!got.random_tie);
    assert_eq!(
        divide::take_by_weight(3, &[], &[]),
        divide::Apportioned::default()
    );
}
