//! The consistency suite: on generated repositories (templates in a few namespaces, overlapping
//! PropagationPolicies and ClusterPropagationPolicies at equal and different priorities, some
//! with `preemption: Always`, templates already claimed as Karmada writes the claim, policies
//! refused at each admission stage, Cluster objects with and without status, a
//! `.karmada-policy.yaml` turning PropagationPolicyPreemption on or off), every subcommand is
//! asked about every template and every policy, and their answers must agree:
//!
//! - `explain TYPE/NAME`: the owner once every policy is processed (`eventual`, the restart
//!   model of claim-and-preemption.md §7) and the candidates in fresh-match order;
//! - `explain pp/NAME` / `cpp/NAME`: the templates the policy holds are those whose `eventual`
//!   is the policy, and its placement is the one `explain TYPE/NAME` shows for them;
//! - `preempt-check --delete POLICY`: `before` is the input's claim, else the owner the template
//!   settles on (explain's `current`, else `eventual`); `after` is where Karmada's events take
//!   it: a template the deleted policy held re-matches freshly (`propagateResource`, §6.1: the
//!   best remaining candidate in explain's ranking), any other keeps its settled owner;
//! - `lint`: each overlap's winner is explain's first-ranked candidate and its keeper the
//!   eventual owner; silent-non-preemption and inert-preemption agree with explain;
//!   no-cluster-fits fires exactly where explain's placement reports no fit; no finding but an
//!   admission error names a refused policy, and the refused set is the same in lint,
//!   preempt-check's `rejected` and explain's notes;
//! - the configuration's gate changes all of them alike (each repository runs with it on and
//!   off), and nothing that does not depend on the gate changes with it.
//!
//! Deterministic: a fixed list of seeds, a PRNG written here. A failure names the seed
//! (`CONSISTENCY_SEED=0x.. cargo test --test consistency` reruns that repository alone), keeps
//! the repository on disk and prints the disagreeing outputs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::Value as J;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

/// One repository per seed; each runs with the gate on and off.
const SEEDS: [u64; 16] = [
    0x5eed_0001,
    0x5eed_0002,
    0x5eed_0003,
    0x5eed_0004,
    0x5eed_0005,
    0x5eed_0006,
    0x5eed_0007,
    0x5eed_0008,
    0x5eed_0009,
    0x5eed_000a,
    0x5eed_000b,
    0x5eed_000c,
    0x5eed_000d,
    0x5eed_000e,
    0x5eed_000f,
    0x5eed_0010,
];

// ---------------------------------------------------------------------------------------------
// A small PRNG (SplitMix64): no dependency, the same sequence everywhere.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `pct`%.
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// A non-empty random subset, in the input's order.
    fn subset<T: Clone>(&mut self, xs: &[T]) -> Vec<T> {
        loop {
            let s: Vec<T> = xs.iter().filter(|_| self.chance(50)).cloned().collect();
            if !s.is_empty() {
                return s;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The generated model.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Deployment,
    ConfigMap,
}

impl Kind {
    fn api_version(self) -> &'static str {
        match self {
            Kind::Deployment => "apps/v1",
            Kind::ConfigMap => "v1",
        }
    }
    fn name(self) -> &'static str {
        match self {
            Kind::Deployment => "Deployment",
            Kind::ConfigMap => "ConfigMap",
        }
    }
    /// As `explain` takes it.
    fn short(self) -> &'static str {
        match self {
            Kind::Deployment => "deploy",
            Kind::ConfigMap => "cm",
        }
    }
}

#[derive(Clone, Debug)]
struct Template {
    kind: Kind,
    namespace: String,
    name: String,
    labels: Vec<(String, String)>,
    /// The policy (index) whose claim the template carries, as Karmada writes it.
    claim: Option<usize>,
    /// Only the claim annotations, without the permanent-id label: unclaimed (§4.2).
    partial_claim: bool,
}

impl Template {
    /// In a namespace the detector never processes (§1.4).
    fn excluded(&self) -> bool {
        self.namespace == "kube-system"
    }

    /// `deployment/shop/web`, as lint names templates.
    fn reference(&self) -> String {
        format!(
            "{}/{}/{}",
            self.kind.name().to_lowercase(),
            self.namespace,
            self.name
        )
    }
    /// `deploy/web`, as explain takes it (with `-n`).
    fn arg(&self) -> String {
        format!("{}/{}", self.kind.short(), self.name)
    }
}

#[derive(Clone, Debug)]
struct Selector {
    kind: Kind,
    /// A CPP's selector namespace (a PP's selectors inherit the PP's).
    namespace: Option<String>,
    name: Option<String>,
    /// `matchLabels`; `Some(vec![])` with no expressions is `labelSelector: {}`, which matches
    /// everything as a label match (§1.2).
    labels: Option<Vec<(String, String)>>,
    /// `matchExpressions`: (key, operator, values).
    exprs: Vec<(String, &'static str, Vec<String>)>,
}

impl Selector {
    fn has_label_selector(&self) -> bool {
        self.labels.is_some() || !self.exprs.is_empty()
    }

    /// Standard Kubernetes semantics: every requirement holds; NotIn and DoesNotExist hold
    /// when the key is absent.
    fn labels_match(&self, labels: &[(String, String)]) -> bool {
        let value = |k: &str| labels.iter().find(|(l, _)| l == k).map(|(_, v)| v);
        self.labels.iter().flatten().all(|l| labels.contains(l))
            && self.exprs.iter().all(|(k, op, vals)| match *op {
                "In" => value(k).is_some_and(|v| vals.contains(v)),
                "NotIn" => !value(k).is_some_and(|v| vals.contains(v)),
                "Exists" => value(k).is_some(),
                _ => value(k).is_none(),
            })
    }
}

/// Where a policy places: cluster names, a label selector on `region`, or no placement.
#[derive(Clone, Debug)]
enum Placement {
    None,
    Names(Vec<String>),
    Region(&'static str),
}

/// The admission stage a generated policy is refused at, with the defect that does it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Defect {
    /// Strict decoding: a field the CRD does not define.
    UnknownField,
    /// The mutating webhook's Go decoder: a string where the Go type is an integer.
    GoType,
    /// The CRD schema: `staticWeightList[].weight: 0` (minimum 1).
    SchemaMinimum,
    /// The CRD schema: a value outside an enum.
    SchemaEnum,
    /// The validating webhook: application failover without `propagateDeps: true`.
    FailoverWithoutDeps,
    /// The validating webhook: `preemption: Always` with a selector that names nothing.
    PreemptionWithoutName,
}

#[derive(Clone, Debug)]
struct Policy {
    cpp: bool,
    namespace: String,
    name: String,
    priority: i32,
    preemption: bool,
    selectors: Vec<Selector>,
    placement: Placement,
    /// Tolerates the `dedicated=gpu:NoSchedule` taint some clusters carry.
    tolerates: bool,
    /// Being deleted: `deletionTimestamp` and the finalizer, as exported from a control plane.
    terminating: bool,
    lazy: bool,
    permanent_id: String,
    /// Whether the manifest carries the permanent-id label (as exported from a control plane).
    id_label: bool,
    defect: Option<Defect>,
}

impl Policy {
    /// `pp/shop/web` or `cpp/all`, as every subcommand names policies.
    fn reference(&self) -> String {
        if self.cpp {
            format!("cpp/{}", self.name)
        } else {
            format!("pp/{}/{}", self.namespace, self.name)
        }
    }

    /// The implicit priority of the best selector matching `t` (0: no match), as
    /// `ResourceSelectorPriority` (pkg/util/selector.go:55-94) ranks it.
    fn match_priority(&self, t: &Template) -> u8 {
        if !self.cpp && self.namespace != t.namespace {
            return 0;
        }
        self.selectors
            .iter()
            .map(|s| {
                if s.kind != t.kind || s.namespace.as_ref().is_some_and(|n| *n != t.namespace) {
                    return 0;
                }
                match &s.name {
                    Some(n) => 3 * u8::from(*n == t.name),
                    None if s.has_label_selector() => 2 * u8::from(s.labels_match(&t.labels)),
                    None => 1,
                }
            })
            .max()
            .unwrap_or(0)
    }

    fn kinds(&self) -> Vec<Kind> {
        let mut ks: Vec<Kind> = Vec::new();
        for s in &self.selectors {
            if !ks.contains(&s.kind) {
                ks.push(s.kind);
            }
        }
        ks
    }
}

#[derive(Clone, Debug)]
struct Cluster {
    name: String,
    region: &'static str,
    /// `status.apiEnablements`; `None` = no status (as Cluster manifests in git look).
    apis: Option<Vec<Kind>>,
    /// The taint `dedicated=gpu:NoSchedule`.
    tainted: bool,
}

#[derive(Clone, Debug)]
struct Repo {
    seed: u64,
    templates: Vec<Template>,
    policies: Vec<Policy>,
    clusters: Vec<Cluster>,
}

const NAMESPACES: [&str; 3] = ["shop", "pay", "ops"];
const TEMPLATE_NAMES: [&str; 6] = ["web", "api", "db", "cache", "cfg", "jobs"];
const POLICY_NAMES: [&str; 10] = [
    "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa",
];
const REGIONS: [&str; 2] = ["east", "west"];
const MEMBERS: [&str; 4] = ["member1", "member2", "member3", "member4"];
const PRIORITIES: [i32; 6] = [0, 0, 1, 3, 3, 5];

fn labels(rng: &mut Rng) -> Vec<(String, String)> {
    let mut ls = vec![("app".to_string(), rng.pick(&["a", "b"]).to_string())];
    if rng.chance(60) {
        ls.push(("tier".to_string(), rng.pick(&["front", "back"]).to_string()));
    }
    ls
}

fn generate(seed: u64) -> Repo {
    let mut rng = Rng(seed);
    let mut namespaces: Vec<String> = NAMESPACES[..rng.range(1, 3)]
        .iter()
        .map(|s| s.to_string())
        .collect();
    // The detector never processes templates there (§1.4).
    if rng.chance(15) {
        namespaces.push("kube-system".to_string());
    }
    let mut templates: Vec<Template> = Vec::new();
    // Never more than the distinct (kind, namespace, name) triples, or the loop below would not end.
    let n_templates = rng
        .range(9, 13)
        .min(2 * namespaces.len() * TEMPLATE_NAMES.len());
    while templates.len() < n_templates {
        let kind = *rng.pick(&[Kind::Deployment, Kind::Deployment, Kind::ConfigMap]);
        let namespace = rng.pick(&namespaces).clone();
        let name = rng.pick(&TEMPLATE_NAMES).to_string();
        if templates
            .iter()
            .any(|t| t.kind == kind && t.namespace == namespace && t.name == name)
        {
            continue;
        }
        let labels = labels(&mut rng);
        templates.push(Template {
            kind,
            namespace,
            name,
            labels,
            claim: None,
            partial_claim: false,
        });
    }
    let mut policies: Vec<Policy> = Vec::new();
    let n_policies = rng.range(5, 8);
    for (i, name) in POLICY_NAMES.iter().enumerate().take(n_policies) {
        let cpp = rng.chance(35);
        let namespace = if cpp {
            String::new()
        } else {
            rng.pick(&namespaces).clone()
        };
        let preemption = rng.chance(35);
        let mut selectors = Vec::new();
        for _ in 0..rng.range(1, 2) {
            // Mostly selectors that reach a template of the input.
            let t = rng.pick(&templates).clone();
            let kind = if rng.chance(80) {
                t.kind
            } else {
                *rng.pick(&[Kind::Deployment, Kind::ConfigMap])
            };
            let sel_ns = (cpp && rng.chance(50)).then(|| t.namespace.clone());
            let mut sel = Selector {
                kind,
                namespace: sel_ns,
                name: None,
                labels: None,
                exprs: Vec::new(),
            };
            if preemption || rng.chance(35) {
                sel.name = Some(t.name.clone());
            } else if rng.chance(60) {
                if rng.chance(10) {
                    sel.labels = Some(Vec::new());
                } else if rng.chance(65) {
                    sel.labels = Some(rng.subset(&t.labels));
                }
                if sel.labels.is_none() || rng.chance(25) {
                    let key = rng.pick(&["app", "tier"]).to_string();
                    let op = *rng.pick(&["In", "NotIn", "Exists", "DoesNotExist"]);
                    let values = match op {
                        "In" | "NotIn" => rng
                            .subset(&["a", "b", "front", "back"])
                            .into_iter()
                            .map(str::to_string)
                            .collect(),
                        _ => Vec::new(),
                    };
                    sel.exprs.push((key, op, values));
                }
            }
            selectors.push(sel);
        }
        let placement = match rng.below(8) {
            0 | 1 => Placement::None,
            2 => Placement::Region(REGIONS[rng.below(2)]),
            _ => Placement::Names(rng.subset(&MEMBERS).iter().map(|s| s.to_string()).collect()),
        };
        let defect = if rng.chance(22) {
            Some(*rng.pick(&[
                Defect::UnknownField,
                Defect::GoType,
                Defect::SchemaMinimum,
                Defect::SchemaEnum,
                Defect::FailoverWithoutDeps,
                Defect::PreemptionWithoutName,
            ]))
        } else {
            None
        };
        let mut p = Policy {
            cpp,
            namespace,
            name: name.to_string(),
            priority: *rng.pick(&PRIORITIES),
            preemption,
            selectors,
            placement,
            tolerates: rng.chance(25),
            terminating: rng.chance(8),
            lazy: rng.chance(12),
            permanent_id: format!("{seed:08x}-0000-4000-8000-{i:012x}"),
            id_label: rng.chance(50),
            defect,
        };
        if defect == Some(Defect::PreemptionWithoutName) {
            p.preemption = true;
            p.selectors[0].name = None;
        }
        if defect == Some(Defect::SchemaMinimum) && !matches!(p.placement, Placement::Names(_)) {
            p.placement = Placement::Names(vec!["member1".to_string(), "member2".to_string()]);
        }
        policies.push(p);
    }
    // Claims as Karmada writes them: mostly by a policy that matches the template (so that
    // preemption and kept claims matter); now and then by one that no longer matches, by one
    // admission refuses (a stale claim), or only partly written.
    for t in templates.iter_mut().filter(|t| !t.excluded()) {
        let in_scope =
            |p: &Policy| p.cpp || p.namespace == t.namespace && t.namespace != "kube-system";
        let matching: Vec<usize> = (0..policies.len())
            .filter(|&p| policies[p].defect.is_none() && policies[p].match_priority(t) > 0)
            .collect();
        let others: Vec<usize> = (0..policies.len())
            .filter(|&p| in_scope(&policies[p]) && !matching.contains(&p))
            .collect();
        if !matching.is_empty() && rng.chance(40) {
            t.claim = Some(*rng.pick(&matching));
        } else if !others.is_empty() && rng.chance(15) {
            t.claim = Some(*rng.pick(&others));
        }
        t.partial_claim = t.claim.is_some() && rng.chance(12);
    }
    let mut clusters = Vec::new();
    if rng.chance(85) {
        for m in &MEMBERS[..3] {
            if !rng.chance(80) {
                continue;
            }
            let apis = rng.chance(50).then(|| {
                let mut apis = vec![Kind::ConfigMap];
                if rng.chance(55) {
                    apis.push(Kind::Deployment);
                }
                apis
            });
            clusters.push(Cluster {
                name: m.to_string(),
                region: REGIONS[rng.below(2)],
                apis,
                tainted: rng.chance(25),
            });
        }
    }
    Repo {
        seed,
        templates,
        policies,
        clusters,
    }
}

// ---------------------------------------------------------------------------------------------
// YAML, as a user or an export from a control plane writes it.

fn map(pairs: &[(String, String)]) -> String {
    let items: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", items.join(", "))
}

fn template_yaml(r: &Repo, t: &Template) -> String {
    let mut labels = t.labels.clone();
    let mut annotations = Vec::new();
    if let Some(p) = t.claim.map(|p| &r.policies[p]) {
        let (id_key, mut claim) = if p.cpp {
            (
                "clusterpropagationpolicy.karmada.io/permanent-id",
                vec![(
                    "clusterpropagationpolicy.karmada.io/name".to_string(),
                    p.name.clone(),
                )],
            )
        } else {
            (
                "propagationpolicy.karmada.io/permanent-id",
                vec![
                    (
                        "propagationpolicy.karmada.io/namespace".to_string(),
                        p.namespace.clone(),
                    ),
                    (
                        "propagationpolicy.karmada.io/name".to_string(),
                        p.name.clone(),
                    ),
                ],
            )
        };
        annotations.append(&mut claim);
        if !t.partial_claim {
            labels.push((id_key.to_string(), p.permanent_id.clone()));
        }
    }
    let mut y = format!(
        "apiVersion: {}\nkind: {}\nmetadata:\n  name: {}\n  namespace: {}\n  labels: {}\n",
        t.kind.api_version(),
        t.kind.name(),
        t.name,
        t.namespace,
        map(&labels)
    );
    if !annotations.is_empty() {
        writeln!(y, "  annotations: {}", map(&annotations)).unwrap();
    }
    match t.kind {
        Kind::Deployment => y.push_str("spec:\n  replicas: 2\n"),
        Kind::ConfigMap => y.push_str("data: {k: v}\n"),
    }
    y
}

fn policy_yaml(p: &Policy) -> String {
    let (kind, id_key) = if p.cpp {
        (
            "ClusterPropagationPolicy",
            "clusterpropagationpolicy.karmada.io/permanent-id",
        )
    } else {
        (
            "PropagationPolicy",
            "propagationpolicy.karmada.io/permanent-id",
        )
    };
    let mut y = format!(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: {}\n",
        p.name
    );
    if !p.cpp {
        writeln!(y, "  namespace: {}", p.namespace).unwrap();
    }
    if p.id_label {
        writeln!(y, "  labels: {{{id_key}: {}}}", p.permanent_id).unwrap();
    }
    if p.terminating {
        let finalizer = if p.cpp {
            "karmada.io/cluster-propagation-policy-controller"
        } else {
            "karmada.io/propagation-policy-controller"
        };
        write!(
            y,
            "  deletionTimestamp: \"2024-05-01T10:00:00Z\"\n  finalizers: [{finalizer}]\n"
        )
        .unwrap();
    }
    y.push_str("spec:\n");
    match p.defect {
        Some(Defect::GoType) => writeln!(y, "  priority: \"{}\"", p.priority).unwrap(),
        _ if p.priority != 0 || p.name.len().is_multiple_of(2) => {
            writeln!(y, "  priority: {}", p.priority).unwrap()
        }
        _ => {}
    }
    if p.preemption {
        y.push_str("  preemption: Always\n");
    }
    y.push_str("  resourceSelectors:\n");
    for s in &p.selectors {
        write!(
            y,
            "    - apiVersion: {}\n      kind: {}\n",
            s.kind.api_version(),
            s.kind.name()
        )
        .unwrap();
        if let Some(ns) = &s.namespace {
            writeln!(y, "      namespace: {ns}").unwrap();
        }
        if let Some(n) = &s.name {
            writeln!(y, "      name: {n}").unwrap();
        }
        if s.has_label_selector() {
            y.push_str("      labelSelector:\n");
            if let Some(ls) = s.labels.as_ref().filter(|ls| !ls.is_empty()) {
                writeln!(y, "        matchLabels: {}", map(ls)).unwrap();
            }
            if s.labels.as_ref().is_some_and(Vec::is_empty) && s.exprs.is_empty() {
                y.truncate(y.len() - 1);
                y.push_str(" {}\n");
            }
            if !s.exprs.is_empty() {
                y.push_str("        matchExpressions:\n");
                for (k, op, vals) in &s.exprs {
                    write!(y, "          - {{key: {k}, operator: {op}").unwrap();
                    if !vals.is_empty() {
                        write!(y, ", values: [{}]", vals.join(", ")).unwrap();
                    }
                    y.push_str("}\n");
                }
            }
        }
    }
    if p.lazy {
        y.push_str("  activationPreference: Lazy\n");
    }
    match &p.placement {
        Placement::None => {}
        Placement::Names(cs) => write!(
            y,
            "  placement:\n    clusterAffinity:\n      clusterNames: [{}]\n",
            cs.join(", ")
        )
        .unwrap(),
        Placement::Region(r) => write!(
            y,
            "  placement:\n    clusterAffinity:\n      labelSelector: {{matchLabels: {{region: {r}}}}}\n"
        )
        .unwrap(),
    }
    if p.tolerates && !matches!(p.placement, Placement::None) {
        y.push_str("    clusterTolerations: [{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}]\n");
    }
    if let Placement::Names(cs) = &p.placement {
        if p.defect == Some(Defect::SchemaMinimum) {
            write!(
                y,
                "    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n          - targetCluster: {{clusterNames: [{}]}}\n            weight: 1\n          - targetCluster: {{clusterNames: [{}]}}\n            weight: 0\n",
                cs[0],
                cs[cs.len() - 1]
            )
            .unwrap();
        }
    }
    match p.defect {
        Some(Defect::UnknownField) => y.push_str("  propagateDep: true\n"),
        Some(Defect::SchemaEnum) => y.push_str("  conflictResolution: Replace\n"),
        Some(Defect::FailoverWithoutDeps) => y.push_str(
            "  failover:\n    application:\n      decisionConditions: {tolerationSeconds: 120}\n",
        ),
        _ => {}
    }
    y
}

fn cluster_yaml(c: &Cluster) -> String {
    let mut y = format!(
        "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata:\n  name: {}\n  labels: {{region: {}}}\nspec:\n  syncMode: Push\n",
        c.name, c.region
    );
    if c.tainted {
        y.push_str("  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]\n");
    }
    if let Some(apis) = &c.apis {
        y.push_str("status:\n  apiEnablements:\n");
        for k in apis {
            let plural = format!("{}s", k.name().to_lowercase());
            write!(
                y,
                "    - groupVersion: {}\n      resources: [{{name: {plural}, kind: {}}}]\n",
                k.api_version(),
                k.name()
            )
            .unwrap();
        }
    }
    y
}

/// The repository's files: templates over two files, policies each in its own file or
/// beside templates, the Cluster objects in one.
fn write_repo(r: &Repo, dir: &Path) -> Vec<String> {
    let mut rng = Rng(r.seed ^ 0xf11e);
    let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut policy_files = Vec::new();
    for t in &r.templates {
        let f = format!("apps/{}.yaml", rng.pick(&["a", "b"]));
        files.entry(f).or_default().push(template_yaml(r, t));
    }
    for p in &r.policies {
        let f = if rng.chance(30) {
            format!("apps/{}.yaml", rng.pick(&["a", "b"]))
        } else {
            format!("policies/{}.yaml", p.name)
        };
        policy_files.push(f.clone());
        files.entry(f).or_default().push(policy_yaml(p));
    }
    if !r.clusters.is_empty() {
        files.insert(
            "clusters.yaml".into(),
            r.clusters.iter().map(cluster_yaml).collect(),
        );
    }
    for (f, docs) in files {
        let path = dir.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, docs.join("---\n")).unwrap();
    }
    policy_files
}

/// A change set for `lint --base`: the policies (each in a file of its own, named by no
/// claim: a claim cannot name a policy that does not exist yet) that the head commit adds.
/// The base commit holds every other file. Returns the added files in path order (the head's
/// document order), and the base's files.
fn commit_change(r: &Repo, dir: &Path, policy_files: &[String]) -> (Vec<String>, Vec<String>) {
    let mut rng = Rng(r.seed ^ 0xba5e);
    let claimed: BTreeSet<usize> = r.templates.iter().filter_map(|t| t.claim).collect();
    let mut added: Vec<String> = (0..r.policies.len())
        .filter(|&p| policy_files[p].starts_with("policies/") && !claimed.contains(&p))
        .filter(|_| rng.chance(40))
        .map(|p| policy_files[p].clone())
        .collect();
    added.sort();
    let mut all: Vec<String> = policy_files.to_vec();
    all.extend(["apps/a.yaml", "apps/b.yaml", "clusters.yaml"].map(String::from));
    all.sort();
    all.dedup();
    all.retain(|f| dir.join(f).exists());
    let base: Vec<String> = all.iter().filter(|f| !added.contains(f)).cloned().collect();
    git(dir, &["init", "-q"]);
    // The configuration is the working tree's, rewritten for each gate.
    std::fs::write(dir.join(".git/info/exclude"), ".karmada-policy.yaml\n").unwrap();
    let mut add = vec!["add", "--"];
    add.extend(base.iter().map(String::as_str));
    git(dir, &add);
    git(dir, &["commit", "-qm", "base"]);
    git(dir, &["add", "--", "."]);
    git(dir, &["commit", "-qm", "head", "--allow-empty"]);
    (added, base)
}

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(o.status.success(), "git {args:?}: {}", text(&o.stderr));
}

// ---------------------------------------------------------------------------------------------
// Running the binary.

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .output()
        .expect("run the binary")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A command and what it printed, to show in a failure.
#[derive(Clone, Debug)]
struct Answer {
    command: String,
    json: J,
}

impl Answer {
    fn show(&self) -> String {
        format!("  $ {}\n  {}", self.command, self.json)
    }
}

/// Runs a subcommand that must answer in JSON with exit code 0 (or 1 for lint's findings).
fn ask(dir: &Path, args: &[&str]) -> Result<Answer, String> {
    let o = run(dir, args);
    let command = format!("kubectl karmada-policy {}", args.join(" "));
    let lint = args[0] == "lint";
    if !(o.status.code() == Some(0) || lint && o.status.code() == Some(1)) {
        return Err(format!(
            "{command}: exit {:?}\n{}{}",
            o.status.code(),
            text(&o.stdout),
            text(&o.stderr)
        ));
    }
    let json = serde_json::from_slice(&o.stdout)
        .map_err(|e| format!("{command}: {e}\n{}{}", text(&o.stdout), text(&o.stderr)))?;
    Ok(Answer { command, json })
}

/// `{"kind", "namespace"?, "name"}` as `pp/NS/NAME` or `cpp/NAME`; `None` for null.
fn policy_ref(v: &J) -> Option<String> {
    if v.is_null() {
        return None;
    }
    let name = v["name"].as_str().expect("policy name");
    Some(match v["kind"].as_str() {
        Some("ClusterPropagationPolicy") => format!("cpp/{name}"),
        _ => format!("pp/{}/{name}", v["namespace"].as_str().unwrap_or("")),
    })
}

fn resource_ref(v: &J) -> String {
    format!(
        "{}/{}/{}",
        v["kind"].as_str().unwrap_or("").to_lowercase(),
        v["namespace"].as_str().unwrap_or(""),
        v["name"].as_str().unwrap_or("")
    )
}

fn show_opt(o: &Option<String>) -> &str {
    o.as_deref().unwrap_or("none")
}

// ---------------------------------------------------------------------------------------------
// What the subcommands answer for one repository under one gate setting.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gate {
    Off,
    On,
}

struct Observed {
    gate: Gate,
    lint: Answer,
    /// Per template, in `Repo::templates` order.
    explain: Vec<Answer>,
    /// Per admitted policy (by reference).
    views: BTreeMap<String, Answer>,
    /// `preempt-check --delete` per admitted policy.
    deletes: BTreeMap<String, Answer>,
    /// `explain pp/NAME` of a refused policy: its stderr.
    refused_views: BTreeMap<String, String>,
    /// `lint --base HEAD~1` and `preempt-check -f BASE --apply ADDED...`.
    base: Option<(Answer, Answer)>,
}

impl Observed {
    fn eventual(&self, t: usize) -> Option<String> {
        policy_ref(&self.explain[t].json["eventual"])
    }
    fn current(&self, t: usize) -> Option<String> {
        policy_ref(&self.explain[t].json["current"])
    }
    /// The candidates in explain's fresh-match order.
    fn candidates(&self, t: usize) -> Vec<String> {
        let mut c: Vec<(u64, String)> = self.explain[t].json["candidates"]
            .as_array()
            .expect("candidates")
            .iter()
            .map(|c| {
                (
                    c["rank"].as_u64().unwrap(),
                    policy_ref(&c["policy"]).unwrap(),
                )
            })
            .collect();
        c.sort();
        c.into_iter().map(|(_, p)| p).collect()
    }
    fn notes(&self, t: usize) -> Vec<String> {
        self.explain[t].json["notes"]
            .as_array()
            .map(|n| n.iter().map(|s| s.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    }
    fn findings(&self, rule: &str) -> Vec<&J> {
        self.lint.json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["rule"] == rule)
            .collect()
    }
}

fn write_config(dir: &Path, gate: Gate, seed: u64) {
    let path = dir.join(".karmada-policy.yaml");
    match gate {
        Gate::On => std::fs::write(path, "featureGates:\n  PropagationPolicyPreemption: true\n"),
        // Off: the default, said explicitly or by no configuration at all.
        Gate::Off if seed.is_multiple_of(2) => {
            std::fs::write(path, "featureGates: {PropagationPolicyPreemption: false}\n")
        }
        Gate::Off => std::fs::remove_file(path).or(Ok(())),
    }
    .unwrap();
}

fn observe(
    r: &Repo,
    dir: &Path,
    gate: Gate,
    change: &(Vec<String>, Vec<String>),
) -> Result<Observed, String> {
    write_config(dir, gate, r.seed);
    let lint = ask(dir, &["lint", "-f", ".", "-o", "json"])?;
    let mut explain = Vec::new();
    for t in &r.templates {
        let arg = t.arg();
        explain.push(ask(
            dir,
            &["explain", &arg, "-n", &t.namespace, "-f", ".", "-o", "json"],
        )?);
    }
    let (mut views, mut deletes, mut refused_views) =
        (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    for p in &r.policies {
        let kind = if p.cpp { "cpp" } else { "pp" };
        let arg = format!("{kind}/{}", p.name);
        let ns = if p.cpp { "default" } else { &p.namespace };
        let view = ["explain", &arg, "-n", ns, "-f", ".", "-o", "json"];
        if p.defect.is_some() {
            // Asked once: the answer does not depend on the gate.
            if gate == Gate::On {
                let o = run(dir, &view);
                refused_views.insert(
                    p.reference(),
                    format!("exit {:?}: {}", o.status.code(), text(&o.stderr)),
                );
            }
            continue;
        }
        views.insert(p.reference(), ask(dir, &view)?);
        let target = p.reference();
        deletes.insert(
            p.reference(),
            ask(
                dir,
                &[
                    "preempt-check",
                    "-f",
                    ".",
                    "--delete",
                    &target,
                    "-o",
                    "json",
                ],
            )?,
        );
    }
    let (added, base) = change;
    let base = if added.is_empty() {
        None
    } else {
        let lint = ask(dir, &["lint", "--base", "HEAD~1", "-o", "json", "."])?;
        let mut args = vec!["preempt-check"];
        for f in base {
            args.extend(["-f", f.as_str()]);
        }
        for f in added {
            args.extend(["--apply", f.as_str()]);
        }
        args.extend(["-o", "json"]);
        Some((lint, ask(dir, &args)?))
    };
    Ok(Observed {
        gate,
        lint,
        explain,
        views,
        deletes,
        refused_views,
        base,
    })
}

// ---------------------------------------------------------------------------------------------
// The comparisons.

struct Checker<'a> {
    repo: &'a Repo,
    failures: Vec<String>,
    /// What the comparisons covered, by kind (printed with `--nocapture`).
    stats: BTreeMap<&'static str, usize>,
}

impl<'a> Checker<'a> {
    fn count(&mut self, what: &'static str, n: usize) {
        *self.stats.entry(what).or_default() += n;
    }

    fn fail(&mut self, gate: Option<Gate>, what: String, answers: &[&Answer]) {
        let mut m = format!(
            "seed {:#x}{}: {what}",
            self.repo.seed,
            gate.map_or(String::new(), |g| format!(" (gate {g:?})"))
        );
        for a in answers {
            m.push('\n');
            m.push_str(&a.show());
        }
        self.failures.push(m);
    }

    fn admitted(&self) -> impl Iterator<Item = &'a Policy> {
        let repo: &'a Repo = self.repo;
        repo.policies.iter().filter(|p| p.defect.is_none())
    }

    /// Whether the policy named `r` is being deleted (never newly matched, `detector.go:401-407`).
    fn terminating(&self, r: &str) -> bool {
        self.repo
            .policies
            .iter()
            .any(|p| p.terminating && p.reference() == r)
    }

    /// Explain's candidates a fresh match can choose, in its order.
    fn live_candidates(&self, o: &Observed, t: usize) -> Vec<String> {
        o.candidates(t)
            .into_iter()
            .filter(|c| !self.terminating(c))
            .collect()
    }

    fn refused(&self) -> BTreeSet<String> {
        self.repo
            .policies
            .iter()
            .filter(|p| p.defect.is_some())
            .map(Policy::reference)
            .collect()
    }

    /// Refused policies are reported as refused, once, with one reason, everywhere; and
    /// nowhere else.
    fn rejected(&mut self, o: &Observed, admission_rules: &BTreeSet<String>) {
        let g = Some(o.gate);
        let refused = self.refused();
        let findings = o.lint.json["findings"].as_array().unwrap().clone();
        let mut lint_refused: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for f in &findings {
            let rule = f["rule"].as_str().unwrap();
            let object = &f["object"];
            let is_policy = object["kind"]
                .as_str()
                .is_some_and(|k| k.ends_with("PropagationPolicy"));
            if admission_rules.contains(rule) {
                if is_policy {
                    let message = f["apiServerMessage"].as_str().unwrap_or("").to_string();
                    lint_refused
                        .entry(policy_ref(object).unwrap())
                        .or_default()
                        .insert(message);
                }
                continue;
            }
            // No other finding is about, or mentions, a refused policy.
            let message = f["message"].as_str().unwrap_or("");
            for r in &refused {
                let about = is_policy && policy_ref(object).as_ref() == Some(r);
                if about || mentions(message, r) {
                    self.fail(
                        g,
                        format!("lint's {rule} finding names the refused {r}: {f}"),
                        &[],
                    );
                }
            }
        }
        let named: BTreeSet<String> = lint_refused.keys().cloned().collect();
        if named != refused {
            self.fail(
                g,
                format!(
                    "lint's admission findings name {named:?}, the generator refused {refused:?}"
                ),
                &[&o.lint],
            );
        }
        for (p, a) in &o.deletes {
            let listed: BTreeMap<String, String> = a.json["rejected"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    let errors: Vec<&str> = r["errors"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| e.as_str().unwrap())
                        .collect();
                    (policy_ref(&r["policy"]).unwrap(), errors.join("; "))
                })
                .collect();
            let names: BTreeSet<String> = listed.keys().cloned().collect();
            if names != refused {
                self.fail(
                    g,
                    format!("preempt-check --delete {p} rejects {names:?}, lint {refused:?}"),
                    &[a, &o.lint],
                );
            }
            // One reason: the refusal lint quotes as the API server's message (which frames
            // it: `admission webhook "..." denied the request: REASON`).
            for (r, errors) in &listed {
                for e in errors.split("; ") {
                    if !said_by_lint(&lint_refused, r, e) {
                        self.fail(
                            g,
                            format!(
                                "{r}: preempt-check's reason {e:?} is not in lint's {:?}",
                                lint_refused.get(r)
                            ),
                            &[a],
                        );
                    }
                }
            }
            // `before` is the input's claim when it has one (compared with explain's `current`
            // in `deletes`): a stale claim may name a refused policy. `after` never does.
            for r in a.json["resources"].as_array().unwrap() {
                for side in ["after"] {
                    if let Some(x) = policy_ref(&r[side]).filter(|x| refused.contains(x)) {
                        self.fail(
                            g,
                            format!(
                                "preempt-check --delete {p}: {side} of {} is the refused {x}",
                                resource_ref(&r["resource"])
                            ),
                            &[a],
                        );
                    }
                }
            }
        }
        // explain's notes: "X would match, but admission rejects it: REASON", for each refused
        // policy whose selectors match the template, with lint's reason.
        for (t, tpl) in self.repo.templates.iter().enumerate() {
            let want: BTreeSet<String> = self
                .repo
                .policies
                .iter()
                .filter(|p| p.defect.is_some() && p.match_priority(tpl) > 0)
                .map(Policy::reference)
                .collect();
            let mut got = BTreeSet::new();
            for n in o.notes(t) {
                let Some((r, reason)) = n.split_once(" would match, but admission rejects it: ")
                else {
                    continue;
                };
                got.insert(r.to_string());
                for e in reason.split("; ") {
                    if !said_by_lint(&lint_refused, r, e) {
                        self.fail(
                            g,
                            format!(
                                "explain {}: {r} is refused for {e:?}, lint says {:?}",
                                tpl.reference(),
                                lint_refused.get(r)
                            ),
                            &[&o.explain[t]],
                        );
                    }
                }
            }
            if got != want {
                self.fail(
                    g,
                    format!(
                        "explain {}: notes say {got:?} would match but are refused; the refused policies matching it are {want:?}",
                        tpl.reference()
                    ),
                    &[&o.explain[t]],
                );
            }
        }
        for (t, a) in o.explain.iter().enumerate() {
            let mut named = o.candidates(t);
            named.extend(o.eventual(t));
            named.extend(policy_ref(&a.json["afterReconcile"]));
            for x in named.iter().filter(|x| refused.contains(*x)) {
                self.fail(
                    g,
                    format!(
                        "explain {}: the refused {x} is a candidate or owner",
                        self.repo.templates[t].reference()
                    ),
                    &[a],
                );
            }
        }
        for (p, stderr) in &o.refused_views {
            // Not found in the files (exit 4, docs/exit-codes.md), saying why.
            if !(stderr.starts_with("exit Some(4)")
                && stderr
                    .contains("but admission refuses it, so the API server does not store it: "))
            {
                self.fail(g, format!("explain {p} of a refused policy: {stderr}"), &[]);
            }
        }
    }

    /// explain TYPE/NAME's candidates are the admitted policies whose selectors match, and
    /// `explain pp/NAME` holds exactly the templates whose eventual owner it is.
    fn views(&mut self, o: &Observed) {
        let g = Some(o.gate);
        for (t, tpl) in self.repo.templates.iter().enumerate() {
            let want: BTreeSet<String> = self
                .admitted()
                .filter(|p| p.match_priority(tpl) > 0)
                .map(Policy::reference)
                .collect();
            let got: BTreeSet<String> = o.candidates(t).into_iter().collect();
            if got != want {
                self.fail(
                    g,
                    format!(
                        "explain {}: candidates {got:?}, the selectors match {want:?}",
                        tpl.reference()
                    ),
                    &[&o.explain[t]],
                );
            }
        }
        for (p, view) in &o.views {
            let mut listed = BTreeSet::new();
            for entry in view.json["templates"].as_array().unwrap() {
                let res = resource_ref(&entry["resource"]);
                listed.insert(res.clone());
                let Some(t) = self
                    .repo
                    .templates
                    .iter()
                    .position(|t| t.reference() == res)
                else {
                    self.fail(
                        g,
                        format!("explain {p} lists {res}, not in the input"),
                        &[view],
                    );
                    continue;
                };
                let status = entry["status"].as_str().unwrap();
                let when = entry["when"].as_str();
                let (eventual, current) = (o.eventual(t), o.current(t));
                let holds =
                    matches!(status, "claimed" | "will-be-claimed") && when != Some("loses");
                let ok = match status {
                    "claimed" => eventual.as_ref() == Some(p) && current.as_ref() == Some(p),
                    "will-be-claimed" if when == Some("loses") => {
                        current.as_ref() == Some(p) && eventual.is_none()
                    }
                    "will-be-claimed" => {
                        eventual.as_ref() == Some(p) && current.as_ref() != Some(p)
                    }
                    "held-by-other" => {
                        let holder = policy_ref(&entry["holder"]);
                        eventual.as_ref() != Some(p)
                            && holder.is_some()
                            && holder == eventual.clone().or(current.clone())
                    }
                    "unclaimed" => eventual.is_none(),
                    _ => false,
                };
                if !ok || holds != (eventual.as_ref() == Some(p)) {
                    self.fail(
                        g,
                        format!(
                            "explain {p} says {res} is {status} ({}), explain {res} says current {}, eventual {}",
                            when.unwrap_or("-"),
                            show_opt(&current),
                            show_opt(&eventual)
                        ),
                        &[view, &o.explain[t]],
                    );
                }
            }
            let want: BTreeSet<String> = self
                .repo
                .templates
                .iter()
                .enumerate()
                .filter(|(t, tpl)| !tpl.excluded() && o.candidates(*t).contains(p))
                .map(|(_, tpl)| tpl.reference())
                .collect();
            if listed != want {
                self.fail(
                    g,
                    format!(
                        "explain {p} lists {listed:?}; explain names it a candidate of {want:?}"
                    ),
                    &[view],
                );
            }
            // The templates it selects that the detector never processes.
            let policy = self.admitted().find(|x| x.reference() == *p).unwrap();
            let filtered: BTreeSet<String> = view.json["filtered"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| resource_ref(&f["resource"]))
                .collect();
            let want: BTreeSet<String> = self
                .repo
                .templates
                .iter()
                .filter(|t| t.excluded() && policy.match_priority(t) > 0)
                .map(Template::reference)
                .collect();
            if filtered != want {
                self.fail(
                    g,
                    format!("explain {p} filters {filtered:?}, its selectors reach {want:?} in kube-system"),
                    &[view],
                );
            }
        }
    }

    /// `preempt-check --delete P`: the templates whose `before` is P are those explain says P
    /// holds (the input's claim, else the settled owner), and every `after` is where Karmada's
    /// events take the template.
    fn deletes(&mut self, o: &Observed) {
        let g = Some(o.gate);
        for (p, a) in &o.deletes {
            let mut listed: BTreeMap<String, (Option<String>, Option<String>, &J)> =
                BTreeMap::new();
            for r in a.json["resources"].as_array().unwrap() {
                listed.insert(
                    resource_ref(&r["resource"]),
                    (policy_ref(&r["before"]), policy_ref(&r["after"]), r),
                );
            }
            for (t, tpl) in self.repo.templates.iter().enumerate() {
                let (current, eventual) = (o.current(t), o.eventual(t));
                let before = current.clone().or(eventual.clone());
                // Settled on P (P preempted it, or holds it), or claimed by P in the input.
                let touched = before.as_ref() == Some(p) || eventual.as_ref() == Some(p);
                let after = if eventual.as_ref() == Some(p) {
                    // §6.1: released, then `propagateResource` matches it afresh: the best
                    // remaining candidate (preemption never beats a fresh match, §7 step 5).
                    self.live_candidates(o, t).into_iter().find(|c| c != p)
                } else {
                    eventual.clone()
                };
                let got = listed.get(&tpl.reference());
                self.count("preempt-check --delete rows", usize::from(got.is_some()));
                let want_listed = touched && before != after;
                match got {
                    None if want_listed => self.fail(
                        g,
                        format!(
                            "preempt-check --delete {p} leaves out {}: explain: current {}, eventual {}, so it moves {} -> {}",
                            tpl.reference(),
                            show_opt(&current),
                            show_opt(&eventual),
                            show_opt(&before),
                            show_opt(&after)
                        ),
                        &[a, &o.explain[t]],
                    ),
                    None => {}
                    Some((b, af, r)) => {
                        let preempted = r["preempted"].as_bool() == Some(true);
                        let blocked = r["blockedBy"].as_array().is_some_and(|b| !b.is_empty());
                        if !want_listed || *b != before || *af != after || preempted || blocked {
                            self.fail(
                                g,
                                format!(
                                    "preempt-check --delete {p}: {} {} -> {} (preempted {preempted}, blocked {blocked}); explain's current {}, eventual {} and ranking say {} -> {}",
                                    tpl.reference(),
                                    show_opt(b),
                                    show_opt(af),
                                    show_opt(&current),
                                    show_opt(&eventual),
                                    show_opt(&before),
                                    show_opt(&after)
                                ),
                                &[a, &o.explain[t]],
                            );
                        }
                    }
                }
            }
            for res in listed.keys() {
                if !self.repo.templates.iter().any(|t| t.reference() == *res) {
                    self.fail(
                        g,
                        format!("preempt-check lists {res}, not in the input"),
                        &[a],
                    );
                }
            }
        }
    }

    /// lint's overlap findings: one per (loser, winner) pair over the templates explain ranks,
    /// the winner explain's first candidate, the keeper (if another) its eventual owner.
    fn overlaps(&mut self, o: &Observed) {
        let g = Some(o.gate);
        let mut want: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
        for t in 0..self.repo.templates.len() {
            if self.repo.templates[t].excluded() {
                continue;
            }
            let c = self.live_candidates(o, t);
            for loser in c.iter().skip(1) {
                want.entry((loser.clone(), c[0].clone()))
                    .or_default()
                    .push(t);
            }
        }
        let mut seen = BTreeSet::new();
        // One finding per losing policy; JSON `partners` lists each (loser, winner) pair.
        let pairs: Vec<(serde_json::Value, String)> = o
            .findings("overlap")
            .into_iter()
            .flat_map(|f| {
                let message = f["message"].as_str().unwrap().to_string();
                let partners = f["partners"].as_array().cloned().unwrap_or_default();
                partners.into_iter().map(move |p| {
                    let mut pair = f.clone();
                    pair["partner"] = p;
                    (pair, message.clone())
                })
            })
            .collect();
        for (f, message) in &pairs {
            let message = message.as_str();
            let Some(parsed) = partner_overlap(&f["partner"], message) else {
                self.fail(g, format!("unreadable overlap finding: {message}"), &[]);
                continue;
            };
            let loser = policy_ref(&f["object"]).unwrap();
            let key = (loser.clone(), parsed.winner.clone());
            let Some(group) = want.get(&key) else {
                self.fail(
                    g,
                    format!("lint: {message}; explain ranks no template with {} first and {loser} after it", parsed.winner),
                    &[&o.lint],
                );
                continue;
            };
            seen.insert(key.clone());
            self.count("overlap findings matched", 1);
            let first = group
                .iter()
                .copied()
                .find(|&t| self.repo.templates[t].reference() == parsed.first);
            let Some(t) = first.filter(|_| group.len() == parsed.count) else {
                let names: Vec<String> = group
                    .iter()
                    .map(|&t| self.repo.templates[t].reference())
                    .collect();
                self.fail(
                    g,
                    format!(
                        "lint: {message}; explain ranks {} over {loser} on {names:?}",
                        parsed.winner
                    ),
                    &[&o.lint],
                );
                continue;
            };
            let keeper = parsed.keeper.clone().unwrap_or(parsed.winner.clone());
            let eventual = o.eventual(t);
            if eventual.as_ref() != Some(&keeper) {
                self.fail(
                    g,
                    format!(
                        "lint: {message}; explain {} says the owner is {}",
                        parsed.first,
                        show_opt(&eventual)
                    ),
                    &[&o.explain[t]],
                );
            }
        }
        for (key, group) in &want {
            if !seen.contains(key) {
                self.fail(
                    g,
                    format!(
                        "lint has no overlap finding for {} losing to {} on {}",
                        key.0,
                        key.1,
                        self.repo.templates[group[0]].reference()
                    ),
                    &[&o.lint, &o.explain[group[0]]],
                );
            }
        }
    }

    /// inert-preemption exactly when the gate is off, for each admitted `preemption: Always`
    /// policy; explain's gate note names the same policies; silent-non-preemption's holder is
    /// the owner before preemption (explain's eventual with the gate off) and its preemptor
    /// never the owner.
    fn preemption(&mut self, o: &Observed, off: &Observed) {
        let g = Some(o.gate);
        let inert: BTreeSet<String> = o
            .findings("inert-preemption")
            .iter()
            .map(|f| policy_ref(&f["object"]).unwrap())
            .collect();
        let want: BTreeSet<String> = match o.gate {
            Gate::On => BTreeSet::new(),
            Gate::Off => self
                .admitted()
                .filter(|p| p.preemption)
                .map(Policy::reference)
                .collect(),
        };
        if inert != want {
            self.fail(
                g,
                format!("lint's inert-preemption names {inert:?}, expected {want:?}"),
                &[&o.lint],
            );
        }
        for (t, tpl) in self.repo.templates.iter().enumerate() {
            let gate_note = o
                .notes(t)
                .into_iter()
                .find(|n| n.starts_with("preemption is off"));
            // Preemptors of this template: admitted, Always, a selector naming it (§7 step 5).
            let preemptors: Vec<&Policy> = self
                .admitted()
                .filter(|p| p.preemption && !p.terminating && p.match_priority(tpl) == 3)
                .collect();
            match (&gate_note, o.gate) {
                (Some(n), Gate::On) => self.fail(
                    g,
                    format!("explain {}: {n}", tpl.reference()),
                    &[&o.explain[t]],
                ),
                (Some(n), Gate::Off) => {
                    // It names preemptors of this template only.
                    let all = self
                        .admitted()
                        .filter(|p| p.preemption)
                        .map(Policy::reference);
                    for r in all {
                        if mentions(n, &r) && !preemptors.iter().any(|p| p.reference() == r) {
                            self.fail(
                                g,
                                format!("explain {}: the gate note names {r}, which does not name the template", tpl.reference()),
                                &[&o.explain[t]],
                            );
                        }
                    }
                }
                (None, _) => {}
            }
            if o.gate == Gate::Off && o.explain[t].json["preempted"] == true {
                self.fail(
                    g,
                    format!("explain {}: preempted with the gate off", tpl.reference()),
                    &[&o.explain[t]],
                );
            }
        }
        for f in o.findings("silent-non-preemption") {
            let message = f["message"].as_str().unwrap();
            let preemptor = policy_ref(&f["object"]).unwrap();
            self.count("silent-non-preemption findings", 1);
            let Some((first, holder, holds_now)) = parse_silent(message) else {
                self.fail(
                    g,
                    format!("unreadable silent-non-preemption: {message}"),
                    &[],
                );
                continue;
            };
            let Some(t) = self
                .repo
                .templates
                .iter()
                .position(|t| t.reference() == first)
            else {
                self.fail(
                    g,
                    format!("silent-non-preemption names {first}: not in the input"),
                    &[],
                );
                continue;
            };
            let matched = off.eventual(t);
            let ok = if holds_now {
                matched.as_ref() == Some(&holder) && o.eventual(t).as_ref() != Some(&preemptor)
            } else {
                matched.as_ref() == Some(&preemptor)
            };
            if !ok {
                self.fail(
                    g,
                    format!(
                        "lint: {message}; explain {first}: owner before preemption {}, eventual {}",
                        show_opt(&matched),
                        show_opt(&o.eventual(t))
                    ),
                    &[&o.explain[t], &off.explain[t]],
                );
            }
        }
    }

    /// With Cluster objects: explain TYPE/NAME's placement is its owner's placement for the
    /// template's kind in `explain pp/NAME` (the scheduler judges each binding on its own API),
    /// and no-cluster-fits fires on a policy exactly when a kind it selects fits no cluster,
    /// naming the first such kind.
    fn placement(&mut self, o: &Observed) {
        let g = Some(o.gate);
        if self.repo.clusters.is_empty() {
            return;
        }
        let no_fit: BTreeMap<String, String> = o
            .findings("no-cluster-fits")
            .iter()
            .map(|f| {
                (
                    policy_ref(&f["object"]).unwrap(),
                    f["message"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        for (t, tpl) in self.repo.templates.iter().enumerate() {
            let Some(owner) = o.eventual(t) else { continue };
            let Some(view) = o.views.get(&owner) else {
                continue;
            };
            let p = self.admitted().find(|p| p.reference() == owner).unwrap();
            let mine = &scheduling(&o.explain[t].json["placement"]);
            let theirs = by_kind(p, &view.json)
                .remove(&tpl.kind)
                .map(|t| scheduling(&t));
            self.count("placements compared", 1);
            // A policy without `placement` schedules with the empty one: every subcommand says
            // where that lands.
            match theirs {
                Some(theirs) if *mine == theirs => {}
                theirs => self.fail(
                    g,
                    format!(
                        "placement of {}: explain {} says {mine}, explain {owner} says {}",
                        tpl.kind.name(),
                        tpl.reference(),
                        theirs.map_or("none".to_string(), |t| t.to_string())
                    ),
                    &[&o.explain[t], view],
                ),
            }
        }
        // lint leaves policies being deleted alone (they take no new template).
        for p in self.admitted().filter(|p| !p.terminating) {
            let Some(view) = o.views.get(&p.reference()) else {
                continue;
            };
            let placements = by_kind(p, &view.json);
            let fired = no_fit.get(&p.reference());
            let first_failing = p
                .kinds()
                .into_iter()
                .find(|k| placements.get(k).is_some_and(|v| !v["error"].is_null()));
            let kinds_ok = placements.keys().copied().collect::<Vec<_>>() == {
                let mut ks = p.kinds();
                ks.sort();
                ks
            };
            self.count("no-cluster-fits findings", usize::from(fired.is_some()));
            let agrees = match (first_failing, fired) {
                (None, None) => true,
                (Some(k), Some(m)) => {
                    m.contains(&format!("placement of {} {}", k.api_version(), k.name()))
                }
                _ => false,
            };
            if !agrees || !kinds_ok {
                self.fail(
                    g,
                    format!(
                        "explain {}: first kind fitting no cluster {:?}, lint's no-cluster-fits: {}",
                        p.reference(),
                        first_failing,
                        fired.map_or("none", |s| s.as_str())
                    ),
                    &[view],
                );
            }
        }
    }

    /// `lint --base` applies the added policies to the settled base as controller events, in
    /// document order: the same events as `preempt-check -f BASE --apply ...` in that order.
    /// lint leaves out the policies that simply rank below the owner (a lower priority without
    /// `preemption: Always`, which preempt-check's message names), and a template that neither
    /// moves nor is blocked.
    fn base(&mut self, o: &Observed) {
        let Some((lint, check)) = &o.base else { return };
        let row = |r: &J, drop_lower: bool| {
            let blocked: Vec<J> = r["blockedBy"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|b| {
                    let ranks_below = b["reason"] == "lower-priority"
                        && b["message"]
                            .as_str()
                            .is_some_and(|m| m.contains("which this policy does not set"));
                    !(drop_lower && ranks_below)
                })
                .cloned()
                .collect();
            let moved = r["before"] != r["after"];
            (moved || !blocked.is_empty()).then(|| {
                (
                    resource_ref(&r["resource"]),
                    serde_json::json!([r["before"], r["after"], r["preempted"], blocked]),
                )
            })
        };
        let from_lint: BTreeMap<String, J> = lint.json["ownershipChanges"]
            .as_array()
            .map(|a| a.iter().filter_map(|r| row(r, false)).collect())
            .unwrap_or_default();
        let from_check: BTreeMap<String, J> = check.json["resources"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| row(r, true))
            .collect();
        self.count("lint --base ownership changes", from_lint.len());
        if from_lint != from_check {
            self.fail(
                Some(o.gate),
                format!("lint --base's ownership changes {from_lint:?} are not preempt-check's {from_check:?}"),
                &[lint, check],
            );
        }
    }

    /// `--feature-gates` on the command line over a configuration with the gate off gives what
    /// the configuration with the gate on gives, in every subcommand.
    fn flags_and_configuration(&mut self, dir: &Path, off: &Observed, on: &Observed) {
        write_config(dir, Gate::Off, self.repo.seed);
        let gate = ["--feature-gates", "PropagationPolicyPreemption=true"];
        // The template the gate changes most visibly, else the first.
        let t = (0..self.repo.templates.len())
            .find(|&t| off.eventual(t) != on.eventual(t))
            .unwrap_or(0);
        let tpl = &self.repo.templates[t];
        let arg = tpl.arg();
        let mut asks: Vec<(Vec<&str>, &Answer)> = vec![
            (
                vec![
                    "explain",
                    &arg,
                    "-n",
                    &tpl.namespace,
                    "-f",
                    ".",
                    "-o",
                    "json",
                ],
                &on.explain[t],
            ),
            (vec!["lint", "-f", ".", "-o", "json"], &on.lint),
        ];
        let first = on.deletes.iter().next();
        if let Some((p, a)) = first {
            asks.push((
                vec!["preempt-check", "-f", ".", "--delete", p, "-o", "json"],
                a,
            ));
        }
        for (mut args, want) in asks {
            args.extend(gate);
            match ask(dir, &args) {
                Ok(got) if got.json == want.json => {}
                Ok(got) => self.fail(
                    None,
                    "--feature-gates on the command line answers otherwise than the configuration"
                        .into(),
                    &[&got, want],
                ),
                Err(e) => self.fail(None, e, &[]),
            }
        }
    }

    /// What does not depend on the gate stays; what does moves only by preemption.
    fn across_gates(&mut self, off: &Observed, on: &Observed) {
        for (t, tpl) in self.repo.templates.iter().enumerate() {
            let (a, b) = (&off.explain[t].json, &on.explain[t].json);
            for key in ["current", "afterReconcile", "candidates", "placement"] {
                // The candidates' `why` and `selected` follow the owner; their set and ranks don't.
                let strip = |v: &J| match key {
                    "candidates" => J::Array(
                        v.as_array()
                            .unwrap()
                            .iter()
                            .map(|c| serde_json::json!([c["policy"], c["rank"], c["match"]]))
                            .collect(),
                    ),
                    _ => v.clone(),
                };
                if key == "placement" && a["eventual"] != b["eventual"] {
                    continue;
                }
                if strip(&a[key]) != strip(&b[key]) {
                    self.fail(
                        None,
                        format!("explain {}: {key} changes with the gate", tpl.reference()),
                        &[&off.explain[t], &on.explain[t]],
                    );
                }
            }
            // A policy the gate gives the template is one the gate-off answer says would act.
            if let Some(p) = on
                .eventual(t)
                .filter(|p| Some(p) != off.eventual(t).as_ref())
            {
                let note = off
                    .notes(t)
                    .into_iter()
                    .find(|n| n.starts_with("preemption is off"));
                if !note.is_some_and(|n| mentions(&n, &p)) {
                    self.fail(
                        None,
                        format!("explain {}: the gate gives it to {p}, but the gate-off answer does not say {p} would act", tpl.reference()),
                        &[&off.explain[t], &on.explain[t]],
                    );
                }
            }
            self.count(
                "templates the gate moves",
                usize::from(a["eventual"] != b["eventual"]),
            );
            if a["eventual"] != b["eventual"] && b["preempted"] != true {
                self.fail(
                    None,
                    format!(
                        "explain {}: the gate changes the owner without a preemption",
                        tpl.reference()
                    ),
                    &[&off.explain[t], &on.explain[t]],
                );
            }
        }
        // `before` is the input's claim or the fresh match: never the gate's doing.
        for (p, a) in &off.deletes {
            let b = &on.deletes[p];
            let befores = |x: &Answer| -> BTreeMap<String, Option<String>> {
                x.json["resources"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| (resource_ref(&r["resource"]), policy_ref(&r["before"])))
                    .filter(|(_, b)| b.as_ref() == Some(p))
                    .collect()
            };
            if befores(a) != befores(b) {
                self.fail(
                    None,
                    format!("preempt-check --delete {p}: the templates it held before change with the gate"),
                    &[a, b],
                );
            }
        }
    }
}

/// `explain pp/NAME`'s placement per kind: `placements` when the policy selects several kinds,
/// else `placement` for its one kind.
fn by_kind(p: &Policy, view: &J) -> BTreeMap<Kind, J> {
    if let Some(list) = view["placements"].as_array() {
        return list
            .iter()
            .map(|e| {
                let kind = match e["kind"].as_str() {
                    Some("Deployment") => Kind::Deployment,
                    _ => Kind::ConfigMap,
                };
                (kind, e["placement"].clone())
            })
            .collect();
    }
    match &view["placement"] {
        J::Null => BTreeMap::new(),
        v => BTreeMap::from([(p.kinds()[0], v.clone())]),
    }
}

/// Whether lint's admission findings on `r` quote `reason` in the API server's message.
fn said_by_lint(lint: &BTreeMap<String, BTreeSet<String>>, r: &str, reason: &str) -> bool {
    !reason.is_empty()
        && lint
            .get(r)
            .is_some_and(|m| m.iter().any(|m| m.contains(reason)))
}

/// Whether `message` names policy `r` (`pp/ns/name`, `cpp/name`) as a whole word.
fn mentions(message: &str, r: &str) -> bool {
    message.match_indices(r).any(|(i, _)| {
        let after = message[i + r.len()..].chars().next();
        let before = message[..i].chars().next_back();
        !after.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '/')
            && !before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '/')
    })
}

/// One partner of a grouped overlap finding (JSON `partners`): its winner, first template and
/// count from the JSON, the keeper from the message's part on that winner (named partners only).
fn partner_overlap(p: &serde_json::Value, message: &str) -> Option<Overlap> {
    let winner = policy_ref(&p["policy"])?;
    let templates = p["templates"].as_array()?;
    let first = resource_ref(templates.first()?);
    // The part on this winner ends where the next partner's begins (its " wins the fresh match: ").
    let said = message
        .split_once(&format!("{winner} wins the fresh match: "))
        .map(|(_, rest)| rest.split(" wins the fresh match: ").next().unwrap_or(rest));
    let keeper = said
        .and_then(|s| s.split_once(" (but "))
        .and_then(|(_, k)| k.split_once(" keeps it"))
        .map(|(k, _)| k.to_string());
    Some(Overlap {
        winner,
        first,
        count: templates.len(),
        keeper,
    })
}

struct Overlap {
    winner: String,
    first: String,
    count: usize,
    keeper: Option<String>,
}

/// "P names T[ and N more] but will never take it from H: ..." (holds now), or
/// "P names T, which H also matches: ..." (a rival that claims first). The first template.
fn parse_silent(m: &str) -> Option<(String, String, bool)> {
    let (_, rest) = m.split_once(" names ")?;
    if let Some((what, rest)) = rest.split_once(" but will never take it from ") {
        let first = what.split(" and ").next()?;
        let (holder, _) = rest.split_once(": ")?;
        return Some((first.to_string(), holder.to_string(), true));
    }
    let (what, rest) = rest.split_once(", which ")?;
    let (holder, _) = rest.split_once(" also matches")?;
    let first = what.split(" and ").next()?;
    Some((first.to_string(), holder.to_string(), false))
}

/// The rules of the admission chain (groups `schema` and `admission`), from the registry.
fn admission_rules() -> BTreeSet<String> {
    let o = run(Path::new("."), &["lint", "--list-rules"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            (cols.len() > 2 && matches!(cols[2], "schema" | "admission"))
                .then(|| cols[0].to_string())
        })
        .collect()
}

type Stats = BTreeMap<&'static str, usize>;

/// Generates, runs and compares one repository: the failures, and what was covered.
fn check_seed(seed: u64, admission: &BTreeSet<String>, root: &Path) -> (Vec<String>, Stats) {
    let repo = generate(seed);
    let dir = root.join(format!("seed-{seed:x}"));
    std::fs::create_dir_all(&dir).unwrap();
    let files = write_repo(&repo, &dir);
    let change = commit_change(&repo, &dir, &files);
    let mut c = Checker {
        repo: &repo,
        failures: Vec::new(),
        stats: BTreeMap::new(),
    };
    c.count("repositories", 1);
    c.count("template cases (template x gate)", 2 * repo.templates.len());
    c.count(
        "claimed templates",
        repo.templates.iter().filter(|t| t.claim.is_some()).count(),
    );
    c.count(
        "refused policies",
        repo.policies.iter().filter(|p| p.defect.is_some()).count(),
    );
    c.count(
        "admitted policies",
        repo.policies.iter().filter(|p| p.defect.is_none()).count(),
    );
    c.count(
        "Clusters without status",
        repo.clusters.iter().filter(|c| c.apis.is_none()).count(),
    );
    c.count(
        "Clusters with status",
        repo.clusters.iter().filter(|c| c.apis.is_some()).count(),
    );
    let (off, on) = match (
        observe(&repo, &dir, Gate::Off, &change),
        observe(&repo, &dir, Gate::On, &change),
    ) {
        (Ok(off), Ok(on)) => (off, on),
        (Err(e), _) | (_, Err(e)) => {
            c.failures.push(format!("seed {seed:#x}: {e}"));
            return (c.failures, c.stats);
        }
    };
    for o in [&off, &on] {
        c.rejected(o, admission);
        c.views(o);
        c.deletes(o);
        c.overlaps(o);
        c.preemption(o, &off);
        c.placement(o);
        c.base(o);
    }
    c.across_gates(&off, &on);
    c.flags_and_configuration(&dir, &off, &on);
    if c.failures.is_empty() {
        std::fs::remove_dir_all(&dir).ok();
    } else {
        c.failures.push(format!(
            "seed {seed:#x}: the repository is kept in {} (rerun alone: CONSISTENCY_SEED={seed:#x} cargo test --test consistency)",
            dir.display()
        ));
    }
    (c.failures, c.stats)
}

#[test]
fn every_subcommand_gives_one_answer_on_generated_repositories() {
    let seeds: Vec<u64> = match std::env::var("CONSISTENCY_SEED") {
        Ok(s) => vec![u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("a hex seed")],
        Err(_) => SEEDS.to_vec(),
    };
    let admission = admission_rules();
    assert!(
        admission.contains("schema-unknown-field")
            && admission.contains("preemption-requires-name")
    );
    let root: PathBuf =
        std::env::temp_dir().join(format!("karmada-policy-consistency-{}", std::process::id()));
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    // Two workers per core: each spends most of its time waiting for the binary.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&seed) = seeds.get(i) else { break };
                let r = check_seed(seed, &admission, &root);
                results.lock().unwrap().push(r);
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut stats = Stats::new();
    for (what, n) in results.iter().flat_map(|r| &r.1) {
        *stats.entry(what).or_default() += n;
    }
    let cases = stats
        .get("template cases (template x gate)")
        .copied()
        .unwrap_or(0);
    let failures: Vec<&String> = results.iter().flat_map(|r| &r.0).collect();
    eprintln!("consistency: {} failures; covered:", failures.len());
    for (what, n) in &stats {
        eprintln!("  {what}: {n}");
    }
    if seeds.len() > 1 {
        assert!(cases >= 300, "only {cases} cases");
    }
    if !failures.is_empty() {
        let all: Vec<&str> = failures.iter().map(|s| s.as_str()).collect();
        let report = root.join("failures.txt");
        std::fs::write(&report, all.join("\n\n")).unwrap();
        eprintln!("every disagreement: {}", report.display());
        let shown: Vec<&str> = failures.iter().take(12).map(|s| s.as_str()).collect();
        panic!(
            "{} disagreements between subcommands:\n\n{}",
            failures.len(),
            shown.join("\n\n")
        );
    }
    std::fs::remove_dir_all(&root).ok();
}

// ---------------------------------------------------------------------------------------------
// The disagreements the suite found, each as a focused regression test.

/// The scheduling part of a template's placement: the replica assignment is the template's own
/// (its replicas), so a policy's view, which places kinds rather than templates, does not carry it.
fn scheduling(placement: &J) -> J {
    let mut p = placement.clone();
    if let Some(o) = p.as_object_mut() {
        for key in ["assignment", "assignmentBasis", "assignmentUnknown"] {
            o.remove(key);
        }
    }
    p
}

fn json_of(dir: &Path, args: &[&str]) -> J {
    ask(dir, args).unwrap_or_else(|e| panic!("{e}")).json
}

/// A value Karmada's Go types cannot hold (`priority: "5"`) is refused by the mutating
/// webhook's decoder (admission-chain.md §4): lint said so, but the engine dropped the policy
/// before admission, so preempt-check's `rejected` and explain's notes never named it and
/// `explain pp/NAME` said "not found".
#[test]
fn a_policy_the_go_decoder_refuses_is_reported_as_refused_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("all.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: typed-wrong, namespace: shop}\nspec:\n  priority: \"5\"\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n",
    )
    .unwrap();
    let reason = "json: cannot unmarshal string into Go struct field PropagationSpec.spec.priority of type int32";
    let lint = json_of(d, &["lint", "-f", ".", "-o", "json"]);
    let refusal = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["object"]["name"] == "typed-wrong")
        .expect("lint refuses it");
    let message = refusal["apiServerMessage"].as_str().unwrap();
    assert!(message.ends_with(reason), "{message}");

    let check = json_of(
        d,
        &[
            "preempt-check",
            "-f",
            ".",
            "--delete",
            "pp/shop/web",
            "-o",
            "json",
        ],
    );
    assert_eq!(
        check["rejected"],
        serde_json::json!([{"policy": {"kind": "PropagationPolicy", "namespace": "shop", "name": "typed-wrong"}, "errors": [message]}]),
        "{check}"
    );
    let v = json_of(
        d,
        &[
            "explain",
            "deploy/web",
            "-n",
            "shop",
            "-f",
            ".",
            "-o",
            "json",
        ],
    );
    assert_eq!(v["eventual"]["name"], "web", "{v}");
    assert_eq!(
        v["notes"],
        serde_json::json!([format!(
            "pp/shop/typed-wrong would match, but admission rejects it: {message}"
        )]),
        "{v}"
    );
    let o = run(d, &["explain", "pp/typed-wrong", "-n", "shop", "-f", "."]);
    // Not found in the files, as every named object that is not there (docs/exit-codes.md).
    assert_eq!(o.status.code(), Some(4));
    assert!(
        text(&o.stderr).contains("but admission refuses it, so the API server does not store it: "),
        "{}",
        text(&o.stderr)
    );
}

/// The scheduler judges each binding on its own API (`apienablement` Filter,
/// pkg/scheduler/framework/plugins/apienablement/api_enablement.go): a policy selecting
/// Deployments and ConfigMaps places them apart when a cluster serves only ConfigMaps.
/// `explain cpp/NAME` judged every kind as its first selector's (NoClusterFit for the
/// ConfigMap that `explain cm/NAME` placed on member1); it now gives the placement per kind.
#[test]
fn a_policy_placement_is_judged_for_each_kind_it_selects() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("all.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: both}\nspec:\n  resourceSelectors:\n    - {apiVersion: apps/v1, kind: Deployment}\n    - {apiVersion: v1, kind: ConfigMap}\n  placement: {clusterAffinity: {clusterNames: [member1]}}\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member1}\nspec: {syncMode: Push}\nstatus:\n  apiEnablements: [{groupVersion: v1, resources: [{name: configmaps, kind: ConfigMap}]}]\n",
    )
    .unwrap();
    let template = json_of(
        d,
        &[
            "explain",
            "cm/settings",
            "-n",
            "shop",
            "-f",
            ".",
            "-o",
            "json",
        ],
    );
    assert_eq!(
        template["placement"]["clusters"],
        serde_json::json!(["member1"])
    );
    let policy = json_of(d, &["explain", "cpp/both", "-f", ".", "-o", "json"]);
    let placements = policy["placements"].as_array().expect("one per kind");
    assert_eq!(placements.len(), 2, "{policy}");
    assert_eq!(placements[0]["kind"], "Deployment");
    assert_eq!(
        placements[0]["placement"]["error"]["reason"], "NoClusterFit",
        "{policy}"
    );
    assert_eq!(placements[1]["kind"], "ConfigMap");
    assert_eq!(
        scheduling(&placements[1]["placement"]),
        scheduling(&template["placement"]),
        "{policy}"
    );
    // `placement` stays the first kind's.
    assert_eq!(policy["placement"], placements[0]["placement"]);
    let text = text(&run(d, &["explain", "cpp/both", "-f", "."]).stdout);
    assert!(
        text.contains("\nplacement of v1 ConfigMap:\n  clusters: member1\n"),
        "{text}"
    );
    assert!(
        text.contains("\nplacement of apps/v1 Deployment:\n  no cluster selected: 0/1 clusters are available: 1 cluster(s) did not have the API resource.\n"),
        "{text}"
    );
}

/// preempt-check takes a claim naming a policy its inputs lack as naming one that exists
/// (the inputs may be partial); but a policy the inputs hold and admission refuses is never
/// stored, so its claim is stale (§4.2, `getAndApplyClusterPolicy` drops the claim of a policy
/// that is not found, policy.go:159-208), as explain says. It owned the template in
/// preempt-check, so deleting the policy that really holds it moved nothing.
#[test]
fn a_claim_naming_a_refused_policy_is_stale_in_preempt_check_too() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("all.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: shop\n  labels: {clusterpropagationpolicy.karmada.io/permanent-id: 5f1d}\n  annotations: {clusterpropagationpolicy.karmada.io/name: refused}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: all}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: refused}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  conflictResolution: Replace\n",
    )
    .unwrap();
    let v = json_of(
        d,
        &["explain", "cm/cfg", "-n", "shop", "-f", ".", "-o", "json"],
    );
    assert_eq!(v["current"]["name"], "refused");
    assert_eq!(v["eventual"]["name"], "all", "{v}");
    let check = json_of(
        d,
        &[
            "preempt-check",
            "-f",
            ".",
            "--delete",
            "cpp/all",
            "-o",
            "json",
        ],
    );
    let moved = &check["resources"][0];
    assert_eq!(moved["resource"]["name"], "cfg", "{check}");
    assert_eq!(moved["before"]["name"], "refused", "the input's claim");
    assert_eq!(
        moved["after"],
        J::Null,
        "released, nothing else matches: {check}"
    );
    assert_eq!(check["rejected"][0]["policy"]["name"], "refused");
}

/// `PropagationSpec.Placement` is a struct, not a pointer (propagation_types.go:90): a policy
/// without `placement` gives its bindings the empty placement, which the scheduler still
/// filters (taints, APIs). lint judged it so (no-cluster-fits), while both explain views showed
/// no placement at all.
#[test]
fn a_policy_without_placement_is_placed_like_an_empty_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let clusters = "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member1}\nspec:\n  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]\n---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member2}\nspec: {}\n";
    let app = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n";
    std::fs::write(d.join("app.yaml"), app).unwrap();
    std::fs::write(d.join("clusters.yaml"), clusters).unwrap();
    let template = json_of(
        d,
        &[
            "explain",
            "deploy/web",
            "-n",
            "shop",
            "-f",
            ".",
            "-o",
            "json",
        ],
    );
    assert_eq!(
        template["placement"]["clusters"],
        serde_json::json!(["member2"]),
        "{template}"
    );
    assert_eq!(
        template["placement"]["excluded"][0]["filter"],
        "TaintToleration"
    );
    let policy = json_of(
        d,
        &["explain", "pp/web", "-n", "shop", "-f", ".", "-o", "json"],
    );
    assert_eq!(
        scheduling(&policy["placement"]),
        scheduling(&template["placement"]),
        "{policy}"
    );
    let lint = json_of(d, &["lint", "-f", ".", "-o", "json"]);
    assert_eq!(lint["findings"], serde_json::json!([]), "{lint}");

    // Only the tainted cluster: no fit, said by all three.
    std::fs::write(
        d.join("clusters.yaml"),
        clusters.split("---").next().unwrap(),
    )
    .unwrap();
    let template = json_of(
        d,
        &[
            "explain",
            "deploy/web",
            "-n",
            "shop",
            "-f",
            ".",
            "-o",
            "json",
        ],
    );
    assert_eq!(
        template["placement"]["error"]["reason"], "NoClusterFit",
        "{template}"
    );
    let policy = json_of(
        d,
        &["explain", "pp/web", "-n", "shop", "-f", ".", "-o", "json"],
    );
    assert_eq!(
        scheduling(&policy["placement"]),
        scheduling(&template["placement"]),
        "{policy}"
    );
    let lint = json_of(d, &["lint", "-f", ".", "-o", "json"]);
    assert_eq!(lint["findings"][0]["rule"], "no-cluster-fits", "{lint}");
}

/// With the gate on, a preempting PropagationPolicy takes a template claimed by a
/// ClusterPropagationPolicy once every policy is processed (preemption.go:156-181). Deleting the
/// preemptor leaves the template with the claim it holds now: preempt-check listed it anyway,
/// as a "move" from cpp/all to cpp/all.
#[test]
fn deleting_a_preemptor_that_did_not_take_the_template_yet_moves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join(".karmada-policy.yaml"),
        "featureGates: {PropagationPolicyPreemption: true}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("all.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n  namespace: shop\n  labels: {clusterpropagationpolicy.karmada.io/permanent-id: id-7e57}\n  annotations: {clusterpropagationpolicy.karmada.io/name: all}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: all\n  labels: {clusterpropagationpolicy.karmada.io/permanent-id: id-7e57}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: takeover, namespace: shop}\nspec:\n  preemption: Always\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: db}]\n",
    )
    .unwrap();
    let v = json_of(
        d,
        &["explain", "cm/db", "-n", "shop", "-f", ".", "-o", "json"],
    );
    assert_eq!(v["current"]["name"], "all");
    assert_eq!(v["eventual"]["name"], "takeover", "{v}");
    let check = json_of(
        d,
        &[
            "preempt-check",
            "-f",
            ".",
            "--delete",
            "pp/shop/takeover",
            "-o",
            "json",
        ],
    );
    assert_eq!(check["resources"], serde_json::json!([]), "{check}");
    // Deleting the holder of the claim does move it: to the preemptor that settled on it.
    let check = json_of(
        d,
        &[
            "preempt-check",
            "-f",
            ".",
            "--delete",
            "cpp/all",
            "-o",
            "json",
        ],
    );
    assert_eq!(check["resources"][0]["before"]["name"], "all", "{check}");
    assert_eq!(
        check["resources"][0]["after"]["name"], "takeover",
        "{check}"
    );
}

/// A template claimed by a policy being deleted, with no other policy to take it, ends
/// unclaimed (the deletion removes the claim, detector.go:1167-1231): `explain cm/NAME` said so,
/// while `explain cpp/NAME` counted it among the templates the policy "will claim"
/// (`loses-later`, a status the documentation does not have).
#[test]
fn a_template_its_claimer_releases_is_unclaimed_in_the_policy_view() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("all.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n  namespace: shop\n  labels: {clusterpropagationpolicy.karmada.io/permanent-id: id-7e57}\n  annotations: {clusterpropagationpolicy.karmada.io/name: leaving}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: leaving\n  labels: {clusterpropagationpolicy.karmada.io/permanent-id: id-7e57}\n  deletionTimestamp: \"2024-05-01T10:00:00Z\"\n  finalizers: [karmada.io/cluster-propagation-policy-controller]\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n",
    )
    .unwrap();
    let v = json_of(
        d,
        &["explain", "cm/db", "-n", "shop", "-f", ".", "-o", "json"],
    );
    assert_eq!(v["current"]["name"], "leaving");
    assert_eq!(v["eventual"], J::Null, "{v}");
    let view = json_of(d, &["explain", "cpp/leaving", "-f", ".", "-o", "json"]);
    assert_eq!(view["templates"][0]["status"], "unclaimed", "{view}");
    assert_eq!(view["summary"]["willBeClaimed"], 0);
    assert_eq!(view["summary"]["unclaimed"], 1);
}

/// `lint --base` re-types the policies of the changed files and of the base's scope from their
/// documents, which forgot the admission chain's verdict: a policy the CRD schema refuses (a
/// weight 0, an enum value) held and took templates in the ownership changes, where
/// `preempt-check` (the same events) rejected it. Both the streamed path and the whole-sides
/// one (taken when a policy reference repeats) are checked.
#[test]
fn lint_base_applies_no_policy_admission_refuses() {
    let weight0 = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: weight0, namespace: shop}\nspec:\n  priority: 5\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n  placement:\n    clusterAffinity: {clusterNames: [member1, member2]}\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n          - {targetCluster: {clusterNames: [member1]}, weight: 0}\n";
    let templates = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\n";
    let other = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: other, namespace: shop}\nspec:\n  priority: 1\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n";
    let refused_cpp = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: enum}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  conflictResolution: Replace\n";
    for repeated in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("templates.yaml"), templates).unwrap();
        std::fs::write(d.join("weight0.yaml"), weight0).unwrap();
        git(d, &["init", "-q"]);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "base"]);
        std::fs::write(d.join("other.yaml"), other).unwrap();
        std::fs::write(d.join("z-enum.yaml"), refused_cpp).unwrap();
        if repeated {
            std::fs::write(d.join("z-other-again.yaml"), other).unwrap();
        }
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "head"]);
        let lint = json_of(d, &["lint", "--base", "HEAD~1", "-o", "json", "."]);
        let want = serde_json::json!([{
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web"},
            "before": null,
            "after": {"kind": "PropagationPolicy", "namespace": "shop", "name": "other"},
            "preempted": false,
            "blockedBy": [],
        }]);
        assert_eq!(
            lint["ownershipChanges"], want,
            "repeated: {repeated}: {lint}"
        );
        let check = json_of(
            d,
            &[
                "preempt-check",
                "-f",
                "templates.yaml",
                "-f",
                "weight0.yaml",
                "--apply",
                "other.yaml",
                "--apply",
                "z-enum.yaml",
                "-o",
                "json",
            ],
        );
        assert_eq!(check["resources"], want, "{check}");
    }
}

/// A policy both the CRD schema and the validating webhook refuse: the API server answers with
/// the schema's 422 (the webhook is never asked), and every subcommand names that refusal, as
/// lint's first (explain and preempt-check named the webhook's, seen on a public repository).
#[test]
fn a_policy_refused_at_two_stages_is_named_by_its_first_refusal_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("all.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: shop}\nspec:\n  propagateDeps: true\n  failover:\n    application:\n      decisionConditions: {tolerationSeconds: 30}\n      gracePeriodSeconds: 30\n      purgeMode: Graciously\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n",
    )
    .unwrap();
    let lint = json_of(
        d,
        &["lint", "-f", ".", "--karmada-version", "1.19", "-o", "json"],
    );
    let first = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "schema-enum")
        .expect("lint reports the schema's refusal");
    let message = first["apiServerMessage"].as_str().unwrap();
    assert!(
        message.contains("purgeMode: Unsupported value: \"Graciously\""),
        "{message}"
    );
    let v = json_of(
        d,
        &[
            "explain",
            "deploy/web",
            "-n",
            "shop",
            "-f",
            ".",
            "--karmada-version",
            "1.19",
            "-o",
            "json",
        ],
    );
    assert_eq!(
        v["notes"][0],
        format!("pp/shop/web would match, but admission rejects it: {message}"),
        "{v}"
    );
}

/// A policy lint cannot read (an unrendered `{{name}}`) is an error there; explain and
/// preempt-check decide without it, and say that their answer leaves it out instead of stating
/// "no policy matches" as if the input had none.
#[test]
fn a_document_lint_reports_unreadable_is_said_left_out_by_explain_and_preempt_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("all.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\nspec: {selector: {matchLabels: {app: nginx}}, template: {metadata: {labels: {app: nginx}}, spec: {containers: [{name: nginx, image: nginx}]}}}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: {{name}}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n",
    )
    .unwrap();
    let lint = run(d, &["lint", "."]);
    assert_eq!(lint.status.code(), Some(1), "{}", text(&lint.stdout));
    assert!(text(&lint.stdout).contains("error[unrendered-template]"));
    std::fs::write(
        d.join("new.yaml"),
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: web, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]\n",
    )
    .unwrap();
    let warning = "warning: all.yaml:9:9: unrendered template `{{name}}`";
    let note = "note: 1 document skipped above is left out of the answer: it may change once the document is fixed (lint reports it as an error)\n";
    for args in [
        &["explain", "deploy/nginx", "-f", "."][..],
        &["preempt-check", "-f", "all.yaml", "--apply", "new.yaml"],
    ] {
        let o = run(d, args);
        let err = text(&o.stderr);
        assert!(
            err.contains(warning) && err.contains(note),
            "{args:?}: {err}"
        );
        assert_eq!(err.matches(note).count(), 1, "{args:?}: {err}");
    }
    // A file that reads whole says nothing of the sort.
    std::fs::write(
        d.join("all.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: default}\n",
    )
    .unwrap();
    let o = run(d, &["explain", "deploy/nginx", "-f", "."]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(!text(&o.stderr).contains("left out"), "{}", text(&o.stderr));
}

/// Two copies of one policy, the later naming another `schedulerName`: applied in turn
/// (`kubectl apply -R`), the second is an update the validating webhook denies (`the
/// schedulerName should not be updated`, pkg/webhook/propagationpolicy/validating.go
/// validateUpdate), so the first copy stays. preempt-check said so; lint said the later copy
/// "replaces" the first and explain took it as the owner's spec ("its binding is never
/// scheduled"). All of them now keep the first copy.
#[test]
fn a_later_copy_changing_the_scheduler_name_leaves_the_first_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pp = |extra: &str| {
        format!("apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: pp-web, namespace: default}}\nspec:\n{extra}  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement:\n    clusterAffinity: {{clusterNames: [m1, m2]}}\n")
    };
    for (sub, text) in [
        ("a", pp("")),
        ("b", pp("  schedulerName: custom-scheduler\n")),
    ] {
        std::fs::create_dir(d.join(sub)).unwrap();
        std::fs::write(d.join(sub).join("pp.yaml"), text).unwrap();
    }
    std::fs::write(
        d.join("deploy.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n",
    )
    .unwrap();

    let lint = json_of(d, &["lint", ".", "-o", "json"]);
    let duplicate = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "duplicate-identity")
        .expect("the copies are reported");
    assert_eq!(
        duplicate["message"],
        "propagationpolicy/default/pp-web is defined twice: applied in turn, this document updates the one at a/pp.yaml:3, and Karmada's webhook refuses the update (`the schedulerName should not be updated`: schedulerName `default-scheduler` there, `custom-scheduler` here), so that copy stays",
        "{lint}"
    );

    let v = json_of(
        d,
        &[
            "explain",
            "deploy/web",
            "-n",
            "default",
            "-f",
            ".",
            "-o",
            "json",
        ],
    );
    assert_eq!(v["eventual"]["name"], "pp-web", "{v}");
    assert_eq!(
        v["notes"],
        serde_json::json!(["a later copy of pp/default/pp-web among the inputs would replace the one stored, but admission rejects the update: the schedulerName should not be updated; the copy stored before it stays"]),
        "{v}"
    );

    let check = json_of(
        d,
        &[
            "preempt-check",
            "-f",
            ".",
            "--delete",
            "pp/default/pp-web",
            "-o",
            "json",
        ],
    );
    assert_eq!(
        check["rejected"],
        serde_json::json!([{"policy": {"kind": "PropagationPolicy", "namespace": "default", "name": "pp-web"}, "errors": ["the schedulerName should not be updated"]}]),
        "{check}"
    );
}
