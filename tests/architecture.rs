//! The shape of the crate, checked from its source text (issue 16):
//!
//! - data flows one way: no module imports a module of a layer above its own;
//! - no files import each other, directly or around a circle (a parent `mod.rs` and the files
//!   of its folder excepted: children name their parent's items as `super::…`);
//! - `src/cli` stays thin: under 1,500 lines in total, no function over 80 lines.
//!
//! Imports are the `crate::…` and `super::…` paths in the code (comments and `#[cfg(test)]`
//! sections excluded: tests may reach anywhere). A path names the deepest file it reaches
//! (`crate::lint::rules::input::findings` → `src/lint/rules/input.rs`).
//!
//! Violations still being worked on elsewhere are listed in [`PENDING`] with who removes them:
//! they are printed as a TODO list on every run and do not fail the test; anything else fails.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use regex::Regex;

/// Layers, bottom up; a module may import its own layer and those below. `schema` (the CRD's
/// OpenAPI validation, the first step of admission) sits with the engine beside
/// `engine/admission`, which runs it; `context` (the release, gates, namespace and
/// configuration a run is asked in, resolved once) sits under every consumer that reads it;
/// `ops` (the effects of suspend/resume) and `inspect` (what explain and preempt-check read)
/// share the consumers' layer with `lint`.
const LAYERS: &[&[&str]] = &[
    &["util"],
    &["kube"],
    &["source"],
    &["model"],
    &["engine", "schema"],
    &["context"],
    &["lint", "ops", "inspect"],
    &["output"],
    &["cli"],
];

/// Known violations and who removes them: printed, not failed. An entry covers every violation
/// whose text contains it. Empty once issue 16 is done.
const PENDING: &[(&str, &str)] = &[];

const CLI_MAX_LINES: usize = 1500;
const CLI_MAX_FN_LINES: usize = 80;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src is readable")
        .map(|e| e.expect("src is readable").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `cli/lint.rs` → `["cli", "lint"]`, `cli/mod.rs` → `["cli"]`, `lib.rs` → `[]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts
}

/// The code of a file without comments and without its `#[cfg(test)]` sections.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut skip_until_indent: Option<usize> = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let indent = line.len() - line.trim_start().len();
        if let Some(i) = skip_until_indent {
            if indent == i && line.trim_start().starts_with('}') {
                skip_until_indent = None;
            }
            continue;
        }
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            // The item that follows: a block ends at the `}` of its own indentation.
            if let Some(next) = lines.next() {
                if next.trim_end().ends_with('{') {
                    skip_until_indent = Some(next.len() - next.trim_start().len());
                }
            }
            continue;
        }
        if t.starts_with("//") {
            continue;
        }
        let code = match line.find(" //") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

struct Crate {
    /// Module path → file (relative to src).
    files: BTreeMap<Vec<String>, String>,
    /// File → the files it imports.
    imports: BTreeMap<String, BTreeSet<String>>,
    /// File → its text.
    texts: BTreeMap<String, String>,
}

/// The deepest module file of `path` (segments after `crate`).
fn resolve(files: &BTreeMap<Vec<String>, String>, path: &[String]) -> Option<String> {
    (1..=path.len())
        .rev()
        .find_map(|n| files.get(&path[..n].to_vec()).cloned())
}

fn read_crate() -> Crate {
    let root = src();
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    let mut files = BTreeMap::new();
    let mut texts = BTreeMap::new();
    for p in &paths {
        let rel = p.strip_prefix(&root).expect("under src");
        let name = rel.to_string_lossy().replace('\\', "/");
        files.insert(module_of(rel), name.clone());
        texts.insert(name, std::fs::read_to_string(p).expect("readable"));
    }
    let path_re = Regex::new(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)").unwrap();
    let group_re = Regex::new(r"\b(crate|super)::\{([^}]*)\}").unwrap();
    let mut imports = BTreeMap::new();
    for (module, file) in &files {
        let code = code_of(&texts[file]);
        let mut targets = BTreeSet::new();
        let mut add = |base: &str, rest: &str| {
            // `super` of `cli/lint.rs` (cli::lint) is `cli`; of `cli/mod.rs` (cli), the root.
            let mut path: Vec<String> = match base {
                "crate" => Vec::new(),
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            };
            let mut segments = rest.split("::").filter(|s| !s.is_empty()).peekable();
            while segments.next_if_eq(&"super").is_some() {
                path.pop();
            }
            path.extend(segments.filter(|s| *s != "self").map(str::to_string));
            if let Some(t) = resolve(&files, &path) {
                if t != *file {
                    targets.insert(t);
                }
            }
        };
        for c in path_re.captures_iter(&code) {
            add(&c[1], &c[2]);
        }
        for c in group_re.captures_iter(&code) {
            for item in c[2].split(',') {
                let item = item.trim();
                let head = item.split(['{', ' ']).next().unwrap_or("");
                if !head.is_empty() {
                    add(&c[1], &format!("::{head}"));
                }
            }
        }
        imports.insert(file.clone(), targets);
    }
    Crate {
        files,
        imports,
        texts,
    }
}

fn layer_of(file: &str) -> Option<usize> {
    let top = file.split('/').next()?.trim_end_matches(".rs");
    LAYERS.iter().position(|l| l.contains(&top))
}

/// Whether `a` is a `mod.rs` whose directory holds `b`: a facade using or re-exporting its own
/// submodules is structure, not a dependency.
fn is_parent(a: &str, b: &str) -> bool {
    a.strip_suffix("mod.rs")
        .is_some_and(|dir| !dir.is_empty() && b.starts_with(dir))
}

fn violations(c: &Crate) -> Vec<String> {
    let mut out = Vec::new();
    for (file, targets) in &c.imports {
        let Some(from) = layer_of(file) else {
            continue;
        };
        for t in targets {
            if layer_of(t).is_some_and(|to| to > from) {
                out.push(format!("layer: {file} imports {t}, a layer above"));
            }
        }
    }
    for circle in circles(c) {
        out.push(format!("circle: {} import each other", circle.join(", ")));
    }
    out.extend(cli_size(c));
    out
}

/// The files that import each other around a circle, each circle once (its files sorted):
/// the strongly connected components of more than one file of the import graph, without the
/// edges between a `mod.rs` and the files of its folder. Tarjan's algorithm, iteratively.
fn circles(c: &Crate) -> Vec<Vec<String>> {
    let edges = |a: &String| -> Vec<&String> {
        c.imports
            .get(a)
            .into_iter()
            .flatten()
            .filter(|b| *b != a && !is_parent(a, b) && !is_parent(b, a))
            .collect()
    };
    let nodes: Vec<&String> = c.imports.keys().collect();
    let mut index: BTreeMap<&String, usize> = BTreeMap::new();
    let mut low: BTreeMap<&String, usize> = BTreeMap::new();
    let mut on_stack: BTreeSet<&String> = BTreeSet::new();
    let mut stack: Vec<&String> = Vec::new();
    let mut out = Vec::new();
    for &root in &nodes {
        if index.contains_key(root) {
            continue;
        }
        // (node, its next edge to follow)
        let mut work: Vec<(&String, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            if *next == 0 && !index.contains_key(v) {
                let i = index.len();
                index.insert(v, i);
                low.insert(v, i);
                stack.push(v);
                on_stack.insert(v);
            }
            let out_edges = edges(v);
            if let Some(&w) = out_edges.get(*next) {
                *next += 1;
                if !index.contains_key(w) {
                    work.push((w, 0));
                } else if on_stack.contains(w) {
                    let lw = index[w].min(low[v]);
                    low.insert(v, lw);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                let lp = low[parent].min(low[v]);
                low.insert(parent, lp);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    out.push(component);
                }
            }
        }
    }
    out
}

/// `src/cli` size limits: total lines, and lines of each function (from its `fn` line to the
/// closing brace at the same indentation, as rustfmt lays it out).
fn cli_size(c: &Crate) -> Vec<String> {
    let mut out = Vec::new();
    let cli: Vec<(&String, &String)> = c
        .texts
        .iter()
        .filter(|(f, _)| f.starts_with("cli/"))
        .collect();
    let total: usize = cli.iter().map(|(_, t)| t.lines().count()).sum();
    if total >= CLI_MAX_LINES {
        out.push(format!(
            "size: src/cli has {total} lines (limit: under {CLI_MAX_LINES})"
        ));
    }
    let fn_re = Regex::new(r"^(\s*)(?:pub(?:\([a-z]+\))? )?(?:async )?(?:unsafe )?fn ([a-z_0-9]+)")
        .unwrap();
    for (file, text) in cli {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(m) = fn_re.captures(line) else {
                continue;
            };
            let indent = &m[1];
            let close = format!("{indent}}}");
            let Some(end) = lines[i..].iter().position(|l| l.trim_end() == close) else {
                continue;
            };
            let len = end + 1;
            if len > CLI_MAX_FN_LINES {
                out.push(format!(
                    "size: fn {} in src/{file} has {len} lines (limit: {CLI_MAX_FN_LINES})",
                    &m[2]
                ));
            }
        }
    }
    out
}

#[test]
fn the_layers_hold_no_circles_and_the_cli_is_thin() {
    let c = read_crate();
    assert!(
        c.files.len() > 20,
        "the sources were found: {}",
        c.files.len()
    );
    let found = violations(&c);
    let pending: Vec<&String> = found
        .iter()
        .filter(|v| PENDING.iter().any(|(p, _)| v.contains(p)))
        .collect();
    if !PENDING.is_empty() {
        // Straight to the process's stderr, which the test harness does not capture: the list
        // shows on every run, passing or not.
        let mut todo = String::from("TODO (issue 16, still being moved; printed, not failed):\n");
        for (v, who) in PENDING {
            let open = found.iter().any(|f| f.contains(v));
            let state = if open {
                "open"
            } else {
                "done: remove the entry"
            };
            todo.push_str(&format!("  [{state}] {v} ({who})\n"));
        }
        let _ = std::io::stderr().write_all(todo.as_bytes());
    }
    let unexpected: Vec<&String> = found.iter().filter(|v| !pending.contains(v)).collect();
    assert!(
        unexpected.is_empty(),
        "architecture violations:\n  {}",
        unexpected
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

#[test]
fn circles_of_any_length_are_found_once() {
    let mut c = Crate {
        files: BTreeMap::new(),
        imports: BTreeMap::new(),
        texts: BTreeMap::new(),
    };
    let mut import = |a: &str, b: &str| {
        c.imports
            .entry(a.to_string())
            .or_default()
            .insert(b.to_string());
    };
    import("engine/a.rs", "engine/b.rs");
    import("engine/b.rs", "engine/c.rs");
    import("engine/c.rs", "engine/a.rs");
    import("engine/c.rs", "engine/d.rs");
    // A folder's mod.rs and its children are not a circle.
    import("lint/mod.rs", "lint/x.rs");
    import("lint/x.rs", "lint/mod.rs");
    assert_eq!(circles(&c), [["engine/a.rs", "engine/b.rs", "engine/c.rs"]]);
}

#[test]
fn imports_resolve_to_the_deepest_file() {
    let c = read_crate();
    let lint = &c.imports["cli/lint.rs"];
    assert!(lint.contains("cli/error.rs"), "{lint:?}");
    assert!(lint.contains("output/format.rs"), "{lint:?}");
    assert!(!lint.contains("cli/lint.rs"));
}

#[test]
fn test_sections_and_comments_are_not_imports() {
    let code = code_of(
        "use crate::a;\n// crate::b\nfn f() {} // crate::c\n#[cfg(test)]\nmod tests {\n    use crate::d;\n}\nuse crate::e;\n",
    );
    assert!(code.contains("crate::a") && code.contains("crate::e"));
    assert!(!code.contains("crate::b") && !code.contains("crate::c") && !code.contains("crate::d"));
}

#[test]
fn every_module_has_a_layer() {
    let c = read_crate();
    let unplaced: BTreeSet<&str> = c
        .texts
        .keys()
        .filter(|f| !matches!(f.as_str(), "lib.rs" | "main.rs"))
        .filter(|f| layer_of(f).is_none())
        .map(|f| f.split('/').next().unwrap_or(f))
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules with no layer in LAYERS (a new module must say where it sits): {unplaced:?}"
    );
}
