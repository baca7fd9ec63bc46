//! The positioned document tree every source produces.
//!
//! A [`Document`] is one YAML/JSON document (or one live object) as a tree of [`Node`]s, each
//! carrying the [`Span`] it came from, so that every finding can point at the exact key or value.

use std::fmt;
use std::sync::{Arc, OnceLock};

use compact_str::CompactString;

/// A 1-based line and column (columns count characters, as editors and rustc do).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// A half-open range of positions in a source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: Pos,
    pub end: Pos,
}

impl Span {
    pub fn point(line: u32, col: u32) -> Span {
        let p = Pos { line, col };
        Span { start: p, end: p }
    }

    /// `text` on one line from column `col` (the end is the column after it).
    pub fn of_text(line: u32, col: u32, text: &str) -> Span {
        Span {
            start: Pos { line, col },
            end: Pos {
                line,
                col: col + text.chars().count() as u32,
            },
        }
    }
}

/// A place in a source: a file position, or (for live objects) an object and field.
#[derive(Clone, Debug)]
pub struct Location {
    pub source: Arc<Source>,
    pub span: Span,
}

impl Location {
    /// A live object (`pp/default/nginx`): no file position, the source name is the object
    /// reference and the finding's field path says where.
    pub fn is_object(&self) -> bool {
        self.span.start.line == 0
    }

    /// `file:line:col`, or the object reference alone for a live object.
    pub fn display(&self) -> String {
        if self.is_object() {
            self.source.name.clone()
        } else {
            format!(
                "{}:{}:{}",
                self.source.name, self.span.start.line, self.span.start.col
            )
        }
    }
}

/// Two places are equal when they name the same source and span (a source is not compared by
/// its text).
impl PartialEq for Location {
    fn eq(&self, other: &Location) -> bool {
        self.source.name == other.source.name && self.span == other.span
    }
}

/// Where a document came from: a file (or stdin, or a path inside a git tree), or a live object.
#[derive(Debug)]
pub struct Source {
    /// The name shown to users: a path relative to where the tool ran, `<stdin>`, `REV:path`, or
    /// an object reference such as `pp/default/nginx` for live objects.
    pub name: String,
    /// The full text, kept to print the offending line under a finding and to parse a document
    /// again. Empty for live objects. Unset in a [released](Source::released) source until first
    /// read, from `origin`.
    text: OnceLock<String>,
    /// The file the text was read from, for reading it again.
    origin: Option<Origin>,
    /// Byte offsets of line starts, built on the first [`Source::line`] call: renderers print a
    /// line per finding, and scanning a large file from the top for each was quadratic.
    line_starts: OnceLock<Vec<usize>>,
    /// Lines kept in memory when the text was released, so that a report printing only those
    /// does not read the file again (see [`Source::released_keeping`]).
    kept: KeptLines,
    /// Where the text starts in its input: zero, but for a piece of a large input read in
    /// pieces ([`Source::piece`]), whose lines keep their numbers in the whole input.
    at: Offset,
}

/// How much of an input comes before a piece of it: lines and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Offset {
    pub lines: u32,
    pub bytes: u64,
}

/// Some lines of a released text: one string, and each line's number and where it ends in it.
#[derive(Debug, Default)]
struct KeptLines {
    text: Box<str>,
    /// (1-based line number, end offset in `text`), by line number.
    index: Box<[(u32, u32)]>,
}

/// Lines longer than this are not kept (a one-line JSON file): the file is read again instead.
const MAX_KEPT_LINE: usize = 1024;

impl KeptLines {
    /// `lines` of `text`, in one pass over it up to the last of them.
    fn of(text: &str, mut lines: Vec<u32>) -> KeptLines {
        lines.retain(|&n| n > 0);
        lines.sort_unstable();
        lines.dedup();
        let (mut kept, mut index) = (String::new(), Vec::with_capacity(lines.len()));
        // Where line `n` starts; the newlines are counted, not split on, as this runs over
        // every file of a large lint.
        let mut newlines = memchr::memchr_iter(b'\n', text.as_bytes()).peekable();
        let (mut n, mut start) = (1, 0);
        for wanted in lines {
            while n < wanted {
                let Some(newline) = newlines.next() else {
                    return KeptLines::from_parts(kept, index);
                };
                (n, start) = (n + 1, newline + 1);
            }
            // The next newline ends the line (none: the text does).
            let end = newlines.peek().copied().unwrap_or(text.len());
            let line = &text[start..end];
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.len() <= MAX_KEPT_LINE {
                kept.push_str(line);
                index.push((n, kept.len() as u32));
            }
        }
        KeptLines::from_parts(kept, index)
    }

    fn from_parts(text: String, index: Vec<(u32, u32)>) -> KeptLines {
        KeptLines {
            text: text.into(),
            index: index.into(),
        }
    }

    /// The kept lines of consecutive pieces as one, their lines numbered `shift` lines later.
    fn join<'a>(parts: impl Iterator<Item = (&'a KeptLines, u32)>) -> KeptLines {
        let (mut text, mut index) = (String::new(), Vec::new());
        for (kept, shift) in parts {
            let base = text.len() as u32;
            text.push_str(&kept.text);
            index.extend(kept.index.iter().map(|&(n, end)| (n + shift, end + base)));
        }
        KeptLines::from_parts(text, index)
    }

    fn get(&self, line: u32) -> Option<&str> {
        let i = self.index.binary_search_by_key(&line, |&(n, _)| n).ok()?;
        let start = i.checked_sub(1).map_or(0, |p| self.index[p].1 as usize);
        self.text.get(start..self.index[i].1 as usize)
    }
}

/// A file a text came from, and what the file looked like then: a file changed since is not
/// taken for the text that was linted.
#[derive(Clone, Debug)]
struct Origin {
    path: std::path::PathBuf,
    /// Length of the decoded text.
    len: usize,
    modified: Option<std::time::SystemTime>,
    /// For a piece: how many bytes of the file it is, from [`Source::at`]'s byte offset
    /// (`None`: the whole file).
    bytes: Option<u64>,
    /// Stdin written to an unnamed temporary file: read again from this handle, not `path`
    /// (the system removes the file when the last handle closes, however the process ends).
    spool: Option<Arc<std::fs::File>>,
}

/// `len` bytes of `file` from `offset`, without moving the handle's position (the reader of
/// the pieces shares it).
#[cfg(unix)]
fn read_at(file: &std::fs::File, offset: u64, len: u64) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut bytes = vec![0; usize::try_from(len).ok()?];
    file.read_exact_at(&mut bytes, offset).ok()?;
    Some(bytes)
}

#[cfg(not(unix))]
fn read_at(_: &std::fs::File, _: u64, _: u64) -> Option<Vec<u8>> {
    None
}

/// Where a piece of an input can be read again (see [`Source::piece`]).
pub struct PieceFile {
    pub path: std::path::PathBuf,
    /// The file's modification time before it was read.
    pub modified: Option<std::time::SystemTime>,
    /// How many bytes of the file the piece is.
    pub bytes: u64,
    /// Stdin written to an unnamed temporary file: the handle to read it again from.
    pub spool: Option<Arc<std::fs::File>>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Arc<Source> {
        Arc::new(Source {
            name: name.into(),
            text: OnceLock::from(text.into()),
            origin: None,
            line_starts: OnceLock::new(),
            kept: KeptLines::default(),
            at: Offset::default(),
        })
    }

    /// A source read from the file at `path`, last modified at `modified` (taken before it was
    /// read), which can be [released](Source::released) and read again.
    pub fn from_file(
        name: impl Into<String>,
        text: String,
        path: &std::path::Path,
        modified: Option<std::time::SystemTime>,
    ) -> Arc<Source> {
        let origin = Origin {
            path: path.to_path_buf(),
            len: text.len(),
            modified,
            bytes: None,
            spool: None,
        };
        Arc::new(Source {
            name: name.into(),
            text: OnceLock::from(text),
            origin: Some(origin),
            line_starts: OnceLock::new(),
            kept: KeptLines::default(),
            at: Offset::default(),
        })
    }

    /// One piece of a large input, read in pieces so that the input is never held whole: its
    /// `text` starts `at` in the input, and was read from `file` when there is one to read it
    /// back from. Its lines keep their numbers in the whole input; consecutive pieces are made
    /// one source again by [`Source::joined`].
    pub fn piece(
        name: impl Into<String>,
        text: String,
        at: Offset,
        file: Option<PieceFile>,
    ) -> Arc<Source> {
        let origin = file.map(|f| Origin {
            path: f.path,
            len: text.len(),
            modified: f.modified,
            bytes: Some(f.bytes),
            spool: f.spool,
        });
        Arc::new(Source {
            name: name.into(),
            text: OnceLock::from(text),
            origin,
            line_starts: OnceLock::new(),
            kept: KeptLines::default(),
            at,
        })
    }

    /// Whether this is a piece of an input after its first (see [`Source::piece`]).
    pub fn continues(&self) -> bool {
        self.at.bytes > 0
    }

    /// How many lines of the input come before the text (0 but for a later piece).
    pub fn lines_before(&self) -> u32 {
        self.at.lines
    }

    /// The consecutive pieces of one input, first to last, as one source, as if the input had
    /// been read whole: released with the lines each piece kept, when they came from a file;
    /// else holding their texts joined (stdin has nothing to read back from).
    pub fn joined(pieces: &[Arc<Source>]) -> Arc<Source> {
        let first = &pieces[0];
        let Some(origin) = &first.origin else {
            let text: String = pieces.iter().map(|p| p.text()).collect();
            return Source::new(first.name.clone(), text);
        };
        let origin = Origin {
            len: pieces
                .iter()
                .map(|p| p.origin.as_ref().map_or(0, |o| o.len))
                .sum(),
            bytes: None,
            ..origin.clone()
        };
        Arc::new(Source {
            name: first.name.clone(),
            text: OnceLock::new(),
            origin: Some(origin),
            line_starts: OnceLock::new(),
            kept: KeptLines::join(pieces.iter().map(|p| (&p.kept, p.at.lines))),
            at: Offset::default(),
        })
    }

    /// The text: the whole input, or empty for a live object, or for a released source whose
    /// file cannot be read again as it was.
    pub fn text(&self) -> &str {
        self.text
            .get_or_init(|| self.read_again().unwrap_or_default())
    }

    /// The same source without its text in memory: it is read again from its file the first
    /// time it is needed. `None` for a text that has no file to come from (stdin, a git
    /// blob, a live object). A large `lint` keeps only the documents' positions, and reads back
    /// the few files whose lines a report prints.
    pub fn released(&self) -> Option<Arc<Source>> {
        self.released_keeping(Vec::new())
    }

    /// [`Source::released`], keeping the given 1-based `lines` of the text in memory: the lines
    /// a report will print, so that it need not read the file again (a `lint` of a hundred
    /// thousand documents spent a tenth of its time doing so).
    pub fn released_keeping(&self, lines: Vec<u32>) -> Option<Arc<Source>> {
        self.origin.as_ref()?;
        let mut released = self.with_own_text(OnceLock::new());
        if !lines.is_empty() {
            let before = self.at.lines;
            let lines = lines.into_iter().filter_map(|n| n.checked_sub(before));
            released.kept = KeptLines::of(self.text(), lines.collect());
        }
        Some(Arc::new(released))
    }

    /// Calls `f` with this source, able to give the 1-based `lines` without reading its file
    /// on each call: itself when its text is in memory or it keeps those lines, otherwise a
    /// copy holding the text for the call only. A report that prints lines file by file then
    /// holds one file's text at a time.
    pub fn with_lines<R>(
        &self,
        mut lines: impl Iterator<Item = u32>,
        f: impl FnOnce(&Source) -> R,
    ) -> R {
        if self.text.get().is_some()
            || self.origin.is_none()
            || lines.all(|n| self.kept_line(n).is_some())
        {
            return f(self);
        }
        let loaded = self.with_own_text(OnceLock::from(self.read_again().unwrap_or_default()));
        f(&loaded)
    }

    /// A handle for a short piece of work that needs the text: itself when its text is in
    /// memory or it has no file to read it from; otherwise a copy that reads the file on first
    /// use and lets the text go when the copy is dropped. Reading through the shared source
    /// would keep the text in memory for the rest of the run.
    pub fn transient(self: &Arc<Self>) -> Arc<Source> {
        if self.text.get().is_some() || self.origin.is_none() {
            return Arc::clone(self);
        }
        Arc::new(self.with_own_text(OnceLock::new()))
    }

    /// This source (same name and file) holding `text` instead of its own.
    fn with_own_text(&self, text: OnceLock<String>) -> Source {
        Source {
            name: self.name.clone(),
            text,
            origin: self.origin.clone(),
            line_starts: OnceLock::new(),
            kept: KeptLines::default(),
            at: self.at,
        }
    }

    /// The file's text if it is still what was read: same modification time and length (a
    /// piece's bytes only, from its offset).
    fn read_again(&self) -> Option<String> {
        let origin = self.origin.as_ref()?;
        if let Some(spool) = &origin.spool {
            // Nothing else can write an unnamed file: no time to compare.
            let len = match origin.bytes {
                Some(len) => len,
                None => spool.metadata().ok()?.len().checked_sub(self.at.bytes)?,
            };
            let text = decode(read_at(spool, self.at.bytes, len)?);
            return (text.len() == origin.len).then_some(text);
        }
        let modified = std::fs::metadata(&origin.path)
            .ok()
            .and_then(|m| m.modified().ok());
        if modified != origin.modified {
            return None;
        }
        let bytes = match origin.bytes {
            None => std::fs::read(&origin.path).ok()?,
            Some(len) => {
                use std::io::{Read, Seek};
                let mut file = std::fs::File::open(&origin.path).ok()?;
                file.seek(std::io::SeekFrom::Start(self.at.bytes)).ok()?;
                let mut bytes = Vec::with_capacity(len as usize);
                file.take(len).read_to_end(&mut bytes).ok()?;
                bytes
            }
        };
        let text = decode(bytes);
        (text.len() == origin.len).then_some(text)
    }

    /// A kept line by its number in the whole input.
    fn kept_line(&self, line: u32) -> Option<&str> {
        self.kept.get(line.checked_sub(self.at.lines)?)
    }

    /// A line number of the whole input as one of the text (1-based), if the text has it.
    fn own_line(&self, line: u32) -> Option<u32> {
        line.checked_sub(self.at.lines).filter(|&n| n > 0)
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text().match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        })
    }

    /// The text of one 1-based line, without its line ending.
    pub fn line(&self, line: u32) -> Option<&str> {
        let line = self.own_line(line)?;
        if self.text.get().is_none() {
            if let Some(kept) = self.kept.get(line) {
                return Some(kept);
            }
        }
        let starts = self.line_starts();
        let start = *starts.get(line as usize - 1)?;
        let end = starts
            .get(line as usize)
            .map_or(self.text().len(), |next| next - 1);
        let l = &self.text()[start..end];
        Some(l.strip_suffix('\r').unwrap_or(l))
    }
}

impl Source {
    /// The text of 1-based lines `first..=last` with their line endings (`last` is clamped to
    /// the end of the text).
    pub fn lines(&self, first: u32, last: u32) -> Option<&str> {
        let (first, last) = (self.own_line(first)?, last.checked_sub(self.at.lines)?);
        if last < first {
            return None;
        }
        let starts = self.line_starts();
        let start = *starts.get(first as usize - 1)?;
        let end = starts
            .get(last as usize)
            .copied()
            .unwrap_or(self.text().len());
        self.text().get(start..end)
    }
}

/// A scalar, sequence or mapping, after anchors, aliases and `<<` merge keys are resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// Inline when it fits in 24 bytes, as most keys and values do: a tree has a scalar for
    /// every few bytes of text, and a heap block for each is what lint's parse was slowest at
    /// (see `yaml::kept`).
    Str(CompactString),
    Seq(Vec<Node>),
    Map(Vec<Entry>),
}

/// One key/value pair of a mapping. Keys are kept as nodes so they have positions too.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: Node,
    pub value: Node,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    pub span: Span,
}

/// One step of a path into a document: a mapping key or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    Key(String),
    Index(usize),
}

impl From<&str> for Seg {
    fn from(s: &str) -> Seg {
        Seg::Key(s.to_string())
    }
}

impl From<usize> for Seg {
    fn from(i: usize) -> Seg {
        Seg::Index(i)
    }
}

/// A path into a document, printed the way Karmada reports fields: `spec.resourceSelectors[0].name`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldPath(pub Vec<Seg>);

impl FieldPath {
    pub fn root() -> FieldPath {
        FieldPath(Vec::new())
    }

    /// Parses the dotted form used in this code base: `spec.resourceSelectors[0].name`.
    /// Keys containing dots are not expressible here; use [`FieldPath::key`] for those.
    pub fn parse(s: &str) -> FieldPath {
        let mut segs = Vec::new();
        for part in s.split('.').filter(|p| !p.is_empty()) {
            let mut rest = part;
            if let Some(open) = rest.find('[') {
                segs.push(Seg::Key(rest[..open].to_string()));
                rest = &rest[open..];
                while let Some(stripped) = rest.strip_prefix('[') {
                    let close = stripped.find(']').unwrap_or(stripped.len());
                    if let Ok(i) = stripped[..close].parse() {
                        segs.push(Seg::Index(i));
                    }
                    rest = stripped.get(close + 1..).unwrap_or("");
                }
            } else {
                segs.push(Seg::Key(rest.to_string()));
            }
        }
        FieldPath(segs)
    }

    pub fn key(mut self, k: impl Into<String>) -> FieldPath {
        self.0.push(Seg::Key(k.into()));
        self
    }

    pub fn index(mut self, i: usize) -> FieldPath {
        self.0.push(Seg::Index(i));
        self
    }

    /// `f` with `seg` appended to this path while it runs: a walk grows one path in place
    /// instead of cloning the path at every field, which was most of what a walk cost.
    pub fn within<R>(&mut self, seg: Seg, f: impl FnOnce(&mut FieldPath) -> R) -> R {
        self.0.push(seg);
        let r = f(self);
        self.0.pop();
        r
    }

    /// Builds a path from a JSON Pointer (`/spec/resourceSelectors/0`), as jsonschema reports.
    /// A numeric segment is taken as an index only where the document has a sequence there.
    pub fn from_json_pointer(pointer: &str, root: &Node) -> FieldPath {
        let mut segs = Vec::new();
        let mut node = Some(root);
        for raw in pointer.split('/').skip(1) {
            let tok = raw.replace("~1", "/").replace("~0", "~");
            let seg = match (node.map(|n| &n.value), tok.parse::<usize>()) {
                (Some(Value::Seq(_)), Ok(i)) => Seg::Index(i),
                _ => Seg::Key(tok),
            };
            node = node.and_then(|n| n.child(&seg));
            segs.push(seg);
        }
        FieldPath(segs)
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for seg in &self.0 {
            match seg {
                Seg::Key(k) => {
                    if !first {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Seg::Index(i) => write!(f, "[{i}]")?,
            }
            first = false;
        }
        Ok(())
    }
}

impl Node {
    pub fn new(value: Value, span: Span) -> Node {
        Node { value, span }
    }

    /// The value under `key` when this node is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    /// The whole entry (key and value) under `key` when this node is a mapping.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .rev() // the last of duplicate keys wins, as in the API server
                .find(|e| e.key.as_str() == Some(key)),
            _ => None,
        }
    }

    pub fn child(&self, seg: &Seg) -> Option<&Node> {
        match (seg, &self.value) {
            (Seg::Key(k), Value::Map(_)) => self.get(k),
            (Seg::Index(i), Value::Seq(items)) => items.get(*i),
            _ => None,
        }
    }

    /// The node at `path`, if the document has it.
    pub fn at(&self, path: &FieldPath) -> Option<&Node> {
        path.0.iter().try_fold(self, |n, seg| n.child(seg))
    }

    /// The best position for a finding about `path`: the key of the deepest existing mapping
    /// entry on the path (so "unknown field" points at the field's name), or the value for
    /// sequence items, or the deepest existing ancestor when the field is missing.
    pub fn locate(&self, path: &FieldPath) -> Span {
        let mut node = self;
        let mut span = self.span;
        for seg in &path.0 {
            match seg {
                Seg::Key(k) => match node.entry(k) {
                    Some(e) => {
                        span = e.key.span;
                        node = &e.value;
                    }
                    // A missing field inside a list item: point at the item's first line
                    // rather than at the whole (multi-line) item.
                    None if span.end.line > span.start.line => {
                        return node
                            .as_map()
                            .and_then(|m| m.first())
                            .map_or(span, |e| e.key.span)
                    }
                    None => return span,
                },
                Seg::Index(i) => match &node.value {
                    Value::Seq(items) if *i < items.len() => {
                        node = &items[*i];
                        span = node.span;
                    }
                    _ => return span,
                },
            }
        }
        span
    }

    /// The position of the value at `path` (or the closest existing ancestor).
    pub fn locate_value(&self, path: &FieldPath) -> Span {
        match self.at(path) {
            Some(n) => n.span,
            None => self.locate(path),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A scalar as the string it stands for (`app: 1` is "1"); `None` for null, a list or a
    /// mapping.
    pub fn scalar_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        use std::borrow::Cow;
        match &self.value {
            Value::Str(s) => Some(Cow::Borrowed(s)),
            Value::Int(i) => Some(Cow::Owned(i.to_string())),
            Value::Bool(b) => Some(Cow::Owned(b.to_string())),
            Value::Float(f) => Some(Cow::Owned(f.to_string())),
            _ => None,
        }
    }

    /// A mapping's entries whose key and value are scalars, as strings (`postBuild.substitute`,
    /// a ConfigMap's `data`); other entries and a non-mapping give nothing.
    pub fn scalar_pairs(&self) -> impl Iterator<Item = (String, String)> + '_ {
        self.as_map().unwrap_or(&[]).iter().filter_map(|e| {
            Some((
                e.key.as_str()?.to_string(),
                e.value.scalar_text()?.into_owned(),
            ))
        })
    }

    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// Converts to JSON as the API server would see the object (last duplicate key wins).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.as_str().to_owned()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => {
                let mut map = serde_json::Map::with_capacity(entries.len());
                for e in entries {
                    let key = match &e.key.value {
                        Value::Str(s) => s.as_str().to_owned(),
                        other => scalar_key_text(other),
                    };
                    // `insert` on an existing key keeps the first position: remove first so the
                    // later value also takes the later place, as a re-decode would. The entry
                    // hashes the key once where remove-then-insert hashed it twice.
                    match map.entry(key) {
                        serde_json::map::Entry::Vacant(place) => {
                            place.insert(e.value.to_json());
                        }
                        serde_json::map::Entry::Occupied(earlier) => {
                            let (key, _) = earlier.remove_entry();
                            map.insert(key, e.value.to_json());
                        }
                    }
                }
                J::Object(map)
            }
        }
    }

    /// Builds a node tree from JSON (live objects), every node at `span`.
    pub fn from_json(v: &serde_json::Value, span: Span) -> Node {
        use serde_json::Value as J;
        let value = match v {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            J::String(s) => Value::Str(s.as_str().into()),
            J::Array(a) => Value::Seq(a.iter().map(|x| Node::from_json(x, span)).collect()),
            J::Object(o) => Value::Map(
                o.iter()
                    .map(|(k, x)| Entry {
                        key: Node::new(Value::Str(k.as_str().into()), span),
                        value: Node::from_json(x, span),
                    })
                    .collect(),
            ),
        };
        Node { value, span }
    }
}

pub(crate) fn scalar_key_text(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Str(s) => s.as_str().to_owned(),
        Value::Seq(_) | Value::Map(_) => "<complex key>".into(),
    }
}

/// One parsed document: its tree, where it came from and its place in that source.
#[derive(Clone, Debug)]
pub struct Document {
    pub source: Arc<Source>,
    /// 0-based position among the documents of its source.
    pub index: usize,
    pub root: Node,
    /// `Some` when `root` holds only part of the tree (`lint` lets most of a large input's
    /// trees go once each file is checked): the function says which paths the part locates
    /// exactly as the whole tree would. [`Document::tree_for`] and [`Document::full_tree`]
    /// parse the whole one again where needed.
    pub partial: Option<fn(&FieldPath) -> bool>,
}

impl Document {
    pub fn new(source: Arc<Source>, index: usize, root: Node) -> Document {
        Document {
            source,
            index,
            root,
            partial: None,
        }
    }

    /// Whether `root` locates `path` as the whole tree would.
    pub fn keeps(&self, path: &FieldPath) -> bool {
        self.partial.is_none_or(|keeps| keeps(path))
    }

    /// A tree in which `path` is where it is in the whole document: `root` if it
    /// [keeps](Document::keeps) the path, else the [`Document::full_tree`].
    pub fn tree_for(&self, path: &FieldPath) -> std::borrow::Cow<'_, Node> {
        if self.keeps(path) {
            std::borrow::Cow::Borrowed(&self.root)
        } else {
            self.full_tree()
        }
    }

    /// A short identity for messages: `file.yaml` or `file.yaml#2` for later documents.
    pub fn label(&self) -> String {
        if self.index == 0 {
            self.source.name.clone()
        } else {
            format!("{}#{}", self.source.name, self.index + 1)
        }
    }
}

/// Text from bytes: a UTF-8 BOM is dropped; invalid UTF-8 is replaced rather than rejected, so
/// one odd byte yields a finding on that line instead of losing the file.
pub fn decode(bytes: Vec<u8>) -> String {
    let text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_released_text_is_read_again_only_if_the_file_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.yaml");
        std::fs::write(&path, "a: 1\nb: 2\n").unwrap();
        let modified = std::fs::metadata(&path).unwrap().modified().ok();
        let read = std::fs::read_to_string(&path).unwrap();
        let source = Source::from_file("p.yaml", read, &path, modified);
        let released = source.released().expect("a file can be read again");
        assert_eq!(released.name, "p.yaml");
        assert_eq!(
            released.with_lines([2].into_iter(), |s| s.line(2).map(str::to_string)),
            Some("b: 2".to_string())
        );
        assert!(released.text.get().is_none(), "with_lines keeps nothing");
        assert_eq!(released.line(2), Some("b: 2"));
        assert_eq!(released.text(), source.text());

        // Changed since it was read: no text rather than the wrong lines.
        let stale = source.released().unwrap();
        std::fs::write(&path, "a: 1\nb: 3\nc: 4\n").unwrap();
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(later)
            .unwrap();
        assert_eq!(stale.text(), "");
        assert_eq!(stale.line(2), None);

        // Stdin, git blobs and live objects have no file to read again.
        assert!(Source::new("<stdin>", "a: 1\n").released().is_none());
    }

    #[test]
    fn kept_lines_are_printed_without_reading_the_file_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.yaml");
        let text = "a: 1\r\nb: 2\nc: 3\nd: 4";
        std::fs::write(&path, text).unwrap();
        let modified = std::fs::metadata(&path).unwrap().modified().ok();
        let source = Source::from_file("p.yaml", text.to_string(), &path, modified);
        let released = source.released_keeping(vec![4, 0, 1, 9, 1]).unwrap();
        // Gone from disk: only what was kept can be shown.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(released.line(1), Some("a: 1"), "line ending dropped");
        assert_eq!(released.line(4), Some("d: 4"), "last line, no newline");
        assert_eq!(released.line(0), None);
        let kept = released.with_lines([1, 4].into_iter(), |s| {
            (s.line(1).map(str::to_string), s.line(4).map(str::to_string))
        });
        assert_eq!(kept, (Some("a: 1".into()), Some("d: 4".into())));
        // A line not kept needs the file, which is gone: nothing rather than a wrong line.
        assert!(!released.with_lines([2].into_iter(), |s| s.line(2).is_some()));
        assert_eq!(released.line(2), None);
    }

    #[test]
    fn a_kept_line_is_the_line_the_whole_text_gives() {
        let text = "x\n\n  y: 1\r\nz\n";
        let kept = KeptLines::of(text, (0..8).collect());
        let whole = Source::new("t", text);
        for n in 0..8 {
            assert_eq!(kept.get(n), whole.line(n), "line {n}");
        }
        let long = "k: ".to_string() + &"v".repeat(MAX_KEPT_LINE);
        assert_eq!(
            KeptLines::of(&long, vec![1]).get(1),
            None,
            "too long to keep"
        );
    }

    #[test]
    fn field_path_round_trips_karmada_notation() {
        let p = FieldPath::parse("spec.resourceSelectors[0].name");
        assert_eq!(
            p.0,
            vec![
                Seg::Key("spec".into()),
                Seg::Key("resourceSelectors".into()),
                Seg::Index(0),
                Seg::Key("name".into())
            ]
        );
        assert_eq!(p.to_string(), "spec.resourceSelectors[0].name");
        assert_eq!(FieldPath::parse("a[1][2]").to_string(), "a[1][2]");
    }
}
