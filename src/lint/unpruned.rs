//! What a change removes from Git that stays on the API server: a Flux Kustomization with
//! `spec.prune: false`, or an Argo CD Application whose sync does not prune, leaves what its
//! source no longer gives where it is. `plan --base` and `lint --base`'s ownership changes
//! plan those objects as still there.

use std::collections::HashSet;

use crate::model::Inventory;
use crate::source::kustomize::environments::Applier;

/// An object's kind, namespace and name, as its document says them.
type DocIdentity = (String, Option<String>, String);

fn doc_identity(inv: &Inventory, o: &crate::model::Object) -> Option<DocIdentity> {
    let d = inv.documents.get(o.doc())?;
    let text = |k: &str| d.root.get(k).and_then(crate::source::Node::as_str);
    let meta = crate::model::ObjectMeta::from_node(d.root.get("metadata"));
    Some((text("kind")?.to_string(), meta.namespace, meta.name))
}

/// The identities (kind, namespace, name) of `inv`'s objects.
fn identities(inv: &Inventory) -> HashSet<DocIdentity> {
    inv.objects
        .iter()
        .filter_map(|o| doc_identity(inv, o))
        .collect()
}

/// Whether `o`, an object of `base`, comes from one of `outputs` and is none of `held`: what
/// the change removes from those outputs.
fn is_gone(
    base: &Inventory,
    o: &crate::model::Object,
    held: &HashSet<DocIdentity>,
    outputs: &[String],
) -> bool {
    let from = base.documents.get(o.doc()).map(|d| d.source.name.as_str());
    from.is_some_and(|n| outputs.iter().any(|out| out == n))
        && doc_identity(base, o).is_none_or(|id| !held.contains(&id))
}

/// `base` with only its objects whose documents come from `outputs` and that `head` does not
/// hold (by kind, namespace and name): what the change removes from those outputs.
pub fn objects_gone_from(head: &Inventory, base: &Inventory, outputs: &[String]) -> Inventory {
    let held = identities(head);
    let mut gone = base.clone();
    gone.objects.retain(|o| is_gone(base, o, &held, outputs));
    gone
}

/// What the change removes from Git in environment `name` (`base` and `head`: what applies to it,
/// and its objects, on each side) that stays on its API server: the objects a Flux Kustomization or an Argo CD Application applied at the base and its source
/// no longer gives, where that controller (as the head sets it) does not prune, each once;
/// with a note per controller naming them. A controller only the base has is not judged here
/// (`plan` judges an Argo CD Application that leaves by its finalizers). The head's objects
/// are looked up once and the base copied once, however many controllers do not prune.
pub fn not_pruned(
    base: (&[Applier], &Inventory),
    head: (&[Applier], &Inventory),
    name: &str,
) -> (Inventory, Vec<String>) {
    let (at_base, base_inv) = base;
    let held = identities(head.1);
    let mut chosen = vec![false; base_inv.objects.len()];
    let mut kept_ids = HashSet::new();
    let mut notes = Vec::new();
    for a in head.0 {
        let Some(why) = a.keeps_removed else {
            continue;
        };
        let Some(was) = at_base.iter().find(|b| b.controller == a.controller) else {
            continue;
        };
        let (mut shown, mut mine) = (Vec::new(), Vec::new());
        for (i, o) in base_inv.objects.iter().enumerate() {
            if !is_gone(base_inv, o, &held, &was.outputs) {
                continue;
            }
            let id = doc_identity(base_inv, o);
            // Two controllers applying one output keep its objects once.
            if id.as_ref().is_some_and(|id| !kept_ids.insert(id.clone())) {
                continue;
            }
            mine.push(i);
            if let Some((kind, ns, n)) = id {
                shown.push(shown_object(&kind, ns.as_deref(), &n));
            }
        }
        shown.sort();
        shown.dedup();
        if shown.is_empty() {
            continue;
        }
        let (is, stays) = match shown.len() {
            1 => ("is", "it stays"),
            _ => ("are", "they stay"),
        };
        notes.push(format!(
            "{name}: {} {is} no longer in Git but {} does not prune ({why}): {stays} on the API server",
            shown.join(", "),
            a.controller
        ));
        for i in mine {
            chosen[i] = true;
        }
    }
    if !chosen.contains(&true) {
        return (Inventory::default(), notes);
    }
    let mut kept = base_inv.clone();
    let mut chosen = chosen.into_iter();
    kept.objects.retain(|_| chosen.next().unwrap_or(false));
    (kept, notes)
}

/// An object as a plan names it: `pp/NS/NAME`, `cpp/NAME`, `deployment/NS/NAME`.
fn shown_object(kind: &str, namespace: Option<&str>, name: &str) -> String {
    let word = match kind {
        "PropagationPolicy" => "pp".to_string(),
        "ClusterPropagationPolicy" => "cpp".to_string(),
        "OverridePolicy" => "op".to_string(),
        "ClusterOverridePolicy" => "cop".to_string(),
        other => other.to_ascii_lowercase(),
    };
    match namespace {
        Some(ns) => format!("{word}/{ns}/{name}"),
        None => format!("{word}/{name}"),
    }
}

/// `head` with the objects `kept` added (borrowed as it is when there are none).
pub fn with_kept(head: &Inventory, kept: Inventory) -> std::borrow::Cow<'_, Inventory> {
    if kept.objects.is_empty() {
        return std::borrow::Cow::Borrowed(head);
    }
    let mut all = head.clone();
    all.append(kept);
    std::borrow::Cow::Owned(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    fn inventory(files: &[(&str, &str)]) -> Inventory {
        let docs = files
            .iter()
            .flat_map(|(name, text)| load(Source::new(*name, *text)).documents)
            .collect();
        Inventory::from_documents(docs, "default")
    }

    const TAKEOVER: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: takeover, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n";
    const BASE: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: base, namespace: default}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n";

    /// Only what the given outputs held at the base and the head holds nowhere is gone: an
    /// object moved to another output, or another output's object, is not.
    #[test]
    fn gone_is_what_the_outputs_held_and_the_head_holds_nowhere() {
        let base = inventory(&[
            ("apps/web", TAKEOVER),
            ("apps/web", BASE),
            ("apps/db", TAKEOVER.replace("takeover", "db").as_str()),
        ]);
        let head = inventory(&[("apps/other", BASE)]);
        let gone = objects_gone_from(&head, &base, &["apps/web".to_string()]);
        let names: Vec<_> = gone
            .objects
            .iter()
            .filter_map(|o| doc_identity(&gone, o))
            .collect();
        assert_eq!(
            names,
            [(
                "PropagationPolicy".to_string(),
                Some("default".to_string()),
                "takeover".to_string()
            )]
        );
    }

    #[test]
    fn objects_are_named_with_kubectls_short_names_for_policies() {
        assert_eq!(shown_object("PropagationPolicy", Some("a"), "b"), "pp/a/b");
        assert_eq!(shown_object("ClusterOverridePolicy", None, "b"), "cop/b");
        assert_eq!(
            shown_object("Deployment", Some("a"), "web"),
            "deployment/a/web"
        );
    }
}
