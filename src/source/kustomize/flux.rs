//! Flux: `kustomize.toolkit.fluxcd.io` Kustomization objects say which path of the repository
//! a cluster applies, and which variables `postBuild` substitutes into its output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::normalize;
use crate::source::{Loaded, Node};

pub const API_GROUP: &str = "kustomize.toolkit.fluxcd.io";
/// Objects carrying this annotation with value `disabled` are left as they are.
pub const SUBSTITUTE_ANNOTATION: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// One Flux Kustomization found in the repository.
#[derive(Debug, Clone)]
pub struct FluxKustomization {
    /// The file it is defined in (for one found in a render, the file kustomize read it from).
    pub file: PathBuf,
    pub name: String,
    pub namespace: String,
    /// `spec.path`, resolved against the repository (`None`: not found here).
    pub path: Option<PathBuf>,
    /// `spec.path` as written.
    pub spec_path: String,
    /// `spec.sourceRef`: the source Flux fetched the path from.
    pub source: SourceRef,
    /// `spec.kubeConfig.secretRef.name`: the secret holding the kubeconfig of the API server
    /// the output is applied to; `None`: the cluster Flux runs in.
    pub kube_config: Option<String>,
    /// `spec.targetNamespace`: the namespace of every namespaced object of the output.
    pub target_namespace: Option<String>,
    pub name_prefix: Option<String>,
    pub name_suffix: Option<String>,
    /// Which of `spec.patches`, `spec.components`, `spec.images`, `spec.commonMetadata` are set:
    /// applied to a kustomization the Kustomization builds ([`Self::fields`],
    /// [`Self::components`]), not to a plain directory read as it is (said).
    pub transforms: Vec<&'static str>,
    /// `patches`, `images` and `commonMetadata` as the kustomization fields the
    /// kustomize-controller writes them into (fluxcd/pkg `kustomize.Generator.WriteFile`;
    /// `commonMetadata` labels no selector).
    pub fields: Vec<(&'static str, String)>,
    /// `spec.components`, relative to `spec.path`.
    pub components: Vec<String>,
    /// `spec.ignoreMissingComponents`: a component that is not there is left out, not an error.
    pub ignore_missing_components: bool,
    pub substitute: BTreeMap<String, String>,
    /// `substituteFrom`: (kind, name, optional).
    pub substitute_from: Vec<(String, String, bool)>,
    /// `spec.prune`; `None`: not set.
    pub prune: Option<bool>,
}

impl FluxKustomization {
    /// Why it leaves on the API server what its path no longer gives: kustomize-controller's
    /// `KustomizationReconciler.prune` returns at once when `!obj.Spec.Prune`
    /// (internal/controller/kustomization_controller.go). Only an explicit `false` is read so:
    /// the v1 CRD requires `prune` (api/v1/kustomization_types.go `+required`), so the API
    /// server refuses a Kustomization without it, and there is no pruning to judge.
    pub fn keeps_removed(&self) -> Option<&'static str> {
        (self.prune == Some(false)).then_some("spec.prune: false")
    }
}

/// `spec.sourceRef` of a Flux object (kind, name, namespace; the namespace defaults to the
/// object's own).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceRef {
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

/// Whether a text may hold a Flux Kustomization (a cheap test before parsing).
pub fn may_hold(text: &str) -> bool {
    text.contains(API_GROUP)
}

fn is_kind(root: &Node, group: &str, kind: &str) -> bool {
    let api = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    api.starts_with(group) && root.get("kind").and_then(Node::as_str) == Some(kind)
}

fn text_at(n: Option<&Node>, path: &[&str]) -> String {
    let mut n = n;
    for k in path {
        n = n.and_then(|x| x.get(k));
    }
    n.and_then(Node::scalar_text)
        .map(|s| s.into_owned())
        .unwrap_or_default()
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// The Flux Kustomizations among the documents of `loaded` (read from `file`), but those a
/// propagation policy of the same file selects ([`Propagated`]).
pub fn find(loaded: &Loaded, file: &Path) -> Vec<FluxKustomization> {
    let roots: Vec<&Node> = loaded.documents.iter().map(|d| &d.root).collect();
    let propagated = Propagated::among(roots.iter().copied());
    roots
        .into_iter()
        .filter_map(|root| kustomization_of(root, file))
        .filter(|k| !propagated.kustomization(k))
        .collect()
}

/// The Flux objects that Karmada propagates: resource templates on the Karmada control plane
/// that a PropagationPolicy or ClusterPropagationPolicy selects, for the Flux of each member
/// cluster to apply (Karmada's "Use Flux to support Helm chart propagation"), not the
/// configuration of a Flux that reads this repository. Known by the policies' resource
/// selectors: a selector's label selector is not evaluated (any object of its kind in its
/// namespace counts), nor a PropagationPolicy without a namespace (any namespace).
#[derive(Debug, Default)]
pub struct Propagated {
    /// (API group, kind, namespace or any, name or any).
    selectors: Vec<(String, String, Option<String>, Option<String>)>,
}

impl Propagated {
    /// The Flux selectors of the propagation policies among `roots`.
    pub fn among<'a>(roots: impl IntoIterator<Item = &'a Node>) -> Propagated {
        let mut out = Propagated::default();
        for root in roots {
            out.add(root);
        }
        out
    }

    /// Adds `root`'s Flux selectors, if it is a propagation policy.
    pub fn add(&mut self, root: &Node) {
        const POLICY_GROUP: &str = "policy.karmada.io/";
        let kind = root.get("kind").and_then(Node::as_str);
        let cluster_scoped = match kind {
            Some("PropagationPolicy") => false,
            Some("ClusterPropagationPolicy") => true,
            _ => return,
        };
        if !text_at(Some(root), &["apiVersion"]).starts_with(POLICY_GROUP) {
            return;
        }
        let own_namespace = non_empty(text_at(root.get("metadata"), &["namespace"]));
        let selectors = root
            .get("spec")
            .and_then(|s| s.get("resourceSelectors"))
            .and_then(Node::as_seq)
            .unwrap_or(&[]);
        for rs in selectors {
            let api_version = text_at(Some(rs), &["apiVersion"]);
            let group = api_version.split_once('/').map_or("", |(g, _)| g);
            if !group.ends_with(".fluxcd.io") {
                continue;
            }
            // A PropagationPolicy selects in its own namespace only (`ResourceMatches`).
            let namespace = match cluster_scoped {
                true => non_empty(text_at(Some(rs), &["namespace"])),
                false => own_namespace.clone(),
            };
            self.selectors.push((
                group.to_string(),
                text_at(Some(rs), &["kind"]),
                namespace,
                non_empty(text_at(Some(rs), &["name"])),
            ));
        }
    }

    /// Whether some policy propagates the Flux Kustomization `k`.
    pub fn kustomization(&self, k: &FluxKustomization) -> bool {
        self.selects(API_GROUP, "Kustomization", &k.namespace, &k.name)
    }

    /// Whether some policy propagates the HelmRelease `r`.
    pub fn release(&self, r: &HelmRelease) -> bool {
        self.selects(HELM_API_GROUP, "HelmRelease", &r.namespace, &r.name)
    }

    /// Whether some policy selects the `group` `kind` object `namespace`/`name`.
    pub fn selects(&self, group: &str, kind: &str, namespace: &str, name: &str) -> bool {
        self.selectors.iter().any(|(g, k, ns, n)| {
            g == group
                && k == kind
                && ns.as_deref().is_none_or(|ns| ns == namespace)
                && n.as_deref().is_none_or(|n| n == name)
        })
    }
}

/// The Flux Kustomization `root` defines, if it is one (`file`: where it was read from).
pub fn kustomization_of(root: &Node, file: &Path) -> Option<FluxKustomization> {
    if !is_kind(root, API_GROUP, "Kustomization") {
        return None;
    }
    let meta = root.get("metadata");
    let spec = root.get("spec");
    let namespace =
        non_empty(text_at(meta, &["namespace"])).unwrap_or_else(|| "flux-system".into());
    let spec_path = text_at(spec, &["path"]);
    let post = spec.and_then(|s| s.get("postBuild"));
    let substitute = post
        .and_then(|p| p.get("substitute"))
        .map(|n| n.scalar_pairs().collect())
        .unwrap_or_default();
    let substitute_from = post
        .and_then(|p| p.get("substituteFrom"))
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .map(|r| {
            let optional = matches!(
                r.get("optional").map(|n| &n.value),
                Some(crate::source::Value::Bool(true))
            );
            (
                text_at(Some(r), &["kind"]),
                text_at(Some(r), &["name"]),
                optional,
            )
        })
        .collect();
    let transforms = ["patches", "components", "images", "commonMetadata"]
        .into_iter()
        .filter(|k| spec.and_then(|s| s.get(k)).is_some_and(|n| !is_empty(n)))
        .collect();
    let components = spec
        .and_then(|s| s.get("components"))
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .filter_map(|c| c.scalar_text().map(|t| t.into_owned()))
        .collect();
    Some(FluxKustomization {
        file: file.to_path_buf(),
        name: text_at(meta, &["name"]),
        source: source_ref(spec, &namespace),
        kube_config: non_empty(text_at(spec, &["kubeConfig", "secretRef", "name"])),
        target_namespace: non_empty(text_at(spec, &["targetNamespace"])),
        name_prefix: non_empty(text_at(spec, &["namePrefix"])),
        name_suffix: non_empty(text_at(spec, &["nameSuffix"])),
        transforms,
        fields: kustomization_fields(spec),
        components,
        ignore_missing_components: matches!(
            spec.and_then(|s| s.get("ignoreMissingComponents"))
                .map(|n| &n.value),
            Some(crate::source::Value::Bool(true))
        ),
        namespace,
        path: resolve_path(file, &spec_path),
        spec_path,
        substitute,
        substitute_from,
        prune: match spec.and_then(|s| s.get("prune")).map(|n| &n.value) {
            Some(crate::source::Value::Bool(b)) => Some(*b),
            _ => None,
        },
    })
}

/// [`FluxKustomization::fields`] of a Kustomization's `spec`.
fn kustomization_fields(spec: Option<&Node>) -> Vec<(&'static str, String)> {
    let json = |key: &str| {
        spec.and_then(|s| s.get(key))
            .filter(|n| !is_empty(n))
            .map(Node::to_json)
    };
    let mut fields = Vec::new();
    for key in ["patches", "images"] {
        if let Some(v) = json(key) {
            fields.push((key, v.to_string()));
        }
    }
    if let Some(meta) = json("commonMetadata") {
        if let Some(labels) = meta.get("labels").filter(|l| l.is_object()) {
            let labels = serde_json::json!([{"pairs": labels, "includeSelectors": false}]);
            fields.push(("labels", labels.to_string()));
        }
        if let Some(annotations) = meta.get("annotations").filter(|a| a.is_object()) {
            fields.push(("commonAnnotations", annotations.to_string()));
        }
    }
    fields
}

fn is_empty(n: &Node) -> bool {
    match &n.value {
        crate::source::Value::Seq(s) => s.is_empty(),
        crate::source::Value::Map(m) => m.is_empty(),
        crate::source::Value::Null => true,
        _ => false,
    }
}

fn source_ref(spec: Option<&Node>, own_namespace: &str) -> SourceRef {
    let r = spec.and_then(|s| s.get("sourceRef"));
    SourceRef {
        kind: text_at(r, &["kind"]),
        name: text_at(r, &["name"]),
        namespace: non_empty(text_at(r, &["namespace"])).unwrap_or_else(|| own_namespace.into()),
    }
}

/// A Flux source object (`GitRepository`, `OCIRepository`, `Bucket`, `HelmRepository`): its
/// reference and URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FluxSource {
    pub reference: SourceRef,
    pub url: String,
    /// `spec.ignore`: patterns, in `.sourceignore` syntax, that keep files out of the artifact
    /// (`None`: not set; see [`super::artifact`]).
    pub ignore: Option<String>,
    /// The file that defines it (empty until the planner sets it): clusters of one
    /// repository often each define a source of the same name, with their own `spec.ignore`.
    pub file: PathBuf,
}

/// The Flux source object `root` defines, if it is one.
pub fn source_of(root: &Node) -> Option<FluxSource> {
    let api = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    if !api.starts_with("source.toolkit.fluxcd.io") {
        return None;
    }
    let kind = root.get("kind").and_then(Node::as_str)?.to_string();
    let meta = root.get("metadata");
    Some(FluxSource {
        reference: SourceRef {
            kind,
            name: text_at(meta, &["name"]),
            namespace: non_empty(text_at(meta, &["namespace"]))
                .unwrap_or_else(|| "flux-system".into()),
        },
        url: text_at(root.get("spec"), &["url"]),
        ignore: root
            .get("spec")
            .and_then(|s| s.get("ignore"))
            .and_then(Node::scalar_text)
            .map(|s| s.into_owned()),
        file: PathBuf::new(),
    })
}

/// The API group of Flux's helm-controller.
pub const HELM_API_GROUP: &str = "helm.toolkit.fluxcd.io";

/// One `HelmRelease`: the chart it installs, with which values, to which API server.
#[derive(Debug, Clone)]
pub struct HelmRelease {
    pub file: PathBuf,
    pub name: String,
    pub namespace: String,
    /// `spec.releaseName`, else Flux's default: `[targetNamespace-]name`.
    pub release_name: String,
    /// `spec.targetNamespace`, else the object's namespace: where the chart's objects go.
    pub target_namespace: String,
    pub kube_config: Option<String>,
    /// `spec.chart.spec.chart`: a chart name, or for a Git or Bucket source a path in it.
    pub chart: String,
    /// `spec.chart.spec.version` (a semver range; Helm repositories only).
    pub version: Option<String>,
    /// `spec.chart.spec.sourceRef`, or `spec.chartRef`.
    pub source: SourceRef,
    /// `spec.chart.spec.valuesFiles`: paths in the source, merged in order.
    pub values_files: Vec<String>,
    /// `spec.values`, merged over the values files.
    pub values: Option<Node>,
    /// `spec.valuesFrom` entries: (kind, name, valuesKey, targetPath).
    pub values_from: Vec<(String, String, String, String)>,
}

/// The HelmRelease `root` defines, if it is one (`file`: where it was read from).
pub fn helm_release_of(root: &Node, file: &Path) -> Option<HelmRelease> {
    if !is_kind(root, HELM_API_GROUP, "HelmRelease") {
        return None;
    }
    let meta = root.get("metadata");
    let spec = root.get("spec");
    let name = text_at(meta, &["name"]);
    let namespace = non_empty(text_at(meta, &["namespace"])).unwrap_or_else(|| "default".into());
    let target = non_empty(text_at(spec, &["targetNamespace"]));
    // helm-controller: `GetReleaseName` is `targetNamespace-name` when a target namespace is set.
    let release_name =
        non_empty(text_at(spec, &["releaseName"])).unwrap_or_else(|| match &target {
            Some(t) => format!("{t}-{name}"),
            None => name.clone(),
        });
    let chart_spec = spec
        .and_then(|s| s.get("chart"))
        .and_then(|c| c.get("spec"));
    let source = match chart_spec {
        Some(c) => source_ref(Some(c), &namespace),
        None => {
            let r = spec.and_then(|s| s.get("chartRef"));
            SourceRef {
                kind: text_at(r, &["kind"]),
                name: text_at(r, &["name"]),
                namespace: non_empty(text_at(r, &["namespace"]))
                    .unwrap_or_else(|| namespace.clone()),
            }
        }
    };
    let values_files = chart_spec
        .and_then(|c| c.get("valuesFiles"))
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .filter_map(|n| n.scalar_text().map(|s| s.into_owned()))
        .collect();
    let values_from = spec
        .and_then(|s| s.get("valuesFrom"))
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .map(|v| {
            (
                text_at(Some(v), &["kind"]),
                text_at(Some(v), &["name"]),
                non_empty(text_at(Some(v), &["valuesKey"])).unwrap_or_else(|| "values.yaml".into()),
                text_at(Some(v), &["targetPath"]),
            )
        })
        .collect();
    Some(HelmRelease {
        file: file.to_path_buf(),
        release_name,
        target_namespace: target.unwrap_or_else(|| namespace.clone()),
        kube_config: non_empty(text_at(spec, &["kubeConfig", "secretRef", "name"])),
        chart: text_at(chart_spec, &["chart"]),
        version: non_empty(text_at(chart_spec, &["version"])),
        source,
        values_files,
        values: spec.and_then(|s| s.get("values")).cloned(),
        values_from,
        name,
        namespace,
    })
}

/// `spec.path` is relative to the root of the source Flux fetched. That root is not known
/// here, so it is the nearest ancestor of the defining file where the path exists; past the
/// current directory (a Flux directory linted from inside: `cd clusters/cp && lint .`), the
/// directories above it in its git working tree ([`super::above_current_directory`]).
pub fn resolve_path(file: &Path, spec_path: &str) -> Option<PathBuf> {
    let rel = spec_path.trim_start_matches("./");
    file.ancestors()
        .skip(1)
        .map(|d| normalize(&d.join(rel)))
        .find(|c| c.is_dir())
        .or_else(|| {
            if file.is_absolute() {
                return None;
            }
            super::above_current_directory()
                .into_iter()
                .map(|(_, dir)| normalize(&dir.join(rel)))
                .find(|c| c.is_dir())
                .and_then(|c| super::from_current_directory(&c))
        })
}

/// `spec.path` in the source whose root is `root` (`""`, `.` and `./` are the root itself); a
/// path that leaves the root is not in it. A root above the current directory (`../..`,
/// [`super::above_current_directory`]) gives the path as from the current directory.
pub fn path_in(root: &Path, spec_path: &str) -> Option<PathBuf> {
    let rel = spec_path.trim().trim_start_matches("./");
    let rel = rel.trim_start_matches('/');
    if root.starts_with("..") {
        let cwd = std::env::current_dir().ok()?.canonicalize().ok()?;
        let root = normalize(&cwd.join(root));
        let joined = normalize(&root.join(rel));
        return (joined.starts_with(&root) && joined.is_dir())
            .then(|| super::from_current_directory(&joined))
            .flatten();
    }
    let joined = normalize(&root.join(rel));
    let inside = joined.starts_with(normalize(root)) || normalize(root).as_os_str().is_empty();
    (inside && !joined.starts_with("..") && joined.is_dir()).then_some(joined)
}

/// Applies Flux's post-build substitution to a rendered stream, object by object: `${var}`,
/// `${var:=default}` (and `:-`, `=`, `-`), `$${var}` for a literal `${var}`; objects annotated
/// `kustomize.toolkit.fluxcd.io/substitute: disabled` are left alone. A variable with no value
/// and no default stays as written, so the linter reports it as an unrendered template.
pub fn substitute_stream(text: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut doc = String::new();
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            out.push_str(&substitute_document(&doc, vars));
            doc.clear();
            out.push_str(line);
        } else {
            doc.push_str(line);
        }
    }
    out.push_str(&substitute_document(&doc, vars));
    out
}

fn substitute_document(doc: &str, vars: &BTreeMap<String, String>) -> String {
    let disabled = doc.lines().any(|l| {
        l.trim_start()
            .strip_prefix(SUBSTITUTE_ANNOTATION)
            .and_then(|r| r.strip_prefix(':'))
            .is_some_and(|v| v.trim().trim_matches(['"', '\'']) == "disabled")
    });
    if disabled {
        return doc.to_string();
    }
    substitute(doc, vars)
}

/// [`substitute_stream`] on one text.
pub fn substitute(text: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(escaped) = tail.strip_prefix("$${") {
            out.push_str("${");
            rest = escaped;
            continue;
        }
        let Some(body) = tail.strip_prefix("${") else {
            out.push('$');
            rest = &tail[1..];
            continue;
        };
        let Some(close) = body.find('}') else {
            out.push_str(tail);
            return out;
        };
        let expr = &body[..close];
        match expand(expr, vars) {
            Some(value) => out.push_str(&value),
            None => {
                out.push_str("${");
                out.push_str(expr);
                out.push('}');
            }
        }
        rest = &body[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The value of one `${...}` expression, `None` when it stays unresolved.
fn expand(expr: &str, vars: &BTreeMap<String, String>) -> Option<String> {
    let name_end = expr
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(expr.len());
    let (name, op) = expr.split_at(name_end);
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let value = vars.get(name);
    if op.is_empty() {
        return value.cloned();
    }
    for (prefix, when_empty) in [(":=", true), (":-", true), ("=", false), ("-", false)] {
        if let Some(default) = op.strip_prefix(prefix) {
            return match value {
                Some(v) if !(when_empty && v.is_empty()) => Some(v.clone()),
                _ => Some(default.to_string()),
            };
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only `prune: false` said so keeps what the path no longer gives; a Kustomization
    /// without `prune` is one the API server refuses (the CRD requires it).
    #[test]
    fn only_an_explicit_prune_false_keeps_what_the_path_no_longer_gives() {
        let keeps = |prune: &str| {
            let text = format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: web}}\nspec: {{path: ./web{prune}}}\n");
            let loaded = crate::source::load(crate::source::Source::new("k.yaml", text));
            let k = kustomization_of(&loaded.documents[0].root, Path::new("k.yaml")).unwrap();
            k.keeps_removed()
        };
        assert_eq!(keeps(", prune: false"), Some("spec.prune: false"));
        assert_eq!(keeps(", prune: true"), None);
        assert_eq!(keeps(""), None);
    }

    /// A PropagationPolicy selects in its own namespace, a ClusterPropagationPolicy in the
    /// selector's (any when it names none); a selector without a name selects every object of
    /// its kind; other groups and other policy kinds select nothing here.
    #[test]
    fn propagated_flux_objects_are_known_by_the_policies_selectors() {
        let docs = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: a, namespace: apps}\nspec:\n  resourceSelectors:\n  - {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, name: web}\n  - {apiVersion: apps/v1, kind: Deployment}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: b}\nspec:\n  resourceSelectors:\n  - {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, namespace: charts}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {name: c, namespace: flux-system}\nspec:\n  resourceSelectors:\n  - {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization}\n";
        let loaded = crate::source::load(crate::source::Source::new("p.yaml", docs));
        let p = Propagated::among(loaded.documents.iter().map(|d| &d.root));
        assert!(p.selects(API_GROUP, "Kustomization", "apps", "web"));
        assert!(!p.selects(API_GROUP, "Kustomization", "apps", "db"));
        assert!(!p.selects(API_GROUP, "Kustomization", "flux-system", "web"));
        assert!(p.selects(HELM_API_GROUP, "HelmRelease", "charts", "any"));
        assert!(!p.selects(HELM_API_GROUP, "HelmRelease", "other", "any"));
        assert!(!p.selects("apps", "Deployment", "apps", "web"));
    }

    fn vars() -> BTreeMap<String, String> {
        [("cluster_name".to_string(), "member2".to_string())].into()
    }

    #[test]
    fn flux_substitution_rules() {
        let v = vars();
        assert_eq!(substitute("- ${cluster_name}\n", &v), "- member2\n");
        assert_eq!(substitute("${region:=eu}", &v), "eu");
        assert_eq!(substitute("${cluster_name:=x}", &v), "member2");
        assert_eq!(substitute("$${cluster_name}", &v), "${cluster_name}");
        assert_eq!(substitute("${missing}", &v), "${missing}");
        assert_eq!(substitute("cost: $5 ${", &v), "cost: $5 ${");
    }

    #[test]
    fn disabled_objects_are_left_alone() {
        let stream = "a: ${cluster_name}\n---\nmetadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\nb: ${cluster_name}\n";
        let out = substitute_stream(stream, &vars());
        assert!(out.starts_with("a: member2\n---\n"), "{out}");
        assert!(out.ends_with("b: ${cluster_name}\n"), "{out}");
    }
}
