//! fieldOverrider: a JSON or YAML document held in a string field, patched in place (§A.11).
//!
//! JSON output is compact, keeps key order and escapes `<`, `>` and `&` as Go does. YAML goes
//! through JSON and back with sorted keys and unindented sequences as sigs.k8s.io/yaml does;
//! YAML 1.1 re-typing of unquoted `on`/`yes`/`012` on input is not reproduced (our parser reads
//! YAML 1.2), so such documents may differ from what Karmada writes.

use serde_json::Value;

use super::patch::{self, Op};
use super::Fail;
use crate::model::override_policy::{FieldOverrider, SubPatch};

pub fn apply(obj: &mut Value, o: &FieldOverrider) -> Result<(), Fail> {
    if !o.field_path.is_empty() && !o.field_path.starts_with('/') {
        return Err(Fail::from(
            "JSON pointer must be empty or start with a \"/\"\nJSON pointer error".to_string(),
        ));
    }
    let current = pointer_get(obj, &o.field_path)?;
    let Some(text) = current.as_str() else {
        return Err(Fail::from(format!(
            "Get object's value by overrider's path({}) is not string",
            o.field_path
        )));
    };
    let new = if !o.yaml.is_empty() {
        yaml_patch(text, &o.yaml)?
    } else if !o.json.is_empty() {
        json_patch(text, &o.json)?
    } else {
        String::new()
    };
    let op = Op::new("replace", o.field_path.clone(), Value::String(new));
    patch::apply(obj, &[op])?;
    Ok(())
}

/// go-openapi/jsonpointer `Get`: each token must exist.
fn pointer_get<'v>(obj: &'v Value, path: &str) -> Result<&'v Value, Fail> {
    let mut cur = obj;
    for tok in path.split('/').skip(1) {
        let tok = tok.replace("~1", "/").replace("~0", "~");
        cur = match cur {
            Value::Object(m) => m.get(&tok),
            Value::Array(a) => tok.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        }
        .ok_or_else(|| Fail::from(format!("object has no key {tok:?}: JSON pointer error")))?;
    }
    Ok(cur)
}

fn ops(subs: &[SubPatch]) -> Vec<Op> {
    subs.iter()
        .map(|s| {
            Op::new(
                &s.operator,
                &s.sub_path,
                s.value.clone().unwrap_or(Value::Null),
            )
        })
        .collect()
}

fn json_patch(text: &str, subs: &[SubPatch]) -> Result<String, Fail> {
    if text.is_empty() {
        return Ok(String::new());
    }
    let mut doc: Value =
        serde_json::from_str(text).map_err(|_| Fail::from("invalid state detected".to_string()))?;
    if let Some(t) = match &doc {
        Value::Number(_) => Some("number"),
        Value::String(_) => Some("string"),
        Value::Bool(_) => Some("bool"),
        _ => None,
    } {
        return Err(Fail::from(format!(
            "json: cannot unmarshal {t} into Go value of type map[string]*jsonpatch.lazyNode"
        )));
    }
    patch::apply(&mut doc, &ops(subs))?;
    Ok(go_json(&doc))
}

/// Compact JSON with Go's HTML escaping (the characters only occur inside strings).
pub fn go_json(v: &Value) -> String {
    serde_json::to_string(v)
        .unwrap_or_default()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

fn yaml_patch(text: &str, subs: &[SubPatch]) -> Result<String, Fail> {
    let loaded = crate::source::load(crate::source::Source::new("fieldOverrider", text));
    if !loaded.problems.is_empty() {
        return Err(Fail::from(format!(
            "error converting YAML to JSON: {}",
            loaded.problems[0].message
        )));
    }
    let Some(doc) = loaded.documents.first() else {
        let first = subs.first().map_or("", |s| s.sub_path.as_str());
        return Err(Fail::from(format!(
            "error in add for path: '{first}': invalid value, expected object"
        )));
    };
    let mut json = doc.root.to_json();
    patch::apply(&mut json, &ops(subs))?;
    let mut out = String::new();
    write_yaml(&sorted(json), 0, false, &mut out);
    Ok(out)
}

fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// A scalar as go-yaml v2 writes it: strings that would read back as something else quoted.
fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => {
            let special = s.is_empty()
                || s.parse::<f64>().is_ok()
                || matches!(
                    s.to_ascii_lowercase().as_str(),
                    "y" | "yes" | "n" | "no" | "on" | "off" | "true" | "false" | "null" | "~"
                )
                || s.starts_with(|c: char| " -?:,[]{}#&*!|>'\"%@`".contains(c))
                || s.contains(": ")
                || s.contains(" #")
                || s.ends_with(' ')
                || s.contains('\n');
            if special {
                serde_json::to_string(s).unwrap_or_default()
            } else {
                s.clone()
            }
        }
        other => other.to_string(),
    }
}

fn write_yaml(v: &Value, indent: usize, in_seq: bool, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (i, (k, val)) in m.iter().enumerate() {
                if !(in_seq && i == 0) {
                    out.push_str(&pad);
                }
                out.push_str(&scalar(&Value::String(k.clone())));
                out.push(':');
                write_child(val, indent, out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, item) in a.iter().enumerate() {
                if !(in_seq && i == 0) {
                    out.push_str(&pad);
                }
                out.push_str("- ");
                match item {
                    Value::Object(m) if !m.is_empty() => write_yaml(item, indent + 2, true, out),
                    Value::Array(x) if !x.is_empty() => write_yaml(item, indent + 2, true, out),
                    _ => {
                        out.push_str(&flow(item));
                        out.push('\n');
                    }
                }
            }
        }
        other => {
            out.push_str(&flow(other));
            out.push('\n');
        }
    }
}

fn flow(v: &Value) -> String {
    match v {
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        s => scalar(s),
    }
}

/// A map value: nested maps indent by two, sequences stay at the key's column.
fn write_child(v: &Value, indent: usize, out: &mut String) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_yaml(v, indent + 2, false, out);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_yaml(v, indent, false, out);
        }
        other => {
            out.push(' ');
            out.push_str(&flow(other));
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fo(v: Value) -> FieldOverrider {
        serde_json::from_value(v).unwrap()
    }

    /// Example 6: JSON keeps key order, goes compact and HTML-escapes; YAML sorts keys, drops
    /// comments and does not indent sequences.
    #[test]
    fn json_and_yaml_documents_in_a_string() {
        let mut cm = json!({"kind": "ConfigMap", "data": {
            "app.json": "{ \"b\": 1,  \"a\": \"<x>\" }",
            "app.yaml": "# note\nz: 1\nflag: true\nlist:\n  - 1\n"
        }});
        apply(&mut cm, &fo(json!({"fieldPath": "/data/app.json", "json": [{"subPath": "/c", "operator": "add", "value": 2}]}))).ok().unwrap();
        assert_eq!(
            cm["data"]["app.json"],
            json!("{\"b\":1,\"a\":\"\\u003cx\\u003e\",\"c\":2}")
        );
        apply(&mut cm, &fo(json!({"fieldPath": "/data/app.yaml", "yaml": [{"subPath": "/a", "operator": "add", "value": "x"}]}))).ok().unwrap();
        assert_eq!(
            cm["data"]["app.yaml"],
            json!("a: x\nflag: true\nlist:\n- 1\nz: 1\n")
        );
        let err = apply(&mut cm, &fo(json!({"fieldPath": "/data/none", "json": [{"subPath": "/c", "operator": "add", "value": 2}]}))).err().unwrap();
        assert_eq!(
            err.message,
            "object has no key \"none\": JSON pointer error"
        );
        // Neither json nor yaml: the field is blanked.
        apply(&mut cm, &fo(json!({"fieldPath": "/data/app.json"})))
            .ok()
            .unwrap();
        assert_eq!(cm["data"]["app.json"], json!(""));
    }
}
