//! The effects of `suspend` and `resume`: the byte-preserving YAML edits of policy files.

pub mod edit;
