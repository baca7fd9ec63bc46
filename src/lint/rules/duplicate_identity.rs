//! Two documents that are the same object: applied in turn, the later one replaces the earlier.

use std::hash::{Hash, Hasher};

use crate::engine::state::{FxHasher, TemplateEntry};
use crate::lint::registry::{RuleDoc, RuleGroup};
use crate::lint::{Finding, Severity};
use crate::model::{group_of, Inventory, ObjectRef};
use crate::source::FieldPath;

pub const DOC: RuleDoc = RuleDoc {
    id: "duplicate-identity",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "Two documents define the same object (same kind, namespace and name)",
    rationale: "`kubectl apply` and GitOps controllers apply them in turn: the later one silently replaces the \
                earlier, so one policy vanishes. Error within one file, a warning within one directory, and info \
                across directories, which may be kustomize bases and overlays (lint the rendered output instead).",
    example: "kind: PropagationPolicy\nmetadata: {name: nginx, namespace: default}\n---\nkind: PropagationPolicy\nmetadata: {name: nginx, namespace: default}\n",
    fix: "Rename one of them, or delete the stale copy.",
    reference: "",
};

/// Identity: API group (not version: `apps/v1` and `apps/v1beta1` are one object), kind,
/// namespace, name; borrowed from the objects (one run hashes every object in the input).
type Identity<'a> = (&'a str, &'a str, Option<&'a str>, &'a str);

pub fn check(inventory: &Inventory) -> Vec<Finding> {
    check_with(inventory, &[])
}

/// [`check`] where the templates are `templates`, not objects of the inventory (a streamed
/// `lint` keeps only their engine entries).
///
/// Every identity is hashed and the hashes sorted (with the document, so the earliest comes
/// first among equals): only documents with equal hashes are compared. A map of every
/// identity was a third of a large run's time after parsing.
pub fn check_with(inventory: &Inventory, templates: &[TemplateEntry]) -> Vec<Finding> {
    let objects = &inventory.objects;
    let hash = |id: &Identity<'_>| {
        let mut h = FxHasher::default();
        id.hash(&mut h);
        h.finish()
    };
    let mut hashed: Vec<(u64, usize)> = Vec::with_capacity(objects.len() + templates.len());
    for obj in objects {
        if let Some((doc, id)) = object_identity(obj) {
            hashed.push((hash(&id), doc));
        }
    }
    for t in templates {
        if let Some((doc, id)) = template_identity(t) {
            hashed.push((hash(&id), doc));
        }
    }
    hashed.sort_unstable();
    let mut out = Vec::new();
    for run in hashed
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
    {
        let ids: Vec<(usize, Identity<'_>)> = run
            .iter()
            .filter_map(|&(_, doc)| Some((doc, identity_at(objects, templates, doc)?)))
            .collect();
        for (i, &(doc, id)) in ids.iter().enumerate() {
            // The first definition is the one earlier in the input.
            let Some(&(earlier, _)) = ids[..i].iter().find(|(_, other)| *other == id) else {
                continue;
            };
            out.push(duplicate(inventory, templates, earlier, doc));
        }
    }
    out
}

/// The finding on document `doc`, a second definition of document `earlier`'s object.
fn duplicate(
    inventory: &Inventory,
    templates: &[TemplateEntry],
    earlier: usize,
    doc: usize,
) -> Finding {
    let a = &inventory.documents[earlier];
    let b = &inventory.documents[doc];
    let same_file = std::sync::Arc::ptr_eq(&a.source, &b.source);
    let same_dir = parent_dir(&a.source.name) == parent_dir(&b.source.name);
    let severity = if same_file {
        Severity::Error
    } else if same_dir {
        Severity::Warning
    } else {
        Severity::Info
    };
    let name_path = FieldPath::parse("metadata.name");
    let object = object_ref(&inventory.objects, templates, doc);
    let a_name = a.tree_for(&name_path).locate_value(&name_path);
    let b_name = b.tree_for(&name_path).locate_value(&name_path);
    let mut f = Finding::new(
        DOC.id,
        severity,
        format!(
            "{object} is defined twice: applied in turn, this document replaces the one at {}:{}",
            a.source.name, a_name.start.line
        ),
    )
    .at(&b.source, b_name)
    .field("metadata.name")
    .object(object)
    .related(&a.source, a_name, "first defined here");
    f.doc = Some(doc);
    f
}

fn object_identity(obj: &crate::model::Object) -> Option<(usize, Identity<'_>)> {
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
    let namespace = (!t.namespace.is_empty()).then_some(t.namespace.as_str());
    let id = (t.group(), t.kind.as_str(), namespace, t.name.as_str());
    Some((t.doc?, id)).filter(|_| !t.name.is_empty())
}

/// The identity of document `doc`'s object or template (both lists are in document order).
fn identity_at<'a>(
    objects: &'a [crate::model::Object],
    templates: &'a [TemplateEntry],
    doc: usize,
) -> Option<Identity<'a>> {
    match templates.binary_search_by_key(&Some(doc), |t| t.doc) {
        Ok(i) => template_identity(&templates[i]),
        Err(_) => {
            let i = objects.binary_search_by_key(&doc, |o| o.doc()).ok()?;
            object_identity(&objects[i])
        }
    }
    .map(|(_, id)| id)
}

/// The reference of the object or template of document `doc` (both lists are in document
/// order).
fn object_ref(
    objects: &[crate::model::Object],
    templates: &[TemplateEntry],
    doc: usize,
) -> ObjectRef {
    if let Ok(i) = templates.binary_search_by_key(&Some(doc), |t| t.doc) {
        return templates[i].reference();
    }
    let i = objects
        .binary_search_by_key(&doc, |o| o.doc())
        .expect("an identity was taken from it");
    let (api_version, kind, meta, _) =
        identity_parts(&objects[i]).expect("an identity was taken from it");
    ObjectRef {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        namespace: meta.namespace.clone(),
        name: meta.name.clone(),
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

    #[test]
    fn other_namespace_or_kind_is_another_object() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: y}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: a, namespace: x}\n";
        let l = load(Source::new("p.yaml", text));
        let inv = Inventory::from_documents(l.documents, "default");
        assert!(check(&inv).is_empty());
    }
}
