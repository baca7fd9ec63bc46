//! Sources turn bytes into positioned [`Document`]s. Nothing downstream reads files.

pub mod completion;
pub mod de;
pub mod document;
pub mod files;
pub mod git;
pub mod kustomize;
pub mod live;
pub mod pieces;
pub mod policy_reads;
pub mod prefilter;
pub mod session;
pub mod yaml;

pub use document::{Document, Entry, FieldPath, Location, Node, Pos, Seg, Source, Span, Value};
pub use yaml::{data_note, data_notes, load, LoadProblem, Loaded, ProblemKind};

/// Every document of the repository's test data and, when present, of the shared corpus of
/// real Karmada YAML: what tests that compare two readings of a manifest run over.
#[cfg(test)]
pub(crate) fn test_data_documents() -> Vec<Document> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = [root.join("testdata"), root.join("../shared/corpus")];
    let mut docs = Vec::new();
    for dir in dirs.iter().filter(|d| d.exists()) {
        let paths = files::expand(&[dir.display().to_string()], &|_| false)
            .expect("the test data can be listed");
        for path in paths {
            if let Ok(text) = std::fs::read_to_string(&path) {
                docs.extend(load(Source::new(path.display().to_string(), text)).documents);
            }
        }
    }
    docs
}
