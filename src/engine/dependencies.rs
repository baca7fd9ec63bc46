//! What a workload depends on, as Karmada's default resource interpreter reads it, and which
//! workloads carry a template along as a dependency (`propagateDeps`).
//!
//! With the `PropagateDeps` gate on (the default, `pkg/features/features.go`) and a binding
//! whose policy sets `propagateDeps: true`, the dependencies distributor gives every
//! dependency that exists as a template an attached ResourceBinding, required by the
//! workload's binding and scheduled to its clusters
//! (`pkg/dependenciesdistributor/dependencies_distributor.go` `handleDependentResource`,
//! `buildAttachedBinding`), whether or not a policy claims the dependency.

use serde_json::Value as Json;

use crate::model::{ObjectRef, PolicyRef};

use super::reconcile::settle;
use super::state::State;

/// A dependency of a workload, in the workload's namespace (`DependentObjectReference`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependency {
    /// One of [`DEPENDENCY_KINDS`], all of `v1`.
    pub kind: &'static str,
    pub name: String,
}

/// A workload that carries a template along, and the policy whose `propagateDeps` does it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequiredBy {
    pub workload: ObjectRef,
    pub policy: PolicyRef,
}

/// The kinds a dependency can be (`GetDependenciesFromPodTemplate`, Ingress TLS secrets).
pub const DEPENDENCY_KINDS: &[&str] = &[
    "ConfigMap",
    "Secret",
    "ServiceAccount",
    "PersistentVolumeClaim",
];

/// Where the pod spec of a workload kind is (`getAllDefaultDependenciesInterpreter`, keyed by
/// the exact group/version/kind); `None` for a kind without a default interpreter.
fn pod_spec_path(api_version: &str, kind: &str) -> Option<&'static [&'static str]> {
    match (api_version, kind) {
        ("apps/v1", "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet")
        | ("batch/v1", "Job") => Some(&["spec", "template", "spec"]),
        ("batch/v1", "CronJob") => Some(&["spec", "jobTemplate", "spec", "template", "spec"]),
        ("v1", "Pod") => Some(&["spec"]),
        _ => None,
    }
}

/// Whether Karmada's default interpreter reads dependencies of this kind.
pub fn has_dependencies(api_version: &str, kind: &str) -> bool {
    pod_spec_path(api_version, kind).is_some()
        || (api_version, kind) == ("networking.k8s.io/v1", "Ingress")
}

/// The dependencies of `object` (a template of `api_version`/`kind`), in Karmada's order:
/// ConfigMaps, Secrets, the ServiceAccount, PersistentVolumeClaims, each name once.
pub fn of(api_version: &str, kind: &str, object: &Json) -> Vec<Dependency> {
    if (api_version, kind) == ("networking.k8s.io/v1", "Ingress") {
        // `getIngressDependencies`: every TLS entry's secret.
        let names = items(object.pointer("/spec/tls")).filter_map(|t| str_at(t, "secretName"));
        return named("Secret", names);
    }
    let Some(path) = pod_spec_path(api_version, kind) else {
        return Vec::new();
    };
    let Some(pod) = path.iter().try_fold(object, |v, k| v.get(k)) else {
        return Vec::new();
    };
    let mut out = named("ConfigMap", configmap_names(pod).into_iter());
    out.extend(named("Secret", secret_names(pod).into_iter()));
    // `getServiceAccountNames`: the default account is every namespace's own.
    if let Some(sa) = str_at(pod, "serviceAccountName").filter(|s| *s != "default") {
        out.extend(named("ServiceAccount", std::iter::once(sa)));
    }
    let claims = items(pod.get("volumes")).filter_map(|v| {
        v.get("persistentVolumeClaim")
            .and_then(|c| str_at(c, "claimName"))
    });
    // A StatefulSet's claim templates are its own claims in each member cluster
    // (`getStatefulSetDependencies`).
    let templates: Vec<&str> = items(object.pointer("/spec/volumeClaimTemplates"))
        .filter_map(|t| t.pointer("/metadata/name").and_then(Json::as_str))
        .collect();
    let claims = claims.filter(|c| !(kind == "StatefulSet" && templates.contains(c)));
    out.extend(named("PersistentVolumeClaim", claims));
    out
}

/// The workloads of `state` that carry template `t` along: their eventual owner sets
/// `propagateDeps` and they name `t` among their dependencies (`object_of(w)` gives template
/// `w`'s object). Empty when the `PropagateDeps` gate is off.
pub fn required_by(
    state: &State,
    t: usize,
    object_of: &dyn Fn(usize) -> Option<Json>,
) -> Vec<RequiredBy> {
    let tpl = &state.templates[t];
    if !state.options.gates.enabled("PropagateDeps")
        || &*tpl.api_version != "v1"
        || !DEPENDENCY_KINDS.contains(&&*tpl.kind)
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (w, workload) in state.templates.iter().enumerate() {
        if w == t
            || workload.namespace != tpl.namespace
            || !has_dependencies(&workload.api_version, &workload.kind)
        {
            continue;
        }
        let Some(object) = object_of(w) else {
            continue;
        };
        let needed = of(&workload.api_version, &workload.kind, &object)
            .iter()
            .any(|d| d.kind == &*tpl.kind && d.name == *tpl.name);
        if !needed {
            continue;
        }
        let Some(owner) = settle(state, w).owner else {
            continue;
        };
        let propagates = state
            .find_policy(&owner)
            .is_some_and(|p| state.policy(p).spec.propagate_deps());
        if propagates {
            out.push(RequiredBy {
                workload: workload.reference(),
                policy: owner,
            });
        }
    }
    out
}

fn items(v: Option<&Json>) -> impl Iterator<Item = &Json> {
    v.and_then(Json::as_array).into_iter().flatten()
}

fn str_at<'a>(v: &'a Json, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Json::as_str)
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

/// Every container of the pod: init, regular and ephemeral (`VisitContainers`, AllContainers).
fn containers(pod: &Json) -> impl Iterator<Item = &Json> {
    ["initContainers", "containers", "ephemeralContainers"]
        .into_iter()
        .flat_map(|k| items(pod.get(k)))
}

/// `VisitPodConfigmapNames`: ConfigMap and projected volumes, `envFrom` and `valueFrom`.
fn configmap_names(pod: &Json) -> Vec<&str> {
    let mut out = Vec::new();
    for c in containers(pod) {
        out.extend(
            items(c.get("envFrom")).filter_map(|e| e.pointer("/configMapRef/name")?.as_str()),
        );
        out.extend(
            items(c.get("env"))
                .filter_map(|e| e.pointer("/valueFrom/configMapKeyRef/name")?.as_str()),
        );
    }
    for v in items(pod.get("volumes")) {
        out.extend(
            items(v.pointer("/projected/sources"))
                .filter_map(|s| s.pointer("/configMap/name")?.as_str()),
        );
        out.extend(v.pointer("/configMap/name").and_then(Json::as_str));
    }
    out
}

/// `VisitPodSecretNames`: image pull secrets, `envFrom` and `valueFrom`, and every volume
/// source that names a secret.
fn secret_names(pod: &Json) -> Vec<&str> {
    let mut out: Vec<&str> = items(pod.get("imagePullSecrets"))
        .filter_map(|r| str_at(r, "name"))
        .collect();
    for c in containers(pod) {
        out.extend(items(c.get("envFrom")).filter_map(|e| e.pointer("/secretRef/name")?.as_str()));
        out.extend(
            items(c.get("env")).filter_map(|e| e.pointer("/valueFrom/secretKeyRef/name")?.as_str()),
        );
    }
    const IN_VOLUMES: &[&str] = &[
        "/azureFile/secretName",
        "/cephfs/secretRef/name",
        "/cinder/secretRef/name",
        "/flexVolume/secretRef/name",
        "/rbd/secretRef/name",
        "/secret/secretName",
        "/scaleIO/secretRef/name",
        "/iscsi/secretRef/name",
        "/storageos/secretRef/name",
        "/csi/nodePublishSecretRef/name",
    ];
    for v in items(pod.get("volumes")) {
        out.extend(
            items(v.pointer("/projected/sources"))
                .filter_map(|s| s.pointer("/secret/name")?.as_str()),
        );
        out.extend(IN_VOLUMES.iter().filter_map(|p| v.pointer(p)?.as_str()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(deps: &[Dependency]) -> Vec<String> {
        deps.iter()
            .map(|d| format!("{}/{}", d.kind, d.name))
            .collect()
    }

    #[test]
    fn a_job_depends_on_what_its_pod_template_names() {
        let job = json!({"spec": {"template": {"spec": {
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
        }}}});
        assert_eq!(
            names(&of("batch/v1", "Job", &job)),
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

    #[test]
    fn kinds_without_an_interpreter_and_own_claims_are_not_dependencies() {
        let pod = json!({"spec": {"template": {"spec": {
            "serviceAccountName": "default",
            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                        {"name": "s", "persistentVolumeClaim": {"claimName": "shared"}}]
        }}, "volumeClaimTemplates": [{"metadata": {"name": "data"}}]}});
        assert_eq!(
            names(&of("apps/v1", "StatefulSet", &pod)),
            ["PersistentVolumeClaim/shared"]
        );
        assert!(of("apps/v1beta2", "StatefulSet", &pod).is_empty());
        assert!(of("example.com/v1", "Widget", &pod).is_empty());
        let ingress = json!({"spec": {"tls": [{"secretName": "web-tls"}, {"hosts": ["a"]}]}});
        assert_eq!(
            names(&of("networking.k8s.io/v1", "Ingress", &ingress)),
            ["Secret/web-tls"]
        );
    }
}
