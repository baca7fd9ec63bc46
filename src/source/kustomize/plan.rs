//! Which environments a repository declares, followed the way Flux and Argo CD follow them.
//!
//! **Flux.** `flux bootstrap` writes `clusters/<name>/flux-system/` whose `flux-system`
//! Kustomization applies `./clusters/<name>`: a Kustomization whose own file lies under its
//! path is a bootstrap root, and the directory it applies is a cluster. From each root the
//! Kustomizations its output holds are followed (their output rendered as the
//! kustomize-controller renders it: a kustomization built with the load restrictor off and
//! `targetNamespace`/`namePrefix`/`nameSuffix` on top, a plain directory read recursively as
//! Flux generates its kustomization, `postBuild` variables substituted), and so on down. What a
//! Kustomization with `spec.kubeConfig` outputs goes to the API server of that secret, the rest
//! to the cluster Flux runs in; a Kustomization found in an output sent elsewhere is that
//! cluster's business and is not followed. A `HelmRelease` whose chart is in this repository
//! renders it, with its values, for its own target. Kustomizations nothing applies are grouped
//! by directory, as a cluster each (applied by hand).
//!
//! **Argo CD.** Applications (and those ApplicationSets generate) that no other Application's
//! source holds are roots (one that holds only itself, the app of apps that manages its own
//! directory, too, and those a chart of Applications nothing names renders); an Application
//! whose destination is Argo CD's own cluster and whose source holds Applications (app-of-apps)
//! is followed. Each destination is an environment: a
//! source with a kustomization is built, one with a `Chart.yaml` rendered with its Helm values,
//! a plain directory read (its subdirectories only with `directory.recurse`); `path: .` is the
//! repository's root.
//!
//! What no controller object applies: each kustomize root and chart is its own environment,
//! and the plain files are linted on their own (when the repository declares environments) or
//! with each root (when it declares none, as before).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::argo::{self, ArgoApp, ArgoSource};
use super::artifact::{Artifact, SourceKind};
use super::discover::{kustomization_file, Repository};
use super::flux::{self, FluxKustomization, FluxSource, HelmRelease, SourceRef};
use super::helm::HelmValues;
use super::render::BuildSpec;
use super::scan;
use super::units::{self, ArgoApplication, Output, Plan, Renders, Target, Unit, UnitKind};
use super::{normalize, root_name, shown_dir};
use crate::source::{files, Node};

/// How deep Kustomizations applying Kustomizations are followed (a cycle stops earlier).
const MAX_DEPTH: usize = 32;

/// Plans the environments of `repo` (files `inputs`, root `root`), rendering what following
/// the controllers needs.
pub fn plan(
    repo: &Repository,
    inputs: &[PathBuf],
    root: &Path,
    renders: &mut Renders,
    notes: &mut Vec<String>,
) -> Vec<Plan> {
    let mut p = Planner {
        repo,
        inputs,
        root: normalize(root),
        renders,
        notes,
        used_roots: BTreeSet::new(),
        used_files: BTreeSet::new(),
        used_charts: BTreeSet::new(),
        var_sources: Vec::new(),
        cluster_var_sources: Vec::new(),
        unexpanded_app_of_apps: false,
        artifacts: BTreeMap::new(),
    };
    let found = p.controller_objects();
    let mut plans = p.flux_plans(&found);
    plans.extend(p.argo_plans(&found));
    // An app of apps that could not be rendered still says the repository is Argo CD's: its
    // directories are applications, not files to join every root's environment (as they are
    // when helm renders the chart and its Applications name them).
    let declared = !plans.is_empty() || p.unexpanded_app_of_apps;
    plans.extend(p.rest(declared));
    // An Application set found again down the app of apps (the root's own directory, read
    // again when it is followed) says the same thing again.
    let mut said = BTreeSet::new();
    notes.retain(|n| said.insert(n.clone()));
    plans
}

/// The controller objects the repository's files define (before anything is rendered).
#[derive(Default)]
struct Found {
    kustomizations: Vec<FluxKustomization>,
    sources: Vec<FluxSource>,
    apps: Vec<ArgoApp>,
}

impl Found {
    /// The source object `r` names: the one defined under `dir` (the cluster's directory)
    /// first, since clusters of one repository often each define a source of the same name
    /// with their own URL or `spec.ignore`, else the first of that name. An empty kind is
    /// Flux's default, a GitRepository.
    fn source(&self, r: &SourceRef, dir: &Path) -> Option<&FluxSource> {
        let kind = match r.kind.as_str() {
            "" => "GitRepository",
            kind => kind,
        };
        let named = || {
            self.sources.iter().filter(move |s| {
                s.reference.kind == kind
                    && s.reference.name == r.name
                    && s.reference.namespace == r.namespace
            })
        };
        named()
            .find(|s| s.file.starts_with(dir))
            .or_else(|| named().next())
    }
}

/// One Flux installation: the cluster it runs in and the Kustomizations it starts from.
struct Instance {
    name: String,
    /// The cluster's directory.
    dir: PathBuf,
    /// Where `spec.path` is resolved (the root of the source the roots fetch), when known.
    source_root: Option<PathBuf>,
    /// The source the roots fetch: a Kustomization fetching another is from elsewhere.
    source: Option<SourceRef>,
    roots: Vec<FluxKustomization>,
    /// Files applied by hand to the cluster (the directory of Kustomizations nothing applies).
    by_hand: Vec<Unit>,
}

struct Planner<'a> {
    repo: &'a Repository,
    inputs: &'a [PathBuf],
    root: PathBuf,
    renders: &'a mut Renders,
    notes: &'a mut Vec<String>,
    used_roots: BTreeSet<PathBuf>,
    used_files: BTreeSet<PathBuf>,
    used_charts: BTreeSet<PathBuf>,
    /// ConfigMaps and Secrets a `substituteFrom` may name: anywhere in the repository, and
    /// in the outputs applied to the cluster being followed (which win: each cluster has its
    /// own `cluster-settings`).
    var_sources: Vec<Node>,
    cluster_var_sources: Vec<Node>,
    /// A chart whose templates hold Argo CD objects gave no Application (helm is missing, or
    /// it failed): the repository declares its environments there, unread.
    unexpanded_app_of_apps: bool,
    /// The artifact filters of the Flux sources met, by root and source.
    artifacts: BTreeMap<(PathBuf, SourceRef, PathBuf), Rc<Artifact>>,
}

/// What the Argo CD Applications of one destination give: their units, the files declaring
/// them, and the sources they take from outside this repository.
#[derive(Default)]
struct Destination {
    units: Vec<Unit>,
    files: BTreeSet<PathBuf>,
    elsewhere: Vec<String>,
    applications: BTreeSet<ArgoApplication>,
    appliers: BTreeSet<units::Applier>,
}

impl Planner<'_> {
    /// Every directory above an input, once, in order: where kustomizations may stand.
    fn input_dirs(&self) -> Vec<PathBuf> {
        self.inputs
            .iter()
            .flat_map(|f| f.ancestors().skip(1))
            .map(normalize)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// Every Flux Kustomization, Flux source and Argo CD Application in the inputs, wherever
    /// they are (a kustomization's resources included).
    fn controller_objects(&mut self) -> Found {
        let mut found = Found::default();
        let mut propagated = flux::Propagated::default();
        let dirs = self.input_dirs();
        for f in self.inputs {
            let Ok((_, bytes)) = files::read_bytes(f) else {
                continue;
            };
            let has = |s: &str| memchr::memmem::find(&bytes, s.as_bytes()).is_some();
            let (fluxed, argo) = (has("fluxcd.io"), has(argo::API_GROUP));
            if !(fluxed || argo || has("kind: ConfigMap") || has("kind: Secret")) {
                continue;
            }
            let Some(loaded) = self.renders.file(f) else {
                continue;
            };
            let loaded = loaded.clone();
            for d in &loaded.documents {
                propagated.add(&d.root);
                if let Some(k) = flux::kustomization_of(&d.root, f) {
                    found.kustomizations.push(k);
                } else if let Some(s) = flux::source_of(&d.root) {
                    found.sources.push(FluxSource {
                        file: f.clone(),
                        ..s
                    });
                } else if is_var_source(&d.root) {
                    self.var_sources.push(d.root.clone());
                }
            }
            if argo && argo::declares(&loaded) {
                let tree = argo::Tree {
                    dirs: &dirs,
                    files: self.inputs,
                };
                found.apps.extend(argo::find(&loaded, f, &tree, self.notes));
            }
        }
        // A Flux Kustomization that Karmada propagates is a template, not this Flux's own.
        found
            .kustomizations
            .retain(|k| !propagated.kustomization(k));
        found
    }

    // ---------------------------------------------------------------- Flux

    fn flux_plans(&mut self, found: &Found) -> Vec<Plan> {
        let mut instances = self.bootstraps(found);
        let mut plans = Vec::new();
        let mut reached: BTreeSet<(PathBuf, String)> = BTreeSet::new();
        for i in &instances {
            plans.extend(self.follow(i, found, &mut reached));
        }
        // Kustomizations nothing applies: a cluster per directory, applied by hand.
        let mut loose: BTreeMap<PathBuf, Vec<FluxKustomization>> = BTreeMap::new();
        for k in &found.kustomizations {
            if !reached.contains(&(absolute(&k.file), k.name.clone())) {
                let dir = k.file.parent().map(normalize).unwrap_or_default();
                if !self.applied_with_its_directory(&dir, &k.file) {
                    continue;
                }
                loose.entry(dir).or_default().push(k.clone());
            }
        }
        // Applied by hand, a Kustomization's files still come from its source: when the
        // repository bootstraps Flux, its own source is the bootstrap's, and a loose
        // Kustomization whose source has another URL reads another repository.
        let own_source = instances.iter().find_map(|i| i.source.clone());
        instances.clear();
        for (dir, roots) in loose {
            let by_hand = match kustomization_file(&dir) {
                Some(_) => vec![Unit::new(UnitKind::Root(BuildSpec::plain(&dir)))],
                None => self
                    .inputs
                    .iter()
                    .filter(|f| f.parent().map(normalize).as_deref() == Some(dir.as_path()))
                    .map(|f| Unit::new(UnitKind::Plain(f.clone())))
                    .collect(),
            };
            let instance = Instance {
                name: cluster_name(&dir),
                source_root: None,
                source: own_source
                    .clone()
                    .or_else(|| roots.first().map(|k| k.source.clone())),
                dir,
                roots,
                by_hand,
            };
            if !self.note_samples(&instance, found) {
                instances.push(instance);
            }
        }
        for i in &instances {
            plans.extend(self.follow(i, found, &mut reached));
        }
        unique_names(&mut plans);
        plans
    }

    /// Whether the Kustomizations of a directory nothing applies are all samples (test fixtures
    /// such as karmada-io/karmada's resource interpreter testdata): each reads this repository,
    /// yet its `spec.path` is not here. Applied, it would apply nothing of this repository (the
    /// kustomize-controller builds `spec.path` inside the source's artifact,
    /// fluxcd/kustomize-controller `kustomization_controller.go` `reconcile`), so its
    /// directory is no cluster and the repository does not declare environments by it; a
    /// note says so of each, and its files stay loose.
    fn note_samples(&mut self, instance: &Instance, found: &Found) -> bool {
        let sample = |k: &FluxKustomization| {
            !self.elsewhere(instance, found, &k.source) && self.source_path(instance, k).is_none()
        };
        if !instance.roots.iter().all(sample) {
            return false;
        }
        for k in &instance.roots {
            self.notes.push(format!(
                "{}: Flux Kustomization {}: spec.path `{}` is not in this repository and nothing applies its file: a sample, not an environment; read as a plain file",
                k.file.display(),
                k.name,
                k.spec_path
            ));
        }
        true
    }

    /// Whether a Flux Kustomization in `file`, which no Flux instance reaches, is applied by
    /// hand with its directory: as a plain file when the directory has no kustomization, else
    /// only when that kustomization builds it (`kubectl apply -k DIR` leaves out a file it lists
    /// only in a comment, as one disables a Flux Kustomization, or not at all).
    fn applied_with_its_directory(&self, dir: &Path, file: &Path) -> bool {
        if kustomization_file(dir).is_none() {
            return true;
        }
        let file = normalize(file);
        self.repo
            .closure(dir)
            .iter()
            .filter_map(|d| self.repo.kustomizations.get(d))
            .any(|k| k.resource_files.contains(&file))
    }

    /// The bootstrap roots: Kustomizations whose own file is under the path they apply, one
    /// instance per cluster directory.
    fn bootstraps(&self, found: &Found) -> Vec<Instance> {
        let mut by_dir: BTreeMap<PathBuf, Instance> = BTreeMap::new();
        for k in &found.kustomizations {
            // Flux installing itself from an OCI artifact (`path: ./` of flux-manifests) is
            // not a cluster of this repository.
            let own_source = matches!(k.source.kind.as_str(), "" | "GitRepository" | "Bucket");
            if !own_source || argo::is_root(&k.spec_path) {
                continue;
            }
            let rel = k.spec_path.trim().trim_start_matches("./");
            let applied = k
                .file
                .ancestors()
                .skip(1)
                .find_map(|a| {
                    let d = normalize(&a.join(rel));
                    (d.is_dir() && k.file.starts_with(&d)).then(|| (normalize(a), d))
                })
                .or_else(|| applied_from_above(&k.file, rel));
            let Some((source_root, dir)) = applied else {
                continue;
            };
            let i = by_dir.entry(dir.clone()).or_insert_with(|| Instance {
                name: cluster_name(&dir),
                dir: dir.clone(),
                source_root: Some(source_root),
                source: Some(k.source.clone()),
                roots: Vec::new(),
                by_hand: Vec::new(),
            });
            i.roots.push(k.clone());
        }
        by_dir.into_values().collect()
    }

    /// Follows an instance's Kustomizations level by level: its environments (the cluster it
    /// runs in first), with every Kustomization reached recorded in `reached`.
    fn follow(
        &mut self,
        instance: &Instance,
        found: &Found,
        reached: &mut BTreeSet<(PathBuf, String)>,
    ) -> Vec<Plan> {
        let local = Target::FluxCluster {
            dir: instance.dir.clone(),
        };
        self.cluster_var_sources.clear();
        let mut envs: BTreeMap<Target, Vec<Unit>> = BTreeMap::new();
        let mut appliers: BTreeMap<Target, Vec<units::Applier>> = BTreeMap::new();
        envs.entry(local.clone())
            .or_default()
            .extend(instance.by_hand.iter().cloned());
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        let mut releases: Vec<HelmRelease> = Vec::new();
        let mut level = instance.roots.clone();
        let mut scan: Vec<Unit> = instance.by_hand.clone();
        for depth in 0..MAX_DEPTH {
            for k in &level {
                reached.insert((absolute(&k.file), k.name.clone()));
            }
            let mut local_units = std::mem::take(&mut scan);
            for k in std::mem::take(&mut level) {
                if !seen.insert((k.namespace.clone(), k.name.clone())) {
                    continue;
                }
                let Some(units) = self.kustomization_units(instance, found, &k) else {
                    continue;
                };
                let target = match &k.kube_config {
                    Some(secret) => Target::KubeConfig {
                        namespace: k.namespace.clone(),
                        secret: secret.clone(),
                    },
                    None => local.clone(),
                };
                if target == local {
                    local_units.extend(units.iter().cloned());
                }
                appliers
                    .entry(target.clone())
                    .or_default()
                    .push(units::Applier {
                        controller: format!("Kustomization {}/{}", k.namespace, k.name),
                        keeps_removed: k.keeps_removed(),
                        outputs: units.iter().map(units::output_of).collect(),
                    });
                envs.entry(target).or_default().extend(units);
            }
            let (kustomizations, helm) = self.scan(&local_units);
            releases.extend(helm);
            level = kustomizations;
            if level.is_empty() {
                break;
            }
            if depth + 1 == MAX_DEPTH {
                self.notes.push(format!(
                    "{}: Flux Kustomizations apply Kustomizations more than {MAX_DEPTH} levels deep; the deeper ones are not linted",
                    instance.dir.display()
                ));
            }
        }
        for r in &releases {
            if let Some((target, unit)) = self.release_unit(instance, found, &local, r) {
                envs.entry(target).or_default().push(unit);
            }
        }
        envs.into_iter()
            .map(|(target, mut units)| {
                dedup(&mut units);
                self.mark_used(&units);
                let (name, dir) = match &target {
                    Target::KubeConfig { secret, .. } => {
                        (format!("{}/{secret}", instance.name), None)
                    }
                    _ => (instance.name.clone(), Some(instance.dir.clone())),
                };
                Plan {
                    name,
                    dir,
                    instance: format!("flux:{}", instance.dir.display()),
                    units,
                    elsewhere: Vec::new(),
                    applications: Vec::new(),
                    appliers: appliers.remove(&target).unwrap_or_default(),
                    target,
                }
            })
            .collect()
    }

    /// What a Kustomization applies, as units; `None` (said in a note) when its path is not
    /// in this repository.
    fn kustomization_units(
        &mut self,
        instance: &Instance,
        found: &Found,
        k: &FluxKustomization,
    ) -> Option<Vec<Unit>> {
        if self.elsewhere(instance, found, &k.source) {
            self.notes.push(format!(
                "{}: Flux Kustomization {}: its source {} {} is another repository; not linted",
                k.file.display(),
                k.name,
                k.source.kind,
                k.source.name
            ));
            return None;
        }
        let Some((source_root, path)) = self.source_path(instance, k) else {
            self.notes.push(format!(
                "{}: Flux Kustomization {}: spec.path `{}` is not in this repository",
                k.file.display(),
                k.name,
                k.spec_path
            ));
            return None;
        };
        let vars = self.variables(k);
        let vars = (!vars.is_empty() || !k.substitute_from.is_empty()).then_some(vars);
        let spec_for = |dir: &Path| BuildSpec {
            dir: dir.to_path_buf(),
            flux: true,
            namespace: k.target_namespace.clone(),
            name_prefix: k.name_prefix.clone(),
            name_suffix: k.name_suffix.clone(),
            fields: k.fields.clone(),
            components: k
                .components
                .iter()
                .map(|c| normalize(&path.join(c)))
                .filter(|c| !k.ignore_missing_components || c.is_dir())
                .collect(),
            resources: Vec::new(),
            edit_error: None,
            decode_error: None,
        };
        let mut units = Vec::new();
        if kustomization_file(&path).is_some() {
            units.push(Unit::new(UnitKind::Root(spec_for(&path))));
        } else {
            // As the kustomize-controller generates a kustomization for a plain directory
            // (fluxcd/pkg `scanManifests`): every .yaml/.yml file below it, and a directory
            // holding a kustomization as one resource, not descended into. Any other
            // directory is, a Helm chart's too.
            let mut files = Vec::new();
            let mut roots = BTreeSet::new();
            let artifact = self.artifact(found, instance, &source_root, &k.source);
            // What the artifact leaves out of the directory nothing applies, by hand neither:
            // no loose directory of its own.
            let left_out: Vec<PathBuf> = self
                .inputs
                .iter()
                .filter(|f| f.starts_with(&path) && !artifact.holds(f, false))
                .cloned()
                .collect();
            self.used_files.extend(left_out);
            for f in &self.plain_directory_files(&path, &artifact) {
                if !flux_manifest_name(f) {
                    continue;
                }
                let parent = f.parent().map(normalize).unwrap_or_default();
                let mut between: Vec<&Path> = parent
                    .ancestors()
                    .take_while(|a| a.starts_with(&path) && *a != path.as_path())
                    .collect();
                between.reverse();
                if let Some(top) = between.iter().find(|d| kustomization_file(d).is_some()) {
                    roots.insert(top.to_path_buf());
                } else {
                    files.push(f.clone());
                }
            }
            // In the order Flux's walk meets them (sorted, depth first), so the file its
            // message names is the first one it fails on.
            files.sort();
            let decode_error = scan::first_undecodable(&files);
            if transforms_plain_directory(k) || decode_error.is_some() {
                // Its patches, images or renames reach every file, or a file Flux cannot
                // decode fails the whole build (fluxcd/pkg `scanManifests`): built as Flux
                // builds it, one kustomization over them all (the build fails with the
                // verdict found here, without reading the files again).
                let mut resources: Vec<PathBuf> = files.into_iter().chain(roots).collect();
                resources.sort();
                let spec = BuildSpec {
                    resources,
                    decode_error,
                    ..spec_for(&path)
                };
                units.push(Unit::new(UnitKind::Root(spec)));
            } else {
                for f in files {
                    self.note_unread(&f);
                    let mut u = Unit::new(UnitKind::Plain(f));
                    u.namespace = k.target_namespace.clone();
                    u.flux_plain = true;
                    units.push(u);
                }
                for r in roots {
                    units.push(Unit::new(UnitKind::Root(spec_for(&r))));
                }
            }
        }
        for u in &mut units {
            u.vars = vars.clone();
        }
        Some(units)
    }

    /// Says so when a file of a plain directory holds a document Flux never reads
    /// ([`scan::read_as_flux`]): it is not in the environment.
    fn note_unread(&mut self, file: &Path) {
        let Some(line) = self.renders.file(file).and_then(scan::first_unread) else {
            return;
        };
        self.notes.push(format!(
            "{}:{line}: a document after a `...` end marker with no `---` before it: Flux never reads it (kyaml decodes one document between `---` lines); not linted",
            file.display()
        ));
    }

    /// Where a Kustomization's source has its root, and its `spec.path` there: the bootstrap's
    /// source, else the repository linted, else the nearest directory above the Kustomization
    /// holding the path.
    fn source_path(
        &self,
        instance: &Instance,
        k: &FluxKustomization,
    ) -> Option<(PathBuf, PathBuf)> {
        let within =
            |root: &Path| flux::path_in(root, &k.spec_path).map(|p| (root.to_path_buf(), p));
        instance
            .source_root
            .as_deref()
            .and_then(within)
            .or_else(|| within(&self.root))
            .or_else(|| {
                let path = k.path.clone()?;
                Some((root_above(&path, &k.spec_path), path))
            })
    }

    /// The filter of the artifact Flux makes of `source`, whose checkout is `root` (its
    /// `spec.ignore` when the source object is in the repository: the cluster's own
    /// definition where several clusters each define one of that name).
    fn artifact(
        &mut self,
        found: &Found,
        instance: &Instance,
        root: &Path,
        source: &SourceRef,
    ) -> Rc<Artifact> {
        let defined = found.source(source, &instance.dir);
        let key = (
            root.to_path_buf(),
            source.clone(),
            defined.map(|s| s.file.clone()).unwrap_or_default(),
        );
        if let Some(a) = self.artifacts.get(&key) {
            return a.clone();
        }
        let ignore = defined.and_then(|s| s.ignore.as_deref());
        let a = Rc::new(Artifact::load(root, SourceKind::of(&source.kind), ignore));
        self.artifacts.insert(key, a.clone());
        a
    }

    /// The files of a plain directory a Kustomization applies, those of its source's artifact:
    /// the inputs under it, or, where none is (a directory of the repository outside the one
    /// linted: `lint clusters/x` of a cluster applying `./apps/eu`), the directory's own
    /// files, a Helm chart's among them (Flux walks into it as into any directory). Hidden
    /// files and directories too, which the inputs leave out: Flux's walk does not
    /// (fluxcd/pkg kustomize/kustomize_generator.go `scanManifests`), only the artifact's
    /// filter keeps some out ([`artifact`](super::artifact)).
    fn plain_directory_files(&self, path: &Path, artifact: &Artifact) -> Vec<PathBuf> {
        let walked = artifact.files_under(path);
        let inputs: Vec<PathBuf> = self
            .inputs
            .iter()
            .filter(|f| f.starts_with(path) && artifact.holds(f, false))
            .filter(|f| !super::artifact::is_link(f))
            .cloned()
            .collect();
        if inputs.is_empty() {
            return walked;
        }
        let hidden = |f: &PathBuf| {
            f.strip_prefix(path).is_ok_and(|rel| {
                rel.components()
                    .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
            })
        };
        let mut files: Vec<PathBuf> = inputs
            .into_iter()
            .chain(walked.into_iter().filter(hidden))
            .collect();
        files.sort();
        files.dedup();
        files
    }

    /// Whether a Kustomization's source is another repository than the instance's: a source
    /// object of this repository with another URL, or a kind that is not a repository.
    fn elsewhere(&self, instance: &Instance, found: &Found, source: &SourceRef) -> bool {
        if !matches!(
            source.kind.as_str(),
            "" | "GitRepository" | "OCIRepository" | "Bucket"
        ) {
            return true;
        }
        let Some(own) = &instance.source else {
            return false;
        };
        if own == source {
            return false;
        }
        let url = |r: &SourceRef| {
            found
                .source(r, &instance.dir)
                .map(|s| repository_of(&s.url))
        };
        matches!((url(own), url(source)), (Some(a), Some(b)) if a != b)
    }

    /// Renders the units applied to the cluster Flux runs in and takes the Kustomizations and
    /// HelmReleases of their output (the next level), and the ConfigMaps and Secrets
    /// `substituteFrom` may read.
    fn scan(&mut self, units: &[Unit]) -> (Vec<FluxKustomization>, Vec<HelmRelease>) {
        self.renders.prepare(units);
        let mut kustomizations = Vec::new();
        let mut releases = Vec::new();
        for u in units {
            let wanted = |t: &str| t.contains("fluxcd.io") || t.contains("kind: ConfigMap");
            if self.renders.text_test(u, &wanted) != Some(true) {
                continue;
            }
            let docs: Vec<(Node, PathBuf)> = match units::output(self.repo, u, self.renders) {
                Output::Rendered(r) => r
                    .loaded
                    .documents
                    .into_iter()
                    .zip(r.origins)
                    .map(|(d, o)| (d.root, o.unwrap_or_else(|| u.path().to_path_buf())))
                    .collect(),
                Output::Plain(l, _) => {
                    let file = PathBuf::from(&l.source.name);
                    l.documents
                        .into_iter()
                        .map(|d| (d.root, file.clone()))
                        .collect()
                }
                _ => Vec::new(),
            };
            // Flux objects of the output that a policy of the output propagates are templates
            // for Karmada, not the next level of this Flux.
            let propagated = flux::Propagated::among(docs.iter().map(|(root, _)| root));
            for (root, file) in docs {
                if let Some(k) = flux::kustomization_of(&root, &file) {
                    if !propagated.kustomization(&k) {
                        kustomizations.push(k);
                    }
                } else if let Some(r) = flux::helm_release_of(&root, &file) {
                    if !propagated.release(&r) {
                        releases.push(r);
                    }
                } else if is_var_source(&root) {
                    self.cluster_var_sources.push(root);
                }
            }
        }
        (kustomizations, releases)
    }

    /// The chart a HelmRelease renders, when it is in this repository, as a unit of its
    /// target; a chart from elsewhere is said in a note (the Karmada chart's values are read
    /// as the installation's settings instead).
    fn release_unit(
        &mut self,
        instance: &Instance,
        found: &Found,
        local: &Target,
        r: &HelmRelease,
    ) -> Option<(Target, Unit)> {
        let target = match &r.kube_config {
            Some(secret) => Target::KubeConfig {
                namespace: r.namespace.clone(),
                secret: secret.clone(),
            },
            None => local.clone(),
        };
        let in_repo = matches!(r.source.kind.as_str(), "GitRepository" | "Bucket")
            && !self.elsewhere(instance, found, &r.source);
        let source_root = instance
            .source_root
            .clone()
            .unwrap_or_else(|| self.root.clone());
        let dir = in_repo
            .then(|| flux::path_in(&source_root, &r.chart))
            .flatten()
            .filter(|d| d.join("Chart.yaml").is_file());
        let Some(dir) = dir else {
            if !is_karmada_chart(&r.chart) {
                self.notes.push(format!(
                    "{}: HelmRelease {}/{}: chart `{}` from {} {} is not in this repository; its objects are not linted",
                    r.file.display(),
                    r.namespace,
                    r.name,
                    r.chart,
                    r.source.kind,
                    r.source.name
                ));
            }
            return None;
        };
        let mut values = HelmValues {
            release: r.release_name.clone(),
            namespace: Some(r.target_namespace.clone()),
            files: r
                .values_files
                .iter()
                .map(|f| normalize(&source_root.join(f.trim_start_matches("./"))))
                .collect(),
            ..HelmValues::default()
        };
        for (kind, name, key, target_path) in &r.values_from {
            match self.values_from(kind, name, key) {
                Some(text) if target_path.is_empty() => values.inline.push(text),
                Some(text) => values.set.push((target_path.clone(), text, true)),
                None => self.notes.push(format!(
                    "{}: HelmRelease {}/{}: valuesFrom {kind}/{name} is not in the repository; rendered without it",
                    r.file.display(),
                    r.namespace,
                    r.name
                )),
            }
        }
        if let Some(v) = &r.values {
            values.inline.push(v.to_json().to_string());
        }
        let mut unit = Unit::new(UnitKind::Chart(dir, Some(values)));
        unit.namespace = Some(r.target_namespace.clone());
        Some((target, unit))
    }

    /// `key` of a ConfigMap or Secret found in the repository.
    fn values_from(&self, kind: &str, name: &str, key: &str) -> Option<String> {
        let doc = self.var_source(kind, name)?;
        data_of(doc, kind == "Secret").remove(key)
    }

    /// The ConfigMap or Secret `kind`/`name` the cluster being followed has: one its own
    /// outputs apply, else the repository's only one of that name.
    fn var_source(&self, kind: &str, name: &str) -> Option<&Node> {
        let named = |d: &&Node| {
            d.get("kind").and_then(Node::as_str) == Some(kind)
                && d.get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Node::as_str)
                    == Some(name)
        };
        if let Some(own) = self.cluster_var_sources.iter().find(named) {
            return Some(own);
        }
        let mut anywhere = self.var_sources.iter().filter(named);
        match (anywhere.next(), anywhere.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// `postBuild.substitute` over the ConfigMaps and Secrets `substituteFrom` names (later
    /// sources win, `substitute` wins over all, as in Flux).
    fn variables(&mut self, k: &FluxKustomization) -> BTreeMap<String, String> {
        let mut vars = BTreeMap::new();
        for (kind, name, optional) in &k.substitute_from {
            match self.var_source(kind, name) {
                Some(d) => vars.extend(data_of(d, kind == "Secret")),
                None if !optional => self.notes.push(format!(
                    "{}: Flux Kustomization {}: substituteFrom {kind}/{name} is not in the repository; its variables stay unresolved",
                    k.file.display(),
                    k.name
                )),
                None => {}
            }
        }
        vars.extend(k.substitute.clone());
        vars
    }

    // ---------------------------------------------------------------- Argo CD

    /// One environment per destination, from the root Applications down the app-of-apps.
    fn argo_plans(&mut self, found: &Found) -> Vec<Plan> {
        let charts = self.app_of_apps_charts(found);
        if found.apps.is_empty() && charts.is_empty() {
            return Vec::new();
        }
        // Which Applications each file is applied by. An Application that only its own source
        // holds manages itself (the app of apps kept in the directory it syncs, applied once by
        // hand): a root all the same.
        let mut held_by: BTreeMap<PathBuf, BTreeSet<(&PathBuf, &str)>> = BTreeMap::new();
        for a in &found.apps {
            for file in a.sources.iter().flat_map(|s| self.argo_files(s)) {
                held_by
                    .entry(file)
                    .or_default()
                    .insert((&a.file, a.name.as_str()));
            }
        }
        let mut roots: Vec<ArgoApp> = found
            .apps
            .iter()
            .filter(|a| {
                held_by
                    .get(&a.file)
                    .is_none_or(|by| by.iter().all(|&h| h == (&a.file, a.name.as_str())))
            })
            .cloned()
            .collect();
        let mut by_destination: BTreeMap<String, Destination> = BTreeMap::new();
        // The root Applications are applied by hand to Argo CD's own cluster.
        for a in &roots {
            let e = by_destination.entry("in-cluster".into()).or_default();
            e.units.push(Unit::new(UnitKind::Plain(a.file.clone())));
        }
        // So is a chart of Applications nothing here applies (the app of apps created with
        // `argocd app create --path apps`): its Applications are roots too.
        for (chart, apps) in charts {
            let e = by_destination.entry("in-cluster".into()).or_default();
            e.units.push(Unit::new(UnitKind::Chart(chart, None)));
            roots.extend(apps);
        }
        let mut seen = BTreeSet::new();
        let mut level = roots;
        for _ in 0..MAX_DEPTH {
            let mut scan = Vec::new();
            for a in std::mem::take(&mut level) {
                if !seen.insert((a.file.clone(), a.name.clone(), a.destination.clone())) {
                    continue;
                }
                // The Karmada chart's values are read as the installation's settings.
                let elsewhere: Vec<&String> = a
                    .elsewhere
                    .iter()
                    .filter(|e| !e.ends_with(" chart karmada"))
                    .collect();
                for source in &elsewhere {
                    self.notes.push(format!(
                        "{}: Argo CD Application {}: source `{source}` is not in this repository",
                        a.file.display(),
                        a.name
                    ));
                }
                let units: Vec<Unit> = a
                    .sources
                    .iter()
                    .flat_map(|s| self.argo_units(&a, s))
                    .collect();
                if a.destination == "in-cluster" {
                    scan.extend(units.iter().cloned());
                }
                let e = by_destination.entry(a.destination.clone()).or_default();
                let outputs: Vec<String> = units.iter().map(units::output_of).collect();
                e.appliers.insert(units::Applier {
                    controller: format!("Application {}", a.name),
                    keeps_removed: a.keeps_removed,
                    outputs: outputs.clone(),
                });
                e.applications.insert(ArgoApplication {
                    name: a.name.clone(),
                    on_removal: a.on_removal,
                    outputs,
                });
                e.units.extend(units);
                e.files.insert(a.file.clone());
                for source in elsewhere {
                    if !e.elsewhere.contains(source) {
                        e.elsewhere.push(source.clone());
                    }
                }
            }
            level = self.scan_apps(&scan);
            if level.is_empty() {
                break;
            }
        }
        by_destination
            .into_iter()
            .map(|(destination, d)| {
                let Destination {
                    mut units,
                    files,
                    elsewhere,
                    applications,
                    appliers,
                } = d;
                dedup(&mut units);
                self.mark_used(&units);
                let dirs: BTreeSet<&Path> = files.iter().filter_map(|f| f.parent()).collect();
                Plan {
                    name: destination.clone(),
                    dir: (dirs.len() == 1).then(|| dirs.into_iter().next().unwrap().to_path_buf()),
                    target: Target::Argo { destination },
                    instance: "argocd".into(),
                    units,
                    elsewhere,
                    applications: applications.into_iter().collect(),
                    appliers: appliers.into_iter().collect(),
                }
            })
            .collect()
    }

    /// The Helm charts whose templates are Argo CD Applications and that no Application's
    /// source names, each with the Applications it renders (its own values).
    fn app_of_apps_charts(&mut self, found: &Found) -> Vec<(PathBuf, Vec<ArgoApp>)> {
        let named: BTreeSet<PathBuf> = found
            .apps
            .iter()
            .flat_map(|a| a.sources.iter())
            .filter_map(|s| self.argo_path(s))
            .collect();
        let templates_hold_apps = |chart: &Path| {
            self.repo.covered.iter().any(|f| {
                f.starts_with(chart.join("templates"))
                    && std::fs::read_to_string(f).is_ok_and(|t| t.contains(argo::API_GROUP))
            })
        };
        let charts: Vec<PathBuf> = self
            .repo
            .charts
            .iter()
            .filter(|c| !named.contains(*c) && templates_hold_apps(c))
            .cloned()
            .collect();
        let mut expanded = Vec::new();
        for c in charts {
            let apps = self.scan_apps(&[Unit::new(UnitKind::Chart(c.clone(), None))]);
            if apps.is_empty() {
                self.unexpanded_app_of_apps = true;
            } else {
                expanded.push((c, apps));
            }
        }
        expanded
    }

    /// The Applications in the output of units applied to Argo CD's own cluster.
    fn scan_apps(&mut self, units: &[Unit]) -> Vec<ArgoApp> {
        self.renders.prepare(units);
        let dirs = self.input_dirs();
        let mut apps = Vec::new();
        for u in units {
            if self.renders.text_test(u, &|t| t.contains(argo::API_GROUP)) != Some(true) {
                continue;
            }
            let (loaded, file) = match units::output(self.repo, u, self.renders) {
                Output::Rendered(r) => {
                    let file = r.origins.iter().flatten().next().cloned();
                    (r.loaded, file.unwrap_or_else(|| u.path().to_path_buf()))
                }
                Output::Plain(l, _) => {
                    let file = PathBuf::from(&l.source.name);
                    (l, file)
                }
                _ => continue,
            };
            let tree = argo::Tree {
                dirs: &dirs,
                files: self.inputs,
            };
            apps.extend(argo::find(&loaded, &file, &tree, self.notes));
        }
        apps
    }

    /// The directory an Argo CD source names in this repository.
    fn argo_path(&self, s: &ArgoSource) -> Option<PathBuf> {
        if argo::is_root(&s.spec_path) {
            return Some(self.root.clone());
        }
        flux::path_in(&self.root, &s.spec_path).or_else(|| s.path.clone())
    }

    /// The files an Application's source applies (to tell roots from children).
    fn argo_files(&self, s: &ArgoSource) -> Vec<PathBuf> {
        let Some(path) = self.argo_path(s) else {
            return Vec::new();
        };
        if kustomization_file(&path).is_some() {
            return self
                .repo
                .closure(&path)
                .iter()
                .filter_map(|d| self.repo.kustomizations.get(d))
                .flat_map(|k| k.files.iter().cloned())
                .collect();
        }
        self.directory_files(&path, s.recurse)
    }

    /// The manifests of a directory source: its own files, and with `recurse` those below.
    fn directory_files(&self, path: &Path, recurse: bool) -> Vec<PathBuf> {
        self.inputs
            .iter()
            .filter(|f| {
                if recurse {
                    f.starts_with(path)
                } else {
                    f.parent().map(normalize).as_deref() == Some(path)
                }
            })
            .cloned()
            .collect()
    }

    /// The units of one Application source.
    fn argo_units(&mut self, a: &ArgoApp, s: &ArgoSource) -> Vec<Unit> {
        let Some(path) = self.argo_path(s) else {
            return Vec::new();
        };
        let mut units = if let Some(file) = kustomization_file(&path) {
            let k = &s.kustomize;
            let own = std::fs::read_to_string(&file).unwrap_or_default();
            let edit_error =
                (crate::source::yaml::parse_roots(&own).first()).and_then(|own| k.edit_error(own));
            let spec = BuildSpec {
                edit_error,
                namespace: k.namespace.clone(),
                name_prefix: k.name_prefix.clone(),
                name_suffix: k.name_suffix.clone(),
                fields: k.fields.clone(),
                components: (k.components.iter())
                    .map(|c| normalize(&path.join(c)))
                    .collect(),
                ..BuildSpec::plain(&path)
            };
            vec![Unit::new(UnitKind::Root(spec))]
        } else if path.join("Chart.yaml").is_file() {
            let values = HelmValues {
                release: s
                    .helm
                    .release_name
                    .clone()
                    .unwrap_or_else(|| a.name.clone()),
                namespace: a.namespace.clone(),
                files: s
                    .helm
                    .value_files
                    .iter()
                    .map(|f| match f.strip_prefix('$') {
                        // `$ref/path`: a file of a `ref` source, this repository's root here.
                        Some(r) => {
                            normalize(&self.root.join(r.split_once('/').map_or("", |x| x.1)))
                        }
                        None => normalize(&path.join(f)),
                    })
                    .collect(),
                inline: s.helm.inline.clone(),
                set: s.helm.parameters.clone(),
            };
            vec![Unit::new(UnitKind::Chart(path.clone(), Some(values)))]
        } else {
            self.directory_files(&path, s.recurse)
                .into_iter()
                .filter(|f| !self.repo.covered.contains(f) || s.recurse)
                .map(|f| Unit::new(UnitKind::Plain(f)))
                .collect()
        };
        for u in &mut units {
            u.namespace = a.namespace.clone();
        }
        units
    }

    // ---------------------------------------------------------------- the rest

    fn mark_used(&mut self, units: &[Unit]) {
        for u in units {
            match &u.kind {
                UnitKind::Root(spec) => {
                    // A generated kustomization's files and directories, or the root's own.
                    for r in &spec.resources {
                        if kustomization_file(r).is_none() {
                            self.mark_file_used(r);
                        }
                    }
                    let dirs = spec
                        .resources
                        .iter()
                        .filter(|r| kustomization_file(r).is_some());
                    let dirs = if spec.resources.is_empty() {
                        vec![&spec.dir]
                    } else {
                        dirs.collect()
                    };
                    for dir in dirs {
                        for d in self.repo.closure(dir) {
                            self.used_roots.insert(d);
                        }
                        self.used_roots.insert(dir.clone());
                    }
                }
                UnitKind::Chart(dir, _) => {
                    self.used_charts.insert(dir.clone());
                }
                UnitKind::Plain(f) => self.mark_file_used(f),
            }
        }
    }

    /// A file a unit reads, and the Helm chart it lies in if any: a Flux plain directory reads
    /// a chart's files as manifests (fluxcd/pkg `scanManifests` walks into it), so the chart
    /// is applied there, not left for the rest.
    fn mark_file_used(&mut self, file: &Path) {
        if let Some(chart) = self.repo.charts.iter().find(|c| file.starts_with(c)) {
            self.used_charts.insert(chart.clone());
        }
        self.used_files.insert(file.to_path_buf());
    }

    /// What no controller applies (see the module's overview).
    fn rest(&mut self, declared: bool) -> Vec<Plan> {
        let mut plans = Vec::new();
        let rest_plain = unused(&self.repo.plain, &self.used_files);
        let rest_roots = unused(&self.repo.roots, &self.used_roots);
        let rest_charts = unused(&self.repo.charts, &self.used_charts);
        let undeclared =
            |name: String, dir: Option<PathBuf>, units: Vec<Unit>, target: Target| Plan {
                name,
                dir,
                target,
                instance: "repository".into(),
                units,
                elsewhere: Vec::new(),
                applications: Vec::new(),
                appliers: Vec::new(),
            };
        for r in &rest_roots {
            let mut units = vec![Unit::new(UnitKind::Root(BuildSpec::plain(r)))];
            if !declared {
                units.extend(
                    rest_plain
                        .iter()
                        .map(|p| Unit::new(UnitKind::Plain(p.clone()))),
                );
            }
            plans.push(undeclared(
                root_name(r),
                Some(r.clone()),
                units,
                Target::Undeclared,
            ));
        }
        let plain_units = || {
            rest_plain
                .iter()
                .map(|p| Unit::new(UnitKind::Plain(p.clone())))
                .collect()
        };
        if declared {
            // Applied by hand, a directory at a time (`kubectl apply -f DIR`), each perhaps to
            // another API server: linted directory by directory, never together.
            let mut by_dir: BTreeMap<PathBuf, Vec<Unit>> = BTreeMap::new();
            for p in &rest_plain {
                let dir = p.parent().map(normalize).unwrap_or_default();
                by_dir
                    .entry(dir)
                    .or_default()
                    .push(Unit::new(UnitKind::Plain(p.clone())));
            }
            for (dir, units) in by_dir {
                plans.push(undeclared(root_name(&dir), Some(dir), units, Target::Loose));
            }
        } else if rest_roots.is_empty() && rest_charts.is_empty() && !rest_plain.is_empty() {
            plans.push(undeclared(
                "plain manifests".into(),
                None,
                plain_units(),
                Target::Undeclared,
            ));
        }
        // A chart is a root like a kustomization: with the plain manifests when the repository
        // declares no environment (a loose policy selecting the chart's workload is judged
        // against it, as against a kustomization's).
        for c in rest_charts {
            let mut units = vec![Unit::new(UnitKind::Chart(c.clone(), None))];
            if !declared {
                units.extend(plain_units());
            }
            plans.push(undeclared(
                root_name(&c),
                Some(c),
                units,
                Target::Undeclared,
            ));
        }
        plans
    }
}

/// The Karmada chart (karmada-io/karmada `charts/karmada`), whose values configure the
/// installation rather than objects to lint.
fn is_karmada_chart(chart: &str) -> bool {
    let name = chart
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(chart);
    matches!(name, "karmada" | "karmada-operator")
}

fn is_var_source(root: &Node) -> bool {
    root.get("apiVersion").and_then(Node::as_str) == Some("v1")
        && matches!(
            root.get("kind").and_then(Node::as_str),
            Some("ConfigMap" | "Secret")
        )
}

/// The `data` (base64-decoded for a Secret) and `stringData` of a ConfigMap or Secret.
fn data_of(root: &Node, secret: bool) -> BTreeMap<String, String> {
    use base64::Engine as _;
    let mut out = BTreeMap::new();
    let pairs = |key: &str| {
        root.get(key)
            .map(|n| n.scalar_pairs().collect::<Vec<_>>())
            .unwrap_or_default()
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

/// A path made absolute (lexically): files named by the inputs and by kustomize's origin
/// annotations are compared so.
fn absolute(p: &Path) -> PathBuf {
    normalize(&std::env::current_dir().unwrap_or_default().join(p))
}

/// Keeps the first of equal units (a directory two Kustomizations apply is built once).
fn dedup(units: &mut Vec<Unit>) {
    let mut seen = BTreeSet::new();
    units.retain(|u| seen.insert(u.clone()));
}

/// A cluster's name from its directory: the last component that is not a generic one
/// (`clusters/talos-ottawa/flux` is `talos-ottawa`).
fn cluster_name(dir: &Path) -> String {
    const GENERIC: &[&str] = &[
        "flux",
        "flux-system",
        "config",
        "bootstrap",
        "base",
        "default",
    ];
    let named = |d: &Path| {
        d.components()
            .rev()
            .filter_map(|c| c.as_os_str().to_str())
            .find(|c| !GENERIC.contains(c) && *c != "." && *c != "..")
            .map(str::to_string)
    };
    // Run from inside the cluster's directory (`cd clusters/x && lint .` of `clusters/x/flux`),
    // the name is above the current directory: its path in the repository gives the same name
    // as a lint from the root.
    let in_repository = || {
        let (_, top) = super::above_current_directory().pop()?;
        let abs = std::fs::canonicalize(super::as_dir(dir)).ok()?;
        named(abs.strip_prefix(&top).ok()?)
    };
    named(dir)
        .or_else(in_repository)
        .unwrap_or_else(|| dir_name(dir))
}

/// Environments of different clusters with the same name are named after their directories.
fn unique_names(plans: &mut [Plan]) {
    let mut clusters: BTreeMap<&str, BTreeSet<PathBuf>> = BTreeMap::new();
    let instance_of = |p: &Plan| p.instance.clone();
    let names: Vec<(String, String)> = plans
        .iter()
        .map(|p| {
            (
                p.name.split('/').next().unwrap_or("").to_string(),
                instance_of(p),
            )
        })
        .collect();
    for (name, instance) in &names {
        clusters
            .entry(name.as_str())
            .or_default()
            .insert(PathBuf::from(instance));
    }
    let clashing: BTreeSet<String> = clusters
        .iter()
        .filter(|(_, i)| i.len() > 1)
        .map(|(n, _)| n.to_string())
        .collect();
    for p in plans.iter_mut() {
        let (first, rest) = p.name.split_once('/').unwrap_or((p.name.as_str(), ""));
        if clashing.contains(first) {
            let dir = p.instance.trim_start_matches("flux:").to_string();
            p.name = if rest.is_empty() {
                dir
            } else {
                format!("{dir}/{rest}")
            };
        }
    }
}

/// A bootstrap Kustomization's source root and the directory it applies, where that root is
/// above the current directory (a cluster's directory linted from inside it): the root as
/// the user reaches it (`../..`), the directory as from here (`""` for this one).
fn applied_from_above(file: &Path, rel: &str) -> Option<(PathBuf, PathBuf)> {
    if file.is_absolute() {
        return None;
    }
    let here = std::env::current_dir().ok()?.canonicalize().ok()?;
    let file = normalize(&here.join(file));
    super::above_current_directory()
        .into_iter()
        .find_map(|(up, dir)| {
            let d = normalize(&dir.join(rel));
            (d.is_dir() && file.starts_with(&d)).then_some((up, d))
        })
        .and_then(|(up, d)| Some((up, super::from_current_directory(&d)?)))
}

/// The last component of a directory, as an environment's name; the current directory's own
/// name for `.` (a Flux cluster's directory linted from inside: `mgmt-eu`, as from above).
pub fn dir_name(dir: &Path) -> String {
    let own = || {
        std::fs::canonicalize(super::as_dir(dir))
            .ok()?
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    };
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(own)
        .unwrap_or_else(|| shown_dir(dir))
}

/// A repository URL as the repository it names, whatever the protocol: `host/path`, without
/// scheme, user, `.git` or a trailing slash, the host in lower case
/// (`ssh://git@github.com/a/b.git`, `git@github.com:a/b` and `https://github.com/a/b/` are one).
fn repository_of(url: &str) -> String {
    let url = url.trim();
    let (rest, scp) = match url.split_once("://") {
        Some((_, rest)) => (rest, false),
        None => (url, true),
    };
    let rest = rest
        .split_once('@')
        .map_or(rest, |(user, r)| if user.contains('/') { rest } else { r });
    let (host, path) = match (scp, rest.split_once(':')) {
        (true, Some((h, p))) if !h.contains('/') => (h, p),
        _ => rest.split_once('/').unwrap_or((rest, "")),
    };
    let path = path.trim_end_matches('/').trim_end_matches(".git");
    format!(
        "{}/{}",
        host.to_ascii_lowercase(),
        path.trim_start_matches('/')
    )
}

/// The root of the source a Kustomization's `spec.path` was found at `path` in: `path` without
/// as many trailing directories as `spec_path` names.
fn root_above(path: &Path, spec_path: &str) -> PathBuf {
    let depth = Path::new(spec_path.trim())
        .components()
        .filter(|c| matches!(c, std::path::Component::Normal(_)))
        .count();
    let mut root = path.to_path_buf();
    for _ in 0..depth {
        root.pop();
    }
    root
}

/// The paths of `all` that no plan took (`used`), in their order.
fn unused(all: &[PathBuf], used: &BTreeSet<PathBuf>) -> Vec<PathBuf> {
    all.iter().filter(|p| !used.contains(*p)).cloned().collect()
}

/// Whether Flux's kustomize-controller reads `file` of a plain directory: its extension is
/// `.yaml` or `.yml`, as is (fluxcd/pkg kustomize/kustomize_generator.go `scanManifests`
/// compares `filepath.Ext` with both, case and all: `.YAML` is not read).
fn flux_manifest_name(file: &Path) -> bool {
    file.file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|n| n.ends_with(".yaml") || n.ends_with(".yml"))
}

/// Whether Flux Kustomization `k` changes the objects of a plain directory (patches, images,
/// components, common metadata, a name prefix or suffix, a target namespace, which overrides
/// the namespace every namespaced object writes): then its files are built through the
/// kustomization Flux generates for them, not read as they are.
fn transforms_plain_directory(k: &FluxKustomization) -> bool {
    !k.transforms.is_empty()
        || k.name_prefix.is_some()
        || k.name_suffix.is_some()
        || k.target_namespace.is_some()
}

#[cfg(test)]
mod tests {
    use super::{flux_manifest_name, plan, repository_of, root_above, Renders, Target};
    use std::path::Path;

    /// The targets and names of the plans of the files `(path, text)` written under a
    /// temporary directory, and the notes said.
    fn planned(files: &[(&str, &str)]) -> (Vec<(String, Target)>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let inputs =
            crate::source::files::expand(&[dir.path().display().to_string()], &|_| false).unwrap();
        let repo = super::super::discover::discover(&inputs);
        let confine = dir.path().to_path_buf();
        let mut renders = Renders::new(None, None, confine, Default::default());
        let mut notes = Vec::new();
        let plans = plan(&repo, &inputs, dir.path(), &mut renders, &mut notes);
        let notes = notes
            .iter()
            .map(|n| n.replace(&format!("{}/", dir.path().display()), ""))
            .collect();
        (
            plans.into_iter().map(|p| (p.name, p.target)).collect(),
            notes,
        )
    }

    /// A Flux Kustomization nothing applies whose `spec.path` is not in the repository (a
    /// test fixture) makes no cluster: the files stay plain manifests, and a note says why.
    /// With its path present, the same Kustomization applied by hand is a cluster.
    #[test]
    fn a_flux_kustomization_applying_nothing_here_is_a_sample_not_a_cluster() {
        let fixture = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: sample}\nspec:\n  sourceRef: {kind: GitRepository, name: sample}\n  path: ./kustomize\n";
        let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
        let (plans, notes) = planned(&[("testdata/k.yaml", fixture), ("deploy/cm.yaml", cm)]);
        assert_eq!(plans, [("plain manifests".to_string(), Target::Undeclared)]);
        assert_eq!(
            notes,
            ["testdata/k.yaml: Flux Kustomization sample: spec.path `./kustomize` is not in this repository and nothing applies its file: a sample, not an environment; read as a plain file"]
        );
        let (plans, _) = planned(&[
            ("testdata/k.yaml", fixture),
            ("kustomize/cm.yaml", cm),
            ("deploy/cm.yaml", cm),
        ]);
        let targets: Vec<String> = plans.iter().map(|(_, t)| t.to_string()).collect();
        assert!(
            targets[0].starts_with("the cluster Flux runs in"),
            "{targets:?}"
        );
    }

    /// A Kustomization's `spec.path` found at a directory: the source's root is above it by
    /// as many directories as the path names.
    #[test]
    fn the_source_root_is_above_the_path_by_its_depth() {
        for (path, spec, root) in [
            ("fleet/apps/eu", "./apps/eu", "fleet"),
            ("fleet/apps/eu", "apps/eu/", "fleet"),
            ("fleet", "./", "fleet"),
            ("apps", "./apps", ""),
        ] {
            assert_eq!(
                root_above(Path::new(path), spec),
                Path::new(root),
                "{path} {spec}"
            );
        }
    }

    /// `filepath.Ext` compared with `.yaml` and `.yml` as is (fluxcd/pkg `scanManifests`).
    #[test]
    fn flux_reads_yaml_and_yml_files_by_their_extension_as_is() {
        for (name, read) in [
            ("apps/a.yaml", true),
            ("apps/a.yml", true),
            ("apps/.hidden.yaml", true),
            ("apps/a.YAML", false),
            ("apps/a.Yml", false),
            ("apps/a.json", false),
            ("apps/a.yaml.bak", false),
        ] {
            assert_eq!(flux_manifest_name(Path::new(name)), read, "{name}");
        }
    }

    #[test]
    fn one_repository_whatever_the_protocol() {
        let one = "github.com/example/this-repo";
        for url in [
            "ssh://git@github.com/example/this-repo",
            "https://github.com/example/this-repo.git",
            "https://GitHub.com/example/this-repo/",
            "git@github.com:example/this-repo.git",
            "ssh://git@github.com:22/example/this-repo",
        ] {
            let got = repository_of(url);
            // A port stays part of the host: the same server all the same for this purpose
            // only when written alike, which is what Flux's own URLs do.
            if url.contains(":22") {
                assert_eq!(got, "github.com:22/example/this-repo", "{url}");
            } else {
                assert_eq!(got, one, "{url}");
            }
        }
        assert_ne!(
            repository_of("https://github.com/stefanprodan/podinfo"),
            one
        );
    }
}
