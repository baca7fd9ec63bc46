//! Where a failed build is reported: the line to edit, never the tool's temporary wrapper.
//!
//! kustomize says what failed in one long message (`accumulating resources from 'pp.yaml':
//! MalformedYAMLError: yaml: line 7: ...`). A file of the build that is not valid YAML is
//! reported at its broken line, as the parser sees it; a path the message quotes is reported
//! where a kustomization of the build names it; a refused path where it is named. Only what
//! none of these places is goes to the root's kustomization file.

use std::path::{Path, PathBuf};

use super::discover::{kustomization_file, Repository};
use super::render::RenderError;
use crate::source::{files, Node, ProblemKind, Span};

/// A root or chart that did not render: where to report it and why.
#[derive(Debug, Clone)]
pub struct RenderFailure {
    pub file: PathBuf,
    /// The line to edit, when the message names one (else the file's first line).
    pub span: Span,
    pub message: String,
    pub kind: FailureKind,
    /// A digest of the local files the build would read ([`inputs_digest`]): two revisions
    /// whose root failed alike over the same files hold the same objects there, rendered or
    /// not. 0 when not taken.
    pub inputs: u64,
    /// The name the root's output would have had ([`super::units::output_name`]): its
    /// objects' documents carry it on the side where it rendered.
    pub output: String,
    /// The build's other broken files (not valid YAML, or unrendered templating), each at its
    /// first problem: kustomize stops at the first, and fixing it would only show the next.
    pub also: Vec<(PathBuf, Span, String)>,
}

/// At most this many files are read for one digest; a larger tree has none (0), and its
/// root is never taken for unchanged.
const MAX_DIGEST_FILES: usize = 5_000;

/// What the build of the kustomization in `dir` reads of the repository at `root`: the
/// directories of every kustomization it builds on, and every file they name, wherever it lies
/// in the repository (`../shared/pp.yaml`). What leads outside it (a link out of the
/// repository) is left out: a checkout of the revision elsewhere (Flux's, or the tree a git
/// mode writes) does not have it, and the build is refused for it whatever it holds, so the
/// same tree digests alike in the working tree and in a revision.
pub fn build_reads(repo: &Repository, dir: &Path, root: &Path) -> Vec<PathBuf> {
    let closure = repo.closure(dir);
    let named = closure
        .iter()
        .filter_map(|d| repo.kustomizations.get(d))
        .flat_map(|k| k.files.iter().cloned());
    let mut reads: Vec<PathBuf> = named.collect();
    reads.extend(closure);
    let cwd = std::env::current_dir().unwrap_or_default();
    let root = super::resolve_links(&cwd.join(root));
    reads.retain(|p| super::resolve_links(&cwd.join(p)).starts_with(&root));
    reads
}

/// A digest of `paths`, a directory's every file recursively (generator inputs, a chart's
/// templates and `files/`), names and bytes, in a stable order (a path that does not exist
/// counts as absent); 0 when one cannot be read or there are too many.
pub fn inputs_digest(paths: &[PathBuf]) -> u64 {
    use std::hash::{Hash, Hasher};
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() && entry.file_name() != ".git" {
                walk(&entry.path(), out)?;
            } else if kind.is_file() {
                out.push(entry.path());
            }
            if out.len() > MAX_DIGEST_FILES {
                return Err(std::io::ErrorKind::FileTooLarge.into());
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    let mut links = Vec::new();
    let mut absent = Vec::new();
    for p in paths {
        let meta = std::fs::symlink_metadata(p);
        // A named link is read as where it points, never followed: what it leads to may be
        // outside the repository, and a revision's tree written elsewhere keeps only the link.
        if meta.as_ref().is_ok_and(|m| m.file_type().is_symlink()) {
            links.push(p.clone());
        } else if meta
            .as_ref()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        {
            // A file the kustomization names that is not there (often why the build failed):
            // absent on both sides is the same input.
            absent.push(p.clone());
        } else if p.is_file() {
            files.push(p.clone());
        } else if walk(super::as_dir(p), &mut files).is_err() {
            return 0;
        }
    }
    files.sort();
    files.dedup();
    links.sort();
    links.dedup();
    // SipHash with fixed keys: the same in both revisions of one run.
    let mut hasher = std::hash::DefaultHasher::new();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            return 0;
        };
        f.hash(&mut hasher);
        bytes.hash(&mut hasher);
    }
    for l in &links {
        let Ok(target) = std::fs::read_link(l) else {
            return 0;
        };
        l.hash(&mut hasher);
        target.hash(&mut hasher);
    }
    absent.sort();
    absent.dedup();
    for a in &absent {
        a.hash(&mut hasher);
        "absent".hash(&mut hasher);
    }
    hasher.finish().max(1)
}

/// What a failure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The renderer refused or failed (`render-failed`).
    Render,
    /// A remote resource the linter does not fetch unless told to (`remote-resource-not-fetched`):
    /// kustomize, Flux and Argo CD would build the root.
    Remote,
    /// A file of the build is not valid YAML (`yaml-syntax`, at the broken line).
    Syntax,
    /// A file of the build holds unrendered `{{ }}` templating, which YAML reads as a mapping
    /// where kustomize wants a scalar (`unrendered-template`, at the template).
    Templating,
    /// The renderer is not installed (`renderer-not-found`): the root was not built at all.
    NoRenderer,
}

/// A root or chart that was not built because its renderer is not installed (`missing` says
/// which, and where it was looked for), at the first line of its kustomization or `Chart.yaml`
/// (`file`); `more` is said after.
pub fn not_built(file: PathBuf, missing: &str, more: &str) -> RenderFailure {
    RenderFailure {
        file,
        span: Span::point(1, 1),
        message: format!("not rendered: {missing}, so nothing of it is linted{more}"),
        kind: FailureKind::NoRenderer,
        inputs: 0,
        output: String::new(),
        also: Vec::new(),
    }
}

/// The failure of the build of `dir`, placed at the line to edit.
pub fn locate(repo: &Repository, dir: &Path, err: &RenderError) -> RenderFailure {
    let fallback = repo
        .kustomizations
        .get(dir)
        .map(|k| k.file.clone())
        .or_else(|| kustomization_file(dir))
        .unwrap_or_else(|| dir.to_path_buf());
    match err {
        RenderError::Refused(r) => RenderFailure {
            file: r.file.clone(),
            span: r.span,
            message: r.to_string(),
            kind: if r.remote {
                FailureKind::Remote
            } else {
                FailureKind::Render
            },
            inputs: 0,
            output: String::new(),
            also: Vec::new(),
        },
        RenderError::Build(message) => {
            if let Some(f) = broken_files(repo, dir) {
                return RenderFailure {
                    message: format!(
                        "{} (kustomize cannot build {} because of it)",
                        f.message,
                        dir.display()
                    ),
                    ..f
                };
            }
            let (file, span) =
                quoted_place(repo, dir, message).unwrap_or((fallback, Span::point(1, 1)));
            RenderFailure {
                file,
                span,
                message: one_line(&err.to_string()),
                kind: FailureKind::Render,
                inputs: 0,
                output: String::new(),
                also: Vec::new(),
            }
        }
        RenderError::Decode(verdict) => RenderFailure {
            file: verdict.file.clone(),
            span: Span::point(verdict.line, 1),
            message: err.to_string(),
            kind: FailureKind::Render,
            inputs: 0,
            output: String::new(),
            also: Vec::new(),
        },
        RenderError::Run { .. } | RenderError::Edit(_) => RenderFailure {
            file: fallback,
            span: Span::point(1, 1),
            message: one_line(&err.to_string()),
            kind: FailureKind::Render,
            inputs: 0,
            output: String::new(),
            also: Vec::new(),
        },
    }
}

/// The failure of `helm template` on the chart in `dir`. A dependency `Chart.yaml` lists but
/// `charts/` lacks (helm's `CheckDependencies`, pkg/action/dependency.go: `found in Chart.yaml,
/// but missing in charts/ directory: NAME, ...`) is reported at its entry of `dependencies`;
/// anything else at the file's first line.
pub fn locate_chart(dir: &Path, err: &RenderError) -> RenderFailure {
    if let RenderError::Refused(r) = err {
        // A `file://` dependency outside the repository: at its line, never built.
        return RenderFailure {
            file: r.file.clone(),
            span: r.span,
            message: format!(
                "refused to render: the chart dependency `{}` is outside the repository; nothing was read",
                r.reference
            ),
            kind: FailureKind::Render,
            inputs: 0,
            output: String::new(),
            also: Vec::new(),
        };
    }
    // A kustomize-style build error carries helm's own words; other errors say what ran.
    // helm ends some with a blank line and a hint of its own (`Use --debug flag ...`): a
    // finding's message is one line, so the lines are joined.
    let message = match err {
        RenderError::Build(m) => one_line(m),
        other => other.to_string(),
    };
    if let Some(line) = values_yaml_line(&message) {
        return RenderFailure {
            file: dir.join("values.yaml"),
            span: Span::point(line, 1),
            message: format!("helm template failed: {message}"),
            kind: FailureKind::Render,
            inputs: 0,
            output: String::new(),
            also: Vec::new(),
        };
    }
    let file = dir.join("Chart.yaml");
    let missing = missing_dependency(&message).and_then(|name| {
        super::helm::chart_dependencies(&file)
            .into_iter()
            .find(|d| d.name == name)
    });
    if let Some(d) = missing.as_ref().filter(|d| d.is_remote()) {
        let (name, repository) = (&d.name, d.repository.as_ref().map_or("", |(r, _)| r));
        return RenderFailure {
            file,
            span: d.span,
            message: format!(
                "refused to render: chart dependency `{name}` ({repository}) is not in charts/, and helm would fetch it from the network (`helm dependency build`, as Flux's source-controller and Argo CD's repo-server do before rendering); nothing was fetched (set gitops.remoteResources: true in .karmada-policy.yaml to let it)"
            ),
            kind: FailureKind::Remote,
            inputs: 0,
            output: String::new(),
            also: Vec::new(),
        };
    }
    RenderFailure {
        file,
        span: missing.map_or(Span::point(1, 1), |d| d.span),
        message: format!("helm template failed: {message}"),
        kind: FailureKind::Render,
        inputs: 0,
        output: String::new(),
        also: Vec::new(),
    }
}

/// The line of the chart's own `values.yaml` that helm could not parse: helm's loader says
/// `cannot load values.yaml: error converting YAML to JSON: yaml: line N: ...` (go-yaml's
/// 1-based line), where the edit is.
fn values_yaml_line(message: &str) -> Option<u32> {
    const LOAD: &str = "cannot load values.yaml: ";
    let rest = &message[message.find(LOAD)? + LOAD.len()..];
    const LINE: &str = "yaml: line ";
    let rest = &rest[rest.find(LINE)? + LINE.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|&n| n > 0)
}

/// `text`'s non-blank lines, trimmed and joined by a space: a finding's message is one line
/// (kustomize and helm print some causes over several, which a terminal would show escaped).
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first dependency helm's message says is missing from `charts/`.
fn missing_dependency(message: &str) -> Option<&str> {
    const MISSING: &str = "missing in charts/ directory: ";
    let rest = &message[message.find(MISSING)? + MISSING.len()..];
    rest.split([',', '\n'])
        .next()
        .map(str::trim)
        .filter(|n| !n.is_empty())
}

/// The files of the build (resources and patches of every kustomization it builds on) that
/// are not valid YAML, or hold unrendered templating (`caBundle: {{caBundle}}`, which a script
/// fills before the build; kustomize's error then names no file), each at its first problem:
/// the first as the failure, the others in its `also`.
fn broken_files(repo: &Repository, dir: &Path) -> Option<RenderFailure> {
    let files: Vec<PathBuf> = repo
        .closure(dir)
        .iter()
        .filter_map(|d| repo.kustomizations.get(d))
        .flat_map(|k| k.files.iter().cloned())
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    let mut broken = files
        .iter()
        .filter(|f| f.is_file() && seen.insert((*f).clone()))
        .filter_map(|f| {
            let loaded = files::read(f).ok()?;
            let (p, kind) = loaded.problems.iter().find_map(|p| match p.kind {
                ProblemKind::Syntax => Some((p, FailureKind::Syntax)),
                ProblemKind::Templating => Some((p, FailureKind::Templating)),
                _ => None,
            })?;
            Some(RenderFailure {
                file: f.clone(),
                span: p.span,
                message: p.message.clone(),
                kind,
                inputs: 0,
                output: String::new(),
                also: Vec::new(),
            })
        });
    let mut first = broken.next()?;
    first.also = broken.map(|b| (b.file, b.span, b.message)).collect();
    Some(first)
}

/// The place in a kustomization of the build that names a path the message quotes (the last
/// quoted, the innermost cause, first). Kustomize nests quotes (`err='accumulating resources
/// from 'URL': ...'`), so every stretch between two quotes that is one word counts, not only
/// every other one.
fn quoted_place(repo: &Repository, dir: &Path, message: &str) -> Option<(PathBuf, Span)> {
    let pieces: Vec<&str> = message.split('\'').collect();
    let inner = pieces.get(1..pieces.len().saturating_sub(1)).unwrap_or(&[]);
    let quoted: Vec<&str> = inner
        .iter()
        .copied()
        .filter(|q| !q.is_empty() && !q.contains(char::is_whitespace))
        .collect();
    let closure = repo.closure(dir);
    // The surest match first, in every kustomization of the build: the entry as quoted, then
    // one the quoted path ends with (kustomize may quote it from its own directory), then one
    // with the same last part.
    for strictness in [Match::Exact, Match::Suffix, Match::LastPart] {
        for q in quoted.iter().rev() {
            for d in &closure {
                let Some(k) = repo.kustomizations.get(d) else {
                    continue;
                };
                let Some(doc) = k.loaded.documents.first() else {
                    continue;
                };
                if let Some(span) = path_entry(&doc.root, q, strictness) {
                    return Some((k.file.clone(), span));
                }
            }
        }
    }
    None
}

/// How closely a kustomization's entry must name a quoted path.
#[derive(Clone, Copy, PartialEq)]
enum Match {
    Exact,
    Suffix,
    LastPart,
}

/// The first path a kustomization names (every field kustomize reads a path from:
/// [`super::confine::references`], the table the confinement checks) that names `name` as
/// closely as `strictness` asks; a `namespace: podinfo` is no path and never matches.
fn path_entry(root: &Node, name: &str, strictness: Match) -> Option<Span> {
    super::confine::references(root)
        .into_iter()
        .find_map(|(reference, span, _)| names(&reference, name, strictness).then_some(span))
}

/// Whether the path `s` an entry gives names `name` (trailing slashes aside).
fn names(s: &str, name: &str, strictness: Match) -> bool {
    // `dir/` names `dir`; a name that is only slashes names nothing (every directory entry
    // written `base/` would end with its empty last part).
    let (s, name) = (s.trim_end_matches('/'), name.trim_end_matches('/'));
    let file = name.rsplit('/').next().unwrap_or(name);
    if file.is_empty() || s.is_empty() {
        return false;
    }
    match strictness {
        Match::Exact => s == name,
        Match::Suffix => name.ends_with(&format!("/{s}")) || s.ends_with(&format!("/{name}")),
        Match::LastPart => s == file || s.ends_with(&format!("/{file}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::kustomize::discover::discover;

    #[test]
    fn a_named_file_that_is_not_there_is_an_input_too() {
        let dir = tempfile::tempdir().unwrap();
        let (present, missing) = (dir.path().join("a.yaml"), dir.path().join("missing.yaml"));
        std::fs::write(&present, "a: 1\n").unwrap();
        let with_missing = inputs_digest(&[present.clone(), missing.clone()]);
        assert_ne!(with_missing, 0);
        assert_eq!(
            with_missing,
            inputs_digest(&[missing.clone(), present.clone()])
        );
        assert_ne!(with_missing, inputs_digest(std::slice::from_ref(&present)));
        // Once there, it is read.
        std::fs::write(&missing, "b: 2\n").unwrap();
        assert_ne!(with_missing, inputs_digest(&[present, missing]));
    }

    #[test]
    fn a_message_over_several_lines_is_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(root.join("app/kustomization.yaml"), "resources: []\n").unwrap();
        let files = files::expand(&[root.display().to_string()], &|_| false).unwrap();
        let repo = discover(&files);
        let app = crate::source::kustomize::normalize(&root.join("app"));
        let err =
            RenderError::Build("map[string]interface {}{\"a\": 1}:\n  invalid\n\n  field".into());
        let f = locate(&repo, &app, &err);
        assert_eq!(
            f.message,
            "kustomize build failed: map[string]interface {}{\"a\": 1}: invalid field"
        );
    }

    #[test]
    fn a_missing_resource_is_reported_where_it_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(
            root.join("app/kustomization.yaml"),
            "# an app\nresources:\n  - pp.yaml\n  - missing.yaml\n",
        )
        .unwrap();
        std::fs::write(root.join("app/pp.yaml"), "kind: ConfigMap\n").unwrap();
        let files = files::expand(&[root.display().to_string()], &|_| false).unwrap();
        let repo = discover(&files);
        let app = crate::source::kustomize::normalize(&root.join("app"));
        let err = RenderError::Build(
            "accumulating resources: accumulating resources from 'missing.yaml': open missing.yaml: no such file or directory".into(),
        );
        let f = locate(&repo, &app, &err);
        assert_eq!(f.file, app.join("kustomization.yaml"));
        assert_eq!((f.span.start.line, f.span.start.col), (4, 5));
        assert_eq!(f.kind, FailureKind::Render);
    }

    /// Kustomize quotes the URL inside a quoted cause, and the fetch's message quotes the URL's
    /// directory with a trailing slash: the entry is the URL's, not the next `dir/` entry.
    #[test]
    fn a_remote_resource_that_fails_is_reported_at_its_url_not_at_a_directory_entry() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("app/base")).unwrap();
        std::fs::write(
            root.join("app/kustomization.yaml"),
            "resources:\n  - https://example.invalid/v1/components.yaml\n  - base/\n",
        )
        .unwrap();
        std::fs::write(root.join("app/base/kustomization.yaml"), "resources: []\n").unwrap();
        let files = files::expand(&[root.display().to_string()], &|_| false).unwrap();
        let repo = discover(&files);
        let app = crate::source::kustomize::normalize(&root.join("app"));
        let err = RenderError::Build(
            "accumulating resources: accumulation err='accumulating resources from 'https://example.invalid/v1/components.yaml': Get \"https://example.invalid/v1/components.yaml\": no such host': failed to run 'git fetch --depth=1 https://example.invalid/v1 HEAD': fatal: unable to access 'https://example.invalid/v1/': Could not resolve host: example.invalid : exit status 128".into(),
        );
        let f = locate(&repo, &app, &err);
        assert_eq!(f.file, app.join("kustomization.yaml"));
        assert_eq!((f.span.start.line, f.span.start.col), (2, 5));
    }

    /// `namespace: podinfo` shares the last part of the missing `upstream/podinfo`; the
    /// entry that names the path itself wins, and a namespace is never a path.
    #[test]
    fn a_missing_directory_is_reported_at_its_entry_not_at_a_namespace_of_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("podinfo")).unwrap();
        std::fs::write(
            root.join("podinfo/kustomization.yaml"),
            "apiVersion: kustomize.config.k8s.io/v1beta1\nnamespace: podinfo\nresources:\n  - upstream/podinfo\n",
        )
        .unwrap();
        let files = files::expand(&[root.display().to_string()], &|_| false).unwrap();
        let repo = discover(&files);
        let app = crate::source::kustomize::normalize(&root.join("podinfo"));
        let err = RenderError::Build(
            "accumulating resources: accumulation err='accumulating resources from 'upstream/podinfo': evalsymlink failure on 'podinfo/upstream/podinfo' : lstat podinfo/upstream: no such file or directory': must build at directory".into(),
        );
        let f = locate(&repo, &app, &err);
        assert_eq!((f.span.start.line, f.span.start.col), (4, 5));
    }

    /// chutesai/chutes-miner's `values.yaml:26` (`image: parachutes/miner:`): helm names the
    /// line of the chart's own values file, which is the one to edit.
    #[test]
    fn a_values_file_helm_cannot_parse_is_reported_at_its_line() {
        let chart = Path::new("charts/miner");
        let err = RenderError::Build(
            "cannot load values.yaml: error converting YAML to JSON: yaml: line 26: mapping values are not allowed in this context".into(),
        );
        let f = locate_chart(chart, &err);
        assert_eq!(f.file, chart.join("values.yaml"));
        assert_eq!((f.span.start.line, f.span.start.col), (26, 1));
        let other = RenderError::Build("template: x: function \"nope\" not defined".into());
        assert_eq!(locate_chart(chart, &other).file, chart.join("Chart.yaml"));
    }

    #[test]
    fn a_chart_dependency_missing_from_charts_is_reported_at_its_entry() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("app");
        std::fs::create_dir_all(&chart).unwrap();
        std::fs::write(
            chart.join("Chart.yaml"),
            "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 1.x.x\n  - name: common\n    repository: https://charts.example.com\n",
        )
        .unwrap();
        let err = RenderError::Build(
            "An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: common, redis".into(),
        );
        let f = locate_chart(&chart, &err);
        assert_eq!(f.file, chart.join("Chart.yaml"));
        assert_eq!((f.span.start.line, f.span.start.col), (7, 11), "{f:?}");
        // A chart repository's dependency is fetched by helm (and by Flux and Argo CD before
        // they render): not fetched here, as a kustomization's remote resource is not.
        assert_eq!(f.kind, FailureKind::Remote);
        assert!(
            f.message.starts_with(
                "refused to render: chart dependency `common` (https://charts.example.com) is not in charts/"
            ),
            "{f:?}"
        );
        // One without a repository is the chart's own to vendor: helm failed.
        let err = RenderError::Build(
            "found in Chart.yaml, but missing in charts/ directory: redis".into(),
        );
        let f = locate_chart(&chart, &err);
        assert_eq!((f.span.start.line, f.span.start.col), (5, 11), "{f:?}");
        assert!(f
            .message
            .starts_with("helm template failed: found in Chart.yaml"));
        assert_eq!(f.kind, FailureKind::Render);
        // Any other failure stays on the first line, its message on one line.
        let other = locate_chart(
            &chart,
            &RenderError::Build(
                "parse error in template\n\nUse --debug flag to render out invalid YAML\n".into(),
            ),
        );
        assert_eq!((other.span.start.line, other.span.start.col), (1, 1));
        assert_eq!(
            other.message,
            "helm template failed: parse error in template Use --debug flag to render out invalid YAML"
        );
    }

    #[test]
    fn a_broken_resource_is_reported_at_its_broken_line() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(
            root.join("app/kustomization.yaml"),
            "resources: [cm.yaml]\n",
        )
        .unwrap();
        std::fs::write(
            root.join("app/cm.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: ${A}\n   b: c\n",
        )
        .unwrap();
        let files = files::expand(&[root.display().to_string()], &|_| false).unwrap();
        let repo = discover(&files);
        let app = crate::source::kustomize::normalize(&root.join("app"));
        let f = locate(
            &repo,
            &app,
            &RenderError::Build("MalformedYAMLError: yaml: line 7".into()),
        );
        assert_eq!(f.kind, FailureKind::Syntax);
        assert_eq!(f.file, app.join("cm.yaml"));
        assert_eq!(f.span.start.line, 7, "{f:?}");
    }
}
