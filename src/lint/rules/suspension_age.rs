//! `suspension-age`: a suspension that has been in place for longer than `maxSuspensionAge`.
//! A suspended policy dispatches nothing to the suspended clusters and failover cannot complete
//! there (validation-suspension-failover.md §2.3 `shouldSuspendDispatching`, §3.4 items 1-5), so
//! a "temporary" pause that outlives its reason is an outage waiting to happen. The age comes
//! from history: the commit that last changed the suspension's line (blame), which only the git
//! modes of `lint` (`--rev`, `--staged`, `--base`) know; the rule itself is pure and gets the
//! history through a callback.

use crate::lint::finding::{Finding, Severity};
use crate::lint::phase::{Check, History, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::Inventory;
use crate::source::FieldPath;

pub use crate::source::git::Introduced;

pub const DOC: RuleDoc = RuleDoc {
    id: "suspension-age",
    group: RuleGroup::Semantics,
    default_severity: Severity::Warning,
    summary: "A suspension older than `maxSuspensionAge` (default 7 days; git modes of lint only)",
    rationale: "While dispatching is suspended nothing reaches the suspended clusters and failover cannot place \
                replicas there: a pause meant for a maintenance window that is still in the repository weeks later \
                is a frozen deployment. The age is the age of the commit that last changed the suspension's line \
                (as `git blame` shows it), so the rule runs with `lint --rev`, `--staged` or `--base`.",
    example: "# committed 12 days ago:\nspec:\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member2]\n",
    fix: "Resume dispatching (`kubectl karmada-policy resume`), or raise `maxSuspensionAge` in `.karmada-policy.yaml` \
          for a pause that is meant to last.",
    reference: "pkg/controllers/binding/common.go:363-376 (shouldSuspendDispatching); pkg/controllers/gracefuleviction/evictiontask.go:67-116 (assessSingleTask: failover does not wait for a resume)",
};

pub static RULE: Rule = Rule {
    docs: &[DOC],
    checks: &[Check::History(history_check)],
};

/// Only with blame (the git modes).
fn history_check(h: &History<'_>) -> Vec<Finding> {
    h.blame.map_or_else(Vec::new, |b| {
        check(h.inventory, b.max_age_secs, b.now, b.introduced)
    })
}

/// Whether the rule runs at all under the configuration: blaming every suspended line costs a
/// walk of history per line, which a repository that turned the rule off should not pay.
pub fn enabled(opts: &crate::lint::LintOptions) -> bool {
    !matches!(
        opts.rules.get(DOC.id),
        Some(crate::context::RuleSetting::Off)
    )
}

/// The default of `maxSuspensionAge`.
pub const DEFAULT_MAX_AGE_SECS: u64 = 7 * 86_400;

/// One warning per suspended target (all clusters, or each listed cluster) whose line was
/// committed more than `max_age_secs` before `now`. `introduced(file, text, lines)` answers
/// from history, asked once per file for all of its suspended lines.
pub fn check(
    inventory: &Inventory,
    max_age_secs: u64,
    now: i64,
    introduced: crate::lint::phase::Introduced<'_>,
) -> Vec<Finding> {
    // First every target and its line, then history once per file, then the findings in the
    // targets' order.
    let mut targets = Vec::new();
    let mut files: Vec<(usize, Vec<u32>)> = Vec::new();
    let mut file_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for p in inventory.admitted_policies() {
        let Some(s) = &p.spec.suspension else {
            continue;
        };
        let mut paths: Vec<(FieldPath, String)> = Vec::new();
        if s.suspends_all() {
            paths.push((
                FieldPath::parse("spec.suspension.dispatching"),
                "all clusters".into(),
            ));
        } else {
            for (i, c) in s.suspended_clusters().iter().enumerate() {
                paths.push((
                    FieldPath::parse("spec.suspension.dispatchingOnClusters.clusterNames").index(i),
                    c.clone(),
                ));
            }
        }
        let doc = &inventory.documents[p.doc];
        // A streamed `lint --base` keeps skeletons: the whole tree is parsed again for these.
        let tree = doc.full_tree();
        for (path, target) in paths {
            let span = tree.locate_value(&path);
            let f = *file_of.entry(doc.source.name.as_str()).or_insert_with(|| {
                files.push((p.doc, Vec::new()));
                files.len() - 1
            });
            files[f].1.push(span.start.line);
            targets.push((p, path, target, span));
        }
    }
    let mut answers: std::collections::HashMap<(&str, u32), Option<Introduced>> =
        std::collections::HashMap::new();
    for (doc, lines) in &files {
        let source = &inventory.documents[*doc].source;
        for (line, intro) in lines
            .iter()
            .zip(introduced(&source.name, source.text(), lines))
        {
            answers.insert((source.name.as_str(), *line), intro);
        }
    }
    let mut out = Vec::new();
    for (p, path, target, span) in targets {
        let doc = &inventory.documents[p.doc];
        let Some(Some(intro)) = answers.get(&(doc.source.name.as_str(), span.start.line)) else {
            continue; // not committed yet: it starts ageing when it is
        };
        let age = now.saturating_sub(intro.time).max(0) as u64;
        if age <= max_age_secs {
            continue;
        }
        let mut f = Finding::new(
            DOC.id,
            DOC.default_severity,
            format!(
                "dispatching to {target} suspended for {} since {}; failover frozen meanwhile",
                human_age(age),
                intro.commit
            ),
        )
        .at(&doc.source, span)
        .field(path.to_string())
        .object(super::policy_object_ref(p))
        .related(
            &doc.source,
            span,
            format!(
                "introduced in {} by {} on {} (maxSuspensionAge: {})",
                intro.commit,
                intro.author,
                date(intro.time),
                human_age(max_age_secs)
            ),
        );
        f.doc = Some(p.doc);
        out.push(f);
    }
    out
}

/// `12 days`, `1 day`, `36 hours`, `5 minutes`.
pub fn human_age(secs: u64) -> String {
    let plural = |n: u64, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let days = secs / 86_400;
    if days >= 2 || days == 1 && secs - 86_400 < 3_600 {
        plural(days, "day")
    } else if secs >= 3_600 {
        plural(secs / 3_600, "hour")
    } else {
        plural(secs / 60, "minute")
    }
}

/// `2026-11-19` (UTC) from Unix seconds (Howard Hinnant's civil-from-days).
pub fn date(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Inventory;
    use crate::source::{load, Source};

    fn inventory(text: &str) -> Inventory {
        let mut l = load(Source::new("p.yaml", text));
        Inventory::from_documents(std::mem::take(&mut l.documents), "default")
    }

    const POLICY: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member1, member2]\n";

    #[test]
    fn old_suspensions_warn_with_their_commit_and_young_ones_do_not() {
        let inv = inventory(POLICY);
        let now = 1_800_000_000;
        let asked = std::cell::RefCell::new(Vec::new());
        let history = |file: &str, _: &str, lines: &[u32]| {
            let mut asked = asked.borrow_mut();
            asked.extend(lines.iter().map(|&l| (file.to_string(), l)));
            let intro = Introduced {
                commit: "abc1234".into(),
                author: "A <a@example.com>".into(),
                time: now - 12 * 86_400,
            };
            vec![Some(intro); lines.len()]
        };
        let f = check(&inv, DEFAULT_MAX_AGE_SECS, now, &history);
        assert_eq!(f.len(), 2);
        assert_eq!(
            f[1].message,
            "dispatching to member2 suspended for 12 days since abc1234; failover frozen meanwhile"
        );
        assert_eq!(
            f[1].field.as_deref(),
            Some("spec.suspension.dispatchingOnClusters.clusterNames[1]")
        );
        assert_eq!(asked.borrow()[1], ("p.yaml".to_string(), 11));
        assert!(f[0].related[0].message.contains("by A <a@example.com>"));
        // Younger than the limit, or not committed: nothing.
        assert!(check(&inv, 13 * 86_400, now, &history).is_empty());
        assert!(check(&inv, DEFAULT_MAX_AGE_SECS, now, &|_, _, l| vec![
            None;
            l.len()
        ])
        .is_empty());
        assert_eq!(asked.borrow().len(), 4, "every line asked");
    }

    #[test]
    fn dates_and_ages_read_naturally() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(1_700_000_000), "2023-11-14");
        assert_eq!(human_age(12 * 86_400 + 5), "12 days");
        assert_eq!(human_age(7 * 86_400), "7 days");
        assert_eq!(human_age(86_400), "1 day");
        assert_eq!(human_age(36 * 3_600), "36 hours");
    }
}
