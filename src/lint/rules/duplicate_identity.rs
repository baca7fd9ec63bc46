//! Two documents that are the same object: applied in turn, the later one replaces the earlier.

use std::collections::HashMap;

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
    let mut first: HashMap<Identity<'_>, usize> = HashMap::with_capacity(inventory.objects.len());
    let mut out = Vec::new();
    for obj in &inventory.objects {
        let Some((api_version, kind, meta, doc)) = identity_parts(obj) else {
            continue;
        };
        if meta.name.is_empty() {
            continue;
        }
        let id: Identity<'_> = (
            group_of(api_version),
            kind,
            meta.namespace.as_deref(),
            &meta.name,
        );
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
                let object = ObjectRef {
                    api_version: api_version.to_string(),
                    kind: kind.to_string(),
                    namespace: meta.namespace.clone(),
                    name: meta.name.clone(),
                };
                let mut f = Finding::new(
                    DOC.id,
                    severity,
                    format!(
                        "{object} is defined twice: applied in turn, this document replaces the one at {}:{}",
                        a.source.name,
                        a.root.locate_value(&name_path).start.line
                    ),
                )
                .at(&b.source, b.root.locate_value(&name_path))
                .field("metadata.name")
                .object(object)
                .related(&a.source, a.root.locate_value(&name_path), "first defined here");
                f.doc = Some(doc);
                out.push(f);
            }
        }
    }
    out
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
