//! `-v`/`--v=N` HTTP tracing as kubectl has it (issue 18, "Secrets"): at 6 one line per request
//! (method, URL, status, time), at 7 the request headers, at 8 the response headers; retries at
//! 6. For every level 0 to 10 and every kind of credential (token, basic auth, client
//! certificate, exec plugin), no credential appears in stdout or stderr.

mod support;

use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;

use base64::Engine;
use support::tls::{self, Validity};
use support::{pp, TestServer};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");
const TOKEN: &str = "trace-t0ken-never-print";
const EXEC_TOKEN: &str = "exec-t0ken-never-print";
const PASSWORD: &str = "basic-passw0rd-never-print";
const COOKIE: &str = "c00kie-never-print";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], kubeconfig: &str) -> Run {
    let o = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", "/nonexistent")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// One way to authenticate: the kubeconfig's user fields, the strings that must never print,
/// the TLS server it needs (client certificates), and how the trace shows its header.
struct Credential {
    name: &'static str,
    user: String,
    cluster: String,
    secrets: Vec<String>,
    tls: Option<std::sync::Arc<rustls::ServerConfig>>,
    /// The Authorization header as the trace must show it (None: no such header).
    shown: Option<&'static str>,
    /// What the server must have received.
    sent: Option<String>,
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn credentials(dir: &std::path::Path) -> Vec<Credential> {
    let basic = b64(&format!("admin:{PASSWORD}"));
    let plugin = dir.join("plugin.sh");
    std::fs::write(
        &plugin,
        format!("#!/bin/sh\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{EXEC_TOKEN}\"}}}}'\n"),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let ca = tls::ca("trace-ca");
    let served = tls::signed(&ca, &["127.0.0.1"], Validity::Now);
    let client_ca = tls::ca("client-ca");
    let client = tls::signed(&client_ca, &["admin"], Validity::Now);
    let key_body: String = client
        .key_pem
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect();
    vec![
        Credential {
            name: "token",
            user: format!("    token: {TOKEN}\n"),
            cluster: String::new(),
            secrets: vec![TOKEN.into()],
            tls: None,
            shown: Some("Authorization: Bearer <masked>"),
            sent: Some(format!("Bearer {TOKEN}")),
        },
        Credential {
            name: "basic",
            user: format!("    username: admin\n    password: {PASSWORD}\n"),
            cluster: String::new(),
            secrets: vec![PASSWORD.into(), basic.clone()],
            tls: None,
            shown: Some("Authorization: Basic <masked>"),
            sent: Some(format!("Basic {basic}")),
        },
        Credential {
            name: "exec",
            user: format!(
                "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never\n",
                plugin.display()
            ),
            cluster: String::new(),
            secrets: vec![EXEC_TOKEN.into()],
            tls: None,
            shown: Some("Authorization: Bearer <masked>"),
            sent: Some(format!("Bearer {EXEC_TOKEN}")),
        },
        Credential {
            name: "client certificate",
            user: format!(
                "    client-certificate-data: {}\n    client-key-data: {}\n",
                b64(&client.pem),
                b64(&client.key_pem)
            ),
            cluster: tls::ca_data(&ca.pem),
            // The key in every form it has; the certificate's data too (not secret, but
            // nothing of the credential is shown).
            secrets: vec![
                b64(&client.key_pem),
                key_body.chars().take(40).collect(),
                b64(&client.pem),
            ],
            tls: Some(tls::server_config(&served, Some(&client_ca))),
            shown: None,
            sent: None,
        },
    ]
}

fn assert_no_secret(c: &Credential, level: u8, r: &Run) {
    for s in c.secrets.iter().map(String::as_str).chain([COOKIE]) {
        assert!(
            !r.stdout.contains(s) && !r.stderr.contains(s),
            "{} at -v={level}: a credential was printed:\n{}{}",
            c.name,
            r.stdout,
            r.stderr
        );
    }
}

fn assert_trace(c: &Credential, level: u8, r: &Run, url: &str) {
    let line = format!(
        "GET {url}/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies/nginx 200 OK in "
    );
    let traced = r.stderr.contains(&line) && r.stderr.contains(" milliseconds\n");
    assert_eq!(
        traced,
        level >= 6,
        "{} at -v={level}:\n{}",
        c.name,
        r.stderr
    );
    let request_headers = r.stderr.contains("Request Headers:\n");
    assert_eq!(
        request_headers,
        level >= 7,
        "{} at -v={level}:\n{}",
        c.name,
        r.stderr
    );
    assert_eq!(
        r.stderr.contains("Response Headers:\n"),
        level >= 8,
        "{} at -v={level}:\n{}",
        c.name,
        r.stderr
    );
    if level >= 7 {
        assert!(
            r.stderr.contains("    User-Agent: kubectl-karmada-policy/"),
            "{}",
            r.stderr
        );
        if let Some(shown) = c.shown {
            assert!(r.stderr.contains(&format!("    {shown}\n")), "{}", r.stderr);
        } else {
            assert!(!r.stderr.contains("Authorization:"), "{}", r.stderr);
        }
    }
    if level >= 8 {
        assert!(
            r.stderr.contains("    Set-Cookie: <masked>\n"),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn no_credential_is_printed_at_any_verbosity_and_the_trace_is_kubectl_s() {
    let dir = tempfile::tempdir().unwrap();
    for c in credentials(dir.path()) {
        let server = tls::serve(c.tls.clone(), tls::answer_policy);
        let kc = tls::kubeconfig(dir.path(), &server.url, &c.cluster, &c.user);
        for level in 0..=10u8 {
            let v = format!("-v={level}");
            let r = run(
                &[
                    "suspend",
                    "pp/nginx",
                    "--dry-run=client",
                    "--request-timeout",
                    "10s",
                    &v,
                ],
                kc.to_str().unwrap(),
            );
            assert_eq!(r.code, 0, "{} at {v}: {}{}", c.name, r.stdout, r.stderr);
            assert_no_secret(&c, level, &r);
            assert_trace(&c, level, &r, &server.url);
        }
        // The credential did reach the server (the masking hid something real).
        let heads = server.heads.lock().unwrap();
        if let Some(sent) = &c.sent {
            assert!(
                heads.iter().all(|h| h.contains(sent.as_str())),
                "{}: {heads:?}",
                c.name
            );
        }
        assert!(!heads.is_empty(), "{}", c.name);
    }
}

#[test]
fn the_level_is_given_as_kubectl_accepts_it() {
    let server = tls::serve(None, tls::answer_policy);
    let dir = tempfile::tempdir().unwrap();
    let kc = tls::kubeconfig(
        dir.path(),
        &server.url,
        "",
        &format!("    token: {TOKEN}\n"),
    );
    let forms: [&[&str]; 5] = [&["-v", "6"], &["-v=6"], &["-v6"], &["--v=6"], &["--v", "6"]];
    for form in forms {
        // Before and after the subcommand, as a global flag.
        for before in [true, false] {
            let mut args: Vec<&str> = Vec::new();
            if before {
                args.extend(form);
            }
            args.extend(["suspend", "pp/nginx", "--dry-run=client"]);
            if !before {
                args.extend(form);
            }
            let r = run(&args, kc.to_str().unwrap());
            assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
            assert!(r.stderr.contains(" 200 OK in "), "{args:?}: {}", r.stderr);
            assert!(
                !r.stderr.contains("Request Headers:"),
                "{args:?}: {}",
                r.stderr
            );
        }
    }
    let r = run(&["suspend", "pp/nginx", "-v=x"], kc.to_str().unwrap());
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn conflict_retries_are_traced_with_their_budget() {
    let server = TestServer::start();
    server.insert(support::cluster("member1", true));
    server.insert(pp(
        "default",
        "nginx",
        serde_json::json!({
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
            "placement": {"clusterAffinity": {"clusterNames": ["member1"]}}
        }),
    ));
    server.shared.faults.conflicts.store(2, Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    let kc = server.kubeconfig(dir.path());
    let r = run(&["suspend", "pp/nginx", "-v=6"], kc.to_str().unwrap());
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for attempt in [2, 3] {
        let retry = format!(
            "retrying the PATCH of PropagationPolicy default/nginx after 409 Conflict (attempt {attempt} of 6, budget 5 retries, next in "
        );
        assert!(r.stderr.contains(&retry), "{}", r.stderr);
    }
    assert!(r.stderr.contains(" 409 Conflict in "), "{}", r.stderr);
    assert!(!r.stderr.contains(support::SECRET_TOKEN), "{}", r.stderr);
    // Without -v nothing of this.
    server.shared.faults.conflicts.store(1, Ordering::SeqCst);
    let r = run(&["resume", "pp/nginx"], kc.to_str().unwrap());
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stderr.contains("retrying"), "{}", r.stderr);
}
