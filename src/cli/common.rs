//! What every subcommand shares: loading inputs, stdout.

pub use crate::model::inputs::{read_inputs, warn_problems, Inputs};
pub use crate::output::terminal::stdout_color;

pub use super::error::{CliError, Exit};

/// Writes to stdout, treating a closed pipe as success (so `| head` never panics).
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    Ok(crate::output::terminal::write_stdout(text)?)
}
