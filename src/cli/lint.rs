//! `lint PATH...`: findings over files, directories and stdin.

use std::path::Path;

use clap::Args as ClapArgs;

use super::args::{parse_feature_gates, KubeFlags};
use super::common::{stdout_color, write_stdout};
use super::error::{CliError, Exit};
use crate::engine::ownership;
use crate::lint::phase::{Blame, History};
use crate::lint::rules::{admission, suspension_age};
use crate::lint::{self, baseline, registry, Config, Finding, LintOptions, Severity};
use crate::model::{Inventory, KarmadaVersion};
use crate::output::{self, Summary};
use crate::source::files;
use crate::source::git::{GitRepo, Side};

pub const EXAMPLES: &str = "\
Examples:
  # Files and directories (recursive over .yaml, .yml and .json), or - for stdin
  kubectl karmada-policy lint deploy/ policies/
  helm template charts/app | kubectl karmada-policy lint -
  # Several formats in one run; fail on warnings too
  kubectl karmada-policy lint -o text -o sarif=lint.sarif --fail-on warning .
  # Only what a pull request changes, against its base
  kubectl karmada-policy lint --base origin/main
  # The policies of the live control plane
  kubectl karmada-policy lint --cluster
  # Every rule, and one rule's documentation
  kubectl karmada-policy lint --list-rules
  kubectl karmada-policy lint --explain preemption-requires-name";

pub const AFTER_HELP: &str = "\
Output:
  -o text|json|sarif|github|junit, repeatable; FORMAT=FILE writes that format to a file,
  e.g. `-o text -o sarif=lint.sarif -o junit=lint.xml`. At most one format goes to stdout.
  junit: JUnit XML (GitLab, Jenkins, Azure), one test case per rule and object.

Configuration:
  .karmada-policy.yaml is looked up from the current directory upwards (or --config):
  rule severities or `off`, feature gates, Karmada version, known clusters, ignored paths.
  An object can silence a rule for itself with the annotation
  `karmada-policy.io/ignore: \"RULE-ID: reason\"` (a reason is required).

Git:
  --rev REV lints a revision's tree, --staged the index (pre-commit), without touching either;
  --base REV compares with the merge base of REV and HEAD: new findings only (--all-findings
  for every one), ownership changes of templates, updates Karmada rejects (schedulerName,
  permanent-id). Files are named by their path in the repository. In these modes
  `suspension-age` warns about suspensions older than maxSuspensionAge (blame).

Exit codes:
  0  nothing at or above --fail-on (default: error)
  1  findings at or above --fail-on
  2  usage error, bad configuration or unreadable input; not a git repository, an unknown
     revision or a shallow clone without the base (git modes)";

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
    /// Show errors only (--min-severity error).
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
    #[command(flatten)]
    pub kube: KubeFlags,
}

/// One requested output: a format and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSpec {
    pub format: Format,
    pub file: Option<String>,
    /// The lowest severity shown (--min-severity, --quiet).
    pub min: Severity,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
    Junit,
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
            "junit" => Format::Junit,
            other => {
                return Err(CliError::usage(format!(
                    "unknown output format `{other}`: expected text, json, sarif, github or junit"
                )))
            }
        };
        out.push(OutputSpec {
            format,
            file,
            min: Severity::Info,
        });
    }
    if out.is_empty() {
        out.push(OutputSpec {
            format: Format::Text,
            file: None,
            min: Severity::Info,
        });
    }
    if out.iter().filter(|o| o.file.is_none()).count() > 1 {
        return Err(CliError::usage(
            "only one output format can go to stdout; write the others to files, e.g. `-o sarif=lint.sarif`",
        ));
    }
    Ok(out)
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

/// The findings an output shows: all of them unless a minimum hides some.
fn shown(findings: &[Finding], min: Severity) -> std::borrow::Cow<'_, [Finding]> {
    if findings.iter().all(|f| f.severity >= min) {
        return std::borrow::Cow::Borrowed(findings);
    }
    std::borrow::Cow::Owned(
        findings
            .iter()
            .filter(|f| f.severity >= min)
            .cloned()
            .collect(),
    )
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
    let mut outputs = parse_outputs(&args.output)?;
    let min = display_minimum(&args)?;
    for o in &mut outputs {
        o.min = min;
    }
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
    let opts = LintOptions {
        version,
        feature_gates,
        known_clusters: config.known_clusters.clone(),
        rules: config.rules.clone(),
        inline_ignores: !args.no_inline_ignores,
    };
    if args.rev.is_some() || args.staged || args.base.is_some() {
        return run_git(&args, &config, &opts, &outputs, threshold);
    }
    if args.cluster {
        if !args.paths.is_empty() {
            return Err(CliError::usage(
                "--cluster reads the control plane: drop the PATHs",
            ));
        }
        let (findings, summary) = super::live::lint(&args.kube, &opts)?;
        write_outputs(&outputs, &findings, &findings, None, &summary)?;
        return Ok(exit_for(&findings, threshold));
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
    if !config.render_off && !args.paths.iter().any(|p| p == "-") && lint::gitops::applies(&files) {
        return run_gitops(&files, &args.namespace, &opts, &config, &outputs, threshold);
    }
    let linted = lint::stream::lint_paths(&files, &args.namespace, &opts)?;
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
    for o in &outputs {
        let text = render(
            o.format,
            &shown(findings, o.min),
            &summary,
            o.file.is_none() && stdout_color(),
        );
        match &o.file {
            None => write_stdout(&text)?,
            Some(f) => write_file(f, &text)?,
        }
    }
    let failed = threshold.is_some_and(|t| findings.iter().any(|f| f.severity >= t));
    // The process ends here: freeing every object one by one would only add to the wall time
    // of a large run; the OS takes it all back.
    std::mem::forget(linted);
    Ok(if failed { Exit::Failure } else { Exit::Ok })
}

/// Whether stdin was among the inputs and gave neither a document nor a finding (empty, or
/// only comments): the usual sign of a failed `kubectl kustomize | ...` pipe.
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
    let linted = lint::gitops::lint_repository(files, namespace, opts, &config.render_options);
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

/// One side of a git-mode run: what was read and what lint says about it.
struct GitSide {
    files: usize,
    inventory: Inventory,
    findings: Vec<Finding>,
}

/// What every side of a git-mode run shares.
struct GitRun<'a> {
    repo: &'a GitRepo,
    specs: &'a [String],
    args: &'a Args,
    config: &'a Config,
    opts: &'a LintOptions,
    /// Unix seconds, for the age of suspensions.
    now: i64,
}

/// Reads one side of the repository and lints it, with the suspension-age rule (blame) on top.
fn lint_git_side(run: &GitRun<'_>, side: &Side, print_notes: bool) -> Result<GitSide, CliError> {
    let GitRun {
        repo,
        specs,
        args,
        config,
        opts,
        now,
    } = *run;
    let ignore = |p: &Path| config.ignores(p);
    let mut snapshot = repo.read(side, specs, &ignore)?;
    if print_notes {
        for n in &snapshot.notes {
            eprintln!("note: {n}");
        }
    }
    let documents: Vec<_> = snapshot
        .loaded
        .iter_mut()
        .flat_map(|l| std::mem::take(&mut l.documents))
        .collect();
    let inventory = Inventory::from_documents(documents, &args.namespace);
    let mut findings = lint::lint(&snapshot.loaded, &inventory, opts);
    let max_age = config
        .max_suspension_age_secs
        .unwrap_or(suspension_age::DEFAULT_MAX_AGE_SECS);
    let history = |name: &str, text: &str, line: u32| repo.introduced(side, name, text, line);
    let aged = registry::run_history(&History {
        inventory: &inventory,
        blame: Some(Blame {
            introduced: &history,
            max_age_secs: max_age,
            now,
        }),
        base: None,
    });
    findings.extend(finish(aged, &inventory, opts));
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(GitSide {
        files: snapshot.loaded.len(),
        inventory,
        findings,
    })
}

/// Configuration settings and inline ignores for findings made outside `lint::lint`.
fn finish(findings: Vec<Finding>, inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let findings = lint::apply_settings(findings, &opts.rules);
    if opts.inline_ignores {
        // `lint::lint` already reported malformed ignore annotations: keep only the filtering.
        lint::suppress::apply(findings, inventory, &registry::is_known)
            .into_iter()
            .filter(|f| f.rule != lint::rules::invalid_ignore::INVALID_IGNORE.id)
            .collect()
    } else {
        findings
    }
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
    let repo = GitRepo::discover(&cwd)?;
    let specs = repo.pathspecs(&cwd, &args.paths)?;
    let head_side = if args.staged {
        Side::Index
    } else if let Some(rev) = &args.rev {
        Side::Commit(repo.resolve(rev)?)
    } else {
        Side::WorkTree
    };
    // Resolve the base before the (long) read of the head, so a bad revision fails fast.
    let base = match &args.base {
        Some(rev) => {
            let head_commit = match head_side {
                Side::Commit(oid) => Some(oid),
                _ => repo.head_commit(),
            };
            let (oid, notes) = repo.base_commit(rev, head_commit)?;
            for n in notes {
                eprintln!("note: {n}");
            }
            Some(oid)
        }
        None => None,
    };
    if !config.render_off && gitops_worktree(args, config) {
        return run_git_gitops(
            &repo, &cwd, &specs, &head_side, base, args, config, opts, outputs, threshold,
        );
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let run = GitRun {
        repo: &repo,
        specs: &specs,
        args,
        config,
        opts,
        now,
    };
    // The base side is read and linted on a second thread, with its own handle on the
    // repository (a git2 Repository is not Sync): on two cores `--base` costs little more
    // than one lint.
    let (head, base) = std::thread::scope(|scope| {
        let base_side = base.map(|oid| {
            let cwd = &cwd;
            let specs = &specs;
            scope.spawn(move || {
                let repo = GitRepo::discover(cwd)?;
                let run = GitRun {
                    repo: &repo,
                    specs,
                    args,
                    config,
                    opts,
                    now,
                };
                lint_git_side(&run, &Side::Commit(oid), false)
            })
        });
        let head = lint_git_side(&run, &head_side, true);
        let base = base_side.map(|h| h.join().expect("the base side does not panic"));
        (head, base)
    });
    let head = head?;
    let mut summary = Summary {
        files: head.files,
        documents: head.inventory.documents.len(),
        policies: head.inventory.policies().count(),
        ..Summary::default()
    };
    let Some(base) = base else {
        summary.count(&head.findings);
        write_outputs(outputs, &head.findings, &head.findings, None, &summary)?;
        return Ok(exit_for(&head.findings, threshold));
    };
    let base = base?;
    let update_rules = History {
        inventory: &head.inventory,
        blame: None,
        base: Some(&base.inventory),
    };
    let updates = finish(registry::run_history(&update_rules), &head.inventory, opts);
    let mut head = head;
    head.findings = admission::short_circuited_by_updates(head.findings, &updates);
    let new = baseline::new_at_head(&base.findings, &head.findings);
    let mut new_findings: Vec<Finding> = head
        .findings
        .iter()
        .zip(&new)
        .filter(|(_, n)| **n)
        .map(|(f, _)| f.clone())
        .chain(updates.iter().cloned())
        .collect();
    new_findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let reported = if args.all_findings {
        let mut all = head.findings;
        all.extend(updates);
        all.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        all
    } else {
        new_findings.clone()
    };
    let ownership = ownership::ownership_changes(
        &base.inventory,
        &head.inventory,
        ownership::engine_options(&opts.feature_gates, opts.version),
    );
    summary.count(&reported);
    write_outputs(
        outputs,
        &reported,
        &new_findings,
        Some(&ownership),
        &summary,
    )?;
    Ok(exit_for(&reported, threshold))
}

/// Whether the PATHs (the current directory when none) hold kustomizations or charts: then
/// the git modes render both sides (lint::gitops).
fn gitops_worktree(args: &Args, config: &Config) -> bool {
    let paths = if args.paths.is_empty() {
        vec![".".to_string()]
    } else {
        args.paths.clone()
    };
    files::expand(&paths, &|p: &Path| config.ignores(p))
        .is_ok_and(|files| lint::gitops::applies(&files))
}

/// One side of a git mode over a GitOps repository, rendered: the work tree in place, a
/// revision or the index written to a temporary directory first (kustomize reads files).
fn lint_gitops_side(
    repo: &GitRepo,
    cwd: &Path,
    specs: &[String],
    side: &Side,
    args: &Args,
    config: &Config,
    opts: &LintOptions,
) -> Result<lint::gitops::Linted, CliError> {
    let ignore = |p: &Path| config.ignores(p);
    let paths = if args.paths.is_empty() {
        vec![".".to_string()]
    } else {
        args.paths.clone()
    };
    let lint_here = || -> Result<lint::gitops::Linted, CliError> {
        let files = files::expand(&paths, &ignore)?;
        Ok(lint::gitops::lint_repository(
            &files,
            &args.namespace,
            opts,
            &config.render_options,
        ))
    };
    if *side == Side::WorkTree {
        return lint_here();
    }
    let tree = tempfile::Builder::new()
        .prefix("karmada-policy-rev-")
        .tempdir()?;
    let snapshot = repo.read(side, specs, &ignore)?;
    for l in &snapshot.loaded {
        let name = l
            .source
            .name
            .rsplit_once(':')
            .map_or(l.source.name.as_str(), |(_, p)| p);
        let path = tree.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, l.source.text())?;
    }
    // The same PATHs, relative to the same place in the written tree: file names come out as
    // they do for the work tree. kustomize runs as a child process, so the directory changes
    // for the whole process while this side is linted.
    let inside = cwd.strip_prefix(repo.workdir()).unwrap_or(Path::new(""));
    let here = tree.path().join(inside);
    std::fs::create_dir_all(&here)?;
    std::env::set_current_dir(&here)?;
    let linted = lint_here();
    std::env::set_current_dir(cwd)?;
    linted
}

/// `--rev`, `--staged` and `--base` over a GitOps repository: each side rendered, ownership
/// changes compared environment by environment.
#[allow(clippy::too_many_arguments)]
fn run_git_gitops(
    repo: &GitRepo,
    cwd: &Path,
    specs: &[String],
    head_side: &Side,
    base: Option<git2::Oid>,
    args: &Args,
    config: &Config,
    opts: &LintOptions,
    outputs: &[OutputSpec],
    threshold: Option<Severity>,
) -> Result<Exit, CliError> {
    let head = lint_gitops_side(repo, cwd, specs, head_side, args, config, opts)?;
    for n in &head.notes {
        eprintln!("note: {n}");
    }
    let mut summary = Summary {
        files: head.files,
        documents: head.documents,
        policies: head.policies,
        ..Summary::default()
    };
    let Some(oid) = base else {
        summary.count(&head.findings);
        write_outputs(outputs, &head.findings, &head.findings, None, &summary)?;
        return Ok(exit_for(&head.findings, threshold));
    };
    let base = lint_gitops_side(repo, cwd, specs, &Side::Commit(oid), args, config, opts)?;
    let new = baseline::new_at_head(&base.findings, &head.findings);
    let new_findings: Vec<Finding> = head
        .findings
        .iter()
        .zip(&new)
        .filter(|(_, n)| **n)
        .map(|(f, _)| f.clone())
        .collect();
    let reported = if args.all_findings {
        head.findings.clone()
    } else {
        new_findings.clone()
    };
    let ownership = lint::gitops::ownership_changes(
        &base,
        &head,
        ownership::engine_options(&opts.feature_gates, opts.version),
    );
    summary.count(&reported);
    write_outputs(
        outputs,
        &reported,
        &new_findings,
        Some(&ownership),
        &summary,
    )?;
    Ok(exit_for(&reported, threshold))
}

fn exit_for(findings: &[Finding], threshold: Option<Severity>) -> Exit {
    if threshold.is_some_and(|t| findings.iter().any(|f| f.severity >= t)) {
        Exit::Failure
    } else {
        Exit::Ok
    }
}

/// Text and JSON show `reported` (and the ownership changes in --base mode); SARIF and GitHub
/// annotations carry only `new_only`, the findings a pull request introduces.
fn write_outputs(
    outputs: &[OutputSpec],
    reported: &[Finding],
    new_only: &[Finding],
    ownership: Option<&[ownership::OwnershipChange]>,
    summary: &Summary,
) -> Result<(), CliError> {
    for o in outputs {
        let color = o.file.is_none() && stdout_color();
        let reported = shown(reported, o.min);
        let new_only = shown(new_only, o.min);
        let text = match (o.format, ownership) {
            (Format::Text, Some(own)) => {
                output::text::render_with_ownership(&reported, own, summary, color)
            }
            (Format::Json, Some(own)) => {
                output::json::render_with_ownership(&reported, summary, own)
            }
            (Format::Sarif | Format::Github | Format::Junit, _) => {
                render(o.format, &new_only, summary, color)
            }
            _ => render(o.format, &reported, summary, color),
        };
        match &o.file {
            None => write_stdout(&text)?,
            Some(f) => write_file(f, &text)?,
        }
    }
    Ok(())
}

fn render(format: Format, findings: &[Finding], summary: &Summary, color: bool) -> String {
    match format {
        Format::Text => output::text::render(findings, summary, color),
        Format::Json => output::json::render(findings, summary),
        Format::Sarif => output::sarif::render(findings, &registry::all()),
        Format::Github => output::github::render(findings),
        Format::Junit => output::junit::render(findings, &registry::all()),
    }
}

fn write_file(path: &str, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|source| CliError::WriteOutput {
        path: path.to_string(),
        source,
    })
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
}
