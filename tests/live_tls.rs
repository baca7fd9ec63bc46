//! TLS and the in-cluster configuration against servers on 127.0.0.1 with certificates made in
//! the test (issue 18, "Failing servers"): a TLS failure says why (unknown authority, name
//! mismatch, expired, a CA:TRUE serving certificate that is not pinned); a self-signed CA:TRUE
//! serving certificate pinned in certificate-authority-data is accepted when it is exactly that
//! certificate, as kubectl accepts it; a pod's service account is used when no kubeconfig
//! exists. No output may contain a credential.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};

use support::tls::{self, Validity};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");
const TOKEN: &str = "tls-t0ken-never-print";

struct Run {
    code: i32,
    out: String,
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .env("HOME", "/nonexistent")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.contains(TOKEN), "a credential was printed:\n{out}");
    Run {
        code: o.status.code().unwrap_or(-1),
        out,
    }
}

/// `suspend pp/nginx --dry-run=client` against a TLS server serving `served`, with
/// `pinned` as the kubeconfig's certificate-authority-data.
fn suspend_against(served: &tls::Cert, pinned: &str) -> (Run, tls::Server) {
    let server = tls::serve(Some(tls::server_config(served, None)), tls::answer_policy);
    let dir = tempfile::tempdir().unwrap();
    let kc = tls::kubeconfig(
        dir.path(),
        &server.url,
        &tls::ca_data(pinned),
        &format!("    token: {TOKEN}\n"),
    );
    let r = run(
        &[
            "suspend",
            "pp/nginx",
            "--dry-run=client",
            "--request-timeout",
            "10s",
        ],
        &[("KUBECONFIG", kc.to_str().unwrap())],
    );
    (r, server)
}

fn assert_tls_failure(r: &Run, why: &str) {
    assert_eq!(r.code, 3, "{}", r.out);
    assert!(
        r.out.contains("TLS with the server 127.0.0.1:"),
        "{}",
        r.out
    );
    assert!(r.out.contains(why), "wanted {why:?}:\n{}", r.out);
}

#[test]
fn a_certificate_signed_by_the_configured_ca_is_accepted() {
    let ca = tls::ca("test-ca");
    let served = tls::signed(&ca, &["127.0.0.1"], Validity::Now);
    let (r, server) = suspend_against(&served, &ca.pem);
    assert_eq!(r.code, 0, "{}", r.out);
    assert!(tls::answered(&server));
}

#[test]
fn an_unknown_authority_says_so() {
    let (ca, other) = (tls::ca("test-ca"), tls::ca("other-ca"));
    let served = tls::signed(&ca, &["127.0.0.1"], Validity::Now);
    let (r, server) = suspend_against(&served, &other.pem);
    assert_tls_failure(&r, "x509: certificate signed by unknown authority");
    assert!(!tls::answered(&server));
}

#[test]
fn a_name_mismatch_says_so_and_which_names_the_certificate_has() {
    let ca = tls::ca("test-ca");
    let served = tls::signed(&ca, &["other.example"], Validity::Now);
    let (r, _server) = suspend_against(&served, &ca.pem);
    assert_tls_failure(&r, "x509: certificate is not valid for this server name");
    assert!(r.out.contains("other.example"), "{}", r.out);
}

#[test]
fn an_expired_certificate_says_so() {
    let ca = tls::ca("test-ca");
    let served = tls::signed(&ca, &["127.0.0.1"], Validity::Expired);
    let (r, _server) = suspend_against(&served, &ca.pem);
    assert_tls_failure(&r, "x509: certificate has expired or is not yet valid");
}

#[test]
fn a_pinned_self_signed_ca_serving_certificate_is_accepted_as_kubectl_accepts_it() {
    let served = tls::self_signed(&["127.0.0.1"], true, Validity::Now);
    let (r, server) = suspend_against(&served, &served.pem);
    assert_eq!(r.code, 0, "{}", r.out);
    assert!(tls::answered(&server));
    // Also when it is one certificate of a bundle.
    let other = tls::ca("other-ca");
    let (r, _server) = suspend_against(&served, &format!("{}{}", other.pem, served.pem));
    assert_eq!(r.code, 0, "{}", r.out);
}

#[test]
fn a_ca_serving_certificate_that_is_not_the_pinned_one_is_refused_saying_why() {
    // Same names, another key: not byte-equal to anything pinned.
    let served = tls::self_signed(&["127.0.0.1"], true, Validity::Now);
    let pinned = tls::self_signed(&["127.0.0.1"], true, Validity::Now);
    let (r, server) = suspend_against(&served, &pinned.pem);
    assert_tls_failure(
        &r,
        "is not one of the certificates in certificate-authority(-data)",
    );
    assert!(!tls::answered(&server));
}

#[test]
fn a_pinned_ca_serving_certificate_must_still_be_valid_for_the_name_and_now() {
    let wrong_name = tls::self_signed(&["other.example"], true, Validity::Now);
    let (r, server) = suspend_against(&wrong_name, &wrong_name.pem);
    assert_tls_failure(&r, "x509: certificate is not valid for this server name");
    assert!(!tls::answered(&server));
    let expired = tls::self_signed(&["127.0.0.1"], true, Validity::Expired);
    let (r, server) = suspend_against(&expired, &expired.pem);
    assert_tls_failure(&r, "x509: certificate has expired or is not yet valid");
    assert!(!tls::answered(&server));
}

/// A service account directory: token, CA bundle, namespace.
fn serviceaccount(dir: &Path, ca: &tls::Cert, namespace: Option<&str>) {
    // As the kubelet writes it: no newline.
    std::fs::write(dir.join("token"), TOKEN).unwrap();
    std::fs::write(dir.join("ca.crt"), &ca.pem).unwrap();
    if let Some(ns) = namespace {
        std::fs::write(dir.join("namespace"), ns).unwrap();
    }
}

/// 401 unless the request carries the service account's token.
fn answer_with_token(_: &str, path: &str, head: &str) -> (u16, String) {
    if !head.contains(&format!("authorization: Bearer {TOKEN}"))
        && !head.contains(&format!("Authorization: Bearer {TOKEN}"))
    {
        return (401, r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#.into());
    }
    let name = path.rsplit('/').next().unwrap_or("");
    let ns = path
        .split("/namespaces/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or("");
    (
        200,
        tls::policy_json(name).replace(
            r#""namespace":"default""#,
            &format!(r#""namespace":"{ns}""#),
        ),
    )
}

#[test]
fn in_a_pod_the_service_account_is_used_when_no_kubeconfig_exists() {
    let ca = tls::ca("cluster-ca");
    let served = tls::signed(&ca, &["127.0.0.1"], Validity::Now);
    let server = tls::serve(Some(tls::server_config(&served, None)), answer_with_token);
    let dir = tempfile::tempdir().unwrap();
    serviceaccount(dir.path(), &ca, Some("team-a"));
    let port = server.port.to_string();
    let env = [
        ("KUBERNETES_SERVICE_HOST", "127.0.0.1"),
        ("KUBERNETES_SERVICE_PORT", port.as_str()),
        (
            "KARMADA_POLICY_SERVICEACCOUNT_DIR",
            dir.path().to_str().unwrap(),
        ),
    ];
    let r = run(
        &[
            "suspend",
            "pp/nginx",
            "--dry-run=client",
            "--request-timeout",
            "10s",
            "-v=8",
        ],
        &env,
    );
    assert_eq!(r.code, 0, "{}", r.out);
    // The namespace comes from the service account, the token went in a header.
    let heads = server.heads.lock().unwrap().clone();
    assert!(
        heads
            .iter()
            .any(|h| h.contains("/namespaces/team-a/propagationpolicies/nginx")),
        "{heads:?}"
    );
    assert!(
        r.out.contains("Authorization: Bearer <masked>"),
        "{}",
        r.out
    );
}

#[test]
fn outside_a_pod_without_a_kubeconfig_the_error_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        &["suspend", "pp/nginx"],
        &[(
            "KARMADA_POLICY_SERVICEACCOUNT_DIR",
            dir.path().to_str().unwrap(),
        )],
    );
    // No configuration at all is bad configuration (exit 2), not an API failure.
    assert_eq!(r.code, 2, "{}", r.out);
    assert!(
        r.out
            .contains("and not in a pod: KUBERNETES_SERVICE_HOST is not set"),
        "{}",
        r.out
    );
    // In a pod whose service account is not mounted: the file is named.
    let r = run(
        &["suspend", "pp/nginx"],
        &[
            ("KUBERNETES_SERVICE_HOST", "127.0.0.1"),
            ("KUBERNETES_SERVICE_PORT", "6443"),
            (
                "KARMADA_POLICY_SERVICEACCOUNT_DIR",
                dir.path().to_str().unwrap(),
            ),
        ],
    );
    assert_eq!(r.code, 2, "{}", r.out);
    assert!(
        r.out.contains("cannot read the service account's"),
        "{}",
        r.out
    );
    assert!(r.out.contains("token"), "{}", r.out);
}

/// A client certificate in X.509 version 1 (what `openssl x509 -req` issues without
/// extensions; kubectl accepts it) is presented as it is, and the request goes through: rustls
/// would refuse to load it through `with_client_auth_cert` ("UnsupportedCertVersion", blamed
/// on the key).
#[test]
fn an_x509_v1_client_certificate_is_presented_as_kubectl_presents_it() {
    use base64::Engine;
    let dir = tempfile::tempdir().unwrap();
    let Some(v1) = support::tls_v1::v1_client(dir.path()) else {
        eprintln!("SKIPPED: no openssl CLI to issue an X.509 v1 client certificate");
        return;
    };
    assert_eq!(support::tls_v1::version_of(&v1.cert_pem), Some(1));
    let serving_ca = tls::ca("serving-ca");
    let served = tls::signed(&serving_ca, &["127.0.0.1"], Validity::Now);
    let (config, presented) = support::tls_v1::server_config(&served, &v1.ca_pem);
    let server = tls::serve(Some(config), tls::answer_policy);
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let user = format!(
        "    client-certificate-data: {}\n    client-key-data: {}\n",
        b64(&v1.cert_pem),
        b64(&v1.key_pem)
    );
    let kc = tls::kubeconfig(
        dir.path(),
        &server.url,
        &tls::ca_data(&serving_ca.pem),
        &user,
    );
    let r = run(
        &[
            "suspend",
            "pp/nginx",
            "--dry-run=client",
            "--request-timeout",
            "10s",
        ],
        &[("KUBECONFIG", kc.to_str().unwrap())],
    );
    assert_eq!(r.code, 0, "{}", r.out);
    assert!(
        r.out.contains("suspended on all clusters (dry run)"),
        "{}",
        r.out
    );
    assert!(tls::answered(&server));
    use rustls::pki_types::pem::PemObject;
    let der = rustls::pki_types::CertificateDer::from_pem_slice(v1.cert_pem.as_bytes()).unwrap();
    assert!(presented.lock().unwrap().iter().any(|p| p[..] == der[..]));
}
