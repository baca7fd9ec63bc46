//! What the API server does to a custom resource with its structural schema before and after
//! admission (admission-chain.md §2): prune unknown fields (and name them, for strict field
//! validation), drop `null`s that have no default, apply the CRD's defaults. All three walk the
//! document beside the converted schema of [`super::schema_json`].

use serde_json::{Map, Value as Json};

use crate::source::FieldPath;

/// Removes every field the schema does not define and returns their paths, the way strict
/// decoding lists them (§2.1): the unknown `metadata` fields first (found by the ObjectMeta
/// round trip), then the pruned ones, each group sorted.
pub fn prune_unknown(object: &mut Json, schema: &Json) -> Vec<FieldPath> {
    let mut found = Vec::new();
    prune(object, Some(schema), FieldPath::root(), &mut found);
    let mut with_text: Vec<(bool, String, FieldPath)> = found
        .into_iter()
        .map(|p| {
            let text = p.to_string();
            (!text.starts_with("metadata."), text, p)
        })
        .collect();
    with_text.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    with_text.into_iter().map(|(_, _, p)| p).collect()
}

fn prune(v: &mut Json, schema: Option<&Json>, at: FieldPath, found: &mut Vec<FieldPath>) {
    match v {
        Json::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                match child_schema(schema, &key) {
                    Child::Known(s) => {
                        if let Some(child) = map.get_mut(&key) {
                            prune(child, Some(s), at.clone().key(key.as_str()), found);
                        }
                    }
                    Child::Free => {}
                    Child::Unknown => {
                        map.remove(&key);
                        found.push(at.clone().key(key.as_str()));
                    }
                }
            }
        }
        Json::Array(items) => {
            let item_schema = schema.and_then(|s| s.get("items"));
            for (i, item) in items.iter_mut().enumerate() {
                prune(item, item_schema, at.clone().index(i), found);
            }
        }
        _ => {}
    }
}

enum Child<'a> {
    Known(&'a Json),
    /// Under `x-kubernetes-preserve-unknown-fields` (or a free-form object): kept as is.
    Free,
    Unknown,
}

/// The schema of `key` inside an object whose schema is `schema`. A map where the schema has a
/// scalar or a list has no properties, so each of its keys is unknown (§2.1).
fn child_schema<'a>(schema: Option<&'a Json>, key: &str) -> Child<'a> {
    let Some(schema) = schema else {
        return Child::Unknown;
    };
    if let Some(s) = schema.get("properties").and_then(|p| p.get(key)) {
        return Child::Known(s);
    }
    match schema.get("additionalProperties") {
        Some(Json::Bool(false)) => Child::Unknown,
        Some(s @ Json::Object(_)) => Child::Known(s),
        Some(_) => Child::Free,
        // An object without properties, or a schema with no type at all (the generator's `{}`
        // for `x-kubernetes-preserve-unknown-fields`, e.g. a plaintext overrider's `value`),
        // keeps whatever it holds.
        None if schema.get("properties").is_none()
            && (is_object_schema(schema) || schema.get("type").is_none()) =>
        {
            Child::Free
        }
        None => Child::Unknown,
    }
}

fn is_object_schema(schema: &Json) -> bool {
    match schema.get("type") {
        Some(Json::String(t)) => t == "object",
        Some(Json::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    }
}

/// The schema of an object's value under `key` when the key is known.
fn known_child<'a>(schema: &'a Json, key: &str) -> Option<&'a Json> {
    match child_schema(Some(schema), key) {
        Child::Known(s) => Some(s),
        _ => None,
    }
}

/// Drops `null` object fields that have no default (`prunenulls.go`); a `null` with a default
/// is left for [`apply_defaults`], a `null` list item is kept (§2.3).
pub fn prune_nulls(v: &mut Json, schema: &Json) {
    match v {
        Json::Object(map) => {
            map.retain(|key, value| {
                !value.is_null()
                    || known_child(schema, key).is_some_and(|s| s.get("default").is_some())
            });
            for (key, value) in map.iter_mut() {
                if let Some(s) = known_child(schema, key) {
                    prune_nulls(value, s);
                }
            }
        }
        Json::Array(items) => {
            if let Some(s) = schema.get("items") {
                items.iter_mut().for_each(|item| prune_nulls(item, s));
            }
        }
        _ => {}
    }
}

/// Structural defaulting (`defaulting/algorithm.go`): a default fills a key that is absent or
/// `null`, only where its parent object exists, and never replaces `""` (§2.4).
pub fn apply_defaults(v: &mut Json, schema: &Json) {
    match v {
        Json::Object(map) => {
            if let Some(Json::Object(props)) = schema.get("properties") {
                for (key, s) in props {
                    if let Some(default) = s.get("default") {
                        let missing = map.get(key).is_none_or(Json::is_null);
                        if missing {
                            insert_in_place(map, key, default.clone());
                        }
                    }
                }
            }
            for (key, value) in map.iter_mut() {
                if let Some(s) = known_child(schema, key) {
                    apply_defaults(value, s);
                }
            }
        }
        Json::Array(items) => {
            if let Some(s) = schema.get("items") {
                items.iter_mut().for_each(|item| apply_defaults(item, s));
            }
        }
        _ => {}
    }
}

/// Sets `key`, keeping its place when it is there (a `null` being defaulted).
fn insert_in_place(map: &mut Map<String, Json>, key: &str, value: Json) {
    match map.get_mut(key) {
        Some(slot) => *slot = value,
        None => {
            map.insert(key.to_string(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Json {
        json!({
            "type": "object", "additionalProperties": false,
            "properties": {
                "metadata": {"type": "object", "additionalProperties": false, "properties": {"name": {"type": "string"}}},
                "spec": {"type": "object", "additionalProperties": false, "properties": {
                    "name": {"type": "string"},
                    "mode": {"type": "string", "default": "Gracefully"},
                    "list": {"type": "array", "items": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}}}
                }}
            }
        })
    }

    #[test]
    fn unknown_fields_are_metadata_first_then_sorted() {
        let mut v = json!({"metadata": {"foo": 1, "name": "x"}, "spec": {"zeta": 1, "alpha": 2, "name": {"a": 1}, "list": [{"extra": 1}]}});
        let found: Vec<String> = prune_unknown(&mut v, &schema())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            found,
            [
                "metadata.foo",
                "spec.alpha",
                "spec.list[0].extra",
                "spec.name.a",
                "spec.zeta"
            ]
        );
        assert_eq!(
            v,
            json!({"metadata": {"name": "x"}, "spec": {"name": {}, "list": [{}]}})
        );
    }

    #[test]
    fn nulls_without_default_go_and_defaults_fill_absent_or_null_but_not_empty() {
        let mut v = json!({"spec": {"name": null, "mode": null, "list": [null]}});
        prune_nulls(&mut v, &schema());
        assert_eq!(v, json!({"spec": {"mode": null, "list": [null]}}));
        apply_defaults(&mut v, &schema());
        assert_eq!(v, json!({"spec": {"mode": "Gracefully", "list": [null]}}));
        let mut empty = json!({"spec": {"mode": ""}});
        apply_defaults(&mut empty, &schema());
        assert_eq!(empty, json!({"spec": {"mode": ""}}));
    }
}
