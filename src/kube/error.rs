//! The one error type of control-plane access, for reads (the live source) and writes (the
//! suspend/resume writer) alike.
//!
//! Messages name the kubeconfig, context and server only: a credential never reaches one.

use std::path::PathBuf;
use std::sync::Arc;

use ::kube::config::KubeconfigError;

/// A failure talking to the control plane. Cheap to clone (the causes are shared), so one
/// failure can be reported per policy it hit.
#[derive(Clone, Debug, thiserror::Error)]
pub enum KubeError {
    /// The kubeconfig named by `--kubeconfig` could not be read.
    #[error("cannot read kubeconfig {}: {source}", path.display())]
    ReadKubeconfig {
        path: PathBuf,
        #[source]
        source: Arc<KubeconfigError>,
    },
    /// Neither `KUBECONFIG` nor `~/.kube/config` could be read.
    #[error("cannot read kubeconfig (KUBECONFIG or ~/.kube/config): {source}")]
    NoKubeconfig {
        #[source]
        source: Arc<KubeconfigError>,
    },
    #[error("context \"{context}\" does not exist in the kubeconfig")]
    UnknownContext { context: String },
    /// The kubeconfig was read but does not make a usable configuration.
    #[error("kubeconfig: {source}")]
    Kubeconfig {
        #[source]
        source: Arc<KubeconfigError>,
    },
    /// The HTTP client could not be built from the configuration.
    #[error("client: {source}")]
    Client {
        #[source]
        source: Arc<::kube::Error>,
    },
    /// The server answered with a failure status, shown as kubectl shows the status: its
    /// message and reason.
    #[error("{message} ({})", reason_or_code(reason, *code))]
    Api {
        code: u16,
        reason: String,
        message: String,
    },
    /// Network, TLS or timeout: no answer from the server. `message` is the whole cause chain
    /// (the top error alone only says "client error").
    #[error("{message}")]
    Transport {
        message: String,
        #[source]
        source: Arc<::kube::Error>,
    },
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
            | KubeError::NoKubeconfig { .. }
            | KubeError::UnknownContext { .. }
            | KubeError::Kubeconfig { .. }
            | KubeError::Client { .. } => ErrorKind::Config,
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

impl From<::kube::Error> for KubeError {
    fn from(e: ::kube::Error) -> KubeError {
        match e {
            ::kube::Error::Api(status) => KubeError::Api {
                code: status.code,
                reason: status.reason.clone(),
                message: status.message.clone(),
            },
            other => {
                // Transport errors never carry credentials; the causes say what failed (a
                // timeout, a refused connection).
                let mut message = other.to_string();
                let mut cause = std::error::Error::source(&other);
                while let Some(c) = cause {
                    let text = c.to_string();
                    if !message.contains(&text) {
                        message.push_str(": ");
                        message.push_str(&text);
                    }
                    cause = c.source();
                }
                KubeError::Transport {
                    message,
                    source: Arc::new(other),
                }
            }
        }
    }
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
}
