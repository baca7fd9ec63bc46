//! Files, directories and stdin.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::document::{Pos, Source, Span};
use super::yaml::{load, LoadProblem, Loaded, ProblemKind};

/// The largest file or stdin read by default: a manifest set is a few megabytes, and a node
/// tree costs about twenty times its text, so this keeps one input well inside a CI runner.
pub const DEFAULT_MAX_INPUT_SIZE: u64 = 64 << 20;

/// The limit in force (`lint --max-input-size`); one per process, set before any read.
static MAX_INPUT_SIZE: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT_SIZE);

/// Sets the largest file or stdin any later read accepts, in bytes.
pub fn set_max_input_size(bytes: u64) {
    MAX_INPUT_SIZE.store(bytes, Ordering::Relaxed);
}

/// The largest file or stdin a read accepts, in bytes.
pub fn max_input_size() -> u64 {
    MAX_INPUT_SIZE.load(Ordering::Relaxed)
}

/// `64MiB`, `100M`, `1G`, `512k` or a plain number of bytes (binary units either way).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("invalid size `{s}`: expected e.g. 64MiB, 100M or 1048576"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "ki" | "kib" => 10,
        "m" | "mb" | "mi" | "mib" => 20,
        "g" | "gb" | "gi" | "gib" => 30,
        _ => return Err(format!("invalid size `{s}`: the unit must be K, M or G")),
    };
    number
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("invalid size `{s}`: too large"))
}

/// A size for a message: `64 MiB`, or bytes when not a whole number of MiB.
fn show_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// An input that could not be read at all (as opposed to one that reads but does not parse).
#[derive(Debug, thiserror::Error)]
#[error("{path}: {}", io_message(source))]
pub struct ReadError {
    /// The input as it is shown (`<stdin>` for `-`).
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

/// Expands the command-line inputs into the files to read, in a stable order: each argument in
/// the order given; directories recursively (`.yaml`, `.yml` and `.json`), sorted, skipping
/// hidden files and directories such as `.git`; `-` is stdin.
///
/// A directory walk takes regular files (and links to them) only: a FIFO would block the run
/// forever and a link to `/dev/zero` would be read until memory runs out, so anything else,
/// and a dangling link, is skipped with a note on stderr. A file named explicitly is read
/// whatever it is (a named FIFO is read, as `cat` reads it).
pub fn expand(
    inputs: &[String],
    ignore: &dyn Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>, ReadError> {
    let mut notes = Vec::new();
    let files = expand_noting(inputs, ignore, &mut notes)?;
    // Every command that expands inputs prints these the same way, so they are printed here.
    for note in &notes {
        crate::util::note(note);
    }
    Ok(files)
}

/// [`expand`], handing the notes about skipped entries to the caller instead of printing them.
pub fn expand_noting(
    inputs: &[String],
    ignore: &dyn Fn(&Path) -> bool,
    notes: &mut Vec<String>,
) -> Result<Vec<PathBuf>, ReadError> {
    let mut files = Vec::new();
    for input in inputs {
        if input == "-" {
            files.push(PathBuf::from("-"));
            continue;
        }
        let path = PathBuf::from(input);
        let meta = std::fs::metadata(&path).map_err(|e| ReadError {
            path: input.clone(),
            source: e,
        })?;
        if meta.is_dir() {
            walk(&path, &mut files, ignore, notes).map_err(|e| ReadError {
                path: input.clone(),
                source: e,
            })?;
        } else if !ignore(&path) {
            files.push(path);
        }
    }
    Ok(files)
}

fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    ignore: &dyn Fn(&Path) -> bool,
    notes: &mut Vec<String>,
) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if ignore(&path) {
            continue;
        }
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ty = entry.file_type()?;
        // Hidden files and directories (.git, .github, .pre-commit-config.yaml,
        // .karmada-policy.yaml) are tooling, not manifests; name them explicitly to lint them.
        if name.starts_with('.') {
            continue;
        }
        if ty.is_dir() {
            walk(&path, out, ignore, notes)?;
        } else if is_manifest_name(&name) {
            match regular_file(&path, ty) {
                Ok(()) => out.push(path),
                Err(why) => notes.push(format!("{}: {why}, skipped", display_path(&path))),
            }
        }
    }
    Ok(())
}

/// `Ok` when a walked entry is a regular file or a link to one; otherwise what it is.
fn regular_file(path: &Path, ty: std::fs::FileType) -> Result<(), String> {
    if ty.is_file() {
        return Ok(());
    }
    if ty.is_symlink() {
        return match std::fs::metadata(path) {
            Ok(m) if m.is_file() => Ok(()),
            Ok(m) => Err(format!(
                "symbolic link to {}, not a regular file",
                kind_of(m.file_type())
            )),
            Err(_) => Err("dangling symbolic link".into()),
        };
    }
    Err(format!("{}, not a regular file", kind_of(ty)))
}

fn kind_of(ty: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO";
        }
        if ty.is_char_device() {
            return "a character device";
        }
        if ty.is_block_device() {
            return "a block device";
        }
        if ty.is_socket() {
            return "a socket";
        }
    }
    if ty.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

/// Whether a file name looks like a manifest we should read when walking a directory.
pub fn is_manifest_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml") || lower.ends_with(".json")
}

/// The size in bytes of an input when known before reading it: a regular file's, or stdin's
/// when it is redirected from one (`lint - < FILE`); `None` for a pipe.
pub fn input_size(path: &Path) -> Option<u64> {
    let meta = if path == Path::new("-") {
        stdin_metadata()?
    } else {
        std::fs::metadata(path).ok()?
    };
    meta.is_file().then_some(meta.len())
}

#[cfg(unix)]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    std::fs::File::from(fd).metadata().ok()
}

#[cfg(not(unix))]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    None
}

/// Reads and parses one input (`-` is stdin). Invalid UTF-8 is a finding at its first byte.
pub fn read(path: &Path) -> Result<Loaded, ReadError> {
    if path == Path::new("-") {
        let (name, bytes) = read_bytes(path)?;
        let (text, bad) = decode_checked(bytes);
        return Ok(with_utf8_problem(load(Source::new(name, text)), bad));
    }
    // Taken before the text: a change while reading then shows as a later modification.
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let (name, bytes) = read_bytes(path)?;
    let (text, bad) = decode_checked(bytes);
    Ok(with_utf8_problem(
        load(Source::from_file(name, text, path, modified)),
        bad,
    ))
}

/// Reads and parses the file at `path` as [`read`] does, shown as `name` (a git mode names files
/// by their path in the repository), and gives `digest` of its bytes (a git blob id) too.
pub fn read_named<T>(
    path: &Path,
    name: String,
    digest: &dyn Fn(&[u8]) -> T,
) -> Result<(Loaded, T), ReadError> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let (_, bytes) = read_bytes(path)?;
    let digest = digest(&bytes);
    let (text, bad) = decode_checked(bytes);
    let loaded = with_utf8_problem(load(Source::from_file(name, text, path, modified)), bad);
    Ok((loaded, digest))
}

/// Parses `bytes` read from somewhere other than a file (a git blob) as [`read`] does.
pub fn load_bytes(name: String, bytes: Vec<u8>) -> Loaded {
    let (text, bad) = decode_checked(bytes);
    with_utf8_problem(load(Source::new(name, text)), bad)
}

/// The name an input is shown by and its text, decoded (`-` is stdin, named `<stdin>`).
pub fn read_text(path: &Path) -> Result<(String, String), ReadError> {
    let (name, bytes) = read_bytes(path)?;
    Ok((name, decode(bytes)))
}

/// The name an input is shown by and its bytes, at most [`max_input_size`] of them: a larger
/// input is an error, found without reading past the limit (a link to `/dev/zero` is endless).
pub fn read_bytes(path: &Path) -> Result<(String, Vec<u8>), ReadError> {
    if path == Path::new("-") {
        let name = "<stdin>".to_string();
        let bytes = read_capped(std::io::stdin().lock(), &name)?;
        return Ok((name, bytes));
    }
    let name = display_path(path);
    // Only an input that is not a regular file is kept: a second open of it would block or
    // read nothing.
    if let Some(bytes) = read_before(path) {
        return Ok((name, bytes.to_vec()));
    }
    let file = std::fs::File::open(path).map_err(|e| ReadError {
        path: name.clone(),
        source: e,
    })?;
    // A regular file's size is known: refuse it before reading any of it, or read it into a
    // buffer of its size (as `fs::read` does), still stopping at the limit should it grow.
    if let Some(len) = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
    {
        let limit = max_input_size();
        if len > limit {
            return Err(too_large(&name));
        }
        let mut bytes = Vec::with_capacity(len as usize + 1);
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| ReadError {
                path: name.clone(),
                source: e,
            })?;
        if bytes.len() as u64 > limit {
            return Err(too_large(&name));
        }
        return Ok((name, bytes));
    }
    let bytes = read_capped(file, &name)?;
    keep_read(path, &bytes);
    Ok((name, bytes))
}

/// What each input that is not a regular file gave when it was first read: a pipe named as a
/// file (`-f <(helm template ...)`, `/dev/fd/63`, a FIFO) gives its content once, and a run
/// may read an input more than once (the Karmada installation the inputs hold, then the
/// manifests; `lint` again under the settings that installation gives). Each is kept for the
/// run, at most [`max_input_size`] bytes.
fn pipes() -> &'static Mutex<HashMap<PathBuf, Arc<[u8]>>> {
    static PIPES: OnceLock<Mutex<HashMap<PathBuf, Arc<[u8]>>>> = OnceLock::new();
    PIPES.get_or_init(Default::default)
}

fn read_before(path: &Path) -> Option<Arc<[u8]>> {
    pipes().lock().ok()?.get(path).cloned()
}

fn keep_read(path: &Path, bytes: &[u8]) {
    if let Ok(mut pipes) = pipes().lock() {
        pipes.insert(path.to_path_buf(), Arc::from(bytes));
    }
}

pub(super) fn too_large(name: &str) -> ReadError {
    ReadError {
        path: name.to_string(),
        source: std::io::Error::other(format!(
            "larger than the input limit of {}; raise it with --max-input-size if this input is meant",
            show_size(max_input_size())
        )),
    }
}

/// Reads at most [`max_input_size`] bytes, in chunks joined once at the end: a growing buffer
/// would double past the limit (and copy on each step) before the limit is seen, when stdin is
/// endless.
fn read_capped(mut reader: impl Read, name: &str) -> Result<Vec<u8>, ReadError> {
    const CHUNK: usize = 1 << 20;
    let limit = max_input_size();
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut total = 0u64;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        let n = (&mut reader)
            .take(CHUNK as u64)
            .read_to_end(&mut chunk)
            .map_err(|e| ReadError {
                path: name.to_string(),
                source: e,
            })?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > limit {
            return Err(too_large(name));
        }
        chunks.push(chunk);
    }
    Ok(if chunks.len() == 1 {
        chunks.pop().unwrap_or_default()
    } else {
        chunks.concat()
    })
}

/// `loaded` with a finding at the first invalid UTF-8 byte, if there was one: kubectl rejects
/// such a file, and the lossy text we lint is not what is in it.
pub(super) fn with_utf8_problem(mut loaded: Loaded, bad: Option<(Pos, u8)>) -> Loaded {
    if let Some((pos, byte)) = bad {
        loaded.problems.insert(
            0,
            LoadProblem {
                kind: ProblemKind::Syntax,
                span: Span::point(pos.line, pos.col),
                message: format!(
                    "invalid UTF-8 (byte 0x{byte:02X}): kubectl rejects the file; the invalid bytes were read as U+FFFD"
                ),
                related: None,
            },
        );
    }
    loaded
}

/// [`decode`], and where the first invalid UTF-8 byte is (1-based line and column of the text
/// without its BOM) and what it is.
pub fn decode_checked(bytes: Vec<u8>) -> (String, Option<(Pos, u8)>) {
    let bad = std::str::from_utf8(&bytes).err().map(|e| {
        let at = e.valid_up_to();
        let prefix = &bytes[..at];
        let line_start = prefix
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = prefix.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let head = std::str::from_utf8(&prefix[line_start..]).unwrap_or("");
        let head = if line == 1 {
            head.trim_start_matches('\u{feff}')
        } else {
            head
        };
        let col = head.chars().count() as u32 + 1;
        (Pos { line, col }, bytes[at])
    });
    (decode(bytes), bad)
}

/// Reads and parses several inputs, results in input order. On several errors the first input's
/// is returned, as a sequential read would.
pub fn read_all(paths: &[PathBuf]) -> Result<Vec<Loaded>, ReadError> {
    read_all_with(paths, &|loaded| loaded)
}

/// Reads and parses several inputs and hands each parsed file to `then` on the thread that
/// parsed it, so a caller can reduce a file (check it, drop what it no longer needs) while its
/// tree is still hot and before the next one is read: memory then holds what `then` keeps, not
/// every tree at once.
pub fn read_all_with<T: Send>(
    paths: &[PathBuf],
    then: &(dyn Fn(Loaded) -> T + Sync),
) -> Result<Vec<T>, ReadError> {
    in_parallel(paths, &|path| read(path).map(then))
}

/// `each` over every input on all cores (std threads, no thread pool crate: each worker takes
/// the next input), since reading and parsing is most of a large run's time. Results come back
/// in input order; on several errors the first input's is returned, as a sequential run would.
pub fn in_parallel<T: Send>(
    paths: &[PathBuf],
    each: &(dyn Fn(&Path) -> Result<T, ReadError> + Sync),
) -> Result<Vec<T>, ReadError> {
    let mut results = Vec::with_capacity(paths.len());
    crate::util::parallel::each_in_parallel(paths, &|p: &PathBuf| each(p), &mut |r| {
        results.push(r)
    })?;
    Ok(results)
}

// Defined beside `Source`, which reads a released file back with it.
pub use super::document::decode;

/// A path as reports show it: without the `./` a walk of `.` puts in front (a diff header
/// `a/./x` is one `git apply` refuses).
pub fn display_path(path: &Path) -> String {
    let s = path.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_directories_sorted_and_skips_git() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::write(root.join(".git/x.yaml"), "a: 1").unwrap();
        std::fs::write(root.join("b/z.yml"), "a: 1").unwrap();
        std::fs::write(root.join("a.yaml"), "a: 1").unwrap();
        std::fs::write(root.join("notes.txt"), "x").unwrap();
        let files = expand(&[root.to_string_lossy().into_owned()], &|_| false).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["a.yaml", "b/z.yml"]);
    }

    #[test]
    fn missing_input_is_an_error_naming_it() {
        let err = expand(&["/nonexistent/x.yaml".into()], &|_| false).unwrap_err();
        assert_eq!(err.path, "/nonexistent/x.yaml");
        assert!(err.to_string().contains("no such file"));
    }

    #[test]
    fn read_all_keeps_input_order_and_reports_the_first_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for i in 0..9 {
            let p = dir.path().join(format!("{i}.yaml"));
            std::fs::write(
                &p,
                format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n"),
            )
            .unwrap();
            paths.push(p);
        }
        let loaded = read_all(&paths).unwrap();
        let names: Vec<_> = loaded
            .iter()
            .map(|l| {
                l.documents[0]
                    .root
                    .at(&crate::source::FieldPath::parse("metadata.name"))
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(names, (0..9).map(|i| format!("c{i}")).collect::<Vec<_>>());
        paths.insert(3, dir.path().join("missing-a.yaml"));
        paths.push(dir.path().join("missing-b.yaml"));
        let err = read_all(&paths).unwrap_err();
        assert!(err.path.ends_with("missing-a.yaml"), "{err}");

        // Streamed: the inputs before the first error reach the sink, in order.
        let mut seen = Vec::new();
        let err = crate::util::parallel::each_pulled(
            paths.iter(),
            &|p| read(p).map(|l| l.source.name.clone()),
            &mut |n| seen.push(n),
        )
        .unwrap_err();
        assert!(err.path.ends_with("missing-a.yaml"), "{err}");
        let names: Vec<_> = seen.iter().map(|n| n.rsplit('/').next().unwrap()).collect();
        assert_eq!(names, ["0.yaml", "1.yaml", "2.yaml"]);
    }

    #[test]
    fn invalid_utf8_is_located() {
        let (text, bad) = decode_checked(b"a: 1\nb: x\xffy\n".to_vec());
        assert!(text.starts_with("a: 1\nb: x"));
        assert_eq!(bad, Some((Pos { line: 2, col: 5 }, 0xff)));
        assert_eq!(decode_checked(b"a: 1".to_vec()).1, None);
    }

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("100M"), Ok(100 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5T").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_walk_skips_what_is_not_a_regular_file_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.yaml"), "a: 1").unwrap();
        std::os::unix::fs::symlink(root.join("missing.yaml"), root.join("dangling.yaml")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join("zero.yaml")).unwrap();
        std::os::unix::fs::symlink(root.join("a.yaml"), root.join("b.yaml")).unwrap();
        let mut notes = Vec::new();
        let files = expand_noting(
            &[root.to_string_lossy().into_owned()],
            &|_| false,
            &mut notes,
        )
        .unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|p| p.file_name().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["a.yaml", "b.yaml"]);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].ends_with("dangling.yaml: dangling symbolic link, skipped"),
            "{notes:?}"
        );
        assert!(
            notes[1].contains("zero.yaml: symbolic link to a character device"),
            "{notes:?}"
        );
    }

    #[test]
    fn bom_and_invalid_utf8_survive() {
        assert_eq!(decode(b"\xef\xbb\xbfa: 1".to_vec()), "a: 1");
        assert!(decode(b"a: \xff".to_vec()).starts_with("a: "));
    }
}
