//! The inputs of `explain`, built into what its renderers take: which documents one template's
//! decision reads, so `explain -f` parses only those (issue 8: a large repository is mostly other
//! templates); the decision and delivery from files ([`from_files`]) and from the live reads
//! around the template ([`live`]); the policy `explain pp/NAME` names ([`find_policy`]).
//!
//! A decision reads the PropagationPolicies of the template's namespace, every other Karmada
//! object (CPPs, overrides, bindings, Works) and whatever may be the template itself or share
//! its name (to report ambiguity). Other templates never change one template's decision, except
//! in the two cases [`reads_beyond`] detects after the fact: a PP selects only templates of its
//! own namespace (claim-and-preemption.md §1.3, `detector.go:388-391`) and is otherwise looked
//! up only as the holder of the template's claim.

use serde_json::Value as J;

use super::chain::{self, Chain, ChainInput, Readable};
use super::delivery::{self, Delivery};
use super::dependencies;
use super::explain::{explain, Explanation};
use super::state::{Options, Rejected, State, UnknownClaimers};
use crate::model::cluster::Cluster;
use crate::model::environments::{EnvError, Miss};
use crate::model::{group_of, kinds, Inventory, PolicyKind, PolicyRef, POLICY_GROUP};
use crate::source::live::karmada;
use crate::source::prefilter::Skipped;
use crate::source::session::{cluster_names, find, TemplateRead, TemplateReads};

/// The template a decision is about, as named on the command line.
#[derive(Clone, Copy, Debug)]
pub struct Wanted<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
}

impl Wanted<'_> {
    /// Whether the decision needs the document with this head (`namespace`/`name` are `None`
    /// when the document sets none or they could not be read with certainty: kept).
    pub fn needs(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: Option<&str>,
    ) -> bool {
        if is_pp(api_version, kind) {
            return namespace.is_none_or(|ns| ns == self.namespace);
        }
        // A CustomResourceDefinition says whether the template's kind is namespaced.
        group_of(api_version).ends_with("karmada.io")
            || kind == "CustomResourceDefinition"
            || name.is_none_or(|n| n == self.name)
    }
}

/// A PropagationPolicy, the one Karmada kind [`Wanted::needs`] filters by namespace; every
/// other document it skips is a template.
pub fn is_pp(api_version: &str, kind: &str) -> bool {
    group_of(api_version) == POLICY_GROUP && kind == "PropagationPolicy"
}

/// Whether the decision for template `t`, made from the needed documents only, may have looked
/// at documents that were skipped, so everything has to be read: a candidate or preemptor whose
/// dependent overrides are missing waits only while some unclaimed template it matches exists
/// (§6.5, `reconcile::overrides_block_preemption`; only with the preemption gate on, as settle
/// and `why_not` ask only then), or the template's claim names a PropagationPolicy of another
/// namespace (a stale or hand-written claim), whose existence decides the answer, or the
/// template may be a workload's dependency, which the namespace's workloads decide.
pub fn reads_beyond(state: &State, t: usize, namespace: &str) -> bool {
    needs_other_templates(state, t)
        || claim_elsewhere(state, t, namespace)
        || may_be_a_dependency(state, t)
}

/// A ConfigMap, Secret, ServiceAccount or PersistentVolumeClaim may be carried along by any
/// workload of its namespace ([`dependencies::required_by`]), named otherwise.
fn may_be_a_dependency(state: &State, t: usize) -> bool {
    dependencies::may_be_carried(state, t)
}

fn claim_elsewhere(state: &State, t: usize, namespace: &str) -> bool {
    state.templates[t].claim().owner().is_some_and(|o| {
        o.kind == PolicyKind::PropagationPolicy && o.namespace.as_deref() != Some(namespace)
    })
}

fn needs_other_templates(state: &State, t: usize) -> bool {
    if !state.options.gates.preemption() {
        return false;
    }
    state
        .matching_policies(t)
        .into_iter()
        .map(|(p, _)| p)
        .chain(state.naming_policies(t))
        .any(|p| !state.missing_overrides(p).is_empty())
}

/// Why `explain TYPE/NAME` finds no one template (a usage error).
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error(transparent)]
    Kind(#[from] kinds::ResolveError),
    #[error("{0} is a Karmada object, not a resource template: explain takes a template such as deploy/nginx")]
    NotATemplate(String),
    /// No such template (or policy); the text says where it was looked for.
    #[error("{0}")]
    NotFound(String),
    /// The policy asked for is in the inputs, but admission refuses it: no decision has it.
    #[error("{0}")]
    Refused(String),
    /// Not found in what was read, and a part left unread may hold it (the text says which):
    /// whether it exists is not known.
    #[error("{0}")]
    Unsearched(String),
    /// Several templates under different API versions (the text says which).
    #[error("{0}")]
    Ambiguous(String),
}

/// What a read of the needed documents only ([`Wanted::needs`]) gives.
pub enum Found {
    /// The state and the template: the answer does not depend on the skipped documents.
    Here(Box<State>, usize),
    /// Rare: the answer depends on the other templates too ([`reads_beyond`]); read everything.
    ReadEverything,
}

/// [`find_template`] over the needed documents; `skipped` are the documents left unparsed.
pub fn find_filtered(
    inv: &Inventory,
    skipped: &[Skipped],
    ty: &str,
    name: &str,
    namespace: &str,
    options: Options,
) -> Result<Found, FindError> {
    // Skipped documents other than PPs are templates (`Inventory::classify`); they still count
    // among the kinds TYPE resolves against.
    let extra: Vec<(String, String)> = skipped
        .iter()
        .filter(|s| !is_pp(&s.api_version, &s.kind))
        .map(|s| (group_of(&s.api_version).to_string(), s.kind.clone()))
        .collect();
    let (state, t) = find_template(inv, &extra, ty, name, namespace, options)?;
    if skipped.is_empty() || !reads_beyond(&state, t, namespace) {
        Ok(Found::Here(Box::new(state), t))
    } else {
        Ok(Found::ReadEverything)
    }
}

/// Whether TYPE names PropagationPolicy or ClusterPropagationPolicy (`pp`, `cpp`, plurals,
/// `…policy.karmada.io`): `explain` then shows the policy's view.
pub fn policy_kind(ty: &str) -> Option<PolicyKind> {
    let kind = kinds::resolve(ty, &kinds::table(&[]), &[]).ok()?;
    (kind.group == POLICY_GROUP)
        .then(|| PolicyKind::from_kind(&kind.kind))
        .flatten()
}

/// The policy `explain pp/NAME` / `cpp/NAME` names, in `namespace` for a PP; `where_` says
/// where it was looked for (`in the given files`, `on the control plane`).
pub fn find_policy(
    state: &State,
    kind: PolicyKind,
    name: &str,
    namespace: &str,
    where_: &str,
) -> Result<usize, FindError> {
    let wanted = PolicyRef::of(kind, namespace, name);
    state.find_policy(&wanted).ok_or_else(|| {
        let rejected = state.rejected.iter().find(|r| r.policy == wanted);
        policy_not_found(&wanted, where_, rejected.map(|r| r.errors.as_slice()))
    })
}

/// A policy not found `where_`; `refusal`: admission refuses it with these errors, which is
/// why (the API server does not store it, so nothing can be said of it as of a policy that
/// exists).
pub fn policy_not_found(wanted: &PolicyRef, where_: &str, refusal: Option<&[String]>) -> FindError {
    match refusal {
        Some(errors) => {
            let why = crate::util::first_and_more(errors).unwrap_or_default();
            FindError::Refused(format!(
                "{wanted} is {where_}, but admission refuses it, so the API server does not store it: {why}; `lint` reports every refusal"
            ))
        }
        None => FindError::NotFound(format!("{wanted} not found {where_}")),
    }
}

/// The error for `--delete r` naming no policy of the state: one admission refuses among
/// `rejected` is said so, with why, as `explain` says it.
pub fn delete_target_missing(rejected: &[Rejected], r: &PolicyRef, where_: &str) -> FindError {
    match rejected.iter().find(|x| x.policy == *r) {
        Some(x) => match policy_not_found(r, where_, Some(&x.errors)) {
            FindError::Refused(m) => FindError::Refused(format!("--delete {m}")),
            other => other,
        },
        None => FindError::NotFound(format!(
            "--delete {r}: no such policy {where_} (and no claim names it)"
        )),
    }
}

/// Where `--delete` targets were looked for, and why one may be in what was not read.
pub struct Searched {
    /// `in the given files`, `in the control plane`.
    pub place: &'static str,
    /// A part of the inputs left unread may hold the target: why (a document that does not
    /// parse, [`crate::model::inputs::unparsed_may_hold`]).
    pub unread: Option<String>,
}

impl Searched {
    /// Every input read.
    pub fn all(place: &'static str) -> Searched {
        Searched::new(place, None)
    }

    pub fn new(place: &'static str, unread: Option<String>) -> Searched {
        Searched { place, unread }
    }

    /// [`delete_target_missing`] here: not found while a part was left unread is not "no such
    /// policy" (exit 1, not 4, as `explain` says it).
    pub fn missing(&self, rejected: &[Rejected], r: &PolicyRef) -> FindError {
        match (delete_target_missing(rejected, r, self.place), &self.unread) {
            (FindError::NotFound(_), Some(why)) => {
                FindError::Unsearched(format!("--delete {r}: not found {}; {why}", self.place))
            }
            (e, _) => e,
        }
    }
}

impl EnvError for FindError {
    fn unsearched(self, why: &str) -> Self {
        match self {
            FindError::NotFound(m) => FindError::Unsearched(format!("{m}; {why}")),
            other => other,
        }
    }

    fn miss(&self) -> Miss {
        match self {
            FindError::Kind(kinds::ResolveError::Unknown { .. }) => Miss::UnknownKind,
            FindError::NotFound(_) | FindError::Unsearched(_) => Miss::Absent,
            FindError::Refused(_) => Miss::Refused,
            _ => Miss::Failed,
        }
    }
}

/// What `explain TYPE/NAME` renders: the decision, the template's manifest (null when it has
/// none) and where it goes.
pub struct Explained {
    pub decision: Explanation,
    pub template: J,
    pub delivery: Delivery,
}

/// The decision for template `t` from files; `chosen` are the `--clusters` names.
pub fn from_files(inv: &Inventory, state: &State, t: usize, chosen: &[String]) -> Explained {
    let decision = explain(state, t).with_required_by(dependencies::required_by(state, t));
    let manifest = |t: usize| {
        state.templates[t]
            .doc
            .and_then(|d| inv.documents.get(d))
            .map(|d| {
                delivery::stored_manifest(d.full_tree().to_json(), &state.templates[t].namespace)
            })
            .unwrap_or_default()
    };
    let template = manifest(t);
    let carried_to = carried_to(inv, state, &decision.required_by, &manifest);
    let delivery =
        delivery::from_files(inv, state, owned(&decision), &template, chosen, &carried_to);
    let mut decision = decision;
    decision.notes.extend(refused_overrides(inv, &template));
    decision.suspension = dispatch_rows(&decision, &delivery, &carried_to);
    Explained {
        decision,
        template,
        delivery,
    }
}

/// The owner's dispatch rows over the clusters the binding's Works go to: those its placement
/// sends the template to, once evaluated, and those the workloads that carry it along take it
/// to (`carried_to`), which Karmada dispatches under the binding's own suspension
/// (`ensureWork`, pkg/controllers/binding/common.go). Without an owner there is no row: the
/// attached binding suspends nothing.
fn dispatch_rows(
    decision: &Explanation,
    delivery: &Delivery,
    carried_to: &[String],
) -> Vec<super::explain::ClusterSuspension> {
    use super::explain::{dispatch_over, dispatched_also_to};
    let rows = decision.suspension.clone();
    if decision.eventual.is_none() {
        return rows;
    }
    if delivery.placement.is_none() {
        return dispatched_also_to(rows, carried_to);
    }
    let mut receiving = delivery.clusters();
    for c in carried_to {
        if !receiving.contains(c) {
            receiving.push(c.clone());
        }
    }
    dispatch_over(rows, &receiving)
}

/// The override policies of `inv` that select `template` but that admission refuses: never
/// stored, they override nothing, and the answer says so rather than leave them out unsaid.
fn refused_overrides(inv: &Inventory, template: &J) -> Vec<super::explain::Note> {
    let refused: Vec<&crate::model::OverridePolicy> = inv
        .overrides()
        .filter(|op| op.admission.refusal().is_some())
        .collect();
    super::overrides::matching_policies(&refused, template)
        .into_iter()
        .filter_map(|op| {
            Some(super::explain::Note::OverrideRejected {
                policy: op.display_id(),
                error: op.admission.refusal()?.to_string(),
            })
        })
        .collect()
}

/// Where the workloads that carry a template along go (their own deliveries, from their
/// owners' placements): their bindings' clusters are the template's attached binding's.
fn carried_to(
    inv: &Inventory,
    state: &State,
    required_by: &[dependencies::RequiredBy],
    manifest: &dyn Fn(usize) -> J,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in required_by {
        let w = &r.workload;
        let namespace = w.namespace.as_deref().unwrap_or("");
        let Some(w) = state.find_template(&w.api_version, &w.kind, namespace, &w.name) else {
            continue;
        };
        let owned = delivery::Owned {
            template: w,
            eventual: Some(&r.policy),
        };
        for c in delivery::from_files(inv, state, owned, &manifest(w), &[], &[]).clusters() {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// The decision from the live reads around the template, and the real chain (claim, binding,
/// Works) diagnosed against it. `options.unknown_claimers` is decided here from what could be
/// read. `None`: the template read did not classify as a template.
pub fn live(
    target: &TemplateReads<'_>,
    read: &TemplateRead,
    options: Options,
    chosen: &[String],
) -> Option<(Explained, Chain)> {
    let reads = &read.reads;
    let [policies, bindings, works, clusters] = target.readable(reads, read.binding.is_some());
    let readable = Readable {
        policies,
        bindings,
        works,
        clusters,
    };
    let cluster_read = find(reads, &karmada::cluster());
    let cluster_objects: Vec<Cluster> = cluster_read
        .map(|r| r.items())
        .unwrap_or(&[])
        .iter()
        .map(Cluster::from_object)
        .collect();
    let inv = Inventory::from_documents(target.documents(reads, read.binding.as_ref()), target.ns);
    let unknown_claimers = if policies {
        // Every policy read: a claim naming a missing policy is stale (§4.2).
        UnknownClaimers::Stale
    } else {
        UnknownClaimers::AssumeExisting
    };
    let state = State::from_inventory(
        &inv,
        Options {
            unknown_claimers,
            ..options
        },
    );
    let api_version = read.template["apiVersion"].as_str().unwrap_or("");
    let t = state.find_template(
        api_version,
        &target.rt.kind,
        target.template_ns(),
        target.name,
    )?;
    let decision =
        explain(&state, t).with_required_by(live_required_by(target, reads, read.binding.as_ref()));
    let chain = chain::diagnose(&ChainInput {
        state: &state,
        template: t,
        explanation: &decision,
        bindings: inv.bindings().collect(),
        works: inv.works().collect(),
        clusters: cluster_names(cluster_read),
        readable,
    });
    let delivery = delivery::from_live_binding(
        &state,
        owned(&decision),
        &read.template,
        read.binding.as_ref(),
        &inv,
        &cluster_objects,
        chosen,
    );
    let explained = Explained {
        decision,
        template: read.template.clone(),
        delivery,
    };
    Some((explained, chain))
}

/// The workloads that carry the template along, as the control plane records them: the
/// bindings its binding's `spec.requiredBy` names (the dependencies distributor's record,
/// `buildAttachedBinding`), each with its resource and the policy its annotations name
/// (`propagationpolicy.karmada.io/namespace` and `/name`, or
/// `clusterpropagationpolicy.karmada.io/name`, as the detector sets them). A binding that was
/// not read, or names no policy, is left out.
fn live_required_by(
    target: &TemplateReads<'_>,
    reads: &[crate::source::live::Read],
    binding: Option<&J>,
) -> Vec<dependencies::RequiredBy> {
    let Some(binding) = binding else {
        return Vec::new();
    };
    let bindings = find(reads, &target.binding_kind()).map_or(&[][..], |r| r.items());
    let required = binding["spec"]["requiredBy"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    required
        .iter()
        .filter_map(|snapshot| {
            let by = bindings.iter().find(|b| {
                b["metadata"]["name"] == snapshot["name"]
                    && b["metadata"]["namespace"].as_str().unwrap_or("")
                        == snapshot["namespace"].as_str().unwrap_or("")
            })?;
            let resource = &by["spec"]["resource"];
            let text = |v: &J| v.as_str().map(str::to_string);
            let annotations = &by["metadata"]["annotations"];
            let policy = match (
                annotations[crate::engine::claim::PP_NAMESPACE_ANNOTATION].as_str(),
                annotations[crate::engine::claim::PP_NAME_ANNOTATION].as_str(),
                annotations[crate::engine::claim::CPP_NAME_ANNOTATION].as_str(),
            ) {
                (Some(ns), Some(name), _) => PolicyRef::pp(ns, name),
                (_, _, Some(name)) => PolicyRef::cpp(name),
                _ => return None,
            };
            Some(dependencies::RequiredBy {
                workload: crate::model::ObjectRef {
                    api_version: text(&resource["apiVersion"])?,
                    kind: text(&resource["kind"])?,
                    namespace: text(&resource["namespace"]).filter(|n| !n.is_empty()),
                    name: text(&resource["name"])?,
                },
                policy,
            })
        })
        .collect()
}

/// Resolves TYPE (against the templates of `inv` and `extra` kinds), builds the state and
/// finds the one template `name` in `namespace`.
pub fn find_template(
    inv: &Inventory,
    extra: &[(String, String)],
    ty: &str,
    name: &str,
    namespace: &str,
    options: Options,
) -> Result<(State, usize), FindError> {
    let mut seen = kinds::seen_kinds(inv);
    if !extra.is_empty() {
        seen.extend(extra.iter().cloned());
        seen.sort();
        seen.dedup();
    }
    let kind = kinds::resolve(ty, &kinds::table(&seen), &seen)?;
    if kind.is_karmada() {
        return Err(FindError::NotATemplate(kind.display()));
    }
    let state = State::from_inventory(inv, options);
    let found: Vec<usize> = state
        .templates
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            group_of(&t.api_version) == kind.group
                && *t.kind == kind.kind
                && &*t.name == name
                && (t.namespace.is_empty() || &*t.namespace == namespace)
        })
        .map(|(i, _)| i)
        .collect();
    match found.as_slice() {
        [] => {
            // The same kind and name elsewhere: most often the namespace was not given.
            let mut elsewhere: Vec<&str> = state
                .templates
                .iter()
                .filter(|t| group_of(&t.api_version) == kind.group && *t.kind == kind.kind)
                .filter(|t| &*t.name == name && !t.namespace.is_empty())
                .map(|t| &*t.namespace)
                .collect();
            elsewhere.sort_unstable();
            elsewhere.dedup();
            let hint = match elsewhere.as_slice() {
                [] => others_named(&state, &kind, namespace),
                [ns] => format!("; it is in namespace {ns}: add `-n {ns}`"),
                many => format!(
                    "; it is in namespaces {}: add `-n NAMESPACE`",
                    many.join(", ")
                ),
            };
            // A cluster-scoped kind (a Namespace, a ClusterRole) has no namespace to name.
            let group_version = format!("{}/v1", kind.group);
            let place = if crate::kube::scope::is_namespaced(&group_version, &kind.kind) {
                format!("in namespace {namespace} of")
            } else {
                "in".to_string()
            };
            Err(FindError::NotFound(format!(
                "{} {name:?} not found {place} the given files{hint}",
                kind.display(),
            )))
        }
        [one] => Ok((state, *one)),
        many => {
            let versions: Vec<&str> = many
                .iter()
                .map(|&i| &*state.templates[i].api_version)
                .collect();
            Err(FindError::Ambiguous(format!(
                "{} {name:?} appears under several API versions ({}); they are different templates to Karmada",
                kind.display(),
                versions.join(", ")
            )))
        }
    }
}

/// When nothing of the kind is named so anywhere: the names the kind has in `namespace`, so a
/// name written from memory (a typo, or a chart's release name other than the one it was
/// rendered with: helm's default `release-name-web` for `chart-web`) meets the right one.
/// Empty when there is none.
fn others_named(state: &State, kind: &kinds::KindInfo, namespace: &str) -> String {
    const SHOWN: usize = 5;
    let mut names: Vec<&str> = state
        .templates
        .iter()
        .filter(|t| group_of(&t.api_version) == kind.group && *t.kind == kind.kind)
        .filter(|t| t.namespace.is_empty() || &*t.namespace == namespace)
        .map(|t| &*t.name)
        .collect();
    names.sort_unstable();
    names.dedup();
    match names.len() {
        0 => String::new(),
        n if n <= SHOWN => format!("; {} there: {}", kind.display(), names.join(", ")),
        n => format!(
            "; {} there: {} and {} more",
            kind.display(),
            names[..SHOWN].join(", "),
            n - SHOWN
        ),
    }
}

/// What delivery reads of an explanation.
fn owned(e: &crate::engine::explain::Explanation) -> delivery::Owned<'_> {
    delivery::Owned {
        template: e.template,
        eventual: e.eventual.as_ref(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_needs_its_namespace_policies_karmada_objects_and_its_name() {
        let w = Wanted {
            name: "nginx",
            namespace: "web",
        };
        let pp = "policy.karmada.io/v1alpha1";
        assert!(w.needs(pp, "PropagationPolicy", Some("web"), Some("any")));
        assert!(!w.needs(pp, "PropagationPolicy", Some("db"), Some("any")));
        assert!(w.needs(pp, "PropagationPolicy", None, Some("any")));
        assert!(w.needs(pp, "ClusterPropagationPolicy", None, Some("any")));
        assert!(w.needs("work.karmada.io/v1alpha1", "Work", Some("x"), Some("w")));
        assert!(w.needs("apps/v1", "Deployment", Some("db"), Some("nginx")));
        assert!(!w.needs("apps/v1", "Deployment", Some("web"), Some("other")));
        assert!(w.needs("apps/v1", "Deployment", Some("web"), None));
    }
}
