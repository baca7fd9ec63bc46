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

use serde_json::Value as J;

use super::common::{write_stdout, CliError, Exit};
use super::suspend::{
    change_message, confirm, for_diff, gitops_owner, live_setup, resource_id, rfc3339, warn,
    write_atomic, Args,
};
use crate::engine::freeze::{self, Change, Decision, Stamp, RECORD_ANNOTATION};
use crate::engine::suspension::{self as plan, Action, ClusterHealth, Request};
use crate::kube::Conn;
use crate::model::binding::BoundClusters;
use crate::model::label_selector::Selector;
use crate::model::policy::PropagationSpec;
use crate::model::{Inventory, PolicyKind};
use crate::ops::edit;
use crate::ops::live::{self as writer, DryRun, Patch, PolicyRef, Step, WriteError};
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
    result: Option<Result<String, WriteError>>,
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

/// Failover and health warnings of a change, and the one `--force` rule
/// ([`plan::force::needs_force`]).
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
    if !force {
        row.refused = plan::force::needs_force(&c.before, &c.after, &stalls, targets.as_deref());
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
                let _ = writeln!(std::io::stderr().lock(), "error: {id}: {e}");
                let code = if e.is_api_failure() {
                    Exit::Api
                } else {
                    Exit::Failure
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
    let bound = BoundClusters::from_bindings(manifests.iter().flat_map(|m| m.inv.bindings()));
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
            let permanent_id = policy.meta.label(policy.kind.permanent_id_label());
            let b = bound.of(policy.kind, permanent_id);
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
            Err(e) => Err(WriteError::Refused(e.to_string())),
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

fn annotation_of(obj: &J) -> Option<&str> {
    obj["metadata"]["annotations"][RECORD_ANNOTATION].as_str()
}

/// The change of a freeze or lift: the record annotation, and `spec.suspension` when it
/// changes.
fn patch_for(c: &Change) -> Patch {
    Patch {
        suspension: c.suspension_changes.then(|| c.new.clone()),
        annotations: vec![(RECORD_ANNOTATION.to_string(), c.annotation.clone())],
    }
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
        let list = writer::list_policies(&conn, kind, ns, args.selector.as_deref())
            .await
            .map_err(|e| CliError::api(format!("cannot list {}: {e}", kind.plural())))?;
        objects.extend(list.into_iter().map(|o| (kind, o)));
    }
    // Bindings only when freezing (targets); lifting reads the record alone.
    let bound = if action == Action::Suspend {
        let wide = args.all_namespaces || kinds.contains(&PolicyKind::ClusterPropagationPolicy);
        let ns = (!wide).then_some(namespace.as_str());
        let bound = writer::bound_clusters(
            &conn,
            ns,
            kinds.contains(&PolicyKind::ClusterPropagationPolicy),
        )
        .await;
        if bound.is_none() {
            warn("cannot read ResourceBindings: target clusters come from the placements only");
        }
        bound.unwrap_or_default()
    } else {
        BoundClusters::default()
    };
    // Cluster names and health, when the Clusters are readable.
    let clusters = writer::clusters(&conn).await;
    let health: Vec<ClusterHealth> = clusters.clone().unwrap_or_default();
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
        let b = bound.of(
            kind,
            o["metadata"]["labels"][kind.permanent_id_label()].as_str(),
        );
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
        let target = PolicyRef {
            kind: row.kind,
            namespace: row.namespace.clone(),
            name: row.name.clone(),
        };
        let object = row.object.take().unwrap_or(J::Null);
        let decision = row.decision.clone();
        let bound = row.bound.clone();
        set.spawn(async move {
            let _permit = sem.acquire_owned().await;
            let (request, stamp, dry, _, _) = &*ctx;
            let r = apply_one(
                &conn,
                action,
                target,
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
    let mut results: BTreeMap<usize, (Result<String, WriteError>, Option<String>)> =
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

/// The decision of a freeze or lift for one policy: the one made before the write, then (after
/// a 409 Conflict) the engine's again on the object as re-read.
struct Freeze<'a> {
    action: Action,
    first: Option<Decision>,
    bound: Option<&'a [String]>,
    request: &'a Request,
    stamp: &'a Stamp,
}

impl Freeze<'_> {
    fn step(&mut self, current: &J, spec: &PropagationSpec) -> Step<String> {
        let decision = self.first.take().unwrap_or_else(|| {
            decide(
                self.action,
                spec,
                annotation_of(current),
                self.bound,
                &self.request.clusters,
                self.stamp,
            )
        });
        match decision {
            Decision::Change(c) => Step::Write(patch_for(&c), done_message(self.action, &c)),
            Decision::Unchanged(m) => Step::Skip(format!("{m} (changed meanwhile)")),
            Decision::Skipped(s) => Step::Skip(format!("{s} (changed meanwhile)")),
            Decision::NotInvolved => Step::Skip("no longer involved (changed meanwhile)".into()),
        }
    }
}

impl writer::Decide for Freeze<'_> {
    type Info = String;

    async fn decide(
        &mut self,
        current: &J,
        spec: &PropagationSpec,
        _attempt: u32,
    ) -> Result<Step<String>, WriteError> {
        Ok(self.step(current, spec))
    }
}

/// Writes one change through the writer, and the diff of a dry run.
#[allow(clippy::too_many_arguments)]
async fn apply_one(
    conn: &Conn,
    action: Action,
    target: PolicyRef,
    current: J,
    decision: Decision,
    bound: Option<&[String]>,
    request: &Request,
    stamp: &Stamp,
    dry: DryRun,
) -> (Result<String, WriteError>, Option<String>) {
    let id = resource_id(target.kind, &target.name);
    let mut freeze = Freeze {
        action,
        first: Some(decision),
        bound,
        request,
        stamp,
    };
    let written = writer::write(conn, &target, Some(current), dry, &mut freeze).await;
    match written {
        Ok(w) => match w.after {
            Some(after) => {
                let diff = dry
                    .is_dry()
                    .then(|| edit::unified_diff(&id, &for_diff(&w.before), &for_diff(&after)));
                (Ok(format!("{}{}", w.info, dry.suffix())), diff)
            }
            None => (Ok(w.info), None),
        },
        Err(e) => (Err(e), None),
    }
}
