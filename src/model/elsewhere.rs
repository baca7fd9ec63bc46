//! The repository's Karmada when the inputs hold none: a lint of one directory, or of the files
//! a pre-commit hook passes, reads the installation (a HelmRelease of the chart, the operator's
//! `Karmada`, a controller-manager Deployment) that the same git repository holds elsewhere, as
//! a lint of the repository's root does. Otherwise `lint clusters/karmada` judges in the
//! release's defaults what `lint .` judges under the repository's gates.
//!
//! Only a repository that installs one Karmada is read so: where its installations differ (a
//! repository of examples, or one per control plane), which one the inputs are applied to is
//! not known, and none is taken (said at `-v=1`). Only files git tracks are read (not build
//! output or vendored trees left untracked), each as the working tree has it. A Helm chart's
//! files are its templates, not manifests: the chart is rendered (`helm template`, as a lint of
//! the root renders it; a revision's chart is written out first) and its output read.

use std::path::Path;

use super::installation::{self, InstallKind, Installation, Origin};
use crate::source::files;
use crate::source::git::{GitRepo, Listed, Place, Side};
use crate::source::kustomize::environments::{self as envs, RenderOptions};

/// How the search reads the repository, as the configuration says: what `ignorePaths` leaves
/// out, and how a chart is rendered (`None`: the configuration turns rendering off).
#[derive(Clone, Copy)]
pub struct Search<'a> {
    pub ignore: &'a dyn Fn(&Path) -> bool,
    pub render: Option<&'a RenderOptions>,
    /// What the search's notes begin with: `the base: ` in the base of a comparison, whose
    /// chart may fail to render where the head's renders.
    pub prefix: &'static str,
}

impl<'a> Search<'a> {
    pub fn new(ignore: &'a dyn Fn(&Path) -> bool, render: Option<&'a RenderOptions>) -> Self {
        Search {
            ignore,
            render,
            prefix: "",
        }
    }

    /// The search of a comparison's base.
    pub fn of_base(self) -> Self {
        Search {
            prefix: "the base: ",
            ..self
        }
    }
}

/// What the rest of the repository installs, when it installs one Karmada.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elsewhere {
    /// The installation (first of those with the same settings) and every karmada-scheduler
    /// Deployment beside it, as [`super::installation::RepositorySettings::of`] takes them.
    pub installations: Vec<Installation>,
}

impl Elsewhere {
    /// The note saying where the settings were taken from.
    pub fn note(&self) -> Option<String> {
        let taken = self
            .installations
            .iter()
            .find(|i| i.kind != InstallKind::Scheduler)
            .or(self.installations.first())?;
        Some(format!(
            "the inputs hold no installation of Karmada; the one elsewhere in their git repository is taken: {} at {}",
            taken.object, taken.at
        ))
    }
}

/// The installations the git repository `paths` (as given: files or directories) lie in holds
/// outside them, as the working tree has them, when it installs one Karmada (see the module
/// docs); `None` when the paths are in no working tree, stdin is among them, or nothing is
/// found. `ignore` is the configuration's `ignorePaths`; files are named as the user reaches
/// them from the current directory.
pub fn outside(paths: &[String], search: Search<'_>) -> Option<Elsewhere> {
    if paths.is_empty() || paths.iter().any(|p| p == "-") {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    // The repository the files are in, not the one the path names them through: a link from
    // outside into a working tree (`/srv/prod -> ~/fleet/clusters/prod`) reads the files of
    // that working tree, as `cd /srv/prod` does.
    let paths: Vec<String> = paths
        .iter()
        .map(|p| match Path::new(p).canonicalize() {
            Ok(real) => real.to_string_lossy().into_owned(),
            Err(_) => p.clone(),
        })
        .collect();
    let first = Path::new(&paths[0]);
    let start = match first.parent() {
        _ if first.is_dir() => first,
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let repo = GitRepo::discover(start).ok()?;
    let specs = repo.pathspecs(&cwd, &paths).ok()?;
    let name = named_from(&cwd, repo.workdir());
    outside_at(&repo, &Side::WorkTree, &specs, search, &name)
}

/// A file of the working tree `workdir` named by its repository path, as the user reaches it
/// from `cwd` (`../infra/karmada.yaml`).
pub fn named_from(cwd: &Path, workdir: &Path) -> impl Fn(&str) -> String + Sync {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let workdir = workdir.to_path_buf();
    move |repo_path: &str| {
        let path = crate::source::kustomize::relative(&cwd, &workdir.join(repo_path));
        files::display_path(&path)
    }
}

/// [`outside`] in one side of `repo` (the working tree, the index or a commit), the inputs
/// given as repository paths (`specs`; none: the whole side, and nothing is outside), each
/// file named by `name` from its repository path, as the mode names its inputs. The working
/// tree's side is the files git tracks, as they are on disk.
pub fn outside_at(
    repo: &GitRepo,
    side: &Side,
    specs: &[String],
    search: Search<'_>,
    name: &(dyn Fn(&str) -> String + Sync),
) -> Option<Elsewhere> {
    if specs.is_empty() || specs.iter().any(String::is_empty) {
        return None;
    }
    let tracked = match side {
        Side::WorkTree => &Side::Index,
        other => other,
    };
    let listing = repo.list(tracked, &[], &|_| false).ok()?;
    let mut candidates: Vec<&Listed> = listing
        .files
        .iter()
        .filter(|f| !specs.iter().any(|s| within(&f.name, s)))
        .filter(|f| !ignored(&name(&f.name), search.ignore))
        .collect();
    // In the order a directory's walk gives (`deploy/` before `deploy.bak/`), not git's: the
    // first installation is the one a lint of the root takes.
    candidates.sort_by(|a, b| Path::new(&a.name).cmp(Path::new(&b.name)));
    let is_dir = |spec: &str| {
        let under = format!("{spec}/");
        listing.files.iter().any(|f| f.name.starts_with(&under))
    };
    let charts = chart_dirs(&candidates, specs, &is_dir);
    let (chart_files, candidates): (Vec<&Listed>, Vec<&Listed>) = candidates
        .into_iter()
        .partition(|f| charts.iter().any(|c| within(&f.name, c)));
    let reader = repo.blob_reader();
    let workdir = repo.workdir();
    // A file that went from the working tree, cannot be read, or is larger than an input may
    // be (`--max-input-size`), installs nothing.
    let file_bytes = |f: &Listed| match &f.place {
        _ if *side == Side::WorkTree => files::read_bytes(&workdir.join(&f.name)).ok().map(|r| r.1),
        Place::File(path) => files::read_bytes(path).ok().map(|r| r.1),
        Place::Blob(oid) => reader
            .bytes(&f.name, *oid)
            .ok()
            .filter(|b| b.len() as u64 <= files::max_input_size()),
    };
    let mut found: Vec<(&str, Vec<Installation>)> = Vec::new();
    crate::util::parallel::each_in_parallel(
        &candidates,
        &|f: &&Listed| -> Result<(&str, Vec<Installation>), ()> {
            let bytes = file_bytes(f);
            let found = bytes.map_or_else(Vec::new, |b| {
                installation::in_text(name(&f.name), String::from_utf8_lossy(&b).into_owned())
            });
            Ok((f.name.as_str(), found))
        },
        &mut |i| found.push(i),
    )
    .ok()?;
    for chart in &charts {
        let files: Vec<(&str, Vec<u8>)> = chart_files
            .iter()
            .filter(|f| within(&f.name, chart))
            .filter_map(|f| Some((f.name.as_str(), file_bytes(f)?)))
            .collect();
        let rendered = match search.render {
            Some(render) if may_install(&files) => {
                chart_installations(repo, side, chart, render, name, search.prefix)
            }
            _ => Vec::new(),
        };
        found.push((chart.as_str(), rendered));
    }
    found.sort_by(|a, b| Path::new(a.0).cmp(Path::new(b.0)));
    Some(Elsewhere {
        installations: one_karmada(found.into_iter().flat_map(|(_, i)| i).collect())?,
    })
}

/// Every file of the chart at repository path `chart` in `side` (a commit or the index),
/// written under a new temporary directory at its repository path.
fn write_chart(
    repo: &GitRepo,
    side: &Side,
    chart: &str,
) -> Result<tempfile::TempDir, crate::source::git::GitError> {
    let dir = tempfile::Builder::new()
        .prefix("karmada-policy-chart-")
        .tempdir()
        .map_err(|source| crate::source::git::GitError::Write {
            dest: std::env::temp_dir(),
            source,
        })?;
    let workdir = repo.workdir();
    // The walk asks of the directories above the chart too: those are kept, to reach it.
    let outside_chart = |p: &Path| {
        let rel = p.strip_prefix(workdir).unwrap_or(p).to_string_lossy();
        !(within(&rel, chart) || within(chart, &rel))
    };
    repo.write_tree(side, &outside_chart, &[chart.to_string()], dir.path())?;
    Ok(dir)
}

/// The Helm charts among `files` (the directories of their `Chart.yaml`, `""` for a chart at
/// the repository's root, a chart's own sub-charts left to it), but a chart the inputs
/// (`specs`) are part of. `is_dir` tells the directories among `specs`.
fn chart_dirs(files: &[&Listed], specs: &[String], is_dir: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut dirs: Vec<String> = files
        .iter()
        .filter_map(|f| match f.name.as_str() {
            "Chart.yaml" => Some(""),
            name => name.strip_suffix("/Chart.yaml"),
        })
        .filter(|dir| !specs.iter().any(|s| part_of_chart(s, dir, is_dir)))
        .map(str::to_string)
        .collect();
    dirs.sort_by(|a, b| Path::new(a).cmp(Path::new(b)));
    let mut top: Vec<String> = Vec::new();
    for dir in dirs {
        if !top.iter().any(|t| within(&dir, t)) {
            top.push(dir);
        }
    }
    top
}

/// Whether the input `spec` is part of the chart at `chart`: the chart itself or a directory
/// above it, what `helm template` renders (`templates/`, `charts/`, `crds/`), or a file of the
/// chart's own (`values.yaml`). An input in another directory of the chart (a chart at the
/// repository's root, and policies in `policies/`) is no part of it: the chart is elsewhere.
fn part_of_chart(spec: &str, chart: &str, is_dir: &dyn Fn(&str) -> bool) -> bool {
    if within(chart, spec) {
        return true;
    }
    if !within(spec, chart) {
        return false;
    }
    let rel = if chart.is_empty() {
        spec
    } else {
        &spec[chart.len() + 1..]
    };
    use crate::source::kustomize::discover::CHART_DIRS;
    match rel.split_once('/') {
        Some((top, _)) => CHART_DIRS.contains(&top),
        None => CHART_DIRS.contains(&rel) || !is_dir(spec),
    }
}

/// Whether a chart's files (repository path and bytes) may render an installation of
/// Karmada: one names karmada-controller-manager, a renamed karmada-scheduler, or a kind that
/// installs Karmada (an umbrella chart templating a HelmRelease of Karmada's chart).
fn may_install(files: &[(&str, Vec<u8>)]) -> bool {
    files
        .iter()
        .any(|(_, b)| installation::may_install(&String::from_utf8_lossy(b)))
}

/// The installations the chart at repository path `chart` renders (`helm template` with its
/// own values and the configuration's values files for it), each located in its template, as
/// a lint of the repository's root locates it. In the working tree the chart renders where it
/// is; at a revision, every file of it (templates, `_helpers.tpl`, values) is written out
/// first, as the git modes write a revision for rendering. None when helm is missing or the
/// chart does not render (said in a note).
fn chart_installations(
    repo: &GitRepo,
    side: &Side,
    chart: &str,
    render: &RenderOptions,
    name: &(dyn Fn(&str) -> String + Sync),
    prefix: &str,
) -> Vec<Installation> {
    use crate::source::kustomize::helm::{release_named_after, Helm, HelmValues};
    use crate::source::kustomize::render::RenderError;
    use crate::source::kustomize::{discover::Repository, origin::Mapper};
    let workdir = repo.workdir();
    // Said at any verbosity, as a lint of the root says a chart it cannot render: the
    // verdicts then fall back to the release's defaults.
    let said = |why: String| {
        // On one line: helm's message spans several (`...\n\nUse --debug flag ...`).
        let why = why.split_whitespace().collect::<Vec<_>>().join(" ");
        crate::util::note(&format!(
            "{prefix}the Helm chart {} may install Karmada and is not read: {why}",
            name(if chart.is_empty() { "." } else { chart })
        ));
    };
    let written = match side {
        Side::WorkTree => None,
        _ => match write_chart(repo, side, chart) {
            Ok(dir) => Some(dir),
            Err(e) => {
                said(e.to_string());
                return Vec::new();
            }
        },
    };
    let root = written.as_ref().map_or(workdir, |w| w.path());
    let dir = root.join(chart);
    let Some(helm) = Helm::find(render.helm.as_deref()) else {
        said("helm is not on PATH".to_string());
        return Vec::new();
    };
    let helm = Helm {
        fetch_dependencies: render.remote_resources,
        confine: Some(root.to_path_buf()),
        ..helm
    };
    let key = crate::source::kustomize::normalize(&workdir.join(chart));
    let values = render.helm_values.get(&key).cloned().unwrap_or_default();
    // Released under the name the chart's directory has in the repository, not the temporary
    // one a revision is written to (the release's objects are named after it); a chart at the
    // root is `release`, as a lint of the root names it.
    let release = HelmValues {
        release: release_named_after(Path::new(chart)),
        files: values,
        ..HelmValues::default()
    };
    let text = match helm.template_with(&dir, &release) {
        Ok(text) => text,
        // helm's own words (the error type's display names kustomize, its other renderer).
        Err(RenderError::Build(message)) => {
            said(format!("helm template failed: {message}"));
            return Vec::new();
        }
        Err(e) => {
            said(e.to_string());
            return Vec::new();
        }
    };
    let rendered = crate::source::kustomize::units::rendered_chart(&dir, &text);
    let repository = Repository::default();
    let mapper = Mapper::new(&repository);
    let source = &rendered.loaded.source;
    // A template's path as the user reaches it (the chart was rendered from its absolute path).
    let shown = |file: &str| match Path::new(file).strip_prefix(root) {
        Ok(rel) => name(&rel.to_string_lossy()),
        Err(_) => file.to_string(),
    };
    rendered
        .loaded
        .documents
        .iter()
        .filter_map(|d| {
            let locate = |span: crate::source::Span| {
                let (file, at) =
                    envs::trace(std::slice::from_ref(&rendered), &mapper, source, span, None)
                        .unwrap_or((source.clone(), span));
                Origin {
                    file: shown(&file.name),
                    line: at.start.line,
                }
            };
            installation::detect(&d.root, &locate)
        })
        .collect()
}

/// Whether `ignorePaths` leaves out the file `path` or a directory above it, as the walk of a
/// directory prunes an ignored directory.
fn ignored(path: &str, ignore: &dyn Fn(&Path) -> bool) -> bool {
    Path::new(path)
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.ends_with(".."))
        .any(ignore)
}

/// Installations a note names at most.
const NAMED: usize = 3;

/// `found` when it installs one Karmada: one installation, or several with the same settings
/// (an overlay's copy), the first of them counting; with the karmada-scheduler Deployments. `None` when
/// nothing is found or the installations differ.
fn one_karmada(found: Vec<Installation>) -> Option<Vec<Installation>> {
    if found.is_empty() {
        return None;
    }
    let (schedulers, installs): (Vec<Installation>, Vec<Installation>) = found
        .into_iter()
        .partition(|i| i.kind == InstallKind::Scheduler);
    if let Some(first) = installs.first() {
        let differing: Vec<&Installation> = installs
            .iter()
            .filter(|i| !same_settings(first, i))
            .collect();
        if !differing.is_empty() {
            if crate::kube::trace::verbosity() >= 1 {
                let named: Vec<String> = std::iter::once(first)
                    .chain(differing)
                    .map(|i| format!("{} at {}", i.object, i.at))
                    .collect();
                let more = match named.len().saturating_sub(NAMED) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                crate::util::note(&format!(
                    "the inputs hold no installation of Karmada, and the rest of their git repository holds {} that differ ({}{more}): none is taken",
                    named.len(),
                    named[..named.len().min(NAMED)].join("; ")
                ));
            }
            return None;
        }
    }
    // Copies too: the settings name the first and say the others are not used, as for the
    // root's files.
    Some(installs.into_iter().chain(schedulers).collect())
}

/// Whether two installations run Karmada alike: the same release, gates and flags, wherever
/// each is written.
fn same_settings(a: &Installation, b: &Installation) -> bool {
    let release = |i: &Installation| i.release.as_ref().map(|s| s.value);
    let values = |m: &std::collections::BTreeMap<String, installation::Setting<bool>>| {
        m.iter()
            .map(|(k, s)| (k.clone(), s.value))
            .collect::<Vec<_>>()
    };
    let skipped = |i: &Installation| i.skipped_namespaces.as_ref().map(|s| s.value.clone());
    let names = |i: &Installation| {
        i.schedulers
            .iter()
            .map(|s| s.value.clone())
            .collect::<Vec<_>>()
    };
    release(a) == release(b)
        && values(&a.gates) == values(&b.gates)
        && values(&a.flags) == values(&b.flags)
        && skipped(a) == skipped(b)
        && names(a) == names(b)
}

/// Whether the repository path `name` is `input` or lies under it.
fn within(name: &str, input: &str) -> bool {
    input.is_empty()
        || name == input
        || name
            .strip_prefix(input)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_under_an_input_is_an_input() {
        assert!(within("clusters/karmada/pp.yaml", "clusters/karmada"));
        assert!(within("clusters/karmada", "clusters/karmada"));
        assert!(within("anything.yaml", ""));
        assert!(!within(
            "clusters/karmada-system/hr.yaml",
            "clusters/karmada"
        ));
        assert!(!within("infra/hr.yaml", "clusters"));
    }

    #[test]
    fn an_ignored_directory_leaves_out_the_files_under_it() {
        let ignore = |p: &Path| p == Path::new("infra") || p == Path::new("../infra");
        assert!(ignored("infra/karmada.yaml", &ignore));
        assert!(!ignored("../infra/karmada.yaml", &|p: &Path| p == Path::new("..")));
        assert!(ignored("../infra/karmada.yaml", &ignore));
        assert!(!ignored("apps/karmada.yaml", &ignore));
    }

    #[test]
    fn a_chart_is_read_whole_but_where_the_inputs_lie_in_it() {
        let listed = |name: &str| Listed {
            name: name.to_string(),
            place: Place::File(name.into()),
        };
        let files: Vec<Listed> = [
            "helm/karmada/Chart.yaml",
            "helm/karmada/templates/kcm.yaml",
            "helm/karmada/charts/common/Chart.yaml",
            "helm/example/Chart.yaml",
            "apps/Chart.yaml.bak",
            "Chart.yaml",
        ]
        .into_iter()
        .map(listed)
        .collect();
        let refs: Vec<&Listed> = files.iter().collect();
        let dirs = |specs: &[&str]| {
            let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
            let is_dir = |spec: &str| !spec.ends_with(".yaml");
            chart_dirs(&refs, &specs, &is_dir)
        };
        let without_root = |specs: &[&str]| {
            let refs: Vec<&Listed> = files.iter().filter(|f| f.name != "Chart.yaml").collect();
            let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
            chart_dirs(&refs, &specs, &|spec: &str| !spec.ends_with(".yaml"))
        };
        // A sub-chart is its chart's; a chart the inputs are part of is not elsewhere.
        assert_eq!(without_root(&["helm/example/templates"]), ["helm/karmada"]);
        assert_eq!(
            without_root(&["helm/example/values.yaml"]),
            ["helm/karmada"]
        );
        assert_eq!(without_root(&["helm"]), Vec::<String>::new());
        assert_eq!(without_root(&["apps"]), ["helm/example", "helm/karmada"]);
        // A chart at the root holds the whole repository, but inputs in a directory of its
        // own are no part of what it renders.
        assert_eq!(dirs(&["apps"]), [""]);
        assert_eq!(dirs(&["apps/pp.yaml"]), [""]);
        assert_eq!(
            dirs(&["templates/kcm.yaml"]),
            ["helm/example", "helm/karmada"]
        );
        assert_eq!(dirs(&["values.yaml"]), ["helm/example", "helm/karmada"]);
        // An example directory in a chart is no part of it either.
        assert_eq!(
            without_root(&["helm/example/examples"]),
            ["helm/example", "helm/karmada"]
        );
    }

    fn installed_in(text: &str) -> Vec<Installation> {
        installation::in_text("i.yaml".into(), text.into())
    }

    const CHART: &str = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  chart:\n    spec: {chart: karmada, version: v1.17.0}\n  values:\n    controllerManager:\n      featureGates: {Failover: true}\n";

    #[test]
    fn one_installation_or_copies_of_it_are_taken_and_differing_ones_are_not() {
        let one = installed_in(CHART);
        assert_eq!(one_karmada(one.clone()).map(|v| v.len()), Some(1));
        let copies: Vec<Installation> = one.iter().chain(&one).cloned().collect();
        assert_eq!(one_karmada(copies).map(|v| v.len()), Some(2));
        let other = installed_in(&CHART.replace("Failover: true", "Failover: false"));
        let differing: Vec<Installation> = one.iter().chain(&other).cloned().collect();
        assert_eq!(one_karmada(differing), None);
        assert_eq!(one_karmada(Vec::new()), None);
    }
}
