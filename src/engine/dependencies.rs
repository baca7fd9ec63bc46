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
/// gate is off. One question; [`Carriers`] answers many of one state.
pub fn required_by(state: &State, t: usize) -> Vec<RequiredBy> {
    if !may_be_carried(state, t) {
        return Vec::new();
    }
    Carriers::of(state).required_by(state, t)
}

/// The workloads of one state by the dependencies they name (namespace, kind, name): plan asks
/// [`required_by`] of every template it covers, and a scan of every template for each was
/// quadratic in them.
pub struct Carriers {
    naming: std::collections::HashMap<(String, &'static str, String), Vec<usize>>,
}

impl Carriers {
    pub fn of(state: &State) -> Carriers {
        let mut naming: std::collections::HashMap<_, Vec<usize>> = Default::default();
        for (w, workload) in state.templates.iter().enumerate() {
            for d in workload.dependencies.iter().flatten() {
                let key = (workload.namespace.to_string(), d.kind, d.name.clone());
                let list = naming.entry(key).or_default();
                // A workload names a dependency once however often its pod template does.
                if list.last() != Some(&w) {
                    list.push(w);
                }
            }
        }
        Carriers { naming }
    }

    /// [`required_by`] of template `t` of `state`, the state this index was built from.
    pub fn required_by(&self, state: &State, t: usize) -> Vec<RequiredBy> {
        if !may_be_carried(state, t) {
            return Vec::new();
        }
        let tpl = &state.templates[t];
        let Some(kind) = DEPENDENCY_KINDS.iter().find(|k| **k == &*tpl.kind) else {
            return Vec::new();
        };
        let key = (tpl.namespace.to_string(), *kind, tpl.name.to_string());
        let mut out = Vec::new();
        for &w in self.naming.get(&key).into_iter().flatten() {
            if w == t {
                continue;
            }
            let Some(owner) = settle(state, w).owner else {
                continue;
            };
            if carries_dependencies(state, &owner) {
                out.push(RequiredBy {
                    workload: state.templates[w].reference(),
                    policy: owner,
                });
            }
        }
        out
    }
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
