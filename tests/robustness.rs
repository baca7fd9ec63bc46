//! The binary never panics on input (issue 8): every file of the real-world corpus
//! (`../shared/corpus`) and every committed fuzz input (`testdata/fuzz/**`: crashes found by
//! `fuzz/` and its seed inputs) goes through `lint`, and a document that does not parse is a
//! finding with a position, never a crash. A panic exits with 101; the documented exits are 0, 1
//! and 2 (2 only for unreadable input, never for a file that reads).

use std::path::{Path, PathBuf};

#[path = "support/run.rs"]
mod run;
use run::run_piped;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Exit code and JSON findings of `lint -o json FILE`; fails the test on a panic or crash.
fn lint_json(label: &str, args: &[&str], stdin: Option<&[u8]>) -> Vec<serde_json::Value> {
    let o = run_piped(None, args, stdin);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let code = o.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "{label}: exit {code:?} (101 = panic, None = killed by a signal)\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{label}: {stderr}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{label}: stdout is not JSON ({e}): {stderr}"));
    v["findings"].as_array().cloned().unwrap_or_default()
}

/// Every finding about the text has a real position in the file it names.
fn assert_positioned(label: &str, findings: &[serde_json::Value]) {
    for f in findings {
        let line = f["line"].as_u64().unwrap_or(0);
        let column = f["column"].as_u64().unwrap_or(0);
        assert!(
            line >= 1 && column >= 1,
            "{label}: finding without a position: {f}"
        );
        assert!(
            f["file"].as_str().is_some_and(|s| !s.is_empty()),
            "{label}: {f}"
        );
    }
}

const INPUT_RULES: [&str; 4] = [
    "yaml-syntax",
    "unrendered-template",
    "not-an-object",
    "duplicate-key",
];

#[test]
fn every_corpus_file_lints_without_panic_and_parse_errors_have_positions() {
    let corpus = root().join("../shared/corpus");
    if !corpus.is_dir() {
        eprintln!("skipped: {} is missing", corpus.display());
        return;
    }
    // Which files other YAML parsers reject (the corpus's SOURCES.tsv, column `parses`).
    let sources = std::fs::read_to_string(corpus.join("SOURCES.tsv")).unwrap_or_default();
    let unparsable: Vec<&str> = sources
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.len() > 7 && cols[7] == "NO").then_some(cols[0])
        })
        .collect();
    let mut files = Vec::new();
    files_under(&corpus, &mut files);
    files.retain(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"));
    assert!(files.len() > 100, "corpus has {} files", files.len());
    let mut input_findings = 0;
    let mut rejected_with_position = 0;
    for file in &files {
        let path = file.to_str().expect("utf-8 path");
        let findings = lint_json(path, &["lint", "-o", "json", path], None);
        assert_positioned(path, &findings);
        let rel = file.strip_prefix(&corpus).unwrap().to_string_lossy();
        let input: Vec<_> = findings
            .iter()
            .filter(|f| INPUT_RULES.contains(&f["rule"].as_str().unwrap_or("")))
            .collect();
        input_findings += input.len();
        if unparsable.contains(&rel.as_ref()) && !input.is_empty() {
            rejected_with_position += 1;
        }
    }
    eprintln!(
        "{} corpus files: {input_findings} input findings; {rejected_with_position} of {} files other parsers reject have a positioned input finding",
        files.len(),
        unparsable.len()
    );
    // Most of what other parsers reject is unrendered templating or broken YAML: we must say so.
    assert!(
        rejected_with_position * 2 >= unparsable.len(),
        "{rejected_with_position} of {} unparsable corpus files yield an input finding",
        unparsable.len()
    );
    // The whole corpus in one run too (cross-document rules see everything at once).
    let all = lint_json(
        "whole corpus",
        &["lint", "-o", "json", corpus.to_str().unwrap()],
        None,
    );
    assert_positioned("whole corpus", &all);
}

#[test]
fn every_committed_fuzz_input_lints_and_explains_without_panic() {
    let dir = root().join("testdata/fuzz");
    let mut files = Vec::new();
    files_under(&dir, &mut files);
    files.retain(|p| p.file_name().is_none_or(|n| n != "README.md"));
    assert!(
        !files.is_empty(),
        "testdata/fuzz holds the fuzzers' seeds and regressions"
    );
    for file in &files {
        let label = file.display().to_string();
        let bytes = std::fs::read(file).unwrap();
        // Through stdin (raw bytes, whatever the file name) and as a named file.
        let findings = lint_json(&label, &["lint", "-o", "json", "-"], Some(&bytes));
        assert_positioned(&label, &findings);
        let lines = bytes.split(|&b| b == b'\n').count() as u64;
        for f in &findings {
            assert!(
                f["line"].as_u64().is_some_and(|l| l <= lines),
                "{label}: finding past the last line ({lines}): {f}"
            );
        }
        for f in &findings {
            if f["rule"] == "yaml-syntax" {
                assert_eq!(f["file"], "<stdin>", "{label}: {f}");
            }
        }
        let path = file.to_str().unwrap();
        lint_json(&label, &["lint", "-o", "json", path], None);
        // Text and SARIF renderers read source lines back: positions must stay inside the text.
        for format in ["text", "sarif", "github"] {
            let o = run_piped(None, &["lint", "-o", format, "-"], Some(&bytes));
            assert!(
                matches!(o.status.code(), Some(0 | 1)),
                "{label} -o {format}: exit {:?}\n{}",
                o.status.code(),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        // explain over the same input: not found (4), not found while a document that does
        // not parse may hold it (1), or a usage error (2) when the template is absent, never 101.
        let o = run_piped(None, &["explain", "deploy/nginx", "-f", "-"], Some(&bytes));
        assert!(
            matches!(o.status.code(), Some(0 | 1 | 2 | 4)),
            "{label} explain: exit {:?}\n{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// `lint` lets the trees of most documents go after the per-file checks and parses a policy
/// again from its lines when a finding needs a position in it: that must give the same tree.
#[test]
fn every_corpus_document_parses_again_from_its_own_lines() {
    use karmada_policy::source::{load, yaml::reparse, Source};
    let corpus = root().join("../shared/corpus");
    if !corpus.is_dir() {
        eprintln!("skipped: {} is missing", corpus.display());
        return;
    }
    let mut files = Vec::new();
    files_under(&corpus, &mut files);
    let mut documents = 0;
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
    {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let loaded = load(Source::new(path.display().to_string(), text));
        for d in &loaded.documents {
            let again = reparse(&d.source, d.root.span);
            assert_eq!(
                again.as_ref(),
                Some(&d.root),
                "{} #{}",
                path.display(),
                d.index
            );
            documents += 1;
        }
    }
    assert!(documents > 300, "corpus documents: {documents}");
}
