//! `lint` over a GitOps repository (testdata/gitops-repo): kustomize roots rendered with the
//! real kustomize (`kustomize` or `kubectl kustomize`), Flux substitution, Helm charts, and
//! every finding on the source line to edit. Tests print `SKIPPED:` when no kustomize exists.

use std::path::Path;
use std::process::{Command, Output};

#[path = "support/kustomize.rs"]
mod kustomize;
#[path = "support/run.rs"]
mod run;
mod snapshot_file;
use kustomize::{
    committed_copy, git, helm_available, kustomize_available, run_without_helm as run,
    write_files as write,
};
use run::{bin, stderr, stdout};
use snapshot_file::assert_snapshot;

const REPO: &str = "testdata/gitops-repo";

#[test]
fn the_repository_lints_without_false_positives_in_every_format() {
    if !kustomize_available("the_repository_lints_without_false_positives_in_every_format") {
        return;
    }
    let o = run(&["lint", REPO]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_snapshot("gitops-repo.txt", &stdout(&o));
    // Without helm (the test takes it off PATH): the chart is not rendered, which a warning at
    // its Chart.yaml says (its environment is not linted), and no finding in its templates.
    assert!(
        stdout(&o).contains(
            "warning[renderer-not-found]: not rendered: helm is not on PATH (and .karmada-policy.yaml sets no gitops.helm), so nothing of it is linted"
        ),
        "{}",
        stdout(&o)
    );
    assert!(
        !stderr(&o).contains("Helm chart not linted"),
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

/// `(rule, file:line)` of each finding of `lint -o json PATH` run in `dir`.
fn findings_at(dir: &Path, path: &str) -> Vec<(String, String)> {
    let o = bin()
        .args(["lint", "-o", "json", path])
        .current_dir(dir)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]),
            )
        })
        .collect()
}

/// A copy of the repository whose base policy Karmada admits (`propagateDeps: true` beside its
/// application failover), so the overlays' own problems are reported: a refused policy takes
/// part in no semantic rule.
fn admitted_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    kustomize::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(REPO),
        dir.path(),
    );
    let policy = dir.path().join("apps/web/base/policy.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    std::fs::write(
        &policy,
        text.replace("  failover:\n", "  propagateDeps: true\n  failover:\n"),
    )
    .unwrap();
    dir
}

#[test]
fn findings_land_on_the_lines_to_edit() {
    if !kustomize_available("findings_land_on_the_lines_to_edit") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let at = findings_at(root, REPO);
    let has = |at: &[(String, String)], rule: &str, place: &str| {
        at.iter().any(|(r, p)| r == rule && p.ends_with(place))
    };
    // A base shared by two environments: once, naming both.
    assert!(
        has(
            &at,
            "application-failover-requires-propagate-deps",
            "apps/web/base/policy.yaml:6"
        ),
        "{at:?}"
    );
    // Karmada refuses that policy (ValidatePropagationSpec: application failover needs
    // propagateDeps), so it takes no part: the semantic rules say nothing more of it.
    for rule in ["invalid-cluster-name", "suspended-cluster-not-targeted"] {
        assert!(!at.iter().any(|(r, _)| r == rule), "{rule}: {at:?}");
    }
    // Nothing about patches as objects, the chart's templates or ${cluster_name}.
    for rule in [
        "schema-required",
        "not-an-object",
        "duplicate-identity",
        "unrendered-template",
    ] {
        assert!(!at.iter().any(|(r, _)| r == rule), "{rule}: {at:?}");
    }
    // Admitted, the overlays' own problems land in the patches that wrote them.
    let copy = admitted_copy();
    let at = findings_at(copy.path(), ".");
    // In the strategic-merge patch that set the placement, not in the rendered stream.
    assert!(
        has(
            &at,
            "invalid-cluster-name",
            "apps/web/overlays/prod/placement.yaml:11"
        ),
        "{at:?}"
    );
    // In the suspension-only patch of staging.
    assert!(
        has(
            &at,
            "suspended-cluster-not-targeted",
            "apps/web/overlays/staging/suspension.yaml:9"
        ),
        "{at:?}"
    );
    assert!(
        !at.iter()
            .any(|(r, _)| r == "application-failover-requires-propagate-deps"),
        "{at:?}"
    );
}

#[test]
fn base_reports_only_the_blocked_takeover_of_an_added_equal_priority_policy() {
    let test = "base_reports_only_the_blocked_takeover_of_an_added_equal_priority_policy";
    if !kustomize_available(test) {
        return;
    }
    let Some(dir) = committed_copy(test, REPO, "takeover") else {
        return;
    };
    let repo = dir.path();
    std::fs::write(
        repo.join("apps/api/takeover.yaml"),
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web-takeover\nspec:\n  preemption: Always\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  placement:\n    clusterAffinity:\n      clusterNames: [member2]\n",
    )
    .unwrap();
    let k = repo.join("apps/api/kustomization.yaml");
    let text = std::fs::read_to_string(&k).unwrap();
    std::fs::write(
        &k,
        text.replace("  - policy.yaml\n", "  - policy.yaml\n  - takeover.yaml\n"),
    )
    .unwrap();
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "takeover"]);
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "--base", "main", "-o", "json"])
        .args(["--feature-gates", "PropagationPolicyPreemption=true"])
        .current_dir(repo)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&o), stderr(&o)));
    let changes = v["ownershipChanges"].as_array().expect("ownership changes");
    assert_eq!(changes.len(), 1, "{changes:#?}");
    let change = &changes[0];
    assert_eq!(change["resource"]["name"], "web", "{change:#?}");
    assert_eq!(change["resource"]["namespace"], "api", "{change:#?}");
    let text = change.to_string();
    assert!(text.contains("equal-priority"), "{text}");
    // Only the new policy's findings are new; the base's problems are not reported again.
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"silent-non-preemption"), "{rules:?}");
    assert!(!rules.contains(&"invalid-cluster-name"), "{rules:?}");
}

/// The finding a render of the podinfo chart with testdata/helm-recorded/prod-values.yaml gives.
const PODINFO_FINDING: &str = "::error file=testdata/gitops-repo/charts/podinfo/templates/policy.yaml,line=14,col=11,endLine=14,endColumn=18,title=karmada-policy (invalid-cluster-name)::`Member_9` is not a valid cluster name (a lowercase DNS-1123 label): it matches no cluster [spec.placement.clusterAffinity.clusterNames[1]]\n";

#[test]
fn a_chart_rendered_by_the_real_helm_maps_findings_to_its_templates() {
    if !kustomize::helm_available(
        "a_chart_rendered_by_the_real_helm_maps_findings_to_its_templates",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("karmada-policy.yaml");
    let values =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/helm-recorded/prod-values.yaml");
    std::fs::write(
        &config,
        format!(
            "gitops:\n  helmValues:\n    {}: [{}]\n",
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("testdata/gitops-repo/charts/podinfo")
                .display(),
            values.display()
        ),
    )
    .unwrap();
    let o = run::run(&[
        "lint",
        "--config",
        &config.display().to_string(),
        "-o",
        "github",
        "testdata/gitops-repo/charts",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), PODINFO_FINDING);
}

/// A key written twice in a chart's template (chutesai/chutes-miner's cleanup CronJob): both
/// keys are the one key the rendered tree keeps, so the earlier one is found by its distance
/// from the later one, and the message names its line in the template, not in helm's output.
#[test]
fn a_duplicate_key_in_a_chart_template_names_both_lines_of_the_template() {
    if !kustomize::helm_available(
        "a_duplicate_key_in_a_chart_template_names_both_lines_of_the_template",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n"),
            (
                "chart/templates/cronjob.yaml",
                "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: cleanup\nspec:\n  schedule: \"* * * * *\"\n  successfulJobsHistoryLimit: 3\n  concurrencyPolicy: Forbid\n  successfulJobsHistoryLimit: 3\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n          - name: cleanup\n            image: {{ .Values.image | default \"bitnami/kubectl\" }}\n          restartPolicy: OnFailure\n",
            ),
        ],
    );
    let o = run::run(&[
        "lint",
        "-o",
        "json",
        &dir.path().join("chart").display().to_string(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "duplicate-key", "{v:#}");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("the earlier one at line 7 is silently lost"),
        "{v:#}"
    );
    assert_eq!(
        (f["line"].as_u64(), f["related"][0]["line"].as_u64()),
        (Some(9), Some(7)),
        "{v:#}"
    );
}

/// Karmada's own chart (charts/karmada) lists `common` from a chart repository and keeps no
/// `charts/` directory: the real helm refuses it until `helm dependency build`, which Flux and
/// Argo CD run before rendering and the linter does not (it fetches nothing unless told to).
/// The chart is not rendered, a warning at the dependency's entry says so, and the run does not
/// fail for it: the repository is not at fault.
#[test]
fn a_chart_whose_dependency_is_not_fetched_is_reported_at_the_dependency() {
    if !kustomize::helm_available(
        "a_chart_whose_dependency_is_not_fetched_is_reported_at_the_dependency",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "karmada/Chart.yaml",
                "apiVersion: v2\nname: karmada\nversion: 1.0.0\ndependencies:\n  - name: common\n    repository: https://charts.example.com\n    version: 2.x.x\n",
            ),
            ("karmada/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"),
        ],
    );
    let o = run::run(&["lint", &dir.path().join("karmada").display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("warning[remote-resource-not-fetched]: refused to render: chart dependency `common` (https://charts.example.com) is not in charts/, and helm would fetch it from the network (`helm dependency build`"),
        "{out}"
    );
    assert!(out.contains("Chart.yaml:5:11\n"), "{out}");
    assert!(out.contains("5 |   - name: common\n"), "{out}");
    assert!(out.contains("set `gitops.remoteResources: true`"), "{out}");
    assert!(!out.contains("Fix the kustomization"), "{out}");
}

#[test]
fn a_chart_rendered_by_helm_maps_findings_to_its_templates() {
    // testdata/helm-recorded/helm.sh prints a recording of `helm template` (see its README),
    // so this runs where helm cannot; the test above renders with the real helm.
    let o = run(&[
        "lint",
        "--config",
        "testdata/helm-recorded/karmada-policy.yaml",
        "-o",
        "github",
        "testdata/gitops-repo/charts",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), PODINFO_FINDING);
    assert!(
        !stderr(&o).contains("Helm chart not linted"),
        "{}",
        stderr(&o)
    );
}

const BASE_POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n";

/// The report of `lint -o json .` run in `dir`.
fn report_in(dir: &Path) -> serde_json::Value {
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "-o", "json", "."])
        .current_dir(dir)
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&o), stderr(&o)))
}

/// `(rule, file:line)` of every finding of `lint -o json` over `dir`.
fn places(dir: &Path) -> Vec<(String, String)> {
    report_in(dir)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]),
            )
        })
        .collect()
}

#[test]
fn inline_and_json6902_patches_take_the_findings_of_the_fields_they_set() {
    if !kustomize_available("inline_and_json6902_patches_take_the_findings_of_the_fields_they_set")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("base/kustomization.yaml", "resources: [policy.yaml]\n"),
            ("base/policy.yaml", BASE_POLICY),
            (
                "inline/kustomization.yaml",
                "resources: [../base]\nnamePrefix: x-\npatches:\n  - target:\n      kind: PropagationPolicy\n      name: web\n    patch: |-\n      apiVersion: policy.karmada.io/v1alpha1\n      kind: PropagationPolicy\n      metadata:\n        name: web\n      spec:\n        placement:\n          clusterAffinity:\n            clusterNames: [Bad_Inline]\n",
            ),
            (
                "json/kustomization.yaml",
                "resources: [../base]\nnamespace: other\npatches:\n  - path: names.yaml\n    target:\n      kind: PropagationPolicy\n",
            ),
            (
                "json/names.yaml",
                "- op: replace\n  path: /spec/placement/clusterAffinity/clusterNames\n  value:\n    - member1\n    - Bad_Json\n",
            ),
        ],
    );
    let at = places(dir.path());
    assert!(
        at.contains(&(
            "invalid-cluster-name".into(),
            "inline/kustomization.yaml:15".into()
        )),
        "{at:?}"
    );
    assert!(
        at.contains(&("invalid-cluster-name".into(), "json/names.yaml:5".into())),
        "{at:?}"
    );
    assert_eq!(at.len(), 2, "{at:?}");
}

#[test]
fn a_kustomize_error_is_a_finding_at_the_kustomization() {
    if !kustomize_available("a_kustomize_error_is_a_finding_at_the_kustomization") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[("app/kustomization.yaml", "resources: [missing.yaml]\n")],
    );
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "-o", "github", "."])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("::error file=app/kustomization.yaml,line=1,col=13,"),
        "{out}"
    );
    assert!(
        out.contains("(render-failed)::kustomize build failed:") && out.contains("missing.yaml"),
        "{out}"
    );
}

fn lint_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = bin()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn piped_renders_land_on_the_files_they_came_from() {
    // `helm template ... | lint --stdin-filename CHART -`: through the `# Source:` comments.
    let recording = std::fs::read("testdata/helm-recorded/podinfo-template.txt")
        .or_else(|_| {
            std::fs::read(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("testdata/helm-recorded/podinfo-template.txt"),
            )
        })
        .unwrap();
    let o = lint_stdin(
        &[
            "lint",
            "-o",
            "github",
            "--stdin-filename",
            "testdata/gitops-repo/charts/podinfo",
            "-",
        ],
        &recording,
    );
    assert!(
        stdout(&o).starts_with(
            "::error file=testdata/gitops-repo/charts/podinfo/templates/policy.yaml,line=14,"
        ),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    if !kustomize_available("piped_renders_land_on_the_files_they_came_from (kustomize part)") {
        return;
    }
    // `kubectl kustomize OVERLAY | lint --stdin-filename OVERLAY -`: the same lines as `lint`.
    let overlay = "testdata/gitops-repo/apps/web/overlays/staging";
    let rendered = Command::new("kubectl")
        .args(["kustomize", overlay])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let o = lint_stdin(
        &["lint", "-o", "github", "--stdin-filename", overlay, "-"],
        &rendered.stdout,
    );
    let out = stdout(&o);
    assert!(
        out.contains("file=testdata/gitops-repo/apps/web/base/policy.yaml,line=6,"),
        "{out}"
    );
    assert!(!out.contains("<stdin>"), "{out}");
    // The overlay's own patch, once the base policy is one Karmada admits.
    let copy = admitted_copy();
    let overlay = "apps/web/overlays/staging";
    let rendered = Command::new("kubectl")
        .args(["kustomize", overlay])
        .current_dir(copy.path())
        .output()
        .unwrap();
    let o = bin()
        .args(["lint", "-o", "github", "--stdin-filename", overlay, "-"])
        .current_dir(copy.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&rendered.stdout)?;
            child.wait_with_output()
        })
        .unwrap();
    let out = stdout(&o);
    assert!(
        out.contains("file=apps/web/overlays/staging/suspension.yaml,line=9,"),
        "{out}"
    );
    assert!(!out.contains("<stdin>"), "{out}");
}

/// `lint .` where the directory holds the kustomization itself: the root is the directory the
/// tool runs in (an empty path once normalized), which must still be built, and named `.`.
#[test]
fn a_kustomization_in_the_directory_linted_as_dot_is_built_and_named_dot() {
    if !kustomize_available("a_kustomization_in_the_directory_linted_as_dot_is_built_and_named_dot")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("kustomization.yaml", "resources:\n  - policy.yaml\n"),
            ("policy.yaml", &BASE_POLICY.replace("member1", "member_1")),
        ],
    );
    let report = report_in(dir.path());
    assert_eq!(kustomize::environment_names(&report), ["."]);
    // The policy is rendered and judged: its cluster name is refused where it is written.
    assert_eq!(
        places(dir.path()),
        [(
            "invalid-cluster-name".to_string(),
            "policy.yaml:12".to_string()
        )]
    );
}

/// `lint .` in a chart's directory: `helm template` is given `.`, not an empty argument.
#[test]
fn a_chart_in_the_directory_linted_as_dot_is_rendered() {
    if !kustomize::helm_available("a_chart_in_the_directory_linted_as_dot_is_rendered") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n"),
            (
                "templates/policy.yaml",
                &BASE_POLICY.replace("member1", "member_1"),
            ),
        ],
    );
    let report = report_in(dir.path());
    assert_eq!(kustomize::environment_names(&report), ["."]);
    assert_eq!(
        places(dir.path()),
        [(
            "invalid-cluster-name".to_string(),
            "templates/policy.yaml:12".to_string()
        )]
    );
}

/// A message that names another place (duplicate-identity's "replaces the one at FILE:LINE")
/// names the source file the note points at, not the rendered stream's position.
#[test]
fn a_duplicate_in_a_kustomize_tree_names_the_file_of_the_first_copy() {
    if !kustomize_available("a_duplicate_in_a_kustomize_tree_names_the_file_of_the_first_copy") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cpp = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: crds\nspec:\n  resourceSelectors:\n    - {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, name: foos.example.com}\n  placement:\n    clusterAffinity: {clusterNames: [member1]}\n";
    write(
        dir.path(),
        &[
            (
                "app/kustomization.yaml",
                "resources:\n  - crd/current.yaml\n",
            ),
            ("app/crd/current.yaml", cpp),
            ("app/crd/stale.yaml", cpp),
        ],
    );
    let report = report_in(dir.path());
    let dup = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "duplicate-identity")
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(dup["file"], "app/crd/stale.yaml");
    assert!(
        dup["message"]
            .as_str()
            .unwrap()
            .ends_with("replaces the one at app/crd/current.yaml:4"),
        "{}",
        dup["message"]
    );
}

/// The summary counts a policy once per control plane: the plain files join every undeclared
/// kustomize root of the repository (lehuannhatrang/stateful-migration-operator has four), and
/// their one policy is still one.
#[test]
fn a_plain_policy_joining_every_undeclared_root_is_counted_once() {
    if !kustomize_available("a_plain_policy_joining_every_undeclared_root_is_counted_once") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cm = |name: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: default\n"
        )
    };
    write(
        dir.path(),
        &[
            ("a/kustomization.yaml", "resources:\n  - cm.yaml\n"),
            ("a/cm.yaml", &cm("a")),
            ("b/kustomization.yaml", "resources:\n  - cm.yaml\n"),
            ("b/cm.yaml", &cm("b")),
            ("plain/pp.yaml", BASE_POLICY),
        ],
    );
    let report = report_in(dir.path());
    assert_eq!(kustomize::environment_names(&report), ["a", "b"]);
    assert_eq!(report["summary"]["policies"], 1, "{}", report["summary"]);
}

/// A URL resource is refused before kustomize could request it (the linter runs on untrusted
/// pull requests; a URL may name an internal service), at its entry, as a warning of its own:
/// the repository is not at fault (kustomize, Flux and Argo CD build it), so the run does not
/// fail for it unless the configuration raises the rule; with
/// `gitops.remoteResources: true` the real kustomize fetches it and its objects are linted. A
/// server on 127.0.0.1 stands for any URL and counts the requests.
#[test]
fn a_remote_resource_is_fetched_only_when_the_configuration_allows_it() {
    let test = "a_remote_resource_is_fetched_only_when_the_configuration_allows_it";
    if !kustomize_available(test) {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = requests.clone();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        let body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fetched\n";
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let url = format!("http://127.0.0.1:{port}/cm.yaml");
    write(
        root,
        &[
            (
                "app/kustomization.yaml",
                &format!("namespace: web\nresources:\n  - pp.yaml\n  - {url}\n"),
            ),
            (
                "app/pp.yaml",
                "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: cm\nspec:\n  resourceSelectors:\n    - {apiVersion: v1, kind: ConfigMap, name: fetched}\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n",
            ),
        ],
    );
    let v = report_in(root);
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{v}");
    assert_eq!(findings[0]["rule"], "remote-resource-not-fetched");
    assert_eq!(findings[0]["severity"], "warning");
    assert_eq!(findings[0]["line"], 4);
    let lint = |args: &[&str]| bin().args(args).current_dir(root).output().unwrap();
    let o = lint(&["lint", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o)
            .contains("help: Where the repository is trusted, set `gitops.remoteResources: true`"),
        "{}",
        stdout(&o)
    );
    write(
        root,
        &[(
            ".karmada-policy.yaml",
            "rules:\n  remote-resource-not-fetched: error\n",
        )],
    );
    assert_eq!(lint(&["lint", "."]).status.code(), Some(1));
    assert!(
        findings[0]["message"]
            .as_str()
            .unwrap()
            .contains("is a remote resource, which kustomize would fetch from the network; nothing was fetched"),
        "{v}"
    );
    assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 0);

    write(
        root,
        &[(".karmada-policy.yaml", "gitops:\n  remoteResources: true\n")],
    );
    let v = report_in(root);
    assert_eq!(v["findings"], serde_json::json!([]), "{v}");
    assert!(requests.load(std::sync::atomic::Ordering::SeqCst) >= 1);
    // The fetched ConfigMap is a template the policy claims.
    let o = bin()
        .args([
            "explain",
            "cm/fetched",
            "-n",
            "web",
            "-f",
            ".",
            "-o",
            "json",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    let e: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}{}", stdout(&o), stderr(&o)));
    assert_eq!(e["eventual"]["name"], "cm", "{e}");
}

/// In a repository that declares no environment, a chart is a root like a kustomization: the
/// plain manifests are linted with it, so a loose policy selecting the chart's workload is
/// judged against it (before, only kustomize roots got them: `replicas-below-min-groups` was
/// lost beside a chart, and explain found no policy).
#[test]
fn a_chart_is_linted_with_the_plain_manifests_like_a_kustomize_root() {
    if !helm_available("a_chart_is_linted_with_the_plain_manifests_like_a_kustomize_root") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            ("chart/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n"),
            (
                "chart/templates/deployment.yaml",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n",
            ),
            (
                "policies/pp.yaml",
                "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\nspec:\n  resourceSelectors:\n    - {apiVersion: apps/v1, kind: Deployment, name: web}\n  placement:\n    clusterAffinity:\n      clusterNames: [member1, member2]\n    spreadConstraints:\n      - {spreadByField: cluster, minGroups: 5, maxGroups: 5}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Aggregated\n",
            ),
        ],
    );
    let v = report_in(root);
    let names: Vec<&str> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["chart"], "{v}");
    assert_eq!(
        places(root),
        [(
            "replicas-below-min-groups".to_string(),
            "policies/pp.yaml:12".to_string()
        )]
    );
    let o = bin()
        .args(["explain", "deploy/web", "-f", ".", "-o", "json"])
        .current_dir(root)
        .output()
        .unwrap();
    let e: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}{}", stdout(&o), stderr(&o)));
    assert_eq!(e["eventual"]["name"], "web", "{e}");
}

/// An environment whose roots render no Karmada object is not linted, but a root of it that
/// did not render is reported (it may hold what would make it a Karmada API server): the
/// environments section says both, so the findings labelled with its name do not contradict
/// "not linted" (lreimer/green-kubernetes: a Flux cluster's infrastructure naming a URL).
#[test]
fn a_not_linted_environment_with_a_root_that_did_not_render_says_so() {
    let test = "a_not_linted_environment_with_a_root_that_did_not_render_says_so";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            kustomize::FLUX_BOOTSTRAP_C1,
            ("clusters/c1/infra.yaml", "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: infra, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./infra\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n"),
            ("infra/kustomization.yaml", "resources:\n  - cm.yaml\n  - https://example.invalid/components.yaml\n"),
            ("infra/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n"),
            ("apps/kustomization.yaml", "resources:\n  - cm.yaml\n"),
            ("apps/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y, namespace: default}\n"),
        ],
    );
    let o = bin()
        .args(["lint", "."])
        .current_dir(root)
        .output()
        .unwrap();
    let text = stdout(&o);
    assert!(
        text.contains("warning[remote-resource-not-fetched]"),
        "{text}"
    );
    assert!(
        text.contains("  c1: the cluster Flux runs in (clusters/c1) (not a Karmada API server as far as it renders: not linted; its roots that did not render are reported)\n"),
        "{text}"
    );
    // A root that renders, in an environment without Karmada: said as before.
    write(
        root,
        &[("infra/kustomization.yaml", "resources:\n  - cm.yaml\n")],
    );
    let o = bin()
        .args(["lint", "."])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        stdout(&o).contains(
            "  c1: the cluster Flux runs in (clusters/c1) (not a Karmada API server: not linted)\n"
        ),
        "{}",
        stdout(&o)
    );
}

/// A value a schema rule refuses is pointed at in the file to edit as it is in a plain file:
/// the value, not its key, when the source writes it beside the key (a kustomize root read the
/// same file and pointed at `purgeMode`, column 7, where the plain file said column 18).
#[test]
fn a_refused_value_is_at_the_same_column_through_kustomize() {
    if !kustomize_available("a_refused_value_is_at_the_same_column_through_kustomize") {
        return;
    }
    let policy = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n  propagateDeps: true\n  failover:\n    application:\n      decisionConditions: {tolerationSeconds: 30}\n      purgeMode: Graciously\n      gracePeriodSeconds: 60\n";
    let at = |kustomized: bool| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pp.yaml"), policy).unwrap();
        if kustomized {
            std::fs::write(
                dir.path().join("kustomization.yaml"),
                "resources: [pp.yaml]\n",
            )
            .unwrap();
        }
        let v = report_in(dir.path());
        let f = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "schema-enum")
            .unwrap_or_else(|| panic!("{v:#}"))
            .clone();
        (f["file"].clone(), f["line"].clone(), f["column"].clone())
    };
    let plain = at(false);
    assert_eq!(plain, ("pp.yaml".into(), 11.into(), 18.into()));
    assert_eq!(at(true), plain);
}

/// A static file server on 127.0.0.1 for `dir` (a chart repository: `index.yaml` and the
/// packaged charts), counting the requests; its port.
fn serve_dir(dir: std::path::PathBuf) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buf = [0u8; 8192];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]).into_owned();
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let file = dir.join(path.trim_start_matches('/'));
            let (status, body) = match std::fs::read(&file) {
                Ok(b) => ("200 OK", b),
                Err(_) => ("404 Not Found", Vec::new()),
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
    });
    (port, requests)
}

/// A chart's dependencies that are not in its `charts/`: Flux's source-controller and Argo
/// CD's repo-server run `helm dependency build` before they render. A `file://` dependency
/// (another chart of the repository) is built, offline, in a copy of the chart; one from a chart
/// repository is a `remote-resource-not-fetched` warning at its entry, as a kustomization's
/// remote resource is, and is fetched only with `gitops.remoteResources: true`. The repository
/// is never written to.
#[test]
fn a_chart_s_dependencies_are_built_as_flux_and_argo_cd_build_them() {
    let test = "a_chart_s_dependencies_are_built_as_flux_and_argo_cd_build_them";
    if !helm_available(test) {
        return;
    }
    let pp = |name: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n  resourceSelectors:\n    - {{apiVersion: apps/v1, kind: Deployment, name: nginx}}\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n")
    };
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\nspec:\n  selector: {matchLabels: {app: nginx}}\n  template:\n    metadata: {labels: {app: nginx}}\n    spec:\n      containers: [{name: nginx, image: nginx}]\n";
    // The chart repository: `common`, packaged and indexed.
    let served = tempfile::tempdir().unwrap();
    let source = served.path().join("src/common");
    write(
        &source,
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: common\nversion: 2.0.0\n",
            ),
            ("templates/pp.yaml", &pp("from-common")),
        ],
    );
    let helm = |args: &[&str]| {
        let o = Command::new("helm").args(args).output().unwrap();
        assert!(o.status.success(), "helm {args:?}: {}", stderr(&o));
    };
    let out = served.path().to_str().unwrap();
    helm(&["package", source.to_str().unwrap(), "-d", out]);
    let (port, requests) = serve_dir(served.path().to_path_buf());
    helm(&[
        "repo",
        "index",
        out,
        "--url",
        &format!("http://127.0.0.1:{port}"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            ("app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: dep\n    version: 0.1.0\n    repository: \"file://../dep\"\n"),
            ("app/templates/deploy.yaml", deploy),
            ("dep/Chart.yaml", "apiVersion: v2\nname: dep\nversion: 0.1.0\n"),
            ("dep/templates/pp.yaml", &pp("from-dep")),
            (
                "web/Chart.yaml",
                &format!("apiVersion: v2\nname: web\nversion: 0.1.0\ndependencies:\n  - name: common\n    version: 2.x.x\n    repository: http://127.0.0.1:{port}\n"),
            ),
            ("web/templates/deploy.yaml", deploy),
        ],
    );
    let v = report_in(root);
    let rules: Vec<(&str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["file"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rules,
        [("remote-resource-not-fetched", "web/Chart.yaml")],
        "{v:#}"
    );
    let f = &v["findings"][0];
    assert_eq!(
        (f["line"].as_i64(), f["severity"].as_str()),
        (Some(5), Some("warning"))
    );
    assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 0);
    let env = |name: &str| kustomize::environment(&v, name);
    assert_eq!(env("app")["unrendered"], serde_json::json!([]), "{v:#}");
    assert_eq!(
        env("web")["unrendered"],
        serde_json::json!(["web/Chart.yaml:5:11"])
    );
    // The owner explain names for the chart's Deployment in environment `env`.
    let owner_in = |env: &str| {
        let o = bin()
            .args([
                "explain",
                "deploy/nginx",
                "-f",
                ".",
                "--env",
                env,
                "-o",
                "json",
            ])
            .current_dir(root)
            .output()
            .unwrap();
        let e: serde_json::Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|err| panic!("{err}: {}", stderr(&o)));
        e["eventual"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // The file:// dependency was built: its policy claims the chart's Deployment.
    assert_eq!(owner_in("app"), "from-dep");
    // Allowed, the chart repository's dependency is fetched and rendered.
    write(
        root,
        &[(".karmada-policy.yaml", "gitops:\n  remoteResources: true\n")],
    );
    let v = report_in(root);
    assert_eq!(v["findings"], serde_json::json!([]), "{v:#}");
    assert!(requests.load(std::sync::atomic::Ordering::SeqCst) > 0);
    assert_eq!(owner_in("web"), "from-common");
    // Nothing was written into the charts.
    for chart in ["app", "web"] {
        assert!(!root.join(chart).join("charts").exists(), "{chart}/charts");
        assert!(
            !root.join(chart).join("Chart.lock").exists(),
            "{chart}/Chart.lock"
        );
    }
}

/// `git init` in `root` and one commit of everything in it.
fn commit_all(root: &Path, message: &str) {
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", message]);
}

/// Runs the tool in `root`, without colour.
fn run_in(root: &Path) -> impl Fn(&[&str]) -> Output + '_ {
    move |args: &[&str]| {
        bin()
            .args(args)
            .current_dir(root)
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    }
}

/// A chart's `file://` dependency through a symlink committed inside the repository
/// (`charts/lib -> realib`) renders in every git mode as in the working tree: Flux's and Argo
/// CD's checkouts keep the link, and a revision written for helm keeps it too. A link that
/// leads outside the repository, by its own target or through another link, is refused where
/// a chart names it, in every mode alike.
#[test]
fn a_symlink_inside_the_repository_renders_in_git_modes_as_in_the_working_tree() {
    let test = "a_symlink_inside_the_repository_renders_in_git_modes_as_in_the_working_tree";
    if !helm_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    write(
        &root,
        &[
            ("charts/app/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: lib\n    version: 0.1.0\n    repository: \"file://../lib\"\n"),
            ("charts/app/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\n"),
            ("charts/realib/Chart.yaml", "apiVersion: v2\nname: lib\nversion: 0.1.0\n"),
            ("charts/realib/templates/pp.yaml", "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: from-lib, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: settings}]\n  placement: {clusterAffinity: {clusterNames: [m1]}}\n"),
        ],
    );
    std::os::unix::fs::symlink("realib", root.join("charts/lib")).unwrap();
    std::fs::create_dir_all(root.join("charts/x")).unwrap();
    std::os::unix::fs::symlink("..", root.join("charts/x/up")).unwrap();
    std::os::unix::fs::symlink("x/up/../..", root.join("charts/through")).unwrap();
    std::os::unix::fs::symlink("../..", root.join("charts/above")).unwrap();
    commit_all(&root, "charts");
    let lint = run_in(&root);
    let worktree = lint(&["lint", "."]);
    let o = lint(&["lint", "--rev", "HEAD", "."]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), stdout(&worktree));
    assert!(
        stdout(&o)
            .contains("  charts/app: not declared in the repository (Karmada 1.19, linted)\n"),
        "{}",
        stdout(&o)
    );
    let o = lint(&["plan", "--base", "HEAD"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(!stderr(&o).contains("karmada-policy-rev"), "{}", stderr(&o));
    // A dependency through a link that leaves the repository, directly or through another
    // link, is refused at its line in every mode alike, and an unchanged tree plans no change.
    for (chart, link) in [("esc", "above"), ("esc2", "through")] {
        let dependency = format!("apiVersion: v2\nname: {chart}\nversion: 0.1.0\ndependencies:\n  - name: lib\n    version: 0.1.0\n    repository: \"file://../{link}\"\n");
        write(
            &root,
            &[(&format!("charts/{chart}/Chart.yaml"), &dependency)],
        );
    }
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "escaping dependencies"]);
    let worktree = lint(&["lint", "."]);
    let o = lint(&["lint", "--rev", "HEAD", "."]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), stdout(&worktree));
    for chart in ["esc", "esc2"] {
        assert!(
            stdout(&o).contains(&format!(" --> charts/{chart}/Chart.yaml:7:17\n")),
            "{}",
            stdout(&o)
        );
    }
    assert!(
        stdout(&o).contains(
            "refused to render: the chart dependency `file://../above` is outside the repository"
        ),
        "{}",
        stdout(&o)
    );
    let o = lint(&["plan", "--base", "HEAD"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// A kustomization whose resource is a committed link out of the repository (`app/ln ->
/// ../../outside`) is refused alike in the working tree and in a revision, and an unchanged
/// tree plans no change: what the link leads to is no part of the revision (a checkout
/// elsewhere does not have it), so it does not make the two sides' failures differ.
#[test]
fn a_kustomize_link_out_of_the_repository_plans_no_change_on_an_unchanged_tree() {
    let test = "a_kustomize_link_out_of_the_repository_plans_no_change_on_an_unchanged_tree";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    write(
        dir.path(),
        &[
            ("outside/kustomization.yaml", "resources: [pp.yaml]\n"),
            ("outside/pp.yaml", "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: outside, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: settings}]\n"),
            ("repo/app/kustomization.yaml", "resources: [ln]\n"),
            ("repo/base/kustomization.yaml", "resources: [cm.yaml]\n"),
            ("repo/base/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\n"),
        ],
    );
    std::os::unix::fs::symlink("../../outside", root.join("app/ln")).unwrap();
    commit_all(&root, "app");
    let run = run_in(&root);
    let worktree = run(&["lint", "."]);
    assert_eq!(worktree.status.code(), Some(1), "{}", stdout(&worktree));
    assert!(
        stdout(&worktree).contains("refused to render: `ln` is outside the repository"),
        "{}",
        stdout(&worktree)
    );
    let revision = run(&["lint", "--rev", "HEAD", "."]);
    assert_eq!(stdout(&revision), stdout(&worktree));
    let o = run(&["plan", "--base", "HEAD"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("\n  app   no change\n"),
        "{}",
        stdout(&o)
    );
    let o = run(&["lint", "--base", "HEAD", "."]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// A chart's `file://` dependency outside the repository is refused, never built: the linter
/// runs on untrusted pull requests and reads nothing outside the repository.
#[test]
fn a_chart_dependency_outside_the_repository_is_refused() {
    if !helm_available("a_chart_dependency_outside_the_repository_is_refused") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    git(&root, &["init", "-q"]);
    write(
        dir.path(),
        &[
            ("outside/Chart.yaml", "apiVersion: v2\nname: outside\nversion: 0.1.0\n"),
            ("outside/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: read-from-outside\n"),
            (
                "repo/app/Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: outside\n    version: 0.1.0\n    repository: \"file://../../outside\"\n",
            ),
            ("repo/app/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"),
            // The same in flow style, and at the value itself.
            (
                "repo/flow/Chart.yaml",
                "apiVersion: v2\nname: flow\nversion: 0.1.0\ndependencies: [{name: outside, version: 0.1.0, repository: \"file://../../outside\"}]\n",
            ),
            ("repo/flow/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flow\n"),
        ],
    );
    let v = report_in(&root);
    let flow = &v["findings"][1];
    assert_eq!(flow["rule"], "render-failed", "{v:#}");
    assert_eq!(
        (
            flow["file"].as_str(),
            flow["line"].as_i64(),
            flow["column"].as_i64()
        ),
        (Some("flow/Chart.yaml"), Some(4), Some(60))
    );
    assert_eq!(
        flow["message"],
        "refused to render: the chart dependency `file://../../outside` is outside the repository; nothing was read (in: flow)",
        "{v:#}"
    );
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "render-failed", "{v:#}");
    assert_eq!(
        (f["file"].as_str(), f["line"].as_i64()),
        (Some("app/Chart.yaml"), Some(7))
    );
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .starts_with("refused to render: the chart dependency `file://../../outside` is outside the repository; nothing was read"),
        "{v:#}"
    );
    assert!(!v.to_string().contains("read-from-outside"), "{v:#}");
}
