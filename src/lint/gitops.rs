//! `lint` over a GitOps repository: kustomize roots rendered with the real kustomize, Helm
//! charts with the real helm, Flux substitution, and the rules run once per environment (what
//! one API server receives), with every finding traced back to the source line to edit.
//!
//! The environments are planned as Flux and Argo CD deploy them (see
//! `source::kustomize::plan`); only those reaching a Karmada API server are linted, each with
//! the release and feature gates of the Karmada the repository installs for it
//! ([`crate::model::installation`]) under the configuration's and the flags'. A finding that
//! several environments share (a base used by two clusters) is reported once, naming them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::rules;
use super::rules::input::{UNRENDERED_TEMPLATE, YAML_SYNTAX};
use super::rules::render_failed::{REMOTE_RESOURCE, RENDERER_NOT_FOUND, RENDER_FAILED};
use super::{Finding, LintOptions, Linted, Location};
use crate::context::{Config, Context};
use crate::model::elsewhere::Elsewhere;
use crate::model::environments::survey;
use crate::model::feature_gates::GateSet;
use crate::model::installation::{self, Installation, RepositorySettings, SchedulerRead};
use crate::model::{Inventory, KarmadaVersion};
use crate::source::kustomize::discover::{self, Repository};
use crate::source::kustomize::environments::{
    self, Environment, Rendered, Repo, UnknownEnvironment,
};
use crate::source::kustomize::failure::FailureKind;
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
    /// Each linted environment's objects and settings, for comparing revisions (`lint --base`).
    pub environments: Vec<LintedEnvironment>,
    /// Every environment the repository declares, linted or not.
    pub described: Vec<EnvironmentInfo>,
}

impl RepoLinted {
    /// The Flux Kustomizations and Argo CD Applications that apply to environment `env`.
    pub fn appliers_of(&self, env: &str) -> Vec<environments::Applier> {
        self.described
            .iter()
            .filter(|d| d.name == env)
            .flat_map(|d| d.appliers.iter().cloned())
            .collect()
    }
}

/// One linted environment: its objects, and the release and gates it was linted with.
#[derive(Debug)]
pub struct LintedEnvironment {
    pub name: String,
    pub inventory: Inventory,
    pub gates: GateSet,
    pub version: KarmadaVersion,
}

/// An environment as the outputs name it: the API server it targets, whether that is a
/// Karmada API server (only those are linted), and the repository's own Karmada settings for
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvironmentInfo {
    pub name: String,
    pub target: String,
    pub karmada: bool,
    /// Files no controller applies (a directory of them).
    pub loose: bool,
    /// No controller object of the repository names what applies it: loose files, or a root or
    /// chart no Flux Kustomization or Argo CD Application applies (named after its directory).
    pub undeclared: bool,
    /// The Karmada release it was linted for.
    pub version: Option<String>,
    /// The repository's installation of Karmada for it: what was read, from where.
    pub installation: Option<Installation>,
    /// The scheduler names the repository's Karmada serves for it besides
    /// `default-scheduler` (its karmada-scheduler Deployments, the operator's extraArgs).
    pub schedulers: Vec<SchedulerRead>,
    /// Its roots that did not render (their failures are findings): whether it is a Karmada
    /// API server was judged by the rest, and its objects are not all linted.
    pub unrendered: Vec<Unrendered>,
    /// Every root of it failed and it has no plain file: nothing of it was linted.
    pub nothing_rendered: bool,
    /// The Argo CD Applications deploying to it (an Argo CD destination).
    pub applications: Vec<environments::ArgoApplication>,
    /// What applies to it, and whether each deletes what its source stops giving.
    pub appliers: Vec<environments::Applier>,
}

/// A root or chart that did not render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrendered {
    /// Where its failure is reported, `FILE:LINE:COL`.
    pub at: String,
    /// The digest of the local files its build reads
    /// ([`crate::source::kustomize::failure::inputs_digest`]; 0: not taken).
    pub inputs: u64,
    /// The source name its objects' documents have where it renders
    /// ([`crate::source::kustomize::units::output_name`]).
    pub output: String,
}

impl Unrendered {
    /// Whether it failed alike (at the same place, over the same local files) among `base`'s
    /// roots that did not render: then it holds the same objects on both sides, and a
    /// comparison of the two misses nothing there.
    pub fn failed_alike<'a>(&self, mut base: impl Iterator<Item = &'a Unrendered>) -> bool {
        self.inputs != 0 && base.any(|b| b == self)
    }
}

impl EnvironmentInfo {
    /// Whether a root of it did not render.
    pub fn incomplete(&self) -> bool {
        !self.unrendered.is_empty()
    }
}

impl RepoLinted {
    /// The roots of environment `env` that did not render.
    pub fn unrendered_in(&self, env: &str) -> Vec<&Unrendered> {
        self.described
            .iter()
            .filter(|d| d.name == env)
            .flat_map(|d| &d.unrendered)
            .collect()
    }

    /// Where the roots that did not render here are reported, but for those that failed alike
    /// in `base` ([`Unrendered::failed_alike`]): the others a comparison cannot see into.
    pub fn unrendered_unlike(&self, base: &RepoLinted) -> BTreeSet<String> {
        let at_base = || base.described.iter().flat_map(|d| &d.unrendered);
        self.described
            .iter()
            .flat_map(|d| &d.unrendered)
            .filter(|r| !r.failed_alike(at_base()))
            .map(|r| r.at.clone())
            .collect()
    }
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
            environments: self.described,
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

/// The part of [`applies`] that reads no file: a kustomization or chart by its file name. The
/// rest, whether a file defines GitOps environments, a plain `lint` asks of each file as it
/// parses it ([`super::stream::lint_paths_in`]).
pub fn applies_by_name(files: &[PathBuf]) -> bool {
    discover::holds_by_name(files)
}

/// Whether `--env` can apply to the PATHs (the current directory when none): rendering is on
/// and they hold a repository to render.
pub fn env_applies(paths: &[String], config: &super::Config) -> bool {
    let here = [".".to_string()];
    let paths = if paths.is_empty() { &here[..] } else { paths };
    !config.render_off
        && files::expand(paths, &|p: &Path| config.ignores(p)).is_ok_and(|f| applies(&f))
}

/// Rules that judge a policy by the templates the input lacks.
const JUDGED_BY_ABSENCE: [&str; 2] = [
    rules::dead_policy::DOC.id,
    rules::override_reach::SELECTS_NOTHING.id,
];

/// In an environment whose controllers also apply sources outside this repository (an Argo CD
/// Application's chart from another repository), the templates a policy selects may be there:
/// the findings of [`JUDGED_BY_ABSENCE`] say so rather than that the policy never applies.
fn qualify_absence(findings: &mut [Finding], env: &str, elsewhere: &[String]) {
    if elsewhere.is_empty() {
        return;
    }
    let sources = elsewhere
        .iter()
        .map(|e| format!("`{e}`"))
        .collect::<Vec<_>>()
        .join(", ");
    for f in findings
        .iter_mut()
        .filter(|f| JUDGED_BY_ABSENCE.contains(&f.rule))
    {
        f.message.push_str(&format!(
            "; environment {env} also applies {sources}, which is not in this repository: a template there may match it"
        ));
    }
}

/// What to lint and with what.
pub struct RepositoryRequest<'a> {
    pub inputs: &'a [PathBuf],
    /// The repository's root (see [`RenderOptions::root`]).
    pub root: Option<PathBuf>,
    /// `-n`: the namespace of objects that set none and that nothing else places.
    pub namespace: &'a str,
    pub opts: &'a LintOptions,
    /// The run's context: each environment takes it with its own Karmada installation.
    pub context: &'a Context,
    /// `--base`: the base revision, linted. An environment's objects that its control plane
    /// already stores (the same environment at the base holds them) are judged as updates.
    pub base: Option<&'a RepoLinted>,
    /// The installation the rest of the repository holds, outside the inputs (read where the
    /// environments hold none: [`crate::model::elsewhere`]); the git modes read the
    /// revision's.
    pub elsewhere: &'a dyn Fn() -> Option<Elsewhere>,
}

/// Lints the repository the files belong to (only the environment `--env` names, if set).
pub fn lint_repository(req: &RepositoryRequest<'_>) -> Result<RepoLinted, UnknownEnvironment> {
    let config = &req.context.config;
    let mut render = config.render_options.clone();
    render.root = req.root.clone();
    let mut repo = Repo::read(req.inputs, &render);
    let mut out = RepoLinted {
        files: req.inputs.len(),
        notes: std::mem::take(&mut repo.notes),
        ..RepoLinted::default()
    };
    let mut renders = repo.render(&render);
    let mut surveyed = survey(&repo, &mut renders, req.elsewhere);
    out.notes
        .extend(surveyed.elsewhere.as_ref().and_then(|e| e.note()));
    if let Some(n) = repo.share_loose_clusters(&mut surveyed.karmada, &mut renders) {
        out.notes.push(n);
    }
    if let Some(wanted) = &render.environment {
        repo.select(wanted)?;
    }
    let mapper = repo.mapper();
    let mut merged: Vec<(Finding, Vec<String>)> = Vec::new();
    let mut counted = BTreeSet::new();
    let mut counted_policies = BTreeSet::new();
    // What was read of the repository's Karmada, once for every environment it holds for.
    let mut read_settings: Vec<(String, RepositorySettings)> = Vec::new();
    for plan in &repo.plans {
        let karmada = surveyed.karmada.contains(&plan.name);
        let settings = surveyed.settings_for(plan);
        let env_opts = with_repository(req.opts, req.context, &settings, &mut out.notes);
        let mut env = repo.environment(plan, &mut renders);
        let mut findings: Vec<Finding> = env
            .failures
            .iter()
            .map(|f| failure_finding(&mapper, f))
            .collect();
        // A plain file of data (a values file, kubectl's explain text) is skipped: it does not
        // make the environment linted, nor is it counted among the documents linted.
        let nothing_rendered =
            env.rendered.is_empty() && !env.plain.iter().any(|(l, _)| l.holds_objects());
        out.described.push(EnvironmentInfo {
            name: plan.name.clone(),
            target: plan.target.to_string(),
            karmada,
            loose: plan.target == environments::Target::Loose,
            undeclared: matches!(
                plan.target,
                environments::Target::Loose | environments::Target::Undeclared
            ),
            version: karmada.then(|| env_opts.version().to_string()),
            installation: settings.installation.clone(),
            schedulers: settings.schedulers_read(),
            unrendered: findings
                .iter()
                .zip(&env.failures)
                .map(|(f, failure)| Unrendered {
                    at: f.location.as_ref().map(|l| l.display()).unwrap_or_default(),
                    inputs: failure.inputs,
                    output: failure.output.clone(),
                })
                .collect(),
            nothing_rendered,
            applications: plan.applications.clone(),
            appliers: plan.appliers.clone(),
        });
        if karmada {
            read_settings.push((plan.name.clone(), settings.clone()));
            // A plain file's documents as the environment receives them: one a Flux variable
            // made unreadable before substitution counts once substituted. Each file once.
            for (l, _) in env.plain.iter().filter(|_| !nothing_rendered) {
                if counted.insert(l.source.name.clone()) {
                    out.documents += l.documents.len();
                }
            }
            for r in &env.rendered {
                out.documents += r.loaded.documents.len();
            }
            let namespaces = Namespaces {
                flag: req.namespace,
                config,
            };
            let stored = req
                .base
                .and_then(|b| b.environments.iter().find(|e| e.name == env.name));
            let (mut env_findings, inventory) =
                lint_environment(&mut env, &namespaces, &env_opts, &mapper, stored);
            qualify_absence(&mut env_findings, &env.name, &plan.elsewhere);
            // Each policy once per control plane: the plain files join every undeclared root
            // of the repository (one target, maybe one API server), where they hold their
            // policies once; a file two Flux instances apply is in two control planes.
            for p in inventory.policies() {
                let d = &inventory.documents[p.doc];
                let target = (plan.instance.clone(), plan.target.to_string());
                if counted_policies.insert((target, d.source.name.clone(), d.index)) {
                    out.policies += 1;
                }
            }
            if let Some(n) = super::clusters_note(&inventory, &env_opts) {
                if !out.notes.contains(&n) {
                    out.notes.push(n);
                }
            }
            out.environments.push(LintedEnvironment {
                name: env.name.clone(),
                inventory,
                gates: env_opts.gates.clone(),
                version: env_opts.version(),
            });
            findings.extend(env_findings);
        }
        for f in findings {
            match merged.iter_mut().find(|(m, _)| same_finding(m, &f)) {
                Some((_, names)) => names.push(env.name.clone()),
                None => merged.push((f, vec![env.name.clone()])),
            }
        }
    }
    out.notes.extend(installation::settings_notes(
        read_settings.iter().map(|(n, s)| (n.as_str(), s)),
    ));
    out.notes.extend(renders.notes);
    // Environments named in findings: more than one, and each finding says where it holds.
    let mut named: BTreeSet<&str> = repo
        .plans
        .iter()
        .filter(|p| surveyed.karmada.contains(&p.name))
        .map(|p| p.name.as_str())
        .collect();
    named.extend(
        merged
            .iter()
            .flat_map(|(_, n)| n.iter().map(String::as_str)),
    );
    let several = named.len() > 1;
    out.findings = merged
        .into_iter()
        .map(|(mut f, names)| {
            if several {
                f.message = format!("{} (in: {})", f.message, names.join(", "));
            }
            f
        })
        .collect();
    out.findings = super::apply_settings(std::mem::take(&mut out.findings), &req.opts.rules);
    out.findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(out)
}

/// The lint options for an environment: the run's context with the repository's Karmada
/// installation for it ([`Context::for_repository`]).
fn with_repository(
    opts: &LintOptions,
    context: &Context,
    settings: &RepositorySettings,
    notes: &mut Vec<String>,
) -> LintOptions {
    let (env, said) = context.for_repository(settings);
    for note in said {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    opts.under(&env)
}

/// duplicate-identity for a copy an Argo CD Application renders but does not apply: it keeps
/// the last copy of each object ([`environments::Superseded`]), which is no update of this one.
fn superseded_finding(s: &environments::Superseded) -> Finding {
    let doc = &rules::duplicate_identity::DOC;
    let (source, span) = &s.applied;
    let there = format!("{}:{}", source.name, span.start.line);
    Finding::new(
        doc.id,
        doc.default_severity,
        format!(
            "{} is defined twice in Argo CD Application {}: it applies only the last copy, the \
             one at {there} (RepeatedResourceWarning), and never this one",
            s.object, s.application
        ),
    )
    .at(&s.copy.0, s.copy.1)
    .field("metadata.name")
    .related(source, *span, "the copy Argo CD applies")
}

/// A build that failed, as a finding at the line to edit.
fn failure_finding(mapper: &Mapper<'_>, f: &environments::RenderFailure) -> Finding {
    let doc = match f.kind {
        FailureKind::Render => &RENDER_FAILED,
        FailureKind::Remote => &REMOTE_RESOURCE,
        FailureKind::Syntax => &YAML_SYNTAX,
        FailureKind::Templating => &UNRENDERED_TEMPLATE,
        FailureKind::NoRenderer => &RENDERER_NOT_FOUND,
    };
    let finding = Finding::new(doc.id, doc.default_severity, f.message.clone());
    let mut finding = match mapper.file(&f.file) {
        Some(l) => finding.at(&l.source, f.span),
        None => finding,
    };
    // The build's other broken files, which kustomize would name one fix at a time.
    for (file, span, message) in &f.also {
        if let Some(l) = mapper.file(file) {
            finding = finding.related(&l.source, *span, format!("also: {message}"));
        }
    }
    finding
}

/// Where the objects of an environment that set no namespace go: the unit's (Flux
/// `targetNamespace`, an Argo CD destination's), else the configuration's for their file, else
/// `-n`.
struct Namespaces<'a> {
    flag: &'a str,
    config: &'a Config,
}

impl Namespaces<'_> {
    /// The namespace for a document of `file` from a unit that gives `unit`, and whether it is
    /// only assumed (nothing in the repository, the configuration or the flags says).
    fn of(&self, unit: Option<&str>, file: Option<&Path>) -> (String, bool) {
        if let Some(ns) = unit {
            return (ns.to_string(), false);
        }
        if let Some(ns) = file.and_then(|f| self.config.namespace_for(f)) {
            return (ns.to_string(), false);
        }
        (self.flag.to_string(), self.flag == "default")
    }
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
        namespace: None,
    }];
    let documents = rendered[0].loaded.documents.len();
    let mut env = Environment {
        name: name.to_string(),
        target: environments::Target::Undeclared,
        rendered: std::mem::take(&mut rendered),
        plain: Vec::new(),
        failures: Vec::new(),
        superseded: Vec::new(),
    };
    let config = Config::default();
    let context = Namespaces {
        flag: namespace,
        config: &config,
    };
    let (mut findings, inventory) = lint_environment(&mut env, &context, opts, &mapper, None);
    findings = super::apply_settings(findings, &opts.rules);
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    RepoLinted {
        findings,
        notes: super::clusters_note(&inventory, opts).into_iter().collect(),
        files: 1,
        documents,
        policies: inventory.policies().count(),
        environments: vec![LintedEnvironment {
            name: name.to_string(),
            inventory,
            gates: opts.gates.clone(),
            version: opts.version(),
        }],
        described: Vec::new(),
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
/// environment (an environment new at head is compared with an empty one), each with the gates
/// and release it was linted with; a change seen in several environments is listed once,
/// naming them.
pub fn ownership_changes(
    base: &RepoLinted,
    head: &RepoLinted,
) -> Vec<crate::engine::ownership::OwnershipChange> {
    let empty = Inventory::from_documents(Vec::new(), "default");
    let mut out: Vec<crate::engine::ownership::OwnershipChange> = Vec::new();
    for env in &head.environments {
        let base_inv = base
            .environments
            .iter()
            .find(|e| e.name == env.name)
            .map_or(&empty, |e| &e.inventory);
        // What a controller that does not prune no longer applies stays, as `plan` keeps it.
        let (unpruned, _) = super::unpruned::not_pruned(
            (&base.appliers_of(&env.name), base_inv),
            (&head.appliers_of(&env.name), &env.inventory),
            &env.name,
        );
        let head_inv = super::unpruned::with_kept(&env.inventory, unpruned);
        let options = crate::engine::ownership::engine_options(&env.gates);
        for change in crate::engine::ownership::ownership_changes(base_inv, &head_inv, options) {
            match out.iter_mut().find(|c| {
                c.resource == change.resource
                    && c.before == change.before
                    && c.after == change.after
                    && c.preempted == change.preempted
                    && c.blocked_by == change.blocked_by
            }) {
                Some(seen) => seen.environments.push(env.name.clone()),
                None => out.push(crate::engine::ownership::OwnershipChange {
                    environments: vec![env.name.clone()],
                    ..change
                }),
            }
        }
    }
    out
}

/// Lints one environment and traces the findings in rendered streams back to their sources.
/// `stored` (`--base`): the same environment at the base, whose objects its control plane
/// holds.
fn lint_environment(
    env: &mut Environment,
    namespaces: &Namespaces<'_>,
    opts: &LintOptions,
    mapper: &Mapper<'_>,
    stored: Option<&LintedEnvironment>,
) -> (Vec<Finding>, Inventory) {
    let mut findings: Vec<Finding> = env.superseded.iter().map(superseded_finding).collect();
    let mut documents: Vec<Document> = Vec::new();
    let mut defaults: Vec<String> = Vec::new();
    let mut assumed: Vec<bool> = Vec::new();
    let mut sources: Vec<Loaded> = Vec::new();
    let mut place = |doc: &Document, unit: Option<&str>, file: Option<&Path>| {
        let (ns, guessed) = namespaces.of(unit, file);
        defaults.push(ns);
        assumed.push(guessed && !sets_namespace(&doc.root));
    };
    for r in env.rendered.iter_mut() {
        let docs = std::mem::take(&mut r.loaded.documents);
        let (kept, templated) = split_unresolved(docs);
        findings.extend(templated);
        for d in &kept {
            let origin = r.origins.get(d.index).cloned().flatten();
            place(d, r.namespace.as_deref(), origin.as_deref());
        }
        r.loaded.documents = kept.clone();
        documents.extend(kept);
        sources.push(Loaded {
            source: r.loaded.source.clone(),
            documents: Vec::new(),
            problems: r.loaded.problems.clone(),
            data: Vec::new(),
        });
    }
    for (l, unit) in env.plain.drain(..) {
        let (kept, templated) = split_unresolved(l.documents);
        findings.extend(templated);
        let file = PathBuf::from(&l.source.name);
        for d in &kept {
            place(d, unit.as_deref(), Some(&file));
        }
        documents.extend(kept);
        sources.push(Loaded {
            source: l.source,
            documents: Vec::new(),
            problems: l.problems,
            data: Vec::new(),
        });
    }
    let mut inventory = Inventory::from_documents_each(documents, &defaults);
    let mut linted = super::lint(&sources, &mut inventory, opts);
    if let Some(stored) = stored {
        let updated = as_updates(linted, &inventory, stored, opts);
        linted = updated.findings;
        rules::admission::mark_admitted(&mut inventory, &updated.admitted);
    }
    super::note_assumed_namespace(&mut linted, &|doc| {
        assumed.get(doc).copied().unwrap_or(false)
    });
    findings.extend(linted);
    let rendered = &env.rendered;
    for f in &mut findings {
        let rendered_at = f.location.clone();
        if let Some(l) = &f.location {
            let cause = super::rules::admission::cause_of_absent(f.rule);
            if let Some(mapped) = trace(rendered, mapper, l, f.field.as_deref(), cause) {
                f.location = Some(mapped);
            }
        }
        for r in &mut f.related {
            if let Some(mapped) = trace(rendered, mapper, &r.location, None, None) {
                let mapped = same_key_above(&r.location, rendered_at.as_ref(), &f.location)
                    .unwrap_or(mapped);
                // A message that names the related place (duplicate-identity's "replaces the
                // one at FILE:LINE", duplicate-key's "the earlier one at line N") names the
                // file to edit, as the note does.
                let at = |l: &Location| format!("{}:{}", l.source.name, l.span.start.line);
                let (before, after) = (at(&r.location), at(&mapped));
                if before != after && f.message.contains(&before) {
                    f.message = f.message.replace(&before, &after);
                }
                let line = |l: &Location| format!("at line {} ", l.span.start.line);
                let same_file =
                    f.location.as_ref().map(|l| &l.source.name) == Some(&mapped.source.name);
                if same_file && f.message.contains(&line(&r.location)) {
                    f.message = f.message.replace(&line(&r.location), &line(&mapped));
                }
                r.location = mapped;
            }
        }
    }
    (findings, inventory)
}

/// `--base`: the environment's objects that its control plane already stores, judged as the
/// updates its controller sends (changed or not, every object is applied again), as `lint
/// --base` judges plain files: Karmada's `validateUpdate` (the history rules), and the CRD
/// schema's validation ratcheting, which also covers a Karmada upgrade that leaves a stored
/// value outside the new CRD.
fn as_updates(
    linted: Vec<Finding>,
    inventory: &Inventory,
    stored: &LintedEnvironment,
    opts: &LintOptions,
) -> rules::admission::Ratcheted {
    let updates = super::registry::run_history(&super::phase::History {
        inventory,
        blame: None,
        base: Some(&stored.inventory),
    });
    let ratcheted = rules::admission::ratchet_updates(
        linted,
        inventory,
        &stored.inventory,
        opts.version(),
        stored.version == opts.version(),
    );
    let mut findings = rules::admission::short_circuited_by_updates(ratcheted.findings, &updates);
    findings.extend(updates);
    rules::admission::Ratcheted {
        findings,
        admitted: ratcheted.admitted,
    }
}

/// Whether an object writes its namespace.
fn sets_namespace(root: &Node) -> bool {
    root.get("metadata")
        .and_then(|m| m.get("namespace"))
        .and_then(Node::as_str)
        .is_some_and(|n| !n.is_empty())
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
    cause: Option<&str>,
) -> Option<Location> {
    let (source, span) = environments::trace_with_cause(
        rendered,
        mapper,
        &location.source,
        location.span,
        field,
        cause,
    )?;
    Some(Location { source, span })
}

/// A related place in the same rendered document as its finding, which tracing by field path
/// cannot tell from the finding's own (a duplicate key: both are the one key the tree keeps):
/// the source line as far above the finding's traced line as it is in the rendered stream,
/// when that line holds the same text. `None` when the two were told apart, or the lines
/// differ (the template expanded between them).
fn same_key_above(
    related: &Location,
    rendered_at: Option<&Location>,
    traced_at: &Option<Location>,
) -> Option<Location> {
    let (rendered_at, traced_at) = (rendered_at?, traced_at.as_ref()?);
    let above = rendered_at
        .span
        .start
        .line
        .checked_sub(related.span.start.line)?;
    if above == 0 || !std::sync::Arc::ptr_eq(&related.source, &rendered_at.source) {
        return None;
    }
    let line = traced_at.span.start.line.checked_sub(above)?;
    let text = related.source.line(related.span.start.line)?;
    (traced_at.source.line(line)? == text).then(|| {
        let mut span = related.span;
        span.start.line = line;
        span.end.line = line;
        Location {
            source: traced_at.source.clone(),
            span,
        }
    })
}

fn same_finding(a: &Finding, b: &Finding) -> bool {
    a.rule == b.rule
        && a.message == b.message
        && a.field == b.field
        && a.location.as_ref().map(Location::display) == b.location.as_ref().map(Location::display)
}
