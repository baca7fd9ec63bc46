//! Where the time of `lint` and `explain` goes, phase by phase, on a generated repository
//! (`examples/gen_repo.rs`). A std-timing bench (`harness = false`): criterion takes minutes to
//! compile on the project's 2-core machines, and the phases here take milliseconds to seconds, so
//! the best of a few runs is a stable figure.
//!
//! ```sh
//! cargo bench --bench pipeline                 # 100,000 documents (10k policies, 90k templates)
//! BENCH_DOCS=10000 BENCH_RUNS=5 cargo bench --bench pipeline
//! ```
//!
//! Phases: loader (read + parse), inventory (typing the documents), each lint rule group, the
//! engine's state and per-template decisions (explain), and the text and JSON renderers; then
//! the two figures `lint PATH` is judged by: parsing on all cores with each tree dropped (what
//! `lint --parse-only` does) and the streamed lint (`lint::stream`, what `lint PATH` runs).

#[path = "../examples/gen_repo.rs"]
#[allow(dead_code)]
mod gen_repo;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use karmada_policy::engine::admission::documents::Admissions;
use karmada_policy::engine::claim::Filters;
use karmada_policy::engine::state::{Options, State, UnknownClaimers};
use karmada_policy::lint::{self, analysis::Analysis, rules, LintOptions};
use karmada_policy::model::Inventory;
use karmada_policy::output::{self, Summary};
use karmada_policy::source::{files, Document, Loaded};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// Best (minimum) wall time of `runs` runs, and the last result.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let out = f();
        best = best.min(start.elapsed());
        last = Some(out);
    }
    (best, last.expect("at least one run"))
}

fn report(name: &str, d: Duration, docs: usize) {
    let secs = d.as_secs_f64();
    println!(
        "{name:<28} {:>10.1} ms {:>12.0} docs/s",
        secs * 1000.0,
        docs as f64 / secs.max(1e-9)
    );
}

fn load(dir: &str) -> Vec<Loaded> {
    let paths = files::expand(&[dir.to_string()], &|_| false).expect("generated repository");
    paths
        .iter()
        .map(|p| files::read(p).expect("readable"))
        .collect()
}

fn inventory(loaded: &mut [Loaded]) -> Inventory {
    let documents: Vec<Document> = loaded
        .iter_mut()
        .flat_map(|l| std::mem::take(&mut l.documents))
        .collect();
    Inventory::from_documents(documents, "default")
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs us as a smoke test.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let docs = env_usize("BENCH_DOCS", if smoke { 2_000 } else { 100_000 });
    let runs = env_usize("BENCH_RUNS", if smoke { 1 } else { 3 });
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-repo-{docs}"));
    if !dir.exists() {
        let args = gen_repo::Args {
            policies: docs / 10,
            templates: docs - docs / 10,
            files: (docs / 500).max(1),
            seed: 1,
            out: dir.clone(),
        };
        gen_repo::run(&args).expect("generate the repository");
    }
    let dir = dir.to_string_lossy().into_owned();
    println!("pipeline bench: {docs} documents in {dir}, best of {runs}");

    let (d, _) = best(runs, || load(&dir));
    report("load (read + parse)", d, docs);
    let (d, _) = best(runs, || {
        let mut l = load(&dir);
        inventory(&mut l)
    });
    report("load + inventory", d, docs);

    let mut loaded = load(&dir);
    let mut inv = inventory(&mut loaded);
    let opts = LintOptions {
        inline_ignores: true,
        ..LintOptions::default()
    };
    let (d, _) = best(runs, || rules::input::findings(&loaded));
    report("rules: input", d, docs);
    // The schema runs inside the admission chain of every policy kind.
    let (d, admissions) = best(runs, || Admissions::of(&inv, opts.version()));
    report("admission chain (with schema)", d, docs);
    admissions.mark(&mut inv);
    let (d, _) = best(runs, || rules::admission::check(&inv, &admissions, &opts));
    report("rules: admission", d, docs);
    let (d, _) = best(runs, || rules::duplicate_identity::check(&inv));
    report("rules: duplicate-identity", d, docs);
    let (d, _) = best(runs, || rules::suspension::check(&inv, &opts));
    report("rules: suspension", d, docs);
    let (d, state) = best(runs, || {
        State::from_inventory(&inv, lint::analysis::options(&opts))
    });
    report("engine: state", d, docs);
    let (d, analysis) = best(runs, || Analysis::new(&inv, &state));
    report("engine: analysis (settle)", d, docs);
    let (d, _) = best(runs, || rules::overlap::check(&analysis));
    report("rules: overlap", d, docs);
    let (d, _) = best(runs, || rules::preemption::check(&analysis));
    report("rules: preemption", d, docs);
    let (d, _) = best(runs, || rules::dead_policy::check(&analysis));
    report("rules: dead-policy", d, docs);
    drop(analysis);
    let (d, findings) = best(runs, || lint::lint(&loaded, &mut inv.clone(), &opts));
    report("lint (all rules, parsed)", d, docs);
    let paths =
        files::expand(std::slice::from_ref(&dir), &|_| false).expect("generated repository");
    let (d, _) = best(runs, || {
        files::read_all_with(&paths, &|l| l.documents.len()).expect("readable")
    });
    report("parse on all cores", d, docs);
    let (d, streamed) = best(runs, || {
        lint::stream::lint_paths(&paths, "default", &opts).expect("readable")
    });
    report("lint PATH (streamed)", d, docs);
    assert_eq!(streamed.findings.len(), findings.len());
    std::mem::forget(streamed);
    let mut summary = Summary {
        files: loaded.len(),
        documents: inv.documents.len(),
        ..Summary::default()
    };
    summary.count(&findings);
    let (d, _) = best(runs, || output::text::render(&findings, &summary, false));
    report("render: text", d, docs);
    let (d, _) = best(runs, || output::json::render(&findings, &summary));
    report("render: json", d, docs);

    let options = || Options {
        gates: Default::default(),
        filters: Filters::default(),
        unknown_claimers: UnknownClaimers::Stale,
        ..Options::default()
    };
    let (d, state) = best(runs, || State::from_inventory(&inv, options()));
    report("engine: state", d, docs);
    let t = state.templates.len() / 2;
    let (d, _) = best(runs, || karmada_policy::engine::explain::explain(&state, t));
    report("engine: explain one", d, docs);
    println!("findings: {}", findings.len());
}
