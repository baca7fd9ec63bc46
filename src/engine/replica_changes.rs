//! Replica changes of a change set (`lint --base`, through `ownership`): for each template that
//! moves to another policy, or whose owner's placement changes, how many replicas each member cluster receives
//! before and after (a fresh schedule on each side, `replicas`, over the Cluster objects of
//! the inputs). Pure over two inventories; nothing without Cluster objects.

use crate::model::cluster::Cluster;
use crate::model::{Inventory, ObjectRef, PolicyRef};

use super::delivery::{assignment_of, deliver, replica_shift, DeliveryInput, ReplicaShift};
use super::placement::BindingView;
use super::replicas::CapacitySource;
use super::state::{Options, State};

/// A template whose owner moves: its reference and the owners before and after.
pub struct Move<'a> {
    pub resource: &'a ObjectRef,
    pub before: Option<&'a PolicyRef>,
    pub after: Option<&'a PolicyRef>,
}

/// The replica changes: one per move (in order; `None` when nothing changes or it cannot be
/// known), and the templates whose owner stays while its placement changes their replicas.
#[derive(Default)]
pub struct ReplicaChanges {
    pub moves: Vec<Option<ReplicaShift>>,
    pub stays: Vec<(ObjectRef, PolicyRef, ReplicaShift)>,
}

/// The replica changes of going from `base` to `head` for `moves`, and for the templates a
/// changed placement keeps.
pub fn replica_changes(
    base: &Inventory,
    head: &Inventory,
    moves: &[Move<'_>],
    options: Options,
) -> ReplicaChanges {
    let mut clusters = Cluster::from_inventory(head);
    if clusters.is_empty() {
        clusters = Cluster::from_inventory(base);
    }
    if clusters.is_empty() {
        return ReplicaChanges {
            moves: moves.iter().map(|_| None).collect(),
            stays: Vec::new(),
        };
    }
    let before = State::from_inventory(base, options.clone());
    let after = State::from_inventory(head, options);
    let sides = Sides {
        before: &before,
        after: &after,
        head,
        clusters: &clusters,
    };
    let mut out = ReplicaChanges {
        moves: moves
            .iter()
            .map(|m| {
                (m.before != m.after && m.after.is_some())
                    .then(|| sides.shift(m.resource, m.before, m.after))
                    .flatten()
            })
            .collect(),
        stays: Vec::new(),
    };
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
            if moves.iter().any(|m| *m.resource == resource) {
                continue;
            }
            if super::reconcile::settle(&after, t).owner.as_ref() != Some(&r) {
                continue;
            }
            if let Some(shift) = sides.shift(&resource, Some(&r), Some(&r)) {
                out.stays.push((resource, r.clone(), shift));
            }
        }
    }
    out
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
        let template = super::delivery::stored_manifest(
            self.head.documents.get(t.doc)?.full_tree().to_json(),
            resource.namespace.as_deref().unwrap_or(""),
        );
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
                traits: super::delivery::scheduler_traits(state),
                carried_to: &[],
                named_only: false,
            });
            assignment_of(&d)
        };
        replica_shift(
            side(self.before, owner_before),
            side(self.after, owner_after),
        )
    }
}
