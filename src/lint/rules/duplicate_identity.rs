//! Two documents that are the same object: applied in turn, the later one replaces the earlier.

use std::hash::{Hash, Hasher};

use std::collections::HashMap;

use crate::engine::admission::{stored_scheduler_name, SCHEDULER_NAME_IMMUTABLE};
use crate::engine::state::{
    applied_in_turn, AdmittedPolicy, FxHasher, InTurn, PolicyCopy, TemplateEntry,
};
use crate::lint::finding::{Finding, Severity};
pub use crate::lint::phase::Taken;
use crate::lint::phase::{Check, Identities, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::{group_of, Inventory, Object, ObjectRef, PolicyKind};
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "duplicate-identity",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "Two documents define the same object (same kind, namespace and name)",
    rationale: "`kubectl apply` applies them in turn: the later one silently replaces the \
                earlier, so one policy vanishes. Error within one file, a warning within one directory, and info \
                across directories, which may be kustomize bases and overlays (lint the rendered output instead). \
                A later copy of a PropagationPolicy or ClusterPropagationPolicy is an update that admission \
                judges: one naming another `schedulerName` is refused (`validateUpdate`), as is one refused on its \
                own, and the copy stored before stays; lint, `explain`, `preempt-check` and `plan` all take that \
                copy as the one in force. \
                Argo CD does not apply copies in turn: among one Application's manifests it keeps the last copy \
                of each object and marks the Application with a RepeatedResourceWarning, so an earlier copy is \
                never applied (a warning on it, whatever admission would say of it as an update). \
                A Service and an `ExternalName` Service of the same name pointing at the first one's DNS name \
                are meant for two API servers (Karmada's own installer applies such pairs to the host cluster \
                and to karmada-apiserver) and are not reported.",
    example: "kind: PropagationPolicy\nmetadata: {name: nginx, namespace: default}\n---\nkind: PropagationPolicy\nmetadata: {name: nginx, namespace: default}\n",
    fix: "Rename one of them, or delete the stale copy.",
    reference: "pkg/webhook/propagationpolicy/validating.go:71-85 (validateUpdate); Argo CD controller/state.go (NormalizeTargetObjects)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::Identities(identities_check)],
};

/// With the hashes the parsing threads made, or hashing every object here.
fn identities_check(i: &Identities<'_>) -> Vec<Finding> {
    match i.hashes {
        Some(hashes) => check_hashed(i.inventory, i.taken, hashes),
        None => check_with(i.inventory, i.taken),
    }
}

/// Identity: API group (not version: `apps/v1` and `apps/v1beta1` are one object), kind,
/// namespace, name; borrowed from the objects (one run hashes every object in the input).
type Identity<'a> = (&'a str, &'a str, Option<&'a str>, &'a str);

pub fn check(inventory: &Inventory) -> Vec<Finding> {
    check_with(inventory, Taken::default())
}

/// [`check`] where some objects are `taken` out of the inventory.
///
/// Every identity is hashed and the hashes sorted (with the document, so the earliest comes
/// first among equals): only documents with equal hashes are compared. A map of every
/// identity was a third of a large run's time after parsing.
pub fn check_with(inventory: &Inventory, taken: Taken<'_>) -> Vec<Finding> {
    check_hashed(
        inventory,
        taken,
        &identity_hashes(&inventory.objects, taken),
    )
}

/// Each object's identity hash and document, sorted: what [`check_hashed`] compares. A
/// streamed `lint` hashes each file's objects on the thread that parsed it.
pub fn identity_hashes(objects: &[Object], taken: Taken<'_>) -> Vec<(u64, usize)> {
    let hash = |id: &Identity<'_>| {
        let mut h = FxHasher::default();
        id.hash(&mut h);
        h.finish()
    };
    let ids = objects
        .iter()
        .filter_map(object_identity)
        .chain(taken.templates.iter().filter_map(template_identity))
        .chain(taken.policies.iter().filter_map(policy_identity));
    let mut hashed: Vec<(u64, usize)> = ids.map(|(doc, id)| (hash(&id), doc)).collect();
    hashed.sort_unstable();
    hashed
}

/// [`check_with`] given the [`identity_hashes`] of the whole input, sorted (parts each sorted
/// and then concatenated sort fastest: the sort merges the runs).
pub fn check_hashed(
    inventory: &Inventory,
    taken: Taken<'_>,
    hashed: &[(u64, usize)],
) -> Vec<Finding> {
    let objects = &inventory.objects;
    let mut out = Vec::new();
    for run in hashed
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
    {
        let ids: Vec<(usize, Identity<'_>)> = run
            .iter()
            .filter_map(|&(_, doc)| Some((doc, identity_at(objects, taken, doc)?)))
            .collect();
        let fates = policy_fates(objects, taken, &ids);
        for (i, &(doc, id)) in ids.iter().enumerate() {
            // Each later copy is reported against the earlier copy it relates to most closely
            // (same file, then same directory): the severity is that pair's, never decided by
            // whichever copy sorts first. Among equals, the latest: applied in turn, that is
            // the one this copy replaces.
            let earlier = ids[..i]
                .iter()
                .filter(|(_, other)| *other == id)
                .map(|&(e, _)| e)
                .fold(None, |best: Option<usize>, e| match best {
                    Some(b)
                        if pair_severity(inventory, b, doc) > pair_severity(inventory, e, doc) =>
                    {
                        Some(b)
                    }
                    _ => Some(e),
                });
            let Some(earlier) = earlier else {
                continue;
            };
            if on_other_api_servers(inventory, earlier, doc, id) {
                continue;
            }
            let fate = fates.get(&doc).copied();
            out.push(duplicate(inventory, taken, earlier, doc, fate));
        }
    }
    out
}

/// What applying each copy of a PropagationPolicy or ClusterPropagationPolicy in `ids` (one run
/// of equal hashes, in document order) does, by document: a later copy is an update that
/// admission judges, and one it refuses replaces nothing.
fn policy_fates(
    objects: &[Object],
    taken: Taken<'_>,
    ids: &[(usize, Identity<'_>)],
) -> HashMap<usize, InTurn> {
    let policy_group = group_of(crate::model::POLICY_API_VERSION);
    let is_policy =
        |id: &Identity<'_>| id.0 == policy_group && PolicyKind::from_kind(id.1).is_some();
    let mut fates = HashMap::new();
    let mut done: Vec<Identity<'_>> = Vec::new();
    for (_, id) in ids.iter().filter(|(_, id)| is_policy(id)) {
        if done.contains(id) {
            continue;
        }
        done.push(*id);
        let copies: Vec<PolicyCopy<'_>> = ids
            .iter()
            .filter(|(_, other)| other == id)
            .filter_map(|&(doc, _)| policy_copy(objects, taken, doc))
            .collect();
        for (copy, fate) in copies.iter().zip(applied_in_turn(&copies)) {
            fates.insert(copy.doc, fate);
        }
    }
    fates
}

/// Document `doc`'s policy as [`applied_in_turn`] reads it.
fn policy_copy<'a>(objects: &'a [Object], taken: Taken<'a>, doc: usize) -> Option<PolicyCopy<'a>> {
    let (admitted, scheduler_name) = match find(objects, taken, doc)? {
        Found::Policy(AdmittedPolicy::Admitted(p)) => (true, p.spec.scheduler_name.as_deref()),
        Found::Policy(AdmittedPolicy::Rejected(r)) => (false, r.spec.scheduler_name.as_deref()),
        Found::Object(Object::Policy(p)) => (
            p.admission.refusal().is_none(),
            p.spec.scheduler_name.as_deref(),
        ),
        Found::Object(_) | Found::Template(_) => return None,
    };
    Some(PolicyCopy {
        doc,
        admitted,
        scheduler_name,
    })
}

/// The finding on document `doc`, a second definition of document `earlier`'s object; `fate`
/// is what applying it does, for a policy.
fn duplicate(
    inventory: &Inventory,
    taken: Taken<'_>,
    earlier: usize,
    doc: usize,
    fate: Option<InTurn>,
) -> Finding {
    let severity = pair_severity(inventory, earlier, doc);
    // The copy the message is about: the stored one a policy's copy meets, else the closest.
    let other = match fate {
        Some(InTurn::Replaces(stored) | InTurn::UpdateRefused { stored }) => stored,
        Some(InTurn::Refused {
            stored: Some(stored),
        }) => stored,
        _ => earlier,
    };
    let a = &inventory.documents[other];
    let b = &inventory.documents[doc];
    let name_path = FieldPath::parse("metadata.name");
    let object = object_ref(&inventory.objects, taken, doc);
    let a_name = a.tree_for(&name_path).locate_value(&name_path);
    let b_name = b.tree_for(&name_path).locate_value(&name_path);
    let there = format!("{}:{}", a.source.name, a_name.start.line);
    let what = match fate {
        None | Some(InTurn::Replaces(_)) => format!("this document replaces the one at {there}"),
        Some(InTurn::UpdateRefused { .. }) => format!(
            "this document updates the one at {there}, and Karmada's webhook refuses the update \
             (`{}`: schedulerName `{}` there, `{}` here), so that copy stays",
            SCHEDULER_NAME_IMMUTABLE,
            scheduler_of(taken, &inventory.objects, other),
            scheduler_of(taken, &inventory.objects, doc),
        ),
        Some(InTurn::Refused { stored: Some(_) }) => {
            format!("admission refuses this document (see its errors), so the one at {there} stays")
        }
        Some(InTurn::Refused { stored: None }) => {
            format!("admission refuses this document and the one at {there} alike")
        }
        Some(InTurn::Creates) => {
            format!("admission refuses the one at {there}, so this document creates it")
        }
    };
    let mut f = Finding::new(
        DOC.id,
        severity,
        format!("{object} is defined twice: applied in turn, {what}"),
    )
    .at(&b.source, b_name)
    .field("metadata.name")
    .object(object)
    .related(&a.source, a_name, "first defined here");
    f.doc = Some(doc);
    f
}

/// The scheduler name document `doc`'s policy is stored with.
fn scheduler_of(taken: Taken<'_>, objects: &[Object], doc: usize) -> String {
    let name = policy_copy(objects, taken, doc).and_then(|c| c.scheduler_name);
    stored_scheduler_name(name).to_string()
}

/// Whether two copies of a Service cannot be meant for one API server: one is an `ExternalName`
/// Service whose `externalName` is the other's own DNS name (`NAME.NAMESPACE.svc...`), which in
/// the same cluster would point at itself. Karmada's installer keeps such pairs side by side
/// (`artifacts/deploy/karmada-search.yaml` for the host cluster and
/// `karmada-search-apiservice.yaml` for karmada-apiserver, applied by `hack/deploy-karmada.sh`
/// with two kubeconfigs): neither replaces the other.
fn on_other_api_servers(inventory: &Inventory, a: usize, b: usize, id: Identity<'_>) -> bool {
    let ("", "Service", Some(namespace), name) = id else {
        return false;
    };
    let own_dns = format!("{name}.{namespace}.svc");
    let points_at_itself = |doc: usize| {
        let tree = inventory.documents[doc].full_tree();
        let spec = tree.get("spec");
        let field = |key: &str| spec.and_then(|s| s.get(key)).and_then(|v| v.as_str());
        field("type") == Some("ExternalName")
            && field("externalName").is_some_and(|target| {
                target.strip_suffix('.').unwrap_or(target) == own_dns
                    || target.starts_with(&format!("{own_dns}."))
            })
    };
    points_at_itself(a) != points_at_itself(b)
}

/// How bad two copies are together: error within one file, warning within one directory,
/// info across directories (kustomize bases and overlays).
fn pair_severity(inventory: &Inventory, a: usize, b: usize) -> Severity {
    let (a, b) = (&inventory.documents[a], &inventory.documents[b]);
    if std::sync::Arc::ptr_eq(&a.source, &b.source) || a.source.name == b.source.name {
        Severity::Error
    } else if parent_dir(&a.source.name) == parent_dir(&b.source.name) {
        Severity::Warning
    } else {
        Severity::Info
    }
}

fn object_identity(obj: &Object) -> Option<(usize, Identity<'_>)> {
    let (api_version, kind, meta, doc) = identity_parts(obj)?;
    let id = (
        group_of(api_version),
        kind,
        meta.namespace.as_deref(),
        meta.name.as_str(),
    );
    (!meta.name.is_empty()).then_some((doc, id))
}

fn template_identity(t: &TemplateEntry) -> Option<(usize, Identity<'_>)> {
    let namespace = (!t.namespace.is_empty()).then_some(&*t.namespace);
    let id = (t.group(), &*t.kind, namespace, &*t.name);
    Some((t.doc?, id)).filter(|_| !t.name.is_empty())
}

fn policy_identity(p: &AdmittedPolicy) -> Option<(usize, Identity<'_>)> {
    let (kind, namespace, name) = p.identity();
    let group = group_of(crate::model::POLICY_API_VERSION);
    let id = (group, kind.as_str(), namespace, name);
    Some((p.doc()?, id)).filter(|_| !name.is_empty())
}

/// Where document `doc`'s object is: taken out as a template or a policy, or still an object.
enum Found<'a> {
    Template(&'a TemplateEntry),
    Policy(&'a AdmittedPolicy),
    Object(&'a crate::model::Object),
}

fn find<'a>(
    objects: &'a [crate::model::Object],
    taken: Taken<'a>,
    doc: usize,
) -> Option<Found<'a>> {
    let by_doc = |d: Option<usize>| d.cmp(&Some(doc));
    if let Ok(i) = taken.templates.binary_search_by(|t| by_doc(t.doc)) {
        return Some(Found::Template(&taken.templates[i]));
    }
    if let Ok(i) = taken.policies.binary_search_by(|p| by_doc(p.doc())) {
        return Some(Found::Policy(&taken.policies[i]));
    }
    let i = objects.binary_search_by_key(&doc, |o| o.doc()).ok()?;
    Some(Found::Object(&objects[i]))
}

/// The identity of document `doc`'s object.
fn identity_at<'a>(
    objects: &'a [crate::model::Object],
    taken: Taken<'a>,
    doc: usize,
) -> Option<Identity<'a>> {
    match find(objects, taken, doc)? {
        Found::Template(t) => template_identity(t),
        Found::Policy(p) => policy_identity(p),
        Found::Object(o) => object_identity(o),
    }
    .map(|(_, id)| id)
}

/// The reference of document `doc`'s object.
fn object_ref(objects: &[crate::model::Object], taken: Taken<'_>, doc: usize) -> ObjectRef {
    let found = find(objects, taken, doc).expect("an identity was taken from it");
    let (api_version, kind, namespace, name) = match found {
        Found::Template(t) => return t.reference(),
        Found::Policy(p) => {
            let (kind, namespace, name) = p.identity();
            (
                crate::model::POLICY_API_VERSION,
                kind.as_str(),
                namespace,
                name,
            )
        }
        Found::Object(o) => {
            let (api_version, kind, meta, _) =
                identity_parts(o).expect("an identity was taken from it");
            (
                api_version,
                kind,
                meta.namespace.as_deref(),
                meta.name.as_str(),
            )
        }
    };
    ObjectRef {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        namespace: namespace.map(str::to_string),
        name: name.to_string(),
    }
}

fn parent_dir(name: &str) -> &str {
    name.rsplit_once('/').map_or("", |(d, _)| d)
}

fn identity_parts(
    obj: &crate::model::Object,
) -> Option<(&str, &str, &crate::model::ObjectMeta, usize)> {
    use crate::model::Object;
    match obj {
        Object::Policy(p) => Some((
            crate::model::POLICY_API_VERSION,
            p.kind.as_str(),
            &p.meta,
            p.doc,
        )),
        Object::Template(t) => Some((&t.api_version, &t.kind, &t.meta, t.doc)),
        Object::Override(o) => Some((
            crate::model::POLICY_API_VERSION,
            if o.cluster_scoped {
                "ClusterOverridePolicy"
            } else {
                "OverridePolicy"
            },
            &o.meta,
            o.doc,
        )),
        Object::Binding(_) | Object::Work(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    #[test]
    fn same_file_is_an_error_pointing_at_both() {
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: a\nspec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: a\nspec: {resourceSelectors: [{apiVersion: v1, kind: Secret}]}\n";
        let l = load(Source::new("p.yaml", text));
        let inv = Inventory::from_documents(l.documents, "default");
        let f = check(&inv);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Error);
        assert_eq!(f[0].location.as_ref().unwrap().span.start.line, 10);
        assert_eq!(f[0].related[0].location.span.start.line, 4);
    }

    /// Karmada's installer: the host cluster's Service and, for karmada-apiserver, an
    /// ExternalName Service of the same name pointing at the first one's DNS name. Two plain
    /// copies, or an ExternalName pointing elsewhere, still replace each other.
    #[test]
    fn an_external_name_service_pointing_at_its_namesake_is_for_another_api_server() {
        let host = "apiVersion: v1\nkind: Service\nmetadata: {name: karmada-search, namespace: karmada-system}\nspec:\n  selector: {app: karmada-search}\n  ports: [{port: 443, targetPort: 443}]\n";
        let external = |target: &str| {
            format!("apiVersion: v1\nkind: Service\nmetadata: {{name: karmada-search, namespace: karmada-system}}\nspec:\n  type: ExternalName\n  externalName: {target}\n")
        };
        let inventory = |second: &str| {
            let mut docs = load(Source::new("deploy/karmada-search.yaml", host)).documents;
            docs.extend(
                load(Source::new("deploy/karmada-search-apiservice.yaml", second)).documents,
            );
            Inventory::from_documents(docs, "default")
        };
        for target in [
            "karmada-search.karmada-system.svc.cluster.local",
            "karmada-search.karmada-system.svc",
        ] {
            assert!(check(&inventory(&external(target))).is_empty(), "{target}");
        }
        let elsewhere = check(&inventory(&external("search.example.com")));
        assert_eq!(elsewhere.len(), 1);
        assert_eq!(check(&inventory(host)).len(), 1);
    }

    #[test]
    fn other_namespace_or_kind_is_another_object() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: y}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: a, namespace: x}\n";
        let l = load(Source::new("p.yaml", text));
        let inv = Inventory::from_documents(l.documents, "default");
        assert!(check(&inv).is_empty());
    }

    #[test]
    fn severity_is_decided_per_pair_not_by_the_first_copy() {
        // Linting the parent of base/ and overlay/: the two copies inside overlay/pp.yaml are
        // still an error, the one across directories an info.
        let pp = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: a, namespace: d}\nspec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n";
        let mut docs = load(Source::new("base/pp.yaml", pp)).documents;
        docs.extend(load(Source::new("overlay/pp.yaml", format!("{pp}---\n{pp}"))).documents);
        let inv = Inventory::from_documents(docs, "default");
        let found: Vec<(Severity, String)> = check(&inv)
            .iter()
            .map(|f| (f.severity, f.location.as_ref().unwrap().display()))
            .collect();
        assert_eq!(
            found,
            vec![
                (Severity::Info, "overlay/pp.yaml:3:18".to_string()),
                (Severity::Error, "overlay/pp.yaml:8:18".to_string()),
            ]
        );
    }

    /// Applied in turn, b/ changes the scheduler name, an update the webhook refuses, so a/
    /// stays; c/ (a/'s scheduler again) replaces a/, not b/; d/ is refused on its own.
    #[test]
    fn a_copy_admission_refuses_replaces_nothing() {
        let pp = |extra: &str| {
            format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: a, namespace: d}}\nspec:\n{extra}  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap}}]\n")
        };
        let mut docs = Vec::new();
        for (dir, extra) in [
            ("a", ""),
            ("b", "  schedulerName: custom\n"),
            ("c", "  schedulerName: \"\"\n"),
            ("d", "  priority: \"5\"\n"),
        ] {
            docs.extend(load(Source::new(format!("{dir}/pp.yaml"), pp(extra))).documents);
        }
        let mut inv = Inventory::from_documents(docs, "default");
        crate::engine::admission::documents::Admissions::of(&inv, Default::default())
            .mark(&mut inv);
        let found: Vec<String> = check(&inv)
            .iter()
            .map(|f| {
                let (_, what) = f.message.split_once("applied in turn, ").unwrap();
                let at = &f.location.as_ref().unwrap().source.name;
                format!("{at}: {what} [{}]", f.related[0].location.source.name)
            })
            .collect();
        assert_eq!(
            found,
            [
                "b/pp.yaml: this document updates the one at a/pp.yaml:3, and Karmada's webhook refuses the update (`the schedulerName should not be updated`: schedulerName `default-scheduler` there, `custom` here), so that copy stays [a/pp.yaml]",
                "c/pp.yaml: this document replaces the one at a/pp.yaml:3 [a/pp.yaml]",
                "d/pp.yaml: admission refuses this document (see its errors), so the one at c/pp.yaml:3 stays [c/pp.yaml]",
            ]
        );
    }

    #[test]
    fn a_later_copy_names_the_copy_it_replaces() {
        // Applied in turn, c/ replaces b/'s copy (which replaced a/'s): the finding on c/ names
        // b/, the latest of the equally related earlier copies.
        let pp = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: a, namespace: d}\nspec: {resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]}\n";
        let mut docs = Vec::new();
        for dir in ["a", "b", "c"] {
            docs.extend(load(Source::new(format!("{dir}/pp.yaml"), pp)).documents);
        }
        let inv = Inventory::from_documents(docs, "default");
        let found: Vec<(String, String)> = check(&inv)
            .iter()
            .map(|f| {
                let at = f.location.as_ref().unwrap().source.name.clone();
                (at, f.related[0].location.source.name.clone())
            })
            .collect();
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            found,
            vec![
                pair("b/pp.yaml", "a/pp.yaml"),
                pair("c/pp.yaml", "b/pp.yaml")
            ]
        );
    }
}
