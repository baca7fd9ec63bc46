//! `explain TYPE/NAME`: every candidate policy for one template, and its owner now and later.

use clap::Args as ClapArgs;

use super::args::{EngineSettings, KubeFlags};
use super::common::{environments, read_inputs, stdout_color, warn_problems, write_stdout, Inputs};
use super::error::{CliError, Exit};
use crate::engine::explain_inputs::{self, Found, Wanted};
use crate::engine::state::{State, UnknownClaimers};
use crate::engine::{policy_live, policy_view};
use crate::model::cluster::Cluster;
use crate::model::environments::EnvInventory;
use crate::model::{Inventory, PolicyKind};
use crate::output::environments::{self as output_envs, Section};
use crate::output::format::{
    render_explain, render_policy_view, ExplainFormat, LiveChain, PolicyLiveChain,
};
use crate::source::policy_reads::PolicyReads;
use crate::source::prefilter::DocHead;
use crate::source::session::{Session, TemplateReads};

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
    /// With -f over a GitOps repository: decide in this environment (a Flux cluster directory
    /// or Argo CD destination, a kustomize root: its name or directory). Without it, the one
    /// environment holding the template, else a section per environment holding it.
    #[arg(long = "env", value_name = "ENV")]
    pub env: Option<String>,
    #[command(flatten)]
    pub kube: KubeFlags,
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    let engine = EngineSettings::from_flags(
        args.feature_gates.as_deref(),
        args.karmada_version.as_deref(),
    )?;
    let parsed = args.resource.split_once('/');
    let Some((ty, name)) =
        parsed.filter(|(ty, name)| !ty.is_empty() && !name.is_empty() && !name.contains('/'))
    else {
        return Err(CliError::usage(format!(
            "expected TYPE/NAME such as deploy/nginx, got {:?}",
            args.resource
        )));
    };
    if let Some(kind) = explain_inputs::policy_kind(ty) {
        return explain_policy(&args, kind, name, engine);
    }
    if args.files.is_empty() {
        return explain_live(&args, ty, name, engine);
    }
    explain_files(&args, ty, name, engine)
}

fn format(args: &Args) -> ExplainFormat {
    ExplainFormat::from_flags(&args.output, args.graph.as_deref())
}

/// `explain -f`: the decision from manifests.
fn explain_files(
    args: &Args,
    ty: &str,
    name: &str,
    engine: EngineSettings,
) -> Result<Exit, CliError> {
    let namespace = args.namespace.as_deref().unwrap_or("default");
    let options = engine.options(UnknownClaimers::Stale);
    if let Some(envs) = environments(&args.files, namespace, args.env.as_deref())? {
        let found = envs.holding(|inv| {
            explain_inputs::find_template(inv, &[], ty, name, namespace, options.clone())
        })?;
        let sections = found.into_iter().map(|(e, (state, t))| {
            let explained = explain_inputs::from_files(&e.inventory, &state, t, &args.clusters);
            (
                e,
                render_explain(format(args), &explained, None, stdout_color()),
            )
        });
        return write_sections(args, sections.collect());
    }
    // Only the Karmada objects (PPs of the template's namespace) and the documents named like
    // the template are parsed (issue 8). Stdin cannot be read twice for the fallback below, so
    // it is read whole.
    let from_stdin = args.files.iter().any(|f| f == "-");
    let wanted = Wanted { name, namespace };
    let keep =
        |h: &DocHead<'_>| from_stdin || wanted.needs(h.api_version, h.kind, h.namespace, h.name);
    let (inputs, skipped) = Inputs::read_filtered(&args.files, namespace, &|_| false, &keep)?;
    let found = explain_inputs::find_filtered(
        &inputs.inventory,
        &skipped,
        ty,
        name,
        namespace,
        options.clone(),
    );
    if !matches!(found, Ok(Found::ReadEverything)) {
        warn_problems(&inputs.loaded);
    }
    let fallback: Inventory;
    let (inv, state, t) = match found? {
        Found::Here(state, t) => (&inputs.inventory, *state, t),
        Found::ReadEverything => {
            fallback = read_inputs(&args.files, namespace)?;
            let (state, t) =
                explain_inputs::find_template(&fallback, &[], ty, name, namespace, options)?;
            (&fallback, state, t)
        }
    };
    let explained = explain_inputs::from_files(inv, &state, t, &args.clusters);
    write_stdout(&render_explain(
        format(args),
        &explained,
        None,
        stdout_color(),
    ))?;
    Ok(Exit::Ok)
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
    let policy_in = |inv: &Inventory| {
        let state = State::from_inventory(inv, engine.options(UnknownClaimers::Stale));
        let p = explain_inputs::find_policy(&state, kind, name, namespace, "in the given files")?;
        let view = policy_view::explain_policy(&state, p);
        let placement = policy_view::placement(&state, p, &Cluster::from_inventory(inv));
        Ok::<_, CliError>(render_policy_view(
            format(args),
            &view,
            placement.as_ref(),
            None,
        ))
    };
    if let Some(envs) = environments(&args.files, namespace, args.env.as_deref())? {
        return write_sections(args, envs.holding(policy_in)?);
    }
    write_stdout(&policy_in(&read_inputs(&args.files, namespace)?)?)?;
    Ok(Exit::Ok)
}

/// `explain pp/NAME` against the control plane: the reads around the policy
/// ([`PolicyReads`]), its view, the Works of the bindings it holds, then the live trace.
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
    let state = State::from_inventory(&inv, engine.options(unknown));
    let p = explain_inputs::find_policy(&state, kind, name, &ns, "on the control plane")?;
    let view = policy_view::explain_policy(&state, p);
    // The Works of the bindings of the templates it holds, by their ids (one list per 50).
    let held = policy_live::held_binding_ids(&state, &view, &inv);
    reads.extend(s.read(target.works_requests(held))?);
    let (live, placement) = policy_live::from_reads(&state, p, &view, &inv, &target, &reads);
    if format(args) != ExplainFormat::Text {
        s.warn_notes();
    }
    let live = PolicyLiveChain {
        live: &live,
        notes: &s.notes,
    };
    write_stdout(&render_policy_view(
        format(args),
        &view,
        placement.as_ref(),
        Some(&live),
    ))?;
    Ok(Exit::Ok)
}

/// The reports of the environments holding what was asked: one as it is, several labelled
/// (`--graph` draws one control plane: several are a usage error asking for `--env`).
fn write_sections(args: &Args, found: Vec<(&EnvInventory, String)>) -> Result<Exit, CliError> {
    let names: Vec<&str> = found.iter().map(|(e, _)| e.name.as_str()).collect();
    if found.is_empty() {
        return Err(CliError::usage(
            "the repository renders no object to explain",
        ));
    }
    if names.len() > 1 && args.graph.is_some() {
        return Err(CliError::usage(format!(
            "{} is in several environments ({}): a graph draws one; pick it with --env",
            args.resource,
            names.join(", ")
        )));
    }
    let sections: Vec<Section> = found
        .into_iter()
        .map(|(e, report)| Section {
            name: e.name.clone(),
            report,
        })
        .collect();
    write_stdout(&output_envs::render(args.output == "json", &sections))?;
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
    let rt = s.template_type(ty)?;
    let context_ns = s.namespace().to_string();
    let target = TemplateReads {
        name,
        ns: args.namespace.as_deref().unwrap_or(&context_ns),
        rt,
    };
    let read = s.read_template(&target)?;
    // The text shows the notes; the other formats leave them to stderr.
    if format(args) != ExplainFormat::Text {
        s.warn_notes();
    }
    let options = engine.options(UnknownClaimers::Stale);
    let (explained, chain) = explain_inputs::live(&target, &read, options, &args.clusters)
        .ok_or_else(|| CliError::failure("the template read did not classify as a template"))?;
    let live = LiveChain {
        chain: &chain,
        notes: &s.notes,
    };
    let out = render_explain(format(args), &explained, Some(&live), stdout_color());
    write_stdout(&out)?;
    Ok(Exit::Ok)
}
