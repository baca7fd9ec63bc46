//! `plan`'s inputs: the two states it compares, read with the readers the other subcommands
//! use, and the engine's plan of each environment (`engine::plan`).
//!
//! - `plan --base REV [PATH...]`: the merge base of REV against the working tree (or `--rev`).
//!   Over a GitOps repository each side is rendered as `lint --base` renders it
//!   ([`crate::lint::git::GitopsSides`]) and environments are compared by name; plain
//!   manifests are listed on both sides and a file whose blob is the same on both is read once
//!   and belongs to both states.
//! - `plan -f FILE...`: the control plane (policies, overrides, bindings, Clusters and the
//!   templates the change reaches) against the same with the files applied and `--delete`
//!   targets removed, as `kubectl diff -f` compares.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::InspectError;
use crate::context::Context;
use crate::engine::admission::documents::admit_documents;
use crate::engine::plan::{mark_shared, plan, EnvPlan, Settings, Sides};
use crate::engine::state::UnknownClaimers;
use crate::lint::git::{gitops_worktree, GitRequest, GitopsSides, Revisions};
use crate::lint::gitops::LintedEnvironment;
use crate::lint::LintOptions;
use crate::model::inputs::read_inputs;
use crate::model::{group_of, kinds, Inventory, Object, POLICY_GROUP};
use crate::source::git::{GitRepo, Listed, ReadFile, Side};
use crate::source::live::{self, karmada, Discovered, ResourceType};
use crate::source::session::{all_ok, Session, SessionError};
use crate::source::Document;

/// What a plan compared, and its answer per environment.
pub struct Compared {
    /// The state compared from (`main`, `the control plane`).
    pub from: String,
    /// The state compared to (`the working tree`, `the files applied`).
    pub to: String,
    pub environments: Vec<(String, EnvPlan)>,
    /// Per environment, where its roots that did not render on either side are reported:
    /// what they hold was not compared.
    pub unrendered: Vec<(String, Vec<String>)>,
    /// The environments the repository has on one side of the change only (a root added or
    /// removed; one paired across the change by what it holds, a loose directory or an
    /// undeclared root moved, is compared as one environment).
    pub one_sided: Vec<(String, OneSided)>,
}

/// The side of the change an environment is on when it is on one only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OneSided {
    /// Only the base has it: the change removes it from the repository.
    Base,
    /// Only the base has it, and what it holds stays: an Argo CD destination no Application
    /// deploys to any more, none of them deleting what it applied there.
    BaseLeftInPlace,
    /// Only the head has it: the change adds it.
    Head,
}

impl Compared {
    /// Whether any environment changes, or may: one with a root that did not render is not
    /// said to stay as it is (kubectl diff's 0 promises no difference).
    pub fn has_changes(&self) -> bool {
        self.environments.iter().any(|(_, p)| p.has_changes()) || !self.unrendered.is_empty()
    }

    /// Where `env`'s roots that did not render are reported.
    pub fn unrendered_in(&self, env: &str) -> &[String] {
        self.unrendered
            .iter()
            .find(|(name, _)| name == env)
            .map_or(&[], |(_, roots)| roots.as_slice())
    }

    /// The side `env` is on, when it is on one only.
    pub fn one_sided(&self, env: &str) -> Option<OneSided> {
        self.one_sided
            .iter()
            .find(|(name, _)| name == env)
            .map(|(_, side)| *side)
    }

    /// Whether any environment has a hazard.
    pub fn has_hazards(&self) -> bool {
        self.environments.iter().any(|(_, p)| !p.hazards.is_empty())
    }
}

/// The environment name of plain manifests (one control plane).
pub const MANIFESTS: &str = "manifests";
/// The environment name of the live control plane.
pub const LIVE: &str = "live";

/// `plan --base REV [PATH...]`.
pub struct GitPlan<'a> {
    pub paths: &'a [String],
    /// `--rev`: the head is this revision rather than the working tree.
    pub rev: Option<&'a str>,
    pub base: &'a str,
    /// `--env`: only this environment of a GitOps repository.
    pub env: Option<&'a str>,
    pub context: &'a Context,
}

/// The plan of a pull request: the merge base against the head, per environment.
pub fn plan_git(
    cwd: &Path,
    req: &GitPlan<'_>,
    note: &(dyn Fn(&str) + Sync),
) -> Result<Compared, InspectError> {
    // `--env` is read where the repository is rendered, from the context's configuration.
    let mut context = req.context.clone();
    context.config.render_options.environment = req.env.map(str::to_string);
    let context = &context;
    let config = &context.config;
    let opts = LintOptions::of(context, true);
    let git = GitRequest {
        paths: req.paths,
        rev: req.rev,
        staged: false,
        base: Some(req.base),
        all_findings: false,
        namespace: context.files_namespace(),
        config,
        context,
        opts: &opts,
    };
    let revisions = Revisions::resolve(cwd, &git, note)?;
    let base = revisions.base.expect("--base is given");
    let (mut unrendered, mut one_sided) = (Vec::new(), Vec::new());
    let environments = if !config.render_off && gitops_worktree(&git) {
        let sides = GitopsSides {
            repo: &revisions.repo,
            cwd,
            specs: &revisions.specs,
            req: &git,
        };
        let planned = environments(&sides, &revisions.head, base, context, note)?;
        unrendered = planned.unrendered;
        one_sided = planned.one_sided;
        planned.plans
    } else if req.env.is_some() {
        return Err(InspectError::NotARepository);
    } else {
        let plain = PlainDocuments::read(&revisions, base, &git, note)?;
        // The head's Karmada installation, as `lint` of its files takes it (or the rest of
        // the revision's, when the files hold none).
        let ignore = |p: &std::path::Path| config.ignores(p);
        let search = crate::model::elsewhere::Search::new(&ignore, config.chart_rendering());
        let elsewhere = |side: &Side, search: crate::model::elsewhere::Search<'_>| {
            crate::model::elsewhere::outside_at(
                &revisions.repo,
                side,
                &revisions.specs,
                search,
                &str::to_string,
            )
        };
        let (head_context, notes) = context.for_plain_or(plain.installations(&plain.head), || {
            elsewhere(&revisions.head, search)
        });
        notes.iter().for_each(|n| note(n));
        let (base_context, _) = context.for_plain_or(plain.installations(&plain.base), || {
            elsewhere(&Side::Commit(base), search.of_base())
        });
        if !base_context.gates.same_effect(&head_context.gates) {
            note(&settings_changed(MANIFESTS));
        }
        // Admitted under the release that judges them, the installation's when the
        // repository holds one (as `lint` admits them), not the run's default.
        let plain = plain.admitted(git.namespace, &LintOptions::of(&head_context, true));
        vec![(MANIFESTS.to_string(), plain.plan(&head_context))]
    };
    Ok(Compared {
        from: req.base.to_string(),
        to: match req.rev {
            Some(rev) => rev.to_string(),
            None => "the working tree".to_string(),
        },
        environments,
        unrendered,
        one_sided,
    })
}

/// The note for an environment whose Karmada (release, gates, controller-manager flags, as the
/// repository installs it) differs between the revisions: one context judges both sides.
fn settings_changed(environment: &str) -> String {
    format!(
        "{environment}: the Karmada it is judged in changes with the change (release, feature \
         gates or controller-manager flags): both revisions are planned under the head's, so \
         what the change of settings itself moves is not shown"
    )
}

/// Each environment of the head (and those only the base has), the base's of the same name
/// compared with it: an environment new at head is compared with an empty one. With each
/// environment's roots that did not render ([`Compared::unrendered`]).
fn environments(
    sides: &GitopsSides<'_>,
    head: &Side,
    base: git2::Oid,
    context: &Context,
    note: &(dyn Fn(&str) + Sync),
) -> Result<PlannedEnvironments, InspectError> {
    // The base first: what it stores makes the head's objects updates (validation ratcheting
    // may admit a policy a CREATE would refuse), as `lint --base` judges them.
    let base = sides.side(&Side::Commit(base), false, None)?;
    let head = sides.side(head, true, Some(&base))?;
    head.notes.iter().for_each(|n| note(n));
    for n in base.notes.iter().filter(|n| !head.notes.contains(n)) {
        note(&format!("the base: {n}"));
    }
    incomplete(&head, "", note);
    incomplete(&base, "the base: ", note);
    let empty = Inventory::default();
    // Each environment is planned in its own control plane's release and gates (those the
    // repository installs for it, or the run's when it says none), as `lint` judges it.
    let settings = |gates: &crate::model::feature_gates::GateSet| Settings {
        options: context.engine_options_in(gates, UnknownClaimers::Stale),
        live: false,
    };
    fn find<'a>(list: &'a [LintedEnvironment], name: &str) -> Option<&'a LintedEnvironment> {
        list.iter().find(|e| e.name == name)
    }
    let mut moved = moved_loose_directories(&base, &head);
    for (from, to) in &moved {
        note(&format!(
            "{from} at the base holds the objects {to} holds at head: the directory moved, and \
             the two are compared as one environment"
        ));
    }
    let joined = environments_taken_over(&base, &head, &moved);
    for (from, to) in &joined {
        note(&format!(
            "{to} is new at head and holds every object {from} held at the base (a root added \
             beside loose files, which it is judged with, or a root moved): the two are compared \
             as one environment"
        ));
    }
    moved.extend(joined);
    let base_name = |name: &str| -> String {
        moved
            .iter()
            .find(|(_, to)| to == name)
            .map_or(name, |(from, _)| from.as_str())
            .to_string()
    };
    let mut names: Vec<&String> = head.environments.iter().map(|e| &e.name).collect();
    let mut one_sided = Vec::new();
    for e in &base.environments {
        let renamed = moved.iter().any(|(from, _)| *from == e.name);
        if !names.contains(&&e.name) && !renamed {
            names.push(&e.name);
            one_sided.push((e.name.clone(), OneSided::Base));
        }
    }
    for e in &head.environments {
        if find(&base.environments, &base_name(&e.name)).is_none() {
            one_sided.push((e.name.clone(), OneSided::Head));
        }
    }
    let mut out: Vec<(String, EnvPlan)> = Vec::new();
    // Where each environment's roots that a comparison cannot see into are reported.
    let mut unrendered: Vec<(String, Vec<String>)> = Vec::new();
    for name in names {
        let b = find(&base.environments, &base_name(name));
        let h = find(&head.environments, name);
        let left = left_in_place(&base, &head, name);
        if let Some(left) = &left {
            note(&left.note);
            if h.is_none() && left.whole {
                for (env, side) in &mut one_sided {
                    if env == name {
                        *side = OneSided::BaseLeftInPlace;
                    }
                }
            }
        }
        if b.zip(h)
            .is_some_and(|(b, h)| !b.gates.same_effect(&h.gates))
        {
            note(&settings_changed(name));
        }
        // An environment only the base has is judged with the gates it had there.
        let gates = h.or(b).map_or(&context.gates, |e| &e.gates);
        let (b, h) = (
            b.map_or(&empty, |e| &e.inventory),
            h.map_or(&empty, |e| &e.inventory),
        );
        // What the Applications that left it applied stays there at head.
        let kept;
        let h = match &left {
            Some(left) => {
                kept = with_objects_of(h, b, &left.outputs);
                &kept
            }
            None => h,
        };
        // So does what a controller that does not prune no longer applies.
        let (unpruned, notes) = crate::lint::unpruned::not_pruned(
            (&base.appliers_of(&base_name(name)), b),
            (&head.appliers_of(name), h),
            name,
        );
        notes.iter().for_each(|n| note(n));
        let with_unpruned = crate::lint::unpruned::with_kept(h, unpruned);
        let h = with_unpruned.as_ref();
        // A root that rendered on one side only: its objects are unknown on the other
        // (Flux and Argo CD apply nothing of a build that fails), so they are compared on
        // neither, not planned as removed or added; the root is listed as not compared.
        let unseen = unseen_roots(&base, &head, &base_name(name), name);
        let (b, h) = (
            without_roots(b, &unseen.outputs),
            without_roots(h, &unseen.outputs),
        );
        out.push((name.clone(), plan(&Sides::whole(&b, &h), &settings(gates))));
        if !unseen.at.is_empty() {
            unrendered.push((name.clone(), unseen.at));
        }
    }
    mark_shared(&mut out);
    // An environment linted on neither side was judged no Karmada API server by what rendered;
    // a root that did not render on one side, or not alike on both, may hold its policies:
    // not compared, rather than left out (which promises no difference).
    for d in head.described.iter().chain(&base.described) {
        if out.iter().any(|(n, _)| *n == d.name) {
            continue;
        }
        let at = unseen_roots(&base, &head, &base_name(&d.name), &d.name).at;
        if !at.is_empty() {
            let none = Sides::whole(&empty, &empty);
            out.push((d.name.clone(), plan(&none, &settings(&context.gates))));
            unrendered.push((d.name.clone(), at));
        }
    }
    Ok(PlannedEnvironments {
        plans: out,
        unrendered,
        one_sided,
    })
}

/// The environments of a repository's change ([`Compared`]'s).
struct PlannedEnvironments {
    plans: Vec<(String, EnvPlan)>,
    unrendered: Vec<(String, Vec<String>)>,
    one_sided: Vec<(String, OneSided)>,
}

/// The roots of an environment that did not render and that a comparison cannot see into: a
/// root that renders on neither side, or on one only, may hold a change the plan cannot see;
/// one that failed at the same place on both sides over the same local files holds none.
struct Unseen {
    /// Where they are reported, the head's as they are and the base's alone marked so.
    at: Vec<String>,
    /// Their outputs (documents' source names), whose objects a side that rendered them has.
    outputs: Vec<String>,
}

fn unseen_roots(
    base: &crate::lint::gitops::RepoLinted,
    head: &crate::lint::gitops::RepoLinted,
    base_name: &str,
    name: &str,
) -> Unseen {
    let (at_head, at_base) = (head.unrendered_in(name), base.unrendered_in(base_name));
    let head_unlike: Vec<_> = at_head
        .iter()
        .filter(|r| !r.failed_alike(at_base.iter().copied()))
        .collect();
    let base_only: Vec<_> = at_base
        .iter()
        .filter(|b| !at_head.iter().any(|h| h.at == b.at))
        .collect();
    let at = head_unlike
        .iter()
        .map(|r| r.at.clone())
        .chain(base_only.iter().map(|b| format!("{} (at the base)", b.at)))
        .collect();
    let outputs = head_unlike
        .iter()
        .chain(&base_only)
        .map(|r| r.output.clone())
        .filter(|o| !o.is_empty())
        .collect();
    Unseen { at, outputs }
}

/// What the Argo CD Applications that leave a destination leave there.
struct LeftInPlace {
    note: String,
    /// The source names of the documents they applied (see [`with_objects_of`]).
    outputs: Vec<String>,
    /// Every Application that deployed there leaves it so: nothing there changes.
    whole: bool,
}

/// The Argo CD Applications that deployed to destination `name` at the base and do not at
/// head, when each of them leaves what it applied in place: one that now deploys elsewhere
/// (Argo CD compares and prunes only at `spec.destination`: controller/state.go,
/// argo-cd#9172), or one removed without the resources finalizer (a deleted Application
/// deletes its resources only through it), or one its ApplicationSet never deletes. What they
/// applied stays there and is planned as unchanged rather than deleted. `None` when no
/// Application leaves so (one deleted with the finalizer deletes what it applied).
fn left_in_place<'a>(
    base: &'a crate::lint::gitops::RepoLinted,
    head: &'a crate::lint::gitops::RepoLinted,
    name: &str,
) -> Option<LeftInPlace> {
    let deploying_here = |side: &'a crate::lint::gitops::RepoLinted| {
        side.described
            .iter()
            .filter(|d| d.name == name)
            .flat_map(|d| &d.applications)
    };
    let staying: Vec<&str> = deploying_here(head).map(|a| a.name.as_str()).collect();
    let leaving: Vec<_> = deploying_here(base)
        .filter(|a| !staying.contains(&a.name.as_str()))
        .collect();
    if leaving.is_empty() {
        return None;
    }
    let now_at = |app: &str| {
        head.described
            .iter()
            .find(|d| d.applications.iter().any(|a| a.name == app))
            .map(|d| d.name.as_str())
    };
    let mut why = Vec::new();
    let mut outputs = Vec::new();
    let mut deleting = false;
    for a in &leaving {
        use crate::source::kustomize::units::OnRemoval;
        match (now_at(&a.name), a.on_removal) {
            (Some(elsewhere), _) => {
                why.push(format!("Application {} now deploys to {elsewhere}", a.name))
            }
            (None, OnRemoval::Orphans) => why.push(format!(
                "Application {} is removed, without the resources finalizer",
                a.name
            )),
            (None, OnRemoval::Kept) => why.push(format!(
                "Application {} is no longer generated, and its ApplicationSet deletes no Application (applicationsSync)",
                a.name
            )),
            // Deleted with the finalizer: what it applied is deleted with it.
            (None, OnRemoval::Deletes) => {
                deleting = true;
                continue;
            }
        }
        outputs.extend(a.outputs.iter().cloned());
    }
    if why.is_empty() {
        return None;
    }
    let what = match staying.is_empty() && !deleting {
        true => "no Application deploys here at head",
        false => "Applications that deployed here leave it",
    };
    Some(LeftInPlace {
        note: format!(
            "{name}: {what} ({}): Argo CD prunes only at an Application's destination and \
             deletes what an Application applied only by deleting it through its resources \
             finalizer, so what they applied stays there and is planned as unchanged",
            why.join("; ")
        ),
        outputs,
        whole: staying.is_empty() && !deleting,
    })
}

/// `head` with the objects of `base` whose documents come from `outputs` added, but for those
/// `head` holds itself (by kind, namespace and name).
fn with_objects_of(head: &Inventory, base: &Inventory, outputs: &[String]) -> Inventory {
    let mut out = head.clone();
    out.append(crate::lint::unpruned::objects_gone_from(
        head, base, outputs,
    ));
    out
}

/// `inventory` without the objects of the root outputs `roots`.
fn without_roots<'a>(
    inventory: &'a Inventory,
    roots: &[String],
) -> std::borrow::Cow<'a, Inventory> {
    let of_root = |o: &crate::model::Object| {
        inventory
            .documents
            .get(o.doc())
            .is_some_and(|d| roots.iter().any(|r| *r == d.source.name))
    };
    if !inventory.objects.iter().any(of_root) {
        return std::borrow::Cow::Borrowed(inventory);
    }
    let mut kept = inventory.clone();
    kept.objects.retain(|o| !of_root(o));
    std::borrow::Cow::Owned(kept)
}

/// Loose directories the change moves: a loose environment only the base has and one only the
/// head has that hold the same objects (by kind, namespace and name), each the other's only such
/// match. Whatever applied the directory applies it after the move (no controller of the
/// repository names it), so comparing the two as one environment plans what changes on the
/// control plane, rather than every policy removed and added again. `(base name, head name)`.
fn moved_loose_directories(
    base: &crate::lint::gitops::RepoLinted,
    head: &crate::lint::gitops::RepoLinted,
) -> Vec<(String, String)> {
    let loose = |side: &crate::lint::gitops::RepoLinted, name: &str| {
        side.described.iter().any(|d| d.name == name && d.loose)
    };
    let (gone, new) = (
        only_on(base, head, &|n| loose(base, n)),
        only_on(head, base, &|n| loose(head, n)),
    );
    gone.iter()
        .filter_map(|(from, keys)| {
            let mut same = new.iter().filter(|(_, k)| k == keys);
            let (to, _) = same.next()?;
            let unique =
                same.next().is_none() && gone.iter().filter(|(_, k)| k == keys).count() == 1;
            unique.then(|| (from.clone(), to.clone()))
        })
        .collect()
}

/// Environments a root added or moved at head takes in: where no controller of the repository
/// names what applies a root, its environment is named after its directory and holds the
/// loose files too (gitops.md), so a root added beside the loose files turns the base's
/// `plain manifests` into the new root's environment, and a root moved renames its own. Each
/// environment new at head that holds every object of such a base environment no longer at
/// head is compared with it, rather than every policy removed and added again. `(base name,
/// head name)`, beside the directories [`moved_loose_directories`] already paired.
fn environments_taken_over(
    base: &crate::lint::gitops::RepoLinted,
    head: &crate::lint::gitops::RepoLinted,
    moved: &[(String, String)],
) -> Vec<(String, String)> {
    let undeclared = |name: &str| {
        base.described
            .iter()
            .any(|d| d.name == name && d.undeclared)
    };
    let gone = only_on(base, head, &|n| {
        undeclared(n) && !moved.iter().any(|(f, _)| f == n)
    });
    let new = only_on(head, base, &|n| !moved.iter().any(|(_, t)| t == n));
    let mut out = Vec::new();
    for (from, keys) in &gone {
        for (to, held) in &new {
            // Every key of the loose files is among the root's (sorted).
            if keys.iter().all(|k| held.binary_search(k).is_ok()) {
                out.push((from.clone(), to.clone()));
            }
        }
    }
    out
}

/// The environments `side` has and `other` has not that `keep` takes, each with the identities
/// of its objects ([`object_keys`]); one without objects is left out, as nothing pairs it.
fn only_on(
    side: &crate::lint::gitops::RepoLinted,
    other: &crate::lint::gitops::RepoLinted,
    keep: &dyn Fn(&str) -> bool,
) -> Vec<(String, Vec<String>)> {
    side.environments
        .iter()
        .filter(|e| keep(&e.name) && !other.environments.iter().any(|o| o.name == e.name))
        .map(|e| (e.name.clone(), object_keys(&e.inventory)))
        .filter(|(_, keys)| !keys.is_empty())
        .collect()
}

/// The identities of an inventory's documents: `apiVersion kind namespace/name`, sorted.
fn object_keys(inv: &Inventory) -> Vec<String> {
    let text = |n: Option<&crate::source::Node>| {
        n.and_then(|n| n.as_str()).unwrap_or_default().to_string()
    };
    let mut keys: Vec<String> = inv
        .documents
        .iter()
        .filter(|d| d.root.as_map().is_some())
        .map(|d| {
            let meta = d.root.get("metadata");
            format!(
                "{} {} {}/{}",
                text(d.root.get("apiVersion")),
                text(d.root.get("kind")),
                text(meta.and_then(|m| m.get("namespace"))),
                text(meta.and_then(|m| m.get("name")))
            )
        })
        .collect();
    keys.sort();
    keys
}

/// What a side's render left out (a root kustomize could not build, a policy with a Flux
/// variable no value fills): the plan of that environment is incomplete.
fn incomplete(side: &crate::lint::gitops::RepoLinted, which: &str, note: &(dyn Fn(&str) + Sync)) {
    use crate::lint::rules::render_failed::leaves_out;
    for f in side.findings.iter().filter(|f| leaves_out(f.rule)) {
        let at = f
            .location
            .as_ref()
            .map(|l| format!("{}: ", l.display()))
            .unwrap_or_default();
        note(&format!(
            "{which}{at}{} (the plan leaves it out)",
            f.message
        ));
    }
}

/// Plain manifests of both sides as read, before admission: the files whose blob is the same
/// on both, read once, and each side's other files. The release that admits them is the
/// installation's the documents may hold, so they are typed only once it is known
/// ([`PlainDocuments::admitted`]).
struct PlainDocuments {
    shared: Vec<Document>,
    base: Vec<Document>,
    head: Vec<Document>,
}

impl PlainDocuments {
    fn read(
        rev: &Revisions,
        base: git2::Oid,
        req: &GitRequest<'_>,
        note: &(dyn Fn(&str) + Sync),
    ) -> Result<PlainDocuments, InspectError> {
        let ignore = |p: &Path| req.config.ignores(p);
        let head_list = rev.repo.list(&rev.head, &rev.specs, &ignore)?;
        let base_list = rev.repo.list(&Side::Commit(base), &rev.specs, &ignore)?;
        head_list.notes.iter().for_each(|n| note(n));
        let base_ids = base_list.blob_ids();
        let (mut shared, mut head, mut unchanged) = (Vec::new(), Vec::new(), HashSet::new());
        read_all(&rev.repo, &head_list.files, note, &mut |name, oid, docs| {
            if base_ids.get(name.as_str()) == Some(&oid) {
                shared.extend(docs);
                unchanged.insert(name);
            } else {
                head.extend(docs);
            }
        })?;
        let changed: Vec<Listed> = base_list
            .files
            .into_iter()
            .filter(|f| !unchanged.contains(&f.name))
            .collect();
        let mut base_docs = Vec::new();
        // The base's version of a changed file: its problems are the base's.
        let base_note = |n: &str| note(&format!("the base: {n}"));
        read_all(&rev.repo, &changed, &base_note, &mut |_, _, docs| {
            base_docs.extend(docs)
        })?;
        Ok(PlainDocuments {
            shared,
            base: base_docs,
            head,
        })
    }

    /// The installations of Karmada in one side's files (`self.base` or `self.head`).
    fn installations(&self, side: &[Document]) -> Vec<crate::model::installation::Installation> {
        crate::model::installation::in_documents(self.shared.iter().chain(side))
    }

    /// Both sides typed, each policy through the admission chain of `opts`' release.
    fn admitted(self, namespace: &str, opts: &LintOptions) -> PlainSides {
        let release = opts.version();
        let typed = |docs: Vec<Document>| {
            let mut inv = Inventory::from_documents(docs, namespace);
            admit_documents(&mut inv, release);
            inv
        };
        let mut base = typed(self.base);
        let mut head = typed(self.head);
        // A changed policy is the update the API server judges against its stored copy, as
        // `lint --base` judges it: validation ratcheting may admit what a CREATE refuses.
        let updated = crate::lint::rules::admission::update_admission(&base, &head, opts);
        crate::lint::rules::admission::mark_admitted(&mut head, &updated.admitted);
        crate::lint::rules::admission::mark_admitted(&mut base, &updated.stored_before_upgrade);
        PlainSides {
            shared: typed(self.shared),
            base,
            head,
        }
    }
}

/// Plain manifests of both sides, typed and admitted.
struct PlainSides {
    shared: Inventory,
    base: Inventory,
    head: Inventory,
}

impl PlainSides {
    fn plan(&self, context: &Context) -> EnvPlan {
        let sides = Sides {
            shared: Some(&self.shared),
            base: &self.base,
            head: &self.head,
        };
        let settings = Settings {
            options: context.engine_options(UnknownClaimers::Stale),
            live: false,
        };
        plan(&sides, &settings)
    }
}

/// Reads and parses `files` on every core; each file's name, blob id and documents go to
/// `sink` in order. Parse problems and skipped files are noted.
fn read_all(
    repo: &GitRepo,
    files: &[Listed],
    note: &(dyn Fn(&str) + Sync),
    sink: &mut dyn FnMut(String, git2::Oid, Vec<Document>),
) -> Result<(), InspectError> {
    let reader = repo.blob_reader();
    crate::util::parallel::each_in_parallel(files, &|f: &Listed| reader.load(f), &mut |read| {
        match read {
            ReadFile::Loaded(loaded, oid) => {
                for p in &loaded.problems {
                    // A duplicate key, say, leaves the document in (its last value counts);
                    // an unrendered template's message says itself that it was skipped.
                    let skipped = if p.kind.skips_an_object() && !p.message.contains("skipped") {
                        " (skipped)"
                    } else {
                        ""
                    };
                    note(&format!(
                        "{}:{}:{}: {}{skipped}",
                        loaded.source.name, p.span.start.line, p.span.start.col, p.message
                    ));
                }
                sink(loaded.source.name.clone(), oid, loaded.documents);
            }
            ReadFile::Skipped(n) => note(&n),
        }
    })?;
    Ok(())
}

// ---- live ----

/// `plan -f FILE... [--delete TYPE/[NS/]NAME...]`.
pub struct LivePlan<'a> {
    pub files: &'a [String],
    pub deletes: &'a [String],
    pub context: &'a Context,
}

/// An object's identity across the two states: group, kind, namespace, name.
type Identity = (String, String, String, String);

fn identity(o: &Object) -> Option<Identity> {
    let (group, kind, meta) = match o {
        Object::Policy(p) => (POLICY_GROUP, p.kind.as_str(), &p.meta),
        Object::Template(t) => (group_of(&t.api_version), t.kind.as_str(), &t.meta),
        Object::Override(p) if p.cluster_scoped => (POLICY_GROUP, "ClusterOverridePolicy", &p.meta),
        Object::Override(p) => (POLICY_GROUP, "OverridePolicy", &p.meta),
        Object::Binding(_) | Object::Work(_) => return None,
    };
    Some((
        group.to_string(),
        kind.to_string(),
        meta.namespace.clone().unwrap_or_default(),
        meta.name.clone(),
    ))
}

/// The plan of applying `req.files` (and deleting `req.deletes`) to the control plane. The
/// files are read first, so a bad file is a usage error before any request.
pub fn plan_live(
    connect: &dyn Fn() -> Result<Session, SessionError>,
    req: &LivePlan<'_>,
) -> Result<Compared, InspectError> {
    let mut session = connect()?;
    let namespace = req
        .context
        .namespace
        .clone()
        .unwrap_or_else(|| session.namespace().to_string());
    let mut applied = if req.files.is_empty() {
        Inventory::default()
    } else {
        read_inputs(req.files, &namespace, &req.context.config)?
    };
    admit_documents(&mut applied, req.context.release());
    let deletes: Vec<Identity> = req
        .deletes
        .iter()
        .map(|d| delete_target(&session.discovered, d, &namespace))
        .collect::<Result<_, _>>()?;
    let base = karmada::placement_state();
    let reads = session.list_all(base.iter().cloned())?;
    let all_policies = all_ok(&reads, &base[..2]);
    let karmada_objects = Inventory::from_documents(live::documents(&reads), "default");
    let kinds = template_kinds(&karmada_objects, &applied, &deletes, &session.discovered);
    let template_reads = session.list_all(kinds)?;
    session.warn_notes();
    let live = Inventory::from_documents(
        live::documents(reads.iter().chain(&template_reads)),
        "default",
    );
    let missing: Vec<&String> = req
        .deletes
        .iter()
        .zip(&deletes)
        .filter(|(_, id)| {
            !live
                .objects
                .iter()
                .any(|o| identity(o).as_ref() == Some(id))
        })
        .map(|(d, _)| d)
        .collect();
    if let Some(d) = missing.first() {
        return Err(InspectError::Missing(d.to_string()));
    }
    let sides = LiveSides::split(live, applied, &deletes);
    let settings = Settings {
        options: req
            .context
            .engine_options(UnknownClaimers::when_policies_read(all_policies)),
        live: true,
    };
    Ok(Compared {
        from: "the control plane".to_string(),
        to: match (req.files.is_empty(), req.deletes.is_empty()) {
            (false, true) => "the files applied",
            (true, false) => "the deletions",
            _ => "the files applied and the deletions",
        }
        .to_string(),
        environments: vec![(LIVE.to_string(), plan(&sides.sides(), &settings))],
        one_sided: Vec::new(),
        unrendered: Vec::new(),
    })
}

/// What `kubectl apply` keeps of a live object's metadata that the file does not set: labels
/// and annotations it never wrote (a policy's permanent-id, a template's claim).
fn keep_metadata(live: &Object, file: &mut Object) {
    let (from, to) = match (live, file) {
        (Object::Policy(a), Object::Policy(b)) => (&a.meta, &mut b.meta),
        (Object::Template(a), Object::Template(b)) => (&a.meta, &mut b.meta),
        _ => return,
    };
    for (k, v) in from.labels.iter() {
        if !to.labels.contains_key(k) {
            to.labels.insert(k.to_string(), v.to_string());
        }
    }
    for (k, v) in from.annotations.iter() {
        if !to.annotations.contains_key(k) {
            to.annotations.insert(k.to_string(), v.to_string());
        }
    }
}

/// `--delete TYPE/[NS/]NAME`, resolved by discovery as kubectl resolves TYPE.
fn delete_target(d: &Discovered, target: &str, namespace: &str) -> Result<Identity, InspectError> {
    let parts: Vec<&str> = target.split('/').collect();
    let (ty, ns, name) = match parts.as_slice() {
        [ty, name] if !ty.is_empty() && !name.is_empty() => (*ty, None, *name),
        [ty, ns, name] if !ty.is_empty() && !ns.is_empty() && !name.is_empty() => {
            (*ty, Some(*ns), *name)
        }
        _ => {
            return Err(InspectError::Target(format!(
                "--delete expects TYPE/[NS/]NAME such as pp/default/a, op/shop/zero or cpp/platform, got {target:?}"
            )))
        }
    };
    let rt = d.resolve(ty).map_err(InspectError::Target)?;
    let ns = match (rt.namespaced, ns) {
        (true, ns) => ns.unwrap_or(namespace).to_string(),
        (false, None) => String::new(),
        (false, Some(_)) => {
            return Err(InspectError::Target(format!(
                "--delete {target}: a {} has no namespace",
                rt.kind
            )))
        }
    };
    Ok((rt.group, rt.kind, ns, name.to_string()))
}

/// The template kinds a live plan reads: those the changed and deleted policies and overrides
/// select (either version), and those of the templates in the files; every kind any policy
/// selects when the files hold Cluster objects (every placement may decide again).
fn template_kinds(
    live: &Inventory,
    applied: &Inventory,
    deletes: &[Identity],
    d: &Discovered,
) -> Vec<ResourceType> {
    let touched = |o: &Object| {
        identity(o).is_some_and(|id| {
            deletes.contains(&id)
                || applied
                    .objects
                    .iter()
                    .any(|a| identity(a) == Some(id.clone()))
        })
    };
    let clusters = applied
        .templates()
        .any(crate::model::cluster::Cluster::is_cluster);
    let policies = live
        .objects
        .iter()
        .filter(|o| clusters || touched(o))
        .chain(&applied.objects)
        .filter_map(|o| match o {
            Object::Policy(p) => Some(&**p),
            _ => None,
        });
    let mut out = kinds::selected_kinds(policies, d);
    let mut add = |rt: ResourceType| {
        if !out.contains(&rt) {
            out.push(rt);
        }
    };
    for o in live
        .objects
        .iter()
        .filter(|o| touched(o))
        .chain(&applied.objects)
    {
        if let Object::Override(p) = o {
            for rs in &p.spec.resource_selectors {
                if !rs.kind.is_empty() && !group_of(&rs.api_version).ends_with("karmada.io") {
                    add(d.for_kind(&rs.api_version, &rs.kind));
                }
            }
        }
    }
    for t in applied.templates() {
        if !group_of(&t.api_version).ends_with("karmada.io") {
            add(d.for_kind(&t.api_version, &t.kind));
        }
    }
    out
}

/// The control plane split for a plan: the objects the change leaves alone (both states),
/// those it replaces or deletes (the base's own), and the files (the head's own).
struct LiveSides {
    shared: Inventory,
    base: Inventory,
    head: Inventory,
}

impl LiveSides {
    fn split(mut live: Inventory, mut applied: Inventory, deletes: &[Identity]) -> LiveSides {
        let mut replaced: HashSet<Identity> = deletes.iter().cloned().collect();
        replaced.extend(applied.objects.iter().filter_map(identity));
        let by_identity: HashMap<Identity, &Object> = live
            .objects
            .iter()
            .filter_map(|o| Some((identity(o)?, o)))
            .collect();
        for o in &mut applied.objects {
            if let Some(was) = identity(o).and_then(|id| by_identity.get(&id)) {
                keep_metadata(was, o);
            }
        }
        let mut base = Inventory::default();
        let objects = std::mem::take(&mut live.objects);
        for o in objects {
            if identity(&o).is_some_and(|id| replaced.contains(&id)) {
                let doc = live.documents[o.doc()].clone();
                let mut o = o;
                *o.doc_mut() = base.documents.len();
                base.documents.push(doc);
                base.objects.push(o);
            } else {
                live.objects.push(o);
            }
        }
        LiveSides {
            shared: live,
            base,
            head: applied,
        }
    }

    fn sides(&self) -> Sides<'_> {
        Sides {
            shared: Some(&self.shared),
            base: &self.base,
            head: &self.head,
        }
    }
}
