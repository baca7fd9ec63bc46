//! ClusterTaintPolicy end to end: the binary lints a file holding ClusterTaintPolicies through
//! the kind's admission chain (its CRD schema, then Karmada's `clustertaintpolicy.karmada.io`
//! webhook), honours `webhookFlags` in `.karmada-policy.yaml`, and, before Karmada 1.14, reports
//! the kind as not served.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

const POLICIES: &str = "apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata:
  name: evict-not-ready
spec:
  targetClusters:
    clusterNames: [member1]
  addOnConditions:
    - {conditionType: Ready, operator: NotIn, statusValues: [\"True\"]}
  taints:
    - {key: cluster.karmada.io/not-ready, effect: NoExecute}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata:
  name: dedicated
spec:
  targetClusters:
    clusterNames: [member1]
  addOnConditions:
    - {conditionType: Ready, operator: In, statusValues: [\"True\"]}
  taints:
    - {key: dedicated, value: gpu, effect: NoSchedule}
    - {key: dedicated, value: ml, effect: NoSchedule}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata:
  name: typo
spec:
  targetClusters:
    clusterNames: [member1]
  addOnConditions:
    - {conditionType: Ready, operator: In, statusValues: [\"True\"]}
  taint:
    - {key: dedicated, effect: NoSchedule}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata:
  name: clean
spec:
  targetClusters:
    clusterNames: [member1]
  addOnConditions:
    - {conditionType: Ready, operator: NotIn, statusValues: [\"True\"]}
  taints:
    - {key: cluster.karmada.io/not-ready, effect: NoSchedule}
";

fn lint(dir: &Path, args: &[&str]) -> (Output, Value) {
    let out = Command::new(BIN)
        .arg("lint")
        .arg("taints.yaml")
        .args(["-o", "json"])
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("HOME", "/nonexistent")
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out, json)
}

/// (rule, object name, field, line) of each finding.
fn rows(json: &Value) -> Vec<(String, String, String, u64)> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["object"]["name"].as_str().unwrap_or("").to_string(),
                f["field"].as_str().unwrap_or("").to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn row(rule: &str, name: &str, field: &str, line: u64) -> (String, String, String, u64) {
    (rule.into(), name.into(), field.into(), line)
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("taints.yaml"), POLICIES).unwrap();
    dir
}

#[test]
fn the_webhook_and_the_schema_refuse_as_the_api_server_does() {
    let dir = fixture();
    let (out, json) = lint(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(1), "errors found");
    assert_eq!(
        rows(&json),
        [
            row(
                "taint-no-execute-not-allowed",
                "evict-not-ready",
                "spec.taints[0]",
                11
            ),
            row("taint-duplicate", "dedicated", "spec.taints[0]", 23),
            row("schema-unknown-field", "typo", "spec.taint", 35),
        ]
    );
    // The webhook's refusals are warnings: only artifacts/deploy registers the webhook (the
    // Helm chart, the operator and karmadactl init store the policy as it is); the CRD's
    // strict decoding refuses everywhere.
    let severities: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["severity"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(severities, ["warning", "warning", "error"]);
    let messages: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["apiServerMessage"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        messages,
        [
            "admission webhook \"clustertaintpolicy.karmada.io\" denied the request: spec.taints[0]: Forbidden: Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags",
            "admission webhook \"clustertaintpolicy.karmada.io\" denied the request: spec.taints[0]: Duplicate value: \"Duplicate taint with the same key(dedicated) and effect(NoSchedule) is not allowed\"",
            "ClusterTaintPolicy in version \"v1alpha1\" cannot be handled as a ClusterTaintPolicy: strict decoding error: unknown field \"spec.taint\"",
        ]
    );
}

#[test]
fn the_webhook_flag_in_the_configuration_admits_no_execute() {
    let dir = fixture();
    std::fs::write(
        dir.path().join(".karmada-policy.yaml"),
        "webhookFlags:\n  allow-no-execute-taint-policy: true\n",
    )
    .unwrap();
    let (_, json) = lint(dir.path(), &[]);
    let rules: Vec<String> = rows(&json).into_iter().map(|r| r.0).collect();
    assert_eq!(rules, ["taint-duplicate", "schema-unknown-field"]);
}

#[test]
fn karmada_1_13_does_not_serve_the_kind() {
    let dir = fixture();
    let (out, json) = lint(dir.path(), &["--karmada-version", "1.13"]);
    assert_eq!(out.status.code(), Some(1));
    let found = rows(&json);
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(
        found.iter().all(|r| r.0 == "unserved-karmada-kind"),
        "{found:?}"
    );
    let (_, json) = lint(dir.path(), &["--karmada-version", "1.14"]);
    assert_eq!(rows(&json).len(), 3);
}

/// The Helm chart and the operator register no ClusterTaintPolicy webhook (through v1.19):
/// where the files install Karmada so, nothing refuses a NoExecute taint and the rule says
/// nothing; a karmada-controller-manager Deployment says nothing of the webhook, and the
/// warning stays. A duplicate taint is still said: its second taint is never applied.
#[test]
fn an_installation_without_the_webhook_admits_no_execute() {
    let chart = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  chart:\n    spec: {chart: karmada, version: \"1.16.0\", sourceRef: {kind: HelmRepository, name: karmada}}\n";
    let operator = "apiVersion: operator.karmada.io/v1alpha1\nkind: Karmada\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  components:\n    karmadaControllerManager: {imageTag: v1.16.0}\n";
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karmada-controller-manager, namespace: karmada-system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: karmada-controller-manager\n        image: docker.io/karmada/karmada-controller-manager:v1.16.0\n        command: [/bin/karmada-controller-manager]\n";
    for (installation, warned) in [(chart, false), (operator, false), (deployment, true)] {
        let dir = fixture();
        std::fs::write(dir.path().join("karmada.yaml"), installation).unwrap();
        let (_, json) = lint(dir.path(), &["karmada.yaml"]);
        let rules: Vec<String> = rows(&json).into_iter().map(|r| r.0).collect();
        assert_eq!(
            rules.contains(&"taint-no-execute-not-allowed".to_string()),
            warned,
            "{installation}: {rules:?}"
        );
        assert!(rules.contains(&"taint-duplicate".to_string()), "{rules:?}");
    }
}
