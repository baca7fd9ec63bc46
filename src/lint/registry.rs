//! The registry of rules: it documents them (`--list-rules`, `--explain`, the README table,
//! docs/rules.md and SARIF rule metadata are generated from [`all`]) and runs them, phase by
//! phase ([`crate::lint::phase`]). The table of rule units is [`crate::lint::rules::RULES`].

use super::analysis::Analysis;
use super::finding::Finding;
use super::phase::{Check, History, Identities, Objects, Rule};
use super::rule::RuleDoc;
use super::rules::{self, RULES};

/// Every rule unit, in the table's order.
pub fn units() -> impl Iterator<Item = &'static Rule> {
    RULES.iter().copied()
}

/// Every rule the tool knows, in a stable order (input, schema, admission, semantics).
pub fn docs() -> impl Iterator<Item = &'static RuleDoc> {
    units().flat_map(|u| u.docs.iter())
}

/// [`docs`], collected.
pub fn all() -> Vec<RuleDoc> {
    docs().cloned().collect()
}

/// Whether `id` names a rule (for config files and inline ignores).
pub fn is_known(id: &str) -> bool {
    docs().any(|r| r.id == id)
}

/// Looks a rule up by id; `_` and case are forgiven (`Overlap`, `dead_policy`).
pub fn find(id: &str) -> Option<RuleDoc> {
    let wanted = id.trim().to_ascii_lowercase().replace('_', "-");
    docs().find(|r| r.id == wanted).cloned()
}

/// The checks of one phase, in table order.
fn checks<T>(pick: impl Fn(&Check) -> Option<T>) -> Vec<T> {
    units()
        .flat_map(|u| u.checks.iter())
        .filter_map(pick)
        .collect()
}

/// The per-object phase: every such check over one set of files, then the admission unit's
/// findings that only echo a schema unit's error dropped ([`drop_cascades`]).
pub fn run_per_object(objects: &Objects<'_>) -> Vec<Finding> {
    let mut schema = Vec::new();
    let mut admission = Vec::new();
    let mut out = Vec::new();
    for unit in units() {
        for check in unit.checks {
            let Check::PerObject(check) = check else {
                continue;
            };
            let findings = check(objects);
            if std::ptr::eq(unit, &rules::admission::RULE) {
                admission.extend(findings);
            } else if std::ptr::eq(unit, &rules::schema::RULE) {
                schema.extend(findings);
            } else {
                out.extend(findings);
            }
        }
    }
    out.extend(drop_cascades(admission, &schema));
    out.extend(schema);
    out
}

/// The identity phase (before the engine's state is built).
pub fn run_identities(input: &Identities<'_>) -> Vec<Finding> {
    checks(|c| match c {
        Check::Identities(f) => Some(*f),
        _ => None,
    })
    .into_iter()
    .flat_map(|check| check(input))
    .collect()
}

/// The semantic phase. The checks only read the analysis: the first in the table (overlap,
/// the longest) runs on a second thread beside the others.
pub fn run_semantic(analysis: &Analysis<'_>) -> Vec<Finding> {
    let all = checks(|c| match c {
        Check::Semantic(f) => Some(*f),
        _ => None,
    });
    let Some((first, rest)) = all.split_first() else {
        return Vec::new();
    };
    let (rest, mut out) = crate::util::parallel::join(
        || {
            rest.iter()
                .flat_map(|check| check(analysis))
                .collect::<Vec<_>>()
        },
        || first(analysis),
    );
    out.extend(rest);
    out
}

/// The history phase (git modes): every check reads the part of `history` it needs.
pub fn run_history(history: &History<'_>) -> Vec<Finding> {
    checks(|c| match c {
        Check::History(f) => Some(*f),
        _ => None,
    })
    .into_iter()
    .flat_map(|check| check(history))
    .collect()
}

/// The API server validates the schema before the validating webhook runs, so an admission
/// finding next to a schema error is often only its echo (an unknown `purgeMode` spelling makes
/// `gracePeriodSeconds` look misplaced). Drop admission findings inside an object whose field
/// already failed a type or enum check; keep the ones elsewhere in the document.
fn drop_cascades(admission: Vec<Finding>, schema: &[Finding]) -> Vec<Finding> {
    let broken: Vec<(usize, String)> = schema
        .iter()
        .filter(|f| matches!(f.rule, "schema-enum" | "schema-type"))
        .filter_map(|f| {
            let field = f.field.as_deref()?;
            let parent = field.rsplit_once('.').map_or("", |(p, _)| p);
            Some((f.doc?, format!("{parent}.")))
        })
        .collect();
    admission
        .into_iter()
        .filter(|f| {
            let (Some(doc), Some(field)) = (f.doc, f.field.as_deref()) else {
                return true;
            };
            !broken.iter().any(|(d, prefix)| {
                *d == doc && prefix.len() > 1 && field.starts_with(prefix.as_str())
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_every_unit_documents_and_checks() {
        let mut ids: Vec<&str> = docs().map(|r| r.id).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(n, ids.len(), "duplicate rule ids");
        for u in units() {
            assert!(!u.docs.is_empty(), "a unit without docs");
            assert!(!u.checks.is_empty(), "{}: no check", u.docs[0].id);
        }
    }
}
