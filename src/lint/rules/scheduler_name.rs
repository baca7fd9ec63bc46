//! `scheduler-name-not-served`: a policy whose `schedulerName` is not the default scheduler's.
//! karmada-scheduler schedules only the bindings whose `spec.schedulerName` is its own name
//! (`schedulerNameFilter`, `pkg/scheduler/event_handler.go:380-386`, an empty name read as
//! `default-scheduler`), and its `--scheduler-name` defaults to `default-scheduler`
//! (`cmd/scheduler/app/options/options.go:165`). The binding takes the policy's name
//! (`pkg/detector/detector.go:835`, `BuildResourceBinding`), so another name waits for a scheduler
//! run with it: without one, the templates are never scheduled and nothing propagates.
//!
//! The names served besides the default are the configuration's `schedulers:` and those the
//! repository's own Karmada runs (a karmada-scheduler Deployment's `--scheduler-name`, the
//! operator's `karmadaScheduler.extraArgs`; [`crate::model::installation`]).

use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::schedulers::{Schedulers, DEFAULT_SCHEDULER};
use crate::model::Inventory;
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "scheduler-name-not-served",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "`schedulerName` names a scheduler other than karmada-scheduler's default `default-scheduler`",
    rationale: "karmada-scheduler schedules only the ResourceBindings whose `schedulerName` is its own \
                (`--scheduler-name`, default `default-scheduler`; an empty name counts as the default), and a \
                binding takes its policy's `schedulerName`. A policy naming another scheduler (`default`, \
                `karmada-scheduler`, a custom one) is left to a scheduler run with that name: where none runs, \
                its templates are never scheduled and nothing propagates, with no event to say why. The name \
                cannot be changed by an update either (`validateUpdate`): the policy has to be recreated.",
    example: "spec:\n  schedulerName: karmada-scheduler\n",
    fix: "Drop `schedulerName` (or set `default-scheduler`) unless the control plane runs a scheduler with \
          `--scheduler-name` of that name. A karmada-scheduler Deployment among the linted files (or the \
          operator's `karmadaScheduler.extraArgs`) is read for its name; one deployed elsewhere is named in \
          `.karmada-policy.yaml` (`schedulers: [NAME]`).",
    reference: "pkg/scheduler/event_handler.go:380-386 (schedulerNameFilter); cmd/scheduler/app/options/options.go:165 (--scheduler-name, default default-scheduler)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::PerObject(|o| check(o.inventory, &o.opts.schedulers))],
};

/// `served`: the names schedulers run with besides the default (the configuration's
/// `schedulers:`, the repository's karmada-schedulers).
pub fn check(inventory: &Inventory, served: &Schedulers) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in inventory.admitted_policies() {
        let Some(name) = served.unserved(p.spec.scheduler_name.as_deref()) else {
            continue;
        };
        let mut message = format!(
            "{} sets schedulerName `{name}`: karmada-scheduler (`--scheduler-name`, default `{DEFAULT_SCHEDULER}`) skips its bindings, so its templates are scheduled only where a scheduler named `{name}` runs",
            p.reference()
        );
        // The names that are served, and where each was read: a misspelt one shows.
        let others: Vec<String> = served
            .iter()
            .map(|s| format!("`{}` ({})", s.name, s.from))
            .collect();
        if !others.is_empty() {
            message.push_str(&format!(
                "; schedulers read besides the default: {}",
                others.join(", ")
            ));
        }
        let path = FieldPath::parse("spec.schedulerName");
        out.push(super::at_policy_key(inventory, p, &DOC, &path, message));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_support::{inventory, pp};

    fn rules(extra: &str) -> Vec<String> {
        check(
            &inventory("p.yaml", &pp("a", extra)),
            &Schedulers::default(),
        )
        .into_iter()
        .map(|f| f.message)
        .collect()
    }

    /// karmada-io/karmada `artifacts/example/policy_with_labelSelector.yaml` sets `default`, and
    /// jittuki/Karmada-project `karmada-scheduler`: neither is the default scheduler's name.
    #[test]
    fn only_another_name_than_the_default_schedulers_is_reported() {
        assert!(rules("").is_empty());
        assert!(rules("  schedulerName: default-scheduler\n").is_empty());
        assert!(rules("  schedulerName: \"\"\n").is_empty());
        let f = rules("  schedulerName: default\n");
        assert_eq!(f.len(), 1);
        assert!(
            f[0].starts_with("pp/default/a sets schedulerName `default`"),
            "{f:?}"
        );
        assert_eq!(rules("  schedulerName: karmada-scheduler\n").len(), 1);
        // LavredisG/karmada deploys its own schedulers (`--scheduler-name=custom-...`).
        let custom = inventory("p.yaml", &pp("a", "  schedulerName: custom-cost\n"));
        let mut served = Schedulers::default();
        served.add("custom-cost", "sched.yaml:40".into());
        assert!(check(&custom, &served).is_empty());
        // Another name is reported with the names served and where each was read.
        let other = inventory("p.yaml", &pp("a", "  schedulerName: custom-costs\n"));
        let f = check(&other, &served);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message
                .ends_with("; schedulers read besides the default: `custom-cost` (sched.yaml:40)"),
            "{:?}",
            f[0].message
        );
    }
}
