//! `render-failed`: a kustomize (or helm) root of the repository that does not build. The GitOps
//! rendering (`crate::lint::gitops`) reports it while it reads the inputs, before any other
//! phase: what does not render cannot be checked.

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
          kustomization's, `helm template DIR` a chart's; a chart whose dependencies are not in \
          its `charts/` directory needs `helm dependency build DIR` first.",
    reference: "kustomize build, helm template",
};

pub static RULE: Rule = Rule {
    docs: &[RENDER_FAILED],
    checks: &[Check::Rendering],
};
