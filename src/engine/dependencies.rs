//! Which workloads carry a template along as a dependency (`propagateDeps`); what a workload
//! names as its dependencies is read when it is typed ([`crate::model::dependencies`]).
//!
//! With the `PropagateDeps` gate on (the default, `pkg/features/features.go`) and a binding
//! whose policy sets `propagateDeps: true`, the dependencies distributor gives every
//! dependency that exists as a template an attached ResourceBinding, required by the
//! workload's binding and scheduled to its clusters
//! (`pkg/dependenciesdistributor/dependencies_distributor.go` `handleDependentResource`,
//! `buildAttachedBinding`), whether or not a policy claims the dependency.

use crate::model::dependencies::DEPENDENCY_KINDS;
use crate::model::{ObjectRef, PolicyRef};

use super::reconcile::settle;
use super::state::State;

/// A workload that carries a template along, and the policy whose `propagateDeps` does it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequiredBy {
    pub workload: ObjectRef,
    pub policy: PolicyRef,
}

/// The workloads of `state` that carry template `t` along: they name `t` among their
/// dependencies and their eventual owner sets `propagateDeps`. Empty when the `PropagateDeps`
/// gate is off.
pub fn required_by(state: &State, t: usize) -> Vec<RequiredBy> {
    if !may_be_carried(state, t) {
        return Vec::new();
    }
    let tpl = &state.templates[t];
    let mut out = Vec::new();
    for (w, workload) in state.templates.iter().enumerate() {
        let names_it = workload.dependencies.as_deref().is_some_and(|deps| {
            deps.iter()
                .any(|d| d.kind == &*tpl.kind && d.name == *tpl.name)
        });
        if w == t || workload.namespace != tpl.namespace || !names_it {
            continue;
        }
        let Some(owner) = settle(state, w).owner else {
            continue;
        };
        if carries_dependencies(state, &owner) {
            out.push(RequiredBy {
                workload: workload.reference(),
                policy: owner,
            });
        }
    }
    out
}

/// Whether template `t` can be a dependency at all: a ConfigMap, Secret, ServiceAccount or
/// PersistentVolumeClaim, with the `PropagateDeps` gate on.
pub fn may_be_carried(state: &State, t: usize) -> bool {
    let tpl = &state.templates[t];
    state.options.gates.enabled("PropagateDeps")
        && &*tpl.api_version == "v1"
        && DEPENDENCY_KINDS.contains(&&*tpl.kind)
}

/// Whether `owner`'s bindings carry their workload's dependencies along: it sets
/// `propagateDeps` (and the gate is on).
pub fn carries_dependencies(state: &State, owner: &PolicyRef) -> bool {
    state.options.gates.enabled("PropagateDeps")
        && state
            .find_policy(owner)
            .is_some_and(|p| state.policy(p).spec.propagate_deps())
}
