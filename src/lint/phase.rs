//! The phases a lint run goes through, and what each gives its rules: a rule unit says which
//! phase its check runs in ([`Check`]), and the registry runs every check of a phase with the
//! phase's input. The unit itself ([`Rule`]) is the docs of its ids plus its checks.

use crate::engine::admission::documents::Admissions;
use crate::engine::state::{AdmittedPolicy, TemplateEntry};
use crate::model::Inventory;
use crate::source::Loaded;

use super::analysis::Analysis;
use super::finding::Finding;
use super::options::LintOptions;
use super::rule::RuleDoc;

/// One rule unit: a rule, or a family of rules that one check reports (the admission webhooks,
/// the suspension checks). A unit's ids are those of its docs.
pub struct Rule {
    pub docs: &'static [RuleDoc],
    /// How the unit's findings are made, by phase.
    pub checks: &'static [Check],
}

/// A rule's check, by the phase it runs in.
#[derive(Clone, Copy)]
pub enum Check {
    /// One file's objects on their own, as soon as the file is parsed (on the parsing thread).
    PerObject(fn(&Objects<'_>) -> Vec<Finding>),
    /// Object identities across every document, before the engine's state is built.
    Identities(fn(&Identities<'_>) -> Vec<Finding>),
    /// Across documents: the engine's analysis of every policy against every template.
    Semantic(fn(&Analysis<'_>) -> Vec<Finding>),
    /// History: what the git modes know (blame, the base revision of `--base`).
    History(fn(&History<'_>) -> Vec<Finding>),
    /// Reported by the inline-suppression pass, over every other rule's findings.
    Suppressions,
    /// Reported while the GitOps sources are rendered (`crate::lint::gitops`), before the
    /// other phases.
    Rendering,
}

/// The input of a [`Check::PerObject`]: some files and their typed documents.
pub struct Objects<'a> {
    pub loaded: &'a [Loaded],
    pub inventory: &'a Inventory,
    /// The admission chain's verdict on each policy document (the policies are marked with it).
    pub admissions: &'a Admissions,
    pub opts: &'a LintOptions,
}

/// The objects a streamed `lint` took out of the inventory: it keeps only their engine
/// entries. Each list is in document order.
#[derive(Clone, Copy, Default)]
pub struct Taken<'a> {
    pub templates: &'a [TemplateEntry],
    pub policies: &'a [AdmittedPolicy],
}

/// The input of a [`Check::Identities`]: every document, some of whose objects a streamed run
/// took out of the inventory (`taken`), and their identity hashes (sorted) when the parsing
/// threads computed them already.
pub struct Identities<'a> {
    pub inventory: &'a Inventory,
    pub taken: Taken<'a>,
    pub hashes: Option<&'a [(u64, usize)]>,
}

/// When lines were last changed, answered from history: `(file, text, lines)`, one answer per
/// line in their order. All the wanted lines of a file at once: one blame of the file answers
/// them, where a blame per line walked its history once for each.
pub type Introduced<'a> =
    &'a dyn Fn(&str, &str, &[u32]) -> Vec<Option<crate::source::git::Introduced>>;

/// The input of a [`Check::History`]: one side of a git-mode run and what history says of it.
/// Each check reads the part it needs and finds nothing when that part is absent.
pub struct History<'a> {
    pub inventory: &'a Inventory,
    /// Blame of this side (`--rev`, `--staged`, `--base`).
    pub blame: Option<Blame<'a>>,
    /// In `--base` mode, the base side that this side updates.
    pub base: Option<&'a Inventory>,
}

/// Blame of one side, with the age limit and the current time (unix seconds).
#[derive(Clone, Copy)]
pub struct Blame<'a> {
    pub introduced: Introduced<'a>,
    pub max_age_secs: u64,
    pub now: i64,
}
