//! The repository's own Karmada: which release it installs and with which feature gates and
//! flags of karmada-controller-manager ([`ControllerFlags`]: `--enable-no-execute-taint-eviction`),
//! read from how the repository installs it.
//!
//! - The Helm chart (karmada-io/karmada `charts/karmada`), by a Flux `HelmRelease` or an Argo CD
//!   Application's Helm source: the chart's version is the release (the chart is published
//!   with `version` = `appVersion` = the Karmada tag, hack/package-helm-chart.sh); its
//!   `controllerManager.image.tag` is the release only where the chart's version is not known
//!   (the chart's CRDs and webhook admit the policies; another tag moves the controller-manager
//!   alone, which a note says); the gates are
//!   `controllerManager.featureGates`, rendered as one `--feature-gates=` argument by the
//!   chart's `karmada.controllerManager.featureGates` helper over the chart's default
//!   `{PropagateDeps: false}` (charts/karmada/values.yaml, every release from v1.10.0), then
//!   `controllerManager.extraCommandArgs.feature-gates`, a second flag merged after it. Every
//!   `extraCommandArgs` entry becomes one `--KEY=VALUE` argument (the chart's
//!   `karmada.controllerManager.extraCommandArgs` helper in templates/_helpers.tpl, included
//!   by templates/karmada-controller-manager.yaml): the controller-manager flags are read from
//!   there.
//! - The same chart by a k3s/RKE2 `HelmChart` (`helm.cattle.io/v1`, k3s-io/helm-controller):
//!   `spec.version` is the chart version; the job passes `spec.valuesContent`, then
//!   `spec.values` as values files, then each `spec.set` entry as `--set` (sorted by key), so
//!   a later one wins (`pkg/controllers/chart/chart.go`: `valuesSecret`, `args`). A
//!   `HelmChartConfig` of the same name adds values files after those; it is not read.
//! - The karmada-operator's `Karmada` (`operator.karmada.io/v1alpha1`): `spec.featureGates`
//!   is what the operator passes to karmada-controller-manager (operator/pkg/tasks/init/
//!   component.go hands `Spec.FeatureGates` to every component) unless
//!   `spec.components.karmadaControllerManager.extraArgs` sets `feature-gates`, which replaces
//!   it (operator/pkg/util/patcher/pather.go: extra args are copied over the built flag); the
//!   release is that component's `imageTag`. Every other `extraArgs` entry is one
//!   `--KEY=VALUE` argument too (`buildArgumentListFromMap`): the flags are read from there.
//! - A plain `karmada-controller-manager` Deployment: its `--feature-gates` arguments (each
//!   one merged over the last, as the flag parser does), its flags as pflag reads a bool flag
//!   (`--NAME` or `--NAME=BOOL`; the last one wins) and its image's tag.
//!
//! Beside them, the scheduler names the control plane serves other than `default-scheduler`
//! ([`Installation::schedulers`], for `scheduler-name-not-served`): a Deployment running
//! karmada-scheduler with `--scheduler-name=NAME` or `--scheduler-name NAME` (a string flag,
//! default `default-scheduler`: cmd/scheduler/app/options/options.go:165; the last one wins)
//! is one of its own ([`InstallKind::Scheduler`]: no release or gates, every one counts beside
//! the installation, [`RepositorySettings::of`]); the operator's one karmada-scheduler takes
//! `spec.components.karmadaScheduler.extraArgs.scheduler-name` as `--scheduler-name=VALUE`.
//! The chart's karmada-scheduler has fixed arguments (charts/karmada/templates/
//! karmada-scheduler.yaml has no `extraCommandArgs`, v1.10.0 to v1.19.0-rc.0): it serves the
//! default, and a `scheduler.extraCommandArgs` value is said in a note.
//!
//! [`detect`] is pure: a document in, the typed settings out, each with the place it came
//! from (through the caller's `locate`, which traces a rendered place to the file to edit).

use std::collections::BTreeMap;

use super::controller_flags::{
    invalid_namespace_pattern, is_flag, namespace_controller_runs, parse_bool,
    parse_skipped_namespaces, ControllerFlags, CONTROLLERS, SKIPPED_NAMESPACES,
};
use super::schedulers::{Schedulers, DEFAULT_SCHEDULER};
use super::KarmadaVersion;
use crate::source::{load, Node, Source, Span, Value};

/// Where a setting was read: the file and line to edit.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Origin {
    pub file: String,
    pub line: u32,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub at: Origin,
}

/// How Karmada is installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstallKind {
    HelmRelease,
    ArgoHelm,
    HelmChart,
    Operator,
    Deployment,
    /// A Deployment running karmada-scheduler, not karmada-controller-manager: no release or
    /// gates of its own, only the scheduler name it serves ([`Installation::schedulers`]),
    /// beside whichever installation the control plane has.
    Scheduler,
}

/// One installation of Karmada the repository holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    pub kind: InstallKind,
    /// The object, as `HelmRelease karmada-system/karmada`.
    pub object: String,
    /// The document's first line.
    pub at: Origin,
    pub release: Option<Setting<KarmadaVersion>>,
    /// karmada-controller-manager's feature gates, by name.
    pub gates: BTreeMap<String, Setting<bool>>,
    /// karmada-controller-manager's flags read ([`ControllerFlags::NAMES`]), by name without
    /// dashes.
    pub flags: BTreeMap<String, Setting<bool>>,
    /// karmada-controller-manager's `--skipped-propagating-namespaces`, if set.
    pub skipped_namespaces: Option<Setting<Vec<String>>>,
    /// The names its karmada-schedulers run with other than `default-scheduler`
    /// (`--scheduler-name`), in the order read.
    pub schedulers: Vec<Setting<String>>,
    /// What could not be used (a version that names no known release, values kept elsewhere).
    pub notes: Vec<String>,
}

/// The Karmada installation `root` is, if it is one. `locate` turns a place in the document
/// into the file and line to edit.
pub fn detect(root: &Node, locate: &dyn Fn(Span) -> Origin) -> Option<Installation> {
    let api = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
    // Every document of a lint passes here: most are no installation.
    let kind = install_kind(api, kind)?;
    let name = str_at(root, &["metadata", "name"]).unwrap_or("");
    let namespace = str_at(root, &["metadata", "namespace"]).unwrap_or("default");
    let mut found = Found {
        locate,
        gates: BTreeMap::new(),
        flags: BTreeMap::new(),
        skipped_namespaces: None,
        schedulers: Vec::new(),
        release: None,
        notes: Vec::new(),
    };
    let kind = match kind {
        InstallKind::HelmRelease => found.helm_release(root.get("spec")?).map(|_| kind)?,
        InstallKind::ArgoHelm => found.argo_application(root.get("spec")?).map(|_| kind)?,
        InstallKind::HelmChart => found.k3s_helm_chart(root.get("spec")?).map(|_| kind)?,
        InstallKind::Operator => {
            found.operator(root.get("spec"));
            kind
        }
        InstallKind::Deployment | InstallKind::Scheduler => found.deployment(root)?,
    };
    let label = match kind {
        InstallKind::HelmRelease => "HelmRelease",
        InstallKind::ArgoHelm => "Argo CD Application",
        InstallKind::HelmChart => "HelmChart",
        InstallKind::Operator => "Karmada",
        InstallKind::Deployment | InstallKind::Scheduler => "Deployment",
    };
    Some(Installation {
        kind,
        object: format!("{label} {namespace}/{name}"),
        at: locate(root.span),
        release: found.release,
        gates: found.gates,
        flags: found.flags,
        skipped_namespaces: found.skipped_namespaces,
        schedulers: found.schedulers,
        notes: found.notes,
    })
}

/// The kind of installation an object of `api_version`/`kind` may be ([`detect`] reads it to
/// know, and tells a Deployment of karmada-scheduler from one of karmada-controller-manager);
/// `None`: it installs no Karmada.
pub fn install_kind(api_version: &str, kind: &str) -> Option<InstallKind> {
    match (api_version.split('/').next().unwrap_or(""), kind) {
        ("helm.toolkit.fluxcd.io", "HelmRelease") => Some(InstallKind::HelmRelease),
        ("argoproj.io", "Application") => Some(InstallKind::ArgoHelm),
        ("helm.cattle.io", "HelmChart") => Some(InstallKind::HelmChart),
        ("operator.karmada.io", "Karmada") => Some(InstallKind::Operator),
        ("apps", "Deployment") => Some(InstallKind::Deployment),
        _ => None,
    }
}

/// The installations of Karmada in the file `name` of text `text`, parsing only the documents
/// that may be one ([`crate::source::prefilter`]): by their heads, and a Deployment only when
/// the text names karmada-controller-manager at all, or karmada-scheduler and its
/// `--scheduler-name` ([`may_name_scheduler`]), so that a repository of workloads is not
/// parsed for the one Deployment that runs Karmada. A text that names neither Karmada nor a
/// kind [`install_kind`] knows is not looked into at all (most files of a repository of
/// Karmada manifests name Karmada, few of them an installing kind).
pub fn in_text(name: String, text: String) -> Vec<Installation> {
    use crate::source::prefilter::{filter, DocHead};
    if !may_install(&text) {
        return Vec::new();
    }
    let controller = names_a_controller(&text);
    let keep = |h: &DocHead<'_>| may_be(h.api_version, h.kind, || true, || controller);
    let (text, _) = filter(text, &keep);
    let loaded = crate::source::load(crate::source::Source::new(name, text));
    in_documents(&loaded.documents)
}

/// What the words of a file's text allow of the installations among its documents: whether
/// it may hold one at all ([`may_install`]), and whether one of its Deployments may run Karmada
/// (it names karmada-controller-manager, or a renamed karmada-scheduler), each searched for
/// once per file, when a document of a kind that asks comes. Every reader of installations
/// asks it ([`in_text`], and lint of the documents it already parsed), so that one file holds
/// the same installations whichever subcommand reads it.
#[derive(Debug)]
pub struct Words<'t> {
    text: &'t str,
    install: std::cell::OnceCell<bool>,
    controller: std::cell::OnceCell<bool>,
}

impl<'t> Words<'t> {
    pub fn of(text: &'t str) -> Words<'t> {
        Words {
            text,
            install: std::cell::OnceCell::new(),
            controller: std::cell::OnceCell::new(),
        }
    }

    /// Whether a document of `api_version` and `kind` of such a text may be an installation
    /// ([`detect`] then reads its tree). A text naming a controller names Karmada too.
    pub fn may_be(&self, api_version: &str, kind: &str) -> bool {
        may_be(
            api_version,
            kind,
            || *self.install.get_or_init(|| may_install(self.text)),
            || {
                *self
                    .controller
                    .get_or_init(|| names_a_controller(self.text))
            },
        )
    }
}

/// Whether a document of `api_version` and `kind` may be an installation, in a text that
/// `install`s ([`may_install`]) and names a `controller` ([`names_a_controller`]), each asked
/// only for the kinds it decides.
fn may_be(
    api_version: &str,
    kind: &str,
    install: impl FnOnce() -> bool,
    controller: impl FnOnce() -> bool,
) -> bool {
    match install_kind(api_version, kind) {
        None => false,
        Some(InstallKind::Deployment) => controller(),
        Some(_) => install(),
    }
}

/// Whether a text may hold an installation of Karmada, from its words alone: it names Karmada,
/// and karmada-controller-manager, a renamed karmada-scheduler or a kind that installs it.
pub fn may_install(text: &str) -> bool {
    const INSTALLING: [&str; 4] = [
        "HelmRelease",
        "Application",
        "HelmChart",
        "operator.karmada.io",
    ];
    names(text, "karmada")
        && (names_a_controller(text) || INSTALLING.iter().any(|k| names(text, k)))
}

/// Whether `text` holds `word`; a repository's every file is searched for a few words, and
/// `memmem` searches them a few times faster than `str::contains`.
fn names(text: &str, word: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), word.as_bytes()).is_some()
}

/// Whether a text names karmada-controller-manager, or a karmada-scheduler with another name.
fn names_a_controller(text: &str) -> bool {
    names(text, CONTROLLER_MANAGER) || may_name_scheduler(text)
}

/// Whether a text may hold a karmada-scheduler run with another name than the default: it
/// names karmada-scheduler and the flag (`_` or `-`, as `cli.Run`'s `WordSepNormalizeFunc`
/// reads it).
pub fn may_name_scheduler(text: &str) -> bool {
    names(text, "karmada-scheduler")
        && (names(text, "scheduler-name") || names(text, "scheduler_name"))
}

/// The installations of Karmada among `documents` (whole trees), each located in its file.
pub fn in_documents<'a>(
    documents: impl IntoIterator<Item = &'a crate::source::Document>,
) -> Vec<Installation> {
    documents
        .into_iter()
        .filter_map(|d| {
            let locate = |span: Span| Origin {
                file: d.source.name.clone(),
                line: span.start.line,
            };
            detect(&d.root, &locate)
        })
        .collect()
}

struct Found<'a> {
    locate: &'a dyn Fn(Span) -> Origin,
    gates: BTreeMap<String, Setting<bool>>,
    flags: BTreeMap<String, Setting<bool>>,
    skipped_namespaces: Option<Setting<Vec<String>>>,
    schedulers: Vec<Setting<String>>,
    release: Option<Setting<KarmadaVersion>>,
    notes: Vec<String>,
}

impl Found<'_> {
    /// A HelmRelease of the Karmada chart: `spec.chart.spec.version` and `spec.values`.
    fn helm_release(&mut self, spec: &Node) -> Option<()> {
        let chart = spec.get("chart").and_then(|c| c.get("spec"))?;
        if !is_karmada_chart(str_at(chart, &["chart"])?)
            || !installs_control_plane(spec.get("values"))
        {
            return None;
        }
        if let Some(v) = chart.get("version") {
            self.version(v, "the chart version");
        }
        self.chart_defaults(chart.get("chart").map_or(spec.span, |c| c.span));
        if let Some(values) = spec.get("values") {
            self.chart_values(values, &|s| s);
        }
        if spec.get("valuesFrom").is_some() {
            self.notes
                .push("values from ConfigMaps or Secrets (valuesFrom) are not read".into());
        }
        Some(())
    }

    /// An Application whose Helm source is the Karmada chart: `targetRevision`, and `helm`'s
    /// `values`, `valuesObject` and `parameters`, in Argo CD's order (parameters win).
    fn argo_application(&mut self, spec: &Node) -> Option<()> {
        let mut sources: Vec<&Node> = spec.get("source").into_iter().collect();
        sources.extend(spec.get("sources").and_then(Node::as_seq).unwrap_or(&[]));
        let source = sources
            .into_iter()
            .find(|s| str_at(s, &["chart"]).is_some_and(is_karmada_chart))?;
        let helm = source.get("helm");
        if !installs_control_plane(helm.and_then(|h| h.get("valuesObject"))) {
            return None;
        }
        if let Some(v) = source.get("targetRevision") {
            self.version(v, "the chart's targetRevision");
        }
        self.chart_defaults(source.get("chart").map_or(source.span, |c| c.span));
        let Some(helm) = source.get("helm") else {
            return Some(());
        };
        if let Some(text) = helm.get("values") {
            // A YAML string: its own positions, moved to where its text is in the file.
            if let (Some(s), Some(first)) = (text.as_str(), block_first_line(text)) {
                let loaded = load(Source::new("values", s.to_string()));
                for d in &loaded.documents {
                    self.chart_values(&d.root, &|sp: Span| shifted(sp, first - 1));
                }
            }
        }
        if let Some(v) = helm.get("valuesObject") {
            self.chart_values(v, &|s| s);
        }
        if helm.get("valueFiles").is_some() {
            self.notes
                .push("values files of the chart's own repository are not read".into());
        }
        for p in helm.get("parameters").and_then(Node::as_seq).unwrap_or(&[]) {
            if let (Some(name), Some(value)) = (str_at(p, &["name"]), p.get("value")) {
                self.set_value(name, value);
            }
        }
        Some(())
    }

    /// A k3s/RKE2 HelmChart of the Karmada chart: `spec.version`, then `valuesContent`,
    /// `values` and `set`, in the order helm-controller hands them to Helm.
    fn k3s_helm_chart(&mut self, spec: &Node) -> Option<()> {
        let chart = spec.get("chart")?;
        if !is_karmada_chart(chart.as_str()?) {
            return None;
        }
        let content: Vec<(Node, u32)> = spec
            .get("valuesContent")
            .and_then(|text| Some((text.as_str()?, block_first_line(text)?)))
            .map(|(text, first)| {
                load(Source::new("values", text.to_string()))
                    .documents
                    .into_iter()
                    .map(|d| (d.root, first))
                    .collect()
            })
            .unwrap_or_default();
        let values = spec.get("values");
        let set = spec.get("set").and_then(Node::as_map).unwrap_or(&[]);
        // The last of the three to say `installMode` decides it.
        let mode = set
            .iter()
            .find(|e| e.key.as_str() == Some("installMode"))
            .map(|e| &e.value)
            .or_else(|| values.and_then(|v| v.get("installMode")))
            .or_else(|| content.iter().rev().find_map(|(d, _)| d.get("installMode")));
        if !host_mode(mode) {
            return None;
        }
        if let Some(v) = spec.get("version") {
            self.version(v, "the chart version");
        }
        self.chart_defaults(chart.span);
        for (doc, first) in &content {
            self.chart_values(doc, &|sp: Span| shifted(sp, first - 1));
        }
        if let Some(v) = values {
            self.chart_values(v, &|s| s);
        }
        // helm-controller sorts the keys before it turns them into `--set` arguments.
        let mut set: Vec<&crate::source::Entry> = set.iter().collect();
        set.sort_by(|a, b| a.key.as_str().cmp(&b.key.as_str()));
        for e in set {
            if let Some(name) = e.key.as_str() {
                self.set_value(name, &e.value);
            }
        }
        if spec.get("valuesSecrets").is_some() {
            self.notes
                .push("values from Secrets (valuesSecrets) are not read".into());
        }
        Some(())
    }

    /// One `--set`-style value of the chart (an Argo CD parameter, a HelmChart `set` entry).
    fn set_value(&mut self, name: &str, value: &Node) {
        if let Some(gate) = name.strip_prefix("controllerManager.featureGates.") {
            if let Some(on) = bool_of(value) {
                self.gate(gate, on, value.span);
            }
        } else if let Some(arg) = name.strip_prefix("controllerManager.extraCommandArgs.") {
            // `--set KEY={a,b}` sets a list (helm's strvals), which the chart writes `[a b]`.
            let listed = value.as_str().and_then(|text| {
                let items = text.strip_prefix('{')?.strip_suffix('}')?;
                Some(Node::new(
                    Value::Seq(
                        items
                            .split(',')
                            .map(|i| Node::new(Value::Str(i.into()), value.span))
                            .collect(),
                    ),
                    value.span,
                ))
            });
            self.extra_arg(arg, listed.as_ref().unwrap_or(value), value.span);
        } else if name == "controllerManager.image.tag" {
            self.controller_image_tag(value);
        } else if name.starts_with("scheduler.extraCommandArgs") {
            self.chart_scheduler_args();
        }
    }

    /// `scheduler.extraCommandArgs` set: the chart has no such value, its karmada-scheduler's
    /// arguments are fixed (charts/karmada/templates/karmada-scheduler.yaml, every release to
    /// v1.19.0-rc.0), so it runs as `default-scheduler` whatever they say.
    fn chart_scheduler_args(&mut self) {
        let note = "`scheduler.extraCommandArgs` is no value of the karmada chart: its karmada-scheduler takes no extra argument and runs as default-scheduler".to_string();
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The chart's own `controllerManager.featureGates` default, at the line naming the chart.
    fn chart_defaults(&mut self, at: Span) {
        self.gate("PropagateDeps", false, at);
    }

    /// `controllerManager.featureGates`, `controllerManager.image.tag` and
    /// `controllerManager.extraCommandArgs` (`feature-gates` and the flags read) of chart
    /// values.
    fn chart_values(&mut self, values: &Node, shift: &dyn Fn(Span) -> Span) {
        if values
            .get("scheduler")
            .and_then(|s| s.get("extraCommandArgs"))
            .and_then(Node::as_map)
            .is_some_and(|m| !m.is_empty())
        {
            self.chart_scheduler_args();
        }
        let Some(cm) = values.get("controllerManager") else {
            return;
        };
        for e in cm.get("featureGates").and_then(Node::as_map).unwrap_or(&[]) {
            if let (Some(name), Some(on)) = (e.key.as_str(), bool_of(&e.value)) {
                self.gate(name, on, shift(e.value.span));
            }
        }
        if let Some(tag) = cm.get("image").and_then(|i| i.get("tag")) {
            let shifted = Node::new(tag.value.clone(), shift(tag.span));
            self.controller_image_tag(&shifted);
        }
        for e in cm
            .get("extraCommandArgs")
            .and_then(Node::as_map)
            .unwrap_or(&[])
        {
            if let Some(name) = e.key.as_str() {
                self.extra_arg(name, &e.value, shift(e.value.span));
            }
        }
    }

    /// One entry of the chart's `extraCommandArgs` or the operator's `extraArgs`: the argument
    /// `--NAME=VALUE` (both render it so), `feature-gates` or a flag read; others are no
    /// concern here.
    fn extra_arg(&mut self, name: &str, value: &Node, at: Span) {
        let Some(text) = go_text(value) else {
            return;
        };
        if name == "feature-gates" {
            self.flag(&text, at);
        } else if is_flag(name, CONTROLLERS) {
            self.controllers(&text, at);
        } else if is_flag(name, SKIPPED_NAMESPACES) {
            self.skipped_namespaces(&text, at, false);
        } else {
            self.controller_flag(name, Some(&text), at);
        }
    }

    /// `--controllers=LIST`: kept as whether the namespace controller runs
    /// ([`namespace_controller_runs`]); a list with a variable is not read.
    fn controllers(&mut self, list: &str, at: Span) {
        if holds_variable(list) {
            return;
        }
        let at = (self.locate)(at);
        self.flags.insert(
            CONTROLLERS.to_string(),
            Setting {
                value: namespace_controller_runs(list),
                at,
            },
        );
    }

    /// `--skipped-propagating-namespaces=LIST`; `appends` for a second occurrence on one command
    /// line, which pflag adds to the first. A list with a variable is not read; a pattern
    /// karmada-controller-manager refuses is a note (it does not start).
    fn skipped_namespaces(&mut self, list: &str, at: Span, appends: bool) {
        if holds_variable(list) {
            return;
        }
        let patterns = parse_skipped_namespaces(list);
        let refused: Vec<String> = patterns
            .iter()
            .filter_map(|p| invalid_namespace_pattern(p))
            .collect();
        if !refused.is_empty() {
            self.notes.push(format!(
                "`--{SKIPPED_NAMESPACES}={list}`: {}: karmada-controller-manager refuses to start",
                refused.join("; ")
            ));
            return;
        }
        let at = (self.locate)(at);
        match self.skipped_namespaces.as_mut().filter(|_| appends) {
            Some(set) => {
                set.value.extend(patterns);
                set.at = at;
            }
            None => {
                self.skipped_namespaces = Some(Setting {
                    value: patterns,
                    at,
                })
            }
        }
    }

    /// A Karmada resource of the operator.
    fn operator(&mut self, spec: Option<&Node>) {
        let Some(spec) = spec else { return };
        // The operator's one karmada-scheduler, with `extraArgs` copied over its arguments as
        // `--KEY=VALUE` (operator/pkg/controlplane/controlplane.go,
        // `getKarmadaSchedulerManifest`, then the patcher's `WithExtraArgs`).
        let scheduler_args = spec
            .get("components")
            .and_then(|c| c.get("karmadaScheduler"))
            .and_then(|k| k.get("extraArgs"))
            .and_then(Node::as_map)
            .unwrap_or(&[]);
        for e in scheduler_args {
            if e.key.as_str().is_some_and(|k| is_flag(k, "scheduler-name")) {
                if let Some(name) = e.value.scalar_text() {
                    self.scheduler(&name, e.value.span);
                }
            }
        }
        let kcm = spec
            .get("components")
            .and_then(|c| c.get("karmadaControllerManager"));
        if let Some(tag) = kcm.and_then(|k| k.get("imageTag")) {
            self.version(tag, "karmadaControllerManager.imageTag");
        }
        let extra = kcm
            .and_then(|k| k.get("extraArgs"))
            .and_then(Node::as_map)
            .unwrap_or(&[]);
        for e in extra {
            match e.key.as_str() {
                Some("feature-gates") | None => {}
                Some(name) => self.extra_arg(name, &e.value, e.value.span),
            }
        }
        let flag = extra
            .iter()
            .find(|e| e.key.as_str() == Some("feature-gates"))
            .map(|e| &e.value);
        match flag.and_then(|f| Some((f.scalar_text()?, f.span))) {
            // The extra argument replaces the flag the operator builds from spec.featureGates.
            Some((s, span)) => self.flag(&s, span),
            None => {
                for e in spec
                    .get("featureGates")
                    .and_then(Node::as_map)
                    .unwrap_or(&[])
                {
                    if let (Some(name), Some(on)) = (e.key.as_str(), bool_of(&e.value)) {
                        self.gate(name, on, e.value.span);
                    }
                }
            }
        }
    }

    /// A Deployment running karmada-controller-manager (an installation, with the name of a
    /// karmada-scheduler beside it in the pod), or only karmada-scheduler under another name
    /// than the default ([`InstallKind::Scheduler`]); `None`: neither.
    fn deployment(&mut self, root: &Node) -> Option<InstallKind> {
        let containers = root
            .get("spec")?
            .get("template")?
            .get("spec")?
            .get("containers")?
            .as_seq()?;
        for c in containers.iter().filter(|c| runs_scheduler(c)) {
            self.scheduler_args(c);
        }
        let Some(c) = containers.iter().find(|c| {
            str_at(c, &["image"]).is_some_and(|i| i.contains(CONTROLLER_MANAGER))
                || runs_binary(c, CONTROLLER_MANAGER)
        }) else {
            let said = !self.schedulers.is_empty() || !self.notes.is_empty();
            return said.then_some(InstallKind::Scheduler);
        };
        if let Some(image) = c.get("image") {
            if let Some((_, tag)) = image.as_str().and_then(|i| i.rsplit_once(':')) {
                let tag = Node::new(Value::Str(tag.into()), image.span);
                self.version(&tag, "the image tag");
            }
        }
        let args = container_args(c);
        let mut rest = args.iter();
        let mut skipped_seen = false;
        while let Some(a) = rest.next() {
            let Some((name, value)) = a.as_str().and_then(long_flag) else {
                continue;
            };
            if is_flag(name, SKIPPED_NAMESPACES) {
                if let Some((v, at)) = string_flag(value, a.span, &mut rest) {
                    self.skipped_namespaces(v, at, skipped_seen);
                    skipped_seen = true;
                }
            } else if is_flag(name, "feature-gates") {
                if let Some((v, at)) = string_flag(value, a.span, &mut rest) {
                    self.flag(v, at);
                }
            } else if is_flag(name, CONTROLLERS) {
                if let Some((v, at)) = string_flag(value, a.span, &mut rest) {
                    self.controllers(v, at);
                }
            } else if ControllerFlags::canonical(name).is_some() {
                self.controller_flag(name, value, a.span);
                // A bool flag never takes the next argument (pflag's NoOptDefVal "true"):
                // `--NAME false` sets it true and leaves `false` a stray argument.
                let stray = rest.as_slice().first().and_then(|n| n.as_str());
                if let (None, Some(next)) = (value, stray.filter(|n| parse_bool(n).is_some())) {
                    self.notes.push(format!(
                        "`--{name} {next}`: a bool flag takes its value only as `--{name}={next}`; karmada-controller-manager reads `--{name}` as true and refuses `{next}` as an unknown command"
                    ));
                }
            }
        }
        Some(InstallKind::Deployment)
    }

    /// The `--scheduler-name` a karmada-scheduler container runs with: a string flag, so
    /// `--scheduler-name=NAME` or `--scheduler-name NAME`, the last one wins (pflag); none is
    /// `default-scheduler` (cmd/scheduler/app/options/options.go:165).
    fn scheduler_args(&mut self, c: &Node) {
        let args = container_args(c);
        let mut last = None;
        let mut rest = args.iter();
        while let Some(a) = rest.next() {
            let Some((name, value)) = a.as_str().and_then(long_flag) else {
                continue;
            };
            if !is_flag(name, "scheduler-name") {
                continue;
            }
            last = match value {
                Some(v) => Some((v.to_string(), a.span)),
                None => rest
                    .next()
                    .and_then(|n| Some((n.scalar_text()?.into_owned(), n.span)))
                    .or(last),
            };
        }
        if let Some((name, at)) = last {
            self.scheduler(&name, at);
        }
    }

    /// A karmada-scheduler's `--scheduler-name`, kept unless it is the default.
    fn scheduler(&mut self, name: &str, at: Span) {
        if name.contains("$(") {
            self.notes.push(format!(
                "`--scheduler-name={name}`: the container's variables are not expanded here; that scheduler's name is not read"
            ));
            return;
        }
        if name.is_empty() || name == DEFAULT_SCHEDULER {
            return;
        }
        let at = (self.locate)(at);
        self.schedulers.retain(|s| s.value != name);
        self.schedulers.push(Setting {
            value: name.to_string(),
            at,
        });
    }

    /// A controller-manager flag given as `--NAME` (`value` `None`: true) or `--NAME=VALUE`:
    /// kept if it is one [`ControllerFlags`] reads, by its canonical name.
    fn controller_flag(&mut self, name: &str, value: Option<&str>, at: Span) {
        let Some(canonical) = ControllerFlags::canonical(name) else {
            return;
        };
        let on = match value {
            None => Some(true),
            Some(v) => parse_bool(v),
        };
        match on {
            Some(on) => {
                let at = (self.locate)(at);
                self.flags
                    .insert(canonical.to_string(), Setting { value: on, at });
            }
            None => self.notes.push(format!(
                "`--{name}={}`: not a bool (strconv.ParseBool): karmada-controller-manager refuses to start",
                value.unwrap_or_default()
            )),
        }
    }

    /// `Name=bool,...` over the gates so far.
    fn flag(&mut self, spec: &str, at: Span) {
        for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some((name, value)) = pair.split_once('=') {
                match value.trim().to_ascii_lowercase().as_str() {
                    "true" => self.gate(name.trim(), true, at),
                    "false" => self.gate(name.trim(), false, at),
                    _ => self.notes.push(format!(
                        "feature gate `{pair}`: the value must be true or false"
                    )),
                }
            }
        }
    }

    fn gate(&mut self, name: &str, on: bool, at: Span) {
        let at = (self.locate)(at);
        self.gates
            .insert(name.to_string(), Setting { value: on, at });
    }

    /// The chart's `controllerManager.image.tag`: the release when the chart's version is not
    /// known. Where it is, the chart's version stays the release: it installs the CRDs (the
    /// pre-install job applies the chart's own `_crds`) and runs karmada-webhook at its
    /// `appVersion` (`webhook.image.tag` defaults to it), so the API server admits policies
    /// as that release does; the tag moves only karmada-controller-manager, which a note says.
    fn controller_image_tag(&mut self, node: &Node) {
        let Some(chart) = self.release.as_ref().map(|r| r.value) else {
            self.version(node, "controllerManager.image.tag");
            return;
        };
        let text = node.scalar_text().unwrap_or_default();
        if let Some(Ok(tag)) = release_of(&text) {
            if tag != chart {
                self.notes.push(format!(
                    "controllerManager.image.tag `{text}` runs karmada-controller-manager {tag}, while the chart installs Karmada {chart}'s CRDs and webhook: judged by {chart}, the release that admits the policies"
                ));
            }
        }
    }

    /// A version spelled as a chart version, range or image tag: the release it names.
    fn version(&mut self, node: &Node, what: &str) {
        let Some(text) = node.scalar_text() else {
            return;
        };
        match release_of(&text) {
            Some(Ok(v)) => {
                let at = (self.locate)(node.span);
                self.release = Some(Setting { value: v, at });
            }
            Some(Err(e)) => {
                // A release outside the known range is judged by the nearest known one: its
                // defaults (Failover on before 1.12...) are closer than the newest release's.
                let nearest = minor_of(&text).and_then(|(major, minor)| {
                    KarmadaVersion::nearest_known(KarmadaVersion::new(major, minor))
                });
                match nearest {
                    Some(v) => {
                        self.notes.push(format!(
                            "{what} `{text}`: {e}; judged by Karmada {v}, the nearest release it knows"
                        ));
                        let at = (self.locate)(node.span);
                        self.release = Some(Setting { value: v, at });
                    }
                    None => self.notes.push(format!("{what} `{text}`: {e}")),
                }
            }
            None => self
                .notes
                .push(format!("{what} `{text}` names no Karmada release")),
        }
    }
}

/// The release a chart version, a semver range or an image tag names: its first
/// `MAJOR.MINOR` (`v1.17.0`, `1.17.x`, `~1.17.0`, `>=1.17.0`); `None` for `latest` or `*`.
pub fn release_of(text: &str) -> Option<Result<KarmadaVersion, String>> {
    let (major, minor) = minor_of(text)?;
    Some(format!("{major}.{minor}").parse::<KarmadaVersion>())
}

/// The first `MAJOR.MINOR` of a version text, whatever the release.
fn minor_of(text: &str) -> Option<(u32, u32)> {
    let start = text.find(|c: char| c.is_ascii_digit())?;
    let rest = &text[start..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let mut parts = rest[..end].split('.').filter(|p| !p.is_empty());
    let (major, minor) = (parts.next()?, parts.next()?);
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Whether chart values install the control plane: the chart's `installMode` is `host` by
/// default; `agent` installs only karmada-agent in a member cluster and `component` only the
/// optional components (charts/karmada/values.yaml), neither runs karmada-controller-manager.
fn installs_control_plane(values: Option<&Node>) -> bool {
    host_mode(values.and_then(|v| v.get("installMode")))
}

/// Whether a flag's value is filled in later (a container's `$(VAR)`, a template's `{{ }}`): its
/// list is not known here.
fn holds_variable(value: &str) -> bool {
    value.contains("$(") || value.contains("{{")
}

/// A value as the chart's `--{{ $key }}={{ $value }}` writes it (Go's `%v`): a scalar's text, a
/// list of scalars as `[a b]` (one argument, which karmada-controller-manager reads as it
/// reads any value: `--skipped-propagating-namespaces=[a b]` is the one pattern `[a b]`);
/// `None` for a mapping, which no flag read takes.
fn go_text(value: &Node) -> Option<String> {
    match &value.value {
        Value::Seq(items) => {
            let items: Option<Vec<String>> = items.iter().map(go_text).collect();
            Some(format!("[{}]", items?.join(" ")))
        }
        _ => value.scalar_text().map(|t| t.into_owned()),
    }
}

/// Whether an `installMode` value (none: the default) is `host`.
fn host_mode(mode: Option<&Node>) -> bool {
    mode.and_then(Node::as_str).is_none_or(|m| m == "host")
}

/// A string flag's value and where it is: `--NAME=VALUE` (`value`, at the argument `at`), or
/// `--NAME VALUE`, which takes the next argument of `rest` (pflag).
fn string_flag<'a>(
    value: Option<&'a str>,
    at: Span,
    rest: &mut std::slice::Iter<'_, &'a Node>,
) -> Option<(&'a str, Span)> {
    match value {
        Some(v) => Some((v, at)),
        None => rest.next().and_then(|n| Some((n.as_str()?, n.span))),
    }
}

/// A container's `command` and `args`, in the order the process sees them.
fn container_args(c: &Node) -> Vec<&Node> {
    ["command", "args"]
        .iter()
        .flat_map(|k| c.get(k).and_then(Node::as_seq).unwrap_or(&[]))
        .collect()
}

/// `--NAME=VALUE` as `(NAME, Some(VALUE))`, `--NAME` as `(NAME, None)`; `None`: no long flag.
fn long_flag(arg: &str) -> Option<(&str, Option<&str>)> {
    let s = arg.strip_prefix("--")?;
    Some(
        s.split_once('=')
            .map_or((s, None), |(name, value)| (name, Some(value))),
    )
}

/// Whether a container runs karmada-scheduler: its image (`…/karmada-scheduler:TAG`, not
/// karmada-scheduler-estimator), its command's binary or its name says so.
fn runs_scheduler(c: &Node) -> bool {
    runs_binary(c, "karmada-scheduler")
}

/// The binary of Karmada's controller manager, whose `--feature-gates` and controller flags
/// decide (cmd/controller-manager).
const CONTROLLER_MANAGER: &str = "karmada-controller-manager";

/// Whether container `c` runs Karmada's `binary`: its image is named so, its command starts
/// it, or the container is named so. Karmada's chart names the container after the release
/// (`{{ $name }}-controller-manager`, charts/karmada/templates) and a mirror renames the
/// image, but the command stays the binary's path (`/bin/karmada-controller-manager`).
fn runs_binary(c: &Node, binary: &str) -> bool {
    let image = str_at(c, &["image"]).map(|i| {
        let i = i.split('@').next().unwrap_or(i);
        let last = i.rsplit('/').next().unwrap_or(i);
        last.split(':').next().unwrap_or(last)
    });
    let command = c
        .get("command")
        .and_then(Node::as_seq)
        .and_then(|s| s.first())
        .and_then(Node::as_str)
        .map(|p| p.rsplit('/').next().unwrap_or(p));
    image == Some(binary) || command == Some(binary) || str_at(c, &["name"]) == Some(binary)
}

fn is_karmada_chart(chart: &str) -> bool {
    chart.trim_end_matches('/').rsplit('/').next() == Some("karmada")
}

fn str_at<'a>(node: &'a Node, path: &[&str]) -> Option<&'a str> {
    let mut n = node;
    for k in path {
        n = n.get(k)?;
    }
    n.as_str()
}

/// A gate's value: a boolean, or the string `true`/`false` (Helm parameters are strings).
fn bool_of(node: &Node) -> Option<bool> {
    match &node.value {
        Value::Bool(b) => Some(*b),
        Value::Str(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// The line a string's text starts on (a block scalar's span starts at its first content
/// line, after the `|`).
fn block_first_line(node: &Node) -> Option<u32> {
    node.as_str()?;
    Some(node.span.start.line)
}

fn shifted(span: Span, lines: u32) -> Span {
    let mut s = span;
    s.start.line += lines;
    s.end.line += lines;
    s
}

/// The notes saying which Karmada settings each environment was read with, one per settings
/// line (the environments sharing it named together); environments with no installation give
/// none.
pub fn settings_notes<'a>(
    environments: impl Iterator<Item = (&'a str, &'a RepositorySettings)>,
) -> Vec<String> {
    let mut lines: Vec<(String, Vec<&str>)> = Vec::new();
    for (name, settings) in environments {
        let Some(line) = settings.describe() else {
            continue;
        };
        match lines.iter_mut().find(|(l, _)| *l == line) {
            Some((_, names)) => names.push(name),
            None => lines.push((line, vec![name])),
        }
    }
    lines
        .into_iter()
        .map(|(line, names)| {
            let which = match names.as_slice() {
                [one] => format!("environment {one}"),
                _ => format!("environments {}", named_few(&names)),
            };
            settings_line(&which, &line)
        })
        .collect()
}

/// Environments named in a note at most: a source repository's loose directories (test data,
/// vendored code) come by the dozen, and a note is one line; `-v=1` names each.
const ENVIRONMENTS_NAMED: usize = 5;

/// `a, b, c`, or `a, b, c, d, e and 65 more (-v=1 names each)`.
fn named_few(names: &[&str]) -> String {
    if names.len() <= ENVIRONMENTS_NAMED + 1 || crate::kube::trace::verbosity() >= 1 {
        return names.join(", ");
    }
    format!(
        "{} and {} more (-v=1 names each)",
        names[..ENVIRONMENTS_NAMED].join(", "),
        names.len() - ENVIRONMENTS_NAMED
    )
}

/// [`settings_notes`] for plain manifests, which are one control plane: the installation they
/// hold is theirs.
pub fn plain_settings_note(settings: &RepositorySettings) -> Option<String> {
    Some(settings_line("the inputs", &settings.describe()?))
}

fn settings_line(which: &str, line: &str) -> String {
    format!(
        "{which}: Karmada settings from {line} (--karmada-version, --feature-gates and .karmada-policy.yaml override them)"
    )
}

/// A scheduler name the repository's Karmada serves besides `default-scheduler`: the object
/// running the scheduler, the name, and where it is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulerRead {
    pub object: String,
    pub name: String,
    pub at: Origin,
}

/// What the repository installs, for one environment: the first installation found, its
/// release and gates, the karmada-schedulers run beside it, and a note naming the files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepositorySettings {
    pub installation: Option<Installation>,
    /// Other installations seen for the same environment (ignored; said).
    pub others: Vec<String>,
    /// The Deployments of karmada-scheduler alone ([`InstallKind::Scheduler`]): every one
    /// counts, each serving its name beside the installation's.
    pub schedulers: Vec<Installation>,
}

impl RepositorySettings {
    /// The settings of installations found in the order given (the first one is used; every
    /// karmada-scheduler Deployment is).
    pub fn of(installations: Vec<Installation>) -> RepositorySettings {
        let (mut schedulers, installations): (Vec<Installation>, Vec<Installation>) = installations
            .into_iter()
            .partition(|i| i.kind == InstallKind::Scheduler);
        // One file two instances apply is one Deployment.
        let mut seen = Vec::new();
        schedulers.retain(|d| {
            let new = !seen.contains(&d.at);
            seen.push(d.at.clone());
            new
        });
        let mut it = installations.into_iter();
        let installation = it.next();
        RepositorySettings {
            installation,
            others: it.map(|i| format!("{} ({})", i.object, i.at)).collect(),
            schedulers,
        }
    }

    /// The scheduler names read other than `default-scheduler`, each with the object running
    /// it: the installation's (the operator's `karmadaScheduler.extraArgs`), then each
    /// karmada-scheduler Deployment's.
    pub fn schedulers_read(&self) -> Vec<SchedulerRead> {
        self.installation
            .iter()
            .chain(&self.schedulers)
            .flat_map(|i| {
                i.schedulers.iter().map(|s| SchedulerRead {
                    object: i.object.clone(),
                    name: s.value.clone(),
                    at: s.at.clone(),
                })
            })
            .collect()
    }

    /// The scheduler names served besides `default-scheduler`, each with the `file:line` it
    /// was read at.
    pub fn served(&self) -> Schedulers {
        let mut served = Schedulers::default();
        for s in self.schedulers_read() {
            served.add(&s.name, s.at.to_string());
        }
        served
    }

    pub fn release(&self) -> Option<KarmadaVersion> {
        Some(self.installation.as_ref()?.release.as_ref()?.value)
    }

    /// The gates as `name → on`.
    pub fn gates(&self) -> BTreeMap<String, bool> {
        self.installation
            .as_ref()
            .map(|i| i.gates.iter().map(|(k, s)| (k.clone(), s.value)).collect())
            .unwrap_or_default()
    }

    /// The controller-manager flags, each with the `file:line` it was read at.
    pub fn flags(&self) -> ControllerFlags {
        let mut flags = ControllerFlags::default();
        for (name, s) in self.installation.iter().flat_map(|i| &i.flags) {
            flags.set(name, s.value, s.at.to_string());
        }
        if let Some(s) = self
            .installation
            .as_ref()
            .and_then(|i| i.skipped_namespaces.as_ref())
        {
            flags.set_skipped_namespaces(s.value.clone(), s.at.to_string());
        }
        flags
    }

    /// One line for the user: what was read, from where.
    pub fn describe(&self) -> Option<String> {
        let schedulers: Vec<String> = self
            .schedulers_read()
            .into_iter()
            .map(|s| format!("karmada-scheduler `{}` ({})", s.name, s.at))
            .collect();
        let scheduler_notes = self.schedulers.iter().flat_map(|d| &d.notes);
        let Some(i) = self.installation.as_ref() else {
            let notes: Vec<&String> = scheduler_notes.collect();
            if schedulers.is_empty() && notes.is_empty() {
                return None;
            }
            let mut line = schedulers.join(", ");
            for n in notes {
                if !line.is_empty() {
                    line.push_str("; ");
                }
                line.push_str(n);
            }
            return Some(line);
        };
        let mut parts = Vec::new();
        if let Some(r) = &i.release {
            parts.push(format!("Karmada {} ({})", r.value, r.at));
        }
        for (name, s) in &i.gates {
            parts.push(format!("{name}={} ({})", s.value, s.at));
        }
        for (name, s) in &i.flags {
            parts.push(match name.as_str() {
                CONTROLLERS if s.value => {
                    format!("--{name} runs the namespace controller ({})", s.at)
                }
                CONTROLLERS => format!("--{name} without the namespace controller ({})", s.at),
                _ => format!("--{name}={} ({})", s.value, s.at),
            });
        }
        if let Some(s) = &i.skipped_namespaces {
            parts.push(format!(
                "--{SKIPPED_NAMESPACES}={} ({})",
                s.value.join(","),
                s.at
            ));
        }
        if parts.is_empty() {
            parts.push("no release or feature gate".into());
        }
        parts.extend(schedulers);
        let mut line = format!("{} at {}: {}", i.object, i.at, parts.join(", "));
        for n in i.notes.iter().chain(scheduler_notes) {
            line.push_str(&format!("; {n}"));
        }
        if !self.others.is_empty() {
            line.push_str(&format!(
                "; also installed by {}, not used",
                self.others.join(", ")
            ));
        }
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    #[test]
    fn only_a_text_naming_an_installing_kind_is_looked_into() {
        let chart = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  chart:\n    spec: {chart: karmada, version: v1.17.0}\n";
        assert_eq!(in_text("c.yaml".into(), chart.into()).len(), 1);
        let policy = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p}\n";
        assert!(in_text("p.yaml".into(), policy.into()).is_empty());
    }

    /// A Deployment is an installation only in a text naming a Karmada controller, whoever
    /// reads it: a workload beside the policies is not looked into.
    #[test]
    fn the_words_of_a_text_say_which_documents_may_install() {
        let workload = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n";
        let words = Words::of(workload);
        assert!(!words.may_be("apps/v1", "Deployment"));
        assert!(!words.may_be("helm.toolkit.fluxcd.io/v2", "HelmRelease"));
        let controller = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karmada-controller-manager}\nspec:\n  template:\n    spec:\n      containers:\n      - name: karmada-controller-manager\n        image: docker.io/karmada/karmada-controller-manager:v1.14.0\n";
        assert!(Words::of(controller).may_be("apps/v1", "Deployment"));
        assert!(!Words::of(controller).may_be("v1", "ConfigMap"));
        assert!(detect_in(controller).is_some());
        let renamed = "kind: Deployment\napiVersion: apps/v1\nspec:\n  template:\n    spec:\n      containers:\n      - image: karmada/karmada-scheduler:v1.14.0\n        command: [karmada-scheduler, --scheduler_name=edge]\n";
        assert!(Words::of(renamed).may_be("apps/v1", "Deployment"));
        let chart =
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: karmada}\n";
        assert!(Words::of(chart).may_be("argoproj.io/v1alpha1", "Application"));
        assert!(!Words::of("kind: Application\n").may_be("argoproj.io/v1alpha1", "Application"));
    }

    fn detect_in(text: &str) -> Option<Installation> {
        let l = load(Source::new("f.yaml", text));
        detect(&l.documents[0].root, &|s: Span| Origin {
            file: "f.yaml".into(),
            line: s.start.line,
        })
    }

    /// A source repository's dozens of loose directories share one installation: the note
    /// names a few and counts the rest (jd-opensource/joylive-karmada: 70 names, 5,052
    /// characters on one line).
    #[test]
    fn a_note_shared_by_many_environments_names_a_few() {
        let names: Vec<&str> = vec!["a", "b", "c", "d", "e", "f", "g", "h"];
        assert_eq!(
            named_few(&names),
            "a, b, c, d, e and 3 more (-v=1 names each)"
        );
        assert_eq!(named_few(&names[..6]), "a, b, c, d, e, f");
    }

    /// Karmada's chart installed under another release name names the container after it
    /// (`kc-controller-manager`), and a mirror renames the image: the command still runs the
    /// controller manager, whose gates decide.
    #[test]
    fn a_controller_manager_is_known_by_the_binary_its_command_runs() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: kc-controller-manager, namespace: karmada-system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: kc-controller-manager\n        image: registry.corp.example/karmada/controller-manager:v1.17.0\n        command:\n        - /bin/karmada-controller-manager\n        - --feature-gates=PropagationPolicyPreemption=true\n";
        assert!(Words::of(text).may_be("apps/v1", "Deployment"));
        let i = detect_in(text).unwrap();
        assert_eq!(i.kind, InstallKind::Deployment);
        assert!(i.gates["PropagationPolicyPreemption"].value);
        assert_eq!(i.gates["PropagationPolicyPreemption"].at.line, 12);
        assert_eq!(i.release.unwrap().value, KarmadaVersion::new(1, 17));
        // A workload that only passes the name along is none.
        let other = text.replace("/bin/karmada-controller-manager", "/bin/proxy");
        assert!(detect_in(&other.replace("karmada/controller-manager", "x/y")).is_none());
    }

    #[test]
    fn a_helm_release_of_the_chart_gives_release_and_gates() {
        let i = detect_in("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  chart:\n    spec:\n      chart: karmada\n      version: v1.17.x\n  values:\n    controllerManager:\n      featureGates:\n        Failover: true\n      extraCommandArgs:\n        feature-gates: GracefulEviction=false\n").unwrap();
        assert_eq!(i.object, "HelmRelease karmada-system/karmada");
        let r = i.release.unwrap();
        assert_eq!((r.value, r.at.line), (KarmadaVersion::new(1, 17), 8));
        assert!(i.gates["Failover"].value);
        assert_eq!(i.gates["Failover"].at.line, 12);
        assert!(!i.gates["GracefulEviction"].value);
        // The chart's own default, at the line naming the chart.
        assert_eq!(i.gates["PropagateDeps"].at.line, 7);
        assert!(detect_in("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: x}\nspec:\n  chart: {spec: {chart: podinfo}}\n").is_none());
        // The chart in agent mode installs karmada-agent in a member cluster only.
        assert!(detect_in("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada-agent}\nspec:\n  chart: {spec: {chart: karmada, version: v1.17.1}}\n  values: {installMode: agent}\n").is_none());
    }

    /// The chart's version is the release even where `controllerManager.image.tag` pins
    /// another controller-manager: the chart installs its own release's CRDs and webhook
    /// (charts/karmada `templates/pre-install-job.yaml`, `webhook.image.tag` defaulting to the
    /// `appVersion`), which admit the policies. Without a chart version the tag is the release.
    #[test]
    fn the_chart_version_is_the_release_over_the_controller_managers_tag() {
        let release = |chart: &str| {
            format!("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: karmada, namespace: karmada-system}}\nspec:\n  chart:\n    spec:\n      chart: karmada\n{chart}  values:\n    controllerManager:\n      image: {{tag: v1.17.1}}\n")
        };
        let i = detect_in(&release("      version: v1.18.0\n")).unwrap();
        let r = i.release.unwrap();
        assert_eq!((r.value, r.at.line), (KarmadaVersion::new(1, 18), 8));
        assert_eq!(i.notes, ["controllerManager.image.tag `v1.17.1` runs karmada-controller-manager 1.17, while the chart installs Karmada 1.18's CRDs and webhook: judged by 1.18, the release that admits the policies"]);
        let i = detect_in(&release("")).unwrap();
        let r = i.release.unwrap();
        assert_eq!((r.value, r.at.line), (KarmadaVersion::new(1, 17), 10));
        assert!(i.notes.is_empty(), "{:?}", i.notes);
    }

    #[test]
    fn an_argo_cd_helm_source_reads_values_and_parameters() {
        let text = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: karmada, namespace: argocd}\nspec:\n  source:\n    repoURL: https://raw.githubusercontent.com/karmada-io/karmada/master/charts\n    chart: karmada\n    targetRevision: v1.16.0\n    helm:\n      values: |\n        controllerManager:\n          featureGates:\n            Failover: true\n      parameters:\n        - name: controllerManager.featureGates.PropagationPolicyPreemption\n          value: \"true\"\n";
        let i = detect_in(text).unwrap();
        assert_eq!(i.release.unwrap().value, KarmadaVersion::new(1, 16));
        assert_eq!(i.gates["Failover"].at.line, 13);
        assert!(i.gates["PropagationPolicyPreemption"].value);
        assert_eq!(i.gates["PropagationPolicyPreemption"].at.line, 16);
    }

    #[test]
    fn a_k3s_helm_chart_reads_values_content_values_and_set_in_helm_controllers_order() {
        let text = "apiVersion: helm.cattle.io/v1\nkind: HelmChart\nmetadata: {name: karmada, namespace: kube-system}\nspec:\n  repo: https://raw.githubusercontent.com/karmada-io/karmada/master/charts\n  chart: karmada\n  version: v1.15.2\n  targetNamespace: karmada-system\n  valuesContent: |-\n    controllerManager:\n      featureGates:\n        Failover: true\n        GracefulEviction: true\n  values:\n    controllerManager:\n      featureGates:\n        GracefulEviction: false\n  set:\n    controllerManager.featureGates.PropagationPolicyPreemption: \"true\"\n    controllerManager.featureGates.GracefulEviction: \"true\"\n";
        let i = detect_in(text).unwrap();
        assert_eq!(i.object, "HelmChart kube-system/karmada");
        assert_eq!(i.release.unwrap().value, KarmadaVersion::new(1, 15));
        // valuesContent, at its line in the file.
        assert!(i.gates["Failover"].value);
        assert_eq!(i.gates["Failover"].at.line, 12);
        // values over valuesContent, set over both.
        assert!(i.gates["GracefulEviction"].value);
        assert_eq!(i.gates["GracefulEviction"].at.line, 20);
        assert!(i.gates["PropagationPolicyPreemption"].value);
        assert!(!i.gates["PropagateDeps"].value, "the chart's own default");
        // Another chart, or the chart in agent mode (set wins over valuesContent), is no
        // installation of the control plane.
        assert!(detect_in("apiVersion: helm.cattle.io/v1\nkind: HelmChart\nmetadata: {name: traefik}\nspec: {chart: traefik}\n").is_none());
        assert!(detect_in("apiVersion: helm.cattle.io/v1\nkind: HelmChart\nmetadata: {name: k}\nspec:\n  chart: karmada\n  valuesContent: 'installMode: host'\n  set: {installMode: agent}\n").is_none());
    }

    #[test]
    fn the_operator_and_a_plain_deployment() {
        let op = detect_in("apiVersion: operator.karmada.io/v1alpha1\nkind: Karmada\nmetadata: {name: k, namespace: karmada-system}\nspec:\n  featureGates:\n    Failover: true\n  components:\n    karmadaControllerManager:\n      imageTag: v1.15.2\n").unwrap();
        assert_eq!(op.release.unwrap().value, KarmadaVersion::new(1, 15));
        assert!(op.gates["Failover"].value);
        // extraArgs replaces the flag built from spec.featureGates.
        let op = detect_in("apiVersion: operator.karmada.io/v1alpha1\nkind: Karmada\nmetadata: {name: k}\nspec:\n  featureGates: {Failover: true}\n  components:\n    karmadaControllerManager:\n      extraArgs: {feature-gates: 'PropagationPolicyPreemption=true'}\n").unwrap();
        assert!(!op.gates.contains_key("Failover"));
        let d = detect_in("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: karmada-controller-manager, namespace: karmada-system}\nspec:\n  template:\n    spec:\n      containers:\n        - name: karmada-controller-manager\n          image: docker.io/karmada/karmada-controller-manager:v1.14.1\n          command:\n            - /bin/karmada-controller-manager\n            - --feature-gates=Failover=true,GracefulEviction=true\n").unwrap();
        assert_eq!(d.release.unwrap().value, KarmadaVersion::new(1, 14));
        assert_eq!(d.gates["Failover"].at.line, 12);
    }

    /// A karmada-controller-manager Deployment (v1.14.1) run with `args` after its binary (YAML
    /// flow items).
    fn controller_manager_with(args: &str) -> Installation {
        detect_in(&format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: karmada-controller-manager, namespace: karmada-system}}\nspec:\n  template:\n    spec:\n      containers:\n        - name: karmada-controller-manager\n          image: docker.io/karmada/karmada-controller-manager:v1.14.1\n          command: [/bin/karmada-controller-manager, {args}]\n")).unwrap()
    }

    /// `--skipped-propagating-namespaces` from a Deployment's arguments (a second occurrence
    /// appends, as pflag's string slice does), the chart's `extraCommandArgs` and the operator's
    /// `extraArgs`; a pattern karmada-controller-manager refuses is a note, not a setting.
    #[test]
    fn the_skipped_namespaces_are_read_where_the_controllers_list_is() {
        let skipped = |i: &Installation| i.skipped_namespaces.as_ref().map(|s| s.value.clone());
        assert_eq!(
            skipped(&controller_manager_with(
                "'--skipped-propagating-namespaces=a,b-.*'"
            )),
            Some(vec!["a".to_string(), "b-.*".to_string()])
        );
        assert_eq!(
            skipped(&controller_manager_with(
                "--skipped-propagating-namespaces=a, --skipped_propagating_namespaces, c"
            )),
            Some(vec!["a".to_string(), "c".to_string()])
        );
        assert_eq!(
            skipped(&controller_manager_with(
                "--skipped-propagating-namespaces="
            )),
            Some(vec![])
        );
        let refused = controller_manager_with("'--skipped-propagating-namespaces=team-(a'");
        assert_eq!(skipped(&refused), None);
        assert!(
            refused.notes[0].contains("Invalid namespace regular expression `team-(a`")
                && refused.notes[0].ends_with("karmada-controller-manager refuses to start"),
            "{:?}",
            refused.notes
        );
        let chart = detect_in("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada}\nspec:\n  chart: {spec: {chart: karmada, version: v1.17.0}}\n  values:\n    controllerManager:\n      extraCommandArgs: {skipped-propagating-namespaces: 'kube-.*,sandbox'}\n").unwrap();
        assert_eq!(
            skipped(&chart),
            Some(vec!["kube-.*".to_string(), "sandbox".to_string()])
        );
        // A list in the values, or `{a,b}` set as a parameter, is written `[a b]` by the
        // chart: one pattern, a character class (`[sandbox tools-a]` does not even compile:
        // `s-a` is no range, and karmada-controller-manager refuses to start).
        let listed = |values: &str| {
            detect_in(&format!("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: karmada}}\nspec:\n  chart: {{spec: {{chart: karmada, version: v1.17.0}}}}\n  values:\n    controllerManager:\n      extraCommandArgs: {{skipped-propagating-namespaces: {values}}}\n")).unwrap()
        };
        assert_eq!(
            skipped(&listed("[sandbox, tools]")),
            Some(vec!["[sandbox tools]".to_string()])
        );
        let refused = listed("[sandbox, tools-a]");
        assert_eq!(skipped(&refused), None);
        assert!(
            refused.notes[0].contains("`[sandbox tools-a]`"),
            "{:?}",
            refused.notes
        );
        let argo = detect_in("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: karmada, namespace: argocd}\nspec:\n  source:\n    repoURL: https://raw.githubusercontent.com/karmada-io/karmada/master/charts\n    chart: karmada\n    targetRevision: v1.16.0\n    helm:\n      parameters:\n        - name: controllerManager.extraCommandArgs.skipped-propagating-namespaces\n          value: '{sandbox,tools}'\n").unwrap();
        assert_eq!(skipped(&argo), Some(vec!["[sandbox tools]".to_string()]));
        let op = detect_in("apiVersion: operator.karmada.io/v1alpha1\nkind: Karmada\nmetadata: {name: k}\nspec:\n  components:\n    karmadaControllerManager:\n      extraArgs: {skipped-propagating-namespaces: sandbox}\n").unwrap();
        assert_eq!(skipped(&op), Some(vec!["sandbox".to_string()]));
        let settings = RepositorySettings::of(vec![chart]);
        assert_eq!(
            settings.flags().skipped_namespaces(),
            ["kube-.*", "sandbox"]
        );
        assert!(
            settings
                .describe()
                .unwrap()
                .contains("--skipped-propagating-namespaces=kube-.*,sandbox (f.yaml:8)"),
            "{:?}",
            settings.describe()
        );
    }

    /// `--controllers` is kept as whether the namespace controller runs: in a Deployment's
    /// arguments (`=LIST` or the next argument), in the chart's `extraCommandArgs` and the
    /// operator's `extraArgs` (wongearl/boc-karmada's chart lists controllers without it).
    #[test]
    fn the_controllers_list_says_whether_the_namespace_controller_runs() {
        let runs = |i: &Installation| i.flags.get(CONTROLLERS).map(|s| s.value);
        assert_eq!(
            runs(&controller_manager_with("--controllers=cluster,binding")),
            Some(false)
        );
        assert_eq!(
            runs(&controller_manager_with("'--controllers=*,-namespace'")),
            Some(false)
        );
        assert_eq!(
            runs(&controller_manager_with("--controllers, '*'")),
            Some(true)
        );
        assert_eq!(runs(&controller_manager_with("--v=4")), None);
        let chart = detect_in("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada}\nspec:\n  chart: {spec: {chart: karmada, version: v1.17.0}}\n  values:\n    controllerManager:\n      extraCommandArgs: {controllers: 'cluster,execution'}\n").unwrap();
        assert_eq!(runs(&chart), Some(false));
        let settings = RepositorySettings::of(vec![chart]);
        assert!(settings.flags().why_no_namespace_controller().is_some());
        assert!(
            settings
                .describe()
                .unwrap()
                .contains("--controllers without the namespace controller (f.yaml:8)"),
            "{:?}",
            settings.describe()
        );
    }

    fn eviction(i: &Installation) -> Option<(bool, u32)> {
        i.flags
            .get("enable-no-execute-taint-eviction")
            .map(|s| (s.value, s.at.line))
    }

    /// The chart renders each `controllerManager.extraCommandArgs` entry as `--KEY=VALUE`
    /// (templates/_helpers.tpl, `karmada.controllerManager.extraCommandArgs`).
    #[test]
    fn the_charts_extra_command_args_give_the_controller_manager_flags() {
        let i = detect_in("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  chart: {spec: {chart: karmada, version: v1.17.0}}\n  values:\n    controllerManager:\n      featureGates: {Failover: true}\n      extraCommandArgs:\n        enable-no-execute-taint-eviction: true\n        no-execute-taint-eviction-purge-mode: Directly\n").unwrap();
        assert_eq!(eviction(&i), Some((true, 10)));
        assert_eq!(i.flags.len(), 1, "only the flags read: {:?}", i.flags);
        let settings = RepositorySettings::of(vec![i]);
        assert_eq!(
            settings
                .flags()
                .get(super::super::controller_flags::NO_EXECUTE_TAINT_EVICTION)
                .unwrap()
                .from,
            "f.yaml:10"
        );
        assert!(
            settings
                .describe()
                .unwrap()
                .contains("--enable-no-execute-taint-eviction=true (f.yaml:10)"),
            "{:?}",
            settings.describe()
        );
        // A string, as `--set` and Argo CD parameters give it; a value the controller-manager
        // cannot parse is said, not guessed.
        let i = detect_in("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada}\nspec:\n  chart: {spec: {chart: karmada, version: v1.17.0}}\n  values:\n    controllerManager:\n      extraCommandArgs: {enable-no-execute-taint-eviction: 'yes'}\n").unwrap();
        assert_eq!(eviction(&i), None);
        assert!(i.notes[0].contains("not a bool"), "{:?}", i.notes);
    }

    #[test]
    fn argo_cd_parameters_and_k3s_set_entries_give_the_flags() {
        let argo = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: karmada, namespace: argocd}\nspec:\n  source:\n    chart: karmada\n    targetRevision: v1.16.0\n    helm:\n      valuesObject:\n        controllerManager:\n          extraCommandArgs: {enable-no-execute-taint-eviction: true}\n      parameters:\n        - name: controllerManager.extraCommandArgs.enable-no-execute-taint-eviction\n          value: \"false\"\n";
        assert_eq!(eviction(&detect_in(argo).unwrap()), Some((false, 14)));
        let k3s = "apiVersion: helm.cattle.io/v1\nkind: HelmChart\nmetadata: {name: karmada, namespace: kube-system}\nspec:\n  chart: karmada\n  version: v1.15.2\n  valuesContent: |-\n    controllerManager:\n      extraCommandArgs:\n        enable-no-execute-taint-eviction: false\n  set:\n    controllerManager.extraCommandArgs.enable-no-execute-taint-eviction: \"true\"\n";
        assert_eq!(eviction(&detect_in(k3s).unwrap()), Some((true, 12)));
    }

    /// The operator copies each `extraArgs` entry over the arguments it builds, as
    /// `--KEY=VALUE` (operator/pkg/util/patcher/pather.go, `buildArgumentListFromMap`).
    #[test]
    fn the_operators_extra_args_give_the_flags() {
        let op = detect_in("apiVersion: operator.karmada.io/v1alpha1\nkind: Karmada\nmetadata: {name: k, namespace: karmada-system}\nspec:\n  featureGates: {Failover: true}\n  components:\n    karmadaControllerManager:\n      imageTag: v1.15.2\n      extraArgs:\n        enable-no-execute-taint-eviction: \"true\"\n").unwrap();
        assert_eq!(eviction(&op), Some((true, 10)));
        assert!(op.gates["Failover"].value, "spec.featureGates still count");
    }

    /// A Deployment's arguments as pflag reads a bool flag: `--NAME` is true, `--NAME=BOOL`
    /// as strconv.ParseBool reads it, `_` for `-`, the last one wins; `--NAME false` is true
    /// and a stray argument.
    #[test]
    fn a_deployments_arguments_give_the_flags_as_pflag_reads_them() {
        let deployment = |args: &str| {
            detect_in(&format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: karmada-controller-manager, namespace: karmada-system}}\nspec:\n  template:\n    spec:\n      containers:\n        - name: karmada-controller-manager\n          image: docker.io/karmada/karmada-controller-manager:v1.17.1\n          command:\n            - /bin/karmada-controller-manager\n            - --feature-gates=Failover=true\n          args:\n{args}")).unwrap()
        };
        let i = deployment("            - --enable-no-execute-taint-eviction=true\n");
        assert_eq!(eviction(&i), Some((true, 14)));
        assert!(i.gates["Failover"].value);
        let i = deployment("            - --enable-no-execute-taint-eviction\n");
        assert_eq!(eviction(&i), Some((true, 14)), "a bare bool flag is true");
        let i = deployment("            - --enable_no_execute_taint_eviction=F\n");
        assert_eq!(eviction(&i), Some((false, 14)));
        let i = deployment("            - --enable-no-execute-taint-eviction\n            - --enable-no-execute-taint-eviction=false\n");
        assert_eq!(eviction(&i), Some((false, 15)), "the last one wins");
        let i = deployment(
            "            - --enable-no-execute-taint-eviction\n            - \"false\"\n",
        );
        assert_eq!(eviction(&i), Some((true, 14)));
        assert!(
            i.notes[0].contains("refuses `false` as an unknown command"),
            "{:?}",
            i.notes
        );
        // `--feature-gates VALUE` (a string flag) still takes the next argument.
        let i = deployment("            - --feature-gates\n            - Failover=false\n");
        assert!(!i.gates["Failover"].value);
        assert_eq!(eviction(&i), None);
        // `--enable-taint-manager=false` (default true) is read beside it.
        let i = deployment("            - --enable-taint-manager=false\n");
        let manager = i
            .flags
            .get("enable-taint-manager")
            .map(|s| (s.value, s.at.line));
        assert_eq!(manager, Some((false, 14)));
    }

    /// A Deployment of karmada-scheduler, as LavredisG/karmada deploys its own
    /// (`artifacts/deploy/custom-schedulers/*.yaml`): `containers` holding `extra`.
    fn scheduler_deployment(container: &str) -> String {
        format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: custom-scheduler, namespace: karmada-system}}\nspec:\n  template:\n    spec:\n      containers:\n{container}")
    }

    fn names(i: &Installation) -> Vec<(&str, u32)> {
        i.schedulers
            .iter()
            .map(|s| (s.value.as_str(), s.at.line))
            .collect()
    }

    /// `--scheduler-name` is a string flag (cmd/scheduler/app/options/options.go:165):
    /// `=NAME` or the next argument, `_` for `-`, the last one wins.
    #[test]
    fn a_karmada_scheduler_deployment_gives_its_scheduler_name() {
        let i = detect_in(&scheduler_deployment("        - name: karmada-scheduler\n          image: karmada/karmada-scheduler:cost\n          command:\n            - /bin/karmada-scheduler\n            - --kubeconfig=/etc/karmada/config/karmada.config\n            - --scheduler-name=custom-cost-scheduler # its name\n")).unwrap();
        assert_eq!(i.kind, InstallKind::Scheduler);
        assert_eq!(i.object, "Deployment karmada-system/custom-scheduler");
        assert_eq!(names(&i), [("custom-cost-scheduler", 13)]);
        assert!(
            i.release.is_none() && i.gates.is_empty(),
            "no release of its own"
        );
        // The value as the next argument, in `args` after the image's own command.
        let i = detect_in(&scheduler_deployment("        - name: scheduler\n          image: docker.io/karmada/karmada-scheduler:v1.17.0\n          args:\n            - --scheduler-name\n            - fast\n")).unwrap();
        assert_eq!(names(&i), [("fast", 12)]);
        // Known by its command alone; `_` for `-`; the last one wins.
        let i = detect_in(&scheduler_deployment("        - name: s\n          image: registry.example/sched@sha256:0123\n          command: [/usr/local/bin/karmada-scheduler, --scheduler_name=a, --scheduler-name=b]\n")).unwrap();
        assert_eq!(names(&i), [("b", 10)]);
        // A variable Kubernetes expands is said, not guessed.
        let i = detect_in(&scheduler_deployment("        - name: karmada-scheduler\n          image: karmada/karmada-scheduler:v1.17.0\n          args: [\"--scheduler-name=$(NAME)\"]\n")).unwrap();
        assert!(i.schedulers.is_empty());
        assert!(i.notes[0].contains("not expanded"), "{:?}", i.notes);
    }

    #[test]
    fn a_scheduler_serving_the_default_or_another_binary_is_no_finding() {
        // No flag: `default-scheduler`, which every control plane serves.
        assert!(detect_in(&scheduler_deployment("        - name: karmada-scheduler\n          image: docker.io/karmada/karmada-scheduler:v1.12.0\n          command: [/bin/karmada-scheduler, --v=4]\n")).is_none());
        assert!(detect_in(&scheduler_deployment("        - name: karmada-scheduler\n          image: docker.io/karmada/karmada-scheduler:v1.12.0\n          command: [/bin/karmada-scheduler, --scheduler-name=default-scheduler]\n")).is_none());
        // kube-scheduler's own `--scheduler-name` names a Kubernetes scheduler.
        assert!(detect_in(&scheduler_deployment("        - name: kube-scheduler\n          image: registry.k8s.io/kube-scheduler:v1.30.0\n          command: [kube-scheduler, --scheduler-name=custom-scheduler]\n")).is_none());
        // karmada-scheduler-estimator is another binary.
        assert!(detect_in(&scheduler_deployment("        - name: estimator\n          image: docker.io/karmada/karmada-scheduler-estimator:v1.17.0\n          command: [/bin/karmada-scheduler-estimator, --scheduler-name=x]\n")).is_none());
    }

    /// The operator builds one karmada-scheduler and copies `extraArgs` over its arguments
    /// (operator/pkg/controlplane/controlplane.go, `getKarmadaSchedulerManifest`).
    #[test]
    fn the_operators_scheduler_extra_args_give_its_name() {
        let op = detect_in("apiVersion: operator.karmada.io/v1alpha1\nkind: Karmada\nmetadata: {name: k, namespace: karmada-system}\nspec:\n  components:\n    karmadaControllerManager:\n      imageTag: v1.15.2\n    karmadaScheduler:\n      extraArgs:\n        scheduler-name: custom\n").unwrap();
        assert_eq!(op.kind, InstallKind::Operator);
        assert_eq!(names(&op), [("custom", 10)]);
        assert_eq!(op.release.unwrap().value, KarmadaVersion::new(1, 15));
    }

    /// The chart's karmada-scheduler takes no extra argument (templates/karmada-scheduler.yaml
    /// has no `extraCommandArgs`, unlike the controller-manager's): said, not read.
    #[test]
    fn the_charts_scheduler_has_no_extra_arguments() {
        let i = detect_in("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  chart: {spec: {chart: karmada, version: v1.17.0}}\n  values:\n    scheduler:\n      extraCommandArgs: {scheduler-name: custom}\n").unwrap();
        assert!(i.schedulers.is_empty());
        assert!(
            i.notes[0].contains("`scheduler.extraCommandArgs` is no value of the karmada chart"),
            "{:?}",
            i.notes
        );
        let argo = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: karmada, namespace: argocd}\nspec:\n  source:\n    chart: karmada\n    targetRevision: v1.16.0\n    helm:\n      parameters:\n        - name: scheduler.extraCommandArgs.scheduler-name\n          value: custom\n";
        assert_eq!(detect_in(argo).unwrap().notes.len(), 1);
    }

    /// A karmada-scheduler Deployment is no installation: the first installation counts
    /// whatever the order, and every scheduler's name is served beside it.
    #[test]
    fn scheduler_deployments_go_beside_the_installation() {
        let release = detect_in("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: karmada, namespace: karmada-system}\nspec:\n  chart: {spec: {chart: karmada, version: v1.17.0}}\n").unwrap();
        let scheduler = detect_in(&scheduler_deployment("        - name: karmada-scheduler\n          image: karmada/karmada-scheduler:v1.17.0\n          command: [/bin/karmada-scheduler, --scheduler-name=custom]\n")).unwrap();
        let settings = RepositorySettings::of(vec![scheduler.clone(), release.clone()]);
        assert_eq!(settings.installation.as_ref(), Some(&release));
        assert!(settings.others.is_empty(), "{:?}", settings.others);
        let served: Vec<(String, String)> = settings
            .served()
            .iter()
            .map(|s| (s.name.clone(), s.from.clone()))
            .collect();
        assert_eq!(served, [("custom".to_string(), "f.yaml:10".to_string())]);
        assert_eq!(
            settings.describe().unwrap(),
            "HelmRelease karmada-system/karmada at f.yaml:1: Karmada 1.17 (f.yaml:5), PropagateDeps=false (f.yaml:5), karmada-scheduler `custom` (f.yaml:10)"
        );
        // Alone, the schedulers are what was read.
        let alone = RepositorySettings::of(vec![scheduler.clone(), scheduler]);
        assert!(alone.installation.is_none());
        assert_eq!(alone.schedulers.len(), 1, "one Deployment read twice");
        assert_eq!(
            alone.describe().unwrap(),
            "karmada-scheduler `custom` (f.yaml:10)"
        );
    }

    /// The plain lint's cheap look at a file's text keeps a scheduler Deployment that may name
    /// a scheduler, and only such.
    #[test]
    fn the_text_filter_keeps_a_named_scheduler() {
        let text = scheduler_deployment("        - name: karmada-scheduler\n          image: karmada/karmada-scheduler:v1.17.0\n          command: [/bin/karmada-scheduler, --scheduler-name=custom]\n");
        let found = in_text("s.yaml".into(), text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, InstallKind::Scheduler);
        assert!(!may_name_scheduler(
            "image: karmada/karmada-scheduler:v1.17.0\n"
        ));
        assert!(!may_name_scheduler("schedulerName: custom\n"));
    }

    #[test]
    fn a_release_outside_the_known_range_is_judged_by_the_nearest_known() {
        let deployment = |tag: &str| {
            format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: karmada-controller-manager, namespace: karmada-system}}\nspec:\n  template:\n    spec:\n      containers:\n        - name: karmada-controller-manager\n          image: docker.io/karmada/karmada-controller-manager:{tag}\n")
        };
        // Karmada 1.9 turned Failover on by default, as 1.10 and 1.11 did: 1.10's rules, not
        // the newest release's, say what that control plane does.
        let old = detect_in(&deployment("v1.9.0")).unwrap();
        assert_eq!(old.release.unwrap().value, KarmadaVersion::OLDEST);
        assert!(
            old.notes[0].contains("judged by Karmada 1.10, the nearest release it knows"),
            "{:?}",
            old.notes
        );
        let new = detect_in(&deployment("v1.25.0")).unwrap();
        assert_eq!(new.release.unwrap().value, KarmadaVersion::LATEST);
        // Another major version names no release at all.
        assert!(detect_in(&deployment("v2.0.0")).unwrap().release.is_none());
    }

    #[test]
    fn versions_in_every_spelling() {
        for (text, minor) in [
            ("v1.17.0", 17),
            ("1.17.x", 17),
            ("~1.16.0", 16),
            (">=1.12.0 <1.13.0", 12),
        ] {
            assert_eq!(release_of(text).unwrap().unwrap().minor, minor, "{text}");
        }
        assert!(release_of("latest").is_none());
        assert!(release_of("v2.0.0").unwrap().is_err());
    }
}
