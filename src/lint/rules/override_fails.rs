//! `override-fails`: an override rule that cannot be applied to a template it selects, on a
//! cluster the template goes to, so Karmada writes no Work for that cluster. The same chain
//! `explain` runs per cluster ([`crate::engine::delivery`]), run for every template an override
//! policy selects.

use std::collections::BTreeMap;

use crate::engine::delivery::{self, DeliveryInput};
use crate::engine::overrides::{matching_policies, policy_priority};
use crate::engine::placement::BindingView;
use crate::engine::reconcile::Owner;
use crate::engine::replicas::CapacitySource;
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::cluster::Cluster;
use crate::model::OverridePolicy;
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "override-fails",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "An override rule cannot be applied to a template it selects: Karmada writes no Work for that cluster",
    rationale: "The binding controller applies every matching override policy to the template for each target \
                cluster, and the first overrider that fails (a plaintext `replace` or `remove` of a path the \
                template does not have, an `add` under a missing parent, an image overrider on a malformed image, \
                …) stops the chain for that cluster: no Work is written for it, so the template does not reach \
                it (or stays at its last version there), with a `SyncWorkFailed` event on the binding. Typical: a \
                ClusterOverridePolicy replacing `/spec/template/spec/containers/0/resources/requests/memory` on \
                every Deployment meets one Deployment that sets no requests. Checked with the clusters the \
                template's policy places it on (the Cluster objects of the input, else the `clusterNames` it \
                names), as `explain` shows them; without Cluster objects a template that a label-targeted rule \
                may also reach is left out, since that rule might make the path exist; a path the template's kind \
                never has is `override-path-not-on-kind`'s. karmada-apiserver stores a built-in kind with its \
                defaults, which the file does not show: a missing field it fills (`replicas`, `imagePullPolicy`, \
                a Service's `type`, a request its limit gives, ...) is not reported (`explain -f` shows it as a failure \
                that may not happen).",
    example: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: nginx}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: memory, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  overrideRules:\n  - overriders:\n      plaintext:\n      - {path: /spec/template/spec/containers/0/resources/requests/memory, operator: replace, value: 256Mi}\n",
    fix: "Use `add` (which also replaces an existing value) where the parent exists, add the missing field to \
          the template, or narrow the policy's resourceSelectors to the templates that have it.",
    reference: "pkg/util/overridemanager/overridemanager.go:150-155 (applyClusterOverrides returns the first error), :263-270 (applyJSONPatch); pkg/controllers/binding/common.go:109-115 (ensureWork: no Work for that cluster)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::Semantic(check)],
};

/// The failures of one rule of one policy with one message: the templates and clusters.
#[derive(Default)]
struct Failed {
    templates: Vec<usize>,
    clusters: Vec<String>,
}

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let ops: Vec<&OverridePolicy> = a.inventory.stored_overrides();
    if ops.is_empty() {
        return Vec::new();
    }
    let clusters: &[Cluster] = if a.clusters.names_only {
        &[]
    } else {
        &a.clusters.clusters
    };
    let st = a.state;
    // The templates some policy may override (by its selectors, on the typed entry) and that
    // an owner places: only they are read again and delivered.
    let candidates: Vec<usize> = st
        .templates
        .iter()
        .enumerate()
        .filter(|(t, tpl)| {
            tpl.doc.is_some()
                && matches!(a.settled[*t].owner, Owner::Policy(_))
                && ops
                    .iter()
                    .any(|op| policy_priority(op, &tpl.target()).is_some())
        })
        .map(|(t, _)| t)
        .collect();
    // A template's delivery reads its whole tree again: in chunks on every core (the other
    // semantic rules are done long before this one where a policy overrides every workload).
    const CHUNK: usize = 256;
    let chunks: Vec<&[usize]> = candidates.chunks(CHUNK).collect();
    // Without Cluster objects, a rule targeting labels may or may not apply: which policies
    // have one, read once (each policy's rules are typed from its spec on every call).
    let by_labels: Vec<&OverridePolicy> = ops
        .iter()
        .copied()
        .filter(|op| clusters.is_empty() && targets_labels(op))
        .collect();
    let find = |chunk: &&[usize]| {
        Ok::<_, std::convert::Infallible>(
            chunk
                .iter()
                .flat_map(|&t| failures(a, &ops, (clusters, &by_labels), t))
                .collect::<Vec<_>>(),
        )
    };
    // (policy index in `ops`, rule index, message) → where it fails.
    let mut failed: BTreeMap<(usize, usize, String), Failed> = BTreeMap::new();
    let Ok(()) = crate::util::parallel::each_in_parallel(&chunks, &find, &mut |found| {
        for (t, key, cluster) in found {
            let f = failed.entry(key).or_default();
            if f.templates.last() != Some(&t) {
                f.templates.push(t);
            }
            if !f.clusters.contains(&cluster) {
                f.clusters.push(cluster);
            }
        }
    });
    failed
        .into_iter()
        .map(|((policy, rule, message), f)| finding(a, ops[policy], rule, &message, &f))
        .collect()
}

/// Whether rule `rule` of `op` has a plaintext path that `kind` never has: the failure is
/// reported by `override-path-not-on-kind` already.
fn reported_by_kind(op: &OverridePolicy, rule: usize, kind: &str) -> bool {
    op.effective_rules().get(rule).is_some_and(|r| {
        r.overriders
            .plaintext
            .iter()
            .any(|item| super::overrides::not_on_kind(item, kind))
    })
}

/// Where template `t`'s override chain fails: explain's delivery on the clusters its owner
/// places it on, each failing rule with the cluster.
fn failures(
    a: &Analysis<'_>,
    ops: &[&OverridePolicy],
    (clusters, by_labels): (&[Cluster], &[&OverridePolicy]),
    t: usize,
) -> Vec<(usize, (usize, usize, String), String)> {
    let st = a.state;
    let tpl = &st.templates[t];
    let (Owner::Policy(p), Some(doc)) = (&a.settled[t].owner, tpl.doc) else {
        return Vec::new();
    };
    let p = *p as usize;
    let manifest = delivery::stored_manifest(
        a.inventory.documents[doc].full_tree().to_json(),
        &tpl.namespace,
    );
    let matching = matching_policies(ops, &manifest);
    let uncertain = |op: &&OverridePolicy| by_labels.iter().any(|l| std::ptr::eq(*l, *op));
    if matching.is_empty() || matching.iter().any(uncertain) {
        return Vec::new();
    }
    let delivered = delivery::deliver(&DeliveryInput {
        template: &manifest,
        placement: Some(st.policy(p).spec.scheduled_placement()),
        clusters,
        overrides: ops,
        binding: BindingView {
            api_version: &tpl.api_version,
            kind: &tpl.kind,
            workload: delivery::is_workload(&manifest),
            ..Default::default()
        },
        bound: None,
        chosen: &[],
        capacity: CapacitySource::Declared,
        traits: delivery::scheduler_traits(st),
        carried_to: &[],
        named_only: false,
    });
    delivered
        .overrides
        .into_iter()
        .filter_map(|result| {
            let error = result.error?;
            let (policy, rule) = error.rule?;
            // A path the template's kind never has is override-path-not-on-kind's, at the path.
            if reported_by_kind(ops[policy], rule, &tpl.kind) {
                return None;
            }
            // karmada-apiserver may have filled the path: not known to fail (explain says so).
            if result.defaulted.is_some() {
                return None;
            }
            Some((t, (policy, rule, error.message), result.cluster))
        })
        .collect()
}

/// Whether a rule of `op` targets clusters by labels or fields: without Cluster objects it may
/// or may not apply, so what the chain does is not known.
fn targets_labels(op: &OverridePolicy) -> bool {
    op.effective_rules().iter().any(|r| {
        r.target_cluster
            .as_ref()
            .is_some_and(|t| t.label_selector.is_some() || t.field_selector.is_some())
    })
}

fn finding(
    a: &Analysis<'_>,
    op: &OverridePolicy,
    rule: usize,
    message: &str,
    f: &Failed,
) -> Finding {
    let path = if op.typed_rules().override_rules.is_empty() {
        FieldPath::parse("spec.overriders")
    } else {
        FieldPath::parse("spec.overrideRules")
            .index(rule)
            .key("overriders")
    };
    const SHOWN: usize = 5;
    let clusters = match f.clusters.len() {
        n if n <= SHOWN => f.clusters.join(", "),
        n => format!("{} and {} more", f.clusters[..SHOWN].join(", "), n - SHOWN),
    };
    let text = format!(
        "{}: {path} fails on {} for {clusters}: {message}; Karmada writes no Work for it there",
        op.display_id(),
        a.describe_templates(&f.templates),
    );
    let d = &a.inventory.documents[op.doc];
    let span = a.tree(op.doc, &path).locate_value(&path);
    let mut finding = Finding::new(DOC.id, DOC.default_severity, text)
        .at(&d.source, span)
        .field(path.to_string())
        .object(super::overrides::object_ref(op));
    finding.doc = Some(op.doc);
    finding
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::lint_rule;

    const BATCH: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: batch, namespace: shop}\nspec:\n  template:\n    spec:\n      containers: [{name: batch, image: busybox}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: batch, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  placement: {clusterAffinity: {clusterNames: [pi1]}}\n---\n";

    fn cop(target: &str) -> String {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterOverridePolicy\nmetadata: {{name: pi}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  overrideRules:\n  - targetCluster: {target}\n    overriders:\n      plaintext: [{{path: /spec/template/spec/containers/0/resources/requests/memory, operator: replace, value: 256Mi}}]\n")
    }

    /// A rule targeting labels applies or not by the cluster's labels: without Cluster objects
    /// nothing is said; with the labelled Cluster the failure is certain.
    #[test]
    fn a_label_targeted_rule_is_judged_only_against_cluster_objects() {
        let by_label = cop("{labelSelector: {matchLabels: {hardware: pi}}}");
        let text = format!("{BATCH}{by_label}");
        assert!(lint_rule(&text, "override-fails", false).is_empty());
        let cluster = "---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: pi1, labels: {hardware: pi}}\nspec: {syncMode: Push}\n";
        let f = lint_rule(&format!("{text}{cluster}"), "override-fails", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message.starts_with("ClusterOverridePolicy pi: spec.overrideRules[0].overriders fails on deployment/shop/batch for pi1: replace operation does not apply"),
            "{}",
            f[0].message
        );
        // A path no Deployment has is override-path-not-on-kind's: not said twice.
        let data = cop("{clusterNames: [pi1]}").replace(
            "/spec/template/spec/containers/0/resources/requests/memory",
            "/data/memory",
        );
        assert!(lint_rule(&format!("{BATCH}{data}"), "override-fails", false).is_empty());
        // A cluster the template does not go to: no Work is missing.
        let elsewhere = format!("{BATCH}{}", cop("{clusterNames: [pi2]}"));
        assert!(lint_rule(&elsewhere, "override-fails", false).is_empty());
    }

    /// karmada-apiserver stores a built-in template with its defaults: a patch of a field the
    /// defaulting fills (replicas, a request its limit gives) may well succeed, so it is not
    /// reported; a custom resource has no such defaults.
    #[test]
    fn a_field_the_api_server_defaults_is_not_a_failure() {
        let path = |p: &str| {
            cop("{clusterNames: [pi1]}").replace(
                "/spec/template/spec/containers/0/resources/requests/memory",
                p,
            )
        };
        let replicas = format!("{BATCH}{}", path("/spec/replicas"));
        assert!(lint_rule(&replicas, "override-fails", false).is_empty());
        let limited = BATCH.replace(
            "image: busybox}",
            "image: busybox, resources: {limits: {memory: 1Gi}}}",
        );
        assert!(limited.contains("limits"), "{limited}");
        let from_limit = format!("{limited}{}", cop("{clusterNames: [pi1]}"));
        assert!(lint_rule(&from_limit, "override-fails", false).is_empty());
        let widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nspec: {size: 1}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: w, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: example.com/v1, kind: Widget}]\n  placement: {clusterAffinity: {clusterNames: [pi1]}}\n---\n";
        let crd = format!(
            "{widget}{}",
            path("/spec/replicas").replace(
                "{apiVersion: apps/v1, kind: Deployment}",
                "{apiVersion: example.com/v1, kind: Widget}"
            )
        );
        assert_eq!(lint_rule(&crd, "override-fails", false).len(), 1);
    }
}
