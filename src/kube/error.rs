//! The one error type of control-plane access, for reads (the live source) and writes (the
//! suspend/resume writer) alike.
//!
//! Messages name the kubeconfig, context and server only: a credential never reaches one.

use std::path::PathBuf;
use std::sync::Arc;

use ::kube::config::KubeconfigError;

use super::incluster::InClusterError;
use super::tls::{PinError, TlsSetupError};

/// A failure talking to the control plane. Cheap to clone (the causes are shared), so one
/// failure can be reported per policy it hit.
#[derive(Clone, Debug, thiserror::Error)]
pub enum KubeError {
    /// A kubeconfig file could not be read.
    #[error("cannot read kubeconfig {}: {source}", path.display())]
    ReadKubeconfig {
        path: PathBuf,
        #[source]
        source: Arc<std::io::Error>,
    },
    /// A kubeconfig file is not YAML: the place and the parser's description, never its text
    /// (a line of context could hold a token or a key).
    #[error("kubeconfig {}: invalid YAML at line {line}, column {column}: {what}", path.display())]
    KubeconfigSyntax {
        path: PathBuf,
        line: usize,
        column: usize,
        what: String,
    },
    /// A kubeconfig file is YAML but not a kubeconfig (the serde message may quote a value).
    #[error("kubeconfig {}: not a kubeconfig (a field has the wrong type or shape)", path.display())]
    KubeconfigShape { path: PathBuf },
    /// Any other problem with one kubeconfig file (merging a KUBECONFIG list, say).
    #[error("kubeconfig {}: {source}", path.display())]
    KubeconfigFile {
        path: PathBuf,
        #[source]
        source: Arc<KubeconfigError>,
    },
    /// No kubeconfig exists and the in-cluster configuration is not there either.
    #[error(
        "no kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config), and not in a pod: {source}"
    )]
    NoKubeconfig {
        #[source]
        source: Arc<InClusterError>,
    },
    /// `--context` names no context; the ones there are listed.
    #[error(
        "context \"{context}\" does not exist in the kubeconfig; its contexts: {}",
        list_or_none(contexts)
    )]
    UnknownContext {
        context: String,
        contexts: Vec<String>,
    },
    /// The kubeconfig was read but does not make a usable configuration.
    #[error("kubeconfig: {source}")]
    Kubeconfig {
        #[source]
        source: Arc<KubeconfigError>,
    },
    /// The certificate verifier could not be built from the configured CA bundle.
    #[error("kubeconfig: {source}")]
    Tls {
        #[source]
        source: Arc<TlsSetupError>,
    },
    /// `tls-server-name` is neither a DNS name nor an IP address.
    #[error("kubeconfig: tls-server-name {name:?} is not a DNS name or IP address")]
    TlsServerName { name: String },
    /// `proxy-url` is set; this build has no proxy support (the URL may hold a password, so it
    /// is not quoted).
    #[error("kubeconfig: proxy-url is not supported by kubectl-karmada-policy; reach the server directly")]
    ProxyUnsupported,
    /// The HTTP client could not be built from the configuration.
    #[error("client: {source}")]
    Client {
        #[source]
        source: Arc<::kube::Error>,
    },
    /// A bearer token that cannot go into an HTTP header (the HTTP stack panicked on it).
    #[error("the token of user \"{user}\" in the kubeconfig contains a newline or control character; it cannot be sent (is it pasted from a file with line breaks?)")]
    BadToken { user: String },
    /// The exec credential plugin exited with a failure: its stderr only, as kubectl streams
    /// it (its stdout is the credential channel).
    #[error(
        "the exec credential plugin failed ({status}){}",
        stderr_suffix(stderr)
    )]
    ExecFailed { status: String, stderr: String },
    /// The exec credential plugin's output is not an ExecCredential; it is not quoted.
    #[error("the exec credential plugin's output is not an ExecCredential (not shown: it carries the credential)")]
    ExecOutput,
    #[error("cannot run the exec credential plugin: {source}")]
    ExecStart {
        #[source]
        source: Arc<std::io::Error>,
    },
    #[error("cannot read the token file {}: {source}", path.display())]
    TokenFile {
        path: PathBuf,
        #[source]
        source: Arc<std::io::Error>,
    },
    /// The other authentication failures name a step, never a credential.
    #[error("authentication: {source}")]
    Auth {
        #[source]
        source: Arc<::kube::client::AuthError>,
    },
    /// The server answered with a failure status, shown as kubectl shows the status: its
    /// message and reason.
    #[error("{message} ({})", reason_or_code(reason, *code))]
    Api {
        code: u16,
        reason: String,
        message: String,
    },
    /// A write was answered with something that is not the object written, whatever the
    /// status code: not a success.
    #[error("the server answered the PATCH of {kind} {name} with something that is not that policy; the change may or may not have been applied, read the policy back to see")]
    UnexpectedAnswer { kind: String, name: String },
    /// Network, TLS or timeout: no answer from the server, in kubectl's words naming the
    /// server (see `transport_message`).
    #[error("{message}")]
    Transport {
        message: String,
        #[source]
        source: Arc<::kube::Error>,
    },
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

/// What kind of failure, for exit codes and for which reads may degrade.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Kubeconfig missing or unusable.
    Config,
    /// Network, TLS or timeout.
    Transport,
    /// 401/403.
    Auth,
    NotFound,
    /// 409 Conflict on update.
    Conflict,
    /// The server failed (5xx).
    Server,
    /// Any other API answer (4xx).
    Api,
}

fn reason_or_code(reason: &str, code: u16) -> String {
    if reason.is_empty() {
        format!("HTTP {code}")
    } else {
        reason.to_string()
    }
}

impl KubeError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            KubeError::ReadKubeconfig { .. }
            | KubeError::KubeconfigSyntax { .. }
            | KubeError::KubeconfigShape { .. }
            | KubeError::KubeconfigFile { .. }
            | KubeError::NoKubeconfig { .. }
            | KubeError::UnknownContext { .. }
            | KubeError::Kubeconfig { .. }
            | KubeError::Tls { .. }
            | KubeError::TlsServerName { .. }
            | KubeError::ProxyUnsupported
            | KubeError::Client { .. } => ErrorKind::Config,
            KubeError::BadToken { .. }
            | KubeError::ExecFailed { .. }
            | KubeError::ExecOutput
            | KubeError::ExecStart { .. }
            | KubeError::TokenFile { .. }
            | KubeError::Auth { .. } => ErrorKind::Auth,
            KubeError::UnexpectedAnswer { .. } => ErrorKind::Server,
            KubeError::Transport { .. } => ErrorKind::Transport,
            KubeError::Api { code, reason, .. } => match code {
                401 | 403 => ErrorKind::Auth,
                404 => ErrorKind::NotFound,
                409 if reason == "Conflict" => ErrorKind::Conflict,
                500.. => ErrorKind::Server,
                _ => ErrorKind::Api,
            },
        }
    }

    /// No answer at all (refused, unreachable, TLS, timeout), as opposed to an answer that did
    /// not parse: what ends a command before its first read rather than degrading it.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, KubeError::Transport { source, .. }
            if !matches!(**source, ::kube::Error::SerdeError(_)))
    }

    /// The object changed between our read and our write (the resourceVersion precondition
    /// failed): re-read and recompute.
    pub fn is_conflict(&self) -> bool {
        self.kind() == ErrorKind::Conflict
    }

    /// The server's own words without the reason (an API failure), else the whole message: what
    /// the live source's notes quote.
    pub fn server_message(&self) -> String {
        match self {
            KubeError::Api { message, .. } => message.clone(),
            other => other.to_string(),
        }
    }
}

impl KubeError {
    /// Classifies a client error of a request to `server`: API statuses as they came,
    /// authentication failures without what they carry, transport failures in kubectl's words.
    pub fn from_kube(e: ::kube::Error, server: &str) -> KubeError {
        match e {
            ::kube::Error::Api(status) => KubeError::Api {
                code: status.code,
                reason: status.reason.clone(),
                message: status.message.clone(),
            },
            ::kube::Error::Auth(a) => KubeError::from_auth(a),
            other => KubeError::Transport {
                message: transport_message(&other, server),
                source: Arc::new(other),
            },
        }
    }

    /// An authentication failure without what it carries: an exec plugin's stdout is the
    /// credential channel (a failed plugin shows its stderr only), and its malformed output is
    /// not quoted.
    pub fn from_auth(e: ::kube::client::AuthError) -> KubeError {
        use ::kube::client::AuthError as A;
        match e {
            A::AuthExecRun { out, .. } => KubeError::ExecFailed {
                status: out.status.to_string(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            },
            A::AuthExecParse(_) => KubeError::ExecOutput,
            A::AuthExecStart(io) => KubeError::ExecStart {
                source: Arc::new(io),
            },
            A::ReadTokenFile(io, path) => KubeError::TokenFile {
                path,
                source: Arc::new(io),
            },
            other => KubeError::Auth {
                source: Arc::new(other),
            },
        }
    }
}

/// A transport failure in kubectl's terms, naming the server: refused, timeout, or why TLS
/// failed; else the whole cause chain (the top error alone only says "client error").
fn transport_message(e: &::kube::Error, server: &str) -> String {
    let mut chain: Vec<String> = Vec::new();
    let mut refused = false;
    let mut timed_out = false;
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = next {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            refused |= io.kind() == std::io::ErrorKind::ConnectionRefused;
            timed_out |= io.kind() == std::io::ErrorKind::TimedOut;
        }
        let text = err.to_string();
        if !chain.iter().any(|c| c.contains(&text)) {
            chain.push(text);
        }
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
        return format!("timeout talking to the server {host}: the request timed out (no answer within --request-timeout)");
    }
    if let Some(why) = tls_reason(&text) {
        return format!("TLS with the server {host} failed: {why}");
    }
    format!("cannot reach the server {host}: {text}")
}

/// Why TLS failed, from the verifier's error text (lower case), in Go's x509 words where it has
/// them.
fn tls_reason(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    // rustls shows a verifier's own error by its Debug name (`Other(OtherError(NotPinned))`).
    if let Some(pin) = PinError::ALL.iter().find(|p| {
        lower.contains(&p.to_string().to_ascii_lowercase())
            || lower.contains(&format!("othererror({p:?})").to_ascii_lowercase())
    }) {
        return Some(pin.to_string());
    }
    const REASONS: [(&str, &str); 7] = [
        ("causedasendentity", "the server's certificate is a CA certificate (CA:TRUE) used as its serving certificate"),
        ("unknownissuer", "x509: certificate signed by unknown authority (certificate-authority or certificate-authority-data in the kubeconfig)"),
        ("not valid for name", "x509: certificate is not valid for this server name"),
        ("notvalidforname", "x509: certificate is not valid for this server name"),
        ("expired", "x509: certificate has expired or is not yet valid"),
        ("not valid yet", "x509: certificate has expired or is not yet valid"),
        ("notvalidyet", "x509: certificate has expired or is not yet valid"),
    ];
    let (needle, why) = REASONS.iter().find(|(needle, _)| lower.contains(needle))?;
    // rustls says which names the certificate holds: keep that part.
    const VALID_FOR: &str = "certificate is only valid for ";
    let detail = lower
        .find(VALID_FOR)
        .filter(|_| needle.contains("name"))
        .map(|at| {
            let names = &text[at + VALID_FOR.len()..];
            format!(
                " (it is valid for {})",
                names.split(": ").next().unwrap_or(names).trim()
            )
        });
    Some(format!("{why}{}", detail.unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: u16, reason: &str) -> KubeError {
        KubeError::Api {
            code,
            reason: reason.into(),
            message: "m".into(),
        }
    }

    #[test]
    fn statuses_classify_as_kubectl_reports_them() {
        assert!(api(409, "Conflict").is_conflict());
        assert!(!api(409, "AlreadyExists").is_conflict());
        assert_eq!(api(403, "Forbidden").kind(), ErrorKind::Auth);
        assert_eq!(api(404, "NotFound").kind(), ErrorKind::NotFound);
        assert_eq!(api(503, "").kind(), ErrorKind::Server);
        assert_eq!(api(422, "Invalid").kind(), ErrorKind::Api);
        assert_eq!(api(403, "Forbidden").to_string(), "m (Forbidden)");
        assert_eq!(api(500, "").to_string(), "m (HTTP 500)");
        assert_eq!(api(403, "Forbidden").server_message(), "m");
    }

    #[test]
    fn auth_and_config_failures_say_what_without_quoting() {
        let e = KubeError::ExecFailed {
            status: "exit status: 1".into(),
            stderr: "login expired".into(),
        };
        assert_eq!(e.kind(), ErrorKind::Auth);
        assert_eq!(
            e.to_string(),
            "the exec credential plugin failed (exit status: 1): login expired"
        );
        assert_eq!(
            KubeError::BadToken { user: "u".into() }.kind(),
            ErrorKind::Auth
        );
        let c = KubeError::UnknownContext {
            context: "x".into(),
            contexts: vec!["a".into(), "b".into()],
        };
        assert!(c.to_string().ends_with("its contexts: a, b"), "{c}");
        assert_eq!(c.kind(), ErrorKind::Config);
        assert_eq!(
            tls_reason("invalid peer certificate: causedasendentity"),
            tls_reason("caUsedAsEndEntity".to_ascii_lowercase().as_str())
        );
        assert!(tls_reason("unknownissuer").is_some());
        let pinned = format!("invalid peer certificate: {}", PinError::NotPinned);
        assert_eq!(tls_reason(&pinned), Some(PinError::NotPinned.to_string()));
        let debug = "invalid peer certificate: Other(OtherError(NotPinned))";
        assert_eq!(tls_reason(debug), Some(PinError::NotPinned.to_string()));
        let name = tls_reason("invalid peer certificate: certificate not valid for name \"127.0.0.1\"; certificate is only valid for DnsName(\"other.example\")").unwrap();
        assert!(
            name.ends_with("(it is valid for DnsName(\"other.example\"))"),
            "{name}"
        );
    }
}
