//! The registry of rules: ids, docs and default severities. `--list-rules`, `--explain`, the
//! README table and SARIF rule metadata are all generated from here.

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

/// Every rule the tool knows, in a stable order (input, schema, admission, semantics).
pub fn all() -> Vec<RuleDoc> {
    let mut out: Vec<RuleDoc> = super::rules::input::DOCS
        .iter()
        .map(|d| (*d).clone())
        .collect();
    out.push(super::suppress::INVALID_IGNORE.clone());
    out.push(super::gitops::RENDER_FAILED.clone());
    out.extend(super::rules::schema::docs());
    out.extend(super::rules::admission::docs());
    out.push(super::rules::duplicate_identity::DOC.clone());
    out.extend(super::rules::suspension::DOCS.iter().map(|d| (*d).clone()));
    out.push(super::rules::suspension_age::DOC.clone());
    out.push(super::rules::failover_gate::DOC.clone());
    out.extend(super::rules::overrides::DOCS.iter().map(|d| (*d).clone()));
    out.extend(super::rules::overlap::DOCS.iter().map(|d| (*d).clone()));
    out.extend(super::rules::preemption::DOCS.iter().map(|d| (*d).clone()));
    out.push(super::rules::dead_policy::DOC.clone());
    out
}

/// Whether `id` names a rule (for config files and inline ignores).
pub fn is_known(id: &str) -> bool {
    all().iter().any(|r| r.id == id)
}

/// Looks a rule up by id; `_` and case are forgiven (`Overlap`, `dead_policy`).
pub fn find(id: &str) -> Option<RuleDoc> {
    let wanted = id.trim().to_ascii_lowercase().replace('_', "-");
    all().into_iter().find(|r| r.id == wanted)
}

/// The README's rule table (between `<!-- rules:start -->` and `<!-- rules:end -->`).
pub fn markdown_table() -> String {
    let mut out = String::from("| Rule | Group | Default | What it finds |\n|---|---|---|---|\n");
    for r in all() {
        out.push_str(&format!(
            "| [`{id}`](docs/rules.md#{id}) | {} | {} | {} |\n",
            r.group.as_str(),
            r.default_severity.as_str(),
            r.summary.replace('|', "\\|"),
            id = r.id
        ));
    }
    out
}

/// `docs/rules.md`: the full documentation of every rule, the target of SARIF `helpUri`s.
pub fn markdown_reference() -> String {
    let mut out = String::from(
        "# Rules\n\nGenerated from the rule registry (`kubectl karmada-policy lint --explain RULE-ID` prints the same text).\n",
    );
    for r in all() {
        out.push_str(&format!(
            "\n## {}\n\n*{} rule, default severity {}.* {}\n\n**Why.** {}\n\n**Example.**\n\n```yaml\n{}{}```\n\n**Fix.** {}\n",
            r.id,
            r.group.as_str(),
            r.default_severity.as_str(),
            r.summary,
            r.rationale,
            r.example,
            if r.example.ends_with('\n') { "" } else { "\n" },
            r.fix
        ));
        if !r.reference.is_empty() {
            out.push_str(&format!("\n**Reference.** {}\n", r.reference));
        }
    }
    out
}
