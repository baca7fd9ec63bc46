//! `lint PATH...` over many files without holding every parsed tree at once.
//!
//! A node tree costs about twenty times the text it was parsed from, so a 50 MB repository
//! parsed whole needs more than a gigabyte. Each file is instead checked on its own right after it
//! is parsed, on the thread that parsed it (the per-object rules: input, typing, schema,
//! admission, suspension), and then its tree is let go but for a skeleton: the rules that compare
//! objects afterwards read a document's `metadata.name` and ignore annotation, which the skeleton
//! keeps, and where a finding points into a policy, the policy is parsed again from its lines
//! ([`crate::source::Document::full_tree`]), a few thousand small documents at most.
//! The findings are the same as [`super::lint`] gives over the whole input.

use std::path::PathBuf;

use crate::model::Inventory;
use crate::source::files::{self, ReadError};
use crate::source::{Entry, FieldPath, Loaded, Node, Seg, Value};

use super::{per_object_findings, rules, semantic_findings, suppress, Finding, LintOptions};

/// What a streamed run read and found.
pub struct Linted {
    /// One per input file, in input order (their documents moved into the inventory).
    pub loaded: Vec<Loaded>,
    /// Every document, partial: its tree holds only what [`skeleton`] keeps.
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
    let clock = Clock::start();
    let parts = files::read_all_with(paths, &|loaded| check_file(loaded, default_namespace, opts))?;
    clock.lap("read, parse, per-object rules");
    // Sized up front: growing by doubling would hold two copies of the largest vectors.
    let documents = parts.iter().map(|p| p.inventory.documents.len()).sum();
    let objects = parts.iter().map(|p| p.inventory.objects.len()).sum();
    let mut linted = Linted {
        loaded: Vec::with_capacity(parts.len()),
        inventory: Inventory {
            documents: Vec::with_capacity(documents),
            objects: Vec::with_capacity(objects),
            problems: Vec::new(),
        },
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
    clock.lap("merge");
    let inventory = &linted.inventory;
    let (duplicates, semantic) = std::thread::scope(|scope| {
        let semantic = scope.spawn(|| {
            let findings = semantic_findings(inventory, opts);
            clock.lap("semantic rules (engine analysis)");
            findings
        });
        let duplicates = rules::duplicate_identity::check(inventory);
        clock.lap("duplicate-identity");
        let semantic = semantic
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (duplicates, semantic)
    });
    let mut findings = std::mem::take(&mut linted.findings);
    findings.extend(duplicates);
    findings.extend(semantic);
    linted.findings = super::finish(findings, &linted.inventory, opts);
    clock.lap("settings, ignores, sorting");
    Ok(linted)
}

/// Phase timings on stderr when `KARMADA_POLICY_TIMINGS` is set (a benchmarking aid, like the
/// hidden `lint --parse-only`; not a stable interface): milliseconds since the start.
struct Clock(Option<std::time::Instant>);

impl Clock {
    fn start() -> Clock {
        Clock(std::env::var_os("KARMADA_POLICY_TIMINGS").map(|_| std::time::Instant::now()))
    }

    fn lap(&self, phase: &str) {
        if let Some(start) = self.0 {
            eprintln!(
                "timing: {:>8.1} ms  {phase}",
                start.elapsed().as_secs_f64() * 1e3
            );
        }
    }
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

/// Replaces every document's tree by its [`skeleton`]: the rules run afterwards read only that,
/// or (for a policy a finding points into) parse the document again from its lines.
fn release_trees(inventory: &mut Inventory) {
    let mut policy = vec![false; inventory.documents.len()];
    for p in inventory.policies() {
        policy[p.doc] = true;
    }
    for (doc, policy) in inventory.documents.iter_mut().zip(policy) {
        let span = doc.root.span;
        let root = std::mem::replace(&mut doc.root, Node::new(Value::Null, span));
        doc.root = skeleton(root, policy);
        doc.partial = true;
    }
}

/// What the rules run after the per-object checks read of a document, at the original positions:
/// `metadata.name` (duplicate-identity) and the ignore annotation (suppressions); of a `policy`
/// also `spec.resourceSelectors`, `spec.priority` and `spec.preemption` (where the semantic rules
/// point) and the root's first entry, where a finding about a missing top-level field points.
/// [`skeleton_keeps`] says which paths locate exactly as in the whole tree. A hundred thousand
/// documents make every node kept here count.
fn skeleton(root: Node, policy: bool) -> Node {
    let span = root.span;
    let Value::Map(entries) = root.value else {
        return Node::new(Value::Null, span);
    };
    let kept = entries
        .into_iter()
        .enumerate()
        .filter_map(|(i, e)| match e.key.as_str() {
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
            Some("spec") if policy => Some(Entry {
                value: keep_keys(e.value, &|k, v| {
                    matches!(k, "resourceSelectors" | "priority" | "preemption").then_some(v)
                }),
                key: e.key,
            }),
            _ if i == 0 && policy => Some(e),
            _ => None,
        })
        .collect();
    Node::new(Value::Map(exact(kept)), span)
}

/// Whether the [`skeleton`] of a policy keeps what `path` locates: the same node, or the same
/// closest ancestor when the field is missing (of other documents, only the `metadata` paths
/// hold). Other paths need [`crate::source::Document::full_tree`].
pub fn skeleton_keeps(path: &FieldPath) -> bool {
    let key = |i: usize| match path.0.get(i) {
        Some(Seg::Key(k)) => Some(k.as_str()),
        _ => None,
    };
    match (key(0), key(1)) {
        (Some("metadata"), Some("name")) => true,
        (Some("metadata"), Some("annotations")) => key(2) == Some(suppress::ANNOTATION),
        (Some("spec"), Some("resourceSelectors" | "priority" | "preemption")) => true,
        _ => false,
    }
}

/// The entries of a mapping that `keep` keeps (possibly reduced); a non-mapping is kept as is.
fn keep_keys(node: Node, keep: &dyn Fn(&str, Node) -> Option<Node>) -> Node {
    let span = node.span;
    match node.value {
        Value::Map(entries) => Node::new(
            Value::Map(exact(
                entries
                    .into_iter()
                    .filter_map(|e| {
                        let key = e.key;
                        let value = keep(key.as_str()?, e.value)?;
                        Some(Entry { key, value })
                    })
                    .collect(),
            )),
            span,
        ),
        other => Node::new(other, span),
    }
}

/// `entries` in an allocation of their own size: collecting a filtered vector reuses the
/// original's (a root mapping's room for a whole object), which would outlive the tree.
fn exact(mut entries: Vec<Entry>) -> Vec<Entry> {
    entries.shrink_to_fit();
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    /// Everything a renderer shows of a finding.
    fn shown(findings: &[Finding]) -> Vec<String> {
        findings
            .iter()
            .map(|f| {
                let at = |l: &crate::lint::Location| {
                    format!(
                        "{}:{}:{}",
                        l.source.name, l.span.start.line, l.span.start.col
                    )
                };
                let related: Vec<String> = f
                    .related
                    .iter()
                    .map(|r| format!("{} {}", at(&r.location), r.message))
                    .collect();
                format!(
                    "{} {:?} {} {:?} {:?} {:?} {related:?}",
                    f.rule,
                    f.severity,
                    f.location.as_ref().map(at).unwrap_or_default(),
                    f.field,
                    f.object.as_ref().map(ToString::to_string),
                    f.message
                )
            })
            .collect()
    }

    #[test]
    fn streaming_finds_what_linting_the_whole_input_finds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dirs = ["testdata/lint", "testdata/examples", "testdata/engine"];
        let paths = files::expand(&dirs.map(|d| root.join(d).display().to_string()), &|_| {
            false
        })
        .unwrap();
        let opts = LintOptions {
            inline_ignores: true,
            ..LintOptions::default()
        };
        let mut gated = opts.clone();
        gated
            .feature_gates
            .insert("PropagationPolicyPreemption".into(), true);
        for opts in [opts, gated] {
            let streamed = lint_paths(&paths, "default", &opts).unwrap();
            let mut loaded = files::read_all(&paths).unwrap();
            let documents = loaded
                .iter_mut()
                .flat_map(|l| std::mem::take(&mut l.documents))
                .collect();
            let inventory = Inventory::from_documents(documents, "default");
            let whole = super::super::lint(&loaded, &inventory, &opts);
            assert!(
                whole.len() > 20,
                "the test data has findings: {}",
                whole.len()
            );
            assert!(whole.iter().any(|f| f.rule == "overlap"));
            assert_eq!(shown(&streamed.findings), shown(&whole));
            assert!(streamed.inventory.documents.iter().all(|d| d.partial));
        }
    }

    #[test]
    fn paths_the_skeleton_keeps_locate_as_in_the_whole_tree() {
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\n  labels: {a: b}\nspec:\n  placement:\n    clusterAffinity: {clusterNames: [m1]}\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  preemption: Always\n---\nkind: PropagationPolicy\nmetadata: {name: q}\n";
        for doc in load(Source::new("t.yaml", text)).documents {
            let whole = doc.root.clone();
            let skel = skeleton(doc.root, true);
            for path in [
                "metadata.name",
                "metadata.annotations.karmada-policy.io/ignore",
                "spec.resourceSelectors",
                "spec.resourceSelectors[0]",
                "spec.resourceSelectors[0].name",
                "spec.resourceSelectors[0].namespace",
                "spec.resourceSelectors[3]",
                "spec.priority",
                "spec.preemption",
            ] {
                let p = if path.starts_with("metadata.annotations") {
                    FieldPath::parse("metadata.annotations").key(suppress::ANNOTATION)
                } else {
                    FieldPath::parse(path)
                };
                assert!(skeleton_keeps(&p), "{path}");
                assert_eq!(skel.locate(&p), whole.locate(&p), "{path}");
                assert_eq!(skel.locate_value(&p), whole.locate_value(&p), "{path}");
                assert_eq!(skel.at(&p), whole.at(&p), "{path}");
            }
        }
        assert!(!skeleton_keeps(&FieldPath::parse("spec.placement")));
        assert!(!skeleton_keeps(&FieldPath::parse("metadata.labels")));
    }

    #[test]
    fn the_skeleton_keeps_identity_and_the_ignore_annotation_in_place() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  labels: {app: web}\n  annotations:\n    team: a\n    karmada-policy.io/ignore: \"overlap: known\"\nspec:\n  replicas: 2\n";
        let root = load(Source::new("t.yaml", text)).documents.remove(0).root;
        let before = root.clone();
        let skel = skeleton(root, false);
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
