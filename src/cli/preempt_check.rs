//! `preempt-check`: what applying or deleting policies would do. The state is settled first
//! (what Karmada converges to for it, as after a restart), then the changes run in the order
//! given on the command line, as successive controller events.

use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};

use super::args::{ChangeArg, EngineSettings, KubeFlags};
use super::common::{read_inputs, stdout_color, write_stdout};
use super::error::{CliError, Exit};
use crate::engine::check_notes::{delivery_changes, DeliveryInputs};
use crate::engine::claim::Filters;
use crate::engine::delivery::DeliveryChange;
use crate::engine::simulate::{check, Change, ChangeError, CheckReport};
use crate::engine::state::{Options, State, UnknownClaimers};
use crate::model::cluster::Cluster;
use crate::model::kinds;
use crate::model::{Inventory, Object, Policy};
use crate::output::format::render_preempt_check;
use crate::source::live::{self, karmada};
use crate::source::session::{all_ok, Session};

/// The flags. `--apply` and `--delete` interleave, so their relative order is read from the
/// argument indices, which clap's derive does not expose: the clap traits are written by hand.
#[derive(Clone, Debug)]
pub struct Args {
    pub files: Vec<String>,
    pub changes: Vec<ChangeArg>,
    pub namespace: Option<String>,
    pub feature_gates: Option<String>,
    pub output: String,
    pub fail_on_blocked: bool,
    pub karmada_version: Option<String>,
    /// Live mode (no `-f`): how to reach the control plane.
    pub kube: KubeFlags,
}

impl FromArgMatches for Args {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut changes: Vec<(usize, ChangeArg)> = Vec::new();
        for (id, make) in [
            ("apply", ChangeArg::Apply as fn(String) -> ChangeArg),
            ("delete", ChangeArg::Delete as fn(String) -> ChangeArg),
        ] {
            if let (Some(values), Some(indices)) = (m.get_many::<String>(id), m.indices_of(id)) {
                for (v, i) in values.zip(indices) {
                    changes.push((i, make(v.clone())));
                }
            }
        }
        changes.sort_by_key(|(i, _)| *i);
        Ok(Args {
            files: m
                .get_many::<String>("files")
                .map(|v| v.cloned().collect())
                .unwrap_or_default(),
            changes: changes.into_iter().map(|(_, c)| c).collect(),
            namespace: m.get_one::<String>("namespace").cloned(),
            feature_gates: m.get_one::<String>("feature-gates").cloned(),
            output: m
                .get_one::<String>("output")
                .cloned()
                .unwrap_or_else(|| "text".into()),
            fail_on_blocked: m.get_flag("fail-on-blocked"),
            karmada_version: m.get_one::<String>("karmada-version").cloned(),
            kube: <KubeFlags as FromArgMatches>::from_arg_matches(m)?,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Args::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for Args {
    fn augment_args(cmd: Command) -> Command {
        let cmd = <KubeFlags as clap::Args>::augment_args(cmd);
        cmd.arg(
            Arg::new("files")
                .short('f')
                .long("filename")
                .value_name("FILE")
                .action(ArgAction::Append)
                .help("Manifests holding the current state (files, directories, `-`); without -f, the live control plane (read only, nothing is written)"),
        )
        .arg(
            Arg::new("apply")
                .long("apply")
                .value_name("FILE")
                .action(ArgAction::Append)
                .help("Create or update every policy in FILE (repeatable; order matters)"),
        )
        .arg(
            Arg::new("delete")
                .long("delete")
                .value_name("TYPE/[NS/]NAME")
                .action(ArgAction::Append)
                .help("Delete a policy, e.g. pp/default/a or cpp/platform (repeatable; order matters)"),
        )
        .arg(
            Arg::new("namespace")
                .value_name("NAMESPACE")
                .short('n')
                .long("namespace")
                .help("Namespace for objects and --delete targets that name none (default: `default` with -f, the kubeconfig context's namespace in live mode)"),
        )
        .arg(
            Arg::new("feature-gates")
                .long("feature-gates")
                .value_name("GATE=BOOL,...")
                .help("Karmada controller feature gates, e.g. PropagationPolicyPreemption=true (off by default)"),
        )
        .arg(
            Arg::new("output")
                .value_name("FORMAT")
                .short('o')
                .long("output")
                .default_value("text")
                .value_parser(["text", "json"])
                .help("Output format"),
        )
        .arg(
            Arg::new("fail-on-blocked")
                .long("fail-on-blocked")
                .action(ArgAction::SetTrue)
                .help("Exit 1 when a changed policy matches a template it does not get"),
        )
        .arg(
            Arg::new("karmada-version")
                .long("karmada-version")
                .value_name("VERSION")
                .help("The Karmada release whose rules apply (default: the newest known)"),
        )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Args::augment_args(cmd)
    }
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    if args.changes.is_empty() {
        return Err(CliError::usage(
            "nothing to check: give --apply FILE or --delete TYPE/[NS/]NAME (repeatable)",
        ));
    }
    let engine = EngineSettings::from_flags(
        args.feature_gates.as_deref(),
        args.karmada_version.as_deref(),
    )?;
    if args.files.is_empty() {
        let (state, changes, inv) = live_state(&args, engine)?;
        let before = state.clone();
        let deliveries = |r: &CheckReport| file_deliveries(r, &inv, &before);
        return report(state, changes, &args, "in the control plane", &deliveries);
    }
    let namespace = args.namespace.as_deref().unwrap_or("default");
    let inv = read_inputs(&args.files, namespace)?;
    let mut changes = Vec::new();
    for c in &args.changes {
        match c {
            ChangeArg::Apply(file) => {
                let applied = read_inputs(std::slice::from_ref(file), namespace)?;
                let mut ignored = 0;
                let mut policies = 0;
                for o in applied.objects {
                    match o {
                        Object::Policy(p) => {
                            policies += 1;
                            changes.push(Change::Apply(p));
                        }
                        _ => ignored += 1,
                    }
                }
                if ignored > 0 {
                    eprintln!("warning: {file}: {ignored} object(s) other than policies ignored");
                }
                if policies == 0 {
                    return Err(CliError::usage(format!(
                        "{file}: no PropagationPolicy or ClusterPropagationPolicy to apply"
                    )));
                }
            }
            ChangeArg::Delete(target) => {
                changes.push(Change::Delete(kinds::policy_ref(target, namespace, &inv)?));
            }
        }
    }
    let state = State::from_inventory(
        &inv,
        Options {
            gates: engine.gates,
            filters: Filters::default(),
            version: engine.version,
            unknown_claimers: UnknownClaimers::AssumeExisting,
        },
    );
    let before = state.clone();
    let deliveries = |r: &CheckReport| file_deliveries(r, &inv, &before);
    report(state, changes, &args, "in the state", &deliveries)
}

/// What member clusters receive before and after each move, from the files or the control
/// plane's objects: the manifests, Cluster objects and override policies of the input, the
/// owners' placements before the changes from `before`.
fn file_deliveries(r: &CheckReport, inv: &Inventory, before: &State) -> Vec<DeliveryChange> {
    let clusters = Cluster::from_inventory(inv);
    let overrides: Vec<&crate::model::OverridePolicy> = inv.overrides().collect();
    let template = |t: usize| {
        let doc = before.templates.get(t)?.doc?;
        Some(inv.documents.get(doc)?.full_tree().to_json())
    };
    delivery_changes(
        r,
        &DeliveryInputs {
            template: &template,
            before,
            clusters: &clusters,
            overrides: &overrides,
        },
    )
}

/// Applies `changes` to `state`, prints the report as `-o` asks and maps `--fail-on-blocked` to
/// the exit code (files and live mode alike). `--delete` of a policy that is nowhere is a usage
/// error saying where it was looked for (`where_`).
/// `deliveries` says what member clusters receive before and after each move.
fn report(
    state: State,
    changes: Vec<Change>,
    args: &Args,
    where_: &str,
    deliveries: &dyn Fn(&CheckReport) -> Vec<DeliveryChange>,
) -> Result<Exit, CliError> {
    let mut report = check(state, changes).map_err(|e| match e {
        ChangeError::NotFound(r) => CliError::usage(format!(
            "--delete {r}: no such policy {where_} (and no claim names it)"
        )),
    })?;
    report.deliveries = deliveries(&report);
    let out = render_preempt_check(&args.output, &report, stdout_color());
    write_stdout(&out)?;
    if args.fail_on_blocked && crate::output::preempt_check::any_blocked(&report) {
        return Ok(Exit::Failure);
    }
    Ok(Exit::Ok)
}

/// The live state, the changes of `preempt-check --apply FILE / --delete TYPE/[NS/]NAME`, and
/// the objects read (templates, overrides and Clusters for the delivery notes). Nothing is
/// written: the changes run in the engine only.
fn live_state(
    args: &Args,
    engine: EngineSettings,
) -> Result<(State, Vec<Change>, Inventory), CliError> {
    let settings = args.kube.settings()?;
    let connect = || Session::connect(&settings.connect_options(), settings.concurrency);
    // Without -n the namespace is the kubeconfig context's, which needs the connection.
    let mut session = None;
    let namespace = match args.namespace.as_deref() {
        Some(n) => n.to_string(),
        None => {
            let s = connect()?;
            let n = s.namespace().to_string();
            session = Some(s);
            n
        }
    };
    // The changes next: a bad file or target is a usage error before any list request.
    let (applied, changes) = read_changes(&args.changes, &namespace)?;
    let mut s = match session {
        Some(s) => s,
        None => connect()?,
    };
    let base = [
        karmada::pp(),
        karmada::cpp(),
        karmada::op(),
        karmada::cop(),
        karmada::rb(),
        karmada::crb(),
        karmada::cluster(),
    ];
    let reads = s.list_all(base.iter().cloned())?;
    let policy_docs = live::documents(&reads[..2]);
    let policies = Inventory::from_documents(policy_docs, "default");
    let kinds =
        crate::engine::simulate::touched_kinds(&policies, &applied, &changes, &s.discovered);
    let template_reads = s.list_all(kinds)?;
    s.warn_notes();
    let complete = all_ok(&reads, &base[..2]);
    let docs = live::documents(reads.iter().chain(&template_reads));
    let inv = Inventory::from_documents(docs, "default");
    let unknown_claimers = if complete {
        // With every policy read, a claim naming a missing policy is stale (§4.2).
        UnknownClaimers::Stale
    } else {
        UnknownClaimers::AssumeExisting
    };
    let state = State::from_inventory(
        &inv,
        Options {
            gates: engine.gates,
            filters: Filters::default(),
            version: engine.version,
            unknown_claimers,
        },
    );
    Ok((state, changes, inv))
}

/// The policies `--apply` files hold and the changes, in command-line order.
fn read_changes(
    change_args: &[ChangeArg],
    namespace: &str,
) -> Result<(Vec<Policy>, Vec<Change>), CliError> {
    let mut applied: Vec<Policy> = Vec::new();
    let mut changes = Vec::new();
    for c in change_args {
        match c {
            ChangeArg::Apply(file) => {
                let inv = read_inputs(std::slice::from_ref(file), namespace)?;
                let before = applied.len();
                for o in inv.objects {
                    if let Object::Policy(p) = o {
                        applied.push((*p).clone());
                        changes.push(Change::Apply(p));
                    }
                }
                if applied.len() == before {
                    return Err(CliError::usage(format!(
                        "{file}: no PropagationPolicy or ClusterPropagationPolicy to apply"
                    )));
                }
            }
            ChangeArg::Delete(target) => changes.push(Change::Delete(kinds::policy_ref(
                target,
                namespace,
                &Inventory::default(),
            )?)),
        }
    }
    Ok((applied, changes))
}
