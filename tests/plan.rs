//! `plan`: test repositories with a base and a head commit (testdata/plan/{plain,kustomize,flux},
//! each `base/` and `head/` tree committed in turn), every format snapshotted; live `plan -f`
//! against the in-process test API server; the markdown comment's size bound; exit codes.
//!
//! The plain repository holds, one namespace each: a takeover by preemption, a blocked takeover,
//! a policy deleted with its template with and without `preserveResourcesOnDeletion`, a
//! PropagationPolicy removed with the OverridePolicy that tempers it, an override that changes
//! one cluster's manifest and a placement that moves a template from member1 to member2. The
//! kustomize and Flux repositories change a base that two environments share.

mod snapshot_file;
mod support;

#[path = "support/kustomize.rs"]
mod kustomize;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value as J;
use snapshot_file::assert_snapshot;
use support::{TestServer, SECRET_TOKEN};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `testdata/plan/LAYOUT/base` committed on `main`, then `head` committed on `change` (checked
/// out); `None` with the reason printed when git cannot run.
fn two_commits(test: &str, layout: &str) -> Option<tempfile::TempDir> {
    if Command::new("git").arg("--version").output().is_err() {
        println!("SKIPPED: {test}: git is not on PATH");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let tree = root().join("testdata/plan").join(layout);
    kustomize::copy_dir(&tree.join("base"), repo);
    kustomize::git(repo, &["init", "-q", "-b", "main"]);
    kustomize::git(repo, &["add", "-A"]);
    kustomize::git(repo, &["commit", "-qm", "base"]);
    kustomize::git(repo, &["checkout", "-qb", "change"]);
    for e in std::fs::read_dir(repo).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().is_some_and(|n| n != ".git") {
            if p.is_dir() {
                std::fs::remove_dir_all(&p).unwrap();
            } else {
                std::fs::remove_file(&p).unwrap();
            }
        }
    }
    kustomize::copy_dir(&tree.join("head"), repo);
    kustomize::git(repo, &["add", "-A"]);
    kustomize::git(repo, &["commit", "-qm", "head"]);
    Some(dir)
}

fn plan_in(dir: &Path, args: &[&str]) -> Output {
    run_in(dir, &[&["plan"], args].concat())
}

/// The tool with `args` in `dir`, without colour or a kubeconfig.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .output()
        .expect("run the binary")
}

/// `plan --base main` in every format, snapshotted as `plan-NAME.{txt,json,md}`; the JSON.
fn snapshot_formats(dir: &Path, name: &str) -> J {
    let mut json = J::Null;
    for (format, ext) in [("text", "txt"), ("json", "json"), ("markdown", "md")] {
        let o = plan_in(dir, &["--base", "main", "-o", format]);
        assert_eq!(o.status.code(), Some(1), "{format}: {}", text(&o.stderr));
        let out = text(&o.stdout);
        assert_snapshot(&format!("plan-{name}.{ext}"), &out);
        if format == "json" {
            json = serde_json::from_str(&out).unwrap();
        }
    }
    json
}

fn change<'a>(env: &'a J, name: &str) -> &'a J {
    env["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["template"]["name"] == name)
        .unwrap_or_else(|| panic!("no change of {name}: {env:#}"))
}

fn cluster<'a>(c: &'a J, name: &str) -> &'a J {
    c["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["cluster"] == name)
        .unwrap_or_else(|| panic!("no cluster {name}: {c:#}"))
}

fn hazards(env: &J) -> Vec<&str> {
    env["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["hazard"].as_str().unwrap())
        .collect()
}

#[test]
fn plain_manifests_every_change_of_the_issue() {
    let Some(dir) = two_commits("plain_manifests_every_change_of_the_issue", "plain") else {
        return;
    };
    let v = snapshot_formats(dir.path(), "plain");
    let env = &v["environments"][0];
    assert_eq!(env["name"], "manifests");
    // A takeover by preemption: member1 loses it, member2 gains it.
    let web = change(env, "web");
    assert_eq!(web["owner"]["change"], "preempted");
    assert_eq!(web["owner"]["after"]["name"], "web-takeover");
    assert_eq!(cluster(web, "member1")["after"]["receives"], false);
    assert_eq!(cluster(web, "member2")["after"]["receives"], true);
    // A blocked takeover: equal priority.
    let api = change(env, "api");
    assert_eq!(api["owner"]["change"], "unchanged");
    assert_eq!(api["blockedBy"][0]["reason"], "equal-priority");
    // Deletions with and without preserveResourcesOnDeletion.
    assert_eq!(change(env, "legacy")["preserveResourcesOnDeletion"], false);
    assert_eq!(change(env, "archive")["preserveResourcesOnDeletion"], true);
    // PP+OP removal: the binding stays, replicas 0 stops applying.
    let batch = change(env, "batch");
    assert_eq!(batch["orphaned"], true);
    let m = &cluster(batch, "member1")["manifest"][0];
    assert_eq!(
        (&m["path"], &m["before"], &m["after"]),
        (&J::from("/spec/replicas"), &J::from(0), &J::from(3))
    );
    // An override change: member2's manifest only.
    let cache = change(env, "cache");
    assert_eq!(cache["clusters"].as_array().unwrap().len(), 1);
    assert_eq!(cluster(cache, "member2")["manifest"][0]["after"], 4);
    // A placement change from member1 to member2.
    let front = change(env, "front");
    assert_eq!(cluster(front, "member1")["before"]["receives"], true);
    assert_eq!(cluster(front, "member2")["after"]["receives"], true);
    assert_eq!(
        hazards(env),
        [
            "policy-removed-holding-templates",
            "policy-removed-holding-templates",
            "policy-removed-holding-templates",
            "policy-and-override-removed",
            "template-left-without-policy"
        ]
    );
}

#[test]
fn kustomize_overlays_a_shared_base_reaches_both_environments() {
    let test = "kustomize_overlays_a_shared_base_reaches_both_environments";
    if !kustomize::kustomize_available(test) {
        return;
    }
    let Some(dir) = two_commits(test, "kustomize") else {
        return;
    };
    let v = snapshot_formats(dir.path(), "kustomize");
    let names = kustomize::environment_names(&v);
    assert_eq!(
        names,
        ["apps/web/overlays/prod", "apps/web/overlays/staging"]
    );
    for env in v["environments"].as_array().unwrap() {
        assert_eq!(hazards(env), ["change-reaches-several-environments"]);
        assert_eq!(
            cluster(change(env, "web"), "member2")["after"]["receives"],
            true
        );
    }
    // prod's own override: the image member2 receives there.
    let prod = &v["environments"][0];
    let image = &cluster(change(prod, "web"), "member2")["manifest"][0];
    assert_eq!(image["after"], "nginx:1.29");
    // `--env` plans that environment alone; one the repository does not have is a usage
    // error naming those it has, as for lint.
    let o = plan_in(
        dir.path(),
        &[
            "--base",
            "main",
            "--env",
            "apps/web/overlays/prod",
            "-o",
            "json",
        ],
    );
    let one: J = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(
        kustomize::environment_names(&one),
        ["apps/web/overlays/prod"]
    );
    let o = plan_in(dir.path(), &["--base", "main", "--env", "nosuch"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("apps/web/overlays/staging"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn flux_layout_a_shared_base_reaches_both_clusters() {
    let test = "flux_layout_a_shared_base_reaches_both_clusters";
    if !kustomize::kustomize_available(test) {
        return;
    }
    let Some(dir) = two_commits(test, "flux") else {
        return;
    };
    let v = snapshot_formats(dir.path(), "flux");
    // Each cluster's own substitution: eu moves member1 -> member2, us member3 -> member4.
    for (i, (from, to)) in [("member1", "member2"), ("member3", "member4")]
        .iter()
        .enumerate()
    {
        let env = &v["environments"][i];
        let c = change(env, "checkout");
        assert_eq!(cluster(c, from)["after"]["receives"], false, "{env:#}");
        assert_eq!(cluster(c, to)["after"]["receives"], true, "{env:#}");
        assert_eq!(hazards(env), ["change-reaches-several-environments"]);
    }
}

#[test]
fn exit_codes_as_kubectl_diff_and_fail_on_hazard() {
    let Some(dir) = two_commits("exit_codes_as_kubectl_diff_and_fail_on_hazard", "plain") else {
        return;
    };
    let d = dir.path();
    // HEAD against itself: no change, 0.
    let o = plan_in(d, &["--base", "HEAD"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("manifests  no change"),
        "{}",
        text(&o.stdout)
    );
    let o = plan_in(d, &["--base", "main", "--fail-on-hazard", "-o", "json"]);
    assert_eq!(o.status.code(), Some(6), "{}", text(&o.stderr));
    // Only the placement change: changes, no hazard.
    let o = plan_in(d, &["--base", "main", "--fail-on-hazard", "move.yaml"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    for (args, want) in [
        (&["--base", "no-such-revision"][..], "no-such-revision"),
        (&[][..], "nothing to plan"),
        (&["--rev", "main"][..], "--base"),
        (&["--base", "main", "--delete", "pp/x"][..], "--delete"),
    ] {
        let o = plan_in(d, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            text(&o.stderr).contains(want),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
}

/// The comment of a change touching 5,000 templates stays under GitHub's limit, says that it
/// cut the details, and still lists every environment and hazard.
#[test]
fn markdown_stays_under_githubs_limit_for_5000_templates() {
    if Command::new("git").arg("--version").output().is_err() {
        println!("SKIPPED: markdown_stays_under_githubs_limit_for_5000_templates: no git");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut templates = String::new();
    for i in 0..5000 {
        templates.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: app-{i:04}, namespace: bulk}}\nspec: {{replicas: 1}}\n"
        ));
    }
    std::fs::write(d.join("templates.yaml"), templates).unwrap();
    let policy = |cluster: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: bulk, namespace: bulk}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  placement: {{clusterAffinity: {{clusterNames: [{cluster}]}}}}\n")
    };
    std::fs::write(d.join("policy.yaml"), policy("member1")).unwrap();
    kustomize::git(d, &["init", "-q", "-b", "main"]);
    kustomize::git(d, &["add", "-A"]);
    kustomize::git(d, &["commit", "-qm", "base"]);
    std::fs::write(d.join("policy.yaml"), policy("member2")).unwrap();
    let o = plan_in(d, &["--base", "main", "-o", "markdown"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let md = text(&o.stdout);
    assert!(
        md.chars().count() <= 65_536,
        "{} characters",
        md.chars().count()
    );
    assert!(md.starts_with("<!-- kubectl-karmada-policy:plan -->\n"));
    assert!(md.contains("| `manifests` | 1 changed | 5000 delivered differently | member1 -5000, member2 +5000 | — |"), "{}", &md[..600]);
    assert!(
        md.contains("> **Details cut** to stay under GitHub's comment limit"),
        "no note of the cut"
    );
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count()
    );
    let o = plan_in(d, &["--base", "main", "-o", "json"]);
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["environments"][0]["changes"].as_array().unwrap().len(),
        5000
    );
}

// ---- live ----

fn run_live(s: &TestServer, args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    let o = Command::new(BIN)
        .arg("plan")
        .args(args)
        .arg("--kubeconfig")
        .arg(&kc)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .output()
        .expect("run the binary");
    assert!(
        !text(&o.stdout).contains(SECRET_TOKEN) && !text(&o.stderr).contains(SECRET_TOKEN),
        "credentials printed"
    );
    o
}

fn seeded() -> TestServer {
    TestServer::seeded_from(&root().join("testdata/plan/live/control-plane.yaml"))
}

/// `plan -f` reads the bindings (where each template is now) and the Clusters' status (member3
/// is NotReady and tainted: the new placement cannot use it), and writes nothing.
#[test]
fn live_plan_reads_bindings_and_cluster_status() {
    let s = seeded();
    let o = run_live(&s, &["-f", "testdata/plan/live/placement.yaml"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_snapshot("plan-live.txt", &text(&o.stdout));
    let o = run_live(
        &s,
        &["-f", "testdata/plan/live/placement.yaml", "-o", "json"],
    );
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    let env = &v["environments"][0];
    assert_eq!(env["name"], "live");
    let web = change(env, "web");
    assert_eq!(
        cluster(web, "member1")["before"]["receives"],
        true,
        "from the binding"
    );
    assert_eq!(cluster(web, "member1")["after"]["receives"], false);
    assert!(
        !web["clusters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["cluster"] == "member3"),
        "member3 is tainted not-ready: {web:#}"
    );
    assert_eq!(web["excluded"][0]["cluster"], "member3");
    assert!(web["excluded"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("untolerated taint {cluster.karmada.io/not-ready:NoSchedule}"));
    assert!(s.requests().iter().all(|r| r.starts_with("GET ")));
    assert_eq!(s.writes(), 0);
}

/// `--delete` of a policy and the override that scales its Deployment to 0 (karmada#3873).
#[test]
fn live_plan_of_deleting_a_policy_and_its_override() {
    let s = seeded();
    let o = run_live(
        &s,
        &[
            "--delete",
            "pp/shop/web",
            "--delete",
            "op/shop/api-paused",
            "-o",
            "json",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert_snapshot("plan-live-delete.json", &out);
    let v: J = serde_json::from_str(&out).unwrap();
    let env = &v["environments"][0];
    assert!(
        hazards(env).contains(&"policy-and-override-removed"),
        "{env:#}"
    );
    let api = change(env, "api");
    assert_eq!(api["orphaned"], true);
    for c in ["member1", "member2"] {
        let m = &cluster(api, c)["manifest"][0];
        assert_eq!(
            (&m["before"], &m["after"]),
            (&J::from(0), &J::from(3)),
            "{c}"
        );
    }
    // Not found, as everywhere (docs/exit-codes.md).
    let o = run_live(&s, &["--delete", "pp/shop/nope"]);
    assert_eq!(o.status.code(), Some(4));
    assert!(
        text(&o.stderr).contains("--delete pp/shop/nope: no such object"),
        "{}",
        text(&o.stderr)
    );
}

// ---- the GitHub Action ----

fn on_path(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The Action's `Plan` step (action.yml), its script and its condition.
fn action_plan_step() -> (String, String) {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let loaded =
        karmada_policy::source::load(karmada_policy::source::Source::new("action.yml", text));
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    let action = loaded.documents[0].root.to_json();
    let step = action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "plan")
        .expect("a step with id plan")
        .clone();
    (
        step["run"].as_str().unwrap().to_string(),
        step["if"].as_str().unwrap().to_string(),
    )
}

/// A stand-in for `gh api`: answers the comment listing from `$GH_COMMENTS` through the real
/// jq with the step's own filter, records every call in `$GH_LOG` and each posted body in
/// `$GH_BODY`.
const FAKE_GH: &str = r#"#!/bin/sh
echo "$*" >> "$GH_LOG"
if [ "$2" = "--paginate" ]; then
  exec jq -r "$5" "$GH_COMMENTS"
fi
cp "${6#body=@}" "$GH_BODY"
"#;

/// The Action's plan step, run as the runner runs it (bash, the environment it sets) with the
/// real binary on PATH and a stand-in `gh`: the first run posts one comment, the next finds it
/// by the hidden marker and updates it (ignoring other comments), and `plan-fail-on-hazard`
/// fails the step after updating it.
#[cfg(unix)]
#[test]
fn action_posts_then_updates_one_plan_comment() {
    let test = "action_posts_then_updates_one_plan_comment";
    for tool in ["bash", "jq"] {
        if !on_path(tool) {
            println!("SKIPPED: {test}: {tool} is not on PATH");
            return;
        }
    }
    let Some(repo) = two_commits(test, "plain") else {
        return;
    };
    let (script, condition) = action_plan_step();
    assert!(
        condition.contains("inputs.plan == 'true'")
            && condition.contains("github.event_name == 'pull_request'"),
        "{condition}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let tools = t.join("bin");
    std::fs::create_dir(&tools).unwrap();
    std::os::unix::fs::symlink(BIN, tools.join("kubectl-karmada_policy")).unwrap();
    std::fs::write(tools.join("gh"), FAKE_GH).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tools.join("gh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        tools.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |comments: &J, fail_on_hazard: &str| {
        std::fs::write(t.join("comments.json"), comments.to_string()).unwrap();
        let _ = std::fs::remove_file(t.join("log"));
        let o = Command::new("bash")
            // As the runner runs `shell: bash`.
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
            .current_dir(repo.path())
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env_remove("KUBECONFIG")
            .env("GH_TOKEN", "token")
            .env("GH_LOG", t.join("log"))
            .env("GH_COMMENTS", t.join("comments.json"))
            .env("GH_BODY", t.join("posted.md"))
            .env("GITHUB_REPOSITORY", "acme/fleet")
            .env("GITHUB_OUTPUT", t.join("outputs"))
            .env("PATHS", "")
            .env("BASE", "main")
            .env("PR_NUMBER", "7")
            .env("CONFIG", "")
            .env("KARMADA_VERSION", "")
            .env("FAIL_ON_HAZARD", fail_on_hazard)
            .env("PLAN_FILE", t.join("plan.md"))
            .output()
            .unwrap();
        let log = std::fs::read_to_string(t.join("log")).unwrap_or_default();
        (o, log)
    };
    let unrelated = serde_json::json!({"id": 5, "body": "LGTM"});
    let (o, log) = run(&J::Array(vec![unrelated.clone()]), "false");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        log.contains("api --method POST repos/acme/fleet/issues/7/comments -F body=@"),
        "{log}"
    );
    let posted = std::fs::read_to_string(t.join("posted.md")).unwrap();
    assert!(posted.starts_with(karmada_policy::output::plan_markdown::MARKER));
    assert_eq!(
        posted,
        std::fs::read_to_string(root().join("tests/snapshots/plan-plain.md")).unwrap()
    );
    assert!(std::fs::read_to_string(t.join("outputs"))
        .unwrap()
        .contains("exit-code=1"));
    // The next push: the comment is found by its marker and updated, no second one.
    let ours = serde_json::json!({"id": 42, "body": posted});
    let (o, log) = run(&J::Array(vec![unrelated.clone(), ours.clone()]), "false");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        log.contains("api --method PATCH repos/acme/fleet/issues/comments/42"),
        "{log}"
    );
    assert!(!log.contains("POST"), "{log}");
    // A hazard fails the step, after the comment is updated.
    let (o, log) = run(&J::Array(vec![unrelated, ours]), "true");
    assert_eq!(o.status.code(), Some(6), "{}", text(&o.stderr));
    assert!(log.contains("--method PATCH"), "{log}");
}

/// Manifests that set no namespace (as karmada's samples/nginx): the template is created in
/// `default`, so an OverridePolicy added there changes what member1 receives.
#[test]
fn an_override_added_for_a_template_without_a_namespace() {
    let test = "an_override_added_for_a_template_without_a_namespace";
    if !on_path("git") {
        println!("SKIPPED: {test}: git is not on PATH");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("app.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx}\nspec: {replicas: 2}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: nginx}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  placement: {clusterAffinity: {clusterNames: [member1, member2]}}\n",
    )
    .unwrap();
    kustomize::git(d, &["init", "-q", "-b", "main"]);
    kustomize::git(d, &["add", "-A"]);
    kustomize::git(d, &["commit", "-qm", "base"]);
    std::fs::write(
        d.join("override.yaml"),
        "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: nginx-op}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  overrideRules:\n    - targetCluster: {clusterNames: [member1]}\n      overriders:\n        annotationsOverrider: [{operator: add, value: {env: stage}}]\n",
    )
    .unwrap();
    let o = plan_in(d, &["--base", "main", "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    let nginx = change(&v["environments"][0], "nginx");
    assert_eq!(nginx["template"]["namespace"], "default");
    assert_eq!(nginx["clusters"].as_array().unwrap().len(), 1, "{nginx:#}");
    let m = &cluster(nginx, "member1")["manifest"][0];
    assert_eq!(m["path"], "/metadata/annotations");
    assert_eq!(m["after"], serde_json::json!({"env": "stage"}));
}

/// The before side schedules the base's manifest: karmada's samples/nginx at f28cce638 scales
/// the Deployment 1 → 2 and divides it 1:1 over member1 and member2; member1 keeps 1 replica,
/// member2 gains 1.
#[test]
fn the_before_side_schedules_the_base_manifest() {
    let test = "the_before_side_schedules_the_base_manifest";
    if !on_path("git") {
        println!("SKIPPED: {test}: git is not on PATH");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |replicas: u32, placement: &str| {
        std::fs::write(
            d.join("app.yaml"),
            format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: nginx}}\nspec: {{replicas: {replicas}}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: nginx}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: nginx}}]\n  placement:\n{placement}"),
        )
        .unwrap();
    };
    write(1, "    clusterAffinity: {clusterNames: [member1]}\n");
    kustomize::git(d, &["init", "-q", "-b", "main"]);
    kustomize::git(d, &["add", "-A"]);
    kustomize::git(d, &["commit", "-qm", "base"]);
    write(2, "    clusterAffinity: {clusterNames: [member1, member2]}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n          - {targetCluster: {clusterNames: [member1]}, weight: 1}\n          - {targetCluster: {clusterNames: [member2]}, weight: 1}\n");
    let o = plan_in(d, &["--base", "main", "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    let nginx = change(&v["environments"][0], "nginx");
    let clusters: Vec<&J> = nginx["clusters"].as_array().unwrap().iter().collect();
    assert_eq!(clusters.len(), 1, "member1 keeps 1 replica: {nginx:#}");
    let m2 = cluster(nginx, "member2");
    assert_eq!(
        (
            m2["before"]["receives"].clone(),
            m2["after"]["replicas"].clone()
        ),
        (J::from(false), J::from(1))
    );
}

/// Each environment is planned with the gates its own repository installs: the bootstrap
/// repository's mgmt-us Karmada turns `PropagationPolicyPreemption` on
/// (`infrastructure/mgmt-us/failover-off.yaml`), mgmt-eu leaves it off, and the same takeover
/// added in both regions preempts in mgmt-us and is blocked in mgmt-eu, as `lint --base` says.
#[test]
fn each_environment_is_planned_with_its_own_gates() {
    let test = "each_environment_is_planned_with_its_own_gates";
    if !kustomize::kustomize_available(test) {
        return;
    }
    let Some(dir) = kustomize::committed_copy(test, "testdata/flux-bootstrap-repo", "change")
    else {
        return;
    };
    let repo = dir.path();
    let gates = repo.join("infrastructure/mgmt-us/failover-off.yaml");
    let release = std::fs::read_to_string(&gates).unwrap().replace(
        "        Failover: false",
        "        PropagationPolicyPreemption: true\n        Failover: false",
    );
    std::fs::write(&gates, release).unwrap();
    let takeover = |template: &str, cluster: &str| {
        format!(
            "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  \
             name: takeover\n  namespace: shop\nspec:\n  priority: 10\n  preemption: Always\n  \
             resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      \
             name: {template}\n  placement:\n    clusterAffinity:\n      clusterNames: [{cluster}]\n"
        )
    };
    for (file, template, cluster) in [
        ("apps/base/policy.yaml", "api", "member-us-1"),
        ("apps/eu/policy.yaml", "web", "member-eu-1"),
    ] {
        let path = repo.join(file);
        let policies = std::fs::read_to_string(&path).unwrap() + &takeover(template, cluster);
        std::fs::write(&path, policies).unwrap();
    }
    kustomize::git(repo, &["commit", "-qam", "take over"]);
    let o = plan_in(repo, &["--base", "main", "-o", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    let env = |name: &str| kustomize::environment(&v, name);
    let us = change(env("mgmt-us/karmada-kubeconfig"), "api");
    assert_eq!(us["owner"]["change"], "preempted", "{us:#}");
    assert_eq!(us["owner"]["after"]["name"], "takeover", "{us:#}");
    let eu = change(env("mgmt-eu/karmada-kubeconfig"), "web");
    assert_eq!(eu["owner"]["change"], "unchanged", "{eu:#}");
    assert_eq!(
        eu["blockedBy"][0]["reason"], "feature-gate-disabled",
        "{eu:#}"
    );
    // lint --base of the same change agrees, environment by environment.
    let lint = Command::new(BIN)
        .args(["lint", "--base", "main"])
        .current_dir(repo)
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    let out = text(&lint.stdout);
    assert!(
        out.contains(
            "deployment/shop/api: pp/shop/api -> pp/shop/takeover (preempted) (in: mgmt-us/karmada-kubeconfig)"
        ),
        "{out}"
    );
    assert!(
        !out.contains("deployment/shop/web: pp/shop/web -> "),
        "{out}"
    );
}

/// A chart whose manifests need its `templates/_helpers.tpl`: the base revision is rendered from
/// every file of the commit, as a checkout would be, so a change of a comment in values.yaml
/// plans no change (the base rendered without the partial failed, and the head's policy came
/// out "added"); `lint --rev` renders it as `lint .` does.
#[test]
fn a_chart_revision_is_rendered_with_its_partials() {
    let test = "a_chart_revision_is_rendered_with_its_partials";
    if !kustomize::helm_available(test) {
        return;
    }
    let Some(dir) = two_commits(test, "chart") else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert!(text(&o.stdout).contains("no change"), "{}", text(&o.stdout));
    let lint = Command::new(BIN)
        .args(["lint", "--rev", "main"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("run the binary");
    assert_eq!(
        lint.status.code(),
        Some(0),
        "{}{}",
        text(&lint.stdout),
        text(&lint.stderr)
    );
}

/// A policy written twice: the API server keeps the copy applied last (here `b-pp.yaml`, read
/// after `a-pp.yaml`). Editing only the copy it replaces changes nothing; editing the one it
/// keeps does. plan reads the unchanged files once for both revisions, apart from the changed
/// ones, and took the changed file's copy as the last of both.
#[test]
fn a_policy_written_twice_is_the_copy_applied_last_whichever_files_changed() {
    let test = "a_policy_written_twice_is_the_copy_applied_last_whichever_files_changed";
    if !on_path("git") {
        println!("SKIPPED: {test}: git is not on PATH");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pp = |clusters: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: x, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {{clusterAffinity: {{clusterNames: [{clusters}]}}}}\n")
    };
    std::fs::write(d.join("app.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: 2}\n").unwrap();
    std::fs::write(d.join("a-pp.yaml"), pp("member1, member2")).unwrap();
    std::fs::write(d.join("b-pp.yaml"), pp("member1, member2")).unwrap();
    kustomize::git(d, &["init", "-q", "-b", "main"]);
    kustomize::git(d, &["add", "-A"]);
    kustomize::git(d, &["commit", "-qm", "base"]);
    std::fs::write(d.join("a-pp.yaml"), pp("member1, member2, member3")).unwrap();
    let o = plan_in(d, &["--base", "main"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert!(text(&o.stdout).contains("no change"), "{}", text(&o.stdout));
    std::fs::write(d.join("a-pp.yaml"), pp("member1, member2")).unwrap();
    std::fs::write(d.join("b-pp.yaml"), pp("member1, member2, member3")).unwrap();
    let o = plan_in(d, &["--base", "main"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("changed  pp/default/x"),
        "{}",
        text(&o.stdout)
    );
}

/// A loose policy file beside three Helm charts, no Flux or Argo CD: each chart is an
/// environment judged with the loose file, so one edit of it is a change of each. The text
/// says each shared change once, under "Across environments", and each environment names
/// them in one line; the JSON keeps the hazard in every environment it reaches.
#[test]
fn a_loose_file_beside_charts_is_said_once_across_environments() {
    let test = "a_loose_file_beside_charts_is_said_once_across_environments";
    if !kustomize::helm_available(test) {
        return;
    }
    let Some(dir) = two_commits(test, "charts-loose") else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let code = "change-reaches-several-environments";
    let shared: Vec<&str> = out.lines().filter(|l| l.contains(code)).collect();
    let across =
        "in 3 environments (charts/a, charts/b, charts/c): one edit to a file or base they share";
    assert_eq!(
        shared,
        [
            format!("  {code}: cpp/ns (changed) {across} (or the same edit in each) reaches all of them; check each environment's plan."),
            format!("  {code}: pp/gpu-operator/workloads (changed) {across} (or the same edit in each) reaches all of them; check each environment's plan."),
            format!("  {code}: cpp/ns (changed), pp/gpu-operator/workloads (changed) (see \"Across environments\")"),
            format!("  {code}: cpp/ns (changed), pp/gpu-operator/workloads (changed) (see \"Across environments\")"),
            format!("  {code}: cpp/ns (changed), pp/gpu-operator/workloads (changed) (see \"Across environments\")"),
        ],
        "{out}"
    );
    assert_eq!(out.matches("Across environments:").count(), 1, "{out}");
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let envs = json["environments"].as_array().unwrap();
    assert_eq!(envs.len(), 3, "{json:#}");
    for env in envs {
        assert_eq!(hazards(env), [code, code], "{env:#}");
    }
}

/// A shared policy removed, a per-application one added and the template relabelled for it,
/// in one change (keiretsu-labs/kubernetes-manifests 2c343654c): Karmada releases the
/// template's claim when its policy goes, and the template, matched afresh with its new labels,
/// is the new policy's. plan, lint --base and explain over the head say so (the whole
/// comparison of lint --base: the `engine::ownership` unit tests);
/// they used to keep the base's labels and leave the template without a policy.
#[test]
fn a_template_relabelled_for_a_new_policy_moves_to_it() {
    let Some(dir) = two_commits(
        "a_template_relabelled_for_a_new_policy_moves_to_it",
        "relabel",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let env = &json["environments"][0];
    let c = change(env, "setec");
    assert_eq!(
        (&c["owner"]["before"]["name"], &c["owner"]["after"]["name"]),
        (&J::from("floating"), &J::from("setec")),
        "{env:#}"
    );
    assert_eq!(
        hazards(env),
        ["policy-removed-holding-templates"],
        "{env:#}"
    );
    let owners = |args: &[&str]| -> Vec<(String, String)> {
        let o = Command::new(BIN)
            .args(args)
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let json: J = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}{}", text(&o.stdout), text(&o.stderr)));
        json["ownershipChanges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["before"]["name"].as_str().unwrap_or("-").to_string(),
                    r["after"]["name"].as_str().unwrap_or("-").to_string(),
                )
            })
            .collect()
    };
    let moved = [("floating".to_string(), "setec".to_string())];
    assert_eq!(
        owners(&["lint", "--base", "main", "-o", "json", "."]),
        moved
    );
    let o = Command::new(BIN)
        .args([
            "explain",
            "deploy/setec",
            "-n",
            "setec",
            "-f",
            ".",
            "-o",
            "json",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["eventual"]["name"], "setec", "{json:#}");
}

/// A Secret dropped from its policy's selectors while the Deployment it feeds keeps a policy
/// with `propagateDeps` (suslmk-lee/pf-trafficAcc): the dependencies distributor keeps it
/// propagated through the attached binding, as explain says. plan says it is released and still
/// carried, with no template-left-without-policy hazard (`--fail-on-hazard` exited 6).
#[test]
fn a_released_dependency_is_still_carried_by_its_workload() {
    let Some(dir) = two_commits(
        "a_released_dependency_is_still_carried_by_its_workload",
        "dependency",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let env = &json["environments"][0];
    let c = change(env, "db-secret");
    assert_eq!(c["owner"]["change"], "released", "{env:#}");
    assert_eq!(
        c["carriedBy"],
        serde_json::json!([{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "api"}])
    );
    assert!(hazards(env).is_empty(), "{env:#}");
    let o = plan_in(dir.path(), &["--base", "main", "--fail-on-hazard"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).contains("secret/shop/db-secret: pp/shop/api -> no policy (released: its policy's selectors no longer match; still propagated as a dependency of deployment/shop/api (propagateDeps))"),
        "{}",
        text(&o.stdout)
    );
}

/// A duplicate key leaves its document in (the last value counts): plan says so once per side,
/// the base's marked as such, and not "(skipped)", which it keeps for a document left out.
#[test]
fn a_duplicate_key_is_noted_once_per_side_and_not_as_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let doc = |replicas: u32| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: demo}}\nspec:\n  replicas: 2\n  replicas: {replicas}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: demo}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {{clusterAffinity: {{clusterNames: [member1]}}}}\n")
    };
    std::fs::write(repo.join("all.yaml"), doc(3)).unwrap();
    kustomize::git(repo, &["init", "-q", "-b", "main"]);
    kustomize::git(repo, &["add", "-A"]);
    kustomize::git(repo, &["commit", "-qm", "base"]);
    std::fs::write(repo.join("all.yaml"), doc(4)).unwrap();
    // A skipped document's own message says so: once.
    std::fs::write(
        repo.join("raw.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ x }}}\n",
    )
    .unwrap();
    let o = plan_in(repo, &["--base", "main", "."]);
    let stderr = text(&o.stderr);
    assert!(stderr.contains("this document was skipped\n"), "{stderr}");
    let said = "all.yaml:6:3: duplicate key `replicas`: the API server keeps only this last value, the earlier one at line 5 is silently lost";
    assert_eq!(
        stderr.matches(&format!("note: {said}\n")).count(),
        1,
        "{stderr}"
    );
    assert_eq!(
        stderr.matches(&format!("note: the base: {said}\n")).count(),
        1,
        "{stderr}"
    );
    assert!(!stderr.contains("(skipped)"), "{stderr}");
}

/// A new policy with `preemption: Always` below the owner's priority asks for the template and
/// does not get it: plan lists it as preempt-check does (`lower-priority`), with the gate that
/// is off too (Karmada asks it first); a lower policy without `preemption: Always` simply ranks
/// below and is not listed.
#[test]
fn a_takeover_below_the_owner_is_listed_with_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    std::fs::write(repo.join("state.yaml"), "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: demo}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: old, namespace: demo}\nspec:\n  priority: 2\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n").unwrap();
    kustomize::git(repo, &["init", "-q", "-b", "main"]);
    kustomize::git(repo, &["add", "-A"]);
    kustomize::git(repo, &["commit", "-qm", "base"]);
    let new = |preemption: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: new, namespace: demo}}\nspec:\n  priority: 1\n  preemption: {preemption}\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {{clusterAffinity: {{clusterNames: [member2]}}}}\n")
    };
    std::fs::write(repo.join("new.yaml"), new("Always")).unwrap();
    let o = plan_in(repo, &["--base", "main", "."]);
    assert!(
        text(&o.stdout).contains("not taken by pp/demo/new (lower-priority): lower priority 1 < 2; the PropagationPolicyPreemption gate is off"),
        "{}",
        text(&o.stdout)
    );
    std::fs::write(repo.join("new.yaml"), new("Never")).unwrap();
    let o = plan_in(repo, &["--base", "main", "."]);
    assert!(
        !text(&o.stdout).contains("not taken by"),
        "{}",
        text(&o.stdout)
    );
}

/// A template its policy's selectors let go and another policy takes: the text says
/// `rematched`, the word the JSON carries (`owner.change`), with the cause; it said
/// `released`, which in the contract means that no policy takes it.
#[test]
fn a_template_another_policy_takes_is_rematched_in_text_and_json() {
    let Some(dir) = two_commits(
        "a_template_another_policy_takes_is_rematched_in_text_and_json",
        "rematched",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let c = change(&json["environments"][0], "nginx");
    assert_eq!(c["owner"]["change"], "rematched", "{c:#}");
    assert_eq!(c["owner"]["cause"], "selectors-changed", "{c:#}");
    let o = plan_in(dir.path(), &["--base", "main"]);
    assert!(
        text(&o.stdout).contains("service/default/nginx: pp/default/nginx-propagation -> pp/default/nginx-propagation-svc (rematched: its policy's selectors no longer match)"),
        "{}",
        text(&o.stdout)
    );
}

/// A new policy whose `schedulerName` no karmada-scheduler serves (jittuki/Karmada-project
/// names the scheduler's Deployment, `karmada-scheduler`): it claims the template, but nothing
/// schedules the binding, so no member cluster gains it. plan says so, as lint's
/// scheduler-name-not-served and explain's note do; it used to plan member1 gaining it.
#[test]
fn a_policy_no_scheduler_serves_delivers_nothing() {
    let Some(dir) = two_commits(
        "a_policy_no_scheduler_serves_delivers_nothing",
        "unserved-scheduler",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let env = &json["environments"][0];
    let c = change(env, "web");
    assert_eq!(c["owner"]["after"]["name"], "web", "{env:#}");
    assert_eq!(
        c["unschedulable"],
        "never scheduled: no karmada-scheduler of this control plane serves schedulerName `karmada-scheduler`"
    );
    assert_eq!(c["clusters"], serde_json::json!([]), "{env:#}");
    // Served, the same change delivers to member1.
    std::fs::write(
        dir.path().join(".karmada-policy.yaml"),
        "schedulers: [karmada-scheduler]\n",
    )
    .unwrap();
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let c = change(&json["environments"][0], "web");
    assert!(c["unschedulable"].is_null(), "{c:#}");
    assert_eq!(cluster(c, "member1")["after"]["receives"], true, "{c:#}");
    // Scheduled by a served policy, then claimed anew by the unserved one (the served one
    // removed): the binding keeps its clusters (the detector keeps the scheduling result), and
    // nothing schedules it again, so member1 keeps it; it used to plan member1 losing it.
    std::fs::remove_file(dir.path().join(".karmada-policy.yaml")).unwrap();
    let pp = std::fs::read_to_string(dir.path().join("pp.yaml")).unwrap();
    let served = pp
        .replace("  schedulerName: karmada-scheduler\n", "")
        .replace("metadata: {name: web,", "metadata: {name: first,");
    assert_ne!(served, pp);
    std::fs::write(dir.path().join("first.yaml"), &served).unwrap();
    kustomize::git(dir.path(), &["add", "-A"]);
    kustomize::git(dir.path(), &["commit", "-qm", "served first"]);
    std::fs::remove_file(dir.path().join("first.yaml")).unwrap();
    let o = plan_in(dir.path(), &["--base", "HEAD", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let c = change(&json["environments"][0], "web");
    assert_eq!(c["owner"]["after"]["name"], "web", "{c:#}");
    assert_eq!(c["clusters"], serde_json::json!([]), "{c:#}");
    assert!(
        c["unschedulable"]
            .as_str()
            .unwrap()
            .ends_with("the binding keeps the clusters it was scheduled to"),
        "{c:#}"
    );
}

/// A loose directory moved by the change (git mv old/demo new/demo) in a repository whose Argo CD
/// Application makes each loose directory an environment: the two are one environment moved, so
/// the move plans no change, where it planned every policy removed (a hazard) and added again.
/// An edit made with the move is planned in the moved environment.
#[test]
fn a_moved_loose_directory_is_one_environment() {
    let Some(dir) = two_commits(
        "a_moved_loose_directory_is_one_environment",
        "moved-loose-dir",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "--fail-on-hazard"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{text}{err}");
    assert!(
        err.contains("note: old/demo at the base holds the objects new/demo holds at head: the directory moved, and the two are compared as one environment"),
        "{err}"
    );
    assert!(!text.contains("old/demo"), "{text}");
    assert!(text.contains("new/demo"), "{text}");
    assert!(!text.contains("policy-removed-holding-templates"), "{text}");
    // Moved and edited: the edit is planned in the moved environment.
    let app = dir.path().join("new/demo/app.yaml");
    let edited = std::fs::read_to_string(&app)
        .unwrap()
        .replace("clusterNames: [member1]", "clusterNames: [member2]");
    std::fs::write(&app, edited).unwrap();
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let envs = json["environments"].as_array().unwrap();
    let names: Vec<&str> = envs.iter().filter_map(|e| e["name"].as_str()).collect();
    assert!(!names.contains(&"old/demo"), "{names:?}");
    let moved = envs.iter().find(|e| e["name"] == "new/demo").unwrap();
    let c = change(moved, "web");
    assert_eq!(c["owner"]["before"]["name"], "web", "{moved:#}");
    assert_eq!(c["owner"]["after"]["name"], "web", "{moved:#}");
    assert_eq!(cluster(c, "member1")["after"]["receives"], false, "{c:#}");
    assert_eq!(cluster(c, "member2")["after"]["receives"], true, "{c:#}");
}

/// Removing the policy that claims a Namespace: the namespace controller keeps it on every
/// member cluster, so no cluster loses it and no hazard says it is left without a policy
/// (pkg/controllers/namespace/namespace_sync_controller.go).
#[test]
fn a_namespace_released_by_its_policy_stays_on_every_cluster() {
    let Some(dir) = two_commits(
        "a_namespace_released_by_its_policy_stays_on_every_cluster",
        "namespace-released",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let env = &json["environments"][0];
    assert_eq!(hazards(env), Vec::<&str>::new(), "{env:#}");
    let c = change(env, "shop");
    assert_eq!(c["orphaned"], false, "{c:#}");
    assert_eq!(c["clusters"], serde_json::json!([]), "{c:#}");
}

/// Static weights before v1.16 are divided as Karmada then did (Dispenser.TakeByWeight: each
/// its floor, the rest to the heaviest, then to the one with more replicas before), from v1.16
/// by Webster's method (Benedict-CS/Meal-Provider-Frontend).
#[test]
fn static_weights_divide_by_the_release_s_method() {
    let Some(dir) = two_commits(
        "static_weights_divide_by_the_release_s_method",
        "static-weights-before-1.16",
    ) else {
        return;
    };
    let replicas = |version: &str| -> Vec<(String, J)> {
        let o = plan_in(
            dir.path(),
            &["--base", "main", "--karmada-version", version, "-o", "json"],
        );
        let json: J = serde_json::from_slice(&o.stdout).unwrap();
        let c = change(&json["environments"][0], "frontend").clone();
        ["cn-gke-1", "cn-gke-2", "cn-gke-3"]
            .iter()
            .map(|n| (n.to_string(), cluster(&c, n)["after"]["replicas"].clone()))
            .collect()
    };
    let want = |a: i64, b: i64, c: i64| -> Vec<(String, J)> {
        vec![
            ("cn-gke-1".into(), J::from(a)),
            ("cn-gke-2".into(), J::from(b)),
            ("cn-gke-3".into(), J::from(c)),
        ]
    };
    assert_eq!(replicas("1.15"), want(2, 5, 4));
    assert_eq!(replicas("1.14"), want(2, 5, 4));
    assert_eq!(replicas("1.16"), want(3, 4, 4));
    assert_eq!(replicas("1.19"), want(3, 4, 4));
}

/// An update the API server refuses (an unknown field under strict validation) is a change
/// that fails, as `lint --base` says: plan lists it refused, with the `policy-refused` hazard,
/// where it said "no change" because the typed policy was the same (zhdkb/wordcount-job).
#[test]
fn an_update_the_api_server_refuses_is_a_hazard() {
    let Some(dir) = two_commits(
        "an_update_the_api_server_refuses_is_a_hazard",
        "refused-update",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "--fail-on-hazard"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(6), "{text}");
    assert!(
        text.contains("changed  cpp/wordcount (refused by admission, the stored version stays: ClusterPropagationPolicy in version \"v1alpha1\" cannot be handled as a ClusterPropagationPolicy: strict decoding error: unknown field \"spec.overrides\")"),
        "{text}"
    );
    assert!(
        text.contains("policy-refused: cpp/wordcount is refused by the API server (ClusterPropagationPolicy in version \"v1alpha1\" cannot be handled as a ClusterPropagationPolicy: strict decoding error: unknown field \"spec.overrides\"): applying the change fails there, and the control plane keeps the version it stores."),
        "{text}"
    );
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(hazards(&json["environments"][0]), vec!["policy-refused"]);
}

/// A Namespace added without a policy reaches every member cluster through the namespace
/// controller; one labelled skip-auto-propagation reaches none until a policy takes it.
#[test]
fn a_namespace_added_reaches_every_cluster() {
    let Some(dir) = two_commits("a_namespace_added_reaches_every_cluster", "namespace-added")
    else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let env = &json["environments"][0];
    let c = change(env, "shop");
    for member in ["member1", "member2"] {
        assert_eq!(cluster(c, member)["after"]["receives"], true, "{c:#}");
        assert_eq!(cluster(c, member)["before"]["receives"], false, "{c:#}");
    }
    let quiet = env["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["template"]["name"] == "quiet");
    assert!(
        quiet.is_none_or(|q| q["clusters"] == serde_json::json!([])),
        "{env:#}"
    );
}

/// Without Cluster objects, a new Namespace is not a placement's "every selected cluster": no
/// policy selects it, and karmada-controller-manager's namespace controller copies it to every
/// member cluster (round twenty, Congrool/nodes-grouping `config/manager`).
#[test]
fn a_new_namespace_without_cluster_objects_reaches_every_member_cluster() {
    let Some(dir) = two_commits(
        "a_new_namespace_without_cluster_objects_reaches_every_member_cluster",
        "namespace-added-no-clusters",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("  namespace/shop: no policy -> no policy (new template; the namespace controller copies it to every member cluster)\n    every member cluster: gains it\n"),
        "{text}"
    );
    assert!(
        text.contains("Member clusters:\n  every member cluster: gains namespace/shop\n"),
        "{text}"
    );
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let c = change(&json["environments"][0], "shop");
    assert_eq!(c["namespaceController"], true, "{c:#}");
    assert_eq!(c["clusters"][0]["cluster"], "*", "{c:#}");
}

/// An environment the change removes from the repository, or adds, says so: "no change" alone
/// read as if it stayed (round twenty, a Helm root moved to an archive directory).
#[test]
fn an_environment_on_one_side_only_says_which() {
    let Some(dir) = two_commits("an_environment_on_one_side_only_says_which", "kustomize") else {
        return;
    };
    // staging removed, and a root that holds none of its objects added.
    let overlays = dir.path().join("apps/web/overlays");
    std::fs::remove_dir_all(overlays.join("staging")).unwrap();
    let qa = overlays.join("qa");
    std::fs::create_dir_all(&qa).unwrap();
    std::fs::write(qa.join("kustomization.yaml"), "resources: [cm.yaml]\n").unwrap();
    std::fs::write(
        qa.join("cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: qa, namespace: default}\n",
    )
    .unwrap();
    let o = plan_in(dir.path(), &["--base", "main"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let line = |env: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("  {env} ")))
            .unwrap_or_else(|| panic!("no summary line of {env}: {text}"))
            .to_string()
    };
    assert!(
        line("apps/web/overlays/qa").ends_with(" (new environment)"),
        "{text}"
    );
    assert!(
        line("apps/web/overlays/staging").ends_with(" (environment removed)"),
        "{text}"
    );
    assert!(!line("apps/web/overlays/prod").contains('('), "{text}");
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let only_in: Vec<(String, J)> = json["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap().to_string(), e["onlyIn"].clone()))
        .collect();
    assert_eq!(
        only_in,
        [
            ("apps/web/overlays/prod".to_string(), J::Null),
            ("apps/web/overlays/qa".to_string(), "head".into()),
            ("apps/web/overlays/staging".to_string(), "base".into()),
        ],
        "{json:#}"
    );
    // A root renamed holds what it held: one environment, no side alone.
    std::fs::remove_dir_all(&qa).unwrap();
    std::fs::rename(overlays.join("prod"), overlays.join("production")).unwrap();
    let o = plan_in(dir.path(), &["--base", "main"]);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("note: apps/web/overlays/production is new at head and holds every object apps/web/overlays/prod held at the base"),
        "{err}"
    );
    assert!(!out.contains("new environment"), "{out}");
}

/// A root added beside the loose files of a repository no controller object names: its
/// environment holds the loose files too, so the base's `plain manifests` is compared with it,
/// where every policy read as removed (with a hazard that member copies are deleted) and added
/// again (round twenty-one, chaosi-k8s `9216810`, a Helm chart added). An edit made with it is
/// planned there.
#[test]
fn a_root_added_beside_loose_files_takes_their_environment() {
    let test = "a_root_added_beside_loose_files_takes_their_environment";
    if !kustomize::kustomize_available(test) {
        return;
    }
    let Some(dir) = two_commits(test, "root-beside-loose") else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "--fail-on-hazard"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("\n  k  no change\n"), "{out}");
    assert!(!out.contains("plain manifests"), "{out}");
    assert!(
        err.contains(
            "note: k is new at head and holds every object plain manifests held at the base"
        ),
        "{err}"
    );
    let app = dir.path().join("app.yaml");
    let edited = std::fs::read_to_string(&app)
        .unwrap()
        .replace("clusterNames: [m1]", "clusterNames: [m2]");
    std::fs::write(&app, edited).unwrap();
    let o = plan_in(dir.path(), &["--base", "main"]);
    let text = text(&o.stdout);
    assert!(
        text.contains("  deployment/shop/web: stays with pp/shop/web\n    m1: loses it (2 replicas)\n    m2: gains it (2 replicas)\n"),
        "{text}"
    );
    assert!(!text.contains("environment removed"), "{text}");
}

/// A karmada-controller-manager whose `--controllers` leaves the namespace controller out
/// copies no Namespace: a new one reaches no member cluster, and explain does not say the
/// controller copies it (wongearl/boc-karmada's chart, round twenty-one F5).
#[test]
fn without_the_namespace_controller_a_new_namespace_reaches_no_cluster() {
    let Some(dir) = two_commits(
        "without_the_namespace_controller_a_new_namespace_reaches_no_cluster",
        "namespace-controller-off",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("  manifests  no change\n"), "{out}");
    assert!(
        err.contains("--controllers without the namespace controller (kcm.yaml:16)"),
        "{err}"
    );
    let o = run_in(dir.path(), &["explain", "ns/shop", "-f", "."]);
    let out = text(&o.stdout);
    assert!(!out.contains("namespace controller copies"), "{out}");
}

/// A karmada-controller-manager whose `--skipped-propagating-namespaces` replaces the default
/// `kube-.*`: plan, explain and lint all read it from the repository. kube-tools is copied to
/// every member cluster and its ConfigMap is claimed; sandbox is not copied; team-a's objects are
/// never claimed (the second occurrence of the flag appends to the first, as pflag does).
#[test]
fn the_installations_skipped_namespaces_replace_the_default() {
    let Some(dir) = two_commits(
        "the_installations_skipped_namespaces_replace_the_default",
        "skipped-namespaces",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        err.contains("--skipped-propagating-namespaces=sandbox,team-.* (kcm.yaml:19)"),
        "{err}"
    );
    assert!(
        out.contains("  namespace/kube-tools: no policy -> no policy (new template; the namespace controller copies it to every member cluster)\n"),
        "{out}"
    );
    assert!(
        out.contains("  configmap/kube-tools/cfg: no policy -> pp/kube-tools/cfg (new template)\n    m1: gains it\n"),
        "{out}"
    );
    assert!(!out.contains("namespace/sandbox"), "{out}");
    assert!(!out.contains("configmap/team-a/cfg"), "{out}");
    assert!(
        !err.contains("the Karmada it is judged in changes"),
        "{err}"
    );
    // A change of the flag alone is planned under the head's flags, and said so.
    let kcm = dir.path().join("kcm.yaml");
    let original = std::fs::read_to_string(&kcm).unwrap();
    std::fs::write(&kcm, original.replace("- team-.*", "- team-b")).unwrap();
    let o = plan_in(dir.path(), &["--base", "HEAD"]);
    assert!(
        text(&o.stderr).contains("note: manifests: the Karmada it is judged in changes with the change (release, feature gates or controller-manager flags): both revisions are planned under the head's, so what the change of settings itself moves is not shown\n"),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(&kcm, original).unwrap();
    let explain = |args: &[&str]| {
        text(&run_in(dir.path(), &[&["explain"], args, &["-f", "."]].concat()).stdout)
    };
    assert!(explain(&["cm/cfg", "-n", "team-a"]).contains(
        "never claimed: namespace team-a matches --skipped-propagating-namespaces=team-.*"
    ),);
    assert!(explain(&["cm/cfg", "-n", "kube-tools"])
        .contains("  eventual:         PropagationPolicy kube-tools/cfg\n"));
    assert!(explain(&["ns/kube-tools"]).contains("namespace controller copies this Namespace"));
    assert!(!explain(&["ns/sandbox"]).contains("namespace controller copies"));
    let o = run_in(dir.path(), &["lint", "-o", "json", "."]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let never: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "selector-never-matches")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(never.len(), 1, "{never:?}");
    assert!(
        never[0].starts_with("pp/team-a/cfg: the selector of v1 ConfigMap never matches: namespace team-a matches karmada-controller-manager's --skipped-propagating-namespaces (team-.*)"),
        "{never:?}"
    );
}

/// In a GitOps repository each environment is planned under its own installation's flags: the
/// Karmada chart Argo CD installs skips `sandbox,tools-.*`, so a policy added for tools-b claims
/// nothing and a new Namespace tools-c is not copied, while kube-extra is (the default
/// `kube-.*` is replaced), as explain says in that environment.
#[test]
fn each_environment_is_planned_under_its_installations_skipped_namespaces() {
    let Some(dir) = two_commits(
        "each_environment_is_planned_under_its_installations_skipped_namespaces",
        "skipped-namespaces-argo",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("  added    pp/tools-b/web\n"), "{out}");
    assert!(!out.contains("deployment/tools-b/web"), "{out}");
    assert!(
        out.contains("  namespace/kube-extra: no policy -> no policy (new template; the namespace controller copies it to every member cluster)\n"),
        "{out}"
    );
    assert!(!out.contains("namespace/tools-c"), "{out}");
    assert!(
        !err.contains("the Karmada it is judged in changes"),
        "{err}"
    );
    let chart = dir.path().join("apps/karmada.yaml");
    let original = std::fs::read_to_string(&chart).unwrap();
    std::fs::write(&chart, original.replace("sandbox,tools-.*", "kube-.*")).unwrap();
    let o = plan_in(dir.path(), &["--base", "HEAD"]);
    assert!(
        text(&o.stderr).contains(
            "note: karmada-apiserver: the Karmada it is judged in changes with the change"
        ),
        "{}",
        text(&o.stderr)
    );
    // lint --base says so too, judging each revision in its own.
    let o = run_in(dir.path(), &["lint", "--base", "HEAD", "."]);
    assert!(
        text(&o.stderr).contains(
            "note: the Karmada environment karmada-apiserver runs in changes with the change (release 1.16 at the base, 1.16 at head; "
        ),
        "{}",
        text(&o.stderr)
    );
    std::fs::write(&chart, original).unwrap();
    let o = run_in(
        dir.path(),
        &["explain", "deploy/web", "-n", "tools-b", "-f", "."],
    );
    assert!(
        text(&o.stdout).contains(
            "never claimed: namespace tools-b matches --skipped-propagating-namespaces=tools-.*"
        ),
        "{}",
        text(&o.stdout)
    );
}

/// One replica by static weights 1:1: Karmada breaks the tie by the template's uid, which a
/// manifest in git does not carry. plan says so and gives the other parity's shares, as
/// explain's UidTieBreak note does, where it named one winner without a caveat (KokoiRuby).
#[test]
fn a_replica_tie_the_uid_breaks_is_said() {
    let Some(dir) = two_commits("a_replica_tie_the_uid_breaks_is_said", "replicas-uid-tie") else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("    replicas: Karmada breaks a tie between clusters by the template's uid, which the manifest does not carry; with the other parity: cluster-2 1\n"),
        "{text}"
    );
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let json: J = serde_json::from_slice(&o.stdout).unwrap();
    let c = change(&json["environments"][0], "nginx");
    assert_eq!(
        c["replicasOtherwise"],
        serde_json::json!([{"cluster": "cluster-2", "replicas": 1}]),
        "{c:#}"
    );
}

/// A rescale alone (`spec.replicas` 2 to 4) is planned: the scheduler divides the replicas
/// again (`doScheduleBinding`: replicas changed), so a 1:1 static division by names gives each
/// cluster 2, a division by available replicas may change each; a template no policy holds is
/// not listed. Before, a change of the template's replicas was no change (exit 0); so were a
/// Job's parallelism, a rescale to or from 0 and one under clusters selected by labels.
#[test]
fn a_rescale_is_planned() {
    let Some(dir) = two_commits("a_rescale_is_planned", "rescale") else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("  deployment/default/web: stays with pp/default/web\n    member1: replicas 1 -> 2\n    member2: replicas 1 -> 2\n"),
        "{out}"
    );
    assert!(
        out.contains("  deployment/default/api: stays with pp/default/api\n")
            && out.contains("    member1: may change\n    member2: may change\n"),
        "{out}"
    );
    assert!(!out.contains("unowned"), "{out}");
    // To and from 0 (every selected cluster listed with 0 replicas), a Job's parallelism.
    assert!(
        out.contains("  deployment/default/zero: stays with pp/default/web\n    member1: replicas 1 -> 0\n    member2: replicas 1 -> 0\n"),
        "{out}"
    );
    assert!(
        out.contains("  job/default/batch: stays with pp/default/web\n    member1: replicas 1 -> 2\n    member2: replicas 1 -> 2\n"),
        "{out}"
    );
    // 3 over equal weights is 2 and 1 one way or the other, as the uid falls: the replica
    // taken may be either cluster's.
    assert!(
        out.contains("  deployment/default/tie: stays with pp/default/web\n    replicas before the change: Karmada breaks a tie between clusters by the template's uid, which the manifest does not carry; with the other parity: member1 1, member2 2\n    member1: replicas 2 -> 1\n"),
        "{out}"
    );
    // Clusters selected by labels: a duplicated count is certain, a division is not.
    assert!(
        out.contains("  deployment/default/labelled-dup: stays with pp/default/labelled-dup\n    every selected cluster: replicas 3 -> 7\n"),
        "{out}"
    );
    assert!(
        out.contains("  deployment/default/labelled: stays with pp/default/labelled\n    may: the scheduler picks among the clusters the placement selects by their labels or state (a division of the replicas, spread constraints, affinity terms tried in turn), which the inputs do not give (no Cluster objects)\n    every selected cluster: may change\n"),
        "{out}"
    );
    // A count the change removes goes back to the default of 1.
    assert!(
        out.contains("  deployment/default/dropped: stays with pp/default/labelled-dup\n    every selected cluster: replicas 3 -> 1\n"),
        "{out}"
    );
    // A cluster whose dispatching stays suspended gets the new Work only on resume.
    assert!(
        out.contains("  deployment/default/held: stays with pp/default/held\n    member1: replicas 2 -> 4\n    member2: replicas 2 -> 4, held while dispatching is suspended\n"),
        "{out}"
    );
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    let tie = change(&v["environments"][0], "tie");
    assert_eq!(
        tie["replicasOtherwiseBefore"],
        serde_json::json!([{"cluster": "member1", "replicas": 1}, {"cluster": "member2", "replicas": 2}]),
        "{tie:#}"
    );
}

/// A spread constraint a static-weighted division ignores does not make the clusters the
/// scheduler's choice: the names and weights decide, as lint's spread-constraints-ignored says.
/// Before, every named cluster "may gain it".
#[test]
fn a_spread_constraint_karmada_ignores_leaves_the_division_to_the_names() {
    let Some(dir) = two_commits(
        "a_spread_constraint_karmada_ignores_leaves_the_division_to_the_names",
        "spread-ignored",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let out = text(&o.stdout);
    assert!(
        out.contains("  deployment/default/web: no policy -> pp/default/web (claimed)\n    member1: gains it (1 replica)\nMember clusters:\n"),
        "{out}"
    );
}

/// An environment that renders as no Karmada API server at head, but whose base root did not
/// render (a remote file that may hold policies) is not compared, not left out: before, the
/// plan printed an empty summary and exited 0. With nothing to plan at all, the summary says so.
#[test]
fn an_environment_unrendered_at_the_base_only_is_not_compared() {
    let Some(dir) = two_commits(
        "an_environment_unrendered_at_the_base_only_is_not_compared",
        "unrendered-base-only",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("Summary:\n  c1  not compared: a root did not render\n")
            && out.contains("Not compared (did not render; `lint` says why):\n  apps/c1/kustomization.yaml:4:5 (at the base)\n"),
        "{out}"
    );
    let o = plan_in(dir.path(), &["--base", "HEAD"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout)
            .ends_with("Summary:\n  no Karmada API server in either revision: nothing to plan\n"),
        "{}",
        text(&o.stdout)
    );
}

/// A Karmada root whose kustomization names a file that is in neither revision fails alike on
/// both sides, over the same inputs (the missing file is one, absent on both): no change, exit
/// 0, while the change touches only the member cluster's root. Before, a missing file made
/// the inputs unknown, and every plan of such a repository "not compared". A root that
/// renders on one side only is not compared; before, failing at head, its objects were
/// planned as removed.
#[test]
fn a_root_missing_the_same_file_on_both_sides_is_no_change() {
    let Some(dir) = two_commits(
        "a_root_missing_the_same_file_on_both_sides_is_no_change",
        "missing-alike",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("Summary:\n  mgmt/karmada-kubeconfig  no change\n"),
        "{out}"
    );
    // Once the file is there, the root renders and the plan compares it.
    std::fs::write(
        dir.path().join("apps/karmada/missing.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: found, namespace: default}\n",
    )
    .unwrap();
    let o = plan_in(dir.path(), &["--base", "main"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).contains("(at the base)"),
        "{}",
        text(&o.stdout)
    );
    // Rendered at the base and failing at head, the root's objects are unknown at head (Flux
    // applies nothing of a build that fails): not compared, not removed with a hazard.
    kustomize::git(dir.path(), &["add", "-A"]);
    kustomize::git(dir.path(), &["commit", "-qm", "renders"]);
    std::fs::remove_file(dir.path().join("apps/karmada/missing.yaml")).unwrap();
    let o = plan_in(dir.path(), &["--base", "HEAD"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("Summary:\n  mgmt/karmada-kubeconfig  not compared: a root did not render\n"),
        "{out}"
    );
    assert!(
        !out.contains("removed") && !out.contains("Hazards"),
        "{out}"
    );
    // Failing alike over the same files, but given other Flux substitutions: what it would
    // render differs, so it did not fail alike (not compared, exit 1).
    let apps = dir.path().join("clusters/mgmt/apps.yaml");
    let with_vars = |value: &str| {
        std::fs::read_to_string(&apps).unwrap().replacen(
            "  kubeConfig: {secretRef: {name: karmada-kubeconfig}}\n",
            &format!("  kubeConfig: {{secretRef: {{name: karmada-kubeconfig}}}}\n  postBuild: {{substitute: {{cluster: {value}}}}}\n"),
            1,
        )
    };
    std::fs::write(&apps, with_vars("member1")).unwrap();
    kustomize::git(dir.path(), &["add", "-A"]);
    kustomize::git(dir.path(), &["commit", "-qm", "member1"]);
    std::fs::write(&apps, with_vars("member1").replace("member1}", "member2}")).unwrap();
    let o = plan_in(dir.path(), &["--base", "HEAD"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("Summary:\n  mgmt/karmada-kubeconfig  not compared: a root did not render\n"),
        "{out}"
    );
}

/// A kustomize root that did not render (a remote resource the linter does not fetch) on
/// either side: what it holds was not compared, so the plan does not say "no change" and does
/// not exit 0 (kubectl diff's "no difference"), although its policy moved the Deployment to
/// another cluster. Another such root whose files the change does not touch is no change.
/// `lint --base` keeps the refusal of the root the change touched in view (SARIF too), old as
/// it is, and not the other's.
#[test]
fn a_root_that_did_not_render_is_not_compared() {
    let Some(dir) = two_commits("a_root_that_did_not_render_is_not_compared", "unrendered") else {
        return;
    };
    let v = snapshot_formats(dir.path(), "unrendered");
    let app = &v["environments"][0];
    assert_eq!(app["name"], "app", "{v:#}");
    assert_eq!(app["unrendered"][0], "app/kustomization.yaml:5:5", "{v:#}");
    assert_eq!(v["summary"]["notCompared"], 2, "{v:#}");
    let o = plan_in(dir.path(), &["--base", "main"]);
    let out = text(&o.stdout);
    assert!(
        out.contains("  app     not compared: a root did not render\n"),
        "{out}"
    );
    // A root that failed alike over the same files on both sides holds the same objects.
    assert!(out.contains("  same    no change\n"), "{out}");
    // A file the root names outside its directory is among what it reads.
    assert!(
        out.contains("  reader  not compared: a root did not render\n"),
        "{out}"
    );
    let same = &v["environments"][2];
    assert_eq!(same["name"], "same", "{v:#}");
    assert_eq!(same["unrendered"], J::Array(Vec::new()), "{v:#}");
    let lint = Command::new(BIN)
        .args(["lint", "--base", "main"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let out = text(&lint.stdout);
    assert_eq!(lint.status.code(), Some(0), "{out}");
    // The root whose files changed stays in view; the one the change does not touch, old as
    // its failure is, does not.
    assert!(
        out.contains("warning[remote-resource-not-fetched]"),
        "{out}"
    );
    assert!(out.contains(" --> app/kustomization.yaml:5:5"), "{out}");
    assert!(!out.contains(" --> same/kustomization.yaml"), "{out}");
    let sarif = Command::new(BIN)
        .args(["lint", "--base", "main", "-o", "sarif"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let sarif: J = serde_json::from_slice(&sarif.stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let rules: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["remote-resource-not-fetched"; 2], "{sarif:#}");
    assert!(
        out.contains(
            "app: not declared in the repository (Karmada 1.19; not linted: it did not render)"
        ),
        "{out}"
    );
    // A file of data at the root (kubectl explain's text kept as YAML) is skipped and does not
    // make the environment linted (round twenty, huynd-dev/example-apps).
    std::fs::write(
        dir.path().join("pp.yaml"),
        "KIND:     PropagationPolicy\nVERSION:  policy.karmada.io/v1alpha1\n",
    )
    .unwrap();
    let lint = Command::new(BIN)
        .args(["lint", "."])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let out = text(&lint.stdout);
    assert!(
        out.contains(
            "app: not declared in the repository (Karmada 1.19; not linted: it did not render)"
        ),
        "{out}"
    );
    // Nor is it counted among the documents linted.
    assert!(out.contains(" (0 documents, 0 policies)\n"), "{out}");
}

/// A partial clone (`git clone --filter=blob:limit=...`) lacks the large blobs its filter left
/// out. A revision written for kustomize leaves out such a file that is no manifest (a GIF of
/// the docs), with a note, and plans; a manifest it lacks would read as deleted, so that stops
/// with the hint for a partial clone, not `git fetch --unshallow`, which brings no blob.
#[test]
fn a_partial_clone_plans_without_the_blobs_its_filter_left_out() {
    let test = "a_partial_clone_plans_without_the_blobs_its_filter_left_out";
    if !kustomize::kustomize_available(test) {
        return;
    }
    let Some(src) = two_commits(test, "kustomize") else {
        return;
    };
    let big = "x".repeat(150_000);
    let large = |dir: &Path, name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    // Into the base (main), then the change rebased on it.
    let into_base = |name: &str, text: &str, message: &str| {
        kustomize::git(src.path(), &["checkout", "-q", "main"]);
        large(src.path(), name, text);
        kustomize::git(src.path(), &["add", "-A"]);
        kustomize::git(src.path(), &["commit", "-qm", message]);
        kustomize::git(src.path(), &["checkout", "-q", "change"]);
        kustomize::git(src.path(), &["rebase", "-q", "main"]);
    };
    into_base("docs/demo.gif", &big, "docs");
    kustomize::git(src.path(), &["config", "uploadpack.allowFilter", "true"]);
    let clones = tempfile::tempdir().unwrap();
    let partial = |name: &str| {
        let dir = clones.path().join(name);
        let url = format!("file://{}", src.path().display());
        let o = Command::new("git")
            .args([
                "clone",
                "-q",
                "--no-checkout",
                "--filter=blob:limit=100k",
                "-b",
                "change",
            ])
            .arg(&url)
            .arg(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        // Every manifest checked out; the docs stay out (as a sparse checkout keeps them).
        kustomize::git(&dir, &["reset", "-q"]);
        for e in std::fs::read_dir(src.path()).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if name != ".git" && name != "docs" {
                kustomize::git(&dir, &["checkout", "--", &name]);
            }
        }
        kustomize::git(&dir, &["fetch", "-q", "origin", "main:main"]);
        dir
    };
    let dir = partial("gif");
    let o = plan_in(&dir, &["--base", "main"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{}{err}", text(&o.stdout));
    assert!(
        err.contains("note: the base: docs/demo.gif is not in this clone's objects (a partial clone's filter left it out): the revision is rendered without it"),
        "{err}"
    );
    // A manifest the filter left out (a large one, at the base only).
    into_base("docs/large.yaml", &format!("# {big}\n"), "a large manifest");
    let dir = partial("yaml");
    let o = plan_in(&dir, &["--base", "main"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot read docs/large.yaml ("), "{err}");
    assert!(
        err.contains("(a partial clone: its filter left the object out"),
        "{err}"
    );
    assert!(!err.contains("--unshallow"), "{err}");
    // Planned with PATHs that do not hold it (the policies' overlays, as CI runs it on every
    // pull request): no input of the run, so it is left out like the GIF.
    let o = plan_in(&dir, &["--base", "main", "apps/web/overlays"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{}{err}", text(&o.stdout));
    assert!(
        err.contains("note: the base: docs/large.yaml is not in this clone's objects (a partial clone's filter left it out): the revision is rendered without it"),
        "{err}"
    );
    // Unless a Flux Kustomization among the PATHs applies the directory it is in: then it is
    // an input of the run after all, and its absence would read as a deletion.
    into_base(
        "apps/web/overlays/docs.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: docs, namespace: flux-system}\nspec:\n  path: ./docs\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
        "flux applies the docs",
    );
    let dir = partial("flux");
    let o = plan_in(&dir, &["--base", "main", "apps/web/overlays"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot read docs/large.yaml ("), "{err}");
}

/// A base policy admission refuses was never stored: removing it changes nothing on the
/// control plane, so it is no removal, counts in no summary and raises no hazard.
#[test]
fn removing_a_policy_that_was_never_stored_is_no_change() {
    let Some(dir) = two_commits(
        "removing_a_policy_that_was_never_stored_is_no_change",
        "refused-removed",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "--fail-on-hazard"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("  manifests  no change\n"), "{out}");
    assert!(!out.contains("gpu-operator-resources-policy"), "{out}");
}

/// Two files define the same ClusterPropagationPolicy (a/ for Jobs, b/ for Deployments):
/// applied in turn, b/'s copy is the policy. A Job the change adds is matched against that
/// copy, as explain and lint read it, not against the replaced one that alone selects Jobs.
#[test]
fn a_new_template_is_matched_against_the_copy_applied_last() {
    let Some(dir) = two_commits(
        "a_new_template_is_matched_against_the_copy_applied_last",
        "replaced-copy",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("  manifests  no change\n"), "{out}");
    assert!(!out.contains("cpp/default-cpp"), "{out}");
}

/// A Secret the base already carries to m1 as a dependency of a Deployment whose policy sets
/// `propagateDeps` (an attached binding takes the workload's clusters,
/// pkg/dependenciesdistributor): the same policy claiming it by name changes its owner, and
/// no member cluster gains it.
#[test]
fn a_dependency_claimed_by_name_is_gained_by_no_cluster() {
    let Some(dir) = two_commits(
        "a_dependency_claimed_by_name_is_gained_by_no_cluster",
        "dependency-claimed",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    let env = &v["environments"][0];
    let c = change(env, "web-token");
    assert_eq!(c["owner"]["before"], J::Null, "{c:#}");
    assert_eq!(c["owner"]["after"]["name"], "web", "{c:#}");
    assert_eq!(c["clusters"], J::Array(Vec::new()), "{c:#}");
    let o = plan_in(dir.path(), &["--base", "main"]);
    let out = text(&o.stdout);
    assert!(!out.contains("gains"), "{out}");
}

/// An OverridePolicy added for a ConfigMap that reaches m1 and m2 only as a dependency of its
/// Deployment (`propagateDeps`): Karmada renders the attached binding's Works for the
/// Deployment's clusters through the override chain (`ensureWork`,
/// pkg/controllers/binding/common.go), so m1's copy changes, as explain shows. plan listed the
/// override and no template change.
#[test]
fn an_override_of_a_carried_dependency_changes_its_copy() {
    let Some(dir) = two_commits(
        "an_override_of_a_carried_dependency_changes_its_copy",
        "dependency-override",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "-o", "json"]);
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    let env = &v["environments"][0];
    let c = change(env, "cfg");
    assert_eq!(c["carriedBy"][0]["name"], "web", "{c:#}");
    assert_eq!(c["clusters"].as_array().map(Vec::len), Some(1), "{c:#}");
    let m1 = cluster(c, "m1");
    assert_eq!(m1["manifest"][0]["path"], "/data/a", "{m1:#}");
    assert_eq!(m1["manifest"][0]["after"], "m1", "{m1:#}");
    let o = plan_in(dir.path(), &["--base", "main"]);
    let out = text(&o.stdout);
    assert!(
        out.contains("  configmap/shop/cfg: no policy; propagated as a dependency of deployment/shop/web (propagateDeps)\n    m1: 1 manifest field changes\n      /data/a: \"b\" -> \"m1\"\n"),
        "{out}"
    );
    assert!(!out.contains("deployment/shop/web:"), "{out}");
}

/// An Argo CD Application moved to another destination (jittuki/Karmada-project, where the
/// server switches between two Karmada API servers): Argo CD compares and prunes only at
/// `spec.destination` (controller/state.go; argo-cd#9172), so the old destination keeps what
/// the Application applied, no longer synced. It was planned as every object removed there,
/// with a hazard that the member clusters' copies are deleted. Here `web` moves to karmada-b
/// while `api` stays; then both move (karmada-a is left as it is); then `web` is deleted with
/// its resources finalizer, which deletes what it applied.
#[test]
fn an_application_moved_to_another_destination_leaves_the_old_one_as_it_is() {
    let Some(dir) = two_commits(
        "an_application_moved_to_another_destination_leaves_the_old_one_as_it_is",
        "argo-destination-moved",
    ) else {
        return;
    };
    let o = plan_in(dir.path(), &["--base", "main", "--fail-on-hazard"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "changes, no hazard: {out}{err}");
    assert!(out.contains("  karmada-a  no change\n"), "{out}");
    assert!(
        out.contains("karmada-b  policies: 1 added; templates: 1 new (new environment)"),
        "{out}"
    );
    assert!(!out.contains("policy-removed-holding-templates"), "{out}");
    assert!(
        err.contains("note: karmada-a: Applications that deployed here leave it (Application web now deploys to karmada-b): Argo CD prunes only at an Application's destination"),
        "{err}"
    );

    // Both move: karmada-a is left as it is.
    let api = dir.path().join("argocd/api.yaml");
    let moved = std::fs::read_to_string(&api)
        .unwrap()
        .replace("name: karmada-a", "name: karmada-b");
    std::fs::write(&api, moved).unwrap();
    let o = plan_in(dir.path(), &["--base", "main", "--fail-on-hazard"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "changes, no hazard: {out}{err}");
    assert!(
        out.contains(
            "  karmada-a  no change (no Application deploys here any more: left as it is)"
        ),
        "{out}"
    );
    assert!(
        err.contains("note: karmada-a: no Application deploys here at head (Application api now deploys to karmada-b; Application web now deploys to karmada-b)"),
        "{err}"
    );
    let json: J =
        serde_json::from_slice(&plan_in(dir.path(), &["--base", "main", "-o", "json"]).stdout)
            .unwrap();
    let old = json["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "karmada-a")
        .expect("the old destination is listed");
    assert_eq!(old["onlyIn"], "base", "{old:#}");
    assert_eq!(hazards(old), Vec::<&str>::new(), "{old:#}");

    // `web` deleted, with the resources finalizer: its resources go with it (another
    // Application takes its directory to karmada-b); api's stay.
    let app = dir.path().join("argocd/app.yaml");
    let renamed = std::fs::read_to_string(&app)
        .unwrap()
        .replace("name: web\n", "name: web-b\n");
    std::fs::write(&app, renamed).unwrap();
    let o = plan_in(dir.path(), &["--base", "main"]);
    let removed = text(&o.stdout);
    assert!(
        removed.contains("karmada-a  policies: 1 removed"),
        "{removed}"
    );
    assert!(
        removed.contains("policy-removed-holding-templates: pp/demo/web is removed"),
        "{removed}"
    );
}

/// Cluster objects without their status (`status.resourceSummary`) under a spread constraint
/// that keeps two of three: which two the scheduler keeps of a workload follows their available
/// replicas (`sortClusters`, spreadconstraint/util.go), so each cluster may lose the Deployment,
/// and the text says the Cluster objects do not declare it; the ConfigMap has no replicas to
/// estimate and the names decide (m3 loses it). A Deployment scaled to 0 with requests goes
/// nowhere on either side and is not listed.
#[test]
fn clusters_without_status_leave_a_spread_selection_to_the_scheduler() {
    let Some(dir) = two_commits(
        "clusters_without_status_leave_a_spread_selection_to_the_scheduler",
        "undeclared-capacity",
    ) else {
        return;
    };
    let v = snapshot_formats(dir.path(), "undeclared-capacity");
    let env = &v["environments"][0];
    let web = change(env, "web");
    for name in ["m1", "m2", "m3"] {
        assert_eq!(
            cluster(web, name)["after"]["undecided"],
            J::Bool(true),
            "{web}"
        );
    }
    assert_eq!(
        change(env, "cfg")["clusters"].as_array().map(Vec::len),
        Some(1)
    );
    assert!(!env["changes"].to_string().contains("\"batch\""), "{env}");
}

/// Two policies added in one change for a template no policy held: the best match takes it
/// (Karmada's template reconcile looks over every policy it holds), whatever the order of the
/// documents; the other lost the fresh match, it was not blocked by a priority. preempt-check
/// over the same files agrees.
#[test]
fn policies_added_together_give_an_unclaimed_template_to_the_best_match() {
    let Some(dir) = two_commits(
        "policies_added_together_give_an_unclaimed_template_to_the_best_match",
        "best-match-together",
    ) else {
        return;
    };
    let expected = "  deployment/default/web: no policy -> pp/default/web (claimed)\n    not taken by pp/default/catch-all (fresh-match): pp/default/web wins the fresh match: more precise selector (name beats all; both priority 0)\n    member2: gains it (1 replica)\n";
    let o = plan_in(dir.path(), &["--base", "main"]);
    assert!(text(&o.stdout).contains(expected), "{}", text(&o.stdout));
    // The same change with the documents swapped.
    let file = dir.path().join("policies.yaml");
    let body = std::fs::read_to_string(&file).unwrap();
    let (first, second) = body.split_once("---\n").unwrap();
    std::fs::write(&file, format!("{second}---\n{first}")).unwrap();
    kustomize::git(dir.path(), &["commit", "-qam", "swapped"]);
    let o = plan_in(dir.path(), &["--base", "main"]);
    assert!(text(&o.stdout).contains(expected), "{}", text(&o.stdout));
    let o = run_in(
        dir.path(),
        &[
            "preempt-check",
            "-f",
            "app.yaml",
            "--apply",
            "policies.yaml",
        ],
    );
    assert!(
        text(&o.stdout).contains("  deployment/default/web: unclaimed -> pp/default/web (best match over pp/default/catch-all: more precise selector (name beats all; both priority 0))\n"),
        "{}",
        text(&o.stdout)
    );
}

/// A policy whose selectors no longer match the template it held: `plan` reports the hazard
/// `template-left-without-policy`, and `preempt-check --apply` of the same change says the
/// member clusters keep their copies (released-by-change), as it says for a deletion
/// (Karmada removes only the claim: `cleanPPUnmatchedRBs`, pkg/detector/policy.go).
#[test]
fn a_selector_that_lets_go_of_a_template_is_said_by_plan_and_preempt_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let policy = |name: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: {name}}}]\n  placement: {{clusterAffinity: {{clusterNames: [member1]}}}}\n")
    };
    std::fs::write(
        d.join("nginx.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\nspec: {replicas: 1}\n",
    )
    .unwrap();
    std::fs::write(d.join("pp.yaml"), policy("nginx")).unwrap();
    std::fs::write(d.join("changed.yaml"), policy("other")).unwrap();
    let o = run_in(
        d,
        &[
            "preempt-check",
            "-f",
            "nginx.yaml",
            "-f",
            "pp.yaml",
            "--apply",
            "changed.yaml",
            "-o",
            "json",
        ],
    );
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["resources"][0]["after"], J::Null, "{v}");
    assert_eq!(v["notes"][0]["code"], "released-by-change", "{v}");
    assert_eq!(
        v["notes"][0]["message"],
        "pp/default/web no longer claims deployment/default/nginx: it keeps its binding without a policy, and the member clusters keep their copies, no longer updated"
    );

    if Command::new("git").arg("--version").output().is_err() {
        println!("SKIPPED: the plan half: git is not on PATH");
        return;
    }
    kustomize::git(d, &["init", "-q", "-b", "main"]);
    kustomize::git(d, &["add", "nginx.yaml", "pp.yaml"]);
    kustomize::git(d, &["commit", "-qm", "base"]);
    std::fs::rename(d.join("changed.yaml"), d.join("pp.yaml")).unwrap();
    let o = plan_in(d, &["--base", "main", "-o", "json"]);
    let v: J = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        hazards(&v["environments"][0]),
        ["template-left-without-policy"]
    );
}

/// `--apply` of a selector that lets go of a template, then `--delete` of the same policy: the
/// changes apply in order, so the update's claim removal (`cleanPPUnmatchedRBs`,
/// pkg/detector/policy.go) released the template (released-by-change, as `--apply` alone
/// says), and the delete holds nothing of it any more.
#[test]
fn an_update_that_lets_go_before_a_delete_is_said_as_the_update() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let policy = |name: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: web, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: {name}}}]\n  placement: {{clusterAffinity: {{clusterNames: [member1]}}}}\n")
    };
    std::fs::write(
        d.join("nginx.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\nspec: {replicas: 1}\n",
    )
    .unwrap();
    std::fs::write(d.join("pp.yaml"), policy("nginx")).unwrap();
    std::fs::write(d.join("changed.yaml"), policy("other")).unwrap();
    let notes = |extra: &[&str]| {
        let mut args = vec![
            "preempt-check",
            "-f",
            "nginx.yaml",
            "-f",
            "pp.yaml",
            "-o",
            "json",
        ];
        args.extend_from_slice(extra);
        let o = run_in(d, &args);
        let v: J = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["resources"][0]["after"], J::Null, "{v}");
        v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (
                    n["code"].as_str().unwrap().to_string(),
                    n["message"].as_str().unwrap().to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    let released = (
        "released-by-change".to_string(),
        "pp/default/web no longer claims deployment/default/nginx: it keeps its binding without a policy, and the member clusters keep their copies, no longer updated".to_string(),
    );
    assert_eq!(
        notes(&["--apply", "changed.yaml"]),
        std::slice::from_ref(&released)
    );
    let both = notes(&["--apply", "changed.yaml", "--delete", "pp/default/web"]);
    assert_eq!(both[0], released, "{both:?}");
    assert!(
        both.iter().all(
            |(code, m)| code != "released-by-delete" || !m.contains("deployment/default/nginx")
        ),
        "{both:?}"
    );
    // Deleted alone, the policy releases what it held.
    let deleted = notes(&["--delete", "pp/default/web"]);
    assert_eq!(deleted.len(), 1, "{deleted:?}");
    assert_eq!(deleted[0].0, "released-by-delete");
    assert!(
        deleted[0].1.contains("(deployment/default/nginx)"),
        "{deleted:?}"
    );
}

/// `plan --base` and `lint --base` of a change in `dir` (on `main`): plan's exit code, stdout
/// and stderr, and lint's stdout up to its environments.
fn plan_and_lint(dir: &Path) -> (Option<i32>, String, String, String) {
    let o = plan_in(dir, &["--base", "main"]);
    let lint = run_in(dir, &["lint", "--base", "main"]);
    let lint = text(&lint.stdout);
    let ownership = lint.split("\nenvironments:").next().unwrap_or_default();
    (
        o.status.code(),
        text(&o.stdout),
        text(&o.stderr),
        ownership.to_string(),
    )
}

/// The plan of removing pp/default/takeover (priority 10, m1) beside pp/default/base (m1, m2)
/// from an environment whose controller prunes: base takes the Deployment, m2 gains it.
fn takeover_removed(env: &str) -> String {
    format!("Plan: main -> the working tree\n\nSummary:\n  {env}  policies: 1 removed; templates: 1 change owner; 1 hazard\n\n== {env} ==\nPolicies:\n  removed  pp/default/takeover\nTemplates:\n  deployment/default/web: pp/default/takeover -> pp/default/base (rematched: its policy is removed)\n    m2: gains it (2 replicas)\nMember clusters:\n  m2: gains deployment/default/web\nHazards:\n  policy-removed-holding-templates: pp/default/takeover is removed while it holds 1 template; Karmada removes only its claim. deployment/default/web moves to another policy, whose schedule decides which clusters keep it (see its line under Templates).\n")
}

/// A Flux Kustomization with `spec.prune: false` never deletes what its path stops giving
/// (`KustomizationReconciler.prune` returns at once when `!obj.Spec.Prune`,
/// fluxcd/kustomize-controller internal/controller/kustomization_controller.go): the policy
/// removed from Git stays on the Karmada API server and keeps the template. It was planned as
/// removed, the Deployment rematched to the other policy with a hazard, and `lint --base`
/// listed the same ownership change. With `prune: true` it is removed.
#[test]
fn a_flux_kustomization_that_does_not_prune_keeps_what_git_no_longer_holds() {
    let Some(dir) = two_commits(
        "a_flux_kustomization_that_does_not_prune_keeps_what_git_no_longer_holds",
        "flux-no-prune",
    ) else {
        return;
    };
    let env = "mgmt/karmada-kubeconfig";
    let (code, out, err, lint) = plan_and_lint(dir.path());
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(
        out,
        format!("Plan: main -> the working tree\n\nSummary:\n  {env}  no change\n")
    );
    assert!(
        err.contains(&format!("note: {env}: pp/default/takeover is no longer in Git but Kustomization flux-system/web does not prune (spec.prune: false): it stays on the API server\n")),
        "{err}"
    );
    assert_eq!(lint, "Ownership changes:\n  none\n");

    let apps = dir.path().join("clusters/mgmt/apps.yaml");
    let pruning = std::fs::read_to_string(&apps)
        .unwrap()
        .replace("prune: false", "prune: true");
    std::fs::write(&apps, pruning).unwrap();
    let (code, out, err, lint) = plan_and_lint(dir.path());
    assert_eq!(code, Some(1), "{out}{err}");
    assert_eq!(out, takeover_removed(env));
    assert!(!err.contains("does not prune"), "{err}");
    assert_eq!(
        lint,
        format!("Ownership changes:\n  deployment/default/web: pp/default/takeover -> pp/default/base (in: {env})\n")
    );
}

/// An Argo CD Application whose automated sync does not set `prune: true` leaves on its
/// destination what its source no longer gives (argo-cd controller/appcontroller.go `autoSync`
/// passes `Automated.GetPrune()`, false when unset), and so does one without automated sync
/// (a sync prunes only when asked: `argocd app sync --prune`). With `automated: {prune: true}`
/// the policy is removed.
#[test]
fn an_argo_cd_application_that_does_not_prune_keeps_what_git_no_longer_holds() {
    let Some(dir) = two_commits(
        "an_argo_cd_application_that_does_not_prune_keeps_what_git_no_longer_holds",
        "argo-no-prune",
    ) else {
        return;
    };
    let unchanged = "Plan: main -> the working tree\n\nSummary:\n  karmada  no change\n";
    let note = |why: &str| {
        format!("note: karmada: pp/default/takeover is no longer in Git but Application web does not prune ({why}): it stays on the API server\n")
    };
    let (code, out, err, lint) = plan_and_lint(dir.path());
    assert_eq!((code, out.as_str()), (Some(0), unchanged), "{err}");
    assert!(
        err.contains(&note("syncPolicy.automated.prune is not true")),
        "{err}"
    );
    assert_eq!(lint, "Ownership changes:\n  none\n");

    let app = dir.path().join("argocd/app.yaml");
    let automated = std::fs::read_to_string(&app).unwrap();
    let manual = automated.replace("  syncPolicy:\n    automated: {selfHeal: true}\n", "");
    std::fs::write(&app, &manual).unwrap();
    let (code, out, err, _) = plan_and_lint(dir.path());
    assert_eq!((code, out.as_str()), (Some(0), unchanged), "{err}");
    assert!(
        err.contains(&note(
            "no automated sync, and a sync prunes only when asked"
        )),
        "{err}"
    );

    let pruning = automated.replace("{selfHeal: true}", "{prune: true, selfHeal: true}");
    std::fs::write(&app, pruning).unwrap();
    let (code, out, err, lint) = plan_and_lint(dir.path());
    assert_eq!(code, Some(1), "{out}{err}");
    assert_eq!(out, takeover_removed("karmada"));
    assert!(!err.contains("does not prune"), "{err}");
    assert_eq!(
        lint,
        "Ownership changes:\n  deployment/default/web: pp/default/takeover -> pp/default/base (in: karmada)\n"
    );
}
