//! kubectl's plugin completion, driven as kubectl drives it: `completion kubectl-plugin` writes
//! the `kubectl_complete-karmada_policy` shim, kubectl runs it with the words typed after
//! `kubectl karmada-policy` (the last one being completed) and reads Cobra's protocol back,
//! candidates one per line and `:<directive>`. Live names come from the test API server.

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::json;
use support::{cluster, cpp, pp, TestServer};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");
const SHIM: &str = "kubectl_complete-karmada_policy";

fn skip(reason: &str) {
    let _ = writeln!(std::io::stderr(), "\nSKIPPED: {reason}");
}

/// PATH with the plugin's directory and the shim's first, as after a krew install.
fn path_with(dirs: &[&Path]) -> String {
    let mut parts: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    parts.push(std::env::var("PATH").unwrap_or_default());
    parts.join(":")
}

struct Setup {
    _dir: tempfile::TempDir,
    shim_dir: std::path::PathBuf,
    kubeconfig: std::path::PathBuf,
    _server: TestServer,
}

fn setup() -> Setup {
    let server = TestServer::start();
    server.insert(pp("default", "nginx", json!({"resourceSelectors": []})));
    server.insert(pp("default", "nats", json!({"resourceSelectors": []})));
    server.insert(pp("web", "frontend", json!({"resourceSelectors": []})));
    server.insert(cpp("global", json!({"resourceSelectors": []})));
    server.insert(cluster("member1", true));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path());
    let shim_dir = dir.path().join("krew-bin");
    std::fs::create_dir(&shim_dir).unwrap();
    let o = Command::new(BIN)
        .args(["completion", "kubectl-plugin", "--dir"])
        .arg(&shim_dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains(SHIM));
    Setup {
        _dir: dir,
        shim_dir,
        kubeconfig,
        _server: server,
    }
}

impl Setup {
    fn path(&self) -> String {
        path_with(&[Path::new(BIN).parent().unwrap(), &self.shim_dir])
    }

    /// Runs the shim exactly as kubectl does: its path, then the words.
    fn shim(&self, words: &[&str]) -> Output {
        Command::new(self.shim_dir.join(SHIM))
            .args(words)
            .env("PATH", self.path())
            .env("KUBECONFIG", &self.kubeconfig)
            .output()
            .unwrap()
    }
}

fn lines(o: &Output) -> Vec<String> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

#[test]
fn shim_completes_subcommands() {
    let s = setup();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(s.shim_dir.join(SHIM))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    // `kubectl karmada-policy sus<TAB>`
    assert_eq!(lines(&s.shim(&["sus"])), ["suspend", ":4"]);
    // The same words behind Cobra's own `__complete` request.
    assert_eq!(lines(&s.shim(&["__complete", "sus"])), ["suspend", ":4"]);
}

#[test]
fn shim_completes_policy_names_from_the_control_plane() {
    let s = setup();
    // `kubectl karmada-policy suspend pp/<TAB>`: the context's namespace is `default`.
    assert_eq!(
        lines(&s.shim(&["suspend", "pp/"])),
        ["pp/nats", "pp/nginx", ":4"]
    );
    assert_eq!(
        lines(&s.shim(&["__complete", "suspend", "pp/"])),
        ["pp/nats", "pp/nginx", ":4"]
    );
    assert_eq!(
        lines(&s.shim(&["resume", "-n", "web", "pp/"])),
        ["pp/frontend", ":4"]
    );
    assert_eq!(lines(&s.shim(&["suspend", "cpp/g"])), ["cpp/global", ":4"]);
    assert_eq!(
        lines(&s.shim(&["suspend", "--clusters", ""])),
        ["member1", ":4"]
    );
    assert_eq!(
        lines(&s.shim(&["suspend", "--context", ""])),
        ["karmada", "other", ":4"]
    );
}

#[test]
fn shim_completes_nothing_when_the_control_plane_is_unreachable() {
    let s = setup();
    let dir = tempfile::tempdir().unwrap();
    let dead = dir.path().join("kubeconfig");
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let text: String = std::fs::read_to_string(&s.kubeconfig)
        .unwrap()
        .lines()
        .map(|l| match l.trim_start().starts_with("server: ") {
            true => "    server: http://127.0.0.1:1\n".to_string(),
            false => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&dead, text).unwrap();
    let o = Command::new(s.shim_dir.join(SHIM))
        .args(["suspend", "pp/"])
        .env("PATH", s.path())
        .env("KUBECONFIG", &dead)
        .output()
        .unwrap();
    assert_eq!(lines(&o), [":4"]);
}

#[test]
fn real_kubectl_completes_the_plugin_through_the_shim() {
    let kubectl_ok = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !kubectl_ok {
        skip("kubectl is not installed (plugin completion needs kubectl >= 1.26)");
        return;
    }
    let s = setup();
    let run = |words: &[&str]| {
        Command::new("kubectl")
            .arg("__complete")
            .args(words)
            .env("PATH", s.path())
            .env("KUBECONFIG", &s.kubeconfig)
            .output()
            .unwrap()
    };
    let o = run(&["karmada-policy", "sus"]);
    let got = lines(&o);
    if !got.iter().any(|l| l == "suspend") {
        skip(&format!(
            "this kubectl does not complete plugins (kubectl >= 1.26 does): {got:?}"
        ));
        return;
    }
    assert_eq!(got, ["suspend", ":4"]);
    let got = lines(&run(&["karmada-policy", "suspend", "pp/"]));
    assert_eq!(got, ["pp/nats", "pp/nginx", ":4"]);
}

#[test]
fn completion_scripts_name_the_binary() {
    for (shell, needle) in [
        ("bash", "kubectl-karmada_policy"),
        ("zsh", "#compdef kubectl-karmada_policy"),
        ("fish", "complete -c kubectl-karmada_policy"),
        ("powershell", "kubectl-karmada_policy"),
    ] {
        let o = Command::new(BIN)
            .args(["completion", shell])
            .output()
            .unwrap();
        assert!(o.status.success(), "{shell}");
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(
            text.contains(needle),
            "{shell}: {}",
            &text[..text.len().min(300)]
        );
        assert!(
            text.contains("suspend"),
            "{shell} does not complete subcommands"
        );
    }
}

#[test]
fn a_shim_that_cannot_be_written_is_a_usage_error_naming_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir");
    let o = Command::new(BIN)
        .args(["completion", "kubectl-plugin", "--dir"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with(&format!(
            "error: cannot write {}: ",
            missing.join(SHIM).display()
        )),
        "{err}"
    );
}

/// krew's layout: the binary in `store/karmada-policy/<version>/`, a symlink to it in `bin/`,
/// and only `bin/` on PATH. Run through the real kubectl as a user would, the shim lands in
/// `bin/` and kubectl then completes `kubectl karmada-policy sus<TAB>`.
#[cfg(unix)]
#[test]
fn a_krew_install_gets_its_shim_beside_the_symlink_on_path() {
    let kubectl_ok = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !kubectl_ok {
        skip("kubectl is not installed (plugin completion needs kubectl >= 1.26)");
        return;
    }
    // Beside the build, so the binary can be hard-linked rather than copied.
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let store = root.path().join("store/karmada-policy/v0.1.0");
    let bin = root.path().join("bin");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    let installed = store.join("kubectl-karmada_policy");
    if std::fs::hard_link(BIN, &installed).is_err() {
        std::fs::copy(BIN, &installed).unwrap();
    }
    std::os::unix::fs::symlink(
        Path::new("../store/karmada-policy/v0.1.0/kubectl-karmada_policy"),
        bin.join("kubectl-karmada_policy"),
    )
    .unwrap();
    // PATH as after a krew install: krew's bin, then the system (kubectl), nothing else of ours.
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let kubectl = |args: &[&str]| {
        Command::new("kubectl")
            .args(args)
            .env("PATH", &path)
            .env("KUBECONFIG", root.path().join("no-kubeconfig"))
            .output()
            .unwrap()
    };
    let o = kubectl(&["karmada-policy", "completion", "kubectl-plugin"]);
    let said = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(bin.join(SHIM).is_file(), "{said}");
    assert!(
        !store.join(SHIM).exists(),
        "written beside the symlink's target: {said}"
    );
    assert!(
        said.contains(&bin.join(SHIM).display().to_string()),
        "{said}"
    );
    let o = kubectl(&["__complete", "karmada-policy", "sus"]);
    assert_eq!(lines(&o), ["suspend", ":4"]);
}

/// `kubectl karmada-policy explain -n shop deploy/<TAB>`: the Deployments of `shop` on the
/// control plane, the type resolved through discovery as kubectl resolves it.
#[test]
fn explain_completes_template_names_from_the_control_plane() {
    let s = setup();
    let deploy = |ns: &str, name: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns}, "spec": {"replicas": 1}})
    };
    s._server.insert(deploy("shop", "web"));
    s._server.insert(deploy("shop", "worker"));
    s._server.insert(deploy("default", "other"));
    assert_eq!(
        lines(&s.shim(&["explain", "-n", "shop", "deploy/"])),
        ["deploy/web", "deploy/worker", ":4"]
    );
    assert_eq!(
        lines(&s.shim(&["explain", "-n", "shop", "deployments.apps/wo"])),
        ["deployments.apps/worker", ":4"]
    );
    // The context's namespace without -n.
    assert_eq!(
        lines(&s.shim(&["explain", "deploy/"])),
        ["deploy/other", ":4"]
    );
}
