//! Helm charts: a directory with `Chart.yaml`. With `helm` available its templates are
//! rendered (`helm template`) and each rendered document is traced back to its template through
//! the `# Source:` comment Helm writes above it; without helm the chart is skipped with a note.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::render::{on_path, RenderError};
use crate::source::{files, Span, Value};

/// How to run Helm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Helm {
    /// The program and leading arguments (`["helm"]`); `template NAME DIR -f VALUES...` follows.
    pub command: Vec<String>,
    /// `gitops.remoteResources`: a chart whose dependencies are not in its `charts/` has them
    /// fetched (`helm dependency build`, in a copy: the repository is not written to), as
    /// Flux's source-controller and Argo CD's repo-server do before they render it.
    pub fetch_dependencies: bool,
    /// The repository, when a chart's `file://` dependencies must lie inside it: the linter
    /// runs on untrusted pull requests and reads nothing outside the repository (as kustomize
    /// builds are confined, [`super::confine`]).
    pub confine: Option<PathBuf>,
}

impl Helm {
    /// The configured command, else `helm` when on PATH.
    pub fn find(configured: Option<&str>) -> Option<Helm> {
        // An empty setting is no setting.
        let command: Vec<String> = match configured.filter(|c| !c.trim().is_empty()) {
            Some(c) => c.split_whitespace().map(str::to_string).collect(),
            None if on_path("helm") => vec!["helm".into()],
            None => return None,
        };
        (!command.is_empty()).then_some(Helm {
            command,
            fetch_dependencies: false,
            confine: None,
        })
    }

    /// `helm template` of the chart in `dir` (release named after the directory), with its own
    /// `values.yaml` and then `values` files.
    pub fn template(&self, dir: &Path, values: &[PathBuf]) -> Result<String, RenderError> {
        self.template_with(
            dir,
            &HelmValues {
                release: release_named_after(dir),
                files: values.to_vec(),
                ..HelmValues::default()
            },
        )
    }

    /// `helm template RELEASE DIR` with the values a HelmRelease or an Argo CD Helm source
    /// gives: values files in order, then the inline values (each written to a temporary file,
    /// merged after the files as Flux and Argo CD merge them), then `--set` parameters.
    pub fn template_with(&self, dir: &Path, v: &HelmValues) -> Result<String, RenderError> {
        match self.template_here(dir, v) {
            // Flux's source-controller and Argo CD's repo-server build a chart's dependencies
            // before they render it: those of the repository itself (`file://`) always, those
            // of a chart repository only where the configuration lets the network be reached.
            Err(RenderError::Build(m))
                if lacks_dependencies(&m) && (self.fetch_dependencies || !fetches_remote(dir)) =>
            {
                self.template_fetching(dir, v)
            }
            rendered => rendered,
        }
    }

    /// [`Helm::template_with`] of a copy of the chart whose dependencies `helm dependency
    /// build` fetched first.
    fn template_fetching(&self, dir: &Path, v: &HelmValues) -> Result<String, RenderError> {
        let run_error = |message: String| RenderError::Run {
            command: self.command.join(" "),
            message,
        };
        let copy = tempfile::Builder::new()
            .prefix("karmada-policy-chart-")
            .tempdir()
            .map_err(|e| run_error(e.to_string()))?;
        let name = dir.file_name().unwrap_or(std::ffi::OsStr::new("chart"));
        let chart = copy.path().join(name);
        copy_dir(super::as_dir(dir), &chart).map_err(|e| run_error(e.to_string()))?;
        // The copy's `file://` dependencies name the repository's charts where they are.
        let lists = chart.join("Chart.yaml");
        let dependencies = chart_dependencies(&lists);
        let absolute = std::path::absolute(super::as_dir(dir)).unwrap_or_default();
        if let Some(root) = &self.confine {
            outside(&dependencies, &absolute, root, dir)?;
        }
        if let Some(json) = local_dependencies_at(&lists, &absolute) {
            std::fs::write(&lists, json).map_err(|e| run_error(e.to_string()))?;
        }
        let mut build = Command::new(&self.command[0]);
        build.args(&self.command[1..]).args(["dependency", "build"]);
        if !self.fetch_dependencies {
            // Only local dependencies: no repository index is refreshed from the network.
            build.arg("--skip-refresh");
        }
        let out = build
            .arg(&chart)
            .output()
            .map_err(|e| run_error(e.to_string()))?;
        if !out.status.success() {
            let message = String::from_utf8_lossy(&out.stderr)
                .trim()
                .trim_start_matches("Error: ")
                .replace(&format!("{}/", copy.path().display()), "");
            return Err(RenderError::Build(format!(
                "helm dependency build: {message}"
            )));
        }
        self.template_here(&chart, v)
    }

    fn template_here(&self, dir: &Path, v: &HelmValues) -> Result<String, RenderError> {
        let run_error = |message: String| RenderError::Run {
            command: self.command.join(" "),
            message,
        };
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..])
            .arg("template")
            .arg(if v.release.is_empty() {
                "release"
            } else {
                &v.release
            })
            .arg(super::as_dir(dir));
        if let Some(ns) = &v.namespace {
            cmd.arg("--namespace").arg(ns);
        }
        for f in &v.files {
            cmd.arg("-f").arg(f);
        }
        let inline_dir = tempfile::Builder::new()
            .prefix("karmada-policy-values-")
            .tempdir()
            .map_err(|e| run_error(e.to_string()))?;
        for (i, text) in v.inline.iter().enumerate() {
            let file = inline_dir.path().join(format!("values-{i}.yaml"));
            std::fs::write(&file, text).map_err(|e| run_error(e.to_string()))?;
            cmd.arg("-f").arg(file);
        }
        for (name, value, string) in &v.set {
            cmd.arg(if *string { "--set-string" } else { "--set" })
                .arg(format!("{name}={value}"));
        }
        let out = cmd.output().map_err(|e| run_error(e.to_string()))?;
        if !out.status.success() {
            let message = String::from_utf8_lossy(&out.stderr);
            let message = message
                .trim()
                .trim_start_matches("Error: ")
                .replace(&format!("{}/", inline_dir.path().display()), "");
            return Err(RenderError::Build(message));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// Whether helm's error says dependencies `Chart.yaml` lists are not in `charts/`.
fn lacks_dependencies(message: &str) -> bool {
    message.contains("missing in charts/ directory")
}

/// A dependency `Chart.yaml` lists: its name (and where it is), and where it comes from (and
/// where that is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    pub name: String,
    pub span: Span,
    pub repository: Option<(String, Span)>,
}

impl Dependency {
    /// Whether helm fetches it from the network: a chart repository's URL (`https://`, an OCI
    /// registry) or a repository added by name (`@name`, `alias:name`); `file://` and no
    /// repository are the repository's own charts.
    pub fn is_remote(&self) -> bool {
        self.repository.as_ref().is_some_and(|(r, _)| {
            let r = r.trim();
            !r.is_empty() && !r.starts_with("file://")
        })
    }

    /// The path of a `file://` dependency, as written.
    fn local_path(&self) -> Option<&str> {
        self.repository.as_ref()?.0.trim().strip_prefix("file://")
    }
}

/// The directories of the `file://` dependencies of the chart in `dir` (charts of the
/// repository itself, which `helm dependency build` copies in), and of theirs.
pub fn local_dependencies(dir: &Path) -> Vec<PathBuf> {
    let top = super::normalize(dir);
    let mut out: Vec<PathBuf> = Vec::new();
    let mut todo = vec![top.clone()];
    while let Some(chart) = todo.pop() {
        for dep in chart_dependencies(&chart.join("Chart.yaml")) {
            let Some(path) = dep.local_path() else {
                continue;
            };
            let found = super::normalize(&chart.join(path));
            // A cycle, or a chart met twice, is read once.
            if !out.contains(&found) && found != top && out.len() < 64 {
                out.push(found.clone());
                todo.push(found);
            }
        }
    }
    out
}

/// The dependencies the `Chart.yaml` at `chart_file` lists, block or flow style (empty when it
/// cannot be read).
pub fn chart_dependencies(chart_file: &Path) -> Vec<Dependency> {
    let Ok(loaded) = files::read(chart_file) else {
        return Vec::new();
    };
    let entries = loaded
        .documents
        .first()
        .and_then(|d| d.root.get("dependencies"));
    let Some(Value::Seq(entries)) = entries.map(|e| &e.value) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|d| {
            let name = d.get("name")?;
            Some(Dependency {
                name: name.as_str()?.to_string(),
                span: name.span,
                repository: d
                    .get("repository")
                    .and_then(|r| Some((r.as_str()?.to_string(), r.span))),
            })
        })
        .collect()
}

/// Whether the chart in `dir` lists a dependency from a chart repository, which `helm
/// dependency build` fetches from the network.
fn fetches_remote(dir: &Path) -> bool {
    chart_dependencies(&super::as_dir(dir).join("Chart.yaml"))
        .iter()
        .any(Dependency::is_remote)
}

/// The refusal of a `file://` dependency of the chart in `dir` (at `absolute`) that lies outside
/// the repository `root`, symbolic links resolved: nothing outside it is read.
fn outside(
    dependencies: &[Dependency],
    absolute: &Path,
    root: &Path,
    dir: &Path,
) -> Result<(), RenderError> {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    for d in dependencies {
        let (Some(path), Some((_, span))) = (d.local_path(), &d.repository) else {
            continue;
        };
        let target = super::normalize(&absolute.join(path));
        let resolved = super::resolve_links(&target);
        if !resolved.starts_with(&root) {
            return Err(RenderError::Refused(super::confine::Refusal {
                file: super::as_dir(dir).join("Chart.yaml"),
                span: *span,
                reference: format!("file://{path}"),
                remote: false,
            }));
        }
    }
    Ok(())
}

/// The `Chart.yaml` at `chart_file` with each relative `file://` repository made absolute from
/// the chart's directory `dir`, so that a copy of the chart elsewhere finds them: as JSON, which
/// helm reads as YAML. `None` when it names none (or cannot be read).
fn local_dependencies_at(chart_file: &Path, dir: &Path) -> Option<String> {
    let loaded = files::read(chart_file).ok()?;
    let mut chart = loaded.documents.first()?.root.to_json();
    let mut moved = false;
    for d in chart.get_mut("dependencies")?.as_array_mut()? {
        let Some(repository) = d.get_mut("repository") else {
            continue;
        };
        let relative = repository
            .as_str()
            .and_then(|r| r.trim().strip_prefix("file://"))
            .filter(|p| !p.starts_with('/'));
        if let Some(path) = relative {
            let at = super::normalize(&dir.join(path));
            *repository = serde_json::Value::String(format!("file://{}", at.display()));
            moved = true;
        }
    }
    moved.then(|| chart.to_string())
}

/// A copy of the directory `from` at `to` (files and directories; symbolic links are not
/// followed: a chart's own files are what helm reads).
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// The release name `helm template` of the chart in `dir` takes: the directory's name, made a
/// name helm accepts (a DNS-1123 subdomain of at most 53 characters, helm's
/// `chartutil.ValidateReleaseName`), as a chart in `My_Charts/` needs; `release` for `.`.
pub fn release_named_after(dir: &Path) -> String {
    // `.` (a chart at the root of what is linted) is `release`, whatever the directory is
    // called: a revision is written out under a temporary name, and both sides of a
    // comparison must name the release's objects alike.
    let name: String = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default()
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '-' | '.' => c,
            _ => '-',
        })
        .take(53)
        .collect();
    let name = name.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    if name.is_empty() {
        "release".to_string()
    } else {
        name.to_string()
    }
}

/// The values of one chart rendering.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HelmValues {
    /// The release name (`.Release.Name`).
    pub release: String,
    /// The release namespace (`.Release.Namespace`, and where namespaced objects go).
    pub namespace: Option<String>,
    /// Values files (paths), merged after the chart's own `values.yaml`, in order.
    pub files: Vec<PathBuf>,
    /// Inline values (YAML text), merged after the files.
    pub inline: Vec<String>,
    /// `--set NAME=VALUE` (`true`: `--set-string`).
    pub set: Vec<(String, String, bool)>,
}

/// The template file a `# Source: CHART/templates/x.yaml` comment names, inside the chart at
/// `chart_dir` (the first segment is the chart's name; subcharts keep their `charts/` path).
pub fn source_file(comment_path: &str, chart_dir: &Path) -> PathBuf {
    let inside = comment_path
        .split_once('/')
        .map_or(comment_path, |(_, rest)| rest);
    super::normalize(&chart_dir.join(inside))
}

/// The path of a `# Source:` comment line.
pub fn source_comment(line: &str) -> Option<&str> {
    line.trim_start()
        .strip_prefix("# Source:")
        .map(str::trim)
        .filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chart's `file://` dependencies, and theirs, are what else it reads of the repository;
    /// a cycle is followed once.
    #[test]
    fn local_dependencies_follow_file_repositories() {
        let dir = tempfile::tempdir().unwrap();
        let chart = |name: &str, deps: &str| {
            let d = dir.path().join("charts").join(name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(
                d.join("Chart.yaml"),
                format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n{deps}"),
            )
            .unwrap();
        };
        chart("app", "dependencies:\n- {name: lib, repository: file://../lib}\n- {name: redis, repository: https://charts.example.com}\n");
        chart(
            "lib",
            "dependencies:\n- {name: base, repository: file://../base}\n",
        );
        chart(
            "base",
            "dependencies:\n- {name: app, repository: file://../app}\n",
        );
        let found = local_dependencies(&dir.path().join("charts/app"));
        let names: Vec<String> = found
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["lib", "base"]);
    }

    /// An empty `gitops.helm` is no setting: helm is looked up on PATH as without it.
    #[test]
    fn an_empty_configured_command_is_none() {
        let command = |h: Option<Helm>| h.map(|h| h.command);
        assert_eq!(command(Helm::find(Some("  "))), command(Helm::find(None)));
    }

    #[test]
    fn a_release_is_named_after_its_directory_as_helm_accepts_names() {
        let named = |dir: &str| release_named_after(Path::new(dir));
        assert_eq!(named("/repo/charts/karmada"), "karmada");
        assert_eq!(named("/home/me/My_Fleet/"), "my-fleet");
        assert_eq!(named("/tmp/_x_"), "x");
        assert_eq!(named("/"), "release");
        // The root of what is linted, whatever it is called (a revision's is temporary).
        assert_eq!(named("."), "release");
        assert_eq!(named(""), "release");
        assert_eq!(named(&format!("/r/{}", "a".repeat(60))).len(), 53);
    }

    #[test]
    fn a_copy_of_a_chart_names_its_local_dependencies_where_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("Chart.yaml");
        let text = "apiVersion: v2\nname: app\ndependencies:\n  - name: dep\n    repository: \"file://../dep\"\n  - repository: file:///abs/x\n    name: x\n  - name: common\n    repository: https://charts.example.com\n  - {name: flow, repository: 'file://../flow'}\n  - {name: oci, repository: 'oci://r/x'}\n";
        std::fs::write(&chart, text).unwrap();
        let moved = local_dependencies_at(&chart, Path::new("/repo/charts/app")).unwrap();
        let moved: serde_json::Value = serde_json::from_str(&moved).unwrap();
        let repositories: Vec<&str> = moved["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["repository"].as_str().unwrap())
            .collect();
        assert_eq!(
            repositories,
            [
                "file:///repo/charts/dep",
                "file:///abs/x",
                "https://charts.example.com",
                "file:///repo/charts/flow",
                "oci://r/x",
            ]
        );
        assert_eq!(moved["name"], "app");
        // Block and flow style alike; the repository's own charts are not remote.
        let listed = chart_dependencies(&chart);
        let remote: Vec<&str> = listed
            .iter()
            .filter(|d| d.is_remote())
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(remote, ["common", "oci"]);
        let flow = listed.iter().find(|d| d.name == "flow").unwrap();
        assert_eq!(flow.local_path(), Some("../flow"));
        assert_eq!(flow.repository.as_ref().unwrap().1.start.line, 10);
        // A chart that names no relative file:// dependency is left as it is.
        std::fs::write(&chart, "apiVersion: v2\nname: app\n").unwrap();
        assert_eq!(local_dependencies_at(&chart, Path::new("/repo")), None);
    }

    #[test]
    fn source_comments_name_files_in_the_chart() {
        assert_eq!(
            source_comment("# Source: podinfo/templates/policy.yaml"),
            Some("podinfo/templates/policy.yaml")
        );
        assert_eq!(source_comment("# other"), None);
        assert_eq!(
            source_file(
                "podinfo/charts/redis/templates/a.yaml",
                Path::new("charts/podinfo")
            ),
            PathBuf::from("charts/podinfo/charts/redis/templates/a.yaml")
        );
    }
}
