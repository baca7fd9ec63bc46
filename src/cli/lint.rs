//! `lint PATH...`: findings over files, directories and stdin.

use std::path::Path;

use clap::Args as ClapArgs;

use super::args::{parse_feature_gates, KubeFlags};
use super::common::{stdout_color, write_stdout};
use super::error::{CliError, Exit};
use crate::engine::ownership::OwnershipChange;
use crate::lint::git::{lint_git, GitRequest};
use crate::lint::{self, registry, Config, Finding, LintOptions, Severity};
use crate::model::KarmadaVersion;
use crate::output::format::{parse_outputs, render_lint, LintReport, OutputSpec};
use crate::output::{self, Summary};
use crate::source::files;
use crate::source::session::Session;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Files, directories (recursive over .yaml/.yml/.json, skipping .git) or `-` for stdin.
    pub paths: Vec<String>,
    /// With `-`: the name piped input is reported under. A directory (the kustomization or
    /// chart it was rendered from) also resolves the `config.kubernetes.io/origin` annotations
    /// and `# Source:` comments of the input, so findings land on those files.
    #[arg(long = "stdin-filename", value_name = "NAME")]
    pub stdin_filename: Option<String>,
    /// Output format, repeatable: text, json, sarif, github, junit; `FORMAT=FILE` writes to a file.
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
    /// Lint the tree of a git revision (branch, tag, commit, `HEAD~1`) from the object database,
    /// without a checkout; PATHs (optional) narrow it to files and directories of the repository.
    #[arg(long = "rev", value_name = "REV")]
    pub rev: Option<String>,
    /// Lint the git index, i.e. what `git commit` would record (for pre-commit hooks).
    #[arg(long = "staged", conflicts_with = "rev")]
    pub staged: bool,
    /// Compare with a base revision (e.g. origin/main; the merge base with HEAD is used): report
    /// only new findings, the templates whose owner changes, and updates Karmada would reject.
    #[arg(long = "base", value_name = "REV")]
    pub base: Option<String>,
    /// With --base, report every finding at head in text and JSON, not only the new ones.
    #[arg(long = "all-findings", requires = "base")]
    pub all_findings: bool,
    /// Lint the policies of the live control plane (kubeconfig) and the templates they select,
    /// instead of files; locations are object references such as `pp/default/nginx` plus the
    /// field path. Read only.
    #[arg(long = "cluster", conflicts_with_all = ["rev", "staged", "base"])]
    pub cluster: bool,
    /// Show only findings at or above this severity: error, warning or info. The summary
    /// counts and the exit code (--fail-on) still cover every finding.
    #[arg(long = "min-severity", value_name = "SEVERITY", default_value = "info")]
    pub min_severity: String,
    /// Over a GitOps repository: lint only this environment (a Flux cluster directory or
    /// Argo CD destination, a kustomize root, a chart: its name or directory, as the findings'
    /// `(in: ...)` name it). An unknown one exits 2 listing them.
    #[arg(long = "env", value_name = "ENV")]
    pub env: Option<String>,
    /// Show errors only (--min-severity error).
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    #[command(flatten)]
    pub kube: KubeFlags,
}

/// `--quiet` or `--min-severity`: what the outputs show.
fn display_minimum(args: &Args) -> Result<Severity, CliError> {
    if args.quiet {
        return Ok(Severity::Error);
    }
    Severity::parse(&args.min_severity).ok_or_else(|| {
        CliError::usage(format!(
            "invalid --min-severity `{}`: expected error, warning or info",
            args.min_severity
        ))
    })
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
        Some(p) => Ok(Config::load(&p, &registry::is_known)?),
        None => Ok(Config::default()),
    }
}

/// `-o`, each showing what `--min-severity` / `--quiet` leave.
fn requested_outputs(args: &Args) -> Result<Vec<OutputSpec>, CliError> {
    let mut outputs = parse_outputs(&args.output)?;
    let min = display_minimum(args)?;
    for o in &mut outputs {
        o.min = min;
    }
    Ok(outputs)
}

/// The flags over the configuration file: Karmada version, feature gates, rule settings.
fn lint_options(args: &Args, config: &Config) -> Result<LintOptions, CliError> {
    let version = match &args.karmada_version {
        Some(v) => v.parse::<KarmadaVersion>().map_err(CliError::usage)?,
        None => config.karmada_version.unwrap_or_default(),
    };
    let mut feature_gates = config.feature_gates.clone();
    if let Some(g) = &args.feature_gates {
        feature_gates.extend(parse_feature_gates(g)?);
    }
    Ok(LintOptions {
        version,
        feature_gates,
        known_clusters: config.known_clusters.clone(),
        rules: config.rules.clone(),
        inline_ignores: !args.no_inline_ignores,
        ..LintOptions::default()
    })
}

pub fn run(args: Args) -> Result<Exit, CliError> {
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
    let outputs = requested_outputs(&args)?;
    let threshold = fail_threshold(&args.fail_on)?;
    let mut config = load_config(&args)?;
    config.render_options.environment = args.env.clone();
    let opts = lint_options(&args, &config)?;
    let ignore = |p: &Path| config.ignores(p);
    if args.env.is_some() && !lint::gitops::env_applies(&args.paths, &config) {
        return Err(CliError::usage(
            "--env picks an environment of a GitOps repository (kustomizations, charts), and the inputs hold none",
        ));
    }
    if args.rev.is_some() || args.staged || args.base.is_some() {
        return run_git(&args, &config, &opts, &outputs, threshold);
    }
    if args.cluster {
        if !args.paths.is_empty() {
            return Err(CliError::usage(
                "--cluster reads the control plane: drop the PATHs",
            ));
        }
        return run_cluster(&args, &opts, &outputs, threshold);
    }
    if args.parse_only {
        return parse_only(&args.paths, &ignore);
    }
    if args.paths == ["-"] {
        if let Some(name) = &args.stdin_filename {
            let (_, text) = files::read_text(Path::new("-"))?;
            let linted = lint::gitops::lint_piped(text, name, &args.namespace, &opts);
            return write_gitops(linted, &outputs, threshold);
        }
    }
    let files = input_files(&args.paths, &ignore)?;
    if files.is_empty() && !args.allow_empty {
        return Err(CliError::usage(format!(
            "no .yaml, .yml or .json file in {}: nothing to lint (--allow-empty accepts that)",
            args.paths.join(", ")
        )));
    }
    let stdin = args.paths.iter().any(|p| p == "-");
    if !config.render_off && !stdin && lint::gitops::applies(&files) {
        return run_gitops(&files, &args.namespace, &opts, &config, &outputs, threshold);
    }
    let linted = lint::stream::lint_paths(&files, &args.namespace, &opts)?;
    lint::data_notes(&linted.loaded).for_each(|n| eprintln!("note: {n}"));
    if !args.allow_empty && stdin_was_empty(&args.paths, &linted) {
        return Err(CliError::usage(
            "stdin holds no Kubernetes object: did the command before the pipe fail? (--allow-empty accepts that)",
        ));
    }
    let findings = &linted.findings;
    let mut summary = Summary {
        files: linted.loaded.len(),
        documents: linted.inventory.documents.len(),
        policies: linted.policies,
        ..Summary::default()
    };
    summary.count(findings);
    write_outputs(&outputs, findings, findings, None, &summary)?;
    let failed = threshold.is_some_and(|t| findings.iter().any(|f| f.severity >= t));
    // The process ends here: freeing every object one by one would only add to the wall time
    // of a large run; the OS takes it all back.
    std::mem::forget(linted);
    Ok(if failed { Exit::Failure } else { Exit::Ok })
}

/// `--cluster`: the live policies and the templates they select.
fn run_cluster(
    args: &Args,
    opts: &LintOptions,
    outputs: &[OutputSpec],
    threshold: Option<Severity>,
) -> Result<Exit, CliError> {
    let settings = args.kube.settings()?;
    let mut session = Session::connect(&settings.connect_options(), settings.concurrency)?;
    let linted = lint::live::lint_cluster(&mut session, opts)?;
    // Each live object is its own source (named by its reference).
    let mut summary = Summary {
        files: linted.documents,
        documents: linted.documents,
        policies: linted.policies,
        ..Summary::default()
    };
    summary.count(&linted.findings);
    write_outputs(outputs, &linted.findings, &linted.findings, None, &summary)?;
    Ok(exit_for(&linted.findings, threshold))
}

/// Whether stdin was among the inputs and gave neither a document, nor data, nor a finding
/// (empty, or only comments): the usual sign of a failed `kubectl kustomize | ...` pipe.
fn stdin_was_empty(paths: &[String], linted: &lint::stream::Linted) -> bool {
    const STDIN: &str = "<stdin>";
    paths.iter().any(|p| p == "-")
        && !linted
            .inventory
            .documents
            .iter()
            .any(|d| d.source.name == STDIN)
        && !linted
            .findings
            .iter()
            .any(|f| f.location.as_ref().is_some_and(|l| l.source.name == STDIN))
        // Data (a list, a values file) is not an empty pipe: it was said in a note.
        && !linted
            .loaded
            .iter()
            .any(|l| l.source.name == STDIN && !l.data.is_empty())
}

/// `lint` over a repository with kustomize roots or Helm charts (lint::gitops).
fn run_gitops(
    files: &[std::path::PathBuf],
    namespace: &str,
    opts: &LintOptions,
    config: &Config,
    outputs: &[OutputSpec],
    threshold: Option<Severity>,
) -> Result<Exit, CliError> {
    let linted = lint::gitops::lint_repository(files, namespace, opts, &config.render_options)?;
    write_gitops(linted, outputs, threshold)
}

/// Notes to stderr, then every output of a gitops lint.
fn write_gitops(
    linted: lint::gitops::Linted,
    outputs: &[OutputSpec],
    threshold: Option<Severity>,
) -> Result<Exit, CliError> {
    for n in &linted.notes {
        eprintln!("note: {n}");
    }
    let mut summary = Summary {
        files: linted.files,
        documents: linted.documents,
        policies: linted.policies,
        ..Summary::default()
    };
    summary.count(&linted.findings);
    write_outputs(outputs, &linted.findings, &linted.findings, None, &summary)?;
    Ok(exit_for(&linted.findings, threshold))
}

/// `lint --parse-only`: the loader alone (expand, read, parse on all cores), for scripts/bench.sh
/// to compare with a full run on the same files. Each file's tree is dropped once counted, as
/// `lint` lets it go after its checks. Prints `files=N documents=D problems=P bytes=B`.
fn parse_only(paths: &[String], ignore: &dyn Fn(&Path) -> bool) -> Result<Exit, CliError> {
    let files = input_files(paths, ignore)?;
    let counts = files::read_all_with(&files, &|l| {
        (l.documents.len(), l.problems.len(), l.source.text().len())
    })?;
    let (documents, problems, bytes) = counts
        .iter()
        .fold((0, 0, 0), |(d, p, b), c| (d + c.0, p + c.1, b + c.2));
    write_stdout(&format!(
        "files={} documents={documents} problems={problems} bytes={bytes}\n",
        counts.len()
    ))?;
    Ok(Exit::Ok)
}

/// The files PATHs name (directories expanded); none, or a missing one, is a usage error.
fn input_files(
    paths: &[String],
    ignore: &dyn Fn(&Path) -> bool,
) -> Result<Vec<std::path::PathBuf>, CliError> {
    if paths.is_empty() {
        return Err(CliError::usage(
            "no input: name files or directories, or `-` for stdin",
        ));
    }
    Ok(files::expand(paths, ignore)?)
}

/// `--rev`, `--staged` and `--base`.
fn run_git(
    args: &Args,
    config: &Config,
    opts: &LintOptions,
    outputs: &[OutputSpec],
    threshold: Option<Severity>,
) -> Result<Exit, CliError> {
    let cwd = std::env::current_dir()?;
    let req = GitRequest {
        paths: &args.paths,
        rev: args.rev.as_deref(),
        staged: args.staged,
        base: args.base.as_deref(),
        all_findings: args.all_findings,
        namespace: &args.namespace,
        config,
        opts,
    };
    let linted = lint_git(&cwd, &req, &|n| eprintln!("note: {n}"))?;
    let mut summary = Summary {
        files: linted.files,
        documents: linted.documents,
        policies: linted.policies,
        ..Summary::default()
    };
    summary.count(&linted.reported);
    write_outputs(
        outputs,
        &linted.reported,
        &linted.new_only,
        linted.ownership.as_deref(),
        &summary,
    )?;
    Ok(exit_for(&linted.reported, threshold))
}

fn exit_for(findings: &[Finding], threshold: Option<Severity>) -> Exit {
    if threshold.is_some_and(|t| findings.iter().any(|f| f.severity >= t)) {
        Exit::Failure
    } else {
        Exit::Ok
    }
}

/// Writes each requested output (see [`LintReport`] for which findings each format shows).
fn write_outputs(
    outputs: &[OutputSpec],
    reported: &[Finding],
    new_only: &[Finding],
    ownership: Option<&[OwnershipChange]>,
    summary: &Summary,
) -> Result<(), CliError> {
    let report = LintReport {
        reported,
        new_only,
        ownership,
        summary,
    };
    for o in outputs {
        let text = render_lint(o.format, o.min, &report, o.file.is_none() && stdout_color());
        match &o.file {
            None => write_stdout(&text)?,
            Some(f) => write_file(f, &text)?,
        }
    }
    Ok(())
}

fn write_file(path: &str, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|source| CliError::WriteOutput {
        path: path.to_string(),
        source,
    })
}
