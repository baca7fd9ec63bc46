//! `explain TYPE/NAME`: every candidate policy for one template, and its owner now and later.

use clap::Args as ClapArgs;

use super::common::{CliError, Exit};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The template, as kubectl takes it: `deploy/nginx`, `deployment.apps/nginx`.
    pub resource: String,
    /// Manifests holding the policies and templates (files, directories, `-`).
    #[arg(short = 'f', long = "filename", required = true)]
    pub files: Vec<String>,
    /// Namespace of the template.
    #[arg(short = 'n', long = "namespace", default_value = "default")]
    pub namespace: String,
}

pub fn run(_args: Args) -> Result<Exit, CliError> {
    Err(CliError::usage("explain is not implemented yet"))
}
