//! The help texts of the subcommands: examples (before the options) and the sections after
//! them (exit codes last), kubectl's layout. The flags' own help stays with their definitions
//! in `cli`.

pub const SUSPEND_EXAMPLES: &str = "\
Examples:
  # Stop dispatching nginx to two clusters, live
  kubectl karmada-policy suspend pp/nginx -n web --clusters member2,member3
  # Every policy of a namespace, without asking, with a reason recorded
  kubectl karmada-policy suspend --all -n web --yes --reason \"freeze for incident 42\"
  # GitOps: show the edit of a manifest file, write nothing
  kubectl karmada-policy suspend -f policies/nginx.yaml pp/nginx --dry-run
  # Kustomize: suspend in the prod overlay only (its patch, or a new one it lists)
  kubectl karmada-policy suspend -f apps/web/overlays/prod pp/web --dry-run
  kubectl karmada-policy suspend -f . --env apps/web/overlays/prod pp/web
  # Freeze clusters: every policy of every namespace that targets them
  kubectl karmada-policy suspend --clusters member2,member3 -A --reason \"maintenance\"
  kubectl karmada-policy suspend --clusters member2 -f manifests/ --dry-run";

pub const RESUME_EXAMPLES: &str = "\
Examples:
  # Dispatch nginx to member2 again, live
  kubectl karmada-policy resume pp/nginx -n web --clusters member2
  # Lift a freeze of clusters (what suspend --clusters added, nothing older)
  kubectl karmada-policy resume --clusters member2,member3 -A
  # GitOps: resume in manifest files
  kubectl karmada-policy resume -f policies/ pp/nginx";

pub const SUSPEND_AFTER_HELP: &str = "\
Policies: pp/NAME, cpp/NAME (also propagationpolicy/NAME, clusterpropagationpolicy/NAME), or a
type followed by names (`pp a b`); -l SELECTOR or --all select by label or everything.

Freeze: --clusters with no policy named (and no --all) acts on every PropagationPolicy of the
namespace (-A: of all namespaces, and every ClusterPropagationPolicy) whose target clusters (its
bindings' spec.clusters, else the placement's cluster names) include a given cluster; -l narrows.
It prints a table first, records what it added in the karmada-policy.io/freeze annotation (time,
user, --reason; SOURCE_DATE_EPOCH fixes the time), and `resume --clusters` with no policy named
lifts exactly that, leaving earlier suspensions in place. The same with -f DIR.

Kustomize: -f DIR naming a kustomization (or a file beside one), or --env DIR under -f, edits
that layer only. An overlay changes its own patch for the policy, else gets a new strategic-merge
patch listed under `patches:` of its kustomization.yaml; never its base or a sibling. A base is
edited in place and a note names the environments built on it. A directory holding kustomize
trees does not edit their files; it names the environments to choose from.";

pub const RESUME_AFTER_HELP: &str = "\
Policies: pp/NAME, cpp/NAME (also propagationpolicy/NAME, clusterpropagationpolicy/NAME), or a
type followed by names (`pp a b`); -l SELECTOR or --all select by label or everything.

Resuming clears spec.suspension for the clusters given (all clusters without --clusters) and
removes the reason, user and time annotations `suspend --reason` recorded once nothing stays
suspended.

Lifting a freeze: --clusters with no policy named (and no --all) undoes exactly what `suspend
--clusters` added (recorded in the karmada-policy.io/freeze annotation) on every policy of the
namespace (-A: of all namespaces, and every ClusterPropagationPolicy) that holds it; suspensions
made otherwise stay. It prints a table first. The same with -f DIR, where the files come back as
they were before the freeze.

Kustomize: -f DIR naming a kustomization (or a file beside one), or --env DIR under -f, edits
that layer only: the overlay's patch for the policy (a patch the freeze created is removed with
its `patches:` entry), never its base or a sibling.";

pub const LINT_EXAMPLES: &str = "\
Examples:
  # Files and directories (recursive over .yaml, .yml and .json), or - for stdin
  kubectl karmada-policy lint deploy/ policies/
  helm template charts/app | kubectl karmada-policy lint -
  # Several formats in one run; fail on warnings too
  kubectl karmada-policy lint -o text -o sarif=lint.sarif --fail-on warning .
  # Only what a pull request changes, against its base
  kubectl karmada-policy lint --base origin/main
  # The policies of the live control plane
  kubectl karmada-policy lint --live
  # Every rule, and one rule's documentation
  kubectl karmada-policy lint --list-rules
  kubectl karmada-policy lint --explain preemption-requires-name";

pub const LINT_AFTER_HELP: &str = "\
Output:
  -o text|json|sarif|github|junit, repeatable; FORMAT=FILE writes that format to a file,
  e.g. `-o text -o sarif=lint.sarif -o junit=lint.xml`. At most one format goes to stdout.
  junit: JUnit XML (GitLab, Jenkins, Azure), one test case per rule and object.

Configuration:
  .karmada-policy.yaml is looked up from the current directory upwards (or --config):
  rule severities or `off`, feature gates and controller-manager flags, Karmada version,
  known clusters, extra scheduler names, ignored paths.
  An object can silence a rule for itself with the annotation
  `karmada-policy.io/ignore: \"RULE-ID: reason\"` (a reason is required).

Git:
  --rev REV lints a revision's tree, --staged the index (pre-commit), without touching either;
  --base REV compares with the merge base of REV and HEAD: new findings only (--all-findings
  for every one), ownership changes of templates, updates Karmada rejects (schedulerName,
  permanent-id). Files are named by their path in the repository. In these modes
  `suspension-age` warns about suspensions older than maxSuspensionAge (blame).";

pub const EXPLAIN_EXAMPLES: &str = "\
Examples:
  # Which policy claims deploy/nginx in these manifests, and why
  kubectl karmada-policy explain deploy/nginx -n web -f manifests/
  # The same against the control plane of the current kubeconfig context
  kubectl karmada-policy explain deploy/nginx -n web
  # As JSON, or the candidates as a graph
  kubectl karmada-policy explain cm/settings -f manifests/ -o json
  kubectl karmada-policy explain deploy/nginx -f manifests/ --graph mermaid
  # In a GitOps repository (kustomize, Flux, Argo CD): rendered, in the prod environment;
  # without --env, the one environment holding the template, else a section per environment
  kubectl karmada-policy explain deploy/web -n web -f . --env prod";

pub const PREEMPT_CHECK_EXAMPLES: &str = "\
Examples:
  # What applying takeover.yaml would move, with preemption enabled
  kubectl karmada-policy preempt-check -f state/ --apply takeover.yaml \\
    --feature-gates PropagationPolicyPreemption=true
  # Deleting a policy, then applying its replacement (in this order)
  kubectl karmada-policy preempt-check -f state/ --delete pp/web/old --apply new.yaml
  # In CI: fail when a takeover would be blocked
  kubectl karmada-policy preempt-check -f state/ --apply takeover.yaml --fail-on-blocked
  # In a GitOps repository: rendered, in one environment (without --env: one section each)
  kubectl karmada-policy preempt-check -f . --env prod --apply takeover.yaml";

pub const PLAN_EXAMPLES: &str = "\
Examples:
  # What this pull request does to the fleet, per environment and member cluster
  kubectl karmada-policy plan --base origin/main
  # Only some directories of the repository, one environment, as JSON
  kubectl karmada-policy plan --base origin/main deploy/ --env clusters/prod -o json
  # The comment of a pull request (what the GitHub Action posts)
  kubectl karmada-policy plan --base \"$BASE_SHA\" -o markdown > plan.md
  # What applying files to the control plane would do, as kubectl diff -f
  kubectl karmada-policy plan -f policies/
  # Removing a policy and its override together, live
  kubectl karmada-policy plan --delete pp/shop/web --delete op/shop/web-zero
  # In CI: fail on a hazard (a removed policy still holding templates, ...)
  kubectl karmada-policy plan --base origin/main --fail-on-hazard";

pub const PLAN_AFTER_HELP: &str = "\
States:
  --base REV compares the merge base of REV and HEAD with the working tree (or --rev), over
  plain manifests or each environment of a GitOps repository (kustomize, Helm, Flux, Argo CD)
  as lint --base renders them. Without --base, the live control plane (policies, overrides,
  bindings, Clusters and the templates the change reaches) is compared with the same after
  applying -f FILE... and deleting --delete TYPE/[NS/]NAME..., as kubectl diff -f does.

Output:
  -o text (a summary per environment, then the details), json (the contract of docs/plan.md),
  yaml, or markdown (a pull-request comment under GitHub's 65,536-character limit).";

pub const COMPLETION_EXAMPLES: &str = "\
Examples:
  # bash (add to ~/.bashrc)
  source <(kubectl-karmada_policy completion bash)
  # zsh: a file named _kubectl-karmada_policy on $fpath
  kubectl-karmada_policy completion zsh > \"${fpath[1]}/_kubectl-karmada_policy\"
  # fish
  kubectl-karmada_policy completion fish > ~/.config/fish/completions/kubectl-karmada_policy.fish
  # `kubectl karmada-policy <TAB>` (kubectl >= 1.26): writes kubectl_complete-karmada_policy
  # next to the binary (for krew: ~/.krew/bin)
  kubectl karmada-policy completion kubectl-plugin";

pub const VERSION_EXAMPLES: &str = "\
Examples:
  kubectl karmada-policy version
  kubectl karmada-policy version -o json";

/// kubectl's help layout for every subcommand: description, Examples, options, usage, then
/// the sections of `after_help` (exit codes last).
pub const HELP_TEMPLATE: &str = "\
{about-with-newline}
{before-help}{all-args}

{usage-heading} {usage}{after-help}";

/// The exit codes, one meaning each for every subcommand (`cli::Exit` maps errors to them):
/// code, name, what it means. The root `--help`, the man pages and docs/exit-codes.md show
/// this table; a subcommand's help shows the rows it can end with, naming what each is there.
pub const EXIT_CODES: &[(u8, &str, &str)] = &[
    (
        0,
        "success",
        "the command did what it was asked, also when nothing needed to change",
    ),
    (
        1,
        "failure",
        "the command ran and did not succeed: findings at or above --fail-on (lint), a \
         blocked takeover with --fail-on-blocked (preempt-check), a policy that could not be \
         changed (suspend, resume), an object named that is not in what was read while a part \
         was left unread (explain, preempt-check, suspend, resume); for plan, as for kubectl \
         diff: the change changes something (or a root that did not render leaves it unknown)",
    ),
    (
        2,
        "usage or configuration error",
        "bad flags or arguments, unreadable input, a kubeconfig that cannot be read or used, \
         an unknown --context, an invalid .karmada-policy.yaml",
    ),
    (
        3,
        "API failure",
        "the control plane cannot be reached, refuses the credentials or the request, or fails",
    ),
    (
        4,
        "not found",
        "a named template or policy does not exist, in the files or on the control plane",
    ),
    (
        5,
        "cancelled",
        "the confirmation prompt was declined; nothing was changed",
    ),
    (
        6,
        "hazard",
        "the change has a hazard and --fail-on-hazard is set (plan)",
    ),
];

/// The codes each command can end with (the whole table for the command itself).
pub fn exit_codes_of(command: Option<&str>) -> &'static [u8] {
    match command {
        None => &[0, 1, 2, 3, 4, 5, 6],
        Some("lint") => &[0, 1, 2, 3],
        Some("explain") => &[0, 1, 2, 3, 4],
        Some("preempt-check") => &[0, 1, 2, 3, 4],
        Some("plan") => &[0, 1, 2, 3, 4, 6],
        Some("suspend" | "resume") => &[0, 1, 2, 3, 4, 5],
        Some("completion") => &[0, 2],
        _ => &[0],
    }
}

/// What a code is for one command, where it says more than the table's general text.
fn exit_detail(command: Option<&str>, code: u8) -> Option<&'static str> {
    Some(match (command?, code) {
        ("lint", 0) => "nothing at or above --fail-on (default: error)",
        ("lint", 1) => "findings at or above --fail-on",
        ("lint", 2) => {
            "bad flags, configuration or unreadable input; not a git repository, an unknown \
             revision or a shallow clone without the base (git modes)"
        }
        ("lint", 3) => "the control plane failed (live mode)",
        ("preempt-check", 1) => {
            "a takeover is blocked and --fail-on-blocked is set, or a --delete target is not in \
             what was read and a document that does not parse or a root that did not render \
             may hold it"
        }
        ("plan", 0) => "no change",
        ("plan", 1) => {
            "changes (as kubectl diff: not an error), or a root that did not render was not \
             compared"
        }
        ("plan", 2) => {
            "bad flags or unreadable input; not a git repository, an unknown revision or a \
             shallow clone without the base (--base)"
        }
        ("plan", 3) => "the control plane failed (live mode)",
        ("plan", 4) => "an object named with --delete does not exist on the control plane",
        ("suspend" | "resume", 0) => {
            "done, also when nothing needed to change (\"already suspended on member2\")"
        }
        ("suspend" | "resume", 1) => {
            "some policy could not be changed (each reported), e.g. conflicts past the retry \
             budget, a change Karmada would reject"
        }
        ("suspend" | "resume", 4) => "a policy named does not exist (each reported)",
        ("explain", 1) => {
            "the template or policy named is not in what was read, and a document that does not \
             parse or a root that did not render may hold it"
        }
        ("explain", 4) => "the template or policy named does not exist",
        ("preempt-check", 4) => "a policy named with --delete does not exist",
        ("completion", 2) => "bad flags, or the shim cannot be written",
        _ => return None,
    })
}

/// The codes `command` can end with, each as `name: meaning` (the meaning said for that
/// command where it says more than the table's general text).
pub fn exit_rows(command: Option<&str>) -> Vec<(u8, String)> {
    exit_codes_of(command)
        .iter()
        .map(|&code| {
            let (_, name, general) = EXIT_CODES
                .iter()
                .find(|(c, _, _)| *c == code)
                .expect("a row per code");
            let meaning = exit_detail(command, code).unwrap_or(general);
            (code, format!("{name}: {meaning}"))
        })
        .collect()
}

/// `  N  name: meaning`, wrapped at 100 columns.
fn exit_line(code: u8, text: &str) -> String {
    let mut out = String::new();
    let mut words = text.split(' ');
    let mut line = format!("  {code}  {}", words.next().unwrap_or(""));
    for word in words {
        if line.len() + 1 + word.len() > 100 {
            out.push_str(&line);
            out.push('\n');
            line = "    ".to_string();
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out
}

/// The `Exit codes:` section of `command`'s help: the table's rows it can end with.
pub fn exit_codes_section(command: Option<&str>) -> String {
    let lines: Vec<String> = exit_rows(command)
        .iter()
        .map(|(code, text)| exit_line(*code, text))
        .collect();
    format!("Exit codes:\n{}", lines.join("\n"))
}

/// `after_help` of a command: its own sections (if any), then its exit codes.
pub fn after_help(command: Option<&str>, sections: &str) -> String {
    let codes = exit_codes_section(command);
    if sections.is_empty() {
        codes
    } else {
        format!("{sections}\n\n{codes}")
    }
}
