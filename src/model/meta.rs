//! Object metadata: the parts Karmada's decisions read.

use super::StringMap;
use crate::source::{Node, Value};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjectMeta {
    pub name: String,
    /// `None` for cluster-scoped objects (after classification).
    pub namespace: Option<String>,
    pub labels: StringMap,
    pub annotations: StringMap,
    pub deletion_timestamp: Option<String>,
    pub generation: Option<i64>,
    pub resource_version: Option<String>,
    pub uid: Option<String>,
}

impl ObjectMeta {
    pub fn from_node(node: Option<&Node>) -> ObjectMeta {
        let Some(node) = node else {
            return ObjectMeta::default();
        };
        let text = |k: &str| node.get(k).and_then(scalar_text);
        ObjectMeta {
            name: text("name").unwrap_or_default(),
            namespace: text("namespace").filter(|s| !s.is_empty()),
            labels: string_map(node.get("labels")),
            annotations: string_map(node.get("annotations")),
            deletion_timestamp: text("deletionTimestamp"),
            generation: node.get("generation").and_then(|n| match n.value {
                Value::Int(i) => Some(i),
                _ => None,
            }),
            resource_version: text("resourceVersion"),
            uid: text("uid"),
        }
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// Scalars as the strings the API would hold; labels written as `app: 1` reach the API server
/// as a number and are rejected there, which the schema check reports.
fn scalar_text(n: &Node) -> Option<String> {
    match &n.value {
        Value::Str(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Float(f) => Some(f.to_string()),
        _ => None,
    }
}

fn string_map(node: Option<&Node>) -> StringMap {
    let mut out = StringMap::new();
    if let Some(entries) = node.and_then(Node::as_map) {
        for e in entries {
            if let (Some(k), Some(v)) = (scalar_text(&e.key), scalar_text(&e.value)) {
                out.insert(k, v);
            } else if let (Some(k), Value::Null) = (scalar_text(&e.key), &e.value.value) {
                out.insert(k, String::new());
            }
        }
    }
    out
}
