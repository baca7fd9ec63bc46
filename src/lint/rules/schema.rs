//! The policy CRDs' OpenAPI schemas (`schemas/`): unknown fields, types, enums, required fields.
//! The checks live in `crate::schema`; this file turns its violations into findings.

use crate::lint::registry::{RuleDoc, RuleGroup};
use crate::lint::{Finding, LintOptions, Severity};
use crate::model::{group_of, Inventory, ObjectMeta, ObjectRef, POLICY_GROUP};
use crate::source::Node;

/// The kinds checked here on their own. PropagationPolicy and ClusterPropagationPolicy are
/// checked by the admission chain (`super::admission`), which validates the schema after the
/// mutating webhook, as the API server does.
const POLICY_KINDS: [&str; 2] = ["OverridePolicy", "ClusterOverridePolicy"];

pub fn docs() -> Vec<RuleDoc> {
    crate::schema::RULES
        .iter()
        .map(|r| RuleDoc {
            id: r.id,
            group: RuleGroup::Schema,
            default_severity: Severity::Error,
            summary: r.summary,
            rationale: r.rationale,
            example: r.example,
            fix: r.fix,
            reference: "schemas/*.schema.json, converted from Karmada's policy CRDs",
        })
        .collect()
}

pub fn check(inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, doc) in inventory.documents.iter().enumerate() {
        let api_version = doc
            .root
            .get("apiVersion")
            .and_then(Node::as_str)
            .unwrap_or("");
        let kind = doc.root.get("kind").and_then(Node::as_str).unwrap_or("");
        if group_of(api_version) != POLICY_GROUP || !POLICY_KINDS.contains(&kind) {
            continue;
        }
        let meta = ObjectMeta::from_node(doc.root.get("metadata"));
        let object = ObjectRef {
            api_version: api_version.to_string(),
            kind: kind.to_string(),
            namespace: if kind.starts_with("Cluster") {
                None
            } else {
                meta.namespace.clone()
            },
            name: meta.name.clone(),
        };
        for v in crate::schema::validate(kind, &doc.root, opts.version) {
            let rule = crate::schema::RULES
                .iter()
                .find(|r| r.id == v.rule)
                .map_or("schema-constraint", |r| r.id);
            let mut f = Finding::new(rule, Severity::Error, v.message)
                .at(&doc.source, v.span)
                .field(v.field.to_string())
                .object(object.clone());
            f.doc = Some(i);
            out.push(f);
        }
    }
    out
}
