//! `version`: what this binary is (`output::version`).

use clap::Args as ClapArgs;

use super::common::{write_stdout, CliError, Exit};
use crate::output::version::{info, render, Format};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Output format.
    #[arg(
        short = 'o',
        long,
        value_enum,
        default_value = "text",
        value_name = "FORMAT"
    )]
    pub output: Format,
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    write_stdout(&render(&info(), args.output))?;
    Ok(Exit::Ok)
}
