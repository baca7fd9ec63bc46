//! `lint PATH...`: findings over files, directories and stdin.

use clap::Args as ClapArgs;

use super::common::{CliError, Exit};

pub const AFTER_HELP: &str = "\
Exit codes:
  0  nothing at or above --fail-on (default: error)
  1  findings at or above --fail-on
  2  usage error or unreadable input";

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Files, directories (recursive over .yaml/.yml/.json, skipping .git) or `-` for stdin.
    pub paths: Vec<String>,
}

pub fn run(_args: Args) -> Result<Exit, CliError> {
    Err(CliError::usage("lint is being wired"))
}
