//! The admission chain over a set of manifests. Every PropagationPolicy and
//! ClusterPropagationPolicy document goes through [`admit_manifest`] once, while its tree is
//! whole, and the typed policy of each is marked with the verdict
//! ([`crate::model::Policy::admission`]): any snapshot built from those policies later holds
//! only what Karmada would store, and the lint rule that reports the refusals reads the same
//! verdicts. A policy the chain refuses is never stored by the API server, so it claims
//! nothing, overlaps nothing and preempts nothing. OverridePolicy and ClusterOverridePolicy
//! documents go through their own chain ([`admit_override`]) alike: a refused one overrides
//! nothing.

use std::collections::HashMap;

use super::chain::{admit_manifest, Verdict};
use super::override_chain::admit_override;
use crate::model::{
    group_of, Admission, Inventory, KarmadaVersion, Object, ObjectMeta, PolicyKind, POLICY_GROUP,
};
use crate::source::Node;

/// The chain's verdict on each policy document of an inventory, in document order.
#[derive(Clone, Debug, Default)]
pub struct Admissions {
    verdicts: Vec<Admitted>,
    /// Each override policy's verdict, by document, in document order.
    overrides: Vec<(usize, Verdict)>,
}

/// One policy document through the chain.
#[derive(Clone, Debug)]
pub struct Admitted {
    pub doc: usize,
    pub kind: PolicyKind,
    /// The request namespace (a PP's own, else the default one); `None` for a CPP.
    pub namespace: Option<String>,
    pub verdict: Verdict,
}

impl Admissions {
    /// The verdict on document `doc`, if it is a policy document.
    pub fn get(&self, doc: usize) -> Option<&Verdict> {
        self.verdicts
            .binary_search_by_key(&doc, |a| a.doc)
            .ok()
            .map(|i| &self.verdicts[i].verdict)
    }

    /// The verdict on document `doc`, if it is an override policy document.
    pub fn get_override(&self, doc: usize) -> Option<&Verdict> {
        self.overrides
            .binary_search_by_key(&doc, |(d, _)| *d)
            .ok()
            .map(|i| &self.overrides[i].1)
    }

    /// Every policy document's verdict, in document order.
    pub fn iter(&self) -> impl Iterator<Item = &Admitted> {
        self.verdicts.iter()
    }
}

/// Runs the chain on every policy document of `inv` (typed or not: a document the engine cannot
/// type still has a verdict) in the request namespace `kubectl apply` would use, and marks each
/// typed policy with its verdict. The trees must be whole.
pub fn admit_documents(inv: &mut Inventory, version: KarmadaVersion) -> Admissions {
    let admissions = Admissions::of(inv, version);
    admissions.mark(inv);
    admissions
}

impl Admissions {
    /// The chain's verdict on every policy document of `inv`, without marking the policies (for
    /// objects read from the control plane: stored, so admitted when they were written).
    pub fn of(inv: &Inventory, version: KarmadaVersion) -> Admissions {
        // The request namespace of each typed PP: its own, else the default one given to it.
        let namespaces: HashMap<usize, Option<String>> = inv
            .policies()
            .map(|p| (p.doc, p.meta.namespace.clone()))
            .collect();
        let mut verdicts = Vec::new();
        for (i, doc) in inv.documents.iter().enumerate() {
            let Some(kind) = policy_kind(&doc.root) else {
                continue;
            };
            let namespace = match kind {
                PolicyKind::PropagationPolicy => Some(
                    namespaces
                        .get(&i)
                        .cloned()
                        .flatten()
                        .or_else(|| ObjectMeta::from_node(doc.root.get("metadata")).namespace)
                        .unwrap_or_else(|| "default".to_string()),
                ),
                PolicyKind::ClusterPropagationPolicy => None,
            };
            let verdict = admit_manifest(kind, &doc.root.to_json(), namespace.as_deref(), version);
            verdicts.push(Admitted {
                doc: i,
                kind,
                namespace,
                verdict,
            });
        }
        let mut overrides: Vec<(usize, Verdict)> = inv
            .overrides()
            .map(|op| {
                let manifest = inv.documents[op.doc].root.to_json();
                (op.doc, admit_override(op, &manifest, version))
            })
            .collect();
        overrides.sort_by_key(|(doc, _)| *doc);
        Admissions {
            verdicts,
            overrides,
        }
    }

    /// Marks each typed policy of `inv` with the verdict on its document.
    pub fn mark(&self, inv: &mut Inventory) {
        for object in &mut inv.objects {
            match object {
                Object::Policy(p) => {
                    if let Some(v) = self.get(p.doc) {
                        p.admission = admission_of(v);
                    }
                }
                Object::Override(op) => {
                    if let Some(v) = self.get_override(op.doc) {
                        op.admission = admission_of(v);
                    }
                }
                _ => {}
            }
        }
    }
}

/// The mark a verdict leaves on a policy.
fn admission_of(v: &Verdict) -> Admission {
    match &v.api_server_message {
        Some(message) if !v.is_admitted() => Admission::Refused(message.clone()),
        _ => Admission::Admitted,
    }
}

/// The kind of a policy document, `None` for any other.
pub fn policy_kind(root: &Node) -> Option<PolicyKind> {
    let api_version = root.get("apiVersion").and_then(Node::as_str)?;
    if group_of(api_version) != POLICY_GROUP {
        return None;
    }
    PolicyKind::from_kind(root.get("kind").and_then(Node::as_str)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    fn inventory(text: &str) -> Inventory {
        Inventory::from_documents(load(Source::new("p.yaml", text)).documents, "shop")
    }

    const PP: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n";

    #[test]
    fn every_policy_is_marked_with_the_chain_verdict() {
        // staticWeightList weight 0: below the CRD's `minimum: 1`, a 422 at the schema stage
        // (karmada-io/karmada charts/karmada/_crds/bases/policy/policy.karmada.io_propagationpolicies.yaml).
        let refused = format!("{PP}  placement:\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList: [{{targetCluster: {{clusterNames: [m1]}}, weight: 0}}]\n");
        let mut inv = inventory(&format!(
            "{PP}---\n{}",
            refused.replace("name: web", "name: bad")
        ));
        let admissions = admit_documents(&mut inv, KarmadaVersion::LATEST);
        let marks: Vec<&Admission> = inv.policies().map(|p| &p.admission).collect();
        assert_eq!(marks[0], &Admission::Admitted);
        let Admission::Refused(message) = marks[1] else {
            panic!("{marks:?}");
        };
        assert!(
            message.contains("should be greater than or equal to 1"),
            "{message}"
        );
        assert!(admissions.get(0).unwrap().is_admitted());
        assert!(!admissions.get(1).unwrap().is_admitted());
        assert_eq!(admissions.iter().count(), 2);
    }
}
