//! `ValidatePlacement` and the functions it calls (validation.go:101-313;
//! validation-suspension-failover.md §1.3).
//!
//! Order inside `ValidatePlacement` (:101-123): clusterAffinity/clusterAffinities exclusivity,
//! overflow needs an overflow-capable strategy, `clusterAffinity`, `clusterAffinities`, spread
//! constraints, then workload affinity and cluster tolerations (validation.go:117-121
//! @v1.18.0).

use std::collections::{HashMap, HashSet};

use super::labels::{label_key_errors, Wording};
use super::render::{go_quote, json_of};
use super::Violation;
use crate::model::policy::{
    ClusterAffinity, ClusterAffinityTerm, FieldSelector, Placement, SpreadConstraint, Toleration,
    WorkloadAffinity,
};
use crate::model::KarmadaVersion;
use crate::source::FieldPath;

fn base() -> FieldPath {
    FieldPath::parse("spec.placement")
}

pub(super) fn validate_placement(p: &Placement, version: KarmadaVersion, out: &mut Vec<Violation>) {
    // :105-107. Go compares the slice with nil, so `clusterAffinities: []` counts as set.
    if p.cluster_affinity.is_some() && p.cluster_affinities.is_some() {
        out.push(Violation::new(
            "placement-affinity-exclusive",
            base(),
            Some(json_of(p)),
            format!(
                "clusterAffinities {} co-exist with clusterAffinity",
                cannot(version)
            ),
        ));
    }
    // :110-115.
    let capable = overflow_capable(p);
    for (i, term) in p.cluster_affinities.iter().flatten().enumerate() {
        if let (Some(overflow), false) = (&term.overflow_affinities, capable) {
            out.push(Violation::new(
                "overflow-requires-dynamic-weight-or-aggregated",
                base()
                    .key("clusterAffinities")
                    .index(i)
                    .key("overflowAffinities"),
                Some(json_of(overflow)),
                "overflowAffinities can only be used together with dynamic weight or aggregated scheduling",
            ));
        }
    }
    if let Some(a) = &p.cluster_affinity {
        validate_cluster_affinity(a, base().key("clusterAffinity"), out);
    }
    let wording = Wording::of_karmada(version);
    if let Some(terms) = &p.cluster_affinities {
        validate_cluster_affinities(terms, wording, out);
    }
    validate_spread_constraints(&p.spread_constraints, out);
    if let Some(w) = &p.workload_affinity {
        validate_workload_affinity(w, wording, out);
    }
    validate_cluster_tolerations(&p.cluster_tolerations, out);
}

/// How the webhook's messages spell "cannot": "can not" in every 1.10.x
/// (validation.go:58,69 @v1.10.0), "cannot" from v1.11.0 (validation.go:56,82 @v1.11.0). Only
/// the two messages of 1.10 that said "can not" use it.
pub(super) fn cannot(version: KarmadaVersion) -> &'static str {
    if version.at_least(1, 11) {
        "cannot"
    } else {
        "can not"
    }
}

/// `IsOverflowCapable` (pkg/util/policy.go:31-44): Divided replicas, and either Aggregated or
/// Weighted by a dynamic weight. Static weights (or no replicaScheduling) cannot overflow.
fn overflow_capable(p: &Placement) -> bool {
    let Some(rs) = &p.replica_scheduling else {
        return false;
    };
    if rs.replica_scheduling_type.as_deref() != Some("Divided") {
        return false;
    }
    match rs.replica_division_preference.as_deref() {
        Some("Aggregated") => true,
        Some("Weighted") => rs
            .weight_preference
            .as_ref()
            .is_some_and(|w| !w.dynamic_weight.as_deref().unwrap_or("").is_empty()),
        _ => false,
    }
}

/// `ValidatePolicyFieldSelector` (:243-263): only the FIRST bad expression is reported, and
/// for it the key is checked before the operator.
pub(super) fn field_selector_problem(fs: &FieldSelector) -> Option<(&'static str, String)> {
    for e in &fs.match_expressions {
        if !matches!(e.key.as_str(), "provider" | "region" | "zone") {
            return Some((
                "field-selector-key-unsupported",
                format!(
                    "unsupported key {}, must be provider, region, or zone",
                    go_quote(&e.key)
                ),
            ));
        }
        if !matches!(e.operator.as_str(), "In" | "NotIn") {
            return Some((
                "field-selector-operator-unsupported",
                format!(
                    "unsupported operator {}, must be In or NotIn",
                    go_quote(&e.operator)
                ),
            ));
        }
    }
    None
}

/// `ValidateClusterAffinity` (:172-183): the fieldSelector, reported at `<path>.fieldSelector`
/// with the selector as the value.
pub(super) fn validate_cluster_affinity(
    a: &ClusterAffinity,
    path: FieldPath,
    out: &mut Vec<Violation>,
) {
    let Some(fs) = &a.field_selector else {
        return;
    };
    if let Some((rule, message)) = field_selector_problem(fs) {
        out.push(Violation::new(
            rule,
            path.key("fieldSelector"),
            Some(json_of(fs)),
            message,
        ));
    }
}

/// Each IsLabelKey message as its own violation (Karmada loops over them), in the wording of
/// the release's apimachinery.
fn label_key_violations(
    rule: &'static str,
    key: &str,
    path: &FieldPath,
    wording: Wording,
    out: &mut Vec<Violation>,
) {
    for msg in label_key_errors(key, wording) {
        out.push(Violation::new(rule, path.clone(), Some(go_quote(key)), msg));
    }
}

/// `ValidateClusterAffinities` (:185-241), per term: the name (reported at the term itself,
/// without `.affinityName`), its uniqueness (reported at the list, with the list as value, for
/// every repeat), the term's fieldSelector, then its overflow terms.
fn validate_cluster_affinities(
    terms: &[ClusterAffinityTerm],
    wording: Wording,
    out: &mut Vec<Violation>,
) {
    let list = base().key("clusterAffinities");
    let mut names = HashSet::new();
    for (i, term) in terms.iter().enumerate() {
        let at = list.clone().index(i);
        label_key_violations(
            "affinity-name-invalid",
            &term.affinity_name,
            &at,
            wording,
            out,
        );
        if !names.insert(term.affinity_name.as_str()) {
            out.push(Violation::new(
                "affinity-name-duplicate",
                list.clone(),
                Some(json_of(terms)),
                "each affinity term in a policy must have a unique name",
            ));
        }
        validate_cluster_affinity(&term.affinity, at.clone(), out);
        validate_overflow_affinities(term, &at, wording, out);
    }
}

/// `ValidateOverflowAffinities` (:205-241). The bad values are the overflow list for the
/// "inline" error and the name for the name errors (validation.go:219-233 @v1.18.0).
fn validate_overflow_affinities(
    term: &ClusterAffinityTerm,
    at: &FieldPath,
    wording: Wording,
    out: &mut Vec<Violation>,
) {
    let Some(overflow) = &term.overflow_affinities else {
        return;
    };
    let path = at.clone().key("overflowAffinities");
    // :219-222, :444-455.
    if term.affinity.is_empty() {
        out.push(Violation::new(
            "overflow-requires-inline-affinity",
            path.clone(),
            Some(json_of(overflow)),
            "overflowAffinities can only be used together with the inline ClusterAffinity",
        ));
    }
    // :225-236: names are unique among overflow terms and differ from the primary name.
    let mut names: HashSet<&str> = HashSet::from([term.affinity_name.as_str()]);
    for (j, o) in overflow.iter().enumerate() {
        let name_path = path.clone().index(j).key("affinityName");
        label_key_violations(
            "overflow-name-invalid",
            &o.affinity_name,
            &name_path,
            wording,
            out,
        );
        if !names.insert(o.affinity_name.as_str()) {
            out.push(Violation::new(
                "overflow-name-duplicate",
                name_path,
                Some(go_quote(&o.affinity_name)),
                "overflow affinity name must be unique and must not duplicate the primary group's affinityName",
            ));
        }
        validate_cluster_affinity(&o.affinity, path.clone().index(j), out);
    }
}

/// `ValidateSpreadConstraint` (:265-313), on constraints already defaulted by M2.
fn validate_spread_constraints(constraints: &[SpreadConstraint], out: &mut Vec<Violation>) {
    let list = base().key("spreadConstraints");
    // spreadByField value -> whether its duplicate was already reported (:291-300).
    let mut marks: HashMap<&str, bool> = HashMap::new();
    for (i, c) in constraints.iter().enumerate() {
        let at = list.clone().index(i);
        let value = || Some(json_of(c));
        let min = c.min_groups.unwrap_or(0);
        let max = c.max_groups.unwrap_or(0);
        if !c.spread_by_field.is_empty() && !c.spread_by_label.is_empty() {
            out.push(Violation::new(
                "spread-by-label-and-field",
                at.clone(),
                value(),
                "spreadByLabel should not co-exist with spreadByField",
            ));
        }
        if min < 0 {
            out.push(Violation::new(
                "spread-min-groups-negative",
                at.clone(),
                value(),
                "minGroups lower than 0 is not allowed",
            ));
        }
        if max < 0 {
            out.push(Violation::new(
                "spread-max-groups-negative",
                at.clone(),
                value(),
                "maxGroups lower than 0 is not allowed",
            ));
        }
        // maxGroups 0 means "no maximum".
        if max > 0 && max < min {
            out.push(Violation::new(
                "spread-max-below-min",
                at.clone(),
                value(),
                "maxGroups lower than minGroups is not allowed",
            ));
        }
        if !c.spread_by_field.is_empty() {
            match marks.get_mut(c.spread_by_field.as_str()) {
                None => {
                    marks.insert(c.spread_by_field.as_str(), false);
                }
                Some(reported @ false) => {
                    out.push(Violation::new(
                        "spread-field-duplicate",
                        list.clone(),
                        Some(json_of(constraints)),
                        format!(
                            "multiple {} spread constraints are not allowed",
                            c.spread_by_field
                        ),
                    ));
                    *reported = true;
                }
                Some(true) => {}
            }
        }
    }
    // :303-310.
    if !marks.is_empty() && !marks.contains_key("cluster") {
        out.push(Violation::new(
            "spread-cluster-required",
            list,
            Some(json_of(constraints)),
            "the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled",
        ));
    }
}

/// `ValidateWorkloadAffinity` (:152-167). The same-key error's value is the whole
/// workloadAffinity (`field.Invalid(fldPath, workloadAffinity, …)`, validation.go:163-167
/// @v1.19.0-rc.0 and :135-139 @v1.17.0), printed as its JSON.
fn validate_workload_affinity(w: &WorkloadAffinity, wording: Wording, out: &mut Vec<Violation>) {
    let path = base().key("workloadAffinity");
    if let Some(a) = &w.affinity {
        label_key_violations(
            "workload-affinity-key-invalid",
            &a.group_by_label_key,
            &path.clone().key("affinity").key("groupByLabelKey"),
            wording,
            out,
        );
    }
    if let Some(a) = &w.anti_affinity {
        label_key_violations(
            "workload-affinity-key-invalid",
            &a.group_by_label_key,
            &path.clone().key("antiAffinity").key("groupByLabelKey"),
            wording,
            out,
        );
    }
    if let (Some(a), Some(anti)) = (&w.affinity, &w.anti_affinity) {
        if a.group_by_label_key == anti.group_by_label_key {
            out.push(Violation::new(
                "workload-affinity-same-key",
                path,
                Some(json_of(w)),
                "affinity and antiAffinity must not use the same groupByLabelKey",
            ));
        }
    }
}

/// `validateClusterTolerations` (:132-142, from 1.18: see `checked_from`): `Lt` and `Gt`
/// compare numbers on nodes and mean nothing for clusters; they are refused as
/// `field.NotSupported(path, operator, []string{"", "Exists", "Equal"})`, whose text is
/// `Unsupported value: "Gt": supported values: "", "Exists", "Equal"`. Other operators are left
/// alone.
fn validate_cluster_tolerations(tolerations: &[Toleration], out: &mut Vec<Violation>) {
    for (i, t) in tolerations.iter().enumerate() {
        if matches!(t.operator.as_str(), "Lt" | "Gt") {
            let value = go_quote(&t.operator);
            out.push(Violation::new(
                "toleration-operator-unsupported",
                base().key("clusterTolerations").index(i).key("operator"),
                Some(value.clone()),
                format!(r#"Unsupported value: {value}: supported values: "", "Exists", "Equal""#),
            ));
        }
    }
}
