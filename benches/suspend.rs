//! Benchmark: `suspend --all` over 1,000 PropagationPolicies against the in-process test API
//! server (tests/support), through the real binary: one list, then one RV-guarded merge patch
//! per policy with bounded concurrency.
//!
//! Run: `cargo bench --bench suspend` (release), or `cargo test --bench suspend` (debug, quick).
//! Options: `SUSPEND_BENCH_POLICIES=N`, `SUSPEND_BENCH_CONCURRENCY=N`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::json;

fn main() {
    let n: usize = std::env::var("SUSPEND_BENCH_POLICIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let concurrency = std::env::var("SUSPEND_BENCH_CONCURRENCY").unwrap_or_else(|_| "8".into());
    let server = support::TestServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = server.kubeconfig(dir.path());
    for c in ["member1", "member2", "member3"] {
        server.insert(support::cluster(c, true));
    }
    for i in 0..n {
        server.insert(support::pp(
            "bench",
            &format!("p{i:05}"),
            json!({"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "name": format!("c{i}")}],
                   "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2", "member3"]}}}),
        ));
    }
    for (label, clusters) in [
        ("all clusters", None),
        ("--clusters member2", Some("member2")),
    ] {
        let mut args = vec![
            "suspend",
            "pp",
            "--all",
            "-n",
            "bench",
            "--yes",
            "--concurrency",
            &concurrency,
        ];
        if let Some(c) = clusters {
            args.extend(["--clusters", c]);
        }
        let before = server.requests().len();
        let start = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(&args)
            .env("KUBECONFIG", &kubeconfig)
            .stdin(Stdio::null())
            .output()
            .expect("run binary");
        let took = start.elapsed();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = String::from_utf8_lossy(&out.stdout).lines().count();
        assert_eq!(lines, n);
        println!(
            "suspend --all ({label}) over {n} policies, concurrency {concurrency}: {took:.2?} ({:.0} policies/s, {} requests)",
            n as f64 / took.as_secs_f64(),
            server.requests().len() - before
        );
        // Undo, so the second run changes every policy again.
        let out = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(["resume", "pp", "--all", "-n", "bench", "--yes"])
            .env("KUBECONFIG", &kubeconfig)
            .stdin(Stdio::null())
            .output()
            .expect("run binary");
        assert!(out.status.success());
    }
}
