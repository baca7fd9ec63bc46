//! The one live writer of `suspend` and `resume`: every change to a policy on the control plane
//! goes through [`write()`], which owns optimistic concurrency (a merge patch guarded by the
//! resourceVersion that was read; on 409 Conflict a re-read, a recompute by the caller's
//! decision and a jittered backoff, within [`CONFLICT_RETRIES`]) and dry-run (client: the patch
//! merged locally; server: `?dryRun=All`).
//!
//! The reads the writes depend on live here too: the bindings of a policy (its target
//! clusters), the member clusters' health, and the Works `--wait` follows.

use std::time::Duration;

use serde_json::Value as J;

pub use super::plan::Patch;
use crate::kube::kinds::{self, KarmadaKind};
use crate::kube::{Conn, ErrorKind, KubeError};
use crate::model::binding::{BoundClusters, Work};
use crate::model::cluster::Cluster;
use crate::model::policy::{PropagationSpec, Suspension};
use crate::model::PolicyKind;

/// Re-reads after a 409 Conflict before giving up.
pub const CONFLICT_RETRIES: u32 = 5;

/// `--dry-run`: `client` computes the change locally, `server` sends it with `dryRun=All`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DryRun {
    None,
    Client,
    Server,
}

impl DryRun {
    /// What a result line says after the change.
    pub fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }

    pub fn is_dry(self) -> bool {
        self != DryRun::None
    }
}

/// One policy on the control plane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyRef {
    pub kind: PolicyKind,
    /// `None` for a ClusterPropagationPolicy.
    pub namespace: Option<String>,
    pub name: String,
}

/// The caller's decision for the object as read (on every attempt).
pub enum Step<T> {
    /// Write this patch; `T` travels to the result.
    Write(Patch, T),
    /// Nothing to write.
    Skip(T),
}

/// A write done (or a skip).
#[derive(Debug)]
pub struct Written<T> {
    pub info: T,
    /// The object as read last.
    pub before: J,
    /// What the server returned (the local merge in a client dry run); `None` when skipped.
    pub after: Option<J>,
}

/// Why a policy was not changed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Kube(#[from] KubeError),
    #[error("not found{}", namespace.as_ref().map(|n| format!(" in namespace {n}")).unwrap_or_default())]
    NotFound { namespace: Option<String> },
    /// File mode: a policy named on the command line is in none of the files read; `unparsed`
    /// are the places of documents that do not parse (it may be in one of them), `trees` the
    /// files of kustomize trees that were not read (`-f DIR` over a repository).
    #[error("not found in the given files{}", not_in_files_hint(unparsed, *trees))]
    NotInFiles { unparsed: Vec<String>, trees: usize },
    /// File mode, a bulk selection: a document that does not parse (the result's id is its
    /// place) may hold a policy the selection takes, which was not edited.
    #[error("a policy the selection takes may be in this document, which was not edited (render the file first, or edit it by hand)")]
    Unread,
    /// Gone between the first read and a re-read after a conflict.
    #[error("deleted meanwhile")]
    Deleted,
    #[error("cannot read spec: {0}")]
    Spec(String),
    /// The engine refused the change (the text says why).
    #[error("{0}")]
    Refused(String),
    #[error("gave up after {attempts} attempts: the object changed every time between read and write (409 Conflict); nothing was written")]
    GaveUp { attempts: u32 },
    /// `--wait` ran out of time after the write succeeded.
    #[error("{done}, but timed out after {timeout:?} waiting for Works: {works}")]
    WaitTimeout {
        done: String,
        timeout: Duration,
        works: String,
    },
}

/// Why a policy named may be in none of the files read: a document that does not parse (its
/// place, as `lint` reports it), or kustomize trees left unread.
fn not_in_files_hint(unparsed: &[String], trees: usize) -> String {
    let mut hint = String::new();
    if let Some(why) = crate::model::inputs::unparsed_may_hold(unparsed) {
        hint.push_str(&format!("; {why}"));
    }
    if trees > 0 {
        hint.push_str(&format!(
            "; {trees} {} of kustomize trees {} not read: name the layer with -f DIR (or --env DIR)",
            if trees == 1 { "file" } else { "files" },
            if trees == 1 { "was" } else { "were" },
        ));
    }
    hint
}

impl WriteError {
    /// The policy named does not exist (on the control plane, or in files that were all read
    /// and parse).
    pub fn is_not_found(&self) -> bool {
        match self {
            WriteError::NotFound { .. } => true,
            WriteError::NotInFiles { unparsed, trees } => unparsed.is_empty() && *trees == 0,
            WriteError::Kube(e) => e.kind() == ErrorKind::NotFound,
            _ => false,
        }
    }

    /// The control plane failed us (exit 3), as opposed to a refusal or a missing object.
    pub fn is_api_failure(&self) -> bool {
        matches!(self, WriteError::Kube(e) if matches!(
            e.kind(),
            ErrorKind::Auth | ErrorKind::Transport | ErrorKind::Config | ErrorKind::Server
        ))
    }
}

fn resource(kind: PolicyKind) -> &'static KarmadaKind {
    match kind {
        PolicyKind::PropagationPolicy => &kinds::PROPAGATION_POLICY,
        PolicyKind::ClusterPropagationPolicy => &kinds::CLUSTER_PROPAGATION_POLICY,
    }
}

/// Policies of a kind (`namespace: None` = all namespaces), filtered by a label selector.
pub async fn list_policies(
    conn: &Conn,
    kind: PolicyKind,
    namespace: Option<&str>,
    selector: Option<&str>,
) -> Result<Vec<J>, KubeError> {
    conn.list(resource(kind), namespace, selector).await
}

/// The caller's side of a write: what to change, decided on the object as read. Called on
/// every attempt (`attempt` 0 first): after a 409 Conflict the object is read again and decided
/// again, so the write never undoes a change made in between.
pub trait Decide: Send {
    /// What travels from the decision to the result (the message to print, say).
    type Info: Send;

    fn decide(
        &mut self,
        current: &J,
        spec: &PropagationSpec,
        attempt: u32,
    ) -> impl std::future::Future<Output = Result<Step<Self::Info>, WriteError>> + Send;
}

/// Writes one policy. `first` is the object when a list already read it.
pub async fn write<D: Decide>(
    conn: &Conn,
    target: &PolicyRef,
    first: Option<J>,
    dry: DryRun,
    decider: &mut D,
) -> Result<Written<D::Info>, WriteError> {
    let mut preloaded = first;
    let attempts = CONFLICT_RETRIES + 1;
    for attempt in 0..attempts {
        let current = match preloaded.take() {
            Some(o) => o,
            None => read(conn, target, attempt).await?,
        };
        let spec: PropagationSpec = serde_json::from_value(current["spec"].clone())
            .map_err(|e| WriteError::Spec(e.to_string()))?;
        let (patch, info) = match decider.decide(&current, &spec, attempt).await? {
            Step::Skip(info) => {
                return Ok(Written {
                    info,
                    before: current,
                    after: None,
                })
            }
            Step::Write(patch, info) => (patch, info),
        };
        match send(conn, target, &current, &patch.to_merge_patch(&current), dry).await {
            Ok(after) => {
                return Ok(Written {
                    info,
                    before: current,
                    after: Some(after),
                })
            }
            // Someone else wrote in between: re-read and recompute.
            Err(e) if e.is_conflict() => {
                let wait = backoff(attempt);
                if attempt + 1 < attempts {
                    crate::kube::trace::retrying(
                        &format!("the PATCH of {} after 409 Conflict", target_name(target)),
                        attempt + 2,
                        attempts,
                        &format!(
                            "{CONFLICT_RETRIES} retries, next in {} ms",
                            wait.as_millis()
                        ),
                    );
                }
                tokio::time::sleep(wait).await
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(WriteError::GaveUp { attempts })
}

/// `pp/NAMESPACE/NAME` or `cpp/NAME`, for the trace.
fn target_name(target: &PolicyRef) -> String {
    match &target.namespace {
        Some(ns) => format!("{} {ns}/{}", target.kind.as_str(), target.name),
        None => format!("{} {}", target.kind.as_str(), target.name),
    }
}

async fn read(conn: &Conn, target: &PolicyRef, attempt: u32) -> Result<J, WriteError> {
    let found = conn
        .get(
            resource(target.kind),
            target.namespace.as_deref(),
            &target.name,
        )
        .await?;
    match found {
        Some(o) => Ok(o),
        None if attempt == 0 => Err(WriteError::NotFound {
            namespace: target.namespace.clone(),
        }),
        None => Err(WriteError::Deleted),
    }
}

/// The one dry-run implementation: client = the patch merged locally, server = `dryRun=All`.
async fn send(
    conn: &Conn,
    target: &PolicyRef,
    current: &J,
    patch: &J,
    dry: DryRun,
) -> Result<J, KubeError> {
    if dry == DryRun::Client {
        let mut after = current.clone();
        merge_patch(&mut after, patch);
        return Ok(after);
    }
    let answer = conn
        .merge_patch(
            resource(target.kind),
            target.namespace.as_deref(),
            &target.name,
            patch,
            dry == DryRun::Server,
        )
        .await?;
    check_is_policy(&answer, target)?;
    Ok(answer)
}

/// A PATCH answer must be the policy patched: anything else (another object, a kind or name
/// that does not match) is not a success, whatever its status code.
fn check_is_policy(answer: &J, target: &PolicyRef) -> Result<(), KubeError> {
    let r = resource(target.kind);
    let type_ok = answer["kind"] == r.kind && answer["apiVersion"] == r.api_version();
    let name_ok = answer["metadata"]["name"] == target.name.as_str();
    let ns_ok = match (
        &answer["metadata"]["namespace"],
        target.kind,
        &target.namespace,
    ) {
        (J::String(n), PolicyKind::PropagationPolicy, Some(ns)) => n == ns,
        _ => true,
    };
    if type_ok && name_ok && ns_ok {
        return Ok(());
    }
    Err(KubeError::UnexpectedAnswer {
        kind: target.kind.as_str().to_string(),
        name: target.name.clone(),
    })
}

/// 25ms, 50ms, 100ms ... capped at 800ms, with jitter so racing writers spread out.
pub fn backoff(attempt: u32) -> Duration {
    let base = 25u64 << attempt.min(5);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as u64);
    Duration::from_millis(base + (nanos ^ std::process::id() as u64) % base.max(1))
}

/// RFC 7386 merge patch, applied locally (client-side dry run, and tests).
pub fn merge_patch(target: &mut J, patch: &J) {
    match patch {
        J::Object(p) => {
            if !target.is_object() {
                *target = J::Object(serde_json::Map::new());
            }
            let t = target.as_object_mut().expect("object");
            for (k, v) in p {
                if v.is_null() {
                    // In key order: a swap-remove would move the last key (`uid`) into the
                    // removed one's place, and a dry run's diff would show it removed and
                    // added again.
                    t.shift_remove(k);
                } else {
                    merge_patch(t.entry(k.clone()).or_insert(J::Null), v);
                }
            }
        }
        other => *target = other.clone(),
    }
}

// ---------------------------------------------------------------------------------------------
// The reads the writes depend on

/// Member clusters' health; `None` when the Clusters may not be read (RBAC, a server that
/// does not serve them). A control plane that cannot be reached at all is an error: the command
/// stops there, with no warning about Clusters before it.
pub async fn clusters(conn: &Conn) -> Result<Option<Vec<Cluster>>, KubeError> {
    match conn.list(&kinds::CLUSTER, None, None).await {
        Ok(list) => Ok(Some(list.iter().map(Cluster::from_object).collect())),
        Err(e) if e.is_unreachable() => Err(e),
        Err(_) => Ok(None),
    }
}

/// The bindings of one policy, found by its permanent-id label (RBs for a PP; RBs and CRBs for
/// a CPP). `None` when the policy has no permanent id or bindings are not readable.
pub async fn policy_bindings(conn: &Conn, kind: PolicyKind, policy: &J) -> Option<Vec<J>> {
    let label = kind.permanent_id_label();
    let id = policy["metadata"]["labels"][label].as_str()?;
    let selector = format!("{label}={id}");
    let ns = match kind {
        PolicyKind::PropagationPolicy => policy["metadata"]["namespace"].as_str(),
        PolicyKind::ClusterPropagationPolicy => None,
    };
    let mut out = conn
        .list(&kinds::RESOURCE_BINDING, ns, Some(&selector))
        .await
        .ok()?;
    if kind == PolicyKind::ClusterPropagationPolicy {
        if let Ok(crbs) = conn
            .list(&kinds::CLUSTER_RESOURCE_BINDING, None, Some(&selector))
            .await
        {
            out.extend(crbs);
        }
    }
    Some(out)
}

/// Every ResourceBinding in `namespace` (`None`: all namespaces) and, with `cluster_scoped`,
/// every ClusterResourceBinding, grouped by policy: one list each, for a freeze that needs the
/// targets of many policies. `None` when ResourceBindings are not readable.
pub async fn bound_clusters(
    conn: &Conn,
    namespace: Option<&str>,
    cluster_scoped: bool,
) -> Option<BoundClusters> {
    let mut all = conn
        .list(&kinds::RESOURCE_BINDING, namespace, None)
        .await
        .ok()?;
    if cluster_scoped {
        if let Ok(crbs) = conn
            .list(&kinds::CLUSTER_RESOURCE_BINDING, None, None)
            .await
        {
            all.extend(crbs);
        }
    }
    Some(BoundClusters::from_json(&all))
}

// ---------------------------------------------------------------------------------------------
// --wait

/// A changed policy whose Works `--wait` follows.
#[derive(Clone, Debug)]
pub struct WaitFor {
    pub kind: PolicyKind,
    /// The policy as written (its permanent id finds the bindings).
    pub object: J,
    pub before: Option<Suspension>,
    pub after: Option<Suspension>,
}

/// `--wait`: polls the Works of each changed policy (through its bindings' permanent ids, which
/// Karmada puts on Works as labels) until every Work on a cluster whose state changed shows the
/// new `Dispatching` condition (validation-suspension-failover.md §2.4), or the timeout passes.
/// Returns, per watch, the Works still lagging at the deadline (all empty: settled).
pub async fn wait_for_works(
    conn: &Conn,
    watches: &[WaitFor],
    timeout: Duration,
) -> Vec<Vec<String>> {
    let mut selectors = Vec::with_capacity(watches.len());
    for w in watches {
        let bindings = policy_bindings(conn, w.kind, &w.object)
            .await
            .unwrap_or_default();
        selectors.push(
            bindings
                .iter()
                .filter_map(work_selector)
                .collect::<Vec<_>>(),
        );
    }
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let mut lagging = Vec::with_capacity(watches.len());
        for (w, sels) in watches.iter().zip(&selectors) {
            lagging.push(lagging_works(conn, w, sels).await);
        }
        if lagging.iter().all(Vec::is_empty) || tokio::time::Instant::now() >= deadline {
            return lagging;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The label Karmada puts on the Works of a binding: its permanent id.
fn work_selector(binding: &J) -> Option<String> {
    let key = if binding["kind"] == kinds::CLUSTER_RESOURCE_BINDING.kind {
        kinds::CRB_ID_LABEL
    } else {
        kinds::RB_ID_LABEL
    };
    binding["metadata"]["labels"][key]
        .as_str()
        .map(|id| format!("{key}={id}"))
}

/// The Works of one policy that do not show the new state yet.
async fn lagging_works(conn: &Conn, w: &WaitFor, selectors: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for sel in selectors {
        let works = match conn.list(&kinds::WORK, None, Some(sel)).await {
            Ok(ws) => ws,
            Err(e) => {
                out.push(format!("cannot list Works ({sel}): {e}"));
                continue;
            }
        };
        for work in works.iter().map(Work::from_json) {
            if let Some(lag) = work_lag(w, &work) {
                out.push(lag);
            }
        }
    }
    out
}

/// `ns/name (Dispatching shown, want wanted)` when the Work lags behind the change.
fn work_lag(w: &WaitFor, work: &Work) -> Option<String> {
    let cluster = work.cluster()?;
    let want =
        crate::engine::suspension::expected_dispatch(w.before.as_ref(), w.after.as_ref(), cluster)?;
    let cond = work.condition("Dispatching");
    let status = cond.map_or("", |c| c.status.as_str());
    let reason = cond.map_or("", |c| c.reason.as_str());
    if crate::engine::suspension::dispatching_settled(want, status, reason) {
        return None;
    }
    let wanted = if want {
        "False/SuspendDispatching"
    } else {
        "True/Dispatching"
    };
    let shown = if cond.is_some() {
        format!("{status}/{reason}")
    } else {
        "no condition".to_string()
    };
    let ns = work.meta.namespace.as_deref().unwrap_or("");
    Some(format!(
        "{ns}/{} (Dispatching {shown}, want {wanted})",
        work.meta.name
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_patch_follows_rfc7386() {
        let mut t = serde_json::json!({"a": {"b": 1, "c": 2}, "d": [1]});
        merge_patch(
            &mut t,
            &serde_json::json!({"a": {"b": null, "e": 3}, "d": [2]}),
        );
        assert_eq!(t, serde_json::json!({"a": {"c": 2, "e": 3}, "d": [2]}));
    }

    #[test]
    fn merge_patch_keeps_the_order_of_the_keys_left() {
        let mut t = json!({"metadata": {"annotations": {"a": "1"}, "name": "x", "uid": "u"}});
        merge_patch(&mut t, &json!({"metadata": {"annotations": null}}));
        let keys: Vec<&String> = t["metadata"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "uid"]);
    }

    #[test]
    fn patch_replaces_suspension_wholesale_and_carries_the_rv() {
        let cur = json!({"metadata":{"resourceVersion":"7"},"spec":{"suspension":{"dispatchingOnClusters":{"clusterNames":["a"]}}}});
        let new = Some(Suspension {
            dispatching: Some(true),
            dispatching_on_clusters: None,
        });
        let p = Patch {
            suspension: Some(new),
            annotations: Vec::new(),
        }
        .to_merge_patch(&cur);
        let mut after = cur.clone();
        merge_patch(&mut after, &p);
        assert_eq!(after["spec"]["suspension"], json!({"dispatching": true}));
        assert_eq!(p["metadata"]["resourceVersion"], "7");
        let p = Patch {
            suspension: Some(None),
            annotations: Vec::new(),
        }
        .to_merge_patch(&cur);
        let mut after = cur;
        merge_patch(&mut after, &p);
        assert!(after["spec"].get("suspension").is_none());
    }

    #[test]
    fn annotations_only_patch_leaves_the_spec_alone() {
        let cur = json!({"metadata":{"resourceVersion":"3"},"spec":{"priority":1}});
        let p = Patch {
            suspension: None,
            annotations: vec![("a".into(), Some("x".into())), ("b".into(), None)],
        }
        .to_merge_patch(&cur);
        assert_eq!(
            p,
            json!({"metadata": {"resourceVersion": "3", "annotations": {"a": "x", "b": null}}})
        );
    }

    #[test]
    fn removing_the_last_annotations_removes_the_map() {
        let cur = json!({"metadata":{"resourceVersion":"3","annotations":{"a":"1","b":"2"}}});
        let remove = |keys: &[&str]| Patch {
            suspension: None,
            annotations: keys.iter().map(|k| (k.to_string(), None)).collect(),
        };
        let all = remove(&["a", "b", "c"]).to_merge_patch(&cur);
        assert_eq!(all["metadata"]["annotations"], J::Null);
        assert!(all["metadata"]
            .as_object()
            .unwrap()
            .contains_key("annotations"));
        let some = remove(&["a"]).to_merge_patch(&cur);
        assert_eq!(some["metadata"]["annotations"], json!({"a": null}));
    }

    #[test]
    fn dry_run_flag_as_kubectl_takes_it() {
        use clap::ValueEnum;
        assert_eq!(DryRun::from_str("none", false), Ok(DryRun::None));
        assert_eq!(DryRun::from_str("server", false), Ok(DryRun::Server));
        assert_eq!(DryRun::from_str("client", false), Ok(DryRun::Client));
        assert_eq!(DryRun::Server.suffix(), " (server dry run)");
    }
}
