//! The documentation of every admission rule `crate::engine::admission` emits: one entry per id,
//! in the order Karmada checks them. The checks stay in the engine; the registry lists these
//! docs ([`DOCS`]), so `--list-rules`, SARIF metadata and the README table are built from them.

use crate::lint::finding::Severity;
use crate::lint::rule::{RuleDoc, RuleGroup};

/// One admission rule: what Karmada refuses, in its own words.
#[derive(Clone, Debug)]
pub struct AdmissionRule {
    /// Stable kebab-case id (what [`crate::engine::admission::Violation::rule`] carries).
    pub id: &'static str,
    /// One line: what the rule finds.
    pub summary: &'static str,
    /// Karmada's detail text (placeholders in `<angle brackets>`).
    pub message: &'static str,
    /// Why Karmada refuses it, and what happens otherwise.
    pub rationale: &'static str,
    /// A policy that triggers the rule (for update rules: the stored object, `---`, the update).
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// Karmada source lines and specification section.
    pub reference: &'static str,
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static AdmissionRule> {
    RULES.iter().find(|r| r.id == id)
}

const IS_LABEL_KEY: &str = "<IsLabelKey message, e.g. name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')>";

pub const RULES: &[AdmissionRule] = &[
    // ---- ValidatePlacement and the functions it calls -------------------------------------
    AdmissionRule {
        id: "placement-affinity-exclusive",
        summary: "placement sets both clusterAffinity and clusterAffinities",
        message: "clusterAffinities cannot co-exist with clusterAffinity",
        rationale: "clusterAffinities is the ordered, fail-over capable form of clusterAffinity; the scheduler cannot honour both. An empty `clusterAffinities: []` counts as set. Karmada 1.10 words it \"can not co-exist\".",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinity: {clusterNames: [member1]}
    clusterAffinities:
      - affinityName: primary
        clusterNames: [member1]
",
        fix: "Keep one of them: move the clusterAffinity into a single clusterAffinities term, or drop clusterAffinities.",
        reference: "pkg/util/validation/validation.go:105-107 (ValidatePlacement)",
    },
    AdmissionRule {
        id: "overflow-requires-dynamic-weight-or-aggregated",
        summary: "overflowAffinities without Divided replicas that are Aggregated or dynamically weighted",
        message: "overflowAffinities can only be used together with dynamic weight or aggregated scheduling",
        rationale: "Overflow moves replicas that do not fit the primary group; only Aggregated or dynamic-weight division computes what fits. Note that Divided without a preference is defaulted to Weighted, and Weighted without dynamicWeight is static. Karmada checks this from 1.18, which added overflowAffinities.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinities:
      - affinityName: primary
        clusterNames: [member1]
        overflowAffinities:
          - affinityName: burst
            clusterNames: [member2]
",
        fix: "Set replicaScheduling to `replicaSchedulingType: Divided` with `replicaDivisionPreference: Aggregated`, or Weighted with `weightPreference.dynamicWeight: AvailableReplicas`.",
        reference: "pkg/util/validation/validation.go:110-115 (ValidatePlacement); pkg/util/policy.go:31-44 (IsOverflowSchedulingAllowed)",
    },
    AdmissionRule {
        id: "field-selector-key-unsupported",
        summary: "a cluster fieldSelector uses a key other than provider, region or zone",
        message: "unsupported key \"<key>\", must be provider, region, or zone",
        rationale: "Cluster field selectors match Cluster.spec.provider/region/zone only. Only the first bad expression of a selector is reported, and its key is checked before its operator.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinity:
      fieldSelector:
        matchExpressions: [{key: name, operator: In, values: [member1]}]
",
        fix: "Use provider, region or zone; select clusters by name with clusterNames or by label with labelSelector.",
        reference: "pkg/util/validation/validation.go:172-183, 243-263 (ValidateClusterAffinity, ValidatePolicyFieldSelector)",
    },
    AdmissionRule {
        id: "field-selector-operator-unsupported",
        summary: "a cluster fieldSelector uses an operator other than In or NotIn",
        message: "unsupported operator \"<operator>\", must be In or NotIn",
        rationale: "Cluster field selectors support only set membership. Only the first bad expression of a selector is reported.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinity:
      fieldSelector:
        matchExpressions: [{key: region, operator: Exists}]
",
        fix: "Use In or NotIn with a list of values.",
        reference: "pkg/util/validation/validation.go:255-259 (ValidatePolicyFieldSelector)",
    },
    AdmissionRule {
        id: "affinity-name-invalid",
        summary: "a clusterAffinities term name is not a valid label key",
        message: IS_LABEL_KEY,
        rationale: "The affinity name is recorded on the binding as the scheduling group; Karmada requires it to be a label key. The error is reported at `spec.placement.clusterAffinities[i]`, without `.affinityName`.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinities:
      - affinityName: primary group
        clusterNames: [member1]
",
        fix: "Use letters, digits, '-', '_' or '.', starting and ending with a letter or digit (optionally prefixed by a DNS subdomain and '/').",
        reference: "pkg/util/validation/validation.go:191-193 (ValidateClusterAffinities); k8s.io/apimachinery/pkg/api/validate/content/kube.go:43-72 (IsLabelKey)",
    },
    AdmissionRule {
        id: "affinity-name-duplicate",
        summary: "two clusterAffinities terms share an affinityName",
        message: "each affinity term in a policy must have a unique name",
        rationale: "The scheduler tracks which term a binding is on by name; duplicates make fail-over between terms ambiguous. Reported once per repeat, at the list, with the whole list as value.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterAffinities:
      - affinityName: group1
        clusterNames: [member1]
      - affinityName: group1
        clusterNames: [member2]
",
        fix: "Give every term its own affinityName.",
        reference: "pkg/util/validation/validation.go:194-198 (ValidateClusterAffinities)",
    },
    AdmissionRule {
        id: "overflow-requires-inline-affinity",
        summary: "a term with overflowAffinities selects no primary clusters",
        message: "overflowAffinities can only be used together with the inline ClusterAffinity",
        rationale: "Overflow extends a primary group; a term without labelSelector, fieldSelector, clusterNames or exclude has no primary group to overflow from. Karmada checks this from 1.18, which added overflowAffinities.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}
    clusterAffinities:
      - affinityName: primary
        overflowAffinities:
          - affinityName: burst
            clusterNames: [member2]
",
        fix: "Select the primary clusters in the term itself (clusterNames, labelSelector, fieldSelector or exclude).",
        reference: "pkg/util/validation/validation.go:219-222, 444-455 (ValidateOverflowAffinities, emptyClusterAffinity)",
    },
    AdmissionRule {
        id: "overflow-name-invalid",
        summary: "an overflow affinity name is not a valid label key",
        message: IS_LABEL_KEY,
        rationale: "Overflow names are scheduling group names, like affinityName. Karmada checks this from 1.18, which added overflowAffinities.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}
    clusterAffinities:
      - affinityName: primary
        clusterNames: [member1]
        overflowAffinities:
          - affinityName: -burst
            clusterNames: [member2]
",
        fix: "Use a valid label key as the overflow affinityName.",
        reference: "pkg/util/validation/validation.go:227-229 (ValidateOverflowAffinities)",
    },
    AdmissionRule {
        id: "overflow-name-duplicate",
        summary: "an overflow affinity name repeats another overflow name or the term's affinityName",
        message: "overflow affinity name must be unique and must not duplicate the primary group's affinityName",
        rationale: "Groups are identified by name; a repeated name makes the overflow order ambiguous. Karmada checks this from 1.18, which added overflowAffinities.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}
    clusterAffinities:
      - affinityName: primary
        clusterNames: [member1]
        overflowAffinities:
          - affinityName: primary
            clusterNames: [member2]
",
        fix: "Give each overflow term a name used nowhere else in the term.",
        reference: "pkg/util/validation/validation.go:225-234 (ValidateOverflowAffinities)",
    },
    AdmissionRule {
        id: "spread-by-label-and-field",
        summary: "a spread constraint sets both spreadByLabel and spreadByField",
        message: "spreadByLabel should not co-exist with spreadByField",
        rationale: "A constraint groups clusters either by a cluster field or by a label, not both.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    spreadConstraints:
      - {spreadByField: cluster, spreadByLabel: team, maxGroups: 2}
",
        fix: "Split it into two constraints, or keep one of the two keys.",
        reference: "pkg/util/validation/validation.go:272-274 (ValidateSpreadConstraint)",
    },
    AdmissionRule {
        id: "spread-min-groups-negative",
        summary: "a spread constraint has a negative minGroups",
        message: "minGroups lower than 0 is not allowed",
        rationale: "A group count cannot be negative. (0 or absent is defaulted to 1 by the mutating webhook.)",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    spreadConstraints:
      - {spreadByField: cluster, minGroups: -1, maxGroups: 2}
",
        fix: "Use minGroups 1 or more.",
        reference: "pkg/util/validation/validation.go:277-279 (ValidateSpreadConstraint)",
    },
    AdmissionRule {
        id: "spread-max-groups-negative",
        summary: "a spread constraint has a negative maxGroups",
        message: "maxGroups lower than 0 is not allowed",
        rationale: "A group count cannot be negative; 0 means no maximum.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    spreadConstraints:
      - {spreadByField: cluster, maxGroups: -1}
",
        fix: "Use 0 (no maximum) or a positive maxGroups.",
        reference: "pkg/util/validation/validation.go:282-284 (ValidateSpreadConstraint)",
    },
    AdmissionRule {
        id: "spread-max-below-min",
        summary: "a spread constraint's maxGroups is below its minGroups",
        message: "maxGroups lower than minGroups is not allowed",
        rationale: "No number of groups satisfies both bounds. maxGroups 0 disables the check; an absent minGroups counts as 1 after defaulting.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    spreadConstraints:
      - {spreadByField: cluster, minGroups: 3, maxGroups: 2}
",
        fix: "Raise maxGroups to at least minGroups, or lower minGroups.",
        reference: "pkg/util/validation/validation.go:287-289 (ValidateSpreadConstraint)",
    },
    AdmissionRule {
        id: "spread-field-duplicate",
        summary: "the same spreadByField appears in more than one spread constraint",
        message: "multiple <field> spread constraints are not allowed",
        rationale: "Each cluster field can carry one group-count constraint. Reported once per repeated field, at the list, with the whole list as value. An empty constraint `{}` becomes a cluster constraint.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    spreadConstraints:
      - {spreadByField: cluster, maxGroups: 2}
      - {spreadByField: cluster, maxGroups: 3}
",
        fix: "Merge the constraints on the same field into one.",
        reference: "pkg/util/validation/validation.go:291-300 (ValidateSpreadConstraint)",
    },
    AdmissionRule {
        id: "spread-cluster-required",
        summary: "spreadByField constraints without one on `cluster`",
        message: "the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled",
        rationale: "Region, zone or provider groups are filled with clusters; the scheduler needs the cluster constraint to know how many clusters to pick. An empty constraint `{}` is defaulted to `spreadByField: cluster` and satisfies this rule.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    spreadConstraints:
      - {spreadByField: region, maxGroups: 2}
",
        fix: "Add a constraint such as `{spreadByField: cluster, maxGroups: 3, minGroups: 2}`.",
        reference: "pkg/util/validation/validation.go:303-310 (ValidateSpreadConstraint)",
    },
    AdmissionRule {
        id: "workload-affinity-key-invalid",
        summary: "a workloadAffinity groupByLabelKey is not a valid label key",
        message: IS_LABEL_KEY,
        rationale: "Workloads are grouped by the value of this label on the resource template, so it must be a label key. Karmada checks this from 1.17, which added placement.workloadAffinity.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    workloadAffinity:
      affinity: {groupByLabelKey: 'INVALID KEY!'}
",
        fix: "Use a valid label key, e.g. `app.group` or `example.com/group`.",
        reference: "pkg/util/validation/validation.go:152-161 (ValidateWorkloadAffinity)",
    },
    AdmissionRule {
        id: "workload-affinity-same-key",
        summary: "workload affinity and anti-affinity group by the same label key",
        message: "affinity and antiAffinity must not use the same groupByLabelKey",
        rationale: "Co-locating and separating the same group at once cannot be satisfied. Karmada checks this from 1.17, which added placement.workloadAffinity.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    workloadAffinity:
      affinity: {groupByLabelKey: app.group}
      antiAffinity: {groupByLabelKey: app.group}
",
        fix: "Group affinity and anti-affinity by different label keys.",
        reference: "pkg/util/validation/validation.go:163-167 (ValidateWorkloadAffinity)",
    },
    AdmissionRule {
        id: "toleration-operator-unsupported",
        summary: "a cluster toleration uses the Lt or Gt operator",
        message: "Unsupported value: \"<operator>\": supported values: \"\", \"Exists\", \"Equal\"",
        rationale: "Lt and Gt compare numeric node taints; cluster taints support only Exists and Equal. Karmada checks this from 1.18: 1.10 to 1.17 store the toleration (their CRD has no enum on the operator).",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  placement:
    clusterTolerations:
      - {key: capacity, operator: Lt, value: '100', effect: NoSchedule}
",
        fix: "Use Exists or Equal (or leave the operator empty, which means Equal).",
        reference: "pkg/util/validation/validation.go:132-142 @v1.18.0 (validateClusterTolerations; absent before v1.18.0)",
    },
    // ---- failover: ValidatePropagationSpec, ValidateApplicationFailover ---------------------
    AdmissionRule {
        id: "application-failover-requires-propagate-deps",
        summary: "application failover without propagateDeps: true",
        message: "application failover is set, propagateDeps must be true",
        rationale: "Migrating an application to another cluster would leave its ConfigMaps and Secrets behind unless dependencies follow it. Cluster failover does not require it.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  failover:
    application:
      decisionConditions: {tolerationSeconds: 120}
",
        fix: "Add `propagateDeps: true` to the spec.",
        reference: "pkg/util/validation/validation.go:46-48 (ValidatePropagationSpec)",
    },
    AdmissionRule {
        id: "toleration-seconds-negative",
        summary: "application failover decisionConditions.tolerationSeconds is negative",
        message: "must be greater than or equal to 0",
        rationale: "It is how long an unhealthy application is tolerated before failover; 0 means immediately, a negative time means nothing.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  propagateDeps: true
  failover:
    application:
      decisionConditions: {tolerationSeconds: -100}
",
        fix: "Use 0 or more seconds (300 when left out).",
        reference: "pkg/util/validation/validation.go:336-338 (ValidateApplicationFailover)",
    },
    AdmissionRule {
        id: "grace-period-without-gracefully",
        summary: "gracePeriodSeconds with a purgeMode other than the graceful one",
        message: "only takes effect when purgeMode is gracefully",
        rationale: "The grace period is how long the old copy is kept while the new one comes up; Directly and Never do not wait. Karmada up to 1.14 spells the mode Graciously (and says \"graciously\"); 1.15 to 1.18 take both spellings.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  propagateDeps: true
  failover:
    application:
      decisionConditions: {tolerationSeconds: 100}
      purgeMode: Directly
      gracePeriodSeconds: 100
",
        fix: "Remove gracePeriodSeconds, or use `purgeMode: Gracefully` (Graciously before 1.15).",
        reference: "pkg/util/validation/validation.go:340-343 (ValidateApplicationFailover)",
    },
    AdmissionRule {
        id: "grace-period-required",
        summary: "graceful purge without gracePeriodSeconds, on a spec that skipped the mutating webhook",
        message: "should not be empty when purgeMode is gracefully",
        rationale: "Unreachable through the API server: the mutating webhook fills 600 seconds first (M5), so `purgeMode: Gracefully` alone is admitted. It only fires when validating a spec without Karmada's defaults.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  propagateDeps: true
  failover:
    application:
      decisionConditions: {tolerationSeconds: 100}
      purgeMode: Gracefully
",
        fix: "Set gracePeriodSeconds (the webhook would use 600).",
        reference: "pkg/util/validation/validation.go:345-348 (ValidateApplicationFailover); pkg/util/helper/policy.go:130-135 (SetDefaultGracePeriodSeconds, called by the mutating webhook pkg/webhook/propagationpolicy/mutating.go Handle)",
    },
    AdmissionRule {
        id: "grace-period-not-positive",
        summary: "gracePeriodSeconds is 0 or negative",
        message: "must be greater than 0",
        rationale: "A zero grace period would evict the old copy at once, which is what purgeMode Directly is for. An explicit 0 is not replaced by the webhook's 600.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  propagateDeps: true
  failover:
    application:
      decisionConditions: {tolerationSeconds: 100}
      purgeMode: Gracefully
      gracePeriodSeconds: 0
",
        fix: "Use a positive number of seconds, or leave it out for 600.",
        reference: "pkg/util/validation/validation.go:350-352 (ValidateApplicationFailover)",
    },
    AdmissionRule {
        id: "state-preservation-alias-invalid",
        summary: "a statePreservation aliasLabelName is not a valid label name",
        message: IS_LABEL_KEY,
        rationale: "The preserved state is injected into the migrated workload as a label with this name. Karmada checks this from 1.15: 1.12 to 1.14 store any alias (their CRD has statePreservation with aliasLabelName a plain string).",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  propagateDeps: true
  failover:
    application:
      decisionConditions: {tolerationSeconds: 100}
      statePreservation:
        rules:
          - {aliasLabelName: -invalid-label, jsonPath: '{.availableReplicas}'}
",
        fix: "Use a valid label name such as `example.com/replicas`.",
        reference: "pkg/util/validation/validation.go:354-373, 389-391 (ValidateApplicationFailover, validateClusterFailover, validateStatePreservationRule); validation.go:271-287 @v1.15.0 (absent before v1.15.0)",
    },
    // ---- selectors, preemption, suspension --------------------------------------------------
    AdmissionRule {
        id: "selector-namespace-mismatch",
        summary: "a PropagationPolicy or OverridePolicy selects resources in another namespace",
        message: "namespace of resource selector must be the same as the namespace of the policy",
        rationale: "Namespaced policies only govern their own namespace. A selector without a namespace is filled in with the policy's, so only an explicit other namespace fails; cluster-scoped policies are never checked. Karmada checks this from 1.17: 1.10 to 1.16 store such a policy, and its selector never matches anything.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: other, name: nginx}]
",
        fix: "Move the policy to the resources' namespace, drop the selector's namespace, or use the cluster-scoped kind (a ClusterPropagationPolicy, a ClusterOverridePolicy).",
        reference: "pkg/util/validation/validation.go:57-69 @v1.17.0 (validateResourceSelectors, called by ValidatePropagationSpec and, for OverridePolicy, ValidateOverrideSpec; absent before v1.17.0)",
    },
    AdmissionRule {
        id: "preemption-requires-name",
        summary: "preemption: Always with a resource selector that has no name",
        message: "name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption",
        rationale: "A preempting policy takes resources from other policies; without a name a selector could take every matching resource. A labelSelector does not satisfy this rule. Karmada 1.10 words it \"name can not be empty\".",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  preemption: Always
  priority: 10
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      labelSelector: {matchLabels: {app: nginx}}
",
        fix: "Name every resource the policy may preempt, or set `preemption: Never`.",
        reference: "pkg/util/validation/validation.go:72-84 (validateResourceSelectorsIfPreemptionEnabled)",
    },
    AdmissionRule {
        id: "suspension-exclusive",
        summary: "suspension sets dispatching: true and lists dispatchingOnClusters.clusterNames",
        message: "suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames",
        rationale: "dispatching: true already pauses every cluster; a cluster list next to it is contradictory. `clusterNames: []` is fine. The field is reported as `spec.suspension.suspension` (sic). Karmada checks this from 1.11, which added spec.suspension.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  suspension:
    dispatching: true
    dispatchingOnClusters: {clusterNames: [member1]}
",
        fix: "Keep `dispatching: true` to pause everything, or drop it and list the clusters to pause.",
        reference: "pkg/util/validation/validation.go:86-99 (validateSuspension)",
    },
    // ---- the webhooks' validateUpdate and validatePolicy -----------------------------------
    AdmissionRule {
        id: "scheduler-name-immutable",
        summary: "an update changes spec.schedulerName",
        message: "the schedulerName should not be updated",
        rationale: "Bindings already scheduled by one scheduler would be orphaned by another. Both sides are compared after the default `default-scheduler`. A plain message with no field prefix.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  schedulerName: my-scheduler
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
",
        fix: "Keep the scheduler name; to change it, delete and recreate the policy.",
        reference: "pkg/webhook/propagationpolicy/validating.go:71-85 (ValidatingAdmission.validateUpdate); pkg/webhook/clusterpropagationpolicy/validating.go:58-62 (ValidatingAdmission.Handle)",
    },
    AdmissionRule {
        id: "permanent-id-immutable",
        summary: "an update changes, adds or removes the policy's permanent-id label",
        message: "label propagationpolicy.karmada.io/permanent-id is immutable, it can only be set by the system during creation",
        rationale: "Resource templates and bindings point at their policy through this id. `kubectl replace` with a git manifest that lacks the label is refused. (CPP: clusterpropagationpolicy.karmada.io/permanent-id.)",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: nginx
  namespace: default
  labels: {propagationpolicy.karmada.io/permanent-id: 6b7bf6a4-0d1c-4a8e-9f43-3a1c2b9e0f11}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
",
        fix: "Use `kubectl apply` (which keeps labels it does not manage), or copy the stored label value into the manifest.",
        reference: "pkg/webhook/propagationpolicy/validating.go:71-85 (ValidatingAdmission.validateUpdate); pkg/webhook/clusterpropagationpolicy/validating.go:64-68 (ValidatingAdmission.Handle)",
    },
    AdmissionRule {
        id: "permanent-id-required",
        summary: "a stored policy has no permanent-id label",
        message: "label propagationpolicy.karmada.io/permanent-id is required, it should be set by the mutating admission webhook during creation",
        rationale: "Only seen when the mutating webhook did not run at creation; manifests in git never need the label, since the webhook sets it on CREATE. (CPP: clusterpropagationpolicy.karmada.io/permanent-id.)",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
",
        fix: "Check that Karmada's mutating webhook configuration is installed and reachable, then recreate the policy.",
        reference: "pkg/webhook/propagationpolicy/validating.go:87-99 (ValidatingAdmission.validatePolicy); pkg/webhook/clusterpropagationpolicy/validating.go:70-73 (ValidatingAdmission.Handle)",
    },
    AdmissionRule {
        id: "policy-name-too-long",
        summary: "a PropagationPolicy or ClusterPropagationPolicy name is longer than 63 characters (Karmada 1.10)",
        message: "<Kind>'s name should be no more than 63 characters",
        rationale: "Karmada 1.10 labels every resource template a policy claims with the policy's name, and a label value holds at most 63 characters, so its mutating webhook refuses a longer name (HTTP 400, before any validation). Karmada checks this up to 1.10: 1.11 claims templates by the policy's permanent-id and takes any name.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: nginx-propagation-to-every-member-cluster-in-the-production-fleet, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
",
        fix: "Shorten the name to 63 characters or fewer.",
        reference: "pkg/webhook/propagationpolicy/mutating.go:77-78 @v1.10.0; pkg/webhook/clusterpropagationpolicy/mutating.go:69-70 @v1.10.0 (MutatingAdmission.Handle; removed in v1.11.0)",
    },
    // ---- ValidateOverrideSpec, ValidateOverrideRules ----------------------------------------
    AdmissionRule {
        id: "override-rules-and-target-cluster",
        summary: "an override policy sets both overrideRules and the deprecated targetCluster",
        message: "overrideRules and targetCluster can't co-exist",
        rationale: "targetCluster/overriders is the deprecated single-rule form of overrideRules; both at once is ambiguous. In a ClusterOverridePolicy `overrideRules: []` counts as set (Go compares the list with nil); an OverridePolicy's mutating webhook marshals the policy again first, and `omitempty` drops the empty list (pkg/webhook/overridepolicy/mutating.go).",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  targetCluster: {clusterNames: [member1]}
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        plaintext: [{path: /spec/replicas, operator: replace, value: 2}]
",
        fix: "Move targetCluster into an overrideRules entry.",
        reference: "pkg/util/validation/validation.go:394-418 (ValidateOverrideSpec)",
    },
    AdmissionRule {
        id: "override-rules-and-overriders",
        summary: "an override policy sets both overrideRules and the deprecated overriders",
        message: "overrideRules and overriders can't co-exist",
        rationale: "overriders is the deprecated single-rule form of overrideRules. As for targetCluster, `overrideRules: []` counts as set in a ClusterOverridePolicy only: an OverridePolicy's mutating webhook drops the empty list first.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  overriders:
    plaintext: [{path: /spec/replicas, operator: replace, value: 2}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
",
        fix: "Move the overriders into an overrideRules entry.",
        reference: "pkg/util/validation/validation.go:394-418 (ValidateOverrideSpec)",
    },
    AdmissionRule {
        id: "override-annotation-key-invalid",
        summary: "an annotationsOverrider adds an annotation whose key is not a qualified name",
        message: IS_LABEL_KEY,
        rationale: "The API server would refuse the overridden object in the member cluster (ValidateAnnotations, keys compared lower-cased).",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        annotationsOverrider:
          - operator: add
            value: {'testannotation~projectId': c-m-lfx9lk92p-v86cf}
",
        fix: "Use a valid annotation key (optional DNS prefix, '/', and a name of letters, digits, '-', '_' or '.').",
        reference: "pkg/util/validation/validation.go:458-508 (ValidateOverrideRules)",
    },
    AdmissionRule {
        id: "override-annotations-too-long",
        summary: "an annotationsOverrider adds more than 256 KiB of annotations (keys and values together)",
        message: "may not be more than 262144 bytes",
        rationale: "Karmada's webhook runs apimachinery's ValidateAnnotations on the overrider's value, size limit \
                    included, so the OverridePolicy is refused; the member cluster's API server would refuse the \
                    overridden object for the same reason. The annotations the template already carries do not count \
                    here, but they do in the member cluster. Karmada 1.10 to 1.13 word it \
                    `must have at most 262144 bytes` (their apimachinery's field.TooLong).",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        annotationsOverrider:
          - operator: add
            value: {example.com/dump: <300 KiB of text>}
",
        fix: "Keep large data out of annotations: a ConfigMap, or a volume the workload reads.",
        reference: "pkg/util/validation/validation.go:457-508 (ValidateAnnotations); \
                    k8s.io/apimachinery/pkg/api/validation/objectmeta.go:36-67",
    },
    AdmissionRule {
        id: "override-label-key-invalid",
        summary: "a labelsOverrider adds a label whose key is not a valid label key",
        message: IS_LABEL_KEY,
        rationale: "The API server would refuse the overridden object in the member cluster (ValidateLabels).",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        labelsOverrider:
          - operator: add
            value: {'testlabel~projectId': value}
",
        fix: "Use a valid label key.",
        reference: "pkg/util/validation/validation.go:458-508 (ValidateOverrideRules)",
    },
    AdmissionRule {
        id: "override-label-value-invalid",
        summary: "a labelsOverrider adds a label whose value is not a valid label value",
        message: "<IsLabelValue message, e.g. a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')>",
        rationale: "The API server would refuse the overridden object in the member cluster.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        labelsOverrider:
          - operator: add
            value: {tier: 'front end'}
",
        fix: "Use at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit.",
        reference: "pkg/util/validation/validation.go:458-508 (ValidateOverrideRules)",
    },
    AdmissionRule {
        id: "json-pointer-invalid",
        summary: "an overrider path (predicate.path, fieldPath, subPath) is not a JSON pointer",
        message: "JSON pointer must be empty or start with a \"/\"\nJSON pointer error",
        rationale: "These paths are RFC 6901 JSON pointers; one that does not start with '/' cannot be resolved. Karmada 1.10 and 1.11 have no fieldOverrider and check predicate.path only for a leading '/' (an empty path is refused too), with the message `path should be start with / character`. The JSON pointer text is go-openapi/jsonpointer's, so it follows the version each release vendors: `JSON pointer must be empty or start with a \"/` in 1.12 to 1.16, the same and a second line `JSON pointer error` in 1.17 and 1.18, and with the quote closed (`\"/\"`) from 1.19.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: nginx}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        fieldOverrider:
          - fieldPath: data/config
            yaml: [{subPath: /key, operator: remove}]
",
        fix: "Start the path with '/', e.g. `/data/config`.",
        reference: "pkg/util/validation/validation.go:458-508 (ValidateOverrideRules, validateJSONPatchSubPaths, validateYAMLPatchSubPaths; go-openapi/jsonpointer New); validation.go:291-297 @v1.10.0 (the predicate path check of 1.10 and 1.11)",
    },
    AdmissionRule {
        id: "field-overrider-json-and-yaml",
        summary: "a fieldOverrider sets both json and yaml patches",
        message: "FieldOverrider has both YAML and JSON set. Only one is allowed",
        rationale: "The field is parsed either as JSON or as YAML before patching. Karmada checks this from 1.12, which added fieldOverrider.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: nginx}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        fieldOverrider:
          - fieldPath: /data/config
            json: [{subPath: /key, operator: remove}]
            yaml: [{subPath: /key, operator: remove}]
",
        fix: "Keep the list that matches the field's format.",
        reference: "pkg/util/validation/validation.go:458-508 (ValidateOverrideRules)",
    },
    AdmissionRule {
        id: "field-overrider-json-or-yaml",
        summary: "a fieldOverrider sets neither json nor yaml patches",
        message: "FieldOverrider must have either JSON or YAML set",
        rationale: "A field overrider without patches does not leave the field alone: the override manager writes an empty string into it. Karmada checks this from 1.18: 1.12 to 1.17 store the overrider (they refuse only both json and yaml set), and the field is then blanked on every member cluster. Reported as `Required value: FieldOverrider must have either JSON or YAML set`.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: nginx}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        fieldOverrider:
          - fieldPath: /data/config
",
        fix: "Add json or yaml patch operations, or remove the overrider.",
        reference: "pkg/util/validation/validation.go:497-499 @v1.18.0 (ValidateOverrideRules; absent before v1.18.0); pkg/util/overridemanager/overridemanager.go:432-446 @v1.17.0 (applyFieldOverriders)",
    },
    AdmissionRule {
        id: "override-value-required",
        summary: "a json/yaml patch with operator add or replace has no value",
        message: "value is required for add or replace operation",
        rationale: "There is nothing to add or replace with. Karmada checks this from 1.12, which added fieldOverrider.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: nginx}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        fieldOverrider:
          - fieldPath: /data/config
            yaml: [{subPath: /key, operator: add}]
",
        fix: "Give the patch a value, or use operator remove.",
        reference: "pkg/util/validation/validation.go:534-547 (validateOverrideOperator, called by ValidateOverrideRules)",
    },
    AdmissionRule {
        id: "override-value-forbidden",
        summary: "a json/yaml patch with operator remove has a value",
        message: "value is not allowed for remove operation",
        rationale: "remove deletes the sub-path; a value suggests add or replace was meant. Karmada checks this from 1.12, which added fieldOverrider.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: nginx, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: nginx}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders:
        fieldOverrider:
          - fieldPath: /data/config
            yaml: [{subPath: /key, operator: remove, value: x}]
",
        fix: "Drop the value, or use add or replace.",
        reference: "pkg/util/validation/validation.go:534-547 (validateOverrideOperator, called by ValidateOverrideRules)",
    },
    // ---- ClusterTaintPolicy's validating webhook (validatePolicyTaints) ---------------------
    AdmissionRule {
        id: "taint-no-execute-not-allowed",
        summary: "a ClusterTaintPolicy taint has effect NoExecute while karmada-webhook runs without --allow-no-execute-taint-policy",
        message: "Configuring taint with NoExecute effect is not allowed, this capability must be explicitly enabled by administrators through command-line flags",
        rationale: "A NoExecute taint makes the taint manager evict every workload that does not tolerate it from the matching clusters, so Karmada's webhook refuses it (`spec.taints[<i>]: Forbidden: ...`) unless karmada-webhook runs with `--allow-no-execute-taint-policy` (default false). Karmada checks this from 1.14, which added ClusterTaintPolicy. The flag is read from `webhookFlags` in `.karmada-policy.yaml`, not from the repository's installation; but where that installation is the Helm chart or the operator, which register no such webhook, the taint is admitted and the rule says nothing. Only an installation that registers the `clustertaintpolicy.karmada.io` webhook refuses anything: `artifacts/deploy/webhook-configuration.yaml` (hack/deploy-karmada.sh) does, and its karmada-webhook runs with `--allow-no-execute-taint-policy=true`; the Helm chart, the operator and `karmadactl init` register none through v1.19, so there the API server stores the policy as it is. Hence a warning, not an error (`rules: {taint-no-execute-not-allowed: error}` where the webhook is registered without the flag); stored, the taint evicts what does not tolerate it.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata: {name: evict-not-ready}
spec:
  targetClusters: {clusterNames: [member1]}
  addOnConditions:
    - {conditionType: Ready, operator: NotIn, statusValues: ['True']}
  taints:
    - {key: cluster.karmada.io/not-ready, effect: NoExecute}
",
        fix: "Use NoSchedule (new workloads avoid the cluster, running ones stay); or, if karmada-webhook runs with `--allow-no-execute-taint-policy`, say so in `.karmada-policy.yaml`: `webhookFlags: {allow-no-execute-taint-policy: true}`.",
        reference: "pkg/webhook/clustertaintpolicy/validating.go:70-72 @v1.14.0 (validatePolicyTaints); cmd/webhook/app/options/options.go:99 @v1.14.0 (--allow-no-execute-taint-policy); artifacts/deploy/webhook-configuration.yaml:313-326, artifacts/deploy/karmada-webhook.yaml:45 @v1.14.0",
    },
    AdmissionRule {
        id: "taint-duplicate",
        summary: "two taints of a ClusterTaintPolicy have the same key and effect",
        message: "Duplicate taint with the same key(<key>) and effect(<effect>) is not allowed",
        rationale: "The ClusterTaintPolicy controller adds a taint to a cluster only when the cluster has none of that key and effect, so of two such taints only the first, with its value, would ever be applied (`addTaintsOnCluster`). Karmada's webhook refuses the earlier taint of each such pair (`spec.taints[<i>]: Duplicate value: \"...\"`); the same key with different effects is allowed. Karmada checks this from 1.14, which added ClusterTaintPolicy. Only an installation that registers the `clustertaintpolicy.karmada.io` webhook (`artifacts/deploy/webhook-configuration.yaml`, not the Helm chart, the operator or `karmadactl init`) refuses it: a warning, as elsewhere the policy is stored and the second taint never applied.",
        example: "apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata: {name: dedicated}
spec:
  targetClusters: {clusterNames: [member1]}
  addOnConditions:
    - {conditionType: Ready, operator: In, statusValues: ['True']}
  taints:
    - {key: dedicated, value: gpu, effect: NoSchedule}
    - {key: dedicated, value: cpu, effect: NoSchedule}
",
        fix: "Keep one taint per key and effect.",
        reference: "pkg/webhook/clustertaintpolicy/validating.go:74-80 @v1.14.0 (validatePolicyTaints); pkg/controllers/taint/clustertaintpolicy_controller.go:162-185 @v1.19.0-rc.0 (addTaintsOnCluster)",
    },
];

/// The admission rules of a webhook only some installations register: ClusterTaintPolicy's
/// (`artifacts/deploy/webhook-configuration.yaml` registers it; the Helm chart, the operator and
/// `karmadactl init` register none through v1.19, so there the API server stores the policy as
/// it is). Warnings: the refusal is likely, not certain.
const WHERE_REGISTERED: [&str; 2] = ["taint-no-execute-not-allowed", "taint-duplicate"];

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl AdmissionRule {
    /// How a refusal is reported by default: an error (the API server refuses), a warning for
    /// a webhook not every installation registers (ClusterTaintPolicy's: only
    /// `artifacts/deploy` registers it).
    pub const fn default_severity(&self) -> Severity {
        let mut i = 0;
        while i < WHERE_REGISTERED.len() {
            if same_str(WHERE_REGISTERED[i], self.id) {
                return Severity::Warning;
            }
            i += 1;
        }
        Severity::Error
    }

    /// The rule's registry entry.
    const fn doc(&self) -> RuleDoc {
        RuleDoc {
            id: self.id,
            group: RuleGroup::Admission,
            default_severity: self.default_severity(),
            summary: self.summary,
            rationale: self.rationale,
            example: self.example,
            fix: self.fix,
            reference: self.reference,
        }
    }
}

/// [`RULES`] as the registry lists them.
pub static DOCS: [RuleDoc; RULES.len()] = {
    const EMPTY: RuleDoc = RULES[0].doc();
    let mut docs = [EMPTY; RULES.len()];
    let mut i = 0;
    while i < RULES.len() {
        docs[i] = RULES[i].doc();
        i += 1;
    }
    docs
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::admission::{
        admit, checked_from, checked_until, mutating_refusal, validate_override, validate_spec,
        validate_stored, validate_update, Violation,
    };
    use crate::model::{Inventory, KarmadaVersion, Object};
    use crate::source::Source;

    fn inventory(yaml: &str) -> Inventory {
        let loaded = crate::source::load(Source::new("test.yaml", yaml));
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        Inventory::from_documents(loaded.documents, "default")
    }

    // ---- the RULES table ------------------------------------------------------------------------

    /// Every id the code can emit: the string literals that open a `Violation::new(`, a
    /// `label_key_violations(` call or a field-selector problem.
    fn emitted_ids() -> Vec<String> {
        let sources = [
            include_str!("../../../engine/admission/mod.rs"),
            include_str!("../../../engine/admission/placement.rs"),
            include_str!("../../../engine/admission/failover.rs"),
            include_str!("../../../engine/admission/selectors.rs"),
            include_str!("../../../engine/admission/overrides.rs"),
            include_str!("../../../engine/admission/taint_chain.rs"),
        ];
        let re = regex::Regex::new(
            r#"(?:Violation::new\(|label_key_violations\(|Some\(\()\s*"([a-z0-9]+(?:-[a-z0-9]+)+)""#,
        )
        .unwrap();
        let mut ids: Vec<String> = sources
            .iter()
            .flat_map(|s| re.captures_iter(s).map(|c| c[1].to_string()))
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    #[test]
    fn every_emitted_id_is_documented_once() {
        let ids = emitted_ids();
        assert!(ids.len() >= 35, "the scan found too few ids: {ids:?}");
        for id in &ids {
            assert!(rule(id).is_some(), "no RULES entry for `{id}`");
        }
        let mut seen = std::collections::HashSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "duplicate RULES entry `{}`", r.id);
            assert!(
                ids.iter().any(|i| i == r.id),
                "`{}` is documented but never emitted",
                r.id
            );
            assert!(!r.summary.is_empty(), "{}: summary", r.id);
            assert!(!r.message.is_empty(), "{}: message", r.id);
            assert!(!r.rationale.is_empty(), "{}: rationale", r.id);
            assert!(!r.example.is_empty(), "{}: example", r.id);
            assert!(!r.fix.is_empty(), "{}: fix", r.id);
            assert!(r.reference.contains(".go:"), "{}: reference", r.id);
            assert!(
                r.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}: not kebab-case",
                r.id
            );
        }
    }

    /// A rule Karmada added after 1.10, or dropped, says from or up to which release it applies.
    #[test]
    fn rules_of_some_releases_name_them() {
        for r in RULES {
            let from = checked_from(r.id).map(|v| format!("Karmada checks this from {v}"));
            let until = checked_until(r.id).map(|v| format!("Karmada checks this up to {v}"));
            for words in from.into_iter().chain(until) {
                assert!(
                    r.rationale.contains(&words),
                    "{}: the rationale should say `{words}`",
                    r.id
                );
            }
        }
    }

    /// The violations of a rule's example as Karmada `version` judges it.
    fn example_violations(r: &AdmissionRule, version: KarmadaVersion) -> Vec<Violation> {
        // The size rule's example stands for a value too long to print.
        let example = r
            .example
            .replace("<300 KiB of text>", &"x".repeat(300 * 1024));
        let inv = inventory(&example);
        match r.id {
            "scheduler-name-immutable" | "permanent-id-immutable" => {
                let ps: Vec<_> = inv.policies().collect();
                assert_eq!(ps.len(), 2, "{}: example needs old --- new", r.id);
                validate_update(ps[0], ps[1])
            }
            "permanent-id-required" => validate_stored(inv.policies().next().unwrap(), version),
            // The mutating webhook's own refusal.
            "policy-name-too-long" => {
                let p = inv.policies().next().unwrap();
                mutating_refusal(p.kind, &p.meta.name, version)
                    .into_iter()
                    .collect()
            }
            // Only reachable without the mutating webhook.
            "grace-period-required" => {
                let p = inv.policies().next().unwrap();
                validate_spec(p.kind, None, &p.spec, version)
            }
            // ClusterTaintPolicy's webhook, in the releases that serve the kind.
            "taint-no-execute-not-allowed" | "taint-duplicate" => {
                use crate::engine::admission::taint_chain;
                if version < taint_chain::SERVED_FROM {
                    return Vec::new();
                }
                let root = inv.documents[0].root.to_json();
                taint_chain::validate_taints(root.get("spec"), false)
            }
            _ => match inv.objects.first() {
                Some(Object::Policy(p)) => admit(p, version).violations,
                Some(Object::Override(o)) => validate_override(o, version),
                other => panic!("{}: example is not a policy: {other:?}", r.id),
            },
        }
    }

    /// A rule Karmada added later: the release before admits its example.
    #[test]
    fn the_release_before_the_first_one_admits_the_example() {
        for r in RULES {
            let Some(from) = checked_from(r.id) else {
                continue;
            };
            let before = KarmadaVersion::new(from.major, from.minor - 1);
            let found = example_violations(r, before);
            assert!(
                found.iter().all(|v| v.rule != r.id),
                "{}: Karmada {before} has no such check; got {found:#?}",
                r.id
            );
            assert!(
                example_violations(r, from).iter().any(|v| v.rule == r.id),
                "{}: Karmada {from} refuses the example",
                r.id
            );
        }
    }

    /// A rule Karmada dropped: the release after the last one admits the example.
    #[test]
    fn the_release_after_the_last_one_admits_the_example() {
        for r in RULES {
            let Some(until) = checked_until(r.id) else {
                continue;
            };
            let after = KarmadaVersion::new(until.major, until.minor + 1);
            let found = example_violations(r, after);
            assert!(
                found.iter().all(|v| v.rule != r.id),
                "{}: Karmada {after} has no such check; got {found:#?}",
                r.id
            );
        }
    }

    /// Each entry's example really triggers its rule (in the last release that has it).
    #[test]
    fn every_example_triggers_its_rule() {
        for r in RULES {
            let version = checked_until(r.id).unwrap_or(KarmadaVersion::LATEST);
            let found = example_violations(r, version);
            assert!(
                found.iter().any(|v| v.rule == r.id),
                "{}: example does not trigger it; got {found:#?}",
                r.id
            );
        }
    }
}
