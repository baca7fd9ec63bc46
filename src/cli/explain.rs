//! `explain TYPE/NAME`: every candidate policy for one template, and its owner now and later.

use clap::Args as ClapArgs;

use super::args::{EngineSettings, KubeFlags};
use super::common::{read_inputs, seen_kinds, stdout_color, warn_problems, write_stdout, Inputs};
use super::error::{CliError, Exit};
use crate::engine::claim::Filters;
use crate::engine::state::{Options, State, UnknownClaimers};
use crate::kube::kinds;
use crate::model::{group_of, Inventory, PolicyKind, POLICY_GROUP};
use crate::source::prefilter::DocHead;

pub const EXAMPLES: &str = "\
Examples:
  # Which policy claims deploy/nginx in these manifests, and why
  kubectl karmada-policy explain deploy/nginx -n web -f manifests/
  # The same against the control plane of the current kubeconfig context
  kubectl karmada-policy explain deploy/nginx -n web
  # As JSON, or the candidates as a graph
  kubectl karmada-policy explain cm/settings -f manifests/ -o json
  kubectl karmada-policy explain deploy/nginx -f manifests/ --graph mermaid";

pub const AFTER_HELP: &str = "\
Exit codes:
  0  success
  2  usage error, unreadable input or an unknown template
  3  API or authentication failure (live mode)";

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The template, as kubectl takes it: `deploy/nginx`, `deployment.apps/nginx`, `cm/x`.
    ///
    /// Reports `current` (the claim in the template's metadata, null for git manifests),
    /// `afterReconcile` (after the template's next reconcile: a valid claim is kept, never
    /// re-ranked) and `eventual` (once every policy is processed again, as after a controller
    /// restart, preemption included).
    pub resource: String,
    /// Manifests holding the policies and templates (files, directories, `-`). Without `-f`,
    /// the live control plane is read (kubeconfig) and the real chain is traced too: claim,
    /// binding, Works and a diagnosis where they disagree with the policy.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<String>,
    /// Namespace of the template (and of objects in the files that set none). Default: `default`
    /// with -f, the kubeconfig context's namespace in live mode.
    #[arg(short = 'n', long = "namespace")]
    pub namespace: Option<String>,
    /// Karmada controller feature gates, e.g. `PropagationPolicyPreemption=true` (off by default).
    #[arg(long = "feature-gates", value_name = "GATE=BOOL,...")]
    pub feature_gates: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", default_value = "text", value_parser = ["text", "json"], value_name = "FORMAT")]
    pub output: String,
    /// The Karmada release whose rules apply (default: the newest known).
    #[arg(long = "karmada-version", value_name = "VERSION")]
    pub karmada_version: Option<String>,
    /// Print the claim graph (policies → template → clusters, suspended edges marked) as
    /// Graphviz dot or Mermaid instead of the trace. Live mode draws the binding's clusters and
    /// each Work's real dispatch state; with -f, the policy's suspension.
    #[arg(long = "graph", value_name = "FORMAT", value_parser = ["dot", "mermaid"])]
    pub graph: Option<String>,
    /// Member cluster(s) whose manifest to compute (repeatable): the `overrides` section applies
    /// the OverridePolicies and ClusterOverridePolicies for each. Default: the binding's
    /// clusters live, the clusters the placement selects with -f.
    #[arg(long = "cluster", value_name = "NAME")]
    pub clusters: Vec<String>,
    #[command(flatten)]
    pub kube: KubeFlags,
}

/// Whether `explain` of the template named `name` in `namespace` needs a document: the
/// PropagationPolicies of that namespace, every other Karmada object (CPPs, overrides,
/// bindings, Works) and whatever may be the template itself or share its name (to report
/// ambiguity). Other templates never change one template's decision, except through
/// [`needs_other_templates`]; a PP selects only templates of its own namespace
/// (claim-and-preemption.md §1.3, `detector.go:388-391`), and is otherwise looked up only as the holder of the
/// template's claim ([`claim_elsewhere`]).
fn needed_for(head: &DocHead<'_>, name: &str, namespace: &str) -> bool {
    let group = group_of(head.api_version);
    if is_pp(head) {
        return head.namespace.is_none_or(|ns| ns == namespace);
    }
    group.ends_with("karmada.io") || head.name.is_none_or(|n| n == name)
}

fn is_pp(head: &DocHead<'_>) -> bool {
    group_of(head.api_version) == POLICY_GROUP && head.kind == "PropagationPolicy"
}

/// Whether the template's claim names a PropagationPolicy of another namespace (a stale or
/// hand-written claim): whether it exists decides the answer, and it was not read.
fn claim_elsewhere(state: &State, t: usize, namespace: &str) -> bool {
    state.templates[t].claim().owner().is_some_and(|o| {
        o.kind == PolicyKind::PropagationPolicy && o.namespace.as_deref() != Some(namespace)
    })
}

/// Whether the decision for template `t` looks at other templates: a candidate or preemptor
/// whose dependent overrides are missing waits only while some unclaimed template it matches
/// exists (§6.5, `engine::reconcile::overrides_block_preemption`), and only with the
/// preemption gate on (settle and `why_not` ask only then).
fn needs_other_templates(state: &State, t: usize) -> bool {
    if !state.options.gates.preemption {
        return false;
    }
    state
        .matching_policies(t)
        .into_iter()
        .map(|(p, _)| p)
        .chain(state.naming_policies(t))
        .any(|p| !state.missing_overrides(p).is_empty())
}

/// Resolves TYPE (against the templates of `inv` and `extra` kinds), builds the state and
/// finds the one template `name` in `namespace`.
fn find_template(
    inv: &Inventory,
    extra: &[(String, String)],
    ty: &str,
    name: &str,
    namespace: &str,
    options: Options,
) -> Result<(State, usize), CliError> {
    let mut seen = seen_kinds(inv);
    if !extra.is_empty() {
        seen.extend(extra.iter().cloned());
        seen.sort();
        seen.dedup();
    }
    let kind = kinds::resolve(ty, &kinds::table(&seen), &seen)
        .map_err(|e| CliError::usage(e.to_string()))?;
    if kind.is_karmada() {
        return Err(CliError::usage(format!(
            "{} is a Karmada object, not a resource template: explain takes a template such as deploy/nginx",
            kind.display()
        )));
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
        [] => Err(CliError::usage(format!(
            "{} {name:?} not found in namespace {} of the given files",
            kind.display(),
            namespace
        ))),
        [one] => Ok((state, *one)),
        many => {
            let versions: Vec<&str> = many
                .iter()
                .map(|&i| &*state.templates[i].api_version)
                .collect();
            Err(CliError::usage(format!(
                "{} {name:?} appears under several API versions ({}); they are different templates to Karmada",
                kind.display(),
                versions.join(", ")
            )))
        }
    }
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    let engine = EngineSettings::from_flags(
        args.feature_gates.as_deref(),
        args.karmada_version.as_deref(),
    )?;
    let Some((ty, name)) = args.resource.split_once('/') else {
        return Err(CliError::usage(format!(
            "expected TYPE/NAME such as deploy/nginx, got {:?}",
            args.resource
        )));
    };
    if ty.is_empty() || name.is_empty() || name.contains('/') {
        return Err(CliError::usage(format!(
            "expected TYPE/NAME such as deploy/nginx, got {:?}",
            args.resource
        )));
    }
    if let Some(kind) = policy_kind(ty) {
        return explain_policy(&args, kind, name, engine);
    }
    if args.files.is_empty() {
        return super::live::explain(&super::live::ExplainRequest {
            kube: &args.kube,
            ty,
            name,
            namespace: args.namespace.as_deref(),
            graph: args.graph.as_deref(),
            output: &args.output,
            engine,
            clusters: &args.clusters,
        });
    }
    let namespace = args.namespace.as_deref().unwrap_or("default");
    let options = Options {
        gates: engine.gates,
        filters: Filters::default(),
        version: engine.version,
        unknown_claimers: UnknownClaimers::Stale,
    };
    // Only the Karmada objects (PPs of the template's namespace) and the documents named like
    // the template are parsed (issue 8: a large repository is mostly other templates); the
    // skipped templates still count among the kinds TYPE resolves against. Stdin cannot be
    // read twice for the fallback below, so it is read whole.
    let from_stdin = args.files.iter().any(|f| f == "-");
    let keep = |h: &DocHead<'_>| from_stdin || needed_for(h, name, namespace);
    let (inputs, skipped) = Inputs::read_filtered(&args.files, namespace, &|_| false, &keep)?;
    // Skipped documents other than PPs are templates (`Inventory::classify`).
    let extra: Vec<(String, String)> = skipped
        .iter()
        .filter(|s| !(group_of(&s.api_version) == POLICY_GROUP && s.kind == "PropagationPolicy"))
        .map(|s| (group_of(&s.api_version).to_string(), s.kind.clone()))
        .collect();
    let found = find_template(
        &inputs.inventory,
        &extra,
        ty,
        name,
        namespace,
        options.clone(),
    );
    let fallback: Inventory;
    let (inv, state, t) = match found {
        Ok((state, t))
            if skipped.is_empty()
                || !(needs_other_templates(&state, t) || claim_elsewhere(&state, t, namespace)) =>
        {
            warn_problems(&inputs.loaded);
            (&inputs.inventory, state, t)
        }
        Err(e) => {
            warn_problems(&inputs.loaded);
            return Err(e);
        }
        Ok(_) => {
            // Rare: the answer depends on the other templates too; read everything.
            fallback = read_inputs(&args.files, namespace)?;
            let (state, t) = find_template(&fallback, &[], ty, name, namespace, options)?;
            (&fallback, state, t)
        }
    };
    let decision = crate::engine::explain::explain(&state, t);
    let template = state.templates[t]
        .doc
        .and_then(|d| inv.documents.get(d))
        .map(|d| d.full_tree().to_json())
        .unwrap_or_default();
    let delivery = file_delivery(inv, &state, &decision, &template, &args.clusters);
    let graph = args
        .graph
        .as_deref()
        .map(|_| crate::output::graph::from_explain(&decision, None));
    let out = match (graph, args.output.as_str()) {
        (Some(g), _) if args.graph.as_deref() == Some("mermaid") => {
            crate::output::graph::mermaid(&g)
        }
        (Some(g), _) => crate::output::graph::dot(&g),
        (None, "json") => {
            let mut v = crate::output::explain::to_json(&decision);
            crate::output::delivery::add_json(&mut v, &delivery);
            let mut out = serde_json::to_string_pretty(&v).expect("serializable");
            out.push('\n');
            out
        }
        _ => {
            let mut out = crate::output::explain::text(&decision, stdout_color());
            out.push_str(&crate::output::delivery::text(&template, &delivery));
            out
        }
    };
    write_stdout(&out)?;
    Ok(Exit::Ok)
}

/// Placement and overrides from the files: the eventual owner's placement over the Cluster
/// objects of the inputs, and the override chain for the chosen or selected clusters.
fn file_delivery(
    inv: &Inventory,
    state: &State,
    decision: &crate::engine::explain::Explanation,
    template: &serde_json::Value,
    chosen: &[String],
) -> crate::engine::delivery::Delivery {
    let clusters = crate::model::cluster::Cluster::from_inventory(inv);
    let overrides: Vec<&crate::model::OverridePolicy> = inv.overrides().collect();
    let placement = decision
        .eventual
        .as_ref()
        .and_then(|o| state.find_policy(o))
        .and_then(|p| state.policy(p).spec.placement.as_ref());
    let tpl = &state.templates[decision.template];
    crate::engine::delivery::deliver(&crate::engine::delivery::DeliveryInput {
        template,
        placement,
        clusters: &clusters,
        overrides: &overrides,
        binding: crate::engine::placement::BindingView {
            api_version: &tpl.api_version,
            kind: &tpl.kind,
            workload: crate::engine::delivery::is_workload(template),
            ..Default::default()
        },
        bound: None,
        chosen,
    })
}

/// Whether TYPE names PropagationPolicy or ClusterPropagationPolicy (`pp`, `cpp`, plurals,
/// `…policy.karmada.io`).
fn policy_kind(ty: &str) -> Option<PolicyKind> {
    let kind = kinds::resolve(ty, &kinds::table(&[]), &[]).ok()?;
    (kind.group == POLICY_GROUP)
        .then(|| PolicyKind::from_kind(&kind.kind))
        .flatten()
}

/// `explain pp/NAME` / `cpp/NAME` from files: every selected template with its standing, the
/// filtered ones, counts, and the placement once for the policy.
fn explain_policy(
    args: &Args,
    kind: PolicyKind,
    name: &str,
    engine: EngineSettings,
) -> Result<Exit, CliError> {
    if args.files.is_empty() {
        return Err(CliError::usage(
            "explain pp/NAME and cpp/NAME read manifests: pass -f (the live form is not available yet)",
        ));
    }
    let namespace = args.namespace.as_deref().unwrap_or("default");
    let inv = read_inputs(&args.files, namespace)?;
    let options = Options {
        gates: engine.gates,
        filters: Filters::default(),
        version: engine.version,
        unknown_claimers: UnknownClaimers::Stale,
    };
    let state = State::from_inventory(&inv, options);
    let wanted = match kind {
        PolicyKind::PropagationPolicy => crate::model::PolicyRef::pp(namespace, name),
        PolicyKind::ClusterPropagationPolicy => crate::model::PolicyRef::cpp(name),
    };
    let Some(p) = state.find_policy(&wanted) else {
        return Err(CliError::usage(format!(
            "{wanted} not found in the given files{}",
            if state.rejected.iter().any(|r| r.policy == wanted) {
                " (admission rejects it: run lint)"
            } else {
                ""
            }
        )));
    };
    let e = crate::engine::policy_view::explain_policy(&state, p);
    let clusters = crate::model::cluster::Cluster::from_inventory(&inv);
    let placement = match &state.policy(p).spec.placement {
        Some(pl) if !clusters.is_empty() => {
            // APIEnablement is checked against the first selector's kind.
            let rs = state.policy(p).spec.resource_selectors.first();
            let view = crate::engine::placement::BindingView {
                api_version: rs.map_or("", |r| r.api_version.as_str()),
                kind: rs.map_or("", |r| r.kind.as_str()),
                ..Default::default()
            };
            Some(crate::engine::placement::evaluate(pl, &clusters, &view))
        }
        _ => None,
    };
    let out = match (args.graph.as_deref(), args.output.as_str()) {
        (Some(g), _) => {
            let mut graph = None;
            for s in &e.templates {
                let g = crate::output::graph::from_explain(&s.decision, None);
                graph = Some(match graph {
                    None => g,
                    Some(mut acc) => {
                        crate::output::graph::merge(&mut acc, g);
                        acc
                    }
                });
            }
            let graph = graph.unwrap_or_default();
            if g == "mermaid" {
                crate::output::graph::mermaid(&graph)
            } else {
                crate::output::graph::dot(&graph)
            }
        }
        (None, "json") => {
            let mut v = crate::output::policy_view::to_json(&e);
            if let Some(pl) = &placement {
                v["placement"] = crate::output::delivery::placement_json(pl);
            }
            let mut out = serde_json::to_string_pretty(&v).expect("serializable");
            out.push('\n');
            out
        }
        _ => {
            let mut out = crate::output::policy_view::text(&e);
            if let Some(pl) = &placement {
                out.push_str(&crate::output::delivery::placement_text(pl));
            }
            out
        }
    };
    write_stdout(&out)?;
    Ok(Exit::Ok)
}
