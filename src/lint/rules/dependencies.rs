//! `dependency-not-propagated`: a workload propagated without the ConfigMap, Secret,
//! ServiceAccount or PersistentVolumeClaim it names, although the inputs hold it.

use std::collections::{BTreeMap, HashSet};

use crate::engine::dependencies::carries_dependencies;
use crate::engine::reconcile::Owner;
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
                it is created there by other means. Only dependencies the input holds are judged: one created \
                in the member clusters is not in the repository.",
    example: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        envFrom: [{configMapRef: {name: web-config}}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: shop}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n",
    fix: "Set `propagateDeps: true` on the workload's policy, or select the dependency in a policy that \
          sends it to the same clusters.",
    reference: "pkg/resourceinterpreter/default/native/dependencies.go (the dependencies of each workload kind); pkg/resourceinterpreter/default/thirdparty/resourcecustomizations (OpenKruise and Kubeflow workloads: kube.getPodDependencies); pkg/util/helper/pod.go:84-166 (GetDependenciesFromPodTemplate); pkg/dependenciesdistributor/dependencies_distributor.go:346-389, :753-788 (handleDependentResource, buildAttachedBinding); pkg/features/features.go (PropagateDeps: Beta, default true); charts/karmada/values.yaml (controllerManager.featureGates PropagateDeps: false)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::Semantic(check)],
};

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let st = a.state;
    let carried = carried(a);
    // (policy, workload's first selector path index, dependency) → the workloads missing it.
    let mut missing: BTreeMap<(usize, String, String), Vec<usize>> = BTreeMap::new();
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
            let unsent = matches!(a.settled[dt].owner, Owner::None)
                && st.templates[dt].excluded.is_none()
                && !carried.contains(&dt);
            if unsent {
                let key = (p, d.kind.to_string(), d.name.clone());
                missing.entry(key).or_default().push(w);
            }
        }
    }
    missing
        .into_iter()
        .map(|((p, kind, name), workloads)| finding(a, p, &kind, &name, &workloads))
        .collect()
}

/// The templates some workload's policy carries along as dependencies.
fn carried(a: &Analysis<'_>) -> HashSet<usize> {
    let st = a.state;
    let mut out = HashSet::new();
    for (w, workload) in st.templates.iter().enumerate() {
        let Some(deps) = workload.dependencies.as_deref() else {
            continue;
        };
        let Some(owner) = a.settled[w].owner.reference(st) else {
            continue;
        };
        if !carries_dependencies(st, &owner) {
            continue;
        }
        out.extend(
            deps.iter()
                .filter_map(|d| st.find_template("v1", d.kind, &workload.namespace, &d.name)),
        );
    }
    out
}

fn finding(a: &Analysis<'_>, p: usize, kind: &str, name: &str, workloads: &[usize]) -> Finding {
    let st = a.state;
    let policy = st.policy(p);
    let first = &st.templates[workloads[0]];
    let who = match workloads.len() {
        1 => format!("{}/{}", first.kind.to_lowercase(), first.name),
        n => format!(
            "{}/{} and {} more",
            first.kind.to_lowercase(),
            first.name,
            n - 1
        ),
    };
    let why = if policy.spec.propagate_deps() {
        "its propagateDeps is inert with the PropagateDeps feature gate off"
    } else {
        "it does not set propagateDeps"
    };
    a.policy_finding(
        p,
        &DOC,
        &a.matching_selector(p, workloads[0]),
        format!(
            "{} propagates {who}, which uses {kind} {name} of the input: no policy propagates {name} and {why}, so the member clusters running {who} lack it unless it is created there",
            policy.reference()
        ),
    )
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
            "pp/shop/web propagates deployment/web, which uses ConfigMap web-config of the input: no policy propagates web-config and it does not set propagateDeps, so the member clusters running deployment/web lack it unless it is created there"
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
}
