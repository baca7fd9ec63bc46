//! A fleet repository in Flux's standard bootstrap layout (testdata/flux-bootstrap-repo): the
//! environments Flux really deploys (followed from each `clusters/<name>/flux-system`
//! Kustomization, outputs sent to the cluster Flux runs in or to a `kubeConfig` secret's API
//! server), only Karmada's linted, each with the gates of the Karmada its HelmRelease installs;
//! and one regression test per problem the repository layouts of real fleets showed. Tests
//! print `SKIPPED:` when no kustomize exists.

use std::path::Path;
use std::process::{Command, Output};

#[path = "support/kustomize.rs"]
mod kustomize;
#[path = "support/run.rs"]
mod run;
mod snapshot_file;
use kustomize::{
    committed_copy, environment_names, git, kustomize_available, run_without_helm as run,
    write_files as write,
};
use run::{stderr, stdout};
use snapshot_file::assert_snapshot;

const REPO: &str = "testdata/flux-bootstrap-repo";
const KARMADA_EU: &str = "mgmt-eu/karmada-kubeconfig";
const KARMADA_US: &str = "mgmt-us/karmada-kubeconfig";

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", stdout(o), stderr(o)))
}

/// `(rule, file:line, message)` of every finding of a JSON report.
fn findings(v: &serde_json::Value) -> Vec<(String, String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_bootstrap_layout_lints_without_false_positives_in_every_format() {
    let test = "the_bootstrap_layout_lints_without_false_positives_in_every_format";
    if !kustomize_available(test) {
        return;
    }
    let o = run(&["lint", REPO]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_snapshot("flux-bootstrap-repo.txt", &stdout(&o));
    for (format, snapshot) in [
        ("json", "flux-bootstrap-repo.json"),
        ("sarif", "flux-bootstrap-repo.sarif"),
        ("github", "flux-bootstrap-repo.github"),
    ] {
        let o = run(&["lint", "-o", format, REPO]);
        assert_eq!(o.status.code(), Some(1), "{format}");
        assert_snapshot(snapshot, &stdout(&o));
    }
}

#[test]
fn every_real_problem_is_at_the_line_to_edit_and_nothing_else_is_reported() {
    let test = "every_real_problem_is_at_the_line_to_edit_and_nothing_else_is_reported";
    if !kustomize_available(test) {
        return;
    }
    let v = json(&run(&["lint", "-o", "json", REPO]));
    let at: Vec<(String, String)> = findings(&v)
        .into_iter()
        .map(|(rule, place, message)| {
            let env = message.rsplit_once("(in: ").map_or("", |(_, e)| e);
            (rule, format!("{place} {}", env.trim_end_matches(')')))
        })
        .collect();
    let expected = [
        // US keeps the Failover gate off (its HelmRelease patch); EU turns it on.
        (
            "failover-gate-off",
            format!("{REPO}/apps/base/policy.yaml:33 {KARMADA_US}"),
        ),
        (
            "invalid-cluster-name",
            format!("{REPO}/apps/eu/policy.yaml:19 {KARMADA_EU}"),
        ),
        // The overlay's inline patch turned on application failover: not the base's line.
        (
            "application-failover-requires-propagate-deps",
            format!("{REPO}/apps/us/kustomization.yaml:17 {KARMADA_US}"),
        ),
    ];
    let expected: Vec<(String, String)> = expected
        .into_iter()
        .map(|(r, p)| (r.to_string(), p))
        .collect();
    assert_eq!(at, expected);
}

#[test]
fn each_environment_names_its_api_server_and_only_karmada_ones_are_linted() {
    let test = "each_environment_names_its_api_server_and_only_karmada_ones_are_linted";
    if !kustomize_available(test) {
        return;
    }
    let v = json(&run(&["lint", "-o", "json", REPO]));
    let envs: Vec<(String, String, bool)> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["target"].as_str().unwrap().to_string(),
                e["karmadaApiServer"].as_bool().unwrap(),
            )
        })
        .collect();
    let cluster = |c: &str| format!("the cluster Flux runs in ({REPO}/clusters/{c})");
    let secret = "the API server of kubeConfig secret flux-system/karmada-kubeconfig".to_string();
    assert_eq!(
        envs,
        [
            ("member-eu-1".into(), cluster("member-eu-1"), false),
            ("mgmt-eu".into(), cluster("mgmt-eu"), false),
            (KARMADA_EU.into(), secret.clone(), true),
            ("mgmt-us".into(), cluster("mgmt-us"), false),
            (KARMADA_US.into(), secret, true),
            (
                format!("{REPO}/examples"),
                "loose files: no Flux Kustomization or Argo CD Application applies them".into(),
                true
            ),
        ]
    );
    // EU's web and the shop CPP, US's web, api and the CPP, the loose example: none twice.
    assert_eq!(v["summary"]["policies"], 6, "{}", v["summary"]);
    // `--env` lists them with their targets.
    let o = run(&["lint", "--env", "nope", REPO]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("mgmt-eu/karmada-kubeconfig → the API server of kubeConfig secret flux-system/karmada-kubeconfig; mgmt-us → the cluster Flux runs in"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn gates_and_release_come_from_the_helm_release_under_the_configuration_and_flags() {
    let test = "gates_and_release_come_from_the_helm_release_under_the_configuration_and_flags";
    if !kustomize_available(test) {
        return;
    }
    let v = json(&run(&["lint", "-o", "json", "--env", KARMADA_US, REPO]));
    let env = &v["environments"][0];
    assert_eq!(env["karmadaVersion"], "1.17", "{env}");
    let install = &env["karmadaInstallation"];
    assert_eq!(install["object"], "HelmRelease karmada-system/karmada");
    assert_eq!(
        install["release"]["file"],
        format!("{REPO}/infrastructure/karmada/release.yaml")
    );
    let failover = install["featureGates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "Failover")
        .unwrap();
    // The US overlay's patch is where the gate is turned off.
    assert_eq!(failover["enabled"], false);
    assert_eq!(
        failover["file"],
        format!("{REPO}/infrastructure/mgmt-us/failover-off.yaml")
    );
    assert_eq!(failover["line"], 10);
    let rules =
        |o: &Output| -> Vec<String> { findings(&json(o)).into_iter().map(|(r, _, _)| r).collect() };
    // A flag wins over the repository.
    let o = run(&[
        "lint",
        "-o",
        "json",
        "--env",
        KARMADA_US,
        "--feature-gates",
        "Failover=true",
        REPO,
    ]);
    assert!(!rules(&o).contains(&"failover-gate-off".to_string()));
    // So does the configuration file, and its release over the chart's.
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        "karmadaVersion: '1.19'\nfeatureGates: {Failover: true}\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let o = run(&[
        "lint", "-o", "json", "--config", &config, "--env", KARMADA_US, REPO,
    ]);
    let v = json(&o);
    assert!(!rules(&o).contains(&"failover-gate-off".to_string()));
    assert_eq!(v["environments"][0]["karmadaVersion"], "1.19");
}

#[test]
fn base_reports_ownership_changes_only_where_the_change_lands() {
    let test = "base_reports_ownership_changes_only_where_the_change_lands";
    if !kustomize_available(test) {
        return;
    }
    let Some(dir) = committed_copy(test, REPO, "takeover") else {
        return;
    };
    let repo = dir.path();
    // A higher-priority policy for EU's web, in the plain directory only mgmt-eu applies.
    std::fs::write(
        repo.join("apps/eu/takeover.yaml"),
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web-takeover\n  namespace: shop\nspec:\n  priority: 5\n  preemption: Always\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  placement:\n    clusterAffinity:\n      clusterNames: [member-eu-1]\n",
    )
    .unwrap();
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-qm", "takeover"]);
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "--base", "main", "-o", "json"])
        .args(["--feature-gates", "PropagationPolicyPreemption=true"])
        .env("PATH", kustomize::path_without_helm())
        .current_dir(repo)
        .output()
        .unwrap();
    let v = json(&o);
    let changes = v["ownershipChanges"].as_array().expect("ownership changes");
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0]["resource"]["name"], "web");
    assert_eq!(changes[0]["after"]["name"], "web-takeover", "{changes:#?}");
    // EU's Karmada only: the US one, the management and member clusters see nothing.
    assert_eq!(changes[0]["environments"], serde_json::json!([KARMADA_EU]));
}

// ---------------------------------------------------------------- regression tests, per bullet

/// The first environment of a JSON report that is a Karmada API server.
fn karmada_environment(v: &serde_json::Value) -> &serde_json::Value {
    v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["karmadaApiServer"] == true)
        .unwrap_or_else(|| panic!("no Karmada environment: {v:#}"))
}

fn lint_json(dir: &Path, args: &[&str]) -> (Output, serde_json::Value) {
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "-o", "json"])
        .args(args)
        .arg(".")
        .env("PATH", kustomize::path_without_helm())
        .current_dir(dir)
        .output()
        .unwrap();
    let v = json(&o);
    (o, v)
}

fn flux_kustomization(name: &str, path: &str, extra: &str) -> String {
    format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: {path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n{extra}")
}

const SYNC: &str = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: ssh://git@example.com/fleet\n";

const KUBECONFIG: &str = "  kubeConfig:\n    secretRef:\n      name: karmada-kubeconfig\n";

const POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n";

/// `clusters/<c>/flux-system` as `flux bootstrap` writes it, applying `./clusters/<c>`.
fn bootstrap(c: &str) -> Vec<(String, String)> {
    let sync = format!(
        "{SYNC}---\n{}",
        flux_kustomization("flux-system", &format!("./clusters/{c}"), "")
    );
    vec![
        (
            format!("clusters/{c}/flux-system/kustomization.yaml"),
            "resources: [gotk-components.yaml, gotk-sync.yaml]\n".into(),
        ),
        (
            format!("clusters/{c}/flux-system/gotk-components.yaml"),
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n".into(),
        ),
        (format!("clusters/{c}/flux-system/gotk-sync.yaml"), sync),
    ]
}

fn write_owned(root: &Path, files: &[(String, String)]) {
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write(root, &refs);
}

#[test]
fn loose_files_and_member_clusters_are_never_merged_into_karmada_environments() {
    let test = "loose_files_and_member_clusters_are_never_merged_into_karmada_environments";
    if !kustomize_available(test) {
        return;
    }
    // A management cluster applying `apps/` to Karmada, a member cluster with its own copy of
    // the namespace, and an example file no path applies (its kustomization comments it out).
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("mgmt"));
    write_owned(root, &bootstrap("member1"));
    write(
        root,
        &[
            (
                "clusters/mgmt/karmada.yaml",
                &flux_kustomization("karmada", "./apps", KUBECONFIG),
            ),
            (
                "clusters/member1/apps.yaml",
                &flux_kustomization("apps", "./member", ""),
            ),
            (
                "apps/kustomization.yaml",
                "resources:\n  - policy.yaml\n  # - example.yaml\n",
            ),
            ("apps/policy.yaml", POLICY),
            ("apps/example.yaml", POLICY),
            (
                "member/namespace.yaml",
                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: REPLACE_NAMESPACE\n",
            ),
            ("karmada/policy.yaml", POLICY),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    let linted: Vec<&str> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["karmadaApiServer"] == true)
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    // The Karmada API server, and the hand-applied file on its own.
    assert_eq!(linted, ["mgmt/karmada-kubeconfig", "karmada"]);
    assert_eq!(v["summary"]["policies"], 2);
}

/// A lab layout seen in a public repository (mj006648/netai-devsecops-runbook): each demo keeps
/// what goes to Karmada in `karmada/` and what goes to a member cluster in `member/`, both applied
/// by hand, both with the demo's Namespace. They are two loose directories, two control planes:
/// the Namespace is not defined twice.
#[test]
fn loose_directories_for_karmada_and_a_member_are_not_one_control_plane() {
    let test = "loose_directories_for_karmada_and_a_member_are_not_one_control_plane";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("mgmt"));
    let namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: demo\n";
    write(
        root,
        &[
            (
                "clusters/mgmt/karmada.yaml",
                &flux_kustomization("karmada", "./apps", KUBECONFIG),
            ),
            ("apps/policy.yaml", POLICY),
            ("lab/demo/karmada/00-namespace.yaml", namespace),
            ("lab/demo/karmada/30-policy.yaml", POLICY),
            ("lab/demo/member/00-namespace.yaml", namespace),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    let names = environment_names(&v);
    assert!(
        names.contains(&"lab/demo/karmada") && names.contains(&"lab/demo/member"),
        "{names:?}"
    );
}

#[test]
fn a_plain_directory_gets_its_flux_substitution_beside_kustomize_roots() {
    let test = "a_plain_directory_gets_its_flux_substitution_beside_kustomize_roots";
    if !kustomize_available(test) {
        return;
    }
    // The cluster directory is itself a kustomization listing its Flux Kustomizations (as
    // platform repositories write it); one applies a plain directory with substitution to
    // Karmada, another a kustomize root (a Deployment of another name) to the cluster itself.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("mgmt"));
    let substituted =
        format!("{KUBECONFIG}  postBuild:\n    substitute:\n      cluster_name: member2\n");
    let deployment = |name: &str| {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: shop\nspec:\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec: {{containers: [{{name: {name}, image: nginx}}]}}\n")
    };
    write(
        root,
        &[
            (
                "clusters/mgmt/kustomization.yaml",
                "resources: [flux-system, karmada.yaml, apps.yaml, local.yaml]\n",
            ),
            (
                "clusters/mgmt/karmada.yaml",
                &flux_kustomization("karmada", "./karmada/policies", &substituted),
            ),
            ("clusters/mgmt/apps.yaml", &flux_kustomization("apps", "./apps", KUBECONFIG)),
            ("clusters/mgmt/local.yaml", &flux_kustomization("local", "./local", "")),
            ("apps/kustomization.yaml", "resources: [web.yaml]\n"),
            ("apps/web.yaml", &deployment("web")),
            ("local/kustomization.yaml", "resources: [api.yaml]\n"),
            ("local/api.yaml", &deployment("api")),
            (
                "karmada/policies/cpp.yaml",
                "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: all-web\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  placement:\n    clusterAffinity:\n      clusterNames: [\"${cluster_name}\"]\n",
            ),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    // Neither an unrendered ${cluster_name} nor a CPP dead where it is never applied.
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    assert_eq!(v["summary"]["policies"], 1);
}

/// A plain directory holding a YAML file that is no Kubernetes object (a Helm values file):
/// the kustomize-controller decodes every .yaml/.yml file of the directory before it builds
/// and fails on it (fluxcd/pkg kustomize/kustomize_generator.go `scanManifests`: "failed to
/// decode Kubernetes YAML from ..."), whatever the Kustomization sets; the failure names the
/// file as the repository does, never a temporary path. Files that are not .yaml/.yml, empty
/// documents and comments are no failure.
#[test]
fn a_plain_directory_with_a_file_flux_cannot_decode_does_not_render() {
    let test = "a_plain_directory_with_a_file_flux_cannot_decode_does_not_render";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("mgmt"));
    let files = [
        ("apps/policy.yaml", POLICY),
        ("apps/empty.yaml", "# nothing yet\n---\n"),
        ("apps/notes.txt", "foo: bar\n"),
        ("apps/chart.json", "{\"foo\": \"bar\"}\n"),
    ];
    let decodable: Vec<(&str, &str)> = files.to_vec();
    for extra in ["", "  namePrefix: eu-\n"] {
        let karmada = flux_kustomization("karmada", "./apps", &format!("{KUBECONFIG}{extra}"));
        let mut all = decodable.clone();
        all.push(("clusters/mgmt/karmada.yaml", &karmada));
        write(root, &all);
        let (o, v) = lint_json(root, &[]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{extra}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        assert!(findings(&v).is_empty(), "{extra}: {:?}", findings(&v));
        write(
            root,
            &[("apps/values.yaml", "replicas: 2\nimage: {tag: v1}\n")],
        );
        let (o, v) = lint_json(root, &[]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{extra}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        let f = findings(&v);
        assert_eq!(
            f,
            vec![(
                "render-failed".to_string(),
                "apps/values.yaml:1".to_string(),
                "failed to decode Kubernetes YAML from apps/values.yaml: missing Resource metadata"
                    .to_string()
            )],
            "{extra}"
        );
        std::fs::remove_file(root.join("apps/values.yaml")).unwrap();
    }
}

/// A plain directory holding a .yaml file that is not YAML: an unrendered Helm template, a
/// syntax error, a `---` line with more than a comment after it. Flux's kustomize-controller
/// reads it with kyaml's reader before it builds (fluxcd/pkg kustomize/kustomize_generator.go
/// `scanManifests`, `rf.SliceFromBytes`; kyaml kio/byteio_reader.go `ByteReader.decode`:
/// `MalformedYAMLError`, `splitDocuments`: `invalid document separator`) and the whole build
/// fails, whatever else the directory holds: the root does not render, at the file's line.
#[test]
fn a_plain_directory_with_a_file_that_is_not_yaml_does_not_render() {
    let test = "a_plain_directory_with_a_file_that_is_not_yaml_does_not_render";
    if !kustomize_available(test) {
        return;
    }
    let template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  {{- range .Values.keys }}\n  {{ . }}: x\n  {{- end }}\n";
    for (file, text, line, why) in [
        (
            "apps/configmap.yaml",
            template,
            6,
            "MalformedYAMLError: yaml: line 6: ",
        ),
        (
            "apps/broken.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [web\n",
            4,
            "MalformedYAMLError: yaml: line 4: ",
        ),
        // Flux substitutes `postBuild` variables after it decodes and builds: in a flow
        // sequence YAML ends the plain scalar `$` at `{` (yaml.v3 scannerc.go), no YAML.
        (
            "apps/variable.yaml",
            "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: all\nspec:\n  resourceSelectors:\n    - {apiVersion: apps/v1, kind: Deployment}\n  placement:\n    clusterAffinity:\n      clusterNames: [${cluster_name}]\n",
            10,
            "MalformedYAMLError: yaml: line 10: ",
        ),
        (
            "apps/two.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n--- b\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
            4,
            "invalid document separator: --- b",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_owned(root, &bootstrap("mgmt"));
        let karmada = flux_kustomization("karmada", "./apps", KUBECONFIG);
        write(
            root,
            &[
                ("clusters/mgmt/karmada.yaml", &karmada),
                ("apps/policy.yaml", POLICY),
                (file, text),
            ],
        );
        let (o, v) = lint_json(root, &[]);
        assert_eq!(o.status.code(), Some(1), "{file}: {}{}", stdout(&o), stderr(&o));
        let f = findings(&v);
        assert_eq!(f.len(), 1, "{file}: {f:?}");
        let (rule, place, message) = &f[0];
        assert_eq!(
            (rule.as_str(), place.as_str()),
            ("render-failed", format!("{file}:{line}").as_str()),
            "{f:?}"
        );
        let expected = format!("failed to decode Kubernetes YAML from {file}: {why}");
        assert!(message.starts_with(&expected), "{message}");
    }
}

/// The files of a plain directory Flux reads are those whose extension is `.yaml` or `.yml`
/// exactly (fluxcd/pkg kustomize/kustomize_generator.go `scanManifests`: `filepath.Ext`,
/// compared as is): a values file named `.YAML` is not Flux's, and fails nothing.
#[test]
fn a_plain_directory_file_with_an_upper_case_extension_is_not_flux_s() {
    let test = "a_plain_directory_file_with_an_upper_case_extension_is_not_flux_s";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("mgmt"));
    let karmada = flux_kustomization("karmada", "./apps", KUBECONFIG);
    write(
        root,
        &[
            ("clusters/mgmt/karmada.yaml", &karmada),
            ("apps/policy.yaml", POLICY),
            ("apps/values.YAML", "replicas: 2\n"),
            ("apps/values.Yml", "replicas: 2\n"),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    assert_eq!(v["summary"]["policies"], 1, "{v:#}");
}

/// A Helm chart inside a plain directory is walked into like any directory without a
/// kustomization (fluxcd/pkg `scanManifests` skips only those): its `Chart.yaml`, an object
/// without a kind to kustomize, fails the whole build, as its templates would.
#[test]
fn a_chart_inside_a_plain_directory_fails_flux_s_build() {
    let test = "a_chart_inside_a_plain_directory_fails_flux_s_build";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("mgmt"));
    let karmada = flux_kustomization("karmada", "./apps", KUBECONFIG);
    write(
        root,
        &[
            ("clusters/mgmt/karmada.yaml", &karmada),
            ("apps/policy.yaml", POLICY),
            (
                "apps/web/Chart.yaml",
                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
            ),
            (
                "apps/web/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
            ),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let failed: Vec<_> = findings(&v)
        .into_iter()
        .filter(|(rule, _, _)| rule == "render-failed")
        .collect();
    assert_eq!(
        failed,
        vec![(
            "render-failed".to_string(),
            "apps/web/Chart.yaml:1".to_string(),
            "failed to decode Kubernetes YAML from apps/web/Chart.yaml: missing kind in object"
                .to_string()
        )],
        "{:?}",
        findings(&v)
    );
    // The chart is applied there (and fails there): no environment of its own, as a chart no
    // controller applies would be.
    let names: Vec<&str> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mgmt", "mgmt/karmada-kubeconfig"], "{v}");
}

/// A plain directory and a bootstrap whose `flux-system` GitRepository sets `spec.ignore`
/// (`None`: not set), with `files` added.
fn plain_directory_repository(root: &Path, spec_ignore: Option<&str>, files: &[(&str, &str)]) {
    write_owned(root, &bootstrap("mgmt"));
    if let Some(ignore) = spec_ignore {
        let sync = format!(
            "{SYNC}  ignore: |\n    {ignore}\n---\n{}",
            flux_kustomization("flux-system", "./clusters/mgmt", "")
        );
        write(root, &[("clusters/mgmt/flux-system/gotk-sync.yaml", &sync)]);
    }
    let karmada = flux_kustomization("karmada", "./apps", KUBECONFIG);
    write(
        root,
        &[
            ("clusters/mgmt/karmada.yaml", &karmada),
            ("apps/policy.yaml", POLICY),
        ],
    );
    write(root, files);
}

/// CI files in a plain directory are not Flux's: the source-controller leaves them out of the
/// artifact by default (fluxcd/pkg sourceignore/sourceignore.go `ExcludeCI`, at any depth),
/// so the kustomize-controller never decodes them. Once the repository gives a pattern of its
/// own (one `.sourceignore` line), the defaults no longer apply (fluxcd/pkg
/// artifact/storage/archive.go `SourceIgnoreFilter`) and the first of them fails the build.
#[test]
fn ci_files_flux_leaves_out_of_the_artifact_fail_nothing_until_a_pattern_replaces_the_defaults() {
    let test = "ci_files_flux_leaves_out_of_the_artifact_fail_nothing_until_a_pattern_replaces_the_defaults";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    plain_directory_repository(
        root,
        None,
        &[
            ("apps/cloudbuild.yaml", "steps: []\n"),
            ("apps/appveyor.yml", "version: 1.0.{build}\n"),
            ("apps/ci/codeship-services.yml", "app: {build: .}\n"),
            ("apps/codeship-steps.yml", "- service: app\n"),
            ("apps/.github/workflows/ci.yml", "on: push\n"),
            ("apps/.sops.yaml", "creation_rules: []\n"),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    let names = environment_names(&v);
    assert!(
        names.iter().all(|n| n.starts_with("mgmt")),
        "the left-out files are no loose directory: {names:?}"
    );
    write(root, &[(".sourceignore", "*.md\n")]);
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let f = findings(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].0.as_str(), f[0].1.as_str()),
        ("render-failed", "apps/.github/workflows/ci.yml:1"),
        "{f:?}"
    );
}

/// A file the repository keeps out of the artifact, by a `.sourceignore` at the root or in the
/// directory (relative to its own directory) or by the GitRepository's `spec.ignore`
/// (fluxcd/source-controller gitrepository_controller.go `reconcileArtifact`,
/// fluxcd/pkg sourceignore `LoadIgnorePatterns`, `ReadPatterns`): Flux never reads it, so
/// a values file there fails nothing.
#[test]
fn a_file_the_repository_keeps_out_of_the_artifact_fails_nothing() {
    let test = "a_file_the_repository_keeps_out_of_the_artifact_fails_nothing";
    if !kustomize_available(test) {
        return;
    }
    let values = ("apps/values.yaml", "replicaCount: 2\n");
    for (how, spec_ignore, ignore_file) in [
        (
            "root .sourceignore",
            None,
            Some((".sourceignore", "apps/values.yaml\n")),
        ),
        (
            "apps/.sourceignore",
            None,
            Some(("apps/.sourceignore", "values.yaml\n")),
        ),
        ("spec.ignore", Some("/apps/values.yaml"), None),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut files = vec![values];
        files.extend(ignore_file);
        plain_directory_repository(root, spec_ignore, &files);
        let (o, v) = lint_json(root, &[]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{how}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        assert!(findings(&v).is_empty(), "{how}: {:?}", findings(&v));
        assert_eq!(v["summary"]["policies"], 1, "{how}: {v:#}");
    }
}

/// Hidden files and directories of a plain directory are Flux's like any other (fluxcd/pkg
/// kustomize/kustomize_generator.go `scanManifests` walks them; only the artifact's filter
/// leaves some out): a policy in `.overrides/` is applied, a values file `.settings.yaml`
/// fails the build.
#[test]
fn hidden_files_of_a_plain_directory_are_flux_s() {
    let test = "hidden_files_of_a_plain_directory_are_flux_s";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let takeover = POLICY
        .replace("name: web\n  namespace", "name: takeover\n  namespace")
        .replace("spec:\n", "spec:\n  priority: 50\n");
    plain_directory_repository(root, None, &[("apps/.overrides/takeover.yaml", &takeover)]);
    let (_, v) = lint_json(root, &[]);
    assert_eq!(v["summary"]["policies"], 2, "{v:#}");
    write(root, &[("apps/.settings.yaml", "foo: bar\n")]);
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let f = findings(&v);
    assert_eq!(
        f,
        vec![(
            "render-failed".to_string(),
            "apps/.settings.yaml:1".to_string(),
            "failed to decode Kubernetes YAML from apps/.settings.yaml: missing Resource metadata"
                .to_string()
        )],
    );
}

/// A document after a `...` end marker with no `---` before it: kyaml's reader decodes one
/// document per piece between `---` lines (kio/byteio_reader.go `ByteReader.Read`), so Flux
/// never applies it, and it is not in the environment.
#[test]
fn a_document_after_an_end_marker_without_a_separator_is_not_flux_s() {
    let test = "a_document_after_an_end_marker_without_a_separator_is_not_flux_s";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let after = POLICY.replace("name: web\n  namespace", "name: after\n  namespace");
    let both = format!("{POLICY}...\n{after}");
    plain_directory_repository(root, None, &[("apps/policy.yaml", &both)]);
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    assert_eq!(v["summary"]["policies"], 1, "{v:#}");
    assert!(
        stderr(&o).contains("note: apps/policy.yaml:15: a document after a `...` end marker"),
        "{}",
        stderr(&o)
    );
    // With a separator after the marker, both are Flux's.
    let both = format!("{POLICY}...\n---\n{after}");
    write(root, &[("apps/policy.yaml", &both)]);
    let (_, v) = lint_json(root, &[]);
    assert_eq!(v["summary"]["policies"], 2, "{v:#}");
}

#[test]
fn flux_build_options_allow_files_above_and_refuse_files_outside_the_repository() {
    let test = "flux_build_options_allow_files_above_and_refuse_files_outside_the_repository";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    write_owned(&root, &bootstrap("mgmt"));
    write(
        &root,
        &[
            (
                "clusters/mgmt/karmada.yaml",
                &flux_kustomization("karmada", "./apps/shop", KUBECONFIG),
            ),
            (
                "apps/namespace.yaml",
                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n",
            ),
            (
                "apps/shop/kustomization.yaml",
                "resources:\n  - ../namespace.yaml\n  - policy.yaml\n",
            ),
            ("apps/shop/policy.yaml", POLICY),
        ],
    );
    let (o, v) = lint_json(&root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    // A secret beside the repository, and a kustomization naming it: refused, never read.
    std::fs::write(
        dir.path().join("secret.yaml"),
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: leaked-secret-value\n",
    )
    .unwrap();
    write(
        &root,
        &[(
            "apps/shop/kustomization.yaml",
            "resources:\n  - ../namespace.yaml\n  - policy.yaml\n  - ../../../secret.yaml\n  - ../../../../../../../../../etc/passwd\n",
        )],
    );
    let (o, v) = lint_json(&root, &[]);
    let out = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        !out.contains("leaked-secret-value") && !out.contains("root:x:0"),
        "{out}"
    );
    let f = findings(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, "render-failed");
    assert_eq!(f[0].1, "apps/shop/kustomization.yaml:4", "{f:?}");
    assert!(
        f[0].2
            .contains("`../../../secret.yaml` is outside the repository"),
        "{f:?}"
    );
}

/// A homelab repository: Flux bootstrapped in `clusters/home`, `infra/karmada.yaml` (the
/// Karmada installation, `install`) applied to the cluster and a policy that fails over applied
/// to the Karmada API server.
fn homelab(root: &Path, install: &str) {
    write_owned(root, &bootstrap("home"));
    let failover = POLICY.replace(
        "  placement:",
        "  failover:\n    cluster:\n      purgeMode: Gracefully\n  placement:",
    );
    write(
        root,
        &[
            (
                "clusters/home/infra.yaml",
                &flux_kustomization("infra", "./infra", ""),
            ),
            (
                "clusters/home/karmada.yaml",
                &flux_kustomization("karmada", "./karmada", KUBECONFIG),
            ),
            ("infra/karmada.yaml", install),
            ("karmada/policy.yaml", &failover),
        ],
    );
}

#[test]
fn a_helm_release_of_karmada_with_the_failover_gate_silences_failover_gate_off() {
    let test = "a_helm_release_of_karmada_with_the_failover_gate_silences_failover_gate_off";
    if !kustomize_available(test) {
        return;
    }
    // A homelab: Karmada 1.17 from its chart with Failover on and, as 1.14 and later need for
    // cluster failover, `--enable-no-execute-taint-eviction` (the chart renders each
    // `extraCommandArgs` entry as `--KEY=VALUE`); a policy that fails over.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: karmada\n  namespace: karmada-system\nspec:\n  chart:\n    spec:\n      chart: karmada\n      version: 1.17.x\n      sourceRef: {kind: HelmRepository, name: karmada}\n  values:\n    controllerManager:\n      featureGates: {Failover: true}\n      extraCommandArgs: {enable-no-execute-taint-eviction: true}\n";
    homelab(root, release);
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    for said in [
        "Failover=true (infra/karmada.yaml:14)",
        "--enable-no-execute-taint-eviction=true (infra/karmada.yaml:15)",
    ] {
        assert!(stderr(&o).contains(said), "{said}: {}", stderr(&o));
    }
    let flags = &karmada_environment(&v)["karmadaInstallation"]["controllerManagerFlags"];
    assert_eq!(
        flags[0]["name"], "enable-no-execute-taint-eviction",
        "{flags}"
    );
    assert_eq!(
        (&flags[0]["value"], &flags[0]["line"]),
        (&true.into(), &15.into())
    );
    // The gate without the flag: nothing fails over either, and the warning says why.
    write(
        root,
        &[(
            "infra/karmada.yaml",
            &release.replace(
                "      extraCommandArgs: {enable-no-execute-taint-eviction: true}\n",
                "",
            ),
        )],
    );
    let (_, v) = lint_json(root, &[]);
    let found = findings(&v);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "failover-gate-off");
    assert!(
        found[0]
            .2
            .contains("--enable-no-execute-taint-eviction is off by default in Karmada 1.17"),
        "{found:?}"
    );
    // Without the installation's gate, the same policy is warned about.
    write(
        root,
        &[(
            "infra/karmada.yaml",
            &release.replace("Failover: true", "Failover: false"),
        )],
    );
    let (_, v) = lint_json(root, &[]);
    let rules: Vec<String> = findings(&v).into_iter().map(|(r, _, _)| r).collect();
    assert_eq!(rules, ["failover-gate-off"]);
}

/// The homelab runs a second karmada-scheduler beside its chart's (a plain Deployment with
/// `--scheduler-name=custom`, applied with the HelmRelease to the cluster): the Karmada
/// environment serves `custom` too, so a policy naming it is not reported, one naming another
/// name is, and the JSON report lists the scheduler read with where.
#[test]
fn a_karmada_scheduler_deployment_in_the_repository_serves_its_name() {
    let test = "a_karmada_scheduler_deployment_in_the_repository_serves_its_name";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: karmada\n  namespace: karmada-system\nspec:\n  chart:\n    spec:\n      chart: karmada\n      version: 1.17.x\n      sourceRef: {kind: HelmRepository, name: karmada}\n";
    homelab(root, release);
    let scheduler = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: custom-scheduler\n  namespace: karmada-system\nspec:\n  template:\n    spec:\n      containers:\n        - name: karmada-scheduler\n          image: docker.io/karmada/karmada-scheduler:v1.17.0\n          command:\n            - /bin/karmada-scheduler\n            - --scheduler-name\n            - custom\n";
    let named = |scheduler: &str| {
        POLICY.replace(
            "  placement:",
            &format!("  schedulerName: {scheduler}\n  placement:"),
        )
    };
    write(
        root,
        &[
            ("infra/scheduler.yaml", scheduler),
            ("karmada/policy.yaml", &named("custom")),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    assert!(
        stderr(&o).contains("karmada-scheduler `custom` (infra/scheduler.yaml:15)"),
        "{}",
        stderr(&o)
    );
    let env = karmada_environment(&v);
    assert_eq!(
        env["schedulers"],
        serde_json::json!([{
            "name": "custom",
            "object": "Deployment karmada-system/custom-scheduler",
            "file": "infra/scheduler.yaml",
            "line": 15,
        }]),
        "{env}"
    );
    assert_eq!(
        env["karmadaInstallation"]["object"],
        "HelmRelease karmada-system/karmada"
    );

    write(root, &[("karmada/policy.yaml", &named("other"))]);
    let (_, v) = lint_json(root, &[]);
    let found = findings(&v);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1.as_str()),
        ("scheduler-name-not-served", "karmada/policy.yaml:11")
    );
    assert!(
        found[0]
            .2
            .ends_with("schedulers read besides the default: `custom` (infra/scheduler.yaml:15)"),
        "{found:?}"
    );
}

/// A Karmada upgrade in a GitOps repository (kubernetes/apiextensions-apiserver
/// `pkg/apiserver/validation/ratcheting.go`, on by default from Kubernetes 1.30): the homelab's
/// HelmRelease moves from 1.17 to 1.19, whose CRD no longer takes `purgeMode: Graciously`.
/// Flux applies the unchanged policy again as an update, and the API server lets the stored
/// value through: `lint --base` reports an existing problem (a warning, `ratcheted`), not a new
/// rejection, as it does for plain files. A change of the value itself is refused.
#[test]
fn a_karmada_upgrade_judges_the_stored_policies_as_updates() {
    let test = "a_karmada_upgrade_judges_the_stored_policies_as_updates";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let release = |version: &str| {
        format!("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: karmada\n  namespace: karmada-system\nspec:\n  chart:\n    spec:\n      chart: karmada\n      version: {version}\n      sourceRef: {{kind: HelmRepository, name: karmada}}\n  values:\n    controllerManager:\n      featureGates: {{Failover: true}}\n")
    };
    homelab(root, &release("1.17.x"));
    let stored = POLICY.replace(
        "spec:\n",
        "spec:\n  propagateDeps: true\n  failover:\n    application:\n      decisionConditions:\n        tolerationSeconds: 60\n      purgeMode: Graciously\n",
    );
    let web = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: 1\n";
    write(
        root,
        &[("karmada/policy.yaml", &stored), ("karmada/web.yaml", web)],
    );
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "karmada 1.17"]);
    write(root, &[("infra/karmada.yaml", &release("1.19.x"))]);
    let (o, v) = lint_json(root, &["--base", "main"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let found = v["findings"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{v:#}");
    let f = &found[0];
    assert_eq!(
        (
            f["rule"].as_str(),
            f["severity"].as_str(),
            f["ratcheted"].as_bool(),
            f["field"].as_str(),
        ),
        (
            Some("schema-enum"),
            Some("warning"),
            Some(true),
            Some("spec.failover.application.purgeMode")
        ),
        "{v:#}"
    );
    assert_eq!(f["file"], "karmada/policy.yaml", "{v:#}");
    // Still stored, the policy keeps its Deployment.
    assert_eq!(v["ownershipChanges"], serde_json::json!([]), "{v:#}");
    // `plan` judges the same update: admitted, so a second cluster gains the Deployment.
    write(
        root,
        &[(
            "karmada/policy.yaml",
            &stored.replace("[member1]", "[member1, member2]"),
        )],
    );
    let plan = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["plan", "--base", "main", "."])
        .env("PATH", kustomize::path_without_helm())
        .env("NO_COLOR", "1")
        .current_dir(root)
        .output()
        .unwrap();
    let text = stdout(&plan);
    assert!(
        text.contains("member2: gains deployment/shop/web"),
        "{text}"
    );
    assert!(!text.contains("refused"), "{text}");
    // Without the base, the policy is judged as created under 1.19: refused for the spelling
    // only; its fix (Gracefully) is given a grace period by the mutating webhook.
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(1), "{v:#}");
    let rules: Vec<String> = findings(&v).into_iter().map(|(r, _, _)| r).collect();
    assert_eq!(rules, ["schema-enum"]);
    // The value itself changed with the upgrade: validated, refused.
    write(
        root,
        &[(
            "karmada/policy.yaml",
            &stored.replace("Graciously", "Immediately"),
        )],
    );
    let (o, v) = lint_json(root, &["--base", "main"]);
    assert_eq!(o.status.code(), Some(1), "{v:#}");
    let f = &v["findings"][0];
    assert_eq!(
        (
            f["rule"].as_str(),
            f["severity"].as_str(),
            f.get("ratcheted")
        ),
        (Some("schema-enum"), Some("error"), None),
        "{v:#}"
    );
    // Karmada's `validateUpdate` (pkg/webhook/propagationpolicy/validating.go): the scheduler
    // of a stored policy cannot change. Reported at the line that changes it.
    write(
        root,
        &[(
            "karmada/policy.yaml",
            &stored.replace("spec:\n", "spec:\n  schedulerName: custom\n"),
        )],
    );
    let (o, v) = lint_json(root, &["--base", "main"]);
    assert_eq!(o.status.code(), Some(1), "{v:#}");
    let rules: Vec<(String, String)> = findings(&v).into_iter().map(|(r, at, _)| (r, at)).collect();
    assert!(
        rules.contains(&(
            "scheduler-name-immutable".to_string(),
            "karmada/policy.yaml:7".to_string()
        )),
        "{v:#}"
    );
}

/// The same homelab on k3s: Karmada installed by helm-controller's `HelmChart`, its gates in
/// `valuesContent` and `set` (set wins, as helm-controller passes it last).
#[test]
fn a_k3s_helm_chart_of_karmada_gives_the_environment_its_gates() {
    let test = "a_k3s_helm_chart_of_karmada_gives_the_environment_its_gates";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let chart = |set: &str| {
        format!("apiVersion: helm.cattle.io/v1\nkind: HelmChart\nmetadata:\n  name: karmada\n  namespace: kube-system\nspec:\n  repo: https://raw.githubusercontent.com/karmada-io/karmada/master/charts\n  chart: karmada\n  version: v1.16.1\n  targetNamespace: karmada-system\n  valuesContent: |-\n    controllerManager:\n      featureGates:\n        Failover: true\n      extraCommandArgs:\n        enable-no-execute-taint-eviction: true\n{set}")
    };
    homelab(root, &chart(""));
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(findings(&v).is_empty(), "{:?}", findings(&v));
    let env = karmada_environment(&v).clone();
    assert_eq!(env["karmadaVersion"], "1.16", "{env:#}");
    assert_eq!(
        env["karmadaInstallation"]["object"],
        "HelmChart kube-system/karmada"
    );
    // `set` turns the gate off again: the policy is warned about.
    write(
        root,
        &[(
            "infra/karmada.yaml",
            &chart("  set:\n    controllerManager.featureGates.Failover: \"false\"\n"),
        )],
    );
    let (_, v) = lint_json(root, &[]);
    let rules: Vec<String> = findings(&v).into_iter().map(|(r, _, _)| r).collect();
    assert_eq!(rules, ["failover-gate-off"]);
}

#[test]
fn a_yaml_error_beside_a_flux_variable_is_yaml_syntax_at_the_broken_line() {
    let test = "a_yaml_error_beside_a_flux_variable_is_yaml_syntax_at_the_broken_line";
    if !kustomize_available(test) {
        return;
    }
    let broken = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  cluster: ${cluster_name}\n   region: eu\n";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, &[("plain/settings.yaml", broken)]);
    let (_, v) = lint_json(root, &[]);
    let f = findings(&v);
    assert_eq!(
        f.iter()
            .map(|(r, p, _)| (r.as_str(), p.as_str()))
            .collect::<Vec<_>>(),
        [("yaml-syntax", "plain/settings.yaml:8")],
        "{f:?}"
    );
    // In a kustomize root: the same line, not render-failed at the kustomization's first line.
    write(
        root,
        &[
            ("app/kustomization.yaml", "resources: [settings.yaml]\n"),
            ("app/settings.yaml", broken),
        ],
    );
    std::fs::remove_dir_all(root.join("plain")).unwrap();
    let (_, v) = lint_json(root, &[]);
    let f = findings(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].0.as_str(), f[0].1.as_str()),
        ("yaml-syntax", "app/settings.yaml:8")
    );
    assert!(!f[0].2.contains("karmada-policy-render"), "{f:?}");
}

/// Karmada's own CRD kustomization keeps `caBundle: {{caBundle}}` in its webhook patches (its
/// install script fills it with sed). kustomize's error ("wrong node kind: expected ScalarNode
/// but got MappingNode") names no file: the finding is at the template in the patch (or the
/// resource), not at the kustomization's first line.
#[test]
fn an_unrendered_template_in_a_listed_file_is_reported_at_the_template() {
    let test = "an_unrendered_template_in_a_listed_file_is_reported_at_the_template";
    if !kustomize_available(test) {
        return;
    }
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\nspec:\n  group: example.com\n  names: {kind: Thing, plural: things}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n";
    let patch = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\nspec:\n  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        caBundle: {{caBundle}}\n";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            (
                "crds/kustomization.yaml",
                "resources:\n- crd.yaml\npatches:\n- path: patches/webhook.yaml\n- path: patches/cainjection.yaml\n",
            ),
            ("crds/crd.yaml", crd),
            ("crds/patches/webhook.yaml", patch),
            ("crds/patches/cainjection.yaml", patch),
        ],
    );
    let (out, v) = lint_json(root, &[]);
    assert_eq!(out.status.code(), Some(1));
    let f = findings(&v);
    assert_eq!(
        f.iter()
            .map(|(r, p, _)| (r.as_str(), p.as_str()))
            .collect::<Vec<_>>(),
        [("unrendered-template", "crds/patches/webhook.yaml:10")],
        "{f:?}"
    );
    assert!(f[0].2.contains("kustomize cannot build"), "{f:?}");
    // kustomize stops at the first; the second patch is named beside it, not one fix later.
    let related = &v["findings"][0]["related"];
    assert_eq!(related.as_array().map(Vec::len), Some(1), "{related}");
    assert_eq!(
        related[0]["file"], "crds/patches/cainjection.yaml",
        "{related}"
    );
    assert_eq!(related[0]["line"], 10, "{related}");
    assert!(
        related[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("also: unrendered template `{{caBundle}}`")),
        "{related}"
    );
}

#[test]
fn a_render_failure_points_at_the_line_naming_the_file_and_never_at_the_wrapper() {
    let test = "a_render_failure_points_at_the_line_naming_the_file_and_never_at_the_wrapper";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            (
                "app/kustomization.yaml",
                "# the app\nresources:\n  - policy.yaml\n  - missing.yaml\n",
            ),
            ("app/policy.yaml", POLICY),
        ],
    );
    let (_, v) = lint_json(root, &[]);
    let f = findings(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].0.as_str(), f[0].1.as_str()),
        ("render-failed", "app/kustomization.yaml:4")
    );
    assert!(
        !f[0].2.contains("karmada-policy-render") && !f[0].2.contains("/tmp/"),
        "{f:?}"
    );
}

#[test]
fn a_namespace_from_nowhere_is_said_and_the_configuration_sets_one_per_path() {
    // A file applied by a script with `kubectl apply -n gpu-operator`.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let daemonset_policy = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: driver\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: DaemonSet\n      name: nvidia-driver\n      namespace: gpu-operator\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n";
    write(root, &[("scripts/gpu/driver.yaml", daemonset_policy)]);
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(1));
    let f = findings(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, "selector-namespace-mismatch");
    assert!(
        f[0].2
            .contains("(assuming namespace default: nothing in the repository sets one"),
        "{f:?}"
    );
    write(
        root,
        &[(
            ".karmada-policy.yaml",
            "namespaces:\n  'scripts/gpu/**': gpu-operator\n",
        )],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(findings(&v).is_empty());
}

#[test]
fn a_helm_release_of_a_chart_in_the_repository_is_rendered_with_its_values() {
    let test = "a_helm_release_of_a_chart_in_the_repository_is_rendered_with_its_values";
    if !kustomize_available(test) || !kustomize::helm_available(test) {
        return;
    }
    // helm-controller in the management cluster installs the chart on the Karmada API server
    // (the HelmRelease's own kubeConfig), with the release's values over the chart's.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("mgmt"));
    let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\n  namespace: flux-system\nspec:\n  targetNamespace: shop\n  chart:\n    spec:\n      chart: ./charts/web\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n  kubeConfig:\n    secretRef:\n      name: karmada-kubeconfig\n  values:\n    clusters: [member1, Member_2]\n";
    write(
        root,
        &[
            ("clusters/mgmt/releases.yaml", &flux_kustomization("releases", "./releases", "")),
            ("releases/web.yaml", release),
            ("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.0.0\n"),
            ("charts/web/values.yaml", "clusters: [member1]\n"),
            (
                "charts/web/templates/policy.yaml",
                "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: {{ .Release.Name }}\n  placement:\n    clusterAffinity:\n      clusterNames:\n        {{- range .Values.clusters }}\n        - {{ . }}\n        {{- end }}\n",
            ),
        ],
    );
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "-o", "json", "."])
        .current_dir(root)
        .output()
        .unwrap();
    let v = json(&o);
    let f = findings(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].0.as_str(), f[0].1.as_str()),
        (
            "invalid-cluster-name",
            "charts/web/templates/policy.yaml:14"
        )
    );
    // Its object: the release name and namespace Flux gives it (`targetNamespace-name`).
    let object = &v["findings"][0]["object"];
    assert_eq!(
        (object["namespace"].as_str(), object["name"].as_str()),
        (Some("shop"), Some("shop-web"))
    );
    let env = karmada_environment(&v);
    assert_eq!(env["name"], "mgmt/karmada-kubeconfig");
}

/// `explain` and `preempt-check` over the repository decide each environment in its own
/// control plane's context, as `lint` does: with `PropagationPolicyPreemption` turned on only
/// in mgmt-us's Karmada, a takeover preempts `api` there and is blocked for `web` in mgmt-eu.
#[test]
fn explain_and_preempt_check_take_each_environments_gates_from_its_karmada() {
    let test = "explain_and_preempt_check_take_each_environments_gates_from_its_karmada";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    kustomize::copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join(REPO), root);
    let release = root.join("infrastructure/mgmt-us/failover-off.yaml");
    let text = std::fs::read_to_string(&release).unwrap().replace(
        "        Failover: false",
        "        PropagationPolicyPreemption: true\n        Failover: false",
    );
    std::fs::write(&release, text).unwrap();
    let takeover = dir.path().join("takeover.yaml");
    std::fs::write(
        &takeover,
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: takeover\n  namespace: shop\nspec:\n  priority: 10\n  preemption: Always\n  resourceSelectors:\n    - {apiVersion: apps/v1, kind: Deployment, name: api}\n    - {apiVersion: apps/v1, kind: Deployment, name: web}\n  placement:\n    clusterAffinity:\n      clusterNames: [member-us-1]\n",
    )
    .unwrap();
    let in_repo = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(args)
            .current_dir(root)
            .env("NO_COLOR", "1")
            .env_remove("KUBECONFIG")
            .output()
            .unwrap()
    };
    let o = in_repo(&[
        "preempt-check",
        "-f",
        ".",
        "--apply",
        takeover.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let resource = |env: &str, name: &str| -> serde_json::Value {
        let e = v["environments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == env)
            .unwrap_or_else(|| panic!("no {env}: {v:#}"));
        e["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["resource"]["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {env}: {e:#}"))
            .clone()
    };
    let api = resource("mgmt-us/karmada-kubeconfig", "api");
    assert_eq!(api["preempted"], true, "{api:#}");
    assert_eq!(api["after"]["name"], "takeover", "{api:#}");
    let web = resource("mgmt-eu/karmada-kubeconfig", "web");
    assert_eq!(web["after"]["name"], "web", "{web:#}");
    assert_eq!(
        web["blockedBy"][0]["reason"], "feature-gate-disabled",
        "{web:#}"
    );
    // explain of api (only mgmt-us holds it) is decided with mgmt-us's gates, and says where
    // they come from.
    let o = in_repo(&["explain", "deploy/api", "-n", "shop", "-f", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stdout(&o).contains("preemption is off"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(
            "PropagationPolicyPreemption=true (infrastructure/mgmt-us/failover-off.yaml:10)"
        ),
        "{}",
        stderr(&o)
    );
    // Its JSON states the Karmada it assumed: lint's for the same environment.
    let o = in_repo(&[
        "explain",
        "deploy/api",
        "-n",
        "shop",
        "-f",
        ".",
        "-o",
        "json",
    ]);
    let explained: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let lint = in_repo(&["lint", ".", "-o", "json"]);
    let linted: serde_json::Value = serde_json::from_slice(&lint.stdout).unwrap();
    let env = linted["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "mgmt-us/karmada-kubeconfig")
        .unwrap();
    let assumed = &explained["karmada"];
    assert_eq!(assumed["version"], env["karmadaVersion"], "{explained:#}");
    for gate in env["karmadaInstallation"]["featureGates"]
        .as_array()
        .unwrap()
    {
        assert_eq!(
            assumed["featureGates"][gate["name"].as_str().unwrap()],
            gate["enabled"],
            "{gate} in {assumed:#}"
        );
    }
    assert_eq!(assumed["featureGates"]["PropagationPolicyPreemption"], true);
    assert_eq!(
        assumed["controllerManagerFlags"]["enable-no-execute-taint-eviction"],
        true
    );
}

/// A Kustomization applied by hand (no bootstrap root reaches it) whose source is a
/// GitRepository of another URL than the bootstrap's reads that repository: its `path` is not a
/// directory of this one, even when a directory of that name exists here (lreimer/
/// hands-on-karmada's podinfo example beside its own `kustomize/`). That directory stays loose
/// files of its own.
#[test]
fn a_kustomization_applied_by_hand_from_another_repository_is_not_followed_here() {
    let test = "a_kustomization_applied_by_hand_from_another_repository_is_not_followed_here";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("member1"));
    let foreign = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: podinfo\nspec:\n  url: https://github.com/stefanprodan/podinfo\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: podinfo\nspec:\n  path: ./kustomize/\n  sourceRef:\n    kind: GitRepository\n    name: podinfo\n";
    let own = POLICY.replace("name: web\n  namespace", "name: local\n  namespace");
    write(
        root,
        &[
            ("examples/podinfo.yaml", foreign),
            ("kustomize/pp.yaml", own.as_str()),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains(
            "examples/podinfo.yaml: Flux Kustomization podinfo: its source GitRepository podinfo is another repository; not linted"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        environment_names(&v),
        ["member1", "examples", "kustomize"],
        "{v}"
    );
    let targets: Vec<&str> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["target"].as_str().unwrap())
        .collect();
    assert!(targets[2].starts_with("loose files"), "{targets:?}");
}

/// Karmada propagating Flux objects to member clusters (its "Use Flux to support Helm chart
/// propagation"): a Flux Kustomization that a PropagationPolicy selects is a resource template
/// on the Karmada control plane, not the configuration of a Flux reading this repository. The
/// directory is linted as plain files, with no environment and no note about the
/// Kustomization's `spec.path`; the same Kustomization without the policy, whose path is not in
/// the repository, is a sample: plain files too, and a note says so.
#[test]
fn a_flux_kustomization_karmada_propagates_is_a_template_not_an_environment() {
    let kustomization = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: sample, namespace: apps}\nspec:\n  interval: 10m\n  sourceRef: {kind: GitRepository, name: sample}\n  path: ./kustomize\n  prune: true\n";
    let policy = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: sample, namespace: apps}\nspec:\n  resourceSelectors:\n  - {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, name: sample}\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n";
    let run = |files: &[(&str, &str)]| {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), files);
        let (out, v) = lint_json(dir.path(), &[]);
        (String::from_utf8_lossy(&out.stderr).into_owned(), v)
    };
    let propagated = format!("{kustomization}---\n{policy}");
    let (stderr, v) = run(&[("flux/propagation.yaml", propagated.as_str())]);
    assert!(v.get("environments").is_none(), "{v}");
    assert!(!stderr.contains("spec.path"), "{stderr}");
    // The policy in another file: read wherever it is; plain manifests, not Flux's cluster.
    let (stderr, v) = run(&[
        ("flux/sample.yaml", kustomization),
        ("flux/policy.yaml", policy),
    ]);
    let targets: Vec<&str> = v["environments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["target"].as_str())
        .collect();
    assert!(targets.iter().all(|t| !t.contains("Flux")), "{v}");
    assert!(!stderr.contains("spec.path"), "{stderr}");
    let (stderr, v) = run(&[("flux/sample.yaml", kustomization)]);
    assert_eq!(environment_names(&v), ["plain manifests"], "{v}");
    assert_eq!(
        stderr,
        "note: flux/sample.yaml: Flux Kustomization sample: spec.path `./kustomize` is not in this repository and nothing applies its file: a sample, not an environment; read as a plain file\n"
    );
}

/// A Flux Kustomization test fixture (karmada-io/karmada carries one under
/// `pkg/resourceinterpreter/.../Kustomization/testdata`) whose `spec.path` is not in the
/// repository and which nothing applies would apply nothing of it (the kustomize-controller
/// builds `spec.path` inside the source's artifact): it declares no environment, so the
/// repository's loose directories stay one set of plain manifests and `lint` and `explain`
/// give the Deployment the policy of another directory. Beside a bootstrap, the fixture's
/// directory is loose files, not a cluster Flux runs in.
#[test]
fn a_flux_kustomization_fixture_whose_path_is_elsewhere_declares_no_environment() {
    let fixture = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: sample\n  namespace: test-kustomization\nspec:\n  interval: 10m\n  sourceRef:\n    kind: GitRepository\n    name: sample\n  path: \"./kustomize\"\n  prune: true\n";
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: nginx}]\n";
    let policy = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\n  namespace: default\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  placement:\n    clusterAffinity:\n      clusterNames: [m1, m2]\n";
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "."]);
    write(
        root,
        &[
            ("deploy/web.yaml", deployment),
            ("policies/pp.yaml", policy),
            ("pkg/interp/testdata/desired-kustomization.yaml", fixture),
        ],
    );
    let note = "note: pkg/interp/testdata/desired-kustomization.yaml: Flux Kustomization sample: spec.path `./kustomize` is not in this repository and nothing applies its file: a sample, not an environment; read as a plain file\n";
    let in_root = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(args)
            .args(["--color", "never"])
            .env("PATH", kustomize::path_without_helm())
            .current_dir(root)
            .output()
            .unwrap()
    };
    let lint = in_root(&["lint", "."]);
    assert_eq!(
        lint.status.code(),
        Some(0),
        "{}{}",
        stdout(&lint),
        stderr(&lint)
    );
    assert_eq!(
        stdout(&lint),
        "environments:\n  plain manifests: not declared in the repository (Karmada 1.19, linted)\n\n0 errors, 0 warnings, 0 infos in 3 files (3 documents, 1 policy)\n"
    );
    assert_eq!(stderr(&lint), note);
    let explain = in_root(&["explain", "deploy/web", "-f", "."]);
    assert_eq!(explain.status.code(), Some(0), "{}", stderr(&explain));
    let text = stdout(&explain);
    assert_eq!(
        text.lines().take(4).collect::<Vec<_>>(),
        [
            "Deployment default/web (apps/v1)",
            "  current:          none (no claim in the template's metadata)",
            "  after reconcile:  PropagationPolicy default/web",
            "  eventual:         PropagationPolicy default/web",
        ],
        "{text}"
    );
    assert_eq!(stderr(&explain), note);
    // Beside a bootstrap the repository declares environments; the fixture is loose files.
    if !kustomize_available(
        "a_flux_kustomization_fixture_whose_path_is_elsewhere_declares_no_environment",
    ) {
        return;
    }
    write_owned(root, &bootstrap("member1"));
    let (o, v) = lint_json(root, &[]);
    assert_eq!(
        environment_names(&v),
        ["member1", "deploy", "pkg/interp/testdata", "policies"],
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains(note), "{}", stderr(&o));
}

/// `--env` naming the cluster Flux runs in, which is not a Karmada API server (lreimer/
/// hands-on-karmada's member directories): the answer says so and names the Karmada
/// environments, rather than only that nothing renders.
#[test]
fn env_naming_a_cluster_that_is_not_karmada_says_so() {
    let test = "env_naming_a_cluster_that_is_not_karmada_says_so";
    if !kustomize_available(test) {
        return;
    }
    let o = run(&[
        "explain",
        "deploy/web",
        "-n",
        "shop",
        "-f",
        REPO,
        "--env",
        "mgmt-us",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "note: environment mgmt-us is not a Karmada API server (lint does not lint it): nothing is decided there; pick a Karmada environment with --env (those of the repository: {KARMADA_EU}, {KARMADA_US}, {REPO}/examples)"
        )),
        "{}",
        stderr(&o)
    );
}

/// A Flux Kustomization disabled by commenting it out of its cluster directory's
/// kustomization (keiretsu-labs/kubernetes-manifests 8747e463, Karmada removed): `flux
/// bootstrap`'s Kustomization builds that directory, so nothing applies it any more, and its
/// path is not a Karmada environment (Flux prunes what it applied there). The cluster is one
/// environment, named once; the files it pointed at are loose.
#[test]
fn a_flux_kustomization_listed_only_in_a_comment_is_applied_by_nothing() {
    let test = "a_flux_kustomization_listed_only_in_a_comment_is_applied_by_nothing";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("prod"));
    write(
        root,
        &[
            (
                "clusters/prod/kustomization.yaml",
                "resources:\n  - flux-system\n  # - karmada.yaml   # disabled: Karmada removed\n",
            ),
            (
                "clusters/prod/karmada.yaml",
                &flux_kustomization("karmada", "./apps", KUBECONFIG),
            ),
            ("apps/policy.yaml", POLICY),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let environments: Vec<(&str, &str)> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap(), e["target"].as_str().unwrap()))
        .collect();
    assert_eq!(
        environments,
        [
            ("prod", "the cluster Flux runs in (clusters/prod)"),
            (
                "apps",
                "loose files: no Flux Kustomization or Argo CD Application applies them"
            ),
        ],
        "{v:#}"
    );
}

/// `lint .` inside a Flux cluster's directory finds what Flux applies from the repository's
/// root and names its environments after the directory, as a lint from above does (before:
/// `.`, its target `the cluster Flux runs in ()`, and `flux-system` a cluster of its own
/// without the Karmada API server, the paths from the root not found from here).
#[test]
fn a_cluster_directory_linted_from_inside_is_named_after_itself() {
    let test = "a_cluster_directory_linted_from_inside_is_named_after_itself";
    if !kustomize_available(test) {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(REPO)
        .join("clusters/mgmt-eu");
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["lint", "-o", "json", "."])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run the binary");
    let v = json(&o);
    let local = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["target"] == "the cluster Flux runs in (.)")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(local["name"], "mgmt-eu", "{v}");
    let names: Vec<&str> = v["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mgmt-eu", KARMADA_EU], "{v}");
    let karmada = &v["environments"][1];
    assert_eq!(
        karmada["karmadaInstallation"]["file"], "../../infrastructure/karmada/release.yaml",
        "{karmada}"
    );
}

/// A cluster whose bootstrap lives in `clusters/prod/flux`, linted from `clusters/prod`: the
/// cluster is `prod` (as from the root; not `flux`), and the git modes, which render a
/// revision written elsewhere, find what Flux applies from the repository's root as the working
/// tree does (before, their side of a `--base` lost the Karmada environment: `plan` said every
/// policy added).
#[test]
fn a_cluster_linted_from_inside_is_the_same_in_every_mode() {
    let test = "a_cluster_linted_from_inside_is_the_same_in_every_mode";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        &[
            (
                "clusters/prod/flux/flux-system/gotk-sync.yaml",
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./clusters/prod/flux\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
            ),
            (
                "clusters/prod/flux/karmada.yaml",
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: karmada-policies, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./infrastructure/policies\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n  kubeConfig: {secretRef: {name: karmada-kubeconfig}}\n",
            ),
            (
                "infrastructure/policies/pp.yaml",
                "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n",
            ),
        ],
    );
    git(d, &["init", "-q"]);
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "all"]);
    let inside = d.join("clusters/prod");
    let names = |args: &[&str]| -> Vec<String> {
        let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(args)
            .current_dir(&inside)
            .env("NO_COLOR", "1")
            .output()
            .expect("run the binary");
        let v = json(&o);
        v["environments"]
            .as_array()
            .unwrap_or_else(|| panic!("{args:?}: {v}"))
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    };
    let expected = ["prod", "prod/karmada-kubeconfig"];
    assert_eq!(names(&["lint", "-o", "json", "."]), expected);
    assert_eq!(
        names(&["lint", "-o", "json", "--rev", "HEAD", "."]),
        expected
    );
    assert_eq!(
        names(&["lint", "-o", "json", "--base", "HEAD", "."]),
        expected
    );
    let plan = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args(["plan", "--base", "HEAD", "."])
        .current_dir(&inside)
        .env("NO_COLOR", "1")
        .output()
        .expect("run the binary");
    assert_eq!(
        plan.status.code(),
        Some(0),
        "{}{}",
        stdout(&plan),
        stderr(&plan)
    );
    assert!(!stdout(&plan).contains("added"), "{}", stdout(&plan));
}

/// A cluster linted by its directory reads the plain directories its Kustomizations apply from
/// elsewhere in the repository (`./apps/eu`, no kustomization), as a lint of the root does:
/// the invalid cluster name there is found either way (before, only from the root).
#[test]
fn a_cluster_directory_reads_the_plain_directories_it_applies() {
    let test = "a_cluster_directory_reads_the_plain_directories_it_applies";
    if !kustomize_available(test) {
        return;
    }
    let at = |v: &serde_json::Value| -> Vec<(String, String)> {
        findings(v)
            .into_iter()
            .filter(|(rule, _, _)| rule == "invalid-cluster-name")
            .map(|(rule, place, _)| (rule, place))
            .collect()
    };
    let cluster = json(&run(&[
        "lint",
        "-o",
        "json",
        &format!("{REPO}/clusters/mgmt-eu"),
    ]));
    let root = json(&run(&["lint", "-o", "json", REPO]));
    let expected = vec![(
        "invalid-cluster-name".to_string(),
        format!("{REPO}/apps/eu/policy.yaml:19"),
    )];
    assert_eq!(at(&cluster), expected, "{cluster}");
    assert_eq!(at(&root), expected, "{root}");
}

/// A Kustomization's `patches`, `images`, `commonMetadata` and `namePrefix` are built in as the
/// kustomize-controller writes them into the kustomization it builds (fluxcd/pkg
/// `kustomize.Generator.WriteFile`), over a plain directory too (one kustomization generated
/// over its files): the patch raises a priority, the common label lets a label selector match,
/// and explain and plan see the same policies as lint.
#[test]
fn a_kustomizations_patches_and_metadata_are_built_in() {
    let test = "a_kustomizations_patches_and_metadata_are_built_in";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("mgmt"));
    let extra = format!(
        "{KUBECONFIG}  targetNamespace: shop\n  commonMetadata:\n    labels: {{team: blue}}\n  patches:\n    - target: {{kind: PropagationPolicy, name: low}}\n      patch: |\n        - op: replace\n          path: /spec/priority\n          value: 20\n"
    );
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n";
    let policies = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: low}\nspec:\n  priority: 1\n  resourceSelectors:\n  - {apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {team: blue}}}\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: high}\nspec:\n  priority: 10\n  resourceSelectors:\n  - {apiVersion: apps/v1, kind: Deployment, name: web}\n  placement: {clusterAffinity: {clusterNames: [member2]}}\n";
    write(
        root,
        &[
            (
                "clusters/mgmt/karmada.yaml",
                &flux_kustomization("karmada", "./apps", &extra),
            ),
            ("apps/deploy.yaml", deploy),
            ("apps/policies.yaml", policies),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert!(!stderr(&o).contains("not applied"), "{}", stderr(&o));
    let env = karmada_environment(&v);
    assert_eq!(env["name"], "mgmt/karmada-kubeconfig", "{v:#}");
    // The patched priority 20 beats 10 in the fresh match; the label the Kustomization adds
    // is what the low policy selects by.
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args([
            "explain",
            "deploy/web",
            "-n",
            "shop",
            "-f",
            ".",
            "-o",
            "json",
        ])
        .env("PATH", kustomize::path_without_helm())
        .current_dir(root)
        .output()
        .unwrap();
    let e = json(&o);
    assert_eq!(e["eventual"]["name"], "low", "{e:#}");
    let overlap: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "overlap")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    assert!(
        overlap
            .iter()
            .any(|m| m
                .contains("pp/shop/low wins the fresh match: higher explicit priority (20 > 10)")),
        "{overlap:?}"
    );
    // The findings point at the files the objects come from, not at the generated kustomization.
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["file"].as_str().is_none_or(|p| p.starts_with("apps/"))),
        "{v:#}"
    );
}

/// A Flux Kustomization's `namePrefix` replaces the one the directory's kustomization sets
/// (fluxcd/pkg kustomize/kustomize_generator.go `GenerateManifest`: `kus.NamePrefix`), where
/// a kustomization over it would stack them; a build failure in that case names the
/// repository's files, never the temporary copy it ran in.
#[test]
fn a_kustomizations_name_prefix_replaces_the_directorys_own() {
    let test = "a_kustomizations_name_prefix_replaces_the_directorys_own";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_owned(root, &bootstrap("mgmt"));
    let extra = format!("{KUBECONFIG}  namePrefix: flux-\n");
    write(
        root,
        &[
            (
                "clusters/mgmt/karmada.yaml",
                &flux_kustomization("karmada", "./apps/shop", &extra),
            ),
            (
                "apps/shop/kustomization.yaml",
                "namePrefix: dir-\nresources: [policy.yaml]\n",
            ),
            ("apps/shop/policy.yaml", POLICY),
        ],
    );
    let (o, v) = lint_json(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .args([
            "explain",
            "pp/flux-web",
            "-n",
            "shop",
            "-f",
            ".",
            "-o",
            "json",
        ])
        .env("PATH", kustomize::path_without_helm())
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{v:#}{}{}",
        stdout(&o),
        stderr(&o)
    );
    write(
        root,
        &[(
            "apps/shop/kustomization.yaml",
            "namePrefix: dir-\nresources: [policy.yaml, missing.yaml]\n",
        )],
    );
    let (_, v) = lint_json(root, &[]);
    let f = findings(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, "render-failed", "{f:?}");
    assert!(f[0].2.contains("apps/shop/missing.yaml"), "{f:?}");
    assert!(
        !f[0].2.contains("karmada-policy-render") && !f[0].2.contains("/tmp"),
        "{f:?}"
    );
}

/// Two clusters each define a GitRepository of the same name whose `spec.ignore` leaves out
/// everything but its own cluster's directory (`/*`, then `!/clusters/<c>`: go-git's matcher
/// takes the directory back, keiretsu-labs/kubernetes-manifests does this): each cluster's
/// plain directory is read through its own source's filter, and both policies are linted.
#[test]
fn each_cluster_s_source_filters_its_own_artifact() {
    let test = "each_cluster_s_source_filters_its_own_artifact";
    if !kustomize_available(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for c in ["ottawa", "robbinsdale"] {
        write_owned(root, &bootstrap(c));
        let source = format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: manifests\n  namespace: flux-system\nspec:\n  url: https://example.com/fleet.git\n  ignore: |\n    # exclude all\n    /*\n    # but this cluster\n    !/clusters/{c}\n");
        let apps = flux_kustomization("karmada", &format!("./clusters/{c}/apps"), KUBECONFIG)
            .replace("name: flux-system\n", "name: manifests\n");
        // `preemption: Always` while the gate is off: a warning in each Karmada environment
        // that reads the policy.
        let policy = POLICY
            .replace(
                "name: web\n  namespace",
                &format!("name: web-{c}\n  namespace"),
            )
            .replace("spec:\n", "spec:\n  preemption: Always\n");
        write_owned(
            root,
            &[
                (format!("clusters/{c}/source.yaml"), source),
                (format!("clusters/{c}/karmada.yaml"), apps),
                (format!("clusters/{c}/apps/policy.yaml"), policy),
            ],
        );
    }
    let (o, v) = lint_json(root, &[]);
    assert!(
        !stderr(&o).contains("is not in this repository") && !stderr(&o).contains("not linted"),
        "{}",
        stderr(&o)
    );
    let inert: Vec<String> = findings(&v)
        .into_iter()
        .filter(|(rule, _, _)| rule == "inert-preemption")
        .map(|(_, at, message)| format!("{at} {}", message.rsplit(" (in: ").next().unwrap_or("")))
        .collect();
    assert_eq!(
        inert,
        [
            "clusters/ottawa/apps/policy.yaml:7 ottawa, ottawa/karmada-kubeconfig)",
            "clusters/robbinsdale/apps/policy.yaml:7 robbinsdale, robbinsdale/karmada-kubeconfig)"
        ],
        "{}",
        stdout(&o)
    );
}
