//! Renders an `explain` decision: the JSON contract and a readable trace. The engine's reason
//! enums are worded here, once, for both formats.

use owo_colors::OwoColorize;
use serde_json::{json, Value};

use crate::engine::claim::Excluded;
use crate::engine::explain::{Explanation, Note, OwnerHow, Why};
use crate::engine::rank::Decider;
use crate::engine::selector::ImplicitPriority;
use crate::engine::simulate::BlockReason;
use crate::model::controller_flags::SKIPPED_NAMESPACES;
use crate::model::feature_gates::GateSet;
use crate::model::{PolicyKind, PolicyRef};

/// `PropagationPolicy default/low`, `ClusterPropagationPolicy platform`.
pub fn owner_text(r: &PolicyRef) -> String {
    r.titled()
}

fn opt_owner(r: &Option<PolicyRef>) -> String {
    r.as_ref()
        .map_or_else(|| "none (unclaimed)".to_string(), owner_text)
}

fn precision(m: ImplicitPriority) -> &'static str {
    match m {
        ImplicitPriority::MatchName => "name",
        ImplicitPriority::MatchLabelSelector => "label",
        ImplicitPriority::MatchAll => "match-all",
        ImplicitPriority::MisMatch => "no match",
    }
}

fn list(refs: &[PolicyRef]) -> String {
    refs.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a template is never processed (§1.4).
pub fn excluded_text(e: &Excluded) -> String {
    match e {
        Excluded::ReservedNamespace(ns) => format!("namespace {ns} is reserved by Karmada"),
        Excluded::SkippedNamespace { namespace, pattern } if namespace.is_empty() => format!(
            "--skipped-propagating-namespaces entry {} matches the empty namespace of every cluster-scoped object",
            crate::engine::claim::shown_pattern(pattern)
        ),
        Excluded::SkippedNamespace { namespace, pattern } => {
            format!("namespace {namespace} matches --skipped-propagating-namespaces={pattern}")
        }
        Excluded::ExtensionApiserverAuthentication => {
            "kube-system/extension-apiserver-authentication is always skipped".into()
        }
        Excluded::SkippedApi { api_version, kind } => {
            format!("{api_version} {kind} is a skipped API: the detector never propagates it")
        }
        Excluded::NotServed { .. } => e.not_served_text(),
        Excluded::ClaimedBy(v) => format!(
            "label resourcetemplate.karmada.io/claimed-by={v} (MultiClusterService) keeps every policy away"
        ),
    }
}

/// A short form for inline use: `equal priority 5 = 5`.
pub fn block_short(b: &BlockReason) -> String {
    match b {
        BlockReason::EqualPriority {
            ours, theirs, gate, ..
        } => {
            format!("equal priority {ours} = {theirs}{}", gate_off_short(*gate))
        }
        BlockReason::LowerPriority {
            ours, theirs, gate, ..
        } => {
            format!("lower priority {ours} < {theirs}{}", gate_off_short(*gate))
        }
        BlockReason::FeatureGateDisabled { .. } => {
            "feature gate PropagationPolicyPreemption is off".into()
        }
        BlockReason::PreemptionNever { .. } => "preemption: Never".into(),
        BlockReason::CppCannotPreemptPp { .. } => "a CPP cannot preempt a PP".into(),
        BlockReason::NotNamed { .. } => "no selector names it".into(),
        BlockReason::Terminating => "the template is being deleted".into(),
        BlockReason::DependentOverridesMissing { policy, missing } => {
            format!(
                "{policy} waits for dependentOverrides {}",
                missing.join(", ")
            )
        }
        BlockReason::FreshMatch { winner, why } => {
            format!("{winner} wins the fresh match: {why}")
        }
        BlockReason::HolderMissing { holder } => format!("holder {holder} not found"),
    }
}

/// A priority blocker's short form with the gate off: a higher priority would not do either.
fn gate_off_short(gate: bool) -> &'static str {
    if gate {
        ""
    } else {
        "; the PropagationPolicyPreemption gate is off"
    }
}

/// What a priority blocker adds when the policy would not preempt at a higher priority either
/// (`preemption` defaults to Never, the gate is off by default, and `preemptionEnabled`,
/// pkg/detector/preemption.go:49-58, is asked before any priority is compared).
fn also_needed(preempts: bool, gate: bool) -> &'static str {
    match (preempts, gate) {
        (true, true) => "",
        (false, true) => ", and preemption: Always, which this policy does not set",
        (true, false) => ", and the PropagationPolicyPreemption feature gate, which is off",
        (false, false) => ", preemption: Always, which this policy does not set, and the PropagationPolicyPreemption feature gate, which is off",
    }
}

/// A full sentence: the preempt-check `message` and the tail of a kept-claim `why`.
pub fn block_message(b: &BlockReason) -> String {
    match b {
        BlockReason::EqualPriority { holder, ours, theirs, preempts, gate } => format!(
            "equal priority {ours} = {theirs}: will never preempt {holder} (preemption needs a strictly higher priority{})",
            also_needed(*preempts, *gate)
        ),
        BlockReason::LowerPriority { holder, ours, theirs, preempts, gate } => format!(
            "lower priority {ours} < {theirs}: cannot preempt {holder} (preemption needs a strictly higher priority{})",
            also_needed(*preempts, *gate)
        ),
        BlockReason::FeatureGateDisabled { .. } => {
            "preemption needs the feature gate PropagationPolicyPreemption=true (off by default)".into()
        }
        BlockReason::PreemptionNever { holder } => match holder {
            Some(h) => format!(
                "preemption is Never: the claim of {h} is kept even for a better policy"
            ),
            None => "preemption is Never".into(),
        },
        BlockReason::CppCannotPreemptPp { holder } => format!(
            "a ClusterPropagationPolicy never preempts a PropagationPolicy ({holder})"
        ),
        BlockReason::NotNamed {
            cpp_without_namespace: true,
            ..
        } => "its selector names the template without a namespace: the preemption fetch looks in the empty namespace and misses a namespaced template (set the selector's namespace)".into(),
        BlockReason::NotNamed { .. } => {
            "preemption only reaches templates a selector names (apiVersion, kind, namespace and name)".into()
        }
        BlockReason::Terminating => "the template is being deleted: preemption skips it".into(),
        BlockReason::DependentOverridesMissing { policy, missing } => format!(
            "{policy} waits for its missing dependentOverrides ({}): no claim meanwhile",
            missing.join(", ")
        ),
        BlockReason::FreshMatch { winner, why } => format!(
            "{winner} wins the fresh match of the unclaimed template: {why} (preemption never changes a fresh match's result)"
        ),
        BlockReason::HolderMissing { holder } => format!(
            "the claim names {holder}, which cannot be fetched: preemption fails and retries"
        ),
    }
}

/// The `why` of a candidate.
pub fn why_text(w: &Why, me: &PolicyRef) -> String {
    match w {
        Why::Owner(OwnerHow::KeptClaim) => {
            "holds the claim: a claimed template is never re-ranked".into()
        }
        Why::Owner(OwnerHow::FreshMatch) => "wins the fresh match (unclaimed): priority, then selector precision, then name; any PP before any CPP".into(),
        Why::Owner(OwnerHow::Preempted { from, ours, theirs }) => match theirs {
            Some(t) => format!("preempts {from}: priority {ours} > {t}"),
            None => format!("preempts {from}: a PP preempts a CPP whatever the priority"),
        },
        // preemption.go: a PP takes a template from a CPP regardless of priority.
        Why::PreemptedBy { by, .. }
            if by.kind == PolicyKind::PropagationPolicy
                && me.kind == PolicyKind::ClusterPropagationPolicy =>
        {
            format!("preempted by {by}: a PP preempts a CPP whatever the priority")
        }
        Why::PreemptedBy { by, ours, theirs } => {
            format!("preempted by {by}: priority {theirs} > {ours}")
        }
        Why::Terminating => "being deleted: never matched".into(),
        Why::TemplateExcluded(e) => format!("never claimed: {}", excluded_text(e)),
        Why::Outranked { by, decider, ours, theirs } => match decider {
            Decider::PpBeatsCpp => {
                if me.kind == PolicyKind::ClusterPropagationPolicy {
                    format!("loses to {by}: a matching PP always beats a CPP, whatever the priority")
                } else {
                    format!("loses to {by}") // unreachable: a PP never loses to a CPP
                }
            }
            Decider::Explicit => format!("loses on priority: {} < {} ({by})", ours.0, theirs.0),
            Decider::Implicit => format!(
                "loses on selector precision: {} vs {} ({by})",
                precision(ours.1),
                precision(theirs.1)
            ),
            Decider::Name | Decider::Same => format!(
                "loses on name order: {:?} sorts after {:?} (equal priority and precision)",
                me.name, by.name
            ),
        },
        Why::WaitsForOverrides(missing) => format!(
            "wins the match but waits for missing dependentOverrides {} (no CPP fallback)",
            missing.join(", ")
        ),
        Why::OrderDependent { winner, priority } => format!(
            "equal priority {priority} with {winner}: order-dependent, whichever preempts first wins and the other never preempts an equal priority"
        ),
        Why::ClaimKept { holder, blocker, .. } => {
            format!(
                "would win a fresh match, but the claim of {holder} is kept: {}",
                block_message(blocker)
            )
        }
    }
}

pub fn note_text(n: &Note) -> String {
    match n {
        Note::GateOff { preemptors, why } => format!(
            "preemption is off: {why}; {} {} preemption: Always and would act only with --feature-gates PropagationPolicyPreemption=true",
            list(preemptors),
            if preemptors.len() == 1 { "declares" } else { "declare" }
        ),
        Note::OverridesBlockPreemption { policy, missing } => format!(
            "{policy} does not preempt: its dependentOverrides ({}) are missing while a waiting template matches it",
            missing.join(", ")
        ),
        Note::AmbiguousPreemptors { tied, priority } => format!(
            "order-dependent: {} all preempt at priority {priority}; whichever Karmada processes first wins (shown: the first by namespace/name), the others cannot preempt an equal priority",
            list(tied)
        ),
        Note::LazyActivation { policy } => format!(
            "{policy} uses activationPreference: Lazy: the claim moves, but the binding follows only on the next change of the template"
        ),
        Note::WaitingForOverrides { policy, missing } => format!(
            "{policy} wins the match but its dependentOverrides ({}) are missing: the template stays unclaimed, with no fallback to a ClusterPropagationPolicy",
            missing.join(", ")
        ),
        Note::Excluded(e) => format!("never claimed: {}", excluded_text(e)),
        Note::StaleClaim { claimer } => format!(
            "the claim names {claimer}, which is not in the inputs: Karmada drops such a stale claim and re-matches"
        ),
        Note::ClaimerTerminating { claimer, released: true } => format!(
            "the claimer {claimer} is being deleted: its claim is released and the template re-matched"
        ),
        Note::ClaimerTerminating { claimer, released: false } => format!(
            "the claimer {claimer} is being deleted, but the claim carries another permanent-id: the deletion leaves it in place"
        ),
        Note::NoLongerMatches { claimer, released: true } => format!(
            "{claimer} no longer matches this template: a template reconcile keeps the claim; the policy's next update (or a restart) releases it"
        ),
        Note::NoLongerMatches { claimer, released: false } => format!(
            "{claimer} no longer matches this template, but its binding does not carry the claim: the claim stays"
        ),
        Note::Restamped { claimer } => format!(
            "the claim's permanent-id differs from {claimer}'s: the next reconcile re-stamps it"
        ),
        Note::UnknownClaimer { claimer } => format!(
            "{claimer} is named by the claim but not in the inputs: assumed to exist, spec unknown"
        ),
        Note::PartialClaim => {
            "the template carries incomplete claim metadata: it counts as unclaimed".into()
        }
        Note::BothClaims => "the template carries both a PP and a CPP claim: the PP claim counts and the CPP keys are stripped".into(),
        Note::NoCandidates => {
            "no policy matches: the template waits until one does".into()
        }
        Note::NamespaceSynced => format!(
            "karmada-controller-manager's namespace controller copies this Namespace to every member cluster, whatever policy claims it or what its placement excludes (pkg/controllers/namespace); the label {}: \"true\" keeps it off them",
            crate::engine::namespace_sync::SKIP_AUTO_PROPAGATION_LABEL
        ),
        Note::SchedulerNotServed { policy, name } => format!(
            "{policy} sets schedulerName `{}`, which no karmada-scheduler of this control plane serves (`--scheduler-name`, default `default-scheduler`; `schedulers:` in the configuration names others): its binding is never scheduled: what follows reaches member clusters only once a scheduler of that name runs",
            name
        ),
        Note::SelectorNeverMatches { policy, reason } => format!(
            "{policy} has a selector for this template that never matches: {reason}"
        ),
        Note::Rejected {
            policy,
            errors,
            update: false,
            copies,
        } => format!(
            "{policy}{} would match, but admission rejects it: {}",
            copies_of(*copies),
            errors.join("; ")
        ),
        Note::Rejected {
            policy,
            errors,
            update: true,
            copies: 1,
        } => format!(
            "a later copy of {policy} among the inputs would replace the one stored, but admission rejects the update: {}; the copy stored before it stays",
            errors.join("; ")
        ),
        Note::Rejected {
            policy,
            errors,
            update: true,
            copies,
        } => format!(
            "{copies} later copies of {policy} among the inputs would replace the one stored, but admission rejects each update: {}; the copy stored before it stays",
            errors.join("; ")
        ),
        Note::OverrideRejected { policy, error } => format!(
            "{policy} selects the template, but admission rejects it, so it overrides nothing: {error}"
        ),
        Note::HolderMissing { preemptor, holder } => format!(
            "{preemptor} cannot fetch the holder {holder}: its preemption fails and retries"
        ),
        Note::TemplateTerminating => "the template is being deleted: preemption skips it".into(),
    }
}

/// How many documents a note on a policy is about, when more than one.
fn copies_of(copies: usize) -> String {
    if copies > 1 {
        format!(" ({copies} documents)")
    } else {
        String::new()
    }
}

fn owner_json(r: &Option<PolicyRef>) -> Value {
    match r {
        Some(r) => serde_json::to_value(r).expect("serializable"),
        None => Value::Null,
    }
}

/// The JSON contract of `explain`.
pub fn to_json(e: &Explanation) -> Value {
    json!({
        "resource": e.resource,
        "current": owner_json(&e.current),
        "afterReconcile": owner_json(&e.after_reconcile),
        "eventual": owner_json(&e.eventual),
        "preempted": e.preempted,
        "candidates": e.candidates.iter().map(|c| json!({
            "policy": c.policy,
            "priority": c.priority,
            "match": c.implicit.as_str(),
            "rank": c.rank,
            "selected": c.selected,
            "why": why_text(&c.why, &c.policy),
        })).collect::<Vec<_>>(),
        "suspension": e.suspension.iter().map(|s| {
            let mut v = json!({"cluster": s.cluster, "suspended": s.suspended});
            if let Some(by) = s.by {
                v["by"] = json!(by.as_str());
            }
            v
        }).collect::<Vec<_>>(),
        "notes": e.notes.iter().map(note_text).collect::<Vec<_>>(),
        "requiredBy": e.required_by.iter().map(|r| json!({
            "resource": r.workload,
            "policy": r.policy,
        })).collect::<Vec<_>>(),
        "karmada": assumed_json(&e.assumed),
    })
}

/// The Karmada an answer assumes: `{"version", "featureGates": {NAME: bool}, "controllerManagerFlags":
/// {NAME: bool, "skipped-propagating-namespaces"?: [PATTERN]}}`, every gate of the release with
/// its value in effect and the flags set (the others keep Karmada's default), from
/// `--karmada-version`, `--feature-gates`, the configuration or the repository's installation,
/// as `lint` judges the same inputs.
pub fn assumed_json(gates: &GateSet) -> Value {
    let gate_values: serde_json::Map<String, Value> = gates
        .values()
        .map(|(name, on)| (name.to_string(), json!(on)))
        .collect();
    let mut flags: serde_json::Map<String, Value> = gates
        .flags()
        .iter()
        .map(|(name, f)| (name.to_string(), json!(f.value)))
        .collect();
    if let Some(skipped) = gates.flags().skipped_namespaces_set() {
        flags.insert(SKIPPED_NAMESPACES.to_string(), json!(skipped.values));
    }
    json!({
        "version": gates.version.to_string(),
        "featureGates": gate_values,
        "controllerManagerFlags": flags,
    })
}

pub fn json(e: &Explanation) -> String {
    let mut s = serde_json::to_string_pretty(&to_json(e)).expect("serializable");
    s.push('\n');
    s
}

/// A readable decision trace.
/// With `selection_unknown`, the owner's placement selects only some of the clusters listed,
/// unknown which ([`crate::engine::delivery::Delivery::selection_unknown`]), and the
/// heading says so.
pub fn text(e: &Explanation, color: bool, selection_unknown: bool) -> String {
    let paint = |s: String, f: fn(&str) -> String| if color { f(&s) } else { s };
    let bold = |s: &str| s.bold().to_string();
    let green = |s: &str| s.green().to_string();
    let dim = |s: &str| s.dimmed().to_string();
    let yellow = |s: &str| s.yellow().to_string();
    let r = &e.resource;
    let mut out = String::new();
    out.push_str(&paint(format!("{} ({})", r.titled(), r.api_version), bold));
    out.push('\n');
    let current = match &e.current {
        Some(c) => format!("{} (claim in the template's metadata)", owner_text(c)),
        None => "none (no claim in the template's metadata)".into(),
    };
    out.push_str(&format!("  current:          {current}\n"));
    out.push_str(&format!(
        "  after reconcile:  {}\n",
        opt_owner(&e.after_reconcile)
    ));
    let eventual = format!(
        "{}{}",
        opt_owner(&e.eventual),
        if e.preempted { " (preempted)" } else { "" }
    );
    out.push_str(&format!("  eventual:         {}\n", paint(eventual, green)));
    out.push('\n');
    if e.candidates.is_empty() {
        out.push_str("Candidates: none\n");
    } else {
        out.push_str(&paint("Candidates (fresh-match order):".into(), bold));
        out.push('\n');
        let names: Vec<String> = e.candidates.iter().map(|c| c.policy.to_string()).collect();
        let w = names.iter().map(String::len).max().unwrap_or(0);
        let pw = e
            .candidates
            .iter()
            .map(|c| c.priority.to_string().len())
            .max()
            .unwrap_or(1);
        for (c, name) in e.candidates.iter().zip(&names) {
            let line = format!(
                "  {}. {name:<w$}  priority {:>pw$}  match {:<13}",
                c.rank,
                c.priority,
                c.implicit.as_str(),
            );
            let line = if c.selected {
                paint(format!("{line}  selected"), green)
            } else {
                line.trim_end().to_string()
            };
            out.push_str(&line);
            out.push('\n');
            out.push_str(&format!(
                "       {}\n",
                paint(why_text(&c.why, &c.policy), dim)
            ));
        }
    }
    if !e.suspension.is_empty() {
        out.push('\n');
        let mut heading = if selection_unknown {
            "Dispatch per cluster the placement may select (which of them it selects is not known; see placement):"
        } else {
            "Dispatch per cluster:"
        }
        .to_string();
        // Suspension is the policy's, whether or not a scheduler ever places the binding.
        let unscheduled = e.notes.iter().find_map(|n| match n {
            Note::SchedulerNotServed { name, .. } => Some(name),
            _ => None,
        });
        if let Some(name) = unscheduled {
            heading = format!(
                "{} (once a scheduler named `{}` schedules the binding; see the notes):",
                heading.trim_end_matches(':'),
                name
            );
        }
        out.push_str(&paint(heading, bold));
        out.push('\n');
        let w = e
            .suspension
            .iter()
            .map(|s| s.cluster.len())
            .max()
            .unwrap_or(0);
        for s in &e.suspension {
            let state = match s.by {
                Some(by) => paint(format!("suspended (by {})", by.as_str()), yellow),
                None => "dispatching".into(),
            };
            out.push_str(&format!("  {:<w$}  {state}\n", s.cluster));
        }
    }
    if !e.required_by.is_empty() {
        out.push('\n');
        out.push_str(&paint(
            "Propagated as a dependency (propagateDeps) of:".into(),
            bold,
        ));
        out.push('\n');
        for r in &e.required_by {
            out.push_str(&format!(
                "  {}  ({} sets propagateDeps: its clusters receive this template too)\n",
                r.workload.titled(),
                r.policy
            ));
        }
    }
    if !e.notes.is_empty() {
        out.push('\n');
        out.push_str(&paint("Notes:".into(), bold));
        out.push('\n');
        for n in &e.notes {
            out.push_str(&format!("  - {}\n", note_text(n)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{block_message, why_text};
    use crate::engine::explain::Why;
    use crate::engine::simulate::BlockReason;
    use crate::model::{PolicyKind, PolicyRef};

    /// A PP takes a template from a CPP whatever their priorities: the CPP's line does not
    /// compare them.
    #[test]
    fn a_cpp_preempted_by_a_pp_is_not_said_to_rank_lower() {
        let (pp, cpp) = (
            PolicyRef::pp("default", "p-zero"),
            PolicyRef {
                kind: PolicyKind::ClusterPropagationPolicy,
                namespace: None,
                name: "c-high".into(),
            },
        );
        let why = |by: &PolicyRef, me: &PolicyRef| {
            why_text(
                &Why::PreemptedBy {
                    by: by.clone(),
                    ours: 100,
                    theirs: 0,
                },
                me,
            )
        };
        assert_eq!(
            why(&pp, &cpp),
            "preempted by pp/default/p-zero: a PP preempts a CPP whatever the priority"
        );
        assert_eq!(
            why(&pp, &PolicyRef::pp("default", "low")),
            "preempted by pp/default/p-zero: priority 0 > 100"
        );
    }

    /// A policy without `preemption: Always` would not preempt at a higher priority either:
    /// the message names both changes it needs, one when it already preempts.
    #[test]
    fn a_priority_blocker_says_when_preemption_is_not_set_either() {
        let holder = PolicyRef {
            kind: PolicyKind::PropagationPolicy,
            namespace: Some("default".into()),
            name: "old".into(),
        };
        let equal = |preempts, gate| BlockReason::EqualPriority {
            holder: holder.clone(),
            ours: 5,
            theirs: 5,
            preempts,
            gate,
        };
        assert_eq!(
            block_message(&equal(true, true)),
            "equal priority 5 = 5: will never preempt pp/default/old (preemption needs a strictly higher priority)"
        );
        assert_eq!(
            block_message(&equal(false, true)),
            "equal priority 5 = 5: will never preempt pp/default/old (preemption needs a strictly higher priority, and preemption: Always, which this policy does not set)"
        );
        // The gate is asked first (preemptionEnabled): a higher priority alone would not do.
        assert_eq!(
            block_message(&equal(true, false)),
            "equal priority 5 = 5: will never preempt pp/default/old (preemption needs a strictly higher priority, and the PropagationPolicyPreemption feature gate, which is off)"
        );
        let lower = BlockReason::LowerPriority {
            holder,
            ours: 1,
            theirs: 5,
            preempts: true,
            gate: true,
        };
        assert_eq!(
            block_message(&lower),
            "lower priority 1 < 5: cannot preempt pp/default/old (preemption needs a strictly higher priority)"
        );
    }
}
