//! The policy CRDs' OpenAPI schemas (`schemas/`): unknown fields, types, enums, required fields.
//! The checks live in `crate::schema` and run inside the admission chain of every policy kind
//! (`crate::engine::admission::chain`, `override_chain`); this unit documents their ids.

use crate::lint::finding::Severity;
use crate::lint::phase::Rule;
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::schema;

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
              (`kubectl explain propagationpolicy.spec --recursive` lists them). The message ends with the \
              field probably meant, read from the release's CRD: a close spelling under the same parent \
              (`clusterAfinity` -> `clusterAffinity`), else the one or two places where a field of that \
              name is defined (`spec.clusterAffinity` -> `spec.placement.clusterAffinity`); when there is \
              neither, nothing is suggested.",
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
                    Karmada 1.15 added failover.application.purgeMode `Directly`/`Gracefully` beside \
                    `Immediately`/`Graciously`, and 1.19 dropped the old two.",
        example: "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: nginx\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n  preemption: Sometimes\n",
        fix: "Use one of the supported values listed in the message. Where an enum changed between releases \
              (purgeMode: Directly and Gracefully are accepted from 1.15 on, Immediately and Graciously only \
              up to 1.18, so write Directly for Immediately and Gracefully for Graciously), also check that \
              --karmada-version names the release you deploy to.",
        reference: REFERENCE,
    },
    RuleDoc {
        id: schema::REQUIRED,
        group: RuleGroup::Schema,
        default_severity: Severity::Error,
        summary: "a field the CRD requires is missing (or null)",
        rationale: "The API server rejects the object with `Required value`, but only where no mutating \
                    webhook runs first. Karmada's webhooks for PropagationPolicy, ClusterPropagationPolicy and \
                    OverridePolicy decode the object into Go structs and re-marshal it, which writes every \
                    required field with its zero value: there a missing field is reported as that value's \
                    error (`must be of type array: \"null\"`, `Unsupported value: \"\"`) or admitted. A \
                    ClusterOverridePolicy has no mutating webhook.",
        example: "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterOverridePolicy\nmetadata:\n  name: nginx\nspec:\n  overrideRules:\n    - targetCluster:\n        clusterNames: [member1]\n",
        fix: "Add the field (for overrideRules, the overriders the rule applies).",
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

/// Documentation only: these ids are reported by the admission unit (`super::admission`),
/// because the API server validates the schema inside the admission chain, after the mutating
/// webhook of the kinds that have one (`crate::engine::admission::chain`).
pub static RULE: Rule = Rule {
    docs: DOCS,
    checks: &[],
};
