//! The only code that speaks HTTP to the Karmada control plane: kubeconfig handling as kubectl
//! does it, typed requests (get, list, merge patch), discovery, and the one error type
//! [`KubeError`]. What the objects mean is decided above: [`crate::source::live`] reads,
//! [`crate::ops::live`] writes.
//!
//! Credentials are never printed, logged or written: errors name the kubeconfig, context and
//! server only.

pub mod discovery;
pub mod error;
pub mod kinds;
pub mod scope;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ::kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use ::kube::config::{KubeConfigOptions, Kubeconfig};
use ::kube::core::{ApiResource, GroupVersionKind};
use serde_json::Value as J;

pub use error::{ErrorKind, KubeError};
pub use kinds::KarmadaKind;

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
pub async fn connect(opts: &ConnectOptions) -> Result<Conn, KubeError> {
    let kubeconfig = match &opts.kubeconfig {
        Some(p) => Kubeconfig::read_from(p).map_err(|e| KubeError::ReadKubeconfig {
            path: p.clone(),
            source: Arc::new(e),
        })?,
        None => Kubeconfig::read().map_err(|e| KubeError::NoKubeconfig {
            source: Arc::new(e),
        })?,
    };
    let context_name = opts
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
        .unwrap_or_default();
    if let Some(c) = &opts.context {
        if !kubeconfig.contexts.iter().any(|x| &x.name == c) {
            return Err(KubeError::UnknownContext { context: c.clone() });
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
        .map_err(|e| KubeError::Kubeconfig {
            source: Arc::new(e),
        })?;
    if let Some(t) = opts.request_timeout.filter(|t| !t.is_zero()) {
        config.connect_timeout = Some(t);
        config.read_timeout = Some(t);
        config.write_timeout = Some(t);
    }
    let namespace = config.default_namespace.clone();
    let server = config.cluster_url.to_string();
    let client = ::kube::Client::try_from(config).map_err(|e| KubeError::Client {
        source: Arc::new(e),
    })?;
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

/// A resource type as the API serves it: enough to address a request.
pub trait Served: Sync {
    fn api_resource(&self) -> ApiResource;
    fn namespaced(&self) -> bool;
}

impl Served for KarmadaKind {
    fn api_resource(&self) -> ApiResource {
        ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk(self.group, self.version, self.kind),
            self.plural,
        )
    }

    fn namespaced(&self) -> bool {
        self.namespaced
    }
}

impl Conn {
    /// The endpoint of a type: one namespace when the type is namespaced and one is given, else
    /// all namespaces (or the cluster scope).
    fn api(
        &self,
        t: &(dyn Served + Sync),
        namespace: Option<&str>,
    ) -> (Api<DynamicObject>, ApiResource) {
        let ar = t.api_resource();
        let api = match namespace.filter(|_| t.namespaced()) {
            Some(ns) => Api::namespaced_with(self.client.clone(), ns, &ar),
            None => Api::all_with(self.client.clone(), &ar),
        };
        (api, ar)
    }

    /// One object; `Ok(None)` when it does not exist.
    pub async fn get(
        &self,
        t: &(dyn Served + Sync),
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Option<J>, KubeError> {
        let (api, ar) = self.api(t, namespace);
        let found = api.get_opt(name).await?;
        Ok(found.map(|o| to_json(&o, &ar)))
    }

    /// Objects of a type (`namespace: None` = all namespaces), filtered by a label selector.
    pub async fn list(
        &self,
        t: &(dyn Served + Sync),
        namespace: Option<&str>,
        selector: Option<&str>,
    ) -> Result<Vec<J>, KubeError> {
        let (api, ar) = self.api(t, namespace);
        let mut lp = ListParams::default();
        if let Some(s) = selector {
            lp = lp.labels(s);
        }
        let list = api.list(&lp).await?;
        Ok(list.items.iter().map(|o| to_json(o, &ar)).collect())
    }

    /// Sends an RFC 7386 merge patch as [`FIELD_MANAGER`] (`dry_run`: `dryRun=All`). The
    /// precondition is the caller's: [`crate::ops::live`] puts the resourceVersion it read in.
    pub async fn merge_patch(
        &self,
        t: &(dyn Served + Sync),
        namespace: Option<&str>,
        name: &str,
        patch: &J,
        dry_run: bool,
    ) -> Result<J, KubeError> {
        let (api, ar) = self.api(t, namespace);
        let pp = PatchParams {
            field_manager: Some(FIELD_MANAGER.to_string()),
            dry_run,
            ..PatchParams::default()
        };
        let o = api.patch(name, &pp, &Patch::Merge(patch)).await?;
        Ok(to_json(&o, &ar))
    }

    /// Namespace names (shell completion of `-n`).
    pub async fn list_namespaces(&self) -> Result<Vec<String>, KubeError> {
        let ar = ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("", "v1", "Namespace"),
            "namespaces",
        );
        let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &ar);
        let list = api.list(&ListParams::default()).await?;
        Ok(list
            .items
            .into_iter()
            .filter_map(|o| o.metadata.name)
            .collect())
    }
}

/// The object as JSON with apiVersion and kind filled in (list items may omit them).
fn to_json(o: &DynamicObject, ar: &ApiResource) -> J {
    let mut j = serde_json::to_value(o).unwrap_or(J::Null);
    if let Some(m) = j.as_object_mut() {
        m.insert("apiVersion".into(), J::from(ar.api_version.clone()));
        m.insert("kind".into(), J::from(ar.kind.clone()));
    }
    j
}
