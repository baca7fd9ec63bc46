//! The real kustomize for integration tests: whether one can run here (the standalone
//! `kustomize`, else `kubectl kustomize`), a render, a copy of a testdata tree to edit, and git
//! in that copy (for `lint --base` over a rendered repository).
//! Include with `#[path = "support/kustomize.rs"] mod kustomize;`.

#![allow(dead_code)] // each test file uses a different part

use std::path::Path;
use std::process::Command;

fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("version")
        .arg("--client")
        .output()
        .is_ok()
}

/// A Flux bootstrap of cluster `c1` syncing `./clusters/c1` (the file `flux bootstrap`
/// writes), as a `(path, text)` for [`write_files`].
pub const FLUX_BOOTSTRAP_C1: (&str, &str) = (
    "clusters/c1/flux-system/gotk-sync.yaml",
    "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {url: https://github.com/example/repo, ref: {branch: main}, interval: 1m}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./clusters/c1\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
);

/// Writes `files` (path under `root`, text), making their directories.
pub fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Whether a kustomize can be run here; prints the skip reason when not.
pub fn kustomize_available(test: &str) -> bool {
    let found = ["kustomize", "kubectl"].iter().any(|p| runs(p));
    if !found {
        println!("SKIPPED: {test}: neither kustomize nor kubectl is on PATH");
    }
    found
}

/// `kustomize build DIR` (or `kubectl kustomize DIR`): the rendered stream.
pub fn render(dir: &Path) -> String {
    let out = if runs("kustomize") {
        Command::new("kustomize").arg("build").arg(dir).output()
    } else {
        Command::new("kubectl").arg("kustomize").arg(dir).output()
    }
    .expect("kustomize runs");
    assert!(
        out.status.success(),
        "kustomize {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 render")
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// `git ARGS` in `dir` as a fixed test author; the command must succeed.
pub fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs")
        .status
        .success();
    assert!(ok, "git {args:?}");
}

/// A copy of the testdata tree `testdata` (relative to the crate) committed on `main`, with
/// branch `branch` checked out for the change under test; `None`, with the skip reason
/// printed, when git cannot run here.
pub fn committed_copy(test: &str, testdata: &str, branch: &str) -> Option<tempfile::TempDir> {
    if Command::new("git").arg("--version").output().is_err() {
        println!("SKIPPED: {test}: git is not on PATH");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join(testdata), repo);
    git(repo, &["init", "-q", "-b", "main"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "base"]);
    git(repo, &["checkout", "-qb", branch]);
    Some(dir)
}

/// Whether the real helm can run here (`helm version`); prints the skip reason when not.
/// `.ci/run` installs it when absent (see its comment).
pub fn helm_available(test: &str) -> bool {
    let found = Command::new("helm")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        println!("SKIPPED: {test}: helm is not on PATH");
    }
    found
}

/// PATH without the directories that hold a `helm`: runs that show what happens to a chart
/// when helm is missing, whether or not this machine has one.
pub fn path_without_helm() -> std::ffi::OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let (with, mut kept): (Vec<_>, Vec<_>) =
        std::env::split_paths(&path).partition(|d| d.join("helm").exists());
    // A directory holding helm may hold kubectl, kustomize and git too: those stay reachable
    // through links in a directory of their own.
    let links = std::env::temp_dir().join(format!("karmada-policy-nohelm-{}", std::process::id()));
    for tool in ["kubectl", "kustomize", "git"] {
        if let Some(dir) = with.iter().find(|d| d.join(tool).exists()) {
            let _ = std::fs::create_dir_all(&links);
            let _ = std::os::unix::fs::symlink(dir.join(tool), links.join(tool));
        }
    }
    if links.is_dir() {
        kept.push(links);
    }
    std::env::join_paths(kept).expect("PATH entries join")
}

/// The binary run in the crate's directory with `args`, without helm on PATH.
pub fn run_without_helm(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(args)
        .env_remove("NO_COLOR")
        .env("RUST_BACKTRACE", "0")
        .env("PATH", path_without_helm())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("binary runs")
}

/// The environment `name` of a GitOps JSON report (`lint`, `plan`); panics, showing the
/// report, when it has none.
pub fn environment<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["environments"]
        .as_array()
        .expect("the report lists environments")
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no environment {name}: {report:#}"))
}

/// The environment names of a GitOps JSON report (`lint`, `explain`, `plan`), in its order.
pub fn environment_names(report: &serde_json::Value) -> Vec<&str> {
    report["environments"]
        .as_array()
        .expect("the report lists environments")
        .iter()
        .map(|e| e["name"].as_str().expect("an environment has a name"))
        .collect()
}
