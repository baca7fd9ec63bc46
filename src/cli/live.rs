//! Live mode of `explain` (no `-f`), `preempt-check` (no `-f`) and `lint --cluster`: read the
//! control plane through [`crate::source::live`], then run the same engine and renderers as
//! the manifest mode. Read-only: only get and list requests are sent.

use std::sync::Arc;

use super::args::{ChangeArg, EngineSettings, KubeFlags};
use super::common::{read_inputs, stdout_color, write_stdout};
use super::error::{CliError, Exit};
use crate::engine::chain::{self, ChainInput, Readable};
use crate::engine::claim::Filters;
use crate::engine::simulate::Change;
use crate::engine::state::{Options, State, UnknownClaimers};
use crate::kube::{self, Conn};
use crate::lint::{Finding, LintOptions};
use crate::model::{group_of, kinds, Inventory, Object, Policy};
use crate::output::format::{render_explain, Delivered, ExplainFormat, LiveChain};
use crate::output::Summary;
use crate::source::live::{self as live, karmada, Discovered, Read, Request, ResourceType, Stats};
use crate::source::Document;

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
    pub fn connect(flags: &KubeFlags) -> Result<Session, CliError> {
        let settings = flags.settings()?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| CliError::failure(format!("cannot start the runtime: {e}")))?;
        let opts = kube::ConnectOptions {
            kubeconfig: settings.kubeconfig,
            context: settings.context,
            request_timeout: Some(settings.request_timeout),
        };
        let conn = rt
            .block_on(kube::connect(&opts))
            .map_err(|e| CliError::api(e.to_string()))?;
        let stats = Arc::new(Stats::default());
        let discovered = rt.block_on(live::discover(&conn, &stats));
        let mut notes = Vec::new();
        if let Some(n) = &discovered.note {
            notes.push(n.clone());
        }
        Ok(Session {
            rt,
            conn,
            stats,
            discovered,
            concurrency: settings.concurrency,
            notes,
        })
    }

    /// Lists every object of each kind, in all namespaces ([`Session::read`]).
    pub fn list_all(
        &mut self,
        kinds: impl IntoIterator<Item = ResourceType>,
    ) -> Result<Vec<Read>, CliError> {
        self.read(kinds.into_iter().map(|k| Request::list(k, None)).collect())
    }

    /// Runs the reads (bounded parallelism); degraded ones add a note.
    pub fn read(&mut self, requests: Vec<Request>) -> Result<Vec<Read>, CliError> {
        let reads = self
            .rt
            .block_on(live::read_all(
                &self.conn,
                requests,
                self.concurrency,
                &self.stats,
            ))
            .map_err(|e| CliError::api(format!("{e} ({})", self.conn.server)))?;
        for r in &reads {
            if let Some(n) = r.note() {
                self.notes.push(n);
            }
        }
        Ok(reads)
    }

    pub fn namespace(&self) -> &str {
        &self.conn.namespace
    }

    fn warn_notes(&self) {
        for n in &self.notes {
            eprintln!("note: {n}");
        }
    }
}

fn find<'a>(reads: &'a [Read], rt: &ResourceType) -> Option<&'a Read> {
    reads
        .iter()
        .find(|r| r.request.rt.group == rt.group && r.request.rt.kind == rt.kind)
}

fn all_ok(reads: &[Read], kinds: &[ResourceType]) -> bool {
    kinds.iter().all(|k| find(reads, k).is_some_and(Read::ok))
}

/// The template kinds the policies select (Karmada's own groups are never templates, §1.4).
fn selected_kinds<'a>(
    policies: impl Iterator<Item = &'a Policy>,
    d: &Discovered,
) -> Vec<ResourceType> {
    let mut out: Vec<ResourceType> = Vec::new();
    for p in policies {
        for rs in &p.spec.resource_selectors {
            if rs.kind.is_empty() || group_of(&rs.api_version).ends_with("karmada.io") {
                continue;
            }
            let rt = d.for_kind(&rs.api_version, &rs.kind);
            if !out.contains(&rt) {
                out.push(rt);
            }
        }
    }
    out
}

fn options(engine: EngineSettings, complete: bool) -> Options {
    Options {
        gates: engine.gates,
        filters: Filters::default(),
        version: engine.version,
        // With every policy read, a claim naming a missing policy is stale (§4.2); with the
        // policy list unreadable, the claimer is assumed to exist.
        unknown_claimers: if complete {
            UnknownClaimers::Stale
        } else {
            UnknownClaimers::AssumeExisting
        },
    }
}

// ---------------------------------------------------------------------------------------------
// explain

/// What `explain TYPE/NAME` asks of the control plane, and how to show it.
pub struct ExplainRequest<'a> {
    pub kube: &'a KubeFlags,
    pub ty: &'a str,
    pub name: &'a str,
    /// `-n`; else the kubeconfig context's namespace.
    pub namespace: Option<&'a str>,
    pub format: ExplainFormat,
    pub engine: EngineSettings,
    /// `--cluster`: the member clusters whose manifest the overrides section computes.
    pub clusters: &'a [String],
}

/// `explain TYPE/NAME` against the control plane.
pub fn explain(req: &ExplainRequest<'_>) -> Result<Exit, CliError> {
    let mut s = Session::connect(req.kube)?;
    let rt = s.discovered.resolve(req.ty).map_err(CliError::usage)?;
    if rt.info().is_karmada() {
        return Err(CliError::usage(format!(
            "{} is a Karmada object, not a resource template: explain takes a template such as deploy/nginx",
            rt.display()
        )));
    }
    let context_ns = s.namespace().to_string();
    let target = Target {
        name: req.name,
        ns: req.namespace.unwrap_or(&context_ns),
        rt,
    };
    let mut reads = s.read(target.requests())?;
    let template = target.template(&reads[0])?;
    let api_version = template["apiVersion"].as_str().unwrap_or("").to_string();
    // The binding of the template, then its Works by the binding's permanent-id (one list).
    let binding = target.binding(&reads);
    if let Some(b) = &binding {
        reads.extend(s.read(vec![target.works_request(b)])?);
    }
    let readable = target.readable(&reads, binding.is_some());
    let cluster_read = find(&reads, &karmada::cluster());
    let cluster_objects: Vec<crate::model::cluster::Cluster> = cluster_read
        .map(|r| r.items())
        .unwrap_or(&[])
        .iter()
        .map(crate::model::cluster::Cluster::from_object)
        .collect();
    let clusters = cluster_names(cluster_read);
    let inv = Inventory::from_documents(target.documents(&reads, binding.as_ref()), target.ns);
    let state = State::from_inventory(&inv, options(req.engine, readable.policies));
    let t = state
        .find_template(
            &api_version,
            &target.rt.kind,
            target.template_ns(),
            target.name,
        )
        .ok_or_else(|| CliError::failure("the template read did not classify as a template"))?;
    let e = crate::engine::explain::explain(&state, t);
    let chain = chain::diagnose(&ChainInput {
        state: &state,
        template: t,
        explanation: &e,
        bindings: inv.bindings().collect(),
        works: inv.works().collect(),
        clusters,
        readable,
    });
    let delivery = live_delivery(
        &state,
        &e,
        &template,
        binding.as_ref(),
        &inv,
        &cluster_objects,
        req.clusters,
    );
    // The text shows the notes; the other formats leave them to stderr.
    if req.format != ExplainFormat::Text {
        s.warn_notes();
    }
    let live = LiveChain {
        chain: &chain,
        notes: &s.notes,
    };
    let delivered = Delivered {
        template: &template,
        delivery: &delivery,
    };
    let out = render_explain(req.format, &e, Some(&live), &delivered, stdout_color());
    write_stdout(&out)?;
    Ok(Exit::Ok)
}

/// The template `explain` asks about, and what is read around it.
struct Target<'a> {
    name: &'a str,
    ns: &'a str,
    rt: ResourceType,
}

impl Target<'_> {
    /// PropagationPolicies (and bindings) of the template's namespace; none for a
    /// cluster-scoped template, which only a ClusterPropagationPolicy can claim.
    fn pp_ns(&self) -> Option<&str> {
        self.rt.namespaced.then_some(self.ns)
    }

    fn template_ns(&self) -> &str {
        if self.rt.namespaced {
            self.ns
        } else {
            ""
        }
    }

    fn binding_kind(&self) -> ResourceType {
        if self.rt.namespaced {
            karmada::rb()
        } else {
            karmada::crb()
        }
    }

    /// What the engine reads: everything but the Clusters (names only) and the bindings other
    /// than the template's own.
    fn documents(&self, reads: &[Read], binding: Option<&serde_json::Value>) -> Vec<Document> {
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
    fn requests(&self) -> Vec<Request> {
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

    /// The template read first: an API error (exit 3) or not found (exit 2).
    fn template(&self, read: &Read) -> Result<serde_json::Value, CliError> {
        if let Some(t) = read.items().first() {
            return Ok(t.clone());
        }
        if let Err(e) = &read.result {
            return Err(CliError::api(format!(
                "cannot read {}: {}",
                read.request.describe(),
                e.server_message()
            )));
        }
        let name = self.name;
        Err(CliError::usage(format!(
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
    fn binding(&self, reads: &[Read]) -> Option<serde_json::Value> {
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
    fn works_request(&self, binding: &serde_json::Value) -> Request {
        let label = if self.binding_kind().namespaced {
            chain::RB_ID_LABEL
        } else {
            chain::CRB_ID_LABEL
        };
        let req = Request::list(karmada::work(), None);
        match binding["metadata"]["labels"][label].as_str() {
            Some(id) => req.labels(&format!("{label}={id}")),
            None => req,
        }
    }

    /// Which parts of the chain could be read (an unreadable part is not a missing one).
    fn readable(&self, reads: &[Read], has_binding: bool) -> Readable {
        let policies = if self.pp_ns().is_some() {
            vec![karmada::pp(), karmada::cpp()]
        } else {
            vec![karmada::cpp()]
        };
        Readable {
            policies: all_ok(reads, &policies),
            bindings: all_ok(reads, &[self.binding_kind()]),
            works: !has_binding || all_ok(reads, &[karmada::work()]),
            clusters: all_ok(reads, &[karmada::cluster()]),
        }
    }
}

/// The names of the listed Clusters (none when the list is missing).
fn cluster_names(read: Option<&Read>) -> Vec<String> {
    read.map(|r| r.items())
        .unwrap_or(&[])
        .iter()
        .filter_map(|c| c["metadata"]["name"].as_str().map(str::to_string))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// preempt-check

/// The live state and the changes of `preempt-check --apply FILE / --delete TYPE/[NS/]NAME`.
/// Nothing is written: the changes run in the engine only.
pub fn preempt_check(
    kube: &KubeFlags,
    namespace: Option<&str>,
    change_args: &[ChangeArg],
    engine: EngineSettings,
) -> Result<(State, Vec<Change>), CliError> {
    // Without -n the namespace is the kubeconfig context's, which needs the connection.
    let mut session = None;
    let namespace = match namespace {
        Some(n) => n.to_string(),
        None => {
            let s = Session::connect(kube)?;
            let n = s.namespace().to_string();
            session = Some(s);
            n
        }
    };
    // The changes next: a bad file or target is a usage error before any list request.
    let (applied, changes) = read_changes(change_args, &namespace)?;
    let mut s = match session {
        Some(s) => s,
        None => Session::connect(kube)?,
    };
    let base = [
        karmada::pp(),
        karmada::cpp(),
        karmada::op(),
        karmada::cop(),
        karmada::rb(),
        karmada::crb(),
    ];
    let reads = s.list_all(base.iter().cloned())?;
    let policy_docs = live::documents(&reads[..2]);
    let policies = Inventory::from_documents(policy_docs, "default");
    let kinds = touched_kinds(&policies, &applied, &changes, &s.discovered);
    let template_reads = s.list_all(kinds)?;
    s.warn_notes();
    let complete = all_ok(&reads, &base[..2]);
    let docs = live::documents(reads.iter().chain(&template_reads));
    let inv = Inventory::from_documents(docs, "default");
    let state = State::from_inventory(&inv, options(engine, complete));
    Ok((state, changes))
}

/// The policies `--apply` files hold and the changes, in command-line order.
fn read_changes(
    change_args: &[ChangeArg],
    namespace: &str,
) -> Result<(Vec<Policy>, Vec<Change>), CliError> {
    let mut applied: Vec<Policy> = Vec::new();
    let mut changes = Vec::new();
    for c in change_args {
        match c {
            ChangeArg::Apply(file) => {
                let inv = read_inputs(std::slice::from_ref(file), namespace)?;
                let before = applied.len();
                for o in inv.objects {
                    if let Object::Policy(p) = o {
                        applied.push((*p).clone());
                        changes.push(Change::Apply(p));
                    }
                }
                if applied.len() == before {
                    return Err(CliError::usage(format!(
                        "{file}: no PropagationPolicy or ClusterPropagationPolicy to apply"
                    )));
                }
            }
            ChangeArg::Delete(target) => changes.push(Change::Delete(kinds::policy_ref(
                target,
                namespace,
                &Inventory::default(),
            )?)),
        }
    }
    Ok((applied, changes))
}

/// Templates to list: the kinds the changed policies select, before and after the change.
fn touched_kinds(
    policies: &Inventory,
    applied: &[Policy],
    changes: &[Change],
    d: &Discovered,
) -> Vec<ResourceType> {
    let deleted: Vec<&crate::model::PolicyRef> = changes
        .iter()
        .filter_map(|c| match c {
            Change::Delete(r) => Some(r),
            Change::Apply(_) => None,
        })
        .collect();
    let touched = policies.policies().filter(|p| {
        let r = p.reference();
        deleted.contains(&&r) || applied.iter().any(|a| a.reference() == r)
    });
    let mut kinds = selected_kinds(touched, d);
    for k in selected_kinds(applied.iter(), d) {
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds
}

// ---------------------------------------------------------------------------------------------
// lint --cluster

/// The findings of the lint rules over the live policies and the templates they select, and
/// the summary. Locations are object references (`pp/default/nginx`) with field paths.
pub fn lint(kube: &KubeFlags, opts: &LintOptions) -> Result<(Vec<Finding>, Summary), CliError> {
    let mut s = Session::connect(kube)?;
    let base = [
        karmada::pp(),
        karmada::cpp(),
        karmada::op(),
        karmada::cop(),
        karmada::rb(),
        karmada::crb(),
        karmada::work(),
        karmada::cluster(),
    ];
    let reads = s.list_all(base.iter().cloned())?;
    let policies = Inventory::from_documents(live::documents(&reads[..2]), "default");
    let kinds = selected_kinds(policies.policies(), &s.discovered);
    let template_reads = s.list_all(kinds)?;
    s.warn_notes();
    let clusters = cluster_names(Some(&reads[7]));
    let docs = live::documents(reads[..7].iter().chain(&template_reads));
    let inv = Inventory::from_documents(docs, "default");
    let mut opts = opts.clone();
    if opts.known_clusters.is_empty() && reads[7].ok() {
        opts.known_clusters = clusters;
    }
    // The placement rules evaluate the policies against the member clusters as they are.
    opts.cluster_objects = reads[7]
        .items()
        .iter()
        .map(crate::model::cluster::Cluster::from_object)
        .collect();
    let findings = crate::lint::lint(&[], &inv, &opts);
    // Each live object is its own source (named by its reference).
    let mut summary = Summary {
        files: inv.documents.len(),
        documents: inv.documents.len(),
        policies: inv.policies().count(),
        ..Summary::default()
    };
    summary.count(&findings);
    Ok((findings, summary))
}

/// Placement and overrides against the control plane: the binding's scheduling state (its
/// clusters skip two filters, its eviction tasks and observed affinity term count) and its
/// clusters as the default override targets.
fn live_delivery(
    state: &State,
    e: &crate::engine::explain::Explanation,
    template: &serde_json::Value,
    binding: Option<&serde_json::Value>,
    inv: &Inventory,
    clusters: &[crate::model::cluster::Cluster],
    chosen: &[String],
) -> crate::engine::delivery::Delivery {
    let names = |v: Option<&serde_json::Value>, key: &str| -> Vec<String> {
        v.and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|x| x[key].as_str().map(str::to_string))
            .collect()
    };
    let bound = binding.map(|b| names(b.pointer("/spec/clusters"), "name"));
    let evicting = names(
        binding.and_then(|b| b.pointer("/spec/gracefulEvictionTasks")),
        "fromCluster",
    );
    let observed = binding.and_then(|b| {
        b.pointer("/status/schedulerObservedAffinityName")
            .and_then(serde_json::Value::as_str)
    });
    let placement = e
        .eventual
        .as_ref()
        .and_then(|o| state.find_policy(o))
        .and_then(|p| state.policy(p).spec.placement.as_ref());
    let overrides: Vec<&crate::model::OverridePolicy> = inv.overrides().collect();
    let tpl = &state.templates[e.template];
    let scheduled = bound.clone().unwrap_or_default();
    crate::engine::delivery::deliver(&crate::engine::delivery::DeliveryInput {
        template,
        placement,
        clusters,
        overrides: &overrides,
        binding: crate::engine::placement::BindingView {
            api_version: &tpl.api_version,
            kind: &tpl.kind,
            scheduled: &scheduled,
            evicting: &evicting,
            observed_affinity: observed,
            workload: crate::engine::delivery::is_workload(template),
        },
        bound: bound.as_deref(),
        chosen,
    })
}
