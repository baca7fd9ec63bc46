//! Git as a source: the tree of a revision and the index, read from the object database with
//! git2 (no checkout, the working tree and the index are never written), the working tree of a
//! repository, merge bases for `lint --base`, and blame for the age of a suspension.
//!
//! Documents are named by their path in the repository (relative to its root, `/`-separated,
//! e.g. `policies/team-a.yaml`) whatever the side read, so that SARIF results and GitHub
//! annotations land on the file of the pull request and findings of two sides can be compared.
//! Submodules, symlinks and Git LFS pointers are skipped with a note; a path that is not UTF-8
//! is shown with replacement characters and read all the same.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use git2::{BlameOptions, ErrorCode, Oid, Repository};

use super::files;
use super::yaml::Loaded;

/// Why a git mode cannot run: always a usage-level error (exit 2) with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error(
        "not a git repository (or any parent directory): {}; --rev, --staged and --base read a \
         git repository: run them inside a clone, or lint files and directories without them",
        start.display()
    )]
    NotARepository {
        start: PathBuf,
        #[source]
        source: git2::Error,
    },
    #[error("{} is a bare repository: --rev, --staged and --base need a clone with a working tree", git_dir.display())]
    Bare { git_dir: PathBuf },
    #[error("`{rev}` names a {kind}, not a commit")]
    NotACommit { rev: String, kind: &'static str },
    #[error(
        "unknown revision `{rev}` in this shallow clone: fetch it with `{fetch}`, or the whole \
         history with `git fetch --unshallow` (actions/checkout: `fetch-depth: 0`)"
    )]
    UnknownInShallowClone { rev: String, fetch: String },
    #[error(
        "unknown revision `{rev}`: no branch, tag or commit of that name in this repository; \
         if it lives on a remote, fetch it first: `{fetch}`"
    )]
    UnknownRevision { rev: String, fetch: String },
    #[error(
        "unknown revision `{rev}`: the history goes back fewer commits than that, and this clone \
         is complete (not shallow): no fetch brings more; `git log --oneline` lists the commits"
    )]
    PastFirstCommit { rev: String },
    #[error(
        "this is a shallow clone and the history joining `{rev}` and HEAD is missing: fetch it \
         with `git fetch --unshallow` (actions/checkout: `fetch-depth: 0`), or at least `{fetch}` \
         with enough depth to reach the merge base"
    )]
    NoMergeBase {
        rev: String,
        fetch: String,
        #[source]
        source: git2::Error,
    },
    #[error("`-` (stdin) cannot be combined with --rev, --staged or --base")]
    Stdin,
    #[error("{path}: outside the repository at {}", workdir.display())]
    OutsideRepository { path: String, workdir: PathBuf },
    #[error("cannot read the index: {}", source.message())]
    Index {
        #[source]
        source: git2::Error,
    },
    /// A path of the working tree cannot be listed.
    #[error(transparent)]
    List(#[from] files::ReadError),
    /// A revision's files cannot be written out for rendering.
    #[error("cannot write the revision's files under {}: {source}", dest.display())]
    Write {
        dest: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file of the working tree cannot be read, or is over the input size limit.
    #[error("{source}")]
    WorkTree {
        #[source]
        source: files::ReadError,
    },
    /// An object the read needs is not in the object database.
    #[error("cannot read {what}: {}{hint}", source.message())]
    Missing {
        what: String,
        hint: &'static str,
        #[source]
        source: git2::Error,
    },
}

/// Which side of the repository to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Side {
    /// The tree of a commit (from the object database).
    Commit(Oid),
    /// The index: what `git commit` would record.
    Index,
    /// The files on disk under the repository's working directory.
    WorkTree,
}

/// The commit a line was last changed in (blame), for the age of a suspension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Introduced {
    /// The abbreviated commit id (7 hex digits, as `git log --oneline`).
    pub commit: String,
    /// `Name <email>` of the commit's author.
    pub author: String,
    /// The commit (committer) time, in seconds since the Unix epoch: when it entered the branch.
    pub time: i64,
}

/// Where the bytes of one listed file are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// In the object database.
    Blob(Oid),
    /// On disk (the working tree).
    File(PathBuf),
}

/// One file of a side, not read yet ([`GitRepo::list`]).
#[derive(Clone, Debug)]
pub struct Listed {
    /// Its path in the repository (`/`-separated).
    pub name: String,
    pub place: Place,
}

/// The files of one side and what was skipped on the way.
pub struct Listing {
    pub files: Vec<Listed>,
    pub notes: Vec<String>,
}

impl Listing {
    /// The blob of each file a commit holds, by path: a file whose blob is the same on two
    /// sides is read once. Files of the working tree have none yet.
    pub fn blob_ids(&self) -> std::collections::HashMap<&str, Oid> {
        self.files
            .iter()
            .filter_map(|f| match f.place {
                Place::Blob(oid) => Some((f.name.as_str(), oid)),
                Place::File(_) => None,
            })
            .collect()
    }
}

/// One listed file, read: parsed with its blob id (hashed, for a file on disk), or skipped.
pub enum ReadFile {
    Loaded(Loaded, Oid),
    /// A Git LFS pointer: the note to give.
    Skipped(String),
}

/// Reads listed files on any thread: a git2 `Repository` is not `Sync`, so each thread opens
/// its own, once.
pub struct BlobReader {
    git_dir: PathBuf,
    /// How the clone may lack objects ([`CloneKind`]).
    clone: CloneKind,
}

/// How a clone may lack an object a read needs: a shallow clone lacks history, a partial clone
/// (`git clone --filter=...`) the objects its filter left out, which git fetches on demand and
/// libgit2 does not. The hint of [`GitError::Missing`] says what brings them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloneKind {
    Full,
    Shallow,
    Partial,
}

impl CloneKind {
    fn of(repo: &Repository) -> CloneKind {
        // `git clone --filter` marks the remote it fetches missing objects from
        // (remote.NAME.promisor; older git also set extensions.partialClone).
        let remotes: Vec<String> = repo.remotes().map_or_else(
            |_| Vec::new(),
            |r| r.iter().flatten().flatten().map(str::to_string).collect(),
        );
        let partial = repo.config().is_ok_and(|c| {
            let promisor = |name: &str| c.get_bool(&format!("remote.{name}.promisor"));
            c.get_string("extensions.partialclone")
                .is_ok_and(|remote| !remote.is_empty())
                || remotes.iter().any(|name| promisor(name).unwrap_or(false))
        });
        // A pack fetched through a filter is marked `.promisor`, whatever the configuration
        // says now.
        let promisor_pack = std::fs::read_dir(repo.path().join("objects/pack")).is_ok_and(|d| {
            d.flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "promisor"))
        });
        let partial = partial || promisor_pack;
        match (partial, repo.is_shallow()) {
            (true, _) => CloneKind::Partial,
            (false, true) => CloneKind::Shallow,
            (false, false) => CloneKind::Full,
        }
    }

    /// What to say after "cannot read OBJECT": how to bring it, when the clone may lack it.
    fn hint(self, e: &git2::Error) -> &'static str {
        match self {
            CloneKind::Partial => {
                " (a partial clone: its filter left the object out, and git fetches such objects \
                 on demand, which this tool cannot ask it to; `git cat-file -e OBJECT` fetches \
                 one, a clone without --filter has them all)"
            }
            CloneKind::Shallow => {
                " (a shallow clone? fetch the history with `git fetch --unshallow`)"
            }
            // Neither shallow nor partial: the object store itself lacks it.
            CloneKind::Full if e.code() == ErrorCode::NotFound => {
                " (the repository's object store lacks it: `git fsck` says what else is \
                 missing, and a fresh clone has it)"
            }
            CloneKind::Full => "",
        }
    }
}

impl BlobReader {
    /// The blob id a file's bytes would have (no filters applied: equal ids, equal bytes).
    pub fn blob_id(bytes: &[u8]) -> Oid {
        Oid::hash_object(git2::ObjectType::Blob, bytes).unwrap_or(Oid::ZERO_SHA1)
    }

    /// The raw bytes of blob `oid`.
    pub fn bytes(&self, name: &str, oid: Oid) -> Result<Vec<u8>, GitError> {
        thread_local! {
            static OPEN: std::cell::RefCell<Option<(PathBuf, Repository)>> =
                const { std::cell::RefCell::new(None) };
        }
        let missing = |e: git2::Error| GitError::Missing {
            what: format!("{name} ({oid})"),
            hint: self.clone.hint(&e),
            source: e,
        };
        OPEN.with(|open| {
            let mut open = open.borrow_mut();
            if open.as_ref().is_none_or(|(dir, _)| *dir != self.git_dir) {
                let repo = Repository::open(&self.git_dir).map_err(&missing)?;
                *open = Some((self.git_dir.clone(), repo));
            }
            let (_, repo) = open.as_ref().expect("opened above");
            let blob = repo.find_blob(oid).map_err(&missing)?;
            Ok(blob.content().to_vec())
        })
    }

    /// Reads and parses one listed file.
    pub fn load(&self, f: &Listed) -> Result<ReadFile, GitError> {
        match &f.place {
            Place::File(path) => {
                let (loaded, oid) = files::read_named(path, f.name.clone(), &Self::blob_id)
                    .map_err(|source| GitError::WorkTree { source })?;
                Ok(ReadFile::Loaded(loaded, oid))
            }
            Place::Blob(oid) => {
                let bytes = self.bytes(&f.name, *oid)?;
                if bytes.starts_with(LFS_POINTER) {
                    return Ok(ReadFile::Skipped(format!(
                        "{}: Git LFS pointer, skipped (the content is not in the repository)",
                        f.name
                    )));
                }
                Ok(ReadFile::Loaded(
                    files::load_bytes(f.name.clone(), bytes),
                    *oid,
                ))
            }
        }
    }
}

/// Which lines of a text are unchanged copies of lines of an older version: the diff's equal
/// runs `(new_start, old_start, len)`, 0-based, in order. A run per unchanged stretch, not an
/// entry per line: the map of every changed file is kept for the whole run.
struct LineMap(Vec<(usize, usize, usize)>);

impl LineMap {
    /// The 1-based line of the older version that 0-based line `new` of the text copies.
    fn old_line(&self, new: usize) -> Option<usize> {
        let i = self.0.partition_point(|&(start, _, _)| start <= new);
        let (start, old, len) = *self.0.get(i.checked_sub(1)?)?;
        (new < start + len).then_some(old + (new - start) + 1)
    }
}

/// An open repository with a working directory.
pub struct GitRepo {
    repo: Repository,
    workdir: PathBuf,
    /// Blame answers per path, commit and line of that commit's version.
    blame_cache: Mutex<HashMap<(String, Oid, usize), Option<Introduced>>>,
    /// The paths whose blame at a base is that at a head ([`GitRepo::share_history`]).
    shared: Mutex<Option<Shared>>,
    /// Per file of the index or working tree (and its text's length): each line's number in
    /// HEAD's version, when unchanged. One diff per file, not one per suspended line.
    head_lines: Mutex<HashMap<(String, usize), Option<LineMap>>>,
}

const LFS_POINTER: &[u8] = b"version https://git-lfs.github.com/spec/";
const MODE_TREE: i32 = 0o040000;
const MODE_LINK: i32 = 0o120000;
const MODE_COMMIT: i32 = 0o160000;
/// A regular file (`0o100644` or `0o100755`, masked to its type).
const MODE_FILE: i32 = 0o100000;

/// An index entry's merge stage: 0 when merged, 1-3 for the sides of a conflict.
fn merge_stage(e: &git2::IndexEntry) -> u16 {
    (e.flags >> 12) & 0x3
}

impl GitRepo {
    /// The repository containing `start` (searching upwards, as `git` does).
    pub fn discover(start: &Path) -> Result<GitRepo, GitError> {
        let repo = Repository::discover(start).map_err(|source| GitError::NotARepository {
            start: start.to_path_buf(),
            source,
        })?;
        let Some(workdir) = repo.workdir() else {
            return Err(GitError::Bare {
                git_dir: repo.path().to_path_buf(),
            });
        };
        let workdir = workdir
            .canonicalize()
            .unwrap_or_else(|_| workdir.to_path_buf());
        Ok(GitRepo {
            repo,
            workdir,
            blame_cache: Mutex::new(HashMap::new()),
            shared: Mutex::new(None),
            head_lines: Mutex::new(HashMap::new()),
        })
    }

    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The submodules the index records, as directories of the working tree: a revision's side
    /// skips them (a commit holds only their commit id), so the working tree's side skips them
    /// too, or a comparison would see their roots added.
    pub fn submodule_dirs(&self) -> Vec<PathBuf> {
        let Ok(index) = self.repo.index() else {
            return Vec::new();
        };
        index
            .iter()
            .filter(|e| (e.mode as i32) & 0o170000 == MODE_COMMIT && merge_stage(e) == 0)
            .map(|e| self.workdir.join(lossy(&e.path)))
            .collect()
    }

    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow()
    }

    /// The commit `rev` names (a branch, tag, `HEAD~2`, an id...), or an error saying what to fetch.
    pub fn resolve(&self, rev: &str) -> Result<Oid, GitError> {
        let object = self
            .repo
            .revparse_single(rev)
            .map_err(|_| self.unknown_revision(rev))?;
        let commit = object.peel_to_commit().map_err(|_| GitError::NotACommit {
            rev: rev.to_string(),
            kind: object.kind().map_or("object", |k| k.str()),
        })?;
        Ok(commit.id())
    }

    fn unknown_revision(&self, rev: &str) -> GitError {
        let fetch = self.fetch_hint(rev);
        let shallow = self.repo.is_shallow();
        // Counted back past the first commit of a whole history: deepening cannot help.
        if !shallow && commits_back(rev).is_some() && self.resolves_counted_from(rev) {
            return GitError::PastFirstCommit {
                rev: rev.to_string(),
            };
        }
        let rev = rev.to_string();
        if shallow {
            GitError::UnknownInShallowClone { rev, fetch }
        } else {
            GitError::UnknownRevision { rev, fetch }
        }
    }

    /// Whether the revision `rev` counts back from (`HEAD` of `HEAD~5`) exists.
    fn resolves_counted_from(&self, rev: &str) -> bool {
        let from = rev.split(['~', '^']).next().unwrap_or(rev);
        !from.is_empty() && self.repo.revparse_single(from).is_ok()
    }

    /// `git fetch origin main` for `origin/main`; `git fetch --deepen=N` for a revision
    /// counted back from another (`HEAD~3`, `HEAD^`: git cannot fetch it by that name);
    /// `git fetch origin REV` otherwise.
    fn fetch_hint(&self, rev: &str) -> String {
        if let Some(back) = commits_back(rev) {
            return format!("git fetch --deepen={back}");
        }
        if let Some((remote, branch)) = rev.split_once('/') {
            if !branch.is_empty() && self.repo.find_remote(remote).is_ok() {
                return format!("git fetch {remote} {branch}");
            }
        }
        let remote = self
            .repo
            .remotes()
            .ok()
            .and_then(|r| {
                let names: Vec<String> = r.iter().flatten().flatten().map(str::to_string).collect();
                names
                    .iter()
                    .find(|n| *n == "origin")
                    .or(names.first())
                    .cloned()
            })
            .unwrap_or_else(|| "origin".into());
        format!("git fetch {remote} {rev}")
    }

    /// The commit `HEAD` points at; `None` before the first commit.
    pub fn head_commit(&self) -> Option<Oid> {
        self.repo.head().ok()?.peel_to_commit().ok().map(|c| c.id())
    }

    /// What a pull request from `head` into `rev` is compared with: their merge base (as GitHub's
    /// three-dot diff), so commits that landed on the base branch since do not show up as
    /// reverted. Returns the commit and notes. A shallow clone without the history that joins
    /// them is an error naming the fetch to run.
    pub fn base_commit(
        &self,
        rev: &str,
        head: Option<Oid>,
    ) -> Result<(Oid, Vec<String>), GitError> {
        let base = self.resolve(rev)?;
        let Some(head) = head else {
            return Ok((base, Vec::new()));
        };
        match self.repo.merge_base(base, head) {
            Ok(m) => Ok((m, Vec::new())),
            Err(source) if self.repo.is_shallow() => Err(GitError::NoMergeBase {
                rev: rev.to_string(),
                fetch: self.fetch_hint(rev),
                source,
            }),
            Err(_) => Ok((
                base,
                vec![format!(
                    "`{rev}` and HEAD share no history: comparing with `{rev}` itself"
                )],
            )),
        }
    }

    /// Turns command-line paths (relative to `cwd`) into repository paths (`/`-separated,
    /// relative to the root; `""` is the whole repository).
    pub fn pathspecs(&self, cwd: &Path, paths: &[String]) -> Result<Vec<String>, GitError> {
        let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
        let mut out = Vec::new();
        for p in paths {
            if p == "-" {
                return Err(GitError::Stdin);
            }
            let abs = normalize(&cwd.join(p));
            let rel = abs
                .strip_prefix(&self.workdir)
                .map_err(|_| GitError::OutsideRepository {
                    path: p.clone(),
                    workdir: self.workdir.clone(),
                })?;
            let s = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.push(s);
        }
        Ok(out)
    }

    /// Writes every file of `side` (a commit or the index) that `ignore` keeps under `dest`, as
    /// a checkout would (submodules and symlinks left out), so that kustomize and helm render
    /// the revision as they render the working tree: a chart needs its `templates/_helpers.tpl`
    /// and a kustomization its generator files, which are not manifests. Notes what a partial
    /// clone lacks and was left out. `inputs` are the run's PATHs from the repository's root
    /// ([`GitRepo::pathspecs`]; none: the whole repository): a manifest among them that the
    /// clone lacks is an error.
    pub fn write_tree(
        &self,
        side: &Side,
        ignore: &dyn Fn(&Path) -> bool,
        inputs: &[String],
        dest: &Path,
    ) -> Result<Vec<String>, GitError> {
        let select = Selector {
            specs: &[],
            ignore,
            workdir: &self.workdir,
            every_file: true,
        };
        // What the walk notes (submodules) the listing of the revision has said.
        let mut listed = Vec::new();
        let walk = match side {
            Side::Commit(oid) => self.commit_blobs(*oid, &select, &mut listed)?,
            Side::Index => self.index_blobs(&select, &mut listed)?,
            Side::WorkTree => return Ok(Vec::new()),
        };
        let mut notes = Vec::new();
        let io = |source| GitError::Write {
            dest: dest.to_path_buf(),
            source,
        };
        // Manifests outside the inputs that the clone lacks, and whether an input is a GitOps
        // controller's object (a Flux Kustomization, an Argo CD Application), whose paths
        // reach outside the inputs.
        let mut absent_manifests = Vec::new();
        let mut inputs_reach_out = false;
        // Asked once: a clone its filter left without blobs may lack thousands.
        let mut clone_kind = None;
        for (path, oid) in walk.blobs {
            let name = lossy(&path);
            let blob = match self.repo.find_blob(oid) {
                Ok(blob) => blob,
                // Kustomize and helm read any file, but only the absence of a manifest the
                // run reads as an input would be taken for its deletion: another file a partial
                // clone lacks (a vendored swagger.json beside the chart linted) is left out,
                // and a root that reads it fails to render, which its environment then says.
                Err(e)
                    if e.code() == ErrorCode::NotFound
                        && !(files::is_manifest_name(&name) && among(&name, inputs)) =>
                {
                    if files::is_manifest_name(&name) {
                        absent_manifests.push((name.clone(), oid, e));
                    }
                    let why = match *clone_kind.get_or_insert_with(|| CloneKind::of(&self.repo)) {
                        CloneKind::Partial => " (a partial clone's filter left it out)",
                        CloneKind::Shallow => " (a shallow clone)",
                        CloneKind::Full => "",
                    };
                    notes.push(format!(
                        "{name} is not in this clone's objects{why}: the revision is rendered without it"
                    ));
                    continue;
                }
                Err(e) => return Err(self.missing(&format!("{name} ({oid})"), e)),
            };
            inputs_reach_out |= among(&name, inputs) && reads_outside(&name, blob.content());
            let to = dest.join(&name);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(io)?;
            }
            std::fs::write(&to, blob.content()).map_err(io)?;
        }
        // A Flux Kustomization among the inputs reads the plain manifests of its `path`
        // wherever it lies, a chart the templates of its `file://` dependencies, and one
        // absent there would read as deleted: not left out then.
        if let (true, Some((name, oid, e))) =
            (inputs_reach_out, absent_manifests.into_iter().next())
        {
            return Err(self.missing(&format!("{name} ({oid})"), e));
        }
        let workdir = self
            .workdir
            .canonicalize()
            .unwrap_or_else(|_| self.workdir.clone());
        for (path, oid) in walk.links {
            let target = self
                .repo
                .find_blob(oid)
                .map_err(|e| self.missing(&lossy(&path), e))?;
            let target = String::from_utf8_lossy(target.content()).into_owned();
            let target = relocated(&target, &workdir, dest);
            write_link(dest, &lossy(&path), &target).map_err(io)?;
        }
        Ok(notes)
    }

    /// A commit's selected blobs (and symlinks, for a tree written out), in tree order.
    fn commit_blobs(
        &self,
        oid: Oid,
        select: &Selector<'_>,
        notes: &mut Vec<String>,
    ) -> Result<Walk, GitError> {
        let commit = self
            .repo
            .find_commit(oid)
            .map_err(|e| self.missing(&oid.to_string(), e))?;
        let tree = commit
            .tree()
            .map_err(|e| self.missing(&oid.to_string(), e))?;
        let mut walk = Walk::default();
        self.walk_tree(&tree, &mut Vec::new(), select, &mut walk, notes)?;
        Ok(walk)
    }

    /// The index's selected blobs, in its order; conflicted entries, submodules and symlinks
    /// (but for a tree written out) are noted and skipped.
    fn index_blobs(
        &self,
        select: &Selector<'_>,
        notes: &mut Vec<String>,
    ) -> Result<Walk, GitError> {
        let index = self
            .repo
            .index()
            .map_err(|source| GitError::Index { source })?;
        let mut walk = Walk::default();
        let mut conflicted: Vec<Vec<u8>> = Vec::new();
        for e in index.iter() {
            let stage = merge_stage(&e);
            let mode = e.mode as i32;
            let wanted = if mode & 0o170000 == MODE_COMMIT {
                select.may_contain(&e.path)
            } else {
                select.selected(&e.path)
            };
            if !wanted {
                continue;
            }
            if stage != 0 {
                if conflicted.last() != Some(&e.path) {
                    notes.push(format!(
                        "{}: unmerged (conflicted) in the index, skipped",
                        lossy(&e.path)
                    ));
                    conflicted.push(e.path.clone());
                }
                continue;
            }
            match mode & 0o170000 {
                MODE_COMMIT => notes.push(format!("{}: submodule, skipped", lossy(&e.path))),
                MODE_LINK if select.every_file => walk.links.push((e.path.clone(), e.id)),
                MODE_LINK => notes.push(format!("{}: symlink, skipped", lossy(&e.path))),
                _ => walk.blobs.push((e.path.clone(), e.id)),
            }
        }
        Ok(walk)
    }

    /// The manifests one side holds under `specs` (all when empty), not ignored, without
    /// reading them: each with its repository path and where its bytes are, and what was
    /// skipped on purpose (submodules, symlinks, conflicts; LFS pointers are found when a file
    /// is read: [`BlobReader::load`]).
    pub fn list(
        &self,
        side: &Side,
        specs: &[String],
        ignore: &dyn Fn(&Path) -> bool,
    ) -> Result<Listing, GitError> {
        let select = Selector {
            specs,
            ignore,
            workdir: &self.workdir,
            every_file: false,
        };
        let mut notes = Vec::new();
        let walk = match side {
            Side::Commit(oid) => self.commit_blobs(*oid, &select, &mut notes)?,
            Side::Index => self.index_blobs(&select, &mut notes)?,
            Side::WorkTree => {
                let roots: Vec<String> = if specs.is_empty() {
                    vec![self.workdir.to_string_lossy().into_owned()]
                } else {
                    specs
                        .iter()
                        .map(|s| self.workdir.join(s).to_string_lossy().into_owned())
                        .collect()
                };
                let paths = files::expand_noting(&roots, ignore, &mut notes)?;
                let mut files: Vec<Listed> = paths
                    .into_iter()
                    .map(|p| Listed {
                        name: self.repo_name(&p),
                        place: Place::File(p),
                    })
                    .collect();
                files.extend(self.outside_sparse_checkout(&select, &files));
                return Ok(Listing { files, notes });
            }
        };
        let files = walk
            .blobs
            .into_iter()
            .map(|(path, oid)| Listed {
                name: lossy(&path),
                place: Place::Blob(oid),
            })
            .collect();
        Ok(Listing { files, notes })
    }

    /// The files a sparse checkout leaves out of the working tree (`git sparse-checkout`,
    /// actions/checkout's `sparse-checkout`): the index marks them skip-worktree, and they are
    /// not deleted, so the working tree's side holds them as the index has them. Only those
    /// `select` takes, the working tree does not hold and the object database has.
    fn outside_sparse_checkout(&self, select: &Selector<'_>, on_disk: &[Listed]) -> Vec<Listed> {
        // GIT_INDEX_ENTRY_SKIP_WORKTREE, among the extended flags.
        const SKIP_WORKTREE: u16 = 1 << 14;
        let (Ok(index), Ok(odb)) = (self.repo.index(), self.repo.odb()) else {
            return Vec::new();
        };
        let present: std::collections::HashSet<&str> =
            on_disk.iter().map(|l| l.name.as_str()).collect();
        index
            .iter()
            .filter(|e| e.flags_extended & SKIP_WORKTREE != 0)
            .filter(|e| merge_stage(e) == 0)
            .filter(|e| (e.mode as i32) & 0o170000 == MODE_FILE)
            .filter(|e| select.selected(&e.path))
            .filter(|e| !present.contains(lossy(&e.path).as_str()))
            // A partial clone (`--filter=blob:none`, as a sparse actions/checkout makes) may not
            // hold it: it stays out, as it was.
            .filter(|e| odb.exists(e.id))
            .map(|e| Listed {
                name: lossy(&e.path),
                place: Place::Blob(e.id),
            })
            .collect()
    }

    /// The size in bytes of listed files (0 where unknown), without reading them.
    pub fn size(&self, files: &[Listed]) -> usize {
        let odb = self.repo.odb().ok();
        files
            .iter()
            .map(|f| match &f.place {
                Place::File(p) => std::fs::metadata(p).map_or(0, |m| m.len() as usize),
                Place::Blob(oid) => odb
                    .as_ref()
                    .and_then(|o| o.read_header(*oid).ok())
                    .map_or(0, |(size, _)| size),
            })
            .sum()
    }

    /// A reader of this repository's blobs for any thread.
    pub fn blob_reader(&self) -> BlobReader {
        BlobReader {
            git_dir: self.repo.path().to_path_buf(),
            clone: CloneKind::of(&self.repo),
        }
    }

    /// `/`-separated, relative to the working directory.
    fn repo_name(&self, p: &Path) -> String {
        let rel = p.strip_prefix(&self.workdir).unwrap_or(p);
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    }

    fn missing(&self, what: &str, e: git2::Error) -> GitError {
        GitError::Missing {
            what: what.to_string(),
            hint: CloneKind::of(&self.repo).hint(&e),
            source: e,
        }
    }

    /// Depth-first over a tree, in git's (byte) order, collecting the selected blobs. Submodules
    /// and symlinks that would have been read are noted and skipped.
    fn walk_tree(
        &self,
        tree: &git2::Tree<'_>,
        prefix: &mut Vec<u8>,
        select: &Selector<'_>,
        out: &mut Walk,
        notes: &mut Vec<String>,
    ) -> Result<(), GitError> {
        for entry in tree.iter() {
            let len = prefix.len();
            if !prefix.is_empty() {
                prefix.push(b'/');
            }
            prefix.extend_from_slice(entry.name_bytes());
            match entry.filemode() {
                MODE_TREE => {
                    if select.may_contain(prefix) {
                        let sub = self
                            .repo
                            .find_tree(entry.id())
                            .map_err(|e| self.missing(&lossy(prefix), e))?;
                        self.walk_tree(&sub, prefix, select, out, notes)?;
                    }
                }
                MODE_COMMIT => {
                    if select.may_contain(prefix) {
                        notes.push(format!("{}: submodule, skipped", lossy(prefix)));
                    }
                }
                MODE_LINK => {
                    if select.selected(prefix) && select.every_file {
                        out.links.push((prefix.clone(), entry.id()));
                    } else if select.selected(prefix) {
                        notes.push(format!("{}: symlink, skipped", lossy(prefix)));
                    }
                }
                _ => {
                    if select.selected(prefix) {
                        out.blobs.push((prefix.clone(), entry.id()));
                    }
                }
            }
            prefix.truncate(len);
        }
        Ok(())
    }

    /// The commit that last changed line `line` of `path` on `side` (blame), if committed.
    /// For the index and the working tree, `text` is the current content: lines that differ
    /// from HEAD are not committed yet and have no introducing commit.
    pub fn introduced(&self, side: &Side, path: &str, text: &str, line: u32) -> Option<Introduced> {
        self.introduced_lines(side, path, text, &[line]).pop()?
    }

    /// [`GitRepo::introduced`] for several lines of one file, in their order: one blame of the
    /// file over the range the lines span answers all of them (a blame per line walked the
    /// file's history once per line). Answers are kept per commit and line, so a side whose
    /// file has the same history as an earlier side's ([`GitRepo::share_history`]) asks none.
    pub fn introduced_lines(
        &self,
        side: &Side,
        path: &str,
        text: &str,
        lines: &[u32],
    ) -> Vec<Option<Introduced>> {
        let none = || vec![None; lines.len()];
        // Each line as a line of a commit's version of the file.
        let (oid, at): (Oid, Vec<Option<usize>>) = match side {
            Side::Commit(oid) => (*oid, lines.iter().map(|&l| Some(l as usize)).collect()),
            // The index and the working tree: the line as it is in HEAD, if unchanged since.
            Side::Index | Side::WorkTree => {
                let Some(head) = self.head_commit() else {
                    return none();
                };
                let key = (path.to_string(), text.len());
                let Ok(mut cache) = self.head_lines.lock() else {
                    return none();
                };
                let map = cache.entry(key).or_insert_with(|| {
                    let committed = self.file_at(head, path)?;
                    Some(lines_in_old(&committed, text))
                });
                let at = lines
                    .iter()
                    .map(|&l| map.as_ref()?.old_line((l as usize).checked_sub(1)?))
                    .collect();
                (head, at)
            }
        };
        let oid = self.same_history_as(oid, path);
        let Ok(mut cache) = self.blame_cache.lock() else {
            return none();
        };
        let mut wanted: Vec<usize> = at
            .iter()
            .flatten()
            .copied()
            .filter(|&l| !cache.contains_key(&(path.to_string(), oid, l)))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        if !wanted.is_empty() {
            let answers = self.blame_range(oid, path, &wanted).unwrap_or_else(|| {
                // Should the range not blame (it spans lines of the same version, so it
                // does), the lines one by one, as before.
                wanted
                    .iter()
                    .map(|&l| self.blame_range(oid, path, &[l]).and_then(|mut a| a.pop()?))
                    .collect()
            });
            for (l, answer) in wanted.into_iter().zip(answers) {
                cache.insert((path.to_string(), oid, l), answer);
            }
        }
        at.into_iter()
            .map(|l| cache.get(&(path.to_string(), oid, l?))?.clone())
            .collect()
    }

    /// One blame of `path` at commit `oid` over lines `lines[0]..=lines[last]` (sorted,
    /// 1-based): each line's introducing commit; `None` when the blame fails.
    fn blame_range(
        &self,
        oid: Oid,
        path: &str,
        lines: &[usize],
    ) -> Option<Vec<Option<Introduced>>> {
        let (&first, &last) = (lines.first()?, lines.last()?);
        let mut opts = BlameOptions::new();
        opts.newest_commit(oid).min_line(first).max_line(last);
        let blame = self
            .repo
            .blame_file(Path::new(path), Some(&mut opts))
            .ok()?;
        let mut commits: HashMap<Oid, Option<Introduced>> = HashMap::new();
        Some(
            lines
                .iter()
                .map(|&l| {
                    let commit_id = blame.get_line(l)?.final_commit_id();
                    if commit_id.is_zero() {
                        return None;
                    }
                    commits
                        .entry(commit_id)
                        .or_insert_with(|| self.commit_info(commit_id))
                        .clone()
                })
                .collect(),
        )
    }

    fn commit_info(&self, commit_id: Oid) -> Option<Introduced> {
        let commit = self.repo.find_commit(commit_id).ok()?;
        let author = commit.author();
        let who = match (author.name().ok(), author.email().ok()) {
            (Some(n), Some(e)) => format!("{n} <{e}>"),
            (Some(n), None) => n.to_string(),
            (None, Some(e)) => format!("<{e}>"),
            (None, None) => "unknown".to_string(),
        };
        let hex = commit_id.to_string();
        Some(Introduced {
            commit: hex[..7.min(hex.len())].to_string(),
            author: who,
            time: commit.time().seconds(),
        })
    }

    /// Records that blame at `base` may be answered by blame at `head` for every path that no
    /// commit between them changed: when `head` reaches `base` by single-parent commits alone
    /// (at most `MAX_SHARED` of them), blame at `head` of an untouched file passes every line
    /// to the parent whole, down to `base`, so both give the same commit for each line.
    /// `lint --base` blames both sides; the base then reuses the head's answers for the files
    /// the pull request leaves alone. Otherwise (a merge on the way, `base` not reached) nothing
    /// is shared.
    pub fn share_history(&self, base: Oid, head: Oid) {
        const MAX_SHARED: usize = 1_000;
        let mut changed: std::collections::HashSet<String> = std::collections::HashSet::new();
        let mut at = head;
        let mut steps = 0;
        while at != base {
            let Ok(commit) = self.repo.find_commit(at) else {
                return;
            };
            if commit.parent_count() != 1 || steps == MAX_SHARED {
                return;
            }
            let Ok(parent) = commit.parent(0) else {
                return;
            };
            let (Ok(new), Ok(old)) = (commit.tree(), parent.tree()) else {
                return;
            };
            let Ok(diff) = self.repo.diff_tree_to_tree(Some(&old), Some(&new), None) else {
                return;
            };
            for delta in diff.deltas() {
                for file in [delta.old_file(), delta.new_file()] {
                    if let Some(p) = file.path_bytes() {
                        changed.insert(lossy(p));
                    }
                }
            }
            at = parent.id();
            steps += 1;
        }
        if let Ok(mut shared) = self.shared.lock() {
            *shared = Some(Shared {
                base,
                head,
                changed,
            });
        }
    }

    /// The commit whose blame of `path` answers for blame at `oid` ([`GitRepo::share_history`]).
    fn same_history_as(&self, oid: Oid, path: &str) -> Oid {
        match self.shared.lock().ok().as_deref() {
            Some(Some(s)) if s.base == oid && !s.changed.contains(path) => s.head,
            _ => oid,
        }
    }
}

/// Which paths changed between two commits that share the rest of their history.
struct Shared {
    base: Oid,
    head: Oid,
    changed: std::collections::HashSet<String>,
}

impl GitRepo {
    /// The text of `path` in commit `oid`.
    fn file_at(&self, oid: Oid, path: &str) -> Option<String> {
        let tree = self.repo.find_commit(oid).ok()?.tree().ok()?;
        let entry = tree.get_path(Path::new(path)).ok()?;
        let blob = self.repo.find_blob(entry.id()).ok()?;
        Some(files::decode(blob.content().to_vec()))
    }
}

/// For each line of `new`, the 1-based line of `old` it is an unchanged copy of (one diff).
fn lines_in_old(old: &str, new: &str) -> LineMap {
    use similar::{DiffOp, TextDiff};
    if old == new {
        // Most files of a working tree are as committed: no diff to find that out (a line
        // diff of a 270 kB file took 2 ms).
        return LineMap(vec![(0, 0, new.split_inclusive('\n').count())]);
    }
    let diff = TextDiff::from_lines(old, new);
    let runs = diff
        .ops()
        .iter()
        .filter_map(|op| match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => Some((new_index, old_index, len)),
            _ => None,
        })
        .collect();
    LineMap(runs)
}

/// The 1-based line of `old` that line `line` of `new` is an unchanged copy of, by a line diff
/// (libgit2's blame of a buffer misplaces lines after a deletion, so we diff ourselves).
/// How many commits `rev` counts back from the one it starts at (`HEAD~3`: 3, `main^^`: 2,
/// `HEAD~2^`: 3); `None` for a revision named outright.
fn commits_back(rev: &str) -> Option<usize> {
    let start = rev.find(['~', '^'])?;
    let mut back = 0;
    let mut rest = &rev[start..];
    while let Some(c) = rest.chars().next() {
        rest = &rest[1..];
        let digits = rest.len() - rest.trim_start_matches(|d: char| d.is_ascii_digit()).len();
        let n = rest[..digits].parse::<usize>().unwrap_or(1);
        back += match c {
            '~' | '^' => n,
            _ => return None,
        };
        rest = &rest[digits..];
    }
    Some(back.max(1))
}

#[cfg(test)]
fn line_in_old(old: &str, new: &str, line: usize) -> Option<usize> {
    use similar::{DiffOp, TextDiff};
    let diff = TextDiff::from_lines(old, new);
    let target = line.checked_sub(1)?;
    for op in diff.ops() {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            if (new_index..new_index + len).contains(&target) {
                return Some(old_index + (target - new_index) + 1);
            }
        }
    }
    None
}

/// What a walk of a revision selects: its files, and for a tree written out its symlinks.
#[derive(Default)]
struct Walk {
    blobs: Vec<(Vec<u8>, Oid)>,
    links: Vec<(Vec<u8>, Oid)>,
}

/// A link's target for the tree written under `dest`: an absolute one into the working tree
/// (`workdir`, canonical) points at the same file of the written tree, as the working tree
/// resolves it; any other is kept as committed.
fn relocated(target: &str, workdir: &Path, dest: &Path) -> String {
    match Path::new(target).strip_prefix(workdir) {
        Ok(rest) if Path::new(target).is_absolute() => dest.join(rest).display().to_string(),
        _ => target.to_string(),
    }
}

/// Writes the symlink `name` -> `target` of a revision under `dest` as the checkout has it, so
/// that kustomize and helm follow it as in the working tree (a chart's `file://../lib` through
/// `charts/lib -> realib`), and a link that leads outside the repository is refused where a
/// kustomization or chart names it, as there (the confinement of every render resolves links).
fn write_link(dest: &Path, name: &str, target: &str) -> std::io::Result<()> {
    let to = dest.join(name);
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, &to)?;
    #[cfg(not(unix))]
    let _ = target; // no symlinks written: the renders read without them
    Ok(())
}

/// Which repository paths a run reads: under one of the pathspecs (or anywhere), not ignored,
/// and, below the pathspec, what a directory walk reads (no hidden component, a manifest
/// extension). A pathspec naming a file exactly selects it whatever its name.
struct Selector<'a> {
    specs: &'a [String],
    ignore: &'a dyn Fn(&Path) -> bool,
    workdir: &'a Path,
    /// Every file not ignored, whatever its name and wherever it is (a tree written out for
    /// rendering: a chart's `_helpers.tpl`, a kustomization's generator files and bases
    /// outside the PATHs), not only the manifests under the PATHs.
    every_file: bool,
}

impl Selector<'_> {
    fn selected(&self, path: &[u8]) -> bool {
        if self.every_file {
            return !(self.ignore)(&self.workdir.join(lossy(path)));
        }
        let path = lossy(path);
        let walked = |rel: &str| {
            !rel.split('/').any(|c| c.starts_with('.'))
                && rel.rsplit('/').next().is_some_and(files::is_manifest_name)
        };
        let chosen = if self.specs.is_empty() {
            walked(&path)
        } else {
            self.specs.iter().any(|s| {
                s.is_empty() && walked(&path)
                    || path == *s
                    || path
                        .strip_prefix(s.as_str())
                        .and_then(|r| r.strip_prefix('/'))
                        .is_some_and(walked)
            })
        };
        chosen && !(self.ignore)(&self.workdir.join(&path))
    }

    /// Whether a directory may hold selected files (prunes the walk).
    fn may_contain(&self, dir: &[u8]) -> bool {
        if self.every_file {
            return !(self.ignore)(&self.workdir.join(lossy(dir)));
        }
        let dir = lossy(dir);
        let hidden_below = |rel: &str| rel.split('/').any(|c| c.starts_with('.'));
        let inside = if self.specs.is_empty() {
            !hidden_below(&dir)
        } else {
            self.specs.iter().any(|s| {
                s.is_empty() && !hidden_below(&dir)
                    || dir == *s
                    || s.strip_prefix(dir.as_str())
                        .is_some_and(|r| r.starts_with('/'))
                    || dir
                        .strip_prefix(s.as_str())
                        .and_then(|r| r.strip_prefix('/'))
                        .is_some_and(|r| !hidden_below(r))
            })
        };
        inside && !(self.ignore)(&self.workdir.join(&dir))
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `a/./b/../c` to `a/c`, without touching the file system (the path may not exist on disk).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether file `name` makes the run read manifests wherever they lie in the repository, with
/// no error where one is absent: an object of a GitOps controller that applies a path (Flux's
/// `kustomize.toolkit.fluxcd.io`, Argo CD's `argoproj.io`), or a chart's list of `file://`
/// dependencies (helm renders the templates it finds). A cheap scan of the text, erring
/// towards yes. (A kustomization that names an absent file fails to build, which is said.)
fn reads_outside(name: &str, content: &[u8]) -> bool {
    let text = String::from_utf8_lossy(content);
    let file = name.rsplit('/').next().unwrap_or(name);
    text.contains("kustomize.toolkit.fluxcd.io")
        || text.contains("argoproj.io")
        || (matches!(file, "Chart.yaml" | "requirements.yaml") && text.contains("file://"))
}

/// Whether repository path `name` is one of `inputs` or under one (no inputs: the whole
/// repository; `""`: its root).
fn among(name: &str, inputs: &[String]) -> bool {
    inputs.is_empty()
        || inputs.iter().any(|input| {
            input.is_empty()
                || name == input
                || name
                    .strip_prefix(input.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What makes a run read manifests outside its PATHs without failing where one is absent.
    #[test]
    fn reads_outside_are_gitops_objects_and_local_chart_dependencies() {
        let flux = b"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n";
        assert!(reads_outside("clusters/prod/apps.yaml", flux));
        assert!(reads_outside(
            "apps/app.yaml",
            b"apiVersion: argoproj.io/v1alpha1\n"
        ));
        let chart = b"dependencies:\n- {name: lib, repository: file://../lib}\n";
        assert!(reads_outside("charts/app/Chart.yaml", chart));
        assert!(!reads_outside("charts/app/values.yaml", chart));
        assert!(!reads_outside(
            "apps/kustomization.yaml",
            b"resources: [../base]\n"
        ));
    }

    /// A run's inputs are its PATHs and what lies under them; none is the whole repository.
    #[test]
    fn among_the_inputs_is_a_path_or_under_one() {
        let inputs = ["deploy".to_string(), "chart/values.yaml".to_string()];
        assert!(among("deploy/pp.yaml", &inputs));
        assert!(among("chart/values.yaml", &inputs));
        assert!(!among("deployments/pp.yaml", &inputs));
        assert!(!among("vendor/swagger.json", &inputs));
        assert!(among("vendor/swagger.json", &[]));
        assert!(among("vendor/swagger.json", &[String::new()]));
    }

    /// A revision counted back cannot be fetched by name: the hint deepens the clone instead.
    #[test]
    fn a_revision_counted_back_is_fetched_by_deepening() {
        assert_eq!(commits_back("HEAD~3"), Some(3));
        assert_eq!(commits_back("main^^"), Some(2));
        assert_eq!(commits_back("HEAD~2^"), Some(3));
        assert_eq!(commits_back("HEAD~"), Some(1));
        assert_eq!(commits_back("origin/main"), None);
        assert_eq!(commits_back("HEAD^{commit}"), None);
    }

    fn selector<'a>(specs: &'a [String], ignore: &'a dyn Fn(&Path) -> bool) -> Selector<'a> {
        Selector {
            specs,
            ignore,
            workdir: Path::new("/repo"),
            every_file: false,
        }
    }

    #[test]
    fn selection_mirrors_the_directory_walk() {
        let none = |_: &Path| false;
        let all: Vec<String> = Vec::new();
        let s = selector(&all, &none);
        assert!(s.selected(b"policies/a.yaml"));
        assert!(!s.selected(b"policies/notes.txt"));
        assert!(!s.selected(b".github/workflows/ci.yaml"));
        assert!(!s.may_contain(b".github"));
        assert!(s.selected(b"caf\xe9.yaml"), "non-UTF-8 names are read");

        let specs = vec!["policies".to_string(), ".karmada/extra.yaml".to_string()];
        let s = selector(&specs, &none);
        assert!(s.selected(b"policies/x/a.yml"));
        assert!(!s.selected(b"apps/a.yaml"));
        assert!(s.selected(b".karmada/extra.yaml"), "named exactly");
        assert!(s.may_contain(b".karmada"));
        assert!(!s.may_contain(b"apps"));

        let ignore = |p: &Path| p.starts_with("/repo/charts");
        let s = selector(&all, &ignore);
        assert!(!s.selected(b"charts/x.yaml"));
        assert!(!s.may_contain(b"charts"));
    }

    #[test]
    fn lines_map_to_head_only_when_unchanged() {
        let old = "a\nb\nc\nd\n";
        let new = "a\nc\nX\n";
        assert_eq!(line_in_old(old, new, 1), Some(1));
        assert_eq!(line_in_old(old, new, 2), Some(3));
        assert_eq!(line_in_old(old, new, 3), None);
        assert_eq!(lines_in_old(old, old).old_line(3), Some(4));
        assert_eq!(lines_in_old(old, old).old_line(4), None);
        let map = lines_in_old(old, new);
        let first_three: Vec<_> = (0..3).map(|l| map.old_line(l)).collect();
        assert_eq!(first_three, [Some(1), Some(3), None]);
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
    }
}
