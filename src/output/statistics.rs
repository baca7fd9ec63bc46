//! `lint --statistics`: how many findings each rule gave, one line per rule and severity, in
//! place of the findings (as ruff's `--statistics`): what a first run over a large repository
//! needs before the details.
//!
//! ```text
//!   2059  info     overlap                    A template in the input is matched by two or more policies
//!    329  warning  inert-preemption           ...
//!
//! 0 errors, 722 warnings, 2059 infos in 200 files (100000 documents, 10000 policies)
//! ```

use owo_colors::{OwoColorize, Style};
use serde::Serialize;

use crate::lint::{registry, Finding, Severity};

use super::Summary;

/// One line: a rule, a severity and how many findings have both.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    pub rule: &'static str,
    pub severity: &'static str,
    pub count: usize,
    /// The rule's one-line summary (from the registry).
    pub summary: &'static str,
}

/// The counts of `findings` per rule and severity: the most frequent first, then the more
/// severe, then by rule id.
pub fn counts(findings: &[Finding]) -> Vec<RuleCount> {
    let mut by: std::collections::BTreeMap<(&'static str, Severity), usize> = Default::default();
    for f in findings {
        *by.entry((f.rule, f.severity)).or_default() += 1;
    }
    let mut rows: Vec<_> = by.into_iter().collect();
    rows.sort_by(|((ra, sa), a), ((rb, sb), b)| b.cmp(a).then(sb.cmp(sa)).then(ra.cmp(rb)));
    rows.into_iter()
        .map(|((rule, severity), count)| RuleCount {
            rule,
            severity: severity.as_str(),
            count,
            summary: registry::find(rule).map_or("", |d| d.summary),
        })
        .collect()
}

/// The text form: a line per rule and severity, then the summary line.
pub fn text(findings: &[Finding], summary: &Summary, color: bool) -> String {
    let rows = counts(findings);
    let count_width = rows
        .iter()
        .map(|r| r.count.to_string().len())
        .max()
        .unwrap_or(1);
    let rule_width = rows.iter().map(|r| r.rule.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in &rows {
        let severity = format!("{:<7}", r.severity);
        let severity = if color {
            severity.style(severity_style(r.severity)).to_string()
        } else {
            severity
        };
        let line = format!(
            "{:>count_width$}  {severity}  {:<rule_width$}  {}",
            r.count, r.rule, r.summary
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if !rows.is_empty() {
        out.push('\n');
    }
    out.push_str(&super::text::summary_line(summary, color));
    out.push('\n');
    out
}

/// The JSON form: `{"statistics":[{"rule","severity","count","summary"}],"summary":{...}}`.
pub fn json(findings: &[Finding], summary: &Summary) -> String {
    #[derive(Serialize)]
    struct Report<'a> {
        statistics: Vec<RuleCount>,
        summary: &'a Summary,
    }
    let report = Report {
        statistics: counts(findings),
        summary,
    };
    let mut s = serde_json::to_string_pretty(&report).expect("counts serialize");
    s.push('\n');
    s
}

fn severity_style(severity: &str) -> Style {
    match severity {
        "error" => Style::new().red().bold(),
        "warning" => Style::new().yellow().bold(),
        _ => Style::new().cyan().bold(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_counted_per_severity_most_frequent_first() {
        let f = |rule, severity| Finding::new(rule, severity, "m");
        let findings = [
            f("overlap", Severity::Info),
            f("overlap", Severity::Warning),
            f("overlap", Severity::Info),
            f("schema-type", Severity::Error),
        ];
        let rows = counts(&findings);
        let shown: Vec<_> = rows.iter().map(|r| (r.rule, r.severity, r.count)).collect();
        assert_eq!(
            shown,
            [
                ("overlap", "info", 2),
                ("schema-type", "error", 1),
                ("overlap", "warning", 1)
            ]
        );
        let summary = Summary::of(1, 4, 2, &findings);
        let text = text(&findings, &summary, false);
        assert!(
            text.starts_with(
                "2  info     overlap      A template in the input is matched by two or more policies\n"
            ),
            "{text}"
        );
        assert!(text.ends_with("1 error, 1 warning, 2 infos in 1 file (4 documents, 2 policies)\n"));
        let json: serde_json::Value = serde_json::from_str(&json(&findings, &summary)).unwrap();
        assert_eq!(json["statistics"][0]["count"], 2);
        assert_eq!(json["summary"]["infos"], 2);
    }
}
