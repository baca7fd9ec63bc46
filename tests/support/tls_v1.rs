//! X.509 version 1 client certificates (what `openssl x509 -req` issues without extensions,
//! and what kubectl accepts), and a TLS server configuration that requires a client
//! certificate signed by a given CA without parsing it with webpki (which reads only v3): the
//! certificate's signature is checked against the CA's key and the handshake signature against
//! the certificate's key, as Go's crypto/x509 in the API server would accept it, and every
//! certificate presented is recorded.

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

use rustls::client::danger::HandshakeSignatureValid;
use rustls::pki_types::{CertificateDer, SubjectPublicKeyInfoDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};

use super::tls::Cert;

/// A CA and a v1 client certificate it signed, as PEM, made with the openssl CLI; `None`
/// without it (the test prints `SKIPPED`).
pub struct V1Client {
    pub ca_pem: String,
    pub cert_pem: String,
    pub key_pem: String,
}

pub fn v1_client(dir: &Path) -> Option<V1Client> {
    let openssl = |args: &[&str]| {
        Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
    ];
    let made = openssl(
        &[
            &["req", "-x509"][..],
            &ec,
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-subj",
                "/CN=client-ca",
                "-days",
                "2",
            ],
        ]
        .concat(),
    ) && openssl(
        &[
            &["req", "-new"][..],
            &ec,
            &[
                "-keyout",
                "c.key",
                "-out",
                "c.csr",
                "-subj",
                "/CN=jane/O=system:masters",
            ],
        ]
        .concat(),
    ) && openssl(&[
        "x509",
        "-req",
        "-in",
        "c.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "c.crt",
        "-days",
        "2",
    ]);
    if !made {
        return None;
    }
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    Some(V1Client {
        ca_pem: read("ca.crt")?,
        cert_pem: read("c.crt")?,
        key_pem: read("c.key")?,
    })
}

/// One DER element: (tag, its whole encoding, its content, what follows).
type Element<'a> = (u8, &'a [u8], &'a [u8], &'a [u8]);

fn der(input: &[u8]) -> Option<Element<'_>> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (first as usize, rest)
    } else {
        let n = (first & 0x7f) as usize;
        let len = rest
            .get(..n)?
            .iter()
            .fold(0usize, |a, b| a << 8 | *b as usize);
        (len, &rest[n..])
    };
    let header = input.len() - rest.len();
    let content = rest.get(..len)?;
    Some((tag, &input[..header + len], content, &rest[len..]))
}

/// A certificate's parts: the whole TBSCertificate, its version (1 when absent), its
/// SubjectPublicKeyInfo, and the signature (BIT STRING content without the unused-bits byte).
struct Parts<'a> {
    tbs: &'a [u8],
    version: u8,
    spki: &'a [u8],
    signature: &'a [u8],
}

fn parts(cert: &[u8]) -> Option<Parts<'_>> {
    let (_, _, body, _) = der(cert)?;
    let (_, tbs, tbs_body, rest) = der(body)?;
    let (_, _, _, rest) = der(rest)?; // signatureAlgorithm
    let (_, _, sig, _) = der(rest)?;
    let (mut version, mut fields) = (1, tbs_body);
    if fields.first() == Some(&0xa0) {
        let (_, _, v, rest) = der(fields)?;
        version = der(v)?.2.last()? + 1;
        fields = rest;
    }
    // serialNumber, signature, issuer, validity, subject, then subjectPublicKeyInfo.
    for _ in 0..5 {
        fields = der(fields)?.3;
    }
    let (_, spki, _, _) = der(fields)?;
    Some(Parts {
        tbs,
        version,
        spki,
        signature: sig.get(1..)?,
    })
}

/// The public key bits of a SubjectPublicKeyInfo.
fn key_bits(spki: &[u8]) -> Option<&[u8]> {
    let (_, _, body, _) = der(spki)?;
    let (_, _, _, rest) = der(body)?;
    der(rest)?.2.get(1..)
}

/// Requires a client certificate signed (ECDSA P-256, SHA-256) by the CA, whatever its X.509
/// version, and records the DER of each one presented.
#[derive(Debug)]
pub struct AnyVersionClientVerifier {
    ca_key: Vec<u8>,
    pub presented: Presented,
}

impl ClientCertVerifier for AnyVersionClientVerifier {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.presented.lock().unwrap().push(end_entity.to_vec());
        let p = parts(end_entity).ok_or(rustls::Error::General("not DER".into()))?;
        webpki::ring::ECDSA_P256_SHA256
            .verify_signature(&self.ca_key, p.tbs, p.signature)
            .map_err(|_| rustls::Error::General("not signed by the client CA".into()))?;
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General("TLS 1.3 only".into()))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let p = parts(cert).ok_or(rustls::Error::General("not DER".into()))?;
        rustls::crypto::verify_tls13_signature_with_raw_key(
            message,
            &SubjectPublicKeyInfoDer::from(p.spki),
            dss,
            &rustls::crypto::ring::default_provider().signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SignatureScheme::ECDSA_NISTP256_SHA256]
    }
}

/// The X.509 version of a PEM certificate (1 for a v1 certificate).
pub fn version_of(pem: &str) -> Option<u8> {
    use rustls::pki_types::pem::PemObject;
    let der = CertificateDer::from_pem_slice(pem.as_bytes()).ok()?;
    parts(&der).map(|p| p.version)
}

/// TLS 1.3 serving `cert`, requiring a client certificate signed by the CA of `ca_pem`.
/// The certificates a server was presented, DER.
pub type Presented = Arc<Mutex<Vec<Vec<u8>>>>;

pub fn server_config(cert: &Cert, ca_pem: &str) -> (Arc<rustls::ServerConfig>, Presented) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    let ca = CertificateDer::from_pem_slice(ca_pem.as_bytes()).expect("CA PEM");
    let ca_key = key_bits(parts(&ca).expect("CA DER").spki)
        .expect("CA key")
        .to_vec();
    let presented = Arc::new(Mutex::new(Vec::new()));
    let verifier = AnyVersionClientVerifier {
        ca_key,
        presented: presented.clone(),
    };
    let config = rustls::ServerConfig::builder_with_protocol_versions(&[&rustls::version::TLS13])
        .with_client_cert_verifier(Arc::new(verifier))
        .with_single_cert(
            vec![CertificateDer::from(cert.der.clone())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.key_der.clone())),
        )
        .expect("server config");
    (Arc::new(config), presented)
}
