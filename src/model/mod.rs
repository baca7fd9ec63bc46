//! The typed Karmada API: policies, bindings, Works, and generic resource templates.
//!
//! [`Inventory::from_documents`] classifies positioned documents into typed [`Object`]s; each
//! object keeps the index of its document so a finding can point at the exact field.

pub mod binding;
pub mod cluster;
pub mod controller_flags;
pub mod dependencies;
pub mod elsewhere;
pub mod environments;
pub mod feature_gates;
pub mod gitops;
pub mod gotypes;
pub mod inputs;
pub mod installation;
pub mod kinds;
pub mod label_selector;
pub mod meta;
pub mod override_policy;
pub mod placeholder;
pub mod policy;
pub mod schedulers;
pub mod severity;
pub mod string_map;
#[cfg(test)]
pub mod test_support;
pub mod version;

use serde::{Deserialize, Serialize};

pub use binding::{Binding, Condition, Work};
pub use meta::ObjectMeta;
pub use override_policy::OverridePolicy;
pub use policy::PropagationSpec;
pub use string_map::StringMap;
pub use version::KarmadaVersion;

use crate::source::{Document, FieldPath, Node};

pub const POLICY_GROUP: &str = "policy.karmada.io";
pub const POLICY_API_VERSION: &str = "policy.karmada.io/v1alpha1";
/// Karmada's pre-1.0 group for policies; objects there are ignored by current controllers.
pub const OLD_POLICY_GROUP: &str = "propagationstrategy.karmada.io";
/// The kinds Karmada serves in `policy.karmada.io`, all as `v1alpha1` only (each release's
/// `charts/karmada/_crds/bases/policy/`, v1.10.0 to v1.19.0-rc.0; ClusterTaintPolicy from
/// v1.14.0). `ReplicaSchedulingPolicy` was removed before v1.0.
pub const SERVED_POLICY_KINDS: &[&str] = &[
    "PropagationPolicy",
    "ClusterPropagationPolicy",
    "OverridePolicy",
    "ClusterOverridePolicy",
    "FederatedResourceQuota",
    "ClusterTaintPolicy",
];

/// The first release that serves ClusterTaintPolicy: its CRD
/// (`policy.karmada.io_clustertaintpolicies.yaml`) is absent at every v1.13 tag and present from
/// v1.14.0, with its webhook (`pkg/webhook/clustertaintpolicy`).
pub const TAINT_POLICY_SERVED_FROM: KarmadaVersion = KarmadaVersion::new(1, 14);

/// A `policy.karmada.io` object of a version or kind the API server does not serve: `kubectl
/// apply` fails with `no matches for kind "K" in version "G/V"` (the RESTMapper finds no CRD), so
/// it is never stored and never propagates or claims anything. `doc` is the caller's.
fn unserved_policy_type(api_version: &str, kind: &str) -> Option<ClassifyProblem> {
    let served_version = api_version == POLICY_API_VERSION;
    let served_kind = SERVED_POLICY_KINDS.contains(&kind);
    if served_version && served_kind {
        return None;
    }
    let (field, hint) = if served_kind {
        (
            "apiVersion",
            format!("; Karmada serves {kind} as `{POLICY_API_VERSION}`"),
        )
    } else {
        let near = SERVED_POLICY_KINDS
            .iter()
            .filter(|k| {
                strsim::levenshtein(&k.to_ascii_lowercase(), &kind.to_ascii_lowercase()) <= 2
            })
            .min_by_key(|k| strsim::levenshtein(k, kind));
        let hint = match near {
            Some(k) => format!("; did you mean `{k}`?"),
            None => format!("; it serves {}", SERVED_POLICY_KINDS.join(", ")),
        };
        ("kind", hint)
    };
    Some(ClassifyProblem {
        doc: 0,
        rule: "unserved-karmada-kind",
        field: FieldPath::root().key(field),
        message: format!(
            "no matches for kind \"{kind}\" in version \"{api_version}\": Karmada's API server does not serve it, so it is never stored{hint}"
        ),
    })
}

/// PropagationPolicy (namespaced) or ClusterPropagationPolicy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum PolicyKind {
    PropagationPolicy,
    ClusterPropagationPolicy,
}

impl PolicyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyKind::PropagationPolicy => "PropagationPolicy",
            PolicyKind::ClusterPropagationPolicy => "ClusterPropagationPolicy",
        }
    }

    /// kubectl's short name: `pp` or `cpp`.
    pub fn short(self) -> &'static str {
        match self {
            PolicyKind::PropagationPolicy => "pp",
            PolicyKind::ClusterPropagationPolicy => "cpp",
        }
    }

    pub fn plural(self) -> &'static str {
        match self {
            PolicyKind::PropagationPolicy => "propagationpolicies",
            PolicyKind::ClusterPropagationPolicy => "clusterpropagationpolicies",
        }
    }

    /// The label holding the policy's permanent id, on the policy and on what it claims.
    pub fn permanent_id_label(self) -> &'static str {
        match self {
            PolicyKind::PropagationPolicy => "propagationpolicy.karmada.io/permanent-id",
            PolicyKind::ClusterPropagationPolicy => {
                "clusterpropagationpolicy.karmada.io/permanent-id"
            }
        }
    }

    pub fn from_kind(kind: &str) -> Option<PolicyKind> {
        match kind {
            "PropagationPolicy" => Some(PolicyKind::PropagationPolicy),
            "ClusterPropagationPolicy" => Some(PolicyKind::ClusterPropagationPolicy),
            _ => None,
        }
    }
}

/// A policy's identity: the OWNER shape of the JSON contracts.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PolicyRef {
    pub kind: PolicyKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
}

impl PolicyRef {
    /// `PropagationPolicy default/low`, `ClusterPropagationPolicy platform`: how a report
    /// titles the policy.
    pub fn titled(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind.as_str(), self.name),
            None => format!("{} {}", self.kind.as_str(), self.name),
        }
    }

    /// A policy of `kind` named `name`, in `namespace` for a PropagationPolicy (a
    /// ClusterPropagationPolicy has none).
    pub fn of(kind: PolicyKind, namespace: &str, name: &str) -> PolicyRef {
        match kind {
            PolicyKind::PropagationPolicy => PolicyRef::pp(namespace, name),
            PolicyKind::ClusterPropagationPolicy => PolicyRef::cpp(name),
        }
    }

    pub fn pp(namespace: &str, name: &str) -> PolicyRef {
        PolicyRef {
            kind: PolicyKind::PropagationPolicy,
            namespace: Some(namespace.to_string()),
            name: name.to_string(),
        }
    }

    pub fn cpp(name: &str) -> PolicyRef {
        PolicyRef {
            kind: PolicyKind::ClusterPropagationPolicy,
            namespace: None,
            name: name.to_string(),
        }
    }
}

impl std::fmt::Display for PolicyRef {
    /// `pp/default/nginx` or `cpp/platform`, as users type them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{}/{}/{}", self.kind.short(), ns, self.name),
            None => write!(f, "{}/{}", self.kind.short(), self.name),
        }
    }
}

/// A resource's identity: the `resource` shape of the JSON contracts.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectRef {
    /// `Deployment default/nginx`, `Namespace shop`: how a report titles the object.
    pub fn titled(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }
}

impl std::fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = self.kind.to_ascii_lowercase();
        match &self.namespace {
            Some(ns) => write!(f, "{kind}/{ns}/{}", self.name),
            None => write!(f, "{kind}/{}", self.name),
        }
    }
}

/// A PropagationPolicy or ClusterPropagationPolicy as written (before Karmada's defaults).
#[derive(Clone, Debug)]
pub struct Policy {
    pub kind: PolicyKind,
    pub meta: ObjectMeta,
    pub spec: PropagationSpec,
    /// Index of the document it came from in [`Inventory::documents`].
    pub doc: usize,
    /// What the whole admission chain says of its manifest, once the engine has looked while
    /// the manifest's tree is whole (`engine::admission::documents::admit_documents`).
    pub admission: Admission,
}

/// The admission chain's verdict on one policy manifest (decode, mutating webhook, CRD schema,
/// validating webhook), as the objects that take part in a decision need it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Admission {
    /// Not looked at: read from the control plane (stored, so admitted when it was written), or
    /// typed from a tree that is not whole.
    #[default]
    Unchecked,
    Admitted,
    /// Refused, with the API server's message: the control plane never stores it, so it takes
    /// part in no decision.
    Refused(String),
}

impl Admission {
    /// The API server's message when the chain refuses the object, which is then never stored.
    pub fn refusal(&self) -> Option<&str> {
        match self {
            Admission::Refused(message) => Some(message),
            _ => None,
        }
    }
}

impl Policy {
    pub fn reference(&self) -> PolicyRef {
        PolicyRef {
            kind: self.kind,
            namespace: match self.kind {
                PolicyKind::PropagationPolicy => {
                    Some(self.meta.namespace.clone().unwrap_or_default())
                }
                PolicyKind::ClusterPropagationPolicy => None,
            },
            name: self.meta.name.clone(),
        }
    }

    pub fn permanent_id(&self) -> Option<&str> {
        self.meta.label(self.kind.permanent_id_label())
    }

    pub fn is_terminating(&self) -> bool {
        self.meta.deletion_timestamp.is_some()
    }
}

/// Any object that is not a Karmada policy, binding or Work: a candidate for propagation.
#[derive(Clone, Debug)]
pub struct Template {
    pub api_version: String,
    pub kind: String,
    pub meta: ObjectMeta,
    pub doc: usize,
    /// For a CustomResourceDefinition, the kind it declares and at which scope.
    pub declares: Option<Box<DeclaredKind>>,
    /// For a workload, what it names as dependencies ([`dependencies::of`]).
    pub depends_on: Option<Box<[dependencies::Dependency]>>,
    /// The apiVersion the manifest is written in, when Karmada reads it in another
    /// (`api_version`, the preferred version of a kind served in several): the API server of
    /// some releases does not serve it ([`crate::kube::kinds::removed_version`]).
    pub applied_as: Option<Box<str>>,
}

/// A kind a CustomResourceDefinition of the input declares (`spec.group`, `spec.names.kind`,
/// `spec.scope`): the API server serves its objects at that scope, with or without a namespace,
/// whatever the built-in table of [`crate::kube::scope`] guesses for a kind it does not know.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DeclaredKind {
    pub group: String,
    pub kind: String,
    pub namespaced: bool,
}

impl DeclaredKind {
    /// What a CustomResourceDefinition's tree declares; `None` for any other object, or one
    /// without a group, kind or a scope the API server accepts.
    fn of(api_version: &str, kind: &str, root: &Node) -> Option<Box<DeclaredKind>> {
        if group_of(api_version) != "apiextensions.k8s.io" || kind != "CustomResourceDefinition" {
            return None;
        }
        let spec = root.get("spec")?;
        fn text(n: Option<&Node>) -> Option<&str> {
            n.and_then(Node::as_str).filter(|s| !s.is_empty())
        }
        let namespaced = match text(spec.get("scope"))? {
            "Namespaced" => true,
            "Cluster" => false,
            _ => return None,
        };
        Some(Box::new(DeclaredKind {
            group: text(spec.get("group"))?.to_string(),
            kind: text(spec.get("names").and_then(|n| n.get("kind")))?.to_string(),
            namespaced,
        }))
    }
}

/// A template's apiVersion as Karmada sees it: the API server's preferred version of its kind
/// where it serves several (an `autoscaling/v1` HorizontalPodAutoscaler is read, selected and
/// bound as `autoscaling/v2`; [`crate::kube::kinds::watched_version`]), otherwise as written.
/// Also the version as written when it is another ([`Template::applied_as`]).
fn watched_api_version(api_version: &str, kind: &str) -> (String, Option<Box<str>>) {
    match crate::kube::kinds::watched_version(api_version, kind) {
        Some(watched) => (watched.to_string(), Some(api_version.into())),
        None => (api_version.to_string(), None),
    }
}

impl Template {
    pub fn reference(&self) -> ObjectRef {
        ObjectRef {
            api_version: self.api_version.clone(),
            kind: self.kind.clone(),
            namespace: self.meta.namespace.clone(),
            name: self.meta.name.clone(),
        }
    }

    /// The API group (`apps` for `apps/v1`, empty for core `v1`).
    pub fn group(&self) -> &str {
        group_of(&self.api_version)
    }

    pub fn namespace(&self) -> &str {
        self.meta.namespace.as_deref().unwrap_or("")
    }
}

pub use crate::kube::scope::group_of;

/// One classified document.
#[derive(Clone, Debug)]
pub enum Object {
    /// Boxed: a policy is four times the size of a template, and templates are most objects in
    /// a large repository (an unboxed enum made every template 900 bytes).
    Policy(Box<Policy>),
    Override(OverridePolicy),
    Binding(Binding),
    Work(Work),
    Template(Template),
}

impl Object {
    /// Index of the object's document in [`Inventory::documents`].
    pub fn doc(&self) -> usize {
        match self {
            Object::Policy(p) => p.doc,
            Object::Override(o) => o.doc,
            Object::Binding(b) => b.doc,
            Object::Work(w) => w.doc,
            Object::Template(t) => t.doc,
        }
    }

    /// The document index, to renumber it.
    pub fn doc_mut(&mut self) -> &mut usize {
        match self {
            Object::Policy(p) => &mut p.doc,
            Object::Override(o) => &mut o.doc,
            Object::Binding(b) => &mut b.doc,
            Object::Work(w) => &mut w.doc,
            Object::Template(t) => &mut t.doc,
        }
    }
}

/// Why a document could not become a typed object (reported as findings by `lint`).
#[derive(Clone, Debug, PartialEq)]
pub struct ClassifyProblem {
    pub doc: usize,
    pub rule: &'static str,
    pub field: FieldPath,
    pub message: String,
}

/// Everything the sources produced: the documents, and the objects typed from them.
#[derive(Clone, Debug, Default)]
pub struct Inventory {
    pub documents: Vec<Document>,
    pub objects: Vec<Object>,
    pub problems: Vec<ClassifyProblem>,
}

impl Inventory {
    /// Documents from which typing is split over two threads.
    const PARALLEL_FROM: usize = 20_000;

    /// Classifies documents. Objects without a namespace that are namespaced by kind land in
    /// `default_namespace`, as `kubectl apply -n` would put them.
    pub fn from_documents(documents: Vec<Document>, default_namespace: &str) -> Inventory {
        // Documents classify independently: large inputs are split in contiguous halves typed on
        // two threads, then concatenated, so objects and problems keep document order.
        let classify_range = |first: usize, docs: &[Document]| {
            let mut part = Inventory {
                documents: Vec::new(),
                objects: Vec::with_capacity(docs.len()),
                problems: Vec::new(),
            };
            for (i, doc) in docs.iter().enumerate() {
                part.classify(first + i, &doc.root, default_namespace);
            }
            part
        };
        let mid = documents.len() / 2;
        let mut inv = if documents.len() >= Self::PARALLEL_FROM {
            let (a, b) = documents.split_at(mid);
            let (mut first, second) =
                crate::util::parallel::join(|| classify_range(0, a), || classify_range(mid, b));
            first.objects.extend(second.objects);
            first.problems.extend(second.problems);
            first
        } else {
            classify_range(0, &documents)
        };
        inv.documents = documents;
        inv
    }

    /// [`Inventory::from_documents`] with a namespace of its own for each document (where the
    /// repository applies it): `namespaces[i]` for `documents[i]`.
    pub fn from_documents_each(documents: Vec<Document>, namespaces: &[String]) -> Inventory {
        let mut inv = Inventory {
            documents: Vec::new(),
            objects: Vec::with_capacity(documents.len()),
            problems: Vec::new(),
        };
        for (i, doc) in documents.iter().enumerate() {
            let ns = namespaces.get(i).map_or("default", String::as_str);
            inv.classify(i, &doc.root, ns);
        }
        inv.documents = documents;
        inv
    }

    /// [`Inventory::from_documents`], handing each document to `then` with the object it
    /// became (if any) right after it is typed, while its tree is still in the cache: a
    /// streamed `lint` lets go of a template's tree there. A large input is typed on two
    /// threads first, as `from_documents` does, and then handed over.
    pub fn from_documents_then(
        mut documents: Vec<Document>,
        default_namespace: &str,
        then: &dyn Fn(&mut Document, Option<&Object>),
    ) -> Inventory {
        if documents.len() >= Self::PARALLEL_FROM {
            let mut inv = Inventory::from_documents(documents, default_namespace);
            let mut objects = inv.objects.iter().peekable();
            for (i, doc) in inv.documents.iter_mut().enumerate() {
                then(doc, objects.next_if(|o| o.doc() == i));
            }
            return inv;
        }
        let mut inv = Inventory {
            documents: Vec::new(),
            objects: Vec::with_capacity(documents.len()),
            problems: Vec::new(),
        };
        for (i, doc) in documents.iter_mut().enumerate() {
            let typed = inv.objects.len();
            inv.classify(i, &doc.root, default_namespace);
            then(doc, inv.objects.get(typed));
        }
        inv.documents = documents;
        inv
    }

    /// Appends `other` (typically one file's inventory, typed on its own), renumbering its
    /// documents after ours so every object and problem still points at its own document.
    pub fn append(&mut self, other: Inventory) {
        let offset = self.documents.len();
        self.documents.extend(other.documents);
        self.objects.extend(other.objects.into_iter().map(|mut o| {
            *o.doc_mut() += offset;
            o
        }));
        self.problems
            .extend(other.problems.into_iter().map(|mut p| {
                p.doc += offset;
                p
            }));
    }

    fn classify(&mut self, doc: usize, root: &Node, default_namespace: &str) {
        let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
        if api_version.is_empty() || kind.is_empty() {
            // Helm values, Chart.yaml, tool configs: YAML that is not an object at all. Only a
            // document that looks like an object (it has a kind or metadata) is a problem.
            if kind.is_empty() && root.get("metadata").is_none() {
                return;
            }
            let missing = if api_version.is_empty() {
                "apiVersion"
            } else {
                "kind"
            };
            self.problems.push(ClassifyProblem {
                doc,
                rule: "missing-type",
                field: FieldPath::root().key(missing),
                message: format!("object has no {missing}: it cannot be applied"),
            });
            return;
        }
        let group = group_of(api_version);
        let mut meta = ObjectMeta::from_node(root.get("metadata"));
        if group == OLD_POLICY_GROUP {
            self.problems.push(ClassifyProblem {
                doc,
                rule: "old-api-group",
                field: FieldPath::root().key("apiVersion"),
                message: format!(
                    "`{api_version}` is Karmada's pre-1.0 API group, no longer served; use `{POLICY_API_VERSION}`"
                ),
            });
            return;
        }
        if group == POLICY_GROUP {
            if let Some(problem) = unserved_policy_type(api_version, kind) {
                self.problems.push(ClassifyProblem { doc, ..problem });
                return;
            }
        }
        let namespaced = crate::kube::scope::is_namespaced(api_version, kind);
        if namespaced && meta.namespace.is_none() {
            meta.namespace = Some(default_namespace.to_string());
        }
        if !namespaced {
            meta.namespace = None;
        }
        let object = if group == POLICY_GROUP {
            match kind {
                "PropagationPolicy" | "ClusterPropagationPolicy" => {
                    let kind = PolicyKind::from_kind(kind).expect("matched above");
                    let (spec, admission) = match typed_spec(kind, root.get("spec")) {
                        Ok(spec) => (spec, Admission::Unchecked),
                        // A value Karmada's Go types cannot hold: the mutating webhook's decoder
                        // refuses the policy (admission-chain.md §4). It is kept, refused, so
                        // that every subcommand reports it as the chain does (the chain's
                        // verdict replaces this mark with the API server's message), with the
                        // selectors that can be typed to say what it would have matched.
                        Err(go_error) => (
                            selectors_only(root.get("spec")),
                            Admission::Refused(go_error),
                        ),
                    };
                    Object::Policy(Box::new(Policy {
                        kind,
                        meta,
                        spec,
                        doc,
                        admission,
                    }))
                }
                "OverridePolicy" | "ClusterOverridePolicy" => {
                    Object::Override(OverridePolicy::from_node(kind, meta, root, doc))
                }
                _ => {
                    let (api_version, applied_as) = watched_api_version(api_version, kind);
                    Object::Template(Template {
                        api_version,
                        kind: kind.into(),
                        meta,
                        doc,
                        declares: None,
                        depends_on: None,
                        applied_as,
                    })
                }
            }
        } else if group == "work.karmada.io" {
            match kind {
                "ResourceBinding" | "ClusterResourceBinding" => {
                    match Binding::from_node(kind, meta, root, doc) {
                        Some(b) => Object::Binding(b),
                        None => return,
                    }
                }
                "Work" => Object::Work(Work::from_node(meta, root, doc)),
                _ => return,
            }
        } else {
            let (api_version, applied_as) = watched_api_version(api_version, kind);
            Object::Template(Template {
                depends_on: dependencies::of(&api_version, kind, root),
                declares: DeclaredKind::of(&api_version, kind, root),
                api_version,
                kind: kind.into(),
                meta,
                doc,
                applied_as,
            })
        };
        self.objects.push(object);
    }

    pub fn policies(&self) -> impl Iterator<Item = &Policy> {
        self.objects.iter().filter_map(|o| match o {
            Object::Policy(p) => Some(&**p),
            _ => None,
        })
    }

    /// The policies that take part in decisions: all but those the admission chain refused
    /// (the API server never stores them).
    pub fn admitted_policies(&self) -> impl Iterator<Item = &Policy> {
        self.policies().filter(|p| p.admission.refusal().is_none())
    }

    pub fn templates(&self) -> impl Iterator<Item = &Template> {
        self.objects.iter().filter_map(|o| match o {
            Object::Template(t) => Some(t),
            _ => None,
        })
    }

    pub fn bindings(&self) -> impl Iterator<Item = &Binding> {
        self.objects.iter().filter_map(|o| match o {
            Object::Binding(b) => Some(b),
            _ => None,
        })
    }

    pub fn works(&self) -> impl Iterator<Item = &Work> {
        self.objects.iter().filter_map(|o| match o {
            Object::Work(w) => Some(w),
            _ => None,
        })
    }

    pub fn overrides(&self) -> impl Iterator<Item = &OverridePolicy> {
        self.objects.iter().filter_map(|o| match o {
            Object::Override(p) => Some(p),
            _ => None,
        })
    }

    /// The policies the control plane holds once every document is applied in order: of
    /// several documents of one reference, the last, which replaced the others (in document
    /// order). Copies within one input are the duplicate-identity rule's; two revisions compare
    /// what each holds. [`Inventory::policies`] is every document.
    pub fn applied_policies(&self) -> Vec<&Policy> {
        last_of_each(self.policies(), Policy::reference)
    }

    /// The override policies the control plane holds once every document is applied in
    /// order: of several documents of one identity (kind, namespace, name), the last, which
    /// replaced the others. What decides a template's overrides; [`Inventory::overrides`] is
    /// every document, for the checks of each one.
    pub fn applied_overrides(&self) -> Vec<&OverridePolicy> {
        last_of_each(self.overrides(), OverridePolicy::identity)
    }

    /// The override policies the control plane holds and applies: [`Inventory::applied_overrides`]
    /// of those its admission chain does not refuse (a refused document is never stored, and an
    /// earlier one of the same identity stays).
    pub fn stored_overrides(&self) -> Vec<&OverridePolicy> {
        last_of_each(
            self.overrides().filter(|p| p.admission.refusal().is_none()),
            OverridePolicy::identity,
        )
    }
}

/// Of `items` in the order they are applied, the last of each identity `key` gives (each
/// replaced the ones before it), in that order.
pub fn last_of_each<'a, T, K: std::hash::Hash + Eq>(
    items: impl IntoIterator<Item = &'a T>,
    key: impl Fn(&'a T) -> K,
) -> Vec<&'a T> {
    let items: Vec<&T> = items.into_iter().collect();
    let last: std::collections::HashMap<K, usize> =
        items.iter().enumerate().map(|(i, t)| (key(t), i)).collect();
    items
        .iter()
        .enumerate()
        .filter(|(i, t)| last.get(&key(t)) == Some(i))
        .map(|(_, t)| *t)
        .collect()
}

/// A policy spec as the engine types it. The API server prunes a `null` object field at decode
/// (admission-chain.md §2.3), and the mutating webhook's Go decoder turns a `null` list item into
/// the element's zero value (§4.2: `resourceSelectors: [null]`, `clusterNames: [null, m1]`), so
/// neither may lose the policy: when the tree does not type, it is typed again as the webhook
/// sees it, nulls pruned and then through the Go round trip. A value the Go types cannot hold
/// is the Go decoder's error: Karmada denies that policy, and admission reports the field.
fn typed_spec(kind: PolicyKind, spec: Option<&Node>) -> Result<PropagationSpec, String> {
    if let Ok(spec) = crate::source::de::from_node::<PropagationSpec>(spec) {
        return Ok(spec);
    }
    let Some(spec) = spec else {
        return Ok(PropagationSpec::default());
    };
    let mut json = spec.to_json();
    drop_null_fields(&mut json);
    // From a reference: a copy of every policy's spec to decode it cost more than the decode.
    if let Ok(spec) = PropagationSpec::deserialize(&json) {
        return Ok(spec);
    }
    // Decoded from the object's root, as the webhook decodes it: the error names the Go path
    // as Karmada's does (`Go struct field PropagationSpec.spec.priority`).
    let root = match kind {
        PolicyKind::PropagationPolicy => &gotypes::PROPAGATION_POLICY,
        PolicyKind::ClusterPropagationPolicy => &gotypes::CLUSTER_PROPAGATION_POLICY,
    };
    let object = serde_json::json!({ "spec": json });
    if let Some(e) = gotypes::first_type_error(&object, root, crate::source::FieldPath::root()) {
        return Err(e.message);
    }
    let mut json = gotypes::round_trip(Some(json), &gotypes::PROPAGATION_SPEC);
    drop_null_fields(&mut json);
    serde_json::from_value(json).map_err(|e| e.to_string())
}

/// The spec of a policy the Go decoder refuses, reduced to the resource selectors when they
/// type (each on its own): what it would have matched, for the notes that name it.
fn selectors_only(spec: Option<&Node>) -> PropagationSpec {
    let selectors = spec
        .and_then(|s| s.get("resourceSelectors"))
        .and_then(Node::as_seq)
        .map(|items| {
            items
                .iter()
                .filter_map(|rs| crate::source::de::from_node(Some(rs)).ok())
                .collect()
        })
        .unwrap_or_default();
    PropagationSpec {
        resource_selectors: selectors,
        ..PropagationSpec::default()
    }
}

fn drop_null_fields(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_null_fields);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(drop_null_fields),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    #[test]
    fn a_crd_declares_its_kind_and_scope_and_nothing_else_does() {
        let declared = |text: &str| {
            let inv = Inventory::from_documents(load(Source::new("t", text)).documents, "ns");
            match &inv.objects[..] {
                [Object::Template(t)] => t.declares.as_deref().cloned(),
                other => panic!("{other:?}"),
            }
        };
        let crd = |scope: &str| {
            format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.example.com}}\nspec:\n  group: example.com\n  names: {{kind: Widget}}\n  scope: {scope}\n")
        };
        let widget = |namespaced| DeclaredKind {
            group: "example.com".into(),
            kind: "Widget".into(),
            namespaced,
        };
        assert_eq!(declared(&crd("Cluster")), Some(widget(false)));
        assert_eq!(declared(&crd("Namespaced")), Some(widget(true)));
        // A scope the API server refuses declares nothing.
        assert_eq!(declared(&crd("Global")), None);
        assert_eq!(
            declared("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
            None
        );
    }

    #[test]
    fn of_one_policy_reference_the_last_document_is_the_applied_one() {
        let text = [
            crate::model::test_support::pp("a", "  priority: 1\n"),
            crate::model::test_support::pp("b", ""),
            crate::model::test_support::pp("a", "  priority: 2\n"),
        ]
        .concat();
        let inv = crate::model::test_support::inventory("t", &text);
        let applied: Vec<(&str, usize)> = inv
            .applied_policies()
            .iter()
            .map(|p| (p.meta.name.as_str(), p.doc))
            .collect();
        assert_eq!(applied, [("b", 1), ("a", 2)]);
    }

    #[test]
    fn a_template_is_typed_in_the_version_karmada_reads_it_in() {
        let hpa = |v: &str| {
            format!("---\napiVersion: {v}\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n")
        };
        let text = [hpa("autoscaling/v1"), hpa("autoscaling/v2")].concat();
        let inv = crate::model::test_support::inventory("t", &text);
        let versions: Vec<&str> = inv.templates().map(|t| t.api_version.as_str()).collect();
        assert_eq!(versions, ["autoscaling/v2", "autoscaling/v2"]);
    }

    #[test]
    fn of_one_override_identity_the_last_document_is_the_applied_one() {
        let op = |kind: &str, ns: &str, value: u32| {
            format!("apiVersion: policy.karmada.io/v1alpha1\nkind: {kind}\nmetadata: {{name: a{ns}}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap}}]\n  overrideRules: [{{overriders: {{labelsOverrider: [{{operator: add, value: {{v: '{value}'}}}}]}}}}]\n---\n")
        };
        let text = [
            op("OverridePolicy", "", 1),
            op("ClusterOverridePolicy", "", 2),
            op("OverridePolicy", ", namespace: other", 3),
            op("OverridePolicy", ", namespace: default", 4),
        ]
        .concat();
        let inv = Inventory::from_documents(load(Source::new("t", &text)).documents, "default");
        assert_eq!(
            inv.overrides().count(),
            4,
            "every document is checked on its own"
        );
        let applied: Vec<usize> = inv.applied_overrides().iter().map(|p| p.doc).collect();
        // The first one (default/a, from the default namespace) is replaced by the fourth; the
        // cluster-scoped one and the one in another namespace are other identities.
        assert_eq!(applied, [1, 2, 3]);
    }

    #[test]
    fn a_null_list_item_is_the_zero_value_the_webhook_decodes_it_to() {
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p}\nspec:\n  resourceSelectors:\n    - {apiVersion: apps/v1, kind: Deployment}\n    - null\n  placement:\n    clusterAffinity: {clusterNames: [null, m1]}\n    spreadConstraints: [null]\n";
        let inv = Inventory::from_documents(load(Source::new("t", text)).documents, "default");
        let p = inv.policies().next().expect("the policy is kept");
        assert_eq!(p.spec.resource_selectors.len(), 2);
        assert_eq!(p.spec.resource_selectors[1].kind, "");
        let placement = p.spec.placement.as_ref().unwrap();
        let names = &placement.cluster_affinity.as_ref().unwrap().cluster_names;
        assert_eq!(names, &["", "m1"]);
    }

    #[test]
    fn a_value_the_go_types_cannot_hold_leaves_the_policy_refused() {
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p}\nspec:\n  priority: high\n  resourceSelectors: [null, {apiVersion: apps/v1, kind: Deployment, name: web}]\n";
        let inv = Inventory::from_documents(load(Source::new("t", text)).documents, "default");
        assert_eq!(inv.admitted_policies().count(), 0);
        let p = inv.policies().next().expect("kept, refused");
        let Admission::Refused(message) = &p.admission else {
            panic!("{:?}", p.admission);
        };
        assert_eq!(
            message,
            "json: cannot unmarshal string into Go struct field PropagationSpec.spec.priority of type int32"
        );
        // What it would have matched: the selectors that type.
        let names: Vec<&str> = p
            .spec
            .resource_selectors
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, ["web"]);
    }

    #[test]
    fn a_null_scalar_does_not_make_a_policy_vanish() {
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p}\nspec:\n  resourceSelectors:\n    - {apiVersion: apps/v1, kind: Deployment, name: null}\n";
        let inv = Inventory::from_documents(load(Source::new("t", text)).documents, "default");
        let p = inv.policies().next().expect("the policy is kept");
        assert_eq!(p.spec.resource_selectors[0].name, "");
    }

    /// `then` sees each document with the object it became, on both sides of the size from
    /// which typing is split over two threads, and the result is `from_documents`'.
    #[test]
    fn each_typed_document_is_handed_over_with_its_object() {
        for n in [50, Inventory::PARALLEL_FROM + 10] {
            let mut text = String::new();
            for i in 0..n {
                text.push_str(&match i % 10 {
                    3 => "---
metadata: {name: no-type}
"
                    .to_string(),
                    _ => format!(
                        "---
apiVersion: v1
kind: ConfigMap
metadata: {{name: c{i}}}
"
                    ),
                });
            }
            let docs = load(Source::new("t.yaml", text)).documents;
            let seen = std::sync::Mutex::new(Vec::new());
            let inv = Inventory::from_documents_then(docs.clone(), "default", &|doc, object| {
                let name = object.map(|o| match o {
                    Object::Template(t) => t.meta.name.clone(),
                    _ => unreachable!("only templates here"),
                });
                seen.lock().unwrap().push((doc.index, name));
            });
            let seen = seen.into_inner().unwrap();
            assert_eq!(seen.len(), n, "{n}");
            for (i, (index, name)) in seen.into_iter().enumerate() {
                assert_eq!(index, i);
                assert_eq!(name, (i % 10 != 3).then(|| format!("c{i}")), "{n}: {i}");
            }
            let whole = Inventory::from_documents(docs, "default");
            assert_eq!(inv.objects.len(), whole.objects.len());
            assert_eq!(inv.problems.len(), whole.problems.len());
        }
    }

    #[test]
    fn large_inputs_classify_on_two_threads_in_document_order() {
        let mut text = String::new();
        for i in 0..20_010 {
            match i % 1000 {
                7 => text.push_str("---\nmetadata: {name: no-type}\n"),
                8 => text.push_str(
                    "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p}\nspec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n",
                ),
                _ => text.push_str(&format!(
                    "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\n"
                )),
            }
        }
        let docs = load(Source::new("big.yaml", text)).documents;
        let inv = Inventory::from_documents(docs, "default");
        assert_eq!(inv.documents.len(), 20_010);
        assert_eq!(inv.problems.len(), 21);
        assert!(inv.problems.iter().all(|p| p.doc % 1000 == 7));
        assert!(inv.problems.windows(2).all(|w| w[0].doc < w[1].doc));
        assert_eq!(inv.policies().count(), 21);
        let docs_of: Vec<usize> = inv
            .objects
            .iter()
            .map(|o| match o {
                Object::Policy(p) => p.doc,
                Object::Template(t) => t.doc,
                _ => unreachable!("only policies and templates here"),
            })
            .collect();
        assert_eq!(docs_of.len(), 20_010 - 21);
        assert!(docs_of.windows(2).all(|w| w[0] < w[1]), "document order");
        let t = inv.templates().find(|t| t.doc == 15_000).unwrap();
        assert_eq!(t.meta.name, "c15000");
        assert_eq!(t.namespace(), "default");
    }
}
