//! A connected, read-only session on the control plane for `explain`, `preempt-check` and
//! `lint --live`: the runtime, the client, discovery, the reads ([`super::live::read_all`])
//! with their notes and request counts; and the reads around one resource template that
//! `explain` needs ([`TemplateReads`]; around a policy: [`super::policy_reads`]).

use std::sync::Arc;

use serde_json::Value as J;

use super::live::{self, karmada, Discovered, Read, Request, ResourceType, Stats};
use super::Document;
use crate::kube::kinds::{CRB_ID_LABEL, RB_ID_LABEL};
use crate::kube::scope::group_of;
use crate::kube::{self, Conn, ConnectOptions, KubeError};

/// Why a live session could not read what it needs.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot start the runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The kubeconfig or the connection (an API failure).
    #[error("{0}")]
    Connect(#[source] KubeError),
    /// A read failed (an API failure); `server` is the API server's address.
    #[error("{source} ({server})")]
    Read {
        server: String,
        #[source]
        source: live::ReadError,
    },
    /// The template `explain` asks about could not be read (an API failure).
    #[error("cannot read {what}: {message}")]
    Template { what: String, message: String },
    /// The policy `explain pp/NAME` asks about could not be read (an API failure).
    #[error("cannot read {what}: {message}")]
    Policy { what: String, message: String },
    /// The template (or policy) does not exist (a usage error).
    #[error("{0}")]
    NotFound(String),
    /// TYPE names no served kind, or a Karmada kind rather than a template (a usage error).
    #[error("{0}")]
    Type(String),
}

impl SessionError {
    /// Whether the control plane failed us (exit 3), as opposed to a missing template.
    pub fn is_api(&self) -> bool {
        !matches!(
            self,
            SessionError::Runtime(_) | SessionError::NotFound(_) | SessionError::Type(_)
        )
    }
}

/// A connected reader: the runtime, the client, discovery and request counts.
pub struct Session {
    rt: tokio::runtime::Runtime,
    conn: Conn,
    pub stats: Arc<Stats>,
    pub discovered: Discovered,
    concurrency: usize,
    /// Degraded reads and discovery problems, for the output.
    pub notes: Vec<String>,
}

impl Session {
    /// Connects and runs discovery; `concurrency` bounds the reads at once.
    pub fn connect(opts: &ConnectOptions, concurrency: usize) -> Result<Session, SessionError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(SessionError::Runtime)?;
        let conn = rt
            .block_on(kube::connect(opts))
            .map_err(SessionError::Connect)?;
        let stats = Arc::new(Stats::default());
        let discovered = rt.block_on(live::discover(&conn, &stats));
        let notes = discovered.note.iter().cloned().collect();
        Ok(Session {
            rt,
            conn,
            stats,
            discovered,
            concurrency,
            notes,
        })
    }

    /// Lists every object of each kind, in all namespaces ([`Session::read`]).
    pub fn list_all(
        &mut self,
        kinds: impl IntoIterator<Item = ResourceType>,
    ) -> Result<Vec<Read>, SessionError> {
        self.read(kinds.into_iter().map(|k| Request::list(k, None)).collect())
    }

    /// Runs the reads (bounded parallelism); degraded ones add a note.
    pub fn read(&mut self, requests: Vec<Request>) -> Result<Vec<Read>, SessionError> {
        let reads = self
            .rt
            .block_on(live::read_all(
                &self.conn,
                requests,
                self.concurrency,
                &self.stats,
            ))
            .map_err(|source| SessionError::Read {
                server: self.conn.server.clone(),
                source,
            })?;
        self.notes.extend(reads.iter().filter_map(Read::note));
        Ok(reads)
    }

    /// The kubeconfig context's namespace.
    pub fn namespace(&self) -> &str {
        &self.conn.namespace
    }

    /// `explain TYPE/NAME`'s TYPE, resolved by discovery: a resource template's type.
    pub fn template_type(&self, ty: &str) -> Result<ResourceType, SessionError> {
        let rt = self.discovered.resolve(ty).map_err(SessionError::Type)?;
        if rt.info().is_karmada() {
            return Err(SessionError::Type(format!(
                "{} is a Karmada object, not a resource template: explain takes a template such as deploy/nginx",
                rt.display()
            )));
        }
        Ok(rt)
    }

    /// The template first (an API error or a missing template ends here), then what its
    /// decision and chain read, then its Works by the binding's permanent-id (one list).
    pub fn read_template(
        &mut self,
        target: &TemplateReads<'_>,
    ) -> Result<TemplateRead, SessionError> {
        let mut reads = self.read(target.requests())?;
        let template = target.template(&reads[0])?;
        let binding = target.binding(&reads);
        if let Some(b) = &binding {
            reads.extend(self.read(vec![target.works_request(b)])?);
        }
        Ok(TemplateRead {
            reads,
            template,
            binding,
        })
    }

    /// What `lint --live` and `preempt-check` read of a control plane: the lists of `base`
    /// (whose first two kinds are the PropagationPolicies and the ClusterPropagationPolicies),
    /// then the lists of the template kinds `next` picks from those policies' documents; the
    /// notes said on stderr. Both lists' reads, in order.
    pub fn read_policies_then(
        &mut self,
        base: &[ResourceType],
        next: &dyn Fn(Vec<Document>, &Discovered) -> Vec<ResourceType>,
    ) -> Result<(Vec<Read>, Vec<Read>), SessionError> {
        let reads = self.list_all(base.iter().cloned())?;
        let kinds = next(live::documents(&reads[..2]), &self.discovered);
        let template_reads = self.list_all(kinds)?;
        self.warn_notes();
        Ok((reads, template_reads))
    }

    /// The notes on stderr (formats other than text leave them there).
    pub fn warn_notes(&self) {
        for n in &self.notes {
            crate::util::note(n);
        }
    }
}

/// The read of `rt` among `reads`.
pub fn find<'a>(reads: &'a [Read], rt: &ResourceType) -> Option<&'a Read> {
    reads
        .iter()
        .find(|r| r.request.rt.group == rt.group && r.request.rt.kind == rt.kind)
}

/// Whether every kind was read in full.
pub fn all_ok(reads: &[Read], kinds: &[ResourceType]) -> bool {
    kinds.iter().all(|k| find(reads, k).is_some_and(Read::ok))
}

/// The names of the listed Clusters (none when the list is missing).
pub fn cluster_names(read: Option<&Read>) -> Vec<String> {
    read.map(|r| r.items())
        .unwrap_or(&[])
        .iter()
        .filter_map(|c| c["metadata"]["name"].as_str().map(str::to_string))
        .collect()
}

/// What [`Session::read_template`] read: every read, the template, and its binding if any.
pub struct TemplateRead {
    pub reads: Vec<Read>,
    pub template: J,
    pub binding: Option<J>,
}

/// The template `explain` asks about, and what is read around it.
pub struct TemplateReads<'a> {
    pub name: &'a str,
    pub ns: &'a str,
    pub rt: ResourceType,
}

impl TemplateReads<'_> {
    /// PropagationPolicies (and bindings) of the template's namespace; none for a
    /// cluster-scoped template, which only a ClusterPropagationPolicy can claim.
    pub fn pp_ns(&self) -> Option<&str> {
        self.rt.namespaced.then_some(self.ns)
    }

    pub fn template_ns(&self) -> &str {
        if self.rt.namespaced {
            self.ns
        } else {
            ""
        }
    }

    pub fn binding_kind(&self) -> ResourceType {
        if self.rt.namespaced {
            karmada::rb()
        } else {
            karmada::crb()
        }
    }

    /// What the engine reads: everything but the Clusters (names only) and the bindings other
    /// than the template's own.
    pub fn documents(&self, reads: &[Read], binding: Option<&J>) -> Vec<Document> {
        let binding_kind = self.binding_kind();
        live::documents(
            reads.iter().filter(|r| {
                r.request.rt.kind != "Cluster" && r.request.rt.kind != binding_kind.kind
            }),
        )
        .into_iter()
        .chain(binding.map(|b| live::document(&binding_kind, b)))
        .collect()
    }

    /// The template first, then everything its decision and chain read.
    pub fn requests(&self) -> Vec<Request> {
        let mut requests = vec![
            Request::get(self.rt.clone(), Some(self.ns), self.name),
            Request::list(karmada::cpp(), None),
            Request::list(karmada::cop(), None),
            Request::list(self.binding_kind(), self.pp_ns()),
            Request::list(karmada::cluster(), None),
        ];
        // A PP only ever matches templates of its own namespace (detector.go:382-391).
        if let Some(ns) = self.pp_ns() {
            requests.push(Request::list(karmada::pp(), Some(ns)));
            requests.push(Request::list(karmada::op(), Some(ns)));
        }
        requests
    }

    /// The template read first: an API error, or not found.
    pub fn template(&self, read: &Read) -> Result<J, SessionError> {
        if let Some(t) = read.items().first() {
            return Ok(t.clone());
        }
        if let Err(e) = &read.result {
            return Err(SessionError::Template {
                what: read.request.describe(),
                message: e.server_message(),
            });
        }
        let name = self.name;
        Err(SessionError::NotFound(format!(
            "{} {name:?} not found{}",
            self.rt.display(),
            if self.rt.namespaced {
                format!(" in namespace {}", self.ns)
            } else {
                String::new()
            }
        )))
    }

    /// The binding whose `spec.resource` is the template.
    pub fn binding(&self, reads: &[Read]) -> Option<J> {
        find(reads, &self.binding_kind())
            .map(|r| r.items())
            .unwrap_or(&[])
            .iter()
            .find(|b| {
                let r = &b["spec"]["resource"];
                group_of(r["apiVersion"].as_str().unwrap_or("")) == self.rt.group
                    && r["kind"] == self.rt.kind.as_str()
                    && r["name"] == self.name
                    && (!self.rt.namespaced || r["namespace"] == self.ns)
            })
            .cloned()
    }

    /// The Works of `binding`, by its permanent-id label when it has one.
    pub fn works_request(&self, binding: &J) -> Request {
        let label = if self.binding_kind().namespaced {
            RB_ID_LABEL
        } else {
            CRB_ID_LABEL
        };
        let req = Request::list(karmada::work(), None);
        match binding["metadata"]["labels"][label].as_str() {
            Some(id) => req.labels(&format!("{label}={id}")),
            None => req,
        }
    }

    /// Which parts could be read in full: policies, bindings, Works, Clusters (an unreadable
    /// part is not a missing one).
    pub fn readable(&self, reads: &[Read], has_binding: bool) -> [bool; 4] {
        let policies = if self.pp_ns().is_some() {
            vec![karmada::pp(), karmada::cpp()]
        } else {
            vec![karmada::cpp()]
        };
        [
            all_ok(reads, &policies),
            all_ok(reads, &[self.binding_kind()]),
            !has_binding || all_ok(reads, &[karmada::work()]),
            all_ok(reads, &[karmada::cluster()]),
        ]
    }
}
