//! A propagation policy whose `dependentOverrides` names an override policy the input does not
//! hold: the detector never applies it (claim-and-preemption.md §6.5). The answer is the
//! engine's ([`State::missing_overrides`], and [`fresh_match_among`] for the templates that
//! wait), the one `explain` renders as "waits for missing dependentOverrides".
//!
//! [`State::missing_overrides`]: crate::engine::state::State::missing_overrides

use crate::engine::reconcile::fresh_match_among;
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "dependent-overrides-missing",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A `dependentOverrides` entry naming an override policy that is not in the input",
    rationale: "Before it applies a PropagationPolicy (ClusterPropagationPolicy) to a template, the detector \
                checks that every OverridePolicy of the policy's namespace (ClusterOverridePolicy) its \
                `dependentOverrides` names exists; while one is missing it returns \"waiting for dependent \
                overrides\" and retries: the template is neither claimed nor propagated, and no \
                ClusterPropagationPolicy takes it meanwhile. Admission does not check the names. Reported for \
                every name missing from the input (an override policy applied from elsewhere satisfies it: \
                lint that input too); the message names the templates of the input that wait.",
    example: "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: nginx, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  dependentOverrides: [my-override-policy]\n",
    fix: "Add the override policy (in the policy's namespace for a PropagationPolicy), fix the name, or drop \
          the entry.",
    reference: "pkg/detector/policy.go:68-73, :85-90 (propagateResource: \"waiting for dependent overrides\"); \
                pkg/util/helper/policy.go:46-75 (IsDependentOverridesPresent, IsDependentClusterOverridesPresent)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::Semantic(check)],
};

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let st = a.state;
    let missing: Vec<(usize, Vec<String>)> = st
        .live_policies()
        .filter(|(_, p)| p.known && p.doc.is_some())
        .map(|(i, _)| (i, st.missing_overrides(i)))
        .filter(|(_, m)| !m.is_empty())
        .collect();
    if missing.is_empty() {
        return Vec::new();
    }
    // The templates each policy wins but cannot claim: explain's "waits for missing
    // dependentOverrides".
    let mut waiting: Vec<Vec<usize>> = vec![Vec::new(); st.policies.len()];
    for (t, matches) in a.matches.iter().enumerate() {
        if matches.is_empty() {
            continue;
        }
        if let Some((w, _)) = fresh_match_among(st, matches).waiting_for_overrides {
            waiting[w].push(t);
        }
    }
    let mut out = Vec::new();
    for (i, names) in missing {
        let p = st.policy(i);
        let kind = if p.is_pp() {
            format!("OverridePolicy {}/", p.namespace)
        } else {
            "ClusterOverridePolicy ".to_string()
        };
        // One template named, the others counted: a policy may win thousands.
        let effect = match waiting[i].as_slice() {
            [] => "any template it wins waits, unclaimed".to_string(),
            [_] => format!("{} waits, unclaimed", a.describe_templates(&waiting[i])),
            _ => format!("{} wait, unclaimed", a.describe_templates(&waiting[i])),
        };
        for (n, name) in p.spec.dependent_overrides.iter().enumerate() {
            if !names.contains(name) {
                continue;
            }
            out.push(a.policy_finding(
                i,
                &DOC,
                &FieldPath::parse("spec.dependentOverrides").index(n),
                format!(
                    "{}: dependentOverrides names {kind}{name}, which is not in the input: the detector does not apply the policy until it exists ({effect}, with no fallback to a ClusterPropagationPolicy)",
                    p.reference()
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::{lint_rule, pos};

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\nspec: {replicas: 1}\n";

    fn pp(dependent: &str) -> String {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: p, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  dependentOverrides:\n  - op\n  - {dependent}\n")
    }

    const OP: &str = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: op, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n";

    #[test]
    fn a_missing_dependent_override_is_reported_at_its_entry() {
        let text = format!("{DEPLOY}{}{OP}", pp("gone"));
        let f = lint_rule(&text, "dependent-overrides-missing", false);
        assert_eq!(f.len(), 1, "{f:?}");
        // The second entry (line 13, under `dependentOverrides:` at line 11).
        assert_eq!(pos(&f[0]), (13, 5));
        assert!(
            f[0].message
                .contains("OverridePolicy default/gone, which is not in the input"),
            "{}",
            f[0].message
        );
        assert!(
            f[0].message.contains("default/nginx waits"),
            "{}",
            f[0].message
        );
    }

    /// A policy that wins many templates names one and counts the others.
    #[test]
    fn the_waiting_templates_are_counted_past_the_first() {
        let all = pp("gone").replace(", name: nginx}", "}");
        let second = DEPLOY.replace("name: nginx", "name: web");
        let text = format!("{DEPLOY}---\n{second}{all}{OP}");
        let f = lint_rule(&text, "dependent-overrides-missing", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message
                .contains("default/nginx and 1 more wait, unclaimed"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn present_overrides_are_not_reported() {
        let op2 = OP.replace("name: op,", "name: op2,");
        let text = format!("{DEPLOY}{}{OP}{op2}", pp("op2"));
        assert!(lint_rule(&text, "dependent-overrides-missing", false).is_empty());
    }

    #[test]
    fn an_override_of_another_namespace_does_not_count() {
        let other = OP.replace("namespace: default", "namespace: other");
        let text = format!("{DEPLOY}{}{other}", pp("op2"));
        // `op` exists in `other` only: not the policy's; both entries are missing.
        let f = lint_rule(&text, "dependent-overrides-missing", false);
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f[0].message.contains("default/op,"), "{}", f[0].message);
    }
}
