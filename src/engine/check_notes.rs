//! What a `preempt-check` answer means beyond the claim: a Lazy new owner defers the move to the
//! template's next update (validation-suspension-failover.md §2.2, `detector.go:461-468`), and a
//! deleted policy leaves what it propagated on the member clusters (karmada#2380, #4633).

use crate::model::cluster::Cluster;
use crate::model::{Inventory, ObjectRef, OverridePolicy, PolicyRef};

use super::delivery::{ClusterChange, DeliveryChange, Received};
use super::simulate::CheckReport;
use super::state::State;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckNote {
    /// The template moves to `policy`, which is `activationPreference: Lazy`: its binding
    /// follows only when the template itself changes next.
    LazyDefers {
        resource: ObjectRef,
        policy: PolicyRef,
    },
    /// `policy` is deleted: the templates it held that no other policy claims next are
    /// released; each keeps its binding without a policy, so the member clusters keep their
    /// copies, no longer updated, until the template is deleted (and then too, when the policy
    /// set `preserveResourcesOnDeletion`: the binding keeps it). A Namespace is not among them.
    OrphanedOnDelete {
        policy: PolicyRef,
        resources: Vec<ObjectRef>,
        preserve: bool,
    },
    /// `policy` stays but no longer claims `resources` (its selectors changed), and no other
    /// policy claims them next: Karmada removes only the claim (`cleanPPUnmatchedRBs` /
    /// `removeRBsClaimMetadata`, pkg/detector/policy.go), so each keeps its binding without a
    /// policy and the member clusters keep their copies, no longer updated.
    ReleasedByChange {
        policy: PolicyRef,
        resources: Vec<ObjectRef>,
    },
    /// The template moves to `policy`, whose `schedulerName` no karmada-scheduler of the
    /// control plane serves: its binding is never scheduled, so it reaches no cluster.
    SchedulerNotServed {
        resource: ObjectRef,
        policy: PolicyRef,
        name: String,
    },
}

pub fn notes(r: &CheckReport) -> Vec<CheckNote> {
    let st = &r.world.state;
    let mut out = Vec::new();
    for c in &r.resources {
        let Some(after) = &c.after else { continue };
        if c.before.as_ref() == Some(after) {
            continue;
        }
        let Some(p) = st.find_policy(after) else {
            continue;
        };
        let resource = st.templates[c.template].reference();
        if st.policy(p).spec.lazy() {
            out.push(CheckNote::LazyDefers {
                resource: resource.clone(),
                policy: after.clone(),
            });
        }
        if let Some(name) = unserved_scheduler(st, after) {
            out.push(CheckNote::SchedulerNotServed {
                resource,
                policy: after.clone(),
                name: name.to_string(),
            });
        }
    }
    out.extend(released_by_change(r));
    for deleted in &r.world.deleted {
        // Not those an update of the same policy let go before the delete: that update's
        // claim removal released them (`cleanPPUnmatchedRBs`), so the delete holds them no
        // more ([`released_by_change`] says them).
        let held: Vec<_> = r
            .resources
            .iter()
            .filter(|c| c.before.as_ref() == Some(deleted))
            .filter(|c| !r.world.released_by_update(deleted, c.template))
            .collect();
        // A template another policy claims next keeps its binding, which the new claimer
        // updates: only those left unclaimed are orphaned (claim-and-preemption.md §6.1). A
        // Namespace stays on every cluster through the namespace controller.
        let resources: Vec<ObjectRef> = held
            .iter()
            .filter(|c| c.after.is_none())
            .filter(|c| !super::namespace_sync::synced(st, &st.templates[c.template]))
            .map(|c| st.templates[c.template].reference())
            .collect();
        if !held.is_empty() && resources.is_empty() {
            continue;
        }
        out.push(CheckNote::OrphanedOnDelete {
            policy: deleted.clone(),
            resources,
            preserve: r.world.deleted_preserving.contains(deleted),
        });
    }
    out
}

/// [`CheckNote::ReleasedByChange`]: per policy that stays, the templates it held that no policy
/// claims after (a Namespace stays everywhere through the namespace controller); and per
/// policy updated then deleted, those its update let go first (the changes apply in order).
fn released_by_change(r: &CheckReport) -> Vec<CheckNote> {
    let st = &r.world.state;
    let mut out: Vec<CheckNote> = Vec::new();
    for c in r.resources.iter().filter(|c| c.after.is_none()) {
        let Some(policy) = &c.before else { continue };
        let template = &st.templates[c.template];
        let deleted_holding =
            r.world.deleted.contains(policy) && !r.world.released_by_update(policy, c.template);
        if deleted_holding || super::namespace_sync::synced(st, template) {
            continue;
        }
        match out
            .iter_mut()
            .find(|n| matches!(n, CheckNote::ReleasedByChange { policy: p, .. } if p == policy))
        {
            Some(CheckNote::ReleasedByChange { resources, .. }) => {
                resources.push(template.reference());
            }
            _ => out.push(CheckNote::ReleasedByChange {
                policy: policy.clone(),
                resources: vec![template.reference()],
            }),
        }
    }
    out
}

/// [`State::unserved_scheduler`] of the policy `owner` names.
fn unserved_scheduler<'s>(state: &'s State, owner: &PolicyRef) -> Option<&'s str> {
    state.unserved_scheduler(state.policy(state.find_policy(owner)?))
}

/// What the delivery notes read besides the report: each template's manifest, the state
/// before the changes (the old owner's placement; the changes may update or delete it), the
/// Cluster objects and the override policies of the input.
pub struct DeliveryInputs<'a> {
    pub template: &'a dyn Fn(usize) -> Option<serde_json::Value>,
    pub before: &'a super::state::State,
    pub clusters: &'a [crate::model::cluster::Cluster],
    pub overrides: &'a [&'a crate::model::OverridePolicy],
}

/// [`delivery_changes`] from files: the manifests, Cluster objects and override policies of
/// `inv`, the owners' placements before the changes from `before`.
pub fn delivery_changes_in_files(
    r: &CheckReport,
    inv: &Inventory,
    before: &State,
) -> Vec<DeliveryChange> {
    let clusters = Cluster::from_inventory(inv);
    let overrides: Vec<&OverridePolicy> = inv.stored_overrides();
    let template = |t: usize| {
        let entry = before.templates.get(t)?;
        let json = inv.documents.get(entry.doc?)?.full_tree().to_json();
        Some(super::delivery::stored_manifest(json, &entry.namespace))
    };
    delivery_changes(
        r,
        &DeliveryInputs {
            template: &template,
            before,
            clusters: &clusters,
            overrides: &overrides,
        },
    )
}

/// For every template the changes move to another policy: which member clusters receive it
/// before and after (the owner's placement: its feasible clusters over the Cluster objects,
/// else the clusters it names) and what each receives (the override chain per cluster, which
/// depends on the template and the cluster only, not on the owner), and how many replicas each
/// cluster gets (a fresh schedule under each owner's placement, with the Cluster objects).
/// A template whose owner stays but whose owner's placement changes is reported for its
/// replicas. Reported when some cluster's share or replica count changes.
pub fn delivery_changes(r: &CheckReport, inputs: &DeliveryInputs<'_>) -> Vec<DeliveryChange> {
    if inputs.overrides.is_empty() && inputs.clusters.is_empty() {
        return Vec::new();
    }
    let st = &r.world.state;
    let mut out = Vec::new();
    for c in &r.resources {
        let Some(after) = &c.after else { continue };
        let moved = c.before.as_ref() != Some(after);
        let placement_of = |state: &super::state::State, owner: Option<&PolicyRef>| {
            owner
                .and_then(|o| state.find_policy(o))
                .map(|p| state.policy(p).spec.placement.clone().unwrap_or_default())
        };
        if !moved && placement_of(inputs.before, c.before.as_ref()) == placement_of(st, Some(after))
        {
            continue;
        }
        let Some(template) = (inputs.template)(c.template) else {
            continue;
        };
        let tpl = &st.templates[c.template];
        let deliver = |state: &super::state::State, owner: Option<&PolicyRef>| {
            // An owner no scheduler serves delivers nothing, as no owner does.
            if owner.is_some_and(|o| unserved_scheduler(state, o).is_some()) {
                return None;
            }
            let placement = placement_of(state, owner)?;
            Some(super::delivery::deliver(&super::delivery::DeliveryInput {
                template: &template,
                placement: Some(&placement),
                clusters: inputs.clusters,
                overrides: inputs.overrides,
                binding: super::placement::BindingView {
                    api_version: &tpl.api_version,
                    kind: &tpl.kind,
                    workload: super::delivery::is_workload(&template),
                    ..Default::default()
                },
                bound: None,
                chosen: &[],
                capacity: super::replicas::CapacitySource::Declared,
                traits: super::delivery::scheduler_traits(st),
                carried_to: &[],
                named_only: false,
            }))
        };
        let (before_d, after_d) = (
            deliver(inputs.before, c.before.as_ref()),
            deliver(st, Some(after)),
        );
        let shares = |d: &Option<super::delivery::Delivery>| -> Vec<(String, Received)> {
            d.as_ref()
                .map(|d| d.overrides.iter().cloned().map(received).collect())
                .unwrap_or_default()
        };
        // Without Cluster objects only a placement whose cluster names alone decide says which
        // clusters receive the template; another (a label or field selector, a spread
        // constraint, a division by capacity) is not evaluated, and no cluster can be said to
        // start or stop receiving it.
        let divides = super::delivery::divides_replicas(&template);
        let unknown = |state: &super::state::State, owner: Option<&PolicyRef>| {
            inputs.clusters.is_empty()
                && placement_of(state, owner)
                    .is_some_and(|p| !super::placement::decided_by_names(&p, divides))
        };
        // The first owner whose clusters are unknown (only an owner has a placement).
        let unknown_owner = if unknown(inputs.before, c.before.as_ref()) {
            c.before.clone()
        } else if unknown(st, Some(after)) {
            Some(after.clone())
        } else {
            None
        };
        let compared = moved && !inputs.overrides.is_empty();
        let clusters = if compared && unknown_owner.is_none() {
            compare(&shares(&before_d), &shares(&after_d))
        } else {
            Vec::new()
        };
        let unevaluated = unknown_owner.filter(|_| compared);
        let side = |d: &Option<super::delivery::Delivery>| match d {
            Some(d) => super::delivery::assignment_of(d),
            None => Some(Ok(Vec::new())),
        };
        let replicas = super::delivery::replica_shift(side(&before_d), side(&after_d));
        if !clusters.is_empty() || replicas.is_some() || unevaluated.is_some() {
            out.push(DeliveryChange {
                template: c.template,
                before: c.before.clone(),
                after: after.clone(),
                clusters,
                replicas,
                unevaluated,
            });
        }
    }
    out
}

fn received(o: super::overrides::ClusterOverrides) -> (String, Received) {
    let short = |p: &super::overrides::AppliedPolicy| match &p.namespace {
        Some(ns) => format!("op/{ns}/{}", p.name),
        None => format!("cop/{}", p.name),
    };
    let policies = o.policies.iter().map(short).collect();
    let failed_rule = o
        .error
        .as_ref()
        .and_then(|e| e.at.as_deref())
        .map(|(p, rule)| (short(p), *rule));
    (
        o.cluster,
        Received {
            policies,
            manifest: o.manifest,
            failed_rule,
            error: o.error.map(|e| e.message),
            defaulted: o.defaulted,
        },
    )
}

/// The clusters whose share differs, in the order before then after.
fn compare(before: &[(String, Received)], after: &[(String, Received)]) -> Vec<ClusterChange> {
    let mut names: Vec<&String> = before.iter().map(|(c, _)| c).collect();
    for (c, _) in after {
        if !names.contains(&c) {
            names.push(c);
        }
    }
    let find = |side: &[(String, Received)], name: &str| {
        side.iter().find(|(c, _)| c == name).map(|(_, r)| r.clone())
    };
    names
        .into_iter()
        .filter_map(|name| {
            let (b, a) = (find(before, name), find(after, name));
            (b != a).then(|| ClusterChange {
                cluster: name.clone(),
                before: b,
                after: a,
            })
        })
        .collect()
}
