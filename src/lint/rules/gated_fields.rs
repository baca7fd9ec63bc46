//! `feature-gate-off`: a policy field that Karmada reads only behind an Alpha feature gate,
//! while the gate is off (their default): the field is admitted and stored, and nothing acts
//! on it. (`Failover` and `PropagationPolicyPreemption` have rules of their own,
//! `failover-gate-off` and `inert-preemption`, which say more about what follows.)

use crate::lint::finding::{Finding, Severity};
use crate::lint::options::LintOptions;
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::policy::PropagationSpec;
use crate::model::Inventory;
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "feature-gate-off",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A policy field that only an Alpha feature gate makes Karmada act on, while the gate is off",
    rationale: "Some fields of a PropagationPolicy are stored like any other but read only behind a feature \
                gate that is Alpha and off by default: `placement.workloadAffinity` (`WorkloadAffinity`, from \
                v1.17: without it the detector fills no affinity groups into the binding and karmada-scheduler \
                registers neither workload affinity plugin, so the workloads are placed as if the field were \
                absent), `schedulePriority` (`PriorityBasedScheduling`, from v1.13: without it the detector \
                copies no priority into the binding and karmada-scheduler's queue ignores it) and `failover.application.statePreservation` / `failover.cluster.statePreservation` \
                (`StatefulFailoverInjection`, from v1.12: without it no state is read from the failed cluster \
                nor injected into the new one). The gates are read from `--feature-gates` / `featureGates` and \
                the repository's Karmada installation for `--karmada-version`; a gate belongs to the component \
                that acts on the field (karmada-scheduler and karmada-controller-manager for WorkloadAffinity, \
                karmada-controller-manager for StatefulFailoverInjection).",
    example: "spec:\n  resourceSelectors: [{apiVersion: batch/v1, kind: Job}]\n  placement:\n    workloadAffinity:\n      affinity: {groupByLabelKey: app.group}\n",
    fix: "Enable the gate on the components that act on the field (`--feature-gates=WorkloadAffinity=true`) \
          and declare it in the configuration, or drop the field.",
    reference: "pkg/features/features.go (WorkloadAffinity, StatefulFailoverInjection, PriorityBasedScheduling: Alpha, Default false); pkg/detector/detector.go:865 and pkg/scheduler/event_handler.go:149 (PriorityBasedScheduling); pkg/detector/detector.go:851 and pkg/scheduler/framework/plugins/registry.go:44 (WorkloadAffinity); pkg/controllers/applicationfailover/common.go:144, pkg/controllers/cluster/taint_manager.go:284, pkg/controllers/binding/common.go:128 (StatefulFailoverInjection)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::PerObject(|o| check(o.inventory, o.opts))],
};

/// A gated field: where it is, whether the spec sets it, its gate and what the gate being off
/// means.
struct Gated {
    path: &'static str,
    set: fn(&PropagationSpec) -> bool,
    gate: &'static str,
    effect: &'static str,
}

const GATED: &[Gated] = &[
    Gated {
        path: "spec.placement.workloadAffinity",
        set: |s| {
            s.placement
                .as_ref()
                .is_some_and(|p| p.workload_affinity.is_some())
        },
        gate: "WorkloadAffinity",
        effect: "its workloads are scheduled as if it were absent",
    },
    Gated {
        path: "spec.failover.application.statePreservation",
        set: |s| {
            s.failover
                .as_ref()
                .and_then(|f| f.application.as_ref())
                .is_some_and(|a| a.state_preservation.is_some())
        },
        gate: "StatefulFailoverInjection",
        effect: "no state is carried to the cluster a workload fails over to",
    },
    Gated {
        path: "spec.failover.cluster.statePreservation",
        set: |s| {
            s.failover
                .as_ref()
                .and_then(|f| f.cluster.as_ref())
                .is_some_and(|c| c.state_preservation.is_some())
        },
        gate: "StatefulFailoverInjection",
        effect: "no state is carried to the cluster a workload fails over to",
    },
    // The detector copies the priority into the binding only with the gate
    // (`pkg/detector/detector.go:865`), and karmada-scheduler orders its queue by it only with
    // the gate (`pkg/scheduler/event_handler.go:149`).
    Gated {
        path: "spec.schedulePriority",
        set: |s| s.schedule_priority.is_some(),
        gate: "PriorityBasedScheduling",
        effect: "its bindings carry no priority and are scheduled in arrival order",
    },
];

pub fn check(inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let gates = &opts.gates;
    let known = crate::model::feature_gates::GateSet::known(gates.version);
    let mut out = Vec::new();
    for p in inventory.admitted_policies() {
        for g in GATED.iter().filter(|g| (g.set)(&p.spec)) {
            // A release without the gate has no such field either: the schema reports it.
            if gates.enabled(g.gate) || !known.contains(&g.gate) {
                continue;
            }
            let why = gates.why_off(g.gate);
            let message = format!(
                "{} sets {} but {why}: Karmada ignores the field ({})",
                p.reference(),
                g.path,
                g.effect
            );
            let path = FieldPath::parse(g.path);
            out.push(super::at_policy_key(inventory, p, &DOC, &path, message));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::feature_gates::{GateSet, GateValues};
    use crate::model::KarmadaVersion;
    use crate::source::{load, Source};

    const POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: jobs, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: batch/v1, kind: Job}]\n  propagateDeps: true\n  placement:\n    workloadAffinity:\n      affinity: {groupByLabelKey: app.group}\n  failover:\n    application:\n      decisionConditions: {tolerationSeconds: 60}\n      purgeMode: Directly\n      statePreservation:\n        rules: [{aliasLabelName: app.state, jsonPath: '{ .jobId }'}]\n";

    fn run(gates: &[(&str, bool)]) -> Vec<Finding> {
        let mut values = GateValues::new();
        for (name, on) in gates {
            values.set(name, *on);
        }
        let opts = LintOptions {
            gates: GateSet::with_values(KarmadaVersion::new(1, 19), &values).unwrap(),
            ..LintOptions::default()
        };
        let inv =
            Inventory::from_documents(load(Source::new("p.yaml", POLICY)).documents, "default");
        check(&inv, &opts)
    }

    #[test]
    fn each_gated_field_is_reported_at_its_key_until_its_gate_is_on() {
        let f = run(&[]);
        let fields: Vec<_> = f.iter().map(|f| f.field.as_deref().unwrap()).collect();
        assert_eq!(
            fields,
            [
                "spec.placement.workloadAffinity",
                "spec.failover.application.statePreservation"
            ]
        );
        let line = |f: &Finding| f.location.as_ref().unwrap().span.start.line;
        assert_eq!((line(&f[0]), line(&f[1])), (8, 14));
        assert!(f[0].message.ends_with("but the WorkloadAffinity feature gate is off by default in Karmada 1.19: Karmada ignores the field (its workloads are scheduled as if it were absent)"), "{}", f[0].message);
        let on = run(&[("WorkloadAffinity", true)]);
        assert_eq!(on.len(), 1);
        assert!(on[0].message.contains("StatefulFailoverInjection"));
        let off = run(&[("StatefulFailoverInjection", false)]);
        assert!(
            off[1].message.contains("feature gate is disabled"),
            "{}",
            off[1].message
        );
        assert!(run(&[("AllAlpha", true)]).is_empty());
    }

    /// Before 1.17 there is no WorkloadAffinity gate and no `workloadAffinity` field: the CRD
    /// schema refuses the field, so no gate is to blame.
    #[test]
    fn a_release_without_the_gate_leaves_the_field_to_the_schema() {
        let opts = LintOptions {
            gates: GateSet::defaults(KarmadaVersion::new(1, 16)),
            ..LintOptions::default()
        };
        let inv =
            Inventory::from_documents(load(Source::new("p.yaml", POLICY)).documents, "default");
        let fields: Vec<_> = check(&inv, &opts)
            .into_iter()
            .map(|f| f.field.unwrap())
            .collect();
        assert_eq!(fields, ["spec.failover.application.statePreservation"]);
    }
}
