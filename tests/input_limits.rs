//! Hostile inputs and file systems (issue 18, "Input limits"): every case is built in a
//! temporary directory and goes through the real binary. Each must end promptly with a finding
//! or a clear error, never a crash (101, 134), a hang or unbounded memory.

use std::path::Path;
use std::process::{Command, Output};

#[path = "support/run.rs"]
mod run;
use run::{run_piped_within_60s, BIN};

const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n";

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `lint -o json` findings of `dir/name`, with the exit code (0 or 1 asserted).
fn lint_json(dir: &Path, name: &str) -> (i32, Vec<serde_json::Value>) {
    let o = run_piped_within_60s(Some(dir), &["lint", "-o", "json", name], None);
    let (out, err) = text(&o);
    let code = o.status.code().unwrap_or(-1);
    assert!(matches!(code, 0 | 1), "exit {code:?}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    (code, v["findings"].as_array().unwrap().clone())
}

fn billion_laughs() -> String {
    let mut t = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\n");
    t.push_str("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    let mut prev = 'a';
    for c in "bcdefghi".chars() {
        let refs = vec![format!("*{prev}"); 9].join(",");
        t.push_str(&format!("{c}: &{c} [{refs}]\n"));
        prev = c;
    }
    t
}

#[test]
fn billion_laughs_is_a_finding_at_the_alias_and_the_next_document_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    // The second document has a finding of its own (no kind), so it must have been checked.
    let text = format!(
        "{}---\napiVersion: v1\nmetadata: {{name: after}}\n",
        billion_laughs()
    );
    std::fs::write(dir.path().join("laughs.yaml"), text).unwrap();
    let (code, findings) = lint_json(dir.path(), "laughs.yaml");
    assert_eq!(code, 1);
    let alias = findings
        .iter()
        .find(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .contains("excessive aliasing")
        })
        .expect("an excessive-aliasing finding");
    assert_eq!(alias["rule"], "yaml-syntax");
    assert!(alias["line"].as_u64().unwrap() >= 5, "{alias}");
    assert!(
        findings.iter().any(|f| f["rule"] == "missing-type"),
        "{findings:?}"
    );
}

#[test]
fn deep_block_and_flow_nesting_are_findings_not_stack_overflows() {
    let dir = tempfile::tempdir().unwrap();
    let block = format!(
        "{CONFIG_MAP}data:\n  x: |\n    fine\n---\n{}x\n",
        "- ".repeat(100_000)
    );
    let flow = format!("a: {}{}\n", "[".repeat(50_000), "]".repeat(50_000));
    let map: String = (0..300)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    for (name, text) in [
        ("block.yaml", block),
        ("flow.yaml", flow),
        ("map.yaml", map),
    ] {
        std::fs::write(dir.path().join(name), text).unwrap();
        let (code, findings) = lint_json(dir.path(), name);
        assert_eq!(code, 1, "{name}");
        assert!(
            findings.iter().any(|f| f["message"]
                .as_str()
                .unwrap()
                .contains("nesting deeper than")),
            "{name}: {findings:?}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_walk_skips_fifos_devices_and_dangling_links_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("m")).unwrap();
    std::fs::write(root.join("m/a.yaml"), CONFIG_MAP).unwrap();
    let fifo = root.join("m/pipe.yaml");
    let ok = Command::new("mkfifo").arg(&fifo).status();
    if !ok.is_ok_and(|s| s.success()) {
        println!("SKIPPED: mkfifo is not available");
        return;
    }
    std::os::unix::fs::symlink("/dev/zero", root.join("m/zero.yaml")).unwrap();
    std::os::unix::fs::symlink(root.join("m/gone.yaml"), root.join("m/dangling.yaml")).unwrap();
    let o = run_piped_within_60s(Some(root), &["lint", "m"], None);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("in 1 file"), "{out}");
    assert!(
        err.contains("note: m/dangling.yaml: dangling symbolic link, skipped"),
        "{err}"
    );
    assert!(
        err.contains("note: m/pipe.yaml: a FIFO, not a regular file, skipped"),
        "{err}"
    );
    assert!(
        err.contains("note: m/zero.yaml: symbolic link to a character device"),
        "{err}"
    );

    // A FIFO named explicitly is read, as `cat` reads it.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, CONFIG_MAP).unwrap())
    };
    let o = run_piped_within_60s(Some(root), &["lint", "m/pipe.yaml"], None);
    writer.join().unwrap();
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(
        text(&o).0.contains("in 1 file (1 document"),
        "{:?}",
        text(&o)
    );
}

/// A FIFO `name` in `root` holding `content` for each run of the tool: `None` (SKIPPED said)
/// where mkfifo is missing. One writer per run: a second open of the pipe would wait for a
/// writer that never comes (the run is then killed after 60 s and the test fails).
#[cfg(unix)]
fn fifo_runs<'a>(
    root: &'a Path,
    name: &str,
    content: &'static str,
) -> Option<impl Fn(&[&str]) -> Output + 'a> {
    let fifo = root.join(name);
    let ok = Command::new("mkfifo").arg(&fifo).status();
    if !ok.is_ok_and(|s| s.success()) {
        println!("SKIPPED: mkfifo is not available");
        return None;
    }
    Some(move |args: &[&str]| {
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, content).unwrap())
        };
        let o = run_piped_within_60s(Some(root), args, None);
        writer.join().unwrap();
        o
    })
}

/// `explain` and `preempt-check` read `-f` files twice over plain manifests (the Karmada they
/// install, then the manifests): a pipe given as a file (`-f <(helm template ...)`) was empty
/// the second time, so its policy was lost without a word.
#[cfg(unix)]
#[test]
fn a_pipe_given_to_explain_and_preempt_check_is_read_once() {
    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n";
    const PP: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [m1]}}\n";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("deploy.yaml"), DEPLOY).unwrap();
    std::fs::write(root.join("pp.yaml"), PP).unwrap();
    let Some(through_pipe) = fifo_runs(root, "pp.pipe", PP) else {
        return;
    };
    let o = through_pipe(&[
        "explain",
        "deploy/web",
        "-f",
        "deploy.yaml",
        "-f",
        "pp.pipe",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("PropagationPolicy default/web"), "{out}{err}");
    assert!(!out.contains("no policy matches"), "{out}");

    let o = through_pipe(&[
        "preempt-check",
        "-f",
        "deploy.yaml",
        "-f",
        "pp.pipe",
        "--apply",
        "pp.yaml",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("Moves:\n  none"), "{out}{err}");
    assert!(out.contains("Unchanged: 1 other template"), "{out}");
}

/// A pipe that holds Karmada's installation is read for its settings and for its documents:
/// `lint` (which lints again under the settings found) and `preempt-check` (which reads the
/// installation before the manifests) each read it more than once, and a pipe gives its
/// content once.
#[cfg(unix)]
#[test]
fn a_pipe_holding_the_installation_gives_its_settings_and_its_documents() {
    const INSTALL: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karmada-controller-manager, namespace: karmada-system}\nspec:\n  selector: {matchLabels: {app: kcm}}\n  template:\n    metadata: {labels: {app: kcm}}\n    spec:\n      containers:\n      - name: karmada-controller-manager\n        image: docker.io/karmada/karmada-controller-manager:v1.12.0\n        command: [/bin/karmada-controller-manager, --feature-gates=PropagationPolicyPreemption=true]\n";
    const APP: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: low, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  placement: {clusterAffinity: {clusterNames: [m1]}}\n";
    const HIGH: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: high, namespace: default}\nspec:\n  priority: 10\n  preemption: Always\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [m2]}}\n";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("app.yaml"), APP).unwrap();
    std::fs::write(root.join("high.yaml"), HIGH).unwrap();
    let Some(through_pipe) = fifo_runs(root, "install.pipe", INSTALL) else {
        return;
    };
    let o = through_pipe(&["lint", "app.yaml", "high.yaml", "install.pipe"]);
    let (out, err) = text(&o);
    assert!(out.contains("(4 documents, 2 policies)"), "{out}{err}");
    assert!(
        err.contains("PropagationPolicyPreemption=true (install.pipe:12)"),
        "{err}"
    );
    assert!(!out.contains("inert-preemption"), "the gate is on: {out}");

    let o = through_pipe(&[
        "preempt-check",
        "-f",
        "app.yaml",
        "-f",
        "install.pipe",
        "--apply",
        "high.yaml",
    ]);
    let (out, err) = text(&o);
    assert!(
        out.contains("deployment/default/web: pp/default/low -> pp/default/high (preempted)"),
        "{out}{err}"
    );
}

#[cfg(unix)]
#[test]
fn a_dangling_link_in_the_work_tree_is_a_note_for_lint_base() {
    let git_ok = Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !git_ok {
        println!("SKIPPED: git is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let git = |args: &[&str]| {
        let o = Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "A")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "A")
            .env("GIT_COMMITTER_EMAIL", "a@example.com")
            .output()
            .unwrap();
        assert!(o.status.success(), "{:?}", o);
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(root.join("a.yaml"), CONFIG_MAP).unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    std::os::unix::fs::symlink(root.join("gone.yaml"), root.join("dangling.yaml")).unwrap();
    let o = run_piped_within_60s(Some(root), &["lint", "--base", "main"], None);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        err.contains("dangling.yaml: dangling symbolic link, skipped"),
        "{err}"
    );
}

#[test]
fn a_file_or_stdin_over_the_size_limit_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let big = format!("{CONFIG_MAP}data:\n  x: {}\n", "y".repeat(4096));
    std::fs::write(dir.path().join("big.yaml"), &big).unwrap();
    let o = run_piped_within_60s(
        Some(dir.path()),
        &["lint", "--max-input-size", "2k", "big.yaml"],
        None,
    );
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("big.yaml: larger than the input limit of 2048 bytes"),
        "{err}"
    );
    let o = run_piped_within_60s(
        Some(dir.path()),
        &["lint", "--max-input-size", "2k", "-"],
        Some(big.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("<stdin>: larger than the input limit"));
    // The default (64 MiB) reads it.
    let o = run_piped_within_60s(Some(dir.path()), &["lint", "big.yaml"], None);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
}

#[test]
fn a_long_source_line_is_cut_in_text_output() {
    let dir = tempfile::tempdir().unwrap();
    // A 5 MB plain scalar with a syntax error after it.
    let text_in = format!("a: {} : b\n", "x".repeat(5 << 20));
    std::fs::write(dir.path().join("long.yaml"), text_in).unwrap();
    let o = run_piped_within_60s(Some(dir.path()), &["lint", "long.yaml"], None);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(out.len() < 4096, "{} bytes of output", out.len());
    assert!(out.contains('…'), "{out}");
}

#[test]
fn empty_input_is_an_error_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    std::fs::write(dir.path().join("empty/README.md"), "nothing").unwrap();
    let o = run_piped_within_60s(Some(dir.path()), &["lint", "empty"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("no .yaml, .yml or .json file in empty"),
        "{:?}",
        text(&o)
    );
    let o = run_piped_within_60s(Some(dir.path()), &["lint", "--allow-empty", "empty"], None);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));

    for stdin in [&b""[..], b"\n# only a comment\n"] {
        let o = run_piped_within_60s(Some(dir.path()), &["lint", "-"], Some(stdin));
        assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
        assert!(text(&o).1.contains("stdin holds no Kubernetes object"));
        let o = run_piped_within_60s(
            Some(dir.path()),
            &["lint", "--allow-empty", "-"],
            Some(stdin),
        );
        assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    }
}

#[test]
fn invalid_utf8_in_a_file_is_a_finding_at_its_byte() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = CONFIG_MAP.as_bytes().to_vec();
    bytes.extend_from_slice(b"data:\n  x: caf\xe9\n");
    std::fs::write(dir.path().join("latin1.yaml"), bytes).unwrap();
    let (code, findings) = lint_json(dir.path(), "latin1.yaml");
    assert_eq!(code, 1);
    let f = &findings[0];
    assert_eq!(f["rule"], "yaml-syntax");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("invalid UTF-8 (byte 0xE9)"),
        "{f}"
    );
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(6), Some(9))
    );
}

#[cfg(unix)]
#[test]
fn a_non_utf8_path_is_named_or_linted_by_a_walk() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = OsStr::from_bytes(b"caf\xe9.yaml");
    if std::fs::write(dir.path().join(name), CONFIG_MAP).is_err() {
        println!("SKIPPED: the file system refuses non-UTF-8 names");
        return;
    }
    let o = Command::new(BIN)
        .arg("lint")
        .arg(name)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("argument `caf\u{fffd}.yaml` is not valid UTF-8"),
        "{err}"
    );
    let o = run_piped_within_60s(Some(dir.path()), &["lint", "."], None);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(
        text(&o).0.contains("in 1 file (1 document"),
        "{:?}",
        text(&o)
    );
}
