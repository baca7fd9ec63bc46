//! Man pages: one per command (clap_mangen), from the same definition as `--help`, written at
//! release time by scripts/release-assets.sh through the hidden `man --out-dir DIR`.

use std::io;
use std::path::{Path, PathBuf};

/// Page name of a command path: `kubectl-karmada_policy`, `kubectl-karmada_policy-lint`, ...
fn page_name(path: &[&str]) -> String {
    path.join("-")
}

/// Writes the page of `root` and of each visible subcommand into `dir` (created if missing);
/// returns the files written.
pub fn write_pages(root: &clap::Command, dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let name = root.get_name().to_string();
    write_page_tree(root, &mut vec![name.as_str()], dir, &mut written)?;
    Ok(written)
}

fn write_page_tree<'a>(
    cmd: &'a clap::Command,
    path: &mut Vec<&'a str>,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> io::Result<()> {
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
        write_page_tree(sub, path, dir, written)?;
        path.pop();
    }
    Ok(())
}
