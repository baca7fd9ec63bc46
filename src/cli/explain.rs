//! `explain TYPE/NAME`: every candidate policy for one template, and its owner now and later.

use clap::Args as ClapArgs;

use super::args::{EngineSettings, KubeFlags};
use super::common::{read_inputs, stdout_color, warn_problems, write_stdout, Inputs};
use super::error::{CliError, Exit};
use crate::engine::chain::{self, ChainInput, Readable};
use crate::engine::claim::Filters;
use crate::engine::explain_inputs::{self, Wanted};
use crate::engine::state::{Options, State, UnknownClaimers};
use crate::engine::{policy_live, policy_view};
use crate::model::cluster::Cluster;
use crate::model::{group_of, kinds, Inventory, PolicyKind, Work, POLICY_GROUP};
use crate::output::format::{
    render_explain, render_policy_view, Delivered, ExplainFormat, LiveChain, PolicyLiveChain,
};
use crate::source::live::{karmada, Read};
use crate::source::policy_reads::PolicyReads;
use crate::source::prefilter::DocHead;
use crate::source::session::{cluster_names, find, Session, TemplateReads};

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
        return explain_live(&args, ty, name, engine);
    }
    explain_files(&args, ty, name, engine)
}

/// `explain -f`: the decision from manifests.
fn explain_files(
    args: &Args,
    ty: &str,
    name: &str,
    engine: EngineSettings,
) -> Result<Exit, CliError> {
    let namespace = args.namespace.as_deref().unwrap_or("default");
    let options = options(engine, UnknownClaimers::Stale);
    // Only the Karmada objects (PPs of the template's namespace) and the documents named like
    // the template are parsed (issue 8: a large repository is mostly other templates); the
    // skipped templates still count among the kinds TYPE resolves against. Stdin cannot be
    // read twice for the fallback below, so it is read whole.
    let from_stdin = args.files.iter().any(|f| f == "-");
    let wanted = Wanted { name, namespace };
    let keep =
        |h: &DocHead<'_>| from_stdin || wanted.needs(h.api_version, h.kind, h.namespace, h.name);
    let (inputs, skipped) = Inputs::read_filtered(&args.files, namespace, &|_| false, &keep)?;
    // Skipped documents other than PPs are templates (`Inventory::classify`).
    let extra: Vec<(String, String)> = skipped
        .iter()
        .filter(|s| !explain_inputs::is_pp(&s.api_version, &s.kind))
        .map(|s| (group_of(&s.api_version).to_string(), s.kind.clone()))
        .collect();
    let found = explain_inputs::find_template(
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
            if skipped.is_empty() || !explain_inputs::reads_beyond(&state, t, namespace) =>
        {
            warn_problems(&inputs.loaded);
            (&inputs.inventory, state, t)
        }
        Err(e) => {
            warn_problems(&inputs.loaded);
            return Err(e.into());
        }
        Ok(_) => {
            // Rare: the answer depends on the other templates too; read everything.
            fallback = read_inputs(&args.files, namespace)?;
            let (state, t) =
                explain_inputs::find_template(&fallback, &[], ty, name, namespace, options)?;
            (&fallback, state, t)
        }
    };
    let decision = crate::engine::explain::explain(&state, t);
    let template = state.templates[t]
        .doc
        .and_then(|d| inv.documents.get(d))
        .map(|d| d.full_tree().to_json())
        .unwrap_or_default();
    let delivery =
        crate::engine::delivery::from_files(inv, &state, &decision, &template, &args.clusters);
    let delivered = Delivered {
        template: &template,
        delivery: &delivery,
    };
    let format = ExplainFormat::from_flags(&args.output, args.graph.as_deref());
    let out = render_explain(format, &decision, None, &delivered, stdout_color());
    write_stdout(&out)?;
    Ok(Exit::Ok)
}

/// Whether TYPE names PropagationPolicy or ClusterPropagationPolicy (`pp`, `cpp`, plurals,
/// `…policy.karmada.io`).
fn policy_kind(ty: &str) -> Option<PolicyKind> {
    let kind = kinds::resolve(ty, &kinds::table(&[]), &[]).ok()?;
    (kind.group == POLICY_GROUP)
        .then(|| PolicyKind::from_kind(&kind.kind))
        .flatten()
}

/// `explain pp/NAME` / `cpp/NAME`: every selected template with its standing, the filtered
/// ones, counts, and the placement once for the policy; live, the held templates' chains.
fn explain_policy(
    args: &Args,
    kind: PolicyKind,
    name: &str,
    engine: EngineSettings,
) -> Result<Exit, CliError> {
    if args.files.is_empty() {
        return explain_policy_live(args, kind, name, engine);
    }
    let namespace = args.namespace.as_deref().unwrap_or("default");
    let inv = read_inputs(&args.files, namespace)?;
    let state = State::from_inventory(&inv, options(engine, UnknownClaimers::Stale));
    let p = policy_view::find(&state, kind, namespace, name, "in the given files")?;
    let e = policy_view::explain_policy(&state, p);
    let clusters = Cluster::from_inventory(&inv);
    let placement = policy_view::placement(&state, p, &clusters);
    let format = ExplainFormat::from_flags(&args.output, args.graph.as_deref());
    write_stdout(&render_policy_view(format, &e, placement.as_ref(), None))?;
    Ok(Exit::Ok)
}

/// `explain pp/NAME` against the control plane: the reads around the policy
/// ([`PolicyReads`]), the decision, the Works of the bindings it holds, then the live trace.
fn explain_policy_live(
    args: &Args,
    kind: PolicyKind,
    name: &str,
    engine: EngineSettings,
) -> Result<Exit, CliError> {
    let settings = args.kube.settings()?;
    let mut s = Session::connect(&settings.connect_options(), settings.concurrency)?;
    let ns = args
        .namespace
        .clone()
        .unwrap_or_else(|| s.namespace().into());
    let target = PolicyReads {
        name,
        namespace: (kind == PolicyKind::PropagationPolicy).then_some(ns.as_str()),
    };
    let mut reads = target.read(&mut s, crate::model::kinds::selected_kinds_of)?;
    let inv = Inventory::from_documents(target.documents(&reads), &ns);
    let unknown = UnknownClaimers::when_policies_read(target.readable(&reads).policies);
    let state = State::from_inventory(&inv, options(engine, unknown));
    let p = policy_view::find(&state, kind, &ns, name, "on the control plane")?;
    let e = policy_view::explain_policy(&state, p);
    // The Works of the bindings of the templates it holds, by their ids (one list per 50).
    let held = policy_live::held_bindings(&state, &e, &inv);
    let ids = held.iter().map(|b| (b.cluster_scoped, b.permanent_id()));
    reads.extend(s.read(target.works_requests(ids))?);
    let works: Vec<Work> = target.works(&reads).map(Work::from_json).collect();
    let clusters: Vec<Cluster> = target
        .clusters(&reads)
        .iter()
        .map(Cluster::from_object)
        .collect();
    let live = policy_live::trace(&policy_live::LiveInput {
        state: &state,
        explanation: &e,
        inventory: &inv,
        works: &works,
        clusters: &clusters,
        readable: target.readable(&reads).into(),
    });
    let placement = policy_view::placement(&state, p, &clusters);
    let format = ExplainFormat::from_flags(&args.output, args.graph.as_deref());
    if format != ExplainFormat::Text {
        s.warn_notes();
    }
    let live = PolicyLiveChain {
        live: &live,
        notes: &s.notes,
    };
    write_stdout(&render_policy_view(
        format,
        &e,
        placement.as_ref(),
        Some(&live),
    ))?;
    Ok(Exit::Ok)
}

/// `explain TYPE/NAME` against the control plane: the template, then what its decision and
/// chain read ([`TemplateReads`]), then the same engine and renderers as with manifests.
fn explain_live(
    args: &Args,
    ty: &str,
    name: &str,
    engine: EngineSettings,
) -> Result<Exit, CliError> {
    let settings = args.kube.settings()?;
    let mut s = Session::connect(&settings.connect_options(), settings.concurrency)?;
    let rt = s.discovered.resolve(ty).map_err(CliError::usage)?;
    if rt.info().is_karmada() {
        return Err(CliError::usage(format!(
            "{} is a Karmada object, not a resource template: explain takes a template such as deploy/nginx",
            rt.display()
        )));
    }
    let context_ns = s.namespace().to_string();
    let target = TemplateReads {
        name,
        ns: args.namespace.as_deref().unwrap_or(&context_ns),
        rt,
    };
    let mut reads = s.read(target.requests())?;
    let template = target.template(&reads[0])?;
    // The binding of the template, then its Works by the binding's permanent-id (one list).
    let binding = target.binding(&reads);
    if let Some(b) = &binding {
        reads.extend(s.read(vec![target.works_request(b)])?);
    }
    let format = ExplainFormat::from_flags(&args.output, args.graph.as_deref());
    // The text shows the notes; the other formats leave them to stderr.
    if format != ExplainFormat::Text {
        s.warn_notes();
    }
    let out = render_live(
        &target,
        &reads,
        binding.as_ref(),
        &template,
        engine,
        args,
        &s.notes,
    )?;
    write_stdout(&out)?;
    Ok(Exit::Ok)
}

/// The engine over the live reads around the template, rendered.
fn render_live(
    target: &TemplateReads<'_>,
    reads: &[Read],
    binding: Option<&serde_json::Value>,
    template: &serde_json::Value,
    engine: EngineSettings,
    args: &Args,
    notes: &[String],
) -> Result<String, CliError> {
    let [policies, bindings, works, clusters_ok] = target.readable(reads, binding.is_some());
    let readable = Readable {
        policies,
        bindings,
        works,
        clusters: clusters_ok,
    };
    let cluster_read = find(reads, &karmada::cluster());
    let cluster_objects: Vec<Cluster> = cluster_read
        .map(|r| r.items())
        .unwrap_or(&[])
        .iter()
        .map(Cluster::from_object)
        .collect();
    let inv = Inventory::from_documents(target.documents(reads, binding), target.ns);
    let unknown_claimers = if policies {
        // Every policy read: a claim naming a missing policy is stale (§4.2).
        UnknownClaimers::Stale
    } else {
        UnknownClaimers::AssumeExisting
    };
    let state = State::from_inventory(&inv, options(engine, unknown_claimers));
    let api_version = template["apiVersion"].as_str().unwrap_or("");
    let t = state
        .find_template(
            api_version,
            &target.rt.kind,
            target.template_ns(),
            target.name,
        )
        .ok_or_else(|| CliError::failure("the template read did not classify as a template"))?;
    let e = crate::engine::explain::explain(&state, t);
    let chain = chain::diagnose(&ChainInput {
        state: &state,
        template: t,
        explanation: &e,
        bindings: inv.bindings().collect(),
        works: inv.works().collect(),
        clusters: cluster_names(cluster_read),
        readable,
    });
    let delivery = crate::engine::delivery::from_live_binding(
        &state,
        &e,
        template,
        binding,
        &inv,
        &cluster_objects,
        &args.clusters,
    );
    let live = LiveChain {
        chain: &chain,
        notes,
    };
    let delivered = Delivered {
        template,
        delivery: &delivery,
    };
    let format = ExplainFormat::from_flags(&args.output, args.graph.as_deref());
    Ok(render_explain(
        format,
        &e,
        Some(&live),
        &delivered,
        stdout_color(),
    ))
}

fn options(engine: EngineSettings, unknown_claimers: UnknownClaimers) -> Options {
    Options {
        gates: engine.gates,
        filters: Filters::default(),
        version: engine.version,
        unknown_claimers,
    }
}
