//! `suspend` and `resume`: pause or resume dispatching of policies, per cluster, in manifest
//! files (`-f`, GitOps) or on a live Karmada control plane. Named policies (`suspend pp/x`) or
//! a freeze of clusters (`suspend --clusters a,b` with no policy named, issue 9), one path.
//!
//! This file checks the flags and wires the steps of [`crate::ops::suspend`] (gather and plan,
//! then apply) to the renderers of [`crate::output::suspend`], asking for confirmation between.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args as ClapArgs;

use super::common::write_stdout;
use super::error::{CliError, Exit};
use crate::engine::suspension::{Action, Request};
use crate::ops::live::DryRun;
use crate::ops::request::Flags;
use crate::ops::suspend::{self as run, Settings};
use crate::output::suspend::{self as out, Report, Status};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Policies: pp/NAME, cpp/NAME, or a type followed by names.
    pub targets: Vec<String>,
    /// Edit policies in these manifest files in place (GitOps) instead of the live control plane.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<String>,
    /// With -f naming a kustomize repository: the kustomization (an overlay, an environment)
    /// whose layer the edit goes to.
    #[arg(long, value_name = "DIR")]
    pub env: Option<String>,
    /// Namespace of PropagationPolicies (default: the kubeconfig context's namespace).
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// PropagationPolicies in every namespace.
    #[arg(short = 'A', long = "all-namespaces")]
    pub all_namespaces: bool,
    /// Label selector (`app=web,tier!=db`, `env in (a,b)`).
    #[arg(short = 'l', long = "selector")]
    pub selector: Option<String>,
    /// Every policy of the selected types (PropagationPolicies in the namespace and
    /// ClusterPropagationPolicies, unless a type is named).
    #[arg(long)]
    pub all: bool,
    /// Only these member clusters (comma-separated); without it, all clusters. With no policy
    /// named: freeze (or lift the freeze of) these clusters on every policy targeting them.
    #[arg(short = 'C', long, value_delimiter = ',', value_name = "CLUSTER,...")]
    pub clusters: Vec<String>,
    /// Print the unified diff and write nothing. Live mode: `client` computes locally,
    /// `server` asks the API server (dryRun=All).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "client",
          value_parser = ["none", "client", "server"], value_name = "MODE")]
    pub dry_run: Option<String>,
    /// Record a reason, user and time in annotations (live mode; a freeze records it with -f too).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// Unknown cluster names are an error instead of a warning.
    #[arg(long)]
    pub strict: bool,
    /// Suspend all clusters of a policy even though failover would stall.
    #[arg(long)]
    pub force: bool,
    /// Do not ask for confirmation of bulk changes.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Print the resulting objects instead of one line per policy.
    #[arg(short = 'o', long, value_parser = ["yaml", "json"], value_name = "FORMAT")]
    pub output: Option<String>,
    /// After the write, wait until each affected Work's Dispatching condition shows the new
    /// state (False/SuspendDispatching when suspended, True when resumed).
    #[arg(long)]
    pub wait: bool,
    /// With --wait: how long to wait before failing (exit 1, naming the Works that lag).
    #[arg(long, default_value = "2m", value_name = "DURATION")]
    pub timeout: String,
    /// Path to the kubeconfig file (else KUBECONFIG, else ~/.kube/config).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, visible_alias = "karmada-context", value_name = "NAME")]
    pub context: Option<String>,
    /// Timeout of each API request (`0` = none), e.g. 30s, 1m.
    #[arg(long, default_value = "0", value_name = "DURATION")]
    pub request_timeout: String,
    /// How many policies to change at once.
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub concurrency: usize,
}

impl Args {
    fn flags(&self) -> Flags {
        Flags {
            targets: self.targets.clone(),
            files: self.files.clone(),
            env: self.env.clone(),
            namespace: self.namespace.clone(),
            all_namespaces: self.all_namespaces,
            selector: self.selector.clone(),
            all: self.all,
            clusters: self.clusters.clone(),
            dry_run: self.dry_run.clone(),
            reason: self.reason.clone(),
            strict: self.strict,
            force: self.force,
            output: self.output.clone(),
            wait: self.wait,
            timeout: self.timeout.clone(),
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            request_timeout: self.request_timeout.clone(),
            concurrency: self.concurrency,
        }
    }
}

pub fn run(action: Action, args: Args) -> Result<Exit, CliError> {
    let checked = args.flags().check(action)?;
    let s = &checked.settings;
    match (checked.freeze, args.files.is_empty()) {
        (true, false) => freeze_files(s, &args),
        (true, true) => freeze_live(s, &args),
        (false, false) => named_files(s, &args),
        (false, true) => named_live(s, &args, checked.wait_timeout),
    }
}

/// Prints a report (errors first, on stderr) and turns its status into the exit code.
fn finish(report: Report) -> Result<Exit, CliError> {
    let _ = std::io::stderr().lock().write_all(report.stderr.as_bytes());
    write_stdout(&report.stdout)?;
    Ok(match report.status {
        Status::Ok => Exit::Ok,
        Status::Failure => Exit::Failure,
        Status::Api => Exit::Api,
    })
}

/// Asks before a bulk change; without a terminal, `--yes` is required.
fn confirm(action: Action, n: usize, request: &Request) -> Result<(), CliError> {
    let (question, refusal) = out::confirm_question(action, n, request);
    match crate::output::terminal::ask(&question)? {
        None => Err(CliError::usage(refusal)),
        Some(true) => Ok(()),
        Some(false) => Err(CliError::failure("aborted: nothing was changed")),
    }
}

fn named_files(s: &Settings, args: &Args) -> Result<Exit, CliError> {
    let (results, diffs) = run::named_files(s, &args.files, args.env.as_deref())?;
    write_stdout(&diffs)?;
    finish(out::named_report(&results, None))
}

fn named_live(s: &Settings, args: &Args, wait_timeout: Duration) -> Result<Exit, CliError> {
    let rt = run::runtime()?;
    let (conn, namespace) = rt.block_on(run::connect(s))?;
    let Some(live) = rt.block_on(run::named_live(&conn, s, &namespace))? else {
        let _ = writeln!(std::io::stderr().lock(), "No resources found");
        return Ok(Exit::Ok);
    };
    let bulk = s.selection.is_bulk() || live.targets.len() > 1;
    if bulk && s.dry == DryRun::None && !args.yes {
        confirm(s.action, live.targets.len(), &s.request)?;
    }
    let mut results = rt.block_on(run::apply_named_live(&conn, live, s))?;
    if args.output.is_none() {
        write_stdout(&out::named_diffs(&results))?;
    }
    if args.wait && s.dry == DryRun::None {
        rt.block_on(run::wait_for_works(&conn, &mut results, wait_timeout));
    }
    finish(out::named_report(&results, args.output.as_deref()))
}

/// The table, its warnings and the confirmation; `false` when there is nothing to write.
fn before_freeze(s: &Settings, args: &Args, f: &run::Freeze) -> Result<bool, CliError> {
    write_stdout(&out::freeze_table(s.action, &s.request, f))?;
    for w in out::freeze_warnings(f) {
        crate::util::warn(&w);
    }
    let n = f.changes();
    if n == 0 {
        return Ok(false);
    }
    if !s.dry.is_dry() && !args.yes {
        confirm(s.action, n, &s.request)?;
    }
    Ok(true)
}

fn freeze_files(s: &Settings, args: &Args) -> Result<Exit, CliError> {
    let mut f = run::freeze_files(s, &args.files)?;
    if before_freeze(s, args, &f)? {
        write_stdout(&run::apply_freeze_files(&mut f, s.dry)?)?;
    }
    finish(out::freeze_report(s.action, &s.request, &f, s.dry.is_dry()))
}

fn freeze_live(s: &Settings, args: &Args) -> Result<Exit, CliError> {
    let rt = run::runtime()?;
    let (conn, namespace) = rt.block_on(run::connect(s))?;
    let mut f = rt.block_on(run::freeze_live(&conn, s, &namespace))?;
    if before_freeze(s, args, &f)? {
        rt.block_on(run::apply_freeze_live(&conn, &mut f, s))?;
    }
    finish(out::freeze_report(s.action, &s.request, &f, s.dry.is_dry()))
}
