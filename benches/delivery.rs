//! Engine time of `explain`'s delivery sections (issues 21, 22):
//! - overrides for one template among 10,000 OverridePolicies (target: < 50 ms);
//! - the filter stage for one placement over 1,000 clusters (target: < 10 ms).
//!
//! `cargo bench --bench delivery` (plain std::time harness). Prints the median and worst of
//! several runs and fails if a median exceeds its target.

use std::hint::black_box;
use std::time::{Duration, Instant};

use karmada_policy::engine::overrides::apply_for_cluster;
use karmada_policy::engine::placement::{evaluate, BindingView};
use karmada_policy::model::cluster::Cluster;
use karmada_policy::model::policy::Placement;
use karmada_policy::model::{ObjectMeta, OverridePolicy};
use serde_json::{json, Value};

const OVERRIDE_POLICIES: usize = 10_000;
const CLUSTERS: usize = 1_000;
const RUNS: usize = 15;

fn override_policy(i: usize) -> OverridePolicy {
    // Most select other Deployments by name or label; every 500th selects ours by label, every
    // 1000th by kind only, and a few are cluster-scoped.
    let selector = match i % 1000 {
        0 => json!({"apiVersion": "apps/v1", "kind": "Deployment"}),
        500 => {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "web"}}})
        }
        n if n % 2 == 0 => {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": format!("app-{i}")})
        }
        _ => {
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": format!("app-{i}")}}})
        }
    };
    let spec = json!({
        "resourceSelectors": [selector],
        "overrideRules": [
            {"targetCluster": {"clusterNames": ["member-7"]}, "overriders": {
                "imageOverrider": [{"component": "Registry", "operator": "replace", "value": format!("mirror{i}.example.com")}],
                "labelsOverrider": [{"operator": "add", "value": {"override": format!("p{i}")}}]
            }},
            {"targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}}, "overriders": {
                "plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": i % 7 + 1}]
            }}
        ]
    });
    let cluster_scoped = i % 100 == 3;
    OverridePolicy {
        cluster_scoped,
        meta: ObjectMeta {
            name: format!("op-{i:05}"),
            namespace: (!cluster_scoped).then(|| "apps".to_string()),
            ..ObjectMeta::default()
        },
        spec: serde_json::from_value(spec.clone()).expect("spec"),
        raw_spec: spec,
        doc: 0,
        admission: karmada_policy::model::Admission::Unchecked,
    }
}

fn cluster(i: usize) -> Cluster {
    let provider = ["aws", "gcp", "azure"][i % 3];
    let object = json!({
        "metadata": {"name": format!("member-{i}"), "labels": {"env": if i.is_multiple_of(3) { "prod" } else { "dev" }, "idx": i.to_string()}},
        "spec": {
            "provider": provider,
            "region": format!("region-{}", i % 10),
            "zones": [format!("zone-{}", i % 30)],
            "taints": if i.is_multiple_of(11) { json!([{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]) } else { json!([]) }
        },
        "status": {"apiEnablements": if i.is_multiple_of(13) { json!([]) } else {
            json!([{"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]}])
        }}
    });
    Cluster::from_object(&object)
}

fn template() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "apps", "labels": {"app": "web"}},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.19"}]}}}})
}

fn measure(mut f: impl FnMut()) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[RUNS / 2], times[RUNS - 1])
}

fn main() {
    let policies: Vec<OverridePolicy> = (0..OVERRIDE_POLICIES).map(override_policy).collect();
    let refs: Vec<&OverridePolicy> = policies.iter().collect();
    let clusters: Vec<Cluster> = (0..CLUSTERS).map(cluster).collect();
    let tpl = template();

    let (median, worst) = measure(|| {
        let r = apply_for_cluster(&tpl, "member-7", clusters.get(7), &refs);
        black_box(r);
    });
    let probe = apply_for_cluster(&tpl, "member-7", clusters.get(7), &refs);
    println!(
        "overrides: 1 template, {OVERRIDE_POLICIES} OverridePolicies ({} applied): median {median:?}, worst {worst:?} (target < 50 ms)",
        probe.policies.len()
    );
    assert!(probe.manifest.is_some(), "{:?}", probe.error);
    let overrides_ok = median < Duration::from_millis(50);

    let placement: Placement = serde_json::from_value(json!({
        "clusterAffinities": [
            {"affinityName": "gpu", "labelSelector": {"matchLabels": {"env": "gpu"}}},
            {"affinityName": "prod", "labelSelector": {"matchLabels": {"env": "prod"}},
             "fieldSelector": {"matchExpressions": [{"key": "provider", "operator": "In", "values": ["aws", "gcp"]}]}}
        ],
        "clusterTolerations": [{"key": "maint", "operator": "Exists"}],
        "spreadConstraints": [{"spreadByField": "region", "minGroups": 2}, {"spreadByField": "cluster", "minGroups": 2}]
    }))
    .expect("placement");
    let view = BindingView {
        api_version: "apps/v1",
        kind: "Deployment",
        workload: true,
        ..BindingView::default()
    };
    let (median_p, worst_p) = measure(|| {
        black_box(evaluate(&placement, &clusters, &view));
    });
    let r = evaluate(&placement, &clusters, &view);
    println!(
        "placement: {CLUSTERS} clusters, 2 affinity terms: median {median_p:?}, worst {worst_p:?} (target < 10 ms); term {:?}, {} feasible, {} excluded",
        r.decided.term,
        r.decided.feasible.len(),
        r.decided.excluded.len()
    );
    let placement_ok = median_p < Duration::from_millis(10);
    assert!(overrides_ok, "overrides median {median:?} exceeds 50 ms");
    assert!(placement_ok, "placement median {median_p:?} exceeds 10 ms");
}
