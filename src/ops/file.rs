//! Manifest files edited in place (`suspend`/`resume -f`, GitOps): loading a file for editing,
//! the stamp that tells whether it changed since it was read, turning a [`Patch`] into
//! byte-preserving text edits ([`super::edit`]), checking every edited file before any is
//! written, and the atomic write (a temporary file and a rename, cleaned up on a signal).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::edit::{self, EditError, TextEdit};
use super::plan::Patch;
use crate::model::Inventory;
use crate::source::{files, Node, ProblemKind};

/// Why manifest files could not be read for editing, checked, or written.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The inputs do not expand to files (a usage error).
    #[error("{0}")]
    Expand(#[source] files::ReadError),
    #[error("-f - (stdin) cannot be edited in place")]
    Stdin,
    #[error("{path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// An edited text failed its check: nothing was written.
    #[error("{name}: {source}")]
    Verify {
        name: String,
        #[source]
        source: EditError,
    },
    #[error("{name}: {source}")]
    Write {
        name: String,
        #[source]
        source: FileWriteError,
    },
}

impl FileError {
    /// Reading (or naming) the inputs failed, as opposed to checking or writing an edit.
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            FileError::Expand(_) | FileError::Stdin | FileError::Read { .. }
        )
    }
}

/// The files of `-f` (directories expanded, those `ignore` skips left out); stdin cannot be
/// edited.
pub fn expand(
    inputs: &[String],
    ignore: &dyn Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>, FileError> {
    let paths = files::expand(inputs, ignore).map_err(FileError::Expand)?;
    if paths.iter().any(|p| p == Path::new("-")) {
        return Err(FileError::Stdin);
    }
    Ok(paths)
}

/// One manifest file loaded for editing, and the edits planned for it.
pub struct Manifest {
    pub path: PathBuf,
    /// The path as shown.
    pub name: String,
    /// A UTF-8 byte order mark, written back in front of the text.
    pub bom: bool,
    pub text: String,
    pub inv: Inventory,
    /// The file has parse problems other than duplicate keys: it is never edited.
    pub broken: bool,
    /// Where those problems are, `file:line:col: message`: a policy named on the command line
    /// may sit in a document that does not parse.
    pub problems: Vec<String>,
    /// Those of them that left out a document which may be an object (invalid YAML, an
    /// unrendered template): a policy a bulk selection takes may be there.
    pub skipped: Vec<String>,
    /// What the file was when read, checked again before it is replaced.
    pub stamp: FileStamp,
    pub edits: Vec<TextEdit>,
    /// The documents whose `spec.suspension` the edits change, while nothing else is edited;
    /// `None` once an edit touches more (annotations): the check then covers the parse only.
    pub edited: Option<Vec<usize>>,
    /// A file this run creates (a new patch of a kustomize overlay): it must still not exist
    /// when it is written.
    pub created: bool,
    /// A patch file this tool created whose suspension is lifted: removed, not written (its
    /// listing goes from the kustomization), so the overlay is again what it was before.
    pub deleted: bool,
}

impl Manifest {
    /// Reads `path`; invalid UTF-8 is a load problem (a lossy text must never be written back).
    pub fn load(path: PathBuf) -> Result<Manifest, FileError> {
        let bytes = std::fs::read(&path).map_err(|source| FileError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let stamp = FileStamp::of(&path, &bytes);
        let bom = bytes.starts_with(b"\xef\xbb\xbf");
        let name = files::display_path(&path);
        let loaded = files::load_bytes(name.clone(), bytes);
        let text = loaded.source.text().to_string();
        let place = |p: &crate::source::LoadProblem| {
            format!(
                "{name}:{}:{}: {}",
                p.span.start.line, p.span.start.col, p.message
            )
        };
        let problems: Vec<String> = loaded
            .problems
            .iter()
            .filter(|p| p.kind != ProblemKind::DuplicateKey)
            .map(place)
            .collect();
        let skipped: Vec<String> = loaded
            .problems
            .iter()
            .filter(|p| p.kind.skips_an_object())
            .map(place)
            .collect();
        let broken = !problems.is_empty();
        Ok(Manifest {
            path,
            name,
            bom,
            text,
            inv: Inventory::from_documents(loaded.documents, "default"),
            broken,
            problems,
            skipped,
            stamp,
            edits: Vec::new(),
            edited: Some(Vec::new()),
            created: false,
            deleted: false,
        })
    }

    /// A file to create with `text`: empty before, its one edit the whole text.
    pub fn create(path: PathBuf, text: String) -> Manifest {
        let name = files::display_path(&path);
        Manifest {
            stamp: FileStamp::of(&path, b""),
            path,
            name,
            bom: false,
            text: String::new(),
            inv: Inventory::default(),
            broken: false,
            problems: Vec::new(),
            skipped: Vec::new(),
            edits: vec![TextEdit {
                start: 0,
                end: 0,
                replacement: text,
            }],
            edited: None,
            created: true,
            deleted: false,
        }
    }

    /// Plans the edits of `patch` on document `doc`: all of them, or none on an error.
    pub fn edit(&mut self, doc: usize, patch: &Patch) -> Result<(), EditError> {
        let root = &self.inv.documents[doc].root;
        let edits = edits_for(&self.text, root, patch)?;
        if !patch.annotations.is_empty() {
            self.edited = None;
        } else if !edits.is_empty() {
            if let Some(docs) = &mut self.edited {
                docs.push(doc);
            }
        }
        self.edits.extend(edits);
        Ok(())
    }

    /// The text after the planned edits (`None`: nothing to edit).
    pub fn edited_text(&self) -> Option<String> {
        (!self.edits.is_empty()).then(|| edit::apply(&self.text, &self.edits))
    }

    /// Replaces the file with `after` (atomically, only if it is still what was read), or
    /// removes it when it is [`Manifest::deleted`].
    pub fn write(&self, after: &str) -> Result<(), FileError> {
        let written = if self.deleted {
            remove_unchanged(&self.path, &self.stamp)
        } else if self.created {
            write_new(&self.path, after)
        } else {
            write_atomic(&self.path, self.bom, after, Some(&self.stamp))
        };
        written.map_err(|source| FileError::Write {
            name: self.name.clone(),
            source,
        })
    }
}

/// The text edits of `patch` on one document: `spec.suspension`, then each annotation.
pub fn edits_for(text: &str, root: &Node, patch: &Patch) -> Result<Vec<TextEdit>, EditError> {
    let mut edits = Vec::new();
    if let Some(new) = &patch.suspension {
        edits.extend(edit::suspension_edit(text, root, new.as_ref())?);
    }
    for (key, value) in &patch.annotations {
        edits.extend(edit::annotation_edit(text, root, key, value.as_deref())?);
    }
    Ok(edits)
}

/// Every edited file with its new text, each checked ([`edit::verify`]) before any is written:
/// a refusal changes nothing.
pub fn checked(manifests: &[Manifest]) -> Result<Vec<(&Manifest, String)>, FileError> {
    let mut out = Vec::new();
    for m in manifests {
        if m.deleted {
            out.push((m, String::new()));
            continue;
        }
        let Some(after) = m.edited_text() else {
            continue;
        };
        let verified = if m.created {
            edit::verify_created(&after)
        } else {
            edit::verify(&m.text, &after, m.edited.as_deref())
        };
        verified.map_err(|source| FileError::Verify {
            name: m.name.clone(),
            source,
        })?;
        out.push((m, after));
    }
    Ok(out)
}

/// What a file was when it was read: re-checked just before an edit replaces it, so a change
/// made meanwhile by another process is not silently lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    hash: u64,
}

impl FileStamp {
    /// The stamp of `bytes` just read from `path`.
    pub fn of(path: &Path, bytes: &[u8]) -> FileStamp {
        FileStamp {
            len: bytes.len() as u64,
            modified: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
            hash: content_hash(bytes),
        }
    }
}

fn content_hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// Why an in-place edit was not written.
#[derive(Debug, thiserror::Error)]
pub enum FileWriteError {
    #[error(
        "changed by another process since it was read; nothing was written (run the command again)"
    )]
    Changed,
    #[error("created by another process since this run chose the name; nothing was written (run the command again)")]
    Exists,
    #[error("cannot write: {0}")]
    Io(#[from] std::io::Error),
}

/// Writes `text` to `path` through a temporary file in the same directory and a rename, so a
/// reader never sees a half-written manifest. The temporary file gets a random name and is
/// created exclusively (O_EXCL: a planted file or symlink of that name is refused, never
/// followed); it is removed on every error path and on SIGINT/SIGTERM/SIGHUP. The replaced file
/// keeps its mode, and its owner and group where the process may set them (root). With
/// `expected`, the file must still be what was read (size, mtime, content) just before the
/// rename. A file with several hard links gets a warning: the rename gives this name a new file.
pub fn write_atomic(
    path: &Path,
    bom: bool,
    text: &str,
    expected: Option<&FileStamp>,
) -> Result<(), FileWriteError> {
    use std::os::unix::fs::MetadataExt;
    // Write through a symlink to its target, as an editor would, instead of replacing the link.
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let path = real.as_path();
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let meta = std::fs::metadata(path).ok();
    if let Some(m) = meta.as_ref().filter(|m| m.nlink() > 1) {
        crate::util::warn(&format!(
            "{}: has {} hard links; the edit replaces this name with a new file and the other links keep the old content",
            path.display(),
            m.nlink()
        ));
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".karmada-policy.tmp")
        .rand_bytes(12)
        .tempfile_in(dir)?;
    let _cleanup = signal_cleanup::Guard::new(tmp.path());
    if bom {
        tmp.write_all(b"\xef\xbb\xbf")?;
    }
    tmp.write_all(text.as_bytes())?;
    if let Some(m) = &meta {
        tmp.as_file().set_permissions(m.permissions())?;
        // Only root may give a file away; for anyone else this fails where it would change
        // something, and the new file is then theirs, as an editor's would be.
        let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(m.uid()), Some(m.gid()));
    }
    tmp.as_file().sync_all()?;
    if let Some(expected) = expected {
        let now = std::fs::read(path).ok();
        let unchanged = now
            .as_deref()
            .is_some_and(|bytes| &FileStamp::of(path, bytes) == expected);
        if !unchanged {
            return Err(FileWriteError::Changed);
        }
    }
    tmp.persist(path).map_err(|e| FileWriteError::Io(e.error))?;
    Ok(())
}

/// Removes `path` if it is still what was read.
fn remove_unchanged(path: &Path, expected: &FileStamp) -> Result<(), FileWriteError> {
    let now = std::fs::read(path)?;
    if &FileStamp::of(path, &now) != expected {
        return Err(FileWriteError::Changed);
    }
    std::fs::remove_file(path)?;
    Ok(())
}

/// Creates `path` with `text` through a temporary file and a rename that refuses to replace
/// anything: a file of that name made meanwhile by another process is left as it is.
pub fn write_new(path: &Path, text: &str) -> Result<(), FileWriteError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".new.")
        .suffix(".karmada-policy.tmp")
        .rand_bytes(12)
        .tempfile_in(dir)?;
    let _cleanup = signal_cleanup::Guard::new(tmp.path());
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    match tmp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(FileWriteError::Exists)
        }
        Err(e) => Err(FileWriteError::Io(e.error)),
    }
}

/// Removes the temporary file of an edit in progress when the process is interrupted: a
/// handler for SIGINT, SIGTERM and SIGHUP that unlinks the path published by the current
/// [`Guard`] and exits with 128 + the signal, as the default action would report it.
mod signal_cleanup {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::atomic::{AtomicPtr, Ordering};
    use std::sync::Once;

    /// The temporary file to remove on a signal (a leaked C string), or null.
    static PATH: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

    /// Publishes a temporary file for the handler while it lives.
    pub struct Guard;

    impl Guard {
        pub fn new(path: &Path) -> Guard {
            install();
            if let Ok(c) = CString::new(path.as_os_str().as_bytes()) {
                let old = PATH.swap(c.into_raw(), Ordering::SeqCst);
                free(old);
            }
            Guard
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            free(PATH.swap(std::ptr::null_mut(), Ordering::SeqCst));
        }
    }

    fn free(p: *mut libc::c_char) {
        if !p.is_null() {
            // SAFETY: every non-null pointer in PATH came from CString::into_raw, and the swap
            // that returned it took it out, so it is freed once.
            drop(unsafe { CString::from_raw(p) });
        }
    }

    fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: the action calls only async-signal-safe functions (an atomic swap,
                // unlink, _exit) and allocates nothing.
                let _ =
                    unsafe { signal_hook_registry::register(signal, move || on_signal(signal)) };
            }
        });
    }

    fn on_signal(signal: libc::c_int) {
        let p = PATH.swap(std::ptr::null_mut(), Ordering::SeqCst);
        // SAFETY: p, when not null, is a valid C string that nothing frees any more (taken out
        // of PATH); unlink and _exit are async-signal-safe.
        unsafe {
            if !p.is_null() {
                libc::unlink(p);
            }
            libc::_exit(128 + signal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_between_read_and_write_is_refused_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pp.yaml");
        std::fs::write(&file, "a: 1\n").unwrap();
        let stamp = FileStamp::of(&file, b"a: 1\n");
        // Another process rewrites the file (same size, so only the content tells).
        std::fs::write(&file, "a: 2\n").unwrap();
        let err = write_atomic(&file, false, "a: 3\n", Some(&stamp)).unwrap_err();
        assert!(matches!(err, FileWriteError::Changed), "{err}");
        assert!(err.to_string().contains("changed by another process"));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "a: 2\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "the temporary file is gone");
        // Unchanged: written.
        let stamp = FileStamp::of(&file, b"a: 2\n");
        write_atomic(&file, false, "a: 3\n", Some(&stamp)).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "a: 3\n");
    }

    #[test]
    fn a_new_file_is_created_only_while_its_name_is_free() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("suspend-pp-web.yaml");
        write_new(&file, "a: 1\n").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "a: 1\n");
        // Another process took the name meanwhile: refused, its file kept, nothing left over.
        let err = write_new(&file, "a: 2\n").unwrap_err();
        assert!(matches!(err, FileWriteError::Exists), "{err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "a: 1\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_patch_becomes_suspension_then_annotation_edits() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pp.yaml");
        let text = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: a\n  namespace: default\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n";
        std::fs::write(&file, text).unwrap();
        let mut m = Manifest::load(file).unwrap();
        let doc = m.inv.policies().next().unwrap().doc;
        let patch = Patch {
            suspension: Some(Some(crate::model::policy::Suspension {
                dispatching: Some(true),
                ..Default::default()
            })),
            annotations: vec![("k".into(), Some("v".into()))],
        };
        m.edit(doc, &patch).unwrap();
        assert_eq!(m.edits.len(), 2);
        assert_eq!(m.edited, None, "annotations edited: the parse is checked");
        let (_, after) = checked(std::slice::from_ref(&m)).unwrap().pop().unwrap();
        assert!(
            after.contains("dispatching: true") && after.contains("k: 'v'"),
            "{after}"
        );
    }
}
