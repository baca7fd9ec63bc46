//! Cluster-centric freeze (issue 9): `suspend --clusters member2,member3` with no policy named,
//! and `resume --clusters ...` lifting exactly what it added. Live against the in-process test
//! API server (tests/support) and in a directory of manifests (exact bytes).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value as J};
use support::{cluster, cpp, pp, rb, TestServer, SECRET_TOKEN};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");
/// 2026-11-30T00:53:20Z: the freeze's recorded time, fixed for exact assertions.
const EPOCH: &str = "1796000000";
const AT: &str = "2026-11-30T00:53:20Z";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], kubeconfig: Option<&Path>) -> Run {
    let mut c = Command::new(BIN);
    c.args(args)
        .stdin(Stdio::null())
        .env_remove("KUBECONFIG")
        .env("HOME", std::env::temp_dir().join("kkp-no-home"))
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", EPOCH);
    if let Some(k) = kubeconfig {
        c.env("KUBECONFIG", k);
    }
    let out = c.output().expect("run binary");
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

// ---------------------------------------------------------------------------------------------
// Live mode

fn named(clusters: &[&str]) -> J {
    json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
           "placement": {"clusterAffinity": {"clusterNames": clusters}}})
}

fn by_label() -> J {
    json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
           "placement": {"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}}}})
}

struct Live {
    server: TestServer,
    _dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

/// Policies targeting different cluster sets (namespace `default` unless said otherwise).
fn live() -> Live {
    let server = TestServer::start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path());
    for c in ["member1", "member2", "member3"] {
        server.insert(cluster(c, true));
    }
    // web: member1, member2.
    server.insert(pp("default", "web", named(&["member1", "member2"])));
    // api: all three, already suspended on member3 before the freeze.
    let mut api = named(&["member1", "member2", "member3"]);
    api["suspension"] = json!({"dispatchingOnClusters": {"clusterNames": ["member3"]}});
    server.insert(pp("default", "api", api));
    // batch: member1 only: not involved.
    server.insert(pp("default", "batch", named(&["member1"])));
    // bound: selects by label, but its binding says member3.
    server.insert(pp("default", "bound", by_label()));
    server.insert(rb(
        "default",
        "bound-deploy",
        "id-default-bound",
        &["member3"],
    ));
    // by-label: targets unknown.
    server.insert(pp("default", "by-label", by_label()));
    // paused: already suspended on all clusters.
    let mut paused = named(&["member2"]);
    paused["suspension"] = json!({"dispatching": true});
    server.insert(pp("default", "paused", paused));
    // fo: application failover; member2 is a failover candidate, so suspending it stalls.
    let mut fo = named(&["member1", "member2"]);
    fo["failover"] = json!({"application": {"decisionConditions": {"tolerationSeconds": 60}, "purgeMode": "Never"}});
    server.insert(pp("default", "fo", fo));
    // flux: owned by Flux.
    let mut flux = pp("default", "flux", named(&["member3"]));
    flux["metadata"]["labels"]["kustomize.toolkit.fluxcd.io/name"] = json!("apps");
    server.insert(flux);
    // Only with -A: another namespace and a ClusterPropagationPolicy.
    server.insert(pp("other", "elsewhere", named(&["member2"])));
    server.insert(cpp("platform", named(&["member2", "member3"])));
    server.insert(cpp("edge", named(&["member1"])));
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

    fn pp(&self, ns: &str, name: &str) -> J {
        self.server.get("PropagationPolicy", ns, name).unwrap()
    }

    fn cpp(&self, name: &str) -> J {
        self.server
            .get("ClusterPropagationPolicy", "", name)
            .unwrap()
    }

    fn patches(&self) -> usize {
        self.server
            .requests()
            .iter()
            .filter(|r| r.starts_with("PATCH") || r.starts_with("PUT") || r.starts_with("POST"))
            // Asking who the caller is (SelfSubjectReview) writes nothing.
            .filter(|r| !r.contains("/selfsubjectreviews"))
            .count()
    }
}

fn record(o: &J) -> J {
    match o["metadata"]["annotations"]["karmada-policy.io/freeze"].as_str() {
        Some(v) => serde_json::from_str(v).unwrap(),
        None => J::Null,
    }
}

/// The object without what the server bumps on every write.
fn strip(o: &J) -> J {
    let mut o = o.clone();
    for k in ["resourceVersion", "generation", "managedFields"] {
        o["metadata"].as_object_mut().unwrap().remove(k);
    }
    if o["metadata"]["annotations"] == json!({}) {
        o["metadata"].as_object_mut().unwrap().remove("annotations");
    }
    o
}

#[test]
fn live_freeze_changes_only_policies_targeting_the_clusters_and_lift_keeps_prior_suspensions() {
    let l = live();
    let before: Vec<J> = [
        "web", "api", "batch", "bound", "by-label", "paused", "fo", "flux",
    ]
    .iter()
    .map(|n| l.pp("default", n))
    .collect();

    // Dry run: the table and the diffs, and no write request reaches the server.
    let r = l.run(&["suspend", "--clusters", "member2,member3", "--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("freeze of member2, member3:\nwill change (5):\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("+    karmada-policy.io/freeze: ") && r.stdout.contains(AT),
        "{}",
        r.stdout
    );
    assert!(r.stdout.ends_with(
        "freeze of member2, member3: 5 would change, 2 skipped, 1 not involved; warnings: 1 failover, 1 GitOps (dry run: nothing written)\n"
    ), "{}", r.stdout);
    assert_eq!(l.patches(), 0, "dry run wrote: {:?}", l.server.requests());
    assert_eq!(l.server.writes(), 0);

    // Without --yes and without a terminal: refused before any write.
    let r = l.run(&["suspend", "--clusters", "member2,member3"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("pass --yes"), "{}", r.stderr);
    assert_eq!(l.server.writes(), 0);

    // The freeze, with one 409 on the way (re-read, recompute, write).
    l.server
        .shared
        .faults
        .conflicts
        .store(1, std::sync::atomic::Ordering::SeqCst);
    let r = l.run(&[
        "suspend",
        "--clusters",
        "member2,member3",
        "--yes",
        "--reason",
        "maintenance window",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "freeze of member2, member3:
will change (5):
  NAMESPACE  POLICY       CHANGE
  default    pp/api       suspend on member2; member3 already suspended before the freeze (not recorded, kept on resume)
  default    pp/bound     suspend on member3
  default    pp/flux      suspend on member3
  default    pp/fo        suspend on member2
  default    pp/web       suspend on member2
skipped (2):
  NAMESPACE  POLICY       WHY
  default    pp/by-label  target clusters unknown: no ResourceBinding lists spec.clusters and the placement does not name its clusters (name it: suspend pp/NAME --clusters ...)
  default    pp/paused    already suspended on all clusters (dispatching: true)
propagationpolicy.policy.karmada.io/api suspended on member3, member2
propagationpolicy.policy.karmada.io/bound suspended on member3
propagationpolicy.policy.karmada.io/flux suspended on member3
propagationpolicy.policy.karmada.io/fo suspended on member2
propagationpolicy.policy.karmada.io/web suspended on member2
freeze of member2, member3: 5 changed, 2 skipped, 1 not involved; warnings: 1 failover, 1 GitOps
"
    );
    assert_eq!(
        l.patches(),
        6,
        "five changes, one re-read and retried after the 409"
    );
    assert!(r.stderr.contains("flux is managed by Flux"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("fo: application failover (purgeMode Never)"),
        "{}",
        r.stderr
    );
    let susp = |ns: &str, n: &str| l.pp(ns, n)["spec"]["suspension"].clone();
    assert_eq!(
        susp("default", "web"),
        json!({"dispatchingOnClusters": {"clusterNames": ["member2"]}})
    );
    assert_eq!(
        susp("default", "api"),
        json!({"dispatchingOnClusters": {"clusterNames": ["member3", "member2"]}})
    );
    assert_eq!(
        susp("default", "bound"),
        json!({"dispatchingOnClusters": {"clusterNames": ["member3"]}})
    );
    // Only what the freeze added is recorded, with its reason, time and user.
    assert_eq!(
        record(&l.pp("default", "api")),
        json!({"member2": {"at": AT, "by": support::IDENTITY, "reason": "maintenance window"}})
    );
    // Not targeted, unknown targets, already suspended, other namespace, cluster-scoped: untouched.
    for (i, n) in ["batch", "by-label", "paused"].iter().enumerate() {
        let idx = [2, 4, 5][i];
        assert_eq!(l.pp("default", n), before[idx], "{n} changed");
    }
    assert!(l.pp("other", "elsewhere")["spec"]
        .get("suspension")
        .is_none());
    assert!(l.cpp("platform")["spec"].get("suspension").is_none());

    // The same freeze again changes nothing, and says so.
    let writes = l.server.writes();
    let r = l.run(&["suspend", "--clusters", "member2,member3", "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("  default    pp/web       already frozen on member2\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.ends_with("freeze of member2, member3: nothing to change, the freeze is already in place, 5 unchanged, 2 skipped, 1 not involved\n"),
        "{}",
        r.stdout
    );
    assert_eq!(l.server.writes(), writes, "a second run writes nothing");

    // -A: every namespace and the ClusterPropagationPolicies.
    let r = l.run(&["suspend", "--clusters", "member2,member3", "-A", "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("  -          cpp/platform  suspend on member2, member3\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("  other      pp/elsewhere  suspend on member2\n"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("cpp/edge"), "{}", r.stdout);
    assert!(
        r.stdout
            .ends_with("2 changed, 5 unchanged, 2 skipped, 2 not involved\n"),
        "{}",
        r.stdout
    );
    assert_eq!(
        l.cpp("platform")["spec"]["suspension"],
        json!({"dispatchingOnClusters": {"clusterNames": ["member2", "member3"]}})
    );
    assert!(l.cpp("edge")["spec"].get("suspension").is_none());

    // -l narrows: lifting in `default` for the web tier only.
    l.server.modify("PropagationPolicy", "default", "web", |o| {
        o["metadata"]["labels"]["tier"] = json!("web");
    });
    let r = l.run(&[
        "resume",
        "--clusters",
        "member2,member3",
        "-l",
        "tier=web",
        "--yes",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("pp/web") && !r.stdout.contains("pp/api"),
        "{}",
        r.stdout
    );
    assert!(l.pp("default", "web")["spec"].get("suspension").is_none());

    // Lifting: exactly what the freeze added; api keeps its earlier suspension on member3.
    let r = l.run(&["resume", "--clusters", "member2,member3", "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(
        "  default    pp/api    resume on member2; member3 stays suspended (not added by the freeze)\n"
    ), "{}", r.stdout);
    assert!(r.stdout.contains(
        "propagationpolicy.policy.karmada.io/api resumed on member2 (still suspended on member3); member3 not added by the freeze, left suspended\n"
    ), "{}", r.stdout);
    assert_eq!(
        susp("default", "api"),
        json!({"dispatchingOnClusters": {"clusterNames": ["member3"]}})
    );
    assert_eq!(strip(&l.pp("default", "api")), strip(&before[1]));
    for (i, n) in ["web", "bound", "fo", "flux"].iter().enumerate() {
        let idx = [0, 3, 6, 7][i];
        let mut want = strip(&before[idx]);
        if *n == "web" {
            want["metadata"]["labels"]["tier"] = json!("web");
        }
        assert_eq!(strip(&l.pp("default", n)), want, "{n} not restored");
    }
    assert_eq!(
        l.pp("default", "paused")["spec"]["suspension"],
        json!({"dispatching": true})
    );
    // A second lift: only the prior suspension remains, left untouched and said so.
    let writes = l.server.writes();
    let r = l.run(&["resume", "--clusters", "member2,member3", "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("pp/api  suspended on member3 before or outside the freeze: left untouched"),
        "{}",
        r.stdout
    );
    assert_eq!(l.server.writes(), writes);
    // -A lifts the rest.
    let r = l.run(&["resume", "--clusters", "member2,member3", "-A", "--yes"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(l.cpp("platform")["spec"].get("suspension").is_none());
    assert_eq!(record(&l.cpp("platform")), J::Null);
    assert!(l.pp("other", "elsewhere")["spec"]
        .get("suspension")
        .is_none());
}

#[test]
fn live_freeze_of_every_target_with_failover_needs_force() {
    let l = live();
    let r = l.run(&["suspend", "--clusters", "member1,member2", "--yes"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("refused (1):"), "{}", r.stdout);
    assert!(
        r.stderr.contains(
            "error: propagationpolicy.policy.karmada.io/fo: not suspending every cluster"
        ),
        "{}",
        r.stderr
    );
    assert!(l.pp("default", "fo")["spec"].get("suspension").is_none());
    // The others were frozen.
    assert!(l.pp("default", "batch")["spec"]["suspension"].is_object());
    let r = l.run(&[
        "suspend",
        "--clusters",
        "member1,member2",
        "--yes",
        "--force",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        l.pp("default", "fo")["spec"]["suspension"],
        json!({"dispatchingOnClusters": {"clusterNames": ["member1", "member2"]}})
    );
}

// ---------------------------------------------------------------------------------------------
// File mode

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/freeze")
        .join(name)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// Every file under `dir` (relative path → text), to compare trees byte for byte.
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn file_mode_freeze_edits_exact_bytes_and_lift_restores_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("manifests");
    copy_tree(&testdata("manifests"), &dir);
    let d = dir.to_str().unwrap();
    let original = tree(&dir);

    // Dry run: diffs, nothing written.
    let r = run(
        &[
            "suspend",
            "--clusters",
            "member2,member3",
            "-f",
            d,
            "--dry-run",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("+                - member2\n"),
        "{}",
        r.stdout
    );
    assert_eq!(tree(&dir), original);

    let r = run(
        &[
            "suspend",
            "--clusters",
            "member2,member3",
            "-f",
            d,
            "--reason",
            "maintenance window",
            "--yes",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let p = |f: &str| format!("{d}/{f}");
    assert_eq!(
        r.stdout,
        format!(
            "freeze of member2, member3:
will change (3):
  NAMESPACE  POLICY{pad}CHANGE
  -          cpp/platform ({platform})  suspend on member2, member3
  default    pp/api ({api})        suspend on member2; member3 already suspended before the freeze (not recorded, kept on resume)
  default    pp/web ({web})             suspend on member2
skipped (2):
  NAMESPACE  POLICY{pad}WHY
  default    pp/by-label ({platform})   target clusters unknown: no ResourceBinding lists spec.clusters and the placement does not name its clusters (name it: suspend pp/NAME --clusters ...)
  default    pp/paused ({platform})     already suspended on all clusters (dispatching: true)
clusterpropagationpolicy.policy.karmada.io/platform ({platform}) suspended on member2, member3
propagationpolicy.policy.karmada.io/api ({api}) suspended on member3, member2
propagationpolicy.policy.karmada.io/web ({web}) suspended on member2
freeze of member2, member3: 3 changed, 2 skipped, 1 not involved
",
            platform = p("platform.yaml"),
            api = p("team/api.yaml"),
            web = p("web.yaml"),
            pad = " ".repeat("cpp/platform ()  ".len() + p("platform.yaml").len() - "POLICY".len()),
        )
    );
    // The exact resulting bytes: only the suspension and annotation lines are new.
    assert_eq!(tree(&dir), tree(&testdata("frozen")));

    // Twice: nothing changes, and it says so.
    let r = run(
        &["suspend", "--clusters", "member2,member3", "-f", d, "--yes"],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("nothing to change, the freeze is already in place"),
        "{}",
        r.stdout
    );
    assert_eq!(tree(&dir), tree(&testdata("frozen")));

    // Lifting restores the original bytes, keeping api's earlier suspension on member3.
    let r = run(
        &["resume", "--clusters", "member2,member3", "-f", d, "--yes"],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("member3 not added by the freeze, left suspended"),
        "{}",
        r.stdout
    );
    assert_eq!(tree(&dir), original);
}

#[test]
fn freeze_usage_errors() {
    let r = run(
        &["suspend", "--clusters", "member2", "-o", "yaml", "-f", "."],
        None,
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = run(
        &[
            "resume",
            "--clusters",
            "member2",
            "--reason",
            "x",
            "-f",
            ".",
        ],
        None,
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// A freeze in files reads the Cluster objects among them, as `explain` and `plan` do: a
/// placement by label selects its targets there, so the policy is frozen on a cluster it
/// selects and left alone on one it does not.
#[test]
fn file_mode_freeze_finds_a_label_placements_targets_among_the_cluster_objects() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("all.yaml");
    let cluster = |name: &str, region: &str| {
        format!("apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: {name}\n  labels:\n    region: {region}\nspec:\n  syncMode: Push\n---\n")
    };
    let policy = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\n  namespace: default\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  placement:\n    clusterAffinity:\n      labelSelector:\n        matchExpressions:\n          - {key: region, operator: In, values: [eu, us]}\n";
    let text = format!(
        "{}{}{}{policy}",
        cluster("member1", "eu"),
        cluster("member2", "us"),
        cluster("member3", "ap")
    );
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    let r = run(&["suspend", "--clusters", "member3", "-f", f], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("no selected policy targets these clusters"),
        "{}",
        r.stdout
    );
    let r = run(
        &["suspend", "--clusters", "member2", "-f", f, "--yes"],
        None,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        std::fs::read_to_string(&file).unwrap().contains(
            "  suspension:\n    dispatchingOnClusters:\n      clusterNames:\n        - member2\n"
        ),
        "{}",
        std::fs::read_to_string(&file).unwrap()
    );
}
