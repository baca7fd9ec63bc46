//! `lint`: findings over a set of documents.

pub mod finding;
pub mod registry;
pub mod rules;

pub use finding::{Finding, Location, Related, Severity};
pub use registry::{RuleDoc, RuleGroup};
