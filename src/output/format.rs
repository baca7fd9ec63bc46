//! The output formats and the one place that picks a renderer for each: subcommands name a
//! format and hand over their report; they never match on formats themselves.

use std::borrow::Cow;

pub use crate::context::flags::OutputFormat;
use crate::engine::chain::Chain;
use crate::engine::explain_inputs::Explained;
use crate::engine::ownership::OwnershipChange;
use crate::engine::policy_live::PolicyLive;
use crate::engine::policy_view::{PolicyExplanation, PolicyPlacement};
use crate::engine::simulate::CheckReport;
use crate::lint::{registry, Finding, Severity};

use super::Summary;
use crate::util::escape::{json_text, terminal_text};

/// A format of lint's findings (`-o`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
    /// JUnit XML (GitLab, Jenkins, Azure): one test case per rule and object.
    Junit,
}

/// One requested output: a format and where it goes (`None`: stdout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSpec {
    pub format: Format,
    pub file: Option<String>,
    /// The lowest severity shown (--min-severity, --quiet).
    pub min: Severity,
}

/// Why `-o` cannot be honoured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputSpecError {
    #[error("unknown output format `{0}`: expected text, json, sarif, github or junit")]
    Unknown(String),
    #[error("only one output format can go to stdout; write the others to files, e.g. `-o sarif=lint.sarif`")]
    TwoOnStdout,
}

/// `-o text -o sarif=lint.sarif`: at most one format on stdout; none given means text.
pub fn parse_outputs(specs: &[String]) -> Result<Vec<OutputSpec>, OutputSpecError> {
    let mut out = Vec::new();
    for s in specs {
        let (name, file) = match s.split_once('=') {
            Some((n, f)) if !f.is_empty() => (n, Some(f.to_string())),
            Some((n, _)) => (n, None),
            None => (s.as_str(), None),
        };
        let format = match name {
            "text" => Format::Text,
            "json" => Format::Json,
            "sarif" => Format::Sarif,
            "github" => Format::Github,
            "junit" => Format::Junit,
            other => return Err(OutputSpecError::Unknown(other.to_string())),
        };
        out.push(OutputSpec {
            format,
            file,
            min: Severity::Info,
        });
    }
    if out.is_empty() {
        out.push(OutputSpec {
            format: Format::Text,
            file: None,
            min: Severity::Info,
        });
    }
    if out.iter().filter(|o| o.file.is_none()).count() > 1 {
        return Err(OutputSpecError::TwoOnStdout);
    }
    Ok(out)
}

/// What a lint run reports. Text and JSON show `reported` (and the ownership changes in
/// `--base` mode); SARIF, GitHub annotations and JUnit carry only `new_only`, the findings a
/// pull request introduces (the same findings outside `--base`).
pub struct LintReport<'a> {
    pub reported: &'a [Finding],
    pub new_only: &'a [Finding],
    pub ownership: Option<&'a [OwnershipChange]>,
    /// Over a GitOps repository: each environment and the API server it targets (text and
    /// JSON list them).
    pub environments: &'a [crate::lint::gitops::EnvironmentInfo],
    pub summary: &'a Summary,
    /// `--statistics`: text and JSON count the findings per rule instead of listing them.
    pub statistics: bool,
}

/// Writes each requested output (see [`LintReport`] for which findings each format shows),
/// coloured on a coloured stdout only.
pub fn write_lint(
    outputs: &[OutputSpec],
    report: &LintReport<'_>,
) -> Result<(), super::terminal::WriteError> {
    for o in outputs {
        let color = o.file.is_none() && super::terminal::stdout_color();
        let text = render_lint(o.format, o.min, report, color);
        super::terminal::write_to(o.file.as_deref(), &text)?;
    }
    Ok(())
}

/// The findings an output shows: all of them unless a minimum (`--min-severity`) hides some.
/// The summary keeps counting every finding.
fn shown(findings: &[Finding], min: Severity) -> Cow<'_, [Finding]> {
    if findings.iter().all(|f| f.severity >= min) {
        return Cow::Borrowed(findings);
    }
    Cow::Owned(
        findings
            .iter()
            .filter(|f| f.severity >= min)
            .cloned()
            .collect(),
    )
}

/// Lint's findings in `format`, those below `min` left out.
pub fn render_lint(format: Format, min: Severity, r: &LintReport<'_>, color: bool) -> String {
    let reported = shown(r.reported, min);
    let new_only = shown(r.new_only, min);
    match (format, r.statistics) {
        (Format::Text, true) => return super::statistics::text(&reported, r.summary, color),
        (Format::Json, true) => return super::statistics::json(&reported, r.summary),
        _ => {}
    }
    let out = match (format, r.ownership) {
        (Format::Text, own) => {
            super::text::render_report(&reported, own, r.environments, r.summary, color)
        }
        (Format::Json, own) => {
            super::json::render_report(&reported, r.summary, own, r.environments)
        }
        (Format::Sarif, _) => super::sarif::render(&new_only, &registry::all()),
        (Format::Github, _) => super::github::render(&new_only),
        (Format::Junit, _) => super::junit::render(&new_only, &registry::all()),
    };
    // The renderers escape what they quote; this pass keeps anything else from going out raw.
    match format {
        Format::Json | Format::Sarif => json_text(out),
        Format::Text => terminal_text(&out, color).into_owned(),
        Format::Github | Format::Junit => terminal_text(&out, false).into_owned(),
    }
}

/// How `explain` shows a decision: `-o text|json|yaml`, or `--graph dot|mermaid` instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplainFormat {
    Text,
    Json,
    Yaml,
    Dot,
    Mermaid,
}

impl ExplainFormat {
    /// `--graph` wins over `-o` (clap has checked both values).
    pub fn from_flags(output: OutputFormat, graph: Option<&str>) -> ExplainFormat {
        match (graph, output) {
            (Some("mermaid"), _) => ExplainFormat::Mermaid,
            (Some(_), _) => ExplainFormat::Dot,
            (None, OutputFormat::Json) => ExplainFormat::Json,
            (None, OutputFormat::Yaml) => ExplainFormat::Yaml,
            _ => ExplainFormat::Text,
        }
    }
}

/// A report's JSON value as `-o json` or `-o yaml` prints it (the same fields either way).
pub fn structured(v: &serde_json::Value, yaml: bool) -> String {
    if yaml {
        return super::yaml::to_yaml(v);
    }
    let mut out = serde_json::to_string_pretty(v).expect("serializable");
    out.push('\n');
    // DEL and C1 escaped too (JSON leaves them raw); YAML quotes and escapes them itself.
    json_text(out)
}

/// The live part of an explanation: the real chain and what could not be read.
pub struct LiveChain<'a> {
    pub chain: &'a Chain,
    pub notes: &'a [String],
}

/// One template's decision in `format`, with its live chain in live mode, then its delivery
/// (placement and overrides per cluster, and the template they apply to).
pub fn render_explain(
    format: ExplainFormat,
    explained: &Explained,
    live: Option<&LiveChain<'_>>,
    color: bool,
) -> String {
    let e = &explained.decision;
    let graph = || super::graph::from_explain(e, live.map(|l| l.chain));
    let out = match format {
        ExplainFormat::Mermaid => super::graph::mermaid(&graph()),
        ExplainFormat::Dot => super::graph::dot(&graph()),
        ExplainFormat::Json | ExplainFormat::Yaml => {
            let mut v = super::explain::to_json(e);
            if let Some(l) = live {
                v["chain"] = super::chain::to_json(l.chain, l.notes);
            }
            super::delivery::add_json(&mut v, &explained.delivery);
            structured(&v, format == ExplainFormat::Yaml)
        }
        ExplainFormat::Text => {
            let selection_unknown = explained.delivery.selection_unknown();
            let mut out = super::explain::text(e, color, selection_unknown);
            if let Some(l) = live {
                out.push_str(&super::chain::text(l.chain, l.notes, color));
            }
            out.push_str(&super::delivery::text(
                &explained.template,
                &explained.delivery,
            ));
            out
        }
    };
    terminal_safe(format, out, color)
}

/// A report with nothing from its inputs raw (`util::escape`): JSON with DEL and C1 escaped
/// too, text and graphs with every control character but line feeds (and, coloured, the
/// renderer's own colour codes) shown escaped.
fn terminal_safe(format: ExplainFormat, out: String, color: bool) -> String {
    match format {
        ExplainFormat::Json | ExplainFormat::Yaml => out,
        ExplainFormat::Text => terminal_text(&out, color).into_owned(),
        ExplainFormat::Dot | ExplainFormat::Mermaid => terminal_text(&out, false).into_owned(),
    }
}

/// The live part of `explain pp/NAME`: each held template's chain, and what could not be read.
pub struct PolicyLiveChain<'a> {
    pub live: &'a PolicyLive,
    pub notes: &'a [String],
}

/// `explain pp/NAME` / `cpp/NAME`: every selected template, and the policy's placement over the
/// Cluster objects given (if any); live, each held template's binding and Works. The graph
/// merges the templates' claim graphs (live: with their chains).
pub fn render_policy_view(
    format: ExplainFormat,
    e: &PolicyExplanation,
    placement: Option<&PolicyPlacement>,
    live: Option<&PolicyLiveChain<'_>>,
) -> String {
    let out = match format {
        ExplainFormat::Dot | ExplainFormat::Mermaid => {
            let mut graph = None;
            for (i, s) in e.templates.iter().enumerate() {
                let chain = live
                    .and_then(|l| l.live.templates.get(i)?.as_ref())
                    .map(|t| &t.chain);
                let g = super::graph::from_explain(&s.decision, chain);
                graph = Some(match graph {
                    None => g,
                    Some(mut acc) => {
                        super::graph::merge(&mut acc, g);
                        acc
                    }
                });
            }
            let graph = graph.unwrap_or_default();
            if format == ExplainFormat::Mermaid {
                super::graph::mermaid(&graph)
            } else {
                super::graph::dot(&graph)
            }
        }
        ExplainFormat::Json | ExplainFormat::Yaml => {
            let mut v = super::policy_view::to_json(e);
            if let Some(pl) = placement {
                super::delivery::add_policy_placement_json(&mut v, pl);
            } else if let Some(u) = &e.unplaced {
                super::delivery::add_unplaced_json(&mut v, u);
            }
            if let Some(l) = live {
                super::policy_live::add_json(&mut v, l.live, l.notes);
            }
            structured(&v, format == ExplainFormat::Yaml)
        }
        ExplainFormat::Text => {
            let mut out = super::policy_view::text(e, live.map(|l| l.live));
            if let Some(pl) = placement {
                out.push_str(&super::delivery::policy_placement_text(pl));
            } else if let Some(u) = &e.unplaced {
                out.push_str(&super::delivery::unplaced_text(u));
            }
            if let Some(l) = live {
                out.push_str(&super::policy_live::notes_text(l.notes));
            }
            out
        }
    };
    terminal_safe(format, out, false)
}

/// `plan`'s report, `-o text|json|yaml|markdown` (markdown: a pull-request comment under
/// GitHub's size limit).
pub fn render_plan(output: OutputFormat, r: &super::plan::PlanReport, color: bool) -> String {
    match output {
        OutputFormat::Json => structured(&super::plan::to_json(r), false),
        OutputFormat::Yaml => structured(&super::plan::to_json(r), true),
        OutputFormat::Markdown => {
            super::plan_markdown::render(r, super::plan_markdown::GITHUB_LIMIT)
        }
        _ => super::plan::text(r, color),
    }
}

/// `preempt-check`'s report, `-o text|json|yaml`.
pub fn render_preempt_check(output: OutputFormat, r: &CheckReport, color: bool) -> String {
    match output {
        OutputFormat::Json => structured(&super::preempt_check::to_json(r), false),
        OutputFormat::Yaml => structured(&super::preempt_check::to_json(r), true),
        _ => terminal_text(&super::preempt_check::text(r, color), color).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_parse_and_only_one_goes_to_stdout() {
        let o = parse_outputs(&["text".into(), "sarif=lint.sarif".into()]).unwrap();
        assert_eq!(o[1].format, Format::Sarif);
        assert_eq!(o[1].file.as_deref(), Some("lint.sarif"));
        assert!(parse_outputs(&["text".into(), "json".into()]).is_err());
        assert!(parse_outputs(&["xml".into()]).is_err());
        assert_eq!(parse_outputs(&[]).unwrap()[0].format, Format::Text);
    }

    #[test]
    fn a_graph_replaces_the_trace() {
        assert_eq!(
            ExplainFormat::from_flags(OutputFormat::Json, Some("mermaid")),
            ExplainFormat::Mermaid
        );
        assert_eq!(
            ExplainFormat::from_flags(OutputFormat::Text, Some("dot")),
            ExplainFormat::Dot
        );
        assert_eq!(
            ExplainFormat::from_flags(OutputFormat::Json, None),
            ExplainFormat::Json
        );
    }
}
