//! What the semantic rules share: the engine's snapshot of the inputs and, per template, what
//! Karmada converges to (the restart model, claim-and-preemption.md §7). Built once per run.

use std::sync::{Arc, OnceLock};

use crate::engine::reconcile::{settle_owner, SettledOwner};
use crate::engine::selector::{selector_priority, ImplicitPriority};
use crate::engine::state::{Options, PolicyEntry, State};
use crate::model::cluster::Cluster;
use crate::model::Inventory;
use crate::source::{FieldPath, Node, Source, Span};

use super::finding::Finding;
use super::options::LintOptions;
use super::rule::RuleDoc;

pub struct Analysis<'a> {
    pub inventory: &'a Inventory,
    pub state: &'a State,
    /// Per template (same index as `state.templates`): the owners the restart model settles
    /// on (the rules need no more of `Settled`, which is five times the size).
    pub settled: Vec<SettledOwner>,
    /// Per template: every policy that matches it, with its implicit priority (computed once;
    /// several rules read it).
    pub matches: Matches,
    /// Per template: whether some policy names it ([`State::is_named`]); only those
    /// can have preemptors.
    pub named: Vec<bool>,
    /// The member clusters the placement rules evaluate against (few: kept whole even when
    /// templates are not).
    pub clusters: KnownClusters,
    /// Whole trees of partial documents ([`crate::source::Document::partial`]), parsed again
    /// the first time a finding needs a position in one; empty when no document is partial.
    /// Boxed: one slot per document, nearly all of them never filled.
    trees: Vec<OnceLock<Box<Node>>>,
}

/// The member clusters a lint run knows: Cluster objects from the inputs (and, live, from the
/// control plane), else the names of `knownClusters`.
#[derive(Clone, Debug, Default)]
pub struct KnownClusters {
    pub clusters: Vec<Cluster>,
    /// Known by name only (`knownClusters`): their labels, fields, taints and APIs are not
    /// known, so only `clusterNames` and `exclude` can rule them out.
    pub names_only: bool,
}

impl KnownClusters {
    /// The Cluster objects when there are any (they say more than names), else the
    /// configuration's `knownClusters`.
    pub fn of(objects: Vec<Cluster>, opts: &LintOptions) -> KnownClusters {
        let mut objects = objects;
        objects.extend(opts.cluster_objects.iter().cloned());
        if !objects.is_empty() {
            return KnownClusters {
                clusters: objects,
                names_only: false,
            };
        }
        KnownClusters {
            clusters: opts
                .known_clusters
                .iter()
                .map(|n| Cluster::named(n))
                .collect(),
            names_only: true,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.clusters.is_empty()
    }

    /// The note naming the clusters whose API enablements the inputs do not report (taken to
    /// serve every API), as every subcommand gives it.
    pub fn note(&self) -> Option<String> {
        crate::model::cluster::unreported_note(&self.clusters)
    }

    /// `f`, judged against the known clusters, with a note at the first Cluster object of the
    /// input files: a fixture Cluster among loose files becomes the fleet every placement is
    /// judged by, and the note says which file made it so. Unchanged when the clusters were
    /// read live or are known by name only.
    pub fn cite(&self, f: Finding) -> Finding {
        let mut written = self
            .clusters
            .iter()
            .filter_map(|c| Some((c, c.origin.as_ref()?)));
        let Some((first, at)) = written.next() else {
            return f;
        };
        let more = match written.count() {
            0 => String::new(),
            1 => " (and 1 more Cluster object of the input)".to_string(),
            n => format!(" (and {n} more Cluster objects of the input)"),
        };
        f.related(
            &at.source,
            at.span,
            format!(
                "the known clusters come from the input: Cluster {}{more}",
                first.name
            ),
        )
    }

    /// "member1, member2", or "member1, member2 and 8 more".
    pub fn describe(&self) -> String {
        const SHOWN: usize = 5;
        let names: Vec<&str> = self.clusters.iter().map(|c| c.name.as_str()).collect();
        if names.len() <= SHOWN {
            return names.join(", ");
        }
        format!(
            "{} and {} more",
            names[..SHOWN].join(", "),
            names.len() - SHOWN
        )
    }
}

/// Templates per worker below which one thread is faster than two.
const PARALLEL_MIN_TEMPLATES: usize = 5_000;

/// Every template's matches ([`State::matching_policies`]) in one vector: `a.matches[t]` is
/// template `t`'s. A vector per template was an allocation each, a hundred thousand of them.
#[derive(Debug, Default, PartialEq)]
pub struct Matches {
    items: Vec<(usize, ImplicitPriority)>,
    /// Template `t`'s matches are `items[bounds[t]..bounds[t + 1]]`.
    bounds: Vec<u32>,
}

impl Matches {
    fn with_capacity(templates: usize) -> Matches {
        let mut bounds = Vec::with_capacity(templates + 1);
        bounds.push(0);
        Matches {
            items: Vec::with_capacity(templates),
            bounds,
        }
    }

    /// Ends the current template's matches.
    fn close(&mut self) {
        let end = u32::try_from(self.items.len()).expect("fewer than 2^32 matches");
        self.bounds.push(end);
    }

    /// Appends `other`'s templates after this one's.
    fn append(&mut self, other: Matches) {
        let offset = self.bounds.last().copied().unwrap_or(0);
        self.items.reserve_exact(other.items.len());
        self.items.extend(other.items);
        self.bounds
            .extend(other.bounds.iter().skip(1).map(|b| b + offset));
    }

    /// The number of templates.
    pub fn len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each template's matches, in template order.
    pub fn iter(&self) -> impl Iterator<Item = &[(usize, ImplicitPriority)]> {
        self.bounds
            .windows(2)
            .map(|w| &self.items[w[0] as usize..w[1] as usize])
    }
}

impl std::ops::Index<usize> for Matches {
    type Output = [(usize, ImplicitPriority)];

    fn index(&self, t: usize) -> &Self::Output {
        &self.items[self.bounds[t] as usize..self.bounds[t + 1] as usize]
    }
}

/// Each template's settled owner, its matches, and whether a policy names it.
type PerTemplate = (Vec<SettledOwner>, Matches, Vec<bool>);

/// Settles and matches every template. Each template is independent (pure reads of the
/// snapshot), so large inputs are split over two threads, each filling its half of the
/// owners and of the named flags in place (whether a policy names the template comes with
/// its matches, from the same lookup: [`State::matching_policies_and_named_into`]).
fn per_template(state: &State) -> PerTemplate {
    let one = |first: usize, settled: &mut [SettledOwner], named: &mut [bool]| -> Matches {
        let mut matches = Matches::with_capacity(settled.len());
        for ((t, owners), is_named) in (first..).zip(settled.iter_mut()).zip(named.iter_mut()) {
            let start = matches.items.len();
            *is_named = state.matching_policies_and_named_into(t, &mut matches.items);
            *owners = settle_owner(state, t, &matches.items[start..], *is_named);
            matches.close();
        }
        matches
    };
    let n = state.templates.len();
    let mut settled = vec![SettledOwner::default(); n];
    let mut named = vec![false; n];
    if n < 2 * PARALLEL_MIN_TEMPLATES {
        let matches = one(0, &mut settled, &mut named);
        return (settled, matches, named);
    }
    let mid = n / 2;
    let (head, tail) = settled.split_at_mut(mid);
    let (named_head, named_tail) = named.split_at_mut(mid);
    let (mut matches, second) =
        crate::util::parallel::join(|| one(0, head, named_head), || one(mid, tail, named_tail));
    matches.append(second);
    (settled, matches, named)
}

/// The engine's options for a lint run: gates and version from the lint options, Karmada's
/// default filters.
pub fn options(opts: &LintOptions) -> Options {
    crate::engine::ownership::engine_options(&opts.gates)
}

impl<'a> Analysis<'a> {
    /// Settles every template of `state`, the engine's snapshot of `inventory`, with no
    /// member clusters known.
    pub fn new(inventory: &'a Inventory, state: &'a State) -> Analysis<'a> {
        Analysis::with_clusters(inventory, state, KnownClusters::default())
    }

    /// [`Analysis::new`], with the member clusters the placement rules evaluate against.
    pub fn with_clusters(
        inventory: &'a Inventory,
        state: &'a State,
        clusters: KnownClusters,
    ) -> Analysis<'a> {
        let (settled, matches, named) = per_template(state);
        let trees = if inventory.documents.iter().any(|d| d.partial.is_some()) {
            (0..inventory.documents.len())
                .map(|_| OnceLock::new())
                .collect()
        } else {
            Vec::new()
        };
        Analysis {
            inventory,
            state,
            settled,
            matches,
            named,
            clusters,
            trees,
        }
    }

    /// A tree of document `doc` in which `path` is where it is in the whole document: the
    /// document's own, or for a partial one (see [`super::stream`]) its skeleton when that keeps
    /// the path, else the whole tree parsed again (once per document).
    pub fn tree(&self, doc: usize, path: &FieldPath) -> &Node {
        let d = &self.inventory.documents[doc];
        if d.keeps(path) {
            return &d.root;
        }
        self.trees[doc].get_or_init(|| Box::new(d.full_tree().into_owned()))
    }

    /// Where a policy's document is, and the span of `path` in it.
    pub fn policy_span(&self, p: &PolicyEntry, path: &FieldPath) -> Option<(Arc<Source>, Span)> {
        let doc = p.doc?;
        let source = self.inventory.documents[doc].source.clone();
        Some((source, self.tree(doc, path).locate(path)))
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
            .object(self.policy_object(p));
        if let Some((source, span)) = self.policy_span(pol, path) {
            f = f.at(&source, span);
        }
        f.doc = pol.doc;
        f
    }

    /// Policy `p` as an object reference (a finding's `object`).
    pub fn policy_object(&self, p: usize) -> crate::model::ObjectRef {
        let pol = self.state.policy(p);
        crate::model::ObjectRef {
            api_version: crate::model::POLICY_API_VERSION.to_string(),
            kind: pol.kind.as_str().to_string(),
            namespace: pol.is_pp().then(|| pol.namespace.clone()),
            name: pol.name.clone(),
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::reconcile::settle;
    use crate::source::{load, Source};

    #[test]
    fn the_two_thread_split_keeps_template_order_and_results() {
        let mut text = String::from(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: even, namespace: default}\nspec:\n  priority: 1\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {half: even}}}]\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {name: all}\nspec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n",
        );
        let n = 2 * PARALLEL_MIN_TEMPLATES + 7;
        // A policy naming one template of each half: whether a template is named comes from
        // the same lookups as its matches, on the thread that settles it.
        text.push_str(&format!(
            "---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {{name: named, namespace: default}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap, name: c3}}, {{apiVersion: v1, kind: ConfigMap, name: c{}}}]\n",
            n - 1
        ));
        for i in 0..n {
            let half = if i % 2 == 0 { "even" } else { "odd" };
            text.push_str(&format!(
                "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, namespace: default, labels: {{half: {half}}}}}\n"
            ));
        }
        let inv = Inventory::from_documents(load(Source::new("t.yaml", text)).documents, "default");
        let state = State::from_inventory(&inv, Options::default());
        let (settled, matches, named) = per_template(&state);
        assert_eq!(settled.len(), n);
        assert_eq!(matches.len(), n);
        assert_eq!(named, state.named_templates());
        assert_eq!(
            named.iter().filter(|&&n| n).count(),
            2,
            "c3 and the last one"
        );
        for t in 0..n {
            assert_eq!(matches[t], state.matching_policies(t), "template {t}");
            assert_eq!(
                settled[t].owner.reference(&state),
                settle(&state, t).owner,
                "template {t}"
            );
        }
        // Spot-check the order: even templates go to the PP, odd ones to the CPP (but for the
        // two the `named` PP claims, a name beating a label selector).
        for t in [0, 1, n / 2, n / 2 + 1, n - 2] {
            let want = if t % 2 == 0 { "even" } else { "all" };
            assert_eq!(
                settled[t].owner.reference(&state).unwrap().name,
                want,
                "template {t}"
            );
        }
    }
}
