//! One fixture per rule, the way ruff pins each rule's output: `tests/rules/<id>/` holds an
//! `input.yaml` and `expected.txt`, the rows of that rule's findings when the real binary lints
//! the input (`lint -o json`, filtered to the rule). Optional files in the directory:
//! - `args`: more `lint` arguments, whitespace-separated (e.g. `--feature-gates ...`);
//! - `.karmada-policy.yaml`: the configuration (the run's working directory holds it);
//! - `base.yaml`: git mode, `--base`: `base.yaml` is committed as `input.yaml`, then the
//!   working tree gets `input.yaml` (put `--base HEAD` in `args`);
//! - `commit-date`: git mode: `input.yaml` is committed this many days ago (e.g. `12`); the
//!   commit's hash and date are shown as `<commit>` and `<date>` in the rows;
//! - `unreachable.txt`: why the binary never reports this rule (its snapshot is then empty);
//! - `target`: what to lint instead of `input.yaml` (e.g. `.` for a kustomize root); any other
//!   file of the fixture (`kustomization.yaml`...) is copied beside the input. A fixture with a
//!   `kustomization.yaml` needs kustomize or kubectl on PATH;
//! - `no-renderers`: run with no kustomize, kubectl or helm on PATH (its content is a comment).
//!
//! `UPDATE_RULE_SNAPSHOTS=1 cargo test --test rules` rewrites the snapshots.

use std::path::{Path, PathBuf};
use std::process::Command;

use karmada_policy::lint::registry;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rules")
}

fn have_git() -> bool {
    Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs git in `dir` with a fixed identity, no user or system configuration, and `date`;
/// returns its output.
fn git(dir: &Path, args: &[&str], date: &str) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Alice Ops")
        .env("GIT_AUTHOR_EMAIL", "alice@example.com")
        .env("GIT_COMMITTER_NAME", "Alice Ops")
        .env("GIT_COMMITTER_EMAIL", "alice@example.com")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The files that describe a run rather than take part in it.
const META: [&str; 7] = [
    "expected.txt",
    "args",
    "base.yaml",
    "commit-date",
    "unreachable.txt",
    "target",
    // Its presence runs the fixture without kustomize, kubectl or helm on PATH.
    "no-renderers",
];

/// Whether a kustomize can be run here (`kustomize`, or `kubectl kustomize`).
fn have_kustomize() -> bool {
    ["kustomize", "kubectl"].iter().any(|p| {
        Command::new(p)
            .arg("version")
            .arg("--client")
            .output()
            .is_ok()
    })
}

/// Whether the fixture needs a git repository.
fn is_git(fixture: &Path) -> bool {
    fixture.join("base.yaml").exists() || fixture.join("commit-date").exists()
}

/// A working directory for one fixture's run: its input and configuration, in a repository
/// for the git fixtures; and what to redact from the rows (the commit's hash and date).
fn workdir(fixture: &Path) -> (tempfile::TempDir, Vec<(String, &'static str)>) {
    let dir = tempfile::tempdir().unwrap();
    let read = |name: &str| std::fs::read_to_string(fixture.join(name)).ok();
    for entry in std::fs::read_dir(fixture).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_file() && !META.contains(&name.as_str()) {
            std::fs::copy(&path, dir.path().join(&name)).unwrap();
        }
    }
    let input = read("input.yaml").expect("input.yaml");
    let mut redact = vec![(dir.path().display().to_string(), "<dir>")];
    if is_git(fixture) {
        let days: i64 = read("commit-date").map_or(0, |d| d.trim().parse().expect("days"));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let date = format!("@{}", now - days * 86_400);
        git(dir.path(), &["init", "-q", "-b", "main"], &date);
        let first = read("base.yaml").unwrap_or_else(|| input.clone());
        std::fs::write(dir.path().join("input.yaml"), first).unwrap();
        git(dir.path(), &["add", "input.yaml"], &date);
        git(dir.path(), &["commit", "-q", "-m", "base"], &date);
        let log = git(dir.path(), &["log", "-1", "--format=%H %as"], &date);
        let (hash, day) = log.split_once(' ').expect("hash and date");
        redact.push((hash[..7].to_string(), "<commit>"));
        redact.push((day.to_string(), "<date>"));
    }
    std::fs::write(dir.path().join("input.yaml"), input).unwrap();
    (dir, redact)
}

/// The rows of `rule`'s findings: position, severity, rule, field, object and message, then
/// each related location.
fn rows(json: &Value, rule: &str) -> String {
    let at = |v: &Value| {
        format!(
            "{}:{}:{}",
            v["file"].as_str().unwrap_or(""),
            v["line"],
            v["column"]
        )
    };
    let mut out = String::new();
    for f in json["findings"].as_array().expect("findings") {
        if f["rule"] != rule {
            continue;
        }
        let o = &f["object"];
        let object = if o.is_null() {
            String::new()
        } else {
            format!(
                " {}/{}/{}",
                o["kind"].as_str().unwrap_or(""),
                o["namespace"].as_str().unwrap_or(""),
                o["name"].as_str().unwrap_or("")
            )
        };
        out.push_str(&format!(
            "{}-{}:{} {} {} [{}]{object}: {}\n",
            at(f),
            f["endLine"],
            f["endColumn"],
            f["severity"].as_str().unwrap_or(""),
            rule,
            f["field"].as_str().unwrap_or(""),
            f["message"].as_str().unwrap_or("")
        ));
        for r in f["related"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "    related {}: {}\n",
                at(r),
                r["message"].as_str().unwrap_or("")
            ));
        }
    }
    out
}

/// Lints the fixture of `rule` with the real binary and returns its rows.
fn run(rule: &str, fixture: &Path) -> String {
    let (dir, redact) = workdir(fixture);
    let args = std::fs::read_to_string(fixture.join("args")).unwrap_or_default();
    let target = std::fs::read_to_string(fixture.join("target"))
        .map_or_else(|_| "input.yaml".to_string(), |t| t.trim().to_string());
    let mut command = Command::new(BIN);
    if fixture.join("no-renderers").is_file() {
        command.env("PATH", dir.path().join("no-renderers-here"));
    }
    let out = command
        .args(["lint", "-o", "json"])
        .args(args.split_whitespace())
        .arg(target)
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("binary runs");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{rule}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    redact
        .iter()
        .fold(rows(&json, rule), |rows, (from, to)| rows.replace(from, to))
}

#[test]
fn every_registered_rule_has_docs_and_a_fixture() {
    let mut missing = Vec::new();
    for r in registry::docs() {
        assert!(
            !r.summary.is_empty()
                && !r.rationale.is_empty()
                && !r.example.is_empty()
                && !r.fix.is_empty(),
            "{}: incomplete docs",
            r.id
        );
        let dir = fixtures().join(r.id);
        if !dir.join("input.yaml").is_file() || !dir.join("expected.txt").is_file() {
            missing.push(r.id);
        }
    }
    assert!(
        missing.is_empty(),
        "rules without a fixture (tests/rules/<id>/input.yaml and expected.txt): {missing:?}"
    );
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            registry::is_known(&name),
            "tests/rules/{name} is the fixture of no registered rule"
        );
    }
}

#[test]
fn every_rule_reports_its_fixture_as_the_snapshot_says() {
    let update = std::env::var_os("UPDATE_RULE_SNAPSHOTS").is_some();
    let git = have_git();
    let kustomize = have_kustomize();
    let mut failures = Vec::new();
    for r in registry::docs() {
        let fixture = fixtures().join(r.id);
        if !fixture.join("input.yaml").is_file() {
            continue; // the test above names it
        }
        if is_git(&fixture) && !git {
            println!("SKIPPED: {}: git is not installed", r.id);
            continue;
        }
        let renders = !fixture.join("no-renderers").is_file();
        if fixture.join("kustomization.yaml").exists() && renders && !kustomize {
            println!(
                "SKIPPED: {}: neither kustomize nor kubectl is on PATH",
                r.id
            );
            continue;
        }
        let got = run(r.id, &fixture);
        let unreachable = fixture.join("unreachable.txt").is_file();
        if got.is_empty() != unreachable {
            failures.push(format!(
                "{}: {}",
                r.id,
                if unreachable {
                    "reported although unreachable.txt says it cannot be"
                } else {
                    "the fixture does not trigger the rule"
                }
            ));
        }
        let snapshot = fixture.join("expected.txt");
        if update {
            std::fs::write(&snapshot, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&snapshot).unwrap_or_default();
        if got != want {
            failures.push(format!("{}:\n--- expected\n{want}--- got\n{got}", r.id));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n(UPDATE_RULE_SNAPSHOTS=1 cargo test --test rules rewrites the snapshots)",
        failures.join("\n")
    );
}
