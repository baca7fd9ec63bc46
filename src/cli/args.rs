//! Flag groups that several subcommands share, and the settings they become.
//!
//! Flags stay raw strings as clap parses them (so `--help` and the error messages stay those of
//! each subcommand); each group is turned into typed settings once, before any work starts, in
//! the order the checks always ran: the subcommands then only see settings.

use std::path::PathBuf;

use clap::Args as ClapArgs;

use super::error::CliError;
pub use crate::engine::settings::EngineSettings;
use crate::source::session::Session;

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

/// [`KubeFlags`], checked: how the kube client connects, and how many reads run at once.
#[derive(Clone, Debug)]
pub struct KubeSettings {
    pub connect: crate::kube::ConnectOptions,
    /// At least 1.
    pub concurrency: usize,
}

impl KubeFlags {
    /// A session with the control plane, the flags checked first.
    pub fn connect(&self) -> Result<Session, CliError> {
        let settings = self.settings()?;
        Ok(Session::connect(&settings.connect, settings.concurrency)?)
    }

    /// Checked only when the control plane is read (the flags are ignored with `-f`).
    pub fn settings(&self) -> Result<KubeSettings, CliError> {
        let request_timeout = crate::util::duration::parse_duration(&self.request_timeout)
            .map_err(|e| CliError::usage(format!("--request-timeout: {e}")))?;
        if self.concurrency == 0 {
            return Err(CliError::usage("--concurrency must be at least 1"));
        }
        let connect = crate::kube::ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            request_timeout: Some(request_timeout),
        };
        Ok(KubeSettings {
            connect,
            concurrency: self.concurrency,
        })
    }
}

/// `--feature-gates` and `--karmada-version` as the engine's settings, warning of gates this
/// tool does not know (explain, preempt-check).
pub fn engine_settings(
    feature_gates: Option<&str>,
    karmada_version: Option<&str>,
) -> Result<EngineSettings, CliError> {
    let (settings, unknown) = EngineSettings::from_flags(feature_gates, karmada_version)?;
    for name in unknown {
        eprintln!("warning: unrecognized feature gate {name:?} ignored");
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn kube_flags_are_checked_once() {
        let flags = KubeFlags {
            request_timeout: "1m".into(),
            concurrency: 2,
            ..KubeFlags::default()
        };
        let s = flags.settings().unwrap();
        assert_eq!(s.connect.request_timeout, Some(Duration::from_secs(60)));
        let zero = KubeFlags {
            request_timeout: "0".into(),
            concurrency: 0,
            ..KubeFlags::default()
        };
        assert!(zero.settings().is_err());
    }
}
