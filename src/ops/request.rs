//! The `suspend`/`resume` command line as one checked request: which mode (named policies or a
//! freeze of clusters, files or live), the selection, and the settings of the run. The checks
//! run in the order they always ran, so the first error a user sees is the same.

use std::time::Duration;

use super::live::DryRun;
use super::plan::{self, Selection, SelectionError};
use super::suspend::Settings;
use crate::context::flags::{ContextArgs, KubeArgs, OutputFormat};
use crate::engine::suspension::{Action, Request};
use crate::model::label_selector::Selector;
use crate::util::duration::parse_duration;

/// `suspend`/`resume`'s flags, declared once (the CLI flattens them; the shared groups come
/// from [`crate::context::flags`]) and parsed into typed values by clap.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct Flags {
    /// Policies: pp/NAME, cpp/NAME, or a type followed by names.
    pub targets: Vec<String>,
    /// Edit policies in these manifest files in place (GitOps) instead of the live control plane.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub files: Vec<String>,
    /// With -f naming a kustomize repository: the kustomization (an overlay, an environment)
    /// whose layer the edit goes to.
    #[arg(long, value_name = "DIR")]
    pub env: Option<String>,
    #[command(flatten)]
    pub context: ContextArgs,
    /// PropagationPolicies in every namespace.
    #[arg(short = 'A', long = "all-namespaces")]
    pub all_namespaces: bool,
    /// Label selector (`app=web,tier!=db`, `env in (a,b)`).
    #[arg(short = 'l', long = "selector")]
    pub selector: Option<String>,
    /// Every policy of the selected types (PropagationPolicies in the namespace and
    /// ClusterPropagationPolicies, unless a type is named).
    #[arg(long)]
    pub all: bool,
    /// Only these member clusters (comma-separated); without it, all clusters. With no policy
    /// named: freeze (or lift the freeze of) these clusters on every policy targeting them.
    #[arg(short = 'C', long, value_delimiter = ',', value_name = "CLUSTER,...")]
    pub clusters: Vec<String>,
    /// Print the unified diff and write nothing. Live mode: `client` computes locally,
    /// `server` asks the API server (dryRun=All).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "client",
          value_enum, value_name = "MODE")]
    pub dry_run: Option<DryRun>,
    /// Record a reason, user and time in annotations (live mode; a freeze records it with -f too).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// Unknown cluster names are an error instead of a warning.
    #[arg(long)]
    pub strict: bool,
    /// Suspend all clusters of a policy even though failover would stall.
    #[arg(long)]
    pub force: bool,
    /// Do not ask for confirmation of bulk changes.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Print the resulting objects (json, yaml; several as a List) instead of one line per
    /// policy (text, the default).
    #[arg(short = 'o', long, value_name = "FORMAT",
          value_parser = OutputFormat::parser(OutputFormat::OBJECTS))]
    pub output: Option<OutputFormat>,
    /// With -o: keep metadata.managedFields (hidden by default, as kubectl does).
    #[arg(long)]
    pub show_managed_fields: bool,
    /// After the write, wait until each affected Work's Dispatching condition shows the new
    /// state (False/SuspendDispatching when suspended, True when resumed).
    #[arg(long)]
    pub wait: bool,
    /// With --wait: how long to wait before failing (exit 1, naming the Works that lag).
    #[arg(long, default_value = "2m", value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Duration,
    #[command(flatten)]
    pub kube: KubeArgs,
}

/// How many policies are written at once unless `--concurrency` says.
pub const WRITE_CONCURRENCY: usize = 8;

impl Flags {
    /// `-o json` or `-o yaml`: the resulting objects are printed; `-o text` is the default.
    pub fn objects_format(&self) -> Option<OutputFormat> {
        self.output.filter(|o| *o != OutputFormat::Text)
    }
}

/// What a run does: the settings, and how.
#[derive(Debug)]
pub struct Checked {
    pub settings: Settings,
    /// `--clusters` with no policy named: a freeze of those clusters on every policy.
    pub freeze: bool,
    /// `--timeout` of `--wait`.
    pub wait_timeout: Duration,
}

/// A combination of flags `suspend`/`resume` cannot run (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    /// Two flags that exclude each other, or one missing another.
    #[error("{0}")]
    Conflict(&'static str),
    #[error(transparent)]
    Targets(#[from] SelectionError),
    /// `-l` does not parse.
    #[error("{0}")]
    Selector(String),
    /// A `--clusters` name no cluster can have (quoted: it may hold control characters).
    #[error("--clusters {0:?}: not a valid cluster name (Karmada's cluster names are lowercase DNS-1123 labels): it would match no cluster")]
    ClusterName(String),
}

use FlagError::Conflict;

impl Flags {
    /// [`Flags::check`], the settings completed from the run's context
    /// ([`Settings::read_context`]).
    pub fn check_in(
        &self,
        action: Action,
        context: &crate::context::Context,
    ) -> Result<Checked, FlagError> {
        let mut checked = self.check(action)?;
        checked.settings.read_context(context, &self.files);
        Ok(checked)
    }

    /// The flags checked against each other and turned into settings.
    pub fn check(&self, action: Action) -> Result<Checked, FlagError> {
        if self.env.is_some() && self.files.is_empty() {
            return Err(Conflict(
                "--env names a kustomization of the -f repository; give -f too",
            ));
        }
        if self.wait && !self.files.is_empty() {
            return Err(Conflict(
                "--wait follows Works on a control plane; it cannot be used with -f",
            ));
        }
        let wait_timeout = self.timeout;
        let (named, kinds) = plan::parse_targets(&self.targets)?;
        let mut selection = Selection {
            named,
            kinds,
            all: self.all,
            selector: None,
            selector_text: self.selector.clone(),
            namespace: self.context.namespace.clone(),
            all_namespaces: self.all_namespaces,
        };
        let freeze = selection.is_freeze(&self.clusters);
        self.check_selection(&selection, freeze)?;
        if let Some(s) = &self.selector {
            selection.selector = Some(Selector::parse(s).map_err(FlagError::Selector)?);
        }
        let request = Request::new(action, &self.clusters);
        if self.clusters.iter().any(|c| c.trim().is_empty()) && request.clusters.is_empty() {
            return Err(Conflict("--clusters needs at least one cluster name"));
        }
        if let Some(bad) = request
            .clusters
            .iter()
            .find(|c| !crate::model::cluster::is_dns1123_label(c))
        {
            return Err(FlagError::ClusterName(bad.clone()));
        }
        if freeze {
            self.check_freeze(action)?;
        }
        if !self.files.is_empty() && self.dry_run == Some(DryRun::Server) {
            return Err(Conflict(
                "--dry-run=server needs a control plane; with -f use --dry-run",
            ));
        }
        Ok(Checked {
            settings: self.settings(action, selection, request)?,
            freeze,
            wait_timeout,
        })
    }

    /// The checks of the policy words and flags, in the order they always ran.
    fn check_selection(&self, sel: &Selection, freeze: bool) -> Result<(), FlagError> {
        let bulk_flags = self.all || self.selector.is_some();
        if sel.named.is_empty() && !bulk_flags && !freeze {
            return Err(Conflict(
                "name policies (pp/NAME, cpp/NAME), or select them with -l SELECTOR or --all",
            ));
        }
        if !sel.named.is_empty() && self.all {
            return Err(Conflict("--all cannot be combined with policy names"));
        }
        if self.all_namespaces && !sel.named.is_empty() {
            return Err(Conflict(
                "a policy cannot be named across all namespaces: drop -A or use -n NAMESPACE",
            ));
        }
        if !self.files.is_empty()
            && (self.reason.is_some() && !freeze || self.objects_format().is_some())
        {
            return Err(Conflict(
                "--reason and -o act on live objects; with -f the file is the record (put the reason in the commit message)",
            ));
        }
        Ok(())
    }

    /// What a freeze (`--clusters` with no policy named) does not take.
    fn check_freeze(&self, action: Action) -> Result<(), FlagError> {
        if self.objects_format().is_some() || self.wait {
            return Err(Conflict(
                "-o and --wait act on named policies; a freeze (--clusters with no policy named) prints its table and one line per policy",
            ));
        }
        if action == Action::Resume && self.reason.is_some() {
            return Err(Conflict(
                "--reason is recorded by the freeze; lifting it (resume --clusters) removes that record",
            ));
        }
        Ok(())
    }

    /// The flags as settings; the request timeout is checked in live mode only.
    fn settings(
        &self,
        action: Action,
        selection: Selection,
        request: Request,
    ) -> Result<Settings, FlagError> {
        Ok(Settings {
            action,
            selection,
            request,
            dry: self.dry_run.unwrap_or(DryRun::None),
            force: self.force,
            reason: self.reason.clone(),
            strict: self.strict,
            known_clusters: Vec::new(),
            // Until the context says otherwise (`cli::suspend` reads it): the safe side.
            cluster_failover: true,
            concurrency: self.kube.concurrency_or(WRITE_CONCURRENCY),
            connect: self.kube.connect_options(),
            config: crate::context::Config::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(targets: &[&str]) -> Flags {
        Flags {
            targets: targets.iter().map(|t| t.to_string()).collect(),
            timeout: Duration::from_secs(120),
            ..Flags::default()
        }
    }

    #[test]
    fn a_named_policy_is_not_a_freeze_and_clusters_alone_are() {
        let named = flags(&["pp/web"]).check(Action::Suspend).unwrap();
        assert!(!named.freeze);
        assert_eq!(named.wait_timeout, Duration::from_secs(120));
        let freeze = Flags {
            clusters: vec!["member1".into()],
            ..flags(&[])
        };
        assert!(freeze.check(Action::Suspend).unwrap().freeze);
    }

    #[test]
    fn the_first_failing_check_is_reported() {
        let err = Flags {
            env: Some("overlays/prod".into()),
            wait: true,
            ..flags(&["pp/web"])
        };
        assert_eq!(
            err.check(Action::Suspend).unwrap_err().to_string(),
            "--env names a kustomization of the -f repository; give -f too"
        );
        let none = flags(&[]).check(Action::Suspend).unwrap_err().to_string();
        assert!(none.starts_with("name policies"), "{none}");
        let resume_reason = Flags {
            clusters: vec!["m1".into()],
            reason: Some("x".into()),
            ..flags(&[])
        };
        assert!(resume_reason.check(Action::Resume).is_err());
        assert!(resume_reason.check(Action::Suspend).is_ok());
    }
}
