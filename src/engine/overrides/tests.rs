//! Facts from Karmada's override manager (its unit tests and documentation, and the run
//! examples of overrides-and-placement.md): inputs and the manifest each cluster receives.

use serde_json::{json, Value};

use super::*;
use crate::model::meta::ObjectMeta;

fn policy(kind: &str, namespace: Option<&str>, name: &str, spec: Value) -> OverridePolicy {
    let root = json!({ "spec": spec });
    OverridePolicy {
        cluster_scoped: kind == "ClusterOverridePolicy",
        meta: ObjectMeta {
            name: name.into(),
            namespace: namespace.map(str::to_string),
            ..ObjectMeta::default()
        },
        spec: serde_json::from_value(root["spec"].clone()).unwrap(),
        raw_spec: root["spec"].clone(),
        doc: 0,
        admission: crate::model::Admission::Unchecked,
    }
}

fn add_label(selector: Value, value: &str) -> Value {
    json!({"resourceSelectors": selector, "overrideRules": [{"overriders": {"labelsOverrider": [{"operator": "add", "value": {"tier": value}}]}}]})
}

fn web() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "apps", "labels": {"app": "web"}},
        "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c1", "image": "nginx:1.19", "args": ["-v", 5]}]}}}})
}

fn member(name: &str) -> Cluster {
    Cluster::named(name)
}

fn run(template: &Value, cluster: &str, ps: &[OverridePolicy]) -> ClusterOverrides {
    let refs: Vec<&OverridePolicy> = ps.iter().collect();
    apply_for_cluster(template, cluster, Some(&member(cluster)), &refs)
}

fn names(r: &ClusterOverrides) -> Vec<&str> {
    r.policies.iter().map(|p| p.name.as_str()).collect()
}

/// Example 2: COPs by implicit priority then name, then OPs; the most specific applies last.
#[test]
fn order_is_cops_then_ops_by_priority_then_name() {
    let kind_only = json!([{"apiVersion": "apps/v1", "kind": "Deployment"}]);
    let by_name = json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}]);
    let ps = vec![
        policy(
            "OverridePolicy",
            Some("apps"),
            "x",
            add_label(kind_only.clone(), "d"),
        ),
        policy(
            "ClusterOverridePolicy",
            None,
            "a-web",
            add_label(by_name, "b"),
        ),
        policy(
            "ClusterOverridePolicy",
            None,
            "z-any",
            add_label(json!([]), "a"),
        ),
        policy(
            "ClusterOverridePolicy",
            None,
            "m-kind",
            add_label(kind_only.clone(), "c"),
        ),
        policy(
            "OverridePolicy",
            Some("other"),
            "elsewhere",
            add_label(kind_only, "e"),
        ),
    ];
    let r = run(&web(), "member1", &ps);
    assert_eq!(names(&r), vec!["m-kind", "z-any", "a-web", "x"]);
    assert_eq!(
        r.manifest.unwrap()["metadata"]["labels"]["tier"],
        json!("d")
    );
    assert_eq!(r.policies[0].kind, "ClusterOverridePolicy");
    assert_eq!(r.policies[3].namespace.as_deref(), Some("apps"));
}

/// A COP's label can make an OP match (OPs are matched after the COPs ran).
#[test]
fn ops_match_the_object_the_cops_produced() {
    let ps = vec![
        policy(
            "ClusterOverridePolicy",
            None,
            "labeler",
            add_label(json!([]), "gold"),
        ),
        policy(
            "OverridePolicy",
            Some("apps"),
            "gold-only",
            json!({
                "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"tier": "gold"}}}],
                "overrideRules": [{"overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 3}]}}]
            }),
        ),
    ];
    let r = run(&web(), "member1", &ps);
    assert_eq!(names(&r), vec!["labeler", "gold-only"]);
    assert_eq!(r.manifest.unwrap()["spec"]["replicas"], json!(3));
}

/// The Karmada documentation's imageOverrider examples: component operations on every
/// container of a workload; a predicate names one path for any kind.
#[test]
fn image_component_overrides() {
    let ps = vec![policy(
        "OverridePolicy",
        Some("apps"),
        "img",
        json!({
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "overrideRules": [{"targetCluster": {"clusterNames": ["member1"]}, "overriders": {"imageOverrider": [
                {"component": "Registry", "operator": "replace", "value": "registry.k8s.io"},
                {"component": "Tag", "operator": "replace", "value": "1.20"}
            ]}}]
        }),
    )];
    let r = run(&web(), "member1", &ps);
    assert_eq!(
        r.manifest
            .unwrap()
            .pointer("/spec/template/spec/containers/0/image"),
        Some(&json!("registry.k8s.io/nginx:1.20"))
    );
    let untouched = run(&web(), "member2", &ps);
    assert!(
        untouched.policies.is_empty(),
        "targetCluster excludes member2"
    );
    assert_eq!(untouched.manifest.unwrap(), web());
    let pred = vec![policy(
        "OverridePolicy",
        Some("apps"),
        "img",
        json!({
            "overrideRules": [{"overriders": {"imageOverrider": [
                {"predicate": {"path": "/spec/template/spec/containers/3/image"}, "component": "Registry", "operator": "add", "value": "x"}
            ]}}]
        }),
    )];
    let r = run(&web(), "member1", &pred);
    assert!(
        r.error.as_ref().unwrap().panic,
        "index out of range panics in Karmada"
    );
}

/// A missing plaintext path drops the whole cluster's result, earlier entries included.
#[test]
fn a_missing_plaintext_path_drops_the_cluster() {
    let ps = vec![
        policy(
            "OverridePolicy",
            Some("apps"),
            "a-ok",
            add_label(json!([]), "x"),
        ),
        policy(
            "OverridePolicy",
            Some("apps"),
            "b-bad",
            json!({
                "overrideRules": [{"overriders": {"plaintext": [{"path": "/spec/paused", "operator": "remove"}]}}]
            }),
        ),
    ];
    let r = run(&web(), "member1", &ps);
    assert_eq!(r.manifest, None);
    let e = r.error.clone().unwrap();
    assert_eq!(
        e.message,
        "error in remove for path: '/spec/paused': unable to remove nonexistent key: paused: missing value"
    );
    assert_eq!(
        e.event.as_deref(),
        Some("Apply override policy(apps/b-bad) for cluster(member1) failed.")
    );
    assert_eq!(names(&r), vec!["a-ok"]);
}

/// karmada#6103: a policy selecting ConfigMaps and Deployments with a ConfigMap path fails on
/// the Deployment.
#[test]
fn a_configmap_path_hits_a_deployment() {
    let ps = vec![policy(
        "ClusterOverridePolicy",
        None,
        "cm-data",
        json!({
            "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap"}, {"apiVersion": "apps/v1", "kind": "Deployment"}],
            "overrideRules": [{"overriders": {"plaintext": [{"path": "/data/env", "operator": "replace", "value": "prod"}]}}]
        }),
    )];
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "apps"}, "data": {"env": "dev"}});
    assert_eq!(
        run(&cm, "member1", &ps).manifest.unwrap()["data"]["env"],
        json!("prod")
    );
    let r = run(&web(), "member1", &ps);
    assert_eq!(
        r.error.unwrap().message,
        "replace operation does not apply: doc is missing path: /data/env: missing value"
    );
}

/// Example 5: args keep non-strings as `%!s(...)`; command remove on an absent field adds [].
#[test]
fn command_and_args_overriders() {
    let ps = vec![policy(
        "OverridePolicy",
        Some("apps"),
        "ca",
        json!({
            "overrideRules": [{"overriders": {
                "argsOverrider": [{"containerName": "c1", "operator": "add", "value": ["--y"]}],
                "commandOverrider": [{"containerName": "c1", "operator": "remove", "value": ["x"]}]
            }}]
        }),
    )];
    let m = run(&web(), "member1", &ps).manifest.unwrap();
    let c = &m["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["args"], json!(["-v", "%!s(int64=5)", "--y"]));
    assert_eq!(c["command"], json!([]));
}

/// §A.6: with overrideRules the deprecated top-level fields are ignored; without, they are
/// one rule.
#[test]
fn deprecated_fields_only_without_override_rules() {
    let deprecated = json!({"targetCluster": {"clusterNames": ["member1"]},
        "overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 7}]}});
    let ps = vec![policy(
        "OverridePolicy",
        Some("apps"),
        "old",
        deprecated.clone(),
    )];
    assert_eq!(
        run(&web(), "member1", &ps).manifest.unwrap()["spec"]["replicas"],
        json!(7)
    );
    assert_eq!(
        run(&web(), "member2", &ps).manifest.unwrap()["spec"]["replicas"],
        json!(1)
    );
    let mut both = deprecated;
    both["overrideRules"] = json!([{"overriders": {}}]);
    let ps = vec![policy("OverridePolicy", Some("apps"), "both", both)];
    let r = run(&web(), "member1", &ps);
    assert_eq!(r.manifest.unwrap()["spec"]["replicas"], json!(1));
    assert_eq!(
        r.policies[0].rules,
        vec![(0, false)],
        "an empty rule still applies"
    );
}

/// A cluster that cannot be read fails like the manager's GET.
#[test]
fn an_unknown_cluster_fails() {
    let r = apply_for_cluster(&web(), "ghost", None, &[]);
    assert_eq!(
        r.error.unwrap().message,
        "clusters.cluster.karmada.io \"ghost\" not found"
    );
}

/// A targetCluster that also selects by labels: for a cluster known by name only, the rule is
/// in doubt when the names let the cluster through, and not otherwise; a rule without
/// overriders changes nothing either way, so it is never in doubt.
#[test]
fn rules_that_select_by_labels_are_in_doubt_for_a_cluster_known_by_name() {
    let labels = json!({"labelsOverrider": [{"operator": "add", "value": {"team": "a"}}]});
    let rules = json!({"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}], "overrideRules": [
        {"targetCluster": {"clusterNames": ["m1"]}, "overriders": labels},
        {"targetCluster": {"clusterNames": ["m1", "m2"], "labelSelector": {"matchLabels": {"region": "dc1"}}}, "overriders": labels},
        {"targetCluster": {"exclude": ["m1"], "fieldSelector": {"matchExpressions": [{"key": "region", "operator": "In", "values": ["x"]}]}}, "overriders": labels},
        {"targetCluster": {"labelSelector": {}}, "overriders": labels},
        {"targetCluster": {"labelSelector": {"matchLabels": {"region": "dc1"}}}, "overriders": {}}
    ]});
    let ps = [policy("OverridePolicy", Some("apps"), "op", rules)];
    let refs: Vec<&OverridePolicy> = ps.iter().collect();
    let doubt = |cluster: &str| -> Vec<usize> {
        label_dependent_rules(&web(), cluster, &refs)
            .into_iter()
            .map(|(_, rule)| rule)
            .collect()
    };
    assert_eq!(doubt("m1"), [1]);
    assert_eq!(doubt("m2"), [1, 2]);
    assert_eq!(doubt("m3"), [2]);
}
