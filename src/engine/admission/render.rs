//! Values rendered the way `k8s.io/apimachinery/pkg/util/validation/field` prints a bad value
//! (`errors.go:99-154`, validation-suspension-failover.md §0): ints and bools bare, strings
//! quoted with Go's `%q`, structs and slices as the JSON `encoding/json` would produce for the
//! Go type (so `omitempty` fields with zero values are left out, and `<`, `>`, `&` are escaped).

use serde::Serialize;
use serde_json::Value;

/// Fields of the Karmada/k8s Go types that are NOT `omitempty`: an empty string or zero stays.
const KEEP_EMPTY: &[&str] = &[
    "affinityName",
    "key",
    "operator",
    "groupByLabelKey",
    "aliasLabelName",
    "jsonPath",
    "weight",
    "targetCluster",
    "apiVersion",
    "kind",
    "path",
    "subPath",
    "fieldPath",
    "component",
];

/// `int` fields with `omitempty` in Go: a zero is left out (pointers keep their zero).
const OMIT_ZERO: &[&str] = &["minGroups", "maxGroups"];

/// Go's `strconv.Quote` (what `%q` prints).
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => {
                let n = c as u32;
                if n <= 0xffff {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Compact JSON as Go's `json.Marshal` writes it (HTML-safe escaping, keys in the given order).
pub(crate) fn go_json(v: &Value) -> String {
    let mut out = String::new();
    write_json(v, &mut out);
    out
}

fn write_json(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(k, out);
                out.push(':');
                write_json(item, out);
            }
            out.push('}');
        }
    }
}

fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Drops what Go's `omitempty` would drop: nulls, empty strings and slices and maps, and zero
/// `int`s of [`OMIT_ZERO`] fields, except for the fields of [`KEEP_EMPTY`].
fn prune(v: Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut out = serde_json::Map::with_capacity(map.len());
            for (k, item) in map {
                let item = prune(item);
                let keep_empty = KEEP_EMPTY.contains(&k.as_str());
                let empty = match &item {
                    Value::Null => true,
                    Value::String(s) => s.is_empty() && !keep_empty,
                    Value::Array(a) => a.is_empty() && !keep_empty,
                    Value::Object(o) => o.is_empty() && k == "matchLabels",
                    Value::Number(n) => OMIT_ZERO.contains(&k.as_str()) && n.as_i64() == Some(0),
                    Value::Bool(_) => false,
                };
                if !empty {
                    out.insert(k, item);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(prune).collect()),
        other => other,
    }
}

/// A typed value as Karmada's error prints a struct or slice: Go JSON.
pub(crate) fn json_of<T: Serialize + ?Sized>(t: &T) -> String {
    match serde_json::to_value(t) {
        Ok(v) => go_json(&prune(v)),
        Err(_) => "null".to_string(),
    }
}

/// A raw JSON value (override policies keep theirs untyped) as Go JSON.
pub(crate) fn json_raw(v: &Value) -> String {
    go_json(&prune(v.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy::SpreadConstraint;

    #[test]
    fn quotes_like_go() {
        assert_eq!(go_quote("Lt"), r#""Lt""#);
        assert_eq!(go_quote(""), r#""""#);
        assert_eq!(go_quote("a\"b\n"), r#""a\"b\n""#);
    }

    #[test]
    fn omits_zero_and_empty_like_omitempty() {
        let c = SpreadConstraint {
            spread_by_field: "cluster".into(),
            spread_by_label: String::new(),
            max_groups: Some(0),
            min_groups: Some(1),
        };
        assert_eq!(json_of(&c), r#"{"spreadByField":"cluster","minGroups":1}"#);
    }

    #[test]
    fn escapes_html_like_go() {
        assert_eq!(
            go_json(&serde_json::json!({"a": "<&>"})),
            r#"{"a":"\u003c\u0026\u003e"}"#
        );
    }
}
