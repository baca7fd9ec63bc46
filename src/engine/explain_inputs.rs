//! Which documents one template's decision reads, so `explain -f` parses only those (issue 8: a
//! large repository is mostly other templates).
//!
//! A decision reads the PropagationPolicies of the template's namespace, every other Karmada
//! object (CPPs, overrides, bindings, Works) and whatever may be the template itself or share
//! its name (to report ambiguity). Other templates never change one template's decision, except
//! in the two cases [`reads_beyond`] detects after the fact: a PP selects only templates of its
//! own namespace (claim-and-preemption.md §1.3, `detector.go:388-391`) and is otherwise looked
//! up only as the holder of the template's claim.

use super::state::{Options, State};
use crate::model::{group_of, kinds, Inventory, PolicyKind, POLICY_GROUP};

/// The template a decision is about, as named on the command line.
#[derive(Clone, Copy, Debug)]
pub struct Wanted<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
}

impl Wanted<'_> {
    /// Whether the decision needs the document with this head (`namespace`/`name` are `None`
    /// when the document sets none or they could not be read with certainty: kept).
    pub fn needs(
        &self,
        api_version: &str,
        kind: &str,
        namespace: Option<&str>,
        name: Option<&str>,
    ) -> bool {
        if is_pp(api_version, kind) {
            return namespace.is_none_or(|ns| ns == self.namespace);
        }
        group_of(api_version).ends_with("karmada.io") || name.is_none_or(|n| n == self.name)
    }
}

/// A PropagationPolicy, the one Karmada kind [`Wanted::needs`] filters by namespace; every
/// other document it skips is a template.
pub fn is_pp(api_version: &str, kind: &str) -> bool {
    group_of(api_version) == POLICY_GROUP && kind == "PropagationPolicy"
}

/// Whether the decision for template `t`, made from the needed documents only, may have looked
/// at documents that were skipped, so everything has to be read: a candidate or preemptor whose
/// dependent overrides are missing waits only while some unclaimed template it matches exists
/// (§6.5, `reconcile::overrides_block_preemption`; only with the preemption gate on, as settle
/// and `why_not` ask only then), or the template's claim names a PropagationPolicy of another
/// namespace (a stale or hand-written claim), whose existence decides the answer.
pub fn reads_beyond(state: &State, t: usize, namespace: &str) -> bool {
    needs_other_templates(state, t) || claim_elsewhere(state, t, namespace)
}

fn claim_elsewhere(state: &State, t: usize, namespace: &str) -> bool {
    state.templates[t].claim().owner().is_some_and(|o| {
        o.kind == PolicyKind::PropagationPolicy && o.namespace.as_deref() != Some(namespace)
    })
}

fn needs_other_templates(state: &State, t: usize) -> bool {
    if !state.options.gates.preemption {
        return false;
    }
    state
        .matching_policies(t)
        .into_iter()
        .map(|(p, _)| p)
        .chain(state.naming_policies(t))
        .any(|p| !state.missing_overrides(p).is_empty())
}

/// Why `explain TYPE/NAME` finds no one template (a usage error).
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    #[error(transparent)]
    Kind(#[from] kinds::ResolveError),
    #[error("{0} is a Karmada object, not a resource template: explain takes a template such as deploy/nginx")]
    NotATemplate(String),
    /// None, or several under different API versions (the text says which).
    #[error("{0}")]
    NotFound(String),
}

/// Resolves TYPE (against the templates of `inv` and `extra` kinds), builds the state and
/// finds the one template `name` in `namespace`.
pub fn find_template(
    inv: &Inventory,
    extra: &[(String, String)],
    ty: &str,
    name: &str,
    namespace: &str,
    options: Options,
) -> Result<(State, usize), FindError> {
    let mut seen = kinds::seen_kinds(inv);
    if !extra.is_empty() {
        seen.extend(extra.iter().cloned());
        seen.sort();
        seen.dedup();
    }
    let kind = kinds::resolve(ty, &kinds::table(&seen), &seen)?;
    if kind.is_karmada() {
        return Err(FindError::NotATemplate(kind.display()));
    }
    let state = State::from_inventory(inv, options);
    let found: Vec<usize> = state
        .templates
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            group_of(&t.api_version) == kind.group
                && *t.kind == kind.kind
                && &*t.name == name
                && (t.namespace.is_empty() || &*t.namespace == namespace)
        })
        .map(|(i, _)| i)
        .collect();
    match found.as_slice() {
        [] => Err(FindError::NotFound(format!(
            "{} {name:?} not found in namespace {} of the given files",
            kind.display(),
            namespace
        ))),
        [one] => Ok((state, *one)),
        many => {
            let versions: Vec<&str> = many
                .iter()
                .map(|&i| &*state.templates[i].api_version)
                .collect();
            Err(FindError::NotFound(format!(
                "{} {name:?} appears under several API versions ({}); they are different templates to Karmada",
                kind.display(),
                versions.join(", ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_needs_its_namespace_policies_karmada_objects_and_its_name() {
        let w = Wanted {
            name: "nginx",
            namespace: "web",
        };
        let pp = "policy.karmada.io/v1alpha1";
        assert!(w.needs(pp, "PropagationPolicy", Some("web"), Some("any")));
        assert!(!w.needs(pp, "PropagationPolicy", Some("db"), Some("any")));
        assert!(w.needs(pp, "PropagationPolicy", None, Some("any")));
        assert!(w.needs(pp, "ClusterPropagationPolicy", None, Some("any")));
        assert!(w.needs("work.karmada.io/v1alpha1", "Work", Some("x"), Some("w")));
        assert!(w.needs("apps/v1", "Deployment", Some("db"), Some("nginx")));
        assert!(!w.needs("apps/v1", "Deployment", Some("web"), Some("other")));
        assert!(w.needs("apps/v1", "Deployment", Some("web"), None));
    }
}
