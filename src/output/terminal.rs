//! Where output goes: stdout (a closed pipe is success), output files, and whether stdout is
//! coloured (`--color`, `NO_COLOR`, `CLICOLOR_FORCE`, a terminal).

use std::io::{self, IsTerminal, Write};

/// Writes to stdout, treating a closed pipe as success (so `| head` never panics).
pub fn write_stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e),
    }
}

/// Why an output could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Stdout(#[from] io::Error),
    /// An output file (`-o FORMAT=FILE`).
    #[error("{path}: cannot write: {source}")]
    File {
        path: String,
        #[source]
        source: io::Error,
    },
}

impl WriteError {
    /// Whether the reader went away (`| head`): how a pipe ends a command, not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        let (WriteError::Stdout(e) | WriteError::File { source: e, .. }) = self;
        e.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Writes `text` to the file `path` names, or to stdout when there is none.
pub fn write_to(path: Option<&str>, text: &str) -> Result<(), WriteError> {
    match path {
        None => Ok(write_stdout(text)?),
        Some(p) => std::fs::write(p, text).map_err(|source| WriteError::File {
            path: p.to_string(),
            source,
        }),
    }
}

/// Asks `question` on stderr and reads the answer from stdin: `y` or `yes` (any case of the
/// usual spellings) is yes. Without a terminal on stdin nothing is asked (`None`).
pub fn ask(question: &str) -> io::Result<Option<bool>> {
    if !io::stdin().is_terminal() {
        return Ok(None);
    }
    let mut e = io::stderr().lock();
    let _ = write!(e, "{question}");
    let _ = e.flush();
    let mut line = String::new();
    io::stdin().read_line(&mut line)?;
    Ok(Some(matches!(
        line.trim(),
        "y" | "Y" | "yes" | "YES" | "Yes"
    )))
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
