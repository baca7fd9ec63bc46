//! JSON Schema validation of policy documents against `schemas/`.
//!
//! `schemas/*.schema.json` are Karmada's policy CRD `openAPIV3Schema`s converted for the
//! `jsonschema` crate by `scripts/gen-schemas.py` (unknown fields rejected, int32 ranges,
//! ObjectMeta fields; see that script and `../shared/notes/dependencies.md` §4). They are
//! embedded in the binary and compiled once per kind and Karmada version family. Validation is a
//! single `is_valid` pass per document; error details (positions, API-server messages) are built
//! only for invalid documents.
//!
//! What the API server does before validating, and we copy: a `null` value of an object field is
//! pruned (none of these CRDs is `nullable`), so `priority: null` is "not set", not a type error
//! (apiextensions-apiserver `pkg/apiserver/schema/defaulting/prunenulls.go`). A `null` list item
//! is not pruned and fails its type.

pub mod structural;
mod suggest;

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value as Json;

use crate::model::placeholder::is_placeholder;
use crate::model::version::KarmadaVersion;
use crate::source::{FieldPath, Node, Span, Value};

/// One way a document breaks its kind's CRD schema, in the API server's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaViolation {
    /// One of the rule ids below (documented by the lint rule unit for the schema).
    pub rule: &'static str,
    /// The offending field in Karmada/kubectl notation (`spec.resourceSelectors[0].kind`).
    pub field: FieldPath,
    /// The key of an unknown field, the value of a wrong type/enum/constraint, the parent's key
    /// of a missing required field.
    pub span: Span,
    pub message: String,
}

pub const UNKNOWN_FIELD: &str = "schema-unknown-field";
pub const TYPE: &str = "schema-type";
pub const ENUM: &str = "schema-enum";
pub const REQUIRED: &str = "schema-required";
pub const CONSTRAINT: &str = "schema-constraint";

/// The kinds with a schema, in the order of [`SCHEMAS`]. ClusterTaintPolicy is last: only
/// 1.14 and later have it ([`TAINT_RELEASES`]).
const KINDS: [&str; 5] = [
    "PropagationPolicy",
    "ClusterPropagationPolicy",
    "OverridePolicy",
    "ClusterOverridePolicy",
    "ClusterTaintPolicy",
];

/// The index of ClusterTaintPolicy in [`KINDS`].
const TAINT: usize = 4;

/// The converted schemas of the newest release, embedded (`schemas/` at the crate root).
pub static SCHEMAS: [(&str, &str); 5] = [
    (
        "PropagationPolicy",
        include_str!("../../schemas/PropagationPolicy.schema.json"),
    ),
    (
        "ClusterPropagationPolicy",
        include_str!("../../schemas/ClusterPropagationPolicy.schema.json"),
    ),
    (
        "OverridePolicy",
        include_str!("../../schemas/OverridePolicy.schema.json"),
    ),
    (
        "ClusterOverridePolicy",
        include_str!("../../schemas/ClusterOverridePolicy.schema.json"),
    ),
    (
        "ClusterTaintPolicy",
        include_str!("../../schemas/ClusterTaintPolicy.schema.json"),
    ),
];

/// The schemas of each older release, by minor version, in the order of [`KINDS`]:
/// `schemas/v1.XX/`, generated from that release tag's CRDs (see `scripts/gen-schemas.py`).
/// Each release's enums, required fields and defaults are its own: 1.15-1.18 accept both
/// spellings of `failover.application.purgeMode`, 1.10-1.14 only `Immediately`/`Graciously`.
static RELEASES: [(u32, [&str; 4]); 9] = [
    (
        10,
        [
            include_str!("../../schemas/v1.10/PropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.10/ClusterPropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.10/OverridePolicy.schema.json"),
            include_str!("../../schemas/v1.10/ClusterOverridePolicy.schema.json"),
        ],
    ),
    (
        11,
        [
            include_str!("../../schemas/v1.11/PropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.11/ClusterPropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.11/OverridePolicy.schema.json"),
            include_str!("../../schemas/v1.11/ClusterOverridePolicy.schema.json"),
        ],
    ),
    (
        12,
        [
            include_str!("../../schemas/v1.12/PropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.12/ClusterPropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.12/OverridePolicy.schema.json"),
            include_str!("../../schemas/v1.12/ClusterOverridePolicy.schema.json"),
        ],
    ),
    (
        13,
        [
            include_str!("../../schemas/v1.13/PropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.13/ClusterPropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.13/OverridePolicy.schema.json"),
            include_str!("../../schemas/v1.13/ClusterOverridePolicy.schema.json"),
        ],
    ),
    (
        14,
        [
            include_str!("../../schemas/v1.14/PropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.14/ClusterPropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.14/OverridePolicy.schema.json"),
            include_str!("../../schemas/v1.14/ClusterOverridePolicy.schema.json"),
        ],
    ),
    (
        15,
        [
            include_str!("../../schemas/v1.15/PropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.15/ClusterPropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.15/OverridePolicy.schema.json"),
            include_str!("../../schemas/v1.15/ClusterOverridePolicy.schema.json"),
        ],
    ),
    (
        16,
        [
            include_str!("../../schemas/v1.16/PropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.16/ClusterPropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.16/OverridePolicy.schema.json"),
            include_str!("../../schemas/v1.16/ClusterOverridePolicy.schema.json"),
        ],
    ),
    (
        17,
        [
            include_str!("../../schemas/v1.17/PropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.17/ClusterPropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.17/OverridePolicy.schema.json"),
            include_str!("../../schemas/v1.17/ClusterOverridePolicy.schema.json"),
        ],
    ),
    (
        18,
        [
            include_str!("../../schemas/v1.18/PropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.18/ClusterPropagationPolicy.schema.json"),
            include_str!("../../schemas/v1.18/OverridePolicy.schema.json"),
            include_str!("../../schemas/v1.18/ClusterOverridePolicy.schema.json"),
        ],
    ),
];

/// ClusterTaintPolicy's schema of each older release that serves it, by minor version:
/// `schemas/v1.XX/ClusterTaintPolicy.schema.json`. Karmada serves the kind from v1.14.0
/// (`charts/karmada/_crds/bases/policy/policy.karmada.io_clustertaintpolicies.yaml`, absent at
/// every v1.13 tag); a release before has no schema for it (the document is reported as
/// `unserved-karmada-kind` instead).
static TAINT_RELEASES: [(u32, &str); 5] = [
    (
        14,
        include_str!("../../schemas/v1.14/ClusterTaintPolicy.schema.json"),
    ),
    (
        15,
        include_str!("../../schemas/v1.15/ClusterTaintPolicy.schema.json"),
    ),
    (
        16,
        include_str!("../../schemas/v1.16/ClusterTaintPolicy.schema.json"),
    ),
    (
        17,
        include_str!("../../schemas/v1.17/ClusterTaintPolicy.schema.json"),
    ),
    (
        18,
        include_str!("../../schemas/v1.18/ClusterTaintPolicy.schema.json"),
    ),
];

/// The embedded schema text of `kind` (newest release), if it has one.
pub fn schema_text(kind: &str) -> Option<&'static str> {
    SCHEMAS.iter().find(|(k, _)| *k == kind).map(|(_, s)| *s)
}

/// The schema text of `kind` as `version` shipped it.
pub fn release_schema_text(kind: &str, version: KarmadaVersion) -> Option<&'static str> {
    let (index, slot) = slot_of(kind, version)?;
    text_of(index, slot)
}

/// The slot of `version`: 0 for the newest release, `1 + i` for `RELEASES[i]`.
fn release_slot(version: KarmadaVersion) -> usize {
    RELEASES
        .iter()
        .position(|(minor, _)| version.major == 1 && version.minor == *minor)
        .map_or(0, |i| i + 1)
}

/// The schema text of kind `index` in release `slot`; `None`: that release does not serve the
/// kind (ClusterTaintPolicy before 1.14).
fn text_of(index: usize, slot: usize) -> Option<&'static str> {
    match (slot, index) {
        (0, _) => Some(SCHEMAS[index].1),
        (n, TAINT) => {
            let minor = RELEASES[n - 1].0;
            TAINT_RELEASES
                .iter()
                .find(|(m, _)| *m == minor)
                .map(|(_, text)| *text)
        }
        (n, _) => Some(RELEASES[n - 1].1[index]),
    }
}

/// The schema of `kind` as JSON, as `version` shipped it. Public for tests and `--explain`.
pub fn schema_json(kind: &str, version: KarmadaVersion) -> Option<Json> {
    let (index, slot) = slot_of(kind, version)?;
    schema_for(index, slot)
}

fn schema_for(index: usize, slot: usize) -> Option<Json> {
    let text = text_of(index, slot)?;
    Some(
        serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("embedded schema {} is not JSON: {e}", KINDS[index])),
    )
}

/// The kind's index in [`KINDS`] and `version`'s slot, when `version` serves the kind.
fn slot_of(kind: &str, version: KarmadaVersion) -> Option<(usize, usize)> {
    let index = KINDS.iter().position(|k| *k == kind)?;
    if index == TAINT && version < crate::model::TAINT_POLICY_SERVED_FROM {
        return None;
    }
    let slot = release_slot(version);
    text_of(index, slot).map(|_| (index, slot))
}

/// Compiled validators: one per kind and release, built on first use.
static VALIDATORS: [OnceLock<Validator>; KINDS.len() * (RELEASES.len() + 1)] =
    [const { OnceLock::new() }; KINDS.len() * (RELEASES.len() + 1)];

/// The validator of kind `index` in release `slot`, which must serve it ([`slot_of`]).
fn validator(index: usize, slot: usize) -> &'static Validator {
    VALIDATORS[slot * KINDS.len() + index].get_or_init(|| {
        let schema = schema_for(index, slot).expect("the release serves the kind");
        jsonschema::options()
            .build(&schema)
            .unwrap_or_else(|e| panic!("embedded schema {} does not compile: {e}", KINDS[index]))
    })
}

/// The structural view of each converted schema (what pruning, null pruning and defaulting
/// read), one per kind and release, built on first use.
static STRUCTURALS: [OnceLock<structural::Structural>; KINDS.len() * (RELEASES.len() + 1)] =
    [const { OnceLock::new() }; KINDS.len() * (RELEASES.len() + 1)];

/// The structural schema of `kind` as `version` shipped it.
pub fn structural_schema(
    kind: &str,
    version: KarmadaVersion,
) -> Option<&'static structural::Structural> {
    let (index, slot) = slot_of(kind, version)?;
    Some(STRUCTURALS[slot * KINDS.len() + index].get_or_init(|| {
        let schema = schema_for(index, slot).expect("the release serves the kind");
        structural::Structural::from_json(&schema, structural::Origin::Converted)
    }))
}

/// Whether the schema of `kind` as `version` shipped it defines `field`: one it does not is
/// pruned by that release's API server (`spec.failover.cluster` came with Karmada 1.15).
pub fn defines(kind: &str, version: KarmadaVersion, field: &FieldPath) -> bool {
    structural_schema(kind, version).is_some_and(|s| suggest::at(s, &field.0).is_some())
}

/// What the unknown field `field` of a `kind` was probably meant to be, by the schema `version`
/// shipped: `did you mean "spec.placement.clusterAffinity"?` (a close spelling under the same
/// parent, else where a field of that name is defined).
pub fn unknown_field_hint(
    kind: &str,
    version: KarmadaVersion,
    field: &FieldPath,
) -> Option<String> {
    suggest::hint(structural_schema(kind, version)?, field)
}

/// Validates one document of `kind` against its CRD schema for `version`. Returns the violations
/// sorted by position; `[]` for a valid document and for kinds without a schema in `version`
/// (ClusterTaintPolicy before 1.14: Karmada does not serve it there).
pub fn validate(kind: &str, root: &Node, version: KarmadaVersion) -> Vec<SchemaViolation> {
    let Some((index, slot)) = slot_of(kind, version) else {
        return Vec::new();
    };
    let validator = validator(index, slot);
    let instance = to_api_json(root);
    if validator.is_valid(&instance) {
        return Vec::new();
    }
    let mut out: Vec<SchemaViolation> = Vec::new();
    for error in validator.iter_errors(&instance) {
        violations_of(&error, root, &mut out);
    }
    out.sort_by(|a, b| {
        (a.span.start, a.span.end)
            .cmp(&(b.span.start, b.span.end))
            .then_with(|| a.field.to_string().cmp(&b.field.to_string()))
            .then_with(|| a.rule.cmp(b.rule))
    });
    out.dedup();
    out
}

/// Validates an object that already went through the API server's decoding and the mutating
/// webhook (`crate::engine::admission::chain`): nothing is pruned first, so a `null` the round
/// trip introduced (`resourceSelectors: null`) fails its type as it does on the server (§2.3).
/// The spans are meaningless: the caller locates `field` in its own document.
pub fn validate_object(kind: &str, object: &Json, version: KarmadaVersion) -> Vec<SchemaViolation> {
    let Some((index, slot)) = slot_of(kind, version) else {
        return Vec::new();
    };
    let validator = validator(index, slot);
    if validator.is_valid(object) {
        return Vec::new();
    }
    let root = Node::from_json(object, Span::default());
    let mut out: Vec<SchemaViolation> = Vec::new();
    for error in validator.iter_errors(object) {
        violations_of(&error, &root, &mut out);
    }
    out.sort_by(|a, b| {
        a.field
            .to_string()
            .cmp(&b.field.to_string())
            .then_with(|| a.rule.cmp(b.rule))
            .then_with(|| a.message.cmp(&b.message))
    });
    out.dedup();
    out
}

/// The document as the API server validates it: JSON, with `null` object fields pruned.
fn to_api_json(node: &Node) -> Json {
    match &node.value {
        Value::Map(entries) => {
            let mut map = serde_json::Map::with_capacity(entries.len());
            for e in entries {
                let key = match &e.key.value {
                    Value::Str(s) => s.as_str().to_owned(),
                    _ => e.key.to_json().to_string().trim_matches('"').to_string(),
                };
                // The last of duplicate keys wins (the loader reports the duplicate).
                map.remove(&key);
                if !matches!(e.value.value, Value::Null) {
                    map.insert(key, to_api_json(&e.value));
                }
            }
            Json::Object(map)
        }
        Value::Seq(items) => Json::Array(items.iter().map(to_api_json).collect()),
        _ => node.to_json(),
    }
}

fn violations_of(error: &ValidationError<'_>, root: &Node, out: &mut Vec<SchemaViolation>) {
    let at = FieldPath::from_json_pointer(error.instance_path().as_str(), root);
    let instance: &Json = error.instance();
    if instance.as_str().is_some_and(is_placeholder) {
        // `clusterNames: ${cluster_list}` in a file that envsubst/helm renders before applying:
        // the rendered value's type and enum are unknown here, so judging the placeholder
        // would be a false positive.
        return;
    }
    let value_violation = |rule: &'static str, message: String| SchemaViolation {
        rule,
        span: root.locate_value(&at),
        field: at.clone(),
        message,
    };
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for name in unexpected {
                let field = at.clone().key(name.clone());
                out.push(SchemaViolation {
                    rule: UNKNOWN_FIELD,
                    span: root.locate(&field),
                    message: format!("unknown field \"{field}\""),
                    field,
                });
            }
        }
        ValidationErrorKind::FalseSchema => {
            // `additionalProperties: false` reported per property (evaluation order dependent).
            out.push(SchemaViolation {
                rule: UNKNOWN_FIELD,
                span: root.locate(&at),
                message: format!("unknown field \"{at}\""),
                field: at.clone(),
            });
        }
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_string);
            let field = at.clone().key(name);
            out.push(SchemaViolation {
                rule: REQUIRED,
                // The parent's key (the field is not there to point at), or the field's own key
                // when it is written as `null`, which the API server prunes to "not set".
                span: root.locate(&field),
                message: format!("{field}: Required value"),
                field,
            });
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.as_str().to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.as_str())
                    .filter(|t| *t != "null")
                    .collect::<Vec<_>>()
                    .join(","),
            };
            out.push(value_violation(
                TYPE,
                type_message(&at, &expected, instance),
            ));
        }
        ValidationErrorKind::AnyOf { context } => {
            // int-or-string: `anyOf: [{type: integer}, {type: string}]`.
            let all_types = context
                .iter()
                .flatten()
                .all(|e| matches!(e.kind(), ValidationErrorKind::Type { .. }));
            if all_types {
                out.push(value_violation(
                    TYPE,
                    type_message(&at, "integer or string", instance),
                ));
            } else {
                out.push(value_violation(
                    CONSTRAINT,
                    format!("{at}: Invalid value: {}: {error}", render(instance)),
                ));
            }
        }
        ValidationErrorKind::Enum { options } => {
            let supported = options
                .as_array()
                .map(|o| o.iter().map(render).collect::<Vec<_>>().join(", "))
                .unwrap_or_default();
            out.push(value_violation(
                ENUM,
                format!(
                    "{at}: Unsupported value: {}: supported values: {supported}",
                    render(instance)
                ),
            ));
        }
        ValidationErrorKind::Minimum { limit } => out.push(value_violation(
            CONSTRAINT,
            format!(
                "{at}: Invalid value: {}: {at} in body should be greater than or equal to {limit}",
                render(instance)
            ),
        )),
        ValidationErrorKind::Maximum { limit } => out.push(value_violation(
            CONSTRAINT,
            format!(
                "{at}: Invalid value: {}: {at} in body should be less than or equal to {limit}",
                render(instance)
            ),
        )),
        ValidationErrorKind::ExclusiveMinimum { limit } => out.push(value_violation(
            CONSTRAINT,
            format!(
                "{at}: Invalid value: {}: {at} in body should be greater than {limit}",
                render(instance)
            ),
        )),
        ValidationErrorKind::ExclusiveMaximum { limit } => out.push(value_violation(
            CONSTRAINT,
            format!(
                "{at}: Invalid value: {}: {at} in body should be less than {limit}",
                render(instance)
            ),
        )),
        ValidationErrorKind::MinItems { limit } => out.push(value_violation(
            CONSTRAINT,
            format!(
                "{at}: Invalid value: {}: {at} in body should have at least {limit} items",
                instance.as_array().map_or(0, Vec::len)
            ),
        )),
        ValidationErrorKind::MaxItems { limit } => out.push(value_violation(
            CONSTRAINT,
            format!(
                "{at}: Too many: {}: must have at most {limit} items",
                instance.as_array().map_or(0, Vec::len)
            ),
        )),
        ValidationErrorKind::MinLength { limit } => out.push(value_violation(
            CONSTRAINT,
            format!(
                "{at}: Invalid value: {}: {at} in body should be at least {limit} chars long",
                render(instance)
            ),
        )),
        ValidationErrorKind::MaxLength { limit } => out.push(value_violation(
            CONSTRAINT,
            format!("{at}: Too long: may not be longer than {limit}"),
        )),
        ValidationErrorKind::Pattern { pattern } => out.push(value_violation(
            CONSTRAINT,
            format!(
                "{at}: Invalid value: {}: {at} in body should match '{pattern}'",
                render(instance)
            ),
        )),
        _ => out.push(value_violation(
            CONSTRAINT,
            format!("{at}: Invalid value: {}: {error}", render(instance)),
        )),
    }
}

/// `spec.priority: Invalid value: "string": spec.priority in body must be of type integer: "high"`
/// (kube-openapi `validate/type.go`, as apiextensions-apiserver wraps it in `field.Invalid`).
fn type_message(at: &FieldPath, expected: &str, instance: &Json) -> String {
    let actual = json_type(instance);
    let shown = match instance {
        Json::Array(_) | Json::Object(_) | Json::Null => format!("\"{actual}\""),
        other => render(other),
    };
    format!("{at}: Invalid value: \"{actual}\": {at} in body must be of type {expected}: {shown}")
}

fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// A value as Go's `%#v`-ish rendering in field errors: strings quoted, numbers bare.
fn render(v: &Json) -> String {
    match v {
        Json::Array(_) | Json::Object(_) => format!("\"{}\"", json_type(v)),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    fn root(text: &str) -> Node {
        load(Source::new("t.yaml", text)).documents.remove(0).root
    }

    #[test]
    fn a_field_is_defined_from_the_release_that_added_it() {
        let cluster = FieldPath::parse("spec.failover.cluster");
        let v = |minor| KarmadaVersion::new(1, minor);
        assert!(!defines("PropagationPolicy", v(14), &cluster));
        assert!(defines("PropagationPolicy", v(15), &cluster));
        assert!(defines("PropagationPolicy", v(19), &cluster));
        assert!(defines(
            "PropagationPolicy",
            v(14),
            &FieldPath::parse("spec.failover.application")
        ));
    }

    #[test]
    fn null_object_fields_are_pruned_like_the_api_server() {
        let r = root("a: null\nb: [null, 1]\nc: {d: ~, e: x}\n");
        assert_eq!(
            to_api_json(&r),
            serde_json::json!({"b": [null, 1], "c": {"e": "x"}})
        );
    }

    #[test]
    fn placeholders() {
        assert!(is_placeholder("${cluster_list}"));
        assert!(is_placeholder("{{ .Values.clusters }}"));
        assert!(!is_placeholder("member-${n}"));
        assert!(!is_placeholder("Sometimes"));
    }

    #[test]
    fn every_kind_and_release_compiles() {
        for (i, kind) in KINDS.iter().enumerate() {
            for slot in 0..=RELEASES.len() {
                if text_of(i, slot).is_some() {
                    let _ = validator(i, slot);
                }
            }
            let served_by_1_10 = *kind != "ClusterTaintPolicy";
            assert_eq!(
                schema_json(kind, KarmadaVersion::new(1, 10)).is_some(),
                served_by_1_10
            );
        }
        let pointer =
            "/properties/spec/properties/failover/properties/application/properties/purgeMode/enum";
        let legacy = schema_json("PropagationPolicy", KarmadaVersion::new(1, 14)).unwrap();
        assert_eq!(
            legacy.pointer(pointer),
            Some(&serde_json::json!(["Immediately", "Graciously", "Never"]))
        );
    }

    /// ClusterTaintPolicy from 1.14 (its CRD is absent at v1.13.0): 1.13 and older have no
    /// schema and validate nothing; 1.14 and later refuse what its CRD refuses.
    #[test]
    fn cluster_taint_policy_has_a_schema_from_1_14() {
        let doc = root(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterTaintPolicy\nmetadata: {name: t}\nspec:\n  taints: []\n  bogus: 1\n",
        );
        for minor in 10..=13 {
            let v = KarmadaVersion::new(1, minor);
            assert!(schema_json("ClusterTaintPolicy", v).is_none());
            assert!(release_schema_text("ClusterTaintPolicy", v).is_none());
            assert!(structural_schema("ClusterTaintPolicy", v).is_none());
            assert_eq!(validate("ClusterTaintPolicy", &doc, v), vec![]);
        }
        for minor in 14..=19 {
            let v = KarmadaVersion::new(1, minor);
            let rules: Vec<&str> = validate("ClusterTaintPolicy", &doc, v)
                .iter()
                .map(|v| v.rule)
                .collect();
            assert_eq!(rules, [CONSTRAINT, UNKNOWN_FIELD], "1.{minor}");
        }
    }
}
