//! `dependency-policy-conflict`: a ConfigMap, Secret, ServiceAccount or PVC that workloads of
//! two policies carry along (`propagateDeps`) whose `conflictResolution` or
//! `preserveResourcesOnDeletion` differ: Karmada gives the shared dependency one setting, the
//! other policy's, and only records an event.

use std::collections::BTreeMap;

use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::KarmadaVersion;
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "dependency-policy-conflict",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A dependency carried by workloads of policies whose conflictResolution or preserveResourcesOnDeletion differ",
    rationale: "With `propagateDeps`, a ConfigMap, Secret, ServiceAccount or PVC that several workloads name gets \
                one attached ResourceBinding, required by each workload's binding. Since v1.16 the dependencies \
                distributor gives it one `conflictResolution` (any `Overwrite` wins over `Abort`, the default) and \
                one `preserveResourcesOnDeletion` (any `true` wins), and records a `DependencyPolicyConflict` \
                event: the policy that asked for `Abort` has its dependency overwrite what a member cluster holds, \
                the one that did not ask to preserve resources has the dependency kept after deletion. Reported on \
                the policy whose setting is overruled.",
    example: "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  propagateDeps: true\n  conflictResolution: Overwrite\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: worker, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: worker}]\n  propagateDeps: true\n",
    fix: "Give the policies whose workloads share dependencies the same `conflictResolution` and \
          `preserveResourcesOnDeletion`, or give the shared dependency a policy of its own.",
    reference: "pkg/dependenciesdistributor/policy_utils.go (detectAndResolveConflictResolution, detectAndResolvePreserveOnDeletion, recordEventIfPolicyConflict; from v1.16.0)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::Semantic(check)],
};

/// The release whose dependencies distributor resolves the settings and records the event.
const SINCE: KarmadaVersion = KarmadaVersion::new(1, 16);

/// One of the two settings: its field, the value that wins, and a policy's value.
struct Setting {
    field: &'static str,
    winner: &'static str,
    of: fn(&crate::model::policy::PropagationSpec) -> &'static str,
}

const SETTINGS: [Setting; 2] = [
    Setting {
        field: "conflictResolution",
        winner: "Overwrite",
        of: |s| match s.conflict_resolution.as_deref() {
            Some("Overwrite") => "Overwrite",
            _ => "Abort",
        },
    },
    Setting {
        field: "preserveResourcesOnDeletion",
        winner: "true",
        of: |s| match s.preserve_resources_on_deletion {
            Some(true) => "true",
            _ => "false",
        },
    },
];

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let st = a.state;
    let carrying = st.live_policies().filter(|(_, p)| p.spec.propagate_deps());
    if st.options.gates.version < SINCE || carrying.take(2).count() < 2 {
        return Vec::new();
    }
    let carriers = super::dependencies::carriers(a);
    // (overruled policy, setting) → (the dependencies, a policy that overrules it).
    let mut overruled: BTreeMap<(usize, usize), (Vec<usize>, usize)> = BTreeMap::new();
    for (t, policies) in carriers.iter().filter(|(_, ps)| ps.len() > 1) {
        for (s, setting) in SETTINGS.iter().enumerate() {
            let value = |p: usize| (setting.of)(&st.policy(p).spec);
            let Some(&winner) = policies.iter().find(|&&p| value(p) == setting.winner) else {
                continue;
            };
            for &p in policies.iter().filter(|&&p| value(p) != setting.winner) {
                let entry = overruled.entry((p, s)).or_insert((Vec::new(), winner));
                entry.0.push(*t);
            }
        }
    }
    overruled
        .into_iter()
        .map(|((p, s), (templates, winner))| {
            let setting = &SETTINGS[s];
            let policy = st.policy(p);
            a.policy_finding(
                p,
                &DOC,
                &FieldPath::parse("spec").key(setting.field),
                format!(
                    "{} ({} {}) carries {} that {} also carries with {} {}: Karmada gives the shared dependency {} {} and records a DependencyPolicyConflict event",
                    policy.reference(),
                    setting.field,
                    (setting.of)(&policy.spec),
                    a.describe_templates(&templates),
                    st.policy(winner).reference(),
                    setting.field,
                    setting.winner,
                    setting.field,
                    setting.winner,
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::lint::test_support::lint_rule;

    fn repo(web: &str, worker: &str) -> String {
        let workload = |name: &str| {
            format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  template:\n    spec:\n      containers: [{{name: c, image: nginx, envFrom: [{{configMapRef: {{name: shared}}}}]}}]\n---\n")
        };
        let policy = |name: &str, extra: &str| {
            format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: {name}}}]\n  propagateDeps: true\n{extra}  placement: {{clusterAffinity: {{clusterNames: [m1]}}}}\n---\n")
        };
        format!(
            "{}{}apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: shared, namespace: shop}}\n---\n{}{}",
            workload("web"),
            workload("worker"),
            policy("web", web),
            policy("worker", worker)
        )
    }

    #[test]
    fn the_overruled_policy_is_told_which_setting_wins() {
        let f = lint_rule(
            &repo("  conflictResolution: Overwrite\n", ""),
            "dependency-policy-conflict",
            false,
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].message, "pp/shop/worker (conflictResolution Abort) carries configmap/shop/shared that pp/shop/web also carries with conflictResolution Overwrite: Karmada gives the shared dependency conflictResolution Overwrite and records a DependencyPolicyConflict event");
        assert_eq!(f[0].field.as_deref(), Some("spec.conflictResolution"));
        let both = lint_rule(
            &repo(
                "  conflictResolution: Overwrite\n",
                "  preserveResourcesOnDeletion: true\n",
            ),
            "dependency-policy-conflict",
            false,
        );
        assert_eq!(both.len(), 2, "{both:?}");
        assert!(
            both.iter().any(|f| f
                .message
                .starts_with("pp/shop/web (preserveResourcesOnDeletion false)")),
            "{both:?}"
        );
        // The same settings: nothing to resolve.
        let same = repo(
            "  conflictResolution: Overwrite\n",
            "  conflictResolution: Overwrite\n",
        );
        assert!(lint_rule(&same, "dependency-policy-conflict", false).is_empty());
    }
}
