//! How a command ends: the documented exit codes and the typed errors that map to them.
//!
//! Every subcommand returns `Result<Exit, CliError>`; [`report`] prints the error once, kubectl
//! style (`error: ...`), and turns it into the exit code. A closed stdout (`| head`) is
//! recognised by its [`io::ErrorKind::BrokenPipe`], wherever in the chain it sits.

use std::io;
use std::process::ExitCode;

use crate::engine::explain_inputs::FindError;
use crate::model::environments::{EnvError, Miss};
use crate::source::session::SessionError;

/// The documented exit codes, one meaning each: their text is the table of
/// `output::help::EXIT_CODES` (shown by `--help`, the man pages and docs/exit-codes.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Failure = 1,
    Usage = 2,
    Api = 3,
    NotFound = 4,
    Declined = 5,
    /// `plan --fail-on-hazard`: the change has a hazard.
    Hazard = 6,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e as u8)
    }
}

/// An error that ends a command. The variant decides the exit code; `Display` is the message
/// printed after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad flags or input the command cannot use (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The API server refused or could not be reached (exit 3).
    #[error("{0}")]
    Api(String),
    /// The command ran but did not achieve what it was asked (exit 1).
    #[error("{0}")]
    Failure(String),
    /// An object named does not exist (exit 4).
    #[error("{0}")]
    NotFound(String),
    /// A policy named is in the inputs, but admission refuses it (exit 4, as not found).
    #[error("{0}")]
    Refused(String),
    /// The confirmation prompt was answered no (exit 5).
    #[error("aborted: nothing was changed")]
    Declined,
    /// Reading the inputs or writing stdout failed (exit 2).
    #[error(transparent)]
    Io(#[from] io::Error),
    /// An input path could not be read at all (exit 2).
    #[error(transparent)]
    Input(#[from] crate::source::files::ReadError),
    /// No input named, or one unreadable (exit 2).
    #[error(transparent)]
    Inputs(#[from] crate::model::inputs::InputError),
    /// `explain -f`: TYPE/NAME names no template (exit 4), or several (exit 2).
    #[error(transparent)]
    Template(#[from] FindError),
    /// A resource argument that is not TYPE/NAME (exit 2).
    #[error(transparent)]
    ResourceArg(#[from] crate::model::kinds::ResourceArgError),
    /// TYPE names no kind, or several (exit 2).
    #[error(transparent)]
    Kind(#[from] crate::model::kinds::ResolveError),
    /// `--delete TYPE/[NS/]NAME` names no policy (exit 2).
    #[error(transparent)]
    PolicyRef(#[from] crate::model::kinds::PolicyRefError),
    /// `-o` names an unknown format, or two for stdout (exit 2).
    #[error(transparent)]
    Output(#[from] crate::output::format::OutputSpecError),
    /// A git mode cannot run here (exit 2).
    #[error(transparent)]
    Git(#[from] crate::source::git::GitError),
    /// A git mode stopped (exit 2).
    #[error(transparent)]
    GitLint(#[from] crate::lint::git::GitLintError),
    /// `--env` names no environment of the repository (exit 2).
    #[error(transparent)]
    Environment(#[from] crate::source::kustomize::environments::UnknownEnvironment),
    /// The configuration file is unreadable or invalid (exit 2).
    #[error(transparent)]
    Config(#[from] crate::context::ConfigError),
    /// `lint PATH...` has nothing to lint, or cannot read it (exit 2).
    #[error(transparent)]
    LintFiles(#[from] crate::lint::files::FilesError),
    /// `lint`'s flags or configuration file (exit 2).
    #[error(transparent)]
    LintSettings(#[from] crate::lint::settings::SettingsError),
    /// The context: the configuration file, `--feature-gates`, `--karmada-version` (exit 2).
    #[error(transparent)]
    Context(#[from] crate::context::ContextError),
    /// `suspend`/`resume` stopped: unreadable inputs (exit 2), the control plane (exit 3), or a
    /// check before the write (exit 1).
    #[error(transparent)]
    Suspend(#[from] crate::ops::suspend::RunError),
    /// A combination of `suspend`/`resume` flags that cannot run (exit 2).
    #[error(transparent)]
    SuspendFlags(#[from] crate::ops::request::FlagError),
    /// A live read of explain, preempt-check or lint --live: the control plane (exit 3), a
    /// missing template (exit 4) or the runtime (exit 1).
    #[error(transparent)]
    Session(#[from] SessionError),
    /// An output file (`-o FORMAT=FILE`) or stdout could not be written (exit 2).
    #[error(transparent)]
    Write(#[from] crate::output::terminal::WriteError),
}

/// Each inspection error as the error of the same cause elsewhere (same exit code).
impl From<crate::inspect::InspectError> for CliError {
    fn from(e: crate::inspect::InspectError) -> CliError {
        use crate::inspect::InspectError as I;
        match e {
            I::Inputs(e) => e.into(),
            I::Find(e) => e.into(),
            I::PolicyRef(e) => e.into(),
            I::Session(e) => e.into(),
            I::Read(e) => e.into(),
            I::Config(e) => e.into(),
            I::Environment(e) => e.into(),
            I::Git(e) => e.into(),
            I::GitRead(e) => e.into(),
            e @ (I::NothingToApply { .. } | I::NotARepository | I::Target(_)) => {
                CliError::usage(e.to_string())
            }
            e @ I::NotATemplate => CliError::failure(e.to_string()),
            e @ I::Missing(_) => CliError::NotFound(e.to_string()),
        }
    }
}

/// In a GitOps repository's environments, the error of one that holds the object asked for
/// (refused, or failing) is reported over the "not found" of one that does not.
impl EnvError for CliError {
    fn unsearched(self, why: &str) -> Self {
        match self {
            CliError::Template(e) => CliError::Template(e.unsearched(why)),
            other => other,
        }
    }

    fn miss(&self) -> Miss {
        match self {
            CliError::NotFound(_) | CliError::Session(SessionError::NotFound(_)) => Miss::Absent,
            CliError::Refused(_) => Miss::Refused,
            CliError::Template(e) => e.miss(),
            _ => Miss::Failed,
        }
    }
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError::Usage(message.into())
    }

    pub fn api(message: impl Into<String>) -> CliError {
        CliError::Api(message.into())
    }

    pub fn failure(message: impl Into<String>) -> CliError {
        CliError::Failure(message.into())
    }

    /// The exit code this error ends the process with.
    pub fn exit(&self) -> Exit {
        match self {
            CliError::Api(_) => Exit::Api,
            CliError::Failure(_) | CliError::Template(FindError::Unsearched(_)) => Exit::Failure,
            CliError::Declined => Exit::Declined,
            CliError::NotFound(_) | CliError::Refused(_) => Exit::NotFound,
            // Any kubeconfig problem (an unknown --context too) is bad configuration, as kubectl.
            CliError::Suspend(crate::ops::suspend::RunError::Connect(e))
            | CliError::Session(SessionError::Connect(e))
                if e.kind() == crate::kube::ErrorKind::Config =>
            {
                Exit::Usage
            }
            CliError::Suspend(e) if e.is_usage() => Exit::Usage,
            CliError::Suspend(e) if e.is_api() => Exit::Api,
            CliError::Suspend(_) => Exit::Failure,
            CliError::Session(SessionError::NotFound(_)) => Exit::NotFound,
            CliError::Session(e) if e.is_api() => Exit::Api,
            CliError::Session(SessionError::Type(_)) => Exit::Usage,
            CliError::Session(_) => Exit::Failure,
            CliError::Template(FindError::NotFound(_) | FindError::Refused(_)) => Exit::NotFound,
            CliError::Usage(_)
            | CliError::Io(_)
            | CliError::Input(_)
            | CliError::Inputs(_)
            | CliError::Template(_)
            | CliError::Kind(_)
            | CliError::ResourceArg(_)
            | CliError::Output(_)
            | CliError::PolicyRef(_)
            | CliError::Git(_)
            | CliError::GitLint(_)
            | CliError::Config(_)
            | CliError::SuspendFlags(_)
            | CliError::LintSettings(_)
            | CliError::LintFiles(_)
            | CliError::Context(_)
            | CliError::Environment(_)
            | CliError::Write(_) => Exit::Usage,
        }
    }

    /// Whether the error is (or was caused by) a closed pipe: the reader went away, which is
    /// how `| head` ends a command, not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            CliError::Io(e) => e.kind() == io::ErrorKind::BrokenPipe,
            CliError::Write(e) => e.is_broken_pipe(),
            _ => false,
        }
    }
}

/// Prints the error and returns its exit code. A closed stdout (`| head`) is not an error.
pub fn report(err: &CliError) -> ExitCode {
    if err.is_broken_pipe() {
        return Exit::Ok.into();
    }
    crate::util::to_stderr("error", &err.to_string());
    err.exit().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_variant() {
        assert_eq!(CliError::usage("x").exit(), Exit::Usage);
        assert_eq!(CliError::api("x").exit(), Exit::Api);
        assert_eq!(CliError::failure("x").exit(), Exit::Failure);
        assert_eq!(CliError::from(io::Error::other("x")).exit(), Exit::Usage);
    }

    #[test]
    fn a_broken_pipe_is_found_by_kind_not_by_text() {
        let pipe = || io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(CliError::from(pipe()).is_broken_pipe());
        let nested = CliError::from(crate::output::terminal::WriteError::File {
            path: "out.sarif".into(),
            source: pipe(),
        });
        assert!(nested.is_broken_pipe());
        // The words alone are a message, not a closed pipe.
        assert!(!CliError::usage("Broken pipe").is_broken_pipe());
    }
}
