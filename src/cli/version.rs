//! `version`: what this binary is, as text or `-o json` for bug reports and scripts.

use clap::{Args as ClapArgs, ValueEnum};
use serde_json::json;

use super::common::{write_stdout, CliError, Exit};
use crate::model::KarmadaVersion;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

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

/// The build's identity; the commit and date are set by build.rs.
pub struct Info {
    pub version: &'static str,
    pub git_commit: &'static str,
    pub build_date: &'static str,
    /// The newest Karmada release whose rules apply (the default of --karmada-version).
    pub karmada: KarmadaVersion,
}

pub fn info() -> Info {
    Info {
        version: env!("CARGO_PKG_VERSION"),
        git_commit: env!("KARMADA_POLICY_GIT_COMMIT"),
        build_date: env!("KARMADA_POLICY_BUILD_DATE"),
        karmada: KarmadaVersion::LATEST,
    }
}

pub fn render(info: &Info, format: Format) -> String {
    match format {
        Format::Text => format!(
            "kubectl-karmada_policy {}\ngit commit: {}\nbuild date: {}\nKarmada rules: v{} (oldest supported v{})\n",
            info.version,
            info.git_commit,
            info.build_date,
            info.karmada,
            KarmadaVersion::OLDEST
        ),
        Format::Json => {
            let v = json!({
                "version": info.version,
                "gitCommit": info.git_commit,
                "buildDate": info.build_date,
                "karmadaVersion": info.karmada.to_string(),
                "oldestKarmadaVersion": KarmadaVersion::OLDEST.to_string(),
            });
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        }
    }
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    write_stdout(&render(&info(), args.output))?;
    Ok(Exit::Ok)
}
