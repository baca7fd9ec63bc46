//! Karmada's admission rules through the real binary: `lint -o json` on the fixtures in
//! `testdata/admission`, checking rule id, Karmada's field path, detail text and position.

use std::process::Command;

use karmada_policy::lint::rules::admission::RULES;

fn lint_json(fixture: &str) -> (i32, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_BACKTRACE", "0")
        .args(["lint", "-o", "json", fixture])
        .output()
        .expect("binary runs");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

fn is_admission_rule(id: &str) -> bool {
    RULES.iter().any(|r| r.id == id)
}

/// (rule, field, message, line)
fn admission_findings(json: &serde_json::Value) -> Vec<(String, String, String, u64)> {
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| is_admission_rule(f["rule"].as_str().unwrap_or("")))
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["field"].as_str().unwrap_or("").to_string(),
                f["message"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn each_refused_document_reports_karmadas_path_and_text() {
    let (code, json) = lint_json("testdata/admission/invalid.yaml");
    assert_eq!(code, 1, "errors make the exit code 1");
    let found = admission_findings(&json);
    let expected: Vec<(&str, &str, &str, u64)> = vec![
        (
            "suspension-exclusive",
            "spec.suspension.suspension",
            "suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames",
            8,
        ),
        (
            "preemption-requires-name",
            "spec.resourceSelectors[0].name",
            "name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption",
            19,
        ),
        (
            "selector-namespace-mismatch",
            "spec.resourceSelectors[0].namespace",
            "namespace of resource selector must be the same as the namespace of the policy",
            27,
        ),
        (
            "spread-cluster-required",
            "spec.placement.spreadConstraints",
            "the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled",
            35,
        ),
        (
            "application-failover-requires-propagate-deps",
            "spec.propagateDeps",
            "application failover is set, propagateDeps must be true",
            41,
        ),
        (
            "affinity-name-invalid",
            "spec.placement.clusterAffinities[0]",
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            54,
        ),
        (
            "toleration-operator-unsupported",
            "spec.placement.clusterTolerations[0].operator",
            "Unsupported value: \"Lt\": supported values: \"\", \"Exists\", \"Equal\"",
            64,
        ),
        (
            "override-value-required",
            "spec.overrideRules[0].overriders.fieldOverrider[0].yaml[0].value",
            "value is required for add or replace operation",
            76,
        ),
    ];
    let expected: Vec<(String, String, String, u64)> = expected
        .into_iter()
        .map(|(r, f, m, l)| (r.into(), f.into(), m.into(), l))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn near_misses_are_admitted() {
    let (_, json) = lint_json("testdata/admission/valid.yaml");
    let found = admission_findings(&json);
    assert!(found.is_empty(), "{found:#?}");
    assert_eq!(json["summary"]["policies"], 6, "{json}");
}

/// (rule, field, apiServerMessage) of every error finding.
fn errors_with_api_message(json: &serde_json::Value) -> Vec<(String, String, String)> {
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or("").to_string(),
                f["field"].as_str().unwrap_or("").to_string(),
                f["apiServerMessage"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn policies_admitted_after_mutation_have_no_error() {
    let (code, json) = lint_json("testdata/admission-chain/admitted-after-mutation.yaml");
    assert_eq!(errors_with_api_message(&json), vec![], "{json:#}");
    assert_eq!(code, 0);
    assert_eq!(json["summary"]["policies"], 5, "no policy vanishes: {json}");
}

#[test]
fn denied_policies_carry_the_api_servers_line() {
    let (code, json) = lint_json("testdata/admission-chain/denied.yaml");
    assert_eq!(code, 1);
    let expected = [
        (
            "grace-period-required",
            "spec.failover.application.gracePeriodSeconds",
            "admission webhook \"clusterpropagationpolicy.karmada.io\" denied the request: spec.failover.application.gracePeriodSeconds: Invalid value: null: should not be empty when purgeMode is gracefully",
        ),
        (
            "schema-type",
            "spec.failover.application.gracePeriodSeconds",
            "admission webhook \"propagationpolicy.karmada.io\" denied the request: json: cannot unmarshal number 4294967296 into Go struct field ApplicationFailoverBehavior.spec.failover.application.gracePeriodSeconds of type int32",
        ),
        (
            "schema-constraint",
            "metadata.name",
            "PropagationPolicy.policy.karmada.io \"My_Policy\" is invalid: metadata.name: Invalid value: \"My_Policy\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(r, f, m)| (r.to_string(), f.to_string(), m.to_string()))
        .collect();
    assert_eq!(errors_with_api_message(&json), expected);
}

#[test]
fn override_policies_follow_their_own_chain() {
    let (code, json) = lint_json("testdata/admission-chain/overrides.yaml");
    assert_eq!(code, 1);
    let expected = [
        (
            "schema-enum",
            "spec.overrideRules[0].overriders.plaintext[0].operator",
            "OverridePolicy.policy.karmada.io \"no-operator\" is invalid: spec.overrideRules[0].overriders.plaintext[0].operator: Unsupported value: \"\": supported values: \"add\", \"remove\", \"replace\"",
        ),
        (
            "schema-required",
            "spec.overrideRules[0].overriders.plaintext[0].operator",
            "ClusterOverridePolicy.policy.karmada.io \"no-operator\" is invalid: spec.overrideRules[0].overriders.plaintext[0].operator: Required value",
        ),
        (
            "override-rules-and-target-cluster",
            "spec.targetCluster",
            "admission webhook \"clusteroverridepolicy.karmada.io\" denied the request: spec.targetCluster: Invalid value: {\"clusterNames\":[\"member1\"]}: overrideRules and targetCluster can't co-exist",
        ),
        (
            "schema-type",
            "spec.overrideRules[0].overriders.imageOverrider[0].value",
            "admission webhook \"overridepolicy.karmada.io\" denied the request: json: cannot unmarshal number into Go struct field ImageOverrider.spec.overrideRules.overriders.imageOverrider.value of type string",
        ),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(r, f, m)| (r.to_string(), f.to_string(), m.to_string()))
        .collect();
    assert_eq!(errors_with_api_message(&json), expected, "{json:#}");
}

/// apimachinery's `IsQualifiedName` text for a name part that is not a label name.
const NAME_PART: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/// `lint -o json --karmada-version <version> <fixture>`.
fn lint_json_at(fixture: &str, version: &str) -> (i32, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUST_BACKTRACE", "0")
        .args(["lint", "-o", "json", "--karmada-version", version, fixture])
        .output()
        .expect("binary runs");
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

/// (rule, message, apiServerMessage) of every error finding.
fn errors_with_both_messages(json: &serde_json::Value) -> Vec<(String, String, String)> {
    json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or("").to_string(),
                f["message"].as_str().unwrap_or("").to_string(),
                f["apiServerMessage"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// (rule, message, apiServerMessage) of one expected finding.
type Row = (&'static str, &'static str, &'static str);
/// A fixture, the last release without the check, the first with it, and the rows then.
type GateCase = (&'static str, &'static str, &'static str, &'static [Row]);

/// Checks Karmada's validating webhook gained in a later release: the release before admits
/// the fixture (no error at all), the release that added the check refuses it with Karmada's
/// text. Each row: fixture, last release without the check, first release with it, and the
/// (rule, message, apiServerMessage) rows then. Sources are in each fixture's comment.
#[test]
fn checks_added_later_apply_from_their_release_only() {
    let cases: &[GateCase] = &[
        (
            "testdata/admission/releases/selector-namespace.yaml",
            "1.16",
            "1.17",
            &[
                (
                    "selector-namespace-mismatch",
                    "namespace of resource selector must be the same as the namespace of the policy",
                    "admission webhook \"propagationpolicy.karmada.io\" denied the request: spec.resourceSelectors[0].namespace: Invalid value: \"test\": namespace of resource selector must be the same as the namespace of the policy",
                ),
                (
                    "selector-namespace-mismatch",
                    "namespace of resource selector must be the same as the namespace of the policy",
                    "admission webhook \"overridepolicy.karmada.io\" denied the request: spec.resourceSelectors[0].namespace: Invalid value: \"test\": namespace of resource selector must be the same as the namespace of the policy",
                ),
            ],
        ),
        (
            "testdata/admission/releases/toleration-gt.yaml",
            "1.17",
            "1.18",
            &[(
                "toleration-operator-unsupported",
                "Unsupported value: \"Gt\": supported values: \"\", \"Exists\", \"Equal\"",
                "admission webhook \"propagationpolicy.karmada.io\" denied the request: spec.placement.clusterTolerations[0].operator: Unsupported value: \"Gt\": supported values: \"\", \"Exists\", \"Equal\"",
            )],
        ),
        (
            "testdata/admission/releases/field-overrider-neither.yaml",
            "1.17",
            "1.18",
            &[(
                "field-overrider-json-or-yaml",
                "FieldOverrider must have either JSON or YAML set",
                "admission webhook \"overridepolicy.karmada.io\" denied the request: spec.overrideRules[0].overriders.fieldOverrider[0]: Required value: FieldOverrider must have either JSON or YAML set",
            )],
        ),
        (
            "testdata/admission/releases/state-preservation-alias.yaml",
            "1.14",
            "1.15",
            &[(
                "state-preservation-alias-invalid",
                NAME_PART,
                "admission webhook \"propagationpolicy.karmada.io\" denied the request: spec.failover.application.statePreservation.rules[0].aliasLabelName: Invalid value: \"bad label!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            )],
        ),
    ];
    for (fixture, before, from, expected) in cases {
        let (code, json) = lint_json_at(fixture, before);
        assert_eq!(
            errors_with_both_messages(&json),
            vec![],
            "{fixture} at {before}: {json:#}"
        );
        assert_ne!(code, 1, "{fixture} at {before}");
        let (code, json) = lint_json_at(fixture, from);
        assert_eq!(code, 1, "{fixture} at {from}");
        let expected: Vec<(String, String, String)> = expected
            .iter()
            .map(|(r, m, a)| (r.to_string(), m.to_string(), a.to_string()))
            .collect();
        assert_eq!(
            errors_with_both_messages(&json),
            expected,
            "{fixture} at {from}"
        );
    }
}

/// The webhook's own words follow the release: every v1.10.x says "can not co-exist"
/// (pkg/util/validation/validation.go:69 @v1.10.0), v1.11.0 on "cannot" (:82 @v1.11.0).
/// (The value is compared from 1.16 only: apimachinery before v0.34 prints a struct with
/// `%#v`, pointer addresses included, `field/errors.go:86-90 @v1.10.0`.)
#[test]
fn karmada_1_10_words_the_affinity_refusal_can_not() {
    let fixture = "testdata/admission/releases/affinity-can-not.yaml";
    let value = r#"{"clusterAffinity":{"clusterNames":["member1"]},"clusterAffinities":[{"affinityName":"a","clusterNames":["member1"]}]}"#;
    for (version, word) in [("1.10", "can not"), ("1.11", "cannot"), ("1.19", "cannot")] {
        let (code, json) = lint_json_at(fixture, version);
        assert_eq!(code, 1, "{version}");
        let message = format!("clusterAffinities {word} co-exist with clusterAffinity");
        let found = errors_with_both_messages(&json);
        assert_eq!(found.len(), 1, "{version}: {found:?}");
        let (rule, text, api) = &found[0];
        assert_eq!(rule, "placement-affinity-exclusive");
        assert_eq!(text, &message, "{version}");
        assert!(
            api.starts_with("admission webhook \"propagationpolicy.karmada.io\" denied the request: spec.placement: Invalid value: ")
                && api.ends_with(&format!(": {message}")),
            "{version}: {api}"
        );
        if version == "1.19" {
            assert!(api.contains(value), "{api}");
        }
    }
}

/// A check Karmada dropped: 1.10 and 1.11 refuse an empty image predicate path
/// (pkg/util/validation/validation.go:291-297 @v1.10.0, :304-310 @v1.11.0); 1.12 replaced the
/// check with jsonpointer.New, which takes "" (validation.go:311-319 @v1.12.0).
#[test]
fn an_empty_predicate_path_is_refused_by_1_10_and_1_11_only() {
    let fixture = "testdata/admission/releases/image-predicate-empty.yaml";
    for version in ["1.10", "1.11"] {
        let (code, json) = lint_json_at(fixture, version);
        assert_eq!(code, 1, "{version}");
        assert_eq!(
            errors_with_both_messages(&json),
            vec![(
                "json-pointer-invalid".to_string(),
                "path should be start with / character".to_string(),
                "admission webhook \"overridepolicy.karmada.io\" denied the request: spec.overrideRules[0].overriders.imageOverrider[0].predicate.path: Invalid value: \"\": path should be start with / character".to_string(),
            )],
            "{version}"
        );
    }
    for version in ["1.12", "1.19"] {
        let (_, json) = lint_json_at(fixture, version);
        assert_eq!(errors_with_both_messages(&json), vec![], "{version}");
    }
}

/// The JSON pointer error follows the go-openapi/jsonpointer each release vendors:
/// `errors.New(invalidStart)` of v0.21.0 in 1.16 (pointer.go:43,83), `errors.Join(ErrInvalidStart,
/// ErrPointer)` of v0.22.4 in 1.17-1.18, the same with the quote closed in v0.23.1 (1.19).
#[test]
fn the_json_pointer_error_is_the_vendored_libraries() {
    let fixture = "testdata/admission/releases/field-path-not-a-pointer.yaml";
    for (version, text) in [
        ("1.16", "JSON pointer must be empty or start with a \"/"),
        (
            "1.18",
            "JSON pointer must be empty or start with a \"/\nJSON pointer error",
        ),
        (
            "1.19",
            "JSON pointer must be empty or start with a \"/\"\nJSON pointer error",
        ),
    ] {
        let (code, json) = lint_json_at(fixture, version);
        assert_eq!(code, 1, "{version}");
        assert_eq!(
            errors_with_both_messages(&json),
            vec![(
                "json-pointer-invalid".to_string(),
                text.to_string(),
                format!("admission webhook \"overridepolicy.karmada.io\" denied the request: spec.overrideRules[0].overriders.fieldOverrider[0].fieldPath: Invalid value: \"data/config.yaml\": {text}"),
            )],
            "{version}"
        );
    }
}

/// Label checks are worded by the apimachinery each release vendors: "63 characters" up to
/// v0.34 (Karmada 1.16), "63 bytes" from v0.35 (Karmada 1.17); see the fixture.
#[test]
fn label_messages_are_the_vendored_apimachinerys() {
    let fixture = "testdata/admission/releases/label-value-too-long.yaml";
    let value = "a".repeat(64);
    for (version, unit) in [("1.16", "characters"), ("1.17", "bytes")] {
        let (code, json) = lint_json_at(fixture, version);
        assert_eq!(code, 1, "{version}");
        let message = format!("must be no more than 63 {unit}");
        assert_eq!(
            errors_with_both_messages(&json),
            vec![(
                "override-label-value-invalid".to_string(),
                message.clone(),
                format!("admission webhook \"overridepolicy.karmada.io\" denied the request: spec.overrideRules[0].overriders.labelsOverrider[0].value: Invalid value: \"{value}\": {message}"),
            )],
            "{version}"
        );
    }
}

/// A check Karmada dropped: 1.10's mutating webhook refuses a PropagationPolicy name over 63
/// characters (pkg/webhook/propagationpolicy/mutating.go:77-78 @v1.10.0); 1.11 takes it.
#[test]
fn karmada_1_10_refuses_a_policy_name_over_63_characters() {
    let fixture = "testdata/admission/releases/long-policy-name.yaml";
    let (code, json) = lint_json_at(fixture, "1.10");
    assert_eq!(code, 1);
    assert_eq!(
        errors_with_both_messages(&json),
        vec![(
            "policy-name-too-long".to_string(),
            "PropagationPolicy's name should be no more than 63 characters".to_string(),
            "admission webhook \"propagationpolicy.karmada.io\" denied the request: PropagationPolicy's name should be no more than 63 characters".to_string(),
        )]
    );
    let (_, json) = lint_json_at(fixture, "1.11");
    assert_eq!(errors_with_both_messages(&json), vec![]);
}

/// The OverridePolicy mutating webhook's round trip follows the release's Go types: up to 1.15
/// an empty labelsOverrider value is omitted (`json:"value,omitempty"`, override_types.go:151
/// @v1.15.0) and the CRD requires it; 1.16 keeps it.
#[test]
fn an_empty_label_value_is_refused_up_to_1_15() {
    let fixture = "testdata/admission/releases/empty-label-value.yaml";
    let (code, json) = lint_json_at(fixture, "1.15");
    assert_eq!(code, 1);
    assert_eq!(
        errors_with_both_messages(&json),
        vec![(
            "schema-required".to_string(),
            "spec.overrideRules[0].overriders.labelsOverrider[0].value: Required value".to_string(),
            "OverridePolicy.policy.karmada.io \"labels\" is invalid: spec.overrideRules[0].overriders.labelsOverrider[0].value: Required value".to_string(),
        )]
    );
    let (_, json) = lint_json_at(fixture, "1.16");
    assert_eq!(errors_with_both_messages(&json), vec![]);
}

/// `purgeMode: Graciously` without a grace period: admitted with 600 seconds up to 1.18 (the
/// mutating webhook takes it for Gracefully, `SetDefaultGracePeriodSeconds`,
/// pkg/util/helper/policy.go); 1.19 refuses the spelling at the CRD enum, and its fix
/// (Gracefully) is given its grace period by the webhook, so no missing grace period is
/// reported after it.
#[test]
fn graciously_is_refused_by_1_19_for_its_spelling_only() {
    let fixture = "testdata/admission/releases/purge-graciously.yaml";
    for release in ["1.14", "1.15", "1.18"] {
        let (code, json) = lint_json_at(fixture, release);
        assert_eq!(
            (code, json["findings"].clone()),
            (0, serde_json::json!([])),
            "{release}"
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "lint",
            fixture,
            "--karmada-version",
            "1.19",
            "--color",
            "never",
        ])
        .output()
        .expect("binary runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "testdata/admission/releases/purge-graciously.yaml
error[schema-enum]: spec.failover.application.purgeMode: Unsupported value: \"Graciously\": supported values: \"Directly\", \"Gracefully\", \"Never\"
  --> testdata/admission/releases/purge-graciously.yaml:18:18
   |
18 |       purgeMode: Graciously
   |                  ^^^^^^^^^^
   = field: spec.failover.application.purgeMode
   = help: Use one of the supported values listed in the message. Where an enum changed between releases (purgeMode: Directly and Gracefully are accepted from 1.15 on, Immediately and Graciously only up to 1.18, so write Directly for Immediately and Gracefully for Graciously), also check that --karmada-version names the release you deploy to.

1 error, 0 warnings, 0 infos in 1 file (1 document, 1 policy)
by rule: schema-enum 1
For more information about a rule, try `kubectl karmada-policy lint --explain schema-enum`.
"
    );
}
