//! JSON patch with the semantics and error texts of evanphx/json-patch v5 under its default
//! options, as Karmada's override manager applies it (overrides-and-placement.md §A.7):
//! a missing target is an error, nothing is auto-created, negative array indices count from
//! the end, a path without a leading `/` loses its first segment.

use serde_json::Value;

/// One operation: `add`, `remove` or `replace` (the CRD enum), `value` null when absent.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    pub op: String,
    pub path: String,
    pub value: Value,
}

impl Op {
    pub fn new(op: &str, path: impl Into<String>, value: Value) -> Op {
        Op {
            op: op.to_string(),
            path: path.into(),
            value,
        }
    }
}

/// A failed operation, worded as evanphx words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchError(pub String);

impl std::fmt::Display for PatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatchError {}

/// Decodes the path into its parent's segments and the last key; `None` when the path has no
/// `/` at all (the library then finds no container).
fn split(path: &str) -> Option<(Vec<String>, String)> {
    let mut parts: Vec<String> = path
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    let last = parts.pop()?;
    Some((parts, last))
}

/// The container the parent segments lead to, if every step exists and is a container.
fn container<'v>(doc: &'v mut Value, parents: &[String]) -> Option<&'v mut Value> {
    let mut cur = doc;
    for seg in parents {
        cur = match cur {
            Value::Object(m) => m.get_mut(seg.as_str())?,
            Value::Array(a) => {
                let i = index(seg, a.len(), false).ok()?;
                a.get_mut(i)?
            }
            _ => return None,
        };
    }
    matches!(cur, Value::Object(_) | Value::Array(_)).then_some(cur)
}

/// An array index; negative counts from the end. `append` allows `len` (add's insert point).
fn index(seg: &str, len: usize, append: bool) -> Result<usize, String> {
    let invalid =
        |i: &str| format!("Unable to access invalid index: {i}: invalid index referenced");
    let i: i64 = seg.parse().map_err(|_| invalid(seg))?;
    let len = len as i64;
    let max = if append { len } else { len - 1 };
    let i = if i < 0 { i + len } else { i };
    if i < 0 || i > max {
        return Err(invalid(seg));
    }
    Ok(i as usize)
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), PatchError> {
    if path.is_empty() {
        *doc = value;
        return Ok(());
    }
    let missing = || {
        PatchError(format!(
            "add operation does not apply: doc is missing path: \"{path}\": missing value"
        ))
    };
    let (parents, key) = split(path).ok_or_else(missing)?;
    match container(doc, &parents).ok_or_else(missing)? {
        Value::Object(m) => {
            m.insert(key, value);
            Ok(())
        }
        Value::Array(a) => {
            let i = if key == "-" {
                a.len()
            } else {
                index(&key, a.len(), true)
                    .map_err(|e| PatchError(format!("error in add for path: '{path}': {e}")))?
            };
            a.insert(i, value);
            Ok(())
        }
        _ => Err(missing()),
    }
}

fn remove(doc: &mut Value, path: &str) -> Result<(), PatchError> {
    let missing = || {
        PatchError(format!(
            "remove operation does not apply: doc is missing path: \"{path}\": missing value"
        ))
    };
    let (parents, key) = split(path).ok_or_else(missing)?;
    match container(doc, &parents).ok_or_else(missing)? {
        Value::Object(m) => m.shift_remove(&key).map(drop).ok_or_else(|| {
            PatchError(format!(
                "error in remove for path: '{path}': unable to remove nonexistent key: {key}: missing value"
            ))
        }),
        Value::Array(a) => {
            let i = index(&key, a.len(), false)
                .map_err(|e| PatchError(format!("error in remove for path: '{path}': {e}")))?;
            a.remove(i);
            Ok(())
        }
        _ => Err(missing()),
    }
}

fn replace(doc: &mut Value, path: &str, value: Value) -> Result<(), PatchError> {
    if path.is_empty() {
        *doc = value;
        return Ok(());
    }
    let missing = || {
        PatchError(format!(
            "replace operation does not apply: doc is missing path: {path}: missing value"
        ))
    };
    let missing_key = || {
        PatchError(format!(
            "replace operation does not apply: doc is missing key: {path}: missing value"
        ))
    };
    let (parents, key) = split(path).ok_or_else(missing)?;
    match container(doc, &parents).ok_or_else(missing)? {
        Value::Object(m) => match m.get_mut(&key) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(missing_key()),
        },
        Value::Array(a) => {
            let i = index(&key, a.len(), false)
                .map_err(|e| PatchError(format!("error in replace for path: '{path}': {e}")))?;
            a[i] = value;
            Ok(())
        }
        _ => Err(missing()),
    }
}

/// Applies the operations in order; the first failure fails the whole patch and leaves `doc`
/// as it was (the library works on a copy).
pub fn apply(doc: &mut Value, ops: &[Op]) -> Result<(), PatchError> {
    let mut work = doc.clone();
    for op in ops {
        match op.op.as_str() {
            "add" => add(&mut work, &op.path, op.value.clone())?,
            "remove" => remove(&mut work, &op.path)?,
            "replace" => replace(&mut work, &op.path, op.value.clone())?,
            other => return Err(PatchError(format!("Unexpected kind: {other}"))),
        }
    }
    *doc = work;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(doc: Value, op: &str, path: &str, value: Value) -> Result<Value, String> {
        let mut d = doc;
        apply(&mut d, &[Op::new(op, path, value)]).map_err(|e| e.0)?;
        Ok(d)
    }

    /// Example 3 and the §A.7 table.
    #[test]
    fn errors_and_paths_as_evanphx() {
        let deploy = json!({"kind": "Deployment", "spec": {"replicas": 1, "template": {"spec": {"containers": [{"image": "a"}, {"image": "b"}]}}}});
        assert_eq!(
            run(deploy.clone(), "remove", "/spec/paused", Value::Null).unwrap_err(),
            "error in remove for path: '/spec/paused': unable to remove nonexistent key: paused: missing value"
        );
        assert_eq!(
            run(deploy.clone(), "add", "/metadata/labels/env", json!("x")).unwrap_err(),
            "add operation does not apply: doc is missing path: \"/metadata/labels/env\": missing value"
        );
        assert_eq!(
            run(deploy.clone(), "replace", "/spec/paused", json!(true)).unwrap_err(),
            "replace operation does not apply: doc is missing key: /spec/paused: missing value"
        );
        assert_eq!(
            run(deploy.clone(), "replace", "/status/x", json!(true)).unwrap_err(),
            "replace operation does not apply: doc is missing path: /status/x: missing value"
        );
        assert_eq!(
            run(deploy.clone(), "remove", "/status/x", Value::Null).unwrap_err(),
            "remove operation does not apply: doc is missing path: \"/status/x\": missing value"
        );
        let last = run(
            deploy.clone(),
            "replace",
            "/spec/template/spec/containers/-1/image",
            json!("z"),
        )
        .unwrap();
        assert_eq!(
            last.pointer("/spec/template/spec/containers/1/image"),
            Some(&json!("z"))
        );
        assert_eq!(
            run(deploy.clone(), "add", "/spec/template/spec/containers/5", json!({})).unwrap_err(),
            "error in add for path: '/spec/template/spec/containers/5': Unable to access invalid index: 5: invalid index referenced"
        );
        let appended = run(
            deploy.clone(),
            "add",
            "/spec/template/spec/containers/-",
            json!({"image": "c"}),
        )
        .unwrap();
        assert_eq!(
            appended.pointer("/spec/template/spec/containers/2/image"),
            Some(&json!("c"))
        );
        // No leading `/`: the first segment is dropped, so `spec/foo` is the root key `foo`.
        let rooted = run(deploy.clone(), "add", "spec/foo", json!(1)).unwrap();
        assert_eq!(rooted["foo"], json!(1));
        assert!(run(deploy, "add", "foo", json!(1))
            .unwrap_err()
            .contains("doc is missing path"));
        let escaped = run(json!({"m": {}}), "add", "/m/a~1b~0c", json!(1)).unwrap();
        assert_eq!(escaped["m"]["a/b~c"], json!(1));
    }
}
