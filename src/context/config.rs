//! `.karmada-policy.yaml`: found from the current directory upwards, or given with `--config`.
//!
//! ```yaml
//! karmadaVersion: "1.19"
//! featureGates:
//!   PropagationPolicyPreemption: true
//! controllerManagerFlags:    # karmada-controller-manager's flags, without the dashes
//!   enable-no-execute-taint-eviction: true
//! webhookFlags:              # karmada-webhook's flags, without the dashes
//!   allow-no-execute-taint-policy: true
//! rules:
//!   overlap: "off"           # off | info | warning | error
//!   dead-policy: warning
//! knownClusters: [member1, member2, member3]
//! schedulers: [custom-scheduler]
//! ignorePaths: ["charts/**", "**/kustomization.yaml"]
//! maxSuspensionAge: 7d
//! namespaces:                # files applied with a namespace (kubectl apply -n, Ansible)
//!   "scripts/gpu-operator/**": gpu-operator
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::model::controller_flags::{
    invalid_namespace_pattern, is_flag, namespace_controller_runs, parse_skipped_namespaces,
    ControllerFlags, CONTROLLERS, SKIPPED_NAMESPACES,
};
use crate::model::feature_gates::GateValues;
use crate::model::schedulers::Schedulers;
use crate::model::severity::Severity;
use crate::model::KarmadaVersion;
use crate::source::kustomize::environments::RenderOptions;
use crate::source::{load, FieldPath, Source};

pub const FILE_NAME: &str = ".karmada-policy.yaml";

/// The karmada-webhook flags `webhookFlags` takes, without the dashes: the one that lets
/// ClusterTaintPolicy's NoExecute taints through (`cmd/webhook/app/options/options.go:99`
/// @v1.14.0, default false).
pub const WEBHOOK_FLAGS: &[&str] = &[crate::engine::admission::taint_chain::ALLOW_NO_EXECUTE_FLAG];

/// Why a config file cannot be used. Every variant but `Read` names the file, line and column
/// (`at`) of the offending setting.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: cannot read config: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid YAML.
    #[error("{at}: {message}")]
    Syntax { at: String, message: String },
    /// A field is unknown or has the wrong type.
    #[error("{at}: invalid config: {source}")]
    Invalid {
        at: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("{at}: {message}")]
    KarmadaVersion { at: String, message: String },
    #[error("{at}: unknown rule `{id}` (see `kubectl karmada-policy lint --list-rules`)")]
    UnknownRule { at: String, id: String },
    #[error("{at}: `{name}` is not a karmada-controller-manager flag this tool reads (it reads: {}, {CONTROLLERS}, {SKIPPED_NAMESPACES})", ControllerFlags::NAMES.join(", "))]
    UnknownFlag { at: String, name: String },
    /// A flag this tool reads, with a value karmada-controller-manager refuses.
    #[error("{at}: {message}")]
    FlagValue { at: String, message: String },
    #[error("{at}: `{name}` is not a karmada-webhook flag this tool reads (it reads: {})", WEBHOOK_FLAGS.join(", "))]
    UnknownWebhookFlag { at: String, name: String },
    #[error("{at}: rule `{id}`: expected off, info, warning or error, got `{got}`")]
    RuleSetting { at: String, id: String, got: String },
    #[error("{at}: {source}")]
    IgnorePath {
        at: String,
        #[source]
        source: globset::Error,
    },
    #[error("{at}: invalid duration `{value}` (use e.g. 7d, 36h, 90m)")]
    Duration { at: String, value: String },
    #[error("{at}: {source}")]
    NamespacePath {
        at: String,
        #[source]
        source: globset::Error,
    },
}

/// A `controllerManagerFlags` value as written.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawFlag {
    Bool(bool),
    Text(String),
}

/// What a rule is set to in the config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleSetting {
    Off,
    Severity(Severity),
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawConfig {
    karmada_version: Option<String>,
    #[serde(default)]
    feature_gates: BTreeMap<String, bool>,
    /// Flag name (without dashes) → value, as set on karmada-controller-manager: a bool, or
    /// the text of a list flag (`skipped-propagating-namespaces: "kube-.*,sandbox"`).
    #[serde(default)]
    controller_manager_flags: BTreeMap<String, RawFlag>,
    /// Flag name (without dashes) → value, as set on karmada-webhook.
    #[serde(default)]
    webhook_flags: BTreeMap<String, bool>,
    #[serde(default)]
    rules: BTreeMap<String, String>,
    #[serde(default)]
    known_clusters: Vec<String>,
    /// The names karmada-schedulers run with besides `default-scheduler` (`--scheduler-name`).
    #[serde(default)]
    schedulers: Vec<String>,
    #[serde(default)]
    ignore_paths: Vec<String>,
    max_suspension_age: Option<String>,
    #[serde(default)]
    gitops: RawGitops,
    /// Path pattern → the namespace the files it matches are applied to.
    #[serde(default)]
    namespaces: BTreeMap<String, String>,
}

/// `gitops:`: how kustomize roots and Helm charts are rendered.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawGitops {
    /// `false` lints every file as a plain manifest, as without this section.
    render: Option<bool>,
    kustomize: Option<String>,
    helm: Option<String>,
    #[serde(default)]
    helm_values: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    roots: Vec<String>,
    #[serde(default)]
    plugins: bool,
    #[serde(default)]
    helm_inflation: bool,
    #[serde(default)]
    remote_resources: bool,
}

/// The effective configuration.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The file it came from, if any.
    pub path: Option<PathBuf>,
    pub karmada_version: Option<KarmadaVersion>,
    /// `featureGates`, checked against the release when the context is resolved.
    pub feature_gates: GateValues,
    /// `file:line:col` of `featureGates`, for the error naming a gate the release lacks.
    pub feature_gates_at: String,
    /// `controllerManagerFlags`, each with its `file:line`; checked against the release when
    /// the context is resolved.
    pub controller_flags: ControllerFlags,
    /// `webhookFlags.allow-no-execute-taint-policy`: karmada-webhook admits ClusterTaintPolicy
    /// taints with effect NoExecute.
    pub allow_no_execute_taint_policy: bool,
    pub rules: BTreeMap<String, RuleSetting>,
    pub known_clusters: Vec<String>,
    /// `schedulers:`: the scheduler names served besides karmada-scheduler's default, each
    /// with its `file:line`.
    pub schedulers: Schedulers,
    ignore: Option<GlobSet>,
    /// Base directory that `ignorePaths` are relative to.
    base: PathBuf,
    pub max_suspension_age_secs: Option<u64>,
    /// `gitops.render: false`: kustomize roots and charts are read as plain files, unrendered.
    pub render_off: bool,
    pub render_options: RenderOptions,
    /// `namespaces:`: (pattern, matcher, namespace), relative to `base`.
    namespaces: Vec<(String, globset::GlobMatcher, String)>,
}

impl Config {
    /// Looks for `.karmada-policy.yaml` in `start` and its parents.
    pub fn discover(start: &Path) -> Option<PathBuf> {
        let mut dir = Some(start);
        while let Some(d) = dir {
            let candidate = d.join(FILE_NAME);
            if candidate.is_file() {
                return Some(candidate);
            }
            dir = d.parent();
        }
        None
    }

    /// The configuration a run reads: `flag` (`--config`) when given, else
    /// `.karmada-policy.yaml` found from the current directory up, else the defaults.
    /// `known_rule` tells rule ids from typos, as for [`Config::load`].
    pub fn find(
        flag: Option<&Path>,
        known_rule: &dyn Fn(&str) -> bool,
    ) -> Result<Config, ConfigError> {
        let path = match flag {
            Some(p) => Some(p.to_path_buf()),
            None => std::env::current_dir()
                .ok()
                .and_then(|d| Config::discover(&d)),
        };
        match path {
            Some(p) => Config::load(&p, known_rule),
            None => Ok(Config::default()),
        }
    }

    /// Reads and checks a config file; errors name the file, line and column.
    pub fn load(path: &Path, known_rule: &dyn Fn(&str) -> bool) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let name = path.display().to_string();
        Config::parse(
            &name,
            &text,
            path.parent().unwrap_or(Path::new(".")),
            known_rule,
        )
        .map(|mut c| {
            c.path = Some(path.to_path_buf());
            c
        })
    }

    pub fn parse(
        name: &str,
        text: &str,
        base: &Path,
        known_rule: &dyn Fn(&str) -> bool,
    ) -> Result<Config, ConfigError> {
        let loaded = load(Source::new(name, text));
        if let Some(p) = loaded.problems.first() {
            return Err(ConfigError::Syntax {
                at: format!("{name}:{}:{}", p.span.start.line, p.span.start.col),
                message: p.message.clone(),
            });
        }
        let Some(doc) = loaded.documents.first() else {
            return Ok(Config {
                base: base.to_path_buf(),
                ..Config::default()
            });
        };
        let at = |field: &str| {
            let s = doc.root.locate(&FieldPath::parse(field));
            format!("{name}:{}:{}", s.start.line, s.start.col)
        };
        let raw: RawConfig = serde_json::from_value(doc.root.to_json()).map_err(|source| {
            let msg = source.to_string();
            let field = msg.split('`').nth(1).unwrap_or_default();
            ConfigError::Invalid {
                at: at(field),
                source,
            }
        })?;
        let karmada_version = raw
            .karmada_version
            .as_deref()
            .map(|v| {
                v.parse().map_err(|message| ConfigError::KarmadaVersion {
                    at: at("karmadaVersion"),
                    message,
                })
            })
            .transpose()?;
        let mut controller_flags = ControllerFlags::default();
        for (flag, value) in &raw.controller_manager_flags {
            let key = FieldPath::root()
                .key("controllerManagerFlags")
                .key(flag.as_str());
            let line = doc.root.locate(&key).start.line;
            let from = format!("{name}:{line}");
            let field = format!("controllerManagerFlags.{flag}");
            // The bool flags, and the list flags as their text: `--skipped-propagating-namespaces`
            // and `--controllers` (kept as whether the namespace controller runs).
            match value {
                RawFlag::Bool(on) if ControllerFlags::canonical(flag).is_some() => {
                    controller_flags.set(flag, *on, from);
                }
                RawFlag::Text(list) if is_flag(flag, CONTROLLERS) => {
                    controller_flags.set(CONTROLLERS, namespace_controller_runs(list), from);
                }
                RawFlag::Text(list) if is_flag(flag, SKIPPED_NAMESPACES) => {
                    let patterns = parse_skipped_namespaces(list);
                    if let Some(message) =
                        patterns.iter().find_map(|p| invalid_namespace_pattern(p))
                    {
                        return Err(ConfigError::FlagValue {
                            at: at(&field),
                            message,
                        });
                    }
                    controller_flags.set_skipped_namespaces(patterns, from);
                }
                RawFlag::Bool(_) if is_flag(flag, SKIPPED_NAMESPACES) => {
                    return Err(ConfigError::FlagValue {
                        at: at(&field),
                        message: format!("--{SKIPPED_NAMESPACES} takes a comma-separated list of regular expressions, not a bool"),
                    });
                }
                RawFlag::Bool(_) if is_flag(flag, CONTROLLERS) => {
                    return Err(ConfigError::FlagValue {
                        at: at(&field),
                        message: format!("--{CONTROLLERS} takes a comma-separated list of controllers (`*,-namespace`), not a bool"),
                    });
                }
                RawFlag::Text(text) if ControllerFlags::canonical(flag).is_some() => {
                    return Err(ConfigError::FlagValue {
                        at: at(&field),
                        message: format!(
                            "--{flag} is a bool flag: write true or false, not `{text}`"
                        ),
                    });
                }
                _ => {
                    return Err(ConfigError::UnknownFlag {
                        at: at(&field),
                        name: flag.clone(),
                    })
                }
            }
        }
        let mut schedulers = Schedulers::default();
        for (i, scheduler) in raw.schedulers.iter().enumerate() {
            let key = FieldPath::root().key("schedulers").index(i);
            let line = doc.root.locate(&key).start.line;
            schedulers.add(scheduler, format!("{name}:{line}"));
        }
        let mut allow_no_execute_taint_policy = false;
        for (flag, value) in &raw.webhook_flags {
            if !is_flag(flag, WEBHOOK_FLAGS[0]) {
                return Err(ConfigError::UnknownWebhookFlag {
                    at: at(&format!("webhookFlags.{flag}")),
                    name: flag.clone(),
                });
            }
            allow_no_execute_taint_policy = *value;
        }
        let mut rules = BTreeMap::new();
        for (id, setting) in &raw.rules {
            if !known_rule(id) {
                return Err(ConfigError::UnknownRule {
                    at: at(&format!("rules.{id}")),
                    id: id.clone(),
                });
            }
            let s = match setting.as_str() {
                "off" | "false" => RuleSetting::Off,
                other => RuleSetting::Severity(Severity::parse(other).ok_or_else(|| {
                    ConfigError::RuleSetting {
                        at: at(&format!("rules.{id}")),
                        id: id.clone(),
                        got: other.to_string(),
                    }
                })?),
            };
            rules.insert(id.clone(), s);
        }
        let ignore = if raw.ignore_paths.is_empty() {
            None
        } else {
            let mut b = GlobSetBuilder::new();
            for g in &raw.ignore_paths {
                let glob =
                    Glob::new(ignore_pattern(g)).map_err(|source| ConfigError::IgnorePath {
                        at: at("ignorePaths"),
                        source,
                    })?;
                b.add(glob);
            }
            Some(b.build().map_err(|source| ConfigError::IgnorePath {
                at: at("ignorePaths"),
                source,
            })?)
        };
        let max_suspension_age_secs = raw
            .max_suspension_age
            .as_deref()
            .map(|s| {
                parse_duration(s).ok_or_else(|| ConfigError::Duration {
                    at: at("maxSuspensionAge"),
                    value: s.to_string(),
                })
            })
            .transpose()?;
        let mut namespaces = Vec::new();
        for (pattern, ns) in &raw.namespaces {
            let glob = Glob::new(pattern).map_err(|source| {
                let key = FieldPath::root().key("namespaces").key(pattern.as_str());
                let s = doc.root.locate(&key);
                ConfigError::NamespacePath {
                    at: format!("{name}:{}:{}", s.start.line, s.start.col),
                    source,
                }
            })?;
            namespaces.push((pattern.clone(), glob.compile_matcher(), ns.clone()));
        }
        let at_base = |p: &String| crate::source::kustomize::normalize(&base.join(p));
        let g = &raw.gitops;
        let render_options = RenderOptions {
            environment: None,
            kustomize: g.kustomize.clone(),
            helm: g.helm.clone(),
            helm_values: g
                .helm_values
                .iter()
                .map(|(chart, files)| (at_base(chart), files.iter().map(at_base).collect()))
                .collect(),
            extra_roots: g.roots.iter().map(at_base).collect(),
            plugins: g.plugins,
            helm_inflation: g.helm_inflation,
            remote_resources: g.remote_resources,
            root: None,
        };
        Ok(Config {
            render_off: g.render == Some(false),
            render_options,
            path: None,
            karmada_version,
            feature_gates_at: at("featureGates"),
            feature_gates: GateValues::from_map(raw.feature_gates),
            controller_flags,
            allow_no_execute_taint_policy,
            rules,
            known_clusters: raw.known_clusters,
            schedulers,
            ignore,
            base: base.to_path_buf(),
            max_suspension_age_secs,
            namespaces,
        })
    }

    /// The namespace `namespaces:` gives the file at `path` (the longest matching pattern
    /// wins), if any.
    pub fn namespace_for(&self, path: &Path) -> Option<&str> {
        let rel = path.strip_prefix(&self.base).unwrap_or(path);
        let rel = rel.strip_prefix("./").unwrap_or(rel);
        self.namespaces
            .iter()
            .filter(|(_, m, _)| m.is_match(rel) || m.is_match(path))
            .max_by_key(|(p, _, _)| p.len())
            .map(|(_, _, ns)| ns.as_str())
    }

    /// How the repository PATHs name renders, as every subcommand reads it: the configuration's
    /// GitOps settings, paths resolved from the directory PATHs name (lint's root).
    pub fn render_options_at(&self, paths: &[String]) -> RenderOptions {
        RenderOptions {
            root: crate::source::kustomize::environments::root_of(paths),
            ..self.render_options.clone()
        }
    }

    /// How charts are rendered, `None` when the configuration turns rendering off.
    pub fn chart_rendering(&self) -> Option<&RenderOptions> {
        (!self.render_off).then_some(&self.render_options)
    }

    /// Whether `path` matches `ignorePaths` (relative to the config file's directory).
    pub fn ignores(&self, path: &Path) -> bool {
        let Some(set) = &self.ignore else {
            return false;
        };
        let rel = path.strip_prefix(&self.base).unwrap_or(path);
        let rel = rel.strip_prefix("./").unwrap_or(rel);
        set.is_match(rel)
    }
}

/// An `ignorePaths` entry as it is matched against paths relative to the configuration's
/// directory: a leading `./` and a trailing `/` (a directory written as `.gitignore` writes
/// one) are dropped, so `./infra/` leaves out the directory `infra` and all below it, as
/// `infra` does; written as is, neither matched anything.
fn ignore_pattern(entry: &str) -> &str {
    let entry = entry.strip_prefix("./").unwrap_or(entry);
    match entry.strip_suffix('/') {
        Some(dir) if !dir.is_empty() => dir,
        _ => entry,
    }
}

/// `7d`, `36h`, `90m`, `45s`, or a bare number of seconds.
pub fn parse_duration(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = num.parse().ok()?;
    let mult = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        "w" => 7 * 86400,
        _ => return None,
    };
    Some(n * mult)
}

/// Every subcommand reads its input files under the configuration, as `lint` does.
impl crate::model::inputs::FileRules for Config {
    fn ignores(&self, path: &Path) -> bool {
        Config::ignores(self, path)
    }
    fn namespace_for(&self, path: &Path) -> Option<&str> {
        Config::namespace_for(self, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(id: &str) -> bool {
        id == "overlap"
    }

    #[test]
    fn parses_every_setting() {
        let c = Config::parse(
            "c.yaml",
            "karmadaVersion: '1.18'\nfeatureGates: {PropagationPolicyPreemption: true}\nrules: {overlap: 'off'}\nknownClusters: [m1]\nschedulers: [custom]\nignorePaths: ['charts/**']\nmaxSuspensionAge: 7d\n",
            Path::new("/repo"),
            &known,
        )
        .unwrap();
        let schedulers: Vec<(&str, &str)> = c
            .schedulers
            .iter()
            .map(|s| (s.name.as_str(), s.from.as_str()))
            .collect();
        assert_eq!(schedulers, [("custom", "c.yaml:5")]);
        assert_eq!(c.karmada_version, Some(KarmadaVersion::new(1, 18)));
        assert_eq!(
            c.feature_gates.get("PropagationPolicyPreemption"),
            Some(true)
        );
        assert_eq!(c.rules["overlap"], RuleSetting::Off);
        assert!(c.ignores(Path::new("/repo/charts/x/a.yaml")));
        assert!(!c.ignores(Path::new("/repo/base/a.yaml")));
        assert_eq!(c.max_suspension_age_secs, Some(7 * 86400));
    }

    #[test]
    fn a_directory_is_ignored_however_it_is_written() {
        for entry in ["infra", "infra/", "./infra", "./infra/"] {
            let c = Config::parse(
                "c.yaml",
                &format!("ignorePaths: ['{entry}']\n"),
                Path::new("/repo"),
                &known,
            )
            .unwrap();
            assert!(c.ignores(Path::new("/repo/infra")), "{entry}");
            assert!(!c.ignores(Path::new("/repo/infra-2")), "{entry}");
        }
        assert_eq!(ignore_pattern("./charts/**"), "charts/**");
        assert_eq!(ignore_pattern("/"), "/");
    }

    #[test]
    fn controller_manager_flags_with_their_lines() {
        use crate::model::controller_flags::{FlagValue, NO_EXECUTE_TAINT_EVICTION};
        let c = Config::parse(
            "c.yaml",
            "karmadaVersion: '1.17'\ncontrollerManagerFlags:\n  enable-no-execute-taint-eviction: true\n",
            Path::new("."),
            &known,
        )
        .unwrap();
        assert_eq!(
            c.controller_flags.get(NO_EXECUTE_TAINT_EVICTION),
            Some(&FlagValue {
                value: true,
                from: "c.yaml:3".into()
            })
        );
        assert!(Config::parse("c.yaml", "", Path::new("."), &known)
            .unwrap()
            .controller_flags
            .is_empty());
        let err = Config::parse(
            "c.yaml",
            "controllerManagerFlags:\n  cluster-monitor-period: false\n",
            Path::new("."),
            &known,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(err, "c.yaml:2:3: `cluster-monitor-period` is not a karmada-controller-manager flag this tool reads (it reads: enable-no-execute-taint-eviction, enable-taint-manager, controllers, skipped-propagating-namespaces)");
        let err = Config::parse(
            "c.yaml",
            "controllerManagerFlags: {enable-no-execute-taint-eviction: 'yes'}\n",
            Path::new("."),
            &known,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "c.yaml:1:26: --enable-no-execute-taint-eviction is a bool flag: write true or false, not `yes`"
        );
    }

    /// `skipped-propagating-namespaces` takes the flag's text: comma-separated patterns, each
    /// one karmada-controller-manager compiles (else it refuses to start, and so does this);
    /// `controllers` its list.
    #[test]
    fn list_flags_as_text() {
        let parse = |text: &str| Config::parse("c.yaml", text, Path::new("."), &known);
        let c =
            parse("controllerManagerFlags:\n  skipped-propagating-namespaces: kube-.*,sandbox\n")
                .unwrap();
        let set = c.controller_flags.skipped_namespaces_set().unwrap();
        assert_eq!(set.values, ["kube-.*", "sandbox"]);
        assert_eq!(set.from, "c.yaml:2");
        assert_eq!(
            parse("").unwrap().controller_flags.skipped_namespaces(),
            ["kube-.*"]
        );
        let err = parse("controllerManagerFlags: {skipped-propagating-namespaces: 'team-(a'}\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("c.yaml:1:26: Invalid namespace regular expression `team-(a`: "),
            "{err}"
        );
        let err = parse("controllerManagerFlags: {skipped-propagating-namespaces: true}\n")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "c.yaml:1:26: --skipped-propagating-namespaces takes a comma-separated list of regular expressions, not a bool");
        // `--controllers` as its text too, kept as whether the namespace controller runs.
        let c = parse("controllerManagerFlags: {controllers: '*,-namespace'}\n").unwrap();
        assert!(c
            .controller_flags
            .why_no_namespace_controller()
            .unwrap()
            .ends_with("(c.yaml:1)"));
        assert!(parse("controllerManagerFlags: {controllers: '*'}\n")
            .unwrap()
            .controller_flags
            .why_no_namespace_controller()
            .is_none());
        assert!(parse("controllerManagerFlags: {controllers: false}\n").is_err());
    }

    #[test]
    fn webhook_flags() {
        let parse = |text: &str| Config::parse("c.yaml", text, Path::new("."), &known);
        assert!(!parse("").unwrap().allow_no_execute_taint_policy);
        assert!(
            parse("webhookFlags:\n  allow-no-execute-taint-policy: true\n")
                .unwrap()
                .allow_no_execute_taint_policy
        );
        assert!(
            !parse("webhookFlags: {allow-no-execute-taint-policy: false}\n")
                .unwrap()
                .allow_no_execute_taint_policy
        );
        let err = parse("webhookFlags:\n  allow-no-execute: true\n")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "c.yaml:2:3: `allow-no-execute` is not a karmada-webhook flag this tool reads (it reads: allow-no-execute-taint-policy)");
    }

    #[test]
    fn namespaces_per_path_longest_pattern_wins() {
        let c = Config::parse(
            "c.yaml",
            "namespaces:\n  'scripts/**': ops\n  'scripts/gpu/**': gpu-operator\n",
            Path::new("/repo"),
            &known,
        )
        .unwrap();
        assert_eq!(
            c.namespace_for(Path::new("/repo/scripts/gpu/a.yaml")),
            Some("gpu-operator")
        );
        assert_eq!(
            c.namespace_for(Path::new("/repo/scripts/b.yaml")),
            Some("ops")
        );
        assert_eq!(c.namespace_for(Path::new("/repo/apps/c.yaml")), None);
        let err = Config::parse(
            "c.yaml",
            "namespaces:\n  'a/[': x\n",
            Path::new("."),
            &known,
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("c.yaml:2:3:"), "{err}");
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let err = Config::parse("c.yaml", "rules:\n  nope: error\n", Path::new("."), &known)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("c.yaml:2:3: unknown rule `nope`"), "{err}");
        let err = Config::parse("c.yaml", "rulez: {}\n", Path::new("."), &known)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field"), "{err}");
        let err = Config::parse("c.yaml", "rules: {overlap: loud}\n", Path::new("."), &known)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("expected off, info, warning or error"),
            "{err}"
        );
    }
}
