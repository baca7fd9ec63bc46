//! The effects of `suspend` and `resume`, planned as values and then applied: `plan` (pure:
//! the selection and a write plan per policy, named or freeze mode), `file` (manifests loaded for
//! editing, the stamp check, the atomic write), `layered` (the layer of a kustomize tree an edit
//! goes to), `live` (the one live writer), `edit` (the
//! byte-preserving YAML edits), and `suspend`, the steps a run goes through.

pub mod edit;
pub mod file;
pub mod layered;
pub mod live;
pub mod plan;
pub mod request;
pub mod suspend;
