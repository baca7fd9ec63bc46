//! `preemption: Always` that does nothing: the feature gate is off (inert), or the policy can
//! never take a template it names (silent non-preemption). Karmada only logs either at verbose
//! level. Facts: claim-and-preemption.md §5 (preemption.go:49-224), §4.4.

use std::collections::BTreeMap;

use crate::engine::reconcile::preemptors;
use crate::engine::simulate::{why_not, BlockReason};
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::PolicyRef;
use crate::source::FieldPath;

pub const SILENT: RuleDoc = RuleDoc {
    id: "silent-non-preemption",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A `preemption: Always` policy that will never take a template it names",
    rationale: "Preemption needs a strictly higher explicit priority than the holder (equal never preempts), and \
                a ClusterPropagationPolicy never takes a template from a PropagationPolicy. Implicit priority \
                (name vs label) does not count. When preemption is refused, Karmada logs it at verbose level only, \
                so the takeover the author expected silently never happens.",
    example: "kind: PropagationPolicy\nmetadata: {name: holder, namespace: default}\nspec:\n  priority: 5\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: nginx}}}]\n---\nkind: PropagationPolicy\nmetadata: {name: takeover, namespace: default}\nspec:\n  priority: 5\n  preemption: Always\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n",
    fix: "Give the preempting policy a strictly higher `spec.priority` than every policy that can hold the template; \
          use a PropagationPolicy, not a ClusterPropagationPolicy, to take templates from PropagationPolicies.",
    reference: "pkg/detector/preemption.go:109-153 (preemptPropagationPolicy: `<=` at :128), :184-224 (preemptClusterPropagationPolicy: :200); pkg/detector/policy.go:61-94 (ResourceDetector.propagateResource: a CPP never takes a template from a PP)",
};

pub const INERT: RuleDoc = RuleDoc {
    id: "inert-preemption",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "`preemption: Always` while the `PropagationPolicyPreemption` feature gate is off",
    rationale: "The gate is Alpha and off by default; without it karmada-controller-manager only logs a warning and \
                never preempts. The lint assumes the default unless the configuration says the gate is on.",
    example: "spec:\n  preemption: Always\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n",
    fix: "Run karmada-controller-manager with `--feature-gates=PropagationPolicyPreemption=true` and say so in \
          `.karmada-policy.yaml` (`featureGates: {PropagationPolicyPreemption: true}`) or with `--feature-gates`; \
          or drop `preemption: Always`.",
    reference: "pkg/features/features.go:50-51 (PolicyPreemption, default false); pkg/detector/preemption.go:49-58 (preemptionEnabled)",
};

pub static RULE: Rule = Rule {
    docs: &[SILENT, INERT],
    checks: &[Check::Semantic(check)],
};

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = inert(a);
    out.extend(silent(a));
    out
}

fn inert(a: &Analysis<'_>) -> Vec<Finding> {
    let gates = &a.state.options.gates;
    if gates.preemption() {
        return Vec::new();
    }
    let why = gates.why_off("PropagationPolicyPreemption");
    a.state
        .live_policies()
        .filter(|(_, p)| p.known && p.preemption_always())
        .map(|(i, p)| {
            a.policy_finding(
                i,
                &INERT,
                &FieldPath::parse("spec.preemption"),
                format!(
                    "{} declares preemption: Always, but {why}: it will never preempt",
                    p.reference()
                ),
            )
        })
        .collect()
}

/// Why a preemptor can never have a template, if it can't.
fn blocker(reason: &BlockReason) -> Option<(&PolicyRef, String)> {
    // Karmada asks the gate before it compares priorities (`preemptionEnabled`,
    // pkg/detector/preemption.go:49-58): with the gate off, a higher priority would not do.
    let gate_off = |gate: bool| {
        if gate {
            ""
        } else {
            ", nor would a higher one while the PropagationPolicyPreemption feature gate is off"
        }
    };
    match reason {
        BlockReason::EqualPriority {
            holder,
            ours,
            theirs,
            gate,
            ..
        } => Some((
            holder,
            format!(
                "equal priority ({ours} = {theirs}) never preempts{}",
                gate_off(*gate)
            ),
        )),
        BlockReason::LowerPriority {
            holder,
            ours,
            theirs,
            gate,
            ..
        } => Some((
            holder,
            format!("its priority {ours} is below {theirs}{}", gate_off(*gate)),
        )),
        BlockReason::CppCannotPreemptPp { holder } => Some((
            holder,
            "a ClusterPropagationPolicy never takes a template from a PropagationPolicy"
                .to_string(),
        )),
        _ => None,
    }
}

fn silent(a: &Analysis<'_>) -> Vec<Finding> {
    // (preemptor, holder, holds_now) -> (reason, templates)
    type Key = (usize, PolicyRef, bool);
    let mut groups: BTreeMap<Key, (String, Vec<usize>)> = BTreeMap::new();
    let no_claims = |_: usize| false;
    // Only a template some policy names can have preemptors.
    let named = a
        .named
        .iter()
        .enumerate()
        .filter(|&(_, &n)| n)
        .map(|(t, _)| t);
    for t in named {
        let tpl = &a.state.templates[t];
        if tpl.excluded.is_some() || tpl.terminating {
            continue;
        }
        let preemptors = preemptors(a.state, t);
        if preemptors.is_empty() {
            continue;
        }
        let owner = a.settled[t].matched_owner.reference(a.state);
        for p in preemptors {
            let pol = a.state.policy(p);
            if owner.as_ref() != Some(&pol.reference()) {
                // Someone else holds it: can this preemptor ever take it?
                if let Some(holder) = &owner {
                    if let Some((h, why)) =
                        blocker(&why_not(a.state, p, t, &Some(holder.clone()), &no_claims))
                    {
                        groups
                            .entry((p, h.clone(), true))
                            .or_insert_with(|| (why, Vec::new()))
                            .1
                            .push(t);
                    }
                }
                continue;
            }
            // It wins a fresh match; but a rival that claims first (created earlier) keeps it.
            for &(r, _) in &a.matches[t] {
                let rival = a.state.policy(r);
                if r == p || !rival.known || rival.terminating {
                    continue;
                }
                let hypothetical = Some(rival.reference());
                if let Some((h, why)) = blocker(&why_not(a.state, p, t, &hypothetical, &no_claims))
                {
                    groups
                        .entry((p, h.clone(), false))
                        .or_insert_with(|| (why, Vec::new()))
                        .1
                        .push(t);
                }
            }
        }
    }
    let mut out = Vec::new();
    for ((p, holder, holds_now), (why, templates)) in groups {
        let pol = a.state.policy(p);
        let t = templates[0];
        let what = a.describe_templates(&templates);
        let message = if holds_now {
            format!(
                "{} names {what} but will never take it from {holder}: {why}",
                pol.reference()
            )
        } else {
            format!(
                "{} names {what}, which {holder} also matches: if {holder} claims it first (created earlier), {} never takes it: {why}",
                pol.reference(),
                pol.reference()
            )
        };
        let mut f = a.policy_finding(p, &SILENT, &FieldPath::parse("spec.priority"), message);
        // Point at the selector that names the template when the priority is not written.
        if let Some(doc) = pol.doc {
            let priority = FieldPath::parse("spec.priority");
            if a.tree(doc, &priority).at(&priority).is_none() {
                let path = a.matching_selector(p, t);
                f.location = Some(crate::lint::Location {
                    source: a.inventory.documents[doc].source.clone(),
                    span: a.tree(doc, &path).locate(&path),
                });
                f.field = Some(path.to_string());
            }
        }
        if let Some(h) = a.state.find_policy(&holder) {
            let hp = a.state.policy(h);
            if let Some((source, span)) = a.policy_span(hp, &a.matching_selector(h, t)) {
                f = f.related(
                    &source,
                    span,
                    format!("{holder} (priority {}) matches here", hp.priority()),
                );
            }
        }
        out.push(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::{lint_rule, pos};

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\n  labels: {app: nginx}\n";

    fn policy(kind: &str, name: &str, priority: i32, preempt: bool, selector: &str) -> String {
        let ns = if kind == "PropagationPolicy" {
            "\n  namespace: default"
        } else {
            ""
        };
        let pre = if preempt {
            "  preemption: Always\n"
        } else {
            ""
        };
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {name}{ns}\nspec:\n  priority: {priority}\n{pre}  resourceSelectors:\n    - {selector}\n")
    }

    const LABEL: &str =
        "{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: nginx}}}";
    const NAMED: &str = "{apiVersion: apps/v1, kind: Deployment, namespace: default, name: nginx}";

    #[test]
    fn equal_priority_preemptor_is_reported_with_both_priorities() {
        let text = format!(
            "{DEPLOY}{}{}",
            policy("PropagationPolicy", "holder", 5, false, LABEL),
            policy("PropagationPolicy", "takeover", 5, true, NAMED)
        );
        let f = lint_rule(&text, "silent-non-preemption", true);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert!(
            f[0].message.contains("pp/default/holder"),
            "{}",
            f[0].message
        );
        assert!(
            f[0].message
                .contains("equal priority (5 = 5) never preempts"),
            "{}",
            f[0].message
        );
        assert_eq!(pos(&f[0]), (24, 3), "at takeover's spec.priority");
        assert_eq!(
            f[0].related[0].message,
            "pp/default/holder (priority 5) matches here"
        );
    }

    #[test]
    fn higher_priority_preemptor_is_fine_and_lower_one_is_not() {
        let ok = format!(
            "{DEPLOY}{}{}",
            policy("PropagationPolicy", "holder", 5, false, LABEL),
            policy("PropagationPolicy", "takeover", 6, true, NAMED)
        );
        assert!(lint_rule(&ok, "silent-non-preemption", true).is_empty());
        let low = format!(
            "{DEPLOY}{}{}",
            policy("PropagationPolicy", "holder", 5, false, LABEL),
            policy("PropagationPolicy", "takeover", 4, true, NAMED)
        );
        let f = lint_rule(&low, "silent-non-preemption", true);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message
                .contains("will never take it from pp/default/holder: its priority 4 is below 5"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn cpp_never_takes_from_a_pp() {
        let text = format!(
            "{DEPLOY}{}{}",
            policy("PropagationPolicy", "team", -5, false, LABEL),
            policy("ClusterPropagationPolicy", "platform", 100, true, NAMED)
        );
        let f = lint_rule(&text, "silent-non-preemption", true);
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains(
            "a ClusterPropagationPolicy never takes a template from a PropagationPolicy"
        ));
    }

    #[test]
    fn inert_when_the_gate_is_off() {
        let text = format!(
            "{DEPLOY}{}",
            policy("PropagationPolicy", "p", 1, true, NAMED)
        );
        let f = lint_rule(&text, "inert-preemption", false);
        assert_eq!(f.len(), 1);
        assert_eq!(pos(&f[0]), (15, 3));
        assert!(lint_rule(&text, "inert-preemption", true).is_empty());
    }
}
