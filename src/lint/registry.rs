//! The registry of rules: it documents them (`--list-rules`, `--explain`,
//! docs/rules.md and SARIF rule metadata are generated from [`all`]) and runs them, phase by
//! phase ([`crate::lint::phase`]). The table of rule units is [`crate::lint::rules::RULES`].

use super::analysis::Analysis;
use super::finding::Finding;
use super::phase::{Check, History, Identities, Objects, Rule};
use super::rule::RuleDoc;
use super::rules::RULES;

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

/// The per-object phase: every such check over one set of files.
pub fn run_per_object(objects: &Objects<'_>) -> Vec<Finding> {
    checks(|c| match c {
        Check::PerObject(f) => Some(*f),
        _ => None,
    })
    .into_iter()
    .flat_map(|check| check(objects))
    .collect()
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

/// The semantic phase. The checks only read the analysis, so they run side by side; the
/// findings come back in the table's order.
pub fn run_semantic(analysis: &Analysis<'_>) -> Vec<Finding> {
    let all = checks(|c| match c {
        Check::Semantic(f) => Some(*f),
        _ => None,
    });
    // The rules differ a lot in cost (overlap is half of the whole at 100,000 documents):
    // pulled one by one, the others run beside the longest.
    let mut out = Vec::new();
    let run = |check: &fn(&Analysis<'_>) -> Vec<Finding>| {
        Ok::<_, std::convert::Infallible>(check(analysis))
    };
    let Ok(()) =
        crate::util::parallel::each_in_parallel(&all, &run, &mut |found| out.extend(found));
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
            // The schema unit only documents: the API server validates the schema inside the
            // admission chain, so the admission unit reports those ids, in the chain's order.
            let docs_only = std::ptr::eq(u, &super::super::rules::schema::RULE);
            assert_eq!(u.checks.is_empty(), docs_only, "{}: checks", u.docs[0].id);
        }
    }
}
