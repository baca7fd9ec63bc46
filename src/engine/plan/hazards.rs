//! What a change does that users regret: each hazard with the facts its explanation needs (the
//! words are the renderers'). Karmada's behaviour behind each is cited where it is decided.

use crate::engine::overrides::policy_priority;
use crate::engine::state::{PolicyEntry, State};
use crate::engine::suspension::{failover_candidates, stalls, Stall, State as Suspended};
use crate::model::{ObjectRef, OverridePolicy, PolicyRef};

use super::{OwnerMove, TemplatePlan};

/// One hazard of a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hazard {
    /// A policy removed while it holds templates. Karmada only removes the claim
    /// (`detector.go` `handlePolicyDeletion`: "the relevant ResourceBinding will continue to
    /// exist until the resource template is gone"): a template another policy takes follows
    /// that policy's placement; one no policy takes keeps its binding, and the member
    /// clusters keep their copies, no longer updated from the template; a template deleted
    /// too takes its member copies with it, unless `preserveResourcesOnDeletion`
    /// (`execution_controller.go` `handleWorkDelete`).
    RemovedHolding {
        policy: PolicyRef,
        preserve: bool,
        moved: Vec<ObjectRef>,
        orphaned: Vec<ObjectRef>,
        deleted: Vec<ObjectRef>,
    },
    /// A propagation policy and an override policy that applies to what it held, removed
    /// together: the bindings stay, and the binding controller re-renders their Works
    /// without the override (`binding_controller.go` watches OverridePolicies), so a
    /// `replicas: 0` or a changed image stops applying on the member clusters
    /// (karmada-io/karmada#3873).
    RemovedWithOverride {
        policy: PolicyRef,
        overrides: Vec<String>,
        templates: Vec<ObjectRef>,
    },
    /// Suspension added to a policy with failover: failover still evicts, but the replacement
    /// cluster receives nothing while suspended (validation-suspension-failover.md §3.4).
    SuspendedWithFailover {
        policy: PolicyRef,
        stalls: Vec<String>,
    },
    /// A template that had an owner and has none after the change: its binding stays as it
    /// was and nothing propagates its changes any more.
    WithoutPolicy { template: ObjectRef, was: PolicyRef },
    /// An added or changed policy the API server refuses: the apply fails; an added one never
    /// exists, a changed one keeps its stored version.
    Refused {
        policy: PolicyRef,
        stored: bool,
        reason: String,
    },
    /// The same for an override policy: an added one never overrides, a changed one keeps its
    /// stored version (the same `policy-refused` code).
    OverrideRefused {
        policy: super::OverrideEdit,
        reason: String,
    },
    /// The same policy or override change in several environments (a shared base).
    Shared {
        subject: String,
        environments: Vec<String>,
    },
}

impl Hazard {
    /// The contract's hazard code.
    pub fn code(&self) -> &'static str {
        match self {
            Hazard::RemovedHolding { .. } => "policy-removed-holding-templates",
            Hazard::RemovedWithOverride { .. } => "policy-and-override-removed",
            Hazard::SuspendedWithFailover { .. } => "suspension-with-failover",
            Hazard::WithoutPolicy { .. } => "template-left-without-policy",
            Hazard::Refused { .. } | Hazard::OverrideRefused { .. } => "policy-refused",
            Hazard::Shared { .. } => "change-reaches-several-environments",
        }
    }
}

/// The added and changed policies and override policies admission refuses (a removed one's
/// verdict is no hazard: the deletion goes through).
pub fn refused(edits: &[super::PolicyEdit], overrides: &[super::OverrideEdit]) -> Vec<Hazard> {
    let policies = edits
        .iter()
        .filter(|e| e.edit != super::Edit::Removed)
        .filter_map(|e| {
            Some(Hazard::Refused {
                policy: e.policy.clone(),
                stored: e.stored,
                reason: e.refused.first()?.clone(),
            })
        });
    let overrides = overrides
        .iter()
        .filter(|o| o.edit != super::Edit::Removed)
        .filter_map(|o| {
            Some(Hazard::OverrideRefused {
                policy: o.clone(),
                reason: o.refused.first()?.clone(),
            })
        });
    let mut out: Vec<Hazard> = Vec::new();
    // Copies of one policy refused alike are one hazard.
    for h in policies.chain(overrides) {
        if !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

/// The removed policies that held templates at the base, each with what became of them.
pub fn removed_holding(
    removed: &[PolicyRef],
    before: &State,
    changes: &[TemplatePlan],
) -> Vec<Hazard> {
    let mut out = Vec::new();
    for r in removed {
        let Some(p) = before.find_policy(r) else {
            continue; // refused at the base: it never existed
        };
        // What the policy held and that its removal changes: a Namespace released to no policy
        // stays with the namespace controller.
        let held: Vec<&TemplatePlan> = changes
            .iter()
            .filter(|c| c.before.as_ref() == Some(r))
            .filter(|c| c.after.is_some() || c.orphaned || c.moved == OwnerMove::Deleted)
            .collect();
        if held.is_empty() {
            continue;
        }
        let of = |f: &dyn Fn(&TemplatePlan) -> bool| -> Vec<ObjectRef> {
            held.iter()
                .filter(|c| f(c))
                .map(|c| c.template.clone())
                .collect()
        };
        out.push(Hazard::RemovedHolding {
            policy: r.clone(),
            preserve: before.policy(p).spec.preserve_resources_on_deletion == Some(true),
            moved: of(&|c| c.after.is_some()),
            orphaned: of(&|c| c.orphaned),
            deleted: of(&|c| c.moved == OwnerMove::Deleted),
        });
    }
    out
}

/// A removed policy and the removed overrides that applied to a template it held.
pub fn removed_with_override(
    removed: &[PolicyRef],
    removed_overrides: &[&OverridePolicy],
    before: &State,
    changes: &[TemplatePlan],
) -> Vec<Hazard> {
    let mut out = Vec::new();
    for r in removed {
        let mut overrides = Vec::new();
        let mut templates = Vec::new();
        for c in changes.iter().filter(|c| c.before.as_ref() == Some(r)) {
            let Some(t) = before.template_of(&c.template) else {
                continue;
            };
            let target = before.templates[t].target();
            let ns_ok = |o: &OverridePolicy| {
                o.cluster_scoped || o.meta.namespace.as_deref() == Some(target.namespace)
            };
            let applying: Vec<String> = removed_overrides
                .iter()
                .filter(|o| ns_ok(o) && policy_priority(o, &target).is_some())
                .map(|o| override_name(o))
                .collect();
            if !applying.is_empty() {
                templates.push(c.template.clone());
                for a in applying {
                    if !overrides.contains(&a) {
                        overrides.push(a);
                    }
                }
            }
        }
        if !templates.is_empty() {
            out.push(Hazard::RemovedWithOverride {
                policy: r.clone(),
                overrides,
                templates,
            });
        }
    }
    out
}

/// `op/NS/NAME` or `cop/NAME`.
pub fn override_name(o: &OverridePolicy) -> String {
    match (&o.meta.namespace, o.cluster_scoped) {
        (Some(ns), false) => format!("op/{ns}/{}", o.meta.name),
        _ => format!("cop/{}", o.meta.name),
    }
}

/// Policies the change suspends (more than before) that have failover configured: what stalls
/// (cluster failover only when it runs: [`crate::model::feature_gates::GateSet::cluster_failover`]).
pub fn suspended_with_failover(
    applied: &[(PolicyRef, Option<&PolicyEntry>, &PolicyEntry)],
    cluster_failover: bool,
) -> Vec<Hazard> {
    let mut out = Vec::new();
    for (r, before, after) in applied {
        let now = Suspended::of(after.spec.suspension.as_ref());
        let was = Suspended::of(before.and_then(|b| b.spec.suspension.as_ref()));
        if now == Suspended::NotSuspended || now == was {
            continue;
        }
        let candidates = failover_candidates(&after.spec);
        let found: Vec<String> = stalls(
            &after.spec,
            &now,
            (candidates.as_deref(), cluster_failover),
            &[],
            None,
        )
        .into_iter()
        .filter(|s| {
            matches!(
                s,
                Stall::ApplicationFailover { .. } | Stall::ClusterFailover { .. }
            )
        })
        .map(|s| s.to_string())
        .collect();
        if !found.is_empty() {
            out.push(Hazard::SuspendedWithFailover {
                policy: r.clone(),
                stalls: found,
            });
        }
    }
    out
}

/// Templates that keep existing without an owner after the change, and that no workload
/// carries along as a dependency (one that does keeps propagating them: the dependencies
/// distributor's attached binding, `dependencies_distributor.go` `buildAttachedBinding`).
pub fn without_policy(changes: &[TemplatePlan]) -> Vec<Hazard> {
    changes
        .iter()
        .filter(|c| c.orphaned && c.carried_by.is_empty())
        .filter_map(|c| {
            Some(Hazard::WithoutPolicy {
                template: c.template.clone(),
                was: c.before.clone()?,
            })
        })
        .collect()
}
