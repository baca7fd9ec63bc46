//! Kustomize repositories: which files a kustomization references ([`discover`]), rendering its
//! roots with the real kustomize ([`render`]), Flux's post-build substitution ([`flux`]), and
//! mapping a place in a rendered object back to the line a user edits ([`origin`]), and which
//! layer `suspend -f DIR` edits ([`layer`]).

pub mod argo;
pub mod artifact;
pub mod confine;
pub mod discover;
pub mod environments;
pub mod failure;
pub mod flux;
pub mod gotemplate;
pub mod helm;
pub mod layer;
pub mod mirror;
pub mod origin;
pub mod plan;
pub mod render;
pub mod scan;
pub mod units;

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::source::{Loaded, Node, Span};

/// One kustomization file and what it references, as paths relative to where the tool runs.
#[derive(Debug)]
pub struct Kustomization {
    pub dir: PathBuf,
    pub file: PathBuf,
    /// `kind: Component`: applied by the kustomizations that list it, never a root.
    pub is_component: bool,
    /// `resources`/`bases` entries that are directories (other kustomizations).
    pub resource_dirs: Vec<PathBuf>,
    /// `resources` entries that are files: the objects it renders.
    pub resource_files: Vec<PathBuf>,
    pub components: Vec<PathBuf>,
    /// Every patch, in the order kustomize applies them.
    pub patches: Vec<Patch>,
    /// Every file it references (resources, patches, generator inputs, configurations...).
    pub files: Vec<PathBuf>,
    /// `helmCharts` entries (names), inflated only when the configuration enables Helm.
    pub helm_charts: Vec<String>,
    /// Files a list entry names in a comment (`#- patches/webhook_in_x.yaml`): entries
    /// switched off, as kubebuilder scaffolds its optional patches. Nothing applies them.
    pub disabled_files: Vec<PathBuf>,
    /// The parsed file, for pointing at its fields.
    pub loaded: Arc<Loaded>,
}

/// A patch, with the objects it applies to.
#[derive(Debug, Clone)]
pub struct Patch {
    pub target: Option<Target>,
    pub body: PatchBody,
    /// Listed under `patchesJson6902`: applied after every `patches:` entry, one added later
    /// included.
    pub applied_last: bool,
}

#[derive(Debug, Clone)]
pub enum PatchBody {
    File(PathBuf),
    /// A patch written inside the kustomization file: its text and where its first line is.
    Inline {
        text: String,
        line: u32,
        col: u32,
    },
}

/// A patch `target` (the fields we compare; `name` may be a regular expression).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    pub group: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

impl Target {
    /// Whether an object of `kind` named `name` (before any prefix or suffix) is targeted.
    pub fn matches(&self, kind: &str, name: &str) -> bool {
        let kind_ok = self.kind.as_deref().is_none_or(|k| k == kind);
        let name_ok = self.name.as_deref().is_none_or(|n| {
            n == name || regex::Regex::new(&format!("^(?:{n})$")).is_ok_and(|r| r.is_match(name))
        });
        kind_ok && name_ok
    }
}

impl Kustomization {
    /// Reads what a kustomization references from its parsed file in `dir`.
    pub fn from_tree(dir: &Path, file: &Path, loaded: Arc<Loaded>) -> Kustomization {
        let mut k = Kustomization {
            dir: dir.to_path_buf(),
            file: file.to_path_buf(),
            is_component: false,
            resource_dirs: Vec::new(),
            resource_files: Vec::new(),
            components: Vec::new(),
            patches: Vec::new(),
            files: Vec::new(),
            helm_charts: Vec::new(),
            disabled_files: commented_out_files(dir, loaded.source.text()),
            loaded: loaded.clone(),
        };
        let Some(root) = loaded.documents.first().map(|d| &d.root) else {
            return k;
        };
        k.is_component = root.get("kind").and_then(Node::as_str) == Some("Component");
        for key in ["resources", "bases"] {
            for s in strings(root.get(key)) {
                if is_remote(s) {
                    continue;
                }
                let path = normalize(&dir.join(s));
                if path.is_dir() {
                    k.resource_dirs.push(path);
                } else {
                    k.resource_files.push(path.clone());
                    k.files.push(path);
                }
            }
        }
        for s in strings(root.get("components")) {
            if !is_remote(s) {
                k.components.push(normalize(&dir.join(s)));
            }
        }
        k.read_patches(root, &loaded);
        k.read_data_files(root);
        for chart in seq(root.get("helmCharts")) {
            let name = chart.get("name").and_then(Node::as_str).unwrap_or("chart");
            k.helm_charts.push(name.to_string());
        }
        k
    }

    /// The patches in the order kustomize applies them: `patchesStrategicMerge`, then
    /// `patches`, then `patchesJson6902` (whatever the order of the fields in the file; checked
    /// with `kubectl kustomize`: a JSON 6902 `add` of a list there replaces what both others
    /// wrote).
    fn read_patches(&mut self, root: &Node, loaded: &Loaded) {
        for node in seq(root.get("patchesStrategicMerge")) {
            let Some(s) = node.as_str() else { continue };
            if s.contains('\n') || s.contains(':') {
                if let Some(body) = inline_body(node, loaded) {
                    self.patches.push(Patch {
                        target: None,
                        body,
                        applied_last: false,
                    });
                }
            } else {
                self.push_patch_file(None, s, false);
            }
        }
        let listed = seq(root.get("patches")).iter().map(|p| (p, false));
        let legacy = seq(root.get("patchesJson6902")).iter().map(|p| (p, true));
        for (p, applied_last) in listed.chain(legacy) {
            let target = p.get("target").map(target_of);
            if let Some(path) = p.get("path").and_then(Node::as_str) {
                self.push_patch_file(target, path, applied_last);
            } else if let Some(node) = p.get("patch") {
                if let Some(body) = inline_body(node, loaded) {
                    self.patches.push(Patch {
                        target,
                        body,
                        applied_last,
                    });
                }
            }
        }
    }

    fn push_patch_file(&mut self, target: Option<Target>, path: &str, applied_last: bool) {
        let path = normalize(&self.dir.join(path));
        self.files.push(path.clone());
        self.patches.push(Patch {
            target,
            body: PatchBody::File(path),
            applied_last,
        });
    }

    /// Generator inputs, transformer configurations, replacements and CRDs: referenced files
    /// that are data for kustomize, not objects to apply.
    fn read_data_files(&mut self, root: &Node) {
        let mut names: Vec<String> = Vec::new();
        for key in ["configMapGenerator", "secretGenerator"] {
            for g in seq(root.get(key)) {
                for f in strings(g.get("files")) {
                    // `key=path` or a plain path.
                    names.push(f.split_once('=').map_or(f, |(_, p)| p).to_string());
                }
                names.extend(strings(g.get("envs")).map(str::to_string));
                if let Some(e) = g.get("env").and_then(Node::as_str) {
                    names.push(e.to_string());
                }
            }
        }
        for key in [
            "crds",
            "configurations",
            "generators",
            "transformers",
            "validators",
        ] {
            names.extend(strings(root.get(key)).map(str::to_string));
        }
        for r in seq(root.get("replacements")) {
            if let Some(p) = r.get("path").and_then(Node::as_str) {
                names.push(p.to_string());
            }
        }
        if let Some(p) = root
            .get("openapi")
            .and_then(|o| o.get("path"))
            .and_then(Node::as_str)
        {
            names.push(p.to_string());
        }
        for n in names.iter().filter(|n| !n.contains('\n') && !is_remote(n)) {
            let path = normalize(&self.dir.join(n));
            if path.is_file() {
                self.files.push(path);
            }
        }
    }

    /// The node of a top-level field (`namespace`, `namePrefix`...), for pointing at it.
    pub fn field(&self, key: &str) -> Option<(&Node, Span)> {
        let root = &self.loaded.documents.first()?.root;
        let entry = root.entry(key)?;
        Some((&entry.value, entry.value.span))
    }
}

/// An inline patch: its text and where that text starts in the kustomization file. For a block
/// scalar (`patch: |-`) the text starts on the next line, at the first content line's indent.
fn inline_body(node: &Node, loaded: &Loaded) -> Option<PatchBody> {
    let text = node.as_str()?.to_string();
    let start = node.span.start;
    let block = loaded.source.line(start.line).is_some_and(|l| {
        let rest: String = l.chars().skip(start.col as usize - 1).collect();
        rest.starts_with('|') || rest.starts_with('>')
    });
    if !block {
        return Some(PatchBody::Inline {
            text,
            line: start.line,
            col: start.col,
        });
    }
    let mut line = start.line + 1;
    // Skip blank lines before the content (they are part of the scalar's text as newlines).
    while loaded
        .source
        .line(line)
        .is_some_and(|l| l.trim().is_empty())
    {
        line += 1;
    }
    let first = loaded.source.line(line)?;
    let indent = first.chars().take_while(|c| *c == ' ').count() as u32;
    Some(PatchBody::Inline {
        text: text.trim_start_matches('\n').to_string(),
        line,
        col: indent + 1,
    })
}

fn target_of(node: &Node) -> Target {
    let get = |k: &str| node.get(k).and_then(Node::as_str).map(str::to_string);
    Target {
        group: get("group"),
        kind: get("kind"),
        name: get("name"),
        namespace: get("namespace"),
    }
}

fn seq(node: Option<&Node>) -> &[Node] {
    node.and_then(Node::as_seq).unwrap_or(&[])
}

fn strings(node: Option<&Node>) -> impl Iterator<Item = &str> {
    seq(node).iter().filter_map(Node::as_str)
}

/// A remote resource (git URL, http): not in the repository, left to kustomize.
pub(super) fn is_remote(s: &str) -> bool {
    s.contains("://") || s.starts_with("github.com/") || s.starts_with("git@")
}

/// A piece of a template's text (a Helm chart's, an Argo CD ApplicationSet's): text written as
/// is, or an action `{{ … }}` with its braces; an action never closed runs to the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Piece<'t> {
    Text(&'t str),
    Action { text: &'t str, closed: bool },
}

/// `text` cut into its pieces, in order: a text piece (maybe empty) before each action and one
/// after the last, so the first and the last piece are always text.
pub(super) fn template_pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        out.push(Piece::Text(&rest[..i]));
        let tail = &rest[i..];
        match tail.find("}}") {
            Some(e) => {
                out.push(Piece::Action {
                    text: &tail[..e + 2],
                    closed: true,
                });
                rest = &tail[e + 2..];
            }
            None => {
                out.push(Piece::Action {
                    text: tail,
                    closed: false,
                });
                rest = "";
            }
        }
    }
    out.push(Piece::Text(rest));
    out
}

/// The manifest files that list entries commented out in a kustomization name (`#- a.yaml`,
/// `# - ../x/b.yml`, `#- path: patches/c.yaml`): one entry per comment line, a relative path
/// to a file the directory walk would read as a manifest.
fn commented_out_files(dir: &Path, text: &str) -> Vec<PathBuf> {
    text.lines()
        .filter_map(|line| line.trim_start().strip_prefix('#'))
        .filter_map(|rest| rest.trim_start().strip_prefix('-'))
        .map(|entry| {
            let entry = entry.trim();
            entry.strip_prefix("path:").map_or(entry, str::trim)
        })
        .filter(|entry| {
            !entry.contains(char::is_whitespace)
                && !is_remote(entry)
                && !Path::new(entry).is_absolute()
                && crate::source::files::is_manifest_name(entry)
        })
        .map(|entry| normalize(&dir.join(entry)))
        .collect()
}

/// A directory as a program or the file system takes it: the directory the tool runs in is
/// the empty path once [`normalize`]d (`lint .`), which neither `canonicalize` nor `helm
/// template` accepts.
pub fn as_dir(dir: &Path) -> &Path {
    match dir.as_os_str().is_empty() {
        true => Path::new("."),
        false => dir,
    }
}

/// A directory as a report names it: `.` for the directory the tool runs in.
pub fn shown_dir(dir: &Path) -> String {
    as_dir(dir).display().to_string()
}

/// A root's directory as the name of the environment it makes when nothing declares one: its
/// path from the top of the git working tree the tool runs in (`apps/web`, from any
/// directory of it, as a Flux cluster's name is; a submodule's or a nested repository's root
/// keeps the path through it, `sub/apps/web`), else as the user reaches it ([`shown_dir`]).
pub fn root_name(dir: &Path) -> String {
    let from_top = || {
        let cwd = std::env::current_dir().ok()?.canonicalize().ok()?;
        let top = git_work_tree(&cwd)?;
        let abs = std::fs::canonicalize(as_dir(dir)).ok()?;
        let rel = abs.strip_prefix(top).ok()?;
        Some(shown_dir(rel))
    };
    from_top().unwrap_or_else(|| shown_dir(dir))
}

/// The path from directory `from` to `to` (both absolute and canonical).
pub fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to[common..] {
        out.push(c.as_os_str());
    }
    out
}

/// The directories above the current one up to the root of the git working tree it is in
/// (none outside one: the repository is then the directory linted), nearest first: each as
/// the user reaches it (`..`, `../..`) and as an absolute path. Flux resolves a
/// Kustomization's path from the repository's root, which may be above where the tool runs.
pub fn above_current_directory() -> Vec<(PathBuf, PathBuf)> {
    let Some(cwd) = std::env::current_dir()
        .ok()
        .and_then(|d| d.canonicalize().ok())
    else {
        return Vec::new();
    };
    let Some(top) = git_work_tree(&cwd) else {
        return Vec::new();
    };
    let mut up = PathBuf::new();
    cwd.ancestors()
        .skip(1)
        .take_while(|a| a.starts_with(top))
        .map(|a| {
            up.push("..");
            (up.clone(), a.to_path_buf())
        })
        .collect()
}

/// The root of the git working tree the absolute path `abs` is in: the nearest directory
/// holding `.git` (a written revision is marked so too, `lint::git`).
pub fn git_work_tree(abs: &Path) -> Option<&Path> {
    abs.ancestors().find(|a| a.join(".git").exists())
}

/// An absolute path as a path from the current directory (`""` for the directory itself).
pub fn from_current_directory(abs: &Path) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?.canonicalize().ok()?;
    Some(normalize(&relative(&cwd, abs)))
}

/// `a/./b/../c` as `a/c`, without touching the file system (paths stay relative to where the
/// tool runs, so they print the way the user named them).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                if matches!(last, Some(Component::Normal(_))) {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `path` (absolute) with its symbolic links resolved as far as they lead: where every one leads
/// to something, `canonicalize`; else the path the links name, normalized, so that a link to
/// nothing outside a tree (a checkout's link out of the repository, the tree written elsewhere)
/// still shows where it points. At most 40 links are followed, as the kernel does.
pub fn resolve_links(path: &Path) -> PathBuf {
    path.canonicalize()
        .unwrap_or_else(|_| follow_links(&normalize(path), &mut 40))
}

fn follow_links(path: &Path, hops: &mut u8) -> PathBuf {
    let mut out = PathBuf::new();
    let mut components = path.components();
    while let Some(c) = components.next() {
        let next = out.join(c.as_os_str());
        // `read_link` reads only a link (anything else is an error).
        match std::fs::read_link(&next) {
            Ok(target) if *hops > 0 => {
                *hops -= 1;
                let joined = normalize(&out.join(target).join(components.as_path()));
                return follow_links(&joined, hops);
            }
            _ => out = next,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_ancestor() {
        assert_eq!(
            relative(Path::new("/tmp/w"), Path::new("/repo/apps/prod")),
            PathBuf::from("../../repo/apps/prod")
        );
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/b/c")),
            PathBuf::from("c")
        );
    }

    #[test]
    fn links_are_followed_as_far_as_they_lead() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("repo/real")).unwrap();
        std::os::unix::fs::symlink("real", root.join("repo/in")).unwrap();
        std::os::unix::fs::symlink("../../gone", root.join("repo/out")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("repo/loop")).unwrap();
        assert_eq!(resolve_links(&root.join("repo/in")), root.join("repo/real"));
        // A link to nothing still shows where it points: outside the repository.
        assert_eq!(
            resolve_links(&root.join("repo/out/x")),
            normalize(&root.join("../gone/x"))
        );
        // A loop ends.
        let _ = resolve_links(&root.join("repo/loop"));
    }

    #[test]
    fn patches_are_listed_in_the_order_kustomize_applies_them() {
        // Fields in the file's order: JSON 6902, patches, strategic merge.
        let text = "patchesJson6902:\n  - target: {kind: PropagationPolicy, name: web}\n    path: ops.yaml\npatches:\n  - path: smp.yaml\npatchesStrategicMerge:\n  - legacy.yaml\n";
        let loaded = Arc::new(crate::source::load(crate::source::Source::new(
            "kustomization.yaml",
            text,
        )));
        let k = Kustomization::from_tree(Path::new("o"), Path::new("o/kustomization.yaml"), loaded);
        let order: Vec<(String, bool)> = k
            .patches
            .iter()
            .map(|p| match &p.body {
                PatchBody::File(f) => (f.display().to_string(), p.applied_last),
                PatchBody::Inline { .. } => ("inline".into(), p.applied_last),
            })
            .collect();
        assert_eq!(
            order,
            [
                ("o/legacy.yaml".to_string(), false),
                ("o/smp.yaml".to_string(), false),
                ("o/ops.yaml".to_string(), true)
            ]
        );
    }

    #[test]
    fn template_text_is_cut_into_text_and_actions() {
        use Piece::{Action, Text};
        assert_eq!(
            template_pieces("a{{ .x }}b{{y}}"),
            [
                Text("a"),
                Action {
                    text: "{{ .x }}",
                    closed: true
                },
                Text("b"),
                Action {
                    text: "{{y}}",
                    closed: true
                },
                Text(""),
            ]
        );
        assert_eq!(template_pieces("plain"), [Text("plain")]);
        assert_eq!(
            template_pieces("x{{ open"),
            [
                Text("x"),
                Action {
                    text: "{{ open",
                    closed: false
                },
                Text("")
            ]
        );
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(normalize(Path::new("./a/b/../c")), PathBuf::from("a/c"));
        assert_eq!(normalize(Path::new("../x/./y")), PathBuf::from("../x/y"));
        assert_eq!(normalize(Path::new("a/../../b")), PathBuf::from("../b"));
    }

    #[test]
    fn targets_match_kind_and_name_patterns() {
        let t = Target {
            kind: Some("PropagationPolicy".into()),
            name: Some("web-.*".into()),
            ..Target::default()
        };
        assert!(t.matches("PropagationPolicy", "web-a"));
        assert!(!t.matches("PropagationPolicy", "api"));
        assert!(!t.matches("Deployment", "web-a"));
    }
}
