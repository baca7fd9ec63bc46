//! `plan -o markdown`: a pull-request comment. A hidden marker first (the GitHub Action finds
//! its own comment by it and updates it), a summary table per environment, the hazards, then
//! each environment's details in a collapsible section. The whole stays under GitHub's comment
//! limit: details are cut at a template's boundary, with a note saying how many were left out.

use serde_json::Value;

use super::plan::{
    cluster_text, hazard_message, one_sided_text, owner_text, template_delta_name, value_text,
    Counts, PlanReport,
};
use crate::engine::plan::{EnvPlan, TemplatePlan};

/// The hidden first line the Action looks for in a pull request's comments.
pub const MARKER: &str = "<!-- kubectl-karmada-policy:plan -->";

/// GitHub's limit on a comment's body, in characters.
pub const GITHUB_LIMIT: usize = 65_536;

/// Room kept under the limit for the closing tags and the note of a cut.
const RESERVE: usize = 1_024;

/// Hazards listed at most (the rest are counted).
const MAX_HAZARDS: usize = 50;

/// The comment, at most `limit` characters.
pub fn render(r: &PlanReport, limit: usize) -> String {
    let budget = limit.saturating_sub(RESERVE);
    let mut out = Body {
        text: String::new(),
        chars: 0,
    };
    out.push(&format!(
        "{MARKER}\n### Karmada plan: {} → {}\n\n",
        code(&r.from),
        text(&r.to)
    ));
    out.push(&table(r, budget / 3));
    out.push(&unrendered(r));
    out.push(&hazards(r, budget / 3));
    let total: usize = r.environments.iter().map(|(_, p)| p.changes.len()).sum();
    let mut shown = 0;
    let mut cut = false;
    for (name, p) in r.environments.iter().filter(|(_, p)| p.has_changes()) {
        if cut {
            break;
        }
        let (section, n, complete) = details(name, p, budget.saturating_sub(out.chars));
        shown += n;
        cut = !complete;
        out.push(&section);
    }
    if cut {
        out.push(&format!(
            "\n> **Details cut** to stay under GitHub's comment limit ({GITHUB_LIMIT} characters): {} of {total} templates are not shown. Run `kubectl karmada-policy plan` (or see this job's log) for everything.\n",
            total - shown
        ));
    }
    out.text
}

/// The roots that did not render, whose objects the plan could not compare.
fn unrendered(r: &PlanReport) -> String {
    let mut out = String::new();
    for (name, roots) in &r.unrendered {
        let roots: Vec<String> = roots.iter().map(|root| code(root)).collect();
        out.push_str(&format!(
            "\n> ⚠️ {}: not compared, did not render: {}\n",
            code(name),
            roots.join(", ")
        ));
    }
    out
}

/// Text with its length in characters kept as it grows.
struct Body {
    text: String,
    chars: usize,
}

impl Body {
    fn push(&mut self, s: &str) {
        self.chars += s.chars().count();
        self.text.push_str(s);
    }
}

/// Inline code that no backtick in `s` can end early.
fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

/// Text from the inputs that markdown and HTML must not interpret.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' | '*' | '_' | '[' | ']' | '\\' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Propagation and override policies in one cell.
fn policies_cell(c: &Counts) -> String {
    match (c.policies_text(), c.overrides_text()) {
        (p, o) if o.is_empty() => p,
        (p, o) if p.is_empty() => format!("overrides: {o}"),
        (p, o) => format!("{p}; overrides: {o}"),
    }
}

fn or_dash(s: String) -> String {
    if s.is_empty() {
        "—".to_string()
    } else {
        text(&s)
    }
}

/// The summary table: one row per environment, cut (with a row saying so) past `budget`.
fn table(r: &PlanReport, budget: usize) -> String {
    let mut out =
        String::from("| Environment | Policies | Templates | Member clusters | Hazards |\n|---|---|---|---|---|\n");
    for (i, (name, p)) in r.environments.iter().enumerate() {
        let row = if p.has_changes() {
            let c = Counts::of(p);
            let hazards = if c.hazards > 0 {
                format!("⚠️ {}", c.hazards)
            } else {
                "—".to_string()
            };
            format!(
                "| {}{} | {} | {} | {} | {hazards} |\n",
                code(name),
                one_sided_text(r.one_sided(name)),
                or_dash(policies_cell(&c)),
                or_dash(c.templates_text()),
                or_dash(c.clusters_text())
            )
        } else if !r.unrendered_in(name).is_empty() {
            format!(
                "| {}{} | not compared: did not render | — | — | — |\n",
                code(name),
                one_sided_text(r.one_sided(name))
            )
        } else {
            format!(
                "| {}{} | no change | — | — | — |\n",
                code(name),
                one_sided_text(r.one_sided(name))
            )
        };
        if out.chars().count() + row.chars().count() > budget {
            out.push_str(&format!(
                "| … | {} more environments not listed | | | |\n",
                r.environments.len() - i
            ));
            break;
        }
        out.push_str(&row);
    }
    out
}

/// The hazards of every environment, at most [`MAX_HAZARDS`] and `budget` characters.
fn hazards(r: &PlanReport, budget: usize) -> String {
    let all: Vec<(&String, &crate::engine::plan::Hazard)> = r
        .environments
        .iter()
        .flat_map(|(n, p)| p.hazards.iter().map(move |h| (n, h)))
        .collect();
    if all.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n#### ⚠️ Hazards\n\n");
    let mut listed = 0;
    let mut seen: Vec<String> = Vec::new();
    for (name, h) in &all {
        let mut message = hazard_message(h);
        // A change several environments share is one hazard, said once for all of them.
        let name = match h {
            crate::engine::plan::Hazard::Shared { environments, .. } => {
                if seen.contains(&message) {
                    listed += 1;
                    continue;
                }
                seen.push(message.clone());
                environments.join(", ")
            }
            _ => name.to_string(),
        };
        if message.chars().count() > 1_000 {
            message = message.chars().take(997).collect::<String>() + "...";
        }
        let item = format!(
            "- **{}** · {}: {}\n",
            text(&name),
            code(h.code()),
            text(&message)
        );
        if listed == MAX_HAZARDS || out.chars().count() + item.chars().count() > budget {
            break;
        }
        out.push_str(&item);
        listed += 1;
    }
    if listed < all.len() {
        out.push_str(&format!(
            "- … and {} more (see the job's log)\n",
            all.len() - listed
        ));
    }
    out
}

/// One environment's collapsible details within `budget` characters: the section, how many
/// templates it shows and whether it shows them all.
fn details(name: &str, p: &EnvPlan, budget: usize) -> (String, usize, bool) {
    let mut out = format!(
        "\n<details><summary><b>{}</b>: {} template{}</summary>\n\n",
        text(name),
        p.changes.len(),
        if p.changes.len() == 1 { "" } else { "s" }
    );
    out.push_str(&policies(p));
    let mut chars = out.chars().count();
    let mut shown = 0;
    let closing = "\n</details>\n";
    if !p.changes.is_empty() {
        out.push_str("**Templates**\n\n");
    }
    for c in &p.changes {
        let entry = template(c);
        let n = entry.chars().count();
        if chars + n + closing.len() > budget {
            out.push_str(closing);
            return (out, shown, false);
        }
        chars += n;
        out.push_str(&entry);
        shown += 1;
    }
    out.push_str(closing);
    (out, shown, true)
}

fn policies(p: &EnvPlan) -> String {
    if p.policies.is_empty() && p.overrides.is_empty() {
        return String::new();
    }
    let mut out = String::from("**Policies**\n\n");
    for l in p.edit_lines() {
        let verdict = if l.refused.is_empty() {
            String::new()
        } else {
            format!(
                " — **refused by admission**, {}: {}",
                l.effect,
                text(&l.refused.join("; "))
            )
        };
        out.push_str(&format!(
            "- {} {}{verdict}\n",
            l.edit.as_str(),
            code(&l.name)
        ));
    }
    out.push('\n');
    out
}

/// One template: its owner change, what blocks a takeover, each cluster's change, and the
/// manifest fields in a diff block.
fn template(c: &TemplatePlan) -> String {
    let mut out = format!(
        "- {}: {}\n",
        code(&c.template.to_string()),
        text(&owner_text(c))
    );
    for b in &c.blocked_by {
        out.push_str(&format!(
            "  - not taken by {}: {}\n",
            code(&b.policy.to_string()),
            text(&super::explain::block_message(&b.reason))
        ));
    }
    if let Some(e) = &c.unschedulable {
        out.push_str(&format!("  - not scheduled: {}\n", text(e)));
    }
    for line in super::plan::otherwise_texts(c) {
        out.push_str(&format!("  - {}\n", text(&line)));
    }
    for (cluster, why) in &c.excluded {
        out.push_str(&format!(
            "  - {}: not a target: {}\n",
            code(cluster),
            text(why)
        ));
    }
    if let Some([_, short]) = super::plan::may_text(c) {
        out.push_str(&format!("  - may: {}\n", text(short)));
    }
    if let Some(later) = super::plan::lazy_text(c) {
        out.push_str(&format!("  - {}\n", text(&later)));
    }
    let mut diff = Vec::new();
    for d in &c.clusters {
        out.push_str(&format!(
            "  - {}: {}\n",
            code(&template_delta_name(c, d)),
            text(&cluster_text(d, c.preserved).join(", "))
        ));
        for f in &d.manifest {
            diff.push(format!("@ {} {}", template_delta_name(c, d), f.path));
            diff.push(format!("- {}", side(f.before.as_ref())));
            diff.push(format!("+ {}", side(f.after.as_ref())));
        }
    }
    if !diff.is_empty() {
        let body = diff.join("\n");
        let fence = "`".repeat(longest_backtick_run(&body).max(2) + 1);
        out.push_str(&format!("\n  {fence}diff\n"));
        for line in body.lines() {
            out.push_str(&format!("  {line}\n"));
        }
        out.push_str(&format!("  {fence}\n\n"));
    }
    out
}

fn side(v: Option<&Value>) -> String {
    value_text(v).replace(['\n', '\r'], " ")
}

fn longest_backtick_run(s: &str) -> usize {
    let mut best = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}
