//! Git-aware lint on real repositories made in temporary directories with the git CLI (skipped,
//! with the reason printed, where `git` is missing): `--rev`, `--staged`, `--base` (new findings,
//! ownership changes, update-only rules), suspension age from history, and the bad inputs.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn have_git() -> bool {
    let ok = Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: git is not installed");
    }
    ok
}

/// Runs git in `dir` with a fixed identity and no user or system configuration; `date` (an
/// RFC 2822 or `@unix` date) sets both the author and the committer date.
fn git_at(dir: &Path, args: &[&str], date: Option<&str>) -> String {
    let mut c = Command::new("git");
    c.args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Alice Ops")
        .env("GIT_AUTHOR_EMAIL", "alice@example.com")
        .env("GIT_COMMITTER_NAME", "Alice Ops")
        .env("GIT_COMMITTER_EMAIL", "alice@example.com");
    if let Some(d) = date {
        c.env("GIT_AUTHOR_DATE", d).env("GIT_COMMITTER_DATE", d);
    }
    let out = c.output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn git(dir: &Path, args: &[&str]) -> String {
    git_at(dir, args, None)
}

/// A new repository on branch `main` holding `files`, committed.
fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    write(dir.path(), files);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    dir
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

fn commit(dir: &Path, files: &[(&str, &str)], message: &str) {
    write(dir, files);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

fn lint(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out: Output = Command::new(BIN)
        .arg("lint")
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut a = args.to_vec();
    a.extend(["-o", "json"]);
    let (code, out, err) = lint(dir, &a);
    let v = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    (code, v)
}

fn rules(v: &Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

const GATE_ON: &str = "featureGates:\n  PropagationPolicyPreemption: true\n";

const NGINX: &str =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\n";

/// A PropagationPolicy naming the nginx Deployment; `extra` goes under `spec:`.
fn pp(name: &str, extra: &str) -> String {
    format!(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n{extra}  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n  placement:\n    clusterAffinity:\n      clusterNames: [member1, member2]\n"
    )
}

fn owner(kind: &str, name: &str) -> Value {
    serde_json::json!({"kind": kind, "namespace": "default", "name": name})
}

#[test]
fn pr_raising_a_priority_moves_the_template() {
    if !have_git() {
        return;
    }
    let r = repo(&[
        (".karmada-policy.yaml", GATE_ON),
        ("apps/nginx.yaml", NGINX),
        ("policies/a.yaml", &pp("a", "  priority: 5\n")),
        (
            "policies/b.yaml",
            &pp("b", "  priority: 1\n  preemption: Always\n"),
        ),
    ]);
    git(r.path(), &["checkout", "-q", "-b", "raise"]);
    commit(
        r.path(),
        &[(
            "policies/b.yaml",
            &pp("b", "  priority: 10\n  preemption: Always\n"),
        )],
        "raise b",
    );
    let (code, v) = json(r.path(), &["--base", "main"]);
    assert_eq!(code, 0, "{v}");
    let changes = v["ownershipChanges"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{v}");
    let c = &changes[0];
    assert_eq!(
        c["resource"],
        serde_json::json!({"apiVersion":"apps/v1","kind":"Deployment","namespace":"default","name":"nginx"})
    );
    assert_eq!(c["before"], owner("PropagationPolicy", "a"));
    assert_eq!(c["after"], owner("PropagationPolicy", "b"));
    assert_eq!(c["blockedBy"], serde_json::json!([]));
    // The base's finding (b never takes nginx from a) is gone, not new; nothing old is shown.
    assert!(
        !rules(&v).contains(&"silent-non-preemption".to_string()),
        "{v}"
    );

    // The same from a revision, without the working tree: head = --rev.
    git(r.path(), &["checkout", "-q", "main"]);
    let (_, v) = json(r.path(), &["--rev", "raise", "--base", "main"]);
    assert_eq!(
        v["ownershipChanges"][0]["after"],
        owner("PropagationPolicy", "b")
    );

    let (_, text, _) = lint(r.path(), &["--rev", "raise", "--base", "main"]);
    assert!(
        text.contains("Ownership changes:\n  deployment/default/nginx: pp/default/a -> pp/default/b (preempted)\n"),
        "{text}"
    );
    // PATHs are relative to the current directory, also in a subdirectory; ignorePaths applies.
    let (_, v) = json(&r.path().join("policies"), &["--rev", "raise", "."]);
    assert_eq!(v["summary"]["files"], 2, "{v}");
    std::fs::write(
        r.path().join(".karmada-policy.yaml"),
        format!("{GATE_ON}ignorePaths: [\"policies/b.yaml\"]\n"),
    )
    .unwrap();
    let (_, v) = json(r.path(), &["--rev", "raise"]);
    assert_eq!(
        v["summary"]["files"], 2,
        "apps/nginx.yaml and policies/a.yaml: {v}"
    );
    std::fs::write(r.path().join(".karmada-policy.yaml"), GATE_ON).unwrap();

    // Plain lint output has no ownership section and the JSON contract is unchanged.
    let (_, v) = json(r.path(), &["."]);
    assert!(v.get("ownershipChanges").is_none());
}

#[test]
fn pr_adding_an_equal_priority_preemptor_is_reported_blocked() {
    if !have_git() {
        return;
    }
    let r = repo(&[
        (".karmada-policy.yaml", GATE_ON),
        ("nginx.yaml", NGINX),
        ("a.yaml", &pp("a", "  priority: 5\n")),
    ]);
    write(
        r.path(),
        &[("c.yaml", &pp("c", "  priority: 5\n  preemption: Always\n"))],
    );
    // Head is the working tree (untracked files included).
    let (_, v) = json(r.path(), &["--base", "main"]);
    let c = &v["ownershipChanges"][0];
    assert_eq!(c["before"], owner("PropagationPolicy", "a"));
    assert_eq!(c["after"], owner("PropagationPolicy", "a"));
    assert_eq!(c["blockedBy"][0]["policy"], owner("PropagationPolicy", "c"));
    assert_eq!(c["blockedBy"][0]["reason"], "equal-priority");
    let (_, text, _) = lint(r.path(), &["--base", "main"]);
    assert!(
        text.contains("deployment/default/nginx: stays with pp/default/a\n    would move to pp/default/c but blocked: "),
        "{text}"
    );
    assert!(text.contains("(equal-priority)"), "{text}");
}

#[test]
fn pr_changing_scheduler_name_or_permanent_id_is_an_error() {
    if !have_git() {
        return;
    }
    let labelled = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: l\n  namespace: default\n  labels:\n    propagationpolicy.karmada.io/permanent-id: 1b8f1e4a-0000-4000-8000-000000000001\nspec:\n  resourceSelectors:\n    - apiVersion: v1\n      kind: ConfigMap\n";
    let r = repo(&[
        ("nginx.yaml", NGINX),
        ("a.yaml", &pp("a", "  priority: 5\n")),
        ("l.yaml", labelled),
    ]);
    git(r.path(), &["checkout", "-q", "-b", "sched"]);
    let unlabelled = labelled.replace(
        "  labels:\n    propagationpolicy.karmada.io/permanent-id: 1b8f1e4a-0000-4000-8000-000000000001\n",
        "",
    );
    commit(
        r.path(),
        &[
            (
                "a.yaml",
                &pp("a", "  priority: 5\n  schedulerName: custom\n"),
            ),
            ("l.yaml", &unlabelled),
        ],
        "custom scheduler",
    );
    let (code, v) = json(r.path(), &["--base", "main"]);
    assert_eq!(code, 1, "an update Karmada rejects fails the run: {v}");
    let f: Vec<&Value> = v["findings"].as_array().unwrap().iter().collect();
    let sched = f
        .iter()
        .find(|f| f["rule"] == "scheduler-name-immutable")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(sched["severity"], "error");
    assert_eq!(
        (sched["file"].as_str(), sched["line"].as_u64()),
        (Some("a.yaml"), Some(8))
    );
    assert_eq!(sched["field"], "spec.schedulerName");
    let id = f
        .iter()
        .find(|f| f["rule"] == "permanent-id-immutable")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(id["file"], "l.yaml");
    // A new policy with a custom scheduler is not an update: no error for it.
    let (code, _) = json(r.path(), &["--rev", "sched"]);
    assert_eq!(code, 0);
}

#[test]
fn staged_lints_the_index_not_the_working_tree_and_rev_touches_nothing() {
    if !have_git() {
        return;
    }
    let bad = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\nspec:\n  preemption: Always\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n";
    let good = &pp("p", "");
    let r = repo(&[("keep.yaml", NGINX)]);
    // Bad in the index, good on disk: --staged fails, plain lint passes.
    write(r.path(), &[("p.yaml", bad)]);
    git(r.path(), &["add", "p.yaml"]);
    write(r.path(), &[("p.yaml", good)]);
    let (code, v) = json(r.path(), &["--staged"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(rules(&v), vec!["preemption-requires-name"]);
    assert_eq!(v["findings"][0]["file"], "p.yaml");
    assert_eq!(v["findings"][0]["line"], 8);
    assert_eq!(lint(r.path(), &["."]).0, 0);
    // Good in the index, bad on disk: the other way round.
    git(r.path(), &["add", "p.yaml"]);
    write(r.path(), &[("p.yaml", bad)]);
    assert_eq!(lint(r.path(), &["--staged"]).0, 0);
    assert_eq!(lint(r.path(), &["."]).0, 1);
    // A path narrows --staged; outside it, nothing is read.
    let (_, v) = json(r.path(), &["--staged", "keep.yaml"]);
    assert_eq!(v["summary"]["files"], 1);

    // A malformed ignore annotation is reported once, and a valid one silences the
    // git-only rules too.
    let annotated = NGINX.replace(
        "  namespace: default\n",
        "  namespace: default\n  annotations:\n    karmada-policy.io/ignore: \"overlap\"\n",
    );
    write(r.path(), &[("keep.yaml", &annotated)]);
    git(r.path(), &["add", "keep.yaml"]);
    let (_, v) = json(r.path(), &["--staged", "keep.yaml"]);
    assert_eq!(rules(&v), vec!["invalid-ignore"]);
    git(r.path(), &["reset", "-q", "--", "keep.yaml"]);
    git(r.path(), &["checkout", "-q", "--", "keep.yaml"]);

    // --rev reads the object database only: the working tree and the index stay as they were.
    let status = git(r.path(), &["status", "--porcelain"]);
    let (code, v) = json(r.path(), &["--rev", "HEAD"]);
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["files"], 1, "p.yaml is not committed: {v}");
    assert_eq!(git(r.path(), &["status", "--porcelain"]), status);
    assert_eq!(
        std::fs::read_to_string(r.path().join("p.yaml")).unwrap(),
        bad
    );
}

/// A git date (`@SECONDS +0000`) ten days and an hour ago: past the default maxSuspensionAge.
/// A PATH with nothing to lint at the revision or in the index (mistyped, or empty there)
/// exits 2, as the same PATH in the working tree does, so a CI step cannot pass on nothing;
/// `--allow-empty` accepts it, and `--base` answers (a change may delete the directory).
#[test]
fn a_path_with_nothing_at_the_revision_is_nothing_to_lint() {
    if !have_git() {
        return;
    }
    let r = repo(&[("policies/p.yaml", &pp("p", ""))]);
    for args in [
        &["--rev", "HEAD", "polices"][..],
        &["--staged", "polices"],
        &["polices"],
    ] {
        let (code, _, err) = lint(r.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
    let (code, _, err) = lint(r.path(), &["--rev", "HEAD", "polices"]);
    assert!(
        err.contains("error: no .yaml, .yml or .json file in polices at HEAD: nothing to lint (--allow-empty accepts that)"),
        "{err}"
    );
    assert_eq!(code, 2);
    assert_eq!(
        lint(r.path(), &["--rev", "HEAD", "--allow-empty", "polices"]).0,
        0
    );
    assert_eq!(lint(r.path(), &["--rev", "HEAD", "policies"]).0, 0);
    // A change that deletes the directory: --base answers what it removes.
    git(r.path(), &["rm", "-q", "-r", "policies"]);
    git(r.path(), &["commit", "-q", "-m", "delete"]);
    assert_eq!(lint(r.path(), &["--rev", "HEAD", "policies"]).0, 2);
    let (code, v) = json(r.path(), &["--rev", "HEAD", "--base", "HEAD~1", "policies"]);
    assert_eq!(code, 0, "{v}");
}

fn ten_days_ago() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    format!("@{} +0000", now - 10 * 86_400 - 3_600)
}

#[test]
fn suspension_committed_ten_days_ago_reports_its_age() {
    if !have_git() {
        return;
    }
    let r = repo(&[("nginx.yaml", NGINX)]);
    let ten_days_ago = ten_days_ago();
    let suspended = pp(
        "web",
        "  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member2]\n",
    );
    write(r.path(), &[("web.yaml", &suspended)]);
    git(r.path(), &["add", "web.yaml"]);
    git_at(
        r.path(),
        &["commit", "-q", "-m", "pause member2"],
        Some(&ten_days_ago),
    );
    let sha = git(r.path(), &["rev-parse", "--short=7", "HEAD"]);
    // A later commit elsewhere in the file does not reset the age of the suspension's line.
    commit(
        r.path(),
        &[(
            "web.yaml",
            &suspended.replace("name: web\n", "name: web\n  labels:\n    team: a\n"),
        )],
        "label",
    );
    let (code, v) = json(r.path(), &["--rev", "HEAD"]);
    assert_eq!(code, 0, "a warning does not fail by default");
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "suspension-age")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(
        f["message"],
        format!(
            "dispatching to member2 suspended for 10 days since {sha}; failover frozen meanwhile"
        )
    );
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["line"], 11);
    let note = f["related"][0]["message"].as_str().unwrap();
    assert!(
        note.contains(&format!(
            "introduced in {sha} by Alice Ops <alice@example.com> on "
        )),
        "{note}"
    );
    // The working tree and the index are blamed against HEAD as well.
    assert!(rules(&json(r.path(), &["--staged"]).1).contains(&"suspension-age".into()));
    // A longer maxSuspensionAge, or an uncommitted suspension: no warning.
    write(
        r.path(),
        &[(".karmada-policy.yaml", "maxSuspensionAge: 14d\n")],
    );
    assert!(!rules(&json(r.path(), &["--rev", "HEAD"]).1).contains(&"suspension-age".into()));
    std::fs::remove_file(r.path().join(".karmada-policy.yaml")).unwrap();
    let fresh = suspended.replace("[member2]", "[member1]");
    write(r.path(), &[("web.yaml", &fresh)]);
    git(r.path(), &["add", "web.yaml"]);
    assert!(!rules(&json(r.path(), &["--staged"]).1).contains(&"suspension-age".into()));
}

#[test]
fn base_reports_only_new_findings_unless_all_findings() {
    if !have_git() {
        return;
    }
    let bad = |name: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n  preemption: Always\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n")
    };
    let r = repo(&[("old.yaml", &bad("old"))]);
    git(r.path(), &["checkout", "-q", "-b", "pr"]);
    // The old finding moves down three lines; a new bad policy arrives.
    commit(
        r.path(),
        &[
            (
                "old.yaml",
                &format!("# moved\n# down\n# three\n{}", bad("old")),
            ),
            ("new.yaml", &bad("new")),
        ],
        "pr",
    );
    let (code, v) = json(r.path(), &["--base", "main"]);
    assert_eq!(code, 1);
    let files: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, vec!["new.yaml"], "{v}");
    assert_eq!(v["summary"]["errors"], 1);
    let (_, v) = json(r.path(), &["--base", "main", "--all-findings"]);
    assert_eq!(v["summary"]["errors"], 2, "{v}");
    // SARIF and GitHub annotations carry only the new finding, even with --all-findings.
    let (_, gh, _) = lint(
        r.path(),
        &["--base", "main", "--all-findings", "-o", "github"],
    );
    assert_eq!(gh.lines().count(), 1, "{gh}");
    assert!(gh.starts_with("::error file=new.yaml,line=9,"), "{gh}");
    let (_, sarif, _) = lint(r.path(), &["--base", "main", "-o", "sarif"]);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 1);
}

#[test]
fn bad_inputs_are_clear_errors_naming_what_to_fetch() {
    if !have_git() {
        return;
    }
    let plain = tempfile::tempdir().unwrap();
    let (code, _, err) = lint(plain.path(), &["--staged"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a git repository"), "{err}");

    let r = repo(&[("nginx.yaml", NGINX)]);
    let (code, _, err) = lint(r.path(), &["--base", "origin/main"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown revision `origin/main`"), "{err}");
    assert!(
        err.contains("git fetch origin origin/main") || err.contains("git fetch"),
        "{err}"
    );
    git(
        r.path(),
        &[
            "remote",
            "add",
            "origin",
            "https://example.invalid/repo.git",
        ],
    );
    let (_, _, err) = lint(r.path(), &["--base", "origin/main"]);
    assert!(err.contains("`git fetch origin main`"), "{err}");
    let (code, _, err) = lint(r.path(), &["--rev", "no-such-branch"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown revision `no-such-branch`"), "{err}");
    // Counted back past the first commit of a whole history: no fetch can help, and the error
    // does not offer one (zhdkb/wordcount-job, `--base HEAD~5` with four commits).
    let (code, _, err) = lint(r.path(), &["--base", "HEAD~5"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown revision `HEAD~5`: the history goes back fewer commits than that, and this clone is complete (not shallow): no fetch brings more"),
        "{err}"
    );
    assert!(!err.contains("--deepen"), "{err}");

    // A shallow clone of a branch whose merge base with main was not fetched.
    commit(r.path(), &[("a.yaml", &pp("a", ""))], "a");
    git(r.path(), &["checkout", "-q", "-b", "pr"]);
    commit(r.path(), &[("b.yaml", &pp("b", ""))], "b");
    commit(r.path(), &[("c.yaml", &pp("c", ""))], "c");
    git(r.path(), &["checkout", "-q", "main"]);
    commit(r.path(), &[("d.yaml", &pp("d", ""))], "d");
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", r.path().display());
    git(
        clone.path(),
        &["clone", "-q", "--depth", "1", "--branch", "pr", &url, "c"],
    );
    let c = clone.path().join("c");
    let (code, _, err) = lint(&c, &["--base", "origin/main"]);
    assert_eq!(code, 2);
    assert!(err.contains("shallow clone"), "{err}");
    assert!(err.contains("git fetch origin main"), "{err}");
    git(
        &c,
        &[
            "fetch",
            "-q",
            "--depth",
            "1",
            "origin",
            "main:refs/remotes/origin/main",
        ],
    );
    let (code, _, err) = lint(&c, &["--base", "origin/main"]);
    assert_eq!(code, 2);
    assert!(err.contains("git fetch --unshallow"), "{err}");
    git(&c, &["fetch", "-q", "--unshallow"]);
    let (code, _, err) = lint(&c, &["--base", "origin/main"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn submodules_symlinks_lfs_pointers_are_skipped_and_odd_paths_do_not_crash() {
    if !have_git() {
        return;
    }
    let r = repo(&[("nginx.yaml", NGINX)]);
    let head = git(r.path(), &["rev-parse", "HEAD"]);
    write(
        r.path(),
        &[(
            "big.yaml",
            "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n",
        )],
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("nginx.yaml", r.path().join("link.yaml")).unwrap();
        use std::os::unix::ffi::OsStrExt;
        let odd = std::ffi::OsStr::from_bytes(b"caf\xe9.yaml");
        let bad = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\nspec:\n  preemption: Always\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n";
        std::fs::write(r.path().join(odd), bad).unwrap();
    }
    git(r.path(), &["add", "-A"]);
    git(
        r.path(),
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{head},vendor/sub"),
        ],
    );
    git(r.path(), &["commit", "-q", "-m", "odd entries"]);
    for args in [&["--rev", "HEAD"][..], &["--staged"][..]] {
        let (code, out, err) = lint(r.path(), args);
        assert!(code == 0 || code == 1, "{args:?}: {code} {err}");
        assert!(
            err.contains("note: big.yaml: Git LFS pointer, skipped"),
            "{err}"
        );
        assert!(
            err.contains("note: vendor/sub: submodule, skipped"),
            "{err}"
        );
        #[cfg(unix)]
        {
            assert!(err.contains("note: link.yaml: symlink, skipped"), "{err}");
            assert_eq!(code, 1, "{out}");
            assert!(out.contains("caf\u{fffd}.yaml"), "{out}");
        }
    }
}

/// `lint --base` over the working tree blames every suspended policy, file by file: two in one
/// file and one in another, with an uncommitted edit above them that shifts their lines; the
/// rule set to "off" skips the blame altogether and reports nothing.
#[test]
fn base_blames_each_suspended_policy_through_working_tree_edits() {
    if !have_git() {
        return;
    }
    let r = repo(&[("nginx.yaml", NGINX)]);
    let ten_days_ago = ten_days_ago();
    let paused = |name: &str, cluster: &str| {
        pp(
            name,
            &format!(
                "  suspension:\n    dispatchingOnClusters:\n      clusterNames: [{cluster}]\n"
            ),
        )
    };
    let two = format!("{}---\n{}", paused("a", "member1"), paused("b", "member2"));
    write(
        r.path(),
        &[("two.yaml", &two), ("one.yaml", &paused("c", "member3"))],
    );
    git(r.path(), &["add", "two.yaml", "one.yaml"]);
    git_at(
        r.path(),
        &["commit", "-q", "-m", "pause"],
        Some(&ten_days_ago),
    );
    git(r.path(), &["branch", "-q", "base-point"]);
    // Uncommitted: a comment line on top of the two-policy file moves both suspensions down.
    write(
        r.path(),
        &[("two.yaml", &format!("# paused for the migration\n{two}"))],
    );
    let (_, v) = json(r.path(), &["--base", "base-point", "--all-findings"]);
    let mut aged: Vec<(String, i64)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "suspension-age")
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_i64().unwrap(),
            )
        })
        .collect();
    aged.sort();
    let (a, b) = (paused("a", "member1"), paused("b", "member2"));
    let line_of = |text: &str, offset: usize| {
        offset as i64
            + text
                .lines()
                .position(|l| l.contains("clusterNames"))
                .unwrap() as i64
            + 1
    };
    assert_eq!(
        aged,
        [
            ("one.yaml".to_string(), line_of(&paused("c", "member3"), 0)),
            ("two.yaml".to_string(), line_of(&a, 1)),
            (
                "two.yaml".to_string(),
                line_of(&b, 1 + a.lines().count() + 1)
            ),
        ],
        "{v}"
    );
    write(
        r.path(),
        &[(
            ".karmada-policy.yaml",
            "rules:\n  suspension-age: \"off\"\n",
        )],
    );
    let (_, v) = json(r.path(), &["--base", "base-point", "--all-findings"]);
    assert!(!rules(&v).contains(&"suspension-age".into()), "{v}");
}

/// A sparse checkout leaves files outside its cone out of the working tree without deleting
/// them (skip-worktree): `lint --base` and `plan --base` read them from the index, where plan
/// reported the policies in them removed.
#[test]
fn files_outside_a_sparse_checkout_are_not_deleted() {
    if !have_git() {
        return;
    }
    let r = repo(&[
        ("team-a/pp.yaml", &pp("a", "")),
        ("team-b/pp.yaml", &pp("b", "")),
    ]);
    commit(
        r.path(),
        &[("team-a/pp.yaml", &pp("a", "  priority: 3\n"))],
        "change team-a",
    );
    git(r.path(), &["sparse-checkout", "set", "team-a"]);
    assert!(!r.path().join("team-b/pp.yaml").exists());
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["plan", "--base", "HEAD~1", "-o", "json"])
        .current_dir(r.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let edits: Vec<String> = v["environments"][0]["policies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{} {}", p["change"], p["policy"]["name"]))
        .collect();
    assert_eq!(edits, vec!["\"changed\" \"a\"".to_string()], "{v:#}");
    let (code, out, err) = lint(r.path(), &["--base", "HEAD~1", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("in 2 files"), "{out}");
}
