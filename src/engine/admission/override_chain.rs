//! The admission chain of an OverridePolicy or ClusterOverridePolicy manifest, in the API
//! server's order, as [`super::chain`] runs it for propagation policies:
//!
//! - OverridePolicy: decode, strict fields, Karmada's mutating webhook (the Go decode, an empty
//!   selector namespace set to the request's, `json.Marshal` of the structs:
//!   `K:pkg/webhook/overridepolicy/mutating.go:40-64`), defaults again, ObjectMeta and the CRD
//!   schema, the validating webhook;
//! - ClusterOverridePolicy: the same without a mutating webhook (Karmada registers none for it),
//!   so a CRD `required` field can fire and `overrideRules: []` stays set.
//!
//! The round trip matters: it writes a missing `operator` as `""` (the schema then reports
//! `Unsupported value: ""`, not `Required value`), drops `overrideRules: []` (so it no longer
//! clashes with `targetCluster`), and turns a value Go cannot hold into the webhook's decoder
//! message (overrides-and-placement.md §A.6).

use serde_json::Value as Json;

use super::chain::{admit_to_schema, stored_object, KindFacts, Verdict};
use super::validate_override;
use crate::model::gotypes;
use crate::model::{KarmadaVersion, OverridePolicy};

/// Runs the CREATE chain on `manifest`, the document of `op` (whose namespace is the request
/// namespace of an OverridePolicy).
pub fn admit_override(op: &OverridePolicy, manifest: &Json, version: KarmadaVersion) -> Verdict {
    admit(op, manifest, None, version)
}

/// Whether the API server can hold `manifest`, the document of `op`, as a stored object (see
/// [`super::chain::newest_admitting_release`]).
pub fn override_admitted_by_some_release(
    op: &OverridePolicy,
    manifest: &Json,
    version: KarmadaVersion,
) -> bool {
    super::chain::releases_up_to(version).any(|v| admit_override(op, manifest, v).is_admitted())
}

/// The chain of an UPDATE from the stored manifest `old` to `manifest`, with the CRD schema
/// validation ratcheting (see [`super::chain::admit_update`]).
pub fn admit_override_update(
    op: &OverridePolicy,
    manifest: &Json,
    old: &Json,
    version: KarmadaVersion,
) -> Verdict {
    let namespace = request_namespace(op);
    let stored = stored_object(facts(op.cluster_scoped), old, namespace, version, |spec| {
        mutate(namespace, spec, version)
    });
    admit(op, manifest, Some(&stored), version)
}

/// The spec of `op` as the API server stores it: decoded, defaulted and mutated (the Go round
/// trip writes `overriders: {}`, which `override_types.go` declares without omitempty, and the
/// webhook fills in each selector's namespace). Two writings with the same stored spec are
/// one object for Karmada.
pub fn stored_override_spec(op: &OverridePolicy, version: KarmadaVersion) -> Json {
    let namespace = request_namespace(op);
    let facts = facts(op.cluster_scoped);
    let mut metadata = serde_json::Map::new();
    metadata.insert("name".into(), Json::from(op.meta.name.as_str()));
    if let Some(ns) = namespace {
        metadata.insert("namespace".into(), Json::from(ns));
    }
    let manifest = serde_json::json!({
        "apiVersion": crate::model::POLICY_API_VERSION,
        "kind": facts.kind,
        "metadata": metadata,
        "spec": op.raw_spec,
    });
    let mut stored = stored_object(facts, &manifest, namespace, version, |spec| {
        mutate(namespace, spec, version)
    });
    stored
        .get_mut("spec")
        .map(std::mem::take)
        .unwrap_or_default()
}

fn request_namespace(op: &OverridePolicy) -> Option<&str> {
    if op.cluster_scoped {
        None
    } else {
        op.meta.namespace.as_deref()
    }
}

/// The mutating webhook's work on the spec: the Go round trip, selector namespaces.
fn mutate(namespace: Option<&str>, spec: &mut Json, version: KarmadaVersion) {
    *spec = gotypes::round_trip(Some(std::mem::take(spec)), &gotypes::OVERRIDE_SPEC);
    if !version.at_least(1, 16) {
        omit_empty_label_annotation_values(spec);
    }
    if let Some(ns) = namespace.filter(|ns| !ns.is_empty()) {
        default_selector_namespaces(spec, ns);
    }
}

/// Up to 1.15, `LabelAnnotationOverrider.Value` is `json:"value,omitempty"`
/// (pkg/apis/policy/v1alpha1/override_types.go:151 @v1.15.0): the round trip drops an empty or
/// missing `value` of a labelsOverrider or annotationsOverrider, where 1.16 on (`json:"value"`,
/// changed to match the CRD's `required`) keep `{}` and write a missing one as `null`. So
/// 1.12-1.15, whose CRD requires `value`, answer `Required value` for both, and 1.10-1.11,
/// whose CRD does not, store the overrider without it.
fn omit_empty_label_annotation_values(spec: &mut Json) {
    let Some(spec) = spec.as_object_mut() else {
        return;
    };
    let mut overriders: Vec<&mut Json> = Vec::new();
    for (key, value) in spec.iter_mut() {
        match key.as_str() {
            "overriders" => overriders.push(value),
            "overrideRules" => overriders.extend(
                value
                    .as_array_mut()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r.get_mut("overriders")),
            ),
            _ => {}
        }
    }
    for o in overriders {
        for list in ["labelsOverrider", "annotationsOverrider"] {
            let items = o.get_mut(list).and_then(Json::as_array_mut);
            for item in items.into_iter().flatten().filter_map(Json::as_object_mut) {
                let empty = item
                    .get("value")
                    .is_some_and(|v| v.is_null() || v.as_object().is_some_and(|m| m.is_empty()));
                if empty {
                    item.remove("value");
                }
            }
        }
    }
}

fn admit(
    op: &OverridePolicy,
    manifest: &Json,
    stored: Option<&Json>,
    version: KarmadaVersion,
) -> Verdict {
    let facts = facts(op.cluster_scoped);
    let namespace = request_namespace(op);
    let mut progress = admit_to_schema(facts, manifest, namespace, version, stored, |spec| {
        mutate(namespace, spec, version)
    });
    let stored_policy = stored_policy(op, &progress.object);
    progress.webhook(facts.webhook, &validate_override(&stored_policy, version));
    progress.verdict(|| Verdict::admitted(None))
}

fn facts(cluster_scoped: bool) -> KindFacts {
    if cluster_scoped {
        KindFacts {
            kind: "ClusterOverridePolicy",
            namespaced: false,
            mutating: None,
            webhook: "clusteroverridepolicy.karmada.io",
        }
    } else {
        KindFacts {
            kind: "OverridePolicy",
            namespaced: true,
            mutating: Some((&gotypes::OVERRIDE_POLICY, &gotypes::OVERRIDE_SPEC)),
            webhook: "overridepolicy.karmada.io",
        }
    }
}

/// `mutating.go:52-57`: a selector without a namespace gets the request namespace.
fn default_selector_namespaces(spec: &mut Json, namespace: &str) {
    let selectors = spec
        .get_mut("resourceSelectors")
        .and_then(Json::as_array_mut);
    for rs in selectors
        .into_iter()
        .flatten()
        .filter_map(Json::as_object_mut)
    {
        let empty = rs
            .get("namespace")
            .and_then(Json::as_str)
            .is_none_or(str::is_empty);
        if empty {
            rs.insert("namespace".into(), Json::String(namespace.to_string()));
        }
    }
}

/// The policy as the validating webhook receives it: the chain's object, typed.
fn stored_policy(op: &OverridePolicy, object: &Json) -> OverridePolicy {
    let raw_spec = object.get("spec").cloned().unwrap_or_default();
    OverridePolicy {
        spec: serde_json::from_value(raw_spec.clone()).unwrap_or_default(),
        raw_spec,
        ..op.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::admission::chain::Stage;
    use crate::model::Inventory;
    use crate::source::{load, Source};

    fn verdict(yaml: &str) -> Verdict {
        let docs = load(Source::new("t.yaml", yaml)).documents;
        let json = docs[0].root.to_json();
        let inv = Inventory::from_documents(docs, "apps");
        let op = inv.overrides().next().expect("an override policy");
        admit_override(op, &json, KarmadaVersion::LATEST)
    }

    const OP: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: o, namespace: apps}\n";
    const COP: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterOverridePolicy\nmetadata: {name: o}\n";
    const NO_OPERATOR: &str =
        "spec:\n  overrideRules:\n  - overriders:\n      plaintext:\n      - {path: /x}\n";

    #[test]
    fn a_missing_operator_is_an_empty_one_after_the_op_round_trip() {
        let v = verdict(&format!("{OP}{NO_OPERATOR}"));
        assert_eq!(v.stage, Some(Stage::Schema));
        assert_eq!(v.refusals[0].rule, "schema-enum");
        assert_eq!(
            v.api_server_message.as_deref(),
            Some("OverridePolicy.policy.karmada.io \"o\" is invalid: spec.overrideRules[0].overriders.plaintext[0].operator: Unsupported value: \"\": supported values: \"add\", \"remove\", \"replace\"")
        );
    }

    #[test]
    fn a_cluster_override_policy_has_no_mutating_webhook_so_required_fires() {
        let v = verdict(&format!("{COP}{NO_OPERATOR}"));
        assert_eq!(v.refusals[0].rule, "schema-required");
        assert_eq!(
            v.api_server_message.as_deref(),
            Some("ClusterOverridePolicy.policy.karmada.io \"o\" is invalid: spec.overrideRules[0].overriders.plaintext[0].operator: Required value")
        );
    }

    #[test]
    fn empty_override_rules_vanish_in_the_op_round_trip_but_not_for_a_cop() {
        let spec = "spec:\n  targetCluster: {clusterNames: [m1]}\n  overrideRules: []\n";
        assert!(verdict(&format!("{OP}{spec}")).is_admitted());
        let v = verdict(&format!("{COP}{spec}"));
        assert_eq!(v.stage, Some(Stage::ValidatingWebhook));
        assert!(v
            .api_server_message
            .unwrap()
            .starts_with("admission webhook \"clusteroverridepolicy.karmada.io\" denied the request: spec.targetCluster: Invalid value: "));
    }

    #[test]
    fn a_value_go_cannot_hold_is_the_op_mutating_webhooks_decode_error() {
        let spec = "spec:\n  overrideRules:\n  - overriders:\n      imageOverrider: [{component: Registry, operator: replace, value: 5}]\n";
        let v = verdict(&format!("{OP}{spec}"));
        assert_eq!(v.stage, Some(Stage::MutatingWebhook));
        assert_eq!(
            v.api_server_message.as_deref(),
            Some("admission webhook \"overridepolicy.karmada.io\" denied the request: json: cannot unmarshal number into Go struct field ImageOverrider.spec.overrideRules.overriders.imageOverrider.value of type string")
        );
    }

    #[test]
    fn a_schema_error_ends_the_request_before_the_validating_webhook() {
        let spec = "spec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other}]\n  overrideRules:\n  - overriders:\n      labelsOverrider: [{operator: addIfAbsent, value: {a: b}}]\n";
        let v = verdict(&format!("{OP}{spec}"));
        assert_eq!(v.stage, Some(Stage::Schema));
        assert_eq!(v.refusals.len(), 1, "{:?}", v.refusals);
    }

    fn verdict_at(yaml: &str, minor: u32) -> Verdict {
        let docs = load(Source::new("t.yaml", yaml)).documents;
        let json = docs[0].root.to_json();
        let inv = Inventory::from_documents(docs, "apps");
        let op = inv.overrides().next().expect("an override policy");
        admit_override(op, &json, KarmadaVersion::new(1, minor))
    }

    /// `LabelAnnotationOverrider.Value` is `json:"value,omitempty"` up to 1.15
    /// (override_types.go:151 @v1.15.0), `json:"value"` from 1.16 (Karmada's fix for omitempty
    /// on a required field): the OP round trip of 1.12-1.15 drops `value: {}` and the CRD then
    /// requires it; 1.16 keeps it. 1.10's CRD does not require `value` at all.
    #[test]
    fn an_empty_label_value_is_dropped_by_the_round_trip_up_to_1_15() {
        let spec =
            "spec:\n  overrideRules:\n  - overriders:\n      labelsOverrider: [{operator: add, value: {}}]\n";
        let yaml = format!("{OP}{spec}");
        for minor in [12, 15] {
            let v = verdict_at(&yaml, minor);
            assert_eq!(v.stage, Some(Stage::Schema), "1.{minor}");
            assert_eq!(
                v.api_server_message.as_deref(),
                Some("OverridePolicy.policy.karmada.io \"o\" is invalid: spec.overrideRules[0].overriders.labelsOverrider[0].value: Required value"),
                "1.{minor}"
            );
        }
        assert!(verdict_at(&yaml, 16).is_admitted());
        assert!(verdict_at(&yaml, 10).is_admitted());
        // A missing value: Required value up to 1.15, a null object from 1.16.
        let missing = format!(
            "{OP}spec:\n  overrideRules:\n  - overriders:\n      annotationsOverrider: [{{operator: remove}}]\n"
        );
        assert_eq!(verdict_at(&missing, 15).refusals[0].rule, "schema-required");
        assert_eq!(verdict_at(&missing, 16).refusals[0].rule, "schema-type");
    }

    #[test]
    fn a_selector_namespace_other_than_the_policys_is_denied_by_the_validating_webhook() {
        let spec =
            "spec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other}]\n";
        let v = verdict(&format!("{OP}{spec}"));
        assert_eq!(v.stage, Some(Stage::ValidatingWebhook));
        assert_eq!(v.refusals[0].rule, "selector-namespace-mismatch");
    }
}
