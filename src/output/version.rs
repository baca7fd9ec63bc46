//! `version`: what this binary is, as text or JSON for bug reports and scripts.

use serde_json::json;

use crate::model::KarmadaVersion;

/// `version -o`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
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
