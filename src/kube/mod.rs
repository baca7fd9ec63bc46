//! The live Karmada control plane: kubeconfig handling as kubectl does it, and the one place
//! that writes policies, owning optimistic concurrency (resourceVersion precondition, bounded
//! retry on 409 Conflict) and dry-run.
//!
//! Credentials are never printed, logged or written: errors name the kubeconfig, context and
//! server only.

pub mod kinds;
pub mod scope;

use std::path::PathBuf;
use std::time::Duration;

use ::kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use ::kube::config::{KubeConfigOptions, Kubeconfig};
use ::kube::core::{ApiResource, GroupVersionKind};
use serde_json::Value as J;

use crate::model::PolicyKind;

/// The field manager recorded in managedFields for our writes.
pub const FIELD_MANAGER: &str = "kubectl-karmada-policy";

/// How to reach the control plane, flag for flag as kubectl.
#[derive(Clone, Debug, Default)]
pub struct ConnectOptions {
    /// `--kubeconfig` (else `KUBECONFIG`, else `~/.kube/config`).
    pub kubeconfig: Option<PathBuf>,
    /// `--context` / `--karmada-context`.
    pub context: Option<String>,
    /// `--request-timeout` (0 = no timeout).
    pub request_timeout: Option<Duration>,
}

/// A failure talking to the control plane, classified for exit codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterError {
    pub kind: ErrorKind,
    pub message: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Kubeconfig missing or unusable.
    Config,
    /// Network, TLS or timeout.
    Transport,
    /// 401/403.
    Auth,
    NotFound,
    /// 409 on update.
    Conflict,
    /// The server failed (5xx).
    Server,
    /// Any other API answer (4xx).
    Api,
    /// The command refused to change the object (not an API failure).
    Refused,
    /// `--wait` ran out of time.
    Timeout,
}

impl ClusterError {
    fn new(kind: ErrorKind, message: impl Into<String>) -> ClusterError {
        ClusterError {
            kind,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ClusterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn classify(e: ::kube::Error) -> ClusterError {
    match e {
        ::kube::Error::Api(status) => {
            let kind = match status.code {
                401 | 403 => ErrorKind::Auth,
                404 => ErrorKind::NotFound,
                409 if status.reason == "Conflict" => ErrorKind::Conflict,
                500.. => ErrorKind::Server,
                _ => ErrorKind::Api,
            };
            let reason = if status.reason.is_empty() {
                format!("HTTP {}", status.code)
            } else {
                status.reason.clone()
            };
            ClusterError::new(kind, format!("{} ({reason})", status.message))
        }
        other => {
            // Transport errors never carry credentials; keep only the display text.
            ClusterError::new(ErrorKind::Transport, other.to_string())
        }
    }
}

/// A connected client with what the kubeconfig context said.
#[derive(Clone)]
pub struct Conn {
    pub client: ::kube::Client,
    /// The context's default namespace (`default` when unset), as kubectl uses it.
    pub namespace: String,
    /// The context's user name (the kubeconfig entry's name, never a credential).
    pub user: String,
    /// The server URL, for messages.
    pub server: String,
}

/// Loads the kubeconfig as kubectl does and connects (no request is made yet).
pub async fn connect(opts: &ConnectOptions) -> Result<Conn, ClusterError> {
    let kubeconfig = match &opts.kubeconfig {
        Some(p) => Kubeconfig::read_from(p).map_err(|e| {
            ClusterError::new(
                ErrorKind::Config,
                format!("cannot read kubeconfig {}: {e}", p.display()),
            )
        })?,
        None => Kubeconfig::read().map_err(|e| {
            ClusterError::new(
                ErrorKind::Config,
                format!("cannot read kubeconfig (KUBECONFIG or ~/.kube/config): {e}"),
            )
        })?,
    };
    let context_name = opts
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
        .unwrap_or_default();
    if let Some(c) = &opts.context {
        if !kubeconfig.contexts.iter().any(|x| &x.name == c) {
            return Err(ClusterError::new(
                ErrorKind::Config,
                format!("context \"{c}\" does not exist in the kubeconfig"),
            ));
        }
    }
    let user = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context_name)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone())
        .unwrap_or_default();
    let options = KubeConfigOptions {
        context: opts.context.clone(),
        cluster: None,
        user: None,
    };
    let mut config = ::kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| ClusterError::new(ErrorKind::Config, format!("kubeconfig: {e}")))?;
    if let Some(t) = opts.request_timeout.filter(|t| !t.is_zero()) {
        config.connect_timeout = Some(t);
        config.read_timeout = Some(t);
        config.write_timeout = Some(t);
    }
    let namespace = config.default_namespace.clone();
    let server = config.cluster_url.to_string();
    let client = ::kube::Client::try_from(config)
        .map_err(|e| ClusterError::new(ErrorKind::Config, format!("client: {e}")))?;
    Ok(Conn {
        client,
        namespace,
        user,
        server,
    })
}

/// The context names of the kubeconfig kubectl would read (none when it cannot be read).
pub fn context_names(kubeconfig: Option<&std::path::Path>) -> Vec<String> {
    let config = match kubeconfig {
        Some(p) => Kubeconfig::read_from(p),
        None => Kubeconfig::read(),
    };
    config
        .map(|c| c.contexts.into_iter().map(|c| c.name).collect())
        .unwrap_or_default()
}

pub fn policy_resource(kind: PolicyKind) -> ApiResource {
    let gvk = GroupVersionKind::gvk("policy.karmada.io", "v1alpha1", kind.as_str());
    ApiResource::from_gvk_with_plural(&gvk, kind.plural())
}

fn resource(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural)
}

impl Conn {
    fn policy_api(&self, kind: PolicyKind, namespace: Option<&str>) -> Api<DynamicObject> {
        let ar = policy_resource(kind);
        match (kind, namespace) {
            (PolicyKind::PropagationPolicy, Some(ns)) => {
                Api::namespaced_with(self.client.clone(), ns, &ar)
            }
            _ => Api::all_with(self.client.clone(), &ar),
        }
    }

    /// One policy; `Ok(None)` when it does not exist.
    pub async fn get_policy(
        &self,
        kind: PolicyKind,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Option<J>, ClusterError> {
        let api = self.policy_api(kind, namespace);
        match api.get_opt(name).await {
            Ok(o) => Ok(o.map(|o| to_json(&o, kind))),
            Err(e) => Err(classify(e)),
        }
    }

    /// Policies of a kind (`namespace: None` = all namespaces), filtered by a label selector.
    pub async fn list_policies(
        &self,
        kind: PolicyKind,
        namespace: Option<&str>,
        selector: Option<&str>,
    ) -> Result<Vec<J>, ClusterError> {
        let api = self.policy_api(kind, namespace);
        let mut lp = ListParams::default();
        if let Some(s) = selector {
            lp = lp.labels(s);
        }
        let list = api.list(&lp).await.map_err(classify)?;
        Ok(list.items.iter().map(|o| to_json(o, kind)).collect())
    }

    /// A merge patch (RFC 7386) carrying `metadata.resourceVersion`, so the server answers 409
    /// Conflict when the object changed since it was read.
    pub async fn patch_policy(
        &self,
        kind: PolicyKind,
        namespace: Option<&str>,
        name: &str,
        patch: &J,
        dry_run: bool,
    ) -> Result<J, ClusterError> {
        let api = self.policy_api(kind, namespace);
        let pp = PatchParams {
            field_manager: Some(FIELD_MANAGER.to_string()),
            dry_run,
            ..PatchParams::default()
        };
        let o = api
            .patch(name, &pp, &Patch::Merge(patch))
            .await
            .map_err(classify)?;
        Ok(to_json(&o, kind))
    }

    /// Namespace names (shell completion of `-n`).
    pub async fn list_namespaces(&self) -> Result<Vec<String>, ClusterError> {
        let ar = resource("", "v1", "Namespace", "namespaces");
        let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &ar);
        let list = api.list(&ListParams::default()).await.map_err(classify)?;
        Ok(list
            .items
            .into_iter()
            .filter_map(|o| o.metadata.name)
            .collect())
    }

    /// Member clusters (`cluster.karmada.io/v1alpha1`); `Ok(None)` when not readable.
    pub async fn list_clusters(&self) -> Option<Vec<J>> {
        let ar = resource("cluster.karmada.io", "v1alpha1", "Cluster", "clusters");
        let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &ar);
        let list = api.list(&ListParams::default()).await.ok()?;
        Some(
            list.items
                .iter()
                .map(|o| serde_json::to_value(o).unwrap_or(J::Null))
                .collect(),
        )
    }

    /// The bindings of a policy, found by its permanent-id label (RBs for a PP; RBs and CRBs
    /// for a CPP). `Ok(None)` when the policy has no permanent id or bindings are not readable.
    pub async fn policy_bindings(&self, kind: PolicyKind, policy: &J) -> Option<Vec<J>> {
        let label = kind.permanent_id_label();
        let id = policy["metadata"]["labels"][label].as_str()?;
        let lp = ListParams::default().labels(&format!("{label}={id}"));
        let rb = resource(
            "work.karmada.io",
            "v1alpha2",
            "ResourceBinding",
            "resourcebindings",
        );
        let mut out = Vec::new();
        let api: Api<DynamicObject> = match (kind, policy["metadata"]["namespace"].as_str()) {
            (PolicyKind::PropagationPolicy, Some(ns)) => {
                Api::namespaced_with(self.client.clone(), ns, &rb)
            }
            _ => Api::all_with(self.client.clone(), &rb),
        };
        let list = api.list(&lp).await.ok()?;
        out.extend(
            list.items
                .iter()
                .filter_map(|o| serde_json::to_value(o).ok()),
        );
        if kind == PolicyKind::ClusterPropagationPolicy {
            let crb = resource(
                "work.karmada.io",
                "v1alpha2",
                "ClusterResourceBinding",
                "clusterresourcebindings",
            );
            let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &crb);
            if let Ok(list) = api.list(&lp).await {
                out.extend(
                    list.items
                        .iter()
                        .filter_map(|o| serde_json::to_value(o).ok()),
                );
            }
        }
        Some(out)
    }
}

impl Conn {
    /// Every ResourceBinding in `namespace` (`None`: all namespaces) and, with
    /// `cluster_scoped`, every ClusterResourceBinding: one list each, for a freeze that needs
    /// the targets of many policies. `None` when ResourceBindings are not readable.
    pub async fn list_bindings(
        &self,
        namespace: Option<&str>,
        cluster_scoped: bool,
    ) -> Option<Vec<J>> {
        let rb = resource(
            "work.karmada.io",
            "v1alpha2",
            "ResourceBinding",
            "resourcebindings",
        );
        let api: Api<DynamicObject> = match namespace {
            Some(ns) => Api::namespaced_with(self.client.clone(), ns, &rb),
            None => Api::all_with(self.client.clone(), &rb),
        };
        let list = api.list(&ListParams::default()).await.ok()?;
        let mut out: Vec<J> = list
            .items
            .iter()
            .filter_map(|o| serde_json::to_value(o).ok())
            .collect();
        if cluster_scoped {
            let crb = resource(
                "work.karmada.io",
                "v1alpha2",
                "ClusterResourceBinding",
                "clusterresourcebindings",
            );
            let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &crb);
            if let Ok(list) = api.list(&ListParams::default()).await {
                out.extend(
                    list.items
                        .iter()
                        .filter_map(|o| serde_json::to_value(o).ok()),
                );
            }
        }
        Some(out)
    }

    /// Works (`work.karmada.io/v1alpha1`, in the `karmada-es-*` namespaces) carrying a label.
    pub async fn works_with_label(&self, selector: &str) -> Result<Vec<J>, ClusterError> {
        let ar = resource("work.karmada.io", "v1alpha1", "Work", "works");
        let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &ar);
        let list = api
            .list(&ListParams::default().labels(selector))
            .await
            .map_err(classify)?;
        Ok(list
            .items
            .iter()
            .filter_map(|o| serde_json::to_value(o).ok())
            .collect())
    }
}

/// The object as JSON with apiVersion and kind filled in (lists may omit them).
fn to_json(o: &DynamicObject, kind: PolicyKind) -> J {
    let mut j = serde_json::to_value(o).unwrap_or(J::Null);
    if let Some(m) = j.as_object_mut() {
        m.insert("apiVersion".into(), J::from("policy.karmada.io/v1alpha1"));
        m.insert("kind".into(), J::from(kind.as_str()));
    }
    j
}

/// RFC 7386 merge patch, applied locally (client-side dry run, and tests).
pub fn merge_patch(target: &mut J, patch: &J) {
    match patch {
        J::Object(p) => {
            if !target.is_object() {
                *target = J::Object(serde_json::Map::new());
            }
            let t = target.as_object_mut().expect("object");
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge_patch(t.entry(k.clone()).or_insert(J::Null), v);
                }
            }
        }
        other => *target = other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_patch_follows_rfc7386() {
        let mut t = serde_json::json!({"a": {"b": 1, "c": 2}, "d": [1]});
        merge_patch(
            &mut t,
            &serde_json::json!({"a": {"b": null, "e": 3}, "d": [2]}),
        );
        assert_eq!(t, serde_json::json!({"a": {"c": 2, "e": 3}, "d": [2]}));
    }
}
