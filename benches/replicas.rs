//! Engine time of the replica assignment (`engine::replicas`, issue 35): one template over
//! 1,000 member clusters with resource summaries, the filter stage and the steps after it
//! (estimates, spread selection, division), per strategy. Target: < 10 ms each.
//!
//! `cargo bench --bench replicas` (plain std::time harness, as benches/delivery.rs). Prints the
//! median and worst of several runs and fails if a median exceeds the target.

use std::hint::black_box;
use std::time::{Duration, Instant};

use karmada_policy::engine::placement::{evaluate, BindingView};
use karmada_policy::engine::replicas::{workload, CapacitySource, ReplicaView, SchedulerTraits};
use karmada_policy::model::cluster::Cluster;
use karmada_policy::model::policy::Placement;
use karmada_policy::model::ObjectMeta;
use serde_json::json;

const CLUSTERS: usize = 1_000;
const RUNS: usize = 15;
const TARGET: Duration = Duration::from_millis(10);

/// Clusters in 10 regions, a third labelled gold, each with its own capacity.
fn cluster(i: usize) -> Cluster {
    let mut meta = ObjectMeta {
        name: format!("member-{i:04}"),
        ..ObjectMeta::default()
    };
    meta.labels.insert("env".into(), "prod".into());
    if i.is_multiple_of(3) {
        meta.labels.insert("tier".into(), "gold".into());
    }
    let body = json!({
        "spec": {"provider": "aws", "region": format!("region-{}", i % 10)},
        "status": {
            "apiEnablements": [{"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]}],
            "resourceSummary": {
                "allocatable": {"cpu": format!("{}", 16 + i % 48), "memory": "256Gi", "pods": "110"},
                "allocated": {"cpu": format!("{}", i % 16), "memory": "64Gi", "pods": format!("{}", i % 50)},
                "allocating": {"cpu": "500m"}
            }
        }
    });
    Cluster::from_json(&meta, &body)
}

fn main() {
    let clusters: Vec<Cluster> = (0..CLUSTERS).map(cluster).collect();
    let template = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "apps", "uid": "8d3f0c52-1f6e-4a55-9a0c-2f1b7f6f0a11"},
        "spec": {"replicas": 3000, "template": {"spec": {"containers": [
            {"name": "web", "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}}}]}}}});
    let w = workload::from_template(&template).expect("workload");
    let weighted = |pref: serde_json::Value| {
        json!({"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}},
            "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted", "weightPreference": pref}})
    };
    let cases: Vec<(&str, serde_json::Value)> = vec![
        (
            "duplicated, cluster spread 100 of 1000",
            json!({
            "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 100}]}),
        ),
        (
            "static weights (names, labels)",
            weighted(json!({"staticWeightList": [
            {"targetCluster": {"labelSelector": {"matchLabels": {"tier": "gold"}}}, "weight": 3},
            {"targetCluster": {"clusterNames": ["member-0001", "member-0002"]}, "weight": 5},
            {"targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}}, "weight": 1}]})),
        ),
        (
            "dynamic weights",
            weighted(json!({"dynamicWeight": "AvailableReplicas"})),
        ),
        (
            "aggregated",
            json!({"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}}),
        ),
        (
            "dynamic, region spread 3 regions / 30 clusters",
            json!({
            "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted", "weightPreference": {"dynamicWeight": "AvailableReplicas"}},
            "spreadConstraints": [{"spreadByField": "region", "minGroups": 3, "maxGroups": 3},
                {"spreadByField": "cluster", "minGroups": 3, "maxGroups": 30}]}),
        ),
    ];
    let mut failed = false;
    // The filter stage alone (no replica fields), for comparison: what the steps after it add.
    let filter_only: Placement = serde_json::from_value(cases[2].1.clone()).expect("placement");
    let plain = BindingView {
        api_version: "apps/v1",
        kind: "Deployment",
        workload: true,
        ..BindingView::default()
    };
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            black_box(evaluate(&filter_only, &clusters, &plain));
            start.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "filter stage alone over {CLUSTERS} clusters (label affinity): median {:?}, worst {:?}",
        times[RUNS / 2],
        times[RUNS - 1]
    );
    for (name, placement) in cases {
        let placement: Placement = serde_json::from_value(placement).expect("placement");
        let view = BindingView {
            api_version: "apps/v1",
            kind: "Deployment",
            workload: true,
            replicas: Some(ReplicaView {
                workload: &w,
                capacity: CapacitySource::Live,
                traits: SchedulerTraits::default(),
                previous: &[],
            }),
            ..BindingView::default()
        };
        let mut times = Vec::with_capacity(RUNS);
        let mut assigned = 0;
        for _ in 0..RUNS {
            let start = Instant::now();
            let r = black_box(evaluate(&placement, &clusters, &view));
            times.push(start.elapsed());
            assigned = match &r.decided.assignment {
                Some(karmada_policy::engine::replicas::Outcome::Scheduled(s)) => s.shares.len(),
                other => panic!("{name}: {other:?} / {:?}", r.decided.error),
            };
        }
        times.sort();
        let (median, worst) = (times[RUNS / 2], times[RUNS - 1]);
        println!(
            "replica assignment over {CLUSTERS} clusters, {name}: {assigned} clusters receive replicas; median {median:?}, worst {worst:?} (target < {TARGET:?})"
        );
        failed |= median > TARGET;
    }
    if failed {
        eprintln!("a median exceeds its target");
        std::process::exit(1);
    }
}
