//! Synthetic GitOps repository generator for benchmarks (issue 8).
//!
//! Writes N policies (PropagationPolicy and ClusterPropagationPolicy) and M resource templates
//! (Deployments, Services, ConfigMaps, StatefulSets) spread over K files in team directories.
//! The mix is what real repositories show: most policies select templates by name, some by
//! labels, a few by kind only; a minority set priorities, `preemption: Always` (always with a
//! named selector, as Karmada requires), suspension and application/cluster failover. Names are
//! unique, so the repository is mostly clean: the benchmark measures the work of checking, not of
//! printing thousands of findings. Output is a pure function of the flags (seeded PRNG).
//!
//! ```sh
//! cargo run --release --example gen_repo -- --policies 10000 --templates 90000 --files 200 \
//!     --seed 1 --out target/bench/repo-100k
//! cargo run --release --example gen_repo -- --documents 1000000 --out target/bench/repo-1m
//! ```
//!
//! Prints one line: `documents=… policies=… templates=… files=… bytes=… out=…`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// splitmix64: tiny, deterministic, good enough to pick a mix.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// What to generate (the command-line flags; benches build it directly).
pub struct Args {
    pub policies: usize,
    pub templates: usize,
    pub files: usize,
    pub seed: u64,
    pub out: PathBuf,
}

const USAGE: &str = "usage: gen_repo [--policies N] [--templates M] [--documents D] [--files K] [--seed S] --out DIR
  --policies N    policies to write (default 10000)
  --templates M   resource templates to write (default 90000)
  --documents D   shorthand: N = D/10 policies and M = D - N templates
  --files K       files to spread the documents over (default: one per 500 documents)
  --seed S        PRNG seed (default 1)
  --out DIR       output directory (created; existing *.yaml files in it are left alone)";

fn parse_args() -> Result<Args, String> {
    let mut policies = 10_000usize;
    let mut templates = 90_000usize;
    let mut files: Option<usize> = None;
    let mut seed = 1u64;
    let mut out: Option<PathBuf> = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "-h" || flag == "--help" {
            return Err(String::new());
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || {
            value
                .replace('_', "")
                .parse::<u64>()
                .map_err(|_| format!("{flag}: not a number: {value}"))
        };
        match flag.as_str() {
            "--policies" => policies = number()? as usize,
            "--templates" => templates = number()? as usize,
            "--documents" => {
                let d = number()? as usize;
                policies = d / 10;
                templates = d - policies;
            }
            "--files" => files = Some((number()? as usize).max(1)),
            "--seed" => seed = number()?,
            "--out" => out = Some(PathBuf::from(&value)),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    let out = out.ok_or("--out DIR is required")?;
    let files = files.unwrap_or(((policies + templates) / 500).max(1));
    Ok(Args {
        policies,
        templates,
        files,
        seed,
        out,
    })
}

const KINDS: [(&str, &str); 4] = [
    ("apps/v1", "Deployment"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("apps/v1", "StatefulSet"),
];
const TIERS: [&str; 4] = ["frontend", "backend", "cache", "batch"];
const REGIONS: [&str; 3] = ["eu-west-1", "us-east-1", "ap-south-1"];

/// A template as the policies see it.
struct Tpl {
    kind: usize,
    ns: usize,
    name: String,
    tier: usize,
    team: usize,
}

fn kind_of(rng: &mut Rng) -> usize {
    match rng.below(100) {
        0..=54 => 0,  // Deployment
        55..=74 => 1, // Service
        75..=94 => 2, // ConfigMap
        _ => 3,       // StatefulSet
    }
}

fn write_template(out: &mut String, t: &Tpl, rng: &mut Rng) {
    let (api_version, kind) = KINDS[t.kind];
    let tier = TIERS[t.tier];
    let _ = write!(
        out,
        "apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: ns-{ns:04}\n  labels:\n    app: {name}\n    tier: {tier}\n    team: team-{team:02}\n",
        name = t.name,
        ns = t.ns,
        team = t.team,
    );
    if rng.chance(30) {
        let _ = write!(
            out,
            "  annotations:\n    owner: \"team-{:02}@example.com\"\n    git-commit: \"{:016x}\"\n",
            t.team,
            rng.next()
        );
    }
    match kind {
        "Deployment" | "StatefulSet" => {
            let _ = write!(
                out,
                "spec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n        tier: {tier}\n    spec:\n      containers:\n        - name: main\n          image: registry.example.com/team-{team:02}/{name}:1.{minor}.{patch}\n          ports:\n            - containerPort: {port}\n          resources:\n            requests:\n              cpu: {cpu}m\n              memory: {mem}Mi\n          env:\n            - name: LOG_LEVEL\n              value: info\n            - name: REGION\n              value: {region}\n",
                replicas = 1 + rng.below(5),
                name = t.name,
                team = t.team,
                minor = rng.below(30),
                patch = rng.below(10),
                port = 8000 + rng.below(100),
                cpu = 100 * (1 + rng.below(8)),
                mem = 128 * (1 + rng.below(8)),
                region = REGIONS[rng.below(3) as usize],
            );
        }
        "Service" => {
            let _ = write!(
                out,
                "spec:\n  selector:\n    app: {name}\n  ports:\n    - name: http\n      port: 80\n      targetPort: {port}\n",
                name = t.name,
                port = 8000 + rng.below(100),
            );
        }
        _ => {
            let _ = write!(
                out,
                "data:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: \"checkout,search,recommendations\"\n  TIMEOUT_SECONDS: \"{}\"\n",
                5 + rng.below(60)
            );
        }
    }
}

fn write_policy(
    out: &mut String,
    index: usize,
    templates: &[Tpl],
    namespaces: usize,
    rng: &mut Rng,
) {
    // Cluster-wide policies are the platform team's few; namespaced ones are the teams' many.
    let cluster_wide = rng.chance(2);
    let pick = &templates[rng.below(templates.len() as u64) as usize];
    let ns = if templates.is_empty() {
        rng.below(namespaces as u64) as usize
    } else {
        pick.ns
    };
    let (api_version, kind) = KINDS[pick.kind];
    // Selector mix: 65% by name (1-3 named templates), 25% by labels, 10% kind only.
    let roll = rng.below(100);
    let by_name = roll < 65;
    let by_label = (65..90).contains(&roll);
    let _ = write!(
        out,
        "apiVersion: policy.karmada.io/v1alpha1\nkind: {}\nmetadata:\n  name: policy-{index:06}\n",
        if cluster_wide {
            "ClusterPropagationPolicy"
        } else {
            "PropagationPolicy"
        }
    );
    if !cluster_wide {
        let _ = writeln!(out, "  namespace: ns-{ns:04}");
    }
    out.push_str("spec:\n");
    if rng.chance(40) {
        let _ = writeln!(out, "  priority: {}", rng.below(10) * 10);
    }
    if by_name && rng.chance(5) {
        out.push_str("  preemption: Always\n");
    }
    out.push_str("  resourceSelectors:\n");
    if by_name {
        let extra = rng.below(3) as usize;
        let _ = writeln!(
            out,
            "    - apiVersion: {api_version}\n      kind: {kind}\n      name: {}",
            pick.name
        );
        if cluster_wide {
            let _ = writeln!(out, "      namespace: ns-{:04}", pick.ns);
        }
        for _ in 0..extra {
            let other = &templates[rng.below(templates.len() as u64) as usize];
            let (av, k) = KINDS[other.kind];
            let _ = writeln!(
                out,
                "    - apiVersion: {av}\n      kind: {k}\n      name: {}",
                other.name
            );
            if cluster_wide {
                let _ = writeln!(out, "      namespace: ns-{:04}", other.ns);
            }
        }
    } else if by_label {
        let _ = write!(
            out,
            "    - apiVersion: {api_version}\n      kind: {kind}\n      labelSelector:\n        matchLabels:\n          tier: {}\n",
            TIERS[pick.tier]
        );
        if rng.chance(50) {
            let _ = write!(
                out,
                "        matchExpressions:\n          - key: team\n            operator: In\n            values: [team-{:02}, team-{:02}]\n",
                pick.team,
                rng.below(20)
            );
        }
        if cluster_wide {
            let _ = writeln!(out, "      namespace: ns-{:04}", pick.ns);
        }
    } else {
        let _ = writeln!(out, "    - apiVersion: {api_version}\n      kind: {kind}");
        if cluster_wide {
            let _ = writeln!(out, "      namespace: ns-{:04}", pick.ns);
        }
    }
    // Application failover needs propagateDeps (Karmada's webhook warns otherwise).
    let failover = rng.chance(10);
    if failover || rng.chance(20) {
        out.push_str("  propagateDeps: true\n");
    }
    out.push_str("  placement:\n    clusterAffinity:\n      clusterNames:\n");
    for c in 0..1 + rng.below(3) {
        let _ = writeln!(out, "        - member{}", c + 1);
    }
    if rng.chance(30) {
        out.push_str(
            "    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList:\n          - targetCluster:\n              clusterNames: [member1]\n            weight: 2\n          - targetCluster:\n              clusterNames: [member2]\n            weight: 1\n",
        );
    }
    if failover {
        let _ = write!(
            out,
            "  failover:\n    application:\n      decisionConditions:\n        tolerationSeconds: {}\n      purgeMode: Gracefully\n      gracePeriodSeconds: 600\n",
            30 + rng.below(300)
        );
    }
    if rng.chance(3) {
        if rng.chance(50) {
            out.push_str("  suspension:\n    dispatching: true\n");
        } else {
            out.push_str(
                "  suspension:\n    dispatchingOnClusters:\n      clusterNames: [member2]\n",
            );
        }
    }
}

/// Writes the repository; returns the number of documents and of bytes written.
pub fn run(args: &Args) -> std::io::Result<(usize, u64)> {
    let mut rng = Rng(args.seed);
    let total = args.policies + args.templates;
    // ~40 templates per namespace, 20 teams.
    let namespaces = (args.templates / 40).max(1);
    let templates: Vec<Tpl> = (0..args.templates)
        .map(|i| {
            let ns = i % namespaces;
            Tpl {
                kind: kind_of(&mut rng),
                ns,
                name: format!("app-{i:07}"),
                tier: rng.below(TIERS.len() as u64) as usize,
                team: ns % 20,
            }
        })
        .collect();
    // Documents in repository order: each file holds a run of templates and the policies that
    // belong with them (policy i sits beside template i * M / N).
    let files = args.files.min(total.max(1));
    std::fs::create_dir_all(&args.out)?;
    let mut bytes = 0u64;
    let mut written = 0usize;
    let per_file = total.div_ceil(files).max(1);
    let mut buf = String::new();
    let mut in_file = 0usize;
    let mut file_no = 0usize;
    let mut next_policy = 0usize;
    let flush = |buf: &mut String, file_no: usize| -> std::io::Result<u64> {
        let dir = args.out.join(format!("team-{:02}", file_no % 20));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("manifests-{file_no:05}.yaml"));
        std::fs::write(&path, buf.as_bytes())?;
        let n = buf.len() as u64;
        buf.clear();
        Ok(n)
    };
    let mut emit = |buf: &mut String, write: &mut dyn FnMut(&mut String)| -> std::io::Result<()> {
        if in_file > 0 {
            buf.push_str("---\n");
        }
        write(buf);
        in_file += 1;
        written += 1;
        if in_file == per_file {
            bytes += flush(buf, file_no)?;
            file_no += 1;
            in_file = 0;
        }
        Ok(())
    };
    for ti in 0..=args.templates {
        let due = if args.templates == 0 {
            args.policies
        } else {
            (ti * args.policies) / args.templates.max(1)
        };
        while next_policy < due.min(args.policies) {
            let idx = next_policy;
            emit(&mut buf, &mut |b: &mut String| {
                write_policy(b, idx, &templates, namespaces, &mut rng)
            })?;
            next_policy += 1;
        }
        if ti < args.templates {
            let t = &templates[ti];
            let mut trng = Rng(args.seed ^ (ti as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
            emit(&mut buf, &mut |b: &mut String| {
                write_template(b, t, &mut trng)
            })?;
        }
    }
    if !buf.is_empty() {
        bytes += flush(&mut buf, file_no)?;
    }
    Ok((written, bytes))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("gen_repo: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.policies > 0 && args.templates == 0 {
        eprintln!("gen_repo: policies need templates to select (--templates > 0)");
        return ExitCode::from(2);
    }
    match run(&args) {
        Ok((documents, bytes)) => {
            println!(
                "documents={documents} policies={} templates={} files={} bytes={bytes} out={}",
                args.policies,
                args.templates,
                args.files,
                args.out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_repo: {}: {e}", args.out.display());
            ExitCode::from(1)
        }
    }
}
