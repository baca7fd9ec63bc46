//! `lint --base`: which findings are new at head, matched by rule and object identity and
//! field, never by line number, so an edit above a finding does not make it "new". (The other
//! answers of `--base` come from the engine, `engine::ownership`, and from the admission rule
//! unit's update rules.)

use std::collections::HashMap;

use crate::lint::finding::Finding;
use crate::lint::rules::render_failed::RENDER_FAILED;
use crate::model::ObjectRef;

/// How findings are told apart across revisions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// A finding about an object: rule, the object's identity, the field, whether the API
    /// server reports it only after the object's first refusal is fixed (a refusal that
    /// becomes the first one is new), and for a grouped finding its partners (a policy that
    /// loses to one more policy is a new finding).
    Object(
        &'static str,
        ObjectRef,
        Option<String>,
        bool,
        Vec<ObjectRef>,
    ),
    /// A finding about text (syntax, duplicate keys): rule, file, field, and the message with
    /// its digits dropped (messages of the YAML parser mention lines and columns).
    Text(&'static str, String, Option<String>, String),
}

fn key(f: &Finding) -> Key {
    match &f.object {
        Some(o) => Key::Object(
            f.rule,
            o.clone(),
            f.field.clone(),
            f.after_fix,
            f.partners.iter().map(|p| p.policy.clone()).collect(),
        ),
        None => Key::Text(
            f.rule,
            f.location
                .as_ref()
                .map(|l| l.source.name.clone())
                .unwrap_or_default(),
            f.field.clone(),
            text_of(f),
        ),
    }
}

/// What of a text finding's message tells it apart: its words without digits (the YAML
/// parser's messages mention lines and columns). A failed render is the same failure at the
/// same place whatever the renderer says: its message names files the side's tree may lack (a
/// revision is rendered from a copy holding only the manifests) and network errors that vary
/// from run to run.
fn text_of(f: &Finding) -> String {
    if f.rule == RENDER_FAILED.id {
        return String::new();
    }
    f.message.chars().filter(|c| !c.is_ascii_digit()).collect()
}

/// For each head finding, whether it is new: not matched by a base finding with the same key
/// (as many head findings of one key as base ones are "old"; the extra ones are new).
pub fn new_at_head(base: &[Finding], head: &[Finding]) -> Vec<bool> {
    let mut left: HashMap<Key, usize> = HashMap::new();
    for f in base {
        *left.entry(key(f)).or_default() += 1;
    }
    head.iter()
        .map(|f| match left.get_mut(&key(f)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::finding::Severity;
    use crate::source::Source;

    /// keiretsu-labs/kubernetes-manifests: the work tree's kustomize says `lstat
    /// clusters/common/apps/searxng/ks.yaml`, the base's copy (manifests only) `lstat
    /// clusters/common/apps/searxng`: one failure, not a new one.
    #[test]
    fn a_render_failure_at_the_same_place_is_not_new_whatever_its_message() {
        let source = Source::new("apps/kustomization.yaml", "resources: [ks.yaml]\n");
        let failed = |message: &str| {
            Finding::new(RENDER_FAILED.id, Severity::Error, message)
                .at(&source, crate::source::Span::default())
        };
        let base = [failed("lstat clusters/common: no such file or directory")];
        let head = [failed(
            "lstat clusters/common/ks.yaml: no such file or directory",
        )];
        assert_eq!(new_at_head(&base, &head), [false]);
        let syntax = |message: &str| {
            Finding::new("yaml-syntax", Severity::Error, message)
                .at(&source, crate::source::Span::default())
        };
        assert_eq!(
            new_at_head(&[syntax("mapping values at 3")], &[syntax("tab at 3")]),
            [true]
        );
    }

    #[test]
    fn findings_match_by_identity_not_line() {
        let f = |line: u32, name: &str| {
            Finding::new("overlap", Severity::Info, "m")
                .at(
                    &Source::new("a.yaml", ""),
                    crate::source::Span::point(line, 1),
                )
                .object(ObjectRef {
                    api_version: "v1".into(),
                    kind: "K".into(),
                    namespace: None,
                    name: name.into(),
                })
        };
        let base = vec![f(3, "a")];
        let head = vec![f(30, "a"), f(31, "a"), f(5, "b")];
        assert_eq!(new_at_head(&base, &head), vec![false, true, true]);
    }
}
