//! Renders a `plan`: the JSON contract (docs/plan.md lists every field) and the text (a summary
//! per environment, then the details: policies, templates, member clusters, hazards). The
//! markdown of a pull-request comment is in [`super::plan_markdown`].

use std::collections::BTreeMap;

use owo_colors::OwoColorize;
use serde_json::{json, Value};

use super::explain::{block_message, block_short};
use crate::engine::plan::{
    Cause, ClusterDelta, EnvPlan, Hazard, OwnerMove, Share, TemplatePlan, UndecidedBy, ANY_CLUSTER,
};
use crate::inspect::plan::OneSided;
use crate::model::{ObjectRef, PolicyRef};

/// What a plan compared, and its answer per environment: the one result of a `plan` run.
pub use crate::inspect::plan::Compared as PlanReport;

/// A name or value from the inputs as the terminal may show it: control characters escaped.
pub fn printable(s: &str) -> String {
    if s.chars().any(char::is_control) {
        s.chars().flat_map(char::escape_debug).collect()
    } else {
        s.to_string()
    }
}

fn owner(r: &Option<PolicyRef>) -> String {
    r.as_ref()
        .map_or_else(|| "no policy".into(), |p| printable(&p.to_string()))
}

fn owner_json(r: &Option<PolicyRef>) -> Value {
    r.as_ref().map_or(Value::Null, |p| {
        serde_json::to_value(p).expect("serializable")
    })
}

/// The contract's words for an owner change and its cause.
pub fn move_code(m: OwnerMove) -> (&'static str, Option<&'static str>) {
    let cause = |c: Cause| match c {
        Cause::PolicyRemoved => "policy-removed",
        Cause::SelectorsChanged => "selectors-changed",
        Cause::Other => "other",
    };
    match m {
        OwnerMove::Unchanged => ("unchanged", None),
        OwnerMove::Created => ("created", None),
        OwnerMove::Deleted => ("deleted", None),
        OwnerMove::Claimed => ("claimed", None),
        OwnerMove::Preempted => ("preempted", None),
        OwnerMove::Released(c) => ("released", Some(cause(c))),
        OwnerMove::Rematched(c) => ("rematched", Some(cause(c))),
    }
}

/// How a template's owner changes, in words: `pp/a -> pp/b (preempted)`.
pub fn owner_text(c: &TemplatePlan) -> String {
    let why = match c.moved {
        // Without an owner, a dependency goes where the workloads that carry it go.
        OwnerMove::Unchanged if c.after.is_none() && !c.carried_by.is_empty() => {
            return format!(
                "no policy; propagated as a dependency of {} (propagateDeps)",
                list(&c.carried_by)
            )
        }
        OwnerMove::Unchanged => return format!("stays with {}", owner(&c.after)),
        OwnerMove::Created if c.namespace_controller => {
            "new template; the namespace controller copies it to every member cluster".to_string()
        }
        OwnerMove::Created => "new template".to_string(),
        OwnerMove::Deleted => "template removed".to_string(),
        OwnerMove::Claimed => "claimed".to_string(),
        OwnerMove::Preempted => "preempted".to_string(),
        // The contract's word first (`released`, or `rematched`: released and taken by the
        // next match), then its cause.
        OwnerMove::Released(cause) | OwnerMove::Rematched(cause) => {
            let (word, _) = move_code(c.moved);
            match cause {
                Cause::PolicyRemoved => format!("{word}: its policy is removed"),
                Cause::SelectorsChanged => {
                    format!("{word}: its policy's selectors no longer match")
                }
                Cause::Other => word.to_string(),
            }
        }
    };
    let carried = match c.carried_by.as_slice() {
        [] => String::new(),
        workloads => format!(
            "; still propagated as a dependency of {} (propagateDeps)",
            list(workloads)
        ),
    };
    format!(
        "{} -> {} ({why}{carried})",
        owner(&c.before),
        owner(&c.after)
    )
}

/// What one cluster's share change means, in words (`gains it`, `replicas 3 -> 2`);
/// `preserved`: a lost copy stays on the cluster.
pub fn cluster_text(d: &ClusterDelta, preserved: bool) -> Vec<String> {
    let (b, a) = (&d.before, &d.after);
    let mut out = Vec::new();
    let count = |r: Option<i64>| r.map(|n| format!("{n} replica{}", plural(n as usize)));
    let movement = Movement::of(d);
    let word = movement.words();
    match (b.receives, a.receives) {
        (false, true) => out.push(with(word, count(a.replicas))),
        // A candidate on one side, certain on the other: the certain side's count.
        (true, true) if movement == Movement::MayGain => out.push(with(word, count(a.replicas))),
        (true, true) if movement == Movement::MayLose => out.push(with(word, count(b.replicas))),
        (true, false) if preserved => out.push(with(
            word,
            Some(
                count(b.replicas).map_or(String::new(), |n| n + "; ")
                    + "its copy stays: preserveResourcesOnDeletion",
            ),
        )),
        (true, false) => out.push(with(word, count(b.replicas))),
        _ => {}
    }
    if let (Some(x), Some(y)) = (b.replicas, a.replicas) {
        if x != y {
            out.push(format!("replicas {x} -> {y}"));
        }
    }
    if b.receives && a.receives && b.suspended != a.suspended {
        out.push(if a.suspended {
            "dispatching suspended".to_string()
        } else {
            "dispatching resumed".to_string()
        });
    } else if !b.receives && a.receives && a.suspended {
        out.push("suspended: nothing is dispatched".to_string());
    }
    if a.error != b.error {
        if let Some(e) = &a.error {
            out.push(format!("no Work: overrides fail: {}", printable(e)));
        }
    }
    if out.is_empty() && movement == Movement::MayChange && d.manifest.is_empty() {
        out.push(word.to_string());
    }
    let n = d.manifest.len();
    if n > 0 && !b.receives {
        out.push(format!("overrides set {n} field{}", plural(n)));
    } else if n > 0 {
        let verb = if n == 1 { "changes" } else { "change" };
        out.push(format!("{n} manifest field{} {verb}", plural(n)));
    }
    // The Work is updated, but not applied to a cluster whose dispatching stays suspended.
    if b.receives && a.receives && b.suspended && a.suspended && !out.is_empty() {
        out.push("held while dispatching is suspended".to_string());
    }
    out
}

/// How a cluster's share of a template moves, as the texts say it: a side whose clusters the
/// scheduler picks among (`undecided`) makes it a "may".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Movement {
    Gains,
    Loses,
    Changes,
    MayGain,
    MayLose,
    MayChange,
}

impl Movement {
    /// The order the member-cluster summary lists them in.
    const ALL: [Movement; 6] = [
        Movement::Gains,
        Movement::Loses,
        Movement::Changes,
        Movement::MayGain,
        Movement::MayLose,
        Movement::MayChange,
    ];

    fn of(d: &ClusterDelta) -> Movement {
        let (b, a) = (&d.before, &d.after);
        let may = d.undecided();
        match (b.receives, a.receives) {
            (false, true) if may => Movement::MayGain,
            (false, true) => Movement::Gains,
            (true, false) if may => Movement::MayLose,
            (true, false) => Movement::Loses,
            // Certain on one side, a candidate on the other.
            (true, true) if b.undecided != a.undecided => {
                if a.undecided {
                    Movement::MayLose
                } else {
                    Movement::MayGain
                }
            }
            (true, true) if b.undecided => Movement::MayChange,
            _ => Movement::Changes,
        }
    }

    /// Its words for one cluster (`gains it`).
    fn words(self) -> &'static str {
        match self {
            Movement::Gains => "gains it",
            Movement::Loses => "loses it",
            Movement::Changes => "changes",
            Movement::MayGain => "may gain it",
            Movement::MayLose => "may lose it",
            Movement::MayChange => "may change",
        }
    }

    /// Its label in the member-cluster summary (`gains TEMPLATE, ...`).
    fn label(self) -> &'static str {
        match self {
            Movement::Gains => "gains",
            Movement::Loses => "loses",
            Movement::Changes => "changes",
            Movement::MayGain => "may gain",
            Movement::MayLose => "may lose",
            Movement::MayChange => "may change",
        }
    }
}

/// `what (detail)`, or `what` without a detail.
fn with(what: &str, detail: Option<String>) -> String {
    match detail {
        Some(d) => format!("{what} ({d})"),
        None => what.to_string(),
    }
}

/// The caveats of replicas a tie-break by the template's uid decides, after and before the
/// change (one line each, where it decides anything).
pub fn otherwise_texts(c: &TemplatePlan) -> Vec<String> {
    let text = |when: &str, otherwise: &[(String, i64)]| {
        let shares: Vec<String> = otherwise
            .iter()
            .map(|(cluster, n)| format!("{} {n}", printable(cluster)))
            .collect();
        format!(
            "replicas{when}: Karmada breaks a tie between clusters by the template's uid, which the manifest does not carry; with the other parity: {}",
            shares.join(", ")
        )
    };
    [
        ("", &c.replicas_otherwise),
        (" before the change", &c.replicas_otherwise_before),
    ]
    .into_iter()
    .filter(|(_, otherwise)| !otherwise.is_empty())
    .map(|(when, otherwise)| text(when, otherwise))
    .collect()
}

/// A delta's cluster in words for template `c`: `every member cluster` where the namespace
/// controller copies it, without Cluster objects to name them; else [`delta_name`].
pub fn template_delta_name(c: &TemplatePlan, d: &ClusterDelta) -> String {
    if c.namespace_controller && d.cluster == ANY_CLUSTER && d.except.is_empty() {
        "every member cluster".to_string()
    } else {
        delta_name(d)
    }
}

/// A delta's cluster in words: `every selected cluster but dc1` for the clusters of a
/// placement of every cluster that the other side does not name.
pub fn delta_name(d: &ClusterDelta) -> String {
    match d.except.as_slice() {
        [] => cluster_name(&d.cluster),
        names => format!(
            "every selected cluster but {}",
            names
                .iter()
                .map(|n| printable(n))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

pub fn cluster_name(c: &str) -> String {
    if c == ANY_CLUSTER {
        "every selected cluster".to_string()
    } else {
        printable(c)
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn list(items: &[ObjectRef]) -> String {
    items
        .iter()
        .map(|t| printable(&t.to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A hazard explained in one paragraph.
pub fn hazard_message(h: &Hazard) -> String {
    match h {
        Hazard::RemovedHolding {
            policy,
            preserve,
            moved,
            orphaned,
            deleted,
        } => removed_holding_message(policy, *preserve, [moved, orphaned, deleted]),
        Hazard::RemovedWithOverride {
            policy,
            overrides,
            templates,
        } => format!(
            "{policy} and {} are removed together: Karmada keeps the bindings of {} and renders their Works again without the override, so what it set (a `replicas: 0`, an image) stops applying on the member clusters (karmada-io/karmada#3873). Remove the templates first, or keep the override until they are gone.",
            overrides.join(", "),
            list(templates)
        ),
        Hazard::SuspendedWithFailover { policy, stalls } => format!(
            "{policy} is suspended while it has failover: {}",
            stalls.join("; ")
        ),
        Hazard::WithoutPolicy { template, was } => format!(
            "{} is left without a policy (it was {was}'s): its binding stays as it was, the member clusters keep their copies, and changes to the template no longer reach them.",
            printable(&template.to_string())
        ),
        Hazard::OverrideRefused { policy, reason } => format!(
            "{} is refused by the API server ({}): applying the change fails there, and {}.",
            printable(&policy.short_name()),
            printable(reason),
            if policy.stored {
                "the control plane keeps the version it stores"
            } else {
                "the override policy never exists, so it overrides nothing"
            }
        ),
        Hazard::Refused {
            policy,
            stored,
            reason,
        } => format!(
            "{policy} is refused by the API server ({}): applying the change fails there, and {}.",
            printable(reason),
            if *stored {
                "the control plane keeps the version it stores"
            } else {
                "the policy never exists, so it claims nothing"
            }
        ),
        Hazard::Shared {
            subject,
            environments,
        } => format!(
            "{} in {} environments ({}): one edit to a file or base they share (or the same edit in each) reaches all of them; check each environment's plan.",
            printable(subject),
            environments.len(),
            environments.join(", ")
        ),
    }
}

/// What becomes of the member clusters' copies when the template is deleted later ("those
/// copies ..."): the binding carries its policy's `preserveResourcesOnDeletion`
/// (`execution_controller.go` `handleWorkDelete`). Said alike by plan and preempt-check.
pub fn copies_when_deleted(preserve: bool) -> &'static str {
    if preserve {
        "are kept (preserveResourcesOnDeletion: true)"
    } else {
        "are deleted with it (no preserveResourcesOnDeletion)"
    }
}

fn removed_holding_message(
    policy: &PolicyRef,
    preserve: bool,
    parts: [&Vec<ObjectRef>; 3],
) -> String {
    let [moved, orphaned, deleted] = parts;
    let mut out = format!(
        "{policy} is removed while it holds {} template{}; Karmada removes only its claim.",
        moved.len() + orphaned.len() + deleted.len(),
        plural(moved.len() + orphaned.len() + deleted.len())
    );
    if !moved.is_empty() {
        out.push_str(&format!(
            " {} move{} to another policy, whose schedule decides which clusters keep {} (see {} line{} under Templates).",
            list(moved),
            if moved.len() == 1 { "s" } else { "" },
            if moved.len() == 1 { "it" } else { "them" },
            if moved.len() == 1 { "its" } else { "their" },
            if moved.len() == 1 { "" } else { "s" },
        ));
    }
    let kept = copies_when_deleted(preserve);
    if !orphaned.is_empty() {
        out.push_str(&format!(
            " {} keep{} the binding without a policy: the member clusters keep their copies, no longer updated; when the template is deleted later, those copies {kept}.",
            list(orphaned),
            if orphaned.len() == 1 { "s" } else { "" }
        ));
    }
    if !deleted.is_empty() {
        out.push_str(&format!(
            " {} {} removed too: the copies on the member clusters {kept}.",
            list(deleted),
            if deleted.len() == 1 { "is" } else { "are" }
        ));
    }
    out
}

/// Counts of one environment's plan, for the summaries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub policies: BTreeMap<&'static str, usize>,
    pub overrides: BTreeMap<&'static str, usize>,
    /// Templates the change adds or removes: not owner changes, as `lint --base` counts them.
    pub created: usize,
    pub deleted: usize,
    pub owner_changes: usize,
    pub blocked: usize,
    /// Templates whose schedule fails after the change where their binding keeps its clusters.
    pub unscheduled: usize,
    pub delivery_changes: usize,
    /// Per member cluster: templates gained, lost, and with another share (manifest,
    /// replicas, suspension).
    pub clusters: BTreeMap<String, (usize, usize, usize)>,
    pub hazards: usize,
}

impl Counts {
    pub fn of(p: &EnvPlan) -> Counts {
        let mut c = Counts {
            hazards: p.hazards.len(),
            ..Counts::default()
        };
        for e in &p.policies {
            *c.policies.entry(e.edit.as_str()).or_default() += 1;
        }
        for o in &p.overrides {
            *c.overrides.entry(o.edit.as_str()).or_default() += 1;
        }
        for t in &p.changes {
            if t.moved == OwnerMove::Created {
                c.created += 1;
            } else if t.moved == OwnerMove::Deleted {
                c.deleted += 1;
            } else if t.before != t.after {
                c.owner_changes += 1;
            } else if !t.blocked_by.is_empty() {
                c.blocked += 1;
            } else if t.clusters.is_empty() && t.unschedulable.is_some() {
                c.unscheduled += 1;
            } else {
                c.delivery_changes += 1;
            }
            // Certain gains and losses; a "may" is another change.
            for d in &t.clusters {
                let e = c.clusters.entry(template_delta_name(t, d)).or_default();
                match Movement::of(d) {
                    Movement::Gains => e.0 += 1,
                    Movement::Loses => e.1 += 1,
                    _ => e.2 += 1,
                }
            }
        }
        c
    }

    /// `1 added, 2 changed` (propagation policies), or empty.
    pub fn policies_text(&self) -> String {
        edits(&self.policies)
    }

    /// `1 removed` (override policies), or empty.
    pub fn overrides_text(&self) -> String {
        edits(&self.overrides)
    }

    /// `1 new, 2 change owner, 1 blocked, 1 not scheduled, 1 delivered differently`.
    pub fn templates_text(&self) -> String {
        let mut parts = Vec::new();
        if self.created > 0 {
            parts.push(format!("{} new", self.created));
        }
        if self.deleted > 0 {
            parts.push(format!("{} removed", self.deleted));
        }
        if self.owner_changes > 0 {
            parts.push(format!("{} change owner", self.owner_changes));
        }
        if self.blocked > 0 {
            parts.push(format!("{} blocked", self.blocked));
        }
        if self.unscheduled > 0 {
            parts.push(format!("{} not scheduled", self.unscheduled));
        }
        if self.delivery_changes > 0 {
            parts.push(format!("{} delivered differently", self.delivery_changes));
        }
        parts.join(", ")
    }

    /// `member1 +1 -1 ~2` per cluster (gains, losses, other changes).
    pub fn clusters_text(&self) -> String {
        self.clusters
            .iter()
            .map(|(name, (g, l, o))| {
                let mut s = name.clone();
                for (n, sign) in [(g, "+"), (l, "-"), (o, "~")] {
                    if *n > 0 {
                        s.push_str(&format!(" {sign}{n}"));
                    }
                }
                s
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn edits(counts: &BTreeMap<&'static str, usize>) -> String {
    counts
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

// ---- JSON ----

/// The JSON contract of `plan` (docs/plan.md).
pub fn to_json(r: &PlanReport) -> Value {
    let envs: Vec<Value> = r
        .environments
        .iter()
        .map(|(name, p)| {
            let mut env = env_json(name, p);
            env["unrendered"] = json!(r.unrendered_in(name));
            env["onlyIn"] = json!(r.one_sided(name).map(side_code));
            env
        })
        .collect();
    json!({
        "from": r.from,
        "to": r.to,
        "environments": envs,
        "summary": {
            "environments": r.environments.len(),
            "changed": r.environments.iter().filter(|(_, p)| p.has_changes()).count(),
            "notCompared": r.unrendered.len(),
            "templates": r.environments.iter().map(|(_, p)| p.changes.len()).sum::<usize>(),
            "hazards": r.environments.iter().map(|(_, p)| p.hazards.len()).sum::<usize>(),
        },
    })
}

fn env_json(name: &str, p: &EnvPlan) -> Value {
    json!({
        "name": name,
        "policies": p.policies.iter().map(|e| json!({
            "policy": e.policy,
            "change": e.edit.as_str(),
            "admission": {"admitted": e.refused.is_empty(), "errors": e.refused},
        })).collect::<Vec<_>>(),
        "overrides": p.overrides.iter().map(|o| json!({
            "kind": o.kind(),
            "namespace": o.namespace,
            "name": o.name,
            "change": o.edit.as_str(),
            "admission": {"admitted": o.refused.is_empty(), "errors": o.refused},
        })).collect::<Vec<_>>(),
        "changes": p.changes.iter().map(change_json).collect::<Vec<_>>(),
        "hazards": p.hazards.iter().map(hazard_json).collect::<Vec<_>>(),
    })
}

fn change_json(c: &TemplatePlan) -> Value {
    let (change, cause) = move_code(c.moved);
    json!({
        "template": c.template,
        "owner": {
            "before": owner_json(&c.before),
            "after": owner_json(&c.after),
            "change": change,
            "cause": cause,
        },
        "blockedBy": c.blocked_by.iter().map(|b| json!({
            "policy": b.policy,
            "reason": b.reason.code(),
            "message": block_message(&b.reason),
        })).collect::<Vec<_>>(),
        "excluded": c.excluded.iter().map(|(cluster, reason)| json!({
            "cluster": cluster,
            "reason": reason,
        })).collect::<Vec<_>>(),
        "unschedulable": c.unschedulable,
        "replicasOtherwise": c.replicas_otherwise.iter().map(|(cluster, replicas)| json!({
            "cluster": cluster,
            "replicas": replicas,
        })).collect::<Vec<_>>(),
        "replicasOtherwiseBefore": c.replicas_otherwise_before.iter().map(|(cluster, replicas)| json!({
            "cluster": cluster,
            "replicas": replicas,
        })).collect::<Vec<_>>(),
        "orphaned": c.orphaned,
        "carriedBy": c.carried_by,
        "preserveResourcesOnDeletion": c.preserved,
        "namespaceController": c.namespace_controller,
        "lazyActivation": c.lazy,
        "undecidedBy": undecided_by_json(c),
        "clusters": c.clusters.iter().map(|d| json!({
            "cluster": d.cluster,
            "except": d.except,
            "before": share_json(&d.before),
            "after": share_json(&d.after),
            "manifest": d.manifest.iter().map(|f| json!({
                "path": f.path,
                "before": f.before,
                "after": f.after,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// Why a cluster of the template is `undecided` (the `may:` line), or null where none is.
fn undecided_by_json(c: &TemplatePlan) -> Value {
    if !c.clusters.iter().any(ClusterDelta::undecided) {
        return Value::Null;
    }
    json!(match c.undecided_by {
        UndecidedBy::NoClusterObjects => "no-cluster-objects",
        UndecidedBy::UndeclaredState => "undeclared-cluster-state",
        UndecidedBy::UidTie => "uid-tie",
        UndecidedBy::EarlierSchedule => "earlier-schedule",
    })
}

fn share_json(s: &Share) -> Value {
    json!({
        "receives": s.receives,
        "undecided": s.undecided,
        "replicas": s.replicas,
        "suspended": s.suspended,
        "error": s.error,
    })
}

/// The policy, templates and environments a hazard is about (empty where none).
pub fn hazard_subjects(h: &Hazard) -> (Option<&PolicyRef>, Vec<&ObjectRef>, &[String]) {
    match h {
        Hazard::RemovedHolding {
            policy,
            moved,
            orphaned,
            deleted,
            ..
        } => (
            Some(policy),
            moved.iter().chain(orphaned).chain(deleted).collect(),
            &[],
        ),
        Hazard::RemovedWithOverride {
            policy, templates, ..
        } => (Some(policy), templates.iter().collect(), &[]),
        Hazard::SuspendedWithFailover { policy, .. } => (Some(policy), Vec::new(), &[]),
        Hazard::WithoutPolicy { template, was } => (Some(was), vec![template], &[]),
        Hazard::Refused { policy, .. } => (Some(policy), Vec::new(), &[]),
        Hazard::OverrideRefused { .. } => (None, Vec::new(), &[]),
        Hazard::Shared { environments, .. } => (None, Vec::new(), environments),
    }
}

fn hazard_json(h: &Hazard) -> Value {
    let (policy, templates, environments) = hazard_subjects(h);
    // An override policy in the OWNER shape a policy has.
    let policy = match h {
        Hazard::OverrideRefused { policy: o, .. } => match &o.namespace {
            Some(namespace) => json!({"kind": o.kind(), "namespace": namespace, "name": o.name}),
            None => json!({"kind": o.kind(), "name": o.name}),
        },
        _ => json!(policy),
    };
    json!({
        "hazard": h.code(),
        "message": hazard_message(h),
        "policy": policy,
        "templates": templates,
        "environments": environments,
    })
}

// ---- text ----

/// The text: what was compared, a summary line per environment, then each environment's
/// details.
pub fn text(r: &PlanReport, color: bool) -> String {
    let bold = |s: &str| {
        if color {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    };
    let mut out = format!("Plan: {} -> {}\n\n", printable(&r.from), printable(&r.to));
    out.push_str(&bold("Summary:"));
    out.push('\n');
    let width = r
        .environments
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    for (name, p) in &r.environments {
        out.push_str(&format!(
            "  {:width$}  {}\n",
            printable(name),
            summary_line(p, r.unrendered_in(name)) + one_sided_text(r.one_sided(name))
        ));
    }
    if r.environments.is_empty() {
        out.push_str("  no Karmada API server in either revision: nothing to plan\n");
    }
    let shared = shared_hazards(r);
    if !shared.is_empty() {
        out.push('\n');
        out.push_str(&bold("Across environments:"));
        out.push('\n');
        for h in &shared {
            out.push_str(&format!(
                "  {}: {}\n",
                hazard_code(h, color),
                hazard_message(h)
            ));
        }
    }
    for (name, p) in &r.environments {
        let unrendered = r.unrendered_in(name);
        if !p.has_changes() && unrendered.is_empty() {
            continue;
        }
        out.push('\n');
        out.push_str(&bold(&format!("== {} ==", printable(name))));
        out.push('\n');
        out.push_str(&env_text(p, color));
        out.push_str(&unrendered_text(unrendered));
    }
    out
}

/// The roots of an environment that did not render, whose objects the plan could not compare
/// (their findings, in `lint`, say why).
fn unrendered_text(roots: &[String]) -> String {
    if roots.is_empty() {
        return String::new();
    }
    let mut out = String::from("Not compared (did not render; `lint` says why):\n");
    for r in roots {
        out.push_str(&format!("  {}\n", printable(r)));
    }
    out
}

/// The changes several environments share, each once (every environment it reaches holds the
/// same hazard): a loose file judged with every chart of a repository would otherwise repeat
/// each of its policies in every environment's list.
fn shared_hazards(r: &PlanReport) -> Vec<&Hazard> {
    let mut out: Vec<&Hazard> = Vec::new();
    for h in r.environments.iter().flat_map(|(_, p)| &p.hazards) {
        if matches!(h, Hazard::Shared { .. }) && !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

fn hazard_code(h: &Hazard, color: bool) -> String {
    code_text(h.code(), color)
}

fn code_text(code: &str, color: bool) -> String {
    if color {
        code.red().bold().to_string()
    } else {
        code.to_string()
    }
}

/// The contract's word for the one side an environment is on.
fn side_code(side: OneSided) -> &'static str {
    match side {
        OneSided::Base | OneSided::BaseLeftInPlace => "base",
        OneSided::Head => "head",
    }
}

/// An environment's summary suffix when it is on one side only: a base-only environment with
/// nothing Karmada acts on is still not the same as one that stays.
pub fn one_sided_text(side: Option<OneSided>) -> &'static str {
    match side {
        Some(OneSided::Base) => " (environment removed)",
        Some(OneSided::BaseLeftInPlace) => " (no Application deploys here any more: left as it is)",
        Some(OneSided::Head) => " (new environment)",
        None => "",
    }
}

fn summary_line(p: &EnvPlan, unrendered: &[String]) -> String {
    let line = changes_line(p);
    match unrendered.len() {
        0 => line,
        n if !p.has_changes() => format!("not compared: {} did not render", roots(n)),
        n => format!("{line}; not compared: {} did not render", roots(n)),
    }
}

fn roots(n: usize) -> String {
    match n {
        1 => "a root".to_string(),
        n => format!("{n} roots"),
    }
}

fn changes_line(p: &EnvPlan) -> String {
    if !p.has_changes() {
        return "no change".to_string();
    }
    let c = Counts::of(p);
    let mut parts = Vec::new();
    let policies = c.policies_text();
    if !policies.is_empty() {
        parts.push(format!("policies: {policies}"));
    }
    let overrides = c.overrides_text();
    if !overrides.is_empty() {
        parts.push(format!("overrides: {overrides}"));
    }
    let templates = c.templates_text();
    if !templates.is_empty() {
        parts.push(format!("templates: {templates}"));
    }
    if c.hazards > 0 {
        parts.push(format!("{} hazard{}", c.hazards, plural(c.hazards)));
    }
    parts.join("; ")
}

fn env_text(p: &EnvPlan, color: bool) -> String {
    let mut out = String::new();
    if !p.policies.is_empty() || !p.overrides.is_empty() {
        out.push_str("Policies:\n");
        for l in p.edit_lines() {
            let verdict = if l.refused.is_empty() {
                String::new()
            } else {
                format!(
                    " (refused by admission, {}: {})",
                    l.effect,
                    printable(&l.refused.join("; "))
                )
            };
            out.push_str(&format!(
                "  {:8} {}{verdict}\n",
                l.edit.as_str(),
                printable(&l.name)
            ));
        }
    }
    if !p.changes.is_empty() {
        out.push_str("Templates:\n");
        for c in &p.changes {
            out.push_str(&template_text(c, color));
        }
    }
    let clusters = clusters_text(p);
    if !clusters.is_empty() {
        out.push_str("Member clusters:\n");
        out.push_str(&clusters);
    }
    if !p.hazards.is_empty() {
        out.push_str("Hazards:\n");
        let mut shared = Vec::new();
        let mut shared_code = "";
        for h in &p.hazards {
            match h {
                Hazard::Shared { subject, .. } => {
                    shared_code = h.code();
                    shared.push(printable(subject));
                }
                _ => out.push_str(&format!(
                    "  {}: {}\n",
                    hazard_code(h, color),
                    hazard_message(h)
                )),
            }
        }
        if !shared.is_empty() {
            out.push_str(&format!(
                "  {}: {} (see \"Across environments\")\n",
                code_text(shared_code, color),
                shared.join(", ")
            ));
        }
    }
    out
}

/// Why some of the template's clusters only may change (the `may:` line), where they do and no
/// other line says it: the sentence, and a short form for the markdown comment, which repeats
/// it under every such template.
pub fn may_text(c: &TemplatePlan) -> Option<[&'static str; 2]> {
    let d = c.clusters.iter().find(|d| d.undecided())?;
    if d.cluster == ANY_CLUSTER {
        return Some([
            "the scheduler picks among the clusters the placement selects by their labels or \
             state (a division of the replicas, spread constraints, affinity terms tried in \
             turn), which the inputs do not give (no Cluster objects)",
            "the scheduler's choice; no Cluster objects",
        ]);
    }
    match c.undecided_by {
        // The replicas line says what the uid decides.
        UndecidedBy::UidTie => None,
        UndecidedBy::UndeclaredState => Some([
            "the scheduler picks among the clusters past its filters by their available \
             replicas (spread constraints, a division of the replicas), which the Cluster \
             objects do not declare (no status.resourceSummary)",
            "the scheduler's choice; the Cluster objects declare no status.resourceSummary",
        ]),
        UndecidedBy::EarlierSchedule => Some([
            "the schedule before the change fails without a FitError, so the binding keeps \
             the clusters an earlier schedule gave it (if any), which the inputs do not show",
            "the binding's clusters before; its schedule fails without a FitError",
        ]),
        UndecidedBy::NoClusterObjects => Some([
            "the scheduler picks among the named clusters by their labels or state (spread \
             constraints, available replicas), which the inputs do not give (no Cluster \
             objects)",
            "the scheduler's choice; no Cluster objects",
        ]),
    }
}

/// For a template whose binding waits for its next update ([`TemplatePlan::lazy`]): what the
/// cluster lines under it mean.
pub fn lazy_text(c: &TemplatePlan) -> Option<String> {
    if !c.lazy {
        return None;
    }
    let until = if c.before.is_some() {
        "until then its binding keeps the clusters it has"
    } else {
        "until then it has no binding and reaches no cluster"
    };
    Some(format!(
        "later: {} is activationPreference: Lazy, so the clusters below follow only when the \
         template is next updated; {until}",
        owner(&c.after)
    ))
}

fn template_text(c: &TemplatePlan, color: bool) -> String {
    let line = format!(
        "  {}: {}",
        printable(&c.template.to_string()),
        owner_text(c)
    );
    let mut out = if color && c.before != c.after {
        line.green().to_string()
    } else {
        line
    };
    out.push('\n');
    for b in &c.blocked_by {
        out.push_str(&format!(
            "    not taken by {} ({}): {}\n",
            b.policy,
            b.reason.code(),
            block_short(&b.reason)
        ));
    }
    if let Some(e) = &c.unschedulable {
        out.push_str(&format!("    not scheduled: {}\n", printable(e)));
    }
    for line in otherwise_texts(c) {
        out.push_str(&format!("    {line}\n"));
    }
    for (cluster, why) in &c.excluded {
        out.push_str(&format!(
            "    {}: not a target: {}\n",
            printable(cluster),
            printable(why)
        ));
    }
    if let Some([why, _]) = may_text(c) {
        out.push_str(&format!("    may: {why}\n"));
    }
    if let Some(later) = lazy_text(c) {
        out.push_str(&format!("    {later}\n"));
    }
    for d in &c.clusters {
        let what = cluster_text(d, c.preserved);
        out.push_str(&format!(
            "    {}: {}\n",
            template_delta_name(c, d),
            what.join(", ")
        ));
        for f in &d.manifest {
            out.push_str(&format!(
                "      {}: {} -> {}\n",
                printable(&f.path),
                value_text(f.before.as_ref()),
                value_text(f.after.as_ref())
            ));
        }
    }
    out
}

/// A manifest value as compact JSON (`(none)` when absent), at most 120 characters.
pub fn value_text(v: Option<&Value>) -> String {
    let Some(v) = v else {
        return "(none)".to_string();
    };
    let s = serde_json::to_string(v).expect("serializable");
    if s.chars().count() > 120 {
        let cut: String = s.chars().take(117).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// Per member cluster: the templates it gains and loses, and those it receives differently.
fn clusters_text(p: &EnvPlan) -> String {
    let mut per: BTreeMap<String, [Vec<String>; Movement::ALL.len()]> = BTreeMap::new();
    for c in &p.changes {
        for d in &c.clusters {
            let slot = Movement::ALL
                .iter()
                .position(|m| *m == Movement::of(d))
                .expect("every movement is listed");
            // A Lazy owner's clusters change only on the template's next update.
            let later = if c.lazy { " (on its next update)" } else { "" };
            per.entry(template_delta_name(c, d)).or_default()[slot]
                .push(format!("{}{later}", printable(&c.template.to_string())));
        }
    }
    let mut out = String::new();
    for (name, slots) in per {
        let parts: Vec<String> = Movement::ALL
            .iter()
            .zip(slots)
            .filter(|(_, items)| !items.is_empty())
            .map(|(m, items)| format!("{} {}", m.label(), items.join(", ")))
            .collect();
        out.push_str(&format!("  {name}: {}\n", parts.join("; ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A template moving to another policy keeps the clusters that policy's schedule gives it
    /// (all it has, where that schedule fails without a FitError): said without presuming that
    /// it drops any, nor which (its own lines say which clusters change).
    #[test]
    fn a_removed_policy_whose_templates_move_says_who_keeps_them() {
        let deploy = |name: &str| ObjectRef {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            namespace: Some("demo".into()),
            name: name.into(),
        };
        let moved = vec![deploy("web")];
        let none = Vec::new();
        let message =
            removed_holding_message(&PolicyRef::pp("demo", "old"), false, [&moved, &none, &none]);
        assert_eq!(
            message,
            "pp/demo/old is removed while it holds 1 template; Karmada removes only its claim. deployment/demo/web moves to another policy, whose schedule decides which clusters keep it (see its line under Templates)."
        );
    }

    /// A cluster that is one the scheduler picks among on one side and certain on the other
    /// may gain (or lose) the certain side's replicas: the count is said.
    #[test]
    fn a_candidate_made_certain_may_gain_the_certain_count() {
        let share = |undecided: bool, replicas: Option<i64>| Share {
            receives: true,
            undecided,
            replicas,
            ..Share::default()
        };
        let delta = |before: Share, after: Share| ClusterDelta {
            cluster: "m1".into(),
            before,
            after,
            manifest: Vec::new(),
            except: Vec::new(),
        };
        let gains = delta(share(true, None), share(false, Some(6)));
        assert_eq!(
            cluster_text(&gains, false),
            vec!["may gain it (6 replicas)"]
        );
        let loses = delta(share(false, Some(2)), share(true, None));
        assert_eq!(
            cluster_text(&loses, false),
            vec!["may lose it (2 replicas)"]
        );
    }
}
