//! `lint --base` over plain manifests, streamed: each side goes through the same pipeline as
//! `lint PATH` ([`super::stream`]), one after the other, so neither side's whole parsed tree is
//! ever held. A file whose blob id is the same on both sides gives the same part on both (its
//! findings, documents and engine entries depend on its bytes and name alone): the base reuses
//! the head's part and parses only the files the change touches.
//!
//! What compares the sides reads only the policies of the changed files (the update rules, the
//! ownership delta): with every policy reference unique on each side, a policy of an unchanged
//! file is the same policy at the base and at head. When a reference repeats, or the change
//! touches a file that installs Karmada (each side is then judged in its own settings),
//! [`lint_base`] answers `None` and the caller compares whole sides instead.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use git2::Oid;

use super::phase::{Blame, History};
use super::rules::admission;
use super::stream::{self, FilePart, Fold, Growth, PartKeep, Refile};
use super::{baseline, registry, Finding, LintOptions, Linted};
use crate::context::Config;
use crate::engine::ownership::{self, Delta, Kept, OwnershipChange, Scope};
use crate::engine::state::{AdmittedPolicy, Prepared};
use crate::model::{Admission, Inventory, Object, ObjectRef, PolicyRef};
use crate::source::git::{GitError, GitRepo, Listed, ReadFile, Side};
use crate::source::{Document, Source};
use crate::util::profile::Clock;

/// What the comparison needs from the command line.
pub struct BaseRequest<'a> {
    pub repo: &'a GitRepo,
    pub head: &'a Side,
    pub base: Oid,
    pub specs: &'a [String],
    pub namespace: &'a str,
    pub config: &'a Config,
    pub opts: &'a LintOptions,
    pub all_findings: bool,
    /// Unix seconds, for the age of suspensions.
    pub now: i64,
}

/// One side, linted, with what the comparison reads of it.
struct SideLint {
    files: usize,
    documents: usize,
    policies: usize,
    findings: Vec<Finding>,
    notes: Vec<String>,
    installations: Vec<crate::model::installation::Installation>,
}

/// `--base` streamed; `None` when a policy reference repeats on a side or the change touches
/// an installation of Karmada (see the module).
pub fn lint_base(
    req: &BaseRequest<'_>,
    note: &(dyn Fn(&str) + Sync),
) -> Result<Option<Linted>, GitError> {
    let clock = Clock::start();
    let ignore = |p: &Path| req.config.ignores(p);
    let head_list = req.repo.list(req.head, req.specs, &ignore)?;
    let base_list = req.repo.list(&Side::Commit(req.base), req.specs, &ignore)?;
    head_list.notes.iter().for_each(|n| note(n));
    let base_ids = base_list.blob_ids();
    let options = super::analysis::options(req.opts);
    let reader = req.repo.blob_reader();
    // Head: every file through the pipeline. Of the files the base holds unchanged, what the
    // fold does not keep as it is, is kept aside for the base.
    // Sized for the whole input up front: vectors grown step by step leave their old copies.
    let mut fold = Fold::new(Growth::bytes(req.repo.size(&head_list.files)));
    let mut head_files: Vec<(String, usize, Option<PartKeep>)> = Vec::new();
    let mut skipped = Vec::new();
    let mut installs_changed = false;
    crate::util::parallel::each_in_parallel(
        &head_list.files,
        &|f: &Listed| read_part(&reader, f, req.namespace, req.opts, &options),
        &mut |read| match read {
            Ok((part, oid, name)) => {
                let same = base_ids.get(name.as_str()) == Some(&oid);
                installs_changed |= !same && part.installs_karmada();
                head_files.push((name, part.documents(), same.then(|| part.keep())));
                fold.add(part);
            }
            Err(n) => skipped.push(n),
        },
    )?;
    let files = head_files.len();
    let unchanged: HashSet<String> = head_files
        .iter()
        .filter(|(_, _, keep)| keep.is_some())
        .map(|(name, _, _)| name.clone())
        .collect();
    skipped.iter().for_each(|n| note(n));
    clock.lap("head: read, parse, per-object rules");
    // The base's changed files, parsed whole once: their policies are what changed.
    let mut changed_parts: HashMap<String, FilePart> = HashMap::new();
    let mut base_changed: Vec<Document> = Vec::new();
    for f in base_list
        .files
        .iter()
        .filter(|f| !unchanged.contains(&f.name))
    {
        if let ReadFile::Loaded(loaded, _) = reader.load(f)? {
            base_changed.extend(loaded.documents.iter().cloned());
            let part = stream::check_file(loaded, req.namespace, req.opts, &options);
            changed_parts.insert(f.name.clone(), part);
        }
    }
    // A change to a file that installs Karmada may change the settings the base is judged
    // in: the caller reads both sides whole and judges each in its own.
    if installs_changed || changed_parts.values().any(FilePart::installs_karmada) {
        return Ok(None);
    }
    let base_changed = Inventory::from_documents(base_changed, req.namespace);
    let head_ctx = HeadContext {
        unchanged: &unchanged,
        namespace: req.namespace,
        version: req.opts.version(),
    };
    let mut found = Found::default();
    let mut entries = (0, 0);
    let mut head = fold.finish(req.opts, &clock, &mut |inv, prepared| {
        entries = (prepared.templates.len(), prepared.policies.len());
        found = head_ctx.find(inv, prepared, &base_changed);
        clock.lap("head: the change's policies and the templates in its scope");
    });
    let Found {
        delta,
        scope,
        head_templates,
        head_changed,
        unique,
    } = found;
    if !unique {
        return Ok(None);
    }
    // Replica changes (`engine::replica_changes`) read the templates and Cluster objects of
    // both sides whole: with Cluster objects in the inputs, the caller compares whole sides.
    if !delta.is_empty() && !head.clusters.is_empty() {
        return Ok(None);
    }
    // The base's blame of the files the change leaves alone is the head's: asked once.
    if super::rules::suspension_age::enabled(req.opts) {
        let head_commit = match req.head {
            Side::Commit(oid) => Some(*oid),
            Side::Index | Side::WorkTree => req.repo.head_commit(),
        };
        if let Some(head_commit) = head_commit {
            req.repo.share_history(req.base, head_commit);
        }
    }
    let head_blame = |name: &str, text: &str, lines: &[u32]| {
        req.repo.introduced_lines(req.head, name, text, lines)
    };
    let mut head_findings = std::mem::take(&mut head.findings);
    head_findings.extend(aged(
        &head.inventory,
        &head.suspended,
        &req.into(),
        &head_blame,
    ));
    head_findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    clock.lap("head: suspension-age (blame)");
    let (changed_inv, changed_global) = head_changed;
    let updates = registry::run_history(&History {
        inventory: &changed_inv,
        blame: None,
        base: Some(&base_changed),
    });
    let updates = finish(
        renumbered(updates, &changed_global),
        &head.inventory,
        req.opts,
    );
    // The changed policies as UPDATEs: their verdicts replace the CREATE ones.
    let updated = admission::update_admission(&base_changed, &changed_inv, req.opts);
    // A policy a CREATE refuses and the API server admits as an update (validation ratcheting),
    // or stored before an upgrade, takes part in the decisions, where the delta above left it
    // out: the whole sides decide.
    if admitted_only_as_update(&changed_inv, &updated.admitted)
        || !updated.stored_before_upgrade.is_empty()
    {
        return Ok(None);
    }
    let renumber = |f| finish(renumbered(f, &changed_global), &head.inventory, req.opts);
    let ratcheted = renumber(updated.ratcheted);
    let changed = renumber(updated.changed);
    let updated = admission::UpdateAdmission {
        findings: renumber(updated.findings),
        changed: Vec::new(),
        ratcheted: Vec::new(),
        objects: updated.objects,
        admitted: updated.admitted,
        stored_before_upgrade: Vec::new(),
    };
    let head_side = SideLint {
        files,
        documents: head.inventory.documents.len(),
        policies: head.policies,
        findings: updated.replace(head_findings),
        notes: std::mem::take(&mut head.notes),
        installations: std::mem::take(&mut head.installations),
    };
    clock.lap("head: history");

    // Base: the head's parts where unchanged (taken back from the head's run), in the base's
    // file order; should the head's state not give its entries back whole, every file is read.
    let state = std::mem::take(&mut head.state);
    let growth = Growth::bytes(req.repo.size(&base_list.files));
    let fold = match state.into_prepared(entries.0, entries.1) {
        Some(prepared) => {
            let counts: Vec<usize> = head_files.iter().map(|(_, d, _)| *d).collect();
            let mut same: HashMap<String, (usize, PartKeep)> = HashMap::new();
            for (i, (name, _, keep)) in head_files.into_iter().enumerate() {
                if let Some(keep) = keep {
                    same.insert(name, (i, keep));
                }
            }
            let mut files = Vec::with_capacity(base_list.files.len());
            for f in &base_list.files {
                if let Some((i, keep)) = same.remove(&f.name) {
                    files.push(Refile::Same(i, keep));
                } else if let Some(part) = changed_parts.remove(&f.name) {
                    files.push(Refile::New(Box::new(part)));
                }
            }
            stream::refold(head, prepared, &counts, files, growth)
        }
        None => {
            drop(head);
            let mut fold = Fold::new(growth);
            for f in &base_list.files {
                let part = match changed_parts.remove(&f.name) {
                    Some(part) => part,
                    None => match read_part(&reader, f, req.namespace, req.opts, &options)? {
                        Ok((part, _, _)) => part,
                        Err(_) => continue,
                    },
                };
                fold.add(part);
            }
            fold
        }
    };
    clock.lap("base: the head's unchanged files taken over, changed files added");
    let mut subset = Inventory::default();
    let mut base_unique = true;
    let mut base = fold.finish(req.opts, &clock, &mut |inv, prepared| {
        base_unique = unique_references(prepared);
        if base_unique && !delta.is_empty() {
            subset = base_subset(inv, prepared, &scope, req.namespace);
        }
        clock.lap("base: the templates in the change's scope, typed again");
    });
    if !base_unique {
        return Ok(None);
    }
    let base_side = Side::Commit(req.base);
    let base_blame = |name: &str, text: &str, lines: &[u32]| {
        req.repo.introduced_lines(&base_side, name, text, lines)
    };
    let mut base_findings = std::mem::take(&mut base.findings);
    base_findings.extend(aged(
        &base.inventory,
        &base.suspended,
        &req.into(),
        &base_blame,
    ));
    clock.lap("base: history");
    let options = ownership::engine_options(&req.opts.gates);
    let ownership = delta.changes(&subset, &head_templates, options);
    clock.lap("ownership changes");
    Ok(Some(compare(
        head_side,
        &base_findings,
        (updates, changed, ratcheted),
        ownership,
        req.all_findings,
    )))
}

/// The findings new at head plus the rejected updates (as `lint --base` on whole sides) and the
/// schema errors of values the change touches, and the ratcheted schema errors, which are shown
/// but never new.
fn compare(
    head: SideLint,
    base_findings: &[Finding],
    (updates, changed, ratcheted): (Vec<Finding>, Vec<Finding>, Vec<Finding>),
    ownership: Vec<OwnershipChange>,
    all_findings: bool,
) -> Linted {
    let head_findings = admission::short_circuited_by_updates(head.findings, &updates);
    let mut updates = updates;
    updates.extend(changed);
    let new = baseline::new_at_head(base_findings, &head_findings);
    let mut new_findings: Vec<Finding> = head_findings
        .iter()
        .zip(&new)
        .filter(|(_, n)| **n)
        .map(|(f, _)| f.clone())
        .chain(updates.iter().cloned())
        .collect();
    new_findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let mut reported = if all_findings {
        let mut all = head_findings;
        all.extend(updates);
        all
    } else {
        new_findings.clone()
    };
    reported.extend(ratcheted);
    reported.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Linted {
        files: head.files,
        documents: head.documents,
        policies: head.policies,
        findings: reported,
        new_only: Some(new_findings),
        ownership: Some(ownership),
        notes: head.notes,
        installations: head.installations,
        ..Linted::default()
    }
}

/// Reads one listed file and checks it on its own; a skipped file (LFS pointer) is its note.
pub(super) fn read_part(
    reader: &crate::source::git::BlobReader,
    f: &Listed,
    namespace: &str,
    opts: &LintOptions,
    options: &crate::engine::state::Options,
) -> Result<Result<(FilePart, Oid, String), String>, GitError> {
    Ok(match reader.load(f)? {
        ReadFile::Loaded(loaded, oid) => Ok((
            stream::check_file(loaded, namespace, opts, options),
            oid,
            f.name.clone(),
        )),
        ReadFile::Skipped(n) => Err(n),
    })
}

/// What the head's whole input tells before its engine state takes it.
#[derive(Default)]
struct Found {
    delta: Delta,
    scope: Option<Scope>,
    /// The head's templates in the change's scope: the references reported, and the labels a
    /// template update gives (`ownership::template_updates`).
    head_templates: Vec<crate::engine::state::TemplateEntry>,
    /// The head's policies of changed files, typed again, and their documents' numbers.
    head_changed: (Inventory, Vec<usize>),
    unique: bool,
}

struct HeadContext<'a> {
    unchanged: &'a HashSet<String>,
    namespace: &'a str,
    version: crate::model::KarmadaVersion,
}

impl HeadContext<'_> {
    fn find(&self, inv: &Inventory, prepared: &Prepared, base_changed: &Inventory) -> Found {
        if !unique_references(prepared) {
            return Found::default();
        }
        let changed_docs = prepared
            .policies
            .iter()
            .filter_map(|p| p.doc())
            .filter(|&d| !self.unchanged.contains(&inv.documents[d].source.name));
        let mut head_changed = retype(&inv.documents, changed_docs.collect(), self.namespace);
        mark_refused(&mut head_changed, prepared);
        let delta = Delta::of(
            base_changed.policies(),
            head_changed.0.policies(),
            self.version,
        );
        let scope = delta.scope();
        let head_templates = prepared
            .templates
            .iter()
            .filter(|t| scope.covers(&t.api_version, &t.kind, &t.namespace))
            .cloned()
            .collect();
        Found {
            delta,
            scope: Some(scope),
            head_templates,
            head_changed,
            unique: true,
        }
    }
}

/// Marks the policies typed again from their documents with the verdict the side's admission
/// gave them (retyping forgets it): a policy Karmada refuses is applied as refused, creates
/// nothing and changes no owner.
fn mark_refused((inv, global): &mut (Inventory, Vec<usize>), prepared: &Prepared) {
    let refused: HashMap<usize, String> = prepared
        .policies
        .iter()
        .filter_map(|p| match p {
            AdmittedPolicy::Rejected(r) => Some((r.doc?, r.errors.join("; "))),
            AdmittedPolicy::Admitted(_) => None,
        })
        .collect();
    for o in &mut inv.objects {
        if let Object::Policy(p) = o {
            if let Some(errors) = global.get(p.doc).and_then(|d| refused.get(d)) {
                p.admission = Admission::Refused(errors.clone());
            }
        }
    }
}

/// Whether a policy of `inv` refused by admission is among the objects `admitted` as updates.
fn admitted_only_as_update(inv: &Inventory, admitted: &[ObjectRef]) -> bool {
    inv.policies().any(|p| {
        p.admission.refusal().is_some() && admitted.contains(&super::rules::policy_object_ref(p))
    })
}

/// Whether no two policies of a side share a reference.
fn unique_references(prepared: &Prepared) -> bool {
    let mut seen: HashSet<PolicyRef> = HashSet::with_capacity(prepared.policies.len());
    prepared.policies.iter().all(|p| seen.insert(p.reference()))
}

/// The base as [`Scope::subset`] keeps it: the templates in scope, the policies that may select
/// or claim them, every other object; typed again from their documents.
fn base_subset(
    inv: &Inventory,
    prepared: &Prepared,
    scope: &Option<Scope>,
    namespace: &str,
) -> Inventory {
    let Some(scope) = scope else {
        return Inventory::default();
    };
    let mut kept = Kept::default();
    let mut template_docs = Vec::new();
    for t in &prepared.templates {
        if scope.covers(&t.api_version, &t.kind, &t.namespace) {
            kept.template(&t.api_version, &t.kind, &t.namespace, t.claim());
            template_docs.extend(t.doc);
        }
    }
    // A policy the base's admission refused was never stored: it claims and matches nothing.
    let policy_docs: Vec<usize> = prepared
        .policies
        .iter()
        .filter(|p| matches!(p, AdmittedPolicy::Admitted(_)))
        .filter(|p| kept.selects(&p.reference(), &p.spec().resource_selectors))
        .filter_map(|p| p.doc())
        .collect();
    let mut objects = typed(&inv.documents, template_docs, namespace);
    let mut rest = typed(&inv.documents, policy_docs, namespace);
    rest.extend(inv.objects.iter().cloned());
    rest.sort_by_key(Object::doc);
    objects.extend(rest);
    Inventory {
        documents: Vec::new(),
        objects,
        problems: Vec::new(),
    }
}

/// The objects of documents `docs`, typed again from their whole trees, numbered as in `all`.
/// File by file, as documents type independently: a file's text read again for its trees is let
/// go before the next file's is read.
fn typed(all: &[Document], docs: Vec<usize>, namespace: &str) -> Vec<Object> {
    let mut out = Vec::with_capacity(docs.len());
    for file in docs.chunk_by(|a, b| same_source(&all[*a], &all[*b])) {
        let (inv, global) = retype(all, file.to_vec(), namespace);
        out.extend(inv.objects.into_iter().map(|mut o| {
            *o.doc_mut() = global[o.doc()];
            o
        }));
    }
    out
}

fn same_source(a: &Document, b: &Document) -> bool {
    Arc::ptr_eq(&a.source, &b.source)
}

/// Documents `docs` of `all` with their whole trees (parsed again from their lines), typed:
/// an inventory of those alone, and each one's number in `all`.
/// The documents share one transient copy of each source ([`Source::transient`]), so the file
/// texts read again for this are gone with the inventory.
fn retype(all: &[Document], docs: Vec<usize>, namespace: &str) -> (Inventory, Vec<usize>) {
    let mut copies = HashMap::new();
    let whole = docs
        .iter()
        .map(|&d| whole_document(&all[d], &mut copies))
        .collect();
    (Inventory::from_documents(whole, namespace), docs)
}

/// A document with its whole tree (parsed again where partial), its source one transient copy
/// per source (`copies`).
fn whole_document(doc: &Document, copies: &mut HashMap<*const Source, Arc<Source>>) -> Document {
    let source = copies
        .entry(Arc::as_ptr(&doc.source))
        .or_insert_with(|| doc.source.transient());
    let mut through = doc.clone();
    through.source = Arc::clone(source);
    let tree = through.full_tree().into_owned();
    Document::new(Arc::clone(source), doc.index, tree)
}

/// Every document of `all` typed again from its whole tree: a side as the rules that compare
/// whole sides read it.
pub(super) fn retyped_whole(all: &[Document], namespace: &str) -> Inventory {
    let mut copies = HashMap::new();
    let whole = all.iter().map(|d| whole_document(d, &mut copies)).collect();
    Inventory::from_documents(whole, namespace)
}

/// Findings made over a [`retype`]d inventory, numbered as in the whole side.
fn renumbered(mut findings: Vec<Finding>, global: &[usize]) -> Vec<Finding> {
    for f in &mut findings {
        f.doc = f.doc.and_then(|d| global.get(d).copied());
    }
    findings
}

/// What `suspension-age` needs of a run besides a side's documents.
pub(super) struct Ages<'a> {
    pub namespace: &'a str,
    pub config: &'a Config,
    pub opts: &'a LintOptions,
    /// Unix seconds.
    pub now: i64,
}

impl<'a> From<&BaseRequest<'a>> for Ages<'a> {
    fn from(req: &BaseRequest<'a>) -> Ages<'a> {
        Ages {
            namespace: req.namespace,
            config: req.config,
            opts: req.opts,
            now: req.now,
        }
    }
}

/// `suspension-age` over one side's suspended policies (blame), settings and ignores applied.
pub(super) fn aged(
    inv: &Inventory,
    suspended: &[usize],
    req: &Ages<'_>,
    introduced: super::phase::Introduced<'_>,
) -> Vec<Finding> {
    if !super::rules::suspension_age::enabled(req.opts) {
        return Vec::new();
    }
    let max_age = req
        .config
        .max_suspension_age_secs
        .unwrap_or(super::rules::suspension_age::DEFAULT_MAX_AGE_SECS);
    let mut suspended = suspended.to_vec();
    suspended.sort_unstable();
    // File by file: a released file's text is read again for its policies' trees and their
    // blame, and let go before the next file (all at once held every such file's text). The
    // history checks without a base look at one policy at a time, so the split changes nothing.
    let same_file = |a: &usize, b: &usize| same_source(&inv.documents[*a], &inv.documents[*b]);
    let mut found = Vec::new();
    for file in suspended.chunk_by(same_file) {
        let (policies, global) = retype(&inv.documents, file.to_vec(), req.namespace);
        let aged = registry::run_history(&History {
            inventory: &policies,
            blame: Some(Blame {
                introduced,
                max_age_secs: max_age,
                now: req.now,
            }),
            base: None,
        });
        found.extend(renumbered(aged, &global));
    }
    finish(found, inv, req.opts)
}

/// Configuration settings and inline ignores for findings made outside `lint::lint`.
pub fn finish(findings: Vec<Finding>, inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let findings = super::apply_settings(findings, &opts.rules);
    if opts.inline_ignores {
        // `lint::lint` already reported malformed ignore annotations: keep only the filtering.
        super::suppress::apply(findings, inventory, &registry::is_known)
            .into_iter()
            .filter(|f| f.rule != super::rules::invalid_ignore::INVALID_IGNORE.id)
            .collect()
    } else {
        findings
    }
}
