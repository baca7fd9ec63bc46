//! What a GitOps repository holds: its kustomizations and what each references, which of them
//! are roots (what a controller applies), Helm charts, and the files outside all of them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{normalize, Kustomization};
use crate::source::files;
use crate::source::{Loaded, Node};

/// File names kustomize accepts for a kustomization, in its order of preference.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The repository as kustomize, Helm and the plain-manifest reader see it.
#[derive(Debug, Default)]
pub struct Repository {
    /// Every kustomization, by directory.
    pub kustomizations: BTreeMap<PathBuf, Kustomization>,
    /// Kustomizations no other kustomization references (components never are).
    pub roots: Vec<PathBuf>,
    /// Directories holding a `Chart.yaml`.
    pub charts: Vec<PathBuf>,
    /// Files outside every kustomization and chart: plain manifests, linted as they are.
    pub plain: Vec<PathBuf>,
    /// Files a kustomization or chart owns (resources, patches, generator inputs, templates):
    /// they are linted through a render, never on their own.
    pub covered: BTreeSet<PathBuf>,
    /// Kustomization files that could not be read, with the reason.
    pub unreadable: Vec<(PathBuf, String)>,
}

impl Repository {
    /// Whether there is anything to render: otherwise every file is a plain manifest.
    pub fn needs_rendering(&self) -> bool {
        !self.kustomizations.is_empty() || !self.charts.is_empty()
    }

    /// The kustomization directories `dir` builds on, itself first and then (depth first) its
    /// resources' and components' kustomizations: the outermost layer comes first, so the first
    /// patch found for a field is the one applied last.
    pub fn closure(&self, dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        self.collect_closure(dir, &mut out);
        out
    }

    fn collect_closure(&self, dir: &Path, out: &mut Vec<PathBuf>) {
        if out.iter().any(|d| d == dir) {
            return;
        }
        let Some(k) = self.kustomizations.get(dir) else {
            return;
        };
        out.push(dir.to_path_buf());
        // Components are applied after the resources, so they come before the bases here.
        for c in k.components.iter().rev() {
            self.collect_closure(c, out);
        }
        for r in &k.resource_dirs {
            self.collect_closure(r, out);
        }
    }

    /// The roots whose render includes `dir` (a root includes itself).
    pub fn roots_including(&self, dir: &Path) -> Vec<PathBuf> {
        self.roots
            .iter()
            .filter(|r| self.closure(r).iter().any(|d| d == dir))
            .cloned()
            .collect()
    }
}

/// The directories of a chart `helm template` reads: its templates, its sub-charts and its
/// CRDs (with its own files beside `Chart.yaml`).
pub const CHART_DIRS: [&str; 3] = ["templates", "charts", "crds"];

/// Whether `file` is one of the chart's in `chart`: beside its `Chart.yaml` (values files) or
/// under the directories helm reads ([`CHART_DIRS`], and `_` ones). A file in another directory of it (a
/// repository whose root is a chart, with policies in `policies/`; `examples/`) is not, unless
/// the templates read files (`.Files`): helm renders none of it, and it is read as the
/// plain manifest it is.
pub fn chart_renders(chart: &Path, file: &Path) -> bool {
    let Ok(rest) = file.strip_prefix(chart) else {
        return false;
    };
    let mut parts = rest.components();
    match (parts.next(), parts.next()) {
        (Some(_), None) => true,
        // `_crds/` and the like: kept for the templates by the underscore helm gives
        // partials (Karmada's chart reads its CRDs from `_crds/`); chart-testing's `ci/`
        // values, helm-unittest's `tests/`, the conventional `files/`, `examples/` and `docs/`
        // (values and snippets of the chart's, not manifests of their own).
        (Some(top), Some(_)) => {
            let top = top.as_os_str().to_string_lossy();
            CHART_DIRS.contains(&top.as_ref())
                || ["ci", "tests", "files", "examples", "docs"].contains(&top.as_ref())
                || top.starts_with('_')
                || top.starts_with('.')
        }
        (None, _) => false,
    }
}

/// Whether the templates of the chart in `dir` read its files (`.Files`): then any file of it
/// may be one they read, and none is taken for a manifest of its own.
fn reads_files(dir: &Path) -> bool {
    fn walk(dir: &Path, depth: usize) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        entries.flatten().any(|e| {
            let path = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() && depth < 8 => walk(&path, depth + 1),
                Ok(t) if t.is_file() => {
                    std::fs::read(&path).is_ok_and(|b| b.windows(6).any(|w| w == b".Files"))
                }
                _ => false,
            }
        })
    }
    // A sub-chart's templates read its own files (helm gives each chart its own), but a
    // library chart's helpers run in the context of the chart that includes them, and read
    // that chart's files. (A library chart packaged as a `.tgz` is not looked into.)
    let library = |sub: &Path| {
        std::fs::read_to_string(sub.join("Chart.yaml"))
            .is_ok_and(|t| t.lines().any(|l| l.trim() == "type: library"))
    };
    let sub_charts = || -> Vec<PathBuf> {
        std::fs::read_dir(dir.join("charts"))
            .map(|e| e.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    walk(&dir.join("templates"), 0)
        || sub_charts()
            .iter()
            .any(|sub| library(sub) && walk(&sub.join("templates"), 0))
}

/// Finds the kustomizations and charts among `inputs` (the files `lint` would read) and sorts
/// the files into covered and plain. Kustomization files are parsed here; nothing is rendered.
pub fn discover(inputs: &[PathBuf]) -> Repository {
    let mut repo = Repository::default();
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    for f in inputs {
        if let Some(parent) = f.parent() {
            dirs.insert(normalize(parent));
        }
    }
    for dir in &dirs {
        if dir.join("Chart.yaml").is_file() {
            repo.charts.push(dir.clone());
        }
        let Some(file) = kustomization_file(dir) else {
            continue;
        };
        match read_kustomization(dir, &file) {
            Ok(Some(k)) => {
                repo.kustomizations.insert(dir.clone(), k);
            }
            Ok(None) => {}
            Err(e) => repo.unreadable.push((file, e)),
        }
    }
    // A chart inside another chart (charts/ of a parent) is rendered by its parent.
    let all_charts = repo.charts.clone();
    repo.charts
        .retain(|c| !all_charts.iter().any(|p| p != c && c.starts_with(p)));
    let mut referenced = BTreeSet::new();
    for k in repo.kustomizations.values() {
        referenced.extend(k.resource_dirs.iter().cloned());
        referenced.extend(k.components.iter().cloned());
        repo.covered.insert(k.file.clone());
        repo.covered.extend(k.files.iter().cloned());
        // A file a kustomization lists only in a comment is switched off, not a manifest
        // applied on its own: kubebuilder's CRD patches (config/crd/patches) are partial CRDs.
        repo.covered.extend(k.disabled_files.iter().cloned());
    }
    // What a chart holds: every file under it, but for a chart at the top of what is linted
    // (a repository whose root is a chart, with its policies beside it) whose templates read
    // no file (`.Files.Get`, `.Files.Glob`: Karmada's chart reads its `_crds/`), only what
    // helm reads. A chart below the top is a copy of one (vendored, or a chart repository's),
    // whose other directories are its own (tests, examples).
    let normalized: Vec<PathBuf> = inputs.iter().map(|f| normalize(f)).collect();
    let at_top = |c: &PathBuf| normalized.iter().all(|f| f.starts_with(c));
    let only_rendered: BTreeSet<&PathBuf> = repo
        .charts
        .iter()
        .filter(|c| at_top(c) && !reads_files(c))
        .collect();
    let holds = |c: &PathBuf, f: &Path| match only_rendered.contains(c) {
        true => chart_renders(c, f),
        false => f.starts_with(c),
    };
    // A kustomization inside a chart is one of the chart's files (rendered by Helm, often
    // holding `{{ }}`), not a root.
    let in_chart = |d: &Path| repo.charts.iter().any(|c| holds(c, &d.join("x")));
    repo.roots = repo
        .kustomizations
        .values()
        .filter(|k| !k.is_component && !referenced.contains(&k.dir) && !in_chart(&k.dir))
        .map(|k| k.dir.clone())
        .collect();
    for f in inputs {
        let f = normalize(f);
        let parent = f.parent().map(normalize).unwrap_or_default();
        // A file beside a kustomization is its business: kustomize applies only what it lists.
        let owned = repo.covered.contains(&f)
            || repo.kustomizations.contains_key(&parent)
            || repo.charts.iter().any(|c| holds(c, &f));
        if owned {
            repo.covered.insert(f);
        } else {
            repo.plain.push(f);
        }
    }
    repo
}

/// Whether `files` hold kustomizations or charts to render, or Flux `Kustomization` / Argo CD
/// `Application` objects that say which paths a cluster applies (else they are read as plain
/// manifests).
pub fn holds_rendering(files: &[PathBuf]) -> bool {
    // Every file is read for the API groups: on all cores, as the lint after it reads them.
    // A file that declares environments is the pool's "error", which stops it.
    let declares = |f: &PathBuf| {
        if declares_environments(f) {
            Err(())
        } else {
            Ok(())
        }
    };
    holds_by_name(files)
        || crate::util::parallel::each_in_parallel(files, &declares, &mut |()| {}).is_err()
}

/// Whether `file` defines a Flux Kustomization or an Argo CD Application or ApplicationSet: a
/// repository of cluster directories whose paths are plain manifests has no kustomization, and
/// read as one set of manifests its clusters' copies of an object clash. Only a file that
/// names either API group is parsed (labels such as `kustomize.toolkit.fluxcd.io/name` on
/// applied objects name it too); anything but a regular file is left alone, as reading a pipe
/// here would take its content from the real read.
fn declares_environments(file: &Path) -> bool {
    if !std::fs::metadata(file).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok((_, bytes)) = files::read_bytes(file) else {
        return false;
    };
    let groups = GroupsNamed::in_text(&bytes);
    if groups.none() {
        return false;
    }
    groups.declared_in(&files::load_bytes(file.display().to_string(), bytes), file)
}

/// [`holds_rendering`]'s reading of one file, for a caller that has already read and parsed
/// it (`lint` reads each file once: [`holds_by_name`] first, then this as each file is
/// parsed). `file` must be the path it was read from; a file that is not a regular file
/// (a pipe) never declares, as [`holds_rendering`] leaves it unread.
pub fn declares_environments_in(loaded: &Loaded, file: &Path) -> bool {
    let groups = GroupsNamed::in_documents(loaded);
    !groups.none()
        && std::fs::metadata(file).is_ok_and(|m| m.is_file())
        && groups.declared_in(loaded, file)
}

/// Which of the Flux and Argo CD API groups a file's text names: only a file that names one
/// is parsed for its objects. (Decoding keeps every ASCII run, so its bytes and its text
/// name the same groups.)
struct GroupsNamed {
    flux: bool,
    argo: bool,
}

impl GroupsNamed {
    fn in_text(text: &[u8]) -> GroupsNamed {
        let names = |group: &str| memchr::memmem::find(text, group.as_bytes()).is_some();
        GroupsNamed {
            flux: names(super::flux::API_GROUP),
            argo: names(super::argo::API_GROUP),
        }
    }

    /// The same question of a parsed file, asked of its documents' `apiVersion`: the
    /// top-level objects are all [`GroupsNamed::declared_in`] reads, and a file's text
    /// searched twice for the groups cost more than its few hundred roots looked at.
    fn in_documents(loaded: &Loaded) -> GroupsNamed {
        let mut groups = GroupsNamed {
            flux: false,
            argo: false,
        };
        for d in &loaded.documents {
            let Some(api) = d.root.get("apiVersion").and_then(Node::as_str) else {
                continue;
            };
            groups.flux |= api.starts_with(super::flux::API_GROUP);
            groups.argo |= api.starts_with(super::argo::API_GROUP);
        }
        groups
    }

    fn none(&self) -> bool {
        !self.flux && !self.argo
    }

    /// Whether `loaded` defines a Flux Kustomization or an Argo CD Application(Set).
    fn declared_in(&self, loaded: &Loaded, file: &Path) -> bool {
        (self.flux && !super::flux::find(loaded, file).is_empty())
            || (self.argo && super::argo::declares(loaded))
    }
}

/// Whether a file's name makes `files` a repository to render: a kustomization (or a
/// `Kustomization` beside one of them) or a Helm chart.
pub fn holds_by_name(files: &[PathBuf]) -> bool {
    files.iter().any(|f| {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        KUSTOMIZATION_FILES.contains(&name.as_ref()) || name == "Chart.yaml"
    }) || files
        .iter()
        .filter_map(|f| f.parent())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .any(|d| d.join("Kustomization").is_file())
}

/// The kustomization file of `dir`, if it has one.
pub fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

/// Parses the kustomization at `file`. `Ok(None)` for a file of that name that is something
/// else (a Flux `Kustomization` object).
fn read_kustomization(dir: &Path, file: &Path) -> Result<Option<Kustomization>, String> {
    let loaded = files::read(file).map_err(|e| e.to_string())?;
    let Some(doc) = loaded.documents.first() else {
        return Ok(None);
    };
    let api_version = doc
        .root
        .get("apiVersion")
        .and_then(Node::as_str)
        .unwrap_or("");
    if api_version.contains("fluxcd.io") {
        return Ok(None);
    }
    Ok(Some(Kustomization::from_tree(dir, file, Arc::new(loaded))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flux_and_argo_cd_objects_make_a_repository_of_environments() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            vec![p]
        };
        let flux = file(
            "apps.yaml",
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps}\nspec: {path: ./apps}\n",
        );
        let app = file(
            "app.json",
            r#"{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": {"name": "a"}, "spec": {}}"#,
        );
        assert!(holds_rendering(&flux));
        assert!(holds_rendering(&app));
        // Objects Flux applied carry its labels; Argo Rollouts share Argo CD's API group.
        let labelled = file(
            "deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {kustomize.toolkit.fluxcd.io/name: apps}\n",
        );
        let rollout = file(
            "rollout.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: web}\n",
        );
        assert!(!holds_rendering(&labelled));
        assert!(!holds_rendering(&rollout));
        // A caller that parsed the file already gets the same answer without reading it again.
        for (files, declares) in [
            (flux, true),
            (app, true),
            (labelled, false),
            (rollout, false),
        ] {
            let loaded = files::read(&files[0]).unwrap();
            assert_eq!(
                declares_environments_in(&loaded, &files[0]),
                declares,
                "{files:?}"
            );
        }
    }

    /// Writes `files` (path, text) under a temporary directory and discovers it as `lint DIR`
    /// would; the directory lives as long as the returned guard.
    fn discovered(files: &[(&str, &str)]) -> (tempfile::TempDir, Repository) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let inputs = files::expand(&[dir.path().display().to_string()], &|_| false).unwrap();
        let repo = discover(&inputs);
        (dir, repo)
    }

    #[test]
    fn a_chart_holds_what_helm_renders_and_what_its_templates_may_read() {
        let files = [
            ("Chart.yaml", "name: fleet\n"),
            ("values.yaml", "a: 1\n"),
            ("templates/kcm.yaml", "a: {{ .Values.a }}\n"),
            ("crds/crd.yaml", "kind: CustomResourceDefinition\n"),
            ("_crds/kustomization.yaml", "resources: [crd.yaml]\n"),
            ("_crds/crd.yaml", "kind: CustomResourceDefinition\n"),
            ("policies/pp.yaml", "kind: PropagationPolicy\n"),
        ];
        let (dir, repo) = discovered(&files);
        let rel = |p: &Path| p.strip_prefix(dir.path()).unwrap().display().to_string();
        // A repository whose root is a chart keeps its policies beside it, as plain manifests.
        assert_eq!(
            repo.plain.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            ["policies/pp.yaml"]
        );
        assert!(repo.roots.is_empty(), "{:?}", repo.roots);
        // Templates that read files may read any of them: none is a manifest of its own.
        let mut reading = files.to_vec();
        reading[2] = (
            "templates/kcm.yaml",
            "{{ .Files.Get \"policies/pp.yaml\" }}\n",
        );
        let (_dir, repo) = discovered(&reading);
        assert!(repo.plain.is_empty(), "{:?}", repo.plain);
        // Nor where a library sub-chart's helpers read them; another sub-chart reads its own.
        let mut library = files.to_vec();
        library.push(("charts/lib/Chart.yaml", "name: lib\ntype: library\n"));
        library.push((
            "charts/lib/templates/_h.tpl",
            "{{ $.Files.Glob \"policies/*\" }}\n",
        ));
        let (_dir, repo) = discovered(&library);
        assert!(repo.plain.is_empty(), "{:?}", repo.plain);
        let mut own = files.to_vec();
        own.push(("charts/dash/Chart.yaml", "name: dash\n"));
        own.push((
            "charts/dash/templates/cm.yaml",
            "{{ .Files.Glob \"dashboards/*\" }}\n",
        ));
        let (_dir, repo) = discovered(&own);
        assert_eq!(repo.plain.len(), 1, "{:?}", repo.plain);
        // Chart tooling's directories are the chart's: chart-testing's values, examples.
        let mut tooling = files.to_vec();
        tooling.push(("ci/ds-values.yaml", "kind: DaemonSet\n"));
        tooling.push(("examples/snippet.yaml", "name: {{ .Release.Name }}\n"));
        let (dir, repo) = discovered(&tooling);
        let rel = |p: &Path| p.strip_prefix(dir.path()).unwrap().display().to_string();
        assert_eq!(
            repo.plain.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            ["policies/pp.yaml"]
        );
        // A chart below the top of what is linted (vendored) keeps every file of it.
        let nested: Vec<(String, &str)> = files
            .iter()
            .map(|(name, text)| (format!("vendor/fleet/{name}"), *text))
            .chain([("apps/app.yaml".to_string(), "kind: ConfigMap\n")])
            .collect();
        let nested: Vec<(&str, &str)> = nested.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let (dir, repo) = discovered(&nested);
        let rel = |p: &Path| p.strip_prefix(dir.path()).unwrap().display().to_string();
        assert_eq!(
            repo.plain.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            ["apps/app.yaml"]
        );
    }

    #[test]
    fn files_a_kustomization_lists_only_in_comments_are_switched_off_not_plain() {
        // kubebuilder's config/crd: its optional CRD patches are listed commented out.
        let crd = "kind: CustomResourceDefinition\n";
        let (dir, repo) = discovered(&[
            (
                "crd/kustomization.yaml",
                "resources:\n- bases/crd.yaml\npatchesStrategicMerge:\n# patches for the conversion webhook\n#- patches/webhook_in_x.yaml\npatches:\n# - path: patches/cainjection_in_x.yaml\n#- see https://example.com/a.yaml\n",
            ),
            ("crd/bases/crd.yaml", crd),
            ("crd/patches/webhook_in_x.yaml", crd),
            ("crd/patches/cainjection_in_x.yaml", crd),
            ("crd/extra/pp.yaml", "kind: PropagationPolicy\n"),
        ]);
        let root = dir.path();
        let rel = |p: &Path| p.strip_prefix(root).unwrap().display().to_string();
        assert_eq!(
            repo.plain.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            ["crd/extra/pp.yaml"]
        );
        for f in [
            "crd/patches/webhook_in_x.yaml",
            "crd/patches/cainjection_in_x.yaml",
        ] {
            assert!(repo.covered.contains(&normalize(&root.join(f))), "{f}");
        }
    }

    #[test]
    fn roots_patches_and_plain_files_are_told_apart() {
        let (dir, repo) = discovered(&[
            ("base/kustomization.yaml", "resources: [pp.yaml]\n"),
            ("base/pp.yaml", "kind: PropagationPolicy\n"),
            (
                "comp/kustomization.yaml",
                "kind: Component\nresources: [op.yaml]\n",
            ),
            ("comp/op.yaml", "kind: OverridePolicy\n"),
            (
                "prod/kustomization.yaml",
                "resources: [../base]\ncomponents: [../comp]\npatches:\n  - path: p.yaml\n  - patch: |-\n      - op: add\n",
            ),
            ("prod/p.yaml", "kind: PropagationPolicy\n"),
            ("plain/cpp.yaml", "kind: ClusterPropagationPolicy\n"),
            ("chart/Chart.yaml", "name: c\n"),
            ("chart/templates/t.yaml", "a: {{ .x }}\n"),
        ]);
        let root = dir.path();
        let rel = |p: &Path| p.strip_prefix(root).unwrap().display().to_string();
        assert_eq!(
            repo.roots.iter().map(|r| rel(r)).collect::<Vec<_>>(),
            ["prod"]
        );
        assert_eq!(
            repo.plain.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            ["plain/cpp.yaml"]
        );
        assert_eq!(
            repo.charts.iter().map(|c| rel(c)).collect::<Vec<_>>(),
            ["chart"]
        );
        let prod = &repo.kustomizations[&normalize(&root.join("prod"))];
        assert_eq!(prod.patches.len(), 2);
        assert!(matches!(
            &prod.patches[1].body,
            super::super::PatchBody::Inline {
                line: 6,
                col: 7,
                ..
            }
        ));
        let closure: Vec<_> = repo
            .closure(&normalize(&root.join("prod")))
            .iter()
            .map(|d| rel(d))
            .collect();
        assert_eq!(closure, ["prod", "comp", "base"]);
    }
}
