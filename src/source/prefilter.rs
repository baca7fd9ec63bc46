//! A byte-level pre-filter: reads each document's `apiVersion`, `kind` and `metadata.name`
//! from its lines without parsing it, so a command that needs a few documents of a large
//! repository (`explain` of one template) can skip the others before the YAML parser sees them.
//!
//! Documents split as YAML splits them: at `---` and `...` at column 0 followed by a blank or
//! the end of the line (YAML 1.2 §9.1.2; no node, quoted or block, can hold such a line). A
//! document's head is read only when the scanner is sure of it; anything it cannot be sure of
//! makes the document "unknown", and an unknown document is always kept. Sure means: every
//! column-0 line is a plain `key: value`; `kind` and `apiVersion` appear once each with a plain
//! (or simply quoted) scalar value that resolves to a string and does not go on to the next
//! line; `metadata.name` likewise, in a block mapping or a simple one-line flow mapping; no tab
//! indentation, complex key, merge key, directive or templating; no `List` kind. Deeper lines
//! need no reading: the parser rejects a flow collection or block scalar that goes on at or
//! left of the indent of the mapping holding it, so in a document that loads, a column-0 line
//! is a top-level key and a line at the indent of `metadata`'s keys is one of them. A quoted
//! scalar may go on there (go-yaml takes it, and so does the loader): a line of it shaped like
//! a second `kind` or `apiVersion` makes the document unknown; one shaped like the only `kind`
//! or `metadata.name` of an object without one is read as such, which loses nothing but that
//! broken object's load problem. A file with a lone CR (a line break the line scanner would
//! not see), a BOM past its start or content on a marker line (`--- |`) is kept whole.
//!
//! What is lost with a skipped document: the load problems of a document that would not load
//! (a syntax error or duplicate key in some other template), and, for such a broken document
//! only, the index of the documents after it in its file (the placeholder counts as one).
//!
//! A skipped document is replaced by `{}` on its first line and empty lines for the rest, so
//! every kept document keeps its lines (positions) and its index among the loaded documents
//! (the loader counts an empty mapping as a document: the `file.yaml#N` labels do not move).

use std::path::PathBuf;

use super::document::Source;
use super::files::{self, ReadError};
use super::yaml::{load, plain_scalar_safe, Loaded};

/// What the scanner read of a document it is sure of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocHead<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    /// `metadata.name`; `None` when absent or not read with certainty.
    pub name: Option<&'a str>,
    /// `metadata.namespace`; `None` when absent or not read with certainty.
    pub namespace: Option<&'a str>,
}

/// One document of a text as the scanner split it (byte offsets into the text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment<'a> {
    /// First byte of the segment (its marker line, if any).
    pub start: usize,
    /// First byte after the marker line (== `start` without a marker).
    pub body: usize,
    /// One past the last byte.
    pub end: usize,
    /// `None`: unknown (no kind, or something the scanner cannot be sure of).
    pub head: Option<DocHead<'a>>,
}

/// The `(apiVersion, kind)` of a document that was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub api_version: String,
    pub kind: String,
}

/// Splits `text` into documents and reads each one's head. `None`: the file as a whole is
/// something the scanner does not handle (see the module comment); keep all of it.
pub fn scan(text: &str) -> Option<Vec<Segment<'_>>> {
    let bytes = text.as_bytes();
    if has_lone_cr(text) || text.contains('\u{feff}') {
        return None;
    }
    let mut segments = Vec::new();
    let mut seg_start = 0usize;
    let mut body = 0usize;
    let mut doc = DocScan::default();
    let mut pos = 0usize;
    while pos < bytes.len() {
        if bytes[pos] == b' ' && doc.skips_indented() {
            pos = next_unindented_line(bytes, pos);
            continue;
        }
        let nl = text[pos..].find('\n').map_or(bytes.len(), |i| pos + i);
        let next = (nl + 1).min(bytes.len());
        let mut line = &bytes[pos..nl];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        if let Some(rest) = marker(line) {
            if !blank_or_comment(rest) {
                return None;
            }
            segments.push(Segment {
                start: seg_start,
                body,
                end: pos,
                head: std::mem::take(&mut doc).finish(text),
            });
            seg_start = pos;
            body = next;
        } else if !doc.unsure {
            doc.line(line, pos);
        }
        pos = next;
    }
    segments.push(Segment {
        start: seg_start,
        body,
        end: bytes.len(),
        head: doc.finish(text),
    });
    // Unrendered templating (`{{ }}`, `${}`) anywhere: the loader decides what it is.
    let templating: Vec<usize> = text
        .match_indices('{')
        .map(|(i, _)| i)
        .filter(|&i| i > 0 && matches!(bytes[i - 1], b'{' | b'$'))
        .collect();
    if !templating.is_empty() {
        for seg in &mut segments {
            let first = templating.partition_point(|&i| i < seg.start);
            if templating.get(first).is_some_and(|&i| i < seg.end) {
                seg.head = None;
            }
        }
    }
    Some(segments)
}

/// Replaces every document with a head that `keep` refuses by an empty mapping on as many
/// lines, and returns the `(apiVersion, kind)` pairs of those documents, each once. Without any skipped document the text is
/// returned as it was (no copy).
pub fn filter(text: String, keep: &dyn Fn(&DocHead<'_>) -> bool) -> (String, Vec<Skipped>) {
    let Some(segments) = scan(&text) else {
        return (text, Vec::new());
    };
    let mut skipped = Vec::new();
    let mut out: Option<String> = None;
    let mut copied = 0usize;
    for seg in &segments {
        let Some(head) = &seg.head else { continue };
        if keep(head) {
            continue;
        }
        if !skipped
            .iter()
            .any(|s: &Skipped| s.kind == head.kind && s.api_version == head.api_version)
        {
            skipped.push(Skipped {
                api_version: head.api_version.to_string(),
                kind: head.kind.to_string(),
            });
        }
        let o = out.get_or_insert_with(|| String::with_capacity(text.len() / 4));
        o.push_str(&text[copied..seg.body]);
        let mut breaks = text.as_bytes()[seg.body..seg.end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        o.push_str("{}");
        const NEWLINES: &str = "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n";
        while breaks > 0 {
            let n = breaks.min(NEWLINES.len());
            o.push_str(&NEWLINES[..n]);
            breaks -= n;
        }
        copied = seg.end;
    }
    match out {
        None => (text, skipped),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            (o, skipped)
        }
    }
}

/// Reads and loads each input as `files::read_all` does (in order, on all cores, `-` is stdin),
/// dropping the documents `keep` refuses before they are parsed.
pub fn read_all_filtered(
    paths: &[PathBuf],
    keep: &(dyn Fn(&DocHead<'_>) -> bool + Sync),
) -> Result<Vec<(Loaded, Vec<Skipped>)>, ReadError> {
    files::in_parallel(paths, &|path| {
        let (name, text) = files::read_text(path)?;
        let (text, skipped) = filter(text, keep);
        Ok((load(Source::new(name, text)), skipped))
    })
}

/// A CR that is not part of a CRLF: a line break to YAML that the line scanner would not see.
/// The start of the first line after the one starting at `from` that does not start with a
/// space (or the end): eight bytes at a time, since most lines of a manifest are indented.
fn next_unindented_line(b: &[u8], from: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // High bit of each byte that is zero, exactly (no borrow between bytes).
    let zero_bytes = |x: u64| !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7);
    let mut i = from;
    while i + 9 <= b.len() {
        let word = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let next = u64::from_le_bytes(b[i + 1..i + 9].try_into().expect("8 bytes"));
        // A line break whose next byte is not a space.
        let hits = zero_bytes(word ^ (ONES * u64::from(b'\n')))
            & !zero_bytes(next ^ (ONES * u64::from(b' ')));
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize + 1;
        }
        i += 8;
    }
    while i < b.len() {
        if b[i] == b'\n' && b.get(i + 1) != Some(&b' ') {
            return i + 1;
        }
        i += 1;
    }
    b.len()
}

fn has_lone_cr(text: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find('\r') {
        let at = from + i;
        if b.get(at + 1) != Some(&b'\n') {
            return true;
        }
        from = at + 1;
    }
    false
}

/// The rest of the line after a document marker (`---` or `...` then a blank or the end).
fn marker(line: &[u8]) -> Option<&[u8]> {
    if line.len() >= 3
        && (&line[..3] == b"---" || &line[..3] == b"...")
        && line.get(3).is_none_or(|&c| c == b' ' || c == b'\t')
    {
        Some(&line[3..])
    } else {
        None
    }
}

fn blank_or_comment(s: &[u8]) -> bool {
    let s = trim_start(s);
    s.is_empty() || s[0] == b'#'
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    &s[n..]
}

fn trim_end(s: &[u8]) -> &[u8] {
    let n = s
        .iter()
        .rev()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    &s[..s.len() - n]
}

fn ws_or_end(s: &[u8], i: usize) -> bool {
    s.get(i).is_none_or(|&c| c == b' ' || c == b'\t')
}

/// A byte range of the text (the head borrows the text, not the line).
type Range = (usize, usize);

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Top {
    #[default]
    Other,
    /// Inside a block `metadata:` mapping; its keys' indent once seen.
    Metadata(Option<usize>),
}

#[derive(Default)]
struct DocScan {
    unsure: bool,
    kind: Option<Range>,
    api_version: Option<Range>,
    metadata_seen: bool,
    /// `metadata.name` and `metadata.namespace`.
    meta: [Option<Range>; 2],
    meta_unsure: [bool; 2],
    top: Top,
    /// A scalar we read ended its line at this indent: a deeper next line would continue it.
    scalar_at: Option<usize>,
    /// Any content at all (a document of comments only has no head).
    content: bool,
}

impl DocScan {
    /// Whether indented lines can be passed over unread (see [`DocScan::line`]).
    fn skips_indented(&self) -> bool {
        self.unsure || (self.scalar_at.is_none() && self.top == Top::Other)
    }

    fn finish(self, text: &str) -> Option<DocHead<'_>> {
        if self.unsure || !self.content {
            return None;
        }
        let kind = &text[self.kind?.0..self.kind?.1];
        let api_version = &text[self.api_version?.0..self.api_version?.1];
        if kind.ends_with("List") {
            return None;
        }
        let field = |i: usize| match (self.meta[i], self.meta_unsure[i]) {
            (Some((a, b)), false) => Some(&text[a..b]),
            _ => None,
        };
        Some(DocHead {
            api_version,
            kind,
            name: field(0),
            namespace: field(1),
        })
    }

    /// One line of the document (without its line break); `at` is its offset in the text.
    ///
    /// Only lines at column 0 and at the indent of `metadata`'s keys are read: the parser
    /// rejects a quoted scalar, flow collection or block scalar that goes on at or left of the
    /// indent of the mapping holding it ("invalid indentation"), so in a document that loads
    /// such a line is always a key of that mapping.
    fn line(&mut self, line: &[u8], at: usize) {
        let Some(&first) = line.first() else {
            return;
        };
        match first {
            // Deep inside some value: nothing to read.
            b' ' if self.scalar_at.is_none() && self.top == Top::Other => return,
            b'#' => {
                // A comment ends a plain scalar (`#` cannot start a continuation line).
                self.scalar_at = None;
                return;
            }
            b'\t' => {
                // Tabs are not indentation in YAML: fine only on a blank or comment line.
                if !blank_or_comment(line) {
                    self.unsure = true;
                }
                return;
            }
            _ => {}
        }
        let indent = line.iter().take_while(|&&c| c == b' ').count();
        let rest = &line[indent..];
        match rest.first() {
            None => return,
            Some(b'#') => {
                self.scalar_at = None;
                return;
            }
            Some(b'\t') if blank_or_comment(rest) => return,
            Some(_) => {}
        }
        if let Some(s) = self.scalar_at.take() {
            if indent > s {
                // `kind: Deploy` then `  ment`: a plain scalar goes on.
                self.unsure = true;
                return;
            }
        }
        self.content = true;
        if indent == 0 {
            self.top_level(rest, at);
        } else if let Top::Metadata(keys) = self.top {
            self.metadata_line(rest, indent, keys, at + indent);
        }
    }

    fn top_level(&mut self, rest: &[u8], at: usize) {
        let Some((key, value)) = plain_key(rest) else {
            self.unsure = true;
            return;
        };
        self.top = Top::Other;
        let value_at = at + (rest.len() - value.len());
        match key {
            b"kind" | b"apiVersion" => {
                let slot = if key == b"kind" {
                    &mut self.kind
                } else {
                    &mut self.api_version
                };
                match (slot.is_some(), scalar(value)) {
                    (false, Some((a, b))) => {
                        *slot = Some((value_at + a, value_at + b));
                        self.scalar_at = Some(0);
                    }
                    _ => self.unsure = true,
                }
            }
            b"metadata" => {
                if self.metadata_seen {
                    self.unsure = true;
                    return;
                }
                self.metadata_seen = true;
                if blank_or_comment(value) {
                    self.top = Top::Metadata(None);
                } else {
                    match flow_fields(value) {
                        Ok((fields, unsure)) => {
                            for (slot, f) in self.meta.iter_mut().zip(fields) {
                                *slot = f.map(|(a, b)| (value_at + a, value_at + b));
                            }
                            self.meta_unsure = unsure;
                        }
                        Err(()) => self.meta_unsure = [true; 2],
                    }
                }
            }
            _ => {}
        }
    }

    fn metadata_line(&mut self, rest: &[u8], indent: usize, keys: Option<usize>, at: usize) {
        let keys = match keys {
            None => {
                self.top = Top::Metadata(Some(indent));
                indent
            }
            Some(k) => k,
        };
        if indent > keys {
            return;
        }
        if indent < keys {
            self.meta_unsure = [true; 2];
            return;
        }
        let Some((key, value)) = plain_key(rest) else {
            self.meta_unsure = [true; 2];
            return;
        };
        let Some(i) = meta_field(key) else {
            return;
        };
        let value_at = at + (rest.len() - value.len());
        match (self.meta[i].is_some(), scalar(value)) {
            (false, Some((a, b))) => {
                self.meta[i] = Some((value_at + a, value_at + b));
                self.scalar_at = Some(indent);
            }
            _ => self.meta_unsure[i] = true,
        }
    }
}

/// A plain `key: value` line: the key (letters, digits, `_` first, then also `-./`) and the
/// value after the colon and its blanks.
fn plain_key(s: &[u8]) -> Option<(&[u8], &[u8])> {
    if !s
        .first()
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        return None;
    }
    let n = s
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/'))
        .count();
    if s.get(n) != Some(&b':') || !ws_or_end(s, n + 1) {
        return None;
    }
    Some((&s[..n], trim_start(&s[n + 1..])))
}

/// A scalar value that certainly loads as a non-empty string: its range within `v`. Plain (as
/// `plain_scalar_safe` decides), `'single'` without `''`, or `"double"` without escapes; a
/// comment may follow.
fn scalar(v: &[u8]) -> Option<Range> {
    let q = *v.first()?;
    if q == b'"' || q == b'\'' {
        let close = v[1..].iter().position(|&c| c == q)? + 1;
        let inner = &v[1..close];
        if inner.is_empty() || inner.contains(&b'\\') || !blank_or_comment(&v[close + 1..]) {
            return None;
        }
        if q == b'\'' && v.get(close + 1) == Some(&b'\'') {
            return None;
        }
        if inner.iter().any(|&c| c < 0x20) {
            return None;
        }
        return Some((1, close));
    }
    let mut end = v.len();
    for i in 1..v.len() {
        if v[i] == b'#' && (v[i - 1] == b' ' || v[i - 1] == b'\t') {
            end = i;
            break;
        }
    }
    let plain = trim_end(&v[..end]);
    // Most names and kinds: a letter, then name characters, longer than any YAML 1.1 null or
    // bool word (`false`), so a string without asking the loader's resolver.
    let simple = plain.len() > 5
        && plain[0].is_ascii_alphabetic()
        && plain
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'/'));
    if simple {
        return Some((0, plain.len()));
    }
    let s = std::str::from_utf8(plain).ok()?;
    plain_scalar_safe(s).then_some((0, plain.len()))
}

/// The slot of a `metadata` key the head reads.
fn meta_field(key: &[u8]) -> Option<usize> {
    match key {
        b"name" => Some(0),
        b"namespace" => Some(1),
        _ => None,
    }
}

/// `metadata: {name: x, namespace: y}` on one line: the name and namespace ranges and whether
/// each is unsure; `Err` when the mapping is not simple enough to be sure of anything.
type Fields = ([Option<Range>; 2], [bool; 2]);
fn flow_fields(v: &[u8]) -> Result<Fields, ()> {
    if v.first() != Some(&b'{') {
        return Err(());
    }
    let close = v.iter().position(|&c| c == b'}').ok_or(())?;
    if !blank_or_comment(&v[close + 1..]) {
        return Err(());
    }
    let inner = &v[1..close];
    if inner
        .iter()
        .any(|c| b"{[]\"'&*!?|>#<%@`\\".contains(c) || (*c < 0x20 && *c != b'\t'))
    {
        return Err(());
    }
    let mut fields = [None; 2];
    let mut unsure = [false; 2];
    let mut from = 1usize;
    for part in inner.split(|&c| c == b',') {
        let lead = part.len() - trim_start(part).len();
        let p = trim_end(trim_start(part));
        let at = from + lead;
        from += part.len() + 1;
        if p.is_empty() {
            continue;
        }
        let (key, value) = plain_key(p).ok_or(())?;
        let Some(i) = meta_field(key) else {
            continue;
        };
        let s = std::str::from_utf8(value).map_err(|_| ())?;
        if fields[i].is_some() || !plain_scalar_safe(s) {
            unsure[i] = true;
            continue;
        }
        let value_at = at + (p.len() - value.len());
        fields[i] = Some((value_at, value_at + value.len()));
    }
    Ok((fields, unsure))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::load;

    fn heads(text: &str) -> Vec<Option<(String, String, Option<String>)>> {
        scan(text)
            .expect("scannable")
            .into_iter()
            .map(|s| {
                s.head.map(|h| {
                    (
                        h.api_version.to_string(),
                        h.kind.to_string(),
                        h.name.map(str::to_string),
                    )
                })
            })
            .collect()
    }

    fn head(api: &str, kind: &str, name: Option<&str>) -> Option<(String, String, Option<String>)> {
        Some((api.into(), kind.into(), name.map(str::to_string)))
    }

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ns\nspec:\n  replicas: 1\n";

    #[test]
    fn reads_heads_of_block_and_flow_documents() {
        let text = format!(
            "# leading comment\n---\n{DEPLOY}---\napiVersion: v1\nkind: \"ConfigMap\" # c\nmetadata: {{name: cfg, namespace: x}}\n...\n---\n"
        );
        assert_eq!(
            heads(&text),
            vec![
                None,
                head("apps/v1", "Deployment", Some("web")),
                head("v1", "ConfigMap", Some("cfg")),
                None,
                None
            ]
        );
    }

    #[test]
    fn passes_over_indented_lines() {
        for text in [
            "a\n  b\n  c\nd\n",
            "  x\n   y\n    z\n     w\n      v\n       u\n        t\n\n  s\n",
            "  only indented\n    lines\n",
            "  \n\r\n  x\n---\n",
        ] {
            let b = text.as_bytes();
            let mut starts = vec![0];
            starts.extend(
                b.iter()
                    .enumerate()
                    .filter(|(_, &c)| c == b'\n')
                    .map(|(i, _)| i + 1),
            );
            for &from in &starts {
                let want = starts
                    .iter()
                    .copied()
                    .find(|&s| s > from && b.get(s) != Some(&b' '))
                    .unwrap_or(b.len())
                    .min(b.len());
                assert_eq!(next_unindented_line(b, from), want, "{text:?} from {from}");
            }
        }
    }

    #[test]
    fn marker_edge_cases() {
        // `---` inside a block scalar is still a marker at column 0; deeper it is content.
        let text = "kind: A\napiVersion: v1\ndata:\n  x: |\n    ---\n    kind: B\n---\t# c\nkind: C\napiVersion: v1\n";
        assert_eq!(
            heads(text),
            vec![head("v1", "A", None), head("v1", "C", None)]
        );
        // `----` and `---x` are not markers; `...` ends a document.
        let text = "kind: A\napiVersion: v1\nx: |\n ----\n---x: 1\n...\nkind: B\napiVersion: v1\n";
        assert_eq!(heads(text), vec![None, head("v1", "B", None)]);
        // Content on a marker line: the file is not filtered.
        assert_eq!(scan("--- |\n  text\n"), None);
        assert_eq!(scan("--- !!map\nkind: A\n"), None);
        // CRLF is one line break; a lone CR is not handled.
        assert_eq!(
            heads("kind: A\r\napiVersion: v1\r\nmetadata:\r\n  name: nm\r\n---\r\nkind: B\r\napiVersion: v1\r\n"),
            vec![head("v1", "A", Some("nm")), head("v1", "B", None)]
        );
        assert_eq!(scan("kind: A\rapiVersion: v1\n"), None);
        assert_eq!(heads(""), vec![None]);
        assert_eq!(heads("---"), vec![None, None]);
    }

    #[test]
    fn unknown_when_not_sure() {
        for (why, text) in [
            ("flow document", "{apiVersion: v1, kind: A}\n"),
            ("json", "{\n\"apiVersion\": \"v1\",\n\"kind\": \"A\"\n}\n"),
            ("no kind", "apiVersion: v1\nmetadata:\n  name: x\n"),
            ("two kinds", "kind: A\napiVersion: v1\nkind: B\n"),
            ("list", "apiVersion: v1\nkind: List\nitems: []\n"),
            (
                "typed list",
                "apiVersion: v1\nkind: ConfigMapList\nitems: []\n",
            ),
            ("anchor", "kind: &k A\napiVersion: v1\n"),
            ("alias", "kind: *k\napiVersion: v1\n"),
            ("tag", "kind: !!str A\napiVersion: v1\n"),
            ("bool kind", "kind: yes\napiVersion: v1\n"),
            ("number", "kind: A\napiVersion: 1\n"),
            ("kind on next line", "kind:\n  A\napiVersion: v1\n"),
            ("plain continues", "kind: A\n  B\napiVersion: v1\n"),
            ("escape", "kind: \"A\\u0042\"\napiVersion: v1\n"),
            ("merge key", "<<: *base\nkind: A\napiVersion: v1\n"),
            ("complex key", "? kind\n: A\napiVersion: v1\n"),
            ("quoted key", "\"kind\": A\napiVersion: v1\n"),
            (
                "templating",
                "kind: A\napiVersion: v1\nmetadata:\n  name: {{ .Values.x }}\n",
            ),
            ("env templating", "kind: A\napiVersion: v1\nx: ${X}\n"),
            (
                "multi-line quote deep",
                "kind: A\napiVersion: v1\nm:\n  x: 'a\nkind: B'\n",
            ),
            ("tab indent", "kind: A\napiVersion: v1\nm:\n\tx: 1\n"),
            ("directive", "%YAML 1.2\nkind: A\napiVersion: v1\n"),
            ("sequence", "- kind: A\n  apiVersion: v1\n"),
            ("top block scalar", "kind: A\napiVersion: v1\n|\n"),
        ] {
            let h = heads(text);
            assert!(h.iter().all(Option::is_none), "{why}: {h:?}");
        }
    }

    /// Deeper lines are not read: values that span lines stay inside their indent.
    #[test]
    fn deep_lines_are_values() {
        let text = "apiVersion: v1\nkind: A\nmetadata:\n  annotations:\n    x: \"a\n     kind: B\"\n    y: |\n      name: c\n  name: n1\ndata:\n  z: [1,\n    2]\n  w: >\n\n    kind: C\n";
        assert_eq!(heads(text), vec![head("v1", "A", Some("n1"))]);
        assert_eq!(load(Source::new("t", text.to_string())).problems, vec![]);
        // What the scanner relies on: the parser rejects a flow collection going on at or left
        // of the indent of its mapping, so those lines are never inside a value of a document
        // that loads.
        for bad in [
            "apiVersion: v1\nkind: A\ndata:\n  x: [a,\nkind: B]\n",
            "apiVersion: v1\nkind: A\nmetadata:\n  labels:\n    x: {a: 1,\n   name: b}\n",
        ] {
            let l = load(Source::new("t", bad.to_string()));
            assert!(l.documents.is_empty(), "{bad}");
            assert_eq!(
                l.problems[0].kind,
                crate::source::ProblemKind::Syntax,
                "{bad}"
            );
        }
    }

    /// A quoted scalar may go on left of its mapping's indent, as go-yaml reads it (see
    /// `yaml::indent_quoted_scalar`): a line of it that looks like a second `kind` makes the
    /// document unknown, so it is kept; one that looks like the only `metadata.name` of an
    /// object without a name is read as its name (such an object is refused by any API server,
    /// and only its load problem would be lost with it).
    #[test]
    fn quoted_lines_left_of_their_indent() {
        let twice = "apiVersion: v1\nkind: A\ndata:\n  x: \"a\nkind: B\"\n";
        assert_eq!(heads(twice), vec![None]);
        let l = load(Source::new("t", twice.to_string()));
        assert_eq!(l.problems, vec![]);
        assert_eq!(
            l.documents[0].root.get("kind").and_then(|k| k.as_str()),
            Some("A")
        );
    }

    #[test]
    fn name_only_when_sure() {
        let name = |meta: &str| {
            let text = format!("apiVersion: v1\nkind: A\n{meta}");
            heads(&text)[0].clone().expect("known").2
        };
        assert_eq!(
            name("metadata:\n  labels:\n    name: no\n  name: yes-\n"),
            Some("yes-".into())
        );
        assert_eq!(
            name("metadata:   # c\n  # c\n  name: \"q\"\n"),
            Some("q".into())
        );
        assert_eq!(
            name("metadata: {namespace: n, name: f}\n"),
            Some("f".into())
        );
        let ns = |meta: &str| {
            let text = format!("apiVersion: v1\nkind: A\n{meta}");
            scan(&text).unwrap()[0]
                .head
                .unwrap()
                .namespace
                .map(str::to_string)
        };
        assert_eq!(
            ns("metadata: {namespace: n1, name: f}\n"),
            Some("n1".into())
        );
        assert_eq!(
            ns("metadata:\n  name: a\n  namespace: 'n2'\n"),
            Some("n2".into())
        );
        assert_eq!(ns("metadata:\n  name: a\n  namespace: n\n"), None);
        assert_eq!(ns("metadata:\n  namespace: a\n  namespace: b\n"), None);
        assert_eq!(ns("metadata:\n  <<: *m\n  namespace: a\n"), None);
        assert_eq!(name("metadata: {namespace: n}\n"), None);
        assert_eq!(name("metadata:\n  name: a\n  name: b\n"), None);
        assert_eq!(name("metadata:\n  name: 0123\n"), None);
        assert_eq!(name("metadata:\n  <<: *m\n  name: a\n"), None);
        assert_eq!(name("metadata: *m\n"), None);
        assert_eq!(name("metadata: {name: {x: 1}}\n"), None);
        assert_eq!(name("metadata:\n    name: a\n  other: b\n"), None);
        assert_eq!(name("metadata:\nname: a\n"), None);
        // A multi-line plain name is not sure, and neither is the document.
        assert_eq!(
            heads("apiVersion: v1\nkind: A\nmetadata:\n  name: a\n    b\n")[0],
            None
        );
    }

    /// Kept documents load to the same trees and positions, skipped ones to `{}`, and document
    /// indexes do not move.
    #[test]
    fn kept_documents_load_identically() {
        let text = format!(
            "# c\n---\n{DEPLOY}---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n---\n{}---\nkind: Broken\napiVersion: v1\nmetadata: {{name: b}}\nx: [\n---\n{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"j\"}}}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: last\ndata:\n  k: |\n    ---x\n    kind: y",
            DEPLOY.replace("web", "other")
        );
        let (filtered, skipped) = filter(text.clone(), &|h| {
            h.kind != "Deployment" || h.name == Some("web")
        });
        assert_eq!(
            skipped,
            vec![Skipped {
                api_version: "apps/v1".into(),
                kind: "Deployment".into()
            }]
        );
        assert_eq!(filtered.lines().count(), text.lines().count());
        assert!(filtered.len() < text.len());
        let full = load(Source::new("f.yaml", text));
        let part = load(Source::new("f.yaml", filtered));
        assert_eq!(full.documents.len(), part.documents.len());
        assert_eq!(full.problems, part.problems);
        for (a, b) in full.documents.iter().zip(&part.documents) {
            assert_eq!(a.index, b.index);
            let name = a.root.get("metadata").and_then(|m| m.get("name"));
            if name.and_then(|n| n.as_str()) == Some("other") {
                assert!(matches!(&b.root.value, crate::source::Value::Map(m) if m.is_empty()));
            } else {
                assert_eq!(format!("{:?}", a.root), format!("{:?}", b.root));
            }
        }
        // Nothing skipped: the same text back.
        let (same, none) = filter("kind: A\napiVersion: v1\n".into(), &|_| true);
        assert_eq!(
            (same.as_str(), none.len()),
            ("kind: A\napiVersion: v1\n", 0)
        );
    }

    #[test]
    fn skipped_document_at_end_without_newline() {
        let text = "apiVersion: v1\nkind: A\nmetadata:\n  name: x\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: y";
        let (f, s) = filter(text.into(), &|h| h.kind == "A");
        assert_eq!(s.len(), 1);
        assert_eq!(
            f,
            "apiVersion: v1\nkind: A\nmetadata:\n  name: x\n---\n{}\n\n\n"
        );
        let (f, _) = filter(text.into(), &|h| h.kind == "B");
        assert_eq!(
            f,
            "{}\n\n\n\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: y"
        );
        assert_eq!(load(Source::new("t", f)).documents[1].index, 1);
    }
}
