//! `lint` over a GitOps repository: kustomize roots rendered with the real kustomize, Helm
//! charts, Flux substitution, and the rules run once per environment (what one control plane
//! receives), with every finding traced back to the source line to edit.
//!
//! An environment is, where the repository says so, the union of the paths of the Flux
//! `Kustomization` objects of one cluster directory (`clusters/prod/`); otherwise each root
//! together with the plain manifests outside every kustomization. A finding that several
//! environments share (a base used by prod and staging) is reported once, naming them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::rules::render_failed::RENDER_FAILED;
use super::{Finding, LintOptions, Linted, Location};
use crate::model::Inventory;
use crate::source::kustomize::discover::{self, Repository};
use crate::source::kustomize::environments::{self, Rendered, Repo, UnknownEnvironment};
use crate::source::kustomize::origin::{self, Layers, Mapper};
use crate::source::{files, load, Document, Loaded, Node, Source};

pub use crate::source::kustomize::environments::RenderOptions;

/// A repository's findings and what was said about it on the way.
#[derive(Debug, Default)]
pub struct RepoLinted {
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
    pub files: usize,
    pub documents: usize,
    pub policies: usize,
    /// Each environment's name and objects, for comparing revisions (`lint --base`).
    pub environments: Vec<(String, Inventory)>,
}

impl RepoLinted {
    /// The run's result.
    pub fn into_linted(self) -> Linted {
        Linted {
            files: self.files,
            documents: self.documents,
            policies: self.policies,
            findings: self.findings,
            notes: self.notes,
            _retained: Some(Box::new(self.environments)),
            ..Linted::default()
        }
    }
}

/// Whether `files` hold kustomizations or charts to render (else `lint` reads them as plain
/// manifests, as it always has).
pub fn applies(files: &[PathBuf]) -> bool {
    discover::holds_rendering(files)
}

/// Whether `--env` can apply to the PATHs (the current directory when none): rendering is on
/// and they hold a repository to render.
pub fn env_applies(paths: &[String], config: &super::Config) -> bool {
    let here = [".".to_string()];
    let paths = if paths.is_empty() { &here[..] } else { paths };
    !config.render_off
        && files::expand(paths, &|p: &Path| config.ignores(p)).is_ok_and(|f| applies(&f))
}

/// Lints the repository the files belong to (only the environment `--env` names, if set).
pub fn lint_repository(
    inputs: &[PathBuf],
    namespace: &str,
    opts: &LintOptions,
    render_opts: &RenderOptions,
) -> Result<RepoLinted, UnknownEnvironment> {
    let mut repo = Repo::read(inputs, render_opts);
    if let Some(wanted) = &render_opts.environment {
        repo.select(wanted)?;
    }
    let mut out = RepoLinted {
        files: inputs.len(),
        notes: std::mem::take(&mut repo.notes),
        ..RepoLinted::default()
    };
    let mut renders = repo.render(render_opts);
    let mapper = repo.mapper();
    let several = repo.plans.len() > 1;
    let mut merged: Vec<(Finding, Vec<String>)> = Vec::new();
    let mut counted = BTreeSet::new();
    for plan in &repo.plans {
        let mut env = repo.environment(plan, &mut renders);
        let mut findings: Vec<Finding> = env
            .failures
            .iter()
            .map(|f| at_first_line(&mapper, &f.file, f.message.clone()))
            .collect();
        // A plain file's documents as the environment receives them: one a Flux variable made
        // unreadable before substitution counts once substituted. Each file once.
        for l in &env.plain {
            if counted.insert(l.source.name.clone()) {
                out.documents += l.documents.len();
            }
        }
        for r in &env.rendered {
            out.documents += r.loaded.documents.len();
        }
        let (env_findings, inventory) =
            lint_environment(&mut env.plain, &mut env.rendered, namespace, opts, &mapper);
        out.policies += inventory.policies().count();
        if let Some(n) = super::clusters_note(&inventory, opts) {
            if !out.notes.contains(&n) {
                out.notes.push(n);
            }
        }
        out.environments.push((env.name.clone(), inventory));
        findings.extend(env_findings);
        for f in findings {
            match merged.iter_mut().find(|(m, _)| same_finding(m, &f)) {
                Some((_, names)) => names.push(env.name.clone()),
                None => merged.push((f, vec![env.name.clone()])),
            }
        }
    }
    out.notes.extend(renders.notes);
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
    Ok(out)
}

/// Lints piped input named `name` (`--stdin-filename`). Rendered input keeps the traces of
/// where it came from: `config.kubernetes.io/origin` annotations (`buildMetadata:
/// [originAnnotations]`) and Helm's `# Source:` comments. When `name` is the directory it was
/// rendered from, the findings go to those files, through that directory's patches, as for
/// `lint DIR`; otherwise they stay on `name`.
pub fn lint_piped(text: String, name: &str, namespace: &str, opts: &LintOptions) -> RepoLinted {
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
    let comments = chart.then(|| environments::source_comments(&loaded, &base));
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
    RepoLinted {
        findings,
        notes: super::clusters_note(&inventory, opts).into_iter().collect(),
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
/// several environments is listed once, naming them.
pub fn ownership_changes(
    base: &RepoLinted,
    head: &RepoLinted,
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
            match out.iter_mut().find(|c| {
                c.resource == change.resource
                    && c.before == change.before
                    && c.after == change.after
                    && c.preempted == change.preempted
                    && c.blocked_by == change.blocked_by
            }) {
                Some(seen) => seen.environments.push(name.clone()),
                None => out.push(crate::engine::ownership::OwnershipChange {
                    environments: vec![name.clone()],
                    ..change
                }),
            }
        }
    }
    out
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
            data: Vec::new(),
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
            data: Vec::new(),
        });
    }
    let mut inventory = Inventory::from_documents(documents, namespace);
    findings.extend(super::lint(&sources, &mut inventory, opts));
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
        match karmada
            .then(|| environments::unresolved_variable(&d.root))
            .flatten()
        {
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

/// The source place of a location in a rendered stream (`None`: not in one).
fn trace(
    rendered: &[Rendered],
    mapper: &Mapper<'_>,
    location: &Location,
    field: Option<&str>,
) -> Option<Location> {
    let (source, span) =
        environments::trace(rendered, mapper, &location.source, location.span, field)?;
    Some(Location { source, span })
}

fn same_finding(a: &Finding, b: &Finding) -> bool {
    a.rule == b.rule
        && a.message == b.message
        && a.field == b.field
        && a.location.as_ref().map(Location::display) == b.location.as_ref().map(Location::display)
}
