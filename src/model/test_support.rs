//! Helpers for unit tests that build an inventory from YAML text.

use super::Inventory;
use crate::source::{load, Source};

/// The inventory of one YAML text loaded as file `name`.
pub fn inventory(name: &str, text: &str) -> Inventory {
    let mut l = load(Source::new(name, text));
    Inventory::from_documents(std::mem::take(&mut l.documents), "default")
}

/// A PropagationPolicy `default/NAME` selecting the Deployment `nginx`, with `extra` spec lines
/// (indented by two spaces, each ending in a newline) before its selectors.
pub fn pp(name: &str, extra: &str) -> String {
    format!(
        "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n{extra}  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n"
    )
}
