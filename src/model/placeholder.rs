//! Unrendered templating in a value: Flux `${var}` and Helm `{{ ... }}`. Such a value's rendered
//! type is unknown, so neither the Go decoder model nor the schema check judges it.

/// A whole-value template placeholder: `${VAR}`, `{{ .Values.x }}`.
pub fn is_placeholder(s: &str) -> bool {
    let t = s.trim();
    (t.starts_with("${") && t.ends_with('}') && !t[2..t.len() - 1].contains(['{', '}']))
        || (t.starts_with("{{") && t.ends_with("}}"))
}
