//! OverridePolicy / ClusterOverridePolicy rules that Karmada's webhook does not catch: an
//! overrider applies to every kind a policy selects (overrides-and-placement.md §A.7-§A.9), and
//! a top-level `fieldOverrider` beside `overrideRules` never runs (§A.6), and a rule without
//! overriders changes nothing.

use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::override_policy::{Overriders, PlaintextOverrider};
use crate::model::{Inventory, ObjectRef, OverridePolicy, POLICY_API_VERSION};
use crate::source::FieldPath;

pub const FIELD_OVERRIDER_IGNORED: RuleDoc = RuleDoc {
    id: "field-overrider-ignored",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A top-level `overriders.fieldOverrider` beside `overrideRules`: it never runs",
    rationale: "With `overrideRules` the deprecated top-level `targetCluster`/`overriders` are ignored. The webhook \
                refuses top-level overriders beside overrideRules, but its emptiness check does not look at \
                fieldOverrider, so that one is admitted and silently dropped (karmada PR #7875).",
    example: "kind: OverridePolicy\nspec:\n  overrideRules: [{overriders: {}}]\n  overriders:\n    fieldOverrider: [{fieldPath: /data/app.json, json: [{subPath: /a, operator: add, value: 1}]}]\n",
    fix: "Move the fieldOverrider into a rule of `overrideRules`.",
    reference: "pkg/util/overridemanager/overridemanager.go:230-244 (getOverridersFromOverridePolicies); pkg/util/validation/validation.go:421-441 (emptyOverrides)",
};

pub const PATH_NOT_ON_KIND: RuleDoc = RuleDoc {
    id: "override-path-not-on-kind",
    group: RuleGroup::Semantics,
    default_severity: Severity::Error,
    summary: "A plaintext path that a selected kind does not have (a ConfigMap path on a Deployment)",
    rationale: "Every overrider applies to every resource the policy selects. A `replace`/`remove` (or an `add` \
                under a missing parent) of a path the object lacks fails the JSON patch, and one failing operation \
                drops the whole cluster's result: no Work is written for that cluster (karmada#6103).",
    example: "kind: ClusterOverridePolicy\nspec:\n  resourceSelectors:\n  - {apiVersion: v1, kind: ConfigMap}\n  - {apiVersion: apps/v1, kind: Deployment}\n  overrideRules:\n  - overriders:\n      plaintext: [{path: /data/env, operator: replace, value: prod}]\n",
    fix: "Split the policy per kind, or narrow its resourceSelectors to the kinds that have the path.",
    reference: "pkg/util/overridemanager/overridemanager.go:263-286 (applyJSONPatch), :151-155 (applyClusterOverrides: a failing patch ends the cluster's overrides); karmada#6103",
};

pub const NEVER_APPLIES: RuleDoc = RuleDoc {
    id: "overrider-never-applies",
    group: RuleGroup::Semantics,
    default_severity: Severity::Info,
    summary: "An image, command or args overrider on a policy that selects only kinds without containers",
    rationale: "Without a predicate, imageOverrider, commandOverrider and argsOverrider act only on Pod, ReplicaSet, \
                Deployment, DaemonSet, StatefulSet and Job; on any other kind (ConfigMap, CronJob, CRDs) they are a \
                silent no-op.",
    example: "kind: OverridePolicy\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  overrideRules:\n  - overriders:\n      imageOverrider: [{component: Registry, operator: replace, value: mirror.io}]\n",
    fix: "Use an imageOverrider `predicate.path` for other kinds, or a plaintext overrider.",
    reference: "pkg/util/overridemanager/imageoverride.go:50-91 (buildPatchesWithEmptyPredicate); pkg/util/overridemanager/commandargsoverride.go:39-55 (buildCommandArgsPatches)",
};

pub const RULE_EMPTY: RuleDoc = RuleDoc {
    id: "override-rule-empty",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A rule of `overrideRules` without overriders: it changes nothing",
    rationale: "The CRD requires `overriders` in each rule, but the OverridePolicy mutating webhook marshals the \
                policy again and writes `overriders: {}` where it is missing, so a rule that names only a \
                `targetCluster` is admitted and does nothing. Most often it is an indentation slip: the overriders \
                meant for that cluster went into the next rule, which, having no `targetCluster` of its own, \
                applies them to every cluster.",
    example: "kind: OverridePolicy\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  overrideRules:\n  - targetCluster: {clusterNames: [member1]}\n  - overriders:\n      labelsOverrider: [{operator: add, value: {tier: edge}}]\n",
    fix: "Indent the overriders under the rule whose targetCluster they are meant for, or delete the empty rule.",
    reference: "pkg/webhook/overridepolicy/mutating.go:39-65 (the webhook's round trip); pkg/apis/policy/v1alpha1/override_types.go:80 (overriders, required); pkg/util/overridemanager/overridemanager.go:245-252 (a rule without targetCluster applies to every cluster)",
};

pub static RULE: Rule = Rule {
    docs: &[
        FIELD_OVERRIDER_IGNORED,
        PATH_NOT_ON_KIND,
        NEVER_APPLIES,
        RULE_EMPTY,
    ],
    checks: &[Check::PerObject(|o| check(o.inventory))],
};

/// Kinds whose containers image/command/args overriders reach without a predicate.
const WITH_CONTAINERS: &[&str] = &[
    "Pod",
    "ReplicaSet",
    "Deployment",
    "DaemonSet",
    "StatefulSet",
    "Job",
];

/// Top-level fields of well-known kinds (besides apiVersion, kind, metadata, status).
fn top_level_fields(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "ConfigMap" => &["data", "binaryData", "immutable"],
        "Secret" => &["data", "stringData", "type", "immutable"],
        "Deployment"
        | "StatefulSet"
        | "DaemonSet"
        | "ReplicaSet"
        | "Job"
        | "CronJob"
        | "Pod"
        | "Service"
        | "Ingress"
        | "PersistentVolumeClaim"
        | "HorizontalPodAutoscaler"
        | "NetworkPolicy"
        | "PodDisruptionBudget" => &["spec"],
        "ServiceAccount" => &[
            "secrets",
            "imagePullSecrets",
            "automountServiceAccountToken",
        ],
        "Role" | "ClusterRole" => &["rules", "aggregationRule"],
        "RoleBinding" | "ClusterRoleBinding" => &["subjects", "roleRef"],
        _ => return None,
    })
}

pub(super) fn object_ref(p: &OverridePolicy) -> ObjectRef {
    ObjectRef {
        api_version: POLICY_API_VERSION.to_string(),
        kind: p.kind().to_string(),
        namespace: p.meta.namespace.clone(),
        name: p.meta.name.clone(),
    }
}

fn finding(
    inventory: &Inventory,
    p: &OverridePolicy,
    doc: &RuleDoc,
    path: FieldPath,
    message: String,
) -> Finding {
    let d = &inventory.documents[p.doc];
    let mut f = Finding::new(doc.id, doc.default_severity, message)
        .at(&d.source, d.root.locate_value(&path))
        .field(path.to_string())
        .object(object_ref(p));
    f.doc = Some(p.doc);
    f
}

pub fn check(inventory: &Inventory) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in inventory.overrides() {
        let typed = p.typed_rules();
        if !typed.override_rules.is_empty() && !typed.overriders.field_overrider.is_empty() {
            out.push(finding(
                inventory,
                p,
                &FIELD_OVERRIDER_IGNORED,
                FieldPath::parse("spec.overriders.fieldOverrider"),
                format!(
                    "{}: this top-level fieldOverrider never runs, because overrideRules is set",
                    p.display_id()
                ),
            ));
        }
        check_empty_rules(inventory, p, &typed.override_rules, &mut out);
        let in_rules = !typed.override_rules.is_empty();
        let rules: Vec<Overriders> = if in_rules {
            typed
                .override_rules
                .iter()
                .map(|r| r.overriders.clone())
                .collect()
        } else {
            vec![typed.overriders.clone()]
        };
        for (i, o) in rules.iter().enumerate() {
            let at = |rest: &str| {
                if in_rules {
                    FieldPath::parse("spec.overrideRules")
                        .index(i)
                        .key("overriders")
                        .key(rest)
                } else {
                    FieldPath::parse("spec.overriders").key(rest)
                }
            };
            check_paths(inventory, p, o, &at, &mut out);
            check_container_overriders(inventory, p, o, &at, &mut out);
        }
    }
    out
}

/// Rules that set no overrider at all (fieldOverrider included: it does act).
fn check_empty_rules(
    inventory: &Inventory,
    p: &OverridePolicy,
    rules: &[crate::model::override_policy::OverrideRule],
    out: &mut Vec<Finding>,
) {
    let empty = |o: &Overriders| o.empty_for_webhook() && o.field_overrider.is_empty();
    for (i, rule) in rules.iter().enumerate() {
        if !empty(&rule.overriders) {
            continue;
        }
        // The slip's usual shape: this rule targets clusters, the next one targets none.
        let slip = match rules.get(i + 1) {
            Some(next)
                if rule.target_cluster.is_some()
                    && next.target_cluster.is_none()
                    && !empty(&next.overriders) =>
            {
                format!(
                    " (overrideRules[{}] has the overriders and no targetCluster: it applies them to every cluster)",
                    i + 1
                )
            }
            _ => String::new(),
        };
        out.push(finding(
            inventory,
            p,
            &RULE_EMPTY,
            FieldPath::parse("spec.overrideRules").index(i),
            format!(
                "{}: overrideRules[{i}] has no overriders, so it changes nothing{slip}",
                p.display_id()
            ),
        ));
    }
}

/// Whether a plaintext overrider's path starts with a top-level field that objects of `kind`
/// (a well-known kind) do not have, so that its operation fails on every one of them.
pub(super) fn not_on_kind(item: &PlaintextOverrider, kind: &str) -> bool {
    let Some(first) = item
        .path
        .strip_prefix('/')
        .and_then(|s| s.split('/').next())
    else {
        return false;
    };
    if matches!(first, "metadata" | "apiVersion" | "kind" | "status" | "") {
        return false;
    }
    // `add` of a top-level key works on any object; deeper paths need the parent.
    if item.operator == "add" && !item.path[1..].contains('/') {
        return false;
    }
    top_level_fields(kind).is_some_and(|fields| !fields.contains(&first))
}

fn check_paths(
    inventory: &Inventory,
    p: &OverridePolicy,
    o: &Overriders,
    at: &dyn Fn(&str) -> FieldPath,
    out: &mut Vec<Finding>,
) {
    for (j, item) in o.plaintext.iter().enumerate() {
        for (k, rs) in p.spec.resource_selectors.iter().enumerate() {
            if not_on_kind(item, &rs.kind) {
                out.push(finding(
                    inventory,
                    p,
                    &PATH_NOT_ON_KIND,
                    at("plaintext").index(j).key("path"),
                    format!(
                        "{}: path {} does not exist on a {} (selected by resourceSelectors[{k}]): the {} fails and Karmada writes no Work for that cluster",
                        p.display_id(),
                        item.path,
                        rs.kind,
                        item.operator
                    ),
                ));
            }
        }
    }
}

fn check_container_overriders(
    inventory: &Inventory,
    p: &OverridePolicy,
    o: &Overriders,
    at: &dyn Fn(&str) -> FieldPath,
    out: &mut Vec<Finding>,
) {
    let selectors = &p.spec.resource_selectors;
    if selectors.is_empty()
        || selectors
            .iter()
            .any(|rs| WITH_CONTAINERS.contains(&rs.kind.as_str()))
    {
        return;
    }
    let kinds: Vec<&str> = selectors.iter().map(|rs| rs.kind.as_str()).collect();
    let mut report = |field: &str| {
        out.push(finding(
            inventory,
            p,
            &NEVER_APPLIES,
            at(field),
            format!(
                "{}: {field} never applies to {} (only Pod, ReplicaSet, Deployment, DaemonSet, StatefulSet and Job containers)",
                p.display_id(),
                kinds.join(", ")
            ),
        ));
    };
    if o.image_overrider.iter().any(|i| i.predicate.is_none()) {
        report("imageOverrider");
    }
    if !o.command_overrider.is_empty() {
        report("commandOverrider");
    }
    if !o.args_overrider.is_empty() {
        report("argsOverrider");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    fn ids(text: &str) -> Vec<(&'static str, String)> {
        let inv = Inventory::from_documents(load(Source::new("o.yaml", text)).documents, "default");
        check(&inv)
            .into_iter()
            .map(|f| (f.rule, f.field.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn a_configmap_path_on_a_deployment_and_overriders_without_containers() {
        let cross = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterOverridePolicy\nmetadata: {name: cm}\nspec:\n  resourceSelectors:\n  - {apiVersion: v1, kind: ConfigMap}\n  - {apiVersion: apps/v1, kind: Deployment}\n  overrideRules:\n  - overriders:\n      plaintext: [{path: /data/env, operator: replace, value: prod}]\n";
        assert_eq!(
            ids(cross),
            [(
                "override-path-not-on-kind",
                "spec.overrideRules[0].overriders.plaintext[0].path".to_string()
            )]
        );
        let image = "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: img, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  overrideRules:\n  - overriders:\n      imageOverrider: [{component: Registry, operator: replace, value: mirror.io}]\n";
        assert_eq!(ids(image)[0].0, "overrider-never-applies");
        let ignored = "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: f, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  overrideRules: [{overriders: {}}]\n  overriders:\n    fieldOverrider: [{fieldPath: /data/a, json: [{subPath: /a, operator: add, value: 1}]}]\n";
        // (Its one rule sets no overrider either: that rule changes nothing.)
        assert_eq!(
            ids(ignored),
            [
                (
                    "field-overrider-ignored",
                    "spec.overriders.fieldOverrider".to_string()
                ),
                ("override-rule-empty", "spec.overrideRules[0]".to_string())
            ]
        );
    }
}
