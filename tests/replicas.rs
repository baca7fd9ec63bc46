//! How many replicas each member cluster receives (`engine::replicas`) through the real binary:
//! `explain` over `testdata/replicas` (static weights, dynamic weights, Aggregated, a
//! clusterAffinities term that fails for lack of capacity, a Cluster without a resource
//! summary) as text and JSON snapshots, and the live form against the in-process test API
//! server, whose Cluster objects carry `status.resourceSummary`.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value as J};
use support::TestServer;

mod snapshot_file;
use snapshot_file::assert_snapshot;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");
const TEMPLATES: [&str; 5] = ["web", "api", "batch", "spill", "cache"];

fn testdata(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/replicas")
        .join(p)
        .display()
        .to_string()
}

fn run(args: &[&str], kubeconfig: Option<&Path>) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args).env("NO_COLOR", "1").env_remove("KUBECONFIG");
    if let Some(kc) = kubeconfig {
        cmd.arg("--kubeconfig").arg(kc);
    }
    let out = cmd.output().expect("run binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn explain_files(name: &str, extra: &[&str]) -> String {
    let (fleet, apps) = (testdata("fleet.yaml"), testdata("apps.yaml"));
    let target = format!("deploy/{name}");
    let mut args = vec!["explain", &target, "-n", "shop", "-f", &fleet, "-f", &apps];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn explain_text_snapshot() {
    let all: String = TEMPLATES
        .iter()
        .map(|t| format!("=== deploy/{t}\n{}", explain_files(t, &[])))
        .collect();
    assert_snapshot("explain-replicas.txt", &all);
}

#[test]
fn explain_json_snapshot_and_contract() {
    let placements: Vec<J> = TEMPLATES
        .iter()
        .map(|t| {
            let v: J = serde_json::from_str(&explain_files(t, &["-o", "json"])).unwrap();
            json!({"template": t, "placement": v["placement"]})
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&placements).unwrap();
    text.push('\n');
    assert_snapshot("explain-replicas.json", &text);
    let p = |i: usize| &placements[i]["placement"];
    // Static weights 2:1 (member1 matches two entries, the larger counts) over 7 replicas.
    assert_eq!(
        p(0)["assignment"],
        json!([{"cluster": "member1", "replicas": 5}, {"cluster": "member2", "replicas": 2}])
    );
    assert_eq!(
        p(0)["assignmentBasis"]["clusters"][0],
        json!({"cluster": "member1", "weight": 2, "totalWeight": 3})
    );
    // Dynamic weights tie member1 and member3 (12 each): the uid's parity decides.
    assert_eq!(p(1)["assignmentBasis"]["notes"][1]["code"], "UidTieBreak");
    // Aggregated keeps the two richest clusters.
    assert_eq!(
        p(2)["assignment"],
        json!([{"cluster": "member1", "replicas": 5}, {"cluster": "member3", "replicas": 10}])
    );
    // The first clusterAffinities term lacks capacity: the second applies.
    assert_eq!(p(3)["term"], "big");
    assert_eq!(p(3)["tried"], json!(["small", "big"]));
    // A cluster without a resource summary: unknown, with the missing input named.
    assert_eq!(p(4)["assignment"], J::Null);
    assert_eq!(
        p(4)["assignmentUnknown"]["missing"],
        json!(["Cluster member4: status.resourceSummary"])
    );
}

/// Every term short of capacity: the first error stands, `assignment` is null.
#[test]
fn every_term_short_of_capacity_fails_with_the_first_error() {
    let dir = tempfile::tempdir().unwrap();
    let apps = dir.path().join("short.yaml");
    let text = std::fs::read_to_string(testdata("apps.yaml"))
        .unwrap()
        .replace("replicas: 8", "replicas: 40");
    std::fs::write(&apps, text).unwrap();
    let (fleet, apps) = (testdata("fleet.yaml"), apps.display().to_string());
    let (code, out, err) = run(
        &[
            "explain",
            "deploy/spill",
            "-n",
            "shop",
            "-f",
            &fleet,
            "-f",
            &apps,
            "-o",
            "json",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    assert_eq!(v["placement"]["assignment"], J::Null);
    assert_eq!(
        v["placement"]["error"],
        json!({"reason": "Unschedulable",
            "message": "failed to assign replicas: failed to scale up: Clusters available replicas 3 are not enough to schedule."})
    );
}

/// Live: the Cluster objects of the control plane carry `status.resourceSummary`; the
/// template has a uid, so ties have one answer; member4's missing summary is the scheduler's 0.
#[test]
fn explain_live_reads_the_clusters_resource_summaries() {
    let s = TestServer::start();
    let mut api_uid = String::new();
    for file in ["fleet.yaml", "apps.yaml"] {
        let text = std::fs::read_to_string(testdata(file)).unwrap();
        let loaded = karmada_policy::source::load(karmada_policy::source::Source::new(file, text));
        for d in &loaded.documents {
            let mut obj = d.root.to_json();
            if obj["kind"] == "PropagationPolicy" {
                let id = format!("id-{}", obj["metadata"]["name"].as_str().unwrap());
                obj["metadata"]["labels"] =
                    json!({"propagationpolicy.karmada.io/permanent-id": id});
            }
            let stored = s.insert(obj);
            // The server gives every object its uid as an apiserver does.
            if stored["kind"] == "Deployment" && stored["metadata"]["name"] == "api" {
                api_uid = stored["metadata"]["uid"].as_str().unwrap().to_string();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let live = |name: &str| -> J {
        let target = format!("deploy/{name}");
        let (code, out, err) = run(&["explain", &target, "-n", "shop", "-o", "json"], Some(&kc));
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let api = live("api");
    let notes = api["placement"]["assignmentBasis"]["notes"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        notes.iter().all(|n| n["code"] != "UidTieBreak"),
        "the live template has a uid: {notes:?}"
    );
    let total: i64 = api["placement"]["assignment"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["replicas"].as_i64().unwrap())
        .sum();
    assert_eq!(total, 6);
    // The uid's FNV-32a parity orders the tie between member1 and member3 (12 each).
    let odd = fnv32a(&api_uid) & 1 == 1;
    let (m1, m3) = if odd { (2, 3) } else { (3, 2) };
    assert_eq!(
        api["placement"]["assignment"],
        json!([{"cluster": "member1", "replicas": m1}, {"cluster": "member2", "replicas": 1}, {"cluster": "member3", "replicas": m3}])
    );
    // member4 has no summary: live, that is 0 available, so member1 takes everything.
    let cache = live("cache");
    assert_eq!(
        cache["placement"]["assignment"],
        json!([{"cluster": "member1", "replicas": 3}])
    );
    let spill = live("spill");
    assert_eq!(spill["placement"]["term"], "big");
    let (code, text, err) = run(&["explain", "deploy/web", "-n", "shop"], Some(&kc));
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("    member1  5 replicas  (static weight 2 of 3)\n"),
        "{text}"
    );
}

/// `hash/fnv` New32a, to know which way the live uid breaks ties.
fn fnv32a(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// `preempt-check`: a takeover that changes the placement reports each cluster's replicas
/// before and after (`member1: 3 -> 4`).
#[test]
fn preempt_check_reports_replica_changes_per_cluster() {
    let (fleet, apps) = (testdata("fleet.yaml"), testdata("apps.yaml"));
    let takeover = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/replicas-changes/takeover.yaml")
        .display()
        .to_string();
    let args = [
        "preempt-check",
        "-f",
        &fleet,
        "-f",
        &apps,
        "--apply",
        &takeover,
        "--feature-gates",
        "PropagationPolicyPreemption=true",
    ];
    let (code, text, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("  deployment/shop/api: replicas under pp/shop/api-takeover: member1: 3 -> 4, member2: 1 -> 2, member3: 2 -> 0\n"),
        "{text}"
    );
    let (code, out, err) = run(&[&args[..], &["-o", "json"]].concat(), None);
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["resources"][0]["delivery"]["replicas"],
        json!({"clusters": [
            {"cluster": "member1", "before": 3, "after": 4},
            {"cluster": "member2", "before": 1, "after": 2},
            {"cluster": "member3", "before": 2, "after": 0}]})
    );
}

/// `lint --base`: a policy whose placement changes reports, for the templates it keeps, the
/// replicas each cluster receives before and after (with the Cluster objects in the inputs).
#[test]
fn lint_base_reports_replica_changes_of_a_placement_change() {
    let git_ok = Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !git_ok {
        println!("SKIPPED: git is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "Alice Ops")
            .env("GIT_AUTHOR_EMAIL", "alice@example.com")
            .env("GIT_COMMITTER_NAME", "Alice Ops")
            .env("GIT_COMMITTER_EMAIL", "alice@example.com")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    for f in ["fleet.yaml", "apps.yaml"] {
        std::fs::copy(testdata(f), dir.path().join(f)).unwrap();
    }
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "base"]);
    // shop/api: dynamic weights over member1..3, then over member1 and member2 only.
    let apps = std::fs::read_to_string(dir.path().join("apps.yaml")).unwrap();
    let narrowed = apps.replacen(
        "clusterNames: [member1, member2, member3]}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted",
        "clusterNames: [member1, member2]}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted",
        1,
    );
    assert_ne!(apps, narrowed);
    std::fs::write(dir.path().join("apps.yaml"), narrowed).unwrap();
    let out = Command::new(BIN)
        .args(["lint", "--base", "HEAD", ".", "-o", "json"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let v: J = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    let api = v["ownershipChanges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["resource"]["name"] == "api")
        .cloned()
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(api["before"], api["after"], "the owner stays");
    assert_eq!(
        api["replicas"],
        json!({"clusters": [
            {"cluster": "member1", "before": 3, "after": 4},
            {"cluster": "member2", "before": 1, "after": 2},
            {"cluster": "member3", "before": 2, "after": 0}]})
    );
    let text = Command::new(BIN)
        .args(["lint", "--base", "HEAD", "."])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("  deployment/shop/api: stays with pp/shop/api\n    replicas: member1: 3 -> 4, member2: 1 -> 2, member3: 2 -> 0\n"),
        "{text}"
    );
}

/// A template without replicas (a ConfigMap): every selected cluster, no replica lines.
#[test]
fn a_template_without_replicas_lists_every_selected_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("cm.yaml");
    std::fs::write(
        &f,
        "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member1}\nstatus: {apiEnablements: [{groupVersion: v1, resources: [{name: configmaps, kind: ConfigMap}]}]}\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member2}\nstatus: {apiEnablements: [{groupVersion: v1, resources: [{name: configmaps, kind: ConfigMap}]}]}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: cfg, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: cfg}]\n  placement: {clusterAffinity: {clusterNames: [member1, member2]}}\n",
    )
    .unwrap();
    let f = f.display().to_string();
    let (code, text, err) = run(&["explain", "cm/cfg", "-n", "shop", "-f", &f], None);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("  replicas: none: neither Karmada's default interpreter nor the third-party interpreters it ships read replicas for this kind (a resource interpreter customization could); every selected cluster receives the template\n"), "{text}");
    let (code, out, err) = run(
        &["explain", "cm/cfg", "-n", "shop", "-f", &f, "-o", "json"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["placement"]["assignment"],
        json!([{"cluster": "member1", "replicas": 0}, {"cluster": "member2", "replicas": 0}])
    );
    assert_eq!(
        v["placement"]["assignmentBasis"]["notes"][0]["code"],
        "KindWithoutReplicas"
    );
}

/// An OpenKruise CloneSet under static weights 2:3: Karmada's third-party interpreter reads its
/// 5 replicas (`resourcecustomizations/apps.kruise.io/v1alpha1/CloneSet/customizations.yaml`)
/// and the scheduler divides them as it would a Deployment's.
#[test]
fn a_cloneset_s_replicas_are_divided_as_the_third_party_interpreter_reads_them() {
    let f = testdata("third-party/cloneset.yaml");
    let target = "clonesets.apps.kruise.io/web";
    let (code, text, err) = run(&["explain", target, "-n", "shop", "-f", &f], None);
    assert_eq!(code, 0, "{err}");
    let placement = text.split_once("\nplacement:\n").map(|(_, p)| p);
    assert_eq!(
        placement,
        Some(
            "  clusters: member1, member2\n  replicas (StaticWeight):\n    member1  2 replicas  (static weight 2 of 5)\n    member2  3 replicas  (static weight 3 of 5)\n  note: no Cluster objects are known: evaluated over clusters known by name only (the configuration's knownClusters, else those the placement names), whose names alone decide it (as plan does), each taken to serve every API\n"
        ),
        "{text}"
    );
    let (code, out, err) = run(
        &["explain", target, "-n", "shop", "-f", &f, "-o", "json"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["placement"]["assignment"],
        json!([{"cluster": "member1", "replicas": 2}, {"cluster": "member2", "replicas": 3}])
    );
    assert_eq!(v["placement"]["assignmentBasis"]["notes"], json!([]));
}

/// `plan` over a commit that changes the CloneSet's static weights from 2:3 to 2:1: the
/// scheduler divides its 5 replicas again (Webster: 3 and 2).
#[test]
fn plan_shows_a_cloneset_s_replicas_moving_when_weights_change() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let manifest = std::fs::read_to_string(testdata("third-party/cloneset.yaml")).unwrap();
    std::fs::write(d.join("a.yaml"), &manifest).unwrap();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(d)
            .output()
            .expect("git runs")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "."]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "a"]);
    let changed = manifest.replace("weight: 3", "weight: 1");
    assert_ne!(changed, manifest);
    std::fs::write(d.join("a.yaml"), changed).unwrap();
    git(&["commit", "-qam", "b"]);
    let out = Command::new(BIN)
        .args(["plan", "--base", "HEAD~1", "--color", "never"])
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .current_dir(d)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  cloneset/shop/web: stays with pp/shop/web\n    member1: replicas 2 -> 3\n    member2: replicas 3 -> 2\n"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `lint`'s `replicas-below-min-groups` counts a CloneSet's replicas as the third-party
/// interpreter reads them: 2 replicas cannot fill 3 groups.
#[test]
fn lint_counts_a_cloneset_s_replicas() {
    let f = testdata("third-party/cloneset-spread.yaml");
    let (code, out, err) = run(&["lint", "-f", &f, "-o", "json"], None);
    assert_eq!(code, 0, "{err}");
    let v: J = serde_json::from_str(&out).unwrap();
    let findings: Vec<(&str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        findings,
        [("replicas-below-min-groups", "pp/shop/web: cloneset/shop/web has 2 replica(s), fewer than minGroups 3 by cluster: at most 2 cluster(s) receive replicas, the others get 0 and are dropped")]
    );
}
