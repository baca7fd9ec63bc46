//! `explain pp/NAME` against the control plane: for every template the policy holds (its claim
//! names the policy now), the template's real chain ([`super::chain::diagnose`]: binding,
//! Works with their `Applied` and `Dispatching` conditions, diagnoses), the binding's
//! `Scheduled` / `FullyApplied` conditions and the scheduled clusters that have no Work yet;
//! with the policy's own suspension and counts over all of it. Pure: the caller reads.

use crate::model::cluster::Cluster;
use crate::model::policy::Suspension;
use crate::model::{Binding, Condition, Inventory, Work};
use crate::source::live::Read;
use crate::source::policy_reads::{PolicyReadable, PolicyReads};

use std::collections::HashMap;

use super::chain::{self, Chain, ChainInput, Readable};
use super::policy_view::{PolicyExplanation, PolicyPlacement};
use super::state::{State, TemplateEntry};

/// The binding conditions shown, in this order ("if present").
const BINDING_CONDITIONS: [&str; 2] = ["Scheduled", "FullyApplied"];

/// The live part of one held template.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateLive {
    pub chain: Chain,
    /// `Scheduled` and `FullyApplied` of the binding, those present.
    pub binding_conditions: Vec<Condition>,
    /// Clusters the binding schedules that have no Work (only when the Works could be read).
    pub missing_works: Vec<String>,
}

/// Counts over the held templates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveCounts {
    /// Templates whose claim names the policy now.
    pub held: usize,
    /// Held templates with a binding.
    pub bound: usize,
    pub works: usize,
    /// Works with `Applied=True`.
    pub applied: usize,
    /// Works with `Applied=False` (the member cluster refused the manifest).
    pub not_applied: usize,
    /// Works without an `Applied` verdict yet.
    pub pending: usize,
    /// Works with `spec.suspendDispatching: true`.
    pub suspended: usize,
    /// Scheduled clusters without a Work.
    pub missing_works: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PolicyLive {
    /// Parallel to [`PolicyExplanation::templates`]: `Some` for the templates the policy holds.
    pub templates: Vec<Option<TemplateLive>>,
    /// The policy's `spec.suspension`.
    pub suspension: Option<Suspension>,
    pub counts: LiveCounts,
    pub readable: Readable,
}

/// What [`trace`] reads besides the explanation.
pub struct LiveInput<'a> {
    pub state: &'a State,
    pub explanation: &'a PolicyExplanation,
    /// The policies, templates and bindings read (the held templates' bindings are picked by
    /// `spec.resource`).
    pub inventory: &'a Inventory,
    /// The Works of the held templates' bindings ([`held_bindings`]).
    pub works: &'a [Work],
    pub clusters: &'a [Cluster],
    pub readable: Readable,
}

impl From<PolicyReadable> for Readable {
    fn from(r: PolicyReadable) -> Readable {
        Readable {
            policies: r.policies,
            bindings: r.bindings,
            works: r.works,
            clusters: r.clusters,
        }
    }
}

/// A template's identity as a binding names it: group, kind, namespace, name (the version in
/// `spec.resource` may differ from the template's).
type TemplateKey<'a> = (&'a str, &'a str, &'a str, &'a str);

fn template_key(tpl: &TemplateEntry) -> TemplateKey<'_> {
    (tpl.group(), &tpl.kind, &tpl.namespace, &tpl.name)
}

/// The bindings by the template they bind, and the Works by the binding id they carry: a
/// policy can hold thousands of templates, so nothing is looked up by a scan.
struct Index<'a> {
    bindings: HashMap<TemplateKey<'a>, Vec<&'a Binding>>,
    /// `(cluster-scoped binding, permanent id)` → its Works.
    works: HashMap<(bool, &'a str), Vec<&'a Work>>,
    /// Works without a binding id label: matched by annotation ([`chain::work_of`]).
    unlabeled: Vec<&'a Work>,
    all_works: Vec<&'a Work>,
}

impl<'a> Index<'a> {
    fn new(inv: &'a Inventory, works: &'a [Work]) -> Index<'a> {
        let mut bindings: HashMap<TemplateKey<'a>, Vec<&'a Binding>> = HashMap::new();
        for b in inv.bindings() {
            let r = &b.spec.resource;
            let ns = if b.cluster_scoped {
                ""
            } else {
                r.namespace.as_str()
            };
            let key = (
                crate::model::group_of(&r.api_version),
                r.kind.as_str(),
                ns,
                r.name.as_str(),
            );
            bindings.entry(key).or_default().push(b);
        }
        let mut index = Index {
            bindings,
            works: HashMap::new(),
            unlabeled: Vec::new(),
            all_works: works.iter().collect(),
        };
        for w in works {
            let ids = [(false, chain::RB_ID_LABEL), (true, chain::CRB_ID_LABEL)];
            let mut labeled = false;
            for (cluster_scoped, label) in ids {
                if let Some(id) = w.meta.label(label) {
                    index.works.entry((cluster_scoped, id)).or_default().push(w);
                    labeled = true;
                }
            }
            if !labeled {
                index.unlabeled.push(w);
            }
        }
        index
    }

    /// The bindings whose `spec.resource` is the template (normally one).
    fn bindings_of(&self, tpl: &TemplateEntry) -> Vec<&'a Binding> {
        self.bindings
            .get(&template_key(tpl))
            .cloned()
            .unwrap_or_default()
    }

    /// The Works that may belong to `b`: those carrying its id, and those carrying none; every
    /// Work for a binding without an id.
    fn works_of(&self, b: &Binding) -> Vec<&'a Work> {
        match b.permanent_id() {
            Some(id) => {
                let mut out = self
                    .works
                    .get(&(b.cluster_scoped, id))
                    .cloned()
                    .unwrap_or_default();
                out.extend(&self.unlabeled);
                out
            }
            None => self.all_works.clone(),
        }
    }
}

/// The indexes (into the explanation's templates) of those whose claim names the policy.
fn held(e: &PolicyExplanation) -> impl Iterator<Item = usize> + '_ {
    e.templates
        .iter()
        .enumerate()
        .filter(|(_, s)| s.decision.current.as_ref() == Some(&e.policy))
        .map(|(i, _)| i)
}

/// The bindings of the templates the policy holds: whose Works to read.
pub fn held_bindings<'a>(
    state: &State,
    e: &PolicyExplanation,
    inv: &'a Inventory,
) -> Vec<&'a Binding> {
    let index = Index::new(inv, &[]);
    held(e)
        .flat_map(|i| index.bindings_of(&state.templates[e.templates[i].template]))
        .collect()
}

/// `(cluster-scoped, permanent id)` of each binding the policy holds, as
/// [`PolicyReads::works_requests`] takes them.
pub fn held_binding_ids<'a>(
    state: &State,
    e: &PolicyExplanation,
    inv: &'a Inventory,
) -> Vec<(bool, Option<&'a str>)> {
    held_bindings(state, e, inv)
        .into_iter()
        .map(|b| (b.cluster_scoped, b.permanent_id()))
        .collect()
}

/// The live trace from the reads around policy `p` ([`PolicyReads`]), and its placement over
/// the control plane's Clusters.
pub fn from_reads(
    state: &State,
    p: usize,
    e: &PolicyExplanation,
    inv: &Inventory,
    target: &PolicyReads<'_>,
    reads: &[Read],
) -> (PolicyLive, Option<PolicyPlacement>) {
    let works: Vec<Work> = target.works(reads).map(Work::from_json).collect();
    let clusters: Vec<Cluster> = target
        .clusters(reads)
        .iter()
        .map(Cluster::from_object)
        .collect();
    let live = trace(&LiveInput {
        state,
        explanation: e,
        inventory: inv,
        works: &works,
        clusters: &clusters,
        readable: target.readable(reads).into(),
    });
    (live, super::policy_view::placement(state, p, &clusters))
}

/// The live part of every held template, and the counts.
pub fn trace(input: &LiveInput<'_>) -> PolicyLive {
    let e = input.explanation;
    let mut templates = vec![None; e.templates.len()];
    let mut counts = LiveCounts::default();
    let index = Index::new(input.inventory, input.works);
    for i in held(e) {
        let live = template_live(input, &index, i);
        count(&mut counts, &live);
        templates[i] = Some(live);
    }
    let suspension = input
        .state
        .find_policy(&e.policy)
        .and_then(|p| input.state.policy(p).spec.suspension.clone());
    PolicyLive {
        templates,
        suspension,
        counts,
        readable: input.readable,
    }
}

fn template_live(input: &LiveInput<'_>, index: &Index<'_>, i: usize) -> TemplateLive {
    let s = &input.explanation.templates[i];
    let bindings = index.bindings_of(&input.state.templates[s.template]);
    // The chain reads the first binding's Works (`chain::diagnose`).
    let works = bindings
        .first()
        .map(|b| index.works_of(b))
        .unwrap_or_default();
    let binding_conditions = bindings
        .first()
        .map(|b| {
            BINDING_CONDITIONS
                .iter()
                .filter_map(|t| b.condition(t).cloned())
                .collect()
        })
        .unwrap_or_default();
    let chain = chain::diagnose(&ChainInput {
        state: input.state,
        template: s.template,
        explanation: &s.decision,
        bindings,
        works,
        clusters: input.clusters.iter().map(|c| c.name.clone()).collect(),
        readable: input.readable,
    });
    let missing_works = match (&chain.binding, input.readable.works) {
        (Some(b), true) => b
            .clusters
            .iter()
            .filter(|t| !chain.works.iter().any(|w| w.cluster == t.name))
            .map(|t| t.name.clone())
            .collect(),
        _ => Vec::new(),
    };
    TemplateLive {
        chain,
        binding_conditions,
        missing_works,
    }
}

fn count(c: &mut LiveCounts, t: &TemplateLive) {
    c.held += 1;
    c.bound += usize::from(t.chain.binding.is_some());
    c.missing_works += t.missing_works.len();
    for w in &t.chain.works {
        c.works += 1;
        c.suspended += usize::from(w.suspend_dispatching == Some(true));
        match w.applied.as_ref().map(|a| a.status.as_str()) {
            Some("True") => c.applied += 1,
            Some("False") => c.not_applied += 1,
            _ => c.pending += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::policy_view::explain_policy;
    use crate::engine::state::testutil::*;
    use crate::model::{Inventory, PolicyRef};
    use crate::source::{Document, Node, Source, Span};
    use serde_json::json;

    fn inv(objs: &[serde_json::Value]) -> Inventory {
        let docs = objs
            .iter()
            .map(|o| Document::new(Source::new("x", ""), 0, Node::from_json(o, Span::default())))
            .collect();
        Inventory::from_documents(docs, "default")
    }

    fn deploy(name: &str, claimed: bool) -> serde_json::Value {
        let mut d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}}});
        if claimed {
            d["metadata"]["labels"]["propagationpolicy.karmada.io/permanent-id"] = json!("p-id");
            d["metadata"]["annotations"] = json!({"propagationpolicy.karmada.io/namespace": "default",
                "propagationpolicy.karmada.io/name": "web"});
        }
        d
    }

    fn binding(name: &str, id: &str, clusters: &[&str]) -> serde_json::Value {
        json!({"apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding",
            "metadata": {"name": format!("{name}-deployment"), "namespace": "default",
                "labels": {"propagationpolicy.karmada.io/permanent-id": "p-id",
                    chain::RB_ID_LABEL: id}},
            "spec": {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": name},
                "clusters": clusters.iter().map(|c| json!({"name": c})).collect::<Vec<_>>()},
            "status": {"conditions": [
                {"type": "FullyApplied", "status": "False", "reason": "FullyAppliedFailed", "message": "m"},
                {"type": "Other", "status": "True"},
                {"type": "Scheduled", "status": "True", "reason": "Success"}]}})
    }

    fn work(cluster: &str, id: &str, applied: Option<&str>, suspended: bool) -> serde_json::Value {
        let mut conditions = vec![];
        if let Some(s) = applied {
            conditions.push(json!({"type": "Applied", "status": s, "reason": "R", "message": ""}));
        }
        json!({"apiVersion": "work.karmada.io/v1alpha1", "kind": "Work",
            "metadata": {"name": format!("w-{id}"), "namespace": format!("karmada-es-{cluster}"),
                "labels": {chain::RB_ID_LABEL: id}},
            "spec": {"suspendDispatching": suspended},
            "status": {"conditions": conditions}})
    }

    #[test]
    fn held_templates_get_their_binding_works_and_counts() {
        let policy = json!({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
            "metadata": {"name": "web", "namespace": "default",
                "labels": {"propagationpolicy.karmada.io/permanent-id": "p-id"}},
            "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                "suspension": {"dispatchingOnClusters": {"clusterNames": ["m2"]}}}});
        let objs = [
            policy,
            deploy("a", true),
            deploy("b", true),
            deploy("c", false),
            binding("a", "rb-a", &["m1", "m2"]),
            binding("b", "rb-b", &["m1"]),
            work("m1", "rb-a", Some("True"), false),
            work("m2", "rb-a", Some("False"), true),
        ];
        let inv = inv(&objs);
        let st = state(inv.objects.clone(), false);
        let p = st.find_policy(&PolicyRef::pp("default", "web")).unwrap();
        let e = explain_policy(&st, p);
        let held = held_bindings(&st, &e, &inv);
        let names: Vec<&str> = held.iter().map(|b| b.meta.name.as_str()).collect();
        assert_eq!(names, ["a-deployment", "b-deployment"]);
        let works: Vec<Work> = inv.works().cloned().collect();
        let live = trace(&LiveInput {
            state: &st,
            explanation: &e,
            inventory: &inv,
            works: &works,
            clusters: &[],
            readable: Readable::default(),
        });
        let by_name = |n: &str| {
            let i = e
                .templates
                .iter()
                .position(|s| s.resource.name == n)
                .unwrap();
            live.templates[i].as_ref()
        };
        let a = by_name("a").unwrap();
        let types: Vec<&str> = a
            .binding_conditions
            .iter()
            .map(|c| c.type_.as_str())
            .collect();
        assert_eq!(types, ["Scheduled", "FullyApplied"]);
        assert_eq!(a.chain.works.len(), 2);
        assert!(a.missing_works.is_empty());
        assert_eq!(by_name("b").unwrap().missing_works, ["m1"]);
        assert!(by_name("c").is_none(), "not held: no live part");
        assert_eq!(
            live.counts,
            LiveCounts {
                held: 2,
                bound: 2,
                works: 2,
                applied: 1,
                not_applied: 1,
                pending: 0,
                suspended: 1,
                missing_works: 1
            }
        );
        assert_eq!(live.suspension.unwrap().suspended_clusters(), ["m2"]);
    }

    #[test]
    fn unreadable_works_are_not_missing() {
        let policy = json!({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
            "metadata": {"name": "web", "namespace": "default",
                "labels": {"propagationpolicy.karmada.io/permanent-id": "p-id"}},
            "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}]}});
        let inv = inv(&[policy, deploy("a", true), binding("a", "rb-a", &["m1"])]);
        let st = state(inv.objects.clone(), false);
        let e = explain_policy(&st, 0);
        let live = trace(&LiveInput {
            state: &st,
            explanation: &e,
            inventory: &inv,
            works: &[],
            clusters: &[],
            readable: Readable {
                works: false,
                ..Readable::default()
            },
        });
        assert!(live.templates[0].as_ref().unwrap().missing_works.is_empty());
        assert_eq!(live.counts.missing_works, 0);
    }
}
