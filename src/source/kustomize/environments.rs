//! Environments: what one control plane receives from a GitOps repository, rendered.
//!
//! Where the repository says so, an environment is the union of the paths of the Flux
//! `Kustomization` objects of one cluster directory (`clusters/prod/`) or of the Argo CD
//! `Application`s of one directory; otherwise each kustomize root together with the plain
//! manifests outside every kustomization (and each Helm chart on its own). `lint`, `explain`
//! and `preempt-check` all read a repository through [`Repo`]: first the plan (what each
//! environment is made of, nothing rendered), then the builds, then each environment's
//! documents with the traces back to the files they came from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::argo::{self, ArgoApp};
use super::discover::{self, Repository};
use super::flux::{self, FluxKustomization};
use super::helm::{self, Helm};
use super::origin::{self, Layers, Mapper};
use super::render::{self, Kustomize};
use crate::source::{files, load, FieldPath, Loaded, Node, Source, Span, Value};

/// What the configuration says about rendering (`.karmada-policy.yaml`, `gitops:`).
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// The kustomize command (`kustomize build`, `kubectl kustomize`); default: found on PATH.
    pub kustomize: Option<String>,
    /// The helm command; default: `helm` if on PATH.
    pub helm: Option<String>,
    /// Values files per chart directory, after the chart's own values.yaml.
    pub helm_values: BTreeMap<PathBuf, Vec<PathBuf>>,
    /// More roots than the repository shows (directories).
    pub extra_roots: Vec<PathBuf>,
    /// Kustomize exec/KRM plugins and Helm inflation (`--enable-alpha-plugins`, `--enable-helm`).
    pub plugins: bool,
    pub helm_inflation: bool,
    /// `--env`: only this environment (its name, or the directory it is named after).
    pub environment: Option<String>,
}

/// One part of an environment.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    Root(PathBuf),
    Chart(PathBuf),
    Plain(PathBuf),
}

/// An environment as the repository declares it, before anything is rendered.
#[derive(Debug, Clone)]
pub struct Plan {
    pub name: String,
    /// The directory it is named after (a cluster directory, a root, a chart), for `--env`.
    pub dir: Option<PathBuf>,
    /// Each unit and the Flux variables substituted into it.
    pub units: Vec<(Unit, Option<BTreeMap<String, String>>)>,
}

/// A rendered stream's documents, where each came from, and the layers it went through.
pub struct Rendered {
    pub loaded: Loaded,
    pub origins: Vec<Option<PathBuf>>,
    pub layers: Layers,
}

/// A root or chart that did not render: the file to report it at and the renderer's message.
#[derive(Debug, Clone)]
pub struct RenderFailure {
    pub file: PathBuf,
    pub message: String,
}

/// One environment's documents: rendered streams first, then the plain files (with the
/// environment's Flux variables substituted).
pub struct Environment {
    pub name: String,
    pub rendered: Vec<Rendered>,
    pub plain: Vec<Loaded>,
    pub failures: Vec<RenderFailure>,
}

/// `--env NAME` names no environment of the repository.
#[derive(Debug, Clone, thiserror::Error)]
#[error("--env {wanted}: no such environment; the repository has: {}", known.join(", "))]
pub struct UnknownEnvironment {
    pub wanted: String,
    pub known: Vec<String>,
}

/// A repository read for rendering: what it holds and its environments' plans.
pub struct Repo {
    pub repo: Repository,
    plain: BTreeMap<PathBuf, Loaded>,
    pub plans: Vec<Plan>,
    /// What the user should know (unreadable files, Flux paths outside the repository...).
    pub notes: Vec<String>,
}

/// The builds of a repository's roots, and the renderers found.
pub struct Renders {
    builds: BTreeMap<PathBuf, Result<render::Build, render::RenderError>>,
    helm: Option<Helm>,
    helm_values: BTreeMap<PathBuf, Vec<PathBuf>>,
    charts_noted: BTreeSet<PathBuf>,
    /// What rendering said (no kustomize, charts not rendered...), in the order it was said.
    pub notes: Vec<String>,
}

impl Repo {
    /// Discovers the repository `inputs` belong to and plans its environments. Nothing is
    /// rendered yet.
    pub fn read(inputs: &[PathBuf], opts: &RenderOptions) -> Repo {
        let mut repo = discover::discover(inputs);
        for extra in &opts.extra_roots {
            if repo.kustomizations.contains_key(extra) && !repo.roots.contains(extra) {
                repo.roots.push(extra.clone());
            }
        }
        let mut notes = Vec::new();
        let mut plain: BTreeMap<PathBuf, Loaded> = BTreeMap::new();
        for f in &repo.plain {
            match files::read(f) {
                Ok(l) => {
                    notes.extend(crate::source::data_note(&l));
                    plain.insert(f.clone(), l);
                }
                Err(e) => notes.push(e.to_string()),
            }
        }
        let fluxes: Vec<FluxKustomization> = plain
            .iter()
            .filter(|(_, l)| flux::may_hold(l.source.text()))
            .flat_map(|(p, l)| flux::find(l, p))
            .collect();
        let dirs: Vec<PathBuf> = inputs
            .iter()
            .flat_map(|f| f.ancestors().skip(1))
            .map(super::normalize)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let tree = argo::Tree {
            dirs: &dirs,
            files: inputs,
        };
        let apps: Vec<ArgoApp> = plain
            .iter()
            .filter(|(_, l)| argo::may_hold(l.source.text()))
            .flat_map(|(p, l)| argo::find(l, p, &tree, &mut notes))
            .collect();
        let plans = plan(&repo, &fluxes, &apps, &plain, &mut notes);
        Repo {
            repo,
            plain,
            plans,
            notes,
        }
    }

    /// The environments' names, in plan order.
    pub fn names(&self) -> Vec<String> {
        self.plans.iter().map(|p| p.name.clone()).collect()
    }

    /// Keeps only the environment `wanted` names: its name, or the directory it is named after
    /// (as given, or as a trailing part of that directory, when only one ends so).
    pub fn select(&mut self, wanted: &str) -> Result<(), UnknownEnvironment> {
        let i = choose(&self.plans, wanted).ok_or_else(|| UnknownEnvironment {
            wanted: wanted.to_string(),
            known: self.names(),
        })?;
        let chosen = self.plans.swap_remove(i);
        self.plans = vec![chosen];
        Ok(())
    }

    /// Builds every root the plans use (in parallel, each once) and finds Helm.
    pub fn render(&self, opts: &RenderOptions) -> Renders {
        let mut notes = Vec::new();
        let roots: Vec<PathBuf> = self
            .plans
            .iter()
            .flat_map(|e| &e.units)
            .filter_map(|(u, _)| match u {
                Unit::Root(r) => Some(r.clone()),
                _ => None,
            })
            .collect();
        let mut kustomize = Kustomize::find(opts.kustomize.as_deref());
        if let Some(k) = &mut kustomize {
            k.plugins = opts.plugins;
            k.helm = opts.helm_inflation;
        } else if !roots.is_empty() {
            notes.push(
                "no kustomize found (neither `kustomize` nor `kubectl` on PATH): kustomize roots were not linted; install kubectl or set gitops.kustomize in .karmada-policy.yaml".into(),
            );
        }
        let builds = kustomize
            .as_ref()
            .map(|k| k.build_all(&roots, render::default_workers()))
            .unwrap_or_default();
        for k in self.repo.kustomizations.values() {
            if !k.helm_charts.is_empty() && !opts.helm_inflation {
                notes.push(format!(
                    "{}: helmCharts ({}) are not inflated; set gitops.helmInflation: true to render them",
                    k.file.display(),
                    k.helm_charts.join(", ")
                ));
            }
        }
        Renders {
            builds,
            helm: Helm::find(opts.helm.as_deref()),
            helm_values: opts.helm_values.clone(),
            charts_noted: BTreeSet::new(),
            notes,
        }
    }

    /// The documents of the environment `plan` describes.
    pub fn environment(&self, plan: &Plan, renders: &mut Renders) -> Environment {
        let mut env = Environment {
            name: plan.name.clone(),
            rendered: Vec::new(),
            plain: Vec::new(),
            failures: Vec::new(),
        };
        for (unit, vars) in &plan.units {
            match unit {
                Unit::Plain(file) => {
                    let Some(l) = self.plain.get(file) else {
                        continue;
                    };
                    env.plain.push(substituted_plain(l, vars.as_ref()));
                }
                Unit::Root(dir) => match renders.builds.get(dir) {
                    Some(Ok(build)) => {
                        env.rendered
                            .push(rendered_root(&self.repo, dir, build, vars.as_ref()))
                    }
                    Some(Err(e)) => env.failures.push(RenderFailure {
                        file: self
                            .repo
                            .kustomizations
                            .get(dir)
                            .map_or(dir.to_path_buf(), |k| k.file.clone()),
                        message: e.to_string(),
                    }),
                    None => {}
                },
                Unit::Chart(dir) => renders.chart(dir, &mut env),
            }
        }
        env
    }

    /// The source files, for tracing rendered places back to them.
    pub fn mapper(&self) -> Mapper<'_> {
        Mapper::new(&self.repo)
    }
}

impl Renders {
    fn chart(&mut self, dir: &Path, env: &mut Environment) {
        match &self.helm {
            Some(h) => {
                let values = self.helm_values.get(dir).cloned().unwrap_or_default();
                match h.template(dir, &values) {
                    Ok(text) => env.rendered.push(rendered_chart(dir, &text)),
                    Err(e) => env.failures.push(RenderFailure {
                        file: dir.join("Chart.yaml"),
                        message: format!("helm template failed: {e}"),
                    }),
                }
            }
            None => {
                if self.charts_noted.insert(dir.to_path_buf()) {
                    self.notes.push(format!(
                        "{}: Helm chart not linted (helm is not on PATH); lint it with `helm template {} | kubectl karmada-policy lint -`",
                        dir.display(),
                        dir.display()
                    ));
                }
            }
        }
    }
}

/// The plan `wanted` names (see [`Repo::select`]).
fn choose(plans: &[Plan], wanted: &str) -> Option<usize> {
    if let Some(i) = plans.iter().position(|p| p.name == wanted) {
        return Some(i);
    }
    let path = super::normalize(Path::new(wanted.trim_end_matches('/')));
    let exact: Vec<usize> = plans
        .iter()
        .enumerate()
        .filter(|(_, p)| p.dir.as_deref() == Some(&path))
        .map(|(i, _)| i)
        .collect();
    if let [one] = exact.as_slice() {
        return Some(*one);
    }
    let ending: Vec<usize> = plans
        .iter()
        .enumerate()
        .filter(|(_, p)| p.dir.as_deref().is_some_and(|d| d.ends_with(&path)))
        .map(|(i, _)| i)
        .collect();
    match ending.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The environments of the repository (see the module's overview).
fn plan(
    repo: &Repository,
    fluxes: &[FluxKustomization],
    apps: &[ArgoApp],
    plain: &BTreeMap<PathBuf, Loaded>,
    notes: &mut Vec<String>,
) -> Vec<Plan> {
    let mut envs: Vec<Plan> = Vec::new();
    let mut used_roots = BTreeSet::new();
    let mut used_plain = BTreeSet::new();
    let mut clusters: BTreeMap<PathBuf, Vec<&FluxKustomization>> = BTreeMap::new();
    for f in fluxes {
        let dir = f.file.parent().map(Path::to_path_buf).unwrap_or_default();
        clusters.entry(dir).or_default().push(f);
    }
    for (dir, list) in &clusters {
        let mut units = Vec::new();
        // The cluster directory's own manifests (the Flux objects themselves).
        for p in plain.keys().filter(|p| p.parent() == Some(dir.as_path())) {
            used_plain.insert(p.clone());
            units.push((Unit::Plain(p.clone()), None));
        }
        for f in list {
            let Some(path) = &f.path else {
                notes.push(format!(
                    "{}: Flux Kustomization {}: spec.path `{}` is not in this repository",
                    f.file.display(),
                    f.name,
                    f.spec_path
                ));
                continue;
            };
            let vars = variables(f, plain, notes);
            let vars = (!vars.is_empty() || !f.substitute_from.is_empty()).then_some(vars);
            let mut used = Used {
                roots: &mut used_roots,
                plain: &mut used_plain,
            };
            units.extend(units_under(repo, plain, path, vars.as_ref(), &mut used));
        }
        envs.push(Plan {
            name: dir_name(dir),
            dir: Some(dir.clone()),
            units,
        });
    }
    let mut used = Used {
        roots: &mut used_roots,
        plain: &mut used_plain,
    };
    envs.extend(argo_plans(repo, apps, plain, &mut used, notes));
    rest(repo, plain, &used_roots, &used_plain, &mut envs);
    envs
}

/// One environment per Argo CD destination: the union of its Applications' paths, with the
/// files defining those Applications.
fn argo_plans(
    repo: &Repository,
    apps: &[ArgoApp],
    plain: &BTreeMap<PathBuf, Loaded>,
    used: &mut Used<'_>,
    notes: &mut Vec<String>,
) -> Vec<Plan> {
    let mut by_destination: BTreeMap<&str, Vec<&ArgoApp>> = BTreeMap::new();
    for a in apps {
        by_destination.entry(&a.destination).or_default().push(a);
    }
    let mut plans = Vec::new();
    for (destination, list) in by_destination {
        let mut units = Vec::new();
        let files: BTreeSet<&PathBuf> = list.iter().map(|a| &a.file).collect();
        for f in &files {
            used.plain.insert((*f).clone());
            units.push((Unit::Plain((*f).clone()), None));
        }
        for a in &list {
            for e in &a.elsewhere {
                notes.push(format!(
                    "{}: Argo CD Application {}: source `{e}` is not in this repository",
                    a.file.display(),
                    a.name
                ));
            }
            for p in &a.paths {
                units.extend(units_under(repo, plain, p, None, used));
            }
        }
        let mut seen = BTreeSet::new();
        units.retain(|(u, _)| seen.insert(u.clone()));
        let dirs: BTreeSet<&Path> = files.iter().filter_map(|f| f.parent()).collect();
        plans.push(Plan {
            name: destination.to_string(),
            dir: (dirs.len() == 1).then(|| dirs.into_iter().next().unwrap().to_path_buf()),
            units,
        });
    }
    plans
}

/// The units an environment gets from one declared path: the roots, charts and plain files
/// under it.
struct Used<'a> {
    roots: &'a mut BTreeSet<PathBuf>,
    plain: &'a mut BTreeSet<PathBuf>,
}

fn units_under(
    repo: &Repository,
    plain: &BTreeMap<PathBuf, Loaded>,
    path: &Path,
    vars: Option<&BTreeMap<String, String>>,
    used: &mut Used<'_>,
) -> Vec<(Unit, Option<BTreeMap<String, String>>)> {
    let mut units = Vec::new();
    for r in repo.roots.iter().filter(|r| r.starts_with(path)) {
        used.roots.insert(r.clone());
        units.push((Unit::Root(r.clone()), vars.cloned()));
    }
    for c in repo.charts.iter().filter(|c| c.starts_with(path)) {
        units.push((Unit::Chart(c.clone()), vars.cloned()));
    }
    for p in plain.keys().filter(|p| p.starts_with(path)) {
        used.plain.insert(p.clone());
        units.push((Unit::Plain(p.clone()), vars.cloned()));
    }
    units
}

/// The last component of a directory, as an environment's name.
fn dir_name(dir: &Path) -> String {
    dir.file_name().map_or(dir.display().to_string(), |n| {
        n.to_string_lossy().into_owned()
    })
}

/// What no controller object claims: each remaining root with the remaining plain files, else
/// the plain files alone; and each chart no environment includes, on its own.
fn rest(
    repo: &Repository,
    plain: &BTreeMap<PathBuf, Loaded>,
    used_roots: &BTreeSet<PathBuf>,
    used_plain: &BTreeSet<PathBuf>,
    envs: &mut Vec<Plan>,
) {
    let rest_plain: Vec<PathBuf> = plain
        .keys()
        .filter(|p| !used_plain.contains(*p))
        .cloned()
        .collect();
    let rest_roots: Vec<&PathBuf> = repo
        .roots
        .iter()
        .filter(|r| !used_roots.contains(*r))
        .collect();
    for r in &rest_roots {
        let mut units = vec![(Unit::Root((*r).clone()), None)];
        units.extend(rest_plain.iter().map(|p| (Unit::Plain(p.clone()), None)));
        envs.push(Plan {
            name: r.display().to_string(),
            dir: Some((*r).clone()),
            units,
        });
    }
    if rest_roots.is_empty() && !rest_plain.is_empty() {
        envs.push(Plan {
            name: "plain manifests".into(),
            dir: None,
            units: rest_plain
                .iter()
                .map(|p| (Unit::Plain(p.clone()), None))
                .collect(),
        });
    }
    for c in &repo.charts {
        let included = envs.iter().any(|e| {
            e.units
                .iter()
                .any(|(u, _)| matches!(u, Unit::Chart(d) if d == c))
        });
        if !included {
            envs.push(Plan {
                name: c.display().to_string(),
                dir: Some(c.clone()),
                units: vec![(Unit::Chart(c.clone()), None)],
            });
        }
    }
}

/// `postBuild.substitute` over the ConfigMaps and Secrets `substituteFrom` names (found among
/// the plain manifests; later sources win, `substitute` wins over all, as in Flux).
fn variables(
    f: &FluxKustomization,
    plain: &BTreeMap<PathBuf, Loaded>,
    notes: &mut Vec<String>,
) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    for (kind, name, optional) in &f.substitute_from {
        let found = plain.values().flat_map(|l| &l.documents).find(|d| {
            d.root.get("kind").and_then(Node::as_str) == Some(kind.as_str())
                && d.root
                    .get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Node::as_str)
                    == Some(name.as_str())
        });
        match found {
            Some(d) => vars.extend(data_of(&d.root, kind == "Secret")),
            None if !optional => notes.push(format!(
                "{}: Flux Kustomization {}: substituteFrom {kind}/{name} is not in the repository; its variables stay unresolved",
                f.file.display(),
                f.name
            )),
            None => {}
        }
    }
    vars.extend(f.substitute.clone());
    vars
}

fn data_of(root: &Node, secret: bool) -> BTreeMap<String, String> {
    use base64::Engine as _;
    let mut out = BTreeMap::new();
    let pairs = |key: &str| {
        root.get(key)
            .and_then(Node::as_map)
            .unwrap_or(&[])
            .iter()
            .filter_map(|e| Some((e.key.as_str()?.to_string(), e.value.as_str()?.to_string())))
            .collect::<Vec<_>>()
    };
    for (k, v) in pairs("data") {
        let v = if secret {
            base64::engine::general_purpose::STANDARD
                .decode(v.trim())
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default()
        } else {
            v
        };
        out.insert(k, v);
    }
    out.extend(pairs("stringData"));
    out
}

/// A plain file as an environment receives it: with that environment's Flux variables.
fn substituted_plain(l: &Loaded, vars: Option<&BTreeMap<String, String>>) -> Loaded {
    let text = match vars {
        Some(v) => flux::substitute_stream(l.source.text(), v),
        None => l.source.text().to_string(),
    };
    load(Source::new(l.source.name.clone(), text))
}

fn rendered_root(
    repo: &Repository,
    dir: &Path,
    build: &render::Build,
    vars: Option<&BTreeMap<String, String>>,
) -> Rendered {
    let text = match vars {
        Some(v) => flux::substitute_stream(&build.text, v),
        None => build.text.clone(),
    };
    let mut loaded = load(Source::new(
        format!("kustomize build {}", dir.display()),
        text,
    ));
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
    }
}

fn rendered_chart(dir: &Path, text: &str) -> Rendered {
    let loaded = load(Source::new(
        format!("helm template {}", dir.display()),
        text,
    ));
    let origins = source_comments(&loaded, dir);
    Rendered {
        loaded,
        origins,
        layers: Layers {
            closure: Vec::new(),
            fallback: dir.join("Chart.yaml"),
        },
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

/// The first unresolved Flux variable (`${var}` left by substitution) in a Karmada object's
/// values: where it is and its text.
pub fn unresolved_variable(node: &Node) -> Option<(Span, String)> {
    match &node.value {
        Value::Str(s) => {
            let i = s.find("${")?;
            let end = s[i..].find('}').map_or(s.len(), |e| i + e + 1);
            Some((node.span, s[i..end].to_string()))
        }
        Value::Seq(items) => items.iter().find_map(unresolved_variable),
        Value::Map(entries) => entries.iter().find_map(|e| unresolved_variable(&e.value)),
        _ => None,
    }
}

/// The source place of a place in a rendered stream (`None`: not in one of `rendered`).
/// `field` is the path a finding names, else the path at `span` is used.
pub fn trace(
    rendered: &[Rendered],
    mapper: &Mapper<'_>,
    source: &Arc<Source>,
    span: Span,
    field: Option<&str>,
) -> Option<(Arc<Source>, Span)> {
    let r = rendered
        .iter()
        .find(|r| Arc::ptr_eq(&r.loaded.source, source))?;
    let line = span.start.line;
    let i = r
        .loaded
        .documents
        .iter()
        .position(|d| d.root.span.start.line <= line && line <= d.root.span.end.line)?;
    let doc = &r.loaded.documents[i];
    let path = match field {
        Some(f) => FieldPath::parse(f),
        None => origin::path_at(&doc.root, span.start),
    };
    let origin = r.origins.get(doc.index).cloned().flatten();
    mapper.locate(&r.layers, &doc.root, origin.as_deref(), &path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_named(name: &str, dir: Option<&str>) -> Plan {
        Plan {
            name: name.into(),
            dir: dir.map(PathBuf::from),
            units: Vec::new(),
        }
    }

    #[test]
    fn env_is_chosen_by_name_then_directory_then_unique_ending() {
        let plans = [
            plan_named("prod", Some("repo/clusters/prod")),
            plan_named("staging", Some("repo/clusters/staging")),
            plan_named("repo/apps/api", Some("repo/apps/api")),
        ];
        assert_eq!(choose(&plans, "staging"), Some(1));
        assert_eq!(choose(&plans, "repo/clusters/prod/"), Some(0));
        assert_eq!(choose(&plans, "./repo/clusters/prod"), Some(0));
        assert_eq!(choose(&plans, "clusters/staging"), Some(1));
        assert_eq!(choose(&plans, "apps/api"), Some(2));
        assert_eq!(choose(&plans, "dev"), None);
    }
}
