//! Renders `explain pp/NAME` / `cpp/NAME`: the JSON contract and a readable list.

use serde_json::{json, Value};

use crate::engine::policy_live::PolicyLive;
use crate::engine::policy_view::{PolicyExplanation, Standing, When};

use super::explain::{assumed_json, excluded_text, owner_text, why_text};

fn when_str(w: When) -> &'static str {
    match w {
        When::Now => "now",
        When::NextTemplateUpdate => "next-template-update",
        When::AfterRestart => "after-restart",
    }
}

fn when_text(w: When) -> &'static str {
    match w {
        When::Now => "at the template's next reconcile",
        When::NextTemplateUpdate => {
            "only on the template's next update (activationPreference: Lazy)"
        }
        When::AfterRestart => "only after the controller processes every policy again (restart)",
    }
}

fn owner(r: &crate::model::PolicyRef) -> Value {
    serde_json::to_value(r).expect("serializable")
}

/// `{"policy", "templates": [{"resource", "status", "when"?, "holder"?, "why"?}], "filtered":
/// [{"resource", "reason"}], "summary": {..}, "dead": ".."|null}`.
pub fn to_json(e: &PolicyExplanation) -> Value {
    let templates: Vec<Value> = e
        .templates
        .iter()
        .map(|s| {
            let mut v = json!({"resource": s.resource});
            match &s.standing {
                Standing::Claimed => v["status"] = json!("claimed"),
                Standing::WillBeClaimed(w) => {
                    v["status"] = json!("will-be-claimed");
                    v["when"] = json!(when_str(*w));
                }
                Standing::HeldByOther { holder, why } => {
                    v["status"] = json!("held-by-other");
                    v["holder"] = owner(holder);
                    v["why"] = json!(why_text(why, &e.policy));
                }
                Standing::Unclaimed { why } => {
                    v["status"] = json!("unclaimed");
                    v["why"] = json!(why.as_ref().map(|w| why_text(w, &e.policy)));
                }
            }
            v
        })
        .collect();
    let c = &e.counts;
    json!({
        "policy": owner(&e.policy),
        "templates": templates,
        "filtered": e.filtered.iter().map(|(r, ex)| json!({"resource": r, "reason": excluded_text(ex)})).collect::<Vec<_>>(),
        "summary": {"selected": c.selected, "claimed": c.claimed, "willBeClaimed": c.will_be_claimed,
            "heldByOther": c.held_by_other, "unclaimed": c.unclaimed, "filtered": c.filtered},
        "dead": e.dead,
        "karmada": assumed_json(&e.assumed),
    })
}

/// The readable list; live, the policy's suspension and counts under its own, and each held
/// template's binding and Works under its line.
pub fn text(e: &PolicyExplanation, live: Option<&PolicyLive>) -> String {
    let mut out = format!("{}\n", owner_text(&e.policy));
    let c = &e.counts;
    out.push_str(&format!(
        "  selects {} template(s): {} claimed, {} will be claimed, {} held by another policy, {} unclaimed; {} filtered\n",
        c.selected, c.claimed, c.will_be_claimed, c.held_by_other, c.unclaimed, c.filtered
    ));
    if let Some(d) = &e.dead {
        out.push_str(&format!("  selects nothing: {d}\n"));
    }
    if let Some(l) = live {
        out.push_str(&super::policy_live::header_text(l));
    }
    for (i, s) in e.templates.iter().enumerate() {
        let line = match &s.standing {
            Standing::Claimed => "claimed by it".to_string(),
            Standing::WillBeClaimed(w) => format!("will be claimed {}", when_text(*w)),
            Standing::HeldByOther { holder, why } => format!(
                "held by {}: {}",
                owner_text(holder),
                why_text(why, &e.policy)
            ),
            Standing::Unclaimed { why } => match why {
                Some(w) => format!("unclaimed: {}", why_text(w, &e.policy)),
                None => "unclaimed".into(),
            },
        };
        out.push_str(&format!("  {}  {line}\n", s.resource));
        if let Some((l, Some(t))) = live.and_then(|l| Some((l, l.templates.get(i)?))) {
            out.push_str(&super::policy_live::template_text(t, l));
        }
    }
    for (r, ex) in &e.filtered {
        out.push_str(&format!("  {r}  filtered: {}\n", excluded_text(ex)));
    }
    out
}
