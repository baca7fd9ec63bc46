//! `preempt-check`: what applying or deleting policies would do.

use clap::Args as ClapArgs;

use super::common::{CliError, Exit};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Manifests holding the current state (files, directories, `-`).
    #[arg(short = 'f', long = "filename", required = true)]
    pub files: Vec<String>,
}

pub fn run(_args: Args) -> Result<Exit, CliError> {
    Err(CliError::usage("preempt-check is not implemented yet"))
}
