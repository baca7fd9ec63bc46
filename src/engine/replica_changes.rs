//! Replica changes of a change set (`lint --base`): for each template that moves to another
//! policy, or whose owner's placement changes, how many replicas each member cluster receives
//! before and after (a fresh schedule on each side, `replicas`, over the Cluster objects of
//! the inputs). Pure over two inventories; nothing without Cluster objects.

use crate::model::cluster::Cluster;
use crate::model::{Inventory, ObjectRef, PolicyRef};

use super::delivery::{assignment_of, deliver, replica_shift, DeliveryInput, ReplicaShift};
use super::ownership::OwnershipChange;
use super::placement::BindingView;
use super::replicas::CapacitySource;
use super::state::{Options, State};

/// Fills `replicas` of the moves in `changes` and appends a "stays" change for each template
/// whose owner keeps it while its placement changes the replicas some cluster receives.
pub fn add_replica_changes(
    base: &Inventory,
    head: &Inventory,
    changes: &mut Vec<OwnershipChange>,
    options: Options,
) {
    let mut clusters = Cluster::from_inventory(head);
    if clusters.is_empty() {
        clusters = Cluster::from_inventory(base);
    }
    if clusters.is_empty() {
        return;
    }
    let before = State::from_inventory(base, options.clone());
    let after = State::from_inventory(head, options);
    let sides = Sides {
        before: &before,
        after: &after,
        head,
        clusters: &clusters,
    };
    for c in changes.iter_mut() {
        if c.before != c.after && c.after.is_some() {
            c.replicas = sides.shift(&c.resource, c.before.as_ref(), c.after.as_ref());
        }
    }
    for (_, p) in after.live_policies() {
        let r = p.reference();
        let changed = before
            .find_policy(&r)
            .is_some_and(|b| before.policy(b).spec.placement != p.spec.placement);
        if !changed {
            continue;
        }
        for (t, tpl) in after.templates.iter().enumerate() {
            let resource = tpl.reference();
            if changes.iter().any(|c| c.resource == resource) {
                continue;
            }
            if super::reconcile::settle(&after, t).owner.as_ref() != Some(&r) {
                continue;
            }
            if let Some(shift) = sides.shift(&resource, Some(&r), Some(&r)) {
                changes.push(OwnershipChange {
                    resource,
                    before: Some(r.clone()),
                    after: Some(r.clone()),
                    preempted: false,
                    blocked_by: Vec::new(),
                    environments: Vec::new(),
                    replicas: Some(shift),
                });
            }
        }
    }
}

/// Both sides of the comparison.
struct Sides<'a> {
    before: &'a State,
    after: &'a State,
    head: &'a Inventory,
    clusters: &'a [Cluster],
}

impl Sides<'_> {
    /// The replica shift of `resource` (the head's manifest) from `owner_before`'s placement at
    /// the base to `owner_after`'s at the head.
    fn shift(
        &self,
        resource: &ObjectRef,
        owner_before: Option<&PolicyRef>,
        owner_after: Option<&PolicyRef>,
    ) -> Option<ReplicaShift> {
        let t = self.head.templates().find(|t| t.reference() == *resource)?;
        let template = self.head.documents.get(t.doc)?.full_tree().to_json();
        let side = |state: &State, owner: Option<&PolicyRef>| {
            let Some(p) = owner.and_then(|o| state.find_policy(o)) else {
                return Some(Ok(Vec::new()));
            };
            let placement = state.policy(p).spec.placement.clone().unwrap_or_default();
            let d = deliver(&DeliveryInput {
                template: &template,
                placement: Some(&placement),
                clusters: self.clusters,
                overrides: &[],
                binding: BindingView {
                    api_version: &t.api_version,
                    kind: &t.kind,
                    workload: super::delivery::is_workload(&template),
                    ..BindingView::default()
                },
                bound: None,
                chosen: &[],
                capacity: CapacitySource::Declared,
                resource_modeling: true,
            });
            assignment_of(&d)
        };
        replica_shift(
            side(self.before, owner_before),
            side(self.after, owner_after),
        )
    }
}
