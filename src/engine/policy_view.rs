//! `explain pp/NAME` and `cpp/NAME`: the templates a policy selects, each with where its claim
//! stands relative to the policy (claimed, will be claimed and when, held by another and what
//! blocks a takeover, unclaimed), the templates it would select but the detector filters out,
//! and why a policy that selects nothing is dead. Built from the per-template decision
//! ([`super::explain::explain`]), never re-derived.

use crate::model::cluster::Cluster;
use crate::model::{ObjectRef, PolicyRef};

use super::claim::{Excluded, NeverMatched};
use super::explain::{explain, Explanation, Why};
use super::placement::{self, BindingView, PlacementResult};
use super::state::State;

/// Where one selected template's claim stands relative to the policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// The template's claim names the policy, and it keeps it.
    Claimed,
    /// Not (or not yet) claimed by the policy, but it will be.
    WillBeClaimed(When),
    /// Another policy has or gets it; `why` is the policy's own loss reason.
    HeldByOther { holder: PolicyRef, why: Why },
    /// Nobody claims it, this policy neither (e.g. it waits for dependentOverrides).
    Unclaimed { why: Option<Why> },
}

/// When the policy gets the template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// At the template's next reconcile (now, for a new or unclaimed template).
    Now,
    /// The policy is Lazy: only on the template's next update.
    NextTemplateUpdate,
    /// Only once every policy is processed again (a controller restart, or a preemption pass).
    AfterRestart,
}

#[derive(Clone, Debug)]
pub struct SelectedTemplate {
    pub template: usize,
    pub resource: ObjectRef,
    pub standing: Standing,
    pub decision: Explanation,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub selected: usize,
    pub claimed: usize,
    pub will_be_claimed: usize,
    pub held_by_other: usize,
    pub unclaimed: usize,
    pub filtered: usize,
}

#[derive(Clone, Debug)]
pub struct PolicyExplanation {
    pub policy: PolicyRef,
    pub templates: Vec<SelectedTemplate>,
    /// Templates the selectors match but the detector never processes.
    pub filtered: Vec<(ObjectRef, Excluded)>,
    pub counts: Counts,
    /// Why the policy selects nothing, when it does not.
    pub dead: Option<String>,
    /// The clusters the placement names when no Cluster objects are known, so that its
    /// placement is not evaluated ([`placement::unevaluated`]).
    pub unplaced: Option<super::placement::Unevaluated>,
    /// The release, gates and controller-manager flags the answer assumes (the state's).
    pub assumed: crate::model::feature_gates::GateSet,
}

fn standing(e: &Explanation, me: &PolicyRef, lazy: bool) -> Standing {
    let mine = |o: &Option<PolicyRef>| o.as_ref() == Some(me);
    let own_why = e
        .candidates
        .iter()
        .find(|c| &c.policy == me)
        .map(|c| c.why.clone());
    match (
        mine(&e.current),
        mine(&e.after_reconcile),
        mine(&e.eventual),
    ) {
        (true, _, true) => Standing::Claimed,
        (true, _, false) => match &e.eventual {
            Some(holder) => Standing::HeldByOther {
                holder: holder.clone(),
                why: own_why.unwrap_or(Why::Terminating),
            },
            // Claimed now, released later with no policy to take it (the policy is being
            // deleted, or no longer matches): as `explain TYPE/NAME`'s eventual owner says,
            // nobody holds it.
            None => Standing::Unclaimed { why: own_why },
        },
        (false, true, _) if lazy && e.current.is_some() => {
            Standing::WillBeClaimed(When::NextTemplateUpdate)
        }
        (false, true, _) => Standing::WillBeClaimed(When::Now),
        (false, false, true) => Standing::WillBeClaimed(When::AfterRestart),
        (false, false, false) => match e.eventual.clone().or_else(|| e.current.clone()) {
            Some(holder) => Standing::HeldByOther {
                holder,
                why: own_why.unwrap_or(Why::Terminating),
            },
            None => Standing::Unclaimed { why: own_why },
        },
    }
}

/// A policy's placement over the known clusters, for each kind its selectors select: the
/// scheduler judges each binding on its own resource (the APIEnablement filter asks whether the
/// cluster serves the binding's API, `pkg/scheduler/framework/plugins/apienablement/
/// api_enablement.go` Filter), so a policy selecting Deployments and ConfigMaps can place them
/// on different clusters.
#[derive(Clone, Debug)]
pub struct PolicyPlacement {
    /// `((apiVersion, kind), result)` per selected kind, in selector order; never empty.
    pub by_kind: Vec<((String, String), PlacementResult)>,
    /// Evaluated over clusters known by the names the placement gives, without Cluster
    /// objects ([`crate::engine::delivery::named_where_decided`]).
    pub by_names: bool,
}

impl PolicyPlacement {
    /// The placement for the first kind the selectors select.
    pub fn first(&self) -> &PlacementResult {
        &self.by_kind[0].1
    }
}

/// The placement of policy `p` over `clusters`, once per kind it selects (a policy without
/// `placement` schedules with the empty one); none without Cluster objects.
pub fn placement(state: &State, p: usize, clusters: &[Cluster]) -> Option<PolicyPlacement> {
    if clusters.is_empty() {
        return None;
    }
    let spec = &state.policy(p).spec;
    let pl = spec.scheduled_placement();
    let mut kinds: Vec<(String, String)> = Vec::new();
    for rs in &spec.resource_selectors {
        let k = (rs.api_version.clone(), rs.kind.clone());
        if !rs.kind.is_empty() && !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    if kinds.is_empty() {
        kinds.push((String::new(), String::new()));
    }
    let by_kind = kinds
        .into_iter()
        .map(|k| {
            let view = BindingView {
                api_version: &k.0,
                kind: &k.1,
                ..Default::default()
            };
            let result = placement::evaluate(pl, clusters, &view);
            (k, result)
        })
        .collect();
    Some(PolicyPlacement {
        by_kind,
        by_names: false,
    })
}

/// Explains policy `p` of the state.
pub fn explain_policy(state: &State, p: usize) -> PolicyExplanation {
    let policy = state.policy(p);
    let me = policy.reference();
    let lazy = policy.spec.lazy();
    let mut templates = Vec::new();
    let mut filtered = Vec::new();
    for (t, tpl) in state.templates.iter().enumerate() {
        if policy.is_pp() && *tpl.namespace != *policy.namespace {
            continue;
        }
        let prio =
            super::selector::selectors_priority(&tpl.target(), &policy.spec.resource_selectors);
        if !prio.matches() {
            continue;
        }
        if let Some(ex) = &tpl.excluded {
            filtered.push((tpl.reference(), (**ex).clone()));
            continue;
        }
        let decision = explain(state, t);
        templates.push(SelectedTemplate {
            template: t,
            resource: tpl.reference(),
            standing: standing(&decision, &me, lazy),
            decision,
        });
    }
    let mut counts = Counts {
        selected: templates.len(),
        filtered: filtered.len(),
        ..Counts::default()
    };
    for s in &templates {
        match s.standing {
            Standing::Claimed => counts.claimed += 1,
            Standing::WillBeClaimed(_) => counts.will_be_claimed += 1,
            Standing::HeldByOther { .. } => counts.held_by_other += 1,
            Standing::Unclaimed { .. } => counts.unclaimed += 1,
        }
    }
    let dead = templates
        .is_empty()
        .then(|| dead_reason(state, p, !filtered.is_empty()));
    PolicyExplanation {
        policy: me,
        templates,
        filtered,
        counts,
        dead,
        unplaced: None,
        assumed: state.options.gates.clone(),
    }
}

/// When the detector never matches any of the policy's selectors (§1.3, §1.4): why, with the
/// fix for a PropagationPolicy selecting cluster-scoped kinds.
fn never_matched_reason(state: &State, p: usize) -> Option<String> {
    let policy = state.policy(p);
    let selectors = &policy.spec.resource_selectors;
    let reasons: Vec<NeverMatched> = selectors
        .iter()
        .filter_map(|rs| state.never_matched(policy.kind, rs))
        .collect();
    if selectors.is_empty() || reasons.len() < selectors.len() {
        return None;
    }
    let mut texts: Vec<String> = reasons.iter().map(NeverMatched::reason).collect();
    texts.dedup();
    let to_cpp = reasons
        .iter()
        .any(|r| matches!(r, NeverMatched::ClusterScopedKindInPp { .. }));
    Some(format!(
        "the detector never matches its selectors: {}{}",
        texts.join("; "),
        if to_cpp {
            " (make it a ClusterPropagationPolicy)"
        } else {
            ""
        }
    ))
}

/// Why nothing is selected: every match is filtered, no template of the selected kinds exists
/// (in the policy's namespace for a PP), or templates exist but no selector matches them.
fn dead_reason(state: &State, p: usize, all_filtered: bool) -> String {
    if all_filtered {
        return "every template it selects is filtered out by the detector".into();
    }
    let policy = state.policy(p);
    if let Some(never) = never_matched_reason(state, p) {
        return never;
    }
    let kinds: Vec<String> = policy
        .spec
        .resource_selectors
        .iter()
        .map(|rs| format!("{} {}", rs.api_version, rs.kind))
        .collect();
    let present = policy.spec.resource_selectors.iter().any(|rs| {
        state
            .templates_of(&rs.api_version, &rs.kind)
            .iter()
            .any(|&t| !policy.is_pp() || *state.templates[t].namespace == *policy.namespace)
    });
    let scope = if policy.is_pp() {
        format!(" in namespace {}", policy.namespace)
    } else {
        String::new()
    };
    if present {
        format!(
            "templates of its kinds ({}) exist{scope}, but no selector matches their names or labels",
            kinds.join(", ")
        )
    } else {
        format!(
            "no template of its kinds ({}) exists{scope} in the inputs",
            kinds.join(", ")
        )
    }
}
