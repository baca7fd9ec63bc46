//! Object metadata: the parts Karmada's decisions read.

use std::borrow::Cow;

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
        let Some(entries) = node.and_then(Node::as_map) else {
            return ObjectMeta::default();
        };
        // One pass over the entries (every document has metadata); the last of duplicate keys
        // wins, as in the API server and `Node::get`.
        const KEYS: [&str; 8] = [
            "name",
            "namespace",
            "labels",
            "annotations",
            "deletionTimestamp",
            "generation",
            "resourceVersion",
            "uid",
        ];
        let mut found: [Option<&Node>; KEYS.len()] = [None; KEYS.len()];
        for e in entries {
            if let Some(i) = e
                .key
                .as_str()
                .and_then(|k| KEYS.iter().position(|&n| n == k))
            {
                found[i] = Some(&e.value);
            }
        }
        let [name, namespace, labels, annotations, deletion, generation, version, uid] = found;
        let text = |n: Option<&Node>| n.and_then(Node::scalar_text).map(Cow::into_owned);
        ObjectMeta {
            name: text(name).unwrap_or_default(),
            namespace: text(namespace).filter(|s| !s.is_empty()),
            labels: string_map(labels),
            annotations: string_map(annotations),
            deletion_timestamp: text(deletion),
            generation: generation.and_then(|n| match n.value {
                Value::Int(i) => Some(i),
                _ => None,
            }),
            resource_version: text(version),
            uid: text(uid),
        }
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.get(key).filter(|v| !v.is_empty())
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations.get(key).filter(|v| !v.is_empty())
    }
}

fn string_map(node: Option<&Node>) -> StringMap {
    let Some(entries) = node.and_then(Node::as_map) else {
        return StringMap::new();
    };
    let pairs = entries
        .iter()
        .filter_map(|e| {
            // Scalars as the strings the API would hold; labels written as `app: 1` reach the API
            // server as a number and are rejected there, which the schema check reports.
            let key = e.key.scalar_text()?;
            match (e.value.scalar_text(), &e.value.value) {
                (Some(v), _) => Some((key, v)),
                (None, Value::Null) => Some((key, Cow::Borrowed(""))),
                (None, _) => None,
            }
        })
        .collect();
    StringMap::from_pairs(pairs)
}
