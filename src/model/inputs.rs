//! Manifests read into an inventory: files, directories and stdin through [`crate::source`],
//! the documents classified into [`Inventory`], the problems kept for the caller to report.

use std::path::Path;

use super::Inventory;
use crate::source::prefilter::{self, DocHead, Skipped};
use crate::source::{files, Document, Loaded};

/// Why the inputs could not be read (a usage error).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("no input: name files or directories, or `-` for stdin")]
    NoInput,
    #[error(transparent)]
    Read(#[from] files::ReadError),
}

/// What the run's configuration says of each input file, as every subcommand reads the files
/// (`lint` through the same two questions): whether it is left out (`ignorePaths`), and the
/// namespace of a file applied with one (`namespaces:`), where its documents that set no
/// namespace go instead of the run's.
pub trait FileRules: Sync {
    fn ignores(&self, path: &Path) -> bool;
    fn namespace_for(&self, path: &Path) -> Option<&str>;
}

/// A file named on purpose (`preempt-check --apply FILE`, the change to check): read even where
/// `ignorePaths` would leave it out of a directory, its documents placed as the configuration
/// says.
pub struct Named<'a>(pub &'a dyn FileRules);

impl FileRules for Named<'_> {
    fn ignores(&self, _: &Path) -> bool {
        false
    }
    fn namespace_for(&self, path: &Path) -> Option<&str> {
        self.0.namespace_for(path)
    }
}

/// Everything read from the inputs: the parsed sources with their problems, and the inventory.
pub struct Inputs {
    pub loaded: Vec<Loaded>,
    pub inventory: Inventory,
}

impl Inputs {
    /// Why something named may be in none of the documents read ([`unparsed_may_hold`] of
    /// those that did not parse); `None` when every document parsed.
    pub fn unread(&self) -> Option<String> {
        unparsed_may_hold(&skipped_places(&self.loaded))
    }

    /// Reads files, directories and `-`; an unreadable input is a usage error (exit 2), a
    /// document that does not parse is kept as a problem for the caller to report.
    pub fn read(
        paths: &[String],
        default_namespace: &str,
        rules: &dyn FileRules,
    ) -> Result<Inputs, InputError> {
        if paths.is_empty() {
            return Err(InputError::NoInput);
        }
        let files = files::expand(paths, &|p| rules.ignores(p))?;
        let mut loaded = files::read_all(&files)?;
        let inventory = inventory_of(&mut loaded, default_namespace, rules);
        Ok(Inputs { loaded, inventory })
    }

    /// As [`Inputs::read`], but documents whose head (`apiVersion`, `kind`, `metadata.name`
    /// read without parsing, see `source::prefilter`) `keep` refuses are never parsed: they
    /// are neither in the inventory nor in the problems. Returns their `(apiVersion, kind)` too.
    pub fn read_filtered(
        paths: &[String],
        default_namespace: &str,
        rules: &dyn FileRules,
        keep: &(dyn Fn(&DocHead<'_>) -> bool + Sync),
    ) -> Result<(Inputs, Vec<Skipped>), InputError> {
        if paths.is_empty() {
            return Err(InputError::NoInput);
        }
        let files = files::expand(paths, &|p| rules.ignores(p))?;
        let read = prefilter::read_all_filtered(&files, keep)?;
        let mut skipped = Vec::new();
        let mut loaded = Vec::with_capacity(read.len());
        for (l, s) in read {
            loaded.push(l);
            skipped.extend(s);
        }
        let inventory = inventory_of(&mut loaded, default_namespace, rules);
        Ok((Inputs { loaded, inventory }, skipped))
    }
}

/// The documents of `loaded`, typed: those that set no namespace in their file's namespace
/// under `rules`, else in `default_namespace`.
fn inventory_of(
    loaded: &mut [Loaded],
    default_namespace: &str,
    rules: &dyn FileRules,
) -> Inventory {
    let placed: Vec<Option<String>> = loaded
        .iter()
        .map(|l| {
            rules
                .namespace_for(Path::new(&l.source.name))
                .map(str::to_string)
        })
        .collect();
    let namespaces: Vec<String> = if placed.iter().all(Option::is_none) {
        Vec::new()
    } else {
        loaded
            .iter()
            .zip(&placed)
            .flat_map(|(l, ns)| {
                let ns = ns.as_deref().unwrap_or(default_namespace);
                std::iter::repeat_n(ns.to_string(), l.documents.len())
            })
            .collect()
    };
    let documents: Vec<Document> = loaded
        .iter_mut()
        .flat_map(|l| std::mem::take(&mut l.documents))
        .collect();
    if namespaces.is_empty() {
        // Typed on two threads when large.
        Inventory::from_documents(documents, default_namespace)
    } else {
        Inventory::from_documents_each(documents, &namespaces)
    }
}

/// Reads the inputs and reports on stderr what could not be read (the decision would ignore it).
pub fn read_inputs(
    files: &[String],
    namespace: &str,
    rules: &dyn FileRules,
) -> Result<Inventory, InputError> {
    let inputs = Inputs::read(files, namespace, rules)?;
    warn_problems(&inputs.loaded);
    Ok(inputs.inventory)
}

/// Prints on stderr what could not be read, and that the decision leaves it out: a skipped
/// document may be a policy that would match (lint reports it as an error; the answer here is
/// of the rest).
pub fn warn_problems(loaded: &[Loaded]) {
    let mut skipped = 0;
    for l in loaded {
        for p in &l.problems {
            crate::util::warn(&format!(
                "{}:{}:{}: {}",
                l.source.name, p.span.start.line, p.span.start.col, p.message
            ));
            skipped += usize::from(p.kind.skips_an_object());
        }
    }
    if skipped > 0 {
        crate::util::to_stderr("note", &left_out_note(skipped));
    }
}

/// Why something named may be in none of the documents read, when `unparsed` (their places,
/// `FILE:LINE:COL...`) did not parse: `a document that does not parse may hold it: PLACE (and N
/// more)`. `None` when every document parsed.
pub fn unparsed_may_hold(unparsed: &[String]) -> Option<String> {
    let places = crate::util::first_and_more(unparsed)?;
    Some(format!(
        "a document that does not parse may hold it: {places}"
    ))
}

/// The places (`FILE:LINE:COL`) of the documents of `loaded` that were skipped unparsed.
pub fn skipped_places(loaded: &[Loaded]) -> Vec<String> {
    loaded
        .iter()
        .flat_map(|l| {
            let skipped = l.problems.iter().filter(|p| p.kind.skips_an_object());
            skipped.map(|p| {
                let at = p.span.start;
                format!("{}:{}:{}", l.source.name, at.line, at.col)
            })
        })
        .collect()
}

/// What a decision over inputs with `skipped` documents left unread says of itself.
pub fn left_out_note(skipped: usize) -> String {
    if skipped == 1 {
        "1 document skipped above is left out of the answer: it may change once the document is fixed (lint reports it as an error)".into()
    } else {
        format!("{skipped} documents skipped above are left out of the answer: it may change once they are fixed (lint reports them as errors)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ignorePaths: [skip/**]`, `namespaces: {"team-a/**": team-a}`, relative to `.0`.
    struct Rules(std::path::PathBuf);

    impl FileRules for Rules {
        fn ignores(&self, path: &Path) -> bool {
            path.starts_with(self.0.join("skip"))
        }
        fn namespace_for(&self, path: &Path) -> Option<&str> {
            path.starts_with(self.0.join("team-a")).then_some("team-a")
        }
    }

    const PP: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n";

    fn namespaces(inputs: &Inputs) -> Vec<String> {
        let ns = |p: &crate::model::Policy| p.meta.namespace.clone().unwrap_or_default();
        inputs.inventory.policies().map(ns).collect()
    }

    #[test]
    fn files_are_read_and_placed_as_the_rules_say() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<String> = ["team-a", "other", "skip"]
            .iter()
            .map(|d| {
                let at = dir.path().join(d);
                std::fs::create_dir_all(&at).unwrap();
                std::fs::write(at.join("pp.yaml"), PP).unwrap();
                at.display().to_string()
            })
            .collect();
        let rules = Rules(dir.path().to_path_buf());
        let read = Inputs::read(&paths, "shop", &rules).unwrap();
        assert_eq!(namespaces(&read), ["team-a", "shop"]);
        // Named on purpose: read though ignored.
        let named = Inputs::read(&paths[2..], "shop", &Named(&rules)).unwrap();
        assert_eq!(namespaces(&named), ["shop"]);
    }
}
