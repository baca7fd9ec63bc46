//! Shell completion: `completion bash|zsh|fish|powershell` prints clap_complete's script, and
//! kubectl's plugin completion goes through the hidden `__complete` subcommand.
//!
//! kubectl (>= 1.26) completes `kubectl karmada-policy <words>` by running the executable
//! `kubectl_complete-karmada_policy <words...> <word being typed>` found on PATH, and reads
//! Cobra's protocol back: one candidate per line (`value<TAB>description` allowed), then a line
//! `:<directive>`. `completion kubectl-plugin` writes that executable, a two-line shim that
//! calls `kubectl-karmada_policy __complete`, next to the binary (krew installs one binary only).
//!
//! Candidates come from the clap definition (subcommands, flags, possible values), the rule
//! registry (`--explain`), the kubeconfig (`--context`) and, when a kubeconfig works, the live
//! control plane (policy names for `suspend pp/`, namespaces, clusters). A live read that fails
//! or takes over two seconds completes nothing rather than printing an error into the prompt.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args as ClapArgs, CommandFactory, ValueEnum};

use super::common::{write_stdout, CliError, Exit};
use crate::kube::ConnectOptions;
use crate::output::completion::{complete_walked, shim_script, walk, BINARY};
use crate::source::completion::{Kube, LIVE_TIMEOUT};

/// The executable kubectl looks for: `kubectl_complete-` and the plugin name, `-` as `_`.
pub const SHIM_NAME: &str = "kubectl_complete-karmada_policy";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
    /// kubectl's plugin completion: the `kubectl_complete-karmada_policy` shim.
    KubectlPlugin,
}

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Shell to print a completion script for, or `kubectl-plugin` to install the shim.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
    /// kubectl-plugin: print the shim instead of writing it.
    #[arg(long)]
    pub print: bool,
    /// kubectl-plugin: the directory to write the shim into (default: the binary's directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
        Shell::Powershell => clap_complete::Shell::PowerShell,
        Shell::KubectlPlugin => return install_shim(args.print, args.dir),
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
    let dir = match dir {
        Some(d) => d,
        None => std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .ok_or_else(|| CliError::usage("cannot tell the binary's directory: use --dir"))?,
    };
    let path = dir.join(SHIM_NAME);
    write_executable(&path, &shim_script())
        .map_err(|e| CliError::usage(format!("cannot write {}: {e}", path.display())))?;
    write_stdout(&format!("wrote {}\n", path.display()))?;
    Ok(Exit::Ok)
}

fn write_executable(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
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
