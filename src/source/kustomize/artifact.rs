//! Which files of a repository are in the artifact Flux's source-controller makes of it.
//!
//! The kustomize-controller builds a Kustomization's `spec.path` from the artifact of its
//! source, not from the repository: the source-controller archives the checkout through a
//! filter (fluxcd/source-controller internal/controller/gitrepository_controller.go
//! `reconcileArtifact`, the same in ocirepository_controller.go; fluxcd/pkg
//! artifact/storage/archive.go `SourceIgnoreFilter`). Its patterns, in gitignore syntax
//! (fluxcd/pkg sourceignore/sourceignore.go):
//!
//! - `.sourceignore` files of every directory but `.git` (`LoadIgnorePatterns`), each relative
//!   to its own directory, shallower first, then `spec.ignore`, relative to the root; later
//!   patterns win;
//! - always the version-control files (`VCSPatterns`: `ExcludeVCS`);
//! - only when neither gave a pattern, the defaults (`NewDefaultMatcher`, `DefaultPatterns`:
//!   `ExcludeExt`, `ExcludeCI`, `ExcludeExtra`): one `.sourceignore` line, anywhere, or a
//!   `spec.ignore` line, switches them off, so a `cloudbuild.yaml` or a `.github/` is then in
//!   the artifact.
//!
//! A Bucket's artifact takes the patterns of the bucket's top `.sourceignore` and
//! `spec.ignore` only, without the others (bucket_controller.go `fetchEtagIndex`,
//! `Archive` without a filter).
//!
//! Each file of patterns is matched as git matches one (the `ignore` crate); between files the
//! later decides where it says anything of the path or a directory above it. The source-
//! controller's matcher (go-git's, copied into fluxcd/pkg sourceignore/gitignore) weighs every
//! pattern of all files in one list instead: they differ only where a file re-includes (`!`)
//! a path an earlier pattern of the same file excludes through its directory.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

/// The file of ignore patterns the source-controller reads in every directory.
const IGNORE_FILE: &str = ".sourceignore";

/// `ExcludeVCS` (fluxcd/pkg sourceignore/sourceignore.go): out of every artifact.
const EXCLUDE_VCS: &[&str] = &[".git/", ".gitignore", ".gitmodules", ".gitattributes"];

/// `ExcludeExt`, `ExcludeCI` and `ExcludeExtra` (fluxcd/pkg sourceignore/sourceignore.go):
/// out of the artifact while the repository gives no pattern of its own.
const DEFAULTS: &[&str] = &[
    "*.jpg",
    "*.jpeg",
    "*.gif",
    "*.png",
    "*.wmv",
    "*.flv",
    "*.tar.gz",
    "*.zip",
    ".github/",
    ".circleci/",
    ".travis.yml",
    ".gitlab-ci.yml",
    "appveyor.yml",
    ".drone.yml",
    "cloudbuild.yaml",
    "codeship-services.yml",
    "codeship-steps.yml",
    "**/.goreleaser.yml",
    "**/.sops.yaml",
    "**/.flux.yaml",
];

/// The kind of Flux source an artifact is made from, as far as its filter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// A GitRepository or an OCIRepository (extracted): every `.sourceignore`, the defaults.
    Repository,
    /// A Bucket: its top `.sourceignore` only, no defaults.
    Bucket,
}

impl SourceKind {
    /// The kind of a `sourceRef.kind` (empty: a GitRepository, Flux's default).
    pub fn of(kind: &str) -> SourceKind {
        match kind {
            "Bucket" => SourceKind::Bucket,
            _ => SourceKind::Repository,
        }
    }
}

/// The filter of one source's artifact: which paths under its root it holds.
#[derive(Debug)]
pub struct Artifact {
    /// The source's root, as the tool names paths.
    root: PathBuf,
    /// Pattern files from the lowest priority to the highest: the directory (relative to the
    /// root) the patterns are relative to, and the patterns.
    layers: Vec<(PathBuf, Gitignore)>,
}

impl Artifact {
    /// The filter of the artifact made of the source whose checkout is `root`, with the
    /// source's `spec.ignore` (`None`: not set).
    pub fn load(root: &Path, kind: SourceKind, spec_ignore: Option<&str>) -> Artifact {
        let mut own = Vec::new();
        match kind {
            SourceKind::Repository => ignore_files(root, Path::new(""), &mut own),
            SourceKind::Bucket => own.extend(read_ignore_file(root, Path::new(""))),
        }
        if let Some(text) = spec_ignore {
            own.extend(layer(Path::new(""), text.lines()));
        }
        let mut layers = Vec::new();
        if kind == SourceKind::Repository {
            layers.extend(layer(Path::new(""), EXCLUDE_VCS.iter().copied()));
            if own.is_empty() {
                layers.extend(layer(Path::new(""), DEFAULTS.iter().copied()));
            }
        }
        layers.extend(own);
        Artifact {
            root: root.to_path_buf(),
            layers,
        }
    }

    /// Whether the artifact holds `path` (a path under the root, named as the root is), a
    /// directory when `is_dir`.
    pub fn holds(&self, path: &Path, is_dir: bool) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return true;
        };
        for (dir, patterns) in self.layers.iter().rev() {
            let Ok(inside) = rel.strip_prefix(dir) else {
                continue;
            };
            match patterns.matched_path_or_any_parents(inside, is_dir) {
                Match::None => continue,
                Match::Ignore(_) => return false,
                Match::Whitelist(_) => return true,
            }
        }
        true
    }

    /// Every file of the artifact below `dir`, hidden ones too, sorted as a walk of the
    /// directory meets them; `.git` directories are not entered.
    pub fn files_under(&self, dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        walk(dir, &mut out);
        out.retain(|f| self.holds(f, false));
        out
    }
}

/// The `.sourceignore` files of `dir` (named `rel` under the root) and every directory below
/// it but `.git`, a directory's own before those below it, in the order of their names (as
/// `LoadIgnorePatterns` reads them; a link to a directory is not followed).
fn ignore_files(dir: &Path, rel: &Path, out: &mut Vec<(PathBuf, Gitignore)>) {
    out.extend(read_ignore_file(dir, rel));
    let Ok(entries) = std::fs::read_dir(super::as_dir(dir)) else {
        return;
    };
    let mut dirs: Vec<_> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && e.file_name() != ".git")
        .map(|e| e.file_name())
        .collect();
    dirs.sort();
    for name in dirs {
        ignore_files(&dir.join(&name), &rel.join(&name), out);
    }
}

/// The patterns of `dir`'s `.sourceignore`, if it has one with any.
fn read_ignore_file(dir: &Path, rel: &Path) -> Option<(PathBuf, Gitignore)> {
    let text = std::fs::read_to_string(dir.join(IGNORE_FILE)).ok()?;
    layer(rel, text.lines())
}

/// The patterns among `lines` (not blank, not a comment: `ReadPatterns`), relative to `rel`;
/// `None` when there is none.
fn layer<'a>(rel: &Path, lines: impl Iterator<Item = &'a str>) -> Option<(PathBuf, Gitignore)> {
    // Paths are handed over relative to `rel`, so the matcher's own root strips nothing.
    let mut builder = GitignoreBuilder::new(".");
    let mut any = false;
    for line in lines {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        // A line git cannot read as a pattern matches nothing for go-git either.
        any |= builder.add_line(None, line).is_ok();
    }
    let patterns = builder.build().ok()?;
    any.then(|| (rel.to_path_buf(), patterns))
}

/// The regular files below `dir`, sorted by name at every level, `.git` directories left
/// out. Links are not followed, to a file or a directory: the artifact holds regular files
/// and directories only ("Ignore anything that is not a file or directories e.g. symlinks",
/// fluxcd/pkg artifact/storage/archive.go `Archive`), and a link to a directory above would
/// never end.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(super::as_dir(dir)) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        // Joined, not `e.path()`: named as `dir` is (`apps/x.yaml`, never `./apps/x.yaml`).
        let path = dir.join(e.file_name());
        let Ok(kind) = e.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if e.file_name() != ".git" {
                walk(&path, out);
            }
        } else if kind.is_file() {
            out.push(path);
        }
    }
}

/// Whether `path` is a symbolic link (the artifact leaves links out, fluxcd/pkg `Archive`).
pub fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(test)]
mod tests {
    use super::{Artifact, SourceKind};
    use std::path::Path;

    fn repository(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    fn held(a: &Artifact, root: &Path, path: &str) -> bool {
        a.holds(&root.join(path), false)
    }

    /// Without a pattern of its own, the defaults leave CI files, archives and images out, at
    /// any depth (fluxcd/pkg sourceignore `DefaultPatterns`); the version-control files are
    /// always out (`VCSPatterns`).
    #[test]
    fn the_defaults_apply_while_the_repository_gives_no_pattern() {
        let dir = repository(&[("apps/.sourceignore", "# only a comment\n\n")]);
        let root = dir.path();
        let a = Artifact::load(root, SourceKind::Repository, None);
        for out in [
            "infra/cloudbuild.yaml",
            "appveyor.yml",
            "apps/codeship-services.yml",
            "apps/codeship-steps.yml",
            ".github/workflows/ci.yml",
            "apps/.circleci/config.yml",
            "apps/deep/.sops.yaml",
            ".goreleaser.yml",
            "apps/.gitignore",
            ".git/config",
            "logo.png",
        ] {
            assert!(!held(&a, root, out), "{out}");
        }
        for kept in [
            "apps/deploy.yaml",
            "apps/.settings.yaml",
            "apps/.overrides/takeover.yaml",
            "cloudbuild.yml",
        ] {
            assert!(held(&a, root, kept), "{kept}");
        }
    }

    /// One pattern in any `.sourceignore` or in `spec.ignore` switches the defaults off
    /// (fluxcd/pkg artifact/storage/archive.go `SourceIgnoreFilter`); the version-control
    /// files stay out.
    #[test]
    fn a_pattern_of_the_repository_replaces_the_defaults() {
        let dir = repository(&[("other/.sourceignore", "*.md\n")]);
        let root = dir.path();
        for (kind, spec) in [
            (SourceKind::Repository, None),
            (SourceKind::Repository, Some("/docs\n")),
        ] {
            let a = Artifact::load(root, kind, spec);
            assert!(held(&a, root, "infra/cloudbuild.yaml"));
            assert!(held(&a, root, "apps/.github/workflows/ci.yml"));
            assert!(held(&a, root, "apps/.sops.yaml"));
            assert!(!held(&a, root, ".git/HEAD"));
            assert!(!held(&a, root, "other/README.md"));
            assert!(
                held(&a, root, "apps/README.md"),
                "other/'s patterns are its own"
            );
        }
        let clean = repository(&[]);
        let a = Artifact::load(
            clean.path(),
            SourceKind::Repository,
            Some("/apps/values.yaml\n"),
        );
        assert!(held(&a, clean.path(), "infra/cloudbuild.yaml"));
        assert!(!held(&a, clean.path(), "apps/values.yaml"));
        assert!(held(&a, clean.path(), "other/apps/values.yaml"));
    }

    /// `.sourceignore` patterns are relative to their directory (`LoadIgnorePatterns`), those
    /// without a slash match at any depth below it; `spec.ignore` is relative to the root and
    /// wins over them; `!` takes a path back.
    #[test]
    fn ignore_files_are_relative_to_their_directory_and_spec_ignore_comes_last() {
        let dir = repository(&[
            (".sourceignore", "apps/values.yaml\n/*.md\n"),
            ("apps/.sourceignore", "values.yaml\n!keep/values.yaml\n"),
        ]);
        let root = dir.path();
        let a = Artifact::load(root, SourceKind::Repository, None);
        assert!(!held(&a, root, "apps/values.yaml"));
        assert!(!held(&a, root, "apps/eu/values.yaml"));
        assert!(held(&a, root, "apps/keep/values.yaml"));
        assert!(held(&a, root, "infra/values.yaml"));
        assert!(!held(&a, root, "README.md"));
        assert!(held(&a, root, "apps/README.md"));
        let a = Artifact::load(root, SourceKind::Repository, Some("apps/keep/\n"));
        assert!(!held(&a, root, "apps/keep/values.yaml"));
    }

    /// A Bucket's artifact: its top `.sourceignore` and `spec.ignore`, no defaults, no VCS
    /// patterns (fluxcd/source-controller bucket_controller.go `fetchEtagIndex`).
    #[test]
    fn a_bucket_reads_its_top_ignore_file_only() {
        let dir = repository(&[
            (".sourceignore", "a.yaml\n"),
            ("apps/.sourceignore", "b.yaml\n"),
        ]);
        let root = dir.path();
        let a = Artifact::load(root, SourceKind::Bucket, None);
        assert!(!held(&a, root, "apps/a.yaml"));
        assert!(held(&a, root, "apps/b.yaml"));
        assert!(held(&a, root, "cloudbuild.yaml"));
    }

    /// The files below a directory, hidden ones too, what the filter leaves out left out.
    #[test]
    fn the_files_under_a_directory_are_the_artifact_s() {
        let dir = repository(&[
            ("apps/a.yaml", ""),
            ("apps/.hidden/b.yaml", ""),
            ("apps/.c.yaml", ""),
            ("apps/cloudbuild.yaml", ""),
            ("apps/.github/ci.yml", ""),
        ]);
        let root = dir.path();
        let a = Artifact::load(root, SourceKind::Repository, None);
        let files: Vec<String> = a
            .files_under(&root.join("apps"))
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            files,
            ["apps/.c.yaml", "apps/.hidden/b.yaml", "apps/a.yaml"]
        );
    }

    /// Links are not in the artifact, and a link to a directory above is not walked round.
    #[cfg(unix)]
    #[test]
    fn links_are_left_out_and_never_walked() {
        let dir = repository(&[("apps/a.yaml", "")]);
        let root = dir.path();
        std::os::unix::fs::symlink(root.join("apps"), root.join("apps/loop")).unwrap();
        std::os::unix::fs::symlink(root.join("apps/a.yaml"), root.join("apps/b.yaml")).unwrap();
        let a = Artifact::load(root, SourceKind::Repository, None);
        let files: Vec<String> = a
            .files_under(&root.join("apps"))
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(files, ["apps/a.yaml"]);
        assert!(super::is_link(&root.join("apps/b.yaml")));
    }
}
