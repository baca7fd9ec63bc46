//! What every subcommand shares: loading inputs, writing stdout, colour.

use std::io::{self, IsTerminal, Write};

use crate::model::Inventory;
use crate::source::prefilter::{self, DocHead, Skipped};
use crate::source::{files, Document, Loaded};

// Moved to `error.rs`; re-exported while `suspend` still imports them from here.
pub use super::error::{CliError, Exit};

/// Writes to stdout, treating a closed pipe as success (so `| head` never panics).
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// `--color`: when stdout is coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set; `CLICOLOR_FORCE` forces colour.
    #[default]
    Auto,
    Always,
    Never,
}

/// The process's `--color`, set once by `cli::main` before any command runs.
static COLOR: std::sync::OnceLock<ColorChoice> = std::sync::OnceLock::new();

pub fn set_color(choice: ColorChoice) {
    let _ = COLOR.set(choice);
}

/// A set, non-empty variable (the no-color.org and bixense.com/clicolors conventions).
fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Colour on stdout: `--color=always|never` decide; `auto` colours a terminal unless
/// `NO_COLOR` is set, and `CLICOLOR_FORCE` colours even a pipe.
pub fn stdout_color() -> bool {
    decide_color(
        COLOR.get().copied().unwrap_or_default(),
        env_set("NO_COLOR"),
        env_set("CLICOLOR_FORCE"),
        io::stdout().is_terminal(),
    )
}

fn decide_color(choice: ColorChoice, no_color: bool, force: bool, terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if force => true,
        ColorChoice::Auto => !no_color && terminal,
    }
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
        let files = files::expand(paths, ignore)?;
        let mut loaded = files::read_all(&files)?;
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
        let files = files::expand(paths, ignore)?;
        let read = prefilter::read_all_filtered(&files, keep)?;
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

/// Reads the inputs and reports on stderr what could not be read (the decision would ignore it).
pub fn read_inputs(files: &[String], namespace: &str) -> Result<Inventory, CliError> {
    let inputs = Inputs::read(files, namespace, &|_| false)?;
    warn_problems(&inputs.loaded);
    Ok(inputs.inventory)
}

/// Prints on stderr what could not be read (the decision ignores it).
pub fn warn_problems(loaded: &[Loaded]) {
    for l in loaded {
        for p in &l.problems {
            eprintln!(
                "warning: {}:{}:{}: {}",
                l.source.name, p.span.start.line, p.span.start.col, p.message
            );
        }
    }
}

#[cfg(test)]
mod color_tests {
    use super::{decide_color, ColorChoice::*};

    #[test]
    fn color_flag_then_clicolor_force_then_no_color_and_terminal() {
        assert!(decide_color(Always, true, false, false));
        assert!(!decide_color(Never, false, true, true));
        assert!(decide_color(Auto, false, true, false));
        assert!(decide_color(Auto, false, false, true));
        assert!(!decide_color(Auto, true, false, true));
        assert!(!decide_color(Auto, false, false, false));
    }
}
