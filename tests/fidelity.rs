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
