//! Explain one template among 10,000 policies and 90,000 templates (issue 3): the whole explain,
//! state building (admission of every policy, template filters, indexes) included.
//!
//! `cargo bench --bench engine` (plain std::time harness; no criterion). Prints the median and
//! worst of several runs for the index build, the query, and their sum, and fails if the
//! median total exceeds the 300 ms target.

use std::hint::black_box;
use std::time::{Duration, Instant};

use karmada_policy::engine::explain::explain;
use karmada_policy::engine::state::{Options, State};
use karmada_policy::model::feature_gates::GateSet;
use karmada_policy::model::{Inventory, Object, ObjectMeta, Policy, PolicyKind, Template};
use serde_json::json;

const NAMESPACES: usize = 100;
const PPS_PER_NAMESPACE: usize = 98;
const CPPS: usize = 200;
const TEMPLATES_PER_NAMESPACE: usize = 900;

fn meta(ns: Option<&str>, name: &str, labels: &[(&str, String)]) -> ObjectMeta {
    ObjectMeta {
        name: name.to_string(),
        namespace: ns.map(str::to_string),
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        ..ObjectMeta::default()
    }
}

/// 100 namespaces × (98 PPs + 900 templates) + 200 CPPs = 10,000 policies, 90,000 templates.
fn generate() -> Inventory {
    let kinds = [
        ("apps/v1", "Deployment"),
        ("v1", "ConfigMap"),
        ("v1", "Service"),
    ];
    let mut objects = Vec::with_capacity(100_000);
    for n in 0..NAMESPACES {
        let ns = format!("team-{n:03}");
        for i in 0..TEMPLATES_PER_NAMESPACE {
            let (av, kind) = kinds[i % kinds.len()];
            let app = format!("app-{}", i / 9);
            objects.push(Object::Template(Template {
                api_version: av.into(),
                kind: kind.into(),
                meta: meta(
                    Some(&ns),
                    &format!("{}-{i}", kind.to_ascii_lowercase()),
                    &[("app", app), ("tier", ["web", "db", "cache"][i % 3].into())],
                ),
                doc: 0,
                declares: None,
                depends_on: None,
                applied_as: None,
            }));
        }
        for i in 0..PPS_PER_NAMESPACE {
            let (av, kind) = kinds[i % kinds.len()];
            let selector = match i % 4 {
                0 => {
                    json!({"apiVersion": av, "kind": kind, "labelSelector": {"matchLabels": {"app": format!("app-{}", i)}}})
                }
                1 => {
                    json!({"apiVersion": av, "kind": kind, "name": format!("{}-{}", kind.to_ascii_lowercase(), i * 3)})
                }
                2 => {
                    json!({"apiVersion": av, "kind": kind, "labelSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["web", "db"]}]}})
                }
                _ => json!({"apiVersion": av, "kind": kind}),
            };
            let spec = json!({
                "priority": (i % 7) as i32 - 3,
                "preemption": if i % 4 == 1 { "Always" } else { "Never" },
                "resourceSelectors": [selector],
                "placement": {"clusterAffinity": {"clusterNames": ["member1", "member2"]}},
            });
            objects.push(Object::Policy(Box::new(Policy {
                kind: PolicyKind::PropagationPolicy,
                meta: meta(Some(&ns), &format!("pp-{i:03}"), &[]),
                spec: serde_json::from_value(spec).expect("valid spec"),
                doc: 0,
                admission: Default::default(),
            })));
        }
    }
    for i in 0..CPPS {
        let (av, kind) = kinds[i % kinds.len()];
        let spec = json!({
            "priority": (i % 11) as i32,
            "resourceSelectors": [{"apiVersion": av, "kind": kind, "namespace": format!("team-{:03}", i % NAMESPACES),
                                   "labelSelector": {"matchLabels": {"tier": "web"}}}],
        });
        objects.push(Object::Policy(Box::new(Policy {
            kind: PolicyKind::ClusterPropagationPolicy,
            meta: meta(None, &format!("cpp-{i:03}"), &[]),
            spec: serde_json::from_value(spec).expect("valid spec"),
            doc: 0,
            admission: Default::default(),
        })));
    }
    Inventory {
        documents: Vec::new(),
        objects,
        problems: Vec::new(),
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let inv = generate();
    let policies = inv.policies().count();
    let templates = inv.templates().count();
    assert_eq!((policies, templates), (10_000, 90_000));
    let options = Options {
        gates: GateSet::parse(Default::default(), "PropagationPolicyPreemption=true").unwrap(),
        ..Options::default()
    };
    let runs = 7;
    let (mut build, mut query, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let mut candidates = 0;
    for _ in 0..runs {
        let t0 = Instant::now();
        let state = State::from_inventory(&inv, options.clone());
        let t1 = Instant::now();
        let t = state
            .find_template("apps/v1", "Deployment", "team-042", "deployment-3")
            .expect("generated");
        let e = black_box(explain(&state, t));
        let t2 = Instant::now();
        candidates = e.candidates.len();
        assert!(e.eventual.is_some());
        build.push(t1 - t0);
        query.push(t2 - t1);
        total.push(t2 - t0);
        drop(black_box(state));
    }
    // Where the build time goes: the same build over policies only and templates only.
    let split = |keep_policies: bool| Inventory {
        documents: Vec::new(),
        objects: inv
            .objects
            .iter()
            .filter(|o| matches!(o, Object::Policy(_)) == keep_policies)
            .cloned()
            .collect(),
        problems: Vec::new(),
    };
    let (only_policies, only_templates) = (split(true), split(false));
    let part = |inv: &Inventory| {
        let mut v: Vec<Duration> = (0..runs)
            .map(|_| {
                let t0 = Instant::now();
                black_box(State::from_inventory(inv, options.clone()));
                t0.elapsed()
            })
            .collect();
        median(&mut v)
    };
    let (bp, bt) = (part(&only_policies), part(&only_templates));
    let worst = |v: &[Duration]| *v.iter().max().expect("runs");
    let (wb, wq, wt) = (worst(&build), worst(&query), worst(&total));
    let (mb, mq, mt) = (median(&mut build), median(&mut query), median(&mut total));
    println!("explain among {policies} policies and {templates} templates ({candidates} candidates), {runs} runs:");
    println!("  state + indexes: median {mb:>10.2?}  worst {wb:>10.2?}");
    println!("    of which 10,000 policies (admission, indexes): {bp:.2?}; 90,000 templates (filters, claims, indexes): {bt:.2?}");
    println!("  explain query:   median {mq:>10.2?}  worst {wq:>10.2?}");
    println!("  total:           median {mt:>10.2?}  worst {wt:>10.2?}  (target < 300 ms)");
    if mt > Duration::from_millis(300) {
        eprintln!("FAIL: median total {mt:?} exceeds 300 ms");
        std::process::exit(1);
    }
}
