//! An in-process, Kubernetes-compatible test API server on 127.0.0.1 for live-mode tests.
//!
//! It follows `../shared/karmada/test-apiserver-for-kubectl.md`: `/version`, discovery (legacy
//! and aggregated v2, by Accept), OpenAPI v3 stubs, get/list (label and field selectors,
//! Table), create, update, patch (merge, JSON, apply), delete, one global resourceVersion with
//! 409 Conflict on stale writes, no-op writes that do not bump it, and Status error bodies with
//! the API server's exact messages. Fault injection: 409 storms, 500s, slow answers, 403.
//!
//! Use it from an integration test with `mod support;`.

#![allow(dead_code)] // each test file uses a different part

pub mod http;
pub mod tls;
pub mod tls_v1;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use serde_json::{json, Value as J};

/// A served resource type.
#[derive(Clone, Debug)]
pub struct Resource {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
    pub short: &'static [&'static str],
    /// Custom resources reject strategic merge patches with 415.
    pub crd: bool,
}

const KARMADA_CATEGORY: &[&str] = &["karmada-io"];

pub const RESOURCES: &[Resource] = &[
    Resource {
        group: "policy.karmada.io",
        version: "v1alpha1",
        kind: "PropagationPolicy",
        plural: "propagationpolicies",
        namespaced: true,
        short: &["pp"],
        crd: true,
    },
    Resource {
        group: "policy.karmada.io",
        version: "v1alpha1",
        kind: "ClusterPropagationPolicy",
        plural: "clusterpropagationpolicies",
        namespaced: false,
        short: &["cpp"],
        crd: true,
    },
    Resource {
        group: "policy.karmada.io",
        version: "v1alpha1",
        kind: "OverridePolicy",
        plural: "overridepolicies",
        namespaced: true,
        short: &["op"],
        crd: true,
    },
    Resource {
        group: "policy.karmada.io",
        version: "v1alpha1",
        kind: "ClusterOverridePolicy",
        plural: "clusteroverridepolicies",
        namespaced: false,
        short: &["cop"],
        crd: true,
    },
    Resource {
        group: "work.karmada.io",
        version: "v1alpha2",
        kind: "ResourceBinding",
        plural: "resourcebindings",
        namespaced: true,
        short: &["rb"],
        crd: true,
    },
    Resource {
        group: "work.karmada.io",
        version: "v1alpha2",
        kind: "ClusterResourceBinding",
        plural: "clusterresourcebindings",
        namespaced: false,
        short: &["crb"],
        crd: true,
    },
    Resource {
        group: "work.karmada.io",
        version: "v1alpha1",
        kind: "Work",
        plural: "works",
        namespaced: true,
        short: &["wk"],
        crd: true,
    },
    Resource {
        group: "cluster.karmada.io",
        version: "v1alpha1",
        kind: "Cluster",
        plural: "clusters",
        namespaced: false,
        short: &[],
        crd: true,
    },
    Resource {
        group: "",
        version: "v1",
        kind: "Namespace",
        plural: "namespaces",
        namespaced: false,
        short: &["ns"],
        crd: false,
    },
    Resource {
        group: "",
        version: "v1",
        kind: "ConfigMap",
        plural: "configmaps",
        namespaced: true,
        short: &["cm"],
        crd: false,
    },
    // Resource templates for live explain/lint (issue 7).
    Resource {
        group: "apps",
        version: "v1",
        kind: "Deployment",
        plural: "deployments",
        namespaced: true,
        short: &["deploy"],
        crd: false,
    },
];

fn find_resource(group: &str, version: &str, plural: &str) -> Option<&'static Resource> {
    RESOURCES
        .iter()
        .find(|r| r.group == group && r.version == version && r.plural == plural)
}

fn api_version(r: &Resource) -> String {
    if r.group.is_empty() {
        r.version.to_string()
    } else {
        format!("{}/{}", r.group, r.version)
    }
}

/// `propagationpolicies.policy.karmada.io` (or `configmaps` for core).
fn qualified(r: &Resource) -> String {
    if r.group.is_empty() {
        r.plural.to_string()
    } else {
        format!("{}.{}", r.plural, r.group)
    }
}

/// Faults to inject; each counter is consumed one request at a time.
#[derive(Default)]
pub struct Faults {
    /// Answer this many writes with 409 Conflict (a "409 storm").
    pub conflicts: AtomicU32,
    /// Answer this many requests (any verb, resource paths) with 500.
    pub errors_500: AtomicU32,
    /// Delay every GET of a single object by this many milliseconds (slow answers).
    pub slow_get_ms: AtomicU64,
    /// Delay every request by this many milliseconds.
    pub slow_all_ms: AtomicU64,
    /// Plurals (e.g. `works`) whose list and get answer 403 Forbidden, as read-only RBAC
    /// without that resource would.
    pub forbidden_plurals: Mutex<Vec<String>>,
}

#[derive(Default)]
struct Store {
    rv: u64,
    /// (group, plural, namespace, name) → object.
    objects: BTreeMap<(String, String, String, String), J>,
    uid: u64,
}

pub struct Shared {
    store: Mutex<Store>,
    pub faults: Faults,
    /// Persisted writes (creates, updates, patches, deletes that changed something).
    pub writes: AtomicU64,
    /// Every request as `METHOD path?query`.
    pub log: Mutex<Vec<String>>,
    /// Who a SelfSubjectReview says the caller is; `None`: the API is not served (a server
    /// before Kubernetes 1.28 answers 404).
    pub identity: Mutex<Option<String>>,
}

/// The username the test server's SelfSubjectReview answers with by default (not the
/// kubeconfig's user entry name, `admin`).
pub const IDENTITY: &str = "jane@example.com";

pub struct TestServer {
    pub addr: SocketAddr,
    pub shared: Arc<Shared>,
}

impl TestServer {
    /// Starts the server on 127.0.0.1 (a free port) in a background thread.
    pub fn start() -> TestServer {
        let shared = Arc::new(Shared {
            store: Mutex::new(Store {
                rv: 100,
                ..Store::default()
            }),
            faults: Faults::default(),
            writes: AtomicU64::new(0),
            log: Mutex::new(Vec::new()),
            identity: Mutex::new(Some(IDENTITY.to_string())),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("addr");
        let app = Router::new().fallback(handle).with_state(shared.clone());
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let l = tokio::net::TcpListener::from_std(listener).expect("listener");
                axum::serve(l, app).await.expect("serve");
            });
        });
        TestServer { addr, shared }
    }

    /// A started server holding every object of the manifest file `path` (a control plane
    /// written as YAML under testdata).
    pub fn seeded_from(path: &Path) -> TestServer {
        let s = TestServer::start();
        let text = std::fs::read_to_string(path).unwrap();
        let loaded = karmada_policy::source::load(karmada_policy::source::Source::new(
            path.display().to_string(),
            text,
        ));
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        for d in &loaded.documents {
            s.insert(d.root.to_json());
        }
        s
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Writes a kubeconfig for this server (context `karmada`, namespace `default`, a token
    /// that tests check is never printed) and returns its path.
    pub fn kubeconfig(&self, dir: &Path) -> PathBuf {
        let path = dir.join("kubeconfig");
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: karmada\nclusters:\n- name: test\n  cluster:\n    server: {}\ncontexts:\n- name: karmada\n  context:\n    cluster: test\n    user: admin\n    namespace: default\n- name: other\n  context:\n    cluster: test\n    user: admin\n    namespace: other\nusers:\n- name: admin\n  user:\n    token: {}\n",
            self.url(),
            SECRET_TOKEN
        );
        std::fs::write(&path, text).expect("write kubeconfig");
        path
    }

    /// Stores an object as a create would (uid, resourceVersion, generation, timestamps).
    pub fn insert(&self, obj: J) -> J {
        let (r, ns, name) = identify(&obj).expect("object with a served apiVersion/kind");
        let mut store = self.shared.store.lock().unwrap();
        store.create(r, &ns, &name, obj)
    }

    /// The stored object, if any.
    pub fn get(&self, kind: &str, namespace: &str, name: &str) -> Option<J> {
        let r = RESOURCES.iter().find(|r| r.kind == kind)?;
        let store = self.shared.store.lock().unwrap();
        store
            .objects
            .get(&(
                r.group.into(),
                r.plural.into(),
                namespace.into(),
                name.into(),
            ))
            .cloned()
    }

    /// Changes a stored object in place as a controller would (bumps the resourceVersion).
    pub fn modify(&self, kind: &str, namespace: &str, name: &str, f: impl FnOnce(&mut J)) {
        let r = RESOURCES
            .iter()
            .find(|r| r.kind == kind)
            .expect("served kind");
        let mut store = self.shared.store.lock().unwrap();
        let key = Store::key(r, namespace, name);
        let old = store.objects.get(&key).cloned().expect("object to modify");
        let mut new = old.clone();
        f(&mut new);
        store.update(r, namespace, name, &old, new);
    }

    pub fn writes(&self) -> u64 {
        self.shared.writes.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<String> {
        self.shared.log.lock().unwrap().clone()
    }
}

/// The bearer token written into test kubeconfigs; output must never contain it.
pub const SECRET_TOKEN: &str = "s3cr3t-t0ken-never-print";

fn identify(obj: &J) -> Option<(&'static Resource, String, String)> {
    let av = obj["apiVersion"].as_str()?;
    let kind = obj["kind"].as_str()?;
    let (group, version) = av.rsplit_once('/').unwrap_or(("", av));
    let r = RESOURCES
        .iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)?;
    let ns = if r.namespaced {
        obj["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_string()
    } else {
        String::new()
    };
    let name = obj["metadata"]["name"].as_str()?.to_string();
    Some((r, ns, name))
}

impl Store {
    fn key(r: &Resource, ns: &str, name: &str) -> (String, String, String, String) {
        (r.group.into(), r.plural.into(), ns.into(), name.into())
    }

    fn create(&mut self, r: &Resource, ns: &str, name: &str, mut obj: J) -> J {
        self.rv += 1;
        self.uid += 1;
        obj["apiVersion"] = J::from(api_version(r));
        obj["kind"] = J::from(r.kind);
        let meta = obj["metadata"].as_object_mut().expect("metadata");
        meta.insert("name".into(), J::from(name));
        if r.namespaced {
            meta.insert("namespace".into(), J::from(ns));
        }
        meta.insert(
            "uid".into(),
            J::from(format!("00000000-0000-0000-0000-{:012}", self.uid)),
        );
        meta.insert("resourceVersion".into(), J::from(self.rv.to_string()));
        meta.insert("generation".into(), J::from(1));
        meta.insert("creationTimestamp".into(), J::from("2026-11-29T00:00:00Z"));
        self.objects.insert(Self::key(r, ns, name), obj.clone());
        obj
    }

    /// Stores `new` over `old`: keeps identity fields, bumps resourceVersion (and generation
    /// when anything outside metadata/status changed); a no-op returns the old object as is.
    fn update(&mut self, r: &Resource, ns: &str, name: &str, old: &J, mut new: J) -> (J, bool) {
        for k in [
            "uid",
            "creationTimestamp",
            "name",
            "namespace",
            "generation",
        ] {
            match old["metadata"].get(k) {
                Some(v) => new["metadata"][k] = v.clone(),
                None => {
                    if let Some(m) = new["metadata"].as_object_mut() {
                        m.remove(k);
                    }
                }
            }
        }
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
        new["apiVersion"] = old["apiVersion"].clone();
        new["kind"] = old["kind"].clone();
        if new == *old {
            return (old.clone(), false);
        }
        let spec_changed = {
            let strip = |o: &J| {
                let mut o = o.clone();
                if let Some(m) = o.as_object_mut() {
                    m.remove("metadata");
                    m.remove("status");
                }
                o
            };
            strip(old) != strip(&new)
        };
        if spec_changed {
            let g = old["metadata"]["generation"].as_i64().unwrap_or(1);
            new["metadata"]["generation"] = J::from(g + 1);
        }
        self.rv += 1;
        new["metadata"]["resourceVersion"] = J::from(self.rv.to_string());
        self.objects.insert(Self::key(r, ns, name), new.clone());
        (new, true)
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP

fn respond(code: StatusCode, content_type: &str, body: String) -> Response {
    Response::builder()
        .status(code)
        .header("Content-Type", content_type)
        .body(Body::from(body))
        .expect("response")
}

fn ok_json(v: &J) -> Response {
    respond(StatusCode::OK, "application/json", v.to_string())
}

fn status_body(code: u16, reason: &str, message: &str, details: J) -> Response {
    let body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "details": details, "code": code});
    respond(
        StatusCode::from_u16(code).expect("code"),
        "application/json",
        body.to_string(),
    )
}

fn not_found(r: &Resource, name: &str) -> Response {
    status_body(
        404,
        "NotFound",
        &format!("{} \"{name}\" not found", qualified(r)),
        json!({"name": name, "group": r.group, "kind": r.plural}),
    )
}

fn conflict(r: &Resource, name: &str) -> Response {
    status_body(
        409,
        "Conflict",
        &format!(
            "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
            qualified(r)
        ),
        json!({"name": name, "group": r.group, "kind": r.plural}),
    )
}

fn unknown_path() -> Response {
    status_body(
        404,
        "NotFound",
        "the server could not find the requested resource",
        json!({}),
    )
}

fn query_map(q: Option<&str>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for pair in q.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        out.insert(decode(k), decode(v));
    }
    out
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let h = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(h, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

async fn handle(
    State(s): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    s.log.lock().unwrap().push(format!(
        "{method} {}",
        uri.path_and_query().map_or("", |p| p.as_str())
    ));
    let delay = s.faults.slow_all_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let path = uri.path().trim_end_matches('/');
    let query = query_map(uri.query());
    let accept = headers
        .get("accept")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let segs: Vec<&str> = path.split('/').filter(|x| !x.is_empty()).collect();
    match segs.as_slice() {
        ["version"] => ok_json(
            &json!({"major": "1", "minor": "32", "gitVersion": "v1.32.4",
            "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.23.0", "compiler": "gc",
            "platform": "linux/amd64"}),
        ),
        ["api"] => discovery_root(true, &accept),
        ["apis"] => discovery_root(false, &accept),
        ["api", "v1"] => resource_list("", "v1"),
        ["apis", g, v] => resource_list(g, v),
        ["apis", g] => {
            let versions = group_versions(g);
            if versions.is_empty() {
                return unknown_path();
            }
            ok_json(&json!({"kind": "APIGroup", "apiVersion": "v1", "name": g,
                "versions": versions.iter().map(|v| json!({"groupVersion": format!("{g}/{v}"), "version": v})).collect::<Vec<_>>(),
                "preferredVersion": {"groupVersion": format!("{g}/{}", versions[0]), "version": versions[0]}}))
        }
        ["apis", "authentication.k8s.io", "v1", "selfsubjectreviews"] if method == Method::POST => {
            self_subject_review(&s, &body)
        }
        ["openapi", "v3"] => openapi_root(),
        ["openapi", "v3", rest @ ..] => openapi_gv(rest),
        ["api", "v1", rest @ ..] => {
            resource(
                &s, &method, "", "v1", rest, &query, &accept, &headers, &body,
            )
            .await
        }
        ["apis", g, v, rest @ ..] => {
            resource(&s, &method, g, v, rest, &query, &accept, &headers, &body).await
        }
        _ => unknown_path(),
    }
}

/// `kubectl auth whoami`'s request: the review back with `status.userInfo` filled in.
fn self_subject_review(s: &Shared, body: &Bytes) -> Response {
    let Some(username) = s.identity.lock().unwrap().clone() else {
        return unknown_path();
    };
    let mut review: J = serde_json::from_slice(body).unwrap_or_else(|_| json!({}));
    if review["kind"] != "SelfSubjectReview" {
        return status_body(400, "BadRequest", "expected a SelfSubjectReview", json!({}));
    }
    review["metadata"] = json!({"creationTimestamp": null});
    review["status"] = json!({"userInfo": {"username": username,
        "groups": ["system:masters", "system:authenticated"]}});
    respond(StatusCode::CREATED, "application/json", review.to_string())
}

fn group_versions(g: &str) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for r in RESOURCES.iter().filter(|r| r.group == g) {
        if !v.contains(&r.version) {
            v.push(r.version);
        }
    }
    // The storage version first (work.karmada.io: v1alpha2).
    v.sort_by(|a, b| b.cmp(a));
    v
}

fn groups() -> Vec<&'static str> {
    let mut g: Vec<&'static str> = Vec::new();
    for r in RESOURCES.iter().filter(|r| !r.group.is_empty()) {
        if !g.contains(&r.group) {
            g.push(r.group);
        }
    }
    g
}

const VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

fn discovery_root(core: bool, accept: &str) -> Response {
    let aggregated = accept.contains("as=APIGroupDiscoveryList") && accept.contains("v=v2;");
    if aggregated {
        let gs: Vec<&str> = if core { vec![""] } else { groups() };
        let items: Vec<J> = gs
            .iter()
            .map(|g| {
                let versions: Vec<J> = group_versions(g)
                    .iter()
                    .map(|v| {
                        let resources: Vec<J> = RESOURCES
                            .iter()
                            .filter(|r| r.group == *g && r.version == *v)
                            .map(|r| {
                                let mut o = json!({"resource": r.plural,
                                    "responseKind": {"group": r.group, "version": r.version, "kind": r.kind},
                                    "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
                                    "singularResource": r.kind.to_ascii_lowercase(),
                                    "verbs": VERBS, "shortNames": r.short});
                                if r.crd {
                                    o["categories"] = json!(KARMADA_CATEGORY);
                                }
                                o
                            })
                            .collect();
                        json!({"version": v, "freshness": "Current", "resources": resources})
                    })
                    .collect();
                json!({"metadata": {"name": g}, "versions": versions})
            })
            .collect();
        let body = json!({"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
            "metadata": {}, "items": items});
        return respond(
            StatusCode::OK,
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
            body.to_string(),
        );
    }
    if core {
        return ok_json(&json!({"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}));
    }
    let gs: Vec<J> = groups()
        .iter()
        .map(|g| {
            let vs = group_versions(g);
            json!({"name": g,
                "versions": vs.iter().map(|v| json!({"groupVersion": format!("{g}/{v}"), "version": v})).collect::<Vec<_>>(),
                "preferredVersion": {"groupVersion": format!("{g}/{}", vs[0]), "version": vs[0]}})
        })
        .collect();
    ok_json(&json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": gs}))
}

fn resource_list(g: &str, v: &str) -> Response {
    let rs: Vec<J> = RESOURCES
        .iter()
        .filter(|r| r.group == g && r.version == v)
        .map(|r| {
            json!({"name": r.plural, "singularName": r.kind.to_ascii_lowercase(),
                "namespaced": r.namespaced, "kind": r.kind, "verbs": VERBS, "shortNames": r.short})
        })
        .collect();
    if rs.is_empty() {
        return unknown_path();
    }
    let gv = if g.is_empty() {
        v.to_string()
    } else {
        format!("{g}/{v}")
    };
    ok_json(
        &json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": rs}),
    )
}

fn openapi_root() -> Response {
    let mut paths = serde_json::Map::new();
    paths.insert(
        "api/v1".into(),
        json!({"serverRelativeURL": "/openapi/v3/api/v1?hash=0"}),
    );
    for g in groups() {
        for v in group_versions(g) {
            paths.insert(
                format!("apis/{g}/{v}"),
                json!({"serverRelativeURL": format!("/openapi/v3/apis/{g}/{v}?hash=0")}),
            );
        }
    }
    ok_json(&json!({"paths": paths}))
}

fn openapi_gv(rest: &[&str]) -> Response {
    let (g, v) = match rest {
        ["api", v] => ("", *v),
        ["apis", g, v] => (*g, *v),
        _ => return unknown_path(),
    };
    let mut paths = serde_json::Map::new();
    for r in RESOURCES.iter().filter(|r| r.group == g && r.version == v) {
        paths.insert(
            format!("/{}", r.plural),
            json!({"patch": {"x-kubernetes-group-version-kind": {"group": r.group, "version": r.version, "kind": r.kind},
                "parameters": [{"name": "fieldValidation", "in": "query"}]}}),
        );
    }
    ok_json(&json!({"openapi": "3.0.0", "paths": paths}))
}

// --- resource endpoints

fn labels_match(obj: &J, selector: &str) -> bool {
    let labels: karmada_policy::model::StringMap = obj["metadata"]["labels"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    // The server's own parser lives in the crate under test; reuse it (the kubectl fidelity
    // test checks that real clients agree with what it accepts).
    karmada_policy::model::label_selector::Selector::parse(selector)
        .map(|s| s.matches(&labels))
        .unwrap_or(false)
}

fn fields_match(obj: &J, selector: &str) -> bool {
    selector.split(',').filter(|p| !p.is_empty()).all(|p| {
        let (k, v, neg) = match p.split_once("!=") {
            Some((k, v)) => (k, v, true),
            None => match p.split_once("==").or_else(|| p.split_once('=')) {
                Some((k, v)) => (k, v, false),
                None => return false,
            },
        };
        let actual = match k {
            "metadata.name" => obj["metadata"]["name"].as_str().unwrap_or(""),
            "metadata.namespace" => obj["metadata"]["namespace"].as_str().unwrap_or(""),
            _ => return false,
        };
        (actual == v) != neg
    })
}

fn age(_obj: &J) -> &'static str {
    "1d"
}

fn table(r: &Resource, items: &[J], rv: &str) -> Response {
    let mut cols = vec![
        json!({"name": "Name", "type": "string", "format": "name", "description": "Name", "priority": 0}),
    ];
    let is_policy = r.plural.ends_with("propagationpolicies");
    if is_policy {
        cols.push(json!({"name": "CONFLICT-RESOLUTION", "type": "string", "format": "", "description": "", "priority": 0}));
        cols.push(json!({"name": "PRIORITY", "type": "integer", "format": "", "description": "", "priority": 0}));
    }
    cols.push(
        json!({"name": "Age", "type": "date", "format": "", "description": "", "priority": 0}),
    );
    let rows: Vec<J> = items
        .iter()
        .map(|o| {
            let mut cells = vec![o["metadata"]["name"].clone()];
            if is_policy {
                cells.push(o["spec"]["conflictResolution"].clone());
                cells.push(o["spec"]["priority"].clone());
            }
            cells.push(J::from(age(o)));
            json!({"cells": cells, "object": {"kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1", "metadata": o["metadata"]}})
        })
        .collect();
    let body = json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": rv}, "columnDefinitions": cols, "rows": rows});
    respond(
        StatusCode::OK,
        "application/json;as=Table;v=v1;g=meta.k8s.io",
        body.to_string(),
    )
}

#[allow(clippy::too_many_arguments)]
async fn resource(
    s: &Shared,
    method: &Method,
    group: &str,
    version: &str,
    rest: &[&str],
    query: &BTreeMap<String, String>,
    accept: &str,
    headers: &HeaderMap,
    body: &Bytes,
) -> Response {
    // [namespaces/{ns}/]{plural}[/{name}[/{sub}]]; /api/v1/namespaces/{name} is a Namespace.
    let (ns, rest): (Option<&str>, &[&str]) = match rest {
        ["namespaces", ns, tail @ ..] if !tail.is_empty() => (Some(*ns), tail),
        _ => (None, rest),
    };
    let (plural, name, sub) = match rest {
        [p] => (*p, None, None),
        [p, n] => (*p, Some(*n), None),
        [p, n, sub] => (*p, Some(*n), Some(*sub)),
        _ => return unknown_path(),
    };
    let Some(r) = find_resource(group, version, plural) else {
        return unknown_path();
    };
    if sub.is_some_and(|x| x != "status") {
        return unknown_path();
    }
    if r.namespaced != ns.is_some() && !(r.namespaced && ns.is_none() && name.is_none()) {
        return unknown_path();
    }
    let ns_str = ns.unwrap_or("");
    // Simulated authorization: namespace `forbidden`, names starting with `forbidden`, and
    // the plurals listed in `Faults::forbidden_plurals`.
    let plural_forbidden = s
        .faults
        .forbidden_plurals
        .lock()
        .unwrap()
        .iter()
        .any(|p| p == r.plural);
    if plural_forbidden || ns_str == "forbidden" || name.is_some_and(|n| n.starts_with("forbidden"))
    {
        let verb = match (method.as_str(), name) {
            ("GET", None) => "list",
            ("GET", _) => "get",
            ("PATCH", _) => "patch",
            ("PUT", _) => "update",
            ("POST", _) => "create",
            ("DELETE", _) => "delete",
            _ => "access",
        };
        let scope = if ns_str.is_empty() {
            "at the cluster scope".to_string()
        } else {
            format!("in the namespace \"{ns_str}\"")
        };
        let subject = match name {
            Some(n) => format!("{} \"{n}\"", qualified(r)),
            None => qualified(r),
        };
        return status_body(
            403,
            "Forbidden",
            &format!(
                "{subject} is forbidden: User \"system:anonymous\" cannot {verb} resource \"{}\" in API group \"{}\" {scope}",
                r.plural, r.group
            ),
            json!({"name": name.unwrap_or(""), "group": r.group, "kind": r.plural}),
        );
    }
    if s.faults.errors_500.load(Ordering::SeqCst) > 0 {
        s.faults.errors_500.fetch_sub(1, Ordering::SeqCst);
        return status_body(
            500,
            "InternalError",
            "Internal error occurred: injected fault",
            json!({}),
        );
    }
    let dry_run = query.get("dryRun").is_some_and(|v| v == "All");
    let content_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    match (method.as_str(), name) {
        ("GET", None) => {
            if query.get("watch").is_some_and(|w| w == "true" || w == "1") {
                return watch(s, r, ns, query).await;
            }
            let store = s.store.lock().unwrap();
            let items: Vec<J> = store
                .objects
                .iter()
                .filter(|((g, p, n, _), _)| {
                    g == r.group && p == r.plural && (ns.is_none() || n == ns_str)
                })
                .map(|(_, o)| o.clone())
                .filter(|o| {
                    query
                        .get("labelSelector")
                        .is_none_or(|sel| labels_match(o, sel))
                })
                .filter(|o| {
                    query
                        .get("fieldSelector")
                        .is_none_or(|sel| fields_match(o, sel))
                })
                .collect();
            let rv = store.rv.to_string();
            drop(store);
            if accept.contains("as=Table") {
                return table(r, &items, &rv);
            }
            ok_json(
                &json!({"kind": format!("{}List", r.kind), "apiVersion": api_version(r),
                "metadata": {"resourceVersion": rv}, "items": items}),
            )
        }
        ("GET", Some(n)) => {
            let slow = s.faults.slow_get_ms.load(Ordering::SeqCst);
            let obj = s
                .store
                .lock()
                .unwrap()
                .objects
                .get(&Store::key(r, ns_str, n))
                .cloned();
            if slow > 0 {
                tokio::time::sleep(Duration::from_millis(slow)).await;
            }
            match obj {
                Some(o) if accept.contains("as=Table") => table(r, &[o], "0"),
                Some(o) => ok_json(&o),
                None => not_found(r, n),
            }
        }
        ("POST", None) => {
            let Ok(mut obj) = serde_json::from_slice::<J>(body) else {
                return status_body(
                    400,
                    "BadRequest",
                    "the body of the request was not valid JSON",
                    json!({}),
                );
            };
            let Some(n) = obj["metadata"]["name"].as_str().map(str::to_string) else {
                return status_body(422, "Invalid", &format!("{}.{} \"\" is invalid: metadata.name: Required value: name or generateName is required", r.kind, r.group), json!({"kind": r.kind, "group": r.group}));
            };
            if r.namespaced {
                obj["metadata"]["namespace"] = J::from(ns_str);
            }
            if take_conflict(s) {
                return conflict(r, &n);
            }
            let mut store = s.store.lock().unwrap();
            if store.objects.contains_key(&Store::key(r, ns_str, &n)) {
                return status_body(
                    409,
                    "AlreadyExists",
                    &format!("{} \"{n}\" already exists", qualified(r)),
                    json!({"name": n, "group": r.group, "kind": r.plural}),
                );
            }
            let created = if dry_run {
                obj
            } else {
                s.writes.fetch_add(1, Ordering::SeqCst);
                store.create(r, ns_str, &n, obj)
            };
            respond(StatusCode::CREATED, "application/json", created.to_string())
        }
        ("PUT", Some(n)) => {
            let Ok(obj) = serde_json::from_slice::<J>(body) else {
                return status_body(
                    400,
                    "BadRequest",
                    "the body of the request was not valid JSON",
                    json!({}),
                );
            };
            if take_conflict(s) {
                return conflict(r, n);
            }
            let mut store = s.store.lock().unwrap();
            let Some(old) = store.objects.get(&Store::key(r, ns_str, n)).cloned() else {
                return not_found(r, n);
            };
            let rv = obj["metadata"]["resourceVersion"].as_str().unwrap_or("");
            if rv.is_empty() && r.crd {
                return status_body(422, "Invalid", &format!("{}.{} \"{n}\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update", r.kind, r.group),
                    json!({"name": n, "group": r.group, "kind": r.kind}));
            }
            if !rv.is_empty() && rv != old["metadata"]["resourceVersion"].as_str().unwrap_or("") {
                return conflict(r, n);
            }
            let new = if sub == Some("status") {
                let mut x = old.clone();
                x["status"] = obj["status"].clone();
                x
            } else {
                let mut x = obj;
                x["status"] = old["status"].clone();
                if x["status"].is_null() {
                    x.as_object_mut().map(|m| m.remove("status"));
                }
                x
            };
            write_back(s, &mut store, r, ns_str, n, &old, new, dry_run)
        }
        ("PATCH", Some(n)) => {
            let ct = content_type
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            if ct == "application/strategic-merge-patch+json" && r.crd {
                return status_body(415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
                    json!({}));
            }
            if take_conflict(s) {
                return conflict(r, n);
            }
            let mut store = s.store.lock().unwrap();
            let old = store.objects.get(&Store::key(r, ns_str, n)).cloned();
            let mut doc = match (&old, ct.as_str()) {
                (Some(o), _) => o.clone(),
                (None, "application/apply-patch+yaml") => J::Null,
                (None, _) => return not_found(r, n),
            };
            match ct.as_str() {
                "application/merge-patch+json" | "application/strategic-merge-patch+json" => {
                    let Ok(p) = serde_json::from_slice::<J>(body) else {
                        return status_body(
                            400,
                            "BadRequest",
                            "the body of the request was not valid JSON",
                            json!({}),
                        );
                    };
                    json_patch::merge(&mut doc, &p);
                }
                "application/json-patch+json" => {
                    let Ok(p) = serde_json::from_slice::<json_patch::Patch>(body) else {
                        return status_body(
                            400,
                            "BadRequest",
                            "the body of the request was not a valid JSON patch",
                            json!({}),
                        );
                    };
                    if json_patch::patch(&mut doc, &p.0).is_err() {
                        return status_body(
                            422,
                            "Invalid",
                            "the server rejected our request due to an error in our request",
                            json!({}),
                        );
                    }
                }
                "application/apply-patch+yaml" => {
                    if !query.contains_key("fieldManager") {
                        return status_body(422, "Invalid", "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch", json!({}));
                    }
                    // Approximation of server-side apply: the applied configuration is merged
                    // over the live object (no per-manager field ownership or conflicts).
                    let Ok(p) = serde_json::from_slice::<J>(body) else {
                        return status_body(
                            400,
                            "BadRequest",
                            "the apply body must be JSON",
                            json!({}),
                        );
                    };
                    if old.is_none() {
                        let mut obj = p;
                        if r.namespaced {
                            obj["metadata"]["namespace"] = J::from(ns_str);
                        }
                        let created = if dry_run {
                            obj
                        } else {
                            s.writes.fetch_add(1, Ordering::SeqCst);
                            store.create(r, ns_str, n, obj)
                        };
                        return respond(
                            StatusCode::CREATED,
                            "application/json",
                            created.to_string(),
                        );
                    }
                    json_patch::merge(&mut doc, &p);
                }
                _ => {
                    return status_body(415, "UnsupportedMediaType", &format!("the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (got {ct:?})"), json!({}));
                }
            }
            let old = old.expect("checked above");
            let rv = doc["metadata"]["resourceVersion"].as_str().unwrap_or("");
            if !rv.is_empty() && rv != old["metadata"]["resourceVersion"].as_str().unwrap_or("") {
                return conflict(r, n);
            }
            write_back(s, &mut store, r, ns_str, n, &old, doc, dry_run)
        }
        ("DELETE", Some(n)) => {
            if take_conflict(s) {
                return conflict(r, n);
            }
            let mut store = s.store.lock().unwrap();
            let key = Store::key(r, ns_str, n);
            let Some(old) = store.objects.get(&key).cloned() else {
                return not_found(r, n);
            };
            if !dry_run {
                store.objects.remove(&key);
                store.rv += 1;
                s.writes.fetch_add(1, Ordering::SeqCst);
            }
            ok_json(&old)
        }
        _ => status_body(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
            json!({}),
        ),
    }
}

fn take_conflict(s: &Shared) -> bool {
    s.faults
        .conflicts
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| c.checked_sub(1))
        .is_ok()
}

#[allow(clippy::too_many_arguments)]
fn write_back(
    s: &Shared,
    store: &mut Store,
    r: &Resource,
    ns: &str,
    n: &str,
    old: &J,
    new: J,
    dry_run: bool,
) -> Response {
    if dry_run {
        let mut x = new;
        x["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"].clone();
        return ok_json(&x);
    }
    let (stored, changed) = store.update(r, ns, n, old, new);
    if changed {
        s.writes.fetch_add(1, Ordering::SeqCst);
    }
    ok_json(&stored)
}

/// A minimal watch: the current objects newer than `resourceVersion` as ADDED events, then a
/// BOOKMARK, then the stream ends (clients re-list or re-watch).
async fn watch(
    s: &Shared,
    r: &Resource,
    ns: Option<&str>,
    query: &BTreeMap<String, String>,
) -> Response {
    let since: u64 = query
        .get("resourceVersion")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let store = s.store.lock().unwrap();
    let mut lines = String::new();
    for ((g, p, n, _), o) in &store.objects {
        if g != r.group || p != r.plural || ns.is_some_and(|x| x != n) {
            continue;
        }
        let orv: u64 = o["metadata"]["resourceVersion"]
            .as_str()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        if orv > since {
            lines.push_str(&json!({"type": "ADDED", "object": o}).to_string());
            lines.push('\n');
        }
    }
    lines.push_str(
        &json!({"type": "BOOKMARK", "object": {"kind": r.kind, "apiVersion": api_version(r),
            "metadata": {"resourceVersion": store.rv.to_string()}}})
        .to_string(),
    );
    lines.push('\n');
    respond(StatusCode::OK, "application/json", lines)
}

// ---------------------------------------------------------------------------------------------
// Fixtures

/// A PropagationPolicy as Karmada stores it (permanent-id label, finalizer).
pub fn pp(namespace: &str, name: &str, spec: J) -> J {
    json!({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": namespace,
            "labels": {"propagationpolicy.karmada.io/permanent-id": format!("id-{namespace}-{name}")},
            "finalizers": ["karmada.io/propagation-policy-controller"]},
        "spec": spec})
}

pub fn cpp(name: &str, spec: J) -> J {
    json!({"apiVersion": "policy.karmada.io/v1alpha1", "kind": "ClusterPropagationPolicy",
        "metadata": {"name": name,
            "labels": {"clusterpropagationpolicy.karmada.io/permanent-id": format!("id-{name}")}},
        "spec": spec})
}

pub fn cluster(name: &str, ready: bool) -> J {
    json!({"apiVersion": "cluster.karmada.io/v1alpha1", "kind": "Cluster",
        "metadata": {"name": name},
        "spec": {"syncMode": "Push"},
        "status": {"conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]}})
}

pub fn rb(namespace: &str, name: &str, policy_id: &str, clusters: &[&str]) -> J {
    json!({"apiVersion": "work.karmada.io/v1alpha2", "kind": "ResourceBinding",
        "metadata": {"name": name, "namespace": namespace,
            "labels": {"propagationpolicy.karmada.io/permanent-id": policy_id}},
        "spec": {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": namespace, "name": name},
            "clusters": clusters.iter().map(|c| json!({"name": c})).collect::<Vec<_>>()}})
}

/// A Work in `karmada-es-<cluster>` for the binding with permanent id `rb_id`, with its
/// `Dispatching` condition.
pub fn work(cluster: &str, name: &str, rb_id: &str, status: &str, reason: &str) -> J {
    json!({"apiVersion": "work.karmada.io/v1alpha1", "kind": "Work",
        "metadata": {"name": name, "namespace": format!("karmada-es-{cluster}"),
            "labels": {"resourcebinding.karmada.io/permanent-id": rb_id}},
        "spec": {"workload": {"manifests": []}},
        "status": {"conditions": [{"type": "Dispatching", "status": status, "reason": reason,
            "message": "", "lastTransitionTime": "2026-11-29T00:00:00Z"}]}})
}
