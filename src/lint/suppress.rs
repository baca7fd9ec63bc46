//! Inline suppressions: the annotation `karmada-policy.io/ignore: "RULE-ID: reason"` on an object
//! silences that rule for that object. A reason is required, so a reviewer sees why; several
//! entries are separated by `;` or new lines. `--no-inline-ignores` turns them all off.

use crate::lint::finding::Finding;
use crate::lint::rules::invalid_ignore::INVALID_IGNORE;
use crate::model::Inventory;
use crate::source::FieldPath;

pub const ANNOTATION: &str = "karmada-policy.io/ignore";

/// Where [`ANNOTATION`] is in an object: `metadata.annotations` then the annotation's key
/// (which has a `.` and a `/`, so it is one segment, not parsed from a dotted path).
pub fn ignore_path() -> &'static FieldPath {
    static PATH: std::sync::LazyLock<FieldPath> =
        std::sync::LazyLock::new(|| FieldPath::parse("metadata.annotations").key(ANNOTATION));
    &PATH
}

/// One parsed entry of the annotation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ignore {
    pub rule: String,
    pub reason: String,
}

/// Parses the annotation value; entries without a reason come back with an empty reason.
pub fn parse(value: &str) -> Vec<Ignore> {
    value
        .split([';', '\n'])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| match e.split_once(':') {
            Some((rule, reason)) => Ignore {
                rule: rule.trim().to_string(),
                reason: reason.trim().to_string(),
            },
            None => Ignore {
                rule: e.to_string(),
                reason: String::new(),
            },
        })
        .collect()
}

/// Drops the findings an object's annotation suppresses, and reports annotations that are
/// malformed (no reason, unknown rule) so a suppression never silently fails or silently works.
pub fn apply(
    findings: Vec<Finding>,
    inventory: &Inventory,
    known_rule: &dyn Fn(&str) -> bool,
) -> Vec<Finding> {
    let mut per_doc: Vec<Vec<Ignore>> = vec![Vec::new(); inventory.documents.len()];
    let mut problems = Vec::new();
    let path = ignore_path();
    for (i, doc) in inventory.documents.iter().enumerate() {
        let Some(value) = doc.root.at(path).and_then(|n| n.as_str()) else {
            continue;
        };
        let span = doc.root.locate_value(path);
        for ig in parse(value) {
            if ig.reason.is_empty() {
                problems.push(
                    Finding::new(
                        INVALID_IGNORE.id,
                        INVALID_IGNORE.default_severity,
                        format!("ignore of `{}` has no reason; write `{}: <why>` (the suppression is not applied)", ig.rule, ig.rule),
                    )
                    .at(&doc.source, span)
                    .field(path.to_string()),
                );
            } else if !known_rule(&ig.rule) {
                problems.push(
                    Finding::new(
                        INVALID_IGNORE.id,
                        INVALID_IGNORE.default_severity,
                        format!(
                            "ignore names unknown rule `{}` (see `lint --list-rules`)",
                            ig.rule
                        ),
                    )
                    .at(&doc.source, span)
                    .field(path.to_string()),
                );
            } else {
                per_doc[i].push(ig);
            }
        }
    }
    let mut out: Vec<Finding> = findings
        .into_iter()
        .filter(|f| {
            !f.doc
                .and_then(|d| per_doc.get(d))
                .is_some_and(|igs| igs.iter().any(|ig| ig.rule == f.rule))
        })
        .collect();
    out.extend(problems);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entries_and_reasons() {
        let got = parse("overlap: owned by team b; dead-policy:kept for DR\nsilent-non-preemption");
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].rule, "overlap");
        assert_eq!(got[0].reason, "owned by team b");
        assert_eq!(got[1].reason, "kept for DR");
        assert_eq!(got[2].reason, "");
    }
}
