//! One file per rule (or per family of closely related rules): its doc, its check and its tests.

pub mod input;
