//! The live part of `explain pp/NAME` / `cpp/NAME`: JSON fields added to the policy view's
//! contract, and the lines under each held template (binding, one line per Work, clusters
//! without a Work, diagnoses), with the policy's suspension and the counts above them.

use serde_json::{json, Value};

use crate::engine::chain::{ConditionView, Diagnosis, WorkView};
use crate::engine::policy_live::{LiveCounts, PolicyLive, TemplateLive};
use crate::model::policy::Suspension;
use crate::model::Condition;

use super::chain::{binding_label, diagnosis_text, severity, suspension_parts};

fn condition_json(c: &Option<ConditionView>) -> Value {
    match c {
        Some(c) => json!({"status": c.status, "reason": c.reason, "message": c.message}),
        None => Value::Null,
    }
}

fn binding_condition_json(c: &Condition) -> Value {
    json!({"type": c.type_, "status": c.status, "reason": c.reason, "message": c.message})
}

fn work_json(w: &WorkView) -> Value {
    json!({
        "cluster": w.cluster,
        "namespace": w.namespace,
        "name": w.name,
        "target": w.target,
        "suspended": w.suspend_dispatching == Some(true),
        "applied": condition_json(&w.applied),
        "dispatching": condition_json(&w.dispatching),
    })
}

/// The fields one template entry gains: `binding`, `works`, `missingWorks`, `diagnoses`
/// (null and empty for a template the policy does not hold).
fn template_json(v: &mut Value, t: Option<&TemplateLive>) {
    let binding = t.and_then(|t| {
        t.chain.binding.as_ref().map(|b| {
            json!({
                "kind": if b.cluster_scoped { "ClusterResourceBinding" } else { "ResourceBinding" },
                "namespace": b.namespace,
                "name": b.name,
                "clusters": b.clusters.iter().map(|c| json!({"name": c.name, "replicas": c.replicas})).collect::<Vec<_>>(),
                "conditions": t.binding_conditions.iter().map(binding_condition_json).collect::<Vec<_>>(),
            })
        })
    });
    v["binding"] = binding.unwrap_or(Value::Null);
    v["works"] = t
        .map_or_else(Vec::new, |t| t.chain.works.iter().map(work_json).collect())
        .into();
    v["missingWorks"] = json!(t.map_or(&[][..], |t| t.missing_works.as_slice()));
    v["diagnoses"] = t
        .map_or(&[][..], |t| t.chain.diagnoses.as_slice())
        .iter()
        .map(|d| json!({"code": d.code(), "severity": severity(d), "message": diagnosis_text(d)}))
        .collect::<Vec<_>>()
        .into();
}

/// Adds the live fields to the policy view's JSON (`super::policy_view::to_json`).
pub fn add_json(v: &mut Value, live: &PolicyLive, notes: &[String]) {
    if let Some(templates) = v["templates"].as_array_mut() {
        for (entry, t) in templates.iter_mut().zip(&live.templates) {
            template_json(entry, t.as_ref());
        }
    }
    let c = &live.counts;
    for (k, n) in [
        ("held", c.held),
        ("bound", c.bound),
        ("works", c.works),
        ("applied", c.applied),
        ("notApplied", c.not_applied),
        ("pending", c.pending),
        ("suspendedWorks", c.suspended),
        ("missingWorks", c.missing_works),
    ] {
        v["summary"][k] = json!(n);
    }
    v["suspension"] = live
        .suspension
        .as_ref()
        .and_then(|s| serde_json::to_value(s).ok())
        .unwrap_or(Value::Null);
    v["notes"] = json!(notes);
}

/// `dispatching: true`, `dispatchingOnClusters: [member2]`, or `none`.
fn suspension_text(s: Option<&Suspension>) -> String {
    let parts = s.map(suspension_parts).unwrap_or_default();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// The lines under the policy's counts: its suspension and the live counts.
pub fn header_text(live: &PolicyLive) -> String {
    let c: &LiveCounts = &live.counts;
    let mut out = format!(
        "  suspension: {}\n",
        suspension_text(live.suspension.as_ref())
    );
    let works = if live.readable.works {
        format!(
            "{} Work(s): {} applied, {} not applied, {} pending, {} suspended; {} scheduled cluster(s) without a Work",
            c.works, c.applied, c.not_applied, c.pending, c.suspended, c.missing_works
        )
    } else {
        "Works not readable".to_string()
    };
    out.push_str(&format!(
        "  live: {} held, {} bound; {works}\n",
        c.held, c.bound
    ));
    out
}

/// `Applied=False (AppliedFailed) "message"`, `Applied: -` when absent. The message of a
/// condition that holds is the controller's boilerplate: only the JSON has it.
fn condition_text(name: &str, c: &Option<ConditionView>) -> String {
    match c {
        None => format!("{name}: -"),
        Some(c) => {
            let mut s = format!("{name}={}", c.status);
            if !c.reason.is_empty() {
                s.push_str(&format!(" ({})", c.reason));
            }
            if !c.message.is_empty() && c.status != "True" {
                s.push_str(&format!(" {:?}", c.message));
            }
            s
        }
    }
}

fn binding_text(t: &TemplateLive, bindings_readable: bool) -> String {
    let Some(b) = &t.chain.binding else {
        return if bindings_readable {
            "    binding: none yet\n".into()
        } else {
            "    binding: not readable (see the notes)\n".into()
        };
    };
    let clusters: Vec<&str> = b.clusters.iter().map(|c| c.name.as_str()).collect();
    let mut line = format!(
        "    binding {}: {}",
        binding_label(b),
        if clusters.is_empty() {
            "not scheduled".to_string()
        } else {
            clusters.join(", ")
        }
    );
    let conditions: Vec<String> = t
        .binding_conditions
        .iter()
        .map(|c| match c.reason.as_str() {
            "" => format!("{}={}", c.type_, c.status),
            r => format!("{}={} ({r})", c.type_, c.status),
        })
        .collect();
    if !conditions.is_empty() {
        line.push_str(&format!("  [{}]", conditions.join(", ")));
    }
    line.push('\n');
    line
}

/// Diagnoses the Work lines already say are left out.
fn shown_elsewhere(d: &Diagnosis) -> bool {
    matches!(
        d,
        Diagnosis::MissingWork { .. } | Diagnosis::NotApplied { .. }
    )
}

/// The lines under one held template.
pub fn template_text(t: &TemplateLive, live: &PolicyLive) -> String {
    let mut out = binding_text(t, live.readable.bindings);
    let width = t
        .chain
        .works
        .iter()
        .map(|w| w.cluster.len())
        .chain(t.missing_works.iter().map(String::len))
        .max()
        .unwrap_or(0);
    for w in &t.chain.works {
        out.push_str(&format!(
            "    {:<width$}  Work {}/{}{}{}  {}  {}\n",
            w.cluster,
            w.namespace,
            w.name,
            if w.suspend_dispatching == Some(true) {
                "  suspended"
            } else {
                ""
            },
            if w.target { "" } else { "  (not a target)" },
            condition_text("Applied", &w.applied),
            condition_text("Dispatching", &w.dispatching),
        ));
    }
    for c in &t.missing_works {
        out.push_str(&format!("    {c:<width$}  no Work yet\n"));
    }
    if t.chain.binding.is_some() && !live.readable.works {
        out.push_str("    Works: not readable (see the notes)\n");
    }
    for d in t.chain.diagnoses.iter().filter(|d| !shown_elsewhere(d)) {
        out.push_str(&format!("    {} {}\n", severity(d), diagnosis_text(d)));
    }
    out
}

/// The read notes at the end of the text.
pub fn notes_text(notes: &[String]) -> String {
    if notes.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nRead notes:\n");
    for n in notes {
        out.push_str(&format!("  - {n}\n"));
    }
    out
}
