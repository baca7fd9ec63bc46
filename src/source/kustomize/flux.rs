//! Flux: `kustomize.toolkit.fluxcd.io` Kustomization objects say which path of the repository
//! a cluster applies, and which variables `postBuild` substitutes into its output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::normalize;
use crate::source::{Loaded, Node};

pub const API_GROUP: &str = "kustomize.toolkit.fluxcd.io";
/// Objects carrying this annotation with value `disabled` are left as they are.
pub const SUBSTITUTE_ANNOTATION: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// One Flux Kustomization found in the repository.
#[derive(Debug, Clone)]
pub struct FluxKustomization {
    /// The file it is defined in; its directory is the cluster it belongs to.
    pub file: PathBuf,
    pub name: String,
    pub namespace: String,
    /// `spec.path`, resolved against the repository (`None`: not found here).
    pub path: Option<PathBuf>,
    /// `spec.path` as written.
    pub spec_path: String,
    pub substitute: BTreeMap<String, String>,
    /// `substituteFrom`: (kind, name, optional).
    pub substitute_from: Vec<(String, String, bool)>,
}

/// Whether a text may hold a Flux Kustomization (a cheap test before parsing).
pub fn may_hold(text: &str) -> bool {
    text.contains(API_GROUP)
}

/// The Flux Kustomizations among the documents of `loaded` (read from `file`).
pub fn find(loaded: &Loaded, file: &Path) -> Vec<FluxKustomization> {
    loaded
        .documents
        .iter()
        .filter(|d| {
            let api = d
                .root
                .get("apiVersion")
                .and_then(Node::as_str)
                .unwrap_or("");
            api.starts_with(API_GROUP)
                && d.root.get("kind").and_then(Node::as_str) == Some("Kustomization")
        })
        .map(|d| {
            let meta = d.root.get("metadata");
            let text = |n: Option<&Node>, k: &str| {
                n.and_then(|n| n.get(k))
                    .and_then(Node::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let spec = d.root.get("spec");
            let spec_path = text(spec, "path");
            let post = spec.and_then(|s| s.get("postBuild"));
            let substitute = post
                .and_then(|p| p.get("substitute"))
                .and_then(Node::as_map)
                .unwrap_or(&[])
                .iter()
                .filter_map(|e| {
                    Some((
                        e.key.as_str()?.to_string(),
                        e.value.scalar_text()?.into_owned(),
                    ))
                })
                .collect();
            let substitute_from = post
                .and_then(|p| p.get("substituteFrom"))
                .and_then(Node::as_seq)
                .unwrap_or(&[])
                .iter()
                .map(|r| {
                    let optional = matches!(
                        r.get("optional").map(|n| &n.value),
                        Some(crate::source::Value::Bool(true))
                    );
                    (text(Some(r), "kind"), text(Some(r), "name"), optional)
                })
                .collect();
            FluxKustomization {
                file: file.to_path_buf(),
                name: text(meta, "name"),
                namespace: match text(meta, "namespace") {
                    n if n.is_empty() => "flux-system".into(),
                    n => n,
                },
                path: resolve_path(file, &spec_path),
                spec_path,
                substitute,
                substitute_from,
            }
        })
        .collect()
}

/// `spec.path` is relative to the root of the source Flux fetched. That root is not known
/// here, so it is the nearest ancestor of the defining file where the path exists.
pub fn resolve_path(file: &Path, spec_path: &str) -> Option<PathBuf> {
    let rel = spec_path.trim_start_matches("./");
    file.ancestors()
        .skip(1)
        .map(|d| normalize(&d.join(rel)))
        .find(|c| c.is_dir())
}

/// Applies Flux's post-build substitution to a rendered stream, object by object: `${var}`,
/// `${var:=default}` (and `:-`, `=`, `-`), `$${var}` for a literal `${var}`; objects annotated
/// `kustomize.toolkit.fluxcd.io/substitute: disabled` are left alone. A variable with no value
/// and no default stays as written, so the linter reports it as an unrendered template.
pub fn substitute_stream(text: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut doc = String::new();
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            out.push_str(&substitute_document(&doc, vars));
            doc.clear();
            out.push_str(line);
        } else {
            doc.push_str(line);
        }
    }
    out.push_str(&substitute_document(&doc, vars));
    out
}

fn substitute_document(doc: &str, vars: &BTreeMap<String, String>) -> String {
    let disabled = doc.lines().any(|l| {
        l.trim_start()
            .strip_prefix(SUBSTITUTE_ANNOTATION)
            .and_then(|r| r.strip_prefix(':'))
            .is_some_and(|v| v.trim().trim_matches(['"', '\'']) == "disabled")
    });
    if disabled {
        return doc.to_string();
    }
    substitute(doc, vars)
}

/// [`substitute_stream`] on one text.
pub fn substitute(text: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(escaped) = tail.strip_prefix("$${") {
            out.push_str("${");
            rest = escaped;
            continue;
        }
        let Some(body) = tail.strip_prefix("${") else {
            out.push('$');
            rest = &tail[1..];
            continue;
        };
        let Some(close) = body.find('}') else {
            out.push_str(tail);
            return out;
        };
        let expr = &body[..close];
        match expand(expr, vars) {
            Some(value) => out.push_str(&value),
            None => {
                out.push_str("${");
                out.push_str(expr);
                out.push('}');
            }
        }
        rest = &body[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The value of one `${...}` expression, `None` when it stays unresolved.
fn expand(expr: &str, vars: &BTreeMap<String, String>) -> Option<String> {
    let name_end = expr
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(expr.len());
    let (name, op) = expr.split_at(name_end);
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let value = vars.get(name);
    if op.is_empty() {
        return value.cloned();
    }
    for (prefix, when_empty) in [(":=", true), (":-", true), ("=", false), ("-", false)] {
        if let Some(default) = op.strip_prefix(prefix) {
            return match value {
                Some(v) if !(when_empty && v.is_empty()) => Some(v.clone()),
                _ => Some(default.to_string()),
            };
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> BTreeMap<String, String> {
        [("cluster_name".to_string(), "member2".to_string())].into()
    }

    #[test]
    fn flux_substitution_rules() {
        let v = vars();
        assert_eq!(substitute("- ${cluster_name}\n", &v), "- member2\n");
        assert_eq!(substitute("${region:=eu}", &v), "eu");
        assert_eq!(substitute("${cluster_name:=x}", &v), "member2");
        assert_eq!(substitute("$${cluster_name}", &v), "${cluster_name}");
        assert_eq!(substitute("${missing}", &v), "${missing}");
        assert_eq!(substitute("cost: $5 ${", &v), "cost: $5 ${");
    }

    #[test]
    fn disabled_objects_are_left_alone() {
        let stream = "a: ${cluster_name}\n---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nb: ${cluster_name}\n";
        let out = substitute_stream(stream, &vars());
        assert!(out.starts_with("a: member2\n---\n"), "{out}");
        assert!(out.ends_with("b: ${cluster_name}\n"), "{out}");
    }
}
