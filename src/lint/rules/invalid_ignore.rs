//! `invalid-ignore`: an inline suppression that is not applied (no reason, unknown rule). The
//! suppression pass (`crate::lint::suppress`) reports it, over every other rule's findings.

use crate::lint::finding::Severity;
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};

pub const INVALID_IGNORE: RuleDoc = RuleDoc {
    id: "invalid-ignore",
    group: RuleGroup::Input,
    default_severity: Severity::Warning,
    summary: "A `karmada-policy.io/ignore` annotation has no reason or names an unknown rule",
    rationale: "A suppression without a reason hides a problem from reviewers; one with a misspelled rule id \
                silently suppresses nothing. Either way it is not applied.",
    example: "metadata:\n  annotations:\n    karmada-policy.io/ignore: overlap\n",
    fix: "Write `RULE-ID: reason`, e.g. `overlap: team-b owns nginx until the migration ends`.",
    reference: "",
};

pub static RULE: Rule = Rule {
    docs: &[INVALID_IGNORE],
    checks: &[Check::Suppressions],
};
