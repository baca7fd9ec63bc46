//! `explain --graph dot|mermaid`: the claim graph, policies → template → clusters. The claim
//! holder's edge is solid, the eventual owner's (when it differs) dashed, other candidates
//! dotted; a cluster edge is marked `suspended` when dispatch to it is paused.

use crate::engine::chain::Chain;
use crate::engine::explain::Explanation;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Policy,
    Template,
    Cluster,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphNode {
    pub id: String,
    pub label: String,
    pub kind: NodeKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// The claim in the template's metadata.
    Claims,
    /// The owner once the policies are processed again, when it differs from the holder.
    Eventual,
    /// A matching policy that does not own the template.
    Candidate,
    Dispatching,
    Suspended,
}

impl EdgeKind {
    fn label(self) -> &'static str {
        match self {
            EdgeKind::Claims => "claims",
            EdgeKind::Eventual => "eventual owner",
            EdgeKind::Candidate => "candidate",
            EdgeKind::Dispatching => "dispatching",
            EdgeKind::Suspended => "suspended",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphEdge {
    pub from: String,
    pub to: String,
    pub kind: EdgeKind,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Graph {
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}

impl Graph {
    fn node(&mut self, id: String, label: String, kind: NodeKind) -> String {
        if !self.nodes.iter().any(|n| n.id == id) {
            self.nodes.push(GraphNode {
                id: id.clone(),
                label,
                kind,
            });
        }
        id
    }
}

/// Adds `other`'s nodes and edges to `acc`, each once (a policy's graph over its templates).
pub fn merge(acc: &mut Graph, other: Graph) {
    for n in other.nodes {
        acc.node(n.id, n.label, n.kind);
    }
    for e in other.edges {
        if !acc.edges.contains(&e) {
            acc.edges.push(e);
        }
    }
}

/// Node ids safe for both dot and mermaid: letters, digits and `_`.
fn node_id(prefix: &str, name: &str) -> String {
    let mut s = String::from(prefix);
    s.push('_');
    for c in name.chars() {
        s.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    s
}

/// The graph of one explained template; with the live chain, the binding's clusters and the
/// state of each Work decide the cluster edges, else the explanation's per-cluster suspension.
pub fn from_explain(e: &Explanation, chain: Option<&Chain>) -> Graph {
    let mut g = Graph::default();
    let r = &e.resource;
    let t = g.node(node_id("t", &r.to_string()), r.titled(), NodeKind::Template);
    let holder = chain
        .and_then(|c| c.claim.owner.clone())
        .or_else(|| e.current.clone());
    let mut policies: Vec<crate::model::PolicyRef> =
        e.candidates.iter().map(|c| c.policy.clone()).collect();
    for p in [&holder, &e.eventual].into_iter().flatten() {
        if !policies.contains(p) {
            policies.push(p.clone());
        }
    }
    for p in &policies {
        let id = g.node(
            node_id("p", &p.to_string()),
            p.to_string(),
            NodeKind::Policy,
        );
        let kind = if holder.as_ref() == Some(p) {
            EdgeKind::Claims
        } else if e.eventual.as_ref() == Some(p) {
            EdgeKind::Eventual
        } else {
            EdgeKind::Candidate
        };
        g.edges.push(GraphEdge {
            from: id,
            to: t.clone(),
            kind,
        });
    }
    let mut clusters: Vec<(String, bool)> = Vec::new();
    match chain.and_then(|c| c.binding.as_ref().map(|b| (c, b))) {
        Some((c, b)) => {
            for target in &b.clusters {
                let work = c.works.iter().find(|w| w.cluster == target.name);
                let suspended = match work {
                    Some(w) => w
                        .reported_suspended()
                        .unwrap_or(w.suspend_dispatching.unwrap_or(false)),
                    None => b
                        .suspension
                        .as_ref()
                        .is_some_and(|s| s.suspends(&target.name)),
                };
                clusters.push((target.name.clone(), suspended));
            }
        }
        None => {
            for s in &e.suspension {
                clusters.push((s.cluster.clone(), s.suspended));
            }
        }
    }
    for (name, suspended) in clusters {
        let id = g.node(node_id("c", &name), name, NodeKind::Cluster);
        g.edges.push(GraphEdge {
            from: t.clone(),
            to: id,
            kind: if suspended {
                EdgeKind::Suspended
            } else {
                EdgeKind::Dispatching
            },
        });
    }
    g
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Graphviz dot.
pub fn dot(g: &Graph) -> String {
    let mut out = String::from("digraph claims {\n  rankdir=LR;\n");
    for n in &g.nodes {
        let shape = match n.kind {
            NodeKind::Policy => "box",
            NodeKind::Template => "ellipse",
            NodeKind::Cluster => "box3d",
        };
        out.push_str(&format!(
            "  {} [label=\"{}\", shape={shape}];\n",
            n.id,
            quote(&n.label)
        ));
    }
    for e in &g.edges {
        let style = match e.kind {
            EdgeKind::Claims | EdgeKind::Dispatching => "solid",
            EdgeKind::Eventual | EdgeKind::Suspended => "dashed",
            EdgeKind::Candidate => "dotted",
        };
        let color = if e.kind == EdgeKind::Suspended {
            ", color=red, fontcolor=red"
        } else {
            ""
        };
        out.push_str(&format!(
            "  {} -> {} [label=\"{}\", style={style}{color}];\n",
            e.from,
            e.to,
            e.kind.label()
        ));
    }
    out.push_str("}\n");
    out
}

/// Mermaid flowchart.
pub fn mermaid(g: &Graph) -> String {
    let mut out = String::from("flowchart LR\n");
    for n in &g.nodes {
        let label = n.label.replace('"', "#quot;");
        let shape = match n.kind {
            NodeKind::Policy => format!("[\"{label}\"]"),
            NodeKind::Template => format!("([\"{label}\"])"),
            NodeKind::Cluster => format!("[(\"{label}\")]"),
        };
        out.push_str(&format!("  {}{shape}\n", n.id));
    }
    let mut suspended = Vec::new();
    for (i, e) in g.edges.iter().enumerate() {
        let arrow = match e.kind {
            EdgeKind::Claims | EdgeKind::Dispatching => "-->",
            EdgeKind::Eventual | EdgeKind::Candidate | EdgeKind::Suspended => "-.->",
        };
        out.push_str(&format!(
            "  {} {arrow}|{}| {}\n",
            e.from,
            e.kind.label(),
            e.to
        ));
        if e.kind == EdgeKind::Suspended {
            suspended.push(i.to_string());
        }
    }
    if !suspended.is_empty() {
        out.push_str(&format!(
            "  linkStyle {} stroke:red,color:red\n",
            suspended.join(",")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Graph {
        let mut g = Graph::default();
        let p = g.node(
            node_id("p", "pp/default/web"),
            "pp/default/web".into(),
            NodeKind::Policy,
        );
        let t = g.node(
            node_id("t", "deployment/default/web"),
            "Deployment default/web".into(),
            NodeKind::Template,
        );
        let c = g.node(
            node_id("c", "member-2"),
            "member-2".into(),
            NodeKind::Cluster,
        );
        g.edges.push(GraphEdge {
            from: p,
            to: t.clone(),
            kind: EdgeKind::Claims,
        });
        g.edges.push(GraphEdge {
            from: t,
            to: c,
            kind: EdgeKind::Suspended,
        });
        g
    }

    #[test]
    fn dot_marks_suspended_edges() {
        let d = dot(&sample());
        assert!(d.starts_with("digraph claims {"));
        assert!(d.contains(
            "p_pp_default_web -> t_deployment_default_web [label=\"claims\", style=solid];"
        ));
        assert!(d.contains("t_deployment_default_web -> c_member_2 [label=\"suspended\", style=dashed, color=red, fontcolor=red];"));
    }

    #[test]
    fn mermaid_marks_suspended_edges() {
        let m = mermaid(&sample());
        assert!(m.starts_with("flowchart LR\n"));
        assert!(m.contains("  t_deployment_default_web -.->|suspended| c_member_2\n"));
        assert!(m.contains("  linkStyle 1 stroke:red,color:red\n"));
        assert!(m.contains("c_member_2[(\"member-2\")]"));
    }
}
