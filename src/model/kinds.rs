//! TYPE resolution against an inventory: the kinds kubectl knows ([`crate::kube::kinds`])
//! plus those of the inventory's templates, and the policy a `TYPE/[NS/]NAME` names.

use super::{group_of, Inventory, PolicyKind, PolicyRef, POLICY_GROUP};
pub use crate::kube::kinds::{resolve, table, KindInfo, ResolveError};
use crate::source::live::{Discovered, ResourceType};

/// The `(group, kind)` pairs of the templates in the inventory, and of the kinds its policies
/// select that nothing else names (a custom resource whose objects are not in the files is
/// still a type: `explain` of one says it is not found, not that its type is unknown), sorted,
/// once each. A selector's kind that a template or a well-known type already names is left out:
/// a selector with a wrong group (`apps/v1` Service, which `dead-policy` reports) must not make
/// `service` ambiguous.
pub fn seen_kinds(inv: &Inventory) -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = inv
        .templates()
        .map(|t| (group_of(&t.api_version).to_string(), t.kind.clone()))
        .collect();
    let well_known = table(&[]);
    let named = |kind: &str, seen: &[(String, String)]| {
        seen.iter().any(|(_, k)| k.eq_ignore_ascii_case(kind))
            || well_known.iter().any(|i| i.kind.eq_ignore_ascii_case(kind))
    };
    for rs in inv.policies().flat_map(|p| &p.spec.resource_selectors) {
        if !rs.kind.is_empty() && !rs.api_version.is_empty() && !named(&rs.kind, &seen) {
            seen.push((group_of(&rs.api_version).to_string(), rs.kind.clone()));
        }
    }
    seen.sort();
    seen.dedup();
    seen
}

/// A resource argument that is not `TYPE/NAME`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected TYPE/NAME such as deploy/nginx, got {0:?}{hint}", hint = namespace_hint(.0))]
pub struct ResourceArgError(pub String);

/// For `TYPE/NAMESPACE/NAME`, which kubectl does not take (a resource argument has one
/// slash; the namespace is `-n`'s): the form it takes, as a clause to append.
pub fn namespace_hint(arg: &str) -> String {
    match arg.split('/').collect::<Vec<_>>()[..] {
        [ty, ns, name]
            if [ty, ns, name].iter().all(|w| !w.is_empty()) && !cluster_scoped_word(ty) =>
        {
            format!(" (the namespace goes in -n, as kubectl takes it: {ty}/{name} -n {ns})")
        }
        _ => String::new(),
    }
}

/// A resource argument as kubectl takes it: `deploy/nginx`, `deployment.apps/nginx`, `pp/x`.
pub fn type_and_name(arg: &str) -> Result<(&str, &str), ResourceArgError> {
    arg.split_once('/')
        .filter(|(ty, name)| !ty.is_empty() && !name.is_empty() && !name.contains('/'))
        .ok_or_else(|| ResourceArgError(arg.to_string()))
}

/// A resource type word of a cluster-scoped kind kubectl users name with the commands here
/// (`-n` means nothing for those: no hint points at it).
fn cluster_scoped_word(ty: &str) -> bool {
    let ty = ty.to_ascii_lowercase();
    let bare = ty.split('.').next().unwrap_or(&ty);
    [
        "cpp",
        "clusterpropagationpolicy",
        "clusterpropagationpolicies",
        "cop",
        "clusteroverridepolicy",
        "clusteroverridepolicies",
        "ns",
        "namespace",
        "namespaces",
        "node",
        "nodes",
        "no",
        "pv",
        "persistentvolume",
        "persistentvolumes",
        "clusterrole",
        "clusterroles",
        "clusterrolebinding",
        "clusterrolebindings",
        "crd",
        "crds",
        "customresourcedefinition",
        "customresourcedefinitions",
        "sc",
        "storageclass",
        "storageclasses",
        "cluster",
        "clusters",
    ]
    .contains(&bare)
}

#[cfg(test)]
mod resource_arg_tests {
    #[test]
    fn one_slash_between_two_words() {
        assert_eq!(
            super::type_and_name("deploy/nginx"),
            Ok(("deploy", "nginx"))
        );
        for bad in ["nginx", "deploy/", "/nginx", "a/b/c"] {
            assert!(super::type_and_name(bad).is_err(), "{bad}");
        }
        assert_eq!(
            super::type_and_name("deploy/shop/web")
                .unwrap_err()
                .to_string(),
            "expected TYPE/NAME such as deploy/nginx, got \"deploy/shop/web\" (the namespace \
             goes in -n, as kubectl takes it: deploy/web -n shop)"
        );
        assert_eq!(super::namespace_hint("a/b/c/d"), "");
        assert_eq!(super::namespace_hint("cpp/x/y"), "");
        assert_eq!(super::namespace_hint("clusterrole/x/y"), "");
    }
}

pub fn resolve_in(ty: &str, inv: &Inventory) -> Result<KindInfo, ResolveError> {
    let seen = seen_kinds(inv);
    resolve(ty, &table(&seen), &seen)
}

/// Why `TYPE/[NS/]NAME` does not name a policy.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PolicyRefError {
    #[error("--delete expects TYPE/[NS/]NAME such as pp/default/a or cpp/platform, got {0:?}")]
    Malformed(String),
    #[error(transparent)]
    Type(#[from] ResolveError),
    #[error("{0:?}: a ClusterPropagationPolicy has no namespace")]
    NamespacedCpp(String),
    #[error("--delete takes a PropagationPolicy or ClusterPropagationPolicy, not {0}")]
    NotAPolicy(String),
}

/// `pp/default/a`, `pp/a` (in `namespace`), `cpp/platform`: the policy a `--delete` names.
pub fn policy_ref(
    target: &str,
    namespace: &str,
    inv: &Inventory,
) -> Result<PolicyRef, PolicyRefError> {
    let parts: Vec<&str> = target.split('/').collect();
    let bad = || PolicyRefError::Malformed(target.to_string());
    let (ty, ns, name) = match parts.as_slice() {
        [ty, name] => (*ty, None, *name),
        [ty, ns, name] => (*ty, Some(*ns), *name),
        _ => return Err(bad()),
    };
    if ty.is_empty() || name.is_empty() || ns.is_some_and(str::is_empty) {
        return Err(bad());
    }
    let kind = resolve_in(ty, inv)?;
    match PolicyKind::from_kind(&kind.kind).filter(|_| kind.group == POLICY_GROUP) {
        Some(PolicyKind::PropagationPolicy) => Ok(PolicyRef::pp(ns.unwrap_or(namespace), name)),
        Some(PolicyKind::ClusterPropagationPolicy) => match ns {
            None => Ok(PolicyRef::cpp(name)),
            Some(_) => Err(PolicyRefError::NamespacedCpp(target.to_string())),
        },
        None => Err(PolicyRefError::NotAPolicy(kind.display())),
    }
}
/// The template kinds the policies select, as served types of the control plane (Karmada's own
/// groups are never templates, §1.4): what live mode lists besides the Karmada objects.
pub fn selected_kinds<'a>(
    policies: impl Iterator<Item = &'a super::Policy>,
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

/// [`selected_kinds`] of one policy as the API returns it (live `explain pp/NAME`).
pub fn selected_kinds_of(policy: &serde_json::Value, d: &Discovered) -> Vec<ResourceType> {
    let doc = crate::source::live::document(&crate::source::live::karmada::pp(), policy);
    selected_kinds(Inventory::from_documents(vec![doc], "").policies(), d)
}
