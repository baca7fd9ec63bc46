//! What an environment is made of: the API server it targets, its units (kustomize builds,
//! Helm charts, plain files) with what each is rendered with, and the renders themselves,
//! made once per run and shared by every environment that uses them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use super::argo::OnRemoval;
use super::discover::Repository;
use super::failure;
pub use super::failure::{FailureKind, RenderFailure};
use super::flux;
use super::helm::{self, Helm, HelmValues};
use super::origin::{self, Layers};
use super::render::{self, Build, BuildSpec, Kustomize, RenderError};
use super::scan;
use crate::source::{files, load, Loaded, Source};

/// The API server an environment's objects are applied to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// The cluster a Flux instance runs in: what its Kustomizations without `kubeConfig`
    /// apply to. `dir` is the cluster's directory (what the bootstrap Kustomization applies, or
    /// the directory holding Kustomizations nothing else applies).
    FluxCluster { dir: PathBuf },
    /// The API server whose kubeconfig is in this secret (Flux `spec.kubeConfig.secretRef`,
    /// read in the Flux object's namespace).
    KubeConfig { namespace: String, secret: String },
    /// An Argo CD destination (`name`, else `server`; `in-cluster` is Argo CD's own).
    Argo { destination: String },
    /// The repository does not say (a kustomize root or chart no controller object applies).
    Undeclared,
    /// Files no Flux Kustomization or Argo CD Application applies: linted on their own.
    Loose,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::FluxCluster { dir } => {
                write!(f, "the cluster Flux runs in ({})", super::shown_dir(dir))
            }
            Target::KubeConfig { namespace, secret } => {
                write!(
                    f,
                    "the API server of kubeConfig secret {namespace}/{secret}"
                )
            }
            Target::Argo { destination } => write!(f, "Argo CD destination {destination}"),
            Target::Undeclared => f.write_str("not declared in the repository"),
            Target::Loose => f.write_str(
                "loose files: no Flux Kustomization or Argo CD Application applies them",
            ),
        }
    }
}

/// What one unit of an environment is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum UnitKind {
    /// A kustomization, built as `spec` says.
    Root(BuildSpec),
    /// A Helm chart's directory, rendered with these values (`None`: its own, and the
    /// configuration's `gitops.helmValues`).
    Chart(PathBuf, Option<HelmValues>),
    /// A file read as it is.
    Plain(PathBuf),
}

/// One part of an environment and how its output is taken.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unit {
    pub kind: UnitKind,
    /// The Flux variables substituted into the output (`postBuild`).
    pub vars: Option<BTreeMap<String, String>>,
    /// Where namespaced objects without a namespace go (Flux `targetNamespace` of a plain
    /// directory, an Argo CD destination's namespace); `None`: nothing in the repository says.
    pub namespace: Option<String>,
    /// A file of a plain directory a Flux Kustomization applies: its documents are those
    /// kyaml's reader gives Flux ([`scan::read_as_flux`]).
    pub flux_plain: bool,
}

impl Unit {
    pub fn new(kind: UnitKind) -> Unit {
        Unit {
            kind,
            vars: None,
            namespace: None,
            flux_plain: false,
        }
    }

    /// The directory or file the unit is made from.
    pub fn path(&self) -> &Path {
        match &self.kind {
            UnitKind::Root(spec) => &spec.dir,
            UnitKind::Chart(dir, _) => dir,
            UnitKind::Plain(file) => file,
        }
    }
}

/// An environment as the repository declares it, before anything of it is linted.
#[derive(Debug, Clone)]
pub struct Plan {
    pub name: String,
    /// The directory it is named after (a cluster directory, a root, a chart), for `--env`.
    pub dir: Option<PathBuf>,
    pub target: Target,
    /// The controller instance it belongs to (one Flux installation, Argo CD, or the
    /// repository as a whole): the Karmada it targets is configured by what that instance
    /// installs.
    pub instance: String,
    pub units: Vec<Unit>,
    /// What its controllers apply from outside this repository (an Argo CD Application's
    /// source elsewhere): objects of the environment that are not known here.
    pub elsewhere: Vec<String>,
    /// The Argo CD Applications that deploy to it (none for other targets).
    pub applications: Vec<ArgoApplication>,
    /// The Flux Kustomizations and Argo CD Applications that apply to it, and whether each
    /// deletes what its source stops giving.
    pub appliers: Vec<Applier>,
}

/// A Flux Kustomization or an Argo CD Application applying part of an environment.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Applier {
    /// As a plan names it: `Kustomization flux-system/web`, `Application web`.
    pub controller: String,
    /// Why it leaves on the API server what its source no longer gives (the field, as its
    /// spec sets it); `None`: it deletes it (prunes).
    pub keeps_removed: Option<&'static str>,
    /// The source names of the documents its units give ([`output_of`]).
    pub outputs: Vec<String>,
}

/// An Argo CD Application deploying to an environment, with what deleting it does.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ArgoApplication {
    pub name: String,
    /// What removing it from the repository does to what it applied.
    pub on_removal: OnRemoval,
    /// The source names of the documents its sources give ([`output_of`]).
    pub outputs: Vec<String>,
}

/// A rendered stream's documents, where each came from, and the layers it went through.
pub struct Rendered {
    pub loaded: Loaded,
    pub origins: Vec<Option<PathBuf>>,
    pub layers: Layers,
    /// The namespace namespaced objects without one get (see [`Unit::namespace`]).
    pub namespace: Option<String>,
}

/// The renders of a run: every kustomize build and chart rendered once, the plain files read
/// once, and what rendering had to say.
pub struct Renders {
    pub(super) kustomize: Option<Kustomize>,
    pub(super) helm: Option<Helm>,
    /// The repository: nothing a build reads may lie outside it.
    pub(super) confine: PathBuf,
    pub(super) helm_values: BTreeMap<PathBuf, Vec<PathBuf>>,
    builds: BTreeMap<BuildSpec, Result<Build, RenderError>>,
    charts: BTreeMap<(PathBuf, Option<HelmValues>), Result<String, RenderError>>,
    files: BTreeMap<PathBuf, Option<Loaded>>,
    /// What rendering said (a file it could not read), in the order it was said.
    pub notes: Vec<String>,
}

impl Renders {
    pub(super) fn new(
        kustomize: Option<Kustomize>,
        helm: Option<Helm>,
        confine: PathBuf,
        helm_values: BTreeMap<PathBuf, Vec<PathBuf>>,
    ) -> Renders {
        // Keyed absolute: the configuration names charts relative to its own directory.
        let cwd = std::env::current_dir().unwrap_or_default();
        let helm_values = helm_values
            .into_iter()
            .map(|(k, v)| (super::normalize(&cwd.join(k)), v))
            .collect();
        Renders {
            kustomize,
            helm,
            confine,
            helm_values,
            builds: BTreeMap::new(),
            charts: BTreeMap::new(),
            files: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// Builds every kustomization and chart of `units` not built yet (kustomize in parallel).
    pub(super) fn prepare<'u>(&mut self, units: impl IntoIterator<Item = &'u Unit>) {
        let mut specs = Vec::new();
        let mut charts = Vec::new();
        for u in units {
            match &u.kind {
                UnitKind::Root(spec) if !self.builds.contains_key(spec) => specs.push(spec.clone()),
                UnitKind::Chart(dir, values) => charts.push((dir.clone(), values.clone())),
                _ => {}
            }
        }
        // Without kustomize each root fails as not built (`renderer-not-found`, [`output`]).
        if let (false, Some(k)) = (specs.is_empty(), &self.kustomize) {
            let built = k.build_specs(&specs, Some(&self.confine), render::default_workers());
            self.builds.extend(built);
        }
        for key in charts {
            self.chart(&key.0, key.1.as_ref());
        }
    }

    /// A kustomize build (after [`Renders::prepare`]); `None` when kustomize is missing.
    pub(super) fn build(&self, spec: &BuildSpec) -> Option<&Result<Build, RenderError>> {
        self.builds.get(spec)
    }

    /// A chart's `helm template` output, rendered once; `None` without helm (the chart then
    /// fails as not built, [`output`]).
    pub(super) fn chart(
        &mut self,
        dir: &Path,
        values: Option<&HelmValues>,
    ) -> Option<&Result<String, RenderError>> {
        let key = (dir.to_path_buf(), values.cloned());
        if !self.charts.contains_key(&key) {
            let Some(h) = &self.helm else {
                return None;
            };
            let rendered = match values {
                Some(v) => h.template_with(dir, v),
                None => {
                    let cwd = std::env::current_dir().unwrap_or_default();
                    let key = super::normalize(&cwd.join(dir));
                    let files = self.helm_values.get(&key).cloned().unwrap_or_default();
                    h.template(dir, &files)
                }
            };
            self.charts.insert(key.clone(), rendered);
        }
        self.charts.get(&key)
    }

    /// A plain file, read and parsed once (`None`: unreadable, said in a note once).
    pub(super) fn file(&mut self, path: &Path) -> Option<&Loaded> {
        if !self.files.contains_key(path) {
            let read = match files::read(path) {
                Ok(l) => Some(l),
                Err(e) => {
                    self.notes.push(e.to_string());
                    None
                }
            };
            self.files.insert(path.to_path_buf(), read);
        }
        self.files.get(path).and_then(Option::as_ref)
    }

    /// Hands over the files read so far (plain files the discovery already parsed).
    pub(super) fn add_files(&mut self, loaded: BTreeMap<PathBuf, Loaded>) {
        for (p, l) in loaded {
            self.files.insert(p, Some(l));
        }
    }

    /// Whether the text a unit renders to (before substitution) passes `test`, for cheap scans
    /// before parsing: `None` when it did not render.
    pub(super) fn text_test(&mut self, unit: &Unit, test: &dyn Fn(&str) -> bool) -> Option<bool> {
        match &unit.kind {
            UnitKind::Root(spec) => match self.build(spec)? {
                Ok(b) => Some(test(&b.text)),
                Err(_) => None,
            },
            UnitKind::Chart(dir, values) => match self.chart(dir, values.as_ref())? {
                Ok(t) => Some(test(t)),
                Err(_) => None,
            },
            UnitKind::Plain(file) => Some(test(self.file(file)?.source.text())),
        }
    }
}

/// What a unit gives: a render traced to its files, a plain file, or a failure.
pub enum Output {
    Rendered(Rendered),
    Plain(Loaded, Option<String>),
    Failed(RenderFailure),
    Nothing,
}

/// The name of the output of the kustomize root or (`chart`) Helm chart in `dir`: its
/// documents' source.
pub fn output_name(dir: &Path, chart: bool) -> String {
    match chart {
        true => format!("helm template {}", dir.display()),
        false => format!("kustomize build {}", dir.display()),
    }
}

/// The source name the documents of `unit` have: its root's or chart's output
/// ([`output_name`]), or the plain file's own.
pub fn output_of(unit: &Unit) -> String {
    match &unit.kind {
        UnitKind::Root(spec) => output_name(&spec.dir, false),
        UnitKind::Chart(dir, _) => output_name(dir, true),
        UnitKind::Plain(file) => crate::source::files::display_path(file),
    }
}

/// The output of `unit` (rendering it if needed).
pub fn output(repo: &Repository, unit: &Unit, renders: &mut Renders) -> Output {
    let vars = unit.vars.as_ref();
    match &unit.kind {
        UnitKind::Plain(file) => match renders.file(file) {
            Some(l) => {
                let mut read = substituted_plain(l, vars);
                if unit.flux_plain {
                    read = scan::read_as_flux(read);
                }
                Output::Plain(read, unit.namespace.clone())
            }
            None => Output::Nothing,
        },
        UnitKind::Root(spec) => {
            let root_inputs = || {
                let reads = failure::build_reads(repo, &spec.dir, &renders.confine);
                with_settings(failure::inputs_digest(&reads), unit)
            };
            match renders.build(spec) {
                Some(Ok(build)) => {
                    let mut r = rendered_root(repo, &spec.dir, build, vars);
                    r.namespace = unit.namespace.clone();
                    Output::Rendered(r)
                }
                Some(Err(e)) => Output::Failed(RenderFailure {
                    inputs: root_inputs(),
                    output: output_of(unit),
                    ..failure::locate(repo, &spec.dir, e)
                }),
                None => Output::Failed(RenderFailure {
                    inputs: root_inputs(),
                    output: output_of(unit),
                    ..failure::not_built(
                        super::discover::kustomization_file(&spec.dir)
                            .unwrap_or_else(|| spec.dir.clone()),
                        "no kustomize found (neither `kustomize` nor `kubectl` is on PATH, and \
                     .karmada-policy.yaml sets no gitops.kustomize)",
                        "",
                    )
                }),
            }
        }
        UnitKind::Chart(dir, values) => {
            // The chart's files, its `file://` dependencies' and the values files it is given.
            let chart_inputs = || {
                let mut read = vec![dir.clone()];
                read.extend(helm::local_dependencies(dir));
                read.extend(values.iter().flat_map(|v| v.files.iter().cloned()));
                with_settings(failure::inputs_digest(&read), unit)
            };
            match renders.chart(dir, values.as_ref()) {
                Some(Ok(text)) => {
                    let text = match vars {
                        Some(v) => flux::substitute_stream(text, v),
                        None => text.clone(),
                    };
                    let mut r = rendered_chart(dir, &text);
                    r.namespace = unit.namespace.clone();
                    Output::Rendered(r)
                }
                Some(Err(e)) => Output::Failed(RenderFailure {
                    inputs: chart_inputs(),
                    output: output_of(unit),
                    ..failure::locate_chart(dir, e)
                }),
                None => Output::Failed(RenderFailure {
                    inputs: chart_inputs(),
                    output: output_of(unit),
                    ..failure::not_built(
                        dir.join("Chart.yaml"),
                        "helm is not on PATH (and .karmada-policy.yaml sets no gitops.helm)",
                        &format!(
                        "; or lint its output: `helm template {} | kubectl karmada-policy lint -`",
                        dir.display()
                    ),
                    )
                }),
            }
        }
    }
}

/// A failed root's digest ([`failure::inputs_digest`]) with what its unit gives it besides
/// files: Flux's substitutions, the release, inline values and parameters of a Helm source, a
/// target namespace. A change there changes the output though no file of the root changed, so
/// the two revisions did not fail alike. 0 stays 0 (not taken).
fn with_settings(digest: u64, unit: &Unit) -> u64 {
    use std::hash::{Hash, Hasher};
    if digest == 0 {
        return 0;
    }
    let mut hasher = std::hash::DefaultHasher::new();
    digest.hash(&mut hasher);
    format!("{unit:?}").hash(&mut hasher);
    hasher.finish().max(1)
}

/// A plain file as an environment receives it: with that environment's Flux variables.
pub fn substituted_plain(l: &Loaded, vars: Option<&BTreeMap<String, String>>) -> Loaded {
    match vars {
        Some(v) if l.source.text().contains("${") => load(Source::new(
            l.source.name.clone(),
            flux::substitute_stream(l.source.text(), v),
        )),
        _ => l.clone(),
    }
}

/// A kustomize build's stream, its documents traced to their files through the origin
/// annotations (removed from the objects), with Flux's variables substituted.
pub fn rendered_root(
    repo: &Repository,
    dir: &Path,
    build: &Build,
    vars: Option<&BTreeMap<String, String>>,
) -> Rendered {
    let text = match vars {
        Some(v) => flux::substitute_stream(&build.text, v),
        None => build.text.clone(),
    };
    let mut loaded = load(Source::new(output_name(dir, false), text));
    let origins = loaded
        .documents
        .iter_mut()
        .map(|d| {
            origin::take_origin(&mut d.root).map(|raw| origin::resolve_origin(&build.dir, &raw))
        })
        .collect();
    let fallback = repo
        .kustomizations
        .get(dir)
        .map_or(dir.to_path_buf(), |k| k.file.clone());
    Rendered {
        loaded,
        origins,
        layers: Layers {
            closure: repo.closure(dir),
            fallback,
        },
        namespace: None,
    }
}

/// A chart's `helm template` output, each document traced to its template.
pub fn rendered_chart(dir: &Path, text: &str) -> Rendered {
    let loaded = load(Source::new(output_name(dir, true), text));
    let origins = source_comments(&loaded, dir);
    Rendered {
        loaded,
        origins,
        layers: Layers {
            closure: Vec::new(),
            fallback: dir.join("Chart.yaml"),
        },
        namespace: None,
    }
}

/// For each document of a `helm template` output, the template its `# Source:` comment names.
pub fn source_comments(loaded: &Loaded, chart_dir: &Path) -> Vec<Option<PathBuf>> {
    let text = loaded.source.text();
    let lines: Vec<&str> = text.lines().collect();
    loaded
        .documents
        .iter()
        .map(|d| {
            let first = d.root.span.start.line as usize;
            lines[..first.saturating_sub(1).min(lines.len())]
                .iter()
                .rev()
                .take_while(|l| l.trim() != "---")
                .find_map(|l| helm::source_comment(l))
                .map(|p| helm::source_file(p, chart_dir))
        })
        .collect()
}
