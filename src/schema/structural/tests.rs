//! Pruning, null pruning and defaulting as apiextensions-apiserver does them. The `TestPrune`
//! rows are the cases of kubernetes/apiextensions-apiserver
//! `pkg/apiserver/schema/pruning/algorithm_test.go` (commit 1aa2717a, 2026-07-22), restated as
//! facts: the input, the schema (written as a CRD would, Go's `Structural` fields mapped to
//! their keywords), the object after pruning and the unknown field paths.

use super::*;
use serde_json::json;

struct Fact {
    name: &'static str,
    input: Json,
    /// `None`: Go's nil schema.
    schema: Option<Json>,
    is_resource_root: bool,
    pruned_object: Json,
    unknown: &'static [&'static str],
}

fn check(fact: Fact) {
    let schema = fact
        .schema
        .as_ref()
        .map(|s| Structural::from_json(s, Origin::Crd));
    let mut object = fact.input;
    let found: Vec<String> = prune(&mut object, schema.as_ref(), fact.is_resource_root)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(object, fact.pruned_object, "{}: pruned object", fact.name);
    assert_eq!(found, fact.unknown, "{}: unknown field paths", fact.name);
}

fn facts(list: Vec<Fact>) {
    for f in list {
        check(f);
    }
}

#[test]
fn apiextensions_prune_basic_cases() {
    facts(vec![
        Fact {
            name: "empty",
            input: json!(null),
            schema: None,
            is_resource_root: false,
            pruned_object: json!(null),
            unknown: &[],
        },
        Fact {
            name: "scalar",
            input: json!(4),
            schema: Some(json!({})),
            is_resource_root: false,
            pruned_object: json!(4),
            unknown: &[],
        },
        Fact {
            name: "scalar array",
            input: json!([1, 2]),
            schema: Some(json!({"items": {}})),
            is_resource_root: false,
            pruned_object: json!([1, 2]),
            unknown: &[],
        },
        Fact {
            name: "object array",
            input: json!([{"a": 1}, {"b": 1}, {"a": 1, "b": 2, "c": 3}]),
            schema: Some(json!({"items": {"properties": {"a": {}, "c": {}}}})),
            is_resource_root: false,
            pruned_object: json!([{"a": 1}, {}, {"a": 1, "c": 3}]),
            unknown: &["[1].b", "[2].b"],
        },
        Fact {
            name: "object array with nil schema",
            input: json!([{"a": 1}, {"b": 1}, {"a": 1, "b": 2, "c": 3}]),
            schema: None,
            is_resource_root: false,
            pruned_object: json!([{}, {}, {}]),
            unknown: &["[0].a", "[1].b", "[2].a", "[2].b", "[2].c"],
        },
        Fact {
            name: "object array object",
            input: json!({"array": [{"a": 1}, {"b": 1}, {"a": 1, "b": 2, "c": 3}],
                          "unspecified": {"a": 1}, "specified": {"a": 1, "b": 2, "c": 3}}),
            schema: Some(json!({"properties": {
                "array": {"items": {"properties": {"a": {}, "c": {}}}},
                "specified": {"properties": {"a": {}, "c": {}}}}})),
            is_resource_root: false,
            pruned_object: json!({"array": [{"a": 1}, {}, {"a": 1, "c": 3}],
                                  "specified": {"a": 1, "c": 3}}),
            unknown: &["array[1].b", "array[2].b", "specified.b", "unspecified"],
        },
        Fact {
            name: "additionalProperties with schema",
            input: json!({"a": 1, "b": 1, "c": {"a": 1, "b": 2, "c": {"a": 1}}}),
            schema: Some(json!({"properties": {
                "a": {},
                "c": {"additionalProperties": {"type": "integer"}}}})),
            is_resource_root: false,
            pruned_object: json!({"a": 1, "c": {"a": 1, "b": 2, "c": {}}}),
            unknown: &["b", "c.c.a"],
        },
        Fact {
            // Every key of `c` is known; a value that is an object has no schema to keep any of
            // its own keys.
            name: "additionalProperties with bool",
            input: json!({"a": 1, "b": 1, "c": {"a": 1, "b": 2, "c": {"a": 1, "apiVersion": "unknown"}}}),
            schema: Some(json!({"properties": {"a": {}, "c": {"additionalProperties": false}}})),
            is_resource_root: false,
            pruned_object: json!({"a": 1, "c": {"a": 1, "b": 2, "c": {}}}),
            unknown: &["b", "c.c.a", "c.c.apiVersion"],
        },
    ]);
}

#[test]
fn apiextensions_prune_nested_preserve_unknown_fields() {
    let schema = json!({
        "type": "object", "x-kubernetes-preserve-unknown-fields": true,
        "properties": {
            "alpha": {"type": "string"},
            "beta": {"type": "number"},
            "pruning": {"type": "object", "properties": {
                "preserving": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "pruning": {"type": "object"}}},
            "preserving": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
                "preserving": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                // An array (of objects) under a schema with no type: kept whole.
                "preservingUnknownType": {"x-kubernetes-preserve-unknown-fields": true},
                "pruning": {"type": "object"}}},
            // Not inherited by the schema inside additionalProperties.
            "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": {
                "type": "object", "x-kubernetes-preserve-unknown-fields": true,
                "additionalProperties": {"type": "object", "properties": {"specified": {"type": "object"}}}},
            "preservingAdditionalPropertiesKeyPruneValues": {
                "type": "object",
                "additionalProperties": {"type": "object", "properties": {"specified": {"type": "object"}}}}
        }
    });
    let inner = || json!({"foo": {"specified": {"unspecified": "bar"}, "unspecified": "bar"}});
    facts(vec![Fact {
        name: "nested x-kubernetes-preserve-unknown-fields",
        input: json!({
            "unspecified": "bar", "alpha": "abc", "beta": 42.0,
            "unspecifiedObject": {"unspecified": "bar"},
            "pruning": {"unspecified": "bar", "unspecifiedObject": {"unspecified": "bar"},
                        "pruning": {"unspecified": "bar"}, "apiVersion": "unknown",
                        "preserving": {"unspecified": "bar"}},
            "preserving": {"unspecified": "bar", "unspecifiedObject": {"unspecified": "bar"},
                           "pruning": {"unspecified": "bar"}, "preserving": {"unspecified": "bar"},
                           "preservingUnknownType": [{"foo": true}, {"bar": true}]},
            "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": inner(),
            "preservingAdditionalPropertiesKeyPruneValues": inner()
        }),
        schema: Some(schema),
        is_resource_root: false,
        pruned_object: json!({
            "unspecified": "bar", "alpha": "abc", "beta": 42.0,
            "unspecifiedObject": {"unspecified": "bar"},
            "pruning": {"pruning": {}, "preserving": {"unspecified": "bar"}},
            "preserving": {"unspecified": "bar", "unspecifiedObject": {"unspecified": "bar"},
                           "pruning": {}, "preserving": {"unspecified": "bar"},
                           "preservingUnknownType": [{"foo": true}, {"bar": true}]},
            "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": {"foo": {"specified": {}}},
            "preservingAdditionalPropertiesKeyPruneValues": {"foo": {"specified": {}}}
        }),
        unknown: &[
            "preserving.pruning.unspecified",
            "preservingAdditionalPropertiesKeyPruneValues.foo.specified.unspecified",
            "preservingAdditionalPropertiesKeyPruneValues.foo.unspecified",
            "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.specified.unspecified",
            "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.unspecified",
            "pruning.apiVersion",
            "pruning.pruning.unspecified",
            "pruning.unspecified",
            "pruning.unspecifiedObject",
        ],
    }]);
}

/// An embedded resource as the apiextensions cases write it.
fn resource(extra: Json) -> Json {
    let mut v = json!({
        "apiVersion": "foo/v1", "kind": "Foo", "unspecified": "bar",
        "metadata": {"name": "instance", "unspecified": "bar"},
        "spec": {"unspecified": "bar"}
    });
    if let (Json::Object(m), Json::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v
}

fn embedded_schema(with_metadata: bool) -> Json {
    let meta = |mut props: Json| {
        if with_metadata {
            props["metadata"] = json!({"type": "object"});
        }
        props
    };
    let spec = json!({"type": "object"});
    let mut root = json!({"type": "object", "properties": {
        "pruned": {"type": "object", "x-kubernetes-embedded-resource": true,
                   "properties": meta(json!({"spec": spec}))},
        "preserving": {"type": "object", "x-kubernetes-embedded-resource": true,
                       "x-kubernetes-preserve-unknown-fields": true},
        "nested": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
            "spec": {"type": "object", "properties": {
                "embedded": {"type": "object", "x-kubernetes-embedded-resource": true,
                             "properties": meta(json!({"spec": spec}))}}}}}
    }});
    if with_metadata {
        root["properties"]["metadata"] = json!({"type": "object"});
    }
    root
}

#[test]
fn apiextensions_prune_embedded_resources() {
    let pruned_resource = |extra: Json| {
        let mut v = json!({"apiVersion": "foo/v1", "kind": "Foo",
                           "metadata": {"name": "instance", "unspecified": "bar"}, "spec": {}});
        if let (Json::Object(m), Json::Object(e)) = (&mut v, extra) {
            m.extend(e);
        }
        v
    };
    let unknown: &[&str] = &[
        "nested.spec.embedded.spec.unspecified",
        "nested.spec.embedded.unspecified",
        "nested.spec.unspecified",
        "nested.unspecified",
        "pruned.spec.unspecified",
        "pruned.unspecified",
        "unspecified",
    ];
    let input = json!({
        "apiVersion": "foo/v1", "kind": "Foo",
        "metadata": {"name": "instance", "unspecified": "bar"},
        "unspecified": "bar",
        "pruned": resource(json!({})),
        "preserving": resource(json!({})),
        "nested": resource(json!({"spec": {"unspecified": "bar", "embedded": resource(json!({}))}}))
    });
    let expected = |root_meta: bool| {
        let mut v = json!({
            "pruned": pruned_resource(json!({})),
            "preserving": resource(json!({})),
            "nested": pruned_resource(json!({"spec": {"embedded": pruned_resource(json!({}))}}))
        });
        if root_meta {
            v["apiVersion"] = json!("foo/v1");
            v["kind"] = json!("Foo");
            v["metadata"] = json!({"name": "instance", "unspecified": "bar"});
        }
        v
    };
    facts(vec![
        Fact {
            // Not a resource root: the root's own meta fields are unknown but not reported.
            name: "x-kubernetes-embedded-resource",
            input: input.clone(),
            schema: Some(embedded_schema(false)),
            is_resource_root: false,
            pruned_object: expected(false),
            unknown,
        },
        Fact {
            name: "x-kubernetes-embedded-resource, with root=true",
            input,
            schema: Some(embedded_schema(true)),
            is_resource_root: true,
            pruned_object: expected(true),
            unknown,
        },
    ]);
}

/// Not among the upstream cases: what `prune` does at `x-kubernetes-int-or-string` follows from
/// its map case (a schema with neither properties nor additionalProperties knows no key), and
/// a structural schema cannot add `x-kubernetes-preserve-unknown-fields` there
/// (`pkg/apiserver/schema/validation.go`, `validateExtensions`: "must be false if
/// x-kubernetes-int-or-string is true").
#[test]
fn int_or_string_keeps_scalars_and_knows_no_key() {
    let schema = json!({"type": "object", "properties": {
        "port": {"x-kubernetes-int-or-string": true,
                 "anyOf": [{"type": "integer"}, {"type": "string"}]},
        "ports": {"type": "array", "items": {"x-kubernetes-int-or-string": true}}}});
    facts(vec![
        Fact {
            name: "int-or-string scalars",
            input: json!({"port": "50%", "ports": [80, "http"]}),
            schema: Some(schema.clone()),
            is_resource_root: false,
            pruned_object: json!({"port": "50%", "ports": [80, "http"]}),
            unknown: &[],
        },
        Fact {
            name: "int-or-string holding maps",
            input: json!({"port": {"number": 80}, "ports": [{"name": "http"}, 443]}),
            schema: Some(schema),
            is_resource_root: false,
            pruned_object: json!({"port": {}, "ports": [{}, 443]}),
            unknown: &["port.number", "ports[0].name"],
        },
    ]);
}

/// The real case: a plaintext overrider's `value` is `x-kubernetes-preserve-unknown-fields`
/// with no type (Karmada `apiextensionsv1.JSON`), and a list of objects there (tolerations)
/// is kept whole, not walked against a missing `items` schema.
#[test]
fn arrays_under_preserve_unknown_fields_are_kept_whole() {
    let schema = json!({"type": "object", "properties": {
        "plaintext": {"type": "array", "items": {"type": "object", "properties": {
            "path": {"type": "string"},
            "value": {"x-kubernetes-preserve-unknown-fields": true}}}},
        "list": {"type": "array", "x-kubernetes-preserve-unknown-fields": true,
                 "items": {"type": "object", "properties": {"known": {"type": "object",
                     "properties": {"a": {}}}}}}}});
    facts(vec![Fact {
        name: "preserved arrays",
        input: json!({
            "plaintext": [{"path": "/spec/tolerations", "value": [
                {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
                [{"nested": true}], "x"]}],
            "list": [{"free": 1, "known": {"a": 1, "b": 2}}, [{"deeper": true}]]
        }),
        schema: Some(schema),
        is_resource_root: false,
        pruned_object: json!({
            "plaintext": [{"path": "/spec/tolerations", "value": [
                {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
                [{"nested": true}], "x"]}],
            // skipPrune recurses into items: their unknown keys stay, their known ones are
            // still pruned by their own schema.
            "list": [{"free": 1, "known": {"a": 1}}, [{"deeper": true}]]
        }),
        unknown: &["list[0].known.b"],
    }]);
}

#[test]
fn the_decoder_lists_root_metadata_first_then_the_pruned_fields_sorted() {
    let schema = Structural::from_json(
        &json!({
            "type": "object",
            "properties": {
                "metadata": {"type": "object"},
                "spec": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "list": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}}}}}
        }),
        Origin::Crd,
    );
    let mut v = json!({"apiVersion": "x/v1", "kind": "X",
        "metadata": {"foo": 1, "name": "x", "ownerReferences": [{"uid": "u", "bad": 1}]},
        "spec": {"zeta": 1, "alpha": 2, "name": {"a": 1}, "list": [{"extra": 1}]}});
    let found: Vec<String> = prune_unknown(&mut v, &schema)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        found,
        [
            "metadata.foo",
            "metadata.ownerReferences[0].bad",
            "spec.alpha",
            "spec.list[0].extra",
            "spec.name.a",
            "spec.zeta"
        ]
    );
    assert_eq!(
        v,
        json!({"apiVersion": "x/v1", "kind": "X",
               "metadata": {"name": "x", "ownerReferences": [{"uid": "u"}]},
               "spec": {"name": {}, "list": [{}]}})
    );
}

#[test]
fn embedded_resources_metadata_is_coerced_after_pruning() {
    // objectmeta/algorithm.go: CoerceWithOptions reads every embedded resource's metadata.
    let schema = Structural::from_json(
        &json!({"type": "object", "properties": {
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                         "x-kubernetes-preserve-unknown-fields": true}}}),
        Origin::Crd,
    );
    let mut v = json!({"template": {"kind": "Pod", "metadata": {"name": "p", "bogus": 1}, "spec": {"x": 1}}});
    let found: Vec<String> = prune_unknown(&mut v, &schema)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(found, ["template.metadata.bogus"]);
    assert_eq!(
        v,
        json!({"template": {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": 1}}})
    );
}

fn defaults_schema() -> Structural {
    Structural::from_json(
        &json!({
            "type": "object", "additionalProperties": false,
            "properties": {
                "spec": {"type": "object", "additionalProperties": false, "properties": {
                    "name": {"type": "string"},
                    "mode": {"type": "string", "default": "Gracefully"},
                    "maybe": {"type": ["string", "null"]},
                    "list": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                                                        "properties": {"a": {"type": "string"}}}}
                }}
            }
        }),
        Origin::Converted,
    )
}

#[test]
fn nulls_without_default_go_and_defaults_fill_absent_or_null_but_not_empty() {
    // prunenulls.go and defaulting/algorithm.go.
    let s = defaults_schema();
    let mut v = json!({"spec": {"name": null, "mode": null, "maybe": null, "list": [null]}});
    prune_nulls(&mut v, Some(&s));
    assert_eq!(
        v,
        json!({"spec": {"mode": null, "maybe": null, "list": [null]}})
    );
    apply_defaults(&mut v, &s);
    assert_eq!(
        v,
        json!({"spec": {"mode": "Gracefully", "maybe": null, "list": [null]}})
    );
    let mut empty = json!({"spec": {"mode": ""}});
    apply_defaults(&mut empty, &s);
    assert_eq!(empty, json!({"spec": {"mode": ""}}));
}

#[test]
fn converted_strictness_is_not_an_additional_properties_keyword() {
    let s = defaults_schema();
    assert_eq!(s.additional_properties, None);
    let mut v = json!({"spec": {"extra": {"a": 1}}});
    let found: Vec<String> = prune(&mut v, Some(&s), false)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(found, ["spec.extra"]);
}

/// The search for embedded resources' metadata skips only values whose schema has no embedded
/// resource below; one reached through `items` and `additionalProperties` is still searched.
#[test]
fn embedded_below_marks_the_way_to_every_embedded_resource() {
    let s = Structural::from_json(
        &json!({"type": "object", "properties": {
            "plain": {"type": "object", "properties": {"a": {"type": "string"}}},
            "list": {"type": "array", "items": {"type": "object",
                "x-kubernetes-embedded-resource": true}},
            "byName": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                "template": {"type": "object", "x-kubernetes-embedded-resource": true}}}}}}),
        Origin::Crd,
    );
    assert!(s.embedded_below);
    assert!(!s.properties["plain"].embedded_below);
    assert!(s.properties["list"].embedded_below);
    assert!(s.properties["byName"].embedded_below);
    let mut v = json!({"plain": {"a": "x"},
        "list": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "bogus": 1}}],
        "byName": {"one": {"template": {"metadata": {"name": "b", "odd": true}}}}});
    let unknown: Vec<String> = prune_unknown(&mut v, &s)
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(
        unknown,
        ["byName.one.template.metadata.odd", "list[0].metadata.bogus"]
    );
}

/// The walk skips only values whose schema has no default below: a default reached through
/// `items` and `additionalProperties` is still applied, a sibling without one is not walked.
#[test]
fn defaults_below_marks_the_way_to_every_default() {
    let s = Structural::from_json(
        &json!({"type": "object", "properties": {
            "plain": {"type": "object", "properties": {"a": {"type": "string"}}},
            "list": {"type": "array", "items": {"type": "object", "properties": {
                "mode": {"type": "string", "default": "Never"}}}},
            "byName": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                "weight": {"type": "integer", "default": 1}}}}}}),
        Origin::Crd,
    );
    assert!(s.defaults_below);
    assert!(!s.properties["plain"].defaults_below);
    assert!(s.properties["list"].defaults_below);
    assert!(s.properties["byName"].defaults_below);
    let mut v = json!({"plain": {"a": "x"}, "list": [{}], "byName": {"one": {}}});
    apply_defaults(&mut v, &s);
    assert_eq!(
        v,
        json!({"plain": {"a": "x"}, "list": [{"mode": "Never"}], "byName": {"one": {"weight": 1}}})
    );
}
