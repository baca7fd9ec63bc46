//! `suspend` / `resume` end to end: file mode on real files, live mode against the in-process
//! test API server (tests/support), and a fidelity check of that server with the real kubectl.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value as J};
use support::{cluster, cpp, pp, rb, work, TestServer, SECRET_TOKEN};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/suspend")
        .join(name)
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn finish(out: Output) -> Run {
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        !r.stdout.contains(SECRET_TOKEN) && !r.stderr.contains(SECRET_TOKEN),
        "credentials printed"
    );
    r
}

/// Runs the binary with stdin closed (not a terminal) and a clean environment for kubeconfig.
fn run(args: &[&str], kubeconfig: Option<&Path>) -> Run {
    let mut c = Command::new(BIN);
    c.args(args)
        .stdin(Stdio::null())
        .env_remove("KUBECONFIG")
        .env("HOME", std::env::temp_dir().join("kkp-no-home"))
        .env("NO_COLOR", "1");
    if let Some(k) = kubeconfig {
        c.env("KUBECONFIG", k);
    }
    finish(c.output().expect("run binary"))
}

// ---------------------------------------------------------------------------------------------
// File mode

#[test]
fn file_mode_round_trips_a_commented_multi_document_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policies.yaml");
    let original = std::fs::read(testdata("policies.yaml")).unwrap();
    std::fs::write(&file, &original).unwrap();
    let f = file.to_str().unwrap();

    let r = run(
        &[
            "suspend",
            "-f",
            f,
            "pp/nginx",
            "cpp/platform",
            "--clusters",
            "member2,member3",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        format!(
            "propagationpolicy.policy.karmada.io/nginx ({f}) suspended on member2, member3\n\
             clusterpropagationpolicy.policy.karmada.io/platform ({f}) suspended on member2, member3\n"
        )
    );
    // Only the suspension lines changed: the exact expected bytes.
    let expected = std::fs::read(testdata("policies.suspended.yaml")).unwrap();
    assert_eq!(
        String::from_utf8(std::fs::read(&file).unwrap()).unwrap(),
        String::from_utf8(expected).unwrap()
    );

    // Idempotent: nothing to add, the file is untouched.
    let before = std::fs::read(&file).unwrap();
    let r = run(
        &["suspend", "-f", f, "pp/nginx", "--clusters", "member2"],
        None,
    );
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.ends_with("already suspended on member2\n"),
        "{}",
        r.stdout
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);

    // Resuming both clusters removes `suspension` from nginx: back to the original bytes.
    let r = run(
        &[
            "resume",
            "-f",
            f,
            "pp/nginx",
            "--clusters",
            "member3,member2",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(
        &["resume", "-f", f, "cpp/platform", "--clusters", "member3"],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        String::from_utf8(std::fs::read(&file).unwrap()).unwrap(),
        String::from_utf8(original).unwrap()
    );
    // No temporary file is left behind by the atomic write.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

/// A `--clusters` name no cluster can have is refused before anything is read or written (exit
/// 2), quoted so that a control character in it never reaches the terminal raw; in files it
/// was written, and lint then reported it (`invalid-cluster-name`).
#[test]
fn a_cluster_name_no_cluster_can_have_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::copy(testdata("policies.yaml"), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    for (name, said) in [
        (
            "Bad_Name",
            "--clusters \"Bad_Name\": not a valid cluster name",
        ),
        (
            "mem\u{1b}[1mber",
            "--clusters \"mem\\u{1b}[1mber\": not a valid cluster name",
        ),
    ] {
        let r = run(
            &[
                "suspend",
                "-f",
                file.to_str().unwrap(),
                "pp/nginx",
                "--clusters",
                name,
            ],
            None,
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains(said), "{}", r.stderr);
        assert!(!r.stderr.contains('\u{1b}'), "{:?}", r.stderr);
        assert_eq!(std::fs::read(&file).unwrap(), before);
    }
}

/// In files the configuration's `knownClusters` stand for the control plane's Clusters: an
/// unknown `--clusters` name warns, and `--strict` ends the command before anything is written.
#[test]
fn file_mode_checks_cluster_names_against_known_clusters() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::copy(testdata("policies.yaml"), &file).unwrap();
    std::fs::write(
        dir.path().join(".karmada-policy.yaml"),
        "knownClusters: [member1, member2]\n",
    )
    .unwrap();
    let before = std::fs::read(&file).unwrap();
    let config = dir.path().join(".karmada-policy.yaml");
    let args = |strict: bool| {
        let mut a = vec![
            "suspend",
            "-f",
            file.to_str().unwrap(),
            "pp/nginx",
            "--clusters",
            "member8",
            "--dry-run",
            "--config",
            config.to_str().unwrap(),
        ];
        if strict {
            a.push("--strict");
        }
        a
    };
    let r = run(&args(true), None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("unknown cluster member8 (known: member1, member2)"),
        "{}",
        r.stderr
    );
    let r = run(&args(false), None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("warning: unknown cluster member8"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

/// `--all` and a freeze over files with a document that does not parse (an unrendered Helm
/// template) may miss a policy they take: the other files are edited, the document is named,
/// and the run fails (it exited 0, the document passed over in silence or with a warning).
#[test]
fn bulk_edits_fail_for_a_document_they_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(testdata("policies.yaml"), d.join("ok.yaml")).unwrap();
    std::fs::write(d.join("tpl.yaml"), "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n").unwrap();
    let dir_arg = d.to_str().unwrap();
    for args in [
        vec!["suspend", "--all", "-f", dir_arg, "--yes", "--dry-run"],
        vec![
            "suspend",
            "--clusters",
            "member1",
            "-f",
            dir_arg,
            "--yes",
            "--dry-run",
        ],
    ] {
        let r = run(&args, None);
        assert_eq!(r.code, 1, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("tpl.yaml:4:9: unrendered template")
                && r.stderr.contains(
                    "a policy the selection takes may be in this document, which was not edited"
                ),
            "{args:?}: {}",
            r.stderr
        );
    }
}

#[test]
fn file_mode_dry_run_prints_a_diff_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::copy(testdata("policies.yaml"), &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    let r = run(
        &[
            "suspend",
            "-f",
            file.to_str().unwrap(),
            "pp/nginx",
            "--dry-run",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("+  suspension:\n+    dispatching: true\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("--- a/"), "{}", r.stdout);
    assert!(r.stdout.contains("suspended on all clusters (dry run)"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

/// `-f .` walks the directory: the diff names the file as git does (`a/policies/p.yaml`), since
/// `git apply` refuses `a/./policies/p.yaml` (jittuki/Karmada-project).
#[test]
fn file_mode_dry_run_of_the_current_directory_prints_a_diff_git_applies() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("policies")).unwrap();
    std::fs::copy(
        testdata("policies.yaml"),
        dir.path().join("policies/p.yaml"),
    )
    .unwrap();
    let out = Command::new(BIN)
        .args(["suspend", "-f", ".", "pp/nginx", "--dry-run"])
        .current_dir(dir.path())
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let r = finish(out);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("--- a/policies/p.yaml\n+++ b/policies/p.yaml\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("(policies/p.yaml) suspended"),
        "{}",
        r.stdout
    );
}

#[test]
fn file_mode_selects_by_label_and_all_and_reports_missing_names() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::copy(testdata("policies.yaml"), &file).unwrap();
    let f = file.to_str().unwrap();
    let r = run(
        &["suspend", "-f", f, "-l", "tier=platform", "--dry-run"],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stdout
        .contains("clusterpropagationpolicy.policy.karmada.io/platform"));
    assert!(!r
        .stdout
        .contains("propagationpolicy.policy.karmada.io/nginx"));
    let r = run(&["resume", "-f", f, "--all"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("nginx (") && r.stdout.contains("not suspended"));
    assert!(r.stdout.contains("platform (") && r.stdout.contains("resumed"));
    let r = run(&["suspend", "-f", f, "pp/nope"], None);
    assert_eq!(r.code, 4);
    assert!(
        r.stderr.contains("pp") || r.stderr.contains("nope"),
        "{}",
        r.stderr
    );
    let r = run(&["suspend", "-f", f, "-n", "other", "pp/nginx"], None);
    assert_eq!(r.code, 4, "namespace filter: {}", r.stdout);
    let r = run(&["suspend", "-f", f], None);
    assert_eq!(r.code, 2, "no selection is a usage error");
    // A symlinked manifest is edited through the link; the link stays a link.
    #[cfg(unix)]
    {
        let link = dir.path().join("link.yaml");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let r = run(&["suspend", "-f", link.to_str().unwrap(), "pp/nginx"], None);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(std::fs::read_to_string(&file)
            .unwrap()
            .contains("  suspension:\n    dispatching: true\n"));
    }
}

#[test]
fn failover_policy_needs_force_to_suspend_everything() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::write(
        &file,
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: app\nspec:\n  propagateDeps: true\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n  failover:\n    application:\n      decisionConditions:\n        tolerationSeconds: 60\n      purgeMode: Never\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let r = run(&["suspend", "-f", f, "pp/app"], None);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stderr.contains("indefinite stall"), "{}", r.stderr);
    assert!(r.stderr.contains("--force"), "{}", r.stderr);
    let r = run(&["suspend", "-f", f, "pp/app", "--force"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("warning:") && r.stderr.contains("purgeMode Never"));
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("  suspension:\n    dispatching: true\n"));
}

/// Cluster failover stalls under a suspension only where it runs (the Failover gate, and from
/// Karmada 1.14 `--enable-no-execute-taint-eviction`): elsewhere nothing is evicted, as `lint`
/// says in the same context (failover-gate-off), so suspending needs no `--force`.
#[test]
fn cluster_failover_needs_force_only_where_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    let policy = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: app\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n  placement:\n    clusterAffinity:\n      clusterNames: [member1, member2]\n  failover:\n    cluster:\n      purgeMode: Directly\n";
    std::fs::write(&file, policy).unwrap();
    let f = file.to_str().unwrap();
    let config = dir.path().join("config.yaml");
    std::fs::write(
        &config,
        "featureGates: {Failover: true}\ncontrollerManagerFlags: {enable-no-execute-taint-eviction: true}\n",
    )
    .unwrap();
    let c = config.to_str().unwrap();
    let r = run(&["suspend", "-f", f, "pp/app", "--config", c], None);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("cluster failover (purgeMode Directly) still evicts"),
        "{}",
        r.stderr
    );
    // Before Karmada 1.15 a policy has no `failover.cluster` (the API server prunes it): the
    // taint manager runs with the gate, but this policy asks nothing of it.
    let r = run(
        &[
            "suspend",
            "-f",
            f,
            "pp/app",
            "--dry-run",
            "--feature-gates",
            "Failover=true",
            "--karmada-version",
            "1.13",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The Karmada the inputs install (as `lint` reads it): a controller-manager with the gate
    // and the flag, beside the policy.
    let installed = tempfile::tempdir().unwrap();
    std::fs::write(installed.path().join("p.yaml"), policy).unwrap();
    std::fs::write(
        installed.path().join("kcm.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karmada-controller-manager, namespace: karmada-system}\nspec:\n  selector: {matchLabels: {app: kcm}}\n  template:\n    metadata: {labels: {app: kcm}}\n    spec:\n      containers:\n      - name: karmada-controller-manager\n        image: docker.io/karmada/karmada-controller-manager:v1.15.0\n        command: [/bin/karmada-controller-manager, --feature-gates=Failover=true, --enable-no-execute-taint-eviction=true]\n",
    )
    .unwrap();
    let r = run(
        &[
            "suspend",
            "-f",
            installed.path().to_str().unwrap(),
            "pp/app",
        ],
        None,
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stderr.contains("pass --force"), "{}", r.stderr);
    // Karmada 1.19's defaults: the gate is off.
    let r = run(&["suspend", "-f", f, "pp/app"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("failover"), "{}", r.stderr);
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("  suspension:\n    dispatching: true\n"));
}

// ---------------------------------------------------------------------------------------------
// Live mode

struct Live {
    server: TestServer,
    _dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

fn live() -> Live {
    let server = TestServer::start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path());
    for c in ["member1", "member2", "member3"] {
        server.insert(cluster(c, true));
    }
    server.insert(pp(
        "default",
        "nginx",
        json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
               "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2", "member3"]}},
               "priority": 5, "conflictResolution": "Abort"}),
    ));
    Live {
        server,
        _dir: dir,
        kubeconfig,
    }
}

impl Live {
    fn run(&self, args: &[&str]) -> Run {
        run(args, Some(&self.kubeconfig))
    }

    fn nginx(&self) -> J {
        self.server
            .get("PropagationPolicy", "default", "nginx")
            .unwrap()
    }
}

#[test]
fn live_suspend_clusters_then_idempotent_then_resume() {
    let l = live();
    let before = l.nginx();
    let r = l.run(&["suspend", "pp/nginx", "--clusters", "member2,member3"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "propagationpolicy.policy.karmada.io/nginx suspended on member2, member3\n"
    );
    let after = l.nginx();
    assert_eq!(
        after["spec"]["suspension"],
        json!({"dispatchingOnClusters": {"clusterNames": ["member2", "member3"]}})
    );
    // Nothing else changed: labels, finalizers, placement, priority.
    let strip = |o: &J| {
        let mut o = o.clone();
        o["spec"].as_object_mut().unwrap().remove("suspension");
        for k in ["resourceVersion", "generation"] {
            o["metadata"].as_object_mut().unwrap().remove(k);
        }
        o
    };
    assert_eq!(strip(&before), strip(&after));

    let writes = l.server.writes();
    let r = l.run(&["suspend", "pp/nginx", "--clusters", "member2"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        "propagationpolicy.policy.karmada.io/nginx already suspended on member2\n"
    );
    assert_eq!(l.server.writes(), writes, "no write for no change");

    // Suspending all drops the list (dispatching and dispatchingOnClusters are exclusive).
    let r = l.run(&["suspend", "pp/nginx"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        l.nginx()["spec"]["suspension"],
        json!({"dispatching": true})
    );

    // Resume one cluster of an all-clusters suspension: the targets come from the bindings.
    l.server.insert(rb(
        "default",
        "nginx-deployment",
        "id-default-nginx",
        &["member1", "member3"],
    ));
    let r = l.run(&["resume", "pp/nginx", "--clusters", "member3"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "propagationpolicy.policy.karmada.io/nginx resumed on member3 (still suspended on member1)\n"
    );
    assert_eq!(
        l.nginx()["spec"]["suspension"],
        json!({"dispatchingOnClusters": {"clusterNames": ["member1"]}})
    );
    let r = l.run(&["resume", "pp/nginx"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "propagationpolicy.policy.karmada.io/nginx resumed\n"
    );
    assert!(l.nginx()["spec"].get("suspension").is_none());
    // -o yaml prints the object (here unchanged) as YAML that reads back as the same object.
    let r = l.run(&["resume", "pp/nginx", "-o", "yaml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let loaded =
        karmada_policy::source::load(karmada_policy::source::Source::new("out", r.stdout.clone()));
    assert!(loaded.problems.is_empty(), "{}", r.stdout);
    let back = loaded.documents[0].root.to_json();
    assert_eq!(back["metadata"]["name"], "nginx");
    assert_eq!(back["spec"], l.nginx()["spec"]);
}

#[test]
fn two_processes_suspending_different_clusters_both_apply() {
    let l = live();
    // Slow reads make both processes read the same resourceVersion before either writes, so
    // one of them must get 409 Conflict, re-read and recompute.
    l.server
        .shared
        .faults
        .slow_get_ms
        .store(400, std::sync::atomic::Ordering::SeqCst);
    let spawn = |cluster: &str| {
        Command::new(BIN)
            .args(["suspend", "pp/nginx", "--clusters", cluster])
            .env("KUBECONFIG", &l.kubeconfig)
            .env("HOME", std::env::temp_dir().join("kkp-no-home"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn("member2");
    let b = spawn("member3");
    let (a, b) = (
        finish(a.wait_with_output().unwrap()),
        finish(b.wait_with_output().unwrap()),
    );
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert_eq!(b.code, 0, "{}", b.stderr);
    let mut names: Vec<String> = l.nginx()["spec"]["suspension"]["dispatchingOnClusters"]
        ["clusterNames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["member2", "member3"], "no lost update");
    let patches = l
        .server
        .requests()
        .iter()
        .filter(|r| r.starts_with("PATCH"))
        .count();
    assert!(
        patches >= 3,
        "one writer must have retried: {patches} patches"
    );
}

#[test]
fn conflict_storm_past_the_retry_budget_exits_1_and_changes_nothing() {
    let l = live();
    let before = l.nginx();
    l.server
        .shared
        .faults
        .conflicts
        .store(1000, std::sync::atomic::Ordering::SeqCst);
    let r = l.run(&["suspend", "pp/nginx", "--clusters", "member2"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stderr.contains("409 Conflict"), "{}", r.stderr);
    assert!(r.stderr.contains("nothing was written"), "{}", r.stderr);
    assert_eq!(l.nginx(), before);
    assert_eq!(l.server.writes(), 0);
}

#[test]
fn dry_run_client_and_server_write_nothing() {
    let l = live();
    let before = l.nginx();
    for mode in ["--dry-run=client", "--dry-run=server", "--dry-run"] {
        let r = l.run(&["suspend", "pp/nginx", "--clusters", "member2", mode]);
        assert_eq!(r.code, 0, "{mode}: {}", r.stderr);
        assert!(
            r.stdout.contains("+  suspension:") && r.stdout.contains("+      - member2"),
            "{mode}: {}",
            r.stdout
        );
        assert!(r.stdout.contains("dry run"), "{}", r.stdout);
    }
    assert_eq!(l.nginx(), before);
    assert_eq!(l.server.writes(), 0);
    assert!(l
        .server
        .requests()
        .iter()
        .any(|r| r.starts_with("PATCH") && r.contains("dryRun=All")));
}

#[test]
fn cluster_names_are_checked_and_strict_refuses() {
    let l = live();
    let r = l.run(&["suspend", "pp/nginx", "--clusters", "membr2"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("warning: unknown cluster membr2"),
        "{}",
        r.stderr
    );
    let r = l.run(&["resume", "pp/nginx"]);
    assert_eq!(r.code, 0);
    let writes = l.server.writes();
    // --kubeconfig instead of KUBECONFIG.
    let r = run(
        &[
            "suspend",
            "pp/nginx",
            "--clusters",
            "membr2",
            "--strict",
            "--kubeconfig",
            l.kubeconfig.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(l.server.writes(), writes);
}

#[test]
fn bulk_changes_need_yes_without_a_terminal() {
    let l = live();
    l.server.insert(pp(
        "default",
        "api",
        json!({"resourceSelectors": [{"apiVersion": "v1", "kind": "Service"}]}),
    ));
    l.server.insert(pp(
        "other",
        "elsewhere",
        json!({"resourceSelectors": [{"apiVersion": "v1", "kind": "Service"}]}),
    ));
    l.server.insert(cpp(
        "platform",
        json!({"resourceSelectors": [{"apiVersion": "v1", "kind": "Namespace"}]}),
    ));
    let r = l.run(&["suspend", "--all"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--yes"), "{}", r.stderr);
    assert_eq!(l.server.writes(), 0);
    let r = l.run(&["suspend", "--all", "--yes", "--reason", "incident 42"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines.contains(&"propagationpolicy.policy.karmada.io/api suspended on all clusters"));
    assert!(lines.contains(
        &"clusterpropagationpolicy.policy.karmada.io/platform suspended on all clusters"
    ));
    let other = l
        .server
        .get("PropagationPolicy", "other", "elsewhere")
        .unwrap();
    assert!(
        other["spec"].get("suspension").is_none(),
        "other namespace untouched"
    );
    let api = l.server.get("PropagationPolicy", "default", "api").unwrap();
    let ann = &api["metadata"]["annotations"];
    assert_eq!(ann["karmada-policy.io/suspension-reason"], "incident 42");
    // Who the server says the caller is, not the kubeconfig's user entry name (`admin`).
    assert_eq!(
        ann["karmada-policy.io/suspension-changed-by"],
        support::IDENTITY
    );
    // --context (and its karmada alias) switches the namespace like kubectl.
    let r = l.run(&[
        "suspend",
        "pp/elsewhere",
        "--karmada-context",
        "other",
        "-o",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let o: J = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(o["spec"]["suspension"], json!({"dispatching": true}));
    // -l selects on the server.
    let r = l.run(&[
        "resume",
        "pp",
        "-A",
        "-l",
        "propagationpolicy.karmada.io/permanent-id in (id-other-elsewhere)",
        "--yes",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "propagationpolicy.policy.karmada.io/elsewhere resumed\n"
    );
}

#[test]
fn gitops_owned_policies_get_a_warning() {
    let l = live();
    let mut obj = pp(
        "default",
        "flux",
        json!({"resourceSelectors": [{"apiVersion": "v1", "kind": "Service"}]}),
    );
    obj["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/name"] = json!("apps");
    l.server.insert(obj);
    let r = l.run(&["suspend", "pp/flux"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("managed by Flux") && r.stderr.contains("suspend -f"),
        "{}",
        r.stderr
    );
}

#[test]
fn failover_and_unhealthy_clusters_need_force_live() {
    let l = live();
    l.server.insert(cluster("member4", false));
    l.server.insert(pp(
        "default",
        "db",
        json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "StatefulSet"}],
        "placement": {"clusterAffinity": {"clusterNames": ["member4"]}}}),
    ));
    let r = l.run(&["suspend", "pp/db"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stderr.contains("member4 is NotReady"), "{}", r.stderr);
    let r = l.run(&["suspend", "pp/db", "--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn api_failures_exit_3_and_missing_objects_exit_4() {
    let l = live();
    let r = l.run(&["suspend", "pp/forbidden-x"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("Forbidden"), "{}", r.stderr);
    let r = l.run(&["suspend", "pp/missing"]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert!(r.stderr.contains("not found"), "{}", r.stderr);
    l.server
        .shared
        .faults
        .errors_500
        .store(10, std::sync::atomic::Ordering::SeqCst);
    let r = l.run(&["suspend", "pp/nginx"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    // Nothing listening: exit 3, and the kubeconfig's token is not in the message.
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kc");
    std::fs::write(
        &kc,
        std::fs::read_to_string(&l.kubeconfig)
            .unwrap()
            .replace(&l.server.url(), "http://127.0.0.1:9"),
    )
    .unwrap();
    let r = run(
        &["suspend", "pp/nginx", "--request-timeout", "5s"],
        Some(&kc),
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    let r = run(
        &["suspend", "pp/nginx", "--context", "nope"],
        Some(&l.kubeconfig),
    );
    // An unknown context is bad configuration (issue 18): exit 2, as kubectl.
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("context \"nope\""), "{}", r.stderr);
}

#[test]
fn wait_follows_the_works_dispatching_condition() {
    let l = live();
    let mut binding = rb(
        "default",
        "nginx-deployment",
        "id-default-nginx",
        &["member1", "member2"],
    );
    binding["metadata"]["labels"]["resourcebinding.karmada.io/permanent-id"] = json!("rb-1");
    l.server.insert(binding);
    for c in ["member1", "member2"] {
        l.server
            .insert(work(c, "nginx-687f7fb96f", "rb-1", "True", "Dispatching"));
    }
    let child = Command::new(BIN)
        .args([
            "suspend",
            "pp/nginx",
            "--clusters",
            "member2",
            "--wait",
            "--timeout",
            "20s",
        ])
        .env("KUBECONFIG", &l.kubeconfig)
        .env("HOME", std::env::temp_dir().join("kkp-no-home"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Play Karmada's execution controller: once the policy is suspended on member2, the Work
    // there reports Dispatching=False/SuspendDispatching (the member1 Work is not affected).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while l.nginx()["spec"].get("suspension").is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "policy never suspended"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(600));
    l.server
        .modify("Work", "karmada-es-member2", "nginx-687f7fb96f", |w| {
            w["status"]["conditions"][0]["status"] = json!("False");
            w["status"]["conditions"][0]["reason"] = json!("SuspendDispatching");
        });
    let r = finish(child.wait_with_output().unwrap());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "propagationpolicy.policy.karmada.io/nginx suspended on member2\n"
    );

    // Nobody resumes the Work: --wait times out, exit 1, naming the Work that lags.
    let r = l.run(&["resume", "pp/nginx", "--wait", "--timeout", "1s"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stderr.contains("karmada-es-member2/nginx-687f7fb96f (Dispatching False/SuspendDispatching, want True/Dispatching)"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("karmada-es-member1"), "{}", r.stderr);
    let r = run(&["suspend", "-f", "x.yaml", "pp/x", "--wait"], None);
    assert_eq!(r.code, 2);
}

// ---------------------------------------------------------------------------------------------
// Fidelity: the real kubectl against the test server

#[test]
fn real_kubectl_gets_and_patches_a_policy() {
    let kubectl = match Command::new("which").arg("kubectl").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => {
            eprintln!("skipped: kubectl is not on PATH");
            return;
        }
    };
    let l = live();
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("cache");
    let kubectl_run = |args: &[&str]| {
        let out = Command::new(&kubectl)
            .args(args)
            .args(["--cache-dir", cache.to_str().unwrap()])
            .env("KUBECONFIG", &l.kubeconfig)
            .env("HOME", home.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        finish(out)
    };
    let r = kubectl_run(&["get", "pp", "nginx", "-n", "default", "-o", "json"]);
    if r.code != 0 && r.stderr.contains("dispatcher") {
        eprintln!("skipped: kubectl cannot run here: {}", r.stderr);
        return;
    }
    assert_eq!(r.code, 0, "{}", r.stderr);
    let o: J = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(o["spec"]["priority"], 5);
    let r = kubectl_run(&["get", "propagationpolicies", "-n", "default"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("CONFLICT-RESOLUTION") && r.stdout.contains("nginx"),
        "{}",
        r.stdout
    );
    let r = kubectl_run(&[
        "patch",
        "pp",
        "nginx",
        "-n",
        "default",
        "--type",
        "merge",
        "-p",
        r#"{"spec":{"suspension":{"dispatching":true}}}"#,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.trim(),
        "propagationpolicy.policy.karmada.io/nginx patched"
    );
    assert_eq!(
        l.nginx()["spec"]["suspension"],
        json!({"dispatching": true})
    );
    // What kubectl wrote, our resume reads and undoes.
    let r = l.run(&["resume", "pp/nginx"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = kubectl_run(&[
        "patch",
        "pp",
        "nginx",
        "-n",
        "default",
        "--type",
        "json",
        "-p",
        r#"[{"op":"add","path":"/spec/priority","value":7}]"#,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(l.nginx()["spec"]["priority"], 7);
    let r = kubectl_run(&["get", "pp", "nope", "-n", "default"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("Error from server (NotFound): propagationpolicies.policy.karmada.io \"nope\" not found"),
        "{}",
        r.stderr
    );
    // Create (server-side apply), select by label, delete.
    let manifest = home.path().join("applied.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: applied\n  namespace: default\n  labels:\n    app: web\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n",
    )
    .unwrap();
    let r = kubectl_run(&["apply", "--server-side", "-f", manifest.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.trim(),
        "propagationpolicy.policy.karmada.io/applied serverside-applied"
    );
    let r = kubectl_run(&[
        "get",
        "pp",
        "-n",
        "default",
        "-l",
        "app in (web)",
        "-o",
        "name",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.trim(),
        "propagationpolicy.policy.karmada.io/applied"
    );
    let r = kubectl_run(&["delete", "pp", "applied", "-n", "default"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(l
        .server
        .get("PropagationPolicy", "default", "applied")
        .is_none());
    let r = kubectl_run(&["patch", "pp", "nginx", "-n", "default", "-p", "{}"]);
    assert_ne!(r.code, 0, "strategic merge patch on a CRD is refused (415)");
}
