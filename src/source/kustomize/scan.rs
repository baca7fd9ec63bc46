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
//! - text that is not YAML, or holds an unrendered `{{ }}` template (both left to the checks
//!   of the text itself, which say them at their line);
//! - a document that is neither empty (only comments, `null`, `{}`, `[]`) nor a mapping with
//!   `apiVersion`, `kind` or non-empty `metadata` (`missing Resource metadata`): a values file,
//!   a list or a scalar at the top;
//! - an object without `kind`, or without `metadata.name` unless its kind ends in `List`;
//! - a `…List` whose `items` is not a list, or holds an item that fails the same checks.

use std::path::PathBuf;

use crate::source::{Node, Value};

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
        let message = decode_error(&std::fs::read_to_string(f).ok()?)?;
        Some(Undecodable {
            file: f.clone(),
            line: 1,
            message,
        })
    })
}

/// Why kustomize's resource factory, as Flux's `scanManifests` runs it, refuses the objects
/// of `text`; `None` when they decode (possibly into nothing), or when the text is not YAML
/// or holds an unrendered `{{ }}` template: that the lint of the file says at its line
/// (`yaml-syntax`), as it always did.
pub fn decode_error(text: &str) -> Option<String> {
    if unrendered_template(text) {
        return None;
    }
    // kyaml's ByteReader reads Windows line endings as `\n` (kio/byteio_reader.go `Read`).
    let text = text.replace("\r\n", "\n");
    crate::source::yaml::parse_roots(&text)
        .iter()
        .find_map(object_error)
}

/// Whether a line that is not a comment holds `{{`.
fn unrendered_template(text: &str) -> bool {
    text.lines()
        .any(|l| !l.trim_start().starts_with('#') && l.contains("{{"))
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
        ] {
            assert_eq!(decode_error(text), None, "{text}");
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
            assert_eq!(decode_error(text).as_deref(), Some(why), "{text}");
        }
        // Not YAML: left to the checks of the text.
        assert_eq!(decode_error("a: [\n"), None);
        assert_eq!(decode_error("kind: A\nmetadata:\n  name: {{name}}\n"), None);
    }
}
