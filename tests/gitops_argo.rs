//! An Argo CD app-of-apps repository (testdata/argocd-apps-repo): the root Application followed
//! down to the Applications it holds, each destination an environment, an in-repository chart
//! rendered by the real `helm template` with the Application's Helm values, `path: .` as the
//! repository's root, and the gates of the Karmada installed from its chart by another
//! Application. Tests print `SKIPPED:` when kustomize or helm cannot run here.

use std::process::{Command, Output};

#[path = "support/kustomize.rs"]
mod kustomize;
#[path = "support/run.rs"]
mod run;
mod snapshot_file;
use kustomize::{committed_copy, git, helm_available, kustomize_available, run_without_helm};
use run::{run, stderr, stdout};
use snapshot_file::assert_snapshot;

const REPO: &str = "testdata/argocd-apps-repo";

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", stdout(o), stderr(o)))
}

fn places(v: &serde_json::Value) -> Vec<(String, String)> {
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

/// `lint -o json .` in `dir` once `files` (path, text) are written there.
fn lint_written(dir: &std::path::Path, files: &[(&str, String)]) -> Output {
    for (file, text) in files {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "-o", "json", "."])
        .current_dir(dir)
        .output()
        .unwrap()
}

fn can_run(test: &str) -> bool {
    kustomize_available(test) && helm_available(test)
}

#[test]
fn the_app_of_apps_lints_with_its_chart_rendered_by_helm_in_every_format() {
    let test = "the_app_of_apps_lints_with_its_chart_rendered_by_helm_in_every_format";
    if !can_run(test) {
        return;
    }
    let o = run(&["lint", REPO]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_snapshot("argocd-apps-repo.txt", &stdout(&o));
    for (format, snapshot) in [
        ("json", "argocd-apps-repo.json"),
        ("sarif", "argocd-apps-repo.sarif"),
        ("github", "argocd-apps-repo.github"),
    ] {
        let o = run(&["lint", "-o", format, REPO]);
        assert_eq!(o.status.code(), Some(1), "{format}");
        assert_snapshot(snapshot, &stdout(&o));
    }
}

#[test]
fn every_real_problem_is_at_the_line_to_edit_and_the_gates_come_from_the_karmada_app() {
    let test = "every_real_problem_is_at_the_line_to_edit_and_the_gates_come_from_the_karmada_app";
    if !can_run(test) {
        return;
    }
    let o = run(&["lint", "-o", "json", REPO]);
    let v = json(&o);
    assert_eq!(
        places(&v),
        [
            // The chart's template, found through helm's `# Source:` comment: the selector
            // that needs a name, not the line of the first `name:`.
            (
                "preemption-requires-name".to_string(),
                format!("{REPO}/charts/shop/templates/policy.yaml:9")
            ),
            // A top-level file, applied by `path: .`.
            (
                "invalid-cluster-name".to_string(),
                format!("{REPO}/platform-policies.yaml:13")
            ),
        ]
    );
    // No failover-gate-off for the chart's `failover.cluster`: the Karmada Application turns
    // the gate on, and its chart version is the release.
    let envs = v["environments"].as_array().unwrap();
    let karmada = envs
        .iter()
        .find(|e| e["name"] == "karmada-apiserver")
        .unwrap();
    assert_eq!(karmada["karmadaApiServer"], true);
    assert_eq!(karmada["karmadaVersion"], "1.16");
    let gates: Vec<(String, bool, u64)> = karmada["karmadaInstallation"]["featureGates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["name"].as_str().unwrap().to_string(),
                g["enabled"].as_bool().unwrap(),
                g["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(gates.contains(&("Failover".into(), true, 17)), "{gates:?}");
    assert!(
        gates.contains(&("PropagationPolicyPreemption".into(), true, 20)),
        "{gates:?}"
    );
    // Argo CD's own cluster receives the Applications: not a Karmada API server.
    let own = envs.iter().find(|e| e["name"] == "in-cluster").unwrap();
    assert_eq!(own["karmadaApiServer"], false);
    // The chart was rendered with the Application's values file and parameters.
    assert_eq!(v["summary"]["documents"], 3, "{}", v["summary"]);
}

#[test]
fn without_helm_the_chart_is_a_warning_and_the_rest_is_linted() {
    let test = "without_helm_the_chart_is_a_warning_and_the_rest_is_linted";
    if !kustomize_available(test) {
        return;
    }
    let o = run_without_helm(&["lint", "-o", "json", REPO]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json(&o);
    // The chart is not rendered: said where its environment's findings go, and that
    // environment lists it as unrendered (a run that found nothing there has not looked).
    assert_eq!(
        places(&v),
        [
            (
                "renderer-not-found".to_string(),
                format!("{REPO}/charts/shop/Chart.yaml:1")
            ),
            (
                "invalid-cluster-name".to_string(),
                format!("{REPO}/platform-policies.yaml:13")
            )
        ]
    );
    let unrendered: Vec<&serde_json::Value> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["unrendered"].as_array().unwrap())
        .collect();
    assert_eq!(
        unrendered,
        [&serde_json::Value::from(format!(
            "{REPO}/charts/shop/Chart.yaml:1:1"
        ))],
        "{v}"
    );
}

#[test]
fn base_reports_ownership_changes_for_the_karmada_destination_only() {
    let test = "base_reports_ownership_changes_for_the_karmada_destination_only";
    if !can_run(test) {
        return;
    }
    let Some(dir) = committed_copy(test, REPO, "takeover") else {
        return;
    };
    let repo = dir.path();
    // A top-level file (applied by `path: .`) taking over the chart's Deployment.
    std::fs::write(
        repo.join("takeover.yaml"),
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: takeover\n  namespace: shop\nspec:\n  priority: 50\n  preemption: Always\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: shop-web\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n",
    )
    .unwrap();
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "takeover"]);
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "--base", "main", "-o", "json"])
        .current_dir(repo)
        .output()
        .unwrap();
    let v = json(&o);
    let changes = v["ownershipChanges"].as_array().expect("ownership changes");
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0]["resource"]["name"], "shop-web");
    assert_eq!(changes[0]["after"]["name"], "takeover", "{changes:#?}");
    // The chart's own policy is refused by the webhook (its selector has no name): the
    // Deployment had no owner before.
    assert_eq!(
        changes[0]["before"],
        serde_json::Value::Null,
        "{changes:#?}"
    );
    assert_eq!(
        changes[0]["environments"],
        serde_json::json!(["karmada-apiserver"])
    );
}

/// The app of apps kept in the directory it syncs (`root`, in argocd/, syncs argocd/: applied
/// once by hand, then it manages itself) is a root: only its own source holds it. Before, no
/// Application counted as a root, the repository fell back to plain manifests, and the two
/// destinations' policies were merged (a false duplicate-identity between them).
#[test]
fn an_application_that_syncs_its_own_directory_is_still_a_root() {
    let dir = tempfile::tempdir().unwrap();
    let app = |name: &str, path: &str, destination: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {name}\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: https://github.com/example/this-repo.git\n    targetRevision: HEAD\n    path: {path}\n  destination:\n    {destination}\n    namespace: web\n"
        )
    };
    let apps = [
        app("root", "argocd", "server: https://kubernetes.default.svc"),
        app("web-prod", "envs/prod", "name: karmada-prod"),
        app("web-staging", "envs/staging", "name: karmada-staging"),
    ]
    .join("---\n");
    let policy = |member: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\n  namespace: web\nspec:\n  resourceSelectors:\n    - {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  placement:\n    clusterAffinity:\n      clusterNames: [{member}]\n")
    };
    let files = [
        ("argocd/apps.yaml", apps),
        ("envs/prod/pp.yaml", policy("prod-member1")),
        ("envs/staging/pp.yaml", policy("staging-member1")),
    ];
    let o = lint_written(dir.path(), &files);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let v = json(&o);
    let environments: Vec<(&str, bool)> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap(),
                e["karmadaApiServer"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        environments,
        [
            ("in-cluster", false),
            ("karmada-prod", true),
            ("karmada-staging", true)
        ]
    );
    assert_eq!(places(&v), []);
    assert_eq!(v["summary"]["policies"], 2, "{v}");
}

/// argoproj/argocd-example-apps' `apps/` layout: a Helm chart whose templates are the
/// Applications, with no root Application in the repository (it is created with `argocd app
/// create --path apps`). The chart's Applications are roots: each team's directory goes to its
/// destination namespace, not merged with the other's into `default` (a false
/// duplicate-identity, and team-a's policy replaced by team-b's).
#[test]
fn a_chart_of_applications_that_nothing_applies_is_an_app_of_apps_root() {
    let test = "a_chart_of_applications_that_nothing_applies_is_an_app_of_apps_root";
    if !can_run(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let app = |team: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: {team}\n  namespace: argocd\nspec:\n  project: default\n  destination:\n    namespace: {team}\n    server: {{{{ .Values.server }}}}\n  source:\n    repoURL: https://example.com/repo.git\n    path: {team}\n    targetRevision: HEAD\n")
    };
    let manifests = |member: &str, weights: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: web, image: nginx}}]}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\nspec:\n  resourceSelectors:\n    - {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  placement:\n    clusterAffinity:\n      clusterNames: [{member}]\n{weights}")
    };
    let weights = "    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n          - targetCluster: {clusterNames: [member-x]}\n            weight: 1\n";
    let files = [
        (
            "apps/Chart.yaml",
            "apiVersion: v2\nname: apps\nversion: 0.1.0\n".to_string(),
        ),
        (
            "apps/values.yaml",
            "server: https://karmada-apiserver.karmada-system.svc:5443\n".to_string(),
        ),
        ("apps/templates/team-a.yaml", app("team-a")),
        ("apps/templates/team-b.yaml", app("team-b")),
        ("team-a/app.yaml", manifests("member-a", weights)),
        ("team-b/app.yaml", manifests("member-b", "")),
    ];
    let o = lint_written(dir.path(), &files);
    let v = json(&o);
    let environments: Vec<&str> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        environments,
        [
            "Argo CD destination https://karmada-apiserver.karmada-system.svc:5443",
            "Argo CD destination in-cluster"
        ],
        "{v}"
    );
    assert_eq!(
        places(&v),
        [(
            "static-weights-match-no-cluster".to_string(),
            "team-a/app.yaml:26".to_string()
        )],
        "{v}"
    );
    assert!(v["findings"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("pp/team-a/web:"));
}

/// An app of apps kept as a chart (`argocd app create --path apps`) beside application
/// directories and another chart: without helm its Applications cannot be read, but the chart's
/// templates still say the repository is Argo CD's, so each directory is linted on its own, as
/// when helm renders the Applications, and not merged into every chart's environment (where
/// two directories holding one object each made false duplicates).
#[test]
fn an_unrendered_app_of_apps_keeps_application_directories_apart() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |path: &str, text: &str| {
        let p = d.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "apps/Chart.yaml",
        "apiVersion: v2\nname: apps\nversion: 0.1.0\n",
    );
    write(
        "apps/templates/hooks.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: hooks\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: {{ .Values.repoURL }}\n    path: hooks\n  destination:\n    server: https://kubernetes.default.svc\n",
    );
    write(
        "apps/values.yaml",
        "repoURL: https://example.com/repo.git\n",
    );
    write(
        "web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    );
    write(
        "web/templates/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n",
    );
    let job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: before, namespace: default}\n";
    write("hooks/manifests.yaml", job);
    write("waves/manifests.yaml", job);
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "-o", "json", "."])
        .current_dir(d)
        .env("PATH", d.join("no-tools"))
        .env_remove("KUBECONFIG")
        .output()
        .expect("binary runs");
    let v = json(&o);
    let not_rendered = |chart: &str| {
        (
            "renderer-not-found".to_string(),
            format!("{chart}/Chart.yaml:1"),
        )
    };
    assert_eq!(
        places(&v),
        [not_rendered("apps"), not_rendered("web")],
        "{v}"
    );
}

/// An Application whose directory holds a policy twice: Argo CD keeps the last copy of each
/// object among an Application's manifests (`NormalizeTargetObjects`, controller/state.go) and
/// never applies the first, so no update is refused (as `kubectl apply` in turn would have the
/// webhook refuse the changed `schedulerName`). lint warns on the copy left out, pointing at the
/// one applied; explain takes the last copy's placement and says so.
#[test]
fn an_application_applies_only_the_last_copy_of_an_object() {
    let dir = tempfile::tempdir().unwrap();
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: web, namespace: argocd}\nspec:\n  project: default\n  source: {repoURL: https://example.com/repo.git, targetRevision: main, path: apps/web}\n  destination: {name: karmada-a, namespace: demo}\n";
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: demo}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n";
    let pp = |scheduler: &str, cluster: &str| {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: pp-web, namespace: demo}}\nspec:\n{scheduler}  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement: {{clusterAffinity: {{clusterNames: [{cluster}]}}}}\n")
    };
    let policies = format!("{}{}", pp("", "m1"), pp("  schedulerName: custom\n", "m2"));
    let o = lint_written(
        dir.path(),
        &[
            ("argocd/web.yaml", app.to_string()),
            ("apps/web/deploy.yaml", deploy.to_string()),
            ("apps/web/pp.yaml", policies),
        ],
    );
    let v = json(&o);
    let duplicate: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "duplicate-identity")
        .collect();
    assert_eq!(duplicate.len(), 1, "{v:#}");
    let f = duplicate[0];
    assert_eq!(f["severity"], "warning", "{f:#}");
    assert_eq!(f["file"], "apps/web/pp.yaml", "{f:#}");
    assert_eq!(f["line"], 4, "{f:#}");
    assert!(
        f["message"].as_str().unwrap().contains(
            "defined twice in Argo CD Application web: it applies only the last copy, the one at apps/web/pp.yaml:11"
        ),
        "{f:#}"
    );
    // The last copy is the policy in force: its scheduler and its cluster.
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["explain", "deploy/web", "-n", "demo", "-f", "."])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(
        out.contains("Dispatch per cluster (once a scheduler named `custom` schedules the binding; see the notes):\n  m2  dispatching\n"),
        "{out}{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("Argo CD Application web renders propagationpolicy/demo/pp-web more than once and applies only the last copy, at apps/web/pp.yaml:11"),
        "{}",
        stderr(&o)
    );
}

/// An Application's `kustomize` settings are built into its kustomization, as Argo CD writes
/// them before it builds (argo-cd util/kustomize `Build`): the name prefix renames the
/// Deployment and the policies, the common label lets a label selector match, and the image
/// is set. lint, explain and the rendered objects agree.
#[test]
fn an_applications_kustomize_settings_are_built_in() {
    let test = "an_applications_kustomize_settings_are_built_in";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: web, namespace: argocd}\nspec:\n  project: default\n  destination: {name: karmada, namespace: shop}\n  source:\n    repoURL: https://example.com/fleet.git\n    path: apps/web\n    kustomize:\n      namePrefix: eu-\n      commonLabels: {team: blue}\n      images: [nginx=registry.example.com:5000/nginx:1.27]\n";
    let objects = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: byname}\nspec:\n  resourceSelectors:\n  - {apiVersion: apps/v1, kind: Deployment, name: web}\n  placement: {clusterAffinity: {clusterNames: [m1]}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: byteam}\nspec:\n  resourceSelectors:\n  - {apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {team: blue}}}\n  placement: {clusterAffinity: {clusterNames: [m2]}}\n";
    let o = lint_written(
        dir.path(),
        &[
            ("argocd/web.yaml", app.to_string()),
            ("apps/web/all.yaml", objects.to_string()),
            (
                "apps/web/kustomization.yaml",
                "resources: [all.yaml]\n".to_string(),
            ),
        ],
    );
    let v = json(&o);
    // The selector by name still says `web`: kustomize renames the Deployment, not the
    // names inside a policy, so that policy selects nothing (true of Karmada too).
    let dead: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "dead-policy")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(dead.len(), 1, "{v:#}");
    assert!(dead[0].starts_with("pp/shop/eu-byname "), "{dead:?}");
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args([
            "explain",
            "deploy/eu-web",
            "-n",
            "shop",
            "-f",
            ".",
            "-o",
            "json",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let e = json(&o);
    assert_eq!(e["eventual"]["name"], "eu-byteam", "{e:#}");
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["explain", "deploy/eu-web", "-n", "shop", "-f", "."])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(stdout(&o).contains("  m2  dispatching\n"), "{}", stdout(&o));
}

/// Argo CD adds an Application's `commonLabels` and `commonAnnotations` with `kustomize edit
/// add label|annotation`, without `--force` unless `forceCommonLabels` /
/// `forceCommonAnnotations` (argo-cd util/kustomize/kustomize.go `Build`): a key the
/// kustomization already has fails the edit (kustomize addmetadata.go `writeToMapEntry`),
/// so nothing renders; forced, the Application's value wins.
#[test]
fn a_common_label_the_kustomization_has_fails_unless_forced() {
    let test = "a_common_label_the_kustomization_has_fails_unless_forced";
    if !kustomize_available(test) {
        return;
    }
    let app = |settings: &str| {
        format!("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: web, namespace: argocd}}\nspec:\n  project: default\n  destination: {{name: karmada, namespace: shop}}\n  source:\n    repoURL: https://example.com/fleet.git\n    path: apps/web\n    kustomize:\n{settings}")
    };
    let objects = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: byteam}\nspec:\n  resourceSelectors:\n  - {apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {team: blue}}}\n  placement: {clusterAffinity: {clusterNames: [m2]}}\n";
    let own = "resources: [all.yaml]\ncommonLabels: {team: red}\ncommonAnnotations: {owner: red}\n";
    for (settings, failure) in [
        (
            "      commonLabels: {team: blue}\n",
            Some("kustomize edit add label failed: label team already in kustomization file. Use --force to override."),
        ),
        (
            "      commonLabels: {team: blue}\n      forceCommonLabels: true\n      commonAnnotations: {owner: blue}\n",
            Some("kustomize edit add annotation failed: annotation owner already in kustomization file. Use --force to override."),
        ),
        (
            "      commonLabels: {team: blue}\n      forceCommonLabels: true\n      commonAnnotations: {owner: blue}\n      forceCommonAnnotations: true\n",
            None,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let o = lint_written(
            dir.path(),
            &[
                ("argocd/web.yaml", app(settings)),
                ("apps/web/all.yaml", objects.to_string()),
                ("apps/web/kustomization.yaml", own.to_string()),
            ],
        );
        let v = json(&o);
        let failed: Vec<&str> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "render-failed")
            .map(|f| f["message"].as_str().unwrap())
            .collect();
        assert_eq!(failed, failure.into_iter().collect::<Vec<_>>(), "{settings}");
        if failure.is_none() {
            let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
                .args(["explain", "deploy/web", "-n", "shop", "-f", ".", "-o", "json"])
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert_eq!(json(&o)["eventual"]["name"], "byteam", "{}", stdout(&o));
        }
    }
}

/// An Application's `kustomize.namePrefix` replaces the kustomization's own, as `kustomize
/// edit set nameprefix` sets the field (argo-cd util/kustomize/kustomize.go `Build`), and so
/// does a Flux Kustomization's (fluxcd/pkg kustomize_generator.go `GenerateManifest`:
/// `kus.NamePrefix`): `argo-web-x`, not `argo-dir-web-x` (the suffix Argo CD does not set
/// stays); the findings are still at the lines of the files.
#[test]
fn a_controllers_name_prefix_replaces_the_kustomizations_own() {
    let test = "a_controllers_name_prefix_replaces_the_kustomizations_own";
    if !kustomize_available(test) {
        return;
    }
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: web, namespace: argocd}\nspec:\n  project: default\n  destination: {name: karmada, namespace: shop}\n  source:\n    repoURL: https://example.com/fleet.git\n    path: apps/web\n    kustomize:\n      namePrefix: argo-\n";
    let objects = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web}\nspec:\n  resourceSelectors:\n  - {apiVersion: apps/v1, kind: Deployment, name: nothing}\n  placement: {clusterAffinity: {clusterNames: [m1]}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n";
    let dir = tempfile::tempdir().unwrap();
    let o = lint_written(
        dir.path(),
        &[
            ("argocd/web.yaml", app.to_string()),
            ("apps/web/all.yaml", objects.to_string()),
            (
                "apps/web/kustomization.yaml",
                "namePrefix: dir-\nnameSuffix: -x\nresources: [all.yaml]\n".to_string(),
            ),
        ],
    );
    let v = json(&o);
    let names: Vec<(String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]),
                f["message"]
                    .as_str()
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    assert!(!names.is_empty(), "{v:#}");
    assert!(
        names
            .iter()
            .all(|(at, name)| at == "apps/web/all.yaml:5" && name == "pp/shop/argo-web-x"),
        "{names:?}"
    );
}

/// `explain TYPE/NAME` over several environments, the object in another namespace than asked:
/// the environment that holds the type says where the object is (exit 4, with the `-n` to
/// add), as the same files with one environment say, rather than the unknown type of an
/// environment of loose files that holds no object of it (a usage error, exit 2).
#[test]
fn a_template_in_another_namespace_is_found_by_type_in_any_environment() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "."]);
    let app = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: netpol\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: https://example.invalid/repo.git\n    path: app\n  destination:\n    name: karmada\n    namespace: web\n";
    let np = "apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata:\n  name: np\nspec:\n  endpointSelector: {}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: np\nspec:\n  resourceSelectors:\n    - apiVersion: cilium.io/v2\n      kind: CiliumNetworkPolicy\n      name: np\n  placement:\n    clusterAffinity:\n      clusterNames: [m1]\n";
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {a: b}\n";
    let explain = || {
        Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args([
                "explain",
                "ciliumnetworkpolicy/np",
                "-f",
                ".",
                "--color",
                "never",
            ])
            .current_dir(root)
            .output()
            .unwrap()
    };
    let said = "error: ciliumnetworkpolicies.cilium.io \"np\" not found in namespace default of the given files; it is in namespace web: add `-n web`\n";
    for (file, text) in [("argocd/app.yaml", app), ("app/np.yaml", np)] {
        std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        std::fs::write(root.join(file), text).unwrap();
    }
    let one = explain();
    assert_eq!((one.status.code(), stderr(&one)), (Some(4), said.into()));
    assert_eq!(stdout(&one), "");
    // Loose files of their own, with no object of the type: a second environment.
    std::fs::create_dir_all(root.join("loose")).unwrap();
    std::fs::write(root.join("loose/cm.yaml"), cm).unwrap();
    let several = explain();
    assert_eq!(
        (several.status.code(), stderr(&several)),
        (Some(4), said.into())
    );
    assert_eq!(stdout(&several), "");
}
