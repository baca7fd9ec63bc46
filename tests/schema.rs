//! Schema validation (`karmada_policy::schema`): drift between `schemas/` and Karmada's CRDs, one
//! failing and one passing case per rule with exact positions, version-aware enums, and the
//! shared corpus.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use karmada_policy::lint::rules::schema as lint_schema;
use karmada_policy::model::version::KarmadaVersion;
use karmada_policy::schema::{self, SchemaViolation};
use karmada_policy::source::{load, Node, Pos, Source};
use serde_json::{json, Value as Json};

const KINDS: [(&str, &str); 5] = [
    (
        "PropagationPolicy",
        "policy.karmada.io_propagationpolicies.yaml",
    ),
    (
        "ClusterPropagationPolicy",
        "policy.karmada.io_clusterpropagationpolicies.yaml",
    ),
    ("OverridePolicy", "policy.karmada.io_overridepolicies.yaml"),
    (
        "ClusterOverridePolicy",
        "policy.karmada.io_clusteroverridepolicies.yaml",
    ),
    (
        "ClusterTaintPolicy",
        "policy.karmada.io_clustertaintpolicies.yaml",
    ),
];

/// The kind Karmada serves from 1.14 (its CRD is absent at every v1.13 tag), and the tag the
/// newest release's schema of it is generated from: `../shared/karmada/crds` does not hold it.
const TAINT: &str = "ClusterTaintPolicy";
const TAINT_NEWEST_TAG: &str = "v1.19.0-rc.0";

/// `charts/karmada/_crds/bases/policy/<file>` at `tag` of the clone `repo`.
fn crd_at_tag(repo: &std::ffi::OsStr, tag: &str, file: &str) -> Json {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .arg("show")
        .arg(format!("{tag}:charts/karmada/_crds/bases/policy/{file}"))
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git show {tag}:{file}");
    crd_schema_of(file, String::from_utf8(out.stdout).unwrap())
}

fn shared(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(sub)
}

fn root_of(text: &str) -> Node {
    let loaded = load(Source::new("t.yaml", text));
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    loaded.documents[0].root.clone()
}

fn check(kind: &str, text: &str, version: KarmadaVersion) -> Vec<SchemaViolation> {
    schema::validate(kind, &root_of(text), version)
}

fn pp(text: &str) -> Vec<SchemaViolation> {
    check("PropagationPolicy", text, KarmadaVersion::LATEST)
}

/// (rule, field, line, col, message) for compact assertions.
fn summary(v: &[SchemaViolation]) -> Vec<(&'static str, String, u32, u32, String)> {
    v.iter()
        .map(|v| {
            (
                v.rule,
                v.field.to_string(),
                v.span.start.line,
                v.span.start.col,
                v.message.clone(),
            )
        })
        .collect()
}

const HEAD: &str = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: nginx
spec:
";

const SELECTORS: &str = "  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: nginx
";

// ---------------------------------------------------------------------------------------------
// Drift: schemas/ against ../shared/karmada/crds
// ---------------------------------------------------------------------------------------------

/// What the converted schema must say at one path, derived from the CRD.
#[derive(Debug, PartialEq)]
struct Facts {
    types: Vec<String>,
    enumeration: Option<Json>,
    required: Vec<String>,
    /// `Some(false)` for a closed object, `None` when any field is allowed or it is not an object.
    closed: Option<bool>,
    minimum: Option<i64>,
    maximum: Option<i64>,
    other_bounds: Vec<(String, Json)>,
    /// The CRD `default` (the admission chain applies it from the converted schema).
    default: Option<Json>,
    /// The structural-schema markers pruning reads (`x-kubernetes-preserve-unknown-fields`,
    /// `-embedded-resource`, `-int-or-string`), kept as they are.
    markers: Vec<&'static str>,
}

const MARKERS: [&str; 3] = [
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
];

fn markers(node: &Json) -> Vec<&'static str> {
    MARKERS
        .into_iter()
        .filter(|m| node.get(*m) == Some(&Json::Bool(true)))
        .collect()
}

/// `kept`: the node is an item (through arrays) of an array under
/// `x-kubernetes-preserve-unknown-fields`, whose unknown fields pruning keeps (`skipPrune`).
fn crd_facts(node: &Json, kept: bool) -> Facts {
    let mut types: Vec<String> = match node.get("type").and_then(Json::as_str) {
        Some(t) => vec![t.to_string()],
        None => vec![],
    };
    if node.get("nullable") == Some(&Json::Bool(true)) {
        types.push("null".into());
    }
    if node.get("x-kubernetes-int-or-string") == Some(&Json::Bool(true)) {
        types = vec!["integer".into(), "string".into()];
    }
    let preserve = node.get("x-kubernetes-preserve-unknown-fields") == Some(&Json::Bool(true));
    let is_object = node.get("type").and_then(Json::as_str) == Some("object");
    let closed = (is_object && !preserve && !kept && node.get("additionalProperties").is_none())
        .then_some(true);
    let (mut minimum, mut maximum) = (
        node.get("minimum").and_then(Json::as_i64),
        node.get("maximum").and_then(Json::as_i64),
    );
    let range = match node.get("format").and_then(Json::as_str) {
        Some("int32") => Some((i32::MIN as i64, i32::MAX as i64)),
        Some("int64") => Some((i64::MIN, i64::MAX)),
        _ => None,
    };
    if let Some((lo, hi)) = range {
        minimum = Some(minimum.map_or(lo, |m| m.max(lo)));
        maximum = Some(maximum.map_or(hi, |m| m.min(hi)));
    }
    Facts {
        types,
        enumeration: node.get("enum").cloned(),
        required: sorted_strings(node.get("required")),
        closed,
        minimum,
        maximum,
        other_bounds: bounds(node),
        default: node.get("default").cloned(),
        markers: markers(node),
    }
}

fn schema_facts(node: &Json) -> Facts {
    let mut types: Vec<String> = match node.get("type") {
        Some(Json::String(t)) => vec![t.clone()],
        Some(Json::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(String::from))
            .collect(),
        _ => vec![],
    };
    if let Some(any) = node.get("anyOf").and_then(Json::as_array) {
        types.extend(
            any.iter()
                .filter_map(|b| b.get("type").and_then(Json::as_str).map(String::from)),
        );
    }
    Facts {
        types,
        enumeration: node.get("enum").cloned(),
        required: sorted_strings(node.get("required")),
        closed: (node.get("additionalProperties") == Some(&Json::Bool(false))).then_some(true),
        minimum: node.get("minimum").and_then(Json::as_i64),
        maximum: node.get("maximum").and_then(Json::as_i64),
        other_bounds: bounds(node),
        default: node.get("default").cloned(),
        markers: markers(node),
    }
}

fn bounds(node: &Json) -> Vec<(String, Json)> {
    [
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minProperties",
        "maxProperties",
    ]
    .iter()
    .filter_map(|k| node.get(*k).map(|v| (k.to_string(), v.clone())))
    .collect()
}

fn sorted_strings(v: Option<&Json>) -> Vec<String> {
    let mut out: Vec<String> = v
        .and_then(Json::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Walks the CRD schema and the converted schema together, collecting every difference.
fn compare(
    path: &str,
    crd: Option<&Json>,
    ours: Option<&Json>,
    kept: bool,
    diffs: &mut Vec<String>,
) {
    let (crd, ours) = match (crd, ours) {
        (Some(c), Some(o)) => (c, o),
        (Some(_), None) => return diffs.push(format!("{path}: in the CRD, missing from schemas/")),
        (None, Some(_)) => return diffs.push(format!("{path}: in schemas/, not in the CRD")),
        (None, None) => return,
    };
    let (want, got) = (crd_facts(crd, kept), schema_facts(ours));
    if crd
        .get("additionalProperties")
        .is_some_and(Json::is_boolean)
    {
        // The converter's `additionalProperties: false` means "strict", which a CRD keyword
        // of its own would make ambiguous (src/schema/structural.rs, `Origin::Converted`).
        diffs.push(format!(
            "{path}: the CRD declares a boolean additionalProperties"
        ));
    }
    if want != got {
        diffs.push(format!("{path}: CRD says {want:?}, schemas/ says {got:?}"));
    }
    let names = |n: &Json| -> Vec<String> {
        n.get("properties")
            .and_then(Json::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let mut all = names(crd);
    all.extend(names(ours));
    all.sort();
    all.dedup();
    for name in all {
        let sub = format!("{path}.{name}");
        if sub == ".metadata" {
            continue; // ObjectMeta: checked by `metadata_is_object_meta`
        }
        compare(
            &sub,
            crd.pointer(&format!("/properties/{name}")),
            ours.pointer(&format!("/properties/{name}")),
            false,
            diffs,
        );
    }
    let preserve = crd.get("x-kubernetes-preserve-unknown-fields") == Some(&Json::Bool(true));
    compare(
        &format!("{path}[]"),
        crd.get("items"),
        ours.get("items"),
        kept || preserve,
        diffs,
    );
    let extra = |n: &Json| {
        n.get("additionalProperties")
            .filter(|a| a.is_object())
            .cloned()
    };
    compare(
        &format!("{path}{{}}"),
        extra(crd).as_ref(),
        extra(ours).as_ref(),
        false,
        diffs,
    );
}

fn crd_schema(file: &Path) -> Json {
    let text = std::fs::read_to_string(file).unwrap();
    crd_schema_of(&file.display().to_string(), text)
}

fn crd_schema_of(name: &str, text: String) -> Json {
    let file = Path::new(name);
    let loaded = load(Source::new(name, text));
    let crd = loaded.documents[0].root.to_json();
    let versions = crd["spec"]["versions"].as_array().unwrap();
    assert_eq!(
        versions.len(),
        1,
        "{}: one version expected",
        file.display()
    );
    versions[0]["schema"]["openAPIV3Schema"].clone()
}

#[test]
fn schemas_match_the_crds() {
    let crds = shared("karmada/crds");
    if !crds.is_dir() {
        eprintln!(
            "skipping: {} is missing (the CRDs live beside the crate in the shared workspace)",
            crds.display()
        );
        return;
    }
    let mut diffs = Vec::new();
    for (kind, file) in KINDS {
        let on_disk = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schemas")
            .join(format!("{kind}.schema.json"));
        let text = std::fs::read_to_string(&on_disk).unwrap();
        assert_eq!(
            schema::schema_text(kind),
            Some(text.as_str()),
            "the binary embeds schemas/{kind}.schema.json"
        );
        let ours: Json = serde_json::from_str(&text).unwrap();
        let crd = if kind == TAINT && !crds.join(file).exists() {
            assert!(
                ours["$comment"]
                    .as_str()
                    .is_some_and(|c| c.contains(&format!("tag {TAINT_NEWEST_TAG}"))),
                "schemas/{kind}.schema.json is generated from {TAINT_NEWEST_TAG}"
            );
            let Some(repo) = std::env::var_os("KARMADA_REPO") else {
                println!("SKIPPED: {file} is not in {}; set KARMADA_REPO to compare schemas/{kind} with {TAINT_NEWEST_TAG}", crds.display());
                continue;
            };
            crd_at_tag(&repo, TAINT_NEWEST_TAG, file)
        } else {
            crd_schema(&crds.join(file))
        };
        let before = diffs.len();
        compare("", Some(&crd), Some(&ours), false, &mut diffs);
        for d in &mut diffs[before..] {
            *d = format!("{kind}{d}");
        }
    }
    assert!(
        diffs.is_empty(),
        "schemas/ drifted from ../shared/karmada/crds (run scripts/gen-schemas.py):\n{}",
        diffs.join("\n")
    );
}

/// `schemas/v1.MINOR/` against the CRDs of tag `v1.MINOR.0`, read with `git show` from the
/// karmada-io/karmada clone `$KARMADA_REPO` names: every property, type, enum, required list,
/// bound and default.
fn release_matches_its_crds(minor: u32) {
    let Some(repo) = std::env::var_os("KARMADA_REPO") else {
        println!("SKIPPED: set KARMADA_REPO to a karmada-io/karmada clone to compare schemas/v1.{minor} with tag v1.{minor}.0");
        return;
    };
    let version = KarmadaVersion::new(1, minor);
    let mut diffs = Vec::new();
    for (kind, file) in KINDS {
        let on_disk = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("schemas/v1.{minor}/{kind}.schema.json"));
        if kind == TAINT && minor < 14 {
            assert!(!on_disk.exists(), "1.{minor} does not serve {kind}");
            assert_eq!(schema::release_schema_text(kind, version), None);
            continue;
        }
        let text = std::fs::read_to_string(&on_disk).unwrap();
        assert_eq!(
            schema::release_schema_text(kind, version),
            Some(text.as_str())
        );
        let ours: Json = serde_json::from_str(&text).unwrap();
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(&repo)
            .arg("show")
            .arg(format!(
                "v1.{minor}.0:charts/karmada/_crds/bases/policy/{file}"
            ))
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git show v1.{minor}.0:{file}");
        let crd = crd_schema_of(file, String::from_utf8(out.stdout).unwrap());
        let before = diffs.len();
        compare("", Some(&crd), Some(&ours), false, &mut diffs);
        for d in &mut diffs[before..] {
            *d = format!("v1.{minor} {kind}{d}");
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

macro_rules! release_tests {
    ($($name:ident: $minor:expr,)*) => {$(
        #[test]
        fn $name() {
            release_matches_its_crds($minor);
        }
    )*};
}

release_tests! {
    release_1_10_schemas_match_its_crds: 10,
    release_1_11_schemas_match_its_crds: 11,
    release_1_12_schemas_match_its_crds: 12,
    release_1_13_schemas_match_its_crds: 13,
    release_1_14_schemas_match_its_crds: 14,
    release_1_15_schemas_match_its_crds: 15,
    release_1_16_schemas_match_its_crds: 16,
    release_1_17_schemas_match_its_crds: 17,
    release_1_18_schemas_match_its_crds: 18,
}

/// What each release's CRDs say about the fields whose rules changed (read from the tags'
/// `charts/karmada/_crds/bases/policy/policy.karmada.io_propagationpolicies.yaml`), checked
/// without a clone.
#[test]
fn each_release_has_its_own_enums_and_defaults() {
    let purge = "/properties/spec/properties/failover/properties/application/properties/purgeMode";
    for minor in 10..=19 {
        let v = KarmadaVersion::new(1, minor);
        for kind in ["PropagationPolicy", "ClusterPropagationPolicy"] {
            let s = schema::schema_json(kind, v).unwrap();
            let (enumeration, default) = match minor {
                // 1.10's CRD has no enum on the field yet.
                10 => (Json::Null, json!("Graciously")),
                11..=14 => (
                    json!(["Immediately", "Graciously", "Never"]),
                    json!("Graciously"),
                ),
                15..=18 => (
                    json!([
                        "Directly",
                        "Gracefully",
                        "Never",
                        "Immediately",
                        "Graciously"
                    ]),
                    json!("Gracefully"),
                ),
                _ => (
                    json!(["Directly", "Gracefully", "Never"]),
                    json!("Gracefully"),
                ),
            };
            let found = s
                .pointer(&format!("{purge}/enum"))
                .cloned()
                .unwrap_or(Json::Null);
            assert_eq!(found, enumeration, "{kind} {v}");
            assert_eq!(
                s.pointer(&format!("{purge}/default")),
                Some(&default),
                "{kind} {v}"
            );
            assert_eq!(
                s.pointer("/properties/spec/required"),
                Some(&json!(["resourceSelectors"])),
                "{kind} {v}"
            );
            assert_eq!(
                s.pointer("/properties/spec/properties/schedulerName/default"),
                Some(&json!("default-scheduler"))
            );
        }
    }
}

#[test]
fn drift_is_caught() {
    // The comparison itself must see a changed enum, a dropped field and a lost required entry.
    let crd = json!({"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string", "enum": ["X", "Y"]}, "b": {"type": "integer", "format": "int32"}}});
    let good = json!({"type": "object", "additionalProperties": false, "required": ["a"], "properties": {
        "a": {"type": "string", "enum": ["X", "Y"]},
        "b": {"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX}}});
    let mut diffs = Vec::new();
    compare("", Some(&crd), Some(&good), false, &mut diffs);
    assert!(diffs.is_empty(), "{diffs:?}");
    let bad = json!({"type": "object", "properties": {
        "a": {"type": "string", "enum": ["X"]}}});
    compare("", Some(&crd), Some(&bad), false, &mut diffs);
    assert_eq!(diffs.len(), 3, "{diffs:?}");
    assert!(
        diffs[0].starts_with(": CRD says"),
        "required and closed: {}",
        diffs[0]
    );
    assert!(diffs[1].starts_with(".a:"), "{}", diffs[1]);
    assert!(
        diffs[2].starts_with(".b: in the CRD, missing"),
        "{}",
        diffs[2]
    );
}

#[test]
fn metadata_is_object_meta() {
    for (kind, _) in KINDS {
        let s: Json = serde_json::from_str(schema::schema_text(kind).unwrap()).unwrap();
        let m = &s["properties"]["metadata"];
        assert_eq!(m["additionalProperties"], false, "{kind}");
        for f in ["name", "namespace", "generateName"] {
            assert_eq!(m["properties"][f]["type"], "string", "{kind} {f}");
        }
        for f in ["labels", "annotations"] {
            assert_eq!(
                m["properties"][f]["additionalProperties"]["type"], "string",
                "{kind} {f}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One failing and one passing case per rule, with exact positions
// ---------------------------------------------------------------------------------------------

#[test]
fn unknown_field_beside_placement_points_at_its_key() {
    let bad = format!(
        "{HEAD}{SELECTORS}  placement:
    replicaScheduling:
      replicaSchedulingType: Duplicated
  clusterAffinity:
    clusterNames:
      - member1
"
    );
    assert_eq!(
        summary(&pp(&bad)),
        vec![(
            "schema-unknown-field",
            "spec.clusterAffinity".into(),
            13,
            3,
            "unknown field \"spec.clusterAffinity\"".into()
        )]
    );
    let good = format!(
        "{HEAD}{SELECTORS}  placement:
    replicaScheduling:
      replicaSchedulingType: Duplicated
    clusterAffinity:
      clusterNames:
        - member1
"
    );
    assert_eq!(pp(&good), vec![]);
}

#[test]
fn unknown_fields_in_lists_and_metadata() {
    let bad = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: nginx
  lables: {app: x}
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      nmae: nginx
";
    assert_eq!(
        summary(&pp(bad)),
        vec![
            (
                "schema-unknown-field",
                "metadata.lables".into(),
                5,
                3,
                "unknown field \"metadata.lables\"".into()
            ),
            (
                "schema-unknown-field",
                "spec.resourceSelectors[0].nmae".into(),
                10,
                7,
                "unknown field \"spec.resourceSelectors[0].nmae\"".into()
            ),
        ]
    );
}

#[test]
fn type_errors_point_at_the_value() {
    let bad = format!("{HEAD}{SELECTORS}  priority: high\n");
    assert_eq!(
        summary(&pp(&bad)),
        vec![(
            "schema-type",
            "spec.priority".into(),
            10,
            13,
            "spec.priority: Invalid value: \"string\": spec.priority in body must be of type integer: \"high\"".into()
        )]
    );
    assert_eq!(pp(&format!("{HEAD}{SELECTORS}  priority: 5\n")), vec![]);

    // A scalar where a list is wanted, and a number where a label value (string) is wanted.
    let bad = "apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: nginx
  labels:
    version: 2
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
  placement:
    clusterAffinity:
      clusterNames: member1
";
    assert_eq!(
        summary(&pp(bad)),
        vec![
            (
                "schema-type",
                "metadata.labels.version".into(),
                6,
                14,
                "metadata.labels.version: Invalid value: \"integer\": metadata.labels.version in body must be of type string: 2".into()
            ),
            (
                "schema-type",
                "spec.placement.clusterAffinity.clusterNames".into(),
                13,
                21,
                "spec.placement.clusterAffinity.clusterNames: Invalid value: \"string\": spec.placement.clusterAffinity.clusterNames in body must be of type array: \"member1\"".into()
            ),
        ]
    );
}

#[test]
fn enum_errors_list_the_supported_values() {
    let bad = format!("{HEAD}{SELECTORS}  preemption: Sometimes\n");
    assert_eq!(
        summary(&pp(&bad)),
        vec![(
            "schema-enum",
            "spec.preemption".into(),
            10,
            15,
            "spec.preemption: Unsupported value: \"Sometimes\": supported values: \"Always\", \"Never\"".into()
        )]
    );
    assert_eq!(
        pp(&format!("{HEAD}{SELECTORS}  preemption: Always\n")),
        vec![]
    );
}

#[test]
fn required_errors_point_at_the_parent_key() {
    let bad = format!("{HEAD}  priority: 1\n");
    assert_eq!(
        summary(&pp(&bad)),
        vec![(
            "schema-required",
            "spec.resourceSelectors".into(),
            5,
            1,
            "spec.resourceSelectors: Required value".into()
        )]
    );
    // Inside a list item: the item is the parent.
    let bad = format!("{HEAD}  resourceSelectors:\n    - apiVersion: apps/v1\n      name: x\n");
    assert_eq!(
        summary(&pp(&bad)),
        vec![(
            "schema-required",
            "spec.resourceSelectors[0].kind".into(),
            7,
            7,
            "spec.resourceSelectors[0].kind: Required value".into()
        )]
    );
    // `null` is pruned by the API server, so a null required field is missing.
    let bad = format!("{HEAD}  resourceSelectors: null\n");
    let v = summary(&pp(&bad));
    assert_eq!(v.len(), 1);
    assert_eq!((v[0].0, v[0].2, v[0].3), ("schema-required", 6, 3));
    assert_eq!(pp(&format!("{HEAD}{SELECTORS}")), vec![]);
}

#[test]
fn constraint_errors() {
    let bad = format!("{HEAD}  resourceSelectors: []\n  priority: 3000000000\n");
    assert_eq!(
        summary(&pp(&bad)),
        vec![
            (
                "schema-constraint",
                "spec.resourceSelectors".into(),
                6,
                22,
                "spec.resourceSelectors: Invalid value: 0: spec.resourceSelectors in body should have at least 1 items".into()
            ),
            (
                "schema-constraint",
                "spec.priority".into(),
                7,
                13,
                "spec.priority: Invalid value: 3000000000: spec.priority in body should be less than or equal to 2147483647".into()
            ),
        ]
    );
    let weights = |w: i64| {
        format!(
            "{HEAD}{SELECTORS}  placement:
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
          - targetCluster:
              clusterNames: [member1]
            weight: {w}
"
        )
    };
    assert_eq!(
        summary(&pp(&weights(0))),
        vec![(
            "schema-constraint",
            "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight".into(),
            18,
            21,
            "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight: Invalid value: 0: spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight in body should be greater than or equal to 1".into()
        )]
    );
    assert_eq!(pp(&weights(1)), vec![]);
    assert_eq!(
        pp(&format!("{HEAD}{SELECTORS}  priority: 2147483647\n")),
        vec![]
    );
}

#[test]
fn violations_are_sorted_by_position() {
    let bad = format!(
        "{HEAD}  zzz: 1\n  priority: high\n  resourceSelectors:\n    - kind: Deployment\n  preemption: Sometimes\n"
    );
    let v = pp(&bad);
    let positions: Vec<Pos> = v.iter().map(|v| v.span.start).collect();
    let mut sorted = positions.clone();
    sorted.sort();
    assert_eq!(positions, sorted);
    let rules: Vec<&str> = v.iter().map(|v| v.rule).collect();
    assert_eq!(
        rules,
        [
            "schema-unknown-field",
            "schema-type",
            "schema-required",
            "schema-enum"
        ]
    );
}

#[test]
fn purge_mode_enum_depends_on_the_karmada_version() {
    let doc = |mode: &str| {
        format!("{HEAD}{SELECTORS}  propagateDeps: true\n  failover:\n    application:\n      decisionConditions:\n        tolerationSeconds: 60\n      purgeMode: {mode}\n")
    };
    // Up to 1.14: Immediately | Graciously | Never. 1.15-1.18 accept both spellings (their
    // CRDs list Directly, Gracefully, Never, Immediately, Graciously); 1.19 drops the old one.
    let v114 = KarmadaVersion::new(1, 14);
    let v118 = KarmadaVersion::new(1, 18);
    let v119 = KarmadaVersion::new(1, 19);
    for kind in ["PropagationPolicy", "ClusterPropagationPolicy"] {
        assert_eq!(check(kind, &doc("Immediately"), v114), vec![]);
        assert_eq!(check(kind, &doc("Graciously"), v114), vec![]);
        assert_eq!(check(kind, &doc("Never"), v114), vec![]);
        for minor in 15..=18 {
            let v = KarmadaVersion::new(1, minor);
            for mode in [
                "Directly",
                "Gracefully",
                "Never",
                "Immediately",
                "Graciously",
            ] {
                assert_eq!(check(kind, &doc(mode), v), vec![], "{mode} under {v}");
            }
        }
        assert_eq!(check(kind, &doc("Directly"), v119), vec![]);
        assert_eq!(check(kind, &doc("Gracefully"), v119), vec![]);
        assert_eq!(check(kind, &doc("Never"), v119), vec![]);
        assert_eq!(
            summary(&check(kind, &doc("Immediately"), v119)),
            vec![(
                "schema-enum",
                "spec.failover.application.purgeMode".into(),
                15,
                18,
                "spec.failover.application.purgeMode: Unsupported value: \"Immediately\": supported values: \"Directly\", \"Gracefully\", \"Never\"".into()
            )]
        );
        assert_eq!(
            summary(&check(kind, &doc("Gracefully"), v114))[0].4,
            "spec.failover.application.purgeMode: Unsupported value: \"Gracefully\": supported values: \"Immediately\", \"Graciously\", \"Never\""
        );
    }
    // failover.cluster.purgeMode kept its values.
    let cluster =
        format!("{HEAD}{SELECTORS}  failover:\n    cluster:\n      purgeMode: Directly\n");
    assert_eq!(check("PropagationPolicy", &cluster, v118), vec![]);
    assert_eq!(check("PropagationPolicy", &cluster, v119), vec![]);
}

#[test]
fn nulls_are_pruned_from_objects_but_not_lists() {
    assert_eq!(
        pp(&format!(
            "{HEAD}{SELECTORS}  priority: null\n  placement: ~\n"
        )),
        vec![]
    );
    let bad = format!(
        "{HEAD}{SELECTORS}  placement:\n    clusterAffinity:\n      clusterNames: [member1, null]\n"
    );
    let v = summary(&pp(&bad));
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(
        (v[0].0, v[0].1.as_str(), v[0].2, v[0].3),
        (
            "schema-type",
            "spec.placement.clusterAffinity.clusterNames[1]",
            12,
            31
        )
    );
}

#[test]
fn unrendered_placeholders_are_not_judged() {
    // wave-rollout.sh in the Karmada website renders this with envsubst before applying.
    let doc = format!("{HEAD}{SELECTORS}  placement:\n    clusterAffinity:\n      clusterNames: ${{cluster_list}}\n  preemption: \"{{{{ .Values.preemption }}}}\"\n");
    assert_eq!(pp(&doc), vec![]);
    let v = summary(&pp(&doc.replace("${cluster_list}", "member-${n}")));
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].0, "schema-type");
}

#[test]
fn override_policy_values_are_free_form() {
    let op = "apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata:
  name: o
  namespace: default
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
  overrideRules:
    - targetCluster:
        clusterNames: [member1]
      overriders:
        plaintext:
          - path: /spec/template
            operator: replace
            value:
              anything: [1, {deep: true}]
        imageOverrider:
          - component: Registry
            operator: replace
            value: registry.example.com
";
    assert_eq!(check("OverridePolicy", op, KarmadaVersion::LATEST), vec![]);
    let bad = op.replace("component: Registry", "component: Host");
    let v = summary(&check(
        "ClusterOverridePolicy",
        &bad,
        KarmadaVersion::LATEST,
    ));
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].0, "schema-enum");
    assert_eq!(
        v[0].1,
        "spec.overrideRules[0].overriders.imageOverrider[0].component"
    );
    assert_eq!((v[0].2, v[0].3), (20, 24));
}

#[test]
fn other_kinds_have_no_schema() {
    let doc = root_of("apiVersion: apps/v1\nkind: Deployment\nspec: {nonsense: 1}\n");
    assert_eq!(
        schema::validate("Deployment", &doc, KarmadaVersion::LATEST),
        vec![]
    );
}

#[test]
fn rules_are_documented() {
    let ids: Vec<&str> = lint_schema::DOCS.iter().map(|r| r.id).collect();
    assert_eq!(
        ids,
        [
            "schema-unknown-field",
            "schema-type",
            "schema-enum",
            "schema-required",
            "schema-constraint"
        ]
    );
    for r in lint_schema::DOCS {
        assert!(!r.summary.is_empty() && !r.rationale.is_empty() && !r.fix.is_empty());
        // Each rule's example is a whole manifest that triggers that rule and only that one
        // against its kind's schema.
        let kind = r
            .example
            .lines()
            .find_map(|l| l.strip_prefix("kind: "))
            .expect("the example names its kind");
        let v = check(kind, r.example, KarmadaVersion::LATEST);
        assert!(
            !v.is_empty() && v.iter().all(|v| v.rule == r.id),
            "{}: {v:?}",
            r.id
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The shared corpus and throughput
// ---------------------------------------------------------------------------------------------

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            out.push(p);
        }
    }
}

#[test]
fn corpus_validates_without_panic() {
    let corpus = shared("corpus");
    if !corpus.is_dir() {
        eprintln!("skipping: {} is missing", corpus.display());
        return;
    }
    let mut files = Vec::new();
    walk(&corpus, &mut files);
    let mut policies = 0;
    let mut report: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let name = file.strip_prefix(&corpus).unwrap().display().to_string();
        let loaded = load(Source::new(name.clone(), text));
        for doc in &loaded.documents {
            let kind = doc.root.get("kind").and_then(Node::as_str).unwrap_or("");
            if !KINDS.iter().any(|(k, _)| *k == kind) {
                continue;
            }
            policies += 1;
            for version in [KarmadaVersion::new(1, 18), KarmadaVersion::LATEST] {
                let v = schema::validate(kind, &doc.root, version);
                for x in &v {
                    assert!(x.span.start.line >= 1, "{name}: {x:?}");
                }
                if version == KarmadaVersion::LATEST {
                    for x in v {
                        report.entry(doc.label()).or_default().push(format!(
                            "{}:{}: {}: {}",
                            x.span.start.line, x.span.start.col, x.rule, x.message
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "{policies} policy documents in {} files; {} with violations:",
        files.len(),
        report.len()
    );
    for (doc, lines) in &report {
        for l in lines {
            eprintln!("  {doc}:{l}");
        }
    }
    assert!(policies > 100, "the corpus has policies: {policies}");
}

#[test]
fn validation_is_cheap_per_document() {
    let text = format!(
        "{HEAD}{SELECTORS}  placement:\n    clusterAffinity:\n      clusterNames: [member1, member2]\n    replicaScheduling:\n      replicaSchedulingType: Duplicated\n  priority: 10\n  preemption: Always\n"
    );
    let root = root_of(&text);
    assert_eq!(
        schema::validate("PropagationPolicy", &root, KarmadaVersion::LATEST),
        vec![]
    );
    let start = std::time::Instant::now();
    for _ in 0..10_000 {
        assert!(schema::validate("PropagationPolicy", &root, KarmadaVersion::LATEST).is_empty());
    }
    let elapsed = start.elapsed();
    eprintln!("10,000 valid policies: {elapsed:?}");
    // Generous for an unoptimised test build on a shared 2-core machine; release is far faster.
    assert!(elapsed.as_secs() < 10, "{elapsed:?}");
}

/// What the ClusterTaintPolicy CRD says (`policy.karmada.io_clustertaintpolicies.yaml` at
/// v1.14.0 and v1.19.0-rc.0, the same schema): `spec.taints` required with at least one item,
/// each taint's `key` and `effect` required, `effect` a plain string (no enum: any value is
/// stored), unknown fields refused. Checked without a clone.
#[test]
fn cluster_taint_policy_schema() {
    let text = "apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata:
  name: t
spec:
  targetClusters:
    clusterNames: [member1]
  taints:
    - key: dedicated
      effect: Sometimes
      colour: red
    - value: x
";
    let v = check(TAINT, text, KarmadaVersion::LATEST);
    assert_eq!(
        summary(&v),
        [
            (
                "schema-unknown-field",
                "spec.taints[0].colour".to_string(),
                11,
                7,
                "unknown field \"spec.taints[0].colour\"".to_string()
            ),
            (
                "schema-required",
                "spec.taints[1].effect".to_string(),
                12,
                7,
                "spec.taints[1].effect: Required value".to_string()
            ),
            (
                "schema-required",
                "spec.taints[1].key".to_string(),
                12,
                7,
                "spec.taints[1].key: Required value".to_string()
            ),
        ]
    );
    let empty = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterTaintPolicy\nmetadata: {name: t}\nspec: {taints: []}\n";
    let rules: Vec<&str> = check(TAINT, empty, KarmadaVersion::LATEST)
        .iter()
        .map(|v| v.rule)
        .collect();
    assert_eq!(rules, ["schema-constraint"]);
    let missing = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterTaintPolicy\nmetadata: {name: t}\nspec: {}\n";
    assert_eq!(
        check(TAINT, missing, KarmadaVersion::new(1, 14))[0].message,
        "spec.taints: Required value"
    );
    // 1.13 does not serve the kind: no schema (unserved-karmada-kind reports the document).
    assert_eq!(check(TAINT, missing, KarmadaVersion::new(1, 13)), vec![]);
}
