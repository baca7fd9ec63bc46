//! How one resource selector matches a template, and how precisely.
//!
//! `ResourceSelectorPriority` (claim-and-preemption.md §1.2; karmada `pkg/util/selector.go:55-94`)
//! and the label selector conversion `metav1.LabelSelectorAsSelector` it relies on.

use serde::Serialize;

use crate::model::policy::{LabelSelector, ResourceSelector};

/// Implicit priority of one selector against one template (§2.1, `selector.go:33-47`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum ImplicitPriority {
    /// `PriorityMisMatch` (0).
    MisMatch = 0,
    /// `PriorityMatchAll` (1): neither name nor label selector (label selector absent or null).
    MatchAll = 1,
    /// `PriorityMatchLabelSelector` (2): a label selector that matches, `{}` included.
    MatchLabelSelector = 2,
    /// `PriorityMatchName` (3): the selector names the template.
    MatchName = 3,
}

impl ImplicitPriority {
    pub fn matches(self) -> bool {
        self > ImplicitPriority::MisMatch
    }

    /// The contract's spelling: `name`, `labelSelector`, `all` (`none` for a mismatch).
    pub fn as_str(self) -> &'static str {
        match self {
            ImplicitPriority::MisMatch => "none",
            ImplicitPriority::MatchAll => "all",
            ImplicitPriority::MatchLabelSelector => "labelSelector",
            ImplicitPriority::MatchName => "name",
        }
    }
}

/// What a selector is compared with: a template's identity and labels.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    /// `""` for a cluster-scoped template.
    pub namespace: &'a str,
    pub name: &'a str,
    pub labels: &'a crate::model::StringMap,
}

/// `ResourceSelectorPriority(template, rs)` (§1.2, `selector.go:55-94`).
pub fn selector_priority(t: &Target<'_>, rs: &ResourceSelector) -> ImplicitPriority {
    // §1.2 step 1 (:56-60): exact apiVersion and kind, namespace only when the selector sets one.
    if t.api_version != rs.api_version
        || t.kind != rs.kind
        || (!rs.namespace.is_empty() && t.namespace != rs.namespace)
    {
        return ImplicitPriority::MisMatch;
    }
    // Step 2 (:70-75): a name wins and the label selector is not consulted.
    if !rs.name.is_empty() {
        return if rs.name == t.name {
            ImplicitPriority::MatchName
        } else {
            ImplicitPriority::MisMatch
        };
    }
    // Step 3 (:78-80): nil selector = match all.
    let Some(ls) = &rs.label_selector else {
        return ImplicitPriority::MatchAll;
    };
    // Step 4 (:83-93): conversion error => mismatch; `{}` => Everything => label priority.
    match label_selector_matches(ls, t.labels) {
        Ok(true) => ImplicitPriority::MatchLabelSelector,
        Ok(false) | Err(_) => ImplicitPriority::MisMatch,
    }
}

/// `ResourceMatchSelectorsPriority`: the best over a policy's selectors, 0 for none (§1.2, :177-185).
pub fn selectors_priority(t: &Target<'_>, selectors: &[ResourceSelector]) -> ImplicitPriority {
    selectors
        .iter()
        .map(|rs| selector_priority(t, rs))
        .max()
        .unwrap_or(ImplicitPriority::MisMatch)
}

/// Why `metav1.LabelSelectorAsSelector` refuses a selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectorError(pub String);

/// `metav1.LabelSelectorAsSelector` followed by `Matches(labels)`: `matchLabels` and every
/// `matchExpressions` entry ANDed; `NotIn` and `DoesNotExist` hold when the key is absent.
pub fn label_selector_matches(
    ls: &LabelSelector,
    labels: &crate::model::StringMap,
) -> Result<bool, SelectorError> {
    let mut ok = true;
    for (k, v) in ls.match_labels.iter().flatten() {
        validate_key(k)?;
        validate_value(v)?;
        ok &= labels.get(k) == Some(v);
    }
    for req in ls.match_expressions.iter().flatten() {
        validate_key(&req.key)?;
        let values = req.values.as_deref().unwrap_or(&[]);
        for v in values {
            validate_value(v)?;
        }
        let present = labels.get(&req.key);
        let holds = match req.operator.as_str() {
            "In" | "NotIn" if values.is_empty() => {
                return Err(SelectorError(format!(
                    "for 'in', 'notin' operators, values set can't be empty (key {:?})",
                    req.key
                )))
            }
            "Exists" | "DoesNotExist" if !values.is_empty() => {
                return Err(SelectorError(format!(
                    "values set must be empty for exists and does not exist (key {:?})",
                    req.key
                )))
            }
            "In" => present.is_some_and(|v| values.iter().any(|x| x == v)),
            "NotIn" => present.is_none_or(|v| !values.iter().any(|x| x == v)),
            "Exists" => present.is_some(),
            "DoesNotExist" => present.is_none(),
            op => {
                return Err(SelectorError(format!(
                    "{op:?} is not a valid label selector operator"
                )))
            }
        };
        ok &= holds;
    }
    Ok(ok)
}

/// A label key: `[prefix/]name` (`IsQualifiedName`, with the apimachinery messages the
/// admission checks use too).
pub fn validate_key(key: &str) -> Result<(), SelectorError> {
    let errs = super::admission::labels::is_label_key(key);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(SelectorError(format!(
            "invalid label key {key:?}: {}",
            errs.join("; ")
        )))
    }
}

/// A label value: empty, or at most 63 bytes of a qualified name part (`IsValidLabelValue`).
pub fn validate_value(v: &str) -> Result<(), SelectorError> {
    let errs = super::admission::labels::is_label_value(v);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(SelectorError(format!(
            "invalid label value {v:?}: {}",
            errs.join("; ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> crate::model::StringMap {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn rs(json: &str) -> ResourceSelector {
        serde_json::from_str(json).unwrap()
    }

    fn target<'a>(ns: &'a str, name: &'a str, l: &'a crate::model::StringMap) -> Target<'a> {
        Target {
            api_version: "apps/v1",
            kind: "Deployment",
            namespace: ns,
            name,
            labels: l,
        }
    }

    /// One row per rule of §1.2 (the unit cases of karmada `selector_test.go` included).
    #[test]
    fn selector_priority_table() {
        use ImplicitPriority::*;
        let app = labels(&[("app", "nginx"), ("tier", "web")]);
        let cases: &[(&str, &str, ImplicitPriority)] = &[
            (
                "apiVersion differs",
                r#"{"apiVersion":"apps/v1beta1","kind":"Deployment"}"#,
                MisMatch,
            ),
            (
                "kind is case-sensitive",
                r#"{"apiVersion":"apps/v1","kind":"deployment"}"#,
                MisMatch,
            ),
            (
                "namespace differs",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","namespace":"other"}"#,
                MisMatch,
            ),
            (
                "match all",
                r#"{"apiVersion":"apps/v1","kind":"Deployment"}"#,
                MatchAll,
            ),
            (
                "null selector = match all",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":null}"#,
                MatchAll,
            ),
            (
                "empty selector {} = label match",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{}}"#,
                MatchLabelSelector,
            ),
            (
                "name equal",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx"}"#,
                MatchName,
            ),
            (
                "name differs",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","name":"other"}"#,
                MisMatch,
            ),
            (
                "name wins over a non-matching selector",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx","labelSelector":{"matchLabels":{"app":"x"}}}"#,
                MatchName,
            ),
            (
                "name wins over an invalid selector",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx","labelSelector":{"matchLabels":{"":"bar"}}}"#,
                MatchName,
            ),
            (
                "labels error (case 4)",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchLabels":{"":"bar"}}}"#,
                MisMatch,
            ),
            (
                "matchLabels hit",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchLabels":{"app":"nginx"}}}"#,
                MatchLabelSelector,
            ),
            (
                "matchLabels miss",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchLabels":{"app":"web"}}}"#,
                MisMatch,
            ),
            (
                "In",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["a","nginx"]}]}}"#,
                MatchLabelSelector,
            ),
            (
                "In without values is an error",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchExpressions":[{"key":"app","operator":"In"}]}}"#,
                MisMatch,
            ),
            (
                "NotIn holds on an absent key",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchExpressions":[{"key":"zone","operator":"NotIn","values":["a"]}]}}"#,
                MatchLabelSelector,
            ),
            (
                "DoesNotExist on an absent key",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchExpressions":[{"key":"zone","operator":"DoesNotExist"}]}}"#,
                MatchLabelSelector,
            ),
            (
                "Exists with values is an error",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchExpressions":[{"key":"app","operator":"Exists","values":["x"]}]}}"#,
                MisMatch,
            ),
            (
                "unknown operator",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchExpressions":[{"key":"app","operator":"in","values":["nginx"]}]}}"#,
                MisMatch,
            ),
            (
                "labels and expressions are ANDed",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchLabels":{"app":"nginx"},"matchExpressions":[{"key":"tier","operator":"In","values":["db"]}]}}"#,
                MisMatch,
            ),
            (
                "invalid label value",
                r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{"matchLabels":{"app":"-bad"}}}"#,
                MisMatch,
            ),
        ];
        for (what, sel, want) in cases {
            let got = selector_priority(&target("default", "nginx", &app), &rs(sel));
            assert_eq!(got, *want, "{what}");
        }
    }

    #[test]
    fn empty_label_selector_ranks_above_no_selector() {
        let l = labels(&[]);
        let t = target("default", "x", &l);
        let empty = selector_priority(
            &t,
            &rs(r#"{"apiVersion":"apps/v1","kind":"Deployment","labelSelector":{}}"#),
        );
        let none = selector_priority(&t, &rs(r#"{"apiVersion":"apps/v1","kind":"Deployment"}"#));
        assert!(empty > none);
        assert_eq!(empty.as_str(), "labelSelector");
        assert_eq!(none.as_str(), "all");
    }

    #[test]
    fn policy_priority_is_the_best_selector_and_empty_list_mismatches() {
        let l = labels(&[("app", "nginx")]);
        let t = target("default", "nginx", &l);
        let sels = vec![
            rs(r#"{"apiVersion":"apps/v1","kind":"Deployment"}"#),
            rs(r#"{"apiVersion":"apps/v1","kind":"Deployment","name":"nginx"}"#),
        ];
        assert_eq!(selectors_priority(&t, &sels), ImplicitPriority::MatchName);
        assert_eq!(selectors_priority(&t, &[]), ImplicitPriority::MisMatch);
    }

    #[test]
    fn label_keys() {
        assert!(validate_key("app").is_ok());
        assert!(validate_key("example.com/app").is_ok());
        assert!(validate_key("").is_err());
        assert!(validate_key("/app").is_err());
        assert!(validate_key("Example.com/app").is_err());
        assert!(validate_key(&"a".repeat(64)).is_err());
    }
}
