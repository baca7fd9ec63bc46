//! Planning `suspend` and `resume`, as values: the selection of the command line, and for each
//! selected policy one [`PolicyPlan`] (what to write, the line to print, what stalls), in both
//! modes: named policies (`suspend pp/x`) and a freeze of clusters (`suspend --clusters a,b`
//! with no policy named). Pure: no I/O, no clock.
//!
//! The decisions are the engine's: [`crate::engine::suspension`] (the new suspension, the
//! stalls, the one `--force` rule) and [`crate::engine::freeze`] (what a freeze adds and its
//! record). This module only turns them into the one type both writers apply: [`super::live`]
//! as a resourceVersion-guarded merge patch, [`super::file`] as byte-preserving text edits.

use std::collections::BTreeMap;

use serde_json::{json, Value as J};

use crate::engine::freeze::{self, Decision, Stamp, RECORD_ANNOTATION};
use crate::engine::suspension::{self as engine, Action, Plan, Request, State};
use crate::kube::kinds::{self, KarmadaKind};
use crate::model::cluster::Cluster;
use crate::model::label_selector::Selector;
use crate::model::policy::{PropagationSpec, Suspension};
use crate::model::{Inventory, Policy, PolicyKind};

/// Annotations `--reason` records on a live policy (named mode).
pub const REASON_ANNOTATION: &str = "karmada-policy.io/suspension-reason";
pub const CHANGED_BY_ANNOTATION: &str = "karmada-policy.io/suspension-changed-by";
pub const CHANGED_AT_ANNOTATION: &str = "karmada-policy.io/suspension-changed-at";

// ---------------------------------------------------------------------------------------------
// The selection

/// One policy named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub kind: PolicyKind,
    pub name: String,
}

/// Which policies the command line selects.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub named: Vec<Named>,
    /// Types named without names (`pp`), for --all, -l and a freeze.
    pub kinds: Vec<PolicyKind>,
    /// `--all`.
    pub all: bool,
    /// `-l`, parsed (file mode matches it) and as given (the API server's labelSelector).
    pub selector: Option<Selector>,
    pub selector_text: Option<String>,
    /// `-n` (PropagationPolicies only).
    pub namespace: Option<String>,
    /// `-A`.
    pub all_namespaces: bool,
}

/// Why the policy words of the command line do not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    #[error("`{word}`: unknown type `{ty}` (use pp/NAME or cpp/NAME)")]
    UnknownType { word: String, ty: String },
    #[error("`{0}`: expected TYPE/NAME{hint}", hint = crate::model::kinds::namespace_hint(.0))]
    NotTypeName(String),
    #[error("`{0}`: name a type first (pp/{0} or cpp/{0})")]
    NoType(String),
}

/// `pp`, `propagationpolicy`, `propagationpolicies`, each also with `.policy.karmada.io`
/// (case-insensitive), as kubectl takes them; from the one table of Karmada kinds.
pub fn policy_kind_word(word: &str) -> Option<PolicyKind> {
    let w = word.to_ascii_lowercase();
    let matches = |k: &KarmadaKind| {
        let bare = w.strip_suffix(&format!(".{}", k.group)).unwrap_or(&w);
        k.short == Some(bare) || k.kind.to_ascii_lowercase() == bare || k.plural == bare
    };
    [
        (PolicyKind::PropagationPolicy, &kinds::PROPAGATION_POLICY),
        (
            PolicyKind::ClusterPropagationPolicy,
            &kinds::CLUSTER_PROPAGATION_POLICY,
        ),
    ]
    .into_iter()
    .find(|(_, k)| matches(k))
    .map(|(p, _)| p)
}

/// The policy words: `pp/NAME`, `cpp/NAME`, or a type followed by names (`pp a b`); a type
/// alone selects the type for --all / -l.
pub fn parse_targets(args: &[String]) -> Result<(Vec<Named>, Vec<PolicyKind>), SelectionError> {
    let mut named = Vec::new();
    let mut kinds: Vec<PolicyKind> = Vec::new();
    let mut current: Option<PolicyKind> = None;
    for a in args {
        if let Some((t, name)) = a.split_once('/') {
            let kind = policy_kind_word(t).ok_or_else(|| SelectionError::UnknownType {
                word: a.clone(),
                ty: t.to_string(),
            })?;
            if name.is_empty() || name.contains('/') {
                return Err(SelectionError::NotTypeName(a.clone()));
            }
            named.push(Named {
                kind,
                name: name.to_string(),
            });
        } else if let Some(kind) = policy_kind_word(a) {
            current = Some(kind);
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        } else if let Some(kind) = current {
            named.push(Named {
                kind,
                name: a.clone(),
            });
        } else {
            return Err(SelectionError::NoType(a.clone()));
        }
    }
    // A type followed by names selects those names only.
    kinds.retain(|k| !named.iter().any(|n: &Named| n.kind == *k));
    Ok((named, kinds))
}

impl Selection {
    /// Whether the command is a freeze: `--clusters` with no policy named and no `--all`.
    pub fn is_freeze(&self, clusters: &[String]) -> bool {
        self.named.is_empty() && !self.all && !clusters.is_empty()
    }

    /// `--all` or `-l`: policies selected in bulk.
    pub fn is_bulk(&self) -> bool {
        self.all || self.selector.is_some()
    }

    /// The kinds a bulk selection lists: the types named, else both.
    pub fn bulk_kinds(&self) -> Vec<PolicyKind> {
        if self.kinds.is_empty() {
            vec![
                PolicyKind::PropagationPolicy,
                PolicyKind::ClusterPropagationPolicy,
            ]
        } else {
            self.kinds.clone()
        }
    }

    /// The kinds a freeze lists: the types named, else PropagationPolicies (with `-A` also
    /// ClusterPropagationPolicies).
    pub fn freeze_kinds(&self) -> Vec<PolicyKind> {
        if !self.kinds.is_empty() {
            self.kinds.clone()
        } else if self.all_namespaces {
            vec![
                PolicyKind::PropagationPolicy,
                PolicyKind::ClusterPropagationPolicy,
            ]
        } else {
            vec![PolicyKind::PropagationPolicy]
        }
    }

    /// A policy read from a file is in the namespace of `-n`: with `-A` any, else one whose
    /// manifest names that namespace or none (it is applied to the namespace then).
    fn in_namespace(&self, inv: &Inventory, policy: &Policy) -> bool {
        self.in_namespace_written(policy, namespace_written(inv, policy))
    }

    /// [`Selection::in_namespace`], told whether the manifest writes a namespace.
    fn in_namespace_written(&self, policy: &Policy, written: bool) -> bool {
        let (Some(ns), PolicyKind::PropagationPolicy) = (&self.namespace, policy.kind) else {
            return true;
        };
        self.all_namespaces || !written || policy.meta.namespace.as_deref() == Some(ns)
    }

    /// Named mode, a policy read from a file: `Some(Some(i))` when it is `named[i]`,
    /// `Some(None)` when a bulk selection takes it, `None` when it is not selected.
    pub fn pick_named(&self, inv: &Inventory, policy: &Policy) -> Option<Option<usize>> {
        if !self.in_namespace(inv, policy) {
            return None;
        }
        self.pick_by_name(policy)
    }

    /// [`Selection::pick_named`] for a policy a GitOps controller renders under another name or
    /// in another namespace (a Flux Kustomization's variables, name prefix and suffix, target
    /// namespace): picked by the name it is rendered to, in the namespace it lands in (`None`:
    /// its own), never by the name written, which names no policy of that control plane.
    pub fn pick_rendered(
        &self,
        inv: &Inventory,
        policy: &Policy,
        landing_namespace: Option<&str>,
        rendered_name: &str,
    ) -> Option<Option<usize>> {
        let in_namespace = self
            .lands_selected(policy, landing_namespace)
            .unwrap_or_else(|| self.in_namespace(inv, policy));
        if !in_namespace {
            return None;
        }
        self.pick_by_rendered_name_only(policy, rendered_name)
    }

    /// [`Selection::pick_rendered`] for a policy of a kustomize layer a controller renames:
    /// in the namespace it lands in (`None`: nothing says, any).
    pub fn pick_rendered_layered(
        &self,
        policy: &Policy,
        landing_namespace: Option<&str>,
        rendered_name: &str,
    ) -> Option<Option<usize>> {
        if !self
            .lands_selected(policy, landing_namespace)
            .unwrap_or(true)
        {
            return None;
        }
        self.pick_by_rendered_name_only(policy, rendered_name)
    }

    /// Whether a PropagationPolicy landing in `landing_namespace` is in the selection's
    /// namespace; `None` when `-n` is not given, the policy is cluster-scoped, or nothing says
    /// where it lands.
    fn lands_selected(&self, policy: &Policy, landing_namespace: Option<&str>) -> Option<bool> {
        match (&self.namespace, policy.kind, landing_namespace) {
            (Some(ns), PolicyKind::PropagationPolicy, Some(landing)) => {
                Some(self.all_namespaces || ns == landing)
            }
            _ => None,
        }
    }

    /// The named policy `rendered_name` is; never by the name written, which names no policy
    /// of that control plane.
    fn pick_by_rendered_name_only(
        &self,
        policy: &Policy,
        rendered_name: &str,
    ) -> Option<Option<usize>> {
        let by_rendered = self
            .named
            .iter()
            .position(|n| n.kind == policy.kind && n.name == rendered_name);
        match by_rendered {
            Some(i) => Some(Some(i)),
            // Only a bulk selection (--all, -l) is left to take it.
            None if self.named.is_empty() => self.pick_by_name(policy),
            None => None,
        }
    }

    /// [`Selection::pick_named`] for a policy of a kustomize layer: its namespace is written
    /// (by its file or a kustomization) or not, and a name may be the source's or the one the
    /// layer renders (`namePrefix`/`nameSuffix` applied).
    pub fn pick_layered(
        &self,
        policy: &Policy,
        namespace_written: bool,
        rendered_name: &str,
    ) -> Option<Option<usize>> {
        if !self.in_namespace_written(policy, namespace_written) {
            return None;
        }
        self.pick_by_rendered_name(policy, rendered_name)
    }

    /// The named policy `rendered_name` is, else the pick by the name the file writes.
    fn pick_by_rendered_name(&self, policy: &Policy, rendered_name: &str) -> Option<Option<usize>> {
        let by_rendered = self
            .named
            .iter()
            .position(|n| n.kind == policy.kind && n.name == rendered_name);
        by_rendered.map(Some).or_else(|| self.pick_by_name(policy))
    }

    fn pick_by_name(&self, policy: &Policy) -> Option<Option<usize>> {
        let by_name = self
            .named
            .iter()
            .position(|n| n.kind == policy.kind && n.name == policy.meta.name);
        if by_name.is_some() {
            return Some(by_name);
        }
        let by_bulk = self.named.is_empty()
            && self.bulk_kinds().contains(&policy.kind)
            && self.is_bulk()
            && self.labels_match(policy);
        by_bulk.then_some(None)
    }

    /// Freeze mode, a policy read from a file: of a selected type, namespace and labels.
    pub fn picks_for_freeze(&self, inv: &Inventory, policy: &Policy) -> bool {
        self.picks_layered_for_freeze(policy, namespace_written(inv, policy))
    }

    /// [`Selection::picks_for_freeze`] for a policy of a kustomize layer (its namespace written
    /// by its file or a kustomization, or not).
    pub fn picks_layered_for_freeze(&self, policy: &Policy, namespace_written: bool) -> bool {
        (self.kinds.is_empty() || self.kinds.contains(&policy.kind))
            && self.in_namespace_written(policy, namespace_written)
            && self.labels_match(policy)
    }

    fn labels_match(&self, policy: &Policy) -> bool {
        self.selector
            .as_ref()
            .is_none_or(|s| s.matches(&policy.meta.labels))
    }
}

/// Whether the manifest of a policy read from a file writes `metadata.namespace`.
pub fn namespace_written(inv: &Inventory, policy: &Policy) -> bool {
    inv.documents[policy.doc]
        .root
        .get("metadata")
        .and_then(|m| m.get("namespace"))
        .is_some()
}

/// A policy's identity within one file: kind, namespace as written, name.
pub type PolicyKey = (PolicyKind, Option<String>, String);

fn policy_key(policy: &Policy) -> PolicyKey {
    (
        policy.kind,
        policy.meta.namespace.clone(),
        policy.meta.name.clone(),
    )
}

/// The policies that more than one document of a file defines, with those documents: editing
/// one of them would be a guess (the one applied last wins).
pub fn defined_twice(inv: &Inventory) -> BTreeMap<PolicyKey, Vec<usize>> {
    let mut by_key: BTreeMap<PolicyKey, Vec<usize>> = BTreeMap::new();
    for policy in inv.policies() {
        by_key
            .entry(policy_key(policy))
            .or_default()
            .push(policy.doc);
    }
    by_key.retain(|_, docs| docs.len() > 1);
    by_key
}

/// Why a policy of a file is not edited, before any plan: a file that does not parse cleanly,
/// or a policy defined twice in it (said at its documents' lines).
pub fn file_refusal(
    broken: bool,
    twice: &BTreeMap<PolicyKey, Vec<usize>>,
    inv: &Inventory,
    policy: &Policy,
) -> Option<String> {
    if broken {
        return Some("the file has YAML problems (run `lint`); not editing it".into());
    }
    let docs = twice.get(&policy_key(policy))?;
    let docs: Vec<String> = docs
        .iter()
        .map(|&d| {
            let line = inv
                .documents
                .get(d)
                .map_or(0, |doc| doc.root.span.start.line);
            format!("{} (line {line})", d + 1)
        })
        .collect();
    Some(format!(
        "defined by documents {} of the file; the one applied last wins, so edit the right one by hand. Not editing it",
        docs.join(" and ")
    ))
}

/// Whether `policy` is the first of the documents defining it twice or more (a refusal is
/// said once for all of them), or defined once.
pub fn first_of_its_copies(twice: &BTreeMap<PolicyKey, Vec<usize>>, policy: &Policy) -> bool {
    twice
        .get(&policy_key(policy))
        .is_none_or(|docs| docs.first() == Some(&policy.doc))
}

// ---------------------------------------------------------------------------------------------
// The plan of one policy

/// What one write changes. Only these fields are named in the patch (live) or edited (files),
/// so nothing else of the object is touched.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Patch {
    /// `Some(new)`: replace `spec.suspension` wholesale (`Some(None)`: remove it).
    pub suspension: Option<Option<Suspension>>,
    /// Annotations to set (`None`: remove), in this order.
    pub annotations: Vec<(String, Option<String>)>,
}

impl Patch {
    /// The RFC 7386 merge patch for `current`: the only place the resourceVersion precondition
    /// is built, so the server answers 409 Conflict when the object changed since it was read.
    pub fn to_merge_patch(&self, current: &J) -> J {
        let mut meta = json!({"resourceVersion": current["metadata"]["resourceVersion"].clone()});
        if !self.annotations.is_empty() {
            let annotations: serde_json::Map<String, J> = self
                .annotations
                .iter()
                .map(|(k, v)| (k.clone(), v.clone().map_or(J::Null, J::from)))
                .collect();
            // Removing every annotation there is removes the map, so no `annotations: {}`
            // is left behind (a merge patch of the keys alone leaves an empty map).
            let current_keys = current["metadata"]["annotations"].as_object();
            let removes_all = annotations.values().all(J::is_null)
                && current_keys.is_some_and(|m| m.keys().all(|k| annotations.contains_key(k)));
            meta["annotations"] = if removes_all {
                J::Null
            } else {
                J::Object(annotations)
            };
        }
        let mut patch = json!({ "metadata": meta });
        if let Some(new) = &self.suspension {
            patch["spec"] = json!({ "suspension": suspension_json(new.as_ref()) });
        }
        patch
    }
}

fn suspension_json(s: Option<&Suspension>) -> J {
    match s {
        None => J::Null,
        Some(s) => json!({
            "dispatching": s.dispatching,
            "dispatchingOnClusters": s.dispatching_on_clusters.as_ref().map(|c| json!({"clusterNames": c.cluster_names})),
        }),
    }
}

/// A change to write.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub patch: Patch,
    /// The line printed once it is written.
    pub message: String,
    /// What changes, as the freeze table lists it.
    pub describe: String,
    /// `spec.suspension` before and after (what `--wait` follows on the Works).
    pub before: Option<Suspension>,
    pub after: Option<Suspension>,
    /// The engine's states before and after (what the `--force` rule compares).
    pub states: (State, State),
}

/// What happens to one policy.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Change(Change),
    /// Nothing to write; the text says why (idempotent: success).
    Unchanged(String),
    /// A freeze leaves the policy alone; the text says why.
    Skipped(String),
    /// The policy targets none of the frozen clusters (freeze: counted, not listed).
    NotInvolved,
    /// The engine refuses the change (a failure of this policy); the text says why.
    Refused(String),
}

/// The plan for one policy: the outcome and the warnings that go with it.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyPlan {
    pub outcome: Outcome,
    /// What stalls while suspended (failover, unhealthy targets, Lazy, propagateDeps).
    pub stalls: Vec<String>,
    /// Whether one of them is a failover stall (failover configured, or an unhealthy target).
    pub failover: bool,
}

impl PolicyPlan {
    fn only(outcome: Outcome) -> PolicyPlan {
        PolicyPlan {
            outcome,
            stalls: Vec::new(),
            failover: false,
        }
    }

    /// The change to write, if any.
    pub fn change(&self) -> Option<&Change> {
        match &self.outcome {
            Outcome::Change(c) => Some(c),
            _ => None,
        }
    }
}

/// What `--reason` records with a named change (live mode): the reason, who and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reason {
    pub text: String,
    pub user: String,
    /// RFC 3339 UTC.
    pub at: String,
}

/// The line printed for a change of named mode.
pub fn change_message(action: Action, before: &State, after: &State, request: &Request) -> String {
    match (action, after) {
        (Action::Suspend, after) => after.to_string(),
        (Action::Resume, State::NotSuspended) => {
            if request.clusters.is_empty() || *before == State::NotSuspended {
                "resumed".into()
            } else {
                format!("resumed on {}", request.clusters.join(", "))
            }
        }
        (Action::Resume, still) => {
            format!("resumed on {} (still {still})", request.clusters.join(", "))
        }
    }
}

/// What decides whether a suspension that stalls failover goes ahead.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    /// `--force`: suspend even where failover stalls.
    pub force: bool,
    /// Cluster failover runs in the control plane
    /// ([`crate::model::feature_gates::GateSet::cluster_failover`]): only then can suspending
    /// stall it.
    pub cluster_failover: bool,
}

/// Named mode: the engine's plan for the policy, then the one `--force` rule
/// ([`engine::force::needs_force`]). `targets` are the policy's target clusters (`None`:
/// unknown), `health` the member clusters as the control plane reports them.
pub fn named(
    spec: &PropagationSpec,
    request: &Request,
    targets: Option<&[String]>,
    health: &[Cluster],
    guard: Guard,
    reason: Option<&Reason>,
) -> PolicyPlan {
    let (new, before, after) = match engine::plan(spec.suspension.as_ref(), request, targets) {
        Plan::Unchanged(u) => return PolicyPlan::only(Outcome::Unchanged(u.to_string())),
        Plan::Refused(r) => return PolicyPlan::only(Outcome::Refused(r.to_string())),
        Plan::Change { new, before, after } => (new, before, after),
    };
    let candidates = engine::failover_candidates(spec);
    let stalls = engine::stalls(
        spec,
        &after,
        (candidates.as_deref(), guard.cluster_failover),
        health,
        targets,
    );
    if let Some(refusal) = engine::force::needs_force(&before, &after, &stalls, targets) {
        if !guard.force {
            return PolicyPlan::only(Outcome::Refused(refusal));
        }
    }
    let annotations = reason.map_or_else(Vec::new, |r| {
        vec![
            (REASON_ANNOTATION.to_string(), Some(r.text.clone())),
            (CHANGED_BY_ANNOTATION.to_string(), Some(r.user.clone())),
            (CHANGED_AT_ANNOTATION.to_string(), Some(r.at.clone())),
        ]
    });
    let change = Change {
        patch: Patch {
            suspension: Some(new.clone()),
            annotations,
        },
        message: change_message(request.action, &before, &after, request),
        describe: String::new(),
        before: spec.suspension.clone(),
        after: new,
        states: (before, after),
    };
    PolicyPlan {
        outcome: Outcome::Change(change),
        failover: stalls.iter().any(|s| s.blocks_full_suspension()),
        stalls: stalls.iter().map(ToString::to_string).collect(),
    }
}

/// Resuming every cluster ends the suspension `suspend --reason` recorded: its reason, user and
/// time annotations go with it (those the policy has, `has`), unless the change sets them.
pub fn clear_suspension_record(plan: &mut PolicyPlan, has: &dyn Fn(&str) -> bool) {
    let Outcome::Change(c) = &mut plan.outcome else {
        return;
    };
    if c.states.1 != State::NotSuspended {
        return;
    }
    for key in [
        REASON_ANNOTATION,
        CHANGED_BY_ANNOTATION,
        CHANGED_AT_ANNOTATION,
    ] {
        if has(key) && !c.patch.annotations.iter().any(|(k, _)| k == key) {
            c.patch.annotations.push((key.to_string(), None));
        }
    }
}

/// Whether the named plan needs the policy's target clusters (so its bindings are read): with
/// failover, an unhealthy cluster, or resuming some clusters of a policy suspended on all.
pub fn named_needs_targets(spec: &PropagationSpec, request: &Request, health: &[Cluster]) -> bool {
    let state = State::of(spec.suspension.as_ref());
    spec.failover.is_some()
        || health
            .iter()
            .any(|c| c.ready() == Some(false) || !c.spec.taints.is_empty())
        || (request.action == Action::Resume
            && !request.clusters.is_empty()
            && state == State::AllClusters)
}

/// The line printed for a written change of a freeze or its lifting.
fn freeze_message(action: Action, c: &freeze::Change) -> String {
    if !c.suspension_changes {
        return format!(
            "freeze record of {} removed (resumed since)",
            c.stale.join(", ")
        );
    }
    let mut m = change_message(
        action,
        &c.before,
        &c.after,
        &Request::new(action, &c.clusters),
    );
    if action == Action::Resume && !c.kept.is_empty() {
        m.push_str(&format!(
            "; {} not added by the freeze, left suspended",
            c.kept.join(", ")
        ));
    }
    m
}

/// What a freeze decides for one policy, before any check of stalls.
#[derive(Clone, Copy, Debug)]
pub struct FreezeInput<'a> {
    pub action: Action,
    pub spec: &'a PropagationSpec,
    /// The policy's freeze annotation.
    pub record: Option<&'a str>,
    /// Its bindings' clusters.
    pub bound: Option<&'a [String]>,
    pub clusters: &'a [String],
    pub stamp: &'a Stamp,
}

/// The engine's decision of a freeze (or its lifting) for one policy, as an outcome; no check
/// of stalls (see [`freeze_policy`]). After a 409 Conflict this is decided again on the object
/// as re-read.
pub fn freeze_outcome(input: &FreezeInput<'_>) -> Outcome {
    let decision = match input.action {
        Action::Suspend => freeze::freeze(
            input.spec,
            input.record,
            input.bound,
            input.clusters,
            input.stamp,
        ),
        Action::Resume => freeze::lift(input.spec, input.record, input.clusters),
    };
    match decision {
        Decision::NotInvolved => Outcome::NotInvolved,
        Decision::Skipped(s) => Outcome::Skipped(s.to_string()),
        Decision::Unchanged(m) => Outcome::Unchanged(m),
        Decision::Change(c) => Outcome::Change(Change {
            patch: Patch {
                suspension: c.suspension_changes.then(|| c.new.clone()),
                annotations: vec![(RECORD_ANNOTATION.to_string(), c.annotation.clone())],
            },
            message: freeze_message(input.action, &c),
            describe: c.describe(input.action),
            before: input.spec.suspension.clone(),
            after: c.new.clone(),
            states: (c.before.clone(), c.after.clone()),
        }),
    }
}

/// A freeze (or its lifting) for one policy: the decision, then the failover and health
/// warnings of a change and the one `--force` rule ([`engine::force::needs_force`]).
pub fn freeze_policy(input: &FreezeInput<'_>, health: &[Cluster], guard: Guard) -> PolicyPlan {
    let outcome = freeze_outcome(input);
    let Outcome::Change(c) = &outcome else {
        return PolicyPlan::only(outcome);
    };
    let (before, after) = &c.states;
    let targets = engine::target_clusters(input.spec, input.bound);
    let candidates = engine::failover_candidates(input.spec);
    let stalls = engine::stalls(
        input.spec,
        after,
        (candidates.as_deref(), guard.cluster_failover),
        health,
        targets.as_deref(),
    );
    let refused = if guard.force {
        None
    } else {
        engine::force::needs_force(before, after, &stalls, targets.as_deref())
    };
    PolicyPlan {
        outcome: refused.map_or(outcome, Outcome::Refused),
        failover: stalls.iter().any(|s| s.blocks_full_suspension()),
        stalls: stalls.iter().map(ToString::to_string).collect(),
    }
}

/// `propagationpolicy.policy.karmada.io/nginx`, as kubectl prints it.
pub fn resource_id(kind: PolicyKind, name: &str) -> String {
    format!(
        "{}.policy.karmada.io/{name}",
        kind.as_str().to_ascii_lowercase()
    )
}

/// The freeze's stamp: the time given (RFC 3339), who (when known) and the reason on one line
/// (the annotation is a single-line scalar).
pub fn freeze_stamp(at: String, by: Option<String>, reason: Option<&str>) -> Stamp {
    Stamp {
        at,
        by: by.filter(|b| !b.is_empty()),
        reason: reason
            .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|r| !r.is_empty()),
    }
}

/// How an environment's controller renders the objects of a plain file, directory or
/// kustomization root it applies (a Flux Kustomization's `postBuild` variables, `namePrefix`,
/// `nameSuffix` and `targetNamespace`; an Argo CD source's kustomize name prefix and suffix
/// and destination namespace): a policy is named as it is rendered.
#[derive(Clone, Debug, Default)]
pub struct Renamed {
    /// The file, or the directory whose files, it renders.
    pub path: std::path::PathBuf,
    pub vars: Option<std::collections::BTreeMap<String, String>>,
    pub prefix: Option<String>,
    pub suffix: Option<String>,
    /// The namespace every namespaced object lands in (Flux `targetNamespace`).
    pub namespace: Option<String>,
    /// The namespace an object that writes none lands in (an Argo CD destination's).
    pub default_namespace: Option<String>,
}

impl Renamed {
    /// The rename of `file`, if one covers it (the nearest).
    pub fn of<'r>(renames: &'r [Renamed], file: &std::path::Path) -> Option<&'r Renamed> {
        let file = crate::source::kustomize::normalize(file);
        // The nearest: a file a unit applies itself inside a directory another unit builds.
        renames
            .iter()
            .filter(|r| file.starts_with(&r.path))
            .max_by_key(|r| r.path.components().count())
    }

    /// `text` with the variables substituted.
    pub fn substituted(&self, text: &str) -> String {
        match &self.vars {
            Some(vars) => crate::source::kustomize::flux::substitute(text, vars),
            None => text.to_string(),
        }
    }

    /// The namespace a policy that writes `written` lands in: the target namespace, else its
    /// own with the variables substituted, else the default one (`None`: nothing says).
    pub fn namespace(&self, written: Option<&str>) -> Option<String> {
        self.namespace
            .clone()
            .or_else(|| written.map(|ns| self.substituted(ns)))
            .or_else(|| self.default_namespace.clone())
    }

    /// The name `name` is rendered to.
    pub fn name(&self, name: &str) -> String {
        let name = self.substituted(name);
        format!(
            "{}{name}{}",
            self.prefix.as_deref().unwrap_or(""),
            self.suffix.as_deref().unwrap_or("")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn targets_parse_like_kubectl() {
        let (named, _) = parse_targets(&s(&["pp/a", "cpp/b", "propagationpolicy/c"])).unwrap();
        assert_eq!(named.len(), 3);
        assert_eq!(named[1].kind, PolicyKind::ClusterPropagationPolicy);
        let (named, kinds) = parse_targets(&s(&["pp", "x", "y"])).unwrap();
        assert_eq!(named.len(), 2);
        assert!(kinds.is_empty());
        let (_, kinds) = parse_targets(&s(&["cpp"])).unwrap();
        assert_eq!(kinds, vec![PolicyKind::ClusterPropagationPolicy]);
        assert!(parse_targets(&s(&["nginx"])).is_err());
        assert!(parse_targets(&s(&["deploy/x"])).is_err());
    }

    #[test]
    fn policy_words_come_from_the_kinds_table() {
        for w in [
            "pp",
            "PropagationPolicy",
            "propagationpolicies",
            "propagationpolicy.policy.karmada.io",
            "PROPAGATIONPOLICIES.policy.karmada.io",
        ] {
            assert_eq!(
                policy_kind_word(w),
                Some(PolicyKind::PropagationPolicy),
                "{w}"
            );
        }
        for w in [
            "cpp",
            "clusterpropagationpolicy",
            "clusterpropagationpolicies.policy.karmada.io",
        ] {
            assert_eq!(
                policy_kind_word(w),
                Some(PolicyKind::ClusterPropagationPolicy),
                "{w}"
            );
        }
        for w in ["op", "deploy", "pp.work.karmada.io", "policy.karmada.io"] {
            assert_eq!(policy_kind_word(w), None, "{w}");
        }
    }

    #[test]
    fn resource_ids_as_kubectl_prints_them() {
        assert_eq!(
            resource_id(PolicyKind::PropagationPolicy, "nginx"),
            "propagationpolicy.policy.karmada.io/nginx"
        );
    }

    #[test]
    fn a_named_change_is_a_patch_of_the_suspension_and_the_reason() {
        let spec = PropagationSpec::default();
        let request = Request::new(Action::Suspend, &s(&["m2"]));
        let reason = Reason {
            text: "incident".into(),
            user: "me".into(),
            at: "2026-01-01T00:00:00Z".into(),
        };
        let p = named(
            &spec,
            &request,
            None,
            &[],
            Guard {
                force: false,
                cluster_failover: true,
            },
            Some(&reason),
        );
        let c = p.change().expect("a change");
        assert_eq!(c.message, "suspended on m2");
        assert_eq!(c.patch.annotations.len(), 3);
        let merge = c
            .patch
            .to_merge_patch(&json!({"metadata": {"resourceVersion": "7"}}));
        assert_eq!(merge["metadata"]["resourceVersion"], "7");
        assert_eq!(
            merge["spec"]["suspension"]["dispatchingOnClusters"]["clusterNames"],
            json!(["m2"])
        );
    }
}
