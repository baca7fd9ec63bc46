//! Renders a `preempt-check` report: the JSON contract and "moves / stays / unchanged" text.

use owo_colors::OwoColorize;
use serde_json::{json, Value};

use super::explain::{block_message, block_short};
use crate::engine::delivery::{DeliveryChange, Received};
use crate::engine::simulate::{BlockReason, CheckReport};
use crate::model::PolicyRef;

fn owner_json(r: &Option<PolicyRef>) -> Value {
    match r {
        Some(r) => serde_json::to_value(r).expect("serializable"),
        None => Value::Null,
    }
}

fn owner_short(r: &Option<PolicyRef>) -> String {
    r.as_ref()
        .map_or_else(|| "unclaimed".to_string(), ToString::to_string)
}

/// The JSON contract of `preempt-check`.
pub fn to_json(r: &CheckReport) -> Value {
    let st = &r.world.state;
    json!({
        "rejected": r.rejected.iter().map(|(p, errors)| json!({
            "policy": p,
            "errors": errors,
        })).collect::<Vec<_>>(),
        "resources": r.resources.iter().map(|c| {
            let mut v = json!({
                "resource": st.templates[c.template].reference(),
                "before": owner_json(&c.before),
                "after": owner_json(&c.after),
                "preempted": c.preempted,
                "blockedBy": c.blocked_by.iter().map(|(p, b)| json!({
                    "policy": p,
                    "reason": b.code(),
                    "message": block_message(b),
                })).collect::<Vec<_>>(),
            });
            // Present only when the move changes what some member cluster receives.
            if let Some(d) = r.deliveries.iter().find(|d| d.template == c.template) {
                v["delivery"] = delivery_json(d);
            }
            v
        }).collect::<Vec<_>>(),
        "notes": crate::engine::check_notes::notes(r).iter().map(|n| json!({
            "code": note_code(n),
            "message": note_text(n),
        })).collect::<Vec<_>>(),
    })
}

/// The stable code of a note in `-o json`.
fn note_code(n: &crate::engine::check_notes::CheckNote) -> &'static str {
    use crate::engine::check_notes::CheckNote;
    match n {
        CheckNote::LazyDefers { .. } => "lazy-activation",
        CheckNote::SchedulerNotServed { .. } => "scheduler-not-served",
        CheckNote::ReleasedByChange { .. } => "released-by-change",
        CheckNote::OrphanedOnDelete { .. } => "released-by-delete",
    }
}

fn received_json(r: &Option<Received>) -> Value {
    match r {
        None => Value::Null,
        Some(r) => {
            let mut v = json!({
                "policies": r.policies,
                "manifest": r.manifest,
                "error": r.error,
            });
            if let Some((policy, rule)) = &r.failed_rule {
                v["failedRule"] = json!({"policy": policy, "rule": rule});
            }
            if let Some(field) = &r.defaulted {
                v["errorMayNotHappen"] = json!({"defaultedField": field});
            }
            v
        }
    }
}

/// `{"clusters": [{"cluster", "before", "after"}]}`: each side `null` when the cluster is not
/// a target under that owner.
fn delivery_json(d: &DeliveryChange) -> Value {
    let mut v = json!({
        "clusters": d.clusters.iter().map(|c| json!({
            "cluster": c.cluster,
            "before": received_json(&c.before),
            "after": received_json(&c.after),
        })).collect::<Vec<_>>(),
    });
    // Present only when the clusters are unknown: the owner whose placement is not evaluated.
    if let Some(owner) = &d.unevaluated {
        v["unevaluated"] = serde_json::to_value(owner).expect("serializable");
    }
    // Present only when the replicas some member cluster receives change.
    if let Some(shift) = &d.replicas {
        v["replicas"] = super::replicas::shift_json(shift);
    }
    v
}

/// The delivery notes of one template: the override shares, then the replicas.
fn delivery_text(r: &CheckReport, d: &DeliveryChange) -> String {
    let resource = r.world.state.templates[d.template].reference();
    let mut lines = Vec::new();
    if !d.clusters.is_empty() {
        lines.push(shares_text(r, d));
    }
    if let Some(owner) = &d.unevaluated {
        lines.push(format!(
            "{resource}: moving from {} to {}: what member clusters receive is not evaluated: {owner}'s placement selects its clusters, or picks among those it names, by what the Cluster objects say, and none are known (add them with -f, or check against the control plane)",
            owner_short(&d.before),
            d.after,
        ));
    }
    if let Some(shift) = &d.replicas {
        lines.push(format!(
            "{resource}: replicas under {}: {}",
            d.after,
            super::replicas::shift_text(shift)
        ));
    }
    lines.join("\n  ")
}

/// What a cluster receives, for a clause: no Work (maybe, when the failing path is one the API
/// server's defaults may fill), the template as is, or the overrides it gets.
fn received_text(x: &Received) -> String {
    match (&x.error, &x.defaulted, x.policies.is_empty()) {
        (Some(e), None, _) => format!("no Work: overrides fail: {e}"),
        (Some(e), Some(field), _) => format!(
            "no Work if the stored template lacks {field} too (karmada-apiserver's defaults may set it): overrides fail on the file's: {e}"
        ),
        (None, _, true) => "the template without overrides".to_string(),
        (None, _, false) => format!("overrides {}", x.policies.join(", ")),
    }
}

/// `member1 stops receiving it (it had cop/registry)`, one clause per changed cluster.
fn shares_text(r: &CheckReport, d: &DeliveryChange) -> String {
    let clauses: Vec<String> = d
        .clusters
        .iter()
        .map(|c| match (&c.before, &c.after) {
            (Some(b), None) => format!(
                "{} stops receiving it (it had {})",
                c.cluster,
                received_text(b)
            ),
            (None, Some(a)) => format!(
                "{} starts receiving it with {}",
                c.cluster,
                received_text(a)
            ),
            (Some(b), Some(a)) => format!(
                "{} gets {} instead of {}",
                c.cluster,
                received_text(a),
                received_text(b)
            ),
            (None, None) => c.cluster.clone(),
        })
        .collect();
    format!(
        "{}: moving from {} to {} changes what member clusters receive: {}",
        r.world.state.templates[d.template].reference(),
        owner_short(&d.before),
        d.after,
        clauses.join("; ")
    )
}

/// Any template blocked, or a change refused (for `--fail-on-blocked`).
pub fn any_blocked(r: &CheckReport) -> bool {
    // A change admission refuses takes nothing over: as blocked as a lower priority.
    r.resources.iter().any(|c| !c.blocked_by.is_empty()) || !r.world.rejected.is_empty()
}

pub fn text(r: &CheckReport, color: bool) -> String {
    let st = &r.world.state;
    let head = |s: &str| {
        if color {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    if !r.rejected.is_empty() {
        out.push_str(&head("Rejected (admission would refuse; nothing changes):"));
        out.push('\n');
        for (p, errors) in &r.rejected {
            out.push_str(&format!("  {p}\n"));
            for e in errors {
                out.push_str(&format!("    {e}\n"));
            }
        }
        out.push('\n');
    }
    let blocked_tail = |c: &crate::engine::simulate::ResourceChange| -> String {
        c.blocked_by
            .iter()
            .map(|(_, b)| block_short(b))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let moves: Vec<_> = r.resources.iter().filter(|c| c.before != c.after).collect();
    let stays: Vec<_> = r.resources.iter().filter(|c| c.before == c.after).collect();
    out.push_str(&head("Moves:"));
    out.push('\n');
    if moves.is_empty() {
        out.push_str("  none\n");
    }
    for c in &moves {
        let t = st.templates[c.template].reference();
        let mut line = format!(
            "  {t}: {} -> {}{}",
            owner_short(&c.before),
            owner_short(&c.after),
            if c.preempted { " (preempted)" } else { "" }
        );
        // Policies that lost the fresh match of an unclaimed template were not blocked: the
        // move itself is the best match.
        let (lost, blocked): (Vec<_>, Vec<_>) = c
            .blocked_by
            .iter()
            .partition(|(_, b)| matches!(b, BlockReason::FreshMatch { .. }));
        for (p, b) in lost {
            if let BlockReason::FreshMatch { why, .. } = b {
                line.push_str(&format!(" (best match over {p}: {why})"));
            }
        }
        if !blocked.is_empty() {
            let shorts: Vec<String> = blocked.iter().map(|(_, b)| block_short(b)).collect();
            line.push_str(&format!(" (blocked: {})", shorts.join("; ")));
        }
        out.push_str(&if color {
            line.green().to_string()
        } else {
            line
        });
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&head("Stays:"));
    out.push('\n');
    if stays.is_empty() {
        out.push_str("  none\n");
    }
    for c in &stays {
        let t = st.templates[c.template].reference();
        let line = format!(
            "  {t}: stays with {} (blocked: {})",
            owner_short(&c.after),
            blocked_tail(c)
        );
        out.push_str(&if color {
            line.yellow().to_string()
        } else {
            line
        });
        out.push('\n');
        for (p, b) in &c.blocked_by {
            out.push_str(&format!("    {p} ({}): {}\n", b.code(), block_message(b)));
        }
    }
    out.push('\n');
    out.push_str(&head("Unchanged:"));
    out.push_str(&format!(
        " {} other template{}\n",
        r.unchanged,
        if r.unchanged == 1 { "" } else { "s" }
    ));
    let notes = crate::engine::check_notes::notes(r);
    if !notes.is_empty() || !r.deliveries.is_empty() {
        out.push('\n');
        out.push_str(&head("Notes:"));
        out.push('\n');
        for n in &notes {
            out.push_str(&format!("  {}\n", note_text(n)));
        }
        for d in &r.deliveries {
            out.push_str(&format!("  {}\n", delivery_text(r, d)));
        }
    }
    out
}

fn note_text(n: &crate::engine::check_notes::CheckNote) -> String {
    use crate::engine::check_notes::CheckNote;
    match n {
        CheckNote::LazyDefers { resource, policy } => format!(
            "{resource}: {policy} is activationPreference: Lazy, so its binding follows only on the template's next update"
        ),
        CheckNote::SchedulerNotServed { resource, policy, name } => format!(
            "{resource}: {policy} names schedulerName `{name}`, which no karmada-scheduler of this control plane serves, so its binding is never scheduled and reaches no cluster"
        ),
        CheckNote::ReleasedByChange { policy, resources } => format!(
            "{policy} no longer claims {}: {} its binding without a policy, and the member clusters keep their copies, no longer updated",
            resources
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            if resources.len() == 1 { "it keeps" } else { "each keeps" }
        ),
        CheckNote::OrphanedOnDelete {
            policy, resources, ..
        } if resources.is_empty() => format!(
            "deleting {policy}: it holds none of the templates read; any it holds elsewhere keeps its binding without a policy, and the member clusters keep their copies, no longer updated"
        ),
        CheckNote::OrphanedOnDelete {
            policy,
            resources,
            preserve,
        } => {
            let held = resources
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            // As plan's policy-removed-holding-templates says it.
            let later = super::plan::copies_when_deleted(*preserve);
            format!(
                "deleting {policy} releases what it held ({held}): each keeps its binding without a policy, and the member clusters keep their copies, no longer updated; when the template is deleted later, those copies {later}"
            )
        }
    }
}
