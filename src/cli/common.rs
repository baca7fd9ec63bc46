//! What every subcommand shares: stdout, and how a command ends.

pub use crate::output::terminal::stdout_color;

pub use super::error::{CliError, Exit};

/// Writes to stdout, treating a closed pipe as success (so `| head` never panics).
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    Ok(crate::output::terminal::write_stdout(text)?)
}
