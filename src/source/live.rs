//! The live control plane as a source: discovery (to resolve `TYPE` as kubectl does), then one
//! list call per kind with bounded parallelism, turning each object into a [`Document`] whose
//! source name is an object reference (`pp/default/nginx`), so findings point at an object and a
//! field path instead of a file line.
//!
//! Read-only: only `get` and `list` are ever sent, through [`crate::kube`]. A kind the
//! credentials may not read (403) or the server does not serve (404) degrades to a note; any
//! other failure ends the read.

use std::sync::Arc;

use serde_json::Value as J;

use super::document::{Document, Node, Source, Span};
pub use crate::kube::discovery::{discover, Discovered, ResourceType, Stats};
use crate::kube::{Conn, ErrorKind, KubeError};

/// The Karmada kinds live mode reads, as served types (from the one table, [`crate::kube::kinds`]).
pub mod karmada {
    use super::ResourceType;
    use crate::kube::kinds;

    pub fn pp() -> ResourceType {
        ResourceType::karmada(&kinds::PROPAGATION_POLICY)
    }
    pub fn cpp() -> ResourceType {
        ResourceType::karmada(&kinds::CLUSTER_PROPAGATION_POLICY)
    }
    pub fn op() -> ResourceType {
        ResourceType::karmada(&kinds::OVERRIDE_POLICY)
    }
    pub fn cop() -> ResourceType {
        ResourceType::karmada(&kinds::CLUSTER_OVERRIDE_POLICY)
    }
    pub fn rb() -> ResourceType {
        ResourceType::karmada(&kinds::RESOURCE_BINDING)
    }
    pub fn crb() -> ResourceType {
        ResourceType::karmada(&kinds::CLUSTER_RESOURCE_BINDING)
    }
    pub fn work() -> ResourceType {
        ResourceType::karmada(&kinds::WORK)
    }
    pub fn cluster() -> ResourceType {
        ResourceType::karmada(&kinds::CLUSTER)
    }

    /// What decides where templates go and what each cluster receives: the policies (claims
    /// first: PropagationPolicy, ClusterPropagationPolicy), the overrides, the bindings (where
    /// each template is now) and the Clusters.
    pub fn placement_state() -> [ResourceType; 7] {
        [pp(), cpp(), op(), cop(), rb(), crb(), cluster()]
    }
}

/// Why the live source could not read what it needs.
#[derive(Clone, Debug, thiserror::Error)]
pub enum ReadError {
    /// One read failed with something other than 403/404: the result would be wrong.
    #[error("reading {what}: {}", source.server_message())]
    Read {
        what: String,
        #[source]
        source: KubeError,
    },
    #[error("a read task failed: {0}")]
    Task(String),
}

impl ReadError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            ReadError::Read { source, .. } => source.kind(),
            ReadError::Task(_) => ErrorKind::Transport,
        }
    }
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
    pub result: Result<Vec<J>, KubeError>,
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
        let what = match e.kind() {
            ErrorKind::Auth => "not readable with these credentials",
            ErrorKind::NotFound => "not served by this control plane",
            _ => "not read",
        };
        Some(format!(
            "{} {what} ({}); the result leaves them out",
            self.request.describe(),
            e.server_message()
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
) -> Result<Vec<Read>, ReadError> {
    let sem = Arc::new(tokio::sync::Semaphore::new(parallelism.max(1)));
    let mut set = tokio::task::JoinSet::new();
    for (i, req) in requests.into_iter().enumerate() {
        let conn = conn.clone();
        let sem = sem.clone();
        let stats = stats.clone();
        set.spawn(async move {
            let _permit = sem.acquire_owned().await.expect("semaphore open");
            stats.count(1);
            let result = fetch(&conn, &req).await;
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
        let (i, read) = joined.map_err(|e| ReadError::Task(e.to_string()))?;
        if let Err(e) = &read.result {
            if !matches!(e.kind(), ErrorKind::Auth | ErrorKind::NotFound) {
                set.abort_all();
                return Err(ReadError::Read {
                    what: read.request.describe(),
                    source: e.clone(),
                });
            }
        }
        out.push((i, read));
    }
    out.sort_by_key(|(i, _)| *i);
    Ok(out.into_iter().map(|(_, r)| r).collect())
}

async fn fetch(conn: &Conn, req: &Request) -> Result<Vec<J>, KubeError> {
    let ns = req.namespace.as_deref();
    let mut objects = match &req.name {
        Some(n) => conn.get(&req.rt, ns, n).await?.into_iter().collect(),
        None => {
            conn.list(&req.rt, ns, req.label_selector.as_deref())
                .await?
        }
    };
    objects.iter_mut().for_each(drop_managed_fields);
    Ok(objects)
}

/// `metadata.managedFields` is bookkeeping no rule reads.
fn drop_managed_fields(o: &mut J) {
    if let Some(meta) = o.get_mut("metadata").and_then(J::as_object_mut) {
        meta.remove("managedFields");
    }
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
