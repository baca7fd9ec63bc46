//! `suspend -f LAYER` / `resume -f LAYER` in a kustomize tree (issue 19): the policies a layer
//! renders, each with its spec as that layer sees it (the strategic-merge and JSON 6902 patches
//! of its bases and its own applied in kustomize's order), and the one file of the layer an edit
//! goes to ([`layer::choose`]): a patch the layer holds for the policy, a resource it defines, or
//! a new patch file listed in its `kustomization.yaml`. Never a base below an overlay, never a
//! sibling; never a file a later patch of the layer overrides (the edit is refused, naming that
//! patch).
//!
//! The edits land in the same [`Manifest`]s the plain file mode edits, so the one check of
//! every file before any is written, the stamp check and the atomic write cover them all.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value as J;

use super::edit::{self, EditError, PatchIdentity};
use super::file::{self, FileError, Manifest};
use super::plan::{Patch, Renamed};
use crate::model::policy::PropagationSpec;
use crate::model::{Policy, PolicyKind};
use crate::source::kustomize::discover::{discover, Repository};
use crate::source::kustomize::layer::{self, Layer, LayerEdit, LayerError, PolicyName};
use crate::source::kustomize::{Kustomization, PatchBody};
use crate::source::{files, load, Loaded, Node, Source};

/// Why the layers of `-f` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LayeredError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{0}")]
    Layer(#[source] LayerError),
}

/// One policy a targeted layer renders.
pub struct LayerPolicy {
    /// The policy as the layer renders it, but named as its sources write it (before
    /// `namePrefix`/`nameSuffix`): the spec with every patch up to this layer merged in; the
    /// metadata of the document that defines it.
    pub policy: Policy,
    /// The namespace is written, by the definition or a kustomization's `namespace:` (the `-n`
    /// check of file mode); `policy.meta.namespace` is then the rendered one.
    pub namespace_written: bool,
    /// The name the layer renders (`namePrefix`/`nameSuffix` of every layer applied, and the
    /// controller's that applies it, see [`LayerPolicy::renamed`]).
    pub rendered_name: String,
    /// A GitOps controller applies the layer and renames what it renders (its name prefix or
    /// suffix, variables, namespace): the policy is known only by `rendered_name`, in the
    /// namespace `policy.meta.namespace` says (`None`: nothing says).
    pub renamed: bool,
    /// The targeted layer, and the decision: which file to edit, the environments it reaches.
    pub dir: PathBuf,
    pub layer: Layer,
    identity: PatchIdentity,
    defined_in: PathBuf,
    /// How the repository's paths read from the working directory.
    scan: layer::Scan,
    /// `spec.suspension` as the layers below this one's own patches leave it, and the last file
    /// that wrote it there.
    below: Below,
    /// The patches of the targeted layer that write `spec.suspension`, in kustomize's order.
    own_writers: Vec<Writer>,
    /// Where the edited file is in the targeted layer's patches (`None`: not a patch there).
    edited_at: Option<usize>,
    /// The targeted layer's kustomization file.
    kustomization: PathBuf,
}

/// A patch of the targeted layer that writes `spec.suspension`.
#[derive(Debug, Clone)]
struct Writer {
    /// Its file; the kustomization's own for an inline patch.
    file: PathBuf,
    /// Its place among the layer's patches.
    at: usize,
    /// From `patchesJson6902`: applied after a patch this run adds to `patches:`.
    applied_last: bool,
}

/// A patch document of a kustomization that applies to a policy.
struct PatchOf {
    /// Its patch's place among the kustomization's patches.
    at: usize,
    /// Its file (`None`: inline in the kustomization).
    file: Option<PathBuf>,
    applied_last: bool,
    patch: LayerPatch,
}

/// One patch of a layer, as it applies to a policy.
enum LayerPatch {
    /// A strategic-merge patch (a custom resource's: maps merge, the rest replaces).
    Merge(J),
    /// JSON 6902 operations.
    Operations(json_patch::Patch),
}

impl LayerPatch {
    /// Applies the patch to `object`; whether it writes `spec.suspension`. Operations that
    /// fail (a path that is not there) leave the object as it was: kustomize would fail the
    /// build, which `lint` reports.
    fn apply(&self, object: &mut J) -> bool {
        match self {
            LayerPatch::Merge(patch) => {
                layer::merge_patch(object, patch);
                patch["spec"].get("suspension").is_some()
            }
            LayerPatch::Operations(ops) => {
                let before = suspension_of(object);
                let mut patched = object.clone();
                if json_patch::patch(&mut patched, ops).is_err() {
                    return false;
                }
                *object = patched;
                let touches = |path: &str| {
                    path == "/spec/suspension"
                        || path.starts_with("/spec/suspension/")
                        || ((path == "/spec" || path.is_empty()) && suspension_of(object) != before)
                };
                ops.0.iter().any(|op| match op {
                    json_patch::PatchOperation::Test(_) => false,
                    json_patch::PatchOperation::Move(m) => {
                        touches(m.path.as_str()) || touches(m.from.as_str())
                    }
                    other => touches(written_path(other)),
                })
            }
        }
    }
}

/// The path an operation writes (or, for `test`, reads).
fn written_path(op: &json_patch::PatchOperation) -> &str {
    use json_patch::PatchOperation as O;
    match op {
        O::Add(o) => o.path.as_str(),
        O::Remove(o) => o.path.as_str(),
        O::Replace(o) => o.path.as_str(),
        O::Move(o) => o.path.as_str(),
        O::Copy(o) => o.path.as_str(),
        O::Test(o) => o.path.as_str(),
    }
}

/// A suspension as lower layers leave it, and the file that wrote it.
type Below = (Option<J>, Option<PathBuf>);

/// The identity a new patch names: the definition's apiVersion, kind, name and namespace.
fn identity_of(root: &Node, kind: PolicyKind, name: &str) -> PatchIdentity {
    PatchIdentity {
        api_version: root
            .get("apiVersion")
            .and_then(Node::as_str)
            .unwrap_or("policy.karmada.io/v1alpha1")
            .to_string(),
        kind: kind.as_str().to_string(),
        name: name.to_string(),
        namespace: root
            .get("metadata")
            .and_then(|m| m.get("namespace"))
            .and_then(Node::as_str)
            .map(str::to_string),
    }
}

impl LayerPolicy {
    /// The file the edit goes to, as shown.
    pub fn file(&self) -> String {
        match &self.layer.edit {
            LayerEdit::Existing(f) | LayerEdit::NewPatch { file: f, .. } => self.show(f),
        }
    }

    /// The targeted layer, as shown.
    pub fn shown_dir(&self) -> String {
        self.show(&self.dir)
    }

    /// The layer is a base others build on: the environments that render it, besides itself.
    pub fn shared_with(&self) -> Option<Vec<String>> {
        let envs = &self.layer.environments;
        (envs.iter().any(|e| e != &self.dir)).then(|| envs.iter().map(|e| self.show(e)).collect())
    }

    fn show(&self, path: &Path) -> String {
        self.scan.shown(path).display().to_string()
    }
}

/// The targeted layers of one run: their policies, and every file read or to create, each once.
pub struct Layered {
    pub policies: Vec<LayerPolicy>,
    manifests: BTreeMap<PathBuf, Manifest>,
    /// New patch files, by the kustomization file that must list them.
    listings: BTreeMap<PathBuf, Vec<String>>,
    /// Spent patch files this tool created, by the kustomization that must stop listing them.
    unlistings: BTreeMap<PathBuf, Vec<String>>,
    /// How each repository's paths read from the working directory.
    scans: Vec<layer::Scan>,
}

/// Reads the repositories around `dirs` (kustomization directories) and the policies each
/// renders, with the file each edit would go to.
pub fn gather(dirs: &[PathBuf], renames: &[Renamed]) -> Result<Layered, LayeredError> {
    let mut run = Layered {
        policies: Vec::new(),
        manifests: BTreeMap::new(),
        listings: BTreeMap::new(),
        unlistings: BTreeMap::new(),
        scans: Vec::new(),
    };
    let mut repos: BTreeMap<PathBuf, Repository> = BTreeMap::new();
    let mut taken: BTreeSet<PathBuf> = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for dir in dirs {
        if !seen.insert(dir.clone()) {
            continue;
        }
        let scan = layer::scan(dir);
        if !repos.contains_key(&scan.root) {
            let inputs = files::expand(&[scan.root.display().to_string()], &|_| false)
                .map_err(FileError::Expand)?;
            repos.insert(scan.root.clone(), discover(&inputs));
        }
        let repo = &repos[&scan.root];
        let renamed = renames.iter().find(|r| r.path == *dir);
        run.gather_layer(repo, (&scan, renamed), &mut taken)?;
        run.scans.push(scan);
    }
    Ok(run)
}

impl Layered {
    /// The manifest of `path`, read once.
    fn manifest(&mut self, path: &Path) -> Result<&mut Manifest, FileError> {
        if !self.manifests.contains_key(path) {
            let m = Manifest::load(path.to_path_buf())?;
            self.manifests.insert(path.to_path_buf(), m);
        }
        Ok(self.manifests.get_mut(path).expect("just inserted"))
    }

    fn gather_layer(
        &mut self,
        repo: &Repository,
        (scan, renamed): (&layer::Scan, Option<&Renamed>),
        taken: &mut BTreeSet<PathBuf>,
    ) -> Result<(), LayeredError> {
        let dir = scan.layer.as_path();
        if !repo.kustomizations.contains_key(dir) {
            return Err(LayeredError::Layer(LayerError::NotAKustomization {
                dir: dir.to_path_buf(),
            }));
        }
        let order = layer::application_order(repo, dir);
        for (at, d) in order.iter().enumerate() {
            let k = &repo.kustomizations[d];
            for f in &k.resource_files {
                for (kind, name, namespace, doc) in self.policies_of(f)? {
                    let dup = self.policies.iter().any(|p| {
                        p.dir == dir
                            && p.policy.kind == kind
                            && p.policy.meta.name == name
                            && p.identity.namespace == namespace
                    });
                    if dup {
                        continue;
                    }
                    let def = Definition { file: f, doc, kind };
                    let mut p = self.layer_policy(repo, dir, &order[at..], &def, taken)?;
                    p.scan = scan.clone();
                    if let Some(r) = renamed {
                        rename_by_controller(&mut p, repo, r);
                    }
                    self.policies.push(p);
                }
            }
        }
        Ok(())
    }

    /// The policies a file defines: kind, name, namespace as written, document.
    fn policies_of(&mut self, f: &Path) -> Result<Vec<Defined>, FileError> {
        let m = self.manifest(f)?;
        Ok(m.inv
            .policies()
            .map(|p| {
                let root = &m.inv.documents[p.doc].root;
                let ns = root
                    .get("metadata")
                    .and_then(|m| m.get("namespace"))
                    .and_then(Node::as_str)
                    .map(str::to_string);
                (p.kind, p.meta.name.clone(), ns, p.doc)
            })
            .collect())
    }

    /// One policy of the layer: its spec there, and where its edit goes.
    fn layer_policy(
        &mut self,
        repo: &Repository,
        dir: &Path,
        order: &[PathBuf],
        def: &Definition<'_>,
        taken: &mut BTreeSet<PathBuf>,
    ) -> Result<LayerPolicy, LayeredError> {
        let m = self.manifest(def.file)?;
        let root = &m.inv.documents[def.doc].root;
        let base = m
            .inv
            .policies()
            .find(|p| p.doc == def.doc)
            .expect("a policy of this document")
            .clone();
        let identity = identity_of(root, def.kind, &base.meta.name);
        let object = root.to_json();
        let (object, below, own_writers) =
            self.merged(repo, dir, order, object, def.file, &identity)?;
        let spec: PropagationSpec =
            serde_json::from_value(object["spec"].clone()).unwrap_or(base.spec.clone());
        let name = PolicyName {
            kind: def.kind.as_str(),
            name: &identity.name,
        };
        let writes = |f: &Path| {
            Manifest::load(f.to_path_buf()).is_ok_and(|m| {
                m.inv
                    .policies()
                    .any(|p| p.kind == def.kind && p.meta.name == identity.name)
            })
        };
        let exists = |p: &Path| p.exists() || taken.contains(p);
        let chosen =
            layer::choose(repo, dir, &name, &writes, &exists).map_err(LayeredError::Layer)?;
        if let LayerEdit::NewPatch { file, .. } = &chosen.edit {
            taken.insert(file.clone());
        }
        let edited_at = match &chosen.edit {
            LayerEdit::Existing(f) => repo.kustomizations[dir]
                .patches
                .iter()
                .position(|p| matches!(&p.body, PatchBody::File(g) if g == f)),
            LayerEdit::NewPatch { .. } => None,
        };
        let (rendered_name, set_namespace) = rendered_identity(repo, dir, &identity.name, None);
        let mut meta = base.meta.clone();
        if let Some(ns) = &set_namespace {
            meta.namespace = Some(ns.clone());
        }
        // As the layer renders them: a freeze's record may live in an overlay's patch.
        meta.annotations = annotations_of(&object);
        Ok(LayerPolicy {
            policy: Policy { spec, meta, ..base },
            namespace_written: identity.namespace.is_some() || set_namespace.is_some(),
            rendered_name,
            renamed: false,
            dir: dir.to_path_buf(),
            layer: chosen,
            identity,
            defined_in: def.file.to_path_buf(),
            scan: layer::Scan::default(),
            below,
            own_writers,
            edited_at,
            kustomization: repo.kustomizations[dir].file.clone(),
        })
    }

    /// The policy's object with the patches of every layer of `order` merged in, what the
    /// layers below `dir` leave of its suspension (with the last file that wrote it), and the
    /// patches of `dir` itself that write it.
    fn merged(
        &mut self,
        repo: &Repository,
        dir: &Path,
        order: &[PathBuf],
        mut object: J,
        defined_in: &Path,
        identity: &PatchIdentity,
    ) -> Result<(J, Below, Vec<Writer>), FileError> {
        let mut from = suspension_of(&object).map(|_| defined_in.to_path_buf());
        let mut below = (None, None);
        let mut own = Vec::new();
        for d in order {
            let k = &repo.kustomizations[d];
            if d.as_path() == dir {
                below = (suspension_of(&object), from.clone());
            }
            for p in self.patch_documents(k, identity)? {
                if p.patch.apply(&mut object) {
                    let file = p.file.unwrap_or_else(|| k.file.clone());
                    if d.as_path() == dir {
                        own.push(Writer {
                            file: file.clone(),
                            at: p.at,
                            applied_last: p.applied_last,
                        });
                    }
                    from = Some(file);
                }
            }
        }
        Ok((object, below, own))
    }

    /// The patches of `k` that apply to the policy, in kustomize's order, with the file each
    /// came from (`None`: inline in the kustomization): strategic-merge documents, and JSON 6902
    /// operation lists of a patch with a target.
    fn patch_documents(
        &mut self,
        k: &Kustomization,
        id: &PatchIdentity,
    ) -> Result<Vec<PatchOf>, FileError> {
        let mut out = Vec::new();
        for (at, p) in k.patches.iter().enumerate() {
            if p.target
                .as_ref()
                .is_some_and(|t| !t.matches(&id.kind, &id.name))
            {
                continue;
            }
            let (file, text) = match &p.body {
                PatchBody::File(f) => (Some(f.clone()), self.manifest(f)?.text.clone()),
                PatchBody::Inline { text, .. } => (None, text.clone()),
            };
            for root in crate::source::yaml::parse_roots(&text) {
                let d = root.to_json();
                if d.is_array() && p.target.is_some() {
                    if let Ok(ops) = serde_json::from_value::<json_patch::Patch>(d) {
                        out.push(PatchOf {
                            at,
                            file: file.clone(),
                            applied_last: p.applied_last,
                            patch: LayerPatch::Operations(ops),
                        });
                    }
                    continue;
                }
                let same_kind = d["kind"].as_str().is_none_or(|kd| kd == id.kind);
                let named = p.target.is_some() || d["metadata"]["name"].as_str() == Some(&id.name);
                if d.is_object() && same_kind && named {
                    out.push(PatchOf {
                        at,
                        file: file.clone(),
                        applied_last: p.applied_last,
                        patch: LayerPatch::Merge(d),
                    });
                }
            }
        }
        Ok(out)
    }

    /// Plans `patch` for policy `i` in the file its layer chose: the existing document edited
    /// in place, or a new patch file (listed in the kustomization by [`Layered::finish`]).
    pub fn edit(&mut self, i: usize, patch: &Patch) -> Result<(), EditError> {
        let p = &self.policies[i];
        self.check_below(p, patch)?;
        check_after(p, patch)?;
        match p.layer.edit.clone() {
            LayerEdit::Existing(f) => {
                let (kind, name) = (p.policy.kind, p.identity.name.clone());
                let listed_in = p.edited_at.map(|_| p.kustomization.clone());
                let m = self.manifest(&f).map_err(|e| EditError(e.to_string()))?;
                if m.broken {
                    return Err(EditError(
                        "the file has YAML problems (run `lint`); not editing it".into(),
                    ));
                }
                let doc = m
                    .inv
                    .policies()
                    .find(|q| q.kind == kind && q.meta.name == name)
                    .map(|q| q.doc)
                    .ok_or_else(|| EditError("the policy is no longer in the file".into()))?;
                m.edit(doc, patch)?;
                // A patch this tool created that no longer changes anything goes, listing and
                // all: the overlay is again what it was before the suspension.
                let spent = m.edited_text().is_some_and(|t| edit::is_spent_patch(&t));
                if let (true, Some(k)) = (spent, listed_in) {
                    m.deleted = true;
                    let name = f.file_name().map(|n| n.to_string_lossy().into_owned());
                    self.unlistings.entry(k).or_default().extend(name);
                }
                Ok(())
            }
            LayerEdit::NewPatch {
                file,
                kustomization,
            } => {
                let text = new_patch(&p.identity, patch)?;
                let name = file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                self.manifests
                    .insert(file.clone(), Manifest::create(file, text));
                self.listings.entry(kustomization).or_default().push(name);
                Ok(())
            }
        }
    }

    /// A patch of an overlay merges into what its bases write: the suspension it leaves must be
    /// the one asked for. Removing (or narrowing) a suspension a base writes cannot be done in
    /// the overlay without deleting it for every environment; that edit belongs in the base.
    fn check_below(&self, p: &LayerPolicy, patch: &Patch) -> Result<(), EditError> {
        let Some(new) = &patch.suspension else {
            return Ok(());
        };
        let in_own_patch = match &p.layer.edit {
            LayerEdit::NewPatch { .. } => true,
            LayerEdit::Existing(f) => f != &p.defined_in,
        };
        if !in_own_patch {
            return Ok(());
        }
        let written = new
            .as_ref()
            .map(|s| serde_json::to_value(s).unwrap_or(J::Null));
        let result = match (&p.below.0, &written) {
            (Some(b), Some(w)) => {
                let mut r = b.clone();
                layer::merge_patch(&mut r, w);
                Some(r)
            }
            (b, None) => b.clone(),
            (None, w) => w.clone(),
        };
        if result == written {
            return Ok(());
        }
        let (from, layer) = match &p.below.1 {
            Some(f) => (
                f.display().to_string(),
                f.parent()
                    .map_or(String::new(), |d| d.display().to_string()),
            ),
            None => ("a base".to_string(), "BASE".to_string()),
        };
        Err(EditError(format!(
            "spec.suspension is also written in {from}, below this overlay, and a patch here merges into it: change it in that layer (-f {layer}, every environment built on it) or by hand"
        )))
    }

    /// Every planned file: the kustomizations list their new patches (one edit each, checked:
    /// the file must hold what it held plus those entries), then all manifests with edits.
    pub fn finish(mut self) -> Result<Vec<Manifest>, FileError> {
        for (k, names) in std::mem::take(&mut self.listings) {
            let m = self.manifest(&k)?;
            let listed = list_patches(m, &names).map_err(|source| FileError::Verify {
                name: m.name.clone(),
                source,
            })?;
            m.edits.push(listed);
            m.edited = None;
        }
        for (k, names) in std::mem::take(&mut self.unlistings) {
            let m = self.manifest(&k)?;
            let unlisted = unlist_patches(m, &names).map_err(|source| FileError::Verify {
                name: m.name.clone(),
                source,
            })?;
            m.edits.extend(unlisted);
            m.edited = None;
        }
        let scans = self.scans;
        Ok(self
            .manifests
            .into_values()
            .filter(|m| !m.edits.is_empty() || m.deleted)
            .map(|mut m| {
                // Named as the user would name them, not as read from the repository's root.
                let scan = scans
                    .iter()
                    .find(|s| !s.here.as_os_str().is_empty() && m.path.starts_with(&s.root));
                if let Some(s) = scan {
                    m.name = s.shown(&m.path).display().to_string();
                }
                m
            })
            .collect())
    }
}

/// A policy a resource file defines: kind, name, namespace as written, document.
type Defined = (PolicyKind, String, Option<String>, usize);

/// Where a policy is defined: a resource file of some layer, and its document there.
struct Definition<'a> {
    file: &'a Path,
    doc: usize,
    kind: PolicyKind,
}

/// The name `dir` renders for `name` (each layer's `namePrefix` and `nameSuffix`, the outermost
/// outside), and the namespace the outermost `namespace:` sets. A controller `r` that applies
/// the layer puts its name prefix and suffix in place of the layer's own (both controllers
/// write theirs into the root's kustomization, see source::kustomize::mirror), and
/// substitutes its variables.
fn rendered_identity(
    repo: &Repository,
    dir: &Path,
    name: &str,
    r: Option<&Renamed>,
) -> (String, Option<String>) {
    let closure = repo.closure(dir);
    let field = |d: &PathBuf, key: &str| {
        repo.kustomizations[d]
            .field(key)
            .and_then(|(n, _)| n.as_str())
            .map(str::to_string)
    };
    // The layer's own is the closure's first (the outermost).
    let own = |key: &str, replaced: bool| -> Vec<String> {
        let skip = usize::from(replaced);
        closure
            .iter()
            .skip(skip)
            .filter_map(|d| field(d, key))
            .collect()
    };
    let (by_prefix, by_suffix) = r.map_or((None, None), |r| (r.prefix.clone(), r.suffix.clone()));
    let replaced = (by_prefix.is_some(), by_suffix.is_some());
    let prefix: String = by_prefix
        .into_iter()
        .chain(own("namePrefix", replaced.0))
        .collect();
    let suffix: String = own("nameSuffix", replaced.1)
        .into_iter()
        .rev()
        .chain(by_suffix)
        .collect();
    let namespace = closure.iter().find_map(|d| field(d, "namespace"));
    let rendered = format!("{prefix}{name}{suffix}");
    let rendered = r.map_or_else(|| rendered.clone(), |r| r.substituted(&rendered));
    (rendered, namespace)
}

/// `p` as the controller `r` that applies its layer renders it (see [`rendered_identity`]), in
/// the namespace it lands in.
fn rename_by_controller(p: &mut LayerPolicy, repo: &Repository, r: &Renamed) {
    let (name, namespace) = rendered_identity(repo, &p.dir, &p.identity.name, Some(r));
    p.rendered_name = name;
    let landing = r.namespace(
        namespace
            .or_else(|| p.identity.namespace.clone())
            .as_deref(),
    );
    p.namespace_written = landing.is_some();
    p.policy.meta.namespace = landing;
    p.renamed = true;
}

/// The edit must be the layer's last word on `spec.suspension`: a patch of the same layer that
/// kustomize applies after the edited file (a JSON 6902 patch after a new one in `patches:`,
/// any patch after the resource that defines the policy) would undo it in the render.
fn check_after(p: &LayerPolicy, patch: &Patch) -> Result<(), EditError> {
    if patch.suspension.is_none() {
        return Ok(());
    }
    let after: Vec<&Writer> = match (&p.layer.edit, p.edited_at) {
        (LayerEdit::NewPatch { .. }, _) => {
            p.own_writers.iter().filter(|w| w.applied_last).collect()
        }
        (LayerEdit::Existing(_), Some(at)) => p.own_writers.iter().filter(|w| w.at > at).collect(),
        // The resource that defines the policy: every patch of the layer comes after it.
        (LayerEdit::Existing(_), None) => p.own_writers.iter().collect(),
    };
    let Some(w) = after.last() else {
        return Ok(());
    };
    let edited = match &p.layer.edit {
        LayerEdit::NewPatch { file, .. } | LayerEdit::Existing(file) => file,
    };
    Err(EditError(format!(
        "spec.suspension is also written by {}, which kustomize applies after {} in this layer: the edit would not show in the render; change it there by hand",
        p.scan.shown(&w.file).display(),
        p.scan.shown(edited).display()
    )))
}

/// The string annotations of an object (as JSON).
fn annotations_of(object: &J) -> crate::model::StringMap {
    let pairs: Vec<(&str, &str)> = object["metadata"]["annotations"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
        .collect();
    crate::model::StringMap::from_pairs(pairs)
}

fn suspension_of(object: &J) -> Option<J> {
    object["spec"]
        .get("suspension")
        .filter(|s| !s.is_null())
        .cloned()
}

/// The text of a new patch for `patch` (a suspension; a freeze's record annotation with it).
fn new_patch(id: &PatchIdentity, patch: &Patch) -> Result<String, EditError> {
    let Some(Some(suspension)) = &patch.suspension else {
        return Err(EditError(
            "nothing to remove: this overlay does not write the suspension".into(),
        ));
    };
    let text = edit::new_patch_text(id, suspension);
    if patch.annotations.is_empty() {
        return Ok(text);
    }
    let loaded = load(Source::new("new patch", &text));
    let only_annotations = Patch {
        suspension: None,
        annotations: patch.annotations.clone(),
    };
    let edits = file::edits_for(&text, &loaded.documents[0].root, &only_annotations)?;
    Ok(edit::apply(&text, &edits))
}

/// The edits taking `names` off `patches:` of kustomization `m`, checked: parsed again, the file
/// says what it said without those `- path: NAME` entries (and without `patches:` when none is
/// left).
fn unlist_patches(m: &Manifest, names: &[String]) -> Result<Vec<edit::TextEdit>, EditError> {
    let before = load(Source::new(m.name.as_str(), &m.text));
    let root = &before
        .documents
        .first()
        .ok_or_else(|| EditError("the kustomization is empty".into()))?
        .root;
    let edits = edit::patch_unlist_edit(&m.text, root, names)?;
    let after = load(Source::new(m.name.as_str(), edit::apply(&m.text, &edits)));
    let mut expected = root.to_json();
    let kept: Vec<J> = expected["patches"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| {
            !names
                .iter()
                .any(|n| *p == &serde_json::json!({ "path": n }))
        })
        .cloned()
        .collect();
    match expected.as_object_mut() {
        Some(o) if kept.is_empty() => {
            o.remove("patches");
        }
        _ => expected["patches"] = J::Array(kept),
    }
    if !reads_as(&after, &before, expected) {
        return Err(EditError(
            "unlisting the spent patch would change the kustomization beyond `patches:`; remove it by hand, nothing was changed".into(),
        ));
    }
    Ok(edits)
}

/// Whether an edited kustomization, parsed again, holds what `expected` says and nothing else:
/// no new problem, as many documents as `before`, the first one equal to `expected`.
fn reads_as(after: &Loaded, before: &Loaded, expected: J) -> bool {
    after.problems.is_empty()
        && after.documents.len() == before.documents.len()
        && after.documents.first().map(|d| d.root.to_json()) == Some(expected)
}

/// The edit listing `names` under `patches:` of kustomization `m`, checked: parsed again, the
/// file says what it said plus `- path: NAME` entries.
fn list_patches(m: &Manifest, names: &[String]) -> Result<edit::TextEdit, EditError> {
    let before = load(Source::new(m.name.as_str(), &m.text));
    let root = &before
        .documents
        .first()
        .ok_or_else(|| EditError("the kustomization is empty".into()))?
        .root;
    let e = edit::patch_list_edit(&m.text, root, names)?;
    let after_text = edit::apply(&m.text, std::slice::from_ref(&e));
    let after = load(Source::new(m.name.as_str(), &after_text));
    let mut expected = root.to_json();
    let list = expected["patches"].take();
    let mut list = list.as_array().cloned().unwrap_or_default();
    list.extend(names.iter().map(|n| serde_json::json!({ "path": n })));
    expected["patches"] = J::Array(list);
    if !reads_as(&after, &before, expected) {
        return Err(EditError(
            "listing the new patch would change the kustomization beyond `patches:`; list it by hand, nothing was changed".into(),
        ));
    }
    Ok(e)
}
