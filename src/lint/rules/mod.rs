//! One file per rule: its doc, its check and its tests.
