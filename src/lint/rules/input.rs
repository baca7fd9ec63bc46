//! Rules about the text itself, before any Karmada rule: YAML syntax, duplicate keys,
//! unrendered templating, documents that are not objects.

use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Objects, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::{Inventory, KarmadaVersion, Object, POLICY_API_VERSION};
use crate::source::{FieldPath, Loaded, ProblemKind};

pub const YAML_SYNTAX: RuleDoc = RuleDoc {
    id: "yaml-syntax",
    group: RuleGroup::Input,
    default_severity: Severity::Error,
    summary: "The document is not valid YAML",
    rationale:
        "kubectl and Flux/Argo CD reject the whole file; the objects in it are never applied. \
                The linter skips the broken document and keeps checking the others.",
    example: "spec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}\n",
    fix:
        "Fix the syntax at the reported position (unclosed bracket or quote, bad indentation, tab).",
    reference: "YAML 1.2 as parsed by sigs.k8s.io/yaml",
};

pub const DUPLICATE_KEY: RuleDoc = RuleDoc {
    id: "duplicate-key",
    group: RuleGroup::Input,
    default_severity: Severity::Error,
    summary: "The same key appears twice in one mapping",
    rationale:
        "The API server keeps only the last value and drops the first without a word. A real \
                case: two policy files concatenated without `---` made the first policy vanish.",
    example: "metadata:\n  name: a\nspec: {priority: 1}\nmetadata:\n  name: b\n",
    fix: "Remove one of the keys, or separate the two objects with a `---` line.",
    reference: "sigs.k8s.io/yaml: later keys overwrite earlier ones",
};

pub const UNRENDERED_TEMPLATE: RuleDoc = RuleDoc {
    id: "unrendered-template",
    group: RuleGroup::Input,
    default_severity: Severity::Error,
    summary: "The file still contains template syntax (`{{ }}`, `${}`)",
    rationale:
        "Helm charts, kustomize inputs and envsubst files are not what reaches the API server. \
                Linting them gives meaningless answers.",
    example: "metadata:\n  name: {{ .Values.name }}\n",
    fix: "Lint what reaches the API server: the rendered output of the chart (`helm template \
          CHART | kubectl karmada-policy lint -`), of the kustomization \
          (`kubectl kustomize DIR | kubectl karmada-policy lint -`), or of the script that \
          fills the placeholders (`envsubst < FILE | kubectl karmada-policy lint -`).",
    reference: "",
};

pub const NOT_AN_OBJECT: RuleDoc = RuleDoc {
    id: "not-an-object",
    group: RuleGroup::Input,
    default_severity: Severity::Error,
    summary: "A document is not a Kubernetes object",
    rationale: "A top-level list of objects (a forgotten `kind: List`) cannot be applied; kubectl \
                rejects the file. Data files are not objects gone wrong and are not reported: a \
                mapping with none of `apiVersion`, `kind` and `metadata` at the top (a Helm values \
                file, a Grafana dashboard, a JSON schema), a scalar, or a list without an item that \
                has `apiVersion` or `kind` is skipped with one `note:` per file (past five, \
                counted; `-v=1` names each). A mapping with `kind` or `metadata` but no type is \
                `missing-type`.",
    example: "- apiVersion: v1\n  kind: ConfigMap\n",
    fix: "Make each document a mapping with apiVersion, kind and metadata, or wrap lists in `kind: List`.",
    reference: "",
};

pub const MISSING_TYPE: RuleDoc = RuleDoc {
    id: "missing-type",
    group: RuleGroup::Input,
    default_severity: Severity::Error,
    summary: "An object has no apiVersion or no kind",
    rationale:
        "The API server cannot tell what the object is and rejects it; no policy can match it.",
    example: "metadata:
  name: nginx
spec: {}
",
    fix: "Add the missing `apiVersion` and `kind`.",
    reference: "",
};

pub const OLD_API_GROUP: RuleDoc = RuleDoc {
    id: "old-api-group",
    group: RuleGroup::Input,
    default_severity: Severity::Error,
    summary: "A policy uses Karmada's pre-1.0 API group `propagationstrategy.karmada.io`",
    rationale: "Current Karmada serves policies only as `policy.karmada.io/v1alpha1`; objects in the old group are \
                rejected by the API server (no such resource) and never propagate anything.",
    example: "apiVersion: propagationstrategy.karmada.io/v1alpha1
kind: PropagationPolicy
",
    fix: "Change apiVersion to `policy.karmada.io/v1alpha1` and check the spec against the current API.",
    reference: "policy.karmada.io CRDs",
};

pub const UNSERVED_KARMADA_KIND: RuleDoc = RuleDoc {
    id: "unserved-karmada-kind",
    group: RuleGroup::Input,
    default_severity: Severity::Error,
    summary: "An object of the policy.karmada.io group has a kind or version Karmada does not serve",
    rationale: "Karmada serves PropagationPolicy, ClusterPropagationPolicy, OverridePolicy, \
                ClusterOverridePolicy, FederatedResourceQuota and, from Karmada 1.14, ClusterTaintPolicy, \
                as `policy.karmada.io/v1alpha1` only. Any other kind (a typo, or `ReplicaSchedulingPolicy`, \
                removed before v1.0) or version has no CRD: `kubectl apply` fails with `no matches for kind`, \
                the object is never stored, and it claims and propagates nothing. The other \
                subcommands leave it out too.",
    example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicyy
",
    fix: "Spell the kind as Karmada does and use `policy.karmada.io/v1alpha1`; for \
          `ReplicaSchedulingPolicy`, use a PropagationPolicy's `placement.replicaScheduling`.",
    reference: "charts/karmada/_crds/bases/policy/ (the CRDs of each release)",
};

pub static RULE: Rule = Rule {
    docs: &[
        YAML_SYNTAX,
        DUPLICATE_KEY,
        UNRENDERED_TEMPLATE,
        NOT_AN_OBJECT,
        MISSING_TYPE,
        OLD_API_GROUP,
        UNSERVED_KARMADA_KIND,
    ],
    checks: &[Check::PerObject(check)],
};

/// Load problems, then documents that could not be typed.
fn check(o: &Objects<'_>) -> Vec<Finding> {
    let mut out = findings(o.loaded);
    out.extend(classify_findings(o.inventory));
    out.extend(unserved_by_release(o.inventory, o.opts.version()));
    out
}

/// The kinds the run's release does not serve yet: ClusterTaintPolicy before Karmada 1.14
/// (`charts/karmada/_crds/bases/policy/policy.karmada.io_clustertaintpolicies.yaml` first
/// appears at v1.14.0), which typing, knowing no release, keeps as a template.
fn unserved_by_release(inventory: &Inventory, version: KarmadaVersion) -> Vec<Finding> {
    use crate::engine::admission::taint_chain::{KIND, SERVED_FROM};
    if version >= SERVED_FROM {
        return Vec::new();
    }
    let templates = inventory.objects.iter().filter_map(|o| match o {
        Object::Template(t) if t.kind == KIND && t.api_version == POLICY_API_VERSION => Some(t),
        _ => None,
    });
    templates
        .map(|t| {
            let doc = &inventory.documents[t.doc];
            let field = FieldPath::root().key("kind");
            let message = format!(
                "no matches for kind \"{KIND}\" in version \"{POLICY_API_VERSION}\": Karmada {version} does not serve it (Karmada serves it from {SERVED_FROM}), so it is never stored"
            );
            let mut f = Finding::new(
                UNSERVED_KARMADA_KIND.id,
                UNSERVED_KARMADA_KIND.default_severity,
                message,
            )
            .at(&doc.source, doc.root.locate(&field))
            .field(field.to_string());
            f.doc = Some(t.doc);
            f
        })
        .collect()
}

/// The doc of a classification problem's rule id (see `model::Inventory::from_documents`).
pub fn classify_doc(rule: &str) -> &'static RuleDoc {
    match rule {
        "old-api-group" => &OLD_API_GROUP,
        "unserved-karmada-kind" => &UNSERVED_KARMADA_KIND,
        _ => &MISSING_TYPE,
    }
}

/// Findings for the load problems of every source.
pub fn findings(loaded: &[Loaded]) -> Vec<Finding> {
    let mut out = Vec::new();
    for l in loaded {
        for p in &l.problems {
            let doc = match p.kind {
                ProblemKind::Syntax => &YAML_SYNTAX,
                ProblemKind::DuplicateKey => &DUPLICATE_KEY,
                ProblemKind::Templating => &UNRENDERED_TEMPLATE,
                ProblemKind::NotAnObject => &NOT_AN_OBJECT,
            };
            let mut f =
                Finding::new(doc.id, doc.default_severity, p.message.clone()).at(&l.source, p.span);
            if let Some((span, msg)) = &p.related {
                f = f.related(&l.source, *span, msg.clone());
            }
            out.push(f);
        }
    }
    out
}

/// Findings for documents that could not be classified (no type, retired API group).
pub fn classify_findings(inventory: &Inventory) -> Vec<Finding> {
    inventory
        .problems
        .iter()
        .map(|p| {
            let doc = &inventory.documents[p.doc];
            let rule = classify_doc(p.rule);
            let mut f = Finding::new(rule.id, rule.default_severity, p.message.clone())
                .at(&doc.source, doc.root.locate(&p.field))
                .field(p.field.to_string());
            f.doc = Some(p.doc);
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    /// Karmada serves ClusterTaintPolicy from 1.14 only.
    #[test]
    fn cluster_taint_policy_is_unserved_before_1_14() {
        let l = load(Source::new(
            "t.yaml",
            "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterTaintPolicy\nmetadata: {name: t}\nspec: {taints: [{key: k, effect: NoSchedule}]}\n",
        ));
        let inventory = Inventory::from_documents(l.documents, "default");
        let f = unserved_by_release(&inventory, KarmadaVersion::new(1, 13));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "unserved-karmada-kind");
        assert_eq!(f[0].message, "no matches for kind \"ClusterTaintPolicy\" in version \"policy.karmada.io/v1alpha1\": Karmada 1.13 does not serve it (Karmada serves it from 1.14), so it is never stored");
        assert_eq!(f[0].location.as_ref().unwrap().span.start.line, 2);
        assert!(unserved_by_release(&inventory, KarmadaVersion::new(1, 14)).is_empty());
    }

    #[test]
    fn duplicate_key_points_at_both_keys() {
        let l = load(Source::new(
            "a.yaml",
            "metadata:\n  name: a\nmetadata:\n  name: b\n",
        ));
        let f = findings(&[l]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "duplicate-key");
        let loc = f[0].location.as_ref().unwrap();
        assert_eq!((loc.span.start.line, loc.span.start.col), (3, 1));
        assert_eq!(f[0].related[0].location.span.start.line, 1);
    }
}
