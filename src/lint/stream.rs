//! `lint PATH...` over many files without holding every parsed tree at once.
//!
//! A node tree costs about twenty times the text it was parsed from, so a 50 MB repository
//! parsed whole needs more than a gigabyte. Each file is instead checked on its own right after it
//! is parsed, on the thread that parsed it (the per-object rules: input, typing, schema,
//! admission, suspension), and then reduced to what the rules that compare objects read: its
//! templates and policies become the engine's prepared entries ([`Prepared::take`]), a policy's
//! tree a skeleton of where the semantic rules point, any other tree its ignore annotation (a
//! template's as soon as it is typed), its identities hashed for duplicate-identity, and the
//! text is released but for the lines a report will print (any other is read back from the
//! file). Where a finding points outside a skeleton, the document is parsed again from its
//! lines ([`crate::source::Document::tree_for`]), a few thousand small documents at most. The
//! calling thread folds the files' parts together in input order as they arrive.
//! The findings are the same as [`super::lint`] gives over the whole input.

use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::state::{Options, Prepared, State};
use crate::model::cluster::{name_location, Cluster};
use crate::model::installation::{self, Installation};
use crate::model::{Inventory, Object};
use crate::source::files::{self, ReadError};
use crate::source::kustomize::discover::declares_environments_in;
use crate::source::pieces;
use crate::source::{Document, Entry, FieldPath, Loaded, Node, Seg, Source, Value};

use crate::util::profile::Clock;

use super::finding::Finding;
use super::options::LintOptions;
use super::phase::{Identities, Taken};
use super::result::Linted;
use super::{analysis, per_object_findings, registry, rules, semantic_findings_of, suppress};

/// What a streamed run read and found.
#[derive(Default)]
pub struct Streamed {
    /// One per input file, in input order (their documents moved into the inventory).
    pub loaded: Vec<Loaded>,
    /// Every document, partial: its tree is only a skeleton (see [`Document::partial`]). The
    /// objects are the Karmada objects other than policies: templates and policies were
    /// moved into the engine's state.
    ///
    /// [`Document::partial`]: crate::source::Document::partial
    pub inventory: Inventory,
    /// How many policies the input has.
    pub policies: usize,
    /// The engine's snapshot of the input, which the semantic rules read.
    pub state: State,
    /// The inputs' Cluster objects, in input order.
    pub clusters: Vec<Cluster>,
    /// Sorted by file and position, configuration and inline ignores applied.
    pub findings: Vec<Finding>,
    /// The documents of the policies that set `spec.suspension` (for `suspension-age`, which
    /// reads their whole trees again).
    pub suspended: Vec<usize>,
    /// What the user should know (the member clusters taken to serve every API).
    pub notes: Vec<String>,
    /// Whether a file defines where a GitOps controller applies manifests from (a Flux
    /// Kustomization, an Argo CD Application), when the run was asked to watch for one
    /// ([`lint_paths_in`]): then the files are a repository to render, not plain manifests.
    pub declares_environments: bool,
    /// The installations of Karmada the files hold, in input order (read as each file's
    /// templates are typed, [`check_file`]).
    pub installations: Vec<Installation>,
}

/// `lint --parse-only`: the loader alone (expand, read, parse on all cores), for
/// scripts/bench.sh to compare with a full run on the same files. Each file's tree is dropped
/// once counted, as `lint` lets it go after its checks. Displays as
/// `files=N documents=D problems=P bytes=B`.
pub fn parse_only(files: &[PathBuf]) -> Result<ParseCounts, ReadError> {
    let mut counts = ParseCounts {
        files: 0,
        documents: 0,
        problems: 0,
        bytes: 0,
    };
    // Read as `lint` reads them: a large file or stdin in pieces.
    pieces::read_each_with(
        files,
        &|l| {
            let first = !l.source.continues();
            (
                first,
                l.documents.len(),
                l.problems.len(),
                l.source.text().len(),
            )
        },
        &mut |(first, documents, problems, bytes)| {
            counts.files += usize::from(first);
            counts.documents += documents;
            counts.problems += problems;
            counts.bytes += bytes;
        },
    )?;
    Ok(counts)
}

/// What [`parse_only`] counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseCounts {
    pub files: usize,
    pub documents: usize,
    pub problems: usize,
    pub bytes: usize,
}

impl std::fmt::Display for ParseCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "files={} documents={} problems={} bytes={}",
            self.files, self.documents, self.problems, self.bytes
        )
    }
}

/// One file, checked on its own.
#[derive(Clone)]
pub struct FilePart {
    loaded: Loaded,
    /// Without templates and policies: they are in `prepared`.
    inventory: Inventory,
    prepared: Prepared,
    /// Its Cluster objects, typed before their trees went.
    clusters: Vec<Cluster>,
    findings: Vec<Finding>,
    /// Its objects' identity hashes for duplicate-identity, hashed here (see
    /// [`rules::duplicate_identity::identity_hashes`]).
    identities: Vec<(u64, usize)>,
    /// The file's size (its text is released).
    bytes: usize,
    /// Its documents (from 0) of policies that set `spec.suspension`.
    suspended: Vec<usize>,
    /// The installations of Karmada it holds ([`Streamed::installations`]).
    installations: Vec<Installation>,
}

/// Reads, parses and lints `paths` (files, or `-` for stdin); an unreadable input is an error.
pub fn lint_paths(
    paths: &[PathBuf],
    default_namespace: &str,
    opts: &LintOptions,
) -> Result<Streamed, ReadError> {
    lint_paths_in(paths, &|_| None, default_namespace, opts, false)
}

/// [`lint_paths`], objects that set no namespace placed by `namespace_of` their file (the
/// configuration's `namespaces:`), else in `default_namespace`. With `watch_environments`,
/// each file is also asked whether it declares GitOps environments
/// ([`Streamed::declares_environments`]) as it is parsed, so that deciding what the files are
/// does not read them all a second time.
pub fn lint_paths_in(
    paths: &[PathBuf],
    namespace_of: &(dyn Fn(&std::path::Path) -> Option<String> + Sync),
    default_namespace: &str,
    opts: &LintOptions,
    watch_environments: bool,
) -> Result<Streamed, ReadError> {
    let clock = Clock::start();
    let options = analysis::options(opts);
    let mut declares_environments = false;
    let mut fold = Fold::new(Growth::of(paths));
    // Each file joins the whole as soon as the files before it have: this thread is idle while
    // the others parse, and all the parts held at once and then merged made a second copy.
    pieces::read_each_with(
        paths,
        &|loaded| {
            let path = std::path::Path::new(&loaded.source.name);
            let ns = namespace_of(path);
            let declares = watch_environments && declares_environments_in(&loaded, path);
            let part = check_file(
                loaded,
                ns.as_deref().unwrap_or(default_namespace),
                opts,
                &options,
            );
            (part, declares)
        },
        &mut |(part, declares)| {
            declares_environments |= declares;
            fold.add(part);
        },
    )?;
    clock.lap("read, parse, per-object rules");
    if declares_environments {
        // The caller lints a repository to render instead: nothing of this run is reported.
        return Ok(Streamed {
            declares_environments,
            ..Streamed::default()
        });
    }
    Ok(fold.finish(opts, &clock, &mut |_, _| {}))
}

/// A streamed run's files folded together, in input order, as they come.
pub struct Fold {
    linted: Streamed,
    prepared: Prepared,
    identities: Vec<(u64, usize)>,
    growth: Growth,
    /// The input the last part came from, which the next part may continue.
    open: OpenInput,
}

/// An input read in pieces ([`crate::source::pieces`]) as its parts come in: each piece is
/// checked as a file of its own, and once the input's last piece is in, its documents and
/// findings share one source again, as if it had been read whole.
#[derive(Default)]
struct OpenInput {
    /// Where its documents and findings start in the fold.
    documents: usize,
    findings: usize,
    /// Its pieces' sources, first to last.
    pieces: Vec<Arc<Source>>,
}

impl Fold {
    /// An empty fold sized as `growth` estimates.
    pub fn new(growth: Growth) -> Fold {
        Fold {
            linted: Streamed::default(),
            prepared: Prepared::default(),
            identities: Vec::new(),
            growth,
            open: OpenInput::default(),
        }
    }

    /// The next file's part, or the next piece of the input of the part before.
    pub fn add(&mut self, mut part: FilePart) {
        let continues = part.loaded.source.continues() && !self.open.pieces.is_empty();
        if !continues {
            self.seal();
            self.open = OpenInput {
                documents: self.linted.inventory.documents.len(),
                findings: self.linted.findings.len(),
                pieces: Vec::new(),
            };
        } else {
            // Documents are numbered within their input.
            let before = self.linted.inventory.documents.len() - self.open.documents;
            for doc in &mut part.inventory.documents {
                doc.index += before;
            }
        }
        self.open.pieces.push(part.loaded.source.clone());
        let Fold {
            linted,
            prepared,
            identities,
            growth,
            ..
        } = self;
        growth.seen += part.bytes;
        growth.reserve(linted, prepared, &part);
        growth.reserve_in(identities, part.identities.len());
        let offset = linted.inventory.documents.len();
        identities.extend(part.identities.iter().map(|&(h, doc)| (h, doc + offset)));
        linted.append(prepared, part, continues)
    }

    /// Once the last piece of an input read in pieces is in: its pieces' sources made one.
    fn seal(&mut self) {
        let open = std::mem::take(&mut self.open);
        if open.pieces.len() < 2 {
            return;
        }
        let joined = Source::joined(&open.pieces);
        let pieces: std::collections::HashSet<*const Source> =
            open.pieces.iter().map(Arc::as_ptr).collect();
        let swap = |source: &mut Arc<Source>| {
            if pieces.contains(&Arc::as_ptr(source)) {
                *source = joined.clone();
            }
        };
        let linted = &mut self.linted;
        for doc in &mut linted.inventory.documents[open.documents..] {
            swap(&mut doc.source);
        }
        for f in &mut linted.findings[open.findings..] {
            if let Some(l) = &mut f.location {
                swap(&mut l.source);
            }
            for r in &mut f.related {
                swap(&mut r.location.source);
            }
        }
        if let Some(loaded) = linted.loaded.last_mut() {
            swap(&mut loaded.source);
        }
    }

    /// How many documents the files so far hold.
    pub fn documents(&self) -> usize {
        self.linted.inventory.documents.len()
    }

    /// The rules that compare objects, once every file is in. `before_state` sees the whole
    /// input's documents and engine entries before the engine's state takes them.
    pub fn finish(
        mut self,
        opts: &LintOptions,
        clock: &Clock,
        before_state: &mut dyn FnMut(&Inventory, &Prepared),
    ) -> Streamed {
        self.seal();
        let Fold {
            mut linted,
            prepared,
            mut identities,
            ..
        } = self;
        let options = analysis::options(opts);
        let inventory = &linted.inventory;
        // Before the state is built: it keeps one template of each identity.
        let taken = Taken {
            templates: &prepared.templates,
            policies: &prepared.policies,
        };
        // The files' sorted runs, merged.
        identities.sort();
        let duplicates = registry::run_identities(&Identities {
            inventory,
            taken,
            hashes: Some(&identities),
        });
        linted.policies = prepared.policies.len();
        clock.lap("duplicate-identity");
        before_state(inventory, &prepared);
        let state = State::from_prepared(inventory, prepared, options);
        clock.lap("engine state");
        let clusters = analysis::KnownClusters::of(linted.clusters.clone(), opts);
        linted.notes.extend(clusters.note());
        let semantic = semantic_findings_of(inventory, &state, clusters);
        clock.lap("semantic rules (engine analysis)");
        // Kept, not dropped here: freeing a hundred thousand templates one by one took 25 ms at
        // 100,000 documents, on the way to the report. A caller about to exit need not free it.
        linted.state = state;
        let mut findings = std::mem::take(&mut linted.findings);
        findings.extend(duplicates);
        findings.extend(semantic);
        linted.findings = super::finish(findings, &linted.inventory, opts);
        clock.lap("settings, ignores, sorting");
        linted
    }
}

impl Streamed {
    /// The run's result; the working state stays with it (see [`Linted::leak`]).
    pub fn into_linted(mut self) -> Linted {
        Linted {
            files: self.loaded.len(),
            documents: self.inventory.documents.len(),
            policies: self.policies,
            findings: std::mem::take(&mut self.findings),
            notes: std::mem::take(&mut self.notes),
            installations: std::mem::take(&mut self.installations),
            _retained: Some(Box::new(self)),
            ..Linted::default()
        }
    }

    /// Whether stdin was among the inputs and gave neither a document, nor data, nor a finding
    /// (empty, or only comments): the usual sign of a failed `kubectl kustomize | ...` pipe.
    pub fn stdin_was_empty(&self, paths: &[String]) -> bool {
        const STDIN: &str = "<stdin>";
        paths.iter().any(|p| p == "-")
            && !self.inventory.documents.iter().any(|d| d.source.name == STDIN)
            && !self
                .findings
                .iter()
                .any(|f| f.location.as_ref().is_some_and(|l| l.source.name == STDIN))
            // Data (a list, a values file) is not an empty pipe: it was said in a note.
            && !self
                .loaded
                .iter()
                .any(|l| l.source.name == STDIN && !l.data.is_empty())
    }

    /// Adds a file's part, its document indices counted from the documents before it; a
    /// piece that `continues` the input before it joins that input's [`Loaded`].
    fn append(&mut self, prepared: &mut Prepared, part: FilePart, continues: bool) {
        let offset = self.inventory.documents.len();
        self.findings.extend(part.findings.into_iter().map(|mut f| {
            if let Some(doc) = &mut f.doc {
                *doc += offset;
            }
            f
        }));
        self.inventory.append(part.inventory);
        self.suspended
            .extend(part.suspended.iter().map(|d| d + offset));
        self.installations.extend(part.installations);
        prepared.append(part.prepared, offset);
        self.clusters.extend(part.clusters);
        match self.loaded.last_mut() {
            Some(input) if continues => {
                let Loaded { problems, data, .. } = part.loaded;
                input.problems.extend(problems);
                input.data.extend(data);
            }
            _ => self.loaded.push(part.loaded),
        }
    }
}

/// What the fold does not keep of a part as it was (it merges and finishes them): for handing
/// the part to a second run ([`refold`]).
#[derive(Clone, Default)]
pub struct PartKeep {
    findings: Vec<Finding>,
    identities: Vec<(u64, usize)>,
    suspended: Vec<usize>,
    /// Its Cluster objects (the placement rules of the second run read them too).
    clusters: Vec<Cluster>,
}

impl FilePart {
    /// How many documents the file holds.
    pub fn documents(&self) -> usize {
        self.inventory.documents.len()
    }

    /// Whether the file holds an installation of Karmada.
    pub fn installs_karmada(&self) -> bool {
        !self.installations.is_empty()
    }

    /// What a second run needs of this part besides what [`refold`] takes back.
    pub fn keep(&self) -> PartKeep {
        PartKeep {
            findings: self.findings.clone(),
            identities: self.identities.clone(),
            suspended: self.suspended.clone(),
            clusters: self.clusters.clone(),
        }
    }
}

/// One file of a second run that shares most files with a finished one ([`refold`]).
pub enum Refile {
    /// The finished run's file of this number, unchanged; with what its fold kept aside.
    Same(usize, PartKeep),
    /// A file of the second run only.
    New(Box<FilePart>),
}

/// The fold of a second run (`lint --base`'s base) made from a finished one, in place: the
/// finished run's documents, objects and engine entries (`prepared`, which its state gave
/// back: [`State::into_prepared`]) of the files `files` keeps, renumbered, and the new files'
/// parts, in the order of `files`. No vector of the finished run is copied: a copy of a
/// hundred thousand documents' worth costs what the second run saves. `counts` holds each
/// file's document count in the finished run, in its order.
pub fn refold(
    linted: Streamed,
    prepared: Prepared,
    counts: &[usize],
    files: Vec<Refile>,
    growth: Growth,
) -> Fold {
    let Streamed {
        loaded, inventory, ..
    } = linted;
    let Inventory {
        mut documents,
        mut objects,
        mut problems,
    } = inventory;
    // The declared kinds of every file of either run: a kind's scope does not change between
    // two revisions the way its objects do, and a declaration dropped from the second run is
    // no reason to guess instead.
    let Prepared {
        mut policies,
        mut templates,
        mut declared,
    } = prepared;
    let mut old_first = Vec::with_capacity(counts.len());
    let mut at = 0;
    for c in counts {
        old_first.push(at);
        at += c;
    }
    // Where each file's first document goes, and by how much a kept file's numbers move.
    let mut shift: Vec<Option<isize>> = vec![None; counts.len()];
    let mut first = 0;
    let mut layout = Vec::with_capacity(files.len());
    for f in &files {
        let n = match f {
            Refile::Same(i, _) => {
                shift[*i] = Some(first as isize - old_first[*i] as isize);
                counts[*i]
            }
            Refile::New(part) => part.documents(),
        };
        layout.push(first);
        first += n;
    }
    let file_of = |d: usize| old_first.partition_point(|&f| f <= d) - 1;
    let moved = |d: usize| shift[file_of(d)].map(|s| (d as isize + s) as usize);
    let mut renumber = |d: &mut usize| match moved(*d) {
        Some(n) => {
            *d = n;
            true
        }
        None => false,
    };
    // Documents have no number but their place: the kept ones' new places, then a permutation.
    let mut place: Vec<usize> = Vec::with_capacity(first);
    let mut old = 0;
    documents.retain(|_| {
        let kept = moved(old);
        old += 1;
        place.extend(kept);
        kept.is_some()
    });
    objects.retain_mut(|o| renumber(o.doc_mut()));
    problems.retain_mut(|p| renumber(&mut p.doc));
    templates.retain_mut(|t| t.doc.as_mut().is_some_and(&mut renumber));
    policies.retain_mut(|p| p.doc_mut().as_mut().is_some_and(&mut renumber));
    let mut by_file: Vec<Option<Loaded>> = loaded.into_iter().map(Some).collect();
    let mut fold = Fold::new(growth);
    let mut findings = Vec::new();
    let mut identities = Vec::new();
    let mut suspended = Vec::new();
    let mut clusters = Vec::new();
    let mut files_loaded = Vec::with_capacity(files.len());
    for (f, offset) in files.into_iter().zip(layout) {
        let (keep, part_loaded) = match f {
            Refile::Same(i, keep) => (keep, by_file[i].take()),
            Refile::New(part) => {
                let FilePart {
                    loaded,
                    inventory,
                    prepared,
                    findings,
                    identities,
                    suspended,
                    clusters,
                    ..
                } = *part;
                place.extend(offset..offset + inventory.documents.len());
                documents.extend(inventory.documents);
                objects.extend(inventory.objects.into_iter().map(|mut o| {
                    *o.doc_mut() += offset;
                    o
                }));
                problems.extend(inventory.problems.into_iter().map(|mut p| {
                    p.doc += offset;
                    p
                }));
                let mut entries = Prepared::default();
                entries.append(prepared, offset);
                templates.extend(entries.templates);
                policies.extend(entries.policies);
                declared.extend(entries.declared);
                let keep = PartKeep {
                    findings,
                    identities,
                    suspended,
                    clusters,
                };
                (keep, Some(loaded))
            }
        };
        findings.extend(keep.findings.into_iter().map(|mut f| {
            if let Some(doc) = &mut f.doc {
                *doc += offset;
            }
            f
        }));
        identities.extend(keep.identities.iter().map(|&(h, d)| (h, d + offset)));
        suspended.extend(keep.suspended.iter().map(|d| d + offset));
        clusters.extend(keep.clusters);
        files_loaded.extend(part_loaded);
    }
    permute(&mut documents, place);
    objects.sort_unstable_by_key(|o| o.doc());
    problems.sort_by_key(|p| p.doc);
    templates.sort_unstable_by_key(|t| t.doc);
    policies.sort_unstable_by_key(|p| p.doc());
    fold.linted.loaded = files_loaded;
    fold.linted.inventory = Inventory {
        documents,
        objects,
        problems,
    };
    fold.linted.findings = findings;
    fold.linted.suspended = suspended;
    fold.linted.clusters = clusters;
    fold.prepared = Prepared {
        policies,
        templates,
        declared,
    };
    fold.identities = identities;
    fold
}

/// Puts `items[i]` at `place[i]` (a permutation), in place.
fn permute<T>(items: &mut [T], mut place: Vec<usize>) {
    for i in 0..items.len() {
        while place[i] != i {
            let to = place[i];
            items.swap(i, to);
            place.swap(i, to);
        }
    }
}

/// How much of the input the merged vectors have seen: each is sized for the whole input,
/// estimated from the part seen, when the next file would not fit. Growing by doubling instead
/// left the smaller copies behind (a freed block is not returned to the system, see main.rs).
pub struct Growth {
    total: usize,
    seen: usize,
}

impl Growth {
    fn of(paths: &[PathBuf]) -> Growth {
        Growth::bytes(
            paths
                .iter()
                .map(|p| files::input_size(p).unwrap_or(0) as usize)
                .sum(),
        )
    }

    /// For an input of `total` bytes.
    pub fn bytes(total: usize) -> Growth {
        Growth { total, seen: 0 }
    }

    fn reserve(&self, linted: &mut Streamed, prepared: &mut Prepared, part: &FilePart) {
        let inventory = &mut linted.inventory;
        self.reserve_in(&mut inventory.documents, part.inventory.documents.len());
        self.reserve_in(&mut inventory.objects, part.inventory.objects.len());
        self.reserve_in(&mut prepared.templates, part.prepared.templates.len());
        self.reserve_in(&mut prepared.policies, part.prepared.policies.len());
    }

    fn reserve_in<T>(&self, v: &mut Vec<T>, more: usize) {
        let needed = v.len() + more;
        if needed <= v.capacity() || self.seen == 0 {
            return;
        }
        // Proportional to the bytes seen, and a twentieth more for files that differ. Past the
        // estimate (a pipe's size is not known), twice what was seen: the vectors double.
        let total = if self.total >= self.seen {
            self.total
        } else {
            2 * self.seen
        };
        let whole = needed as u128 * total as u128 / self.seen as u128;
        let estimate = (whole + whole / 20) as usize;
        v.reserve_exact(estimate.max(needed) - v.len());
    }
}

/// Types one file's documents, runs the per-object rules on them and lets go of what the later
/// rules do not read: templates become the engine's entries, trees become skeletons. Document
/// indices in the result are the file's own (from 0).
pub fn check_file(
    mut loaded: Loaded,
    default_namespace: &str,
    opts: &LintOptions,
    options: &Options,
) -> FilePart {
    let documents = std::mem::take(&mut loaded.documents);
    // No per-object rule reads a template's tree: it goes as soon as the template is typed.
    // Cluster objects (a few) are typed first: the placement rules evaluate against them, and
    // so are the installations of Karmada, whose settings the run may take
    // ([`Streamed::installations`]).
    let clusters = std::cell::RefCell::new(Vec::new());
    let installations = std::cell::RefCell::new(Vec::new());
    let words = installation::Words::of(loaded.source.text());
    let mut inventory = Inventory::from_documents_then(documents, default_namespace, &|doc, o| {
        if let Some(Object::Template(t)) = o {
            if Cluster::is_cluster(t) {
                let json = doc.root.to_json();
                clusters.borrow_mut().push(Cluster {
                    origin: Some(name_location(doc)),
                    ..Cluster::from_json(&t.meta, &json)
                });
            }
            if words.may_be(&t.api_version, &t.kind) {
                let found = installation::in_documents(std::iter::once(&*doc));
                installations.borrow_mut().extend(found);
            }
            // A ClusterTaintPolicy (a few per repository) goes through its admission chain in
            // the per-object rules: its tree goes with the policies' afterwards.
            if !is_taint_policy(t) {
                release_tree(doc, false);
            }
        }
    });
    let clusters = clusters.into_inner();
    let installations = installations.into_inner();
    // The policies' trees are still whole here: the chain's verdicts mark them before they
    // become the engine's entries, and the admission rule reports the same verdicts.
    let admissions = super::admit(&mut inventory, opts);
    let findings =
        per_object_findings(std::slice::from_ref(&loaded), &inventory, &admissions, opts);
    let suspended = inventory
        .policies()
        .filter(|p| p.spec.suspension.is_some())
        .map(|p| p.doc)
        .collect();
    release_trees(&mut inventory);
    let prepared = Prepared::take(options, &mut inventory.objects);
    let taken = Taken {
        templates: &prepared.templates,
        policies: &prepared.policies,
    };
    let identities = rules::duplicate_identity::identity_hashes(&inventory.objects, taken);
    let bytes = loaded.source.text().len();
    let mut part = FilePart {
        loaded,
        inventory,
        prepared,
        clusters,
        findings,
        identities,
        bytes,
        suspended,
        installations,
    };
    release_text(&mut part);
    part
}

fn is_taint_policy(t: &crate::model::Template) -> bool {
    t.kind == crate::engine::admission::taint_chain::KIND
        && t.api_version == crate::model::POLICY_API_VERSION
}

/// Lets go of the file's text, as large as the rest of what is kept, but for the lines a report
/// will likely print: those of the findings so far and of the skeletons' nodes, where the
/// semantic rules point. Another line, or a document that must be parsed again, is read back
/// from the file ([`crate::source::Source::released_keeping`]). A text with no file behind it
/// (stdin) stays.
fn release_text(part: &mut FilePart) {
    let Some(released) = part.loaded.source.released_keeping(printed_lines(part)) else {
        return;
    };
    let text = std::mem::replace(&mut part.loaded.source, released.clone());
    let swap = |source: &mut Arc<Source>| {
        if Arc::ptr_eq(source, &text) {
            *source = released.clone();
        }
    };
    for doc in &mut part.inventory.documents {
        swap(&mut doc.source);
    }
    for f in &mut part.findings {
        if let Some(l) = &mut f.location {
            swap(&mut l.source);
        }
        for r in &mut f.related {
            swap(&mut r.location.source);
        }
    }
}

/// The lines of the part's findings, and the first line of each node of its documents'
/// skeletons (an empty skeleton has none: templates are not pointed at after this).
fn printed_lines(part: &FilePart) -> Vec<u32> {
    fn node_lines(node: &Node, out: &mut Vec<u32>) {
        out.push(node.span.start.line);
        match &node.value {
            Value::Map(entries) => entries.iter().for_each(|e| {
                out.push(e.key.span.start.line);
                node_lines(&e.value, out);
            }),
            Value::Seq(items) => items.iter().for_each(|n| node_lines(n, out)),
            _ => {}
        }
    }
    let mut lines: Vec<u32> = part
        .findings
        .iter()
        .filter_map(|f| Some(f.location.as_ref()?.span.start.line))
        .collect();
    for doc in &part.inventory.documents {
        if !matches!(doc.root.value, Value::Null) {
            node_lines(&doc.root, &mut lines);
        }
    }
    lines
}

/// Replaces every document's tree by its skeleton: the rules run afterwards read only that,
/// or parse the document again from its lines where a finding points elsewhere.
fn release_trees(inventory: &mut Inventory) {
    let mut policy = vec![false; inventory.documents.len()];
    for p in inventory.policies() {
        policy[p.doc] = true;
    }
    for (doc, policy) in inventory.documents.iter_mut().zip(policy) {
        if doc.partial.is_none() {
            release_tree(doc, policy);
        }
    }
}

/// Replaces one document's tree by its skeleton.
fn release_tree(doc: &mut Document, policy: bool) {
    let span = doc.root.span;
    let root = std::mem::replace(&mut doc.root, Node::new(Value::Null, span));
    if policy {
        doc.root = policy_skeleton(root);
        doc.partial = Some(policy_skeleton_keeps);
    } else {
        doc.root = skeleton(root);
        doc.partial = Some(skeleton_keeps);
    }
}

/// What the rules run after the per-object checks read of a policy, at the original positions:
/// `metadata.name` (duplicate-identity), the ignore annotation (suppressions),
/// `spec.resourceSelectors` and its items, `spec.priority` and `spec.preemption` (where the
/// semantic rules point) and the root's first entry, where a finding about a missing top-level
/// field points. A selector is kept as its position alone, and the first entry as its key:
/// nothing reads their values afterwards, and at 10,000 policies they were most of the
/// skeletons' 20 MB. [`policy_skeleton_keeps`] says which paths locate exactly as in the
/// whole tree.
fn policy_skeleton(root: Node) -> Node {
    let span = root.span;
    let Value::Map(entries) = root.value else {
        return Node::new(Value::Null, span);
    };
    let kept = entries
        .into_iter()
        .enumerate()
        .filter_map(|(i, e)| match e.key.as_str() {
            Some("metadata") => Some(Entry {
                value: keep_keys(e.value, &|k, v| match k {
                    "name" => Some(v),
                    "annotations" => Some(keep_keys(v, &|k, v| {
                        (k == suppress::ANNOTATION).then_some(v)
                    })),
                    _ => None,
                }),
                key: e.key,
            }),
            Some("spec") => Some(Entry {
                value: keep_keys(e.value, &|k, v| match k {
                    "resourceSelectors" => Some(positions_only(v)),
                    "priority" | "preemption" => Some(v),
                    "placement" => Some(keep_path(v, STATIC_WEIGHTS)),
                    _ => None,
                }),
                key: e.key,
            }),
            _ if i == 0 => Some(Entry {
                value: Node::new(Value::Null, e.value.span),
                key: e.key,
            }),
            _ => None,
        })
        .collect();
    compact(Node::new(Value::Map(kept), span))
}

/// Under `spec.placement`, the path to the static weight list, whose entries
/// `static-weight-targets-no-cluster` points at (one finding per entry that selects no cluster:
/// at 10,000 policies, a thousand documents parsed again, and with them their files read back).
const STATIC_WEIGHTS: &[&str] = &["replicaScheduling", "weightPreference", "staticWeightList"];

/// The mappings along `path` under `node`, and at its end the positions of a sequence's items.
fn keep_path(node: Node, path: &[&str]) -> Node {
    match path.split_first() {
        None => positions_only(node),
        Some((first, rest)) => keep_keys(node, &|k, v| (k == *first).then(|| keep_path(v, rest))),
    }
}

/// A sequence's items as their positions, without their contents; anything else as is.
fn positions_only(node: Node) -> Node {
    match node.value {
        Value::Seq(items) => Node::new(
            Value::Seq(
                items
                    .into_iter()
                    .map(|item| Node::new(Value::Null, item.span))
                    .collect(),
            ),
            node.span,
        ),
        _ => node,
    }
}

/// Whether the [`policy_skeleton`] keeps what `path` locates: the same node, or the same
/// closest ancestor when the field is missing.
fn policy_skeleton_keeps(path: &FieldPath) -> bool {
    match (key(path, 0), key(path, 1)) {
        (Some("metadata"), Some("name")) => true,
        (Some("metadata"), Some("annotations")) => key(path, 2) == Some(suppress::ANNOTATION),
        // A selector's position, not what it holds.
        (Some("spec"), Some("resourceSelectors")) => path.0.len() <= 3,
        (Some("spec"), Some("priority" | "preemption")) => true,
        // The mappings down to the static weight list, and its entries' positions.
        (Some("spec"), Some("placement")) => {
            let rest = &path.0[2..];
            rest.len() <= STATIC_WEIGHTS.len() + 1
                && rest
                    .iter()
                    .enumerate()
                    .all(|(i, seg)| match (seg, STATIC_WEIGHTS.get(i)) {
                        (Seg::Key(k), Some(want)) => k == want,
                        (Seg::Index(_), None) => true,
                        _ => false,
                    })
        }
        _ => false,
    }
}

/// Of any other document (templates, most of a repository), only the ignore annotation is
/// read by every finding; it is kept where present, and nothing else: a hundred thousand
/// documents make every node count. A duplicate's name is found by parsing it again.
fn skeleton(root: Node) -> Node {
    let span = root.span;
    if root.at(suppress::ignore_path()).is_none() {
        return Node::new(Value::Null, span);
    }
    let Value::Map(entries) = root.value else {
        return Node::new(Value::Null, span);
    };
    let kept = entries
        .into_iter()
        .filter(|e| e.key.as_str() == Some("metadata"))
        .map(|e| Entry {
            value: keep_keys(e.value, &|k, v| {
                (k == "annotations")
                    .then(|| keep_keys(v, &|k, v| (k == suppress::ANNOTATION).then_some(v)))
            }),
            key: e.key,
        })
        .collect();
    compact(Node::new(Value::Map(kept), span))
}

/// Whether the [`skeleton`] keeps what `path` locates.
fn skeleton_keeps(path: &FieldPath) -> bool {
    (key(path, 0), key(path, 1), key(path, 2))
        == (
            Some("metadata"),
            Some("annotations"),
            Some(suppress::ANNOTATION),
        )
}

fn key(path: &FieldPath, i: usize) -> Option<&str> {
    match path.0.get(i) {
        Some(Seg::Key(k)) => Some(k.as_str()),
        _ => None,
    }
}

/// The entries of a mapping that `keep` keeps (possibly reduced); a non-mapping is kept as is.
fn keep_keys(node: Node, keep: &dyn Fn(&str, Node) -> Option<Node>) -> Node {
    let span = node.span;
    match node.value {
        Value::Map(entries) => Node::new(
            Value::Map(
                entries
                    .into_iter()
                    .filter_map(|e| {
                        let key = e.key;
                        let value = keep(key.as_str()?, e.value)?;
                        Some(Entry { key, value })
                    })
                    .collect(),
            ),
            span,
        ),
        other => Node::new(other, span),
    }
}

/// A skeleton in allocations of its own size: a copy allocates each vector and string at its
/// length, where the parser's have room to grow and a filtered vector keeps the original's
/// (a root mapping's room for a whole object), which would outlive the tree.
fn compact(skeleton: Node) -> Node {
    skeleton.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    /// Everything a renderer shows of a finding.
    fn shown(findings: &[Finding]) -> Vec<String> {
        findings
            .iter()
            .map(|f| {
                let at = |l: &crate::lint::Location| {
                    format!(
                        "{}:{}:{}",
                        l.source.name, l.span.start.line, l.span.start.col
                    )
                };
                let related: Vec<String> = f
                    .related
                    .iter()
                    .map(|r| format!("{} {}", at(&r.location), r.message))
                    .collect();
                format!(
                    "{} {:?} {} {:?} {:?} {:?} {related:?}",
                    f.rule,
                    f.severity,
                    f.location.as_ref().map(at).unwrap_or_default(),
                    f.field,
                    f.object.as_ref().map(ToString::to_string),
                    f.message
                )
            })
            .collect()
    }

    #[test]
    fn streaming_finds_what_linting_the_whole_input_finds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dirs = ["testdata/lint", "testdata/examples", "testdata/engine"];
        let paths = files::expand(&dirs.map(|d| root.join(d).display().to_string()), &|_| {
            false
        })
        .unwrap();
        let opts = LintOptions {
            inline_ignores: true,
            ..LintOptions::default()
        };
        let mut gated = opts.clone();
        gated.gates = crate::model::feature_gates::GateSet::parse(
            Default::default(),
            "PropagationPolicyPreemption=true",
        )
        .unwrap();
        for opts in [opts, gated] {
            let streamed = lint_paths(&paths, "default", &opts).unwrap();
            let mut loaded = files::read_all(&paths).unwrap();
            let documents = loaded
                .iter_mut()
                .flat_map(|l| std::mem::take(&mut l.documents))
                .collect();
            let mut inventory = Inventory::from_documents(documents, "default");
            let whole = super::super::lint(&loaded, &mut inventory, &opts);
            assert!(
                whole.len() > 20,
                "the test data has findings: {}",
                whole.len()
            );
            assert!(whole.iter().any(|f| f.rule == "overlap"));
            assert_eq!(shown(&streamed.findings), shown(&whole));
            assert!(streamed
                .inventory
                .documents
                .iter()
                .all(|d| d.partial.is_some()));
        }
    }

    #[test]
    fn paths_the_skeleton_keeps_locate_as_in_the_whole_tree() {
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\n  labels: {a: b}\nspec:\n  placement:\n    clusterAffinity: {clusterNames: [m1]}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      weightPreference:\n        staticWeightList:\n          - targetCluster: {clusterNames: [m1]}\n            weight: 1\n          - targetCluster: {clusterNames: [m2]}\n            weight: 2\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n  preemption: Always\n---\nkind: PropagationPolicy\nmetadata: {name: q}\n";
        for doc in load(Source::new("t.yaml", text)).documents {
            let whole = doc.root.clone();
            let skel = policy_skeleton(doc.root);
            for path in [
                "metadata.name",
                "metadata.annotations.karmada-policy.io/ignore",
                "spec.resourceSelectors",
                "spec.resourceSelectors[0]",
                "spec.resourceSelectors[3]",
                "spec.priority",
                "spec.preemption",
                "spec.placement",
                "spec.placement.replicaScheduling.weightPreference",
                "spec.placement.replicaScheduling.weightPreference.staticWeightList",
                "spec.placement.replicaScheduling.weightPreference.staticWeightList[1]",
                "spec.placement.replicaScheduling.weightPreference.staticWeightList[5]",
            ] {
                let p = if path.starts_with("metadata.annotations") {
                    suppress::ignore_path().clone()
                } else {
                    FieldPath::parse(path)
                };
                assert!(policy_skeleton_keeps(&p), "{path}");
                assert_eq!(skel.locate(&p), whole.locate(&p), "{path}");
                assert_eq!(skel.locate_value(&p), whole.locate_value(&p), "{path}");
                if !path.starts_with("spec.resourceSelectors")
                    && !path.starts_with("spec.placement")
                {
                    assert_eq!(skel.at(&p), whole.at(&p), "{path}");
                }
            }
            // Missing top-level fields point at the first entry, as in the whole tree.
            let missing = FieldPath::parse("status.x");
            assert_eq!(skel.locate(&missing), whole.locate(&missing));
        }
        for gone in [
            "spec.placement.clusterAffinity",
            "spec.placement.replicaScheduling.replicaSchedulingType",
            "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight",
            "spec.placement.replicaScheduling[0]",
            "metadata.labels",
            "spec.resourceSelectors[0].name",
            "spec.resourceSelectors[0].namespace",
            "apiVersion",
        ] {
            assert!(!policy_skeleton_keeps(&FieldPath::parse(gone)), "{gone}");
        }
    }

    #[test]
    fn the_skeleton_of_other_documents_keeps_only_the_ignore_annotation_in_place() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  labels: {app: web}\n  annotations:\n    team: a\n    karmada-policy.io/ignore: \"overlap: known\"\nspec:\n  replicas: 2\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n";
        let mut documents = load(Source::new("t.yaml", text)).documents;
        let root = documents.remove(0).root;
        let before = root.clone();
        let skel = skeleton(root);
        let ignore = suppress::ignore_path();
        assert!(skeleton_keeps(ignore));
        assert_eq!(skel.at(ignore), before.at(ignore));
        assert_eq!(skel.locate_value(ignore), before.locate_value(ignore));
        assert_eq!(skel.span, before.span);
        for gone in [
            "metadata.name",
            "metadata.labels",
            "metadata.annotations.team",
            "spec",
            "kind",
        ] {
            let path = FieldPath::parse(gone);
            assert!(skel.at(&path).is_none(), "{gone}");
            assert!(!skeleton_keeps(&path), "{gone}");
        }
        // Without the annotation nothing is kept; the span still places the document.
        let plain = documents.remove(0).root;
        let span = plain.span;
        assert_eq!(skeleton(plain), Node::new(Value::Null, span));
    }
}
