//! Resolving `TYPE` as kubectl takes it (kind, plural or short name, case-insensitive, with an
//! optional `.group` or `.version.group`) against well-known kinds and the kinds present in
//! the inputs. Pure: the caller supplies the kinds seen in its inputs.
//!
//! [`KARMADA`] is the one table of Karmada's resource kinds (group, version, plural, short name,
//! scope): the live source, the writer and type resolution all read it.

/// The API group of an `apiVersion` (`apps/v1` → `apps`, `v1` → the core group, empty): the
/// one spelling every layer above asks.
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// A Karmada resource kind, with the names its CRD serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KarmadaKind {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    /// kubectl's short name, when the CRD declares one.
    pub short: Option<&'static str>,
    pub namespaced: bool,
}

impl KarmadaKind {
    /// `policy.karmada.io/v1alpha1`.
    pub fn api_version(&self) -> String {
        format!("{}/{}", self.group, self.version)
    }
}

const fn karmada(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    short: Option<&'static str>,
    namespaced: bool,
) -> KarmadaKind {
    KarmadaKind {
        group,
        version,
        kind,
        plural,
        short,
        namespaced,
    }
}

pub const PROPAGATION_POLICY: KarmadaKind = karmada(
    "policy.karmada.io",
    "v1alpha1",
    "PropagationPolicy",
    "propagationpolicies",
    Some("pp"),
    true,
);
pub const CLUSTER_PROPAGATION_POLICY: KarmadaKind = karmada(
    "policy.karmada.io",
    "v1alpha1",
    "ClusterPropagationPolicy",
    "clusterpropagationpolicies",
    Some("cpp"),
    false,
);
pub const OVERRIDE_POLICY: KarmadaKind = karmada(
    "policy.karmada.io",
    "v1alpha1",
    "OverridePolicy",
    "overridepolicies",
    Some("op"),
    true,
);
pub const CLUSTER_OVERRIDE_POLICY: KarmadaKind = karmada(
    "policy.karmada.io",
    "v1alpha1",
    "ClusterOverridePolicy",
    "clusteroverridepolicies",
    Some("cop"),
    false,
);
pub const RESOURCE_BINDING: KarmadaKind = karmada(
    "work.karmada.io",
    "v1alpha2",
    "ResourceBinding",
    "resourcebindings",
    Some("rb"),
    true,
);
pub const CLUSTER_RESOURCE_BINDING: KarmadaKind = karmada(
    "work.karmada.io",
    "v1alpha2",
    "ClusterResourceBinding",
    "clusterresourcebindings",
    Some("crb"),
    false,
);
pub const WORK: KarmadaKind = karmada("work.karmada.io", "v1alpha1", "Work", "works", None, true);
pub const CLUSTER: KarmadaKind = karmada(
    "cluster.karmada.io",
    "v1alpha1",
    "Cluster",
    "clusters",
    None,
    false,
);

/// The label Karmada puts on a ResourceBinding (and its Works) with the binding's permanent id.
pub const RB_ID_LABEL: &str = "resourcebinding.karmada.io/permanent-id";
/// The same for a ClusterResourceBinding.
pub const CRB_ID_LABEL: &str = "clusterresourcebinding.karmada.io/permanent-id";

/// Every Karmada kind this tool reads or writes, in the order type resolution lists them.
pub const KARMADA: &[KarmadaKind] = &[
    PROPAGATION_POLICY,
    CLUSTER_PROPAGATION_POLICY,
    OVERRIDE_POLICY,
    CLUSTER_OVERRIDE_POLICY,
    RESOURCE_BINDING,
    CLUSTER_RESOURCE_BINDING,
    WORK,
    CLUSTER,
];

/// The CustomResourceDefinitions every Karmada control plane holds, installed with it
/// (karmada-io/karmada `charts/karmada/_crds/bases/`; the operator and `karmadactl init` install
/// the same): a ClusterPropagationPolicy selecting one by name (the multi-cluster-service guide
/// propagates the ServiceExport and ServiceImport CRDs this way) selects an object that exists
/// although no file of the repository holds it.
pub const CONTROL_PLANE_CRDS: &[&str] = &[
    "workloadrebalancers.apps.karmada.io",
    "cronfederatedhpas.autoscaling.karmada.io",
    "federatedhpas.autoscaling.karmada.io",
    "resourceinterpretercustomizations.config.karmada.io",
    "resourceinterpreterwebhookconfigurations.config.karmada.io",
    "serviceexports.multicluster.x-k8s.io",
    "serviceimports.multicluster.x-k8s.io",
    "multiclusteringresses.networking.karmada.io",
    "multiclusterservices.networking.karmada.io",
    "clusteroverridepolicies.policy.karmada.io",
    "clusterpropagationpolicies.policy.karmada.io",
    "clustertaintpolicies.policy.karmada.io",
    "federatedresourcequotas.policy.karmada.io",
    "overridepolicies.policy.karmada.io",
    "propagationpolicies.policy.karmada.io",
    "remedies.remedy.karmada.io",
    "clusterresourcebindings.work.karmada.io",
    "resourcebindings.work.karmada.io",
    "works.work.karmada.io",
];

/// Built-in kinds a current kube-apiserver serves in more than one version: `(kind, preferred
/// apiVersion, the other served apiVersions)`. Karmada's detector watches every resource in
/// its preferred version only (`pkg/util/lifted/discovery.go` `GetDeletableResources` over
/// `ServerPreferredResources`, `pkg/detector/detector.go` `discoverResources`), so a template
/// applied in another version is read, and matched against `resourceSelectors` (an exact
/// apiVersion comparison, `pkg/util/selector.go` `ResourceSelectorPriority`), in the preferred
/// one. Versions the API server no longer serves (`autoscaling/v2beta2`, `networking.k8s.io/
/// v1beta1`...) are not listed: such a manifest is refused when applied.
const SERVED_IN_SEVERAL_VERSIONS: &[(&str, &str, &[&str])] = &[
    (
        "HorizontalPodAutoscaler",
        "autoscaling/v2",
        &["autoscaling/v1"],
    ),
    (
        "FlowSchema",
        "flowcontrol.apiserver.k8s.io/v1",
        &["flowcontrol.apiserver.k8s.io/v1beta3"],
    ),
    (
        "PriorityLevelConfiguration",
        "flowcontrol.apiserver.k8s.io/v1",
        &["flowcontrol.apiserver.k8s.io/v1beta3"],
    ),
];

/// The apiVersion Karmada's detector reads a `kind` applied as `api_version` in, when that is
/// another (a table of the kinds a current kube-apiserver serves in several versions); `None`:
/// the one it is applied in.
pub fn watched_version(api_version: &str, kind: &str) -> Option<&'static str> {
    SERVED_IN_SEVERAL_VERSIONS
        .iter()
        .find(|(k, _, others)| *k == kind && others.contains(&api_version))
        .map(|&(_, preferred, _)| preferred)
}

/// A built-in API version the API server no longer serves for a kind ([`removed_version`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Removed {
    /// The Kubernetes minor release (1.x) that stopped serving it (22 for 1.22).
    pub since: u32,
    /// The apiVersion to write instead; `None` when the kind went with it (PodSecurityPolicy).
    pub replacement: Option<&'static str>,
}

/// Built-in API versions Kubernetes removed, from its deprecated API migration guide (up to
/// 1.32, the last release that removed one): `(apiVersion, kinds, removed in 1.x,
/// replacement)`. Only kinds kept as manifests are listed (not the review kinds a client only
/// creates). A manifest in such a version is refused when applied ("no matches for kind"), so
/// it is never a template; which of them a control plane refuses depends on the Kubernetes
/// release of its karmada-apiserver ([`removed_version`]).
const REMOVED: &[(&str, &[&str], u32, Option<&str>)] = &[
    (
        "extensions/v1beta1",
        &["Deployment", "DaemonSet", "ReplicaSet"],
        16,
        Some("apps/v1"),
    ),
    (
        "extensions/v1beta1",
        &["NetworkPolicy"],
        16,
        Some("networking.k8s.io/v1"),
    ),
    ("extensions/v1beta1", &["PodSecurityPolicy"], 16, None),
    (
        "extensions/v1beta1",
        &["Ingress"],
        22,
        Some("networking.k8s.io/v1"),
    ),
    (
        "apps/v1beta1",
        &[
            "Deployment",
            "StatefulSet",
            "ReplicaSet",
            "ControllerRevision",
        ],
        16,
        Some("apps/v1"),
    ),
    (
        "apps/v1beta2",
        &[
            "Deployment",
            "StatefulSet",
            "DaemonSet",
            "ReplicaSet",
            "ControllerRevision",
        ],
        16,
        Some("apps/v1"),
    ),
    (
        "admissionregistration.k8s.io/v1beta1",
        &[
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
        ],
        22,
        Some("admissionregistration.k8s.io/v1"),
    ),
    (
        "apiextensions.k8s.io/v1beta1",
        &["CustomResourceDefinition"],
        22,
        Some("apiextensions.k8s.io/v1"),
    ),
    (
        "apiregistration.k8s.io/v1beta1",
        &["APIService"],
        22,
        Some("apiregistration.k8s.io/v1"),
    ),
    (
        "certificates.k8s.io/v1beta1",
        &["CertificateSigningRequest"],
        22,
        Some("certificates.k8s.io/v1"),
    ),
    (
        "coordination.k8s.io/v1beta1",
        &["Lease"],
        22,
        Some("coordination.k8s.io/v1"),
    ),
    (
        "networking.k8s.io/v1beta1",
        &["Ingress", "IngressClass"],
        22,
        Some("networking.k8s.io/v1"),
    ),
    (
        "rbac.authorization.k8s.io/v1beta1",
        &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
        22,
        Some("rbac.authorization.k8s.io/v1"),
    ),
    (
        "scheduling.k8s.io/v1beta1",
        &["PriorityClass"],
        22,
        Some("scheduling.k8s.io/v1"),
    ),
    (
        "storage.k8s.io/v1beta1",
        &["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"],
        22,
        Some("storage.k8s.io/v1"),
    ),
    ("batch/v1beta1", &["CronJob"], 25, Some("batch/v1")),
    (
        "discovery.k8s.io/v1beta1",
        &["EndpointSlice"],
        25,
        Some("discovery.k8s.io/v1"),
    ),
    (
        "events.k8s.io/v1beta1",
        &["Event"],
        25,
        Some("events.k8s.io/v1"),
    ),
    (
        "autoscaling/v2beta1",
        &["HorizontalPodAutoscaler"],
        25,
        Some("autoscaling/v2"),
    ),
    (
        "policy/v1beta1",
        &["PodDisruptionBudget"],
        25,
        Some("policy/v1"),
    ),
    ("policy/v1beta1", &["PodSecurityPolicy"], 25, None),
    (
        "node.k8s.io/v1beta1",
        &["RuntimeClass"],
        25,
        Some("node.k8s.io/v1"),
    ),
    (
        "flowcontrol.apiserver.k8s.io/v1beta1",
        &["FlowSchema", "PriorityLevelConfiguration"],
        26,
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    (
        "autoscaling/v2beta2",
        &["HorizontalPodAutoscaler"],
        26,
        Some("autoscaling/v2"),
    ),
    (
        "storage.k8s.io/v1beta1",
        &["CSIStorageCapacity"],
        27,
        Some("storage.k8s.io/v1"),
    ),
    (
        "flowcontrol.apiserver.k8s.io/v1beta2",
        &["FlowSchema", "PriorityLevelConfiguration"],
        29,
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
    (
        "flowcontrol.apiserver.k8s.io/v1beta3",
        &["FlowSchema", "PriorityLevelConfiguration"],
        32,
        Some("flowcontrol.apiserver.k8s.io/v1"),
    ),
];

/// Whether a kube-apiserver of Kubernetes 1.`kube_minor` no longer serves built-in `kind` in
/// `api_version`; `None` when it does, or the kind is not a built-in one of a removed version.
pub fn removed_version(api_version: &str, kind: &str, kube_minor: u32) -> Option<Removed> {
    // Every removed version is a beta: the common case (a template in `apps/v1`) is one search.
    if !api_version.contains("beta") {
        return None;
    }
    REMOVED
        .iter()
        .find(|(version, kinds, since, _)| {
            *version == api_version && kinds.contains(&kind) && *since <= kube_minor
        })
        .map(|&(_, _, since, replacement)| Removed { since, replacement })
}

/// The built-in API versions a kube-apiserver of the releases Karmada installs (1.27 and later)
/// serves, with their kinds (the subresource kinds `Scale`, `Eviction` and `Binding` too):
/// `(apiVersion, kinds)`, the preferred version of a kind first. A version Kubernetes removed
/// is [`REMOVED`]'s, not this one's; a version that a later release adds is listed for every
/// release, so a selector is never reported for a kind a newer karmada-apiserver serves. Alpha
/// versions are listed only for their kinds' names: whether one is served depends on the API
/// server's `--runtime-config`, so [`unserved_kind`] asks nothing of them.
///
/// The groups of this table, and every group without a dot, are the ones kube-apiserver serves
/// itself: a CustomResourceDefinition's group must contain a dot
/// (k8s.io/apiextensions-apiserver `pkg/apis/apiextensions/validation/validation.go`, "should
/// be a domain with at least one dot"), so no CRD adds a kind to `apps`, `batch` or the core
/// group.
const SERVED: &[(&str, &[&str])] = &[
    (
        "v1",
        &[
            "Binding",
            "ComponentStatus",
            "ConfigMap",
            "Endpoints",
            "Event",
            "LimitRange",
            "Namespace",
            "Node",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "Pod",
            "PodTemplate",
            "ReplicationController",
            "ResourceQuota",
            "Secret",
            "Service",
            "ServiceAccount",
        ],
    ),
    (
        "apps/v1",
        &[
            "ControllerRevision",
            "DaemonSet",
            "Deployment",
            "ReplicaSet",
            "StatefulSet",
        ],
    ),
    ("batch/v1", &["CronJob", "Job"]),
    ("autoscaling/v2", &["HorizontalPodAutoscaler"]),
    ("autoscaling/v1", &["HorizontalPodAutoscaler", "Scale"]),
    ("policy/v1", &["Eviction", "PodDisruptionBudget"]),
    (
        "admissionregistration.k8s.io/v1",
        &[
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            // GA in 1.36 (KEP-3962): listed so that no release reports it.
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding",
        ],
    ),
    (
        "admissionregistration.k8s.io/v1beta1",
        &[
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding",
        ],
    ),
    (
        "admissionregistration.k8s.io/v1alpha1",
        &[
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding",
        ],
    ),
    ("apiextensions.k8s.io/v1", &["CustomResourceDefinition"]),
    ("apiregistration.k8s.io/v1", &["APIService"]),
    (
        "authentication.k8s.io/v1",
        &["TokenReview", "TokenRequest", "SelfSubjectReview"],
    ),
    ("authentication.k8s.io/v1beta1", &["SelfSubjectReview"]),
    ("authentication.k8s.io/v1alpha1", &["SelfSubjectReview"]),
    (
        "authorization.k8s.io/v1",
        &[
            "LocalSubjectAccessReview",
            "SelfSubjectAccessReview",
            "SelfSubjectRulesReview",
            "SubjectAccessReview",
        ],
    ),
    ("certificates.k8s.io/v1", &["CertificateSigningRequest"]),
    (
        "certificates.k8s.io/v1beta1",
        &["ClusterTrustBundle", "PodCertificateRequest"],
    ),
    (
        "certificates.k8s.io/v1alpha1",
        &["ClusterTrustBundle", "PodCertificateRequest"],
    ),
    ("coordination.k8s.io/v1", &["Lease"]),
    ("coordination.k8s.io/v1beta1", &["LeaseCandidate"]),
    ("coordination.k8s.io/v1alpha2", &["LeaseCandidate"]),
    ("discovery.k8s.io/v1", &["EndpointSlice"]),
    ("events.k8s.io/v1", &["Event"]),
    (
        "flowcontrol.apiserver.k8s.io/v1",
        &["FlowSchema", "PriorityLevelConfiguration"],
    ),
    ("internal.apiserver.k8s.io/v1alpha1", &["StorageVersion"]),
    (
        "networking.k8s.io/v1",
        &[
            "Ingress",
            "IngressClass",
            "NetworkPolicy",
            "IPAddress",
            "ServiceCIDR",
        ],
    ),
    ("networking.k8s.io/v1beta1", &["IPAddress", "ServiceCIDR"]),
    (
        "networking.k8s.io/v1alpha1",
        &["ClusterCIDR", "IPAddress", "ServiceCIDR"],
    ),
    ("node.k8s.io/v1", &["RuntimeClass"]),
    (
        "rbac.authorization.k8s.io/v1",
        &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
    ),
    (
        "resource.k8s.io/v1",
        &[
            "DeviceClass",
            "ResourceClaim",
            "ResourceClaimTemplate",
            "ResourceSlice",
        ],
    ),
    (
        "resource.k8s.io/v1beta2",
        &[
            "DeviceClass",
            "DeviceTaintRule",
            "ResourceClaim",
            "ResourceClaimTemplate",
            "ResourceSlice",
        ],
    ),
    (
        "resource.k8s.io/v1beta1",
        &[
            "DeviceClass",
            "ResourceClaim",
            "ResourceClaimTemplate",
            "ResourceSlice",
        ],
    ),
    (
        "resource.k8s.io/v1alpha3",
        &[
            "DeviceClass",
            "DeviceTaintRule",
            "PodSchedulingContext",
            "ResourceClaim",
            "ResourceClaimTemplate",
            "ResourceSlice",
        ],
    ),
    (
        "resource.k8s.io/v1alpha2",
        &[
            "PodSchedulingContext",
            "ResourceClaim",
            "ResourceClaimParameters",
            "ResourceClaimTemplate",
            "ResourceClass",
            "ResourceClassParameters",
            "ResourceSlice",
        ],
    ),
    ("scheduling.k8s.io/v1", &["PriorityClass"]),
    ("scheduling.k8s.io/v1alpha1", &["Workload"]),
    (
        "storage.k8s.io/v1",
        &[
            "CSIDriver",
            "CSINode",
            "CSIStorageCapacity",
            "StorageClass",
            "VolumeAttachment",
            "VolumeAttributesClass",
        ],
    ),
    ("storage.k8s.io/v1beta1", &["VolumeAttributesClass"]),
    ("storage.k8s.io/v1alpha1", &["VolumeAttributesClass"]),
    (
        "storagemigration.k8s.io/v1beta1",
        &["StorageVersionMigration"],
    ),
    (
        "storagemigration.k8s.io/v1alpha1",
        &["StorageVersionMigration"],
    ),
];

/// Whether the API server serves `group` itself: every group without a dot (no CRD can have
/// one, `SERVED`), and Kubernetes' own `*.k8s.io` groups. Other `*.k8s.io` groups
/// (`gateway.networking.k8s.io`, `snapshot.storage.k8s.io`, `metrics.k8s.io`) are added by a
/// CRD or an aggregated API server.
pub fn is_kubernetes_group(group: &str) -> bool {
    !group.contains('.') || SERVED.iter().any(|(v, _)| group_of(v) == group)
}

/// What the API server serves instead of a built-in apiVersion and kind it serves in no
/// release ([`unserved_kind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unserved {
    /// The apiVersion that serves the kind (a GA one when there is one): `v1` for `apps/v1`
    /// Service, `apps/v1` for `apps/v2` Deployment.
    pub served_in: Option<&'static str>,
    /// No apiVersion serves the kind: the closest kind by spelling, and its apiVersion
    /// (`Deployment`, `apps/v1` for `apps/v1` Deploymnt).
    pub near: Option<(&'static str, &'static str)>,
}

/// A GA version (`v1`, `v2`): Kubernetes keeps serving a GA version of a kind, so a kind
/// served in one is not waiting for a promotion this table does not know yet.
fn is_ga(api_version: &str) -> bool {
    let version = api_version.rsplit('/').next().unwrap_or(api_version);
    version
        .strip_prefix('v')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Kinds this close in spelling (edit distance, case ignored) are taken for one misspelt.
const NEAR_KIND: usize = 2;

/// The kind of `kinds` closest to `kind` in spelling, within [`NEAR_KIND`].
fn nearest_kind<'k>(
    kind: &str,
    kinds: impl Iterator<Item = (&'k str, &'k str)>,
) -> Option<(&'k str, &'k str)> {
    let lower = kind.to_ascii_lowercase();
    kinds
        .map(|(k, v)| (strsim::levenshtein(&k.to_ascii_lowercase(), &lower), k, v))
        .filter(|(d, ..)| *d <= NEAR_KIND)
        .min_by_key(|(d, k, _)| (*d, strsim::levenshtein(k, kind)))
        .map(|(_, k, v)| (k, v))
}

/// Whether a built-in `api_version` (a group kube-apiserver serves itself,
/// [`is_kubernetes_group`]) serves `kind` in no release Karmada installs: `apps/v1` Service,
/// `v1` Deployment, `apps/v1` Deploymnt. The API server refuses such a manifest, so it is never
/// a template, and Karmada's `ResourceSelectorPriority` (`pkg/util/selector.go`) compares a
/// selector's apiVersion and kind with a template's as strings: a selector naming it matches
/// nothing, and `ValidatePropagationSpec` (`pkg/util/validation/validation.go`) accepts it.
/// `None` as well for an alpha version (served only as `--runtime-config` says), a version
/// [`removed_version`] knows (served until 1.`since`), and another non-GA version of a kind
/// the group serves only in non-GA ones (a release newer than `SERVED` may promote it).
pub fn unserved_kind(api_version: &str, kind: &str) -> Option<Unserved> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    if kind.is_empty() || version.is_empty() || !is_kubernetes_group(group) {
        return None;
    }
    if version.contains("alpha") {
        return None;
    }
    let kinds = |v: &str| SERVED.iter().find(|(sv, _)| *sv == v).map(|(_, ks)| *ks);
    if kinds(api_version).is_some_and(|ks| ks.contains(&kind))
        || REMOVED
            .iter()
            .any(|(v, ks, ..)| *v == api_version && ks.contains(&kind))
    {
        return None;
    }
    let serving = |in_group: bool| -> Vec<&'static str> {
        SERVED
            .iter()
            .filter(|(v, ks)| ks.contains(&kind) && (!in_group || group_of(v) == group))
            .map(|(v, _)| *v)
            .collect()
    };
    let in_group = serving(true);
    if !in_group.is_empty() {
        // The group serves the kind in another version: named when a GA one does.
        let ga = in_group.into_iter().find(|v| is_ga(v))?;
        return Some(Unserved {
            served_in: Some(ga),
            near: None,
        });
    }
    let elsewhere = serving(false);
    if let Some(v) = elsewhere
        .iter()
        .copied()
        .find(|v| is_ga(v))
        .or_else(|| elsewhere.first().copied())
    {
        return Some(Unserved {
            served_in: Some(v),
            near: None,
        });
    }
    let all = |entries: &'static [(&'static str, &'static [&'static str])]| {
        entries
            .iter()
            .filter(|(v, _)| !v.contains("alpha"))
            .flat_map(|(v, ks)| ks.iter().map(move |k| (*k, *v)))
    };
    let near = nearest_kind(kind, all(SERVED).filter(|(_, v)| group_of(v) == group))
        .or_else(|| nearest_kind(kind, all(SERVED)));
    Some(Unserved {
        served_in: None,
        near,
    })
}

/// [`unserved_kind`] for a document of the inputs: only in an apiVersion the API server serves
/// or served (`SERVED`, `REMOVED`) of a group without a dot, to which no CRD can add a kind,
/// and not for a file a client reads rather than applies (`v1 Config`, a kubeconfig). Files
/// beside manifests often carry an apiVersion and kind of their own (`skaffold/v4beta11
/// Config`): they are no template of any API server, and not reported as one.
pub fn unserved_template_kind(api_version: &str, kind: &str) -> Option<Unserved> {
    let built_in = SERVED
        .iter()
        .map(|(v, _)| *v)
        .chain(REMOVED.iter().map(|r| r.0));
    if group_of(api_version).contains('.')
        || (api_version, kind) == ("v1", "Config")
        || !built_in.into_iter().any(|v| v == api_version)
    {
        return None;
    }
    unserved_kind(api_version, kind)
}

/// One resource type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindInfo {
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub short: Vec<String>,
}

impl KindInfo {
    /// `deployments.apps` (or `configmaps` for the core group), as kubectl prints choices.
    pub fn display(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// Karmada's own API objects are not resource templates (§1.4 skipped groups).
    pub fn is_karmada(&self) -> bool {
        self.group.ends_with(".karmada.io")
    }
}

/// Whether `group` is one the API server serves itself (a group of [`WELL_KNOWN`]), not one
/// a CustomResourceDefinition adds.
fn is_built_in_group(group: &str) -> bool {
    WELL_KNOWN.iter().any(|(g, ..)| *g == group)
}

/// (group, kind, plural, short names) of the kinds kubectl knows without a CRD (Karmada's own
/// follow from [`KARMADA`]).
const WELL_KNOWN: &[(&str, &str, &str, &[&str])] = &[
    ("", "Pod", "pods", &["po"]),
    ("", "Service", "services", &["svc"]),
    ("", "ConfigMap", "configmaps", &["cm"]),
    ("", "Secret", "secrets", &[]),
    ("", "ServiceAccount", "serviceaccounts", &["sa"]),
    (
        "",
        "PersistentVolumeClaim",
        "persistentvolumeclaims",
        &["pvc"],
    ),
    ("", "PersistentVolume", "persistentvolumes", &["pv"]),
    ("", "Namespace", "namespaces", &["ns"]),
    ("", "Node", "nodes", &["no"]),
    ("", "Endpoints", "endpoints", &["ep"]),
    ("", "Event", "events", &["ev"]),
    ("", "LimitRange", "limitranges", &["limits"]),
    ("", "ResourceQuota", "resourcequotas", &["quota"]),
    (
        "",
        "ReplicationController",
        "replicationcontrollers",
        &["rc"],
    ),
    ("", "PodTemplate", "podtemplates", &[]),
    ("apps", "Deployment", "deployments", &["deploy"]),
    ("apps", "StatefulSet", "statefulsets", &["sts"]),
    ("apps", "DaemonSet", "daemonsets", &["ds"]),
    ("apps", "ReplicaSet", "replicasets", &["rs"]),
    ("apps", "ControllerRevision", "controllerrevisions", &[]),
    ("batch", "Job", "jobs", &[]),
    ("batch", "CronJob", "cronjobs", &["cj"]),
    (
        "autoscaling",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        &["hpa"],
    ),
    (
        "policy",
        "PodDisruptionBudget",
        "poddisruptionbudgets",
        &["pdb"],
    ),
    ("networking.k8s.io", "Ingress", "ingresses", &["ing"]),
    (
        "networking.k8s.io",
        "NetworkPolicy",
        "networkpolicies",
        &["netpol"],
    ),
    ("networking.k8s.io", "IngressClass", "ingressclasses", &[]),
    ("discovery.k8s.io", "EndpointSlice", "endpointslices", &[]),
    ("rbac.authorization.k8s.io", "Role", "roles", &[]),
    (
        "rbac.authorization.k8s.io",
        "RoleBinding",
        "rolebindings",
        &[],
    ),
    (
        "rbac.authorization.k8s.io",
        "ClusterRole",
        "clusterroles",
        &[],
    ),
    (
        "rbac.authorization.k8s.io",
        "ClusterRoleBinding",
        "clusterrolebindings",
        &[],
    ),
    ("storage.k8s.io", "StorageClass", "storageclasses", &["sc"]),
    (
        "scheduling.k8s.io",
        "PriorityClass",
        "priorityclasses",
        &["pc"],
    ),
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        &["crd", "crds"],
    ),
    ("coordination.k8s.io", "Lease", "leases", &[]),
    ("events.k8s.io", "Event", "events", &["ev"]),
    (
        "multicluster.x-k8s.io",
        "ServiceImport",
        "serviceimports",
        &[],
    ),
    (
        "multicluster.x-k8s.io",
        "ServiceExport",
        "serviceexports",
        &[],
    ),
];

/// kubectl's default pluralisation of a kind for kinds it has no discovery data for.
pub fn guess_plural(kind: &str) -> String {
    let k = kind.to_ascii_lowercase();
    if let Some(stem) = k.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if k.ends_with('s') || k.ends_with('x') || k.ends_with("ch") || k.ends_with("sh") {
        return format!("{k}es");
    }
    format!("{k}s")
}

/// The type table: well-known kinds plus `(group, kind)` pairs seen in the inputs.
pub fn table(seen: &[(String, String)]) -> Vec<KindInfo> {
    let mut out: Vec<KindInfo> = WELL_KNOWN
        .iter()
        .map(|(g, k, p, s)| KindInfo {
            group: g.to_string(),
            kind: k.to_string(),
            plural: p.to_string(),
            short: s.iter().map(|x| x.to_string()).collect(),
        })
        .chain(KARMADA.iter().map(|k| KindInfo {
            group: k.group.to_string(),
            kind: k.kind.to_string(),
            plural: k.plural.to_string(),
            short: k.short.iter().map(|x| x.to_string()).collect(),
        }))
        .collect();
    for (g, k) in seen {
        if !out.iter().any(|i| i.group == *g && i.kind == *k) {
            out.push(KindInfo {
                group: g.clone(),
                kind: k.clone(),
                plural: guess_plural(k),
                short: Vec::new(),
            });
        }
    }
    out
}

/// A TYPE that names no known kind, or several.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// Against manifests: neither a well-known kind nor one of the inputs' (live mode says
    /// "the server doesn't have a resource type", as kubectl, from discovery).
    #[error("unknown resource type \"{input}\": not a well-known kind nor a kind in the given files; known types: {}", choices.join(", "))]
    Unknown { input: String, choices: Vec<String> },
    #[error("resource type \"{input}\" is ambiguous; use one of: {}", choices.join(", "))]
    Ambiguous { input: String, choices: Vec<String> },
}

fn names_match(info: &KindInfo, name: &str) -> bool {
    info.kind.eq_ignore_ascii_case(name)
        || info.plural.eq_ignore_ascii_case(name)
        || info.short.iter().any(|s| s.eq_ignore_ascii_case(name))
}

/// Resolves a TYPE. `prefer` lists the kinds present in the inputs: when a name fits several
/// kinds and exactly one of them is present, that one is taken (as discovery's preferred
/// version would be).
pub fn resolve(
    input: &str,
    table: &[KindInfo],
    prefer: &[(String, String)],
) -> Result<KindInfo, ResolveError> {
    let mut found: Vec<&KindInfo> = table.iter().filter(|i| names_match(i, input)).collect();
    if found.is_empty() {
        if let Some((name, rest)) = input.split_once('.') {
            // `deployment.apps` or `deployments.v1.apps`.
            found = table
                .iter()
                .filter(|i| {
                    names_match(i, name)
                        && (i.group.eq_ignore_ascii_case(rest)
                            || rest
                                .split_once('.')
                                .is_some_and(|(_, g)| i.group.eq_ignore_ascii_case(g))
                            || (i.group.is_empty() && rest.eq_ignore_ascii_case("v1")))
                })
                .collect();
        }
    }
    match found.len() {
        0 => {
            let mut choices: Vec<String> = table
                .iter()
                .filter(|i| !i.is_karmada())
                .map(KindInfo::display)
                .collect();
            choices.sort();
            Err(ResolveError::Unknown {
                input: input.into(),
                choices,
            })
        }
        1 => Ok(found[0].clone()),
        _ => {
            let present: Vec<&&KindInfo> = found
                .iter()
                .filter(|i| prefer.iter().any(|(g, k)| *g == i.group && *k == i.kind))
                .collect();
            if present.len() == 1 {
                return Ok((*present[0]).clone());
            }
            // Else a built-in group over a CRD's, and the core group first among built-in ones
            // (`events`/`ev` is v1's Event): discovery lists the API server's own groups
            // first, and kubectl's RESTMapper takes the first group that has the resource
            // (client-go restmapper/discovery.go), so `job` is batch's Job where the files
            // hold both it and Volcano's.
            let among: Vec<&KindInfo> = match present.len() {
                0 => found.clone(),
                _ => present.iter().map(|i| **i).collect(),
            };
            let built_in: Vec<&&KindInfo> = among
                .iter()
                .filter(|i| is_built_in_group(&i.group))
                .collect();
            let first = match built_in.as_slice() {
                [only] => Some(only),
                several => several.iter().find(|i| i.group.is_empty()),
            };
            if let Some(first) = first {
                return Ok((**first).clone());
            }
            let mut choices: Vec<String> = found.iter().map(|i| i.display()).collect();
            choices.sort();
            Err(ResolveError::Ambiguous {
                input: input.into(),
                choices,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_versions_are_known_by_kind_and_the_served_ones_are_not() {
        let removed = |v, k| removed_version(v, k, 36);
        let ingress = removed("extensions/v1beta1", "Ingress").unwrap();
        assert_eq!(ingress.since, 22);
        assert_eq!(ingress.replacement, Some("networking.k8s.io/v1"));
        assert_eq!(
            removed("extensions/v1beta1", "Deployment").map(|r| r.replacement),
            Some(Some("apps/v1"))
        );
        assert_eq!(
            removed("policy/v1beta1", "PodSecurityPolicy").map(|r| r.replacement),
            Some(None)
        );
        // Served: the current versions, a CRD's own beta, a version removed for other kinds.
        assert_eq!(removed("apps/v1", "Deployment"), None);
        assert_eq!(removed("example.com/v1beta1", "Widget"), None);
        assert_eq!(removed("extensions/v1beta1", "Widget"), None);
    }

    /// Which versions are gone depends on the API server's release: the flow-control betas went
    /// in 1.29 (v1beta2) and 1.32 (v1beta3).
    #[test]
    fn a_version_is_removed_from_the_release_that_stopped_serving_it() {
        let v1beta2 = "flowcontrol.apiserver.k8s.io/v1beta2";
        let v1beta3 = "flowcontrol.apiserver.k8s.io/v1beta3";
        assert_eq!(removed_version(v1beta2, "FlowSchema", 27), None);
        assert_eq!(
            removed_version(v1beta2, "FlowSchema", 29).map(|r| r.since),
            Some(29)
        );
        assert_eq!(
            removed_version(v1beta3, "PriorityLevelConfiguration", 31),
            None
        );
        assert_eq!(
            removed_version(v1beta3, "PriorityLevelConfiguration", 34).map(|r| r.replacement),
            Some(Some("flowcontrol.apiserver.k8s.io/v1"))
        );
        // Removed long before the oldest karmada-apiserver modelled (1.27).
        assert!(removed_version("batch/v1beta1", "CronJob", 27).is_some());
    }

    /// The selectors of real repositories that name an API no release serves, and what serves
    /// the kind instead.
    #[test]
    fn a_built_in_group_serving_no_such_kind_says_what_serves_it() {
        let served_in = |v, k| unserved_kind(v, k).and_then(|u| u.served_in);
        assert_eq!(served_in("apps/v1", "Service"), Some("v1"));
        assert_eq!(served_in("v1", "Deployment"), Some("apps/v1"));
        assert_eq!(served_in("batch/v1", "Deployment"), Some("apps/v1"));
        assert_eq!(served_in("apps/v2", "Deployment"), Some("apps/v1"));
        assert_eq!(served_in("extensions/v1beta1", "Service"), Some("v1"));
        assert_eq!(
            served_in("apps/v1", "HorizontalPodAutoscaler"),
            Some("autoscaling/v2")
        );
        assert_eq!(
            served_in("events.k8s.io/v1", "Ingress"),
            Some("networking.k8s.io/v1")
        );
        // A misspelt kind: the closest of the group, else of any group.
        let near = |v, k| unserved_kind(v, k).and_then(|u| u.near);
        assert_eq!(
            near("apps/v1", "Deploymnt"),
            Some(("Deployment", "apps/v1"))
        );
        assert_eq!(
            near("apps/v1", "deployment"),
            Some(("Deployment", "apps/v1"))
        );
        assert_eq!(near("v1", "Deploymnt"), Some(("Deployment", "apps/v1")));
        assert_eq!(
            unserved_kind("batch/v1", "Widget"),
            Some(Unserved {
                served_in: None,
                near: None
            })
        );
    }

    #[test]
    fn served_custom_alpha_and_removed_apis_are_not_unserved() {
        for (v, k) in [
            ("v1", "Service"),
            ("apps/v1", "Deployment"),
            ("autoscaling/v1", "HorizontalPodAutoscaler"),
            ("networking.k8s.io/v1", "Ingress"),
            ("resource.k8s.io/v1beta1", "ResourceClaim"),
            // A CRD's group, though under k8s.io; Karmada's own.
            ("gateway.networking.k8s.io/v1", "HTTPRoute"),
            ("snapshot.storage.k8s.io/v1", "VolumeSnapshot"),
            ("example.com/v1", "Service"),
            ("policy.karmada.io/v1alpha1", "Service"),
            // Alpha versions are served as --runtime-config says.
            ("apps/v1alpha1", "Service"),
            // Removed versions are removed_version's; a removed version still served before.
            ("apps/v1beta1", "Deployment"),
            ("flowcontrol.apiserver.k8s.io/v1beta3", "FlowSchema"),
            // Only beta versions serve it: a newer release may serve it in another.
            ("certificates.k8s.io/v1", "ClusterTrustBundle"),
            ("v1", ""),
            ("", "Service"),
        ] {
            assert_eq!(unserved_kind(v, k), None, "{v} {k}");
        }
        assert!(is_kubernetes_group(""));
        assert!(is_kubernetes_group("apps"));
        assert!(is_kubernetes_group("rbac.authorization.k8s.io"));
        assert!(!is_kubernetes_group("gateway.networking.k8s.io"));
        assert!(!is_kubernetes_group("multicluster.x-k8s.io"));
    }

    #[test]
    fn a_kind_applied_in_a_version_other_than_the_preferred_is_watched_in_the_preferred() {
        assert_eq!(
            watched_version("autoscaling/v1", "HorizontalPodAutoscaler"),
            Some("autoscaling/v2")
        );
        // Already the preferred version, another kind, a version no longer served: as written.
        assert_eq!(
            watched_version("autoscaling/v2", "HorizontalPodAutoscaler"),
            None
        );
        assert_eq!(watched_version("autoscaling/v1", "Scale"), None);
        assert_eq!(
            watched_version("networking.k8s.io/v1beta1", "Ingress"),
            None
        );
    }

    #[test]
    fn kubectl_spellings() {
        let t = table(&[]);
        for s in [
            "deploy",
            "Deployment",
            "deployments",
            "DEPLOY",
            "deployment.apps",
            "deployments.v1.apps",
        ] {
            assert_eq!(resolve(s, &t, &[]).unwrap().kind, "Deployment", "{s}");
        }
        assert_eq!(resolve("cm", &t, &[]).unwrap().kind, "ConfigMap");
        assert_eq!(resolve("pp", &t, &[]).unwrap().kind, "PropagationPolicy");
        assert!(resolve("pp", &t, &[]).unwrap().is_karmada());
        assert!(matches!(
            resolve("nope", &t, &[]),
            Err(ResolveError::Unknown { .. })
        ));
        assert_eq!(resolve("ev", &t, &[]).unwrap().group, "");
    }

    #[test]
    fn kinds_from_inputs_and_ambiguity() {
        let seen = vec![
            ("example.com".to_string(), "Widget".to_string()),
            ("other.io".to_string(), "Widget".to_string()),
        ];
        let t = table(&seen);
        assert!(matches!(
            resolve("widgets", &t, &seen),
            Err(ResolveError::Ambiguous { .. })
        ));
        assert_eq!(
            resolve("widget.other.io", &t, &seen).unwrap().group,
            "other.io"
        );
        // A built-in group wins over a CRD's, as kubectl's discovery order makes it.
        let seen = vec![
            ("batch".to_string(), "Job".to_string()),
            ("batch.volcano.sh".to_string(), "Job".to_string()),
        ];
        let t = table(&seen);
        for given in [&seen[..], &[]] {
            assert_eq!(
                resolve("job", &t, given).unwrap().group,
                "batch",
                "{given:?}"
            );
        }
        // Two built-in groups in the files: the core one, as kubectl's order has it.
        let seen = vec![
            (String::new(), "Event".to_string()),
            ("events.k8s.io".to_string(), "Event".to_string()),
        ];
        let t = table(&seen);
        assert_eq!(resolve("event", &t, &seen).unwrap().group, "");
        let seen = vec![
            ("batch".to_string(), "Job".to_string()),
            ("batch.volcano.sh".to_string(), "Job".to_string()),
        ];
        let t = table(&seen);
        // Only one of them in the files: that one is asked about.
        assert_eq!(
            resolve("job", &t, &seen[1..]).unwrap().group,
            "batch.volcano.sh"
        );
        assert_eq!(
            resolve("job.batch.volcano.sh", &t, &seen).unwrap().group,
            "batch.volcano.sh"
        );
        assert_eq!(guess_plural("Policy"), "policies");
        assert_eq!(guess_plural("Gateway"), "gateways");
        assert_eq!(guess_plural("Ingress"), "ingresses");
    }
}
