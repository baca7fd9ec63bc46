//! Karmada's admission chain (defaults, then the validating webhooks) as lint rules: an error
//! here means the API server would reject the object. The checks live in
//! `crate::engine::admission`; this file turns its violations into findings.

use crate::engine::admission::{self, Violation};
use crate::lint::registry::{RuleDoc, RuleGroup};
use crate::lint::{Finding, LintOptions, Severity};
use crate::model::{Inventory, ObjectRef, POLICY_API_VERSION};

pub fn docs() -> Vec<RuleDoc> {
    admission::RULES
        .iter()
        .map(|r| RuleDoc {
            id: r.id,
            group: RuleGroup::Admission,
            default_severity: Severity::Error,
            summary: r.summary,
            rationale: r.rationale,
            example: r.example,
            fix: r.fix,
            reference: r.reference,
        })
        .collect()
}

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
    let rule = admission::rule(v.rule).map_or("admission", |r| r.id);
    let mut f = Finding::new(rule, Severity::Error, v.message.clone())
        .at(&d.source, d.root.locate(&v.field))
        .field(v.field.to_string())
        .object(object);
    f.doc = Some(doc);
    f
}
