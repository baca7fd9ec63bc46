//! Subcommands: each file parses its flags and wires a source to the engine to a renderer.

pub mod args;
pub mod common;
pub mod completion;
pub mod error;
pub mod explain;
pub mod freeze;
pub mod lint;
pub mod live;
pub mod man;
pub mod preempt_check;
pub mod suspend;
pub mod version;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use error::{CliError, Exit};

const EXIT_CODES: &str = "\
Exit codes:
  0  success: nothing at or above the failure threshold
  1  findings at or above --fail-on (lint), blocked takeovers with --fail-on-blocked
     (preempt-check), or some objects failed (suspend/resume)
  2  usage error or unreadable input
  3  API or authentication failure (live mode)";

/// Lint, explain and operate Karmada propagation policies.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-karmada_policy",
    bin_name = "kubectl karmada-policy",
    version,
    about = "Lint, explain and operate Karmada PropagationPolicies and ClusterPropagationPolicies",
    after_help = EXIT_CODES,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check manifests for invalid policies, overlaps, silent non-preemption and suspension
    /// that stalls failover.
    #[command(after_help = lint::AFTER_HELP)]
    Lint(lint::Args),
    /// For one resource template: every candidate policy, the ranking, and the owner now and later.
    #[command(after_help = EXIT_CODES)]
    Explain(explain::Args),
    /// What applying or deleting policies would do: which templates move, which don't and why.
    #[command(name = "preempt-check", after_help = EXIT_CODES)]
    PreemptCheck(preempt_check::Args),
    /// Pause dispatching of policies (all clusters, or --clusters), live or in manifest files (-f).
    #[command(after_help = suspend::AFTER_HELP)]
    Suspend(suspend::Args),
    /// Resume dispatching of policies (all clusters, or --clusters), live or in manifest files (-f).
    #[command(after_help = suspend::AFTER_HELP)]
    Resume(suspend::Args),
    /// Print a shell completion script, or install kubectl's plugin completion shim.
    #[command(after_help = completion::AFTER_HELP)]
    Completion(completion::Args),
    /// Print the version, git commit, build date and the Karmada release whose rules apply.
    #[command(after_help = version::AFTER_HELP)]
    Version(version::Args),
    /// Write one man page per command into a directory (release builds).
    #[command(hide = true)]
    Man(man::Args),
}

/// Entry point of the binary: parse, run, and turn every outcome into an exit code.
pub fn main() -> ExitCode {
    // kubectl's plugin completion (Cobra's protocol), before clap sees the words.
    let words: Vec<String> = std::env::args().skip(1).collect();
    if words.first().is_some_and(|w| w == "__complete") {
        return completion::run_hidden(&words[1..]).into();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                Exit::Usage
            } else {
                Exit::Ok
            };
            let _ = e.print();
            return code.into();
        }
    };
    let result = match cli.command {
        Command::Lint(args) => lint::run(args),
        Command::Explain(args) => explain::run(args),
        Command::PreemptCheck(args) => preempt_check::run(args),
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
