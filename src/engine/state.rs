//! A snapshot for the claim engine: admitted policies, templates with their claim metadata,
//! bindings, override names, feature gates and controller options, with the indexes that let
//! matching a template look only at the policies of its (apiVersion, kind, namespace).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::model::{
    group_of, Admission, DeclaredKind, Inventory, KarmadaVersion, Object, Policy, PolicyKind,
    PolicyRef, PropagationSpec,
};

use super::claim::{ClaimMeta, Excluded, Filters};
use super::rank::RankKey;
use super::selector::{selectors_priority, ImplicitPriority, Target};
use crate::model::feature_gates::GateSet;
use crate::model::Template;

/// What to make of a claim naming a policy the inputs lack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnknownClaimers {
    /// The inputs are the whole control plane: the claim is stale and dropped (§4.2).
    #[default]
    Stale,
    /// The inputs are partial: the policy exists with an unknown spec (preempt-check).
    AssumeExisting,
}

impl UnknownClaimers {
    /// Live: with every policy read, a claim naming a missing policy is stale (§4.2); with a
    /// policy read degraded, it may name one we could not see.
    pub fn when_policies_read(all_read: bool) -> UnknownClaimers {
        if all_read {
            UnknownClaimers::Stale
        } else {
            UnknownClaimers::AssumeExisting
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The release's gates as the controller-manager runs with them; the release is
    /// `gates.version`.
    pub gates: GateSet,
    pub filters: Filters,
    pub unknown_claimers: UnknownClaimers,
    /// The scheduler names the control plane's karmada-schedulers serve besides the default: a
    /// binding whose `schedulerName` is none of them is never scheduled.
    pub schedulers: crate::model::schedulers::Schedulers,
    /// The member clusters the configuration names (`knownClusters`), known by name only:
    /// without Cluster objects, a placement its names decide is evaluated over them (a name
    /// outside them is no cluster of the fleet), as `lint` judges it.
    pub known_clusters: Vec<String>,
}

impl Options {
    /// The Karmada release whose rules apply.
    pub fn version(&self) -> KarmadaVersion {
        self.gates.version
    }
}

/// A policy as Karmada stores it (after admission defaults).
#[derive(Clone, Debug)]
pub struct PolicyEntry {
    pub kind: PolicyKind,
    /// The PP's namespace; `""` for a CPP.
    pub namespace: String,
    pub name: String,
    /// The permanent-id label; generated (as the mutating webhook does on CREATE, M6) when absent.
    pub id: String,
    pub id_generated: bool,
    pub spec: PropagationSpec,
    pub terminating: bool,
    /// `false` for a policy only known from a claim (its spec is unknown).
    pub known: bool,
    /// The document it came from, when it came from the inputs.
    pub doc: Option<usize>,
}

impl PolicyEntry {
    pub fn reference(&self) -> PolicyRef {
        PolicyRef::of(self.kind, &self.namespace, &self.name)
    }

    pub fn is_pp(&self) -> bool {
        self.kind == PolicyKind::PropagationPolicy
    }

    /// `ExplicitPriority()`: `spec.priority`, 0 when nil (§2.2).
    pub fn priority(&self) -> i32 {
        self.spec.explicit_priority()
    }

    pub fn preemption_always(&self) -> bool {
        self.spec.preemption_always()
    }

    /// `preemptionEnabled`: `preemption: Always` AND the gate (§5.1, `preemption.go:49-58`).
    pub fn preemption_enabled(&self, gates: &GateSet) -> bool {
        gates.preemption() && self.preemption_always()
    }

    pub fn rank_key(&self, implicit: ImplicitPriority) -> RankKey<'_> {
        RankKey {
            is_pp: self.is_pp(),
            explicit: self.priority(),
            implicit,
            name: &self.name,
        }
    }

    /// The implicit priority of this policy for a template; PPs only see their own namespace
    /// (`LookForMatchedPolicy`, `detector.go:382-391`).
    pub fn match_priority(&self, t: &Target<'_>) -> ImplicitPriority {
        if self.is_pp() && (t.namespace.is_empty() || t.namespace != self.namespace) {
            return ImplicitPriority::MisMatch;
        }
        selectors_priority(t, &self.spec.resource_selectors)
    }
}

/// A resource template as the detector sees it.
#[derive(Clone, Debug)]
pub struct TemplateEntry {
    /// Shared with the template prepared before when the same ([`Prepared::take`]), as are
    /// the kind and the namespace: a repository has a hundred thousand templates and a few
    /// dozen kinds.
    pub api_version: Arc<str>,
    pub kind: Arc<str>,
    /// `""` for a cluster-scoped template.
    pub namespace: Arc<str>,
    pub name: Box<str>,
    pub labels: crate::model::StringMap,
    /// The claim keys as written in the input, when there are any (see
    /// [`TemplateEntry::claim`]): boxed, as most templates have none and a repository has
    /// a hundred thousand templates.
    claim_keys: Option<Box<ClaimMeta>>,
    pub terminating: bool,
    /// Boxed like the claim keys, and as rare.
    pub excluded: Option<Box<Excluded>>,
    /// What a workload names as its dependencies (see [`crate::model::dependencies`]).
    pub dependencies: Option<Box<[crate::model::dependencies::Dependency]>>,
    pub doc: Option<usize>,
}

/// The claim of a template without claim keys.
static NO_CLAIM: ClaimMeta = ClaimMeta {
    pp_namespace: None,
    pp_name: None,
    pp_id: None,
    cpp_name: None,
    cpp_id: None,
};

impl TemplateEntry {
    /// The claim keys as written in the input.
    pub fn claim(&self) -> &ClaimMeta {
        self.claim_keys.as_deref().unwrap_or(&NO_CLAIM)
    }

    pub fn target(&self) -> Target<'_> {
        Target {
            api_version: &self.api_version,
            kind: &self.kind,
            namespace: &self.namespace,
            name: &self.name,
            labels: &self.labels,
        }
    }

    /// The API group (`apps` for `apps/v1`, empty for core `v1`).
    pub fn group(&self) -> &str {
        crate::model::group_of(&self.api_version)
    }

    pub fn reference(&self) -> crate::model::ObjectRef {
        crate::model::ObjectRef {
            api_version: self.api_version.to_string(),
            kind: self.kind.to_string(),
            namespace: (!self.namespace.is_empty()).then(|| self.namespace.to_string()),
            name: self.name.to_string(),
        }
    }
}

/// What the engine reads from a ResourceBinding / ClusterResourceBinding.
#[derive(Clone, Debug, Default)]
pub struct BindingInfo {
    pub labels: crate::model::StringMap,
    pub clusters: Vec<String>,
}

/// A policy that admission refuses: it never reaches the detector.
#[derive(Clone, Debug)]
pub struct Rejected {
    pub policy: PolicyRef,
    pub errors: Vec<String>,
    /// The defaulted spec, to tell which templates it would have matched.
    pub spec: PropagationSpec,
    pub doc: Option<usize>,
    /// For a later copy of a stored policy refused as an update of it (its `schedulerName`
    /// differs), the stored copy's document: that copy stays.
    pub update_of: Option<usize>,
}

/// What applying one copy of a policy does when the copies of one identity are applied in turn
/// (`kubectl apply -R`, a GitOps controller): the first the API server admits creates it, each
/// later one is an update of the copy stored then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InTurn {
    /// It creates the policy (no earlier copy was stored).
    Creates,
    /// It replaces the stored copy of that document.
    Replaces(usize),
    /// Admission refuses it on its own; the stored copy (of that document, if any) stays.
    Refused { stored: Option<usize> },
    /// It changes `schedulerName`, so the validating webhook refuses the update
    /// ([`SCHEDULER_NAME_IMMUTABLE`](super::admission::SCHEDULER_NAME_IMMUTABLE)) and the
    /// stored copy of that document stays.
    UpdateRefused { stored: usize },
}

/// One copy of a policy as [`applied_in_turn`] reads it.
#[derive(Clone, Copy, Debug)]
pub struct PolicyCopy<'a> {
    pub doc: usize,
    /// Whether admission admits the copy on its own (its CREATE verdict).
    pub admitted: bool,
    pub scheduler_name: Option<&'a str>,
}

/// The fate of each copy of one policy identity, `copies` in document order: as the engine's
/// state takes them ([`State::from_inventory`] refuses the same updates).
pub fn applied_in_turn(copies: &[PolicyCopy<'_>]) -> Vec<InTurn> {
    let mut stored: Option<PolicyCopy<'_>> = None;
    let mut out = Vec::with_capacity(copies.len());
    for copy in copies {
        let fate = match stored {
            _ if !copy.admitted => InTurn::Refused {
                stored: stored.map(|s| s.doc),
            },
            Some(s)
                if super::admission::scheduler_name_changes(
                    s.scheduler_name,
                    copy.scheduler_name,
                ) =>
            {
                InTurn::UpdateRefused { stored: s.doc }
            }
            Some(s) => InTurn::Replaces(s.doc),
            None => InTurn::Creates,
        };
        if matches!(fate, InTurn::Creates | InTurn::Replaces(_)) {
            stored = Some(*copy);
        }
        out.push(fate);
    }
    out
}

/// Admission as the engine needs it: the defaulted spec and Karmada's error lines (the validating
/// webhook's, else the whole chain's refusal the policy is marked with).
pub fn admit_policy(policy: &Policy, version: KarmadaVersion) -> (PropagationSpec, Vec<String>) {
    admit_policy_spec(policy, policy.spec.clone(), version)
}

/// [`admit_policy`] with the spec moved in (see [`super::admission::admit_spec`]).
fn admit_policy_spec(
    policy: &Policy,
    spec: PropagationSpec,
    version: KarmadaVersion,
) -> (PropagationSpec, Vec<String>) {
    let admitted = super::admission::admit_spec(policy, spec, version);
    let violations = || {
        admitted
            .violations
            .iter()
            .map(super::admission::Violation::karmada_error)
            .collect()
    };
    // The whole chain's verdict, when the manifest went through it, is what the API server
    // answers: its first refusing stage. When that is the validating webhook, its violations
    // one by one; when an earlier stage refused (the schema's 422 comes before the webhook is
    // asked, a decoding error), that stage's message, as lint reports it first.
    let errors = match &policy.admission {
        Admission::Refused(message)
            if super::admission::denial(policy.kind, &admitted.violations).as_ref()
                != Some(message) =>
        {
            vec![message.clone()]
        }
        _ => violations(),
    };
    (admitted.spec, errors)
}

/// FxHash (rustc's hasher): the index keys are short strings from local inputs, so a
/// DoS-resistant hasher buys nothing and SipHash costs a third of the state build.
#[derive(Clone, Copy, Default)]
pub struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
    }

    /// Finished with murmur3's fmix64: the multiply leaves the low bits (hashbrown's bucket
    /// index) poorly mixed, and keys differing only near their end (`…/ns-0001/app-0000001`)
    /// clustered into long probe runs.
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// Keyed by the bytes of [`key3`]/[`key4`]: a lookup key assembled on the stack needs no UTF-8
/// check.
type FastMap<V> = HashMap<Vec<u8>, V, std::hash::BuildHasherDefault<FxHasher>>;
type FastRefMap<V> = HashMap<PolicyRef, V, std::hash::BuildHasherDefault<FxHasher>>;

fn key3(a: &str, b: &str, c: &str) -> Vec<u8> {
    [a, b, c].join("\u{1f}").into_bytes()
}

fn key4(a: &str, b: &str, c: &str, d: &str) -> Vec<u8> {
    [a, b, c, d].join("\u{1f}").into_bytes()
}

/// Calls `f` with the index key of `parts` (as [`key3`]/[`key4`] build it) assembled on the
/// stack: lookups run once or more per template, and a heap key each time was a fifth of the
/// per-template cost.
fn with_key<R>(parts: &[&str], f: impl FnOnce(&[u8]) -> R) -> R {
    let len = parts.iter().map(|p| p.len()).sum::<usize>() + parts.len().saturating_sub(1);
    let mut buf = [0u8; 256];
    if len > buf.len() {
        return f(parts.join("\u{1f}").as_bytes());
    }
    let mut i = 0;
    for (n, p) in parts.iter().enumerate() {
        if n > 0 {
            buf[i] = 0x1f;
            i += 1;
        }
        buf[i..i + p.len()].copy_from_slice(p.as_bytes());
        i += p.len();
    }
    f(&buf[..len])
}

/// Templates by identity (apiVersion, kind, namespace, name, as [`key4`] joins them): template
/// numbers hashed by that key and compared with the templates themselves. A map keyed by the
/// joined bytes stored a copy of every key, 9 MB and 90,000 allocations at 100,000 documents.
#[derive(Clone, Debug, Default)]
struct TemplateIndex(hashbrown::HashTable<u32>);

fn key_hash(key: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = FxHasher::default();
    h.write(key);
    h.finish()
}

fn template_key<R>(t: &TemplateEntry, f: impl FnOnce(&[u8]) -> R) -> R {
    with_key(&[&t.api_version, &t.kind, &t.namespace, &t.name], f)
}

/// The hash of an indexed template number, for the table to grow by.
fn rehash(templates: &[TemplateEntry]) -> impl Fn(&u32) -> u64 + '_ {
    |&j| template_key(&templates[j as usize], key_hash)
}

impl TemplateIndex {
    /// The template whose identity joins to `key`.
    fn get(&self, templates: &[TemplateEntry], key: &[u8]) -> Option<usize> {
        let is = |&i: &u32| template_key(&templates[i as usize], |k| k == key);
        self.0.find(key_hash(key), is).map(|&i| i as usize)
    }

    /// Indexes `templates[i]`, unless a template of the same identity is indexed: that one.
    /// One hash and one probe, for both the lookup and the insertion.
    fn insert(&mut self, templates: &[TemplateEntry], i: usize) -> Option<usize> {
        template_key(&templates[i], |key| {
            let is = |&j: &u32| template_key(&templates[j as usize], |k| k == key);
            match self.0.entry(key_hash(key), is, rehash(templates)) {
                hashbrown::hash_table::Entry::Occupied(same) => Some(*same.get() as usize),
                hashbrown::hash_table::Entry::Vacant(slot) => {
                    slot.insert(i as u32);
                    None
                }
            }
        })
    }

    fn reserve(&mut self, templates: &[TemplateEntry], more: usize) {
        self.0.reserve(more, rehash(templates));
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

/// Adds template `i` to the index by (apiVersion, kind).
fn index_template_gvk(by_gvk: &mut FastMap<Vec<usize>>, i: usize, t: &TemplateEntry) {
    let known_gvk = with_key(&[&t.api_version, &t.kind, ""], |k| {
        by_gvk.get_mut(k).map(|v| v.push(i)).is_some()
    });
    if !known_gvk {
        by_gvk.insert(key3(&t.api_version, &t.kind, ""), vec![i]);
    }
}

/// Objects per worker below which preparing them on one thread is faster.
const PARALLEL_MIN_OBJECTS: usize = 10_000;

/// A policy through admission, ready to insert.
#[derive(Clone, Debug)]
pub enum AdmittedPolicy {
    Admitted(PolicyEntry),
    Rejected(Rejected),
}

impl AdmittedPolicy {
    fn new(p: &Policy, version: KarmadaVersion) -> AdmittedPolicy {
        AdmittedPolicy::with_spec(p, p.spec.clone(), version)
    }

    /// `p` through admission with `spec` in place of its own.
    fn with_spec(p: &Policy, spec: PropagationSpec, version: KarmadaVersion) -> AdmittedPolicy {
        let (spec, errors) = admit_policy_spec(p, spec, version);
        let reference = p.reference();
        if !errors.is_empty() {
            return AdmittedPolicy::Rejected(Rejected {
                policy: reference,
                errors,
                spec,
                doc: Some(p.doc),
                update_of: None,
            });
        }
        let (id, id_generated) = match p.permanent_id() {
            Some(id) => (id.to_string(), false),
            None => (format!("generated:{reference}"), true),
        };
        AdmittedPolicy::Admitted(PolicyEntry {
            kind: p.kind,
            namespace: reference.namespace.unwrap_or_default(),
            name: reference.name,
            id,
            id_generated,
            spec,
            terminating: p.is_terminating(),
            known: true,
            doc: Some(p.doc),
        })
    }

    /// The document number, to renumber it.
    pub fn doc_mut(&mut self) -> &mut Option<usize> {
        match self {
            AdmittedPolicy::Admitted(p) => &mut p.doc,
            AdmittedPolicy::Rejected(r) => &mut r.doc,
        }
    }

    /// The document the policy came from.
    pub fn doc(&self) -> Option<usize> {
        match self {
            AdmittedPolicy::Admitted(p) => p.doc,
            AdmittedPolicy::Rejected(r) => r.doc,
        }
    }

    /// The reference of the policy.
    pub fn reference(&self) -> PolicyRef {
        match self {
            AdmittedPolicy::Admitted(p) => p.reference(),
            AdmittedPolicy::Rejected(r) => r.policy.clone(),
        }
    }

    /// Its defaulted spec.
    pub fn spec(&self) -> &PropagationSpec {
        match self {
            AdmittedPolicy::Admitted(p) => &p.spec,
            AdmittedPolicy::Rejected(r) => &r.spec,
        }
    }

    /// The policy's kind, namespace (`None` for a CPP) and name.
    pub fn identity(&self) -> (PolicyKind, Option<&str>, &str) {
        match self {
            AdmittedPolicy::Admitted(p) => (
                p.kind,
                (!p.namespace.is_empty()).then_some(p.namespace.as_str()),
                &p.name,
            ),
            AdmittedPolicy::Rejected(r) => (
                r.policy.kind,
                r.policy.namespace.as_deref().filter(|n| !n.is_empty()),
                &r.policy.name,
            ),
        }
    }
}

/// The per-object part of building a [`State`]: the policies through admission and the
/// template entries through the detector's filters (§1.4), each in input order. Independent per
/// object, so it can be done ahead, file by file (a streamed `lint` prepares each file on the
/// thread that parsed it), and the parts appended.
#[derive(Clone, Debug, Default)]
pub struct Prepared {
    pub policies: Vec<AdmittedPolicy>,
    pub templates: Vec<TemplateEntry>,
    /// The kinds the inputs' CustomResourceDefinitions declare, in input order.
    pub declared: Vec<DeclaredKind>,
}

impl Prepared {
    /// Prepares `objects`, leaving them as they are. Allocation-bound, so a large input is split
    /// over two threads.
    pub fn from_objects(options: &Options, objects: &[Object]) -> Prepared {
        let version = options.version();
        let one = |part: &[Object], capacity: usize| -> Prepared {
            let mut prepared = Prepared {
                policies: Vec::new(),
                templates: Vec::with_capacity(capacity),
                declared: Vec::new(),
            };
            let mut shared = Shared::default();
            for object in part {
                match object {
                    Object::Policy(p) => prepared.policies.push(AdmittedPolicy::new(p, version)),
                    Object::Template(t) => {
                        prepared.declared.extend(t.declares.as_deref().cloned());
                        let entry = template_entry(options, t.clone(), &mut shared);
                        prepared.templates.push(entry);
                    }
                    _ => {}
                }
            }
            prepared
        };
        if objects.len() < 2 * PARALLEL_MIN_OBJECTS {
            return one(objects, 0);
        }
        let (first, second) = objects.split_at(objects.len() / 2);
        // The first half's vector takes the second's entries without growing again.
        let (mut all, second) =
            crate::util::parallel::join(|| one(first, objects.len()), || one(second, 0));
        all.append(second, 0);
        all
    }

    /// Prepares `objects`, taking from them what the state needs rather than copying it: the
    /// templates and the policies leave `objects` (their entries are all the state needs, and
    /// a policy's spec moves into its entry); the other objects stay.
    pub fn take(options: &Options, objects: &mut Vec<Object>) -> Prepared {
        let (mut templates, mut policies) = (0, 0);
        for object in objects.iter() {
            match object {
                Object::Template(_) => templates += 1,
                Object::Policy(_) => policies += 1,
                _ => {}
            }
        }
        // Sized up front: vectors grown by doubling touch twice the memory, on the parsing
        // threads of a large lint.
        let mut prepared = Prepared {
            policies: Vec::with_capacity(policies),
            templates: Vec::with_capacity(templates),
            declared: Vec::new(),
        };
        let mut kept = Vec::with_capacity(objects.len() - templates - policies);
        let mut shared = Shared::default();
        for object in objects.drain(..) {
            match object {
                Object::Template(mut t) => {
                    prepared.declared.extend(t.declares.take().map(|d| *d));
                    let entry = template_entry(options, t, &mut shared);
                    prepared.templates.push(entry);
                }
                Object::Policy(mut p) => {
                    let spec = std::mem::take(&mut p.spec);
                    let admitted = AdmittedPolicy::with_spec(&p, spec, options.version());
                    prepared.policies.push(admitted);
                }
                other => kept.push(other),
            }
        }
        *objects = kept;
        prepared
    }

    /// Appends `other`, whose document indices count from `doc_offset`.
    pub fn append(&mut self, other: Prepared, doc_offset: usize) {
        let shift = |doc: &mut Option<usize>| {
            if let Some(d) = doc {
                *d += doc_offset;
            }
        };
        self.policies
            .extend(other.policies.into_iter().map(|mut p| {
                shift(p.doc_mut());
                p
            }));
        self.templates
            .extend(other.templates.into_iter().map(|mut t| {
                shift(&mut t.doc);
                t
            }));
        self.declared.extend(other.declared);
    }
}

/// Whether the detector's filters skip template `t` (see [`Filters::excluded`]). Not cached:
/// the check is a few string comparisons and one anchored regex, cheaper than a cache keyed
/// by namespace, which a repository with thousands of namespaces mostly missed and kept
/// growing (a tenth of the per-file work at 100,000 documents).
fn template_excluded(options: &Options, t: &Template) -> Option<Excluded> {
    let (filters, release) = (&options.filters, options.version());
    // Read in another version than written: the written one must be served to be applied.
    if let Some(e) = t
        .applied_as
        .as_deref()
        .and_then(|v| filters.not_served(v, &t.kind, release))
    {
        return Some(e);
    }
    let namespace = t.meta.namespace.as_deref().unwrap_or_default();
    filters.excluded(
        &t.api_version,
        &t.kind,
        namespace,
        &t.meta.name,
        &t.meta.labels,
        release,
    )
}

/// Strings that templates repeat from one to the next (apiVersion, kind, namespace): a value
/// equal to the previous template's is that one's copy. Consecutive templates mostly share
/// their kind, and often their namespace; a set of every value seen cost more in hashing and
/// growing than the allocations it saved.
#[derive(Default)]
struct Shared([Option<Arc<str>>; 3]);

impl Shared {
    const API_VERSION: usize = 0;
    const KIND: usize = 1;
    const NAMESPACE: usize = 2;

    fn get(&mut self, field: usize, s: String) -> Arc<str> {
        let last = &mut self.0[field];
        match last {
            Some(shared) if **shared == *s => shared.clone(),
            _ => last.insert(s.into()).clone(),
        }
    }
}

/// The template's entry, made of its own strings but for those `shared` holds.
fn template_entry(options: &Options, t: Template, shared: &mut Shared) -> TemplateEntry {
    let excluded = template_excluded(options, &t);
    let claim = ClaimMeta::read(&t.meta.labels, &t.meta.annotations);
    TemplateEntry {
        claim_keys: (claim != NO_CLAIM).then(|| Box::new(claim)),
        api_version: shared.get(Shared::API_VERSION, t.api_version),
        kind: shared.get(Shared::KIND, t.kind),
        namespace: shared.get(Shared::NAMESPACE, t.meta.namespace.unwrap_or_default()),
        name: t.meta.name.into(),
        labels: t.meta.labels,
        terminating: t.meta.deletion_timestamp.is_some(),
        excluded: excluded.map(Box::new),
        dependencies: t.depends_on,
        doc: Some(t.doc),
    }
}

/// A policy's index keys as parts (see [`State::policy_keys`]).
type PolicyKeys<'a> = (Vec<[&'a str; 3]>, Vec<[&'a str; 4]>);

/// The snapshot, with indexes.
#[derive(Clone, Debug, Default)]
pub struct State {
    pub options: Options,
    /// Slots stay put when a policy is deleted, so indexes stay valid.
    pub policies: Vec<Option<PolicyEntry>>,
    pub templates: Vec<TemplateEntry>,
    pub rejected: Vec<Rejected>,
    /// OverridePolicies as (namespace, name); ClusterOverridePolicies by name.
    pub overrides: HashSet<(String, String)>,
    pub cluster_overrides: HashSet<String>,
    /// Bindings by the template they bind (`apiVersion/kind/namespace/name` key).
    pub bindings: FastMap<BindingInfo>,
    policy_by_ref: FastRefMap<usize>,
    /// Policies by their selectors without a name: PPs by (apiVersion, kind, namespace); CPPs by
    /// (apiVersion, kind, selector namespace), `""` standing for "any namespace and
    /// cluster-scoped". Naming selectors are in `named_index` only.
    pp_index: FastMap<Vec<usize>>,
    cpp_index: FastMap<Vec<usize>>,
    /// Policies with a selector naming (apiVersion, kind, namespace, name): preemption targets.
    named_index: FastMap<Vec<usize>>,
    /// Templates by (apiVersion, kind) and by full identity.
    templates_by_gvk: FastMap<Vec<usize>>,
    template_by_key: TemplateIndex,
    /// The kinds the inputs' CustomResourceDefinitions declare (see [`State::is_namespaced`]).
    declared: Vec<DeclaredKind>,
}

impl State {
    /// Whether objects of the kind are namespaced: as a CustomResourceDefinition of the inputs
    /// declares it (the last one, as the API server keeps the last applied), else as the
    /// built-in table knows it ([`crate::kube::scope::is_namespaced`]).
    pub fn is_namespaced(&self, api_version: &str, kind: &str) -> bool {
        let group = group_of(api_version);
        self.declared
            .iter()
            .rev()
            .find(|d| d.group == group && d.kind == kind)
            .map_or_else(
                || crate::kube::scope::is_namespaced(api_version, kind),
                |d| d.namespaced,
            )
    }

    /// Why the detector never matches `rs`, a selector of a policy of `kind`: a built-in API
    /// no release serves ([`crate::kube::kinds::unserved_kind`]) unless a CRD of the inputs
    /// declares it, else [`Filters::never_matched`], its kind's scope as
    /// [`State::is_namespaced`] says.
    pub fn never_matched(
        &self,
        kind: PolicyKind,
        rs: &crate::model::policy::ResourceSelector,
    ) -> Option<super::claim::NeverMatched> {
        let release = self.options.version();
        // A kind a CRD of the inputs declares is served, whatever its group.
        let group = group_of(&rs.api_version);
        let declared = self
            .declared
            .iter()
            .any(|d| d.group == group && d.kind == rs.kind);
        if let Some(instead) =
            crate::kube::kinds::unserved_kind(&rs.api_version, &rs.kind).filter(|_| !declared)
        {
            return Some(super::claim::NeverMatched::UnservedKind {
                api_version: rs.api_version.clone(),
                kind: rs.kind.clone(),
                instead,
                release,
            });
        }
        let namespaced = self.is_namespaced(&rs.api_version, &rs.kind);
        self.options
            .filters
            .never_matched(kind, rs, namespaced, release)
    }

    /// Templates of a kind the inputs declare cluster-scoped lose the namespace they were given:
    /// the API server stores them without one (so the detector reads no PropagationPolicy
    /// for them, `pkg/detector/detector.go` `LookForMatchedPolicy`), and the detector's
    /// namespace filters do not apply to them.
    fn serve_at_declared_scopes(&self, templates: &mut [TemplateEntry]) {
        if self.declared.iter().all(|d| d.namespaced) {
            return;
        }
        for t in templates.iter_mut() {
            if t.namespace.is_empty() || self.is_namespaced(&t.api_version, &t.kind) {
                continue;
            }
            t.namespace = Arc::from("");
            t.excluded = self
                .options
                .filters
                .excluded(
                    &t.api_version,
                    &t.kind,
                    "",
                    &t.name,
                    &t.labels,
                    self.options.version(),
                )
                .map(Box::new);
        }
    }

    pub fn new(options: Options) -> State {
        State {
            options,
            ..State::default()
        }
    }

    /// Builds the snapshot from the inputs: each policy through admission (rejected ones are
    /// kept aside), each template through the detector's filters. A later document with the
    /// same identity replaces an earlier one, as successive `kubectl apply`s would.
    pub fn from_inventory(inv: &Inventory, options: Options) -> State {
        // Admission and the template entries are independent per object and are most of the
        // build (every spec, string and label is copied): prepared on two threads for a large
        // input, then inserted in input order.
        let prepared = Prepared::from_objects(&options, &inv.objects);
        State::from_prepared(inv, prepared, options)
    }

    /// The entries of a snapshot built by [`State::from_prepared`] back, in document order, when
    /// it kept all `templates` and `policies` it was given (no identity repeated, no claimer
    /// added): a second snapshot that shares most of them is built from them without
    /// preparing them again. `None` when some were replaced or added.
    pub fn into_prepared(self, templates: usize, policies: usize) -> Option<Prepared> {
        let mut admitted: Vec<AdmittedPolicy> = self
            .policies
            .into_iter()
            .flatten()
            .map(AdmittedPolicy::Admitted)
            .chain(self.rejected.into_iter().map(AdmittedPolicy::Rejected))
            .collect();
        let in_inputs = |p: &AdmittedPolicy| p.doc().is_some();
        // In document order, each from the inputs: as prepared, none replaced.
        let mut last = None;
        let ordered = self
            .templates
            .iter()
            .all(|t| t.doc.is_some() && std::mem::replace(&mut last, t.doc) < t.doc);
        if admitted.len() != policies
            || !admitted.iter().all(in_inputs)
            || self.templates.len() != templates
            || !ordered
        {
            return None;
        }
        admitted.sort_by_key(AdmittedPolicy::doc);
        Some(Prepared {
            policies: admitted,
            templates: self.templates,
            declared: self.declared,
        })
    }

    /// [`State::from_inventory`] with the policies and templates prepared ahead
    /// ([`Prepared`]); the inventory's own templates and policies are not read again.
    pub fn from_prepared(inv: &Inventory, prepared: Prepared, options: Options) -> State {
        let mut state = State::new(options);
        let Prepared {
            policies,
            mut templates,
            declared,
        } = prepared;
        state.declared = declared;
        state.serve_at_declared_scopes(&mut templates);
        if templates.len() < PARALLEL_MIN_OBJECTS {
            state.add_policies_and_objects(inv, policies);
            state.add_templates(templates);
        } else {
            // The templates' indexes and the policies' are independent (the policies' never
            // read the templates): built side by side.
            let ((), indexed) = crate::util::parallel::join(
                || state.add_policies_and_objects(inv, policies),
                || {
                    let mut part = State::default();
                    part.add_templates(templates);
                    part
                },
            );
            state.templates = indexed.templates;
            state.template_by_key = indexed.template_by_key;
            state.templates_by_gvk = indexed.templates_by_gvk;
        }
        if state.options.unknown_claimers == UnknownClaimers::AssumeExisting {
            state.add_unknown_claimers();
        }
        state
    }

    /// The policies through admission, then the other objects the state reads (overrides,
    /// bindings) of `inv`.
    fn add_policies_and_objects(&mut self, inv: &Inventory, policies: Vec<AdmittedPolicy>) {
        self.policies.reserve(policies.len());
        self.policy_by_ref.reserve(policies.len());
        for p in policies {
            self.add_admitted(p);
        }
        for object in &inv.objects {
            match object {
                // One the API server refuses is not stored: dependentOverrides cannot name it.
                Object::Override(o) if o.admission.refusal().is_some() => {}
                Object::Override(o) => {
                    if o.cluster_scoped {
                        self.cluster_overrides.insert(o.meta.name.clone());
                    } else {
                        self.overrides.insert((
                            o.meta.namespace.clone().unwrap_or_default(),
                            o.meta.name.clone(),
                        ));
                    }
                }
                // Only the binding Karmada keeps for the template decides what it dispatches.
                Object::Binding(b) if b.is_generated() => {
                    let r = &b.spec.resource;
                    self.bindings.insert(
                        key4(&r.api_version, &r.kind, &r.namespace, &r.name),
                        BindingInfo {
                            labels: b.meta.labels.clone(),
                            clusters: b.spec.clusters.iter().map(|c| c.name.clone()).collect(),
                        },
                    );
                }
                Object::Binding(_) | Object::Policy(_) | Object::Template(_) | Object::Work(_) => {}
            }
        }
    }

    /// Admission, then insert (or replace) the policy. Returns its slot, or `None` if rejected.
    pub fn add_policy_from_model(&mut self, p: &Policy) -> Option<usize> {
        let admitted = AdmittedPolicy::new(p, self.options.version());
        self.add_admitted(admitted)
    }

    fn add_admitted(&mut self, admitted: AdmittedPolicy) -> Option<usize> {
        match admitted {
            AdmittedPolicy::Rejected(r) => {
                self.rejected.push(r);
                None
            }
            AdmittedPolicy::Admitted(entry) => match self.update_refused(&entry) {
                Some(stored) => {
                    self.rejected.push(Rejected {
                        policy: entry.reference(),
                        errors: vec![super::admission::SCHEDULER_NAME_IMMUTABLE.to_string()],
                        spec: entry.spec,
                        doc: entry.doc,
                        update_of: Some(stored),
                    });
                    None
                }
                None => Some(self.upsert_policy(entry)),
            },
        }
    }

    /// The document of the stored copy that `entry`, a later copy of the same policy from the
    /// inputs, updates, when the validating webhook refuses that update: applied in turn
    /// (`kubectl apply -R`), the second copy changes `schedulerName`, which `validateUpdate`
    /// denies before any other check (PP validating.go:72-75, CPP :58-62). See
    /// [`applied_in_turn`] for the same judgment over the copies of one identity.
    fn update_refused(&self, entry: &PolicyEntry) -> Option<usize> {
        let stored = self.policy_by_ref.get(&entry.reference())?;
        let stored = self.policies[*stored].as_ref()?;
        let (old, new) = (&stored.spec.scheduler_name, &entry.spec.scheduler_name);
        let changes = super::admission::scheduler_name_changes(old.as_deref(), new.as_deref());
        (stored.known && entry.doc.is_some() && changes).then_some(stored.doc)?
    }

    /// Inserts a policy, replacing one with the same identity (its slot is reused).
    pub fn upsert_policy(&mut self, entry: PolicyEntry) -> usize {
        let reference = entry.reference();
        let idx = match self.policy_by_ref.get(&reference) {
            Some(&i) => {
                self.unindex_policy(i);
                self.policies[i] = Some(entry);
                i
            }
            None => {
                self.policies.push(Some(entry));
                let i = self.policies.len() - 1;
                self.policy_by_ref.insert(reference, i);
                i
            }
        };
        self.index_policy(idx);
        idx
    }

    /// Removes a policy (its finalizer is gone).
    pub fn remove_policy(&mut self, idx: usize) {
        if let Some(p) = self.policies[idx].as_ref() {
            let r = p.reference();
            self.unindex_policy(idx);
            self.policy_by_ref.remove(&r);
            self.policies[idx] = None;
        }
    }

    /// The index keys of a policy, as parts: (apiVersion, kind, namespace) for its selectors
    /// without a name and (apiVersion, kind, namespace, name) for the naming ones, each once.
    fn policy_keys(p: &PolicyEntry) -> PolicyKeys<'_> {
        let mut match_keys = Vec::new();
        let mut named_keys = Vec::new();
        for rs in &p.spec.resource_selectors {
            let ns = if p.is_pp() {
                // After the mutating default (M1) a PP selector's namespace is its own; one that
                // differs can never match a template of the PP's namespace (detector.go:388-391).
                if !rs.namespace.is_empty() && rs.namespace != p.namespace {
                    continue;
                }
                p.namespace.as_str()
            } else {
                rs.namespace.as_str()
            };
            // A selector naming its template is found through the named index alone, so the
            // candidates of a template do not grow with the policies of its namespace (most
            // selectors name their template).
            if rs.name.is_empty() {
                match_keys.push([rs.api_version.as_str(), rs.kind.as_str(), ns]);
            } else {
                named_keys.push([
                    rs.api_version.as_str(),
                    rs.kind.as_str(),
                    ns,
                    rs.name.as_str(),
                ]);
            }
        }
        match_keys.sort_unstable();
        match_keys.dedup();
        named_keys.sort_unstable();
        named_keys.dedup();
        (match_keys, named_keys)
    }

    fn index_policy(&mut self, idx: usize) {
        let Some(p) = self.policies[idx].as_ref() else {
            return;
        };
        let (match_keys, named_keys) = State::policy_keys(p);
        let index = if p.is_pp() {
            &mut self.pp_index
        } else {
            &mut self.cpp_index
        };
        // A heap key only for a key seen for the first time.
        let push = |index: &mut FastMap<Vec<usize>>, parts: &[&str]| {
            if !with_key(parts, |k| index.get_mut(k).map(|v| v.push(idx)).is_some()) {
                index.insert(parts.join("\u{1f}").into_bytes(), vec![idx]);
            }
        };
        for k in &match_keys {
            push(index, k);
        }
        for k in &named_keys {
            push(&mut self.named_index, k);
        }
    }

    fn unindex_policy(&mut self, idx: usize) {
        let Some(p) = self.policies[idx].as_ref() else {
            return;
        };
        let (match_keys, named_keys) = State::policy_keys(p);
        for k in &match_keys {
            for index in [&mut self.pp_index, &mut self.cpp_index] {
                with_key(k, |k| {
                    if let Some(v) = index.get_mut(k) {
                        v.retain(|&i| i != idx);
                    }
                });
            }
        }
        for k in &named_keys {
            with_key(k, |k| {
                if let Some(v) = self.named_index.get_mut(k) {
                    v.retain(|&i| i != idx);
                }
            });
        }
    }

    /// [`State::add_template`] for each entry in order. Into an empty state without repeated
    /// identities (the usual case) the entries are indexed where they are: moving each entry
    /// (a third of a kilobyte) into place cost more than indexing it.
    fn add_templates(&mut self, entries: Vec<TemplateEntry>) {
        if self.templates.is_empty() {
            let mut repeated = false;
            self.template_by_key.reserve(&entries, entries.len());
            for (i, t) in entries.iter().enumerate() {
                if self.template_by_key.insert(&entries, i).is_some() {
                    repeated = true;
                    break;
                }
                index_template_gvk(&mut self.templates_by_gvk, i, t);
            }
            if !repeated {
                self.templates = entries;
                return;
            }
            self.template_by_key.clear();
            self.templates_by_gvk.clear();
        }
        for t in entries {
            self.add_template(t);
        }
    }

    pub fn add_template(&mut self, t: TemplateEntry) -> usize {
        let i = self.templates.len();
        self.templates.push(t);
        if let Some(same) = self.template_by_key.insert(&self.templates, i) {
            // The new entry, last, takes the place of the one of the same identity.
            self.templates.swap_remove(same);
            return same;
        }
        index_template_gvk(&mut self.templates_by_gvk, i, &self.templates[i]);
        i
    }

    /// Claims that name a policy the inputs lack: add it as existing with an unknown spec. A
    /// policy the inputs hold but admission refuses is not lacking: the API server never stores
    /// it, so a claim naming it is stale (claim-and-preemption.md §4.2, `policy.go:112-128`) and
    /// it owns nothing, as in every other subcommand.
    fn add_unknown_claimers(&mut self) {
        let mut missing: Vec<(PolicyRef, String)> = Vec::new();
        for t in &self.templates {
            for (r, id) in [
                (t.claim().pp_claim(), t.claim().pp_id.clone()),
                (t.claim().cpp_claim(), t.claim().cpp_id.clone()),
            ] {
                if let (Some(r), Some(id)) = (r, id) {
                    if !self.policy_by_ref.contains_key(&r)
                        && !self.rejected.iter().any(|x| x.policy == r)
                        && !missing.iter().any(|(m, _)| *m == r)
                    {
                        missing.push((r, id));
                    }
                }
            }
        }
        for (r, id) in missing {
            self.upsert_policy(PolicyEntry {
                kind: r.kind,
                namespace: r.namespace.clone().unwrap_or_default(),
                name: r.name.clone(),
                id,
                id_generated: false,
                spec: PropagationSpec::default(),
                terminating: false,
                known: false,
                doc: None,
            });
        }
    }

    pub fn policy(&self, idx: usize) -> &PolicyEntry {
        self.policies[idx].as_ref().expect("live policy slot")
    }

    pub fn policy_mut(&mut self, idx: usize) -> &mut PolicyEntry {
        self.policies[idx].as_mut().expect("live policy slot")
    }

    pub fn find_policy(&self, r: &PolicyRef) -> Option<usize> {
        self.policy_by_ref.get(r).copied()
    }

    /// The `schedulerName` of `policy` when no karmada-scheduler of this control plane serves
    /// it, so that its bindings are never scheduled (`schedulerNameFilter`,
    /// pkg/scheduler/event_handler.go:380-386; [`Schedulers::unserved`]).
    ///
    /// [`Schedulers::unserved`]: crate::model::schedulers::Schedulers::unserved
    pub fn unserved_scheduler<'p>(&self, policy: &'p PolicyEntry) -> Option<&'p str> {
        let name = policy.spec.scheduler_name.as_deref();
        self.options.schedulers.unserved(name)
    }

    pub fn live_policies(&self) -> impl Iterator<Item = (usize, &PolicyEntry)> {
        self.policies
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.as_ref().map(|p| (i, p)))
    }

    pub fn find_template(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Option<usize> {
        with_key(&[api_version, kind, namespace, name], |k| {
            self.template_by_key.get(&self.templates, k)
        })
    }

    /// [`State::find_template`] of a reference (no namespace: cluster-scoped).
    pub fn template_of(&self, r: &crate::model::ObjectRef) -> Option<usize> {
        let ns = r.namespace.as_deref().unwrap_or("");
        self.find_template(&r.api_version, &r.kind, ns, &r.name)
    }

    /// Templates of one apiVersion/kind (any namespace).
    pub fn templates_of(&self, api_version: &str, kind: &str) -> &[usize] {
        with_key(&[api_version, kind, ""], |k| self.templates_by_gvk.get(k))
            .map_or(&[], Vec::as_slice)
    }

    /// Every policy that may match template `t` (PPs of its namespace, CPPs), each once, with
    /// its implicit priority (> 0 only). Index lookups only: no walk over all policies.
    pub fn matching_policies(&self, t: usize) -> Vec<(usize, ImplicitPriority)> {
        let mut out = Vec::new();
        self.matching_policies_into(t, &mut out);
        out
    }

    /// [`State::matching_policies`] appended to `out`: a caller matching every template keeps
    /// them all in one vector rather than one per template.
    pub fn matching_policies_into(&self, t: usize, out: &mut Vec<(usize, ImplicitPriority)>) {
        self.matching_policies_and_named_into(t, out);
    }

    /// [`State::matching_policies_into`], and whether some live policy names template `t`
    /// ([`State::is_named`]): the lookup of the naming selectors is the same one.
    pub fn matching_policies_and_named_into(
        &self,
        t: usize,
        out: &mut Vec<(usize, ImplicitPriority)>,
    ) -> bool {
        let tpl = &self.templates[t];
        let target = tpl.target();
        let empty: &[usize] = &[];
        let (pps, cpps_ns) = if tpl.namespace.is_empty() {
            (empty, empty)
        } else {
            with_key(&[&tpl.api_version, &tpl.kind, &tpl.namespace], |k| {
                (
                    self.pp_index.get(k).map_or(empty, Vec::as_slice),
                    self.cpp_index.get(k).map_or(empty, Vec::as_slice),
                )
            })
        };
        let cpps_all = with_key(&[&tpl.api_version, &tpl.kind, ""], |k| {
            self.cpp_index.get(k).map_or(empty, Vec::as_slice)
        });
        // Selectors naming the template: in its namespace (PPs, CPPs that set it) and, for a
        // CPP selector without a namespace, in any (the same key for a cluster-scoped one).
        let named = |ns: &str| {
            with_key(&[&tpl.api_version, &tpl.kind, ns, &tpl.name], |k| {
                self.named_index.get(k).map_or(empty, Vec::as_slice)
            })
        };
        let named_here = named(&tpl.namespace);
        let is_named = self.any_live(named_here);
        let named_anywhere = if tpl.namespace.is_empty() {
            empty
        } else {
            named("")
        };
        let matching = |i: usize| {
            let p = self.policies[i].as_ref()?;
            let m = p.match_priority(&target);
            m.matches().then_some((i, m))
        };
        // Candidates in slot order, each once. Usually one short list already in order: read it
        // in place; else merge on the stack (a heap buffer only for long lists).
        let lists = [pps, cpps_ns, cpps_all, named_here, named_anywhere];
        let mut non_empty = lists.iter().filter(|l| !l.is_empty());
        if let (Some(only), None) = (non_empty.next(), non_empty.next()) {
            if only.windows(2).all(|w| w[0] < w[1]) {
                out.extend(only.iter().filter_map(|&i| matching(i)));
                return is_named;
            }
        }
        let total = lists.iter().map(|l| l.len()).sum();
        let mut stack = [0usize; 32];
        let mut heap = Vec::new();
        let cands: &mut [usize] = if total <= stack.len() {
            &mut stack[..total]
        } else {
            heap.resize(total, 0);
            &mut heap
        };
        let mut at = 0;
        for l in lists {
            cands[at..at + l.len()].copy_from_slice(l);
            at += l.len();
        }
        cands.sort_unstable();
        let mut prev = None;
        for &i in cands.iter() {
            if prev != Some(i) {
                prev = Some(i);
                out.extend(matching(i));
            }
        }
        is_named
    }

    /// Policies with a selector naming template `t` exactly as the preemption fetch would
    /// (`fetchResourceTemplate` by the selector's apiVersion, kind, namespace and name, §5.2):
    /// for a CPP the selector namespace must equal the template's (`""` for cluster-scoped).
    pub fn naming_policies(&self, t: usize) -> Vec<usize> {
        let tpl = &self.templates[t];
        let mut v = with_key(
            &[&tpl.api_version, &tpl.kind, &tpl.namespace, &tpl.name],
            |k| self.named_index.get(k).cloned(),
        )
        .unwrap_or_default();
        v.retain(|&i| self.policies[i].is_some());
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether any live policy has a selector naming template `t` ([`State::naming_policies`]
    /// is not empty), without building the list.
    pub fn is_named(&self, t: usize) -> bool {
        if self.named_index.is_empty() {
            return false;
        }
        let tpl = &self.templates[t];
        with_key(
            &[&tpl.api_version, &tpl.kind, &tpl.namespace, &tpl.name],
            |k| {
                self.named_index
                    .get(k)
                    .is_some_and(|slots| self.any_live(slots))
            },
        )
    }

    /// Whether any of the policy slots an index lists still holds a policy (a removed one
    /// leaves its slot empty).
    fn any_live(&self, slots: &[usize]) -> bool {
        slots.iter().any(|&i| self.policies[i].is_some())
    }

    /// [`State::is_named`] for every template at once, by a pass over the index of named
    /// selectors: the tests' second way to the answer the settling pass gets per template
    /// ([`State::matching_policies_and_named_into`]).
    #[cfg(test)]
    pub fn named_templates(&self) -> Vec<bool> {
        let mut named = vec![false; self.templates.len()];
        for (key, policies) in &self.named_index {
            if self.any_live(policies) {
                if let Some(t) = self.template_by_key.get(&self.templates, key) {
                    named[t] = true;
                }
            }
        }
        named
    }

    /// Whether the policy has a selector naming the template as the preemption fetch does.
    pub fn names_template(&self, p: usize, t: usize) -> bool {
        self.naming_policies(t).contains(&p)
    }

    /// `IsDependentOverridesPresent` (§6.5, `pkg/util/helper/policy.go:47-76`): the names
    /// that are missing.
    pub fn missing_overrides(&self, p: usize) -> Vec<String> {
        let p = self.policy(p);
        p.spec
            .dependent_overrides
            .iter()
            .filter(|name| match p.kind {
                PolicyKind::PropagationPolicy => !self
                    .overrides
                    .contains(&(p.namespace.clone(), (*name).clone())),
                PolicyKind::ClusterPropagationPolicy => !self.cluster_overrides.contains(*name),
            })
            .cloned()
            .collect()
    }

    /// Whether the template's binding carries the claim of policy `p` (§6.2: the unmatched
    /// cleanup is RB-driven). With no binding in the inputs we assume the normal case: the
    /// detector created it with the claim.
    pub fn binding_carries_claim(&self, t: usize, p: usize) -> bool {
        let Some(b) = self.binding_of(t) else {
            return true;
        };
        let policy = self.policy(p);
        b.labels
            .get(policy.kind.permanent_id_label())
            .is_some_and(|v| *v == policy.id || policy.id_generated)
    }

    pub fn binding_of(&self, t: usize) -> Option<&BindingInfo> {
        let tpl = &self.templates[t];
        if self.bindings.is_empty() {
            return None;
        }
        with_key(
            &[&tpl.api_version, &tpl.kind, &tpl.namespace, &tpl.name],
            |k| self.bindings.get(k),
        )
    }

    /// Rejected policies whose (defaulted) selectors would match the template.
    pub fn rejected_matching(&self, t: usize) -> Vec<&Rejected> {
        let tpl = &self.templates[t];
        let target = tpl.target();
        self.rejected
            .iter()
            .filter(|r| {
                let pp_scope_ok = match r.policy.kind {
                    PolicyKind::PropagationPolicy => {
                        !tpl.namespace.is_empty()
                            && r.policy.namespace.as_deref() == Some(&*tpl.namespace)
                    }
                    PolicyKind::ClusterPropagationPolicy => true,
                };
                pp_scope_ok && selectors_priority(&target, &r.spec.resource_selectors).matches()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    /// Only the binding Karmada names for the template (`nginx-deployment`) is its binding: a
    /// hand-written one of another name for the same resource (magnate3/karmada_deploy `demo1`)
    /// dispatches nothing.
    #[test]
    fn a_binding_of_another_name_is_not_the_templates() {
        let binding = |name: &str| {
            format!("---\napiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  resource: {{apiVersion: apps/v1, kind: Deployment, namespace: default, name: nginx}}\n  clusters: [{{name: member9}}]\n")
        };
        let deployment =
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\n";
        let state = |b: &str| {
            let inv = crate::model::test_support::inventory("in.yaml", &format!("{deployment}{b}"));
            super::State::from_inventory(&inv, Default::default())
        };
        assert!(state(&binding("binding-foo")).binding_of(0).is_none());
        let own = state(&binding("nginx-deployment"));
        assert_eq!(own.binding_of(0).map(|b| b.clusters.len()), Some(1));
    }

    use super::*;

    /// A later document with the same identity replaces the earlier one in its slot, whether
    /// the state is built at once or template by template.
    #[test]
    fn a_repeated_template_identity_replaces_the_earlier_entry() {
        use super::testutil::{deploy, state};
        let st = state(
            vec![
                deploy("default", "a", &[("v", "1")], &[]),
                deploy("default", "b", &[], &[]),
                deploy("default", "a", &[("v", "2")], &[]),
                deploy("other", "a", &[], &[]),
            ],
            false,
        );
        let names: Vec<(&str, &str)> = st
            .templates
            .iter()
            .map(|t| (&*t.namespace, &*t.name))
            .collect();
        assert_eq!(names, [("default", "a"), ("default", "b"), ("other", "a")]);
        assert_eq!(st.templates[0].labels.get("v"), Some("2"));
        assert_eq!(
            st.find_template("apps/v1", "Deployment", "other", "a"),
            Some(2)
        );
        assert_eq!(st.templates_of("apps/v1", "Deployment"), &[0, 1, 2]);
        let mut one_by_one = State::new(Options::default());
        for t in st.templates.iter().chain(&st.templates[..1]) {
            one_by_one.add_template(t.clone());
        }
        assert_eq!(one_by_one.templates.len(), 3);
        assert_eq!(one_by_one.templates_of("apps/v1", "Deployment"), &[0, 1, 2]);
    }

    /// A large input is prepared on two threads: the state is the one built object by object.
    #[test]
    fn the_two_thread_build_matches_the_sequential_one() {
        use super::testutil::{deploy, pp};
        use serde_json::json;
        let mut objects = Vec::new();
        for i in 0..2 * PARALLEL_MIN_OBJECTS + 11 {
            let ns = format!("ns-{}", i % 7);
            if i % 10 == 3 {
                let sel = json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment",
                    "name": format!("d-{}", i + 1)}], "priority": (i % 5) as i32});
                objects.push(pp(&ns, &format!("p-{}", i % 1500), sel));
            } else if i % 997 == 0 {
                // Rejected by admission: application failover without propagateDeps.
                let spec = json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                    "failover": {"application": {"decisionConditions": {"tolerationSeconds": 30}}}});
                objects.push(pp(&ns, &format!("bad-{i}"), spec));
            } else {
                // Identities repeat every 12,000 objects: a later one replaces the earlier.
                let v = (i / 12_000).to_string();
                objects.push(deploy(&ns, &format!("d-{}", i % 12_000), &[("v", &v)], &[]));
            }
        }
        let inv = Inventory {
            documents: Vec::new(),
            objects,
            problems: Vec::new(),
        };
        let built = State::from_inventory(&inv, Options::default());
        let mut seq = State::new(Options::default());
        for o in &inv.objects {
            match o {
                Object::Policy(p) => {
                    seq.add_policy_from_model(p);
                }
                Object::Template(t) => {
                    let options = seq.options.clone();
                    seq.add_template(template_entry(&options, t.clone(), &mut Shared::default()));
                }
                _ => {}
            }
        }
        assert!(!built.rejected.is_empty());
        assert_eq!(
            format!("{:?}", built.policies),
            format!("{:?}", seq.policies)
        );
        assert_eq!(
            format!("{:?}", built.templates),
            format!("{:?}", seq.templates)
        );
        assert_eq!(
            format!("{:?}", built.rejected),
            format!("{:?}", seq.rejected)
        );
        for t in 0..built.templates.len() {
            assert_eq!(built.matching_policies(t), seq.matching_policies(t));
            assert_eq!(built.naming_policies(t), seq.naming_policies(t));
        }
        assert_eq!(built.named_templates(), seq.named_templates());

        // Prepared in two parts, templates and policies taken out of the objects, as a streamed
        // lint does.
        let options = Options::default();
        let mut first = inv.objects.clone();
        let mut second = first.split_off(first.len() / 2);
        let mut prepared = Prepared::take(&options, &mut first);
        prepared.append(Prepared::take(&options, &mut second), 0);
        assert!(first
            .iter()
            .chain(&second)
            .all(|o| !matches!(o, Object::Template(_) | Object::Policy(_))));
        first.extend(second);
        let rest = Inventory {
            documents: Vec::new(),
            objects: first,
            problems: Vec::new(),
        };
        let taken = State::from_prepared(&rest, prepared, options);
        assert_eq!(format!("{built:?}"), format!("{taken:?}"));
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Builders for engine tests: policies and templates from short JSON/YAML-free literals.
    use super::*;
    use crate::model::{ObjectMeta, Template};

    pub fn meta(
        ns: Option<&str>,
        name: &str,
        labels: &[(&str, &str)],
        ann: &[(&str, &str)],
    ) -> ObjectMeta {
        ObjectMeta {
            name: name.into(),
            namespace: ns.map(str::to_string),
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            annotations: ann
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..ObjectMeta::default()
        }
    }

    /// A PP in `ns` with a spec given as JSON.
    pub fn pp(ns: &str, name: &str, spec: serde_json::Value) -> Object {
        Object::Policy(Box::new(Policy {
            kind: PolicyKind::PropagationPolicy,
            meta: meta(
                Some(ns),
                name,
                &[(
                    PolicyKind::PropagationPolicy.permanent_id_label(),
                    &format!("{name}-id"),
                )],
                &[],
            ),
            spec: serde_json::from_value(spec).unwrap(),
            doc: 0,
            admission: Default::default(),
        }))
    }

    pub fn cpp(name: &str, spec: serde_json::Value) -> Object {
        Object::Policy(Box::new(Policy {
            kind: PolicyKind::ClusterPropagationPolicy,
            meta: meta(
                None,
                name,
                &[(
                    PolicyKind::ClusterPropagationPolicy.permanent_id_label(),
                    &format!("{name}-id"),
                )],
                &[],
            ),
            spec: serde_json::from_value(spec).unwrap(),
            doc: 0,
            admission: Default::default(),
        }))
    }

    pub fn deploy(ns: &str, name: &str, labels: &[(&str, &str)], ann: &[(&str, &str)]) -> Object {
        Object::Template(Template {
            api_version: "apps/v1".into(),
            kind: "Deployment".into(),
            meta: meta(Some(ns), name, labels, ann),
            doc: 0,
            declares: None,
            depends_on: None,
            applied_as: None,
        })
    }

    pub type Pairs = Vec<(String, String)>;

    /// Claim keys for a template claimed by PP `ns/name` (id `<name>-id`): (labels, annotations).
    pub fn pp_claim(ns: &str, name: &str) -> (Pairs, Pairs) {
        (
            vec![(
                super::super::claim::PP_ID_LABEL.into(),
                format!("{name}-id"),
            )],
            vec![
                (
                    super::super::claim::PP_NAMESPACE_ANNOTATION.into(),
                    ns.into(),
                ),
                (super::super::claim::PP_NAME_ANNOTATION.into(), name.into()),
            ],
        )
    }

    pub fn state(objects: Vec<Object>, gate: bool) -> State {
        let inv = Inventory {
            documents: Vec::new(),
            objects,
            problems: Vec::new(),
        };
        State::from_inventory(
            &inv,
            Options {
                gates: GateSet::parse(
                    Default::default(),
                    &format!("PropagationPolicyPreemption={gate}"),
                )
                .expect("a known gate"),
                ..Options::default()
            },
        )
    }
}
