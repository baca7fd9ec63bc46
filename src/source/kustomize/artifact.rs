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
//! The patterns are matched as the source-controller's matcher matches them (go-git's, copied
//! into fluxcd/pkg sourceignore/gitignore): one list, read from the last pattern back, the
//! first that matches the path or a directory above it deciding. That is not git's own rule:
//! `/*` then `!/clusters/prod` keeps `clusters/prod/` in the artifact, though git cannot take a
//! path back from an excluded directory (keiretsu-labs/kubernetes-manifests relies on it).

use std::path::{Path, PathBuf};

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
    /// Every pattern, from the lowest priority to the highest.
    patterns: Vec<Pattern>,
}

impl Artifact {
    /// The filter of the artifact made of the source whose checkout is `root`, with the
    /// source's `spec.ignore` (`None`: not set).
    pub fn load(root: &Path, kind: SourceKind, spec_ignore: Option<&str>) -> Artifact {
        let mut own = Vec::new();
        match kind {
            SourceKind::Repository => ignore_files(root, &[], &mut own),
            SourceKind::Bucket => own.extend(read_ignore_file(root, &[])),
        }
        if let Some(text) = spec_ignore {
            own.extend(read_patterns(text, &[]));
        }
        let mut patterns = Vec::new();
        if kind == SourceKind::Repository {
            patterns.extend(EXCLUDE_VCS.iter().map(|p| Pattern::parse(p, &[])));
            if own.is_empty() {
                patterns.extend(DEFAULTS.iter().map(|p| Pattern::parse(p, &[])));
            }
        }
        patterns.extend(own);
        Artifact {
            root: root.to_path_buf(),
            patterns,
        }
    }

    /// Whether the artifact holds `path` (a path under the root, named as the root is), a
    /// directory when `is_dir` (go-git's `Matcher.Match`: the last pattern that matches
    /// decides).
    pub fn holds(&self, path: &Path, is_dir: bool) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return true;
        };
        let parts: Vec<String> = rel
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        for p in self.patterns.iter().rev() {
            match p.matches(&parts, is_dir) {
                Verdict::NoMatch => continue,
                Verdict::Exclude => return false,
                Verdict::Include => return true,
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

/// What one pattern says of a path (fluxcd/pkg sourceignore/gitignore/pattern.go
/// `MatchResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    NoMatch,
    Exclude,
    Include,
}

/// One pattern line, as go-git's `ParsePattern` reads it: relative to its file's directory
/// (`domain`), `!` taking paths back, a trailing `/` for directories only, and anchored when
/// it holds a `/` (then matched part by part from the domain), else a name matched at any
/// depth.
#[derive(Debug)]
struct Pattern {
    domain: Vec<String>,
    parts: Vec<Part>,
    inclusion: bool,
    dir_only: bool,
    is_glob: bool,
}

impl Pattern {
    fn parse(line: &str, domain: &[String]) -> Pattern {
        let (inclusion, rest) = match line.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        // Trailing spaces go, but an escaped one.
        let rest = if rest.ends_with("\\ ") {
            rest
        } else {
            rest.trim_end_matches(' ')
        };
        let (dir_only, rest) = match rest.strip_suffix('/') {
            Some(rest) => (true, rest),
            None => (false, rest),
        };
        Pattern {
            domain: domain.to_vec(),
            parts: rest.split('/').map(Part::new).collect(),
            inclusion,
            dir_only,
            is_glob: rest.contains('/'),
        }
    }

    /// `pattern.Match`: the path must lie below the domain, then match.
    fn matches(&self, path: &[&str], is_dir: bool) -> Verdict {
        if path.len() <= self.domain.len() || self.domain.iter().zip(path).any(|(d, p)| d != p) {
            return Verdict::NoMatch;
        }
        let path = &path[self.domain.len()..];
        let matched = if self.is_glob {
            self.glob_match(path, is_dir)
        } else {
            self.simple_name_match(path, is_dir)
        };
        match (matched, self.inclusion) {
            (false, _) => Verdict::NoMatch,
            (true, true) => Verdict::Include,
            (true, false) => Verdict::Exclude,
        }
    }

    /// A name pattern: any part of the path; a directory-only one not the path's last part
    /// unless it is a directory (`simpleNameMatch`).
    fn simple_name_match(&self, path: &[&str], is_dir: bool) -> bool {
        for (i, name) in path.iter().enumerate() {
            match self.parts[0].matches(name) {
                None => return false,
                Some(false) => continue,
                Some(true) => return !(self.dir_only && !is_dir && i == path.len() - 1),
            }
        }
        false
    }

    /// An anchored pattern, part by part from the start of the path, `**` matching any number
    /// of directories; a path longer than the pattern matches below it (`globMatch`).
    fn glob_match(&self, mut path: &[&str], is_dir: bool) -> bool {
        let mut matched = false;
        let mut traverse = false;
        for (i, part) in self.parts.iter().enumerate() {
            if part.text.is_empty() {
                traverse = false;
                continue;
            }
            if part.text == "**" {
                if i == self.parts.len() - 1 {
                    break;
                }
                traverse = true;
                continue;
            }
            if part.text.contains("**") || path.is_empty() {
                return false;
            }
            if traverse {
                traverse = false;
                while let Some((first, rest)) = path.split_first() {
                    path = rest;
                    match part.matches(first) {
                        None => return false,
                        Some(true) => {
                            matched = true;
                            break;
                        }
                        Some(false) if path.is_empty() => matched = false,
                        Some(false) => {}
                    }
                }
            } else {
                if part.matches(path[0]) != Some(true) {
                    return false;
                }
                matched = true;
                path = &path[1..];
            }
        }
        // A directory-only pattern that ends on the path's last part names no file.
        matched && !(self.dir_only && !is_dir && path.is_empty())
    }
}

/// One part of a pattern (between `/`), compiled once as Go's `filepath.Match` reads it.
#[derive(Debug)]
struct Part {
    text: String,
    /// `None`: malformed, which Go refuses (`ErrBadPattern`) and go-git then takes as no
    /// match.
    atoms: Option<Vec<Atom>>,
}

#[derive(Debug)]
enum Atom {
    /// `*`: any run of characters.
    Star,
    /// `?`: one character.
    Any,
    /// `[...]`: one character in (or, `^`, out of) the ranges.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    /// A character, or one escaped with `\\`.
    Char(char),
}

impl Atom {
    fn accepts(&self, ch: char) -> bool {
        match self {
            Atom::Star | Atom::Any => true,
            Atom::Class { negated, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= ch && ch <= hi) != *negated
            }
            Atom::Char(c) => *c == ch,
        }
    }
}

impl Part {
    fn new(text: &str) -> Part {
        Part {
            text: text.to_string(),
            atoms: compile(text),
        }
    }

    /// `filepath.Match(part, name)`: `None` for a malformed part. Matched with one restart
    /// point, the last `*` (the classic wildcard match), so a pattern of many stars stays
    /// linear in the name, whatever the repository writes.
    fn matches(&self, name: &str) -> Option<bool> {
        let atoms = self.atoms.as_deref()?;
        let name: Vec<char> = name.chars().collect();
        let (mut a, mut n) = (0, 0);
        let mut restart: Option<(usize, usize)> = None;
        while n < name.len() {
            match atoms.get(a) {
                Some(Atom::Star) => {
                    restart = Some((a + 1, n));
                    a += 1;
                    continue;
                }
                Some(atom) if atom.accepts(name[n]) => {
                    (a, n) = (a + 1, n + 1);
                    continue;
                }
                _ => {}
            }
            let Some((after_star, from)) = restart else {
                return Some(false);
            };
            restart = Some((after_star, from + 1));
            (a, n) = (after_star, from + 1);
        }
        Some(atoms[a..].iter().all(|x| matches!(x, Atom::Star)))
    }
}

/// The atoms of a part, or `None` when Go's `filepath.Match` finds it malformed anywhere in it
/// (an unclosed class, a trailing `\\`).
fn compile(pattern: &str) -> Option<Vec<Atom>> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut atoms = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let atom = match chars[i] {
            '*' => Atom::Star,
            '?' => Atom::Any,
            '\\' => {
                i += 1;
                Atom::Char(*chars.get(i)?)
            }
            '[' => {
                let (class, next) = class_at(&chars, i + 1)?;
                atoms.push(class);
                i = next;
                continue;
            }
            c => Atom::Char(c),
        };
        atoms.push(atom);
        i += 1;
    }
    Some(atoms)
}

/// A character class from just after its `[`, and where what follows its `]` starts (Go's
/// `matchChunk`: `^` negates, then ranges `lo` or `lo-hi` until a `]` after at least one).
fn class_at(chars: &[char], mut i: usize) -> Option<(Atom, usize)> {
    let negated = chars.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    loop {
        if chars.get(i) == Some(&']') && !ranges.is_empty() {
            return Some((Atom::Class { negated, ranges }, i + 1));
        }
        let (lo, next) = class_char(chars, i)?;
        i = next;
        let hi = if chars[i] == '-' {
            let (hi, next) = class_char(chars, i + 1)?;
            i = next;
            hi
        } else {
            lo
        };
        ranges.push((lo, hi));
    }
}

/// Go's `getEsc`: one character of a class, escaped or not; `-` and `]` cannot start one, and
/// the class must go on after it.
fn class_char(chars: &[char], mut i: usize) -> Option<(char, usize)> {
    match chars.get(i)? {
        '-' | ']' => return None,
        '\\' => i += 1,
        _ => {}
    }
    let c = *chars.get(i)?;
    (i + 1 < chars.len()).then_some((c, i + 1))
}

/// The patterns of the `.sourceignore` files of `dir` (whose parts under the root are
/// `domain`) and every directory below it but `.git`, a directory's own before those below
/// it, in the order of their names (`LoadIgnorePatterns`; a link is not followed).
fn ignore_files(dir: &Path, domain: &[String], out: &mut Vec<Pattern>) {
    out.extend(read_ignore_file(dir, domain));
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
        let mut below = domain.to_vec();
        below.push(name.to_string_lossy().into_owned());
        ignore_files(&dir.join(&name), &below, out);
    }
}

/// The patterns of `dir`'s `.sourceignore`, if it has one.
fn read_ignore_file(dir: &Path, domain: &[String]) -> Vec<Pattern> {
    std::fs::read_to_string(dir.join(IGNORE_FILE))
        .map(|text| read_patterns(&text, domain))
        .unwrap_or_default()
}

/// The patterns of `text`: every line but blank ones and comments (`ReadPatterns`).
fn read_patterns(text: &str, domain: &[String]) -> Vec<Pattern> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| Pattern::parse(l, domain))
        .collect()
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

    /// go-git's rule, not git's: the last pattern that matches the path or a directory above it
    /// decides, so `!/clusters/prod` takes back what `/*` left out (as
    /// keiretsu-labs/kubernetes-manifests' GitRepository `spec.ignore` does).
    #[test]
    fn a_later_pattern_takes_back_what_an_excluded_directory_holds() {
        let dir = repository(&[]);
        let root = dir.path();
        let a = Artifact::load(
            root,
            SourceKind::Repository,
            Some("# exclude all\n/*\n# include the cluster\n!/clusters/prod\n"),
        );
        assert!(held(&a, root, "clusters/prod/apps/gatus/ks.yaml"));
        assert!(!held(&a, root, "clusters/staging/apps/ks.yaml"));
        assert!(!held(&a, root, "README.md"));
        let a = Artifact::load(
            root,
            SourceKind::Repository,
            Some("apps/**/secret*.yaml\nlogs/\n[ab]?.yaml\n"),
        );
        assert!(!held(&a, root, "apps/eu/prod/secret-db.yaml"));
        assert!(held(&a, root, "infra/apps/secret.yaml"));
        assert!(!held(&a, root, "x/logs/a.yaml"));
        assert!(
            held(&a, root, "x/logs"),
            "a directory pattern names no file"
        );
        assert!(!held(&a, root, "deep/b1.yaml"));
        assert!(held(&a, root, "deep/c1.yaml"));
    }

    /// Go's `filepath.Match` of one part.
    #[test]
    fn parts_match_as_go_matches_them() {
        let go_match = |pattern: &str, name: &str| super::Part::new(pattern).matches(name);
        for (pattern, name, want) in [
            ("*.yaml", "a.yaml", Some(true)),
            ("*.yaml", "a.yml", Some(false)),
            ("a?c", "abc", Some(true)),
            ("[^a]*", "bcd", Some(true)),
            ("[^a]*", "abc", Some(false)),
            ("[a-c]x", "bx", Some(true)),
            ("\\*", "*", Some(true)),
            ("\\*", "a", Some(false)),
            ("[a", "a", None),
            ("[]a]", "]", None),
            ("[a-]", "a", None),
            ("a\\", "a", None),
            ("[z-a]", "b", Some(false)),
            ("*a*b*c", "xaybzc", Some(true)),
            ("*a*b*c", "xaybzcd", Some(false)),
            ("?", "", Some(false)),
            ("*", "", Some(true)),
        ] {
            assert_eq!(go_match(pattern, name), want, "{pattern} {name}");
        }
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
