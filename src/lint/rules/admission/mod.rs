//! Karmada's admission chain (defaults, then the validating webhooks) as lint rules: an error
//! here means the API server would reject the object. The checks live in
//! `crate::engine::admission`; this unit documents their ids ([`docs`]) and turns their
//! violations into findings: per object, and for `--base` the update rules (`validateUpdate`).

pub mod docs;

use std::collections::HashMap;

use crate::engine::admission::{self, Violation};
use crate::lint::config::LintOptions;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, History, Rule};
use crate::model::{Inventory, ObjectRef, Policy, PolicyRef, POLICY_API_VERSION};

pub use docs::{rule, AdmissionRule, RULES};

pub static RULE: Rule = Rule {
    docs: &docs::DOCS,
    checks: &[
        Check::PerObject(|o| check(o.inventory, o.opts)),
        Check::History(update_check),
    ],
};

pub fn check(inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in inventory.policies() {
        let admitted = admission::admit(p, opts.version);
        let object = super::policy_object_ref(p);
        out.extend(
            admitted
                .violations
                .iter()
                .map(|v| finding(inventory, p.doc, object.clone(), v)),
        );
    }
    for op in inventory.overrides() {
        let object = ObjectRef {
            api_version: POLICY_API_VERSION.to_string(),
            kind: if op.cluster_scoped {
                "ClusterOverridePolicy"
            } else {
                "OverridePolicy"
            }
            .to_string(),
            namespace: op.meta.namespace.clone(),
            name: op.meta.name.clone(),
        };
        out.extend(
            admission::validate_override(op)
                .iter()
                .map(|v| finding(inventory, op.doc, object.clone(), v)),
        );
    }
    out
}

fn finding(inventory: &Inventory, doc: usize, object: ObjectRef, v: &Violation) -> Finding {
    let d = &inventory.documents[doc];
    let rule = rule(v.rule).map_or("admission", |r| r.id);
    let mut f = Finding::new(rule, Severity::Error, v.message.clone())
        .at(&d.source, d.root.locate(&v.field))
        .field(v.field.to_string())
        .object(object);
    f.doc = Some(doc);
    f
}

/// The update rules in `--base` mode: nothing without a base side.
fn update_check(h: &History<'_>) -> Vec<Finding> {
    h.base
        .map_or_else(Vec::new, |base| update_findings(base, h.inventory))
}

/// `validateUpdate` for every policy on both sides (Karmada rejects the update: the change
/// cannot be applied as it is), located on the head document.
pub fn update_findings(base: &Inventory, head: &Inventory) -> Vec<Finding> {
    let base_policies: HashMap<PolicyRef, &Policy> =
        base.policies().map(|p| (p.reference(), p)).collect();
    let mut out = Vec::new();
    for p in head.policies() {
        let Some(old) = base_policies.get(&p.reference()) else {
            continue;
        };
        for v in admission::validate_update(old, p) {
            let d = &head.documents[p.doc];
            let rule = rule(v.rule).map_or("admission", |r| r.id);
            let before = match v.rule {
                "scheduler-name-immutable" => old
                    .spec
                    .scheduler_name
                    .clone()
                    .unwrap_or_else(|| "default-scheduler".into()),
                _ => old
                    .meta
                    .labels
                    .get(p.kind.permanent_id_label())
                    .map(str::to_string)
                    .unwrap_or_else(|| "<none>".into()),
            };
            let mut f = Finding::new(
                rule,
                Severity::Error,
                format!("{} (was `{before}` at the base)", v.message),
            )
            .at(&d.source, d.root.locate(&v.field))
            .field(v.field.to_string())
            .object(super::policy_object_ref(p));
            f.doc = Some(p.doc);
            out.push(f);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    fn inventory(name: &str, text: &str) -> Inventory {
        let mut l = load(Source::new(name, text));
        Inventory::from_documents(std::mem::take(&mut l.documents), "default")
    }

    fn pp(name: &str, extra: &str) -> String {
        format!(
            "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n{extra}  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n"
        )
    }

    #[test]
    fn scheduler_name_change_is_an_update_error_at_head() {
        let base = inventory("b.yaml", &pp("a", "  schedulerName: default-scheduler\n"));
        let head = inventory("h.yaml", &pp("a", "  schedulerName: custom\n"));
        let f = update_findings(&base, &head);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "scheduler-name-immutable");
        assert_eq!(f[0].field.as_deref(), Some("spec.schedulerName"));
        assert_eq!(f[0].location.as_ref().unwrap().span.start.line, 8);
        assert!(update_findings(&base, &base).is_empty());
    }
}
