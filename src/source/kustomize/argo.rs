//! Argo CD: `argoproj.io` `Application` objects say which paths of the repository a cluster
//! (their `spec.destination`) receives; an `ApplicationSet` with a `list` or git `directories`
//! generator stands for the Applications it generates.
//!
//! A source's `repoURL` is not compared with this repository's remote (which is not known
//! here): a source whose `path` exists in the repository is taken to be this repository, one
//! whose path does not (or a Helm `chart` from a chart repository) is said in a note.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::flux::resolve_path;
use crate::source::{Loaded, Node};

pub const API_GROUP: &str = "argoproj.io";

/// One Application found (or generated) in the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgoApp {
    /// The file it is defined in.
    pub file: PathBuf,
    pub name: String,
    /// The cluster it deploys to: `spec.destination.name`, else its `server` (`in-cluster`
    /// for the local API server, as Argo CD names it).
    pub destination: String,
    /// Its sources' paths, resolved in the repository.
    pub paths: Vec<PathBuf>,
    /// Sources not found in the repository, as written (`repoURL path` or `repoURL chart`).
    pub elsewhere: Vec<String>,
}

/// Whether a text may hold an Argo CD object (a cheap test before parsing).
pub fn may_hold(text: &str) -> bool {
    text.contains(API_GROUP)
}

/// The Applications of `loaded` (read from `file`), with those its ApplicationSets generate.
/// `dirs` are the repository's directories, for git `directories` generators.
pub fn find(loaded: &Loaded, file: &Path, dirs: &[PathBuf]) -> Vec<ArgoApp> {
    let mut out = Vec::new();
    for d in &loaded.documents {
        let api = d
            .root
            .get("apiVersion")
            .and_then(Node::as_str)
            .unwrap_or("");
        if !api.starts_with(API_GROUP) {
            continue;
        }
        let name = str_at(&d.root, &["metadata", "name"]).unwrap_or("");
        match d.root.get("kind").and_then(Node::as_str) {
            Some("Application") => {
                if let Some(spec) = d.root.get("spec") {
                    out.push(app(file, name, spec, &BTreeMap::new()));
                }
            }
            Some("ApplicationSet") => out.extend(generated(file, name, &d.root, dirs)),
            _ => {}
        }
    }
    out
}

fn str_at<'a>(node: &'a Node, path: &[&str]) -> Option<&'a str> {
    let mut n = node;
    for k in path {
        n = n.get(k)?;
    }
    n.as_str()
}

/// An Application from its `spec` (a template's spec with `params` put in).
fn app(file: &Path, name: &str, spec: &Node, params: &BTreeMap<String, String>) -> ArgoApp {
    let put = |s: &str| fill(s, params);
    let destination = match (
        str_at(spec, &["destination", "name"]),
        str_at(spec, &["destination", "server"]),
    ) {
        (Some(n), _) if !n.is_empty() => put(n),
        (_, Some("https://kubernetes.default.svc")) => "in-cluster".to_string(),
        (_, Some(s)) => put(s),
        _ => "in-cluster".to_string(),
    };
    let mut sources: Vec<&Node> = spec.get("source").into_iter().collect();
    sources.extend(spec.get("sources").and_then(Node::as_seq).unwrap_or(&[]));
    let mut paths = Vec::new();
    let mut elsewhere = Vec::new();
    for s in sources {
        let repo = put(str_at(s, &["repoURL"]).unwrap_or(""));
        match (str_at(s, &["path"]), str_at(s, &["chart"])) {
            (Some(p), _) => match resolve_path(file, &put(p)) {
                Some(found) => paths.push(found),
                None => elsewhere.push(format!("{repo} {}", put(p))),
            },
            (None, Some(c)) => elsewhere.push(format!("{repo} chart {}", put(c))),
            // A `ref` source (values files for another source) holds no objects.
            (None, None) => {}
        }
    }
    ArgoApp {
        file: file.to_path_buf(),
        name: put(name),
        destination,
        paths,
        elsewhere,
    }
}

/// The Applications an ApplicationSet generates: one per parameter set of its `list` and git
/// `directories` generators (other generators are not expanded).
fn generated(file: &Path, name: &str, root: &Node, dirs: &[PathBuf]) -> Vec<ArgoApp> {
    let Some(spec) = root.get("spec") else {
        return Vec::new();
    };
    let Some(template) = spec.get("template") else {
        return Vec::new();
    };
    let template_name = str_at(template, &["metadata", "name"]).unwrap_or(name);
    let Some(template_spec) = template.get("spec") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for g in spec.get("generators").and_then(Node::as_seq).unwrap_or(&[]) {
        for params in parameters(file, g, dirs) {
            out.push(app(file, template_name, template_spec, &params));
        }
    }
    out
}

/// The parameter sets of one generator.
fn parameters(file: &Path, g: &Node, dirs: &[PathBuf]) -> Vec<BTreeMap<String, String>> {
    let mut out = Vec::new();
    if let Some(elements) = g
        .get("list")
        .and_then(|l| l.get("elements"))
        .and_then(Node::as_seq)
    {
        for e in elements {
            let params: BTreeMap<String, String> = e
                .as_map()
                .unwrap_or(&[])
                .iter()
                .filter_map(|en| {
                    Some((
                        en.key.as_str()?.to_string(),
                        en.value.scalar_text()?.into_owned(),
                    ))
                })
                .collect();
            out.push(params);
        }
    }
    if let Some(git) = g.get("git") {
        let patterns: Vec<(&str, bool)> = git
            .get("directories")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .filter_map(|d| {
                let exclude = matches!(
                    d.get("exclude").map(|n| &n.value),
                    Some(crate::source::Value::Bool(true))
                );
                Some((str_at(d, &["path"])?, exclude))
            })
            .collect();
        for dir in git_directories(file, &patterns, dirs) {
            out.push(directory_params(&dir));
        }
    }
    out
}

/// The repository directories (relative to its root, which is the nearest ancestor of the
/// defining file where some pattern matches) that the included patterns match and no excluded
/// one does.
fn git_directories(file: &Path, patterns: &[(&str, bool)], dirs: &[PathBuf]) -> Vec<String> {
    let glob = |p: &str| {
        globset::GlobBuilder::new(p.trim_start_matches("./"))
            .literal_separator(true)
            .build()
            .ok()
            .map(|g| g.compile_matcher())
    };
    let include: Vec<_> = patterns
        .iter()
        .filter(|(_, ex)| !ex)
        .filter_map(|(p, _)| glob(p))
        .collect();
    let exclude: Vec<_> = patterns
        .iter()
        .filter(|(_, ex)| *ex)
        .filter_map(|(p, _)| glob(p))
        .collect();
    for root in file.ancestors().skip(1) {
        let found: Vec<String> = dirs
            .iter()
            .filter_map(|d| d.strip_prefix(root).ok())
            .filter(|rel| !rel.as_os_str().is_empty())
            .map(|rel| rel.to_string_lossy().replace('\\', "/"))
            .filter(|rel| include.iter().any(|g| g.is_match(rel)))
            .filter(|rel| !exclude.iter().any(|g| g.is_match(rel)))
            .collect();
        if !found.is_empty() {
            let mut found = found;
            found.sort();
            found.dedup();
            return found;
        }
    }
    Vec::new()
}

/// The parameters of a git `directories` generator for one directory.
fn directory_params(dir: &str) -> BTreeMap<String, String> {
    let basename = dir.rsplit('/').next().unwrap_or(dir).to_string();
    let mut p = BTreeMap::new();
    p.insert("path".into(), dir.to_string());
    p.insert("path.path".into(), dir.to_string());
    p.insert(
        "path.basenameNormalized".into(),
        basename
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect(),
    );
    p.insert("path.basename".into(), basename);
    for (i, seg) in dir.split('/').enumerate() {
        p.insert(format!("path[{i}]"), seg.to_string());
        p.insert(format!("path.segments[{i}]"), seg.to_string());
    }
    p
}

/// `{{name}}`, `{{ name }}` and the Go-template `{{ .name }}` replaced by their values; an
/// unknown parameter stays as written.
fn fill(text: &str, params: &BTreeMap<String, String>) -> String {
    if params.is_empty() || !text.contains("{{") {
        return text.to_string();
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let Some(close) = rest[i..].find("}}") else {
            out.push_str(&rest[i..]);
            return out;
        };
        let key = rest[i + 2..i + close].trim().trim_start_matches('.');
        match params.get(key) {
            Some(v) => out.push_str(v),
            None => out.push_str(&rest[i..i + close + 2]),
        }
        rest = &rest[i + close + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    #[test]
    fn parameters_fill_both_template_syntaxes() {
        let p: BTreeMap<String, String> = [("cluster".to_string(), "prod".to_string())].into();
        assert_eq!(fill("apps/{{cluster}}", &p), "apps/prod");
        assert_eq!(fill("apps/{{ .cluster }}/x", &p), "apps/prod/x");
        assert_eq!(fill("{{other}}", &p), "{{other}}");
        let d = directory_params("apps/web_app");
        assert_eq!(d["path.basename"], "web_app");
        assert_eq!(d["path.basenameNormalized"], "web-app");
        assert_eq!(d["path[0]"], "apps");
    }

    #[test]
    fn applications_and_generated_ones_name_their_destination_and_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["apps/a", "apps/b", "argocd"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let file = root.join("argocd/apps.yaml");
        let text = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\nspec:\n  destination:\n    name: prod\n  source:\n    repoURL: https://example.com/r.git\n    path: apps/a\n---\napiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: set\nspec:\n  generators:\n    - list:\n        elements:\n          - cluster: staging\n    - git:\n        repoURL: https://example.com/r.git\n        directories:\n          - path: apps/*\n          - path: apps/a\n            exclude: true\n  template:\n    metadata:\n      name: '{{path.basename}}{{cluster}}'\n    spec:\n      destination:\n        server: https://kubernetes.default.svc\n      source:\n        repoURL: https://example.com/r.git\n        path: '{{path}}'\n";
        let loaded = load(Source::new(file.display().to_string(), text));
        let dirs: Vec<PathBuf> = ["apps/a", "apps/b", "argocd", "apps"]
            .iter()
            .map(|d| root.join(d))
            .collect();
        let apps = find(&loaded, &file, &dirs);
        assert_eq!(apps.len(), 3, "{apps:#?}");
        assert_eq!(apps[0].destination, "prod");
        assert_eq!(apps[0].paths, [root.join("apps/a")]);
        // The list element has no `path`: its source is not in the repository.
        assert_eq!(apps[1].destination, "in-cluster");
        assert_eq!(apps[1].elsewhere, ["https://example.com/r.git {{path}}"]);
        assert_eq!(apps[2].name, "b{{cluster}}");
        assert_eq!(apps[2].paths, [root.join("apps/b")]);
    }
}
