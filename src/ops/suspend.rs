//! Running `suspend` and `resume`: gather the selected policies (manifest files or the control
//! plane), plan each ([`super::plan`], one type for named policies and a freeze of clusters),
//! then apply the plans through the one file writer ([`super::file`]) or the one live writer
//! ([`super::live`]). The steps return values; the command line prints, asks and confirms in
//! between, and `output::suspend` renders the results.

use crate::context::Context;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value as J;

use super::edit;
use super::file::{self, FileError, Manifest};
use super::layered::{self, Layered, LayeredError};
use super::live::{self as writer, DryRun, PolicyRef, Step, WaitFor, WriteError, Written};
use super::plan::{self, Change, FreezeInput, Outcome, PolicyPlan, Reason, Renamed, Selection};
use crate::engine::freeze::{Stamp, RECORD_ANNOTATION};
use crate::engine::suspension::{self as engine, Action, Request};
use crate::kube::{self, Conn, KubeError};
use crate::model::binding::BoundClusters;
use crate::model::cluster::Cluster;
use crate::model::gitops::gitops_owner;
use crate::model::policy::{PropagationSpec, Suspension};
use crate::model::PolicyKind;
use crate::util::{time, warn};

/// One run of `suspend`/`resume`, from the flags.
#[derive(Clone, Debug)]
pub struct Settings {
    pub action: Action,
    pub selection: Selection,
    pub request: Request,
    pub dry: DryRun,
    pub force: bool,
    /// Cluster failover runs in the control plane the context describes (its gates and
    /// controller-manager flags), as `lint` and `plan` judge it.
    pub cluster_failover: bool,
    /// `--reason`.
    pub reason: Option<String>,
    /// Unknown cluster names end the command.
    pub strict: bool,
    /// The configuration's `knownClusters`: in files, what `--clusters` names are checked
    /// against (live, the control plane's Clusters are).
    pub known_clusters: Vec<String>,
    /// How many policies are written at once (live).
    pub concurrency: usize,
    /// How the client connects (live).
    pub connect: crate::kube::ConnectOptions,
    /// The configuration the `-f` inputs are read under, as `lint` reads them: the files its
    /// `ignorePaths` skips are not edited, and `--env` names an environment of the repository
    /// as its GitOps settings render it.
    pub config: crate::context::Config,
}

impl Settings {
    /// What these settings take from the context: in files, its `knownClusters` and its
    /// configuration; and whether cluster failover runs in a control plane the inputs
    /// describe, as `lint` judges it.
    pub fn read_context(&mut self, context: &Context, files: &[String]) {
        self.known_clusters = context.known_clusters().to_vec();
        self.cluster_failover = cluster_failover_in(context, files);
        self.config = context.config.clone();
    }

    /// What the `--force` rule reads of these settings.
    pub fn guard(&self) -> plan::Guard {
        plan::Guard {
            force: self.force,
            cluster_failover: self.cluster_failover,
        }
    }
}

/// Whether cluster failover runs in a control plane the inputs describe, judged as `lint`
/// judges each: live (no files), in the context's; over a GitOps repository, in any of its
/// environments, each with the Karmada its repository installs (a file `--env` edits may be
/// applied by the others too); over plain files, with the installation they (or the rest of
/// their repository) hold. Where the inputs cannot be read for it, the safe side: it runs.
fn cluster_failover_in(context: &Context, files: &[String]) -> bool {
    if files.is_empty() {
        return runs_cluster_failover(context);
    }
    match crate::inspect::environments_unsaid(files, context, None) {
        Ok(Some(envs)) => envs.contexts().any(runs_cluster_failover),
        Ok(None) => crate::inspect::plain_context_and_notes(files, context)
            .map_or(true, |(plain, _)| runs_cluster_failover(&plain)),
        Err(_) => true,
    }
}

/// Whether a policy's `spec.failover.cluster` fails over in the control plane of `context`:
/// cluster failover runs there ([`crate::model::feature_gates::GateSet::cluster_failover`]),
/// and its release's CRD has the field (an older API server prunes it, so the stored policy
/// asks for no cluster failover of its own).
fn runs_cluster_failover(context: &Context) -> bool {
    let field = crate::source::FieldPath::parse("spec.failover.cluster");
    context.gates.cluster_failover()
        && crate::schema::defines("PropagationPolicy", context.release(), &field)
}

/// Why a run stopped before its report.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Layered(#[from] LayeredError),
    /// `--env` names no kustomization under the `-f` inputs.
    #[error("--env {}: {why}", .dir.display())]
    Env { dir: PathBuf, why: &'static str },
    #[error("{0}")]
    Connect(#[source] KubeError),
    #[error("cannot list {what}: {source}")]
    List {
        what: &'static str,
        #[source]
        source: KubeError,
    },
    /// `--strict` and unknown cluster names.
    #[error("{0}; nothing was changed")]
    UnknownClusters(String),
    #[error("cannot start the runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("task failed: {0}")]
    Task(String),
}

impl RunError {
    /// A usage error (exit 2): the inputs could not be read.
    pub fn is_usage(&self) -> bool {
        match self {
            RunError::File(e) | RunError::Layered(LayeredError::File(e)) => e.is_input(),
            RunError::Layered(LayeredError::Layer(_)) | RunError::Env { .. } => true,
            _ => false,
        }
    }

    /// The control plane could not be reached or listed (exit 3).
    pub fn is_api(&self) -> bool {
        matches!(self, RunError::Connect(_) | RunError::List { .. })
    }
}

/// The suspension before and after a write, for `--wait`.
type Transition = (Option<Suspension>, Option<Suspension>);

/// The result for one policy of named mode.
pub struct PolicyResult {
    pub id: String,
    pub result: Result<String, WriteError>,
    /// The object after the change (live mode), for `-o`.
    pub object: Option<J>,
    /// A dry run's object before and after (live mode), for the diff.
    pub diff: Option<(J, J)>,
    /// What `--wait` must see on the Works (live mode, when something changed).
    wait: Option<(PolicyKind, Transition)>,
}

impl PolicyResult {
    fn failed(id: String, e: WriteError) -> PolicyResult {
        PolicyResult::line(id, Err(e))
    }

    fn line(id: String, result: Result<String, WriteError>) -> PolicyResult {
        PolicyResult {
            id,
            result,
            object: None,
            diff: None,
            wait: None,
        }
    }
}

/// A runtime for the kube client.
pub fn runtime() -> Result<tokio::runtime::Runtime, RunError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(RunError::Runtime)
}

/// The control plane of `--kubeconfig`/`--context`, and the namespace PropagationPolicies are
/// looked up in: `-n`, else the context's.
pub async fn connect(s: &Settings) -> Result<(Conn, String), RunError> {
    let conn = kube::connect(&s.connect).await.map_err(RunError::Connect)?;
    let namespace = s
        .selection
        .namespace
        .clone()
        .unwrap_or_else(|| conn.namespace.clone());
    Ok((conn, namespace))
}

/// The control plane could not be reached at the first read (of the Clusters): said as kubectl
/// says it, as a connection failure.
fn clusters_error(source: crate::kube::KubeError) -> RunError {
    RunError::Connect(source)
}

/// The requested cluster names against the control plane's Clusters (`None`: the list could not
/// be read): unknown names warn, or end the command with `--strict` before anything is written.
fn check_cluster_names(
    requested: &[String],
    health: Option<&[Cluster]>,
    strict: bool,
) -> Result<(), RunError> {
    let Some(health) = health else {
        warn("cannot read cluster.karmada.io Clusters: cluster names were not checked");
        return Ok(());
    };
    let known: Vec<String> = health.iter().map(|h| h.name.clone()).collect();
    check_known(requested, &known, strict)
}

/// In files, the configuration's `knownClusters` stand for the control plane's Clusters
/// (nothing is checked without them).
fn check_known_in_files(s: &Settings) -> Result<(), RunError> {
    if s.known_clusters.is_empty() {
        return Ok(());
    }
    check_known(&s.request.clusters, &s.known_clusters, s.strict)
}

/// `requested` names against `known`: unknown ones warn, or end the command with `--strict`.
fn check_known(requested: &[String], known: &[String], strict: bool) -> Result<(), RunError> {
    let unknown = engine::unknown_clusters(requested, known);
    if unknown.is_empty() {
        return Ok(());
    }
    let msg = format!(
        "unknown cluster{} {} (known: {})",
        if unknown.len() > 1 { "s" } else { "" },
        unknown.join(", "),
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    );
    if strict {
        return Err(RunError::UnknownClusters(msg));
    }
    warn(&msg);
    Ok(())
}

/// The user recorded with a change: who the server says the credentials are (a
/// SelfSubjectReview), else, with a note, the kubeconfig's user entry name (else `$USER`).
async fn identity(conn: &Conn) -> String {
    let fallback = if conn.user.is_empty() {
        std::env::var("USER").unwrap_or_default()
    } else {
        conn.user.clone()
    };
    let why = match conn.whoami().await {
        Ok(name) if !name.is_empty() => return name,
        Ok(_) => "it answered no username".to_string(),
        Err(e) => e.to_string(),
    };
    crate::util::note(&format!(
        "the server did not say who these credentials are (SelfSubjectReview: {why}); recording the kubeconfig user entry \"{fallback}\" instead"
    ));
    fallback
}

// ---------------------------------------------------------------------------------------------
// Named mode, files

/// The `-f` inputs split into kustomize layers (a kustomization directory, or a file beside
/// one) and plain manifests. `--env DIR` names the one layer to edit under them instead.
pub fn split_layers(
    files: &[String],
    env: Option<&str>,
    config: &crate::context::Config,
) -> Result<(Vec<PathBuf>, Vec<String>), RunError> {
    let (layers, plain, _) = split_layers_renamed(files, env, config)?;
    Ok((layers, plain))
}

/// The kustomize layers, the plain inputs and how the environment renders them.
type Inputs = (Vec<PathBuf>, Vec<String>, Vec<Renamed>);

/// [`split_layers`], with how the environment `--env` names renders its plain inputs.
fn split_layers_renamed(
    files: &[String],
    env: Option<&str>,
    config: &crate::context::Config,
) -> Result<Inputs, RunError> {
    if let Some(env) = env {
        let dir = crate::source::kustomize::normalize(std::path::Path::new(env));
        let Some(layer) = crate::source::kustomize::layer::layer_dir(&dir).filter(|l| l == &dir)
        else {
            return environment_inputs(files, env, config).ok_or(RunError::Env {
                dir,
                why: "neither a kustomization directory nor an environment of the -f inputs",
            });
        };
        let under = files.iter().any(|f| {
            let f = crate::source::kustomize::normalize(std::path::Path::new(f));
            f.as_os_str().is_empty() || layer.starts_with(&f)
        });
        if !under {
            return Err(RunError::Env {
                dir,
                why: "not under the -f inputs",
            });
        }
        return Ok((vec![layer], Vec::new(), Vec::new()));
    }
    let mut layers = Vec::new();
    let mut plain = Vec::new();
    for f in files {
        match (f != "-")
            .then(|| crate::source::kustomize::layer::layer_dir(std::path::Path::new(f)))
            .flatten()
        {
            Some(dir) => layers.push(dir),
            None => plain.push(f.clone()),
        }
    }
    Ok((layers, plain, Vec::new()))
}

/// How many kustomization roots the warning about unedited kustomize trees names.
const SHOWN_ROOTS: usize = 8;

/// `--env NAME` as `lint`, `explain` and `plan` name environments (`mgmt/karmada-kubeconfig`,
/// an Argo CD destination, a cluster directory): the layers and files its Flux Kustomizations
/// or Argo CD Applications apply, to edit there. A chart is edited by hand (left out).
fn environment_inputs(
    files: &[String],
    env: &str,
    config: &crate::context::Config,
) -> Option<Inputs> {
    use crate::source::kustomize::environments::Repo;
    use crate::source::kustomize::layer::layer_dir;
    use crate::source::kustomize::units::UnitKind;
    let inputs = crate::source::files::expand(files, &|p| config.ignores(p)).ok()?;
    let mut repo = Repo::read(&inputs, &config.render_options_at(files));
    repo.select(env).ok()?;
    let (mut layers, mut plain, mut renames) = (Vec::new(), Vec::new(), Vec::new());
    for unit in &repo.plans.first()?.units {
        let renamed =
            |path: &std::path::Path, prefix: Option<&String>, suffix: Option<&String>| Renamed {
                path: crate::source::kustomize::normalize(path),
                vars: unit.vars.clone(),
                prefix: prefix.cloned(),
                suffix: suffix.cloned(),
                namespace: None,
                // A plain file's unit namespace goes only to objects that write none.
                default_namespace: unit.namespace.clone(),
            };
        match &unit.kind {
            UnitKind::Root(spec) => {
                // A kustomization root is edited as a layer; a directory Flux applies without
                // a kustomization.yaml, in its files.
                if layer_dir(&spec.dir).as_ref() == Some(&spec.dir) {
                    layers.push(spec.dir.clone());
                } else {
                    plain.push(spec.dir.display().to_string());
                }
                // Either is built through kustomize, named as the controller renders it: its
                // namespace overrides every object's.
                renames.push(Renamed {
                    namespace: spec.namespace.clone(),
                    ..renamed(
                        &spec.dir,
                        spec.name_prefix.as_ref(),
                        spec.name_suffix.as_ref(),
                    )
                });
            }
            UnitKind::Plain(file) => {
                plain.push(file.display().to_string());
                renames.push(renamed(file, None, None));
            }
            UnitKind::Chart(..) => {}
        }
    }
    layers.dedup();
    Some((layers, plain, renames))
}

/// The files of a plain `-f` input that no kustomization owns. A directory holding kustomize
/// trees (`-f apps/`) does not edit them: a policy there is rendered into environments through
/// its layers, and which layer to edit is the user's choice (`-f LAYER` or `--env LAYER`).
/// With the number of files left out.
fn outside_kustomize_trees(paths: Vec<PathBuf>) -> (Vec<PathBuf>, usize) {
    use crate::source::kustomize::{discover::discover, normalize};
    let repo = discover(&paths);
    if repo.kustomizations.is_empty() {
        return (paths, 0);
    }
    let (owned, plain): (Vec<PathBuf>, Vec<PathBuf>) = paths
        .into_iter()
        .partition(|p| repo.covered.contains(&normalize(p)));
    if !owned.is_empty() {
        // A few names: a large repository has hundreds of roots.
        let shown = |dirs: &[PathBuf]| -> String {
            let mut shown: Vec<String> = dirs
                .iter()
                .take(SHOWN_ROOTS)
                .map(|r| r.display().to_string())
                .collect();
            if dirs.len() > SHOWN_ROOTS {
                shown.push(format!("and {} more", dirs.len() - SHOWN_ROOTS));
            }
            shown.join(", ")
        };
        let files = format!(
            "{} file{}",
            owned.len(),
            if owned.len() == 1 { "" } else { "s" }
        );
        // A kustomization inside a Helm chart (karmada's own chart keeps one for its CRDs) is
        // the chart's: its templates are rendered by helm, and edited by hand.
        warn(&match (repo.roots.is_empty(), repo.charts.is_empty()) {
            (_, true) => format!(
                "{files} of kustomize trees not edited: name the layer to edit with -f DIR, or --env DIR or --env ENVIRONMENT (as lint names it); kustomization roots: {}",
                shown(&repo.roots)
            ),
            (true, false) => format!(
                "{files} of Helm charts not edited (a chart's templates are edited by hand): {}",
                shown(&repo.charts)
            ),
            (false, false) => format!(
                "{files} of kustomize trees and Helm charts not edited: name the layer to edit with -f DIR, or --env DIR or --env ENVIRONMENT (as lint names it), a chart's templates are edited by hand; kustomization roots: {}; charts: {}",
                shown(&repo.roots),
                shown(&repo.charts)
            ),
        });
    }
    (plain, owned.len())
}

/// Named mode in manifest files: every selected policy planned, the edited files checked, then
/// written (or, in a dry run, their diffs returned). A kustomize layer is edited where it
/// writes the policy, or in a new patch of its own ([`layered`]).
pub fn named_files(
    s: &Settings,
    files: &[String],
    env: Option<&str>,
) -> Result<(Vec<PolicyResult>, String), RunError> {
    check_known_in_files(s)?;
    let (layers, plain, renames) = split_layers_renamed(files, env, &s.config)?;
    let (paths, trees) = if plain.is_empty() {
        (Vec::new(), 0)
    } else {
        outside_kustomize_trees(file::expand(&plain, &|p| s.config.ignores(p))?)
    };
    let mut results = Vec::new();
    let mut found = vec![false; s.selection.named.len()];
    let mut manifests = Vec::new();
    let mut unparsed = Vec::new();
    let mut skipped = Vec::new();
    for path in paths {
        let mut m = Manifest::load(path)?;
        let renamed = Renamed::of(&renames, &m.path);
        plan_named_file(s, (&mut m, renamed), &mut found, &mut results);
        unparsed.extend(m.problems.iter().cloned());
        skipped.extend(m.skipped.iter().cloned());
        manifests.push(m);
    }
    if !layers.is_empty() {
        let mut l = layered::gather(&layers, &renames)?;
        plan_layers(s, &mut l, &mut found, &mut results);
        manifests.extend(l.finish()?);
    }
    // A bulk selection (--all, -l) may take a policy of a document that does not parse: the
    // run did not do all it was asked.
    if s.selection.named.is_empty() {
        for problem in &skipped {
            results.push(PolicyResult::failed(problem.clone(), WriteError::Unread));
        }
    }
    for (n, _) in s.selection.named.iter().zip(&found).filter(|(_, f)| !**f) {
        let id = plan::resource_id(n.kind, &n.name);
        let why = WriteError::NotInFiles {
            unparsed: unparsed.clone(),
            trees,
        };
        results.push(PolicyResult::failed(id, why));
    }
    if results.is_empty() {
        warn("no policy in the given files matches the selection");
    }
    let diffs = write_files(&manifests, s.dry)?;
    if s.dry.is_dry() {
        for r in &mut results {
            if let Ok(m) = &mut r.result {
                m.push_str(" (dry run)");
            }
        }
    }
    Ok((results, diffs))
}

/// Plans the selected policies of one file and their edits.
fn plan_named_file(
    s: &Settings,
    (m, renamed): (&mut Manifest, Option<&Renamed>),
    found: &mut [bool],
    results: &mut Vec<PolicyResult>,
) {
    let twice = plan::defined_twice(&m.inv);
    let bound = BoundClusters::from_bindings(m.inv.bindings());
    let mut edits = Vec::new();
    for policy in m.inv.policies() {
        let pick = match renamed {
            Some(r) => {
                // The namespace the document writes (the file's reader gives one to all).
                let written = plan::namespace_written(&m.inv, policy)
                    .then_some(policy.meta.namespace.as_deref())
                    .flatten();
                s.selection.pick_rendered(
                    &m.inv,
                    policy,
                    r.namespace(written).as_deref(),
                    &r.name(&policy.meta.name),
                )
            }
            None => s.selection.pick_named(&m.inv, policy),
        };
        let Some(pick) = pick else {
            continue;
        };
        if let Some(i) = pick {
            found[i] = true;
        }
        if !plan::first_of_its_copies(&twice, policy) {
            continue;
        }
        // Named as the environment renders it (the file writes `high-${ENV}`).
        let name = renamed.map_or_else(|| policy.meta.name.clone(), |r| r.name(&policy.meta.name));
        let rid = plan::resource_id(policy.kind, &name);
        let id = format!("{rid} ({})", m.name);
        if let Some(why) = plan::file_refusal(m.broken, &twice, &m.inv, policy) {
            results.push(PolicyResult::failed(id, WriteError::Refused(why)));
            continue;
        }
        let permanent_id = policy.meta.label(policy.kind.permanent_id_label());
        let b = bound.of(policy.kind, permanent_id);
        let p = plan_file_policy(
            s,
            &rid,
            (&policy.spec, &policy.meta.annotations),
            b.as_deref(),
        );
        results.push(PolicyResult::line(id, outcome_line(&p)));
        if let Outcome::Change(c) = p.outcome {
            edits.push((results.len() - 1, policy.doc, c.patch));
        }
    }
    for (i, doc, patch) in edits {
        if let Err(e) = m.edit(doc, &patch) {
            results[i].result = Err(WriteError::Refused(e.to_string()));
        }
    }
}

/// The plan of one policy written in a file (no cluster health offline), its failover
/// stalls warned about under the policy's id.
fn plan_file_policy(
    s: &Settings,
    rid: &str,
    (spec, annotations): (&PropagationSpec, &crate::model::StringMap),
    bound: Option<&[String]>,
) -> PolicyPlan {
    let targets = engine::target_clusters(spec, bound);
    let mut p = plan::named(spec, &s.request, targets.as_deref(), &[], s.guard(), None);
    plan::clear_suspension_record(&mut p, &|key| annotations.contains_key(key));
    for w in &p.stalls {
        warn(&format!("{rid}: {w}"));
    }
    p
}

/// Plans the selected policies of kustomize layers, each edit in the file its layer chose; a
/// base shared by several environments says which.
fn plan_layers(s: &Settings, l: &mut Layered, found: &mut [bool], results: &mut Vec<PolicyResult>) {
    let mut noted = std::collections::BTreeSet::new();
    for i in 0..l.policies.len() {
        let lp = &l.policies[i];
        let picked = if lp.renamed {
            let landing = lp.policy.meta.namespace.as_deref();
            s.selection
                .pick_rendered_layered(&lp.policy, landing, &lp.rendered_name)
        } else {
            s.selection
                .pick_layered(&lp.policy, lp.namespace_written, &lp.rendered_name)
        };
        let Some(pick) = picked else {
            continue;
        };
        if let Some(n) = pick {
            found[n] = true;
        }
        // Named as the environment renders it, when a controller renames it.
        let name = if lp.renamed {
            &lp.rendered_name
        } else {
            &lp.policy.meta.name
        };
        let rid = plan::resource_id(lp.policy.kind, name);
        let id = format!("{rid} ({})", lp.file());
        let p = plan_file_policy(
            s,
            &rid,
            (&lp.policy.spec, &lp.policy.meta.annotations),
            None,
        );
        let shared = lp.shared_with().map(|envs| (lp.shown_dir(), envs));
        results.push(PolicyResult::line(id, outcome_line(&p)));
        let Outcome::Change(c) = p.outcome else {
            continue;
        };
        if let Err(e) = l.edit(i, &c.patch) {
            let last = results.len() - 1;
            results[last].result = Err(WriteError::Refused(e.to_string()));
        } else {
            note_shared(shared, &mut noted);
        }
    }
}

/// Says once per base that an edit there reaches every environment built on it.
fn note_shared(
    shared: Option<(String, Vec<String>)>,
    noted: &mut std::collections::BTreeSet<String>,
) {
    if let Some((dir, envs)) = shared.filter(|(d, _)| noted.insert(d.clone())) {
        crate::util::note(&format!(
            "{} is a base of {} environment{}, the edit reaches {}: {}",
            dir,
            envs.len(),
            if envs.len() == 1 { "" } else { "s" },
            if envs.len() == 1 { "it" } else { "them all" },
            envs.join(", ")
        ));
    }
}

/// The line of a planned policy before any write: the change's message, the reason nothing
/// changes, or the refusal.
fn outcome_line(p: &PolicyPlan) -> Result<String, WriteError> {
    match &p.outcome {
        Outcome::Change(c) => Ok(c.message.clone()),
        Outcome::Unchanged(m) | Outcome::Skipped(m) => Ok(m.clone()),
        Outcome::NotInvolved => Ok(String::new()),
        Outcome::Refused(why) => Err(WriteError::Refused(why.clone())),
    }
}

/// Every edited file checked, then written; in a dry run, their diffs instead.
fn write_files(manifests: &[Manifest], dry: DryRun) -> Result<String, RunError> {
    let mut diffs = String::new();
    for (m, after) in file::checked(manifests)? {
        if dry.is_dry() && m.deleted {
            diffs.push_str(&edit::deleted_diff(&m.name, &m.text));
        } else if dry.is_dry() && m.created {
            diffs.push_str(&edit::created_diff(&m.name, &after));
        } else if dry.is_dry() {
            diffs.push_str(&edit::unified_diff(&m.name, &m.text, &after));
        } else {
            m.write(&after)?;
        }
    }
    Ok(diffs)
}

// ---------------------------------------------------------------------------------------------
// Freeze mode (files and live)

/// One policy a freeze (or its lifting) lists.
pub struct Row {
    pub kind: PolicyKind,
    pub namespace: Option<String>,
    pub name: String,
    /// File mode: the file shown for the policy (an index into [`Freeze::files`]) and its
    /// document there (a plain manifest's; 0 for a layer's).
    pub file: Option<(usize, usize)>,
    /// A kustomize layer's policy: its index among the layers' policies, edited through them.
    layer: Option<usize>,
    pub plan: PolicyPlan,
    pub gitops: Option<&'static str>,
    /// Live mode: the object as read, and its bindings' clusters (for a recompute on 409).
    object: Option<J>,
    bound: Option<Vec<String>>,
    /// After the write: the line to print, or the failure.
    pub result: Option<Result<String, WriteError>>,
    /// A live dry run's object before and after, for the diff.
    pub diff: Option<(J, J)>,
}

impl Row {
    /// The change to write (a refused change is not one).
    pub fn change(&self) -> Option<&Change> {
        self.plan.change()
    }
}

/// A freeze (or its lifting), planned: the rows, and what is needed to apply it.
pub struct Freeze {
    pub rows: Vec<Row>,
    /// File mode: the manifests' names.
    pub files: Vec<String>,
    /// Policies that target none of the clusters.
    pub not_involved: usize,
    /// File mode: the files not edited because they do not parse (`file:line:col: problem`),
    /// where a policy the freeze takes may be: the run fails for them.
    pub unread: Vec<String>,
    manifests: Vec<Manifest>,
    /// The kustomize layers of `-f`, whose policies the rows with a `layer` edit.
    layered: Option<Layered>,
    stamp: Stamp,
}

impl Freeze {
    /// How many policies the freeze would change.
    pub fn changes(&self) -> usize {
        self.rows.iter().filter(|r| r.change().is_some()).count()
    }
}

/// A freeze in manifest files: the selected policies of every file, with the bindings found
/// anywhere under the given paths.
pub fn freeze_files(s: &Settings, files: &[String]) -> Result<Freeze, RunError> {
    check_known_in_files(s)?;
    let (layers, plain) = split_layers(files, None, &s.config)?;
    let paths = if plain.is_empty() {
        Vec::new()
    } else {
        outside_kustomize_trees(file::expand(&plain, &|p| s.config.ignores(p))?).0
    };
    let mut manifests = Vec::new();
    let mut unread = Vec::new();
    for path in paths {
        let m = Manifest::load(path)?;
        if m.broken {
            unread.extend(m.problems);
            continue;
        }
        manifests.push(m);
    }
    let bound = BoundClusters::from_bindings(manifests.iter().flat_map(|m| m.inv.bindings()));
    let clusters: Vec<Cluster> = manifests
        .iter()
        .flat_map(|m| Cluster::from_inventory(&m.inv))
        .collect();
    let stamp = plan::freeze_stamp(
        time::rfc3339_source_date_or_now(),
        None,
        s.reason.as_deref(),
    );
    let mut rows = Vec::new();
    let mut not_involved = 0;
    let planner = FilePlanner {
        s,
        bound: &bound,
        clusters: &clusters,
        stamp: &stamp,
    };
    let mut add = |row: Option<Row>| match row {
        Some(row) => rows.push(row),
        None => not_involved += 1,
    };
    for (fi, m) in manifests.iter().enumerate() {
        for policy in m.inv.policies() {
            if s.selection.picks_for_freeze(&m.inv, policy) {
                add(planner.row(policy, (fi, policy.doc), None));
            }
        }
    }
    let mut shown: Vec<String> = manifests.iter().map(|m| m.name.clone()).collect();
    let layered = if layers.is_empty() {
        None
    } else {
        let l = layered::gather(&layers, &[])?;
        for (i, lp) in l.policies.iter().enumerate() {
            let policy = &lp.policy;
            if s.selection
                .picks_layered_for_freeze(policy, lp.namespace_written)
            {
                let file = lp.file();
                let at = shown.iter().position(|f| *f == file).unwrap_or(shown.len());
                let row = planner.row(policy, (at, 0), Some(i));
                if row.is_some() && at == shown.len() {
                    shown.push(file);
                }
                add(row);
            }
        }
        Some(l)
    };
    Ok(Freeze {
        rows,
        files: shown,
        not_involved,
        unread,
        manifests,
        layered,
        stamp,
    })
}

/// What planning one policy of a freeze in files reads.
struct FilePlanner<'a> {
    s: &'a Settings,
    bound: &'a BoundClusters,
    /// The Cluster objects of the files: where no binding says, the clusters a placement
    /// selects among them are its targets.
    clusters: &'a [Cluster],
    stamp: &'a Stamp,
}

impl FilePlanner<'_> {
    /// The row of `policy`, shown as `file` (and edited through layer policy `layer`); `None`
    /// when it targets none of the clusters.
    fn row(
        &self,
        policy: &crate::model::Policy,
        file: (usize, usize),
        layer: Option<usize>,
    ) -> Option<Row> {
        let permanent_id = policy.meta.label(policy.kind.permanent_id_label());
        let b = self
            .bound
            .of(policy.kind, permanent_id)
            .or_else(|| engine::targets_among(&policy.spec, self.clusters));
        let input = FreezeInput {
            action: self.s.action,
            spec: &policy.spec,
            record: policy.meta.annotation(RECORD_ANNOTATION),
            bound: b.as_deref(),
            clusters: &self.s.request.clusters,
            stamp: self.stamp,
        };
        let p = plan::freeze_policy(&input, &[], self.s.guard());
        (p.outcome != Outcome::NotInvolved).then(|| Row {
            kind: policy.kind,
            namespace: policy.meta.namespace.clone(),
            name: policy.meta.name.clone(),
            file: Some(file),
            layer,
            plan: p,
            gitops: None,
            object: None,
            bound: b,
            result: None,
            diff: None,
        })
    }
}

/// Applies a freeze planned by [`freeze_files`]: the edits of every change, each file checked,
/// then written; a dry run returns the diffs.
pub fn apply_freeze_files(f: &mut Freeze, dry: DryRun) -> Result<String, RunError> {
    let mut noted = std::collections::BTreeSet::new();
    for row in &mut f.rows {
        let (Some(c), Some((fi, doc))) = (row.plan.change(), row.file) else {
            continue;
        };
        let edited = match (row.layer, &mut f.layered) {
            (Some(i), Some(l)) => {
                let lp = &l.policies[i];
                let shared = lp.shared_with().map(|envs| (lp.shown_dir(), envs));
                let edited = l.edit(i, &c.patch);
                if edited.is_ok() {
                    note_shared(shared, &mut noted);
                }
                edited
            }
            _ => f.manifests[fi].edit(doc, &c.patch),
        };
        row.result = Some(match edited {
            Ok(()) => Ok(format!("{}{}", c.message, dry_suffix(dry))),
            Err(e) => Err(WriteError::Refused(e.to_string())),
        });
    }
    let mut manifests = std::mem::take(&mut f.manifests);
    if let Some(l) = f.layered.take() {
        manifests.extend(l.finish()?);
    }
    let diffs = write_files(&manifests, dry);
    f.manifests = manifests;
    diffs
}

/// File mode says "(dry run)" whatever the mode (only a client dry run reaches it).
fn dry_suffix(dry: DryRun) -> &'static str {
    if dry.is_dry() {
        " (dry run)"
    } else {
        ""
    }
}

/// A freeze on the control plane: the selected policies of the namespace (with `-A` of all
/// namespaces, and the ClusterPropagationPolicies), their bindings' clusters, and the member
/// clusters' health.
pub async fn freeze_live(conn: &Conn, s: &Settings, namespace: &str) -> Result<Freeze, RunError> {
    let kinds = s.selection.freeze_kinds();
    let mut objects = Vec::new();
    for &kind in &kinds {
        let ns = match kind {
            PolicyKind::PropagationPolicy if !s.selection.all_namespaces => Some(namespace),
            _ => None,
        };
        objects.extend(
            list(conn, kind, ns, s)
                .await?
                .into_iter()
                .map(|o| (kind, o)),
        );
    }
    // Bindings only when freezing (targets); lifting reads the record alone.
    let bound = if s.action == Action::Suspend {
        live_bindings(conn, s, &kinds, namespace).await
    } else {
        BoundClusters::default()
    };
    let health = writer::clusters(conn).await.map_err(clusters_error)?;
    check_cluster_names(&s.request.clusters, health.as_deref(), s.strict)?;
    let health = health.unwrap_or_default();
    // The record names who froze the clusters; lifting it names no one.
    let user = match s.action {
        Action::Suspend => identity(conn).await,
        Action::Resume => conn.user.clone(),
    };
    let stamp = plan::freeze_stamp(
        time::rfc3339_source_date_or_now(),
        Some(user),
        s.reason.as_deref(),
    );
    sort_policies(&mut objects);
    let mut rows = Vec::new();
    let mut not_involved = 0;
    for (kind, o) in objects {
        let Some(row) = live_row(kind, o, &bound, s, &stamp, &health) else {
            continue;
        };
        if row.plan.outcome == Outcome::NotInvolved {
            not_involved += 1;
        } else {
            rows.push(row);
        }
    }
    Ok(Freeze {
        rows,
        files: Vec::new(),
        not_involved,
        unread: Vec::new(),
        manifests: Vec::new(),
        layered: None,
        stamp,
    })
}

/// The row of one listed policy (`None`: its spec cannot be read, which warns).
fn live_row(
    kind: PolicyKind,
    o: J,
    bound: &BoundClusters,
    s: &Settings,
    stamp: &Stamp,
    health: &[Cluster],
) -> Option<Row> {
    let name = o["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let spec: PropagationSpec = match serde_json::from_value(o["spec"].clone()) {
        Ok(spec) => spec,
        Err(e) => {
            let id = plan::resource_id(kind, &name);
            warn(&format!("{id}: cannot read spec: {e}"));
            return None;
        }
    };
    let b = bound.of(
        kind,
        o["metadata"]["labels"][kind.permanent_id_label()].as_str(),
    );
    let input = FreezeInput {
        action: s.action,
        spec: &spec,
        record: record_of(&o),
        bound: b.as_deref(),
        clusters: &s.request.clusters,
        stamp,
    };
    let p = plan::freeze_policy(&input, health, s.guard());
    Some(Row {
        kind,
        namespace: o["metadata"]["namespace"].as_str().map(str::to_string),
        name,
        file: None,
        layer: None,
        gitops: p.change().and_then(|_| gitops_owner(&o)),
        plan: p,
        object: Some(o),
        bound: b,
        result: None,
        diff: None,
    })
}

async fn list(
    conn: &Conn,
    kind: PolicyKind,
    ns: Option<&str>,
    s: &Settings,
) -> Result<Vec<J>, RunError> {
    let selector = s.selection.selector_text.as_deref();
    writer::list_policies(conn, kind, ns, selector)
        .await
        .map_err(|source| RunError::List {
            what: kind.plural(),
            source,
        })
}

/// The bindings' clusters of every listed policy (one list per binding kind); unreadable
/// bindings warn and leave the placements as the only source of targets.
async fn live_bindings(
    conn: &Conn,
    s: &Settings,
    kinds: &[PolicyKind],
    namespace: &str,
) -> BoundClusters {
    let cluster_scoped = kinds.contains(&PolicyKind::ClusterPropagationPolicy);
    let wide = s.selection.all_namespaces || cluster_scoped;
    let ns = (!wide).then_some(namespace);
    let bound = writer::bound_clusters(conn, ns, cluster_scoped).await;
    if bound.is_none() {
        warn("cannot read ResourceBindings: target clusters come from the placements only");
    }
    bound.unwrap_or_default()
}

/// PropagationPolicies first, by namespace and name, then ClusterPropagationPolicies by name.
fn sort_policies(objects: &mut [(PolicyKind, J)]) {
    objects.sort_by(|(ka, a), (kb, b)| {
        let key = |k: &PolicyKind, o: &J| {
            (
                *k == PolicyKind::ClusterPropagationPolicy,
                o["metadata"]["namespace"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                o["metadata"]["name"].as_str().unwrap_or("").to_string(),
            )
        };
        key(ka, a).cmp(&key(kb, b))
    });
}

fn record_of(obj: &J) -> Option<&str> {
    obj["metadata"]["annotations"][RECORD_ANNOTATION].as_str()
}

/// Applies a freeze planned by [`freeze_live`]: each change through the writer, a bounded
/// number at once; after a 409 Conflict the engine decides again on the object as re-read.
pub async fn apply_freeze_live(conn: &Conn, f: &mut Freeze, s: &Settings) -> Result<(), RunError> {
    let shared = Arc::new((s.clone(), f.stamp.clone()));
    let sem = Arc::new(tokio::sync::Semaphore::new(s.concurrency));
    let mut set = tokio::task::JoinSet::new();
    for (i, row) in f.rows.iter_mut().enumerate() {
        let Some(first) = row.change().cloned() else {
            continue;
        };
        let (conn, shared, sem) = (conn.clone(), shared.clone(), sem.clone());
        let target = PolicyRef {
            kind: row.kind,
            namespace: row.namespace.clone(),
            name: row.name.clone(),
        };
        let object = row.object.take().unwrap_or(J::Null);
        let bound = row.bound.clone();
        set.spawn(async move {
            let _permit = sem.acquire_owned().await;
            let (s, stamp) = &*shared;
            let mut decide = FreezeAgain {
                first: Some(first),
                bound: bound.as_deref(),
                settings: s,
                stamp,
            };
            let written = writer::write(&conn, &target, Some(object), s.dry, &mut decide).await;
            (i, written)
        });
    }
    while let Some(r) = set.join_next().await {
        let (i, written) = r.map_err(|e| RunError::Task(e.to_string()))?;
        let row = &mut f.rows[i];
        match written {
            Ok(w) => {
                let suffix = if w.after.is_some() {
                    s.dry.suffix()
                } else {
                    ""
                };
                row.result = Some(Ok(format!("{}{suffix}", w.info)));
                if let (Some(after), true) = (w.after, s.dry.is_dry()) {
                    row.diff = Some((w.before, after));
                }
            }
            Err(e) => row.result = Some(Err(e)),
        }
    }
    Ok(())
}

/// The decision of a freeze or lift for one policy: the one made before the write, then (after
/// a 409 Conflict) the engine's again on the object as re-read.
struct FreezeAgain<'a> {
    first: Option<Change>,
    bound: Option<&'a [String]>,
    settings: &'a Settings,
    stamp: &'a Stamp,
}

impl writer::Decide for FreezeAgain<'_> {
    type Info = String;

    async fn decide(
        &mut self,
        current: &J,
        spec: &PropagationSpec,
        _attempt: u32,
    ) -> Result<Step<String>, WriteError> {
        if let Some(c) = self.first.take() {
            return Ok(Step::Write(c.patch, c.message));
        }
        let input = FreezeInput {
            action: self.settings.action,
            spec,
            record: record_of(current),
            bound: self.bound,
            clusters: &self.settings.request.clusters,
            stamp: self.stamp,
        };
        Ok(match plan::freeze_outcome(&input) {
            Outcome::Change(c) => Step::Write(c.patch, c.message),
            Outcome::Unchanged(m) | Outcome::Skipped(m) | Outcome::Refused(m) => {
                Step::Skip(format!("{m} (changed meanwhile)"))
            }
            Outcome::NotInvolved => Step::Skip("no longer involved (changed meanwhile)".into()),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Named mode, live

/// One policy to change on the server, possibly already read by a list.
pub struct Target {
    pub kind: PolicyKind,
    pub namespace: Option<String>,
    pub name: String,
    object: Option<J>,
}

/// Named mode on the control plane, gathered: the policies and the member clusters' health.
pub struct NamedLive {
    pub targets: Vec<Target>,
    health: Vec<Cluster>,
}

/// The named policies, and with `--all`/`-l` the listed ones; `None` when a bulk selection
/// finds nothing. Unknown `--clusters` names warn (or end the command with `--strict`).
pub async fn named_live(
    conn: &Conn,
    s: &Settings,
    namespace: &str,
) -> Result<Option<NamedLive>, RunError> {
    let mut targets: Vec<Target> = Vec::new();
    for n in &s.selection.named {
        targets.push(Target {
            kind: n.kind,
            namespace: (n.kind == PolicyKind::PropagationPolicy).then(|| namespace.to_string()),
            name: n.name.clone(),
            object: None,
        });
    }
    if s.selection.is_bulk() {
        for kind in s.selection.bulk_kinds() {
            let ns = match kind {
                PolicyKind::PropagationPolicy if !s.selection.all_namespaces => Some(namespace),
                _ => None,
            };
            for o in list(conn, kind, ns, s).await? {
                targets.push(Target {
                    kind,
                    namespace: o["metadata"]["namespace"].as_str().map(str::to_string),
                    name: o["metadata"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    object: Some(o),
                });
            }
        }
        if targets.is_empty() {
            return Ok(None);
        }
    }
    let health = writer::clusters(conn).await.map_err(clusters_error)?;
    if !s.request.clusters.is_empty() {
        check_cluster_names(&s.request.clusters, health.as_deref(), s.strict)?;
    }
    Ok(Some(NamedLive {
        targets,
        health: health.unwrap_or_default(),
    }))
}

/// What every per-policy task shares.
struct Ctx {
    settings: Settings,
    user: String,
    health: Vec<Cluster>,
}

/// Writes every gathered policy through the writer, a bounded number at once, in order of the
/// targets (a progress count on a terminal from 50 policies on).
pub async fn apply_named_live(
    conn: &Conn,
    live: NamedLive,
    s: &Settings,
) -> Result<Vec<PolicyResult>, RunError> {
    // Asked once, and only when a reason is recorded with it.
    let user = match &s.reason {
        Some(_) => identity(conn).await,
        None => String::new(),
    };
    let ctx = Arc::new(Ctx {
        settings: s.clone(),
        user,
        health: live.health,
    });
    let total = live.targets.len();
    let progress = total >= 50 && std::io::stderr().is_terminal();
    let sem = Arc::new(tokio::sync::Semaphore::new(s.concurrency));
    let mut set = tokio::task::JoinSet::new();
    for (i, t) in live.targets.into_iter().enumerate() {
        let (conn, ctx, sem) = (conn.clone(), ctx.clone(), sem.clone());
        set.spawn(async move {
            let _permit = sem.acquire_owned().await;
            (i, apply_one(&conn, t, &ctx).await)
        });
    }
    let mut results: Vec<Option<PolicyResult>> = (0..total).map(|_| None).collect();
    let mut done = 0;
    while let Some(r) = set.join_next().await {
        let (i, r) = r.map_err(|e| RunError::Task(e.to_string()))?;
        results[i] = Some(r);
        done += 1;
        if progress {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r{done}/{total} policies");
            if done == total {
                let _ = writeln!(e);
            }
        }
    }
    Ok(results.into_iter().flatten().collect())
}

/// The decision for one named policy: the plan, with the policy's bindings read only when it
/// needs the target clusters (once: a re-read after a conflict keeps them).
struct NamedDecision<'a> {
    conn: &'a Conn,
    ctx: &'a Ctx,
    id: &'a str,
    kind: PolicyKind,
    targets: Option<Option<Vec<String>>>,
}

impl writer::Decide for NamedDecision<'_> {
    type Info = (String, Option<Transition>);

    async fn decide(
        &mut self,
        current: &J,
        spec: &PropagationSpec,
        attempt: u32,
    ) -> Result<Step<Self::Info>, WriteError> {
        let (ctx, id) = (self.ctx, self.id);
        let s = &ctx.settings;
        if attempt == 0 {
            if let Some(owner) = gitops_owner(current) {
                warn(&format!(
                    "{id} is managed by {owner}: the controller will revert this change; change the manifest instead (`suspend -f FILE`)"
                ));
            }
        }
        if plan::named_needs_targets(spec, &s.request, &ctx.health) && self.targets.is_none() {
            let bindings = writer::policy_bindings(self.conn, self.kind, current)
                .await
                .unwrap_or_default();
            let permanent_id =
                current["metadata"]["labels"][self.kind.permanent_id_label()].as_str();
            let bound = BoundClusters::from_json(&bindings).of(self.kind, permanent_id);
            self.targets = Some(engine::target_clusters(spec, bound.as_deref()));
        }
        let targets = self.targets.clone().flatten();
        let reason = s.reason.as_ref().map(|text| Reason {
            text: text.clone(),
            user: ctx.user.clone(),
            at: time::rfc3339_now(),
        });
        let mut p = plan::named(
            spec,
            &s.request,
            targets.as_deref(),
            &ctx.health,
            s.guard(),
            reason.as_ref(),
        );
        let annotations = &current["metadata"]["annotations"];
        plan::clear_suspension_record(&mut p, &|key| annotations.get(key).is_some());
        if attempt == 0 {
            for w in &p.stalls {
                warn(&format!("{id}: {w}"));
            }
        }
        match p.outcome {
            Outcome::Change(c) => Ok(Step::Write(c.patch, (c.message, Some((c.before, c.after))))),
            Outcome::Refused(why) => Err(WriteError::Refused(why)),
            Outcome::Unchanged(m) | Outcome::Skipped(m) => Ok(Step::Skip((m, None))),
            Outcome::NotInvolved => Ok(Step::Skip((String::new(), None))),
        }
    }
}

/// One named policy through the writer.
async fn apply_one(conn: &Conn, t: Target, ctx: &Ctx) -> PolicyResult {
    let id = plan::resource_id(t.kind, &t.name);
    let target = PolicyRef {
        kind: t.kind,
        namespace: t.namespace,
        name: t.name,
    };
    let mut named = NamedDecision {
        conn,
        ctx,
        id: &id,
        kind: target.kind,
        targets: None,
    };
    let dry = ctx.settings.dry;
    let written = writer::write(conn, &target, t.object, dry, &mut named).await;
    named_result(id, target.kind, dry, written)
}

/// The result line, the object for `-o`, what `--wait` follows, and a dry run's objects.
fn named_result(
    id: String,
    kind: PolicyKind,
    dry: DryRun,
    written: Result<Written<(String, Option<Transition>)>, WriteError>,
) -> PolicyResult {
    let w = match written {
        Ok(w) => w,
        Err(e) => return PolicyResult::failed(id, e),
    };
    let (message, transition) = w.info;
    let Some(after) = w.after else {
        let mut r = PolicyResult::line(id, Ok(message));
        r.object = Some(w.before);
        return r;
    };
    let wait = match (dry.is_dry(), transition) {
        (false, Some(t)) => Some((kind, t)),
        _ => None,
    };
    PolicyResult {
        id,
        result: Ok(format!("{message}{}", dry.suffix())),
        diff: dry.is_dry().then(|| (w.before, after.clone())),
        object: Some(after),
        wait,
    }
}

/// `--wait`: follows the Works of each changed policy ([`writer::wait_for_works`]); a policy
/// whose Works still lag at the deadline fails with the Works named.
pub async fn wait_for_works(conn: &Conn, results: &mut [PolicyResult], timeout: Duration) {
    let watched: Vec<usize> = (0..results.len())
        .filter(|&i| {
            results[i].wait.is_some() && results[i].object.is_some() && results[i].result.is_ok()
        })
        .collect();
    let watches: Vec<WaitFor> = watched
        .iter()
        .filter_map(|&i| {
            let (kind, (before, after)) = results[i].wait.clone()?;
            let object = results[i].object.clone()?;
            Some(WaitFor {
                kind,
                object,
                before,
                after,
            })
        })
        .collect();
    let lagging = writer::wait_for_works(conn, &watches, timeout).await;
    for (i, works) in watched.into_iter().zip(lagging) {
        if works.is_empty() {
            continue;
        }
        let done = results[i].result.clone().unwrap_or_default();
        results[i].result = Err(WriteError::WaitTimeout {
            done,
            timeout,
            works: works.join(", "),
        });
    }
}
