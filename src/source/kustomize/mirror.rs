//! A copy of the repository in which a root's own `namePrefix` / `nameSuffix` is the
//! controller's.
//!
//! Both GitOps controllers write their name prefix and suffix into the root's own
//! kustomization, replacing the one it has: Flux's kustomize-controller sets
//! `kus.NamePrefix` / `kus.NameSuffix` (fluxcd/pkg kustomize/kustomize_generator.go
//! `GenerateManifest`), Argo CD runs `kustomize edit set nameprefix|namesuffix` (argo-cd
//! util/kustomize/kustomize.go `Build`; kustomize commands/edit/set/set_name_prefix.go:
//! `m.NamePrefix = o.prefix`). The wrapper kustomization the tool builds through would stack
//! its prefix on the root's (`flux-dir-web` for `flux-web`). The root's kustomization can only
//! be edited where it lies (its relative paths name the repository around it; kustomize reads
//! only `kustomization.yaml`, `kustomization.yml` or `Kustomization` there), so the repository
//! is copied into a temporary directory, the copy's kustomization left without the field the
//! controller sets, and the wrapper (which sets it) built inside the copy. Bounded: a
//! repository above [`MAX_FILES`] files or [`MAX_BYTES`] is not copied.

use std::path::{Path, PathBuf};

use super::discover::kustomization_file;

/// At most this many files are copied.
pub const MAX_FILES: usize = 20_000;
/// At most this many bytes are copied.
pub const MAX_BYTES: u64 = 128 * 1024 * 1024;

/// The copy: where it is, and the repository it copies (both canonical).
pub struct Mirror {
    pub dir: tempfile::TempDir,
    pub copy: PathBuf,
    pub repository: PathBuf,
}

impl Mirror {
    /// `path` (canonical, inside the repository) in the copy.
    pub fn inside(&self, path: &Path) -> PathBuf {
        match path.strip_prefix(&self.repository) {
            Ok(rest) => self.copy.join(rest),
            Err(_) => path.to_path_buf(),
        }
    }
}

/// Why no copy could be made.
#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    #[error("the repository is too large to copy (over {MAX_FILES} files or {} MiB) to build {root} with the controller's name prefix or suffix in place of its own", MAX_BYTES / 1024 / 1024)]
    TooLarge { root: String },
    #[error(
        "cannot copy the repository to build it with the controller's name prefix or suffix: {0}"
    )]
    Io(#[from] std::io::Error),
}

/// The copy the kustomization in `dir` is built in when the controller sets `fields`
/// (`namePrefix`, `nameSuffix`): `None` when the kustomization sets none of them (the
/// wrapper alone is then faithful).
pub fn for_root(
    dir: &Path,
    fields: &[&str],
    repository: &Path,
) -> Result<Option<Mirror>, MirrorError> {
    let Some(file) = kustomization_file(dir) else {
        return Ok(None);
    };
    let own = std::fs::read_to_string(&file)?;
    let Some(json) = replaced(&own, fields) else {
        return Ok(None);
    };
    let repository = repository.canonicalize()?;
    let file_abs = file.canonicalize()?;
    if !file_abs.starts_with(&repository) {
        return Ok(None);
    }
    let temp = tempfile::Builder::new()
        .prefix("karmada-policy-render-")
        .tempdir()?;
    let copy = temp.path().canonicalize()?.join("repo");
    let mut budget = (MAX_FILES, MAX_BYTES);
    if !copy_tree(&repository, &copy, &mut budget)? {
        return Err(MirrorError::TooLarge {
            root: dir.display().to_string(),
        });
    }
    let mirror = Mirror {
        dir: temp,
        copy,
        repository,
    };
    // Written anew (the copy is a copy, never a link to the user's file): JSON is YAML.
    let target = mirror.inside(&file_abs);
    std::fs::remove_file(&target)?;
    std::fs::write(&target, json.to_string())?;
    Ok(Some(mirror))
}

/// The root's kustomization without the `fields` the controller replaces, as JSON; `None`
/// when it has none of them.
fn replaced(own: &str, fields: &[&str]) -> Option<serde_json::Value> {
    let root = crate::source::yaml::parse_roots(own).into_iter().next()?;
    let mut json = root.to_json();
    let map = json.as_object_mut()?;
    let removed = fields.iter().filter(|f| map.remove(**f).is_some()).count();
    (removed > 0).then_some(json)
}

/// Copies `from` to `to`, without `.git`; symbolic links are copied as links. `false` once the
/// budget (files, bytes) runs out.
fn copy_tree(from: &Path, to: &Path, budget: &mut (usize, u64)) -> std::io::Result<bool> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == ".git" {
            continue;
        }
        let (source, target) = (entry.path(), to.join(&name));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
            // No symlinks written elsewhere (as in a revision's checkout, source::git): the
            // renders read without them.
            #[cfg(not(unix))]
            let _ = target;
        } else if kind.is_dir() {
            if !copy_tree(&source, &target, budget)? {
                return Ok(false);
            }
        } else if kind.is_file() {
            let size = entry.metadata()?.len();
            if budget.0 == 0 || size > budget.1 {
                return Ok(false);
            }
            *budget = (budget.0 - 1, budget.1 - size);
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_fields_the_controller_sets_are_replaced() {
        let own = "namePrefix: dir-\nnameSuffix: -x\nresources: [all.yaml]\n";
        assert_eq!(
            replaced(own, &["namePrefix"]),
            Some(serde_json::json!({"nameSuffix": "-x", "resources": ["all.yaml"]}))
        );
        assert_eq!(
            replaced(own, &["nameSuffix"]),
            Some(serde_json::json!({"namePrefix": "dir-", "resources": ["all.yaml"]}))
        );
        assert_eq!(replaced(own, &[]), None);
        assert_eq!(replaced("resources: [all.yaml]\n", &["namePrefix"]), None);
    }
}
