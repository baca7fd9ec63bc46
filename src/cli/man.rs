//! Hidden `man --out-dir DIR`: one man page per command (`output::man`).

use std::path::PathBuf;

use clap::{Args as ClapArgs, CommandFactory};

use super::common::{write_stdout, CliError, Exit};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Directory for the pages (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    let root = super::Cli::command().bin_name("kubectl-karmada_policy");
    let written = crate::output::man::write_pages(&root, &args.out_dir)?;
    let listing: String = written
        .iter()
        .map(|p| format!("{}\n", p.display()))
        .collect();
    write_stdout(&listing)?;
    Ok(Exit::Ok)
}
