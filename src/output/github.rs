//! `-o github`: GitHub Actions workflow commands, which annotate the pull request's diff.
//! `::warning file=F,line=L,col=C,endLine=L2,endColumn=C2,title=T::message`
//!
//! The runner's log shows the command line raw, so text from inputs has its control characters
//! escaped visibly first (`output::escape`); the command's own `%`, CR and LF escapes follow.

use crate::lint::{Finding, Severity};
use crate::util::escape::visible;

pub fn render(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = Vec::new();
        let mut message = String::new();
        if let Some(loc) = f.location.as_ref().filter(|l| l.is_object()) {
            // A live object has no file to annotate: name it in the message instead.
            message = format!("{}: ", visible(&loc.source.name));
        } else if let Some(loc) = &f.location {
            props.push(format!(
                "file={}",
                escape_property(&visible(&loc.source.name))
            ));
            props.push(format!("line={}", loc.span.start.line));
            // GitHub rejects columns on annotations that span several lines.
            let end_line = loc.span.end.line.max(loc.span.start.line);
            if end_line == loc.span.start.line {
                props.push(format!("col={}", loc.span.start.col));
                props.push(format!("endLine={end_line}"));
                props.push(format!(
                    "endColumn={}",
                    loc.span.end.col.max(loc.span.start.col)
                ));
            } else {
                props.push(format!("endLine={end_line}"));
            }
        }
        props.push(format!(
            "title={}",
            escape_property(&format!("karmada-policy ({})", f.rule))
        ));
        message.push_str(&visible(&f.message));
        if let Some(field) = &f.field {
            message.push_str(&format!(" [{}]", visible(field)));
        }
        if f.after_fix {
            message.push_str(&format!("\n{}", super::text::AFTER_FIX_NOTE));
        }
        for r in &f.related {
            message.push_str(&format!(
                "\n{} at {}",
                visible(&r.message),
                visible(&r.location.display())
            ));
        }
        out.push_str(&format!(
            "::{level} {}::{}\n",
            props.join(","),
            escape_data(&message)
        ));
    }
    out
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_workflow_command_syntax() {
        assert_eq!(escape_data("50%\nnext"), "50%25%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
