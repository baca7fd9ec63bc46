//! `explain TYPE/NAME`: every candidate policy for one template, and its owner now and later.

use clap::Args as ClapArgs;

use super::args::{engine_settings, EngineSettings, KubeFlags};
use super::common::{read_inputs, stdout_color, write_stdout};
use super::error::{CliError, Exit};
use crate::engine::explain_inputs;
use crate::engine::state::UnknownClaimers;
use crate::inspect::environments;
use crate::inspect::explain::{policy_in_files, policy_live, template_in_files, template_live};
use crate::model::environments::EnvInventory;
use crate::model::{Inventory, PolicyKind};
use crate::output::environments::render_found;
use crate::output::format::{
    render_explain, render_policy_view, ExplainFormat, LiveChain, PolicyLiveChain,
};

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
    let engine = engine_settings(
        args.feature_gates.as_deref(),
        args.karmada_version.as_deref(),
    )?;
    let (ty, name) = crate::model::kinds::type_and_name(&args.resource)?;
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
    let found = template_in_files(&args.files, (ty, name), namespace, options)?;
    let explained = explain_inputs::from_files(
        &found.inventory,
        &found.state,
        found.template,
        &args.clusters,
    );
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
        let (view, placement) = policy_in_files(inv, (kind, name), namespace, engine)?;
        let report = render_policy_view(format(args), &view, placement.as_ref(), None);
        Ok::<_, CliError>(report)
    };
    if let Some(envs) = environments(&args.files, namespace, args.env.as_deref())? {
        return write_sections(args, envs.holding(policy_in)?);
    }
    write_stdout(&policy_in(&read_inputs(&args.files, namespace)?)?)?;
    Ok(Exit::Ok)
}

/// `explain pp/NAME` against the control plane (`inspect::explain::policy_live`), then the
/// live trace.
fn explain_policy_live(
    args: &Args,
    kind: PolicyKind,
    name: &str,
    engine: EngineSettings,
) -> Result<Exit, CliError> {
    let mut s = args.kube.connect()?;
    let ns = args
        .namespace
        .clone()
        .unwrap_or_else(|| s.namespace().into());
    let found = policy_live(&mut s, (kind, name), &ns, engine)?;
    if format(args) != ExplainFormat::Text {
        s.warn_notes();
    }
    let live = PolicyLiveChain {
        live: &found.live,
        notes: &s.notes,
    };
    write_stdout(&render_policy_view(
        format(args),
        &found.view,
        found.placement.as_ref(),
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
    write_stdout(&render_found(args.output == "json", found))?;
    Ok(Exit::Ok)
}

/// `explain TYPE/NAME` against the control plane (`inspect::explain::template_live`), rendered
/// as with manifests.
fn explain_live(
    args: &Args,
    ty: &str,
    name: &str,
    engine: EngineSettings,
) -> Result<Exit, CliError> {
    let mut s = args.kube.connect()?;
    // The text shows the notes; the other formats leave them to stderr.
    let warn_notes = format(args) != ExplainFormat::Text;
    let options = engine.options(UnknownClaimers::Stale);
    let clusters = (&args.clusters[..], warn_notes);
    let (explained, chain) = template_live(
        &mut s,
        (ty, name),
        args.namespace.as_deref(),
        options,
        clusters,
    )?;
    let live = LiveChain {
        chain: &chain,
        notes: &s.notes,
    };
    let out = render_explain(format(args), &explained, Some(&live), stdout_color());
    write_stdout(&out)?;
    Ok(Exit::Ok)
}
