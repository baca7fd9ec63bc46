//! `-o junit`: JUnit XML for CI systems that show test reports (GitLab, Jenkins, Azure DevOps).
//!
//! One `<testsuite>` per rule, one `<testcase>` per rule and object (the object a finding is
//! about, else its file): an error or warning is a `<failure>` whose type is the severity, an
//! info finding passes and keeps its message in `<system-out>`. A rule without findings is one
//! passing test case, so every rule that ran shows up in the report.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::lint::rule::RuleDoc;
use crate::lint::{Finding, Severity};
use crate::util::escape::{visible, visible_lines};

/// The test case name: what the finding is about.
fn subject(f: &Finding) -> String {
    if let Some(o) = &f.object {
        return o.to_string();
    }
    match &f.location {
        Some(loc) => loc.source.name.to_string(),
        None => "(input)".to_string(),
    }
}

/// Escapes text for XML content and attributes: control characters (which XML 1.0 cannot
/// carry, or a report viewer would print raw) shown as `\u{1b}` (`output::escape`), line feeds
/// kept (they separate our own lines), and the two non-characters XML forbids dropped.
fn xml(s: &str) -> String {
    let s = visible_lines(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{fffe}' | '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// One finding as a failure or output line: `file:line:col: message (field)`.
fn describe(f: &Finding) -> String {
    let mut s = String::new();
    if let Some(loc) = &f.location {
        let _ = write!(s, "{}: ", loc.display());
    }
    s.push_str(&f.message);
    if let Some(field) = &f.field {
        let _ = write!(s, " ({field})");
    }
    // One line per finding: a line break from the input is shown, not kept.
    visible(&s).into_owned()
}

fn fails(f: &Finding) -> bool {
    matches!(f.severity, Severity::Error | Severity::Warning)
}

pub fn render(findings: &[Finding], rules: &[RuleDoc]) -> String {
    // rule -> subject -> findings, in rule registry order then by name.
    let mut by_rule: BTreeMap<&str, BTreeMap<String, Vec<&Finding>>> = BTreeMap::new();
    for f in findings {
        by_rule
            .entry(f.rule)
            .or_default()
            .entry(subject(f))
            .or_default()
            .push(f);
    }
    let mut ids: Vec<&str> = rules.iter().map(|r| r.id).collect();
    ids.extend(
        by_rule
            .keys()
            .filter(|k| !rules.iter().any(|r| r.id == **k)),
    );
    let mut suites = String::new();
    let (mut total_tests, mut total_failures) = (0usize, 0usize);
    for id in ids {
        let cases = by_rule.remove(id).unwrap_or_default();
        let summary = rules.iter().find(|r| r.id == id).map_or("", |r| r.summary);
        let mut body = String::new();
        let (mut tests, mut failures) = (0usize, 0usize);
        if cases.is_empty() {
            tests += 1;
            let _ = writeln!(
                body,
                "    <testcase classname=\"karmada-policy.{}\" name=\"{}\"/>",
                xml(id),
                xml(summary)
            );
        }
        for (name, fs) in &cases {
            tests += 1;
            let failing: Vec<&&Finding> = fs.iter().filter(|f| fails(f)).collect();
            let _ = writeln!(
                body,
                "    <testcase classname=\"karmada-policy.{}\" name=\"{}\">",
                xml(id),
                xml(name)
            );
            if let Some(first) = failing.first() {
                failures += 1;
                let text: Vec<String> = failing.iter().map(|f| describe(f)).collect();
                let _ = writeln!(
                    body,
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                    first.severity.as_str(),
                    xml(&first.message),
                    xml(&text.join("\n"))
                );
            }
            let infos: Vec<String> = fs
                .iter()
                .filter(|f| !fails(f))
                .map(|f| describe(f))
                .collect();
            if !infos.is_empty() {
                let _ = writeln!(
                    body,
                    "      <system-out>{}</system-out>",
                    xml(&infos.join("\n"))
                );
            }
            body.push_str("    </testcase>\n");
        }
        total_tests += tests;
        total_failures += failures;
        let _ = write!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n{body}  </testsuite>\n",
            xml(id)
        );
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"karmada-policy lint\" tests=\"{total_tests}\" failures=\"{total_failures}\" errors=\"0\">\n{suites}</testsuites>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::registry;

    fn finding(rule: &'static str, severity: Severity, name: &str) -> Finding {
        let mut f = Finding::new(rule, severity, format!("bad <{name}> & \"quoted\""));
        f.object = Some(crate::model::ObjectRef {
            api_version: "policy.karmada.io/v1alpha1".into(),
            kind: "PropagationPolicy".into(),
            namespace: Some("default".into()),
            name: name.into(),
        });
        f
    }

    #[test]
    fn one_case_per_rule_and_object_and_a_passing_case_per_clean_rule() {
        let rules = registry::all();
        let findings = vec![
            finding("preemption-requires-name", Severity::Error, "a"),
            finding("preemption-requires-name", Severity::Error, "a"),
            finding("preemption-requires-name", Severity::Error, "b"),
        ];
        let xml = render(&findings, &rules);
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
        let suite_start = xml
            .find("<testsuite name=\"preemption-requires-name\"")
            .unwrap();
        let suite =
            &xml[suite_start..xml[suite_start..].find("</testsuite>").unwrap() + suite_start];
        assert!(suite.contains("tests=\"2\" failures=\"2\""), "{suite}");
        assert_eq!(suite.matches("<testcase ").count(), 2);
        assert!(suite.contains("name=\"propagationpolicy/default/a\""));
        assert!(
            suite.contains("bad &lt;a&gt; &amp; &quot;quoted&quot;"),
            "{suite}"
        );
        let total = format!("tests=\"{}\" failures=\"2\"", rules.len() + 1);
        assert!(xml.contains(&total), "{}", &xml[..200]);
        assert_eq!(xml.matches("<testsuite ").count(), rules.len());
    }

    #[test]
    fn infos_pass_with_their_message_as_output() {
        let rules = registry::all();
        let id = rules
            .iter()
            .find(|r| r.default_severity == Severity::Info)
            .map_or("preemption-requires-name", |r| r.id);
        let xml = render(&[finding(id, Severity::Info, "c")], &rules);
        assert!(xml.contains("<system-out>bad &lt;c&gt;"), "{xml}");
        assert!(xml.contains("failures=\"0\" errors=\"0\">\n  <testsuite"));
    }

    #[test]
    fn control_characters_are_shown_escaped() {
        assert_eq!(xml("a\u{1}b\tc\nd"), "a\\u{1}b\\u{9}c\nd");
    }
}
