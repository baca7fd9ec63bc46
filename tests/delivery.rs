//! `explain`'s placement and overrides sections (issues 21, 22) through the real binary: file
//! mode snapshots (text and JSON) on `testdata/delivery`, `--cluster`, and the live form against
//! the in-process test API server with Clusters (taints, labels, apiEnablements), a binding and
//! Works with conditions.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value as J};
use support::TestServer;

mod snapshot_file;
use snapshot_file::assert_snapshot;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn testdata(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/delivery")
        .join(p)
        .display()
        .to_string()
}

fn run(args: &[&str], kubeconfig: Option<&Path>) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env("NO_COLOR", "1").env_remove("KUBECONFIG");
    if let Some(kc) = kubeconfig {
        cmd.arg("--kubeconfig").arg(kc);
    }
    let out = cmd.output().expect("run binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `explain deploy/web -n default -f FILE... -o json`, which must succeed.
fn explain_web_json(files: &[&str]) -> J {
    let mut args = vec!["explain", "deploy/web", "-n", "default"];
    for f in files {
        args.extend(["-f", f]);
    }
    args.extend(["-o", "json"]);
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// The rule of each finding `lint -o json FILES` reports.
fn lint_rules(files: &[&str]) -> Vec<String> {
    let mut args = vec!["lint", "-o", "json"];
    args.extend(files);
    let (_, out, err) = run(&args, None);
    let lint: J = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str().map(str::to_string))
        .collect()
}

fn files_explain(extra: &[&str]) -> (i32, String, String) {
    let (fleet, apps) = (testdata("fleet.yaml"), testdata("apps.yaml"));
    let mut args = vec![
        "explain",
        "deploy/web",
        "-n",
        "apps",
        "-f",
        &fleet,
        "-f",
        &apps,
    ];
    args.extend_from_slice(extra);
    run(&args, None)
}

#[test]
fn explain_files_text_snapshot() {
    let (code, out, err) = files_explain(&[]);
    assert_eq!(code, 0, "{err}");
    assert_snapshot("explain-delivery.txt", &out);
}

#[test]
fn explain_files_json_snapshot_and_contract() {
    let (code, out, err) = files_explain(&["-o", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_snapshot("explain-delivery.json", &out);
    let v: J = serde_json::from_str(&out).unwrap();
    // The gpu term fits no cluster: the scheduler falls back to the prod term.
    assert_eq!(v["placement"]["term"], "prod");
    assert_eq!(v["placement"]["clusters"], json!(["member1", "member2"]));
    assert_eq!(
        v["placement"]["excluded"][0],
        json!({"cluster": "member3", "filter": "TaintToleration",
            "reason": "cluster(s) had untolerated taint {dedicated=gpu:NoSchedule}"})
    );
    let o = v["overrides"].as_array().unwrap();
    assert_eq!(o[0]["cluster"], "member1");
    assert_eq!(o[0]["manifest"], J::Null);
    assert_eq!(
        o[0]["error"],
        "error in remove for path: '/spec/paused': unable to remove nonexistent key: paused: missing value"
    );
    assert_eq!(o[1]["cluster"], "member2");
    let names: Vec<&str> = o[1]["policies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["all-deployments", "web-member2"]);
}

/// `explain deployment/web --cluster member2 -o json` gives the manifest member2 receives.
#[test]
fn explain_cluster_flag_gives_that_clusters_manifest() {
    let (code, out, err) = files_explain(&["--cluster", "member2", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    let o = v["overrides"].as_array().unwrap();
    assert_eq!(o.len(), 1);
    let m = &o[0]["manifest"];
    assert_eq!(m["spec"]["replicas"], 5);
    assert_eq!(
        m["metadata"]["labels"]["tier"], "edge",
        "the OP applies after the COP"
    );
    assert_eq!(
        m["spec"]["template"]["spec"]["containers"][0]["image"],
        "mirror.example.com/nginx:1.19"
    );
    assert_eq!(
        o[0]["policies"][1],
        json!({"kind": "OverridePolicy", "namespace": "apps", "name": "web-member2",
            "rules": [{"index": 0, "changed": true}]})
    );
}

fn seeded_live() -> TestServer {
    let s = TestServer::start();
    for file in ["fleet.yaml", "apps.yaml"] {
        let text = std::fs::read_to_string(testdata(file)).unwrap();
        let loaded = karmada_policy::source::load(karmada_policy::source::Source::new(file, text));
        for d in &loaded.documents {
            let mut obj = d.root.to_json();
            if obj["kind"] == "PropagationPolicy" {
                obj["metadata"]["labels"] =
                    json!({"propagationpolicy.karmada.io/permanent-id": "id-web"});
            }
            if obj["kind"] == "Deployment" {
                obj["metadata"]["labels"]["propagationpolicy.karmada.io/permanent-id"] =
                    json!("id-web");
                obj["metadata"]["annotations"] = json!({
                    "propagationpolicy.karmada.io/namespace": "apps",
                    "propagationpolicy.karmada.io/name": "web"});
            }
            s.insert(obj);
        }
    }
    let mut rb = support::rb("apps", "web-deployment", "id-web", &["member1", "member2"]);
    rb["metadata"]["labels"]["resourcebinding.karmada.io/permanent-id"] = json!("rb-web");
    rb["spec"]["resource"]["name"] = json!("web");
    rb["status"] = json!({"schedulerObservedAffinityName": "prod"});
    s.insert(rb);
    for (cluster, status) in [("member1", "True"), ("member2", "False")] {
        let mut w = support::work(cluster, "web-deployment", "rb-web", "True", "Dispatching");
        w["status"]["conditions"].as_array_mut().unwrap().push(
            json!({"type": "Applied", "status": status, "reason": "AppliedSuccessful",
                "message": "", "lastTransitionTime": "2026-11-29T00:00:00Z"}),
        );
        s.insert(w);
    }
    s
}

/// Live: Clusters with taints, labels and apiEnablements; the binding's clusters are the
/// override targets; the Works' conditions are in the chain.
#[test]
fn explain_live_has_placement_and_overrides() {
    let s = seeded_live();
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let (code, out, err) = run(
        &["explain", "deploy/web", "-n", "apps", "-o", "json"],
        Some(&kc),
    );
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    assert_eq!(v["placement"]["term"], "prod", "observed term first");
    assert_eq!(v["placement"]["clusters"], json!(["member1", "member2"]));
    let excluded: Vec<(&str, &str)> = v["placement"]["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["cluster"].as_str().unwrap(),
                e["filter"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        excluded,
        [
            ("member3", "TaintToleration"),
            ("member4", "ClusterAffinity")
        ]
    );
    let o = v["overrides"].as_array().unwrap();
    let clusters: Vec<&str> = o.iter().map(|c| c["cluster"].as_str().unwrap()).collect();
    assert_eq!(clusters, ["member1", "member2"], "the binding's clusters");
    assert_eq!(o[1]["manifest"]["spec"]["replicas"], 5);
    let works = v["chain"]["works"].as_array().unwrap();
    assert_eq!(works.len(), 2);
    assert_eq!(works[1]["applied"]["status"], "False");

    let (code, text, err) = run(&["explain", "deploy/web", "-n", "apps"], Some(&kc));
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("placement (clusterAffinities term \"prod\"):"),
        "{text}"
    );
    assert!(text.contains("excluded member3: TaintToleration cluster(s) had untolerated taint {dedicated=gpu:NoSchedule}"), "{text}");
    assert!(
        text.contains("+        image: mirror.example.com/nginx:1.19"),
        "{text}"
    );
}

/// `explain cpp/NAME` on the gitops example: each selected template's standing and counts.
#[test]
fn explain_policy_on_the_gitops_example() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples/gitops");
    let dir = dir.display().to_string();
    let (code, text, err) = run(&["explain", "cpp/platform-default", "-f", &dir], None);
    assert_eq!(code, 0, "{err}");
    assert_snapshot("explain-policy-gitops.txt", &text);
    let (code, out, err) = run(
        &["explain", "cpp/platform-default", "-f", &dir, "-o", "json"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert_snapshot("explain-policy-gitops.json", &out);
    let v: J = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["selected"], 2);
    assert_eq!(v["templates"][0]["status"], "held-by-other");
    assert_eq!(v["templates"][0]["holder"]["name"], "nginx-canary");
    assert_eq!(v["templates"][1]["status"], "will-be-claimed");
    assert_eq!(v["templates"][1]["when"], "now");
}

/// `explain pp/NAME` on the same example: the PP the CPP loses to, from the files.
#[test]
fn explain_pp_on_the_gitops_example() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples/gitops");
    let dir = dir.display().to_string();
    let args = ["explain", "pp/nginx-canary", "-n", "payments", "-f", &dir];
    let (code, text, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    assert_snapshot("explain-pp-gitops.txt", &text);
    let (code, out, err) = run(&[&args[..], &["-o", "json"]].concat(), None);
    assert_eq!(code, 0, "{err}");
    assert_snapshot("explain-pp-gitops.json", &out);
    let v: J = serde_json::from_str(&out).unwrap();
    assert_eq!(v["templates"][0]["status"], "will-be-claimed");
    assert!(v.get("binding").is_none() && v["templates"][0].get("works").is_none());
}

/// A policy selecting nothing says why; an unknown feature gate is an error naming the known.
#[test]
fn dead_policy_and_unknown_gate() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("p.yaml");
    std::fs::write(&f, "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: ngnix}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\n").unwrap();
    let f = f.display().to_string();
    let (code, text, err) = run(&["explain", "pp/p", "-f", &f], None);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("selects nothing: templates of its kinds (apps/v1 Deployment) exist in namespace default, but no selector matches their names or labels"), "{text}");
    let (code, _, err) = run(
        &[
            "explain",
            "deploy/nginx",
            "-f",
            &f,
            "--feature-gates",
            "Failovr=true",
        ],
        None,
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("unrecognized feature gate: Failovr (known in this release:"),
        "{err}"
    );
    assert!(err.contains("Failover,"), "{err}");
}

/// preempt-check: a Lazy new owner defers the move; a deleted policy leaves its objects on the
/// member clusters (orphaned) when no other policy claims them, and its binding to the policy
/// that claims them next otherwise (claim-and-preemption.md §6.1).
#[test]
fn preempt_check_notes_lazy_and_orphaned_objects() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.yaml");
    std::fs::write(&f, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\n  labels: {propagationpolicy.karmada.io/permanent-id: id-a}\n  annotations: {propagationpolicy.karmada.io/namespace: default, propagationpolicy.karmada.io/name: a}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: a\n  namespace: default\n  labels: {propagationpolicy.karmada.io/permanent-id: id-a}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: b, namespace: default}\nspec:\n  activationPreference: Lazy\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n").unwrap();
    let f = f.display().to_string();
    let (code, text, err) = run(
        &["preempt-check", "-f", &f, "--delete", "pp/default/a"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("Notes:"), "{text}");
    assert!(text.contains("deployment/default/nginx: pp/default/b is activationPreference: Lazy, so its binding follows only on the template's next update"), "{text}");
    assert!(!text.contains("releases what it held"), "{text}");
    // Without pp/default/b nothing claims nginx next: its binding stays without a policy, as
    // plan's policy-removed-holding-templates says.
    let text_a = std::fs::read_to_string(&f).unwrap();
    let only_a = text_a
        .split("\n---\n")
        .take(2)
        .collect::<Vec<_>>()
        .join("\n---\n");
    std::fs::write(&f, only_a).unwrap();
    let (code, text, err) = run(
        &["preempt-check", "-f", &f, "--delete", "pp/default/a"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("deleting pp/default/a releases what it held (deployment/default/nginx): each keeps its binding without a policy, and the member clusters keep their copies, no longer updated; when the template is deleted later, those copies are deleted with it (no preserveResourcesOnDeletion)"), "{text}");
    // A policy that holds none of the templates read is not said to release what it held.
    std::fs::write(&f, "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: a, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n").unwrap();
    let (code, text, err) = run(
        &["preempt-check", "-f", &f, "--delete", "pp/default/a"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(!text.contains("releases what it held"), "{text}");
    assert!(text.contains("deleting pp/default/a: it holds none of the templates read; any it holds elsewhere keeps its binding without a policy, and the member clusters keep their copies, no longer updated"), "{text}");
}

/// `preempt-check` says what the member clusters receive before and after a move: the old
/// owner's cluster loses the template, the new owner's gets it with that cluster's overrides.
#[test]
fn preempt_check_notes_what_member_clusters_receive_after_a_move() {
    let (state, new) = (testdata("move-state.yaml"), testdata("move-new.yaml"));
    let args = [
        "preempt-check",
        "-f",
        &state,
        "--delete",
        "pp/default/old",
        "--apply",
        &new,
    ];
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("member1 stops receiving it (it had the template without overrides); member2 starts receiving it with overrides op/default/member2-registry"),
        "{out}"
    );
    assert_snapshot("preempt-check-delivery.txt", &out);
    let mut json_args = args.to_vec();
    json_args.extend(["-o", "json"]);
    let (code, out, err) = run(&json_args, None);
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    let clusters = &v["resources"][0]["delivery"]["clusters"];
    assert_eq!(clusters[0]["cluster"], "member1");
    assert_eq!(clusters[0]["after"], J::Null);
    assert_eq!(clusters[1]["before"], J::Null);
    assert_eq!(
        clusters[1]["after"]["manifest"]["spec"]["template"]["spec"]["containers"][0]["image"],
        "mirror.example.com/nginx:1.25"
    );
    assert_snapshot("preempt-check-delivery.json", &out);
}

/// A move to an owner whose `schedulerName` no karmada-scheduler serves: the template leaves
/// member1 and reaches no cluster, as plan and explain say (karmada-scheduler takes only the
/// bindings of its own name); once the repository's settings serve that name, member2 gets it.
#[test]
fn preempt_check_a_new_owner_no_scheduler_serves_delivers_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.yaml");
    let policy = std::fs::read_to_string(testdata("move-new.yaml")).unwrap();
    let policy = policy.replace("spec:\n", "spec:\n  schedulerName: karmada-scheduler\n");
    assert!(policy.contains("schedulerName"), "{policy}");
    std::fs::write(&new, policy).unwrap();
    let state = testdata("move-state.yaml");
    let new = new.display().to_string();
    let args = [
        "preempt-check",
        "-f",
        &state,
        "--delete",
        "pp/default/old",
        "--apply",
        &new,
    ];
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("deployment/default/web: pp/default/new names schedulerName `karmada-scheduler`, which no karmada-scheduler of this control plane serves, so its binding is never scheduled and reaches no cluster"),
        "{out}"
    );
    assert!(
        out.contains("member1 stops receiving it (it had the template without overrides)"),
        "{out}"
    );
    assert!(!out.contains("member2 starts receiving it"), "{out}");
    // Served by the repository's settings, the move delivers to member2.
    let config = dir.path().join("config.yaml");
    std::fs::write(&config, "schedulers: [karmada-scheduler]\n").unwrap();
    let config = config.display().to_string();
    let (code, out, err) = run(&[&args[..], &["--config", &config]].concat(), None);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("never scheduled"), "{out}");
    assert!(out.contains("member2 starts receiving it"), "{out}");
}

/// A move to an owner whose placement selects its clusters (a fieldSelector), without Cluster
/// objects: which clusters receive the template cannot be said, and the note says so rather
/// than nothing (lreimer/hands-on-karmada).
#[test]
fn preempt_check_says_when_member_clusters_are_not_evaluated() {
    let f = testdata("move-by-field-selector.yaml");
    let args = ["preempt-check", "-f", &f, "--delete", "pp/default/a-names"];
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("deployment/default/nginx: moving from pp/default/a-names to pp/default/b-region: what member clusters receive is not evaluated: pp/default/b-region's placement selects its clusters, or picks among those it names, by what the Cluster objects say, and none are known"),
        "{out}"
    );
    let (_, out, _) = run(&[&args[..], &["-o", "json"]].concat(), None);
    let v: J = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["resources"][0]["delivery"],
        json!({"clusters": [], "unevaluated": {"kind": "PropagationPolicy", "namespace": "default", "name": "b-region"}})
    );
}

/// Live `preempt-check` says the same about the member clusters as with the files: the
/// templates, override policies and Cluster objects come from the control plane.
#[test]
fn live_preempt_check_notes_what_member_clusters_receive() {
    let s = TestServer::start();
    let text = std::fs::read_to_string(testdata("move-state.yaml")).unwrap();
    let loaded = karmada_policy::source::load(karmada_policy::source::Source::new("s", text));
    for d in &loaded.documents {
        let mut obj = d.root.to_json();
        if obj["kind"] == "PropagationPolicy" {
            obj["metadata"]["labels"] =
                json!({"propagationpolicy.karmada.io/permanent-id": "id-old"});
        }
        if obj["kind"] == "Deployment" {
            obj["metadata"]["labels"]["propagationpolicy.karmada.io/permanent-id"] =
                json!("id-old");
            obj["metadata"]["annotations"] = json!({
                "propagationpolicy.karmada.io/namespace": "default",
                "propagationpolicy.karmada.io/name": "old"});
        }
        s.insert(obj);
    }
    for name in ["member1", "member2"] {
        let mut c = support::cluster(name, true);
        c["status"]["apiEnablements"] = json!([{"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]}]);
        s.insert(c);
    }
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let new = testdata("move-new.yaml");
    let args = [
        "preempt-check",
        "--delete",
        "pp/default/old",
        "--apply",
        &new,
        "-n",
        "default",
    ];
    let (code, out, err) = run(&args, Some(&kc));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("member1 stops receiving it (it had the template without overrides); member2 starts receiving it with overrides op/default/member2-registry"),
        "{out}"
    );
    let (code, out, err) = run(&[&args[..], &["-o", "json"]].concat(), Some(&kc));
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    let clusters = &v["resources"][0]["delivery"]["clusters"];
    assert_eq!(
        clusters[1]["after"]["manifest"]["spec"]["template"]["spec"]["containers"][0]["image"],
        "mirror.example.com/nginx:1.25"
    );
    assert!(s.requests().iter().all(|r| r.starts_with("GET ")));
}

/// Two documents of one OverridePolicy (a copy per directory, as real repositories keep them):
/// applied in turn, the later replaced the earlier, so only the later one's rules reach the
/// cluster's manifest, and `lint` reports no conflict between the policy and itself.
#[test]
fn of_two_documents_of_one_override_policy_only_the_later_applies() {
    let dir = tempfile::tempdir().unwrap();
    let op = |label: &str| {
        format!(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {{name: tune, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  overrideRules:\n  - overriders:\n      labelsOverrider: [{{operator: add, value: {{{label}: copy}}}}]\n      plaintext: [{{path: /spec/replicas, operator: replace, value: 3}}]\n"
        )
    };
    let first = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: default}}\nspec:\n  replicas: 1\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: web, image: nginx}}]}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {{clusterAffinity: {{clusterNames: [m1]}}}}\n---\n{}",
        op("stale")
    );
    let (a, b) = (dir.path().join("a.yaml"), dir.path().join("b.yaml"));
    std::fs::write(&a, first).unwrap();
    std::fs::write(&b, op("current")).unwrap();
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let v = explain_web_json(&[&a, &b]);
    let m1 = &v["overrides"][0];
    assert_eq!(m1["cluster"], "m1");
    assert_eq!(m1["policies"].as_array().unwrap().len(), 1, "{m1}");
    assert_eq!(
        m1["manifest"]["metadata"]["labels"],
        json!({"current": "copy"})
    );
    // Both documents write /spec/replicas; one policy cannot overwrite itself.
    let rules = lint_rules(&[&a, &b]);
    assert!(rules.iter().any(|r| r == "duplicate-identity"), "{rules:?}");
    assert!(
        !rules.iter().any(|r| r == "override-order-decides"),
        "{rules:?}"
    );
}

/// Without Cluster objects (a repository seldom holds them) the placement cannot be evaluated:
/// `explain` says so, from the template's side and the policy's, instead of leaving the section
/// out silently; with them the placement section stands in its place.
#[test]
fn explain_without_cluster_objects_says_the_placement_was_not_evaluated() {
    let apps = testdata("apps.yaml");
    let expected = "not evaluated: no Cluster objects are known (add the control plane's Cluster objects with -f, or explain against it with --context)";
    for target in ["deploy/web", "pp/web"] {
        let (code, out, err) = run(&["explain", target, "-n", "apps", "-f", &apps], None);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("\nplacement: {expected}\n")), "{out}");
        let (code, out, err) = run(
            &["explain", target, "-n", "apps", "-f", &apps, "-o", "json"],
            None,
        );
        assert_eq!(code, 0, "{err}");
        let v: J = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["placementUnknown"],
            json!({"message": expected, "namedClusters": []}),
            "{target}"
        );
        assert!(v.get("placement").is_none(), "{target}: {out}");
    }
    let (code, out, err) = files_explain(&["-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    assert!(v.get("placementUnknown").is_none(), "{out}");
    assert!(v["placement"].is_object(), "{out}");
}

/// Without Cluster objects a placement that names its clusters but picks among them (here one
/// of three, `spreadConstraints` maxGroups 1) is not evaluated: the per-cluster sections list
/// the clusters it names, each heading saying the placement may not select it, before the
/// "not evaluated" line says why.
#[test]
fn explain_lists_named_clusters_as_candidates_when_the_placement_is_not_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("web.yaml");
    std::fs::write(
        &file,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 4\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement:\n    clusterAffinity: {clusterNames: [m1, m2, m3]}\n    spreadConstraints: [{spreadByField: cluster, maxGroups: 1, minGroups: 1}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: img, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  overrideRules:\n  - targetCluster: {clusterNames: [m2]}\n    overriders: {imageOverrider: [{component: Registry, operator: replace, value: mirror.example.com}]}\n",
    )
    .unwrap();
    let file = file.display().to_string();
    let (code, out, err) = run(&["explain", "deploy/web", "-f", &file], None);
    assert_eq!(code, 0, "{err}");
    let section = |heading: &str| {
        let start = out
            .find(heading)
            .unwrap_or_else(|| panic!("{heading}: {out}"));
        out[start..].split("\n\n").next().unwrap().to_string()
    };
    assert_eq!(
        section("Dispatch per cluster"),
        "Dispatch per cluster the placement may select (which of them it selects is not known; see placement):\n  m1  dispatching\n  m2  dispatching\n  m3  dispatching"
    );
    assert!(
        out.contains("\nplacement: not evaluated: no Cluster objects are known (add the control plane's Cluster objects with -f, or explain against it with --context); the placement names m1, m2, m3\n"),
        "{out}"
    );
    for cluster in ["m1", "m2", "m3"] {
        assert!(
            out.contains(&format!(
                "\noverrides for {cluster} (if the placement selects it):\n"
            )),
            "{out}"
        );
    }
    assert!(
        out.contains("+        image: mirror.example.com/nginx"),
        "{out}"
    );
    // With the clusters' objects the placement is evaluated, but which one the spread
    // constraint picks (by score, then available replicas, which they do not declare) is not
    // known: still candidates.
    let clusters = dir.path().join("clusters.yaml");
    let cluster = |name: &str| {
        format!("apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {{name: {name}}}\nspec: {{syncMode: Push}}\nstatus:\n  conditions: [{{type: Ready, status: \"True\"}}]\n")
    };
    std::fs::write(&clusters, ["m1", "m2", "m3"].map(cluster).join("---\n")).unwrap();
    let clusters = clusters.display().to_string();
    let (code, out, err) = run(
        &["explain", "deploy/web", "-f", &file, "-f", &clusters],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\nDispatch per cluster the placement may select ("),
        "{out}"
    );
    assert!(
        out.contains("  spread constraints select 1 of them by score, then available replicas\n"),
        "{out}"
    );
    assert!(
        out.contains("\noverrides for m3 (if the placement selects it):\n"),
        "{out}"
    );
    assert!(!out.contains("placement: not evaluated"), "{out}");
    // Without the spread constraint, names decide: the headings are plain, with or without
    // the Cluster objects (without them, the named clusters are taken to exist).
    let names_only = std::fs::read_to_string(&file).unwrap().replace(
        "    spreadConstraints: [{spreadByField: cluster, maxGroups: 1, minGroups: 1}]\n",
        "",
    );
    std::fs::write(&file, names_only).unwrap();
    for with_clusters in [true, false] {
        let mut args = vec!["explain", "deploy/web", "-f", &file];
        if with_clusters {
            args.extend(["-f", &clusters]);
        }
        let (code, out, err) = run(&args, None);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("\nDispatch per cluster:\n"), "{out}");
        assert!(!out.contains("if the placement selects it"), "{out}");
    }
    // Divided by capacity the Cluster objects do not declare (Aggregated): a cluster left
    // without replicas is dropped (removeZeroReplicasCluster), so each is a candidate only.
    let aggregated = std::fs::read_to_string(&file).unwrap().replace(
        "    clusterAffinity: {clusterNames: [m1, m2, m3]}\n",
        "    clusterAffinity: {clusterNames: [m1, m2, m3]}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}\n",
    );
    std::fs::write(&file, aggregated).unwrap();
    let (code, out, err) = run(
        &["explain", "deploy/web", "-f", &file, "-f", &clusters],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  replicas unknown: available capacity decides"),
        "{out}"
    );
    assert!(
        out.contains("\nDispatch per cluster the placement may select ("),
        "{out}"
    );
    assert!(
        out.contains("\noverrides for m2 (if the placement selects it):\n"),
        "{out}"
    );
    // Without Cluster objects, static weights that name only m1: m2 and m3 get weight 0 and
    // no replica, and are dropped (removeZeroReplicasCluster). The names alone decide that:
    // explain evaluates the division over clusters known by name, as plan does.
    let weighted = std::fs::read_to_string(&file).unwrap().replace(
        "    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}\n",
        "    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [m1]}, weight: 1}]}\n",
    );
    std::fs::write(&file, weighted).unwrap();
    let (code, out, err) = run(&["explain", "deploy/web", "-f", &file], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("\nDispatch per cluster:\n  m1  dispatching\n\n"),
        "{out}"
    );
    assert!(
        out.contains("\n    m1  4 replicas  (static weight 1 of 1)\n"),
        "{out}"
    );
    assert!(
        out.contains("  note: no Cluster objects are known: evaluated over clusters known by name only (the configuration's knownClusters, else those the placement names), whose names alone decide it (as plan does), each taken to serve every API\n"),
        "{out}"
    );
    assert!(!out.contains("overrides for m3"), "{out}");
    assert!(!out.contains("placement: not evaluated"), "{out}");
}

/// Without Cluster objects a placement given by a field selector is not evaluated: preempt-check
/// says no cluster stops or starts receiving the template (lreimer/hands-on-karmada's region
/// policy), as explain says "placement: not evaluated".
#[test]
fn preempt_check_claims_no_delivery_change_for_a_placement_it_cannot_evaluate() {
    let (code, text, err) = run(
        &[
            "preempt-check",
            "-f",
            "testdata/preempt-check/unknown-placement.yaml",
            "--delete",
            "pp/default/a-by-name",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("deployment/default/nginx: pp/default/a-by-name -> pp/default/b-by-region"),
        "{text}"
    );
    assert!(!text.contains("receiving"), "{text}");
}

/// propagateDeps: a ConfigMap no policy selects is carried to the clusters of a workload whose
/// policy sets it (Karmada's dependencies distributor, `buildAttachedBinding`), not left waiting;
/// one whose workload's policy does not set it, or that nothing references, waits; with the
/// PropagateDeps gate off nothing carries it.
#[test]
fn explain_names_the_workloads_that_carry_a_dependency_along() {
    let deps = testdata("dependencies.yaml");
    let explain = |name: &str, extra: &[&str]| {
        let mut args = vec!["explain", name, "-n", "demo", "-f", &deps, "-o", "json"];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args, None);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<J>(&out).expect("json")
    };
    let carried = explain("cm/app-runtime", &[]);
    assert_eq!(
        carried["requiredBy"],
        json!([{
            "resource": {"apiVersion": "batch/v1", "kind": "Job", "namespace": "demo", "name": "app-analyzer"},
            "policy": {"kind": "PropagationPolicy", "namespace": "demo", "name": "analyzer-to-c"}
        }])
    );
    assert_eq!(carried["eventual"], J::Null, "no policy claims it");
    assert_eq!(carried["notes"], json!([]), "it does not wait");
    // The attached binding's clusters are the Job's: overridden there.
    let endpoints = |e: &J| -> Vec<(String, String)> {
        e["overrides"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                let v = &o["manifest"]["data"]["S3_ENDPOINT_URL"];
                (
                    o["cluster"].as_str().unwrap().to_string(),
                    v.as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(
        endpoints(&carried),
        [("c".to_string(), "http://rgw.cluster-c".to_string())]
    );
    // A dependency its own policy claims goes to its clusters and to the Job's.
    let shared = explain("cm/shared", &[]);
    assert_eq!(shared["eventual"]["name"], "shared");
    assert_eq!(shared["requiredBy"][0]["resource"]["name"], "app-analyzer");
    assert_eq!(
        endpoints(&shared),
        [
            ("a".to_string(), "http://rgw.cluster-a".to_string()),
            ("c".to_string(), "http://rgw.cluster-c".to_string())
        ]
    );
    // Its binding's Works go to both, dispatched under its own policy's suspension
    // (`ensureWork` over `mergeTargetClusters`): explain lists both, as its overrides do.
    assert_eq!(
        shared["suspension"],
        json!([
            {"cluster": "a", "suspended": false},
            {"cluster": "c", "suspended": false}
        ])
    );
    let waits = json!(["no policy matches: the template waits until one does"]);
    for name in ["cm/web-config", "cm/lonely"] {
        let e = explain(name, &[]);
        assert_eq!(e["requiredBy"], json!([]), "{name}");
        assert_eq!(e["notes"], waits, "{name}");
    }
    let gate_off = explain(
        "cm/app-runtime",
        &["--feature-gates", "PropagateDeps=false"],
    );
    assert_eq!(gate_off["requiredBy"], json!([]));
    assert_eq!(gate_off["notes"], waits);
    // The text says so too.
    let (code, out, err) = run(
        &["explain", "cm/app-runtime", "-n", "demo", "-f", &deps],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Propagated as a dependency (propagateDeps) of:\n  Job demo/app-analyzer  (pp/demo/analyzer-to-c sets propagateDeps: its clusters receive this template too)\n"),
        "{out}"
    );
}

/// The workloads Karmada's bundled third-party interpreters read (OpenKruise, Kubeflow) name
/// their dependencies as a Deployment does: explain and lint agree on what they carry along.
#[test]
fn third_party_workloads_carry_their_dependencies_in_explain_and_lint() {
    let deps = testdata("third-party-dependencies.yaml");
    let (code, out, err) = run(
        &[
            "explain",
            "cm/web-config",
            "-n",
            "shop",
            "-f",
            &deps,
            "-o",
            "json",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let e: J = serde_json::from_str(&out).expect("json");
    assert_eq!(
        e["requiredBy"],
        json!([{
            "resource": {"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet", "namespace": "shop", "name": "web"},
            "policy": {"kind": "PropagationPolicy", "namespace": "shop", "name": "web"}
        }])
    );
    assert_eq!(e["notes"], json!([]), "carried along, it does not wait");
    let (code, out, err) = run(&["lint", "-o", "json", &deps], None);
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).expect("json");
    let found: Vec<(&str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "dependency-not-propagated");
    assert!(
        found[0]
            .1
            .contains("advancedcronjob/shop/report, which uses secret/shop/report-creds"),
        "{}",
        found[0].1
    );
}

/// A failing override patch on a field karmada-apiserver's defaulting fills (a Deployment's
/// `replicas`) may not fail on the stored template: `lint` does not report it, and `explain -f`
/// says the failure may not happen instead of promising that no Work is written. A path nothing
/// defaults fails in both.
#[test]
fn explain_and_lint_agree_on_a_failure_the_api_server_defaults_may_prevent() {
    let dir = tempfile::tempdir().unwrap();
    let repo = |path: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: default}}\nspec:\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: web, image: nginx}}]}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {{clusterAffinity: {{clusterNames: [m1]}}}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {{name: tune, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  overrideRules:\n  - overriders:\n      plaintext: [{{path: {path}, operator: replace, value: 3}}]\n"
        )
    };
    for (path, certain) in [
        ("/spec/replicas", false),
        ("/spec/template/spec/containers/0/args", true),
    ] {
        let file = dir.path().join("repo.yaml");
        std::fs::write(&file, repo(path)).unwrap();
        let file = file.display().to_string();
        let v = explain_web_json(&[&file]);
        let m1 = &v["overrides"][0];
        assert_eq!(m1["cluster"], "m1", "{m1}");
        assert!(m1["error"].as_str().unwrap().contains(path), "{m1}");
        assert_eq!(
            m1["failedRule"],
            json!({"kind": "OverridePolicy", "namespace": "default", "name": "tune", "rule": 0})
        );
        let (_, text, _) = run(
            &["explain", "deploy/web", "-n", "default", "-f", &file],
            None,
        );
        let rules = lint_rules(&[&file]);
        let fails = rules.iter().filter(|r| *r == "override-fails").count();
        if certain {
            assert!(m1.get("errorMayNotHappen").is_none(), "{m1}");
            assert!(text.contains("Karmada writes no Work for m1"), "{text}");
            assert_eq!(fails, 1, "{rules:?}");
        } else {
            assert_eq!(
                m1["errorMayNotHappen"],
                json!({"defaultedField": "/spec/replicas"})
            );
            assert!(
                text.contains("  may not happen: karmada-apiserver stores this kind with its defaults, which may set /spec/replicas (override-fails does not report it)\n"),
                "{text}"
            );
            assert!(!text.contains("Karmada writes no Work"), "{text}");
            assert_eq!(fails, 0, "{rules:?}");
        }
    }
}

/// Duplicated with `maxGroups: 2` over three Clusters that declare no capacity: which two the
/// scheduler picks is not known (available replicas order them), and the text says that two of
/// the feasible clusters are picked, as the JSON's `picks` does, rather than only listing three.
#[test]
fn explain_text_says_spread_constraints_pick_some_when_the_assignment_is_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let clusters = registered_clusters(&["member1", "member2", "member3"]);
    let repo = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: nginx, namespace: default}}\nspec:\n  replicas: 2\n  selector: {{matchLabels: {{app: nginx}}}}\n  template:\n    metadata: {{labels: {{app: nginx}}}}\n    spec: {{containers: [{{name: nginx, image: nginx}}]}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: nginx, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n    clusterAffinity: {{clusterNames: [member1, member2, member3]}}\n    spreadConstraints: [{{maxGroups: 2, minGroups: 2}}]\n    replicaScheduling: {{replicaSchedulingType: Duplicated}}\n{clusters}"
    );
    let file = dir.path().join("repo.yaml");
    std::fs::write(&file, repo).unwrap();
    let file = file.display().to_string();
    let (code, text, err) = run(
        &["explain", "deploy/nginx", "-n", "default", "-f", &file],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("  clusters: member1, member2, member3\n  spread constraints select 2 of them by score, then available replicas\n  replicas unknown: available capacity decides"),
        "{text}"
    );
    let (_, out, _) = run(
        &[
            "explain",
            "deploy/nginx",
            "-n",
            "default",
            "-f",
            &file,
            "-o",
            "json",
        ],
        None,
    );
    let v: J = serde_json::from_str(&out).unwrap();
    assert_eq!(v["placement"]["picks"], 2);
}

/// Karmada's example-override selects its clusters by name AND region label: without the
/// Cluster objects, the labels are unknown, and explain says the rule was not evaluated rather
/// than "no override policy applies" (with the Cluster object of region dc1, the rule applies).
#[test]
fn explain_says_which_override_rules_wait_on_cluster_labels_it_does_not_have() {
    let dir = tempfile::tempdir().unwrap();
    let files = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 1\n  template: {spec: {containers: [{name: web, image: nginx}]}}\n---\n\
apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [dc1-a, other]}}\n---\n\
apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: by-region, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  overrideRules:\n  - targetCluster: {clusterNames: [dc1-a], labelSelector: {matchLabels: {region: dc1}}}\n    overriders: {imageOverrider: [{component: Registry, operator: replace, value: dc1.registry.io}]}\n";
    let path = dir.path().join("web.yaml");
    std::fs::write(&path, files).unwrap();
    let path = path.display().to_string();
    let (code, out, err) = run(&["explain", "deploy/web", "-f", &path], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\noverrides for dc1-a:\n  not evaluated: OverridePolicy default/by-region rule 0 selects clusters by labels or fields, and the inputs have no Cluster object for dc1-a\n  manifest: the template as is, unless the rules not evaluated apply\n"), "{out}");
    // A cluster the rule does not name is not in doubt.
    assert!(
        out.contains("\noverrides for other:\n  no override policy applies\n"),
        "{out}"
    );
    let v = explain_web_json(&[&path]);
    let overrides = v["overrides"].as_array().unwrap_or_else(|| panic!("{v}"));
    assert_eq!(
        overrides[0]["unevaluated"],
        json!([{"kind": "OverridePolicy", "namespace": "default", "name": "by-region", "rule": 0}])
    );
    assert!(overrides[1].get("unevaluated").is_none());
}

/// A Namespace is copied to every member cluster by karmada-controller-manager's namespace
/// controller, whatever policy claims it (pkg/controllers/namespace/namespace_sync_controller.go):
/// explain says so rather than that an unclaimed one waits, and deleting the policy that claims
/// one leaves nothing orphaned. `kube-*`, `default` and a Namespace labelled
/// skip-auto-propagation are not copied.
#[test]
fn namespaces_reach_every_cluster_through_the_namespace_controller() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("all.yaml");
    std::fs::write(
        &f,
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: free}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: quiet\n  labels: {namespace.karmada.io/skip-auto-propagation: \"true\"}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: ns-member1}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: Namespace, name: shop}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n",
    )
    .unwrap();
    let f = f.display().to_string();
    let synced = "karmada-controller-manager's namespace controller copies this Namespace to every member cluster, whatever policy claims it or what its placement excludes (pkg/controllers/namespace); the label namespace.karmada.io/skip-auto-propagation: \"true\" keeps it off them";
    let (code, out, err) = run(&["explain", "ns/free", "-f", &f], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(synced), "{out}");
    assert!(!out.contains("waits until one does"), "{out}");
    let (code, out, err) = run(&["explain", "ns/shop", "-f", &f], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(synced), "{out}");
    // Labelled to stay off the member clusters: it waits for a policy like any template.
    let (code, out, err) = run(&["explain", "ns/quiet", "-f", &f], None);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains(synced), "{out}");
    assert!(out.contains("waits until one does"), "{out}");
    let (code, out, err) = run(
        &["preempt-check", "-f", &f, "--delete", "cpp/ns-member1"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("namespace/shop: cpp/ns-member1 -> unclaimed"),
        "{out}"
    );
    assert!(!out.contains("releases what it held"), "{out}");
}

/// A Deployment with 0 replicas and resource requests under a duplicated placement: the
/// requests make the scheduler assign its 0 replicas (`AssignReplicas`, common.go), every share
/// is 0 and dropped (`removeZeroReplicasCluster`), so no cluster receives it. The text says so,
/// not that the template has no resource requirements, and the JSON lists no assignment.
#[test]
fn explain_zero_replicas_with_requests_are_assigned_to_no_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let clusters = registered_clusters(&["m1", "m2"]);
    let repo = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: default}}\nspec:\n  replicas: 0\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      containers:\n      - name: c\n        image: nginx\n        resources:\n          requests:\n            cpu: 100m\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement:\n    clusterAffinity: {{clusterNames: [m1, m2]}}\n    replicaScheduling: {{replicaSchedulingType: Duplicated}}\n{clusters}"
    );
    let file = dir.path().join("repo.yaml");
    std::fs::write(&file, repo).unwrap();
    let file = file.display().to_string();
    let (code, text, err) = run(&["explain", "deploy/web", "-f", &file], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("  replicas (Duplicated):\n    none: the template has 0 replicas, which its resource requirements make the scheduler assign: every share is 0, spec.clusters stays empty\n"),
        "{text}"
    );
    assert!(!text.contains("no resource requirements"), "{text}");
    let (code, out, err) = run(&["explain", "deploy/web", "-f", &file, "-o", "json"], None);
    assert_eq!(code, 0, "{err}");
    let json: J = serde_json::from_str(&out).unwrap();
    assert_eq!(json["placement"]["assignment"], json!([]), "{json}");
}

/// One replica over two equal static weights: Webster's tie follows the template's uid
/// (`tieBreakerByUID`, pkg/util/helper/binding.go), which a manifest in files lacks, so either
/// cluster gets it. Both are listed under the heading that says the placement may select them,
/// and each cluster's overrides are shown as if selected; with a uid the tie is decided.
#[test]
fn explain_a_uid_tie_lists_both_clusters_as_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let deployment = |uid: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: default{uid}}}\nspec:\n  replicas: 1\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: c, image: nginx}}]}}\n")
    };
    let pp = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement:\n    clusterAffinity: {clusterNames: [m1, m2]}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [m1]}, weight: 1}, {targetCluster: {clusterNames: [m2]}, weight: 1}]}}\n";
    let file = dir.path().join("repo.yaml");
    std::fs::write(&file, format!("{}{pp}", deployment(""))).unwrap();
    let file = file.display().to_string();
    let (code, text, err) = run(&["explain", "deploy/web", "-f", &file], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("Dispatch per cluster the placement may select (which of them it selects is not known; see placement):\n  m1  dispatching\n  m2  dispatching\n"),
        "{text}"
    );
    assert!(
        text.contains("with the other uid parity m2 gets 1"),
        "{text}"
    );
    // A live object's uid decides the tie: one cluster, a plain heading.
    std::fs::write(
        &file,
        format!(
            "{}{pp}",
            deployment(", uid: 6a1f2c3e-0000-4000-8000-000000000001")
        ),
    )
    .unwrap();
    let (code, text, err) = run(&["explain", "deploy/web", "-f", &file], None);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("Dispatch per cluster:\n"), "{text}");
    assert!(!text.contains("uid parity"), "{text}");
}

/// A Job is a workload to the scheduler: its replicas are min(parallelism, completions) (the
/// default interpreter's `jobReplica`). Divided by available replicas among two named clusters,
/// without Cluster objects, which of them receive it is not decided by their names: explain
/// does not evaluate it (it said "declare no status.resourceSummary" of clusters it had made up
/// from the names).
#[test]
fn explain_a_job_divided_by_capacity_is_not_evaluated_by_names() {
    let repo = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi, namespace: default}\nspec:\n  parallelism: 3\n  completions: 6\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: pi, image: perl}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: pi, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: batch/v1, kind: Job, name: pi}]\n  placement:\n    clusterAffinity: {clusterNames: [m1, m2]}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {dynamicWeight: AvailableReplicas}}\n";
    let (code, text, err) = explain_over(repo, &["job/pi"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("\nplacement: not evaluated: no Cluster objects are known"),
        "{text}"
    );
    assert!(!text.contains("resourceSummary"), "{text}");
}

/// Cluster objects of these names, as registered without their status (`syncMode: Push`).
fn registered_clusters(names: &[&str]) -> String {
    names
        .iter()
        .map(|c| format!("---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {{name: {c}}}\nspec: {{syncMode: Push}}\n"))
        .collect()
}

/// A Deployment scaled to 0 with requests, divided by available replicas among named clusters,
/// without Cluster objects: whatever their capacity every share is 0, so names decide it and
/// explain says no cluster receives it (not that the placement is not evaluated).
#[test]
fn explain_zero_replicas_with_requests_under_a_division_by_capacity_go_nowhere() {
    let repo = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement:\n    clusterAffinity: {clusterNames: [m1, m2]}\n    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {dynamicWeight: AvailableReplicas}}\n";
    let (code, text, err) = explain_over(repo, &["deploy/web"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("    none: the template has 0 replicas, which its resource requirements make the scheduler assign: every share is 0, spec.clusters stays empty\n"),
        "{text}"
    );
    assert!(!text.contains("not evaluated"), "{text}");
}

/// `explain ARGS -f FILE` over `repo` written to a file of its own: exit code, stdout, stderr.
fn explain_over(repo: &str, args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("repo.yaml");
    std::fs::write(&file, repo).unwrap();
    let file = file.display().to_string();
    run(&[&["explain"], args, &["-f", file.as_str()]].concat(), None)
}

/// A Deployment scaled to 0 with requests under a cluster spread constraint that keeps fewer
/// clusters than the placement names (`minGroups` 1: the selection cannot fail): the names do
/// not decide which clusters the spread keeps, but every share is 0 whichever they are, so
/// explain says no cluster receives it, as plan does.
#[test]
fn explain_zero_replicas_with_requests_under_a_narrowing_spread_go_nowhere() {
    let repo = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement:\n    clusterAffinity: {clusterNames: [m1, m2, m3]}\n    replicaScheduling: {replicaSchedulingType: Duplicated}\n    spreadConstraints: [{spreadByField: cluster, maxGroups: 2, minGroups: 1}]\n";
    let (code, text, err) = explain_over(repo, &["deploy/web"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("every share is 0, spec.clusters stays empty\n"),
        "{text}"
    );
    assert!(!text.contains("Dispatch per cluster"), "{text}");
}
