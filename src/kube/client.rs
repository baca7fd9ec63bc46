//! The HTTP stack of the client, built here rather than by the client library so that two
//! things can sit in it: the `-v` trace ([`super::trace`]) innermost, where it sees each request
//! as sent, and the certificate verifier that accepts a pinned self-signed CA:TRUE serving
//! certificate as kubectl does ([`super::tls`]). Otherwise it is the library's default stack:
//! base URL, authentication, extra headers, connect/read/write timeouts, HTTP/1.1 over rustls;
//! without the library's retry layer (it retried 503s for minutes whatever the timeout).

use std::sync::Arc;

use ::kube::client::{ClientBuilder, ConfigExt};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tower::ServiceBuilder;

use super::error::KubeError;
use super::tls::PinningVerifier;
use super::trace::TraceLayer;

/// A client error while building the stack: an exec credential plugin runs here, so its
/// failure goes through [`KubeError::from_auth`], which never quotes what the plugin printed.
fn client_error(e: ::kube::Error) -> KubeError {
    match e {
        ::kube::Error::Auth(a) => KubeError::from_auth(a),
        other => KubeError::Client {
            source: Arc::new(other),
        },
    }
}

/// rustls as the library configures it (client certificate, CA bundle or the platform's
/// roots, `insecure-skip-tls-verify`), with the pinning verifier over a configured bundle.
fn tls_config(config: &::kube::Config) -> Result<rustls::ClientConfig, KubeError> {
    let mut tls = match config.rustls_client_config() {
        Ok(tls) => tls,
        Err(e) if super::tls::is_v1_certificate(&e) => v1_client_config(config)?,
        Err(e) => return Err(client_error(e)),
    };
    if let (false, Some(bundle)) = (config.accept_invalid_certs, &config.root_cert) {
        let verifier = PinningVerifier::new(bundle).map_err(|e| KubeError::Tls {
            source: Arc::new(e),
        })?;
        tls.dangerous().set_certificate_verifier(Arc::new(verifier));
    }
    Ok(tls)
}

/// The library's configuration without the client certificate (an X.509 v1 one, which rustls
/// refuses to load), then that certificate presented as it is ([`super::tls`]).
fn v1_client_config(config: &::kube::Config) -> Result<rustls::ClientConfig, KubeError> {
    let setup = |source| KubeError::Tls {
        source: Arc::new(source),
    };
    let auth = &config.auth_info;
    let cert = read_pem(
        auth.client_certificate_data.as_deref(),
        auth.client_certificate.as_deref(),
    );
    let key_data = auth.client_key_data.as_ref().map(|k| {
        use secrecy::ExposeSecret;
        k.expose_secret().to_string()
    });
    let key = read_pem(key_data.as_deref(), auth.client_key.as_deref());
    let (Some(cert), Some(key)) = (cert, key) else {
        return Err(setup(super::tls::TlsSetupError::V1ClientCertificate {
            what: "its certificate or key file",
            why: "not readable".into(),
        }));
    };
    let mut bare = config.clone();
    bare.auth_info.client_certificate = None;
    bare.auth_info.client_certificate_data = None;
    bare.auth_info.client_key = None;
    bare.auth_info.client_key_data = None;
    let mut tls = bare.rustls_client_config().map_err(client_error)?;
    super::tls::present_client_certificate(&mut tls, &cert, &key).map_err(setup)?;
    Ok(tls)
}

/// A kubeconfig PEM field: its base64 `-data`, else the file it names.
fn read_pem(data: Option<&str>, file: Option<&str>) -> Option<Vec<u8>> {
    use base64::Engine;
    match (data, file) {
        (Some(d), _) => base64::engine::general_purpose::STANDARD
            .decode(d.trim())
            .ok(),
        (None, Some(f)) => std::fs::read(f).ok(),
        (None, None) => None,
    }
}

/// The connector: TCP, then TLS for `https` (SNI or `tls-server-name`), then the timeouts.
fn connector(
    config: &::kube::Config,
) -> Result<hyper_timeout::TimeoutConnector<hyper_rustls::HttpsConnector<HttpConnector>>, KubeError>
{
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    let mut https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls_config(config)?)
        .https_or_http();
    if let Some(name) = &config.tls_server_name {
        let name = rustls::pki_types::ServerName::try_from(name.clone()).map_err(|_| {
            KubeError::TlsServerName {
                name: name.to_string(),
            }
        })?;
        https = https.with_server_name_resolver(hyper_rustls::FixedServerNameResolver::new(name));
    }
    let mut timed = hyper_timeout::TimeoutConnector::new(https.enable_http1().wrap_connector(http));
    timed.set_connect_timeout(config.connect_timeout);
    timed.set_read_timeout(config.read_timeout);
    timed.set_write_timeout(config.write_timeout);
    timed.set_reset_reader_on_write(config.reset_reader_on_write);
    Ok(timed)
}

/// The client for `config`. Needs a tokio runtime (the client spawns its buffer task).
pub fn build(config: &::kube::Config) -> Result<::kube::Client, KubeError> {
    if config.proxy_url.is_some() {
        // The proxy URL may carry a password: it is not quoted.
        return Err(KubeError::ProxyUnsupported);
    }
    let http: hyper_util::client::legacy::Client<_, ::kube::client::Body> =
        hyper_util::client::legacy::Builder::new(TokioExecutor::new()).build(connector(config)?);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer().map_err(client_error)?)
        .layer(config.extra_headers_layer().map_err(client_error)?)
        .layer(TraceLayer)
        .map_err(tower::BoxError::from)
        .service(http);
    Ok(ClientBuilder::new(service, config.default_namespace.clone()).build())
}
