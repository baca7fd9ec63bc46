//! The `suspend`/`resume` command line as one checked request: which mode (named policies or a
//! freeze of clusters, files or live), the selection, and the settings of the run. The checks
//! run in the order they always ran, so the first error a user sees is the same.

use std::path::PathBuf;
use std::time::Duration;

use super::live::DryRun;
use super::plan::{self, Selection, SelectionError};
use super::suspend::Settings;
use crate::engine::suspension::{Action, Request};
use crate::model::label_selector::Selector;
use crate::util::duration::parse_duration;

/// The flags as given (strings as clap parsed them).
#[derive(Clone, Debug, Default)]
pub struct Flags {
    pub targets: Vec<String>,
    pub files: Vec<String>,
    pub env: Option<String>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub selector: Option<String>,
    pub all: bool,
    pub clusters: Vec<String>,
    pub dry_run: Option<String>,
    pub reason: Option<String>,
    pub strict: bool,
    pub force: bool,
    pub output: Option<String>,
    pub wait: bool,
    pub timeout: String,
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    pub request_timeout: String,
    pub concurrency: usize,
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
    #[error("{flag}: {message}")]
    Duration { flag: &'static str, message: String },
    #[error(transparent)]
    Targets(#[from] SelectionError),
    /// `-l` does not parse.
    #[error("{0}")]
    Selector(String),
}

use FlagError::Conflict;

impl Flags {
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
        let wait_timeout = duration("--timeout", &self.timeout)?;
        let (named, kinds) = plan::parse_targets(&self.targets)?;
        let mut selection = Selection {
            named,
            kinds,
            all: self.all,
            selector: None,
            selector_text: self.selector.clone(),
            namespace: self.namespace.clone(),
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
        if freeze {
            self.check_freeze(action)?;
        }
        if !self.files.is_empty() && self.dry_run.as_deref() == Some("server") {
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
        if !self.files.is_empty() && (self.reason.is_some() && !freeze || self.output.is_some()) {
            return Err(Conflict(
                "--reason and -o act on live objects; with -f the file is the record (put the reason in the commit message)",
            ));
        }
        if self.concurrency == 0 {
            return Err(Conflict("--concurrency must be at least 1"));
        }
        Ok(())
    }

    /// What a freeze (`--clusters` with no policy named) does not take.
    fn check_freeze(&self, action: Action) -> Result<(), FlagError> {
        if self.output.is_some() || self.wait {
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
        let request_timeout = if self.files.is_empty() {
            duration("--request-timeout", &self.request_timeout)?
        } else {
            Duration::ZERO
        };
        Ok(Settings {
            action,
            selection,
            request,
            dry: DryRun::parse(self.dry_run.as_deref()),
            force: self.force,
            reason: self.reason.clone(),
            strict: self.strict,
            concurrency: self.concurrency,
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            request_timeout,
        })
    }
}

fn duration(flag: &'static str, value: &str) -> Result<Duration, FlagError> {
    parse_duration(value).map_err(|message| FlagError::Duration { flag, message })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(targets: &[&str]) -> Flags {
        Flags {
            targets: targets.iter().map(|t| t.to_string()).collect(),
            timeout: "2m".into(),
            request_timeout: "0".into(),
            concurrency: 8,
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
            timeout: "bogus".into(),
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
