//! `lint` over a GitOps repository: kustomize roots rendered with the real kustomize, Helm
//! charts, Flux substitution, and the rules run once per environment (what one control plane
//! receives), with every finding traced back to the source line to edit.
//!
//! An environment is, where the repository says so, the union of the paths of the Flux
//! `Kustomization` objects of one cluster directory (`clusters/prod/`); otherwise each root
//! together with the plain manifests outside every kustomization. A finding that several
//! environments share (a base used by prod and staging) is reported once, naming them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::rules::render_failed::RENDER_FAILED;
use super::{Finding, LintOptions, Location};
use crate::model::Inventory;
use crate::source::kustomize::discover::{self, Repository};
use crate::source::kustomize::flux::{self, FluxKustomization};
use crate::source::kustomize::helm::{self, Helm};
use crate::source::kustomize::origin::{self, Layers, Mapper};
use crate::source::kustomize::render::{self, Kustomize};
use crate::source::{files, load, Document, FieldPath, Loaded, Node, Source, Value};

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
}

/// A repository's findings and what was said about it on the way.
#[derive(Debug, Default)]
pub struct Linted {
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    pub files: usize,
    pub documents: usize,
    pub policies: usize,
    /// Each environment's name and objects, for comparing revisions (`lint --base`).
    pub environments: Vec<(String, Inventory)>,
}

/// Whether `files` hold kustomizations or charts to render (else `lint` reads them as plain
/// manifests, as it always has).
pub fn applies(files: &[PathBuf]) -> bool {
    files.iter().any(|f| {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        discover::KUSTOMIZATION_FILES.contains(&name.as_ref()) || name == "Chart.yaml"
    }) || files
        .iter()
        .filter_map(|f| f.parent())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .any(|d| d.join("Kustomization").is_file())
}

/// One part of an environment.
#[derive(Debug, Clone)]
enum Unit {
    Root(PathBuf),
    Chart(PathBuf),
    Plain(PathBuf),
}

#[derive(Debug, Clone)]
struct Environment {
    name: String,
    /// Each unit and the Flux variables substituted into it.
    units: Vec<(Unit, Option<BTreeMap<String, String>>)>,
}

/// A rendered stream's documents, where each came from, and the layers it went through.
struct Rendered {
    loaded: Loaded,
    origins: Vec<Option<PathBuf>>,
    layers: Layers,
}

/// Lints the repository the files belong to.
pub fn lint_repository(
    inputs: &[PathBuf],
    namespace: &str,
    opts: &LintOptions,
    render_opts: &RenderOptions,
) -> Linted {
    let mut repo = discover::discover(inputs);
    for extra in &render_opts.extra_roots {
        if repo.kustomizations.contains_key(extra) && !repo.roots.contains(extra) {
            repo.roots.push(extra.clone());
        }
    }
    let mut out = Linted {
        files: inputs.len(),
        ..Linted::default()
    };
    let mut plain: BTreeMap<PathBuf, Loaded> = BTreeMap::new();
    for f in &repo.plain {
        match files::read(f) {
            Ok(l) => {
                plain.insert(f.clone(), l);
            }
            Err(e) => out.notes.push(e.to_string()),
        }
    }
    let fluxes: Vec<FluxKustomization> = plain
        .iter()
        .filter(|(_, l)| flux::may_hold(l.source.text()))
        .flat_map(|(p, l)| flux::find(l, p))
        .collect();
    let envs = environments(&repo, &fluxes, &plain, &mut out.notes);

    let roots: Vec<PathBuf> = envs
        .iter()
        .flat_map(|e| &e.units)
        .filter_map(|(u, _)| match u {
            Unit::Root(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    let mut kustomize = Kustomize::find(render_opts.kustomize.as_deref());
    if let Some(k) = &mut kustomize {
        k.plugins = render_opts.plugins;
        k.helm = render_opts.helm_inflation;
    } else if !roots.is_empty() {
        out.notes.push(
            "no kustomize found (neither `kustomize` nor `kubectl` on PATH): kustomize roots were not linted; install kubectl or set gitops.kustomize in .karmada-policy.yaml".into(),
        );
    }
    let builds = kustomize
        .as_ref()
        .map(|k| k.build_all(&roots, render::default_workers()))
        .unwrap_or_default();
    for dir in &repo.kustomizations {
        if !dir.1.helm_charts.is_empty() && !render_opts.helm_inflation {
            out.notes.push(format!(
                "{}: helmCharts ({}) are not inflated; set gitops.helmInflation: true to render them",
                dir.1.file.display(),
                dir.1.helm_charts.join(", ")
            ));
        }
    }
    let helm = Helm::find(render_opts.helm.as_deref());
    let mapper = Mapper::new(&repo);
    let env_names: Vec<String> = envs.iter().map(|e| e.name.clone()).collect();
    let mut merged: Vec<(Finding, Vec<String>)> = Vec::new();
    let mut charts_noted = BTreeSet::new();
    let mut counted = BTreeSet::new();
    for env in &envs {
        let mut loaded = Vec::new();
        let mut rendered: Vec<Rendered> = Vec::new();
        let mut findings = Vec::new();
        for (unit, vars) in &env.units {
            match unit {
                Unit::Plain(file) => {
                    let Some(l) = plain.get(file) else { continue };
                    loaded.push(substituted_plain(l, vars.as_ref()));
                }
                Unit::Root(dir) => match builds.get(dir) {
                    Some(Ok(text)) => rendered.push(rendered_root(&repo, dir, text, vars.as_ref())),
                    Some(Err(e)) => findings.push(render_finding(&repo, &mapper, dir, e)),
                    None => {}
                },
                Unit::Chart(dir) => match &helm {
                    Some(h) => {
                        let values = render_opts
                            .helm_values
                            .get(dir)
                            .cloned()
                            .unwrap_or_default();
                        match h.template(dir, &values) {
                            Ok(text) => rendered.push(rendered_chart(dir, &text)),
                            Err(e) => findings.push(chart_finding(&mapper, dir, &e.to_string())),
                        }
                    }
                    None => {
                        if charts_noted.insert(dir.clone()) {
                            out.notes.push(format!(
                                "{}: Helm chart not linted (helm is not on PATH); lint it with `helm template {} | kubectl karmada-policy lint -`",
                                dir.display(),
                                dir.display()
                            ));
                        }
                    }
                },
            }
        }
        for (unit, _) in &env.units {
            if counted.insert(format!("{unit:?}")) {
                let docs = match unit {
                    Unit::Plain(f) => plain.get(f).map_or(0, |l| l.documents.len()),
                    _ => 0,
                };
                out.documents += docs;
            }
        }
        for r in &rendered {
            out.documents += r.loaded.documents.len();
        }
        let (env_findings, inventory) =
            lint_environment(&mut loaded, &mut rendered, namespace, opts, &mapper);
        out.policies += inventory.policies().count();
        out.environments.push((env.name.clone(), inventory));
        findings.extend(env_findings);
        for f in findings {
            match merged.iter_mut().find(|(m, _)| same_finding(m, &f)) {
                Some((_, names)) => names.push(env.name.clone()),
                None => merged.push((f, vec![env.name.clone()])),
            }
        }
    }
    let several = env_names.len() > 1;
    out.findings = merged
        .into_iter()
        .map(|(mut f, names)| {
            if several {
                f.message = format!("{} (in: {})", f.message, names.join(", "));
            }
            f
        })
        .collect();
    out.findings = super::apply_settings(std::mem::take(&mut out.findings), &opts.rules);
    out.findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out
}

/// Lints piped input named `name` (`--stdin-filename`). Rendered input keeps the traces of
/// where it came from: `config.kubernetes.io/origin` annotations (`buildMetadata:
/// [originAnnotations]`) and Helm's `# Source:` comments. When `name` is the directory it was
/// rendered from, the findings go to those files, through that directory's patches, as for
/// `lint DIR`; otherwise they stay on `name`.
pub fn lint_piped(text: String, name: &str, namespace: &str, opts: &LintOptions) -> Linted {
    let dir = PathBuf::from(name);
    let repo = if dir.is_dir() {
        discover_from(&dir)
    } else {
        Repository::default()
    };
    let base = if dir.is_dir() {
        dir.clone()
    } else {
        PathBuf::new()
    };
    let mut loaded = load(Source::new(name, text));
    let chart = base.join("Chart.yaml").is_file();
    let comments = chart.then(|| source_comments(&loaded, &base));
    let origins: Vec<Option<PathBuf>> = loaded
        .documents
        .iter_mut()
        .enumerate()
        .map(|(i, d)| {
            let annotated = origin::take_origin(&mut d.root)
                .map(|raw| crate::source::kustomize::normalize(&base.join(raw)));
            annotated
                .or_else(|| comments.as_ref().and_then(|c| c[i].clone()))
                .filter(|p| p.is_file())
        })
        .collect();
    let fallback = discover::kustomization_file(&base).unwrap_or_else(|| dir.clone());
    let closure = repo.closure(&crate::source::kustomize::normalize(&base));
    let mapper = Mapper::new(&repo);
    let mut rendered = vec![Rendered {
        loaded,
        origins,
        layers: Layers { closure, fallback },
    }];
    let documents = rendered[0].loaded.documents.len();
    let (mut findings, inventory) =
        lint_environment(&mut Vec::new(), &mut rendered, namespace, opts, &mapper);
    findings = super::apply_settings(findings, &opts.rules);
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Linted {
        findings,
        notes: Vec::new(),
        files: 1,
        documents,
        policies: inventory.policies().count(),
        environments: vec![(name.to_string(), inventory)],
    }
}

/// The kustomizations `dir` builds on, wherever they are (bases outside `dir` too).
fn discover_from(dir: &Path) -> Repository {
    let mut scanned: Vec<PathBuf> = vec![dir.to_path_buf()];
    let mut inputs: Vec<PathBuf> =
        files::expand(&[dir.display().to_string()], &|_| false).unwrap_or_default();
    loop {
        let repo = discover::discover(&inputs);
        let more: Vec<PathBuf> = repo
            .kustomizations
            .values()
            .flat_map(|k| k.resource_dirs.iter().chain(&k.components))
            .filter(|d| !scanned.iter().any(|s| d.starts_with(s)))
            .cloned()
            .collect();
        if more.is_empty() || scanned.len() > 64 {
            return repo;
        }
        for d in more {
            inputs
                .extend(files::expand(&[d.display().to_string()], &|_| false).unwrap_or_default());
            scanned.push(d);
        }
    }
}

/// Templates whose owner changes between two lints of a repository, environment by
/// environment (an environment new at head is compared with an empty one); a change seen in
/// several environments is listed once.
pub fn ownership_changes(
    base: &Linted,
    head: &Linted,
    options: crate::engine::state::Options,
) -> Vec<crate::engine::ownership::OwnershipChange> {
    let empty = Inventory::from_documents(Vec::new(), "default");
    let mut out: Vec<crate::engine::ownership::OwnershipChange> = Vec::new();
    for (name, head_inv) in &head.environments {
        let base_inv = base
            .environments
            .iter()
            .find(|(n, _)| n == name)
            .map_or(&empty, |(_, i)| i);
        for change in
            crate::engine::ownership::ownership_changes(base_inv, head_inv, options.clone())
        {
            if !out.contains(&change) {
                out.push(change);
            }
        }
    }
    out
}

/// The environments of the repository (see the module's overview).
fn environments(
    repo: &Repository,
    fluxes: &[FluxKustomization],
    plain: &BTreeMap<PathBuf, Loaded>,
    notes: &mut Vec<String>,
) -> Vec<Environment> {
    let mut envs: Vec<Environment> = Vec::new();
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
            let vars = variables(f, repo, plain, notes);
            let vars = (!vars.is_empty() || !f.substitute_from.is_empty()).then_some(vars);
            for r in repo.roots.iter().filter(|r| r.starts_with(path)) {
                used_roots.insert(r.clone());
                units.push((Unit::Root(r.clone()), vars.clone()));
            }
            for c in repo.charts.iter().filter(|c| c.starts_with(path)) {
                units.push((Unit::Chart(c.clone()), vars.clone()));
            }
            for p in plain.keys().filter(|p| p.starts_with(path)) {
                used_plain.insert(p.clone());
                units.push((Unit::Plain(p.clone()), vars.clone()));
            }
        }
        let name = dir.file_name().map_or(dir.display().to_string(), |n| {
            n.to_string_lossy().into_owned()
        });
        envs.push(Environment { name, units });
    }
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
        envs.push(Environment {
            name: r.display().to_string(),
            units,
        });
    }
    if rest_roots.is_empty() && !rest_plain.is_empty() {
        envs.push(Environment {
            name: "plain manifests".into(),
            units: rest_plain
                .iter()
                .map(|p| (Unit::Plain(p.clone()), None))
                .collect(),
        });
    }
    for c in &repo.charts {
        let in_flux = envs.iter().any(|e| {
            e.units
                .iter()
                .any(|(u, _)| matches!(u, Unit::Chart(d) if d == c))
        });
        if !in_flux {
            envs.push(Environment {
                name: c.display().to_string(),
                units: vec![(Unit::Chart(c.clone()), None)],
            });
        }
    }
    envs
}

/// `postBuild.substitute` over the ConfigMaps and Secrets `substituteFrom` names (found among
/// the plain manifests; later sources win, `substitute` wins over all, as in Flux).
fn variables(
    f: &FluxKustomization,
    _repo: &Repository,
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

/// A plain file as linted in an environment: with that environment's Flux variables.
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
fn source_comments(loaded: &Loaded, chart_dir: &Path) -> Vec<Option<PathBuf>> {
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

fn render_finding(
    repo: &Repository,
    mapper: &Mapper<'_>,
    dir: &Path,
    e: &render::RenderError,
) -> Finding {
    let file = repo
        .kustomizations
        .get(dir)
        .map_or(dir.to_path_buf(), |k| k.file.clone());
    at_first_line(mapper, &file, e.to_string())
}

fn chart_finding(mapper: &Mapper<'_>, dir: &Path, message: &str) -> Finding {
    at_first_line(
        mapper,
        &dir.join("Chart.yaml"),
        format!("helm template failed: {message}"),
    )
}

fn at_first_line(mapper: &Mapper<'_>, file: &Path, message: String) -> Finding {
    let f = Finding::new(RENDER_FAILED.id, RENDER_FAILED.default_severity, message);
    match mapper.file(file) {
        Some(l) => f.at(&l.source, crate::source::Span::point(1, 1)),
        None => f,
    }
}

/// Lints one environment and traces the findings in rendered streams back to their sources.
fn lint_environment(
    loaded: &mut Vec<Loaded>,
    rendered: &mut [Rendered],
    namespace: &str,
    opts: &LintOptions,
    mapper: &Mapper<'_>,
) -> (Vec<Finding>, Inventory) {
    let mut findings = Vec::new();
    let mut documents: Vec<Document> = Vec::new();
    let mut sources: Vec<Loaded> = Vec::new();
    for r in rendered.iter_mut() {
        let docs = std::mem::take(&mut r.loaded.documents);
        let (kept, templated) = split_unresolved(docs);
        findings.extend(templated);
        r.loaded.documents = kept.clone();
        documents.extend(kept);
        sources.push(Loaded {
            source: r.loaded.source.clone(),
            documents: Vec::new(),
            problems: r.loaded.problems.clone(),
        });
    }
    for l in loaded.drain(..) {
        let (kept, templated) = split_unresolved(l.documents);
        findings.extend(templated);
        documents.extend(kept);
        sources.push(Loaded {
            source: l.source,
            documents: Vec::new(),
            problems: l.problems,
        });
    }
    let inventory = Inventory::from_documents(documents, namespace);
    findings.extend(super::lint(&sources, &inventory, opts));
    for f in &mut findings {
        if let Some(l) = &f.location {
            if let Some(mapped) = trace(rendered, mapper, l, f.field.as_deref()) {
                f.location = Some(mapped);
            }
        }
        for r in &mut f.related {
            if let Some(mapped) = trace(rendered, mapper, &r.location, None) {
                r.location = mapped;
            }
        }
    }
    (findings, inventory)
}

/// A policy holding an unresolved `${var}` (no Flux value, no default) is an unrendered
/// template, whichever rule its value would otherwise break: it is reported as such and not
/// linted further.
fn split_unresolved(docs: Vec<Document>) -> (Vec<Document>, Vec<Finding>) {
    let mut kept = Vec::new();
    let mut findings = Vec::new();
    for d in docs {
        let api = d
            .root
            .get("apiVersion")
            .and_then(Node::as_str)
            .unwrap_or("");
        let karmada = crate::model::group_of(api).ends_with("karmada.io");
        match karmada.then(|| find_variable(&d.root)).flatten() {
            Some((span, text)) => {
                let doc = &super::rules::input::UNRENDERED_TEMPLATE;
                findings.push(
                    Finding::new(
                        doc.id,
                        doc.default_severity,
                        format!("unresolved variable `{text}`: no Flux postBuild.substitute value and no default; this document was skipped"),
                    )
                    .at(&d.source, span),
                );
            }
            None => kept.push(d),
        }
    }
    (kept, findings)
}

fn find_variable(node: &Node) -> Option<(crate::source::Span, String)> {
    match &node.value {
        Value::Str(s) => {
            let i = s.find("${")?;
            let end = s[i..].find('}').map_or(s.len(), |e| i + e + 1);
            Some((node.span, s[i..end].to_string()))
        }
        Value::Seq(items) => items.iter().find_map(find_variable),
        Value::Map(entries) => entries.iter().find_map(|e| find_variable(&e.value)),
        _ => None,
    }
}

/// The source place of a location in a rendered stream (`None`: not in one).
fn trace(
    rendered: &[Rendered],
    mapper: &Mapper<'_>,
    location: &Location,
    field: Option<&str>,
) -> Option<Location> {
    let r = rendered
        .iter()
        .find(|r| Arc::ptr_eq(&r.loaded.source, &location.source))?;
    let line = location.span.start.line;
    let i = r
        .loaded
        .documents
        .iter()
        .position(|d| d.root.span.start.line <= line && line <= d.root.span.end.line)?;
    let doc = &r.loaded.documents[i];
    let path = match field {
        Some(f) => FieldPath::parse(f),
        None => origin::path_at(&doc.root, location.span.start),
    };
    let origin = r.origins.get(doc.index).cloned().flatten();
    let (source, span) = mapper.locate(&r.layers, &doc.root, origin.as_deref(), &path)?;
    Some(Location { source, span })
}

fn same_finding(a: &Finding, b: &Finding) -> bool {
    a.rule == b.rule
        && a.message == b.message
        && a.field == b.field
        && a.location.as_ref().map(Location::display) == b.location.as_ref().map(Location::display)
}
