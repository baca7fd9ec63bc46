//! `lint PATH...` over many files without holding every parsed tree at once.
//!
//! A node tree costs about twenty times the text it was parsed from, so a 50 MB repository
//! parsed whole needs more than a gigabyte. Each file is instead checked on its own right after it
//! is parsed, on the thread that parsed it (the per-object rules: input, typing, schema,
//! admission, suspension), and then most of its tree is let go: the rules that compare objects
//! afterwards point into Karmada objects (policies, overrides, bindings, Works), but of any other
//! document they read only its identity and the ignore annotation, which the skeleton keeps.
//! The findings are the same as [`super::lint`] gives over the whole input.

use std::path::PathBuf;

use crate::model::{Inventory, Object};
use crate::source::files::{self, ReadError};
use crate::source::{Entry, Loaded, Node, Value};

use super::{per_object_findings, rules, semantic_findings, suppress, Finding, LintOptions};

/// What a streamed run read and found.
pub struct Linted {
    /// One per input file, in input order (their documents moved into the inventory).
    pub loaded: Vec<Loaded>,
    /// Every document; outside Karmada objects, only the skeleton [`skeleton`] keeps.
    pub inventory: Inventory,
    /// Sorted by file and position, configuration and inline ignores applied.
    pub findings: Vec<Finding>,
}

/// One file, checked on its own.
struct FilePart {
    loaded: Loaded,
    inventory: Inventory,
    findings: Vec<Finding>,
}

/// Reads, parses and lints `paths` (files, or `-` for stdin); an unreadable input is an error.
pub fn lint_paths(
    paths: &[PathBuf],
    default_namespace: &str,
    opts: &LintOptions,
) -> Result<Linted, ReadError> {
    let parts = files::read_all_with(paths, &|loaded| check_file(loaded, default_namespace, opts))?;
    let mut linted = Linted {
        loaded: Vec::with_capacity(parts.len()),
        inventory: Inventory::default(),
        findings: Vec::new(),
    };
    for part in parts {
        let offset = linted.inventory.documents.len();
        linted
            .findings
            .extend(part.findings.into_iter().map(|mut f| {
                if let Some(doc) = &mut f.doc {
                    *doc += offset;
                }
                f
            }));
        linted.inventory.append(part.inventory);
        linted.loaded.push(part.loaded);
    }
    let inventory = &linted.inventory;
    let (duplicates, semantic) = std::thread::scope(|scope| {
        let semantic = scope.spawn(|| semantic_findings(inventory, opts));
        let duplicates = rules::duplicate_identity::check(inventory);
        let semantic = semantic
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (duplicates, semantic)
    });
    let mut findings = std::mem::take(&mut linted.findings);
    findings.extend(duplicates);
    findings.extend(semantic);
    linted.findings = super::finish(findings, &linted.inventory, opts);
    Ok(linted)
}

/// Types one file's documents, runs the per-object rules on them and lets go of what the later
/// rules do not read. Document indices in the result are the file's own (from 0).
fn check_file(mut loaded: Loaded, default_namespace: &str, opts: &LintOptions) -> FilePart {
    let documents = std::mem::take(&mut loaded.documents);
    let mut inventory = Inventory::from_documents(documents, default_namespace);
    let findings = per_object_findings(std::slice::from_ref(&loaded), &inventory, opts);
    release_trees(&mut inventory);
    FilePart {
        loaded,
        inventory,
        findings,
    }
}

/// Replaces the tree of every document that is not a Karmada object by its [`skeleton`].
fn release_trees(inventory: &mut Inventory) {
    let mut keep = vec![false; inventory.documents.len()];
    for object in &inventory.objects {
        if !matches!(object, Object::Template(_)) {
            keep[object.doc()] = true;
        }
    }
    for (doc, keep) in inventory.documents.iter_mut().zip(keep) {
        if !keep {
            let span = doc.root.span;
            let root = std::mem::replace(&mut doc.root, Node::new(Value::Null, span));
            doc.root = skeleton(root);
        }
    }
}

/// What the rules run after the per-object checks read of a template (or of a document that is
/// no object): `metadata.name` (duplicate-identity points at it) and the ignore annotation, at
/// their original positions. Ninety thousand templates make every node kept here count.
fn skeleton(root: Node) -> Node {
    let span = root.span;
    let Value::Map(entries) = root.value else {
        return Node::new(Value::Null, span);
    };
    let kept = entries
        .into_iter()
        .filter_map(|e| match e.key.as_str() {
            Some("metadata") => Some(Entry {
                value: keep_keys(e.value, &|k, v| match k {
                    "name" => Some(v),
                    "annotations" => Some(keep_keys(v, &|k, v| {
                        (k == suppress::ANNOTATION).then_some(v)
                    })),
                    _ => None,
                }),
                key: e.key,
            }),
            _ => None,
        })
        .collect();
    Node::new(Value::Map(kept), span)
}

/// The entries of a mapping that `keep` keeps (possibly reduced); a non-mapping is kept as is.
fn keep_keys(node: Node, keep: &dyn Fn(&str, Node) -> Option<Node>) -> Node {
    let span = node.span;
    match node.value {
        Value::Map(entries) => Node::new(
            Value::Map(
                entries
                    .into_iter()
                    .filter_map(|e| {
                        let key = e.key;
                        let value = keep(key.as_str()?, e.value)?;
                        Some(Entry { key, value })
                    })
                    .collect(),
            ),
            span,
        ),
        other => Node::new(other, span),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, FieldPath, Source};

    #[test]
    fn the_skeleton_keeps_identity_and_the_ignore_annotation_in_place() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  labels: {app: web}\n  annotations:\n    team: a\n    karmada-policy.io/ignore: \"overlap: known\"\nspec:\n  replicas: 2\n";
        let root = load(Source::new("t.yaml", text)).documents.remove(0).root;
        let before = root.clone();
        let skel = skeleton(root);
        let name = FieldPath::parse("metadata.name");
        assert_eq!(skel.at(&name), before.at(&name));
        assert_eq!(skel.locate_value(&name), before.locate_value(&name));
        let ignore = FieldPath::parse("metadata.annotations").key(suppress::ANNOTATION);
        assert_eq!(skel.at(&ignore), before.at(&ignore));
        assert_eq!(skel.span, before.span);
        assert!(skel.get("spec").is_none());
        assert!(skel.get("kind").is_none());
        assert!(skel.at(&FieldPath::parse("metadata.labels")).is_none());
        assert!(skel
            .at(&FieldPath::parse("metadata.annotations.team"))
            .is_none());
    }
}
