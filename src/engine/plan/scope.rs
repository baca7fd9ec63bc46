//! What differs between the two states, and the part of each state a plan needs: the templates
//! a changed policy, override or template can reach (the rest keep their owner and their
//! delivery), with every policy that may select or claim one of them.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::{Edit, OverrideEdit, Sides};
use crate::engine::claim::ClaimMeta;
use crate::engine::ownership::{Delta, Kept, Scope};
use crate::model::cluster::Cluster;
use crate::model::dependencies::{Dependency, DEPENDENCY_KINDS};
use crate::model::policy::ResourceSelector;
use crate::model::{Inventory, KarmadaVersion, Object, ObjectRef, OverridePolicy, Template};

/// An OverridePolicy's or ClusterOverridePolicy's identity.
pub type OverrideKey = (bool, Option<String>, String);

fn override_key(o: &OverridePolicy) -> OverrideKey {
    (
        o.cluster_scoped,
        o.meta.namespace.clone(),
        o.meta.name.clone(),
    )
}

/// Whether two writings of one override policy apply the same rules to the same objects.
fn same_override(a: &OverridePolicy, b: &OverridePolicy, version: KarmadaVersion) -> bool {
    let stored = |op| crate::engine::admission::override_chain::stored_override_spec(op, version);
    a.meta.labels == b.meta.labels && (a.raw_spec == b.raw_spec || stored(a) == stored(b))
}

/// Whether a template is one the detector propagates: Karmada's own objects (Clusters among
/// them) never are (claim-and-preemption.md §1.4).
pub fn is_template(t: &Template) -> bool {
    !crate::model::group_of(&t.api_version).ends_with("karmada.io")
}

/// Every difference between the two states that can change an owner or a delivery.
pub struct Changed<'a> {
    pub delta: Delta,
    /// Override policies added, changed or removed: the base and head versions.
    pub overrides: Vec<(
        OverrideEdit,
        Option<&'a OverridePolicy>,
        Option<&'a OverridePolicy>,
    )>,
    /// Templates only at head, and only at the base.
    pub created: HashSet<ObjectRef>,
    pub deleted: HashSet<ObjectRef>,
    /// Templates on both sides whose replicas the change writes differently (`spec.replicas`,
    /// a Job's parallelism and completions): the scheduler divides them again.
    pub rescaled: HashSet<ObjectRef>,
    /// The member clusters of each state (Cluster objects), sorted by name.
    pub base_clusters: Vec<Cluster>,
    pub head_clusters: Vec<Cluster>,
}

impl<'a> Changed<'a> {
    pub fn of(sides: &Sides<'a>, settings: &super::Settings) -> Changed<'a> {
        let version = settings.options.version();
        let base = sides.base_parts();
        let head = sides.head_parts();
        let policies = |parts: &[&'a Inventory]| {
            in_file_order(parts)
                .into_iter()
                .filter_map(|(_, o)| match o {
                    Object::Policy(p) => Some(&**p),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let delta = Delta::of(
            policies(&base).into_iter(),
            policies(&head).into_iter(),
            version,
        );
        let (created, deleted) = template_delta(sides);
        Changed {
            delta,
            overrides: override_delta(&base, &head, version),
            created,
            deleted,
            rescaled: rescaled(sides, settings.live),
            base_clusters: clusters_of(&base),
            head_clusters: clusters_of(&head),
        }
    }

    /// Nothing that could change an owner or a delivery.
    pub fn is_empty(&self) -> bool {
        self.delta.is_empty()
            && self.overrides.is_empty()
            && self.created.is_empty()
            && self.deleted.is_empty()
            && self.rescaled.is_empty()
            && !self.clusters_changed()
    }

    /// Cluster objects added, removed or changed: any placement may decide differently.
    pub fn clusters_changed(&self) -> bool {
        self.base_clusters != self.head_clusters
    }

    /// The templates these differences can reach.
    pub fn coverage(&self) -> Coverage {
        let mut c = Coverage {
            policies: self.delta.scope(),
            keys: HashMap::new(),
            any_kind: Vec::new(),
            all: self.clusters_changed(),
            refs: self
                .created
                .iter()
                .chain(&self.deleted)
                .chain(&self.rescaled)
                .cloned()
                .collect(),
        };
        for (_, base, head) in &self.overrides {
            for o in base.iter().chain(head.iter()) {
                c.add_override(o);
            }
        }
        c
    }
}

/// The objects of one state's parts in the order one read of the whole revision gives them: by
/// file (paths compared by component, the order the files are read in) and place in the file.
/// The files both states share and those that differ are separate parts; an identity written in
/// both (the API server keeps the last one applied) is decided as one read decides it. Parts
/// without documents (a live state) keep their order.
fn in_file_order<'a>(parts: &[&'a Inventory]) -> Vec<(&'a Inventory, &'a Object)> {
    let mut all: Vec<(&'a Inventory, &'a Object)> = parts
        .iter()
        .flat_map(|inv| inv.objects.iter().map(move |o| (*inv, o)))
        .collect();
    let place = |(inv, o): &(&'a Inventory, &'a Object)| {
        inv.documents
            .get(o.doc())
            .map(|d| (std::path::Path::new(d.source.name.as_str()), d.index))
    };
    if all.iter().all(|x| place(x).is_some()) {
        all.sort_by_key(|x| place(x));
    }
    all
}

/// Templates in the files that differ on both sides whose replicas differ (`spec.replicas`, a
/// Job's `parallelism` and `completions`, as Karmada's interpreters read them, defaults
/// included: a field the change removes goes back to 1, as applying the manifest removes
/// it; a template in the files the sides share is the same on both). Against a `live` base,
/// only a count the manifest writes, unless the object's last apply wrote one: an unwritten
/// one `kubectl apply` leaves to the object, or to an autoscaler.
fn rescaled(sides: &Sides<'_>, live: bool) -> HashSet<ObjectRef> {
    use crate::engine::replicas::workload::{replicas_of, written_replicas};
    let json = |inv: &Inventory, t: &Template| -> Option<serde_json::Value> {
        Some(inv.documents.get(t.doc)?.full_tree().to_json())
    };
    let head: HashMap<ObjectRef, &Template> = sides
        .head
        .templates()
        .filter(|t| is_template(t))
        .map(|t| (t.reference(), t))
        .collect();
    sides
        .base
        .templates()
        .filter_map(|b| {
            let r = b.reference();
            let h = head.get(&r)?;
            let (was, now) = (json(sides.base, b)?, json(sides.head, h)?);
            let before = replicas_of(&was)?;
            // `kubectl apply` removes a field its last apply wrote and the file no longer
            // does (the API server then defaults it); one it never wrote it leaves alone.
            let after = match live && !last_applied_replicas(&was) {
                true => written_replicas(&now)?,
                false => replicas_of(&now)?,
            };
            (before != after).then_some(r)
        })
        .collect()
}

/// Whether a live object's last `kubectl apply` (its last-applied-configuration annotation)
/// wrote a replica count.
fn last_applied_replicas(live: &serde_json::Value) -> bool {
    live.pointer("/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration")
        .and_then(serde_json::Value::as_str)
        .and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok())
        .is_some_and(|applied| {
            ["/spec/replicas", "/spec/parallelism", "/spec/completions"]
                .iter()
                .any(|p| applied.pointer(p).is_some())
        })
}

/// Templates created and deleted. Files the sides share hold the same templates on both
/// sides; a reference that moved between a shared file and a changed one is neither.
fn template_delta(sides: &Sides<'_>) -> (HashSet<ObjectRef>, HashSet<ObjectRef>) {
    let refs = |inv: &Inventory| -> HashSet<ObjectRef> {
        inv.templates()
            .filter(|t| is_template(t))
            .map(Template::reference)
            .collect()
    };
    let (base, head) = (refs(sides.base), refs(sides.head));
    let mut created: HashSet<ObjectRef> = head.difference(&base).cloned().collect();
    let mut deleted: HashSet<ObjectRef> = base.difference(&head).cloned().collect();
    if let Some(shared) = sides.shared {
        if !created.is_empty() || !deleted.is_empty() {
            for t in shared.templates() {
                if created.contains(&t.reference()) || deleted.contains(&t.reference()) {
                    let r = t.reference();
                    created.remove(&r);
                    deleted.remove(&r);
                }
            }
        }
    }
    (created, deleted)
}

fn override_delta<'a>(
    base: &[&'a Inventory],
    head: &[&'a Inventory],
    version: KarmadaVersion,
) -> Vec<(
    OverrideEdit,
    Option<&'a OverridePolicy>,
    Option<&'a OverridePolicy>,
)> {
    // The last writing of each identity is the one applied, as in one read of the revision.
    let index = |parts: &[&'a Inventory]| -> HashMap<OverrideKey, &'a OverridePolicy> {
        in_file_order(parts)
            .into_iter()
            .filter_map(|(_, o)| match o {
                Object::Override(o) => Some((override_key(o), o)),
                _ => None,
            })
            .collect()
    };
    let (b, h) = (index(base), index(head));
    let mut keys: Vec<&OverrideKey> = b.keys().chain(h.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for k in keys {
        let (before, after) = (b.get(k).copied(), h.get(k).copied());
        // A base copy admission refused was never stored: the head's is a creation, and
        // removing it changes nothing.
        let stored = before.is_some_and(|b| b.admission.refusal().is_none());
        let edit = match (before, after) {
            (None, Some(_)) => Edit::Added,
            (Some(_), None) if stored => Edit::Removed,
            (Some(x), Some(y)) if !same_override(x, y, version) && stored => Edit::Changed,
            (Some(x), Some(y)) if !same_override(x, y, version) => Edit::Added,
            _ => continue,
        };
        let reference = OverrideEdit {
            cluster_scoped: k.0,
            namespace: k.1.clone(),
            name: k.2.clone(),
            edit,
            refused: after
                .and_then(|a| a.admission.refusal())
                .map(|m| vec![m.to_string()])
                .unwrap_or_default(),
            stored: edit == Edit::Changed,
        };
        out.push((reference, before, after));
    }
    out
}

fn clusters_of(parts: &[&Inventory]) -> Vec<Cluster> {
    let mut all: Vec<Cluster> = parts
        .iter()
        .flat_map(|i| Cluster::from_inventory(i))
        .collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all
}

/// The templates a change can reach: those a changed policy (either version) may select, those
/// a changed override (either version) may select, the created and deleted ones; all of them
/// when the member clusters change.
pub struct Coverage {
    policies: Scope,
    /// Override selectors: (apiVersion, kind) → namespaces (`None`: any).
    keys: HashMap<(String, String), Vec<Option<String>>>,
    /// Overrides without selectors match every object: their namespaces (`None`: any).
    any_kind: Vec<Option<String>>,
    all: bool,
    refs: HashSet<ObjectRef>,
}

impl Coverage {
    fn add_override(&mut self, o: &OverridePolicy) {
        let own_ns = (!o.cluster_scoped).then(|| o.meta.namespace.clone().unwrap_or_default());
        if o.spec.resource_selectors.is_empty() {
            self.any_kind.push(own_ns);
            return;
        }
        for rs in &o.spec.resource_selectors {
            self.keys
                .entry((rs.api_version.clone(), rs.kind.clone()))
                .or_default()
                .push(selector_namespace(own_ns.as_ref(), rs));
        }
    }

    /// Adds what the covered workloads of `states` name as their dependencies: a workload whose
    /// policy sets `propagateDeps` carries them to its clusters, so where the change moves the
    /// workload it moves them too (`mergeTargetClusters`, pkg/controllers/binding/common.go).
    pub fn with_dependencies(mut self, states: &[&[&Inventory]]) -> Coverage {
        let mut found = Vec::new();
        for inv in states.iter().flat_map(|parts| parts.iter()) {
            for t in inv.templates().filter(|t| self.covers(t)) {
                for d in t.depends_on.iter().flatten() {
                    found.push(dependency_ref(t, d));
                }
            }
        }
        self.refs.extend(found);
        self
    }

    /// Adds the workloads that name a covered template of `states` as a dependency. Such a
    /// workload, whose policy sets `propagateDeps`, takes the dependency to its own clusters
    /// (the dependencies distributor lists it in the dependency's `RequiredBy`,
    /// pkg/dependenciesdistributor/dependencies_distributor.go `createOrUpdateAttachedBinding`,
    /// and the binding controller renders a Work with the override chain for each of
    /// `mergeTargetClusters(Clusters, RequiredBy)`, pkg/controllers/binding/common.go
    /// `ensureWork`): without it, an override, a policy or another carrier changing the
    /// dependency would not see those clusters. The workload itself keeps its owner and
    /// clusters, so its own dependencies need not follow.
    pub fn with_carriers(mut self, states: &[&[&Inventory]]) -> Coverage {
        let templates = || {
            states
                .iter()
                .flat_map(|parts| parts.iter())
                .flat_map(|i| i.templates())
        };
        let covered: HashSet<ObjectRef> = templates()
            .filter(|t| t.api_version == "v1" && DEPENDENCY_KINDS.contains(&t.kind.as_str()))
            .filter(|t| self.covers(t))
            .map(Template::reference)
            .collect();
        if covered.is_empty() {
            return self;
        }
        let carriers: Vec<ObjectRef> = templates()
            .filter(|t| {
                t.depends_on
                    .iter()
                    .flatten()
                    .any(|d| covered.contains(&dependency_ref(t, d)))
            })
            .map(Template::reference)
            .collect();
        self.refs.extend(carriers);
        self
    }

    /// Whether the change can reach template `t`.
    pub fn covers(&self, t: &Template) -> bool {
        if !is_template(t) {
            return false;
        }
        let ns = t.namespace();
        let in_ns = |n: &Option<String>| n.as_deref().is_none_or(|n| n == ns);
        self.all
            || self.policies.covers(&t.api_version, &t.kind, ns)
            || self.any_kind.iter().any(in_ns)
            || self
                .keys
                .get(&(t.api_version.clone(), t.kind.clone()))
                .is_some_and(|v| v.iter().any(in_ns))
            || (!self.refs.is_empty() && self.refs.contains(&t.reference()))
    }
}

/// The template `d`, a dependency workload `t` names: a `v1` object of its namespace.
fn dependency_ref(t: &Template, d: &Dependency) -> ObjectRef {
    ObjectRef {
        api_version: "v1".into(),
        kind: d.kind.into(),
        namespace: Some(t.namespace().to_string()),
        name: d.name.clone(),
    }
}

/// The namespace an override's selector reaches: an OverridePolicy its own, a
/// ClusterOverridePolicy the selector's (any when it sets none).
fn selector_namespace(own: Option<&String>, rs: &ResourceSelector) -> Option<String> {
    match own {
        Some(ns) => Some(ns.clone()),
        None if !rs.namespace.is_empty() => Some(rs.namespace.clone()),
        None => None,
    }
}

/// One state narrowed to a coverage: its objects, and where each kept template's manifest is.
pub struct Subset<'a> {
    pub inventory: Inventory,
    pub manifests: HashMap<ObjectRef, (&'a Inventory, usize)>,
}

impl Subset<'_> {
    /// The manifest of a kept template, as JSON.
    pub fn manifest(&self, r: &ObjectRef) -> Option<Value> {
        let (inv, doc) = self.manifests.get(r)?;
        let json = inv.documents.get(*doc)?.full_tree().to_json();
        Some(crate::engine::delivery::stored_manifest(
            json,
            r.namespace.as_deref().unwrap_or(""),
        ))
    }
}

/// The policies either state must keep: those that may select or claim a covered template of
/// either state (a created template is matched by the base's policies as they stand after the
/// change).
pub fn kept(states: &[&[&Inventory]], coverage: &Coverage) -> Kept {
    let mut kept = Kept::default();
    for inv in states.iter().flat_map(|parts| parts.iter()) {
        for t in inv.templates().filter(|t| coverage.covers(t)) {
            let claim = ClaimMeta::read(&t.meta.labels, &t.meta.annotations);
            kept.template(&t.api_version, &t.kind, t.namespace(), &claim);
        }
    }
    kept
}

/// `parts` (one state) narrowed to `coverage`: the covered templates, the policies `kept`
/// keeps, every override and binding.
pub fn subset<'a>(parts: &[&'a Inventory], coverage: &Coverage, kept: &Kept) -> Subset<'a> {
    let mut objects = Vec::new();
    let mut manifests = HashMap::new();
    let ordered = in_file_order(parts);
    for (inv, o) in &ordered {
        if let Object::Template(t) = o {
            if coverage.covers(t) {
                manifests.insert(t.reference(), (*inv, t.doc));
                objects.push(Object::Template(t.clone()));
            }
        }
    }
    // Every copy of a policy one copy of which is kept: applied in turn, the last one is the
    // policy, although only an earlier copy may select a covered template.
    let kept_policies: HashSet<_> = ordered
        .iter()
        .filter_map(|(_, o)| match o {
            Object::Policy(p) if kept.selects(&p.reference(), &p.spec.resource_selectors) => {
                Some(p.reference())
            }
            _ => None,
        })
        .collect();
    for &(_, o) in &ordered {
        match o {
            Object::Policy(p) if kept_policies.contains(&p.reference()) => {
                objects.push(o.clone());
            }
            Object::Override(_) | Object::Binding(_) => objects.push(o.clone()),
            Object::Policy(_) | Object::Template(_) | Object::Work(_) => {}
        }
    }
    Subset {
        inventory: Inventory {
            documents: Vec::new(),
            objects,
            problems: Vec::new(),
        },
        manifests,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_object_says_whether_its_last_apply_wrote_a_count() {
        let with = |applied: &str| {
            serde_json::json!({"metadata": {"annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": applied}}})
        };
        assert!(last_applied_replicas(&with(
            r#"{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3}}"#
        )));
        assert!(!last_applied_replicas(&with(
            r#"{"apiVersion":"apps/v1","kind":"Deployment","spec":{}}"#
        )));
        assert!(!last_applied_replicas(&with("not json")));
        assert!(!last_applied_replicas(
            &serde_json::json!({"spec": {"replicas": 3}})
        ));
    }

    /// Writing out what admission fills in anyway (each selector's namespace, the spec's
    /// `overriders: {}`, which the Go type declares without omitempty) stores the same
    /// OverridePolicy; another value does not.
    #[test]
    fn an_override_written_as_karmada_stores_it_is_the_same_override() {
        let op = |selector: &str, extra: &str, value: &str| {
            let text = format!("apiVersion: policy.karmada.io/v1alpha1\nkind: OverridePolicy\nmetadata: {{name: web, namespace: demo}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: Service, name: web{selector}}}]\n{extra}  overrideRules:\n    - targetCluster: {{clusterNames: [b]}}\n      overriders:\n        plaintext: [{{path: /spec/type, operator: replace, value: {value}}}]\n");
            crate::model::test_support::inventory("op.yaml", &text)
        };
        let version = KarmadaVersion::default();
        let first = |inv: &Inventory| inv.overrides().next().unwrap().clone();
        let base = first(&op("", "", "LoadBalancer"));
        for same in [
            op(", namespace: demo", "", "LoadBalancer"),
            op("", "  overriders: {}\n", "LoadBalancer"),
        ] {
            assert!(same_override(&base, &first(&same), version));
        }
        assert!(!same_override(
            &base,
            &first(&op("", "", "NodePort")),
            version
        ));
    }
}
