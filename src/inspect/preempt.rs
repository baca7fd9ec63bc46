//! `preempt-check`'s inputs: the changes in command-line order (`--apply FILE` and `--delete
//! TYPE/[NS/]NAME` interleave) and, live, the state they run against. Nothing is written: the
//! changes run in the engine only (`engine::simulate`).

use super::InspectError;
use crate::context::Context;
use crate::engine::admission::documents::admit_documents;
use crate::engine::simulate::{touched_kinds, ChangeList};
use crate::engine::state::{State, UnknownClaimers};
use crate::model::inputs::{warn_problems, Inputs, Named};
use crate::model::{kinds, Inventory};
use crate::source::live::{self, karmada};
use crate::source::session::{all_ok, Session, SessionError};

/// One change of `preempt-check`, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeArg {
    /// `--apply FILE`: every policy in FILE is created or updated.
    Apply(String),
    /// `--delete TYPE/[NS/]NAME`.
    Delete(String),
}

/// The note naming the member clusters whose API enablements the inputs do not report (the
/// deliveries take them to serve every API), as every subcommand gives it.
pub fn note_unreported_clusters(inv: &Inventory) {
    let clusters = crate::model::cluster::Cluster::from_inventory(inv);
    if let Some(n) = crate::model::cluster::unreported_note(&clusters) {
        crate::util::to_stderr("note", &n);
    }
}

/// The changes, in command-line order; `--delete` targets are resolved against `state` (the
/// files' inventory, empty live). With `warn` (once per run: the changes are read again for
/// each environment), what an `--apply` file holds that does not parse, and its objects other
/// than policies, are reported on stderr.
pub fn read_changes(
    change_args: &[ChangeArg],
    (namespace, context): (&str, &Context),
    state: &Inventory,
    warn: bool,
) -> Result<ChangeList, InspectError> {
    let mut list = ChangeList::default();
    for c in change_args {
        let file = match c {
            ChangeArg::Apply(file) => file,
            ChangeArg::Delete(target) => {
                list.delete(kinds::policy_ref(target, namespace, state)?);
                continue;
            }
        };
        // Read as the inputs are: the configuration's `namespaces:` places its documents.
        let named = Named(&context.config);
        let inputs = Inputs::read(std::slice::from_ref(file), namespace, &named)?;
        if warn {
            warn_problems(&inputs.loaded);
        }
        let mut applied = inputs.inventory;
        // What the API server would refuse is recorded as rejected and changes nothing.
        admit_documents(&mut applied, context.release());
        let objects = applied.objects;
        let (added, ignored) = list.apply(objects);
        if warn && ignored > 0 {
            crate::util::warn(&format!(
                "{file}: {ignored} {} other than policies ignored",
                if ignored == 1 { "object" } else { "objects" }
            ));
        }
        if added == 0 {
            return Err(InspectError::NothingToApply { file: file.clone() });
        }
    }
    Ok(list)
}

/// The live state, with the changes to run against it.
pub struct LiveCheck {
    pub state: State,
    pub changes: ChangeList,
    /// The objects read: templates, overrides and Clusters for the delivery notes.
    pub inventory: Inventory,
}

/// Reads the control plane for a check: policies, overrides, bindings and Clusters, then the
/// template kinds the policies and changes touch. Without `namespace` it is the kubeconfig
/// context's, which needs the connection; the changes are read before any list request, so a
/// bad file or target is a usage error first.
pub fn live_state(
    connect: &dyn Fn() -> Result<Session, SessionError>,
    namespace: Option<&str>,
    change_args: &[ChangeArg],
    context: &Context,
) -> Result<LiveCheck, InspectError> {
    let mut session = None;
    let namespace = match namespace {
        Some(n) => n.to_string(),
        None => session.insert(connect()?).namespace().to_string(),
    };
    let changes = read_changes(
        change_args,
        (&namespace, context),
        &Inventory::default(),
        false,
    )?;
    let mut s = match session {
        Some(s) => s,
        None => connect()?,
    };
    let base = karmada::placement_state();
    let (reads, template_reads) = s.read_policies_then(&base, &|docs, discovered| {
        let policies = Inventory::from_documents(docs, "default");
        touched_kinds(&policies, &changes.applied, &changes.changes, discovered)
    })?;
    let docs = live::documents(reads.iter().chain(&template_reads));
    let inventory = Inventory::from_documents(docs, "default");
    let unknown_claimers = if all_ok(&reads, &base[..2]) {
        // With every policy read, a claim naming a missing policy is stale (§4.2).
        UnknownClaimers::Stale
    } else {
        UnknownClaimers::AssumeExisting
    };
    let state = State::from_inventory(&inventory, context.engine_options(unknown_claimers));
    Ok(LiveCheck {
        state,
        changes,
        inventory,
    })
}
