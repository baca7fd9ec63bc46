//! What a rule is: its id, group, default severity and documentation (the clippy/ruff skeleton:
//! what, why, example, fix). A leaf: every rule unit under `lint/rules/` imports it, and so do
//! the registry and the renderers of rule docs, while it imports only the severity type.

use super::finding::Severity;

/// Which stage a rule belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleGroup {
    /// The text itself: YAML syntax, duplicate keys, templating.
    Input,
    /// The CRD's OpenAPI schema (unknown fields, types, enums, required).
    Schema,
    /// Karmada's validating webhooks: the API server would reject the object.
    Admission,
    /// What a set of accepted policies will do together.
    Semantics,
}

impl RuleGroup {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleGroup::Input => "input",
            RuleGroup::Schema => "schema",
            RuleGroup::Admission => "admission",
            RuleGroup::Semantics => "semantics",
        }
    }
}

/// The documentation of one rule (the clippy/ruff skeleton: what, why, example, fix).
#[derive(Clone, Debug)]
pub struct RuleDoc {
    pub id: &'static str,
    pub group: RuleGroup,
    pub default_severity: Severity,
    /// One line: what the rule finds.
    pub summary: &'static str,
    /// Why it matters.
    pub rationale: &'static str,
    /// A manifest that triggers the rule.
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// Where the behaviour comes from (Karmada source, spec section).
    pub reference: &'static str,
}
