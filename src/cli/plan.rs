//! `plan`: what a change does to the fleet, per environment and per member cluster, before it
//! happens (`inspect::plan` reads the two states, `engine::plan` compares them).

use clap::Args as ClapArgs;

use super::args::{ContextArgs, InputArgs, KubeArgs, ReportArgs, RevisionArgs};
use super::common::{stdout_color, write_stdout};
use super::error::{CliError, Exit};
use crate::inspect::plan::{plan_git, plan_live, Compared, GitPlan, LivePlan};
use crate::output::format::render_plan;
use crate::output::plan::PlanReport;

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// With --base: files and directories of the repository to compare (default: all of it).
    pub paths: Vec<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub revisions: RevisionArgs,
    /// Live: delete an object as `kubectl delete` would, e.g. pp/shop/web, op/shop/zero,
    /// cpp/platform, deploy/shop/web (repeatable).
    #[arg(long = "delete", value_name = "TYPE/[NS/]NAME")]
    pub delete: Vec<String>,
    /// Exit 6 when the change has a hazard (a policy removed while it holds templates, ...).
    #[arg(long = "fail-on-hazard")]
    pub fail_on_hazard: bool,
    #[command(flatten)]
    pub context: ContextArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub kube: KubeArgs,
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    let context = super::args::context(&args.context)?;
    let compared = match &args.revisions.base {
        Some(base) => {
            if !args.delete.is_empty() {
                return Err(CliError::usage(
                    "--delete is for the control plane; with --base the change is the revisions' difference",
                ));
            }
            super::args::warn_live_only(&args.kube);
            let mut paths = args.input.files.clone();
            paths.extend(args.paths.iter().cloned());
            let req = GitPlan {
                paths: &paths,
                rev: args.revisions.rev.as_deref(),
                base,
                env: args.input.env.as_deref(),
                context: &context,
            };
            plan_git(&std::env::current_dir()?, &req, &|n| eprintln!("note: {n}"))?
        }
        None => live(&args, &context)?,
    };
    report(&args, compared)
}

/// `plan -f FILE...` and `--delete` against the control plane.
fn live(args: &Args, context: &crate::context::Context) -> Result<Compared, CliError> {
    if args.revisions.rev.is_some() {
        return Err(CliError::usage(
            "--rev needs --base: the revision to compare it with",
        ));
    }
    if !args.paths.is_empty() {
        return Err(CliError::usage(
            "PATHs narrow a repository compared with --base; the control plane takes -f FILE",
        ));
    }
    if args.input.files.is_empty() && args.delete.is_empty() {
        return Err(CliError::usage(
            "nothing to plan: give --base REV (a pull request), or -f FILE / --delete TYPE/[NS/]NAME (the control plane)",
        ));
    }
    if args.input.env.is_some() {
        return Err(CliError::usage(
            "--env picks an environment of a repository compared with --base",
        ));
    }
    let connect = || super::args::connect(&args.kube);
    let req = LivePlan {
        files: &args.input.files,
        deletes: &args.delete,
        context,
    };
    Ok(plan_live(&connect, &req)?)
}

/// Prints the plan as `-o` asks; the exit code says whether anything changes (kubectl diff's
/// 0 and 1), or 6 for a hazard with `--fail-on-hazard`.
fn report(args: &Args, compared: Compared) -> Result<Exit, CliError> {
    let report: PlanReport = compared;
    write_stdout(&render_plan(args.report.output, &report, stdout_color()))?;
    Ok(if args.fail_on_hazard && report.has_hazards() {
        Exit::Hazard
    } else if report.has_changes() {
        // kubectl diff's 1: there are differences (not a failure of the command).
        Exit::Failure
    } else {
        Exit::Ok
    })
}
