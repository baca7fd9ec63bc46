//! The live control plane as a source: discovery (to resolve `TYPE` as kubectl does), then one
//! list call per kind with bounded parallelism, turning each object into a [`Document`] whose
//! source name is an object reference (`pp/default/nginx`), so findings point at an object and a
//! field path instead of a file line.
//!
//! Read-only: only `get` and `list` are ever sent. A kind the credentials may not read (403) or
//! the server does not serve (404) degrades to a note; any other failure ends the read.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ::kube::api::{Api, DynamicObject, ListParams};
use ::kube::core::{ApiResource, GroupVersionKind};
use serde_json::Value as J;

use super::document::{Document, Node, Source, Span};
use crate::kube::kinds::{self, KindInfo};
use crate::kube::{ClusterError, Conn, ErrorKind};

/// A served resource type, as discovery reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceType {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
    pub short: Vec<String>,
}

impl ResourceType {
    fn new(group: &str, version: &str, kind: &str, plural: &str, namespaced: bool) -> Self {
        ResourceType {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            plural: plural.into(),
            namespaced,
            short: Vec::new(),
        }
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `deployments.apps` (or `configmaps` for the core group), as kubectl names types.
    pub fn display(&self) -> String {
        self.info().display()
    }

    pub fn info(&self) -> KindInfo {
        KindInfo {
            group: self.group.clone(),
            kind: self.kind.clone(),
            plural: self.plural.clone(),
            short: self.short.clone(),
        }
    }

    fn api_resource(&self) -> ApiResource {
        ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk(&self.group, &self.version, &self.kind),
            &self.plural,
        )
    }

    /// The prefix of object references: the first short name (`pp`, `deploy`), else
    /// `kind.group` in lower case (`work.work.karmada.io` would be noise: Karmada's own kinds
    /// without a short name use the kind alone).
    pub fn ref_prefix(&self) -> String {
        if let Some(s) = self.short.first() {
            return s.clone();
        }
        let kind = self.kind.to_ascii_lowercase();
        if self.group.is_empty() || self.group.ends_with("karmada.io") {
            kind
        } else {
            format!("{kind}.{}", self.group)
        }
    }
}

/// The Karmada kinds live mode reads, with the names Karmada's CRDs serve.
pub mod karmada {
    use super::ResourceType;

    fn with_short(mut r: ResourceType, s: &str) -> ResourceType {
        r.short = vec![s.to_string()];
        r
    }

    pub fn pp() -> ResourceType {
        with_short(
            ResourceType::new(
                "policy.karmada.io",
                "v1alpha1",
                "PropagationPolicy",
                "propagationpolicies",
                true,
            ),
            "pp",
        )
    }
    pub fn cpp() -> ResourceType {
        with_short(
            ResourceType::new(
                "policy.karmada.io",
                "v1alpha1",
                "ClusterPropagationPolicy",
                "clusterpropagationpolicies",
                false,
            ),
            "cpp",
        )
    }
    pub fn op() -> ResourceType {
        with_short(
            ResourceType::new(
                "policy.karmada.io",
                "v1alpha1",
                "OverridePolicy",
                "overridepolicies",
                true,
            ),
            "op",
        )
    }
    pub fn cop() -> ResourceType {
        with_short(
            ResourceType::new(
                "policy.karmada.io",
                "v1alpha1",
                "ClusterOverridePolicy",
                "clusteroverridepolicies",
                false,
            ),
            "cop",
        )
    }
    pub fn rb() -> ResourceType {
        with_short(
            ResourceType::new(
                "work.karmada.io",
                "v1alpha2",
                "ResourceBinding",
                "resourcebindings",
                true,
            ),
            "rb",
        )
    }
    pub fn crb() -> ResourceType {
        with_short(
            ResourceType::new(
                "work.karmada.io",
                "v1alpha2",
                "ClusterResourceBinding",
                "clusterresourcebindings",
                false,
            ),
            "crb",
        )
    }
    pub fn work() -> ResourceType {
        ResourceType::new("work.karmada.io", "v1alpha1", "Work", "works", true)
    }
    pub fn cluster() -> ResourceType {
        ResourceType::new(
            "cluster.karmada.io",
            "v1alpha1",
            "Cluster",
            "clusters",
            false,
        )
    }
}

/// The types the server serves (preferred version of each group first).
#[derive(Clone, Debug, Default)]
pub struct Discovered {
    pub types: Vec<ResourceType>,
    /// Set when discovery could not be read and well-known names stand in.
    pub note: Option<String>,
}

impl Discovered {
    /// Resolves `TYPE` as kubectl does: kind, plural or short name, any case, optionally
    /// qualified `deployment.apps` / `deployments.v1.apps`.
    pub fn resolve(&self, ty: &str) -> Result<ResourceType, String> {
        let table: Vec<KindInfo> = self.types.iter().map(ResourceType::info).collect();
        let info = kinds::resolve(ty, &table, &[]).map_err(|e| e.to_string())?;
        self.types
            .iter()
            .find(|t| t.group == info.group && t.kind == info.kind)
            .cloned()
            .ok_or_else(|| format!("the server doesn't have a resource type \"{ty}\""))
    }

    /// The served type for an `apiVersion` and kind (as written in a resource selector); the
    /// plural is guessed when discovery does not know it.
    pub fn for_kind(&self, api_version: &str, kind: &str) -> ResourceType {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        if let Some(t) = self
            .types
            .iter()
            .find(|t| t.group == group && t.version == version && t.kind == kind)
        {
            return t.clone();
        }
        let namespaced = crate::kube::scope::is_namespaced(api_version, kind);
        ResourceType::new(group, version, kind, &kinds::guess_plural(kind), namespaced)
    }

    /// Without discovery: the well-known kinds (at their usual versions) and Karmada's.
    fn fallback(note: String) -> Discovered {
        let mut types: Vec<ResourceType> = kinds::table(&[])
            .into_iter()
            .filter(|i| !i.is_karmada())
            .map(|i| {
                // Every well-known kind is served at v1 today.
                let version = "v1";
                let api_version = if i.group.is_empty() {
                    version.to_string()
                } else {
                    format!("{}/{version}", i.group)
                };
                let namespaced = crate::kube::scope::is_namespaced(&api_version, &i.kind);
                ResourceType {
                    group: i.group,
                    version: version.into(),
                    kind: i.kind,
                    plural: i.plural,
                    namespaced,
                    short: i.short,
                }
            })
            .collect();
        types.extend([
            karmada::pp(),
            karmada::cpp(),
            karmada::op(),
            karmada::cop(),
            karmada::rb(),
            karmada::crb(),
            karmada::work(),
            karmada::cluster(),
        ]);
        Discovered {
            types,
            note: Some(note),
        }
    }
}

/// Counts the requests this source sends (the benchmark reports it; tests compare it with the
/// server's log).
#[derive(Debug, Default)]
pub struct Stats {
    requests: AtomicU64,
}

impl Stats {
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    fn count(&self, n: u64) {
        self.requests.fetch_add(n, Ordering::SeqCst);
    }
}

fn classify(e: kube::Error) -> ClusterError {
    match e {
        kube::Error::Api(status) => {
            let kind = match status.code {
                401 | 403 => ErrorKind::Auth,
                404 => ErrorKind::NotFound,
                500.. => ErrorKind::Server,
                _ => ErrorKind::Api,
            };
            ClusterError {
                kind,
                message: status.message.clone(),
            }
        }
        other => {
            // Transport errors never carry credentials; the causes say what failed (a timeout,
            // a refused connection) where the top error only says "client error".
            let mut message = other.to_string();
            let mut cause = std::error::Error::source(&other);
            while let Some(c) = cause {
                let text = c.to_string();
                if !message.contains(&text) {
                    message.push_str(": ");
                    message.push_str(&text);
                }
                cause = c.source();
            }
            ClusterError {
                kind: ErrorKind::Transport,
                message,
            }
        }
    }
}

/// Aggregated discovery (`/api` and `/apis`, two requests); the legacy endpoints when the
/// server answers aggregated discovery with nothing (kube-rs then sees 0 groups and no error).
pub async fn discover(conn: &Conn, stats: &Stats) -> Discovered {
    let client = &conn.client;
    stats.count(2);
    let core = client.list_core_api_versions_aggregated().await;
    let groups = client.list_api_groups_aggregated().await;
    let mut types = Vec::new();
    let mut failed = None;
    for list in [core, groups] {
        match list {
            Ok(list) => {
                for g in list.items {
                    let group = g
                        .metadata
                        .as_ref()
                        .and_then(|m| m.name.clone())
                        .unwrap_or_default();
                    // The first version listed is the preferred one; keep each kind once.
                    for v in g.versions {
                        let version = v.version.unwrap_or_default();
                        for r in v.resources {
                            let Some(plural) = r.resource else { continue };
                            let kind = r.response_kind.and_then(|k| k.kind).unwrap_or_default();
                            if kind.is_empty() || plural.contains('/') {
                                continue;
                            }
                            if types
                                .iter()
                                .any(|t: &ResourceType| t.group == group && t.kind == kind)
                            {
                                continue;
                            }
                            types.push(ResourceType {
                                group: group.clone(),
                                version: version.clone(),
                                kind,
                                plural,
                                namespaced: r.scope.as_deref() == Some("Namespaced"),
                                short: r.short_names,
                            });
                        }
                    }
                }
            }
            Err(e) => failed = Some(classify(e).message),
        }
    }
    if types.is_empty() && failed.is_none() {
        types = legacy_discovery(conn, stats).await.unwrap_or_default();
    }
    if types.is_empty() {
        return Discovered::fallback(format!(
            "discovery unavailable ({}); using well-known resource types",
            failed.unwrap_or_else(|| "no resource types served".into())
        ));
    }
    Discovered { types, note: None }
}

async fn legacy_discovery(conn: &Conn, stats: &Stats) -> Option<Vec<ResourceType>> {
    let client = &conn.client;
    let mut types = Vec::new();
    stats.count(1);
    let core = client.list_core_api_resources("v1").await.ok();
    stats.count(1);
    let groups = client.list_api_groups().await.ok()?;
    let mut lists = Vec::new();
    if let Some(c) = core {
        lists.push((String::new(), "v1".to_string(), c));
    }
    for g in groups.groups {
        let Some(pv) = g.preferred_version.or_else(|| g.versions.first().cloned()) else {
            continue;
        };
        stats.count(1);
        if let Ok(l) = client.list_api_group_resources(&pv.group_version).await {
            lists.push((g.name.clone(), pv.version.clone(), l));
        }
    }
    for (group, version, list) in lists {
        for r in list.resources {
            if r.name.contains('/') {
                continue;
            }
            types.push(ResourceType {
                group: group.clone(),
                version: version.clone(),
                kind: r.kind,
                plural: r.name,
                namespaced: r.namespaced,
                short: r.short_names.unwrap_or_default(),
            });
        }
    }
    Some(types)
}

/// One read: a list of a kind (in a namespace or all), or a get of one object.
#[derive(Clone, Debug)]
pub struct Request {
    pub rt: ResourceType,
    /// `None`: all namespaces (or cluster-scoped).
    pub namespace: Option<String>,
    pub label_selector: Option<String>,
    /// A get of this one object instead of a list.
    pub name: Option<String>,
}

impl Request {
    pub fn list(rt: ResourceType, namespace: Option<&str>) -> Request {
        Request {
            namespace: namespace.filter(|_| rt.namespaced).map(str::to_string),
            rt,
            label_selector: None,
            name: None,
        }
    }

    pub fn get(rt: ResourceType, namespace: Option<&str>, name: &str) -> Request {
        Request {
            name: Some(name.to_string()),
            ..Request::list(rt, namespace)
        }
    }

    pub fn labels(mut self, selector: &str) -> Request {
        self.label_selector = Some(selector.to_string());
        self
    }

    /// `propagationpolicies.policy.karmada.io in default` for notes.
    pub fn describe(&self) -> String {
        let mut s = self.rt.display();
        if let Some(n) = &self.name {
            s = format!("{s} \"{n}\"");
        }
        match &self.namespace {
            Some(ns) => format!("{s} in namespace {ns}"),
            None if self.rt.namespaced => format!("{s} in all namespaces"),
            None => s,
        }
    }
}

/// What one read returned.
#[derive(Debug)]
pub struct Read {
    pub request: Request,
    /// The objects (apiVersion and kind filled in), or the reason the kind is missing.
    pub result: Result<Vec<J>, ClusterError>,
}

impl Read {
    /// The objects, empty when the read degraded.
    pub fn items(&self) -> &[J] {
        self.result.as_deref().unwrap_or(&[])
    }

    pub fn ok(&self) -> bool {
        self.result.is_ok()
    }

    /// The note for a degraded read, `None` when it succeeded.
    pub fn note(&self) -> Option<String> {
        let e = self.result.as_ref().err()?;
        let what = match e.kind {
            ErrorKind::Auth => "not readable with these credentials",
            ErrorKind::NotFound => "not served by this control plane",
            _ => "not read",
        };
        Some(format!(
            "{} {what} ({}); the result leaves them out",
            self.request.describe(),
            e.message
        ))
    }
}

/// Runs the reads, at most `parallelism` at a time. 403 and 404 come back as degraded reads;
/// any other failure (transport, timeout, 5xx) is returned as the error of the whole read.
pub async fn read_all(
    conn: &Conn,
    requests: Vec<Request>,
    parallelism: usize,
    stats: &Arc<Stats>,
) -> Result<Vec<Read>, ClusterError> {
    let sem = Arc::new(tokio::sync::Semaphore::new(parallelism.max(1)));
    let mut set = tokio::task::JoinSet::new();
    for (i, req) in requests.into_iter().enumerate() {
        let client = conn.client.clone();
        let sem = sem.clone();
        let stats = stats.clone();
        set.spawn(async move {
            let _permit = sem.acquire_owned().await.expect("semaphore open");
            stats.count(1);
            let result = fetch(client, &req).await;
            (
                i,
                Read {
                    request: req,
                    result,
                },
            )
        });
    }
    let mut out: Vec<(usize, Read)> = Vec::new();
    while let Some(joined) = set.join_next().await {
        let (i, read) = joined.map_err(|e| ClusterError {
            kind: ErrorKind::Transport,
            message: format!("a read task failed: {e}"),
        })?;
        if let Err(e) = &read.result {
            if !matches!(e.kind, ErrorKind::Auth | ErrorKind::NotFound) {
                set.abort_all();
                return Err(ClusterError {
                    kind: e.kind,
                    message: format!("reading {}: {}", read.request.describe(), e.message),
                });
            }
        }
        out.push((i, read));
    }
    out.sort_by_key(|(i, _)| *i);
    Ok(out.into_iter().map(|(_, r)| r).collect())
}

async fn fetch(client: kube::Client, req: &Request) -> Result<Vec<J>, ClusterError> {
    let ar = req.rt.api_resource();
    let api: Api<DynamicObject> = match &req.namespace {
        Some(ns) => Api::namespaced_with(client, ns, &ar),
        None => Api::all_with(client, &ar),
    };
    let objects = match &req.name {
        Some(n) => match api.get_opt(n).await.map_err(classify)? {
            Some(o) => vec![o],
            None => Vec::new(),
        },
        None => {
            let mut lp = ListParams::default();
            if let Some(s) = &req.label_selector {
                lp = lp.labels(s);
            }
            api.list(&lp).await.map_err(classify)?.items
        }
    };
    Ok(objects.iter().map(|o| object_json(o, &req.rt)).collect())
}

/// The object as JSON with apiVersion and kind (list items may omit them) and without
/// `metadata.managedFields` (bookkeeping no rule reads).
fn object_json(o: &DynamicObject, rt: &ResourceType) -> J {
    let mut j = serde_json::to_value(o).unwrap_or(J::Null);
    if let Some(m) = j.as_object_mut() {
        m.insert("apiVersion".into(), J::from(rt.api_version()));
        m.insert("kind".into(), J::from(rt.kind.clone()));
        if let Some(meta) = m.get_mut("metadata").and_then(J::as_object_mut) {
            meta.remove("managedFields");
        }
    }
    j
}

/// `pp/default/nginx`, `cpp/platform`, `deploy/default/web`, `work/karmada-es-m1/x`.
pub fn object_ref(rt: &ResourceType, obj: &J) -> String {
    let name = obj["metadata"]["name"].as_str().unwrap_or("");
    match obj["metadata"]["namespace"]
        .as_str()
        .filter(|_| rt.namespaced)
    {
        Some(ns) => format!("{}/{ns}/{name}", rt.ref_prefix()),
        None => format!("{}/{name}", rt.ref_prefix()),
    }
}

/// A live object as a document: its source name is the object reference, its text empty, and
/// every node at line 0 (no file position; renderers show the reference and the field path).
pub fn document(rt: &ResourceType, obj: &J) -> Document {
    Document::new(
        Source::new(object_ref(rt, obj), ""),
        0,
        Node::from_json(obj, Span::default()),
    )
}

/// Documents of every object of the reads, in read order.
pub fn documents<'a>(reads: impl IntoIterator<Item = &'a Read>) -> Vec<Document> {
    reads
        .into_iter()
        .flat_map(|r| r.items().iter().map(|o| document(&r.request.rt, o)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn discovered() -> Discovered {
        let mut deploy = ResourceType::new("apps", "v1", "Deployment", "deployments", true);
        deploy.short = vec!["deploy".into()];
        Discovered {
            types: vec![deploy, karmada::pp(), karmada::cpp(), karmada::work()],
            note: None,
        }
    }

    #[test]
    fn resolves_types_like_kubectl() {
        let d = discovered();
        for ty in ["deploy", "deployments", "Deployment", "deployment.apps"] {
            assert_eq!(d.resolve(ty).unwrap().plural, "deployments", "{ty}");
        }
        assert_eq!(d.resolve("pp").unwrap().kind, "PropagationPolicy");
        assert!(d.resolve("widgets").is_err());
        assert_eq!(
            d.for_kind("example.com/v1", "Widget").plural,
            "widgets",
            "unknown kinds get kubectl's guessed plural"
        );
    }

    #[test]
    fn object_references_and_documents() {
        let obj = json!({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
            "metadata": {"name": "nginx", "namespace": "default"}, "spec": {"priority": 3}});
        assert_eq!(object_ref(&karmada::pp(), &obj), "pp/default/nginx");
        let c = json!({"metadata": {"name": "platform"}});
        assert_eq!(object_ref(&karmada::cpp(), &c), "cpp/platform");
        let w = json!({"metadata": {"name": "x", "namespace": "karmada-es-m1"}});
        assert_eq!(object_ref(&karmada::work(), &w), "work/karmada-es-m1/x");
        let doc = document(&karmada::pp(), &obj);
        assert_eq!(doc.source.name, "pp/default/nginx");
        let path = crate::source::FieldPath::parse("spec.priority");
        assert_eq!(doc.root.at(&path).map(Node::to_json), Some(json!(3)));
        assert_eq!(doc.root.locate(&path).start.line, 0);
    }
}
