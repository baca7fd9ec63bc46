//! Server certificate verification as kubectl does it, on rustls.
//!
//! One difference needs a wrapper: a self-signed serving certificate with `CA:TRUE` (what many
//! test and single-node clusters generate) pinned in `certificate-authority(-data)` is accepted
//! by Go's TLS when it is exactly a certificate of the bundle; webpki refuses any CA certificate
//! as an end entity (`CaUsedAsEndEntity`). [`PinningVerifier`] runs the webpki verifier and, on
//! exactly that error, accepts iff the presented certificate is byte-equal to one in the bundle
//! and is valid now and for the server name. Every other outcome is webpki's.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, OtherError, RootCertStore, SignatureScheme};

/// Why a CA:TRUE serving certificate was refused; the words the error message carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PinError {
    #[error("the server's certificate is a CA certificate (CA:TRUE) used as its serving certificate, and it is not one of the certificates in certificate-authority(-data): pin exactly that certificate, or give the server a serving certificate signed by the CA")]
    NotPinned,
}

impl PinError {
    pub const ALL: [PinError; 1] = [PinError::NotPinned];
}

/// Why the verifier could not be built from the configured CA bundle, or the client
/// certificate not be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsSetupError {
    #[error("a certificate in certificate-authority(-data) is not a usable CA certificate: {0}")]
    BadRoot(#[source] rustls::Error),
    #[error("cannot build the certificate verifier: {0}")]
    Verifier(#[source] rustls::client::VerifierBuilderError),
    /// An X.509 v1 client certificate whose PEM or key cannot be read.
    #[error("the client certificate is X.509 version 1 and {what} cannot be read ({why}); reissue it as version 3 (e.g. `openssl x509 -req ... -extfile <(echo extendedKeyUsage=clientAuth)`) or use a token")]
    V1ClientCertificate { what: &'static str, why: String },
}

/// Whether a TLS setup error is rustls refusing an X.509 v1 certificate (webpki parses only
/// v3): what `with_client_auth_cert` says of a v1 client certificate, which kubectl (Go's
/// crypto/x509) accepts.
pub fn is_v1_certificate(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if let Some(rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(o)))) =
            c.downcast_ref::<rustls::Error>()
        {
            if o.downcast_ref::<webpki::Error>() == Some(&webpki::Error::UnsupportedCertVersion) {
                return true;
            }
        }
        cause = c.source();
    }
    false
}

/// The client certificate to present: always the one of the kubeconfig. rustls checks a
/// certificate against its key only when configured through `with_client_auth_cert`, which
/// parses it with webpki and so refuses X.509 v1; presented through this resolver it is sent
/// as it is, and the server (Go's crypto/x509 in the API server) verifies it as it would
/// kubectl's.
#[derive(Debug)]
struct FixedClientCert(Arc<rustls::sign::CertifiedKey>);

impl rustls::client::ResolvesClientCert for FixedClientCert {
    fn resolve(
        &self,
        _root_hint_subjects: &[&[u8]],
        _sigschemes: &[SignatureScheme],
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        Some(self.0.clone())
    }

    fn has_certs(&self) -> bool {
        true
    }
}

/// Presents `cert_pem` (the chain, a v1 leaf allowed) with `key_pem` on `tls`.
pub fn present_client_certificate(
    tls: &mut rustls::ClientConfig,
    cert_pem: &[u8],
    key_pem: &[u8],
) -> Result<(), TlsSetupError> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::PrivateKeyDer;
    let bad = |what: &'static str, why: String| TlsSetupError::V1ClientCertificate { what, why };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| bad("the certificate", e.to_string()))?;
    if chain.is_empty() {
        return Err(bad("the certificate", "no CERTIFICATE block".into()));
    }
    // Never quoted: a key's parse error could echo part of it.
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|_| bad("the key", "not a PKCS#8, PKCS#1 or SEC1 PEM key".into()))?;
    let signing = rustls::crypto::ring::default_provider()
        .key_provider
        .load_private_key(key)
        .map_err(|_| bad("the key", "not a key rustls can sign with".into()))?;
    let certified = rustls::sign::CertifiedKey::new(chain, signing);
    tls.client_auth_cert_resolver = Arc::new(FixedClientCert(Arc::new(certified)));
    Ok(())
}

/// webpki's verifier plus kubectl's acceptance of a pinned self-signed CA:TRUE certificate.
#[derive(Debug)]
pub struct PinningVerifier {
    inner: Arc<WebPkiServerVerifier>,
    pinned: Vec<Vec<u8>>,
}

impl PinningVerifier {
    /// A verifier trusting the DER certificates of `bundle`.
    pub fn new(bundle: &[Vec<u8>]) -> Result<PinningVerifier, TlsSetupError> {
        let mut roots = RootCertStore::empty();
        for der in bundle {
            roots
                .add(CertificateDer::from(der.clone()))
                .map_err(TlsSetupError::BadRoot)?;
        }
        let inner = WebPkiServerVerifier::builder(Arc::new(roots))
            .build()
            .map_err(TlsSetupError::Verifier)?;
        Ok(PinningVerifier {
            inner,
            pinned: bundle.to_vec(),
        })
    }

    /// The presented certificate is a CA certificate: accepted only when it is a pinned one,
    /// valid now, and valid for the name.
    fn accept_pinned(
        &self,
        end_entity: &CertificateDer<'_>,
        server_name: &ServerName<'_>,
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if !self.pinned.iter().any(|p| p[..] == end_entity[..]) {
            return Err(CertificateError::Other(OtherError(Arc::new(PinError::NotPinned))).into());
        }
        let (not_before, not_after) = validity(end_entity).ok_or(CertificateError::BadEncoding)?;
        let t = now.as_secs();
        if t < not_before {
            return Err(CertificateError::NotValidYet.into());
        }
        if t > not_after {
            return Err(CertificateError::Expired.into());
        }
        let parsed = rustls::server::ParsedCertificate::try_from(end_entity)?;
        rustls::client::verify_server_name(&parsed, server_name)?;
        Ok(ServerCertVerified::assertion())
    }
}

/// Whether webpki refused the certificate only for being a CA certificate.
fn is_ca_used_as_end_entity(e: &rustls::Error) -> bool {
    match e {
        rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(inner))) => {
            matches!(
                inner.downcast_ref::<webpki::Error>(),
                Some(webpki::Error::CaUsedAsEndEntity)
            )
        }
        _ => false,
    }
}

impl ServerCertVerifier for PinningVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(e) if is_ca_used_as_end_entity(&e) => {
                self.accept_pinned(end_entity, server_name, now)
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// One DER element: (tag, contents, rest).
fn der_element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (first as usize, rest)
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n].iter().fold(0usize, |l, &b| (l << 8) | b as usize);
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// notBefore and notAfter of an X.509 certificate, in seconds since the Unix epoch.
/// Certificate = SEQUENCE { tbsCertificate SEQUENCE { \[0\] version OPTIONAL, serialNumber,
/// signature, issuer, validity SEQUENCE { notBefore, notAfter }, ... }, ... }.
pub fn validity(der: &[u8]) -> Option<(u64, u64)> {
    let (0x30, cert, _) = der_element(der)? else {
        return None;
    };
    let (0x30, mut tbs, _) = der_element(cert)? else {
        return None;
    };
    if tbs.first() == Some(&0xa0) {
        tbs = der_element(tbs)?.2;
    }
    for _ in 0..3 {
        tbs = der_element(tbs)?.2; // serialNumber, signature, issuer
    }
    let (0x30, times, _) = der_element(tbs)? else {
        return None;
    };
    let (tag_a, a, rest) = der_element(times)?;
    let (tag_b, b, _) = der_element(rest)?;
    Some((der_time(tag_a, a)?, der_time(tag_b, b)?))
}

/// UTCTime (`YYMMDDHHMMSSZ`, years 1950-2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`).
fn der_time(tag: u8, text: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(text).ok()?.strip_suffix('Z')?;
    let (year, rest) = match tag {
        0x17 if text.len() == 12 => {
            let yy: i64 = text[..2].parse().ok()?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, &text[2..])
        }
        0x18 if text.len() == 14 => (text[..4].parse().ok()?, &text[4..]),
        _ => return None,
    };
    let field = |i: usize| rest.get(i..i + 2)?.parse::<i64>().ok();
    let days = days_from_civil(year, field(0)?, field(2)?);
    let secs = days * 86_400 + field(4)? * 3_600 + field(6)? * 60 + field(8)?;
    u64::try_from(secs).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_times_are_seconds_since_the_epoch() {
        assert_eq!(der_time(0x17, b"700101000000Z"), Some(0));
        assert_eq!(der_time(0x17, b"000301000000Z"), Some(951_868_800));
        assert_eq!(der_time(0x18, b"20261202041100Z"), Some(1_796_184_660));
        // RFC 5280: no well-defined expiration.
        assert_eq!(der_time(0x18, b"99991231235959Z"), Some(253_402_300_799));
        assert_eq!(der_time(0x17, b"7001010000Z"), None);
        assert_eq!(der_time(0x05, b"700101000000Z"), None);
    }

    #[test]
    fn validity_is_read_from_a_certificate() {
        // Certificate { tbs { [0] v3, serial 1, alg {}, issuer {}, validity {UTC, Generalized} } }
        let validity_seq = [
            &[0x30, 32][..],
            &[0x17, 13],
            b"700101000000Z",
            &[0x18, 15],
            b"20261202041100Z",
        ]
        .concat();
        let tbs_body = [
            &[0xa0, 3, 2, 1, 2][..],
            &[2, 1, 1],
            &[0x30, 0],
            &[0x30, 0],
            &validity_seq,
        ]
        .concat();
        let tbs = [&[0x30, tbs_body.len() as u8][..], &tbs_body].concat();
        let cert = [&[0x30, tbs.len() as u8][..], &tbs].concat();
        assert_eq!(validity(&cert), Some((0, 1_796_184_660)));
        assert_eq!(validity(&cert[..cert.len() - 3]), None);
        assert_eq!(validity(b"not der"), None);
    }
}
