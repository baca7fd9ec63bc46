//! Subcommands: each file parses its flags and wires a source to the engine to a renderer.

pub mod args;
pub mod common;
pub mod completion;
pub mod error;
pub mod explain;
pub mod lint;
pub mod man;
pub mod plan;
pub mod preempt_check;
pub mod suspend;
pub mod version;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::output::help;

pub use error::{CliError, Exit};

/// Lint, explain and operate Karmada propagation policies.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-karmada_policy",
    bin_name = "kubectl karmada-policy",
    version,
    about = "Lint, explain and operate Karmada PropagationPolicies and ClusterPropagationPolicies",
    after_help = help::after_help(None, ""),
    propagate_version = true
)]
pub struct Cli {
    /// Largest file or stdin read (e.g. 64MiB, 200M): a larger input is an error (exit 2).
    #[arg(long = "max-input-size", value_name = "SIZE", global = true, default_value = "64MiB",
          value_parser = crate::source::files::parse_size)]
    pub max_input_size: u64,
    #[command(subcommand)]
    pub command: Option<Command>,
    /// When to colour output: auto (a terminal, unless NO_COLOR is set; CLICOLOR_FORCE forces
    /// it), always or never.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "auto",
        value_name = "WHEN"
    )]
    pub color: crate::output::terminal::ColorChoice,
    /// Log level, as kubectl's `-v`: 1 names every input file skipped as data (otherwise the
    /// first five and a count); 6 traces every HTTP request of the live client (method, URL,
    /// status, time) and retry, 7 adds the request headers, 8 the response headers;
    /// credentials are always masked. `-v 6`, `-v=6` and `--v=6` all work.
    #[arg(
        short = 'v',
        long = "v",
        global = true,
        default_value_t = 0,
        value_name = "LEVEL"
    )]
    pub verbosity: u8,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check manifests for invalid policies, overlaps, silent non-preemption and suspension
    /// that stalls failover.
    #[command(help_template = help::HELP_TEMPLATE, before_help = help::LINT_EXAMPLES, after_help = help::after_help(Some("lint"), help::LINT_AFTER_HELP))]
    Lint(lint::Args),
    /// For one resource template: every candidate policy, the ranking, and the owner now and later.
    #[command(help_template = help::HELP_TEMPLATE, before_help = help::EXPLAIN_EXAMPLES, after_help = help::after_help(Some("explain"), ""))]
    Explain(explain::Args),
    /// What applying or deleting policies would do: which templates move, which don't and why.
    #[command(
        name = "preempt-check",
        help_template = help::HELP_TEMPLATE,
        before_help = help::PREEMPT_CHECK_EXAMPLES,
        after_help = help::after_help(Some("preempt-check"), "")
    )]
    PreemptCheck(preempt_check::Args),
    /// What a change does to the fleet: owners, member clusters, manifests and hazards, per
    /// environment, for a pull request (--base) or the control plane (-f).
    #[command(
        help_template = help::HELP_TEMPLATE,
        before_help = help::PLAN_EXAMPLES,
        after_help = help::after_help(Some("plan"), help::PLAN_AFTER_HELP),
        mut_arg("output", |a| a
            .value_parser(crate::context::flags::OutputFormat::parser(crate::context::flags::OutputFormat::PLAN))
            .help("Output format: text, json, yaml (the same fields as json) or markdown (a pull-request comment)")),
        mut_arg("files", |a| a.help("Live: manifests to apply to the control plane (files, directories or `-`; repeatable), as `kubectl diff -f`. With --base: PATHs, as the arguments"))
    )]
    Plan(plan::Args),
    /// Pause dispatching of policies (all clusters, or --clusters), live or in manifest files (-f).
    #[command(help_template = help::HELP_TEMPLATE, before_help = help::SUSPEND_EXAMPLES, after_help = help::after_help(Some("suspend"), help::SUSPEND_AFTER_HELP))]
    Suspend(suspend::Args),
    /// Resume dispatching of policies (all clusters, or --clusters), live or in manifest files (-f).
    // --force only overrides the failover check of suspending: resume has nothing to force.
    #[command(
        help_template = help::HELP_TEMPLATE,
        before_help = help::RESUME_EXAMPLES,
        after_help = help::after_help(Some("resume"), help::RESUME_AFTER_HELP),
        mut_arg("force", |a| a.hide(true))
    )]
    Resume(suspend::Args),
    /// Print a shell completion script, or install kubectl's plugin completion shim.
    #[command(help_template = help::HELP_TEMPLATE, before_help = help::COMPLETION_EXAMPLES, after_help = help::after_help(Some("completion"), ""))]
    Completion(completion::Args),
    /// Print the version, git commit, build date and the Karmada release whose rules apply.
    #[command(help_template = help::HELP_TEMPLATE, before_help = help::VERSION_EXAMPLES, after_help = help::after_help(Some("version"), ""))]
    Version(version::Args),
    /// Write one man page per command into a directory (release builds).
    #[command(hide = true)]
    Man(man::Args),
}

/// Entry point of the binary: parse, run, and turn every outcome into an exit code.
pub fn main() -> ExitCode {
    if let Some(arg) = std::env::args_os().skip(1).find(|a| a.to_str().is_none()) {
        // clap would refuse it without saying which argument: name it (a directory walk reads
        // such a file name; only arguments must be UTF-8).
        eprintln!(
            "error: argument `{}` is not valid UTF-8: name the directory that holds it instead",
            arg.to_string_lossy()
        );
        return Exit::Usage.into();
    }
    // kubectl's plugin completion (Cobra's protocol), before clap sees the words.
    let words: Vec<String> = std::env::args().skip(1).collect();
    if words.first().is_some_and(|w| w == "__complete") {
        return completion::run_hidden(&words[1..]).into();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version come this way too, and succeed.
            let _ = e.print();
            return [Exit::Ok, Exit::Usage][usize::from(e.use_stderr())].into();
        }
    };
    crate::source::files::set_max_input_size(cli.max_input_size);
    crate::output::terminal::set_color(cli.color);
    crate::kube::trace::set_verbosity(cli.verbosity);
    let Some(command) = cli.command else {
        let help = <Cli as clap::CommandFactory>::command().render_long_help();
        return common::write_stdout(&help.to_string())
            .map_or_else(|e| error::report(&e), |()| Exit::Ok.into());
    };
    let result = match command {
        Command::Lint(args) => lint::run(args),
        Command::Explain(args) => explain::run(args),
        Command::PreemptCheck(args) => preempt_check::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Suspend(args) => suspend::run(crate::engine::suspension::Action::Suspend, args),
        Command::Resume(args) => suspend::run(crate::engine::suspension::Action::Resume, args),
        Command::Completion(args) => completion::run(args),
        Command::Version(args) => version::run(args),
        Command::Man(args) => man::run(args),
    };
    match result {
        Ok(exit) => exit.into(),
        Err(err) => error::report(&err),
    }
}
