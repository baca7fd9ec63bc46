//! Flag groups that several subcommands share, and the settings they become.
//!
//! Flags stay raw strings as clap parses them (so `--help` and the error messages stay those of
//! each subcommand); each group is turned into typed settings once, before any work starts, in
//! the order the checks always ran: the subcommands then only see settings.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args as ClapArgs;

use super::error::CliError;
use crate::engine::claim::Filters;
use crate::engine::state::{FeatureGates, Options, UnknownClaimers};
use crate::model::KarmadaVersion;

/// How to reach the control plane, flag for flag as `suspend`/`resume` (and kubectl).
#[derive(Clone, Debug, Default, ClapArgs)]
pub struct KubeFlags {
    /// Path to the kubeconfig file (else KUBECONFIG, else ~/.kube/config). Live mode only.
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use. Live mode only.
    #[arg(long, visible_alias = "karmada-context", value_name = "NAME")]
    pub context: Option<String>,
    /// Timeout of each API request (`0` = none), e.g. 30s, 1m. Live mode only.
    #[arg(long, default_value = "0", value_name = "DURATION")]
    pub request_timeout: String,
    /// How many list requests run at once. Live mode only.
    #[arg(long = "concurrency", default_value_t = 4, value_name = "N")]
    pub concurrency: usize,
}

/// One change of `preempt-check`, in command-line order (`--apply` and `--delete` interleave).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeArg {
    /// `--apply FILE`: every policy in FILE is created or updated.
    Apply(String),
    /// `--delete TYPE/[NS/]NAME`.
    Delete(String),
}

/// [`KubeFlags`], checked.
#[derive(Clone, Debug)]
pub struct KubeSettings {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// Zero means no timeout.
    pub request_timeout: Duration,
    /// At least 1.
    pub concurrency: usize,
}

impl KubeSettings {
    /// How the kube client connects.
    pub fn connect_options(&self) -> crate::kube::ConnectOptions {
        crate::kube::ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            request_timeout: Some(self.request_timeout),
        }
    }
}

impl KubeFlags {
    /// Checked only when the control plane is read (the flags are ignored with `-f`).
    pub fn settings(&self) -> Result<KubeSettings, CliError> {
        let request_timeout = crate::util::duration::parse_duration(&self.request_timeout)
            .map_err(|e| CliError::usage(format!("--request-timeout: {e}")))?;
        if self.concurrency == 0 {
            return Err(CliError::usage("--concurrency must be at least 1"));
        }
        Ok(KubeSettings {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            request_timeout,
            concurrency: self.concurrency,
        })
    }
}

/// What the engine is told by `--feature-gates` and `--karmada-version` (explain, preempt-check).
#[derive(Clone, Copy, Debug)]
pub struct EngineSettings {
    pub gates: FeatureGates,
    pub version: KarmadaVersion,
}

impl EngineSettings {
    /// A gate the release does not know is an error naming the known ones, as the
    /// controller-manager refuses to start with it (`model::feature_gates`).
    pub fn from_flags(
        feature_gates: Option<&str>,
        karmada_version: Option<&str>,
    ) -> Result<EngineSettings, CliError> {
        let version = parse_version(karmada_version)?;
        if let Some(spec) = feature_gates {
            crate::model::feature_gates::GateSet::parse(version, spec)
                .map_err(|e| CliError::usage(format!("invalid --feature-gates: {e}")))?;
        }
        Ok(EngineSettings {
            gates: parse_gates(feature_gates)?,
            version,
        })
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

fn parse_gates(spec: Option<&str>) -> Result<FeatureGates, CliError> {
    let Some(spec) = spec else {
        return Ok(FeatureGates::default());
    };
    let (gates, unknown) = FeatureGates::parse(spec)
        .map_err(|e| CliError::usage(format!("invalid --feature-gates: {e}")))?;
    for name in unknown {
        eprintln!("warning: unrecognized feature gate {name:?} ignored");
    }
    Ok(gates)
}

fn parse_version(v: Option<&str>) -> Result<KarmadaVersion, CliError> {
    v.map_or(Ok(KarmadaVersion::LATEST), |v| {
        v.parse().map_err(CliError::usage)
    })
}

/// `lint --feature-gates`: `PropagationPolicyPreemption=true,Failover=false`, kept by name (the
/// configuration file's gates are merged under them, and lint rules look gates up by name).
pub fn parse_feature_gates(s: &str) -> Result<BTreeMap<String, bool>, CliError> {
    let mut gates = BTreeMap::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=').ok_or_else(|| {
            CliError::usage(format!(
                "invalid feature gate `{part}`: expected NAME=true|false"
            ))
        })?;
        let value = match value.trim().to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(CliError::usage(format!(
                    "invalid feature gate `{part}`: the value must be true or false"
                )))
            }
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
        assert!(parse_feature_gates("X=maybe").is_err());
        assert!(parse_feature_gates("X").is_err());
    }

    #[test]
    fn kube_flags_are_checked_once() {
        let flags = KubeFlags {
            request_timeout: "1m".into(),
            concurrency: 2,
            ..KubeFlags::default()
        };
        let s = flags.settings().unwrap();
        assert_eq!(s.request_timeout, Duration::from_secs(60));
        let zero = KubeFlags {
            request_timeout: "0".into(),
            concurrency: 0,
            ..KubeFlags::default()
        };
        assert!(zero.settings().is_err());
    }
}
