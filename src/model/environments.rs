//! A GitOps repository read as `explain -f` and `preempt-check -f` need it: one inventory per
//! environment (what one control plane receives, see `source::kustomize::environments`), built
//! from the rendered documents. What could not be read is said with places in the source files
//! (through the origin traces), never in a rendered stream.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::installation::{self, InstallKind, Installation, Origin, RepositorySettings};
use super::Inventory;
use crate::source::kustomize::discover;
use crate::source::kustomize::environments::{
    self, Environment, Plan, RenderOptions, Rendered, Repo, UnknownEnvironment,
};
use crate::source::kustomize::origin::Mapper;
use crate::source::{Document, Loaded, Node, Span};

/// One environment's objects, and the Karmada its repository installs for it.
pub struct EnvInventory {
    pub name: String,
    pub inventory: Inventory,
    /// The file each document of `inventory` came from, by document index: a plain file's own
    /// path, a rendered object's source file (kustomize's origin annotation, Helm's `# Source:`
    /// comment); `None` when its render names none (an object a kustomize generator made).
    pub origins: Vec<Option<PathBuf>>,
    pub settings: RepositorySettings,
    /// A root or chart of it did not render: its objects are not all in `inventory`.
    pub incomplete: bool,
}

/// What an environment's error says of the object asked for, from least to most telling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Miss {
    /// The environment holds no object of the type asked for (an unknown kind there): an
    /// environment that knows the type says more (`it is in namespace web`), as one
    /// environment's files do when the type is among them.
    UnknownKind,
    /// The environment does not hold it.
    Absent,
    /// The environment holds it, but admission refuses it, so no decision includes it.
    Refused,
    /// Anything else: the object is there (or the question could not be asked) and the
    /// decision failed.
    Failed,
}

/// An error [`EnvInputs::holding`] can rank against the other environments' errors.
pub trait EnvError: Sized {
    fn miss(&self) -> Miss;

    /// The error when what was asked for is not found in what was read, but a part left
    /// unread (`why`) may hold it: "not found" is not known then (a failure, not exit 4).
    fn unsearched(self, _why: &str) -> Self {
        self
    }
}

/// Every environment of a repository (or the one `--env` names), and what the user should
/// know: `note:` and `warning:` lines for stderr.
pub struct EnvInputs {
    pub environments: Vec<EnvInventory>,
    /// The environments read that are not Karmada API servers (a member cluster's directory,
    /// Argo CD's `in-cluster`): nothing is decided there, so only their names are kept, and
    /// their objects only when asked for ([`read_outside_karmada`]).
    pub passed_over: Vec<String>,
    /// Those environments' objects, read only by [`read_outside_karmada`].
    pub outside: Vec<EnvInventory>,
    /// Every environment's name, also those left out by `--env`.
    pub names: Vec<String>,
    pub messages: Vec<String>,
}

/// What was decided in each environment that holds the object asked for
/// ([`EnvInputs::holding`]).
pub type Found<'a, T> = Vec<(&'a EnvInventory, T)>;

impl EnvInputs {
    /// `decide` in each environment with objects, kept where it succeeds (the template or
    /// policy asked for is there): `Err` with the most telling environment's error when it
    /// succeeds nowhere (the first of equals: an environment that holds the object refused
    /// says why, one that lacks it only that it is not there). Empty when no environment has
    /// an object.
    pub fn holding<T, E: EnvError>(
        &self,
        decide: impl Fn(&EnvInventory) -> Result<T, E>,
    ) -> Result<Found<'_, T>, E> {
        let mut found = Vec::new();
        let mut telling: Option<E> = None;
        for e in self.non_empty() {
            match decide(e) {
                Ok(t) => found.push((e, t)),
                Err(err) => {
                    if telling.as_ref().is_none_or(|t| err.miss() > t.miss()) {
                        telling = Some(err);
                    }
                }
            }
        }
        match (found.is_empty(), telling) {
            (true, Some(err)) => match self.incomplete_names().as_slice() {
                [] => Err(err),
                _ if err.miss() != Miss::Absent => Err(err),
                [one] => Err(err.unsearched(&format!(
                    "environment {one} did not render completely (see the warning above), and what it leaves out may hold it"
                ))),
                many => Err(err.unsearched(&format!(
                    "environments {} did not render completely (see the warnings above), and what they leave out may hold it",
                    many.join(", ")
                ))),
            },
            _ => Ok(found),
        }
    }

    /// The environments with at least one object (a chart left unrendered has none).
    pub fn non_empty(&self) -> Vec<&EnvInventory> {
        self.environments
            .iter()
            .filter(|e| !e.inventory.objects.is_empty())
            .collect()
    }

    /// The environments that did not render completely, which may hold in what they leave
    /// out what was found nowhere else (their warnings say what failed).
    fn incomplete_names(&self) -> Vec<&str> {
        self.environments
            .iter()
            .filter(|e| e.incomplete)
            .map(|e| e.name.as_str())
            .collect()
    }

    /// Prints the notes and warnings on stderr.
    pub fn warn(&self) {
        for m in &self.messages {
            match m.split_once(": ") {
                Some((label @ ("note" | "warning"), text)) => crate::util::to_stderr(label, text),
                _ => eprintln!("{}", crate::util::escape::visible_lines(m)),
            }
        }
    }
}

/// Whether `files` are a GitOps repository to render (kustomizations or Helm charts), as
/// `lint` decides it.
pub fn is_repository(files: &[PathBuf]) -> bool {
    discover::holds_rendering(files)
}

/// The files PATHs name when they are a repository to render, `None` when they are not
/// (plain manifests, stdin): then the caller reads them as it always has. Files `ignore`
/// skips (the configuration's `ignorePaths`) are not read, as `lint` reads none of them.
pub fn repository_files(
    paths: &[String],
    ignore: &dyn Fn(&Path) -> bool,
) -> Result<Option<Vec<PathBuf>>, crate::source::files::ReadError> {
    if paths.is_empty() || paths.iter().any(|p| p == "-") {
        return Ok(None);
    }
    let files = crate::source::files::expand(paths, ignore)?;
    Ok(is_repository(&files).then_some(files))
}

/// Renders the repository `files` belong to, environment by environment (only `wanted`, if
/// given). Objects without a namespace get `namespace`; `elsewhere` finds the repository's
/// installation outside the inputs, where the environments hold none ([`survey`]).
pub fn read_environments(
    files: &[PathBuf],
    namespace: &str,
    opts: &RenderOptions,
    wanted: Option<&str>,
    elsewhere: &dyn Fn() -> Option<super::elsewhere::Elsewhere>,
) -> Result<EnvInputs, UnknownEnvironment> {
    read(files, namespace, opts, (wanted, false), elsewhere)
}

/// [`read_environments`] with the objects of the environments that are not Karmada API servers
/// in [`EnvInputs::outside`] too: where what was asked for is found in none of Karmada's, the
/// answer can say it is in one of those (its warnings are not said: nothing there is linted).
pub fn read_outside_karmada(
    files: &[PathBuf],
    namespace: &str,
    opts: &RenderOptions,
    wanted: Option<&str>,
    elsewhere: &dyn Fn() -> Option<super::elsewhere::Elsewhere>,
) -> Result<EnvInputs, UnknownEnvironment> {
    read(files, namespace, opts, (wanted, true), elsewhere)
}

fn read(
    files: &[PathBuf],
    namespace: &str,
    opts: &RenderOptions,
    (wanted, outside): (Option<&str>, bool),
    elsewhere: &dyn Fn() -> Option<super::elsewhere::Elsewhere>,
) -> Result<EnvInputs, UnknownEnvironment> {
    let mut repo = Repo::read(files, opts);
    let names = repo.names();
    let mut messages: Vec<String> = repo.notes.iter().map(|n| format!("note: {n}")).collect();
    let mut renders = repo.render(opts);
    // Every environment is looked at before `wanted` keeps one: the Karmada installation of an
    // environment often stands in another (a Flux cluster's `infrastructure`).
    let mut surveyed = survey(&repo, &mut renders, elsewhere);
    if let Some(n) = surveyed.elsewhere.as_ref().and_then(|e| e.note()) {
        messages.push(format!("note: {n}"));
    }
    if let Some(n) = repo.share_loose_clusters(&mut surveyed.karmada, &mut renders) {
        messages.push(format!("note: {n}"));
    }
    if let Some(w) = wanted {
        repo.select(w)?;
        if let Some(note) = not_karmada_note(&repo, &surveyed) {
            messages.push(note);
        }
    }
    let mapper = repo.mapper();
    let mut environments = Vec::new();
    let (mut passed_over, mut outside_karmada) = (Vec::new(), Vec::new());
    let mut warnings = Vec::new();
    for plan in &repo.plans {
        // Only what reaches a Karmada API server holds policies and their templates.
        if !repo.is_karmada(plan, &mut renders) {
            passed_over.push(plan.name.clone());
            if outside {
                let env = repo.environment(plan, &mut renders);
                let (inventory, origins, _, _) = inventory_of(env, namespace, &mapper);
                outside_karmada.push(EnvInventory {
                    name: plan.name.clone(),
                    inventory,
                    origins,
                    settings: RepositorySettings::default(),
                    incomplete: false,
                });
            }
            continue;
        }
        let env = repo.environment(plan, &mut renders);
        for s in &env.superseded {
            let (source, span) = &s.applied;
            warnings.push(format!(
                "note: environment {}: Argo CD Application {} renders {} more than once and applies only the last copy, at {}:{} (RepeatedResourceWarning)",
                plan.name, s.application, s.object, source.name, span.start.line
            ));
        }
        let failed = !env.failures.is_empty();
        let (inventory, origins, w, left_out) = inventory_of(env, namespace, &mapper);
        warnings.extend(w);
        if left_out > 0 {
            warnings.push(format!(
                "note: environment {}: {}",
                plan.name,
                super::inputs::left_out_note(left_out)
            ));
        }
        let incomplete = failed || left_out > 0;
        environments.push(EnvInventory {
            name: plan.name.clone(),
            inventory,
            origins,
            settings: surveyed.settings_for(plan),
            incomplete,
        });
    }
    messages.extend(renders.notes.iter().map(|n| format!("note: {n}")));
    // A base shared by several environments says the same thing in each.
    for w in warnings {
        if !messages.contains(&w) {
            messages.push(w);
        }
    }
    Ok(EnvInputs {
        environments,
        passed_over,
        outside: outside_karmada,
        names,
        messages,
    })
}

/// The note for a `--env` that names no Karmada API server (a member cluster's Flux directory):
/// it holds no policy and no template Karmada propagates, so nothing is decided there.
fn not_karmada_note(repo: &Repo, surveyed: &Survey) -> Option<String> {
    if repo
        .plans
        .iter()
        .any(|p| surveyed.karmada.contains(&p.name))
    {
        return None;
    }
    let chosen: Vec<&str> = repo.plans.iter().map(|p| p.name.as_str()).collect();
    let karmada: Vec<&str> = surveyed.karmada.iter().map(String::as_str).collect();
    let others = match karmada.as_slice() {
        [] => "the repository has none".to_string(),
        names => format!("those of the repository: {}", names.join(", ")),
    };
    Some(format!(
        "note: environment {} is not a Karmada API server (lint does not lint it): nothing is decided there; pick a Karmada environment with --env ({others})",
        chosen.join(", ")
    ))
}

/// One environment's inventory, the file each of its documents came from, warnings for what it
/// leaves out (documents that do not parse, policies holding an unresolved Flux variable, roots
/// that did not render) and how many documents that may be objects it leaves out.
fn inventory_of(
    mut env: Environment,
    namespace: &str,
    mapper: &Mapper<'_>,
) -> (Inventory, Vec<Option<PathBuf>>, Vec<String>, usize) {
    let mut warnings: Vec<String> = env
        .failures
        .iter()
        .map(|f| {
            format!(
                "warning: {}: {} (environment {} is incomplete)",
                f.file.display(),
                f.message,
                env.name
            )
        })
        .collect();
    let mut documents: Vec<Document> = Vec::new();
    let mut origins: Vec<Option<PathBuf>> = Vec::new();
    let place = |rendered: &[Rendered], l: &Loaded, span: Span| match environments::trace(
        rendered, mapper, &l.source, span, None,
    ) {
        Some((s, sp)) => format!("{}:{}:{}", s.name, sp.start.line, sp.start.col),
        None => format!("{}:{}:{}", l.source.name, span.start.line, span.start.col),
    };
    let mut defaults: Vec<String> = Vec::new();
    let mut left_out = 0;
    let rendered_ns: Vec<Option<String>> =
        env.rendered.iter().map(|r| r.namespace.clone()).collect();
    let plain_ns: Vec<Option<String>> = env.plain.iter().map(|(_, ns)| ns.clone()).collect();
    let units_ns = rendered_ns.iter().chain(&plain_ns);
    // A rendered stream's documents name their files in `origins`; a plain file is its own.
    let rendered = env.rendered.iter().map(|r| (&r.loaded, Some(&r.origins)));
    let plain = env.plain.iter().map(|(l, _)| (l, None));
    for ((l, traced), unit_ns) in rendered.chain(plain).zip(units_ns) {
        for p in &l.problems {
            let at = place(&env.rendered, l, p.span);
            warnings.push(format!("warning: {at}: {}", p.message));
            left_out += usize::from(p.kind.skips_an_object());
        }
        for d in &l.documents {
            if let Some((span, text)) = karmada_unresolved(&d.root) {
                let at = place(&env.rendered, l, span);
                warnings.push(format!(
                    "warning: {at}: unresolved variable `{text}`: no Flux postBuild.substitute value and no default; this policy is left out"
                ));
                left_out += 1;
            } else {
                origins.push(match traced {
                    Some(o) => o.get(d.index).cloned().flatten(),
                    None => Some(PathBuf::from(&l.source.name)),
                });
                documents.push(d.clone());
                defaults.push(unit_ns.clone().unwrap_or_else(|| namespace.to_string()));
            }
        }
    }
    env.rendered.clear();
    (
        Inventory::from_documents_each(documents, &defaults),
        origins,
        warnings,
        left_out,
    )
}

/// An unresolved `${var}` in a Karmada object (elsewhere it is the workload's business).
fn karmada_unresolved(root: &Node) -> Option<(Span, String)> {
    let api = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    if !super::group_of(api).ends_with("karmada.io") {
        return None;
    }
    environments::unresolved_variable(root)
}

/// What the first look at every planned environment found: which reach a Karmada API
/// server, and the Karmada each controller instance installs.
pub struct Survey {
    pub karmada: BTreeSet<String>,
    /// Installations by instance, in plan order.
    pub installations: BTreeMap<String, Vec<Installation>>,
    /// Where the environments install no Karmada, the one the rest of the git repository
    /// installs, if it installs one ([`super::elsewhere`]); then it counts for every
    /// environment, as one installation in the repository would.
    pub elsewhere: Option<super::elsewhere::Elsewhere>,
}

impl Survey {
    /// The settings for `plan`: where the repository installs one Karmada at most, that one
    /// with every karmada-scheduler Deployment it holds ([`InstallKind::Scheduler`]: no
    /// installation, a scheduler name beside one); else its instance's own.
    pub fn settings_for(&self, plan: &Plan) -> RepositorySettings {
        let elsewhere = self.elsewhere.iter().flat_map(|e| &e.installations);
        let all: Vec<&Installation> = self
            .installations
            .values()
            .flatten()
            .chain(elsewhere)
            .collect();
        let installs = all
            .iter()
            .filter(|i| i.kind != InstallKind::Scheduler)
            .count();
        if installs <= 1 {
            return RepositorySettings::of(all.into_iter().cloned().collect());
        }
        RepositorySettings::of(
            self.installations
                .get(&plan.instance)
                .cloned()
                .unwrap_or_default(),
        )
    }
}

/// Every planned environment (before `--env` keeps one): whether it is Karmada's, and the
/// installations of Karmada its documents hold; where none does, what `elsewhere` finds in the
/// rest of the repository, outside the inputs ([`super::elsewhere`]).
pub fn survey(
    repo: &Repo,
    renders: &mut environments::Renders,
    elsewhere: &dyn Fn() -> Option<super::elsewhere::Elsewhere>,
) -> Survey {
    let mapper = repo.mapper();
    let mut s = Survey {
        karmada: BTreeSet::new(),
        installations: BTreeMap::new(),
        elsewhere: None,
    };
    for plan in &repo.plans {
        if repo.is_karmada(plan, renders) {
            s.karmada.insert(plan.name.clone());
        }
        for r in repo.installation_documents(plan, renders) {
            let rendered = std::slice::from_ref(&r);
            for d in &r.loaded.documents {
                let locate = |span: Span| {
                    let (source, at) =
                        environments::trace(rendered, &mapper, &r.loaded.source, span, None)
                            .unwrap_or((r.loaded.source.clone(), span));
                    Origin {
                        file: source.name.clone(),
                        line: at.start.line,
                    }
                };
                if let Some(i) = installation::detect(&d.root, &locate) {
                    let list = s.installations.entry(plan.instance.clone()).or_default();
                    if !list.iter().any(|seen| seen.at == i.at) {
                        list.push(i);
                    }
                }
            }
        }
    }
    let installs = s.installations.values().flatten();
    if !installs
        .into_iter()
        .any(|i| i.kind != InstallKind::Scheduler)
        && !s.karmada.is_empty()
    {
        s.elsewhere = elsewhere();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    fn env(name: &str) -> EnvInventory {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n";
        EnvInventory {
            name: name.into(),
            inventory: Inventory::from_documents(load(Source::new("t", text)).documents, "ns"),
            origins: vec![None],
            settings: RepositorySettings::default(),
            incomplete: false,
        }
    }

    #[derive(Debug, PartialEq)]
    struct Said(&'static str, Miss);

    impl EnvError for Said {
        fn miss(&self) -> Miss {
            self.1
        }
    }

    fn inputs(names: &[&str]) -> EnvInputs {
        EnvInputs {
            environments: names.iter().map(|n| env(n)).collect(),
            passed_over: Vec::new(),
            outside: Vec::new(),
            names: names.iter().map(|n| n.to_string()).collect(),
            messages: Vec::new(),
        }
    }

    #[test]
    fn holding_reports_the_most_telling_error_first_among_equals() {
        let envs = inputs(&["a", "b", "c", "d"]);
        let said = |e: &EnvInventory| match e.name.as_str() {
            "a" => Said("a lacks it", Miss::Absent),
            "b" => Said("b refuses it", Miss::Refused),
            "c" => Said("c refuses it too", Miss::Refused),
            _ => Said("d lacks it", Miss::Absent),
        };
        let found = envs.holding(|e| Err::<(), _>(said(e)));
        assert_eq!(found.err(), Some(Said("b refuses it", Miss::Refused)));
        let failed = envs.holding(|e| match e.name.as_str() {
            "d" => Err::<(), _>(Said("d failed", Miss::Failed)),
            _ => Err(said(e)),
        });
        assert_eq!(failed.err(), Some(Said("d failed", Miss::Failed)));
        // Not holding the type says less than not holding the object, whichever comes first.
        let kinds = envs.holding(|e| match e.name.as_str() {
            "a" | "b" => Err::<(), _>(Said("no such kind", Miss::UnknownKind)),
            _ => Err(Said("in another namespace", Miss::Absent)),
        });
        assert_eq!(
            kinds.err(),
            Some(Said("in another namespace", Miss::Absent))
        );
        let unknown = envs.holding(|_| Err::<(), _>(Said("no such kind", Miss::UnknownKind)));
        assert_eq!(unknown.err(), Some(Said("no such kind", Miss::UnknownKind)));
        // One environment holding it is an answer, whatever the others say.
        let one = envs.holding(|e| match e.name.as_str() {
            "c" => Ok(3),
            _ => Err(said(e)),
        });
        let held: Vec<(&str, i32)> = one
            .unwrap()
            .into_iter()
            .map(|(e, t)| (e.name.as_str(), t))
            .collect();
        assert_eq!(held, [("c", 3)]);
    }

    /// A karmada-scheduler Deployment is no installation: it goes with the repository's one
    /// installation wherever either is applied from, and with its own instance's where the
    /// repository installs several.
    #[test]
    fn scheduler_deployments_join_the_repositorys_one_installation() {
        use crate::model::installation::{InstallKind, Setting};
        let object = |kind, file: &str, scheduler: Option<&str>| Installation {
            kind,
            object: format!("{kind:?} {file}"),
            at: Origin {
                file: file.into(),
                line: 1,
            },
            release: None,
            gates: Default::default(),
            flags: Default::default(),
            skipped_namespaces: None,
            schedulers: scheduler
                .map(|n| Setting {
                    value: n.to_string(),
                    at: Origin {
                        file: file.into(),
                        line: 9,
                    },
                })
                .into_iter()
                .collect(),
            notes: Vec::new(),
        };
        let plan = |instance: &str| Plan {
            name: instance.into(),
            dir: None,
            target: environments::Target::Undeclared,
            instance: instance.into(),
            units: Vec::new(),
            elsewhere: Vec::new(),
            applications: Vec::new(),
            appliers: Vec::new(),
        };
        let names = |s: &RepositorySettings| -> Vec<String> {
            s.served().iter().map(|x| x.name.clone()).collect()
        };
        let mut survey = Survey {
            karmada: BTreeSet::new(),
            installations: BTreeMap::new(),
            elsewhere: None,
        };
        survey.installations.insert(
            "infra".into(),
            vec![object(InstallKind::HelmRelease, "karmada.yaml", None)],
        );
        survey.installations.insert(
            "schedulers".into(),
            vec![object(InstallKind::Scheduler, "sched.yaml", Some("custom"))],
        );
        for instance in ["infra", "schedulers", "policies"] {
            let s = survey.settings_for(&plan(instance));
            assert_eq!(s.installation.as_ref().unwrap().at.file, "karmada.yaml");
            assert_eq!(names(&s), ["custom"], "{instance}");
        }
        // Two installations: each instance has its own, a scheduler joins only its own.
        survey.installations.insert(
            "other".into(),
            vec![
                object(InstallKind::Operator, "operator.yaml", None),
                object(InstallKind::Scheduler, "fast.yaml", Some("fast")),
            ],
        );
        assert_eq!(names(&survey.settings_for(&plan("other"))), ["fast"]);
        assert!(names(&survey.settings_for(&plan("infra"))).is_empty());
        assert_eq!(
            survey.settings_for(&plan("policies")),
            RepositorySettings::default()
        );
    }
}
