//! `failover-gate-off`: a policy that relies on cluster failover while the `Failover` feature
//! gate is off (the default since v1.12.0, commit a8e965321), or, from v1.14.0, while
//! karmada-controller-manager runs without `--enable-no-execute-taint-eviction=true` (the
//! default): nothing fails over. One answer decides it for every rule and for `plan`:
//! [`crate::model::feature_gates::GateSet::why_no_cluster_failover`].

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
    summary: "`failover.cluster`, or clusterTolerations with `tolerationSeconds`, while cluster failover is off (the `Failover` feature gate, or from Karmada 1.14 `--enable-no-execute-taint-eviction`)",
    rationale: "Cluster failover is off by default since Karmada v1.12 (`Failover` gate, Beta, default false): \
                the controller-manager neither evicts from failed clusters nor reschedules, so `failover.cluster` \
                and tolerationSeconds on not-ready/unreachable taints promise something that never happens. Since \
                v1.14 the gate is not enough: it starts the taint manager, which evicts only with \
                karmada-controller-manager's `--enable-no-execute-taint-eviction=true` (default false), so with \
                the gate on and the flag off nothing fails over either; nor in any release with \
                `--enable-taint-manager=false` (default true), which starts no taint manager. The gate is \
                read from `--feature-gates` / `featureGates`, the flags from `controllerManagerFlags` in \
                `.karmada-policy.yaml`, and both from \
                the repository's Karmada installation (the chart's `controllerManager.extraCommandArgs`, the \
                operator's `extraArgs`, a karmada-controller-manager Deployment's arguments), for \
                `--karmada-version`. Even then the taint manager evicts only for NoExecute taints, which the \
                cluster controller never adds itself (it adds NoSchedule ones): they come from a \
                ClusterTaintPolicy or `karmadactl taint`.",
    example: "spec:\n  placement:\n    clusterTolerations:\n    - {key: cluster.karmada.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n  failover:\n    cluster: {purgeMode: Gracefully}\n",
    fix: "Run karmada-controller-manager with `--feature-gates=Failover=true` and, from Karmada 1.14, \
          `--enable-no-execute-taint-eviction=true` (the chart: `controllerManager.extraCommandArgs: \
          {enable-no-execute-taint-eviction: true}`), and declare what the repository does not install \
          in `.karmada-policy.yaml` (`featureGates: {Failover: true}`, `controllerManagerFlags: \
          {enable-no-execute-taint-eviction: true}`); or drop the failover settings.",
    reference: "pkg/features/features.go (Failover: Default false from v1.12.0); cmd/controller-manager/app/controllermanager.go:295-314 (the gate and --enable-taint-manager start the taint manager); cmd/controller-manager/app/options/cluster_failover.go:50 (--enable-no-execute-taint-eviction, default false; options/failover.go:46 from v1.14.0 to v1.16); pkg/controllers/cluster/taint_manager.go:114-117 (no eviction without the flag); pkg/controllers/cluster/cluster_controller.go:65-77 (NoSchedule taints only); charts/karmada/templates/_helpers.tpl (extraCommandArgs as `--KEY=VALUE`); karmada#6925, #5150",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::PerObject(|o| check(o.inventory, o.opts))],
};

pub fn check(inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let Some(why) = opts.gates.why_no_cluster_failover() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for p in inventory.admitted_policies() {
        if let Some(path) = reliance(p) {
            let message = format!(
                "{} relies on cluster failover ({path}) but {why}: nothing will fail over",
                p.reference()
            );
            out.push(super::at_policy_key(inventory, p, &DOC, &path, message));
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
    use crate::model::controller_flags::{ControllerFlags, NO_EXECUTE_TAINT_EVICTION};
    use crate::model::feature_gates::{GateSet, GateValues};
    use crate::model::KarmadaVersion;
    use crate::source::{load, Source};

    const POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  placement:\n    clusterTolerations:\n    - {key: cluster.karmada.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n";

    /// The gates of `version`, and `--enable-no-execute-taint-eviction` when `flag` says
    /// (set at `infra/karmada.yaml:21`).
    fn gate_set(version: KarmadaVersion, gates: &[(&str, bool)], flag: Option<bool>) -> GateSet {
        let mut values = GateValues::new();
        for (name, on) in gates {
            values.set(name, *on);
        }
        let mut flags = ControllerFlags::default();
        if let Some(on) = flag {
            flags.set(
                NO_EXECUTE_TAINT_EVICTION,
                on,
                "infra/karmada.yaml:21".into(),
            );
        }
        GateSet::with_values(version, &values)
            .unwrap()
            .with_flags(&flags)
            .unwrap()
    }

    fn run(version: KarmadaVersion, gates: &[(&str, bool)], flag: Option<bool>) -> Vec<Finding> {
        let inv =
            Inventory::from_documents(load(Source::new("p.yaml", POLICY)).documents, "default");
        let opts = LintOptions {
            gates: gate_set(version, gates, flag),
            ..LintOptions::default()
        };
        check(&inv, &opts)
    }

    const GATE_ON: &[(&str, bool)] = &[("Failover", true)];

    #[test]
    fn tolerations_with_seconds_need_the_failover_gate() {
        let f = run(KarmadaVersion::new(1, 19), &[], None);
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
        assert!(run(KarmadaVersion::new(1, 19), GATE_ON, Some(true)).is_empty());
        assert!(
            run(KarmadaVersion::new(1, 11), &[], None).is_empty(),
            "on by default before 1.12"
        );
    }

    /// From v1.14 the gate starts the taint manager, which evicts nothing without
    /// `--enable-no-execute-taint-eviction=true` (default false); before, the gate was enough.
    #[test]
    fn from_1_14_the_gate_alone_fails_nothing_over() {
        for minor in [14, 19] {
            let f = run(KarmadaVersion::new(1, minor), GATE_ON, None);
            assert_eq!(f.len(), 1, "1.{minor}");
            assert_eq!(
                f[0].message,
                format!("pp/default/p relies on cluster failover (spec.placement.clusterTolerations[0].tolerationSeconds) but --enable-no-execute-taint-eviction is off by default in Karmada 1.{minor} (set by neither .karmada-policy.yaml nor the repository's Karmada installation), and the Failover feature gate alone evicts nothing: nothing will fail over")
            );
        }
        assert!(
            run(KarmadaVersion::new(1, 13), GATE_ON, None).is_empty(),
            "1.13 has no such flag: the gate is enough"
        );
    }

    #[test]
    fn the_flag_set_false_is_named_where_it_was_set() {
        let f = run(KarmadaVersion::new(1, 17), GATE_ON, Some(false));
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message.contains(
                "karmada-controller-manager runs with --enable-no-execute-taint-eviction=false (infra/karmada.yaml:21), and the Failover feature gate alone evicts nothing: nothing will fail over"
            ),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn the_gate_and_the_flag_on_let_cluster_failover_run() {
        let v = KarmadaVersion::new(1, 19);
        assert_eq!(run(v, GATE_ON, None).len(), 1, "the gate alone");
        assert!(run(v, GATE_ON, Some(true)).is_empty());
    }

    /// The gate off is said as before, whatever the flag: turning the gate on comes first.
    #[test]
    fn the_gate_off_keeps_its_message_whatever_the_flag() {
        let v = KarmadaVersion::new(1, 19);
        for flag in [None, Some(true), Some(false)] {
            let f = run(v, &[("Failover", false)], flag);
            assert_eq!(
                f[0].message,
                "pp/default/p relies on cluster failover (spec.placement.clusterTolerations[0].tolerationSeconds) but the Failover feature gate is disabled: nothing will fail over",
                "{flag:?}"
            );
        }
        assert!(run(v, GATE_ON, Some(false))[0]
            .message
            .contains("--enable-no-execute-taint-eviction=false"));
    }

    /// suspension-stalls-failover counts cluster failover only where it runs: the gate, and
    /// from v1.14 the eviction flag; failover-gate-off reports the other cases, so the two
    /// never both speak of one policy's cluster failover.
    #[test]
    fn suspension_stalls_cluster_failover_only_where_it_runs() {
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  failover:\n    cluster: {purgeMode: Gracefully}\n  suspension:\n    dispatching: true\n";
        let inv = Inventory::from_documents(load(Source::new("p.yaml", text)).documents, "default");
        let counts = |gates: &[(&str, bool)], flag: Option<bool>| {
            let opts = LintOptions {
                gates: gate_set(KarmadaVersion::LATEST, gates, flag),
                ..LintOptions::default()
            };
            let stalls = super::super::suspension::check(&inv, &opts)
                .into_iter()
                .filter(|f| f.rule == "suspension-stalls-failover")
                .count();
            (stalls, check(&inv, &opts).len())
        };
        assert_eq!(
            counts(&[], None),
            (0, 1),
            "Failover is off by default: nothing fails over"
        );
        assert_eq!(
            counts(GATE_ON, None),
            (0, 1),
            "the gate without --enable-no-execute-taint-eviction: nothing fails over"
        );
        assert_eq!(counts(GATE_ON, Some(true)), (1, 0));
    }
}
