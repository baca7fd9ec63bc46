//! `removed-api-version`: a template written in a built-in API version the API server no
//! longer serves, or that never served its kind (the engine's [`Excluded::NotServed`]):
//! applying it fails, so no policy ever propagates it. A selector naming such a version is
//! `selector-never-matches`.

use crate::engine::claim::Excluded;
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "removed-api-version",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A template in a built-in API version the API server no longer serves (`extensions/v1beta1` Ingress, `policy/v1beta1` PodDisruptionBudget...), or never served for its kind (`apps/v1` Service)",
    rationale: "karmada-apiserver is a kube-apiserver: it serves the built-in kinds in the versions its \
                Kubernetes release serves, and each Karmada release installs a given one (the chart's \
                `apiServer.image.tag`, `karmadactl init --kube-image-tag`, the operator's default: 1.27 in \
                Karmada 1.10, 1.29 in 1.11, 1.31 in 1.12 to 1.15, 1.34 in 1.16, 1.35 in 1.17 and 1.18, 1.36 \
                after). Versions Kubernetes removed (its deprecated API migration guide: `extensions/v1beta1` \
                and `apps/v1beta1`/`v1beta2` workloads in 1.16; `v1beta1` Ingress, RBAC, CRDs, webhooks in \
                1.22; `batch/v1beta1` CronJob, `policy/v1beta1` PodDisruptionBudget, `autoscaling/v2beta1` in \
                1.25; `autoscaling/v2beta2` in 1.26; `flowcontrol.apiserver.k8s.io/v1beta2` in 1.29 and \
                `v1beta3` in 1.32) are refused when applied (`no matches for kind`) by a karmada-apiserver of \
                that release or later, so the object never exists as a resource template: no policy claims \
                it, and the detector never sees it. A policy selector naming such a version never matches \
                (`selector-never-matches`). The release is `--karmada-version` (or the configuration's, or \
                the repository's Karmada installation's); a control plane run with another karmada-apiserver \
                image than its installer's default may serve other versions. A kind written in a built-in \
                group's version that serves no such kind in any release (`apps/v1` Service, `v1` \
                Deployment) is refused the same way, whatever the release (`no matches for kind`); only \
                groups without a dot are judged so, as no CRD can add a kind to them.",
    example: "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: default\nspec:\n  backend: {serviceName: web, servicePort: 80}\n",
    fix: "Write the object in the version the API server serves (`networking.k8s.io/v1` for an Ingress, \
          `apps/v1` for workloads, `batch/v1` for a CronJob...), converting the fields that changed, and \
          select that version in the policies.",
    reference: "pkg/detector/detector.go:276-308 (ResourceDetector.EventFilter: only objects the API server holds); charts/karmada/values.yaml (apiServer.image.tag: v1.27.11 in v1.10.0, v1.29.6 in v1.11.0, v1.31.3 in v1.12.0-v1.15.0, v1.34.1 in v1.16.0, v1.35.2 in v1.17.0-v1.18.0); pkg/karmadactl/cmdinit/cmdinit.go (--kube-image-tag); operator/pkg/constants/constants.go (KubeDefaultVersion); Kubernetes deprecation guide (kubernetes.io/docs/reference/using-api/deprecation-guide)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::Semantic(check)],
};

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let path = FieldPath::root().key("apiVersion");
    let mut out = Vec::new();
    for t in &a.state.templates {
        let (Some(e @ Excluded::NotServed { .. }), Some(doc)) = (t.excluded.as_deref(), t.doc)
        else {
            continue;
        };
        let d = &a.inventory.documents[doc];
        let object = t.reference();
        let message = format!("{}: {}", object.titled(), e.not_served_text());
        let mut f = Finding::new(DOC.id, DOC.default_severity, message)
            .at(&d.source, a.tree(doc, &path).locate_value(&path))
            .field(path.to_string())
            .object(object);
        f.doc = Some(doc);
        out.push(f);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::{lint_rule, pos};

    const POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors:\n    - {apiVersion: extensions/v1beta1, kind: Ingress}\n    - {apiVersion: networking.k8s.io/v1, kind: Ingress}\n  placement:\n    clusterAffinity: {clusterNames: [m1]}\n";

    #[test]
    fn a_template_in_a_removed_version_is_reported_at_its_api_version() {
        let text = format!(
            "kind: Ingress\napiVersion: extensions/v1beta1\nmetadata: {{name: web, namespace: default}}\n---\n{POLICY}"
        );
        let f = lint_rule(&text, "removed-api-version", false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(pos(&f[0]), (2, 13));
        assert_eq!(
            f[0].message,
            "Ingress default/web: extensions/v1beta1 Ingress is not served since Kubernetes 1.22 (Karmada 1.19 installs karmada-apiserver 1.36): the API server refuses such a manifest, so no such template exists; write it as networking.k8s.io/v1"
        );
        // The selector naming the removed version never matches; the served one is fine.
        let never = lint_rule(&text, "selector-never-matches", false);
        assert_eq!(never.len(), 1, "{never:?}");
        assert_eq!(never[0].field.as_deref(), Some("spec.resourceSelectors[0]"));
    }

    /// A built-in version that never served the kind is refused in every release: the
    /// template is reported, with the version that serves it or the kind meant, and the policy
    /// whose selector is right is not told to fix it (`dead-policy`). A group with a dot may
    /// get the kind from a CRD: not judged.
    #[test]
    fn a_kind_its_built_in_version_never_served_is_reported_at_its_api_version() {
        let report = |template: &str, selector: &str| {
            let text = format!("{template}metadata: {{name: web, namespace: default}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: p, namespace: default}}\nspec:\n  resourceSelectors: [{selector}]\n  placement: {{clusterAffinity: {{clusterNames: [m1]}}}}\n");
            let dead = lint_rule(&text, "dead-policy", false);
            assert!(dead.is_empty(), "{dead:?}");
            lint_rule(&text, "removed-api-version", false)
                .into_iter()
                .map(|f| (pos(&f), f.message))
                .collect::<Vec<_>>()
        };
        let service = report(
            "apiVersion: apps/v1\nkind: Service\n",
            "{apiVersion: v1, kind: Service}",
        );
        assert_eq!(
            service,
            [((1, 13), "Service default/web: apps/v1 serves no kind Service in any Kubernetes release (no matches for kind \"Service\" in version \"apps/v1\"): the API server refuses such a manifest, so no such template exists; Service is served by v1: write it as v1".to_string())]
        );
        let typo = report(
            "apiVersion: apps/v1\nkind: Deploymnet\n",
            "{apiVersion: apps/v1, kind: Deployment}",
        );
        assert!(
            typo[0].1.ends_with("did you mean apps/v1 Deployment?"),
            "{typo:?}"
        );
        let custom = report(
            "apiVersion: networking.k8s.io/v1\nkind: Widget\n",
            "{apiVersion: networking.k8s.io/v1, kind: Widget}",
        );
        assert!(custom.is_empty(), "{custom:?}");
        // Files beside the manifests that are none: a kubeconfig, a tool's own configuration,
        // an apiVersion no API server has.
        for file in [
            "apiVersion: v1\nkind: Config\n",
            "apiVersion: skaffold/v4beta11\nkind: Config\n",
            "apiVersion: 0.1.0\nkind: ksonnet.io/app\n",
        ] {
            let found = report(file, "{apiVersion: v1, kind: Service}");
            assert!(found.is_empty(), "{file}: {found:?}");
        }
    }

    /// The flow-control betas: v1beta3 is served by the karmada-apiserver of Karmada 1.15
    /// (Kubernetes 1.31), refused by that of 1.16 (1.34).
    #[test]
    fn a_version_is_refused_from_the_release_whose_api_server_dropped_it() {
        let text = "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\nkind: FlowSchema\nmetadata: {name: fs}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: p}\nspec:\n  resourceSelectors:\n    - {apiVersion: flowcontrol.apiserver.k8s.io/v1beta3, kind: FlowSchema}\n";
        let in_release = |minor: u32| {
            let loaded = vec![crate::source::load(crate::source::Source::new(
                "t.yaml", text,
            ))];
            let mut inventory =
                crate::model::Inventory::from_documents(loaded[0].documents.clone(), "default");
            let opts = crate::lint::LintOptions {
                gates: crate::model::feature_gates::GateSet::defaults(
                    crate::model::KarmadaVersion::new(1, minor),
                ),
                ..crate::lint::LintOptions::default()
            };
            crate::lint::lint(&loaded, &mut inventory, &opts)
                .into_iter()
                .filter(|f| f.rule == "removed-api-version" || f.rule == "selector-never-matches")
                .map(|f| f.message)
                .collect::<Vec<_>>()
        };
        // Served but read in the preferred v1: only the selector misses.
        let served = in_release(15);
        assert_eq!(served.len(), 1, "{served:?}");
        assert!(served[0]
            .contains("the detector watches FlowSchema in flowcontrol.apiserver.k8s.io/v1"));
        let refused = in_release(16);
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(
            refused[0].contains(
                "not served since Kubernetes 1.32 (Karmada 1.16 installs karmada-apiserver 1.34)"
            ),
            "{refused:?}"
        );
    }

    #[test]
    fn served_versions_and_custom_betas_are_not_reported() {
        let text = format!(
            "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: web, namespace: default}}\n---\napiVersion: example.com/v1beta1\nkind: Widget\nmetadata: {{name: w, namespace: default}}\n---\n{POLICY}"
        );
        assert!(lint_rule(&text, "removed-api-version", false).is_empty());
    }
}
