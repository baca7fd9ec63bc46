//! Rendering roots with the real kustomize: the standalone `kustomize build` if on PATH, else
//! `kubectl kustomize` (kubectl embeds it), or the configured command.
//!
//! Each root is built through a temporary wrapper kustomization that lists it as its only
//! resource and asks for `buildMetadata: [originAnnotations, transformerAnnotations]`, so every
//! rendered object says which file it came from, without touching the user's files. Plugins
//! and Helm inflation stay off unless the configuration turns them on.

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
}

/// A rendered root: the stream, and the directory it was built in (origin paths are relative
/// to it; it is gone once the build returns, but the paths resolve lexically).
#[derive(Debug, Clone)]
pub struct Build {
    pub text: String,
    pub dir: PathBuf,
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
}

impl Kustomize {
    /// The configured command, else `kustomize build` when on PATH, else `kubectl kustomize`.
    /// `None` when neither program exists.
    pub fn find(configured: Option<&str>) -> Option<Kustomize> {
        let command: Vec<String> = match configured {
            Some(c) => c.split_whitespace().map(str::to_string).collect(),
            None if on_path("kustomize") => vec!["kustomize".into(), "build".into()],
            None if on_path("kubectl") => vec!["kubectl".into(), "kustomize".into()],
            None => return None,
        };
        (!command.is_empty()).then_some(Kustomize {
            command,
            plugins: false,
            helm: false,
        })
    }

    /// Builds `root` (a kustomization directory) and returns the rendered stream with origin
    /// and transformer annotations.
    pub fn build(&self, root: &Path) -> Result<Build, RenderError> {
        let run_error = |message: String| RenderError::Run {
            command: self.command.join(" "),
            message,
        };
        let wrapper = tempfile::Builder::new()
            .prefix("karmada-policy-render-")
            .tempdir()
            .map_err(|e| run_error(e.to_string()))?;
        let wrapper_dir = wrapper
            .path()
            .canonicalize()
            .map_err(|e| run_error(e.to_string()))?;
        let root_abs = root.canonicalize().map_err(|e| run_error(e.to_string()))?;
        let resource = relative(&wrapper_dir, &root_abs);
        let text = format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - {}\nbuildMetadata: [originAnnotations, transformerAnnotations]\n",
            yaml_quote(&resource.to_string_lossy())
        );
        std::fs::write(wrapper_dir.join("kustomization.yaml"), text)
            .map_err(|e| run_error(e.to_string()))?;
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..]);
        if self.plugins {
            cmd.arg("--enable-alpha-plugins");
        }
        if self.helm {
            cmd.arg("--enable-helm");
        }
        cmd.arg(&wrapper_dir);
        let out = cmd.output().map_err(|e| run_error(e.to_string()))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(RenderError::Build(clean_message(&stderr, &wrapper_dir)));
        }
        Ok(Build {
            text: String::from_utf8_lossy(&out.stdout).into_owned(),
            dir: wrapper_dir,
        })
    }

    /// Builds every root, at most `workers` at a time; a root listed twice is built once.
    pub fn build_all(
        &self,
        roots: &[PathBuf],
        workers: usize,
    ) -> BTreeMap<PathBuf, Result<Build, RenderError>> {
        let unique: Vec<&PathBuf> = {
            let mut seen = std::collections::BTreeSet::new();
            roots.iter().filter(|r| seen.insert(*r)).collect()
        };
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results = std::sync::Mutex::new(BTreeMap::new());
        std::thread::scope(|scope| {
            for _ in 0..workers.clamp(1, unique.len().max(1)) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(root) = unique.get(i) else { break };
                    let rendered = self.build(root);
                    results
                        .lock()
                        .expect("no render panics")
                        .insert((*root).clone(), rendered);
                });
            }
        });
        results.into_inner().expect("no render panics")
    }
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

/// kustomize's message without the logging prefix kubectl adds (`E1202 ... "command failed"
/// err=<...>`), deprecation warnings, or the wrapper's temporary path.
fn clean_message(stderr: &str, wrapper: &Path) -> String {
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
    let text = text.replace(&format!("{}/", wrapper.display()), "");
    let text = text.trim_start_matches("Error: ").to_string();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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

fn yaml_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
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
    fn kubectl_logging_is_cleaned_from_kustomize_messages() {
        let stderr = "# Warning: 'patchesJson6902' is deprecated.\nE1202 01:05:53.956860   19545 run.go:72] \"command failed\" err=<\n\ttrouble configuring builtin PatchTransformer with config: `\n\tpath: placement.yaml\n\t`: unable to parse SM or JSON patch\n >\n";
        assert_eq!(
            clean_message(stderr, Path::new("/tmp/w")),
            "trouble configuring builtin PatchTransformer with config: ` path: placement.yaml `: unable to parse SM or JSON patch"
        );
    }
}
