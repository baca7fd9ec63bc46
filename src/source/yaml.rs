//! YAML (and JSON, a subset of it) to positioned [`Document`]s.
//!
//! We drive `saphyr-parser`'s event stream ourselves instead of deserializing with serde, because
//! a linter needs the line and column of every key and value (serde_yaml only has them on errors)
//! and has to keep going after a bad document. Scalars resolve the way the Kubernetes API
//! machinery (sigs.k8s.io/yaml, YAML 1.1 rules) resolves them, so `on`, `yes` and `~` mean what
//! `kubectl apply` would send.

use std::collections::HashMap;
use std::sync::Arc;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span as PSpan, Tag};

use super::document::{Document, Entry, Node, Pos, Source, Span, Value};

/// Something wrong with the text itself, found while loading (before any Karmada rule runs).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadProblem {
    pub kind: ProblemKind,
    pub span: Span,
    pub message: String,
    /// A second place that explains the problem (the first of two duplicate keys).
    pub related: Option<(Span, String)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// The text is not valid YAML; the document is skipped.
    Syntax,
    /// The same key twice in one mapping; the API server keeps the last one.
    DuplicateKey,
    /// Unrendered `{{ }}` / `${}` templating made the document unparsable.
    Templating,
    /// A document that is not a mapping (a list or a scalar at the top).
    NotAnObject,
}

impl ProblemKind {
    /// Whether a document that may be an object was left out (a duplicate key keeps the
    /// document; a list or a scalar is no object).
    pub fn skips_an_object(self) -> bool {
        matches!(self, ProblemKind::Syntax | ProblemKind::Templating)
    }
}

/// The result of loading one source: its documents and what was wrong with the text.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub source: Arc<Source>,
    pub documents: Vec<Document>,
    pub problems: Vec<LoadProblem>,
    /// Documents that are data, not objects (see [`is_data`]): a values file, a dashboard, a
    /// schema. They are skipped, with one note per file; a data mapping is still among
    /// `documents` (counted, never typed), a list or scalar is not.
    pub data: Vec<Span>,
}

impl Loaded {
    /// Whether the file holds a Kubernetes object: a mapping that is not [data](is_data).
    pub fn holds_objects(&self) -> bool {
        self.documents
            .iter()
            .any(|d| d.root.as_map().is_some() && !is_data(&d.root))
    }
}

/// Parses every document of `source`. Never panics: a broken document becomes a problem and
/// the documents after it are still loaded.
pub fn load(source: Arc<Source>) -> Loaded {
    let mut out = Loaded {
        source: source.clone(),
        documents: Vec::new(),
        problems: Vec::new(),
        data: Vec::new(),
    };
    // Fast path: the whole stream at once. Only when it fails do we split the text at document
    // markers and parse each piece, so one bad document does not hide the others. (A piece of
    // a larger input numbers its lines as the input does.)
    let before = source.lines_before();
    match parse_stream(source.text(), before) {
        Ok((roots, problems)) => {
            out.problems.extend(problems);
            push_roots(&mut out, roots);
        }
        Err(_) => {
            for chunk in split_documents(source.text()) {
                let chunk = Chunk {
                    first_line: chunk.first_line + before,
                    ..chunk
                };
                match parse_stream(chunk.text, chunk.first_line) {
                    Ok((roots, problems)) => {
                        out.problems.extend(problems);
                        push_roots(&mut out, roots);
                    }
                    Err(StreamError::Scan(err)) => out.problems.push(syntax_problem(&chunk, &err)),
                    Err(StreamError::Limit(problem)) => out.problems.push(problem),
                }
            }
        }
    }
    out
}

/// Deepest nesting of collections (block or flow) in a document. The parser's own limit on
/// flow nesting is 255 levels and block nesting has none, while the tree walks below recurse
/// once per level: a 35 KB file of `- - - ...` overflowed the stack. No Kubernetes object
/// comes near this (a CRD's openAPIV3Schema is a few dozen levels deep).
pub const MAX_DEPTH: usize = 200;

/// Nodes that aliases of one document may add, whatever its size: with the ratio below this
/// bounds the memory a document's aliases can take (a node is well under 100 bytes).
pub const MAX_ALIAS_NODES: u64 = 1_000_000;

/// Why parsing a stream stopped: the text is not YAML, or a document went past a limit.
enum StreamError {
    Scan(ScanError),
    Limit(LoadProblem),
}

impl From<ScanError> for StreamError {
    fn from(e: ScanError) -> StreamError {
        StreamError::Scan(e)
    }
}

/// The share of a document's nodes that may come from aliases, as go-yaml (behind kubectl)
/// allows it: 99% up to 400,000 nodes, falling to 10% at 4,000,000, so ordinary reuse of
/// anchors passes and a "billion laughs" file is "excessive aliasing" long before it costs
/// memory.
fn allowed_alias_ratio(decoded: u64) -> f64 {
    const LOW: f64 = 400_000.0;
    const HIGH: f64 = 4_000_000.0;
    let n = decoded as f64;
    if n <= LOW {
        0.99
    } else if n >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * (n - LOW) / (HIGH - LOW)
    }
}

/// Whether a document of `decoded` nodes, `aliased` of them from aliases, aliases too much.
fn excessive_aliasing(decoded: u64, aliased: u64) -> bool {
    aliased > MAX_ALIAS_NODES
        || (aliased > 100
            && decoded > 1000
            && aliased as f64 / decoded as f64 > allowed_alias_ratio(decoded))
}

/// How many nodes `node` is (itself, keys and values below it): what an alias of it adds.
fn node_count(node: &Node) -> u64 {
    1 + match &node.value {
        Value::Seq(items) => items.iter().map(node_count).sum(),
        Value::Map(entries) => entries
            .iter()
            .map(|e| node_count(&e.key) + node_count(&e.value))
            .sum(),
        _ => 0,
    }
}

fn push_roots(out: &mut Loaded, roots: Vec<Node>) {
    for root in roots {
        match &root.value {
            Value::Null => continue, // empty document, e.g. a trailing `---`
            Value::Map(_) => {
                if is_data(&root) {
                    mark_data(out, root.span);
                }
            }
            _ if is_data(&root) => {
                mark_data(out, root.span);
                continue;
            }
            _ => {
                out.problems.push(LoadProblem {
                    kind: ProblemKind::NotAnObject,
                    span: root.span,
                    message: "document is not a Kubernetes object (expected a mapping with apiVersion and kind)"
                        .into(),
                    related: None,
                });
                continue;
            }
        }
        // `name: {{ .Values.name }}` is valid YAML (a flow mapping used as a key): such a
        // document is a template, not an object, and linting it would only confuse.
        if let Some(span) = find_complex_key(&root) {
            let line = out.source.line(span.start.line).unwrap_or("");
            let (span, snippet) = match find_templating(line) {
                Some((_, col, text)) => (Span::of_text(span.start.line, col, &text), text),
                None => (span, "{{ }}".to_string()),
            };
            out.problems.push(LoadProblem {
                kind: ProblemKind::Templating,
                span,
                message: format!(
                    "unrendered template `{snippet}`: render the file (helm template, kustomize build, envsubst) before linting it; this document was skipped"
                ),
                related: None,
            });
            continue;
        }
        // `kind: List` (what `kubectl get -o yaml` prints) holds its objects under `items`.
        if is_list(&root) {
            if let Some(items) = root.get("items").and_then(Node::as_seq) {
                for item in items.iter().filter(|i| i.as_map().is_some()) {
                    let index = out.documents.len();
                    out.documents
                        .push(Document::new(out.source.clone(), index, item.clone()));
                }
                continue;
            }
        }
        let index = out.documents.len();
        out.documents
            .push(Document::new(out.source.clone(), index, root));
    }
}

/// The first mapping key that is itself a mapping or sequence (never valid in a Kubernetes object).
fn find_complex_key(node: &Node) -> Option<Span> {
    match &node.value {
        Value::Map(entries) => entries.iter().find_map(|e| {
            if matches!(e.key.value, Value::Map(_) | Value::Seq(_)) {
                Some(e.key.span)
            } else {
                find_complex_key(&e.value)
            }
        }),
        Value::Seq(items) => items.iter().find_map(find_complex_key),
        _ => None,
    }
}

/// Records the document at `span` as data, and drops the duplicate keys found in it: what the
/// API server keeps of a duplicated key is an object's concern, and a data file (mkdocs.yml, a
/// values file, a dashboard) is read by its own tool, which may even accept them.
fn mark_data(out: &mut Loaded, span: Span) {
    out.problems.retain(|p| {
        p.kind != ProblemKind::DuplicateKey || p.span.start < span.start || p.span.start > span.end
    });
    out.data.push(span);
}

/// Whether a document is data rather than a Kubernetes object: a mapping with none of
/// `apiVersion`, `kind` and `metadata` at the top (a Helm values file, a Grafana dashboard, a
/// JSON schema), a scalar, or a list none of whose items is a mapping with `apiVersion` or
/// `kind`. A list of objects (a forgotten `kind: List`) is an object gone wrong, not data.
pub fn is_data(root: &Node) -> bool {
    let object_like = |n: &Node| {
        n.as_map().is_some()
            && (n.get("apiVersion").is_some()
                || n.get("kind").is_some()
                || n.get("metadata").is_some())
    };
    match &root.value {
        Value::Map(_) => !object_like(root),
        Value::Seq(items) => !items.iter().any(|i| {
            i.as_map().is_some() && (i.get("apiVersion").is_some() || i.get("kind").is_some())
        }),
        Value::Null => false,
        _ => true,
    }
}

/// Files holding data documents named one by one in a run's notes; more are counted (a source
/// repository lists its test data and settings files by the hundred), and `-v=1` names each.
const DATA_NOTES_NAMED: usize = 5;

/// The notes for the files of a run holding data documents: one per file, the first
/// five and then one counting the rest (every one from `-v=1` on).
pub fn data_notes<'a>(loaded: impl IntoIterator<Item = &'a Loaded>) -> Vec<String> {
    let every = crate::kube::trace::verbosity() >= 1;
    let mut notes: Vec<String> = loaded.into_iter().filter_map(data_note).collect();
    if !every && notes.len() > DATA_NOTES_NAMED + 1 {
        let more = notes.len() - DATA_NOTES_NAMED;
        notes.truncate(DATA_NOTES_NAMED);
        notes.push(format!(
            "{more} more files hold documents that are not Kubernetes objects (no apiVersion/kind): skipped (-v=1 names each)"
        ));
    }
    notes
}

/// The note for a file holding data documents (`None` when it has none): one per file.
pub fn data_note(l: &Loaded) -> Option<String> {
    let first = l.data.first()?;
    // Data mappings are among the documents; any other document, or a problem, is an object.
    let mappings = l
        .documents
        .iter()
        .filter(|d| l.data.contains(&d.root.span))
        .count();
    let objects = l.documents.len() - mappings + l.problems.len() > 0;
    Some(if objects {
        let what = match l.data.len() {
            1 => "a document is not a Kubernetes object".to_string(),
            n => format!("{n} documents are not Kubernetes objects"),
        };
        format!(
            "{}:{}: {what} (no apiVersion/kind): skipped",
            l.source.name, first.start.line
        )
    } else {
        format!(
            "{}: not a Kubernetes object (no apiVersion/kind): skipped",
            l.source.name
        )
    })
}

fn is_list(root: &Node) -> bool {
    let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
    kind == "List" || (kind.ends_with("List") && root.get("items").is_some())
}

struct Chunk<'a> {
    text: &'a str,
    /// 0-based line of the chunk's first line in the whole text.
    first_line: u32,
}

/// Splits at lines that start a document (`---`), for error recovery only.
fn split_documents(text: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut start_line = 0u32;
    let mut offset = 0usize;
    for (line_no, line) in text.split_inclusive('\n').enumerate() {
        let is_marker =
            line.starts_with("---") && line[3..].chars().next().is_none_or(|c| c.is_whitespace());
        if is_marker && offset > start {
            chunks.push(Chunk {
                text: &text[start..offset],
                first_line: start_line,
            });
            start = offset;
            start_line = line_no as u32;
        }
        offset += line.len();
    }
    if start < text.len() {
        chunks.push(Chunk {
            text: &text[start..],
            first_line: start_line,
        });
    }
    chunks
}

/// Where in `text` the parser stopped with `err`: 1-based line and column. At the end of the
/// input the parser's marker can sit on a line past the last one (found by fuzzing): then the
/// end of the last line, so the place stays inside the text.
fn scan_error_place(text: &str, err: &ScanError) -> (u32, u32) {
    let m = err.marker();
    let lines = text.lines().count().max(1) as u32;
    if m.line() as u32 > lines {
        let last = text.lines().last().unwrap_or("");
        (lines, last.chars().count() as u32 + 1)
    } else {
        (m.line() as u32, m.col() as u32 + 1)
    }
}

/// The scanner's reason for `err`, readable.
fn scan_error_reason(err: &ScanError) -> String {
    // The scanner's flow-level counter is a byte: past 255 levels it gives up with this.
    match err.info() {
        "recursion limit exceeded" => "nesting deeper than 255 flow levels".to_string(),
        info => unexpected_character(info).unwrap_or_else(|| info.to_string()),
    }
}

fn syntax_problem(chunk: &Chunk<'_>, err: &ScanError) -> LoadProblem {
    let (line, col) = scan_error_place(chunk.text, err);
    let span = Span::point(line + chunk.first_line, col);
    // Flux variables (`${var}`) are plain YAML scalars: a document holding only them that
    // still does not parse once they are replaced by plain text has a real syntax error, at
    // the place the parser finds it then. (Helm's `{{ }}` shapes the YAML itself, so there the
    // template stays the likely cause.)
    let only_variables = !chunk.text.contains("{{");
    if only_variables && find_templating(chunk.text).is_some() {
        let plain = without_variables(chunk.text);
        if let Err(StreamError::Scan(e)) = parse_stream(&plain, 0) {
            let Chunk { first_line, .. } = *chunk;
            return syntax_problem(
                &Chunk {
                    text: &plain,
                    first_line,
                },
                &e,
            );
        }
    }
    if let Some((line, col, snippet)) = find_templating(chunk.text) {
        return LoadProblem {
            kind: ProblemKind::Templating,
            span: Span::of_text(line + chunk.first_line, col, &snippet),
            message: format!(
                "unrendered template `{snippet}`: render the file (helm template, kustomize build, envsubst) before linting it; this document was skipped"
            ),
            related: None,
        };
    }
    let what = scan_error_reason(err);
    LoadProblem {
        kind: ProblemKind::Syntax,
        span,
        message: format!("invalid YAML: {what}; this document was skipped"),
        related: None,
    }
}

/// The scanner's "unexpected character: `c'" (libyaml's quoting, unreadable when `c` is itself
/// a backtick or a quote) as the character's Rust-quoted form and its code point.
fn unexpected_character(info: &str) -> Option<String> {
    let quoted = info
        .strip_prefix("unexpected character: `")?
        .strip_suffix('\'')?;
    let mut chars = quoted.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    Some(format!(
        "unexpected character {c:?} (U+{:04X}), which cannot start a YAML token",
        u32::from(c)
    ))
}

/// `text` with every `${...}` replaced by as many `x` as it has characters, so positions stay.
fn without_variables(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail.find(['}', '\n']).map_or(tail.len(), |e| {
            if tail.as_bytes()[e] == b'}' {
                e + 1
            } else {
                e
            }
        });
        out.extend(tail[..end].chars().map(|_| 'x'));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The first `{{ ... }}` or `${...}` outside a comment: (1-based line, 1-based column, text).
pub fn find_templating(text: &str) -> Option<(u32, u32, String)> {
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        for pat in ["{{", "${"] {
            // `$${var}` is Flux's escape for a literal `${var}`, not a template.
            let found = line
                .match_indices(pat)
                .map(|(i, _)| i)
                .find(|&i| pat != "${" || i == 0 || line.as_bytes()[i - 1] != b'$');
            if let Some(byte) = found {
                let close = if pat == "{{" { "}}" } else { "}" };
                let rest = &line[byte..];
                let end = rest.find(close).map_or(rest.len(), |e| e + close.len());
                let col = line[..byte].chars().count() as u32 + 1;
                return Some((i as u32 + 1, col, rest[..end].to_string()));
            }
        }
    }
    None
}

type ParseOutput = (Vec<Node>, Vec<LoadProblem>);

/// Every document of `text` as a tree, whatever its shape (a JSON6902 patch is a list); none if
/// the text does not parse.
pub fn parse_roots(text: &str) -> Vec<Node> {
    try_parse_roots(text).unwrap_or_default()
}

/// Why a text is not YAML: the 1-based line where the parser stopped (or the limit a document
/// went past), and the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct SyntaxError {
    pub line: u32,
    pub reason: String,
}

/// Every document of `text` as a tree, as [`parse_roots`], or why the text is not YAML.
pub fn try_parse_roots(text: &str) -> Result<Vec<Node>, SyntaxError> {
    match parse_stream(text, 0) {
        Ok((roots, _)) => Ok(roots),
        Err(StreamError::Scan(e)) => Err(SyntaxError {
            line: scan_error_place(text, &e).0,
            reason: scan_error_reason(&e),
        }),
        Err(StreamError::Limit(problem)) => Err(SyntaxError {
            line: problem.span.start.line,
            reason: limit_reason(&problem.message),
        }),
    }
}

/// The reason of a limit's problem, without the words that say how the loader goes on.
fn limit_reason(message: &str) -> String {
    let reason = message.strip_prefix("invalid YAML: ").unwrap_or(message);
    reason
        .strip_suffix("; this document was skipped")
        .unwrap_or(reason)
        .to_string()
}

impl Document {
    /// The whole tree: `root`, or for a partial document the tree parsed again from the lines
    /// it spans in its source, with its original positions. Should that fail (the text is not
    /// what was parsed), the partial root, so a finding still points into the document.
    /// (Here, beside the parser, so that the document model does not import it.)
    pub fn full_tree(&self) -> std::borrow::Cow<'_, Node> {
        use std::borrow::Cow;
        if self.partial.is_none() {
            return Cow::Borrowed(&self.root);
        }
        match reparse(&self.source, self.root.span) {
            Some(tree) => Cow::Owned(tree),
            None => Cow::Borrowed(&self.root),
        }
    }
}

/// The mapping at `span` of `source` parsed again from the lines it spans: the whole tree of a
/// document whose tree was let go. `None` when those lines no longer hold that mapping.
pub fn reparse(source: &Source, span: Span) -> Option<Node> {
    let text = source.lines(span.start.line, span.end.line)?;
    let (roots, _) = parse_stream(text, span.start.line - 1).ok()?;
    roots.into_iter().find_map(|root| take_at(root, span))
}

/// The mapping whose span is `span`, searched among `node` and its descendants (a `kind: List`
/// item sits inside a sequence).
fn take_at(node: Node, span: Span) -> Option<Node> {
    if node.span == span && matches!(node.value, Value::Map(_)) {
        return Some(node);
    }
    let inside = |n: &Node| n.span.start <= span.start && span.end <= n.span.end;
    match node.value {
        Value::Seq(items) => items
            .into_iter()
            .filter(inside)
            .find_map(|n| take_at(n, span)),
        Value::Map(entries) => entries
            .into_iter()
            .map(|e| e.value)
            .filter(inside)
            .find_map(|n| take_at(n, span)),
        _ => None,
    }
}

/// Parses a stream into its roots; stops at the first syntax error or document past a limit
/// (the caller then parses document by document, so the others are still checked).
fn parse_stream(text: &str, line_offset: u32) -> Result<ParseOutput, StreamError> {
    if let Some(problem) = disallowed_character(text, line_offset) {
        return Err(StreamError::Limit(problem));
    }
    let mut adapted: Option<String> = None;
    for _ in 0..MAX_QUOTED_SCALAR_FIXES {
        let current = adapted.as_deref().unwrap_or(text);
        match build(current, line_offset) {
            Err(StreamError::Scan(e)) if e.info() == QUOTED_SCALAR_INDENTATION => {
                match indent_quoted_scalar(current, e.marker()) {
                    Some(fixed) => adapted = Some(fixed),
                    None => return Err(StreamError::Scan(e)),
                }
            }
            done => return done,
        }
    }
    build(adapted.as_deref().unwrap_or(text), line_offset)
}

fn build(text: &str, line_offset: u32) -> Result<ParseOutput, StreamError> {
    let mut b = Builder {
        line_offset,
        stack: Vec::new(),
        anchors: HashMap::new(),
        roots: Vec::new(),
        problems: Vec::new(),
        decoded: 0,
        aliased: 0,
    };
    for item in Parser::new_from_str(text) {
        let (event, span) = item?;
        b.event(event, span).map_err(StreamError::Limit)?;
    }
    Ok((b.roots, b.problems))
}

/// The parser's refusal of a quoted scalar whose continuation lines are indented less than the
/// block it is in. go-yaml, which reads manifests for kubectl, Argo CD and Flux, has no such
/// check (yaml.v2 and yaml.v3 `scannerc.go`, `yaml_parser_scan_flow_scalar`: only a document
/// indicator at column 0 ends a quoted scalar early), nor has libyaml: the file is applied.
const QUOTED_SCALAR_INDENTATION: &str = "invalid indentation in quoted scalar";

/// How many such scalars one stream may hold before the refusal is reported: each one costs a
/// parse of the stream.
const MAX_QUOTED_SCALAR_FIXES: usize = 64;

/// `text` with the continuation lines of the quoted scalar opening at `at` indented to its
/// opening quote's column, so that the parser takes what go-yaml takes. The scalar's value is
/// the same: leading white space of a quoted scalar's continuation line is folded away (YAML
/// 1.2 §7.3, `s-flow-line-prefix`). Lines keep their numbers; only what follows the closing
/// quote on its line moves right. `None` when the scalar does not close, or a continuation
/// line starts with a document marker (go-yaml refuses that too).
fn indent_quoted_scalar(text: &str, at: &saphyr_parser::Marker) -> Option<String> {
    let line_start = line_offset_of(text, at.line())?;
    let quote_at = line_start
        + text[line_start..]
            .char_indices()
            .nth(at.col())
            .map(|(i, _)| i)?;
    let quote = text[quote_at..].chars().next()?;
    if quote != '\'' && quote != '"' {
        return None;
    }
    let column = at.col();
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(&text[..=quote_at]);
    let mut rest = text[quote_at + 1..].char_indices().peekable();
    let body = &text[quote_at + 1..];
    let mut at_line_start = false;
    while let Some((i, c)) = rest.next() {
        if at_line_start {
            at_line_start = false;
            let line = &body[i..];
            let lead = line.chars().take_while(|c| *c == ' ' || *c == '\t').count();
            let marker = line.starts_with("---") || line.starts_with("...");
            if marker && line[3..].chars().next().is_none_or(char::is_whitespace) {
                return None;
            }
            if lead < column && !matches!(c, '\n' | '\r') {
                out.extend(std::iter::repeat_n(' ', column - lead));
            }
        }
        out.push(c);
        match c {
            '\n' => at_line_start = true,
            '\\' if quote == '"' => {
                if let Some((_, escaped)) = rest.next() {
                    out.push(escaped);
                    at_line_start = escaped == '\n';
                }
            }
            '\'' if quote == '\'' => {
                if rest.peek().is_some_and(|(_, n)| *n == '\'') {
                    rest.next();
                    out.push('\'');
                } else {
                    out.push_str(&body[i + 1..]);
                    return Some(out);
                }
            }
            '"' if quote == '"' => {
                out.push_str(&body[i + 1..]);
                return Some(out);
            }
            _ => {}
        }
    }
    None
}

/// The byte offset where 1-based line `line` of `text` starts.
fn line_offset_of(text: &str, line: usize) -> Option<usize> {
    if line <= 1 {
        return Some(0);
    }
    text.match_indices('\n').nth(line - 2).map(|(i, _)| i + 1)
}

/// Whether go-yaml's reader (behind kubectl and sigs.k8s.io/yaml) accepts `c` anywhere in a
/// stream: TAB, LF, CR, the printable ASCII range, NEL and the printable Unicode ranges
/// (yaml.v2 and yaml.v3 readerc.go, `yaml_parser_update_buffer`). Every other character is
/// "control characters are not allowed", whatever it sits in: a plain or quoted scalar, a key,
/// a comment.
fn yaml_allows(c: char) -> bool {
    matches!(c as u32,
        0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
}

/// The first character of `text` go-yaml's reader refuses, as the syntax problem kubectl
/// reports (`yaml: control characters are not allowed`), at its line and column.
fn disallowed_character(text: &str, line_offset: u32) -> Option<LoadProblem> {
    // Bytes first: every refused character starts with a byte below 0x20, 0x7F, 0xC2 (C1) or
    // 0xEF (U+FFFE, U+FFFF), so ordinary text is passed over without decoding.
    let suspect = |b: &u8| {
        (*b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || matches!(b, 0x7F | 0xC2 | 0xEF)
    };
    let bytes = text.as_bytes();
    let mut from = 0;
    let (at, c) = loop {
        let i = from + bytes[from..].iter().position(suspect)?;
        let c = text[i..].chars().next()?;
        if !yaml_allows(c) {
            break (i, c);
        }
        from = i + c.len_utf8();
    };
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = text[..at].matches('\n').count() as u32 + 1 + line_offset;
    let col = text[line_start..at].chars().count() as u32 + 1;
    Some(LoadProblem {
        kind: ProblemKind::Syntax,
        // The character itself, so the carets cover its escape.
        span: Span {
            start: Pos { line, col },
            end: Pos { line, col: col + 1 },
        },
        message: format!(
            "invalid YAML: control characters are not allowed (U+{:04X}); this document was skipped",
            c as u32
        ),
        related: None,
    })
}

enum Frame {
    Seq {
        items: Vec<Node>,
        start: Pos,
        anchor: usize,
    },
    Map {
        entries: Vec<Entry>,
        /// `<<` merge sources, applied when the mapping ends (explicit keys win).
        merges: Vec<Node>,
        key: Option<Node>,
        start: Pos,
        anchor: usize,
    },
}

struct Builder {
    line_offset: u32,
    stack: Vec<Frame>,
    /// Anchored nodes of the current document and how many nodes each is.
    anchors: HashMap<usize, (Node, u64)>,
    roots: Vec<Node>,
    problems: Vec<LoadProblem>,
    /// Nodes of the current document, those its aliases added included.
    decoded: u64,
    /// Nodes the current document's aliases added.
    aliased: u64,
}

impl Builder {
    fn pos(&self, m: &saphyr_parser::Marker) -> Pos {
        Pos {
            line: m.line() as u32 + self.line_offset,
            col: m.col() as u32 + 1,
        }
    }

    fn span(&self, s: &PSpan) -> Span {
        Span {
            start: self.pos(&s.start),
            end: self.pos(&s.end),
        }
    }

    /// Builds on the tree with one event; a document past a limit is an `Err` (at the place
    /// that went past it) and parsing stops there, so memory and stack stay bounded.
    fn event(&mut self, event: Event<'_>, span: PSpan) -> Result<(), LoadProblem> {
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                self.decoded += 1;
                let merge_key = style == ScalarStyle::Plain && text == "<<";
                let value = resolve_scalar(&text, style, tag.as_deref());
                let node = Node::new(value, self.span(&span));
                if anchor > 0 {
                    self.anchors.insert(anchor, (node.clone(), 1));
                }
                self.push(node, merge_key);
            }
            Event::Alias(id) => {
                let (mut node, count) = match self.anchors.get(&id) {
                    Some((node, count)) => {
                        self.check_alias(*count, &span)?;
                        (node.clone(), *count)
                    }
                    None => (Node::new(Value::Null, Span::default()), 1),
                };
                self.decoded += count;
                self.aliased += count;
                // Point at the alias for the node itself; children keep their anchor positions.
                node.span = self.span(&span);
                self.push(node, false);
            }
            Event::SequenceStart(anchor, _) => {
                self.enter(&span)?;
                self.stack.push(Frame::Seq {
                    items: Vec::new(),
                    start: self.pos(&span.start),
                    anchor,
                })
            }
            Event::MappingStart(anchor, _) => {
                self.enter(&span)?;
                self.stack.push(Frame::Map {
                    entries: Vec::new(),
                    merges: Vec::new(),
                    key: None,
                    start: self.pos(&span.start),
                    anchor,
                })
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq {
                    items,
                    start,
                    anchor,
                }) = self.stack.pop()
                {
                    let end = self.pos(&span.end);
                    self.finish(Node::new(Value::Seq(items), Span { start, end }), anchor);
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map {
                    entries,
                    merges,
                    start,
                    anchor,
                    ..
                }) = self.stack.pop()
                {
                    let end = self.pos(&span.end);
                    let entries = self.check_duplicates(entries);
                    let entries = apply_merges(entries, merges);
                    self.finish(Node::new(Value::Map(entries), Span { start, end }), anchor);
                }
            }
            Event::DocumentEnd => {
                // Anchors and the alias budget are per document, as in go-yaml.
                self.anchors.clear();
                self.decoded = 0;
                self.aliased = 0;
            }
            Event::DocumentStart(_) | Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
        }
        Ok(())
    }

    /// One more level of nesting at `span`, refused past [`MAX_DEPTH`].
    fn enter(&mut self, span: &PSpan) -> Result<(), LoadProblem> {
        self.decoded += 1;
        if self.stack.len() < MAX_DEPTH {
            return Ok(());
        }
        Err(LoadProblem {
            kind: ProblemKind::Syntax,
            span: Span::point(self.pos(&span.start).line, self.pos(&span.start).col),
            message: format!(
                "invalid YAML: nesting deeper than {MAX_DEPTH} levels; this document was skipped"
            ),
            related: None,
        })
    }

    /// Refuses an alias of `count` nodes at `span` when it would make the document's aliasing
    /// excessive (see [`excessive_aliasing`]).
    fn check_alias(&self, count: u64, span: &PSpan) -> Result<(), LoadProblem> {
        if !excessive_aliasing(self.decoded + count, self.aliased + count) {
            return Ok(());
        }
        let at = self.pos(&span.start);
        Err(LoadProblem {
            kind: ProblemKind::Syntax,
            span: Span::point(at.line, at.col),
            message: format!(
                "invalid YAML: excessive aliasing (this alias would expand the document past {} nodes, {} of them from aliases), as kubectl rejects it; this document was skipped",
                self.decoded + count,
                self.aliased + count
            ),
            related: None,
        })
    }

    fn finish(&mut self, node: Node, anchor: usize) {
        if anchor > 0 {
            let count = node_count(&node);
            self.anchors.insert(anchor, (node.clone(), count));
        }
        self.push(node, false);
    }

    fn push(&mut self, node: Node, merge_key: bool) {
        match self.stack.last_mut() {
            None => self.roots.push(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries,
                merges,
                key,
                ..
            }) => match key.take() {
                None => {
                    let mut k = node;
                    if merge_key {
                        k.value = Value::Str(MERGE_KEY.into());
                    }
                    *key = Some(k);
                }
                Some(k) if k.as_str() == Some(MERGE_KEY) => merges.push(node),
                Some(k) => entries.push(Entry {
                    key: k,
                    value: node,
                }),
            },
        }
    }

    /// Reports repeated keys (the API server silently keeps the last one).
    fn check_duplicates(&mut self, entries: Vec<Entry>) -> Vec<Entry> {
        // Fast path (nearly every mapping): string keys, compared in place without allocating.
        // Small mappings compare pairwise; larger ones sort borrowed keys.
        let str_keys: Option<Vec<&str>> = entries.iter().map(|e| e.key.as_str()).collect();
        if let Some(mut keys) = str_keys {
            let unique = if keys.len() <= 16 {
                keys.iter().enumerate().all(|(i, k)| !keys[..i].contains(k))
            } else {
                keys.sort_unstable();
                keys.windows(2).all(|w| w[0] != w[1])
            };
            if unique {
                return entries;
            }
        }
        let mut seen: HashMap<String, Span> = HashMap::with_capacity(entries.len());
        for e in &entries {
            let text = key_text(&e.key);
            if let Some(first) = seen.get(&text) {
                self.problems.push(LoadProblem {
                    kind: ProblemKind::DuplicateKey,
                    span: e.key.span,
                    message: format!(
                        "duplicate key `{text}`: the API server keeps only this last value, the earlier one at line {} is silently lost",
                        first.start.line
                    ),
                    related: Some((*first, format!("first `{text}` here"))),
                });
            } else {
                seen.insert(text, e.key.span);
            }
        }
        entries
    }
}

/// Internal marker for a plain `<<` key; a quoted "<<" key is an ordinary key.
const MERGE_KEY: &str = "\u{0}<<";

fn key_text(k: &Node) -> String {
    match &k.value {
        Value::Str(s) => s.as_str().to_owned(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Null => "null".into(),
        _ => format!(
            "<complex key at {}:{}>",
            k.span.start.line, k.span.start.col
        ),
    }
}

/// `<<: *base` and `<<: [*a, *b]`: keys from the sources that the mapping does not set itself.
fn apply_merges(mut entries: Vec<Entry>, merges: Vec<Node>) -> Vec<Entry> {
    if merges.is_empty() {
        return entries;
    }
    let mut sources = Vec::new();
    for m in merges {
        match m.value {
            Value::Map(e) => sources.push(e),
            Value::Seq(items) => {
                for item in items {
                    if let Value::Map(e) = item.value {
                        sources.push(e);
                    }
                }
            }
            _ => {}
        }
    }
    for source in sources {
        for e in source {
            let text = key_text(&e.key);
            if !entries.iter().any(|x| key_text(&x.key) == text) {
                entries.push(e);
            }
        }
    }
    entries
}

/// Whether `s` written as a plain (unquoted) scalar reads back as the same string: not a null,
/// bool or number as the loader (and sigs.k8s.io/yaml) resolves it, and free of YAML indicators.
/// Writers (file edits, `-o yaml`) quote exactly when this is false.
pub fn plain_scalar_safe(s: &str) -> bool {
    !s.is_empty()
        && matches!(resolve_scalar(s, ScalarStyle::Plain, None), Value::Str(_))
        && !s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@` ".contains(c))
        && !s.ends_with([' ', ':'])
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.contains(char::is_control)
}

fn resolve_scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Value {
    if let Some(tag) = tag {
        if tag.handle == "!!" || tag.handle == "tag:yaml.org,2002:" {
            match tag.suffix.as_str() {
                "str" => return Value::Str(kept(text)),
                "null" => return Value::Null,
                "bool" => {
                    return parse_bool(text).map_or_else(|| Value::Str(kept(text)), Value::Bool)
                }
                "int" => return parse_int(text).map_or_else(|| Value::Str(kept(text)), Value::Int),
                "float" => {
                    return parse_float(text)
                        .or_else(|| parse_int(text).map(|i| i as f64))
                        .map_or_else(|| Value::Str(kept(text)), Value::Float)
                }
                _ => {}
            }
        }
    }
    if style != ScalarStyle::Plain {
        return Value::Str(kept(text));
    }
    if matches!(text, "" | "~" | "null" | "Null" | "NULL") {
        return Value::Null;
    }
    if let Some(b) = parse_bool(text) {
        return Value::Bool(b);
    }
    // Numbers start with a digit, a sign or a dot (`.5`, `.inf`); most scalars are words.
    if text
        .as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.'))
    {
        if let Some(i) = parse_int(text) {
            return Value::Int(i);
        }
        if let Some(f) = parse_float(text) {
            return Value::Float(f);
        }
    }
    Value::Str(kept(text))
}

/// A scalar's text as the tree keeps it: inside the node when it fits (24 bytes, most keys and
/// values), else in a block of its own size. saphyr builds each scalar in a `String` it first
/// grows by its whole lookahead buffer (`scan_plain_scalar` reserves `BUFFER_LEN`, 128 bytes),
/// so keeping the scanner's string kept 129 bytes or more per scalar: trees three times their
/// text, and, where lint keeps part of each file's objects, the scanner's next strings taken
/// from blocks long gone cold (12-19% of lint's CPU time at 100,000 documents sat on that one
/// load in the allocator; docs/performance.md). The scanner's block goes back at once, to be
/// the next scalar's.
fn kept(text: &str) -> compact_str::CompactString {
    text.into()
}

/// YAML 1.1 booleans, as sigs.k8s.io/yaml (go-yaml v2) resolves them.
fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "y" | "Y" => {
            Some(true)
        }
        "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "n" | "N" => {
            Some(false)
        }
        _ => None,
    }
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    // Plain decimal, the common case: no allocation.
    if digits.len() < 19 && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0') {
        let value: i64 = digits.parse().ok()?;
        return Some(if neg { -value } else { value });
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    let value = if let Some(hex) = clean.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()?
    } else if let Some(oct) = clean.strip_prefix("0o") {
        i64::from_str_radix(oct, 8).ok()?
    } else if let Some(bin) = clean.strip_prefix("0b") {
        i64::from_str_radix(bin, 2).ok()?
    } else if clean.len() > 1 && clean.starts_with('0') && clean.bytes().all(|b| b.is_ascii_digit())
    {
        i64::from_str_radix(&clean[1..], 8).ok()? // YAML 1.1 octal: 0755
    } else if clean.bytes().all(|b| b.is_ascii_digit()) {
        clean.parse().ok()?
    } else {
        return None;
    };
    Some(if neg { -value } else { value })
}

fn parse_float(s: &str) -> Option<f64> {
    match s {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    let body = s.trim_start_matches(['-', '+']);
    let first = body.bytes().next()?;
    if !(first.is_ascii_digit() || first == b'.') {
        return None;
    }
    if !body
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+' | b'_'))
    {
        return None;
    }
    if !body.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    s.replace('_', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::document::FieldPath;

    fn load_str(text: &str) -> Loaded {
        load(Source::new("t.yaml", text))
    }

    /// A stray backtick (seen in a public repository's policy file) is named readably.
    #[test]
    fn an_unexpected_character_is_quoted_readably() {
        let l = load_str("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n`\n");
        assert_eq!(
            l.problems[0].message,
            "invalid YAML: unexpected character '`' (U+0060), which cannot start a YAML token; this document was skipped"
        );
        assert_eq!(unexpected_character("unexpected character: `ab'"), None);
        assert_eq!(unexpected_character("did not find expected key"), None);
    }

    /// The tree keeps no block of the scanner's: a short scalar (key or value, plain or quoted)
    /// sits in its node, a long one in a block of its own length.
    #[test]
    fn short_scalars_are_inline_and_long_ones_sized_to_their_text() {
        let long = "x".repeat(40);
        let l = load_str(&format!("name: web\n'quoted': \"q\"\nlong: {long}\n"));
        let Value::Map(entries) = &l.documents[0].root.value else {
            panic!("a mapping")
        };
        let texts: Vec<&compact_str::CompactString> = entries
            .iter()
            .flat_map(|e| [&e.key.value, &e.value.value])
            .map(|v| match v {
                Value::Str(s) => s,
                other => panic!("a string, not {other:?}"),
            })
            .collect();
        for short in &texts[..5] {
            assert!(!short.is_heap_allocated(), "{short:?} inline");
        }
        assert_eq!(texts[5].as_str(), long);
        assert!(texts[5].is_heap_allocated());
        assert_eq!(
            texts[5].capacity(),
            long.len(),
            "no lookahead left in the block"
        );
    }

    /// A quoted scalar whose continuation lines start left of its block, as go-yaml (kubectl)
    /// reads it: the values PyYAML (libyaml's rules) gives, and the next key where it stands.
    #[test]
    fn quoted_scalars_indented_less_than_their_block_read_as_go_yaml_reads_them() {
        let text = "data:\n  a: 'one\ntwo\n\n  three ''s'\n  b: \"x \\\"q\\\"\ny\"\nc: 1\n";
        let l = load_str(text);
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        let root = &l.documents[0].root;
        let at = |p: &str| root.at(&FieldPath::parse(p)).unwrap();
        assert_eq!(at("data.a").as_str(), Some("one two\nthree 's"));
        assert_eq!(at("data.b").as_str(), Some("x \"q\" y"));
        assert_eq!(at("c").span.start, Pos { line: 8, col: 4 });
        // A document marker at the start of a continuation line ends the document for go-yaml
        // too, and a scalar that never closes stays refused.
        for refused in ["a: 'one\n---\ntwo'\n", "a:\n  b: 'one\ntwo\n"] {
            let l = load_str(refused);
            assert!(l.documents.is_empty(), "{refused:?}");
            assert_eq!(l.problems.len(), 1, "{refused:?}");
        }
    }

    #[test]
    fn positions_of_keys_and_values_are_one_based() {
        let l = load_str("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
        let root = &l.documents[0].root;
        let name = root.at(&FieldPath::parse("metadata.name")).unwrap();
        assert_eq!(name.span.start, Pos { line: 4, col: 9 });
        assert_eq!(
            root.locate(&FieldPath::parse("metadata.name")).start,
            Pos { line: 4, col: 3 }
        );
    }

    #[test]
    fn multi_document_streams_and_empty_documents() {
        let l = load_str("---\na: 1\n---\n---\nb: 2\n...\n");
        assert_eq!(l.documents.len(), 2);
        assert_eq!(l.documents[1].index, 1);
        assert!(l.problems.is_empty());
    }

    #[test]
    fn a_broken_document_does_not_hide_the_others() {
        let l = load_str("a: 1\n---\nb: [1, 2\n---\nc: 3\n");
        assert_eq!(l.documents.len(), 2, "{:?}", l.problems);
        assert_eq!(l.problems.len(), 1);
        assert_eq!(l.problems[0].kind, ProblemKind::Syntax);
        assert!(l.problems[0].span.start.line >= 3);
        assert_eq!(
            l.documents[1].root.get("c").unwrap().span.start.line,
            5,
            "positions after a bad document stay exact"
        );
    }

    #[test]
    fn duplicate_keys_of_a_data_document_are_not_the_api_servers_concern() {
        // mkdocs.yml beside the manifests: `theme.palette` twice; the object after it keeps
        // its own duplicate reported.
        let l = load_str(
            "site_name: docs\ntheme:\n  palette: a\n  palette: b\n---\nkind: ConfigMap\nmetadata:\n  name: x\n  name: y\n",
        );
        assert_eq!(l.data.len(), 1);
        assert_eq!(l.problems.len(), 1, "{:?}", l.problems);
        assert_eq!(l.problems[0].kind, ProblemKind::DuplicateKey);
        assert_eq!(l.problems[0].span.start, Pos { line: 9, col: 3 });
    }

    #[test]
    fn duplicate_keys_are_reported_and_the_last_wins() {
        let l = load_str("kind: PropagationPolicy\nspec:\n  priority: 1\n  priority: 2\n");
        assert_eq!(l.problems.len(), 1);
        let p = &l.problems[0];
        assert_eq!(p.kind, ProblemKind::DuplicateKey);
        assert_eq!(p.span.start, Pos { line: 4, col: 3 });
        assert_eq!(p.related.as_ref().unwrap().0.start.line, 3);
        let root = &l.documents[0].root;
        assert_eq!(root.to_json()["spec"]["priority"], 2);
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let text = "base: &b\n  priority: 5\n  x: 1\nspec:\n  <<: *b\n  x: 2\nref: *b\n";
        let l = load_str(text);
        let j = l.documents[0].root.to_json();
        assert_eq!(j["spec"]["priority"], 5);
        assert_eq!(j["spec"]["x"], 2, "explicit keys beat merged ones");
        assert_eq!(j["ref"]["x"], 1);
        assert!(l.problems.is_empty());
    }

    #[test]
    fn scalars_resolve_like_kubectl() {
        let l = load_str(
            "a: yes\nb: 'yes'\nc: ~\nd: 010\ne: 1.5\nf: 0x1F\ng: \"5\"\nh: !!str 7\ni: -3\nj: 1e3\nk: v1\n",
        );
        let j = l.documents[0].root.to_json();
        assert_eq!(j["a"], true);
        assert_eq!(j["b"], "yes");
        assert!(j["c"].is_null());
        assert_eq!(j["d"], 8);
        assert_eq!(j["e"], 1.5);
        assert_eq!(j["f"], 31);
        assert_eq!(j["g"], "5");
        assert_eq!(j["h"], "7");
        assert_eq!(j["i"], -3);
        assert_eq!(j["j"], 1000.0);
        assert_eq!(j["k"], "v1");
    }

    #[test]
    fn templating_is_named_not_a_syntax_error() {
        let l =
            load_str("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n");
        assert_eq!(l.problems.len(), 1, "{:?}", l.problems);
        assert_eq!(l.problems[0].kind, ProblemKind::Templating);
        assert_eq!(l.problems[0].span.start, Pos { line: 4, col: 9 });
        // The whole template, for the formats that carry an end (JSON, SARIF, GitHub).
        assert_eq!(l.problems[0].span.end, Pos { line: 4, col: 27 });
        assert!(l.problems[0].message.contains("{{ .Values.name }}"));
        // A template that breaks the YAML itself (a scan error) spans it too.
        let l = load_str("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: {{caBundle}}\n  b: [\n");
        assert_eq!(
            l.problems[0].kind,
            ProblemKind::Templating,
            "{:?}",
            l.problems
        );
        let span = l.problems[0].span;
        assert_eq!((span.start.col, span.end.col), (6, 18), "{span:?}");
    }

    #[test]
    fn flux_escapes_do_not_hide_a_real_syntax_error() {
        // A HelmRelease with `$${var}` (Flux's escape) and an unclosed bracket: yaml-syntax at
        // the bracket, not unrendered-template at the escape.
        let l = load_str(
            "kind: HelmRelease\nspec:\n  values:\n    cmd: echo $${HOME}\n    list: [a, b\n",
        );
        assert_eq!(l.problems.len(), 1, "{:?}", l.problems);
        assert_eq!(l.problems[0].kind, ProblemKind::Syntax);
        assert!(l.problems[0].span.start.line >= 5, "{:?}", l.problems[0]);
        assert_eq!(
            find_templating("a: $${x}\nb: ${y}\n"),
            Some((2, 4, "${y}".into()))
        );
    }

    #[test]
    fn a_flux_variable_does_not_hide_a_real_syntax_error() {
        // `${cluster_name}` is a plain scalar; the broken indentation on line 7 is the error.
        let l = load_str(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: ${cluster_name}\n   b: c\n",
        );
        assert_eq!(l.problems.len(), 1, "{:?}", l.problems);
        assert_eq!(l.problems[0].kind, ProblemKind::Syntax);
        assert_eq!(l.problems[0].span.start.line, 7, "{:?}", l.problems[0]);
        // A variable that is the only reason the text does not parse stays a template.
        let l = load_str("metadata:\n  name: ${a: b}\n");
        assert!(
            l.problems.iter().all(|p| p.kind != ProblemKind::Syntax),
            "{:?}",
            l.problems
        );
        assert_eq!(without_variables("a: ${x}-${y}\n"), "a: xxxx-xxxx\n");
    }

    #[test]
    fn data_files_are_told_from_objects_with_one_note_per_file() {
        let dashboard = load_str("{\"title\": \"Karmada\", \"panels\": []}\n");
        assert!(dashboard.problems.is_empty());
        assert_eq!(
            dashboard.documents.len(),
            1,
            "a data mapping is still counted"
        );
        assert_eq!(
            data_note(&dashboard).as_deref(),
            Some("t.yaml: not a Kubernetes object (no apiVersion/kind): skipped")
        );
        let scalar = load_str("just text\n");
        assert!(scalar.problems.is_empty() && scalar.documents.is_empty());
        assert!(data_note(&scalar).is_some());
        let mixed = load_str(
            "replicas: 2\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nx: 1\n",
        );
        assert_eq!(
            data_note(&mixed).as_deref(),
            Some("t.yaml:1: 2 documents are not Kubernetes objects (no apiVersion/kind): skipped")
        );
        // An object missing its type is not data: `metadata` or `kind` says what it meant to be.
        for text in ["metadata:\n  name: a\n", "kind: ConfigMap\n"] {
            let l = load_str(text);
            assert!(l.data.is_empty() && data_note(&l).is_none(), "{text}");
        }
    }

    #[test]
    fn top_level_lists_and_list_kind() {
        // A list of objects without `kind: List` is an object gone wrong...
        let l = load_str("- apiVersion: v1\n  kind: ConfigMap\n");
        assert_eq!(l.problems[0].kind, ProblemKind::NotAnObject);
        // ...a list of anything else is data.
        let l = load_str("- a\n- b\n");
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        assert_eq!(l.data.len(), 1);
        let l = load_str("apiVersion: v1\nkind: List\nitems:\n- kind: A\n- kind: B\n");
        assert_eq!(l.documents.len(), 2);
    }

    #[test]
    fn json_input_is_yaml() {
        let l = load_str("{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}");
        assert_eq!(l.documents[0].root.to_json()["kind"], "ConfigMap");
    }

    #[test]
    fn control_characters_are_refused_where_go_yaml_refuses_them() {
        // A plain scalar, a quoted one, a comment: the reader refuses them all (readerc.go).
        for (text, col, code) in [
            ("a: 1\n---\nname: x\u{1b}[2K\n", 8, "U+001B"),
            ("a: 1\n---\nname: \"\u{7}\"\n", 8, "U+0007"),
            ("a: 1\n---\nname: x # \u{9b}\n", 11, "U+009B"),
            ("a: 1\n---\nname: \u{7f}\n", 7, "U+007F"),
        ] {
            let l = load_str(text);
            assert_eq!(l.problems.len(), 1, "{text:?}: {:?}", l.problems);
            let p = &l.problems[0];
            assert_eq!(p.kind, ProblemKind::Syntax);
            assert_eq!(p.span.start, Pos { line: 3, col }, "{text:?}");
            assert!(
                p.message.contains("control characters are not allowed"),
                "{}",
                p.message
            );
            assert!(p.message.contains(code), "{}", p.message);
            // The other document still loads.
            assert_eq!(l.documents.len(), 1);
        }
        // What the reader allows: TAB, CR, NEL and the printable ranges.
        let l = load_str("name: \"a\tb\u{85}c\u{a0}\u{10000}\"\r\nb: x\r\n");
        assert!(l.problems.is_empty(), "{:?}", l.problems);
    }

    #[test]
    fn a_syntax_error_at_the_end_points_inside_the_text() {
        // testdata/fuzz/regressions/syntax-error-past-the-end.yaml: the marker was on line 3.
        let l = load_str("aisueVrpi[~0onk :vind: ConfigMap\nmetadata:vindz C");
        assert_eq!(l.problems.len(), 1, "{:?}", l.problems);
        assert_eq!(l.problems[0].span.start, Pos { line: 2, col: 17 });
        let l = load_str("a: 1\n---\nb: [1, 2\n");
        assert_eq!(l.problems[0].span.start.line, 3, "{:?}", l.problems);
    }

    /// What the loader says of a text that is not YAML, as a reason and a line (for callers
    /// that report it in their own words, as Flux's `MalformedYAMLError`).
    #[test]
    fn a_syntax_error_is_its_line_and_reason() {
        assert_eq!(try_parse_roots("a: 1\nb: 2\n").map(|r| r.len()), Ok(1));
        let e = try_parse_roots("a: 1\nb: [c\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(
            !e.reason.contains("invalid YAML") && !e.reason.is_empty(),
            "{e}"
        );
        let e = try_parse_roots("a: 1\nb: \u{7}\n").unwrap_err();
        assert_eq!(
            (e.line, e.reason.as_str()),
            (2, "control characters are not allowed (U+0007)")
        );
        assert!(parse_roots("a: [\n").is_empty());
    }

    #[test]
    fn billion_laughs_is_excessive_aliasing_at_the_alias_and_other_documents_load() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x]\n");
        let mut prev = 'a';
        for c in "bcdefghij".chars() {
            text.push_str(&format!(
                "{c}: &{c} [{}]\n",
                vec![format!("*{prev}"); 9].join(", ")
            ));
            prev = c;
        }
        text.push_str("---\napiVersion: v1\nkind: ConfigMap\n");
        let l = load_str(&text);
        assert_eq!(l.documents.len(), 1, "{:?}", l.problems);
        assert_eq!(l.problems.len(), 1, "{:?}", l.problems);
        assert!(l.problems[0].message.contains("excessive aliasing"));
        let line = l.problems[0].span.start.line;
        assert!(
            (4..=6).contains(&line),
            "at an alias line: {:?}",
            l.problems[0]
        );
    }

    #[test]
    fn ordinary_anchor_reuse_is_not_excessive() {
        let mut text = String::from("base: &b {a: 1, b: 2, c: 3}\nitems:\n");
        for i in 0..2000 {
            text.push_str(&format!("- {{name: n{i}, <<: *b}}\n"));
        }
        let l = load_str(&text);
        // Each item: 5 nodes of its own and 7 from the alias, well under go-yaml's 99%.
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        assert_eq!(l.documents[0].root.to_json()["items"][1999]["c"], 3);
    }

    #[test]
    fn deep_block_and_flow_nesting_are_findings() {
        let block = format!("a: 1\n---\n{}x\n---\nb: 2\n", "- ".repeat(100_000));
        let l = load_str(&block);
        assert_eq!(l.documents.len(), 2, "{:?}", l.problems);
        assert!(
            l.problems[0].message.contains("nesting deeper than 200"),
            "{:?}",
            l.problems
        );
        assert_eq!(l.problems[0].span.start.line, 3);
        for depth in [230, 20_000] {
            let flow = format!("a: {}{}\n", "[".repeat(depth), "]".repeat(depth));
            let l = load_str(&flow);
            assert!(
                l.problems[0].message.contains("nesting deeper than"),
                "{:?}",
                l.problems
            );
        }
        let fine = format!("a: {}{}\n", "[".repeat(150), "]".repeat(150));
        assert!(load_str(&fine).problems.is_empty());
    }

    #[test]
    fn garbage_never_panics() {
        for text in [
            "\u{0}\u{1}",
            ":",
            "- - - -",
            "a: [",
            "? a\n: b",
            "*x",
            "&a [*a]",
            "---\n---\n",
            "a: b: c",
            "\t\tx",
        ] {
            let _ = load_str(text);
        }
    }
}

#[cfg(test)]
mod reparse_tests {
    use super::*;

    /// Every document of `text` parsed again from its own lines is the tree first parsed.
    fn assert_reparses(text: &str) {
        let loaded = load(Source::new("t.yaml", text));
        assert!(!loaded.documents.is_empty(), "{text}");
        for d in &loaded.documents {
            assert_eq!(
                reparse(&d.source, d.root.span).as_ref(),
                Some(&d.root),
                "document {} of {text:?}",
                d.index
            );
        }
    }

    #[test]
    fn documents_parse_again_from_their_lines_with_the_same_positions() {
        assert_reparses("a: 1\nb: [x, y]\n---\nc:\n  d: {e: f}\n...\n--- {g: h}\n");
        assert_reparses(
            "# c\n---\nx: &a {k: v}\ny: *a\nz:\n  <<: *a\n  w: 1\n---\nq: |\n  text\n  more\n",
        );
        assert_reparses("a: 1\r\nb:\r\n  - c\r\n---\r\nd: e\r\n");
        assert_reparses(
            "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: a}\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n",
        );
    }

    #[test]
    fn changed_text_does_not_reparse_to_a_wrong_tree() {
        let loaded = load(Source::new("t.yaml", "a: 1\nb: 2\n"));
        let span = loaded.documents[0].root.span;
        assert_eq!(reparse(&Source::new("t.yaml", "- 1\n- 2\n"), span), None);
        assert_eq!(reparse(&Source::new("t.yaml", ""), span), None);
    }
}

#[cfg(test)]
mod plain_scalar_tests {
    use super::plain_scalar_safe;

    #[test]
    fn quoting_follows_what_the_loader_would_read() {
        for s in ["member1", "us-east-1", "a b", "v1.2"] {
            assert!(plain_scalar_safe(s), "{s}");
        }
        for s in [
            "", "on", "No", "~", "null", "010", "0x1F", "1e3", ".inf", "-x", "a: b", "a #b", "x:",
            "*ref",
        ] {
            assert!(!plain_scalar_safe(s), "{s}");
        }
    }
}
