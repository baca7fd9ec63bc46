//! `render-failed`: a kustomize (or helm) root of the repository that does not build, and
//! `remote-resource-not-fetched`: one the linter does not build because it would fetch a URL;
//! `renderer-not-found`: one it cannot build because kustomize or helm is not installed.
//! The GitOps rendering (`crate::lint::gitops`) reports them while it reads the inputs, before
//! any other phase: what does not render cannot be checked.

use crate::lint::finding::Severity;
use crate::lint::phase::{Check, Rule};
use crate::lint::rule::{RuleDoc, RuleGroup};

pub const RENDER_FAILED: RuleDoc = RuleDoc {
    id: "render-failed",
    group: RuleGroup::Input,
    default_severity: Severity::Error,
    summary: "kustomize (or helm) cannot build a root of the repository",
    rationale:
        "Flux and Argo CD run the same build; when it fails, nothing of that root is applied \
                and its policies cannot be checked.",
    example: "resources:\n  - missing.yaml\n",
    fix: "Fix the build as the renderer's message says: `kubectl kustomize DIR` shows a \
          kustomization's, `helm template DIR` a chart's. A chart's dependencies are built as \
          Flux and Argo CD build them (`file://` ones offline; one from a chart repository is \
          `remote-resource-not-fetched`); one with no repository must be in its `charts/`.",
    reference: "kustomize build, helm template",
};

pub const REMOTE_RESOURCE: RuleDoc = RuleDoc {
    id: "remote-resource-not-fetched",
    group: RuleGroup::Input,
    default_severity: Severity::Warning,
    summary: "A kustomization names a remote resource, or a chart a dependency from a chart repository, which the linter does not fetch",
    rationale: "kustomize, Flux's kustomize-controller and Argo CD fetch a URL a kustomization names \
                and build the root; Flux's source-controller and Argo CD's repo-server run `helm \
                dependency build` for a chart whose dependencies are not in its `charts/`. The \
                linter runs on untrusted pull requests and requests no URL unless the configuration \
                allows it, so that root or chart is not rendered: its objects, and any policy among \
                them, are not checked. (A chart's `file://` dependencies, charts of the repository \
                itself, are built offline, in a copy of the chart.) The repository is not at fault, \
                so this is a warning; raise it to an error \
                (`rules: {remote-resource-not-fetched: error}`) where an unchecked root must fail \
                the run.",
    example: "resources:\n  - https://github.com/kubernetes-sigs/metrics-server/releases/latest/download/components.yaml\n",
    fix: "Where the repository is trusted, set `gitops.remoteResources: true` in .karmada-policy.yaml; or \
          vendor the resource into the repository.",
    reference: "kustomize api/krusty (remote resources and bases are fetched at build time); fluxcd/pkg kustomize (SecureBuild); \
                fluxcd/source-controller internal/helm/chart (DependencyManager); argo-cd reposerver (helm dependency build)",
};

pub const RENDERER_NOT_FOUND: RuleDoc = RuleDoc {
    id: "renderer-not-found",
    group: RuleGroup::Input,
    default_severity: Severity::Warning,
    summary: "kustomize or helm is not installed, so a root or chart of the repository is not rendered",
    rationale: "Flux and Argo CD render every kustomization and chart they apply; without the \
                renderer the linter cannot, so that root's objects, and any policy among them, \
                are not checked, and its environment reads `not linted: it did not render` (or \
                `linted but for the root that did not render`). A run that found nothing there \
                has not looked. The repository is not at fault, so this is a warning; raise it \
                to an error (`rules: {renderer-not-found: error}`) where CI must not pass \
                without the renderers.",
    example: "# charts/shop/Chart.yaml, linted where helm is not on PATH\napiVersion: v2\nname: shop\nversion: 0.1.0\n",
    fix: "Install the renderer where the linter runs (kubectl or kustomize for \
          kustomizations, helm for charts), or set its path: `gitops.kustomize`, \
          `gitops.helm` in .karmada-policy.yaml.",
    reference: "kustomize build, helm template; fluxcd/kustomize-controller and \
                helm-controller; argo-cd reposerver",
};

pub static RULE: Rule = Rule {
    docs: &[RENDER_FAILED, REMOTE_RESOURCE, RENDERER_NOT_FOUND],
    checks: &[Check::Rendering],
};

/// Whether a finding of `rule` says that the run left something out: a root or chart that did
/// not render, or a document whose templating was not rendered. A comparison of two revisions
/// cannot see what such a part holds, so it is shown with every comparison, never taken as
/// settled because the base had it too.
pub fn leaves_out(rule: &str) -> bool {
    [
        RENDER_FAILED.id,
        REMOTE_RESOURCE.id,
        RENDERER_NOT_FOUND.id,
        crate::lint::rules::input::UNRENDERED_TEMPLATE.id,
    ]
    .contains(&rule)
}
