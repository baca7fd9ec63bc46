//! One control plane, one answer: every subcommand reasons in the same context (the
//! configuration's gates and release, only the policies Karmada admits, one model of member
//! clusters) and takes the same flags with the same meanings. Each test is one of the
//! contradictions users met, run through the real binary.

#[path = "support/kustomize.rs"]
mod kustomize;
mod support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value as J;
use support::TestServer;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .output()
        .expect("run the binary")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json(o: &Output) -> J {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&o.stdout), text(&o.stderr)))
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs")
        .status
        .success();
    assert!(ok, "git {args:?}");
}

const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {replicas: 2}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n";

const TAKEOVER: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web-takeover, namespace: shop}\nspec:\n  priority: 10\n  preemption: Always\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [member2]}}\n";

/// A repository whose `.karmada-policy.yaml` turns preemption on: `lint --base`, `explain` and
/// `preempt-check` all read it (before, only lint did, and the other two said "gate off").
#[test]
fn the_configuration_gates_reach_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "featureGates:\n  PropagationPolicyPreemption: true\n",
    )
    .unwrap();
    std::fs::write(d.join("app.yaml"), WEB).unwrap();
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "base"]);
    std::fs::write(d.join("takeover.yaml"), TAKEOVER).unwrap();
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "takeover"]);

    let lint = json(&run_in(d, &["lint", "--base", "HEAD~1", "-o", "json", "."]));
    let change = &lint["ownershipChanges"][0];
    assert_eq!(change["after"]["name"], "web-takeover", "{lint}");
    assert_eq!(change["preempted"], true, "{lint}");

    let check = json(&run_in(
        d,
        &[
            "preempt-check",
            "-f",
            "app.yaml",
            "--apply",
            "takeover.yaml",
            "-o",
            "json",
        ],
    ));
    let moved = &check["resources"][0];
    assert_eq!(moved["after"]["name"], "web-takeover", "{check}");
    assert_eq!(moved["preempted"], true, "{check}");

    let explain = run_in(
        d,
        &[
            "explain",
            "deploy/web",
            "-n",
            "shop",
            "-f",
            ".",
            "-o",
            "json",
        ],
    );
    let v = json(&explain);
    assert_eq!(v["eventual"]["name"], "web-takeover", "{v}");
    let notes = v["notes"].to_string();
    assert!(!notes.contains("preemption is off"), "{notes}");

    // --config names another file, for every subcommand alike: gate off there.
    std::fs::write(
        d.join("off.yaml"),
        "featureGates: {PropagationPolicyPreemption: false}\n",
    )
    .unwrap();
    let check = json(&run_in(
        d,
        &[
            "preempt-check",
            "--config",
            "off.yaml",
            "-f",
            "app.yaml",
            "--apply",
            "takeover.yaml",
            "-o",
            "json",
        ],
    ));
    assert_eq!(
        check["resources"][0]["blockedBy"][0]["reason"], "feature-gate-disabled",
        "{check}"
    );
    let v = json(&run_in(
        d,
        &[
            "explain",
            "--config",
            "off.yaml",
            "deploy/web",
            "-n",
            "shop",
            "-f",
            "app.yaml",
            "-o",
            "json",
        ],
    ));
    assert_eq!(v["eventual"]["name"], "web", "{v}");
}

/// One gate table, one parser: an unknown gate is the same error (exit 2) in every subcommand,
/// a gate the release has is accepted without a warning, a bad value is the same error.
#[test]
fn feature_gates_are_parsed_once_with_one_meaning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("app.yaml"), WEB).unwrap();
    std::fs::write(d.join("takeover.yaml"), TAKEOVER).unwrap();
    let commands: [&[&str]; 5] = [
        &["lint", "app.yaml"],
        &["explain", "deploy/web", "-n", "shop", "-f", "app.yaml"],
        &[
            "preempt-check",
            "-f",
            "app.yaml",
            "--apply",
            "takeover.yaml",
        ],
        &[
            "suspend",
            "pp/web",
            "-n",
            "shop",
            "-f",
            "app.yaml",
            "--dry-run",
        ],
        &[
            "resume",
            "pp/web",
            "-n",
            "shop",
            "-f",
            "app.yaml",
            "--dry-run",
        ],
    ];
    let mut messages = Vec::new();
    for c in commands {
        let mut args = c.to_vec();
        args.extend(["--feature-gates", "Bogus=true"]);
        let o = run_in(d, &args);
        assert_eq!(o.status.code(), Some(2), "{c:?}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        assert!(
            err.starts_with("error: invalid --feature-gates: unrecognized feature gate: Bogus (known in this release: AllAlpha, AllBeta,"),
            "{c:?}: {err}"
        );
        assert!(err.contains("WorkloadAffinity"), "{err}");
        messages.push(err);
    }
    messages.dedup();
    assert_eq!(messages.len(), 1, "one message everywhere: {messages:?}");

    let o = run_in(
        d,
        &[
            "explain",
            "deploy/web",
            "-n",
            "shop",
            "-f",
            "app.yaml",
            "--feature-gates",
            "WorkloadAffinity=true",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "", "no warning for a gate the release has");

    let bad: Vec<String> = [
        &["lint", "app.yaml"][..],
        &["explain", "deploy/web", "-n", "shop", "-f", "app.yaml"][..],
    ]
    .iter()
    .map(|c| {
        let mut args = c.to_vec();
        args.extend(["--feature-gates", "WorkloadAffinity=maybe"]);
        let o = run_in(d, &args);
        assert_eq!(o.status.code(), Some(2));
        text(&o.stderr)
    })
    .collect();
    assert!(
        bad[0].contains("invalid value of WorkloadAffinity: maybe, err: not a bool"),
        "{}",
        bad[0]
    );
    assert_eq!(bad[0], bad[1]);

    // A gate of a later release than the one asked for is unknown there.
    let o = run_in(
        d,
        &[
            "lint",
            "app.yaml",
            "--karmada-version",
            "1.16",
            "--feature-gates",
            "WorkloadAffinity=true",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    // The configuration's gates are checked as strictly, naming the file and line.
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "\nfeatureGates: {Bogus: true}\n",
    )
    .unwrap();
    let o = run_in(
        d,
        &["explain", "deploy/web", "-n", "shop", "-f", "app.yaml"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains(".karmada-policy.yaml:2:1: unrecognized feature gate: Bogus"),
        "{}",
        text(&o.stderr)
    );
}

/// An OverridePolicy the API server refuses (an operator the CRD's enum does not hold, as in a
/// public repository's `operator: set`) is never stored, so it overrides nothing: lint reports
/// the refusal alone (no `override-fails` for a patch that never runs), explain delivers the
/// template as it is and says why, and plan shows the refusal and no change on the cluster. Before, the
/// refused policy still overrode in every consumer. Only a stored one does.
#[test]
fn an_override_policy_karmada_refuses_overrides_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let app = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: demo}\nspec:\n  replicas: 2\n  template:\n    spec: {containers: [{name: web, image: \"nginx:1.25\"}]}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: demo}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n";
    let op_tagged = |operator: &str, tag: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {{name: web-image, namespace: demo}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  overrideRules:\n  - targetCluster: {{clusterNames: [member1]}}\n    overriders:\n      imageOverrider: [{{component: Tag, operator: replace, value: \"{tag}\"}}]\n      plaintext: [{{path: /spec/replicas, operator: {operator}, value: 5}}]\n")
    };
    let op = |operator: &str| op_tagged(operator, "1.27");
    std::fs::write(d.join("app.yaml"), app).unwrap();
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "base"]);
    let explain = |d: &Path| {
        json(&run_in(
            d,
            &[
                "explain",
                "deploy/web",
                "-n",
                "demo",
                "-f",
                ".",
                "-o",
                "json",
            ],
        ))
        .to_string()
    };

    // Admitted (`replace`), the override changes the image on member1.
    std::fs::write(d.join("op.yaml"), op("replace")).unwrap();
    assert!(explain(d).contains("nginx:1.27"), "{}", explain(d));

    std::fs::write(d.join("op.yaml"), op("set")).unwrap();
    let lint = run_in(d, &["lint", "-o", "json", "."]);
    assert_eq!(rules_of(&lint), ["schema-enum"], "{}", text(&lint.stdout));
    let v = explain(d);
    assert!(
        !v.contains("nginx:1.27") && !v.contains("Unexpected kind"),
        "{v}"
    );
    assert!(
        v.contains("OverridePolicy demo/web-image selects the template, but admission rejects it, so it overrides nothing: OverridePolicy.policy.karmada.io"),
        "{v}"
    );
    let plan = json(&run_in(d, &["plan", "--base", "HEAD", "-o", "json", "."]));
    let env = &plan["environments"][0];
    assert_eq!(env["overrides"][0]["change"], "added", "{plan}");
    assert_eq!(
        env["overrides"][0]["admission"]["admitted"], false,
        "{plan}"
    );
    assert_eq!(env["changes"], serde_json::json!([]), "{plan}");
    assert_eq!(env["hazards"][0]["hazard"], "policy-refused", "{plan}");
    assert_eq!(
        env["hazards"][0]["policy"],
        serde_json::json!({"kind": "OverridePolicy", "namespace": "demo", "name": "web-image"})
    );
    let text_plan = run_in(d, &["plan", "--base", "HEAD", "."]);
    assert!(
        text(&text_plan.stdout).contains("added    op/demo/web-image (refused by admission, overrides nothing: OverridePolicy.policy.karmada.io \"web-image\" is invalid: spec.overrideRules[0].overriders.plaintext[0].operator: Unsupported value: \"set\""),
        "{}",
        text(&text_plan.stdout)
    );

    // A refused update leaves the stored version overriding: member1 keeps nginx:1.27, and
    // the refusal is a hazard (exit 6 with --fail-on-hazard), as for a policy.
    std::fs::write(d.join("op.yaml"), op("replace")).unwrap();
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "override"]);
    std::fs::write(d.join("op.yaml"), op_tagged("set", "1.28")).unwrap();
    let plan = json(&run_in(d, &["plan", "--base", "HEAD", "-o", "json", "."]));
    let env = &plan["environments"][0];
    assert_eq!(env["overrides"][0]["change"], "changed", "{plan}");
    assert_eq!(env["changes"], serde_json::json!([]), "{plan}");
    assert_eq!(env["hazards"][0]["hazard"], "policy-refused", "{plan}");
    let gated = run_in(d, &["plan", "--base", "HEAD", "--fail-on-hazard", "."]);
    assert_eq!(gated.status.code(), Some(6), "{}", text(&gated.stdout));
    assert!(
        text(&gated.stdout).contains("the control plane keeps the version it stores"),
        "{}",
        text(&gated.stdout)
    );

    // Refused at the base, it was never stored: mended at head, it is a creation, and
    // removed, nothing goes. The same for a PropagationPolicy the webhook refused.
    std::fs::write(d.join("op.yaml"), op("set")).unwrap();
    let pp_refused = app.replace(
        "name: web}]\n  placement",
        "name: web, namespace: other}]\n  placement",
    );
    std::fs::write(d.join("app.yaml"), &pp_refused).unwrap();
    git(d, &["commit", "-qam", "refused"]);
    std::fs::write(d.join("op.yaml"), op("replace")).unwrap();
    std::fs::write(d.join("app.yaml"), app).unwrap();
    let plan = json(&run_in(d, &["plan", "--base", "HEAD", "-o", "json", "."]));
    let env = &plan["environments"][0];
    assert_eq!(env["overrides"][0]["change"], "added", "{plan}");
    assert_eq!(env["policies"][0]["change"], "added", "{plan}");
    std::fs::remove_file(d.join("op.yaml")).unwrap();
    std::fs::write(d.join("app.yaml"), pp_refused.split("---").next().unwrap()).unwrap();
    let plan = json(&run_in(d, &["plan", "--base", "HEAD", "-o", "json", "."]));
    let env = &plan["environments"][0];
    assert_eq!(env["overrides"], serde_json::json!([]), "{plan}");
    assert_eq!(env["policies"], serde_json::json!([]), "{plan}");
}

/// A policy the CRD schema rejects (a real repository's `staticWeightList` weight 0, below the
/// CRD's `minimum: 1`) is reported once as rejected and takes no part anywhere: no overlap, no
/// candidate, and the other policy simply takes the template.
#[test]
fn a_policy_karmada_refuses_takes_no_part() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let weights = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx}\nspec: {replicas: 2}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: nginx-weight-propagation}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  placement:\n    clusterAffinity: {clusterNames: [member1, member2]}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n          - targetCluster: {clusterNames: [member1]}\n            weight: 1\n          - targetCluster: {clusterNames: [member2]}\n            weight: 0\n";
    let other = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: other}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  placement:\n    clusterAffinity: {clusterNames: [member1]}\n    clusterTolerations: [{key: cluster.karmada.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 30}]\n";
    let refused_failover = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: refused-failover}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  bogusField: 1\n  placement:\n    clusterTolerations: [{key: cluster.karmada.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 30}]\n";
    std::fs::write(d.join("a.yaml"), weights).unwrap();
    std::fs::write(d.join("other.yaml"), other).unwrap();
    std::fs::write(d.join("c.yaml"), refused_failover).unwrap();

    let lint = json(&run_in(d, &["lint", "-o", "json", "."]));
    let findings = lint["findings"].as_array().unwrap();
    let rules: Vec<&str> = findings
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"schema-constraint"), "{rules:?}");
    assert!(rules.contains(&"schema-unknown-field"), "{rules:?}");
    assert!(
        !rules.contains(&"overlap"),
        "a refused policy overlaps nothing: {rules:?}"
    );
    // failover-gate-off is said of the admitted policy only.
    let gate: Vec<&J> = findings
        .iter()
        .filter(|f| f["rule"] == "failover-gate-off")
        .collect();
    assert_eq!(gate.len(), 1, "{gate:?}");
    assert_eq!(gate[0]["object"]["name"], "other");

    let v = json(&run_in(
        d,
        &["explain", "deploy/nginx", "-f", ".", "-o", "json"],
    ));
    assert_eq!(v["eventual"]["name"], "other", "{v}");
    let names: Vec<&str> = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["policy"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["other"], "{v}");
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("nginx-weight-propagation"),
        "said once, as rejected: {notes}"
    );

    let check = json(&run_in(
        d,
        &[
            "preempt-check",
            "-f",
            "a.yaml",
            "--apply",
            "other.yaml",
            "-o",
            "json",
        ],
    ));
    assert_eq!(check["resources"][0]["after"]["name"], "other", "{check}");
    assert!(
        check["resources"][0]["blockedBy"]
            .as_array()
            .is_none_or(|b| b.is_empty()),
        "{check}"
    );
    let rejected: Vec<&str> = check["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["policy"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(rejected, ["nginx-weight-propagation"], "{check}");
    // Applied, it is rejected and changes nothing.
    let check = json(&run_in(
        d,
        &[
            "preempt-check",
            "-f",
            "other.yaml",
            "-f",
            "a.yaml",
            "--apply",
            "c.yaml",
            "-o",
            "json",
        ],
    ));
    let rejected: Vec<&str> = check["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["policy"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        rejected,
        ["nginx-weight-propagation", "refused-failover"],
        "{check}"
    );
}

const NO_STATUS: &str = "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member1}\nspec: {syncMode: Push}\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member3}\nspec: {syncMode: Pull}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: payments}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: nginx, namespace: payments}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  placement: {clusterAffinity: {clusterNames: [member3]}}\n";

/// Cluster objects without status (every Cluster manifest kept in git): not excluded for a
/// missing API enablement by any subcommand, and each says once that it assumed it.
#[test]
fn clusters_without_status_are_judged_one_way() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("all.yaml"), NO_STATUS).unwrap();
    let note = "no API enablements reported for member1, member3";

    let o = run_in(d, &["lint", "-o", "json", "."]);
    let lint = json(&o);
    assert_eq!(lint["findings"].as_array().unwrap().len(), 0, "{lint}");
    assert!(text(&o.stderr).contains(note), "{}", text(&o.stderr));

    let v = json(&run_in(
        d,
        &[
            "explain",
            "deploy/nginx",
            "-n",
            "payments",
            "-f",
            ".",
            "-o",
            "json",
        ],
    ));
    assert_eq!(
        v["placement"]["clusters"],
        serde_json::json!(["member3"]),
        "{v}"
    );
    assert_eq!(
        v["placement"]["apisAssumed"],
        serde_json::json!(["member1", "member3"]),
        "{v}"
    );
    let p = json(&run_in(
        d,
        &[
            "explain", "pp/nginx", "-n", "payments", "-f", ".", "-o", "json",
        ],
    ));
    assert_eq!(
        p["placement"]["clusters"], v["placement"]["clusters"],
        "{p}"
    );

    // A status that reports APIs is judged as the scheduler does: the Deployment's API missing
    // (listed without it, Karmada's APIUnknown) excludes the cluster.
    let judged = NO_STATUS.replacen(
        "spec: {syncMode: Pull}\n",
        "spec: {syncMode: Pull}\nstatus:\n  apiEnablements: [{groupVersion: v1, resources: [{name: configmaps, kind: ConfigMap}]}]\n",
        1,
    );
    std::fs::write(d.join("all.yaml"), judged).unwrap();
    let o = run_in(d, &["lint", "-o", "json", "."]);
    let rules: Vec<String> = json(&o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(rules, ["no-cluster-fits"], "{}", text(&o.stdout));
    let v = json(&run_in(
        d,
        &[
            "explain",
            "deploy/nginx",
            "-n",
            "payments",
            "-f",
            ".",
            "-o",
            "json",
        ],
    ));
    assert_eq!(
        v["placement"]["excluded"][1]["filter"], "APIEnablement",
        "{v}"
    );
}

/// Live, the same: `explain deploy/web` (under a binding scheduled to member1-3) and
/// `explain pp/web` give one answer for Cluster objects whose status reports no API enablement.
#[test]
fn live_clusters_without_api_enablements_give_one_placement() {
    let s = TestServer::seeded_from(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/live/control-plane.yaml"),
    );
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let live = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--kubeconfig", kc.to_str().unwrap(), "-o", "json"]);
        json(&run_in(dir.path(), &all))
    };
    let template = live(&["explain", "deploy/web", "-n", "default"]);
    let owner = template["eventual"]["name"].as_str().unwrap().to_string();
    let policy = live(&["explain", &format!("pp/{owner}"), "-n", "default"]);
    assert_eq!(
        policy["placement"]["clusters"], template["placement"]["clusters"],
        "{policy}\n{template}"
    );
    assert!(policy["placement"].get("error").is_none(), "{policy}");
}

/// Flags keep one meaning: `lint -f DIR` is `lint DIR`; `--live` reads the control plane
/// (`--cluster` still works, deprecated); explain's member clusters are `-C/--clusters`
/// (`--cluster` deprecated); `-o yaml` prints what `-o json` does.
#[test]
fn flags_have_one_spelling_and_one_meaning() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = "testdata/examples/gitops";
    let positional = run_in(root, &["lint", "-o", "json", dir]);
    let flagged = run_in(root, &["lint", "-o", "json", "-f", dir]);
    assert_eq!(positional.stdout, flagged.stdout);
    assert_eq!(positional.status.code(), flagged.status.code());

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("all.yaml"), NO_STATUS).unwrap();
    let base = ["explain", "deploy/nginx", "-n", "payments", "-f", "."];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend(extra);
        run_in(d, &args)
    };
    let new = with(&["-C", "member1", "-o", "json"]);
    let old = with(&["--cluster", "member1", "-o", "json"]);
    assert_eq!(new.stdout, old.stdout);
    assert!(
        text(&old.stderr).contains("--cluster is deprecated: use --clusters"),
        "{}",
        text(&old.stderr)
    );
    assert_eq!(json(&new)["overrides"][0]["cluster"], "member1");

    let as_json = json(&with(&["-o", "json"]));
    let as_yaml = with(&["-o", "yaml"]);
    assert_eq!(as_yaml.status.code(), Some(0), "{}", text(&as_yaml.stderr));
    let yaml = text(&as_yaml.stdout);
    assert!(
        yaml.starts_with("resource:\n  apiVersion: apps/v1\n"),
        "{yaml}"
    );
    assert!(yaml.contains(&format!(
        "\n  name: {}\n",
        as_json["eventual"]["name"].as_str().unwrap()
    )));

    let o = run_in(
        d,
        &[
            "lint",
            "--live",
            "--kubeconfig",
            "/nonexistent/kubeconfig",
            ".",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "--live takes no PATH: {}",
        text(&o.stderr)
    );
    assert!(text(&o.stderr).contains("--live reads the control plane: drop the PATHs"));
    let o = run_in(d, &["lint", "--cluster", "."]);
    assert!(
        text(&o.stderr).contains("--cluster is deprecated: use --live"),
        "{}",
        text(&o.stderr)
    );

    // With files, flags that only reach the control plane are said to do nothing.
    let o = with(&["--context", "prod"]);
    assert!(
        text(&o.stderr).contains("--context is ignored: the inputs are files (-f)"),
        "{}",
        text(&o.stderr)
    );
}

/// Plain manifests that install Karmada (here a Flux HelmRelease of the chart applied by hand,
/// no Kustomization) are one control plane with that installation's settings: lint, explain
/// and preempt-check all judge the policies with its gates and say where they came from, and a
/// flag still wins. Before, only GitOps environments read the repository's installation.
#[test]
fn plain_manifests_take_the_karmada_they_install() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("karmada.yaml"),
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  chart:\n    spec: {chart: karmada, version: \"1.16.0\", sourceRef: {kind: HelmRepository, name: karmada}}\n  values:\n    controllerManager:\n      featureGates: {PropagationPolicyPreemption: true}\n",
    )
    .unwrap();
    std::fs::write(d.join("app.yaml"), WEB).unwrap();
    std::fs::write(d.join("takeover.yaml"), TAKEOVER).unwrap();
    let said = "note: the inputs: Karmada settings from HelmRelease karmada-system/karmada at karmada.yaml:1: Karmada 1.16 (karmada.yaml:6)";
    let rules = |o: &Output| -> Vec<String> {
        json(o)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect()
    };

    let lint = run_in(d, &["lint", "-o", "json", "."]);
    assert!(text(&lint.stderr).contains(said), "{}", text(&lint.stderr));
    assert!(!rules(&lint).contains(&"inert-preemption".to_string()));

    // The git modes read a revision's files as `lint PATH` reads the working tree: the same
    // installation, the same verdict (before, they kept the run's gates: inert-preemption).
    git(d, &["init", "-q"]);
    git(d, &["add", "karmada.yaml", "app.yaml"]);
    git(d, &["commit", "-qm", "base"]);
    git(d, &["add", "-A"]);
    for mode in [&["--staged"][..], &["--base", "HEAD"], &["--rev", "HEAD"]] {
        let lint = run_in(d, &[&["lint", "-o", "json"][..], mode].concat());
        assert!(
            text(&lint.stderr).contains(said),
            "{mode:?}: {}",
            text(&lint.stderr)
        );
        assert!(
            !rules(&lint).contains(&"inert-preemption".to_string()),
            "{mode:?}: {}",
            text(&lint.stdout)
        );
    }
    // The takeover is at head only: judged under the head's installation, it preempts.
    let staged = run_in(d, &["lint", "-o", "json", "--staged"]);
    assert_eq!(staged.status.code(), Some(0), "{}", text(&staged.stdout));

    let check_args = [
        "preempt-check",
        "-f",
        "app.yaml",
        "-f",
        "karmada.yaml",
        "--apply",
        "takeover.yaml",
        "-o",
        "json",
    ];
    let check = run_in(d, &check_args);
    assert!(
        text(&check.stderr).contains(said),
        "{}",
        text(&check.stderr)
    );
    let v = json(&check);
    assert_eq!(v["resources"][0]["preempted"], true, "{v}");

    explain_takes_the_installation(d, ".", said);

    // The flag is over the installation, in every subcommand alike.
    let off = ["--feature-gates", "PropagationPolicyPreemption=false"];
    let lint = run_in(d, &[&["lint", "-o", "json", "."][..], &off].concat());
    assert!(rules(&lint).contains(&"inert-preemption".to_string()));
    let v = json(&run_in(d, &[&check_args[..], &off].concat()));
    assert_eq!(
        v["resources"][0]["blockedBy"][0]["reason"], "feature-gate-disabled",
        "{v}"
    );
}

/// A policy only the installed release admits (`purgeMode: Immediately`, renamed in 1.19):
/// `plan` admits it under the release the repository installs, as `lint` and `preempt-check`
/// do, and the preemption it makes is planned (before, plan read the installation's gates but
/// judged admission by the default release, and refused the policy).
#[test]
fn plan_admits_under_the_release_the_repository_installs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("karmada.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karmada-controller-manager, namespace: karmada-system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: karmada-controller-manager\n        image: docker.io/karmada/karmada-controller-manager:v1.18.2\n        command: [/bin/karmada-controller-manager, --feature-gates=PropagationPolicyPreemption=true]\n",
    )
    .unwrap();
    std::fs::write(d.join("app.yaml"), WEB).unwrap();
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "base"]);
    let immediate = TAKEOVER.to_string()
        + "  propagateDeps: true\n  failover:\n    application:\n      decisionConditions: {tolerationSeconds: 60}\n      purgeMode: Immediately\n";
    std::fs::write(d.join("takeover.yaml"), &immediate).unwrap();
    let said = "Karmada 1.18 (karmada.yaml:";

    let lint = run_in(d, &["lint", "-o", "json", "."]);
    assert!(text(&lint.stderr).contains(said), "{}", text(&lint.stderr));
    let rules = rules_of(&lint);
    assert!(!rules.iter().any(|r| r.starts_with("schema")), "{rules:?}");

    let check = run_in(
        d,
        &[
            "preempt-check",
            "-f",
            "app.yaml",
            "-f",
            "karmada.yaml",
            "--apply",
            "takeover.yaml",
            "-o",
            "json",
        ],
    );
    assert_eq!(json(&check)["resources"][0]["preempted"], true);

    let plan = run_in(d, &["plan", "--base", "HEAD", "-o", "json"]);
    assert!(text(&plan.stderr).contains(said), "{}", text(&plan.stderr));
    let v = json(&plan);
    let env = &v["environments"][0];
    assert_eq!(env["hazards"], serde_json::json!([]), "{v}");
    let owner = &env["changes"][0]["owner"];
    assert_eq!(owner["after"]["name"], "web-takeover", "{v}");
    assert_eq!(owner["change"], "preempted", "{v}");
    assert_eq!(env["policies"][0]["admission"]["admitted"], true, "{v}");
}

/// `explain deploy/web` over `inputs` says it read the installation (`said`) and, under its
/// gates (preemption on), no note says preemption is off.
fn explain_takes_the_installation(d: &Path, inputs: &str, said: &str) {
    let explain = run_in(
        d,
        &[
            "explain",
            "deploy/web",
            "-n",
            "shop",
            "-f",
            inputs,
            "-o",
            "json",
        ],
    );
    assert!(
        text(&explain.stderr).contains(said),
        "{}",
        text(&explain.stderr)
    );
    let notes = json(&explain)["notes"].to_string();
    assert!(!notes.contains("preemption is off"), "{notes}");
}

/// A plain karmada-controller-manager Deployment among workloads: its `--feature-gates` are the
/// control plane's, read alike by lint over the working tree, lint at a revision and explain
/// (which parse a Deployment for it only in a file naming karmada-controller-manager).
#[test]
fn a_controller_manager_deployment_among_workloads_gives_the_gates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("karmada.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karmada-controller-manager, namespace: karmada-system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: karmada-controller-manager\n        image: docker.io/karmada/karmada-controller-manager:v1.16.0\n        command:\n        - /bin/karmada-controller-manager\n        - --feature-gates=PropagationPolicyPreemption=true\n",
    )
    .unwrap();
    std::fs::write(d.join("app.yaml"), WEB).unwrap();
    std::fs::write(d.join("takeover.yaml"), TAKEOVER).unwrap();
    let said = "Karmada settings from Deployment karmada-system/karmada-controller-manager at karmada.yaml:1";
    let inert = |o: &Output| {
        json(o)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "inert-preemption")
    };
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "all"]);
    for args in [
        &["lint", "-o", "json", "."][..],
        &["lint", "-o", "json", "--rev", "HEAD"],
    ] {
        let lint = run_in(d, args);
        assert!(
            text(&lint.stderr).contains(said),
            "{args:?}: {}",
            text(&lint.stderr)
        );
        assert!(!inert(&lint), "{args:?}: {}", text(&lint.stdout));
    }
    explain_takes_the_installation(d, ".", said);
}

/// Cluster failover from Karmada 1.14 needs the `Failover` gate and
/// `--enable-no-execute-taint-eviction=true` (default false; `taint_manager.go:114-117`): a
/// karmada-controller-manager Deployment's arguments give the flag, `.karmada-policy.yaml`'s
/// `controllerManagerFlags` is over them, and failover-gate-off and suspension-stalls-failover
/// agree on whether cluster failover runs (one of them speaks, never both).
#[test]
fn the_eviction_flag_comes_from_the_installation_under_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let deployment = |args: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: karmada-controller-manager, namespace: karmada-system}}\nspec:\n  template:\n    spec:\n      containers:\n      - name: karmada-controller-manager\n        image: docker.io/karmada/karmada-controller-manager:v1.17.1\n        command:\n        - /bin/karmada-controller-manager\n        - --feature-gates=Failover=true\n        args:\n{args}")
    };
    let policy = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [member1, member2]}}\n  failover:\n    cluster: {purgeMode: Gracefully}\n  suspension:\n    dispatching: true\n";
    std::fs::write(d.join("policy.yaml"), policy).unwrap();
    let failover = |extra: &[&str]| -> (Vec<String>, String) {
        let o = run_in(d, &[&["lint", "-o", "json", "."][..], extra].concat());
        let v = json(&o);
        let said: Vec<String> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| {
                f["rule"] == "failover-gate-off" || f["rule"] == "suspension-stalls-failover"
            })
            .map(|f| {
                format!(
                    "{}: {}",
                    f["rule"].as_str().unwrap(),
                    f["message"].as_str().unwrap()
                )
            })
            .collect();
        (said, text(&o.stderr))
    };

    // The gate and the flag: cluster failover runs, and the suspension stalls it.
    std::fs::write(
        d.join("karmada.yaml"),
        deployment("        - --enable-no-execute-taint-eviction=true\n"),
    )
    .unwrap();
    let (said, stderr) = failover(&[]);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("suspension-stalls-failover: "),
        "{said:?}"
    );
    assert!(
        stderr.contains("Failover=true (karmada.yaml:12), --enable-no-execute-taint-eviction=true (karmada.yaml:14)"),
        "{stderr}"
    );

    // The flag set false: nothing fails over, said with where it was set.
    std::fs::write(
        d.join("karmada.yaml"),
        deployment("        - --enable-no-execute-taint-eviction=false\n"),
    )
    .unwrap();
    let (said, _) = failover(&[]);
    assert_eq!(
        said,
        ["failover-gate-off: pp/shop/web relies on cluster failover (spec.failover.cluster) but karmada-controller-manager runs with --enable-no-execute-taint-eviction=false (karmada.yaml:14), and the Failover feature gate alone evicts nothing: nothing will fail over"]
    );

    // The configuration is over the installation.
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "controllerManagerFlags:\n  enable-no-execute-taint-eviction: true\n",
    )
    .unwrap();
    let (said, _) = failover(&[]);
    assert!(
        said[0].starts_with("suspension-stalls-failover: "),
        "{said:?}"
    );
    // `enable-taint-manager: false` starts no taint manager, whatever the eviction flag.
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "controllerManagerFlags:\n  enable-no-execute-taint-eviction: true\n  enable-taint-manager: false\n",
    )
    .unwrap();
    let (said, _) = failover(&[]);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("failover-gate-off: pp/shop/web relies on cluster failover (spec.failover.cluster) but karmada-controller-manager runs with --enable-taint-manager=false (")
            && said[0].ends_with(".karmada-policy.yaml:3), so no taint manager evicts: nothing will fail over"),
        "{said:?}"
    );
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "controllerManagerFlags:\n  enable-no-execute-taint-eviction: true\n",
    )
    .unwrap();
    // The gate off on the command line is said as before, whatever the flag.
    let (said, _) = failover(&["--feature-gates", "Failover=false"]);
    assert_eq!(
        said,
        ["failover-gate-off: pp/shop/web relies on cluster failover (spec.failover.cluster) but the Failover feature gate is disabled: nothing will fail over"]
    );
    std::fs::remove_file(d.join(".karmada-policy.yaml")).unwrap();

    // Neither sets it: Karmada's default, off.
    std::fs::write(d.join("karmada.yaml"), deployment("        - --v=4\n")).unwrap();
    let (said, _) = failover(&[]);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0]
            .contains("but --enable-no-execute-taint-eviction is off by default in Karmada 1.17"),
        "{said:?}"
    );
}

/// A karmada-scheduler Deployment run with `--scheduler-name=custom` (as LavredisG/karmada
/// deploys its own schedulers) serves policies naming `custom`: `scheduler-name-not-served`
/// reads the name from it, as lint over the working tree and lint at a revision read the
/// controller-manager's settings, and still reports another name, saying which are served and
/// where. The configuration's `schedulers:` add to them.
#[test]
fn a_karmada_scheduler_deployment_serves_its_scheduler_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("scheduler.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: custom-scheduler, namespace: karmada-system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: karmada-scheduler\n        image: docker.io/karmada/karmada-scheduler:v1.17.0\n        command:\n        - /bin/karmada-scheduler\n        - --kubeconfig=/etc/karmada/config/karmada.config\n        - --scheduler-name=custom\n",
    )
    .unwrap();
    std::fs::write(d.join("app.yaml"), WEB).unwrap();
    let policy = |name: &str, scheduler: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  schedulerName: {scheduler}\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {{clusterAffinity: {{clusterNames: [member1]}}}}\n")
    };
    std::fs::write(d.join("custom.yaml"), policy("custom", "custom")).unwrap();
    let unserved = |o: &Output| -> Vec<(String, String)> {
        json(o)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "scheduler-name-not-served")
            .map(|f| {
                (
                    f["file"].as_str().unwrap().to_string(),
                    f["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let said =
        "note: the inputs: Karmada settings from karmada-scheduler `custom` (scheduler.yaml:13)";

    let lint = run_in(d, &["lint", "-o", "json", "."]);
    assert!(unserved(&lint).is_empty(), "{}", text(&lint.stdout));
    assert!(text(&lint.stderr).contains(said), "{}", text(&lint.stderr));

    std::fs::write(d.join("other.yaml"), policy("other", "other")).unwrap();
    let reported = [(
        "other.yaml".to_string(),
        "pp/shop/other sets schedulerName `other`: karmada-scheduler (`--scheduler-name`, default `default-scheduler`) skips its bindings, so its templates are scheduled only where a scheduler named `other` runs; schedulers read besides the default: `custom` (scheduler.yaml:13)".to_string(),
    )];
    let lint = run_in(d, &["lint", "-o", "json", "."]);
    assert_eq!(unserved(&lint), reported);
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "all"]);
    let at_head = run_in(d, &["lint", "-o", "json", "--rev", "HEAD"]);
    assert_eq!(unserved(&at_head), reported, "{}", text(&at_head.stderr));

    // Without the Deployment, the name is served by no scheduler read.
    std::fs::remove_file(d.join("scheduler.yaml")).unwrap();
    let lint = run_in(d, &["lint", "-o", "json", "."]);
    let files: Vec<String> = unserved(&lint).into_iter().map(|(f, _)| f).collect();
    assert_eq!(files, ["custom.yaml", "other.yaml"]);
    // The configuration names one, the repository the other: both are served.
    std::fs::write(d.join(".karmada-policy.yaml"), "schedulers: [other]\n").unwrap();
    git(d, &["checkout", "-q", "scheduler.yaml"]);
    let lint = run_in(d, &["lint", "-o", "json", "."]);
    assert!(unserved(&lint).is_empty(), "{}", text(&lint.stdout));
}

/// explain says what lint says of a `schedulerName` no scheduler serves, from the same served
/// names (the repository's karmada-scheduler Deployment, the configuration's `schedulers:`):
/// the template's owner is never scheduled.
#[test]
fn explain_and_lint_agree_on_an_unserved_scheduler_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("scheduler.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: custom-scheduler, namespace: karmada-system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: karmada-scheduler\n        image: docker.io/karmada/karmada-scheduler:v1.17.0\n        command: [/bin/karmada-scheduler, --scheduler-name=custom]\n",
    )
    .unwrap();
    // The Deployment alone: the policy is the test's own.
    let deployment = WEB.split("---").next().unwrap();
    std::fs::write(d.join("app.yaml"), deployment).unwrap();
    let policy = |scheduler: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: shop}}\nspec:\n  schedulerName: {scheduler}\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {{clusterAffinity: {{clusterNames: [member1]}}}}\n")
    };
    let never_scheduled = "pp/shop/web sets schedulerName `other`, which no karmada-scheduler of this control plane serves";
    let judged = |d: &Path| {
        let explain = run_in(
            d,
            &[
                "explain",
                "deploy/web",
                "-n",
                "shop",
                "-f",
                ".",
                "-o",
                "json",
            ],
        );
        let notes: Vec<String> = json(&explain)["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect();
        let lint = run_in(d, &["lint", "-o", "json", "."]);
        let lint_says = json(&lint)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "scheduler-name-not-served");
        (
            notes.iter().any(|n| n.starts_with(never_scheduled)),
            lint_says,
        )
    };
    std::fs::write(d.join("pp.yaml"), policy("custom")).unwrap();
    assert_eq!(judged(d), (false, false));
    std::fs::write(d.join("pp.yaml"), policy("other")).unwrap();
    assert_eq!(judged(d), (true, true));
    std::fs::write(d.join(".karmada-policy.yaml"), "schedulers: [other]\n").unwrap();
    assert_eq!(judged(d), (false, false));
}

/// `lint --base` reads both sides, and each has the same to say of a file the change does not
/// touch: every note is said once.
#[test]
fn lint_base_says_each_note_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("data.json"), "{\"a\": 1}\n").unwrap();
    // An Argo CD repository whose Application's source is elsewhere.
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: web, namespace: argocd}\nspec:\n  project: default\n  source: {repoURL: https://example.com/other.git, targetRevision: main, path: chart}\n  destination: {name: karmada, namespace: web}\n";
    std::fs::write(d.join("app.yaml"), app).unwrap();
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "base"]);
    std::fs::write(d.join("app.yaml"), format!("{app}# changed\n")).unwrap();
    let o = run_in(d, &["lint", "--base", "HEAD", "."]);
    let stderr = text(&o.stderr);
    let skipped = "note: data.json: not a Kubernetes object (no apiVersion/kind): skipped";
    assert_eq!(stderr.matches(skipped).count(), 1, "{stderr}");
}

const PREEMPTING_CHART: &str = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  chart:\n    spec: {chart: karmada, version: \"1.16.0\", sourceRef: {kind: HelmRepository, name: karmada}}\n  values:\n    controllerManager:\n      featureGates: {PropagationPolicyPreemption: true}\n";

fn rules_of(o: &Output) -> Vec<String> {
    json(o)["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{}{}", text(&o.stdout), text(&o.stderr)))
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

/// A git repository (initialised, nothing added) that installs the chart with preemption on
/// in `infra/`, and holds a Deployment and a takeover policy in `apps/`.
fn chart_elsewhere(d: &Path) {
    std::fs::create_dir_all(d.join("infra")).unwrap();
    std::fs::create_dir_all(d.join("apps")).unwrap();
    std::fs::write(d.join("infra/karmada.yaml"), PREEMPTING_CHART).unwrap();
    std::fs::write(d.join("apps/app.yaml"), WEB).unwrap();
    std::fs::write(d.join("apps/takeover.yaml"), TAKEOVER).unwrap();
    git(d, &["init", "-q"]);
}

/// A Karmada chart in `chart` (Karmada 1.12, PropagateDeps off) and, in `policies`, a
/// Deployment using a ConfigMap that its PropagationPolicy's propagateDeps alone would send.
fn karmada_chart_and_policies(chart: &Path, policies: &Path) {
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::create_dir_all(policies).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: karmada\nversion: v1.12.0\nappVersion: v1.12.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("values.yaml"), "tag: v1.12.0\n").unwrap();
    // A partial, as every real chart has: a revision's chart is written out whole.
    std::fs::write(
        chart.join("templates/_helpers.tpl"),
        "{{- define \"karmada.name\" -}}karmada{{- end -}}\n",
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/karmada-controller-manager.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"karmada.name\" . }}-controller-manager\n  namespace: {{ .Release.Namespace }}\nspec:\n  selector: {matchLabels: {app: kcm}}\n  template:\n    metadata: {labels: {app: kcm}}\n    spec:\n      containers:\n      - name: karmada-controller-manager\n        image: docker.io/karmada/karmada-controller-manager:{{ .Values.tag }}\n        command:\n        - /bin/karmada-controller-manager\n        - --feature-gates=PropagateDeps=false\n",
    )
    .unwrap();
    std::fs::write(
        policies.join("app.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: demo}\nspec:\n  template:\n    spec:\n      volumes: [{name: c, configMap: {name: web-conf}}]\n      containers: [{name: web, image: nginx}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-conf, namespace: demo}\ndata: {a: b}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: demo}\nspec:\n  propagateDeps: true\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n",
    )
    .unwrap();
}

/// A lint of one directory of a repository (or of the files a pre-commit hook passes) judges
/// in the Karmada the rest of the git repository installs, as a lint of its root does; so do
/// explain and preempt-check over the directory. Before, `lint apps` judged in the release's
/// defaults (inert-preemption) what `lint .` judged under the repository's gates. Only
/// tracked files are read, and installations that differ are not chosen between.
#[test]
fn a_directory_takes_the_karmada_its_repository_installs_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    chart_elsewhere(d);
    let inert = |o: &Output| rules_of(o).contains(&"inert-preemption".to_string());

    // Untracked, the installation is not the repository's.
    let lint = run_in(d, &["lint", "-o", "json", "apps"]);
    assert!(inert(&lint), "{}", text(&lint.stdout));

    git(d, &["add", "-A"]);
    let said = "note: the inputs hold no installation of Karmada; the one elsewhere in their git repository is taken: HelmRelease karmada-system/karmada at infra/karmada.yaml:1";
    for args in [
        &["lint", "-o", "json", "apps"][..],
        &["lint", "-o", "json", "apps/app.yaml", "apps/takeover.yaml"],
    ] {
        let lint = run_in(d, args);
        assert!(
            text(&lint.stderr).contains(said),
            "{args:?}: {}",
            text(&lint.stderr)
        );
        assert!(!inert(&lint), "{args:?}: {}", text(&lint.stdout));
    }
    // The git modes read the rest of the revision they lint.
    git(d, &["commit", "-qm", "all"]);
    for mode in [
        &["--staged"][..],
        &["--rev", "HEAD"],
        &["--base", "HEAD", "--all-findings"],
    ] {
        let lint = run_in(d, &[&["lint", "-o", "json"][..], mode, &["apps"]].concat());
        assert!(
            text(&lint.stderr).contains(said),
            "{mode:?}: {}",
            text(&lint.stderr)
        );
        assert!(!inert(&lint), "{mode:?}: {}", text(&lint.stdout));
    }
    // From inside the directory, the file is named as the user reaches it.
    let lint = run_in(&d.join("apps"), &["lint", "-o", "json", "."]);
    assert!(
        text(&lint.stderr)
            .contains("is taken: HelmRelease karmada-system/karmada at ../infra/karmada.yaml:1"),
        "{}",
        text(&lint.stderr)
    );
    assert!(!inert(&lint), "{}", text(&lint.stdout));

    explain_takes_the_installation(d, "apps", said);
    let check = run_in(
        d,
        &[
            "preempt-check",
            "-f",
            "apps/app.yaml",
            "--apply",
            "apps/takeover.yaml",
            "-o",
            "json",
        ],
    );
    assert_eq!(
        json(&check)["resources"][0]["preempted"],
        true,
        "{}",
        text(&check.stdout)
    );

    // plan of the directory: the takeover, added after the commit, preempts under the gates
    // of the installation in the rest of the repository.
    git(d, &["rm", "-q", "--cached", "apps/takeover.yaml"]);
    git(d, &["commit", "-qm", "without the takeover"]);
    let plan = run_in(d, &["plan", "--base", "HEAD", "-o", "json", "apps"]);
    assert!(text(&plan.stderr).contains(said), "{}", text(&plan.stderr));
    let v = json(&plan);
    let web = v["environments"][0]["changes"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .find(|c| c["template"]["name"] == "web")
        .unwrap_or_else(|| panic!("{v}"))
        .clone();
    assert_eq!(web["owner"]["change"], "preempted", "{web}");

    // A directory `ignorePaths` leaves out is left out of the search, as of a lint of the root.
    std::fs::write(d.join(".karmada-policy.yaml"), "ignorePaths: [infra]\n").unwrap();
    let lint = run_in(d, &["lint", "-o", "json", "apps"]);
    assert!(inert(&lint), "{}", text(&lint.stderr));
    std::fs::remove_file(d.join(".karmada-policy.yaml")).unwrap();

    // A second installation with other gates: which one runs the directory is not known.
    std::fs::write(
        d.join("infra/karmada-staging.yaml"),
        PREEMPTING_CHART
            .replace("name: karmada,", "name: karmada-staging,")
            .replace(
                "PropagationPolicyPreemption: true",
                "PropagationPolicyPreemption: false",
            ),
    )
    .unwrap();
    git(d, &["add", "-A"]);
    let lint = run_in(d, &["lint", "-o", "json", "-v=1", "apps"]);
    assert!(inert(&lint), "{}", text(&lint.stdout));
    assert!(
        text(&lint.stderr).contains("the rest of their git repository holds 2 that differ (HelmRelease karmada-system/karmada-staging at infra/karmada-staging.yaml:1; HelmRelease karmada-system/karmada at infra/karmada.yaml:1): none is taken"),
        "{}",
        text(&lint.stderr)
    );
}

/// `lint --base` over a change to the installation itself judges each revision in the Karmada
/// it installs, as lint --base over a GitOps repository judges each side's environments: a
/// change that turns preemption off makes the takeover's `preemption: Always` inert, a warning
/// new with the change. Before, both revisions were judged under the head's gates, the warning
/// was on both sides, and the pull request that brought it passed clean.
#[test]
fn lint_base_judges_each_revision_in_the_karmada_it_installs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    chart_elsewhere(d);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "preemption on"]);
    std::fs::write(
        d.join("infra/karmada.yaml"),
        PREEMPTING_CHART.replace(
            "PropagationPolicyPreemption: true",
            "PropagationPolicyPreemption: false",
        ),
    )
    .unwrap();
    git(d, &["commit", "-qam", "preemption off"]);

    let said = "note: the Karmada the inputs run in changes with the change (release 1.16 at the base, 1.16 at head; feature gates or controller-manager flags): each revision is judged in its own, so a finding the head's settings bring is new";
    // The installation among the inputs, and elsewhere in the repository.
    for inputs in [".", "apps"] {
        let lint = run_in(
            d,
            &[
                "lint",
                "--base",
                "HEAD~1",
                "--fail-on",
                "warning",
                "-o",
                "json",
                inputs,
            ],
        );
        assert!(
            text(&lint.stderr).contains(said),
            "{inputs}: {}",
            text(&lint.stderr)
        );
        assert_eq!(
            rules_of(&lint),
            ["inert-preemption"],
            "{inputs}: {}",
            text(&lint.stdout)
        );
        assert_eq!(lint.status.code(), Some(1), "{inputs}");
    }
    // Without the change to the installation, the warning is an old one.
    let lint = run_in(d, &["lint", "--base", "HEAD", "-o", "json", "."]);
    assert!(
        !text(&lint.stderr).contains("changes with the change"),
        "{}",
        text(&lint.stderr)
    );
    assert!(rules_of(&lint).is_empty(), "{}", text(&lint.stdout));
}

/// A repository that vendors Karmada's chart (its templates are not YAML before helm renders
/// them, as in a public repository's `helm/karmada`) and keeps its policies in another
/// directory: a lint of that directory renders the chart, as a lint of the root renders it,
/// and judges under the release and gates the chart installs (PropagateDeps off: the
/// dependency is not propagated), named at the template; explain agrees. Before, the chart's
/// raw templates were read as manifests: not at all, or (one that happened to parse) half,
/// the gates without the release. Without helm, the chart is not read, said at `-v=1`.
#[test]
fn a_directory_takes_the_karmada_a_vendored_chart_installs() {
    let test = "a_directory_takes_the_karmada_a_vendored_chart_installs";
    if !kustomize::helm_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let chart = d.join("charts/karmada");
    karmada_chart_and_policies(&chart, &d.join("policies"));
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);

    let inert = "dependency-not-propagated".to_string();
    let root = run_in(d, &["lint", "-o", "json", "."]);
    assert!(rules_of(&root).contains(&inert), "{}", text(&root.stdout));
    let lint = run_in(d, &["lint", "-o", "json", "policies"]);
    assert!(rules_of(&lint).contains(&inert), "{}", text(&lint.stdout));
    assert!(
        text(&lint.stderr).contains("is taken: Deployment default/karmada-controller-manager at charts/karmada/templates/karmada-controller-manager.yaml:1"),
        "{}",
        text(&lint.stderr)
    );
    let eventual = |inputs: &str| {
        json(&run_in(
            d,
            &[
                "explain",
                "cm/web-conf",
                "-n",
                "demo",
                "-f",
                inputs,
                "-o",
                "json",
            ],
        ))["eventual"]
            .clone()
    };
    assert_eq!(eventual("policies"), eventual("."));
    assert_eq!(eventual("policies"), J::Null);

    // At a revision the chart is written out and rendered alike: `--base` sees one
    // installation on both sides, not a change of it.
    git(d, &["commit", "-qm", "chart and policies"]);
    let rev = run_in(d, &["lint", "-o", "json", "--rev", "HEAD", "policies"]);
    assert!(rules_of(&rev).contains(&inert), "{}", text(&rev.stdout));
    let base = run_in(
        d,
        &[
            "lint",
            "-o",
            "json",
            "--base",
            "HEAD",
            "--all-findings",
            "policies",
        ],
    );
    assert!(rules_of(&base).contains(&inert), "{}", text(&base.stdout));
    assert!(
        !text(&base.stderr).contains("changes with the change"),
        "{}",
        text(&base.stderr)
    );
    let new_only = run_in(d, &["lint", "-o", "json", "--base", "HEAD", "policies"]);
    assert!(rules_of(&new_only).is_empty(), "{}", text(&new_only.stdout));
    let plan = run_in(d, &["plan", "--base", "HEAD", "policies"]);
    assert!(
        !text(&plan.stderr).contains("changes with the change"),
        "{}",
        text(&plan.stderr)
    );

    // A chart that does not render is not read either, and the note says helm's words.
    std::fs::write(
        chart.join("templates/_helpers.tpl"),
        "{{- define \"karmada.name\" -}}karmada\n",
    )
    .unwrap();
    let broken = run_in(d, &["lint", "-o", "json", "policies"]);
    defaults_because(&broken, "helm template failed: ");
    // Broken at the base only: the note says which side it is of, on one line.
    git(d, &["commit", "-qam", "broken chart"]);
    git(d, &["checkout", "HEAD~1", "--", "charts"]);
    let mended = run_in(d, &["lint", "--base", "HEAD", "policies"]);
    let stderr = text(&mended.stderr);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("helm template failed"))
        .collect();
    assert_eq!(said.len(), 1, "{}", text(&mended.stderr));
    assert!(
        said[0].starts_with("note: the base: the Helm chart charts/karmada may install Karmada and is not read: helm template failed: ")
            && said[0].ends_with("Use --debug flag to render out invalid YAML"),
        "{}",
        text(&mended.stderr)
    );

    // Without helm the chart is not read: the release's defaults, and why.
    let without = Command::new(BIN)
        .args(["lint", "-o", "json", "policies"])
        .current_dir(d)
        .env("NO_COLOR", "1")
        .env("PATH", d.join("no-tools"))
        .output()
        .unwrap();
    defaults_because(&without, "helm is not on PATH");
}

/// A repository whose root is Karmada's chart, with policies in a directory of their own that
/// the chart does not render: `lint policies` takes the chart's Karmada, in the working tree
/// and at a revision (where the chart is written out under a temporary name, but released
/// under the working tree's one). Before, a chart the inputs lay in was never elsewhere.
#[test]
fn a_chart_at_the_repository_root_is_the_karmada_of_its_other_directories() {
    let test = "a_chart_at_the_repository_root_is_the_karmada_of_its_other_directories";
    if !kustomize::helm_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("Fleet_Root");
    karmada_chart_and_policies(&d, &d.join("policies"));
    git(&d, &["init", "-q"]);
    git(&d, &["add", "-A"]);
    git(&d, &["commit", "-qm", "chart and policies"]);
    let inert = "dependency-not-propagated".to_string();
    let said = "is taken: Deployment default/karmada-controller-manager at templates/karmada-controller-manager.yaml:1";
    for mode in [
        &[][..],
        &["--rev", "HEAD"],
        &["--base", "HEAD", "--all-findings"],
    ] {
        let lint = run_in(
            &d,
            &[&["lint", "-o", "json"][..], mode, &["policies"]].concat(),
        );
        assert!(
            rules_of(&lint).contains(&inert),
            "{mode:?}: {}",
            text(&lint.stdout)
        );
        assert!(
            text(&lint.stderr).contains(said),
            "{mode:?}: {}",
            text(&lint.stderr)
        );
    }
    // A lint of the root reads the policies beside the chart too (helm renders none of them),
    // judged with it, under the chart's Karmada: before, `lint .` read no policy at all.
    let root = run_in(&d, &["lint", "-o", "json", "."]);
    assert!(rules_of(&root).contains(&inert), "{}", text(&root.stdout));
    assert_eq!(
        json(&root)["summary"]["policies"],
        1,
        "{}",
        text(&root.stdout)
    );
    // The chart's own directories are the chart's: a lint of its templates reads them raw
    // and takes nothing from elsewhere.
    let templates = run_in(&d, &["lint", "-o", "json", "templates"]);
    assert!(
        !text(&templates.stderr).contains("is taken"),
        "{}",
        text(&templates.stderr)
    );
}

/// Karmada's own chart writes `--controllers` in an `{{- if }}` block before the feature
/// gates: when the block renders nothing, the gate read from the rendered Deployment is still
/// located at the template line that writes it, not at the line the block left out.
#[test]
fn a_gate_behind_a_block_that_renders_nothing_is_located_where_it_is_written() {
    let test = "a_gate_behind_a_block_that_renders_nothing_is_located_where_it_is_written";
    if !kustomize::helm_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("chart/templates")).unwrap();
    std::fs::write(
        d.join("chart/Chart.yaml"),
        "apiVersion: v2\nname: karmada\nversion: v1.17.0\n",
    )
    .unwrap();
    std::fs::write(
        d.join("chart/values.yaml"),
        "controllers: \"\"\ngates: PropagationPolicyPreemption=true\n",
    )
    .unwrap();
    std::fs::write(
        d.join("chart/templates/kcm.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karmada-controller-manager, namespace: karmada-system}\nspec:\n  selector: {matchLabels: {app: kcm}}\n  template:\n    metadata: {labels: {app: kcm}}\n    spec:\n      containers:\n        - name: karmada-controller-manager\n          image: docker.io/karmada/karmada-controller-manager:v1.17.0\n          command:\n            - /bin/karmada-controller-manager\n            {{- if .Values.controllers }}\n            - --controllers={{ .Values.controllers }}\n            {{- end }}\n            {{- with .Values.gates }}\n            - --feature-gates={{ . }}\n            {{- end }}\n",
    )
    .unwrap();
    let lint = run_in(d, &["lint", "-o", "json", "."]);
    let gates = &json(&lint)["environments"][0]["karmadaInstallation"]["featureGates"];
    assert_eq!(
        gates,
        &serde_json::json!([{"name": "PropagationPolicyPreemption", "enabled": true,
            "file": "chart/templates/kcm.yaml", "line": 18}]),
        "{}",
        text(&lint.stdout)
    );
    assert!(
        text(&lint.stderr)
            .contains("PropagationPolicyPreemption=true (chart/templates/kcm.yaml:18)"),
        "{}",
        text(&lint.stderr)
    );
}

/// An umbrella chart of the repository's own that templates the HelmRelease of Karmada's
/// chart: rendered, its HelmRelease is the installation a lint of another directory takes, as
/// the raw file was before charts were rendered.
#[test]
fn an_umbrella_chart_templating_the_karmada_release_is_read() {
    let test = "an_umbrella_chart_templating_the_karmada_release_is_read";
    if !kustomize::helm_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    chart_elsewhere(d);
    let chart = d.join("charts/infra");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: infra\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::rename(
        d.join("infra/karmada.yaml"),
        chart.join("templates/karmada.yaml"),
    )
    .unwrap();
    git(d, &["add", "-A"]);
    let lint = run_in(d, &["lint", "-o", "json", "apps"]);
    assert!(
        !rules_of(&lint).contains(&"inert-preemption".to_string()),
        "{}",
        text(&lint.stdout)
    );
    assert!(
        text(&lint.stderr).contains(
            "is taken: HelmRelease karmada-system/karmada at charts/infra/templates/karmada.yaml:1"
        ),
        "{}",
        text(&lint.stderr)
    );
}

/// A lint of `policies` that judged in the release's defaults (PropagateDeps on: no
/// `dependency-not-propagated`) because the chart in `charts/karmada` was not read, and said why.
fn defaults_because(o: &Output, why: &str) {
    assert!(
        !rules_of(o).contains(&"dependency-not-propagated".to_string()),
        "{}",
        text(&o.stdout)
    );
    let said =
        format!("note: the Helm chart charts/karmada may install Karmada and is not read: {why}");
    assert!(text(&o.stderr).contains(&said), "{}", text(&o.stderr));
}

/// A link from outside into a repository (`/srv/prod -> ~/fleet/apps`) reaches the files of
/// that working tree: a lint or explain through it takes the Karmada the repository installs,
/// as a lint of the directory inside it does. Before, the search started from the link's own
/// directory, found no repository, and judged in the release's defaults.
#[cfg(unix)]
#[test]
fn a_link_into_a_repository_takes_the_karmada_it_installs() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("fleet");
    std::fs::create_dir(&repo).unwrap();
    chart_elsewhere(&repo);
    git(&repo, &["add", "-A"]);
    let outside = dir.path().join("srv");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(repo.join("apps"), outside.join("prod")).unwrap();

    let said = "note: the inputs hold no installation of Karmada; the one elsewhere in their git repository is taken: HelmRelease karmada-system/karmada at ../fleet/infra/karmada.yaml:1";
    let lint = run_in(&outside, &["lint", "-o", "json", "prod"]);
    assert!(text(&lint.stderr).contains(said), "{}", text(&lint.stderr));
    assert!(
        !rules_of(&lint).contains(&"inert-preemption".to_string()),
        "{}",
        text(&lint.stdout)
    );
    explain_takes_the_installation(&outside, "prod", said);
}

/// The same in a Flux repository linted by its Karmada directory (the layout of a Flux
/// cluster applying `./karmada/apps` with the Karmada API server's kubeconfig, the chart
/// installed from another directory): the environment is judged under the chart's gates.
#[test]
fn a_flux_directory_takes_the_karmada_its_repository_installs_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("infra")).unwrap();
    std::fs::create_dir_all(d.join("karmada/apps")).unwrap();
    std::fs::write(d.join("infra/karmada.yaml"), PREEMPTING_CHART).unwrap();
    std::fs::write(
        d.join("karmada/ks.yaml"),
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: karmada-apps, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./karmada/apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n  kubeConfig:\n    secretRef: {name: karmada-kubeconfig}\n",
    )
    .unwrap();
    std::fs::write(d.join("karmada/apps/app.yaml"), WEB).unwrap();
    std::fs::write(d.join("karmada/apps/takeover.yaml"), TAKEOVER).unwrap();
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    let lint = run_in(d, &["lint", "-o", "json", "karmada"]);
    let v = json(&lint);
    assert!(
        !rules_of(&lint).contains(&"inert-preemption".to_string()),
        "{v}"
    );
    let env = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["karmadaApiServer"] == true)
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(env["karmadaVersion"], "1.16", "{env}");
    assert_eq!(
        env["karmadaInstallation"]["file"], "infra/karmada.yaml",
        "{env}"
    );
    explain_takes_the_installation(d, "karmada", "elsewhere in their git repository is taken");

    // Two inputs whose common directory is the repository's root: the search leaves out the
    // inputs, not everything under that directory.
    std::fs::create_dir_all(d.join("other")).unwrap();
    std::fs::write(
        d.join("other/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n",
    )
    .unwrap();
    git(d, &["add", "-A"]);
    let two = json(&run_in(d, &["lint", "-o", "json", "karmada", "other"]));
    let env = two["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["karmadaApiServer"] == true)
        .unwrap_or_else(|| panic!("{two}"));
    assert_eq!(env["karmadaVersion"], "1.16", "{two}");

    // From inside the Flux directory: `./karmada/apps` is found from the repository's root, as
    // Flux finds it, and the installation is named from here.
    let here = run_in(&d.join("karmada"), &["lint", "-o", "json", "."]);
    let v = json(&here);
    let env = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["karmadaApiServer"] == true)
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(env["name"], "karmada/karmada-kubeconfig", "{v}");
    assert_eq!(
        env["karmadaInstallation"]["file"], "../infra/karmada.yaml",
        "{env}"
    );
    assert!(
        !rules_of(&here).contains(&"inert-preemption".to_string()),
        "{v}"
    );

    // The git modes render a revision outside git: its installation is read from the same
    // revision, so both sides of plan are judged alike (no note of changed settings).
    git(d, &["commit", "-qm", "all"]);
    let lint = run_in(
        d,
        &[
            "lint",
            "-o",
            "json",
            "--base",
            "HEAD",
            "--all-findings",
            "karmada",
        ],
    );
    assert!(
        !rules_of(&lint).contains(&"inert-preemption".to_string()),
        "{}",
        text(&lint.stdout)
    );
    let plan = run_in(d, &["plan", "--base", "HEAD", "karmada"]);
    let said = text(&plan.stderr);
    assert!(
        said.contains("elsewhere in their git repository is taken"),
        "{said}"
    );
    assert!(!said.contains("changes with the change"), "{said}");
}

/// The configuration's `knownClusters` is the fleet of every subcommand when no Cluster object
/// is given: a placement whose names decide it, naming a cluster outside the fleet, fits no
/// known cluster for `lint`, and `explain` and `plan` place the template nowhere either (Karmada
/// schedules over the registered Clusters only), rather than on the unknown name.
#[test]
fn known_clusters_are_the_fleet_of_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "knownClusters: [member1, member2]\n",
    )
    .unwrap();
    std::fs::write(
        d.join("app.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: 1}\n",
    )
    .unwrap();
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "base"]);
    std::fs::write(
        d.join("policy.yaml"),
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [member1, member9], exclude: [member1]}}\n",
    )
    .unwrap();
    let unavailable = "0/2 clusters are available: 2 cluster(s) did not match the placement cluster affinity constraint.";
    let lint = text(&run_in(d, &["lint", "."]).stdout);
    assert!(lint.contains(unavailable), "{lint}");
    let explain = text(&run_in(d, &["explain", "deploy/web", "-f", "."]).stdout);
    assert!(
        explain.contains(&format!("  no cluster selected: {unavailable}")),
        "{explain}"
    );
    assert!(!explain.contains("member9  dispatching"), "{explain}");
    let plan = text(&run_in(d, &["plan", "--base", "HEAD"]).stdout);
    assert!(
        plan.contains(&format!("    not scheduled: {unavailable}")),
        "{plan}"
    );
    assert!(!plan.contains("member9: gains it"), "{plan}");
}

/// With `knownClusters` the fleet is known by name: a placement that selects by labels is
/// left unevaluated, and `explain` (of the template and of the policy, text and JSON) says the
/// clusters are known by name only rather than that no cluster is known.
#[test]
fn clusters_known_by_name_only_are_said_under_a_placement_by_labels() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "knownClusters: [member1, member2]\n",
    )
    .unwrap();
    std::fs::write(
        d.join("app.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {replicas: 2}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {labelSelector: {matchLabels: {region: eu}}}}\n",
    )
    .unwrap();
    let said = "placement: not evaluated: knownClusters names the clusters by name only (member1, member2), and names alone do not decide this placement: it selects by labels, fields or taints, spreads, or divides replicas by the clusters' state (add the control plane's Cluster objects with -f, or explain against it with --context)\n";
    for what in ["deploy/web", "pp/web"] {
        let explain = text(&run_in(d, &["explain", what, "-n", "shop", "-f", "."]).stdout);
        assert!(explain.contains(said), "{explain}");
        assert!(
            !explain.contains("no Cluster objects are known"),
            "{explain}"
        );
        let out = run_in(d, &["explain", what, "-n", "shop", "-f", ".", "-o", "json"]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let unknown = &json["placementUnknown"];
        assert_eq!(
            unknown["knownClusters"],
            serde_json::json!(["member1", "member2"])
        );
        assert_eq!(unknown["namedClusters"], serde_json::json!([]));
        assert_eq!(
            format!("placement: {}\n", unknown["message"].as_str().unwrap()),
            said
        );
    }
    // Without the configuration nothing is known of the fleet, and it says so.
    std::fs::remove_file(d.join(".karmada-policy.yaml")).unwrap();
    let explain = text(&run_in(d, &["explain", "deploy/web", "-n", "shop", "-f", "."]).stdout);
    assert!(
        explain.contains("placement: not evaluated: no Cluster objects are known (add"),
        "{explain}"
    );
}

/// A spread constraint by label only fails every schedule whatever the clusters
/// ("just support cluster and region spread constraint"): without Cluster objects `explain` and
/// `plan` say so over the clusters the placement names, as `lint` does, rather than leave the
/// placement unevaluated (and dispatching to every named cluster).
#[test]
fn a_selection_that_fails_whatever_the_clusters_fails_in_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let policy = |spread: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement:\n    clusterAffinity: {{clusterNames: [member1, member2, member3]}}\n{spread}    replicaScheduling: {{replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {{dynamicWeight: AvailableReplicas}}}}\n")
    };
    std::fs::write(
        d.join("app.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: 3}\n",
    )
    .unwrap();
    std::fs::write(d.join("policy.yaml"), policy("")).unwrap();
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "base"]);
    let by_label = "    spreadConstraints: [{spreadByLabel: topology.example.io/pool, minGroups: 2, maxGroups: 2}]\n";
    std::fs::write(d.join("policy.yaml"), policy(by_label)).unwrap();
    let failure = "failed to select clusters: just support cluster and region spread constraint";
    let lint = text(&run_in(d, &["lint", "."]).stdout);
    assert!(
        lint.contains("error[spread-constraints-unschedulable]") && lint.contains(failure),
        "{lint}"
    );
    let explain = text(&run_in(d, &["explain", "deploy/web", "-f", "."]).stdout);
    assert!(
        explain.contains(&format!("  no cluster selected: {failure}\n")),
        "{explain}"
    );
    assert!(!explain.contains("dispatching"), "{explain}");
    assert!(!explain.contains("replicas unknown"), "{explain}");
    let plan = text(&run_in(d, &["plan", "--base", "HEAD"]).stdout);
    assert!(
        plan.contains(&format!("    not scheduled: {failure}: not a FitError, so the binding keeps the clusters it has\n")),
        "{plan}"
    );
}

/// A Flux bootstrap of the cluster directory `dir` (GitRepository and root Kustomization), and
/// a Kustomization `apps` applying `./deploy/apps` into `namespace`.
fn flux_cluster(d: &Path, dir: &str, namespace: &str) {
    let at = d.join(dir);
    std::fs::create_dir_all(&at).unwrap();
    std::fs::write(
        at.join("gotk-sync.yaml"),
        format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec: {{interval: 1m, url: 'ssh://git@example.com/fleet', ref: {{branch: main}}}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec: {{interval: 10m, path: ./{dir}, prune: true, sourceRef: {{kind: GitRepository, name: flux-system}}}}\n"),
    )
    .unwrap();
    std::fs::write(
        at.join("apps.yaml"),
        format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: apps, namespace: flux-system}}\nspec: {{interval: 10m, path: ./deploy/apps, prune: true, targetNamespace: {namespace}, sourceRef: {{kind: GitRepository, name: flux-system}}}}\n"),
    )
    .unwrap();
}

/// The configuration's `ignorePaths` is read by every subcommand: a cluster directory it
/// skips (an old bootstrap kept in the repository) is no environment of `explain`,
/// `preempt-check` or `suspend --env` either (before, only `lint` skipped it, and the other
/// three rendered it as a second Karmada environment).
#[test]
fn ignored_paths_are_no_environment_of_any_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    flux_cluster(d, "deploy/clusters/karmada", "shop");
    flux_cluster(d, "legacy/clusters/old", "old");
    std::fs::create_dir_all(d.join("deploy/apps")).unwrap();
    std::fs::write(
        d.join("deploy/apps/all.yaml"),
        WEB.replace("namespace: shop", ""),
    )
    .unwrap();
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "ignorePaths: [\"legacy/**\"]\n",
    )
    .unwrap();
    git(d, &["init", "-q", "."]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "fleet"]);

    let lint = run_in(d, &["lint", ".", "-o", "json"]);
    let report = json(&lint);
    let envs: Vec<&str> = report["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(envs, ["karmada"], "{}", text(&lint.stderr));

    let explain = run_in(d, &["explain", "deploy/web", "-n", "shop", "-f", "."]);
    let said = text(&explain.stdout);
    assert_eq!(
        explain.status.code(),
        Some(0),
        "{said}{}",
        text(&explain.stderr)
    );
    assert!(said.starts_with("Deployment shop/web"), "{said}");
    let elsewhere = run_in(d, &["explain", "deploy/web", "-n", "old", "-f", "."]);
    assert_eq!(
        elsewhere.status.code(),
        Some(4),
        "{}",
        text(&elsewhere.stdout)
    );

    let check = run_in(
        d,
        &[
            "preempt-check",
            "-f",
            ".",
            "--delete",
            "pp/web",
            "-n",
            "shop",
        ],
    );
    let said = text(&check.stdout);
    assert!(
        said.starts_with("Moves:\n  deployment/shop/web: pp/shop/web -> unclaimed"),
        "{said}"
    );

    let suspend = |env: &str, ns: &str| {
        run_in(
            d,
            &[
                "suspend",
                "-f",
                ".",
                "--env",
                env,
                "pp/web",
                "-n",
                ns,
                "--dry-run=client",
            ],
        )
    };
    let ok = suspend("karmada", "shop");
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    // A file named on purpose is not read past: lint says why there is nothing to lint, and a
    // change to check (`--apply`) is read wherever it lies.
    let named = run_in(d, &["lint", "legacy/clusters/old/apps.yaml"]);
    assert_eq!(named.status.code(), Some(2), "{}", text(&named.stdout));
    assert!(
        text(&named.stderr).contains("left out by the configuration's ignorePaths"),
        "{}",
        text(&named.stderr)
    );
    std::fs::write(d.join("legacy/takeover.yaml"), TAKEOVER).unwrap();
    let apply = run_in(
        d,
        &[
            "preempt-check",
            "-f",
            ".",
            "--apply",
            "legacy/takeover.yaml",
            "-n",
            "shop",
        ],
    );
    let said = text(&apply.stdout);
    assert!(
        said.contains("pp/shop/web-takeover (feature-gate-disabled)"),
        "{said}{}",
        text(&apply.stderr)
    );
    std::fs::remove_file(d.join("legacy/takeover.yaml")).unwrap();
    let ignored = suspend("old", "old");
    assert_eq!(ignored.status.code(), Some(2), "{}", text(&ignored.stdout));
    assert!(
        text(&ignored.stderr)
            .contains("--env old: neither a kustomization directory nor an environment"),
        "{}",
        text(&ignored.stderr)
    );
}

/// The configuration's `namespaces:` places the documents of a file applied with a namespace
/// for every subcommand: `explain` and `preempt-check` find the template and the policies
/// where `lint` names them (before, they read the file in `-n`'s namespace, else `default`,
/// and `explain` added a note that without `-n` the policy would be in `default`).
#[test]
fn configured_namespaces_place_documents_for_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("team-a")).unwrap();
    let unplaced = format!("{WEB}---\n{TAKEOVER}").replace("namespace: shop", "");
    std::fs::write(d.join("team-a/all.yaml"), unplaced).unwrap();
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "namespaces:\n  \"team-a/**\": team-a\n",
    )
    .unwrap();

    let lint = run_in(d, &["lint", ".", "-o", "json"]);
    let report = json(&lint);
    let namespaces: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["object"]["namespace"].as_str())
        .collect();
    assert!(
        !namespaces.is_empty() && namespaces.iter().all(|ns| *ns == "team-a"),
        "{report}"
    );

    let explain = run_in(
        d,
        &[
            "explain",
            "deploy/web",
            "-n",
            "team-a",
            "-f",
            ".",
            "-o",
            "json",
        ],
    );
    assert_eq!(explain.status.code(), Some(0), "{}", text(&explain.stderr));
    assert_eq!(
        json(&explain)["eventual"]["namespace"],
        "team-a",
        "{}",
        text(&explain.stdout)
    );
    assert!(
        !text(&explain.stderr).contains("sets no namespace"),
        "{}",
        text(&explain.stderr)
    );
    let unnamed = run_in(d, &["explain", "deploy/web", "-f", "."]);
    assert_eq!(unnamed.status.code(), Some(4), "{}", text(&unnamed.stdout));
    assert!(
        text(&unnamed.stderr).contains("it is in namespace team-a: add `-n team-a`"),
        "{}",
        text(&unnamed.stderr)
    );

    let check = run_in(
        d,
        &[
            "preempt-check",
            "-f",
            ".",
            "--delete",
            "pp/web-takeover",
            "-n",
            "team-a",
        ],
    );
    let said = text(&check.stdout);
    assert!(
        said.starts_with(
            "Moves:\n  deployment/team-a/web: pp/team-a/web-takeover -> pp/team-a/web"
        ),
        "{said}{}",
        text(&check.stderr)
    );
}
