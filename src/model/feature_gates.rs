//! karmada-controller-manager's feature gates with Karmada's defaults per release
//! (`pkg/features/features.go` at each `v1.x.0` tag), and `--feature-gates` parsed as the
//! component-base parser does (`Name=bool` pairs; an unknown name is an error).
//!
//! `Failover` was turned off by default by commit a8e965321 (2024-11-29); the first release
//! carrying it is v1.12.0 (`git tag --contains a8e965321`). Before, it was Beta and on.
//!
//! [`GateSet`] also holds the controller-manager flags that switch a gated feature off on their
//! own ([`ControllerFlags`]: `--enable-no-execute-taint-eviction` for cluster failover), so that
//! whatever reads the gates reads them too and "does cluster failover run" has one answer,
//! [`GateSet::why_no_cluster_failover`].

use std::collections::BTreeMap;

use super::controller_flags::{ControllerFlags, FlagError};
use super::KarmadaVersion;

/// One gate: its name, the first minor release that has it, its default from there on, and
/// from which release it is Beta (Alpha before; [`NEVER`]: Alpha in every release modelled).
#[derive(Clone, Copy, Debug)]
struct Gate {
    name: &'static str,
    since: u32,
    /// `(from_minor, default)` steps, in order; the last step at or before the version wins.
    defaults: &'static [(u32, bool)],
    /// `AllBeta` sets it from this release on, `AllAlpha` before (`PreRelease` in
    /// `features.go`; component-base's `setUnsetBetaGates` / `setUnsetAlphaGates`).
    beta_from: u32,
}

/// [`Gate::beta_from`] of a gate that is Alpha in every release modelled.
const NEVER: u32 = u32::MAX;

/// Releases 1.10 to 1.19, read at each tag.
const GATES: &[Gate] = &[
    Gate {
        name: "Failover",
        since: 0,
        defaults: &[(0, true), (12, false)],
        beta_from: 0,
    },
    Gate {
        name: "GracefulEviction",
        since: 0,
        defaults: &[(0, true)],
        beta_from: 0,
    },
    Gate {
        name: "PropagateDeps",
        since: 0,
        defaults: &[(0, true)],
        beta_from: 0,
    },
    Gate {
        name: "CustomizedClusterResourceModeling",
        since: 0,
        defaults: &[(0, true)],
        beta_from: 0,
    },
    Gate {
        name: "PropagationPolicyPreemption",
        since: 0,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
    Gate {
        name: "MultiClusterService",
        since: 0,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
    Gate {
        name: "ResourceQuotaEstimate",
        since: 9,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
    Gate {
        name: "StatefulFailoverInjection",
        since: 12,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
    Gate {
        name: "PriorityBasedScheduling",
        since: 13,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
    Gate {
        name: "FederatedQuotaEnforcement",
        since: 14,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
    Gate {
        name: "LoggingAlphaOptions",
        since: 15,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
    Gate {
        name: "LoggingBetaOptions",
        since: 15,
        defaults: &[(0, true)],
        beta_from: 0,
    },
    Gate {
        name: "ContextualLogging",
        since: 15,
        defaults: &[(0, true)],
        beta_from: 0,
    },
    Gate {
        name: "MultiplePodTemplatesScheduling",
        since: 15,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
    Gate {
        name: "ControllerPriorityQueue",
        since: 15,
        defaults: &[(0, false), (17, true)],
        beta_from: 17,
    },
    Gate {
        name: "WorkloadAffinity",
        since: 17,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
    Gate {
        name: "SchedulingOvercommitProtection",
        since: 18,
        defaults: &[(0, false)],
        beta_from: NEVER,
    },
];

/// A `--feature-gates` value Karmada would refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GateError {
    #[error("unrecognized feature gate: {name} (known in this release: {})", known.join(", "))]
    Unknown {
        name: String,
        known: Vec<&'static str>,
    },
    #[error("invalid value of {name}: {value}, err: not a bool")]
    NotBool { name: String, value: String },
    #[error("missing bool value for {0}")]
    MissingValue(String),
}

/// Gate values as written, by name: a `--feature-gates` flag, a configuration file's
/// `featureGates`, a repository's Karmada installation. The syntax is checked; the names are
/// checked against a release by [`GateSet::with_values`], once the release is known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GateValues(BTreeMap<String, bool>);

impl GateValues {
    pub fn new() -> GateValues {
        GateValues::default()
    }

    pub fn from_map(map: BTreeMap<String, bool>) -> GateValues {
        GateValues(map)
    }

    pub fn set(&mut self, name: &str, on: bool) {
        self.0.insert(name.to_string(), on);
    }

    /// `other`'s values over these: a later source overrides an earlier one gate by gate, as
    /// repeated `--feature-gates` flags do in component-base.
    pub fn overlay(&mut self, other: &GateValues) {
        self.0.extend(other.0.iter().map(|(k, v)| (k.clone(), *v)));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<bool> {
        self.0.get(name).copied()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, bool)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

impl std::str::FromStr for GateValues {
    type Err = GateError;

    /// `--feature-gates` as component-base's `featuregate.Set` reads it: comma-separated
    /// `Name=bool` pairs, spaces trimmed, the bool as `strconv.ParseBool` takes `true`/`false`
    /// in any case.
    fn from_str(spec: &str) -> Result<GateValues, GateError> {
        let mut values = GateValues::new();
        for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((name, value)) = pair.split_once('=') else {
                return Err(GateError::MissingValue(pair.to_string()));
            };
            let (name, value) = (name.trim(), value.trim());
            let on = match value.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => {
                    return Err(GateError::NotBool {
                        name: name.into(),
                        value: value.into(),
                    })
                }
            };
            values.set(name, on);
        }
        Ok(values)
    }
}

/// The gates in effect for one release, defaults overlaid with `--feature-gates`, and the
/// controller-manager flags set beside them ([`GateSet::with_flags`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateSet {
    pub version: KarmadaVersion,
    values: BTreeMap<&'static str, bool>,
    /// The gates set explicitly (for messages that say "the default").
    explicit: Vec<&'static str>,
    /// The flags set explicitly, each with where; the others have Karmada's default.
    flags: ControllerFlags,
}

impl Default for GateSet {
    /// The newest release's defaults.
    fn default() -> GateSet {
        GateSet::defaults(KarmadaVersion::LATEST)
    }
}

impl GateSet {
    /// Karmada's defaults for `version`.
    pub fn defaults(version: KarmadaVersion) -> GateSet {
        let values = GATES
            .iter()
            .filter(|g| version.minor >= g.since)
            .map(|g| {
                let on = g
                    .defaults
                    .iter()
                    .rev()
                    .find(|(from, _)| version.minor >= *from)
                    .is_some_and(|(_, on)| *on);
                (g.name, on)
            })
            .collect();
        GateSet {
            version,
            values,
            explicit: Vec::new(),
            flags: ControllerFlags::default(),
        }
    }

    /// Every gate of the release with its value in effect, by name.
    pub fn values(&self) -> impl Iterator<Item = (&'static str, bool)> + '_ {
        self.values.iter().map(|(name, on)| (*name, *on))
    }

    /// Whether `other` is the same Karmada: release, gates and controller-manager flags in
    /// effect, wherever each was set.
    pub fn same_effect(&self, other: &GateSet) -> bool {
        self.version == other.version
            && self.values == other.values
            && self.flags.same_values(&other.flags)
    }

    /// The gate names this release knows, `AllAlpha`/`AllBeta` included.
    pub fn known(version: KarmadaVersion) -> Vec<&'static str> {
        let mut known: Vec<&'static str> = Self::defaults(version).values.keys().copied().collect();
        known.extend(["AllAlpha", "AllBeta"]);
        known.sort_unstable();
        known
    }

    /// `--feature-gates` over the release's defaults.
    pub fn parse(version: KarmadaVersion, spec: &str) -> Result<GateSet, GateError> {
        GateSet::with_values(version, &spec.parse()?)
    }

    /// `values` over the release's defaults, as the controller-manager's `featuregate.SetFromMap`
    /// does: a name the release does not know is an error (it refuses to start), `AllAlpha` and
    /// `AllBeta` set every Alpha and Beta gate of the release that is not set explicitly
    /// (Karmada's local-up runs `--feature-gates=AllAlpha=true,AllBeta=true`, which turns on
    /// `Failover`, Beta and off by default from v1.12).
    pub fn with_values(version: KarmadaVersion, values: &GateValues) -> Result<GateSet, GateError> {
        let mut set = Self::defaults(version);
        let (mut all_alpha, mut all_beta) = (None, None);
        for (name, on) in values.iter() {
            match name {
                "AllAlpha" => all_alpha = Some(on),
                "AllBeta" => all_beta = Some(on),
                _ => {
                    let Some((&key, slot)) = set.values.iter_mut().find(|(k, _)| **k == name)
                    else {
                        return Err(GateError::Unknown {
                            name: name.into(),
                            known: Self::known(version),
                        });
                    };
                    *slot = on;
                    set.explicit.push(key);
                }
            }
        }
        for gate in GATES.iter().filter(|g| version.minor >= g.since) {
            let beta = version.minor >= gate.beta_from;
            let all = if beta { all_beta } else { all_alpha };
            if let Some(on) = all.filter(|_| !set.explicit.contains(&gate.name)) {
                set.values.insert(gate.name, on);
            }
        }
        Ok(set)
    }

    /// These gates with karmada-controller-manager's `flags` (over Karmada's defaults, as
    /// `--feature-gates` is over the gates'); a flag the release does not have is an error, as
    /// an unknown gate is.
    pub fn with_flags(mut self, flags: &ControllerFlags) -> Result<GateSet, FlagError> {
        if let Some(e) = flags.unknown_in(self.version).into_iter().next() {
            return Err(e);
        }
        self.flags = flags.clone();
        Ok(self)
    }

    /// The controller-manager flags set explicitly.
    pub fn flags(&self) -> &ControllerFlags {
        &self.flags
    }

    /// Whether the gate is on; a gate the release does not have is off.
    pub fn enabled(&self, name: &str) -> bool {
        self.values.get(name).copied().unwrap_or(false)
    }

    pub fn is_explicit(&self, name: &str) -> bool {
        self.explicit.contains(&name)
    }

    /// Why gate `name` is off, for a finding that relies on it: set so, or Karmada's default
    /// in this release.
    pub fn why_off(&self, name: &str) -> String {
        if self.is_explicit(name) {
            format!("the {name} feature gate is disabled")
        } else {
            format!(
                "the {name} feature gate is off by default in Karmada {}",
                self.version
            )
        }
    }

    pub fn failover(&self) -> bool {
        self.enabled("Failover")
    }

    /// Why cluster failover (the taint manager's eviction from a cluster with a NoExecute taint)
    /// never happens, for a finding that relies on it; `None` when it runs. It needs the
    /// `Failover` gate and `--enable-taint-manager` (default true), which together start the
    /// taint manager (`controllermanager.go:295-314`), and from v1.14.0
    /// `--enable-no-execute-taint-eviction=true`, without which the taint manager evicts nothing
    /// (`taint_manager.go:114-117`).
    pub fn why_no_cluster_failover(&self) -> Option<String> {
        if !self.failover() {
            return Some(self.why_off("Failover"));
        }
        if let Some(why) = self.flags.why_no_taint_manager() {
            return Some(why);
        }
        let why = self.flags.why_no_taint_eviction(self.version)?;
        Some(format!(
            "{why}, and the Failover feature gate alone evicts nothing"
        ))
    }

    /// Whether cluster failover runs ([`GateSet::why_no_cluster_failover`]).
    pub fn cluster_failover(&self) -> bool {
        self.why_no_cluster_failover().is_none()
    }

    /// `PropagationPolicyPreemption` (Alpha, default false, `features.go`): the only gate that
    /// changes which policy claims a template.
    pub fn preemption(&self) -> bool {
        self.enabled("PropagationPolicyPreemption")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(minor: u32) -> KarmadaVersion {
        KarmadaVersion::new(1, minor)
    }

    #[test]
    fn failover_is_off_by_default_from_1_12() {
        assert!(GateSet::defaults(v(11)).failover());
        assert!(!GateSet::defaults(v(12)).failover());
        assert!(!GateSet::defaults(v(19)).failover());
        assert!(GateSet::defaults(v(19)).enabled("GracefulEviction"));
        assert!(GateSet::defaults(v(19)).enabled("PropagateDeps"));
        assert!(!GateSet::defaults(v(19)).enabled("PropagationPolicyPreemption"));
        assert!(!GateSet::defaults(v(19)).enabled("StatefulFailoverInjection"));
        assert!(!GateSet::defaults(v(16)).enabled("ControllerPriorityQueue"));
        assert!(GateSet::defaults(v(17)).enabled("ControllerPriorityQueue"));
    }

    /// Karmada's local-up (`artifacts/deploy/karmada-controller-manager.yaml`) runs
    /// `--feature-gates=AllAlpha=true,AllBeta=true`: every Beta gate is on, Failover included;
    /// a gate set explicitly keeps its value; a gate that became Beta follows AllBeta from then.
    #[test]
    fn all_beta_turns_on_the_beta_gates_not_set_explicitly() {
        let set = GateSet::parse(v(19), "AllAlpha=true,AllBeta=true").unwrap();
        assert!(set.failover(), "Failover is Beta");
        assert!(set.preemption(), "PropagationPolicyPreemption is Alpha");
        let set = GateSet::parse(v(19), "AllBeta=true,Failover=false").unwrap();
        assert!(!set.failover() && !set.preemption());
        let set = GateSet::parse(v(19), "AllBeta=false").unwrap();
        assert!(!set.enabled("PropagateDeps") && !set.enabled("GracefulEviction"));
        // ControllerPriorityQueue: Alpha in 1.15 and 1.16, Beta from 1.17.
        let queue = |minor, spec| {
            GateSet::parse(v(minor), spec)
                .unwrap()
                .enabled("ControllerPriorityQueue")
        };
        assert!(!queue(16, "AllBeta=true") && queue(16, "AllAlpha=true"));
        assert!(!queue(17, "AllBeta=false") && queue(17, "AllAlpha=false"));
    }

    #[test]
    fn feature_gates_flag_as_karmada_parses_it() {
        let set = GateSet::parse(
            v(19),
            "Failover=true, AllAlpha=true, StatefulFailoverInjection=false",
        )
        .unwrap();
        assert!(set.failover() && set.is_explicit("Failover"));
        assert!(set.enabled("PropagationPolicyPreemption"), "AllAlpha");
        assert!(
            !set.enabled("StatefulFailoverInjection"),
            "explicit beats AllAlpha"
        );
        let err = GateSet::parse(v(19), "Failovr=true").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("unrecognized feature gate: Failovr (known in this release: AllAlpha, AllBeta, ContextualLogging"), "{text}");
        assert!(text.contains("Failover") && text.contains("StatefulFailoverInjection"));
        // A gate the release does not have yet is unknown there.
        assert!(matches!(
            GateSet::parse(v(11), "StatefulFailoverInjection=true"),
            Err(GateError::Unknown { .. })
        ));
        assert_eq!(
            GateSet::parse(v(19), "Failover=yes")
                .unwrap_err()
                .to_string(),
            "invalid value of Failover: yes, err: not a bool"
        );
    }

    /// From v1.14.0 the gate starts the taint manager, but only
    /// `--enable-no-execute-taint-eviction=true` makes it evict.
    #[test]
    fn cluster_failover_needs_the_gate_and_from_1_14_the_eviction_flag() {
        use crate::model::controller_flags::NO_EXECUTE_TAINT_EVICTION;
        let flags = |value: Option<bool>| {
            let mut f = ControllerFlags::default();
            if let Some(value) = value {
                f.set(NO_EXECUTE_TAINT_EVICTION, value, "k.yaml:7".into());
            }
            f
        };
        let set = |minor: u32, gate: bool, flag: Option<bool>| {
            GateSet::parse(v(minor), &format!("Failover={gate}"))
                .unwrap()
                .with_flags(&flags(flag))
                .unwrap()
        };
        // Before 1.14 the gate is enough.
        assert!(set(13, true, None).cluster_failover());
        assert!(GateSet::defaults(v(11)).cluster_failover());
        // From 1.14, the flag's default (false) stops it.
        let why = set(14, true, None).why_no_cluster_failover().unwrap();
        assert_eq!(why, "--enable-no-execute-taint-eviction is off by default in Karmada 1.14 (set by neither .karmada-policy.yaml nor the repository's Karmada installation), and the Failover feature gate alone evicts nothing");
        assert_eq!(
            set(19, true, Some(false)).why_no_cluster_failover().unwrap(),
            "karmada-controller-manager runs with --enable-no-execute-taint-eviction=false (k.yaml:7), and the Failover feature gate alone evicts nothing"
        );
        assert!(set(19, true, Some(true)).cluster_failover());
        // The gate off says so, whatever the flag.
        assert_eq!(
            set(19, false, Some(true))
                .why_no_cluster_failover()
                .unwrap(),
            "the Failover feature gate is disabled"
        );
        // A release without the flag refuses it.
        let err = GateSet::defaults(v(13)).with_flags(&flags(Some(true)));
        assert_eq!(err.unwrap_err().name, NO_EXECUTE_TAINT_EVICTION);
        // `--enable-taint-manager=false`: no taint manager, in any release, with the gate on.
        let mut off = flags(Some(true));
        off.set(
            crate::model::controller_flags::TAINT_MANAGER,
            false,
            "k.yaml:8".into(),
        );
        for minor in [12, 19] {
            let set = GateSet::parse(v(minor), "Failover=true").unwrap();
            let set = set.with_flags(&off.known_in(v(minor))).unwrap();
            assert_eq!(
                set.why_no_cluster_failover().unwrap(),
                "karmada-controller-manager runs with --enable-taint-manager=false (k.yaml:8), so no taint manager evicts"
            );
        }
    }
}
