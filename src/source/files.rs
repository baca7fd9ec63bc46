//! Files, directories and stdin.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::document::Source;
use super::yaml::{load, Loaded};

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
pub fn expand(
    inputs: &[String],
    ignore: &dyn Fn(&Path) -> bool,
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
            walk(&path, &mut files, ignore).map_err(|e| ReadError {
                path: input.clone(),
                source: e,
            })?;
        } else if !ignore(&path) {
            files.push(path);
        }
    }
    Ok(files)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, ignore: &dyn Fn(&Path) -> bool) -> std::io::Result<()> {
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
            walk(&path, out, ignore)?;
        } else if is_manifest_name(&name) {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether a file name looks like a manifest we should read when walking a directory.
pub fn is_manifest_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml") || lower.ends_with(".json")
}

/// Reads and parses one input (`-` is stdin).
pub fn read(path: &Path) -> Result<Loaded, ReadError> {
    if path == Path::new("-") {
        let (name, text) = read_text(path)?;
        return Ok(load(Source::new(name, text)));
    }
    // Taken before the text: a change while reading then shows as a later modification.
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let (name, text) = read_text(path)?;
    Ok(load(Source::from_file(name, text, path, modified)))
}

/// The name an input is shown by and its text, decoded (`-` is stdin, named `<stdin>`).
pub fn read_text(path: &Path) -> Result<(String, String), ReadError> {
    let (name, bytes) = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| ReadError {
                path: "<stdin>".into(),
                source: e,
            })?;
        ("<stdin>".to_string(), buf)
    } else {
        let name = display_path(path);
        let bytes = std::fs::read(path).map_err(|e| ReadError {
            path: name.clone(),
            source: e,
        })?;
        (name, bytes)
    };
    Ok((name, decode(bytes)))
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

/// Like [`read_all_with`], but each file's result goes to `sink` on the calling thread, in
/// input order, as soon as it and every file before it are done: the caller can fold the
/// results into one while the other files are still being parsed, instead of holding them all
/// and then a merged copy. On an error, the first input's is returned (`sink` has seen the
/// inputs before it).
pub fn read_each_with<T: Send>(
    paths: &[PathBuf],
    then: &(dyn Fn(Loaded) -> T + Sync),
    sink: &mut dyn FnMut(T),
) -> Result<(), ReadError> {
    in_parallel_each(paths, &|path| read(path).map(then), sink)
}

/// `each` over every input on all cores (std threads, no thread pool crate: each worker takes
/// the next input), since reading and parsing is most of a large run's time. Results come back
/// in input order; on several errors the first input's is returned, as a sequential run would.
pub fn in_parallel<T: Send>(
    paths: &[PathBuf],
    each: &(dyn Fn(&Path) -> Result<T, ReadError> + Sync),
) -> Result<Vec<T>, ReadError> {
    let mut results = Vec::with_capacity(paths.len());
    in_parallel_each(paths, each, &mut |r| results.push(r))?;
    Ok(results)
}

/// [`in_parallel`], handing each result to `sink` (on the calling thread, in input order) as
/// soon as the results before it are in.
fn in_parallel_each<T: Send>(
    paths: &[PathBuf],
    each: &(dyn Fn(&Path) -> Result<T, ReadError> + Sync),
    sink: &mut dyn FnMut(T),
) -> Result<(), ReadError> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len());
    if workers <= 1 {
        for path in paths {
            sink(each(path)?);
        }
        return Ok(());
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (done, results) = std::sync::mpsc::channel::<(usize, Result<T, ReadError>)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let done = done.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                use std::sync::atomic::Ordering::Relaxed;
                while !stop.load(Relaxed) {
                    let i = next.fetch_add(1, Relaxed);
                    let Some(path) = paths.get(i) else { break };
                    if done.send((i, each(path))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        // Results that came in before an earlier one, by input index.
        let mut waiting = std::collections::BTreeMap::new();
        let mut expected = 0;
        for (i, result) in results.iter() {
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&expected) {
                expected += 1;
                match result {
                    Ok(t) => sink(t),
                    Err(e) => {
                        // Later inputs no longer matter: let the workers stop.
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
        }
        Ok(())
    })
}

/// Text from bytes: a UTF-8 BOM is dropped; invalid UTF-8 is replaced rather than rejected, so
/// one odd byte yields a finding on that line instead of losing the file.
pub fn decode(bytes: Vec<u8>) -> String {
    let text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

fn display_path(path: &Path) -> String {
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
        let err =
            read_each_with(&paths, &|l| l.source.name.clone(), &mut |n| seen.push(n)).unwrap_err();
        assert!(err.path.ends_with("missing-a.yaml"), "{err}");
        let names: Vec<_> = seen.iter().map(|n| n.rsplit('/').next().unwrap()).collect();
        assert_eq!(names, ["0.yaml", "1.yaml", "2.yaml"]);
    }

    #[test]
    fn bom_and_invalid_utf8_survive() {
        assert_eq!(decode(b"\xef\xbb\xbfa: 1".to_vec()), "a: 1");
        assert!(decode(b"a: \xff".to_vec()).starts_with("a: "));
    }
}
