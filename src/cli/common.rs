//! What every subcommand shares: exit codes, errors, loading inputs, colour.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use crate::lint::Finding;
use crate::model::Inventory;
use crate::source::prefilter::{self, DocHead, Skipped};
use crate::source::{files, Document, Loaded};

/// The documented exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Failure = 1,
    Usage = 2,
    Api = 3,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e as u8)
    }
}

/// An error that ends a command, with the exit code it maps to.
#[derive(Debug)]
pub struct CliError {
    pub exit: Exit,
    pub message: String,
}

impl CliError {
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError {
            exit: Exit::Usage,
            message: message.into(),
        }
    }

    pub fn api(message: impl Into<String>) -> CliError {
        CliError {
            exit: Exit::Api,
            message: message.into(),
        }
    }

    pub fn failure(message: impl Into<String>) -> CliError {
        CliError {
            exit: Exit::Failure,
            message: message.into(),
        }
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> CliError {
        CliError {
            exit: Exit::Usage,
            message: e.to_string(),
        }
    }
}

/// Prints the error and returns its exit code. A closed stdout (`| head`) is not an error.
pub fn report_error(err: &CliError) -> ExitCode {
    if err.message.contains("Broken pipe") {
        return Exit::Ok.into();
    }
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "error: {}", err.message);
    err.exit.into()
}

/// Writes to stdout, treating a closed pipe as success (so `| head` never panics).
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Colour on stdout: only on a terminal, never with `NO_COLOR` set (any value but empty).
pub fn stdout_color() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !no_color && io::stdout().is_terminal()
}

/// Everything read from the inputs: the parsed sources with their problems, and the inventory.
pub struct Inputs {
    pub loaded: Vec<Loaded>,
    pub inventory: Inventory,
}

impl Inputs {
    /// Reads files, directories and `-`; an unreadable input is a usage error (exit 2), a
    /// document that does not parse is kept as a problem for the caller to report.
    pub fn read(
        paths: &[String],
        default_namespace: &str,
        ignore: &dyn Fn(&std::path::Path) -> bool,
    ) -> Result<Inputs, CliError> {
        if paths.is_empty() {
            return Err(CliError::usage(
                "no input: name files or directories, or `-` for stdin",
            ));
        }
        let files = files::expand(paths, ignore).map_err(|e| CliError::usage(e.to_string()))?;
        let mut loaded = files::read_all(&files).map_err(|e| CliError::usage(e.to_string()))?;
        let documents: Vec<Document> = loaded
            .iter_mut()
            .flat_map(|l| std::mem::take(&mut l.documents))
            .collect();
        let inventory = Inventory::from_documents(documents, default_namespace);
        Ok(Inputs { loaded, inventory })
    }

    /// As [`Inputs::read`], but documents whose head (`apiVersion`, `kind`, `metadata.name`
    /// read without parsing, see `source::prefilter`) `keep` refuses are never parsed: they
    /// are neither in the inventory nor in the problems. Returns their `(apiVersion, kind)` too.
    pub fn read_filtered(
        paths: &[String],
        default_namespace: &str,
        ignore: &dyn Fn(&std::path::Path) -> bool,
        keep: &(dyn Fn(&DocHead<'_>) -> bool + Sync),
    ) -> Result<(Inputs, Vec<Skipped>), CliError> {
        if paths.is_empty() {
            return Err(CliError::usage(
                "no input: name files or directories, or `-` for stdin",
            ));
        }
        let files = files::expand(paths, ignore).map_err(|e| CliError::usage(e.to_string()))?;
        let read = prefilter::read_all_filtered(&files, keep)
            .map_err(|e| CliError::usage(e.to_string()))?;
        let mut skipped = Vec::new();
        let mut loaded = Vec::with_capacity(read.len());
        for (l, s) in read {
            loaded.push(l);
            skipped.extend(s);
        }
        let documents: Vec<Document> = loaded
            .iter_mut()
            .flat_map(|l| std::mem::take(&mut l.documents))
            .collect();
        let inventory = Inventory::from_documents(documents, default_namespace);
        Ok((Inputs { loaded, inventory }, skipped))
    }
}

/// Findings for what was wrong with the text of the inputs (syntax, duplicates, templating).
pub fn load_findings(loaded: &[Loaded]) -> Vec<Finding> {
    crate::lint::rules::input::findings(loaded)
}
