//! The context a question is asked in: which Karmada release, feature gates and
//! controller-manager flags (`--enable-no-execute-taint-eviction`) the control plane runs, which
//! namespace objects without one land in, which member clusters there are,
//! and what the configuration file says. It is resolved once per run, before any input is read,
//! from the command line, `.karmada-policy.yaml` and (per environment of a GitOps repository)
//! the repository's own Karmada installation; every subcommand reads it, and none parses a
//! gate, a release or a configuration key itself.
//!
//! Precedence, highest first: command-line flags, the configuration file, the repository's
//! Karmada installation, Karmada's defaults for the release. The controller-manager flags have
//! no command-line flag of their own: the configuration, then the installation.

pub mod config;
pub mod flags;

use std::path::PathBuf;

use crate::engine::state::{Options, UnknownClaimers};
use crate::model::controller_flags::{ControllerFlags, FlagError};
use crate::model::feature_gates::{GateError, GateSet, GateValues};
use crate::model::installation::{InstallKind, RepositorySettings};
use crate::model::schedulers::Schedulers;
use crate::model::KarmadaVersion;

pub use config::{Config, ConfigError, RuleSetting};

/// The context flags as the command line gives them, typed (the CLI declares them once for
/// every subcommand that reads inputs).
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// `--config`: without it, `.karmada-policy.yaml` is found from the current directory up.
    pub config: Option<PathBuf>,
    /// `--karmada-version`.
    pub release: Option<KarmadaVersion>,
    /// `--feature-gates`, syntax checked.
    pub gates: Option<GateValues>,
    /// `-n/--namespace`.
    pub namespace: Option<String>,
}

/// What a repository's own Karmada installation says (its Helm chart values, the operator's
/// `Karmada` resource, or the controller-manager's arguments), with where it was read, for the
/// note that says so.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Installation {
    pub release: Option<KarmadaVersion>,
    pub gates: GateValues,
    /// The controller-manager's flags, each with its own `file:line`.
    pub flags: ControllerFlags,
    /// The scheduler names its karmada-schedulers serve besides the default, each with its
    /// own `file:line`.
    pub schedulers: Schedulers,
    /// `file:line` the settings were read from.
    pub from: String,
    /// Whether it may register the `clustertaintpolicy.karmada.io` validating webhook, which
    /// refuses NoExecute taints: the Helm chart and the operator register none (through
    /// v1.19); a karmada-controller-manager Deployment says nothing of the webhook.
    pub may_register_taint_webhook: bool,
}

/// Why a context cannot be resolved (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A gate the release does not know, named where it was set.
    #[error("{origin}: {source}")]
    Gates {
        origin: String,
        #[source]
        source: GateError,
    },
    /// A controller-manager flag the release does not have, named where it was set.
    #[error(transparent)]
    Flag(#[from] FlagError),
}

/// Where the release and the explicitly set gates came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origins {
    /// `None`: the newest release this tool knows (no flag, configuration or installation said).
    pub release: Option<String>,
    /// The repository installation read, when one was.
    pub installation: Option<String>,
}

/// One control plane's context (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Context {
    /// The release's gates in effect; the release is `gates.version`.
    pub gates: GateSet,
    pub origins: Origins,
    /// `-n`, when given. With files, objects that set no namespace land in it (else `default`);
    /// live, it overrides the kubeconfig context's namespace.
    pub namespace: Option<String>,
    pub config: Config,
    /// The scheduler names served besides `default-scheduler`: the configuration's
    /// `schedulers:` and those the repository's Karmada runs (the union: neither hides the
    /// other), each with where it was read.
    pub schedulers: Schedulers,
    /// ClusterTaintPolicy's NoExecute taints are admitted: karmada-webhook runs with
    /// `--allow-no-execute-taint-policy` (the configuration's `webhookFlags`), or the
    /// repository's installation registers no ClusterTaintPolicy webhook at all.
    pub no_execute_taints_admitted: bool,
    flags: Flags,
}

impl Context {
    /// The context of `flags` over the configuration file they lead to. `known_rule` tells the
    /// configuration's rule ids from typos.
    pub fn resolve(
        flags: Flags,
        known_rule: &dyn Fn(&str) -> bool,
    ) -> Result<Context, ContextError> {
        let config = Config::find(flags.config.as_deref(), known_rule)?;
        Context::with(flags, config, None)
    }

    /// This context for an environment whose repository installs Karmada as `installation`
    /// says: its release and gates count where neither a flag nor the configuration sets them.
    pub fn with_installation(&self, installation: &Installation) -> Result<Context, ContextError> {
        Context::with(self.flags.clone(), self.config.clone(), Some(installation))
    }

    /// This context for an environment whose repository installs Karmada as `settings` found
    /// it, under the configuration and the flags (flags > `.karmada-policy.yaml` > repository >
    /// Karmada's defaults, [`Context::with_installation`]), and the notes to give: a gate the
    /// release does not know is left out, and an installation that cannot be used is said and
    /// ignored; so is a controller-manager flag the release does not have. `lint`, `explain`,
    /// `preempt-check` and `plan` take each environment's context from here.
    pub fn for_repository(&self, settings: &RepositorySettings) -> (Context, Vec<String>) {
        let mut notes = Vec::new();
        let served = settings.served();
        let Some(found) = &settings.installation else {
            return (self.serving(&served), notes);
        };
        let release = settings.release().unwrap_or(self.release());
        let known = GateSet::known(release);
        let mut gates = GateValues::new();
        for (name, on) in settings.gates() {
            if known.contains(&name.as_str()) {
                gates.set(&name, on);
            } else {
                notes.push(format!(
                    "{}: feature gate {name} is not a gate of Karmada {release}: ignored",
                    found.at
                ));
            }
        }
        let flags = settings.flags();
        for unknown in flags.unknown_in(release) {
            notes.push(format!("{unknown}: ignored"));
        }
        let installation = Installation {
            release: settings.release(),
            gates,
            flags: flags.known_in(release),
            schedulers: served,
            from: found.at.to_string(),
            may_register_taint_webhook: found.kind == InstallKind::Deployment,
        };
        match self.with_installation(&installation) {
            Ok(env) => (env, notes),
            Err(e) => {
                notes.push(format!(
                    "the repository's Karmada installation is not used: {e}"
                ));
                // The schedulers run whatever the controller-manager's settings.
                (self.serving(&installation.schedulers), notes)
            }
        }
    }

    /// This context with the scheduler names `more` served too.
    fn serving(&self, more: &Schedulers) -> Context {
        let mut context = self.clone();
        context.schedulers.extend(more);
        context
    }

    /// This context for plain manifests (files that are no GitOps repository: one control
    /// plane) holding the Karmada installations `found`, in input order: the first one counts,
    /// as for an environment ([`Context::for_repository`]); and the notes to give, the settings
    /// read included. `lint` finds them as it parses; `explain`, `preempt-check` and `plan`
    /// read them first.
    pub fn for_plain(
        &self,
        found: Vec<crate::model::installation::Installation>,
    ) -> (Context, Vec<String>) {
        if found.is_empty() {
            return (self.clone(), Vec::new());
        }
        let repository = RepositorySettings::of(found);
        let (context, mut notes) = self.for_repository(&repository);
        notes.extend(crate::model::installation::plain_settings_note(&repository));
        (context, notes)
    }

    /// [`Context::for_plain`] for the inputs `paths` names (as given): where they hold no
    /// installation, the one the rest of their git repository holds, if it installs one
    /// ([`crate::model::elsewhere`]), with a note saying so first.
    pub fn for_plain_paths(
        &self,
        found: Vec<crate::model::installation::Installation>,
        paths: &[String],
    ) -> (Context, Vec<String>) {
        let ignore = |p: &std::path::Path| self.config.ignores(p);
        let search = crate::model::elsewhere::Search::new(&ignore, self.config.chart_rendering());
        self.for_plain_or(found, || crate::model::elsewhere::outside(paths, search))
    }

    /// [`Context::for_plain`], or where `found` is empty, for the installation `elsewhere`
    /// finds in the rest of the repository (the git modes read a revision's), said first.
    pub fn for_plain_or(
        &self,
        found: Vec<crate::model::installation::Installation>,
        elsewhere: impl FnOnce() -> Option<crate::model::elsewhere::Elsewhere>,
    ) -> (Context, Vec<String>) {
        if !found.is_empty() {
            return self.for_plain(found);
        }
        let Some(elsewhere) = elsewhere() else {
            return (self.clone(), Vec::new());
        };
        let (context, notes) = self.for_plain(elsewhere.installations.clone());
        (context, elsewhere.note().into_iter().chain(notes).collect())
    }

    fn with(
        flags: Flags,
        config: Config,
        installation: Option<&Installation>,
    ) -> Result<Context, ContextError> {
        let config_name = || {
            config
                .path
                .as_ref()
                .map_or_else(|| "configuration".to_string(), |p| p.display().to_string())
        };
        let (release, release_origin) = if let Some(v) = flags.release {
            (v, Some("--karmada-version".to_string()))
        } else if let Some(v) = config.karmada_version {
            (v, Some(config_name()))
        } else if let Some(v) = installation.and_then(|i| i.release) {
            (v, installation.map(|i| i.from.clone()))
        } else {
            (KarmadaVersion::LATEST, None)
        };
        // Each source is checked on its own, so an unknown gate is named where it was set.
        let check = |values: &GateValues, origin: &dyn Fn() -> String| {
            GateSet::with_values(release, values).map_err(|source| ContextError::Gates {
                origin: origin(),
                source,
            })
        };
        let mut values = GateValues::new();
        if let Some(i) = installation {
            check(&i.gates, &|| i.from.clone())?;
            values.overlay(&i.gates);
        }
        check(&config.feature_gates, &|| config.feature_gates_at.clone())?;
        values.overlay(&config.feature_gates);
        if let Some(g) = &flags.gates {
            check(g, &|| "invalid --feature-gates".to_string())?;
            values.overlay(g);
        }
        // The controller-manager's flags: the configuration's over the installation's, each
        // naming where it was set if the release lacks it.
        let mut controller_flags =
            installation.map_or_else(ControllerFlags::default, |i| i.flags.clone());
        controller_flags.overlay(&config.controller_flags);
        let gates =
            check(&values, &|| "feature gates".to_string())?.with_flags(&controller_flags)?;
        let mut schedulers = config.schedulers.clone();
        if let Some(i) = installation {
            schedulers.extend(&i.schedulers);
        }
        let no_execute_taints_admitted = config.allow_no_execute_taint_policy
            || installation.is_some_and(|i| !i.may_register_taint_webhook);
        Ok(Context {
            gates,
            no_execute_taints_admitted,
            origins: Origins {
                release: release_origin,
                installation: installation.map(|i| i.from.clone()),
            },
            namespace: flags.namespace.clone(),
            config,
            schedulers,
            flags,
        })
    }

    /// The Karmada release whose rules apply.
    pub fn release(&self) -> KarmadaVersion {
        self.gates.version
    }

    /// The namespace objects read from files land in when they set none (`kubectl apply -n`).
    pub fn files_namespace(&self) -> &str {
        self.namespace.as_deref().unwrap_or("default")
    }

    /// The member clusters the configuration names (`knownClusters`): known by name only,
    /// their status unknown.
    pub fn known_clusters(&self) -> &[String] {
        &self.config.known_clusters
    }

    /// The engine's options in this context; `unknown_claimers` says whether the inputs are the
    /// whole control plane.
    pub fn engine_options(&self, unknown_claimers: UnknownClaimers) -> Options {
        self.engine_options_in(&self.gates, unknown_claimers)
    }

    /// [`Context::engine_options`] in a control plane of `gates` (an environment's own
    /// release, gates and controller-manager flags), with this context's scheduler names.
    pub fn engine_options_in(&self, gates: &GateSet, unknown_claimers: UnknownClaimers) -> Options {
        Options {
            unknown_claimers,
            schedulers: self.schedulers.clone(),
            known_clusters: self.known_clusters().to_vec(),
            ..crate::engine::ownership::engine_options(gates)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn config(text: &str) -> Config {
        Config::parse("c.yaml", text, Path::new("."), &|_| true).unwrap()
    }

    fn flags(release: Option<&str>, gates: Option<&str>) -> Flags {
        Flags {
            release: release.map(|r| r.parse().unwrap()),
            gates: gates.map(|g| g.parse().unwrap()),
            ..Flags::default()
        }
    }

    #[test]
    fn flags_over_configuration_over_installation() {
        let installation = Installation {
            release: Some(KarmadaVersion::new(1, 17)),
            gates: "Failover=true,PropagationPolicyPreemption=true"
                .parse()
                .unwrap(),
            flags: ControllerFlags::default(),
            schedulers: Schedulers::default(),
            from: "infra/karmada.yaml:12".into(),
            may_register_taint_webhook: true,
        };
        let none = Context::with(Flags::default(), config(""), Some(&installation)).unwrap();
        assert_eq!(none.release(), KarmadaVersion::new(1, 17));
        assert!(none.gates.failover() && none.gates.preemption());
        assert_eq!(
            none.origins.release.as_deref(),
            Some("infra/karmada.yaml:12")
        );

        let configured = Context::with(
            Flags::default(),
            config("karmadaVersion: '1.18'\nfeatureGates: {Failover: false}\n"),
            Some(&installation),
        )
        .unwrap();
        assert_eq!(configured.release(), KarmadaVersion::new(1, 18));
        assert!(!configured.gates.failover(), "the configuration wins");
        assert!(configured.gates.preemption(), "what it leaves unset stays");

        let flagged = Context::with(
            flags(Some("1.19"), Some("Failover=true")),
            config("karmadaVersion: '1.18'\nfeatureGates: {Failover: false}\n"),
            Some(&installation),
        )
        .unwrap();
        assert_eq!(flagged.release(), KarmadaVersion::LATEST);
        assert!(flagged.gates.failover(), "the flag wins");
    }

    /// An environment's repository settings: its release and known gates count under the
    /// run's flags; a gate its release does not know is left out with a note; no installation
    /// leaves the run's context as it is.
    #[test]
    fn an_environment_takes_its_repositorys_karmada_under_the_flags() {
        use crate::model::installation::{InstallKind, Origin, Setting};
        let at = |line| Origin {
            file: "infra/release.yaml".into(),
            line,
        };
        let found = crate::model::installation::Installation {
            kind: InstallKind::HelmRelease,
            object: "HelmRelease karmada-system/karmada".into(),
            at: at(1),
            release: Some(Setting {
                value: KarmadaVersion::new(1, 16),
                at: at(11),
            }),
            gates: [
                ("PropagationPolicyPreemption", true, 19),
                ("WorkloadAffinity", true, 20),
            ]
            .into_iter()
            .map(|(name, value, line)| {
                (
                    name.to_string(),
                    Setting {
                        value,
                        at: at(line),
                    },
                )
            })
            .collect(),
            flags: Default::default(),
            skipped_namespaces: None,
            schedulers: Vec::new(),
            notes: Vec::new(),
        };
        let settings = RepositorySettings::of(vec![found]);
        let run = Context::with(flags(None, None), config(""), None).unwrap();
        let (env, notes) = run.for_repository(&settings);
        assert_eq!(env.release(), KarmadaVersion::new(1, 16));
        assert!(env.gates.preemption());
        assert_eq!(
            notes,
            ["infra/release.yaml:1: feature gate WorkloadAffinity is not a gate of Karmada 1.16: ignored"]
        );
        let flagged = Context::with(
            flags(Some("1.19"), Some("PropagationPolicyPreemption=false")),
            config(""),
            None,
        )
        .unwrap();
        let (env, _) = flagged.for_repository(&settings);
        assert_eq!(env.release(), KarmadaVersion::LATEST, "the flag wins");
        assert!(!env.gates.preemption(), "the flag wins");
        let (same, notes) = run.for_repository(&RepositorySettings::default());
        assert_eq!((same.release(), notes.len()), (run.release(), 0));
        assert_eq!(same.gates, run.gates);
    }

    /// `--enable-no-execute-taint-eviction` as the gates go: the configuration over the
    /// repository's installation, each named where it was set; the context's gates carry it to
    /// every reader.
    #[test]
    fn the_eviction_flag_comes_from_the_configuration_over_the_installation() {
        use crate::model::controller_flags::{FlagValue, NO_EXECUTE_TAINT_EVICTION};
        let mut repo_flags = ControllerFlags::default();
        repo_flags.set(
            NO_EXECUTE_TAINT_EVICTION,
            true,
            "infra/karmada.yaml:21".into(),
        );
        let installation = Installation {
            release: Some(KarmadaVersion::new(1, 17)),
            gates: "Failover=true".parse().unwrap(),
            flags: repo_flags,
            schedulers: Schedulers::default(),
            from: "infra/karmada.yaml:1".into(),
            may_register_taint_webhook: true,
        };
        let repo = Context::with(Flags::default(), config(""), Some(&installation)).unwrap();
        assert!(repo.gates.cluster_failover(), "the installation's flag");
        let configured = Context::with(
            Flags::default(),
            config("controllerManagerFlags:\n  enable-no-execute-taint-eviction: false\n"),
            Some(&installation),
        )
        .unwrap();
        assert_eq!(
            configured.gates.flags().get(NO_EXECUTE_TAINT_EVICTION),
            Some(&FlagValue {
                value: false,
                from: "c.yaml:2".into()
            }),
            "the configuration wins"
        );
        assert!(configured
            .gates
            .why_no_cluster_failover()
            .unwrap()
            .contains("--enable-no-execute-taint-eviction=false (c.yaml:2)"));
        // Without either, Karmada's default: off.
        let none = Context::with(flags(None, Some("Failover=true")), config(""), None).unwrap();
        assert!(!none.gates.cluster_failover());
        // A release without the flag: the configuration's is an error, as an unknown gate is.
        let err = Context::with(
            flags(Some("1.13"), None),
            config("controllerManagerFlags: {enable-no-execute-taint-eviction: true}\n"),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("c.yaml:1: unknown flag: --enable-no-execute-taint-eviction"),
            "{err}"
        );
    }

    /// An environment's installation carries its flag into the environment's context; a flag
    /// its release does not have is left out with a note.
    #[test]
    fn an_environment_takes_its_installations_flags() {
        use crate::model::installation::{InstallKind, Origin, Setting};
        let found = |tag_minor: u32| crate::model::installation::Installation {
            kind: InstallKind::Deployment,
            object: "Deployment karmada-system/karmada-controller-manager".into(),
            at: Origin {
                file: "cm.yaml".into(),
                line: 1,
            },
            release: Some(Setting {
                value: KarmadaVersion::new(1, tag_minor),
                at: Origin {
                    file: "cm.yaml".into(),
                    line: 9,
                },
            }),
            gates: [(
                "Failover".to_string(),
                Setting {
                    value: true,
                    at: Origin {
                        file: "cm.yaml".into(),
                        line: 12,
                    },
                },
            )]
            .into(),
            flags: [(
                NO_EXECUTE.to_string(),
                Setting {
                    value: true,
                    at: Origin {
                        file: "cm.yaml".into(),
                        line: 13,
                    },
                },
            )]
            .into(),
            skipped_namespaces: None,
            schedulers: Vec::new(),
            notes: Vec::new(),
        };
        const NO_EXECUTE: &str = crate::model::controller_flags::NO_EXECUTE_TAINT_EVICTION;
        let run = Context::with(flags(None, None), config(""), None).unwrap();
        assert!(!run.gates.cluster_failover());
        let (env, notes) = run.for_repository(&RepositorySettings::of(vec![found(17)]));
        assert!(notes.is_empty(), "{notes:?}");
        assert!(env.gates.cluster_failover());
        let (env, notes) = run.for_repository(&RepositorySettings::of(vec![found(13)]));
        assert_eq!(
            notes,
            ["cm.yaml:13: unknown flag: --enable-no-execute-taint-eviction (karmada-controller-manager has it from Karmada 1.14; this is 1.13): ignored"]
        );
        assert_eq!(env.release(), KarmadaVersion::new(1, 13));
        assert!(env.gates.cluster_failover(), "1.13 needs the gate only");
    }

    #[test]
    fn an_unknown_gate_is_an_error_named_where_it_was_set() {
        let err = Context::with(flags(None, Some("Bogus=true")), config(""), None)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("invalid --feature-gates: unrecognized feature gate: Bogus (known in this release: AllAlpha, AllBeta,"),
            "{err}"
        );
        let err = Context::with(
            Flags::default(),
            config("\nfeatureGates: {Bogus: true}\n"),
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("c.yaml:2:1: unrecognized feature gate: Bogus"),
            "{err}"
        );
        // A gate of a later release is unknown to an earlier one.
        assert!(Context::with(
            flags(Some("1.16"), Some("WorkloadAffinity=true")),
            config(""),
            None
        )
        .is_err());
        assert!(
            Context::with(flags(None, Some("WorkloadAffinity=true")), config(""), None).is_ok()
        );
    }

    /// The scheduler names served are the configuration's and the repository's together:
    /// neither hides the other, with or without an installation beside the schedulers.
    #[test]
    fn the_schedulers_served_are_the_configurations_and_the_repositorys() {
        use crate::model::installation::{InstallKind, Origin, Setting};
        let at = |line| Origin {
            file: "sched.yaml".into(),
            line,
        };
        let scheduler = crate::model::installation::Installation {
            kind: InstallKind::Scheduler,
            object: "Deployment karmada-system/custom-scheduler".into(),
            at: at(1),
            release: None,
            gates: Default::default(),
            flags: Default::default(),
            skipped_namespaces: None,
            schedulers: vec![Setting {
                value: "custom".into(),
                at: at(14),
            }],
            notes: Vec::new(),
        };
        let run = Context::with(
            Flags::default(),
            config("schedulers: [fast, custom]\n"),
            None,
        )
        .unwrap();
        let read = |c: &Context| -> Vec<(String, String)> {
            c.schedulers
                .iter()
                .map(|s| (s.name.clone(), s.from.clone()))
                .collect()
        };
        assert_eq!(
            read(&run),
            [
                ("fast".into(), "c.yaml:1".into()),
                ("custom".into(), "c.yaml:1".into())
            ]
        );
        let bare = Context::with(Flags::default(), config(""), None).unwrap();
        let settings = RepositorySettings::of(vec![scheduler.clone()]);
        let (env, notes) = bare.for_repository(&settings);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(read(&env), [("custom".into(), "sched.yaml:14".into())]);
        assert_eq!(env.release(), bare.release(), "no release of its own");
        // Beside an installation (its flag, which 1.13 lacks, left out), the name counts too.
        let mut broken = scheduler.clone();
        broken.kind = InstallKind::Deployment;
        broken.schedulers.clear();
        broken.flags.insert(
            crate::model::controller_flags::NO_EXECUTE_TAINT_EVICTION.into(),
            Setting {
                value: true,
                at: at(30),
            },
        );
        let old = Context::with(flags(Some("1.13"), None), config(""), None).unwrap();
        let (env, _) = old.for_repository(&RepositorySettings::of(vec![broken, scheduler]));
        assert_eq!(read(&env), [("custom".into(), "sched.yaml:14".into())]);
    }
}
