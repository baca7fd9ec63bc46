//! Planning `suspend` and `resume`: from a policy's current `spec.suspension` and a request,
//! the new suspension (or an honest "no change"), and what stalls in failover while suspended.
//!
//! Specification: `../shared/karmada/validation-suspension-failover.md` §1.2 rule S1
//! (`dispatching` and `dispatchingOnClusters.clusterNames` are mutually exclusive), §2.1-2.5
//! (suspension end to end), §3.4 (suspension × failover). Pure: no I/O, no printing.
//! The `--force` rule is [`force`].

pub mod force;

use std::fmt;

use crate::model::policy::{PropagationSpec, SuspendClusters, Suspension};

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Suspend,
    Resume,
}

/// `suspend`/`resume` with an optional `--clusters` list (empty = all clusters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub action: Action,
    pub clusters: Vec<String>,
}

impl Request {
    pub fn new(action: Action, clusters: &[String]) -> Request {
        let mut list: Vec<String> = Vec::with_capacity(clusters.len());
        for c in clusters {
            let c = c.trim();
            if !c.is_empty() && !list.iter().any(|x| x == c) {
                list.push(c.to_string());
            }
        }
        Request {
            action,
            clusters: list,
        }
    }
}

/// What dispatching is paused for, as Karmada decides it (`shouldSuspendDispatching`,
/// binding/common.go:363-376, §2.3): `dispatching: true` wins over any list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    NotSuspended,
    AllClusters,
    Clusters(Vec<String>),
}

impl State {
    pub fn of(s: Option<&Suspension>) -> State {
        match s {
            None => State::NotSuspended,
            Some(s) if s.suspends_all() => State::AllClusters,
            Some(s) if !s.suspended_clusters().is_empty() => {
                State::Clusters(s.suspended_clusters().to_vec())
            }
            Some(_) => State::NotSuspended,
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            State::NotSuspended => f.write_str("not suspended"),
            State::AllClusters => f.write_str("suspended on all clusters"),
            State::Clusters(c) => write!(f, "suspended on {}", c.join(", ")),
        }
    }
}

/// Why nothing needs to change (the command still succeeds: idempotent, exit 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unchanged {
    /// `suspend` (all) on a policy already suspended on all clusters.
    AlreadySuspendedAll,
    /// `suspend --clusters` where every named cluster is already covered.
    AlreadySuspendedOn(Vec<String>),
    /// `suspend --clusters` on a policy suspended on all clusters: nothing to add.
    AlreadySuspendedAllCovers(Vec<String>),
    /// `resume` on a policy that is not suspended.
    NotSuspended,
    /// `resume --clusters` where none of the named clusters is suspended.
    NotSuspendedOn(Vec<String>),
    /// `resume --clusters` on an all-clusters suspension, naming no target cluster.
    NotATarget {
        clusters: Vec<String>,
        targets: Vec<String>,
    },
}

impl fmt::Display for Unchanged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unchanged::AlreadySuspendedAll => f.write_str("already suspended on all clusters"),
            Unchanged::AlreadySuspendedOn(c) => write!(f, "already suspended on {}", c.join(", ")),
            Unchanged::AlreadySuspendedAllCovers(c) => write!(
                f,
                "already suspended on all clusters (which includes {})",
                c.join(", ")
            ),
            Unchanged::NotSuspended => f.write_str("not suspended"),
            Unchanged::NotSuspendedOn(c) => write!(f, "not suspended on {}", c.join(", ")),
            Unchanged::NotATarget { clusters, targets } => write!(
                f,
                "suspended on all clusters; {} not among its target clusters ({}), nothing to resume",
                clusters.join(", "),
                targets.join(", ")
            ),
        }
    }
}

/// Why the request cannot be carried out as asked (exit 1 for that policy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `resume --clusters` on an all-clusters suspension with no known target clusters.
    TargetsUnknown { clusters: Vec<String> },
    /// The suspension as written already breaks Karmada's rule S1 (`dispatching: true` with a
    /// cluster list: validation.go `ValidatePropagationSpec`, "suspension dispatching cannot
    /// co-exist with dispatchingOnClusters.clusterNames"): the webhook rejects the policy, and
    /// only a request that clears one side (suspend or resume of all clusters) mends it.
    Rejected,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::TargetsUnknown { clusters } => write!(
                f,
                "suspended on all clusters (dispatching: true), and resuming only {} needs the list of its target clusters to keep suspended; \
                 none is known: no ResourceBinding of this policy lists spec.clusters and the placement does not name its clusters. \
                 Resume all clusters, or suspend the others explicitly with `suspend --clusters`",
                clusters.join(", ")
            ),
            Refusal::Rejected => f.write_str(
                "Karmada rejects this policy as written: spec.suspension.suspension: suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames; \
                 `suspend` or `resume` without --clusters mends it (dispatching: true alone, or no suspension)",
            ),
        }
    }
}

/// The plan for one policy.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// Write `new` as `spec.suspension` (`None` removes the field).
    Change {
        new: Option<Suspension>,
        before: State,
        after: State,
    },
    Unchanged(Unchanged),
    Refused(Refusal),
}

/// The clusters among the Cluster objects `clusters` that `spec`'s placement can send a
/// template to (the scheduler's filter stage, for the first kind the policy selects): where no
/// binding is known, the targets of a placement that does not name its clusters, as `explain`
/// and `plan` evaluate it over the same objects. `None` without Cluster objects.
pub fn targets_among(spec: &PropagationSpec, clusters: &[Cluster]) -> Option<Vec<String>> {
    if clusters.is_empty() {
        return None;
    }
    let selector = spec.resource_selectors.first()?;
    let view = super::placement::BindingView {
        api_version: &selector.api_version,
        kind: &selector.kind,
        ..Default::default()
    };
    let result = super::placement::evaluate(spec.scheduled_placement(), clusters, &view);
    Some(result.decided.feasible)
}

/// The target clusters of a policy, as the conversion of an all-clusters suspension needs them:
/// the union of its bindings' `spec.clusters` when any binding is known (what Karmada scheduled,
/// §2.3 `ensureWork` targets), else the clusters the placement names when it selects only by
/// name (minus `exclude`), else unknown.
pub fn target_clusters(
    spec: &PropagationSpec,
    binding_clusters: Option<&[String]>,
) -> Option<Vec<String>> {
    if let Some(b) = binding_clusters {
        if !b.is_empty() {
            let mut out: Vec<String> = Vec::new();
            for c in b {
                if !out.contains(c) {
                    out.push(c.clone());
                }
            }
            return Some(out);
        }
    }
    let placement = spec.placement.as_ref()?;
    if !placement.targets_only_named_clusters() {
        return None;
    }
    let exclude: Vec<&str> = placement
        .cluster_affinity
        .iter()
        .flat_map(|a| a.exclude.iter().map(String::as_str))
        .collect();
    let named: Vec<String> = placement
        .named_clusters()
        .into_iter()
        .filter(|c| !exclude.contains(c))
        .map(str::to_string)
        .collect();
    (!named.is_empty()).then_some(named)
}

/// Plans `request` against the policy's current suspension.
///
/// `targets` is [`target_clusters`]; it is read only when resuming some clusters of an
/// all-clusters suspension.
pub fn plan(current: Option<&Suspension>, request: &Request, targets: Option<&[String]>) -> Plan {
    // S1 already broken: only a request for every cluster leaves a suspension Karmada accepts;
    // any other answer ("already suspended") would hide the rejection.
    let rejected =
        current.is_some_and(|s| s.dispatching == Some(true) && !s.suspended_clusters().is_empty());
    if rejected && !request.clusters.is_empty() {
        return Plan::Refused(Refusal::Rejected);
    }
    let before = State::of(current);
    let change = |new: Option<Suspension>| {
        let after = State::of(new.as_ref());
        Plan::Change {
            new,
            before: before.clone(),
            after,
        }
    };
    match (request.action, request.clusters.is_empty()) {
        // `suspend`: dispatching: true, dropping any cluster list (S1: the two cannot co-exist).
        (Action::Suspend, true) => {
            let clean_all = current.is_some_and(|s| {
                s.suspends_all()
                    && s.dispatching_on_clusters
                        .as_ref()
                        .is_none_or(|c| c.cluster_names.is_empty())
            });
            if clean_all {
                return Plan::Unchanged(Unchanged::AlreadySuspendedAll);
            }
            change(Some(Suspension {
                dispatching: Some(true),
                dispatching_on_clusters: None,
            }))
        }
        // `suspend --clusters a,b`: add to dispatchingOnClusters.clusterNames.
        (Action::Suspend, false) => {
            if before == State::AllClusters {
                return Plan::Unchanged(Unchanged::AlreadySuspendedAllCovers(
                    request.clusters.clone(),
                ));
            }
            let mut names = current.map_or_else(Vec::new, |s| s.suspended_clusters().to_vec());
            let missing: Vec<&String> = request
                .clusters
                .iter()
                .filter(|c| !names.contains(c))
                .collect();
            if missing.is_empty() {
                return Plan::Unchanged(Unchanged::AlreadySuspendedOn(request.clusters.clone()));
            }
            names.extend(missing.into_iter().cloned());
            // Keep `dispatching: false` if the user wrote it: valid with a list (S1 only
            // forbids `true` together with clusterNames).
            let dispatching = current.and_then(|s| s.dispatching);
            change(Some(Suspension {
                dispatching,
                dispatching_on_clusters: Some(SuspendClusters {
                    cluster_names: names,
                }),
            }))
        }
        // `resume`: remove `suspension` (e2e resumes with `suspension: null`, §2.4).
        (Action::Resume, true) => {
            if current.is_none() || before == State::NotSuspended {
                return Plan::Unchanged(Unchanged::NotSuspended);
            }
            change(None)
        }
        (Action::Resume, false) => match before.clone() {
            State::NotSuspended => Plan::Unchanged(Unchanged::NotSuspended),
            // All clusters: convert to the target clusters minus the resumed ones.
            State::AllClusters => {
                let Some(targets) = targets.filter(|t| !t.is_empty()) else {
                    return Plan::Refused(Refusal::TargetsUnknown {
                        clusters: request.clusters.clone(),
                    });
                };
                if !request.clusters.iter().any(|c| targets.contains(c)) {
                    return Plan::Unchanged(Unchanged::NotATarget {
                        clusters: request.clusters.clone(),
                        targets: targets.to_vec(),
                    });
                }
                let rest: Vec<String> = targets
                    .iter()
                    .filter(|t| !request.clusters.contains(t))
                    .cloned()
                    .collect();
                if rest.is_empty() {
                    return change(None);
                }
                change(Some(Suspension {
                    dispatching: None,
                    dispatching_on_clusters: Some(SuspendClusters {
                        cluster_names: rest,
                    }),
                }))
            }
            State::Clusters(names) => {
                if !request.clusters.iter().any(|c| names.contains(c)) {
                    return Plan::Unchanged(Unchanged::NotSuspendedOn(request.clusters.clone()));
                }
                let rest: Vec<String> = names
                    .into_iter()
                    .filter(|n| !request.clusters.contains(n))
                    .collect();
                if rest.is_empty() {
                    // The last cluster: remove `suspension` altogether.
                    return change(None);
                }
                let dispatching = current.and_then(|s| s.dispatching);
                change(Some(Suspension {
                    dispatching,
                    dispatching_on_clusters: Some(SuspendClusters {
                        cluster_names: rest,
                    }),
                }))
            }
        },
    }
}

/// Requested cluster names the control plane does not know (warn, or error with `--strict`).
pub fn unknown_clusters<'a>(requested: &'a [String], known: &[String]) -> Vec<&'a str> {
    requested
        .iter()
        .filter(|r| !known.contains(r))
        .map(String::as_str)
        .collect()
}

use crate::model::cluster::Cluster;

/// Something that stalls (or a surprise) while the policy is suspended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stall {
    /// Application failover configured: eviction and rescheduling proceed, dispatch to the
    /// replacement does not (§3.4 items 1-5).
    ApplicationFailover { purge_mode: String },
    /// Cluster failover configured (§3.4 items 3-5, 7).
    ClusterFailover { purge_mode: String },
    /// A target cluster is NotReady or tainted: failover may already be moving the workload.
    UnhealthyTarget { cluster: String, why: String },
    /// `activationPreference: Lazy`: the change reaches bindings only when the template changes (§2.2).
    Lazy,
    /// `propagateDeps: true`: dependencies keep being dispatched (§2.2, attached bindings).
    DependenciesKeepFlowing,
}

impl Stall {
    /// Whether this stall makes suspending all clusters need `--force`.
    pub fn blocks_full_suspension(&self) -> bool {
        matches!(
            self,
            Stall::ApplicationFailover { .. }
                | Stall::ClusterFailover { .. }
                | Stall::UnhealthyTarget { .. }
        )
    }
}

impl fmt::Display for Stall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stall::ApplicationFailover { purge_mode } => {
                let effect = match purge_mode.as_str() {
                    "Never" => "the old copy stays and the eviction task never completes: an indefinite stall until resume",
                    "Directly" => "the old copy is deleted at once and the replacement is never dispatched: an immediate outage",
                    _ => "the replacement is never dispatched and the old copy is purged after gracePeriodSeconds (default 600s): no running copy until resume",
                };
                write!(f, "application failover (purgeMode {purge_mode}) still evicts and reschedules while suspended, but the replacement cluster gets nothing: {effect}")
            }
            Stall::ClusterFailover { purge_mode } => {
                let effect = match purge_mode.as_str() {
                    "Directly" => "the old copy is deleted at once: an immediate outage",
                    _ => "the old copy is removed after --graceful-eviction-timeout (default 10m): no running copy until resume",
                };
                write!(f, "cluster failover (purgeMode {purge_mode}) still evicts from a tainted cluster while suspended, but the replacement cluster gets nothing: {effect}")
            }
            Stall::UnhealthyTarget { cluster, why } => write!(
                f,
                "target cluster {cluster} is {why}: if the workload fails over, its replacement is not dispatched while suspended"
            ),
            Stall::Lazy => f.write_str(
                "activationPreference: Lazy: the change reaches bindings and Works only when the resource template changes",
            ),
            Stall::DependenciesKeepFlowing => f.write_str(
                "propagateDeps: dependencies (ConfigMaps, Secrets, the ServiceAccount, PersistentVolumeClaims) keep being dispatched, also to new target clusters, while the workload is suspended",
            ),
        }
    }
}

/// What stalls while `after` is in force (§3.4 and the suggested predicate after it).
///
/// `candidates` are the clusters the placement could fail over to (`None`: any cluster).
/// `cluster_failover` says whether cluster failover runs in the control plane
/// ([`crate::model::feature_gates::GateSet::cluster_failover`]): it needs the Failover gate (off
/// by default since v1.12; `controllermanager.go` starts the taint manager only with it and
/// `--enable-taint-manager`) and, from v1.14, `--enable-no-execute-taint-eviction=true`
/// (`taint_manager.go`); without them nothing is evicted from a tainted cluster, so nothing
/// stalls either. Application failover has no gate (its controller always starts).
pub fn stalls(
    spec: &PropagationSpec,
    after: &State,
    (candidates, cluster_failover): (Option<&[String]>, bool),
    clusters: &[Cluster],
    targets: Option<&[String]>,
) -> Vec<Stall> {
    let mut out = Vec::new();
    if *after == State::NotSuspended {
        return out;
    }
    // (a) dispatching: true, or (b) the suspended list intersects the failover candidates;
    // suspending only a failing cluster does not block failover (§3.4 item 8).
    let covers_candidates = match after {
        State::AllClusters => true,
        State::Clusters(names) => match candidates {
            None => true,
            Some(c) => names.iter().any(|n| c.contains(n)),
        },
        State::NotSuspended => false,
    };
    if let Some(fo) = &spec.failover {
        if covers_candidates {
            if let Some(app) = &fo.application {
                out.push(Stall::ApplicationFailover {
                    purge_mode: app
                        .purge_mode
                        .clone()
                        .unwrap_or_else(|| "Gracefully".into()),
                });
            }
            if let Some(cl) = fo.cluster.as_ref().filter(|_| cluster_failover) {
                out.push(Stall::ClusterFailover {
                    purge_mode: cl.purge_mode.clone().unwrap_or_else(|| "Gracefully".into()),
                });
            }
        }
    }
    for c in clusters {
        let is_target = targets.is_none_or(|t| t.iter().any(|x| x == &c.name));
        if !is_target {
            continue;
        }
        let mut why = Vec::new();
        if c.ready() == Some(false) {
            why.push("NotReady".to_string());
        }
        for t in &c.spec.taints {
            why.push(format!("tainted {}:{}", t.key, t.effect));
        }
        if !why.is_empty() && covers_candidates {
            out.push(Stall::UnhealthyTarget {
                cluster: c.name.clone(),
                why: why.join(", "),
            });
        }
    }
    if spec.lazy() {
        out.push(Stall::Lazy);
    }
    if spec.propagate_deps() {
        out.push(Stall::DependenciesKeepFlowing);
    }
    out
}

/// The clusters a policy could fail over to, when the placement names them (else `None`: any).
pub fn failover_candidates(spec: &PropagationSpec) -> Option<Vec<String>> {
    target_clusters(spec, None)
}

/// Whether the plan suspends every cluster the policy targets (for the `--force` rule).
pub fn suspends_every_target(after: &State, targets: Option<&[String]>) -> bool {
    match after {
        State::AllClusters => true,
        State::Clusters(names) => {
            targets.is_some_and(|t| !t.is_empty() && t.iter().all(|x| names.contains(x)))
        }
        State::NotSuspended => false,
    }
}

/// For `--wait`: whether a Work on `cluster` must change, and to what (`Some(true)`: must show
/// suspended). `None` when the cluster's dispatching state did not change.
pub fn expected_dispatch(
    before: Option<&Suspension>,
    after: Option<&Suspension>,
    cluster: &str,
) -> Option<bool> {
    let was = before.is_some_and(|s| s.suspends(cluster));
    let will = after.is_some_and(|s| s.suspends(cluster));
    (was != will).then_some(will)
}

/// Whether a Work's `Dispatching` condition shows the wanted state (§2.4 table: suspended is
/// `False`/`SuspendDispatching`, dispatching is `True`/`Dispatching`).
pub fn dispatching_settled(want_suspended: bool, status: &str, reason: &str) -> bool {
    if want_suspended {
        status == "False" && reason == "SuspendDispatching"
    } else {
        status == "True"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn susp(json: &str) -> Suspension {
        serde_json::from_str(json).unwrap()
    }

    fn req(action: Action, clusters: &[&str]) -> Request {
        let c: Vec<String> = clusters.iter().map(|s| s.to_string()).collect();
        Request::new(action, &c)
    }

    fn new_of(p: Plan) -> Option<Suspension> {
        match p {
            Plan::Change { new, .. } => new,
            other => panic!("expected a change, got {other:?}"),
        }
    }

    fn names(s: &Suspension) -> Vec<&str> {
        s.suspended_clusters().iter().map(String::as_str).collect()
    }

    #[test]
    fn suspend_all_sets_dispatching_and_drops_the_list() {
        let cur = susp(r#"{"dispatchingOnClusters":{"clusterNames":["member2"]}}"#);
        let new = new_of(plan(Some(&cur), &req(Action::Suspend, &[]), None)).unwrap();
        assert_eq!(new.dispatching, Some(true));
        assert!(new.dispatching_on_clusters.is_none(), "S1: never both");
        let new = new_of(plan(None, &req(Action::Suspend, &[]), None)).unwrap();
        assert_eq!(new.dispatching, Some(true));
    }

    #[test]
    fn suspend_all_twice_is_unchanged_but_repairs_an_invalid_mix() {
        let cur = susp(r#"{"dispatching":true}"#);
        assert_eq!(
            plan(Some(&cur), &req(Action::Suspend, &[]), None),
            Plan::Unchanged(Unchanged::AlreadySuspendedAll)
        );
        // dispatching: true with a list is rejected by the webhook (S1); suspend cleans it up.
        let bad = susp(r#"{"dispatching":true,"dispatchingOnClusters":{"clusterNames":["a"]}}"#);
        let new = new_of(plan(Some(&bad), &req(Action::Suspend, &[]), None)).unwrap();
        assert!(new.dispatching_on_clusters.is_none());
        // So does resuming every cluster; anything narrower reports the rejection instead of
        // "already suspended".
        assert_eq!(
            new_of(plan(Some(&bad), &req(Action::Resume, &[]), None)),
            None
        );
        for action in [Action::Suspend, Action::Resume] {
            let p = plan(Some(&bad), &req(action, &["a"]), Some(&["a".to_string()]));
            assert_eq!(p, Plan::Refused(Refusal::Rejected), "{action:?}");
        }
        assert!(Refusal::Rejected
            .to_string()
            .contains("cannot co-exist with dispatchingOnClusters.clusterNames"));
    }

    #[test]
    fn suspend_clusters_adds_to_the_list_in_order() {
        let cur = susp(r#"{"dispatchingOnClusters":{"clusterNames":["member2"]}}"#);
        let p = plan(
            Some(&cur),
            &req(Action::Suspend, &["member3", "member2"]),
            None,
        );
        let Plan::Change { new, after, before } = p else {
            panic!()
        };
        assert_eq!(before, State::Clusters(vec!["member2".into()]));
        assert_eq!(after.to_string(), "suspended on member2, member3");
        let new = new.unwrap();
        assert_eq!(names(&new), ["member2", "member3"]);
        assert_eq!(new.dispatching, None);
    }

    #[test]
    fn suspend_clusters_on_all_clusters_says_so_and_changes_nothing() {
        let cur = susp(r#"{"dispatching":true}"#);
        let p = plan(Some(&cur), &req(Action::Suspend, &["member2"]), None);
        assert_eq!(
            p,
            Plan::Unchanged(Unchanged::AlreadySuspendedAllCovers(vec!["member2".into()]))
        );
        let Plan::Unchanged(u) = p else { panic!() };
        assert!(u.to_string().contains("already suspended on all clusters"));
    }

    #[test]
    fn already_suspended_on_member2_is_unchanged() {
        let cur = susp(r#"{"dispatchingOnClusters":{"clusterNames":["member2","member3"]}}"#);
        let p = plan(Some(&cur), &req(Action::Suspend, &["member2"]), None);
        let Plan::Unchanged(u) = p else {
            panic!("{p:?}")
        };
        assert_eq!(u.to_string(), "already suspended on member2");
    }

    #[test]
    fn suspend_clusters_keeps_dispatching_false() {
        let cur = susp(r#"{"dispatching":false}"#);
        let new = new_of(plan(Some(&cur), &req(Action::Suspend, &["a"]), None)).unwrap();
        assert_eq!(new.dispatching, Some(false));
        assert_eq!(names(&new), ["a"]);
    }

    #[test]
    fn resume_removes_suspension() {
        for cur in [
            r#"{"dispatching":true}"#,
            r#"{"dispatchingOnClusters":{"clusterNames":["a"]}}"#,
        ] {
            let cur = susp(cur);
            assert_eq!(
                new_of(plan(Some(&cur), &req(Action::Resume, &[]), None)),
                None
            );
        }
    }

    #[test]
    fn resume_when_not_suspended_is_unchanged() {
        assert_eq!(
            plan(None, &req(Action::Resume, &[]), None),
            Plan::Unchanged(Unchanged::NotSuspended)
        );
        // `suspension: {}` and `dispatching: false` pause nothing (§1.2: valid, inactive).
        for cur in ["{}", r#"{"dispatching":false}"#] {
            let cur = susp(cur);
            assert_eq!(
                plan(Some(&cur), &req(Action::Resume, &[]), None),
                Plan::Unchanged(Unchanged::NotSuspended)
            );
        }
    }

    #[test]
    fn resume_clusters_removes_from_the_list() {
        let cur = susp(r#"{"dispatchingOnClusters":{"clusterNames":["a","b","c"]}}"#);
        let new = new_of(plan(Some(&cur), &req(Action::Resume, &["b"]), None)).unwrap();
        assert_eq!(names(&new), ["a", "c"]);
    }

    #[test]
    fn resuming_the_last_cluster_removes_suspension() {
        let cur = susp(r#"{"dispatchingOnClusters":{"clusterNames":["a"]}}"#);
        assert_eq!(
            new_of(plan(Some(&cur), &req(Action::Resume, &["a"]), None)),
            None
        );
        let cur = susp(r#"{"dispatchingOnClusters":{"clusterNames":["a","b"]}}"#);
        assert_eq!(
            new_of(plan(Some(&cur), &req(Action::Resume, &["b", "a"]), None)),
            None
        );
    }

    #[test]
    fn resume_a_cluster_not_suspended_is_unchanged() {
        let cur = susp(r#"{"dispatchingOnClusters":{"clusterNames":["a"]}}"#);
        let p = plan(Some(&cur), &req(Action::Resume, &["z"]), None);
        let Plan::Unchanged(u) = p else { panic!() };
        assert_eq!(u.to_string(), "not suspended on z");
    }

    #[test]
    fn resume_cluster_of_all_clusters_converts_to_targets_minus_it() {
        let cur = susp(r#"{"dispatching":true}"#);
        let targets: Vec<String> = ["member1", "member2", "member3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let p = plan(
            Some(&cur),
            &req(Action::Resume, &["member2"]),
            Some(&targets),
        );
        let Plan::Change { new, after, .. } = p else {
            panic!()
        };
        let new = new.unwrap();
        assert_eq!(new.dispatching, None, "S1: list without dispatching");
        assert_eq!(names(&new), ["member1", "member3"]);
        assert_eq!(after.to_string(), "suspended on member1, member3");
    }

    #[test]
    fn resume_every_target_of_all_clusters_removes_suspension() {
        let cur = susp(r#"{"dispatching":true}"#);
        let targets = vec!["member1".to_string()];
        assert_eq!(
            new_of(plan(
                Some(&cur),
                &req(Action::Resume, &["member1"]),
                Some(&targets)
            )),
            None
        );
    }

    #[test]
    fn resume_cluster_of_all_clusters_refuses_without_targets() {
        let cur = susp(r#"{"dispatching":true}"#);
        let p = plan(Some(&cur), &req(Action::Resume, &["member2"]), None);
        let Plan::Refused(r) = p else { panic!() };
        assert!(r.to_string().contains("none is known"), "{r}");
        let p = plan(Some(&cur), &req(Action::Resume, &["member2"]), Some(&[]));
        assert!(matches!(p, Plan::Refused(_)));
    }

    #[test]
    fn resume_non_target_of_all_clusters_is_unchanged() {
        let cur = susp(r#"{"dispatching":true}"#);
        let targets = vec!["member1".to_string()];
        let p = plan(Some(&cur), &req(Action::Resume, &["x"]), Some(&targets));
        assert!(matches!(p, Plan::Unchanged(Unchanged::NotATarget { .. })));
    }

    #[test]
    fn request_deduplicates_and_trims() {
        let r = req(Action::Suspend, &[" a", "a", "", "b"]);
        assert_eq!(r.clusters, ["a", "b"]);
    }

    fn spec(json: &str) -> PropagationSpec {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn targets_from_bindings_then_named_placement() {
        let s = spec(
            r#"{"placement":{"clusterAffinity":{"clusterNames":["m1","m2","m3"],"exclude":["m3"]}}}"#,
        );
        assert_eq!(target_clusters(&s, None).unwrap(), ["m1", "m2"]);
        let b = vec!["m2".to_string(), "m2".to_string(), "m9".to_string()];
        assert_eq!(target_clusters(&s, Some(&b)).unwrap(), ["m2", "m9"]);
        let by_label = spec(
            r#"{"placement":{"clusterAffinity":{"labelSelector":{"matchLabels":{"a":"b"}}}}}"#,
        );
        assert_eq!(target_clusters(&by_label, None), None);
        assert_eq!(target_clusters(&spec("{}"), None), None);
    }

    #[test]
    fn failover_stalls_by_purge_mode() {
        let s = spec(
            r#"{"failover":{"application":{"decisionConditions":{},"purgeMode":"Never"}},
                "placement":{"clusterAffinity":{"clusterNames":["m1","m2"]}}}"#,
        );
        let cand = failover_candidates(&s);
        let st = stalls(&s, &State::AllClusters, (cand.as_deref(), true), &[], None);
        assert_eq!(
            st,
            vec![Stall::ApplicationFailover {
                purge_mode: "Never".into()
            }]
        );
        assert!(st[0].to_string().contains("indefinite stall"));
        assert!(st[0].blocks_full_suspension());
        // Suspending a cluster outside the candidates does not stall failover (§3.4 item 8).
        let st = stalls(
            &s,
            &State::Clusters(vec!["m9".into()]),
            (cand.as_deref(), true),
            &[],
            None,
        );
        assert!(st.is_empty(), "{st:?}");
        // Not suspended: nothing stalls.
        assert!(stalls(&s, &State::NotSuspended, (None, true), &[], None).is_empty());
    }

    #[test]
    fn cluster_failover_defaults_to_gracefully() {
        let s = spec(r#"{"failover":{"cluster":{}}}"#);
        let st = stalls(
            &s,
            &State::Clusters(vec!["a".into()]),
            (None, true),
            &[],
            None,
        );
        assert_eq!(
            st,
            vec![Stall::ClusterFailover {
                purge_mode: "Gracefully".into()
            }]
        );
        // Where cluster failover does not run, nothing is evicted, so nothing stalls.
        let st = stalls(
            &s,
            &State::Clusters(vec!["a".into()]),
            (None, false),
            &[],
            None,
        );
        assert!(st.is_empty(), "{st:?}");
    }

    #[test]
    fn unhealthy_targets_lazy_and_dependencies() {
        let s = spec(r#"{"activationPreference":"Lazy","propagateDeps":true}"#);
        let cluster = |name: &str, ready: &str, taint: Option<&str>| {
            Cluster::from_object(&serde_json::json!({
                "metadata": {"name": name},
                "spec": {"taints": taint.map(|k| vec![serde_json::json!({"key": k, "effect": "NoExecute"})]).unwrap_or_default()},
                "status": {"conditions": [{"type": "Ready", "status": ready}]},
            }))
        };
        let clusters = vec![
            cluster("m1", "False", None),
            cluster("m2", "True", Some("cluster.karmada.io/not-ready")),
            cluster("other", "Unknown", None),
        ];
        let targets = vec!["m1".to_string(), "m2".to_string()];
        let st = stalls(
            &s,
            &State::AllClusters,
            (None, true),
            &clusters,
            Some(&targets),
        );
        assert_eq!(st.len(), 4, "{st:?}");
        assert!(
            matches!(&st[0], Stall::UnhealthyTarget { cluster, why } if cluster == "m1" && why == "NotReady")
        );
        assert!(st[1]
            .to_string()
            .contains("tainted cluster.karmada.io/not-ready:NoExecute"));
        assert_eq!(st[2], Stall::Lazy);
        assert_eq!(st[3], Stall::DependenciesKeepFlowing);
        assert!(!st[2].blocks_full_suspension());
    }

    #[test]
    fn every_target_suspended() {
        let t = vec!["a".to_string(), "b".to_string()];
        assert!(suspends_every_target(&State::AllClusters, None));
        assert!(suspends_every_target(
            &State::Clusters(vec!["b".into(), "a".into()]),
            Some(&t)
        ));
        assert!(!suspends_every_target(
            &State::Clusters(vec!["a".into()]),
            Some(&t)
        ));
        assert!(!suspends_every_target(
            &State::Clusters(vec!["a".into()]),
            None
        ));
    }

    #[test]
    fn wait_expectations_follow_the_work_condition_table() {
        let all = susp(r#"{"dispatching":true}"#);
        let m2 = susp(r#"{"dispatchingOnClusters":{"clusterNames":["m2"]}}"#);
        assert_eq!(expected_dispatch(None, Some(&all), "m1"), Some(true));
        assert_eq!(expected_dispatch(Some(&all), Some(&m2), "m1"), Some(false));
        assert_eq!(expected_dispatch(Some(&all), Some(&m2), "m2"), None);
        assert_eq!(expected_dispatch(Some(&m2), None, "m2"), Some(false));
        assert!(dispatching_settled(true, "False", "SuspendDispatching"));
        assert!(!dispatching_settled(true, "True", "Dispatching"));
        assert!(dispatching_settled(false, "True", "Dispatching"));
        assert!(!dispatching_settled(false, "False", "SuspendDispatching"));
    }

    #[test]
    fn unknown_cluster_names() {
        let known = vec!["member1".to_string()];
        let req = vec!["member1".to_string(), "membr2".to_string()];
        assert_eq!(unknown_clusters(&req, &known), ["membr2"]);
    }
}
