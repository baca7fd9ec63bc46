//! [`StringMap`]: labels and annotations.

use std::collections::BTreeMap;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// A string-to-string map kept as one text sorted by key, with the parts of `BTreeMap`'s
/// API this code base uses (iteration is in key order, as there).
///
/// Objects carry a handful of labels and annotations. A `BTreeMap` allocates a node for eleven
/// entries (544 bytes) as soon as it holds one; a vector of string pairs still allocates twice
/// per entry. Over 100,000 templates, whose labels the engine keeps, that was the largest use
/// of memory in a run: here a map is two allocations, whatever its size. Maps are written
/// once and read often; a change rebuilds the map.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct StringMap {
    /// Each key followed by its value, in key order.
    text: Box<str>,
    /// Where each key and each value ends in `text`: two per entry.
    ends: Box<[u32]>,
}

impl StringMap {
    pub fn new() -> StringMap {
        StringMap::default()
    }

    /// The map of `pairs`: sorted by key, the last of equal keys wins (as collecting into a
    /// `BTreeMap`).
    pub fn from_pairs<K: AsRef<str>, V: AsRef<str>>(mut pairs: Vec<(K, V)>) -> StringMap {
        // A stable sort keeps equal keys in input order; the last of each run is kept.
        pairs.sort_by(|a, b| a.0.as_ref().cmp(b.0.as_ref()));
        let keep =
            |i: usize| i + 1 == pairs.len() || pairs[i].0.as_ref() != pairs[i + 1].0.as_ref();
        let kept = (0..pairs.len()).filter(|&i| keep(i));
        let len: usize = kept
            .clone()
            .map(|i| pairs[i].0.as_ref().len() + pairs[i].1.as_ref().len())
            .sum();
        let mut text = String::with_capacity(len);
        let mut ends = Vec::with_capacity(2 * kept.clone().count());
        let end = |text: &String| u32::try_from(text.len()).expect("a map under 4 GiB");
        for i in kept {
            text.push_str(pairs[i].0.as_ref());
            ends.push(end(&text));
            text.push_str(pairs[i].1.as_ref());
            ends.push(end(&text));
        }
        StringMap {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        }
    }

    /// Entry `i`'s key and value.
    fn entry(&self, i: usize) -> (&str, &str) {
        let start = if i == 0 {
            0
        } else {
            self.ends[2 * i - 1] as usize
        };
        let (key_end, value_end) = (self.ends[2 * i] as usize, self.ends[2 * i + 1] as usize);
        (&self.text[start..key_end], &self.text[key_end..value_end])
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = (low + high) / 2;
            match self.entry(mid).0.cmp(key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(low)
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.find(key).ok().map(|i| self.entry(i).1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key`, returning the value it replaces (as `BTreeMap::insert`).
    pub fn insert(&mut self, key: String, value: String) -> Option<String> {
        let old = self.get(&key).map(str::to_string);
        self.extend([(key, value)]);
        old
    }

    pub fn remove(&mut self, key: &str) -> Option<String> {
        let old = self.get(key).map(str::to_string)?;
        let pairs: Vec<(&str, &str)> = self.iter().filter(|(k, _)| *k != key).collect();
        *self = StringMap::from_pairs(pairs);
        Some(old)
    }

    pub fn len(&self) -> usize {
        self.ends.len() / 2
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Entries in key order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            map: self,
            range: 0..self.len(),
        }
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.iter().map(|(_, v)| v)
    }
}

/// The entries of a [`StringMap`] in key order.
#[derive(Clone)]
pub struct Iter<'a> {
    map: &'a StringMap,
    range: std::ops::Range<usize>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        self.range.next().map(|i| self.map.entry(i))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.range.next_back().map(|i| self.map.entry(i))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// In key order, as `BTreeMap` orders.
impl Ord for StringMap {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.iter().cmp(other.iter())
    }
}

impl PartialOrd for StringMap {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Debug for StringMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: AsRef<str>, V: AsRef<str>> FromIterator<(K, V)> for StringMap {
    /// As collecting into a `BTreeMap`: sorted by key, the last of equal keys wins.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> StringMap {
        StringMap::from_pairs(iter.into_iter().collect())
    }
}

impl Extend<(String, String)> for StringMap {
    fn extend<I: IntoIterator<Item = (String, String)>>(&mut self, iter: I) {
        let added: Vec<(String, String)> = iter.into_iter().collect();
        let mut pairs: Vec<(&str, &str)> = self.iter().collect();
        pairs.extend(added.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        *self = StringMap::from_pairs(pairs);
    }
}

impl From<BTreeMap<String, String>> for StringMap {
    fn from(map: BTreeMap<String, String>) -> StringMap {
        map.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a StringMap {
    type Item = (&'a str, &'a str);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl IntoIterator for StringMap {
    type Item = (String, String);
    type IntoIter = std::vec::IntoIter<(String, String)>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<Vec<_>>()
            .into_iter()
    }
}

/// A JSON object, as a `BTreeMap` serializes.
impl Serialize for StringMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self {
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
        assert!(ours
            .iter()
            .eq(theirs.iter().map(|(k, v)| (k.as_str(), v.as_str()))));
        assert_eq!(ours.get("a"), Some("4"));
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

    #[test]
    fn entries_of_any_length_and_text_read_back() {
        let empty = StringMap::new();
        assert!(empty.is_empty() && empty.get("").is_none() && empty.iter().next().is_none());
        let pairs = vec![
            ("zone", "eu-west-1"),
            ("", "empty key"),
            ("note", ""),
            ("ünïcode", "välue"),
            ("zone", "eu-west-2"),
        ];
        let m = StringMap::from_pairs(pairs);
        assert_eq!(m.len(), 4);
        assert_eq!(m.get(""), Some("empty key"));
        assert_eq!(m.get("note"), Some(""));
        assert_eq!(m.get("ünïcode"), Some("välue"));
        assert_eq!(
            m.get("zone"),
            Some("eu-west-2"),
            "the last of equal keys wins"
        );
        assert_eq!(
            m.keys().rev().collect::<Vec<_>>(),
            ["ünïcode", "zone", "note", ""]
        );
        let mut n = m.clone();
        assert_eq!(n.remove("missing"), None);
        assert_eq!(n.insert("a".into(), "1".into()), None);
        assert_eq!(n.remove("").as_deref(), Some("empty key"));
        assert_eq!(
            n.keys().collect::<Vec<_>>(),
            ["a", "note", "zone", "ünïcode"]
        );
        // Ordered entry by entry, as BTreeMaps are.
        let small = StringMap::from_pairs(vec![("a", "1"), ("b", "2")]);
        let large = StringMap::from_pairs(vec![("a", "10")]);
        let as_btree = |m: &StringMap| -> BTreeMap<String, String> {
            m.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(small.cmp(&large), as_btree(&small).cmp(&as_btree(&large)));
        assert_eq!(format!("{small:?}"), r#"{"a": "1", "b": "2"}"#);
    }
}
