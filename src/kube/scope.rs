//! Which kinds are cluster-scoped. Manifests do not say; the API server's discovery does. For
//! files we use the well-known cluster-scoped kinds of Kubernetes and Karmada; any other kind is
//! taken as namespaced (a custom resource is namespaced unless its CRD says otherwise, which is
//! the common case).

/// `(group, kind)` pairs that are cluster-scoped, besides the cluster-scoped kinds of the one
/// table of Karmada kinds ([`super::kinds::KARMADA`]), which [`is_namespaced`] reads too.
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("", "ComponentStatus"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
    ),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
    ),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "VolumeAttachment"),
    ("storage.k8s.io", "VolumeAttributesClass"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("node.k8s.io", "RuntimeClass"),
    ("networking.k8s.io", "IngressClass"),
    ("networking.k8s.io", "IPAddress"),
    ("networking.k8s.io", "ServiceCIDR"),
    ("policy", "PodSecurityPolicy"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("certificates.k8s.io", "ClusterTrustBundle"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    ("resource.k8s.io", "DeviceClass"),
    ("snapshot.storage.k8s.io", "VolumeSnapshotClass"),
    ("snapshot.storage.k8s.io", "VolumeSnapshotContent"),
    ("gateway.networking.k8s.io", "GatewayClass"),
    ("policy.karmada.io", "ClusterTaintPolicy"),
    ("config.karmada.io", "ResourceInterpreterCustomization"),
    (
        "config.karmada.io",
        "ResourceInterpreterWebhookConfiguration",
    ),
    ("apps.karmada.io", "WorkloadRebalancer"),
    ("search.karmada.io", "ResourceRegistry"),
    ("cert-manager.io", "ClusterIssuer"),
    // Widely installed custom resources whose CRDs say `scope: Cluster`, for inputs that do not
    // hold the CRD (one that does decides instead: `State::is_namespaced`): Karmada's detector
    // matches them only against ClusterPropagationPolicies, as any template without a namespace.
    ("scheduling.volcano.sh", "Queue"),
    ("kueue.x-k8s.io", "ClusterQueue"),
    ("kueue.x-k8s.io", "ResourceFlavor"),
    ("kyverno.io", "ClusterPolicy"),
    ("kyverno.io", "ClusterCleanupPolicy"),
    ("wgpolicyk8s.io", "ClusterPolicyReport"),
    ("templates.gatekeeper.sh", "ConstraintTemplate"),
    ("external-secrets.io", "ClusterSecretStore"),
    ("external-secrets.io", "ClusterExternalSecret"),
    ("karpenter.sh", "NodePool"),
    ("karpenter.sh", "NodeClaim"),
    ("karpenter.k8s.aws", "EC2NodeClass"),
    ("cilium.io", "CiliumClusterwideNetworkPolicy"),
    ("crd.projectcalico.org", "GlobalNetworkPolicy"),
    ("crd.projectcalico.org", "IPPool"),
    ("projectcalico.org", "GlobalNetworkPolicy"),
    ("projectcalico.org", "IPPool"),
    ("argoproj.io", "ClusterWorkflowTemplate"),
];

pub use super::kinds::group_of;

pub fn is_namespaced(api_version: &str, kind: &str) -> bool {
    // Asked for every document: the kinds first, by hash, as most are in no pair.
    static KINDS: std::sync::LazyLock<std::collections::HashSet<&str>> =
        std::sync::LazyLock::new(|| cluster_scoped().map(|(_, k)| k).collect());
    if !KINDS.contains(kind) {
        return true;
    }
    let group = group_of(api_version);
    !cluster_scoped().any(|(g, k)| g == group && k == kind)
}

/// Every cluster-scoped `(group, kind)`: the list above and Karmada's from the kinds table.
fn cluster_scoped() -> impl Iterator<Item = (&'static str, &'static str)> {
    let karmada = super::kinds::KARMADA
        .iter()
        .filter(|k| !k.namespaced)
        .map(|k| (k.group, k.kind));
    CLUSTER_SCOPED.iter().copied().chain(karmada)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_scopes() {
        assert!(!is_namespaced("v1", "Namespace"));
        assert!(!is_namespaced(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole"
        ));
        assert!(!is_namespaced(
            "policy.karmada.io/v1alpha1",
            "ClusterPropagationPolicy"
        ));
        for k in super::super::kinds::KARMADA {
            assert_eq!(
                is_namespaced(&k.api_version(), k.kind),
                k.namespaced,
                "{}",
                k.kind
            );
        }
        assert!(is_namespaced("apps/v1", "Deployment"));
        assert!(is_namespaced("example.com/v1", "Widget"));
        // A widely installed cluster-scoped custom resource (volcano-sh/volcano-global's Queue).
        assert!(!is_namespaced("scheduling.volcano.sh/v1beta1", "Queue"));
    }
}
