//! What a workload template names as its dependencies, as Karmada's default resource
//! interpreter reads them (`pkg/resourceinterpreter/default/native/dependencies.go`,
//! `pkg/util/helper/pod.go` `GetDependenciesFromPodTemplate`, `pkg/util/lifted/visitpod.go`):
//! read once, when the template is typed, as a CustomResourceDefinition's declared kind is.
//! What Karmada does with them (`propagateDeps`) is the engine's
//! (`crate::engine::dependencies`).

use crate::source::Node;

/// A dependency of a workload, in the workload's namespace (`DependentObjectReference`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependency {
    /// One of [`DEPENDENCY_KINDS`], all of `v1`.
    pub kind: &'static str,
    pub name: String,
}

/// The kinds a dependency can be (`GetDependenciesFromPodTemplate`, Ingress TLS secrets).
pub const DEPENDENCY_KINDS: &[&str] = &[
    "ConfigMap",
    "Secret",
    "ServiceAccount",
    "PersistentVolumeClaim",
];

/// The pod specs a workload kind's dependency interpreter reads: Karmada's default one for the
/// native kinds (`getAllDefaultDependenciesInterpreter`, keyed by the exact group/version/kind,
/// as the detector reads the template), and the third-party customizations Karmada ships, whose
/// `GetDependencies` hands pod templates to `kube.getPodDependencies`, the same
/// `GetDependenciesFromPodTemplate` (`pkg/resourceinterpreter/default/thirdparty/
/// resourcecustomizations/<group>/<version>/<kind>/customizations.yaml`,
/// `pkg/resourceinterpreter/customized/declarative/luavm/kube.go` getPodDependencies). Empty for
/// a kind without a dependency interpreter. (UnitedDeployment's script reads `spec.template`
/// as a pod template, but it holds workload templates: in practice it finds nothing.)
fn pod_specs<'a>(api_version: &str, kind: &str, root: &'a Node) -> Vec<&'a Node> {
    const TEMPLATE: &[&str] = &["spec", "template", "spec"];
    let replica_specs = |list: &str, types: &[&str]| -> Vec<&'a Node> {
        types
            .iter()
            .filter_map(|t| at(root, &["spec", list, t, "template", "spec"]))
            .collect()
    };
    match (api_version, kind) {
        ("apps/v1", "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet")
        | ("batch/v1", "Job")
        | (
            "apps.kruise.io/v1alpha1",
            "CloneSet" | "BroadcastJob" | "DaemonSet" | "UnitedDeployment",
        )
        | ("apps.kruise.io/v1beta1", "StatefulSet") => at(root, TEMPLATE).into_iter().collect(),
        ("batch/v1", "CronJob") => at(root, &["spec", "jobTemplate", "spec", "template", "spec"])
            .into_iter()
            .collect(),
        ("v1", "Pod") => at(root, &["spec"]).into_iter().collect(),
        // The broadcast job's template when it has one, else the job's.
        ("apps.kruise.io/v1alpha1", "AdvancedCronJob") => {
            let template = |which: &str| at(root, &["spec", "template", which]);
            template("broadcastJobTemplate")
                .or_else(|| template("jobTemplate"))
                .and_then(|t| at(t, TEMPLATE))
                .into_iter()
                .collect()
        }
        ("kubeflow.org/v1", "PyTorchJob") => {
            replica_specs("pytorchReplicaSpecs", &["Master", "Worker"])
        }
        ("kubeflow.org/v1", "TFJob") => replica_specs(
            "tfReplicaSpecs",
            &["PS", "Worker", "Chief", "Master", "Evaluator"],
        ),
        _ => Vec::new(),
    }
}

/// The dependencies of a template of `api_version`/`kind` whose tree is `root`, in Karmada's
/// order: ConfigMaps, Secrets, the ServiceAccount, PersistentVolumeClaims, each name once.
/// `None` when it has none (most templates).
pub fn of(api_version: &str, kind: &str, root: &Node) -> Option<Box<[Dependency]>> {
    let found = read(api_version, kind, root);
    (!found.is_empty()).then(|| found.into_boxed_slice())
}

fn read(api_version: &str, kind: &str, root: &Node) -> Vec<Dependency> {
    if (api_version, kind) == ("networking.k8s.io/v1", "Ingress") {
        // `getIngressDependencies`: every TLS entry's secret.
        let mut names = Names::default();
        for t in items(at(root, &["spec", "tls"])) {
            names.secrets.extend(str_at(t, &["secretName"]));
        }
        return names.into_dependencies(&[]);
    }
    let pods = pod_specs(api_version, kind, root);
    if pods.is_empty() {
        return Vec::new();
    }
    let mut names = Names::default();
    for pod in pods {
        names.pod(pod);
    }
    // A StatefulSet's claim templates are its own claims in each member cluster
    // (`getStatefulSetDependencies`; the OpenKruise StatefulSet's script does not leave them
    // out).
    let own_claims: Vec<&str> = if (api_version, kind) == ("apps/v1", "StatefulSet") {
        items(at(root, &["spec", "volumeClaimTemplates"]))
            .filter_map(|t| str_at(t, &["metadata", "name"]))
            .collect()
    } else {
        Vec::new()
    };
    names.into_dependencies(&own_claims)
}

/// The names a pod spec gives, by kind. One pass over each mapping: every workload template of
/// a lint is read here, and a field looked up by name scans its mapping each time. (Karmada
/// keeps each kind's names in a set, so their order means nothing.)
#[derive(Default)]
struct Names<'a> {
    configmaps: Vec<&'a str>,
    secrets: Vec<&'a str>,
    service_account: Option<&'a str>,
    claims: Vec<&'a str>,
}

impl<'a> Names<'a> {
    /// `VisitPodConfigmapNames`, `VisitPodSecretNames`, the service account and the claims.
    fn pod(&mut self, pod: &'a Node) {
        for e in pod.as_map().unwrap_or(&[]) {
            match e.key.as_str() {
                Some("initContainers" | "containers" | "ephemeralContainers") => {
                    items(Some(&e.value)).for_each(|c| self.container(c));
                }
                Some("volumes") => items(Some(&e.value)).for_each(|v| self.volume(v)),
                Some("imagePullSecrets") => self
                    .secrets
                    .extend(items(Some(&e.value)).filter_map(|r| str_at(r, &["name"]))),
                Some("serviceAccountName") => self.service_account = e.value.as_str(),
                _ => {}
            }
        }
    }

    /// `envFrom` and `valueFrom` references.
    fn container(&mut self, c: &'a Node) {
        for e in c.as_map().unwrap_or(&[]) {
            match e.key.as_str() {
                Some("envFrom") => {
                    for f in items(Some(&e.value)) {
                        self.configmaps.extend(str_at(f, &["configMapRef", "name"]));
                        self.secrets.extend(str_at(f, &["secretRef", "name"]));
                    }
                }
                Some("env") => {
                    for v in items(Some(&e.value)) {
                        let Some(from) = v.get("valueFrom") else {
                            continue;
                        };
                        self.configmaps
                            .extend(str_at(from, &["configMapKeyRef", "name"]));
                        self.secrets.extend(str_at(from, &["secretKeyRef", "name"]));
                    }
                }
                _ => {}
            }
        }
    }

    /// Every volume source that names a ConfigMap, a Secret or a claim.
    fn volume(&mut self, v: &'a Node) {
        for e in v.as_map().unwrap_or(&[]) {
            let source = &e.value;
            match e.key.as_str() {
                Some("configMap") => self.configmaps.extend(str_at(source, &["name"])),
                Some("secret") => self.secrets.extend(str_at(source, &["secretName"])),
                Some("azureFile") => self.secrets.extend(str_at(source, &["secretName"])),
                Some(
                    "cephfs" | "cinder" | "flexVolume" | "rbd" | "scaleIO" | "iscsi" | "storageos",
                ) => self.secrets.extend(str_at(source, &["secretRef", "name"])),
                Some("csi") => self
                    .secrets
                    .extend(str_at(source, &["nodePublishSecretRef", "name"])),
                Some("persistentVolumeClaim") => self.claims.extend(str_at(source, &["claimName"])),
                Some("projected") => {
                    for p in items(source.get("sources")) {
                        self.configmaps.extend(str_at(p, &["configMap", "name"]));
                        self.secrets.extend(str_at(p, &["secret", "name"]));
                    }
                }
                _ => {}
            }
        }
    }

    /// ConfigMaps, Secrets, the ServiceAccount (not `default`, every namespace's own) and the
    /// claims other than `own_claims`, each non-empty name once.
    fn into_dependencies(self, own_claims: &[&str]) -> Vec<Dependency> {
        let mut out = named("ConfigMap", self.configmaps.into_iter());
        out.extend(named("Secret", self.secrets.into_iter()));
        let sa = self.service_account.filter(|s| *s != "default");
        out.extend(named("ServiceAccount", sa.into_iter()));
        let claims = self.claims.into_iter().filter(|c| !own_claims.contains(c));
        out.extend(named("PersistentVolumeClaim", claims));
        out
    }
}

fn at<'a>(node: &'a Node, path: &[&str]) -> Option<&'a Node> {
    path.iter().try_fold(node, |n, k| n.get(k))
}

fn str_at<'a>(node: &'a Node, path: &[&str]) -> Option<&'a str> {
    at(node, path)?.as_str()
}

fn items(node: Option<&Node>) -> impl Iterator<Item = &Node> {
    node.and_then(Node::as_seq).into_iter().flatten()
}

/// Each non-empty name once, in first-seen order (`skipEmptyNames`, a set per kind).
fn named<'a>(kind: &'static str, names: impl Iterator<Item = &'a str>) -> Vec<Dependency> {
    let mut out: Vec<Dependency> = Vec::new();
    for name in names.filter(|n| !n.is_empty()) {
        if !out.iter().any(|d| d.name == name) {
            out.push(Dependency {
                kind,
                name: name.to_string(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    fn deps(api_version: &str, kind: &str, spec: &str) -> Vec<String> {
        let text = format!("apiVersion: {api_version}\nkind: {kind}\nspec: {spec}\n");
        let loaded = load(Source::new("w.yaml", text));
        of(api_version, kind, &loaded.documents[0].root)
            .unwrap_or_default()
            .iter()
            .map(|d| format!("{}/{}", d.kind, d.name))
            .collect()
    }

    #[test]
    fn a_job_depends_on_what_its_pod_template_names() {
        let spec = r#"{"template": {"spec": {
            "serviceAccountName": "runner",
            "imagePullSecrets": [{"name": "registry"}],
            "initContainers": [{"envFrom": [{"configMapRef": {"name": "init-env"}}]}],
            "containers": [{"env": [
                {"name": "A", "valueFrom": {"configMapKeyRef": {"name": "runtime", "key": "a"}}},
                {"name": "B", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "b"}}},
                {"name": "C", "valueFrom": {"configMapKeyRef": {"name": "runtime", "key": "c"}}}
            ]}],
            "volumes": [
                {"name": "p", "projected": {"sources": [{"configMap": {"name": "proj"}}, {"secret": {"name": "proj-s"}}]}},
                {"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "t", "secret": {"secretName": "tls"}}
            ]
        }}}"#;
        assert_eq!(
            deps("batch/v1", "Job", spec),
            [
                "ConfigMap/init-env",
                "ConfigMap/runtime",
                "ConfigMap/proj",
                "Secret/registry",
                "Secret/creds",
                "Secret/proj-s",
                "Secret/tls",
                "ServiceAccount/runner",
                "PersistentVolumeClaim/data"
            ]
        );
    }

    /// The third-party customizations Karmada ships read pod templates too: OpenKruise's
    /// workloads and Kubeflow's jobs carry their ConfigMaps along as a Deployment does.
    #[test]
    fn third_party_workloads_depend_on_their_pod_templates() {
        let pod = r#"{"spec": {"containers": [{"envFrom": [{"configMapRef": {"name": "cfg"}}]}]}}"#;
        let template = format!(r#"{{"template": {pod}}}"#);
        for kind in ["CloneSet", "BroadcastJob", "DaemonSet"] {
            assert_eq!(
                deps("apps.kruise.io/v1alpha1", kind, &template),
                ["ConfigMap/cfg"],
                "{kind}"
            );
        }
        assert_eq!(
            deps("apps.kruise.io/v1beta1", "StatefulSet", &template),
            ["ConfigMap/cfg"]
        );
        // AdvancedCronJob: the broadcast job's template when there is one, else the job's.
        let cron = format!(
            r#"{{"template": {{"jobTemplate": {{"spec": {{"template": {pod}}}}},
                "broadcastJobTemplate": {{"spec": {{"template": {{"spec": {{"serviceAccountName": "bc"}}}}}}}}}}}}"#
        );
        assert_eq!(
            deps("apps.kruise.io/v1alpha1", "AdvancedCronJob", &cron),
            ["ServiceAccount/bc"]
        );
        let job_only =
            format!(r#"{{"template": {{"jobTemplate": {{"spec": {{"template": {pod}}}}}}}}}"#);
        assert_eq!(
            deps("apps.kruise.io/v1alpha1", "AdvancedCronJob", &job_only),
            ["ConfigMap/cfg"]
        );
        // Kubeflow: the replica types the script walks, each name once.
        let replicas = format!(
            r#"{{"pytorchReplicaSpecs": {{"Master": {{"template": {pod}}}, "Worker": {{"template": {{"spec": {{"volumes": [{{"name": "d", "persistentVolumeClaim": {{"claimName": "data"}}}}]}}}}}}, "Launcher": {{"template": {{"spec": {{"serviceAccountName": "x"}}}}}}}}}}"#
        );
        assert_eq!(
            deps("kubeflow.org/v1", "PyTorchJob", &replicas),
            ["ConfigMap/cfg", "PersistentVolumeClaim/data"]
        );
        // UnitedDeployment's template holds workload templates: nothing for the script.
        let united =
            format!(r#"{{"template": {{"cloneSetTemplate": {{"spec": {{"template": {pod}}}}}}}}}"#);
        assert!(deps("apps.kruise.io/v1alpha1", "UnitedDeployment", &united).is_empty());
        assert!(deps("apps.kruise.io/v1alpha1", "StatefulSet", &template).is_empty());
    }

    #[test]
    fn kinds_without_an_interpreter_and_own_claims_are_not_dependencies() {
        let spec = r#"{"template": {"spec": {
            "serviceAccountName": "default",
            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                        {"name": "s", "persistentVolumeClaim": {"claimName": "shared"}}]
        }}, "volumeClaimTemplates": [{"metadata": {"name": "data"}}]}"#;
        assert_eq!(
            deps("apps/v1", "StatefulSet", spec),
            ["PersistentVolumeClaim/shared"]
        );
        assert!(deps("apps/v1beta2", "StatefulSet", spec).is_empty());
        assert!(deps("example.com/v1", "Widget", spec).is_empty());
        assert_eq!(
            deps(
                "networking.k8s.io/v1",
                "Ingress",
                r#"{"tls": [{"secretName": "web-tls"}, {"hosts": ["a"]}]}"#
            ),
            ["Secret/web-tls"]
        );
    }
}
