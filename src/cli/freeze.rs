//! Cluster-centric freeze (issue 9): `suspend --clusters member2,member3` with no policy named
//! suspends every selected policy that targets those clusters, there, and records what it added
//! (annotation [`freeze::RECORD_ANNOTATION`]); `resume --clusters ...` with no policy named lifts
//! exactly that. Live (the control plane) or in manifest files (`-f`, byte-preserving edits).
//!
//! The decisions are [`crate::engine::freeze`]; this file gathers policies and bindings, prints
//! the table, asks for confirmation, and writes (resourceVersion-guarded merge patches with 409
//! retry, or atomic file edits).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value as J};

use super::common::{write_stdout, CliError, Exit};
use super::suspend::{
    backoff, binding_targets, change_message, confirm, for_diff, gitops_owner, live_setup,
    resource_id, rfc3339, warn, write_atomic, Args, DryRun, CONFLICT_RETRIES,
};
use crate::engine::freeze::{self, Change, Decision, Stamp, RECORD_ANNOTATION};
use crate::engine::suspension::{self as plan, Action, ClusterHealth, Request, State};
use crate::kube::{self, ClusterError, Conn, ErrorKind};
use crate::model::label_selector::Selector;
use crate::model::policy::PropagationSpec;
use crate::model::{Inventory, PolicyKind};
use crate::ops::edit;
use crate::source::files;

/// One policy the freeze (or its lifting) lists.
struct Row {
    kind: PolicyKind,
    namespace: Option<String>,
    name: String,
    /// File mode: the manifest holding the policy.
    file: Option<usize>,
    decision: Decision,
    /// What stalls while suspended (failover, unhealthy targets, Lazy, propagateDeps).
    stalls: Vec<String>,
    /// Whether one of them is a failover stall (failover configured, or an unhealthy target).
    failover: bool,
    /// Failover would stall with every target suspended and there is no --force.
    refused: Option<String>,
    gitops: Option<&'static str>,
    /// Live mode: the object as read, and its bindings' clusters (for a recompute on 409).
    object: Option<J>,
    bound: Option<Vec<String>>,
    /// After the write: the line to print, or the failure.
    result: Option<Result<String, ClusterError>>,
}

impl Row {
    fn short(&self) -> String {
        format!("{}/{}", self.kind.short(), self.name)
    }

    fn change(&self) -> Option<&Change> {
        match &self.decision {
            Decision::Change(c) if self.refused.is_none() => Some(c),
            _ => None,
        }
    }
}

/// The engine's decision for one policy.
fn decide(
    action: Action,
    spec: &PropagationSpec,
    record: Option<&str>,
    bound: Option<&[String]>,
    clusters: &[String],
    stamp: &Stamp,
) -> Decision {
    match action {
        Action::Suspend => freeze::freeze(spec, record, bound, clusters, stamp),
        Action::Resume => freeze::lift(spec, record, clusters),
    }
}

/// Failover and health warnings of a change, and the `--force` rule of suspend
/// (validation-suspension-failover.md §3.4: suspending every target of a policy whose failover
/// would stall needs --force).
fn check_stalls(
    row: &mut Row,
    spec: &PropagationSpec,
    bound: Option<&[String]>,
    health: &[ClusterHealth],
    force: bool,
) {
    let Decision::Change(c) = &row.decision else {
        return;
    };
    let targets = plan::target_clusters(spec, bound);
    let candidates = plan::failover_candidates(spec);
    let stalls = plan::stalls(
        spec,
        &c.after,
        candidates.as_deref(),
        health,
        targets.as_deref(),
    );
    let blocking: Vec<String> = stalls
        .iter()
        .filter(|s| s.blocks_full_suspension())
        .map(ToString::to_string)
        .collect();
    if !force
        && !blocking.is_empty()
        && c.before != c.after
        && matches!(c.after, State::AllClusters | State::Clusters(_))
        && plan::suspends_every_target(&c.after, targets.as_deref())
        && !plan::suspends_every_target(&c.before, targets.as_deref())
    {
        row.refused = Some(format!(
            "not suspending every cluster: {}; pass --force to suspend anyway",
            blocking.join("; ")
        ));
    }
    row.failover = stalls.iter().any(|s| s.blocks_full_suspension());
    row.stalls = stalls.iter().map(ToString::to_string).collect();
}

/// The freeze's time: `SOURCE_DATE_EPOCH` when set (reproducible GitOps commits), else now.
fn stamp(reason: Option<&str>, by: Option<String>) -> Stamp {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    Stamp {
        at: rfc3339(secs),
        by: by.filter(|b| !b.is_empty()),
        // One line: the annotation is a single-line scalar.
        reason: reason
            .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|r| !r.is_empty()),
    }
}

pub(super) fn run(
    action: Action,
    args: &Args,
    kinds: &[PolicyKind],
    selector: Option<&Selector>,
    request: &Request,
) -> Result<Exit, CliError> {
    if args.output.is_some() || args.wait {
        return Err(CliError::usage(
            "-o and --wait act on named policies; a freeze (--clusters with no policy named) prints its table and one line per policy",
        ));
    }
    if action == Action::Resume && args.reason.is_some() {
        return Err(CliError::usage(
            "--reason is recorded by the freeze; lifting it (resume --clusters) removes that record",
        ));
    }
    if args.files.is_empty() {
        run_live(action, args, kinds, request)
    } else {
        if args.dry_run.as_deref() == Some("server") {
            return Err(CliError::usage(
                "--dry-run=server needs a control plane; with -f use --dry-run",
            ));
        }
        run_files(action, args, kinds, selector, request)
    }
}

// ---------------------------------------------------------------------------------------------
// The table and the summary

fn what(action: Action, request: &Request) -> String {
    match action {
        Action::Suspend => format!("freeze of {}", request.clusters.join(", ")),
        Action::Resume => format!("lifting the freeze of {}", request.clusters.join(", ")),
    }
}

fn table(action: Action, request: &Request, rows: &[Row], files: &[String]) -> String {
    let policy = |r: &Row| match r.file {
        Some(f) => format!("{} ({})", r.short(), files[f]),
        None => r.short(),
    };
    let ns = |r: &Row| match r.kind {
        PolicyKind::ClusterPropagationPolicy => "-".to_string(),
        PolicyKind::PropagationPolicy => r.namespace.clone().unwrap_or_default(),
    };
    let w_ns = rows.iter().map(|r| ns(r).len()).max().unwrap_or(0).max(9);
    let w_p = rows
        .iter()
        .map(|r| policy(r).len())
        .max()
        .unwrap_or(0)
        .max(6);
    let line = |out: &mut String, a: &str, b: &str, c: &str| {
        out.push_str(&format!("  {a:<w_ns$}  {b:<w_p$}  {c}\n"));
    };
    // Each row in one section: what changes, what is refused, what stays, what is skipped.
    let section = |r: &Row| -> (usize, String) {
        if let Some(why) = &r.refused {
            return (1, why.clone());
        }
        match &r.decision {
            Decision::Change(c) => (0, c.describe(action)),
            Decision::Unchanged(m) => (2, m.clone()),
            Decision::Skipped(s) => (3, s.to_string()),
            Decision::NotInvolved => (4, String::new()),
        }
    };
    let mut out = format!("{}:\n", what(action, request));
    for (i, (title, col)) in [
        ("will change", "CHANGE"),
        ("refused", "WHY"),
        ("unchanged", "WHY"),
        ("skipped", "WHY"),
    ]
    .into_iter()
    .enumerate()
    {
        let items: Vec<(&Row, String)> = rows
            .iter()
            .map(|r| (r, section(r)))
            .filter(|(_, (s, _))| *s == i)
            .map(|(r, (_, t))| (r, t))
            .collect();
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("{title} ({}):\n", items.len()));
        line(&mut out, "NAMESPACE", "POLICY", col);
        for (r, t) in items {
            line(&mut out, &ns(r), &policy(r), &t);
        }
    }
    if rows.is_empty() {
        out.push_str("  no selected policy targets these clusters\n");
    }
    out
}

/// The summary line, counting outcomes and warnings.
fn summary(
    action: Action,
    request: &Request,
    rows: &[Row],
    dry_run: bool,
    not_involved: usize,
) -> String {
    let changed = rows
        .iter()
        .filter(|r| matches!(r.result, Some(Ok(_))) && r.change().is_some())
        .count();
    let failed = rows
        .iter()
        .filter(|r| matches!(r.result, Some(Err(_))) || r.refused.is_some())
        .count();
    let unchanged = rows
        .iter()
        .filter(|r| matches!(r.decision, Decision::Unchanged(_)))
        .count();
    let skipped = rows
        .iter()
        .filter(|r| matches!(r.decision, Decision::Skipped(_)))
        .count();
    let failover = rows.iter().filter(|r| r.failover).count();
    let other = rows
        .iter()
        .filter(|r| !r.failover && !r.stalls.is_empty())
        .count();
    let gitops = rows.iter().filter(|r| r.gitops.is_some()).count();
    let mut parts = Vec::new();
    if changed == 0 && failed == 0 {
        parts.push(match action {
            Action::Suspend if unchanged > 0 => {
                "nothing to change, the freeze is already in place".to_string()
            }
            _ => "nothing to change".to_string(),
        });
    } else {
        let verb = if dry_run { "would change" } else { "changed" };
        parts.push(format!("{changed} {verb}"));
    }
    if failed > 0 {
        parts.push(format!("{failed} failed"));
    }
    if unchanged > 0 {
        parts.push(match action {
            Action::Suspend => format!("{unchanged} unchanged"),
            Action::Resume => format!("{unchanged} left untouched (suspended, not by the freeze)"),
        });
    }
    if skipped > 0 {
        parts.push(format!("{skipped} skipped"));
    }
    if not_involved > 0 {
        parts.push(format!("{not_involved} not involved"));
    }
    let mut s = format!("{}: {}", what(action, request), parts.join(", "));
    if failover + other + gitops > 0 {
        let mut w = Vec::new();
        if failover > 0 {
            w.push(format!("{failover} failover"));
        }
        if other > 0 {
            w.push(format!("{other} other suspension"));
        }
        if gitops > 0 {
            w.push(format!("{gitops} GitOps"));
        }
        s.push_str(&format!("; warnings: {}", w.join(", ")));
    }
    if dry_run {
        s.push_str(" (dry run: nothing written)");
    }
    s.push('\n');
    s
}

/// Prints per-policy warnings on stderr (once, before the write).
fn print_warnings(rows: &[Row]) {
    for r in rows {
        let id = resource_id(r.kind, &r.name);
        if let Some(owner) = r.gitops {
            warn(&format!(
                "{id} is managed by {owner}: the controller will revert this change; change the manifest instead (`suspend -f DIR --clusters ...`)"
            ));
        }
        if r.change().is_some() || r.refused.is_some() {
            for s in &r.stalls {
                warn(&format!("{id}: {s}"));
            }
        }
    }
}

/// The line printed for a written change.
fn done_message(action: Action, c: &Change) -> String {
    if !c.suspension_changes {
        return format!(
            "freeze record of {} removed (resumed since)",
            c.stale.join(", ")
        );
    }
    let mut m = change_message(
        action,
        &c.before,
        &c.after,
        &Request::new(action, &c.clusters),
    );
    if action == Action::Resume && !c.kept.is_empty() {
        m.push_str(&format!(
            "; {} not added by the freeze, left suspended",
            c.kept.join(", ")
        ));
    }
    m
}

/// Results, summary, exit code.
fn finish(
    action: Action,
    request: &Request,
    rows: &[Row],
    files: &[String],
    dry_run: bool,
    not_involved: usize,
) -> Result<Exit, CliError> {
    let mut out = String::new();
    let mut exit = Exit::Ok;
    for r in rows {
        let id = match r.file {
            Some(f) => format!("{} ({})", resource_id(r.kind, &r.name), files[f]),
            None => resource_id(r.kind, &r.name),
        };
        if let Some(why) = &r.refused {
            let _ = writeln!(std::io::stderr().lock(), "error: {id}: {why}");
            exit = Exit::Failure;
        }
        match &r.result {
            Some(Ok(m)) => out.push_str(&format!("{id} {m}\n")),
            Some(Err(e)) => {
                let _ = writeln!(std::io::stderr().lock(), "error: {id}: {}", e.message);
                let code = match e.kind {
                    ErrorKind::Auth
                    | ErrorKind::Transport
                    | ErrorKind::Config
                    | ErrorKind::Server => Exit::Api,
                    _ => Exit::Failure,
                };
                if exit != Exit::Api {
                    exit = code;
                }
            }
            None => {}
        }
    }
    out.push_str(&summary(action, request, rows, dry_run, not_involved));
    write_stdout(&out)?;
    Ok(exit)
}

/// Table, warnings, and the confirmation; `Ok(false)` when there is nothing to write.
fn before_write(
    action: Action,
    args: &Args,
    request: &Request,
    rows: &[Row],
    files: &[String],
    dry_run: bool,
) -> Result<bool, CliError> {
    write_stdout(&table(action, request, rows, files))?;
    print_warnings(rows);
    let n = rows.iter().filter(|r| r.change().is_some()).count();
    if n == 0 {
        return Ok(false);
    }
    if !dry_run && !args.yes {
        confirm(action, n, request)?;
    }
    Ok(true)
}

// ---------------------------------------------------------------------------------------------
// File mode

struct Manifest {
    path: PathBuf,
    name: String,
    bom: bool,
    text: String,
    inv: Inventory,
    edits: Vec<edit::TextEdit>,
    /// What the file was when read, checked again before it is replaced.
    stamp: super::suspend::FileStamp,
}

fn run_files(
    action: Action,
    args: &Args,
    kinds: &[PolicyKind],
    selector: Option<&Selector>,
    request: &Request,
) -> Result<Exit, CliError> {
    let paths =
        files::expand(&args.files, &|_| false).map_err(|e| CliError::usage(e.to_string()))?;
    if paths.iter().any(|p| p == Path::new("-")) {
        return Err(CliError::usage("-f - (stdin) cannot be edited in place"));
    }
    let dry_run = args.dry_run.as_deref().is_some_and(|m| m != "none");
    let mut manifests = Vec::new();
    for path in paths {
        let bytes = std::fs::read(&path)
            .map_err(|e| CliError::usage(format!("{}: {e}", path.display())))?;
        let stamp = super::suspend::FileStamp::of(&path, &bytes);
        let bom = bytes.starts_with(b"\xef\xbb\xbf");
        let name = path.to_string_lossy().into_owned();
        // Invalid UTF-8 is a load problem: a lossy text must never be written back.
        let loaded = files::load_bytes(name.clone(), bytes);
        let text = loaded.source.text().to_string();
        let broken = loaded
            .problems
            .iter()
            .any(|p| p.kind != crate::source::ProblemKind::DuplicateKey);
        if broken {
            warn(&format!(
                "{name}: the file has YAML problems (run `lint`); not editing it"
            ));
            continue;
        }
        manifests.push(Manifest {
            path,
            name,
            bom,
            text,
            inv: Inventory::from_documents(loaded.documents, "default"),
            edits: Vec::new(),
            stamp,
        });
    }
    // Bindings anywhere under the given paths, by the policy permanent-id label they carry.
    let mut bound: BTreeMap<(&str, String), Vec<String>> = BTreeMap::new();
    for m in &manifests {
        for b in m.inv.bindings() {
            for kind in [
                PolicyKind::PropagationPolicy,
                PolicyKind::ClusterPropagationPolicy,
            ] {
                let label = kind.permanent_id_label();
                if let Some(id) = b.meta.label(label) {
                    bound
                        .entry((label, id.to_string()))
                        .or_default()
                        .extend(b.target_clusters().iter().map(|c| c.to_string()));
                }
            }
        }
    }
    let stamp = stamp(args.reason.as_deref(), None);
    let names: Vec<String> = manifests.iter().map(|m| m.name.clone()).collect();
    let mut rows = Vec::new();
    let mut not_involved = 0;
    let mut docs = Vec::new();
    for (fi, m) in manifests.iter().enumerate() {
        for policy in m.inv.policies() {
            if !kinds.is_empty() && !kinds.contains(&policy.kind) {
                continue;
            }
            if let (Some(ns), PolicyKind::PropagationPolicy) = (&args.namespace, policy.kind) {
                let written = m.inv.documents[policy.doc]
                    .root
                    .get("metadata")
                    .and_then(|md| md.get("namespace"))
                    .is_some();
                if !args.all_namespaces && written && policy.meta.namespace.as_deref() != Some(ns) {
                    continue;
                }
            }
            if !selector.is_none_or(|s| s.matches(&policy.meta.labels)) {
                continue;
            }
            let label = policy.kind.permanent_id_label();
            let b = policy
                .meta
                .label(label)
                .and_then(|id| bound.get(&(label, id.to_string())))
                .and_then(|v| binding_targets(std::slice::from_ref(v)));
            let decision = decide(
                action,
                &policy.spec,
                policy.meta.annotation(RECORD_ANNOTATION),
                b.as_deref(),
                &request.clusters,
                &stamp,
            );
            if decision == Decision::NotInvolved {
                not_involved += 1;
                continue;
            }
            let mut row = Row {
                kind: policy.kind,
                namespace: policy.meta.namespace.clone(),
                name: policy.meta.name.clone(),
                file: Some(fi),
                decision,
                stalls: Vec::new(),
                failover: false,
                refused: None,
                gitops: None,
                object: None,
                bound: b.clone(),
                result: None,
            };
            check_stalls(&mut row, &policy.spec, b.as_deref(), &[], args.force);
            rows.push(row);
            docs.push(policy.doc);
        }
    }
    if !before_write(action, args, request, &rows, &names, dry_run)? {
        return finish(action, request, &rows, &names, dry_run, not_involved);
    }
    for (row, doc) in rows.iter_mut().zip(&docs) {
        let Some(c) = row.change().cloned() else {
            continue;
        };
        let fi = row.file.unwrap_or_default();
        let m = &mut manifests[fi];
        let root = &m.inv.documents[*doc].root;
        let edits = (|| {
            let mut e = Vec::new();
            if c.suspension_changes {
                e.extend(edit::suspension_edit(&m.text, root, c.new.as_ref())?);
            }
            e.extend(edit::annotation_edit(
                &m.text,
                root,
                RECORD_ANNOTATION,
                c.annotation.as_deref(),
            )?);
            Ok::<_, edit::EditError>(e)
        })();
        row.result = Some(match edits {
            Ok(e) => {
                m.edits.extend(e);
                let suffix = if dry_run { " (dry run)" } else { "" };
                Ok(format!("{}{suffix}", done_message(action, &c)))
            }
            Err(e) => Err(ClusterError {
                kind: ErrorKind::Refused,
                message: e.to_string(),
            }),
        });
    }
    for m in &manifests {
        if m.edits.is_empty() {
            continue;
        }
        let after = edit::apply(&m.text, &m.edits);
        if dry_run {
            write_stdout(&edit::unified_diff(&m.name, &m.text, &after))?;
        } else {
            edit::verify(&m.text, &after, None)
                .map_err(|e| CliError::failure(format!("{}: {e}", m.name)))?;
            write_atomic(&m.path, m.bom, &after, Some(&m.stamp))
                .map_err(|e| CliError::failure(format!("{}: {e}", m.name)))?;
        }
    }
    finish(action, request, &rows, &names, dry_run, not_involved)
}

// ---------------------------------------------------------------------------------------------
// Live mode

fn run_live(
    action: Action,
    args: &Args,
    kinds: &[PolicyKind],
    request: &Request,
) -> Result<Exit, CliError> {
    let (request_timeout, dry, rt) = live_setup(args)?;
    rt.block_on(live(action, args, kinds, request, dry, request_timeout))
}

/// The clusters each policy's bindings list, by (permanent-id label, id).
fn group_bindings(bindings: &[J]) -> BTreeMap<(String, String), Vec<String>> {
    let mut out: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for b in bindings {
        let clusters: Vec<String> = b["spec"]["clusters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str().map(str::to_string))
            .collect();
        for kind in [
            PolicyKind::PropagationPolicy,
            PolicyKind::ClusterPropagationPolicy,
        ] {
            let label = kind.permanent_id_label();
            if let Some(id) = b["metadata"]["labels"][label].as_str() {
                out.entry((label.to_string(), id.to_string()))
                    .or_default()
                    .extend(clusters.iter().cloned());
            }
        }
    }
    out
}

fn annotation_of(obj: &J) -> Option<&str> {
    obj["metadata"]["annotations"][RECORD_ANNOTATION].as_str()
}

/// The merge patch for a change, guarded by the resourceVersion that was read. Only the
/// freeze annotation and (when it changes) `spec.suspension` are named.
fn build_patch(current: &J, c: &Change) -> J {
    let mut patch = json!({"metadata": {
        "resourceVersion": current["metadata"]["resourceVersion"].clone(),
        "annotations": {RECORD_ANNOTATION: c.annotation.clone()},
    }});
    if c.suspension_changes {
        patch["spec"] = json!({"suspension": match &c.new {
            None => J::Null,
            Some(s) => json!({
                "dispatching": s.dispatching,
                "dispatchingOnClusters": s.dispatching_on_clusters.as_ref().map(|c| json!({"clusterNames": c.cluster_names})),
            }),
        }});
    }
    patch
}

async fn live(
    action: Action,
    args: &Args,
    kinds: &[PolicyKind],
    request: &Request,
    dry: DryRun,
    request_timeout: std::time::Duration,
) -> Result<Exit, CliError> {
    let (conn, namespace) = super::suspend::connect(args, request_timeout).await?;
    // PropagationPolicies of the namespace; with -A of every namespace and the
    // ClusterPropagationPolicies. A type on the command line (`cpp`) narrows to it.
    let kinds: Vec<PolicyKind> = if !kinds.is_empty() {
        kinds.to_vec()
    } else if args.all_namespaces {
        vec![
            PolicyKind::PropagationPolicy,
            PolicyKind::ClusterPropagationPolicy,
        ]
    } else {
        vec![PolicyKind::PropagationPolicy]
    };
    let mut objects = Vec::new();
    for &kind in &kinds {
        let ns = match kind {
            PolicyKind::PropagationPolicy if !args.all_namespaces => Some(namespace.as_str()),
            _ => None,
        };
        let list = conn
            .list_policies(kind, ns, args.selector.as_deref())
            .await
            .map_err(|e| CliError::api(format!("cannot list {}: {}", kind.plural(), e.message)))?;
        objects.extend(list.into_iter().map(|o| (kind, o)));
    }
    // Bindings only when freezing (targets); lifting reads the record alone.
    let bound = if action == Action::Suspend {
        let wide = args.all_namespaces || kinds.contains(&PolicyKind::ClusterPropagationPolicy);
        let ns = (!wide).then_some(namespace.as_str());
        let list = conn
            .list_bindings(ns, kinds.contains(&PolicyKind::ClusterPropagationPolicy))
            .await;
        if list.is_none() {
            warn("cannot read ResourceBindings: target clusters come from the placements only");
        }
        group_bindings(list.as_deref().unwrap_or_default())
    } else {
        BTreeMap::new()
    };
    // Cluster names and health, when the Clusters are readable.
    let clusters = conn.list_clusters().await;
    let health: Vec<ClusterHealth> = clusters
        .iter()
        .flatten()
        .map(crate::model::cluster::cluster_health)
        .collect();
    super::suspend::check_cluster_names(
        &request.clusters,
        clusters.is_some(),
        &health,
        args.strict,
    )?;
    let user = if conn.user.is_empty() {
        std::env::var("USER").unwrap_or_default()
    } else {
        conn.user.clone()
    };
    let stamp = stamp(args.reason.as_deref(), Some(user));
    let mut rows = Vec::new();
    let mut not_involved = 0;
    objects.sort_by(|(ka, a), (kb, b)| {
        let key = |k: &PolicyKind, o: &J| {
            (
                *k == PolicyKind::ClusterPropagationPolicy,
                o["metadata"]["namespace"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                o["metadata"]["name"].as_str().unwrap_or("").to_string(),
            )
        };
        key(ka, a).cmp(&key(kb, b))
    });
    for (kind, o) in objects {
        let name = o["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let spec: PropagationSpec = match serde_json::from_value(o["spec"].clone()) {
            Ok(s) => s,
            Err(e) => {
                warn(&format!(
                    "{}: cannot read spec: {e}",
                    resource_id(kind, &name)
                ));
                continue;
            }
        };
        let label = kind.permanent_id_label();
        let b = o["metadata"]["labels"][label]
            .as_str()
            .and_then(|id| bound.get(&(label.to_string(), id.to_string())))
            .and_then(|v| binding_targets(std::slice::from_ref(v)));
        let decision = decide(
            action,
            &spec,
            annotation_of(&o),
            b.as_deref(),
            &request.clusters,
            &stamp,
        );
        if decision == Decision::NotInvolved {
            not_involved += 1;
            continue;
        }
        let mut row = Row {
            kind,
            namespace: o["metadata"]["namespace"].as_str().map(str::to_string),
            name,
            file: None,
            gitops: None,
            decision,
            stalls: Vec::new(),
            failover: false,
            refused: None,
            object: None,
            bound: b.clone(),
            result: None,
        };
        check_stalls(&mut row, &spec, b.as_deref(), &health, args.force);
        if row.change().is_some() {
            row.gitops = gitops_owner(&o);
        }
        row.object = Some(o);
        rows.push(row);
    }
    if !before_write(action, args, request, &rows, &[], dry != DryRun::None)? {
        return finish(
            action,
            request,
            &rows,
            &[],
            dry != DryRun::None,
            not_involved,
        );
    }
    // Bounded concurrency; each task owns its row and gives it back with the result.
    let ctx = Arc::new((request.clone(), stamp, dry, health, args.force));
    let sem = Arc::new(tokio::sync::Semaphore::new(args.concurrency));
    let mut set = tokio::task::JoinSet::new();
    for (i, row) in rows.iter_mut().enumerate() {
        if row.change().is_none() {
            continue;
        }
        let conn = conn.clone();
        let ctx = ctx.clone();
        let sem = sem.clone();
        let (kind, ns, name) = (row.kind, row.namespace.clone(), row.name.clone());
        let object = row.object.take().unwrap_or(J::Null);
        let decision = row.decision.clone();
        let bound = row.bound.clone();
        set.spawn(async move {
            let _permit = sem.acquire_owned().await;
            let (request, stamp, dry, _, _) = &*ctx;
            let r = apply_one(
                &conn,
                action,
                kind,
                ns.as_deref(),
                &name,
                object,
                decision,
                bound.as_deref(),
                request,
                stamp,
                *dry,
            )
            .await;
            (i, r)
        });
    }
    let mut diffs = String::new();
    let mut results: BTreeMap<usize, (Result<String, ClusterError>, Option<String>)> =
        BTreeMap::new();
    while let Some(r) = set.join_next().await {
        let (i, r) = r.map_err(|e| CliError::failure(format!("task failed: {e}")))?;
        results.insert(i, r);
    }
    for (i, (result, diff)) in results {
        if let Some(d) = diff {
            diffs.push_str(&d);
        }
        rows[i].result = Some(result);
    }
    write_stdout(&diffs)?;
    finish(
        action,
        request,
        &rows,
        &[],
        dry != DryRun::None,
        not_involved,
    )
}

/// Writes one change: patch guarded by the resourceVersion read; on 409 Conflict re-read,
/// recompute with the engine and try again, within the retry budget.
#[allow(clippy::too_many_arguments)]
async fn apply_one(
    conn: &Conn,
    action: Action,
    kind: PolicyKind,
    ns: Option<&str>,
    name: &str,
    mut current: J,
    mut decision: Decision,
    bound: Option<&[String]>,
    request: &Request,
    stamp: &Stamp,
    dry: DryRun,
) -> (Result<String, ClusterError>, Option<String>) {
    let id = resource_id(kind, name);
    let attempts = CONFLICT_RETRIES + 1;
    for attempt in 0..attempts {
        if attempt > 0 {
            current = match conn.get_policy(kind, ns, name).await {
                Ok(Some(o)) => o,
                Ok(None) => {
                    return (
                        Err(ClusterError {
                            kind: ErrorKind::NotFound,
                            message: "deleted meanwhile".into(),
                        }),
                        None,
                    )
                }
                Err(e) => return (Err(e), None),
            };
            let spec: PropagationSpec = match serde_json::from_value(current["spec"].clone()) {
                Ok(s) => s,
                Err(e) => {
                    return (
                        Err(ClusterError {
                            kind: ErrorKind::Api,
                            message: format!("cannot read spec: {e}"),
                        }),
                        None,
                    )
                }
            };
            decision = decide(
                action,
                &spec,
                annotation_of(&current),
                bound,
                &request.clusters,
                stamp,
            );
        }
        let c = match &decision {
            Decision::Change(c) => c,
            Decision::Unchanged(m) => return (Ok(format!("{m} (changed meanwhile)")), None),
            Decision::Skipped(s) => return (Ok(format!("{s} (changed meanwhile)")), None),
            Decision::NotInvolved => {
                return (Ok("no longer involved (changed meanwhile)".into()), None)
            }
        };
        let patch = build_patch(&current, c);
        let written = match dry {
            DryRun::Client => {
                let mut after = current.clone();
                kube::merge_patch(&mut after, &patch);
                Ok(after)
            }
            DryRun::Server => conn.patch_policy(kind, ns, name, &patch, true).await,
            DryRun::None => conn.patch_policy(kind, ns, name, &patch, false).await,
        };
        match written {
            Ok(after) => {
                let diff = (dry != DryRun::None)
                    .then(|| edit::unified_diff(&id, &for_diff(&current), &for_diff(&after)));
                let suffix = match dry {
                    DryRun::None => "",
                    DryRun::Client => " (dry run)",
                    DryRun::Server => " (server dry run)",
                };
                return (Ok(format!("{}{suffix}", done_message(action, c))), diff);
            }
            Err(e) if e.kind == ErrorKind::Conflict => {
                tokio::time::sleep(backoff(attempt)).await;
                continue;
            }
            Err(e) => return (Err(e), None),
        }
    }
    (
        Err(ClusterError {
            kind: ErrorKind::Conflict,
            message: format!(
                "gave up after {attempts} attempts: the object changed every time between read and write (409 Conflict); nothing was written"
            ),
        }),
        None,
    )
}
