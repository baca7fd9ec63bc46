//! Human output: rustc-like findings grouped by file, with the source line and a caret.

use std::fmt::Write;

use owo_colors::{OwoColorize, Style};

use crate::engine::ownership::OwnershipChange;
use crate::lint::{Finding, Severity};
use crate::source::Source;

use super::Summary;
use crate::util::escape::{visible, Visible};

/// Renders findings (already sorted) and a summary line.
pub fn render(findings: &[Finding], summary: &Summary, color: bool) -> String {
    render_report(findings, None, &[], summary, color)
}

/// `lint` over a GitOps repository: the findings, the ownership changes (`--base`), the
/// environments and the API server each targets, then the summary.
pub fn render_report(
    findings: &[Finding],
    ownership: Option<&[OwnershipChange]>,
    environments: &[crate::lint::gitops::EnvironmentInfo],
    summary: &Summary,
    color: bool,
) -> String {
    let mut out = render_findings(findings, color);
    if let Some(own) = ownership {
        out.push_str(&ownership_section(own, color));
        out.push('\n');
    }
    out.push_str(&environments_section(environments));
    out.push_str(&summary_line(summary, color));
    out.push('\n');
    out.push_str(&rule_counts(findings));
    out
}

/// ```text
/// environments:
///   mgmt-eu/karmada-kubeconfig: the API server of kubeConfig secret flux-system/karmada-kubeconfig (Karmada 1.17, linted)
///   mgmt-eu: the cluster Flux runs in (clusters/mgmt-eu) (not a Karmada API server: not linted)
///   examples: loose files: no Flux Kustomization or Argo CD Application applies them (Karmada 1.19, linted)
/// ```
/// More than three directories of loose files are one line (JSON lists each). Nothing for plain
/// manifests.
fn environments_section(envs: &[crate::lint::gitops::EnvironmentInfo]) -> String {
    if envs.is_empty() {
        return String::new();
    }
    let loose = |e: &&crate::lint::gitops::EnvironmentInfo| e.loose;
    let many_loose = envs.iter().filter(loose).count() > 3;
    let mut out = String::from("environments:\n");
    for e in envs.iter().filter(|e| !(many_loose && e.loose)) {
        let what = match (&e.version, e.karmada) {
            // The objects of a root that did not render are not in the run.
            (Some(v), true) if e.incomplete() && e.nothing_rendered => {
                format!("Karmada {v}; not linted: it did not render")
            }
            (Some(v), true) if e.incomplete() => match e.unrendered.len() {
                1 => format!("Karmada {v}, linted but for the root that did not render"),
                n => format!("Karmada {v}, linted but for the {n} roots that did not render"),
            },
            (Some(v), true) => format!("Karmada {v}, linted"),
            // Its findings are the roots that did not render, which may hold what would make
            // it one.
            _ if e.incomplete() => {
                "not a Karmada API server as far as it renders: not linted; its roots that did not render are reported"
                    .to_string()
            }
            // A directory of loose files is judged a Karmada API server's input unless it
            // holds no Kubernetes object at all.
            _ if e.loose => "no Kubernetes objects: not linted".to_string(),
            _ => "not a Karmada API server: not linted".to_string(),
        };
        out.push_str(&format!("  {}: {} ({what})\n", e.name, e.target));
    }
    if many_loose {
        let n = envs.iter().filter(loose).count();
        out.push_str(&format!(
            "  {n} directories of loose files: no Flux Kustomization or Argo CD Application applies them (each linted on its own)\n"
        ));
    }
    out.push('\n');
    out
}

/// `by rule: overlap 3, preemption-requires-name 1`: the most frequent first (then by id),
/// so a noisy rule stands out; nothing when there are no findings.
fn rule_counts(findings: &[Finding]) -> String {
    let counts = by_frequency(findings.iter());
    if counts.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = counts.iter().map(|(id, n)| format!("{id} {n}")).collect();
    // rustc's closing pointer at `--explain`, for the most frequent rule, of those the API
    // server reports now (an `afterFix` refusal comes only once the first one is fixed).
    let now = by_frequency(findings.iter().filter(|f| !f.after_fix));
    format!(
        "by rule: {}\nFor more information about a rule, try `kubectl karmada-policy lint --explain {}`.\n",
        parts.join(", "),
        now.first().unwrap_or(&counts[0]).0
    )
}

/// Each rule of `findings` with its count, the most frequent first (then by id).
fn by_frequency<'a>(findings: impl Iterator<Item = &'a Finding>) -> Vec<(&'static str, usize)> {
    let mut counts: std::collections::BTreeMap<&'static str, usize> =
        std::collections::BTreeMap::new();
    for f in findings {
        *counts.entry(f.rule).or_default() += 1;
    }
    let mut counts: Vec<(&'static str, usize)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    counts
}

/// `lint --base`: the findings, then an "Ownership changes" section, then the summary line.
pub fn render_with_ownership(
    findings: &[Finding],
    ownership: &[OwnershipChange],
    summary: &Summary,
    color: bool,
) -> String {
    render_report(findings, Some(ownership), &[], summary, color)
}

/// ```text
/// Ownership changes:
///   apps/v1/Deployment default/nginx: PropagationPolicy default/a -> PropagationPolicy default/b (preempted)
///   apps/v1/Deployment default/web: stays with PropagationPolicy default/a
///     would move to PropagationPolicy default/c but blocked: equal priority (5)...
/// ```
/// Over a GitOps repository each change ends with the environments it happens in
/// (`(in: prod, staging)`).
pub fn ownership_section(changes: &[OwnershipChange], color: bool) -> String {
    let mut out = paint("Ownership changes:", Style::new().bold(), color);
    out.push('\n');
    if changes.is_empty() {
        out.push_str("  none\n");
    }
    let owner = |r: &Option<crate::model::PolicyRef>| {
        r.as_ref()
            .map_or_else(|| "unclaimed".to_string(), ToString::to_string)
    };
    for c in changes {
        let mut head = if c.before == c.after {
            format!("  {}: stays with {}", c.resource, owner(&c.after))
        } else {
            format!(
                "  {}: {} -> {}{}",
                c.resource,
                owner(&c.before),
                owner(&c.after),
                if c.preempted { " (preempted)" } else { "" }
            )
        };
        if !c.environments.is_empty() {
            let _ = write!(head, " (in: {})", c.environments.join(", "));
        }
        let style = if c.before == c.after {
            Style::new().yellow()
        } else {
            Style::new().green()
        };
        let _ = writeln!(out, "{}", paint(&head, style, color));
        for b in &c.blocked_by {
            let _ = writeln!(
                out,
                "    would move to {} but blocked: {} ({})",
                b.policy,
                super::explain::block_message(&b.reason),
                b.reason.code()
            );
        }
        if let Some(r) = &c.replicas {
            let _ = writeln!(out, "    replicas: {}", super::replicas::shift_text(r));
        }
    }
    out
}

fn render_findings(findings: &[Finding], color: bool) -> String {
    fn file(f: &Finding) -> Option<&str> {
        f.location.as_ref().map(|l| l.source.name.as_str())
    }
    let groups: Vec<&[Finding]> = findings.chunk_by(|a, b| file(a) == file(b)).collect();
    if findings.len() < PARALLEL_MIN_FINDINGS {
        return render_groups(&groups, color);
    }
    // Printing a line under each finding reads its file again (a large lint has let the texts
    // go): the files are split over two threads at the middle finding, each half rendered
    // on its own and the two joined in order.
    let mut seen = 0;
    let split = groups
        .iter()
        .position(|g| {
            seen += g.len();
            seen >= findings.len() / 2
        })
        .map_or(groups.len(), |i| i + 1);
    let (first, second) = groups.split_at(split);
    let (mut out, second) = crate::util::parallel::join(
        || render_groups(first, color),
        || render_groups(second, color),
    );
    out.push_str(&second);
    out
}

/// Findings above which rendering runs on two threads.
const PARALLEL_MIN_FINDINGS: usize = 1_000;

/// Findings grouped by file (each group one file's, or those without a file): each file's are
/// rendered with its text loaded once where the lines it prints were not kept in memory (see
/// `Source::with_lines`), one file at a time.
fn render_groups(groups: &[&[Finding]], color: bool) -> String {
    let mut out = String::new();
    for group in groups {
        let render = |out: &mut String, lines: Option<&Source>| {
            if let Some(source) = lines {
                let name = paint(
                    &visible(&source.name),
                    Style::new().bold().underline(),
                    color,
                );
                let _ = writeln!(out, "{name}");
            }
            for f in *group {
                render_one(out, f, lines, color);
                out.push('\n');
            }
        };
        match &group[0].location {
            Some(l) => {
                let printed = group
                    .iter()
                    .filter_map(|f| Some(f.location.as_ref()?.span.start.line));
                l.source
                    .with_lines(printed, |lines| render(&mut out, Some(lines)))
            }
            None => render(&mut out, None),
        }
    }
    out
}

fn severity_style(s: Severity) -> Style {
    match s {
        Severity::Error => Style::new().red().bold(),
        Severity::Warning => Style::new().yellow().bold(),
        Severity::Info => Style::new().cyan().bold(),
    }
}

fn paint(text: &str, style: Style, color: bool) -> String {
    if color {
        text.style(style).to_string()
    } else {
        text.to_string()
    }
}

/// One finding:
/// ```text
/// error[preemption-requires-name]: name cannot be empty if preemption is Always, ...
///   --> pp.yaml:9:7
///    |
///  9 |     - apiVersion: apps/v1
///    |       ^^^^^^^^^^
///    = field: spec.resourceSelectors[0].name
/// ```
/// `lines` is the text of the finding's file (see [`render_findings`]).
fn render_one(out: &mut String, f: &Finding, lines: Option<&Source>, color: bool) {
    let head = format!("{}[{}]", f.severity.as_str(), f.rule);
    let _ = writeln!(
        out,
        "{}{} {}",
        paint(&head, severity_style(f.severity), color),
        paint(":", Style::new().bold(), color),
        paint(&visible(&f.message), Style::new().bold(), color)
    );
    let gutter_style = Style::new().blue().bold();
    let Some(loc) = &f.location else {
        if let Some(obj) = &f.object {
            let _ = writeln!(out, "  --> {}", Visible(&obj.to_string()));
        }
        notes(out, "  ", f, color);
        return;
    };
    let line_no = loc.span.start.line.to_string();
    let pad = " ".repeat(line_no.len());
    let _ = writeln!(
        out,
        "{pad}{} {}",
        paint("-->", gutter_style, color),
        Visible(&loc.display())
    );
    if let Some(line) = lines.and_then(|l| l.line(loc.span.start.line)) {
        let (text, span) = shown_part(line, loc.span);
        let (start, width) = caret_range(&text, span);
        // Columns are counted on the printed line, past the escapes of control characters.
        let (shown, columns) = crate::util::escape::snippet_line(&text);
        let end = columns[(start + width).min(columns.len() - 1)];
        let (start, width) = (columns[start], end - columns[start]);
        let bar = paint("|", gutter_style, color);
        let _ = writeln!(out, "{pad} {bar}");
        let _ = writeln!(
            out,
            "{} {bar} {shown}",
            paint(&line_no, gutter_style, color)
        );
        let carets = "^".repeat(width.max(1));
        let _ = writeln!(
            out,
            "{pad} {bar} {}{}",
            " ".repeat(start),
            paint(&carets, severity_style(f.severity), color)
        );
    }
    notes(out, &pad, f, color);
}

/// The `= field:`, `= note:` and `= help:` lines under a finding (`pad`: the gutter's width).
fn notes(out: &mut String, pad: &str, f: &Finding, color: bool) {
    let eq = paint("=", Style::new().blue().bold(), color);
    if let Some(field) = &f.field {
        let _ = writeln!(out, "{pad} {eq} field: {}", Visible(field));
    }
    if f.after_fix {
        let _ = writeln!(out, "{pad} {eq} note: {AFTER_FIX_NOTE}");
    }
    for r in &f.related {
        let at = if f.location.is_some() {
            format!(" at {}", r.location.display())
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{pad} {eq} note: {}",
            Visible(&format!("{}{at}", r.message))
        );
    }
    if let Some(fix) = crate::lint::registry::find(f.rule).map(|d| d.fix) {
        if !fix.is_empty() {
            let _ = writeln!(
                out,
                "{pad} {eq} {} {fix}",
                paint("help:", Style::new().bold(), color)
            );
        }
    }
}

/// Under a refusal of a later admission stage (`Finding::after_fix`).
pub const AFTER_FIX_NOTE: &str =
    "reported once this object's first refusal is fixed (the API server stops at the first stage that refuses)";

/// Characters of a source line printed at most: a 50 MB one-line scalar is not echoed back.
const MAX_SHOWN_CHARS: usize = 160;

/// The part of `line` to print under a finding and the span moved into it: the whole line when
/// short, else [`MAX_SHOWN_CHARS`] around the start of the span, cut ends marked with `…`.
fn shown_part(
    line: &str,
    span: crate::source::Span,
) -> (std::borrow::Cow<'_, str>, crate::source::Span) {
    if line.len() <= MAX_SHOWN_CHARS {
        return (line.into(), span);
    }
    let start = span.start.col.max(1) as usize - 1;
    let first = start.saturating_sub(MAX_SHOWN_CHARS / 4);
    let mut chars = line.chars().skip(first);
    let mut shown: String = if first > 0 {
        "…".into()
    } else {
        String::new()
    };
    shown.extend(chars.by_ref().take(MAX_SHOWN_CHARS));
    if chars.next().is_some() {
        shown.push('…');
    }
    let shift = |col: u32| {
        let moved = (col as usize).saturating_sub(first) + usize::from(first > 0);
        moved.min(MAX_SHOWN_CHARS + 1) as u32
    };
    let mut moved = span;
    moved.start.col = shift(span.start.col);
    if span.end.line == span.start.line {
        moved.end.col = shift(span.end.col);
    }
    (shown.into(), moved)
}

/// Where the caret starts (0-based column) and how wide it is: the span when it stays on one
/// line, otherwise the token under the start position.
fn caret_range(line: &str, span: crate::source::Span) -> (usize, usize) {
    let chars: Vec<char> = line.chars().collect();
    let start = (span.start.col.max(1) as usize - 1).min(chars.len());
    let width = if span.end.line == span.start.line && span.end.col > span.start.col {
        (span.end.col - span.start.col) as usize
    } else {
        chars[start..]
            .iter()
            .take_while(|c| !c.is_whitespace() && **c != ':' && **c != ',')
            .count()
    };
    (
        start,
        width.clamp(1, chars.len().saturating_sub(start).max(1)),
    )
}

pub(super) fn summary_line(s: &Summary, color: bool) -> String {
    let plural = |n: usize, word: &str| {
        let many = match word {
            "policy" => "policies".to_string(),
            _ => format!("{word}s"),
        };
        if n == 1 {
            format!("{n} {word}")
        } else {
            format!("{n} {many}")
        }
    };
    let counts = format!(
        "{}, {}, {}",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.infos, "info")
    );
    let counts = if s.errors > 0 {
        paint(&counts, Style::new().red().bold(), color)
    } else if s.warnings > 0 {
        paint(&counts, Style::new().yellow().bold(), color)
    } else {
        paint(&counts, Style::new().green().bold(), color)
    };
    format!(
        "{counts} in {} ({} , {})",
        plural(s.files, "file"),
        plural(s.documents, "document"),
        plural(s.policies, "policy")
    )
    .replace(" , ", ", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Pos, Span};

    /// Karmada's application-failover.md example (1.19): the API server refuses the purge mode
    /// (schema); the webhook's propagateDeps refusal comes only after that fix. The pointer
    /// names the refusal the user meets first.
    #[test]
    fn the_explain_pointer_names_a_refusal_the_api_server_reports_now() {
        let mut later = Finding::new(
            "application-failover-requires-propagate-deps",
            crate::lint::finding::Severity::Error,
            "m",
        );
        later.after_fix = true;
        let now = Finding::new("schema-enum", crate::lint::finding::Severity::Error, "m");
        let text = rule_counts(&[later.clone(), now]);
        assert!(text.ends_with("--explain schema-enum`.\n"), "{text}");
        assert!(rule_counts(&[later])
            .ends_with("--explain application-failover-requires-propagate-deps`.\n"));
    }

    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let line = format!("key: {}", "x".repeat(100_000));
        let span = crate::source::Span::point(1, 50_000);
        let (shown, moved) = shown_part(&line, span);
        assert_eq!(shown.chars().count(), MAX_SHOWN_CHARS + 2);
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(moved.start.col, 42);
        let short = shown_part("a: b", span);
        assert_eq!(short.0, "a: b");
    }

    #[test]
    fn caret_covers_the_token_or_the_span() {
        let line = "    - apiVersion: apps/v1";
        let one_point = Span::point(1, 7);
        assert_eq!(caret_range(line, one_point), (6, 10));
        let span = Span {
            start: Pos { line: 1, col: 19 },
            end: Pos { line: 1, col: 26 },
        };
        assert_eq!(caret_range(line, span), (18, 7));
    }
}
