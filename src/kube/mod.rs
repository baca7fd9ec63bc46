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

fn classify(e: ::kube::Error, server: &str) -> ClusterError {
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
        ::kube::Error::Auth(a) => ClusterError::new(ErrorKind::Auth, auth_message(&a)),
        other => ClusterError::new(ErrorKind::Transport, transport_message(&other, server)),
    }
}

/// An authentication failure without what it carries: an exec plugin's stdout is the
/// credential channel (a failed plugin shows its stderr only, as kubectl streams it), and its
/// malformed output is not quoted.
fn auth_message(e: &::kube::client::AuthError) -> String {
    use ::kube::client::AuthError as A;
    match e {
        A::AuthExecRun { out, .. } => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stderr = stderr.trim();
            if stderr.is_empty() {
                format!("the exec credential plugin failed ({})", out.status)
            } else {
                format!(
                    "the exec credential plugin failed ({}): {stderr}",
                    out.status
                )
            }
        }
        A::AuthExecParse(_) => "the exec credential plugin's output is not an ExecCredential (not shown: it carries the credential)".into(),
        A::AuthExecStart(io) => format!("cannot run the exec credential plugin: {io}"),
        A::ReadTokenFile(io, path) => {
            format!("cannot read the token file {}: {io}", path.display())
        }
        // The other variants name a step, never a credential.
        other => format!("authentication: {other}"),
    }
}

/// A transport failure in kubectl's terms, naming the server: refused, timeout, or why TLS
/// failed.
fn transport_message(e: &::kube::Error, server: &str) -> String {
    let mut chain = Vec::new();
    let mut refused = false;
    let mut timed_out = false;
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = next {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            refused |= io.kind() == std::io::ErrorKind::ConnectionRefused;
            timed_out |= io.kind() == std::io::ErrorKind::TimedOut;
        }
        chain.push(err.to_string());
        next = err.source();
    }
    let text = chain.join(": ");
    let lower = text.to_ascii_lowercase();
    let host = server
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_end_matches('/');
    if refused {
        return format!(
            "the connection to the server {host} was refused - did you specify the right host or port?"
        );
    }
    if timed_out || lower.contains("timed out") || lower.contains("elapsed") {
        return format!("timeout talking to the server {host}: no answer within --request-timeout");
    }
    let tls = [
        ("caUsedAsEndEntity", "the server's certificate is a CA certificate (CA:TRUE) used as its serving certificate, which is refused even when it is the pinned certificate-authority-data (kubectl's Go TLS accepts it); give the server a serving certificate signed by that CA"),
        ("UnknownIssuer", "x509: certificate signed by unknown authority (certificate-authority or certificate-authority-data in the kubeconfig)"),
        ("NotValidForName", "x509: certificate is not valid for this server name"),
        ("Expired", "x509: certificate has expired or is not yet valid"),
        ("NotValidYet", "x509: certificate has expired or is not yet valid"),
    ];
    for (needle, why) in tls {
        if text
            .to_ascii_lowercase()
            .contains(&needle.to_ascii_lowercase())
        {
            return format!("TLS with the server {host} failed: {why}");
        }
    }
    format!("cannot reach the server {host}: {text}")
}

/// What the kubeconfig's YAML problem is, without any of its text: file, line, column and what
/// is wrong (a line of context could hold a token or a key).
fn kubeconfig_error(path: &std::path::Path, e: &::kube::config::KubeconfigError) -> ClusterError {
    use ::kube::config::KubeconfigError as K;
    let message = match e {
        K::ReadConfig(io, _) => format!("cannot read kubeconfig {}: {io}", path.display()),
        K::Parse(_) => match std::fs::read_to_string(path)
            .ok()
            .and_then(|t| yaml_error_at(&t))
        {
            Some((line, col, what)) => format!(
                "kubeconfig {}: invalid YAML at line {line}, column {col}: {what}",
                path.display()
            ),
            None => format!(
                "kubeconfig {}: not a kubeconfig (a field has the wrong type or shape)",
                path.display()
            ),
        },
        other => format!("kubeconfig {}: {other}", path.display()),
    };
    ClusterError::new(ErrorKind::Config, message)
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
fn read_kubeconfig(path: &std::path::Path) -> Result<Kubeconfig, ClusterError> {
    Kubeconfig::read_from(path).map_err(|e| kubeconfig_error(path, &e))
}

/// The kubeconfig kubectl would read: `--kubeconfig`, else the `KUBECONFIG` list (entries that
/// do not exist are skipped, as kubectl skips them), else `~/.kube/config`. `Ok(None)`: none of
/// them exists.
fn find_kubeconfig(explicit: Option<&std::path::Path>) -> Result<Option<Kubeconfig>, ClusterError> {
    if let Some(p) = explicit {
        return read_kubeconfig(p).map(Some);
    }
    if let Some(list) = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
        let mut merged: Option<Kubeconfig> = None;
        for p in std::env::split_paths(&list).filter(|p| p.exists()) {
            let next = read_kubeconfig(&p)?;
            merged = Some(match merged {
                None => next,
                Some(m) => m.merge(next).map_err(|e| kubeconfig_error(&p, &e))?,
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
fn check_token(config: &::kube::Config, user: &str) -> Result<(), ClusterError> {
    use secrecy::ExposeSecret;
    let bad = config.auth_info.token.as_ref().is_some_and(|t| {
        t.expose_secret()
            .trim_end_matches('\n')
            .chars()
            .any(char::is_control)
    });
    if bad {
        return Err(ClusterError::new(
            ErrorKind::Auth,
            format!("the token of user \"{user}\" in the kubeconfig contains a newline or control character; it cannot be sent (is it pasted from a file with line breaks?)"),
        ));
    }
    Ok(())
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
    let Some(kubeconfig) = find_kubeconfig(opts.kubeconfig.as_deref())? else {
        return connect_in_cluster(opts).await;
    };
    let context_name = opts
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
        .unwrap_or_default();
    if let Some(c) = &opts.context {
        if !kubeconfig.contexts.iter().any(|x| &x.name == c) {
            let names: Vec<&str> = kubeconfig
                .contexts
                .iter()
                .map(|x| x.name.as_str())
                .collect();
            return Err(ClusterError::new(
                ErrorKind::Config,
                format!(
                    "context \"{c}\" does not exist in the kubeconfig; its contexts: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
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
    let config = ::kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| ClusterError::new(ErrorKind::Config, format!("kubeconfig: {e}")))?;
    check_token(&config, &user)?;
    client_for(config, opts, user)
}

/// The service account's configuration when no kubeconfig exists, as kubectl and client-go use
/// it in a pod (so `lint --cluster` runs in a CronJob).
async fn connect_in_cluster(opts: &ConnectOptions) -> Result<Conn, ClusterError> {
    let config = ::kube::Config::incluster().map_err(|e| {
        ClusterError::new(
            ErrorKind::Config,
            format!(
                "no kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config), and not in a pod: {e}"
            ),
        )
    })?;
    client_for(config, opts, "serviceaccount".into())
}

/// The client for `config` with our settings: timeouts from --request-timeout, the user agent,
/// and no retry layer of the client library (it retried 503s for minutes whatever the
/// timeout); our writes retry conflicts within their own budget.
fn client_for(
    mut config: ::kube::Config,
    opts: &ConnectOptions,
    user: String,
) -> Result<Conn, ClusterError> {
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
    let server = config.cluster_url.to_string();
    // Building the client runs an exec credential plugin: its failure must not be quoted.
    let client = ::kube::Client::try_from(config).map_err(|e| match e {
        ::kube::Error::Auth(a) => ClusterError::new(ErrorKind::Auth, auth_message(&a)),
        other => ClusterError::new(ErrorKind::Config, format!("client: {other}")),
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
            Err(e) => Err(classify(e, &self.server)),
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
        let list = api.list(&lp).await.map_err(|e| classify(e, &self.server))?;
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
            .map_err(|e| classify(e, &self.server))?;
        check_is_policy(&o, kind, namespace, name)?;
        Ok(to_json(&o, kind))
    }

    /// Namespace names (shell completion of `-n`).
    pub async fn list_namespaces(&self) -> Result<Vec<String>, ClusterError> {
        let ar = resource("", "v1", "Namespace", "namespaces");
        let api: Api<DynamicObject> = Api::all_with(self.client.clone(), &ar);
        let list = api
            .list(&ListParams::default())
            .await
            .map_err(|e| classify(e, &self.server))?;
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
            .map_err(|e| classify(e, &self.server))?;
        Ok(list
            .items
            .iter()
            .filter_map(|o| serde_json::to_value(o).ok())
            .collect())
    }
}

/// A PATCH answer must be the policy patched: anything else (another object, a kind or name
/// that does not match) is not a success, whatever its status code.
fn check_is_policy(
    o: &DynamicObject,
    kind: PolicyKind,
    namespace: Option<&str>,
    name: &str,
) -> Result<(), ClusterError> {
    let type_ok = o
        .types
        .as_ref()
        .is_none_or(|t| t.kind == kind.as_str() && t.api_version == "policy.karmada.io/v1alpha1");
    let name_ok = o.metadata.name.as_deref() == Some(name);
    let ns_ok = match (kind, namespace) {
        (PolicyKind::PropagationPolicy, Some(ns)) => {
            o.metadata.namespace.as_deref().is_none_or(|n| n == ns)
        }
        _ => true,
    };
    if type_ok && name_ok && ns_ok {
        return Ok(());
    }
    Err(ClusterError::new(
        ErrorKind::Server,
        format!(
            "the server answered the PATCH of {} {name} with something that is not that policy; the change may or may not have been applied, read the policy back to see",
            kind.as_str()
        ),
    ))
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
