//! `lint`'s flags over the configuration file, checked once before any input is read: what
//! fails the run, what is shown, the Karmada version, feature gates and rule settings. The
//! checks run in the order the flags were always checked, so the first error is the same.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::config::{Config, ConfigError, LintOptions};
use super::{registry, Severity};
use crate::model::KarmadaVersion;

/// The flags as given (strings as clap parsed them).
#[derive(Clone, Copy, Debug, Default)]
pub struct Flags<'a> {
    pub quiet: bool,
    pub min_severity: &'a str,
    pub fail_on: &'a str,
    /// `--config`; without it, `.karmada-policy.yaml` found from the current directory up.
    pub config: Option<&'a str>,
    pub karmada_version: Option<&'a str>,
    pub feature_gates: Option<&'a str>,
    pub no_inline_ignores: bool,
}

/// What the run is told.
#[derive(Debug)]
pub struct Settings {
    /// The lowest severity the outputs show (`--quiet`, `--min-severity`).
    pub display_minimum: Severity,
    /// The lowest severity that makes the exit code 1; `None` for `--fail-on none`.
    pub fail_threshold: Option<Severity>,
    pub config: Config,
    pub options: LintOptions,
}

/// A flag or the configuration file `lint` cannot use (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("invalid --min-severity `{0}`: expected error, warning or info")]
    MinSeverity(String),
    #[error("invalid --fail-on `{0}`: expected error, warning, info or none")]
    FailOn(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `--karmada-version` names no known release.
    #[error("{0}")]
    Version(String),
    #[error("invalid feature gate `{0}`: expected NAME=true|false")]
    GateSyntax(String),
    #[error("invalid feature gate `{0}`: the value must be true or false")]
    GateValue(String),
}

impl Settings {
    pub fn from_flags(flags: &Flags<'_>) -> Result<Settings, SettingsError> {
        let display_minimum = display_minimum(flags)?;
        let fail_threshold = fail_threshold(flags.fail_on)?;
        let config = load_config(flags.config)?;
        let options = lint_options(flags, &config)?;
        Ok(Settings {
            display_minimum,
            fail_threshold,
            config,
            options,
        })
    }

    /// Whether these findings end the run with exit code 1.
    pub fn fails(&self, findings: &[super::Finding]) -> bool {
        self.fail_threshold
            .is_some_and(|t| findings.iter().any(|f| f.severity >= t))
    }
}

fn display_minimum(flags: &Flags<'_>) -> Result<Severity, SettingsError> {
    if flags.quiet {
        return Ok(Severity::Error);
    }
    Severity::parse(flags.min_severity)
        .ok_or_else(|| SettingsError::MinSeverity(flags.min_severity.to_string()))
}

fn fail_threshold(s: &str) -> Result<Option<Severity>, SettingsError> {
    match s {
        "none" => Ok(None),
        other => Severity::parse(other)
            .map(Some)
            .ok_or_else(|| SettingsError::FailOn(other.to_string())),
    }
}

fn load_config(flag: Option<&str>) -> Result<Config, SettingsError> {
    let path = match flag {
        Some(p) => Some(PathBuf::from(p)),
        None => std::env::current_dir()
            .ok()
            .and_then(|d| Config::discover(&d)),
    };
    match path {
        Some(p) => Ok(Config::load(&p, &registry::is_known)?),
        None => Ok(Config::default()),
    }
}

/// The flags over the configuration file: Karmada version, feature gates, rule settings.
fn lint_options(flags: &Flags<'_>, config: &Config) -> Result<LintOptions, SettingsError> {
    let version = match flags.karmada_version {
        Some(v) => v
            .parse::<KarmadaVersion>()
            .map_err(SettingsError::Version)?,
        None => config.karmada_version.unwrap_or_default(),
    };
    let mut feature_gates = config.feature_gates.clone();
    if let Some(g) = flags.feature_gates {
        feature_gates.extend(parse_feature_gates(g)?);
    }
    Ok(LintOptions {
        version,
        version_set: flags.karmada_version.is_some() || config.karmada_version.is_some(),
        feature_gates,
        known_clusters: config.known_clusters.clone(),
        rules: config.rules.clone(),
        inline_ignores: !flags.no_inline_ignores,
        ..LintOptions::default()
    })
}

/// `lint --feature-gates`: `PropagationPolicyPreemption=true,Failover=false`, kept by name (the
/// configuration file's gates are merged under them, and lint rules look gates up by name).
pub fn parse_feature_gates(s: &str) -> Result<BTreeMap<String, bool>, SettingsError> {
    let mut gates = BTreeMap::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part
            .split_once('=')
            .ok_or_else(|| SettingsError::GateSyntax(part.to_string()))?;
        let value = match value.trim().to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => return Err(SettingsError::GateValue(part.to_string())),
        };
        gates.insert(name.trim().to_string(), value);
    }
    Ok(gates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_gates_parse() {
        let g = parse_feature_gates("PropagationPolicyPreemption=true, Failover=False").unwrap();
        assert!(g["PropagationPolicyPreemption"]);
        assert!(!g["Failover"]);
        assert!(matches!(
            parse_feature_gates("X=maybe"),
            Err(SettingsError::GateValue(_))
        ));
        assert!(matches!(
            parse_feature_gates("X"),
            Err(SettingsError::GateSyntax(_))
        ));
    }

    #[test]
    fn quiet_shows_errors_only_and_none_never_fails() {
        let flags = Flags {
            quiet: true,
            min_severity: "bogus",
            fail_on: "none",
            ..Flags::default()
        };
        assert_eq!(display_minimum(&flags).unwrap(), Severity::Error);
        assert_eq!(fail_threshold("none").unwrap(), None);
        let err = fail_threshold("maybe").unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid --fail-on `maybe`: expected error, warning, info or none"
        );
    }
}
