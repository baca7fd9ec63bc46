//! Rule documentation, rendered from the registry: `lint --list-rules`, `lint --explain RULE`,
//! and `docs/rules.md` (its rule table, then every rule: the target of SARIF `helpUri`s).

use crate::lint::registry;
use crate::lint::rule::RuleDoc;

/// `--list-rules`: one line per rule.
pub fn list_rules() -> String {
    let rules = registry::all();
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in &rules {
        out.push_str(&format!(
            "{:<width$}  {:<7}  {:<9}  {}\n",
            r.id,
            r.default_severity.as_str(),
            r.group.as_str(),
            r.summary
        ));
    }
    out
}

/// `--explain RULE-ID`: the rule's documentation.
pub fn explain_rule(r: &RuleDoc) -> String {
    let mut out = format!(
        "# {} ({}, default severity: {})\n\n{}\n\n## Why\n{}\n\n## Example\n{}",
        r.id,
        r.group.as_str(),
        r.default_severity.as_str(),
        r.summary,
        r.rationale,
        r.example
    );
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("\n## Fix\n{}\n", r.fix));
    if !r.reference.is_empty() {
        out.push_str(&format!("\n## Reference\n{}\n", r.reference));
    }
    out
}

/// The rule table at the top of `docs/rules.md`, each id linking to its section.
fn markdown_table() -> String {
    let mut out = String::from("| Rule | Group | Default | What it finds |\n|---|---|---|---|\n");
    for r in registry::docs() {
        out.push_str(&format!(
            "| [`{id}`](#{id}) | {} | {} | {} |\n",
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
        "# Rules\n\nGenerated from the rule registry (`kubectl karmada-policy lint --explain RULE-ID` prints the same text). \
         A reference starting `pkg/` is a file of [karmada-io/karmada](https://github.com/karmada-io/karmada), \
         with its line numbers at commit f8fdd02 (the v1.19 line) and the function named in parentheses.\n\n",
    );
    out.push_str(&markdown_table());
    for r in registry::docs() {
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
