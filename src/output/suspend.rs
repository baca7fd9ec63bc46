//! What `suspend` and `resume` print: one line per policy (or the objects, `-o yaml|json`), the
//! errors, a live dry run's diffs, and for a freeze of clusters the table before the write, its
//! warnings and the summary after it.

use serde_json::{json, Value as J};

use crate::context::flags::OutputFormat;
use crate::engine::suspension::{Action, Request};
use crate::model::PolicyKind;
use crate::ops::edit;
use crate::ops::live::WriteError;
use crate::ops::plan::{resource_id, Outcome};
use crate::ops::suspend::{Freeze, PolicyResult, Row};
use crate::output::yaml::to_yaml;
use crate::util::escape::{visible, visible_lines};

/// How a run ended, for the exit code. When policies end differently, the most serious
/// outcome decides: the control plane failing, then a policy not changed, then one not found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Ok,
    /// A policy named does not exist (exit 4).
    NotFound,
    /// Some policy failed (exit 1).
    Failure,
    /// The control plane failed us on some policy (exit 3).
    Api,
}

/// What to print: stderr (the errors, first) and stdout, and how the run ended.
#[derive(Debug)]
pub struct Report {
    pub stderr: String,
    pub stdout: String,
    pub status: Status,
}

impl Report {
    fn new() -> Report {
        Report {
            stderr: String::new(),
            stdout: String::new(),
            status: Status::Ok,
        }
    }

    /// One failed policy; the most serious outcome so far stays.
    fn fail(&mut self, id: &str, e: &dyn std::fmt::Display, status: Status) {
        let line = format!("{id}: {e}");
        self.stderr
            .push_str(&format!("error: {}\n", visible(&line)));
        self.status = self.status.max(status);
    }
}

fn write_error(report: &mut Report, id: &str, e: &WriteError) {
    let status = if e.is_api_failure() {
        Status::Api
    } else if e.is_not_found() {
        Status::NotFound
    } else {
        Status::Failure
    };
    report.fail(id, e, status);
}

/// Named mode: a line per policy, or with `-o` the objects (one, or a kubectl `List`), their
/// `metadata.managedFields` left out unless `show_managed_fields` (kubectl's default since
/// 1.21, `--show-managed-fields`).
pub fn named_report(
    results: &[PolicyResult],
    output: Option<OutputFormat>,
    show_managed_fields: bool,
) -> Report {
    let mut report = Report::new();
    let mut objects = Vec::new();
    for r in results {
        match &r.result {
            Ok(msg) => {
                if output.is_none() {
                    let line = format!("{} {msg}", r.id);
                    report.stdout.push_str(&format!("{}\n", visible(&line)));
                }
                if let Some(obj) = &r.object {
                    let mut obj = obj.clone();
                    if !show_managed_fields {
                        without_managed_fields(&mut obj);
                    }
                    objects.push(obj);
                }
            }
            Err(e) => write_error(&mut report, &r.id, e),
        }
    }
    if let Some(format) = output {
        // One object as it is; several as a kubectl `List`, in JSON and YAML alike.
        let v = if objects.len() == 1 {
            objects.pop().unwrap_or(J::Null)
        } else {
            json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objects})
        };
        report.stdout = super::format::structured(&v, format == OutputFormat::Yaml);
    }
    report
}

/// Drops `metadata.managedFields`, keeping the order of the other keys.
fn without_managed_fields(o: &mut J) {
    if let Some(m) = o["metadata"].as_object_mut() {
        m.shift_remove("managedFields");
    }
}

/// A live object as its dry run's diff shows it (managedFields are noise).
fn for_diff(o: &J) -> String {
    let mut o = o.clone();
    without_managed_fields(&mut o);
    to_yaml(&o)
}

/// The unified diff of a live dry run, before → after.
pub fn live_diff(id: &str, before: &J, after: &J) -> String {
    edit::unified_diff(id, &for_diff(before), &for_diff(after))
}

/// The diffs of a live dry run of named policies, in order.
pub fn named_diffs(results: &[PolicyResult]) -> String {
    results
        .iter()
        .filter_map(|r| r.diff.as_ref().map(|(b, a)| live_diff(&r.id, b, a)))
        .collect()
}

/// The confirmation question of a bulk change.
pub fn confirm_question(action: Action, n: usize, request: &Request) -> (String, String) {
    let verb = match action {
        Action::Suspend => "suspend",
        Action::Resume => "resume",
    };
    let on = if request.clusters.is_empty() {
        "all clusters".to_string()
    } else {
        request.clusters.join(", ")
    };
    let on = visible(&on);
    let policies = if n == 1 { "policy" } else { "policies" };
    (
        format!("{verb} {n} {policies} on {on}? [y/N] "),
        format!(
            "this would {verb} {n} {policies} on {on}; pass --yes to confirm (stdin is not a terminal, so there is no prompt)"
        ),
    )
}

// ---------------------------------------------------------------------------------------------
// A freeze of clusters

fn what(action: Action, request: &Request) -> String {
    match action {
        Action::Suspend => format!("freeze of {}", request.clusters.join(", ")),
        Action::Resume => format!("lifting the freeze of {}", request.clusters.join(", ")),
    }
}

fn short(r: &Row) -> String {
    format!("{}/{}", r.kind.short(), r.name)
}

/// Each row in one section: what changes, what is refused, what stays, what is skipped.
fn section(r: &Row) -> (usize, String) {
    match &r.plan.outcome {
        Outcome::Change(c) => (0, c.describe.clone()),
        Outcome::Refused(why) => (1, why.clone()),
        Outcome::Unchanged(m) => (2, m.clone()),
        Outcome::Skipped(s) => (3, s.clone()),
        Outcome::NotInvolved => (4, String::new()),
    }
}

/// The table printed before the write.
pub fn freeze_table(action: Action, request: &Request, f: &Freeze) -> String {
    let rows = &f.rows;
    // Escaped before the columns are measured, so they line up as printed.
    let policy = |r: &Row| match r.file {
        Some((fi, _)) => visible(&format!("{} ({})", short(r), f.files[fi])).into_owned(),
        None => visible(&short(r)).into_owned(),
    };
    let ns = |r: &Row| match r.kind {
        PolicyKind::ClusterPropagationPolicy => "-".to_string(),
        PolicyKind::PropagationPolicy => visible(r.namespace.as_deref().unwrap_or("")).into_owned(),
    };
    let w_ns = rows
        .iter()
        .map(|r| ns(r).chars().count())
        .max()
        .unwrap_or(0)
        .max(9);
    let w_p = rows
        .iter()
        .map(|r| policy(r).chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let line = |out: &mut String, a: &str, b: &str, c: &str| {
        out.push_str(&format!("  {a:<w_ns$}  {b:<w_p$}  {c}\n"));
    };
    let mut out = format!("{}:\n", what(action, request));
    let titles = [
        ("will change", "CHANGE"),
        ("refused", "WHY"),
        ("unchanged", "WHY"),
        ("skipped", "WHY"),
    ];
    for (i, (title, col)) in titles.into_iter().enumerate() {
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
    visible_lines(&out).into_owned()
}

/// Per-policy warnings, printed once before the write.
pub fn freeze_warnings(f: &Freeze) -> Vec<String> {
    let mut out = Vec::new();
    for r in &f.rows {
        let id = resource_id(r.kind, &r.name);
        if let Some(owner) = r.gitops {
            out.push(format!(
                "{id} is managed by {owner}: the controller will revert this change; change the manifest instead (`suspend -f DIR --clusters ...`)"
            ));
        }
        if matches!(r.plan.outcome, Outcome::Change(_) | Outcome::Refused(_)) {
            for s in &r.plan.stalls {
                out.push(format!("{id}: {s}"));
            }
        }
    }
    out
}

/// Counts of a freeze's outcomes, for the summary.
#[derive(Default)]
struct Counts {
    changed: usize,
    failed: usize,
    unchanged: usize,
    skipped: usize,
    failover: usize,
    other: usize,
    gitops: usize,
}

impl Counts {
    fn of(rows: &[Row]) -> Counts {
        let mut c = Counts::default();
        for r in rows {
            let refused = matches!(r.plan.outcome, Outcome::Refused(_));
            c.changed += usize::from(matches!(r.result, Some(Ok(_))) && r.change().is_some());
            c.failed += usize::from(matches!(r.result, Some(Err(_))) || refused);
            c.unchanged += usize::from(matches!(r.plan.outcome, Outcome::Unchanged(_)));
            c.skipped += usize::from(matches!(r.plan.outcome, Outcome::Skipped(_)));
            c.failover += usize::from(r.plan.failover);
            c.other += usize::from(!r.plan.failover && !r.plan.stalls.is_empty());
            c.gitops += usize::from(r.gitops.is_some());
        }
        c
    }

    fn warnings(&self) -> Option<String> {
        let mut w = Vec::new();
        if self.failover > 0 {
            w.push(format!("{} failover", self.failover));
        }
        if self.other > 0 {
            w.push(format!("{} other suspension", self.other));
        }
        if self.gitops > 0 {
            w.push(format!("{} GitOps", self.gitops));
        }
        (!w.is_empty()).then(|| format!("; warnings: {}", w.join(", ")))
    }
}

/// The summary line, counting outcomes and warnings.
fn summary(action: Action, request: &Request, f: &Freeze, dry_run: bool) -> String {
    let c = Counts::of(&f.rows);
    let mut parts = Vec::new();
    if c.changed == 0 && c.failed == 0 {
        parts.push(match action {
            Action::Suspend if c.unchanged > 0 => {
                "nothing to change, the freeze is already in place".to_string()
            }
            _ => "nothing to change".to_string(),
        });
    } else {
        let verb = if dry_run { "would change" } else { "changed" };
        parts.push(format!("{} {verb}", c.changed));
    }
    if c.failed > 0 {
        parts.push(format!("{} failed", c.failed));
    }
    if c.unchanged > 0 {
        parts.push(match action {
            Action::Suspend => format!("{} unchanged", c.unchanged),
            Action::Resume => format!(
                "{} left untouched (suspended, not by the freeze)",
                c.unchanged
            ),
        });
    }
    if c.skipped > 0 {
        parts.push(format!("{} skipped", c.skipped));
    }
    if f.not_involved > 0 {
        parts.push(format!("{} not involved", f.not_involved));
    }
    let mut s = format!("{}: {}", what(action, request), parts.join(", "));
    if let Some(w) = c.warnings() {
        s.push_str(&w);
    }
    if dry_run {
        s.push_str(" (dry run: nothing written)");
    }
    s.push('\n');
    s
}

/// After the write: the diffs of a live dry run, a line per written policy, the errors, and
/// the summary.
pub fn freeze_report(action: Action, request: &Request, f: &Freeze, dry_run: bool) -> Report {
    let mut report = Report::new();
    for r in &f.rows {
        if let Some((before, after)) = &r.diff {
            report
                .stdout
                .push_str(&live_diff(&resource_id(r.kind, &r.name), before, after));
        }
    }
    for r in &f.rows {
        let id = match r.file {
            Some((fi, _)) => format!("{} ({})", resource_id(r.kind, &r.name), f.files[fi]),
            None => resource_id(r.kind, &r.name),
        };
        if let Outcome::Refused(why) = &r.plan.outcome {
            // As it always did: a refusal sets exit 1 even after an API failure.
            let line = format!("{id}: {why}");
            report
                .stderr
                .push_str(&format!("error: {}\n", visible(&line)));
            report.status = Status::Failure;
        }
        match &r.result {
            Some(Ok(m)) => report.stdout.push_str(&format!("{id} {m}\n")),
            Some(Err(e)) => write_error(&mut report, &id, e),
            None => {}
        }
    }
    // Files not edited because they do not parse may hold a policy the freeze takes.
    for place in &f.unread {
        report.fail(place, &WriteError::Unread, Status::Failure);
    }
    report
        .stdout
        .push_str(&summary(action, request, f, dry_run));
    report.stdout = visible_lines(&report.stdout).into_owned();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_counts_one_policy_or_several() {
        let request = Request::new(Action::Suspend, &["member1".to_string()]);
        let (one, refusal) = confirm_question(Action::Suspend, 1, &request);
        assert_eq!(one, "suspend 1 policy on member1? [y/N] ");
        assert!(refusal.starts_with("this would suspend 1 policy on member1;"));
        let (two, _) = confirm_question(Action::Resume, 2, &Request::new(Action::Resume, &[]));
        assert_eq!(two, "resume 2 policies on all clusters? [y/N] ");
    }
}
