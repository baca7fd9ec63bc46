//! The one `--force` rule of `suspend`, for named policies and for a freeze of clusters alike
//! (validation-suspension-failover.md §3.4): a change that newly suspends every cluster a
//! policy targets, while its failover (or an unhealthy target) would move the workload to a
//! cluster that then gets nothing, needs `--force`.
//!
//! Two versions of this rule existed. Named mode refused whenever the change left every target
//! suspended; freeze mode refused only when the change *newly* suspended every target (before
//! the change some target was still dispatched to). This is the freeze rule: what `--force`
//! guards against is the step into the stall. When every target is suspended already, failover
//! already stalls, and refusing only blocks harmless rewrites (an explicit list of every
//! target becoming `dispatching: true`) without protecting anything. The cases are pinned in
//! the tests below.

use super::{suspends_every_target, Stall, State};

/// The refusal when the change from `before` to `after` needs `--force`, else `None`.
///
/// `stalls` are those of `after` ([`super::stalls`]); `targets` the policy's target clusters
/// ([`super::target_clusters`], `None`: unknown).
pub fn needs_force(
    before: &State,
    after: &State,
    stalls: &[Stall],
    targets: Option<&[String]>,
) -> Option<String> {
    let blocking: Vec<String> = stalls
        .iter()
        .filter(|s| s.blocks_full_suspension())
        .map(ToString::to_string)
        .collect();
    let steps_into_stall = before != after
        && suspends_every_target(after, targets)
        && !suspends_every_target(before, targets);
    (steps_into_stall && !blocking.is_empty()).then(|| {
        format!(
            "not suspending every cluster: {}; pass --force to suspend anyway",
            blocking.join("; ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clusters(names: &[&str]) -> State {
        State::Clusters(names.iter().map(|s| s.to_string()).collect())
    }

    fn failover() -> Vec<Stall> {
        vec![Stall::ApplicationFailover {
            purge_mode: "Never".into(),
        }]
    }

    /// The named-mode rule as it was (suspend.rs before the merge).
    fn old_named(after: &State, stalls: &[Stall], targets: Option<&[String]>) -> bool {
        stalls.iter().any(Stall::blocks_full_suspension) && suspends_every_target(after, targets)
    }

    /// The freeze-mode rule as it was (freeze.rs before the merge).
    fn old_freeze(before: &State, after: &State, stalls: &[Stall], t: Option<&[String]>) -> bool {
        stalls.iter().any(Stall::blocks_full_suspension)
            && before != after
            && matches!(after, State::AllClusters | State::Clusters(_))
            && suspends_every_target(after, t)
            && !suspends_every_target(before, t)
    }

    /// (before, after, stalls, targets, old named, old freeze). Named mode only ever saw a
    /// change (`before != after`), as the planner returns "unchanged" otherwise.
    #[allow(clippy::type_complexity)]
    fn cases() -> Vec<(State, State, Vec<Stall>, Option<Vec<String>>, bool, bool)> {
        let ab = Some(vec!["a".to_string(), "b".to_string()]);
        vec![
            // Into all clusters with failover: both refused.
            (
                State::NotSuspended,
                State::AllClusters,
                failover(),
                ab.clone(),
                true,
                true,
            ),
            // Into every target by name: both refused.
            (
                State::NotSuspended,
                clusters(&["a", "b"]),
                failover(),
                ab.clone(),
                true,
                true,
            ),
            // A freeze adding the last target: both refused.
            (
                clusters(&["a"]),
                clusters(&["a", "b"]),
                failover(),
                ab.clone(),
                true,
                true,
            ),
            // Some targets only: neither.
            (
                State::NotSuspended,
                clusters(&["a"]),
                failover(),
                ab.clone(),
                false,
                false,
            ),
            // Unknown targets and a list: cannot be every target: neither.
            (
                State::NotSuspended,
                clusters(&["a"]),
                failover(),
                None,
                false,
                false,
            ),
            // Unknown targets, all clusters: both refused.
            (
                State::NotSuspended,
                State::AllClusters,
                failover(),
                None,
                true,
                true,
            ),
            // No failover (Lazy alone does not block): neither.
            (
                State::NotSuspended,
                State::AllClusters,
                vec![Stall::Lazy],
                ab.clone(),
                false,
                false,
            ),
            // Every target already suspended by name, now all clusters: the two differed.
            (
                clusters(&["a", "b"]),
                State::AllClusters,
                failover(),
                ab.clone(),
                true,
                false,
            ),
            // Every target already suspended, one more (non-target) cluster: the two differed.
            (
                clusters(&["a", "b"]),
                clusters(&["a", "b", "c"]),
                failover(),
                ab,
                true,
                false,
            ),
        ]
    }

    #[test]
    fn old_rules_are_pinned_case_by_case() {
        for (i, (before, after, stalls, targets, named, freeze)) in cases().into_iter().enumerate()
        {
            let t = targets.as_deref();
            assert_eq!(old_named(&after, &stalls, t), named, "case {i}: named");
            assert_eq!(
                old_freeze(&before, &after, &stalls, t),
                freeze,
                "case {i}: freeze"
            );
        }
    }

    #[test]
    fn the_one_rule_is_the_freeze_rule() {
        for (i, (before, after, stalls, targets, _, freeze)) in cases().into_iter().enumerate() {
            let refusal = needs_force(&before, &after, &stalls, targets.as_deref());
            assert_eq!(refusal.is_some(), freeze, "case {i}");
        }
        let r = needs_force(&State::NotSuspended, &State::AllClusters, &failover(), None).unwrap();
        assert!(r.starts_with("not suspending every cluster: application failover"));
        assert!(r.ends_with("; pass --force to suspend anyway"));
    }
}
