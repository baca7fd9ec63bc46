//! `lint --live`: the lint rules over the live policies and the templates they select, read
//! through a [`Session`]. Locations are object references (`pp/default/nginx`) with field
//! paths. Read only.

use super::{LintOptions, Linted};
use crate::model::kinds::selected_kinds;
use crate::model::Inventory;
use crate::source::live::{self, karmada};
use crate::source::session::{cluster_names, Session, SessionError};

/// Lists the Karmada objects, then the templates the policies select, and lints them. The
/// Clusters' names are the known clusters unless the configuration names them.
pub fn lint_cluster(s: &mut Session, opts: &LintOptions) -> Result<Linted, SessionError> {
    // The placement state and the Works (what each cluster was sent); the Clusters stay last.
    let mut base = karmada::placement_state().to_vec();
    base.insert(base.len() - 1, karmada::work());
    let clusters_at = base.len() - 1;
    let (reads, template_reads) = s.read_policies_then(&base, &|docs, discovered| {
        selected_kinds(
            Inventory::from_documents(docs, "default").policies(),
            discovered,
        )
    })?;
    let clusters = cluster_names(Some(&reads[clusters_at]));
    let docs = live::documents(reads[..clusters_at].iter().chain(&template_reads));
    let mut inv = Inventory::from_documents(docs, "default");
    let mut opts = opts.clone();
    opts.live = true;
    if opts.known_clusters.is_empty() && reads[clusters_at].ok() {
        opts.known_clusters = clusters;
    }
    // The placement rules evaluate the policies against the member clusters as they are.
    opts.cluster_objects = reads[clusters_at]
        .items()
        .iter()
        .map(crate::model::cluster::Cluster::from_object)
        .collect();
    let findings = super::lint(&[], &mut inv, &opts);
    let notes = super::analysis::KnownClusters::of(Vec::new(), &opts)
        .note()
        .into_iter()
        .collect();
    // Each live object is its own source (named by its reference).
    Ok(Linted {
        files: inv.documents.len(),
        documents: inv.documents.len(),
        policies: inv.policies().count(),
        findings,
        notes,
        ..Linted::default()
    })
}
