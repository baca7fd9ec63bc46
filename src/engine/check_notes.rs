//! What a `preempt-check` answer means beyond the claim: a Lazy new owner defers the move to the
//! template's next update (validation-suspension-failover.md §2.2, `detector.go:461-468`), and a
//! deleted policy leaves what it propagated on the member clusters (karmada#2380, #4633).

use crate::model::{ObjectRef, PolicyRef};

use super::simulate::CheckReport;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckNote {
    /// The template moves to `policy`, which is `activationPreference: Lazy`: its binding
    /// follows only when the template itself changes next.
    LazyDefers {
        resource: ObjectRef,
        policy: PolicyRef,
    },
    /// `policy` is deleted: the templates it held are released, and their objects on the member
    /// clusters stay in place, orphaned, not removed.
    OrphanedOnDelete {
        policy: PolicyRef,
        resources: Vec<ObjectRef>,
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
        let lazy = st
            .find_policy(after)
            .is_some_and(|p| st.policy(p).spec.lazy());
        if lazy {
            out.push(CheckNote::LazyDefers {
                resource: st.templates[c.template].reference(),
                policy: after.clone(),
            });
        }
    }
    for deleted in &r.world.deleted {
        let resources: Vec<ObjectRef> = r
            .resources
            .iter()
            .filter(|c| c.before.as_ref() == Some(deleted))
            .map(|c| st.templates[c.template].reference())
            .collect();
        out.push(CheckNote::OrphanedOnDelete {
            policy: deleted.clone(),
            resources,
        });
    }
    out
}
