//! Environments of a GitOps repository beyond `lint`: `--env` for lint, explain and
//! preempt-check, per-environment sections without it, `lint --base` ownership changes named by
//! environment, Argo CD Applications and ApplicationSets (testdata/argocd-repo), and data files
//! that are not objects. Tests print `SKIPPED:` when no kustomize exists.

use std::path::Path;
use std::process::{Command, Output};

#[path = "support/kustomize.rs"]
mod kustomize;
#[path = "support/run.rs"]
mod run;
mod snapshot_file;
use kustomize::{
    committed_copy, copy_dir, environment_names, git, kustomize_available, run_without_helm as run,
    write_files,
};
use run::{stderr, stdout};
use snapshot_file::assert_snapshot;

const FLUX: &str = "testdata/gitops-repo";
const ARGO: &str = "testdata/argocd-repo";
const IN_CLUSTER: &str = "testdata/argocd-in-cluster";

fn ok(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(o), stderr(o));
    stdout(o)
}

#[test]
fn argo_cd_destinations_are_environments() {
    if !kustomize_available("argo_cd_destinations_are_environments") {
        return;
    }
    let o = run(&["lint", ARGO]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_snapshot("argocd-repo.txt", &stdout(&o));
    let err = stderr(&o);
    // The chart source of the multi-source Application is elsewhere; the dashboard is data.
    assert!(
        err.contains("argocd/prod.yaml: Argo CD Application platform: source `https://charts.example.com chart metrics` is not in this repository"),
        "{err}"
    );
    assert!(
        err.contains("note: testdata/argocd-repo/dashboards/karmada.json: not a Kubernetes object (no apiVersion/kind): skipped"),
        "{err}"
    );
    // The ApplicationSet's staging overlay is its own environment: no finding of prod there.
    let o = run(&["lint", "--env", "karmada-staging", ARGO]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        stdout(&o),
        "environments:\n  karmada-staging: Argo CD destination karmada-staging (Karmada 1.19, linted)\n\n0 errors, 0 warnings, 0 infos in 10 files (2 documents, 1 policy)\n"
    );
}

#[test]
fn lint_env_restricts_to_one_environment() {
    if !kustomize_available("lint_env_restricts_to_one_environment") {
        return;
    }
    // By name, and by the cluster directory it is named after.
    for env in [
        "staging",
        "testdata/gitops-repo/clusters/staging",
        "clusters/staging/",
    ] {
        let o = run(&["lint", "--env", env, "-o", "github", FLUX]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{env}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        // The base's error, without `(in: ...)`: one environment. Karmada refuses that policy,
        // so staging's suspension of it is not judged (it takes no part).
        assert_eq!(
            stdout(&o),
            "::error file=testdata/gitops-repo/apps/web/base/policy.yaml,line=6,col=1,endLine=6,endColumn=5,title=karmada-policy (application-failover-requires-propagate-deps)::application failover is set, propagateDeps must be true [spec.propagateDeps]\n",
            "{env}"
        );
    }
    let o = run(&["lint", "--env", "dev", FLUX]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--env dev: no such environment; the repository has: prod → the cluster Flux runs in (testdata/gitops-repo/clusters/prod); staging → the cluster Flux runs in (testdata/gitops-repo/clusters/staging); testdata/gitops-repo/charts/podinfo → not declared in the repository"),
        "{}",
        stderr(&o)
    );
    let o = run(&["lint", "--env", "prod", "testdata/lint/showcase.yaml"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn explain_picks_the_one_environment_holding_the_template() {
    if !kustomize_available("explain_picks_the_one_environment_holding_the_template") {
        return;
    }
    // deploy/web in namespace api is only in prod.
    let explain_web = |more: &[&str]| {
        let mut args = vec!["explain", "deploy/web", "-n", "api", "-f", FLUX];
        args.extend(more);
        run(&args)
    };
    // The single-environment JSON, naming it.
    let o = explain_web(&["-o", "json"]);
    let out = ok(&o);
    assert_snapshot("explain-gitops-one-env.json", &out);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("environments").is_none(), "{out}");
    assert_eq!(v["eventual"]["name"], "web", "{out}");
    assert!(v["environment"].as_str().unwrap().contains("prod"), "{out}");
    // A graph is drawn as it is.
    let o = explain_web(&["--graph", "dot"]);
    assert!(ok(&o).starts_with("digraph"), "{}", stdout(&o));
    // The text names that environment: the answer is its control plane's alone.
    let o = explain_web(&[]);
    let out = ok(&o);
    let heading = out.lines().next().unwrap_or_default();
    assert!(
        heading.starts_with("== environment ")
            && heading.ends_with(" (the only one of 2 Karmada environments that holds it) =="),
        "{out}"
    );
    assert!(heading.contains("prod"), "{out}");
}

#[test]
fn explain_runs_per_environment_when_several_hold_the_template() {
    if !kustomize_available("explain_runs_per_environment_when_several_hold_the_template") {
        return;
    }
    let o = run(&["explain", "deploy/web", "-n", "web", "-f", ARGO]);
    assert_snapshot("explain-gitops-envs.txt", &ok(&o));
    let o = run(&[
        "explain",
        "deploy/web",
        "-n",
        "web",
        "-f",
        ARGO,
        "-o",
        "json",
    ]);
    let out = ok(&o);
    assert_snapshot("explain-gitops-envs.json", &out);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names = environment_names(&v);
    assert_eq!(names, ["karmada-prod", "karmada-staging"]);
    // One graph cannot hold two control planes: ask for --env.
    let o = run(&[
        "explain",
        "deploy/web",
        "-n",
        "web",
        "-f",
        ARGO,
        "--graph",
        "dot",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("karmada-prod, karmada-staging") && stderr(&o).contains("--env"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn explain_env_picks_one_environment() {
    if !kustomize_available("explain_env_picks_one_environment") {
        return;
    }
    let o = run(&[
        "explain",
        "deploy/web",
        "-n",
        "web",
        "-f",
        ARGO,
        "--env",
        "karmada-staging",
    ]);
    assert_snapshot("explain-gitops-env.txt", &ok(&o));
    let o = run(&["explain", "deploy/web", "-f", FLUX, "--env", "nope"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the repository has: prod → the cluster Flux runs in (testdata/gitops-repo/clusters/prod); staging → "),
        "{}",
        stderr(&o)
    );
}

fn takeover(dir: &Path, namespace: &str) -> String {
    let path = dir.join("takeover.yaml");
    std::fs::write(
        &path,
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: takeover\n  namespace: {namespace}\nspec:\n  priority: 5\n  preemption: Always\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  placement:\n    clusterAffinity:\n      clusterNames: [member2]\n"),
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn preempt_check_env_and_per_environment_sections() {
    if !kustomize_available("preempt_check_env_and_per_environment_sections") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let api = takeover(dir.path(), "api");
    let gate = "PropagationPolicyPreemption=true";
    let o = run(&[
        "preempt-check",
        "-f",
        FLUX,
        "--env",
        "prod",
        "--apply",
        &api,
        "--feature-gates",
        gate,
    ]);
    assert_snapshot("preempt-check-gitops-env.txt", &ok(&o));
    let web = takeover(dir.path(), "web");
    let o = run(&[
        "preempt-check",
        "-f",
        ARGO,
        "--apply",
        &web,
        "--feature-gates",
        gate,
        "-o",
        "json",
    ]);
    let out = ok(&o);
    assert_snapshot("preempt-check-gitops-envs.json", &out);
    let o = run(&[
        "preempt-check",
        "-f",
        ARGO,
        "--apply",
        &web,
        "--feature-gates",
        gate,
    ]);
    assert_snapshot("preempt-check-gitops-envs.txt", &ok(&o));

    // An --apply file with a document that does not parse (a chart's unrendered template) is
    // read once per environment, and said once: it was warned of in every environment.
    let broken = dir.path().join("broken.yaml");
    std::fs::write(
        &broken,
        format!("{}---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: {{{{ .Values.name }}}}, namespace: web}}\n", std::fs::read_to_string(&web).unwrap()),
    )
    .unwrap();
    let o = run(&[
        "preempt-check",
        "-f",
        ARGO,
        "--apply",
        broken.to_str().unwrap(),
        "--feature-gates",
        gate,
    ]);
    let err = stderr(&o);
    assert!(!o.stdout.is_empty(), "{err}");
    assert_eq!(err.matches("warning: ").count(), 1, "{err}");
    assert_eq!(err.matches("left out of the answer").count(), 1, "{err}");
}

/// The takeover of `web` moved into the base both destinations render, listed there.
fn takeover_in_base(repo: &Path) {
    let base = repo.join("apps/web/base");
    std::fs::rename(takeover(repo, "web"), base.join("takeover.yaml")).unwrap();
    let k = base.join("kustomization.yaml");
    let text = std::fs::read_to_string(&k).unwrap();
    std::fs::write(
        &k,
        text.replace("  - policy.yaml\n", "  - policy.yaml\n  - takeover.yaml\n"),
    )
    .unwrap();
}

/// `preempt-check -f . --apply FILE` over a repository that renders FILE (the form `--help`
/// shows): what the environments render from it is the change, left out of their state, so a
/// blocked takeover is blocked (exit 1 with `--fail-on-blocked`), as `plan --base` and `lint
/// --base` say of the same change.
#[test]
fn preempt_check_leaves_the_applied_file_out_of_the_rendered_state() {
    if !kustomize_available("preempt_check_leaves_the_applied_file_out_of_the_rendered_state") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join(ARGO), repo);
    takeover_in_base(repo);
    let check = |extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args([
                "preempt-check",
                "-f",
                ".",
                "--apply",
                "apps/web/base/takeover.yaml",
            ])
            .args(["--fail-on-blocked", "--color", "never"])
            .args(extra)
            .current_dir(repo)
            .output()
            .unwrap();
        (o.status.code(), stdout(&o), stderr(&o))
    };
    let said = "note: dashboards/karmada.json: not a Kubernetes object (no apiVersion/kind): skipped\n\
                note: argocd/prod.yaml: Argo CD Application platform: source `https://charts.example.com chart metrics` is not in this repository\n";
    let left_out = |env: &str| {
        format!("note: environment {env}: apps/web/base/takeover.yaml is the change (--apply): left out of the state rendered from -f\n")
    };
    let (code, out, err) = check(&[]);
    assert_eq!(
        out,
        "== environments karmada-prod, karmada-staging (the same answer) ==\n\
         Moves:\n  none\n\n\
         Stays:\n  deployment/web/web: stays with pp/web/web (blocked: feature gate PropagationPolicyPreemption is off)\n    \
         pp/web/takeover (feature-gate-disabled): preemption needs the feature gate PropagationPolicyPreemption=true (off by default)\n\n\
         Unchanged: 0 other templates\n",
        "{err}"
    );
    let both = format!(
        "{said}{}{}",
        left_out("karmada-prod"),
        left_out("karmada-staging")
    );
    assert_eq!((code, err), (Some(1), both));
    let gate = [
        "--env",
        "karmada-prod",
        "--feature-gates",
        "PropagationPolicyPreemption=true",
    ];
    let (code, out, err) = check(&gate);
    assert_eq!(
        out,
        "Moves:\n  deployment/web/web: pp/web/web -> pp/web/takeover (preempted)\n\nStays:\n  none\n\nUnchanged: 0 other templates\n",
        "{err}"
    );
    assert_eq!(
        (code, err),
        (Some(0), format!("{said}{}", left_out("karmada-prod")))
    );
}

/// A template rendered only into an environment that is not a Karmada API server (Argo CD's
/// `in-cluster`): explain says so, with or without `--env` (exit 4: no Karmada control plane
/// holds it), not that it is missing from the files or that the repository renders nothing;
/// `--env` naming that environment for an object it does not hold, or for preempt-check, says
/// nothing is decided there (exit 2, the argument picks no Karmada environment).
#[test]
fn a_template_only_outside_karmada_is_said_to_be_there() {
    if !kustomize_available("a_template_only_outside_karmada_is_said_to_be_there") {
        return;
    }
    let only = "error: Deployment web/web is only in environment in-cluster, which is not a Karmada API server (lint does not lint it): nothing to explain there\n";
    let not_karmada = "note: environment in-cluster is not a Karmada API server (lint does not lint it): nothing is decided there; pick a Karmada environment with --env (those of the repository: testdata/argocd-in-cluster/policies)\n";
    let said = |args: &[&str]| {
        let o = run(args);
        (o.status.code(), stdout(&o), stderr(&o))
    };
    let explain = ["explain", "deploy/web", "-n", "web", "-f", IN_CLUSTER];
    assert_eq!(said(&explain), (Some(4), String::new(), only.to_string()));
    let env = [&explain[..], &["--env", "in-cluster"]].concat();
    let both = format!("{not_karmada}{only}");
    assert_eq!(said(&env), (Some(4), String::new(), both));
    // An object no environment renders is still not found in the files.
    let nope = ["explain", "deploy/nope", "-n", "web", "-f", IN_CLUSTER];
    let missing =
        "error: deployments.apps \"nope\" not found in namespace web of the given files\n";
    assert_eq!(said(&nope), (Some(4), String::new(), missing.to_string()));
    let nothing = |purpose: &str| {
        format!("{not_karmada}error: environment in-cluster is not a Karmada API server: nothing {purpose} there\n")
    };
    let nope_env = [&nope[..], &["--env", "in-cluster"]].concat();
    assert_eq!(
        said(&nope_env),
        (Some(2), String::new(), nothing("to explain"))
    );
    let check = [
        "preempt-check",
        "-f",
        IN_CLUSTER,
        "--env",
        "in-cluster",
        "--delete",
        "pp/web/web",
    ];
    assert_eq!(
        said(&check),
        (Some(2), String::new(), nothing("to check against"))
    );
}

#[test]
fn base_names_the_environments_of_each_ownership_change() {
    let test = "base_names_the_environments_of_each_ownership_change";
    if !kustomize_available(test) {
        return;
    }
    let Some(dir) = committed_copy(test, ARGO, "takeover") else {
        return;
    };
    let repo = dir.path();
    // A takeover in the base both destinations render: one change, naming both.
    takeover_in_base(repo);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "takeover"]);
    let lint = |format: &str| {
        Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(["lint", "--base", "main", "-o", format])
            .args(["--feature-gates", "PropagationPolicyPreemption=true"])
            .current_dir(repo)
            .output()
            .unwrap()
    };
    let o = lint("text");
    assert_snapshot("lint-base-gitops-envs.txt", &stdout(&o));
    let o = lint("json");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&o), stderr(&o)));
    let changes = v["ownershipChanges"].as_array().expect("ownership changes");
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(
        changes[0]["environments"],
        serde_json::json!(["karmada-prod", "karmada-staging"]),
        "{changes:#?}"
    );
    assert_eq!(changes[0]["preempted"], true, "{changes:#?}");
}

#[test]
fn data_files_are_notes_and_flux_escapes_keep_the_real_syntax_error() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("dashboard.json", "{\"title\": \"Karmada\", \"panels\": []}\n"),
        ("values.yaml", "replicaCount: 1\nclusters: [member1]\n"),
        (
            "schema.json",
            "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"type\": \"object\"}\n",
        ),
        ("list.yaml", "- a\n- b\n"),
        ("scalar.yaml", "just a string\n"),
        // A list of objects without `kind: List` is an object gone wrong, not data.
        ("objects.yaml", "- apiVersion: v1\n  kind: ConfigMap\n"),
        // A HelmRelease with Flux's `$${var}` escape and a real syntax error on line 9.
        (
            "release.yaml",
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: app\nspec:\n  values:\n    script: |\n      echo $${HOME}\n    list: [a, b\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "-o", "github", "."])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        stdout(&o),
        "::error file=objects.yaml,line=1,endLine=3,title=karmada-policy (not-an-object)::document is not a Kubernetes object (expected a mapping with apiVersion and kind)\n::error file=release.yaml,line=9,col=16,endLine=9,endColumn=16,title=karmada-policy (yaml-syntax)::invalid YAML: while parsing a flow sequence, expected ',' or ']'; this document was skipped\n"
    );
    let notes: Vec<String> = stderr(&o).lines().map(str::to_string).collect();
    let expect: Vec<String> = [
        "dashboard.json",
        "list.yaml",
        "scalar.yaml",
        "schema.json",
        "values.yaml",
    ]
    .iter()
    .map(|f| format!("note: {f}: not a Kubernetes object (no apiVersion/kind): skipped"))
    .collect();
    assert_eq!(notes, expect);
}

/// A source repository holds its test data and settings by the hundred (karmada-io/karmada:
/// 130 files under pkg/resourceinterpreter/**/testdata): five are named, the rest counted,
/// and `-v=1` names every one.
#[test]
fn many_data_files_are_counted_after_five() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..8 {
        std::fs::write(dir.path().join(format!("data-{i}.yaml")), "name: x\n").unwrap();
    }
    std::fs::write(
        dir.path().join("cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: b}\n",
    )
    .unwrap();
    let notes = |extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(["lint", "."])
            .args(extra)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        stderr(&o).lines().map(str::to_string).collect::<Vec<_>>()
    };
    let named = |i: usize| {
        format!("note: data-{i}.yaml: not a Kubernetes object (no apiVersion/kind): skipped")
    };
    let mut expect: Vec<String> = (0..5).map(named).collect();
    expect.push("note: 3 more files hold documents that are not Kubernetes objects (no apiVersion/kind): skipped (-v=1 names each)".into());
    assert_eq!(notes(&[]), expect);
    assert_eq!(notes(&["-v=1"]), (0..8).map(named).collect::<Vec<_>>());
}

/// A Flux repository without a single kustomization (testdata/flux-plain-repo): its cluster
/// directories are still environments. Read as one set of manifests, prod's and staging's
/// copies of `pp/default/web` clashed and `${cluster_name}` was an unrendered template.
/// No kustomize is involved: Flux builds plain directories itself.
#[test]
fn flux_cluster_directories_over_plain_manifests_are_environments() {
    const REPO: &str = "testdata/flux-plain-repo";
    let o = run(&["lint", REPO]);
    assert_snapshot("flux-plain-repo.txt", &ok(&o));
    let o = run(&["lint", "--env", "prod", "-o", "github", REPO]);
    assert_eq!(
        ok(&o),
        "::notice file=testdata/flux-plain-repo/infrastructure/cpp.yaml,line=7,endLine=9,title=karmada-policy (overlap)::cpp/platform and pp/default/web both match deployment/default/web: pp/default/web wins the fresh match: a PropagationPolicy always beats a ClusterPropagationPolicy, whatever the priorities [spec.resourceSelectors[0]]%0Aoverlaps with pp/default/web at testdata/flux-plain-repo/apps/prod/pp.yaml:8:7\n"
    );
    // Staging's equal-priority takeover stays in staging.
    let o = run(&["lint", "--env", "staging", "-o", "json", REPO]);
    let json: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    let rules: Vec<&str> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "inert-preemption",
            "overlap",
            "silent-non-preemption",
            "overlap"
        ]
    );
    assert_eq!(json["summary"]["documents"], 6);
}

/// A policy in a kustomize root that did not render (a remote resource, refused): explain and
/// preempt-check do not find it, but do not say it does not exist (exit 4) either: the
/// environment that did not render may hold it, so they fail (exit 1) saying so, as
/// `suspend -f` does for a document that does not parse (docs/exit-codes.md).
#[test]
fn a_policy_in_a_root_that_did_not_render_is_not_said_missing() {
    if !kustomize_available("a_policy_in_a_root_that_did_not_render_is_not_said_missing") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            ("app/kustomization.yaml", "resources:\n  - github.com/stefanprodan/podinfo/kustomize\n  - pp.yaml\n"),
            ("app/pp.yaml", "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: podinfo, namespace: podinfo}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: podinfo}]\n"),
            ("other/kustomization.yaml", "resources: [cm.yaml]\n"),
            ("other/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: podinfo}\n"),
        ],
    );
    let repo = root.display().to_string();
    let why = format!(
        "; environment {} did not render completely (see the warning above), and what it leaves out may hold it",
        root.join("app").display()
    );
    for args in [
        vec!["explain", "pp/podinfo", "-n", "podinfo", "-f", &repo],
        vec![
            "preempt-check",
            "-f",
            &repo,
            "--delete",
            "pp/podinfo/podinfo",
        ],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(&why), "{}", stderr(&o));
    }
    // Given as plain files, a document that does not parse may hold it just as well.
    let broken = root.join("broken.yaml");
    std::fs::write(&broken, "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment\n").unwrap();
    let broken = broken.display().to_string();
    let o = run(&["explain", "pp/web", "-n", "shop", "-f", &broken]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("error: pp/shop/web not found in the given files; a document that does not parse may hold it: {broken}:")),
        "{}",
        stderr(&o)
    );
    // And preempt-check's --delete over the same file says it as explain does (it said "no
    // such policy", exit 4: round twenty, N4).
    let o = run(&["preempt-check", "-f", &broken, "--delete", "pp/shop/web"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("error: --delete pp/shop/web: not found in the given files; a document that does not parse may hold it: {broken}:")),
        "{}",
        stderr(&o)
    );
}

/// A policy admission refuses, in one of several environments: explain and preempt-check say
/// why it is not found whichever environment is searched first (the first one's error names
/// nothing).
#[test]
fn a_refused_policy_is_said_refused_whichever_environment_comes_first() {
    if !kustomize_available("a_refused_policy_is_said_refused_whichever_environment_comes_first") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            kustomize::FLUX_BOOTSTRAP_C1,
            ("root.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n"),
            ("karmada/pp.yaml", "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: weighted, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n  priority: high\n"),
        ],
    );
    let repo = root.display().to_string();
    let o = run(&["explain", "pp/weighted", "-f", &repo]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("error: pp/default/weighted is in the given files, but admission refuses it, so the API server does not store it: "),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "preempt-check",
        "-f",
        &repo,
        "--delete",
        "pp/default/weighted",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("error: --delete pp/default/weighted is in the given files, but admission refuses it, so the API server does not store it: "),
        "{}",
        stderr(&o)
    );
}

/// A document of an environment that could not be read (an unrendered `{{name}}`): explain
/// answers without it, and says that environment's answer leaves it out. (The template is the
/// namespace: one in `metadata.name` leaves the object nameless to kustomize's resource
/// factory, which fails Flux's build of the whole plain directory, fluxcd/pkg `scanManifests`.)
#[test]
fn an_unreadable_document_is_said_left_out_of_its_environment() {
    if !kustomize_available("an_unreadable_document_is_said_left_out_of_its_environment") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_files(
        root,
        &[
            kustomize::FLUX_BOOTSTRAP_C1,
            ("clusters/c1/app.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: pp\n  namespace: {{name}}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n"),
        ],
    );
    let repo = root.display().to_string();
    let o = run(&["explain", "deploy/nginx", "-f", &repo]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("unrendered template `{{name}}`"), "{err}");
    assert!(
        err.contains(": 1 document skipped above is left out of the answer: it may change once the document is fixed (lint reports it as an error)"),
        "{err}"
    );
}

/// A loose directory holding no Kubernetes object (Talos machine patches beside a Flux
/// repository) is no API server's input: it is not linted as a Karmada API server's, and JSON
/// says so, where it was `karmadaApiServer: true` with a release.
#[test]
fn a_loose_directory_without_kubernetes_objects_is_not_a_karmada_api_server() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            (
                "clusters/prod/flux/cluster.yaml",
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: cluster, namespace: flux-system}\nspec: {interval: 30m, path: ./clusters/prod/flux, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
            ),
            ("talos/patches/disk.yaml", "machine:\n  install:\n    disk: /dev/sda\n"),
        ],
    );
    let root = dir.path().display().to_string();
    let o = run(&["lint", &root]);
    let text = ok(&o);
    assert!(
        text.contains("talos/patches: loose files: no Flux Kustomization or Argo CD Application applies them (no Kubernetes objects: not linted)\n"),
        "{text}"
    );
    let o = run(&["lint", "-o", "json", &root]);
    let json: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    let env = json["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["name"]
                .as_str()
                .is_some_and(|n| n.ends_with("talos/patches"))
        })
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(env["karmadaApiServer"], false, "{env:#}");
    assert_eq!(env["karmadaVersion"], serde_json::Value::Null, "{env:#}");
    // One object in it makes it an input again.
    write_files(
        dir.path(),
        &[(
            "talos/patches/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n",
        )],
    );
    let text = ok(&run(&["lint", &root]));
    assert!(text.contains("talos/patches: loose files: no Flux Kustomization or Argo CD Application applies them (Karmada "), "{text}");
}

/// An environment whose Argo CD Application also takes a chart from another repository: an
/// OverridePolicy selecting no template of this repository may select one of that chart's, and
/// the finding says so rather than only that its overrides are never applied
/// (SJoon99/scalex-federation).
#[test]
fn a_policy_selecting_nothing_here_may_select_what_another_repository_holds() {
    let dir = tempfile::tempdir().unwrap();
    let app = |sources: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: web, namespace: argocd}}\nspec:\n  project: default\n  sources:\n{sources}  destination: {{name: karmada}}\n")
    };
    let here = "    - {repoURL: https://git.example.com/fleet.git, targetRevision: main, path: policies}\n";
    let chart =
        "    - {repoURL: https://github.com/example/web.git, targetRevision: main, path: chart}\n";
    write_files(
        dir.path(),
        &[
            ("argocd/web.yaml", &app(&format!("{here}{chart}"))),
            (
                "policies/op.yaml",
                "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: web-on-b, namespace: web}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  overrideRules:\n  - targetCluster: {clusterNames: [b]}\n    overriders:\n      labelsOverrider: [{operator: add, value: {site: b}}]\n",
            ),
            (
                "policies/other.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: other, namespace: web}\nspec:\n  selector: {matchLabels: {app: other}}\n  template:\n    metadata: {labels: {app: other}}\n    spec: {containers: [{name: c, image: nginx}]}\n",
            ),
        ],
    );
    let root = dir.path().display().to_string();
    let o = run(&["lint", &root]);
    let text = stdout(&o);
    assert!(
        text.contains("info[override-selects-nothing]: OverridePolicy web/web-on-b selects no template of the input in namespace web: its overrides are never applied; environment karmada also applies `https://github.com/example/web.git chart`, which is not in this repository: a template there may match it\n"),
        "{text}{}",
        stderr(&o)
    );
    // With every source here, the finding says only what it said.
    write_files(dir.path(), &[("argocd/web.yaml", &app(here))]);
    let text = stdout(&run(&["lint", &root]));
    assert!(text.contains("its overrides are never applied\n"), "{text}");
}

/// The control plane's Cluster objects given with `-f` beside a Flux repository (as explain's
/// hint asks) are the member clusters of its Karmada environment, not loose files of their own:
/// explain evaluates the placement with them and lint finds the override that fails there, as
/// when the file sits in the repository (round 16).
#[test]
fn cluster_objects_given_beside_a_repository_are_its_members() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("repo/clusters/karmada/ks.yaml", "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: policies, namespace: flux-system}\nspec:\n  interval: 5m\n  path: ./policies\n  prune: true\n  sourceRef: {kind: GitRepository, name: repo}\n  kubeConfig:\n    secretRef: {name: karmada-kubeconfig, key: value}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 5m\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: repo}\n  kubeConfig:\n    secretRef: {name: karmada-kubeconfig, key: value}\n"),
            ("repo/policies/pp.yaml", "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement:\n    clusterAffinity:\n      labelSelector: {matchLabels: {tier: edge}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterOverridePolicy\nmetadata: {name: mem}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  overrideRules:\n  - targetCluster: {labelSelector: {matchLabels: {tier: edge}}}\n    overriders:\n      plaintext:\n      - {path: /spec/template/spec/containers/0/resources/requests/memory, operator: replace, value: 256Mi}\n"),
            ("repo/apps/web.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n"),
            ("clusters.yaml", "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: edge1, labels: {tier: edge}}\nspec: {syncMode: Push}\n"),
        ],
    );
    let repo = dir.path().join("repo").display().to_string();
    let clusters = dir.path().join("clusters.yaml").display().to_string();
    let o = run(&[
        "explain",
        "deploy/web",
        "-n",
        "shop",
        "-f",
        &repo,
        "-f",
        &clusters,
    ]);
    let text = ok(&o);
    assert!(text.contains("clusters: edge1"), "{text}");
    assert!(!text.contains("no Cluster objects are known"), "{text}");
    let o = run(&["lint", &repo, &clusters]);
    let text = stdout(&o);
    assert!(
        text.contains("warning[override-fails]: ClusterOverridePolicy mem"),
        "{text}"
    );
    assert!(!text.contains("loose files"), "{text}");
    assert!(
        stderr(&o).contains("clusters.yaml: Cluster objects no controller applies: read as the member clusters of karmada/karmada-kubeconfig"),
        "{}",
        stderr(&o)
    );
}

/// Over a GitOps repository `-n` names the template's namespace and moves nothing: a
/// PropagationPolicy that sets no namespace is in `default`, where the controller applying the
/// repository puts it and where lint and plan read it, so it is no candidate for a template in
/// `argo`. Given as plain files, `-n` places it as `kubectl apply -n` does, with a note.
#[test]
fn n_names_the_template_s_namespace_over_a_repository_and_moves_nothing() {
    if !kustomize_available("n_names_the_template_s_namespace_over_a_repository_and_moves_nothing")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: argo\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n";
    let selects = "spec:\n  resourceSelectors:\n    - {apiVersion: apps/v1, kind: Deployment}\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n";
    write_files(
        root,
        &[
            ("app/kustomization.yaml", "resources:\n  - cm.yaml\n"),
            ("app/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: app\n"),
            ("deploy.yaml", deploy),
            ("pp.yaml", &format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: deployments-pp\n{selects}")),
            ("cpp.yaml", &format!("apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: default-cpp\n{selects}")),
        ],
    );
    let owner = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        (
            v["eventual"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            stderr,
        )
    };
    let (name, err) = owner(&[
        "explain",
        "deploy/web",
        "-n",
        "argo",
        "-f",
        ".",
        "-o",
        "json",
    ]);
    assert_eq!(name, "default-cpp", "{err}");
    assert!(!err.contains("sets no namespace"), "{err}");
    let plain = [
        "explain",
        "deploy/web",
        "-n",
        "argo",
        "-f",
        "deploy.yaml",
        "-f",
        "pp.yaml",
        "-f",
        "cpp.yaml",
        "-o",
        "json",
    ];
    let (name, err) = owner(&plain);
    assert_eq!(name, "deployments-pp", "{err}");
    assert!(
        err.contains(
            "note: pp/argo/deployments-pp sets no namespace (pp.yaml): -n argo places it in argo"
        ),
        "{err}"
    );
}

/// An environment nothing declares is named after its root's path in the repository, wherever
/// the tool runs from: `lint .` inside `apps/web` names it `apps/web`, as from the top (not
/// `.`), and `--env apps/web` takes it there too.
#[test]
fn an_undeclared_root_has_one_name_from_any_directory() {
    let test = "an_undeclared_root_has_one_name_from_any_directory";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("apps/web/kustomization.yaml", "resources: [policy.yaml]\n"),
            (
                "apps/web/policy.yaml",
                "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: web}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement:\n    clusterAffinity: {clusterNames: [member1]}\n",
            ),
        ],
    );
    git(dir.path(), &["init", "-q", "-b", "main"]);
    let names_from = |cwd: &Path, args: &[&str]| -> Vec<String> {
        let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args([&["lint", "-o", "json"], args].concat())
            .current_dir(cwd)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        environment_names(&v)
            .into_iter()
            .map(str::to_string)
            .collect()
    };
    let inside = dir.path().join("apps/web");
    assert_eq!(names_from(dir.path(), &["."]), ["apps/web"]);
    // A nested repository's root keeps the path through it: the two are not one environment.
    let policy = std::fs::read_to_string(inside.join("policy.yaml")).unwrap();
    let nested = dir.path().join("inner");
    write_files(
        &nested,
        &[
            ("apps/web/kustomization.yaml", "resources: [policy.yaml]\n"),
            (
                "apps/web/policy.yaml",
                &policy.replace("name: web,", "name: inner,"),
            ),
        ],
    );
    git(&nested, &["init", "-q", "-b", "main"]);
    assert_eq!(
        names_from(dir.path(), &["."]),
        ["apps/web", "inner/apps/web"]
    );
    std::fs::remove_dir_all(&nested).unwrap();
    assert_eq!(names_from(&inside, &["."]), ["apps/web"]);
    assert_eq!(
        names_from(&inside, &[".", "--env", "apps/web"]),
        ["apps/web"]
    );
    // Or by the directory, given absolute.
    let absolute = inside.display().to_string();
    assert_eq!(
        names_from(dir.path(), &[".", "--env", &absolute]),
        ["apps/web"]
    );
}

/// A submodule's roots are skipped on both sides of a comparison: a revision holds only the
/// submodule's commit id, and the working tree's side skipping them too keeps an unchanged
/// repository `no change` (before, they read as added), with a note.
#[test]
fn a_submodule_is_skipped_on_both_sides_of_a_comparison() {
    let test = "a_submodule_is_skipped_on_both_sides_of_a_comparison";
    if !kustomize_available(test) {
        return;
    }
    let root = |dir: &Path, name: &str| {
        write_files(
            dir,
            &[
                ("apps/web/kustomization.yaml", "resources: [policy.yaml]\n"),
                (
                    "apps/web/policy.yaml",
                    &format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: {name}, namespace: web}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement:\n    clusterAffinity: {{clusterNames: [member1]}}\n"),
                ),
            ],
        );
        git(dir, &["init", "-q", "-b", "main"]);
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-qm", "root"]);
    };
    let inner = tempfile::tempdir().unwrap();
    root(inner.path(), "inner");
    let outer = tempfile::tempdir().unwrap();
    root(outer.path(), "outer");
    let url = format!("file://{}", inner.path().display());
    git(
        outer.path(),
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "-q",
            "add",
            &url,
            "sub",
        ],
    );
    git(outer.path(), &["commit", "-qm", "submodule"]);
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["plan", "--base", "HEAD"])
        .current_dir(outer.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("Summary:\n  apps/web  no change\n"),
        "{}",
        stdout(&o)
    );
    assert!(
        stderr(&o).contains("sub: submodule, skipped"),
        "{}",
        stderr(&o)
    );
}
