//! `completion bash|zsh|fish|powershell` prints clap_complete's script; `completion
//! kubectl-plugin` installs kubectl's plugin completion shim, which calls the hidden
//! `__complete` subcommand ([`run_hidden`]; candidates from `output::completion`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args as ClapArgs, CommandFactory};

use super::common::{write_stdout, CliError, Exit};
use crate::kube::ConnectOptions;
use crate::output::completion::{complete_walked, shim_script, walk, write_shim, Shell, BINARY};
use crate::source::completion::{Kube, LIVE_TIMEOUT};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Shell to print a completion script for, or `kubectl-plugin` to install the shim.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
    /// kubectl-plugin: print the shim instead of writing it.
    #[arg(long)]
    pub print: bool,
    /// kubectl-plugin: the directory for the shim (default: where PATH finds the binary).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    let Some(shell) = args.shell.generator() else {
        return install_shim(args.print, args.dir);
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut super::Cli::command(), BINARY, &mut out);
    write_stdout(&String::from_utf8_lossy(&out))?;
    Ok(Exit::Ok)
}

fn install_shim(print: bool, dir: Option<PathBuf>) -> Result<Exit, CliError> {
    if print {
        write_stdout(&shim_script())?;
        return Ok(Exit::Ok);
    }
    let dir = dir.or_else(crate::output::completion::shim_dir);
    let dir =
        dir.ok_or_else(|| CliError::usage("cannot tell the binary's directory: use --dir"))?;
    let path = write_shim(&dir).map_err(|e| CliError::usage(e.to_string()))?;
    write_stdout(&format!("wrote {}\n", path.display()))?;
    Ok(Exit::Ok)
}

/// Entry point of `__complete WORDS...`: prints the candidates, always exits 0.
pub fn run_hidden(words: &[String]) -> Exit {
    let cmd = super::Cli::command();
    let parsed = walk(&cmd, words);
    let live = Kube {
        opts: ConnectOptions {
            kubeconfig: parsed.value("kubeconfig").map(PathBuf::from),
            context: parsed.value("context").map(str::to_string),
            request_timeout: Some(LIVE_TIMEOUT),
        },
    };
    let completion = complete_walked(&parsed, &live);
    let _ = write_stdout(&completion.render());
    let _ = writeln!(
        std::io::stderr(),
        "Completion ended with directive: {}",
        completion.directive
    );
    Exit::Ok
}
