//! Certificates made in the test (rcgen) and a small HTTP/1.1 server on 127.0.0.1, plain or
//! over TLS (rustls), answering every request with `answer(method, path, head)` and keeping each
//! request's head: for TLS failures, pinned certificates, client certificates and the in-cluster
//! configuration.

use super::http::{method_and_path, read_request};
use std::io::{BufReader, Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpListener};
use std::sync::{Arc, Mutex};

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A certificate with its key, as DER and PEM.
pub struct Cert {
    pub der: Vec<u8>,
    pub pem: String,
    pub key_der: Vec<u8>,
    pub key_pem: String,
    params: CertificateParams,
    key: KeyPair,
}

/// When a certificate is valid.
#[derive(Clone, Copy)]
pub enum Validity {
    /// 2000 to 2100.
    Now,
    /// 2000 to 2001.
    Expired,
}

fn params(names: &[&str], ca: bool, validity: Validity) -> CertificateParams {
    let mut p = CertificateParams::default();
    p.subject_alt_names = names
        .iter()
        .map(|n| match n.parse::<IpAddr>() {
            Ok(ip) => SanType::IpAddress(ip),
            Err(_) => SanType::DnsName((*n).try_into().expect("dns name")),
        })
        .collect();
    p.distinguished_name.push(
        rcgen::DnType::CommonName,
        names.first().copied().unwrap_or("test"),
    );
    if ca {
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    }
    p.not_before = rcgen::date_time_ymd(2000, 1, 1);
    p.not_after = match validity {
        Validity::Now => rcgen::date_time_ymd(2100, 1, 1),
        Validity::Expired => rcgen::date_time_ymd(2001, 1, 1),
    };
    p
}

fn finish(cert: rcgen::Certificate, params: CertificateParams, key: KeyPair) -> Cert {
    Cert {
        der: cert.der().to_vec(),
        pem: cert.pem(),
        key_der: key.serialize_der(),
        key_pem: key.serialize_pem(),
        params,
        key,
    }
}

/// A self-signed certificate; `ca` makes it CA:TRUE.
pub fn self_signed(names: &[&str], ca: bool, validity: Validity) -> Cert {
    let key = KeyPair::generate().expect("key");
    let p = params(names, ca, validity);
    let cert = p.self_signed(&key).expect("self-signed");
    finish(cert, p, key)
}

/// A CA certificate (CA:TRUE, self-signed).
pub fn ca(name: &str) -> Cert {
    self_signed(&[name], true, Validity::Now)
}

/// A certificate for `names` signed by `ca` (CA:FALSE).
pub fn signed(ca: &Cert, names: &[&str], validity: Validity) -> Cert {
    let key = KeyPair::generate().expect("key");
    let p = params(names, false, validity);
    let issuer = Issuer::from_params(&ca.params, &ca.key);
    let cert = p.signed_by(&key, &issuer).expect("signed");
    finish(cert, p, key)
}

/// The serving configuration: `cert` and its key, and when `client_ca` is given, client
/// certificates signed by it are required.
pub fn server_config(cert: &Cert, client_ca: Option<&Cert>) -> Arc<rustls::ServerConfig> {
    let chain = vec![CertificateDer::from(cert.der.clone())];
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.key_der.clone()));
    let builder = rustls::ServerConfig::builder();
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            roots
                .add(CertificateDer::from(ca.der.clone()))
                .expect("root");
            let verifier = rustls::server::WebPkiClientVerifier::builder(Arc::new(roots))
                .build()
                .expect("client verifier");
            builder.with_client_cert_verifier(verifier)
        }
    };
    Arc::new(builder.with_single_cert(chain, key).expect("server config"))
}

/// What the server answers: (status, JSON body) for (method, path, request head).
pub type Answer = fn(&str, &str, &str) -> (u16, String);

pub struct Server {
    pub port: u16,
    /// `http://127.0.0.1:PORT` or `https://...`.
    pub url: String,
    pub heads: Arc<Mutex<Vec<String>>>,
}

/// Starts the server on a free port (TLS when `tls` is given).
pub fn serve(tls: Option<Arc<rustls::ServerConfig>>, answer: Answer) -> Server {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let scheme = if tls.is_some() { "https" } else { "http" };
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = heads.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (seen, tls) = (seen.clone(), tls.clone());
            std::thread::spawn(move || match tls {
                None => converse(stream, answer, &seen),
                Some(config) => {
                    let Ok(conn) = rustls::ServerConnection::new(config) else {
                        return;
                    };
                    converse(rustls::StreamOwned::new(conn, stream), answer, &seen);
                }
            });
        }
    });
    Server {
        port,
        url: format!("{scheme}://127.0.0.1:{port}"),
        heads,
    }
}

/// Requests and answers on one connection until it closes (or the handshake fails).
fn converse<S: Read + Write>(stream: S, answer: Answer, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream);
    loop {
        let Some((head, _body)) = read_request(&mut reader) else {
            return;
        };
        let (method, path) = method_and_path(&head);
        let (status, text) = answer(method, path, &head);
        seen.lock().unwrap().push(head.clone());
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\nset-cookie: session=c00kie-never-print\r\ncontent-length: {}\r\n\r\n{text}",
            text.len()
        );
        let out = reader.get_mut();
        if out.write_all(reply.as_bytes()).is_err() || out.flush().is_err() {
            return;
        }
    }
}

/// A PropagationPolicy `default/NAME` as the API server returns it.
pub fn policy_json(name: &str) -> String {
    format!(
        r#"{{"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy","metadata":{{"name":"{name}","namespace":"default","resourceVersion":"1"}},"spec":{{"resourceSelectors":[{{"apiVersion":"apps/v1","kind":"Deployment"}}],"placement":{{"clusterAffinity":{{"clusterNames":["member1"]}}}}}}}}"#
    )
}

/// Answers every request with the policy `nginx`.
pub fn answer_policy(_: &str, _: &str, _: &str) -> (u16, String) {
    (200, policy_json("nginx"))
}

/// A kubeconfig for `server` with the cluster fields `cluster` and the user fields `user`
/// (each line indented for its place), context `karmada`.
pub fn kubeconfig(
    dir: &std::path::Path,
    server: &str,
    cluster: &str,
    user: &str,
) -> std::path::PathBuf {
    let path = dir.join("kubeconfig");
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: karmada\nclusters:\n- name: test\n  cluster:\n    server: {server}\n{cluster}contexts:\n- name: karmada\n  context:\n    cluster: test\n    user: admin\n    namespace: default\nusers:\n- name: admin\n  user:\n{user}"
    );
    std::fs::write(&path, text).expect("write kubeconfig");
    path
}

/// `    certificate-authority-data: BASE64` for a PEM certificate.
pub fn ca_data(pem: &str) -> String {
    use base64::Engine;
    format!(
        "    certificate-authority-data: {}\n",
        base64::engine::general_purpose::STANDARD.encode(pem)
    )
}

/// Whether the handshake reached a request (the head of one arrived).
pub fn answered(s: &Server) -> bool {
    !s.heads.lock().unwrap().is_empty()
}
