//! The one result of a lint run, whatever its inputs (plain files, stdin, a rendered GitOps
//! repository, a git revision, `--base`, the live control plane): every output format and the
//! exit code read it, and nothing else.

use std::any::Any;

use super::Finding;
use crate::engine::ownership::OwnershipChange;

/// What one lint run read and found.
#[derive(Default)]
pub struct Linted {
    /// Files read (each live object counts as its own source).
    pub files: usize,
    pub documents: usize,
    pub policies: usize,
    /// Sorted by file and position, configuration and inline ignores applied: what text and
    /// JSON show.
    pub findings: Vec<Finding>,
    /// With `--base`: the findings new against the base, which SARIF, GitHub annotations and
    /// JUnit carry (`None`: every finding is new).
    pub new_only: Option<Vec<Finding>>,
    /// With `--base`: the templates whose owner changes.
    pub ownership: Option<Vec<OwnershipChange>>,
    /// What the user should know at the end (`note:` lines on stderr).
    pub notes: Vec<String>,
    /// Over a GitOps repository: every environment and the API server it targets.
    pub environments: Vec<super::gitops::EnvironmentInfo>,
    /// The installations of Karmada the plain inputs hold (the head side's in the git modes),
    /// in input order: the settings a second run takes when they differ from the run's
    /// ([`crate::context::Context::for_plain`]).
    pub installations: Vec<crate::model::installation::Installation>,
    /// The run's working state (the engine's snapshot, the documents), kept rather than freed:
    /// a caller about to exit need not free a hundred thousand objects one by one.
    pub(super) _retained: Option<Box<dyn Any>>,
}

impl Linted {
    /// The findings a pull request introduces: the new ones with `--base`, else all.
    pub fn new_findings(&self) -> &[Finding] {
        self.new_only.as_deref().unwrap_or(&self.findings)
    }

    /// Lets the process take back the run's working state when it exits, instead of freeing
    /// it now (the outputs are written; only the exit code is left).
    pub fn leak(self) {
        std::mem::forget(self);
    }
}

impl std::fmt::Debug for Linted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Linted")
            .field("files", &self.files)
            .field("documents", &self.documents)
            .field("policies", &self.policies)
            .field("findings", &self.findings.len())
            .field("notes", &self.notes)
            .finish_non_exhaustive()
    }
}
