//! The admission chain of a ClusterTaintPolicy manifest (`policy.karmada.io/v1alpha1`, served
//! from Karmada 1.14: `charts/karmada/_crds/bases/policy/policy.karmada.io_clustertaintpolicies.yaml`
//! first appears at v1.14.0), in the API server's order, as [`super::chain`] runs it for the
//! other kinds: decode, strict fields, ObjectMeta and the CRD schema, then the validating webhook
//! `clustertaintpolicy.karmada.io` (`artifacts/deploy/webhook-configuration.yaml:313-326` at
//! v1.14.0 and v1.19.0-rc.0). Karmada registers no mutating webhook for the kind.
//!
//! The webhook (`pkg/webhook/clustertaintpolicy/validating.go:61-83` at v1.14.0, the same
//! checks to v1.19.0-rc.0; v1.17.0 only rewrote the loop as `for i := range taints`) refuses,
//! for each taint `i` of `spec.taints`:
//!
//! - `effect: NoExecute`, unless karmada-webhook runs with `--allow-no-execute-taint-policy`
//!   (`cmd/webhook/app/options/options.go:99` at v1.14.0, default false): `field.Forbidden`;
//! - a later taint with the same key and effect: `field.Duplicate` of `spec.taints[i]`, once
//!   per `i` (the inner loop breaks at the first match).
//!
//! Both are collected into one `ErrorList`, denied with `ToAggregate().Error()`. Pure: the
//! manifest comes in as JSON, a [`Verdict`] goes out.

use serde_json::Value as Json;

use super::chain::{admit_to_schema, KindFacts, Verdict};
use super::Violation;
use crate::model::KarmadaVersion;
use crate::source::FieldPath;

/// The kind.
pub const KIND: &str = "ClusterTaintPolicy";

/// The validating webhook's name, as its denials print it.
pub const WEBHOOK: &str = "clustertaintpolicy.karmada.io";

/// The first release that serves the kind (and has the webhook).
pub const SERVED_FROM: KarmadaVersion = crate::model::TAINT_POLICY_SERVED_FROM;

/// karmada-webhook's flag that lets NoExecute taints through, without its dashes.
pub const ALLOW_NO_EXECUTE_FLAG: &str = "allow-no-execute-taint-policy";

/// Karmada's detail text for a NoExecute taint (validating.go:71 @v1.14.0).
pub const NO_EXECUTE_DETAIL: &str = "Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags";

const FACTS: KindFacts = KindFacts {
    kind: KIND,
    namespaced: false,
    mutating: None,
    webhook: WEBHOOK,
};

/// Runs the CREATE chain on `manifest`; `allow_no_execute`: karmada-webhook runs with
/// `--allow-no-execute-taint-policy`. `None` before 1.14, which does not serve the kind (the
/// document is `unserved-karmada-kind`'s).
pub fn admit_taint_policy(
    manifest: &Json,
    version: KarmadaVersion,
    allow_no_execute: bool,
) -> Option<Verdict> {
    if version < SERVED_FROM {
        return None;
    }
    let mut progress = admit_to_schema(FACTS, manifest, None, version, None, |_| {});
    let violations = validate_taints(progress.object.get("spec"), allow_no_execute);
    progress.webhook(WEBHOOK, &violations);
    Some(progress.verdict(|| Verdict::admitted(None)))
}

/// `validatePolicyTaints` (validating.go:67-83 @v1.14.0) on the decoded `spec`: a missing key or
/// effect is Go's `""`.
pub fn validate_taints(spec: Option<&Json>, allow_no_execute: bool) -> Vec<Violation> {
    let taints: &[Json] = spec
        .and_then(|s| s.get("taints"))
        .and_then(Json::as_array)
        .map_or(&[], Vec::as_slice);
    let text = |t: &Json, key: &str| -> String {
        match t.get(key) {
            Some(Json::String(s)) => s.clone(),
            None | Some(Json::Null) => String::new(),
            Some(other) => other.to_string(),
        }
    };
    let at = |i: usize| FieldPath::root().key("spec").key("taints").index(i);
    let mut out = Vec::new();
    for (i, t) in taints.iter().enumerate() {
        let (key, effect) = (text(t, "key"), text(t, "effect"));
        if !allow_no_execute && effect == "NoExecute" {
            out.push(Violation::new(
                "taint-no-execute-not-allowed",
                at(i),
                None,
                NO_EXECUTE_DETAIL,
            ));
        }
        let duplicated = taints[i + 1..]
            .iter()
            .any(|u| text(u, "key") == key && text(u, "effect") == effect);
        if duplicated {
            let detail = format!(
                "Duplicate taint with the same key({key}) and effect({effect}) is not allowed"
            );
            out.push(Violation::new(
                "taint-duplicate",
                at(i),
                Some(Json::String(detail.clone()).to_string()),
                detail,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::admission::chain::Stage;
    use serde_json::json;

    const LATEST: KarmadaVersion = KarmadaVersion::LATEST;

    fn policy(taints: Json) -> Json {
        json!({
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "ClusterTaintPolicy",
            "metadata": {"name": "detect-not-ready"},
            "spec": {
                "targetClusters": {"clusterNames": ["member1"]},
                "addOnConditions": [{"conditionType": "Ready", "operator": "NotIn", "statusValues": ["True"]}],
                "taints": taints,
            }
        })
    }

    fn rules(v: &Verdict) -> Vec<(&'static str, String)> {
        v.refusals
            .iter()
            .map(|r| (r.rule, r.field.to_string()))
            .collect()
    }

    #[test]
    fn a_clean_policy_is_admitted() {
        let p = policy(json!([
            {"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"},
            {"key": "cluster.karmada.io/not-ready", "effect": "PreferNoSchedule"},
            {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
        ]));
        for minor in 14..=19 {
            let v = admit_taint_policy(&p, KarmadaVersion::new(1, minor), false).unwrap();
            assert!(v.is_admitted(), "1.{minor}: {:?}", v.refusals);
        }
    }

    #[test]
    fn no_execute_is_forbidden_by_the_webhook() {
        let p = policy(json!([{"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}]));
        let v = admit_taint_policy(&p, LATEST, false).unwrap();
        assert_eq!(v.stage, Some(Stage::ValidatingWebhook));
        assert_eq!(
            rules(&v),
            [("taint-no-execute-not-allowed", "spec.taints[0]".into())]
        );
        assert_eq!(
            v.api_server_message.as_deref(),
            Some(
                "admission webhook \"clustertaintpolicy.karmada.io\" denied the request: spec.taints[0]: Forbidden: Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags"
            )
        );
    }

    #[test]
    fn the_webhook_flag_allows_no_execute() {
        let p = policy(json!([{"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}]));
        assert!(admit_taint_policy(&p, LATEST, true).unwrap().is_admitted());
    }

    #[test]
    fn a_duplicate_key_and_effect_is_refused_once_per_earlier_taint() {
        let p = policy(json!([
            {"key": "dedicated", "value": "a", "effect": "NoSchedule"},
            {"key": "dedicated", "value": "b", "effect": "NoSchedule"},
            {"key": "dedicated", "value": "c", "effect": "NoSchedule"},
            {"key": "dedicated", "effect": "PreferNoSchedule"}
        ]));
        let v = admit_taint_policy(&p, LATEST, false).unwrap();
        assert_eq!(
            rules(&v),
            [
                ("taint-duplicate", "spec.taints[0]".into()),
                ("taint-duplicate", "spec.taints[1]".into())
            ]
        );
        assert_eq!(
            v.api_server_message.as_deref(),
            Some(
                "admission webhook \"clustertaintpolicy.karmada.io\" denied the request: [spec.taints[0]: Duplicate value: \"Duplicate taint with the same key(dedicated) and effect(NoSchedule) is not allowed\", spec.taints[1]: Duplicate value: \"Duplicate taint with the same key(dedicated) and effect(NoSchedule) is not allowed\"]"
            )
        );
    }

    /// Both checks run for each taint, in Karmada's order: Forbidden, then Duplicate.
    #[test]
    fn both_refusals_of_one_taint_in_order() {
        let p = policy(json!([
            {"key": "k", "effect": "NoExecute"},
            {"key": "k", "effect": "NoExecute"}
        ]));
        let v = admit_taint_policy(&p, LATEST, false).unwrap();
        assert_eq!(
            rules(&v),
            [
                ("taint-no-execute-not-allowed", "spec.taints[0]".into()),
                ("taint-duplicate", "spec.taints[0]".into()),
                ("taint-no-execute-not-allowed", "spec.taints[1]".into())
            ]
        );
    }

    /// The CRD schema refuses first (a 422); the webhook's refusal is what comes after the fix.
    #[test]
    fn the_schema_refuses_before_the_webhook() {
        let p = policy(json!([{"effect": "NoExecute"}]));
        let v = admit_taint_policy(&p, LATEST, false).unwrap();
        assert_eq!(v.stage, Some(Stage::Schema));
        assert_eq!(
            rules(&v),
            [("schema-required", "spec.taints[0].key".into())]
        );
        let later: Vec<(Stage, &str)> = v
            .after_fix
            .iter()
            .map(|l| (l.stage, l.refusal.rule))
            .collect();
        assert_eq!(
            later,
            [(Stage::ValidatingWebhook, "taint-no-execute-not-allowed")]
        );
        let v = admit_taint_policy(&policy(json!([])), LATEST, false).unwrap();
        assert_eq!(v.stage, Some(Stage::Schema));
        assert_eq!(
            v.api_server_message.as_deref(),
            Some(
                "ClusterTaintPolicy.policy.karmada.io \"detect-not-ready\" is invalid: spec.taints: Invalid value: 0: spec.taints in body should have at least 1 items"
            )
        );
    }

    #[test]
    fn not_served_before_1_14() {
        let p = policy(json!([{"key": "k", "effect": "NoExecute"}]));
        for minor in 10..=13 {
            assert!(admit_taint_policy(&p, KarmadaVersion::new(1, minor), false).is_none());
        }
        assert!(!admit_taint_policy(&p, SERVED_FROM, false)
            .unwrap()
            .is_admitted());
    }
}
