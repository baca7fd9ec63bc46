//! What the semantic rules share: the engine's snapshot of the inputs and, per template, what
//! Karmada converges to (the restart model, claim-and-preemption.md §7). Built once per run.

use std::sync::Arc;

use crate::engine::reconcile::{settle, Settled};
use crate::engine::selector::{selector_priority, ImplicitPriority};
use crate::engine::state::{FeatureGates, Options, PolicyEntry, State};
use crate::model::Inventory;
use crate::source::{FieldPath, Source, Span};

use super::{Finding, LintOptions, RuleDoc};

pub struct Analysis<'a> {
    pub inventory: &'a Inventory,
    pub state: State,
    /// Per template (same index as `state.templates`).
    pub settled: Vec<Settled>,
    /// Per template: every policy that matches it, with its implicit priority (computed once;
    /// several rules read it).
    pub matches: Vec<Vec<(usize, ImplicitPriority)>>,
}

/// The controller's preemption gate from the lint options: `PropagationPolicyPreemption`,
/// else `AllAlpha` (it is an Alpha gate), else off (Karmada's default).
pub fn gates(opts: &LintOptions) -> FeatureGates {
    let g = &opts.feature_gates;
    FeatureGates {
        preemption: g
            .get("PropagationPolicyPreemption")
            .or_else(|| g.get("AllAlpha"))
            .copied()
            .unwrap_or(false),
    }
}

impl<'a> Analysis<'a> {
    pub fn new(inventory: &'a Inventory, opts: &LintOptions) -> Analysis<'a> {
        let options = Options {
            gates: gates(opts),
            version: opts.version,
            ..Options::default()
        };
        let state = State::from_inventory(inventory, options);
        let settled = (0..state.templates.len())
            .map(|t| settle(&state, t))
            .collect();
        let matches = (0..state.templates.len())
            .map(|t| state.matching_policies(t))
            .collect();
        Analysis {
            inventory,
            state,
            settled,
            matches,
        }
    }

    /// Where a policy's document is, and the span of `path` in it.
    pub fn policy_span(&self, p: &PolicyEntry, path: &FieldPath) -> Option<(Arc<Source>, Span)> {
        let doc = &self.inventory.documents[p.doc?];
        Some((doc.source.clone(), doc.root.locate(path)))
    }

    /// The path of the first selector of policy `p` that matches template `t`.
    pub fn matching_selector(&self, p: usize, t: usize) -> FieldPath {
        let pol = self.state.policy(p);
        let target = self.state.templates[t].target();
        let i = pol
            .spec
            .resource_selectors
            .iter()
            .position(|rs| selector_priority(&target, rs).matches())
            .unwrap_or(0);
        FieldPath::parse("spec.resourceSelectors").index(i)
    }

    /// A finding about policy `p` at `path` in its document.
    pub fn policy_finding(
        &self,
        p: usize,
        doc: &RuleDoc,
        path: &FieldPath,
        message: String,
    ) -> Finding {
        let pol = self.state.policy(p);
        let mut f = Finding::new(doc.id, doc.default_severity, message)
            .field(path.to_string())
            .object(crate::model::ObjectRef {
                api_version: crate::model::POLICY_API_VERSION.to_string(),
                kind: pol.kind.as_str().to_string(),
                namespace: pol.is_pp().then(|| pol.namespace.clone()),
                name: pol.name.clone(),
            });
        if let Some((source, span)) = self.policy_span(pol, path) {
            f = f.at(&source, span);
        }
        f.doc = pol.doc;
        f
    }

    /// "deployment/default/nginx", or "deployment/default/nginx and 3 more".
    pub fn describe_templates(&self, templates: &[usize]) -> String {
        let first = self.state.templates[templates[0]].reference().to_string();
        match templates.len() {
            1 => first,
            n => format!("{first} and {} more", n - 1),
        }
    }
}
