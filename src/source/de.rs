//! Typed values straight from a [`Node`] tree, as serde would read them from the tree's JSON
//! ([`Node::to_json`]) without building that JSON first: a policy's spec is typed this way
//! ten thousand times in a large lint, and the intermediate `serde_json::Value` (an ordered map
//! per mapping) cost as much as the typing itself.
//!
//! The deserializer gives serde the same calls the JSON would: the last of duplicate keys wins,
//! a non-string key is its text, a non-finite float is null, a non-negative integer is an
//! unsigned one (as `serde_json::Number` stores it).

use serde::de::value::{Error, StrDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::document::{scalar_key_text, Entry, Node, Value};

/// Reads a `T` from `node` (a missing node reads as null).
pub fn from_node<'de, T: de::Deserialize<'de>>(node: Option<&'de Node>) -> Result<T, Error> {
    T::deserialize(NodeDeserializer(node))
}

/// A node, or none for a missing one (read as null, as `to_json` gives for it).
#[derive(Clone, Copy)]
struct NodeDeserializer<'de>(Option<&'de Node>);

impl<'de> NodeDeserializer<'de> {
    /// The value as its JSON would have it: a float JSON cannot hold is null.
    fn value(&self) -> Option<&'de Value> {
        match self.0.map(|n| &n.value) {
            Some(Value::Float(f)) if !f.is_finite() => None,
            Some(Value::Null) | None => None,
            other => other,
        }
    }
}

impl<'de> de::Deserializer<'de> for NodeDeserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value() {
            None => visitor.visit_unit(),
            Some(Value::Bool(b)) => visitor.visit_bool(*b),
            Some(&Value::Int(i)) if i >= 0 => visitor.visit_u64(i as u64),
            Some(Value::Int(i)) => visitor.visit_i64(*i),
            Some(Value::Float(f)) => visitor.visit_f64(*f),
            Some(Value::Str(s)) => visitor.visit_borrowed_str(s),
            Some(Value::Seq(items)) => visitor.visit_seq(Items(items.iter())),
            Some(Value::Map(entries)) => visitor.visit_map(Entries {
                entries,
                next: 0,
                value: None,
            }),
            Some(Value::Null) => unreachable!("null is None above"),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value() {
            None => visitor.visit_none(),
            Some(_) => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value() {
            // A unit variant by name, as serde_json reads a string.
            Some(Value::Str(s)) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => Err(de::Error::custom("expected an enum variant name")),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

struct Items<'de>(std::slice::Iter<'de, Node>);

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|n| seed.deserialize(NodeDeserializer(Some(n))))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries<'de> {
    entries: &'de [Entry],
    next: usize,
    /// The value of the key just read.
    value: Option<&'de Node>,
}

impl<'de> Entries<'de> {
    /// Whether a later entry has the same key, which then wins.
    fn overridden(&self, i: usize) -> bool {
        let key = &self.entries[i].key.value;
        self.entries[i + 1..]
            .iter()
            .any(|e| match (&e.key.value, key) {
                (Value::Str(a), Value::Str(b)) => a == b,
                (a, b) => scalar_key_text(a) == scalar_key_text(b),
            })
    }
}

impl<'de> MapAccess<'de> for Entries<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        while self.next < self.entries.len() && self.overridden(self.next) {
            self.next += 1;
        }
        let Some(entry) = self.entries.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        self.value = Some(&entry.value);
        match &entry.key.value {
            Value::Str(s) => seed.deserialize(StrDeserializer::<Error>::new(s)).map(Some),
            other => seed
                .deserialize(StringDeserializer::<Error>::new(scalar_key_text(other)))
                .map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(NodeDeserializer(self.value.take()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PropagationSpec;
    use crate::source::{load, Source};

    /// Every policy spec in the test data and the corpus reads the same from its tree as from
    /// its JSON: equal values, or both refused.
    #[test]
    fn a_spec_reads_as_from_its_json() {
        let mut specs = 0;
        for doc in crate::source::test_data_documents() {
            let Some(spec) = doc.root.get("spec") else {
                continue;
            };
            let direct = from_node::<PropagationSpec>(Some(spec)).ok();
            let via_json = serde_json::from_value::<PropagationSpec>(spec.to_json()).ok();
            assert_eq!(direct, via_json, "{} #{}", doc.source.name, doc.index);
            specs += 1;
        }
        assert!(specs > 100, "the data has specs to compare: {specs}");
    }

    #[test]
    fn duplicate_keys_odd_keys_and_floats_read_as_their_json_does() {
        let text = "resourceSelectors:\n  - {apiVersion: v1, kind: A, kind: B}\npriority: 1\npriority: 7\n1: x\nx: .nan\n";
        let doc = load(Source::new("t", text)).documents.remove(0);
        let direct: serde_json::Value = from_node(Some(&doc.root)).unwrap();
        assert_eq!(direct, doc.root.to_json());
        let spec: PropagationSpec = from_node(Some(&doc.root)).unwrap();
        assert_eq!(spec.priority, Some(7));
        assert_eq!(spec.resource_selectors[0].kind, "B");
        // A null or missing spec reads as an empty one, a mistyped one is refused.
        assert!(from_node::<PropagationSpec>(None).is_err());
        let wrong = load(Source::new("t", "priority: high\n"))
            .documents
            .remove(0);
        assert!(from_node::<PropagationSpec>(Some(&wrong.root)).is_err());
    }
}
