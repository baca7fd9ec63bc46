//! What Karmada and the Kubernetes API server do where the tool once answered otherwise, through
//! the real binary. Each test names the source its expectation rests on.

use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .args(args)
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn lint_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["lint", "-o", "json"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = run(&all);
    let json = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\n{stderr}"));
    (code, json)
}

/// `(rule, field)` of every finding.
fn rule_fields(json: &Value) -> Vec<(String, String)> {
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or("").to_string(),
                f["field"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// apiextensions-apiserver `pkg/apiserver/schema/pruning/algorithm.go`: under
/// `x-kubernetes-preserve-unknown-fields` (the plaintext overrider's `value`, Karmada
/// `apiextensionsv1.JSON`) `skipPrune` keeps a list of objects whole, so strict decoding has
/// nothing to refuse and schema validation reports both operators outside the CRD's enum
/// (`charts/karmada/_crds/bases/policy/policy.karmada.io_overridepolicies.yaml`).
#[test]
fn a_plaintext_list_value_is_kept_and_the_real_enum_errors_are_found() {
    let (code, json) = lint_json(&["testdata/fidelity/plaintext-list-value.yaml"]);
    assert_eq!(code, 1);
    let path = "spec.overrideRules[0].overriders.plaintext";
    assert_eq!(
        rule_fields(&json),
        [
            ("schema-enum".to_string(), format!("{path}[1].operator")),
            ("schema-enum".to_string(), format!("{path}[2].operator")),
        ]
    );
    assert_eq!(
        json["findings"][0]["apiServerMessage"],
        format!("OverridePolicy.policy.karmada.io \"gpu-tolerations\" is invalid: [{path}[1].operator: Unsupported value: \"append\": supported values: \"add\", \"remove\", \"replace\", {path}[2].operator: Unsupported value: \"addIfAbsent\": supported values: \"add\", \"remove\", \"replace\"]")
    );
}

/// The API server stops at the first stage that refuses (admission-chain.md §1.2: a strict
/// decoding error is a 400 before any webhook runs). The first refusal stays the verdict, with
/// its `apiServerMessage`; what Karmada's mutating webhook (`json.Unmarshal` into
/// `PropagationSpec`, `pkg/webhook/propagationpolicy/mutating.go`) and the CRD schema refuse
/// after it is fixed comes marked `afterFix`, in every format, and never changes the exit code.
#[test]
fn every_error_of_an_object_in_one_pass() {
    let (code, json) = lint_json(&["testdata/fidelity/typo-then-priority.yaml"]);
    assert_eq!(code, 1);
    let findings = json["findings"].as_array().unwrap();
    let summary: Vec<(&str, &str, bool)> = findings
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap(),
                f["field"].as_str().unwrap(),
                f["afterFix"] == true,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("schema-unknown-field", "spec.resourceSelector", false),
            ("schema-type", "spec.priority", true),
            ("schema-enum", "spec.preemption", true),
        ]
    );
    assert_eq!(
        findings[0]["apiServerMessage"],
        "PropagationPolicy in version \"v1alpha1\" cannot be handled as a PropagationPolicy: strict decoding error: unknown field \"spec.resourceSelector\""
    );
    assert!(findings[1].get("apiServerMessage").is_none());
    let (_, text, _) = run(&["lint", "testdata/fidelity/typo-then-priority.yaml"]);
    assert_eq!(
        text.matches("= note: reported once this object's first refusal is fixed")
            .count(),
        2,
        "{text}"
    );
    let (_, sarif, _) = run(&[
        "lint",
        "-o",
        "sarif",
        "testdata/fidelity/typo-then-priority.yaml",
    ]);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    let marked = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["properties"]["afterFix"] == true)
        .count();
    assert_eq!(marked, 2);
    // The exit code is the verdict's: `--fail-on` ignores what is reported after a fix, so
    // with the first refusal's rule turned down nothing fails.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    std::fs::write(&config, "rules:\n  schema-unknown-field: warning\n").unwrap();
    let (code, _, stderr) = run(&[
        "lint",
        "--config",
        config.to_str().unwrap(),
        "testdata/fidelity/typo-then-priority.yaml",
    ]);
    assert_eq!(code, 0, "{stderr}");
}

fn have_git() -> bool {
    let ok = Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        println!("SKIPPED: git is not installed");
    }
    ok
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Alice Ops")
        .env("GIT_AUTHOR_EMAIL", "alice@example.com")
        .env("GIT_COMMITTER_NAME", "Alice Ops")
        .env("GIT_COMMITTER_EMAIL", "alice@example.com")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

const STORED_UNDER_1_17: &str = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: apps
spec:
  propagateDeps: true
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: web
  failover:
    application:
      decisionConditions:
        tolerationSeconds: 60
      purgeMode: Graciously
  placement:
    clusterAffinity:
      clusterNames: [member1]
";

/// `lint --base` over a repository: `base` committed, `head` in the work tree.
fn lint_base(base: &str, head: &str, extra: &[&str]) -> Option<(i32, Value)> {
    let mut args = vec!["lint", "-o", "json", "--base", "HEAD"];
    args.extend_from_slice(extra);
    args.push("pp.yaml");
    compare_revisions(base, head, &args)
}

/// `args` run in a repository whose commit holds `base` as `pp.yaml` and whose work tree holds
/// `head`; `None` (the test skipped) without git.
fn compare_revisions(base: &str, head: &str, args: &[&str]) -> Option<(i32, Value)> {
    if !have_git() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pp.yaml");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(&file, base).unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    std::fs::write(&file, head).unwrap();
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args(args)
        .output()
        .expect("binary runs");
    let json = serde_json::from_slice(&out.stdout).expect("JSON");
    Some((out.status.code().unwrap_or(-1), json))
}

/// A static weight of 0 (lreimer/green-kubernetes `karmada/propagationpolicy-weight.yaml`):
/// `+kubebuilder:validation:Minimum=1` on `StaticClusterWeight.Weight` since v1.0.0
/// (`pkg/apis/policy/v1alpha1/propagation_types.go`), so no release ever stored it.
const NEVER_STORED: &str = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: apps
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: web
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
          - targetCluster: {clusterNames: [member1]}
            weight: 1
          - targetCluster: {clusterNames: [member2]}
            weight: 0
";

/// The admission verdict `plan --base HEAD -o json` gives the one changed policy, and the
/// templates whose owner it says changes.
fn plan_admission(base: &str, head: &str) -> Option<(Value, Value)> {
    let args = [
        "plan",
        "-o",
        "json",
        "--base",
        "HEAD",
        "--karmada-version",
        "1.19",
    ];
    let (code, json) = compare_revisions(base, head, &args)?;
    assert_eq!(code, 1, "a change: {json}");
    let env = &json["environments"][0];
    assert_eq!(env["policies"].as_array().map(Vec::len), Some(1), "{json}");
    Some((
        env["policies"][0]["admission"].clone(),
        env["changes"].clone(),
    ))
}

const WEB_DEPLOYMENT: &str = "---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec:
  replicas: 2
  template: {spec: {containers: [{name: a, image: nginx}]}}
";

/// `lint --base` and `plan --base` judge a changed policy as one UPDATE against what the API
/// server can store. Ratcheting keeps only a stored value (`ratcheting.go` compares with the
/// old object): a base copy no release admits was never stored, so its head is a CREATE,
/// refused as before (an existing error, not a ratcheted warning); a base copy an older
/// release admits (`Graciously` under 1.17) may be stored, and the update is admitted, so plan
/// does not call the policy refused, and neither says its template changes owner (stored, the
/// base copy owned it).
#[test]
fn lint_base_and_plan_base_agree_on_what_the_api_server_stores() {
    let relabel = |s: &str| {
        s.replace(
            "  namespace: apps\n",
            "  namespace: apps\n  labels: {team: a}\n",
        )
    };
    let v119 = ["--karmada-version", "1.19"];
    let Some((code, json)) = lint_base(NEVER_STORED, &relabel(NEVER_STORED), &v119) else {
        return;
    };
    assert_eq!((code, &json["findings"]), (0, &serde_json::json!([])));
    let all = ["--karmada-version", "1.19", "--all-findings"];
    let (_, json) = lint_base(NEVER_STORED, &relabel(NEVER_STORED), &all).unwrap();
    let f = &json["findings"][0];
    assert_eq!(
        (
            f["rule"].as_str(),
            f["severity"].as_str(),
            f.get("ratcheted")
        ),
        (Some("schema-constraint"), Some("error"), None),
        "{json}"
    );
    let (admission, _) = plan_admission(NEVER_STORED, &relabel(NEVER_STORED)).unwrap();
    assert_eq!(admission["admitted"], false, "{admission}");

    let stored = format!("{STORED_UNDER_1_17}{WEB_DEPLOYMENT}");
    let (_, json) = lint_base(&stored, &relabel(&stored), &v119).unwrap();
    assert_eq!(json["findings"][0]["ratcheted"], true, "{json}");
    assert_eq!(json["ownershipChanges"], serde_json::json!([]), "{json}");
    let (admission, changes) = plan_admission(&stored, &relabel(&stored)).unwrap();
    assert_eq!(admission["admitted"], true, "{admission}");
    assert_eq!(changes, serde_json::json!([]));
}

/// An update that changes `spec.schedulerName` is denied by the validating webhook's
/// `validateUpdate` (`pkg/webhook/propagationpolicy/validating.go:71-75 @v1.19.0-rc.0`), and the
/// stored policy stays: `plan --base` says so as `lint --base` does (jittuki/Karmada-project
/// 754b468), where it called the update admitted.
#[test]
fn plan_base_refuses_a_scheduler_name_change_as_lint_base_does() {
    let base = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinity: {clusterNames: [member1]}
";
    let head = base.replace("spec:\n", "spec:\n  schedulerName: karmada-scheduler\n");
    let Some((code, json)) = lint_base(base, &head, &[]) else {
        return;
    };
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["findings"][0]["rule"], "scheduler-name-immutable");
    let (code, json) =
        compare_revisions(base, &head, &["plan", "-o", "json", "--base", "HEAD"]).unwrap();
    assert_eq!(code, 1, "{json}");
    assert_eq!(
        json["environments"][0]["policies"][0]["admission"],
        serde_json::json!({"admitted": false, "errors": ["the schedulerName should not be updated"]})
    );
}

/// CRD validation ratcheting (kubernetes/apiextensions-apiserver
/// `pkg/apiserver/validation/ratcheting.go`, on by default from Kubernetes 1.30, GA in 1.33;
/// Karmada installs kube-apiserver v1.31.3 from v1.12.0, `operator/pkg/constants`): an update
/// that leaves `purgeMode: Graciously` (valid under 1.17, outside 1.19's enum) as stored is
/// admitted, so `--base` reports an existing problem, not a rejection; a change of the value
/// itself is refused as on CREATE.
#[test]
fn an_update_that_keeps_an_invalid_value_is_an_existing_problem() {
    let head = STORED_UNDER_1_17.replace("[member1]", "[member1, member2]");
    let Some((code, json)) = lint_base(STORED_UNDER_1_17, &head, &["--karmada-version", "1.19"])
    else {
        return;
    };
    assert_eq!(code, 0, "{json}");
    let f = &json["findings"][0];
    assert_eq!(json["findings"].as_array().unwrap().len(), 1, "{json}");
    assert_eq!(
        (
            f["rule"].as_str(),
            f["severity"].as_str(),
            f["ratcheted"].as_bool()
        ),
        (Some("schema-enum"), Some("warning"), Some(true))
    );
    assert_eq!(f["field"], "spec.failover.application.purgeMode");
    // The value itself changed: validated, refused.
    let changed = STORED_UNDER_1_17.replace("Graciously", "Immediately");
    let (code, json) =
        lint_base(STORED_UNDER_1_17, &changed, &["--karmada-version", "1.19"]).unwrap();
    assert_eq!(code, 1, "{json}");
    let f = &json["findings"][0];
    assert_eq!(
        (
            f["rule"].as_str(),
            f["severity"].as_str(),
            f.get("ratcheted")
        ),
        (Some("schema-enum"), Some("error"), None)
    );
}

/// karmada `pkg/scheduler/core/generic_scheduler.go` `Schedule`: the filters leave member1
/// feasible, then `selectClusters` fails (`spreadconstraint/select_clusters_by_cluster.go:27-30`,
/// "the number of feasible clusters is less than spreadConstraint.MinGroups"). `clusters` is the
/// filter stage's feasible set and `error` says why nothing is scheduled.
#[test]
fn explain_lists_the_feasible_cluster_when_selection_fails() {
    let (code, stdout, stderr) = run(&[
        "explain",
        "deploy/web",
        "-n",
        "apps",
        "-f",
        "testdata/fidelity/spread-min-groups.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let placement = &json["placement"];
    assert_eq!(placement["clusters"], serde_json::json!(["member1"]));
    assert_eq!(placement["excluded"][0]["cluster"], "member2");
    assert_eq!(
        placement["error"],
        serde_json::json!({
            "reason": "SchedulerError",
            "message": "failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups"
        })
    );
}

/// karmada `pkg/detector/detector.go:382-384` (`LookForMatchedPolicy`): a template without a
/// namespace is never matched against PropagationPolicies, only against
/// ClusterPropagationPolicies (`LookForMatchedClusterPolicy`; `pkg/detector/policy.go:61-94`).
/// `lint` reports the selector with the fix, and `explain pp/NAME` says why it selects nothing
/// instead of "no template of its kinds exists in namespace gpu-operator".
#[test]
fn a_pp_selecting_a_namespace_is_told_to_be_a_cpp() {
    let file = "testdata/fidelity/pp-selects-namespace.yaml";
    let (code, json) = lint_json(&[file]);
    assert_eq!(code, 0, "a warning");
    assert_eq!(
        rule_fields(&json),
        [(
            "pp-selects-cluster-scoped".to_string(),
            "spec.resourceSelectors[0]".to_string()
        )]
    );
    let message = json["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.ends_with("make it a ClusterPropagationPolicy"),
        "{message}"
    );
    let (code, stdout, stderr) = run(&[
        "explain",
        "pp/gpu-operator-ns",
        "-n",
        "gpu-operator",
        "-f",
        file,
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let explained: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        explained["dead"],
        "the detector never matches its selectors: Namespace is cluster-scoped, and Karmada matches cluster-scoped templates only against ClusterPropagationPolicies (make it a ClusterPropagationPolicy)"
    );
}
