//! Man pages: one per command, from the same definition as `--help`, written at release time by
//! scripts/release-assets.sh through the hidden `man --out-dir DIR`.
//!
//! Sections in man-pages(7)'s order: NAME, SYNOPSIS (as users type it: `kubectl
//! karmada-policy suspend ...`), DESCRIPTION (with the help's own sections after the options,
//! such as Policies and Freeze), OPTIONS, COMMANDS (the root page), EXIT STATUS (the table of
//! `help::EXIT_CODES`), EXAMPLES (the help's examples) and SEE ALSO. clap_mangen renders the
//! title, name, synopsis, description, options and commands; the rest is written here with its
//! roff builder.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use roff::{bold, roman, Roff};

/// The command as typed: `kubectl karmada-policy` and the subcommand.
const TYPED: &str = "kubectl karmada-policy";

/// Page name of a command path: `kubectl-karmada_policy`, `kubectl-karmada_policy-lint`, ...
fn page_name(path: &[&str]) -> String {
    path.join("-")
}

/// Writes the page of `root` and of each visible subcommand into `dir` (created if missing);
/// returns the files written.
pub fn write_pages(root: &clap::Command, dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let root_name = root.get_name().to_string();
    let subcommands: Vec<&clap::Command> = root
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .collect();
    let mut pages: Vec<(String, Option<&clap::Command>)> = vec![(root_name.clone(), None)];
    for sub in &subcommands {
        pages.push((page_name(&[&root_name, sub.get_name()]), Some(sub)));
    }
    let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    let mut written = Vec::new();
    for (name, sub) in &pages {
        let cmd = sub.unwrap_or(root);
        let page = render_page(cmd, name, sub.map(|s| s.get_name()), &names)?;
        let file = dir.join(format!("{name}.1"));
        std::fs::write(&file, page)?;
        written.push(file);
    }
    Ok(written)
}

/// One page: `name` is the page's name, `sub` the subcommand (`None`: the root command),
/// `pages` every page's name (for SEE ALSO).
fn render_page(
    cmd: &clap::Command,
    name: &str,
    sub: Option<&str>,
    pages: &[&str],
) -> io::Result<Vec<u8>> {
    let typed = match sub {
        Some(s) => format!("{TYPED} {s}"),
        None => TYPED.to_string(),
    };
    // clap names commands with &'static str (no `string` feature); this runs once per page in
    // a short-lived release step, so leaking the few names is harmless.
    let name_static: &'static str = Box::leak(name.to_string().into_boxed_str());
    let typed_static: &'static str = Box::leak(typed.into_boxed_str());
    let cmd = cmd
        .clone()
        .name(name_static)
        .bin_name(typed_static)
        // The sections below replace the help's layout (examples first, exit codes last).
        .before_help("")
        .after_help("");
    let man = clap_mangen::Man::new(cmd.clone()).title(name).section("1");
    let (sections, examples) = help_parts(sub);
    let root_examples = sub.is_none().then(root_examples);
    let examples = examples.or(root_examples.as_deref());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    page.write_all(description_sections(sections).to_roff().as_bytes())?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut page)?;
    }
    let mut rest = Roff::new();
    exit_status(&mut rest, sub);
    if let Some(examples) = examples {
        examples_section(&mut rest, examples);
    }
    see_also(&mut rest, name, pages);
    page.write_all(rest.to_roff().as_bytes())?;
    Ok(page)
}

/// The root page's examples: the first of each subcommand's.
fn root_examples() -> String {
    let mut out = String::from("Examples:\n");
    for sub in ["lint", "explain", "preempt-check", "suspend", "resume"] {
        if let (_, Some(examples)) = help_parts(Some(sub)) {
            let mut lines = examples.lines().skip(1);
            let comment = lines.next().unwrap_or("");
            let command: Vec<&str> = lines
                .take_while(|l| !l.trim_start().starts_with('#'))
                .take(1)
                .collect();
            out.push_str(&format!("{comment}\n{}\n", command.join("\n")));
        }
    }
    out
}

/// The help's own sections after the options (without the exit codes) and its examples.
fn help_parts(sub: Option<&str>) -> (&'static str, Option<&'static str>) {
    use super::help;
    match sub {
        Some("lint") => (help::LINT_AFTER_HELP, Some(help::LINT_EXAMPLES)),
        Some("explain") => ("", Some(help::EXPLAIN_EXAMPLES)),
        Some("preempt-check") => ("", Some(help::PREEMPT_CHECK_EXAMPLES)),
        Some("plan") => (help::PLAN_AFTER_HELP, Some(help::PLAN_EXAMPLES)),
        Some("suspend") => (help::SUSPEND_AFTER_HELP, Some(help::SUSPEND_EXAMPLES)),
        Some("resume") => (help::RESUME_AFTER_HELP, Some(help::RESUME_EXAMPLES)),
        Some("completion") => ("", Some(help::COMPLETION_EXAMPLES)),
        Some("version") => ("", Some(help::VERSION_EXAMPLES)),
        _ => ("", None),
    }
}

/// The help's sections as subsections of DESCRIPTION: a paragraph opening with `Word:` (or a
/// line `Word:` alone) is headed by that word; indented lines keep their layout.
fn description_sections(text: &str) -> Roff {
    let mut roff = Roff::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let (head, body) = match block.split_once(':') {
            Some((h, b)) if h.len() <= 24 && h.chars().all(|c| c.is_alphabetic() || c == ' ') => {
                (h, b)
            }
            _ => ("", block),
        };
        if !head.is_empty() {
            roff.control("SS", [head]);
        }
        let lines: Vec<&str> = body.lines().map(str::trim_end).collect();
        if lines.iter().any(|l| l.starts_with("  ")) {
            roff.control("nf", []);
            for l in lines.iter().filter(|l| !l.trim().is_empty()) {
                roff.text([roman(l.trim_start())]);
            }
            roff.control("fi", []);
        } else {
            roff.control("PP", []);
            let joined: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
            roff.text([roman(joined.join(" ").trim())]);
        }
    }
    roff
}

/// EXIT STATUS: the codes the command can end with, from the one table.
fn exit_status(roff: &mut Roff, sub: Option<&str>) {
    roff.control("SH", ["EXIT STATUS"]);
    for (code, text) in super::help::exit_rows(sub) {
        roff.control("TP", []);
        roff.text([bold(code.to_string())]);
        roff.text([roman(text)]);
    }
}

/// EXAMPLES: the help's examples, each comment a paragraph and the commands shown as typed.
fn examples_section(roff: &mut Roff, examples: &str) {
    roff.control("SH", ["EXAMPLES"]);
    let mut in_example = false;
    for line in examples.lines().skip(1) {
        let line = line.trim();
        if let Some(comment) = line.strip_prefix("# ") {
            if in_example {
                roff.control("EE", []);
                in_example = false;
            }
            roff.control("PP", []);
            roff.text([roman(comment)]);
        } else if !line.is_empty() {
            if !in_example {
                roff.control("PP", []);
                roff.control("EX", []);
                in_example = true;
            }
            roff.text([roman(line)]);
        }
    }
    if in_example {
        roff.control("EE", []);
    }
}

/// SEE ALSO: kubectl(1) and the other pages.
fn see_also(roff: &mut Roff, name: &str, pages: &[&str]) {
    roff.control("SH", ["SEE ALSO"]);
    let mut refs = vec!["kubectl(1)".to_string()];
    refs.extend(
        pages
            .iter()
            .filter(|p| **p != name)
            .map(|p| format!("{p}(1)")),
    );
    roff.text([roman(refs.join(", "))]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_sections_become_subsections() {
        let roff = description_sections(
            "Output:\n  -o text|json, repeatable.\n  junit: JUnit XML.\n\nPolicies: pp/NAME or cpp/NAME,\nor a type.",
        )
        .to_roff();
        assert!(roff.contains(".SS Output\n.nf\n\\-o text|json"), "{roff}");
        assert!(
            roff.contains(".SS Policies\n.PP\npp/NAME or cpp/NAME, or a type."),
            "{roff}"
        );
    }
}
