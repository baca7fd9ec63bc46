//! What the API server does to a custom resource with its structural schema before and after
//! admission (admission-chain.md §2): prune unknown fields (and name them, for strict field
//! validation), drop `null`s that have no default, apply the CRD's defaults.
//!
//! Each walk follows apiextensions-apiserver's own, over a [`Structural`] node tree that holds
//! what those walks read of a schema (`pkg/apiserver/schema/structural.go`):
//!
//! - pruning, `pkg/apiserver/schema/pruning/algorithm.go` (`prune`, `skipPrune`): under
//!   `x-kubernetes-preserve-unknown-fields: true` an object keeps its unknown fields (its known
//!   ones are still pruned by their own schemas), and the items of such an array are walked the
//!   same way, through nested arrays; an `x-kubernetes-embedded-resource` keeps `apiVersion`,
//!   `kind` and `metadata`; `x-kubernetes-int-or-string` has no fields, so a map there loses all
//!   of its keys; an `additionalProperties` of any form makes every key known;
//! - the ObjectMeta round trip at decode, `pkg/apiserver/schema/objectmeta/coerce.go`
//!   (`GetObjectMetaWithOptions`), and for embedded resources `objectmeta/algorithm.go`
//!   (`CoerceWithOptions`);
//! - nulls, `pkg/apiserver/schema/defaulting/prunenulls.go`; defaults,
//!   `pkg/apiserver/schema/defaulting/algorithm.go`.
//!
//! The order of the unknown fields is the decoder's (`customresource_handler.go`,
//! `unstructuredSchemaCoercer.apply`): the root metadata's first, then the pruned ones sorted,
//! then those of embedded resources' metadata, sorted.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value as Json};

use crate::source::{FieldPath, Seg};

/// One node of a structural schema: what pruning, null pruning and defaulting read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Structural {
    pub properties: BTreeMap<String, Structural>,
    /// `None`: the schema has no `additionalProperties`.
    pub additional_properties: Option<AdditionalProperties>,
    pub items: Option<Box<Structural>>,
    pub nullable: bool,
    pub default: Option<Json>,
    pub preserve_unknown_fields: bool,
    pub embedded_resource: bool,
    pub int_or_string: bool,
    /// Whether a schema within this one (a property, `additionalProperties` or `items`, at any
    /// depth) sets a default: [`apply_defaults`] walks no value whose schema has none below.
    pub defaults_below: bool,
    /// Whether a schema within this one is an embedded resource: the search for embedded
    /// resources' metadata walks no value whose schema has none below (the policy CRDs have
    /// none at all).
    pub embedded_below: bool,
}

/// `StructuralOrBool`: a schema, or `true`/`false`. Either way every key of the map is known;
/// a boolean has no schema, so a value that is an object loses all of its keys.
#[derive(Clone, Debug, PartialEq)]
pub enum AdditionalProperties {
    Bool(bool),
    Schema(Box<Structural>),
}

impl AdditionalProperties {
    pub(super) fn schema(&self) -> Option<&Structural> {
        match self {
            AdditionalProperties::Schema(s) => Some(s),
            AdditionalProperties::Bool(_) => None,
        }
    }
}

/// Where a JSON schema comes from, which decides what `additionalProperties: false` means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A CRD's `openAPIV3Schema` (or a fact written like one): every keyword as it stands.
    Crd,
    /// `schemas/*.schema.json` (`scripts/gen-schemas.py`): `additionalProperties: false` is the
    /// converter's mark for strict validation, not a CRD keyword (the policy CRDs declare no
    /// boolean `additionalProperties`; `tests/schema.rs` checks it), so it reads as absent.
    Converted,
}

impl Structural {
    /// The structural view of a schema. `nullable: true` and a `type` list holding `"null"`
    /// (the converted form) both make a node nullable.
    pub fn from_json(schema: &Json, origin: Origin) -> Structural {
        let flag = |key: &str| schema.get(key) == Some(&Json::Bool(true));
        let properties: BTreeMap<String, Structural> = schema
            .get("properties")
            .and_then(Json::as_object)
            .map(|props| {
                props
                    .iter()
                    .map(|(k, v)| (k.clone(), Structural::from_json(v, origin)))
                    .collect()
            })
            .unwrap_or_default();
        let additional_properties = match schema.get("additionalProperties") {
            Some(Json::Bool(false)) if origin == Origin::Converted => None,
            Some(Json::Bool(b)) => Some(AdditionalProperties::Bool(*b)),
            Some(s @ Json::Object(_)) => Some(AdditionalProperties::Schema(Box::new(
                Structural::from_json(s, origin),
            ))),
            _ => None,
        };
        let null_in_type = schema
            .get("type")
            .and_then(Json::as_array)
            .is_some_and(|ts| ts.iter().any(|t| t == "null"));
        let items = schema
            .get("items")
            .map(|i| Box::new(Structural::from_json(i, origin)));
        let below = |marks: fn(&Structural) -> bool| {
            properties.values().any(marks)
                || additional_properties
                    .as_ref()
                    .and_then(AdditionalProperties::schema)
                    .is_some_and(marks)
                || items.as_deref().is_some_and(marks)
        };
        let defaults_below = below(|s| s.default.is_some() || s.defaults_below);
        let embedded_below = below(|s| s.embedded_resource || s.embedded_below);
        Structural {
            properties,
            additional_properties,
            items,
            nullable: flag("nullable") || null_in_type,
            default: schema.get("default").cloned(),
            preserve_unknown_fields: flag("x-kubernetes-preserve-unknown-fields"),
            embedded_resource: flag("x-kubernetes-embedded-resource"),
            int_or_string: flag("x-kubernetes-int-or-string"),
            defaults_below,
            embedded_below,
        }
    }

    /// The schema of `key` in an object of this schema: its property, else
    /// `additionalProperties`' schema (`getSchemaForField`, `prunenulls.go`).
    fn field(&self, key: &str) -> Option<&Structural> {
        self.properties.get(key).or_else(|| {
            self.additional_properties
                .as_ref()
                .and_then(AdditionalProperties::schema)
        })
    }
}

/// `apiVersion`, `kind` and `metadata`: never pruned at an embedded resource (`metaFields`).
fn is_meta_field(key: &str) -> bool {
    matches!(key, "apiVersion" | "kind" | "metadata")
}

// ---- pruning (`pruning/algorithm.go`) ----

/// `PruneWithOptions(obj, s, isResourceRoot, TrackUnknownFieldPaths)`: removes every field `s`
/// does not specify and returns their paths, sorted as strings. A resource root is walked as an
/// embedded resource (its meta fields are left to the ObjectMeta round trip); a `None` schema
/// knows no field.
pub fn prune(
    object: &mut Json,
    schema: Option<&Structural>,
    is_resource_root: bool,
) -> Vec<FieldPath> {
    let empty = Structural::default();
    let schema = match schema {
        None if is_resource_root => Some(&empty),
        other => other,
    };
    let mut found = Vec::new();
    prune_node(
        object,
        schema,
        is_resource_root,
        &mut FieldPath::root(),
        &mut found,
    );
    sort_paths(found)
}

/// `prune`; `embedded` forces `x-kubernetes-embedded-resource` on this node (the resource root).
fn prune_node(
    x: &mut Json,
    s: Option<&Structural>,
    embedded: bool,
    at: &mut FieldPath,
    found: &mut Vec<FieldPath>,
) {
    if let Some(s) = s.filter(|s| s.preserve_unknown_fields) {
        return skip_prune(x, Some(s), embedded, at, found);
    }
    match x {
        Json::Object(map) => {
            let Some(s) = s else {
                found.extend(map.keys().map(|k| at.clone().key(k.as_str())));
                map.clear();
                return;
            };
            let embedded = embedded || s.embedded_resource;
            map.retain(|k, v| {
                if embedded && is_meta_field(k) {
                    return true;
                }
                if let Some(prop) = s.properties.get(k) {
                    if holds_fields(v) {
                        at.within(Seg::Key(k.clone()), |at| {
                            prune_node(v, Some(prop), false, at, found)
                        });
                    }
                    true
                } else if let Some(extra) = &s.additional_properties {
                    if holds_fields(v) {
                        at.within(Seg::Key(k.clone()), |at| {
                            prune_node(v, extra.schema(), false, at, found)
                        });
                    }
                    true
                } else {
                    // An unknown meta field at the root of a walk that is not a resource's is
                    // dropped without being reported.
                    if !is_meta_field(k) || !at.0.is_empty() {
                        found.push(at.clone().key(k.as_str()));
                    }
                    false
                }
            });
        }
        Json::Array(items) => {
            let item_schema = s.and_then(|s| s.items.as_deref());
            for (i, item) in items.iter_mut().enumerate() {
                at.within(Seg::Index(i), |at| {
                    prune_node(item, item_schema, false, at, found)
                });
            }
        }
        _ => {}
    }
}

/// Under `x-kubernetes-preserve-unknown-fields`: unknown keys stay, known ones are pruned by
/// their own schemas, and array items are walked the same way (`skipPrune`).
fn skip_prune(
    x: &mut Json,
    s: Option<&Structural>,
    embedded: bool,
    at: &mut FieldPath,
    found: &mut Vec<FieldPath>,
) {
    let Some(s) = s else {
        return;
    };
    match x {
        Json::Object(map) => {
            let embedded = embedded || s.embedded_resource;
            for (k, v) in map.iter_mut() {
                if embedded && is_meta_field(k) {
                    continue;
                }
                let schema = match (s.properties.get(k), &s.additional_properties) {
                    (Some(prop), _) => Some(prop),
                    (None, Some(extra)) => extra.schema(),
                    (None, None) => continue,
                };
                if holds_fields(v) {
                    at.within(Seg::Key(k.clone()), |at| {
                        prune_node(v, schema, false, at, found)
                    });
                }
            }
        }
        Json::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                at.within(Seg::Index(i), |at| {
                    skip_prune(item, s.items.as_deref(), false, at, found)
                });
            }
        }
        _ => {}
    }
}

/// Whether pruning could remove anything inside `v`: only an object or a list holds fields, so
/// a scalar is not walked (nor its path built).
fn holds_fields(v: &Json) -> bool {
    matches!(v, Json::Object(_) | Json::Array(_))
}

fn sort_paths(paths: Vec<FieldPath>) -> Vec<FieldPath> {
    let mut with_text: Vec<(String, FieldPath)> =
        paths.into_iter().map(|p| (p.to_string(), p)).collect();
    with_text.sort_by(|a, b| a.0.cmp(&b.0));
    with_text.into_iter().map(|(_, p)| p).collect()
}

// ---- ObjectMeta (`objectmeta/coerce.go`, `objectmeta/algorithm.go`) ----

/// The JSON fields of `metav1.ObjectMeta` and of the structs inside it
/// (k8s.io/apimachinery `pkg/apis/meta/v1/types.go`: `ObjectMeta`, `OwnerReference`,
/// `ManagedFieldsEntry`; `fieldsV1` holds any JSON).
fn object_meta() -> &'static Structural {
    static META: OnceLock<Structural> = OnceLock::new();
    META.get_or_init(|| {
        let scalar = serde_json::json!({});
        let strings =
            serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}});
        let owner = serde_json::json!({"type": "object", "properties": {
            "apiVersion": scalar, "kind": scalar, "name": scalar, "uid": scalar,
            "controller": scalar, "blockOwnerDeletion": scalar}});
        let managed = serde_json::json!({"type": "object", "properties": {
            "manager": scalar, "operation": scalar, "apiVersion": scalar, "time": scalar,
            "fieldsType": scalar, "subresource": scalar,
            "fieldsV1": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}});
        let meta = serde_json::json!({"type": "object", "properties": {
            "name": scalar, "generateName": scalar, "namespace": scalar, "selfLink": scalar,
            "uid": scalar, "resourceVersion": scalar, "generation": scalar,
            "creationTimestamp": scalar, "deletionTimestamp": scalar,
            "deletionGracePeriodSeconds": scalar, "labels": strings, "annotations": strings,
            "ownerReferences": {"type": "array", "items": owner},
            "finalizers": {"type": "array", "items": scalar},
            "managedFields": {"type": "array", "items": managed}}});
        Structural::from_json(&meta, Origin::Crd)
    })
}

/// The strict ObjectMeta round trip of the `metadata` under `parent`: the fields
/// `metav1.ObjectMeta` does not have are reported (`metadata.foo`, with the parent's path in
/// front for an embedded resource) and gone once the metadata is written back.
pub fn object_meta_unknown(object: &mut Json, parent: &FieldPath) -> Vec<FieldPath> {
    let Some(meta @ Json::Object(_)) = object.get_mut("metadata") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    prune_node(
        meta,
        Some(object_meta()),
        false,
        &mut parent.clone().key("metadata"),
        &mut found,
    );
    sort_paths(found)
}

/// `CoerceWithOptions(nil, obj, s, false, …)`: the metadata of every embedded resource below
/// the root, found along properties, `additionalProperties` and items.
fn embedded_meta_unknown(
    x: &mut Json,
    s: &Structural,
    at: &mut FieldPath,
    found: &mut Vec<FieldPath>,
) {
    if !s.embedded_resource && !s.embedded_below {
        return;
    }
    match x {
        Json::Object(_) => {
            if s.embedded_resource {
                found.extend(object_meta_unknown(x, at));
            }
            let Json::Object(map) = x else { return };
            for (k, v) in map.iter_mut() {
                let schema = s.properties.get(k).or_else(|| {
                    s.additional_properties
                        .as_ref()
                        .and_then(AdditionalProperties::schema)
                });
                if let Some(schema) = schema {
                    at.within(Seg::Key(k.clone()), |at| {
                        embedded_meta_unknown(v, schema, at, found)
                    });
                }
            }
        }
        Json::Array(items) => {
            if let Some(item_schema) = s.items.as_deref() {
                for (i, item) in items.iter_mut().enumerate() {
                    at.within(Seg::Index(i), |at| {
                        embedded_meta_unknown(item, item_schema, at, found)
                    });
                }
            }
        }
        _ => {}
    }
}

/// What decoding a custom resource removes and, with strict field validation, reports
/// (`unstructuredSchemaCoercer.apply`): the root metadata's unknown fields, the pruned ones,
/// then those of embedded resources' metadata.
pub fn prune_unknown(object: &mut Json, schema: &Structural) -> Vec<FieldPath> {
    let mut unknown = object_meta_unknown(object, &FieldPath::root());
    unknown.extend(prune(object, Some(schema), true));
    let mut embedded = Vec::new();
    if let Json::Object(map) = object {
        // The root's own metadata was read above; `CoerceWithOptions` runs with
        // isResourceRoot false, so only embedded resources below it count.
        for (k, v) in map.iter_mut().filter(|(k, _)| !is_meta_field(k)) {
            if let Some(prop) = schema.properties.get(k) {
                embedded_meta_unknown(
                    v,
                    prop,
                    &mut FieldPath::root().key(k.as_str()),
                    &mut embedded,
                );
            }
        }
    }
    unknown.extend(sort_paths(embedded));
    unknown
}

// ---- nulls and defaults (`defaulting/prunenulls.go`, `defaulting/algorithm.go`) ----

/// `PruneNonNullableNullsWithoutDefaults`: drops a `null` object field whose schema is neither
/// nullable nor defaulted; a `null` list item is kept (§2.3).
pub fn prune_nulls(x: &mut Json, s: Option<&Structural>) {
    match x {
        Json::Object(map) => {
            map.retain(|k, v| {
                let schema = s.and_then(|s| s.field(k));
                let drop =
                    v.is_null() && schema.is_some_and(|s| !s.nullable && s.default.is_none());
                if !drop {
                    prune_nulls(v, schema);
                }
                !drop
            });
        }
        Json::Array(items) => {
            let schema = s.and_then(|s| s.items.as_deref());
            items.iter_mut().for_each(|item| prune_nulls(item, schema));
        }
        _ => {}
    }
}

fn is_non_nullable_null(x: &Json, s: Option<&Structural>) -> bool {
    x.is_null() && s.is_some_and(|s| !s.nullable)
}

/// `Default`: a default fills a key that is absent or a non-nullable `null`, only where its
/// parent exists, and never replaces `""` (§2.4).
pub fn apply_defaults(x: &mut Json, s: &Structural) {
    if !s.defaults_below {
        return;
    }
    match x {
        Json::Object(map) => {
            for (k, prop) in &s.properties {
                let Some(default) = &prop.default else {
                    continue;
                };
                let missing = map
                    .get(k)
                    .is_none_or(|v| is_non_nullable_null(v, Some(prop)));
                if missing {
                    insert_in_place(map, k, default.clone());
                }
            }
            let extra = s
                .additional_properties
                .as_ref()
                .and_then(AdditionalProperties::schema);
            for (k, v) in map.iter_mut() {
                if let Some(prop) = s.properties.get(k) {
                    apply_defaults(v, prop);
                } else if let Some(extra) = extra {
                    if is_non_nullable_null(v, Some(extra)) {
                        if let Some(default) = &extra.default {
                            *v = default.clone();
                        }
                    }
                    apply_defaults(v, extra);
                }
            }
        }
        Json::Array(items) => {
            let Some(item_schema) = s.items.as_deref() else {
                return;
            };
            for item in items.iter_mut() {
                if is_non_nullable_null(item, Some(item_schema)) {
                    if let Some(default) = &item_schema.default {
                        *item = default.clone();
                    }
                }
                apply_defaults(item, item_schema);
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
mod tests;
