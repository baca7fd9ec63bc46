//! kubectl's conventions on the live control plane (the in-process test API server): `-o yaml`
//! and `-o json` hide managedFields, `--reason` records who the server says the caller is
//! (SelfSubjectReview), `resume` takes the record away, a freeze lifted leaves no empty
//! `annotations`, a client dry run's diff keeps key order, and a policy Karmada rejects is
//! reported as rejected.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value as J};
use support::{cluster, pp, TestServer, IDENTITY};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");
const REASON: &str = "karmada-policy.io/suspension-reason";
const CHANGED_BY: &str = "karmada-policy.io/suspension-changed-by";
const CHANGED_AT: &str = "karmada-policy.io/suspension-changed-at";

struct Live {
    server: TestServer,
    _dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

fn live() -> Live {
    let server = TestServer::start();
    for c in ["member1", "member2"] {
        server.insert(cluster(c, true));
    }
    let mut web = pp(
        "default",
        "web",
        json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
               "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2"]}}}),
    );
    web["metadata"]["managedFields"] = json!([{"manager": "kubectl-client-side-apply",
        "operation": "Update", "apiVersion": "policy.karmada.io/v1alpha1",
        "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}]);
    server.insert(web);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path());
    Live {
        server,
        _dir: dir,
        kubeconfig,
    }
}

fn run(args: &[&str], kubeconfig: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("NO_COLOR", "1")
        .env("HOME", "/nonexistent")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

impl Live {
    fn run(&self, args: &[&str]) -> Output {
        run(args, &self.kubeconfig)
    }

    fn web(&self) -> J {
        self.server
            .get("PropagationPolicy", "default", "web")
            .unwrap()
    }
}

#[test]
fn objects_printed_hide_managed_fields_unless_asked() {
    let l = live();
    let o = l.run(&["suspend", "pp/web", "--clusters", "member1", "-o", "yaml"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).contains("name: web"), "{}", out(&o));
    assert!(!out(&o).contains("managedFields"), "{}", out(&o));
    let o = l.run(&["resume", "pp/web", "-o", "json"]);
    let v: J = serde_json::from_str(&out(&o)).unwrap();
    assert!(v["metadata"].get("managedFields").is_none(), "{v}");
    assert_eq!(v["metadata"]["name"], "web");
    let o = l.run(&["suspend", "pp/web", "-o", "yaml", "--show-managed-fields"]);
    assert!(out(&o).contains("managedFields:"), "{}", out(&o));
    assert!(
        out(&o).contains("manager: kubectl-client-side-apply"),
        "{}",
        out(&o)
    );
    // The server's object keeps them: only the printing hides them.
    assert!(l.web()["metadata"]["managedFields"].is_array());
}

#[test]
fn the_reason_records_who_the_server_says_and_resume_takes_the_record_away() {
    let l = live();
    let o = l.run(&["suspend", "pp/web", "--reason", "CVE hold"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let a = &l.web()["metadata"]["annotations"];
    assert_eq!(a[REASON], "CVE hold");
    // The identity the server sees, not the kubeconfig's entry name (`admin`).
    assert_eq!(a[CHANGED_BY], IDENTITY);
    assert!(
        a[CHANGED_AT].as_str().is_some_and(|t| t.ends_with('Z')),
        "{a}"
    );
    assert!(l
        .server
        .requests()
        .iter()
        .any(|r| r == "POST /apis/authentication.k8s.io/v1/selfsubjectreviews"));
    // Resuming some clusters of it leaves the record (still suspended) ...
    let o = l.run(&["resume", "pp/web", "--clusters", "member1"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(l.web()["metadata"]["annotations"][REASON], "CVE hold");
    // ... resuming all of it ends the suspension and its record; nothing else goes.
    let o = l.run(&["resume", "pp/web"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let web = l.web();
    assert!(web["spec"].get("suspension").is_none(), "{web}");
    assert!(web["metadata"].get("annotations").is_none(), "{web}");
    assert!(web["metadata"]["labels"].is_object());
}

#[test]
fn without_self_subject_review_the_kubeconfig_user_is_recorded_with_a_note() {
    let l = live();
    *l.server.shared.identity.lock().unwrap() = None;
    let o = l.run(&["suspend", "pp/web", "--reason", "maintenance"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(l.web()["metadata"]["annotations"][CHANGED_BY], "admin");
    assert!(
        err(&o).contains("note: the server did not say who these credentials are")
            && err(&o).contains("recording the kubeconfig user entry \"admin\""),
        "{}",
        err(&o)
    );
    // Without --reason nothing is recorded and the server is not asked.
    let before = l.server.requests().len();
    let o = l.run(&["resume", "pp/web"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let asked = l.server.requests()[before..]
        .iter()
        .any(|r| r.contains("selfsubjectreviews"));
    assert!(!asked);
}

#[test]
fn a_freeze_records_the_identity_and_lifting_it_leaves_no_empty_annotations() {
    let l = live();
    let o = l.run(&["suspend", "--clusters", "member1", "-A", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let record = l.web()["metadata"]["annotations"]["karmada-policy.io/freeze"].clone();
    assert!(record.as_str().unwrap().contains(IDENTITY), "{record}");
    // As an API server orders metadata: annotations before uid and the rest.
    l.server.modify("PropagationPolicy", "default", "web", |o| {
        let meta = o["metadata"].as_object().unwrap().clone();
        let mut ordered = serde_json::Map::new();
        ordered.insert("annotations".into(), meta["annotations"].clone());
        ordered.extend(meta.into_iter().filter(|(k, _)| k != "annotations"));
        o["metadata"] = J::Object(ordered);
    });
    // A client dry run of the lifting: the diff shows the record and the suspension going,
    // nothing moved (no uid removed and added again).
    let o = l.run(&["resume", "--clusters", "member1", "-A", "--dry-run"]);
    let diff = out(&o);
    assert!(diff.contains("-    karmada-policy.io/freeze:"), "{diff}");
    assert!(!diff.contains("uid"), "{diff}");
    assert!(!diff.contains("+  annotations: {}"), "{diff}");
    let o = l.run(&["resume", "--clusters", "member1", "-A", "--yes"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let web = l.web();
    assert!(web["metadata"].get("annotations").is_none(), "{web}");
}

/// `dispatching: true` with a cluster list: Karmada's webhook rejects it (validation.go,
/// "suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames").
const REJECTED: &str = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: bad
  namespace: default
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: bad
  suspension:
    dispatching: true
    dispatchingOnClusters:
      clusterNames: [member2]
";

#[test]
fn a_policy_karmada_rejects_is_reported_not_already_suspended() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.yaml");
    std::fs::write(&file, REJECTED).unwrap();
    let f = file.to_str().unwrap();
    let nowhere = dir.path().join("no-kubeconfig");
    for action in ["suspend", "resume"] {
        let o = run(
            &[action, "-f", f, "pp/bad", "--clusters", "member1"],
            &nowhere,
        );
        assert_eq!(o.status.code(), Some(1), "{action}: {}{}", out(&o), err(&o));
        assert!(
            err(&o).contains("cannot co-exist with dispatchingOnClusters.clusterNames"),
            "{}",
            err(&o)
        );
        assert!(!out(&o).contains("already suspended"), "{}", out(&o));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), REJECTED);
    }
    // Suspending every cluster mends it: dispatching: true alone.
    let o = run(&["suspend", "-f", f, "pp/bad"], &nowhere);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!std::fs::read_to_string(&file).unwrap().contains("member2"));
}
