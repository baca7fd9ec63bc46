//! `preempt-check`'s inputs: the changes in command-line order (`--apply FILE` and `--delete
//! TYPE/[NS/]NAME` interleave) and, live, the state they run against. Nothing is written: the
//! changes run in the engine only (`engine::simulate`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::InspectError;
use crate::context::Context;
use crate::engine::admission::documents::admit_documents;
use crate::engine::simulate::{touched_kinds, ChangeList};
use crate::engine::state::{State, UnknownClaimers};
use crate::model::environments::EnvInventory;
use crate::model::inputs::{warn_problems, Inputs, Named};
use crate::model::{kinds, Inventory, Object, Policy, PolicyRef};
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

/// The `--apply` files: the change, never part of the state it runs against. `-f DIR --apply
/// DIR/takeover.yaml` (the form `--help` shows) would otherwise read the takeover into the
/// state, settle it there as the template's fresh-match owner, and apply it again as a change
/// that changes nothing: a blocked takeover would pass `--fail-on-blocked`. Each file is kept
/// as given (for the note) and canonical (to know it however `-f` reaches it).
pub struct ApplyFiles(Vec<(String, PathBuf)>);

/// What [`ApplyFiles::state_of`] left out of a state, for the notes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// The `--apply` files (as given) whose documents were in the state.
    pub files: Vec<String>,
    /// Policies of the state whose render names no source file, with the identity of a policy
    /// applied: they may come from an `--apply` file, and are counted in the state.
    pub unattributed: Vec<PolicyRef>,
}

impl ApplyFiles {
    /// The `--apply` files of `change_args`; one that does not resolve (`read_changes` says
    /// why) matches nothing.
    pub fn of(change_args: &[ChangeArg]) -> ApplyFiles {
        let files = change_args.iter().filter_map(|c| match c {
            ChangeArg::Apply(f) => std::fs::canonicalize(f).ok().map(|p| (f.clone(), p)),
            ChangeArg::Delete(_) => None,
        });
        ApplyFiles(files.collect())
    }

    /// Plain manifests without the objects read from an `--apply` file (each document's source
    /// is named by the file it was read from), and the note saying so.
    pub fn leave_out_of_files(&self, inv: &mut Inventory) {
        let names: Vec<Option<PathBuf>> = inv
            .documents
            .iter()
            .map(|d| Some(PathBuf::from(&d.source.name)))
            .collect();
        let (keep, left_out) = self.sort_out(inv, &names, &[]);
        let mut keeps = keep.into_iter();
        inv.objects.retain(|_| keeps.next().unwrap_or(true));
        for n in left_out.notes(None) {
            crate::util::to_stderr("note", &n);
        }
    }

    /// An environment's state without what its documents from an `--apply` file made, and the
    /// notes saying so (see [`ApplyFiles::state_of`]).
    pub fn state_in<'a>(&self, env: &'a EnvInventory, applied: &[Policy]) -> Cow<'a, Inventory> {
        let (state, left_out) = self.state_of(&env.inventory, &env.origins, applied);
        for n in left_out.notes(Some(&env.name)) {
            crate::util::to_stderr("note", &n);
        }
        state
    }

    /// `inv` without the objects whose document came from an `--apply` file (`origins`: each
    /// document's file, by index, `None` when unknown); borrowed when none did. `applied` are
    /// the policies the changes apply: a policy of the state with their identity and no known
    /// file is kept, and named in [`LeftOut::unattributed`].
    pub fn state_of<'a>(
        &self,
        inv: &'a Inventory,
        origins: &[Option<PathBuf>],
        applied: &[Policy],
    ) -> (Cow<'a, Inventory>, LeftOut) {
        let (keep, left_out) = self.sort_out(inv, origins, applied);
        if left_out.files.is_empty() {
            return (Cow::Borrowed(inv), left_out);
        }
        let mut state = inv.clone();
        let mut keeps = keep.into_iter();
        state.objects.retain(|_| keeps.next().unwrap_or(true));
        (Cow::Owned(state), left_out)
    }

    /// For each object of `inv`, whether it stays in the state (its document came from no
    /// `--apply` file), and what is left out (see [`ApplyFiles::state_of`]).
    fn sort_out(
        &self,
        inv: &Inventory,
        origins: &[Option<PathBuf>],
        applied: &[Policy],
    ) -> (Vec<bool>, LeftOut) {
        let mut left_out = LeftOut::default();
        // A file holds many documents: each is resolved once.
        let mut matched: HashMap<&Path, Option<usize>> = HashMap::new();
        let mut keep = Vec::with_capacity(inv.objects.len());
        for o in &inv.objects {
            let origin = origins.get(o.doc()).and_then(Option::as_deref);
            let change = origin.and_then(|f| *matched.entry(f).or_insert_with(|| self.index_of(f)));
            keep.push(change.is_none());
            if let Some(i) = change {
                let name = &self.0[i].0;
                if !left_out.files.contains(name) {
                    left_out.files.push(name.clone());
                }
            }
            if let (Object::Policy(p), None) = (o, origin) {
                let reference = p.reference();
                if applied.iter().any(|a| a.reference() == reference) {
                    left_out.unattributed.push(reference);
                }
            }
        }
        (keep, left_out)
    }

    /// Which `--apply` file `path` is, compared canonically.
    fn index_of(&self, path: &Path) -> Option<usize> {
        let canonical = std::fs::canonicalize(path).ok()?;
        self.0.iter().position(|(_, p)| *p == canonical)
    }
}

impl LeftOut {
    /// The notes for stderr, each naming `environment` when the state is one environment's.
    pub fn notes(&self, environment: Option<&str>) -> Vec<String> {
        let (within, read) = match environment {
            Some(e) => (format!("environment {e}: "), "rendered"),
            None => (String::new(), "read"),
        };
        let files = self.files.iter().map(|f| {
            format!("{within}{f} is the change (--apply): left out of the state {read} from -f")
        });
        let unknown = self.unattributed.iter().map(|p| {
            format!("{within}{p} of the state comes from a render that names no source file: if an --apply file holds it, it is counted in the state too")
        });
        files.chain(unknown).collect()
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_support::{inventory, pp};

    /// An `--apply` file written in a temporary directory, and its path.
    fn applied(dir: &Path, name: &str, text: &str) -> String {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    fn names(inv: &Inventory) -> Vec<String> {
        inv.policies().map(|p| p.reference().to_string()).collect()
    }

    #[test]
    fn objects_of_an_apply_file_leave_the_state_wherever_the_path_reaches_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = applied(dir.path(), "takeover.yaml", &pp("takeover", ""));
        // The state names the file through a detour: compared canonically, it is the same.
        let detour = dir.path().join("sub/../takeover.yaml");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let mut state = inventory("holder.yaml", &pp("holder", ""));
        let other = inventory(&detour.display().to_string(), &pp("takeover", ""));
        let at = state.documents.len();
        state.documents.extend(other.documents);
        state.objects.extend(other.objects.into_iter().map(|mut o| {
            if let Object::Policy(p) = &mut o {
                p.doc += at;
            }
            o
        }));
        let origins = vec![None, Some(detour)];
        let files = ApplyFiles::of(&[ChangeArg::Apply(file.clone())]);
        let (kept, left_out) = files.state_of(&state, &origins, &[]);
        assert_eq!(names(&kept), ["pp/default/holder"]);
        assert_eq!(left_out.files, std::slice::from_ref(&file));
        assert_eq!(
            left_out.notes(Some("prod")),
            [format!("environment prod: {file} is the change (--apply): left out of the state rendered from -f")]
        );
        // The documents stay: other objects still find theirs by index.
        assert_eq!(kept.documents.len(), 2);
    }

    #[test]
    fn a_state_without_the_files_is_borrowed_and_says_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = applied(dir.path(), "takeover.yaml", &pp("takeover", ""));
        let state = inventory("holder.yaml", &pp("holder", ""));
        let files = ApplyFiles::of(&[ChangeArg::Apply(file), ChangeArg::Delete("pp/x".into())]);
        let (kept, left_out) = files.state_of(&state, &[Some("holder.yaml".into())], &[]);
        assert!(matches!(kept, Cow::Borrowed(_)));
        assert_eq!(left_out, LeftOut::default());
        assert!(left_out.notes(None).is_empty());
    }

    #[test]
    fn a_policy_no_file_is_known_for_is_kept_and_named_when_it_may_be_the_change() {
        let dir = tempfile::tempdir().unwrap();
        let file = applied(dir.path(), "takeover.yaml", &pp("takeover", ""));
        let change = inventory(&file, &pp("takeover", ""));
        let state = inventory(
            "rendered",
            &format!("{}{}", pp("holder", ""), pp("takeover", "")),
        );
        let files = ApplyFiles::of(&[ChangeArg::Apply(file)]);
        let applied: Vec<Policy> = change.policies().cloned().collect();
        let (kept, left_out) = files.state_of(&state, &[None, None], &applied);
        assert_eq!(names(&kept), ["pp/default/holder", "pp/default/takeover"]);
        assert_eq!(
            left_out.notes(None),
            ["pp/default/takeover of the state comes from a render that names no source file: if an --apply file holds it, it is counted in the state too"]
        );
    }
}
