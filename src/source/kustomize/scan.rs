//! Which files of a plain directory Flux's kustomize-controller can decode.
//!
//! For a directory without a kustomization, the controller generates one listing every
//! `.yaml`/`.yml` file below it (fluxcd/pkg kustomize/kustomize_generator.go, `scanManifests`);
//! each file is first decoded with kustomize's resource factory (`rf.SliceFromBytes`), and one
//! that does not decode fails the whole build: `failed to decode Kubernetes YAML from <file>:
//! <why>`, whatever the Flux Kustomization sets. What the factory refuses is kustomize's
//! (api/resource/factory.go `RNodesFromBytes`, `dropBadNodes`, `inlineAnyEmbeddedLists`;
//! kyaml/yaml/rnode.go `GetMeta`, `GetValidatedMetadata`):
//!
//! - text that is not YAML (kyaml kio/byteio_reader.go `ByteReader.decode`: yaml.v3's error
//!   behind `MalformedYAMLError`; an unrendered `{{ }}` template is what YAML makes of it,
//!   mostly no YAML at all), or a line starting with `---` and holding more than a comment
//!   (`splitDocuments`: `invalid document separator`). Each document is decoded on its own, all
//!   of them before any is checked as an object;
//! - a document that is neither empty (only comments, `null`, `{}`, `[]`) nor a mapping with
//!   `apiVersion`, `kind` or non-empty `metadata` (`missing Resource metadata`): a values file,
//!   a list or a scalar at the top;
//! - an object without `kind`, or without `metadata.name` unless its kind ends in `List`;
//! - a `…List` whose `items` is not a list, or holds an item that fails the same checks.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::source::{Loaded, Node, Value};

/// Flux's verdict on a plain directory it generates a kustomization for: the file its
/// `scanManifests` cannot decode, which fails the whole build before anything is built.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, thiserror::Error)]
#[error("failed to decode Kubernetes YAML from {}: {message}", file.display())]
pub struct Undecodable {
    pub file: PathBuf,
    /// The line of `file` the failure is at (1 when the reason names no place).
    pub line: u32,
    /// Why, in kustomize's words (what follows the file in Flux's message).
    pub message: String,
}

/// The first of `files` Flux cannot decode, and why (a file that cannot be read is left to the
/// build to report). `files` are taken in the order given: the order Flux's walk meets them.
pub fn first_undecodable(files: &[PathBuf]) -> Option<Undecodable> {
    files.iter().filter(|f| f.is_file()).find_map(|f| {
        let error = decode_error(&std::fs::read_to_string(f).ok()?)?;
        Some(Undecodable {
            file: f.clone(),
            line: error.line(),
            message: error.to_string(),
        })
    })
}

/// Why kustomize's resource factory refuses a text, in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A line starting with `---` holds more than a comment after it (kyaml `splitDocuments`).
    #[error("invalid document separator: {separator}")]
    Separator { line: u32, separator: String },
    /// A document is not YAML (kyaml `ByteReader.decode`). The reason is this tool's YAML
    /// parser's, and the line the file's: yaml.v3 counts from the document's first line.
    #[error("MalformedYAMLError: yaml: line {line}: {reason}")]
    Malformed { line: u32, reason: String },
    /// A document is YAML but no resource kustomize accepts (`dropBadNodes`,
    /// `inlineAnyEmbeddedLists`).
    #[error("{0}")]
    Object(String),
}

impl DecodeError {
    /// The line of the text the failure is at (1 for an object: the reason names no place).
    pub fn line(&self) -> u32 {
        match self {
            DecodeError::Separator { line, .. } | DecodeError::Malformed { line, .. } => *line,
            DecodeError::Object(_) => 1,
        }
    }
}

/// Why kustomize's resource factory, as Flux's `scanManifests` runs it, refuses `text`;
/// `None` when it decodes (possibly into nothing). As kyaml's `ByteReader.Read` does: the
/// text cut into documents, each decoded (one YAML document from each piece), then the
/// objects checked.
pub fn decode_error(text: &str) -> Option<DecodeError> {
    // kyaml's ByteReader reads Windows line endings as `\n` (kio/byteio_reader.go `Read`).
    let text = text.replace("\r\n", "\n");
    let pieces = match split_documents(&text) {
        Ok(pieces) => pieces,
        Err(e) => return Some(e),
    };
    let mut roots = Vec::new();
    for (first_line, piece) in pieces {
        match crate::source::yaml::try_parse_roots(piece) {
            Ok(found) => roots.extend(found.into_iter().next()),
            Err(e) => {
                return Some(DecodeError::Malformed {
                    line: first_line + e.line - 1,
                    reason: e.reason,
                })
            }
        }
    }
    roots.iter().find_map(object_error).map(DecodeError::Object)
}

/// The documents of a plain file that kyaml's reader gives Flux: the first of each piece
/// between `---` lines. `ByteReader.Read` (kio/byteio_reader.go) decodes one document from each
/// piece, so a document after a `...` end marker with no `---` before it is never read, and
/// never applied. (The loader skips empty documents: a piece `null`, `...`, an object keeps
/// the object here, which kyaml drops after the null one.)
pub fn read_as_flux(mut loaded: Loaded) -> Loaded {
    let mut read = flux_reads(&loaded).into_iter();
    loaded.documents.retain(|_| read.next().unwrap_or(true));
    loaded
}

/// The line of the first document of `loaded` that Flux never reads ([`read_as_flux`]).
pub fn first_unread(loaded: &Loaded) -> Option<u32> {
    let read = flux_reads(loaded);
    loaded
        .documents
        .iter()
        .zip(read)
        .find(|(_, read)| !read)
        .map(|(d, _)| d.root.span.start.line)
}

/// Whether kyaml's reader reads each document of `loaded` (all, when the text does not split:
/// the build then fails on the file before anything is read, [`decode_error`]).
fn flux_reads(loaded: &Loaded) -> Vec<bool> {
    let text = loaded.source.text().replace("\r\n", "\n");
    let Ok(pieces) = split_documents(&text) else {
        return vec![true; loaded.documents.len()];
    };
    let starts: Vec<u32> = pieces.iter().map(|(line, _)| *line).collect();
    let mut pieces_read = BTreeSet::new();
    loaded
        .documents
        .iter()
        .map(|d| {
            pieces_read.insert(starts.partition_point(|&start| start <= d.root.span.start.line))
        })
        .collect()
}

/// kyaml's `splitDocuments`: `text` cut at every `\n---…\n` (a line starting with `---`,
/// ended by a newline), each piece with the 1-based line it starts at. A separator line with
/// more after the `---` than a comment is refused.
fn split_documents(text: &str) -> Result<Vec<(u32, &str)>, DecodeError> {
    let mut pieces = Vec::new();
    let (mut start, mut line) = (0, 1);
    while let Some(at) = text[start..].find("\n---").map(|i| start + i) {
        // Without a newline after it the regular expression kyaml cuts with matches no more.
        let Some(end) = text[at + 1..].find('\n').map(|e| at + 1 + e + 1) else {
            break;
        };
        // The separator's line: the piece's lines, counted once each.
        let separator_line = line + text[start..at].matches('\n').count() as u32 + 1;
        let after = text[at + 4..end].trim();
        if !after.is_empty() && !after.starts_with('#') {
            return Err(DecodeError::Separator {
                line: separator_line,
                separator: text[at + 1..end].trim().to_string(),
            });
        }
        pieces.push((line, &text[start..at]));
        (start, line) = (end, separator_line + 1);
    }
    pieces.push((line, &text[start..]));
    Ok(pieces)
}

/// Why one decoded node is not a resource kustomize accepts (`dropBadNodes`, then the items
/// of a list, `inlineAnyEmbeddedLists`).
fn object_error(node: &Node) -> Option<String> {
    if nil_or_empty(node) {
        return None;
    }
    let kind = match meta_kind(node) {
        Ok(kind) => kind,
        Err(e) => return Some(e.to_string()),
    };
    if kind.is_empty() {
        return Some("missing kind in object".into());
    }
    if !kind.ends_with("List") {
        let named = node
            .get("metadata")
            .and_then(|m| m.get("name"))
            .filter(|n| !nil_or_empty(n))
            .and_then(|n| n.scalar_text())
            .is_some_and(|n| !n.is_empty());
        return (!named).then(|| "missing metadata.name in object".into());
    }
    match node.get("items").map(|i| &i.value) {
        None | Some(Value::Null) => None,
        Some(Value::Seq(items)) => items.iter().find_map(object_error),
        Some(_) => Some(format!("expected array in {kind}/items")),
    }
}

/// The `missing Resource metadata` of kyaml's `GetMeta`: a node with none of `apiVersion`,
/// `kind` and a non-empty `metadata`.
#[derive(Debug, thiserror::Error)]
#[error("missing Resource metadata")]
struct MissingMetadata;

/// The object's kind (empty when it has none), as kyaml's `GetMeta` reads it.
fn meta_kind(node: &Node) -> Result<String, MissingMetadata> {
    let field = |key: &str| node.get(key).filter(|v| !nil_or_empty(v));
    let kind = field("kind");
    let metadata = field("metadata").is_some_and(has_meta);
    if field("apiVersion").is_none() && kind.is_none() && !metadata {
        return Err(MissingMetadata);
    }
    Ok(kind
        .and_then(|k| k.scalar_text())
        .map(|k| k.into_owned())
        .unwrap_or_default())
}

/// Whether `metadata` has any of the fields `GetMeta` reads.
fn has_meta(metadata: &Node) -> bool {
    ["name", "namespace", "labels", "annotations"]
        .iter()
        .any(|k| metadata.get(k).is_some_and(|v| !nil_or_empty(v)))
}

/// kyaml's `IsYNodeNilOrEmpty`: null, an empty mapping or an empty list.
fn nil_or_empty(node: &Node) -> bool {
    match &node.value {
        Value::Null => true,
        Value::Map(m) => m.is_empty(),
        Value::Seq(s) => s.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::decode_error;

    /// What kustomize's factory says of `text`, and at which line.
    fn refused(text: &str) -> Option<(u32, String)> {
        decode_error(text).map(|e| (e.line(), e.to_string()))
    }

    #[test]
    fn objects_and_empty_documents_decode() {
        for text in [
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
            "# only a comment\n",
            "",
            "---\n---\n",
            "null\n",
            "{}\n",
            "apiVersion: v1\nkind: List\n",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n",
            "kind: ConfigMap\nmetadata: {name: a}\n---\n# trailing comment\n",
            "kind: ConfigMap\nmetadata: {name: a}\n--- # a comment after the separator\nkind: ConfigMap\nmetadata: {name: b}\n",
            "kind: ConfigMap\r\nmetadata: {name: a}\r\n---\r\nkind: Secret\r\nmetadata: {name: b}\r\n",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
    }

    #[test]
    fn what_is_not_a_kubernetes_object_fails() {
        for (text, why) in [
            ("foo: bar\nlist: [1,2]\n", "missing Resource metadata"),
            ("- a\n- b\n", "missing Resource metadata"),
            ("just text\n", "missing Resource metadata"),
            ("metadata: {}\nspec: {}\n", "missing Resource metadata"),
            (
                "apiVersion: v1\nmetadata: {name: a}\n",
                "missing kind in object",
            ),
            (
                "apiVersion: v1\nkind: ConfigMap\n",
                "missing metadata.name in object",
            ),
            (
                "kind: ConfigMapList\nitems:\n- foo: bar\n",
                "missing Resource metadata",
            ),
            ("kind: List\nitems: 3\n", "expected array in List/items"),
            (
                "kind: ConfigMap\nmetadata: {name: a}\n---\nfoo: bar\n",
                "missing Resource metadata",
            ),
        ] {
            assert_eq!(refused(text), Some((1, why.to_string())), "{text}");
        }
    }

    /// Text that is not YAML fails the build as kyaml's reader refuses it (kio/byteio_reader.go
    /// `ByteReader.decode`: `MalformedYAMLError`), at the line of the file it is at, before any
    /// object of the file is looked at.
    #[test]
    fn text_that_is_not_yaml_fails() {
        let (line, why) = refused("kind: ConfigMap\nmetadata:\n  name: [a\n").unwrap();
        assert!(
            why.starts_with("MalformedYAMLError: yaml: line 3: "),
            "{why}"
        );
        assert_eq!(line, 3);
        // In a later document: the line of the file, and a syntax error wins over an object
        // error of an earlier document (the reader reads them all first).
        let text = "foo: bar\n---\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {a: [}\n";
        let (line, why) = refused(text).unwrap();
        assert!(
            why.starts_with("MalformedYAMLError: yaml: line 6: "),
            "{why}"
        );
        assert_eq!(line, 6);
    }

    /// An unrendered Helm template is what YAML makes of it (yaml.v3 reads `{{ x }}` as a
    /// mapping used as a key): most templates do not parse at all, one in `metadata.name`
    /// leaves the object nameless, and one in a value elsewhere decodes.
    #[test]
    fn an_unrendered_template_fails_as_yaml_reads_it() {
        let helm = "{{- if .Values.enabled }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n{{- end }}\n";
        let (line, why) = refused(helm).unwrap();
        assert!(why.starts_with("MalformedYAMLError: yaml: line "), "{why}");
        assert!(line >= 1, "{line}");
        assert_eq!(
            refused("kind: A\nmetadata:\n  name: {{name}}\n"),
            Some((1, "missing metadata.name in object".to_string()))
        );
        assert_eq!(
            refused("kind: ConfigMap\nmetadata: {name: a}\ndata:\n  x: {{ .Values.x }}\n"),
            None
        );
    }

    /// Each piece starts on the line after its separator; a `---` with no newline after it
    /// (the file's last line) cuts nothing, as kyaml's expression needs one.
    #[test]
    fn pieces_start_after_their_separator() {
        let text = "a: 1\n---\n\nb: 2\n--- # c\nc: 3\n---";
        assert_eq!(
            super::split_documents(text).unwrap(),
            vec![(1, "a: 1"), (3, "\nb: 2"), (6, "c: 3\n---")]
        );
        assert_eq!(super::split_documents("").unwrap(), vec![(1, "")]);
    }

    /// kyaml's reader decodes one document per piece between `---` lines (kio/byteio_reader.go
    /// `ByteReader.Read`): one after a `...` end marker in the same piece is dropped.
    #[test]
    fn flux_reads_the_first_document_of_each_piece() {
        let names = |text: &str| -> Vec<String> {
            let loaded = crate::source::load(crate::source::Source::new("a.yaml", text));
            super::read_as_flux(loaded)
                .documents
                .iter()
                .map(|d| {
                    d.root
                        .get("metadata")
                        .and_then(|m| m.get("name"))
                        .and_then(crate::source::Node::as_str)
                        .unwrap_or("")
                        .to_string()
                })
                .collect()
        };
        let a = "kind: A\nmetadata: {name: a}\n";
        let b = "kind: B\nmetadata: {name: b}\n";
        let c = "kind: C\nmetadata: {name: c}\n";
        assert_eq!(names(&format!("{a}...\n{b}")), ["a"]);
        assert_eq!(names(&format!("{a}...\n---\n{b}")), ["a", "b"]);
        assert_eq!(names(&format!("{a}---\n{b}...\n{c}")), ["a", "b"]);
        let crlf = format!("{a}...\n{b}---\n{c}").replace('\n', "\r\n");
        assert_eq!(names(&crlf), ["a", "c"]);
        let loaded =
            crate::source::load(crate::source::Source::new("a.yaml", format!("{a}...\n{b}")));
        assert_eq!(super::first_unread(&loaded), Some(4));
    }

    /// kyaml splits the text at lines starting with `---` and refuses one with more than a
    /// comment after it (kio/byteio_reader.go `splitDocuments`).
    #[test]
    fn a_separator_with_text_after_it_fails() {
        for (text, line, separator) in [
            (
                "kind: A\nmetadata: {name: a}\n--- foo\nkind: B\n",
                3,
                "--- foo",
            ),
            ("kind: A\nmetadata: {name: a}\n----\n", 3, "----"),
        ] {
            assert_eq!(
                refused(text),
                Some((line, format!("invalid document separator: {separator}"))),
                "{text}"
            );
        }
    }
}
