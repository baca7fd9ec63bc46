//! OverridePolicies that reach nothing: one whose selectors match no template of the input
//! although templates of its kinds are there, and a rule whose `targetCluster` matches none of
//! the known member clusters.

use std::collections::HashSet;

use crate::engine::overrides::policy_priority;
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::OverridePolicy;
use crate::source::FieldPath;

pub const SELECTS_NOTHING: RuleDoc = RuleDoc {
    id: "override-selects-nothing",
    group: RuleGroup::Semantics,
    default_severity: Severity::Info,
    summary: "An OverridePolicy or ClusterOverridePolicy that selects no template, although templates of its kinds are in the input",
    rationale: "Usually a selector typo (apiVersion, kind, name, labels) or an OverridePolicy in another namespace \
                than its templates: the overrides are silently never applied, and every member cluster receives the \
                template unchanged. Only kinds with templates in the input (in the policy's namespace for an \
                OverridePolicy) are considered, as for `dead-policy`.",
    example: "kind: Deployment\nmetadata: {name: web, namespace: default}\n---\nkind: OverridePolicy\nmetadata: {name: o, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: wbe}]\n",
    fix: "Fix the selector, or delete the policy.",
    reference: "pkg/util/overridemanager/overridemanager.go:127-133, 165-171 (applyClusterOverrides, applyNamespacedOverrides: the policies listed), :204-213 (getOverridersFromOverridePolicies); pkg/util/selector.go:55-94 (ResourceSelectorPriority)",
};

pub const TARGETS_NO_CLUSTER: RuleDoc = RuleDoc {
    id: "override-targets-no-cluster",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "An override rule whose `targetCluster` matches none of the known member clusters",
    rationale: "A rule applies only on the clusters its targetCluster matches (clusterNames, labelSelector, \
                fieldSelector, exclude), so one that matches no cluster never applies: often a misspelled name or \
                label, or a cluster that was renamed. Checked against the Cluster objects of the input (or the \
                control plane's with `lint --live`), else by name against `knownClusters` (a rule selecting by \
                labels or fields is then not judged).",
    example: "# knownClusters: [member1, member2]\nkind: OverridePolicy\nspec:\n  overrideRules:\n  - targetCluster: {clusterNames: [membr1]}\n    overriders:\n      labelsOverrider: [{operator: add, value: {tier: gold}}]\n",
    fix: "Fix the targetCluster, or drop the rule.",
    reference: "pkg/util/overridemanager/overridemanager.go:246 (getOverridersFromOverridePolicies); pkg/util/selector.go:97-156 (ClusterMatches)",
};

pub static RULE: Rule = Rule {
    docs: &[SELECTS_NOTHING, TARGETS_NO_CLUSTER],
    checks: &[Check::Semantic(check)],
};

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    // Of several documents of one policy only the last exists once they are applied: the
    // copies it replaced select nothing and target nothing.
    let ops: Vec<&OverridePolicy> = a.inventory.stored_overrides();
    if ops.is_empty() {
        return out;
    }
    let dead: Vec<&&OverridePolicy> = ops
        .iter()
        .filter(|op| !op.spec.resource_selectors.is_empty() && !selects_something(a, op))
        .collect();
    if !dead.is_empty() {
        // The kinds present, by namespace: built only when some policy matched nothing.
        let present: HashSet<(&str, &str)> = a
            .state
            .templates
            .iter()
            .map(|t| (&*t.kind, &*t.namespace))
            .collect();
        let kinds: HashSet<&str> = present.iter().map(|(k, _)| *k).collect();
        for op in dead {
            let relevant = op.spec.resource_selectors.iter().any(|rs| match scope(op) {
                Some(ns) => present.contains(&(rs.kind.as_str(), ns)),
                None => kinds.contains(rs.kind.as_str()),
            });
            if relevant {
                report_selects_nothing(a, op, &mut out);
            }
        }
    }
    if !a.clusters.is_empty() {
        for op in &ops {
            check_targets(a, op, &mut out);
        }
    }
    out
}

/// The namespace an OverridePolicy sees; `None` for a ClusterOverridePolicy (every one).
fn scope(op: &OverridePolicy) -> Option<&str> {
    op.meta.namespace.as_deref().filter(|_| !op.cluster_scoped)
}

/// Whether some template of the input matches the policy: by the state's index for a named
/// selector in a known namespace, else among the templates of the selector's kind.
fn selects_something(a: &Analysis<'_>, op: &OverridePolicy) -> bool {
    let st = &a.state;
    let matches = |t: usize| {
        let tpl = &st.templates[t];
        scope(op).is_none_or(|ns| ns == &*tpl.namespace)
            && policy_priority(op, &tpl.target()).is_some()
    };
    op.spec.resource_selectors.iter().any(|rs| {
        let ns = Some(rs.namespace.as_str())
            .filter(|n| !n.is_empty())
            .or(scope(op));
        match ns {
            Some(ns) if !rs.name.is_empty() => st
                .find_template(&rs.api_version, &rs.kind, ns, &rs.name)
                .is_some_and(matches),
            _ => st
                .templates_of(&rs.api_version, &rs.kind)
                .iter()
                .any(|&t| matches(t)),
        }
    })
}

fn report_selects_nothing(a: &Analysis<'_>, op: &OverridePolicy, out: &mut Vec<Finding>) {
    out.push(finding(
        a,
        op,
        &SELECTS_NOTHING,
        FieldPath::parse("spec.resourceSelectors"),
        format!(
            "{} selects no template of the input{}: its overrides are never applied",
            op.display_id(),
            scope(op)
                .map(|n| format!(" in namespace {n}"))
                .unwrap_or_default()
        ),
    ));
}

fn finding(
    a: &Analysis<'_>,
    op: &OverridePolicy,
    doc: &RuleDoc,
    path: FieldPath,
    message: String,
) -> Finding {
    let d = &a.inventory.documents[op.doc];
    let span = a.tree(op.doc, &path).locate_value(&path);
    let mut f = Finding::new(doc.id, doc.default_severity, message)
        .at(&d.source, span)
        .field(path.to_string())
        .object(super::overrides::object_ref(op));
    f.doc = Some(op.doc);
    f
}

/// override-targets-no-cluster: rules whose targetCluster matches no known cluster.
fn check_targets(a: &Analysis<'_>, op: &OverridePolicy, out: &mut Vec<Finding>) {
    let in_rules = !op.typed_rules().override_rules.is_empty();
    let names_only = a.clusters.names_only;
    for (i, rule) in op.effective_rules().iter().enumerate() {
        let Some(target) = &rule.target_cluster else {
            continue;
        };
        if names_only && (target.label_selector.is_some() || target.field_selector.is_some()) {
            continue;
        }
        let any = a
            .clusters
            .clusters
            .iter()
            .any(|c| super::override_order::applies(Some(target), c, names_only));
        if any {
            continue;
        }
        let path = if in_rules {
            FieldPath::parse("spec.overrideRules")
                .index(i)
                .key("targetCluster")
        } else {
            FieldPath::parse("spec.targetCluster")
        };
        out.push(a.clusters.cite(finding(
            a,
            op,
            &TARGETS_NO_CLUSTER,
            path,
            format!(
                "{}: this targetCluster matches none of the known clusters ({}): the rule never applies",
                op.display_id(),
                a.clusters.describe()
            ),
        )));
    }
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::lint_rule;

    const INPUT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member1, labels: {env: prod}}\n---\n";

    fn op(selector: &str, target: &str) -> String {
        format!("{INPUT}apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {{name: o, namespace: default}}\nspec:\n  resourceSelectors: [{selector}]\n  overrideRules:\n  - targetCluster: {target}\n    overriders:\n      labelsOverrider: [{{operator: add, value: {{tier: gold}}}}]\n")
    }

    #[test]
    fn a_policy_that_selects_nothing_and_a_rule_that_targets_no_cluster() {
        let typo = op(
            "{apiVersion: apps/v1, kind: Deployment, name: wbe}",
            "{clusterNames: [member1]}",
        );
        assert_eq!(lint_rule(&typo, "override-selects-nothing", false).len(), 1);
        assert!(lint_rule(&typo, "override-targets-no-cluster", false).is_empty());
        let other_kind = op(
            "{apiVersion: v1, kind: ConfigMap}",
            "{clusterNames: [member1]}",
        );
        assert!(
            lint_rule(&other_kind, "override-selects-nothing", false).is_empty(),
            "no ConfigMap in the input"
        );
        let labels = op(
            "{apiVersion: apps/v1, kind: Deployment, name: web}",
            "{labelSelector: {matchLabels: {env: dev}}}",
        );
        let f = lint_rule(&labels, "override-targets-no-cluster", false);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].field.as_deref(),
            Some("spec.overrideRules[0].targetCluster")
        );
        assert!(lint_rule(&labels, "override-selects-nothing", false).is_empty());
    }

    /// Four copies of one OverridePolicy (a tutorial's steps in one directory) are one policy
    /// once applied: one finding, at the copy that stays.
    #[test]
    fn copies_of_one_policy_are_reported_once_at_the_last() {
        let typo = op(
            "{apiVersion: apps/v1, kind: Deployment, name: wbe}",
            "{clusterNames: [member2]}",
        );
        let copy = &typo[INPUT.len()..];
        let text = format!("{typo}---\n{copy}");
        let nothing = lint_rule(&text, "override-selects-nothing", false);
        assert_eq!(nothing.len(), 1, "{nothing:?}");
        assert_eq!(nothing[0].doc, Some(3));
        let targets = lint_rule(&text, "override-targets-no-cluster", false);
        assert_eq!(targets.len(), 1, "{targets:?}");
    }
}
