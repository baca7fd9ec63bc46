//! One file per rule (or per family of closely related rules): its docs, its check and its
//! tests, declared as one [`Rule`] unit. [`RULES`] is the registry's table: adding a rule is a
//! file here, its `mod` line and its row in the table (and its fixture, `tests/rules/<id>/`).

pub mod admission;
pub mod dead_policy;
pub mod dependencies;
pub mod dependency_conflict;
pub mod dependent_overrides;
pub mod duplicate_identity;
pub mod failover_gate;
pub mod gated_fields;
pub mod input;
pub mod invalid_ignore;
pub mod never_matched;
pub mod overlap;
pub mod override_fails;
pub mod override_order;
pub mod override_reach;
pub mod overrides;
pub mod placement;
pub mod preemption;
pub mod removed_api;
pub mod render_failed;
pub mod replicas;
pub mod scheduler_name;
pub mod schema;
pub mod suspension;
pub mod suspension_age;

use crate::lint::phase::Rule;
use crate::model::{ObjectRef, Policy, POLICY_API_VERSION};

/// Every rule unit, in the order rules are listed (input, schema, admission, semantics).
pub static RULES: &[&Rule] = &[
    &input::RULE,
    &invalid_ignore::RULE,
    &render_failed::RULE,
    &schema::RULE,
    &admission::RULE,
    &duplicate_identity::RULE,
    &suspension::RULE,
    &suspension_age::RULE,
    &failover_gate::RULE,
    &scheduler_name::RULE,
    &gated_fields::RULE,
    &overrides::RULE,
    &dependent_overrides::RULE,
    &override_order::RULE,
    &override_fails::RULE,
    &override_reach::RULE,
    &placement::RULE,
    &dependencies::RULE,
    &dependency_conflict::RULE,
    &replicas::RULE,
    &overlap::RULE,
    &preemption::RULE,
    &never_matched::RULE,
    &removed_api::RULE,
    &dead_policy::RULE,
];

/// A finding of rule `doc` (at its default severity) about policy `p`, at the key of `path` in
/// the policy's document.
pub fn at_policy_key(
    inventory: &crate::model::Inventory,
    p: &Policy,
    doc: &crate::lint::rule::RuleDoc,
    path: &crate::source::FieldPath,
    message: String,
) -> crate::lint::finding::Finding {
    let d = &inventory.documents[p.doc];
    let mut f = crate::lint::finding::Finding::new(doc.id, doc.default_severity, message)
        .at(&d.source, d.tree_for(path).locate(path))
        .field(path.to_string())
        .object(policy_object_ref(p));
    f.doc = Some(p.doc);
    f
}

/// The `object` of a finding about a policy.
pub fn policy_object_ref(p: &Policy) -> ObjectRef {
    ObjectRef {
        api_version: POLICY_API_VERSION.to_string(),
        kind: p.kind.as_str().to_string(),
        namespace: p.meta.namespace.clone(),
        name: p.meta.name.clone(),
    }
}
