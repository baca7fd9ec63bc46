//! Environments: what one API server receives from a GitOps repository, rendered.
//!
//! The environments are planned as Flux and Argo CD deploy them ([`super::plan`]): from the
//! Flux bootstrap roots down the Kustomizations they apply, each output going to the cluster
//! Flux runs in or to a `kubeConfig` secret's API server; from the root Argo CD Applications
//! down the app-of-apps, each destination its own environment. `lint`, `explain` and
//! `preempt-check` all read a repository through [`Repo`]: first the plan (what each
//! environment is made of, rendering only what following the controllers needs), then the
//! builds, then each environment's documents with the traces back to the files they came from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::discover::{self, Repository};
use super::helm::Helm;
use super::origin::{self, Mapper};
use super::render::Kustomize;
use super::units::{self, Output};
use crate::kube::scope;
use crate::source::{files, FieldPath, Loaded, Node, Source, Span, Value};

pub use super::units::{
    Applier, ArgoApplication, Plan, RenderFailure, Rendered, Renders, Target, Unit, UnitKind,
};

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
    /// `gitops.remoteResources`: let kustomize fetch the URLs kustomizations name.
    pub remote_resources: bool,
    /// `--env`: only this environment (its name, or the directory it is named after).
    pub environment: Option<String>,
    /// The repository's root (the directory linted): where `path: .` and the paths of Flux
    /// and Argo CD objects are resolved. Default: the common directory of the inputs.
    pub root: Option<PathBuf>,
}

/// One environment's documents: rendered streams first, then the plain files (with the
/// environment's Flux variables substituted, and the namespace their unit gives).
pub struct Environment {
    pub name: String,
    pub target: Target,
    pub rendered: Vec<Rendered>,
    pub plain: Vec<(Loaded, Option<String>)>,
    pub failures: Vec<RenderFailure>,
    /// Copies of an object that an Argo CD Application renders more than once, left out: it
    /// applies only the last ([`Superseded`]).
    pub superseded: Vec<Superseded>,
}

/// A copy of an object one Argo CD Application renders more than once, which it does not
/// apply: Argo CD keeps the last copy of each object (group, kind, namespace, name) among an
/// Application's manifests and marks the Application with a `RepeatedResourceWarning`
/// condition (`NormalizeTargetObjects`, controller/state.go: "Only keep the last target
/// object"). Unlike `kubectl apply`, the earlier copies are never applied, so admission never
/// judges them as updates.
#[derive(Debug, Clone)]
pub struct Superseded {
    pub application: String,
    /// `kind/namespace/name`, as the report names the object.
    pub object: String,
    /// The copy left out, traced to the file to edit: its `metadata.name`.
    pub copy: (Arc<Source>, Span),
    /// The copy it applies.
    pub applied: (Arc<Source>, Span),
}

/// `--env NAME` names no environment of the repository.
#[derive(Debug, Clone, thiserror::Error)]
#[error("--env {wanted}: no such environment; the repository has: {}", known.join("; "))]
pub struct UnknownEnvironment {
    pub wanted: String,
    /// Each environment as `NAME → TARGET`.
    pub known: Vec<String>,
}

/// A repository read for rendering: what it holds and its environments' plans.
pub struct Repo {
    pub repo: Repository,
    pub plans: Vec<Plan>,
    /// What the user should know (unreadable files, Flux paths outside the repository...).
    pub notes: Vec<String>,
    /// The repository's root (see [`RenderOptions::root`]).
    pub root: PathBuf,
    renders: Option<Renders>,
}

impl Repo {
    /// Discovers the repository `inputs` belong to and plans its environments, rendering what
    /// following its Flux Kustomizations and Argo CD Applications needs.
    pub fn read(inputs: &[PathBuf], opts: &RenderOptions) -> Repo {
        let inputs: Vec<PathBuf> = inputs.iter().map(|f| super::normalize(f)).collect();
        let mut repo = discover::discover(&inputs);
        for extra in &opts.extra_roots {
            if repo.kustomizations.contains_key(extra) && !repo.roots.contains(extra) {
                repo.roots.push(extra.clone());
            }
        }
        let root = opts
            .root
            .as_deref()
            .map(super::normalize)
            .unwrap_or_else(|| common_dir(&inputs));
        let mut kustomize = Kustomize::find(opts.kustomize.as_deref());
        if let Some(k) = &mut kustomize {
            k.plugins = opts.plugins;
            k.helm = opts.helm_inflation;
            k.remote = opts.remote_resources;
        }
        let confine = repository_root(&root);
        let helm = Helm::find(opts.helm.as_deref()).map(|h| Helm {
            fetch_dependencies: opts.remote_resources,
            confine: Some(confine.clone()),
            ..h
        });
        let mut renders = Renders::new(kustomize, helm, confine, opts.helm_values.clone());
        let mut notes = Vec::new();
        let mut plain = BTreeMap::new();
        for f in &repo.plain {
            match files::read(f) {
                Ok(l) => {
                    plain.insert(f.clone(), l);
                }
                Err(e) => notes.push(e.to_string()),
            }
        }
        notes.extend(crate::source::data_notes(plain.values()));
        renders.add_files(plain);
        let plans = super::plan::plan(&repo, &inputs, &root, &mut renders, &mut notes);
        for k in repo.kustomizations.values() {
            if !k.helm_charts.is_empty() && !opts.helm_inflation {
                notes.push(format!(
                    "{}: helmCharts ({}) are not inflated; set gitops.helmInflation: true to render them",
                    k.file.display(),
                    k.helm_charts.join(", ")
                ));
            }
        }
        Repo {
            repo,
            plans,
            notes,
            root,
            renders: Some(renders),
        }
    }

    /// The environments' names, in plan order.
    pub fn names(&self) -> Vec<String> {
        self.plans.iter().map(|p| p.name.clone()).collect()
    }

    /// Loose files holding only Cluster objects (`kubectl get clusters -o yaml` beside the
    /// repository, or given with `-f` as explain's hint asks) are the control plane's member
    /// clusters, not an API server's input of their own: where the repository has Karmada
    /// environments other than loose files, they join each of them and their own environment
    /// goes (from `karmada` too). A note names the files and the environments.
    pub fn share_loose_clusters(
        &mut self,
        karmada: &mut std::collections::BTreeSet<String>,
        renders: &mut Renders,
    ) -> Option<String> {
        let targets: Vec<usize> = (0..self.plans.len())
            .filter(|&i| {
                let p = &self.plans[i];
                karmada.contains(&p.name) && p.target != Target::Loose
            })
            .collect();
        if targets.is_empty() {
            return None;
        }
        let shared: Vec<usize> = (0..self.plans.len())
            .filter(|&i| {
                let p = &self.plans[i];
                p.target == Target::Loose
                    && !p.units.is_empty()
                    && p.units.iter().all(|u| match &u.kind {
                        UnitKind::Plain(f) => {
                            renders.file(f).is_some_and(|l| only_clusters(&l.documents))
                        }
                        _ => false,
                    })
            })
            .collect();
        if shared.is_empty() {
            return None;
        }
        let units: Vec<Unit> = shared
            .iter()
            .flat_map(|&i| self.plans[i].units.clone())
            .collect();
        for &t in &targets {
            self.plans[t].units.extend(units.iter().cloned());
        }
        let names: Vec<String> = targets
            .iter()
            .map(|&t| self.plans[t].name.clone())
            .collect();
        let gone: Vec<String> = shared.iter().map(|&i| self.plans[i].name.clone()).collect();
        self.plans.retain(|p| !gone.contains(&p.name));
        for g in &gone {
            karmada.remove(g);
        }
        let files: Vec<String> = units
            .iter()
            .map(|u| u.path().display().to_string())
            .collect();
        Some(format!(
            "{}: Cluster objects no controller applies: read as the member clusters of {}",
            files.join(", "),
            names.join(", ")
        ))
    }

    /// Keeps only the environment `wanted` names: its name, or the directory it is named after
    /// (as given, or as a trailing part of that directory, when only one ends so).
    pub fn select(&mut self, wanted: &str) -> Result<(), UnknownEnvironment> {
        let i = choose(&self.plans, wanted).ok_or_else(|| UnknownEnvironment {
            wanted: wanted.to_string(),
            known: self
                .plans
                .iter()
                .map(|p| format!("{} → {}", p.name, p.target))
                .collect(),
        })?;
        let chosen = self.plans.swap_remove(i);
        self.plans = vec![chosen];
        Ok(())
    }

    /// Builds every unit the plans use that is not built yet (kustomize in parallel, each
    /// once) and hands the renders over.
    pub fn render(&mut self, _opts: &RenderOptions) -> Renders {
        let mut renders = self.renders.take().expect("rendered once");
        renders.prepare(self.plans.iter().flat_map(|p| &p.units));
        renders
    }

    /// Whether `plan` reaches a Karmada API server: it holds an object of a Karmada API (a
    /// policy, a Cluster, a Work...), or its target is named after Karmada. What reaches only
    /// member or management clusters is not a Karmada environment. Files no controller applies, and roots and charts whose target the repository does not
    /// declare, are linted as they always were (the target is not known to be anything else).
    pub fn is_karmada(&self, plan: &Plan, renders: &mut Renders) -> bool {
        let named = match &plan.target {
            Target::KubeConfig { secret, .. } => secret.contains("karmada"),
            Target::Argo { destination } => destination.contains("karmada"),
            // Whoever applies them, files that hold no Kubernetes object (a Talos machine
            // patch, a Helm values file) are no API server's input; one that does not render
            // may hold some.
            Target::Undeclared | Target::Loose => {
                return plan.units.iter().any(|u| {
                    renders
                        .text_test(u, &holds_kubernetes_object)
                        .unwrap_or(true)
                })
            }
            Target::FluxCluster { .. } => false,
        };
        named
            || plan
                .units
                .iter()
                .any(|u| match renders.text_test(u, &holds_karmada_object) {
                    Some(holds) => holds,
                    // Not rendered (no renderer, or it failed): what its sources hold.
                    None => self
                        .sources_of(u)
                        .iter()
                        .any(|f| files::read_text(f).is_ok_and(|(_, t)| holds_karmada_object(&t))),
                })
    }

    /// The files of the kustomization at `dir` and those it includes.
    fn root_sources(&self, dir: &Path) -> Vec<PathBuf> {
        self.repo
            .closure(dir)
            .iter()
            .filter_map(|d| self.repo.kustomizations.get(d))
            .flat_map(|k| k.resource_files.iter().cloned())
            .collect()
    }

    /// The repository files a unit is made from.
    fn sources_of(&self, unit: &Unit) -> Vec<PathBuf> {
        match &unit.kind {
            UnitKind::Plain(f) => vec![f.clone()],
            UnitKind::Root(spec) if !spec.resources.is_empty() => spec
                .resources
                .iter()
                .flat_map(|r| match super::discover::kustomization_file(r) {
                    Some(_) => self.root_sources(r),
                    None => vec![r.clone()],
                })
                .collect(),
            UnitKind::Root(spec) => self.root_sources(&spec.dir),
            UnitKind::Chart(dir, _) => self
                .repo
                .covered
                .iter()
                .filter(|f| f.starts_with(dir))
                .cloned()
                .collect(),
        }
    }

    /// The documents of the environment `plan` describes.
    pub fn environment(&self, plan: &Plan, renders: &mut Renders) -> Environment {
        let mut env = Environment {
            name: plan.name.clone(),
            target: plan.target.clone(),
            rendered: Vec::new(),
            plain: Vec::new(),
            failures: Vec::new(),
            superseded: Vec::new(),
        };
        // The outputs in the order the units give them (an Application's manifests are its
        // sources' outputs in turn).
        let mut order = Vec::new();
        for unit in &plan.units {
            match units::output(&self.repo, unit, renders) {
                Output::Rendered(r) => {
                    order.push(Slot::Rendered(env.rendered.len()));
                    env.rendered.push(r);
                }
                Output::Plain(l, ns) => {
                    order.push(Slot::Plain(env.plain.len()));
                    env.plain.push((l, ns));
                }
                Output::Failed(f) => env.failures.push(f),
                Output::Nothing => {}
            }
        }
        for app in &plan.applications {
            self.keep_last_copies(&mut env, &order, app);
        }
        env
    }

    /// Leaves out of `env` the copies of an object `app` renders more than once but the last
    /// ([`Superseded`]), and says so in `env.superseded`.
    fn keep_last_copies(&self, env: &mut Environment, order: &[Slot], app: &ArgoApplication) {
        // Each document of the Application, in order: where it is, and its identity.
        let mut copies: Vec<(Slot, usize, [String; 4])> = Vec::new();
        for &slot in order {
            let (loaded, namespace) = match slot {
                Slot::Rendered(i) => (
                    &env.rendered[i].loaded,
                    env.rendered[i].namespace.as_deref(),
                ),
                Slot::Plain(i) => (&env.plain[i].0, env.plain[i].1.as_deref()),
            };
            if !app.outputs.contains(&loaded.source.name) {
                continue;
            }
            for d in &loaded.documents {
                if let Some(key) = identity(&d.root, namespace) {
                    copies.push((slot, d.index, key));
                }
            }
        }
        let last: std::collections::HashMap<&[String; 4], (Slot, usize)> = copies
            .iter()
            .map(|(slot, index, key)| (key, (*slot, *index)))
            .collect();
        let mapper = self.mapper();
        let mut left_out: Vec<(Slot, usize)> = Vec::new();
        for (slot, index, key) in &copies {
            let (last_slot, last_index) = last[key];
            if (last_slot, last_index) == (*slot, *index) {
                continue;
            }
            let (Some(copy), Some(applied)) = (
                name_location(env, &mapper, *slot, *index),
                name_location(env, &mapper, last_slot, last_index),
            ) else {
                continue;
            };
            let [_, kind, namespace, name] = key;
            env.superseded.push(Superseded {
                application: app.name.clone(),
                object: match namespace.is_empty() {
                    true => format!("{}/{name}", kind.to_lowercase()),
                    false => format!("{}/{namespace}/{name}", kind.to_lowercase()),
                },
                copy,
                applied,
            });
            left_out.push((*slot, *index));
        }
        for (slot, index) in left_out {
            let documents = match slot {
                Slot::Rendered(i) => &mut env.rendered[i].loaded.documents,
                Slot::Plain(i) => &mut env.plain[i].0.documents,
            };
            documents.retain(|d| d.index != index);
        }
    }

    /// The documents of `plan` that may install or configure Karmada (a HelmRelease, an
    /// Argo CD Application, the operator's `Karmada`, karmada-controller-manager, a
    /// karmada-scheduler run with `--scheduler-name`), rendered and traced, for reading the
    /// installation's settings. Only units whose text may hold one are parsed again.
    pub fn installation_documents(&self, plan: &Plan, renders: &mut Renders) -> Vec<Rendered> {
        const MARKERS: &[&str] = &[
            "kind: HelmRelease",
            "kind: Application",
            "kind: HelmChart",
            "operator.karmada.io",
            "karmada-controller-manager",
            "scheduler-name",
            "scheduler_name",
        ];
        let mut out = Vec::new();
        for unit in &plan.units {
            let may_hold = |t: &str| t.contains("karmada") && MARKERS.iter().any(|m| t.contains(m));
            if renders.text_test(unit, &may_hold) != Some(true) {
                continue;
            }
            match units::output(&self.repo, unit, renders) {
                Output::Rendered(r) => out.push(r),
                Output::Plain(l, ns) => out.push(Rendered {
                    // Its own file: every place traces to itself.
                    origins: vec![Some(PathBuf::from(&l.source.name)); l.documents.len()],
                    layers: origin::Layers {
                        closure: Vec::new(),
                        fallback: PathBuf::from(&l.source.name),
                    },
                    loaded: l,
                    namespace: ns,
                }),
                _ => {}
            }
        }
        out
    }

    /// The source files, for tracing rendered places back to them.
    pub fn mapper(&self) -> Mapper<'_> {
        Mapper::new(&self.repo)
    }
}

/// Whether `documents` are Cluster objects (`cluster.karmada.io`), one at least.
fn only_clusters(documents: &[crate::source::Document]) -> bool {
    !documents.is_empty()
        && documents.iter().all(|d| {
            let api = d
                .root
                .get("apiVersion")
                .and_then(Node::as_str)
                .unwrap_or("");
            api.starts_with("cluster.karmada.io/")
                && d.root.get("kind").and_then(Node::as_str) == Some("Cluster")
        })
}

/// Whether a text holds an object of a Karmada API (`apiVersion: policy.karmada.io/...` and
/// the other groups Karmada's API server serves; the operator's `operator.karmada.io` lives in
/// the host cluster).
pub fn holds_karmada_object(text: &str) -> bool {
    const GROUPS: &[&str] = &[
        "policy.karmada.io/",
        "cluster.karmada.io/",
        "work.karmada.io/",
        "config.karmada.io/",
        "networking.karmada.io/",
        "apps.karmada.io/",
        "autoscaling.karmada.io/",
        "search.karmada.io/",
        "remedy.karmada.io/",
    ];
    memchr::memmem::find(text.as_bytes(), b".karmada.io/").is_some()
        && own_api_versions(text).any(|v| {
            let v = v.trim_matches(['"', '\'']);
            GROUPS.iter().any(|g| v.starts_with(g))
        })
}

/// Whether `text` holds a document with its own `apiVersion`, as every Kubernetes object has.
pub fn holds_kubernetes_object(text: &str) -> bool {
    own_api_versions(text).any(|v| !v.is_empty())
}

/// The `apiVersion` values documents of `text` give themselves, trimmed: at the start of a
/// line, or of a `kind: List` item; not one written inside a string (a heredoc in a CronJob's
/// script) or under another key.
fn own_api_versions(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter_map(|l| {
        let l = l
            .strip_prefix("  - ")
            .or_else(|| l.strip_prefix("- "))
            .unwrap_or(l);
        l.strip_prefix("apiVersion:").map(str::trim)
    })
}

/// The directory PATHs name (their common directory): the repository's root, where `path: .`
/// and the paths of Flux and Argo CD objects are resolved ([`RenderOptions::root`]).
pub fn root_of(paths: &[String]) -> Option<PathBuf> {
    let dirs: Vec<PathBuf> = paths
        .iter()
        .filter(|p| *p != "-")
        .map(|p| {
            let p = Path::new(p);
            if p.is_dir() {
                super::normalize(p)
            } else {
                super::normalize(p.parent().unwrap_or(Path::new("")))
            }
        })
        .collect();
    let mut common = dirs.first()?.clone();
    for d in &dirs[1..] {
        while !d.starts_with(&common) {
            if !common.pop() {
                return Some(PathBuf::new());
            }
        }
    }
    Some(common)
}

/// The common directory of `inputs` (the current directory when they share none).
fn common_dir(inputs: &[PathBuf]) -> PathBuf {
    let mut dirs = inputs
        .iter()
        .map(|f| f.parent().map(Path::to_path_buf).unwrap_or_default());
    let Some(mut common) = dirs.next() else {
        return PathBuf::new();
    };
    for d in dirs {
        while !d.starts_with(&common) {
            if !common.pop() {
                return PathBuf::new();
            }
        }
    }
    common
}

/// The repository nothing may be read outside of: the git work tree the root is in, else the
/// root itself.
fn repository_root(root: &Path) -> PathBuf {
    let start = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    let Ok(abs) = start.canonicalize() else {
        return start.to_path_buf();
    };
    super::git_work_tree(&abs)
        .map(Path::to_path_buf)
        .unwrap_or(abs)
}

/// The plan `wanted` names (see [`Repo::select`]).
fn choose(plans: &[Plan], wanted: &str) -> Option<usize> {
    if let Some(i) = plans.iter().position(|p| p.name == wanted) {
        return Some(i);
    }
    let path = super::normalize(Path::new(wanted.trim_end_matches('/')));
    // An absolute directory (`--env "$PWD/clusters/prod"`) is the same directory as the one
    // the plan holds as given.
    let same_place = |dir: &Path| {
        path.is_absolute()
            && std::fs::canonicalize(super::as_dir(dir))
                .is_ok_and(|d| std::fs::canonicalize(&path).is_ok_and(|w| d == w))
    };
    let exact: Vec<usize> = plans
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.dir.as_deref() == Some(&path) || p.dir.as_deref().is_some_and(same_place)
        })
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

/// For each document of a `helm template` output, the template its `# Source:` comment names.
pub fn source_comments(loaded: &Loaded, chart_dir: &Path) -> Vec<Option<PathBuf>> {
    units::source_comments(loaded, chart_dir)
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
    trace_with_cause(rendered, mapper, source, span, field, None)
}

/// Where an environment's output is: among its rendered streams or its plain files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Rendered(usize),
    Plain(usize),
}

/// An object's identity as Argo CD keys it (`kube.GetResourceKey`) once it has normalized the
/// namespace (`NormalizeTargetObjects`: none for a cluster-scoped kind, the destination's where
/// a namespaced one sets none): API group, kind, namespace, name. `None` for a document without
/// one.
fn identity(root: &Node, namespace: Option<&str>) -> Option<[String; 4]> {
    let api_version = root.get("apiVersion")?.as_str()?;
    let kind = root.get("kind")?.as_str()?;
    let meta = root.get("metadata")?;
    let name = meta.get("name")?.as_str()?;
    let namespace = match scope::is_namespaced(api_version, kind) {
        true => meta
            .get("namespace")
            .and_then(Node::as_str)
            .or(namespace)
            .unwrap_or(""),
        false => "",
    };
    Some([scope::group_of(api_version), kind, namespace, name].map(str::to_string))
}

/// The `metadata.name` of document `index` of an output, in the file to edit (a rendered
/// stream's traced back to its source).
fn name_location(
    env: &Environment,
    mapper: &Mapper<'_>,
    slot: Slot,
    index: usize,
) -> Option<(Arc<Source>, Span)> {
    let path = FieldPath::parse("metadata.name");
    let loaded = match slot {
        Slot::Rendered(i) => &env.rendered[i].loaded,
        Slot::Plain(i) => &env.plain[i].0,
    };
    let doc = loaded.documents.iter().find(|d| d.index == index)?;
    let span = doc.root.locate_value(&path);
    match slot {
        Slot::Rendered(_) => trace_with_cause(
            &env.rendered,
            mapper,
            &loaded.source,
            span,
            Some("metadata.name"),
            None,
        ),
        Slot::Plain(_) => Some((loaded.source.clone(), span)),
    }
}

/// [`trace`], for a finding about a field the object lacks (`propagateDeps` missing): traced
/// through `cause` instead, the field that makes it required (`failover.application`), since
/// the line to edit is where that was written (an overlay's patch, not the base).
pub fn trace_with_cause(
    rendered: &[Rendered],
    mapper: &Mapper<'_>,
    source: &Arc<Source>,
    span: Span,
    field: Option<&str>,
    cause: Option<&str>,
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
    // A finding on a value (an enum's, a type's) points at the value in the file to edit too,
    // as it does in a plain file.
    let on_value = span == doc.root.locate_value(&path) && span != doc.root.locate(&path);
    let at = mapper.locate(&r.layers, &doc.root, origin.as_deref(), &path, on_value);
    match cause.map(FieldPath::parse) {
        // Written by another file than the document (a patch): that file is the one to edit.
        Some(c) if doc.root.at(&path).is_none() && doc.root.at(&c).is_some() => {
            let by = mapper.locate(&r.layers, &doc.root, origin.as_deref(), &c, false);
            match (&at, by) {
                (Some((a, _)), Some((b, span))) if a.name != b.name => Some((b, span)),
                _ => at,
            }
        }
        _ => at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Argo CD's key after it normalizes the namespace: a cluster-scoped kind has none whatever
    /// the manifest writes; a namespaced one without its own takes the destination's.
    #[test]
    fn an_object_is_keyed_as_argo_cd_normalizes_its_namespace() {
        let key = |text: &str, destination: Option<&str>| {
            let loaded = crate::source::load(Source::new("t.yaml", text));
            identity(&loaded.documents[0].root, destination)
        };
        let cpp = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: a, namespace: other}\n";
        assert_eq!(
            key(cpp, Some("demo")),
            Some(["policy.karmada.io", "ClusterPropagationPolicy", "", "a"].map(String::from))
        );
        let pp = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: a}\n";
        assert_eq!(
            key(pp, Some("demo")),
            Some(["policy.karmada.io", "PropagationPolicy", "demo", "a"].map(String::from))
        );
        assert_eq!(key("kind: X\n", None), None);
    }

    fn plan_named(name: &str, dir: Option<&str>) -> Plan {
        Plan {
            name: name.into(),
            dir: dir.map(PathBuf::from),
            target: Target::Undeclared,
            instance: "repository".into(),
            units: Vec::new(),
            elsewhere: Vec::new(),
            applications: Vec::new(),
            appliers: Vec::new(),
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

    #[test]
    fn karmada_objects_are_told_from_the_rest() {
        assert!(holds_karmada_object(
            "kind: X\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n"
        ));
        assert!(holds_karmada_object(
            "items:\n  - apiVersion: \"cluster.karmada.io/v1alpha1\"\n"
        ));
        // The operator's resource lives in the host cluster; a CRD only names the group.
        assert!(!holds_karmada_object(
            "apiVersion: operator.karmada.io/v1alpha1\nkind: Karmada\n"
        ));
        assert!(!holds_karmada_object(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: policy.karmada.io\n"
        ));
        assert!(!holds_karmada_object(
            "kind: CronJob\nspec:\n  args:\n    - |\n      cat <<EOF | kubectl apply -f -\n      apiVersion: apps.karmada.io/v1alpha1\n"
        ));
    }

    #[test]
    fn kubernetes_objects_are_told_from_other_yaml() {
        assert!(holds_kubernetes_object("kind: ConfigMap\napiVersion: v1\n"));
        assert!(holds_kubernetes_object("items:\n  - apiVersion: v1\n"));
        assert!(!holds_kubernetes_object(
            "machine:\n  install:\n    disk: /dev/sda\n"
        ));
        assert!(!holds_kubernetes_object("replicaCount: 1\napiVersion:\n"));
        assert!(!holds_kubernetes_object("spec:\n  apiVersion: v1\n"));
    }

    #[test]
    fn the_common_directory_of_the_inputs() {
        let files = [
            PathBuf::from("r/clusters/a/x.yaml"),
            PathBuf::from("r/apps/b/y.yaml"),
        ];
        assert_eq!(common_dir(&files), PathBuf::from("r"));
        assert_eq!(common_dir(&[PathBuf::from("x.yaml")]), PathBuf::new());
    }
}
