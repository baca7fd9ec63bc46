//! Failing servers and hostile kubeconfigs (issue 18, "Secrets" and "Failing servers"): small
//! HTTP servers on 127.0.0.1 in this process, answering what a broken or hostile control plane
//! would, and kubeconfigs written to temporary directories. No output, at any step, may contain
//! a credential.

mod support;

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::http::{method_and_path, read_request};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");
const TOKEN: &str = "tok3n-that-must-never-print";

/// An HTTP/1.1 server answering every request with `answer(method, path)` = (status, body),
/// keeping each request's head.
struct Stub {
    url: String,
    heads: Arc<Mutex<Vec<String>>>,
}

fn stub(answer: fn(&str, &str) -> (u16, String)) -> Stub {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = heads.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let seen = seen.clone();
            std::thread::spawn(move || serve(stream, answer, &seen));
        }
    });
    Stub { url, heads }
}

fn serve(stream: TcpStream, answer: fn(&str, &str) -> (u16, String), seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let Some((head, _body)) = read_request(&mut reader) else {
            return;
        };
        let (method, path) = method_and_path(&head);
        let (status, text) = answer(method, path);
        seen.lock().unwrap().push(head.clone());
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{text}",
            text.len()
        );
        if out.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

fn kubeconfig(dir: &Path, server: &str, user: &str) -> PathBuf {
    let path = dir.join("kubeconfig");
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: karmada\nclusters:\n- name: test\n  cluster:\n    server: {server}\ncontexts:\n- name: karmada\n  context:\n    cluster: test\n    user: admin\n    namespace: default\n- name: second\n  context:\n    cluster: test\n    user: admin\nusers:\n- name: admin\n  user:\n{user}"
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn token_user() -> String {
    format!("    token: {TOKEN}\n")
}

struct Run {
    code: i32,
    out: String,
    secs: f64,
}

/// Runs the binary with `KUBECONFIG` and checks that the token is printed nowhere.
fn run(args: &[&str], kubeconfig: &str) -> Run {
    let start = Instant::now();
    let o = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", "/nonexistent")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.contains(TOKEN), "a credential was printed:\n{out}");
    Run {
        code: o.status.code().unwrap_or(-1),
        out,
        secs: start.elapsed().as_secs_f64(),
    }
}

fn policy_json(name: &str) -> String {
    format!(
        r#"{{"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy","metadata":{{"name":"{name}","namespace":"default","resourceVersion":"1"}},"spec":{{"resourceSelectors":[{{"apiVersion":"apps/v1","kind":"Deployment"}}],"placement":{{"clusterAffinity":{{"clusterNames":["member1"]}}}}}}}}"#
    )
}

#[test]
fn a_server_answering_503_is_not_retried_past_the_request_timeout() {
    let s = stub(|_, _| {
        (503, r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"down","reason":"ServiceUnavailable","code":503}"#.into())
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &s.url, &token_user());
    let r = run(
        &["suspend", "pp/nginx", "--request-timeout", "2s"],
        kc.to_str().unwrap(),
    );
    assert_eq!(r.code, 3, "{}", r.out);
    assert!(r.secs < 30.0, "took {} s", r.secs);
    // Every request carries our user agent.
    let heads = s.heads.lock().unwrap();
    assert!(!heads.is_empty());
    let version = env!("CARGO_PKG_VERSION");
    for h in heads.iter() {
        assert!(
            h.to_ascii_lowercase()
                .contains(&format!("user-agent: kubectl-karmada-policy/{version} (")),
            "{h}"
        );
    }
}

#[test]
fn a_refused_connection_is_said_as_kubectl_says_it() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(
        dir.path(),
        &format!("http://127.0.0.1:{port}"),
        &token_user(),
    );
    let r = run(
        &["suspend", "pp/nginx", "--request-timeout", "5s"],
        kc.to_str().unwrap(),
    );
    assert_eq!(r.code, 3, "{}", r.out);
    assert!(
        r.out.contains(&format!(
            "the connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?"
        )),
        "{}",
        r.out
    );
}

#[test]
fn a_server_that_never_answers_is_a_timeout_that_says_timeout() {
    // Accepts connections and reads, never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(
        dir.path(),
        &format!("http://127.0.0.1:{port}"),
        &token_user(),
    );
    let r = run(
        &["suspend", "pp/nginx", "--request-timeout", "1s"],
        kc.to_str().unwrap(),
    );
    assert_eq!(r.code, 3, "{}", r.out);
    assert!(
        r.out
            .contains(&format!("timeout talking to the server 127.0.0.1:{port}")),
        "{}",
        r.out
    );
    assert!(r.secs < 20.0, "took {} s", r.secs);
}

#[test]
fn a_patch_answered_with_another_object_is_not_a_success() {
    let s = stub(|method, _| {
        match method {
        "GET" => (200, policy_json("nginx")),
        _ => (
            200,
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other","namespace":"default"}}"#
                .into(),
        ),
    }
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &s.url, &token_user());
    let r = run(
        &["suspend", "pp/nginx", "--request-timeout", "5s"],
        kc.to_str().unwrap(),
    );
    assert_ne!(r.code, 0, "{}", r.out);
    assert!(r.out.contains("not that policy"), "{}", r.out);
}

#[test]
fn a_token_with_a_newline_is_a_clear_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let user = format!("    token: \"{TOKEN}\\nX-Injected: 1\"\n");
    let kc = kubeconfig(dir.path(), "http://127.0.0.1:9", &user);
    let r = run(&["suspend", "pp/nginx"], kc.to_str().unwrap());
    assert_eq!(r.code, 3, "{}", r.out);
    assert!(r.out.contains("newline or control character"), "{}", r.out);
}

#[test]
fn a_kubeconfig_yaml_error_names_the_place_and_quotes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    let text = format!(
        "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: {TOKEN}\n    client-key-data: [unclosed {TOKEN}\n"
    );
    std::fs::write(&path, text).unwrap();
    let r = run(&["suspend", "pp/nginx"], path.to_str().unwrap());
    // Bad configuration, as an unknown --context: exit 2.
    assert_eq!(r.code, 2, "{}", r.out);
    assert!(r.out.contains("invalid YAML at line"), "{}", r.out);
    assert!(r.out.contains(path.to_str().unwrap()), "{}", r.out);
}

#[cfg(unix)]
#[test]
fn a_failing_exec_plugin_shows_its_stderr_never_its_stdout() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("plugin.sh");
    let malformed = dir.path().join("malformed.sh");
    std::fs::write(
        &plugin,
        format!("#!/bin/sh\necho '{{\"status\":{{\"token\":\"{TOKEN}\"}}}}'\necho 'login expired: run sso login' >&2\nexit 1\n"),
    )
    .unwrap();
    std::fs::write(
        &malformed,
        format!("#!/bin/sh\necho 'token={TOKEN} not json ['\n"),
    )
    .unwrap();
    for p in [&plugin, &malformed] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let s = stub(|_, _| (200, policy_json("nginx")));
    for (script, expect) in [
        (&plugin, "login expired: run sso login"),
        (&malformed, "not an ExecCredential"),
    ] {
        let user = format!(
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never\n",
            script.display()
        );
        let kc = kubeconfig(dir.path(), &s.url, &user);
        let r = run(
            &["suspend", "pp/nginx", "--request-timeout", "5s"],
            kc.to_str().unwrap(),
        );
        assert_eq!(r.code, 3, "{}", r.out);
        assert!(r.out.contains(expect), "{}", r.out);
    }
}

#[test]
fn missing_kubeconfig_list_entries_are_skipped_and_a_bad_context_lists_the_contexts() {
    let s = stub(|_, _| (200, policy_json("nginx")));
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &s.url, &token_user());
    let list = format!(
        "{}:{}:{}",
        dir.path().join("missing-a").display(),
        kc.display(),
        dir.path().join("missing-b").display()
    );
    let r = run(
        &[
            "suspend",
            "pp/nginx",
            "--dry-run=client",
            "--request-timeout",
            "5s",
        ],
        &list,
    );
    assert_eq!(r.code, 0, "{}", r.out);
    let r = run(
        &["suspend", "pp/nginx", "--context", "nope"],
        kc.to_str().unwrap(),
    );
    // Bad configuration, as kubectl has it: exit 2, not an API failure.
    assert_eq!(r.code, 2, "{}", r.out);
    assert!(
        r.out.contains("context \"nope\"") && r.out.contains("karmada, second"),
        "{}",
        r.out
    );
    let _ = Duration::from_secs(0);
}
