//! Benchmark: live `explain` of one template against a control plane of 5,000 policies and
//! 50,000 templates (with their bindings and Works) on the in-process test API server, through
//! the real binary. Reports the wall time and the requests sent: discovery plus one request per
//! kind, never one per object.
//!
//! Run: `cargo bench --bench live` (release), or `cargo test --bench live` (debug, quick).
//! Options: `LIVE_BENCH_NAMESPACES=N` (50), `LIVE_BENCH_RUNS=N` (5).

#[path = "../tests/support/mod.rs"]
mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

const POLICIES_PER_NS: usize = 98; // + 2 CPPs per namespace = 100 policies per namespace
const TEMPLATES_PER_NS: usize = 1000;
const WORKS_EVERY: usize = 10; // Works (3 clusters) for every 10th binding

fn main() {
    let namespaces: usize = std::env::var("LIVE_BENCH_NAMESPACES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let runs: usize = std::env::var("LIVE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let server = support::TestServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = server.kubeconfig(dir.path());
    let clusters = ["member1", "member2", "member3"];
    for c in clusters {
        server.insert(support::cluster(c, true));
    }
    let seed = Instant::now();
    let (mut policies, mut templates, mut others) = (0usize, 0usize, 0usize);
    for n in 0..namespaces {
        let ns = format!("ns-{n:02}");
        for i in 0..POLICIES_PER_NS {
            // Each PP selects the Deployments labelled app=a<i> of its namespace (about 10).
            let mut spec = json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment",
                    "labelSelector": {"matchLabels": {"app": format!("a{i}")}}}],
                "placement": {"clusterAffinity": {"clusterNames": clusters}}});
            if i == 0 {
                // One PP per namespace also names web-0, at a higher priority.
                spec["priority"] = json!(5);
                spec["preemption"] = json!("Always");
                spec["resourceSelectors"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "web-0"}));
            }
            server.insert(support::pp(&ns, &format!("p{i:03}"), spec));
            policies += 1;
        }
        for c in 0..2 {
            server.insert(support::cpp(
                &format!("platform-{n:02}-{c}"),
                json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment",
                        "labelSelector": {"matchLabels": {"tier": format!("t{}", (n * 2 + c) % 7)}}}],
                    "placement": {"clusterAffinity": {"clusterNames": clusters}}}),
            ));
            policies += 1;
        }
        for t in 0..TEMPLATES_PER_NS {
            let name = format!("web-{t}");
            let owner = format!("p{:03}", t % POLICIES_PER_NS);
            let owner_id = format!("id-{ns}-{owner}");
            server.insert(json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": name, "namespace": ns,
                    "labels": {"app": format!("a{}", t % POLICIES_PER_NS), "tier": format!("t{}", t % 7),
                        "propagationpolicy.karmada.io/permanent-id": owner_id},
                    "annotations": {"propagationpolicy.karmada.io/namespace": ns,
                        "propagationpolicy.karmada.io/name": owner}},
                "spec": {"replicas": 3}}));
            templates += 1;
            let rb_id = format!("rb-{ns}-{t}");
            server.insert(json!({"apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding",
                "metadata": {"name": format!("{name}-deployment"), "namespace": ns,
                    "labels": {"propagationpolicy.karmada.io/permanent-id": owner_id,
                        "resourcebinding.karmada.io/permanent-id": rb_id}},
                "spec": {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": ns, "name": name},
                    "clusters": clusters.iter().map(|c| json!({"name": c, "replicas": 1})).collect::<Vec<_>>()}}));
            others += 1;
            if t % WORKS_EVERY == 0 {
                for c in clusters {
                    server.insert(support::work(
                        c,
                        &format!("{name}-{n}"),
                        &rb_id,
                        "True",
                        "Dispatching",
                    ));
                    others += 1;
                }
            }
        }
    }
    println!(
        "control plane: {policies} policies, {templates} templates, {others} bindings and Works (seeded in {:.1?})",
        seed.elapsed()
    );
    let target_ns = format!("ns-{:02}", 7.min(namespaces - 1));
    let mut times: Vec<Duration> = Vec::new();
    let mut requests = 0;
    for _ in 0..runs {
        let before = server.requests().len();
        let start = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(["explain", "deploy/web-0", "-n", &target_ns, "-o", "json"])
            .env("KUBECONFIG", &kubeconfig)
            .stdin(Stdio::null())
            .output()
            .expect("run binary");
        times.push(start.elapsed());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["current"]["name"], "p000");
        assert_eq!(v["chain"]["works"].as_array().map(Vec::len), Some(3));
        requests = server.requests().len() - before;
    }
    let log = server.requests();
    let last: Vec<&String> = log[log.len() - requests..].iter().collect();
    times.sort();
    println!(
        "explain deploy/web-0 (live): median {:.1?}, min {:.1?} over {runs} runs; {requests} requests per run:",
        times[times.len() / 2],
        times[0]
    );
    for r in last {
        println!("  {r}");
    }
}
