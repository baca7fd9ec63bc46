//! A test per admission rule, invalid and valid near-miss, driven through real YAML and the
//! model (the same path `lint` takes). (The tests of the rule docs against the ids emitted here
//! are with the docs, in `lint::rules::admission::docs`.)

use super::*;
use crate::model::Inventory;
use crate::source::Source;

const RS: &str = "  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n";

fn inventory(yaml: &str) -> Inventory {
    let loaded = crate::source::load(Source::new("test.yaml", yaml));
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    Inventory::from_documents(loaded.documents, "default")
}

fn policies(yaml: &str) -> Vec<Policy> {
    inventory(yaml).policies().cloned().collect()
}

/// A PropagationPolicy in namespace `default` with `body` (indented by two spaces) as spec.
fn pp(body: &str) -> Policy {
    let yaml = format!(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: p, namespace: default}}\nspec:\n{body}"
    );
    policies(&yaml).pop().expect("a policy")
}

fn cpp(body: &str) -> Policy {
    let yaml = format!(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {{name: p}}\nspec:\n{body}"
    );
    policies(&yaml).pop().expect("a policy")
}

fn op(yaml: &str) -> OverridePolicy {
    inventory(yaml)
        .overrides()
        .next()
        .cloned()
        .expect("an override policy")
}

fn op_rules(rules: &str) -> OverridePolicy {
    op(&format!(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {{name: o, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap, name: c}}]\n  overrideRules:\n    - targetCluster: {{clusterNames: [member1]}}\n      overriders:\n{rules}"
    ))
}

fn violations(p: &Policy) -> Vec<Violation> {
    admit(p, KarmadaVersion::LATEST).violations
}

/// The violations of `p` as Karmada 1.`minor` judges it.
fn violations_at(p: &Policy, minor: u32) -> Vec<Violation> {
    admit(p, KarmadaVersion::new(1, minor)).violations
}

/// `ValidateOverrideSpec` of the newest release.
fn validate_override(op: &OverridePolicy) -> Vec<Violation> {
    super::validate_override(op, KarmadaVersion::LATEST)
}

/// `ValidateOverrideSpec` as Karmada 1.`minor` has it.
fn validate_override_at(op: &OverridePolicy, minor: u32) -> Vec<Violation> {
    super::validate_override(op, KarmadaVersion::new(1, minor))
}

/// Exactly one violation, with this rule, field path and detail text; returned for more checks.
#[track_caller]
fn one(vs: Vec<Violation>, rule: &str, field: &str, message: &str) -> Violation {
    assert_eq!(vs.len(), 1, "expected one violation, got {vs:#?}");
    let v = vs.into_iter().next().unwrap();
    assert_eq!(v.rule, rule);
    assert_eq!(v.field.to_string(), field);
    assert_eq!(v.message, message);
    v
}

#[track_caller]
fn none(vs: Vec<Violation>) {
    assert!(vs.is_empty(), "expected no violation, got {vs:#?}");
}

const NAME_PART: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

// ---- placement ------------------------------------------------------------------------------

#[test]
fn placement_affinity_exclusive() {
    let v = one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterAffinity: {{clusterNames: [member1]}}\n    clusterAffinities:\n      - {{affinityName: group1, clusterNames: [member1]}}\n"
        ))),
        "placement-affinity-exclusive",
        "spec.placement",
        "clusterAffinities cannot co-exist with clusterAffinity",
    );
    assert_eq!(
        v.karmada_error(),
        r#"spec.placement: Invalid value: {"clusterAffinity":{"clusterNames":["member1"]},"clusterAffinities":[{"affinityName":"group1","clusterNames":["member1"]}]}: clusterAffinities cannot co-exist with clusterAffinity"#
    );
    // An empty list is non-nil in Go: it still conflicts.
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterAffinity: {{clusterNames: [member1]}}\n    clusterAffinities: []\n"
        ))),
        "placement-affinity-exclusive",
        "spec.placement",
        "clusterAffinities cannot co-exist with clusterAffinity",
    );
    // Near miss: either one alone.
    none(violations(&pp(&format!(
        "{RS}  placement:\n    clusterAffinities:\n      - {{affinityName: group1, clusterNames: [member1]}}\n"
    ))));
    none(violations(&pp(&format!(
        "{RS}  placement:\n    clusterAffinity: {{clusterNames: [member1]}}\n"
    ))));
}

const OVERFLOW_TERM: &str = "    clusterAffinities:\n      - affinityName: primary\n        clusterNames: [member1]\n        overflowAffinities:\n          - {affinityName: burst, clusterNames: [member2]}\n";

#[test]
fn overflow_requires_dynamic_weight_or_aggregated() {
    let msg =
        "overflowAffinities can only be used together with dynamic weight or aggregated scheduling";
    let field = "spec.placement.clusterAffinities[0].overflowAffinities";
    // No replicaScheduling (Duplicated).
    one(
        violations(&pp(&format!("{RS}  placement:\n{OVERFLOW_TERM}"))),
        "overflow-requires-dynamic-weight-or-aggregated",
        field,
        msg,
    );
    // Divided without a preference becomes Weighted (M4), and Weighted without dynamicWeight
    // is static.
    let v = one(
        violations(&pp(&format!(
            "{RS}  placement:\n    replicaScheduling: {{replicaSchedulingType: Divided}}\n{OVERFLOW_TERM}"
        ))),
        "overflow-requires-dynamic-weight-or-aggregated",
        field,
        msg,
    );
    assert_eq!(
        v.value.as_deref(),
        Some(r#"[{"affinityName":"burst","clusterNames":["member2"]}]"#)
    );
    // Near misses: Aggregated, or dynamic weight.
    none(violations(&pp(&format!(
        "{RS}  placement:\n    replicaScheduling: {{replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}}\n{OVERFLOW_TERM}"
    ))));
    none(violations(&pp(&format!(
        "{RS}  placement:\n    replicaScheduling:\n      replicaDivisionPreference: Weighted\n      weightPreference: {{dynamicWeight: AvailableReplicas}}\n{OVERFLOW_TERM}"
    ))));
}

#[test]
fn field_selector_key_and_operator() {
    let v = one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterAffinity:\n      fieldSelector:\n        matchExpressions: [{{key: foo, operator: In, values: [fooCloud]}}]\n"
        ))),
        "field-selector-key-unsupported",
        "spec.placement.clusterAffinity.fieldSelector",
        r#"unsupported key "foo", must be provider, region, or zone"#,
    );
    assert_eq!(
        v.karmada_error(),
        r#"spec.placement.clusterAffinity.fieldSelector: Invalid value: {"matchExpressions":[{"key":"foo","operator":"In","values":["fooCloud"]}]}: unsupported key "foo", must be provider, region, or zone"#
    );
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterAffinity:\n      fieldSelector:\n        matchExpressions: [{{key: provider, operator: Exists}}]\n"
        ))),
        "field-selector-operator-unsupported",
        "spec.placement.clusterAffinity.fieldSelector",
        r#"unsupported operator "Exists", must be In or NotIn"#,
    );
    // Only the FIRST bad expression, key before operator: the bad key of the second
    // expression is never seen, and the first one's key wins over its operator.
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterAffinity:\n      fieldSelector:\n        matchExpressions:\n          - {{key: zone, operator: Gt}}\n          - {{key: foo, operator: In}}\n"
        ))),
        "field-selector-operator-unsupported",
        "spec.placement.clusterAffinity.fieldSelector",
        r#"unsupported operator "Gt", must be In or NotIn"#,
    );
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterAffinity:\n      fieldSelector:\n        matchExpressions:\n          - {{key: foo, operator: Gt}}\n"
        ))),
        "field-selector-key-unsupported",
        "spec.placement.clusterAffinity.fieldSelector",
        r#"unsupported key "foo", must be provider, region, or zone"#,
    );
    // In a term, and in an overflow term.
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterAffinities:\n      - affinityName: g\n        fieldSelector:\n          matchExpressions: [{{key: foo, operator: In}}]\n"
        ))),
        "field-selector-key-unsupported",
        "spec.placement.clusterAffinities[0].fieldSelector",
        r#"unsupported key "foo", must be provider, region, or zone"#,
    );
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    replicaScheduling: {{replicaDivisionPreference: Aggregated}}\n    clusterAffinities:\n      - affinityName: g\n        clusterNames: [member1]\n        overflowAffinities:\n          - affinityName: o\n            fieldSelector:\n              matchExpressions: [{{key: region, operator: DoesNotExist}}]\n"
        ))),
        "field-selector-operator-unsupported",
        "spec.placement.clusterAffinities[0].overflowAffinities[0].fieldSelector",
        r#"unsupported operator "DoesNotExist", must be In or NotIn"#,
    );
    // Near miss: all three keys, both operators. Static weight targets are not checked.
    none(violations(&pp(&format!(
        "{RS}  placement:\n    clusterAffinity:\n      fieldSelector:\n        matchExpressions:\n          - {{key: provider, operator: In, values: [a]}}\n          - {{key: region, operator: NotIn, values: [b]}}\n          - {{key: zone, operator: NotIn, values: [c]}}\n    replicaScheduling:\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n          - targetCluster: {{fieldSelector: {{matchExpressions: [{{key: foo, operator: Gt}}]}}}}\n            weight: 1\n"
    ))));
}

#[test]
fn affinity_name_invalid() {
    let v = one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterAffinities:\n      - {{affinityName: 'primary group', clusterNames: [member1]}}\n"
        ))),
        "affinity-name-invalid",
        "spec.placement.clusterAffinities[0]",
        NAME_PART,
    );
    assert_eq!(v.value.as_deref(), Some(r#""primary group""#));
    none(violations(&pp(&format!(
        "{RS}  placement:\n    clusterAffinities:\n      - {{affinityName: example.com/primary_1, clusterNames: [member1]}}\n"
    ))));
}

#[test]
fn affinity_name_duplicate() {
    let v = one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterAffinities:\n      - {{affinityName: group1, clusterNames: [m1]}}\n      - {{affinityName: group1, clusterNames: [m2]}}\n"
        ))),
        "affinity-name-duplicate",
        "spec.placement.clusterAffinities",
        "each affinity term in a policy must have a unique name",
    );
    assert_eq!(
        v.value.as_deref(),
        Some(
            r#"[{"affinityName":"group1","clusterNames":["m1"]},{"affinityName":"group1","clusterNames":["m2"]}]"#
        )
    );
    // Reported for every repeat.
    let vs = violations(&pp(&format!(
        "{RS}  placement:\n    clusterAffinities:\n      - {{affinityName: g, clusterNames: [m1]}}\n      - {{affinityName: g, clusterNames: [m2]}}\n      - {{affinityName: g, clusterNames: [m3]}}\n"
    )));
    assert_eq!(vs.len(), 2);
    none(violations(&pp(&format!(
        "{RS}  placement:\n    clusterAffinities:\n      - {{affinityName: group1, clusterNames: [m1]}}\n      - {{affinityName: group2, clusterNames: [m1]}}\n"
    ))));
}

const AGGREGATED: &str = "    replicaScheduling: {replicaDivisionPreference: Aggregated}\n";

#[test]
fn overflow_requires_inline_affinity() {
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n{AGGREGATED}    clusterAffinities:\n      - affinityName: primary\n        overflowAffinities:\n          - {{affinityName: burst, clusterNames: [member2]}}\n"
        ))),
        "overflow-requires-inline-affinity",
        "spec.placement.clusterAffinities[0].overflowAffinities",
        "overflowAffinities can only be used together with the inline ClusterAffinity",
    );
    // Near miss: `exclude` alone is an inline affinity.
    none(violations(&pp(&format!(
        "{RS}  placement:\n{AGGREGATED}    clusterAffinities:\n      - affinityName: primary\n        exclude: [member3]\n        overflowAffinities:\n          - {{affinityName: burst, clusterNames: [member2]}}\n"
    ))));
}

#[test]
fn overflow_name_invalid_and_duplicate() {
    let field = "spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName";
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n{AGGREGATED}    clusterAffinities:\n      - affinityName: primary\n        clusterNames: [member1]\n        overflowAffinities:\n          - {{affinityName: -burst, clusterNames: [member2]}}\n"
        ))),
        "overflow-name-invalid",
        field,
        NAME_PART,
    );
    let dup = "overflow affinity name must be unique and must not duplicate the primary group's affinityName";
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n{AGGREGATED}    clusterAffinities:\n      - affinityName: primary\n        clusterNames: [member1]\n        overflowAffinities:\n          - {{affinityName: primary, clusterNames: [member2]}}\n"
        ))),
        "overflow-name-duplicate",
        field,
        dup,
    );
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n{AGGREGATED}    clusterAffinities:\n      - affinityName: primary\n        clusterNames: [member1]\n        overflowAffinities:\n          - {{affinityName: o1, clusterNames: [member2]}}\n          - {{affinityName: o1, clusterNames: [member3]}}\n"
        ))),
        "overflow-name-duplicate",
        "spec.placement.clusterAffinities[0].overflowAffinities[1].affinityName",
        dup,
    );
    // Karmada's "multiple errors" case: empty inline affinity and duplicate names.
    let vs = violations(&pp(&format!(
        "{RS}  placement:\n{AGGREGATED}    clusterAffinities:\n      - affinityName: primary\n        overflowAffinities:\n          - {{affinityName: o1, clusterNames: [member2]}}\n          - {{affinityName: o1, clusterNames: [member3]}}\n"
    )));
    let ids: Vec<_> = vs.iter().map(|v| v.rule).collect();
    assert_eq!(
        ids,
        [
            "overflow-requires-inline-affinity",
            "overflow-name-duplicate"
        ]
    );
    // Near miss: distinct names, also distinct from another term's overflow names.
    none(violations(&pp(&format!(
        "{RS}  placement:\n{AGGREGATED}    clusterAffinities:\n      - affinityName: a\n        clusterNames: [member1]\n        overflowAffinities: [{{affinityName: o1, clusterNames: [member2]}}]\n      - affinityName: b\n        clusterNames: [member3]\n        overflowAffinities: [{{affinityName: o1, clusterNames: [member4]}}]\n"
    ))));
}

#[test]
fn spread_by_label_and_field() {
    let v = one(
        violations(&pp(&format!(
            "{RS}  placement:\n    spreadConstraints:\n      - {{spreadByField: cluster, spreadByLabel: foo}}\n"
        ))),
        "spread-by-label-and-field",
        "spec.placement.spreadConstraints[0]",
        "spreadByLabel should not co-exist with spreadByField",
    );
    // The value is the defaulted constraint (minGroups 1) as Go JSON.
    assert_eq!(
        v.karmada_error(),
        r#"spec.placement.spreadConstraints[0]: Invalid value: {"spreadByField":"cluster","spreadByLabel":"foo","minGroups":1}: spreadByLabel should not co-exist with spreadByField"#
    );
    none(violations(&pp(&format!(
        "{RS}  placement:\n    spreadConstraints:\n      - {{spreadByLabel: foo}}\n"
    ))));
}

#[test]
fn spread_group_bounds() {
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    spreadConstraints:\n      - {{spreadByField: cluster, maxGroups: 2, minGroups: -2}}\n"
        ))),
        "spread-min-groups-negative",
        "spec.placement.spreadConstraints[0]",
        "minGroups lower than 0 is not allowed",
    );
    let vs = violations(&pp(&format!(
        "{RS}  placement:\n    spreadConstraints:\n      - {{spreadByField: cluster, maxGroups: -1, minGroups: 1}}\n"
    )));
    one(
        vs,
        "spread-max-groups-negative",
        "spec.placement.spreadConstraints[0]",
        "maxGroups lower than 0 is not allowed",
    );
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    spreadConstraints:\n      - {{maxGroups: 1, minGroups: 2}}\n"
        ))),
        "spread-max-below-min",
        "spec.placement.spreadConstraints[0]",
        "maxGroups lower than minGroups is not allowed",
    );
    // Near misses: maxGroups 0 disables the comparison; minGroups 0 is defaulted to 1 and
    // therefore fits maxGroups 1.
    none(violations(&pp(&format!(
        "{RS}  placement:\n    spreadConstraints:\n      - {{spreadByField: cluster, maxGroups: 0, minGroups: 5}}\n      - {{spreadByField: region, maxGroups: 1, minGroups: 0}}\n"
    ))));
}

#[test]
fn spread_field_duplicate_reported_once_per_field() {
    let vs = violations(&pp(&format!(
        "{RS}  placement:\n    spreadConstraints:\n      - {{spreadByField: region, maxGroups: 1}}\n      - {{spreadByField: region, maxGroups: 4}}\n      - {{spreadByField: region, maxGroups: 6}}\n      - {{spreadByField: cluster, maxGroups: 10}}\n"
    )));
    one(
        vs,
        "spread-field-duplicate",
        "spec.placement.spreadConstraints",
        "multiple region spread constraints are not allowed",
    );
    // `{}` becomes a cluster constraint: two of them are duplicates.
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    spreadConstraints: [{{}}, {{spreadByField: cluster}}]\n"
        ))),
        "spread-field-duplicate",
        "spec.placement.spreadConstraints",
        "multiple cluster spread constraints are not allowed",
    );
    none(violations(&pp(&format!(
        "{RS}  placement:\n    spreadConstraints:\n      - {{spreadByField: region, maxGroups: 2}}\n      - {{spreadByField: zone, maxGroups: 2}}\n      - {{spreadByField: cluster, maxGroups: 4}}\n"
    ))));
}

#[test]
fn spread_cluster_required() {
    let v = one(
        violations(&pp(&format!(
            "{RS}  placement:\n    spreadConstraints:\n      - {{spreadByField: region}}\n"
        ))),
        "spread-cluster-required",
        "spec.placement.spreadConstraints",
        "the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled",
    );
    assert_eq!(
        v.value.as_deref(),
        Some(r#"[{"spreadByField":"region","minGroups":1}]"#)
    );
    // The empty constraint `{}` is defaulted to spreadByField: cluster and satisfies it.
    none(violations(&pp(&format!(
        "{RS}  placement:\n    spreadConstraints:\n      - {{spreadByField: region, maxGroups: 2}}\n      - {{}}\n"
    ))));
    // spreadByLabel alone does not need a cluster constraint.
    none(violations(&pp(&format!(
        "{RS}  placement:\n    spreadConstraints: [{{spreadByLabel: team}}]\n"
    ))));
}

#[test]
fn workload_affinity() {
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    workloadAffinity:\n      affinity: {{groupByLabelKey: 'INVALID KEY!'}}\n"
        ))),
        "workload-affinity-key-invalid",
        "spec.placement.workloadAffinity.affinity.groupByLabelKey",
        NAME_PART,
    );
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    workloadAffinity:\n      antiAffinity: {{groupByLabelKey: 'INVALID KEY!'}}\n"
        ))),
        "workload-affinity-key-invalid",
        "spec.placement.workloadAffinity.antiAffinity.groupByLabelKey",
        NAME_PART,
    );
    let v = one(
        violations(&pp(&format!(
            "{RS}  placement:\n    workloadAffinity:\n      affinity: {{groupByLabelKey: app.group}}\n      antiAffinity: {{groupByLabelKey: app.group}}\n"
        ))),
        "workload-affinity-same-key",
        "spec.placement.workloadAffinity",
        "affinity and antiAffinity must not use the same groupByLabelKey",
    );
    // The value is the workloadAffinity itself (field.Invalid(fldPath, workloadAffinity, ...),
    // validation.go:163-167 @v1.19.0-rc.0), not the key.
    assert_eq!(
        v.karmada_error(),
        r#"spec.placement.workloadAffinity: Invalid value: {"affinity":{"groupByLabelKey":"app.group"},"antiAffinity":{"groupByLabelKey":"app.group"}}: affinity and antiAffinity must not use the same groupByLabelKey"#
    );
    none(violations(&pp(&format!(
        "{RS}  placement:\n    workloadAffinity:\n      affinity: {{groupByLabelKey: app.group}}\n      antiAffinity: {{groupByLabelKey: app.region}}\n"
    ))));
}

#[test]
fn toleration_operator_unsupported() {
    let v = one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterTolerations:\n      - {{key: key1, operator: Equal, value: value1}}\n      - {{key: key2, operator: Lt, value: '100'}}\n"
        ))),
        "toleration-operator-unsupported",
        "spec.placement.clusterTolerations[1].operator",
        r#"Unsupported value: "Lt": supported values: "", "Exists", "Equal""#,
    );
    assert_eq!(
        v.karmada_error(),
        r#"spec.placement.clusterTolerations[1].operator: Unsupported value: "Lt": supported values: "", "Exists", "Equal""#
    );
    one(
        violations(&pp(&format!(
            "{RS}  placement:\n    clusterTolerations: [{{key: k, operator: Gt, value: '1'}}]\n"
        ))),
        "toleration-operator-unsupported",
        "spec.placement.clusterTolerations[0].operator",
        r#"Unsupported value: "Gt": supported values: "", "Exists", "Equal""#,
    );
    none(violations(&pp(&format!(
        "{RS}  placement:\n    clusterTolerations:\n      - {{key: a, operator: Exists}}\n      - {{key: b, value: v}}\n"
    ))));
}

/// validateClusterTolerations came with 1.18 (validation.go:121,124-142 @v1.18.0); up to
/// v1.17.5 ValidatePlacement has no toleration check (validation.go:101-114 @v1.17.0) and the
/// CRD no enum on the operator, so Karmada 1.10-1.17 store `operator: Gt`.
#[test]
fn toleration_operator_unsupported_is_checked_from_1_18() {
    let p = pp(&format!(
        "{RS}  placement:\n    clusterTolerations: [{{key: gpu, operator: Gt, value: '3', effect: NoSchedule}}]\n"
    ));
    for minor in 10..=17 {
        none(violations_at(&p, minor));
    }
    let v = one(
        violations_at(&p, 18),
        "toleration-operator-unsupported",
        "spec.placement.clusterTolerations[0].operator",
        r#"Unsupported value: "Gt": supported values: "", "Exists", "Equal""#,
    );
    assert_eq!(
        v.karmada_error(),
        r#"spec.placement.clusterTolerations[0].operator: Unsupported value: "Gt": supported values: "", "Exists", "Equal""#
    );
}

// ---- failover -------------------------------------------------------------------------------

#[test]
fn application_failover_requires_propagate_deps() {
    let v = one(
        violations(&pp(&format!(
            "{RS}  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 120}}\n"
        ))),
        "application-failover-requires-propagate-deps",
        "spec.propagateDeps",
        "application failover is set, propagateDeps must be true",
    );
    assert_eq!(
        v.karmada_error(),
        "spec.propagateDeps: Invalid value: false: application failover is set, propagateDeps must be true"
    );
    // Near misses: propagateDeps true; cluster failover does not need it.
    none(violations(&pp(&format!(
        "{RS}  propagateDeps: true\n  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 120}}\n"
    ))));
    none(violations(&pp(&format!(
        "{RS}  failover:\n    cluster: {{purgeMode: Directly}}\n"
    ))));
    // A ServiceImport selector turns propagateDeps on (M3).
    none(violations(&pp(
        "  resourceSelectors: [{apiVersion: multicluster.x-k8s.io/v1alpha1, kind: ServiceImport, name: s}]\n  failover:\n    application:\n      decisionConditions: {}\n"
    )));
}

const DEPS: &str = "  propagateDeps: true\n";

#[test]
fn toleration_seconds_negative() {
    let v = one(
        violations(&pp(&format!(
            "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: -100}}\n"
        ))),
        "toleration-seconds-negative",
        "spec.failover.application.decisionConditions.tolerationSeconds",
        "must be greater than or equal to 0",
    );
    assert_eq!(
        v.karmada_error(),
        "spec.failover.application.decisionConditions.tolerationSeconds: Invalid value: -100: must be greater than or equal to 0"
    );
    // 0 means "immediately" and is allowed.
    none(violations(&pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 0}}\n"
    ))));
}

#[test]
fn grace_period_without_gracefully() {
    let v = one(
        violations(&pp(&format!(
            "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 100}}\n      purgeMode: Directly\n      gracePeriodSeconds: 100\n"
        ))),
        "grace-period-without-gracefully",
        "spec.failover.application.gracePeriodSeconds",
        "only takes effect when purgeMode is gracefully",
    );
    assert_eq!(
        v.karmada_error(),
        "spec.failover.application.gracePeriodSeconds: Invalid value: 100: only takes effect when purgeMode is gracefully"
    );
    one(
        violations(&pp(&format!(
            "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      purgeMode: Never\n      gracePeriodSeconds: 30\n"
        ))),
        "grace-period-without-gracefully",
        "spec.failover.application.gracePeriodSeconds",
        "only takes effect when purgeMode is gracefully",
    );
    // Near miss: the default purge mode is Gracefully.
    none(violations(&pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      gracePeriodSeconds: 30\n"
    ))));
}

#[test]
fn grace_period_required_is_unreachable_after_m5() {
    // `purgeMode: Gracefully` without gracePeriodSeconds is ADMITTED: M5 fills 600.
    let p = pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 100}}\n      purgeMode: Gracefully\n"
    ));
    let admitted = admit(&p, KarmadaVersion::LATEST);
    none(admitted.violations.clone());
    assert_eq!(
        admitted
            .spec
            .failover
            .as_ref()
            .and_then(|f| f.application.as_ref())
            .and_then(|a| a.grace_period_seconds),
        Some(600)
    );
    // The raw Go function (no mutating webhook) refuses it.
    // (No namespace: without M1 the selectors would also fail N1.)
    let v = one(
        validate_spec(p.kind, None, &p.spec, KarmadaVersion::LATEST),
        "grace-period-required",
        "spec.failover.application.gracePeriodSeconds",
        "should not be empty when purgeMode is gracefully",
    );
    assert_eq!(
        v.karmada_error(),
        "spec.failover.application.gracePeriodSeconds: Invalid value: null: should not be empty when purgeMode is gracefully"
    );
}

#[test]
fn grace_period_not_positive() {
    let v = one(
        violations(&pp(&format!(
            "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 100}}\n      purgeMode: Gracefully\n      gracePeriodSeconds: -100\n"
        ))),
        "grace-period-not-positive",
        "spec.failover.application.gracePeriodSeconds",
        "must be greater than 0",
    );
    assert_eq!(
        v.karmada_error(),
        "spec.failover.application.gracePeriodSeconds: Invalid value: -100: must be greater than 0"
    );
    // An explicit 0 is not replaced by M5.
    one(
        violations(&pp(&format!(
            "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      gracePeriodSeconds: 0\n"
        ))),
        "grace-period-not-positive",
        "spec.failover.application.gracePeriodSeconds",
        "must be greater than 0",
    );
    // Directly with 0: both the "only takes effect" and the "greater than 0" errors.
    let vs = violations(&pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      purgeMode: Directly\n      gracePeriodSeconds: 0\n"
    )));
    let ids: Vec<_> = vs.iter().map(|v| v.rule).collect();
    assert_eq!(
        ids,
        [
            "grace-period-without-gracefully",
            "grace-period-not-positive"
        ]
    );
    none(violations(&pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      gracePeriodSeconds: 1\n"
    ))));
}

#[test]
fn grace_period_rules_follow_the_release_spelling() {
    // Up to 1.14 the graceful mode is Graciously: it is the default and M5 fills 600.
    let v118 = KarmadaVersion::new(1, 14);
    let p = pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n"
    ));
    none(admit(&p, v118).violations);
    let p = pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      purgeMode: Immediately\n      gracePeriodSeconds: 10\n"
    ));
    one(
        admit(&p, v118).violations,
        "grace-period-without-gracefully",
        "spec.failover.application.gracePeriodSeconds",
        "only takes effect when purgeMode is graciously",
    );
    let p = pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      purgeMode: Graciously\n"
    ));
    one(
        validate_spec(p.kind, None, &p.spec, v118),
        "grace-period-required",
        "spec.failover.application.gracePeriodSeconds",
        "should not be empty when purgeMode is graciously",
    );
}

#[test]
fn state_preservation_alias_invalid() {
    one(
        violations(&pp(&format!(
            "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      statePreservation:\n        rules: [{{aliasLabelName: invalid-label-, jsonPath: '{{.availableReplicas}}'}}]\n"
        ))),
        "state-preservation-alias-invalid",
        "spec.failover.application.statePreservation.rules[0].aliasLabelName",
        NAME_PART,
    );
    let v = one(
        violations(&pp(&format!(
            "{RS}  failover:\n    cluster:\n      purgeMode: Directly\n      statePreservation:\n        rules: [{{aliasLabelName: -invalid-cluster-label, jsonPath: '{{.status.nodeCount}}'}}]\n"
        ))),
        "state-preservation-alias-invalid",
        "spec.failover.cluster.statePreservation.rules[0].aliasLabelName",
        NAME_PART,
    );
    assert_eq!(
        v.karmada_error(),
        format!("spec.failover.cluster.statePreservation.rules[0].aliasLabelName: Invalid value: \"-invalid-cluster-label\": {NAME_PART}")
    );
    // Karmada's multi-error case renders as an aggregate.
    let vs = violations(&pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      statePreservation:\n        rules:\n          - {{aliasLabelName: -invalid1, jsonPath: '{{.a}}'}}\n          - {{aliasLabelName: invalid2@, jsonPath: '{{.b}}'}}\n"
    )));
    assert_eq!(
        aggregate(&vs).unwrap(),
        format!("[spec.failover.application.statePreservation.rules[0].aliasLabelName: Invalid value: \"-invalid1\": {NAME_PART}, spec.failover.application.statePreservation.rules[1].aliasLabelName: Invalid value: \"invalid2@\": {NAME_PART}]")
    );
    none(violations(&pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{}}\n      statePreservation:\n        rules: [{{aliasLabelName: example.com/my-state, jsonPath: 'not even jsonpath'}}]\n"
    ))));
}

/// validateStatePreservationRule came with 1.15 (validation.go:250-252,271-287 @v1.15.0); the
/// CRD has statePreservation from 1.12, and ValidateApplicationFailover of 1.12-1.14 does not
/// look at it (validation.go:218-243 @v1.14.0).
#[test]
fn state_preservation_alias_invalid_is_checked_from_1_15() {
    let p = pp(&format!(
        "{RS}{DEPS}  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 60}}\n      purgeMode: Never\n      statePreservation:\n        rules: [{{aliasLabelName: 'bad label!', jsonPath: '{{ .status.x }}'}}]\n"
    ));
    for minor in 12..=14 {
        none(violations_at(&p, minor));
    }
    let v = one(
        violations_at(&p, 15),
        "state-preservation-alias-invalid",
        "spec.failover.application.statePreservation.rules[0].aliasLabelName",
        NAME_PART,
    );
    assert_eq!(
        v.karmada_error(),
        format!("spec.failover.application.statePreservation.rules[0].aliasLabelName: Invalid value: \"bad label!\": {NAME_PART}")
    );
}

// ---- N1, R1, S1 -----------------------------------------------------------------------------

/// Every v1.10.x says "can not" in the two messages that say "cannot" from v1.11.0
/// (validation.go:58,69 @v1.10.0; :56,82 @v1.11.0): the API server's line is the release's.
#[test]
fn karmada_1_10_says_can_not() {
    let both = pp(&format!(
        "{RS}  placement:\n    clusterAffinity: {{clusterNames: [member1]}}\n    clusterAffinities: [{{affinityName: a, clusterNames: [member1]}}]\n"
    ));
    let preempt = pp("  preemption: Always\n  resourceSelectors: [{apiVersion: v1, kind: Pod}]\n");
    let empty_name = "name {} be empty if preemption is Always, the empty name may cause unexpected resources preemption";
    for (minor, word) in [(10, "can not"), (11, "cannot")] {
        let v = one(
            violations_at(&both, minor),
            "placement-affinity-exclusive",
            "spec.placement",
            &format!("clusterAffinities {word} co-exist with clusterAffinity"),
        );
        assert!(
            v.karmada_error().ends_with(&format!(
                ": clusterAffinities {word} co-exist with clusterAffinity"
            )),
            "{}",
            v.karmada_error()
        );
        one(
            violations_at(&preempt, minor),
            "preemption-requires-name",
            "spec.resourceSelectors[0].name",
            &empty_name.replace("{}", word),
        );
    }
}

#[test]
fn selector_namespace_mismatch() {
    let v = one(
        violations(&pp(
            "  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other, name: c}]\n",
        )),
        "selector-namespace-mismatch",
        "spec.resourceSelectors[0].namespace",
        "namespace of resource selector must be the same as the namespace of the policy",
    );
    assert_eq!(v.value.as_deref(), Some(r#""other""#));
    // A PP selector without a namespace is defaulted (M1) and valid.
    let p = pp("  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: c}]\n");
    let admitted = admit(&p, KarmadaVersion::LATEST);
    none(admitted.violations);
    assert_eq!(admitted.spec.resource_selectors[0].namespace, "default");
    // A CPP's selector namespace is never checked.
    none(violations(&cpp(
        "  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other, name: c}]\n",
    )));
}

/// validateResourceSelectors came with 1.17 (validation.go:50,57-69 @v1.17.0); every 1.16.x
/// admits the mismatch (ValidatePropagationSpec has no namespace at validation.go:43-53
/// @v1.16.0, nor ValidateOverrideSpec at :290-313), so the PP and the OP are stored.
#[test]
fn selector_namespace_mismatch_is_checked_from_1_17() {
    let p =
        pp("  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other, name: c}]\n");
    let o = op(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: o, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other}]\n",
    );
    for minor in 10..=16 {
        none(violations_at(&p, minor));
        none(validate_override_at(&o, minor));
    }
    let message = "namespace of resource selector must be the same as the namespace of the policy";
    let v = one(
        violations_at(&p, 17),
        "selector-namespace-mismatch",
        "spec.resourceSelectors[0].namespace",
        message,
    );
    assert_eq!(
        v.karmada_error(),
        format!("spec.resourceSelectors[0].namespace: Invalid value: \"other\": {message}")
    );
    one(
        validate_override_at(&o, 17),
        "selector-namespace-mismatch",
        "spec.resourceSelectors[0].namespace",
        message,
    );
    assert_eq!(
        checked_from("selector-namespace-mismatch"),
        Some(KarmadaVersion::new(1, 17))
    );
}

#[test]
fn preemption_requires_name() {
    let v = one(
        violations(&pp(
            "  preemption: Always\n  resourceSelectors:\n    - {apiVersion: v1, kind: Pod, name: named}\n    - apiVersion: v1\n      kind: Pod\n      labelSelector: {matchLabels: {app: x}}\n",
        )),
        "preemption-requires-name",
        "spec.resourceSelectors[1].name",
        "name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption",
    );
    assert_eq!(
        v.karmada_error(),
        r#"spec.resourceSelectors[1].name: Invalid value: "": name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption"#
    );
    // Also for a CPP.
    one(
        violations(&cpp(
            "  preemption: Always\n  resourceSelectors: [{apiVersion: v1, kind: Namespace}]\n",
        )),
        "preemption-requires-name",
        "spec.resourceSelectors[0].name",
        "name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption",
    );
    // Near misses: named selectors; or no preemption (default Never).
    none(violations(&pp(
        "  preemption: Always\n  resourceSelectors: [{apiVersion: v1, kind: Pod, name: a}]\n",
    )));
    none(violations(&pp(
        "  resourceSelectors: [{apiVersion: v1, kind: Pod, labelSelector: {matchLabels: {a: b}}}]\n",
    )));
}

#[test]
fn suspension_exclusive() {
    let v = one(
        violations(&pp(&format!(
            "{RS}  suspension:\n    dispatching: true\n    dispatchingOnClusters: {{clusterNames: [cluster-name]}}\n"
        ))),
        "suspension-exclusive",
        "spec.suspension.suspension",
        "suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames",
    );
    assert_eq!(
        v.karmada_error(),
        r#"spec.suspension.suspension: Invalid value: {"dispatching":true,"dispatchingOnClusters":{"clusterNames":["cluster-name"]}}: suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames"#
    );
    // All the valid shapes of validation_test.go:753-808.
    for s in [
        "  suspension: {dispatching: true}\n",
        "  suspension: {dispatching: true, dispatchingOnClusters: {clusterNames: []}}\n",
        "  suspension: {dispatchingOnClusters: {clusterNames: [a]}}\n",
        "  suspension: {dispatching: false, dispatchingOnClusters: {clusterNames: [a]}}\n",
        "  suspension: {dispatching: false}\n",
        "  suspension: {}\n",
        "  suspension: {dispatchingOnClusters: {}}\n",
    ] {
        none(violations(&pp(&format!("{RS}{s}"))));
    }
}

// ---- checks of a later release --------------------------------------------------------------

/// Each webhook check that came with the field it checks is not applied by an older release,
/// even to a spec that still holds the field (the chain prunes it first: this is the typed path,
/// `admit`): suspension (validation.go:43,62-76 @v1.11.0), workloadAffinity
/// (:112,117-141 @v1.17.0), overflowAffinities (:109-115,201,212-240 @v1.18.0).
#[test]
fn checks_that_came_with_their_field() {
    let suspended = pp(&format!(
        "{RS}  suspension:\n    dispatching: true\n    dispatchingOnClusters: {{clusterNames: [c]}}\n"
    ));
    none(violations_at(&suspended, 10));
    assert_eq!(
        violations_at(&suspended, 11)[0].rule,
        "suspension-exclusive"
    );

    let same_key = pp(&format!(
        "{RS}  placement:\n    workloadAffinity:\n      affinity: {{groupByLabelKey: 'bad key'}}\n      antiAffinity: {{groupByLabelKey: 'bad key'}}\n"
    ));
    none(violations_at(&same_key, 16));
    let rules: Vec<_> = violations_at(&same_key, 17)
        .iter()
        .map(|v| v.rule)
        .collect();
    assert_eq!(
        rules,
        [
            "workload-affinity-key-invalid",
            "workload-affinity-key-invalid",
            "workload-affinity-same-key"
        ]
    );

    let overflow = pp(&format!("{RS}  placement:\n{OVERFLOW_TERM}"));
    none(violations_at(&overflow, 17));
    assert_eq!(
        violations_at(&overflow, 18)[0].rule,
        "overflow-requires-dynamic-weight-or-aggregated"
    );
}

/// fieldOverrider and its checks came with 1.12 (validation.go:321-335,343-380 @v1.12.0).
/// Before, the image predicate path was only checked for a leading "/", so "" was refused too,
/// with another text (validation.go:291-297 @v1.10.0, :304-310 @v1.11.0).
#[test]
fn override_paths_before_1_12() {
    let fields = op_rules(
        "        fieldOverrider:\n          - fieldPath: data/config\n            json: [{subPath: key, operator: replace}]\n            yaml: [{subPath: /key, operator: remove, value: 1}]\n",
    );
    none(validate_override_at(&fields, 11));
    let rules: Vec<_> = validate_override_at(&fields, 12)
        .iter()
        .map(|v| v.rule)
        .collect();
    assert_eq!(
        rules,
        [
            "field-overrider-json-and-yaml",
            "json-pointer-invalid",
            "json-pointer-invalid",
            "override-value-required",
            "override-value-forbidden"
        ]
    );

    let predicate = |path: &str| {
        op_rules(&format!(
            "        imageOverrider:\n          - {{component: Registry, operator: replace, value: r.io, predicate: {{path: '{path}'}}}}\n"
        ))
    };
    let field = "spec.overrideRules[0].overriders.imageOverrider[0].predicate.path";
    for minor in [10, 11] {
        for path in ["spec/template", ""] {
            let v = one(
                validate_override_at(&predicate(path), minor),
                "json-pointer-invalid",
                field,
                "path should be start with / character",
            );
            assert_eq!(
                v.karmada_error(),
                format!(
                    "{field}: Invalid value: \"{path}\": path should be start with / character"
                )
            );
        }
        none(validate_override_at(&predicate("/spec/template"), minor));
    }
    // From 1.12 an empty pointer is the whole document, and valid.
    none(validate_override_at(&predicate(""), 12));
    assert_eq!(
        validate_override_at(&predicate("spec/template"), 12)[0].rule,
        "json-pointer-invalid"
    );
}

/// The JSON pointer error is go-openapi/jsonpointer's, in the version each release vendors
/// (go.mod @tags): v0.20.2/v0.21.0 in 1.12-1.16 (`errors.New(invalidStart)`,
/// pointer.go:43,83 @v1.14.0), v0.22.4 in 1.17-1.18 (`errors.Join(ErrInvalidStart, ErrPointer)`,
/// errors.go:16-19 @v1.17.0), v0.23.1 in 1.19 (the quote closed, errors.go:19 @v1.19.0-rc.0).
#[test]
fn json_pointer_text_follows_the_vendored_jsonpointer() {
    let o = op_rules(
        "        fieldOverrider:\n          - fieldPath: data/config\n            yaml: [{subPath: /key, operator: remove}]\n",
    );
    for (minor, text) in [
        (12, "JSON pointer must be empty or start with a \"/"),
        (16, "JSON pointer must be empty or start with a \"/"),
        (
            17,
            "JSON pointer must be empty or start with a \"/\nJSON pointer error",
        ),
        (
            18,
            "JSON pointer must be empty or start with a \"/\nJSON pointer error",
        ),
        (
            19,
            "JSON pointer must be empty or start with a \"/\"\nJSON pointer error",
        ),
    ] {
        let v = one(
            validate_override_at(&o, minor),
            "json-pointer-invalid",
            "spec.overrideRules[0].overriders.fieldOverrider[0].fieldPath",
            text,
        );
        assert_eq!(
            v.karmada_error(),
            format!("spec.overrideRules[0].overriders.fieldOverrider[0].fieldPath: Invalid value: \"data/config\": {text}")
        );
    }
}

/// The label checks' texts are the vendored apimachinery's: v0.29-v0.34 in Karmada 1.10-1.16
/// (`util/validation`: "characters", "a qualified name"), v0.35 from 1.17 (`content`: "bytes",
/// "a valid label key"); go.mod at the tags.
#[test]
fn label_messages_follow_the_vendored_apimachinery() {
    let long = "a".repeat(64);
    let p = pp(&format!(
        "{RS}  placement:\n    clusterAffinities: [{{affinityName: {long}, clusterNames: [m]}}]\n"
    ));
    for (minor, unit) in [
        (10, "characters"),
        (16, "characters"),
        (17, "bytes"),
        (19, "bytes"),
    ] {
        one(
            violations_at(&p, minor),
            "affinity-name-invalid",
            "spec.placement.clusterAffinities[0]",
            &format!("name part must be no more than 63 {unit}"),
        );
    }
    let o = op_rules(&format!(
        "        labelsOverrider:\n          - {{operator: add, value: {{'a/b/c': {long}}}}}\n"
    ));
    for (minor, key, unit) in [
        (16, "a qualified name", "characters"),
        (17, "a valid label key", "bytes"),
    ] {
        let vs = validate_override_at(&o, minor);
        let messages: Vec<_> = vs.iter().map(|v| (v.rule, v.message.clone())).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert_eq!(messages[0].0, "override-label-key-invalid");
        assert!(
            messages[0].1.starts_with(&format!("{key} must consist of")),
            "{messages:?}"
        );
        assert_eq!(
            messages[1],
            (
                "override-label-value-invalid",
                format!("must be no more than 63 {unit}")
            )
        );
    }
}

// ---- update and stored checks ---------------------------------------------------------------

fn two(yaml: &str) -> (Policy, Policy) {
    let mut ps = policies(yaml);
    assert_eq!(ps.len(), 2);
    let new = ps.pop().unwrap();
    (ps.pop().unwrap(), new)
}

#[test]
fn scheduler_name_immutable() {
    let base = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n";
    let (old, new) = two(&format!(
        "{base}{RS}---\n{base}  schedulerName: other\n{RS}"
    ));
    let v = one(
        validate_update(&old, &new),
        "scheduler-name-immutable",
        "spec.schedulerName",
        "the schedulerName should not be updated",
    );
    assert_eq!(v.karmada_error(), "the schedulerName should not be updated");
    // Near miss: spelling out the default is no change.
    let (old, new) = two(&format!(
        "{base}{RS}---\n{base}  schedulerName: default-scheduler\n{RS}"
    ));
    none(validate_update(&old, &new));
}

#[test]
fn permanent_id_immutable() {
    let with = |id: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: p\n  labels: {{clusterpropagationpolicy.karmada.io/permanent-id: '{id}'}}\nspec:\n{RS}")
    };
    let without = format!(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {{name: p}}\nspec:\n{RS}"
    );
    let msg = "label clusterpropagationpolicy.karmada.io/permanent-id is immutable, it can only be set by the system during creation";
    // Removed (kubectl replace with a git manifest), changed, added.
    for yaml in [
        format!("{}---\n{without}", with("a")),
        format!("{}---\n{}", with("a"), with("b")),
        format!("{without}---\n{}", with("a")),
    ] {
        let (old, new) = two(&yaml);
        let v = one(
            validate_update(&old, &new),
            "permanent-id-immutable",
            "metadata.labels.clusterpropagationpolicy.karmada.io/permanent-id",
            msg,
        );
        assert_eq!(v.karmada_error(), msg);
    }
    let (old, new) = two(&format!("{}---\n{}", with("a"), with("a")));
    none(validate_update(&old, &new));
}

#[test]
fn update_reports_the_first_failure_only() {
    let (old, new) = two(&format!(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\n  namespace: default\n  labels: {{propagationpolicy.karmada.io/permanent-id: x}}\nspec:\n{RS}---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: p, namespace: default}}\nspec:\n  schedulerName: other\n{RS}"
    ));
    let vs = validate_update(&old, &new);
    assert_eq!(vs.len(), 1);
    assert_eq!(vs[0].rule, "scheduler-name-immutable");
}

#[test]
fn permanent_id_required_for_stored_objects_only() {
    let p = pp(RS);
    // A git manifest never carries the label: admit() does not ask for it.
    none(violations(&p));
    let v = one(
        validate_stored(&p, KarmadaVersion::LATEST),
        "permanent-id-required",
        "metadata.labels.propagationpolicy.karmada.io/permanent-id",
        "label propagationpolicy.karmada.io/permanent-id is required, it should be set by the mutating admission webhook during creation",
    );
    assert_eq!(v.karmada_error(), v.message);
    let stored = policies(&format!(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\n  namespace: default\n  labels: {{propagationpolicy.karmada.io/permanent-id: 0c0d}}\nspec:\n{RS}"
    ))
    .pop()
    .unwrap();
    none(validate_stored(&stored, KarmadaVersion::LATEST));
}

// ---- denial rendering -----------------------------------------------------------------------

#[test]
fn denial_aggregates_in_order_and_dedups() {
    let p = pp(
        "  preemption: Always\n  resourceSelectors:\n    - {apiVersion: v1, kind: Pod, namespace: other}\n  failover:\n    application:\n      decisionConditions: {}\n",
    );
    let vs = violations(&p);
    let ids: Vec<_> = vs.iter().map(|v| v.rule).collect();
    // Karmada's order: F0, failover, N1, R1.
    assert_eq!(
        ids,
        [
            "application-failover-requires-propagate-deps",
            "selector-namespace-mismatch",
            "preemption-requires-name"
        ]
    );
    let text = denial(p.kind, &vs).unwrap();
    assert!(text.starts_with(
        "admission webhook \"propagationpolicy.karmada.io\" denied the request: [spec.propagateDeps: Invalid value: false:"
    ));
    assert!(text.ends_with("unexpected resources preemption]"));
    let dup = vec![vs[0].clone(), vs[0].clone()];
    assert_eq!(aggregate(&dup).unwrap(), vs[0].karmada_error());
    assert_eq!(denial(p.kind, &[]), None);
}

#[test]
fn placement_order_is_karmadas() {
    let p = pp(&format!(
        "{RS}  placement:\n    clusterAffinity: {{clusterNames: [m], fieldSelector: {{matchExpressions: [{{key: x, operator: In}}]}}}}\n    clusterAffinities:\n      - affinityName: bad name\n        clusterNames: [m]\n        overflowAffinities: [{{affinityName: o, clusterNames: [m2]}}]\n    spreadConstraints: [{{spreadByField: region}}]\n    workloadAffinity:\n      affinity: {{groupByLabelKey: k}}\n      antiAffinity: {{groupByLabelKey: k}}\n    clusterTolerations: [{{key: t, operator: Lt}}]\n"
    ));
    let ids: Vec<_> = violations(&p).iter().map(|v| v.rule).collect();
    assert_eq!(
        ids,
        [
            "placement-affinity-exclusive",
            "overflow-requires-dynamic-weight-or-aggregated",
            "field-selector-key-unsupported",
            "affinity-name-invalid",
            "spread-cluster-required",
            "workload-affinity-same-key",
            "toleration-operator-unsupported",
        ]
    );
}

// ---- override policies ----------------------------------------------------------------------

const OP_HEAD: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: o, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: c}]\n";

#[test]
fn override_rules_and_target_cluster() {
    let v = one(
        validate_override(&op(&format!(
            "{OP_HEAD}  targetCluster: {{clusterNames: [cluster-name]}}\n  overrideRules:\n    - targetCluster: {{clusterNames: [cluster-name]}}\n"
        ))),
        "override-rules-and-target-cluster",
        "spec.targetCluster",
        "overrideRules and targetCluster can't co-exist",
    );
    assert_eq!(
        v.value.as_deref(),
        Some(r#"{"clusterNames":["cluster-name"]}"#)
    );
    none(validate_override(&op(&format!(
        "{OP_HEAD}  targetCluster: {{clusterNames: [cluster-name]}}\n  overriders:\n    plaintext: [{{path: /spec/replicas, operator: replace, value: 1}}]\n"
    ))));
}

#[test]
fn override_rules_and_overriders() {
    one(
        validate_override(&op(&format!(
            "{OP_HEAD}  overriders:\n    plaintext: [{{path: spec/image}}]\n  overrideRules:\n    - targetCluster: {{clusterNames: [cluster-name]}}\n"
        ))),
        "override-rules-and-overriders",
        "spec.overriders",
        "overrideRules and overriders can't co-exist",
    );
    // All three: both errors, targetCluster first.
    let vs = validate_override(&op(&format!(
        "{OP_HEAD}  targetCluster: {{clusterNames: [c]}}\n  overriders:\n    plaintext: [{{path: spec/image}}]\n  overrideRules:\n    - targetCluster: {{clusterNames: [c]}}\n"
    )));
    let ids: Vec<_> = vs.iter().map(|v| v.rule).collect();
    assert_eq!(
        ids,
        [
            "override-rules-and-target-cluster",
            "override-rules-and-overriders"
        ]
    );
    // Near miss: empty overriders do not count.
    none(validate_override(&op(&format!(
        "{OP_HEAD}  overriders: {{plaintext: []}}\n  overrideRules:\n    - targetCluster: {{clusterNames: [c]}}\n"
    ))));
}

#[test]
fn override_selector_namespace_and_field_selectors() {
    one(
        validate_override(&op(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: o, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other}]\n",
        )),
        "selector-namespace-mismatch",
        "spec.resourceSelectors[0].namespace",
        "namespace of resource selector must be the same as the namespace of the policy",
    );
    // Defaulted namespace, and a ClusterOverridePolicy, are fine.
    none(validate_override(&op(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: o, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n",
    )));
    none(validate_override(&op(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterOverridePolicy\nmetadata: {name: o}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other}]\n",
    )));
    one(
        validate_override(&op(&format!(
            "{OP_HEAD}  targetCluster:\n    fieldSelector: {{matchExpressions: [{{key: foo, operator: In, values: [fooCloud]}}]}}\n"
        ))),
        "field-selector-key-unsupported",
        "spec.targetCluster.fieldSelector",
        r#"unsupported key "foo", must be provider, region, or zone"#,
    );
    one(
        validate_override(&op(&format!(
            "{OP_HEAD}  overrideRules:\n    - targetCluster:\n        fieldSelector: {{matchExpressions: [{{key: provider, operator: Gt, values: [fooCloud]}}]}}\n"
        ))),
        "field-selector-operator-unsupported",
        "spec.overrideRules[0].targetCluster.fieldSelector",
        r#"unsupported operator "Gt", must be In or NotIn"#,
    );
}

#[test]
fn override_annotation_and_label_checks() {
    one(
        validate_override(&op_rules(
            "        annotationsOverrider:\n          - {operator: add, value: {'testannotation~projectId': c-m-lfx9lk92p-v86cf}}\n",
        )),
        "override-annotation-key-invalid",
        "spec.overrideRules[0].overriders.annotationsOverrider[0].value",
        NAME_PART,
    );
    // Annotation keys are compared lower-cased; label keys allow upper case too.
    none(validate_override(&op_rules(
        "        annotationsOverrider:\n          - {operator: add, value: {Example.COM/Note: 'any value at all'}}\n",
    )));
    let v = one(
        validate_override(&op_rules(
            "        labelsOverrider:\n          - {operator: add, value: {'testlabel~projectId': ok}}\n",
        )),
        "override-label-key-invalid",
        "spec.overrideRules[0].overriders.labelsOverrider[0].value",
        NAME_PART,
    );
    assert_eq!(v.value.as_deref(), Some(r#""testlabel~projectId""#));
    let v = one(
        validate_override(&op_rules(
            "        labelsOverrider:\n          - {operator: add, value: {tier: 'front end'}}\n",
        )),
        "override-label-value-invalid",
        "spec.overrideRules[0].overriders.labelsOverrider[0].value",
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
    assert_eq!(v.value.as_deref(), Some(r#""front end""#));
    none(validate_override(&op_rules(
        "        labelsOverrider:\n          - {operator: add, value: {tier: frontend, empty: ''}}\n",
    )));
}

/// `ValidateAnnotationsSize`: keys and values count, and the limit itself is allowed.
#[test]
fn override_annotations_over_256_kib_are_too_long() {
    let annotations = |value_len: usize| {
        op_rules(&format!(
            "        annotationsOverrider:\n          - {{operator: add, value: {{a/b: {}}}}}\n",
            "x".repeat(value_len)
        ))
    };
    // "a/b" is 3 bytes: 3 + 262,141 is exactly the limit.
    none(validate_override(&annotations(262_141)));
    let v = one(
        validate_override(&annotations(262_142)),
        "override-annotations-too-long",
        "spec.overrideRules[0].overriders.annotationsOverrider[0].value",
        "may not be more than 262144 bytes",
    );
    assert_eq!(
        v.karmada_error(),
        "spec.overrideRules[0].overriders.annotationsOverrider[0].value: Too long: may not be more than 262144 bytes"
    );
    // field.TooLong of apimachinery up to v0.31 (Karmada 1.10-1.13) words it otherwise
    // (field/errors.go:228 @v1.13.0; :230 @v1.14.0).
    for (minor, text) in [
        (13, "must have at most 262144 bytes"),
        (14, "may not be more than 262144 bytes"),
    ] {
        one(
            validate_override_at(&annotations(262_142), minor),
            "override-annotations-too-long",
            "spec.overrideRules[0].overriders.annotationsOverrider[0].value",
            text,
        );
    }
}

#[test]
fn override_json_pointers() {
    let msg = "JSON pointer must be empty or start with a \"/\"\nJSON pointer error";
    one(
        validate_override(&op_rules(
            "        imageOverrider:\n          - {component: Registry, operator: replace, value: r.io, predicate: {path: spec/template}}\n",
        )),
        "json-pointer-invalid",
        "spec.overrideRules[0].overriders.imageOverrider[0].predicate.path",
        msg,
    );
    one(
        validate_override(&op_rules(
            "        fieldOverrider:\n          - fieldPath: data/config\n            json: [{subPath: /key, operator: remove}]\n",
        )),
        "json-pointer-invalid",
        "spec.overrideRules[0].overriders.fieldOverrider[0].fieldPath",
        msg,
    );
    one(
        validate_override(&op_rules(
            "        fieldOverrider:\n          - fieldPath: /data/config\n            yaml: [{subPath: key, operator: remove}]\n",
        )),
        "json-pointer-invalid",
        "spec.overrideRules[0].overriders.fieldOverrider[0].yaml[0].subPath",
        msg,
    );
    // Near misses: "/" paths, and an empty pointer (the whole document).
    none(validate_override(&op_rules(
        "        imageOverrider:\n          - {component: Registry, operator: replace, value: r.io, predicate: {path: /spec/template}}\n        fieldOverrider:\n          - fieldPath: /data/config\n            json: [{subPath: '', operator: replace, value: {a: 1}}]\n",
    )));
}

#[test]
fn field_overrider_json_and_yaml() {
    one(
        validate_override(&op_rules(
            "        fieldOverrider:\n          - fieldPath: /data/config\n            json: [{subPath: /key, operator: remove}]\n            yaml: [{subPath: /key, operator: remove}]\n",
        )),
        "field-overrider-json-and-yaml",
        "spec.overrideRules[0].overriders.fieldOverrider[0]",
        "FieldOverrider has both YAML and JSON set. Only one is allowed",
    );
    one(
        validate_override(&op_rules(
            "        fieldOverrider:\n          - fieldPath: /data/config\n",
        )),
        "field-overrider-json-or-yaml",
        "spec.overrideRules[0].overriders.fieldOverrider[0]",
        "FieldOverrider must have either JSON or YAML set",
    );
    none(validate_override(&op_rules(
        "        fieldOverrider:\n          - fieldPath: /data/config\n            yaml: [{subPath: /key, operator: remove}]\n",
    )));
}

/// "Neither set" came with 1.18 as a field.Required (validation.go:497-499 @v1.18.0): 1.12-1.17
/// check only "both set" (validation.go:415-417 @v1.17.0), so they store the overrider.
#[test]
fn field_overrider_json_or_yaml_is_checked_from_1_18() {
    let o = op_rules("        fieldOverrider:\n          - fieldPath: /data/config.yaml\n");
    for minor in 12..=17 {
        none(validate_override_at(&o, minor));
    }
    let v = one(
        validate_override_at(&o, 18),
        "field-overrider-json-or-yaml",
        "spec.overrideRules[0].overriders.fieldOverrider[0]",
        "FieldOverrider must have either JSON or YAML set",
    );
    assert_eq!(
        v.karmada_error(),
        "spec.overrideRules[0].overriders.fieldOverrider[0]: Required value: FieldOverrider must have either JSON or YAML set"
    );
    // "Both set" is older: 1.12 has it.
    one(
        validate_override_at(
            &op_rules(
                "        fieldOverrider:\n          - fieldPath: /data/config\n            json: [{subPath: /key, operator: remove}]\n            yaml: [{subPath: /key, operator: remove}]\n",
            ),
            12,
        ),
        "field-overrider-json-and-yaml",
        "spec.overrideRules[0].overriders.fieldOverrider[0]",
        "FieldOverrider has both YAML and JSON set. Only one is allowed",
    );
}

#[test]
fn override_values() {
    let v = one(
        validate_override(&op_rules(
            "        fieldOverrider:\n          - fieldPath: /data/config\n            json: [{subPath: /key, operator: replace}]\n",
        )),
        "override-value-required",
        "spec.overrideRules[0].overriders.fieldOverrider[0].json[0].value",
        "value is required for add or replace operation",
    );
    assert_eq!(
        v.karmada_error(),
        "spec.overrideRules[0].overriders.fieldOverrider[0].json[0].value: Invalid value: null: value is required for add or replace operation"
    );
    let v = one(
        validate_override(&op_rules(
            "        fieldOverrider:\n          - fieldPath: /data/config\n            yaml: [{subPath: /key, operator: remove, value: {a: ''}}]\n",
        )),
        "override-value-forbidden",
        "spec.overrideRules[0].overriders.fieldOverrider[0].yaml[0].value",
        "value is not allowed for remove operation",
    );
    assert_eq!(v.value.as_deref(), Some(r#"{"a":""}"#));
    none(validate_override(&op_rules(
        "        fieldOverrider:\n          - fieldPath: /data/config\n            yaml:\n              - {subPath: /key, operator: add, value: 1}\n              - {subPath: /other, operator: remove, value: null}\n",
    )));
}
