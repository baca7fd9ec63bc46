//! In-place edits under attack and bad luck (issue 18, "File edits"): `suspend -f` / `resume -f`
//! on files in temporary directories, through the real binary.
#![cfg(unix)]

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

const POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: nginx
  namespace: default
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: nginx
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    let o: Output = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .output()
        .expect("run the binary");
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Names in `dir` that look like an edit's temporary file.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn a_planted_symlink_at_the_old_temporary_name_is_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pp.yaml");
    std::fs::write(&file, POLICY).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious\n").unwrap();
    // The old name was `.NAME.karmada-policy-PID.tmp`: plant it for the next few hundred PIDs.
    let me = std::process::id();
    for pid in me..me + 400 {
        let planted = dir
            .path()
            .join(format!(".pp.yaml.karmada-policy-{pid}.tmp"));
        std::os::unix::fs::symlink(&victim, planted).unwrap();
    }
    let r = run(&["suspend", "-f", file.to_str().unwrap(), "pp/nginx"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let meta = std::fs::symlink_metadata(&file).unwrap();
    assert!(meta.file_type().is_file(), "the manifest is still a file");
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("  suspension:\n    dispatching: true\n"));
    assert_eq!(
        leftovers(dir.path()).len(),
        400,
        "only the planted links remain"
    );
}

#[test]
fn an_interrupted_edit_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pp.yaml");
    // Large enough that some signals land while the temporary file exists.
    let mut text = POLICY.to_string();
    for i in 0..3000 {
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: {}\n",
            "v".repeat(200)
        ));
    }
    for round in 0..24u64 {
        std::fs::write(&file, &text).unwrap();
        let action = if round % 2 == 0 { "suspend" } else { "resume" };
        let child = Command::new(BIN)
            .args([action, "-f", file.to_str().unwrap(), "pp/nginx"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(5 + round * 15));
        let signal = if round % 3 == 0 {
            libc::SIGINT
        } else {
            libc::SIGTERM
        };
        // SAFETY: a plain kill(2) of our own child.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let _ = child.wait_with_output();
        assert_eq!(leftovers(dir.path()), Vec::<String>::new(), "round {round}");
        let now = std::fs::read_to_string(&file).unwrap();
        assert!(now.len() >= text.len(), "round {round}: a torn file");
    }
}

#[test]
fn an_anchor_in_the_suspension_block_aliased_elsewhere_is_refused_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pp.yaml");
    let text = POLICY.replace(
        "      clusterNames: [member1, member2]\n",
        "      clusterNames: *frozen\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: &frozen [member1, member2]\n",
    );
    // The alias comes before its anchor here, which YAML refuses: put the anchor first.
    let text = text.replace(
        "  placement:\n    clusterAffinity:\n      clusterNames: *frozen\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: &frozen [member1, member2]\n",
        "  suspension:\n    dispatchingOnClusters:\n      clusterNames: &frozen [member1, member2]\n  placement:\n    clusterAffinity:\n      clusterNames: *frozen\n",
    );
    std::fs::write(&file, &text).unwrap();
    let lint = run(&["lint", file.to_str().unwrap(), "--fail-on", "none"]);
    assert_eq!(lint.code, 0, "the fixture loads: {}", lint.stdout);
    let r = run(&["resume", "-f", file.to_str().unwrap(), "pp/nginx"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("pp.yaml"), "{}", r.stderr);
    assert!(r.stderr.contains("nothing was changed"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

#[test]
fn mode_owner_and_group_are_kept_and_hard_links_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pp.yaml");
    std::fs::write(&file, POLICY).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&file, Some(4242), Some(4343)).unwrap();
    } else {
        println!("SKIPPED (owner and group): not running as root");
    }
    std::fs::hard_link(&file, dir.path().join("other-name.yaml")).unwrap();
    let r = run(&["suspend", "-f", file.to_str().unwrap(), "pp/nginx"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("has 2 hard links"),
        "a warning: {}",
        r.stderr
    );
    let meta = std::fs::metadata(&file).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, 0o640);
    if root {
        assert_eq!((meta.uid(), meta.gid()), (4242, 4343));
    }
}

#[test]
fn two_documents_defining_the_same_policy_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pp.yaml");
    let text = format!("{POLICY}---\n{POLICY}");
    std::fs::write(&file, &text).unwrap();
    let r = run(&["suspend", "-f", file.to_str().unwrap(), "pp/nginx"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    // Said once, at the documents' lines (it was said once per copy, without places).
    let said = format!(
        "defined by documents 1 (line 1) and 2 (line {}) of the file",
        POLICY.lines().count() + 2
    );
    assert_eq!(r.stderr.matches(&said).count(), 1, "{}", r.stderr);
    assert_eq!(r.stderr.matches("error:").count(), 1, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn a_file_with_invalid_utf8_is_not_edited() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pp.yaml");
    let mut bytes = POLICY.as_bytes().to_vec();
    bytes.extend_from_slice(b"# caf\xe9\n");
    std::fs::write(&file, &bytes).unwrap();
    let r = run(&["suspend", "-f", file.to_str().unwrap(), "pp/nginx"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("YAML problems"), "{}", r.stderr);
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
}
