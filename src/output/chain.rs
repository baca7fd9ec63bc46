//! Renders the live chain of a template (`explain` without `-f`): the `chain` section of the
//! JSON contract and the text after the manifest-mode trace. Diagnoses are worded here, once.

use owo_colors::OwoColorize;
use serde_json::{json, Value};

use super::explain::block_message;
use crate::engine::chain::{BindingView, Chain, ConditionView, Diagnosis, Lag};
use crate::model::policy::Suspension;

/// How serious a diagnosis is: `warning` for a chain that does not do what the policy says,
/// `info` for a state that resolves itself.
pub fn severity(d: &Diagnosis) -> &'static str {
    match d {
        Diagnosis::ResumedButSuspended { .. }
        | Diagnosis::SuspendedButDispatching { .. }
        | Diagnosis::BindingSuspensionDiffers { .. }
        | Diagnosis::ClaimKept { .. }
        | Diagnosis::SuspendedClusterNotTarget { .. }
        | Diagnosis::NotApplied { .. }
        | Diagnosis::ClaimerMissing { .. }
        | Diagnosis::BindingClaimerMissing { .. } => "warning",
        Diagnosis::OwnerChangesOnRestart { .. }
        | Diagnosis::NoBinding { .. }
        | Diagnosis::MissingWork { .. }
        | Diagnosis::OrphanWork { .. } => "info",
    }
}

fn lag_text(l: &Lag) -> &'static str {
    match l {
        Lag::Detector => {
            "the binding still has the old suspension: the detector has not processed the policy change yet (controller lag)"
        }
        Lag::LazyActivation => {
            "the binding still has the old suspension and the policy is activationPreference: Lazy: policy changes reach the binding only on the next change of the template (Lazy activation pending)"
        }
        Lag::BindingController => {
            "the binding is up to date but the Work's suspendDispatching is not: the binding controller has not synced the Work yet (controller lag)"
        }
        Lag::ExecutionController => {
            "the Work's spec is up to date but its Dispatching condition is not: the execution controller has not processed it yet (controller lag, or the member cluster is unreachable)"
        }
    }
}

/// One sentence per diagnosis.
pub fn diagnosis_text(d: &Diagnosis) -> String {
    match d {
        Diagnosis::ResumedButSuspended { cluster, work, lag } => format!(
            "{cluster}: the policy dispatches to it, but Work {work} is still suspended: {}",
            lag_text(lag)
        ),
        Diagnosis::SuspendedButDispatching { cluster, work, lag } => format!(
            "{cluster}: the policy suspends it, but Work {work} is still dispatching: {}",
            lag_text(lag)
        ),
        Diagnosis::BindingSuspensionDiffers { lag } => {
            format!("the binding's spec.suspension differs from the policy's: {}", lag_text(lag))
        }
        Diagnosis::ClaimerMissing { claimer } => format!(
            "the template is claimed by {claimer}, which no longer exists: the claim is stale; the next reconcile of the template drops it and re-matches"
        ),
        Diagnosis::BindingClaimerMissing { label, id } => format!(
            "the binding carries {label}={id}, the permanent-id of no existing policy"
        ),
        Diagnosis::ClaimKept { holder, better, blocker } => format!(
            "{better} outranks the holder {holder}, but the claim is kept: {}",
            block_message(blocker)
        ),
        Diagnosis::OwnerChangesOnRestart { holder, eventual, preempted } => format!(
            "the claim of {} holds until the policies are processed again (a controller restart or a policy update); then {} {}",
            holder.as_ref().map_or_else(|| "nobody".to_string(), ToString::to_string),
            eventual.as_ref().map_or_else(|| "nobody".to_string(), ToString::to_string),
            if *preempted { "preempts it" } else { "takes it" }
        ),
        Diagnosis::SuspendedClusterNotTarget { policy, cluster, exists } => format!(
            "{policy} suspends {cluster} in dispatchingOnClusters, but {cluster} is not a target of the binding{}: that entry suspends nothing",
            match exists {
                Some(false) => " and no member cluster has that name",
                _ => "",
            }
        ),
        Diagnosis::NoBinding { owner } => format!(
            "claimed by {owner} but no binding exists yet: the detector has not created it (or the template has not been reconciled)"
        ),
        Diagnosis::MissingWork { cluster } => format!(
            "{cluster} is a target of the binding but has no Work: the binding controller has not created it yet"
        ),
        Diagnosis::OrphanWork { cluster, work } => format!(
            "Work {work} is for {cluster}, which is no longer a target: the binding controller removes it (removals are not frozen by suspension)"
        ),
        Diagnosis::NotApplied { cluster, work, reason, message } => format!(
            "{cluster}: Work {work} is not applied ({reason}){}",
            if message.is_empty() { String::new() } else { format!(": {message}") }
        ),
    }
}

fn suspension_json(s: &Option<Suspension>) -> Value {
    match s {
        Some(s) => serde_json::to_value(s).unwrap_or(Value::Null),
        None => Value::Null,
    }
}

fn condition_json(c: &Option<ConditionView>) -> Value {
    match c {
        Some(c) => json!({
            "status": c.status,
            "reason": c.reason,
            "message": c.message,
            "lastTransitionTime": c.last_transition_time,
        }),
        None => Value::Null,
    }
}

/// `chain.binding`; `requiredBy` only for a binding other bindings require (a dependency).
fn binding_json(b: &BindingView) -> Value {
    let mut v = json!({
        "kind": if b.cluster_scoped { "ClusterResourceBinding" } else { "ResourceBinding" },
        "namespace": b.namespace,
        "name": b.name,
        "clusters": b.clusters.iter().map(|t| json!({"name": t.name, "replicas": t.replicas})).collect::<Vec<_>>(),
        "suspension": {
            "policy": suspension_json(&b.suspension),
            "scheduling": b.scheduling_suspended,
        },
        "claimLabels": b.policy_labels,
    });
    if !b.required_by.is_empty() {
        v["requiredBy"] = b
            .required_by
            .iter()
            .map(|r| json!({"namespace": r.namespace, "name": r.name, "addsClusters": r.adds}))
            .collect();
    }
    v
}

/// The `chain` section of `explain`'s JSON in live mode.
pub fn to_json(c: &Chain, notes: &[String]) -> Value {
    json!({
        "claim": {
            "owner": c.claim.owner,
            "labels": c.claim.labels,
            "annotations": c.claim.annotations,
        },
        "binding": c.binding.as_ref().map(binding_json),
        "works": c.works.iter().map(|w| json!({
            "cluster": w.cluster,
            "namespace": w.namespace,
            "name": w.name,
            "target": w.target,
            "suspendDispatching": w.suspend_dispatching,
            "dispatching": condition_json(&w.dispatching),
            "applied": condition_json(&w.applied),
        })).collect::<Vec<_>>(),
        "diagnoses": c.diagnoses.iter().map(|d| json!({
            "code": d.code(),
            "severity": severity(d),
            "message": diagnosis_text(d),
        })).collect::<Vec<_>>(),
        "notes": notes,
    })
}

fn suspension_text(s: &Option<Suspension>) -> String {
    let Some(s) = s else {
        return "none".into();
    };
    let parts = suspension_parts(s);
    if parts.is_empty() {
        "{} (nothing suspended)".into()
    } else {
        parts.join(", ")
    }
}

/// `ResourceBinding NS/NAME` or `ClusterResourceBinding NAME`.
pub(super) fn binding_label(b: &BindingView) -> String {
    let kind = if b.cluster_scoped {
        "ClusterResourceBinding"
    } else {
        "ResourceBinding"
    };
    match &b.namespace {
        Some(ns) => format!("{kind} {ns}/{}", b.name),
        None => format!("{kind} {}", b.name),
    }
}

/// The fields a suspension sets: `dispatching: true`, `dispatchingOnClusters: [member2]`.
pub(super) fn suspension_parts(s: &Suspension) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(d) = s.dispatching {
        parts.push(format!("dispatching: {d}"));
    }
    if s.dispatching_on_clusters.is_some() {
        parts.push(format!(
            "dispatchingOnClusters: [{}]",
            s.suspended_clusters().join(", ")
        ));
    }
    parts
}

fn condition_text(name: &str, c: &Option<ConditionView>) -> String {
    match c {
        None => format!("{name}: -"),
        Some(c) => {
            let mut s = format!("{name}={} ({})", c.status, c.reason);
            if !c.message.is_empty() {
                s.push_str(&format!(" {:?}", c.message));
            }
            if !c.last_transition_time.is_empty() {
                s.push_str(&format!(" since {}", c.last_transition_time));
            }
            s
        }
    }
}

/// The text section printed after the manifest-mode trace.
pub fn text(c: &Chain, notes: &[String], color: bool) -> String {
    let bold = |s: &str| {
        if color {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    };
    let yellow = |s: String| if color { s.yellow().to_string() } else { s };
    let mut out = String::new();
    out.push('\n');
    out.push_str(&bold("Live chain:"));
    out.push('\n');
    if c.claim.labels.is_empty() && c.claim.annotations.is_empty() {
        out.push_str("  claim: none (no claim labels or annotations)\n");
    } else {
        out.push_str("  claim:\n");
        for (k, v) in &c.claim.labels {
            out.push_str(&format!("    label       {k}={v}\n"));
        }
        for (k, v) in &c.claim.annotations {
            out.push_str(&format!("    annotation  {k}={v}\n"));
        }
    }
    match &c.binding {
        None => out.push_str("  binding: none\n"),
        Some(b) => {
            out.push_str(&format!("  binding: {}\n", binding_label(b)));
            let clusters: Vec<String> = b
                .clusters
                .iter()
                .map(|t| match t.replicas {
                    Some(r) => format!("{} (replicas {r})", t.name),
                    None => t.name.clone(),
                })
                .collect();
            let own = match (clusters.is_empty(), b.required_by.is_empty()) {
                (false, _) => clusters.join(", "),
                (true, true) => "none (not scheduled)".to_string(),
                // `buildAttachedBinding` gives a dependency's binding no clusters of its own.
                (true, false) => "none of its own (a dependency: dispatched with the bindings \
                                  that require it)"
                    .to_string(),
            };
            out.push_str(&format!("    clusters:   {own}\n"));
            for r in &b.required_by {
                let adds = if r.adds.is_empty() {
                    "no other cluster".to_string()
                } else {
                    r.adds.join(", ")
                };
                let by = if r.namespace.is_empty() {
                    r.name.clone()
                } else {
                    format!("{}/{}", r.namespace, r.name)
                };
                out.push_str(&format!("    required by {by}: {adds}\n"));
            }
            out.push_str(&format!(
                "    suspension: {}",
                suspension_text(&b.suspension)
            ));
            if b.scheduling_suspended == Some(true) {
                out.push_str(", scheduling: true");
            }
            out.push('\n');
        }
    }
    if c.works.is_empty() {
        out.push_str("  works: none\n");
    } else {
        out.push_str("  works:\n");
        let w = c.works.iter().map(|w| w.cluster.len()).max().unwrap_or(0);
        for wk in &c.works {
            out.push_str(&format!(
                "    {:<w$}  {}/{}  suspendDispatching={}{}\n",
                wk.cluster,
                wk.namespace,
                wk.name,
                wk.suspend_dispatching
                    .map_or_else(|| "unset".to_string(), |b| b.to_string()),
                if wk.target { "" } else { "  (not a target)" }
            ));
            out.push_str(&format!(
                "    {:<w$}  {}\n",
                "",
                condition_text("Dispatching", &wk.dispatching)
            ));
            out.push_str(&format!(
                "    {:<w$}  {}\n",
                "",
                condition_text("Applied", &wk.applied)
            ));
        }
    }
    if !c.diagnoses.is_empty() {
        out.push('\n');
        out.push_str(&bold("Diagnosis:"));
        out.push('\n');
        for d in &c.diagnoses {
            let line = format!("  {} {}", severity(d), diagnosis_text(d));
            out.push_str(&if severity(d) == "warning" {
                yellow(line)
            } else {
                line
            });
            out.push('\n');
        }
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&bold("Read notes:"));
        out.push('\n');
        for n in notes {
            out.push_str(&format!("  - {n}\n"));
        }
    }
    out
}
