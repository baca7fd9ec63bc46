//! Lint in the git modes: a revision's tree (`--rev`), the index (`--staged`), and the head and
//! merge base of a pull request (`--base`), with the suspension-age rule (blame) on top.
//!
//! `--base` reports the findings new at head (baseline matching, [`baseline::new_at_head`]), the
//! updates Karmada would reject and the templates whose owner changes. Over a GitOps repository
//! (kustomizations, charts) each side is rendered first ([`super::gitops`]).

use std::path::{Path, PathBuf};

use super::gitops;
use super::phase::History;
use super::rules::admission;
use super::stream::{Fold, Growth, Streamed};
use super::streamed_base::{self, finish, BaseRequest};
use super::{baseline, registry, Finding, LintOptions, Linted};
use crate::context::Config;
use crate::engine::ownership;
use crate::model::Inventory;
use crate::source::files::{self, ReadError};
use crate::source::git::{GitError, GitRepo, Listed, Side};
use crate::util::profile::Clock;

/// Why a git mode stopped.
#[derive(Debug, thiserror::Error)]
pub enum GitLintError {
    #[error(transparent)]
    Git(#[from] GitError),
    /// A PATH cannot be listed.
    #[error(transparent)]
    Input(#[from] ReadError),
    /// `--env` names no environment at head.
    #[error(transparent)]
    Environment(#[from] crate::source::kustomize::environments::UnknownEnvironment),
    /// Writing a revision's tree out for rendering failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// What to lint, from the command line.
pub struct GitRequest<'a> {
    /// PATHs narrowing the read, relative to `cwd`.
    pub paths: &'a [String],
    pub rev: Option<&'a str>,
    pub staged: bool,
    pub base: Option<&'a str>,
    /// With `--base`: report every finding at head, not only the new ones.
    pub all_findings: bool,
    /// For objects that set none.
    pub namespace: &'a str,
    pub config: &'a Config,
    /// The run's context: a GitOps repository's environments each take it with their own
    /// Karmada installation.
    pub context: &'a crate::context::Context,
    pub opts: &'a LintOptions,
}

/// One side of a run: what was read and what lint says about it.
struct GitSide {
    files: usize,
    /// The streamed run's documents (partial trees) and working state.
    streamed: Streamed,
    findings: Vec<Finding>,
    notes: Vec<String>,
}

impl GitSide {
    /// The side's documents typed again from their whole trees and marked by the admission
    /// chain: what the rules comparing two whole sides read (`--base` when a policy reference
    /// repeats, so the streamed comparison does not apply).
    fn whole(&self, namespace: &str, opts: &LintOptions) -> Inventory {
        let mut inventory =
            streamed_base::retyped_whole(&self.streamed.inventory.documents, namespace);
        super::admit(&mut inventory, opts);
        inventory
    }
}

/// What every side of a run shares.
struct Run<'a> {
    repo: &'a GitRepo,
    specs: &'a [String],
    req: &'a GitRequest<'a>,
    /// Unix seconds, for the age of suspensions.
    now: i64,
}

/// The repository of a git mode and the sides it reads: the head (a revision, the index or the
/// working tree) and, with `--base`, the merge base.
pub struct Revisions {
    pub repo: GitRepo,
    /// The PATHs as pathspecs of the repository.
    pub specs: Vec<String>,
    pub head: Side,
    pub base: Option<git2::Oid>,
}

impl Revisions {
    /// The sides `req` asks for in the repository around `cwd`. The base is resolved before
    /// any (long) read of the head, so a bad revision fails fast; `note` receives what the
    /// user should know (a shallow clone).
    pub fn resolve(
        cwd: &Path,
        req: &GitRequest<'_>,
        note: &(dyn Fn(&str) + Sync),
    ) -> Result<Revisions, GitLintError> {
        let repo = GitRepo::discover(cwd)?;
        let specs = repo.pathspecs(cwd, req.paths)?;
        let head = if req.staged {
            Side::Index
        } else if let Some(rev) = req.rev {
            Side::Commit(repo.resolve(rev)?)
        } else {
            Side::WorkTree
        };
        let base = match req.base {
            Some(rev) => {
                let head_commit = match head {
                    Side::Commit(oid) => Some(oid),
                    _ => repo.head_commit(),
                };
                let (oid, notes) = repo.base_commit(rev, head_commit)?;
                notes.iter().for_each(|n| note(n));
                Some(oid)
            }
            None => None,
        };
        Ok(Revisions {
            repo,
            specs,
            head,
            base,
        })
    }
}

/// Runs the git mode `req` asks for in the repository around `cwd`. `note` receives what the
/// user should know (shallow clones, skipped submodules) as soon as it is known.
pub fn lint_git(
    cwd: &Path,
    req: &GitRequest<'_>,
    note: &(dyn Fn(&str) + Sync),
) -> Result<Linted, GitLintError> {
    let Revisions {
        repo,
        specs,
        head: head_side,
        base,
    } = Revisions::resolve(cwd, req, note)?;
    if !req.config.render_off && gitops_worktree(req) {
        let sides = GitopsSides {
            repo: &repo,
            cwd,
            specs: &specs,
            req,
        };
        return sides.lint(&head_side, base, note);
    }
    let plain = Plain {
        repo: &repo,
        specs: &specs,
        head: &head_side,
        base,
        cwd,
    };
    let PlainLinted {
        mut linted,
        base_installations,
    } = plain.lint(req, None, note)?;
    // Both sides are judged under the Karmada the head installs, as `lint PATH` judges the
    // working tree: read as the files are linted, and judged again when its settings differ.
    // A change to the installation itself judges the base in the base's.
    let ignore = |p: &Path| req.config.ignores(p);
    let search = crate::model::elsewhere::Search::new(&ignore, req.config.chart_rendering());
    let elsewhere = |side: &Side, search: crate::model::elsewhere::Search<'_>| {
        crate::model::elsewhere::outside_at(&repo, side, &specs, search, &str::to_string)
    };
    let held = !linted.installations.is_empty();
    let (context, notes) = req
        .context
        .for_plain_or(std::mem::take(&mut linted.installations), || {
            elsewhere(&head_side, search)
        });
    notes.iter().for_each(|n| note(n));
    let head_opts = req.opts.in_context(&context);
    let run_opts = head_opts.as_ref().unwrap_or(req.opts);
    let base_context = match (base, base_installations) {
        (None, _) => None,
        (Some(oid), Some(found)) => Some(
            req.context
                .for_plain_or(found, || elsewhere(&Side::Commit(oid), search.of_base())),
        ),
        // Streamed: the change touched no file of the inputs that installs Karmada.
        (Some(_), None) if held => None,
        (Some(oid), None) => Some(req.context.for_plain_or(Vec::new(), || {
            elsewhere(&Side::Commit(oid), search.of_base())
        })),
    };
    let base_opts = base_context.and_then(|(c, _)| run_opts.in_context(&c));
    if let Some(base_opts) = &base_opts {
        note(&installation_changed(base_opts, run_opts));
    }
    if head_opts.is_none() && base_opts.is_none() {
        return Ok(linted);
    }
    let rerun = GitRequest {
        opts: run_opts,
        ..*req
    };
    Ok(plain.lint(&rerun, base_opts.as_ref(), &|_| {})?.linted)
}

/// Whether a git mode read something: a revision or the index with nothing under the PATHs is
/// nothing to lint, as a working tree's empty directory is (a mistyped path must not pass a CI
/// step); `allow_empty` accepts it. With `--base` the head may have deleted them: what the
/// change removes is the answer then.
pub fn something_to_lint(
    req: &GitRequest<'_>,
    linted: &Linted,
    allow_empty: bool,
) -> Result<(), super::files::FilesError> {
    if linted.files > 0 || req.base.is_some() || allow_empty {
        return Ok(());
    }
    let paths = match req.paths {
        [] => "the repository".to_string(),
        paths => paths.join(", "),
    };
    Err(super::files::FilesError::NothingToLint(match req.rev {
        Some(rev) => format!("{paths} at {rev}"),
        None => format!("{paths} in the index"),
    }))
}

/// The note for a change to the installation of Karmada the inputs run in (what `plan`
/// says too): the base is judged in its settings, the head in its own.
fn installation_changed(base: &LintOptions, head: &LintOptions) -> String {
    changed_note("the inputs run in", base.version(), head.version())
}

/// The notes for the environments of a GitOps repository whose Karmada changes with the
/// change: each side's environment is linted in its own, as plain inputs are.
fn environments_changed(base: &gitops::RepoLinted, head: &gitops::RepoLinted) -> Vec<String> {
    head.environments
        .iter()
        .filter_map(|h| {
            let b = base.environments.iter().find(|b| b.name == h.name)?;
            (!b.gates.same_effect(&h.gates)).then(|| {
                let subject = format!("environment {} runs in", h.name);
                changed_note(&subject, b.version, h.version)
            })
        })
        .collect()
}

fn changed_note(
    subject: &str,
    base: crate::model::KarmadaVersion,
    head: crate::model::KarmadaVersion,
) -> String {
    format!(
        "the Karmada {subject} changes with the change (release {base} at the base, {head} at \
         head; feature gates or controller-manager flags): each revision is judged in its own, \
         so a finding the head's settings bring is new",
    )
}

/// A git mode's run over plain manifests, and with `--base`, the installations of Karmada the
/// base's inputs hold when the base was read whole (`None` when streamed: the change left every
/// file that installs Karmada as it was).
struct PlainLinted {
    linted: Linted,
    base_installations: Option<Vec<crate::model::installation::Installation>>,
}

/// A git mode over plain manifests (no kustomization or chart to render).
struct Plain<'a> {
    repo: &'a GitRepo,
    specs: &'a [String],
    head: &'a Side,
    base: Option<git2::Oid>,
    cwd: &'a Path,
}

impl Plain<'_> {
    /// One run of the mode under `req`'s options; with `base_opts`, the base side under those
    /// (the settings its own installation gives).
    fn lint(
        &self,
        req: &GitRequest<'_>,
        base_opts: Option<&LintOptions>,
        note: &(dyn Fn(&str) + Sync),
    ) -> Result<PlainLinted, GitLintError> {
        let Plain {
            repo,
            specs,
            head: head_side,
            base,
            cwd,
        } = *self;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        if let (Some(oid), None) = (base, base_opts) {
            let streamed = BaseRequest {
                repo,
                head: head_side,
                base: oid,
                specs,
                namespace: req.namespace,
                config: req.config,
                opts: req.opts,
                all_findings: req.all_findings,
                now,
            };
            if let Some(compared) = streamed_base::lint_base(&streamed, note)? {
                return Ok(PlainLinted {
                    linted: compared,
                    base_installations: None,
                });
            }
        }
        let base_req = GitRequest {
            opts: base_opts.unwrap_or(req.opts),
            ..*req
        };
        let run = Run {
            repo,
            specs,
            req,
            now,
        };
        // The base side is read and linted on a second thread, with its own handle on the
        // repository (a git2 Repository is not Sync): on two cores `--base` costs little more
        // than one lint.
        let (head, base) = std::thread::scope(|scope| {
            let base_side = base.map(|oid| {
                let req = &base_req;
                scope.spawn(move || {
                    let repo = GitRepo::discover(cwd)?;
                    let run = Run {
                        repo: &repo,
                        specs,
                        req,
                        now,
                    };
                    lint_side(&run, &Side::Commit(oid), None)
                })
            });
            let head = lint_side(&run, head_side, Some(note));
            let base = base_side.map(|h| h.join().expect("the base side does not panic"));
            (head, base)
        });
        let mut head = head?;
        match base {
            None => Ok(PlainLinted {
                linted: Linted {
                    files: head.files,
                    documents: head.streamed.inventory.documents.len(),
                    policies: head.streamed.policies,
                    findings: head.findings,
                    notes: head.notes,
                    installations: std::mem::take(&mut head.streamed.installations),
                    _retained: Some(Box::new(head.streamed)),
                    ..Linted::default()
                },
                base_installations: None,
            }),
            Some(base) => {
                let mut base = base?;
                let installations = std::mem::take(&mut base.streamed.installations);
                Ok(PlainLinted {
                    linted: compare(head, base, req),
                    base_installations: Some(installations),
                })
            }
        }
    }
}

/// `--base`: the findings new at head plus the rejected updates, and the ownership changes.
fn compare(mut head: GitSide, base: GitSide, req: &GitRequest<'_>) -> Linted {
    let opts = req.opts;
    let (mut head_inventory, mut base_inventory) = (
        head.whole(req.namespace, opts),
        base.whole(req.namespace, opts),
    );
    let update_rules = History {
        inventory: &head_inventory,
        blame: None,
        base: Some(&base_inventory),
    };
    let updates = finish(registry::run_history(&update_rules), &head_inventory, opts);
    let mut updated = admission::update_admission(&base_inventory, &head_inventory, opts);
    admission::mark_admitted(&mut head_inventory, &updated.admitted);
    admission::mark_admitted(&mut base_inventory, &updated.stored_before_upgrade);
    updated.findings = finish(std::mem::take(&mut updated.findings), &head_inventory, opts);
    head.findings = updated.replace(head.findings);
    head.findings = admission::short_circuited_by_updates(head.findings, &updates);
    let ratcheted = finish(updated.ratcheted, &head_inventory, opts);
    let mut updates = updates;
    updates.extend(finish(updated.changed, &head_inventory, opts));
    let new = baseline::new_at_head(&base.findings, &head.findings);
    let mut new_findings: Vec<Finding> = head
        .findings
        .iter()
        .zip(&new)
        .filter(|(_, n)| **n)
        .map(|(f, _)| f.clone())
        .chain(updates.iter().cloned())
        .collect();
    new_findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let ownership = ownership::ownership_changes(
        &base_inventory,
        &head_inventory,
        ownership::engine_options(&opts.gates),
    );
    // Existing problems the change leaves in place: shown, never "new".
    let mut reported = if req.all_findings {
        let mut all = head.findings;
        all.extend(updates);
        all
    } else {
        new_findings.clone()
    };
    reported.extend(ratcheted);
    reported.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Linted {
        files: head.files,
        documents: head.streamed.inventory.documents.len(),
        policies: head.streamed.policies,
        findings: reported,
        new_only: Some(new_findings),
        ownership: Some(ownership),
        notes: head.notes,
        installations: std::mem::take(&mut head.streamed.installations),
        ..Linted::default()
    }
}

/// Reads one side of the repository and lints it through the pipeline of `lint PATH` (each
/// file checked as it is read, then folded: [`super::stream`]), with the suspension-age rule
/// (blame) on top. `note` (the head's side only) hears what was skipped.
fn lint_side(
    run: &Run<'_>,
    side: &Side,
    note: Option<&(dyn Fn(&str) + Sync)>,
) -> Result<GitSide, GitError> {
    let Run {
        repo,
        specs,
        req,
        now,
    } = *run;
    let say = |n: &str| {
        if let Some(note) = note {
            note(n)
        }
    };
    let clock = Clock::start();
    let ignore = |p: &Path| req.config.ignores(p);
    let listing = repo.list(side, specs, &ignore)?;
    listing.notes.iter().for_each(|n| say(n));
    let options = super::analysis::options(req.opts);
    let reader = repo.blob_reader();
    let mut fold = Fold::new(Growth::bytes(repo.size(&listing.files)));
    let mut files = 0;
    crate::util::parallel::each_in_parallel(
        &listing.files,
        &|f: &Listed| streamed_base::read_part(&reader, f, req.namespace, req.opts, &options),
        &mut |read| match read {
            Ok((part, _, _)) => {
                files += 1;
                fold.add(part);
            }
            Err(skipped) => say(&skipped),
        },
    )?;
    clock.lap("read, parse, per-object rules");
    let mut streamed = fold.finish(req.opts, &clock, &mut |_, _| {});
    let blame =
        |name: &str, text: &str, lines: &[u32]| repo.introduced_lines(side, name, text, lines);
    let ages = streamed_base::Ages {
        namespace: req.namespace,
        config: req.config,
        opts: req.opts,
        now,
    };
    let mut findings = std::mem::take(&mut streamed.findings);
    findings.extend(streamed_base::aged(
        &streamed.inventory,
        &streamed.suspended,
        &ages,
        &blame,
    ));
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    clock.lap("suspension-age (blame)");
    let notes = std::mem::take(&mut streamed.notes);
    Ok(GitSide {
        files,
        streamed,
        findings,
        notes,
    })
}

/// The PATHs, or the current directory when none.
fn paths_or_here(req: &GitRequest<'_>) -> Vec<String> {
    if req.paths.is_empty() {
        vec![".".to_string()]
    } else {
        req.paths.to_vec()
    }
}

/// Whether the PATHs hold kustomizations or charts: then the git modes render both sides.
pub fn gitops_worktree(req: &GitRequest<'_>) -> bool {
    files::expand(&paths_or_here(req), &|p: &Path| req.config.ignores(p))
        .is_ok_and(|files| gitops::applies(&files))
}

/// The git modes over a GitOps repository.
pub struct GitopsSides<'a> {
    pub repo: &'a GitRepo,
    pub cwd: &'a Path,
    pub specs: &'a [String],
    pub req: &'a GitRequest<'a>,
}

impl GitopsSides<'_> {
    /// Each side rendered; ownership changes compared environment by environment.
    fn lint(
        &self,
        head_side: &Side,
        base: Option<git2::Oid>,
        note: &(dyn Fn(&str) + Sync),
    ) -> Result<Linted, GitLintError> {
        let req = self.req;
        let Some(oid) = base else {
            let head = self.side(head_side, true, None)?;
            head.notes.iter().for_each(|n| note(n));
            return Ok(head.into_linted());
        };
        // The base first: the head's updates are judged against what it stores.
        let base = self.side(&Side::Commit(oid), false, None)?;
        let mut head = self.side(head_side, true, Some(&base))?;
        head.notes.iter().for_each(|n| note(n));
        environments_changed(&base, &head)
            .iter()
            .for_each(|n| note(n));
        // Existing problems the change leaves in place (validation ratcheting): shown, never
        // "new", as `compare` has them for plain files.
        let (ratcheted, findings): (Vec<Finding>, Vec<Finding>) =
            std::mem::take(&mut head.findings)
                .into_iter()
                .partition(|f| f.ratcheted);
        head.findings = findings;
        let new = baseline::new_at_head(&base.findings, &head.findings);
        let new_findings: Vec<Finding> = head
            .findings
            .iter()
            .zip(&new)
            .filter(|(_, n)| **n)
            .map(|(f, _)| f.clone())
            .collect();
        // A root the head could not render whose files the change touched is not compared: it
        // stays in view (and among what the pull request is told), old as its failure is.
        let unlike = head.unrendered_unlike(&base);
        let touched = |f: &Finding| {
            super::rules::render_failed::leaves_out(f.rule)
                && f.location
                    .as_ref()
                    .is_some_and(|l| unlike.contains(&l.display()))
        };
        let kept: Vec<Finding> = head
            .findings
            .iter()
            .zip(&new)
            .filter(|(f, n)| !**n && touched(f))
            .map(|(f, _)| f.clone())
            .collect();
        let mut new_findings = new_findings;
        new_findings.extend(kept);
        new_findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let mut reported = if req.all_findings {
            head.findings.clone()
        } else {
            new_findings.clone()
        };
        reported.extend(ratcheted);
        reported.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let ownership = gitops::ownership_changes(&base, &head);
        Ok(Linted {
            findings: reported,
            new_only: Some(new_findings),
            ownership: Some(ownership),
            ..head.into_linted()
        })
    }

    /// One side, rendered: the work tree in place, a revision or the index written to a
    /// temporary directory first (kustomize reads files). A base without the environments
    /// the head selects (`--env`) is an empty repository. `base`, the base side already
    /// linted, makes the head's objects that it stores updates (validation ratcheting).
    pub fn side(
        &self,
        side: &Side,
        is_head: bool,
        base: Option<&gitops::RepoLinted>,
    ) -> Result<gitops::RepoLinted, GitLintError> {
        let req = self.req;
        // A revision's side skips submodules (its tree holds only their commit ids): the
        // working tree's skips them too, or their roots would read as added.
        let submodules = match side {
            Side::WorkTree => self.repo.submodule_dirs(),
            _ => Vec::new(),
        };
        let cwd = self
            .cwd
            .canonicalize()
            .unwrap_or_else(|_| self.cwd.to_path_buf());
        let in_submodule = |p: &Path| {
            let abs = crate::source::kustomize::normalize(&cwd.join(p));
            submodules.iter().any(|s| abs.starts_with(s))
        };
        let ignore = |p: &Path| req.config.ignores(p) || in_submodule(p);
        let paths = paths_or_here(req);
        // The rest of this side's revision, its files named as the side's are (from the
        // current directory, which is the same place in a written tree).
        let name = crate::model::elsewhere::named_from(self.cwd, self.repo.workdir());
        let specs = self.repo.pathspecs(self.cwd, &paths).unwrap_or_default();
        let search = crate::model::elsewhere::Search::new(&ignore, req.config.chart_rendering());
        let search = if is_head { search } else { search.of_base() };
        let elsewhere =
            || crate::model::elsewhere::outside_at(self.repo, side, &specs, search, &name);
        let lint_here = || -> Result<gitops::RepoLinted, GitLintError> {
            let files: Vec<PathBuf> = files::expand(&paths, &ignore)?;
            let linted = gitops::lint_repository(&gitops::RepositoryRequest {
                inputs: &files,
                root: crate::source::kustomize::environments::root_of(&paths),
                namespace: req.namespace,
                opts: req.opts,
                context: req.context,
                base,
                elsewhere: &elsewhere,
            });
            match linted {
                // An environment new at head is compared with an empty one.
                Err(_) if !is_head => Ok(gitops::RepoLinted::default()),
                other => Ok(other?),
            }
        };
        if *side == Side::WorkTree {
            return lint_here().map(|mut linted| {
                let workdir = self.repo.workdir();
                linted.notes.extend(submodules.iter().map(|s| {
                    let shown = s.strip_prefix(workdir).unwrap_or(s);
                    format!("{}: submodule, skipped", shown.display())
                }));
                linted
            });
        }
        let tree = tempfile::Builder::new()
            .prefix("karmada-policy-rev-")
            .tempdir()?;
        let left_out = self.repo.write_tree(side, &ignore, &specs, tree.path())?;
        // The written tree is the repository: where the working tree's `.git` bounds it (what
        // may be read, where Flux's paths start when the tool runs below the root:
        // `source::kustomize::above_current_directory`), this marks the same place.
        std::fs::create_dir_all(tree.path().join(".git"))?;
        // The same PATHs, relative to the same place in the written tree: file names come out
        // as they do for the work tree. kustomize runs as a child process, so the directory
        // changes for the whole process while this side is linted.
        let inside = self
            .cwd
            .strip_prefix(self.repo.workdir())
            .unwrap_or(Path::new(""));
        let here = tree.path().join(inside);
        std::fs::create_dir_all(&here)?;
        std::env::set_current_dir(&here)?;
        let linted = lint_here();
        std::env::set_current_dir(self.cwd)?;
        linted.map(|mut linted| {
            linted.notes.extend(left_out);
            linted
        })
    }
}
