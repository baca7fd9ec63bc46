//! What the subcommands do with the shared flag groups (declared once in
//! [`crate::context::flags`]): resolve the context, connect to the control plane.

pub use crate::context::flags::{
    ContextArgs, InputArgs, KubeArgs, OutputFormat, ReportArgs, RevisionArgs,
};
use crate::context::Context;
use crate::source::session::{Session, SessionError};

use super::error::CliError;

/// How many list requests a live read runs at once unless `--concurrency` says.
pub const READ_CONCURRENCY: usize = 4;

/// The context of the run, resolved once before any input is read.
pub fn context(args: &ContextArgs) -> Result<Context, CliError> {
    Ok(args.resolve(&crate::lint::registry::is_known)?)
}

/// A read session with the control plane.
pub fn connect(kube: &KubeArgs) -> Result<Session, SessionError> {
    Session::connect(
        &kube.connect_options(),
        kube.concurrency_or(READ_CONCURRENCY),
    )
}

/// With files, the flags that only reach the control plane do nothing: say so, rather than
/// ignore them silently.
pub fn warn_live_only(kube: &KubeArgs) {
    if let Some(flag) = kube.any_given() {
        crate::util::warn(&format!(
            "{flag} is ignored: the inputs are files (-f), not the control plane"
        ));
    }
}
