//! Karmada's admission chain as lint rules: an error here means the API server would reject
//! the object. For PropagationPolicy and ClusterPropagationPolicy the whole chain runs in the
//! API server's order (`crate::engine::admission::chain`: strict decoding, the mutating
//! webhook's Go round trip, the CRD schema, the validating webhook), so its schema findings are
//! reported here too; this file turns its refusals into findings.

use std::collections::HashMap;

use crate::engine::admission::chain::{self, Verdict};
use crate::engine::admission::{self, Violation};
use crate::lint::registry::{RuleDoc, RuleGroup};
use crate::lint::{Finding, LintOptions, Severity};
use crate::model::{
    group_of, Inventory, ObjectMeta, ObjectRef, PolicyKind, POLICY_API_VERSION, POLICY_GROUP,
};
use crate::source::Node;

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
    let mut out = policy_findings(inventory, opts);
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

/// Every PP/CPP document through the admission chain, whether or not it could be typed (a
/// document the engine cannot use still has findings).
fn policy_findings(inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    // The request namespace of each typed PP: its own, else the default one.
    let namespaces: HashMap<usize, Option<&str>> = inventory
        .policies()
        .map(|p| (p.doc, p.meta.namespace.as_deref()))
        .collect();
    let mut out = Vec::new();
    for (i, doc) in inventory.documents.iter().enumerate() {
        let Some(kind) = policy_kind(&doc.root) else {
            continue;
        };
        let meta = ObjectMeta::from_node(doc.root.get("metadata"));
        let namespace = match kind {
            PolicyKind::PropagationPolicy => Some(
                namespaces
                    .get(&i)
                    .copied()
                    .flatten()
                    .or(meta.namespace.as_deref())
                    .unwrap_or("default"),
            ),
            PolicyKind::ClusterPropagationPolicy => None,
        };
        let verdict = chain::admit_manifest(kind, &doc.root.to_json(), namespace, opts.version);
        if verdict.is_admitted() {
            continue;
        }
        let object = ObjectRef {
            api_version: POLICY_API_VERSION.to_string(),
            kind: kind.as_str().to_string(),
            namespace: namespace.map(str::to_string),
            name: meta.name.clone(),
        };
        out.extend(verdict_findings(inventory, i, &object, &verdict));
    }
    out
}

/// The kind of a policy document, `None` for any other.
fn policy_kind(root: &Node) -> Option<PolicyKind> {
    let api_version = root.get("apiVersion").and_then(Node::as_str)?;
    if group_of(api_version) != POLICY_GROUP {
        return None;
    }
    PolicyKind::from_kind(root.get("kind").and_then(Node::as_str)?)
}

fn verdict_findings(
    inventory: &Inventory,
    doc: usize,
    object: &ObjectRef,
    verdict: &Verdict,
) -> Vec<Finding> {
    let d = &inventory.documents[doc];
    verdict
        .refusals
        .iter()
        .map(|r| {
            let rule = admission::rule(r.rule)
                .map(|a| a.id)
                .or_else(|| {
                    crate::schema::RULES
                        .iter()
                        .find(|s| s.id == r.rule)
                        .map(|s| s.id)
                })
                .unwrap_or(crate::schema::CONSTRAINT);
            let span = if r.at_key {
                d.root.locate(&r.field)
            } else {
                d.root.locate_value(&r.field)
            };
            let mut f = Finding::new(rule, Severity::Error, r.message.clone())
                .at(&d.source, span)
                .field(r.field.to_string())
                .object(object.clone())
                .api_server_message(verdict.api_server_message.clone());
            f.doc = Some(doc);
            f
        })
        .collect()
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
