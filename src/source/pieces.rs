//! Large inputs read in pieces. A file larger than [`WHOLE_MAX`], and stdin, are cut at document
//! markers (`---` at the start of a line) into pieces of about [`PIECE_BYTES`], read one after the
//! other and handed out as they are read: each is parsed on whichever thread takes it, with its
//! lines numbered as in the whole input, so one large file streams through `lint` as a directory
//! of small files does, and is never held whole. (A parse tree costs about twenty times its
//! text: a 68 MB file read whole took 3 GB.)
//!
//! Cutting at markers changes nothing the parser sees: a YAML document cannot span a `---` line
//! (it ends a block scalar, and is forbidden inside a multi-line flow or quoted scalar), anchors
//! are local to their document, and the loader already parses document by document after a
//! syntax error. A marker right after a directive line (`%YAML`) is not cut at, so the directive
//! stays with its document. Smaller files are read whole by the thread that parses them.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use super::document::{Offset, PieceFile, Pos, Source};
use super::files::{self, ReadError};
use super::yaml::{load, Loaded};

/// About how many bytes a piece holds: it ends at the first document marker from here on
/// (a single document larger than this is one piece).
pub const PIECE_BYTES: usize = 128 << 10;

/// Files up to this size are read whole; larger ones, and anything that is not a regular file
/// (stdin, a FIFO), in pieces.
pub const WHOLE_MAX: u64 = 1 << 20;

/// Like [`files::read_all_with`], but each result goes to `sink` on the calling thread, in input
/// order, as soon as it and every result before it are done: the caller can fold the results
/// into one while the rest are still being parsed, instead of holding them all and then a
/// merged copy. A large file and stdin come in pieces: several results for one input, a later
/// one's source [continuing](Source::continues) the one before, so no input is held whole. On
/// an error, the first input's is returned (`sink` has seen what came before it).
pub fn read_each_with<T: Send>(
    paths: &[PathBuf],
    then: &(dyn Fn(Loaded) -> T + Sync),
    sink: &mut dyn FnMut(T),
) -> Result<(), ReadError> {
    crate::util::parallel::each_pulled(Inputs::new(paths), &|job| job?.load().map(then), sink)
}

/// One unit of reading and parsing: a file read whole by the thread that parses it, or a piece
/// already read.
pub enum Job {
    Whole(PathBuf),
    Piece(Piece),
}

impl Job {
    /// Reads (a whole file) and parses.
    pub fn load(self) -> Result<Loaded, ReadError> {
        match self {
            Job::Whole(path) => files::read(&path),
            Job::Piece(piece) => Ok(piece.load()),
        }
    }
}

/// A piece of a large input, read and decoded, not parsed yet.
pub struct Piece {
    name: String,
    text: String,
    at: Offset,
    /// The file it was read from (to read lines back), when a regular file or spooled stdin.
    file: Option<PieceFile>,
    /// The input's first invalid UTF-8 byte, when it is in this piece.
    bad: Option<(Pos, u8)>,
}

impl Piece {
    /// Parses the piece: positions are the input's, and a later piece's source
    /// [continues](Source::continues) the one before.
    pub fn load(self) -> Loaded {
        let source = Source::piece(self.name, self.text, self.at, self.file);
        files::with_utf8_problem(load(source), self.bad)
    }
}

/// The inputs `paths` name (`-` is stdin) as units of reading, in order: small files whole,
/// large ones and stdin piece by piece, each piece read as the iterator reaches it. An input
/// that cannot be opened or read, or is larger than [`files::max_input_size`], is an error in
/// its place.
pub struct Inputs<'a> {
    paths: std::slice::Iter<'a, PathBuf>,
    reading: Option<Pieces>,
}

impl<'a> Inputs<'a> {
    pub fn new(paths: &'a [PathBuf]) -> Inputs<'a> {
        Inputs {
            paths: paths.iter(),
            reading: None,
        }
    }
}

impl Iterator for Inputs<'_> {
    type Item = Result<Job, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(pieces) = &mut self.reading {
                match pieces.next_piece() {
                    Ok(Some(piece)) => return Some(Ok(Job::Piece(piece))),
                    Ok(None) => self.reading = None,
                    Err(e) => {
                        self.reading = None;
                        return Some(Err(e));
                    }
                }
            }
            let path = self.paths.next()?;
            match Pieces::open(path) {
                Ok(Some(pieces)) => self.reading = Some(pieces),
                Ok(None) => return Some(Ok(Job::Whole(path.clone()))),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// One input being read in pieces.
struct Pieces {
    name: String,
    /// A regular file: its path and modification time (taken before reading).
    file: Option<(PathBuf, Option<SystemTime>)>,
    /// Stdin written to an unnamed temporary file: a handle for the sources to read it again.
    spool: Option<Arc<std::fs::File>>,
    reader: Box<dyn Read + Send>,
    /// Read and not handed out yet.
    buf: Vec<u8>,
    /// Where in `buf` the search for a marker goes on.
    scanned: usize,
    eof: bool,
    /// Bytes read so far (for the input limit).
    read: u64,
    /// Where the next piece starts.
    at: Offset,
    /// Whether a piece was handed out (an empty input is one empty piece).
    given: bool,
    /// Whether an invalid UTF-8 byte was found already (only the first is reported).
    bad_seen: bool,
}

impl Pieces {
    /// `path` to be read in pieces, or `None` for a file small enough to read whole.
    fn open(path: &Path) -> Result<Option<Pieces>, ReadError> {
        if path == Path::new("-") {
            return Pieces::stdin().map(Some);
        }
        let name = files::display_path(path);
        let error = |source| ReadError {
            path: name.clone(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(error)?;
        if meta.is_file() && meta.len() <= WHOLE_MAX {
            return Ok(None);
        }
        // Refused before any of it is read, as a file read whole would be.
        if meta.is_file() && meta.len() > files::max_input_size() {
            return Err(files::too_large(&name));
        }
        if !meta.is_file() {
            // A FIFO or a device gives its content once: read whole (up to the input limit),
            // and kept for the run's other readings of it and the lines a report prints
            // (`files::read_bytes`).
            let (_, bytes) = files::read_bytes(path)?;
            return Ok(Some(Pieces::of(
                name,
                None,
                Box::new(std::io::Cursor::new(bytes)),
            )));
        }
        let modified = meta.modified().ok();
        let file = std::fs::File::open(path).map_err(error)?;
        Ok(Some(Pieces::of(
            name,
            Some((path.to_path_buf(), modified)),
            Box::new(file),
        )))
    }

    /// Stdin, written to an unnamed temporary file first and read from there as a large file
    /// is, so that its pieces let their text go and a report reads its lines back (`kubectl
    /// kustomize | lint -` then takes no more memory than `lint FILE`). Where no such file can
    /// be made (or read at an offset: not on Unix), stdin is read in pieces that keep their text.
    fn stdin() -> Result<Pieces, ReadError> {
        const NAME: &str = "<stdin>";
        let error = |source| ReadError {
            path: NAME.into(),
            source,
        };
        let spool = cfg!(unix)
            .then(tempfile::tempfile)
            .and_then(Result::ok)
            .and_then(|f| Some((f.try_clone().ok()?, f)));
        let Some((mut writer, spool)) = spool else {
            return Ok(Pieces::of(NAME.into(), None, Box::new(std::io::stdin())));
        };
        let limit = files::max_input_size();
        let copied = std::io::copy(&mut std::io::stdin().lock().take(limit + 1), &mut writer)
            .map_err(error)?;
        if copied > limit {
            return Err(files::too_large(NAME));
        }
        use std::io::Seek;
        writer.rewind().map_err(error)?;
        let mut pieces = Pieces::of(
            NAME.into(),
            Some((PathBuf::from(NAME), None)),
            Box::new(writer),
        );
        pieces.spool = Some(Arc::new(spool));
        Ok(pieces)
    }

    fn of(
        name: String,
        file: Option<(PathBuf, Option<SystemTime>)>,
        reader: Box<dyn Read + Send>,
    ) -> Pieces {
        Pieces {
            name,
            file,
            spool: None,
            reader,
            buf: Vec::new(),
            scanned: 0,
            eof: false,
            read: 0,
            at: Offset::default(),
            given: false,
            bad_seen: false,
        }
    }

    /// The next piece, `None` after the last.
    fn next_piece(&mut self) -> Result<Option<Piece>, ReadError> {
        loop {
            if let Some(end) = self.cut() {
                return Ok(Some(self.take(end)));
            }
            if self.eof {
                if self.buf.is_empty() && self.given {
                    return Ok(None);
                }
                return Ok(Some(self.take(self.buf.len())));
            }
            self.fill()?;
        }
    }

    /// Reads up to [`PIECE_BYTES`] more, stopping at the input limit.
    fn fill(&mut self) -> Result<(), ReadError> {
        let want = PIECE_BYTES as u64;
        let n = (&mut self.reader)
            .take(want)
            .read_to_end(&mut self.buf)
            .map_err(|source| ReadError {
                path: self.name.clone(),
                source,
            })?;
        self.eof = (n as u64) < want;
        self.read += n as u64;
        if self.read > files::max_input_size() {
            return Err(files::too_large(&self.name));
        }
        Ok(())
    }

    /// Where the piece ends: just before the first document marker at or after
    /// [`PIECE_BYTES`] (`None`: not in what was read so far).
    fn cut(&mut self) -> Option<usize> {
        const MARKER: &[u8] = b"\n---";
        let from = self.scanned.max(PIECE_BYTES - 1);
        if self.buf.len() <= from {
            return None;
        }
        let mut search = from;
        while let Some(i) = memchr::memmem::find(&self.buf[search..], MARKER).map(|i| i + search) {
            match self.buf.get(i + MARKER.len()) {
                // What follows decides: read on.
                None if !self.eof => {
                    self.scanned = i;
                    return None;
                }
                None | Some(b' ' | b'\t' | b'\r' | b'\n') if !self.directive_ends_at(i) => {
                    return Some(i + 1);
                }
                _ => search = i + 1,
            }
        }
        // A marker may begin in the last bytes and end in the next read.
        self.scanned = self.buf.len().saturating_sub(MARKER.len() - 1).max(from);
        None
    }

    /// Whether the line ending at `newline` is a directive (`%YAML`, `%TAG`), which belongs to
    /// the document after it.
    fn directive_ends_at(&self, newline: usize) -> bool {
        let start = memchr::memrchr(b'\n', &self.buf[..newline]).map_or(0, |i| i + 1);
        self.buf.get(start) == Some(&b'%')
    }

    /// Hands out `buf[..end]` as the next piece.
    fn take(&mut self, end: usize) -> Piece {
        let bytes = self.buf[..end].to_vec();
        self.buf.drain(..end);
        self.scanned = 0;
        let at = self.at;
        self.at.lines += memchr::memchr_iter(b'\n', &bytes).count() as u32;
        self.at.bytes += bytes.len() as u64;
        self.given = true;
        let raw_len = bytes.len() as u64;
        let (text, bad) = files::decode_checked(bytes);
        let bad = bad.filter(|_| !self.bad_seen).map(|(pos, byte)| {
            let line = pos.line + at.lines;
            (Pos { line, ..pos }, byte)
        });
        self.bad_seen |= bad.is_some();
        Piece {
            name: self.name.clone(),
            text,
            at,
            file: self.file.clone().map(|(path, modified)| PieceFile {
                path,
                modified,
                bytes: raw_len,
                spool: self.spool.clone(),
            }),
            bad,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces of `text` read through a reader that gives at most `chunk` bytes per read.
    fn pieces_of(text: &[u8]) -> Vec<Piece> {
        let mut p = Pieces::of(
            "t".into(),
            None,
            Box::new(std::io::Cursor::new(text.to_vec())),
        );
        std::iter::from_fn(|| p.next_piece().unwrap()).collect()
    }

    fn documents(n: usize, size: usize) -> String {
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!(
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\ndata: {{k: {}}}\n",
                "v".repeat(size)
            ));
        }
        text
    }

    #[test]
    fn pieces_cut_at_markers_and_join_back_to_the_input() {
        let text = documents(4000, 200);
        let pieces = pieces_of(text.as_bytes());
        assert!(pieces.len() > 2, "{}", pieces.len());
        let mut lines = 0;
        let mut bytes = 0;
        for p in &pieces {
            assert!(p.text.starts_with("---\n"), "cut at a marker");
            assert!(p.text.len() >= PIECE_BYTES || std::ptr::eq(p, pieces.last().unwrap()));
            assert_eq!((p.at.lines, p.at.bytes), (lines, bytes));
            lines += p.text.matches('\n').count() as u32;
            bytes += p.text.len() as u64;
        }
        let joined: String = pieces.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(joined, text);
    }

    #[test]
    fn a_piece_numbers_lines_as_the_whole_input() {
        let text = documents(3000, 100);
        let whole = load(Source::new("t", text.clone()));
        let mut docs = Vec::new();
        let mut problems = 0;
        for p in pieces_of(text.as_bytes()) {
            let loaded = p.load();
            problems += loaded.problems.len();
            for d in &loaded.documents {
                // Lines the source gives by their numbers in the input.
                let line = d.root.span.start.line;
                assert_eq!(d.source.line(line), whole.source.line(line), "line {line}");
            }
            docs.extend(loaded.documents.into_iter().map(|d| d.root));
        }
        assert_eq!(problems, 0);
        let roots: Vec<_> = whole.documents.into_iter().map(|d| d.root).collect();
        assert_eq!(docs, roots);
    }

    #[test]
    fn not_a_marker_not_cut() {
        // `---x` and `--- ` inside a block scalar's indentation are no markers; a directive
        // stays with its document.
        let mut text = String::from("a: |\n  text\n");
        text.push_str(&"b: ---x\n".repeat(PIECE_BYTES / 8));
        text.push_str("---x: 1\n   --- \n%YAML 1.2\n---\nc: 1\n---\nd: 2\n");
        let pieces = pieces_of(text.as_bytes());
        assert_eq!(pieces.len(), 2);
        assert!(pieces[0].text.ends_with("%YAML 1.2\n---\nc: 1\n"));
        assert_eq!(pieces[1].text, "---\nd: 2\n");
    }

    #[test]
    fn empty_input_is_one_empty_piece_and_utf8_is_reported_once() {
        let pieces = pieces_of(b"");
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].text, "");
        let mut text = documents(2000, 200).into_bytes();
        let second = text.len() - 10;
        text[second] = 0xff;
        text[20] = 0xfe;
        let pieces = pieces_of(&text);
        let bad: Vec<_> = pieces.iter().filter_map(|p| p.bad).collect();
        assert_eq!(bad.len(), 1, "the first only");
        assert_eq!((bad[0].0.line, bad[0].1), (3, 0xfe));
    }
}
