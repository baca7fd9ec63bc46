//! OverridePolicy / ClusterOverridePolicy admission (validation-suspension-failover.md §1.7):
//! the OP mutating webhook's selector namespace default (`pkg/webhook/overridepolicy/mutating.go:52-57`),
//! then `ValidateOverrideSpec` (validation.go:393-418) and `ValidateOverrideRules` (:457-508).
//!
//! Override rules are kept untyped in the model (`raw_spec`), so they are read from JSON here.
//! Label and annotation maps are visited in sorted key order (Go's map order is random).
//!
//! The order is `ValidateOverrideSpec`'s: targetCluster, the two co-existence checks, the
//! rules, then the selector namespaces (read in Karmada's validation.go at f8fdd02). "Must have
//! either JSON or YAML" (1.18 on) comes right after "has both" (validation.go:494-499
//! @v1.18.0).

use serde_json::Value;

use super::labels::{label_key_errors, label_value_errors, Wording};
use super::placement::validate_cluster_affinity;
use super::render::{go_json, go_quote, json_raw};
use super::selectors::validate_selector_namespaces;
use super::Violation;
use crate::model::policy::ClusterAffinity;
use crate::model::{KarmadaVersion, OverridePolicy};
use crate::source::FieldPath;

/// go-openapi/jsonpointer's `New` on a pointer that is neither empty nor starts with `/`, in
/// the version `version` vendors (its `go.mod` at the tag):
/// - v0.20.2 and v0.21.0 (Karmada 1.12-1.16): `errors.New(invalidStart)`, whose text lacks the
///   closing quote (`pointer.go:43,83 @v1.14.0`);
/// - v0.22.4 (1.17, 1.18): `errors.Join(ErrInvalidStart, ErrPointer)`, both messages on two
///   lines, still without the closing quote (`errors.go:16-19`, `pointer.go:151 @v1.17.0`);
/// - v0.23.1 (1.19): the same with the quote closed (`errors.go:16-19`, `pointer.go:222
///   @v1.19.0-rc.0`).
fn json_pointer_invalid(version: KarmadaVersion) -> &'static str {
    if version.at_least(1, 19) {
        "JSON pointer must be empty or start with a \"/\"\nJSON pointer error"
    } else if version.at_least(1, 17) {
        "JSON pointer must be empty or start with a \"/\nJSON pointer error"
    } else {
        "JSON pointer must be empty or start with a \"/"
    }
}

/// The six overrider lists `emptyOverrides` looks at (validation.go, `emptyOverrides`).
const OVERRIDER_LISTS: &[&str] = &[
    "plaintext",
    "imageOverrider",
    "commandOverrider",
    "argsOverrider",
    "labelsOverrider",
    "annotationsOverrider",
];

pub(super) fn validate_override(op: &OverridePolicy, version: KarmadaVersion) -> Vec<Violation> {
    let mut out = Vec::new();
    let spec = FieldPath::parse("spec");
    let namespace = if op.cluster_scoped {
        ""
    } else {
        op.meta.namespace.as_deref().unwrap_or("")
    };
    // The mutating webhook: selectors without a namespace get the policy's.
    let mut selectors = op.spec.resource_selectors.clone();
    if !namespace.is_empty() {
        for rs in &mut selectors {
            if rs.namespace.is_empty() {
                rs.namespace = namespace.to_string();
            }
        }
    }
    let raw = &op.raw_spec;
    let target = raw.get("targetCluster").filter(|v| !v.is_null());
    // Go compares the slice with nil: `overrideRules: []` counts as set.
    let rules_set = raw.get("overrideRules").is_some_and(Value::is_array);
    if let Some(t) = target {
        if let Ok(affinity) = serde_json::from_value::<ClusterAffinity>(t.clone()) {
            validate_cluster_affinity(&affinity, spec.clone().key("targetCluster"), &mut out);
        }
        if rules_set {
            out.push(Violation::new(
                "override-rules-and-target-cluster",
                spec.clone().key("targetCluster"),
                Some(json_raw(t)),
                "overrideRules and targetCluster can't co-exist",
            ));
        }
    }
    let overriders = raw.get("overriders").filter(|v| !v.is_null());
    let overriders_set = overriders.is_some_and(|o| {
        OVERRIDER_LISTS.iter().any(|k| {
            o.get(k)
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
        })
    });
    if overriders_set && rules_set {
        out.push(Violation::new(
            "override-rules-and-overriders",
            spec.clone().key("overriders"),
            overriders.map(json_raw),
            "overrideRules and overriders can't co-exist",
        ));
    }
    for (i, rule) in raw
        .get("overrideRules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        validate_rule(
            rule,
            spec.clone().key("overrideRules").index(i),
            version,
            &mut out,
        );
    }
    // After the rules, as `ValidateOverrideSpec` appends them (validation.go:415-416).
    validate_selector_namespaces(&selectors, namespace, &mut out);
    out
}

fn items<'a>(v: Option<&'a Value>, key: &str) -> impl Iterator<Item = (usize, &'a Value)> {
    v.and_then(|o| o.get(key))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
}

fn sorted_string_map(v: Option<&Value>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
        .collect();
    out.sort();
    out
}

/// `TotalAnnotationSizeLimitB` of apimachinery's `api/validation/objectmeta.go`: 256 KiB.
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// `field.TooLong`'s detail in the apimachinery `version` vendors: "must have at most N bytes"
/// up to v0.31 (Karmada 1.10-1.13, `field/errors.go:228 @v1.13.0`), "may not be more than N
/// bytes" from v0.32 (1.14, `field/errors.go:230 @v1.14.0`).
fn too_long(limit: usize, version: KarmadaVersion) -> String {
    if version.at_least(1, 14) {
        format!("may not be more than {limit} bytes")
    } else {
        format!("must have at most {limit} bytes")
    }
}

/// One `RuleWithCluster` (:457-508).
fn validate_rule(rule: &Value, path: FieldPath, version: KarmadaVersion, out: &mut Vec<Violation>) {
    let overriders = rule.get("overriders");
    let opath = path.clone().key("overriders");
    let wording = Wording::of_karmada(version);
    // Annotations: `apivalidation.ValidateAnnotations`, keys checked lower-cased.
    for (j, a) in items(overriders, "annotationsOverrider") {
        let vpath = opath
            .clone()
            .key("annotationsOverrider")
            .index(j)
            .key("value");
        let annotations = sorted_string_map(a.get("value"));
        for (k, _) in &annotations {
            for msg in label_key_errors(&k.to_lowercase(), wording) {
                out.push(Violation::new(
                    "override-annotation-key-invalid",
                    vpath.clone(),
                    Some(go_quote(k)),
                    msg,
                ));
            }
        }
        // `ValidateAnnotationsSize`: keys and values together, in bytes (objectmeta.go:36, 52-54).
        let size: usize = annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
        if size > TOTAL_ANNOTATION_SIZE_LIMIT {
            out.push(Violation::new(
                "override-annotations-too-long",
                vpath.clone(),
                None,
                too_long(TOTAL_ANNOTATION_SIZE_LIMIT, version),
            ));
        }
    }
    // Labels: `metav1validation.ValidateLabels`, the key then the value of each label.
    for (j, l) in items(overriders, "labelsOverrider") {
        let vpath = opath.clone().key("labelsOverrider").index(j).key("value");
        for (k, v) in sorted_string_map(l.get("value")) {
            for msg in label_key_errors(&k, wording) {
                out.push(Violation::new(
                    "override-label-key-invalid",
                    vpath.clone(),
                    Some(go_quote(&k)),
                    msg,
                ));
            }
            for msg in label_value_errors(&v, wording) {
                out.push(Violation::new(
                    "override-label-value-invalid",
                    vpath.clone(),
                    Some(go_quote(&v)),
                    msg,
                ));
            }
        }
    }
    // Image predicates.
    for (j, img) in items(overriders, "imageOverrider") {
        if let Some(p) = img.get("predicate").filter(|p| !p.is_null()) {
            let s = p.get("path").and_then(Value::as_str).unwrap_or("");
            let at = opath
                .clone()
                .key("imageOverrider")
                .index(j)
                .key("predicate")
                .key("path");
            if version.at_least(1, 12) {
                check_pointer(s, at, version, out);
            } else if !s.starts_with('/') {
                // 1.10 and 1.11 only look for the leading "/", so an empty path is refused too
                // (validation.go:291-297 @v1.10.0, :304-310 @v1.11.0); jsonpointer came with
                // 1.12 (validation.go:311-319 @v1.12.0).
                out.push(Violation::new(
                    "json-pointer-invalid",
                    at,
                    Some(go_quote(s)),
                    "path should be start with / character",
                ));
            }
        }
    }
    // Field overriders: from the release that added them to the CRD and these checks to
    // ValidateOverrideRules (`checked_from`; their JSON pointer checks share
    // json-pointer-invalid with the older image predicate check, so the block is skipped whole).
    let field_overriders_checked = super::checks("field-overrider-json-and-yaml", version);
    for (j, f) in items(overriders, "fieldOverrider").filter(|_| field_overriders_checked) {
        let fpath = opath.clone().key("fieldOverrider").index(j);
        let has = |k: &str| {
            f.get(k)
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
        };
        let (json, yaml) = (has("json"), has("yaml"));
        if json && yaml {
            out.push(Violation::new(
                "field-overrider-json-and-yaml",
                fpath.clone(),
                Some(json_raw(f)),
                "FieldOverrider has both YAML and JSON set. Only one is allowed",
            ));
        } else if !json && !yaml {
            // A `field.Required`: no value in the message. From 1.18 only (`checked_from`).
            out.push(Violation::new(
                "field-overrider-json-or-yaml",
                fpath.clone(),
                None,
                "FieldOverrider must have either JSON or YAML set",
            ));
        }
        let field_path = f.get("fieldPath").and_then(Value::as_str).unwrap_or("");
        check_pointer(field_path, fpath.clone().key("fieldPath"), version, out);
        for list in ["json", "yaml"] {
            for (k, patch) in items(Some(f), list) {
                let ppath = fpath.clone().key(list).index(k);
                let sub = patch.get("subPath").and_then(Value::as_str).unwrap_or("");
                check_pointer(sub, ppath.clone().key("subPath"), version, out);
                validate_operator(patch, ppath.key("value"), out);
            }
        }
    }
    // The rule's targetCluster.
    if let Some(t) = rule.get("targetCluster").filter(|v| !v.is_null()) {
        if let Ok(affinity) = serde_json::from_value::<ClusterAffinity>(t.clone()) {
            validate_cluster_affinity(&affinity, path.key("targetCluster"), out);
        }
    }
}

/// `jsonpointer.New`: a pointer is empty or starts with `/`.
fn check_pointer(
    pointer: &str,
    path: FieldPath,
    version: KarmadaVersion,
    out: &mut Vec<Violation>,
) {
    if !pointer.is_empty() && !pointer.starts_with('/') {
        out.push(Violation::new(
            "json-pointer-invalid",
            path,
            Some(go_quote(pointer)),
            json_pointer_invalid(version),
        ));
    }
}

/// `validateOverrideOperator`: `add`/`replace` need a value, `remove` takes none. An absent
/// or `null` value is an empty `apiextensionsv1.JSON` (printed `null`).
fn validate_operator(patch: &Value, path: FieldPath, out: &mut Vec<Violation>) {
    let value = patch.get("value").filter(|v| !v.is_null());
    // The raw JSON is printed as the user wrote it (no omitempty pruning inside a value).
    let rendered = Some(value.map_or_else(|| "null".to_string(), go_json));
    match patch.get("operator").and_then(Value::as_str).unwrap_or("") {
        "add" | "replace" if value.is_none() => out.push(Violation::new(
            "override-value-required",
            path,
            rendered,
            "value is required for add or replace operation",
        )),
        "remove" if value.is_some() => out.push(Violation::new(
            "override-value-forbidden",
            path,
            rendered,
            "value is not allowed for remove operation",
        )),
        _ => {}
    }
}
