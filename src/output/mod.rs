//! Renderers: text, JSON, SARIF, JUnit XML and GitHub annotations over the same findings, and
//! the rule docs generated from the registry. Adding a format touches one file here.

pub mod chain;
pub mod completion;
pub mod delivery;
pub mod environments;
pub mod explain;
pub mod format;
pub mod github;
pub mod graph;
pub mod help;
pub mod json;
pub mod junit;
pub mod man;
pub mod plan;
pub mod plan_markdown;
pub mod policy_live;
pub mod policy_view;
pub mod preempt_check;
pub mod replicas;
pub mod rule_docs;
pub mod sarif;
pub mod statistics;
pub mod suspend;
pub mod terminal;
pub mod text;
pub mod version;
pub mod yaml;

use serde::Serialize;

use crate::lint::{Finding, Severity};

/// Counts printed after the findings and in the JSON `summary` object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub files: usize,
    pub documents: usize,
    pub policies: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Summary {
    /// The counts of a run: its inputs and the severities of `findings`.
    pub fn of(files: usize, documents: usize, policies: usize, findings: &[Finding]) -> Summary {
        let mut summary = Summary {
            files,
            documents,
            policies,
            ..Summary::default()
        };
        summary.count(findings);
        summary
    }

    pub fn count(&mut self, findings: &[Finding]) {
        for f in findings {
            match f.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Info => self.infos += 1,
            }
        }
    }
}

/// A stable 64-bit FNV-1a hash, printed as hex: fingerprints must not change between runs or
/// releases, so std's randomized hasher will not do.
pub fn fingerprint(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}
