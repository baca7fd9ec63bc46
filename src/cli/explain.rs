//! `explain TYPE/NAME`: every candidate policy for one template, and its owner now and later.

use clap::Args as ClapArgs;

use super::args::{ContextArgs, InputArgs, KubeArgs, ReportArgs};
use super::common::{stdout_color, write_stdout};
use super::error::{CliError, Exit};
use crate::context::Context;
use crate::engine::explain_inputs;
use crate::engine::state::UnknownClaimers;
use crate::inspect::explain::policy_in_manifests;
use crate::inspect::explain::{policy_in_files, policy_live, template_in_environments};
use crate::inspect::explain::{template_in_files, template_live};
use crate::inspect::{environments, plain_context, Environments};
use crate::model::environments::Found;
use crate::model::{Inventory, PolicyKind};
use crate::output::environments::{render_found, section_format as section_output};
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
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub context: ContextArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Print the claim graph (policies → template → clusters, suspended edges marked) as
    /// Graphviz dot or Mermaid instead of the trace. Live mode draws the binding's clusters and
    /// each Work's real dispatch state; with -f, the policy's suspension.
    #[arg(long = "graph", value_name = "FORMAT", value_parser = ["dot", "mermaid"])]
    pub graph: Option<String>,
    /// Member clusters whose manifest to compute (comma-separated, repeatable): the `overrides`
    /// section applies the OverridePolicies and ClusterOverridePolicies for each. Default: the
    /// binding's clusters live, the clusters the placement selects with -f.
    #[arg(
        short = 'C',
        long = "clusters",
        value_delimiter = ',',
        value_name = "CLUSTER,..."
    )]
    pub clusters: Vec<String>,
    /// Deprecated spelling of --clusters (kubectl's --cluster names a kubeconfig cluster).
    #[arg(long = "cluster", hide = true, value_name = "NAME")]
    pub cluster: Vec<String>,
    #[command(flatten)]
    pub kube: KubeArgs,
}

impl Args {
    /// `--clusters`, with the deprecated `--cluster` spelling folded in (warned of).
    fn member_clusters(&mut self) {
        if !self.cluster.is_empty() {
            crate::util::warn("--cluster is deprecated: use --clusters (kubectl's --cluster names a kubeconfig cluster)");
            self.clusters.append(&mut self.cluster);
        }
    }
}

pub fn run(mut args: Args) -> Result<Exit, CliError> {
    args.member_clusters();
    let context = super::args::context(&args.context)?;
    let (ty, name) = crate::model::kinds::type_and_name(&args.resource)?;
    if let Some(kind) = explain_inputs::policy_kind(ty) {
        return explain_policy(&args, kind, name, &context);
    }
    if args.input.files.is_empty() {
        return explain_live(&args, ty, name, &context);
    }
    super::args::warn_live_only(&args.kube);
    explain_files(&args, ty, name, &context)
}

fn format(args: &Args) -> ExplainFormat {
    ExplainFormat::from_flags(args.report.output, args.graph.as_deref())
}

/// The format of one environment's section (`render_found` joins them).
fn section_format(args: &Args) -> ExplainFormat {
    ExplainFormat::from_flags(section_output(args.report.output), args.graph.as_deref())
}

/// `explain -f`: the decision from manifests.
fn explain_files(args: &Args, ty: &str, name: &str, context: &Context) -> Result<Exit, CliError> {
    let namespace = context.files_namespace();
    if let Some(envs) = environments(&args.input.files, context, args.input.env.as_deref())? {
        let found = template_in_environments(&envs, (ty, name), namespace)?;
        let sections = found.into_iter().map(|(e, (state, t))| {
            let explained = explain_inputs::from_files(&e.inventory, &state, t, &args.clusters);
            (
                e,
                render_explain(section_format(args), &explained, None, stdout_color()),
            )
        });
        return write_sections(args, sections.collect(), &envs);
    }
    let context = &plain_context(&args.input.files, context)?;
    let options = context.engine_options(UnknownClaimers::Stale);
    let found = template_in_files(&args.input.files, (ty, name), context, options)?;
    let explained = explain_inputs::from_files(
        &found.inventory,
        &found.state,
        found.template,
        &args.clusters,
    );
    for note in crate::inspect::explain::placed_by_flag(&found, &explained, context) {
        crate::util::to_stderr("note", &note);
    }
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
    context: &Context,
) -> Result<Exit, CliError> {
    if args.input.files.is_empty() {
        return explain_policy_live(args, kind, name, context);
    }
    super::args::warn_live_only(&args.kube);
    let namespace = context.files_namespace();
    let policy_in = |inv: &Inventory, context: &Context, format: ExplainFormat| {
        let (view, placement) = policy_in_files(inv, (kind, name), namespace, context)?;
        let report = render_policy_view(format, &view, placement.as_ref(), None);
        Ok::<_, CliError>(report)
    };
    if let Some(envs) = environments(&args.input.files, context, args.input.env.as_deref())? {
        let found = envs
            .holding(|e, env_context| policy_in(&e.inventory, env_context, section_format(args)))?;
        return write_sections(args, found, &envs);
    }
    let context = &plain_context(&args.input.files, context)?;
    let (view, placement) = policy_in_manifests(&args.input.files, (kind, name), context)?;
    let out = render_policy_view(format(args), &view, placement.as_ref(), None);
    write_stdout(&out)?;
    Ok(Exit::Ok)
}

/// `explain pp/NAME` against the control plane (`inspect::explain::policy_live`), then the
/// live trace.
fn explain_policy_live(
    args: &Args,
    kind: PolicyKind,
    name: &str,
    context: &Context,
) -> Result<Exit, CliError> {
    let mut s = super::args::connect(&args.kube)?;
    let ns = context
        .namespace
        .clone()
        .unwrap_or_else(|| s.namespace().into());
    let found = policy_live(&mut s, (kind, name), &ns, context)?;
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

/// The reports of the environments holding what was asked, of `envs` (`--graph` draws one
/// control plane, unheaded, as Graphviz or Mermaid: several are a usage error asking for --env).
/// None holding it: `envs` say why.
fn write_sections(
    args: &Args,
    found: Found<String>,
    envs: &Environments,
) -> Result<Exit, CliError> {
    let names: Vec<&str> = found.iter().map(|(e, _)| e.name.as_str()).collect();
    if found.is_empty() {
        return Err(CliError::usage(envs.renders_nothing("to explain")));
    }
    if names.len() > 1 && args.graph.is_some() {
        return Err(CliError::usage(format!(
            "{} is in several environments ({}): a graph draws one; pick it with --env",
            args.resource,
            names.join(", ")
        )));
    }
    // `--graph` draws one control plane, unheaded.
    let among = args.graph.as_ref().map_or(envs.count(), |_| 1);
    write_stdout(&render_found(args.report.output, found, among))?;
    Ok(Exit::Ok)
}

/// `explain TYPE/NAME` against the control plane (`inspect::explain::template_live`), rendered
/// as with manifests.
fn explain_live(args: &Args, ty: &str, name: &str, context: &Context) -> Result<Exit, CliError> {
    let mut s = super::args::connect(&args.kube)?;
    // The text shows the notes; the other formats leave them to stderr.
    let warn_notes = format(args) != ExplainFormat::Text;
    let options = context.engine_options(UnknownClaimers::Stale);
    let clusters = (&args.clusters[..], warn_notes);
    let (explained, chain) = template_live(
        &mut s,
        (ty, name),
        context.namespace.as_deref(),
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
