//! `explain` and `preempt-check` on the real binary: the worked examples A-D of
//! `cli-contract-examples.md` with their exact JSON, text snapshots, type resolution, change
//! ordering, deprioritization, admission and exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/engine")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    let out = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn run_json(args: &[&str]) -> Value {
    let r = run(args);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

/// An explanation's decision, without the Karmada it assumed (`karmada`), which
/// [`the_answer_states_the_karmada_it_assumed`] checks.
fn decision_json(args: &[&str]) -> Value {
    let mut v = run_json(args);
    v.as_object_mut()
        .and_then(|o| o.remove("karmada"))
        .expect("every explanation states its Karmada");
    v
}

/// `karmada` in explain's JSON is the release and gates the decision was made under: the
/// preemption gate as `--feature-gates` sets it, the release of `--karmada-version`.
#[test]
fn the_answer_states_the_karmada_it_assumed() {
    let a = data("state-a.yaml");
    let explain = |extra: &[&str]| {
        let mut args = vec![
            "explain",
            "deploy/nginx",
            "-n",
            "default",
            "-f",
            &a,
            "-o",
            "json",
        ];
        args.extend_from_slice(extra);
        run_json(&args)["karmada"].clone()
    };
    let on = explain(&["--feature-gates", "PropagationPolicyPreemption=true"]);
    assert_eq!(on["version"], "1.19");
    assert_eq!(on["featureGates"]["PropagationPolicyPreemption"], true);
    assert_eq!(on["controllerManagerFlags"], json!({}));
    let old = explain(&["--karmada-version", "1.14"]);
    assert_eq!(old["version"], "1.14");
    assert_eq!(old["featureGates"]["PropagationPolicyPreemption"], false);
    // A gate 1.14 did not have is not listed (ControllerPriorityQueue came in 1.15).
    assert!(
        old["featureGates"].get("ControllerPriorityQueue").is_none(),
        "{old:#}"
    );
}

fn snapshot(name: &str) -> String {
    std::fs::read_to_string(data(&format!("expected/{name}"))).unwrap()
}

fn pp(ns: &str, name: &str) -> Value {
    json!({"kind": "PropagationPolicy", "namespace": ns, "name": name})
}

fn nginx() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "nginx"})
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn example_a_kept_claim_then_restart_preempts() {
    let a = data("state-a.yaml");
    let on = decision_json(&[
        "explain",
        "deploy/nginx",
        "-n",
        "default",
        "-f",
        &a,
        "--feature-gates",
        "PropagationPolicyPreemption=true",
        "-o",
        "json",
    ]);
    assert_eq!(
        on,
        json!({
            "resource": nginx(),
            "current": pp("default", "low"),
            "afterReconcile": pp("default", "low"),
            "eventual": pp("default", "high"),
            "preempted": true,
            "candidates": [
                {"policy": pp("default", "high"), "priority": 5, "match": "name", "rank": 1, "selected": true,
                 "why": "preempts pp/default/low: priority 5 > 1"},
                {"policy": pp("default", "low"), "priority": 1, "match": "labelSelector", "rank": 2, "selected": false,
                 "why": "preempted by pp/default/high: priority 5 > 1"}
            ],
            "suspension": [],
            "notes": [],
            "requiredBy": []
        })
    );
    // The full output, byte for byte (key order included).
    let r = run(&[
        "explain",
        "deploy/nginx",
        "-n",
        "default",
        "-f",
        &a,
        "--feature-gates",
        "PropagationPolicyPreemption=true",
        "-o",
        "json",
    ]);
    assert_eq!(r.stdout, snapshot("a-gate-on.json"));
    let r = run(&[
        "explain",
        "deploy/nginx",
        "-n",
        "default",
        "-f",
        &a,
        "--feature-gates",
        "PropagationPolicyPreemption=true",
    ]);
    assert_eq!(r.stdout, snapshot("a-gate-on.txt"));
}

#[test]
fn example_a_gate_off_keeps_the_claim_and_says_why() {
    let a = data("state-a.yaml");
    let off = decision_json(&[
        "explain",
        "deploy/nginx",
        "-n",
        "default",
        "-f",
        &a,
        "--feature-gates",
        "PropagationPolicyPreemption=false",
        "-o",
        "json",
    ]);
    assert_eq!(
        off,
        json!({
            "resource": nginx(),
            "current": pp("default", "low"),
            "afterReconcile": pp("default", "low"),
            "eventual": pp("default", "low"),
            "preempted": false,
            "candidates": [
                {"policy": pp("default", "high"), "priority": 5, "match": "name", "rank": 1, "selected": false,
                 "why": "would win a fresh match, but the claim of pp/default/low is kept: preemption needs the feature gate PropagationPolicyPreemption=true (off by default)"},
                {"policy": pp("default", "low"), "priority": 1, "match": "labelSelector", "rank": 2, "selected": true,
                 "why": "holds the claim: a claimed template is never re-ranked"}
            ],
            "suspension": [],
            "notes": ["preemption is off: the PropagationPolicyPreemption feature gate is disabled; pp/default/high declares preemption: Always and would act only with --feature-gates PropagationPolicyPreemption=true"],
            "requiredBy": []
        })
    );
    // The gate defaults to off.
    let r = run(&["explain", "deploy/nginx", "-f", &a, "-o", "json"]);
    assert_eq!(r.stdout, snapshot("a-gate-off.json"));
    let r = run(&["explain", "deploy/nginx", "-f", &a]);
    assert_eq!(r.stdout, snapshot("a-gate-off.txt"));
    assert!(r
        .stdout
        .contains("would win a fresh match, but the claim of pp/default/low is kept"));
}

#[test]
fn example_b_equal_priority_takeover_is_blocked() {
    let args = [
        "preempt-check",
        "-f",
        &data("state-b.yaml"),
        "--apply",
        &data("takeover.yaml"),
        "--feature-gates",
        "PropagationPolicyPreemption=true",
    ];
    let mut json_args = args.to_vec();
    json_args.extend(["-o", "json"]);
    assert_eq!(
        run_json(&json_args),
        json!({
            "rejected": [],
            "resources": [{
                "resource": nginx(),
                "before": pp("default", "holder"),
                "after": pp("default", "holder"),
                "preempted": false,
                "blockedBy": [{
                    "policy": pp("default", "takeover"),
                    "reason": "equal-priority",
                    "message": "equal priority 5 = 5: will never preempt pp/default/holder (preemption needs a strictly higher priority)"
                }]
            }],
            "notes": []
        })
    );
    assert_eq!(run(&json_args).stdout, snapshot("b.json"));
    let text = run(&args);
    assert_eq!(text.code, 0);
    assert_eq!(text.stdout, snapshot("b.txt"));
    assert!(text
        .stdout
        .contains("stays with pp/default/holder (blocked: equal priority 5 = 5)"));
    let mut fail = args.to_vec();
    fail.push("--fail-on-blocked");
    assert_eq!(run(&fail).code, 1);
}

#[test]
fn example_c_deleting_the_claimer_rematches() {
    let v = run_json(&[
        "preempt-check",
        "-f",
        &data("state-c.yaml"),
        "--delete",
        "pp/default/a",
        "-o",
        "json",
    ]);
    assert_eq!(
        v,
        json!({
            "rejected": [],
            "resources": [{
                "resource": nginx(),
                "before": pp("default", "a"),
                "after": pp("default", "b"),
                "preempted": false,
                "blockedBy": []
            }],
            "notes": []
        })
    );
    let r = run(&[
        "preempt-check",
        "-f",
        &data("state-c.yaml"),
        "--delete",
        "pp/default/a",
        "-o",
        "json",
    ]);
    assert_eq!(r.stdout, snapshot("c.json"));
    // `pp/a` takes the namespace from -n.
    let short = run_json(&[
        "preempt-check",
        "-f",
        &data("state-c.yaml"),
        "--delete",
        "propagationpolicy/a",
        "-o",
        "json",
    ]);
    assert_eq!(short, v);
}

#[test]
fn example_d_pp_beats_cpp_whatever_the_priority() {
    let v = decision_json(&[
        "explain",
        "deploy/web",
        "-n",
        "default",
        "-f",
        &data("state-d.yaml"),
        "-o",
        "json",
    ]);
    assert_eq!(
        v,
        json!({
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "web"},
            "current": null,
            "afterReconcile": pp("default", "team"),
            "eventual": pp("default", "team"),
            "preempted": false,
            "candidates": [
                {"policy": pp("default", "team"), "priority": -5, "match": "labelSelector", "rank": 1, "selected": true,
                 "why": "wins the fresh match (unclaimed): priority, then selector precision, then name; any PP before any CPP"},
                {"policy": {"kind": "ClusterPropagationPolicy", "name": "platform"}, "priority": 100, "match": "name", "rank": 2, "selected": false,
                 "why": "loses to pp/default/team: a matching PP always beats a CPP, whatever the priority"}
            ],
            "suspension": [],
            "notes": [],
            "requiredBy": []
        })
    );
    let r = run(&[
        "explain",
        "deploy/web",
        "-n",
        "default",
        "-f",
        &data("state-d.yaml"),
        "-o",
        "json",
    ]);
    assert_eq!(r.stdout, snapshot("d.json"));
}

#[test]
fn types_as_kubectl_takes_them() {
    let a = data("state-a.yaml");
    let want = run(&["explain", "deploy/nginx", "-f", &a, "-o", "json"]).stdout;
    for ty in [
        "Deployment",
        "deployments",
        "DEPLOY",
        "deployment.apps",
        "deployments.v1.apps",
    ] {
        let r = run(&["explain", &format!("{ty}/nginx"), "-f", &a, "-o", "json"]);
        assert_eq!(r.code, 0, "{ty}: {}", r.stderr);
        assert_eq!(r.stdout, want, "{ty}");
    }
    // Policies are explained from their side (issue 21); other Karmada objects are no templates.
    let pp = run(&["explain", "pp/high", "-f", &a]);
    assert_eq!(pp.code, 0, "{}", pp.stderr);
    let op = run(&["explain", "op/high", "-f", &a]);
    assert_eq!(op.code, 2);
    assert!(
        op.stderr.contains("not a resource template"),
        "{}",
        op.stderr
    );
    let unknown = run(&["explain", "widgets/x", "-f", &a]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("deployments.apps") && unknown.stderr.contains("configmaps"),
        "{}",
        unknown.stderr
    );
    // Not found: exit 4, as everywhere (docs/exit-codes.md).
    let missing = run(&["explain", "deploy/other", "-f", &a]);
    assert_eq!(missing.code, 4);
    assert!(missing.stderr.contains("not found"), "{}", missing.stderr);
    let bad = run(&["explain", "nginx", "-f", &a]);
    assert_eq!(bad.code, 2);
}

#[test]
fn ambiguous_types_list_the_choices_and_custom_kinds_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "w.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\n---\n\
         apiVersion: other.io/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n---\n\
         apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: cms, namespace: default}\n\
         spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n",
    );
    let amb = run(&["explain", "widgets/w", "-f", &f]);
    assert_eq!(amb.code, 2);
    assert!(
        amb.stderr.contains("widgets.example.com") && amb.stderr.contains("widgets.other.io"),
        "{}",
        amb.stderr
    );
    let one = run_json(&["explain", "widget.other.io/w", "-f", &f, "-o", "json"]);
    assert_eq!(one["resource"]["apiVersion"], "other.io/v1");
    assert_eq!(one["eventual"], Value::Null);
    assert_eq!(
        one["notes"][0],
        "no policy matches: the template waits until one does"
    );
    let cm = run_json(&["explain", "cm/x", "-f", &f, "-o", "json"]);
    assert_eq!(cm["eventual"], pp("default", "cms"));
    assert_eq!(cm["candidates"][0]["match"], "all");
}

#[test]
fn changes_run_in_command_line_order() {
    let dir = tempfile::tempdir().unwrap();
    let six = write(
        dir.path(),
        "six.yaml",
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: takeover, namespace: default}\n\
         spec:\n  priority: 6\n  preemption: Always\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n",
    );
    let state = data("state-b.yaml");
    let gate = "PropagationPolicyPreemption=true";
    // Apply alone: strictly higher priority takes over.
    let v = run_json(&[
        "preempt-check",
        "-f",
        &state,
        "--apply",
        &six,
        "--feature-gates",
        gate,
        "-o",
        "json",
    ]);
    assert_eq!(v["resources"][0]["after"], pp("default", "takeover"));
    assert_eq!(v["resources"][0]["preempted"], true);
    // Apply, then delete it: the claim is released and re-matched to the holder.
    let v = run_json(&[
        "preempt-check",
        "-f",
        &state,
        "--apply",
        &six,
        "--delete",
        "pp/default/takeover",
        "--feature-gates",
        gate,
        "-o",
        "json",
    ]);
    assert_eq!(v["resources"], json!([]));
    // Delete first: it does not exist yet.
    let r = run(&[
        "preempt-check",
        "-f",
        &state,
        "--delete",
        "pp/default/takeover",
        "--apply",
        &six,
        "--feature-gates",
        gate,
    ]);
    // Not there to delete: not found (docs/exit-codes.md).
    assert_eq!(r.code, 4);
    assert!(r.stderr.contains("pp/default/takeover"), "{}", r.stderr);
}

#[test]
fn lowering_a_holder_from_5_to_3_lets_4_take_over_but_not_5() {
    let dir = tempfile::tempdir().unwrap();
    let policy = |name: &str, prio: i32, preempt: &str| {
        format!(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n\
             metadata: {{name: {name}, namespace: default, labels: {{propagationpolicy.karmada.io/permanent-id: {name}-id}}}}\n\
             spec:\n  priority: {prio}\n  preemption: {preempt}\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n"
        )
    };
    let template = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\n  \
        labels: {propagationpolicy.karmada.io/permanent-id: holder-id}\n  \
        annotations: {propagationpolicy.karmada.io/namespace: default, propagationpolicy.karmada.io/name: holder}\n";
    let lowered = write(dir.path(), "lowered.yaml", &policy("holder", 3, "Never"));
    for (prio, want) in [(4, "p"), (5, "holder")] {
        let state = write(
            dir.path(),
            &format!("state-{prio}.yaml"),
            &format!(
                "{template}---\n{}---\n{}",
                policy("holder", 5, "Never"),
                policy("p", prio, "Always")
            ),
        );
        let v = run_json(&[
            "preempt-check",
            "-f",
            &state,
            "--apply",
            &lowered,
            "--feature-gates",
            "PropagationPolicyPreemption=true",
            "-o",
            "json",
        ]);
        if want == "holder" {
            // Equal to the old priority: not in the open interval (3, 5), not re-queued, and
            // the holder keeps the template: nothing moves.
            assert_eq!(v["resources"], json!([]), "preemptor at {prio}");
            continue;
        }
        let res = &v["resources"][0];
        assert_eq!(
            res["before"],
            pp("default", "holder"),
            "preemptor at {prio}"
        );
        assert_eq!(res["after"], pp("default", want), "preemptor at {prio}");
        assert_eq!(res["preempted"], true, "preemptor at {prio}");
        // The lowered holder still matches but no longer owns it.
        assert_eq!(res["blockedBy"][0]["policy"], pp("default", "holder"));
        assert_eq!(res["blockedBy"][0]["reason"], "lower-priority");
    }
}

#[test]
fn a_policy_admission_rejects_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "bad.yaml",
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: bad, namespace: default}\n\
         spec:\n  priority: 9\n  preemption: Always\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n",
    );
    let v = run_json(&[
        "preempt-check",
        "-f",
        &data("state-b.yaml"),
        "--apply",
        &bad,
        "--feature-gates",
        "PropagationPolicyPreemption=true",
        "-o",
        "json",
    ]);
    assert_eq!(v["resources"], json!([]));
    assert_eq!(v["rejected"][0]["policy"], pp("default", "bad"));
    let err = v["rejected"][0]["errors"][0].as_str().unwrap();
    assert!(err.starts_with("spec.resourceSelectors[0].name: Invalid value: \"\": name cannot be empty if preemption is Always"), "{err}");
    // A CI gate on the takeover: a policy the API server refuses takes nothing over.
    let state = data("state-b.yaml");
    let gate = |extra: &[&str]| {
        let mut args = vec![
            "preempt-check",
            "-f",
            &state,
            "--apply",
            &bad,
            "--feature-gates",
            "PropagationPolicyPreemption=true",
        ];
        args.extend_from_slice(extra);
        run(&args).code
    };
    assert_eq!(gate(&[]), 0);
    assert_eq!(gate(&["--fail-on-blocked"]), 1);
}

#[test]
fn preempt_check_usage_errors() {
    let r = run(&["preempt-check", "-f", &data("state-b.yaml")]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--apply"), "{}", r.stderr);
    let r = run(&[
        "preempt-check",
        "-f",
        &data("state-b.yaml"),
        "--delete",
        "deploy/default/nginx",
    ]);
    assert_eq!(r.code, 2);
    let r = run(&[
        "preempt-check",
        "-f",
        &data("state-b.yaml"),
        "--delete",
        "cpp/ns/x",
    ]);
    assert_eq!(r.code, 2);
    let r = run(&[
        "preempt-check",
        "-f",
        &data("state-b.yaml"),
        "--delete",
        "pp/default/holder",
        "--feature-gates",
        "PropagationPolicyPreemption=maybe",
    ]);
    assert_eq!(r.code, 2);
}

/// A claim naming a policy the state lacks: preempt-check takes the policy as existing with an
/// unknown spec (the files are partial), explain takes the claim as stale.
#[test]
fn claims_naming_policies_missing_from_the_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let state = write(
        dir.path(),
        "state.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\n  \
         labels: {app: nginx, propagationpolicy.karmada.io/permanent-id: ghost-id}\n  \
         annotations: {propagationpolicy.karmada.io/namespace: default, propagationpolicy.karmada.io/name: ghost}\n---\n\
         apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: b, namespace: default}\n\
         spec: {resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: nginx}}}]}\n",
    );
    let ghost = |name: &str| {
        format!(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: ghost, namespace: default}}\n\
             spec: {{resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: {name}}}]}}\n"
        )
    };
    let still = write(dir.path(), "still.yaml", &ghost("nginx"));
    let moved = write(dir.path(), "moved.yaml", &ghost("other"));
    // The claim is kept while the ghost exists; updating it so it still matches moves nothing.
    let v = run_json(&[
        "preempt-check",
        "-f",
        &state,
        "--apply",
        &still,
        "-o",
        "json",
    ]);
    assert_eq!(v["resources"], json!([]));
    // Updating it so it no longer matches releases the claim: b re-matches it.
    let v = run_json(&[
        "preempt-check",
        "-f",
        &state,
        "--apply",
        &moved,
        "-o",
        "json",
    ]);
    assert_eq!(v["resources"][0]["before"], pp("default", "ghost"));
    assert_eq!(v["resources"][0]["after"], pp("default", "b"));
    // Deleting it works too.
    let v = run_json(&[
        "preempt-check",
        "-f",
        &state,
        "--delete",
        "pp/ghost",
        "-o",
        "json",
    ]);
    assert_eq!(v["resources"][0]["after"], pp("default", "b"));
    // explain: the claim is stale; the next reconcile drops it and b claims.
    let e = run_json(&["explain", "deploy/nginx", "-f", &state, "-o", "json"]);
    assert_eq!(e["current"], pp("default", "ghost"));
    assert_eq!(e["afterReconcile"], pp("default", "b"));
    assert_eq!(e["eventual"], pp("default", "b"));
    assert!(
        e["notes"][0]
            .as_str()
            .unwrap()
            .contains("not in the inputs"),
        "{}",
        e["notes"]
    );
}

/// Excluded templates are never claimed, and explain says why.
#[test]
fn excluded_templates_are_never_claimed() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "kube.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: kube-public}\n---\n\
         apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: all}\n\
         spec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n",
    );
    let e = run_json(&[
        "explain",
        "cm/c",
        "-n",
        "kube-public",
        "-f",
        &f,
        "-o",
        "json",
    ]);
    assert_eq!(e["eventual"], Value::Null);
    assert_eq!(e["afterReconcile"], Value::Null);
    assert_eq!(
        e["notes"][0],
        "never claimed: namespace kube-public matches --skipped-propagating-namespaces=kube-.*"
    );
    assert_eq!(e["candidates"][0]["policy"]["name"], "all");
}

/// `explain -f` parses only what the answer needs (issue 8): many unrelated templates, PPs of
/// other namespaces and odd documents around the template change nothing, and where the answer
/// does depend on another template (missing dependent overrides) or on a PP of another
/// namespace (a claim naming it), it is the answer of reading everything.
#[test]
fn explain_in_a_large_directory_answers_as_with_only_what_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let state_a = std::fs::read_to_string(data("state-a.yaml")).unwrap();
    write(dir.path(), "a.yaml", &state_a);
    let mut noise = String::new();
    for i in 0..300 {
        let ns = ["default", "other", "team-1"][i % 3];
        noise.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\n  namespace: {ns}\n  labels:\n    app: nginx\nspec:\n  template:\n    metadata:\n      name: nginx\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i}, namespace: {ns}}}\ndata:\n  kind: |\n    kind: Deployment\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: pp-{i}\n  namespace: other\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n"
        ));
    }
    // Same name elsewhere (kept: the lookup filters by namespace), a List, a JSON document and
    // a broken one that cannot be read with certainty (kept, so its warning stays).
    noise.push_str("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: other\n");
    noise.push_str("---\napiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: listed}}\n");
    noise.push_str(
        "---\n{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {\"name\": \"s\"}}\n",
    );
    noise.push_str("---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: broken}\n");
    write(dir.path(), "noise.yaml", &noise);
    let d = dir.path().to_string_lossy().into_owned();
    for gate in ["true", "false"] {
        let gates = format!("PropagationPolicyPreemption={gate}");
        for out in ["json", "text"] {
            let want = run(&[
                "explain",
                "deploy/nginx",
                "-f",
                &data("state-a.yaml"),
                "--feature-gates",
                &gates,
                "-o",
                out,
            ]);
            let got = run(&[
                "explain",
                "deploy/nginx",
                "-f",
                &d,
                "--feature-gates",
                &gates,
                "-o",
                out,
            ]);
            assert_eq!(got.code, 0, "{}", got.stderr);
            assert_eq!(got.stdout, want.stdout, "gate {gate}, -o {out}");
            assert_eq!(got.stderr.matches("warning:").count(), 1, "{}", got.stderr);
            assert!(got.stderr.contains("noise.yaml:"), "{}", got.stderr);
        }
    }
    // Type resolution still sees the skipped templates' kinds: `cm` resolves, `widgets` lists them.
    let err = run(&["explain", "cm/nginx", "-f", &d]);
    assert!(err.stderr.contains("not found"), "{}", err.stderr);

    // The preemptor waits for its overrides only while another unclaimed template it matches
    // exists: `app-0` decides the answer although it is not the template explained.
    let waits = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: high, namespace: default, labels: {propagationpolicy.karmada.io/permanent-id: high-id}}\nspec:\n  priority: 5\n  preemption: Always\n  dependentOverrides: [op-missing]\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: default, name: nginx}, {apiVersion: apps/v1, kind: Deployment, namespace: default, name: app-0}]\n";
    let base = state_a.split("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: high").next().unwrap().to_string();
    let other_block = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-0\n  namespace: default\n  labels:\n    app: other\n";
    // The same template in flow style, which the filter never skips: the reference answer.
    let other_flow = "---\n{apiVersion: apps/v1, kind: Deployment, metadata: {name: app-0, namespace: default, labels: {app: other}}}\n";
    let explain = |text: &str| {
        let f = write(dir.path(), "w.yaml", text);
        run(&[
            "explain",
            "deploy/nginx",
            "-f",
            &f,
            "--feature-gates",
            "PropagationPolicyPreemption=true",
            "-o",
            "json",
        ])
        .stdout
    };
    let alone = explain(&format!("{base}{waits}"));
    let reference = explain(&format!("{base}{waits}{other_flow}"));
    assert_ne!(
        alone, reference,
        "the other template must matter for this check"
    );
    assert_eq!(explain(&format!("{base}{waits}{other_block}")), reference);

    // A claim naming a PP of another namespace: whether that PP exists decides the answer.
    let claimed = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\n  labels: {propagationpolicy.karmada.io/permanent-id: x-id}\n  annotations: {propagationpolicy.karmada.io/namespace: elsewhere, propagationpolicy.karmada.io/name: x}\n";
    let pp_block = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: x\n  namespace: elsewhere\n  labels:\n    propagationpolicy.karmada.io/permanent-id: x-id\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n";
    let pp_flow = "---\n{apiVersion: policy.karmada.io/v1alpha1, kind: PropagationPolicy, metadata: {name: x, namespace: elsewhere, labels: {propagationpolicy.karmada.io/permanent-id: x-id}}, spec: {resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]}}\n";
    let explain_web = |text: &str| {
        let f = write(dir.path(), "w.yaml", text);
        run(&["explain", "deploy/web", "-f", &f, "-o", "json"]).stdout
    };
    let without = explain_web(claimed);
    let reference = explain_web(&format!("{claimed}{pp_flow}"));
    assert_ne!(
        without, reference,
        "the other namespace's PP must matter for this check"
    );
    assert_eq!(explain_web(&format!("{claimed}{pp_block}")), reference);
}

/// A HorizontalPodAutoscaler applied as `autoscaling/v1` is read by Karmada's detector in
/// `autoscaling/v2`, the preferred version (pkg/util/lifted/discovery.go): the v2 selector
/// claims it, and explain names the v1 selector that never will, as lint does.
#[test]
fn an_hpa_is_claimed_in_the_version_the_detector_watches() {
    let dir = tempfile::tempdir().unwrap();
    let hpa = "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  namespace: default\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 3\n";
    let policy = |name: &str, version: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n  resourceSelectors:\n    - {{apiVersion: {version}, kind: HorizontalPodAutoscaler, name: web}}\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n")
    };
    let works = write(
        dir.path(),
        "v2.yaml",
        &format!("{hpa}{}", policy("hpa", "autoscaling/v2")),
    );
    let e = run_json(&["explain", "hpa/web", "-f", &works, "-o", "json"]);
    assert_eq!(e["resource"]["apiVersion"], "autoscaling/v2");
    assert_eq!(e["eventual"], pp("default", "hpa"));

    let never = write(
        dir.path(),
        "v1.yaml",
        &format!("{hpa}{}", policy("hpa", "autoscaling/v1")),
    );
    let e = run_json(&["explain", "hpa/web", "-f", &never, "-o", "json"]);
    assert_eq!(e["eventual"], Value::Null);
    assert_eq!(
        e["notes"][1],
        "pp/default/hpa has a selector for this template that never matches: the detector watches HorizontalPodAutoscaler in autoscaling/v2, the API server's preferred version, and reads every HorizontalPodAutoscaler in it whatever version it was applied in: a selector for autoscaling/v1 never matches one (select autoscaling/v2)"
    );
    let lint = run(&["lint", "-o", "json", &never]);
    assert_eq!(lint.code, 0, "{}", lint.stderr);
    let report: Value = serde_json::from_str(&lint.stdout).unwrap();
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["selector-never-matches"]);
}

/// A kind the built-in table does not know is taken as namespaced, unless a
/// CustomResourceDefinition of the inputs says `scope: Cluster`: then its objects have no
/// namespace, no PropagationPolicy can claim them (`pkg/detector/detector.go`
/// `LookForMatchedPolicy`), and lint and explain say so alike, whichever file the CRD is in.
#[test]
fn a_crd_in_the_inputs_decides_the_scope_of_its_kind_for_lint_and_explain() {
    let dir = tempfile::tempdir().unwrap();
    let crd = write(
        dir.path(),
        "crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Cluster\n  versions: [{name: v1, served: true, storage: true}]\n",
    );
    let widget = write(
        dir.path(),
        "widget.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: widget-pp\nspec:\n  resourceSelectors:\n    - {apiVersion: example.com/v1, kind: Widget, name: w}\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: widget-cpp\nspec:\n  resourceSelectors:\n    - {apiVersion: example.com/v1, kind: Widget}\n  placement:\n    clusterAffinity:\n      clusterNames: [member2]\n",
    );
    let rules = |args: &[&str]| -> Vec<String> {
        let lint = run(args);
        let report: Value = serde_json::from_str(&lint.stdout).unwrap();
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect()
    };
    // Without the CRD: namespaced, the PP wins over the CPP.
    assert_eq!(rules(&["lint", "-o", "json", &widget]), ["overlap"]);
    let e = run_json(&["explain", "widget/w", "-f", &widget, "-o", "json"]);
    assert_eq!(e["eventual"], pp("default", "widget-pp"));
    // With it, in a file after the Widget's (the streamed lint sees it last): cluster-scoped.
    for files in [[&widget, &crd], [&crd, &widget]] {
        assert_eq!(
            rules(&["lint", "-o", "json", files[0], files[1]]),
            ["pp-selects-cluster-scoped"]
        );
        let e = run_json(&[
            "explain", "widget/w", "-f", files[0], "-f", files[1], "-o", "json",
        ]);
        assert_eq!(e["resource"].get("namespace"), None, "{e}");
        assert_eq!(e["eventual"]["kind"], "ClusterPropagationPolicy", "{e}");
        assert_eq!(e["eventual"]["name"], "widget-cpp", "{e}");
    }
}

/// A Volcano Queue is cluster-scoped (its CRD says `scope: Cluster`): Karmada consults no
/// PropagationPolicy for it, and explain says which one was aimed at it.
#[test]
fn a_cluster_scoped_custom_resource_is_never_claimed_by_a_propagation_policy() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "queue.yaml",
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: test\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: queue-pp\n  namespace: default\nspec:\n  resourceSelectors:\n    - {apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, name: test}\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n",
    );
    let e = run_json(&["explain", "queue/test", "-f", &f, "-o", "json"]);
    assert_eq!(e["resource"].get("namespace"), None, "{e}");
    assert_eq!(e["eventual"], Value::Null);
    assert_eq!(
        e["notes"][1],
        "pp/default/queue-pp has a selector for this template that never matches: Queue is cluster-scoped, and Karmada matches cluster-scoped templates only against ClusterPropagationPolicies"
    );
}

/// `--delete` of a policy admission refuses: not in the state (exit 4), said as explain says
/// it, with the reason to run lint.
#[test]
fn deleting_a_policy_admission_refuses_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pp.yaml");
    std::fs::write(
        &file,
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: weighted, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  priority: high\n",
    )
    .unwrap();
    let file = file.display().to_string();
    let r = run(&[
        "preempt-check",
        "-f",
        &file,
        "--delete",
        "pp/default/weighted",
    ]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(
        r.stderr.contains("--delete pp/default/weighted is in the given files, but admission refuses it, so the API server does not store it: "),
        "{}",
        r.stderr
    );
    let r = run(&["explain", "pp/weighted", "-f", &file]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(
        r.stderr.contains("pp/default/weighted is in the given files, but admission refuses it, so the API server does not store it: "),
        "{}",
        r.stderr
    );
}

/// `-n` places namespace-less documents in its namespace, as `kubectl apply -n` does: a
/// PropagationPolicy placed so among the template's candidates is named on stderr, since
/// without `-n` it would not select the template (what `explain cpp/...` without `-n` sees).
#[test]
fn explain_names_a_policy_that_minus_n_placed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("repo.yaml");
    std::fs::write(
        &file,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: argo-server, namespace: argo}\nspec: {template: {spec: {containers: [{name: s, image: argo}]}}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: deployments}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: everything}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n",
    )
    .unwrap();
    let file = file.display().to_string();
    let r = run(&["explain", "deploy/argo-server", "-n", "argo", "-f", &file]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let note = format!(
        "note: pp/argo/deployments sets no namespace ({file}#2): -n argo places it in argo, as kubectl apply -n does; applied without -n it is in default"
    );
    assert!(r.stderr.contains(&note), "{}", r.stderr);
    // A policy that sets its namespace is not named.
    std::fs::write(
        &file,
        std::fs::read_to_string(&file).unwrap().replace(
            "{name: deployments}",
            "{name: deployments, namespace: argo}",
        ),
    )
    .unwrap();
    let r = run(&["explain", "deploy/argo-server", "-n", "argo", "-f", &file]);
    assert!(!r.stderr.contains("sets no namespace"), "{}", r.stderr);
}

/// explain judges a template's API version by the release it is asked about, as lint does: a
/// flowcontrol v1beta3 FlowSchema is served by Karmada 1.15's karmada-apiserver (Kubernetes
/// 1.31) and refused by 1.16's (1.34).
#[test]
fn explain_serves_the_versions_of_the_release_it_is_asked_about() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "fs.yaml",
        "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata: {name: fs}\n---\n\
         apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: p}\n\
         spec:\n  resourceSelectors: [{apiVersion: flowcontrol.apiserver.k8s.io/v1, kind: FlowSchema}]\n",
    );
    let explain = |release: &str| {
        let r = run(&[
            "explain",
            "flowschema/fs",
            "-f",
            &file,
            "--karmada-version",
            release,
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    assert!(explain("1.15").contains("after reconcile:  ClusterPropagationPolicy p"));
    let refused = explain("1.16");
    assert!(
        refused.contains("after reconcile:  none (unclaimed)"),
        "{refused}"
    );
    assert!(
        refused.contains(
            "not served since Kubernetes 1.32 (Karmada 1.16 installs karmada-apiserver 1.34)"
        ),
        "{refused}"
    );
}

/// `-f DIR --apply DIR/takeover.yaml`, the form `--help` shows: the applied file is the change,
/// left out of the state read from the directory. Counted in the state too, the takeover
/// settled there as the template's owner and the blocked takeover passed `--fail-on-blocked`.
#[test]
fn an_apply_file_inside_the_state_is_left_out_of_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/preempt-check/apply-inside");
    let check = |args: &[&str]| {
        let out = Command::new(BIN)
            .arg("preempt-check")
            .args(args)
            .env("NO_COLOR", "1")
            .current_dir(&dir)
            .output()
            .expect("binary runs");
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (out.status.code(), text(out.stdout), text(out.stderr))
    };
    let blocked = "Moves:\n  none\n\nStays:\n  deployment/shop/web: stays with pp/shop/holder (blocked: feature gate PropagationPolicyPreemption is off)\n    pp/shop/takeover (feature-gate-disabled): preemption needs the feature gate PropagationPolicyPreemption=true (off by default)\n\nUnchanged: 0 other templates\n";
    let note = "note: takeover.yaml is the change (--apply): left out of the state read from -f\n";
    let (code, out, err) = check(&["-f", ".", "--apply", "takeover.yaml", "--fail-on-blocked"]);
    assert_eq!((code, out.as_str(), err.as_str()), (Some(1), blocked, note));
    // The file is known however the paths reach it; the note names it as --apply gives it.
    let (code, out, err) = check(&["-f", "../apply-inside", "--apply", "./takeover.yaml"]);
    let note_dot = note.replace("takeover.yaml", "./takeover.yaml");
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (Some(0), blocked, note_dot.as_str())
    );
    // The same answer as with the state given without the change.
    let (code, out, err) = check(&[
        "-f",
        "deployment.yaml",
        "-f",
        "holder.yaml",
        "--apply",
        "takeover.yaml",
        "--fail-on-blocked",
    ]);
    assert_eq!((code, out.as_str(), err.as_str()), (Some(1), blocked, ""));
    // With the gate on it moves, from the holder the state gave it.
    let (code, out, err) = check(&[
        "-f",
        ".",
        "--apply",
        "takeover.yaml",
        "--feature-gates",
        "PropagationPolicyPreemption=true",
        "--fail-on-blocked",
    ]);
    let moves = "Moves:\n  deployment/shop/web: pp/shop/holder -> pp/shop/takeover (preempted)\n\nStays:\n  none\n\nUnchanged: 0 other templates\n";
    assert_eq!((code, out.as_str(), err.as_str()), (Some(0), moves, note));
}
