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
trees does not edit their files; it names the environments to choose from.

Exit codes:
  0  success (also when nothing needed to change: \"already suspended on member2\")
  1  some objects failed (each reported), e.g. conflicts past the retry budget
  2  usage error, unreadable input or an unknown --context
  3  API or authentication failure";

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
  rule severities or `off`, feature gates, Karmada version, known clusters, ignored paths.
  An object can silence a rule for itself with the annotation
  `karmada-policy.io/ignore: \"RULE-ID: reason\"` (a reason is required).

Git:
  --rev REV lints a revision's tree, --staged the index (pre-commit), without touching either;
  --base REV compares with the merge base of REV and HEAD: new findings only (--all-findings
  for every one), ownership changes of templates, updates Karmada rejects (schedulerName,
  permanent-id). Files are named by their path in the repository. In these modes
  `suspension-age` warns about suspensions older than maxSuspensionAge (blame).

Exit codes:
  0  nothing at or above --fail-on (default: error)
  1  findings at or above --fail-on
  2  usage error, bad configuration or unreadable input; not a git repository, an unknown
     revision or a shallow clone without the base (git modes)";

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

pub const EXPLAIN_AFTER_HELP: &str = "\
Exit codes:
  0  success
  2  usage error, unreadable input, an unknown template or --context
  3  API or authentication failure (live mode)";

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

pub const PREEMPT_CHECK_AFTER_HELP: &str = "\
Exit codes:
  0  success
  1  a takeover is blocked and --fail-on-blocked is set
  2  usage error, unreadable input or an unknown --context
  3  API or authentication failure (live mode)";

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
  yaml, or markdown (a pull-request comment under GitHub's 65,536-character limit).

Exit codes (as kubectl diff):
  0  no change
  1  changes
  2  usage error, unreadable input, not a git repository or an unknown revision
  3  API or authentication failure (live mode)
  4  a hazard, with --fail-on-hazard";

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

pub const COMPLETION_AFTER_HELP: &str = "\
Exit codes:
  0  success
  2  usage error, or the shim cannot be written";

pub const VERSION_EXAMPLES: &str = "\
Examples:
  kubectl karmada-policy version
  kubectl karmada-policy version -o json";

pub const VERSION_AFTER_HELP: &str = "\
Exit codes:
  0  success";

/// kubectl's help layout for every subcommand: description, Examples, options, usage, then
/// the sections of `after_help` (exit codes last).
pub const HELP_TEMPLATE: &str = "\
{about-with-newline}
{before-help}{all-args}

{usage-heading} {usage}{after-help}";

pub const EXIT_CODES: &str = "\
Exit codes:
  0  success: nothing at or above the failure threshold (plan: no change)
  1  findings at or above --fail-on (lint), blocked takeovers with --fail-on-blocked
     (preempt-check), some objects failed (suspend/resume), or changes (plan)
  2  usage error, unreadable input or an unknown --context
  3  API or authentication failure (live mode)
  4  a hazard with --fail-on-hazard (plan)";
