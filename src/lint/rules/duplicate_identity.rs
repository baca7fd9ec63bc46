//! Two documents that are the same object: applied in turn, the later one replaces the earlier.

use std::collections::HashMap;

use crate::engine::state::TemplateEntry;
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
pub fn check_with(inventory: &Inventory, templates: &[TemplateEntry]) -> Vec<Finding> {
    let mut identities: Vec<(usize, Identity<'_>)> =
        Vec::with_capacity(inventory.objects.len() + templates.len());
    for obj in &inventory.objects {
        if let Some((api_version, kind, meta, doc)) = identity_parts(obj) {
            let namespace = meta.namespace.as_deref();
            identities.push((doc, (group_of(api_version), kind, namespace, &meta.name)));
        }
    }
    for t in templates {
        if let Some(doc) = t.doc {
            let namespace = (!t.namespace.is_empty()).then_some(t.namespace.as_str());
            identities.push((doc, (t.group(), &t.kind, namespace, &t.name)));
        }
    }
    if !templates.is_empty() {
        // The first definition is the one earlier in the input.
        identities.sort_unstable_by_key(|(doc, _)| *doc);
    }
    let mut first: HashMap<Identity<'_>, usize> = HashMap::with_capacity(identities.len());
    let mut out = Vec::new();
    for (doc, id) in identities {
        if id.3.is_empty() {
            continue;
        }
        match first.get(&id) {
            None => {
                first.insert(id, doc);
            }
            Some(&earlier) => {
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
                        a.source.name,
                        a_name.start.line
                    ),
                )
                .at(&b.source, b_name)
                .field("metadata.name")
                .object(object)
                .related(&a.source, a_name, "first defined here");
                f.doc = Some(doc);
                out.push(f);
            }
        }
    }
    out
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
