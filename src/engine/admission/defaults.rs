//! Defaults a policy receives before any validation: the CRD's structural defaults (applied
//! when the request is decoded), then the mutating webhook (validation-suspension-failover.md
//! §0 item 1 and §1.4).
//!
//! M6 (the `…/permanent-id` label, CREATE only) and M7 (the finalizer, CREATE only) touch
//! `metadata`, not the spec, and this function only sees the spec: they change nothing that
//! `ValidatePropagationSpec` reads. M6 matters to [`super::validate_update`], which compares the
//! label itself.

use crate::model::policy::{PropagationSpec, ResourceSelector};
use crate::model::{KarmadaVersion, PolicyKind};

/// The CRD default of `failover.application.purgeMode` in a Karmada release.
///
/// 1.15 added `Directly` / `Gracefully` beside `Immediately` / `Graciously` (both accepted, the
/// default became `Gracefully`); 1.19 dropped the old spelling. Up to 1.14 the values were
/// `Immediately` / `Graciously` / `Never`, default `Graciously` (each release's CRD,
/// `charts/karmada/_crds/bases/policy/`).
pub fn graceful_purge_mode(version: KarmadaVersion) -> &'static str {
    if version.at_least(1, 15) {
        "Gracefully"
    } else {
        "Graciously"
    }
}

/// The spelling 1.15 gave a purge mode that 1.19 no longer accepts (`Graciously` is now
/// `Gracefully`, `Immediately` is `Directly`): what fixing it means.
pub fn renamed_purge_mode(mode: &str) -> Option<&'static str> {
    match mode {
        "Graciously" => Some("Gracefully"),
        "Immediately" => Some("Directly"),
        _ => None,
    }
}

/// Whether `mode` is a graceful purge in `version`: M5 and the grace-period checks key on it
/// (1.15-1.18 test `Graciously || PurgeModeGracefully`, `pkg/util/helper/policy.go:133` and
/// `pkg/util/validation/validation.go` at those tags).
pub fn is_graceful_purge(mode: &str, version: KarmadaVersion) -> bool {
    match mode {
        "Gracefully" => version.at_least(1, 15),
        "Graciously" => !version.at_least(1, 19),
        _ => false,
    }
}

/// The word the grace-period messages use: "gracefully" from 1.15, "graciously" before.
pub fn graceful_word(version: KarmadaVersion) -> &'static str {
    if version.at_least(1, 15) {
        "gracefully"
    } else {
        "graciously"
    }
}

/// CRD structural defaults then the mutating webhook M1-M5, as Karmada applies them on CREATE
/// and UPDATE. `namespace` is the request namespace (the PP's own; ignored for a CPP).
pub fn apply_defaults(
    kind: PolicyKind,
    namespace: Option<&str>,
    spec: &mut PropagationSpec,
    version: KarmadaVersion,
) {
    crd_defaults(spec, version);
    mutating_webhook(kind, namespace, spec, version);
}

/// The CRD `default:` values (§0 item 1, propagation_types.go). A default applies only when
/// its parent object exists: no placement means no `replicaSchedulingType`, a failover without
/// `decisionConditions` gets no `tolerationSeconds` (the schema reports it as required).
fn crd_defaults(spec: &mut PropagationSpec, version: KarmadaVersion) {
    // :111, :117-118, :137, :154-155.
    spec.priority.get_or_insert(0);
    spec.preemption.get_or_insert_with(|| "Never".into());
    spec.scheduler_name
        .get_or_insert_with(|| "default-scheduler".into());
    spec.conflict_resolution
        .get_or_insert_with(|| "Abort".into());
    let graceful = graceful_purge_mode(version);
    if let Some(failover) = &mut spec.failover {
        if let Some(app) = &mut failover.application {
            // :336-337 (version-dependent value, see graceful_purge_mode).
            app.purge_mode.get_or_insert_with(|| graceful.into());
            // :404.
            if let Some(dc) = &mut app.decision_conditions {
                dc.toleration_seconds.get_or_insert(300);
            }
        }
        if let Some(cluster) = &mut failover.cluster {
            // :374-375. failover.cluster came with 1.15, whose CRD default is already
            // Gracefully (enum Directly, Gracefully in every release since).
            cluster.purge_mode.get_or_insert_with(|| graceful.into());
        }
    }
    if let Some(rs) = spec
        .placement
        .as_mut()
        .and_then(|p| p.replica_scheduling.as_mut())
    {
        // :712-713.
        rs.replica_scheduling_type
            .get_or_insert_with(|| "Divided".into());
    }
}

/// `ServiceImport` of the MCS API: selecting one turns propagateDeps on (M3).
fn is_service_import(rs: &ResourceSelector) -> bool {
    rs.kind == "ServiceImport" && rs.api_version == "multicluster.x-k8s.io/v1alpha1"
}

/// PP `pkg/webhook/propagationpolicy/mutating.go:51-98`, CPP
/// `pkg/webhook/clusterpropagationpolicy/mutating.go:51-87`.
fn mutating_webhook(
    kind: PolicyKind,
    namespace: Option<&str>,
    spec: &mut PropagationSpec,
    version: KarmadaVersion,
) {
    // M1 (PP only, :64-69): selectors without a namespace get the request namespace.
    if kind == PolicyKind::PropagationPolicy {
        if let Some(ns) = namespace.filter(|ns| !ns.is_empty()) {
            for rs in &mut spec.resource_selectors {
                if rs.namespace.is_empty() {
                    rs.namespace = ns.to_string();
                }
            }
        }
    }
    if let Some(placement) = &mut spec.placement {
        // M2 (helper/policy.go:32-44): empty spread constraints spread by cluster, and,
        // independently, minGroups 0 (or absent) becomes 1.
        for c in &mut placement.spread_constraints {
            if c.spread_by_label.is_empty() && c.spread_by_field.is_empty() {
                c.spread_by_field = "cluster".into();
            }
            if c.min_groups.unwrap_or(0) == 0 {
                c.min_groups = Some(1);
            }
        }
    }
    // M3 (helper/policy.go:78-89).
    if spec.resource_selectors.iter().any(is_service_import) {
        spec.propagate_deps = Some(true);
    }
    // M4 (helper/policy.go:122-127): Divided without a preference divides by weight. A nil
    // replicaScheduling means Duplicated (propagation_helper.go:40-46): nothing to do.
    if let Some(rs) = spec
        .placement
        .as_mut()
        .and_then(|p| p.replica_scheduling.as_mut())
    {
        let divided = rs.replica_scheduling_type.as_deref() == Some("Divided");
        if divided
            && rs
                .replica_division_preference
                .as_deref()
                .unwrap_or("")
                .is_empty()
        {
            rs.replica_division_preference = Some("Weighted".into());
        }
    }
    // M5 (helper/policy.go:130-135): graceful purge without a grace period gets 600 seconds;
    // an explicit 0 is kept (and then refused by the "must be greater than 0" check).
    if let Some(app) = spec.failover.as_mut().and_then(|f| f.application.as_mut()) {
        let graceful = is_graceful_purge(app.purge_mode.as_deref().unwrap_or(""), version);
        if graceful && app.grace_period_seconds.is_none() {
            app.grace_period_seconds = Some(600);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: serde_json::Value) -> PropagationSpec {
        serde_json::from_value(json).expect("valid spec")
    }

    fn defaulted(kind: PolicyKind, ns: Option<&str>, json: serde_json::Value) -> PropagationSpec {
        let mut s = spec(json);
        apply_defaults(kind, ns, &mut s, KarmadaVersion::LATEST);
        s
    }

    #[test]
    fn crd_defaults_fill_top_level_fields() {
        let s = defaulted(
            PolicyKind::PropagationPolicy,
            Some("default"),
            serde_json::json!({"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap"}]}),
        );
        assert_eq!(s.priority, Some(0));
        assert_eq!(s.preemption.as_deref(), Some("Never"));
        assert_eq!(s.scheduler_name.as_deref(), Some("default-scheduler"));
        assert_eq!(s.conflict_resolution.as_deref(), Some("Abort"));
        assert!(s.placement.is_none(), "no parent, no nested default");
        assert!(s.failover.is_none());
    }

    #[test]
    fn explicit_values_are_kept() {
        let s = defaulted(
            PolicyKind::PropagationPolicy,
            Some("default"),
            serde_json::json!({"priority": 5, "preemption": "Always", "schedulerName": "mine", "conflictResolution": "Overwrite"}),
        );
        assert_eq!(s.priority, Some(5));
        assert_eq!(s.preemption.as_deref(), Some("Always"));
        assert_eq!(s.scheduler_name.as_deref(), Some("mine"));
        assert_eq!(s.conflict_resolution.as_deref(), Some("Overwrite"));
    }

    #[test]
    fn m1_fills_pp_selector_namespace_only() {
        let json = serde_json::json!({"resourceSelectors": [
            {"apiVersion": "v1", "kind": "ConfigMap"},
            {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "other"}
        ]});
        let pp = defaulted(PolicyKind::PropagationPolicy, Some("team"), json.clone());
        assert_eq!(pp.resource_selectors[0].namespace, "team");
        assert_eq!(pp.resource_selectors[1].namespace, "other");
        let cpp = defaulted(PolicyKind::ClusterPropagationPolicy, Some("team"), json);
        assert_eq!(cpp.resource_selectors[0].namespace, "");
    }

    #[test]
    fn m2_spread_defaults() {
        let s = defaulted(
            PolicyKind::ClusterPropagationPolicy,
            None,
            serde_json::json!({"placement": {"spreadConstraints": [
                {}, {"spreadByLabel": "zone-group", "minGroups": 0}, {"spreadByField": "region", "minGroups": 2}
            ]}}),
        );
        let c = &s.placement.unwrap().spread_constraints;
        assert_eq!(
            (c[0].spread_by_field.as_str(), c[0].min_groups),
            ("cluster", Some(1))
        );
        assert_eq!(
            (c[1].spread_by_field.as_str(), c[1].min_groups),
            ("", Some(1))
        );
        assert_eq!(c[1].spread_by_label, "zone-group");
        assert_eq!(c[2].min_groups, Some(2));
    }

    #[test]
    fn m3_service_import_turns_on_propagate_deps() {
        let s = defaulted(
            PolicyKind::PropagationPolicy,
            Some("default"),
            serde_json::json!({"resourceSelectors": [{"apiVersion": "multicluster.x-k8s.io/v1alpha1", "kind": "ServiceImport"}]}),
        );
        assert_eq!(s.propagate_deps, Some(true));
        let other = defaulted(
            PolicyKind::PropagationPolicy,
            Some("default"),
            serde_json::json!({"resourceSelectors": [{"apiVersion": "v1", "kind": "Service"}]}),
        );
        assert_eq!(other.propagate_deps, None);
    }

    #[test]
    fn m4_divided_without_preference_is_weighted() {
        let s = defaulted(
            PolicyKind::PropagationPolicy,
            Some("default"),
            serde_json::json!({"placement": {"replicaScheduling": {}}}),
        );
        let rs = s.placement.unwrap().replica_scheduling.unwrap();
        assert_eq!(rs.replica_scheduling_type.as_deref(), Some("Divided"));
        assert_eq!(rs.replica_division_preference.as_deref(), Some("Weighted"));
        let dup = defaulted(
            PolicyKind::PropagationPolicy,
            Some("default"),
            serde_json::json!({"placement": {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}}),
        );
        let rs = dup.placement.unwrap().replica_scheduling.unwrap();
        assert_eq!(rs.replica_division_preference, None);
    }

    #[test]
    fn m5_and_failover_crd_defaults() {
        let s = defaulted(
            PolicyKind::PropagationPolicy,
            Some("default"),
            serde_json::json!({"failover": {"application": {"decisionConditions": {}}, "cluster": {}}}),
        );
        let f = s.failover.unwrap();
        let app = f.application.unwrap();
        assert_eq!(app.purge_mode.as_deref(), Some("Gracefully"));
        assert_eq!(
            app.decision_conditions.unwrap().toleration_seconds,
            Some(300)
        );
        assert_eq!(app.grace_period_seconds, Some(600));
        assert_eq!(f.cluster.unwrap().purge_mode.as_deref(), Some("Gracefully"));
    }

    #[test]
    fn m5_keeps_zero_and_skips_other_modes() {
        let s = defaulted(
            PolicyKind::PropagationPolicy,
            Some("default"),
            serde_json::json!({"failover": {"application": {"decisionConditions": {}, "gracePeriodSeconds": 0}}}),
        );
        assert_eq!(
            s.failover
                .unwrap()
                .application
                .unwrap()
                .grace_period_seconds,
            Some(0)
        );
        let d = defaulted(
            PolicyKind::PropagationPolicy,
            Some("default"),
            serde_json::json!({"failover": {"application": {"decisionConditions": {}, "purgeMode": "Directly"}}}),
        );
        assert_eq!(
            d.failover
                .unwrap()
                .application
                .unwrap()
                .grace_period_seconds,
            None
        );
    }

    #[test]
    fn karmada_1_14_uses_graciously() {
        let mut s =
            spec(serde_json::json!({"failover": {"application": {"decisionConditions": {}}}}));
        apply_defaults(
            PolicyKind::PropagationPolicy,
            Some("default"),
            &mut s,
            KarmadaVersion::new(1, 14),
        );
        let app = s.failover.unwrap().application.unwrap();
        assert_eq!(app.purge_mode.as_deref(), Some("Graciously"));
        assert_eq!(app.grace_period_seconds, Some(600));
        // A 1.19 spelling under 1.14 is not the graceful mode: no grace period is filled in.
        let mut g = spec(
            serde_json::json!({"failover": {"application": {"decisionConditions": {}, "purgeMode": "Gracefully"}}}),
        );
        apply_defaults(
            PolicyKind::PropagationPolicy,
            Some("default"),
            &mut g,
            KarmadaVersion::new(1, 14),
        );
        assert_eq!(
            g.failover
                .unwrap()
                .application
                .unwrap()
                .grace_period_seconds,
            None
        );
    }

    #[test]
    fn karmada_1_15_to_1_18_take_both_graceful_spellings() {
        for minor in 15..=18 {
            let v = KarmadaVersion::new(1, minor);
            assert_eq!(graceful_purge_mode(v), "Gracefully");
            assert!(is_graceful_purge("Gracefully", v) && is_graceful_purge("Graciously", v));
        }
        let latest = KarmadaVersion::LATEST;
        assert!(
            is_graceful_purge("Gracefully", latest) && !is_graceful_purge("Graciously", latest)
        );
    }
}
