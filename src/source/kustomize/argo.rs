//! Argo CD: `argoproj.io` `Application` objects say which paths of the repository a cluster
//! (their `spec.destination`) receives; an `ApplicationSet` with a `list` or git `directories`
//! generator stands for the Applications it generates.
//!
//! A source's `repoURL` is not compared with this repository's remote (which is not known
//! here): a source whose `path` exists in the repository is taken to be this repository, one
//! whose path does not (or a Helm `chart` from a chart repository) is said in a note.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::flux::resolve_path;
use super::Piece;
use crate::source::{Loaded, Node};

pub const API_GROUP: &str = "argoproj.io";

/// One Application found (or generated) in the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgoApp {
    /// The file it is defined in.
    pub file: PathBuf,
    pub name: String,
    /// The cluster it deploys to: `spec.destination.name`, else its `server` (`in-cluster`
    /// for the local API server, as Argo CD names it).
    pub destination: String,
    /// Its sources' paths, resolved in the repository.
    pub paths: Vec<PathBuf>,
    /// Sources not found in the repository, as written (`repoURL path` or `repoURL chart`).
    pub elsewhere: Vec<String>,
    /// `spec.destination.namespace`: Argo CD puts namespaced objects without one there.
    pub namespace: Option<String>,
    /// Every source with a `path`, as Argo CD renders it.
    pub sources: Vec<ArgoSource>,
    /// What removing it from the repository does to what it applied: deleted with Argo CD's
    /// resources finalizer, it deletes it; without, it leaves it in place.
    pub on_removal: OnRemoval,
    /// Why a sync leaves on its destination what its sources no longer give
    /// (read from `spec.syncPolicy`); `None`: automated sync prunes it.
    pub keeps_removed: Option<&'static str>,
}

/// What becomes of an Argo CD Application's resources when the repository no longer defines it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OnRemoval {
    /// It is deleted with the resources finalizer: what it applied is deleted with it.
    Deletes,
    /// It is deleted without the finalizer: what it applied stays, no longer synced.
    Orphans,
    /// Its ApplicationSet never deletes it (`applicationsSync: create-only` or
    /// `create-update`): it stays, and so does what it applied.
    Kept,
}

/// Argo CD's cascading-deletion finalizer (`pkg/apis/application/v1alpha1` `ResourcesFinalizerName`),
/// also written with a `/background` or `/foreground` propagation policy.
const RESOURCES_FINALIZER: &str = "resources-finalizer.argocd.argoproj.io";

/// Whether `metadata.finalizers` holds [`RESOURCES_FINALIZER`].
fn has_resources_finalizer(metadata: Option<&Node>) -> bool {
    let finalizers = metadata
        .and_then(|m| m.get("finalizers"))
        .and_then(Node::as_seq);
    finalizers
        .unwrap_or(&[])
        .iter()
        .filter_map(Node::as_str)
        .any(|f| {
            f == RESOURCES_FINALIZER
                || f.strip_prefix(RESOURCES_FINALIZER)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
}

/// A source with a `path` in a repository: a directory of manifests, a kustomization or a Helm
/// chart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgoSource {
    /// `path` as written (parameters filled in).
    pub spec_path: String,
    /// The path resolved in the repository (see [`resolve_path`]); `.` resolves later, against
    /// the repository's root.
    pub path: Option<PathBuf>,
    /// `directory.recurse`: a directory source reads its subdirectories too (off by default).
    pub recurse: bool,
    /// `helm`: the values a chart at `path` is rendered with.
    pub helm: ArgoHelm,
    /// `kustomize`: what a kustomization at `path` is built with.
    pub kustomize: ArgoKustomize,
}

/// A source's `kustomize` settings, which Argo CD writes into the kustomization before it
/// builds it (`kustomize edit set nameprefix|namesuffix|namespace|image|replicas`,
/// `kustomize edit add label|annotation|component`, and its `patches`: argo-cd
/// util/kustomize/kustomize.go `Build`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgoKustomize {
    pub name_prefix: Option<String>,
    pub name_suffix: Option<String>,
    pub namespace: Option<String>,
    /// `images`, `replicas`, `commonLabels` (or `labels` without selectors),
    /// `commonAnnotations` and `patches` as kustomization fields, each with its value as JSON.
    pub fields: Vec<(&'static str, String)>,
    /// `components`, relative to the source's path.
    pub components: Vec<String>,
    /// `commonLabels` as `kustomize edit add label` adds them: the keys, and its flags.
    pub add_labels: AddMetadata,
    /// `commonAnnotations` as `kustomize edit add annotation` adds them.
    pub add_annotations: AddMetadata,
}

/// What one `kustomize edit add label|annotation` of Argo CD adds, and how: without `--force`
/// it refuses a key the kustomization already has (kustomize
/// kustomize/commands/edit/add/addmetadata.go `writeToMapEntry`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddMetadata {
    pub keys: Vec<String>,
    /// `forceCommonLabels` / `forceCommonAnnotations`: `--force`.
    pub force: bool,
    /// `labelWithoutSelector`: `--without-selector`, which adds to `labels`.
    pub without_selector: bool,
    /// `labelIncludeTemplates`: `--include-templates`.
    pub include_templates: bool,
}

impl ArgoKustomize {
    /// Whether it changes anything.
    pub fn is_empty(&self) -> bool {
        *self == ArgoKustomize::default()
    }

    /// Why Argo CD's `kustomize edit add label|annotation` fails on `kustomization` (the
    /// root's own kustomization file, parsed) before anything is built, in kustomize's words:
    /// a key the kustomization has already, without `--force` (argo-cd
    /// util/kustomize/kustomize.go `Build`, labels before annotations).
    pub fn edit_error(&self, kustomization: &Node) -> Option<String> {
        let labels = &self.add_labels;
        if !labels.keys.is_empty() && labels.include_templates && !labels.without_selector {
            // kustomize's `validateAndParse`.
            return Some(
                "kustomize edit add label: --without-selector flag must be specified for --include-templates to work"
                    .into(),
            );
        }
        let label_map = match labels.without_selector {
            true => labels_entry(kustomization, labels.include_templates),
            false => kustomization.get("commonLabels"),
        };
        already_there(labels, label_map, "label").or_else(|| {
            let annotations = kustomization.get("commonAnnotations");
            already_there(&self.add_annotations, annotations, "annotation")
        })
    }
}

/// The `pairs` of the first `labels` entry `edit add label --without-selector` adds to: the
/// first without selectors and with `includeTemplates` as asked (`findLabelIndex`).
fn labels_entry(kustomization: &Node, include_templates: bool) -> Option<&Node> {
    let flag = |l: &Node, key: &str| {
        matches!(
            l.get(key).map(|n| &n.value),
            Some(crate::source::Value::Bool(true))
        )
    };
    kustomization
        .get("labels")?
        .as_seq()?
        .iter()
        .find(|l| !flag(l, "includeSelectors") && flag(l, "includeTemplates") == include_templates)?
        .get("pairs")
}

/// kustomize's `writeToMapEntry` refusal of the first key of `add` that `existing` holds.
fn already_there(add: &AddMetadata, existing: Option<&Node>, kind: &str) -> Option<String> {
    if add.force {
        return None;
    }
    let existing = existing?;
    let key = add.keys.iter().find(|k| existing.get(k).is_some())?;
    Some(format!(
        "kustomize edit add {kind} failed: {kind} {key} already in kustomization file. Use --force to override."
    ))
}

/// A source's `helm` settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgoHelm {
    /// `releaseName` (default: the Application's name).
    pub release_name: Option<String>,
    /// `valueFiles`, relative to the chart's directory (`$ref/...` names a `ref` source).
    pub value_files: Vec<String>,
    /// `values` (a YAML string) and `valuesObject` (as JSON), in that order.
    pub inline: Vec<String>,
    /// `parameters`: (name, value, forceString).
    pub parameters: Vec<(String, String, bool)>,
}

/// Whether a text may hold an Argo CD object (a cheap test before parsing).
pub fn may_hold(text: &str) -> bool {
    text.contains(API_GROUP)
}

/// Whether `loaded` defines an Application or an ApplicationSet (Argo Rollouts and Workflows
/// share the API group).
pub fn declares(loaded: &Loaded) -> bool {
    loaded.documents.iter().any(|d| {
        d.root
            .get("apiVersion")
            .and_then(Node::as_str)
            .is_some_and(|a| a.starts_with(API_GROUP))
            && matches!(
                d.root.get("kind").and_then(Node::as_str),
                Some("Application" | "ApplicationSet")
            )
    })
}

/// The Applications of `loaded` (read from `file`), with those its ApplicationSets generate
/// from `tree`; what could not be generated is said in `notes`.
pub fn find(
    loaded: &Loaded,
    file: &Path,
    tree: &Tree<'_>,
    notes: &mut Vec<String>,
) -> Vec<ArgoApp> {
    let mut out = Vec::new();
    for d in &loaded.documents {
        let api = d
            .root
            .get("apiVersion")
            .and_then(Node::as_str)
            .unwrap_or("");
        if !api.starts_with(API_GROUP) {
            continue;
        }
        let name = str_at(&d.root, &["metadata", "name"]).unwrap_or("");
        match d.root.get("kind").and_then(Node::as_str) {
            Some("Application") => {
                if let Some(spec) = d.root.get("spec") {
                    let metadata = d.root.get("metadata");
                    out.push(app(file, name, metadata, spec, &BTreeMap::new()));
                }
            }
            Some("ApplicationSet") => out.extend(generated(file, name, &d.root, tree, notes)),
            _ => {}
        }
    }
    out
}

fn str_at<'a>(node: &'a Node, path: &[&str]) -> Option<&'a str> {
    let mut n = node;
    for k in path {
        n = n.get(k)?;
    }
    n.as_str()
}

/// An Application from its `spec` (a template's spec with `params` put in).
fn app(
    file: &Path,
    name: &str,
    metadata: Option<&Node>,
    spec: &Node,
    params: &BTreeMap<String, String>,
) -> ArgoApp {
    let put = |s: &str| fill(s, params);
    let destination = match (
        str_at(spec, &["destination", "name"]),
        str_at(spec, &["destination", "server"]),
    ) {
        (Some(n), _) if !n.is_empty() => put(n),
        (_, Some("https://kubernetes.default.svc")) => "in-cluster".to_string(),
        (_, Some(s)) => put(s),
        _ => "in-cluster".to_string(),
    };
    let mut sources: Vec<&Node> = spec.get("source").into_iter().collect();
    sources.extend(spec.get("sources").and_then(Node::as_seq).unwrap_or(&[]));
    let mut paths = Vec::new();
    let mut elsewhere = Vec::new();
    let mut found_sources = Vec::new();
    for s in sources {
        let repo = put(str_at(s, &["repoURL"]).unwrap_or(""));
        match (str_at(s, &["path"]), str_at(s, &["chart"])) {
            (Some(p), _) => {
                let spec_path = put(p);
                let resolved = if is_root(&spec_path) {
                    None
                } else {
                    resolve_path(file, &spec_path)
                };
                match &resolved {
                    Some(found) => paths.push(found.clone()),
                    None if is_root(&spec_path) => {}
                    None => elsewhere.push(format!("{repo} {spec_path}")),
                }
                if resolved.is_some() || is_root(&spec_path) {
                    found_sources.push(ArgoSource {
                        spec_path,
                        path: resolved,
                        recurse: matches!(
                            s.get("directory")
                                .and_then(|d| d.get("recurse"))
                                .map(|n| &n.value),
                            Some(crate::source::Value::Bool(true))
                        ),
                        helm: helm_of(s.get("helm"), &put),
                        kustomize: kustomize_of(s.get("kustomize"), &put),
                    });
                }
            }
            (None, Some(c)) => elsewhere.push(format!("{repo} chart {}", put(c))),
            // A `ref` source (values files for another source) holds no objects.
            (None, None) => {}
        }
    }
    ArgoApp {
        file: file.to_path_buf(),
        name: put(name),
        destination,
        paths,
        elsewhere,
        namespace: str_at(spec, &["destination", "namespace"])
            .filter(|n| !n.is_empty())
            .map(&put),
        sources: found_sources,
        on_removal: match has_resources_finalizer(metadata) {
            true => OnRemoval::Deletes,
            false => OnRemoval::Orphans,
        },
        keeps_removed: keeps_removed(spec.get("syncPolicy")),
    }
}

/// Why an Application with this `syncPolicy` leaves in place what its sources no longer give:
/// automated sync prunes only with `automated.prune: true` (argo-cd controller/appcontroller.go
/// `autoSync` passes `Automated.GetPrune()`, false when unset), and without automated sync
/// (none, or `enabled: false`: `IsAutomatedSyncEnabled`) a sync prunes only when asked
/// (`argocd app sync --prune`, off by default). `None`: it prunes.
fn keeps_removed(sync_policy: Option<&Node>) -> Option<&'static str> {
    use crate::source::Value;
    // `automated: null` decodes to a nil pointer: no automated sync.
    let automated = sync_policy
        .and_then(|p| p.get("automated"))
        .filter(|a| !matches!(a.value, Value::Null));
    let flag = |key: &str| automated.and_then(|a| a.get(key)).map(|n| &n.value);
    let disabled = matches!(flag("enabled"), Some(Value::Bool(false)));
    if automated.is_none() || disabled {
        return Some("no automated sync, and a sync prunes only when asked");
    }
    match flag("prune") {
        Some(Value::Bool(true)) => None,
        _ => Some("syncPolicy.automated.prune is not true"),
    }
}

/// `path: .` (or `./`, or empty): the repository's root, which only the caller knows.
pub fn is_root(spec_path: &str) -> bool {
    matches!(spec_path.trim(), "" | "." | "./" | "/")
}

/// A source's `helm` settings, parameters filled in.
/// A source's [`ArgoKustomize`].
fn kustomize_of(k: Option<&Node>, put: &dyn Fn(&str) -> String) -> ArgoKustomize {
    let Some(k) = k else {
        return ArgoKustomize::default();
    };
    let text = |key: &str| str_at(k, &[key]).map(put).filter(|v| !v.is_empty());
    let strings = |key: &str| -> Vec<String> {
        k.get(key)
            .and_then(Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .filter_map(|n| n.scalar_text().map(|t| put(&t)))
            .collect()
    };
    let object = |key: &str| k.get(key).map(Node::to_json).filter(|v| v.is_object());
    let flag = |key: &str| {
        matches!(
            k.get(key).map(|n| &n.value),
            Some(crate::source::Value::Bool(true))
        )
    };
    let mut fields = Vec::new();
    let images: Vec<serde_json::Value> = strings("images").iter().map(|i| image(i)).collect();
    if !images.is_empty() {
        fields.push(("images", serde_json::Value::from(images).to_string()));
    }
    let replicas: Vec<serde_json::Value> = k
        .get("replicas")
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .filter_map(|r| {
            let name = put(&r.get("name")?.scalar_text()?);
            let count: i64 = r.get("count")?.scalar_text()?.trim().parse().ok()?;
            Some(serde_json::json!({"name": name, "count": count}))
        })
        .collect();
    if !replicas.is_empty() {
        fields.push(("replicas", serde_json::Value::from(replicas).to_string()));
    }
    if let Some(labels) = object("commonLabels") {
        // `labelWithoutSelector`: `kustomize edit add label --without-selector`, which writes
        // `labels` (templates too with `labelIncludeTemplates`), not `commonLabels`.
        if flag("labelWithoutSelector") {
            let labels = serde_json::json!([{
                "pairs": labels,
                "includeSelectors": false,
                "includeTemplates": flag("labelIncludeTemplates"),
            }]);
            fields.push(("labels", labels.to_string()));
        } else {
            fields.push(("commonLabels", labels.to_string()));
        }
    }
    if let Some(annotations) = object("commonAnnotations") {
        fields.push(("commonAnnotations", annotations.to_string()));
    }
    if let Some(patches) = k.get("patches").map(Node::to_json).filter(|p| p.is_array()) {
        fields.push(("patches", patches.to_string()));
    }
    let keys = |key: &str| -> Vec<String> {
        object(key)
            .and_then(|o| o.as_object().map(|o| o.keys().cloned().collect()))
            .unwrap_or_default()
    };
    ArgoKustomize {
        name_prefix: text("namePrefix"),
        name_suffix: text("nameSuffix"),
        namespace: text("namespace"),
        fields,
        components: strings("components"),
        add_labels: AddMetadata {
            keys: keys("commonLabels"),
            force: flag("forceCommonLabels"),
            without_selector: flag("labelWithoutSelector"),
            include_templates: flag("labelIncludeTemplates"),
        },
        add_annotations: AddMetadata {
            keys: keys("commonAnnotations"),
            force: flag("forceCommonAnnotations"),
            ..AddMetadata::default()
        },
    }
}

/// An image as `kustomize edit set image` takes it (`[NAME=]NEW_NAME[:TAG|@DIGEST]`), as the
/// kustomization's `images` entry it writes.
fn image(spec: &str) -> serde_json::Value {
    let (name, new) = match spec.split_once('=') {
        Some((name, new)) => (Some(name), new),
        None => (None, spec),
    };
    let (new_name, tag, digest) = match new.split_once('@') {
        Some((n, d)) => (n, None, Some(d)),
        None => {
            // A tag follows the last `:` after the last `/` (a registry's port precedes it).
            let after_slash = new.rfind('/').map_or(0, |i| i + 1);
            match new[after_slash..].rfind(':') {
                Some(c) => (
                    &new[..after_slash + c],
                    Some(&new[after_slash + c + 1..]),
                    None,
                ),
                None => (new, None, None),
            }
        }
    };
    let mut out = serde_json::Map::new();
    out.insert("name".into(), name.unwrap_or(new_name).into());
    if name.is_some() && !new_name.is_empty() {
        out.insert("newName".into(), new_name.into());
    }
    if let Some(t) = tag {
        out.insert("newTag".into(), t.into());
    }
    if let Some(d) = digest {
        out.insert("digest".into(), d.into());
    }
    serde_json::Value::Object(out)
}

fn helm_of(helm: Option<&Node>, put: &dyn Fn(&str) -> String) -> ArgoHelm {
    let Some(h) = helm else {
        return ArgoHelm::default();
    };
    let mut inline = Vec::new();
    if let Some(v) = h.get("values").and_then(Node::as_str) {
        inline.push(put(v));
    }
    if let Some(v) = h.get("valuesObject") {
        inline.push(v.to_json().to_string());
    }
    ArgoHelm {
        release_name: str_at(h, &["releaseName"]).map(put),
        value_files: h
            .get("valueFiles")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .filter_map(|n| n.scalar_text().map(|s| put(&s)))
            .collect(),
        inline,
        parameters: h
            .get("parameters")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .filter_map(|p| {
                let name = p.get("name")?.scalar_text()?.into_owned();
                let value = p
                    .get("value")
                    .and_then(Node::scalar_text)
                    .map(|v| put(&v))
                    .unwrap_or_default();
                let string = matches!(
                    p.get("forceString").map(|n| &n.value),
                    Some(crate::source::Value::Bool(true))
                );
                Some((name, value, string))
            })
            .collect(),
    }
}

/// What an ApplicationSet's generators see of the repository: its directories (git
/// `directories`) and its files (git `files`).
pub struct Tree<'a> {
    pub dirs: &'a [PathBuf],
    pub files: &'a [PathBuf],
}

type Params = BTreeMap<String, String>;

/// The Applications an ApplicationSet generates: one per parameter set of its generators
/// (`list`, git `directories` and `files`, and `matrix` and `merge` over those). The others
/// read what is not in the repository (Argo CD's clusters, an SCM provider, pull requests, a
/// plugin): said in `notes`, their Applications are not generated.
fn generated(
    file: &Path,
    name: &str,
    root: &Node,
    tree: &Tree<'_>,
    notes: &mut Vec<String>,
) -> Vec<ArgoApp> {
    let Some(spec) = root.get("spec") else {
        return Vec::new();
    };
    let Some(template) = spec.get("template") else {
        return Vec::new();
    };
    let template_name = str_at(template, &["metadata", "name"]).unwrap_or(name);
    let Some(template_spec) = template.get("spec") else {
        return Vec::new();
    };
    let mut ctx = Generators {
        file,
        set: name,
        tree,
        notes,
        depth: 0,
        capped: false,
    };
    let mut sets = Vec::new();
    for g in spec.get("generators").and_then(Node::as_seq).unwrap_or(&[]) {
        let more = ctx.parameters(g);
        sets.extend(more);
        ctx.cap(&mut sets);
    }
    let metadata = template.get("metadata");
    let from_template = |params: &Params| app(file, template_name, metadata, template_spec, params);
    let apps: Vec<ArgoApp> = match spec.get("templatePatch").and_then(Node::as_str) {
        None => sets.iter().map(from_template).collect(),
        Some(text) => {
            let go_template = matches!(
                spec.get("goTemplate").map(|n| &n.value),
                Some(crate::source::Value::Bool(true))
            );
            let each_patched = PatchText::of(text, go_template).and_then(|patch| {
                sets.iter()
                    .map(|params| {
                        let template = patched(template, &patch, params)?;
                        let name = str_at(&template, &["metadata", "name"]).unwrap_or(name);
                        let spec = template.get("spec").unwrap_or(template_spec);
                        Ok(app(file, name, template.get("metadata"), spec, params))
                    })
                    .collect::<Result<Vec<_>, String>>()
            });
            match each_patched {
                Ok(apps) => apps,
                // Argo CD generates nothing from a set whose patch fails (GenerateApplications
                // returns the error and Reconcile stops before creating, updating or deleting
                // any Application): those it made before stay as they were. The template alone
                // is the nearest reading of them; planning them gone would delete what Argo CD
                // keeps.
                Err(why) => {
                    ctx.notes.push(format!(
                        "{}: ApplicationSet {name}: its templatePatch is not read ({why}): its Applications are read from `template` alone (Argo CD makes or changes none from a patch that fails, and keeps those it made)",
                        file.display()
                    ));
                    sets.iter().map(from_template).collect()
                }
            }
        }
    };
    let on_removal = generated_on_removal(spec, metadata);
    apps.into_iter()
        .map(|a| with_on_removal(a, on_removal))
        .collect()
}

/// A generated Application's [`OnRemoval`] where its ApplicationSet decides it: `None` when
/// its own finalizers do.
fn with_on_removal(mut app: ArgoApp, on_removal: Option<OnRemoval>) -> ArgoApp {
    if let Some(r) = on_removal {
        if r == OnRemoval::Kept || app.on_removal == OnRemoval::Orphans {
            app.on_removal = r;
        }
    }
    app
}

/// What an ApplicationSet does with an Application its generators no longer make: nothing
/// with `applicationsSync: create-only` or `create-update` (`AllowDelete`,
/// applicationset_types.go); else it deletes it, and a template without finalizers is given
/// the resources finalizer unless `preserveResourcesOnDeletion` is set (RenderTemplateParams,
/// applicationset/utils/utils.go). `None`: the Application's own finalizers decide.
fn generated_on_removal(spec: &Node, template_metadata: Option<&Node>) -> Option<OnRemoval> {
    let sync_policy = spec.get("syncPolicy");
    let sync = sync_policy
        .and_then(|p| p.get("applicationsSync"))
        .and_then(Node::as_str);
    if matches!(sync, Some("create-only" | "create-update")) {
        return Some(OnRemoval::Kept);
    }
    let preserve = matches!(
        sync_policy
            .and_then(|p| p.get("preserveResourcesOnDeletion"))
            .map(|n| &n.value),
        Some(crate::source::Value::Bool(true))
    );
    let finalizers = template_metadata
        .and_then(|m| m.get("finalizers"))
        .and_then(Node::as_seq)
        .unwrap_or(&[]);
    (finalizers.is_empty() && !preserve).then_some(OnRemoval::Deletes)
}

/// An ApplicationSet's `templatePatch` as it renders it: with `goTemplate`, Go's
/// text/template (parsed once for every parameter set); else fasttemplate's `{{param}}`,
/// which leaves what it does not know as written.
enum PatchText<'a> {
    Go(super::gotemplate::GoTemplate),
    Params(&'a str),
}

impl<'a> PatchText<'a> {
    fn of(text: &'a str, go_template: bool) -> Result<PatchText<'a>, String> {
        match go_template {
            true => super::gotemplate::GoTemplate::parse(text).map(PatchText::Go),
            false => Ok(PatchText::Params(text)),
        }
    }

    fn render(&self, params: &Params) -> Result<String, String> {
        match self {
            PatchText::Go(template) => template.render(params),
            PatchText::Params(text) => Ok(fill(text, params)),
        }
    }
}

/// The ApplicationSet's `template` with its `templatePatch` applied for one parameter set, as
/// Argo CD does (applicationset/controllers/template/patch.go `applyTemplatePatch`): the patch
/// text with the parameters put in, read as YAML, then a strategic merge patch on the
/// Application. Its spec's types declare no merge keys, so maps merge, lists and scalars
/// replace and `null` deletes ([`merge_patch`]; Argo CD then restores `spec.project`, which
/// this tool does not read).
fn patched(template: &Node, patch: &PatchText<'_>, params: &Params) -> Result<Node, String> {
    let text = patch.render(params)?;
    let loaded = crate::source::load(crate::source::Source::new("templatePatch", text));
    if !loaded.problems.is_empty() {
        return Err("it is not YAML".into());
    }
    let root = match loaded.documents.as_slice() {
        [d] if matches!(d.root.value, crate::source::Value::Map(_)) => d.root.clone(),
        // Rendered empty (a condition this element does not meet): JSON `null`, which the
        // strategic merge applies as no change (ConvertYAMLToJSON, then StrategicMergePatch).
        [] => return Ok(template.clone()),
        [d] if matches!(d.root.value, crate::source::Value::Null) => return Ok(template.clone()),
        _ => return Err("it is not one YAML mapping".into()),
    };
    Ok(merge_patch(template, &root))
}

/// `patch` merged into `base` (the whole Application): maps key by key, anything else
/// replaced, `null` deleting; but `metadata.finalizers`, which `ObjectMeta` declares
/// `patchStrategy:"merge"`, keeps the base's and adds the patch's.
fn merge_patch(base: &Node, patch: &Node) -> Node {
    merge_at(base, patch, &[])
}

fn merge_at(base: &Node, patch: &Node, path: &[&str]) -> Node {
    use crate::source::Value;
    let (base_entries, patch_entries) = match (&base.value, &patch.value) {
        (Value::Seq(base_items), Value::Seq(patch_items)) if path == ["metadata", "finalizers"] => {
            let mut items = base_items.clone();
            for item in patch_items {
                if !items.iter().any(|i| i.value == item.value) {
                    items.push(item.clone());
                }
            }
            return Node {
                value: Value::Seq(items),
                span: base.span,
            };
        }
        (Value::Map(b), Value::Map(p)) => (b, p),
        _ => return patch.clone(),
    };
    let mut entries = base_entries.clone();
    for p in patch_entries {
        let at = entries.iter().position(|e| e.key.value == p.key.value);
        match (at, &p.value.value) {
            (Some(i), Value::Null) => {
                entries.remove(i);
            }
            (None, Value::Null) => {}
            (Some(i), _) => {
                let inner = [path, &[p.key.as_str().unwrap_or("")]].concat();
                entries[i].value = merge_at(&entries[i].value, &p.value, &inner);
            }
            (None, _) => entries.push(p.clone()),
        }
    }
    Node {
        value: Value::Map(entries),
        span: base.span,
    }
}

/// At most this many parameter sets (Applications) per ApplicationSet: a matrix multiplies its
/// children's counts, and a hostile file must not make that a billion.
const MAX_SETS: usize = 5_000;

/// `matrix` and `merge` nest at most this deep (Argo CD allows two levels).
const MAX_NESTING: usize = 2;

struct Generators<'a, 'n> {
    file: &'a Path,
    set: &'a str,
    tree: &'a Tree<'a>,
    notes: &'n mut Vec<String>,
    /// How many `matrix`/`merge` levels enclose the generator being read.
    depth: usize,
    /// Whether [`MAX_SETS`] was reached (said once).
    capped: bool,
}

impl Generators<'_, '_> {
    /// The parameter sets of one generator.
    fn parameters(&mut self, g: &Node) -> Vec<Params> {
        let mut out = Vec::new();
        for entry in g.as_map().unwrap_or(&[]) {
            let Some(kind) = entry.key.as_str() else {
                continue;
            };
            match kind {
                "list" => out.extend(list_parameters(&entry.value)),
                "git" => out.extend(self.git_parameters(&entry.value)),
                "matrix" => out.extend(self.matrix(&entry.value)),
                "merge" => out.extend(self.merge(&entry.value)),
                // Options of a generator, not generators.
                "selector" | "values" | "template" => {}
                other => self.notes.push(format!(
                    "{}: ApplicationSet {}: the `{other}` generator reads what is not in this repository; the Applications it generates are not linted",
                    self.file.display(),
                    self.set
                )),
            }
        }
        out
    }

    /// Keeps the first [`MAX_SETS`] of `sets`, saying once that the rest is not linted.
    fn cap(&mut self, sets: &mut Vec<Params>) {
        if sets.len() > MAX_SETS {
            sets.truncate(MAX_SETS);
            if !std::mem::replace(&mut self.capped, true) {
                self.notes.push(format!(
                    "{}: ApplicationSet {}: its generators make more than {MAX_SETS} Applications; only the first {MAX_SETS} are linted",
                    self.file.display(),
                    self.set
                ));
            }
        }
    }

    /// `read` one level down a `matrix` or `merge`; nothing deeper than [`MAX_NESTING`] (said
    /// in a note).
    fn nested(&mut self, kind: &str, read: impl FnOnce(&mut Self) -> Vec<Params>) -> Vec<Params> {
        if self.depth >= MAX_NESTING {
            self.notes.push(format!(
                "{}: ApplicationSet {}: a `{kind}` nested more than {MAX_NESTING} deep is not expanded",
                self.file.display(),
                self.set
            ));
            return Vec::new();
        }
        self.depth += 1;
        let out = read(self);
        self.depth -= 1;
        out
    }

    /// A child generator's sets, bounded.
    fn child(&mut self, g: &Node) -> Vec<Params> {
        let mut sets = self.parameters(g);
        self.cap(&mut sets);
        sets
    }

    /// Every combination of one set from each child, joined (a later child's value wins). A
    /// later child written with parameters (`path: '{{path}}/config.json'`) is read once per
    /// combination so far, those parameters filled in, as Argo CD does.
    fn matrix(&mut self, g: &Node) -> Vec<Params> {
        let children = g.get("generators").and_then(Node::as_seq).unwrap_or(&[]);
        if children.is_empty() {
            return Vec::new();
        }
        self.nested("matrix", |this| {
            let mut acc = vec![Params::new()];
            for (i, child) in children.iter().enumerate() {
                let fixed = (i == 0 || !templated(child)).then(|| this.child(child));
                let mut next = Vec::new();
                for a in &acc {
                    let sets = match &fixed {
                        Some(sets) => std::borrow::Cow::Borrowed(sets),
                        None => std::borrow::Cow::Owned(this.child(&filled(child, a))),
                    };
                    for s in sets.iter() {
                        let mut joined = a.clone();
                        joined.extend(s.iter().map(|(k, v)| (k.clone(), v.clone())));
                        next.push(joined);
                    }
                    // Bounded as it is built: the product of two large children is never held.
                    if next.len() > MAX_SETS {
                        break;
                    }
                }
                this.cap(&mut next);
                acc = next;
            }
            acc
        })
    }

    /// The first child's sets, each updated by the later children's sets that agree with it on
    /// every `mergeKeys` parameter.
    fn merge(&mut self, g: &Node) -> Vec<Params> {
        let keys: Vec<String> = g
            .get("mergeKeys")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .filter_map(|k| k.scalar_text().map(|k| k.into_owned()))
            .collect();
        if keys.is_empty() {
            // Argo CD refuses a merge without keys; every set would match every other.
            self.notes.push(format!(
                "{}: ApplicationSet {}: a `merge` without mergeKeys is not expanded",
                self.file.display(),
                self.set
            ));
            return Vec::new();
        }
        let generators = g.get("generators").and_then(Node::as_seq).unwrap_or(&[]);
        let mut children = Vec::new();
        self.nested("merge", |this| {
            children = generators.iter().map(|c| this.child(c)).collect();
            Vec::new()
        });
        let mut children = children.into_iter();
        let Some(mut base) = children.next() else {
            return Vec::new();
        };
        // A set's values of the merge keys, `None` when it lacks one (it then merges nothing).
        let key_of = |p: &Params| -> Option<Vec<String>> {
            keys.iter().map(|k| p.get(k).cloned()).collect()
        };
        for later in children {
            let mut by_key: HashMap<Vec<String>, Vec<&Params>> = HashMap::new();
            for s in &later {
                if let Some(k) = key_of(s) {
                    by_key.entry(k).or_default().push(s);
                }
            }
            for b in &mut base {
                let Some(agreeing) = key_of(b).and_then(|k| by_key.get(&k)) else {
                    continue;
                };
                for s in agreeing {
                    b.extend(s.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
            }
        }
        base
    }

    fn git_parameters(&mut self, git: &Node) -> Vec<Params> {
        let patterns = |field: &str| -> Vec<(&str, bool)> {
            git.get(field)
                .and_then(Node::as_seq)
                .unwrap_or(&[])
                .iter()
                .filter_map(|d| {
                    let exclude = matches!(
                        d.get("exclude").map(|n| &n.value),
                        Some(crate::source::Value::Bool(true))
                    );
                    Some((str_at(d, &["path"])?, exclude))
                })
                .collect()
        };
        let mut out: Vec<Params> = matching(self.file, &patterns("directories"), self.tree.dirs)
            .iter()
            .map(|(dir, _)| directory_params(dir))
            .collect();
        for (rel, path) in matching(self.file, &patterns("files"), self.tree.files) {
            out.extend(self.file_parameters(&rel, path));
        }
        out
    }

    /// A git `files` generator's sets for one file: each mapping the file holds (one, or each
    /// item of a list), flattened (`cluster.name`), with the file's place (`path` is its
    /// directory, `path.filename` its name).
    fn file_parameters(&mut self, rel: &str, path: &Path) -> Vec<Params> {
        let text = match crate::source::files::read_text(path) {
            Ok((_, text)) => text,
            Err(e) => {
                self.notes.push(format!(
                    "{}: ApplicationSet {}: {e}",
                    self.file.display(),
                    self.set
                ));
                return Vec::new();
            }
        };
        let (dir, filename) = rel.rsplit_once('/').unwrap_or(("", rel));
        let mut place = directory_params(dir);
        place.insert("path.filename".into(), filename.to_string());
        place.insert("path.filenameNormalized".into(), normalized(filename));
        let mut out = Vec::new();
        for root in crate::source::yaml::parse_roots(&text) {
            let items = match root.as_seq() {
                Some(items) => items.to_vec(),
                None => vec![root],
            };
            for item in items.iter().filter(|i| i.as_map().is_some()) {
                let mut params = place.clone();
                flatten("", item, &mut params);
                out.push(params);
            }
        }
        out
    }
}

/// Whether a generator is written with parameters (`{{...}}` in some string).
fn templated(node: &Node) -> bool {
    match &node.value {
        crate::source::Value::Str(s) => s.contains("{{"),
        crate::source::Value::Seq(items) => items.iter().any(templated),
        crate::source::Value::Map(entries) => entries.iter().any(|e| templated(&e.value)),
        _ => false,
    }
}

/// A copy of `node` with `params` filled into its strings.
fn filled(node: &Node, params: &Params) -> Node {
    use crate::source::Value;
    let value = match &node.value {
        Value::Str(s) => Value::Str(fill(s, params).into()),
        Value::Seq(items) => Value::Seq(items.iter().map(|i| filled(i, params)).collect()),
        Value::Map(entries) => Value::Map(
            entries
                .iter()
                .map(|e| crate::source::Entry {
                    key: e.key.clone(),
                    value: filled(&e.value, params),
                })
                .collect(),
        ),
        other => other.clone(),
    };
    Node {
        value,
        span: node.span,
    }
}

/// A `list` generator's elements, each a set (nested values flattened).
fn list_parameters(list: &Node) -> Vec<Params> {
    list.get("elements")
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .map(|e| {
            let mut params = Params::new();
            flatten("", e, &mut params);
            params
        })
        .collect()
}

/// A mapping's scalars as parameters, nested keys joined by `.` (as Argo CD flattens them).
fn flatten(prefix: &str, node: &Node, out: &mut Params) {
    for entry in node.as_map().unwrap_or(&[]) {
        let Some(key) = entry.key.as_str() else {
            continue;
        };
        let key = if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        };
        if entry.value.as_map().is_some() {
            flatten(&key, &entry.value, out);
        } else if let Some(text) = entry.value.scalar_text() {
            out.insert(key, text.into_owned());
        }
    }
}

/// The repository entries (directories or files, relative to its root: the nearest ancestor
/// of the defining file where some pattern matches) that the included patterns match and no
/// excluded one does, sorted, each with its path.
fn matching<'p>(
    file: &Path,
    patterns: &[(&str, bool)],
    entries: &'p [PathBuf],
) -> Vec<(String, &'p Path)> {
    let glob = |p: &str| {
        globset::GlobBuilder::new(p.trim_start_matches("./"))
            .literal_separator(true)
            .build()
            .ok()
            .map(|g| g.compile_matcher())
    };
    let include: Vec<_> = patterns
        .iter()
        .filter(|(_, ex)| !ex)
        .filter_map(|(p, _)| glob(p))
        .collect();
    if include.is_empty() {
        return Vec::new();
    }
    let exclude: Vec<_> = patterns
        .iter()
        .filter(|(_, ex)| *ex)
        .filter_map(|(p, _)| glob(p))
        .collect();
    for root in file.ancestors().skip(1) {
        let mut found: Vec<(String, &Path)> = entries
            .iter()
            .filter_map(|d| Some((d.strip_prefix(root).ok()?, d.as_path())))
            .filter(|(rel, _)| !rel.as_os_str().is_empty())
            .map(|(rel, d)| (rel.to_string_lossy().replace('\\', "/"), d))
            .filter(|(rel, _)| include.iter().any(|g| g.is_match(rel)))
            .filter(|(rel, _)| !exclude.iter().any(|g| g.is_match(rel)))
            .collect();
        if !found.is_empty() {
            found.sort();
            found.dedup_by(|a, b| a.0 == b.0);
            return found;
        }
    }
    Vec::new()
}

/// A name as Argo CD normalizes it for Kubernetes names: lower case, anything but letters,
/// digits and `-` turned into `-`.
fn normalized(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// The parameters of a git `directories` generator for one directory.
fn directory_params(dir: &str) -> BTreeMap<String, String> {
    let basename = dir.rsplit('/').next().unwrap_or(dir).to_string();
    let mut p = BTreeMap::new();
    p.insert("path".into(), dir.to_string());
    p.insert("path.path".into(), dir.to_string());
    p.insert("path.basenameNormalized".into(), normalized(&basename));
    p.insert("path.basename".into(), basename);
    for (i, seg) in dir.split('/').enumerate() {
        p.insert(format!("path[{i}]"), seg.to_string());
        p.insert(format!("path.segments[{i}]"), seg.to_string());
    }
    p
}

/// `{{name}}`, `{{ name }}` and the Go-template `{{ .name }}` replaced by their values; an
/// unknown parameter stays as written.
fn fill(text: &str, params: &BTreeMap<String, String>) -> String {
    if params.is_empty() || !text.contains("{{") {
        return text.to_string();
    }
    let mut out = String::new();
    for piece in super::template_pieces(text) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Action { text, closed: true } => {
                match parameter(&text[2..text.len() - 2], params) {
                    Some(value) => out.push_str(&value),
                    None => out.push_str(text),
                }
            }
            Piece::Action {
                text,
                closed: false,
            } => out.push_str(text),
        }
    }
    out
}

/// The value of one action: a parameter (`name`, `.name`), or a Go-template parameter piped
/// through sprig's `toJson` or `quote` (a JSON string: what a templatePatch writes to keep a
/// value one YAML scalar). `None` for anything else.
fn parameter(action: &str, params: &BTreeMap<String, String>) -> Option<String> {
    let mut stages = action.split('|').map(str::trim);
    let key = stages.next()?.trim_start_matches('.');
    let mut value = params.get(key)?.clone();
    for stage in stages {
        match stage {
            "toJson" | "quote" => value = serde_json::Value::from(value).to_string(),
            _ => return None,
        }
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    /// `kustomize edit set image`'s forms, as the kustomization entries they write.
    #[test]
    fn images_are_read_as_kustomize_edit_set_image_reads_them() {
        let cases = [
            ("nginx:1.27", r#"{"name":"nginx","newTag":"1.27"}"#),
            (
                "nginx=registry.example.com:5000/nginx:1.27",
                r#"{"name":"nginx","newName":"registry.example.com:5000/nginx","newTag":"1.27"}"#,
            ),
            (
                "nginx=reg.io/nginx@sha256:abc",
                r#"{"name":"nginx","newName":"reg.io/nginx","digest":"sha256:abc"}"#,
            ),
            ("reg.io:5000/app", r#"{"name":"reg.io:5000/app"}"#),
        ];
        for (spec, want) in cases {
            assert_eq!(image(spec).to_string(), want, "{spec}");
        }
    }

    /// `kustomize edit add label|annotation` refuses a key the kustomization has, unless
    /// forced; `--without-selector` looks in the first `labels` entry without selectors.
    #[test]
    fn argo_cds_edit_add_refuses_a_key_already_there() {
        let own = |text: &str| crate::source::yaml::parse_roots(text).remove(0);
        let settings = |text: &str| kustomize_of(own(text).get("k"), &|s: &str| s.to_string());
        let has = own("commonLabels: {team: red}\ncommonAnnotations: {a: x}\nlabels:\n- pairs: {env: a}\n  includeSelectors: true\n- pairs: {tier: b}\n");
        let error = |text: &str| settings(text).edit_error(&has);
        assert_eq!(
            error("k: {commonLabels: {team: blue}}").as_deref(),
            Some("kustomize edit add label failed: label team already in kustomization file. Use --force to override.")
        );
        assert_eq!(
            error("k: {commonLabels: {team: blue}, forceCommonLabels: true}"),
            None
        );
        assert_eq!(error("k: {commonLabels: {env: b, tier: c}}"), None);
        assert_eq!(
            error("k: {commonLabels: {tier: c}, labelWithoutSelector: true}").as_deref(),
            Some("kustomize edit add label failed: label tier already in kustomization file. Use --force to override.")
        );
        assert_eq!(
            error("k: {commonLabels: {env: c}, labelWithoutSelector: true}"),
            None
        );
        assert_eq!(
            error("k: {commonAnnotations: {a: y}}").as_deref(),
            Some("kustomize edit add annotation failed: annotation a already in kustomization file. Use --force to override.")
        );
        assert_eq!(
            error("k: {commonAnnotations: {a: y}, forceCommonAnnotations: true}"),
            None
        );
    }

    #[test]
    fn kustomize_settings_become_kustomization_fields() {
        let l = load(Source::new(
            "k.yaml",
            "namePrefix: eu-\ncommonLabels: {team: blue}\nlabelWithoutSelector: true\nreplicas: [{name: web, count: \"3\"}]\ncomponents: [../ha]\n".to_string(),
        ));
        let k = kustomize_of(Some(&l.documents[0].root), &str::to_string);
        assert_eq!(k.name_prefix.as_deref(), Some("eu-"));
        assert_eq!(k.components, ["../ha"]);
        assert_eq!(
            k.fields,
            [
                ("replicas", r#"[{"name":"web","count":3}]"#.to_string()),
                (
                    "labels",
                    r#"[{"pairs":{"team":"blue"},"includeSelectors":false,"includeTemplates":false}]"#
                        .to_string()
                ),
            ]
        );
    }

    #[test]
    fn parameters_fill_both_template_syntaxes() {
        let p: BTreeMap<String, String> = [("cluster".to_string(), "prod".to_string())].into();
        assert_eq!(fill("apps/{{cluster}}", &p), "apps/prod");
        assert_eq!(fill("apps/{{ .cluster }}/x", &p), "apps/prod/x");
        assert_eq!(fill("{{other}}", &p), "{{other}}");
        let d = directory_params("apps/web_app");
        assert_eq!(d["path.basename"], "web_app");
        assert_eq!(d["path.basenameNormalized"], "web-app");
        assert_eq!(d["path[0]"], "apps");
    }

    #[test]
    fn applications_and_generated_ones_name_their_destination_and_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["apps/a", "apps/b", "argocd"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let file = root.join("argocd/apps.yaml");
        let text = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  destination:\n    name: prod\n  source:\n    repoURL: https://example.com/r.git\n    path: apps/a\n---\napiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: set\nspec:\n  generators:\n    - list:\n        elements:\n          - cluster: staging\n    - git:\n        repoURL: https://example.com/r.git\n        directories:\n          - path: apps/*\n          - path: apps/a\n            exclude: true\n  template:\n    metadata:\n      name: '{{path.basename}}{{cluster}}'\n    spec:\n      destination:\n        server: https://kubernetes.default.svc\n      source:\n        repoURL: https://example.com/r.git\n        path: '{{path}}'\n";
        let loaded = load(Source::new(file.display().to_string(), text));
        let dirs: Vec<PathBuf> = ["apps/a", "apps/b", "argocd", "apps"]
            .iter()
            .map(|d| root.join(d))
            .collect();
        let tree = Tree {
            dirs: &dirs,
            files: &[],
        };
        let apps = find(&loaded, &file, &tree, &mut Vec::new());
        assert_eq!(apps.len(), 3, "{apps:#?}");
        assert_eq!(apps[0].destination, "prod");
        assert_eq!(apps[0].paths, [root.join("apps/a")]);
        // The list element has no `path`: its source is not in the repository.
        assert_eq!(apps[1].destination, "in-cluster");
        assert_eq!(apps[1].elsewhere, ["https://example.com/r.git {{path}}"]);
        assert_eq!(apps[2].name, "b{{cluster}}");
        assert_eq!(apps[2].paths, [root.join("apps/b")]);
    }

    /// Writes `files` under a temporary root and lints `set` (an ApplicationSet in
    /// `argocd/set.yaml`) against them: its Applications and the notes.
    fn generate(
        files: &[(&str, &str)],
        set: &str,
    ) -> (tempfile::TempDir, Vec<ArgoApp>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut written = Vec::new();
        for (name, text) in files {
            let p = root.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            written.push(p);
        }
        let mut dirs: Vec<PathBuf> = written
            .iter()
            .flat_map(|f| f.ancestors().skip(1))
            .filter(|d| d.starts_with(root))
            .map(Path::to_path_buf)
            .collect();
        dirs.sort();
        dirs.dedup();
        let file = root.join("argocd/set.yaml");
        let head = "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: set\nspec:\n";
        let loaded = load(Source::new(
            file.display().to_string(),
            format!("{head}{set}"),
        ));
        let tree = Tree {
            dirs: &dirs,
            files: &written,
        };
        let mut notes = Vec::new();
        let apps = find(&loaded, &file, &tree, &mut notes);
        (dir, apps, notes)
    }

    const TEMPLATE: &str = "  template:\n    metadata:\n      name: '{{cluster.name}}'\n    spec:\n      destination:\n        name: '{{cluster.name}}'\n      source:\n        repoURL: https://example.com/r.git\n        path: '{{cluster.path}}'\n";

    /// The sources given in `templatePatch` (Go template, `toJson`), as SJoon99/scalex-federation
    /// writes them: merged into each generated Application, its lists replacing the template's.
    /// A patch with actions this tool does not evaluate is said, and the template read alone.
    #[test]
    fn a_template_patch_is_merged_into_each_application() {
        let files = [
            ("apps/web/deploy.yaml", "kind: Deployment\n"),
            ("apps/api/deploy.yaml", "kind: Deployment\n"),
            ("policies/pp.yaml", "kind: PropagationPolicy\n"),
        ];
        let set = |patch: &str| {
            format!("  goTemplate: true\n  generators:\n    - list:\n        elements:\n          - {{name: web, path: apps/web}}\n          - {{name: api, path: apps/api}}\n  template:\n    metadata: {{name: '{{{{ .name }}}}'}}\n    spec:\n      project: default\n      destination: {{name: karmada, namespace: demo}}\n      source: {{repoURL: https://example.com/r.git, path: unused}}\n  templatePatch: |\n{patch}")
        };
        let patch = "    spec:\n      source: null\n      sources:\n        - repoURL: https://example.com/r.git\n          path: {{ .path | toJson }}\n        - repoURL: https://example.com/r.git\n          path: policies\n";
        let (dir, apps, notes) = generate(&files, &set(patch));
        assert!(notes.is_empty(), "{notes:?}");
        let got: Vec<(&str, Vec<PathBuf>)> = apps
            .iter()
            .map(|a| (a.name.as_str(), a.paths.clone()))
            .collect();
        let at = |p: &str| dir.path().join(p);
        assert_eq!(
            got,
            [
                ("web", vec![at("apps/web"), at("policies")]),
                ("api", vec![at("apps/api"), at("policies")])
            ]
        );
        let named = "    {{- define \"x\" }}{{ end }}\n    spec: {}\n";
        let (_dir, apps, notes) = generate(&files, &set(named));
        assert_eq!(apps.len(), 2);
        assert_eq!(apps[0].elsewhere, ["https://example.com/r.git unused"]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("ApplicationSet set: its templatePatch is not read (it defines or calls named templates): its Applications are read from `template` alone"),
            "{notes:?}"
        );
        // ObjectMeta's finalizers merge (patchStrategy "merge"): the template's cascading
        // deletion stays when the patch adds another finalizer.
        let finalizers =
            "    metadata:\n      finalizers: [post-delete-finalizer.argocd.argoproj.io]\n";
        let with_finalizer = set(finalizers).replace(
            "    metadata: {name: '{{ .name }}'}\n",
            "    metadata:\n      name: '{{ .name }}'\n      finalizers: [resources-finalizer.argocd.argoproj.io]\n",
        );
        // Not YAML: said, and the template read alone.
        let (_dir, apps, notes) =
            generate(&files, &set("    spec: {destination: {name: [unclosed\n"));
        assert_eq!(apps.len(), 2);
        assert!(
            notes[0].contains("its templatePatch is not read (it is not YAML)"),
            "{notes:?}"
        );
        // A patch rendered empty for an element patches nothing there.
        let only_api = "    {{- if eq .name \"api\" }}\n    spec: {destination: {name: karmada-b}}\n    {{- end }}\n";
        let (_dir, apps, notes) = generate(&files, &set(only_api));
        assert!(notes.is_empty(), "{notes:?}");
        let destinations: Vec<&str> = apps.iter().map(|a| a.destination.as_str()).collect();
        assert_eq!(destinations, ["karmada", "karmada-b"]);
        let (_dir, apps, _) = generate(&files, &with_finalizer);
        assert_eq!(apps.len(), 2);
        assert!(
            apps.iter().all(|a| a.on_removal == OnRemoval::Deletes),
            "{apps:?}"
        );
    }

    /// A generated Application without finalizers is given the resources finalizer
    /// (RenderTemplateParams) unless the ApplicationSet preserves resources; with
    /// `applicationsSync: create-update` the ApplicationSet deletes none.
    #[test]
    fn an_applicationset_decides_what_removing_its_applications_does() {
        let files = [("apps/web/deploy.yaml", "kind: Deployment\n")];
        let on_removal = |policy: &str| {
            let set = format!("  generators:\n    - list:\n        elements: [{{name: web}}]\n{policy}  template:\n    metadata: {{name: '{{{{name}}}}'}}\n    spec:\n      destination: {{name: karmada}}\n      source: {{repoURL: https://example.com/r.git, path: apps/web}}\n");
            let (_dir, apps, _) = generate(&files, &set);
            apps[0].on_removal
        };
        assert_eq!(on_removal(""), OnRemoval::Deletes);
        assert_eq!(
            on_removal("  syncPolicy: {preserveResourcesOnDeletion: true}\n"),
            OnRemoval::Orphans
        );
        assert_eq!(
            on_removal("  syncPolicy: {applicationsSync: create-update}\n"),
            OnRemoval::Kept
        );
    }

    /// Only Argo CD's resources finalizer (with or without a propagation policy) makes a
    /// deleted Application delete what it applied.
    #[test]
    fn the_resources_finalizer_is_what_deletes_an_applications_resources() {
        let with = |finalizers: &str| {
            let text = format!("metadata:\n  name: a\n  finalizers: {finalizers}\n");
            let loaded = load(Source::new("a.yaml", text));
            has_resources_finalizer(loaded.documents[0].root.get("metadata"))
        };
        assert!(with("[resources-finalizer.argocd.argoproj.io]"));
        assert!(with(
            "[x, resources-finalizer.argocd.argoproj.io/background]"
        ));
        assert!(!with("[]"));
        assert!(!with("[resources-finalizer.argocd.argoproj.io.example]"));
        assert!(!has_resources_finalizer(None));
    }

    /// Only automated sync with `prune: true` deletes what the sources stop giving; manual
    /// sync (no `automated`, `automated: null`, `enabled: false`) prunes only when asked.
    #[test]
    fn only_automated_prune_deletes_what_the_sources_no_longer_give() {
        let keeps = |policy: &str| {
            let text = format!("syncPolicy: {policy}\n");
            let loaded = load(Source::new("a.yaml", text));
            keeps_removed(loaded.documents[0].root.get("syncPolicy"))
        };
        assert_eq!(keeps("{automated: {prune: true}}"), None);
        let not_true = Some("syncPolicy.automated.prune is not true");
        assert_eq!(keeps("{automated: {selfHeal: true}}"), not_true);
        assert_eq!(keeps("{automated: {prune: false}}"), not_true);
        let manual = Some("no automated sync, and a sync prunes only when asked");
        assert_eq!(keeps("{automated: {prune: true, enabled: false}}"), manual);
        assert_eq!(keeps("{automated: null}"), manual);
        assert_eq!(keeps("{syncOptions: [CreateNamespace=true]}"), manual);
        assert_eq!(keeps_removed(None), manual);
    }

    #[test]
    fn git_files_generators_read_each_file_and_each_item_of_a_list() {
        let files = [
            ("config/prod/config.json", r#"{"cluster": {"name": "prod", "path": "apps/prod"}}"#),
            ("config/edge/config.json", "- cluster: {name: edge-a, path: apps/edge}\n- cluster: {name: edge-b, path: apps/edge}\n"),
            ("apps/prod/pp.yaml", "kind: PropagationPolicy\n"),
            ("apps/edge/pp.yaml", "kind: PropagationPolicy\n"),
        ];
        let set = format!("  generators:\n    - git:\n        repoURL: https://example.com/r.git\n        files:\n          - path: config/**/config.json\n{TEMPLATE}");
        let (dir, apps, notes) = generate(&files, &set);
        assert!(notes.is_empty(), "{notes:?}");
        let got: Vec<(&str, &str)> = apps
            .iter()
            .map(|a| (a.name.as_str(), a.destination.as_str()))
            .collect();
        assert_eq!(
            got,
            [("edge-a", "edge-a"), ("edge-b", "edge-b"), ("prod", "prod")]
        );
        assert_eq!(apps[2].paths, [dir.path().join("apps/prod")]);
    }

    #[test]
    fn matrix_combines_and_merge_updates_by_its_keys() {
        let files = [
            ("apps/web/pp.yaml", "kind: PropagationPolicy\n"),
            ("apps/api/pp.yaml", "kind: PropagationPolicy\n"),
        ];
        let matrix = "  generators:\n    - matrix:\n        generators:\n          - git:\n              repoURL: https://example.com/r.git\n              directories:\n                - path: apps/*\n          - list:\n              elements:\n                - cluster: prod\n                - cluster: staging\n  template:\n    metadata:\n      name: '{{path.basename}}-{{cluster}}'\n    spec:\n      destination:\n        name: '{{cluster}}'\n      source:\n        repoURL: https://example.com/r.git\n        path: '{{path}}'\n";
        let (_dir, apps, _) = generate(&files, matrix);
        let names: Vec<&str> = apps.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            ["api-prod", "api-staging", "web-prod", "web-staging"]
        );
        let merge = "  generators:\n    - merge:\n        mergeKeys: [cluster]\n        generators:\n          - list:\n              elements:\n                - {cluster: prod, target: member1}\n                - {cluster: staging, target: member2}\n          - list:\n              elements:\n                - {cluster: staging, target: member3}\n                - {cluster: dev, target: member4}\n  template:\n    metadata:\n      name: '{{cluster}}'\n    spec:\n      destination:\n        name: '{{target}}'\n      source:\n        repoURL: https://example.com/r.git\n        path: apps/web\n";
        let (_dir, apps, _) = generate(&files, merge);
        let got: Vec<(&str, &str)> = apps
            .iter()
            .map(|a| (a.name.as_str(), a.destination.as_str()))
            .collect();
        assert_eq!(got, [("prod", "member1"), ("staging", "member3")]);
    }

    #[test]
    fn a_matrix_child_written_with_parameters_is_read_for_each_set_of_the_first() {
        let files = [
            ("apps/web/config.json", r#"{"cluster": "prod"}"#),
            ("apps/api/config.json", r#"{"cluster": "staging"}"#),
            ("apps/web/pp.yaml", "kind: PropagationPolicy\n"),
            ("apps/api/pp.yaml", "kind: PropagationPolicy\n"),
        ];
        let set = "  generators:\n    - matrix:\n        generators:\n          - git:\n              repoURL: https://example.com/r.git\n              directories:\n                - path: apps/*\n          - git:\n              repoURL: https://example.com/r.git\n              files:\n                - path: '{{path}}/config.json'\n  template:\n    metadata:\n      name: '{{path.basename}}'\n    spec:\n      destination:\n        name: '{{cluster}}'\n      source:\n        repoURL: https://example.com/r.git\n        path: '{{path}}'\n";
        let (_dir, apps, notes) = generate(&files, set);
        assert!(notes.is_empty(), "{notes:?}");
        let got: Vec<(&str, &str)> = apps
            .iter()
            .map(|a| (a.name.as_str(), a.destination.as_str()))
            .collect();
        // Each directory with its own file's cluster, not every pairing.
        assert_eq!(got, [("api", "staging"), ("web", "prod")]);
    }

    #[test]
    fn a_matrix_is_bounded_and_nesting_is_limited() {
        let elements = |key: &str| -> String {
            (0..100)
                .map(|i| format!("                - {key}: '{i}'\n"))
                .collect()
        };
        let set = format!(
            "  generators:\n    - matrix:\n        generators:\n          - list:\n              elements:\n{}          - list:\n              elements:\n{}  template:\n    metadata:\n      name: 'a{{{{a}}}}-{{{{b}}}}'\n    spec:\n      destination:\n        name: x\n      source:\n        repoURL: https://example.com/r.git\n        path: apps\n",
            elements("a"),
            elements("b")
        );
        let (_dir, apps, notes) = generate(&[], &set);
        assert_eq!(apps.len(), MAX_SETS);
        assert_eq!(apps[0].name, "a0-0");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("more than 5000 Applications; only the first 5000 are linted"));
        let nested = "  generators:\n    - matrix:\n        generators:\n          - matrix:\n              generators:\n                - matrix:\n                    generators:\n                      - list: {elements: [{a: '1'}]}\n  template:\n    metadata: {name: x}\n    spec:\n      destination: {name: x}\n      source: {repoURL: r, path: apps}\n";
        let (_dir, apps, notes) = generate(&[], nested);
        assert!(apps.is_empty());
        assert!(
            notes[0].contains("a `matrix` nested more than 2 deep is not expanded"),
            "{notes:?}"
        );
    }

    #[test]
    fn generators_that_read_outside_the_repository_are_said() {
        let set = format!("  generators:\n    - clusters:\n        selector:\n          matchLabels: {{env: prod}}\n{TEMPLATE}");
        let (_dir, apps, notes) = generate(&[], &set);
        assert!(apps.is_empty());
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].ends_with("argocd/set.yaml: ApplicationSet set: the `clusters` generator reads what is not in this repository; the Applications it generates are not linted"),
            "{notes:?}"
        );
    }
}
