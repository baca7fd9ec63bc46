//! Claim metadata on templates (claim-and-preemption.md §4) and the templates the detector never
//! processes (§1.4).

use regex::Regex;

use crate::model::controller_flags::{namespace_regex, ControllerFlags};
use crate::model::policy::ResourceSelector;
use crate::model::{KarmadaVersion, PolicyKind, PolicyRef};

/// §4.1 (`well_known_constants.go:19-56`): only the permanent-id is a label.
pub const PP_ID_LABEL: &str = "propagationpolicy.karmada.io/permanent-id";
pub const PP_NAMESPACE_ANNOTATION: &str = "propagationpolicy.karmada.io/namespace";
pub const PP_NAME_ANNOTATION: &str = "propagationpolicy.karmada.io/name";
pub const CPP_ID_LABEL: &str = "clusterpropagationpolicy.karmada.io/permanent-id";
pub const CPP_NAME_ANNOTATION: &str = "clusterpropagationpolicy.karmada.io/name";
/// Set by the MultiClusterService controller; no policy may claim such a template (§0, `detector.go:256-262`).
pub const CLAIMED_BY_LABEL: &str = "resourcetemplate.karmada.io/claimed-by";

/// The claim keys as they sit on a template, each `None` when absent or empty. Kept key by key
/// because "claimed" (§4.2, all keys) and what preemption looks at (annotations only) differ.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClaimMeta {
    pub pp_namespace: Option<String>,
    pub pp_name: Option<String>,
    pub pp_id: Option<String>,
    pub cpp_name: Option<String>,
    pub cpp_id: Option<String>,
}

fn non_empty(map: &crate::model::StringMap, key: &str) -> Option<String> {
    map.get(key).filter(|v| !v.is_empty()).map(str::to_string)
}

impl ClaimMeta {
    pub fn read(labels: &crate::model::StringMap, annotations: &crate::model::StringMap) -> Self {
        ClaimMeta {
            pp_namespace: non_empty(annotations, PP_NAMESPACE_ANNOTATION),
            pp_name: non_empty(annotations, PP_NAME_ANNOTATION),
            pp_id: non_empty(labels, PP_ID_LABEL),
            cpp_name: non_empty(annotations, CPP_NAME_ANNOTATION),
            cpp_id: non_empty(labels, CPP_ID_LABEL),
        }
    }

    /// PP-claimed: all three keys non-empty (§4.2, `policy.go:42-59`).
    pub fn pp_claim(&self) -> Option<PolicyRef> {
        match (&self.pp_namespace, &self.pp_name, &self.pp_id) {
            (Some(ns), Some(name), Some(_)) => Some(PolicyRef::pp(ns, name)),
            _ => None,
        }
    }

    /// CPP-claimed: name annotation and id label non-empty (§4.2).
    pub fn cpp_claim(&self) -> Option<PolicyRef> {
        match (&self.cpp_name, &self.cpp_id) {
            (Some(name), Some(_)) => Some(PolicyRef::cpp(name)),
            _ => None,
        }
    }

    /// The owner the template reconcile sees: the PP claim first, then the CPP claim (§0 steps 1-2).
    pub fn owner(&self) -> Option<PolicyRef> {
        self.pp_claim().or_else(|| self.cpp_claim())
    }

    /// The id the owner's claim carries.
    pub fn owner_id(&self) -> Option<&str> {
        if self.pp_claim().is_some() {
            self.pp_id.as_deref()
        } else if self.cpp_claim().is_some() {
            self.cpp_id.as_deref()
        } else {
            None
        }
    }

    /// Some claim keys but no complete claim: counts as unclaimed (§4.2).
    pub fn is_partial(&self) -> bool {
        self.owner().is_none()
            && (self.pp_namespace.is_some()
                || self.pp_name.is_some()
                || self.pp_id.is_some()
                || self.cpp_name.is_some()
                || self.cpp_id.is_some())
    }

    /// Both a complete PP and a complete CPP claim (abnormal; the PP claim counts, §3).
    pub fn has_both(&self) -> bool {
        self.pp_claim().is_some() && self.cpp_claim().is_some()
    }

    /// `ClaimPolicyForObject` (§4.3, `detector.go:762-776`): skipped only when the template has
    /// labels, no CPP id label, and its PP id equals the policy's; otherwise the CPP keys are
    /// removed (when the CPP id label is present) and the three PP keys overwritten.
    pub fn claim_pp(&mut self, namespace: &str, name: &str, id: &str, has_labels: bool) {
        if has_labels && self.cpp_id.is_none() && self.pp_id.as_deref() == Some(id) {
            return;
        }
        if self.cpp_id.is_some() {
            self.cpp_id = None;
            self.cpp_name = None;
        }
        self.pp_namespace = Some(namespace.to_string());
        self.pp_name = Some(name.to_string());
        self.pp_id = Some(id.to_string());
    }

    /// `ClaimClusterPolicyForObject` (§4.3, `:780-791`): skipped when the CPP id equals the
    /// policy's; never removes PP keys.
    pub fn claim_cpp(&mut self, name: &str, id: &str) {
        if self.cpp_id.as_deref() == Some(id) {
            return;
        }
        self.cpp_name = Some(name.to_string());
        self.cpp_id = Some(id.to_string());
    }

    /// `CleanupResourceTemplateClaimMetadata` for one policy kind (§6.1, `detector.go:1365-1399`).
    pub fn release(&mut self, kind: PolicyKind) {
        match kind {
            PolicyKind::PropagationPolicy => {
                self.pp_namespace = None;
                self.pp_name = None;
                self.pp_id = None;
            }
            PolicyKind::ClusterPropagationPolicy => {
                self.cpp_name = None;
                self.cpp_id = None;
            }
        }
    }
}

/// A `--skipped-propagating-apis` entry: a group, a group/version, or group/version with kinds
/// (`pkg/util/apigroup.go:54-76`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedApi {
    pub group: String,
    pub version: Option<String>,
    pub kinds: Vec<String>,
}

impl SkippedApi {
    fn group(g: &str) -> SkippedApi {
        SkippedApi {
            group: g.into(),
            version: None,
            kinds: Vec::new(),
        }
    }

    fn covers(&self, group: &str, version: &str, kind: &str) -> bool {
        self.group == group
            && self.version.as_deref().is_none_or(|v| v == version)
            && (self.kinds.is_empty() || self.kinds.iter().any(|k| k == kind))
    }
}

/// The controller flags that decide which templates the detector sees (§1.4).
#[derive(Clone, Debug)]
pub struct Filters {
    /// `--skipped-propagating-namespaces`, each compiled as `^<expr>$` (default `kube-.*`).
    pub skipped_namespaces: Vec<Regex>,
    /// The default skipped APIs plus `--skipped-propagating-apis`.
    pub skipped_apis: Vec<SkippedApi>,
}

impl Default for Filters {
    fn default() -> Self {
        Filters::new(&["kube-.*".to_string()], &[]).expect("default pattern compiles")
    }
}

/// Why the detector never processes a template (so it is never claimed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Excluded {
    /// `karmada-system`, `karmada-cluster`, `karmada-es-*` (`names.go:31,33,80,189-193`).
    ReservedNamespace(String),
    /// Matches `--skipped-propagating-namespaces` (`options.go:194, 229-236`).
    SkippedNamespace { namespace: String, pattern: String },
    /// `kube-system/ConfigMap/extension-apiserver-authentication`, always (`detector.go:302-305`).
    ExtensionApiserverAuthentication,
    /// A skipped API (`gvrDisabled`, `detector.go:202-221`).
    SkippedApi { api_version: String, kind: String },
    /// `resourcetemplate.karmada.io/claimed-by` is set (`detector.go:256-262`).
    ClaimedBy(String),
    /// A built-in kind in an API version karmada-apiserver does not serve: one it no longer
    /// serves, or one that never served that kind (`apps/v1` Service). The manifest is refused
    /// when applied, so the detector never sees such a template.
    NotServed {
        api_version: String,
        kind: String,
        why: Unserving,
        /// The Karmada release whose karmada-apiserver does not serve it.
        release: KarmadaVersion,
    },
}

/// Why a built-in apiVersion and kind are not served ([`Excluded::NotServed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unserving {
    /// Kubernetes removed the version ([`crate::kube::kinds::removed_version`]).
    Removed(crate::kube::kinds::Removed),
    /// The version serves no such kind in any release
    /// ([`crate::kube::kinds::unserved_template_kind`]).
    Never(crate::kube::kinds::Unserved),
}

impl Excluded {
    /// For [`Excluded::NotServed`]: the version, since when, and what to write instead.
    pub fn not_served_text(&self) -> String {
        let Excluded::NotServed {
            api_version,
            kind,
            why,
            release,
        } = self
        else {
            return String::new();
        };
        let refused = "the API server refuses such a manifest, so no such template exists";
        match why {
            Unserving::Removed(removed) => {
                let instead = match removed.replacement {
                    Some(r) => format!("write it as {r}"),
                    None => format!("{kind} was removed with it"),
                };
                format!(
                    "{api_version} {kind} is not served since Kubernetes 1.{} (Karmada {release} installs karmada-apiserver 1.{}): {refused}; {instead}",
                    removed.since,
                    release.apiserver_minor()
                )
            }
            Unserving::Never(unserved) => {
                let never = format!("{api_version} serves no kind {kind} in any Kubernetes release (no matches for kind \"{kind}\" in version \"{api_version}\"): {refused}");
                match unserved {
                    crate::kube::kinds::Unserved {
                        served_in: Some(v), ..
                    } => format!("{never}; {kind} is served by {v}: write it as {v}"),
                    crate::kube::kinds::Unserved {
                        near: Some((k, v)), ..
                    } => format!("{never}; did you mean {v} {k}?"),
                    _ => never,
                }
            }
        }
    }
}

impl Filters {
    /// The filters karmada-controller-manager runs with under `flags`
    /// (`--skipped-propagating-namespaces`, default `kube-.*`; the default skipped APIs).
    pub fn of_flags(flags: &ControllerFlags) -> Filters {
        // Each pattern was checked where it was read
        // (`controller_flags::invalid_namespace_pattern`); one that does not compile skips
        // nothing rather than everything.
        let patterns = flags
            .skipped_namespaces()
            .iter()
            .filter_map(|p| namespace_regex(p).ok())
            .collect();
        Filters::with_patterns(patterns, &[])
    }

    pub fn new(
        skipped_namespaces: &[String],
        extra_apis: &[SkippedApi],
    ) -> Result<Filters, regex::Error> {
        let patterns = skipped_namespaces
            .iter()
            .map(|p| namespace_regex(p))
            .collect::<Result<_, _>>()?;
        Ok(Filters::with_patterns(patterns, extra_apis))
    }

    /// The filters of compiled `--skipped-propagating-namespaces` patterns, and the default
    /// skipped APIs plus `extra_apis`.
    fn with_patterns(skipped_namespaces: Vec<Regex>, extra_apis: &[SkippedApi]) -> Filters {
        // NewSkippedResourceConfig (apigroup.go:54-76).
        let mut skipped_apis: Vec<SkippedApi> = [
            "cluster.karmada.io",
            "policy.karmada.io",
            "work.karmada.io",
            "config.karmada.io",
            "networking.karmada.io",
            "autoscaling.karmada.io",
            "remedy.karmada.io",
            "apps.karmada.io",
            "events.k8s.io",
        ]
        .iter()
        .map(|g| SkippedApi::group(g))
        .collect();
        skipped_apis.push(SkippedApi {
            group: String::new(),
            version: Some("v1".into()),
            kinds: vec!["Event".into()],
        });
        skipped_apis.push(SkippedApi {
            group: "coordination.k8s.io".into(),
            version: Some("v1".into()),
            kinds: Vec::new(),
        });
        skipped_apis.extend(extra_apis.iter().cloned());
        Filters {
            skipped_namespaces,
            skipped_apis,
        }
    }

    /// [`Excluded::NotServed`] when the karmada-apiserver of `release` refuses `kind` in
    /// `api_version` ([`KarmadaVersion::apiserver_minor`]).
    pub fn not_served(
        &self,
        api_version: &str,
        kind: &str,
        release: KarmadaVersion,
    ) -> Option<Excluded> {
        let apiserver = release.apiserver_minor();
        let why = match crate::kube::kinds::removed_version(api_version, kind, apiserver) {
            Some(removed) => Unserving::Removed(removed),
            // Only where no CRD can add the kind (the CRDs of the inputs are not known file by
            // file), and not for files that are no manifest.
            None => Unserving::Never(crate::kube::kinds::unserved_template_kind(
                api_version,
                kind,
            )?),
        };
        Some(Excluded::NotServed {
            api_version: api_version.into(),
            kind: kind.into(),
            why,
            release,
        })
    }

    /// The `--skipped-propagating-namespaces` pattern `namespace` matches, as written.
    pub fn skipped_namespace(&self, namespace: &str) -> Option<&str> {
        let re = self
            .skipped_namespaces
            .iter()
            .find(|r| r.is_match(namespace))?;
        let pattern = re.as_str();
        Some(
            pattern
                .strip_prefix('^')
                .and_then(|p| p.strip_suffix('$'))
                .unwrap_or(pattern),
        )
    }

    /// `EventFilter` plus `gvrDisabled` plus the claimed-by label (§1.4, §0 step 2), in a
    /// control plane of `release` (which built-in versions its karmada-apiserver serves).
    pub fn excluded(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
        labels: &crate::model::StringMap,
        release: KarmadaVersion,
    ) -> Option<Excluded> {
        if let Some(e) = self.not_served(api_version, kind, release) {
            return Some(e);
        }
        let (group, version) = match api_version.rsplit_once('/') {
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        if self
            .skipped_apis
            .iter()
            .any(|a| a.covers(group, version, kind))
        {
            return Some(Excluded::SkippedApi {
                api_version: api_version.into(),
                kind: kind.into(),
            });
        }
        // `EventFilter`'s order: the reserved namespaces, then the skipped ones, then the one
        // ConfigMap of kube-system.
        if namespace == "karmada-system"
            || namespace == "karmada-cluster"
            || namespace.starts_with("karmada-es-")
        {
            return Some(Excluded::ReservedNamespace(namespace.into()));
        }
        // Every pattern is matched against the object's namespace, "" for a cluster-scoped one
        // (`ClusterWideKey.Namespace`): a pattern that matches the empty string (`.*`, or an
        // empty entry of the list, `^$`) hides every cluster-scoped object.
        if let Some(pattern) = self.skipped_namespace(namespace) {
            return Some(Excluded::SkippedNamespace {
                namespace: namespace.into(),
                pattern: pattern.into(),
            });
        }
        if namespace == "kube-system"
            && api_version == "v1"
            && kind == "ConfigMap"
            && name == "extension-apiserver-authentication"
        {
            return Some(Excluded::ExtensionApiserverAuthentication);
        }
        if let Some(v) = labels.get(CLAIMED_BY_LABEL).filter(|v| !v.is_empty()) {
            return Some(Excluded::ClaimedBy(v.to_string()));
        }
        None
    }
}

/// Why the detector never matches one resource selector of a policy, whatever templates exist
/// (claim-and-preemption.md §1.2-§1.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NeverMatched {
    /// A PropagationPolicy selects a cluster-scoped kind: `LookForMatchedPolicy` returns nil
    /// for a template without a namespace before listing any PP (`detector.go:382-384`), so
    /// only ClusterPropagationPolicies claim those (`LookForMatchedClusterPolicy`,
    /// `detector.go:413-440`; `policy.go:61-94`).
    ClusterScopedKindInPp { api_version: String, kind: String },
    /// A selector with a namespace for a cluster-scoped kind: a cluster-scoped template's
    /// namespace is `""`, never the selector's (`ResourceSelectorPriority`,
    /// `pkg/util/selector.go:56-60`).
    NamespaceOnClusterScopedKind { namespace: String, kind: String },
    /// Every template it can select is one the detector never processes (`EventFilter`,
    /// `detector.go:276-308`; `gvrDisabled`, `detector.go:201-221`).
    Excluded(Excluded),
    /// `metav1.LabelSelectorAsSelector` refuses the label selector, so it matches no template
    /// (`pkg/util/selector.go:83-93`); the validating webhook does not check it
    /// (`validation.go:56-69`).
    InvalidLabelSelector(String),
    /// The selector names a version of a kind the API server serves in several, not the
    /// preferred one the detector watches and reads every template in
    /// ([`crate::kube::kinds::watched_version`]): the exact apiVersion comparison of
    /// `ResourceSelectorPriority` (`pkg/util/selector.go:56-60`) never holds.
    NotTheWatchedVersion {
        api_version: String,
        kind: String,
        watched: &'static str,
    },
    /// The selector names a built-in group and a kind that group serves in no version
    /// ([`crate::kube::kinds::unserved_kind`]): karmada-apiserver refuses such a manifest, so no
    /// template ever has that apiVersion and kind, and `ResourceSelectorPriority`
    /// (`pkg/util/selector.go:56-60`) compares both as strings.
    UnservedKind {
        api_version: String,
        kind: String,
        instead: crate::kube::kinds::Unserved,
        /// The Karmada release whose karmada-apiserver refuses it.
        release: KarmadaVersion,
    },
}

/// A `--skipped-propagating-namespaces` entry as a message shows it: an empty one (`a,` holds
/// one) as `""`.
pub fn shown_pattern(pattern: &str) -> &str {
    if pattern.is_empty() {
        "\"\""
    } else {
        pattern
    }
}

impl NeverMatched {
    /// Why, in a sentence that follows "it never matches, because" (no leading capital).
    pub fn reason(&self) -> String {
        match self {
            NeverMatched::ClusterScopedKindInPp { kind, .. } => format!(
                "{kind} is cluster-scoped, and Karmada matches cluster-scoped templates only against ClusterPropagationPolicies"
            ),
            NeverMatched::NamespaceOnClusterScopedKind { namespace, kind } => format!(
                "{kind} is cluster-scoped: its templates have no namespace, never {namespace}"
            ),
            NeverMatched::Excluded(Excluded::ReservedNamespace(ns)) => format!(
                "namespace {ns} is reserved by Karmada: the detector ignores every object in it"
            ),
            NeverMatched::Excluded(Excluded::SkippedNamespace { namespace, pattern })
                if namespace.is_empty() =>
            {
                format!(
                    "karmada-controller-manager's --skipped-propagating-namespaces ({}) matches the empty namespace of a cluster-scoped object: the detector ignores every cluster-scoped object",
                    shown_pattern(pattern)
                )
            }
            NeverMatched::Excluded(Excluded::SkippedNamespace { namespace, pattern }) => format!(
                "namespace {namespace} matches karmada-controller-manager's --skipped-propagating-namespaces ({pattern}): the detector ignores every object in it"
            ),
            NeverMatched::Excluded(Excluded::SkippedApi { api_version, kind }) => format!(
                "{api_version} {kind} is an API the detector never watches (Karmada's own groups, events and leases)"
            ),
            NeverMatched::Excluded(Excluded::ExtensionApiserverAuthentication) => {
                "kube-system/extension-apiserver-authentication is managed by kube-apiserver and never propagated".into()
            }
            NeverMatched::Excluded(Excluded::ClaimedBy(v)) => {
                format!("its templates are claimed by {v}")
            }
            NeverMatched::Excluded(e @ Excluded::NotServed { .. }) => e.not_served_text(),
            NeverMatched::InvalidLabelSelector(e) => {
                format!("its labelSelector is invalid ({e}), and an invalid selector matches nothing")
            }
            NeverMatched::NotTheWatchedVersion {
                api_version,
                kind,
                watched,
            } => format!(
                "the detector watches {kind} in {watched}, the API server's preferred version, and reads every {kind} in it whatever version it was applied in: a selector for {api_version} never matches one (select {watched})"
            ),
            NeverMatched::UnservedKind {
                api_version,
                kind,
                instead,
                release,
            } => {
                let apiserver = format!(
                    "karmada-apiserver 1.{} (Karmada {release})",
                    release.apiserver_minor()
                );
                let refused = "refuses such a manifest, so no such template exists";
                match instead {
                    crate::kube::kinds::Unserved {
                        served_in: Some(v), ..
                    } => format!(
                        "{kind} is served by {v}, not {api_version}: {apiserver} {refused}; select {v} {kind}"
                    ),
                    crate::kube::kinds::Unserved {
                        near: Some((k, v)), ..
                    } => format!(
                        "{apiserver} serves no kind {kind} in {api_version} and {refused}; did you mean {v} {k}?"
                    ),
                    _ => format!(
                        "{apiserver} serves no kind {kind} in {api_version} and {refused}"
                    ),
                }
            }
        }
    }
}

impl Filters {
    /// Why the detector never matches `rs`, a selector of a policy of `kind` as stored (a PP's
    /// selectors carry its namespace: `mutating.go:64-69`); `namespaced`: whether `rs`'s kind
    /// is namespaced. `None` when some template could match.
    pub fn never_matched(
        &self,
        kind: PolicyKind,
        rs: &ResourceSelector,
        namespaced: bool,
        release: KarmadaVersion,
    ) -> Option<NeverMatched> {
        let none = crate::model::StringMap::new();
        // No template exists in a version the API server does not serve; any namespace.
        if let Some(e @ Excluded::NotServed { .. }) =
            self.excluded(&rs.api_version, &rs.kind, "", "", &none, release)
        {
            return Some(NeverMatched::Excluded(e));
        }
        if let Some(watched) = crate::kube::kinds::watched_version(&rs.api_version, &rs.kind) {
            return Some(NeverMatched::NotTheWatchedVersion {
                api_version: rs.api_version.clone(),
                kind: rs.kind.clone(),
                watched,
            });
        }
        // Skipped APIs are never watched, whatever the namespace.
        if let Some(e @ Excluded::SkippedApi { .. }) =
            self.excluded(&rs.api_version, &rs.kind, "", "", &none, release)
        {
            return Some(NeverMatched::Excluded(e));
        }
        if !namespaced {
            if kind == PolicyKind::PropagationPolicy {
                return Some(NeverMatched::ClusterScopedKindInPp {
                    api_version: rs.api_version.clone(),
                    kind: rs.kind.clone(),
                });
            }
            if !rs.namespace.is_empty() {
                return Some(NeverMatched::NamespaceOnClusterScopedKind {
                    namespace: rs.namespace.clone(),
                    kind: rs.kind.clone(),
                });
            }
            // A skipped pattern that matches the empty namespace hides every cluster-scoped
            // object (`EventFilter`).
            if let Some(pattern) = self.skipped_namespace("") {
                return Some(NeverMatched::Excluded(Excluded::SkippedNamespace {
                    namespace: String::new(),
                    pattern: pattern.into(),
                }));
            }
        } else if !rs.namespace.is_empty() {
            // A namespace the detector skips holds no template it processes.
            if let Some(e) = self.excluded(
                &rs.api_version,
                &rs.kind,
                &rs.namespace,
                &rs.name,
                &none,
                release,
            ) {
                return Some(NeverMatched::Excluded(e));
            }
        }
        // With a name the label selector is not consulted (`selector.go:70-75`).
        let ls = rs.label_selector.as_ref().filter(|_| rs.name.is_empty())?;
        super::selector::label_selector_matches(ls, &none)
            .err()
            .map(|e| NeverMatched::InvalidLabelSelector(e.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `EventFilter` matches the patterns against a cluster-scoped object's namespace, "":
    /// `.*`, or an empty entry of the list (`^$`), hides every cluster-scoped object, which
    /// the default `kube-.*` does not.
    #[test]
    fn a_pattern_matching_the_empty_namespace_hides_cluster_scoped_objects() {
        let none = crate::model::StringMap::new();
        let release = KarmadaVersion::new(1, 19);
        let role = |f: &Filters| {
            f.excluded(
                "rbac.authorization.k8s.io/v1",
                "ClusterRole",
                "",
                "cr",
                &none,
                release,
            )
        };
        assert_eq!(role(&Filters::default()), None);
        // A reserved namespace stays the reason, as `EventFilter` checks it first.
        let all = Filters::new(&[".*".to_string()], &[]).unwrap();
        assert_eq!(
            all.excluded("v1", "ConfigMap", "karmada-system", "c", &none, release),
            Some(Excluded::ReservedNamespace("karmada-system".into()))
        );
        for patterns in [
            vec![".*".to_string()],
            vec!["foo".to_string(), String::new()],
        ] {
            let f = Filters::new(&patterns, &[]).unwrap();
            assert!(
                matches!(role(&f), Some(Excluded::SkippedNamespace { ref namespace, .. }) if namespace.is_empty()),
                "{patterns:?}"
            );
            let rs = ResourceSelector {
                api_version: "rbac.authorization.k8s.io/v1".into(),
                kind: "ClusterRole".into(),
                name: "cr".into(),
                ..ResourceSelector::default()
            };
            let never = f.never_matched(PolicyKind::ClusterPropagationPolicy, &rs, false, release);
            assert!(
                never.is_some_and(|n| n
                    .reason()
                    .contains("matches the empty namespace of a cluster-scoped object")),
                "{patterns:?}"
            );
        }
    }

    fn map(pairs: &[(&str, &str)]) -> crate::model::StringMap {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn claimed_needs_every_key() {
        let full = ClaimMeta::read(
            &map(&[(PP_ID_LABEL, "id")]),
            &map(&[
                (PP_NAMESPACE_ANNOTATION, "default"),
                (PP_NAME_ANNOTATION, "low"),
            ]),
        );
        assert_eq!(full.owner(), Some(PolicyRef::pp("default", "low")));
        let no_id = ClaimMeta::read(
            &map(&[]),
            &map(&[
                (PP_NAMESPACE_ANNOTATION, "default"),
                (PP_NAME_ANNOTATION, "low"),
            ]),
        );
        assert_eq!(no_id.owner(), None);
        assert!(no_id.is_partial());
        let empty_value = ClaimMeta::read(
            &map(&[(CPP_ID_LABEL, "")]),
            &map(&[(CPP_NAME_ANNOTATION, "c")]),
        );
        assert_eq!(empty_value.owner(), None);
        let cpp = ClaimMeta::read(
            &map(&[(CPP_ID_LABEL, "x")]),
            &map(&[(CPP_NAME_ANNOTATION, "c")]),
        );
        assert_eq!(cpp.owner(), Some(PolicyRef::cpp("c")));
    }

    #[test]
    fn pp_claim_wins_and_strips_cpp_keys() {
        let mut both = ClaimMeta::read(
            &map(&[(PP_ID_LABEL, "p"), (CPP_ID_LABEL, "c")]),
            &map(&[
                (PP_NAMESPACE_ANNOTATION, "ns"),
                (PP_NAME_ANNOTATION, "pp"),
                (CPP_NAME_ANNOTATION, "cpp"),
            ]),
        );
        assert!(both.has_both());
        assert_eq!(both.owner(), Some(PolicyRef::pp("ns", "pp")));
        both.claim_pp("ns", "pp", "p", true);
        assert_eq!(both.cpp_claim(), None);
        // ClaimClusterPolicyForObject never removes PP keys.
        both.claim_cpp("cpp", "c");
        assert_eq!(both.owner(), Some(PolicyRef::pp("ns", "pp")));
    }

    #[test]
    fn filters_table() {
        let f = Filters::default();
        let none = map(&[]);
        let cases: &[(&str, &str, &str, &str, bool)] = &[
            ("apps/v1", "Deployment", "default", "x", false),
            ("apps/v1", "Deployment", "kube-system", "x", true),
            ("apps/v1", "Deployment", "kube-public", "x", true),
            ("apps/v1", "Deployment", "karmada-system", "x", true),
            ("apps/v1", "Deployment", "karmada-es-member1", "x", true),
            ("apps/v1", "Deployment", "mykube-x", "x", false),
            ("v1", "Event", "default", "x", true),
            ("events.k8s.io/v1", "Event", "default", "x", true),
            ("coordination.k8s.io/v1", "Lease", "default", "x", true),
            (
                "policy.karmada.io/v1alpha1",
                "PropagationPolicy",
                "default",
                "x",
                true,
            ),
            ("v1", "Namespace", "", "kube-system", false),
        ];
        for (av, kind, ns, name, want) in cases {
            assert_eq!(
                f.excluded(av, kind, ns, name, &none, KarmadaVersion::LATEST)
                    .is_some(),
                *want,
                "{av} {kind} {ns}/{name}"
            );
        }
        let mcs = map(&[(CLAIMED_BY_LABEL, "mcs")]);
        assert_eq!(
            f.excluded(
                "v1",
                "Service",
                "default",
                "s",
                &mcs,
                KarmadaVersion::LATEST
            ),
            Some(Excluded::ClaimedBy("mcs".into()))
        );
        // The extension-apiserver-authentication ConfigMap is skipped whatever the flag says.
        let flagless = Filters::new(&[], &[]).unwrap();
        assert_eq!(
            flagless.excluded(
                "v1",
                "ConfigMap",
                "kube-system",
                "extension-apiserver-authentication",
                &none,
                KarmadaVersion::LATEST
            ),
            Some(Excluded::ExtensionApiserverAuthentication)
        );
        assert_eq!(
            flagless.excluded(
                "v1",
                "ConfigMap",
                "kube-system",
                "other",
                &none,
                KarmadaVersion::LATEST
            ),
            None
        );
    }

    fn selector(text: &str) -> ResourceSelector {
        serde_json::from_value(serde_json::from_str(text).unwrap()).unwrap()
    }

    /// Each reason the detector never matches a selector (claim-and-preemption.md §1.2-§1.4).
    #[test]
    fn selectors_the_detector_never_matches() {
        let f = Filters::default();
        let (pp, cpp) = (
            PolicyKind::PropagationPolicy,
            PolicyKind::ClusterPropagationPolicy,
        );
        let never = |kind, text: &str, namespaced| {
            f.never_matched(kind, &selector(text), namespaced, KarmadaVersion::LATEST)
        };
        // detector.go:382-384: a PP never claims a cluster-scoped template.
        assert_eq!(
            never(
                pp,
                r#"{"apiVersion":"v1","kind":"Namespace","namespace":"gpu-operator","name":"gpu-operator"}"#,
                false
            ),
            Some(NeverMatched::ClusterScopedKindInPp {
                api_version: "v1".into(),
                kind: "Namespace".into()
            })
        );
        assert_eq!(
            never(
                cpp,
                r#"{"apiVersion":"v1","kind":"Namespace","name":"gpu-operator"}"#,
                false
            ),
            None
        );
        // selector.go:56-60: a namespace on a cluster-scoped kind.
        assert!(matches!(
            never(
                cpp,
                r#"{"apiVersion":"v1","kind":"Namespace","namespace":"apps"}"#,
                false
            ),
            Some(NeverMatched::NamespaceOnClusterScopedKind { .. })
        ));
        // names.go:189-193 and options.go:194: reserved and skipped namespaces.
        for ns in ["karmada-system", "karmada-cluster", "karmada-es-member1"] {
            let text = format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","namespace":"{ns}"}}"#);
            assert_eq!(
                never(pp, &text, true),
                Some(NeverMatched::Excluded(Excluded::ReservedNamespace(
                    ns.into()
                )))
            );
        }
        assert!(matches!(
            never(
                cpp,
                r#"{"apiVersion":"v1","kind":"ConfigMap","namespace":"kube-public"}"#,
                true
            ),
            Some(NeverMatched::Excluded(Excluded::SkippedNamespace { .. }))
        ));
        // A CPP selector without a namespace matches in every other namespace.
        assert_eq!(
            never(cpp, r#"{"apiVersion":"v1","kind":"ConfigMap"}"#, true),
            None
        );
        // apigroup.go:54-76: skipped APIs, in any namespace and for either kind of policy.
        for (av, kind) in [
            ("v1", "Event"),
            ("events.k8s.io/v1", "Event"),
            ("coordination.k8s.io/v1", "Lease"),
            ("work.karmada.io/v1alpha2", "ResourceBinding"),
            (
                "config.karmada.io/v1alpha1",
                "ResourceInterpreterCustomization",
            ),
        ] {
            let text = format!(r#"{{"apiVersion":"{av}","kind":"{kind}","namespace":"apps"}}"#);
            assert!(
                matches!(
                    never(pp, &text, true),
                    Some(NeverMatched::Excluded(Excluded::SkippedApi { .. }))
                ),
                "{av} {kind}"
            );
        }
        // selector.go:83-93: a label selector that does not convert; ignored beside a name.
        assert!(matches!(
            never(
                pp,
                r#"{"apiVersion":"v1","kind":"ConfigMap","namespace":"apps","labelSelector":{"matchExpressions":[{"key":"a","operator":"In"}]}}"#,
                true
            ),
            Some(NeverMatched::InvalidLabelSelector(_))
        ));
        assert_eq!(
            never(
                pp,
                r#"{"apiVersion":"v1","kind":"ConfigMap","namespace":"apps","name":"x","labelSelector":{"matchLabels":{"":"x"}}}"#,
                true
            ),
            None
        );
        // detector.go:302-305: the one ConfigMap kube-apiserver manages, with a flag that no
        // longer skips kube-system.
        let flagless = Filters::new(&[], &[]).unwrap();
        assert_eq!(
            flagless.never_matched(pp, &selector(r#"{"apiVersion":"v1","kind":"ConfigMap","namespace":"kube-system","name":"extension-apiserver-authentication"}"#), true, KarmadaVersion::LATEST),
            Some(NeverMatched::Excluded(Excluded::ExtensionApiserverAuthentication))
        );
    }
}
