//! Live `explain pp/NAME` / `cpp/NAME` (issue 21) against the in-process test API server seeded
//! with `testdata/live/policy-view.yaml`: each held template's binding and Works with their
//! conditions, clusters without a Work, the policy's suspension, a CPP, a 403 on Works, and the
//! exit codes of the template form.

mod snapshot_file;
mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value as J;
use snapshot_file::assert_snapshot;
use support::{TestServer, SECRET_TOKEN};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

/// The server with the control plane of `testdata/live/policy-view.yaml`.
fn seeded() -> TestServer {
    TestServer::seeded_from(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/live/policy-view.yaml"),
    )
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(s: &TestServer, args: &[&str]) -> Out {
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let out = Command::new(BIN)
        .args(args)
        .arg("--kubeconfig")
        .arg(&kc)
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .output()
        .expect("run binary");
    let o = Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !o.stdout.contains(SECRET_TOKEN) && !o.stderr.contains(SECRET_TOKEN),
        "credentials printed"
    );
    o
}

/// Every request was a read, none asked twice.
fn assert_reads_once(s: &TestServer) -> Vec<String> {
    let reqs = s.requests();
    assert!(reqs.iter().all(|r| r.starts_with("GET ")), "{reqs:?}");
    assert_eq!(s.writes(), 0);
    let mut seen = reqs.clone();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), reqs.len(), "a request repeated: {reqs:?}");
    reqs
}

fn template<'a>(v: &'a J, name: &str) -> &'a J {
    v["templates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["resource"]["name"] == name)
        .unwrap_or_else(|| panic!("no template {name}"))
}

#[test]
fn a_pp_with_applied_refused_and_missing_works_text() {
    let s = seeded();
    let o = run(&s, &["explain", "pp/web", "-n", "shop"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_snapshot("explain-policy-live.txt", &o.stdout);
    // The Works of the two held bindings, in one list by their ids; no Work list for the
    // templates held by other policies.
    let reqs = assert_reads_once(&s);
    let works: Vec<&String> = reqs.iter().filter(|r| r.contains("/works")).collect();
    assert_eq!(works.len(), 1, "{works:?}");
    assert!(
        works[0]
            .contains("resourcebinding.karmada.io%2Fpermanent-id+in+%28rb-cart%2Crb-frontend%29")
            || works[0].contains(
                "resourcebinding.karmada.io%2Fpermanent-id%20in%20%28rb-cart%2Crb-frontend%29"
            ),
        "{works:?}"
    );
    // Discovery (2), one round of policies, bindings and Clusters (4), the templates of the one
    // kind it selects (1), the Works (1): nothing per template.
    assert_eq!(reqs.len(), 8, "{reqs:?}");
    // A PP reads its own namespace only.
    assert!(reqs
        .iter()
        .filter(|r| r.contains("/deployments") || r.contains("/propagationpolicies"))
        .all(|r| r.contains("/namespaces/shop/")));
}

#[test]
fn a_pp_with_applied_refused_and_missing_works_json() {
    let s = seeded();
    let o = run(&s, &["explain", "pp/web", "-n", "shop", "-o", "json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_snapshot("explain-policy-live.json", &o.stdout);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    // The file form's contract, unchanged.
    for key in ["policy", "templates", "filtered", "summary", "dead"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let frontend = template(&v, "frontend");
    assert_eq!(frontend["status"], "claimed");
    assert_eq!(frontend["binding"]["name"], "frontend-deployment");
    assert_eq!(frontend["binding"]["conditions"][1]["type"], "FullyApplied");
    let works = frontend["works"].as_array().unwrap();
    assert_eq!(works.len(), 2);
    assert_eq!(works[0]["cluster"], "member1");
    assert_eq!(works[0]["applied"]["status"], "True");
    assert_eq!(works[1]["applied"]["status"], "False");
    assert!(works[1]["applied"]["message"]
        .as_str()
        .unwrap()
        .contains("cpu limit exceeded"));
    assert_eq!(works[1]["suspended"], false);
    assert_eq!(
        template(&v, "cart")["missingWorks"],
        serde_json::json!(["member1", "member2"])
    );
    assert_eq!(template(&v, "legacy")["binding"], J::Null);
    assert_eq!(template(&v, "search")["status"], "will-be-claimed");
    assert_eq!(v["summary"]["held"], 2);
    assert_eq!(v["summary"]["notApplied"], 1);
    assert_eq!(v["summary"]["missingWorks"], 2);
    assert_eq!(v["suspension"], J::Null);
}

#[test]
fn a_suspended_cluster_shows_on_the_policy_and_its_work() {
    let s = seeded();
    let o = run(&s, &["explain", "pp/batch", "-n", "shop"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_snapshot("explain-policy-live-suspended.txt", &o.stdout);
    let o = run(&s, &["explain", "pp/batch", "-n", "shop", "-o", "json"]);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        v["suspension"],
        serde_json::json!({"dispatchingOnClusters": {"clusterNames": ["member2"]}})
    );
    let works = template(&v, "report")["works"].as_array().unwrap().clone();
    assert_eq!(works[1]["suspended"], true);
    assert_eq!(works[1]["dispatching"]["reason"], "SuspendDispatching");
    assert_eq!(works[1]["applied"], J::Null);
    assert_eq!(v["summary"]["suspendedWorks"], 1);
    assert_eq!(v["summary"]["pending"], 1);
}

#[test]
fn a_cpp_reads_everywhere_and_binds_cluster_scoped_templates() {
    let s = seeded();
    let o = run(&s, &["explain", "cpp/platform"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_snapshot("explain-policy-live-cpp.txt", &o.stdout);
    let o = run(&s, &["explain", "cpp/platform", "-o", "json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_snapshot("explain-policy-live-cpp.json", &o.stdout);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    let ns = template(&v, "team-a");
    assert_eq!(ns["binding"]["kind"], "ClusterResourceBinding");
    assert_eq!(ns["works"][0]["applied"]["reason"], "AppliedSuccessful");
    assert_eq!(template(&v, "frontend")["status"], "held-by-other");
    let reqs = s.requests();
    assert!(reqs
        .iter()
        .any(|r| r.contains("/works?")
            && r.contains("clusterresourcebinding.karmada.io%2Fpermanent-id")));
}

#[test]
fn the_graph_draws_the_held_templates_chains() {
    let s = seeded();
    let o = run(
        &s,
        &["explain", "pp/batch", "-n", "shop", "--graph", "mermaid"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.starts_with("flowchart") || o.stdout.starts_with("graph"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("member2"), "{}", o.stdout);
}

#[test]
fn forbidden_works_degrade_to_a_note() {
    let s = seeded();
    s.shared
        .faults
        .forbidden_plurals
        .lock()
        .unwrap()
        .push("works".into());
    let o = run(&s, &["explain", "pp/web", "-n", "shop"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_snapshot("explain-policy-live-forbidden-works.txt", &o.stdout);
    let o = run(&s, &["explain", "pp/web", "-n", "shop", "-o", "json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(template(&v, "cart")["missingWorks"], serde_json::json!([]));
    assert!(
        v["notes"][0].as_str().unwrap().contains("works"),
        "{}",
        v["notes"]
    );
    assert!(o.stderr.contains("note: "), "{}", o.stderr);
}

#[test]
fn exit_codes_as_the_template_form() {
    let s = seeded();
    let o = run(&s, &["explain", "pp/nope", "-n", "shop"]);
    assert_eq!(o.code, 4, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("propagationpolicy \"nope\" not found in namespace shop"),
        "{}",
        o.stderr
    );
    let o = run(&s, &["explain", "cpp/nope"]);
    assert_eq!(o.code, 4, "{}", o.stderr);
    // A policy read that is refused is an API failure, not a missing policy.
    s.shared
        .faults
        .forbidden_plurals
        .lock()
        .unwrap()
        .push("propagationpolicies".into());
    let o = run(&s, &["explain", "pp/web", "-n", "shop"]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(
        o.stderr.contains("cannot read propagationpolicies"),
        "{}",
        o.stderr
    );
    // A failing server.
    let s = seeded();
    s.shared
        .faults
        .errors_500
        .store(100, std::sync::atomic::Ordering::SeqCst);
    let o = run(&s, &["explain", "pp/web", "-n", "shop"]);
    assert_eq!(o.code, 3, "{}", o.stderr);
}
