//! [`StringMap`]: labels and annotations.

use std::collections::BTreeMap;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// A string-to-string map kept as a vector sorted by key, with the parts of `BTreeMap`'s API
/// this code base uses (iteration is in key order, as there).
///
/// Objects carry a handful of labels and annotations. A `BTreeMap` allocates a node for eleven
/// entries (544 bytes) as soon as it holds one; over 100,000 templates, whose labels the engine
/// also copies, that was the largest single use of memory in a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StringMap(Vec<(String, String)>);

impl StringMap {
    pub fn new() -> StringMap {
        StringMap(Vec::new())
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&String> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key`, returning the value it replaces (as `BTreeMap::insert`).
    pub fn insert(&mut self, key: String, value: String) -> Option<String> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<String> {
        self.find(key).ok().map(|i| self.0.remove(i).1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &String)> + ExactSizeIterator {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.0.iter().map(|(_, v)| v)
    }
}

impl FromIterator<(String, String)> for StringMap {
    /// As collecting into a `BTreeMap`: sorted by key, the last of equal keys wins.
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> StringMap {
        let mut map = StringMap::new();
        map.extend(iter);
        map
    }
}

impl Extend<(String, String)> for StringMap {
    fn extend<I: IntoIterator<Item = (String, String)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl From<BTreeMap<String, String>> for StringMap {
    fn from(map: BTreeMap<String, String>) -> StringMap {
        // Already sorted and unique.
        StringMap(map.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a StringMap {
    type Item = (&'a String, &'a String);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, String)>,
        fn(&'a (String, String)) -> (&'a String, &'a String),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl IntoIterator for StringMap {
    type Item = (String, String);
    type IntoIter = std::vec::IntoIter<(String, String)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A JSON object, as a `BTreeMap` serializes.
impl Serialize for StringMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_a_btreemap() {
        let pairs = [("b", "2"), ("a", "1"), ("c", "3"), ("a", "4")];
        let ours: StringMap = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let theirs: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert!(ours.iter().eq(theirs.iter()));
        assert_eq!(ours.get("a").map(String::as_str), Some("4"));
        assert!(ours.contains_key("c") && !ours.contains_key("d"));
        assert_eq!(ours.len(), 3);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap()
        );
        assert_eq!(StringMap::from(theirs.clone()), ours);
        let mut m = ours.clone();
        assert_eq!(m.remove("b").as_deref(), Some("2"));
        assert_eq!(m.insert("a".into(), "5".into()).as_deref(), Some("4"));
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "c"]);
    }
}
