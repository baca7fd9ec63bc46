//! Live mode (issue 7) against the in-process test API server seeded with
//! `testdata/live/control-plane.yaml`: explain with the real chain, --graph, preempt-check
//! writing nothing, lint --cluster in every format, and a 403 on one kind.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as J;
use support::{TestServer, SECRET_TOKEN};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn testdata(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/live")
        .join(p)
}

/// The server with the control plane of `testdata/live/control-plane.yaml`.
fn seeded() -> TestServer {
    TestServer::seeded_from(&testdata("control-plane.yaml"))
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(kubeconfig: &Path, args: &[&str]) -> Out {
    let out = Command::new(BIN)
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
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

/// Every request was a read.
fn assert_read_only(s: &TestServer) -> Vec<String> {
    let reqs = s.requests();
    assert!(
        reqs.iter().all(|r| r.starts_with("GET ")),
        "non-GET requests: {reqs:?}"
    );
    assert_eq!(s.writes(), 0);
    reqs
}

/// Reads only, and each (path, query) asked once: one list per kind (for a single run).
fn assert_one_run_reads(s: &TestServer) -> Vec<String> {
    let reqs = assert_read_only(s);
    let mut seen = reqs.clone();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), reqs.len(), "a request repeated: {reqs:?}");
    reqs
}

fn diagnoses(v: &J) -> Vec<(String, String)> {
    v["chain"]["diagnoses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn explain_live_json_has_the_manifest_contract_and_the_chain() {
    let s = seeded();
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let o = run(
        &kc,
        &["explain", "deploy/web", "-n", "default", "-o", "json"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    // The manifest-mode contract, unchanged.
    for key in [
        "resource",
        "current",
        "afterReconcile",
        "eventual",
        "preempted",
        "candidates",
        "suspension",
        "notes",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(
        v["resource"],
        serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "web"})
    );
    assert_eq!(v["current"]["name"], "web");
    assert_eq!(v["eventual"]["name"], "web");
    assert_eq!(v["candidates"].as_array().unwrap().len(), 2);

    // The chain: claim keys, binding, Works with both conditions.
    let c = &v["chain"];
    assert_eq!(
        c["claim"]["labels"]["propagationpolicy.karmada.io/permanent-id"],
        "7c0e6c1a-0002"
    );
    assert_eq!(
        c["claim"]["annotations"]["propagationpolicy.karmada.io/name"],
        "web"
    );
    assert_eq!(c["binding"]["kind"], "ResourceBinding");
    assert_eq!(c["binding"]["name"], "web-deployment");
    assert_eq!(
        c["binding"]["clusters"],
        serde_json::json!([{"name": "member1", "replicas": 1}, {"name": "member2", "replicas": 1}])
    );
    assert_eq!(c["binding"]["suspension"]["policy"], J::Null);
    let works = c["works"].as_array().unwrap();
    assert_eq!(works.len(), 2);
    assert_eq!(works[0]["cluster"], "member1");
    assert_eq!(works[0]["suspendDispatching"], false);
    assert_eq!(works[0]["dispatching"]["status"], "False");
    assert_eq!(works[0]["dispatching"]["reason"], "SuspendDispatching");
    assert_eq!(
        works[0]["dispatching"]["lastTransitionTime"],
        "2026-11-29T08:00:00Z"
    );
    assert_eq!(works[0]["applied"]["reason"], "AppliedSuccessful");
    assert_eq!(works[1]["applied"], J::Null);

    // Resumed but still suspended, on two different links; a better policy kept out, and why.
    let d = diagnoses(&v);
    let codes: Vec<&str> = d.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        codes,
        [
            "claim-kept-over-better-policy",
            "resumed-but-suspended",
            "resumed-but-suspended"
        ]
    );
    assert!(d[0]
        .1
        .contains("pp/default/web-priority outranks the holder pp/default/web"));
    assert!(d[0].1.contains("PropagationPolicyPreemption"), "{}", d[0].1);
    assert!(d[1].1.starts_with("member1:") && d[1].1.contains("execution controller"));
    assert!(d[2].1.starts_with("member2:") && d[2].1.contains("binding controller"));

    // Discovery, then one request per kind, all reads.
    let reqs = assert_one_run_reads(&s);
    assert_eq!(
        reqs.iter()
            .filter(|r| r.contains("/propagationpolicies"))
            .count(),
        1
    );
    assert!(reqs.iter().any(
        |r| r.starts_with("GET /apis/work.karmada.io/v1alpha1/works?")
            && r.contains("labelSelector=resourcebinding.karmada.io%2Fpermanent-id%3Drb-0002")
    ));
    assert!(
        reqs.len() <= 12,
        "explain should not scale with the objects: {reqs:?}"
    );
}

#[test]
fn explain_live_text_diagnoses_suspension_and_stale_claims() {
    let s = seeded();
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());

    // A suspended policy naming a cluster that does not exist, and a Work the member refuses.
    let o = run(&kc, &["explain", "deployment.apps/nginx"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("Live chain:"), "{}", o.stdout);
    assert!(o
        .stdout
        .contains("    annotation  propagationpolicy.karmada.io/name=nginx\n"));
    assert!(o
        .stdout
        .contains("  binding: ResourceBinding default/nginx-deployment\n"));
    assert!(o.stdout.contains(
        "    clusters:   member1 (replicas 1), member2 (replicas 1), member3 (replicas 1)\n"
    ));
    assert!(o
        .stdout
        .contains("    suspension: dispatchingOnClusters: [member2, member9]\n"));
    assert!(o.stdout.contains("Dispatching=False (SuspendDispatching) \"Work dispatching is in a suspended state.\" since 2026-11-29T08:00:00Z"));
    assert!(o.stdout.contains(
        "warning pp/default/nginx suspends member9 in dispatchingOnClusters, but member9 is not a target of the binding and no member cluster has that name"
    ), "{}", o.stdout);
    assert!(o.stdout.contains(
        "member3: Work karmada-es-member3/nginx-687f7fb96f is not applied (AppliedFailed)"
    ));
    assert!(
        !o.stdout.contains("resumed-but"),
        "member2 is suspended as the policy says"
    );

    // A claim by a policy that no longer exists.
    let o = run(&kc, &["explain", "deploy/legacy", "-o", "json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["current"]["name"], "retired");
    assert_eq!(
        v["eventual"],
        serde_json::json!({"kind": "ClusterPropagationPolicy", "name": "platform"})
    );
    let codes: Vec<String> = diagnoses(&v).into_iter().map(|(c, _)| c).collect();
    assert!(codes.contains(&"claimer-missing".to_string()), "{codes:?}");
    assert!(
        codes.contains(&"binding-claimer-missing".to_string()),
        "{codes:?}"
    );
    assert!(diagnoses(&v)[0]
        .1
        .contains("claimed by pp/default/retired, which no longer exists"));

    // With the preemption gate on, the better policy takes it once the policies are processed
    // again: the live claim holds until then.
    let o = run(
        &kc,
        &[
            "explain",
            "deploy/web",
            "-o",
            "json",
            "--feature-gates",
            "PropagationPolicyPreemption=true",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["eventual"]["name"], "web-priority");
    let d = diagnoses(&v);
    assert_eq!(d[0].0, "owner-changes-on-restart");
    assert!(
        d[0].1.starts_with(
            "the claim of pp/default/web holds until the policies are processed again"
        ) && d[0].1.ends_with("then pp/default/web-priority preempts it"),
        "{}",
        d[0].1
    );
    assert!(!d.iter().any(|(c, _)| c == "claim-kept-over-better-policy"));

    // A cluster-scoped template: a ClusterResourceBinding, its Works by the CRB's permanent-id.
    let o = run(&kc, &["explain", "ns/shop", "-o", "json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        v["current"],
        serde_json::json!({"kind": "ClusterPropagationPolicy", "name": "namespaces"})
    );
    assert_eq!(v["chain"]["binding"]["kind"], "ClusterResourceBinding");
    assert_eq!(v["chain"]["binding"]["namespace"], J::Null);
    assert_eq!(v["chain"]["works"][0]["cluster"], "member1");
    assert_eq!(
        diagnoses(&v),
        [(
            "missing-work".to_string(),
            "member3 is a target of the binding but has no Work: the binding controller has not created it yet".to_string()
        )]
    );

    // An unknown type is a usage error, a missing template "not found" (exit 4), as in
    // manifest mode.
    let o = run(&kc, &["explain", "widgets/x"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("doesn't have a resource type \"widgets\""),
        "{}",
        o.stderr
    );
    let o = run(&kc, &["explain", "deploy/nope"]);
    assert_eq!(o.code, 4);
    assert!(
        o.stderr.contains("not found in namespace default"),
        "{}",
        o.stderr
    );
    assert_read_only(&s);
}

#[test]
fn explain_graph_marks_suspended_edges() {
    let s = seeded();
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let o = run(&kc, &["explain", "deploy/nginx", "--graph", "dot"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.starts_with("digraph claims {"));
    assert!(
        o.stdout.contains(
            "p_pp_default_nginx -> t_deployment_default_nginx [label=\"claims\", style=solid];"
        ),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains(
        "t_deployment_default_nginx -> c_member2 [label=\"suspended\", style=dashed, color=red, fontcolor=red];"
    ));
    assert!(o
        .stdout
        .contains("t_deployment_default_nginx -> c_member1 [label=\"dispatching\", style=solid];"));
    let o = run(&kc, &["explain", "deploy/web", "--graph", "mermaid"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.starts_with("flowchart LR\n"));
    assert!(o
        .stdout
        .contains("  p_pp_default_web_priority -.->|candidate| t_deployment_default_web\n"));
    assert!(o
        .stdout
        .contains("  t_deployment_default_web -.->|suspended| c_member2\n"));
    assert!(o.stdout.contains("linkStyle"));

    // Manifest mode draws the policy's own view: the suspended cluster from dispatchingOnClusters.
    let o = run(
        &kc,
        &[
            "explain",
            "deploy/nginx",
            "-f",
            testdata("control-plane.yaml").to_str().unwrap(),
            "--graph",
            "dot",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains(
        "t_deployment_default_nginx -> c_member9 [label=\"suspended\", style=dashed, color=red, fontcolor=red];"
    ), "{}", o.stdout);
}

#[test]
fn preempt_check_live_writes_nothing() {
    let s = seeded();
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let new_pp = testdata("new-pp.yaml");
    let o = run(
        &kc,
        &[
            "preempt-check",
            "--apply",
            new_pp.to_str().unwrap(),
            "--feature-gates",
            "PropagationPolicyPreemption=true",
            "-o",
            "json",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    let nginx = v["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"]["name"] == "nginx")
        .expect("nginx moves");
    assert_eq!(nginx["before"]["name"], "nginx");
    assert_eq!(nginx["after"]["name"], "nginx-takeover");
    assert_eq!(nginx["preempted"], true);

    // Gate off: blocked, and why; --fail-on-blocked exits 1.
    let o = run(
        &kc,
        &[
            "preempt-check",
            "--apply",
            new_pp.to_str().unwrap(),
            "--fail-on-blocked",
        ],
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stdout.contains("PropagationPolicyPreemption"),
        "{}",
        o.stdout
    );

    // Deleting the holder releases nginx (no other policy matches it).
    let o = run(
        &kc,
        &["preempt-check", "--delete", "pp/default/web", "-o", "json"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    let web = v["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["resource"]["name"] == "web")
        .expect("web moves");
    assert_eq!(web["before"]["name"], "web");
    assert_eq!(web["after"]["name"], "web-priority");

    let o = run(&kc, &["preempt-check", "--delete", "pp/default/nope"]);
    // Not there to delete: not found (docs/exit-codes.md).
    assert_eq!(o.code, 4, "{}", o.stderr);

    // Nothing reached the server but reads.
    let reqs = s.requests();
    assert!(
        reqs.iter().all(|r| r.starts_with("GET ")),
        "non-GET requests: {reqs:?}"
    );
    assert_eq!(s.writes(), 0);
}

#[test]
fn lint_cluster_reports_object_references_in_every_format() {
    let s = seeded();
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());

    let o = run(
        &kc,
        &["lint", "--cluster", "-o", "json", "--fail-on", "none"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    let ghost = findings
        .iter()
        .find(|f| f["file"] == "pp/shop/ghost")
        .unwrap_or_else(|| panic!("a finding on pp/shop/ghost: {findings:?}"));
    assert_eq!(ghost["line"], J::Null);
    assert_eq!(ghost["column"], J::Null);
    assert!(ghost["field"].as_str().unwrap().starts_with("spec."));
    assert!(findings
        .iter()
        .any(|f| f["file"] == "pp/default/web-priority"));
    for f in findings {
        let file = f["file"].as_str().unwrap_or("");
        assert!(
            !file.ends_with(".yaml") && f["line"].is_null(),
            "a file position in live mode: {f}"
        );
    }
    let rules: Vec<&str> = findings
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"dead-policy"), "{rules:?}");
    assert!(
        rules.contains(&"suspended-cluster-not-targeted"),
        "{rules:?}"
    );
    // One list per kind: discovery, policies, overrides, bindings, Works, Clusters, and each
    // template kind the policies select (Deployments, Namespaces).
    let reqs = assert_one_run_reads(&s);
    assert_eq!(
        reqs.iter()
            .filter(|r| r.contains("/deployments") || r.contains("/namespaces?"))
            .collect::<Vec<_>>()
            .len(),
        2,
        "{reqs:?}"
    );
    assert_eq!(reqs.len(), 2 + 8 + 2, "{reqs:?}");

    // Text, SARIF and GitHub name the object instead of a file line.
    let sarif = dir.path().join("lint.sarif");
    let gh = dir.path().join("gh.txt");
    let o = run(
        &kc,
        &[
            "lint",
            "--cluster",
            "-o",
            "text",
            "-o",
            &format!("sarif={}", sarif.display()),
            "-o",
            &format!("github={}", gh.display()),
        ],
    );
    assert!(o.code == 0 || o.code == 1, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("info[dead-policy]: pp/shop/ghost selects none of the templates")
            && o.stdout
                .contains(" --> pp/shop/ghost\n  = field: spec.resourceSelectors\n"),
        "{}",
        o.stdout
    );
    assert!(!o.stdout.contains("pp/shop/ghost:0"));
    let sarif: J = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let r = results
        .iter()
        .find(|r| r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "pp/shop/ghost")
        .expect("a SARIF result on pp/shop/ghost");
    assert!(r["locations"][0].get("physicalLocation").is_none());
    let gh = std::fs::read_to_string(&gh).unwrap();
    let line = gh
        .lines()
        .find(|l| l.contains("pp/shop/ghost"))
        .expect("an annotation naming pp/shop/ghost");
    assert!(
        !line.contains("file=") && line.contains("::pp/shop/ghost: "),
        "{line}"
    );
    assert_read_only(&s);
}

#[test]
fn forbidden_kind_degrades_with_a_note() {
    let s = seeded();
    s.shared
        .faults
        .forbidden_plurals
        .lock()
        .unwrap()
        .push("works".into());
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let o = run(&kc, &["explain", "deploy/web", "-o", "json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["current"]["name"], "web");
    assert_eq!(v["chain"]["binding"]["name"], "web-deployment");
    assert_eq!(v["chain"]["works"], serde_json::json!([]));
    let notes = v["chain"]["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    let note = notes[0].as_str().unwrap();
    assert!(
        note.starts_with(
            "works.work.karmada.io in all namespaces not readable with these credentials"
        ),
        "{note}"
    );
    assert!(
        o.stderr.contains("note: works.work.karmada.io"),
        "{}",
        o.stderr
    );
    // Without the Works nothing is claimed about them: no missing-work diagnosis.
    assert!(!diagnoses(&v).iter().any(|(c, _)| c == "missing-work"));

    // lint --cluster with the CPPs forbidden: the rest is linted, the note says what is missing.
    s.shared
        .faults
        .forbidden_plurals
        .lock()
        .unwrap()
        .push("clusterpropagationpolicies".into());
    let o = run(
        &kc,
        &["lint", "--cluster", "-o", "json", "--fail-on", "none"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains(
        "note: clusterpropagationpolicies.policy.karmada.io not readable with these credentials"
    ), "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["file"] != "cpp/platform"));
    assert_eq!(v["summary"]["policies"], 4);

    // A slow server: --request-timeout ends each request; the read fails with exit 3.
    s.shared
        .faults
        .slow_all_ms
        .store(5000, std::sync::atomic::Ordering::SeqCst);
    let start = std::time::Instant::now();
    let o = run(
        &kc,
        &["explain", "deploy/web", "--request-timeout", "300ms"],
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    assert!(
        o.stderr.starts_with("error: ") && o.stderr.contains("timed out"),
        "{}",
        o.stderr
    );
    s.shared
        .faults
        .slow_all_ms
        .store(0, std::sync::atomic::Ordering::SeqCst);

    // A server failure is not degraded: exit 3. Every request fails: the handlers of the slow
    // run above may still be sleeping, and one of them waking could take a single fault.
    s.shared
        .faults
        .errors_500
        .store(u32::MAX, std::sync::atomic::Ordering::SeqCst);
    let o = run(&kc, &["explain", "deploy/web"]);
    s.shared
        .faults
        .errors_500
        .store(0, std::sync::atomic::Ordering::SeqCst);
    assert_eq!(o.code, 3, "{}", o.stderr);
}

/// `lint --cluster` evaluates placements against the control plane's Cluster objects (their
/// taints, labels and API enablements), not only their names.
#[test]
fn lint_cluster_runs_the_placement_filters_on_the_live_clusters() {
    let s = TestServer::start();
    s.insert(serde_json::json!({
        "apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster",
        "metadata": {"name": "gpu1", "labels": {"env": "prod"}},
        "spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]},
        "status": {"apiEnablements": [{"groupVersion": "apps/v1",
            "resources": [{"name": "deployments", "kind": "Deployment"}]}]}
    }));
    s.insert(serde_json::json!({
        "apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "placement": {"clusterAffinity": {"clusterNames": ["gpu1"]}}}
    }));
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let o = run(
        &kc,
        &["lint", "--cluster", "-o", "json", "--fail-on", "none"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).unwrap();
    let fit = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "no-cluster-fits")
        .unwrap_or_else(|| panic!("no-cluster-fits: {}", o.stdout));
    assert_eq!(fit["file"], "pp/default/web");
    assert!(
        fit["message"]
            .as_str()
            .unwrap()
            .contains("gpu1 had untolerated taint {dedicated=gpu:NoSchedule} (TaintToleration)"),
        "{fit}"
    );
}

/// A ConfigMap the dependencies distributor bound along with the Deployment that uses it: live,
/// explain reads who requires it from its binding's `spec.requiredBy`, as it names the
/// workloads from files, and does not say it waits for a policy.
#[test]
fn explain_live_names_the_workloads_that_require_a_dependency() {
    let s = TestServer::seeded_from(&testdata("dependencies.yaml"));
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let o = run(
        &kc,
        &["explain", "cm/web-config", "-n", "shop", "-o", "json"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: J = serde_json::from_str(&o.stdout).expect("json");
    assert_eq!(
        v["requiredBy"],
        serde_json::json!([{
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web"},
            "policy": {"kind": "PropagationPolicy", "namespace": "shop", "name": "web"}
        }])
    );
    assert!(
        !v["notes"].to_string().contains("waits until one does"),
        "{}",
        v["notes"]
    );
    let o = run(&kc, &["explain", "cm/web-config", "-n", "shop"]);
    assert!(
        o.stdout.contains("Propagated as a dependency (propagateDeps) of:\n  Deployment shop/web  (pp/shop/web sets propagateDeps"),
        "{}",
        o.stdout
    );
    assert_read_only(&s);
}

/// A ConfigMap the dependencies distributor attached to a Deployment bound to two clusters: its
/// binding has no clusters of its own (`buildAttachedBinding` sets only `spec.requiredBy`), and
/// the binding controller dispatches it to the clusters of the bindings that require it
/// (`mergeTargetClusters`, pkg/controllers/binding/common.go). Live explain lists those.
#[test]
fn explain_live_dispatches_a_dependency_where_its_requirers_are_bound() {
    let s = TestServer::seeded_from(&testdata("dependencies-attached.yaml"));
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let o = run(&kc, &["explain", "cm/web-config", "-n", "shop"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("  binding: ResourceBinding shop/web-config-configmap\n    clusters:   none of its own (a dependency: dispatched with the bindings that require it)\n    required by shop/web-deployment: member1, member2\n"),
        "{}",
        o.stdout
    );
    assert!(!o.stdout.contains("not scheduled"), "{}", o.stdout);
    // The binding controller creates a Work on each of them (none is seeded here).
    for cluster in ["member1", "member2"] {
        assert!(
            o.stdout.contains(&format!(
                "  info {cluster} is a target of the binding but has no Work"
            )),
            "{}",
            o.stdout
        );
    }
    for cluster in ["member1", "member2"] {
        assert!(
            o.stdout.contains(&format!("\noverrides for {cluster}:\n")),
            "{}",
            o.stdout
        );
    }
    let o = run(
        &kc,
        &["explain", "cm/web-config", "-n", "shop", "-o", "json"],
    );
    let v: J = serde_json::from_str(&o.stdout).expect("json");
    assert_eq!(
        v["chain"]["binding"]["requiredBy"],
        serde_json::json!([{"namespace": "shop", "name": "web-deployment", "addsClusters": ["member1", "member2"]}])
    );
    assert_eq!(v["chain"]["binding"]["clusters"], serde_json::json!([]));
    let targets: Vec<&str> = v["overrides"]
        .as_array()
        .expect("overrides")
        .iter()
        .map(|o| o["cluster"].as_str().unwrap())
        .collect();
    assert_eq!(targets, ["member1", "member2"]);
    assert_read_only(&s);
}
