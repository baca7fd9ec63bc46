//! `failover-gate-off`: a policy that relies on cluster failover while the `Failover` feature
//! gate is off (the default since v1.12.0, commit a8e965321): nothing fails over.

use crate::lint::finding::{Finding, Severity};
use crate::lint::options::LintOptions;
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::{Inventory, Policy};
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "failover-gate-off",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "`failover.cluster`, or clusterTolerations with `tolerationSeconds`, while the `Failover` feature gate is off",
    rationale: "Cluster failover is off by default since Karmada v1.12 (`Failover` gate, Beta, default false): \
                the controller-manager neither evicts from failed clusters nor reschedules, so `failover.cluster` \
                and tolerationSeconds on not-ready/unreachable taints promise something that never happens. The \
                gate is read from `--feature-gates` / `featureGates` for `--karmada-version`. Since v1.14 the \
                gate is not enough: the taint manager evicts only with karmada-controller-manager's \
                `--enable-no-execute-taint-eviction=true` (default false), and only for NoExecute taints, which \
                the cluster controller never adds itself (it adds NoSchedule ones): they come from a \
                ClusterTaintPolicy or `karmadactl taint`. This rule does not read that flag.",
    example: "spec:\n  placement:\n    clusterTolerations:\n    - {key: cluster.karmada.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n  failover:\n    cluster: {purgeMode: Gracefully}\n",
    fix: "Enable the gate on karmada-controller-manager (`--feature-gates=Failover=true`; from Karmada 1.14 also \
          `--enable-no-execute-taint-eviction=true`) and declare it in the configuration, or drop the failover \
          settings.",
    reference: "pkg/features/features.go (Failover: Default false from v1.12.0); cmd/controller-manager/app/options/cluster_failover.go:50 (--enable-no-execute-taint-eviction, from v1.14.0); pkg/controllers/cluster/taint_manager.go:114-117; pkg/controllers/cluster/cluster_controller.go:65-77 (NoSchedule taints only); karmada#6925, #5150",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::PerObject(|o| check(o.inventory, o.opts))],
};

pub fn check(inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let gates = &opts.gates;
    if gates.failover() {
        return Vec::new();
    }
    let why = gates.why_off("Failover");
    let mut out = Vec::new();
    for p in inventory.admitted_policies() {
        if let Some(path) = reliance(p) {
            let d = &inventory.documents[p.doc];
            let mut f = Finding::new(
                DOC.id,
                DOC.default_severity,
                format!(
                    "{} relies on cluster failover ({path}) but {why}: nothing will fail over",
                    p.reference()
                ),
            )
            .at(&d.source, d.tree_for(&path).locate(&path))
            .field(path.to_string())
            .object(super::policy_object_ref(p));
            f.doc = Some(p.doc);
            out.push(f);
        }
    }
    out
}

/// Where the policy relies on failover: `spec.failover.cluster`, else the first toleration with
/// `tolerationSeconds`.
fn reliance(p: &Policy) -> Option<FieldPath> {
    if p.spec
        .failover
        .as_ref()
        .is_some_and(|f| f.cluster.is_some())
    {
        return Some(FieldPath::parse("spec.failover.cluster"));
    }
    let placement = p.spec.placement.as_ref()?;
    placement
        .cluster_tolerations
        .iter()
        .position(|t| t.toleration_seconds.is_some())
        .map(|i| {
            FieldPath::parse("spec.placement.clusterTolerations")
                .index(i)
                .key("tolerationSeconds")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::feature_gates::{GateSet, GateValues};
    use crate::model::KarmadaVersion;
    use crate::source::{load, Source};

    const POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  placement:\n    clusterTolerations:\n    - {key: cluster.karmada.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n";

    fn gate_set(version: KarmadaVersion, gates: &[(&str, bool)]) -> GateSet {
        let mut values = GateValues::new();
        for (name, on) in gates {
            values.set(name, *on);
        }
        GateSet::with_values(version, &values).unwrap()
    }

    fn run(version: KarmadaVersion, gates: &[(&str, bool)]) -> Vec<Finding> {
        let inv =
            Inventory::from_documents(load(Source::new("p.yaml", POLICY)).documents, "default");
        let opts = LintOptions {
            gates: gate_set(version, gates),
            ..LintOptions::default()
        };
        check(&inv, &opts)
    }

    #[test]
    fn tolerations_with_seconds_need_the_failover_gate() {
        let f = run(KarmadaVersion::new(1, 19), &[]);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].field.as_deref(),
            Some("spec.placement.clusterTolerations[0].tolerationSeconds")
        );
        assert!(
            f[0].message.contains("off by default in Karmada 1.19"),
            "{}",
            f[0].message
        );
        assert!(run(KarmadaVersion::new(1, 19), &[("Failover", true)]).is_empty());
        assert!(
            run(KarmadaVersion::new(1, 11), &[]).is_empty(),
            "on by default before 1.12"
        );
    }

    /// suspension-stalls-failover counts cluster failover only with the gate on.
    #[test]
    fn suspension_stalls_cluster_failover_only_with_the_gate() {
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  failover:\n    cluster: {purgeMode: Gracefully}\n  suspension:\n    dispatching: true\n";
        let inv = Inventory::from_documents(load(Source::new("p.yaml", text)).documents, "default");
        let stalls = |gates: &[(&str, bool)]| {
            let opts = LintOptions {
                gates: gate_set(KarmadaVersion::LATEST, gates),
                ..LintOptions::default()
            };
            super::super::suspension::check(&inv, &opts)
                .into_iter()
                .filter(|f| f.rule == "suspension-stalls-failover")
                .count()
        };
        assert_eq!(
            stalls(&[]),
            0,
            "Failover is off by default: nothing fails over"
        );
        assert_eq!(stalls(&[("Failover", true)]), 1);
        assert_eq!(
            check(&inv, &LintOptions::default()).len(),
            1,
            "failover-gate-off instead"
        );
    }
}
