//! The in-cluster configuration of a pod, as client-go builds it: the API server from
//! `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT`, the service account's token (re-read
//! as it rotates), CA bundle and namespace from its directory.
//!
//! The directory is `/var/run/secrets/kubernetes.io/serviceaccount`. For tests only,
//! `KARMADA_POLICY_SERVICEACCOUNT_DIR` names another one (the client library hard-codes the
//! path, so the in-cluster path could not be tested without a pod).

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a pod's service account is mounted.
pub const SERVICEACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// Test-only override of [`SERVICEACCOUNT_DIR`].
pub const SERVICEACCOUNT_DIR_ENV: &str = "KARMADA_POLICY_SERVICEACCOUNT_DIR";

/// Why there is no in-cluster configuration; never quotes a file's content.
#[derive(Clone, Debug, thiserror::Error)]
pub enum InClusterError {
    #[error("{0} is not set")]
    MissingEnv(&'static str),
    #[error("KUBERNETES_SERVICE_PORT is not a port: {0:?}")]
    BadPort(String),
    #[error("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT do not make a URL")]
    BadUrl,
    #[error("cannot read the service account's {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: Arc<std::io::Error>,
    },
    #[error("the service account's {} holds no PEM certificate", path.display())]
    NoCertificate { path: PathBuf },
}

/// The service account's directory: [`SERVICEACCOUNT_DIR`], or the test override.
fn serviceaccount_dir() -> PathBuf {
    std::env::var_os(SERVICEACCOUNT_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(SERVICEACCOUNT_DIR), PathBuf::from)
}

/// `https://host:port` as client-go joins them (an IPv6 address in brackets).
fn server_url() -> Result<http::Uri, InClusterError> {
    let env = |name: &'static str| {
        std::env::var(name)
            .ok()
            .filter(|v| !v.is_empty())
            .ok_or(InClusterError::MissingEnv(name))
    };
    let host = env("KUBERNETES_SERVICE_HOST")?;
    let port = env("KUBERNETES_SERVICE_PORT")?;
    let port: u16 = port.parse().map_err(|_| InClusterError::BadPort(port))?;
    let host = match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(ip)) => format!("[{ip}]"),
        _ => host,
    };
    format!("https://{host}:{port}")
        .parse()
        .map_err(|_| InClusterError::BadUrl)
}

fn read(path: &Path) -> Result<Vec<u8>, InClusterError> {
    std::fs::read(path).map_err(|e| InClusterError::Read {
        path: path.to_path_buf(),
        source: Arc::new(e),
    })
}

/// The DER certificates of a PEM bundle.
fn pem_certificates(pem: &[u8]) -> Vec<Vec<u8>> {
    use rustls::pki_types::pem::PemObject;
    rustls::pki_types::CertificateDer::pem_slice_iter(pem)
        .filter_map(Result::ok)
        .map(|c| c.to_vec())
        .collect()
}

/// The pod's configuration. The token is named by path (the client re-reads it as the kubelet
/// rotates it), checked readable here so a missing mount is said now.
pub fn config() -> Result<::kube::Config, InClusterError> {
    let url = server_url()?;
    let dir = serviceaccount_dir();
    let token = dir.join("token");
    read(&token)?;
    let ca = dir.join("ca.crt");
    let roots = pem_certificates(&read(&ca)?);
    if roots.is_empty() {
        return Err(InClusterError::NoCertificate { path: ca });
    }
    // client-go falls back to `default` when the namespace file is absent.
    let namespace = std::fs::read_to_string(dir.join("namespace"))
        .ok()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".to_string());
    let mut config = ::kube::Config::new(url);
    config.default_namespace = namespace;
    config.root_cert = Some(roots);
    config.auth_info.token_file = Some(token.to_string_lossy().into_owned());
    Ok(config)
}
