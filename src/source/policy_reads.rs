//! The reads around one PropagationPolicy or ClusterPropagationPolicy that `explain pp/NAME`
//! needs against the control plane: the policies it competes with, the bindings of what it can
//! select and the member clusters, then the templates of the kinds it selects, then the Works of
//! the bindings the engine says it holds ([`PolicyReads::works_requests`]).
//!
//! Competitors: a PropagationPolicy only ever matches templates of its own namespace
//! (detector.go:382-391), where it competes with the PPs of that namespace and every
//! ClusterPropagationPolicy; a ClusterPropagationPolicy can match templates anywhere.

use serde_json::Value as J;

use super::live::{karmada, Discovered, Read, Request, ResourceType};
use super::session::{all_ok, find, Session, SessionError};
use super::Document;
use crate::kube::kinds::{CRB_ID_LABEL, RB_ID_LABEL};

/// How many binding ids one Work list asks for (`key in (a,b,...)`): the selector travels in
/// the URL, and 50 UUIDs keep it near 2 kB.
const IDS_PER_WORK_LIST: usize = 50;

/// The policy `explain` asks about.
pub struct PolicyReads<'a> {
    pub name: &'a str,
    /// The PropagationPolicy's namespace; `None` for a ClusterPropagationPolicy.
    pub namespace: Option<&'a str>,
}

/// What could be read in full (an unreadable part is not a missing one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyReadable {
    pub policies: bool,
    pub bindings: bool,
    /// Every Work list asked for (none asked: nothing to miss).
    pub works: bool,
    pub clusters: bool,
}

impl PolicyReads<'_> {
    fn policy_kind(&self) -> ResourceType {
        match self.namespace {
            Some(_) => karmada::pp(),
            None => karmada::cpp(),
        }
    }

    /// The binding kinds the policy's templates can have: a PP claims namespaced templates only.
    fn binding_kinds(&self) -> Vec<ResourceType> {
        match self.namespace {
            Some(_) => vec![karmada::rb()],
            None => vec![karmada::rb(), karmada::crb()],
        }
    }

    /// Policies, bindings and Clusters, in one round of reads.
    fn base_requests(&self) -> Vec<Request> {
        let ns = self.namespace;
        let mut requests = vec![
            Request::list(karmada::pp(), ns),
            Request::list(karmada::cpp(), None),
            Request::list(karmada::cluster(), None),
        ];
        requests.extend(
            self.binding_kinds()
                .into_iter()
                .map(|k| Request::list(k, ns)),
        );
        requests
    }

    /// The policy among the reads: an API error when its kind could not be read, a usage error
    /// when it does not exist.
    fn policy<'r>(&self, reads: &'r [Read]) -> Result<&'r J, SessionError> {
        let read = find(reads, &self.policy_kind()).expect("the policy kind is always read");
        if let Err(e) = &read.result {
            return Err(SessionError::Policy {
                what: read.request.describe(),
                message: e.server_message(),
            });
        }
        read.items()
            .iter()
            .find(|p| {
                p["metadata"]["name"] == self.name
                    && self
                        .namespace
                        .is_none_or(|ns| p["metadata"]["namespace"] == ns)
            })
            .ok_or_else(|| {
                SessionError::NotFound(match self.namespace {
                    Some(ns) => format!(
                        "propagationpolicy {:?} not found in namespace {ns}",
                        self.name
                    ),
                    None => format!("clusterpropagationpolicy {:?} not found", self.name),
                })
            })
    }

    /// The policies, bindings and Clusters, then the templates of the kinds `kinds` says the
    /// policy selects (in its namespace for a PP, everywhere for a CPP).
    pub fn read(
        &self,
        s: &mut Session,
        kinds: impl FnOnce(&J, &Discovered) -> Vec<ResourceType>,
    ) -> Result<Vec<Read>, SessionError> {
        let mut reads = s.read(self.base_requests())?;
        let kinds = kinds(self.policy(&reads)?, &s.discovered);
        let templates = kinds
            .into_iter()
            .map(|k| Request::list(k, self.namespace))
            .collect();
        reads.extend(s.read(templates)?);
        Ok(reads)
    }

    /// The Works of the given bindings (`(cluster-scoped, permanent id)`), selected by the
    /// binding's permanent-id label as Karmada labels them, a few dozen ids per list. A binding
    /// without the label (written before Karmada 1.8) makes it one list of every Work; the
    /// engine then picks them by the annotations naming the binding.
    pub fn works_requests<'b>(
        &self,
        bindings: impl IntoIterator<Item = (bool, Option<&'b str>)>,
    ) -> Vec<Request> {
        let mut ids: [Vec<&str>; 2] = [Vec::new(), Vec::new()];
        for (cluster_scoped, id) in bindings {
            match id {
                Some(id) => ids[usize::from(cluster_scoped)].push(id),
                None => return vec![Request::list(karmada::work(), None)],
            }
        }
        let mut requests = Vec::new();
        for (label, ids) in [RB_ID_LABEL, CRB_ID_LABEL].into_iter().zip(&mut ids) {
            ids.sort_unstable();
            ids.dedup();
            for chunk in ids.chunks(IDS_PER_WORK_LIST) {
                requests.push(
                    Request::list(karmada::work(), None)
                        .labels(&format!("{label} in ({})", chunk.join(","))),
                );
            }
        }
        requests
    }

    /// What the engine reads: everything but the Clusters (names and filters only) and Works.
    pub fn documents(&self, reads: &[Read]) -> Vec<Document> {
        super::live::documents(
            reads
                .iter()
                .filter(|r| r.request.rt.kind != "Cluster" && r.request.rt.kind != "Work"),
        )
    }

    /// The Works read ([`PolicyReads::works_requests`]).
    pub fn works<'r>(&self, reads: &'r [Read]) -> impl Iterator<Item = &'r J> {
        reads
            .iter()
            .filter(|r| r.request.rt.kind == "Work")
            .flat_map(Read::items)
    }

    /// The Clusters read (none when they could not be).
    pub fn clusters<'r>(&self, reads: &'r [Read]) -> &'r [J] {
        find(reads, &karmada::cluster()).map_or(&[], Read::items)
    }

    /// Which parts could be read in full.
    pub fn readable(&self, reads: &[Read]) -> PolicyReadable {
        PolicyReadable {
            policies: all_ok(reads, &[karmada::pp(), karmada::cpp()]),
            bindings: all_ok(reads, &self.binding_kinds()),
            works: reads
                .iter()
                .filter(|r| r.request.rt.kind == "Work")
                .all(Read::ok),
            clusters: all_ok(reads, &[karmada::cluster()]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selectors(requests: &[Request]) -> Vec<String> {
        requests
            .iter()
            .map(|r| r.label_selector.clone().unwrap_or_default())
            .collect()
    }

    #[test]
    fn works_are_listed_by_binding_ids_in_chunks_per_binding_kind() {
        let pp = PolicyReads {
            name: "web",
            namespace: Some("default"),
        };
        let r = pp.works_requests([(false, Some("b")), (true, Some("c")), (false, Some("a"))]);
        assert_eq!(
            selectors(&r),
            [
                "resourcebinding.karmada.io/permanent-id in (a,b)",
                "clusterresourcebinding.karmada.io/permanent-id in (c)"
            ]
        );
        let many: Vec<String> = (0..120).map(|i| format!("id{i:03}")).collect();
        let r = pp.works_requests(many.iter().map(|i| (false, Some(i.as_str()))));
        assert_eq!(r.len(), 3);
        assert!(pp.works_requests(std::iter::empty()).is_empty());
    }

    #[test]
    fn a_binding_without_an_id_lists_every_work() {
        let cpp = PolicyReads {
            name: "all",
            namespace: None,
        };
        let r = cpp.works_requests([(false, Some("a")), (false, None)]);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].label_selector, None);
        assert_eq!(r[0].namespace, None);
    }

    #[test]
    fn a_pp_reads_its_namespace_and_a_cpp_everything() {
        let pp = PolicyReads {
            name: "web",
            namespace: Some("apps"),
        };
        let described: Vec<String> = pp.base_requests().iter().map(Request::describe).collect();
        assert!(
            described.contains(&"propagationpolicies.policy.karmada.io in namespace apps".into())
        );
        assert!(described.contains(&"resourcebindings.work.karmada.io in namespace apps".into()));
        assert!(!described
            .iter()
            .any(|d| d.starts_with("clusterresourcebindings")));
        let cpp = PolicyReads {
            name: "all",
            namespace: None,
        };
        let described: Vec<String> = cpp.base_requests().iter().map(Request::describe).collect();
        assert!(described.contains(&"resourcebindings.work.karmada.io in all namespaces".into()));
        assert!(described
            .iter()
            .any(|d| d.starts_with("clusterresourcebindings")));
    }
}
