//! `dependency-not-propagated`: a workload propagated without the ConfigMap, Secret,
//! ServiceAccount or PersistentVolumeClaim it names, although the inputs hold it (nowhere, or
//! not to every cluster the workload goes to).

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::dependencies::carries_dependencies;
use crate::engine::reconcile::Owner;
use crate::engine::replicas::Strategy;
use crate::engine::state::PolicyEntry;
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};

pub const DOC: RuleDoc = RuleDoc {
    id: "dependency-not-propagated",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A propagated workload names a ConfigMap, Secret, ServiceAccount or PVC of the input that nothing propagates",
    rationale: "Karmada propagates a template only to where a policy or a dependency sends it. A workload's \
                ConfigMaps, Secrets (volumes, `envFrom`, `valueFrom`, image pull secrets), its service account \
                and its claims are sent with it only when its policy sets `propagateDeps: true` (with the \
                `PropagateDeps` gate on, Karmada's default; the Helm chart turns it off): the dependencies \
                distributor then binds each to the workload's clusters \
                (`pkg/dependenciesdistributor`, `buildAttachedBinding`). Otherwise a dependency that no policy \
                selects stays in the control plane, and the workload's pods in the member clusters miss it \
                (`CreateContainerConfigError`, a failed mount or image pull, a refused service account) unless \
                it is created there by other means. A dependency a policy propagates to fewer clusters than the \
                workload goes to is reported with the clusters it misses, when both policies name their \
                clusters and the workload is duplicated to each. Only dependencies the input holds are judged: \
                one created in the member clusters is not in the repository.",
    example: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        envFrom: [{configMapRef: {name: web-config}}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: shop}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n",
    fix: "Set `propagateDeps: true` on the workload's policy (and turn the `PropagateDeps` feature gate on \
          where it is off), or select the dependency in a policy that sends it to the same clusters.",
    reference: "pkg/resourceinterpreter/default/native/dependencies.go (the dependencies of each workload kind); pkg/resourceinterpreter/default/thirdparty/resourcecustomizations (OpenKruise and Kubeflow workloads: kube.getPodDependencies); pkg/util/helper/pod.go:84-166 (GetDependenciesFromPodTemplate); pkg/dependenciesdistributor/dependencies_distributor.go:346-389, :753-788 (handleDependentResource, buildAttachedBinding); pkg/features/features.go (PropagateDeps: Beta, default true); charts/karmada/values.yaml (controllerManager.featureGates PropagateDeps: false)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::Semantic(check)],
};

/// (workload's policy, the dependency's template, the dependency's policy and the clusters it
/// does not send it to; `None`: the dependency goes nowhere), for the workloads that miss it.
type Missing = (usize, usize, Option<(usize, Vec<String>)>);

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let st = a.state;
    let carried = carriers(a);
    let mut missing: BTreeMap<Missing, Vec<usize>> = BTreeMap::new();
    for (w, workload) in st.templates.iter().enumerate() {
        let Some(deps) = workload.dependencies.as_deref() else {
            continue;
        };
        let Owner::Policy(p) = a.settled[w].owner else {
            continue;
        };
        let p = p as usize;
        if carries_dependencies(st, &st.policy(p).reference()) {
            continue;
        }
        for d in deps {
            let Some(dt) = st.find_template("v1", d.kind, &workload.namespace, &d.name) else {
                continue;
            };
            if st.templates[dt].excluded.is_some() || carried.contains_key(&dt) {
                continue;
            }
            let lacking = match a.settled[dt].owner {
                Owner::None => None,
                Owner::Policy(q) => {
                    let q = q as usize;
                    match clusters_short(st.policy(p), st.policy(q)) {
                        Some(lacking) => Some((q, lacking)),
                        None => continue,
                    }
                }
                Owner::Unknown(_) => continue,
            };
            missing.entry((p, dt, lacking)).or_default().push(w);
        }
    }
    missing
        .into_iter()
        .map(|((p, dependency, lacking), workloads)| {
            finding(a, p, dependency, lacking.as_ref(), &workloads)
        })
        .collect()
}

/// The clusters the workload's policy `w` sends it to that the dependency's policy `d` does
/// not send the dependency to, when both are certain from the policies alone: each names its
/// clusters (`clusterAffinity.clusterNames`, without selectors, affinity terms or spread
/// constraints), and the workload is duplicated to every one of them (a divided workload may
/// leave some without replicas). `None` when not certain, or when nothing lacks it.
fn clusters_short(w: &PolicyEntry, d: &PolicyEntry) -> Option<Vec<String>> {
    let every_named = |p: &PolicyEntry| -> Option<Vec<String>> {
        let placement = p.spec.placement.as_ref()?;
        if placement.cluster_affinities.is_some() || !placement.spread_constraints.is_empty() {
            return None;
        }
        let names = placement.cluster_affinity.as_ref()?.selectable_names()?;
        Some(names.into_iter().map(str::to_string).collect())
    };
    let duplicated = w
        .spec
        .placement
        .as_ref()
        .is_none_or(|p| Strategy::of(p) == Strategy::Duplicated);
    if !duplicated {
        return None;
    }
    let (to, sent) = (every_named(w)?, every_named(d)?);
    let lacking: Vec<String> = to.into_iter().filter(|c| !sent.contains(c)).collect();
    (!lacking.is_empty()).then_some(lacking)
}

/// The templates some workload's policy carries along as dependencies.
/// Each dependency template that workloads carry along, with the policies whose
/// `propagateDeps` carries it (the workloads' settled owners): which dependencies are sent
/// with their workloads here, and whose settings `dependency-policy-conflict` compares.
pub(super) fn carriers(a: &Analysis<'_>) -> BTreeMap<usize, BTreeSet<usize>> {
    let st = a.state;
    let mut out: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (w, workload) in st.templates.iter().enumerate() {
        let (Some(deps), Owner::Policy(p)) =
            (workload.dependencies.as_deref(), &a.settled[w].owner)
        else {
            continue;
        };
        let p = *p as usize;
        if !carries_dependencies(st, &st.policy(p).reference()) {
            continue;
        }
        for d in deps {
            if let Some(t) = st.find_template("v1", d.kind, &workload.namespace, &d.name) {
                out.entry(t).or_default().insert(p);
            }
        }
    }
    out
}

fn finding(
    a: &Analysis<'_>,
    p: usize,
    dependency: usize,
    lacking: Option<&(usize, Vec<String>)>,
    workloads: &[usize],
) -> Finding {
    let st = a.state;
    let policy = st.policy(p);
    let first = &st.templates[workloads[0]];
    let who = match workloads.len() {
        1 => first.reference().to_string(),
        n => format!("{} and {} more", first.reference(), n - 1),
    };
    let dependency = st.templates[dependency].reference();
    let why = if policy.spec.propagate_deps() {
        "its propagateDeps is inert with the PropagateDeps feature gate off"
    } else {
        "it does not set propagateDeps"
    };
    let message = match lacking {
        None => format!(
            "{} propagates {who}, which uses {dependency} of the input: no policy propagates it and {why}, so the member clusters running {who} lack it unless it is created there",
            policy.reference()
        ),
        Some((q, clusters)) => {
            let clusters = clusters.join(", ");
            let why = if policy.spec.propagate_deps() {
                "the PropagateDeps feature gate is off".to_string()
            } else {
                format!("{} does not set propagateDeps", policy.reference())
            };
            format!(
                "{} propagates {who} to {clusters}, which uses {dependency} of the input: {} does not send it there and {why}, so {clusters} lack it unless it is created there",
                policy.reference(),
                st.policy(*q).reference()
            )
        }
    };
    a.policy_finding(p, &DOC, &a.matching_selector(p, workloads[0]), message)
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::lint_rule;

    const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        envFrom: [{configMapRef: {name: web-config}}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: shop}\n";

    fn policy(extra: &str) -> String {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: shop}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {{clusterAffinity: {{clusterNames: [m1]}}}}\n{extra}")
    }

    #[test]
    fn a_dependency_nothing_propagates_is_reported_at_the_workloads_policy() {
        let f = lint_rule(
            &format!("{WEB}{}", policy("")),
            "dependency-not-propagated",
            false,
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            f[0].message,
            "pp/shop/web propagates deployment/shop/web, which uses configmap/shop/web-config of the input: no policy propagates it and it does not set propagateDeps, so the member clusters running deployment/shop/web lack it unless it is created there"
        );
        assert_eq!(f[0].field.as_deref(), Some("spec.resourceSelectors[0]"));
    }

    #[test]
    fn propagate_deps_a_selecting_policy_or_an_absent_dependency_are_fine() {
        let deps = policy("  propagateDeps: true\n");
        assert!(lint_rule(&format!("{WEB}{deps}"), "dependency-not-propagated", false).is_empty());
        let selected = format!(
            "{WEB}{}---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: cm, namespace: shop}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap}}]\n",
            policy("")
        );
        assert!(lint_rule(&selected, "dependency-not-propagated", false).is_empty());
        let absent = format!("{}{}", &WEB[..WEB.find("---").unwrap()], policy(""));
        assert!(lint_rule(&absent, "dependency-not-propagated", false).is_empty());
    }

    /// The dependency is propagated, but not to every cluster the workload goes to: the
    /// clusters it misses are named, when both policies name their clusters and the workload
    /// is duplicated to each.
    #[test]
    fn a_dependency_sent_to_fewer_clusters_than_its_workload_is_reported_with_them() {
        let workload = |placement: &str| {
            format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: shop}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {placement}\n")
        };
        let cm = "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: cm, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  placement: {clusterAffinity: {clusterNames: [m1]}}\n";
        let two = "{clusterAffinity: {clusterNames: [m1, m2]}}";
        let f = lint_rule(
            &format!("{WEB}{}{cm}", workload(two)),
            "dependency-not-propagated",
            false,
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            f[0].message,
            "pp/shop/web propagates deployment/shop/web to m2, which uses configmap/shop/web-config of the input: pp/shop/cm does not send it there and pp/shop/web does not set propagateDeps, so m2 lack it unless it is created there"
        );
        // Divided replicas may leave m2 without any, and a label selector is not known: silent.
        let divided = "{clusterAffinity: {clusterNames: [m1, m2]}, replicaScheduling: {replicaSchedulingType: Divided}}";
        let by_label = "{clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}}";
        for placement in [divided, by_label, "{clusterAffinity: {clusterNames: [m1]}}"] {
            let text = format!("{WEB}{}{cm}", workload(placement));
            assert!(
                lint_rule(&text, "dependency-not-propagated", false).is_empty(),
                "{placement}"
            );
        }
    }
}
