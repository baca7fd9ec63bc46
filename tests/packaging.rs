//! What ships around the binary: the generated rule docs, the krew manifest, the pre-commit hooks.

use std::path::{Path, PathBuf};
use std::process::Command;

use karmada_policy::lint::registry;
use karmada_policy::output::rule_docs;

/// A visible skip: the test harness captures `eprintln!`, not writes to the stderr handle.
fn skip(reason: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "\nSKIPPED: {reason}");
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// docs/rules.md, the rule table and every rule's docs, is what the registry renders.
#[test]
fn rules_page_matches_the_registry() {
    let docs_path = root().join("docs/rules.md");
    let want_docs = rule_docs::markdown_reference();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&docs_path, &want_docs).unwrap();
        return;
    }
    let docs = std::fs::read_to_string(&docs_path).unwrap_or_default();
    assert!(
        docs == want_docs,
        "docs/rules.md is out of date: run `UPDATE_DOCS=1 cargo test --test packaging`"
    );
    for r in registry::docs() {
        assert!(
            docs.contains(&format!("| [`{id}`](#{id}) |", id = r.id)),
            "docs/rules.md's table has no row for {}",
            r.id
        );
    }
}

#[test]
fn every_rule_is_documented_and_ids_are_unique() {
    let rules = registry::all();
    let mut ids: Vec<_> = rules.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(before, ids.len(), "duplicate rule ids");
    for r in &rules {
        assert!(!r.summary.is_empty() && !r.rationale.is_empty(), "{}", r.id);
        assert!(!r.example.is_empty() && !r.fix.is_empty(), "{}", r.id);
        assert!(
            r.id.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "rule id `{}` is not kebab-case",
            r.id
        );
    }
}

/// A rule's docs (`lint --explain RULE`, docs/rules.md) cite Karmada's source or docs, never a
/// specification document a user cannot open (`admission-chain.md §5.2`).
#[test]
fn rule_docs_cite_no_specification_document() {
    let spec_reference = |text: &str| -> Option<String> {
        let words = text.split(|c: char| c.is_whitespace() || "();,`*".contains(c));
        let named = words.filter(|w| w.ends_with(".md")).map(str::to_string);
        named
            .chain(text.contains('§').then(|| "§".to_string()))
            .next()
    };
    for r in registry::docs() {
        let text = rule_docs::explain_rule(r);
        if let Some(found) = spec_reference(&text) {
            panic!("`lint --explain {}` names `{found}`:\n{text}", r.id);
        }
    }
    let reference = rule_docs::markdown_reference();
    assert_eq!(spec_reference(&reference), None, "docs/rules.md");
    // The check sees such a reference: the kind of text these docs held before.
    assert_eq!(
        spec_reference(
            "pkg/util/validation/validation.go:105-107; validation-suspension-failover.md §1.3"
        ),
        Some("validation-suspension-failover.md".to_string())
    );
}

/// The pages whose example outputs are checked: the README and every page under docs/.
fn documentation_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    pages.insert(0, root().join("README.md"));
    pages
}

/// `text` with each ```text block under `<!-- output: ARGS [| head N] -->` replaced by what
/// `kubectl-karmada_policy ARGS` prints (without colour), or its first N lines; and how many
/// blocks there were.
fn with_current_outputs(text: &str) -> (String, usize) {
    let mut want = String::new();
    let mut rest = text;
    let mut examples = 0;
    while let Some(at) = rest.find("<!-- output: ") {
        let marker_end = at
            + rest[at..]
                .find(" -->\n```text\n")
                .expect("marker then ```text");
        let spec = &rest[at + "<!-- output: ".len()..marker_end];
        let (args, head) = match spec.split_once(" | head ") {
            Some((a, n)) => (a, Some(n.parse::<usize>().expect("head N"))),
            None => (spec, None),
        };
        let body_start = marker_end + " -->\n```text\n".len();
        let body_end = body_start + rest[body_start..].find("```\n").expect("closing fence");
        let o = Command::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
            .args(args.split_whitespace())
            .current_dir(root())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        let lines: Vec<&str> = out.lines().take(head.unwrap_or(usize::MAX)).collect();
        want.push_str(&rest[..body_start]);
        want.push_str(&lines.join("\n"));
        want.push('\n');
        rest = &rest[body_end..];
        examples += 1;
    }
    want.push_str(rest);
    (want, examples)
}

/// The example outputs of the README and of every docs/ page are what the tool prints.
#[test]
fn example_outputs_in_the_docs_are_what_the_tool_prints() {
    let mut stale = Vec::new();
    for path in documentation_pages() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (want, examples) = with_current_outputs(&text);
        let name = path.strip_prefix(root()).unwrap().display().to_string();
        if name == "README.md" {
            assert!(
                examples > 0,
                "no `<!-- output: ... -->` marker in README.md"
            );
        }
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &want).unwrap();
        } else if text != want {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "example output out of date in {stale:?}: run `UPDATE_DOCS=1 cargo test --test packaging`"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation dropped but `-` and `_`, spaces as `-`.
fn heading_anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown page's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(heading_anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// Every relative link of the README and the docs/ pages reaches a file of the repository, and a
/// `#fragment` a heading of that page: the pages moved out of the README link to each other.
#[test]
fn links_between_the_docs_resolve() {
    let mut broken = Vec::new();
    for page in documentation_pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for (i, _) in text.match_indices("](") {
            let target = &text[i + 2..];
            let target = &target[..target.find(')').unwrap_or(target.len())];
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let linked = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            let name = page.strip_prefix(root()).unwrap().display();
            if !linked.exists() {
                broken.push(format!("{name}: {target} (no such file)"));
            } else if !fragment.is_empty() {
                let linked_text = std::fs::read_to_string(&linked).unwrap_or_default();
                if !anchors(&linked_text).iter().any(|a| a == fragment) {
                    broken.push(format!("{name}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

// The krew manifest's checks are in tests/release.rs, beside the archives they describe.

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn pre_commit_hook_fails_on_a_bad_policy_and_passes_on_a_good_one() {
    if Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_err()
    {
        skip("pre-commit is not installed (.ci/run installs it: scripts/tools-venv.sh)");
        return;
    }
    if Command::new("git").arg("--version").output().is_err() {
        skip("git is not installed");
        return;
    }
    // The hooks come from this repository, at a commit, exactly as users reference them.
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root())
        .output()
        .unwrap();
    if !head.status.success() {
        skip("this checkout has no commit for pre-commit to clone");
        return;
    }
    let rev = String::from_utf8(head.stdout).unwrap().trim().to_string();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(
        repo.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: karmada-policy-lint-system\n",
            root().display()
        ),
    )
    .unwrap();
    let bad = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: p\nspec:\n  preemption: Always\n  resourceSelectors:\n    - apiVersion: apps/v1\n      kind: Deployment\n";
    std::fs::write(repo.join("policy.yaml"), bad).unwrap();
    git(&repo, &["add", "."]);
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_kubectl-karmada_policy"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = || {
        Command::new("pre-commit")
            .args(["run", "--all-files"])
            .current_dir(&repo)
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", dir.path().join("cache"))
            .output()
            .unwrap()
    };
    let o = run();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "hook passed on a bad policy: {out}");
    assert!(out.contains("preemption-requires-name"), "{out}");
    std::fs::write(
        repo.join("policy.yaml"),
        bad.replace(
            "      kind: Deployment\n",
            "      kind: Deployment\n      name: web\n",
        ),
    )
    .unwrap();
    git(&repo, &["add", "."]);
    let o = run();
    assert!(
        o.status.success(),
        "hook failed on a good policy: {}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// The shell blocks of the README's "Quick start" section, one command each.
fn quick_start_commands(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Quick start"))
        .expect("README.md has a `## Quick start` section");
    section
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap().trim().to_string())
        .collect()
}

/// The README's two commands, from a clean clone of this commit: the install-and-run line gives
/// what the quick-start snapshot says (so its input is committed, not only in this checkout),
/// and what `cargo install --locked` and `cargo test` need resolves from the committed
/// Cargo.lock. Running `cargo test` itself inside the test would build the project a second
/// time; the binary under test stands for the one `cargo install` builds from the same sources.
#[test]
fn the_readme_s_two_commands_work_from_a_clean_clone() {
    if Command::new("git").arg("--version").output().is_err() {
        skip("git is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("clone");
    let cloned = Command::new("git")
        .args(["clone", "-q"])
        .arg(root())
        .arg(&clone)
        .status()
        .unwrap();
    if !cloned.success() {
        skip("this checkout is not a git repository with a commit to clone");
        return;
    }
    let readme = std::fs::read_to_string(clone.join("README.md")).unwrap();
    let commands = quick_start_commands(&readme);
    assert_eq!(commands.len(), 2, "{commands:?}");
    let (install, run) = commands[0]
        .split_once(" && ")
        .expect("the first command installs, then runs");
    assert_eq!(install, "cargo install --locked --path .");
    assert_eq!(commands[1], "cargo test");
    let args: Vec<&str> = run
        .strip_prefix("kubectl karmada-policy ")
        .expect("the second half runs the plugin through kubectl")
        .split_whitespace()
        .collect();
    // `cargo install` puts the binary on PATH; kubectl finds it there when installed.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::copy(
        env!("CARGO_BIN_EXE_kubectl-karmada_policy"),
        bin.join("kubectl-karmada_policy"),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let through_kubectl = Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output();
    let mut cmd = if through_kubectl.is_ok_and(|o| o.status.success()) {
        let mut c = Command::new("kubectl");
        c.arg("karmada-policy");
        c
    } else {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "\nnote: no kubectl: the plugin runs directly, as the README says it may"
        );
        Command::new(bin.join("kubectl-karmada_policy"))
    };
    let o = cmd
        .args(&args)
        .current_dir(&clone)
        .env("PATH", &path)
        .env("NO_COLOR", "1")
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{run}: {stderr}");
    let want = std::fs::read_to_string(clone.join("tests/snapshots/lint-gitops.txt")).unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{run}");
    // What both cargo commands resolve: the committed lock file, without a network.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let tree = Command::new(cargo)
        .args([
            "tree",
            "--locked",
            "--offline",
            "-q",
            "-e",
            "normal,build,dev",
        ])
        .current_dir(&clone)
        .output()
        .unwrap();
    assert!(
        tree.status.success(),
        "cargo tree --locked in the clone: {}",
        String::from_utf8_lossy(&tree.stderr)
    );
}
