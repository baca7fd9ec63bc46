//! `lint PATH...`: findings over files, directories and stdin.

use clap::Args as ClapArgs;

use super::args::{ContextArgs, InputArgs, KubeArgs, RevisionArgs};
use super::common::write_stdout;
use super::error::{CliError, Exit};
use crate::lint::files::{input_files, lint_files, Request};
use crate::lint::git::{lint_git, GitRequest};
use crate::lint::settings::{Flags, Settings};
use crate::lint::{self, registry, Linted};
use crate::output::format::{parse_outputs, write_lint, LintReport, OutputSpec};
use crate::output::{self, Summary};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Files, directories (recursive over .yaml/.yml/.json, skipping .git) or `-` for stdin.
    pub paths: Vec<String>,
    #[command(flatten)]
    pub input: InputArgs,
    /// With `-`: the name piped input is reported under. A directory (the kustomization or
    /// chart it was rendered from) also resolves the `config.kubernetes.io/origin` annotations
    /// and `# Source:` comments of the input, so findings land on those files.
    #[arg(long = "stdin-filename", value_name = "NAME")]
    pub stdin_filename: Option<String>,
    /// Output format, repeatable: text, json, yaml, sarif, github, junit; `FORMAT=FILE` writes
    /// to a file.
    #[arg(short = 'o', long = "output", value_name = "FORMAT[=FILE]")]
    pub output: Vec<String>,
    /// Lowest severity that makes the exit code 1: error, warning, info or none.
    #[arg(long = "fail-on", value_name = "SEVERITY", default_value = "error")]
    pub fail_on: String,
    #[command(flatten)]
    pub context: ContextArgs,
    /// Ignore `karmada-policy.io/ignore` annotations.
    #[arg(long = "no-inline-ignores")]
    pub no_inline_ignores: bool,
    /// Benchmarking aid (scripts/bench.sh): read and parse the inputs with the tool's own loader,
    /// print the counts and exit, running no rule. Not a stable interface.
    #[arg(long = "parse-only", hide = true)]
    pub parse_only: bool,
    /// Accept an input with nothing to lint (no YAML file in the directories, empty stdin):
    /// by default that is an error (exit 2), so a failed step before a pipe does not pass green.
    #[arg(long = "allow-empty")]
    pub allow_empty: bool,
    /// List every rule with its id, default severity and summary, and exit.
    #[arg(long = "list-rules")]
    pub list_rules: bool,
    /// Print the documentation of one rule and exit.
    #[arg(long = "explain", value_name = "RULE-ID")]
    pub explain: Option<String>,
    #[command(flatten)]
    pub revisions: RevisionArgs,
    /// Lint the git index, i.e. what `git commit` would record (for pre-commit hooks).
    #[arg(long = "staged", conflicts_with = "rev")]
    pub staged: bool,
    /// With --base, report every finding at head in text and JSON, not only the new ones.
    #[arg(long = "all-findings", requires = "base")]
    pub all_findings: bool,
    /// Lint the policies of the live control plane (kubeconfig) and the templates they select,
    /// instead of files; locations are object references such as `pp/default/nginx` plus the
    /// field path. Read only.
    #[arg(long = "live", conflicts_with_all = ["rev", "staged", "base"])]
    pub live: bool,
    /// Deprecated spelling of --live (kubectl's --cluster names a kubeconfig cluster).
    #[arg(long = "cluster", hide = true, conflicts_with_all = ["rev", "staged", "base"])]
    pub cluster: bool,
    /// Show only findings at or above this severity: error, warning or info. The summary
    /// counts and the exit code (--fail-on) still cover every finding.
    #[arg(long = "min-severity", value_name = "SEVERITY", default_value = "info")]
    pub min_severity: String,
    /// Show errors only (--min-severity error).
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    /// Count the findings per rule and severity instead of listing them (text and json; the
    /// other formats and the exit code are unchanged).
    #[arg(long = "statistics")]
    pub statistics: bool,
    #[command(flatten)]
    pub kube: KubeArgs,
}

impl Args {
    fn flags(&self) -> Flags<'_> {
        Flags {
            quiet: self.quiet,
            min_severity: &self.min_severity,
            fail_on: &self.fail_on,
            no_inline_ignores: self.no_inline_ignores,
        }
    }

    /// The inputs: PATH arguments and `-f` alike, in the order given.
    fn inputs(&mut self) {
        if !self.input.files.is_empty() {
            let mut all = std::mem::take(&mut self.input.files);
            all.append(&mut self.paths);
            self.paths = all;
        }
    }

    /// `--live`, or its deprecated spelling `--cluster` (warned of).
    fn live(&self) -> bool {
        if self.cluster {
            crate::util::warn("--cluster is deprecated: use --live (kubectl's --cluster names a kubeconfig cluster)");
        }
        self.live || self.cluster
    }
}

pub fn run(mut args: Args) -> Result<Exit, CliError> {
    if args.list_rules {
        write_stdout(&output::rule_docs::list_rules())?;
        return Ok(Exit::Ok);
    }
    if let Some(id) = &args.explain {
        let rule = registry::find(id).ok_or_else(|| {
            CliError::usage(format!(
                "unknown rule `{id}`; `kubectl karmada-policy lint --list-rules` lists them"
            ))
        })?;
        write_stdout(&output::rule_docs::explain_rule(&rule))?;
        return Ok(Exit::Ok);
    }
    args.inputs();
    let mut outputs = parse_outputs(&args.output)?;
    let context = super::args::context(&args.context)?;
    let mut settings = Settings::new(&args.flags(), context)?;
    for o in &mut outputs {
        o.min = settings.display_minimum;
    }
    settings.context.config.render_options.environment = args.input.env.clone();
    if args.input.env.is_some() && !lint::gitops::env_applies(&args.paths, &settings.context.config)
    {
        return Err(CliError::usage(
            "--env picks an environment of a GitOps repository (kustomizations, charts), and the inputs hold none",
        ));
    }
    if args.revisions.rev.is_some() || args.staged || args.revisions.base.is_some() {
        return run_git(&args, &settings, &outputs);
    }
    if args.live() {
        if !args.paths.is_empty() {
            return Err(CliError::usage(
                "--live reads the control plane: drop the PATHs",
            ));
        }
        return run_live(&args, &settings, &outputs);
    }
    super::args::warn_live_only(&args.kube);
    run_files(&args, &settings, &outputs)
}

/// `lint PATH...` and `lint -` (`lint::files`), or `--parse-only`.
fn run_files(args: &Args, settings: &Settings, outputs: &[OutputSpec]) -> Result<Exit, CliError> {
    if args.parse_only {
        let counts = lint::stream::parse_only(&input_files(&args.paths, settings)?)?;
        write_stdout(&format!("{counts}\n"))?;
        return Ok(Exit::Ok);
    }
    let req = Request {
        paths: &args.paths,
        stdin_filename: args.stdin_filename.as_deref(),
        namespace: settings.context.files_namespace(),
        allow_empty: args.allow_empty,
    };
    let linted = lint_files(&req, settings, &|n| crate::util::note(n))?;
    report(outputs, settings, linted, args.statistics)
}

/// `--live`: the live policies and the templates they select.
fn run_live(args: &Args, settings: &Settings, outputs: &[OutputSpec]) -> Result<Exit, CliError> {
    let mut session = super::args::connect(&args.kube)?;
    let linted = lint::live::lint_cluster(&mut session, &settings.options)?;
    report(outputs, settings, linted, args.statistics)
}

/// `--rev`, `--staged` and `--base`.
fn run_git(args: &Args, settings: &Settings, outputs: &[OutputSpec]) -> Result<Exit, CliError> {
    let cwd = std::env::current_dir()?;
    let req = GitRequest {
        paths: &args.paths,
        rev: args.revisions.rev.as_deref(),
        staged: args.staged,
        base: args.revisions.base.as_deref(),
        all_findings: args.all_findings,
        namespace: settings.context.files_namespace(),
        config: &settings.context.config,
        context: &settings.context,
        opts: &settings.options,
    };
    let linted = lint_git(&cwd, &req, &|n| crate::util::note(n))?;
    lint::git::something_to_lint(&req, &linted, args.allow_empty)?;
    report(outputs, settings, linted, args.statistics)
}

/// Prints the run's notes, writes every requested output and turns `--fail-on` into the exit
/// code: the same for every input mode.
fn report(
    outputs: &[OutputSpec],
    settings: &Settings,
    linted: Linted,
    statistics: bool,
) -> Result<Exit, CliError> {
    for n in &linted.notes {
        crate::util::note(n);
    }
    let summary = Summary::of(
        linted.files,
        linted.documents,
        linted.policies,
        &linted.findings,
    );
    let report = LintReport {
        reported: &linted.findings,
        new_only: linted.new_findings(),
        ownership: linted.ownership.as_deref(),
        environments: &linted.environments,
        summary: &summary,
        statistics,
    };
    write_lint(outputs, &report)?;
    let exit = if settings.fails(&linted.findings) {
        Exit::Failure
    } else {
        Exit::Ok
    };
    // The process ends here: freeing every object one by one would only add to the wall time
    // of a large run; the OS takes it all back.
    linted.leak();
    Ok(exit)
}
