//! Renders `explain`'s `placement` and `overrides` sections (issues 21, 22): the JSON contract
//! and a readable form (the feasible clusters with each exclusion, and per cluster a diff of
//! the manifest it receives against the template).

use serde_json::{json, Value};

use crate::engine::delivery::Delivery;
use crate::engine::overrides::{AppliedPolicy, ClusterOverrides};
use crate::engine::placement::{PlacementResult, Unevaluated};
use crate::engine::policy_view::PolicyPlacement;
use crate::engine::replicas::Outcome;

/// `"placement": {"term", "clusters", "excluded": [{"cluster","filter","reason"}]}`, plus
/// `error` when scheduling fails and `picks` when spread constraints choose by score.
/// `clusters` is the filter stage's feasible set, also when the selection after it fails
/// (spread constraints): `error` then says why nothing is scheduled.
pub fn placement_json(p: &PlacementResult) -> Value {
    let d = &p.decided;
    let ok = d.error.is_none();
    let mut v = json!({
        "term": if ok { json!(d.term) } else { Value::Null },
        "clusters": d.feasible,
        "excluded": d.excluded.iter().map(|e| {
            let mut x = json!({"cluster": e.cluster, "filter": e.first().filter.as_str(), "reason": e.first().reason});
            if e.failures.len() > 1 {
                x["alsoFails"] = e.failures[1..].iter().map(|f| json!({"filter": f.filter.as_str(), "reason": f.reason})).collect();
            }
            x
        }).collect::<Vec<_>>(),
    });
    if let Some(err) = &d.error {
        v["error"] = json!({
            "reason": err.reason(),
            "message": err.text(),
        });
    }
    if let Some(n) = d.picks {
        v["picks"] = json!(n);
    }
    if p.attempts.len() > 1 {
        v["tried"] = p.attempts.iter().map(|a| json!(a.term)).collect();
    }
    if !p.unreported.is_empty() {
        v["apisAssumed"] = json!(p.unreported);
    }
    super::replicas::add_json(&mut v, d);
    v
}

/// `"overrides": [{"cluster","policies":[{"kind","namespace","name"}],"manifest","error",
/// "failedRule"?: {"kind","namespace"?,"name","rule"}, "errorMayNotHappen"?: {"defaultedField"},
/// "unevaluated"?: [{"kind","namespace"?,"name","rule"}]}]`.
pub fn overrides_json(list: &[ClusterOverrides]) -> Value {
    list.iter()
        .map(|c| {
            let mut v = json!({
                "cluster": c.cluster,
                "policies": c.policies.iter().map(|p| {
                    let mut v = policy_json(p);
                    v["rules"] = p.rules.iter().map(|(i, changed)| json!({"index": i, "changed": changed})).collect();
                    v
                }).collect::<Vec<_>>(),
                "manifest": c.manifest,
                "error": c.error.as_ref().map(|e| e.message.clone()),
            });
            if let Some((p, rule)) = c.error.as_ref().and_then(|e| e.at.as_deref()) {
                let mut failed = policy_json(p);
                failed["rule"] = json!(rule);
                v["failedRule"] = failed;
            }
            if let Some(field) = &c.defaulted {
                v["errorMayNotHappen"] = json!({"defaultedField": field});
            }
            if !c.unevaluated.is_empty() {
                v["unevaluated"] = c
                    .unevaluated
                    .iter()
                    .map(|(p, rule)| {
                        let mut v = policy_json(p);
                        v["rule"] = json!(rule);
                        v
                    })
                    .collect();
            }
            v
        })
        .collect()
}

/// `{"kind", "namespace"?, "name"}`.
fn policy_json(p: &AppliedPolicy) -> Value {
    let mut v = json!({"kind": p.kind});
    if let Some(ns) = &p.namespace {
        v["namespace"] = json!(ns);
    }
    v["name"] = json!(p.name);
    v
}

/// Adds the sections to an explain JSON object (only those that have something to say).
pub fn add_json(v: &mut Value, d: &Delivery) {
    if let Some(p) = &d.placement {
        v["placement"] = placement_json(p);
        if d.by_names {
            v["placement"]["byNames"] = json!(true);
        }
        if let Some(problem) = &d.replicas_problem {
            v["placement"]["assignmentUnknown"] = json!({"missing": [], "message": problem});
        }
    }
    if let Some(u) = &d.unplaced {
        add_unplaced_json(v, u);
    }
    if !d.overrides.is_empty() {
        v["overrides"] = overrides_json(&d.overrides);
    }
}

/// `"placementUnknown": {"message", "namedClusters"}`, and `"knownClusters"` when the
/// configuration names the fleet: a placement not evaluated for want of Cluster objects
/// ([`Delivery::unplaced`]).
pub fn add_unplaced_json(v: &mut Value, u: &Unevaluated) {
    v["placementUnknown"] = json!({"message": unplaced_message(u), "namedClusters": u.named});
    if !u.known_by_name.is_empty() {
        v["placementUnknown"]["knownClusters"] = json!(u.known_by_name);
    }
}

/// The text form of [`add_unplaced_json`].
pub fn unplaced_text(u: &Unevaluated) -> String {
    format!("\nplacement: {}\n", unplaced_message(u))
}

/// Why an owner's placement was not evaluated ([`Delivery::unplaced`]), naming the clusters
/// it names. With `knownClusters` the fleet is known, by name only: what is missing is what
/// the placement selects by besides names (labels, fields, taints, spread, capacity).
fn unplaced_message(u: &Unevaluated) -> String {
    let names = if u.named.is_empty() {
        String::new()
    } else {
        format!("; the placement names {}", u.named.join(", "))
    };
    let why = if u.known_by_name.is_empty() {
        "no Cluster objects are known".to_string()
    } else {
        format!(
            "knownClusters names the clusters by name only ({}), and names alone do not \
             decide this placement: it selects by labels, fields or taints, spreads, or divides \
             replicas by the clusters' state",
            u.known_by_name.join(", ")
        )
    };
    format!(
        "not evaluated: {why} (add the control plane's Cluster objects with -f, or explain \
         against it with --context){names}"
    )
}

/// A policy's placement: `placement` for the first kind it selects and, when it selects
/// several, `placements: [{"apiVersion", "kind", "placement"}]` for each (the scheduler judges
/// each binding on its own API).
pub fn add_policy_placement_json(v: &mut Value, p: &PolicyPlacement) {
    v["placement"] = placement_json(p.first());
    if p.by_names {
        v["placement"]["byNames"] = json!(true);
    }
    if p.by_kind.len() > 1 {
        v["placements"] = p
            .by_kind
            .iter()
            .map(|((api_version, kind), r)| {
                json!({"apiVersion": api_version, "kind": kind, "placement": placement_json(r)})
            })
            .collect();
    }
}

/// A policy's placement in text: one section, or one per kind it selects when the kinds land
/// apart.
pub fn policy_placement_text(p: &PolicyPlacement) -> String {
    let first = placement_text(p.first());
    let mut out = if p.by_kind.iter().all(|(_, r)| placement_text(r) == first) {
        first
    } else {
        p.by_kind
            .iter()
            .map(|((api_version, kind), r)| {
                placement_text_titled(r, &format!("placement of {api_version} {kind}"))
            })
            .collect()
    };
    if p.by_names {
        out.push_str(BY_NAMES_NOTE);
    }
    out
}

pub fn placement_text(p: &PlacementResult) -> String {
    placement_text_titled(p, "placement")
}

fn placement_text_titled(p: &PlacementResult, title: &str) -> String {
    let d = &p.decided;
    let mut out = format!("\n{title}");
    if let Some(t) = d.term.as_ref().filter(|_| d.error.is_none()) {
        out.push_str(&format!(" (clusterAffinities term {t:?})"));
    }
    out.push_str(":\n");
    match &d.error {
        None => {
            out.push_str(&format!("  clusters: {}\n", d.feasible.join(", ")));
            match (d.picks, &d.assignment) {
                (_, Some(Outcome::Scheduled(_))) | (None, _) => {}
                // The line after says which capacity is missing.
                (Some(n), Some(Outcome::Unknown { .. } | Outcome::Invalid(_))) => {
                    out.push_str(&format!(
                        "  spread constraints select {n} of them by score, then available replicas\n"
                    ))
                }
                (Some(n), _) => out.push_str(&format!(
                    "  spread constraints select {n} of them by score (not modelled)\n"
                )),
            }
        }
        Some(e) => {
            if !d.feasible.is_empty() {
                // Past the filters, the selection failed: show what passed them.
                out.push_str(&format!("  feasible clusters: {}\n", d.feasible.join(", ")));
            }
            out.push_str(&format!("  no cluster selected: {}\n", e.text()));
        }
    }
    if p.attempts.len() > 1 {
        let tried: Vec<String> = p
            .attempts
            .iter()
            .map(|a| a.term.clone().unwrap_or_default())
            .collect();
        out.push_str(&format!("  terms tried: {}\n", tried.join(" → ")));
        out.push_str(&super::replicas::failed_terms_text(&p.attempts));
    }
    for e in &d.excluded {
        let f = e.first();
        out.push_str(&format!(
            "  excluded {}: {} {}\n",
            e.cluster,
            f.filter.as_str(),
            f.reason
        ));
        for other in &e.failures[1..] {
            out.push_str(&format!(
                "    also {} {}\n",
                other.filter.as_str(),
                other.reason
            ));
        }
    }
    out.push_str(&super::replicas::text(d));
    if !p.unreported.is_empty() {
        let note = crate::model::cluster::assumed_apis_note(&p.unreported);
        out.push_str(&format!("  note: {note}\n"));
    }
    out
}

/// `OverridePolicy NS/NAME` or `ClusterOverridePolicy NAME`.
fn policy_id(p: &AppliedPolicy) -> String {
    crate::model::override_policy::display_id(p.kind, p.namespace.as_deref(), &p.name)
}

/// Per cluster: the policies in order, then a unified diff of the manifest against the template.
/// With `if_selected`, the placement selects only some of the clusters, unknown which
/// ([`Delivery::selection_unknown`]), and each heading says so.
pub fn overrides_text(template: &Value, list: &[ClusterOverrides], if_selected: bool) -> String {
    let mut out = String::new();
    let before = crate::output::yaml::to_yaml(template);
    let condition = if if_selected {
        " (if the placement selects it)"
    } else {
        ""
    };
    for c in list {
        out.push_str(&format!("\noverrides for {}{condition}:\n", c.cluster));
        if c.policies.is_empty() && c.error.is_none() && c.unevaluated.is_empty() {
            out.push_str("  no override policy applies\n");
        }
        for (p, rule) in &c.unevaluated {
            out.push_str(&format!(
                "  not evaluated: {} rule {rule} selects clusters by labels or fields, and the inputs have no Cluster object for {}\n",
                policy_id(p),
                c.cluster
            ));
        }
        for p in &c.policies {
            let id = policy_id(p);
            let changed = p.rules.iter().filter(|r| r.1).count();
            out.push_str(&format!(
                "  {id}: {} rule(s) applied, {changed} changed the manifest\n",
                p.rules.len()
            ));
        }
        match (&c.manifest, &c.error) {
            (_, Some(e)) => {
                let at =
                    e.at.as_deref()
                        .map(|(p, rule)| format!(" in {} rule {rule}", policy_id(p)))
                        .unwrap_or_default();
                match &c.defaulted {
                    None => out.push_str(&format!(
                        "  error{at}: {} (Karmada writes no Work for {} this time)\n",
                        e.message, c.cluster
                    )),
                    Some(field) => out.push_str(&format!(
                        "  error{at} on the template as written: {}\n  may not happen: karmada-apiserver stores this kind with its defaults, which may set {field} (override-fails does not report it)\n",
                        e.message
                    )),
                }
            }
            (Some(m), None) if m == template => out.push_str(if c.unevaluated.is_empty() {
                "  manifest: the template as is\n"
            } else {
                "  manifest: the template as is, unless the rules not evaluated apply\n"
            }),
            (Some(m), None) => {
                let after = crate::output::yaml::to_yaml(m);
                let diff = similar::TextDiff::from_lines(&before, &after);
                let text = diff
                    .unified_diff()
                    .context_radius(2)
                    .header("template", &c.cluster)
                    .to_string();
                for line in text.lines() {
                    out.push_str("  ");
                    out.push_str(line);
                    out.push('\n');
                }
            }
            (None, None) => {}
        }
    }
    out
}

/// Said under a placement evaluated by the names it gives ([`Delivery::by_names`]).
const BY_NAMES_NOTE: &str =
    "  note: no Cluster objects are known: evaluated over clusters known by name only (the \
     configuration's knownClusters, else those the placement names), whose names alone decide \
     it (as plan does), each taken to serve every API\n";

pub fn text(template: &Value, d: &Delivery) -> String {
    let mut out = String::new();
    if let Some(p) = &d.placement {
        out.push_str(&placement_text(p));
        if d.by_names {
            out.push_str(BY_NAMES_NOTE);
        }
        if let Some(problem) = &d.replicas_problem {
            out.push_str(&format!("  replicas unknown: {problem}\n"));
        }
    }
    if let Some(u) = &d.unplaced {
        out.push_str(&unplaced_text(u));
    }
    out.push_str(&overrides_text(
        template,
        &d.overrides,
        d.selection_unknown(),
    ));
    out
}
