//! The real chain of one template, as the control plane holds it: the claim on the template,
//! its binding (targets, replicas, suspension) and each Work (suspendDispatching, the
//! `Dispatching` and `Applied` conditions), with a diagnosis wherever a link disagrees with the
//! policy that claims it. Pure: the caller reads the objects, this module only compares them.
//!
//! The links and who writes them (validation-suspension-failover.md §2):
//! policy `spec.suspension` → binding `spec.suspension` (detector, §2.2) → Work
//! `spec.suspendDispatching` (binding controller, `shouldSuspendDispatching`, §2.3) → Work
//! condition `Dispatching` (execution controller, §2.4).

use crate::model::policy::Suspension;
use crate::model::{Binding, PolicyRef, Work};

use super::claim::{
    ClaimMeta, CPP_ID_LABEL, CPP_NAME_ANNOTATION, PP_ID_LABEL, PP_NAMESPACE_ANNOTATION,
    PP_NAME_ANNOTATION,
};
use super::explain::{Explanation, Why};
use super::simulate::BlockReason;
use super::state::State;

/// The labels that tie a Work to its binding (`pkg/util/names`, Karmada ≥ 1.8).
pub use crate::kube::kinds::{CRB_ID_LABEL, RB_ID_LABEL};
/// The annotations naming the binding on a Work.
pub const RB_NAME_ANNOTATION: &str = "resourcebinding.karmada.io/name";
pub const RB_NAMESPACE_ANNOTATION: &str = "resourcebinding.karmada.io/namespace";
pub const CRB_NAME_ANNOTATION: &str = "clusterresourcebinding.karmada.io/name";

/// What could be read: a kind missing from the read (403, 404) cannot be diagnosed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Readable {
    pub policies: bool,
    pub bindings: bool,
    pub works: bool,
    pub clusters: bool,
}

impl Default for Readable {
    fn default() -> Self {
        Readable {
            policies: true,
            bindings: true,
            works: true,
            clusters: true,
        }
    }
}

/// The inputs of [`diagnose`].
pub struct ChainInput<'a> {
    pub state: &'a State,
    pub template: usize,
    pub explanation: &'a Explanation,
    /// Bindings whose `spec.resource` is the template (normally one).
    pub bindings: Vec<&'a Binding>,
    /// Works that may belong to the binding (those that do are picked by label/annotation).
    pub works: Vec<&'a Work>,
    /// Member cluster names (`Cluster` objects).
    pub clusters: Vec<String>,
    pub readable: Readable,
}

/// The claim keys on the template (§4.1): labels and annotations as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClaimKeys {
    pub labels: crate::model::StringMap,
    pub annotations: crate::model::StringMap,
    pub owner: Option<PolicyRef>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetView {
    pub name: String,
    pub replicas: Option<i64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BindingView {
    pub cluster_scoped: bool,
    pub namespace: Option<String>,
    pub name: String,
    pub clusters: Vec<TargetView>,
    /// The bindings that require the resource as a dependency (`spec.requiredBy`), each with
    /// the clusters it adds to `clusters` (the binding controller dispatches to both:
    /// [`crate::model::binding::BindingSpec::target_clusters`]).
    pub required_by: Vec<RequiredByView>,
    /// `spec.suspension` (policy part); `None` when unset.
    pub suspension: Option<Suspension>,
    /// `spec.suspension.scheduling` (binding-only).
    pub scheduling_suspended: Option<bool>,
    /// The policy permanent-id labels the binding carries (claim on the binding, §6.2).
    pub policy_labels: crate::model::StringMap,
}

/// One binding of `spec.requiredBy`, and the clusters of its that the binding lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequiredByView {
    pub namespace: String,
    pub name: String,
    pub adds: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionView {
    pub status: String,
    pub reason: String,
    pub message: String,
    pub last_transition_time: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkView {
    pub namespace: String,
    pub name: String,
    /// From the execution namespace `karmada-es-<cluster>`.
    pub cluster: String,
    pub suspend_dispatching: Option<bool>,
    pub dispatching: Option<ConditionView>,
    pub applied: Option<ConditionView>,
    /// Whether the cluster is a target of the binding.
    pub target: bool,
}

impl WorkView {
    /// What the execution controller last reported: `Some(true)` = `Dispatching=False`
    /// with reason `SuspendDispatching` (§2.4 table), `Some(false)` = `Dispatching=True`.
    pub fn reported_suspended(&self) -> Option<bool> {
        let c = self.dispatching.as_ref()?;
        match c.status.as_str() {
            "False" => Some(c.reason == "SuspendDispatching"),
            "True" => Some(false),
            _ => None,
        }
    }
}

/// Which controller has not caught up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lag {
    /// The binding's suspension differs from the policy's: the detector has not processed the
    /// policy change (§2.2).
    Detector,
    /// The same, and the policy is `activationPreference: Lazy`: policy changes reach the
    /// binding only on the next change of the template (§2.2, detector.go:461-468).
    LazyActivation,
    /// The Work's `suspendDispatching` differs from the binding's: binding controller (§2.3).
    BindingController,
    /// The `Dispatching` condition differs from `suspendDispatching`: execution controller (§2.4).
    ExecutionController,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Diagnosis {
    /// The policy dispatches to `cluster` (resumed, or never suspended) but the Work there is
    /// still suspended.
    ResumedButSuspended {
        cluster: String,
        work: String,
        lag: Lag,
    },
    /// The policy suspends `cluster` but the Work there is still dispatching.
    SuspendedButDispatching {
        cluster: String,
        work: String,
        lag: Lag,
    },
    /// The binding's suspension disagrees with the policy but no Work shows it (yet).
    BindingSuspensionDiffers { lag: Lag },
    /// The template is claimed by a policy that no longer exists (§4.2: the claim is stale and
    /// dropped on the next reconcile of the template).
    ClaimerMissing { claimer: PolicyRef },
    /// The binding carries a policy permanent-id that no existing policy has.
    BindingClaimerMissing { label: String, id: String },
    /// `better` outranks the holder in a fresh match, but the holder keeps the claim (§0, §5).
    ClaimKept {
        holder: PolicyRef,
        better: PolicyRef,
        blocker: BlockReason,
    },
    /// The claim holds only until the template's policies are processed again (a restart, §7):
    /// then `eventual` takes it.
    OwnerChangesOnRestart {
        holder: Option<PolicyRef>,
        eventual: Option<PolicyRef>,
        preempted: bool,
    },
    /// A cluster in the owner's `dispatchingOnClusters` that is not a target of the binding
    /// (a typo, a cluster that left, or one the placement does not select): it suspends nothing.
    SuspendedClusterNotTarget {
        policy: PolicyRef,
        cluster: String,
        /// `Some(false)`: no member cluster has that name.
        exists: Option<bool>,
    },
    /// Claimed, but no binding exists yet.
    NoBinding { owner: PolicyRef },
    /// A target cluster without a Work (binding controller lag, §2.3 creates Works even while
    /// suspended).
    MissingWork { cluster: String },
    /// A Work for a cluster that is no longer a target (removal pending, §2.5).
    OrphanWork { cluster: String, work: String },
    /// `Applied=False`: the member cluster refused the manifest.
    NotApplied {
        cluster: String,
        work: String,
        reason: String,
        message: String,
    },
}

impl Diagnosis {
    /// A stable code for JSON.
    pub fn code(&self) -> &'static str {
        match self {
            Diagnosis::ResumedButSuspended { .. } => "resumed-but-suspended",
            Diagnosis::SuspendedButDispatching { .. } => "suspended-but-dispatching",
            Diagnosis::BindingSuspensionDiffers { .. } => "binding-suspension-differs",
            Diagnosis::ClaimerMissing { .. } => "claimer-missing",
            Diagnosis::BindingClaimerMissing { .. } => "binding-claimer-missing",
            Diagnosis::ClaimKept { .. } => "claim-kept-over-better-policy",
            Diagnosis::OwnerChangesOnRestart { .. } => "owner-changes-on-restart",
            Diagnosis::SuspendedClusterNotTarget { .. } => "suspended-cluster-not-target",
            Diagnosis::NoBinding { .. } => "no-binding",
            Diagnosis::MissingWork { .. } => "missing-work",
            Diagnosis::OrphanWork { .. } => "orphan-work",
            Diagnosis::NotApplied { .. } => "not-applied",
        }
    }
}

/// The chain of one template.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub claim: ClaimKeys,
    pub binding: Option<BindingView>,
    pub works: Vec<WorkView>,
    pub diagnoses: Vec<Diagnosis>,
}

fn claim_keys(c: &ClaimMeta) -> ClaimKeys {
    fn present<'a>((k, v): (&'a str, &'a Option<String>)) -> Option<(&'a str, &'a str)> {
        Some((k, v.as_deref()?))
    }
    let labels = [(PP_ID_LABEL, &c.pp_id), (CPP_ID_LABEL, &c.cpp_id)]
        .into_iter()
        .filter_map(present)
        .collect();
    let annotations = [
        (PP_NAMESPACE_ANNOTATION, &c.pp_namespace),
        (PP_NAME_ANNOTATION, &c.pp_name),
        (CPP_NAME_ANNOTATION, &c.cpp_name),
    ]
    .into_iter()
    .filter_map(present)
    .collect();
    ClaimKeys {
        labels,
        annotations,
        owner: c.owner(),
    }
}

fn condition(w: &Work, type_: &str) -> Option<ConditionView> {
    w.condition(type_).map(|c| ConditionView {
        status: c.status.clone(),
        reason: c.reason.clone(),
        message: c.message.clone(),
        last_transition_time: c.last_transition_time.clone(),
    })
}

/// Whether Work `w` belongs to binding `b`: the binding's permanent-id label on the Work, or
/// the annotations naming the binding.
pub fn work_of(b: &Binding, w: &Work) -> bool {
    let (id_label, name_ann) = if b.cluster_scoped {
        (CRB_ID_LABEL, CRB_NAME_ANNOTATION)
    } else {
        (RB_ID_LABEL, RB_NAME_ANNOTATION)
    };
    if let (Some(id), Some(wid)) = (b.meta.label(id_label), w.meta.label(id_label)) {
        return id == wid;
    }
    w.meta.annotation(name_ann) == Some(b.meta.name.as_str())
        && (b.cluster_scoped
            || w.meta.annotation(RB_NAMESPACE_ANNOTATION) == b.meta.namespace.as_deref())
}

/// `shouldSuspendDispatching` (binding/common.go:363-376): nil suspension dispatches.
fn suspends(s: Option<&Suspension>, cluster: &str) -> bool {
    s.is_some_and(|s| s.suspends(cluster))
}

/// Diagnoses the chain of the template.
pub fn diagnose(input: &ChainInput<'_>) -> Chain {
    let st = input.state;
    let tpl = &st.templates[input.template];
    let e = input.explanation;
    let claim = claim_keys(tpl.claim());
    let mut diagnoses = Vec::new();

    // The claim: a holder that no longer exists, better policies kept out, a restart's owner.
    let holder = claim.owner.clone();
    let holder_entry = holder
        .as_ref()
        .and_then(|h| st.find_policy(h))
        .map(|i| st.policy(i))
        .filter(|p| p.known);
    if let Some(h) = &holder {
        if holder_entry.is_none() && input.readable.policies {
            diagnoses.push(Diagnosis::ClaimerMissing { claimer: h.clone() });
        }
    }
    for c in &e.candidates {
        if let Why::ClaimKept {
            holder: kept_by,
            blocker,
            ..
        } = &c.why
        {
            if Some(kept_by) == holder.as_ref() && holder_entry.is_some() {
                diagnoses.push(Diagnosis::ClaimKept {
                    holder: kept_by.clone(),
                    better: c.policy.clone(),
                    blocker: blocker.clone(),
                });
            }
        }
    }
    if e.eventual != e.after_reconcile && holder_entry.is_some() {
        diagnoses.push(Diagnosis::OwnerChangesOnRestart {
            holder: e.after_reconcile.clone(),
            eventual: e.eventual.clone(),
            preempted: e.preempted,
        });
    }

    // The binding.
    let binding = input.bindings.first().copied();
    let view = binding.map(|b| BindingView {
        cluster_scoped: b.cluster_scoped,
        namespace: b.meta.namespace.clone(),
        name: b.meta.name.clone(),
        clusters: b
            .spec
            .clusters
            .iter()
            .map(|c| TargetView {
                name: c.name.clone(),
                replicas: c.replicas,
            })
            .collect(),
        required_by: required_by_view(&b.spec),
        suspension: b.spec.suspension.as_ref().map(|s| s.policy.clone()),
        scheduling_suspended: b.spec.suspension.as_ref().and_then(|s| s.scheduling),
        policy_labels: b
            .meta
            .labels
            .iter()
            .filter(|(k, _)| *k == PP_ID_LABEL || *k == CPP_ID_LABEL)
            .collect(),
    });
    if let (Some(h), None, true) = (&holder, binding, input.readable.bindings) {
        if holder_entry.is_some() {
            diagnoses.push(Diagnosis::NoBinding { owner: h.clone() });
        }
    }
    if let (Some(v), true) = (&view, input.readable.policies) {
        for (label, id) in &v.policy_labels {
            let exists = st
                .live_policies()
                .any(|(_, p)| p.kind.permanent_id_label() == label && p.id == *id);
            if !exists {
                diagnoses.push(Diagnosis::BindingClaimerMissing {
                    label: label.to_string(),
                    id: id.to_string(),
                });
            }
        }
    }

    // Works.
    // The binding controller's targets: a dependency's are its requirers' clusters.
    let targets: Vec<&str> = binding
        .map(|b| {
            b.spec
                .target_clusters()
                .into_iter()
                .map(|c| c.name.as_str())
                .collect()
        })
        .unwrap_or_default();
    let mut works: Vec<WorkView> = match binding {
        Some(b) => input
            .works
            .iter()
            .filter(|w| work_of(b, w))
            .map(|w| WorkView {
                namespace: w.meta.namespace.clone().unwrap_or_default(),
                name: w.meta.name.clone(),
                cluster: w.cluster().unwrap_or("").to_string(),
                suspend_dispatching: w.suspend_dispatching,
                dispatching: condition(w, "Dispatching"),
                applied: condition(w, "Applied"),
                target: targets.contains(&w.cluster().unwrap_or("")),
            })
            .collect(),
        None => Vec::new(),
    };
    works.sort_by(|a, b| (&a.cluster, &a.name).cmp(&(&b.cluster, &b.name)));

    // Suspension along the chain, per cluster.
    let policy_susp = holder_entry.and_then(|p| p.spec.suspension.as_ref());
    let lazy = holder_entry.is_some_and(|p| p.spec.lazy());
    let binding_susp = binding.and_then(|b| b.spec.suspension.as_ref().map(|s| &s.policy));
    if let (Some(_), Some(_)) = (holder_entry, binding) {
        let detector_lag = if lazy {
            Lag::LazyActivation
        } else {
            Lag::Detector
        };
        let mut shown = false;
        for w in works.iter().filter(|w| w.target) {
            let want = suspends(policy_susp, &w.cluster);
            let bound = suspends(binding_susp, &w.cluster);
            let spec = w.suspend_dispatching.unwrap_or(false);
            let reported = w.reported_suspended();
            let actual = reported.unwrap_or(spec);
            if actual == want && spec == want && bound == want {
                continue;
            }
            let lag = if bound != want {
                detector_lag.clone()
            } else if spec != bound {
                Lag::BindingController
            } else {
                Lag::ExecutionController
            };
            if bound != want {
                shown = true;
            }
            let d = if want {
                Diagnosis::SuspendedButDispatching {
                    cluster: w.cluster.clone(),
                    work: format!("{}/{}", w.namespace, w.name),
                    lag,
                }
            } else {
                Diagnosis::ResumedButSuspended {
                    cluster: w.cluster.clone(),
                    work: format!("{}/{}", w.namespace, w.name),
                    lag,
                }
            };
            diagnoses.push(d);
        }
        let differs = targets
            .iter()
            .any(|c| suspends(policy_susp, c) != suspends(binding_susp, c))
            || (targets.is_empty()
                && policy_susp.cloned().unwrap_or_default()
                    != binding_susp.cloned().unwrap_or_default());
        if differs && !shown {
            diagnoses.push(Diagnosis::BindingSuspensionDiffers { lag: detector_lag });
        }
    }

    // Clusters named in dispatchingOnClusters that the binding does not target.
    if let (Some(p), Some(_)) = (holder_entry, binding) {
        if let Some(s) = &p.spec.suspension {
            for c in s.suspended_clusters() {
                if !targets.contains(&c.as_str()) {
                    diagnoses.push(Diagnosis::SuspendedClusterNotTarget {
                        policy: p.reference(),
                        cluster: c.clone(),
                        exists: input.readable.clusters.then(|| input.clusters.contains(c)),
                    });
                }
            }
        }
    }

    // Works missing, orphaned, or refused.
    if binding.is_some() && input.readable.works {
        for c in &targets {
            if !works.iter().any(|w| w.cluster == *c) {
                diagnoses.push(Diagnosis::MissingWork {
                    cluster: c.to_string(),
                });
            }
        }
    }
    for w in &works {
        let work = format!("{}/{}", w.namespace, w.name);
        if !w.target {
            diagnoses.push(Diagnosis::OrphanWork {
                cluster: w.cluster.clone(),
                work: work.clone(),
            });
        }
        if let Some(a) = w.applied.as_ref().filter(|a| a.status == "False") {
            diagnoses.push(Diagnosis::NotApplied {
                cluster: w.cluster.clone(),
                work,
                reason: a.reason.clone(),
                message: a.message.clone(),
            });
        }
    }

    Chain {
        claim,
        binding: view,
        works,
        diagnoses,
    }
}

/// Each requiring binding with the clusters it adds, in the order the binding controller
/// merges them (`mergeTargetClusters`).
fn required_by_view(spec: &crate::model::binding::BindingSpec) -> Vec<RequiredByView> {
    spec.required_additions()
        .into_iter()
        .map(|(r, adds)| RequiredByView {
            namespace: r.namespace.clone(),
            name: r.name.clone(),
            adds: adds.into_iter().map(|c| c.name.clone()).collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::explain::explain;
    use crate::engine::state::testutil::*;
    use crate::model::{Inventory, Object};
    use crate::source::{Document, Node, Source, Span};
    use serde_json::json;

    fn inv(objs: Vec<serde_json::Value>) -> Inventory {
        let docs = objs
            .iter()
            .map(|o| Document::new(Source::new("x", ""), 0, Node::from_json(o, Span::default())))
            .collect();
        Inventory::from_documents(docs, "default")
    }

    fn binding(susp: serde_json::Value, clusters: &[&str]) -> serde_json::Value {
        json!({"apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding",
            "metadata": {"name": "web-deployment", "namespace": "default",
                "labels": {"propagationpolicy.karmada.io/permanent-id": "p-id",
                    RB_ID_LABEL: "rb-1"}},
            "spec": {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "web"},
                "clusters": clusters.iter().map(|c| json!({"name": c, "replicas": 1})).collect::<Vec<_>>(),
                "suspension": susp}})
    }

    fn work(cluster: &str, suspended: bool, reported: bool) -> serde_json::Value {
        let cond = if reported {
            json!({"type": "Dispatching", "status": "False", "reason": "SuspendDispatching"})
        } else {
            json!({"type": "Dispatching", "status": "True", "reason": "Dispatching"})
        };
        json!({"apiVersion": "work.karmada.io/v1alpha1", "kind": "Work",
            "metadata": {"name": "web-x", "namespace": format!("karmada-es-{cluster}"),
                "labels": {RB_ID_LABEL: "rb-1"}},
            "spec": {"suspendDispatching": suspended},
            "status": {"conditions": [cond, {"type": "Applied", "status": "True", "reason": "AppliedSuccessful"}]}})
    }

    fn run(policy_susp: serde_json::Value, extra: Vec<serde_json::Value>) -> Chain {
        let (l, a) = pp_claim("default", "p");
        let mut labels: crate::model::StringMap = l.into_iter().collect();
        labels.insert(PP_ID_LABEL.into(), "p-id".into());
        let annotations: crate::model::StringMap = a.into_iter().collect();
        let mut objs = vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "default", "labels": labels, "annotations": annotations}}),
            json!({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
                "metadata": {"name": "p", "namespace": "default",
                    "labels": {"propagationpolicy.karmada.io/permanent-id": "p-id"}},
                "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                    "placement": {"clusterAffinity": {"clusterNames": ["m1", "m2"]}},
                    "suspension": policy_susp}}),
        ];
        objs.extend(extra);
        let inv = inv(objs);
        let st = State::from_inventory(&inv, Default::default());
        let e = explain(&st, 0);
        let bindings: Vec<&Binding> = inv.bindings().collect();
        let works: Vec<&Work> = inv.works().collect();
        diagnose(&ChainInput {
            state: &st,
            template: 0,
            explanation: &e,
            bindings,
            works,
            clusters: vec!["m1".into(), "m2".into()],
            readable: Readable::default(),
        })
    }

    #[test]
    fn resumed_policy_with_work_still_suspended() {
        // Policy resumed, binding followed, Work spec followed, condition not yet: execution lag.
        let c = run(
            json!(null),
            vec![
                binding(json!(null), &["m1", "m2"]),
                work("m1", false, false),
                work("m2", false, true),
            ],
        );
        assert_eq!(c.claim.owner, Some(PolicyRef::pp("default", "p")));
        assert_eq!(c.works.len(), 2);
        assert_eq!(
            c.diagnoses,
            vec![Diagnosis::ResumedButSuspended {
                cluster: "m2".into(),
                work: "karmada-es-m2/web-x".into(),
                lag: Lag::ExecutionController
            }]
        );
        // Binding still suspended: the detector has not caught up.
        let c = run(
            json!(null),
            vec![
                binding(json!({"dispatching": true}), &["m1", "m2"]),
                work("m1", true, true),
                work("m2", true, true),
            ],
        );
        assert!(c.diagnoses.iter().all(|d| matches!(
            d,
            Diagnosis::ResumedButSuspended {
                lag: Lag::Detector,
                ..
            }
        )));
        assert_eq!(c.diagnoses.len(), 2);
    }

    #[test]
    fn lazy_policy_resumed_waits_for_a_template_change() {
        // Resumed Lazy policy: the binding keeps the old suspension until the template changes.
        let (l, a) = pp_claim("default", "p");
        let labels: crate::model::StringMap = l.into_iter().collect();
        let annotations: crate::model::StringMap = a.into_iter().collect();
        let inv = inv(vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "web", "namespace": "default", "labels": labels, "annotations": annotations}}),
            json!({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
                "metadata": {"name": "p", "namespace": "default",
                    "labels": {"propagationpolicy.karmada.io/permanent-id": "p-id"}},
                "spec": {"activationPreference": "Lazy",
                    "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}]}}),
            binding(json!({"dispatching": true}), &["m1"]),
            work("m1", true, true),
        ]);
        let st = State::from_inventory(&inv, Default::default());
        let e = explain(&st, 0);
        let c = diagnose(&ChainInput {
            state: &st,
            template: 0,
            explanation: &e,
            bindings: inv.bindings().collect(),
            works: inv.works().collect(),
            clusters: vec!["m1".into()],
            readable: Readable::default(),
        });
        assert_eq!(
            c.diagnoses,
            vec![Diagnosis::ResumedButSuspended {
                cluster: "m1".into(),
                work: "karmada-es-m1/web-x".into(),
                lag: Lag::LazyActivation
            }]
        );
        assert_eq!(
            c.binding.as_ref().and_then(|b| b.suspension.clone()),
            Some(Suspension {
                dispatching: Some(true),
                dispatching_on_clusters: None
            })
        );
    }

    #[test]
    fn suspended_policy_still_dispatching_and_binding_without_works() {
        // Suspended, but no Work yet shows it and the binding has not followed: detector lag.
        let c = run(
            json!({"dispatching": true}),
            vec![binding(json!(null), &["m1"]), work("m1", false, false)],
        );
        assert_eq!(
            c.diagnoses,
            vec![Diagnosis::SuspendedButDispatching {
                cluster: "m1".into(),
                work: "karmada-es-m1/web-x".into(),
                lag: Lag::Detector
            }]
        );
        // A target without a Work: the binding controller has not created it yet.
        let c = run(json!(null), vec![binding(json!(null), &["m1"])]);
        assert_eq!(
            c.diagnoses,
            vec![Diagnosis::MissingWork {
                cluster: "m1".into()
            }]
        );
    }

    #[test]
    fn suspended_cluster_not_a_target_and_missing_work() {
        let c = run(
            json!({"dispatchingOnClusters": {"clusterNames": ["m3", "m1"]}}),
            vec![
                binding(
                    json!({"dispatchingOnClusters": {"clusterNames": ["m3", "m1"]}}),
                    &["m1", "m2"],
                ),
                work("m1", true, true),
            ],
        );
        assert!(c.diagnoses.contains(&Diagnosis::SuspendedClusterNotTarget {
            policy: PolicyRef::pp("default", "p"),
            cluster: "m3".into(),
            exists: Some(false)
        }));
        assert!(c.diagnoses.contains(&Diagnosis::MissingWork {
            cluster: "m2".into()
        }));
        assert!(!c
            .diagnoses
            .iter()
            .any(|d| matches!(d, Diagnosis::ResumedButSuspended { .. })));
    }

    #[test]
    fn claim_by_a_missing_policy() {
        let (l, a) = pp_claim("default", "gone");
        let mut labels: Vec<(&str, &str)> = vec![("app", "web")];
        labels.extend(l.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let a: Vec<(&str, &str)> = a.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let objects: Vec<Object> = vec![deploy("default", "web", &labels, &a)];
        let st = state(objects, false);
        let e = explain(&st, 0);
        let c = diagnose(&ChainInput {
            state: &st,
            template: 0,
            explanation: &e,
            bindings: Vec::new(),
            works: Vec::new(),
            clusters: Vec::new(),
            readable: Readable::default(),
        });
        assert_eq!(
            c.diagnoses,
            vec![Diagnosis::ClaimerMissing {
                claimer: PolicyRef::pp("default", "gone")
            }]
        );
        assert_eq!(c.claim.annotations.len(), 2);
    }
}
