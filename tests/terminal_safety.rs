//! Nothing from an input reaches a terminal or a CI log raw: every C0 control character, DEL
//! and every C1 control character, put in file names, in values quoted in messages and raw in
//! a file's lines, comes out of the text, GitHub and JUnit outputs escaped (`\u{1b}`), with
//! the carets under a snippet still under the character they point at.

use std::path::Path;

#[path = "support/run.rs"]
mod run;
use run::{run_piped, stderr, stdout};

/// Every C0 character, DEL and every C1 character.
fn controls() -> Vec<char> {
    (0u32..0x20)
        .chain(std::iter::once(0x7f))
        .chain(0x80..0xa0)
        .filter_map(char::from_u32)
        .collect()
}

/// What `\u{..}` the escape of `c` is.
fn escaped(c: char) -> String {
    format!("\\u{{{:x}}}", c as u32)
}

/// A policy (admitted: its name is valid) with a finding that quotes input (a cluster name
/// holding `c` through a YAML escape), and a line holding `c` raw (a syntax error unless YAML
/// allows it).
fn policy_with(c: char) -> String {
    let code = c as u32;
    format!(
        "apiVersion: policy.karmada.io/v1alpha1\n\
         kind: PropagationPolicy\n\
         metadata:\n  name: p{code:x}\n  namespace: default\n\
         spec:\n  resourceSelectors:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web{code:x}\n\
         \x20 placement:\n    clusterAffinity:\n      clusterNames: [\"m\\u{code:04x}\"]\n\
         ---\n\
         x: a{c}b\n"
    )
}

/// One file per control character, the character in its name too (but NUL, which no file
/// name can hold).
fn write_inputs(dir: &Path) {
    for c in controls() {
        let name = if c == '\0' {
            "f00.yaml".to_string()
        } else {
            format!("f{:02x}-{c}.yaml", c as u32)
        };
        std::fs::write(dir.join(name), policy_with(c)).unwrap();
    }
}

/// Control characters in `text` other than the line feeds that end its lines.
fn raw_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect()
}

#[test]
fn no_control_character_comes_out_raw_in_text_github_or_junit() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let gh = out.join("gh.txt");
    let junit = out.join("junit.xml");
    let (gh_arg, junit_arg) = (
        format!("github={}", gh.display()),
        format!("junit={}", junit.display()),
    );
    let o = run_piped(
        Some(dir.path()),
        &[
            "lint", "--color", "never", "-o", "text", "-o", &gh_arg, "-o", &junit_arg, ".",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    let github = std::fs::read_to_string(&gh).unwrap();
    let junit = std::fs::read_to_string(&junit).unwrap();
    for (format, output) in [("text", &text), ("github", &github), ("junit", &junit)] {
        let raw = raw_controls(output);
        assert!(raw.is_empty(), "{format}: raw {raw:?} in\n{output}");
        for c in controls() {
            // Each character went through, visibly (names, quoted values, raw lines).
            assert!(
                output.contains(&escaped(c)),
                "{format}: {c:?} not shown as {}",
                escaped(c)
            );
        }
    }
    assert!(raw_controls(&stderr(&o)).is_empty(), "{}", stderr(&o));
}

#[test]
fn coloured_text_carries_only_its_own_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path());
    let o = run_piped(Some(dir.path()), &["lint", "--color", "always", "."], None);
    let text = stdout(&o);
    // Our own SGR sequences (ESC [ digits and semicolons m) are the only escapes left.
    let sgr = regex::Regex::new("\u{1b}\\[[0-9;]*m").unwrap();
    let plain = sgr.replace_all(&text, "");
    assert!(raw_controls(&plain).is_empty(), "{plain}");
    assert!(
        plain.contains("\\u{1b}[2K") || plain.contains("\\u{1b}"),
        "{plain}"
    );
}

#[test]
fn carets_stay_under_the_character_after_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let line = "name: a\u{1b}[2K\u{7}b\u{1b}c";
    std::fs::write(dir.path().join("p.yaml"), format!("{line}\n")).unwrap();
    let o = run_piped(Some(dir.path()), &["lint", "p.yaml"], None);
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("1 | "))
        .expect("snippet line");
    assert_eq!(lines[at], "1 | name: a\\u{1b}[2K\\u{7}b\\u{1b}c", "{text}");
    // The error is at the first ESC (column 8): the carets cover its six printed columns.
    assert!(text.contains("--> p.yaml:1:8"), "{text}");
    let carets = lines[at + 1];
    let start = carets.find('^').unwrap();
    assert_eq!(&lines[at][start..start + 6], "\\u{1b}", "{text}");
    assert_eq!(carets[start..].trim_end(), "^^^^^^", "{text}");
}

#[test]
fn a_control_character_is_a_yaml_error_at_its_position_as_kubectl_has_it() {
    // kubectl: `error: error parsing p.yaml: error converting YAML to JSON: yaml: control
    // characters are not allowed` for the whole file; here the document, at the character.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\u{1b}[2Kb\n",
    )
    .unwrap();
    let o = run_piped(Some(dir.path()), &["lint", "-o", "json", "p.yaml"], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "yaml-syntax");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(4), Some(10))
    );
    assert!(f["message"]
        .as_str()
        .unwrap()
        .contains("control characters are not allowed (U+001B)"));
}

/// A policy and a Deployment whose names and labels hold control characters through YAML
/// escapes (valid YAML; the API server would refuse such names, a file does not).
const ESCAPED_NAMES: &str = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: p
  namespace: default
  annotations: {note: \"\\e]0;title\\x07\"}
spec:
  resourceSelectors:
  - apiVersion: apps/v1
    kind: Deployment
    name: web
  placement:
    clusterAffinity:
      clusterNames: [\"m\\e[31m\\x07\\x9b\\x85\"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: {app: \"\\e[2J\\x7f\"}
";

#[test]
fn explain_and_suspend_show_names_escaped_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.yaml"), ESCAPED_NAMES).unwrap();
    let policy = "pp/p";
    let runs: Vec<Vec<&str>> = vec![
        vec!["explain", "deploy/web", "-f", "p.yaml"],
        vec!["explain", "deploy/web", "-f", "p.yaml", "-o", "json"],
        vec!["explain", "deploy/web", "-f", "p.yaml", "-o", "yaml"],
        vec!["explain", "deploy/web", "-f", "p.yaml", "--graph", "dot"],
        vec![
            "explain",
            "deploy/web",
            "-f",
            "p.yaml",
            "--graph",
            "mermaid",
        ],
        vec!["explain", policy, "-f", "p.yaml"],
        vec!["explain", policy, "-f", "p.yaml", "-o", "json"],
        vec!["suspend", "-f", "p.yaml", policy, "--dry-run"],
        vec![
            "suspend",
            "-f",
            "p.yaml",
            "--clusters",
            "m\u{1b}[31m",
            "--dry-run",
        ],
        vec!["lint", "-o", "json", "p.yaml"],
        vec!["lint", "-o", "sarif", "p.yaml"],
    ];
    for args in runs {
        let o = run_piped(Some(dir.path()), &args, None);
        let (out, err) = (stdout(&o), stderr(&o));
        assert!(!out.is_empty() || !err.is_empty(), "{args:?}: no output");
        assert!(raw_controls(&out).is_empty(), "{args:?}: stdout\n{out}");
        assert!(raw_controls(&err).is_empty(), "{args:?}: stderr\n{err}");
        if args.contains(&"json") || args.contains(&"sarif") {
            // JSON keeps its values: the escapes read back as the same characters (the cluster
            // name, where the report names it).
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            let names_cluster = args[0] == "lint" || args[1] == "deploy/web";
            assert!(
                !names_cluster || v.to_string().contains('\u{9b}'),
                "{args:?}: {out}"
            );
        }
    }
}
