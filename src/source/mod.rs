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

pub use document::{Document, Entry, FieldPath, Node, Pos, Seg, Source, Span, Value};
pub use yaml::{data_note, data_notes, load, LoadProblem, Loaded, ProblemKind};
