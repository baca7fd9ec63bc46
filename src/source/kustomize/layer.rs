//! Which layer of a kustomize tree `suspend -f DIR` / `resume -f DIR` edits (issue 19): the one
//! the user targets. An overlay changes only itself: the patch it already holds for the policy,
//! else a new strategic-merge patch file listed in its `kustomization.yaml`; never its base or a
//! sibling overlay. A base is edited where the policy is written, and the answer names every
//! environment (root) that renders it. Pure: what files hold is asked through a callback, so
//! the decision is tested without a file system.

use std::path::{Path, PathBuf};

use super::discover::{kustomization_file, Repository};
use super::{normalize, PatchBody};

/// What to edit for one policy in one targeted kustomization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayerEdit {
    /// A file of the targeted layer that already writes the policy: its own resource file (a
    /// base) or its patch file for the policy (an overlay).
    Existing(PathBuf),
    /// No file of the layer writes the policy: a new strategic-merge patch `file`, listed under
    /// `patches:` of `kustomization` (both inside the targeted directory).
    NewPatch {
        file: PathBuf,
        kustomization: PathBuf,
    },
}

/// The decision, and the environments (roots) whose render the edit changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub edit: LayerEdit,
    pub environments: Vec<PathBuf>,
}

/// Why no layer can be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayerError {
    #[error("{}: not a kustomization directory (no kustomization.yaml)", dir.display())]
    NotAKustomization { dir: PathBuf },
    #[error("{kind}/{name} is not rendered by {}: neither its resources nor its bases define it", dir.display())]
    NotRendered {
        dir: PathBuf,
        kind: String,
        name: String,
    },
}

/// The policy an edit is for, as written in the sources (before `namePrefix`/`nameSuffix`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyName<'a> {
    pub kind: &'a str,
    pub name: &'a str,
}

/// Picks the file to edit in the kustomization at `dir` for `policy`. `writes(file)` says
/// whether a source file holds a document of that kind and name (a resource or an SMP patch);
/// `exists(path)` whether a path is taken (the new patch's name must be free).
pub fn choose(
    repo: &Repository,
    dir: &Path,
    policy: &PolicyName<'_>,
    writes: &dyn Fn(&Path) -> bool,
    exists: &dyn Fn(&Path) -> bool,
) -> Result<Layer, LayerError> {
    let Some(k) = repo.kustomizations.get(dir) else {
        return Err(LayerError::NotAKustomization {
            dir: dir.to_path_buf(),
        });
    };
    let environments = repo.roots_including(dir);
    // The layer's own definition first (a base), then a patch of this layer for the policy.
    // A file outside the directory (`../common/patch.yaml`) may be shared with siblings: it is
    // never edited for this layer, which gets a patch of its own instead.
    let inside = |f: &Path| f.starts_with(dir);
    let own = k.resource_files.iter().find(|f| inside(f) && writes(f));
    let patched = k.patches.iter().find_map(|p| match &p.body {
        PatchBody::File(f)
            if inside(f)
                && p.target
                    .as_ref()
                    .is_none_or(|t| t.matches(policy.kind, policy.name))
                && writes(f) =>
        {
            Some(f)
        }
        _ => None,
    });
    if let Some(f) = own.or(patched) {
        return Ok(Layer {
            edit: LayerEdit::Existing(f.clone()),
            environments,
        });
    }
    // An overlay: the policy must come from one of its bases (or a file it lists from outside).
    let from_base = repo
        .closure(dir)
        .iter()
        .filter_map(|d| repo.kustomizations.get(d))
        .any(|b| b.resource_files.iter().any(|f| writes(f)));
    if !from_base {
        return Err(LayerError::NotRendered {
            dir: dir.to_path_buf(),
            kind: policy.kind.to_string(),
            name: policy.name.to_string(),
        });
    }
    Ok(Layer {
        edit: LayerEdit::NewPatch {
            file: free_name(dir, policy, exists),
            kustomization: k.file.clone(),
        },
        environments,
    })
}

/// `suspend-<kind>-<name>.yaml` in `dir`, numbered when taken.
fn free_name(dir: &Path, policy: &PolicyName<'_>, exists: &dyn Fn(&Path) -> bool) -> PathBuf {
    let short = match policy.kind {
        "ClusterPropagationPolicy" => "cpp",
        _ => "pp",
    };
    let stem = format!("suspend-{short}-{}", policy.name);
    let mut candidate = dir.join(format!("{stem}.yaml"));
    let mut n = 2;
    while exists(&candidate) {
        candidate = dir.join(format!("{stem}-{n}.yaml"));
        n += 1;
    }
    candidate
}

/// The kustomization directory a `-f` input targets: the directory itself when it holds a
/// kustomization, or the directory of a file beside one (`-f overlays/prod/kustomization.yaml`).
/// `None`: a plain manifest input, edited as it is.
pub fn layer_dir(input: &Path) -> Option<PathBuf> {
    let dir = if input.is_dir() {
        input
    } else {
        input.parent().filter(|p| !p.as_os_str().is_empty())?
    };
    let file = kustomization_file(dir)?;
    // A Flux `Kustomization` object of that name is not a kustomize layer.
    let text = std::fs::read_to_string(&file).ok()?;
    (!text.contains("kustomize.toolkit.fluxcd.io")).then(|| normalize(dir))
}

/// Where the environments of a layer are looked for, and how its paths read from there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// The repository: the nearest directory above the layer holding `.git` (above the working
    /// directory too), else the working directory (for a path inside it) or the layer itself.
    pub root: PathBuf,
    /// The layer as a path from `root`'s point of view (what discovery names it).
    pub layer: PathBuf,
    /// The working directory as discovery names it when `root` lies above it (`../../a/b`):
    /// stripped from a path to show it as the user would name it.
    pub here: PathBuf,
}

impl Scan {
    /// `path` as the user would name it, from the working directory (`.` for that directory).
    pub fn shown(&self, path: &Path) -> PathBuf {
        let out = if self.here.as_os_str().is_empty() {
            path.to_path_buf()
        } else {
            let here: Vec<_> = self.here.components().collect();
            let path: Vec<_> = path.components().collect();
            let common = here.iter().zip(&path).take_while(|(a, b)| a == b).count();
            let mut out: PathBuf = std::iter::repeat_n("..", here.len() - common).collect();
            out.extend(&path[common..]);
            out
        };
        if out.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            out
        }
    }
}

/// Where to read the repository around `layer` (a normalized path, as the user named it).
pub fn scan(layer: &Path) -> Scan {
    let lexical = |root: &Path| Scan {
        root: root.to_path_buf(),
        layer: layer.to_path_buf(),
        here: PathBuf::new(),
    };
    let has_git = |p: &Path| {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        p.join(".git").exists()
    };
    if let Some(found) = layer.ancestors().find(|a| has_git(a)) {
        return lexical(if found.as_os_str().is_empty() {
            Path::new(".")
        } else {
            found
        });
    }
    if layer.is_absolute() {
        return lexical(layer);
    }
    // Above the working directory: the layer and the working directory seen from there.
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .unwrap_or_default();
    if let Some(a) = super::git_work_tree(&cwd).filter(|a| *a != cwd) {
        let tail = cwd.strip_prefix(a).unwrap_or(Path::new(""));
        let root: PathBuf = std::iter::repeat_n("..", tail.components().count()).collect();
        let here = normalize(&root.join(tail));
        return Scan {
            layer: normalize(&here.join(layer)),
            root,
            here,
        };
    }
    lexical(Path::new("."))
}

/// The kustomization directories whose patches reach `dir`'s render, in the order kustomize
/// applies them: the innermost base first, `dir` last.
pub fn application_order(repo: &Repository, dir: &Path) -> Vec<PathBuf> {
    let mut order = repo.closure(dir);
    order.reverse();
    order
}

/// A strategic-merge patch on an object of a type without patch strategies (a custom resource,
/// as kustomize treats Karmada's): maps merge key by key, anything else replaces, `null`
/// deletes. The RFC 7386 merge patch.
pub fn merge_patch(target: &mut serde_json::Value, patch: &serde_json::Value) {
    use serde_json::Value as J;
    let J::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = J::Object(serde_json::Map::new());
    }
    let Some(t) = target.as_object_mut() else {
        return;
    };
    for (k, v) in p {
        if v.is_null() {
            t.remove(k);
        } else {
            merge_patch(t.entry(k.clone()).or_insert(J::Null), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::kustomize::discover::discover;

    /// base (policy.yaml), overlays prod (patch for the policy) and staging (no patch).
    fn tree() -> (tempfile::TempDir, Repository) {
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, t).unwrap();
        };
        w("base/kustomization.yaml", "resources:\n  - policy.yaml\n");
        w(
            "base/policy.yaml",
            "kind: PropagationPolicy\nmetadata:\n  name: web\n",
        );
        w(
            "overlays/prod/kustomization.yaml",
            "resources:\n  - ../../base\npatches:\n  - path: placement.yaml\n",
        );
        w(
            "overlays/prod/placement.yaml",
            "kind: PropagationPolicy\nmetadata:\n  name: web\n",
        );
        w(
            "overlays/staging/kustomization.yaml",
            "resources:\n  - ../../base\n",
        );
        let files =
            crate::source::files::expand(&[dir.path().display().to_string()], &|_| false).unwrap();
        let repo = discover(&files);
        (dir, repo)
    }

    fn writes_web(p: &Path) -> bool {
        std::fs::read_to_string(p).is_ok_and(|t| t.contains("name: web"))
    }

    const WEB: PolicyName<'static> = PolicyName {
        kind: "PropagationPolicy",
        name: "web",
    };

    #[test]
    fn an_overlay_with_a_patch_for_the_policy_edits_that_patch_only() {
        let (dir, repo) = tree();
        let prod = dir.path().join("overlays/prod");
        let layer = choose(&repo, &prod, &WEB, &writes_web, &|p| p.exists()).unwrap();
        assert_eq!(layer.edit, LayerEdit::Existing(prod.join("placement.yaml")));
        assert_eq!(layer.environments, vec![prod]);
    }

    #[test]
    fn an_overlay_without_one_gets_a_new_patch_listed_in_its_kustomization() {
        let (dir, repo) = tree();
        let staging = dir.path().join("overlays/staging");
        let taken = staging.join("suspend-pp-web.yaml");
        let layer = choose(&repo, &staging, &WEB, &writes_web, &|p| p == taken).unwrap();
        assert_eq!(
            layer.edit,
            LayerEdit::NewPatch {
                file: staging.join("suspend-pp-web-2.yaml"),
                kustomization: staging.join("kustomization.yaml"),
            }
        );
        assert_eq!(layer.environments, vec![staging]);
    }

    #[test]
    fn the_base_is_edited_in_place_and_names_every_environment() {
        let (dir, repo) = tree();
        let base = dir.path().join("base");
        let layer = choose(&repo, &base, &WEB, &writes_web, &|p| p.exists()).unwrap();
        assert_eq!(layer.edit, LayerEdit::Existing(base.join("policy.yaml")));
        let mut envs = layer.environments;
        envs.sort();
        assert_eq!(
            envs,
            vec![
                dir.path().join("overlays/prod"),
                dir.path().join("overlays/staging")
            ]
        );
    }

    #[test]
    fn a_patch_shared_from_outside_the_overlay_is_not_edited_for_it() {
        let (dir, _) = tree();
        let w = |p: &str, t: &str| {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, t).unwrap();
        };
        w(
            "common/web.yaml",
            "kind: PropagationPolicy\nmetadata:\n  name: web\n",
        );
        w(
            "overlays/staging/kustomization.yaml",
            "resources:\n  - ../../base\npatches:\n  - path: ../../common/web.yaml\n",
        );
        let files =
            crate::source::files::expand(&[dir.path().display().to_string()], &|_| false).unwrap();
        let repo = discover(&files);
        let staging = dir.path().join("overlays/staging");
        let layer = choose(&repo, &staging, &WEB, &writes_web, &|p| p.exists()).unwrap();
        assert_eq!(
            layer.edit,
            LayerEdit::NewPatch {
                file: staging.join("suspend-pp-web.yaml"),
                kustomization: staging.join("kustomization.yaml"),
            }
        );
    }

    #[test]
    fn a_policy_the_layer_does_not_render_and_a_plain_directory_are_errors() {
        let (dir, repo) = tree();
        let other = PolicyName {
            kind: "PropagationPolicy",
            name: "api",
        };
        let staging = dir.path().join("overlays/staging");
        let no = |_: &Path| false;
        assert!(matches!(
            choose(&repo, &staging, &other, &no, &no),
            Err(LayerError::NotRendered { .. })
        ));
        assert!(matches!(
            choose(&repo, dir.path(), &WEB, &writes_web, &no),
            Err(LayerError::NotAKustomization { .. })
        ));
    }

    #[test]
    fn a_patch_merges_maps_replaces_lists_and_deletes_nulls() {
        let mut base = serde_json::json!({"spec": {"placement": {"clusterAffinity": {"clusterNames": ["a"]}}, "priority": 1}});
        let patch = serde_json::json!({"spec": {"placement": {"clusterAffinity": {"clusterNames": ["b", "c"]}}, "priority": null, "suspension": {"dispatching": true}}});
        merge_patch(&mut base, &patch);
        assert_eq!(
            base,
            serde_json::json!({"spec": {"placement": {"clusterAffinity": {"clusterNames": ["b", "c"]}}, "suspension": {"dispatching": true}}})
        );
    }

    #[test]
    fn a_layer_is_a_kustomization_directory_or_a_file_beside_one() {
        let (dir, _) = tree();
        let prod = dir.path().join("overlays/prod");
        assert_eq!(layer_dir(&prod), Some(normalize(&prod)));
        assert_eq!(
            layer_dir(&prod.join("placement.yaml")),
            Some(normalize(&prod))
        );
        assert_eq!(layer_dir(dir.path()), None);
    }

    #[test]
    fn paths_read_from_above_the_working_directory_are_shown_from_it() {
        let scan = Scan {
            root: PathBuf::from("../../.."),
            layer: PathBuf::from("../../../apps/web/base"),
            here: PathBuf::from("../../../apps/web/base"),
        };
        assert_eq!(scan.shown(&scan.layer), PathBuf::from("."));
        assert_eq!(
            scan.shown(Path::new("../../../apps/web/base/policy.yaml")),
            PathBuf::from("policy.yaml")
        );
        assert_eq!(
            scan.shown(Path::new("../../../apps/web/overlays/prod")),
            PathBuf::from("../overlays/prod")
        );
        assert_eq!(Scan::default().shown(Path::new("")), PathBuf::from("."));
    }
}
