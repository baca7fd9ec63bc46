//! Karmada's Go types for policies, as `encoding/json` sees them, and the round trip the
//! mutating webhook puts every object through: decode into the structs, re-marshal
//! (admission-chain.md §3.2, §4).
//!
//! The table is the JSON face of `pkg/apis/policy/v1alpha1/propagation_types.go` (v1.19) and the
//! apimachinery types it uses: each field's JSON name, Go type, whether it is a pointer and
//! whether it is `omitempty`. Fields are listed in Go declaration order, which is the order
//! `json.Marshal` writes them in.
//!
//! Two passes, because Go decodes in the request's byte order (keys sorted, §3.2) but marshals
//! in declaration order:
//! - [`first_type_error`]: the first value the Go types cannot hold, with the decoder's message;
//! - [`round_trip`]: `json.Marshal(decoded)` of a document that decodes cleanly.

use serde_json::{Map, Value as Json};

use crate::source::FieldPath;

/// A Go type as the JSON decoder meets it.
#[derive(Debug)]
pub enum GoType {
    /// A string kind; the name is what `reflect` prints (`string`, `v1alpha1.PurgeMode`).
    Str(&'static str),
    /// A signed integer of this many bits; the name is `int32`, `int` or `int64`.
    Int(&'static str, u32),
    Bool,
    Struct(&'static GoStruct),
    Slice(&'static GoType, &'static str),
    /// `map[string]string`.
    StringMap,
    /// `apiextensionsv1.JSON`: decodes any JSON value (its own `UnmarshalJSON`), and, being a
    /// struct, is never omitted: an absent or `null` value marshals as `null`.
    Json,
}

/// One struct field.
#[derive(Debug)]
pub struct GoField {
    /// The JSON name; for an embedded (`,inline`) struct, the Go field name.
    pub name: &'static str,
    pub ty: GoType,
    pub pointer: bool,
    pub omitempty: bool,
    /// An embedded struct whose fields are promoted into the parent's JSON object.
    pub inline: bool,
}

#[derive(Debug)]
pub struct GoStruct {
    /// The Go type name without package (`ResourceSelector`), as decoder messages print it.
    pub name: &'static str,
    /// `reflect`'s name with package (`v1alpha1.ResourceSelector`).
    pub qualified: &'static str,
    pub fields: &'static [GoField],
}

const fn f(name: &'static str, ty: GoType) -> GoField {
    GoField {
        name,
        ty,
        pointer: false,
        omitempty: false,
        inline: false,
    }
}

/// A non-pointer `omitempty` field.
const fn oe(name: &'static str, ty: GoType) -> GoField {
    GoField {
        name,
        ty,
        pointer: false,
        omitempty: true,
        inline: false,
    }
}

/// A pointer `omitempty` field (every pointer of these types is omitempty).
const fn ptr(name: &'static str, ty: GoType) -> GoField {
    GoField {
        name,
        ty,
        pointer: true,
        omitempty: true,
        inline: false,
    }
}

const fn inline(name: &'static str, s: &'static GoStruct) -> GoField {
    GoField {
        name,
        ty: GoType::Struct(s),
        pointer: false,
        omitempty: false,
        inline: true,
    }
}

const STRING: GoType = GoType::Str("string");
const STRINGS: GoType = GoType::Slice(&STRING, "[]string");

static LABEL_SELECTOR_REQUIREMENT: GoStruct = GoStruct {
    name: "LabelSelectorRequirement",
    qualified: "v1.LabelSelectorRequirement",
    fields: &[
        f("key", STRING),
        f("operator", GoType::Str("v1.LabelSelectorOperator")),
        oe("values", STRINGS),
    ],
};

static LABEL_SELECTOR: GoStruct = GoStruct {
    name: "LabelSelector",
    qualified: "v1.LabelSelector",
    fields: &[
        oe("matchLabels", GoType::StringMap),
        oe(
            "matchExpressions",
            GoType::Slice(
                &GoType::Struct(&LABEL_SELECTOR_REQUIREMENT),
                "[]v1.LabelSelectorRequirement",
            ),
        ),
    ],
};

pub static RESOURCE_SELECTOR: GoStruct = GoStruct {
    name: "ResourceSelector",
    qualified: "v1alpha1.ResourceSelector",
    fields: &[
        f("apiVersion", STRING),
        f("kind", STRING),
        oe("namespace", STRING),
        oe("name", STRING),
        ptr("labelSelector", GoType::Struct(&LABEL_SELECTOR)),
    ],
};

static NODE_SELECTOR_REQUIREMENT: GoStruct = GoStruct {
    name: "NodeSelectorRequirement",
    qualified: "v1.NodeSelectorRequirement",
    fields: &[
        f("key", STRING),
        f("operator", GoType::Str("v1.NodeSelectorOperator")),
        oe("values", STRINGS),
    ],
};

static FIELD_SELECTOR: GoStruct = GoStruct {
    name: "FieldSelector",
    qualified: "v1alpha1.FieldSelector",
    fields: &[oe(
        "matchExpressions",
        GoType::Slice(
            &GoType::Struct(&NODE_SELECTOR_REQUIREMENT),
            "[]v1.NodeSelectorRequirement",
        ),
    )],
};

static CLUSTER_AFFINITY: GoStruct = GoStruct {
    name: "ClusterAffinity",
    qualified: "v1alpha1.ClusterAffinity",
    fields: &[
        ptr("labelSelector", GoType::Struct(&LABEL_SELECTOR)),
        ptr("fieldSelector", GoType::Struct(&FIELD_SELECTOR)),
        oe("clusterNames", STRINGS),
        oe("exclude", STRINGS),
    ],
};

static OVERFLOW_CLUSTER_AFFINITY: GoStruct = GoStruct {
    name: "OverflowClusterAffinity",
    qualified: "v1alpha1.OverflowClusterAffinity",
    fields: &[
        f("affinityName", STRING),
        inline("ClusterAffinity", &CLUSTER_AFFINITY),
    ],
};

static CLUSTER_AFFINITY_TERM: GoStruct = GoStruct {
    name: "ClusterAffinityTerm",
    qualified: "v1alpha1.ClusterAffinityTerm",
    fields: &[
        f("affinityName", STRING),
        inline("ClusterAffinity", &CLUSTER_AFFINITY),
        oe(
            "overflowAffinities",
            GoType::Slice(
                &GoType::Struct(&OVERFLOW_CLUSTER_AFFINITY),
                "[]v1alpha1.OverflowClusterAffinity",
            ),
        ),
    ],
};

static TOLERATION: GoStruct = GoStruct {
    name: "Toleration",
    qualified: "v1.Toleration",
    fields: &[
        oe("key", STRING),
        oe("operator", GoType::Str("v1.TolerationOperator")),
        oe("value", STRING),
        oe("effect", GoType::Str("v1.TaintEffect")),
        ptr("tolerationSeconds", GoType::Int("int64", 64)),
    ],
};

pub static SPREAD_CONSTRAINT: GoStruct = GoStruct {
    name: "SpreadConstraint",
    qualified: "v1alpha1.SpreadConstraint",
    fields: &[
        oe("spreadByField", GoType::Str("v1alpha1.SpreadFieldValue")),
        oe("spreadByLabel", STRING),
        oe("maxGroups", GoType::Int("int", 64)),
        oe("minGroups", GoType::Int("int", 64)),
    ],
};

static STATIC_CLUSTER_WEIGHT: GoStruct = GoStruct {
    name: "StaticClusterWeight",
    qualified: "v1alpha1.StaticClusterWeight",
    fields: &[
        f("targetCluster", GoType::Struct(&CLUSTER_AFFINITY)),
        f("weight", GoType::Int("int64", 64)),
    ],
};

static CLUSTER_PREFERENCES: GoStruct = GoStruct {
    name: "ClusterPreferences",
    qualified: "v1alpha1.ClusterPreferences",
    fields: &[
        oe(
            "staticWeightList",
            GoType::Slice(
                &GoType::Struct(&STATIC_CLUSTER_WEIGHT),
                "[]v1alpha1.StaticClusterWeight",
            ),
        ),
        oe("dynamicWeight", GoType::Str("v1alpha1.DynamicWeightFactor")),
    ],
};

pub static REPLICA_SCHEDULING: GoStruct = GoStruct {
    name: "ReplicaSchedulingStrategy",
    qualified: "v1alpha1.ReplicaSchedulingStrategy",
    fields: &[
        oe(
            "replicaSchedulingType",
            GoType::Str("v1alpha1.ReplicaSchedulingType"),
        ),
        oe(
            "replicaDivisionPreference",
            GoType::Str("v1alpha1.ReplicaDivisionPreference"),
        ),
        ptr("weightPreference", GoType::Struct(&CLUSTER_PREFERENCES)),
    ],
};

static WORKLOAD_AFFINITY_TERM: GoStruct = GoStruct {
    name: "WorkloadAffinityTerm",
    qualified: "v1alpha1.WorkloadAffinityTerm",
    fields: &[f("groupByLabelKey", STRING)],
};

static WORKLOAD_ANTI_AFFINITY_TERM: GoStruct = GoStruct {
    name: "WorkloadAntiAffinityTerm",
    qualified: "v1alpha1.WorkloadAntiAffinityTerm",
    fields: &[f("groupByLabelKey", STRING)],
};

static WORKLOAD_AFFINITY: GoStruct = GoStruct {
    name: "WorkloadAffinity",
    qualified: "v1alpha1.WorkloadAffinity",
    fields: &[
        ptr("affinity", GoType::Struct(&WORKLOAD_AFFINITY_TERM)),
        ptr("antiAffinity", GoType::Struct(&WORKLOAD_ANTI_AFFINITY_TERM)),
    ],
};

static PLACEMENT: GoStruct = GoStruct {
    name: "Placement",
    qualified: "v1alpha1.Placement",
    fields: &[
        ptr("clusterAffinity", GoType::Struct(&CLUSTER_AFFINITY)),
        oe(
            "clusterAffinities",
            GoType::Slice(
                &GoType::Struct(&CLUSTER_AFFINITY_TERM),
                "[]v1alpha1.ClusterAffinityTerm",
            ),
        ),
        oe(
            "clusterTolerations",
            GoType::Slice(&GoType::Struct(&TOLERATION), "[]v1.Toleration"),
        ),
        oe(
            "spreadConstraints",
            GoType::Slice(
                &GoType::Struct(&SPREAD_CONSTRAINT),
                "[]v1alpha1.SpreadConstraint",
            ),
        ),
        ptr("replicaScheduling", GoType::Struct(&REPLICA_SCHEDULING)),
        ptr("workloadAffinity", GoType::Struct(&WORKLOAD_AFFINITY)),
    ],
};

static SUSPEND_CLUSTERS: GoStruct = GoStruct {
    name: "SuspendClusters",
    qualified: "v1alpha1.SuspendClusters",
    fields: &[oe("clusterNames", STRINGS)],
};

static SUSPENSION: GoStruct = GoStruct {
    name: "Suspension",
    qualified: "v1alpha1.Suspension",
    fields: &[
        ptr("dispatching", GoType::Bool),
        ptr("dispatchingOnClusters", GoType::Struct(&SUSPEND_CLUSTERS)),
    ],
};

static STATE_PRESERVATION_RULE: GoStruct = GoStruct {
    name: "StatePreservationRule",
    qualified: "v1alpha1.StatePreservationRule",
    fields: &[f("aliasLabelName", STRING), f("jsonPath", STRING)],
};

static STATE_PRESERVATION: GoStruct = GoStruct {
    name: "StatePreservation",
    qualified: "v1alpha1.StatePreservation",
    fields: &[f(
        "rules",
        GoType::Slice(
            &GoType::Struct(&STATE_PRESERVATION_RULE),
            "[]v1alpha1.StatePreservationRule",
        ),
    )],
};

static DECISION_CONDITIONS: GoStruct = GoStruct {
    name: "DecisionConditions",
    qualified: "v1alpha1.DecisionConditions",
    fields: &[ptr("tolerationSeconds", GoType::Int("int32", 32))],
};

pub static APPLICATION_FAILOVER: GoStruct = GoStruct {
    name: "ApplicationFailoverBehavior",
    qualified: "v1alpha1.ApplicationFailoverBehavior",
    fields: &[
        f("decisionConditions", GoType::Struct(&DECISION_CONDITIONS)),
        oe("purgeMode", GoType::Str("v1alpha1.PurgeMode")),
        ptr("gracePeriodSeconds", GoType::Int("int32", 32)),
        ptr("statePreservation", GoType::Struct(&STATE_PRESERVATION)),
    ],
};

static CLUSTER_FAILOVER: GoStruct = GoStruct {
    name: "ClusterFailoverBehavior",
    qualified: "v1alpha1.ClusterFailoverBehavior",
    fields: &[
        oe("purgeMode", GoType::Str("v1alpha1.PurgeMode")),
        ptr("statePreservation", GoType::Struct(&STATE_PRESERVATION)),
    ],
};

static FAILOVER: GoStruct = GoStruct {
    name: "FailoverBehavior",
    qualified: "v1alpha1.FailoverBehavior",
    fields: &[
        ptr("application", GoType::Struct(&APPLICATION_FAILOVER)),
        ptr("cluster", GoType::Struct(&CLUSTER_FAILOVER)),
    ],
};

static SCHEDULE_PRIORITY: GoStruct = GoStruct {
    name: "SchedulePriority",
    qualified: "v1alpha1.SchedulePriority",
    fields: &[
        f(
            "priorityClassSource",
            GoType::Str("v1alpha1.PriorityClassSource"),
        ),
        f("priorityClassName", STRING),
    ],
};

/// `PropagationSpec`, shared by both policy kinds.
pub static PROPAGATION_SPEC: GoStruct = GoStruct {
    name: "PropagationSpec",
    qualified: "v1alpha1.PropagationSpec",
    fields: &[
        f(
            "resourceSelectors",
            GoType::Slice(
                &GoType::Struct(&RESOURCE_SELECTOR),
                "[]v1alpha1.ResourceSelector",
            ),
        ),
        oe("association", GoType::Bool),
        oe("propagateDeps", GoType::Bool),
        oe("placement", GoType::Struct(&PLACEMENT)),
        ptr("priority", GoType::Int("int32", 32)),
        oe("preemption", GoType::Str("v1alpha1.PreemptionBehavior")),
        oe("dependentOverrides", STRINGS),
        oe("schedulerName", STRING),
        ptr("failover", GoType::Struct(&FAILOVER)),
        oe(
            "conflictResolution",
            GoType::Str("v1alpha1.ConflictResolution"),
        ),
        oe(
            "activationPreference",
            GoType::Str("v1alpha1.ActivationPreference"),
        ),
        ptr("suspension", GoType::Struct(&SUSPENSION)),
        ptr("preserveResourcesOnDeletion", GoType::Bool),
        ptr("schedulePriority", GoType::Struct(&SCHEDULE_PRIORITY)),
    ],
};

const OPERATOR: GoType = GoType::Str("v1alpha1.OverriderOperator");

static PLAINTEXT_OVERRIDER: GoStruct = GoStruct {
    name: "PlaintextOverrider",
    qualified: "v1alpha1.PlaintextOverrider",
    fields: &[
        f("path", STRING),
        f("operator", OPERATOR),
        oe("value", GoType::Json),
    ],
};

static IMAGE_PREDICATE: GoStruct = GoStruct {
    name: "ImagePredicate",
    qualified: "v1alpha1.ImagePredicate",
    fields: &[f("path", STRING)],
};

static IMAGE_OVERRIDER: GoStruct = GoStruct {
    name: "ImageOverrider",
    qualified: "v1alpha1.ImageOverrider",
    fields: &[
        ptr("predicate", GoType::Struct(&IMAGE_PREDICATE)),
        f("component", GoType::Str("v1alpha1.ImageComponent")),
        f("operator", OPERATOR),
        oe("value", STRING),
    ],
};

static COMMAND_ARGS_OVERRIDER: GoStruct = GoStruct {
    name: "CommandArgsOverrider",
    qualified: "v1alpha1.CommandArgsOverrider",
    fields: &[
        f("containerName", STRING),
        f("operator", OPERATOR),
        oe("value", STRINGS),
    ],
};

static LABEL_ANNOTATION_OVERRIDER: GoStruct = GoStruct {
    name: "LabelAnnotationOverrider",
    qualified: "v1alpha1.LabelAnnotationOverrider",
    fields: &[f("operator", OPERATOR), f("value", GoType::StringMap)],
};

static JSON_PATCH_OPERATION: GoStruct = GoStruct {
    name: "JSONPatchOperation",
    qualified: "v1alpha1.JSONPatchOperation",
    fields: &[
        f("subPath", STRING),
        f("operator", OPERATOR),
        oe("value", GoType::Json),
    ],
};

static YAML_PATCH_OPERATION: GoStruct = GoStruct {
    name: "YAMLPatchOperation",
    qualified: "v1alpha1.YAMLPatchOperation",
    fields: &[
        f("subPath", STRING),
        f("operator", OPERATOR),
        oe("value", GoType::Json),
    ],
};

static FIELD_OVERRIDER: GoStruct = GoStruct {
    name: "FieldOverrider",
    qualified: "v1alpha1.FieldOverrider",
    fields: &[
        f("fieldPath", STRING),
        oe(
            "json",
            GoType::Slice(
                &GoType::Struct(&JSON_PATCH_OPERATION),
                "[]v1alpha1.JSONPatchOperation",
            ),
        ),
        oe(
            "yaml",
            GoType::Slice(
                &GoType::Struct(&YAML_PATCH_OPERATION),
                "[]v1alpha1.YAMLPatchOperation",
            ),
        ),
    ],
};

static OVERRIDERS: GoStruct = GoStruct {
    name: "Overriders",
    qualified: "v1alpha1.Overriders",
    fields: &[
        oe(
            "plaintext",
            GoType::Slice(
                &GoType::Struct(&PLAINTEXT_OVERRIDER),
                "[]v1alpha1.PlaintextOverrider",
            ),
        ),
        oe(
            "imageOverrider",
            GoType::Slice(
                &GoType::Struct(&IMAGE_OVERRIDER),
                "[]v1alpha1.ImageOverrider",
            ),
        ),
        oe(
            "commandOverrider",
            GoType::Slice(
                &GoType::Struct(&COMMAND_ARGS_OVERRIDER),
                "[]v1alpha1.CommandArgsOverrider",
            ),
        ),
        oe(
            "argsOverrider",
            GoType::Slice(
                &GoType::Struct(&COMMAND_ARGS_OVERRIDER),
                "[]v1alpha1.CommandArgsOverrider",
            ),
        ),
        oe(
            "labelsOverrider",
            GoType::Slice(
                &GoType::Struct(&LABEL_ANNOTATION_OVERRIDER),
                "[]v1alpha1.LabelAnnotationOverrider",
            ),
        ),
        oe(
            "annotationsOverrider",
            GoType::Slice(
                &GoType::Struct(&LABEL_ANNOTATION_OVERRIDER),
                "[]v1alpha1.LabelAnnotationOverrider",
            ),
        ),
        oe(
            "fieldOverrider",
            GoType::Slice(
                &GoType::Struct(&FIELD_OVERRIDER),
                "[]v1alpha1.FieldOverrider",
            ),
        ),
    ],
};

static RULE_WITH_CLUSTER: GoStruct = GoStruct {
    name: "RuleWithCluster",
    qualified: "v1alpha1.RuleWithCluster",
    fields: &[
        ptr("targetCluster", GoType::Struct(&CLUSTER_AFFINITY)),
        f("overriders", GoType::Struct(&OVERRIDERS)),
    ],
};

/// `OverrideSpec` (`override_types.go`), shared by both override kinds. `overriders` has no
/// `omitempty`, so the round trip always writes `"overriders": {}`; `overrideRules: []` goes.
pub static OVERRIDE_SPEC: GoStruct = GoStruct {
    name: "OverrideSpec",
    qualified: "v1alpha1.OverrideSpec",
    fields: &[
        oe(
            "resourceSelectors",
            GoType::Slice(
                &GoType::Struct(&RESOURCE_SELECTOR),
                "[]v1alpha1.ResourceSelector",
            ),
        ),
        oe(
            "overrideRules",
            GoType::Slice(
                &GoType::Struct(&RULE_WITH_CLUSTER),
                "[]v1alpha1.RuleWithCluster",
            ),
        ),
        ptr("targetCluster", GoType::Struct(&CLUSTER_AFFINITY)),
        f("overriders", GoType::Struct(&OVERRIDERS)),
    ],
};

/// An OverridePolicy as its mutating webhook decodes it (a ClusterOverridePolicy has no
/// mutating webhook, so it is never round-tripped).
pub static OVERRIDE_POLICY: GoStruct = GoStruct {
    name: "OverridePolicy",
    qualified: "v1alpha1.OverridePolicy",
    fields: &[f("spec", GoType::Struct(&OVERRIDE_SPEC))],
};

/// The policy object itself (TypeMeta and ObjectMeta aside: metadata is coerced by the API
/// server before any webhook, and the webhook's patch of it only adds labels and finalizers).
pub static PROPAGATION_POLICY: GoStruct = GoStruct {
    name: "PropagationPolicy",
    qualified: "v1alpha1.PropagationPolicy",
    fields: &[f("spec", GoType::Struct(&PROPAGATION_SPEC))],
};

pub static CLUSTER_PROPAGATION_POLICY: GoStruct = GoStruct {
    name: "ClusterPropagationPolicy",
    qualified: "v1alpha1.ClusterPropagationPolicy",
    fields: &[f("spec", GoType::Struct(&PROPAGATION_SPEC))],
};

/// The ObjectMeta fields the API server's strict metadata round trip can fail on
/// (`objectmeta/coerce.go`): the rest are server-set or free-form.
pub static OBJECT_META: GoStruct = GoStruct {
    name: "ObjectMeta",
    qualified: "v1.ObjectMeta",
    fields: &[
        oe("name", STRING),
        oe("generateName", STRING),
        oe("namespace", STRING),
        oe("uid", GoType::Str("types.UID")),
        oe("resourceVersion", STRING),
        oe("generation", GoType::Int("int64", 64)),
        ptr("deletionGracePeriodSeconds", GoType::Int("int64", 64)),
        oe("labels", GoType::StringMap),
        oe("annotations", GoType::StringMap),
        oe("finalizers", STRINGS),
    ],
};

/// A value Go cannot decode into its field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeError {
    /// Where the value is, with list indexes (for positions and the finding's field).
    pub at: FieldPath,
    /// `json: cannot unmarshal string into Go struct field PropagationSpec.spec.priority of type int32`.
    pub message: String,
}

/// The first value of `object` (decoded as `root`) that Go's decoder refuses, in the order the
/// webhook's request body lists it: keys sorted, list items in order (§3.2). `prefix` is the
/// path of `object` in the document (`metadata` for ObjectMeta, root for a policy).
pub fn first_type_error(
    object: &Json,
    root: &'static GoStruct,
    prefix: FieldPath,
) -> Option<TypeError> {
    let mut walk = Walk {
        prefix,
        steps: Vec::new(),
        names: Vec::new(),
    };
    walk.struct_value(object, root)
}

/// One step of the decoder's way into the document, borrowed from it: every policy is walked,
/// and the path is wanted only for an error.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The decoder's position: the document path (`prefix`, then `steps`) and the Go path (JSON
/// names without indexes, embedded structs by their Go field name).
struct Walk<'a> {
    prefix: FieldPath,
    steps: Vec<Step<'a>>,
    names: Vec<&'static str>,
}

impl<'a> Walk<'a> {
    /// The document path of the current position.
    fn at(&self) -> FieldPath {
        self.steps
            .iter()
            .fold(self.prefix.clone(), |path, step| match step {
                Step::Key(k) => path.key(*k),
                Step::Index(i) => path.index(*i),
            })
    }

    fn error(&self, what: String, owner: &GoStruct, ty: &str) -> TypeError {
        let path = self.names.join(".");
        TypeError {
            at: self.at(),
            message: format!(
                "json: cannot unmarshal {what} into Go struct field {}.{path} of type {ty}",
                owner.name
            ),
        }
    }

    /// `object` into `s`; `owner` is the struct whose field holds it (for messages).
    fn struct_value(&mut self, object: &'a Json, s: &'static GoStruct) -> Option<TypeError> {
        let Json::Object(map) = object else {
            return None;
        };
        // In key order: the webhook decodes the API server's JSON of the object, which Go
        // marshals from a map, its keys sorted.
        let mut entries: Vec<(&String, &Json)> = map.iter().collect();
        entries.sort_unstable_by_key(|(k, _)| *k);
        for (key, value) in entries {
            let Some((field, embedded)) = find_field(s, key) else {
                continue;
            };
            let depth = self.names.len();
            if let Some(e) = embedded {
                self.names.push(e);
            }
            self.names.push(field.name);
            self.steps.push(Step::Key(key));
            let found = self.value(value, &field.ty, s);
            self.steps.pop();
            self.names.truncate(depth);
            if found.is_some() {
                return found;
            }
        }
        None
    }

    fn value(
        &mut self,
        v: &'a Json,
        ty: &'static GoType,
        owner: &'static GoStruct,
    ) -> Option<TypeError> {
        if v.is_null() {
            return None; // null leaves the Go value at zero (decode.go:990-1003)
        }
        if v.as_str().is_some_and(super::placeholder::is_placeholder) {
            return None; // unrendered templating: its rendered type is unknown
        }
        match ty {
            GoType::Json => None,
            GoType::Str(name) => (!v.is_string()).then(|| self.error(kind_of(v), owner, name)),
            GoType::Bool => (!v.is_boolean()).then(|| self.error(kind_of(v), owner, "bool")),
            GoType::Int(name, bits) => match v {
                Json::Number(n) => (!fits(n, *bits))
                    .then(|| self.error(format!("number {}", go_number(n)), owner, name)),
                other => Some(self.error(kind_of(other), owner, name)),
            },
            GoType::StringMap => match v {
                Json::Object(map) => {
                    let mut keys: Vec<&String> = map.keys().collect();
                    keys.sort();
                    keys.into_iter().find_map(|k| {
                        let item = &map[k.as_str()];
                        (!item.is_string() && !item.is_null()).then(|| {
                            let mut e = self.error(kind_of(item), owner, "string");
                            e.at = self.at().key(k.as_str());
                            e
                        })
                    })
                }
                other => Some(self.error(kind_of(other), owner, "map[string]string")),
            },
            GoType::Slice(item, name) => match v {
                Json::Array(items) => {
                    for (i, it) in items.iter().enumerate() {
                        self.steps.push(Step::Index(i));
                        let found = self.value(it, item, owner);
                        self.steps.pop();
                        if found.is_some() {
                            return found;
                        }
                    }
                    None
                }
                other => Some(self.error(kind_of(other), owner, name)),
            },
            GoType::Struct(s) => match v {
                Json::Object(_) => self.struct_value(v, s),
                other => Some(self.error(kind_of(other), owner, s.qualified)),
            },
        }
    }
}

/// The field `key` names in `s`, looking into embedded structs (whose Go name is returned).
fn find_field(s: &'static GoStruct, key: &str) -> Option<(&'static GoField, Option<&'static str>)> {
    s.fields.iter().find_map(|fld| {
        if fld.inline {
            let GoType::Struct(inner) = &fld.ty else {
                return None;
            };
            inner
                .fields
                .iter()
                .find(|g| g.name == key)
                .map(|g| (g, Some(fld.name)))
        } else {
            (fld.name == key).then_some((fld, None))
        }
    })
}

/// What the decoder says it found: `string`, `number`, `bool`, `array`, `object`.
fn kind_of(v: &Json) -> String {
    match v {
        Json::String(_) => "string",
        Json::Number(_) => "number",
        Json::Bool(_) => "bool",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
        Json::Null => "null",
    }
    .to_string()
}

/// Whether `n` decodes into a signed integer of `bits` bits: an integer literal in range. The
/// API server re-encodes a float64 that holds an integer without a fraction (`1.0` → `1`).
fn fits(n: &serde_json::Number, bits: u32) -> bool {
    let max = if bits >= 64 {
        i64::MAX
    } else {
        (1i64 << (bits - 1)) - 1
    };
    let min = if bits >= 64 {
        i64::MIN
    } else {
        -(1i64 << (bits - 1))
    };
    if let Some(i) = n.as_i64() {
        return (min..=max).contains(&i);
    }
    if n.is_u64() {
        return false;
    }
    match n.as_f64() {
        Some(x) if x.fract() == 0.0 && x.abs() < 1e21 => {
            // `%v` of such a float64 is an integer literal; it decodes if it fits.
            x >= min as f64 && x < max as f64 + 1.0
        }
        _ => false,
    }
}

/// A number as the API server's `encoding/json` writes it into the webhook request: an int64
/// verbatim, anything else as a float64 (`100000000000000000000`, `1e+21`, `1.5`).
pub fn go_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    go_float(n.as_f64().unwrap_or(0.0))
}

/// `encoding/json`'s float64 format: `%f`-like between 1e-6 and 1e21, else exponent form with
/// a sign and at least two exponent digits except the `e-07` → `e-7` clean-up (encode.go).
fn go_float(x: f64) -> String {
    let abs = x.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return format!("{x}");
    }
    let s = format!("{x:e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    let digits = if digits.len() < 2 && sign == '+' {
        format!("0{digits}")
    } else {
        digits.to_string()
    };
    format!("{mantissa}e{sign}{digits}")
}

/// `json.Marshal` of `object` decoded into `s` (it must decode: see [`first_type_error`]).
/// Missing non-omitempty fields appear with their zero value, empty omitempty ones vanish, a
/// `null` list item becomes the zero struct/string/number (§4.2).
pub fn round_trip(object: Option<Json>, s: &'static GoStruct) -> Json {
    let mut out = Map::new();
    let mut input = match object {
        Some(Json::Object(map)) => Some(map),
        _ => None,
    };
    marshal_fields(input.as_mut(), s, &mut out);
    Json::Object(out)
}

/// [`round_trip`] of one object in place: how the mutating webhook's final `json.Marshal` leaves
/// an object it set a field of, its fields in the struct's order. Its other values are already
/// in marshaled form (the round trip is idempotent), so the webhook's patch of a whole spec
/// reduces to this on the objects it changed.
pub fn remarshal(map: &mut Map<String, Json>, s: &'static GoStruct) {
    if let Json::Object(out) = round_trip(Some(Json::Object(std::mem::take(map))), s) {
        *map = out;
    }
}

/// Moves `s`'s fields out of `input` into `out`, marshaled; what `s` has no field for stays
/// behind (and is dropped with it), as the decoder ignores it. Moving, not copying: the webhook
/// round-trips every policy's spec.
fn marshal_fields(
    mut input: Option<&mut Map<String, Json>>,
    s: &'static GoStruct,
    out: &mut Map<String, Json>,
) {
    for fld in s.fields {
        if fld.inline {
            if let GoType::Struct(inner) = &fld.ty {
                marshal_fields(input.as_deref_mut(), inner, out);
            }
            continue;
        }
        let given = input
            .as_deref_mut()
            .and_then(|m| field_mut(m, fld.name))
            .map(std::mem::take)
            .filter(|v| !v.is_null());
        let value = match (given, fld.pointer) {
            // A nil pointer: omitted (every pointer here is omitempty).
            (None, true) => continue,
            (Some(v), true) => decoded(Some(v), &fld.ty),
            (v, false) => decoded(v, &fld.ty),
        };
        if fld.omitempty && !fld.pointer && is_empty(&value, &fld.ty) {
            continue;
        }
        out.insert(fld.name.to_string(), value);
    }
}

/// `map`'s value of `name`. A spec writes a few of its struct's fields, so a struct's dozen
/// lookups in a map of two or three keys cost less as comparisons than as hashes (the map
/// hashes with SipHash): the two round trips per policy spent more on hashing than on moving.
fn field_mut<'m>(map: &'m mut Map<String, Json>, name: &str) -> Option<&'m mut Json> {
    const SCANNED: usize = 8;
    if map.len() > SCANNED {
        return map.get_mut(name);
    }
    map.iter_mut().find(|(k, _)| *k == name).map(|(_, v)| v)
}

/// The marshaled form of a (possibly absent) value of `ty`.
fn decoded(v: Option<Json>, ty: &'static GoType) -> Json {
    let v = v.filter(|v| !v.is_null());
    if let Some(p) = v.as_ref().and_then(Json::as_str) {
        if super::placeholder::is_placeholder(p) {
            return v.unwrap_or_default(); // kept for the schema check, which leaves placeholders alone
        }
    }
    match ty {
        GoType::Json => v.unwrap_or(Json::Null),
        GoType::Str(_) => v.unwrap_or_else(|| Json::String(String::new())),
        GoType::Bool => v.unwrap_or(Json::Bool(false)),
        GoType::Int(..) => match v.as_ref().and_then(Json::as_number) {
            Some(n) => match n.as_i64() {
                Some(i) => Json::from(i),
                None => Json::from(n.as_f64().unwrap_or(0.0) as i64),
            },
            None => Json::from(0),
        },
        GoType::StringMap => match v {
            Some(Json::Object(mut m)) => {
                for value in m.values_mut() {
                    if value.is_null() {
                        *value = Json::String(String::new());
                    }
                }
                Json::Object(m)
            }
            _ => Json::Null,
        },
        GoType::Slice(item, _) => match v {
            Some(Json::Array(items)) => Json::Array(
                items
                    .into_iter()
                    .map(|it| decoded(Some(it), item))
                    .collect(),
            ),
            _ => Json::Null,
        },
        GoType::Struct(s) => round_trip(v, s),
    }
}

/// `encoding/json`'s omitempty test (encode.go:351-363): a struct is never empty.
fn is_empty(v: &Json, ty: &GoType) -> bool {
    match (v, ty) {
        (_, GoType::Struct(_) | GoType::Json) => false,
        (Json::Null, _) => true,
        (Json::String(s), _) => s.is_empty(),
        (Json::Bool(b), _) => !b,
        (Json::Number(n), _) => n.as_i64() == Some(0),
        (Json::Array(a), _) => a.is_empty(),
        (Json::Object(m), _) => m.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec_error(spec: Json) -> Option<String> {
        first_type_error(
            &json!({ "spec": spec }),
            &PROPAGATION_POLICY,
            FieldPath::root(),
        )
        .map(|e| format!("{} @ {}", e.message, e.at))
    }

    #[test]
    fn int32_overflow_is_reported_with_the_literal() {
        // admission-chain.md §8 ex. 5.
        assert_eq!(
            spec_error(json!({"failover": {"application": {"gracePeriodSeconds": 4294967296_i64}}})).unwrap(),
            "json: cannot unmarshal number 4294967296 into Go struct field ApplicationFailoverBehavior.spec.failover.application.gracePeriodSeconds of type int32 @ spec.failover.application.gracePeriodSeconds"
        );
    }

    #[test]
    fn the_first_error_in_sorted_key_order_wins() {
        // §8 ex. 6: placement sorts before priority.
        assert_eq!(
            spec_error(json!({"priority": "high", "placement": {"spreadConstraints": [{"spreadByField": "cluster", "maxGroups": "two"}]}})).unwrap(),
            "json: cannot unmarshal string into Go struct field SpreadConstraint.spec.placement.spreadConstraints.maxGroups of type int @ spec.placement.spreadConstraints[0].maxGroups"
        );
    }

    #[test]
    fn promoted_fields_name_the_embedded_struct() {
        assert_eq!(
            spec_error(json!({"placement": {"clusterAffinities": [{"affinityName": "a", "clusterNames": "m1"}]}})).unwrap(),
            "json: cannot unmarshal string into Go struct field ClusterAffinityTerm.spec.placement.clusterAffinities.ClusterAffinity.clusterNames of type []string @ spec.placement.clusterAffinities[0].clusterNames"
        );
    }

    #[test]
    fn numbers_beyond_int64_print_as_go_floats() {
        assert_eq!(go_float(1e20), "100000000000000000000");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(1.5), "1.5");
        assert_eq!(go_float(1e-7), "1e-7");
        let big: Json = serde_json::from_str("100000000000000000000").unwrap();
        assert_eq!(
            spec_error(json!({"placement": {"spreadConstraints": [{"minGroups": big}]}})).unwrap(),
            "json: cannot unmarshal number 100000000000000000000 into Go struct field SpreadConstraint.spec.placement.spreadConstraints.minGroups of type int @ spec.placement.spreadConstraints[0].minGroups"
        );
    }

    #[test]
    fn round_trip_materializes_zero_values_and_drops_empty_omitempty_fields() {
        let spec = json!({
            "resourceSelectors": [{"apiVersion": "v1", "name": "cfg"}, null],
            "placement": {"clusterAffinity": {"exclude": ["m3"]}, "clusterAffinities": [], "spreadConstraints": [{"spreadByField": ""}]},
            "failover": {"application": {"purgeMode": ""}},
            "schedulerName": ""
        });
        assert_eq!(
            round_trip(Some(spec), &PROPAGATION_SPEC),
            json!({
                "resourceSelectors": [{"apiVersion": "v1", "kind": "", "name": "cfg"}, {"apiVersion": "", "kind": ""}],
                "placement": {"clusterAffinity": {"exclude": ["m3"]}, "spreadConstraints": [{}]},
                "failover": {"application": {"decisionConditions": {}}}
            })
        );
        assert_eq!(
            round_trip(None, &PROPAGATION_SPEC),
            json!({"resourceSelectors": null, "placement": {}})
        );
    }
}
