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
        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..])
            .arg("template")
            .arg(&release)
            .arg(dir);
        for v in values {
            cmd.arg("-f").arg(v);
        }
        let out = cmd.output().map_err(|e| RenderError::Run {
            command: self.command.join(" "),
            message: e.to_string(),
        })?;
        if !out.status.success() {
            let message = String::from_utf8_lossy(&out.stderr);
            let message = message.trim().trim_start_matches("Error: ");
            return Err(RenderError::Build(message.to_string()));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
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
