//! The flags that several subcommands share, each declared once and parsed by clap into typed
//! values (ripgrep's habit): the context flags, how to reach the control plane, and the output
//! formats. A subcommand flattens the groups it takes; none re-declares one of these flags.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args as ClapArgs;

use super::{Context, ContextError, Flags};
use crate::model::feature_gates::GateValues;
use crate::model::KarmadaVersion;

/// What every subcommand that reads inputs is asked in (see [`Context`]).
#[derive(Clone, Debug, Default, ClapArgs)]
pub struct ContextArgs {
    /// Configuration file (default: .karmada-policy.yaml found from the current directory up).
    #[arg(long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Karmada release whose rules apply (e.g. 1.18); default: the configuration's, else the
    /// repository's Karmada installation, else the newest known (1.19).
    #[arg(long = "karmada-version", value_name = "VERSION", value_parser = parse_release)]
    pub karmada_version: Option<KarmadaVersion>,
    /// Feature gates of karmada-controller-manager over the configuration's, e.g.
    /// PropagationPolicyPreemption=true,Failover=true (a gate the release lacks is an error).
    #[arg(long = "feature-gates", value_name = "GATE=BOOL,...", value_parser = parse_gates)]
    pub feature_gates: Option<GateValues>,
    /// Namespace of the objects named and of objects in files that set none (as
    /// `kubectl apply -n`). Default: `default` with files, the kubeconfig context's live.
    #[arg(short = 'n', long = "namespace", value_name = "NAMESPACE")]
    pub namespace: Option<String>,
}

fn parse_release(s: &str) -> Result<KarmadaVersion, String> {
    s.parse()
}

fn parse_gates(s: &str) -> Result<GateValues, String> {
    s.parse()
        .map_err(|e: crate::model::feature_gates::GateError| e.to_string())
}

impl ContextArgs {
    /// The context these flags ask for; `known_rule` tells the configuration's rule ids from
    /// typos.
    pub fn resolve(&self, known_rule: &dyn Fn(&str) -> bool) -> Result<Context, ContextError> {
        Context::resolve(self.flags(), known_rule)
    }

    pub fn flags(&self) -> Flags {
        Flags {
            config: self.config.clone(),
            release: self.karmada_version,
            gates: self.feature_gates.clone(),
            namespace: self.namespace.clone(),
        }
    }
}

/// The manifests a run reads, as kubectl's `-f`, and the environment of a GitOps repository.
#[derive(Clone, Debug, Default, ClapArgs)]
pub struct InputArgs {
    /// Manifests to read: files, directories (recursive over .yaml/.yml/.json) or `-` for
    /// stdin; repeatable. explain and preempt-check read the control plane without -f.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<String>,
    /// Over a GitOps repository: only this environment (a Flux cluster directory or Argo CD
    /// destination, a kustomize root, a chart: its name or directory, as findings' `(in: ...)`
    /// name it). Without it, every environment (explain and preempt-check: those holding what
    /// is asked, a section each). An unknown one exits 2 listing them.
    #[arg(long = "env", value_name = "ENV")]
    pub env: Option<String>,
}

/// The git revisions a run reads (`lint`, `plan`).
#[derive(Clone, Debug, Default, ClapArgs)]
pub struct RevisionArgs {
    /// The tree of a git revision (branch, tag, commit, `HEAD~1`) from the object database
    /// instead of the working tree, without a checkout; PATHs (optional) narrow it to files and
    /// directories of the repository.
    #[arg(long = "rev", value_name = "REV")]
    pub rev: Option<String>,
    /// Compare with a base revision (e.g. origin/main; the merge base with HEAD is used). lint:
    /// only new findings, the templates whose owner changes, and updates Karmada would reject;
    /// plan: what the change does to each environment and member cluster.
    #[arg(long = "base", value_name = "REV")]
    pub base: Option<String>,
}

/// `-o` of the subcommands that print one report (explain, preempt-check).
#[derive(Clone, Debug, ClapArgs)]
pub struct ReportArgs {
    /// Output format: text, json or yaml (the same fields as json).
    #[arg(short = 'o', long = "output", default_value = "text", value_name = "FORMAT",
          value_parser = OutputFormat::parser(OutputFormat::REPORTS))]
    pub output: OutputFormat,
}

/// How to reach the control plane, as kubectl's flags of the same names.
#[derive(Clone, Debug, Default, ClapArgs)]
pub struct KubeArgs {
    /// Path to the kubeconfig file (else KUBECONFIG, else ~/.kube/config). Live mode only.
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use. Live mode only.
    #[arg(long, visible_alias = "karmada-context", value_name = "NAME")]
    pub context: Option<String>,
    /// Timeout of each API request (`0` = none), e.g. 30s, 1m. Live mode only.
    #[arg(long, default_value = "0", value_name = "DURATION",
          value_parser = crate::util::duration::parse_duration)]
    pub request_timeout: Duration,
    /// How many requests run at once (default: 4 reads, or 8 policy writes). Live mode only.
    #[arg(long = "concurrency", value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..))]
    pub concurrency: Option<u16>,
}

impl KubeArgs {
    /// How the client connects.
    pub fn connect_options(&self) -> crate::kube::ConnectOptions {
        crate::kube::ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            request_timeout: Some(self.request_timeout),
        }
    }

    /// `--concurrency`, else `default`.
    pub fn concurrency_or(&self, default: usize) -> usize {
        self.concurrency.map_or(default, usize::from)
    }

    /// Whether a flag that only live mode reads was given (warned of with files).
    pub fn any_given(&self) -> Option<&'static str> {
        if self.kubeconfig.is_some() {
            Some("--kubeconfig")
        } else if self.context.is_some() {
            Some("--context")
        } else {
            None
        }
    }
}

/// Every output format a subcommand can print; each subcommand accepts the ones that fit it
/// ([`OutputFormat::parser`]), so the names are listed here only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Human-readable text (the default).
    Text,
    Json,
    Yaml,
    /// SARIF 2.1.0 for code scanning.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// JUnit XML.
    Junit,
    /// A pull-request comment (`plan`).
    Markdown,
}

impl OutputFormat {
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Text => "text",
            OutputFormat::Json => "json",
            OutputFormat::Yaml => "yaml",
            OutputFormat::Sarif => "sarif",
            OutputFormat::Github => "github",
            OutputFormat::Junit => "junit",
            OutputFormat::Markdown => "markdown",
        }
    }

    /// A clap value parser accepting `formats` only (so `--help` lists what the subcommand
    /// prints).
    pub fn parser(
        formats: &'static [OutputFormat],
    ) -> impl clap::builder::TypedValueParser<Value = OutputFormat> {
        use clap::builder::TypedValueParser;
        let names: Vec<&'static str> = formats.iter().map(|f| f.name()).collect();
        clap::builder::PossibleValuesParser::new(names).map(|s| {
            <OutputFormat as clap::ValueEnum>::from_str(&s, false).expect("a listed format")
        })
    }

    /// What `explain` and `preempt-check` print.
    pub const REPORTS: &'static [OutputFormat] =
        &[OutputFormat::Text, OutputFormat::Json, OutputFormat::Yaml];
    /// What `plan` prints: a report, or the markdown of a pull-request comment.
    pub const PLAN: &'static [OutputFormat] = &[
        OutputFormat::Text,
        OutputFormat::Json,
        OutputFormat::Yaml,
        OutputFormat::Markdown,
    ];
    /// What `suspend` and `resume` print: the one-line results, or the resulting objects.
    pub const OBJECTS: &'static [OutputFormat] =
        &[OutputFormat::Text, OutputFormat::Json, OutputFormat::Yaml];
    /// What `lint` writes (several at once, `FORMAT=FILE`).
    pub const FINDINGS: &'static [OutputFormat] = &[
        OutputFormat::Text,
        OutputFormat::Json,
        OutputFormat::Yaml,
        OutputFormat::Sarif,
        OutputFormat::Github,
        OutputFormat::Junit,
    ];
}

impl std::fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for OutputFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<OutputFormat, String> {
        <OutputFormat as clap::ValueEnum>::from_str(s, false)
    }
}
