//! A policy that selects nothing although templates of its kinds are in the input.

use std::collections::HashSet;

use crate::engine::state::FxHasher;

use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "dead-policy",
    group: RuleGroup::Semantics,
    default_severity: Severity::Info,
    summary: "A policy that selects no template, although templates of its kinds (in its namespace) are in the input",
    rationale: "Usually a selector typo: a wrong apiVersion (`apps/v1beta1`), kind, name or label, or a \
                PropagationPolicy in another namespace than its templates. Only kinds with templates in the input \
                are considered, so policies for objects created elsewhere are not reported; nor is a policy selecting a \
                CustomResourceDefinition Karmada installs with its control plane (the ServiceExport and ServiceImport \
                CRDs its multi-cluster-service guide propagates), which exists though no file holds it.",
    example: "kind: Deployment\nmetadata: {name: nginx, namespace: default}\n---\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: ngnix}]\n",
    fix: "Fix the selector, or delete the policy.",
    reference: "pkg/util/selector.go:55-94 (ResourceSelectorPriority); pkg/detector/detector.go:381-411 (ResourceDetector.LookForMatchedPolicy: only the template's namespace)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::Semantic(check)],
};

type FxSet<T> = HashSet<T, std::hash::BuildHasherDefault<FxHasher>>;

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let st = &a.state;
    let mut matched = vec![false; st.policies.len()];
    for &(p, _) in a.matches.iter().flatten() {
        matched[p] = true;
    }
    if !st.live_policies().any(|(i, p)| !matched[i] && p.known) {
        // Every policy selects something: no need to read the templates' kinds.
        return Vec::new();
    }
    // Kinds present among the templates, by namespace and overall (any apiVersion: a selector
    // with the wrong apiVersion is the typo this rule exists for). Fx-hashed: one insert per
    // template made SipHash most of this rule's time.
    let mut present: FxSet<(&str, &str)> = FxSet::default();
    let mut kind_versions: FxSet<(&str, &str)> = FxSet::default();
    // A template the API server refuses (`removed-api-version`) is none to select: the fix is
    // the template's, not the selector's.
    let served = st.templates.iter().filter(|t| {
        !matches!(
            t.excluded.as_deref(),
            Some(crate::engine::claim::Excluded::NotServed { .. })
        )
    });
    for tpl in served {
        present.insert((&tpl.kind, &tpl.namespace));
        kind_versions.insert((&tpl.kind, &tpl.api_version));
    }
    let mut present_kind: HashSet<&str> = HashSet::new();
    let mut versions: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
        Default::default();
    for &(kind, version) in &kind_versions {
        present_kind.insert(kind);
        versions.entry(kind).or_default().insert(version);
    }
    let mut out = Vec::new();
    for (i, p) in st.live_policies() {
        if matched[i] || !p.known {
            continue;
        }
        // A CRD every control plane holds is there to select, though no file holds it.
        if p.spec
            .resource_selectors
            .iter()
            .any(selects_a_control_plane_crd)
        {
            continue;
        }
        // Every selector is one the detector never matches: `never_matched` says why.
        let never = super::never_matched::never_matched(a, i).len();
        if never > 0 && never == p.spec.resource_selectors.len() {
            continue;
        }
        let relevant = p.spec.resource_selectors.iter().any(|rs| {
            let ns = if p.is_pp() {
                p.namespace.as_str()
            } else {
                rs.namespace.as_str()
            };
            if ns.is_empty() {
                present_kind.contains(rs.kind.as_str())
            } else {
                present.contains(&(rs.kind.as_str(), ns))
            }
        });
        if !relevant {
            continue;
        }
        // Name the apiVersion mismatch when that is the likely typo.
        let hint: Vec<String> = p
            .spec
            .resource_selectors
            .iter()
            .filter_map(|rs| {
                let found = versions.get(rs.kind.as_str())?;
                (!found.contains(rs.api_version.as_str())).then(|| {
                    format!(
                        "; no {} in the input has apiVersion {} (found: {})",
                        rs.kind,
                        rs.api_version,
                        found.iter().copied().collect::<Vec<_>>().join(", ")
                    )
                })
            })
            .collect();
        out.push(a.policy_finding(
            i,
            &DOC,
            &FieldPath::parse("spec.resourceSelectors"),
            format!(
                "{} selects none of the templates in the input, though templates of its kinds are there: check apiVersion, kind, name, labels and namespace{}",
                p.reference(),
                hint.concat()
            ),
        ));
    }
    out
}

/// A selector naming one of the CRDs Karmada installs with its control plane
/// ([`crate::kube::kinds::CONTROL_PLANE_CRDS`]).
fn selects_a_control_plane_crd(rs: &crate::model::policy::ResourceSelector) -> bool {
    rs.kind == "CustomResourceDefinition"
        && rs.api_version == "apiextensions.k8s.io/v1"
        && crate::kube::kinds::CONTROL_PLANE_CRDS.contains(&rs.name.as_str())
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::{lint_rule, pos};

    const CM: &str =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\n";

    fn pp(ns: &str, selector: &str) -> String {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\n  namespace: {ns}\nspec:\n  resourceSelectors:\n    - {selector}\n")
    }

    #[test]
    fn a_typo_selects_nothing() {
        let text = format!(
            "{CM}{}",
            pp(
                "default",
                "{apiVersion: v1, kind: ConfigMap, name: setings}"
            )
        );
        let f = lint_rule(&text, "dead-policy", false);
        assert_eq!(f.len(), 1);
        assert_eq!(pos(&f[0]), (13, 3));
        // A custom resource's other version: the version found is named.
        let widget =
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: default\n";
        let text = format!(
            "{widget}{}",
            pp(
                "default",
                "{apiVersion: example.com/v2, kind: Widget, name: w}"
            )
        );
        let f = lint_rule(&text, "dead-policy", false);
        assert!(
            f[0].message.ends_with(
                "no Widget in the input has apiVersion example.com/v2 (found: example.com/v1)"
            ),
            "{}",
            f[0].message
        );
        // A version the core group does not serve is selector-never-matches', not this rule's.
        let text = format!(
            "{CM}{}",
            pp(
                "default",
                "{apiVersion: v1beta1, kind: ConfigMap, name: settings}"
            )
        );
        assert!(lint_rule(&text, "dead-policy", false).is_empty());
        assert_eq!(lint_rule(&text, "selector-never-matches", false).len(), 1);
    }

    #[test]
    fn a_crd_karmada_installs_is_there_to_select() {
        // An unrelated CRD in the input makes CustomResourceDefinition a kind present.
        let foo = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: foos.example.com\n";
        let cpp = |name: &str| {
            format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: crds\nspec:\n  resourceSelectors:\n    - {{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, name: {name}}}\n")
        };
        let text = format!("{foo}{}", cpp("serviceexports.multicluster.x-k8s.io"));
        assert!(lint_rule(&text, "dead-policy", false).is_empty());
        // Another CRD no file holds is still a selector to check.
        let text = format!("{foo}{}", cpp("bars.example.com"));
        assert_eq!(lint_rule(&text, "dead-policy", false).len(), 1);
    }

    #[test]
    fn kinds_absent_from_the_input_or_namespace_are_not_judged() {
        let text = format!(
            "{CM}{}",
            pp("default", "{apiVersion: v1, kind: Secret, name: x}")
        );
        assert!(lint_rule(&text, "dead-policy", false).is_empty());
        let text = format!(
            "{CM}{}",
            pp("other", "{apiVersion: v1, kind: ConfigMap, name: x}")
        );
        assert!(lint_rule(&text, "dead-policy", false).is_empty());
        let text = format!("{CM}{}", pp("default", "{apiVersion: v1, kind: ConfigMap}"));
        assert!(lint_rule(&text, "dead-policy", false).is_empty());
    }
}
