//! From a place in a rendered object back to the line a user edits.
//!
//! A rendered object names its source file (kustomize's origin annotation, Helm's `# Source:`
//! comment). Within it the document is found by kind and by its name before `namePrefix` and
//! `nameSuffix`. A field is then traced, in this order: to the patch of the root that set it
//! (strategic-merge file, JSON6902 file or inline patch, outermost layer first); to the source
//! document, where it holds the rendered value; to the kustomization field that changed it
//! (`namespace`, `namePrefix`/`nameSuffix`, `commonLabels`); else to the source document's
//! first line. Never to the rendered stream, which no one can edit.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::discover::Repository;
use super::render::{ORIGIN_ANNOTATION, TRANSFORMATIONS_ANNOTATION};
use super::{template_pieces, Patch, PatchBody, Piece};
use crate::source::{files, load, FieldPath, Loaded, Node, Seg, Source, Span, Value};

/// The layers one render went through, for tracing its objects' fields.
#[derive(Debug, Clone)]
pub struct Layers {
    /// Kustomization directories, outermost first (empty for a chart or plain files).
    pub closure: Vec<PathBuf>,
    /// The file a finding lands on when nothing better is known (the root's kustomization).
    pub fallback: PathBuf,
}

/// Source files read for tracing, shared by every render of a run.
pub struct Mapper<'a> {
    repo: &'a Repository,
    cache: Mutex<HashMap<PathBuf, Option<Arc<Loaded>>>>,
}

/// The origin annotation's `path`, with both build-metadata annotations removed from the
/// object (an `annotations` mapping left empty goes too), so no rule sees them.
pub fn take_origin(root: &mut Node) -> Option<String> {
    let Value::Map(entries) = &mut root.value else {
        return None;
    };
    let meta = entries
        .iter_mut()
        .find(|e| e.key.as_str() == Some("metadata"))?;
    let Value::Map(meta_entries) = &mut meta.value.value else {
        return None;
    };
    let i = meta_entries
        .iter()
        .position(|e| e.key.as_str() == Some("annotations"))?;
    let mut origin = None;
    if let Value::Map(annotations) = &mut meta_entries[i].value.value {
        annotations.retain(|e| match e.key.as_str() {
            Some(ORIGIN_ANNOTATION) => {
                origin = e.value.as_str().and_then(origin_path);
                false
            }
            Some(TRANSFORMATIONS_ANNOTATION) => false,
            _ => true,
        });
        if annotations.is_empty() {
            meta_entries.remove(i);
        }
    }
    origin
}

/// `path: ../x.yaml` from the origin annotation's YAML text.
fn origin_path(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("path:"))
        .map(|p| p.trim().trim_matches(['"', '\'']).to_string())
}

/// A rendered origin path (relative to the directory kustomize built) as the tool names files:
/// relative to the current directory when inside it, or inside the git working tree above it
/// (`../../infrastructure/release.yaml`, a Flux directory linted from inside); else absolute.
pub fn resolve_origin(build_dir: &Path, raw: &str) -> PathBuf {
    let abs = super::normalize(&build_dir.join(raw));
    let cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .unwrap_or_default();
    if let Ok(inside) = abs.strip_prefix(&cwd) {
        return inside.to_path_buf();
    }
    let above = super::above_current_directory();
    match above.last() {
        Some((_, top)) if abs.starts_with(top) => super::relative(&cwd, &abs),
        _ => abs,
    }
}

impl<'a> Mapper<'a> {
    pub fn new(repo: &'a Repository) -> Mapper<'a> {
        Mapper {
            repo,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// A source file, parsed (once per run).
    pub fn file(&self, path: &Path) -> Option<Arc<Loaded>> {
        let mut cache = self.cache.lock().expect("no panic while holding the cache");
        cache
            .entry(path.to_path_buf())
            .or_insert_with(|| read_traced(path).map(Arc::new))
            .clone()
    }

    /// Where to report `path` of the rendered object `rendered`, which came from `origin`:
    /// the key, or with `at_value` the value where the file to edit writes the value rendered
    /// (as a finding on a value points in a plain file).
    pub fn locate(
        &self,
        layers: &Layers,
        rendered: &Node,
        origin: Option<&Path>,
        path: &FieldPath,
        at_value: bool,
    ) -> Option<(Arc<Source>, Span)> {
        let kind = rendered.get("kind").and_then(Node::as_str).unwrap_or("");
        let name = name_of(rendered);
        let guessed;
        let origin = match origin {
            Some(o) => Some(o),
            None => {
                guessed = self.guess_origin(layers, kind, name);
                guessed.as_deref()
            }
        };
        let source = origin.and_then(|o| self.file(o));
        let source_doc = source.as_deref().and_then(|l| find_document(l, kind, name));
        let original = source_doc.map_or(name, name_of);
        let wanted = Wanted {
            rendered,
            path,
            at_value,
        };
        if let Some(hit) = self.in_patches(layers, kind, original, &wanted) {
            return Some(hit);
        }
        if let (Some(l), Some(doc)) = (source.as_deref(), source_doc) {
            if let (Some(s), Some(r)) = (doc.at(path), rendered.at(path)) {
                if s.to_json() == r.to_json() {
                    return Some((l.source.clone(), place(doc, path, at_value)));
                }
            }
        }
        if let Some(hit) = self.in_kustomization_fields(layers, path) {
            return Some(hit);
        }
        if let (Some(l), Some(doc)) = (source.as_deref(), source_doc) {
            // The deepest part of the path the source has, else the document's first line. In
            // a template, list indices are those of the items written (see `written_path`).
            let path = if l.source.text().contains("{{") {
                written_path(doc, rendered, path, &l.source)
            } else {
                path.clone()
            };
            let has_start = path.0.first().is_some_and(|s| doc.child(s).is_some());
            let span = if has_start {
                doc.locate(&path)
            } else {
                first_line(doc)
            };
            return Some((l.source.clone(), span));
        }
        if let Some(l) = source {
            // A file that is not YAML as is (a Helm template): the line naming the field. In
            // a YAML file none of whose documents became this object (a patch renamed it),
            // another document's line would mislead: the file's start.
            let templated = l.documents.is_empty() || l.source.text().contains("{{");
            let span = match templated {
                true => line_naming(&l.source, path),
                false => Span::point(1, 1),
            };
            return Some((l.source.clone(), span));
        }
        let fallback = self.file(&layers.fallback)?;
        Some((fallback.source.clone(), Span::point(1, 1)))
    }

    /// Without an origin annotation (piped `kustomize build` output): the resource file of
    /// these layers that defines an object of this kind and name (before prefixes).
    fn guess_origin(&self, layers: &Layers, kind: &str, name: &str) -> Option<PathBuf> {
        let files = layers
            .closure
            .iter()
            .filter_map(|d| self.repo.kustomizations.get(d))
            .flat_map(|k| k.resource_files.iter());
        for file in files {
            let Some(l) = self.file(file) else { continue };
            let defines = l.documents.iter().any(|d| {
                let n = name_of(&d.root);
                d.root.get("kind").and_then(Node::as_str) == Some(kind)
                    && !n.is_empty()
                    && (n == name || name.contains(n))
            });
            if defines {
                return Some(file.clone());
            }
        }
        None
    }

    /// The node a patch of these layers wrote at `path`, outermost layer and last patch first.
    fn in_patches(
        &self,
        layers: &Layers,
        kind: &str,
        name: &str,
        wanted: &Wanted<'_>,
    ) -> Option<(Arc<Source>, Span)> {
        for dir in &layers.closure {
            let k = self.repo.kustomizations.get(dir)?;
            for patch in k.patches.iter().rev() {
                let found = self.in_patch(k.loaded.source.clone(), patch, kind, name, wanted);
                if let Some(hit) = found {
                    return Some(hit);
                }
            }
        }
        None
    }

    fn in_patch(
        &self,
        kustomization: Arc<Source>,
        patch: &Patch,
        kind: &str,
        name: &str,
        wanted: &Wanted<'_>,
    ) -> Option<(Arc<Source>, Span)> {
        let Wanted {
            rendered,
            path,
            at_value,
        } = *wanted;
        if patch
            .target
            .as_ref()
            .is_some_and(|t| !t.matches(kind, name))
        {
            return None;
        }
        let (source, roots) = match &patch.body {
            PatchBody::File(file) => {
                let l = self.file(file)?;
                let roots = patch_roots(&l);
                (l.source.clone(), roots)
            }
            PatchBody::Inline { text, line, col } => {
                let l = load(Source::new("inline patch", text.clone()));
                let mut roots = patch_roots(&l);
                for r in &mut roots {
                    shift(r, line - 1, col - 1);
                }
                (kustomization, roots)
            }
        };
        for root in &roots {
            let span = match &root.value {
                Value::Seq(ops) => json6902_span(ops, rendered, path),
                Value::Map(_) => smp_span(root, kind, name, patch.target.is_some(), path, at_value),
                _ => None,
            };
            if let Some(span) = span {
                return Some((source.clone(), span));
            }
        }
        None
    }

    /// `namespace:`, `namePrefix:`/`nameSuffix:` and `commonLabels:` of the outermost layer
    /// that sets them.
    fn in_kustomization_fields(
        &self,
        layers: &Layers,
        path: &FieldPath,
    ) -> Option<(Arc<Source>, Span)> {
        let keys: &[&str] = match path.to_string().as_str() {
            "metadata.namespace" => &["namespace"],
            "metadata.name" => &["namePrefix", "nameSuffix"],
            p if p.starts_with("metadata.labels") => &["commonLabels", "labels"],
            _ => return None,
        };
        for dir in &layers.closure {
            let k = self.repo.kustomizations.get(dir)?;
            for key in keys {
                if let Some((_, span)) = k.field(key) {
                    return Some((k.loaded.source.clone(), span));
                }
            }
        }
        None
    }
}

/// `path` of the rendered object in its template's document `doc`, each list index moved to the
/// item written there that renders the rendered item: a `{{- if }}` block that renders nothing
/// takes its items out of the rendered list, so the indices after it differ. An item no written
/// one renders keeps its index, moved past the end to the list's last item (a `range` wrote it).
fn written_path(doc: &Node, rendered: &Node, path: &FieldPath, source: &Source) -> FieldPath {
    let mut out = FieldPath::root();
    let (mut node, mut shown) = (Some(doc), Some(rendered));
    for seg in &path.0 {
        shown = shown.and_then(|r| r.child(seg));
        let seg = match (seg, node.map(|n| &n.value)) {
            (Seg::Index(i), Some(Value::Seq(items))) if !items.is_empty() => {
                let value = shown.and_then(Node::scalar_text);
                Seg::Index(written_item(items, *i, value.as_deref(), source))
            }
            _ => seg.clone(),
        };
        node = node.and_then(|n| n.child(&seg));
        out.0.push(seg);
    }
    out
}

/// The index among the written `items` of the one that renders `rendered` (the item at `i`
/// first), else `i` within the list.
fn written_item(items: &[Node], i: usize, rendered: Option<&str>, source: &Source) -> usize {
    let renders = |item: &Node| {
        let (Some(value), Some(written)) = (rendered, written_text(source, item)) else {
            return false;
        };
        written == value || rendered_by(written, value).is_some()
    };
    if items.get(i).is_some_and(renders) {
        return i;
    }
    items
        .iter()
        .position(renders)
        .unwrap_or(i.min(items.len() - 1))
}

/// A scalar on one line as the template writes it, actions and all (the loader read the
/// template with its actions blanked, positions kept: [`read_traced`]), without its quotes.
fn written_text<'s>(source: &'s Source, item: &Node) -> Option<&'s str> {
    let (start, end) = (item.span.start, item.span.end);
    if start.line != end.line || !matches!(item.value, Value::Str(_)) {
        return None;
    }
    let line = source.line(start.line)?;
    let at = |col: u32| match line.char_indices().nth(col.checked_sub(1)? as usize) {
        Some((byte, _)) => Some(byte),
        None => Some(line.len()),
    };
    let text = line.get(at(start.col)?..at(end.col)?)?.trim_end();
    Some(
        ['"', '\'']
            .iter()
            .find_map(|&q| text.strip_prefix(q)?.strip_suffix(q))
            .unwrap_or(text),
    )
}

/// A source file for tracing. A Helm template that does not parse as it is (`{{- range }}`
/// lines) is parsed with its templating blanked out, positions kept, so a place in a rendered
/// object is found in it as in any file; the text shown stays the template's.
fn read_traced(path: &Path) -> Option<Loaded> {
    let loaded = files::read(path).ok()?;
    let text = loaded.source.text();
    if !text.contains("{{") || (loaded.problems.is_empty() && !loaded.documents.is_empty()) {
        return Some(loaded);
    }
    let parsed = load(Source::new(
        loaded.source.name.clone(),
        neutral_template(text),
    ));
    Some(Loaded {
        source: loaded.source.clone(),
        documents: parsed.documents,
        problems: loaded.problems,
        data: parsed.data,
    })
}

/// A template's text with each line that is only an action (`{{- range . }}`) blanked and every
/// other action replaced by as many `x` as it has characters.
fn neutral_template(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let t = body.trim();
        if t.starts_with("{{") && t.ends_with("}}") && t.matches("{{").count() == 1 {
            out.push_str(&line[body.len()..]);
            continue;
        }
        for piece in template_pieces(body) {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Action { text, .. } => out.extend(text.chars().map(|_| 'x')),
            }
        }
        out.push_str(&line[body.len()..]);
    }
    out
}

/// The document of `kind` whose name, with whatever prefix and suffix, is `rendered_name`.
fn find_document<'l>(loaded: &'l Loaded, kind: &str, rendered_name: &str) -> Option<&'l Node> {
    let of_kind: Vec<&Node> = loaded
        .documents
        .iter()
        .map(|d| &d.root)
        .filter(|r| r.get("kind").and_then(Node::as_str) == Some(kind))
        .collect();
    of_kind
        .iter()
        .find(|r| name_of(r) == rendered_name)
        .or_else(|| {
            // A name with Flux variables, substituted after the build (`postBuild`).
            of_kind
                .iter()
                .filter_map(|r| Some((r, substituted_to(name_of(r), rendered_name)?)))
                .max_by_key(|&(_, written)| written)
                .map(|(r, _)| r)
        })
        .or_else(|| {
            // A chart's names are templates (`{{ include "app.fullname" . }}-ingress`): the one
            // that can render this name, the most of it written out.
            of_kind
                .iter()
                .filter_map(|r| {
                    let template = template_name(&loaded.source, r)?;
                    Some((r, rendered_by(template, rendered_name)?))
                })
                .max_by_key(|&(_, written)| written)
                .map(|(r, _)| r)
        })
        .or_else(|| {
            of_kind
                .iter()
                .filter(|r| !name_of(r).is_empty() && rendered_name.contains(name_of(r)))
                .max_by_key(|r| name_of(r).len())
        })
        .or_else(|| (of_kind.len() == 1).then(|| &of_kind[0]))
        .copied()
}

/// The name of a document as its template writes it, when it holds an action.
fn template_name<'s>(source: &'s Source, root: &Node) -> Option<&'s str> {
    let name = root.get("metadata")?.get("name")?;
    written_text(source, name).filter(|text| text.contains("{{"))
}

/// Whether `template` can render `name`, each action (`{{ … }}`) standing for any text and the
/// rest written as is: then how many characters of `name` it writes out.
fn rendered_by(template: &str, name: &str) -> Option<usize> {
    let mut written = Vec::new();
    for piece in template_pieces(template) {
        match piece {
            Piece::Text(t) => written.push(t),
            Piece::Action { closed: false, .. } => return None,
            Piece::Action { .. } => {}
        }
    }
    written_around(&written, name)
}

/// Whether `name` is `written`'s pieces in order with any text between them (the first at its
/// start, the last at its end): then how many of its characters they write.
fn written_around(written: &[&str], name: &str) -> Option<usize> {
    let (first, last) = (written[0], written[written.len() - 1]);
    let middle = name.strip_prefix(first)?.strip_suffix(last)?;
    let mut at = 0;
    for part in &written[1..written.len() - 1] {
        at += middle[at..].find(part)? + part.len();
    }
    Some(written.iter().map(|w| w.len()).sum())
}

/// Whether a name written with Flux variables (`high-${ENV}`) can be `name` once they are
/// substituted (each variable standing for any text), under any prefix and suffix a
/// kustomization or the Kustomization adds: then how many characters it writes out.
fn substituted_to(written_name: &str, name: &str) -> Option<usize> {
    if !written_name.contains("${") {
        return None;
    }
    let mut pieces = vec![""];
    let mut rest = written_name;
    while let Some(i) = rest.find("${") {
        pieces.push(&rest[..i]);
        let close = rest[i..].find('}')?;
        rest = &rest[i + close + 1..];
    }
    pieces.extend([rest, ""]);
    written_around(&pieces, name)
}

fn name_of(root: &Node) -> &str {
    root.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Node::as_str)
        .unwrap_or("")
}

fn patch_roots(l: &Loaded) -> Vec<Node> {
    if !l.documents.is_empty() {
        return l.documents.iter().map(|d| d.root.clone()).collect();
    }
    // A JSON6902 patch is a list: the loader reports it as not an object, so parse it here.
    crate::source::yaml::parse_roots(l.source.text())
}

/// A strategic-merge patch sets `path` when it is about this object and holds a scalar or a
/// list there (lists of custom resources are replaced whole), or the whole mapping asked for.
fn smp_span(
    root: &Node,
    kind: &str,
    name: &str,
    targeted: bool,
    path: &FieldPath,
    at_value: bool,
) -> Option<Span> {
    if !targeted {
        let same_kind = root.get("kind").and_then(Node::as_str) == Some(kind);
        if !same_kind || name_of(root) != name {
            return None;
        }
    }
    // The deepest prefix of the path the patch has: a scalar or list there replaced the
    // rendered value; a mapping only merged into it, unless the path ends there.
    for len in (2..=path.0.len()).rev() {
        let prefix = FieldPath(path.0[..len].to_vec());
        if let Some(node) = root.at(&prefix) {
            let replaces = !matches!(node.value, Value::Map(_)) || len == path.0.len();
            return replaces.then(|| place(root, path, at_value));
        }
    }
    None
}

/// The place a finding asks for: `path` of the rendered object, at its key or (`at_value`) at
/// its value.
#[derive(Clone, Copy)]
struct Wanted<'a> {
    rendered: &'a Node,
    path: &'a FieldPath,
    at_value: bool,
}

/// `path` in `node`: its key, or with `at_value` the value written there (the key where the
/// node has no value at the whole path).
fn place(node: &Node, path: &FieldPath, at_value: bool) -> Span {
    if at_value {
        node.locate_value(path)
    } else {
        node.locate(path)
    }
}

/// A JSON6902 operation whose path is `path` or one of its ancestors: its `value` (at the
/// rest of the path when it is there), else the operation. An `add` to the end of a list (`.../-`, RFC 6901) is the element at the index it took in
/// `rendered`: the last one, less those the later operations appended to the same list.
fn json6902_span(ops: &[Node], rendered: &Node, path: &FieldPath) -> Option<Span> {
    let mut appended_after: HashMap<&str, usize> = HashMap::new();
    for op in ops.iter().rev() {
        let kind = op.get("op").and_then(Node::as_str).unwrap_or("");
        if !matches!(kind, "add" | "replace" | "copy" | "move") {
            continue;
        }
        let Some(pointer) = op.get("path").and_then(Node::as_str) else {
            continue;
        };
        let op_path = match pointer.strip_suffix("/-") {
            Some(list) => {
                let later = appended_after.entry(list).or_default();
                let mut at = FieldPath::from_json_pointer(list, rendered);
                let Some(Value::Seq(items)) = rendered.at(&at).map(|n| &n.value) else {
                    continue;
                };
                let Some(index) = items.len().checked_sub(1 + *later) else {
                    continue;
                };
                *later += 1;
                at.0.push(Seg::Index(index));
                at
            }
            None => FieldPath::from_json_pointer(pointer, rendered),
        };
        if op_path.0.is_empty() || !path.0.starts_with(&op_path.0) {
            continue;
        }
        let rest = FieldPath(path.0[op_path.0.len()..].to_vec());
        return Some(match op.get("value") {
            Some(v) if !rest.0.is_empty() && v.at(&rest).is_some() => v.locate(&rest),
            Some(v) => v.span,
            None => op.span,
        });
    }
    None
}

/// Moves every position of a tree parsed from an inline patch to where that text sits in the
/// kustomization file.
fn shift(node: &mut Node, lines: u32, cols: u32) {
    let move_span = |s: &mut Span| {
        s.start.line += lines;
        s.end.line += lines;
        s.start.col += cols;
        s.end.col += cols;
    };
    move_span(&mut node.span);
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(|i| shift(i, lines, cols)),
        Value::Map(entries) => {
            for e in entries {
                shift(&mut e.key, lines, cols);
                shift(&mut e.value, lines, cols);
            }
        }
        _ => {}
    }
}

fn first_line(doc: &Node) -> Span {
    doc.as_map()
        .and_then(|m| m.first())
        .map_or(doc.span, |e| e.key.span)
}

/// In a text that does not parse (a template), the first line with the path's last key.
fn line_naming(source: &Source, path: &FieldPath) -> Span {
    let key = path.0.iter().rev().find_map(|s| match s {
        Seg::Key(k) => Some(format!("{k}:")),
        Seg::Index(_) => None,
    });
    let Some(key) = key else {
        return Span::point(1, 1);
    };
    source
        .text()
        .lines()
        .enumerate()
        .find_map(|(i, l)| {
            l.find(&key).map(|c| {
                let (line, col) = (i as u32 + 1, l[..c].chars().count() as u32 + 1);
                let width = key.chars().count() as u32 - 1; // without the colon
                Span {
                    start: crate::source::Pos { line, col },
                    end: crate::source::Pos {
                        line,
                        col: col + width,
                    },
                }
            })
        })
        .unwrap_or(Span::point(1, 1))
}

/// The path to the deepest node of `root` that starts at `pos` or contains it: how a finding
/// that has no field is traced.
pub fn path_at(root: &Node, pos: crate::source::Pos) -> FieldPath {
    let mut path = FieldPath::root();
    let mut node = root;
    'descend: loop {
        match &node.value {
            Value::Map(entries) => {
                for e in entries {
                    if e.key.span.start == pos || contains(&e.value, pos) {
                        path.0
                            .push(Seg::Key(e.key.as_str().unwrap_or("").to_string()));
                        if e.key.span.start == pos {
                            return path;
                        }
                        node = &e.value;
                        continue 'descend;
                    }
                }
                return path;
            }
            Value::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    if contains(item, pos) {
                        path.0.push(Seg::Index(i));
                        node = item;
                        continue 'descend;
                    }
                }
                return path;
            }
            _ => return path,
        }
    }
}

fn contains(node: &Node, pos: crate::source::Pos) -> bool {
    node.span.start <= pos && (pos < node.span.end || node.span.start == pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(text: &str) -> Node {
        load(Source::new("t.yaml", text)).documents.remove(0).root
    }

    #[test]
    fn the_origin_annotation_is_read_and_stripped() {
        let mut r = root("metadata:\n  name: a\n  annotations:\n    config.kubernetes.io/origin: |\n      path: ../base/p.yaml\n    alpha.config.kubernetes.io/transformations: |\n      - x\n");
        assert_eq!(take_origin(&mut r).as_deref(), Some("../base/p.yaml"));
        assert!(r.get("metadata").unwrap().get("annotations").is_none());
        let mut kept = root("metadata:\n  annotations:\n    a: b\n    config.kubernetes.io/origin: 'path: x.yaml'\n");
        assert_eq!(take_origin(&mut kept).as_deref(), Some("x.yaml"));
        let annotations = kept.get("metadata").unwrap().get("annotations").unwrap();
        assert_eq!(annotations.as_map().unwrap().len(), 1);
    }

    #[test]
    fn json6902_operations_point_at_their_value() {
        let rendered = root("spec:\n  resourceSelectors:\n    - name: prod-web\n");
        let ops = crate::source::yaml::parse_roots(
            "- op: replace\n  path: /spec/resourceSelectors/0/name\n  value: prod-web\n",
        );
        let ops = ops[0].as_seq().unwrap();
        let span = json6902_span(
            ops,
            &rendered,
            &FieldPath::parse("spec.resourceSelectors[0].name"),
        );
        assert_eq!(span.map(|s| s.start.line), Some(3));
        assert_eq!(
            json6902_span(ops, &rendered, &FieldPath::parse("spec.placement")),
            None
        );
    }

    /// `.../-` appends: each operation is the element it added, counted from the end.
    #[test]
    fn json6902_appends_point_at_the_element_they_added() {
        let rendered = root("command: [run, --a=1, --gates=X, --b=2]\n");
        let ops = crate::source::yaml::parse_roots(
            "- op: add\n  path: /command/-\n  value: --gates=X\n- op: add\n  path: /command/-\n  value: --b=2\n",
        );
        let ops = ops[0].as_seq().unwrap();
        let line = |path: &str| {
            json6902_span(ops, &rendered, &FieldPath::parse(path)).map(|s| s.start.line)
        };
        assert_eq!(line("command[2]"), Some(3));
        assert_eq!(line("command[3]"), Some(6));
        assert_eq!(line("command[1]"), None);
    }

    #[test]
    fn a_templated_name_is_matched_with_its_actions_standing_for_any_text() {
        assert_eq!(
            rendered_by("{{ include \"app.fullname\" . }}", "web"),
            Some(0)
        );
        assert_eq!(
            rendered_by("{{ .Release.Name }}-ingress", "web-ingress"),
            Some(8)
        );
        assert_eq!(rendered_by("{{ .Release.Name }}-ingress", "web"), None);
        assert_eq!(
            rendered_by("pre-{{ .A }}-mid-{{ .B }}", "pre-x-mid-y"),
            Some(9)
        );
        assert_eq!(rendered_by("pre-{{ .A }}-mid-{{ .B }}", "pre-x-y"), None);
        assert_eq!(
            rendered_by("ab{{ .A }}ba", "aba"),
            None,
            "prefix and suffix overlap"
        );
        // Two policies of one chart file, named by the same helper: each finds its own.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policies.yaml");
        std::fs::write(
            &path,
            "kind: PropagationPolicy\nmetadata:\n  name: {{ include \"app.fullname\" . }}\n---\n\
             kind: PropagationPolicy\nmetadata:\n  name: \"{{ include \"app.fullname\" . }}-ingress\"\n",
        )
        .unwrap();
        let loaded = read_traced(&path).unwrap();
        let line_of = |rendered: &str| {
            let doc = find_document(&loaded, "PropagationPolicy", rendered).unwrap();
            doc.get("metadata")
                .unwrap()
                .get("name")
                .unwrap()
                .span
                .start
                .line
        };
        assert_eq!(line_of("web"), 3);
        assert_eq!(line_of("web-ingress"), 7);
    }

    #[test]
    fn templates_are_read_with_their_actions_blanked() {
        let t = "spec:\n  clusterNames:\n    {{- range .Values.c }}\n    - {{ . }}\n    {{- end }}\n  name: {{ .Release.Name }}-web\n";
        assert_eq!(
            neutral_template(t),
            "spec:\n  clusterNames:\n\n    - xxxxxxx\n\n  name: xxxxxxxxxxxxxxxxxxx-web\n"
        );
    }

    /// A `{{- if }}` block that renders nothing takes its item out of the rendered list: the
    /// rendered flag is traced to the line that writes it (Karmada's chart writes
    /// `--controllers` in such a block before the feature gates).
    #[test]
    fn a_rendered_list_item_is_traced_to_the_item_written_that_renders_it() {
        let t = "command:\n  - /bin/run\n  {{- if .Values.controllers }}\n  - --controllers={{ .Values.controllers }}\n  {{- end }}\n  {{- with .Values.gates }}\n  - \"--feature-gates={{ . }}\"\n  {{- end }}\n  - {{ .Values.extra }}\n";
        let source = Source::new("kcm.yaml", t);
        let doc = root(&neutral_template(t));
        let rendered = root("command: [/bin/run, --feature-gates=A=false, --v=2, --w=3]\n");
        let traced = |path: &str| {
            let path = written_path(&doc, &rendered, &FieldPath::parse(path), &source);
            doc.locate(&path).start.line
        };
        assert_eq!(traced("command[0]"), 2);
        assert_eq!(traced("command[1]"), 7, "the gate, not --controllers");
        // Only `{{ .Values.extra }}` renders any text: the items a value or a `range` added.
        assert_eq!(traced("command[2]"), 9);
        assert_eq!(traced("command[3]"), 9);
    }

    #[test]
    fn a_field_without_a_path_is_found_by_position() {
        let r = root("spec:\n  placement:\n    clusterNames: [a, B_1]\n");
        let b = r
            .at(&FieldPath::parse("spec.placement.clusterNames[1]"))
            .unwrap();
        assert_eq!(
            path_at(&r, b.span.start).to_string(),
            "spec.placement.clusterNames[1]"
        );
    }
}
