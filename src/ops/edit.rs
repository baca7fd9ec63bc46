//! Byte-preserving, in-place edits of manifest files (GitOps file mode of `suspend`/`resume`).
//!
//! Edits are computed from the positioned [`Node`] tree of [`crate::source`]: the spans of the
//! keys and values say which lines hold `spec.suspension`, and only those lines are rewritten.
//! Everything else (comments, key order, quoting, indentation, the other documents) is copied
//! byte for byte. Nothing is ever re-serialized from the tree.

use crate::model::policy::Suspension;
use crate::source::{Node, Pos, Value};

/// Replace `text[start..end]` with `replacement` (byte offsets into the source text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub replacement: String,
}

/// Why a document cannot be edited in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditError(pub String);

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EditError {}

/// Applies non-overlapping edits (any order) to `text`.
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.start));
    let mut out = text.to_string();
    for e in sorted {
        out.replace_range(e.start..e.end, &e.replacement);
    }
    out
}

/// Line starts and 1-based line/column (characters) to byte offsets.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        let mut starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        Lines { text, starts }
    }

    /// Byte offset of the start of 1-based `line` (the end of text past the last line).
    fn line_start(&self, line: u32) -> usize {
        let i = (line.max(1) - 1) as usize;
        self.starts.get(i).copied().unwrap_or(self.text.len())
    }

    /// Byte offset just past the line ending of 1-based `line`.
    fn line_end_incl(&self, line: u32) -> usize {
        self.line_start(line + 1)
    }

    /// Whether `at` is the end of a text without a final line break: what is inserted or
    /// replaced there brings its own break first, or leaves its last one off.
    fn unterminated_at(&self, at: usize) -> bool {
        at == self.text.len() && !self.text.ends_with('\n')
    }

    fn line_text(&self, line: u32) -> &'a str {
        let s = self.line_start(line);
        let e = self.line_end_incl(line);
        &self.text[s..e]
    }

    fn offset(&self, p: Pos) -> usize {
        let start = self.line_start(p.line);
        let line = &self.text[start..self.line_end_incl(p.line)];
        let col = p.col.max(1) as usize - 1;
        start + line.char_indices().nth(col).map_or(line.len(), |(b, _)| b)
    }
}

/// The last line holding content of `node` (scalars, keys included), for block collections whose
/// end marker points at the next token.
fn last_line(node: &Node) -> u32 {
    match &node.value {
        Value::Seq(items) => items
            .iter()
            .map(last_line)
            .max()
            .unwrap_or(node.span.start.line),
        Value::Map(entries) => entries
            .iter()
            .map(|e| last_line(&e.key).max(last_line(&e.value)))
            .max()
            .unwrap_or(node.span.start.line),
        _ => node.span.end.line.max(node.span.start.line),
    }
}

/// How the file writes things, learned from the document itself.
struct Style {
    /// One indentation step (spaces).
    step: usize,
    /// Whether block sequence items are indented under their key (`key:\n  - a`).
    indented_seq: bool,
    /// The quote character used for list items, if any (`"` or `'`).
    quote: Option<char>,
    newline: &'static str,
}

/// The line ending new lines get: the one most of the file's lines end with, so that one stray
/// CRLF line in an LF file (or the reverse) does not decide the style of every line written.
fn line_ending(text: &str) -> &'static str {
    let lines = text.matches('\n').count();
    let crlf = text.matches("\r\n").count();
    if crlf * 2 > lines {
        "\r\n"
    } else {
        "\n"
    }
}

fn learn_style(text: &str, lines: &Lines<'_>, root: &Node, spec: &Node) -> Style {
    let newline = line_ending(text);
    // Step: from `spec:` to its first child.
    let spec_key_col = root.entry("spec").map_or(1, |e| e.key.span.start.col);
    let step = spec
        .as_map()
        .and_then(|m| m.first())
        .map(|e| e.key.span.start.col.saturating_sub(spec_key_col) as usize)
        .filter(|s| *s > 0)
        .unwrap_or(2);
    let mut indented_seq = None;
    find_seq_style(root, lines, &mut indented_seq);
    Style {
        step,
        indented_seq: indented_seq.unwrap_or(true),
        quote: None,
        newline,
    }
}

/// The first block sequence under a key: are its items further right than the key?
fn find_seq_style(node: &Node, lines: &Lines<'_>, out: &mut Option<bool>) {
    if out.is_some() {
        return;
    }
    if let Value::Map(entries) = &node.value {
        for e in entries {
            if let (Value::Seq(items), Some(first)) =
                (&e.value.value, e.value.as_seq().and_then(|s| s.first()))
            {
                let _ = items;
                let dash_line = lines.line_text(first.span.start.line);
                let is_block = e.value.span.start.line > e.key.span.start.line
                    || dash_line.trim_start().starts_with('-');
                if is_block && first.span.start.line > e.key.span.start.line {
                    let dash_col = dash_line.len() - dash_line.trim_start().len() + 1;
                    *out = Some(dash_col as u32 > e.key.span.start.col);
                    return;
                }
            }
            find_seq_style(&e.value, lines, out);
        }
    }
    if let Value::Seq(items) = &node.value {
        for i in items {
            find_seq_style(i, lines, out);
        }
    }
}

/// A cluster name as a YAML scalar: plain when safe, else double-quoted.
fn scalar(name: &str, quote: Option<char>) -> String {
    if let Some(q) = quote {
        return match q {
            '\'' => format!("'{}'", name.replace('\'', "''")),
            _ => format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\"")),
        };
    }
    let special = !crate::source::yaml::plain_scalar_safe(name) || name.trim() != name;
    if special {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        name.to_string()
    }
}

/// The `suspension:` entry as block lines at `indent` columns.
fn render_block(s: &Suspension, indent: usize, style: &Style) -> String {
    let pad = |n: usize| " ".repeat(n);
    let nl = style.newline;
    let mut out = format!("{}suspension:", pad(indent));
    let mut any = false;
    if let Some(d) = s.dispatching {
        out.push_str(&format!("{nl}{}dispatching: {d}", pad(indent + style.step)));
        any = true;
    }
    if let Some(c) = &s.dispatching_on_clusters {
        out.push_str(&format!(
            "{nl}{}dispatchingOnClusters:",
            pad(indent + style.step)
        ));
        if c.cluster_names.is_empty() {
            out.push_str(" {}");
        } else {
            out.push_str(&format!(
                "{nl}{}clusterNames:",
                pad(indent + 2 * style.step)
            ));
            let item_indent =
                indent + 2 * style.step + if style.indented_seq { style.step } else { 0 };
            for n in &c.cluster_names {
                out.push_str(&format!(
                    "{nl}{}- {}",
                    pad(item_indent),
                    scalar(n, style.quote)
                ));
            }
        }
        any = true;
    }
    if !any {
        out.push_str(" {}");
    }
    out.push_str(nl);
    out
}

/// Cluster names as a flow sequence, `[a, b]`.
fn flow_names(names: &[String], quote: Option<char>) -> String {
    let names: Vec<String> = names.iter().map(|n| scalar(n, quote)).collect();
    format!("[{}]", names.join(", "))
}

/// The suspension as a flow mapping (for files that wrote it in flow style).
fn render_flow(s: &Suspension, quote: Option<char>) -> String {
    let mut parts = Vec::new();
    if let Some(d) = s.dispatching {
        parts.push(format!("dispatching: {d}"));
    }
    if let Some(c) = &s.dispatching_on_clusters {
        parts.push(format!(
            "dispatchingOnClusters: {{clusterNames: {}}}",
            flow_names(&c.cluster_names, quote)
        ));
    }
    format!("{{{}}}", parts.join(", "))
}

/// The byte just past the `}` or `]` closing the flow collection that starts at `start`.
fn flow_end(text: &str, start: usize) -> usize {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut prev = '\0';
    for (i, c) in text[start..].char_indices() {
        match quote {
            Some(q) => {
                if c == q && !(q == '"' && prev == '\\') {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '{' | '[' => depth += 1,
                '}' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        return start + i + 1;
                    }
                }
                _ => {}
            },
        }
        prev = c;
    }
    text.len()
}

/// The quote character of the existing cluster names, to write new ones the same way.
fn existing_quote(text: &str, lines: &Lines<'_>, suspension: &Node) -> Option<char> {
    let first = suspension
        .get("dispatchingOnClusters")?
        .get("clusterNames")?
        .as_seq()?
        .first()?;
    let _ = text;
    let off = lines.offset(first.span.start);
    match lines.text[off..].chars().next() {
        Some(c @ ('"' | '\'')) => Some(c),
        _ => None,
    }
}

/// The edit that makes this document's `spec.suspension` equal `new` (`None`: remove it), or
/// `None` when the text already says so. `text` is the whole file the document was loaded from.
pub fn suspension_edit(
    text: &str,
    root: &Node,
    new: Option<&Suspension>,
) -> Result<Option<TextEdit>, EditError> {
    let lines = Lines::new(text);
    let spec_entry = root
        .entry("spec")
        .ok_or_else(|| EditError("the policy has no `spec` to edit".into()))?;
    let spec = &spec_entry.value;
    if spec.as_map().is_none() {
        return Err(EditError("`spec` is not a mapping".into()));
    }
    let spec_flow = lines.text[lines.offset(spec.span.start)..].starts_with('{');
    if spec_flow {
        return Err(EditError(
            "`spec` is written as a flow mapping ({...}); edit it by hand or write it in block style".into(),
        ));
    }
    let mut style = learn_style(text, &lines, root, spec);
    let existing = spec.entry("suspension");
    if let Some(e) = existing {
        style.quote = existing_quote(text, &lines, &e.value);
    }
    match (existing, new) {
        (None, None) => Ok(None),
        // Insert after the last line of `spec`, at the indentation of its keys.
        (None, Some(new)) => {
            let indent = spec
                .as_map()
                .and_then(|m| m.first())
                .map_or(style.step, |e| e.key.span.start.col as usize - 1);
            let after = last_line(spec);
            let mut at = lines.line_end_incl(after);
            // Keep trailing comment lines that are indented as part of spec before the insert.
            let mut l = after + 1;
            while (l as usize) <= lines.starts.len() {
                let t = lines.line_text(l);
                let trimmed = t.trim_start();
                let col = t.len() - trimmed.len();
                if trimmed.starts_with('#') && col >= indent {
                    at = lines.line_end_incl(l);
                    l += 1;
                } else {
                    break;
                }
            }
            let mut replacement = render_block(new, indent, &style);
            // A file without a final line break keeps going without one (so that resume gives
            // back the same bytes): the break goes before the block instead of after it.
            if lines.unterminated_at(at) {
                replacement.truncate(replacement.len() - style.newline.len());
                replacement.insert_str(0, style.newline);
            }
            Ok(Some(TextEdit {
                start: at,
                end: at,
                replacement,
            }))
        }
        // A patch holding only the suspension: `spec:` left empty would be a null, which a
        // strategic merge reads as "delete the spec"; it becomes `spec: {}`.
        (Some(e), None) if spec.as_map().is_some_and(|m| m.len() == 1) => {
            Ok(Some(emptied_spec(&lines, spec_entry, e)?))
        }
        (Some(e), new) => {
            let key_start = lines.offset(e.key.span.start);
            let line_start = lines.line_start(e.key.span.start.line);
            let before_key = &text[line_start..key_start];
            if !before_key.trim().is_empty() {
                return Err(EditError(
                    "`spec.suspension` shares its line with other content; edit it by hand".into(),
                ));
            }
            let value_off = lines.offset(e.value.span.start);
            let is_flow =
                matches!(e.value.value, Value::Map(_)) && text[value_off..].starts_with('{');
            if is_flow {
                let value_end = flow_end(text, value_off);
                return Ok(match new {
                    Some(new) => Some(TextEdit {
                        start: value_off,
                        end: value_end,
                        replacement: render_flow(new, style.quote),
                    }),
                    None => Some(TextEdit {
                        start: line_start,
                        end: lines.line_end_incl(e.value.span.end.line),
                        replacement: String::new(),
                    }),
                });
            }
            let last = last_line(&e.key).max(last_line(&e.value));
            let end = lines.line_end_incl(last);
            let indent = e.key.span.start.col as usize - 1;
            // A block written by hand keeps its comments, and each cluster's line its blame
            // (suspension-age reads when a cluster was suspended from it): only the fields and
            // list items that change are edited, where the block's shape allows.
            if let Some(new) = new {
                if let Some(replacement) = changed_fields(&lines, e, new, &style, (line_start, end))
                {
                    return Ok((text[line_start..end] != replacement).then_some(TextEdit {
                        start: line_start,
                        end,
                        replacement,
                    }));
                }
            }
            let mut replacement = match new {
                Some(new) => render_block(new, indent, &style),
                None => String::new(),
            };
            let mut start = line_start;
            if lines.unterminated_at(end) {
                if replacement.is_empty() {
                    // The last lines go: so does the break before them, as the file had none
                    // at its end.
                    let before = &text[..line_start];
                    start -= if before.ends_with("\r\n") {
                        2
                    } else {
                        usize::from(before.ends_with('\n'))
                    };
                } else {
                    replacement.truncate(replacement.len() - style.newline.len());
                }
            }
            if text[start..end] == replacement {
                return Ok(None);
            }
            Ok(Some(TextEdit {
                start,
                end,
                replacement,
            }))
        }
    }
}

/// The existing block-style `suspension` entry `e` (the text `block`, whole lines) rewritten to
/// say `new` by editing only what changes: the `dispatching` value, the `clusterNames` items
/// that go or come, an entry that appears or goes, a flow collection inside it rewritten in
/// place. `None` when the block's shape is not one this handles (a list emptied, keys it does
/// not know, a value over several lines): the caller then rewrites the whole block. The result
/// is parsed back and must say `new`.
fn changed_fields(
    lines: &Lines<'_>,
    e: &crate::source::Entry,
    new: &Suspension,
    style: &Style,
    block: (usize, usize),
) -> Option<String> {
    let map = e.value.as_map().filter(|m| !m.is_empty())?;
    if map.iter().any(|f| {
        !matches!(
            f.key.as_str(),
            Some("dispatching" | "dispatchingOnClusters")
        )
    }) {
        return None;
    }
    let indent = e.key.span.start.col as usize - 1;
    let child_indent = map[0].key.span.start.col as usize - 1;
    // New lines are written in the file's step: the block must indent by it too.
    if child_indent != indent + style.step {
        return None;
    }
    let nl = style.newline;
    let mut edits: Vec<TextEdit> = Vec::new();
    let entry_lines = |f: &crate::source::Entry| TextEdit {
        start: lines.line_start(f.key.span.start.line),
        end: lines.line_end_incl(entry_last_line(f)),
        replacement: String::new(),
    };
    // A new field goes first, under the `suspension:` line (before any comment there, which
    // says something of the fields written).
    let first_child_line = lines.line_end_incl(e.key.span.start.line);
    if map[0].key.span.start.line <= e.key.span.start.line {
        return None;
    }
    let after_block = lines.line_end_incl(last_line(&e.value));
    match (e.value.entry("dispatching"), new.dispatching) {
        (Some(d), Some(v)) if !matches!(d.value.value, Value::Bool(b) if b == v) => {
            let scalar = !matches!(d.value.value, Value::Seq(_) | Value::Map(_));
            if d.value.span.start.line != d.value.span.end.line || !scalar {
                return None;
            }
            edits.push(TextEdit {
                start: lines.offset(d.value.span.start),
                end: lines.offset(d.value.span.end),
                replacement: v.to_string(),
            });
        }
        (Some(_), Some(_)) => {}
        (Some(d), None) => edits.push(entry_lines(d)),
        (None, Some(v)) => edits.push(TextEdit {
            start: first_child_line,
            end: first_child_line,
            replacement: format!("{}dispatching: {v}{nl}", " ".repeat(child_indent)),
        }),
        (None, None) => {}
    }
    let wanted = new.dispatching_on_clusters.as_ref();
    match (e.value.entry("dispatchingOnClusters"), wanted) {
        (Some(c), Some(w)) if lines.text[lines.offset(c.value.span.start)..].starts_with('{') => {
            // Written in flow style: that collection is rewritten, the line's comment kept.
            let start = lines.offset(c.value.span.start);
            edits.push(TextEdit {
                start,
                end: flow_end(lines.text, start),
                replacement: format!(
                    "{{clusterNames: {}}}",
                    flow_names(&w.cluster_names, style.quote)
                ),
            });
        }
        (Some(c), Some(w)) => edits.extend(changed_names(lines, c, &w.cluster_names, style)?),
        (Some(c), None) => edits.push(entry_lines(c)),
        (None, Some(w)) if !w.cluster_names.is_empty() => {
            let only = Suspension {
                dispatching: None,
                dispatching_on_clusters: Some(w.clone()),
            };
            // After the block's last line, which must end with a line break.
            if lines.unterminated_at(after_block) {
                return None;
            }
            let rendered = render_block(&only, indent, style);
            let (_, entry) = rendered.split_once(nl)?;
            edits.push(TextEdit {
                start: after_block,
                end: after_block,
                replacement: entry.to_string(),
            });
        }
        (None, _) => {}
    }
    let (start, end) = block;
    let relative: Vec<TextEdit> = edits
        .into_iter()
        .map(|t| TextEdit {
            start: t.start - start,
            end: t.end - start,
            ..t
        })
        .collect();
    let replacement = apply(&lines.text[start..end], &relative);
    says(&replacement, indent, new).then_some(replacement)
}

/// The edits of an existing `dispatchingOnClusters` entry `c` that leave its block list
/// `clusterNames` holding `names`: the items that go are removed with their lines, the new
/// ones appended after the last, written as the first is; a flow list is rewritten in place.
/// `None` for a block list emptied, or an item sharing its line.
fn changed_names(
    lines: &Lines<'_>,
    c: &crate::source::Entry,
    names: &[String],
    style: &Style,
) -> Option<Vec<TextEdit>> {
    let list = c.value.get("clusterNames")?;
    let list_start = lines.offset(list.span.start);
    if lines.text[list_start..].starts_with('[') {
        return Some(vec![TextEdit {
            start: list_start,
            end: flow_end(lines.text, list_start),
            replacement: flow_names(names, style.quote),
        }]);
    }
    let items = list.as_seq()?;
    let first = items.first()?;
    let first_line = lines.line_text(first.span.start.line);
    let dash = first_line.len() - first_line.trim_start().len();
    if !first_line.trim_start().starts_with("- ") || names.is_empty() {
        return None;
    }
    let mut edits = Vec::new();
    let mut kept: Vec<&str> = Vec::new();
    for item in items {
        let name = item.as_str()?;
        let line = lines.line_text(item.span.start.line);
        if !line.trim_start().starts_with("- ") || last_line(item) != item.span.start.line {
            return None;
        }
        if names.iter().any(|n| n == name) && !kept.contains(&name) {
            kept.push(name);
        } else {
            edits.push(TextEdit {
                start: lines.line_start(item.span.start.line),
                end: lines.line_end_incl(item.span.start.line),
                replacement: String::new(),
            });
        }
    }
    let last = items.last()?;
    let at = lines.line_end_incl(last.span.start.line);
    if lines.unterminated_at(at) {
        return None;
    }
    let added: String = names
        .iter()
        .filter(|n| !kept.contains(&n.as_str()))
        .map(|n| {
            format!(
                "{}- {}{}",
                " ".repeat(dash),
                scalar(n, style.quote),
                style.newline
            )
        })
        .collect();
    if !added.is_empty() {
        edits.push(TextEdit {
            start: at,
            end: at,
            replacement: added,
        });
    }
    Some(edits)
}

/// Whether `block`, the `suspension:` entry's lines at `indent` columns, says `new` when parsed.
fn says(block: &str, indent: usize, new: &Suspension) -> bool {
    let dedented: String = block
        .split_inclusive('\n')
        .map(|l| {
            l.get(indent..)
                .filter(|_| l.starts_with(&" ".repeat(indent)))
                .unwrap_or(l)
        })
        .collect();
    let loaded = crate::source::load(crate::source::Source::new("suspension", dedented));
    let [doc] = loaded.documents.as_slice() else {
        return false;
    };
    if !loaded.problems.is_empty() {
        return false;
    }
    doc.root
        .get("suspension")
        .and_then(|s| serde_json::from_value::<Suspension>(s.to_json()).ok())
        .is_some_and(|s| s == *new)
}

/// The edit that removes `spec.suspension`, the only entry of `spec`, leaving `spec: {}` (any
/// comment on the `spec:` line kept).
fn emptied_spec(
    lines: &Lines<'_>,
    spec: &crate::source::Entry,
    suspension: &crate::source::Entry,
) -> Result<TextEdit, EditError> {
    let key_line = spec.key.span.start.line;
    let line = lines.line_text(key_line);
    let key_end = lines.offset(spec.key.span.end) - lines.line_start(key_line);
    let Some(colon) = line[key_end..].find(':').map(|c| key_end + c + 1) else {
        return Err(EditError(
            "`spec:` is not on a line of its own; edit it by hand".into(),
        ));
    };
    let start = lines.line_start(key_line);
    let end = lines.line_end_incl(last_line(&suspension.key).max(last_line(&suspension.value)));
    Ok(TextEdit {
        start,
        end,
        replacement: format!("{} {{}}{}", &line[..colon], &line[colon..]),
    })
}

/// A string as a single-quoted YAML scalar (`'` doubled), for annotation values we write.
pub fn single_quoted(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// The last line of an entry: its key's line when the value is empty (an implicit null may
/// point at the next token).
fn entry_last_line(e: &crate::source::Entry) -> u32 {
    match e.value.value {
        Value::Null => e.key.span.start.line,
        _ => last_line(&e.key).max(last_line(&e.value)),
    }
}

/// The edit that sets `metadata.annotations[key]` to `value` (`None`: removes it, and the
/// `annotations:` entry with it when it held nothing else), touching only those lines. The value
/// is written single-quoted. Flow-style `metadata` or `annotations` are refused.
pub fn annotation_edit(
    text: &str,
    root: &Node,
    key: &str,
    value: Option<&str>,
) -> Result<Option<TextEdit>, EditError> {
    let lines = Lines::new(text);
    let newline = line_ending(text);
    let meta_entry = root
        .entry("metadata")
        .ok_or_else(|| EditError("the policy has no `metadata` to edit".into()))?;
    let meta = &meta_entry.value;
    let Some(meta_entries) = meta.as_map() else {
        return Err(EditError("`metadata` is not a mapping".into()));
    };
    if lines.text[lines.offset(meta.span.start)..].starts_with('{') {
        return Err(EditError(
            "`metadata` is written as a flow mapping ({...}); edit it by hand or write it in block style".into(),
        ));
    }
    let meta_indent = meta_entries
        .first()
        .map_or(2, |e| e.key.span.start.col as usize - 1);
    let step = meta_indent
        .saturating_sub(meta_entry.key.span.start.col as usize - 1)
        .max(1);
    let line_of = |k: &str, v: &str, indent: usize| {
        format!("{}{k}: {}{newline}", " ".repeat(indent), single_quoted(v))
    };
    // Inserting at the end of a file without a final newline needs one first.
    let insert_at = |line: u32, body: String| {
        let at = lines.line_end_incl(line);
        let prefix = if lines.unterminated_at(at) {
            newline
        } else {
            ""
        };
        TextEdit {
            start: at,
            end: at,
            replacement: format!("{prefix}{body}"),
        }
    };
    let Some(ann) = meta.entry("annotations") else {
        let Some(v) = value else {
            return Ok(None);
        };
        let last = meta_entries
            .iter()
            .map(entry_last_line)
            .max()
            .unwrap_or(meta_entry.key.span.start.line);
        let body = format!(
            "{}annotations:{newline}{}",
            " ".repeat(meta_indent),
            line_of(key, v, meta_indent + step)
        );
        return Ok(Some(insert_at(last, body)));
    };
    let own_line = |e: &crate::source::Entry| {
        let start = lines.line_start(e.key.span.start.line);
        lines.text[start..lines.offset(e.key.span.start)]
            .trim()
            .is_empty()
    };
    match &ann.value.value {
        Value::Null => {
            let Some(v) = value else {
                return Ok(None);
            };
            let line = ann.key.span.start.line;
            let rest = lines.line_text(line);
            let after_colon = rest.split_once(':').map_or("", |(_, r)| r).trim();
            if !after_colon.is_empty() && !after_colon.starts_with('#') {
                return Err(EditError(
                    "`metadata.annotations` is written as an explicit null; edit it by hand".into(),
                ));
            }
            let indent = ann.key.span.start.col as usize - 1 + step;
            Ok(Some(insert_at(line, line_of(key, v, indent))))
        }
        Value::Map(entries) => {
            if lines.text[lines.offset(ann.value.span.start)..].starts_with('{') {
                return Err(EditError(
                    "`metadata.annotations` is written as a flow mapping ({...}); edit it by hand"
                        .into(),
                ));
            }
            let found = entries
                .iter()
                .rev()
                .find(|e| matches!(&e.key.value, Value::Str(k) if k == key));
            match (found, value) {
                (None, None) => Ok(None),
                (None, Some(v)) => {
                    let indent = entries
                        .first()
                        .map_or(meta_indent + step, |e| e.key.span.start.col as usize - 1);
                    let last = entries
                        .iter()
                        .map(entry_last_line)
                        .max()
                        .unwrap_or(ann.key.span.start.line);
                    Ok(Some(insert_at(last, line_of(key, v, indent))))
                }
                (Some(e), value) => {
                    if !own_line(e) {
                        return Err(EditError(format!(
                            "annotation {key} shares its line with other content; edit it by hand"
                        )));
                    }
                    let start = lines.line_start(e.key.span.start.line);
                    let end = lines.line_end_incl(entry_last_line(e));
                    let replacement = match value {
                        Some(v) => {
                            let mut r = line_of(key, v, e.key.span.start.col as usize - 1);
                            if lines.unterminated_at(end) {
                                r.truncate(r.len() - newline.len());
                            }
                            r
                        }
                        None => String::new(),
                    };
                    // The only annotation goes with its `annotations:` key.
                    let (start, end) = if value.is_none() && entries.len() == 1 && own_line(ann) {
                        (lines.line_start(ann.key.span.start.line), end)
                    } else {
                        (start, end)
                    };
                    if text[start..end] == replacement {
                        return Ok(None);
                    }
                    Ok(Some(TextEdit {
                        start,
                        end,
                        replacement,
                    }))
                }
            }
        }
        _ => Err(EditError(
            "`metadata.annotations` is not a mapping; edit it by hand".into(),
        )),
    }
}

/// Checks an edited text before it is written: it must parse as cleanly as `before` did, hold
/// as many documents, and each document must be what it was, but for `spec.suspension` of the
/// documents in `edited` (their indices; `None`: any document may change, only the parse and
/// the count are checked). An anchor on or inside a replaced block that was aliased elsewhere
/// would otherwise leave a dangling alias, or change the other users of the anchor.
pub fn verify(before: &str, after: &str, edited: Option<&[usize]>) -> Result<(), EditError> {
    use crate::source::{load, ProblemKind, Source};
    let old = load(Source::new("before", before));
    let new = load(Source::new("after", after));
    let serious = |p: &&crate::source::LoadProblem| p.kind != ProblemKind::DuplicateKey;
    if let Some(p) = new.problems.iter().find(serious) {
        return Err(EditError(format!(
            "the edited file would not parse ({} at line {}): an anchor in the replaced block used elsewhere? nothing was changed",
            p.message, p.span.start.line
        )));
    }
    if new.documents.len() != old.documents.len() {
        return Err(EditError(
            "the edited file would not hold the same documents; nothing was changed".into(),
        ));
    }
    let Some(edited) = edited else {
        return Ok(());
    };
    let without_suspension = |node: &Node, strip: bool| {
        let mut json = node.to_json();
        if strip {
            if let Some(spec) = json.get_mut("spec").and_then(|s| s.as_object_mut()) {
                spec.remove("suspension");
            }
        }
        json
    };
    for (i, (a, b)) in old.documents.iter().zip(&new.documents).enumerate() {
        let strip = edited.contains(&i);
        if without_suspension(&a.root, strip) != without_suspension(&b.root, strip) {
            return Err(EditError(format!(
                "the edit would change document {} beyond the suspension (an anchor on or in the suspension block is aliased elsewhere?); edit it by hand, nothing was changed",
                i + 1
            )));
        }
    }
    Ok(())
}

/// What a new strategic-merge patch names: the policy as its base writes it (before
/// `namePrefix`/`nameSuffix`), so kustomize matches it to the base's object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchIdentity {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
}

/// How the first line of a patch file this tool writes ends (see [`is_spent_patch`]).
const PATCH_HEADER_END: &str = "in this overlay (kubectl karmada-policy suspend/resume).";

/// The text of a new strategic-merge patch setting `spec.suspension` of one policy.
pub fn new_patch_text(id: &PatchIdentity, suspension: &Suspension) -> String {
    let style = Style {
        step: 2,
        indented_seq: true,
        quote: None,
        newline: "\n",
    };
    let mut out = format!(
        "# The suspension of {} {} {PATCH_HEADER_END}\napiVersion: {}\nkind: {}\nmetadata:\n  name: {}\n",
        id.kind,
        id.name,
        scalar(&id.api_version, None),
        scalar(&id.kind, None),
        scalar(&id.name, None)
    );
    if let Some(ns) = &id.namespace {
        out.push_str(&format!("  namespace: {}\n", scalar(ns, None)));
    }
    out.push_str("spec:\n");
    out.push_str(&render_block(suspension, 2, &style));
    out
}

/// The edit that lists new patch files under `patches:` of a kustomization (`- path: FILE`),
/// after its last entry, in the file's own indentation; `patches:` is added at the end of the
/// file when absent. Only those lines are written: comments and every other field stay.
pub fn patch_list_edit(text: &str, root: &Node, files: &[String]) -> Result<TextEdit, EditError> {
    let lines = Lines::new(text);
    let nl = line_ending(text);
    if root.as_map().is_none() || text[lines.offset(root.span.start)..].starts_with('{') {
        return Err(EditError(
            "the kustomization is not a block mapping; list the patch by hand".into(),
        ));
    }
    let mut indented = None;
    find_seq_style(root, &lines, &mut indented);
    let items = |indent: usize| -> String {
        files
            .iter()
            .map(|f| format!("{}- path: {}{nl}", " ".repeat(indent), scalar(f, None)))
            .collect()
    };
    let insert_after = |line: u32, body: String| {
        let at = lines.line_end_incl(line);
        let prefix = if lines.unterminated_at(at) { nl } else { "" };
        TextEdit {
            start: at,
            end: at,
            replacement: format!("{prefix}{body}"),
        }
    };
    let Some(e) = root.entry("patches") else {
        let step = if indented.unwrap_or(true) { 2 } else { 0 };
        let last = lines.starts.len() as u32;
        return Ok(insert_after(last, format!("patches:{nl}{}", items(step))));
    };
    let key_indent = e.key.span.start.col as usize - 1;
    match &e.value.value {
        Value::Null => {
            let step = if indented.unwrap_or(true) { 2 } else { 0 };
            Ok(insert_after(
                e.key.span.start.line,
                items(key_indent + step),
            ))
        }
        Value::Seq(seq) => {
            let off = lines.offset(e.value.span.start);
            if text[off..].starts_with('[') {
                let close = flow_end(text, off) - 1;
                let flow: Vec<String> = files
                    .iter()
                    .map(|f| format!("{{path: {}}}", scalar(f, None)))
                    .collect();
                let sep = if seq.is_empty() { "" } else { ", " };
                return Ok(TextEdit {
                    start: close,
                    end: close,
                    replacement: format!("{sep}{}", flow.join(", ")),
                });
            }
            let first = seq
                .first()
                .map_or(e.value.span.start.line, |i| i.span.start.line);
            let dash_line = lines.line_text(first);
            let dash = dash_line.len() - dash_line.trim_start().len();
            let last = list_end(&lines, &e.value, first, dash);
            Ok(insert_after(last, items(dash)))
        }
        _ => Err(EditError(
            "`patches` is not a list; list the patch by hand".into(),
        )),
    }
}

/// The edit undoing [`patch_list_edit`] for `files`: each `- path: FILE` item line of the
/// block list under `patches:` removed, and the `patches:` key with it when no item is left (as
/// the listing added it). A flow list, or an item that is more than its one line, is refused.
pub fn patch_unlist_edit(
    text: &str,
    root: &Node,
    files: &[String],
) -> Result<Vec<TextEdit>, EditError> {
    let by_hand = || EditError("cannot unlist the patch; remove it from `patches:` by hand".into());
    let lines = Lines::new(text);
    let e = root.entry("patches").ok_or_else(by_hand)?;
    let Value::Seq(items) = &e.value.value else {
        return Err(by_hand());
    };
    if text[lines.offset(e.value.span.start)..].starts_with('[') {
        return Err(by_hand());
    }
    let listed = |item: &Node| {
        let path = item.as_map().and_then(|m| match m {
            [only] if only.key.as_str() == Some("path") => only.value.as_str(),
            _ => None,
        });
        path.is_some_and(|p| files.iter().any(|f| f == p))
            && item.span.start.line == last_line(item)
    };
    let gone: Vec<&Node> = items.iter().filter(|i| listed(i)).collect();
    if gone.len() != files.len() {
        return Err(by_hand());
    }
    if gone.len() == items.len() {
        // Nothing else listed: the key goes too, from its line to the last item's.
        let last = gone.iter().map(|i| i.span.start.line).max().unwrap_or(0);
        return Ok(vec![TextEdit {
            start: lines.line_start(e.key.span.start.line),
            end: lines.line_end_incl(last),
            replacement: String::new(),
        }]);
    }
    Ok(gone
        .iter()
        .map(|i| TextEdit {
            start: lines.line_start(i.span.start.line),
            end: lines.line_end_incl(i.span.start.line),
            replacement: String::new(),
        })
        .collect())
}

/// Whether `text` is a patch file [`new_patch_text`] wrote that no longer changes anything:
/// its header, and one document holding only the policy's identity (an empty `spec`, no
/// annotations). Lifting the suspension it held removes the file and its listing.
pub fn is_spent_patch(text: &str) -> bool {
    use crate::source::{load, Source};
    let ours = text
        .lines()
        .next()
        .is_some_and(|l| l.starts_with("# The suspension of ") && l.ends_with(PATCH_HEADER_END));
    if !ours {
        return false;
    }
    let loaded = load(Source::new("patch", text));
    let [doc] = loaded.documents.as_slice() else {
        return false;
    };
    let v = doc.root.to_json();
    let empty =
        |v: &serde_json::Value| v.is_null() || v.as_object().is_some_and(serde_json::Map::is_empty);
    let Some(top) = v.as_object() else {
        return false;
    };
    let meta_only_identity = v["metadata"]
        .as_object()
        .is_some_and(|m| m.keys().all(|k| k == "name" || k == "namespace"));
    loaded.problems.is_empty()
        && top
            .keys()
            .all(|k| matches!(k.as_str(), "apiVersion" | "kind" | "metadata" | "spec"))
        && meta_only_identity
        && empty(&v["spec"])
}

/// The last line of a block list whose items start at line `first` with dashes at column
/// `dash`. A block scalar's span ends at the next token, so the blank lines and the comments at
/// or left of the dashes that follow the list are stepped back over.
fn list_end(lines: &Lines<'_>, list: &Node, first: u32, dash: usize) -> u32 {
    let mut last = last_line(list);
    while last > first {
        let t = lines.line_text(last);
        let trimmed = t.trim_start();
        let outside = t.len() - trimmed.len() <= dash;
        if trimmed.trim_end().is_empty() || (outside && trimmed.starts_with('#')) {
            last -= 1;
        } else {
            break;
        }
    }
    last
}

/// Checks the text of a file to create: it parses cleanly and holds one document.
pub fn verify_created(text: &str) -> Result<(), EditError> {
    use crate::source::{load, ProblemKind, Source};
    let loaded = load(Source::new("new", text));
    let serious = loaded
        .problems
        .iter()
        .any(|p| p.kind != ProblemKind::DuplicateKey);
    if serious || loaded.documents.len() != 1 {
        return Err(EditError(
            "the new patch would not be one clean YAML document; nothing was changed".into(),
        ));
    }
    Ok(())
}

/// A unified diff of `before` → `after` with file names, as `--dry-run` prints it.
pub fn unified_diff(name: &str, before: &str, after: &str) -> String {
    diff_with_header(&format!("a/{name}"), &format!("b/{name}"), before, after)
}

/// The diff of a file the edit removes, to `/dev/null` as git shows it.
pub fn deleted_diff(name: &str, text: &str) -> String {
    diff_with_header(&format!("a/{name}"), "/dev/null", text, "")
}

/// The diff of a file the edit creates, from `/dev/null` as git shows it.
pub fn created_diff(name: &str, text: &str) -> String {
    diff_with_header("/dev/null", &format!("b/{name}"), "", text)
}

/// The diff as it is printed: control characters of the file (or its name) shown escaped.
fn diff_with_header(old: &str, new: &str, before: &str, after: &str) -> String {
    let diff = similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(old, new)
        .to_string();
    crate::util::escape::visible_lines(&diff).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    #[test]
    fn new_lines_take_the_ending_most_lines_have() {
        assert_eq!(line_ending("a: 1\nb: 2\r\nc: 3\n"), "\n");
        assert_eq!(line_ending("a: 1\r\nb: 2\r\nc: 3\n"), "\r\n");
        assert_eq!(line_ending("a: 1"), "\n");
    }

    fn edit(text: &str, new: Option<&str>) -> String {
        let loaded = load(Source::new("t.yaml", text));
        let root = &loaded.documents[0].root;
        let new: Option<Suspension> = new.map(|j| serde_json::from_str(j).unwrap());
        match suspension_edit(text, root, new.as_ref()).unwrap() {
            Some(e) => apply(text, &[e]),
            None => text.to_string(),
        }
    }

    const POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: nginx # the web tier
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: nginx
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
  # trailing comment of spec
";

    /// A file without a final line break (prodanlabs/karmada-examples) gets none from suspend,
    /// and resume gives back its bytes, LF or CRLF.
    #[test]
    fn suspend_then_resume_gives_back_a_file_without_a_final_break() {
        for nl in ["\n", "\r\n"] {
            let text = POLICY.trim_end().replace('\n', nl);
            let suspended = edit(&text, Some(r#"{"dispatching":true}"#));
            assert!(suspended.ends_with("dispatching: true"), "{suspended:?}");
            assert_eq!(edit(&suspended, None), text);
        }
    }

    /// A suspension block written by hand keeps its comments, and each cluster's line stays
    /// as it was (suspension-age blames those lines): only what changes is edited.
    #[test]
    fn an_existing_block_is_edited_field_by_field_keeping_its_comments() {
        let head = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: Pod}]\n  suspension:\n";
        let block = "    # only member1\n    dispatchingOnClusters:\n      clusterNames:\n        - member1  # incident 42\n";
        let text = format!("{head}{block}");
        let two = r#"{"dispatchingOnClusters":{"clusterNames":["member1","member2"]}}"#;
        assert_eq!(edit(&text, Some(two)), format!("{text}        - member2\n"));
        // And back: member2's line goes, the rest is untouched.
        assert_eq!(
            edit(
                &format!("{text}        - member2\n"),
                Some(r#"{"dispatchingOnClusters":{"clusterNames":["member1"]}}"#)
            ),
            text
        );
        // A value changes in place, its comment kept; a new field comes first.
        let flag = format!("{head}    dispatching: false   # off for now\n");
        assert_eq!(
            edit(&flag, Some(r#"{"dispatching":true}"#)),
            format!("{head}    dispatching: true   # off for now\n")
        );
        assert_eq!(
            edit(
                &text,
                Some(
                    r#"{"dispatching":true,"dispatchingOnClusters":{"clusterNames":["member1"]}}"#
                )
            ),
            format!("{head}    dispatching: true\n{block}")
        );
        // A flow collection is rewritten in place, the line's comment kept.
        let flow = format!("{head}    dispatchingOnClusters: {{clusterNames: [member1]}}  # why\n");
        assert_eq!(
            edit(&flow, Some(two)),
            format!(
                "{head}    dispatchingOnClusters: {{clusterNames: [member1, member2]}}  # why\n"
            )
        );
        // An entry that goes takes its lines; a comment line of the user's stays.
        assert_eq!(
            edit(&text, Some(r#"{"dispatching":true}"#)),
            format!("{head}    dispatching: true\n    # only member1\n")
        );
    }

    #[test]
    fn inserts_suspension_after_spec_keeping_everything_else() {
        let out = edit(POLICY, Some(r#"{"dispatching":true}"#));
        assert_eq!(
            out,
            POLICY.to_string() + "  suspension:\n    dispatching: true\n"
        );
    }

    #[test]
    fn replaces_only_the_suspension_lines() {
        let text = "spec:\n    suspension:\n        dispatching: true\n    priority: 3 # keep\n";
        let out = edit(
            text,
            Some(r#"{"dispatchingOnClusters":{"clusterNames":["m2","m3"]}}"#),
        );
        assert_eq!(
            out,
            "spec:\n    suspension:\n        dispatchingOnClusters:\n            clusterNames:\n                - m2\n                - m3\n    priority: 3 # keep\n"
        );
    }

    #[test]
    fn zero_indented_sequences_and_quotes_are_kept() {
        let text = "spec:\n  resourceSelectors:\n  - kind: A\n  suspension:\n    dispatchingOnClusters:\n      clusterNames:\n      - \"m1\"\n";
        let out = edit(
            text,
            Some(r#"{"dispatchingOnClusters":{"clusterNames":["m1","m2"]}}"#),
        );
        assert_eq!(
            out,
            "spec:\n  resourceSelectors:\n  - kind: A\n  suspension:\n    dispatchingOnClusters:\n      clusterNames:\n      - \"m1\"\n      - \"m2\"\n"
        );
    }

    #[test]
    fn removes_the_entry_and_only_it() {
        let text = "spec:\n  suspension:\n    dispatching: true\n  priority: 1\n";
        assert_eq!(edit(text, None), "spec:\n  priority: 1\n");
        let text = "spec:\n  priority: 1\n  suspension: {dispatching: true}\n";
        assert_eq!(edit(text, None), "spec:\n  priority: 1\n");
    }

    #[test]
    fn flow_suspension_stays_flow() {
        let text = "spec:\n  suspension: {dispatching: true}  # paused\n";
        assert_eq!(
            edit(
                text,
                Some(r#"{"dispatchingOnClusters":{"clusterNames":["a"]}}"#)
            ),
            "spec:\n  suspension: {dispatchingOnClusters: {clusterNames: [a]}}  # paused\n"
        );
    }

    #[test]
    fn crlf_and_missing_final_newline() {
        let text = "spec:\r\n  priority: 1";
        assert_eq!(
            edit(text, Some(r#"{"dispatching":true}"#)),
            "spec:\r\n  priority: 1\r\n  suspension:\r\n    dispatching: true"
        );
    }

    #[test]
    fn unchanged_text_gives_no_edit() {
        let text = "spec:\n  suspension:\n    dispatching: true\n";
        let loaded = load(Source::new("t.yaml", text));
        let new: Suspension = serde_json::from_str(r#"{"dispatching":true}"#).unwrap();
        assert_eq!(
            suspension_edit(text, &loaded.documents[0].root, Some(&new)).unwrap(),
            None
        );
    }

    #[test]
    fn names_that_need_quotes_are_quoted() {
        assert_eq!(scalar("member1", None), "member1");
        assert_eq!(scalar("yes", None), "\"yes\"");
        assert_eq!(scalar("123", None), "\"123\"");
        assert_eq!(scalar("a'b", Some('\'')), "'a''b'");
    }

    #[test]
    fn flow_spec_is_refused() {
        let text = "spec: {priority: 1}\n";
        let loaded = load(Source::new("t.yaml", text));
        let new = Suspension::default();
        assert!(suspension_edit(text, &loaded.documents[0].root, Some(&new)).is_err());
    }

    fn ann(text: &str, value: Option<&str>) -> String {
        let loaded = load(Source::new("t.yaml", text));
        let root = &loaded.documents[0].root;
        match annotation_edit(text, root, "karmada-policy.io/freeze", value).unwrap() {
            Some(e) => apply(text, &[e]),
            None => text.to_string(),
        }
    }

    #[test]
    fn annotation_is_inserted_replaced_and_removed_in_place() {
        let text = "metadata:\n  name: a # keep\n  labels:\n    x: y\nspec:\n  priority: 1\n";
        let with = ann(text, Some(r#"{"m2":{"at":"t"}}"#));
        assert_eq!(
            with,
            "metadata:\n  name: a # keep\n  labels:\n    x: y\n  annotations:\n    karmada-policy.io/freeze: '{\"m2\":{\"at\":\"t\"}}'\nspec:\n  priority: 1\n"
        );
        // Replaced on its line; removed together with the `annotations:` it created.
        let replaced = ann(&with, Some("it's"));
        assert!(
            replaced.contains("    karmada-policy.io/freeze: 'it''s'\nspec:"),
            "{replaced}"
        );
        assert_eq!(ann(&with, None), text);
        assert_eq!(ann(text, None), text);
    }

    #[test]
    fn annotation_joins_existing_annotations_and_leaves_them() {
        let text = "metadata:\n    annotations:\n        a: \"1\"   # note\n    name: x\n";
        let with = ann(text, Some("v"));
        assert_eq!(
            with,
            "metadata:\n    annotations:\n        a: \"1\"   # note\n        karmada-policy.io/freeze: 'v'\n    name: x\n"
        );
        assert_eq!(ann(&with, None), text);
        let flow = "metadata: {name: x}\n";
        let loaded = load(Source::new("t.yaml", flow));
        assert!(annotation_edit(flow, &loaded.documents[0].root, "k", Some("v")).is_err());
    }

    #[test]
    fn an_edit_that_breaks_an_alias_is_refused() {
        let before = "spec:\n  suspension: &s {dispatching: true}\nother: *s\n";
        let dangling = "spec:\n  suspension: {dispatching: false}\nother: *s\n";
        assert!(verify(before, dangling, Some(&[0])).is_err());
        let changed = "spec:\n  suspension: &s {dispatching: false}\nother: *s\n";
        assert!(verify(before, changed, Some(&[0])).is_err());
        let fine = "spec:\n  suspension: {dispatching: false}\nother: 1\n";
        assert!(verify("spec: {}\nother: 1\n", fine, Some(&[0])).is_ok());
    }

    fn listed(text: &str) -> String {
        let loaded = load(Source::new("kustomization.yaml", text));
        let e = patch_list_edit(text, &loaded.documents[0].root, &["p.yaml".into()]).unwrap();
        apply(text, &[e])
    }

    #[test]
    fn a_new_patch_is_listed_in_the_kustomization_s_own_style() {
        // No `patches:` yet: added at the end, items indented as `resources` has them.
        assert_eq!(
            listed("resources:\n  - ../base # shared\n"),
            "resources:\n  - ../base # shared\npatches:\n  - path: p.yaml\n"
        );
        assert_eq!(
            listed("resources:\n- ../base"),
            "resources:\n- ../base\npatches:\n- path: p.yaml\n"
        );
        // After the last entry, even one ending in a block scalar, before trailing comments.
        assert_eq!(
            listed("patches:\n- patch: |-\n    - op: add\n\n# end\nnamePrefix: a-\n"),
            "patches:\n- patch: |-\n    - op: add\n- path: p.yaml\n\n# end\nnamePrefix: a-\n"
        );
        assert_eq!(listed("patches: []\n"), "patches: [{path: p.yaml}]\n");
        assert_eq!(
            listed("patches: [{path: a.yaml}]\n"),
            "patches: [{path: a.yaml}, {path: p.yaml}]\n"
        );
        assert_eq!(
            listed("patches: # none yet\nkind: Kustomization\n"),
            "patches: # none yet\n  - path: p.yaml\nkind: Kustomization\n"
        );
    }

    #[test]
    fn removing_the_only_entry_of_spec_leaves_an_empty_mapping_not_a_null() {
        // `spec:` alone is null, which a strategic merge reads as deleting the base's spec.
        assert_eq!(
            edit(
                "kind: PropagationPolicy\nspec: # patch\n  suspension:\n    dispatching: true\n",
                None
            ),
            "kind: PropagationPolicy\nspec: {} # patch\n"
        );
        assert_eq!(
            edit(
                "spec:\n  suspension: {dispatching: true}\nmetadata: {}\n",
                None
            ),
            "spec: {}\nmetadata: {}\n"
        );
    }

    #[test]
    fn a_new_patch_names_the_policy_and_sets_only_the_suspension() {
        let id = PatchIdentity {
            api_version: "policy.karmada.io/v1alpha1".into(),
            kind: "ClusterPropagationPolicy".into(),
            name: "yes".into(),
            namespace: None,
        };
        let s: Suspension =
            serde_json::from_str(r#"{"dispatchingOnClusters":{"clusterNames":["m1"]}}"#).unwrap();
        let text = new_patch_text(&id, &s);
        assert!(text.ends_with("kind: ClusterPropagationPolicy\nmetadata:\n  name: \"yes\"\nspec:\n  suspension:\n    dispatchingOnClusters:\n      clusterNames:\n        - m1\n"), "{text}");
        assert!(verify_created(&text).is_ok());
        assert!(verify_created("a: [\n").is_err());
    }

    #[test]
    fn diff_has_headers_and_hunks() {
        let d = unified_diff("p.yaml", "a\nb\n", "a\nc\n");
        assert!(d.contains("--- a/p.yaml"), "{d}");
        assert!(d.contains("-b\n+c\n"), "{d}");
        let d = created_diff("n.yaml", "a\n");
        assert!(d.starts_with("--- /dev/null\n+++ b/n.yaml\n"), "{d}");
    }
    #[test]
    fn a_spent_patch_is_ours_and_holds_only_the_identity() {
        let id = PatchIdentity {
            api_version: "policy.karmada.io/v1alpha1".into(),
            kind: "PropagationPolicy".into(),
            name: "web".into(),
            namespace: Some("web".into()),
        };
        let text = new_patch_text(&id, &Suspension::default());
        let header = text.lines().next().unwrap();
        let spent = format!("{header}\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\n  namespace: web\nspec: {{}}\n");
        assert!(is_spent_patch(&spent), "{spent}");
        assert!(!is_spent_patch(
            &spent.replace("spec: {}", "spec: {priority: 1}")
        ));
        assert!(!is_spent_patch(&spent.replacen(header, "# mine", 1)));
        let annotated = spent.replace(
            "  namespace: web\n",
            "  namespace: web\n  annotations: {a: b}\n",
        );
        assert!(!is_spent_patch(&annotated));
    }

    #[test]
    fn unlisting_takes_the_entry_and_an_empty_patches_key_away() {
        use crate::source::{load, Source};
        let unlist = |text: &str| {
            let root = load(Source::new("k", text)).documents[0].root.clone();
            let edits = patch_unlist_edit(text, &root, &["s.yaml".to_string()]).unwrap();
            apply(text, &edits)
        };
        assert_eq!(
            unlist("resources: [a]\npatches:\n  - path: s.yaml\n"),
            "resources: [a]\n"
        );
        assert_eq!(
            unlist("patches:\n- path: o.yaml\n- path: s.yaml\nnamePrefix: p-\n"),
            "patches:\n- path: o.yaml\nnamePrefix: p-\n"
        );
        let flow = "patches: [{path: s.yaml}]\n";
        let root = load(Source::new("k", flow)).documents[0].root.clone();
        assert!(patch_unlist_edit(flow, &root, &["s.yaml".to_string()]).is_err());
    }
}
