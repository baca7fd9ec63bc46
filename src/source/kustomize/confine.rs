//! Every file a kustomize build may read stays inside the repository.
//!
//! Flux's kustomize-controller builds with kustomize's load restrictor off (a kustomization may
//! name `../namespace.yaml`) but through a file system that refuses any path outside the
//! source's root, symbolic links resolved (fluxcd/pkg `kustomize/filesys/fs_secure.go`,
//! `SecureBuild` in `kustomize/kustomize_generator.go`). The linter runs on untrusted pull
//! requests, so before a build is started every path its kustomizations name (resources,
//! bases, components, patches, generator inputs, replacement and OpenAPI files, Helm chart
//! homes and values, transformer and generator configurations and the paths *they* name) is
//! checked here the same way: lexically inside the root, and inside it again once symbolic
//! links are resolved. A build that would leave the root is refused, never started.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use super::discover::kustomization_file;
use super::{is_remote, normalize};
use crate::source::{files, Node, Span, Value};

/// A path a kustomization names that leaves the repository, or a remote resource it would
/// fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The file that names it (a kustomization, or a configuration it lists).
    pub file: PathBuf,
    /// Where in that file.
    pub span: Span,
    /// The path or URL as written.
    pub reference: String,
    /// A URL (`https://...`, `github.com/...`), which kustomize would fetch.
    pub remote: bool,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.remote {
            return write!(
                f,
                "refused to render: `{}` is a remote resource, which kustomize would fetch from the network; nothing was fetched (set gitops.remoteResources: true in .karmada-policy.yaml to let it)",
                self.reference
            );
        }
        write!(
            f,
            "refused to render: `{}` is outside the repository (Flux's kustomize-controller refuses files outside its source's root too); nothing was read",
            self.reference
        )
    }
}

/// At most this many kustomizations and configurations are read for one check: a hostile
/// repository must not make the check itself unbounded.
const MAX_FILES: usize = 10_000;

/// Keys of kustomize's builtin generator and transformer configurations whose values are paths
/// (PatchTransformer `path`, PatchStrategicMergeTransformer `paths`, ConfigMap/SecretGenerator
/// `files`/`envs`/`env`, HelmChartInflationGenerator `chartHome`/`valuesFile`/
/// `additionalValuesFiles`/`configHome`, ReplacementTransformer `replacements[].path`).
const CONFIG_PATH_KEYS: &[&str] = &[
    "path",
    "paths",
    "files",
    "envs",
    "env",
    "chartHome",
    "configHome",
    "valuesFile",
    "additionalValuesFiles",
];

/// Checks that building the kustomization in `dir` reads nothing outside `root`, and, unless
/// `remote` allows it, fetches nothing from the network: a linter run on untrusted pull
/// requests must not be made to request any URL a kustomization names (an internal address,
/// a cloud metadata endpoint).
pub fn check(dir: &Path, root: &Path, remote: bool) -> Result<(), Refusal> {
    let root_abs = root.canonicalize().map_err(|_| Refusal {
        file: dir.to_path_buf(),
        span: Span::point(1, 1),
        reference: root.display().to_string(),
        remote: false,
    })?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut walk = Walk {
        root: normalize(&cwd.join(root)),
        root_abs,
        cwd,
        seen: BTreeSet::new(),
        remote,
    };
    walk.kustomization(dir, None)
}

struct Walk {
    /// The root, absolute (as named) and canonical (links resolved).
    root: PathBuf,
    root_abs: PathBuf,
    /// Paths are compared absolute; they are kept (and reported) as the user names them.
    cwd: PathBuf,
    seen: BTreeSet<PathBuf>,
    /// Whether remote resources may be fetched.
    remote: bool,
}

impl Walk {
    /// A kustomization directory `dir`, named at `by` (file and place), and everything it names.
    fn kustomization(
        &mut self,
        dir: &Path,
        by: Option<(&Path, Span, &str)>,
    ) -> Result<(), Refusal> {
        if !self.seen.insert(dir.to_path_buf()) || self.seen.len() > MAX_FILES {
            return Ok(());
        }
        let Some(file) = kustomization_file(dir) else {
            // Not a kustomization (kustomize reports it); a file of that name is checked below.
            return Ok(());
        };
        if let Some((by_file, span, reference)) = by {
            self.inside(&file, by_file, span, reference)?;
        } else {
            // The kustomization itself (its directory is checked by lexical position only).
            self.inside(&file, &file, Span::point(1, 1), "")?;
        }
        let Ok(loaded) = files::read(&file) else {
            return Ok(());
        };
        let Some(doc) = loaded.documents.first() else {
            return Ok(());
        };
        for (reference, span, what) in references(&doc.root) {
            if matches!(what, Named::Remote) {
                if self.remote {
                    continue;
                }
                return Err(Refusal {
                    file,
                    span,
                    reference,
                    remote: true,
                });
            }
            let target = normalize(&dir.join(&reference));
            self.inside(&target, &file, span, &reference)?;
            match what {
                Named::Resource if target.is_dir() => {
                    self.kustomization(&target, Some((&file, span, &reference)))?
                }
                Named::Config if target.is_dir() => {
                    self.kustomization(&target, Some((&file, span, &reference)))?;
                    self.configs_of(&target)?;
                }
                Named::Config => self.config_file(&target)?,
                Named::InlineConfig(text) => {
                    for root in crate::source::yaml::parse_roots(&text) {
                        self.config(&root, dir, &file, Some(span))?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The resources of a kustomization listed as generators or transformers are
    /// configurations: each file they name is checked as one.
    fn configs_of(&mut self, dir: &Path) -> Result<(), Refusal> {
        let Some(file) = kustomization_file(dir) else {
            return Ok(());
        };
        let Ok(loaded) = files::read(&file) else {
            return Ok(());
        };
        let Some(doc) = loaded.documents.first() else {
            return Ok(());
        };
        for (reference, _, what) in references(&doc.root) {
            if matches!(what, Named::Resource) {
                let target = normalize(&dir.join(&reference));
                if target.is_file() {
                    self.config_file(&target)?;
                }
            }
        }
        Ok(())
    }

    /// A generator or transformer configuration file: the paths it names, relative to its
    /// kustomization's directory (kustomize loads them with that loader).
    fn config_file(&mut self, file: &Path) -> Result<(), Refusal> {
        if !self.seen.insert(file.to_path_buf()) || self.seen.len() > MAX_FILES || !file.is_file() {
            return Ok(());
        }
        let Ok(loaded) = files::read(file) else {
            return Ok(());
        };
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        for doc in &loaded.documents {
            self.config(&doc.root, &dir, file, None)?;
        }
        Ok(())
    }

    /// Every path-valued key of a configuration (at any depth), relative to `dir`.
    fn config(
        &mut self,
        node: &Node,
        dir: &Path,
        file: &Path,
        at: Option<Span>,
    ) -> Result<(), Refusal> {
        match &node.value {
            Value::Map(entries) => {
                for e in entries {
                    let key = e.key.as_str().unwrap_or("");
                    if CONFIG_PATH_KEYS.contains(&key) {
                        for (reference, span) in strings(&e.value) {
                            let reference = reference
                                .split_once('=')
                                .map_or(reference.as_str(), |(_, p)| p);
                            if reference.contains('\n') || is_remote(reference) {
                                continue;
                            }
                            let target = normalize(&dir.join(reference));
                            self.inside(&target, file, at.unwrap_or(span), reference)?;
                        }
                    } else {
                        self.config(&e.value, dir, file, at)?;
                    }
                }
                Ok(())
            }
            Value::Seq(items) => items.iter().try_for_each(|i| self.config(i, dir, file, at)),
            _ => Ok(()),
        }
    }

    /// `target` (named as `reference` at `span` of `file`) is inside the root, lexically and
    /// with symbolic links resolved ([`super::resolve_links`]); a path that does not exist
    /// reads nothing.
    fn inside(
        &self,
        target: &Path,
        file: &Path,
        span: Span,
        reference: &str,
    ) -> Result<(), Refusal> {
        let refuse = || Refusal {
            file: file.to_path_buf(),
            span,
            reference: if reference.is_empty() {
                target.display().to_string()
            } else {
                reference.to_string()
            },
            remote: false,
        };
        let lexical = normalize(&self.cwd.join(target));
        let within = lexically_within(&lexical, &self.root) || lexical.starts_with(&self.root_abs);
        if Path::new(reference).is_absolute() || !within {
            return Err(refuse());
        }
        // A link that leads to nothing outside still leads outside (a revision's tree written
        // elsewhere keeps the link, not what it pointed at).
        if !super::resolve_links(&self.cwd.join(target)).starts_with(&self.root_abs) {
            return Err(refuse());
        }
        Ok(())
    }
}

/// Whether the normalized relative path `target` is `root` or below it.
fn lexically_within(target: &Path, root: &Path) -> bool {
    if target
        .components()
        .any(|c| matches!(c, Component::ParentDir))
        && !root.components().any(|c| matches!(c, Component::ParentDir))
    {
        return false;
    }
    target.starts_with(root)
}

/// What kind of thing a kustomization field names.
pub(super) enum Named {
    /// A resource, base or component: a file, or a directory with a kustomization.
    Resource,
    /// A file kustomize reads as data (a patch, a generator input, a replacement source).
    Data,
    /// A generator, transformer or validator configuration file or directory.
    Config,
    /// A configuration written inline (its text).
    InlineConfig(String),
    /// A resource, base or component kustomize fetches from a URL.
    Remote,
}

/// Every path a kustomization file names, with where and what kind (kustomize's
/// `types.Kustomization`, api/types/kustomization.go, field by field).
pub(super) fn references(root: &Node) -> Vec<(String, Span, Named)> {
    let mut out = Vec::new();
    let mut add = |node: &Node, what: fn(&str) -> Named| {
        for (s, span) in strings(node) {
            if s.contains('\n') || s.contains(": ") {
                // An inline patch or configuration, not a path.
                if matches!(what(""), Named::Config) {
                    out.push((String::new(), span, Named::InlineConfig(s)));
                }
                continue;
            }
            // Before `key=path` is split: a URL's query (`?ref=v1`) has an `=` too.
            if is_remote(&s) {
                if matches!(what(&s), Named::Resource) {
                    out.push((s, span, Named::Remote));
                }
                continue;
            }
            let s = s.split_once('=').map_or(s.as_str(), |(_, p)| p).to_string();
            if s.is_empty() {
                continue;
            }
            let w = what(&s);
            out.push((s, span, w));
        }
    };
    for (key, value) in root
        .as_map()
        .unwrap_or(&[])
        .iter()
        .filter_map(|e| Some((e.key.as_str()?, &e.value)))
    {
        match key {
            "resources" | "bases" | "components" => add(value, |_| Named::Resource),
            "crds" | "configurations" | "patchesStrategicMerge" => add(value, |_| Named::Data),
            "generators" | "transformers" | "validators" => add(value, |_| Named::Config),
            "patches" | "patchesJson6902" | "replacements" => {
                for item in value.as_seq().unwrap_or(&[]) {
                    if let Some(p) = item.get("path") {
                        add(p, |_| Named::Data);
                    }
                }
            }
            "configMapGenerator" | "secretGenerator" => {
                for item in value.as_seq().unwrap_or(&[]) {
                    for k in ["files", "envs", "env"] {
                        if let Some(p) = item.get(k) {
                            add(p, |_| Named::Data);
                        }
                    }
                }
            }
            "openapi" => {
                if let Some(p) = value.get("path") {
                    add(p, |_| Named::Data);
                }
            }
            "helmGlobals" => {
                for k in ["chartHome", "configHome"] {
                    if let Some(p) = value.get(k) {
                        add(p, |_| Named::Data);
                    }
                }
            }
            "helmCharts" | "helmChartInflationGenerator" => {
                for item in value.as_seq().unwrap_or(&[]) {
                    for k in ["valuesFile", "additionalValuesFiles", "chartHome", "values"] {
                        if let Some(p) = item.get(k) {
                            add(p, |_| Named::Data);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The strings of a scalar or a sequence of scalars, with their places.
fn strings(node: &Node) -> Vec<(String, Span)> {
    match &node.value {
        Value::Seq(items) => items
            .iter()
            .filter_map(|i| Some((i.scalar_text()?.into_owned(), i.span)))
            .collect(),
        _ => node
            .scalar_text()
            .map(|s| vec![(s.into_owned(), node.span)])
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, name: &str, text: &str) {
        let p = root.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A URL resource is refused before kustomize could fetch it, at its entry, unless
    /// remote resources are allowed; a URL elsewhere (a helm chart's repo) is not a resource.
    #[test]
    fn a_remote_resource_is_refused_unless_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for url in [
            "https://169.254.169.254/latest/meta-data/x.yaml",
            "github.com/stefanprodan/podinfo/kustomize?ref=6.7.1",
            "git@github.com:org/repo.git//base",
        ] {
            write(
                root,
                "app/kustomization.yaml",
                &format!("namespace: web\nresources:\n  - pp.yaml\n  - {url}\n"),
            );
            write(root, "app/pp.yaml", "kind: PropagationPolicy\n");
            let refused = check(&root.join("app"), root, false).unwrap_err();
            assert!(refused.remote, "{url}");
            assert_eq!(refused.reference, url);
            assert_eq!((refused.span.start.line, refused.span.start.col), (4, 5));
            assert!(refused.to_string().contains("nothing was fetched"));
            assert_eq!(check(&root.join("app"), root, true), Ok(()), "{url}");
        }
    }

    #[test]
    fn a_file_above_the_kustomization_but_inside_the_repository_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "namespace.yaml", "kind: Namespace\n");
        write(
            root,
            "app/kustomization.yaml",
            "resources: [../namespace.yaml, pp.yaml]\n",
        );
        write(root, "app/pp.yaml", "kind: PropagationPolicy\n");
        assert_eq!(check(&root.join("app"), root, false), Ok(()));
    }

    #[test]
    fn paths_leaving_the_repository_are_refused_wherever_they_are_named() {
        let cases = [
            "resources: [../../../../../../../../etc/passwd]\n",
            "resources: [/etc/passwd]\n",
            "patches:\n  - path: ../../../../../../../../etc/hostname\n",
            "configMapGenerator:\n  - name: x\n    files: [k=../../../../../../../etc/passwd]\n",
            "transformers:\n  - |-\n    apiVersion: builtin\n    kind: PatchTransformer\n    metadata: {name: p}\n    path: ../../../../../../../../etc/passwd\n",
            "transformers: [t.yaml]\n",
        ];
        for text in cases {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("repo");
            write(&root, "app/kustomization.yaml", text);
            write(
                &root,
                "app/t.yaml",
                "apiVersion: builtin\nkind: PatchStrategicMergeTransformer\nmetadata: {name: t}\npaths: [../../../../../../../etc/passwd]\n",
            );
            let refused = check(&root.join("app"), &root, false).expect_err(text);
            assert!(
                refused.reference.ends_with("etc/passwd")
                    || refused.reference.ends_with("etc/hostname"),
                "{text}: {refused:?}"
            );
        }
    }

    #[test]
    fn a_symbolic_link_out_of_the_repository_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        write(
            &root,
            "app/kustomization.yaml",
            "resources: [secret.yaml]\n",
        );
        write(dir.path(), "outside.yaml", "kind: Secret\n");
        std::os::unix::fs::symlink(
            dir.path().join("outside.yaml"),
            root.join("app/secret.yaml"),
        )
        .unwrap();
        let refused = check(&root.join("app"), &root, false).unwrap_err();
        assert_eq!(refused.reference, "secret.yaml");
        assert_eq!(refused.span.start.line, 1);
    }
}
