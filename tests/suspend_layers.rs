//! `suspend -f LAYER` / `resume -f LAYER` in a kustomize tree (issue 19): an overlay changes
//! only itself (its patch for the policy, or a new patch listed in its kustomization.yaml), a
//! base is edited in place and names the environments built on it. Each test edits a copy of a
//! testdata tree, asserts the exact bytes of every changed file and that every other file is
//! unchanged, then renders the environments with the real kustomize (`SKIPPED:` without one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/kustomize.rs"]
mod kustomize;
#[path = "support/run.rs"]
mod run;
use kustomize::{copy_dir, kustomize_available, render};
use run::{bin, stderr, stdout};

const TREE: &str = "testdata/suspend-kustomize";

/// A copy of `from` (relative to the crate) in a temporary directory.
fn copy(from: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(from),
        dir.path(),
    );
    dir
}

/// The binary run inside the copy, with paths as a user at the repository root names them.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("binary runs")
}

/// Every file of the tree and its bytes, by relative path.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// The files that differ between two snapshots (added, removed or changed).
fn changed(a: &BTreeMap<PathBuf, Vec<u8>>, b: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<String> {
    let mut names: Vec<&PathBuf> = a.keys().chain(b.keys()).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter(|n| a.get(*n) != b.get(*n))
        .map(|n| n.display().to_string())
        .collect()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

/// The rendered PropagationPolicy document of an environment.
fn rendered_policy(dir: &Path, env: &str) -> String {
    render(&dir.join(env))
        .split("\n---\n")
        .find(|d| d.contains("kind: PropagationPolicy"))
        .unwrap_or_else(|| panic!("{env} renders a PropagationPolicy"))
        .to_string()
}

/// The `spec.suspension` block of a rendered policy (kustomize writes two-space YAML).
fn suspension(doc: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in doc.lines() {
        if line == "  suspension:" {
            inside = true;
        } else if inside && !line.starts_with("   ") {
            break;
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

const NEW_PATCH: &str = "# The suspension of PropagationPolicy web in this overlay (kubectl karmada-policy suspend/resume).
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: web
spec:
  suspension:
    dispatching: true
";

const PROD_KUSTOMIZATION: &str = "# Production: every cluster of the base, names prefixed.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namePrefix: prod-
resources:
  - ../../base # the shared base
labels:
  - pairs:
      env: prod
patches:
  - path: suspend-pp-web.yaml
";

#[test]
fn an_overlay_without_a_patch_gets_a_new_one_listed_in_its_kustomization_and_nothing_else() {
    let test = "an_overlay_without_a_patch_gets_a_new_one_listed_in_its_kustomization";
    let copy = copy(TREE);
    let dir = copy.path();
    let before = snapshot(dir);
    let o = run_in(dir, &["suspend", "-f", "overlays/prod", "pp/web"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "propagationpolicy.policy.karmada.io/web (overlays/prod/suspend-pp-web.yaml) suspended on all clusters\n"
    );
    let after = snapshot(dir);
    assert_eq!(
        changed(&before, &after),
        [
            "overlays/prod/kustomization.yaml",
            "overlays/prod/suspend-pp-web.yaml"
        ]
    );
    assert_eq!(read(dir, "overlays/prod/suspend-pp-web.yaml"), NEW_PATCH);
    assert_eq!(
        read(dir, "overlays/prod/kustomization.yaml"),
        PROD_KUSTOMIZATION
    );
    if kustomize_available(test) {
        let prod = rendered_policy(dir, "overlays/prod");
        assert!(prod.contains("name: prod-web"), "{prod}");
        assert!(
            prod.contains("\n  suspension:\n    dispatching: true\n"),
            "{prod}"
        );
        let staging = rendered_policy(dir, "overlays/staging");
        assert!(!staging.contains("suspension"), "{staging}");
    }

    // Resumed: the patch held only the suspension, so it goes with its listing; the overlay is
    // byte for byte what it was.
    let o = run_in(dir, &["resume", "-f", "overlays/prod", "pp/web"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(changed(&before, &snapshot(dir)), Vec::<String>::new());
    if kustomize_available(test) {
        let prod = rendered_policy(dir, "overlays/prod");
        assert!(!prod.contains("suspension"), "{prod}");
        assert!(
            prod.contains("resourceSelectors"),
            "the spec is whole: {prod}"
        );
    }
}

#[test]
fn an_overlay_with_a_patch_for_the_policy_edits_that_patch_only() {
    let copy = copy(TREE);
    let dir = copy.path();
    let before = snapshot(dir);
    let o = run_in(
        dir,
        &[
            "suspend",
            "-f",
            "overlays/staging",
            // The name staging renders (nameSuffix) selects the policy as well as its own.
            "pp/web-staging",
            "--clusters",
            "member2",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "propagationpolicy.policy.karmada.io/web (overlays/staging/placement.yaml) suspended on member2\n"
    );
    assert_eq!(
        changed(&before, &snapshot(dir)),
        ["overlays/staging/placement.yaml"]
    );
    assert_eq!(
        read(dir, "overlays/staging/placement.yaml"),
        "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: web
spec:
  placement:
    clusterAffinity:
      clusterNames:
        - member2 # the staging cluster
  suspension:
    dispatchingOnClusters:
      clusterNames:
        - member2
"
    );
    if kustomize_available("an_overlay_with_a_patch_for_the_policy_edits_that_patch_only") {
        let staging = rendered_policy(dir, "overlays/staging");
        assert!(
            staging.contains(
                "\n  suspension:\n    dispatchingOnClusters:\n      clusterNames:\n      - member2\n"
            ),
            "{staging}"
        );
        assert!(!rendered_policy(dir, "overlays/prod").contains("suspension"));
    }
}

#[test]
fn the_base_is_edited_in_place_and_names_the_environments_it_reaches() {
    let copy = copy(TREE);
    let dir = copy.path();
    let before = snapshot(dir);
    let o = run_in(dir, &["suspend", "-f", "base", "pp/web"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "propagationpolicy.policy.karmada.io/web (base/policy.yaml) suspended on all clusters\n"
    );
    assert_eq!(
        stderr(&o),
        "note: base is a base of 2 environments, the edit reaches them all: overlays/prod, overlays/staging\n"
    );
    assert_eq!(changed(&before, &snapshot(dir)), ["base/policy.yaml"]);
    assert_eq!(
        read(dir, "base/policy.yaml"),
        String::from_utf8(before[Path::new("base/policy.yaml")].clone()).unwrap()
            + "  suspension:\n    dispatching: true\n"
    );
    if kustomize_available("the_base_is_edited_in_place_and_names_the_environments_it_reaches") {
        for env in ["overlays/prod", "overlays/staging"] {
            let p = rendered_policy(dir, env);
            assert!(
                p.contains("\n  suspension:\n    dispatching: true\n"),
                "{env}: {p}"
            );
        }
    }

    // A suspension the base writes cannot be lifted by one overlay: refused, nothing written.
    let before = snapshot(dir);
    let o = run_in(dir, &["resume", "-f", "overlays/prod", "pp/web"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert_eq!(
        stderr(&o),
        "error: propagationpolicy.policy.karmada.io/web (overlays/prod/suspend-pp-web.yaml): spec.suspension is also written in base/policy.yaml, below this overlay, and a patch here merges into it: change it in that layer (-f base, every environment built on it) or by hand\n"
    );
    assert_eq!(changed(&before, &snapshot(dir)), Vec::<String>::new());
}

#[test]
fn a_dry_run_shows_every_file_s_diff_and_writes_nothing() {
    let copy = copy(TREE);
    let dir = copy.path();
    let before = snapshot(dir);
    let o = run_in(
        dir,
        &["suspend", "-f", "overlays/prod", "pp/web", "--dry-run"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "--- a/overlays/prod/kustomization.yaml
+++ b/overlays/prod/kustomization.yaml
@@ -7,3 +7,5 @@
 labels:
   - pairs:
       env: prod
+patches:
+  - path: suspend-pp-web.yaml
--- /dev/null
+++ b/overlays/prod/suspend-pp-web.yaml
@@ -0,0 +1,9 @@
+# The suspension of PropagationPolicy web in this overlay (kubectl karmada-policy suspend/resume).
+apiVersion: policy.karmada.io/v1alpha1
+kind: PropagationPolicy
+metadata:
+  name: web
+  namespace: web
+spec:
+  suspension:
+    dispatching: true
propagationpolicy.policy.karmada.io/web (overlays/prod/suspend-pp-web.yaml) suspended on all clusters (dry run)
"
    );
    assert_eq!(changed(&before, &snapshot(dir)), Vec::<String>::new());
}

#[test]
fn env_names_the_layer_and_a_directory_of_trees_edits_none_of_them() {
    let copy = copy(TREE);
    let dir = copy.path();
    let before = snapshot(dir);
    // `-f .` alone: the trees' files are not edited, and the warning names the roots.
    let o = run_in(dir, &["suspend", "-f", ".", "pp/web"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(
            "warning: 6 files of kustomize trees not edited: name the layer to edit with -f DIR, or --env DIR or --env ENVIRONMENT (as lint names it); kustomization roots: overlays/prod, overlays/staging\n"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(changed(&before, &snapshot(dir)), Vec::<String>::new());
    // `--env` picks the overlay under the repository named by -f.
    let o = run_in(
        dir,
        &["suspend", "-f", ".", "--env", "overlays/staging", "pp/web"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        changed(&before, &snapshot(dir)),
        ["overlays/staging/placement.yaml"]
    );
    let o = run_in(
        dir,
        &["suspend", "-f", "base", "--env", "overlays/prod", "pp/web"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--env overlays/prod: not under the -f inputs"));
}

/// A freeze (`--clusters`, no policy named) on a layer acts on the policies that layer renders
/// and targets the clusters, through the same files a named edit uses; lifting it restores the
/// bytes (the record annotation is read from the overlay's patch).
#[test]
fn a_freeze_on_an_overlay_edits_that_overlay_and_lifting_it_restores_the_bytes() {
    let copy = copy(TREE);
    let dir = copy.path();
    let before = snapshot(dir);
    let o = run_in(
        dir,
        &[
            "suspend",
            "--clusters",
            "member2",
            "-f",
            "overlays/staging",
            "--yes",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "freeze of member2:
will change (1):
  NAMESPACE  POLICY                                    CHANGE
  web        pp/web (overlays/staging/placement.yaml)  suspend on member2
propagationpolicy.policy.karmada.io/web (overlays/staging/placement.yaml) suspended on member2
freeze of member2: 1 changed
"
    );
    assert_eq!(
        changed(&before, &snapshot(dir)),
        ["overlays/staging/placement.yaml"]
    );
    let patch = read(dir, "overlays/staging/placement.yaml");
    assert!(
        patch.contains("  annotations:\n    karmada-policy.io/freeze: '{\"member2\":{\"at\":"),
        "{patch}"
    );
    assert!(
        patch.ends_with(
            "  suspension:\n    dispatchingOnClusters:\n      clusterNames:\n        - member2\n"
        ),
        "{patch}"
    );
    if kustomize_available("a_freeze_on_an_overlay_edits_that_overlay") {
        let staging = rendered_policy(dir, "overlays/staging");
        assert!(staging.contains("dispatchingOnClusters"), "{staging}");
        assert!(!rendered_policy(dir, "overlays/prod").contains("suspension"));
    }
    let o = run_in(
        dir,
        &[
            "resume",
            "--clusters",
            "member2",
            "-f",
            "overlays/staging",
            "--yes",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(changed(&before, &snapshot(dir)), Vec::<String>::new());
}

#[test]
fn the_gitops_repository_prod_overlay_is_suspended_in_prod_only() {
    let test = "the_gitops_repository_prod_overlay_is_suspended_in_prod_only";
    let copy = copy("testdata/gitops-repo");
    let dir = copy.path();
    let before = snapshot(dir);
    let o = run_in(
        dir,
        &[
            "suspend",
            "-f",
            "apps/web/overlays/prod",
            "pp/web",
            "--clusters",
            "member1",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "propagationpolicy.policy.karmada.io/web (apps/web/overlays/prod/placement.yaml) suspended on member1\n"
    );
    assert_eq!(
        changed(&before, &snapshot(dir)),
        ["apps/web/overlays/prod/placement.yaml"]
    );
    assert_eq!(
        read(dir, "apps/web/overlays/prod/placement.yaml"),
        String::from_utf8(before[Path::new("apps/web/overlays/prod/placement.yaml")].clone())
            .unwrap()
            + "  suspension:\n    dispatchingOnClusters:\n      clusterNames:\n        - member1\n"
    );
    if kustomize_available(test) {
        let prod = rendered_policy(dir, "apps/web/overlays/prod");
        assert!(
            prod.contains(
                "\n  suspension:\n    dispatchingOnClusters:\n      clusterNames:\n      - member1\n"
            ),
            "{prod}"
        );
        // Staging keeps its own suspension (member2), untouched.
        let staging = rendered_policy(dir, "apps/web/overlays/staging");
        assert_eq!(
            suspension(&staging),
            "  suspension:\n    dispatchingOnClusters:\n      clusterNames:\n      - member2\n",
            "{staging}"
        );
    }
}

#[test]
fn from_inside_the_base_the_repository_above_is_found_and_paths_read_from_here() {
    let copy = copy(TREE);
    let dir = copy.path();
    // A repository root: the overlays lie above the working directory.
    std::fs::create_dir(dir.join(".git")).unwrap();
    let o = run_in(
        &dir.join("base"),
        &["suspend", "-f", ".", "pp/web", "--dry-run"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("--- a/policy.yaml\n+++ b/policy.yaml\n"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).ends_with(
            "propagationpolicy.policy.karmada.io/web (policy.yaml) suspended on all clusters (dry run)\n"
        ),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        stderr(&o),
        "note: . is a base of 2 environments, the edit reaches them all: ../overlays/prod, ../overlays/staging\n"
    );
}

/// The prod overlay of TREE, paused by a JSON 6902 patch file under `patchesJson6902`.
fn paused_by_json6902(dir: &Path) {
    let k = dir.join("overlays/prod/kustomization.yaml");
    let mut text = read(dir, "overlays/prod/kustomization.yaml");
    text.push_str(
        "patchesJson6902:
  # Prod was paused during the migration.
  - target:
      group: policy.karmada.io
      version: v1alpha1
      kind: PropagationPolicy
      name: web
    path: paused.yaml
",
    );
    std::fs::write(k, text).unwrap();
    std::fs::write(
        dir.join("overlays/prod/paused.yaml"),
        "- op: add\n  path: /spec/suspension\n  value:\n    dispatching: true\n",
    )
    .unwrap();
}

#[test]
fn a_json6902_patch_of_the_overlay_is_in_its_view_and_never_silently_overridden() {
    let copy = copy(TREE);
    let dir = copy.path();
    paused_by_json6902(dir);
    let before = snapshot(dir);
    // The overlay's view has the suspension the JSON 6902 patch adds.
    let o = run_in(dir, &["suspend", "-f", "overlays/prod", "pp/web"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "propagationpolicy.policy.karmada.io/web (overlays/prod/suspend-pp-web.yaml) already suspended on all clusters\n"
    );
    // A new strategic-merge patch would be applied before it: resuming there changes nothing
    // in the render, so it is refused, naming the file to change.
    let o = run_in(dir, &["resume", "-f", "overlays/prod", "pp/web"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        stderr(&o),
        "error: propagationpolicy.policy.karmada.io/web (overlays/prod/suspend-pp-web.yaml): spec.suspension is also written by overlays/prod/paused.yaml, which kustomize applies after overlays/prod/suspend-pp-web.yaml in this layer: the edit would not show in the render; change it there by hand\n"
    );
    assert_eq!(changed(&before, &snapshot(dir)), Vec::<String>::new());
    if kustomize_available("a_json6902_patch_of_the_overlay_is_in_its_view") {
        let prod = rendered_policy(dir, "overlays/prod");
        assert_eq!(suspension(&prod), "  suspension:\n    dispatching: true\n");
    }
}

/// Suspending in an overlay creates a patch and lists it; resuming (named, or lifting a
/// freeze) takes both away again: every file byte for byte as before, no `spec: {}` patch left
/// and no `patches:` entry. With other patches listed, only this one's entry goes.
#[test]
fn resuming_in_an_overlay_restores_its_files_byte_for_byte() {
    for (suspend, resume) in [
        (
            vec![
                "suspend",
                "-f",
                "overlays/prod",
                "pp/web",
                "--clusters",
                "member1",
            ],
            vec![
                "resume",
                "-f",
                "overlays/prod",
                "pp/web",
                "--clusters",
                "member1",
            ],
        ),
        (
            vec!["suspend", "-f", "overlays/prod", "pp/web"],
            vec!["resume", "-f", "overlays/prod", "pp/web"],
        ),
        (
            vec![
                "suspend",
                "-f",
                "overlays/prod",
                "--clusters",
                "member1",
                "--yes",
            ],
            vec![
                "resume",
                "-f",
                "overlays/prod",
                "--clusters",
                "member1",
                "--yes",
            ],
        ),
    ] {
        let copy = copy(TREE);
        let dir = copy.path();
        let before = snapshot(dir);
        let o = run_in(dir, &suspend);
        assert_eq!(o.status.code(), Some(0), "{suspend:?}: {}", stderr(&o));
        assert_eq!(
            changed(&before, &snapshot(dir)),
            [
                "overlays/prod/kustomization.yaml",
                "overlays/prod/suspend-pp-web.yaml"
            ]
        );
        let dry: Vec<&str> = resume.iter().copied().chain(["--dry-run"]).collect();
        let o = run_in(dir, &dry);
        assert!(
            stdout(&o).contains("+++ /dev/null") && stdout(&o).contains("-patches:"),
            "{}",
            stdout(&o)
        );
        let o = run_in(dir, &resume);
        assert_eq!(o.status.code(), Some(0), "{resume:?}: {}", stderr(&o));
        assert_eq!(
            changed(&before, &snapshot(dir)),
            Vec::<String>::new(),
            "{resume:?}"
        );
    }
    // Another patch listed before: it stays, only our entry goes.
    let copy = copy(TREE);
    let dir = copy.path();
    let k = dir.join("overlays/prod/kustomization.yaml");
    let with_patch = format!(
        "{}patches:\n  - path: other.yaml\n",
        read(dir, "overlays/prod/kustomization.yaml")
    );
    std::fs::write(&k, &with_patch).unwrap();
    std::fs::write(
        dir.join("overlays/prod/other.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n",
    )
    .unwrap();
    let before = snapshot(dir);
    assert_eq!(
        run_in(dir, &["suspend", "-f", "overlays/prod", "pp/web"])
            .status
            .code(),
        Some(0)
    );
    assert!(read(dir, "overlays/prod/kustomization.yaml")
        .ends_with("  - path: other.yaml\n  - path: suspend-pp-web.yaml\n"));
    assert_eq!(
        run_in(dir, &["resume", "-f", "overlays/prod", "pp/web"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(changed(&before, &snapshot(dir)), Vec::<String>::new());
}

/// A kustomization inside a Helm chart (karmada's own chart keeps one for its CRDs) makes the
/// chart's files a tree of their own: the warning names the chart, not an empty list of
/// environments.
#[test]
fn the_files_of_a_chart_holding_a_kustomization_are_named_by_the_chart() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    kustomize::write_files(
        d,
        &[
            ("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n"),
            ("charts/web/templates/pp.yaml", "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n"),
            ("charts/web/_crds/kustomization.yaml", "resources: [crd.yaml]\n"),
            ("charts/web/_crds/crd.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
            ("plain/pp.yaml", "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n"),
        ],
    );
    let o = run_in(d, &["suspend", "-f", ".", "pp/p", "--dry-run"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "of Helm charts not edited (a chart's templates are edited by hand): charts/web\n"
        ),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("environments: \n"), "{}", stderr(&o));
}

/// `--env` takes an environment as `lint`, `explain` and `plan` name it (here the Karmada API
/// server a Flux Kustomization reaches through its kubeConfig secret): the files that
/// environment applies are edited, and a name that is neither a directory nor an environment
/// is refused (exit 2).
#[test]
fn env_names_an_environment_as_lint_prints_it() {
    let dir = copy("testdata/suspend-flux-env");
    let lint = run_in(dir.path(), &["lint", "."]);
    assert!(
        stdout(&lint).contains("  mgmt/karmada-kubeconfig: the API server of kubeConfig secret flux-system/karmada-kubeconfig"),
        "{}",
        stdout(&lint)
    );
    let before = snapshot(dir.path());
    let o = run_in(
        dir.path(),
        &[
            "suspend",
            "-f",
            ".",
            "--env",
            "mgmt/karmada-kubeconfig",
            "pp/web",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        changed(&before, &snapshot(dir.path())),
        ["karmada/workloads/app.yaml"]
    );
    assert!(read(dir.path(), "karmada/workloads/app.yaml")
        .contains("  suspension:\n    dispatching: true\n"));
    let o = run_in(
        dir.path(),
        &["suspend", "-f", ".", "--env", "nowhere", "pp/web"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "--env nowhere: neither a kustomization directory nor an environment of the -f inputs"
        ),
        "{}",
        stderr(&o)
    );
}

/// Whether suspending stalls cluster failover is judged in the environment's own Karmada, as
/// `lint` reads it: here a controller-manager the management cluster's Flux directory installs
/// with the Failover gate and the eviction flag.
#[test]
fn an_environments_installation_decides_whether_cluster_failover_stalls() {
    let dir = copy("testdata/suspend-flux-env");
    std::fs::write(
        dir.path().join("clusters/mgmt/kcm.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karmada-controller-manager, namespace: karmada-system}\nspec:\n  selector: {matchLabels: {app: kcm}}\n  template:\n    metadata: {labels: {app: kcm}}\n    spec:\n      containers:\n      - name: karmada-controller-manager\n        image: docker.io/karmada/karmada-controller-manager:v1.15.0\n        command: [/bin/karmada-controller-manager, --feature-gates=Failover=true, --enable-no-execute-taint-eviction=true]\n",
    )
    .unwrap();
    let app = dir.path().join("karmada/workloads/app.yaml");
    let text = std::fs::read_to_string(&app).unwrap();
    std::fs::write(
        &app,
        format!("{text}  failover:\n    cluster:\n      purgeMode: Directly\n"),
    )
    .unwrap();
    for env in ["mgmt/karmada-kubeconfig", "karmada/workloads"] {
        let o = run_in(dir.path(), &["suspend", "-f", ".", "--env", env, "pp/web"]);
        assert_eq!(o.status.code(), Some(1), "{env}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("cluster failover (purgeMode Directly)"),
            "{}",
            stderr(&o)
        );
    }
}

/// `--env` edits a policy named as its environment renders it: a Flux Kustomization's
/// `postBuild` variable, `namePrefix` and `targetNamespace` (which overrides the namespace the
/// file writes) make `high-${ENV}` in namespace `other` the policy `pp/shop/eu-high-prod`, the
/// name lint prints; the name it is not rendered to, or the namespace it does not land in,
/// finds nothing.
#[test]
fn env_finds_a_policy_by_the_name_its_kustomization_renders() {
    let dir = copy("testdata/suspend-flux-renamed");
    let lint = run_in(dir.path(), &["lint", "."]);
    assert!(
        stdout(&lint).contains("pp/shop/eu-high-prod"),
        "{}",
        stdout(&lint)
    );
    let before = snapshot(dir.path());
    let args = |name: &'static str, ns: &'static str| {
        ["suspend", "-f", ".", "--env", "karmada", name, "-n", ns]
    };
    // Its findings point at its own document, the prefix and the variable notwithstanding.
    let json = run_in(dir.path(), &["lint", "-o", "json", "."]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let lines: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["message"]
                .as_str()
                .unwrap()
                .contains("pp/shop/eu-high-prod")
        })
        .map(|f| &f["line"])
        .collect();
    assert!(
        !lines.is_empty() && lines.iter().all(|l| l.as_u64() > Some(21)),
        "{v:#}"
    );
    // Neither the written name (`low` renders to eu-low) nor the wrong namespace.
    for (name, ns) in [
        ("pp/eu-high-prod", "other"),
        ("pp/high-prod", "shop"),
        ("pp/low", "shop"),
    ] {
        let o = run_in(dir.path(), &args(name, ns));
        assert_eq!(o.status.code(), Some(4), "{name} -n {ns}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("not found in the given files"),
            "{}",
            stderr(&o)
        );
    }
    assert!(changed(&before, &snapshot(dir.path())).is_empty());
    let o = run_in(dir.path(), &args("pp/eu-high-prod", "shop"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "propagationpolicy.policy.karmada.io/eu-high-prod (apps/all.yaml) suspended on all clusters\n"
    );
    assert_eq!(changed(&before, &snapshot(dir.path())), ["apps/all.yaml"]);
    let text = read(dir.path(), "apps/all.yaml");
    let high = text.split("---").nth(2).unwrap();
    assert!(high.contains("name: high-${ENV}"), "{high}");
    assert!(
        high.ends_with("  suspension:\n    dispatching: true\n"),
        "{high}"
    );
}

/// In an Argo CD environment the destination's namespace goes only to objects that write none
/// (Argo CD sets it on those alone): `--env` finds `pp/a -n other` (written `namespace:
/// other`) and `pp/b -n shop` (written without one), and neither in the other namespace.
#[test]
fn env_takes_an_argo_destination_namespace_as_a_default() {
    let dir = copy("testdata/suspend-argo-namespaces");
    let before = snapshot(dir.path());
    for (name, ns) in [("pp/a", "shop"), ("pp/b", "default")] {
        let o = run_in(
            dir.path(),
            &["suspend", "-f", ".", "--env", "karmada", name, "-n", ns],
        );
        assert_eq!(o.status.code(), Some(4), "{name} -n {ns}: {}", stderr(&o));
    }
    assert!(changed(&before, &snapshot(dir.path())).is_empty());
    for (name, ns) in [("pp/a", "other"), ("pp/b", "shop")] {
        let o = run_in(
            dir.path(),
            &["suspend", "-f", ".", "--env", "karmada", name, "-n", ns],
        );
        assert_eq!(o.status.code(), Some(0), "{name} -n {ns}: {}", stderr(&o));
    }
    assert_eq!(
        read(dir.path(), "apps/web/pp.yaml")
            .matches("  suspension:\n    dispatching: true\n")
            .count(),
        2
    );
}

/// A kustomization root a Flux Kustomization applies with a `namePrefix` (which replaces the
/// root's own `dir-`) and a postBuild variable in the name: `--env` finds the policy by the name
/// `explain` gives its owner (`eu-web-prod`) in the target namespace, and by no other name.
#[test]
fn env_finds_a_layer_policy_by_the_name_its_controller_renders() {
    let dir = copy("testdata/suspend-flux-layer-renamed");
    let explain = run_in(
        dir.path(),
        &[
            "explain",
            "deploy/eu-web",
            "-n",
            "shop",
            "-f",
            ".",
            "-o",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&explain.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", stderr(&explain)));
    assert_eq!(v["eventual"]["name"], "eu-web-prod", "{v:#}");
    let before = snapshot(dir.path());
    let args = |name: &'static str, ns: &'static str| {
        ["suspend", "-f", ".", "--env", "karmada", name, "-n", ns]
    };
    for (name, ns) in [
        ("pp/eu-web-prod", "other"),
        ("pp/eu-dir-web-prod", "shop"),
        ("pp/dir-web-prod", "shop"),
        ("pp/web-${ENV}", "shop"),
    ] {
        let o = run_in(dir.path(), &args(name, ns));
        assert_eq!(o.status.code(), Some(4), "{name} -n {ns}: {}", stderr(&o));
    }
    assert!(changed(&before, &snapshot(dir.path())).is_empty());
    let o = run_in(dir.path(), &args("pp/eu-web-prod", "shop"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "propagationpolicy.policy.karmada.io/eu-web-prod (apps/web/all.yaml) suspended on all clusters\n"
    );
    assert_eq!(
        changed(&before, &snapshot(dir.path())),
        ["apps/web/all.yaml"]
    );
}
