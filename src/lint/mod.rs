//! `lint`: findings over a set of documents. Input problems, schema and admission checks say
//! whether each object is accepted; the semantic rules say what accepted policies will do together.

pub mod analysis;
pub mod baseline;
pub mod files;
pub mod finding;
pub mod git;
pub mod gitops;
pub mod live;
pub mod options;
pub mod phase;
pub mod registry;
pub mod result;
pub mod rule;
pub mod rules;
pub mod settings;
pub mod stream;
pub mod streamed_base;
pub mod suppress;
pub mod unpruned;

use std::collections::BTreeMap;

pub use crate::context::{Config, RuleSetting};
pub use finding::{Finding, Location, Partner, Related, Severity};
pub use options::LintOptions;
pub use result::Linted;
pub use rule::{RuleDoc, RuleGroup};

use crate::engine::admission::documents::Admissions;
use crate::engine::state::State;
use crate::model::cluster::Cluster;
use crate::model::{Inventory, PolicyKind};
use crate::source::Loaded;
use phase::{Identities, Objects, Taken};

/// Runs every enabled rule over the inputs; findings come back sorted by file and position.
/// The admission chain runs once over the policy documents (their trees must be whole) and
/// marks the policies, so only what Karmada would store takes part in the semantic rules.
/// (`lint PATH...` streams files through [`stream::lint_paths`] instead, which gives the same
/// findings while holding less in memory.)
pub fn lint(loaded: &[Loaded], inventory: &mut Inventory, opts: &LintOptions) -> Vec<Finding> {
    let admissions = admit(inventory, opts);
    let inventory = &*inventory;
    // The semantic rules (the engine's analysis of every policy against every template) are the
    // longest part and independent of the per-object checks: run them on a second thread.
    let (mut findings, semantic) = crate::util::parallel::join(
        || {
            let mut findings = per_object_findings(loaded, inventory, &admissions, opts);
            findings.extend(registry::run_identities(&Identities {
                inventory,
                taken: Taken::default(),
                hashes: None,
            }));
            findings
        },
        || semantic_findings(inventory, opts),
    );
    findings.extend(semantic);
    finish(findings, inventory, opts)
}

/// The admission chain's verdicts on the inputs' policy documents. Manifests are marked with
/// them (a refused policy takes no part); objects read from the control plane were admitted
/// when they were stored, so they keep taking part whatever the chain says of them now.
pub fn admit(inventory: &mut Inventory, opts: &LintOptions) -> Admissions {
    let admissions = Admissions::of(inventory, opts.version());
    if !opts.live {
        admissions.mark(inventory);
    }
    admissions
}

/// The note naming the member clusters of a run (the inputs' Cluster objects, else
/// `knownClusters`) whose API enablements the inputs do not report.
pub fn clusters_note(inventory: &Inventory, opts: &LintOptions) -> Option<String> {
    analysis::KnownClusters::of(Cluster::from_inventory(inventory), opts).note()
}

/// What can be said of each object on its own: input problems, typing, schema, admission and
/// the suspension checks. A file's worth can be checked as soon as the file is parsed.
pub fn per_object_findings(
    loaded: &[Loaded],
    inventory: &Inventory,
    admissions: &Admissions,
    opts: &LintOptions,
) -> Vec<Finding> {
    registry::run_per_object(&Objects {
        loaded,
        inventory,
        admissions,
        opts,
    })
}

/// What accepted policies do together: the engine's analysis of every policy against every
/// template. Needs the whole input.
pub fn semantic_findings(inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let state = State::from_inventory(inventory, analysis::options(opts));
    let clusters = analysis::KnownClusters::of(Cluster::from_inventory(inventory), opts);
    semantic_findings_of(inventory, &state, clusters)
}

/// [`semantic_findings`] over a snapshot already built from `inventory`, with the member
/// clusters known.
pub fn semantic_findings_of(
    inventory: &Inventory,
    state: &State,
    clusters: analysis::KnownClusters,
) -> Vec<Finding> {
    registry::run_semantic(&analysis::Analysis::with_clusters(
        inventory, state, clusters,
    ))
}

/// Rules whose verdict depends on the namespace a policy is in.
const NAMESPACE_RULES: &[&str] = &["selector-namespace-mismatch", "dead-policy"];

/// Says in each namespace-dependent finding about a document whose namespace nothing gave
/// (neither the document, the repository, the configuration's `namespaces:` nor `-n`) that the
/// namespace was assumed: linted as `default`, it may be another when applied.
pub fn note_assumed_namespace(findings: &mut [Finding], assumed: &dyn Fn(usize) -> bool) {
    // A ClusterPropagationPolicy has no namespace to assume.
    let cluster_scoped = |f: &Finding| {
        f.object
            .as_ref()
            .is_some_and(|o| o.kind == PolicyKind::ClusterPropagationPolicy.as_str())
    };
    for f in findings.iter_mut() {
        if NAMESPACE_RULES.contains(&f.rule) && f.doc.is_some_and(assumed) && !cluster_scoped(f) {
            f.message.push_str(
                " (assuming namespace default: nothing in the repository sets one; set it with `-n` or `namespaces:` in .karmada-policy.yaml)",
            );
        }
    }
}

/// Configuration settings, inline ignores, and the order findings are reported in.
fn finish(findings: Vec<Finding>, inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let mut findings = apply_settings(findings, &opts.rules);
    if opts.inline_ignores {
        findings = suppress::apply(findings, inventory, &registry::is_known);
    }
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    findings
}

/// Drops rules turned off in the config and applies severity overrides (also used for the
/// findings the git modes add outside [`lint`]).
pub fn apply_settings(
    findings: Vec<Finding>,
    settings: &BTreeMap<String, RuleSetting>,
) -> Vec<Finding> {
    if settings.is_empty() {
        return findings;
    }
    findings
        .into_iter()
        .filter_map(|mut f| match settings.get(f.rule) {
            Some(RuleSetting::Off) => None,
            Some(RuleSetting::Severity(s)) => {
                f.severity = *s;
                Some(f)
            }
            None => Some(f),
        })
        .collect()
}

/// Helpers for the rules' unit tests.
#[cfg(test)]
pub mod test_support {
    use super::*;
    use crate::source::{load, Source};

    /// Lints one YAML text as `t.yaml` and keeps the findings of `rule`.
    pub fn lint_rule(text: &str, rule: &str, preemption_gate: bool) -> Vec<Finding> {
        let loaded = load(Source::new("t.yaml", text));
        let mut loaded = vec![loaded];
        let docs = std::mem::take(&mut loaded[0].documents);
        let mut inventory = Inventory::from_documents(docs, "default");
        let mut opts = LintOptions {
            inline_ignores: true,
            ..LintOptions::default()
        };
        if preemption_gate {
            opts.gates = crate::model::feature_gates::GateSet::parse(
                Default::default(),
                "PropagationPolicyPreemption=true",
            )
            .unwrap();
        }
        lint(&loaded, &mut inventory, &opts)
            .into_iter()
            .filter(|f| f.rule == rule)
            .collect()
    }

    /// `(line, column)` of a finding.
    pub fn pos(f: &Finding) -> (u32, u32) {
        let l = f.location.as_ref().expect("finding has a location");
        (l.span.start.line, l.span.start.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_namespace_is_assumed_for_a_cluster_propagation_policy() {
        let finding = |kind: &str| {
            let mut f = Finding::new("dead-policy", Severity::Info, "selects none");
            f.doc = Some(0);
            f.object = Some(crate::model::ObjectRef {
                api_version: "policy.karmada.io/v1alpha1".into(),
                kind: kind.into(),
                namespace: None,
                name: "p".into(),
            });
            f
        };
        let mut findings = [
            finding("PropagationPolicy"),
            finding("ClusterPropagationPolicy"),
        ];
        note_assumed_namespace(&mut findings, &|_| true);
        assert!(findings[0].message.contains("(assuming namespace default"));
        assert_eq!(findings[1].message, "selects none");
    }
}
