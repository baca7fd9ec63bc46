//! `explain`'s reads: the template from manifests (only the documents its decision needs are
//! parsed, issue 8), and a policy from the control plane with the Works of the bindings it
//! holds. The decisions are the engine's (`engine::explain_inputs`, `engine::policy_view`,
//! `engine::policy_live`).

use super::{Environments, InspectError};
use crate::context::Context;
use crate::engine::admission::documents::admit_documents;
use crate::engine::chain::Chain;
use crate::engine::explain_inputs::{self, Explained, FindError, Found, Wanted};
use crate::engine::placement;
use crate::engine::policy_live::{self, PolicyLive};
use crate::engine::policy_view::{self, PolicyExplanation, PolicyPlacement};
use crate::engine::state::{Options, State, TemplateEntry, UnknownClaimers};
use crate::kube::kinds::ResolveError;
use crate::model::environments::{EnvError, Found as EnvFound};
use crate::model::inputs::{warn_problems, Inputs};
use crate::model::{Inventory, PolicyKind};
use crate::source::policy_reads::PolicyReads;
use crate::source::prefilter::DocHead;
use crate::source::session::{Session, TemplateReads};

/// The template found in manifests, with what its decision reads.
pub struct TemplateInFiles {
    pub inventory: Inventory,
    pub state: State,
    /// The template's index in the state.
    pub template: usize,
}

/// `explain -f TYPE/NAME` over plain manifests. Only the Karmada objects (PPs of the
/// template's namespace) and the documents named like the template are parsed; when the
/// decision needs more (a selector reaching further), everything is read again. Stdin cannot
/// be read twice for that fallback, so it is read whole. Problems in the inputs are warned of.
pub fn template_in_files(
    files: &[String],
    (ty, name): (&str, &str),
    context: &Context,
    options: Options,
) -> Result<TemplateInFiles, InspectError> {
    let namespace = context.files_namespace();
    let from_stdin = files.iter().any(|f| f == "-");
    let wanted = Wanted { name, namespace };
    let keep =
        |h: &DocHead<'_>| from_stdin || wanted.needs(h.api_version, h.kind, h.namespace, h.name);
    let (mut inputs, skipped) = Inputs::read_filtered(files, namespace, &context.config, &keep)?;
    admit_documents(&mut inputs.inventory, context.release());
    let found = explain_inputs::find_filtered(
        &inputs.inventory,
        &skipped,
        ty,
        name,
        namespace,
        options.clone(),
    );
    // Not among the documents read: read them all, so the error can name what is there (the
    // templates of the kind in the namespace; a typo, or another release name).
    let found = match found {
        Err(FindError::NotFound(_)) if !skipped.is_empty() => Ok(Found::ReadEverything),
        found => found,
    };
    if !matches!(found, Ok(Found::ReadEverything)) {
        warn_problems(&inputs.loaded);
    }
    // Not found while a document does not parse: the template may be that document, so the
    // error says so (exit 1), as for a policy, not that the template does not exist.
    let unsearched = |e: FindError, inputs: &Inputs| match inputs.unread() {
        Some(why) => e.unsearched(&why),
        None => e,
    };
    match found.map_err(|e| unsearched(e, &inputs))? {
        Found::Here(state, template) => Ok(TemplateInFiles {
            inventory: inputs.inventory,
            state: *state,
            template,
        }),
        Found::ReadEverything => {
            let all = super::read_admitted(files, context)?;
            let (state, template) =
                explain_inputs::find_template(&all.inventory, &[], ty, name, namespace, options)
                    .map_err(|e| unsearched(e, &all))?;
            Ok(TemplateInFiles {
                inventory: all.inventory,
                state,
                template,
            })
        }
    }
}

/// `explain -f TYPE/NAME` over a GitOps repository: the template's state in each Karmada
/// environment that holds it. When none does, but an environment that is not a Karmada API
/// server does (Argo CD's `in-cluster`), the error says so instead of "not found": exit 4 still,
/// as for a template Karmada does not hold (no Karmada control plane has it).
pub fn template_in_environments<'a>(
    envs: &'a Environments,
    (ty, name): (&str, &str),
    namespace: &str,
) -> Result<EnvFound<'a, (State, usize)>, FindError> {
    let find = |inv: &Inventory, context: &Context| {
        let options = context.engine_options(UnknownClaimers::Stale);
        explain_inputs::find_template(inv, &[], ty, name, namespace, options)
    };
    let found = envs.holding(|e, context| find(&e.inventory, context));
    match &found {
        Ok(f) if f.is_empty() => {}
        // No Karmada environment holds the type either: one that is not Karmada's may.
        Err(
            FindError::NotFound(_)
            | FindError::Unsearched(_)
            | FindError::Kind(ResolveError::Unknown { .. }),
        ) => {}
        _ => return found,
    }
    let (outside, context) = envs.outside_karmada();
    let mut what = None;
    let holding: Vec<String> = outside
        .iter()
        .filter_map(|e| {
            let (state, t) = find(&e.inventory, context).ok()?;
            what.get_or_insert_with(|| template_label(&state.templates[t]));
            Some(e.name.clone())
        })
        .collect();
    let Some(what) = what else {
        return found;
    };
    let which = super::outside_karmada_names(&holding);
    match found {
        // A Karmada environment that did not render completely may hold it too.
        Err(FindError::Unsearched(m)) => Err(FindError::Unsearched(format!(
            "{m}; {what} is in {which} (lint does not lint it)"
        ))),
        _ => Err(FindError::NotFound(format!(
            "{what} is only in {which} (lint does not lint it): nothing to explain there"
        ))),
    }
}

/// `Deployment web/web`, `Namespace web`: a template as explain's header names it.
fn template_label(t: &TemplateEntry) -> String {
    match &*t.namespace {
        "" => format!("{} {}", t.kind, t.name),
        ns => format!("{} {ns}/{}", t.kind, t.name),
    }
}

/// `explain -f pp/NAME` in one inventory (the files, or an environment of them): the view of
/// the policy and its placement over the inventory's Clusters.
pub fn policy_in_files(
    inv: &Inventory,
    (kind, name): (PolicyKind, &str),
    namespace: &str,
    context: &Context,
) -> Result<(PolicyExplanation, Option<PolicyPlacement>), InspectError> {
    let state = State::from_inventory(inv, context.engine_options(UnknownClaimers::Stale));
    let p = explain_inputs::find_policy(&state, kind, name, namespace, "in the given files")?;
    let mut view = policy_view::explain_policy(&state, p);
    let spec_placement = state.policy(p).spec.scheduled_placement();
    // Without Cluster objects, a placement its names decide (the filter stage: a policy has no
    // replicas to divide) is evaluated over them, as explain TYPE/NAME and plan do.
    let (clusters, by_names) = crate::engine::delivery::or_named(
        crate::model::cluster::Cluster::from_inventory(inv),
        (Some(spec_placement), &state.options.known_clusters),
        |p| placement::decided_by_names(p, false),
    );
    view.unplaced =
        placement::unevaluated(spec_placement, &clusters).map(|u| placement::Unevaluated {
            known_by_name: state.options.known_clusters.clone(),
            ..u
        });
    let mut evaluated = policy_view::placement(&state, p, &clusters);
    if let Some(e) = evaluated.as_mut().filter(|_| by_names) {
        e.by_names = true;
        for (_, r) in &mut e.by_kind {
            r.unreported.clear();
        }
    }
    Ok((view, evaluated))
}

/// `explain -f pp/NAME` over plain manifests ([`policy_in_files`]). Not found while a
/// document of the files does not parse, the policy may be that document: the error says so
/// (exit 1, as `suspend -f` says it), not that the policy does not exist.
pub fn policy_in_manifests(
    files: &[String],
    (kind, name): (PolicyKind, &str),
    context: &Context,
) -> Result<(PolicyExplanation, Option<PolicyPlacement>), InspectError> {
    let inputs = super::read_admitted(files, context)?;
    let found = policy_in_files(
        &inputs.inventory,
        (kind, name),
        context.files_namespace(),
        context,
    );
    match (found, inputs.unread()) {
        (Err(InspectError::Find(e)), Some(why)) => Err(InspectError::Find(e.unsearched(&why))),
        (found, _) => found,
    }
}

/// A policy on the control plane: its view, its placement and the live chain of the
/// templates it holds.
pub struct LivePolicy {
    pub view: PolicyExplanation,
    pub placement: Option<PolicyPlacement>,
    pub live: PolicyLive,
}

/// `explain pp/NAME` against the control plane: the reads around the policy
/// ([`PolicyReads`]), its view, then the Works of the bindings it holds (by their ids, one
/// list per 50).
pub fn policy_live(
    s: &mut Session,
    (kind, name): (PolicyKind, &str),
    namespace: &str,
    context: &Context,
) -> Result<LivePolicy, InspectError> {
    let target = PolicyReads {
        name,
        namespace: (kind == PolicyKind::PropagationPolicy).then_some(namespace),
    };
    let mut reads = target.read(s, crate::model::kinds::selected_kinds_of)?;
    let inv = Inventory::from_documents(target.documents(&reads), namespace);
    let unknown = UnknownClaimers::when_policies_read(target.readable(&reads).policies);
    let state = State::from_inventory(&inv, context.engine_options(unknown));
    let p = explain_inputs::find_policy(&state, kind, name, namespace, "on the control plane")?;
    let view = policy_view::explain_policy(&state, p);
    let held = policy_live::held_binding_ids(&state, &view, &inv);
    reads.extend(s.read(target.works_requests(held))?);
    let (live, placement) = policy_live::from_reads(&state, p, &view, &inv, &target, &reads);
    Ok(LivePolicy {
        view,
        placement,
        live,
    })
}

/// `explain TYPE/NAME` against the control plane: the template, then what its decision and
/// chain read ([`TemplateReads`]), then the same engine as with manifests. With `warn_notes`
/// the session's notes go to stderr once read (the text report shows them itself).
pub fn template_live(
    s: &mut Session,
    (ty, name): (&str, &str),
    namespace: Option<&str>,
    options: Options,
    (clusters, warn_notes): (&[String], bool),
) -> Result<(Explained, Chain), InspectError> {
    let rt = s.template_type(ty)?;
    let context_ns = s.namespace().to_string();
    let target = TemplateReads {
        name,
        ns: namespace.unwrap_or(&context_ns),
        rt,
    };
    let read = s.read_template(&target)?;
    if warn_notes {
        s.warn_notes();
    }
    explain_inputs::live(&target, &read, options, clusters).ok_or(InspectError::NotATemplate)
}

/// `-n` places the documents that set no namespace in its namespace, as `kubectl apply -f FILE
/// -n NS` does. A PropagationPolicy so placed among the template's candidates is named, for a
/// `note:`: applied without `-n` it would be in `default` and select nothing in the template's
/// namespace, and `explain cpp/...` (no `-n`) sees the files that way.
pub fn placed_by_flag(
    found: &TemplateInFiles,
    explained: &Explained,
    context: &Context,
) -> Vec<String> {
    let Some(ns) = context.namespace.as_deref().filter(|ns| *ns != "default") else {
        return Vec::new();
    };
    let path = crate::source::FieldPath::parse("metadata.namespace");
    explained
        .decision
        .candidates
        .iter()
        .filter(|c| c.policy.kind == PolicyKind::PropagationPolicy)
        .filter_map(|c| {
            let doc = found
                .state
                .find_policy(&c.policy)
                .and_then(|p| found.state.policy(p).doc)
                .and_then(|d| found.inventory.documents.get(d))
                .filter(|d| d.tree_for(&path).at(&path).is_none())
                // The configuration's `namespaces:` places the file's documents, not `-n`.
                .filter(|d| {
                    let file = std::path::Path::new(&d.source.name);
                    context.config.namespace_for(file).is_none()
                })?;
            Some(format!(
                "{} sets no namespace ({}): -n {ns} places it in {ns}, as kubectl apply -n does; applied without -n it is in default",
                c.policy,
                doc.label()
            ))
        })
        .collect()
}
