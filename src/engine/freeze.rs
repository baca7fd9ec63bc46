//! Cluster-centric freeze: `suspend --clusters member2,member3` with no policy named selects the
//! policies that target those clusters, suspends them there, and records on each policy what the
//! freeze added, so that `resume --clusters member2,member3` lifts exactly that and leaves the
//! suspensions that were there before untouched (issue 9).
//!
//! Targets follow [`suspension::target_clusters`] (bindings' `spec.clusters`, else the placement's
//! named clusters; validation-suspension-failover.md §2.3). `dispatching: true` wins over any
//! list (§1.2 rule S1, `shouldSuspendDispatching` binding/common.go:363-376), so a policy
//! suspended on all clusters is "already suspended" and left alone. Pure: no I/O, no clock (the
//! caller passes the time in a [`Stamp`]).

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value as J};

use super::suspension::{self, Action, Plan, Request, State};
use crate::model::policy::{PropagationSpec, Suspension};

/// The annotation holding what freezes added: a JSON object from cluster name to
/// `{"at": RFC3339, "by": USER, "reason": TEXT}` (`by` and `reason` when known).
pub const RECORD_ANNOTATION: &str = "karmada-policy.io/freeze";

/// When, by whom and why a cluster was frozen on a policy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stamp {
    pub at: String,
    pub by: Option<String>,
    pub reason: Option<String>,
}

impl fmt::Display for Stamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "frozen {}", self.at)?;
        if let Some(by) = &self.by {
            write!(f, " by {by}")?;
        }
        if let Some(r) = &self.reason {
            write!(f, ": {r}")?;
        }
        Ok(())
    }
}

/// What freezes added to one policy: cluster → stamp.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record(pub BTreeMap<String, Stamp>);

impl Record {
    /// Reads the annotation value (absent or empty: an empty record).
    pub fn parse(value: Option<&str>) -> Result<Record, String> {
        let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
            return Ok(Record::default());
        };
        let bad = |why: &str| format!("annotation {RECORD_ANNOTATION} is not readable ({why})");
        let parsed: J = serde_json::from_str(v).map_err(|e| bad(&e.to_string()))?;
        let obj = parsed
            .as_object()
            .ok_or_else(|| bad("expected a JSON object"))?;
        let mut out = BTreeMap::new();
        for (cluster, s) in obj {
            let text = |k: &str| s.get(k).and_then(J::as_str).map(str::to_string);
            out.insert(
                cluster.clone(),
                Stamp {
                    at: text("at").unwrap_or_default(),
                    by: text("by"),
                    reason: text("reason"),
                },
            );
        }
        Ok(Record(out))
    }

    /// The annotation value, or `None` when nothing is recorded (the annotation is removed).
    pub fn to_annotation(&self) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        let mut obj = Map::new();
        for (cluster, s) in &self.0 {
            let mut e = Map::new();
            e.insert("at".into(), J::from(s.at.clone()));
            if let Some(by) = &s.by {
                e.insert("by".into(), J::from(by.clone()));
            }
            if let Some(r) = &s.reason {
                e.insert("reason".into(), J::from(r.clone()));
            }
            obj.insert(cluster.clone(), J::Object(e));
        }
        Some(J::Object(obj).to_string())
    }

    pub fn contains(&self, cluster: &str) -> bool {
        self.0.contains_key(cluster)
    }
}

/// Why a policy is listed but left alone by a freeze.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    /// No binding lists `spec.clusters` and the placement does not only name clusters.
    TargetsUnknown,
    /// `dispatching: true`: every cluster is paused already.
    AlreadySuspendedAll,
    /// The freeze annotation cannot be read; writing would lose what an earlier freeze added.
    BadRecord(String),
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::TargetsUnknown => f.write_str(
                "target clusters unknown: no ResourceBinding lists spec.clusters and the placement \
                 does not name its clusters (name it: suspend pp/NAME --clusters ...)",
            ),
            Skip::AlreadySuspendedAll => {
                f.write_str("already suspended on all clusters (dispatching: true)")
            }
            Skip::BadRecord(why) => write!(f, "{why}; fix or remove it first"),
        }
    }
}

/// A policy's part in a freeze or its lifting.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// The policy has nothing to do with the given clusters: not listed.
    NotInvolved,
    Skipped(Skip),
    /// Nothing to change (a second run of the same freeze, or a suspension the freeze did not
    /// add); the text says why.
    Unchanged(String),
    Change(Change),
}

/// The write for one policy: the new `spec.suspension` and the new record.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// `spec.suspension` after the change (`None`: removed).
    pub new: Option<Suspension>,
    pub before: State,
    pub after: State,
    /// Whether `spec.suspension` changes (a lift may only clean the record).
    pub suspension_changes: bool,
    /// The annotation after the change (`None`: removed).
    pub annotation: Option<String>,
    /// Clusters this change suspends (freeze) or resumes (lift).
    pub clusters: Vec<String>,
    /// Given clusters that were suspended before the freeze (freeze) or not by a freeze (lift):
    /// left as they are.
    pub kept: Vec<String>,
    /// Lift: recorded clusters someone resumed since; only their record is dropped.
    pub stale: Vec<String>,
}

impl Change {
    /// What changes, for the table before the write.
    pub fn describe(&self, action: Action) -> String {
        let mut parts = Vec::new();
        let verb = match action {
            Action::Suspend => "suspend on",
            Action::Resume => "resume on",
        };
        if !self.clusters.is_empty() {
            parts.push(format!("{verb} {}", self.clusters.join(", ")));
        }
        if !self.stale.is_empty() {
            parts.push(format!(
                "forget the freeze of {} (resumed since)",
                self.stale.join(", ")
            ));
        }
        if !self.kept.is_empty() {
            parts.push(match action {
                Action::Suspend => format!(
                    "{} already suspended before the freeze (not recorded, kept on resume)",
                    self.kept.join(", ")
                ),
                Action::Resume => format!(
                    "{} stays suspended (not added by the freeze)",
                    self.kept.join(", ")
                ),
            });
        }
        parts.join("; ")
    }
}

fn intersect(given: &[String], within: &[String]) -> Vec<String> {
    given
        .iter()
        .filter(|c| within.contains(c))
        .cloned()
        .collect()
}

/// The freeze of `clusters` on one policy.
///
/// `binding_clusters` are the `spec.clusters` of the policy's bindings (all of them, flattened),
/// `record` its freeze annotation, `stamp` what to record for the clusters the freeze adds.
pub fn freeze(
    spec: &PropagationSpec,
    record: Option<&str>,
    binding_clusters: Option<&[String]>,
    clusters: &[String],
    stamp: &Stamp,
) -> Decision {
    let targets = suspension::target_clusters(spec, binding_clusters);
    let hit = match &targets {
        Some(t) => {
            let hit = intersect(clusters, t);
            if hit.is_empty() {
                return Decision::NotInvolved;
            }
            hit
        }
        None => Vec::new(),
    };
    let current = spec.suspension.as_ref();
    if State::of(current) == State::AllClusters {
        return Decision::Skipped(Skip::AlreadySuspendedAll);
    }
    if targets.is_none() {
        return Decision::Skipped(Skip::TargetsUnknown);
    }
    let mut rec = match Record::parse(record) {
        Ok(r) => r,
        Err(e) => return Decision::Skipped(Skip::BadRecord(e)),
    };
    let request = Request::new(Action::Suspend, &hit);
    match suspension::plan(current, &request, None) {
        Plan::Change { new, before, after } => {
            let had: Vec<String> =
                current.map_or_else(Vec::new, |s| s.suspended_clusters().to_vec());
            let added: Vec<String> = hit.iter().filter(|c| !had.contains(c)).cloned().collect();
            let kept: Vec<String> = hit.iter().filter(|c| had.contains(c)).cloned().collect();
            for c in &added {
                rec.0.insert(c.clone(), stamp.clone());
            }
            Decision::Change(Change {
                new,
                before,
                after,
                suspension_changes: true,
                annotation: rec.to_annotation(),
                clusters: added,
                kept,
                stale: Vec::new(),
            })
        }
        Plan::Unchanged(u) => {
            let by_freeze: Vec<&str> = hit
                .iter()
                .filter(|c| rec.contains(c))
                .map(String::as_str)
                .collect();
            if by_freeze.len() == hit.len() {
                Decision::Unchanged(format!("already frozen on {}", hit.join(", ")))
            } else {
                Decision::Unchanged(u.to_string())
            }
        }
        // Suspending clusters is never refused by the planner.
        Plan::Refused(r) => Decision::Unchanged(r.to_string()),
    }
}

/// Lifting the freeze of `clusters` on one policy: resumes the clusters the record says a freeze
/// added (and that are still suspended), drops them from the record, and leaves every other
/// suspension as it is.
pub fn lift(spec: &PropagationSpec, record: Option<&str>, clusters: &[String]) -> Decision {
    let current = spec.suspension.as_ref();
    let before = State::of(current);
    let rec = match Record::parse(record) {
        Ok(r) => r,
        Err(e) => {
            let suspended_here = clusters
                .iter()
                .any(|c| current.is_some_and(|s| s.suspends(c)));
            return if suspended_here || record.is_some() {
                Decision::Skipped(Skip::BadRecord(e))
            } else {
                Decision::NotInvolved
            };
        }
    };
    let recorded = intersect(clusters, &rec.0.keys().cloned().collect::<Vec<_>>());
    let suspended: Vec<String> = current.map_or_else(Vec::new, |s| s.suspended_clusters().to_vec());
    if before == State::AllClusters {
        if recorded.is_empty() {
            return Decision::NotInvolved;
        }
        return Decision::Unchanged(
            "suspended on all clusters (dispatching: true), not by the freeze: left untouched"
                .into(),
        );
    }
    let resume = intersect(&recorded, &suspended);
    let stale: Vec<String> = recorded
        .iter()
        .filter(|c| !suspended.contains(c))
        .cloned()
        .collect();
    let kept: Vec<String> = clusters
        .iter()
        .filter(|c| suspended.contains(c) && !recorded.contains(c))
        .cloned()
        .collect();
    if resume.is_empty() && stale.is_empty() {
        if kept.is_empty() {
            return Decision::NotInvolved;
        }
        return Decision::Unchanged(format!(
            "suspended on {} before or outside the freeze: left untouched",
            kept.join(", ")
        ));
    }
    let mut rec = rec;
    for c in &recorded {
        rec.0.remove(c);
    }
    let (new, after, suspension_changes) = if resume.is_empty() {
        (current.cloned(), before.clone(), false)
    } else {
        match suspension::plan(current, &Request::new(Action::Resume, &resume), None) {
            Plan::Change { new, after, .. } => (new, after, true),
            _ => (current.cloned(), before.clone(), false),
        }
    };
    Decision::Change(Change {
        new,
        before,
        after,
        suspension_changes,
        annotation: rec.to_annotation(),
        clusters: resume,
        kept,
        stale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> PropagationSpec {
        serde_json::from_str(json).unwrap()
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn stamp() -> Stamp {
        Stamp {
            at: "2026-11-29T16:00:00Z".into(),
            by: None,
            reason: Some("maintenance".into()),
        }
    }

    fn change(d: Decision) -> Change {
        match d {
            Decision::Change(c) => c,
            other => panic!("expected a change, got {other:?}"),
        }
    }

    const M123: &str =
        r#"{"placement":{"clusterAffinity":{"clusterNames":["member1","member2","member3"]}}}"#;

    #[test]
    fn only_policies_targeting_the_clusters_are_involved() {
        let only1 = spec(r#"{"placement":{"clusterAffinity":{"clusterNames":["member1"]}}}"#);
        assert_eq!(
            freeze(&only1, None, None, &s(&["member2", "member3"]), &stamp()),
            Decision::NotInvolved
        );
        // Bindings win over the placement.
        let b = s(&["member3"]);
        let c = change(freeze(
            &only1,
            None,
            Some(&b),
            &s(&["member2", "member3"]),
            &stamp(),
        ));
        assert_eq!(c.clusters, ["member3"]);
    }

    #[test]
    fn freeze_suspends_the_targeted_clusters_and_records_only_what_it_added() {
        let mut sp = spec(M123);
        sp.suspension = Some(
            serde_json::from_str(r#"{"dispatchingOnClusters":{"clusterNames":["member3"]}}"#)
                .unwrap(),
        );
        let c = change(freeze(
            &sp,
            None,
            None,
            &s(&["member2", "member3"]),
            &stamp(),
        ));
        assert_eq!(c.clusters, ["member2"]);
        assert_eq!(c.kept, ["member3"]);
        assert_eq!(
            c.new.as_ref().unwrap().suspended_clusters(),
            ["member3", "member2"]
        );
        assert_eq!(
            c.annotation.as_deref(),
            Some(r#"{"member2":{"at":"2026-11-29T16:00:00Z","reason":"maintenance"}}"#)
        );
        assert!(c
            .describe(Action::Suspend)
            .starts_with("suspend on member2; member3 already"));
    }

    #[test]
    fn second_freeze_is_unchanged_and_says_so() {
        let mut sp = spec(M123);
        let c = change(freeze(&sp, None, None, &s(&["member2"]), &stamp()));
        sp.suspension = c.new;
        let d = freeze(
            &sp,
            c.annotation.as_deref(),
            None,
            &s(&["member2"]),
            &stamp(),
        );
        assert_eq!(d, Decision::Unchanged("already frozen on member2".into()));
    }

    #[test]
    fn all_clusters_and_unknown_targets_are_skipped() {
        let mut sp = spec(M123);
        sp.suspension = Some(serde_json::from_str(r#"{"dispatching":true}"#).unwrap());
        assert_eq!(
            freeze(&sp, None, None, &s(&["member2"]), &stamp()),
            Decision::Skipped(Skip::AlreadySuspendedAll)
        );
        let by_label = spec(
            r#"{"placement":{"clusterAffinity":{"labelSelector":{"matchLabels":{"a":"b"}}}}}"#,
        );
        let d = freeze(&by_label, None, None, &s(&["member2"]), &stamp());
        assert_eq!(d, Decision::Skipped(Skip::TargetsUnknown));
        assert!(Skip::TargetsUnknown.to_string().contains("unknown"));
    }

    #[test]
    fn lift_resumes_only_what_the_freeze_added() {
        let mut sp = spec(M123);
        sp.suspension = Some(
            serde_json::from_str(r#"{"dispatchingOnClusters":{"clusterNames":["member3"]}}"#)
                .unwrap(),
        );
        let c = change(freeze(
            &sp,
            None,
            None,
            &s(&["member2", "member3"]),
            &stamp(),
        ));
        sp.suspension = c.new.clone();
        let l = change(lift(
            &sp,
            c.annotation.as_deref(),
            &s(&["member2", "member3"]),
        ));
        assert_eq!(l.clusters, ["member2"]);
        assert_eq!(l.kept, ["member3"]);
        assert_eq!(l.annotation, None, "record emptied: annotation removed");
        assert_eq!(l.new.as_ref().unwrap().suspended_clusters(), ["member3"]);
        assert!(l
            .describe(Action::Resume)
            .contains("member3 stays suspended"));
        // Lifting again: nothing recorded, member3 left untouched and said so.
        sp.suspension = l.new;
        let d = lift(&sp, None, &s(&["member2", "member3"]));
        assert!(
            matches!(&d, Decision::Unchanged(m) if m.contains("left untouched")),
            "{d:?}"
        );
    }

    #[test]
    fn lift_of_the_last_cluster_removes_suspension_and_forgets_stale_records() {
        let mut sp = spec(M123);
        let c = change(freeze(&sp, None, None, &s(&["member2"]), &stamp()));
        sp.suspension = c.new.clone();
        let l = change(lift(&sp, c.annotation.as_deref(), &s(&["member2"])));
        assert_eq!(l.new, None);
        assert_eq!(l.after, State::NotSuspended);
        // Someone resumed member2 by hand: only the record goes.
        sp.suspension = None;
        let l = change(lift(&sp, c.annotation.as_deref(), &s(&["member2"])));
        assert!(!l.suspension_changes);
        assert_eq!(l.stale, ["member2"]);
        assert_eq!(l.annotation, None);
    }

    #[test]
    fn lift_leaves_a_later_full_suspension_alone() {
        let mut sp = spec(M123);
        sp.suspension = Some(serde_json::from_str(r#"{"dispatching":true}"#).unwrap());
        let rec = r#"{"member2":{"at":"x"}}"#;
        assert!(matches!(
            lift(&sp, Some(rec), &s(&["member2"])),
            Decision::Unchanged(_)
        ));
        assert_eq!(lift(&sp, None, &s(&["member2"])), Decision::NotInvolved);
    }

    #[test]
    fn record_round_trips_and_rejects_garbage() {
        let r = Record::parse(Some(
            r#"{"b":{"at":"t","by":"u","reason":"r"},"a":{"at":"t"}}"#,
        ))
        .unwrap();
        assert_eq!(r.0.len(), 2);
        assert_eq!(
            r.to_annotation().unwrap(),
            r#"{"a":{"at":"t"},"b":{"at":"t","by":"u","reason":"r"}}"#
        );
        assert!(Record::parse(Some("member2")).is_err());
        assert_eq!(Record::parse(None).unwrap(), Record::default());
        let sp = spec(M123);
        assert!(matches!(
            freeze(&sp, Some("[1]"), None, &s(&["member2"]), &stamp()),
            Decision::Skipped(Skip::BadRecord(_))
        ));
    }
}
