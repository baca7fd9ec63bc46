//! The policy CRDs' OpenAPI schemas (`schemas/`): unknown fields, types, enums, required fields.
//! The checks live in `crate::schema`; this unit documents their ids and turns their violations
//! into findings.

use crate::lint::config::LintOptions;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::{group_of, Inventory, ObjectMeta, ObjectRef, POLICY_GROUP};
use crate::schema;
use crate::source::Node;

/// The kinds checked here on their own. PropagationPolicy and ClusterPropagationPolicy are
/// checked by the admission chain (`super::admission`), which validates the schema after the
/// mutating webhook, as the API server does.
const POLICY_KINDS: [&str; 2] = ["OverridePolicy", "ClusterOverridePolicy"];

const REFERENCE: &str = "schemas/*.schema.json, converted from Karmada's policy CRDs";

pub static DOCS: &[RuleDoc] = &[
    RuleDoc {
        id: schema::UNKNOWN_FIELD,
        group: RuleGroup::Schema,
        default_severity: Severity::Error,
        summary: "a field the CRD does not define (misspelled, or indented under the wrong parent)",
        rationale: "With strict field validation (kubectl's default since 1.27) the API server rejects the object; \
                    with --validate=false or older clients the field is silently pruned, so the setting it was \
                    meant to make never takes effect.",
        example: "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: nginx\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n  placement:\n    replicaScheduling:\n      replicaSchedulingType: Duplicated\n  clusterAffinity:   # belongs under placement\n    clusterNames: [member1]\n",
        fix: "Fix the spelling or the indentation so the field sits under the parent that defines it \
              (`kubectl explain propagationpolicy.spec --recursive` lists them).",
        reference: REFERENCE,
    },
    RuleDoc {
        id: schema::TYPE,
        group: RuleGroup::Schema,
        default_severity: Severity::Error,
        summary: "a value of the wrong JSON type (a string where the CRD wants an integer, a map for a list...)",
        rationale: "The API server rejects the object: `Invalid value: \"string\": spec.priority in body must be of type integer`.",
        example: "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: nginx\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n  priority: high\n",
        fix: "Write the value with the type the CRD declares; quote numbers only where a string is wanted.",
        reference: REFERENCE,
    },
    RuleDoc {
        id: schema::ENUM,
        group: RuleGroup::Schema,
        default_severity: Severity::Error,
        summary: "a value outside the CRD's enum",
        rationale: "The API server rejects the object with `Unsupported value`. Enums changed between releases: \
                    Karmada 1.19 renamed failover.application.purgeMode `Immediately`/`Graciously` to \
                    `Directly`/`Gracefully`.",
        example: "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: nginx\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n  preemption: Sometimes\n",
        fix: "Use one of the supported values listed in the message (for purgeMode on 1.19: Immediately -> Directly, \
              Graciously -> Gracefully), or pass --karmada-version for the release you deploy to.",
        reference: REFERENCE,
    },
    RuleDoc {
        id: schema::REQUIRED,
        group: RuleGroup::Schema,
        default_severity: Severity::Error,
        summary: "a field the CRD requires is missing (or null)",
        rationale: "The API server rejects the object with `Required value`.",
        example: "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: nginx\nspec:\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n",
        fix: "Add the field; for spec.resourceSelectors, list the resources the policy is meant to select.",
        reference: REFERENCE,
    },
    RuleDoc {
        id: schema::CONSTRAINT,
        group: RuleGroup::Schema,
        default_severity: Severity::Error,
        summary: "a value breaks a CRD bound: minimum/maximum, int32 range, minItems, minLength/maxLength, pattern",
        rationale: "The API server rejects the object with `Invalid value` or `Too long`.",
        example: "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: nginx\nspec:\n  resourceSelectors: []\n",
        fix: "Bring the value within the bound named in the message.",
        reference: REFERENCE,
    },
];

pub static RULE: Rule = Rule {
    docs: DOCS,
    checks: &[Check::PerObject(|o| check(o.inventory, o.opts))],
};

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
            let rule = DOCS
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
