//! Several policies match one template: who wins and why (claim-and-preemption.md §2.3, §3).
//! Where the templates are not in the input, selectors that can match the same objects.

use std::collections::{BTreeMap, HashSet};

use crate::engine::rank::{self, Decider};
use crate::engine::simulate::fresh_match_why;
use crate::engine::state::PolicyEntry;
use crate::lint::analysis::Analysis;
use crate::lint::finding::{Finding, Partner, Severity};
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};
use crate::model::policy::{LabelSelector, ResourceSelector};
use crate::source::FieldPath;

pub const OVERLAP: RuleDoc = RuleDoc {
    id: "overlap",
    group: RuleGroup::Semantics,
    default_severity: Severity::Info,
    summary: "A template in the input is matched by two or more policies",
    rationale: "Only one policy claims a template: the highest explicit priority, then the most precise selector \
                (name > label selector > kind only), then the name that sorts first; any PropagationPolicy beats every \
                ClusterPropagationPolicy. The losing policy's placement never applies to that template. A warning \
                when only name order decides: renaming a policy would silently move the template. One finding per \
                losing policy: it names up to three of the policies that take its templates and counts the rest; \
                JSON `partners` lists every one and every template.",
    example: "kind: PropagationPolicy\nmetadata: {name: a, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n---\nkind: PropagationPolicy\nmetadata: {name: b, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n",
    fix: "Make the selectors disjoint, or make the choice explicit with different `spec.priority` values (priority \
          decides only between policies of one kind: a PropagationPolicy beats any ClusterPropagationPolicy).",
    reference: "pkg/detector/compare.go:30-126 (getHighestPriorityPropagationPolicy, getHighestPriorityClusterPropagationPolicy); pkg/detector/policy.go:61-94 (ResourceDetector.propagateResource: any PP before a CPP)",
};

pub const POTENTIAL_OVERLAP: RuleDoc = RuleDoc {
    id: "potential-overlap",
    group: RuleGroup::Semantics,
    default_severity: Severity::Info,
    summary: "Two policies' selectors can match the same objects (no such template is in the input)",
    rationale: "Same apiVersion, kind and namespace, names equal or absent, and label selectors that are not \
                provably disjoint: when such a template appears, only one of the policies will claim it.",
    example: "spec:\n  resourceSelectors:\n    - {apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {team: a}}}\n---\nspec:\n  resourceSelectors:\n    - {apiVersion: v1, kind: ConfigMap}\n",
    fix: "Make the selectors disjoint (names, or label values that exclude each other), or set explicit priorities \
          (priority decides only between policies of one kind: a PropagationPolicy beats any ClusterPropagationPolicy).",
    reference: "pkg/util/selector.go:55-94 (ResourceSelectorPriority); pkg/detector/compare.go:30-126 (getHighestPriorityPropagationPolicy)",
};

pub static RULE: Rule = Rule {
    docs: &[OVERLAP, POTENTIAL_OVERLAP],
    checks: &[Check::Semantic(check)],
};

fn why(a: &Analysis<'_>, winner: usize, loser: usize, t: usize) -> String {
    fresh_match_why(a.state, winner, loser, t).to_string()
}

pub fn check(a: &Analysis<'_>) -> Vec<Finding> {
    let mut out = overlaps(a);
    out.extend(potential_overlaps(a));
    out
}

/// A policy that takes templates from another: the winner and the templates, in input order.
struct Pair {
    winner: usize,
    templates: Vec<usize>,
}

/// Partners a grouped finding names in its message and related locations; JSON `partners`
/// lists them all.
const NAMED_PARTNERS: usize = 3;

fn overlaps(a: &Analysis<'_>) -> Vec<Finding> {
    // (loser, winner) -> (decider, templates), in template order.
    let mut groups: BTreeMap<(usize, usize), (Decider, Vec<usize>)> = BTreeMap::new();
    // The match lists first: reading every template entry (a cache miss each) cost more than
    // the rest of the rule.
    for (t, matches) in a.matches.iter().enumerate() {
        if matches.len() < 2 || a.state.templates[t].excluded.is_some() {
            continue;
        }
        let mut cands: Vec<_> = a.matches[t]
            .iter()
            .copied()
            .filter(|&(i, _)| {
                let p = a.state.policy(i);
                p.known && !p.terminating
            })
            .collect();
        if cands.len() < 2 {
            continue;
        }
        let key = |c: &(usize, _)| a.state.policy(c.0).rank_key(c.1);
        cands.sort_by(|x, y| rank::compare(&key(y), &key(x)).0);
        let (winner, wm) = cands[0];
        for &(loser, lm) in &cands[1..] {
            let (_, decider) = rank::compare(
                &a.state.policy(winner).rank_key(wm),
                &a.state.policy(loser).rank_key(lm),
            );
            groups
                .entry((loser, winner))
                .or_insert_with(|| (decider, Vec::new()))
                .1
                .push(t);
        }
    }
    // One finding per losing policy, listing the policies that take its templates: a policy
    // matching a whole kind loses to every policy that names one of its templates, and a
    // finding per pair drowned the report. Pairs that name order alone decides stay apart as
    // their own finding: they are the warnings.
    let mut losers: BTreeMap<(usize, bool), Vec<Pair>> = BTreeMap::new();
    for ((loser, winner), (decider, templates)) in groups {
        losers
            .entry((loser, by_name_order(decider)))
            .or_default()
            .push(Pair { winner, templates });
    }
    losers
        .into_iter()
        .map(|((loser, warning), mut pairs)| {
            pairs.sort_by_key(|p| p.templates[0]);
            let mut f = grouped(a, loser, &pairs);
            if warning {
                f.severity = Severity::Warning;
            }
            f
        })
        .collect()
}

/// Whether only name order decides: renaming a policy would move the templates.
fn by_name_order(decider: Decider) -> bool {
    matches!(decider, Decider::Name | Decider::Same)
}

/// The finding on `loser` for the policies that take its templates (`pairs`, by first
/// template): at the loser's selector matching the first template, one pair said as before
/// grouping, several counted with the first few named.
fn grouped(a: &Analysis<'_>, loser: usize, pairs: &[Pair]) -> Finding {
    let l = a.state.policy(loser);
    let message = match pairs {
        [pair] => format!(
            "{} and {} both match {}: {}",
            l.reference(),
            a.state.policy(pair.winner).reference(),
            a.describe_templates(&pair.templates),
            outcome(a, loser, pair)
        ),
        _ => {
            let templates: usize = pairs.iter().map(|p| p.templates.len()).sum();
            let named: Vec<String> = pairs
                .iter()
                .take(NAMED_PARTNERS)
                .map(|p| {
                    format!(
                        "{}: {}",
                        a.describe_templates(&p.templates),
                        outcome(a, loser, p)
                    )
                })
                .collect();
            let more = match pairs.len().saturating_sub(NAMED_PARTNERS) {
                0 => String::new(),
                1 => "; and 1 more policy".to_string(),
                n => format!("; and {n} more policies"),
            };
            format!(
                "{} loses {templates} templates to {} policies that also match them: {}{more}",
                l.reference(),
                pairs.len(),
                named.join("; ")
            )
        }
    };
    let path = a.matching_selector(loser, pairs[0].templates[0]);
    let mut f = a.policy_finding(loser, &OVERLAP, &path, message);
    for p in pairs.iter().take(NAMED_PARTNERS) {
        let w = a.state.policy(p.winner);
        let at = a.matching_selector(p.winner, p.templates[0]);
        if let Some((source, span)) = a.policy_span(w, &at) {
            f = f.related(&source, span, format!("overlaps with {}", w.reference()));
        }
    }
    f.partners = pairs
        .iter()
        .map(|p| Partner {
            policy: a.policy_object(p.winner),
            reason: why(a, p.winner, loser, p.templates[0]),
            templates: p
                .templates
                .iter()
                .map(|&t| a.state.templates[t].reference())
                .collect(),
        })
        .collect();
    f
}

/// "pp/x wins the fresh match: higher explicit priority (1 > 0)", and who keeps the first
/// template when an existing claim or a preemption overrules the ranking. "The fresh match":
/// the ranking decides an unclaimed template; one already claimed stays with its owner unless
/// preempted (what `lint --base` and `plan` report for a template the base holds).
fn outcome(a: &Analysis<'_>, loser: usize, pair: &Pair) -> String {
    let t = pair.templates[0];
    let w = a.state.policy(pair.winner);
    let mut said = format!(
        "{} wins the fresh match: {}",
        w.reference(),
        why(a, pair.winner, loser, t)
    );
    let owner = &a.settled[t].owner;
    if owner.is_some() && !owner.is(pair.winner) {
        said.push_str(&format!(
            " (but {} keeps it: {})",
            owner.reference(a.state).expect("checked"),
            if a.settled[t].preempted {
                "it preempted the winner"
            } else {
                "an existing claim is kept"
            }
        ));
    }
    said
}

/// A selector's constraint on one label key, for the disjointness test.
#[derive(Default)]
struct KeyReq {
    /// The value must be one of these (matchLabels, In).
    one_of: Option<HashSet<String>>,
    /// The value must not be one of these (NotIn).
    none_of: HashSet<String>,
    exists: bool,
    absent: bool,
}

fn requirements(sel: &LabelSelector) -> BTreeMap<&str, KeyReq> {
    let mut m: BTreeMap<&str, KeyReq> = BTreeMap::new();
    let narrow = |r: &mut KeyReq, vals: HashSet<String>| {
        r.one_of = Some(match r.one_of.take() {
            Some(prev) => prev.intersection(&vals).cloned().collect(),
            None => vals,
        });
    };
    for (k, v) in sel.match_labels.iter().flatten() {
        narrow(m.entry(k).or_default(), HashSet::from([v.clone()]));
    }
    for e in sel.match_expressions.iter().flatten() {
        let r = m.entry(e.key.as_str()).or_default();
        let vals: HashSet<String> = e.values.iter().flatten().cloned().collect();
        match e.operator.as_str() {
            "In" => narrow(r, vals),
            "NotIn" => r.none_of.extend(vals),
            "Exists" => r.exists = true,
            "DoesNotExist" => r.absent = true,
            _ => {}
        }
    }
    m
}

/// Whether no label set can satisfy both selectors (`None` = no selector: matches everything).
pub fn provably_disjoint(a: Option<&LabelSelector>, b: Option<&LabelSelector>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let (ra, rb) = (requirements(a), requirements(b));
    let contradicts = |x: &KeyReq, y: &KeyReq| {
        let x_needs = x.exists || x.one_of.is_some();
        if let (Some(xs), Some(ys)) = (&x.one_of, &y.one_of) {
            if xs.is_disjoint(ys) {
                return true;
            }
        }
        if let Some(xs) = &x.one_of {
            if xs.iter().all(|v| y.none_of.contains(v)) {
                return true;
            }
        }
        x_needs && y.absent
    };
    ra.iter().any(|(k, x)| {
        // A selector that contradicts itself matches nothing at all.
        let self_empty = x.one_of.as_ref().is_some_and(HashSet::is_empty);
        self_empty
            || rb
                .get(k)
                .is_some_and(|y| contradicts(x, y) || contradicts(y, x))
    }) || rb
        .values()
        .any(|y| y.one_of.as_ref().is_some_and(HashSet::is_empty))
}

/// The namespace a selector effectively constrains to (`""` = any), and whether two
/// selectors of these policies can see the same namespace.
fn namespaces_meet(
    pa: &PolicyEntry,
    sa: &ResourceSelector,
    pb: &PolicyEntry,
    sb: &ResourceSelector,
) -> bool {
    let ns = |p: &PolicyEntry, s: &ResourceSelector| {
        if p.is_pp() {
            p.namespace.clone()
        } else {
            s.namespace.clone()
        }
    };
    let (na, nb) = (ns(pa, sa), ns(pb, sb));
    na.is_empty() || nb.is_empty() || na == nb
}

/// Bound on selector pairs examined per (apiVersion, kind), so a huge repository stays fast.
const MAX_PAIRS_PER_KIND: usize = 200_000;

fn potential_overlaps(a: &Analysis<'_>) -> Vec<Finding> {
    // Selectors grouped by (apiVersion, kind) for kinds with no template in the input.
    let mut by_kind: BTreeMap<(&str, &str), Vec<(usize, usize)>> = BTreeMap::new();
    for (i, p) in a.state.live_policies() {
        if !p.known || p.terminating {
            continue;
        }
        for (s, rs) in p.spec.resource_selectors.iter().enumerate() {
            if a.state.templates_of(&rs.api_version, &rs.kind).is_empty() {
                by_kind
                    .entry((&rs.api_version, &rs.kind))
                    .or_default()
                    .push((i, s));
            }
        }
    }
    let mut reported: HashSet<(usize, usize)> = HashSet::new();
    let mut out = Vec::new();
    for sels in by_kind.values() {
        let mut pairs = 0usize;
        'outer: for (x, &(pi, si)) in sels.iter().enumerate() {
            for &(pj, sj) in &sels[x + 1..] {
                pairs += 1;
                if pairs > MAX_PAIRS_PER_KIND {
                    break 'outer;
                }
                if pi == pj || reported.contains(&(pi.min(pj), pi.max(pj))) {
                    continue;
                }
                let (p, q) = (a.state.policy(pi), a.state.policy(pj));
                let (sa, sb) = (
                    &p.spec.resource_selectors[si],
                    &q.spec.resource_selectors[sj],
                );
                if !namespaces_meet(p, sa, q, sb) {
                    continue;
                }
                if !sa.name.is_empty() && !sb.name.is_empty() && sa.name != sb.name {
                    continue;
                }
                // A name wins over the label selector (§1.2), so only unnamed selectors' labels count.
                let la = if sa.name.is_empty() {
                    sa.label_selector.as_ref()
                } else {
                    None
                };
                let lb = if sb.name.is_empty() {
                    sb.label_selector.as_ref()
                } else {
                    None
                };
                if provably_disjoint(la, lb) {
                    continue;
                }
                reported.insert((pi.min(pj), pi.max(pj)));
                let what = if !sa.name.is_empty() {
                    format!("{} `{}`", sa.kind, sa.name)
                } else if !sb.name.is_empty() {
                    format!("{} `{}`", sb.kind, sb.name)
                } else {
                    format!("{} objects", sa.kind)
                };
                let path = FieldPath::parse("spec.resourceSelectors").index(sj);
                let mut f = a.policy_finding(
                    pj,
                    &POTENTIAL_OVERLAP,
                    &path,
                    format!(
                        "{} and {} can both match {what} ({}); none is in the input, so who wins is decided when one appears",
                        q.reference(),
                        p.reference(),
                        sa.api_version
                    ),
                );
                let other = FieldPath::parse("spec.resourceSelectors").index(si);
                if let Some((source, span)) = a.policy_span(p, &other) {
                    f = f.related(&source, span, format!("overlaps with {}", p.reference()));
                }
                out.push(f);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(json: &str) -> LabelSelector {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn disjointness_is_proven_only_when_certain() {
        let a = sel(r#"{"matchLabels":{"team":"a"}}"#);
        let b = sel(r#"{"matchLabels":{"team":"b"}}"#);
        let c = sel(r#"{"matchLabels":{"app":"x"}}"#);
        let d = sel(r#"{"matchExpressions":[{"key":"team","operator":"DoesNotExist"}]}"#);
        let e = sel(r#"{"matchExpressions":[{"key":"team","operator":"NotIn","values":["a"]}]}"#);
        let f = sel(r#"{"matchExpressions":[{"key":"team","operator":"In","values":["a","b"]}]}"#);
        assert!(provably_disjoint(Some(&a), Some(&b)));
        assert!(!provably_disjoint(Some(&a), Some(&c)));
        assert!(provably_disjoint(Some(&a), Some(&d)));
        assert!(provably_disjoint(Some(&a), Some(&e)));
        assert!(!provably_disjoint(Some(&f), Some(&b)));
        assert!(!provably_disjoint(None, Some(&a)));
    }
}

#[cfg(test)]
mod rule_tests {
    use crate::lint::test_support::{lint_rule, pos};
    use crate::lint::Severity;

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: default\n  labels: {app: nginx}\n";

    fn pp(name: &str, priority: i32, selector: &str) -> String {
        format!("---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n  priority: {priority}\n  resourceSelectors:\n    - {selector}\n")
    }

    #[test]
    fn name_order_alone_is_a_warning_on_the_loser() {
        let sel = "{apiVersion: apps/v1, kind: Deployment}";
        let text = format!("{DEPLOY}{}{}", pp("abc", 0, sel), pp("ab", 0, sel));
        let f = lint_rule(&text, "overlap", false);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(f[0].message.starts_with("pp/default/abc and pp/default/ab both match deployment/default/nginx: pp/default/ab wins the fresh match: name order only"), "{}", f[0].message);
        // The loser's selector (document 2 starts at line 7; its selector is on line 16).
        assert_eq!(pos(&f[0]), (16, 7));
        assert_eq!(f[0].related[0].location.span.start.line, 26);
    }

    #[test]
    fn priority_or_precision_decides_and_is_info() {
        let text = format!(
            "{DEPLOY}{}{}",
            pp("a", 1, "{apiVersion: apps/v1, kind: Deployment}"),
            pp(
                "b",
                0,
                "{apiVersion: apps/v1, kind: Deployment, name: nginx}"
            )
        );
        let f = lint_rule(&text, "overlap", false);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Info);
        assert!(
            f[0].message
                .contains("pp/default/a wins the fresh match: higher explicit priority (1 > 0)"),
            "{}",
            f[0].message
        );
        let text = format!(
            "{DEPLOY}{}{}",
            pp("a", 0, "{apiVersion: apps/v1, kind: Deployment}"),
            pp(
                "b",
                0,
                "{apiVersion: apps/v1, kind: Deployment, labelSelector: {}}"
            )
        );
        let f = lint_rule(&text, "overlap", false);
        assert!(
            f[0].message.contains(
                "pp/default/b wins the fresh match: more precise selector (labelSelector beats all"
            ),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn disjoint_policies_do_not_overlap() {
        let text = format!(
            "{DEPLOY}{}{}",
            pp(
                "a",
                0,
                "{apiVersion: apps/v1, kind: Deployment, name: nginx}"
            ),
            pp(
                "b",
                0,
                "{apiVersion: apps/v1, kind: Deployment, name: other}"
            )
        );
        assert!(lint_rule(&text, "overlap", false).is_empty());
        assert!(lint_rule(&text, "potential-overlap", false).is_empty());
    }

    #[test]
    fn potential_overlap_without_templates() {
        let text = format!(
            "{}{}{}",
            pp(
                "a",
                0,
                "{apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {team: a}}}"
            ),
            pp("b", 0, "{apiVersion: v1, kind: ConfigMap}"),
            pp(
                "c",
                0,
                "{apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {team: c}}}"
            )
        );
        let f = lint_rule(&text, "potential-overlap", false);
        // a~b and b~c can meet; a and c cannot (team: a vs team: c).
        assert_eq!(f.len(), 2, "{f:#?}");
        assert!(f
            .iter()
            .all(|f| !f.message.contains("pp/default/c and pp/default/a")));
    }
}
