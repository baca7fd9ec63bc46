//! `lint` through the real binary: exit codes, every output format (snapshots), the real-world
//! corpus, kubectl plugin discovery.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/run.rs"]
mod run;
mod snapshot_file;
use run::{bin, run, stdout};
use snapshot_file::assert_snapshot;

fn shared_dir() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    p.is_dir().then_some(p)
}

#[test]
fn clean_input_exits_zero() {
    let o = run(&["lint", "testdata/lint/clean.yaml"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).starts_with("0 errors, 0 warnings, 0 infos in 1 file"));
}

#[test]
fn a_broken_document_is_a_finding_with_position_and_exit_one() {
    let o = run(&["lint", "-o", "json", "testdata/lint/broken.yaml"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "yaml-syntax");
    assert_eq!(f["file"], "testdata/lint/broken.yaml");
    assert_eq!(
        f["line"], 9,
        "the line of the unclosed bracket, not the next document marker"
    );
    // The documents around the broken one are still read.
    assert_eq!(v["summary"]["documents"], 2);
}

/// A quoted value going on left of its mapping's indent is read as kubectl's go-yaml reads it
/// (no syntax error), and the policy after it is checked: its folded cluster list is the one
/// finding.
#[test]
fn a_quoted_value_left_of_its_indent_reads_as_kubectl_reads_it() {
    let o = run(&[
        "lint",
        "-o",
        "json",
        "testdata/lint/quoted-config-left-of-its-indent.yaml",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["invalid-cluster-name"], "{v:#}");
    assert_eq!(v["findings"][0]["line"], 30);
    assert_eq!(v["summary"]["documents"], 2);
}

#[test]
fn unreadable_input_and_bad_flags_exit_two() {
    let o = run(&["lint", "testdata/lint/does-not-exist.yaml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does-not-exist.yaml: no such file"));
    assert_eq!(
        run(&["lint", "-o", "xml", "testdata/lint/clean.yaml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["lint", "--fail-on", "loud", "testdata/lint/clean.yaml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&["lint"]).status.code(), Some(2));
    assert_eq!(run(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn stdin_is_read_with_dash() {
    use std::io::Write;
    let mut child = bin()
        .args(["lint", "-o", "json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"apiVersion: v1\nkind: ConfigMap\na: 1\na: 2\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["findings"][0]["file"], "<stdin>");
    assert_eq!(v["findings"][0]["rule"], "duplicate-key");
}

#[test]
fn no_color_when_not_a_terminal() {
    let o = run(&["lint", "testdata/lint/broken.yaml"]);
    assert!(
        !stdout(&o).contains('\u{1b}'),
        "escape codes in piped output"
    );
}

#[test]
fn snapshot_every_output_format_on_the_same_input() {
    let input = "testdata/lint/showcase.yaml";
    for (format, name) in [
        ("text", "lint-showcase.txt"),
        ("json", "lint-showcase.json"),
        ("sarif", "lint-showcase.sarif"),
        ("github", "lint-showcase.github"),
    ] {
        let o = run(&["lint", "-o", format, input]);
        assert_eq!(o.status.code(), Some(1), "{format}");
        assert_snapshot(name, &stdout(&o));
    }
}

#[test]
fn snapshot_the_gitops_example() {
    // The README's quick-start input: overlap, silent non-preemption, a failover stall, a dead policy.
    let o = run(&["lint", "testdata/examples/gitops"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "warnings and infos do not fail by default"
    );
    assert_snapshot("lint-gitops.txt", &stdout(&o));
    let o = run(&["lint", "--fail-on", "warning", "testdata/examples/gitops"]);
    assert_eq!(o.status.code(), Some(1));
    let o = run(&[
        "lint",
        "--feature-gates",
        "PropagationPolicyPreemption=true",
        "-o",
        "json",
        "testdata/examples/gitops",
    ]);
    assert_snapshot("lint-gitops-gate-on.json", &stdout(&o));
}

#[test]
fn several_formats_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let sarif = dir.path().join("lint.sarif");
    let o = run(&[
        "lint",
        "-o",
        "text",
        "-o",
        &format!("sarif={}", sarif.display()),
        "testdata/lint/showcase.yaml",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error["));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(v["version"], "2.1.0");
}

#[test]
fn fail_on_threshold() {
    // showcase has errors: --fail-on none still reports them but exits 0.
    let o = run(&["lint", "--fail-on", "none", "testdata/lint/showcase.yaml"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("error["));
}

#[test]
fn list_rules_and_explain() {
    let o = run(&["lint", "--list-rules"]);
    assert_eq!(o.status.code(), Some(0));
    let list = stdout(&o);
    assert!(list.lines().any(|l| l.starts_with("duplicate-key ")));
    let o = run(&["lint", "--explain", "duplicate_key"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("# duplicate-key (input, default severity: error)"));
    assert_eq!(run(&["lint", "--explain", "nope"]).status.code(), Some(2));
}

#[test]
fn every_corpus_file_loads_and_lints_without_a_panic() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipped: ../shared (the corpus) is not beside the checkout");
        return;
    };
    let corpus = shared.join("corpus");
    // The whole corpus in one run, as a repository...
    let o = run(&["lint", "-o", "json", corpus.to_str().unwrap()]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["summary"]["documents"].as_u64().unwrap() > 400);
    // ...and each file alone, so one file's panic cannot hide behind another's.
    let mut files = Vec::new();
    collect(&corpus, &mut files);
    assert!(files.len() > 400);
    for f in files {
        let o = run(&[
            "lint",
            "-o",
            "json",
            "--fail-on",
            "none",
            f.to_str().unwrap(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&o.stdout)
            .unwrap_or_else(|e| panic!("{}: output is not JSON: {e}", f.display()));
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(p);
        }
    }
}

#[test]
fn kubectl_discovers_the_plugin() {
    if Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        eprintln!("skipped: kubectl is not on PATH");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("kubectl-karmada_policy");
    std::fs::copy(env!("CARGO_BIN_EXE_kubectl-karmada_policy"), &plugin).unwrap();
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let list = Command::new("kubectl")
        .args(["plugin", "list"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&list.stdout).contains(plugin.to_str().unwrap()),
        "kubectl plugin list: {}",
        String::from_utf8_lossy(&list.stdout)
    );
    let help = Command::new("kubectl")
        .args(["karmada-policy", "--help"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage: kubectl karmada-policy"));
}

#[test]
fn sarif_output_validates_against_the_official_schema() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-deps/sarif-2.1.0.json");
    let Ok(schema) = std::fs::read_to_string(&path) else {
        eprintln!(
            "skipped: {} is missing (run scripts/fetch-test-deps.sh)",
            path.display()
        );
        return;
    };
    // The schema's own `run.language` pattern has a stray `]` that ECMA-262 reads as a literal
    // and the jsonschema crate's meta-schema check rejects as a regex; escape it, nothing else.
    let schema = schema.replace(r#"[a-zA-Z]{2}]?$"#, r#"[a-zA-Z]{2}\\]?$"#);
    let schema: serde_json::Value = serde_json::from_str(&schema).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    for input in [
        "testdata/lint/showcase.yaml",
        "testdata/lint/clean.yaml",
        "testdata/lint/broken.yaml",
    ] {
        let o = run(&["lint", "-o", "sarif", input]);
        let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{input}: {errors:#?}");
        assert!(
            log["runs"][0]["tool"]["driver"]["rules"]
                .as_array()
                .unwrap()
                .len()
                > 20
        );
    }
    // The validator does reject what SARIF forbids.
    let o = run(&["lint", "-o", "sarif", "testdata/lint/showcase.yaml"]);
    let mut log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    log["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&log));
}

#[test]
fn config_file_turns_rules_off_sets_severity_and_known_clusters() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        "testdata/examples/gitops/policies.yaml",
        dir.path().join("policies.yaml"),
    )
    .unwrap();
    std::fs::copy(
        "testdata/examples/gitops/apps.yaml",
        dir.path().join("apps.yaml"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join(".karmada-policy.yaml"),
        "rules:\n  overlap: \"off\"\n  selector-never-matches: error\nknownClusters: [member1, member2]\nfeatureGates:\n  PropagationPolicyPreemption: true\n",
    )
    .unwrap();
    // Found from the current directory upwards.
    let o = bin()
        .current_dir(dir.path())
        .args(["lint", "-o", "json", "."])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "selector-never-matches is now an error"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rules: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(!rules.contains(&"overlap"));
    assert!(
        !rules.contains(&"inert-preemption"),
        "the gate is on in the config"
    );
    assert!(
        rules.contains(&"unknown-cluster"),
        "member3 is not a known cluster: {rules:?}"
    );
    // The example's `v1beta1` ConfigMap selector (the core group serves only v1).
    let never = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "selector-never-matches")
        .unwrap();
    assert_eq!(never["severity"], "error");
    // A bad config is a usage error naming file, line and column.
    std::fs::write(
        dir.path().join(".karmada-policy.yaml"),
        "rules:\n  nonsense: error\n",
    )
    .unwrap();
    let o = bin()
        .current_dir(dir.path())
        .args(["lint", "."])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains(".karmada-policy.yaml:2:3: unknown rule `nonsense`"));
}

#[test]
fn inline_ignores_need_a_reason_and_can_be_disabled() {
    let dir = tempfile::tempdir().unwrap();
    let policy = |annotation: &str| {
        format!(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\n  namespace: default\n  annotations:\n    karmada-policy.io/ignore: \"{annotation}\"\nspec:\n  preemption: Always\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: nginx\n"
        )
    };
    let file = dir.path().join("p.yaml");
    let rules_of = |args: &[&str]| -> Vec<String> {
        let o = run(&[&["lint", "-o", "json"], args, &[file.to_str().unwrap()]].concat());
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect()
    };
    std::fs::write(
        &file,
        policy("inert-preemption: the gate is enabled in production"),
    )
    .unwrap();
    assert!(rules_of(&[]).is_empty(), "{:?}", rules_of(&[]));
    assert_eq!(rules_of(&["--no-inline-ignores"]), ["inert-preemption"]);
    std::fs::write(&file, policy("inert-preemption")).unwrap();
    let mut got = rules_of(&[]);
    got.sort();
    assert_eq!(
        got,
        ["inert-preemption", "invalid-ignore"],
        "no reason: not applied, and reported"
    );
}

/// Findings of one corpus file, as JSON values (None when ../shared is absent).
fn corpus_findings(file: &str) -> Option<Vec<serde_json::Value>> {
    let path = shared_dir()?.join("corpus").join(file);
    let o = run(&["lint", "-o", "json", path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    Some(v["findings"].as_array().unwrap().clone())
}

#[test]
fn website_preemption_example_without_a_name_is_an_error_at_the_selector() {
    let Some(f) = corpus_findings(
        "karmada-io__website/docs__userguide__scheduling__propagation-policy.md__block25.yaml",
    ) else {
        eprintln!("skipped: ../shared (the corpus) is not beside the checkout");
        return;
    };
    let f = f
        .iter()
        .find(|f| f["rule"] == "preemption-requires-name")
        .expect("reported");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["field"], "spec.resourceSelectors[0].name");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(8), Some(7))
    );
    assert_eq!(
        f["message"],
        "name cannot be empty if preemption is Always, the empty name may cause unexpected resources preemption"
    );
}

#[test]
fn website_cluster_affinity_beside_placement_is_an_unknown_field_at_that_line() {
    let Some(f) = corpus_findings(
        "karmada-io__website/docs__userguide__scheduling__propagation-policy.md__block33.yaml",
    ) else {
        eprintln!("skipped: ../shared (the corpus) is not beside the checkout");
        return;
    };
    let f = f
        .iter()
        .find(|f| f["rule"] == "schema-unknown-field")
        .expect("reported");
    assert_eq!(f["field"], "spec.clusterAffinity");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(10), Some(3))
    );
    // The API server's words, then where the field belongs (the CRD defines it under placement).
    assert_eq!(
        f["message"],
        "unknown field \"spec.clusterAffinity\"; did you mean \"spec.placement.clusterAffinity\"?"
    );
}

/// A directory of small files, and the same files joined into one file larger than the size read
/// whole (so it is read in pieces, as stdin is): the findings, their positions (shifted by the
/// lines before each file) and the snippets are the same on every path.
#[test]
fn one_large_file_and_stdin_give_the_directory_findings_at_the_same_lines() {
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    let padding = |from: usize| -> String {
        (from..from + 2500)
            .map(|i| {
                format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-{i}\n  namespace: default\ndata:\n  key: value-{i}\n")
            })
            .collect()
    };
    let read =
        |p: &str| std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(p)).unwrap();
    let parts = [
        ("00-pad.yaml", padding(0)),
        ("01-showcase.yaml", read("testdata/lint/showcase.yaml")),
        ("02-pad.yaml", padding(2500)),
        ("03-apps.yaml", read("testdata/examples/gitops/apps.yaml")),
        ("04-pad.yaml", padding(5000)),
        (
            "05-policies.yaml",
            read("testdata/examples/gitops/policies.yaml"),
        ),
        ("06-pad.yaml", padding(7500)),
    ];
    // The joined file, and where each file's first line is in it.
    let mut joined = String::new();
    let mut offsets = std::collections::HashMap::new();
    for (name, text) in &parts {
        if !joined.is_empty() && !text.starts_with("---") {
            joined.push_str("---\n");
        }
        offsets.insert(name.to_string(), joined.matches('\n').count() as u64);
        std::fs::write(files.join(name), text).unwrap();
        joined.push_str(text);
        assert!(text.ends_with('\n'));
    }
    assert!(joined.len() > 1 << 20, "larger than a file read whole");
    let one = dir.path().join("one.yaml");
    std::fs::write(&one, &joined).unwrap();

    let json = |o: &std::process::Output| -> serde_json::Value {
        assert_eq!(o.status.code(), Some(1), "{}", run::stderr(o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    // Each finding as the joined file numbers its lines.
    let normalized = |v: &serde_json::Value, in_dir: bool| -> Vec<serde_json::Value> {
        let shift = |f: &serde_json::Value| -> u64 {
            let name = f["file"].as_str().unwrap_or("");
            if in_dir {
                offsets[name.rsplit('/').next().unwrap()]
            } else {
                0
            }
        };
        let mut out = Vec::new();
        for f in v["findings"].as_array().unwrap() {
            let mut f = f.clone();
            let by = shift(&f);
            for key in ["line", "endLine"] {
                if let Some(n) = f[key].as_u64() {
                    f[key] = (n + by).into();
                }
            }
            f["file"] = serde_json::Value::Null;
            // A message naming another line of the file (duplicate-key) names it as well.
            if let Some((before, after)) = f["message"].as_str().unwrap().split_once("at line ") {
                let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
                let n: u64 = digits.parse().unwrap();
                f["message"] =
                    format!("{before}at line {}{}", n + by, &after[digits.len()..]).into();
            }
            for r in f["related"].as_array_mut().into_iter().flatten() {
                let by = shift(r);
                r["line"] = (r["line"].as_u64().unwrap() + by).into();
                r["file"] = serde_json::Value::Null;
            }
            out.push(f);
        }
        out
    };
    let dir_run = json(&run(&["lint", "-o", "json", files.to_str().unwrap()]));
    let file_run = json(&run(&["lint", "-o", "json", one.to_str().unwrap()]));
    let stdin_run = {
        let o = bin()
            .args(["lint", "-o", "json", "-"])
            .stdin(std::fs::File::open(&one).unwrap())
            .output()
            .unwrap();
        json(&o)
    };
    let piped_run = json(&run::run_piped(
        None,
        &["lint", "-o", "json", "-"],
        Some(joined.as_bytes()),
    ));
    let expected = normalized(&dir_run, true);
    assert!(expected.len() > 10, "{}", expected.len());
    assert!(
        expected
            .iter()
            .any(|f| f["line"].as_u64().unwrap() > 20_000),
        "findings in the later pieces"
    );
    for (what, v) in [
        ("FILE", &file_run),
        ("- < FILE", &stdin_run),
        ("cat | -", &piped_run),
    ] {
        assert_eq!(normalized(v, false), expected, "lint {what}");
        for key in ["documents", "policies", "errors", "warnings", "infos"] {
            assert_eq!(v["summary"][key], dir_run["summary"][key], "{what}: {key}");
        }
    }
    assert_eq!(file_run["findings"][0]["file"], one.to_str().unwrap());
    assert_eq!(stdin_run["findings"][0]["file"], "<stdin>");

    // The snippets: each shown line is the joined file's line of that number, from the file
    // and from stdin (written to an unnamed temporary file, read back for the report; nothing
    // is left behind).
    let spool_dir = tempfile::tempdir().unwrap();
    let from_stdin = bin()
        .args(["lint", "-"])
        .env("TMPDIR", spool_dir.path())
        .stdin(std::fs::File::open(&one).unwrap())
        .output()
        .unwrap();
    assert_eq!(
        std::fs::read_dir(spool_dir.path()).unwrap().count(),
        0,
        "the spooled stdin is removed"
    );
    let lines: Vec<&str> = joined.lines().collect();
    for text in [
        stdout(&run(&["lint", one.to_str().unwrap()])),
        stdout(&from_stdin),
    ] {
        let mut snippets = 0;
        for l in text.lines() {
            let Some((n, shown)) = l.split_once(" | ") else {
                continue;
            };
            let Ok(n) = n.trim().parse::<usize>() else {
                continue;
            };
            assert_eq!(shown, lines[n - 1], "line {n}");
            snippets += 1;
        }
        assert!(snippets > 10, "{text}");
    }
}

/// `overlap` groups a losing policy's pairs: the message names three partners and counts the
/// rest, and JSON `partners` lists every partner and every template.
#[test]
fn overlap_is_one_finding_per_losing_policy_and_json_lists_every_template() {
    let mut yaml = String::from(
        "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata:\n  name: every-deployment\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n",
    );
    for p in 0..5 {
        yaml.push_str(&format!(
            "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: team-{p}\n  namespace: default\nspec:\n  resourceSelectors:\n"
        ));
        for t in 0..3 {
            yaml.push_str(&format!(
                "    - apiVersion: apps/v1\n      kind: Deployment\n      name: app-{p}-{t}\n"
            ));
        }
        yaml.push_str("  placement:\n    clusterAffinity:\n      clusterNames: [member1]\n");
        for t in 0..3 {
            yaml.push_str(&format!(
                "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{p}-{t}\n  namespace: default\nspec:\n  selector:\n    matchLabels: {{app: a}}\n  template:\n    metadata:\n      labels: {{app: a}}\n    spec:\n      containers: [{{name: c, image: nginx}}]\n"
            ));
        }
    }
    let o = run::run_piped(None, &["lint", "-o", "json", "-"], Some(yaml.as_bytes()));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let overlaps: Vec<_> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "overlap")
        .collect();
    assert_eq!(overlaps.len(), 1, "{v:#}");
    let f = overlaps[0];
    assert_eq!(f["object"]["name"], "every-deployment");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.starts_with("cpp/every-deployment loses 15 templates to 5 policies that also match them: deployment/default/app-0-0 and 2 more: pp/default/team-0 wins the fresh match:"),
        "{message}"
    );
    assert!(message.ends_with("; and 2 more policies"), "{message}");
    assert_eq!(f["related"].as_array().unwrap().len(), 3);
    let partners = f["partners"].as_array().unwrap();
    let names: Vec<_> = partners
        .iter()
        .map(|p| p["policy"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["team-0", "team-1", "team-2", "team-3", "team-4"]);
    let templates: Vec<String> = partners
        .iter()
        .flat_map(|p| p["templates"].as_array().unwrap())
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let all: Vec<String> = (0..5)
        .flat_map(|p| (0..3).map(move |t| format!("app-{p}-{t}")))
        .collect();
    assert_eq!(templates, all);
    assert!(partners.iter().all(|p| p["reason"]
        .as_str()
        .unwrap()
        .contains("PropagationPolicy always beats")));
}
