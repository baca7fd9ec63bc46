//! Any bytes through the loader, the inventory, every lint rule (input, schema, admission,
//! semantics) and every renderer. Invariants: no panic, and every finding about the text has a
//! position inside it.
#![no_main]

use karmada_policy::lint::{self, LintOptions};
use karmada_policy::model::Inventory;
use karmada_policy::output::{self, Summary};
use karmada_policy::source::{files, load, Source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = files::decode(data.to_vec());
    let lines = text.split('\n').count() as u32;
    let mut loaded = vec![load(Source::new("fuzz.yaml", text))];
    for p in &loaded[0].problems {
        assert!(
            (1..=lines).contains(&p.span.start.line),
            "problem outside the text: {p:?}"
        );
    }
    let documents = std::mem::take(&mut loaded[0].documents);
    let inventory = Inventory::from_documents(documents, "default");
    let opts = LintOptions {
        inline_ignores: true,
        ..LintOptions::default()
    };
    let findings = lint::lint(&loaded, &inventory, &opts);
    let mut summary = Summary::default();
    summary.count(&findings);
    let _ = output::text::render(&findings, &summary, true);
    let _ = output::json::render(&findings, &summary);
    let _ = output::sarif::render(&findings, &lint::registry::all());
    let _ = output::github::render(&findings);
});
