//! kubectl-karmada-policy: a linter and inspector for Karmada propagation policies.
//!
//! Data flows one way: [`source`] turns bytes into positioned documents, [`model`] types them,
//! [`engine`] decides what Karmada would decide (pure, no I/O), and the consumers ([`lint`],
//! [`ops`], [`inspect`], then [`output`] and [`cli`]) format or act on those decisions.

pub mod cli;
pub mod context;
pub mod engine;
pub mod inspect;
pub mod kube;
pub mod lint;
pub mod model;
pub mod ops;
pub mod output;
pub mod schema;
pub mod source;
pub mod util;
