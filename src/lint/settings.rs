//! `lint`'s own flags over the context (release, gates, configuration), checked once before
//! any input is read: what fails the run, what is shown, and the rule settings. The checks run
//! in the order the flags were always checked, so the first error is the same.

use crate::context::Context;

use super::options::LintOptions;
use super::Severity;

/// The flags as given (strings as clap parsed them).
#[derive(Clone, Copy, Debug, Default)]
pub struct Flags<'a> {
    pub quiet: bool,
    pub min_severity: &'a str,
    pub fail_on: &'a str,
    pub no_inline_ignores: bool,
}

/// What the run is told.
#[derive(Debug)]
pub struct Settings {
    /// The lowest severity the outputs show (`--quiet`, `--min-severity`).
    pub display_minimum: Severity,
    /// The lowest severity that makes the exit code 1; `None` for `--fail-on none`.
    pub fail_threshold: Option<Severity>,
    pub context: Context,
    pub options: LintOptions,
}

/// A flag `lint` cannot use (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("invalid --min-severity `{0}`: expected error, warning or info")]
    MinSeverity(String),
    #[error("invalid --fail-on `{0}`: expected error, warning, info or none")]
    FailOn(String),
}

impl Settings {
    pub fn new(flags: &Flags<'_>, context: Context) -> Result<Settings, SettingsError> {
        let display_minimum = display_minimum(flags)?;
        let fail_threshold = fail_threshold(flags.fail_on)?;
        let options = LintOptions::of(&context, !flags.no_inline_ignores);
        Ok(Settings {
            display_minimum,
            fail_threshold,
            context,
            options,
        })
    }

    /// Whether these findings end the run with exit code 1. A finding reported after an
    /// object's first refusal is fixed does not count: that refusal decides the verdict.
    pub fn fails(&self, findings: &[super::Finding]) -> bool {
        self.fail_threshold
            .is_some_and(|t| findings.iter().any(|f| !f.after_fix && f.severity >= t))
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

#[cfg(test)]
mod tests {
    use super::*;

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
