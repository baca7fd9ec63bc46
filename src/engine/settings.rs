//! What the engine is told by `--feature-gates` and `--karmada-version` (explain,
//! preempt-check), checked once before any input is read.

use super::claim::Filters;
use super::state::{FeatureGates, Options, UnknownClaimers};
use crate::model::feature_gates::GateSet;
use crate::model::KarmadaVersion;

#[derive(Clone, Copy, Debug)]
pub struct EngineSettings {
    pub gates: FeatureGates,
    pub version: KarmadaVersion,
}

/// A flag the engine cannot use (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// `--karmada-version` names no known release.
    #[error("{0}")]
    Version(String),
    /// A gate the release does not know, or a value that is not a bool.
    #[error("invalid --feature-gates: {0}")]
    FeatureGates(String),
}

impl EngineSettings {
    /// A gate the release does not know is an error naming the known ones, as the
    /// controller-manager refuses to start with it (`model::feature_gates`). Returns the
    /// settings and the gate names this tool does not know (for a warning).
    pub fn from_flags(
        feature_gates: Option<&str>,
        karmada_version: Option<&str>,
    ) -> Result<(EngineSettings, Vec<String>), SettingsError> {
        let version = karmada_version.map_or(Ok(KarmadaVersion::LATEST), |v| {
            v.parse().map_err(SettingsError::Version)
        })?;
        let Some(spec) = feature_gates else {
            let gates = FeatureGates::default();
            return Ok((EngineSettings { gates, version }, Vec::new()));
        };
        GateSet::parse(version, spec).map_err(|e| SettingsError::FeatureGates(e.to_string()))?;
        let (gates, unknown) = FeatureGates::parse(spec).map_err(SettingsError::FeatureGates)?;
        Ok((EngineSettings { gates, version }, unknown))
    }

    /// The engine's options, with how claims naming a policy that was not read are taken.
    pub fn options(self, unknown_claimers: UnknownClaimers) -> Options {
        Options {
            gates: self.gates,
            filters: Filters::default(),
            version: self.version,
            unknown_claimers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_first_then_gates_known_to_the_release() {
        let (s, unknown) =
            EngineSettings::from_flags(Some("PropagationPolicyPreemption=true"), None).unwrap();
        assert!(s.gates.preemption && unknown.is_empty());
        assert!(matches!(
            EngineSettings::from_flags(Some("X=maybe"), Some("0.1")),
            Err(SettingsError::Version(_))
        ));
        assert!(matches!(
            EngineSettings::from_flags(Some("Failover=maybe"), None),
            Err(SettingsError::FeatureGates(_))
        ));
    }
}
