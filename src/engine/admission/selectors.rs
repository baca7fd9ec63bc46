//! The spec-level checks after placement and failover (validation-suspension-failover.md §1.2):
//! selector namespaces (N1), preemption needs names (R1) and suspension (S1).

use super::placement::cannot;
use super::render::{go_quote, json_of};
use super::Violation;
use crate::model::policy::{PropagationSpec, ResourceSelector, Suspension};
use crate::model::KarmadaVersion;
use crate::source::FieldPath;

/// N1 (validation.go:57-69), also used by `ValidateOverrideSpec` (§1.7): with a non-empty
/// policy namespace, every selector must name that namespace. The mutating webhook fills empty
/// ones first (M1), so only an explicit mismatch reaches this check. The webhook passes `""`
/// for cluster-scoped policies, which skips it.
pub(super) fn validate_selector_namespaces(
    selectors: &[ResourceSelector],
    policy_namespace: &str,
    out: &mut Vec<Violation>,
) {
    if policy_namespace.is_empty() {
        return;
    }
    for (i, rs) in selectors.iter().enumerate() {
        if rs.namespace != policy_namespace {
            out.push(Violation::new(
                "selector-namespace-mismatch",
                FieldPath::parse("spec.resourceSelectors")
                    .index(i)
                    .key("namespace"),
                Some(go_quote(&rs.namespace)),
                "namespace of resource selector must be the same as the namespace of the policy",
            ));
        }
    }
}

/// R1 (validation.go:72-84): `preemption: Always` needs a `name` on every selector; a
/// `labelSelector` does not count. 1.10 words it "can not" (see [`cannot`]).
pub(super) fn validate_preemption_names(
    spec: &PropagationSpec,
    version: KarmadaVersion,
    out: &mut Vec<Violation>,
) {
    if !spec.preemption_always() {
        return;
    }
    for (i, rs) in spec.resource_selectors.iter().enumerate() {
        if rs.name.is_empty() {
            out.push(Violation::new(
                "preemption-requires-name",
                FieldPath::parse("spec.resourceSelectors").index(i).key("name"),
                Some(go_quote(&rs.name)),
                format!(
                    "name {} be empty if preemption is Always, the empty name may cause unexpected resources preemption",
                    cannot(version)
                ),
            ));
        }
    }
}

/// S1 (validation.go:86-99), the only suspension rule. The field path really is
/// `spec.suspension.suspension` (`fldPath.Child("suspension")` on a path that already ends in
/// `suspension`), and the value is the whole suspension as JSON.
pub(super) fn validate_suspension(suspension: Option<&Suspension>, out: &mut Vec<Violation>) {
    let Some(s) = suspension else {
        return;
    };
    if s.dispatching == Some(true) && !s.suspended_clusters().is_empty() {
        out.push(Violation::new(
            "suspension-exclusive",
            FieldPath::parse("spec.suspension.suspension"),
            Some(json_of(s)),
            "suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames",
        ));
    }
}
