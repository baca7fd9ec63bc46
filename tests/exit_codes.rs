//! One exit-code table, one meaning per code: the codes the commands end with in the cases the
//! table names (bad configuration, not found, a declined prompt), the table in `--help` and in
//! docs/exit-codes.md.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::json;
use support::{cluster, pp, TestServer};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

fn run(args: &[&str], kubeconfig: Option<&Path>) -> Output {
    let mut c = Command::new(BIN);
    c.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("HOME", "/nonexistent")
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null());
    if let Some(k) = kubeconfig {
        c.env("KUBECONFIG", k);
    }
    c.output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn server() -> (TestServer, tempfile::TempDir, std::path::PathBuf) {
    let s = TestServer::start();
    s.insert(cluster("member1", true));
    s.insert(pp(
        "default",
        "nginx",
        json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
               "placement": {"clusterAffinity": {"clusterNames": ["member1"]}}}),
    ));
    s.insert(pp(
        "default",
        "web",
        json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
               "placement": {"clusterAffinity": {"clusterNames": ["member1"]}}}),
    ));
    let dir = tempfile::tempdir().unwrap();
    let kc = s.kubeconfig(dir.path());
    (s, dir, kc)
}

#[test]
fn a_bad_kubeconfig_and_an_unknown_context_are_bad_configuration_everywhere() {
    let (_s, _dir, kc) = server();
    let kc = kc.to_str().unwrap();
    for cmd in [
        vec!["explain", "deploy/nginx"],
        vec!["explain", "pp/nginx"],
        vec!["suspend", "pp/nginx"],
        vec!["resume", "--clusters", "member1", "-A", "--yes"],
        vec!["preempt-check", "--delete", "pp/default/nginx"],
        vec!["lint", "--live"],
    ] {
        let missing = [cmd.clone(), vec!["--kubeconfig", "/nonexistent"]].concat();
        let o = run(&missing, None);
        assert_eq!(code(&o), 2, "{missing:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("/nonexistent"), "{}", stderr(&o));
        let context = [cmd.clone(), vec!["--kubeconfig", kc, "--context", "nope"]].concat();
        let o = run(&context, None);
        assert_eq!(code(&o), 2, "{context:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("context \"nope\""), "{}", stderr(&o));
    }
}

#[test]
fn not_found_is_four_in_explain_and_suspend_live_and_in_files() {
    let (_s, _dir, kc) = server();
    for args in [
        vec!["explain", "pp/nope"],
        vec!["explain", "deploy/nope"],
        vec!["suspend", "pp/nope"],
        vec!["resume", "pp/nope"],
        vec![
            "explain",
            "deploy/nope",
            "-f",
            "testdata/lint/showcase.yaml",
        ],
        vec!["explain", "pp/nope", "-f", "testdata/lint/showcase.yaml"],
    ] {
        let o = run(&args, Some(&kc));
        assert_eq!(code(&o), 4, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("not found"), "{args:?}: {}", stderr(&o));
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::write(
        &file,
        "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: a\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n",
    )
    .unwrap();
    let o = run(&["suspend", "-f", file.to_str().unwrap(), "pp/nope"], None);
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    // One found and one not: the missing one decides (nothing worse happened).
    let o = run(&["suspend", "pp/nginx", "pp/nope", "--yes"], Some(&kc));
    assert_eq!(code(&o), 4, "{}", stderr(&o));
    // preempt-check's --delete of a policy neither the inputs nor a claim name.
    for args in [
        vec!["preempt-check", "--delete", "pp/default/nope"],
        vec![
            "preempt-check",
            "-f",
            "testdata/lint/showcase.yaml",
            "--delete",
            "pp/default/nope",
        ],
    ] {
        let o = run(&args, Some(&kc));
        assert_eq!(code(&o), 4, "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("no such policy"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// `script` (util-linux) gives the binary a terminal, so it asks; the answer comes on stdin.
#[test]
fn declining_the_prompt_is_five_and_changes_nothing() {
    let have_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_script {
        eprintln!("SKIPPED: no `script` (util-linux) to give the binary a terminal");
        return;
    }
    let (s, _dir, kc) = server();
    let writes = s.writes();
    let line = format!(
        "{BIN} suspend --all -n default --kubeconfig {}",
        kc.display()
    );
    let answer = |text: &[u8]| {
        use std::io::Write;
        let mut child = Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(text).unwrap();
        child.wait_with_output().unwrap()
    };
    let o = answer(b"n\n");
    let shown = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        shown.contains("suspend 2 policies on all clusters? [y/N]"),
        "{shown}"
    );
    assert_eq!(code(&o), 5, "{shown}");
    assert!(shown.contains("aborted: nothing was changed"), "{shown}");
    assert_eq!(s.writes(), writes);
    let o = answer(b"y\n");
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stdout));
    assert!(s.writes() > writes);
}

#[test]
fn no_subcommand_prints_the_help_on_stdout_and_exits_zero() {
    let o = run(&[], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(help.contains("Usage: kubectl karmada-policy"), "{help}");
    assert!(help.contains("Exit codes:"), "{help}");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

/// `  N  name: ...` lines of a help's `Exit codes:` section, as (code, name).
fn help_codes(help: &str) -> Vec<(u8, String)> {
    let section = &help[help.find("Exit codes:\n").expect("an exit codes section")..];
    section
        .lines()
        .skip(1)
        .filter_map(|l| {
            let rest = l.strip_prefix("  ")?;
            let (n, rest) = rest.split_once("  ")?;
            Some((n.parse().ok()?, rest.split_once(':')?.0.to_string()))
        })
        .collect()
}

#[test]
fn every_help_and_the_docs_show_the_same_table() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/exit-codes.md"))
            .unwrap();
    let table: Vec<(u8, String, String)> = docs
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            let code = cells.first()?.parse().ok()?;
            Some((code, cells.get(1)?.to_string(), cells.get(2)?.to_string()))
        })
        .collect();
    let codes: Vec<u8> = table.iter().map(|r| r.0).collect();
    assert_eq!(codes, [0, 1, 2, 3, 4, 5, 6], "{docs}");
    let root = String::from_utf8_lossy(&run(&["--help"], None).stdout).into_owned();
    for (code, name, meaning) in &table {
        // The root help shows each row whole (wrapped at 100 columns).
        let flat = root.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(&format!("{code} {name}: {meaning}")),
            "{code}:\n{root}"
        );
    }
    for sub in [
        "lint",
        "explain",
        "preempt-check",
        "plan",
        "suspend",
        "resume",
        "completion",
        "version",
    ] {
        let help = String::from_utf8_lossy(&run(&[sub, "--help"], None).stdout).into_owned();
        for (code, name) in help_codes(&help) {
            let row = table
                .iter()
                .find(|r| r.0 == code)
                .expect("a documented code");
            assert_eq!(name, row.1, "{sub}: code {code}");
        }
    }
}

/// The library's side of the table: each documented code is an `Exit`, and the errors of bad
/// configuration, a missing object and a declined prompt map to theirs.
#[test]
fn errors_map_to_the_table_s_codes() {
    use karmada_policy::cli::{CliError, Exit};
    use karmada_policy::kube::KubeError;
    use karmada_policy::source::session::SessionError;
    let rows: Vec<u8> = karmada_policy::output::help::EXIT_CODES
        .iter()
        .map(|r| r.0)
        .collect();
    let all = [
        Exit::Ok,
        Exit::Failure,
        Exit::Usage,
        Exit::Api,
        Exit::NotFound,
        Exit::Declined,
        Exit::Hazard,
    ];
    assert_eq!(rows, all.map(|e| e as u8));
    let unknown = KubeError::UnknownContext {
        context: "nope".into(),
        contexts: vec![],
    };
    let unreadable = KubeError::ReadKubeconfig {
        path: "/nonexistent".into(),
        source: std::sync::Arc::new(std::io::Error::from(std::io::ErrorKind::NotFound)),
    };
    for e in [unknown, unreadable] {
        let live = CliError::from(SessionError::Connect(e.clone()));
        let suspend = CliError::from(karmada_policy::ops::suspend::RunError::Connect(e));
        assert_eq!((live.exit(), suspend.exit()), (Exit::Usage, Exit::Usage));
    }
    let missing = karmada_policy::engine::explain_inputs::FindError::NotFound("x".into());
    assert_eq!(CliError::from(missing).exit(), Exit::NotFound);
    assert_eq!(
        CliError::from(SessionError::NotFound("x".into())).exit(),
        Exit::NotFound
    );
    assert_eq!(CliError::Declined.exit(), Exit::Declined);
    let gone = karmada_policy::inspect::InspectError::Missing("pp/shop/web".into());
    assert_eq!(CliError::from(gone).exit(), Exit::NotFound);
}
