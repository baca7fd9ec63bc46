//! The claim engine on generated object sets: the fuzzer's bytes choose policies (kind,
//! namespace, selectors by name/labels/kind, priority, preemption, suspension, existing claims)
//! and templates from a small vocabulary, so that overlaps, ties and preemption chains are
//! common. Every template is explained (and the explanation rendered as text and JSON) and the
//! whole set is linted with the preemption gate on or off. Invariant: no panic.
#![no_main]

use std::fmt::Write;

use karmada_policy::engine::claim::Filters;
use karmada_policy::engine::explain::explain;
use karmada_policy::engine::state::{FeatureGates, Options, State, UnknownClaimers};
use karmada_policy::lint::{self, LintOptions};
use karmada_policy::model::{Inventory, KarmadaVersion};
use karmada_policy::source::{load, Source};
use libfuzzer_sys::fuzz_target;

const NS: [&str; 3] = ["default", "team-a", "team-b"];
const NAMES: [&str; 4] = ["nginx", "api", "web", "db"];
const KINDS: [(&str, &str); 3] = [
    ("apps/v1", "Deployment"),
    ("v1", "ConfigMap"),
    ("v1", "Service"),
];
const LABELS: [&str; 3] = ["frontend", "backend", "batch"];

struct Bytes<'a>(&'a [u8], usize);

impl Bytes<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let b = self.0.get(self.1).copied().unwrap_or(0);
        self.1 += 1;
        b as usize % n
    }
    fn done(&self) -> bool {
        self.1 >= self.0.len()
    }
}

fn generate(data: &[u8]) -> (String, bool) {
    let mut b = Bytes(data, 0);
    let preemption_gate = b.pick(2) == 1;
    let mut out = String::new();
    let mut i = 0;
    while !b.done() && i < 24 {
        i += 1;
        let (api_version, kind) = KINDS[b.pick(KINDS.len())];
        if b.pick(2) == 0 {
            // A template, maybe already claimed by one of the policies below.
            let _ = write!(
                out,
                "---\napiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {}\n  namespace: {}\n  labels:\n    tier: {}\n",
                NAMES[b.pick(NAMES.len())],
                NS[b.pick(NS.len())],
                LABELS[b.pick(LABELS.len())]
            );
            if b.pick(3) == 0 {
                let _ = write!(
                    out,
                    "    propagationpolicy.karmada.io/name: p{}\n    propagationpolicy.karmada.io/namespace: {}\n",
                    b.pick(8),
                    NS[b.pick(NS.len())]
                );
            }
            continue;
        }
        let cluster = b.pick(4) == 0;
        let _ = write!(
            out,
            "---\napiVersion: policy.karmada.io/v1alpha1\nkind: {}\nmetadata:\n  name: p{}\n",
            if cluster {
                "ClusterPropagationPolicy"
            } else {
                "PropagationPolicy"
            },
            b.pick(8)
        );
        if !cluster {
            let _ = writeln!(out, "  namespace: {}", NS[b.pick(NS.len())]);
        }
        let _ = write!(out, "spec:\n  priority: {}\n", b.pick(4) as i64 - 1);
        if b.pick(3) == 0 {
            out.push_str("  preemption: Always\n");
        }
        match b.pick(3) {
            0 => out.push_str("  suspension:\n    dispatching: true\n"),
            1 => out.push_str(
                "  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member1]\n",
            ),
            _ => {}
        }
        out.push_str("  resourceSelectors:\n");
        for _ in 0..1 + b.pick(2) {
            let _ = write!(out, "    - apiVersion: {api_version}\n      kind: {kind}\n");
            match b.pick(3) {
                0 => {
                    let _ = writeln!(out, "      name: {}", NAMES[b.pick(NAMES.len())]);
                }
                1 => {
                    let _ = writeln!(
                        out,
                        "      labelSelector:\n        matchLabels:\n          tier: {}",
                        LABELS[b.pick(LABELS.len())]
                    );
                }
                _ => {}
            }
            if cluster && b.pick(2) == 0 {
                let _ = writeln!(out, "      namespace: {}", NS[b.pick(NS.len())]);
            }
        }
        out.push_str(
            "  placement:\n    clusterAffinity:\n      clusterNames: [member1, member2]\n",
        );
    }
    (out, preemption_gate)
}

fuzz_target!(|data: &[u8]| {
    let (text, gate) = generate(data);
    let mut loaded = vec![load(Source::new("objects.yaml", text))];
    let documents = std::mem::take(&mut loaded[0].documents);
    let inventory = Inventory::from_documents(documents, "default");
    let state = State::from_inventory(
        &inventory,
        Options {
            gates: FeatureGates { preemption: gate },
            filters: Filters::default(),
            version: KarmadaVersion::LATEST,
            unknown_claimers: UnknownClaimers::Stale,
        },
    );
    for t in 0..state.templates.len() {
        let e = explain(&state, t);
        let _ = karmada_policy::output::explain::text(&e, false);
        let _ = karmada_policy::output::explain::json(&e);
    }
    let mut opts = LintOptions::default();
    opts.feature_gates
        .insert("PropagationPolicyPreemption".into(), gate);
    let _ = lint::lint(&loaded, &inventory, &opts);
});
