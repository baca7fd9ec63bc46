//! `override-order-decides`: two override policies write the same field of the same template
//! for the same member cluster with different results, so only the override manager's order
//! says which one the cluster receives: ClusterOverridePolicies before OverridePolicies, each
//! group by implicit priority (least specific first) then by name
//! ([`crate::engine::overrides::application_order`], overrides-and-placement.md §A.5).

use std::collections::{BTreeMap, HashMap};

use crate::engine::cluster_match::{describe_witness, witness};
use crate::engine::overrides::application_order;
use crate::engine::placement::cluster_matches;
use crate::engine::selector::ImplicitPriority;
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::cluster::Cluster;
use crate::model::override_policy::{OverrideRule, Overriders};
use crate::model::policy::ClusterAffinity;
use crate::model::OverridePolicy;
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "override-order-decides",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "Two override policies write the same field of a template for the same cluster: only their order decides",
    rationale: "Every matching ClusterOverridePolicy and OverridePolicy is applied, one after the other, so the last \
                write of a field wins. The order is not the one most people expect (Karmada's website says \"by \
                name\"): ClusterOverridePolicies first, then OverridePolicies, each group by implicit priority, least \
                specific first (kind only, then label selector, then name), then by name. The earlier write is \
                silently lost. Checked against the known member clusters (Cluster objects or `knownClusters`), \
                else for the clusters the rules name and any other cluster; without Cluster objects, also on \
                a cluster carrying just the labels (or fields) a rule's `targetCluster` selects, so two rules \
                of one label selector meet whatever clusters the fleet holds. Two documents of one policy (same \
                kind, namespace and name) are one policy: applied in turn, the later replaces the earlier, and \
                only it takes part.",
    example: "kind: ClusterOverridePolicy\nmetadata: {name: registry}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  overrideRules:\n  - overriders:\n      plaintext: [{path: /spec/replicas, operator: replace, value: 2}]\n---\nkind: OverridePolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  overrideRules:\n  - overriders:\n      plaintext: [{path: /spec/replicas, operator: replace, value: 5}]\n",
    fix: "Write each field in one policy, or narrow the selectors or targetClusters so that one policy owns it.",
    reference: "pkg/util/overridemanager/overridemanager.go:105-121 (ApplyOverridePolicies: cluster override policies, then override policies), :214-227 (getOverridersFromOverridePolicies: by implicit priority, then name); karmada PR #2609",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::Semantic(check)],
};

/// One field an overrider sets, and what it sets it to.
struct Write {
    /// What is written: a JSON pointer, `/metadata/labels/<key>`, `image <component>` …
    field: String,
    /// The operation and value: two writes of the same result do not conflict.
    result: String,
    /// The overrider in the policy's document.
    path: FieldPath,
}

/// One rule of a policy with the fields it writes.
struct RuleWrites {
    target: Option<ClusterAffinity>,
    writes: Vec<Write>,
}

/// A policy's effective rules, typed once.
struct Prepared {
    rules: Vec<RuleWrites>,
}

/// The writes of one rule's overriders, `at` the rule's `overriders` path. Command and args
/// overriders only add and remove items: every one of them takes effect, in either order.
fn writes(o: &Overriders, at: &FieldPath) -> Vec<Write> {
    let mut out = Vec::new();
    let json = |v: &Option<serde_json::Value>| v.as_ref().map(ToString::to_string);
    for (j, p) in o.plaintext.iter().enumerate() {
        out.push(Write {
            field: p.path.clone(),
            result: format!("{} {}", p.operator, json(&p.value).unwrap_or_default()),
            path: at.clone().key("plaintext").index(j).key("path"),
        });
    }
    for (list, items, prefix) in [
        ("labelsOverrider", &o.labels_overrider, "/metadata/labels/"),
        (
            "annotationsOverrider",
            &o.annotations_overrider,
            "/metadata/annotations/",
        ),
    ] {
        for (j, item) in items.iter().enumerate() {
            for (k, v) in &item.value {
                out.push(Write {
                    field: format!("{prefix}{}", k.replace('~', "~0").replace('/', "~1")),
                    // `remove` ignores the value (§A.10).
                    result: match item.operator.as_str() {
                        "remove" => "remove".to_string(),
                        op => format!("{op} {v}"),
                    },
                    path: at.clone().key(list).index(j).key("value"),
                });
            }
        }
    }
    for (j, img) in o.image_overrider.iter().enumerate() {
        let whose = img
            .predicate
            .as_ref()
            .map_or("containers".to_string(), |p| p.path.clone());
        out.push(Write {
            field: format!("image {} of {whose}", img.component),
            result: format!("{} {}", img.operator, img.value),
            path: at.clone().key("imageOverrider").index(j),
        });
    }
    for (j, f) in o.field_overrider.iter().enumerate() {
        for (list, ops) in [("json", &f.json), ("yaml", &f.yaml)] {
            for (k, op) in ops.iter().enumerate() {
                out.push(Write {
                    field: format!("{} {}", f.field_path, op.sub_path),
                    result: format!("{} {}", op.operator, json(&op.value).unwrap_or_default()),
                    path: at.clone().key("fieldOverrider").index(j).key(list).index(k),
                });
            }
        }
    }
    out
}

fn prepare(op: &OverridePolicy) -> Prepared {
    let in_rules = !op.typed_rules().override_rules.is_empty();
    let rules = op
        .effective_rules()
        .into_iter()
        .enumerate()
        .map(
            |(
                i,
                OverrideRule {
                    target_cluster,
                    overriders,
                },
            )| {
                let at = if in_rules {
                    FieldPath::parse("spec.overrideRules")
                        .index(i)
                        .key("overriders")
                } else {
                    FieldPath::parse("spec.overriders")
                };
                RuleWrites {
                    target: target_cluster,
                    writes: writes(&overriders, &at),
                }
            },
        )
        .collect();
    Prepared { rules }
}

/// A cluster the check runs for, and how the finding names it.
struct Place {
    cluster: Cluster,
    /// Known by name alone: a rule selecting by labels or fields may or may not apply.
    names_only: bool,
    /// `""` stands for any cluster no rule names.
    shown: String,
}

/// The clusters the check runs for: the known ones, else every cluster a rule names and one
/// standing for any other cluster (name `""`). Without Cluster objects, also the plainest
/// cluster each selecting rule selects ([`witness`]): two rules of one label selector both
/// apply on any cluster that carries it, whichever clusters the fleet holds.
fn universe(a: &Analysis<'_>, prepared: &[Prepared]) -> Vec<Place> {
    let place = |cluster: Cluster, names_only: bool| Place {
        shown: cluster.name.clone(),
        cluster,
        names_only,
    };
    if !a.clusters.is_empty() && !a.clusters.names_only {
        return a
            .clusters
            .clusters
            .iter()
            .map(|c| place(c.clone(), false))
            .collect();
    }
    let targets = || {
        prepared
            .iter()
            .flat_map(|p| &p.rules)
            .filter_map(|r| r.target.as_ref())
    };
    let mut places: Vec<Place> = if a.clusters.is_empty() {
        let mut names: Vec<String> = targets()
            .flat_map(|t| t.cluster_names.iter().cloned())
            .collect();
        names.sort();
        names.dedup();
        names.push(String::new());
        names
            .iter()
            .map(|n| place(Cluster::named(n), true))
            .collect()
    } else {
        a.clusters
            .clusters
            .iter()
            .map(|c| place(c.clone(), true))
            .collect()
    };
    for w in targets().filter_map(witness) {
        let shown = format!("clusters with {}", describe_witness(&w));
        if !places.iter().any(|p| p.shown == shown) {
            places.push(Place {
                cluster: w,
                names_only: false,
                shown,
            });
        }
    }
    places
}

/// Whether a rule certainly applies on `cluster`. A cluster known by name alone is matched by
/// names only: a rule that selects by labels or fields might or might not apply, so it is
/// left out (a finding must hold).
pub(super) fn applies(
    target: Option<&ClusterAffinity>,
    cluster: &Cluster,
    names_only: bool,
) -> bool {
    let Some(t) = target else { return true };
    if !names_only {
        return cluster_matches(cluster, t);
    }
    if t.label_selector.is_some() || t.field_selector.is_some() {
        return false;
    }
    if cluster.name.is_empty() {
        return t.cluster_names.is_empty();
    }
    !t.exclude.contains(&cluster.name)
        && (t.cluster_names.is_empty() || t.cluster_names.contains(&cluster.name))
}

/// One pair of writes where the later overwrites the earlier.
struct Conflict {
    field: String,
    earlier: (usize, FieldPath, ImplicitPriority),
    later: (usize, FieldPath, ImplicitPriority),
    templates: Vec<usize>,
    clusters: Vec<String>,
}

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let ops: Vec<&OverridePolicy> = a.inventory.stored_overrides();
    if ops.len() < 2 {
        return Vec::new();
    }
    let prepared: Vec<Prepared> = ops.iter().map(|op| prepare(op)).collect();
    let index: HashMap<*const OverridePolicy, usize> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| (*op as *const OverridePolicy, i))
        .collect();
    let by_kind = kind_index(&ops);
    let places = universe(a, &prepared);
    let mut conflicts: BTreeMap<(usize, String, usize), Conflict> = BTreeMap::new();
    for (t, tpl) in a.state.templates.iter().enumerate() {
        let candidates = by_kind.candidates(&tpl.kind);
        if candidates.len() < 2 {
            continue;
        }
        let order: Vec<(ImplicitPriority, usize)> = application_order(&candidates, &tpl.target())
            .into_iter()
            .map(|(prio, op)| (prio, index[&(op as *const OverridePolicy)]))
            .collect();
        if order.len() < 2 {
            continue;
        }
        for place in &places {
            conflicts_on(&prepared, &order, place, t, &mut conflicts);
        }
    }
    conflicts
        .into_values()
        .map(|c| finding(a, &ops, &c))
        .collect()
}

/// The policies whose selectors can match a kind: those naming it, and those without
/// selectors (they match everything).
struct KindIndex<'p> {
    by_kind: HashMap<&'p str, Vec<&'p OverridePolicy>>,
    any: Vec<&'p OverridePolicy>,
}

impl<'p> KindIndex<'p> {
    fn candidates(&self, kind: &str) -> Vec<&'p OverridePolicy> {
        let mut out = self.any.clone();
        out.extend(self.by_kind.get(kind).into_iter().flatten().copied());
        out
    }
}

fn kind_index<'p>(ops: &[&'p OverridePolicy]) -> KindIndex<'p> {
    let mut index = KindIndex {
        by_kind: HashMap::new(),
        any: Vec::new(),
    };
    for op in ops {
        if op.spec.resource_selectors.is_empty() {
            index.any.push(op);
            continue;
        }
        let mut kinds: Vec<&str> = op
            .spec
            .resource_selectors
            .iter()
            .map(|rs| rs.kind.as_str())
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        for k in kinds {
            index.by_kind.entry(k).or_default().push(op);
        }
    }
    index
}

/// Walks the writes of the policies in application order on one cluster; a write of a field
/// an earlier policy wrote to another result is a conflict.
fn conflicts_on(
    prepared: &[Prepared],
    order: &[(ImplicitPriority, usize)],
    place: &Place,
    template: usize,
    out: &mut BTreeMap<(usize, String, usize), Conflict>,
) {
    let mut last: HashMap<&str, (usize, &Write, ImplicitPriority)> = HashMap::new();
    for &(prio, p) in order {
        for rule in &prepared[p].rules {
            if !applies(rule.target.as_ref(), &place.cluster, place.names_only) {
                continue;
            }
            for w in &rule.writes {
                if let Some(&(q, before, before_prio)) = last.get(w.field.as_str()) {
                    if q != p && before.result != w.result {
                        let c = out
                            .entry((q, before.path.to_string(), p))
                            .or_insert_with(|| Conflict {
                                field: w.field.clone(),
                                earlier: (q, before.path.clone(), before_prio),
                                later: (p, w.path.clone(), prio),
                                templates: Vec::new(),
                                clusters: Vec::new(),
                            });
                        if c.templates.last() != Some(&template) {
                            c.templates.push(template);
                        }
                        if !c.clusters.contains(&place.shown) {
                            c.clusters.push(place.shown.clone());
                        }
                    }
                }
                last.insert(&w.field, (p, w, prio));
            }
        }
    }
}

pub(super) fn priority_text(p: ImplicitPriority) -> &'static str {
    match p {
        ImplicitPriority::MatchName => "by name",
        ImplicitPriority::MatchLabelSelector => "by label selector",
        _ => "by kind only",
    }
}

/// Why the later policy applies after the earlier one.
fn why(
    earlier: &OverridePolicy,
    e: ImplicitPriority,
    later: &OverridePolicy,
    l: ImplicitPriority,
) -> String {
    if earlier.cluster_scoped && !later.cluster_scoped {
        return "OverridePolicies apply after ClusterOverridePolicies".to_string();
    }
    if e != l {
        return format!(
            "it selects the template {} and the other {}: the more specific applies last",
            priority_text(l),
            priority_text(e)
        );
    }
    format!(
        "both select the template {}: at equal implicit priority the names decide, and `{}` sorts after `{}`",
        priority_text(l),
        later.meta.name,
        earlier.meta.name
    )
}

fn finding(a: &Analysis<'_>, ops: &[&OverridePolicy], c: &Conflict) -> Finding {
    let (earlier, later) = (ops[c.earlier.0], ops[c.later.0]);
    let clusters = if c.clusters.iter().any(String::is_empty) {
        "every cluster".to_string()
    } else {
        c.clusters.join(", ")
    };
    let message = format!(
        "{} and {} both write {} of {} on {clusters}: {} wins, because {}; this write is lost",
        earlier.display_id(),
        later.display_id(),
        c.field,
        a.describe_templates(&c.templates),
        later.display_id(),
        why(earlier, c.earlier.2, later, c.later.2),
    );
    let locate = |op: &OverridePolicy, path: &FieldPath| {
        let d = &a.inventory.documents[op.doc];
        (d.source.clone(), a.tree(op.doc, path).locate_value(path))
    };
    let (source, span) = locate(earlier, &c.earlier.1);
    let (later_source, later_span) = locate(later, &c.later.1);
    let mut f = Finding::new(DOC.id, DOC.default_severity, message)
        .at(&source, span)
        .field(c.earlier.1.to_string())
        .object(super::overrides::object_ref(earlier))
        .related(&later_source, later_span, "overwritten here");
    f.doc = Some(earlier.doc);
    f
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::lint_rule;

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default, labels: {app: web}}\n---\n";

    fn op(name: &str, ns: Option<&str>, selector: &str, rules: &str) -> String {
        let (kind, meta) = match ns {
            Some(ns) => (
                "OverridePolicy",
                format!("{{name: {name}, namespace: {ns}}}"),
            ),
            None => ("ClusterOverridePolicy", format!("{{name: {name}}}")),
        };
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: {kind}\nmetadata: {meta}\nspec:\n  resourceSelectors: [{selector}]\n  overrideRules:\n{rules}---\n")
    }

    const REPLICAS_2: &str =
        "  - overriders:\n      plaintext: [{path: /spec/replicas, operator: replace, value: 2}]\n";
    const REPLICAS_5: &str =
        "  - overriders:\n      plaintext: [{path: /spec/replicas, operator: replace, value: 5}]\n";

    #[test]
    fn two_documents_of_one_policy_are_one_policy_not_a_conflict() {
        // Applied in turn, the second document replaces the first (duplicate-identity says
        // so): the control plane holds one OverridePolicy, which cannot overwrite itself.
        // Seen on a real repository keeping a copy per environment directory.
        let by_name = "{apiVersion: apps/v1, kind: Deployment, name: web}";
        let text = format!(
            "{DEPLOY}{}{}",
            op("a", Some("default"), by_name, REPLICAS_2),
            op("a", Some("default"), by_name, REPLICAS_5)
        );
        let f = lint_rule(&text, "override-order-decides", false);
        assert!(f.is_empty(), "{f:?}");
        // The same two under different names still conflict.
        let text = format!(
            "{DEPLOY}{}{}",
            op("a", Some("default"), by_name, REPLICAS_2),
            op("b", Some("default"), by_name, REPLICAS_5)
        );
        assert_eq!(lint_rule(&text, "override-order-decides", false).len(), 1);
    }

    #[test]
    fn the_later_policy_wins_and_the_finding_says_why() {
        let kind_only = "{apiVersion: apps/v1, kind: Deployment}";
        let by_name = "{apiVersion: apps/v1, kind: Deployment, name: web}";
        // COP before OP.
        let text = format!(
            "{DEPLOY}{}{}",
            op("a", None, by_name, REPLICAS_2),
            op("b", Some("default"), kind_only, REPLICAS_5)
        );
        let f = lint_rule(&text, "override-order-decides", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("OverridePolicy default/b wins, because OverridePolicies apply after ClusterOverridePolicies"), "{}", f[0].message);
        assert!(
            f[0].message.contains("on every cluster"),
            "{}",
            f[0].message
        );
        // Within a group: the name selector applies last although `a` sorts first.
        let text = format!(
            "{DEPLOY}{}{}",
            op("a", Some("default"), by_name, REPLICAS_2),
            op("b", Some("default"), kind_only, REPLICAS_5)
        );
        let f = lint_rule(&text, "override-order-decides", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("OverridePolicy default/a wins, because it selects the template by name and the other by kind only"), "{}", f[0].message);
        // Equal priority: by name.
        let text = format!(
            "{DEPLOY}{}{}",
            op("z", Some("default"), kind_only, REPLICAS_2),
            op("m", Some("default"), kind_only, REPLICAS_5)
        );
        let f = lint_rule(&text, "override-order-decides", false);
        assert!(
            f[0].message.contains("OverridePolicy default/z wins"),
            "{}",
            f[0].message
        );
        // The same result, or different clusters: no conflict.
        let text = format!(
            "{DEPLOY}{}{}",
            op("a", Some("default"), kind_only, REPLICAS_5),
            op("b", Some("default"), kind_only, REPLICAS_5)
        );
        assert!(lint_rule(&text, "override-order-decides", false).is_empty());
        let m1 = "  - targetCluster: {clusterNames: [member1]}\n    overriders:\n      plaintext: [{path: /spec/replicas, operator: replace, value: 2}]\n";
        let m2 = "  - targetCluster: {clusterNames: [member2]}\n    overriders:\n      plaintext: [{path: /spec/replicas, operator: replace, value: 5}]\n";
        let text = format!(
            "{DEPLOY}{}{}",
            op("a", Some("default"), kind_only, m1),
            op("b", Some("default"), kind_only, m2)
        );
        assert!(lint_rule(&text, "override-order-decides", false).is_empty());
        // One rule for member1, one for every cluster: they meet on member1.
        let text = format!(
            "{DEPLOY}{}{}",
            op("a", Some("default"), kind_only, m1),
            op("b", Some("default"), kind_only, REPLICAS_5)
        );
        let f = lint_rule(&text, "override-order-decides", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("on member1:"), "{}", f[0].message);
    }

    /// Without Cluster objects (the usual GitOps repository), two rules of one label selector
    /// still meet on any cluster carrying it; rules of different labels, or one naming a
    /// cluster, may not meet, so they are not reported.
    #[test]
    fn rules_of_one_label_selector_meet_without_cluster_objects() {
        let kind_only = "{apiVersion: apps/v1, kind: Deployment}";
        let by_name = "{apiVersion: apps/v1, kind: Deployment, name: web}";
        let rule = |target: &str, value: u32| {
            format!("  - targetCluster: {target}\n    overriders:\n      plaintext: [{{path: /spec/replicas, operator: replace, value: {value}}}]\n")
        };
        let pi = "{labelSelector: {matchLabels: {hardware: pi}}}";
        let text = format!(
            "{DEPLOY}{}{}",
            op("all-pi", None, kind_only, &rule(pi, 2)),
            op("web-pi", Some("default"), by_name, &rule(pi, 5))
        );
        let f = lint_rule(&text, "override-order-decides", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message.contains(
                "on clusters with labels hardware=pi: OverridePolicy default/web-pi wins"
            ),
            "{}",
            f[0].message
        );
        // A narrower selector meets the wider one on the clusters it selects.
        let pi_eu = "{labelSelector: {matchLabels: {hardware: pi}, matchExpressions: [{key: region, operator: In, values: [eu, us]}]}}";
        let text = format!(
            "{DEPLOY}{}{}",
            op("all-pi", None, kind_only, &rule(pi, 2)),
            op("web-pi", Some("default"), by_name, &rule(pi_eu, 5))
        );
        let f = lint_rule(&text, "override-order-decides", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message
                .contains("on clusters with labels hardware=pi, region=eu:"),
            "{}",
            f[0].message
        );
        let apart = [
            "{labelSelector: {matchLabels: {hardware: x86}}}",
            "{clusterNames: [member1]}",
            "{labelSelector: {matchExpressions: [{key: hardware, operator: NotIn, values: [pi]}]}}",
        ];
        for other in apart {
            let text = format!(
                "{DEPLOY}{}{}",
                op("all-pi", None, kind_only, &rule(pi, 2)),
                op("web", Some("default"), by_name, &rule(other, 5))
            );
            let f = lint_rule(&text, "override-order-decides", false);
            assert!(f.is_empty(), "{other}: {f:?}");
        }
    }
}
