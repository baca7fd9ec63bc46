//! Resource selectors Karmada's detector never matches, whatever templates exist (the reasons
//! are the engine's, [`crate::engine::claim::NeverMatched`]).

use crate::engine::claim::NeverMatched;
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::source::FieldPath;

pub const PP_CLUSTER_SCOPED: RuleDoc = RuleDoc {
    id: "pp-selects-cluster-scoped",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A PropagationPolicy selects a cluster-scoped kind (Namespace, ClusterRole, CRD...), which only a ClusterPropagationPolicy can claim",
    rationale: "Karmada's detector looks for a PropagationPolicy only in the namespace of a template; a \
                cluster-scoped template has none, so the search ends before any PropagationPolicy is read \
                (`pkg/detector/detector.go` `LookForMatchedPolicy`) and only ClusterPropagationPolicies are \
                consulted. The selector claims nothing, and the object is never propagated by this policy. \
                A kind is cluster-scoped as a CustomResourceDefinition of the inputs declares it \
                (`spec.scope`), else as the built-in table of Kubernetes and common add-on kinds knows it; \
                an unknown kind is taken as namespaced.",
    example: "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: gpu-operator-ns\n  namespace: gpu-operator\nspec:\n  resourceSelectors:\n    - apiVersion: v1\n      kind: Namespace\n      name: gpu-operator\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n",
    fix: "Make it a ClusterPropagationPolicy (`kind: ClusterPropagationPolicy`, no `metadata.namespace`), \
          or move the cluster-scoped selector into one.",
    reference: "pkg/detector/detector.go:381-411 (ResourceDetector.LookForMatchedPolicy: nil for a template without a namespace, :382-384); pkg/detector/policy.go:61-94 (propagateResource: LookForMatchedClusterPolicy next)",
};

pub const NEVER_MATCHES: RuleDoc = RuleDoc {
    id: "selector-never-matches",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A resource selector the detector never matches: a reserved or skipped namespace, an API it never watches or no release serves, a version other than the one it watches, a namespace on a cluster-scoped kind, an invalid labelSelector",
    rationale: "The detector never processes objects in `karmada-system`, `karmada-cluster` and `karmada-es-*` \
                (`pkg/util/names/names.go` `IsReservedNamespace`), nor in the namespaces \
                karmada-controller-manager's `--skipped-propagating-namespaces` matches (default `kube-.*`; a \
                pattern that matches the empty namespace, such as `.*`, hides every cluster-scoped object), nor \
                `kube-system/extension-apiserver-authentication` (`pkg/detector/detector.go` `EventFilter`). It never \
                watches Karmada's own API groups, `events.k8s.io`, `v1 Event` and `coordination.k8s.io/v1` \
                (`pkg/util/apigroup.go` `NewSkippedResourceConfig`). It watches each resource in the API server's \
                preferred version only (`pkg/util/lifted/discovery.go` `GetDeletableResources`) and reads every \
                object in it, so a HorizontalPodAutoscaler applied as `autoscaling/v1` is a template of \
                `autoscaling/v2`, and a selector for `autoscaling/v1` (the apiVersion is compared as written) \
                matches none. A built-in group serves a known set of kinds, and no CustomResourceDefinition \
                adds one to it (a CRD's group must contain a dot, and Kubernetes' own `*.k8s.io` groups \
                are served by kube-apiserver): a selector for `apps/v1` Service, `v1` Deployment or a \
                misspelt `apps/v1` Deploymnt names a template karmada-apiserver refuses, so it matches \
                none (the apiVersion and kind are compared as strings, `ResourceSelectorPriority`). A \
                kind a CRD of the inputs declares is taken as served, and so is an alpha version (the \
                API server's `--runtime-config` decides). A selector with a namespace never matches a cluster-scoped template, and a labelSelector that does not convert matches nothing \
                (`pkg/util/selector.go` `ResourceSelectorPriority`). None of these is refused on admission: the \
                policy is accepted and silently claims nothing through this selector.",
    example: "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: coredns\nspec:\n  resourceSelectors:\n    - apiVersion: v1\n      kind: ConfigMap\n      namespace: kube-system\n      name: coredns\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n",
    fix: "Select the templates where Karmada sees them: move them out of the reserved or skipped namespace \
          (or change the controller's --skipped-propagating-namespaces), select the apiVersion and kind \
          the API server serves, in the version Karmada watches (the message says which), drop the namespace of a cluster-scoped selector, fix the labelSelector; an API Karmada never propagates cannot be selected.",
    reference: "pkg/detector/detector.go:276-308 (ResourceDetector.EventFilter), :201-221 (gvrDisabled); pkg/util/names/names.go:189-193 (IsReservedNamespace); cmd/controller-manager/app/options/options.go:194 (--skipped-propagating-namespaces, default kube-.*); pkg/util/apigroup.go:54-76 (NewSkippedResourceConfig); pkg/util/lifted/discovery.go:38-53 (GetDeletableResources: preferred versions); pkg/util/selector.go:55-94 (ResourceSelectorPriority: apiVersion and kind compared as strings, :56-60); pkg/util/validation/validation.go:43 (ValidatePropagationSpec: the kind is not checked); k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go (a CRD's group \"should be a domain with at least one dot\")",
};

pub static RULE: Rule = Rule {
    docs: &[PP_CLUSTER_SCOPED, NEVER_MATCHES],
    checks: &[Check::Semantic(check)],
};

/// Why each selector of policy `p` never matches, by index (the stored selectors).
pub fn never_matched(a: &Analysis<'_>, p: usize) -> Vec<(usize, NeverMatched)> {
    let policy = a.state.policy(p);
    policy
        .spec
        .resource_selectors
        .iter()
        .enumerate()
        .filter_map(|(i, rs)| a.state.never_matched(policy.kind, rs).map(|why| (i, why)))
        .collect()
}

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (p, policy) in a.state.live_policies() {
        if !policy.known {
            continue;
        }
        for (i, why) in never_matched(a, p) {
            let rs = &policy.spec.resource_selectors[i];
            let path = FieldPath::root()
                .key("spec")
                .key("resourceSelectors")
                .index(i);
            let (doc, advice) = match why {
                NeverMatched::ClusterScopedKindInPp { .. } => {
                    (&PP_CLUSTER_SCOPED, ": make it a ClusterPropagationPolicy")
                }
                _ => (&NEVER_MATCHES, ""),
            };
            out.push(a.policy_finding(
                p,
                doc,
                &path,
                format!(
                    "{}: the selector of {} {} never matches: {}{advice}",
                    policy.reference(),
                    rs.api_version,
                    rs.kind,
                    why.reason()
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::{lint_rule, pos};

    fn policy(kind: &str, namespace: &str, selector: &str) -> String {
        let ns = if namespace.is_empty() {
            String::new()
        } else {
            format!("\n  namespace: {namespace}")
        };
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: p{ns}\nspec:\n  resourceSelectors:\n    - {selector}\n")
    }

    #[test]
    fn a_pp_for_a_namespace_is_told_to_be_a_cpp() {
        let text = policy(
            "PropagationPolicy",
            "gpu-operator",
            "{apiVersion: v1, kind: Namespace, name: gpu-operator}",
        );
        let f = lint_rule(&text, "pp-selects-cluster-scoped", false);
        assert_eq!(f.len(), 1);
        assert_eq!(pos(&f[0]), (8, 7));
        assert!(
            f[0].message.ends_with("make it a ClusterPropagationPolicy"),
            "{}",
            f[0].message
        );
        let cpp = policy(
            "ClusterPropagationPolicy",
            "",
            "{apiVersion: v1, kind: Namespace, name: gpu-operator}",
        );
        assert!(lint_rule(&cpp, "pp-selects-cluster-scoped", false).is_empty());
        assert!(lint_rule(&cpp, "selector-never-matches", false).is_empty());
    }

    #[test]
    fn skipped_namespaces_and_apis() {
        let in_kube_system = policy(
            "ClusterPropagationPolicy",
            "",
            "{apiVersion: v1, kind: ConfigMap, namespace: kube-system, name: coredns}",
        );
        let f = lint_rule(&in_kube_system, "selector-never-matches", false);
        assert_eq!(f.len(), 1);
        assert!(f[0].message.contains("--skipped-propagating-namespaces"));
        let reserved = policy(
            "PropagationPolicy",
            "karmada-system",
            "{apiVersion: apps/v1, kind: Deployment}",
        );
        assert_eq!(
            lint_rule(&reserved, "selector-never-matches", false).len(),
            1
        );
        let events = policy(
            "PropagationPolicy",
            "apps",
            "{apiVersion: events.k8s.io/v1, kind: Event}",
        );
        assert_eq!(lint_rule(&events, "selector-never-matches", false).len(), 1);
        let fine = policy(
            "PropagationPolicy",
            "apps",
            "{apiVersion: apps/v1, kind: Deployment}",
        );
        assert!(lint_rule(&fine, "selector-never-matches", false).is_empty());
    }

    /// A built-in group serves a known set of kinds: a kind it does not serve is reported with
    /// the version that serves it, or the kind it was probably meant to be.
    #[test]
    fn a_kind_no_release_serves_in_a_built_in_group() {
        let message = |selector: &str| {
            let text = policy("PropagationPolicy", "apps", selector);
            let f = lint_rule(&text, "selector-never-matches", false);
            assert_eq!(f.len(), 1, "{selector}: {f:?}");
            f[0].message.clone()
        };
        let m = message("{apiVersion: apps/v1, kind: Service}");
        assert!(m.contains("Service is served by v1, not apps/v1"), "{m}");
        assert!(m.ends_with("select v1 Service"), "{m}");
        let m = message("{apiVersion: apps/v1, kind: Deploymnt, name: nginx}");
        assert!(m.ends_with("did you mean apps/v1 Deployment?"), "{m}");
        let m = message("{apiVersion: batch/v1, kind: Deployment}");
        assert!(
            m.contains("Deployment is served by apps/v1, not batch/v1"),
            "{m}"
        );
        // Before the cluster-scoped check: a PP for `apps/v1` Namespace is told the group.
        let m = message("{apiVersion: apps/v1, kind: Namespace}");
        assert!(m.contains("Namespace is served by v1, not apps/v1"), "{m}");
    }

    /// A CRD's group, and a kind a CRD of the inputs declares in a Kubernetes group, are served.
    #[test]
    fn custom_kinds_are_not_unserved() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.networking.k8s.io\nspec:\n  group: networking.k8s.io\n  scope: Namespaced\n  names: {kind: Widget, plural: widgets}\n  versions: [{name: v1, served: true, storage: true}]\n---\n";
        let text = format!(
            "{crd}{}",
            policy(
                "PropagationPolicy",
                "apps",
                "{apiVersion: networking.k8s.io/v1, kind: Widget}\n    - {apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute}\n    - {apiVersion: example.com/v1, kind: Service}"
            )
        );
        assert!(lint_rule(&text, "selector-never-matches", false).is_empty());
    }
}
