//! Hidden `man --out-dir DIR`: one man page per command (clap_mangen), written at release time
//! by scripts/release-assets.sh from the same definition as `--help`.

use std::path::{Path, PathBuf};

use clap::{Args as ClapArgs, CommandFactory};

use super::common::{write_stdout, CliError, Exit};

#[derive(Debug, ClapArgs)]
pub struct Args {
    /// Directory for the pages (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
}

/// Page name of a command path: `kubectl-karmada_policy`, `kubectl-karmada_policy-lint`, ...
fn page_name(path: &[&str]) -> String {
    path.join("-")
}

pub fn run(args: Args) -> Result<Exit, CliError> {
    std::fs::create_dir_all(&args.out_dir)?;
    let root = super::Cli::command().bin_name("kubectl-karmada_policy");
    let mut written = Vec::new();
    write_pages(
        &root,
        &mut vec!["kubectl-karmada_policy"],
        &args.out_dir,
        &mut written,
    )?;
    let mut listing = String::new();
    for p in &written {
        listing.push_str(&format!("{}\n", p.display()));
    }
    write_stdout(&listing)?;
    Ok(Exit::Ok)
}

fn write_pages<'a>(
    cmd: &'a clap::Command,
    path: &mut Vec<&'a str>,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> Result<(), CliError> {
    // clap names commands with &'static str (no `string` feature); this runs once per page
    // in a short-lived release step, so leaking the few names is harmless.
    let name: &'static str = Box::leak(page_name(path).into_boxed_str());
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone().name(name))
        .title(name)
        .section("1")
        .render(&mut page)?;
    let file = dir.join(format!("{name}.1"));
    std::fs::write(&file, page)?;
    written.push(file);
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        path.push(sub.get_name());
        write_pages(sub, path, dir, written)?;
        path.pop();
    }
    Ok(())
}
