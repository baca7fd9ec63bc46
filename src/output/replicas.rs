//! Renders how many replicas each member cluster receives (`engine::replicas`), inside
//! `explain`'s placement section: the JSON contract (`assignment`, `assignmentBasis`,
//! `assignmentUnknown`) and one text line per cluster.

use serde_json::{json, Value};

use crate::engine::placement::Attempt;
use crate::engine::replicas::{AssignmentNote, Outcome, Scheduled, Strategy, Target, Why};

fn targets_json(list: &[Target]) -> Value {
    list.iter()
        .map(|t| json!({"cluster": t.cluster, "replicas": t.replicas}))
        .collect()
}

pub fn strategy_name(s: &Strategy) -> &'static str {
    s.as_str()
}

fn note_code(n: &AssignmentNote) -> &'static str {
    match n {
        AssignmentNote::UidTieBreak { .. } => "UidTieBreak",
        AssignmentNote::EstimatorService => "EstimatorService",
        AssignmentNote::UnstableSortTie => "UnstableSortTie",
        AssignmentNote::RandomWeightTie => "RandomWeightTie",
        AssignmentNote::KindWithoutReplicas => "KindWithoutReplicas",
    }
}

/// One sentence per note, for both formats.
pub fn note_text(n: &AssignmentNote) -> String {
    match n {
        AssignmentNote::UidTieBreak { other } => format!(
            "ties are broken by the template's uid, unknown until it is created: with the other uid parity {}",
            shares_inline(other)
        ),
        AssignmentNote::EstimatorService => "capacity is the general estimator's (status.resourceSummary); with karmada-scheduler --enable-scheduler-estimator the estimator service's per-node answer can only lower it".into(),
        AssignmentNote::UnstableSortTie => "Aggregated over more than 12 clusters with a tie at the cut: Karmada's unstable sort may keep another of the tied clusters".into(),
        AssignmentNote::RandomWeightTie => "Karmada before v1.16 gives the replicas left after each cluster's floor to the heaviest clusters, and between clusters of equal weight (and equal replicas before) it picks at random: another of them may get one".into(),
        AssignmentNote::KindWithoutReplicas => "neither Karmada's default interpreter nor the third-party interpreters it ships read replicas for this kind: every selected cluster is listed without replicas unless a resource interpreter customization says otherwise".into(),
    }
}

/// `member1 gets 2, member2 gets 1`.
pub fn shares_inline(list: &[Target]) -> String {
    list.iter()
        .map(|t| format!("{} gets {}", t.cluster, t.replicas))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fields an attempt adds to `placement`: `assignment` (`null` when the schedule fails or
/// cannot be known), `assignmentBasis`, `assignmentUnknown`. Nothing without replica fields.
pub fn add_json(v: &mut Value, decided: &Attempt) {
    match &decided.assignment {
        Some(Outcome::Scheduled(s)) if decided.error.is_none() => {
            v["assignment"] = targets_json(&s.targets());
            v["assignmentBasis"] = basis_json(s);
        }
        Some(Outcome::Unknown { missing }) => {
            v["assignment"] = Value::Null;
            v["assignmentUnknown"] = json!({
                "missing": missing.iter().map(|c| format!("Cluster {c}: status.resourceSummary")).collect::<Vec<_>>(),
                "message": unknown_text(missing),
            });
        }
        Some(Outcome::Invalid(e)) => {
            v["assignment"] = Value::Null;
            v["assignmentUnknown"] = json!({"missing": [], "message": e.to_string()});
        }
        Some(_) => v["assignment"] = Value::Null,
        None if decided.error.is_some() => v["assignment"] = Value::Null,
        None => {}
    }
}

fn basis_json(s: &Scheduled) -> Value {
    json!({
        "strategy": strategy_name(&s.strategy),
        "clusters": s.shares.iter().map(|sh| {
            let mut x = json!({"cluster": sh.cluster});
            match &sh.why {
                Why::StaticWeight { weight, total } => {
                    x["weight"] = json!(weight);
                    x["totalWeight"] = json!(total);
                }
                Why::Dynamic { available } | Why::Aggregated { available } => {
                    x["available"] = json!(available);
                }
                Why::Duplicated | Why::NoReplicas => {}
            }
            x
        }).collect::<Vec<_>>(),
        "notes": s.notes.iter().map(|n| {
            let mut x = json!({"code": note_code(n), "message": note_text(n)});
            if let AssignmentNote::UidTieBreak { other } = n {
                x["otherwise"] = targets_json(other);
            }
            x
        }).collect::<Vec<_>>(),
    })
}

fn unknown_text(missing: &[String]) -> String {
    let who = match missing {
        [one] => format!("Cluster {one} declares"),
        many => format!("Clusters {} declare", many.join(", ")),
    };
    format!(
        "replicas unknown: available capacity decides, and {who} no status.resourceSummary (explain against the control plane reads it, or give the Cluster objects with their status)"
    )
}

/// A term that failed in the division or for capacity, before the one that applied.
pub fn failed_terms_text(attempts: &[Attempt]) -> String {
    let mut out = String::new();
    for a in attempts {
        if let (Some(Outcome::Failed(_)), Some(e)) = (&a.assignment, &a.error) {
            out.push_str(&format!(
                "  term {:?} failed: {}\n",
                a.term.clone().unwrap_or_default(),
                e.text()
            ));
        }
    }
    out
}

/// `(static weight 2 of 3)`, `(available 20: dynamic weight)`.
fn why_text(w: &Why) -> String {
    match w {
        Why::Duplicated => "(duplicated)".into(),
        Why::StaticWeight { weight, total } => format!("(static weight {weight} of {total})"),
        Why::Dynamic { available } => format!("(available {available}: dynamic weight)"),
        Why::Aggregated { available } => format!("(available {available}: aggregated)"),
        Why::NoReplicas => "(the template has no replicas)".into(),
    }
}

/// The text lines under `placement:`: one per cluster, then the notes.
pub fn text(decided: &Attempt) -> String {
    let mut out = String::new();
    match &decided.assignment {
        Some(Outcome::Scheduled(s))
            if decided.error.is_none()
                && !s.shares.is_empty()
                && s.shares.iter().all(|x| x.why == Why::NoReplicas) =>
        {
            let why = if s.notes.contains(&AssignmentNote::KindWithoutReplicas) {
                "neither Karmada's default interpreter nor the third-party interpreters it ships read replicas for this kind (a resource interpreter customization could)"
            } else {
                "the template has 0 replicas and no resource requirements"
            };
            out.push_str(&format!(
                "  replicas: none: {why}; every selected cluster receives the template\n"
            ));
        }
        Some(Outcome::Scheduled(s)) if decided.error.is_none() => {
            out.push_str(&format!("  replicas ({}):\n", strategy_name(&s.strategy)));
            if s.shares.is_empty() {
                // The shares sum to the replicas: none at all means 0 replicas, which the
                // requirements made the scheduler assign (`AssignReplicas`, common.go).
                out.push_str(
                    "    none: the template has 0 replicas, which its resource requirements make the scheduler assign: every share is 0, spec.clusters stays empty\n",
                );
            }
            let width = s
                .shares
                .iter()
                .map(|sh| sh.cluster.len())
                .max()
                .unwrap_or(0);
            for sh in &s.shares {
                let count = if sh.replicas == 1 {
                    "1 replica ".to_string()
                } else {
                    format!("{} replicas", sh.replicas)
                };
                out.push_str(&format!(
                    "    {:<width$}  {count}  {}\n",
                    sh.cluster,
                    why_text(&sh.why)
                ));
            }
            for n in &s.notes {
                out.push_str(&format!("  note: {}\n", note_text(n)));
            }
        }
        Some(Outcome::Unknown { missing }) => {
            out.push_str(&format!("  {}\n", unknown_text(missing)));
        }
        Some(Outcome::Invalid(e)) => out.push_str(&format!("  replicas unknown: {e}\n")),
        _ => {}
    }
    out
}

/// `{"clusters": [{"cluster", "before", "after"}], "beforeError", "afterError"}` (the errors
/// only on a side whose schedule fails).
pub fn shift_json(s: &crate::engine::delivery::ReplicaShift) -> Value {
    let mut v = json!({
        "clusters": s.clusters.iter().map(|c| json!({
            "cluster": c.cluster, "before": c.before, "after": c.after,
        })).collect::<Vec<_>>(),
    });
    if let Some(e) = &s.before_error {
        v["beforeError"] = json!(e);
    }
    if let Some(e) = &s.after_error {
        v["afterError"] = json!(e);
    }
    v
}

/// `member1: 4 -> 2, member3: 0 -> 2`, and a side's schedule error.
pub fn shift_text(s: &crate::engine::delivery::ReplicaShift) -> String {
    let mut out = s
        .clusters
        .iter()
        .map(|c| format!("{}: {} -> {}", c.cluster, c.before, c.after))
        .collect::<Vec<_>>()
        .join(", ");
    if let Some(e) = &s.after_error {
        out.push_str(&format!(" (the new schedule fails: {e})"));
    }
    if let Some(e) = &s.before_error {
        out.push_str(&format!(" (the schedule before fails: {e})"));
    }
    out
}
