//! Rendering roots with the real kustomize: the standalone `kustomize build` if on PATH, else
//! `kubectl kustomize` (kubectl embeds it), or the configured command.
//!
//! Each root is built through a temporary wrapper kustomization that lists it as its only
//! resource and asks for `buildMetadata: [originAnnotations, transformerAnnotations]`, so every
//! rendered object says which file it came from, without touching the user's files. Plugins
//! and Helm inflation stay off unless the configuration turns them on. A root a Flux
//! Kustomization applies is built as Flux builds it: load restrictor off, its
//! `targetNamespace`, `namePrefix` and `nameSuffix` on top, and every file it names checked to
//! lie inside the repository first ([`super::confine`]). A controller's `namePrefix` or
//! `nameSuffix` replaces the root's own: such a root is built in a copy of the repository
//! whose kustomization lacks it ([`super::mirror`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The annotations the wrapper asks for; stripped before any rule sees an object.
pub const ORIGIN_ANNOTATION: &str = "config.kubernetes.io/origin";
pub const TRANSFORMATIONS_ANNOTATION: &str = "alpha.config.kubernetes.io/transformations";

/// How to run kustomize.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kustomize {
    /// The program and its leading arguments, e.g. `["kubectl", "kustomize"]`; the directory
    /// to build is appended.
    pub command: Vec<String>,
    /// `--enable-alpha-plugins` (exec and KRM function plugins).
    pub plugins: bool,
    /// `--enable-helm` (the `helmCharts` inflator).
    pub helm: bool,
    /// Whether remote resources (URLs) may be fetched; refused before the build otherwise
    /// ([`super::confine::check`]).
    pub remote: bool,
}

/// A rendered root: the stream, and the directory it was built in (origin paths are relative
/// to it; it is gone once the build returns, but the paths resolve lexically).
#[derive(Debug, Clone)]
pub struct Build {
    pub text: String,
    pub dir: PathBuf,
}

/// One build: a kustomization directory and how it is built.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BuildSpec {
    pub dir: PathBuf,
    /// As Flux's kustomize-controller builds: kustomize's load restrictor off (fluxcd/pkg
    /// `kustomize.Build`: `LoadRestrictionsNone`), every file confined to the repository
    /// beforehand ([`super::confine`]).
    pub flux: bool,
    /// A Flux Kustomization's `targetNamespace`, `namePrefix` and `nameSuffix`, applied on top
    /// (the kustomize-controller writes them into the kustomization it builds).
    pub namespace: Option<String>,
    pub name_prefix: Option<String>,
    pub name_suffix: Option<String>,
    /// What else the GitOps controller writes into the kustomization it builds (a Flux
    /// Kustomization's `patches`, `images`, `commonMetadata`; an Argo CD source's
    /// `kustomize` settings): each a kustomization field and its value as JSON (which is YAML).
    pub fields: Vec<(&'static str, String)>,
    /// Their `components`, resolved against the repository.
    pub components: Vec<PathBuf>,
    /// For a directory without a kustomization that the controller builds anyway (a Flux
    /// Kustomization with transformations over a plain directory): the files and
    /// kustomization directories the kustomization it generates lists (fluxcd/pkg
    /// `scanManifests`). Empty: `dir` is the kustomization.
    pub resources: Vec<PathBuf>,
    /// Why the controller's own edit of the kustomization fails before anything is built
    /// (Argo CD's `kustomize edit add label` of a key the kustomization has, without
    /// `--force`): the build fails with these words.
    pub edit_error: Option<String>,
    /// For a plain directory Flux generates a kustomization for: the file its `scanManifests`
    /// cannot decode, found while planning (fluxcd/pkg kustomize/kustomize_generator.go):
    /// the build fails with it, nothing is built and no file is read again.
    pub decode_error: Option<super::scan::Undecodable>,
}

impl BuildSpec {
    /// A plain build of `dir` (kustomize's defaults, as Argo CD and `kubectl kustomize` build).
    pub fn plain(dir: &Path) -> BuildSpec {
        BuildSpec {
            dir: dir.to_path_buf(),
            ..BuildSpec::default()
        }
    }
}

/// Why a root did not render.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RenderError {
    /// kustomize ran and refused the root: its message, cleaned of logging decoration.
    #[error("kustomize build failed: {0}")]
    Build(String),
    /// kustomize could not be started or the wrapper could not be written.
    #[error("cannot run `{command}`: {message}")]
    Run { command: String, message: String },
    /// A file of a plain directory Flux generates a kustomization for is not Kubernetes YAML:
    /// the kustomize-controller fails before it builds (fluxcd/pkg
    /// kustomize/kustomize_generator.go `scanManifests`), with these words.
    #[error("{0}")]
    Decode(super::scan::Undecodable),
    /// The GitOps controller's edit of the kustomization failed: nothing was built.
    #[error("{0}")]
    Edit(String),
    /// A kustomization names a path outside the repository: the build was not started.
    #[error("{0}")]
    Refused(super::confine::Refusal),
}

impl Kustomize {
    /// The configured command, else `kustomize build` when on PATH, else `kubectl kustomize`.
    /// `None` when neither program exists.
    pub fn find(configured: Option<&str>) -> Option<Kustomize> {
        // An empty setting is no setting.
        let command: Vec<String> = match configured.filter(|c| !c.trim().is_empty()) {
            Some(c) => c.split_whitespace().map(str::to_string).collect(),
            None if on_path("kustomize") => vec!["kustomize".into(), "build".into()],
            None if on_path("kubectl") => vec!["kubectl".into(), "kustomize".into()],
            None => return None,
        };
        (!command.is_empty()).then_some(Kustomize {
            command,
            plugins: false,
            helm: false,
            remote: false,
        })
    }

    /// Builds `root` (a kustomization directory) and returns the rendered stream with origin
    /// and transformer annotations.
    pub fn build(&self, root: &Path) -> Result<Build, RenderError> {
        self.build_spec(&BuildSpec::plain(root), None)
    }

    /// Builds as `spec` says. With `repository`, nothing the kustomizations name may lie
    /// outside it ([`super::confine::check`]): such a build is refused before it starts.
    pub fn build_spec(
        &self,
        spec: &BuildSpec,
        repository: Option<&Path>,
    ) -> Result<Build, RenderError> {
        if let Some(repo) = repository {
            super::confine::check(&spec.dir, repo, self.remote).map_err(RenderError::Refused)?;
        }
        if let Some(message) = &spec.edit_error {
            return Err(RenderError::Edit(message.clone()));
        }
        if let Some(verdict) = &spec.decode_error {
            return Err(RenderError::Decode(verdict.clone()));
        }
        let run_error = |message: String| RenderError::Run {
            command: self.command.join(" "),
            message,
        };
        // The controller's name prefix or suffix replaces the root's own: built in a copy
        // whose kustomization lacks it, the wrapper inside the copy ([`super::mirror`]).
        let replaced: Vec<&str> = [
            ("namePrefix", spec.name_prefix.is_some()),
            ("nameSuffix", spec.name_suffix.is_some()),
        ]
        .into_iter()
        .filter_map(|(field, set)| set.then_some(field))
        .collect();
        let mirror = match repository {
            Some(repo) if spec.resources.is_empty() && !replaced.is_empty() => {
                super::mirror::for_root(&spec.dir, &replaced, repo)
                    .map_err(|e| run_error(e.to_string()))?
            }
            _ => None,
        };
        let mut wrapper = tempfile::Builder::new();
        wrapper.prefix("karmada-policy-render-");
        let wrapper = match &mirror {
            Some(m) => wrapper.tempdir_in(&m.copy),
            None => wrapper.tempdir(),
        }
        .map_err(|e| run_error(e.to_string()))?;
        let wrapper_dir = wrapper
            .path()
            .canonicalize()
            .map_err(|e| run_error(e.to_string()))?;
        let in_copy = |p: PathBuf| match &mirror {
            Some(m) => m.inside(&p),
            None => p,
        };
        let root_abs = super::as_dir(&spec.dir)
            .canonicalize()
            .map(in_copy)
            .map_err(|e| run_error(e.to_string()))?;
        let resource = super::relative(&wrapper_dir, &root_abs);
        let listed: Vec<PathBuf> = if spec.resources.is_empty() {
            vec![resource.clone()]
        } else {
            spec.resources
                .iter()
                .map(|r| {
                    let r = super::as_dir(r)
                        .canonicalize()
                        .unwrap_or_else(|_| r.clone());
                    super::relative(&wrapper_dir, &r)
                })
                .collect()
        };
        let components: Vec<PathBuf> = spec
            .components
            .iter()
            .map(|c| {
                let c = super::as_dir(c)
                    .canonicalize()
                    .map(in_copy)
                    .unwrap_or_else(|_| c.clone());
                super::relative(&wrapper_dir, &c)
            })
            .collect();
        std::fs::write(
            wrapper_dir.join("kustomization.yaml"),
            wrapper_text(spec, &listed, &components),
        )
        .map_err(|e| run_error(e.to_string()))?;
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..]);
        if self.plugins {
            cmd.arg("--enable-alpha-plugins");
        }
        if self.helm {
            cmd.arg("--enable-helm");
        }
        if spec.flux {
            cmd.arg("--load-restrictor=LoadRestrictionsNone");
        }
        cmd.arg(&wrapper_dir);
        let out = cmd.output().map_err(|e| run_error(e.to_string()))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let cwd = std::env::current_dir().and_then(|d| d.canonicalize()).ok();
            let shown = Shown {
                wrapper: &wrapper_dir,
                root_abs: &root_abs,
                root: &spec.dir,
                resource: &resource,
                listed: &spec
                    .resources
                    .iter()
                    .cloned()
                    .zip(listed)
                    .collect::<Vec<_>>(),
                mirror: mirror
                    .as_ref()
                    .map(|m| (m.copy.as_path(), m.repository.as_path())),
                cwd: cwd.as_deref(),
            };
            return Err(RenderError::Build(clean_message(&stderr, &shown)));
        }
        // Origins are relative to the wrapper: inside a copy, they name the repository's files
        // from the place the wrapper has in the copy.
        let dir = match &mirror {
            Some(m) => m
                .repository
                .join(wrapper_dir.strip_prefix(&m.copy).unwrap_or(&wrapper_dir)),
            None => wrapper_dir,
        };
        Ok(Build {
            text: String::from_utf8_lossy(&out.stdout).into_owned(),
            dir,
        })
    }

    /// Builds every root, at most `workers` at a time; a root listed twice is built once.
    pub fn build_all(
        &self,
        roots: &[PathBuf],
        workers: usize,
    ) -> BTreeMap<PathBuf, Result<Build, RenderError>> {
        let specs: Vec<BuildSpec> = roots.iter().map(|r| BuildSpec::plain(r)).collect();
        self.build_specs(&specs, None, workers)
            .into_iter()
            .map(|(s, r)| (s.dir, r))
            .collect()
    }

    /// Builds every spec, at most `workers` at a time; a spec listed twice is built once.
    pub fn build_specs(
        &self,
        specs: &[BuildSpec],
        repository: Option<&Path>,
        workers: usize,
    ) -> BTreeMap<BuildSpec, Result<Build, RenderError>> {
        let unique: Vec<&BuildSpec> = {
            let mut seen = std::collections::BTreeSet::new();
            specs.iter().filter(|r| seen.insert(*r)).collect()
        };
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results = std::sync::Mutex::new(BTreeMap::new());
        std::thread::scope(|scope| {
            for _ in 0..workers.clamp(1, unique.len().max(1)) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(spec) = unique.get(i) else { break };
                    let rendered = self.build_spec(spec, repository);
                    results
                        .lock()
                        .expect("no render panics")
                        .insert((*spec).clone(), rendered);
                });
            }
        });
        results.into_inner().expect("no render panics")
    }
}

/// The wrapper kustomization: the root as its only resource (or the files and directories a
/// controller lists for a directory without a kustomization), the build metadata that traces
/// each object to its file, and the GitOps controller's own transformations (`components`
/// relative to the wrapper). The controllers write these into the root's own kustomization
/// (fluxcd/pkg `kustomize.Generator.WriteFile`, Argo CD's `kustomize edit set ...`); on top of
/// it they give the same output but where a patch or image targets a name the root's own
/// `namePrefix` changes, which kustomize matches before the prefix in one kustomization.
fn wrapper_text(spec: &BuildSpec, resources: &[PathBuf], components: &[PathBuf]) -> String {
    let mut text = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
        .to_string();
    for r in resources {
        text.push_str(&format!("  - {}\n", yaml_quote(&r.to_string_lossy())));
    }
    text.push_str("buildMetadata: [originAnnotations, transformerAnnotations]\n");
    for (key, value) in [
        ("namespace", &spec.namespace),
        ("namePrefix", &spec.name_prefix),
        ("nameSuffix", &spec.name_suffix),
    ] {
        if let Some(v) = value {
            text.push_str(&format!("{key}: {}\n", yaml_quote(v)));
        }
    }
    if !components.is_empty() {
        text.push_str("components:\n");
        for c in components {
            text.push_str(&format!("  - {}\n", yaml_quote(&c.to_string_lossy())));
        }
    }
    for (key, json) in &spec.fields {
        text.push_str(&format!("{key}: {json}\n"));
    }
    text
}

/// How many builds run at once: kustomize is a separate process, so a few more than the cores,
/// but bounded so a repository of hundreds of roots does not start hundreds of processes.
pub fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 8)
}

/// Whether `program` is an executable file in a PATH directory.
pub fn on_path(program: &str) -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    std::env::split_paths(&path).any(|d| {
        let p = d.join(program);
        p.is_file()
            && std::fs::metadata(&p).is_ok_and(|m| {
                use std::os::unix::fs::PermissionsExt;
                m.permissions().mode() & 0o111 != 0
            })
    })
}

/// The places a build's message may name, to show them as the user names them.
struct Shown<'a> {
    /// The temporary wrapper directory (never shown).
    wrapper: &'a Path,
    /// The root, canonical, and as the user named it.
    root_abs: &'a Path,
    root: &'a Path,
    /// The root as the wrapper names it (relative to the wrapper).
    resource: &'a Path,
    /// The files and directories the wrapper lists for a plain directory: as the user names
    /// them, and as the wrapper does (relative to it, through the temporary directory).
    listed: &'a [(PathBuf, PathBuf)],
    /// The copy of the repository the build ran in, and the repository ([`super::mirror`]).
    mirror: Option<(&'a Path, &'a Path)>,
    /// The working directory, canonical: file names are shown relative to it, as the report
    /// names files. `lint --base` renders the base in a temporary copy of the repository, so
    /// an absolute path would make the same failure differ between the two sides.
    cwd: Option<&'a Path>,
}

/// kustomize's message without the logging prefix kubectl adds (`E1202 ... "command failed"
/// err=<...>`), deprecation warnings, and the wrapper's own accumulation of the root
/// (`accumulating resources from '../../repo': '/repo' must resolve to a file': recursed
/// accumulation of path '/repo': `); the repository's absolute paths and the wrapper's
/// relative one are shown as the user names the root, and no temporary path is left.
fn clean_message(stderr: &str, shown: &Shown<'_>) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("# Warning:"))
        .collect();
    let mut text = lines.join("\n");
    if let Some(i) = text.find("err=") {
        text = text[i + 4..].to_string();
    }
    let text = text
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim()
        .trim_matches('"')
        .replace("\\'", "'")
        .replace("\\\"", "\"");
    let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let root_abs = shown.root_abs.display().to_string();
    let marker = format!("recursed accumulation of path '{root_abs}': ");
    if let Some(i) = text.find(&marker) {
        text = text[i + marker.len()..].to_string();
    }
    // The root as the user named it; the directory the tool runs in (the empty path) is `.`,
    // and a path below it is shown relative, without a leading `/`.
    let user_root = super::shown_dir(shown.root);
    let user_prefix = match shown.root.as_os_str().is_empty() {
        true => String::new(),
        false => format!("{user_root}/"),
    };
    let text = text
        .trim_start_matches("Error: ")
        .replace(&format!("{}/", shown.wrapper.display()), "")
        .replace(&shown.wrapper.display().to_string(), "<render>")
        .replace(
            &format!("'{}'", shown.resource.display()),
            &format!("'{user_root}'"),
        )
        .replace(&format!("{root_abs}/"), &user_prefix)
        .replace(&root_abs, &user_root);
    let text = shown.listed.iter().fold(text, |text, (user, wrapped)| {
        text.replace(
            &format!("'{}'", wrapped.display()),
            &format!("'{}'", user.display()),
        )
    });
    let text = match shown.mirror {
        Some((copy, repository)) => text.replace(
            &copy.display().to_string(),
            &repository.display().to_string(),
        ),
        None => text,
    };
    let text = match shown.cwd {
        Some(cwd) => text.replace(&format!("{}/", cwd.display()), ""),
        None => text,
    };
    // Another temporary directory (a nested build's) is not the user's either.
    text.split(' ')
        .map(|w| {
            if w.contains("karmada-policy-render-") {
                "<render>"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn yaml_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::super::scan::Undecodable;
    use super::*;

    fn shown<'a>(root: &'a Path) -> Shown<'a> {
        Shown {
            wrapper: Path::new("/tmp/karmada-policy-render-x1"),
            root_abs: Path::new("/home/u/repo/app"),
            root,
            resource: Path::new("../../home/u/repo/app"),
            listed: &[],
            mirror: None,
            cwd: Some(Path::new("/home/u")),
        }
    }

    /// A path outside the root, below the working directory (a sibling kustomization's file),
    /// is named as the report names files: relative to where the tool runs. Found on
    /// keiretsu-labs/kubernetes-manifests, where `lint --base` called the same failure new
    /// because each side's message held its own absolute path.
    #[test]
    fn paths_below_the_working_directory_are_relative() {
        let stderr = "err=\"accumulating resources from '../../../common/ks.yaml': evalsymlink failure on '/home/u/clusters/common/ks.yaml' : lstat /home/u/clusters/common/ks.yaml: no such file or directory\"";
        assert_eq!(
            clean_message(stderr, &shown(Path::new("repo/app"))),
            "accumulating resources from '../../../common/ks.yaml': evalsymlink failure on 'clusters/common/ks.yaml' : lstat clusters/common/ks.yaml: no such file or directory"
        );
    }

    #[test]
    fn kubectl_logging_is_cleaned_from_kustomize_messages() {
        let stderr = "# Warning: 'patchesJson6902' is deprecated.\nE1202 01:05:53.956860   19545 run.go:72] \"command failed\" err=<\n\ttrouble configuring builtin PatchTransformer with config: `\n\tpath: placement.yaml\n\t`: unable to parse SM or JSON patch\n >\n";
        assert_eq!(
            clean_message(stderr, &shown(Path::new("app"))),
            "trouble configuring builtin PatchTransformer with config: ` path: placement.yaml `: unable to parse SM or JSON patch"
        );
    }

    #[test]
    fn the_wrapper_never_shows_in_a_message() {
        let stderr = "E1203 run.go:72] \"command failed\" err=\"accumulating resources: accumulation err='accumulating resources from '../../home/u/repo/app': '/home/u/repo/app' must resolve to a file': recursed accumulation of path '/home/u/repo/app': accumulating resources: accumulating resources from 'pp.yaml': MalformedYAMLError: yaml: line 7: mapping values are not allowed in this context in File: pp.yaml\"";
        let m = clean_message(stderr, &shown(Path::new("repo/app")));
        assert_eq!(m, "accumulating resources: accumulating resources from 'pp.yaml': MalformedYAMLError: yaml: line 7: mapping values are not allowed in this context in File: pp.yaml");
        let stderr = "err=\"open /tmp/karmada-policy-render-x1/kustomization.yaml: x, see /home/u/repo/app/kustomization.yaml and /tmp/karmada-policy-render-zz/a\"";
        let m = clean_message(stderr, &shown(Path::new("repo/app")));
        assert_eq!(
            m,
            "open kustomization.yaml: x, see repo/app/kustomization.yaml and <render>"
        );
    }

    /// A file a plain directory's wrapper lists is named as the user names it, not through
    /// the temporary directory the wrapper reaches it from.
    #[test]
    fn a_listed_file_is_named_as_the_user_names_it() {
        let listed = [(
            PathBuf::from("apps/values.yaml"),
            PathBuf::from("../tmp.x1/apps/values.yaml"),
        )];
        let shown = Shown {
            listed: &listed,
            ..shown(Path::new("apps"))
        };
        let stderr = "err=\"accumulating resources: accumulation err='accumulating resources from '../tmp.x1/apps/values.yaml': missing Resource metadata'\"";
        let m = clean_message(stderr, &shown);
        assert_eq!(m, "accumulating resources: accumulation err='accumulating resources from 'apps/values.yaml': missing Resource metadata'");
    }

    /// A kustomize that cannot run: a build that reaches it fails with `RenderError::Run`.
    fn not_installed() -> Kustomize {
        Kustomize {
            command: vec!["/nonexistent/kustomize".into()],
            plugins: false,
            helm: false,
            remote: false,
        }
    }

    /// The plan's verdict on a plain directory is the build's failure, as the plan found it:
    /// the files are not read again (this one decodes, and is never looked at).
    #[test]
    fn a_flux_build_fails_with_the_plans_decode_verdict_without_reading_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("policy.yaml");
        std::fs::write(&file, "kind: ConfigMap\nmetadata: {name: a}\n").unwrap();
        let verdict = Undecodable {
            file: PathBuf::from("apps/values.yaml"),
            line: 1,
            message: "missing Resource metadata".into(),
        };
        let spec = BuildSpec {
            dir: dir.path().to_path_buf(),
            flux: true,
            resources: vec![file],
            decode_error: Some(verdict.clone()),
            ..BuildSpec::default()
        };
        match not_installed().build_spec(&spec, None) {
            Err(RenderError::Decode(u)) => assert_eq!(u, verdict),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            RenderError::Decode(verdict).to_string(),
            "failed to decode Kubernetes YAML from apps/values.yaml: missing Resource metadata"
        );
    }

    /// Without a verdict the build does not decode the files itself: a file Flux would refuse
    /// is the plan's to find, and what is listed goes to kustomize.
    #[test]
    fn a_flux_build_without_a_verdict_does_not_scan_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("values.yaml");
        std::fs::write(&file, "replicas: 2\n").unwrap();
        let spec = BuildSpec {
            dir: dir.path().to_path_buf(),
            flux: true,
            resources: vec![file],
            ..BuildSpec::default()
        };
        let err = not_installed().build_spec(&spec, None).unwrap_err();
        assert!(matches!(err, RenderError::Run { .. }), "{err:?}");
    }

    #[test]
    fn a_flux_build_wraps_its_transformations() {
        let spec = BuildSpec {
            dir: PathBuf::from("apps"),
            flux: true,
            namespace: Some("web".into()),
            name_prefix: Some("eu-".into()),
            name_suffix: None,
            fields: vec![("images", r#"[{"name":"nginx","newTag":"1.2"}]"#.into())],
            components: vec![PathBuf::from("components/ha")],
            resources: Vec::new(),
            edit_error: None,
            decode_error: None,
        };
        let text = wrapper_text(
            &spec,
            &[PathBuf::from("../repo/apps")],
            &[PathBuf::from("../repo/components/ha")],
        );
        assert!(
            text.ends_with(
                "namespace: 'web'\nnamePrefix: 'eu-'\ncomponents:\n  - '../repo/components/ha'\nimages: [{\"name\":\"nginx\",\"newTag\":\"1.2\"}]\n"
            ),
            "{text}"
        );
    }
}
