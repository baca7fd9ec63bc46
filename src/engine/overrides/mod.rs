//! What each member cluster receives: ClusterOverridePolicies then OverridePolicies applied to
//! a copy of the template, as Karmada's override manager does (overrides-and-placement.md
//! Part A). Pure: the template is JSON, the clusters and policies are typed inputs.
//!
//! Order (§A.5): COPs first, matched against the template; then the OPs of the template's
//! namespace, matched against the object the COPs produced. Inside each group by implicit
//! priority ascending (the most specific applies last and wins), then by name. Every matching
//! rule is one entry; inside an entry: image, command, args, labels, annotations,
//! fieldOverrider, plaintext. The first failing operation drops the cluster's whole result.

pub mod defaulted;
pub mod field;
pub mod image;
pub mod patch;

use serde_json::Value;

use crate::model::cluster::Cluster;
use crate::model::override_policy::{
    CommandArgsOverrider, ImageOverrider, LabelAnnotationOverrider, Overriders,
};
use crate::model::{OverridePolicy, StringMap};

use super::placement::cluster_matches;
use super::selector::{selectors_priority, ImplicitPriority, Target};
use patch::Op;

/// One policy that contributed entries, in application order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppliedPolicy {
    pub kind: &'static str,
    pub namespace: Option<String>,
    pub name: String,
    /// The rules applied (index in the effective rules) and whether each changed the object.
    pub rules: Vec<(usize, bool)>,
}

impl AppliedPolicy {
    /// Policy `p`, no rule applied yet.
    fn of(p: &OverridePolicy) -> AppliedPolicy {
        AppliedPolicy {
            kind: p.kind(),
            namespace: p.meta.namespace.clone().filter(|_| !p.cluster_scoped),
            name: p.meta.name.clone(),
            rules: Vec::new(),
        }
    }
}

/// A failure as Karmada reports it for this cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideError {
    /// The error text (the binding's `SyncWorkFailed` event carries it).
    pub message: String,
    /// The Warning event on the template: `Apply … policy(…) for cluster(…) failed.`; `None`
    /// when the cluster itself could not be read.
    pub event: Option<String>,
    /// Karmada's controller panics here: the whole reconcile stops, later clusters too.
    pub panic: bool,
    /// The rule that failed: its policy's index among the policies given to
    /// [`apply_for_cluster`] and its index among the policy's effective rules; `None` when the
    /// cluster itself could not be read.
    pub rule: Option<(usize, usize)>,
    /// The failing rule: its policy (with no rules listed) and its index among the policy's
    /// effective rules; `None` when the cluster could not be read.
    pub at: Option<Box<(AppliedPolicy, usize)>>,
}

/// The outcome for one member cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterOverrides {
    pub cluster: String,
    pub policies: Vec<AppliedPolicy>,
    /// The manifest the cluster's Work gets; `None` when an operation failed (no Work write).
    pub manifest: Option<Value>,
    pub error: Option<OverrideError>,
    /// Set by the caller that holds the template as written, not as stored: the field (a JSON
    /// pointer) the API server's defaulting may fill where `error`'s patch found none, so the
    /// failure may not happen in Karmada ([`defaulted::defaulted_field`]).
    pub defaulted: Option<String>,
    /// Set by the caller that knows the cluster by its name only (no Cluster object): the
    /// rules ([`AppliedPolicy`] without rules, rule index) whose targetCluster also selects by
    /// labels or fields, so whether they apply to it is not known ([`label_dependent_rules`]).
    pub unevaluated: Vec<(AppliedPolicy, usize)>,
}

/// A policy's match against an object: `None` when it does not match (§A.3).
pub fn policy_priority(p: &OverridePolicy, t: &Target<'_>) -> Option<ImplicitPriority> {
    if p.spec.resource_selectors.is_empty() {
        return Some(ImplicitPriority::MatchAll);
    }
    let prio = selectors_priority(t, &p.spec.resource_selectors);
    prio.matches().then_some(prio)
}

struct Identity {
    api_version: String,
    kind: String,
    namespace: String,
    name: String,
    labels: StringMap,
}

fn identity(obj: &Value) -> Identity {
    let s = |p: &str| {
        obj.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let mut labels = StringMap::new();
    if let Some(m) = obj.pointer("/metadata/labels").and_then(Value::as_object) {
        for (k, v) in m {
            if let Some(v) = v.as_str() {
                labels.insert(k.clone(), v.to_string());
            }
        }
    }
    Identity {
        api_version: s("/apiVersion"),
        kind: s("/kind"),
        namespace: s("/metadata/namespace"),
        name: s("/metadata/name"),
        labels,
    }
}

/// The policies of one group that match `obj`, in application order.
fn ordered<'p>(
    policies: &[&'p OverridePolicy],
    obj: &Value,
    cluster_scoped: bool,
) -> Vec<&'p OverridePolicy> {
    let id = identity(obj);
    let target = Target {
        api_version: &id.api_version,
        kind: &id.kind,
        namespace: &id.namespace,
        name: &id.name,
        labels: &id.labels,
    };
    group_order(policies, &target, cluster_scoped)
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

/// One group's matching policies with their implicit priority, in application order:
/// priority ascending (the most specific applies last and wins), then name (§A.5).
fn group_order<'p>(
    policies: &[&'p OverridePolicy],
    target: &Target<'_>,
    cluster_scoped: bool,
) -> Vec<(ImplicitPriority, &'p OverridePolicy)> {
    let mut matched: Vec<(ImplicitPriority, &OverridePolicy)> = policies
        .iter()
        .filter(|p| p.cluster_scoped == cluster_scoped)
        .filter(|p| cluster_scoped || p.meta.namespace.as_deref() == Some(target.namespace))
        .filter_map(|p| policy_priority(p, target).map(|prio| (prio, *p)))
        .collect();
    matched.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| a.1.meta.name.cmp(&b.1.meta.name))
    });
    matched
}

/// Every policy that applies to a template known by its identity, in the override manager's
/// order: the ClusterOverridePolicies, then (for a namespaced template) the OverridePolicies
/// of its namespace, each group by implicit priority then name. Without the template's body
/// a COP that changes the labels or namespace the OPs are matched against is not seen (§A.3).
pub fn application_order<'p>(
    policies: &[&'p OverridePolicy],
    target: &Target<'_>,
) -> Vec<(ImplicitPriority, &'p OverridePolicy)> {
    let mut out = group_order(policies, target, true);
    if !target.namespace.is_empty() {
        out.extend(group_order(policies, target, false));
    }
    out
}

/// The ClusterOverridePolicies, then the OverridePolicies, that would apply to the template
/// (before any cluster is considered): for lint and preempt-check.
pub fn matching_policies<'p>(
    policies: &[&'p OverridePolicy],
    template: &Value,
) -> Vec<&'p OverridePolicy> {
    let mut out = ordered(policies, template, true);
    if !identity(template).namespace.is_empty() {
        out.extend(ordered(policies, template, false));
    }
    out
}

fn event(p: &OverridePolicy, cluster: &str, outcome: &str) -> String {
    if p.cluster_scoped {
        format!(
            "Apply cluster override policy({}) for cluster({cluster}) {outcome}.",
            p.meta.name
        )
    } else {
        format!(
            "Apply override policy({}/{}) for cluster({cluster}) {outcome}.",
            p.meta.namespace.as_deref().unwrap_or(""),
            p.meta.name
        )
    }
}

/// Applies one group's entries to `obj`; `Err` stops everything (§A.12).
fn apply_group(
    group: &[&OverridePolicy],
    all: &[&OverridePolicy],
    cluster: &Cluster,
    obj: &mut Value,
    applied: &mut Vec<AppliedPolicy>,
) -> Result<(), OverrideError> {
    for p in group {
        let mut entry = AppliedPolicy::of(p);
        for (i, rule) in p.effective_rules().iter().enumerate() {
            if rule
                .target_cluster
                .as_ref()
                .is_some_and(|tc| !cluster_matches(cluster, tc))
            {
                continue;
            }
            let before = obj.clone();
            if let Err(fail) = apply_overriders(obj, &rule.overriders) {
                let at = AppliedPolicy::of(p);
                if !entry.rules.is_empty() {
                    applied.push(entry);
                }
                let policy = all.iter().position(|q| std::ptr::eq(*q, *p));
                return Err(OverrideError {
                    message: fail.message,
                    event: Some(event(p, &cluster.name, "failed")),
                    panic: fail.panic,
                    rule: policy.map(|policy| (policy, i)),
                    at: Some(Box::new((at, i))),
                });
            }
            entry.rules.push((i, *obj != before));
        }
        if !entry.rules.is_empty() {
            applied.push(entry);
        }
    }
    Ok(())
}

/// `ApplyOverridePolicies(template, cluster)` on a copy of `template`. `cluster` is the Cluster
/// object (`None`: not found, which fails the cluster as the GET does, `om.go:95-99`).
pub fn apply_for_cluster(
    template: &Value,
    cluster_name: &str,
    cluster: Option<&Cluster>,
    policies: &[&OverridePolicy],
) -> ClusterOverrides {
    let mut out = ClusterOverrides {
        cluster: cluster_name.to_string(),
        policies: Vec::new(),
        manifest: None,
        error: None,
        defaulted: None,
        unevaluated: Vec::new(),
    };
    let Some(cluster) = cluster else {
        out.error = Some(OverrideError {
            message: format!("clusters.cluster.karmada.io \"{cluster_name}\" not found"),
            event: None,
            panic: false,
            rule: None,
            at: None,
        });
        return out;
    };
    let mut obj = template.clone();
    let cops = ordered(policies, &obj, true);
    let result =
        apply_group(&cops, policies, cluster, &mut obj, &mut out.policies).and_then(|()| {
            // The namespace test and the OP set use the object after the COPs (§A.2, §A.3).
            if identity(&obj).namespace.is_empty() {
                return Ok(());
            }
            let ops = ordered(policies, &obj, false);
            apply_group(&ops, policies, cluster, &mut obj, &mut out.policies)
        });
    match result {
        Ok(()) => out.manifest = Some(obj),
        Err(e) => out.error = Some(e),
    }
    out
}

/// The rules of the policies that match `template` whose targetCluster lets cluster
/// `cluster_name` through by name (clusterNames, exclude) and also selects by labels or fields:
/// for a cluster known by its name only, whether they apply depends on labels nobody gave
/// (`ClusterMatches`, `pkg/util/selector.go`, ANDs them). In application order, as
/// [`AppliedPolicy`] (without rules) and rule index.
pub fn label_dependent_rules(
    template: &Value,
    cluster_name: &str,
    policies: &[&OverridePolicy],
) -> Vec<(AppliedPolicy, usize)> {
    let selects_by_labels = |tc: &crate::model::policy::ClusterAffinity| {
        let by_name = !tc.exclude.iter().any(|n| n == cluster_name)
            && (tc.cluster_names.is_empty() || tc.cluster_names.iter().any(|n| n == cluster_name));
        let labels = tc.label_selector.as_ref().is_some_and(|ls| {
            ls.match_labels.as_ref().is_some_and(|m| !m.is_empty())
                || ls.match_expressions.as_ref().is_some_and(|e| !e.is_empty())
        });
        let fields = tc
            .field_selector
            .as_ref()
            .is_some_and(|fs| !fs.match_expressions.is_empty());
        by_name && (labels || fields)
    };
    let mut out = Vec::new();
    for p in ordered(policies, template, true)
        .into_iter()
        .chain(ordered(policies, template, false))
    {
        for (i, rule) in p.effective_rules().iter().enumerate() {
            // A rule without overriders changes nothing wherever it applies.
            if rule.overriders.is_empty() {
                continue;
            }
            if rule.target_cluster.as_ref().is_some_and(selects_by_labels) {
                out.push((AppliedPolicy::of(p), i));
            }
        }
    }
    out
}

/// A failed overrider: the text, and whether Karmada's controller would panic instead.
pub struct Fail {
    pub message: String,
    pub panic: bool,
}

impl From<String> for Fail {
    fn from(message: String) -> Fail {
        Fail {
            message,
            panic: false,
        }
    }
}

impl From<patch::PatchError> for Fail {
    fn from(e: patch::PatchError) -> Fail {
        Fail::from(e.0)
    }
}

fn panic(message: &str) -> Fail {
    Fail {
        message: format!("panic: {message} [recovered]"),
        panic: true,
    }
}

/// One entry's overriders, in Karmada's fixed order (§A.5 step 5), each item its own patch
/// except plaintext (one patch for all items).
fn apply_overriders(obj: &mut Value, o: &Overriders) -> Result<(), Fail> {
    for item in &o.image_overrider {
        let ops = image_ops(obj, item)?;
        patch::apply(obj, &ops)?;
    }
    for item in &o.command_overrider {
        let ops = command_args_ops(obj, item, "command")?;
        patch::apply(obj, &ops)?;
    }
    for item in &o.args_overrider {
        let ops = command_args_ops(obj, item, "args")?;
        patch::apply(obj, &ops)?;
    }
    for item in &o.labels_overrider {
        label_annotation(obj, item, "labels");
    }
    for item in &o.annotations_overrider {
        label_annotation(obj, item, "annotations");
    }
    for item in &o.field_overrider {
        field::apply(obj, item)?;
    }
    if !o.plaintext.is_empty() {
        let ops: Vec<Op> = o
            .plaintext
            .iter()
            .map(|p| Op::new(&p.operator, &p.path, p.value.clone().unwrap_or(Value::Null)))
            .collect();
        patch::apply(obj, &ops)?;
        // The result is decoded back into an unstructured object, which needs a kind.
        if obj
            .get("kind")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(Fail::from(format!(
                "Object 'Kind' is missing in '{}'",
                serde_json::to_string(obj).unwrap_or_default()
            )));
        }
    }
    Ok(())
}

/// Where a kind's containers are, for image (no predicate) and command/args overriders.
fn containers_path(kind: &str) -> Option<&'static str> {
    match kind {
        "Pod" => Some("/spec/containers"),
        "ReplicaSet" | "Deployment" | "DaemonSet" | "StatefulSet" | "Job" => {
            Some("/spec/template/spec/containers")
        }
        _ => None,
    }
}

fn kind_of(obj: &Value) -> &str {
    obj.get("kind").and_then(Value::as_str).unwrap_or("")
}

/// `imageoverride.go`: one replace per rewritten image.
fn image_ops(obj: &Value, o: &ImageOverrider) -> Result<Vec<Op>, Fail> {
    let rewrite = |current: &str, path: String| -> Result<Op, Fail> {
        let mut img = image::Image::parse(current)?;
        img.apply(&o.component, &o.operator, &o.value);
        Ok(Op::new("replace", path, Value::String(img.to_string())))
    };
    if let Some(pred) = &o.predicate {
        let current = image_at(obj, &pred.path).map_err(|e| match e {
            ImageAt::Panic(m) => panic(m),
            ImageAt::Error(e) => Fail::from(format!(
                "failed to obtain imageValue with predicate path({}), error: {e}",
                pred.path
            )),
        })?;
        let op = rewrite(&current, pred.path.clone())?;
        if !pred.path.starts_with('/') {
            return Err(Fail::from(
                "imagePath should be start with / character".to_string(),
            ));
        }
        return Ok(vec![op]);
    }
    let Some(base) = containers_path(kind_of(obj)) else {
        return Ok(Vec::new());
    };
    let containers = obj.pointer(base).and_then(Value::as_array);
    containers
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| {
            let current = c.get("image").and_then(Value::as_str).unwrap_or("");
            rewrite(current, format!("{base}/{i}/image"))
        })
        .collect()
}

enum ImageAt {
    Error(String),
    Panic(&'static str),
}

/// `obtainImageValue` (§A.8): maps walked by key, lists by a numeric segment.
fn image_at(obj: &Value, path: &str) -> Result<String, ImageAt> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let mut cur = obj;
    for seg in &segs {
        cur = match cur {
            Value::Object(m) if m.contains_key(*seg) => &m[*seg],
            Value::Array(a) => {
                let Ok(n) = seg.parse::<usize>() else {
                    return Err(ImageAt::Error(format!(
                        "path({seg}) of rawObj's is not number"
                    )));
                };
                // Karmada asserts a map element without checking the index (§A.8).
                match a.get(n) {
                    Some(v @ Value::Object(_)) => v,
                    _ => return Err(ImageAt::Panic("runtime error: index out of range")),
                }
            }
            _ => {
                return Err(ImageAt::Error(format!(
                "path({seg}) of rawObj's type is not map[string]interface{{}} and []interface{{}}"
            )))
            }
        };
    }
    cur.as_str().map(str::to_string).ok_or_else(|| {
        ImageAt::Error(format!(
            "failed to convert path({}) to string",
            segs.last().copied().unwrap_or("")
        ))
    })
}

/// Go's `%s` of an unstructured value, as command/args formatting writes it (§A.9).
fn go_s(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) if n.is_i64() || n.is_u64() => format!("%!s(int64={n})"),
        Value::Number(n) => format!("%!s(float64={n})"),
        Value::Bool(b) => format!("%!s(bool={b})"),
        Value::Null => "%!s(<nil>)".into(),
        other => format!("%!s({other})"),
    }
}

/// `commandargsoverride.go`: one op per container of that name.
fn command_args_ops(obj: &Value, o: &CommandArgsOverrider, field: &str) -> Result<Vec<Op>, Fail> {
    let Some(base) = containers_path(kind_of(obj)) else {
        return Ok(Vec::new());
    };
    let mut ops = Vec::new();
    for (i, c) in obj
        .pointer(base)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if c.get("name").and_then(Value::as_str) != Some(o.container_name.as_str()) {
            continue;
        }
        let path = format!("{base}/{i}/{field}");
        let (op, current) = match c.get(field) {
            None | Some(Value::Null) => ("add", Vec::new()),
            Some(Value::Array(a)) => ("replace", a.iter().map(go_s).collect()),
            Some(_) => {
                return Err(panic(
                    "interface conversion: interface {} is not []interface {}",
                ))
            }
        };
        let values: Vec<String> = match o.operator.as_str() {
            "add" => current.into_iter().chain(o.value.iter().cloned()).collect(),
            "remove" => current
                .into_iter()
                .filter(|v| !o.value.contains(v))
                .collect(),
            _ => current,
        };
        ops.push(Op::new(op, path, Value::from(values)));
    }
    Ok(ops)
}

/// `labelannotationoverrider.go`: add creates the map; replace/remove of absent keys is silent.
fn label_annotation(obj: &mut Value, o: &LabelAnnotationOverrider, field: &str) {
    let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    for (k, v) in &o.value {
        let exists = meta
            .get(field)
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key(k));
        match o.operator.as_str() {
            "add" => {
                let map = meta
                    .entry(field.to_string())
                    .or_insert_with(|| Value::Object(Default::default()));
                if !map.is_object() {
                    *map = Value::Object(Default::default());
                }
                map[k.as_str()] = Value::String(v.clone());
            }
            "replace" if exists => meta[field][k.as_str()] = Value::String(v.clone()),
            "remove" if exists => {
                if let Some(m) = meta.get_mut(field).and_then(Value::as_object_mut) {
                    m.shift_remove(k);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
