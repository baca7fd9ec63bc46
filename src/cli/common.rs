//! What every subcommand shares: loading inputs, writing stdout, colour.

use std::io::{self, IsTerminal, Write};

pub use crate::model::inputs::{read_inputs, warn_problems, Inputs};

// Moved to `error.rs`; re-exported while `suspend` still imports them from here.
pub use super::error::{CliError, Exit};

/// `-f` over a GitOps repository: its environments rendered (only `--env`'s), their notes and
/// warnings printed; `None` for plain manifests (or rendering off in the configuration).
pub fn environments(
    files: &[String],
    namespace: &str,
    env: Option<&str>,
) -> Result<Option<crate::model::environments::EnvInputs>, CliError> {
    use crate::model::environments::{read_environments, repository_files};
    let rendering = match repository_files(files)? {
        Some(f) => crate::lint::Config::rendering_here()?.map(|opts| (f, opts)),
        None => None,
    };
    let Some((files, opts)) = rendering else {
        return match env {
            Some(_) => Err(CliError::usage(
                "--env picks an environment of a GitOps repository (kustomizations, charts), and the inputs hold none",
            )),
            None => Ok(None),
        };
    };
    let envs = read_environments(&files, namespace, &opts, env)?;
    envs.warn();
    Ok(Some(envs))
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
