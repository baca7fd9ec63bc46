//! karmada-controller-manager's command-line flags other than `--feature-gates` that decide
//! whether something a policy relies on runs at all, as a repository's Karmada installation or
//! the configuration sets them:
//!
//! - `--enable-taint-manager` (every release, default true): without it the taint manager is not
//!   started at all (`cmd/controller-manager/app/controllermanager.go:296` `if
//!   ctx.Opts.EnableTaintManager && ...Failover`; `:258` at v1.10.0), so nothing is evicted from
//!   a tainted cluster whatever the gate.
//! - `--enable-no-execute-taint-eviction` (from v1.14.0, default false;
//!   `cmd/controller-manager/app/options/failover.go:46` at v1.14.0, `cluster_failover.go:50`
//!   from v1.17.0): the taint manager, which the `Failover` gate starts
//!   (`cmd/controller-manager/app/controllermanager.go:295-314`), evicts from a cluster with a
//!   NoExecute taint only with it (`pkg/controllers/cluster/taint_manager.go:114-117`). Before
//!   v1.14.0 there was no such flag: the gate was enough.
//!
//! - `--skipped-propagating-namespaces` (every release, default `kube-.*`): the namespaces whose
//!   objects the detector ignores (`pkg/detector/detector.go` `EventFilter`) and the namespace
//!   controller does not copy (`namespace_sync_controller.go` `namespaceShouldBeSynced`), each a
//!   regular expression compiled as `^EXPR$` (`cmd/controller-manager/app/options/options.go`
//!   `SkippedNamespacesRegexps`). Setting it replaces the default: `kube-system` is then
//!   propagated unless listed.
//!
//! A value is read as pflag reads a bool flag: `--NAME` alone is true, `--NAME=VALUE` takes
//! what `strconv.ParseBool` takes (`vendor/github.com/spf13/pflag/flag.go:1013-1023`, `bool.go`);
//! `_` and `-` are the same in a name (component-base `cli.Run` normalizes with
//! `WordSepNormalizeFunc`). [`crate::model::feature_gates::GateSet`] holds the flags in effect
//! beside the gates, so every reader of the gates reads them too.

use std::collections::BTreeMap;

use super::KarmadaVersion;

/// `--enable-no-execute-taint-eviction`, without its dashes.
pub const NO_EXECUTE_TAINT_EVICTION: &str = "enable-no-execute-taint-eviction";

/// `--enable-taint-manager`, without its dashes (default true).
pub const TAINT_MANAGER: &str = "enable-taint-manager";

/// `--controllers`, read for one answer: whether the `namespace` controller runs (the value
/// kept is that, not the list; [`namespace_controller_runs`]).
pub const CONTROLLERS: &str = "controllers";

/// `--skipped-propagating-namespaces`, without its dashes: a list of regular expressions.
pub const SKIPPED_NAMESPACES: &str = "skipped-propagating-namespaces";

/// `--skipped-propagating-namespaces`' default (options.go: `[]string{"kube-.*"}`).
pub const DEFAULT_SKIPPED_NAMESPACES: &[&str] = &["kube-.*"];

/// A `--skipped-propagating-namespaces` value as pflag's string slice reads it: comma-separated,
/// spaces kept (`stringSliceValue.Set` reads one CSV record; an empty value is an empty list).
/// A second occurrence on one command line appends to the first (`Set` once `changed`).
pub fn parse_skipped_namespaces(value: &str) -> Vec<String> {
    if value.is_empty() {
        return Vec::new();
    }
    value.split(',').map(str::to_string).collect()
}

/// A `--skipped-propagating-namespaces` entry compiled as karmada-controller-manager compiles
/// it (`SkippedNamespacesRegexps`, options.go): `^EXPR$` as written, so that in an alternation
/// `a|b` only the first branch is anchored at the start and only the last at the end.
pub fn namespace_regex(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::Regex::new(&format!("^{pattern}$"))
}

/// Why karmada-controller-manager refuses a `--skipped-propagating-namespaces` entry, if it does:
/// it validates each as `^EXPR$` with Go's `regexp` (`cmd/controller-manager/app/options/
/// validation.go`, "Invalid namespace regular expression"). This checks with the regex crate,
/// whose syntax is RE2's as Go's is, but for two known differences: Go also takes `\Q...\E`
/// (refused here) and refuses a repetition count over 1000 (taken here).
pub fn invalid_namespace_pattern(pattern: &str) -> Option<String> {
    let e = namespace_regex(pattern).err()?.to_string();
    // The regex crate draws the pattern with a caret under the fault and ends with
    // `error: WHY`: one line of a note takes the why.
    let why = e
        .lines()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .map_or_else(
            || e.split_whitespace().collect::<Vec<_>>().join(" "),
            str::to_string,
        );
    Some(format!(
        "Invalid namespace regular expression `{pattern}`: {why}"
    ))
}

/// Whether `--controllers=LIST` runs the `namespace` controller, as karmada-controller-manager
/// decides it (`IsControllerEnabled`, pkg/controllers/context/context.go): the first `namespace`
/// or `-namespace` in the list decides; else a `*` runs every controller enabled by default,
/// which the namespace controller is (cmd/controller-manager/app/controllermanager.go:
/// `controllersDisabledByDefault` holds only `hpaScaleTargetMarker`, `deploymentReplicasSyncer`
/// and the like); else it does not run. The flag's default is `*`.
pub fn namespace_controller_runs(list: &str) -> bool {
    let mut star = false;
    for c in list.split(',').map(str::trim) {
        match c {
            "namespace" => return true,
            "-namespace" => return false,
            "*" => star = true,
            _ => {}
        }
    }
    star
}

/// The first release that has `--enable-no-execute-taint-eviction` (v1.14.0).
pub const NO_EXECUTE_TAINT_EVICTION_SINCE: KarmadaVersion = KarmadaVersion::new(1, 14);

/// Whether the flag written `name` (without its dashes) is `canonical`: `_` and `-` are the same
/// in a flag's name (component-base `cli.Run` normalizes with `WordSepNormalizeFunc`), for every
/// Karmada component.
pub fn is_flag(name: &str, canonical: &str) -> bool {
    name.len() == canonical.len()
        && name
            .bytes()
            .zip(canonical.bytes())
            .all(|(a, b)| a == b || (a == b'_' && b == b'-'))
}

/// One flag's value and where it was set (`file:line` of the configuration or of the
/// repository's installation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagValue {
    pub value: bool,
    pub from: String,
}

/// A list flag's value and where it was set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListValue {
    pub values: Vec<String>,
    pub from: String,
}

/// The flags as set, each with where: the bool ones and `--controllers` by canonical name
/// ([`ControllerFlags::NAMES`]), and `--skipped-propagating-namespaces`; a flag not set has
/// Karmada's default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControllerFlags {
    bools: BTreeMap<&'static str, FlagValue>,
    skipped_namespaces: Option<ListValue>,
}

/// A flag the release's karmada-controller-manager does not have: it refuses to start with it
/// (pflag: `unknown flag: --NAME`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{from}: unknown flag: --{name} (karmada-controller-manager has it from Karmada {since}; this is {version})")]
pub struct FlagError {
    pub name: &'static str,
    pub from: String,
    pub since: KarmadaVersion,
    pub version: KarmadaVersion,
}

impl ControllerFlags {
    /// The names of the flags read (without dashes).
    pub const NAMES: &'static [&'static str] = &[NO_EXECUTE_TAINT_EVICTION, TAINT_MANAGER];

    /// The flag `name` (as written: with `_` or `-`, without the leading dashes) among those
    /// read, by its canonical name; `None` for any other flag.
    pub fn canonical(name: &str) -> Option<&'static str> {
        Self::NAMES.iter().copied().find(|n| is_flag(name, n))
    }

    /// Sets flag `name` ([`ControllerFlags::canonical`], or [`CONTROLLERS`] with whether the
    /// namespace controller runs); `false`: not a flag read here.
    pub fn set(&mut self, name: &str, value: bool, from: String) -> bool {
        let canonical =
            Self::canonical(name).or_else(|| is_flag(name, CONTROLLERS).then_some(CONTROLLERS));
        let Some(name) = canonical else {
            return false;
        };
        self.bools.insert(name, FlagValue { value, from });
        true
    }

    /// Sets `--skipped-propagating-namespaces` (patterns checked by the caller with
    /// [`invalid_namespace_pattern`]).
    pub fn set_skipped_namespaces(&mut self, values: Vec<String>, from: String) {
        self.skipped_namespaces = Some(ListValue { values, from });
    }

    /// Flag `name` (a canonical name) as set; `None`: Karmada's default.
    pub fn get(&self, name: &str) -> Option<&FlagValue> {
        self.bools.get(name)
    }

    /// `--skipped-propagating-namespaces` as set; `None`: the default,
    /// [`DEFAULT_SKIPPED_NAMESPACES`].
    pub fn skipped_namespaces_set(&self) -> Option<&ListValue> {
        self.skipped_namespaces.as_ref()
    }

    /// The `--skipped-propagating-namespaces` patterns in effect.
    pub fn skipped_namespaces(&self) -> Vec<String> {
        match &self.skipped_namespaces {
            Some(l) => l.values.clone(),
            None => DEFAULT_SKIPPED_NAMESPACES
                .iter()
                .map(|p| p.to_string())
                .collect(),
        }
    }

    /// `other`'s flags over these, flag by flag (a later source wins, as for gates).
    pub fn overlay(&mut self, other: &ControllerFlags) {
        self.bools
            .extend(other.bools.iter().map(|(k, v)| (*k, v.clone())));
        if other.skipped_namespaces.is_some() {
            self.skipped_namespaces
                .clone_from(&other.skipped_namespaces);
        }
    }

    /// The bool flags and `--controllers` set, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &FlagValue)> {
        self.bools.iter().map(|(k, v)| (*k, v))
    }

    pub fn is_empty(&self) -> bool {
        self.bools.is_empty() && self.skipped_namespaces.is_none()
    }

    /// Whether the two set the same values in effect, wherever each was set.
    pub fn same_values(&self, other: &ControllerFlags) -> bool {
        let values = |f: &ControllerFlags| -> Vec<(&'static str, bool)> {
            f.iter().map(|(name, v)| (name, v.value)).collect()
        };
        values(self) == values(other) && self.skipped_namespaces() == other.skipped_namespaces()
    }

    /// The flags set that `version`'s karmada-controller-manager does not have.
    pub fn unknown_in(&self, version: KarmadaVersion) -> Vec<FlagError> {
        self.iter()
            .filter(|(name, _)| since(name) > version)
            .map(|(name, v)| FlagError {
                name,
                from: v.from.clone(),
                since: since(name),
                version,
            })
            .collect()
    }

    /// These flags without those `version` does not have.
    pub fn known_in(&self, version: KarmadaVersion) -> ControllerFlags {
        let mut known = self.clone();
        known.bools.retain(|name, _| since(name) <= version);
        known
    }

    /// Why the namespace controller does not run, if it does not: `--controllers` leaves it
    /// out (default `*`, which runs it); said with where the value came from.
    pub fn why_no_namespace_controller(&self) -> Option<String> {
        match self.get(CONTROLLERS) {
            Some(FlagValue { value: false, from }) => Some(format!(
                "karmada-controller-manager runs with a --{CONTROLLERS} list without the namespace controller ({from})"
            )),
            _ => None,
        }
    }

    /// Why no taint manager runs, if none does: `--enable-taint-manager=false` (default true)
    /// starts none, in any release; said with where the value came from.
    pub fn why_no_taint_manager(&self) -> Option<String> {
        match self.get(TAINT_MANAGER) {
            Some(FlagValue { value: false, from }) => Some(format!(
                "karmada-controller-manager runs with --{TAINT_MANAGER}=false ({from}), so no taint manager evicts"
            )),
            _ => None,
        }
    }

    /// Why the taint manager of `version` evicts nothing, if it does not: from v1.14.0 it
    /// needs `--enable-no-execute-taint-eviction=true` (default false); said with where the
    /// value came from.
    pub fn why_no_taint_eviction(&self, version: KarmadaVersion) -> Option<String> {
        if version < NO_EXECUTE_TAINT_EVICTION_SINCE {
            return None;
        }
        match self.get(NO_EXECUTE_TAINT_EVICTION) {
            Some(FlagValue { value: true, .. }) => None,
            Some(FlagValue { from, .. }) => Some(format!(
                "karmada-controller-manager runs with --{NO_EXECUTE_TAINT_EVICTION}=false ({from})"
            )),
            None => Some(format!(
                "--{NO_EXECUTE_TAINT_EVICTION} is off by default in Karmada {version} (set by neither .karmada-policy.yaml nor the repository's Karmada installation)"
            )),
        }
    }
}

fn since(name: &str) -> KarmadaVersion {
    match name {
        NO_EXECUTE_TAINT_EVICTION => NO_EXECUTE_TAINT_EVICTION_SINCE,
        _ => KarmadaVersion::OLDEST,
    }
}

/// A bool flag's value as Go's `strconv.ParseBool` takes it (pflag's bool flags use it); `None`
/// for anything else, which karmada-controller-manager refuses at start.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_namespace_controller_runs_as_the_controllers_list_says() {
        assert!(namespace_controller_runs("*"));
        assert!(namespace_controller_runs("*,-hpaScaleTargetMarker"));
        assert!(!namespace_controller_runs("*,-namespace"));
        assert!(!namespace_controller_runs(
            "cluster,clusterStatus,binding,execution"
        ));
        assert!(namespace_controller_runs("cluster,namespace"));
        // The first mention decides.
        assert!(!namespace_controller_runs("-namespace,namespace,*"));
        assert!(namespace_controller_runs("namespace,-namespace"));
    }

    fn v(minor: u32) -> KarmadaVersion {
        KarmadaVersion::new(1, minor)
    }

    #[test]
    fn names_are_normalized_as_the_controller_manager_does() {
        assert_eq!(
            ControllerFlags::canonical("enable_no_execute_taint_eviction"),
            Some(NO_EXECUTE_TAINT_EVICTION)
        );
        assert_eq!(
            ControllerFlags::canonical("enable_taint_manager"),
            Some(TAINT_MANAGER)
        );
        assert_eq!(ControllerFlags::canonical("cluster-monitor-period"), None);
        // Only `_` stands for `-`, not the other way round, and lengths must agree.
        assert!(is_flag("scheduler_name", "scheduler-name"));
        assert!(!is_flag("scheduler-name", "scheduler_name"));
        assert!(!is_flag("scheduler-names", "scheduler-name"));
        let mut f = ControllerFlags::default();
        assert!(!f.set("feature-gates", true, "x".into()));
        assert!(f.is_empty());
        assert!(f.set(NO_EXECUTE_TAINT_EVICTION, true, "a.yaml:3".into()));
        assert_eq!(f.iter().count(), 1);
    }

    #[test]
    fn a_later_source_wins_flag_by_flag() {
        let mut f = ControllerFlags::default();
        f.set(NO_EXECUTE_TAINT_EVICTION, true, "repo.yaml:3".into());
        f.overlay(&ControllerFlags::default());
        assert_eq!(
            f.get(NO_EXECUTE_TAINT_EVICTION).unwrap().from,
            "repo.yaml:3"
        );
        let mut config = ControllerFlags::default();
        config.set(NO_EXECUTE_TAINT_EVICTION, false, "c.yaml:2".into());
        f.overlay(&config);
        assert_eq!(
            f.get(NO_EXECUTE_TAINT_EVICTION),
            Some(&FlagValue {
                value: false,
                from: "c.yaml:2".into()
            })
        );
    }

    #[test]
    fn the_flag_exists_from_1_14() {
        let mut f = ControllerFlags::default();
        f.set(NO_EXECUTE_TAINT_EVICTION, true, "d.yaml:9".into());
        assert!(f.unknown_in(v(14)).is_empty());
        let err = f.unknown_in(v(13));
        assert_eq!(
            err[0].to_string(),
            "d.yaml:9: unknown flag: --enable-no-execute-taint-eviction (karmada-controller-manager has it from Karmada 1.14; this is 1.13)"
        );
        assert!(f.known_in(v(13)).is_empty());
        assert_eq!(f.known_in(v(19)), f);
    }

    #[test]
    fn taint_eviction_needs_the_flag_from_1_14() {
        let none = ControllerFlags::default();
        assert_eq!(none.why_no_taint_eviction(v(13)), None, "no such flag yet");
        assert!(none
            .why_no_taint_eviction(v(19))
            .unwrap()
            .contains("off by default in Karmada 1.19"));
        let mut off = ControllerFlags::default();
        off.set(NO_EXECUTE_TAINT_EVICTION, false, "infra/cm.yaml:20".into());
        assert_eq!(
            off.why_no_taint_eviction(v(14)).unwrap(),
            "karmada-controller-manager runs with --enable-no-execute-taint-eviction=false (infra/cm.yaml:20)"
        );
        let mut on = ControllerFlags::default();
        on.set(NO_EXECUTE_TAINT_EVICTION, true, "c.yaml:2".into());
        assert_eq!(on.why_no_taint_eviction(v(19)), None);
    }

    /// `--enable-taint-manager=false` starts no taint manager, in every release: nothing is
    /// evicted whatever the other flag; true (its default) changes nothing.
    #[test]
    fn no_taint_manager_evicts_nothing_in_any_release() {
        let mut off = ControllerFlags::default();
        off.set(TAINT_MANAGER, false, "cm.yaml:30".into());
        off.set(NO_EXECUTE_TAINT_EVICTION, true, "cm.yaml:31".into());
        // No release in the question: none runs one.
        assert_eq!(
            off.why_no_taint_manager().as_deref(),
            Some("karmada-controller-manager runs with --enable-taint-manager=false (cm.yaml:30), so no taint manager evicts")
        );
        for minor in [10, 13, 19] {
            assert_eq!(
                off.why_no_taint_eviction(v(minor)),
                None,
                "1.{minor}: eviction on"
            );
        }
        assert!(off
            .unknown_in(v(10))
            .iter()
            .all(|e| e.name != TAINT_MANAGER));
        assert_eq!(off.iter().count(), 2);
        let mut on = ControllerFlags::default();
        on.set(TAINT_MANAGER, true, "cm.yaml:30".into());
        assert_eq!(on.why_no_taint_manager(), None);
        assert_eq!(on.why_no_taint_eviction(v(13)), None);
        assert!(
            on.why_no_taint_eviction(v(19)).is_some(),
            "still the eviction flag"
        );
    }

    #[test]
    fn bools_as_strconv_parse_bool_takes_them() {
        for t in ["1", "t", "T", "TRUE", "true", "True"] {
            assert_eq!(parse_bool(t), Some(true), "{t}");
        }
        for f in ["0", "f", "F", "FALSE", "false", "False"] {
            assert_eq!(parse_bool(f), Some(false), "{f}");
        }
        for bad in ["", "yes", "tRuE", " true"] {
            assert_eq!(parse_bool(bad), None, "{bad}");
        }
    }
}
