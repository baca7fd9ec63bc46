//! `suspend` and `resume`: pause or resume dispatching of policies, per cluster, in manifest
//! files (`-f`, GitOps) or on a live Karmada control plane.
//!
//! The decision is [`crate::engine::suspension::plan`]; file edits are [`crate::ops::edit`]; live
//! writes go through [`crate::kube`], which owns optimistic concurrency and dry-run.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::Args as ClapArgs;
use serde_json::{json, Value as J};

use super::common::{write_stdout, CliError, Exit};
use crate::engine::suspension::{self as plan, Action, ClusterHealth, Plan, Request, State};
use crate::kube::{self, Conn};
use crate::model::binding::BoundClusters;
pub(super) use crate::model::gitops::gitops_owner;
use crate::model::label_selector::Selector;
use crate::model::policy::{PropagationSpec, Suspension};
use crate::model::{Inventory, PolicyKind};
use crate::ops::edit;
use crate::ops::live::{
    self as writer, DryRun, Patch, PolicyRef, Step, WaitFor, WriteError, Written,
};
use crate::output::yaml as yaml_out;
use crate::source::files;
use crate::util::duration::parse_duration;

pub const SUSPEND_EXAMPLES: &str = "\
Examples:
  # Stop dispatching nginx to two clusters, live
  kubectl karmada-policy suspend pp/nginx -n web --clusters member2,member3
  # Every policy of a namespace, without asking, with a reason recorded
  kubectl karmada-policy suspend --all -n web --yes --reason \"freeze for incident 42\"
  # GitOps: show the edit of a manifest file, write nothing
  kubectl karmada-policy suspend -f policies/nginx.yaml pp/nginx --dry-run
  # Freeze clusters: every policy of every namespace that targets them
  kubectl karmada-policy suspend --clusters member2,member3 -A --reason \"maintenance\"
  kubectl karmada-policy suspend --clusters member2 -f manifests/ --dry-run";

pub const RESUME_EXAMPLES: &str = "\
Examples:
  # Dispatch nginx to member2 again, live
  kubectl karmada-policy resume pp/nginx -n web --clusters member2
  # Lift a freeze of clusters (what suspend --clusters added, nothing older)
  kubectl karmada-policy resume --clusters member2,member3 -A
  # GitOps: resume in manifest files
  kubectl karmada-policy resume -f policies/ pp/nginx";

pub const AFTER_HELP: &str = "\
Policies: pp/NAME, cpp/NAME (also propagationpolicy/NAME, clusterpropagationpolicy/NAME), or a
type followed by names (`pp a b`); -l SELECTOR or --all select by label or everything.

Freeze: --clusters with no policy named (and no --all) acts on every PropagationPolicy of the
namespace (-A: of all namespaces, and every ClusterPropagationPolicy) whose target clusters (its
bindings' spec.clusters, else the placement's cluster names) include a given cluster; -l narrows.
It prints a table first, records what it added in the karmada-policy.io/freeze annotation (time,
user, --reason; SOURCE_DATE_EPOCH fixes the time), and `resume --clusters` with no policy named
lifts exactly that, leaving earlier suspensions in place. The same with -f DIR.

Exit codes:
  0  success (also when nothing needed to change: \"already suspended on member2\")
  1  some objects failed (each reported), e.g. conflicts past the retry budget
  2  usage error, unreadable input or an unknown --context
  3  API or authentication failure";

/// Attempts per object on 409 Conflict before giving up (read, compute, write each time).

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Policies: pp/NAME, cpp/NAME, or a type followed by names.
    pub targets: Vec<String>,
    /// Edit policies in these manifest files in place (GitOps) instead of the live control plane.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<String>,
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

/// One policy named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Named {
    kind: PolicyKind,
    name: String,
}

/// What the command line selects.
#[derive(Debug, Default)]
struct Selection {
    named: Vec<Named>,
    /// Types named without names (`pp`), for --all / -l.
    kinds: Vec<PolicyKind>,
}

fn kind_word(s: &str) -> Option<PolicyKind> {
    match s.to_ascii_lowercase().as_str() {
        "pp"
        | "propagationpolicy"
        | "propagationpolicies"
        | "propagationpolicy.policy.karmada.io"
        | "propagationpolicies.policy.karmada.io" => Some(PolicyKind::PropagationPolicy),
        "cpp"
        | "clusterpropagationpolicy"
        | "clusterpropagationpolicies"
        | "clusterpropagationpolicy.policy.karmada.io"
        | "clusterpropagationpolicies.policy.karmada.io" => {
            Some(PolicyKind::ClusterPropagationPolicy)
        }
        _ => None,
    }
}

fn parse_targets(args: &[String]) -> Result<Selection, CliError> {
    let mut sel = Selection::default();
    let mut current: Option<PolicyKind> = None;
    for a in args {
        if let Some((t, name)) = a.split_once('/') {
            let kind = kind_word(t).ok_or_else(|| {
                CliError::usage(format!(
                    "`{a}`: unknown type `{t}` (use pp/NAME or cpp/NAME)"
                ))
            })?;
            if name.is_empty() || name.contains('/') {
                return Err(CliError::usage(format!("`{a}`: expected TYPE/NAME")));
            }
            sel.named.push(Named {
                kind,
                name: name.to_string(),
            });
        } else if let Some(kind) = kind_word(a) {
            current = Some(kind);
            if !sel.kinds.contains(&kind) {
                sel.kinds.push(kind);
            }
        } else if let Some(kind) = current {
            sel.named.push(Named {
                kind,
                name: a.clone(),
            });
        } else {
            return Err(CliError::usage(format!(
                "`{a}`: name a type first (pp/{a} or cpp/{a})"
            )));
        }
    }
    // A type followed by names selects those names only.
    sel.kinds
        .retain(|k| !sel.named.iter().any(|n| n.kind == *k));
    Ok(sel)
}

/// `propagationpolicy.policy.karmada.io/nginx`, as kubectl prints it.
pub(super) fn resource_id(kind: PolicyKind, name: &str) -> String {
    format!(
        "{}.policy.karmada.io/{name}",
        kind.as_str().to_ascii_lowercase()
    )
}

/// The line printed for a change.
pub(super) fn change_message(
    action: Action,
    before: &State,
    after: &State,
    request: &Request,
) -> String {
    match (action, after) {
        (Action::Suspend, after) => after.to_string(),
        (Action::Resume, State::NotSuspended) => {
            if request.clusters.is_empty() || *before == State::NotSuspended {
                "resumed".into()
            } else {
                format!("resumed on {}", request.clusters.join(", "))
            }
        }
        (Action::Resume, still) => {
            format!("resumed on {} (still {still})", request.clusters.join(", "))
        }
    }
}

/// The outcome for one policy.
struct Outcome {
    id: String,
    result: Result<String, WriteError>,
    /// The object after the change (live mode), for `-o`.
    object: Option<J>,
    /// What `--wait` must see on the Works (live mode, when something changed): the kind and the
    /// suspension before and after (the object is `object`, copied only when waiting).
    wait: Option<(PolicyKind, Transition)>,
}

pub fn run(action: Action, args: Args) -> Result<Exit, CliError> {
    if args.wait && !args.files.is_empty() {
        return Err(CliError::usage(
            "--wait follows Works on a control plane; it cannot be used with -f",
        ));
    }
    let wait_timeout =
        parse_duration(&args.timeout).map_err(|e| CliError::usage(format!("--timeout: {e}")))?;
    let sel = parse_targets(&args.targets)?;
    let bulk_flags = args.all || args.selector.is_some();
    // `--clusters` with no policy named (and no --all): the clusters are the subject (issue 9).
    let freeze_mode = sel.named.is_empty() && !args.all && !args.clusters.is_empty();
    if sel.named.is_empty() && !bulk_flags && !freeze_mode {
        return Err(CliError::usage(
            "name policies (pp/NAME, cpp/NAME), or select them with -l SELECTOR or --all",
        ));
    }
    if !sel.named.is_empty() && args.all {
        return Err(CliError::usage(
            "--all cannot be combined with policy names",
        ));
    }
    if args.all_namespaces && !sel.named.is_empty() {
        return Err(CliError::usage(
            "a policy cannot be named across all namespaces: drop -A or use -n NAMESPACE",
        ));
    }
    if !args.files.is_empty() && (args.reason.is_some() && !freeze_mode || args.output.is_some()) {
        return Err(CliError::usage(
            "--reason and -o act on live objects; with -f the file is the record (put the reason in the commit message)",
        ));
    }
    if args.concurrency == 0 {
        return Err(CliError::usage("--concurrency must be at least 1"));
    }
    let selector = match &args.selector {
        Some(s) => Some(Selector::parse(s).map_err(CliError::usage)?),
        None => None,
    };
    let request = Request::new(action, &args.clusters);
    if args.clusters.iter().any(|c| c.trim().is_empty()) && request.clusters.is_empty() {
        return Err(CliError::usage(
            "--clusters needs at least one cluster name",
        ));
    }
    if freeze_mode {
        return super::freeze::run(action, &args, &sel.kinds, selector.as_ref(), &request);
    }
    if args.files.is_empty() {
        run_live(action, &args, &sel, &request, wait_timeout)
    } else {
        if args.dry_run.as_deref() == Some("server") {
            return Err(CliError::usage(
                "--dry-run=server needs a control plane; with -f use --dry-run",
            ));
        }
        run_files(&args, &sel, selector.as_ref(), &request)
    }
}

/// The requested cluster names against the control plane's Clusters (`readable`: the list could
/// be read): unknown names warn, or end the command with `--strict` before anything is written.
pub(super) fn check_cluster_names(
    requested: &[String],
    readable: bool,
    health: &[ClusterHealth],
    strict: bool,
) -> Result<(), CliError> {
    if !readable {
        warn("cannot read cluster.karmada.io Clusters: cluster names were not checked");
        return Ok(());
    }
    let known: Vec<String> = health.iter().map(|h| h.name.clone()).collect();
    let unknown = plan::unknown_clusters(requested, &known);
    if unknown.is_empty() {
        return Ok(());
    }
    let msg = format!(
        "unknown cluster{} {} (known: {})",
        if unknown.len() > 1 { "s" } else { "" },
        unknown.join(", "),
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    );
    if strict {
        return Err(CliError::failure(format!("{msg}; nothing was changed")));
    }
    warn(&msg);
    Ok(())
}

pub(super) fn warn(text: &str) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "warning: {text}");
}

fn report(outcomes: &[Outcome], output: Option<&str>) -> Result<Exit, CliError> {
    let mut text = String::new();
    let mut exit = Exit::Ok;
    let mut objects = Vec::new();
    for o in outcomes {
        match &o.result {
            Ok(msg) => {
                if output.is_none() {
                    text.push_str(&format!("{} {msg}\n", o.id));
                }
                if let Some(obj) = &o.object {
                    objects.push(obj.clone());
                }
            }
            Err(e) => {
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "error: {}: {e}", o.id);
                let code = if e.is_api_failure() {
                    Exit::Api
                } else {
                    Exit::Failure
                };
                if exit != Exit::Api {
                    exit = code;
                }
            }
        }
    }
    match output {
        Some("json") => {
            let v = if objects.len() == 1 {
                objects.pop().unwrap_or(J::Null)
            } else {
                json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objects})
            };
            text = serde_json::to_string_pretty(&v).unwrap_or_default() + "\n";
        }
        Some(_) => {
            let docs: Vec<String> = objects.iter().map(yaml_out::to_yaml).collect();
            text = docs.join("---\n");
        }
        None => {}
    }
    write_stdout(&text)?;
    Ok(exit)
}

// ---------------------------------------------------------------------------------------------
// File mode

struct FileState {
    path: PathBuf,
    name: String,
    bom: bool,
    text: String,
    edits: Vec<edit::TextEdit>,
    /// The documents the edits change (their suspension only).
    edited: Vec<usize>,
    /// What the file was when read, checked again before it is replaced.
    stamp: FileStamp,
}

fn run_files(
    args: &Args,
    sel: &Selection,
    selector: Option<&Selector>,
    request: &Request,
) -> Result<Exit, CliError> {
    let paths =
        files::expand(&args.files, &|_| false).map_err(|e| CliError::usage(e.to_string()))?;
    if paths.iter().any(|p| p == Path::new("-")) {
        return Err(CliError::usage("-f - (stdin) cannot be edited in place"));
    }
    let kinds: Vec<PolicyKind> = if sel.kinds.is_empty() {
        vec![
            PolicyKind::PropagationPolicy,
            PolicyKind::ClusterPropagationPolicy,
        ]
    } else {
        sel.kinds.clone()
    };
    let mut outcomes = Vec::new();
    let mut found: Vec<bool> = vec![false; sel.named.len()];
    let mut states = Vec::new();
    let dry_run = args.dry_run.as_deref().is_some_and(|m| m != "none");
    for path in paths {
        let bytes = std::fs::read(&path)
            .map_err(|e| CliError::usage(format!("{}: {e}", path.display())))?;
        let stamp = FileStamp::of(&path, &bytes);
        let bom = bytes.starts_with(b"\xef\xbb\xbf");
        let name = path.to_string_lossy().into_owned();
        // Invalid UTF-8 is a load problem: a lossy text must never be written back.
        let loaded = files::load_bytes(name.clone(), bytes);
        let text = loaded.source.text().to_string();
        let mut state = FileState {
            path: path.clone(),
            name: name.clone(),
            bom,
            text,
            edits: Vec::new(),
            edited: Vec::new(),
            stamp,
        };
        let syntax_broken = loaded
            .problems
            .iter()
            .any(|p| p.kind != crate::source::ProblemKind::DuplicateKey);
        let inv = Inventory::from_documents(loaded.documents, "default");
        let defined_twice = defined_twice(&inv);
        for policy in inv.policies() {
            let ns_ok = match (&args.namespace, policy.kind) {
                (Some(ns), PolicyKind::PropagationPolicy) if !args.all_namespaces => {
                    policy.meta.namespace.as_deref() == Some(ns.as_str())
                        || inv.documents[policy.doc]
                            .root
                            .get("metadata")
                            .and_then(|m| m.get("namespace"))
                            .is_none()
                }
                _ => true,
            };
            let by_name = sel
                .named
                .iter()
                .position(|n| n.kind == policy.kind && n.name == policy.meta.name);
            let by_bulk = sel.named.is_empty()
                && kinds.contains(&policy.kind)
                && (args.all || selector.is_some())
                && selector.is_none_or(|s| s.matches(&policy.meta.labels));
            if !ns_ok || (by_name.is_none() && !by_bulk) {
                continue;
            }
            if let Some(i) = by_name {
                found[i] = true;
            }
            let id = format!("{} ({name})", resource_id(policy.kind, &policy.meta.name));
            if syntax_broken {
                outcomes.push(Outcome {
                    id,
                    result: Err(WriteError::Refused(
                        "the file has YAML problems (run `lint`); not editing it".into(),
                    )),
                    object: None,
                    wait: None,
                });
                continue;
            }
            if let Some(docs) = defined_twice.get(&policy_key(policy)) {
                let docs: Vec<String> = docs.iter().map(|d| (d + 1).to_string()).collect();
                outcomes.push(Outcome {
                    id,
                    result: Err(WriteError::Refused(format!(
                        "defined by documents {} of the file; the one applied last wins, so edit the right one by hand. Not editing it",
                        docs.join(" and ")
                    ))),
                    object: None,
                    wait: None,
                });
                continue;
            }
            let root = &inv.documents[policy.doc].root;
            let result = plan_file_policy(root, &state.text, &inv, policy, request, args.force);
            match result {
                Ok((msg, Some(e))) => {
                    state.edits.push(e);
                    state.edited.push(policy.doc);
                    outcomes.push(Outcome {
                        id,
                        result: Ok(msg),
                        object: None,
                        wait: None,
                    });
                }
                Ok((msg, None)) => outcomes.push(Outcome {
                    id,
                    result: Ok(msg),
                    object: None,
                    wait: None,
                }),
                Err(message) => outcomes.push(Outcome {
                    id,
                    result: Err(WriteError::Refused(message)),
                    object: None,
                    wait: None,
                }),
            }
        }
        states.push(state);
    }
    for (i, n) in sel.named.iter().enumerate() {
        if !found[i] {
            outcomes.push(Outcome {
                id: resource_id(n.kind, &n.name),
                result: Err(WriteError::NotInFiles),
                object: None,
                wait: None,
            });
        }
    }
    if outcomes.is_empty() {
        warn("no policy in the given files matches the selection");
    }
    // Every edited text is checked before any file is written: a refusal changes nothing.
    let mut edited = Vec::new();
    for st in states.iter().filter(|st| !st.edits.is_empty()) {
        let after = edit::apply(&st.text, &st.edits);
        edit::verify(&st.text, &after, Some(&st.edited))
            .map_err(|e| CliError::failure(format!("{}: {e}", st.name)))?;
        edited.push((st, after));
    }
    for (st, after) in edited {
        if dry_run {
            write_stdout(&edit::unified_diff(&st.name, &st.text, &after))?;
        } else {
            write_atomic(&st.path, st.bom, &after, Some(&st.stamp))
                .map_err(|e| CliError::failure(format!("{}: {e}", st.name)))?;
        }
    }
    if dry_run {
        for o in &mut outcomes {
            if let Ok(m) = &mut o.result {
                m.push_str(" (dry run)");
            }
        }
    }
    report(&outcomes, None)
}

/// A policy's identity within one file: kind, namespace as written, name.
fn policy_key(policy: &crate::model::Policy) -> (PolicyKind, Option<String>, String) {
    (
        policy.kind,
        policy.meta.namespace.clone(),
        policy.meta.name.clone(),
    )
}

/// The policies that more than one document of a file defines, with those documents.
fn defined_twice(
    inv: &Inventory,
) -> std::collections::BTreeMap<(PolicyKind, Option<String>, String), Vec<usize>> {
    let mut by_key: std::collections::BTreeMap<_, Vec<usize>> = std::collections::BTreeMap::new();
    for policy in inv.policies() {
        by_key
            .entry(policy_key(policy))
            .or_default()
            .push(policy.doc);
    }
    by_key.retain(|_, docs| docs.len() > 1);
    by_key
}

/// What to do with one policy: the new suspension (`None`: no change), the line to print, and
/// warnings about what stalls while suspended.
struct Decision {
    new: Option<Option<Suspension>>,
    message: String,
    warnings: Vec<String>,
}

/// Shared by file and live mode: plan, then the one `--force` rule
/// ([`plan::force::needs_force`]).
fn decide(
    spec: &PropagationSpec,
    request: &Request,
    targets: Option<&[String]>,
    health: &[ClusterHealth],
    force: bool,
) -> Result<Decision, String> {
    match plan::plan(spec.suspension.as_ref(), request, targets) {
        Plan::Unchanged(u) => Ok(Decision {
            new: None,
            message: u.to_string(),
            warnings: Vec::new(),
        }),
        Plan::Refused(r) => Err(r.to_string()),
        Plan::Change { new, before, after } => {
            let candidates = plan::failover_candidates(spec);
            let stalls = plan::stalls(spec, &after, candidates.as_deref(), health, targets);
            if let Some(refusal) = plan::force::needs_force(&before, &after, &stalls, targets) {
                if !force {
                    return Err(refusal);
                }
            }
            Ok(Decision {
                new: Some(new),
                message: change_message(request.action, &before, &after, request),
                warnings: stalls.iter().map(ToString::to_string).collect(),
            })
        }
    }
}

/// The plan for one policy document: the message and the text edit (if any), or an error.
fn plan_file_policy(
    root: &crate::source::Node,
    text: &str,
    inv: &Inventory,
    policy: &crate::model::Policy,
    request: &Request,
    force: bool,
) -> Result<(String, Option<edit::TextEdit>), String> {
    let permanent_id = policy.meta.label(policy.kind.permanent_id_label());
    let bound = BoundClusters::from_bindings(inv.bindings()).of(policy.kind, permanent_id);
    let targets = plan::target_clusters(&policy.spec, bound.as_deref());
    let d = decide(&policy.spec, request, targets.as_deref(), &[], force)?;
    for w in &d.warnings {
        warn(&format!(
            "{}: {w}",
            resource_id(policy.kind, &policy.meta.name)
        ));
    }
    let Some(new) = d.new else {
        return Ok((d.message, None));
    };
    let e = edit::suspension_edit(text, root, new.as_ref()).map_err(|e| e.to_string())?;
    Ok((d.message, e))
}

/// What a file was when it was read: re-checked just before an edit replaces it, so a change
/// made meanwhile by another process is not silently lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    hash: u64,
}

impl FileStamp {
    /// The stamp of `bytes` just read from `path`.
    pub(super) fn of(path: &Path, bytes: &[u8]) -> FileStamp {
        FileStamp {
            len: bytes.len() as u64,
            modified: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
            hash: content_hash(bytes),
        }
    }
}

fn content_hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// Why an in-place edit was not written.
#[derive(Debug, thiserror::Error)]
pub(super) enum FileWriteError {
    #[error(
        "changed by another process since it was read; nothing was written (run the command again)"
    )]
    Changed,
    #[error("cannot write: {0}")]
    Io(#[from] std::io::Error),
}

/// Writes `text` to `path` through a temporary file in the same directory and a rename, so a
/// reader never sees a half-written manifest. The temporary file gets a random name and is
/// created exclusively (O_EXCL: a planted file or symlink of that name is refused, never
/// followed); it is removed on every error path and on SIGINT/SIGTERM/SIGHUP. The replaced file
/// keeps its mode, and its owner and group where the process may set them (root). With
/// `expected`, the file must still be what was read (size, mtime, content) just before the
/// rename. A file with several hard links gets a warning: the rename gives this name a new file.
pub(super) fn write_atomic(
    path: &Path,
    bom: bool,
    text: &str,
    expected: Option<&FileStamp>,
) -> Result<(), FileWriteError> {
    use std::os::unix::fs::MetadataExt;
    // Write through a symlink to its target, as an editor would, instead of replacing the link.
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let path = real.as_path();
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let meta = std::fs::metadata(path).ok();
    if let Some(m) = meta.as_ref().filter(|m| m.nlink() > 1) {
        warn(&format!(
            "{}: has {} hard links; the edit replaces this name with a new file and the other links keep the old content",
            path.display(),
            m.nlink()
        ));
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".karmada-policy.tmp")
        .rand_bytes(12)
        .tempfile_in(dir)?;
    let _cleanup = signal_cleanup::Guard::new(tmp.path());
    if bom {
        tmp.write_all(b"\xef\xbb\xbf")?;
    }
    tmp.write_all(text.as_bytes())?;
    if let Some(m) = &meta {
        tmp.as_file().set_permissions(m.permissions())?;
        // Only root may give a file away; for anyone else this fails where it would change
        // something, and the new file is then theirs, as an editor's would be.
        let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(m.uid()), Some(m.gid()));
    }
    tmp.as_file().sync_all()?;
    if let Some(expected) = expected {
        let now = std::fs::read(path).ok();
        let unchanged = now
            .as_deref()
            .is_some_and(|bytes| &FileStamp::of(path, bytes) == expected);
        if !unchanged {
            return Err(FileWriteError::Changed);
        }
    }
    tmp.persist(path).map_err(|e| FileWriteError::Io(e.error))?;
    Ok(())
}

/// Removes the temporary file of an edit in progress when the process is interrupted: a
/// handler for SIGINT, SIGTERM and SIGHUP that unlinks the path published by the current
/// [`Guard`] and exits with 128 + the signal, as the default action would report it.
mod signal_cleanup {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::atomic::{AtomicPtr, Ordering};
    use std::sync::Once;

    /// The temporary file to remove on a signal (a leaked C string), or null.
    static PATH: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

    /// Publishes a temporary file for the handler while it lives.
    pub struct Guard;

    impl Guard {
        pub fn new(path: &Path) -> Guard {
            install();
            if let Ok(c) = CString::new(path.as_os_str().as_bytes()) {
                let old = PATH.swap(c.into_raw(), Ordering::SeqCst);
                free(old);
            }
            Guard
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            free(PATH.swap(std::ptr::null_mut(), Ordering::SeqCst));
        }
    }

    fn free(p: *mut libc::c_char) {
        if !p.is_null() {
            // SAFETY: every non-null pointer in PATH came from CString::into_raw, and the swap
            // that returned it took it out, so it is freed once.
            drop(unsafe { CString::from_raw(p) });
        }
    }

    fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: the action calls only async-signal-safe functions (an atomic swap,
                // unlink, _exit) and allocates nothing.
                let _ =
                    unsafe { signal_hook_registry::register(signal, move || on_signal(signal)) };
            }
        });
    }

    fn on_signal(signal: libc::c_int) {
        let p = PATH.swap(std::ptr::null_mut(), Ordering::SeqCst);
        // SAFETY: p, when not null, is a valid C string that nothing frees any more (taken out
        // of PATH); unlink and _exit are async-signal-safe.
        unsafe {
            if !p.is_null() {
                libc::unlink(p);
            }
            libc::_exit(128 + signal);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Live mode

/// What every live run (named policies or a freeze) starts with: the per-request timeout, the
/// dry-run mode, and the runtime the kube client runs on.
pub(super) fn live_setup(
    args: &Args,
) -> Result<(Duration, DryRun, tokio::runtime::Runtime), CliError> {
    let request_timeout = parse_duration(&args.request_timeout)
        .map_err(|e| CliError::usage(format!("--request-timeout: {e}")))?;
    let dry = DryRun::parse(args.dry_run.as_deref());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::failure(format!("cannot start the runtime: {e}")))?;
    Ok((request_timeout, dry, rt))
}

/// One policy to change on the server, possibly already read by a list.
struct Target {
    kind: PolicyKind,
    namespace: Option<String>,
    name: String,
    object: Option<J>,
}

/// What every per-policy task shares.
struct Ctx {
    request: Request,
    dry: DryRun,
    force: bool,
    reason: Option<String>,
    user: String,
    health: Vec<ClusterHealth>,
}

fn run_live(
    action: Action,
    args: &Args,
    sel: &Selection,
    request: &Request,
    wait_timeout: Duration,
) -> Result<Exit, CliError> {
    let (request_timeout, dry, rt) = live_setup(args)?;
    rt.block_on(live(
        action,
        args,
        sel,
        request,
        dry,
        request_timeout,
        wait_timeout,
    ))
}

async fn live(
    action: Action,
    args: &Args,
    sel: &Selection,
    request: &Request,
    dry: DryRun,
    request_timeout: Duration,
    wait_timeout: Duration,
) -> Result<Exit, CliError> {
    let (conn, namespace) = connect(args, request_timeout).await?;
    let mut targets: Vec<Target> = Vec::new();
    for n in &sel.named {
        targets.push(Target {
            kind: n.kind,
            namespace: (n.kind == PolicyKind::PropagationPolicy).then(|| namespace.clone()),
            name: n.name.clone(),
            object: None,
        });
    }
    let bulk_flags = args.all || args.selector.is_some();
    if bulk_flags {
        let kinds = if sel.kinds.is_empty() {
            vec![
                PolicyKind::PropagationPolicy,
                PolicyKind::ClusterPropagationPolicy,
            ]
        } else {
            sel.kinds.clone()
        };
        for kind in kinds {
            let ns = match kind {
                PolicyKind::PropagationPolicy if !args.all_namespaces => Some(namespace.as_str()),
                _ => None,
            };
            let list = writer::list_policies(&conn, kind, ns, args.selector.as_deref())
                .await
                .map_err(|e| CliError::api(format!("cannot list {}: {e}", kind.plural())))?;
            for o in list {
                targets.push(Target {
                    kind,
                    namespace: o["metadata"]["namespace"].as_str().map(str::to_string),
                    name: o["metadata"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    object: Some(o),
                });
            }
        }
        if targets.is_empty() {
            let mut e = std::io::stderr().lock();
            let _ = writeln!(e, "No resources found");
            return Ok(Exit::Ok);
        }
    }
    // Cluster names and health, when the Clusters are readable.
    let clusters = writer::clusters(&conn).await;
    let health: Vec<ClusterHealth> = clusters.clone().unwrap_or_default();
    if !request.clusters.is_empty() {
        check_cluster_names(&request.clusters, clusters.is_some(), &health, args.strict)?;
    }
    let bulk = bulk_flags || targets.len() > 1;
    if bulk && dry == DryRun::None && !args.yes {
        confirm(action, targets.len(), request)?;
    }
    let ctx = Arc::new(Ctx {
        request: request.clone(),
        dry,
        force: args.force,
        reason: args.reason.clone(),
        user: if conn.user.is_empty() {
            std::env::var("USER").unwrap_or_default()
        } else {
            conn.user.clone()
        },
        health,
    });
    let total = targets.len();
    let progress = total >= 50 && std::io::stderr().is_terminal();
    let sem = Arc::new(tokio::sync::Semaphore::new(args.concurrency));
    let mut set = tokio::task::JoinSet::new();
    for (i, t) in targets.into_iter().enumerate() {
        let conn = conn.clone();
        let ctx = ctx.clone();
        let sem = sem.clone();
        set.spawn(async move {
            let _permit = sem.acquire_owned().await;
            (i, apply_one(&conn, t, &ctx).await)
        });
    }
    let mut results: Vec<Option<(Outcome, Option<String>)>> = (0..total).map(|_| None).collect();
    let mut done = 0;
    while let Some(r) = set.join_next().await {
        let (i, r) = r.map_err(|e| CliError::failure(format!("task failed: {e}")))?;
        results[i] = Some(r);
        done += 1;
        if progress {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r{done}/{total} policies");
            if done == total {
                let _ = writeln!(e);
            }
        }
    }
    let mut outcomes = Vec::with_capacity(total);
    let mut diffs = String::new();
    for (o, d) in results.into_iter().flatten() {
        if let Some(d) = d {
            diffs.push_str(&d);
        }
        outcomes.push(o);
    }
    if args.output.is_none() {
        write_stdout(&diffs)?;
    }
    if args.wait && dry == DryRun::None {
        wait_for_works(&conn, &mut outcomes, wait_timeout).await;
    }
    report(&outcomes, args.output.as_deref())
}

/// `--wait`: follows the Works of each changed policy ([`writer::wait_for_works`]); a policy
/// whose Works still lag at the deadline fails with the Works named.
async fn wait_for_works(conn: &Conn, outcomes: &mut [Outcome], timeout: Duration) {
    let watched: Vec<usize> = (0..outcomes.len())
        .filter(|&i| {
            outcomes[i].wait.is_some() && outcomes[i].object.is_some() && outcomes[i].result.is_ok()
        })
        .collect();
    let watches: Vec<WaitFor> = watched
        .iter()
        .filter_map(|&i| {
            let (kind, (before, after)) = outcomes[i].wait.clone()?;
            let object = outcomes[i].object.clone()?;
            Some(WaitFor {
                kind,
                object,
                before,
                after,
            })
        })
        .collect();
    let lagging = writer::wait_for_works(conn, &watches, timeout).await;
    for (i, works) in watched.into_iter().zip(lagging) {
        if works.is_empty() {
            continue;
        }
        let done = outcomes[i].result.clone().unwrap_or_default();
        outcomes[i].result = Err(WriteError::WaitTimeout {
            done,
            timeout,
            works: works.join(", "),
        });
    }
}

/// The control plane of `--kubeconfig`/`--context`, and the namespace PropagationPolicies are
/// looked up in: `-n`, else the context's.
pub(super) async fn connect(
    args: &Args,
    request_timeout: Duration,
) -> Result<(Conn, String), CliError> {
    let opts = kube::ConnectOptions {
        kubeconfig: args.kubeconfig.clone(),
        context: args.context.clone(),
        request_timeout: Some(request_timeout),
    };
    let conn = kube::connect(&opts).await.map_err(CliError::connect)?;
    let namespace = args
        .namespace
        .clone()
        .unwrap_or_else(|| conn.namespace.clone());
    Ok((conn, namespace))
}

pub(super) fn confirm(action: Action, n: usize, request: &Request) -> Result<(), CliError> {
    let verb = match action {
        Action::Suspend => "suspend",
        Action::Resume => "resume",
    };
    let on = if request.clusters.is_empty() {
        "all clusters".to_string()
    } else {
        request.clusters.join(", ")
    };
    if !std::io::stdin().is_terminal() {
        return Err(CliError::usage(format!(
            "this would {verb} {n} policies on {on}; pass --yes to confirm (stdin is not a terminal, so there is no prompt)"
        )));
    }
    let mut e = std::io::stderr().lock();
    let _ = write!(e, "{verb} {n} policies on {on}? [y/N] ");
    let _ = e.flush();
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    if matches!(line.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
        Ok(())
    } else {
        Err(CliError::failure("aborted: nothing was changed"))
    }
}

/// The change for `new`: `spec.suspension` wholesale, and our annotations with --reason.
fn patch_for(new: &Option<Suspension>, ctx: &Ctx) -> Patch {
    let mut annotations = Vec::new();
    if let Some(reason) = &ctx.reason {
        annotations = vec![
            (
                "karmada-policy.io/suspension-reason".to_string(),
                Some(reason.clone()),
            ),
            (
                "karmada-policy.io/suspension-changed-by".to_string(),
                Some(ctx.user.clone()),
            ),
            (
                "karmada-policy.io/suspension-changed-at".to_string(),
                Some(rfc3339_now()),
            ),
        ];
    }
    Patch {
        suspension: Some(new.clone()),
        annotations,
    }
}

pub(super) fn for_diff(o: &J) -> String {
    let mut o = o.clone();
    if let Some(m) = o["metadata"].as_object_mut() {
        m.remove("managedFields");
    }
    yaml_out::to_yaml(&o)
}

/// Whether the plan needs the policy's target clusters (so its bindings are read).
fn needs_targets(spec: &PropagationSpec, ctx: &Ctx) -> bool {
    let state = State::of(spec.suspension.as_ref());
    spec.failover.is_some()
        || ctx
            .health
            .iter()
            .any(|h| h.ready == Some(false) || !h.taints.is_empty())
        || (ctx.request.action == Action::Resume
            && !ctx.request.clusters.is_empty()
            && state == State::AllClusters)
}

/// The suspension before and after a write, for `--wait`.
type Transition = (Option<Suspension>, Option<Suspension>);

/// The decision for one named policy: the plan, with the policy's bindings read only when it
/// needs the target clusters (once: a re-read after a conflict keeps them).
struct NamedDecision<'a> {
    conn: &'a Conn,
    ctx: &'a Ctx,
    id: &'a str,
    kind: PolicyKind,
    targets: Option<Option<Vec<String>>>,
}

impl writer::Decide for NamedDecision<'_> {
    type Info = (String, Option<Transition>);

    async fn decide(
        &mut self,
        current: &J,
        spec: &PropagationSpec,
        attempt: u32,
    ) -> Result<Step<Self::Info>, WriteError> {
        let (ctx, id) = (self.ctx, self.id);
        if attempt == 0 {
            if let Some(owner) = gitops_owner(current) {
                warn(&format!(
                    "{id} is managed by {owner}: the controller will revert this change; change the manifest instead (`suspend -f FILE`)"
                ));
            }
        }
        if needs_targets(spec, ctx) && self.targets.is_none() {
            let bindings = writer::policy_bindings(self.conn, self.kind, current)
                .await
                .unwrap_or_default();
            let permanent_id =
                current["metadata"]["labels"][self.kind.permanent_id_label()].as_str();
            let bound = BoundClusters::from_json(&bindings).of(self.kind, permanent_id);
            self.targets = Some(plan::target_clusters(spec, bound.as_deref()));
        }
        let targets = self.targets.clone().flatten();
        let d = decide(
            spec,
            &ctx.request,
            targets.as_deref(),
            &ctx.health,
            ctx.force,
        )
        .map_err(WriteError::Refused)?;
        if attempt == 0 {
            for w in &d.warnings {
                warn(&format!("{id}: {w}"));
            }
        }
        Ok(match d.new {
            None => Step::Skip((d.message, None)),
            Some(new) => {
                let transition: Transition = (spec.suspension.clone(), new.clone());
                Step::Write(patch_for(&new, ctx), (d.message, Some(transition)))
            }
        })
    }
}

/// One named policy through the writer, and the diff of a dry run.
async fn apply_one(conn: &Conn, t: Target, ctx: &Ctx) -> (Outcome, Option<String>) {
    let id = resource_id(t.kind, &t.name);
    let target = PolicyRef {
        kind: t.kind,
        namespace: t.namespace,
        name: t.name,
    };
    let mut named = NamedDecision {
        conn,
        ctx,
        id: &id,
        kind: target.kind,
        targets: None,
    };
    let written = writer::write(conn, &target, t.object, ctx.dry, &mut named).await;
    outcome(id, target.kind, ctx.dry, written)
}

/// The result line, the object for `-o`, what `--wait` follows, and a dry run's diff.
fn outcome(
    id: String,
    kind: PolicyKind,
    dry: DryRun,
    written: Result<Written<(String, Option<Transition>)>, WriteError>,
) -> (Outcome, Option<String>) {
    let fail = |e| Outcome {
        id: id.clone(),
        result: Err(e),
        object: None,
        wait: None,
    };
    let w = match written {
        Ok(w) => w,
        Err(e) => return (fail(e), None),
    };
    let (message, transition) = w.info;
    let Some(after) = w.after else {
        let o = Outcome {
            id,
            result: Ok(message),
            object: Some(w.before),
            wait: None,
        };
        return (o, None);
    };
    let diff = dry
        .is_dry()
        .then(|| edit::unified_diff(&id, &for_diff(&w.before), &for_diff(&after)));
    let wait = match (dry.is_dry(), transition) {
        (false, Some(t)) => Some((kind, t)),
        _ => None,
    };
    let o = Outcome {
        id,
        result: Ok(format!("{message}{}", dry.suffix())),
        object: Some(after),
        wait,
    };
    (o, diff)
}

/// Now as RFC 3339 UTC (`2026-11-29T15:04:05Z`).
fn rfc3339_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    rfc3339(secs)
}

/// Seconds since the epoch as RFC 3339 UTC.
pub(super) fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_between_read_and_write_is_refused_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pp.yaml");
        std::fs::write(&file, "a: 1\n").unwrap();
        let stamp = FileStamp::of(&file, b"a: 1\n");
        // Another process rewrites the file (same size, so only the content tells).
        std::fs::write(&file, "a: 2\n").unwrap();
        let err = write_atomic(&file, false, "a: 3\n", Some(&stamp)).unwrap_err();
        assert!(matches!(err, FileWriteError::Changed), "{err}");
        assert!(err.to_string().contains("changed by another process"));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "a: 2\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "the temporary file is gone");
        // Unchanged: written.
        let stamp = FileStamp::of(&file, b"a: 2\n");
        write_atomic(&file, false, "a: 3\n", Some(&stamp)).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "a: 3\n");
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn targets_parse_like_kubectl() {
        let sel = parse_targets(&s(&["pp/a", "cpp/b", "propagationpolicy/c"])).unwrap();
        assert_eq!(sel.named.len(), 3);
        assert_eq!(sel.named[1].kind, PolicyKind::ClusterPropagationPolicy);
        let sel = parse_targets(&s(&["pp", "x", "y"])).unwrap();
        assert_eq!(sel.named.len(), 2);
        assert!(sel.kinds.is_empty());
        let sel = parse_targets(&s(&["cpp"])).unwrap();
        assert_eq!(sel.kinds, vec![PolicyKind::ClusterPropagationPolicy]);
        assert!(parse_targets(&s(&["nginx"])).is_err());
        assert!(parse_targets(&s(&["deploy/x"])).is_err());
    }

    #[test]
    fn resource_ids_as_kubectl_prints_them() {
        assert_eq!(
            resource_id(PolicyKind::PropagationPolicy, "nginx"),
            "propagationpolicy.policy.karmada.io/nginx"
        );
    }

    #[test]
    fn rfc3339_has_the_right_shape() {
        let t = rfc3339_now();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z') && t.as_bytes()[10] == b'T');
    }
}
