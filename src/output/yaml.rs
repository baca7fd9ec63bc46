//! JSON values printed as block YAML (`-o yaml`, and the dry-run diff of live objects).

use serde_json::Value as J;

/// The value as a YAML document (block style, two-space indent, kubectl's sequence layout).
pub fn to_yaml(v: &J) -> String {
    let mut out = String::new();
    match v {
        J::Object(m) if !m.is_empty() => write_map(m, 0, &mut out),
        J::Array(a) if !a.is_empty() => write_seq(a, 0, &mut out),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn write_map(m: &serde_json::Map<String, J>, indent: usize, out: &mut String) {
    for (k, v) in m {
        out.push_str(&" ".repeat(indent));
        out.push_str(&string(k));
        out.push(':');
        write_value(v, indent, out);
    }
}

fn write_seq(a: &[J], indent: usize, out: &mut String) {
    for item in a {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match item {
            J::Object(m) if !m.is_empty() => {
                // First key on the dash line, the rest aligned under it.
                let mut inner = String::new();
                write_map(m, indent + 2, &mut inner);
                out.push(' ');
                out.push_str(&inner[indent + 2..]);
            }
            J::Array(x) if !x.is_empty() => {
                out.push('\n');
                write_seq(x, indent + 2, out);
            }
            other => {
                out.push(' ');
                out.push_str(&scalar(other));
                out.push('\n');
            }
        }
    }
}

fn write_value(v: &J, indent: usize, out: &mut String) {
    match v {
        J::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(m, indent + 2, out);
        }
        J::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(a, indent, out);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn scalar(v: &J) -> String {
    match v {
        J::Null => "null".into(),
        J::Bool(b) => b.to_string(),
        J::Number(n) => n.to_string(),
        J::String(s) => string(s),
        J::Object(_) => "{}".into(),
        J::Array(_) => "[]".into(),
    }
}

/// A string scalar: plain when it reads back as the same string, else JSON-quoted (valid YAML).
fn string(s: &str) -> String {
    // Digit-only strings with `_` or `.` (`1_000`, `1.2.3`) stay quoted too: some YAML 1.1
    // readers take them for numbers.
    let numeric_looking = s
        .chars()
        .all(|c| c.is_ascii_digit() || c == '_' || c == '.');
    if crate::source::yaml::plain_scalar_safe(s) && !numeric_looking {
        s.to_string()
    } else {
        // JSON escapes C0 but leaves DEL and C1 raw; YAML's double quotes take `\u007f` too,
        // and the reader refuses them raw (go-yaml readerc.go).
        let quoted = serde_json::to_string(s).unwrap_or_default();
        if !quoted.contains(char::is_control) {
            return quoted;
        }
        quoted
            .chars()
            .map(|c| {
                if c.is_control() {
                    format!("\\u{:04x}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    #[test]
    fn round_trips_through_the_loader() {
        let v = serde_json::json!({
            "apiVersion": "policy.karmada.io/v1alpha1",
            "metadata": {"name": "x", "labels": {"a": "true", "n": "010"}, "annotations": {}},
            "spec": {"resourceSelectors": [{"kind": "Deployment", "name": "n"}],
                     "list": [[1, 2], "s: x", ""], "empty": [], "priority": 3, "f": 1.5,
                     "suspension": {"dispatching": true}, "ctl": "a\u{1b}[2K\u{7f}\u{85}\u{9b}b"}
        });
        let text = to_yaml(&v);
        let loaded = load(Source::new("x", text.clone()));
        assert!(loaded.problems.is_empty(), "{text}");
        assert_eq!(loaded.documents[0].root.to_json(), v, "{text}");
        assert!(
            !text.contains(|c: char| c.is_control() && c != '\n'),
            "{text}"
        );
    }
}
