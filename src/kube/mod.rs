//! The only code that speaks HTTP to the Karmada control plane: kubeconfig handling as kubectl
//! does it, typed requests (get, list, merge patch), discovery, and the one error type
//! [`KubeError`]. What the objects mean is decided above: [`crate::source::live`] reads,
//! [`crate::ops::live`] writes.
//!
//! Credentials are never printed, logged or written: errors name the kubeconfig, context and
//! server only.

pub mod client;
pub mod discovery;
pub mod error;
pub mod incluster;
pub mod kinds;
pub mod scope;
pub mod tls;
pub mod trace;

use std::path::{Path, PathBuf};
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

/// What the kubeconfig's YAML problem is, without any of its text: file, line, column and what
/// is wrong (a line of context could hold a token or a key).
fn kubeconfig_error(path: &Path, e: ::kube::config::KubeconfigError) -> KubeError {
    use ::kube::config::KubeconfigError as K;
    let path = path.to_path_buf();
    match e {
        K::ReadConfig(io, _) => KubeError::ReadKubeconfig {
            path,
            source: Arc::new(io),
        },
        K::Parse(_) => match std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| yaml_error_at(&t))
        {
            Some((line, column, what)) => KubeError::KubeconfigSyntax {
                path,
                line,
                column,
                what,
            },
            None => KubeError::KubeconfigShape { path },
        },
        other => KubeError::KubeconfigFile {
            path,
            source: Arc::new(other),
        },
    }
}

/// The first YAML syntax error of `text`: 1-based line and column and the parser's description
/// of it (which names the problem, never the text).
fn yaml_error_at(text: &str) -> Option<(usize, usize, String)> {
    for event in saphyr_parser::Parser::new_from_str(text) {
        if let Err(e) = event {
            let m = e.marker();
            return Some((m.line(), m.col() + 1, e.info().to_string()));
        }
    }
    None
}

/// Reads one kubeconfig file; its errors never quote it.
fn read_kubeconfig(path: &Path) -> Result<Kubeconfig, KubeError> {
    Kubeconfig::read_from(path).map_err(|e| kubeconfig_error(path, e))
}

/// The kubeconfig kubectl would read: `--kubeconfig`, else the `KUBECONFIG` list (entries that
/// do not exist are skipped, as kubectl skips them), else `~/.kube/config`. `Ok(None)`: none of
/// them exists.
fn find_kubeconfig(explicit: Option<&Path>) -> Result<Option<Kubeconfig>, KubeError> {
    if let Some(p) = explicit {
        return read_kubeconfig(p).map(Some);
    }
    if let Some(list) = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
        let mut merged: Option<Kubeconfig> = None;
        for p in std::env::split_paths(&list).filter(|p| p.exists()) {
            let next = read_kubeconfig(&p)?;
            merged = Some(match merged {
                None => next,
                Some(m) => m.merge(next).map_err(|e| kubeconfig_error(&p, e))?,
            });
        }
        return Ok(merged);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match home.map(|h| h.join(".kube/config")).filter(|p| p.exists()) {
        Some(p) => read_kubeconfig(&p).map(Some),
        None => Ok(None),
    }
}

/// `kubectl-karmada-policy/VERSION (os/arch)`, with Go's names as kubectl's user agent has them,
/// so audit logs tell the tool apart.
pub fn user_agent() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    format!(
        "kubectl-karmada-policy/{} ({}/{arch})",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::OS
    )
}

/// A bearer token must fit in an HTTP header: a newline or control character in it made the
/// HTTP stack panic.
fn check_token(config: &::kube::Config, user: &str) -> Result<(), KubeError> {
    use secrecy::ExposeSecret;
    let bad = config.auth_info.token.as_ref().is_some_and(|t| {
        t.expose_secret()
            .trim_end_matches('\n')
            .chars()
            .any(char::is_control)
    });
    if bad {
        return Err(KubeError::BadToken {
            user: user.to_string(),
        });
    }
    Ok(())
}

/// Loads the kubeconfig as kubectl does and connects (no request is made yet). Without any
/// kubeconfig, the in-cluster configuration of a pod.
pub async fn connect(opts: &ConnectOptions) -> Result<Conn, KubeError> {
    let Some(kubeconfig) = find_kubeconfig(opts.kubeconfig.as_deref())? else {
        return connect_in_cluster(opts);
    };
    let context_name = opts
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
        .unwrap_or_default();
    if let Some(c) = &opts.context {
        if !kubeconfig.contexts.iter().any(|x| &x.name == c) {
            return Err(KubeError::UnknownContext {
                context: c.clone(),
                contexts: kubeconfig.contexts.iter().map(|x| x.name.clone()).collect(),
            });
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
    let config = ::kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| KubeError::Kubeconfig {
            source: Arc::new(e),
        })?;
    check_token(&config, &user)?;
    client_for(config, opts, user)
}

/// The service account's configuration when no kubeconfig exists, as kubectl and client-go use
/// it in a pod (so `lint --live` runs in a CronJob).
fn connect_in_cluster(opts: &ConnectOptions) -> Result<Conn, KubeError> {
    let config = incluster::config().map_err(|e| KubeError::NoKubeconfig {
        source: Arc::new(e),
    })?;
    client_for(config, opts, "serviceaccount".into())
}

/// The client for `config` with our settings: timeouts from --request-timeout, the user agent,
/// and our own HTTP stack ([`client::build`]: the `-v` trace, kubectl's certificate pinning, no
/// retry layer of the client library); our writes retry conflicts within their own budget.
fn client_for(
    mut config: ::kube::Config,
    opts: &ConnectOptions,
    user: String,
) -> Result<Conn, KubeError> {
    if let Some(t) = opts.request_timeout.filter(|t| !t.is_zero()) {
        config.connect_timeout = Some(t);
        config.read_timeout = Some(t);
        config.write_timeout = Some(t);
    }
    config.default_retry = false;
    if let Ok(v) = http::HeaderValue::from_str(&user_agent()) {
        config.headers.push((http::header::USER_AGENT, v));
    }
    let namespace = config.default_namespace.clone();
    // A server URL may hold user information: messages show it masked.
    let server = trace::shown_url(&config.cluster_url);
    // Building the client runs an exec credential plugin: its failure must not be quoted.
    let client = client::build(&config)?;
    Ok(Conn {
        client,
        namespace,
        user,
        server,
    })
}

/// The context names of the kubeconfig kubectl would read (none when it cannot be read).
pub fn context_names(kubeconfig: Option<&Path>) -> Vec<String> {
    find_kubeconfig(kubeconfig)
        .ok()
        .flatten()
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
    /// A client error of a request to this server, classified.
    fn error(&self, e: ::kube::Error) -> KubeError {
        KubeError::from_kube(e, &self.server)
    }

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
        let found = api.get_opt(name).await.map_err(|e| self.error(e))?;
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
        let list = api.list(&lp).await.map_err(|e| self.error(e))?;
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
        let o = api
            .patch(name, &pp, &Patch::Merge(patch))
            .await
            .map_err(|e| self.error(e))?;
        Ok(to_json(&o, &ar))
    }

    /// Who the server says these credentials are: the username of a SelfSubjectReview
    /// (authentication.k8s.io/v1, GA in Kubernetes 1.28; what `kubectl auth whoami` asks).
    pub async fn whoami(&self) -> Result<String, KubeError> {
        let body = serde_json::json!({
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "SelfSubjectReview",
        });
        let request = http::Request::post("/apis/authentication.k8s.io/v1/selfsubjectreviews")
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(serde_json::to_vec(&body).unwrap_or_default())
            .map_err(|e| self.error(::kube::Error::HttpError(e)))?;
        let review: J = self
            .client
            .request(request)
            .await
            .map_err(|e| self.error(e))?;
        Ok(review["status"]["userInfo"]["username"]
            .as_str()
            .unwrap_or_default()
            .to_string())
    }

    /// Namespace names (shell completion of `-n`).
    pub async fn list_namespaces(&self) -> Result<Vec<String>, KubeError> {
        let ar = ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("", "v1", "Namespace"),
            "namespaces",
        );
        let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &ar);
        let list = api
            .list(&ListParams::default())
            .await
            .map_err(|e| self.error(e))?;
        Ok(list
            .items
            .into_iter()
            .filter_map(|o| o.metadata.name)
            .collect())
    }
}

/// The object as JSON with apiVersion and kind filled in where missing (list items may omit
/// them). What the server did say is kept, so a writer can tell a wrong answer.
fn to_json(o: &DynamicObject, ar: &ApiResource) -> J {
    let mut j = serde_json::to_value(o).unwrap_or(J::Null);
    if let Some(m) = j.as_object_mut() {
        m.entry("apiVersion")
            .or_insert_with(|| J::from(ar.api_version.clone()));
        m.entry("kind").or_insert_with(|| J::from(ar.kind.clone()));
    }
    j
}
