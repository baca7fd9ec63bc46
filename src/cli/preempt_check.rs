//! `preempt-check`: what applying or deleting policies would do. The state is settled first
//! (what Karmada converges to for it, as after a restart), then the changes run in the order
//! given on the command line, as successive controller events.

use clap::{ArgMatches, Command, FromArgMatches};

use super::args::{ContextArgs, InputArgs, KubeArgs, ReportArgs};
use super::common::{stdout_color, write_stdout};
use super::error::{CliError, Exit};
use crate::context::Context;
use crate::engine::check_notes::delivery_changes_in_files;
use crate::engine::delivery::DeliveryChange;
use crate::engine::explain_inputs::Searched;
use crate::engine::simulate::{check, Change, ChangeError, CheckReport};
use crate::engine::state::{State, UnknownClaimers};
use crate::inspect::preempt::{
    live_state, note_unreported_clusters, read_changes, ApplyFiles, ChangeArg,
};
use crate::inspect::{environments, plain_context, read_admitted, Environments};
use crate::output::environments::{render_found, section_format};
use crate::output::format::render_preempt_check;

/// The flags as clap derives them; [`Args`] adds the changes in command-line order.
#[derive(Clone, Debug, clap::Args)]
pub struct Flags {
    /// Live mode (no `-f`): how to reach the control plane.
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub input: InputArgs,
    /// Create or update every policy in FILE (repeatable; files in a row apply at once).
    #[arg(long = "apply", value_name = "FILE")]
    pub apply: Vec<String>,
    /// Delete a policy, e.g. pp/default/a or cpp/platform (repeatable; order matters).
    #[arg(long = "delete", value_name = "TYPE/[NS/]NAME")]
    pub delete: Vec<String>,
    #[command(flatten)]
    pub context: ContextArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Exit 1 when a changed policy matches a template it does not get, or is refused.
    #[arg(long = "fail-on-blocked")]
    pub fail_on_blocked: bool,
}

/// The flags, and `--apply`/`--delete` interleaved: their relative order is read from the
/// argument indices, which clap's derive does not expose.
#[derive(Clone, Debug)]
pub struct Args {
    pub flags: Flags,
    pub changes: Vec<ChangeArg>,
}

impl FromArgMatches for Args {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut changes: Vec<(usize, ChangeArg)> = Vec::new();
        for (id, make) in [
            ("apply", ChangeArg::Apply as fn(String) -> ChangeArg),
            ("delete", ChangeArg::Delete as fn(String) -> ChangeArg),
        ] {
            if let (Some(values), Some(indices)) = (m.get_many::<String>(id), m.indices_of(id)) {
                changes.extend(indices.zip(values).map(|(i, v)| (i, make(v.clone()))));
            }
        }
        changes.sort_by_key(|(i, _)| *i);
        Ok(Args {
            flags: Flags::from_arg_matches(m)?,
            changes: changes.into_iter().map(|(_, c)| c).collect(),
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Args::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for Args {
    fn augment_args(cmd: Command) -> Command {
        <Flags as clap::Args>::augment_args(cmd)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        <Flags as clap::Args>::augment_args_for_update(cmd)
    }
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    if args.changes.is_empty() {
        return Err(CliError::usage(
            "nothing to check: give --apply FILE or --delete TYPE/[NS/]NAME (repeatable)",
        ));
    }
    let flags = &args.flags;
    let context = super::args::context(&flags.context)?;
    if flags.input.files.is_empty() {
        let connect = || super::args::connect(&flags.kube);
        let namespace = context.namespace.as_deref();
        let live = live_state(&connect, namespace, &args.changes, &context)?;
        note_unreported_clusters(&live.inventory);
        let before = live.state.clone();
        let deliveries = |r: &CheckReport| delivery_changes_in_files(r, &live.inventory, &before);
        let changes = live.changes.changes;
        return report(
            live.state,
            changes,
            flags,
            &Searched::all("in the control plane"),
            &deliveries,
        );
    }
    super::args::warn_live_only(&flags.kube);
    let namespace = context.files_namespace();
    if let Some(envs) = environments(&flags.input.files, &context, flags.input.env.as_deref())? {
        return check_environments(&args, &envs, &context);
    }
    let context = plain_context(&flags.input.files, &context)?;
    let inputs = read_admitted(&flags.input.files, &context)?;
    let searched = Searched::new("in the given files", inputs.unread());
    let mut inv = inputs.inventory;
    note_unreported_clusters(&inv);
    let changes = read_changes(&args.changes, (namespace, &context), &inv, true)?.changes;
    ApplyFiles::of(&args.changes).leave_out_of_files(&mut inv);
    let state = State::from_inventory(
        &inv,
        context.engine_options(UnknownClaimers::AssumeExisting),
    );
    let before = state.clone();
    let deliveries = |r: &CheckReport| delivery_changes_in_files(r, &inv, &before);
    report(state, changes, flags, &searched, &deliveries)
}

/// Applies `changes` to `state`, prints the report as `-o` asks and maps `--fail-on-blocked` to
/// the exit code (files and live mode alike). `--delete` of a policy that is nowhere is a usage
/// error saying where it was looked for (`searched`).
/// `deliveries` says what member clusters receive before and after each move.
fn report(
    state: State,
    changes: Vec<Change>,
    flags: &Flags,
    searched: &Searched,
    deliveries: &dyn Fn(&CheckReport) -> Vec<DeliveryChange>,
) -> Result<Exit, CliError> {
    let (out, blocked) = checked(state, changes, flags, searched, deliveries)?;
    write_stdout(&out)?;
    Ok(exit(flags, blocked))
}

fn exit(flags: &Flags, blocked: bool) -> Exit {
    if flags.fail_on_blocked && blocked {
        Exit::Failure
    } else {
        Exit::Ok
    }
}

/// The report as `-o` asks, and whether a changed policy is blocked.
fn checked(
    state: State,
    changes: Vec<Change>,
    flags: &Flags,
    searched: &Searched,
    deliveries: &dyn Fn(&CheckReport) -> Vec<DeliveryChange>,
) -> Result<(String, bool), CliError> {
    // Said as explain says it: a policy admission refuses is not in the state.
    let rejected = state.rejected.clone();
    let mut report = check(state, changes).map_err(|e| match e {
        // A policy that does not exist is exit 4 wherever it is named (docs/exit-codes.md).
        ChangeError::NotFound(r) => CliError::from(searched.missing(&rejected, &r)),
    })?;
    report.deliveries = deliveries(&report);
    let out = render_preempt_check(flags.report.output, &report, stdout_color());
    Ok((out, crate::output::preempt_check::any_blocked(&report)))
}

/// `-f` over a GitOps repository: the check in each environment with objects (holding every
/// `--delete` target), one section each when there are several.
fn check_environments(
    args: &Args,
    envs: &Environments,
    context: &Context,
) -> Result<Exit, CliError> {
    let flags = &args.flags;
    let namespace = context.files_namespace();
    let section = Flags {
        report: ReportArgs {
            output: section_format(flags.report.output),
        },
        ..flags.clone()
    };
    let warned = std::cell::Cell::new(false);
    let apply_files = ApplyFiles::of(&args.changes);
    let found = envs.holding(|e, env_context| {
        note_unreported_clusters(&e.inventory);
        let first = !warned.replace(true);
        let list = read_changes(&args.changes, (namespace, env_context), &e.inventory, first)?;
        let (inv, changes) = (&*apply_files.state_in(e, &list.applied), list.changes);
        let options = env_context.engine_options(UnknownClaimers::AssumeExisting);
        let state = State::from_inventory(inv, options);
        let before = state.clone();
        let deliveries = |r: &CheckReport| delivery_changes_in_files(r, inv, &before);
        let searched = Searched::all("in the given files");
        checked(state, changes, &section, &searched, &deliveries)
    })?;
    if found.is_empty() {
        return Err(CliError::usage(envs.renders_nothing("to check against")));
    }
    let blocked = found.iter().any(|(_, (_, b))| *b);
    let reports = found
        .into_iter()
        .map(|(e, (report, _))| (e, report))
        .collect();
    write_stdout(&render_found(flags.report.output, reports, envs.count()))?;
    Ok(exit(flags, blocked))
}
