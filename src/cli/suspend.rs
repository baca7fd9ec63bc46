//! `suspend` and `resume`: pause or resume dispatching of policies, per cluster, in manifest
//! files (`-f`, GitOps) or on a live Karmada control plane. Named policies (`suspend pp/x`) or
//! a freeze of clusters (`suspend --clusters a,b` with no policy named, issue 9), one path.
//!
//! This file checks the flags and wires the steps of [`crate::ops::suspend`] (gather and plan,
//! then apply) to the renderers of [`crate::output::suspend`], asking for confirmation between.

use std::io::Write;
use std::time::Duration;

use super::common::write_stdout;
use super::error::{CliError, Exit};
use crate::engine::suspension::{Action, Request};
use crate::ops::live::DryRun;
use crate::ops::request::Flags;
use crate::ops::suspend::{self as run, Settings};
use crate::output::suspend::{self as out, Report, Status};

/// The flags, declared once in [`crate::ops::request::Flags`].
pub type Args = Flags;

pub fn run(action: Action, args: Args) -> Result<Exit, CliError> {
    // Resolved for its checks (exit 2 as everywhere), its `knownClusters` and its gates.
    let context = super::args::context(&args.context)?;
    let checked = args.check_in(action, &context)?;
    if !args.files.is_empty() {
        super::args::warn_live_only(&args.kube);
    }
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
        Status::NotFound => Exit::NotFound,
    })
}

/// Asks before a bulk change; without a terminal, `--yes` is required.
fn confirm(action: Action, n: usize, request: &Request) -> Result<(), CliError> {
    let (question, refusal) = out::confirm_question(action, n, request);
    match crate::output::terminal::ask(&question)? {
        None => Err(CliError::usage(refusal)),
        Some(true) => Ok(()),
        Some(false) => Err(CliError::Declined),
    }
}

fn named_files(s: &Settings, args: &Args) -> Result<Exit, CliError> {
    let (results, diffs) = run::named_files(s, &args.files, args.env.as_deref())?;
    write_stdout(&diffs)?;
    finish(out::named_report(&results, None, false))
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
    if args.objects_format().is_none() {
        write_stdout(&out::named_diffs(&results))?;
    }
    if args.wait && s.dry == DryRun::None {
        rt.block_on(run::wait_for_works(&conn, &mut results, wait_timeout));
    }
    let format = args.objects_format();
    finish(out::named_report(
        &results,
        format,
        args.show_managed_fields,
    ))
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
