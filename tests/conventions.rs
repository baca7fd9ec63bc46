//! kubectl conventions (issue 20): help layout and exit codes per subcommand, `version`,
//! `--color`, `--quiet` / `--min-severity`, `-o junit`, man pages.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");
const SHOWCASE: &str = "testdata/lint/showcase.yaml";

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn every_subcommand_helps_in_one_style_description_examples_options_usage_exit_codes() {
    for sub in [
        "lint",
        "explain",
        "preempt-check",
        "suspend",
        "resume",
        "completion",
        "version",
    ] {
        let help = stdout(&run(&[sub, "--help"], &[]));
        let at = |needle: &str| {
            help.find(needle)
                .unwrap_or_else(|| panic!("{sub} --help has no `{needle}`:\n{help}"))
        };
        assert!(at("Examples:\n") < at("Options:\n"), "{sub}");
        assert!(
            at("Options:\n") < at("Usage: kubectl karmada-policy"),
            "{sub}"
        );
        assert!(
            at("Usage: kubectl karmada-policy") < at("Exit codes:\n"),
            "{sub}"
        );
        assert!(
            help.contains(&format!("kubectl karmada-policy {sub}")),
            "{sub}: examples"
        );
    }
}

#[test]
fn exit_codes_in_help_belong_to_the_subcommand() {
    for sub in ["explain", "preempt-check"] {
        let help = stdout(&run(&[sub, "--help"], &[]));
        assert!(!help.contains("--fail-on (lint)"), "{sub}:\n{help}");
        assert!(!help.contains("suspend/resume"), "{sub}:\n{help}");
    }
    let help = stdout(&run(&["preempt-check", "--help"], &[]));
    assert!(help.contains("--fail-on-blocked is set"));
    let resume = stdout(&run(&["resume", "--help"], &[]));
    assert!(!resume.contains("--force"), "{resume}");
    assert!(!resume.contains("Suspend all clusters"), "{resume}");
    let suspend = stdout(&run(&["suspend", "--help"], &[]));
    assert!(suspend.contains("--force"));
}

#[test]
fn version_subcommand_prints_json_with_commit_date_and_karmada_release() {
    let o = run(&["version", "-o", "json"], &[]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    for key in ["gitCommit", "buildDate", "karmadaVersion"] {
        assert!(v[key].as_str().is_some_and(|s| !s.is_empty()), "{key}: {v}");
    }
    let date = v["buildDate"].as_str().unwrap();
    assert!(
        date == "unknown" || (date.len() == 10 && date.as_bytes()[4] == b'-'),
        "{date}"
    );
    let text = stdout(&run(&["version"], &[]));
    assert!(text.starts_with(&format!(
        "kubectl-karmada_policy {}\n",
        env!("CARGO_PKG_VERSION")
    )));
    let flag = stdout(&run(&["--version"], &[]));
    assert!(flag.contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn color_flag_clicolor_force_and_no_color() {
    let esc = |o: &Output| o.stdout.contains(&0x1b);
    // stdout is a pipe here: auto means no colour.
    assert!(!esc(&run(&["lint", SHOWCASE], &[])));
    assert!(esc(&run(&["lint", "--color=always", SHOWCASE], &[])));
    assert!(esc(&run(&["lint", SHOWCASE], &[("CLICOLOR_FORCE", "1")])));
    assert!(!esc(&run(
        &["lint", "--color", "never", SHOWCASE],
        &[("CLICOLOR_FORCE", "1")]
    )));
    assert!(!esc(&run(&["--color=never", "lint", SHOWCASE], &[])));
}

#[test]
fn quiet_and_min_severity_hide_findings_but_not_the_exit_code() {
    let all = stdout(&run(&["lint", "testdata/examples/gitops"], &[]));
    assert!(all.contains("warning["), "{all}");
    let quiet = run(
        &[
            "lint",
            "-q",
            "--fail-on",
            "warning",
            "testdata/examples/gitops",
        ],
        &[],
    );
    let text = stdout(&quiet);
    assert!(
        !text.contains("warning[") && !text.contains("info["),
        "{text}"
    );
    assert_eq!(
        quiet.status.code(),
        Some(1),
        "--fail-on still sees the warnings"
    );
    let warn = stdout(&run(
        &[
            "lint",
            "--min-severity",
            "warning",
            "testdata/examples/gitops",
        ],
        &[],
    ));
    assert!(
        warn.contains("warning[") && !warn.contains("info["),
        "{warn}"
    );
    let bad = run(&["lint", "--min-severity", "loud", SHOWCASE], &[]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn summary_counts_per_rule_with_correct_plurals() {
    let text = stdout(&run(&["lint", SHOWCASE], &[]));
    assert!(
        text.contains("in 1 file (4 documents, 2 policies)"),
        "{text}"
    );
    assert!(text.contains("\nby rule: "), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.yaml");
    std::fs::write(
        &one,
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\nspec:\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n",
    )
    .unwrap();
    let text = stdout(&run(&["lint", one.to_str().unwrap()], &[]));
    assert!(text.contains("(1 document, 1 policy)"), "{text}");
}

#[test]
fn junit_output_has_one_case_per_rule_and_object() {
    let o = run(&["lint", "-o", "junit", SHOWCASE], &[]);
    assert_eq!(o.status.code(), Some(1));
    let xml = stdout(&o);
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    assert!(
        xml.contains("<testsuite name=\"preemption-requires-name\" tests=\"1\" failures=\"1\""),
        "{xml}"
    );
    assert!(xml.contains("<failure type=\"error\""));
    assert!(xml.trim_end().ends_with("</testsuites>"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lint.xml");
    let spec = format!("junit={}", file.display());
    let o = run(&["lint", "-o", "text", "-o", &spec, SHOWCASE], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("<testsuites "));
}

#[test]
fn man_pages_one_per_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&["man", "--out-dir", dir.path().to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for page in [
        "kubectl-karmada_policy.1",
        "kubectl-karmada_policy-lint.1",
        "kubectl-karmada_policy-explain.1",
        "kubectl-karmada_policy-preempt-check.1",
        "kubectl-karmada_policy-suspend.1",
        "kubectl-karmada_policy-resume.1",
        "kubectl-karmada_policy-completion.1",
        "kubectl-karmada_policy-version.1",
    ] {
        let text = std::fs::read_to_string(dir.path().join(page)).unwrap();
        assert!(text.contains(".TH "), "{page}");
        // man-pages(7)'s sections, in its order; no clap "EXTRA".
        let headings: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix(".SH "))
            .map(|h| h.trim_matches('"'))
            .collect();
        let order = [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "EXIT STATUS",
            "EXAMPLES",
            "SEE ALSO",
        ];
        let positions: Vec<usize> = order
            .iter()
            .filter_map(|h| headings.iter().position(|x| x == h))
            .collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "{page}: {headings:?}"
        );
        for h in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "EXIT STATUS",
            "EXAMPLES",
            "SEE ALSO",
        ] {
            assert!(headings.contains(&h), "{page}: no {h} in {headings:?}");
        }
        assert!(!headings.contains(&"EXTRA"), "{page}: {headings:?}");
        // The synopsis as users type it, and the examples of --help.
        let plain = text
            .replace("\\-", "-")
            .replace("\\fB", "")
            .replace("\\fR", "");
        let synopsis = plain
            .lines()
            .skip_while(|l| *l != ".SH SYNOPSIS")
            .nth(1)
            .unwrap();
        let sub = page
            .trim_end_matches(".1")
            .strip_prefix("kubectl-karmada_policy-")
            .map(|s| format!(" {s}"))
            .unwrap_or_default();
        assert!(
            synopsis.starts_with(&format!("kubectl karmada-policy{sub} ")),
            "{page}: {synopsis}"
        );
        assert!(
            !plain.contains("kubectl-karmada_policy-suspend ["),
            "{page}"
        );
        if !sub.is_empty() {
            let help = stdout(&run(&[sub.trim(), "--help"], &[]));
            let example = help
                .lines()
                .find(|l| l.trim_start().starts_with("kubectl karmada-policy"))
                .unwrap()
                .trim();
            assert!(plain.contains(example), "{page}: no example `{example}`");
        }
        assert!(plain.contains("kubectl(1)"), "{page}");
    }
    let suspend = std::fs::read_to_string(dir.path().join("kubectl-karmada_policy-suspend.1"))
        .unwrap()
        .replace("\\-", "-");
    assert!(suspend.contains("cancelled: the confirmation prompt was declined"));
    assert!(!dir.path().join("kubectl-karmada_policy-man.1").exists());
}
