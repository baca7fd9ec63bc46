//! `-o sarif`: SARIF 2.1.0, for GitHub code scanning and other viewers. Every result carries its
//! exact start and end position (not line 1), related locations, and a fingerprint built from
//! the rule, the object and the field, so it survives lines moving.

use serde_json::{json, Value};

use crate::lint::{Finding, RuleDoc, Severity};

use super::fingerprint;

pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Where each rule's documentation lives (the generated rule reference in this repository).
pub fn help_uri(rule: &str) -> String {
    format!(
        "{}/blob/main/docs/rules.md#{rule}",
        env!("CARGO_PKG_REPOSITORY")
    )
}

pub fn render(findings: &[Finding], rules: &[RuleDoc]) -> String {
    let rule_index = |id: &str| rules.iter().position(|r| r.id == id);
    let results: Vec<Value> = findings
        .iter()
        .map(|f| result(f, rule_index(f.rule)))
        .collect();
    let log = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kubectl-karmada-policy",
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules.iter().map(rule).collect::<Vec<_>>(),
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&log).expect("sarif serializes");
    s.push('\n');
    s
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn rule(r: &RuleDoc) -> Value {
    let markdown = format!(
        "{}\n\n**Why:** {}\n\n**Example:**\n\n```yaml\n{}```\n\n**Fix:** {}",
        r.summary,
        r.rationale,
        ensure_newline(r.example),
        r.fix
    );
    json!({
        "id": r.id,
        "name": r.id,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": format!("{} {}", sentence(r.summary), r.rationale)},
        "help": {"text": format!("{}\nFix: {}", r.rationale, r.fix), "markdown": markdown},
        "helpUri": help_uri(r.id),
        "defaultConfiguration": {"level": level(r.default_severity)},
        "properties": {"group": r.group.as_str()},
    })
}

/// A rule's one-line summary as the first sentence of a description: capitalised, ended with a
/// full stop (a summary is a fragment, "the same key appears twice in one mapping").
fn sentence(summary: &str) -> String {
    let mut chars = summary.trim_end().chars();
    let mut out: String = chars
        .next()
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_default();
    out.push_str(chars.as_str());
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

fn ensure_newline(s: &str) -> String {
    if s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

fn location(file: &str, span: crate::source::Span, message: Option<&str>) -> Value {
    if span.start.line == 0 {
        // A live object (issue 7): a logical location named by its reference, no file region.
        let mut loc = json!({
            "logicalLocations": [{"fullyQualifiedName": file, "kind": "resource"}]
        });
        if let Some(m) = message {
            loc["message"] = json!({"text": m});
        }
        return loc;
    }
    let end_line = span.end.line.max(span.start.line);
    let end_col = if end_line > span.start.line || span.end.col > span.start.col {
        span.end.col
    } else {
        span.start.col + 1
    };
    let mut loc = json!({
        "physicalLocation": {
            "artifactLocation": {"uri": file},
            "region": {
                "startLine": span.start.line,
                "startColumn": span.start.col,
                "endLine": end_line,
                "endColumn": end_col,
            }
        }
    });
    if let Some(m) = message {
        loc["message"] = json!({"text": m});
    }
    loc
}

/// The message, its field, and for a later admission stage's refusal when it is reported.
fn message_text(f: &Finding) -> String {
    let mut text = match &f.field {
        Some(field) => format!("{} [{field}]", f.message),
        None => f.message.clone(),
    };
    if f.after_fix {
        text.push_str(&format!(" ({})", super::text::AFTER_FIX_NOTE));
    }
    text
}

fn result(f: &Finding, rule_index: Option<usize>) -> Value {
    let mut r = json!({
        "ruleId": f.rule,
        "level": level(f.severity),
        "message": {"text": message_text(f)},
    });
    if let Some(i) = rule_index {
        r["ruleIndex"] = json!(i);
    }
    if f.after_fix {
        // A refusal the API server reports once the object's first one is fixed.
        r["properties"] = json!({"afterFix": true});
    }
    if f.ratcheted {
        // A schema error an update leaves as stored: the API server lets it through.
        r["properties"] = json!({"ratcheted": true});
    }
    if let Some(loc) = &f.location {
        r["locations"] = json!([location(&loc.source.name, loc.span, None)]);
    }
    if !f.related.is_empty() {
        let related: Vec<Value> = f
            .related
            .iter()
            .enumerate()
            .map(|(i, rel)| {
                let mut l = location(
                    &rel.location.source.name,
                    rel.location.span,
                    Some(&rel.message),
                );
                l["id"] = json!(i);
                l
            })
            .collect();
        r["relatedLocations"] = json!(related);
    }
    let object = f.object.as_ref().map(|o| o.to_string()).unwrap_or_default();
    let file = f
        .location
        .as_ref()
        .map(|l| l.source.name.as_str())
        .unwrap_or("");
    let field = f.field.as_deref().unwrap_or("");
    // Identity, not position: the same problem on the same object keeps its fingerprint when
    // lines above it change. Objects without identity fall back to the file.
    let anchor = if object.is_empty() {
        file
    } else {
        object.as_str()
    };
    r["partialFingerprints"] = json!({
        "karmadaPolicyFinding/v1": fingerprint(&[f.rule, anchor, field, if field.is_empty() { &f.message } else { "" }]),
    });
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_full_description_starts_with_the_summary_as_a_sentence() {
        assert_eq!(
            sentence("a value of the wrong type"),
            "A value of the wrong type."
        );
        assert_eq!(sentence("Done."), "Done.");
        for r in crate::lint::registry::all() {
            let v = rule(&r);
            let full = v["fullDescription"]["text"].as_str().unwrap();
            let first = sentence(r.summary);
            assert!(full.starts_with(&format!("{first} ")), "{}: {full}", r.id);
            assert!(!first.starts_with(char::is_lowercase), "{}: {first}", r.id);
        }
    }
}
