//! `lint` over a GitOps repository (testdata/gitops-repo): kustomize roots rendered with the
//! real kustomize (`kustomize` or `kubectl kustomize`), Flux substitution, Helm charts, and
//! every finding on the source line to edit. Tests print `SKIPPED:` when no kustomize exists.

use std::path::Path;
use std::process::{Command, Output};

const REPO: &str = "testdata/gitops-repo";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"));
    c.env_remove("NO_COLOR").env("RUST_BACKTRACE", "0");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Whether a kustomize can be run here; prints the skip reason when not.
fn kustomize_available(test: &str) -> bool {
    let found = ["kustomize", "kubectl"].iter().any(|p| {
        Command::new(p)
            .arg("version")
            .arg("--client")
            .output()
            .is_ok()
    });
    if !found {
        println!("SKIPPED: {test}: neither kustomize nor kubectl is on PATH");
    }
    found
}

/// Compares with `tests/snapshots/NAME`; `UPDATE_SNAPSHOTS=1 cargo test` rewrites them.
fn assert_snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing snapshot {}; run with UPDATE_SNAPSHOTS=1",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "snapshot {name} differs (UPDATE_SNAPSHOTS=1 to accept)\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

#[test]
fn the_repository_lints_without_false_positives_in_every_format() {
    if !kustomize_available("the_repository_lints_without_false_positives_in_every_format") {
        return;
    }
    let o = run(&["lint", REPO]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_snapshot("gitops-repo.txt", &stdout(&o));
    // Helm is not installable here: one note per chart, no finding in its templates.
    assert!(
        stderr(&o).contains("charts/podinfo: Helm chart not linted (helm is not on PATH)"),
        "{}",
        stderr(&o)
    );
    for (format, snapshot) in [
        ("json", "gitops-repo.json"),
        ("sarif", "gitops-repo.sarif"),
        ("github", "gitops-repo.github"),
    ] {
        let o = run(&["lint", "-o", format, REPO]);
        assert_eq!(o.status.code(), Some(1), "{format}");
        assert_snapshot(snapshot, &stdout(&o));
    }
}

#[test]
fn findings_land_on_the_lines_to_edit() {
    if !kustomize_available("findings_land_on_the_lines_to_edit") {
        return;
    }
    let o = run(&["lint", "-o", "json", REPO]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let at: Vec<(String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]),
            )
        })
        .collect();
    let expect = |rule: &str, place: &str| {
        assert!(
            at.contains(&(rule.to_string(), format!("{REPO}/{place}"))),
            "{rule} at {place}: {at:?}"
        );
    };
    // In the strategic-merge patch that set the placement, not in the rendered stream.
    expect(
        "invalid-cluster-name",
        "apps/web/overlays/prod/placement.yaml:11",
    );
    // In the suspension-only patch of staging.
    expect(
        "suspended-cluster-not-targeted",
        "apps/web/overlays/staging/suspension.yaml:9",
    );
    // A base shared by two environments: once, naming both.
    expect(
        "application-failover-requires-propagate-deps",
        "apps/web/base/policy.yaml:6",
    );
    // Nothing about patches as objects, the chart's templates or ${cluster_name}.
    for rule in [
        "schema-required",
        "not-an-object",
        "duplicate-identity",
        "unrendered-template",
    ] {
        assert!(!at.iter().any(|(r, _)| r == rule), "{rule}: {at:?}");
    }
}
