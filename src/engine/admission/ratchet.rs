//! CRD validation ratcheting on UPDATE (admission-chain.md §5.4): `CRDValidationRatcheting`,
//! on by default from Kubernetes 1.30 and GA from 1.33, makes the schema errors of a value the
//! update leaves as stored warnings, not refusals.
//!
//! kubernetes/apiextensions-apiserver `pkg/apiserver/validation/ratcheting.go`
//! (`ratchetingValueValidator.Validate`): a node's errors are dropped when the node is
//! `CachedDeepEqual` to its correlated old value. Correlation
//! (kubernetes/apiserver `pkg/cel/common/equality.go`, `Key`, `Index`,
//! `correlateOldValueForChildAtNewIndex`) follows object keys present on both sides; list items
//! correlate only in `x-kubernetes-list-type: map` lists, and every list of the policy CRDs is
//! atomic, so an error inside a list is judged on the whole list. A `required` error is raised
//! by the object that lacks the field.

use serde_json::Value as Json;

use crate::schema;
use crate::source::{FieldPath, Seg};

/// The node whose equality with the stored value ratchets an error at `field` of `rule`: the
/// object holding a missing required field, else the field; cut before the first list index.
fn anchor(rule: &str, field: &FieldPath) -> FieldPath {
    let segs: &[Seg] = if rule == schema::REQUIRED {
        field.0.split_last().map_or(&[], |(_, parent)| parent)
    } else {
        &field.0
    };
    let keys = segs
        .iter()
        .position(|s| matches!(s, Seg::Index(_)))
        .unwrap_or(segs.len());
    FieldPath(segs[..keys].to_vec())
}

/// The value at `path`, if the document has one there.
pub(super) fn value_at<'a>(object: &'a Json, path: &FieldPath) -> Option<&'a Json> {
    path.0.iter().try_fold(object, |node, seg| match seg {
        Seg::Key(k) => node.get(k.as_str()),
        Seg::Index(i) => node.get(*i),
    })
}

/// Whether the schema error of `rule` at `field` of the updated `object` is ratcheted against
/// `stored`.
pub fn is_ratcheted(rule: &str, field: &FieldPath, object: &Json, stored: &Json) -> bool {
    let at = anchor(rule, field);
    match (value_at(object, &at), value_at(stored, &at)) {
        (Some(new), Some(old)) => new == old,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A schema error: its rule and field.
    struct Error(&'static str, FieldPath);

    fn refusal(rule: &'static str, field: &str) -> Error {
        Error(rule, FieldPath::parse(field))
    }

    fn is_ratcheted(e: &Error, object: &Json, stored: &Json) -> bool {
        super::is_ratcheted(e.0, &e.1, object, stored)
    }

    #[test]
    fn unchanged_values_ratchet_and_changed_ones_do_not() {
        let stored = json!({"spec": {"failover": {"application": {"purgeMode": "Graciously"}},
                                     "resourceSelectors": [{"kind": "Deployment", "x": 1}],
                                     "placement": {}}});
        let same = stored.clone();
        let purge = refusal(schema::ENUM, "spec.failover.application.purgeMode");
        assert!(is_ratcheted(&purge, &same, &stored));
        // A sibling changed: the value itself is still the stored one.
        let mut sibling = stored.clone();
        sibling["spec"]["failover"]["application"]["gracePeriodSeconds"] = json!(60);
        assert!(is_ratcheted(&purge, &sibling, &stored));
        let mut changed = stored.clone();
        changed["spec"]["failover"]["application"]["purgeMode"] = json!("Immediately");
        assert!(!is_ratcheted(&purge, &changed, &stored));
    }

    #[test]
    fn a_list_is_judged_whole_and_required_by_its_holder() {
        let stored = json!({"spec": {"resourceSelectors": [{"kind": "Bad"}, {"kind": "Deployment"}],
                                     "placement": {"a": 1}}});
        let item = refusal(schema::ENUM, "spec.resourceSelectors[0].kind");
        assert!(is_ratcheted(&item, &stored, &stored));
        // Another item of the atomic list changed: the list is not equal, nothing ratchets.
        let mut other = stored.clone();
        other["spec"]["resourceSelectors"][1]["kind"] = json!("StatefulSet");
        assert!(!is_ratcheted(&item, &other, &stored));
        let required = refusal(schema::REQUIRED, "spec.placement.b");
        assert!(is_ratcheted(&required, &stored, &stored));
        let mut grown = stored.clone();
        grown["spec"]["placement"]["c"] = json!(2);
        assert!(!is_ratcheted(&required, &grown, &stored));
        // Not on the stored side: nothing to correlate.
        let new_field = refusal(schema::TYPE, "spec.priority");
        let mut added = stored.clone();
        added["spec"]["priority"] = json!("high");
        assert!(!is_ratcheted(&new_field, &added, &stored));
    }
}
