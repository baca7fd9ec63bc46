//! One file per rule (or per family of closely related rules): its doc, its check and its tests.

pub mod admission;
pub mod dead_policy;
pub mod duplicate_identity;
pub mod failover_gate;
pub mod input;
pub mod overlap;
pub mod overrides;
pub mod preemption;
pub mod schema;
pub mod suspension;
pub mod suspension_age;

use crate::model::{ObjectRef, Policy, POLICY_API_VERSION};

/// The `object` of a finding about a policy.
pub fn policy_object_ref(p: &Policy) -> ObjectRef {
    ObjectRef {
        api_version: POLICY_API_VERSION.to_string(),
        kind: p.kind.as_str().to_string(),
        namespace: p.meta.namespace.clone(),
        name: p.meta.name.clone(),
    }
}
