//! `lint PATH...`: findings over files, directories and stdin.

use std::collections::BTreeMap;
use std::path::Path;

use clap::Args as ClapArgs;

use super::common::{stdout_color, write_stdout, CliError, Exit, Inputs};
use crate::lint::{self, registry, Config, Finding, LintOptions, Severity};
use crate::model::KarmadaVersion;
use crate::output::{self, Summary};

pub const AFTER_HELP: &str = "\
Output:
  -o text|json|sarif|github, repeatable; FORMAT=FILE writes that format to a file,
  e.g. `-o text -o sarif=lint.sarif`. At most one format goes to stdout.

Configuration:
  .karmada-policy.yaml is looked up from the current directory upwards (or --config):
  rule severities or `off`, feature gates, Karmada version, known clusters, ignored paths.
  An object can silence a rule for itself with the annotation
  `karmada-policy.io/ignore: \"RULE-ID: reason\"` (a reason is required).

Exit codes:
  0  nothing at or above --fail-on (default: error)
  1  findings at or above --fail-on
  2  usage error, bad configuration or unreadable input";

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Files, directories (recursive over .yaml/.yml/.json, skipping .git) or `-` for stdin.
    pub paths: Vec<String>,
    /// Output format, repeatable: text, json, sarif, github; `FORMAT=FILE` writes to a file.
    #[arg(short = 'o', long = "output", value_name = "FORMAT[=FILE]")]
    pub output: Vec<String>,
    /// Lowest severity that makes the exit code 1: error, warning, info or none.
    #[arg(long = "fail-on", value_name = "SEVERITY", default_value = "error")]
    pub fail_on: String,
    /// Karmada release whose rules apply (e.g. 1.18); default: the newest known, 1.19.
    #[arg(long = "karmada-version", value_name = "VERSION")]
    pub karmada_version: Option<String>,
    /// Feature gates of the Karmada controller manager, e.g. PropagationPolicyPreemption=true.
    #[arg(long = "feature-gates", value_name = "GATE=BOOL,...")]
    pub feature_gates: Option<String>,
    /// Namespace for objects that do not set one (as `kubectl apply -n`).
    #[arg(short = 'n', long = "namespace", default_value = "default")]
    pub namespace: String,
    /// Configuration file (default: .karmada-policy.yaml found from the current directory up).
    #[arg(long = "config", value_name = "FILE")]
    pub config: Option<String>,
    /// Ignore `karmada-policy.io/ignore` annotations.
    #[arg(long = "no-inline-ignores")]
    pub no_inline_ignores: bool,
    /// List every rule with its id, default severity and summary, and exit.
    #[arg(long = "list-rules")]
    pub list_rules: bool,
    /// Print the documentation of one rule and exit.
    #[arg(long = "explain", value_name = "RULE-ID")]
    pub explain: Option<String>,
}

/// One requested output: a format and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSpec {
    pub format: Format,
    pub file: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
}

pub fn parse_outputs(specs: &[String]) -> Result<Vec<OutputSpec>, CliError> {
    let mut out = Vec::new();
    for s in specs {
        let (name, file) = match s.split_once('=') {
            Some((n, f)) if !f.is_empty() => (n, Some(f.to_string())),
            Some((n, _)) => (n, None),
            None => (s.as_str(), None),
        };
        let format = match name {
            "text" => Format::Text,
            "json" => Format::Json,
            "sarif" => Format::Sarif,
            "github" => Format::Github,
            other => {
                return Err(CliError::usage(format!(
                    "unknown output format `{other}`: expected text, json, sarif or github"
                )))
            }
        };
        out.push(OutputSpec { format, file });
    }
    if out.is_empty() {
        out.push(OutputSpec {
            format: Format::Text,
            file: None,
        });
    }
    if out.iter().filter(|o| o.file.is_none()).count() > 1 {
        return Err(CliError::usage(
            "only one output format can go to stdout; write the others to files, e.g. `-o sarif=lint.sarif`",
        ));
    }
    Ok(out)
}

/// `PropagationPolicyPreemption=true,Failover=false`.
pub fn parse_feature_gates(s: &str) -> Result<BTreeMap<String, bool>, CliError> {
    let mut gates = BTreeMap::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=').ok_or_else(|| {
            CliError::usage(format!(
                "invalid feature gate `{part}`: expected NAME=true|false"
            ))
        })?;
        let value = match value.trim().to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(CliError::usage(format!(
                    "invalid feature gate `{part}`: the value must be true or false"
                )))
            }
        };
        gates.insert(name.trim().to_string(), value);
    }
    Ok(gates)
}

fn fail_threshold(s: &str) -> Result<Option<Severity>, CliError> {
    match s {
        "none" => Ok(None),
        other => Severity::parse(other).map(Some).ok_or_else(|| {
            CliError::usage(format!(
                "invalid --fail-on `{other}`: expected error, warning, info or none"
            ))
        }),
    }
}

fn load_config(args: &Args) -> Result<Config, CliError> {
    let path = match &args.config {
        Some(p) => Some(std::path::PathBuf::from(p)),
        None => std::env::current_dir()
            .ok()
            .and_then(|d| Config::discover(&d)),
    };
    match path {
        Some(p) => Config::load(&p, &registry::is_known).map_err(CliError::usage),
        None => Ok(Config::default()),
    }
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    if args.list_rules {
        write_stdout(&list_rules())?;
        return Ok(Exit::Ok);
    }
    if let Some(id) = &args.explain {
        let rule = registry::find(id).ok_or_else(|| {
            CliError::usage(format!(
                "unknown rule `{id}`; `kubectl karmada-policy lint --list-rules` lists them"
            ))
        })?;
        write_stdout(&explain_rule(&rule))?;
        return Ok(Exit::Ok);
    }
    let outputs = parse_outputs(&args.output)?;
    let threshold = fail_threshold(&args.fail_on)?;
    let config = load_config(&args)?;
    let version = match &args.karmada_version {
        Some(v) => v.parse::<KarmadaVersion>().map_err(CliError::usage)?,
        None => config.karmada_version.unwrap_or_default(),
    };
    let mut feature_gates = config.feature_gates.clone();
    if let Some(g) = &args.feature_gates {
        feature_gates.extend(parse_feature_gates(g)?);
    }
    let ignore = |p: &Path| config.ignores(p);
    let inputs = Inputs::read(&args.paths, &args.namespace, &ignore)?;
    let opts = LintOptions {
        version,
        feature_gates,
        known_clusters: config.known_clusters.clone(),
        rules: config.rules.clone(),
        inline_ignores: !args.no_inline_ignores,
    };
    let findings = lint::lint(&inputs.loaded, &inputs.inventory, &opts);
    let mut summary = Summary {
        files: inputs.loaded.len(),
        documents: inputs.inventory.documents.len(),
        policies: inputs.inventory.policies().count(),
        ..Summary::default()
    };
    summary.count(&findings);
    for o in &outputs {
        let text = render(
            o.format,
            &findings,
            &summary,
            o.file.is_none() && stdout_color(),
        );
        match &o.file {
            None => write_stdout(&text)?,
            Some(f) => write_file(f, &text)?,
        }
    }
    let failed = threshold.is_some_and(|t| findings.iter().any(|f| f.severity >= t));
    Ok(if failed { Exit::Failure } else { Exit::Ok })
}

fn render(format: Format, findings: &[Finding], summary: &Summary, color: bool) -> String {
    match format {
        Format::Text => output::text::render(findings, summary, color),
        Format::Json => output::json::render(findings, summary),
        Format::Sarif => output::sarif::render(findings, &registry::all()),
        Format::Github => output::github::render(findings),
    }
}

fn write_file(path: &str, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| CliError::usage(format!("{path}: cannot write: {e}")))
}

/// `--list-rules`: one line per rule.
pub fn list_rules() -> String {
    let rules = registry::all();
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in &rules {
        out.push_str(&format!(
            "{:<width$}  {:<7}  {:<9}  {}\n",
            r.id,
            r.default_severity.as_str(),
            r.group.as_str(),
            r.summary
        ));
    }
    out
}

/// `--explain RULE-ID`: the rule's documentation.
pub fn explain_rule(r: &lint::RuleDoc) -> String {
    let mut out = format!(
        "# {} ({}, default severity: {})\n\n{}\n\n## Why\n{}\n\n## Example\n{}",
        r.id,
        r.group.as_str(),
        r.default_severity.as_str(),
        r.summary,
        r.rationale,
        r.example
    );
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("\n## Fix\n{}\n", r.fix));
    if !r.reference.is_empty() {
        out.push_str(&format!("\n## Reference\n{}\n", r.reference));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_parse_and_only_one_goes_to_stdout() {
        let o = parse_outputs(&["text".into(), "sarif=lint.sarif".into()]).unwrap();
        assert_eq!(o[1].format, Format::Sarif);
        assert_eq!(o[1].file.as_deref(), Some("lint.sarif"));
        assert!(parse_outputs(&["text".into(), "json".into()]).is_err());
        assert!(parse_outputs(&["xml".into()]).is_err());
        assert_eq!(parse_outputs(&[]).unwrap()[0].format, Format::Text);
    }

    #[test]
    fn feature_gates_parse() {
        let g = parse_feature_gates("PropagationPolicyPreemption=true, Failover=False").unwrap();
        assert!(g["PropagationPolicyPreemption"]);
        assert!(!g["Failover"]);
        assert!(parse_feature_gates("X=maybe").is_err());
        assert!(parse_feature_gates("X").is_err());
    }
}
