//! Helm charts: a directory with `Chart.yaml`. With `helm` available its templates are
//! rendered (`helm template`) and each rendered document is traced back to its template through
//! the `# Source:` comment Helm writes above it; without helm the chart is skipped with a note.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::render::{on_path, RenderError};

/// How to run Helm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Helm {
    /// The program and leading arguments (`["helm"]`); `template NAME DIR -f VALUES...` follows.
    pub command: Vec<String>,
}

impl Helm {
    /// The configured command, else `helm` when on PATH.
    pub fn find(configured: Option<&str>) -> Option<Helm> {
        let command: Vec<String> = match configured {
            Some(c) => c.split_whitespace().map(str::to_string).collect(),
            None if on_path("helm") => vec!["helm".into()],
            None => return None,
        };
        (!command.is_empty()).then_some(Helm { command })
    }

    /// `helm template` of the chart in `dir` (release named after the directory), with its own
    /// `values.yaml` and then `values` files.
    pub fn template(&self, dir: &Path, values: &[PathBuf]) -> Result<String, RenderError> {
        let release = dir
            .file_name()
            .map_or("release".into(), |n| n.to_string_lossy().into_owned());
        self.template_with(
            dir,
            &HelmValues {
                release,
                files: values.to_vec(),
                ..HelmValues::default()
            },
        )
    }

    /// `helm template RELEASE DIR` with the values a HelmRelease or an Argo CD Helm source
    /// gives: values files in order, then the inline values (each written to a temporary file,
    /// merged after the files as Flux and Argo CD merge them), then `--set` parameters.
    pub fn template_with(&self, dir: &Path, v: &HelmValues) -> Result<String, RenderError> {
        let run_error = |message: String| RenderError::Run {
            command: self.command.join(" "),
            message,
        };
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..])
            .arg("template")
            .arg(if v.release.is_empty() {
                "release"
            } else {
                &v.release
            })
            .arg(super::as_dir(dir));
        if let Some(ns) = &v.namespace {
            cmd.arg("--namespace").arg(ns);
        }
        for f in &v.files {
            cmd.arg("-f").arg(f);
        }
        let inline_dir = tempfile::Builder::new()
            .prefix("karmada-policy-values-")
            .tempdir()
            .map_err(|e| run_error(e.to_string()))?;
        for (i, text) in v.inline.iter().enumerate() {
            let file = inline_dir.path().join(format!("values-{i}.yaml"));
            std::fs::write(&file, text).map_err(|e| run_error(e.to_string()))?;
            cmd.arg("-f").arg(file);
        }
        for (name, value, string) in &v.set {
            cmd.arg(if *string { "--set-string" } else { "--set" })
                .arg(format!("{name}={value}"));
        }
        let out = cmd.output().map_err(|e| run_error(e.to_string()))?;
        if !out.status.success() {
            let message = String::from_utf8_lossy(&out.stderr);
            let message = message
                .trim()
                .trim_start_matches("Error: ")
                .replace(&format!("{}/", inline_dir.path().display()), "");
            return Err(RenderError::Build(message));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// The values of one chart rendering.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HelmValues {
    /// The release name (`.Release.Name`).
    pub release: String,
    /// The release namespace (`.Release.Namespace`, and where namespaced objects go).
    pub namespace: Option<String>,
    /// Values files (paths), merged after the chart's own `values.yaml`, in order.
    pub files: Vec<PathBuf>,
    /// Inline values (YAML text), merged after the files.
    pub inline: Vec<String>,
    /// `--set NAME=VALUE` (`true`: `--set-string`).
    pub set: Vec<(String, String, bool)>,
}

/// The template file a `# Source: CHART/templates/x.yaml` comment names, inside the chart at
/// `chart_dir` (the first segment is the chart's name; subcharts keep their `charts/` path).
pub fn source_file(comment_path: &str, chart_dir: &Path) -> PathBuf {
    let inside = comment_path
        .split_once('/')
        .map_or(comment_path, |(_, rest)| rest);
    super::normalize(&chart_dir.join(inside))
}

/// The path of a `# Source:` comment line.
pub fn source_comment(line: &str) -> Option<&str> {
    line.trim_start()
        .strip_prefix("# Source:")
        .map(str::trim)
        .filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_comments_name_files_in_the_chart() {
        assert_eq!(
            source_comment("# Source: podinfo/templates/policy.yaml"),
            Some("podinfo/templates/policy.yaml")
        );
        assert_eq!(source_comment("# other"), None);
        assert_eq!(
            source_file(
                "podinfo/charts/redis/templates/a.yaml",
                Path::new("charts/podinfo")
            ),
            PathBuf::from("charts/podinfo/charts/redis/templates/a.yaml")
        );
    }
}
