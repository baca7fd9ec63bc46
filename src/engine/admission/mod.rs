//! Karmada's admission chain for policies: CRD defaults, mutating webhooks, validating webhooks.
//!
//! Specification: `../shared/karmada/validation-suspension-failover.md` §0 (pipeline order) and §1
//! (the rules). The order a request goes through, and the order of this module's entry points:
//!
//! 1. CRD structural defaults ([`apply_defaults`], `defaults.rs`);
//! 2. the mutating webhook M1-M5 (also in [`apply_defaults`]);
//! 3. the CRD OpenAPI schema (enums, required, …): done by `crate::schema`, not here;
//! 4. the validating webhook ([`validate_spec`], Karmada's `ValidatePropagationSpec`, in its
//!    order), preceded on UPDATE by [`validate_update`].
//!
//! Every check returns a [`Violation`] carrying Karmada's own field path and detail text, so
//! [`Violation::karmada_error`] reproduces the line `kubectl apply` would print.

pub mod chain;
mod defaults;
pub mod documents;
mod failover;
pub(crate) mod labels;
pub mod override_chain;
mod overrides;
mod placement;
pub mod ratchet;
mod render;
mod selectors;
pub mod taint_chain;

use crate::model::{KarmadaVersion, OverridePolicy, Policy, PolicyKind, PropagationSpec};
use crate::source::FieldPath;

pub use defaults::{apply_defaults, graceful_purge_mode, is_graceful_purge};

/// One reason the API server would refuse a policy, as Karmada reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// A stable kebab-case id; each is documented by the lint rule unit for admission.
    pub rule: &'static str,
    /// Karmada's field path, exactly as reported (e.g. `spec.suspension.suspension`).
    pub field: FieldPath,
    /// Karmada's detail text.
    pub message: String,
    /// The bad value as Karmada prints it: ints and bools bare, strings quoted, structs and
    /// slices as JSON; `None` for the messages that carry no value.
    ///
    /// Structs and slices print as JSON from Karmada 1.16 (apimachinery v0.34,
    /// `field/errors.go:90-107 @v1.16.0`). Karmada 1.10-1.15 vendor an apimachinery that prints
    /// them with Go's `%#v`, pointer addresses included (`field/errors.go:85-90 @v1.10.0`,
    /// `:107-112 @v1.15.0`), which no one can reproduce: the JSON form stands in for it there.
    pub value: Option<String>,
}

/// How apimachinery renders an error (`field/errors.go`); which one a rule uses is fixed by
/// the Karmada code that reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// `field.Invalid`: `<field>: Invalid value: <value>: <detail>`.
    Invalid,
    /// `field.NotSupported`: `<field>: Unsupported value: <value>: supported values: …`. The
    /// violation's message is the whole `Unsupported value: …` body: without the rejected value
    /// "supported values: …" does not say what is wrong (schema-enum words it the same way).
    NotSupported,
    /// A bare `errors.New` message from the webhook handler, no field (validating.go:71-99).
    Plain,
    /// `field.TooLong`: `<field>: Too long: <detail>`, the value omitted.
    TooLong,
    /// `field.Required`: `<field>: Required value: <detail>`, no value.
    Required,
    /// `field.Forbidden`: `<field>: Forbidden: <detail>`, no value.
    Forbidden,
    /// `field.Duplicate`: `<field>: Duplicate value: <value>`, no detail.
    Duplicate,
}

fn form(rule: &str) -> Form {
    match rule {
        "toleration-operator-unsupported" => Form::NotSupported,
        "scheduler-name-immutable"
        | "permanent-id-immutable"
        | "permanent-id-required"
        | "policy-name-too-long" => Form::Plain,
        "override-annotations-too-long" => Form::TooLong,
        // field.Required(fieldPath, "FieldOverrider must have either JSON or YAML set"),
        // validation.go:497-499 @v1.18.0.
        "field-overrider-json-or-yaml" => Form::Required,
        // ClusterTaintPolicy's webhook: field.Forbidden and field.Duplicate of
        // spec.taints[i] (pkg/webhook/clustertaintpolicy/validating.go:71,76-77 @v1.14.0).
        "taint-no-execute-not-allowed" => Form::Forbidden,
        "taint-duplicate" => Form::Duplicate,
        _ => Form::Invalid,
    }
}

impl Violation {
    pub(crate) fn new(
        rule: &'static str,
        field: FieldPath,
        value: Option<String>,
        message: impl Into<String>,
    ) -> Violation {
        Violation {
            rule,
            field,
            message: message.into(),
            value,
        }
    }

    /// The error text exactly as Karmada's webhook returns it for this one violation:
    /// `spec.propagateDeps: Invalid value: false: application failover is set, propagateDeps must be true`,
    /// `spec.placement.clusterTolerations[0].operator: Unsupported value: "Lt": supported values: "", "Exists", "Equal"`,
    /// or a plain handler message such as `the schedulerName should not be updated`.
    pub fn karmada_error(&self) -> String {
        let value = self.value.as_deref().unwrap_or("null");
        match form(self.rule) {
            Form::Plain => self.message.clone(),
            Form::NotSupported => format!("{}: {}", self.field, self.message),
            Form::Invalid => format!("{}: Invalid value: {value}: {}", self.field, self.message),
            Form::TooLong => format!("{}: Too long: {}", self.field, self.message),
            Form::Required => format!("{}: Required value: {}", self.field, self.message),
            Form::Forbidden => format!("{}: Forbidden: {}", self.field, self.message),
            Form::Duplicate => format!("{}: Duplicate value: {value}", self.field),
        }
    }
}

/// `ErrorList.ToAggregate().Error()`: identical messages once, `[e1, e2]` when several.
pub fn aggregate(violations: &[Violation]) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    let msgs: Vec<String> = violations
        .iter()
        .map(Violation::karmada_error)
        .filter(|m| seen.insert(m.clone()))
        .collect();
    match msgs.len() {
        0 => None,
        1 => msgs.into_iter().next(),
        _ => Some(format!("[{}]", msgs.join(", "))),
    }
}

/// The validating webhook's name for a kind (`artifacts/deploy/webhook-configuration.yaml:128-155`).
pub fn webhook_name(kind: PolicyKind) -> &'static str {
    match kind {
        PolicyKind::PropagationPolicy => "propagationpolicy.karmada.io",
        PolicyKind::ClusterPropagationPolicy => "clusterpropagationpolicy.karmada.io",
    }
}

/// The whole line kube-apiserver prints for a denial (§0 item 4), or `None` when admitted.
pub fn denial(kind: PolicyKind, violations: &[Violation]) -> Option<String> {
    aggregate(violations).map(|msg| {
        format!(
            "admission webhook \"{}\" denied the request: {msg}",
            webhook_name(kind)
        )
    })
}

/// The first Karmada release whose validating webhook has the check behind `rule`, for the
/// checks Karmada added after the oldest modelled release (1.10); `None` for the others.
///
/// The tool models minor releases; every patch release of an older minor admits what the
/// check refuses: the function named at each entry is absent from
/// `pkg/util/validation/validation.go` at every `v1.<minor>.<patch>` tag before the one given
/// (no backport), and the CRDs of those releases (`charts/karmada/_crds/bases/policy/*.yaml`,
/// the same at every patch tag of a minor) refuse nothing of it instead.
pub fn checked_from(rule: &str) -> Option<KarmadaVersion> {
    let minor = match rule {
        // validateSuspension, called by ValidatePropagationSpec: validation.go:43,62-76
        // @v1.11.0. spec.suspension came with it: the 1.10 CRD has no such field.
        "suspension-exclusive" => 11,
        // The fieldOverrider checks of ValidateOverrideRules: validation.go:321-335,343-380
        // @v1.12.0, with fieldOverrider in the CRD. (Their JSON pointer checks share
        // json-pointer-invalid with the older image predicate check: overrides.rs skips the
        // whole fieldOverrider block before 1.12.)
        "field-overrider-json-and-yaml"
        | "override-value-required"
        | "override-value-forbidden" => 12,
        // validateStatePreservationRule (ValidateLabelName of aliasLabelName), called for
        // application failover (:250-252) and cluster failover (:214,257-269):
        // validation.go:271-287 @v1.15.0. statePreservation is in the CRD from 1.12
        // (policy.karmada.io_propagationpolicies.yaml:164-215 @v1.12.0, aliasLabelName a plain
        // string), and ValidateApplicationFailover of 1.12-1.14 never looks at it
        // (validation.go:218-243 @v1.14.0): any alias is stored.
        "state-preservation-alias-invalid" => 15,
        // validateResourceSelectors, called by ValidatePropagationSpec (:50) and
        // ValidateOverrideSpec (:357): validation.go:57-69 @v1.17.0. Before, an explicit
        // selector namespace other than the policy's is stored and simply never matches.
        "selector-namespace-mismatch" => 17,
        // ValidateWorkloadAffinity, called by ValidatePlacement: validation.go:112,117-141
        // @v1.17.0, with placement.workloadAffinity in the CRD.
        "workload-affinity-key-invalid" | "workload-affinity-same-key" => 17,
        // validateClusterTolerations, called by ValidatePlacement: validation.go:121,124-142
        // @v1.18.0 (Kubernetes' TaintTolerationComparisonOperators brought Lt/Gt). Before, the
        // CRD's clusterTolerations[].operator is a plain string with no enum
        // (policy.karmada.io_propagationpolicies.yaml:576-583 @v1.17.0): Lt and Gt are stored.
        "toleration-operator-unsupported" => 18,
        // The "neither set" half of the fieldOverrider check, validation.go:497-499 @v1.18.0.
        // 1.12-1.17 refuse only "both set" (validation.go:415-417 @v1.17.0) and the CRD requires
        // only fieldPath (policy.karmada.io_overridepolicies.yaml:230-231 @v1.17.0): they store
        // the overrider, and the override manager then replaces the field with ""
        // (pkg/util/overridemanager/overridemanager.go:432-446 @v1.17.0).
        "field-overrider-json-or-yaml" => 18,
        // The overflow check of ValidatePlacement (validation.go:109-115 @v1.18.0) and
        // ValidateOverflowAffinities (:201,212-240 @v1.18.0), with
        // clusterAffinities[].overflowAffinities in the CRD.
        "overflow-requires-dynamic-weight-or-aggregated"
        | "overflow-requires-inline-affinity"
        | "overflow-name-invalid"
        | "overflow-name-duplicate" => 18,
        // ClusterTaintPolicy's validating webhook (pkg/webhook/clustertaintpolicy/
        // validating.go:61-83 @v1.14.0), which came with the kind: no release before serves it
        // (its CRD is absent at every v1.13 tag). See `taint_chain`.
        "taint-no-execute-not-allowed" | "taint-duplicate" => 14,
        _ => return None,
    };
    Some(KarmadaVersion::new(1, minor))
}

/// The last Karmada release that has the check behind `rule`, for the checks Karmada dropped;
/// `None` for the others.
pub fn checked_until(rule: &str) -> Option<KarmadaVersion> {
    let minor = match rule {
        // The PP/CPP mutating webhook refuses a name over 63 characters in every v1.10.x
        // (pkg/webhook/propagationpolicy/mutating.go:77-78, clusterpropagationpolicy/
        // mutating.go:69-70 @v1.10.0): 1.10 labels each claimed resource template with the
        // policy's name (propagationpolicy.karmada.io/name, well_known_constants.go:60-70
        // @v1.10.0; set at pkg/detector/detector.go:727 @v1.10.0), and a label value holds 63
        // characters. v1.11.0 claims by permanent-id and dropped the check (patch tags alike).
        "policy-name-too-long" => 10,
        _ => return None,
    };
    Some(KarmadaVersion::new(1, minor))
}

/// Whether `version`'s webhooks have the check behind `rule` ([`checked_from`],
/// [`checked_until`]).
pub fn checks(rule: &str, version: KarmadaVersion) -> bool {
    checked_from(rule).is_none_or(|from| version >= from)
        && checked_until(rule).is_none_or(|until| version <= until)
}

/// What Karmada's own mutating webhook refuses of a PropagationPolicy or
/// ClusterPropagationPolicy named `name` (an `admission.Errored` 400, printed as the webhook
/// denying the request): in 1.10, a name over 63 characters (see [`checked_until`]).
pub fn mutating_refusal(
    kind: PolicyKind,
    name: &str,
    version: KarmadaVersion,
) -> Option<Violation> {
    // validation.LabelValueMaxLength, compared with len(): bytes.
    const MAX: usize = 63;
    (checks("policy-name-too-long", version) && name.len() > MAX).then(|| {
        Violation::new(
            "policy-name-too-long",
            FieldPath::root().key("metadata").key("name"),
            None,
            format!(
                "{}'s name should be no more than {MAX} characters",
                kind.as_str()
            ),
        )
    })
}

/// `ValidatePropagationSpec` (validation.go:43-54), on a spec that already went through
/// [`apply_defaults`]. Checks run in Karmada's order and all violations are collected:
/// placement (P1), application failover needs propagateDeps (F0), failover (F*), selector
/// namespace (N1, PP only), preemption needs names (R1), suspension (S1).
///
/// `namespace` is the request namespace: the policy's for a PP. For a CPP the webhook passes
/// `""`, so N1 never runs for it whatever is given here (§1.1).
pub fn validate_spec(
    kind: PolicyKind,
    namespace: Option<&str>,
    spec: &PropagationSpec,
    version: KarmadaVersion,
) -> Vec<Violation> {
    let mut out = Vec::new();
    // P1: ValidatePlacement (validation.go:45). Go's Placement is a value, never nil.
    let default_placement = Default::default();
    placement::validate_placement(
        spec.placement.as_ref().unwrap_or(&default_placement),
        version,
        &mut out,
    );
    // F0 (validation.go:46-48).
    let app_failover = spec
        .failover
        .as_ref()
        .is_some_and(|f| f.application.is_some());
    if app_failover && !spec.propagate_deps() {
        out.push(Violation::new(
            "application-failover-requires-propagate-deps",
            FieldPath::parse("spec.propagateDeps"),
            Some("false".into()),
            "application failover is set, propagateDeps must be true",
        ));
    }
    // F* (validation.go:49, 315-391).
    failover::validate_failover(spec.failover.as_ref(), version, &mut out);
    // N1 (validation.go:57-69): PP only, the webhook passes "" for a CPP.
    let policy_namespace = match kind {
        PolicyKind::PropagationPolicy => namespace.unwrap_or(""),
        PolicyKind::ClusterPropagationPolicy => "",
    };
    selectors::validate_selector_namespaces(&spec.resource_selectors, policy_namespace, &mut out);
    // R1 (validation.go:72-84).
    selectors::validate_preemption_names(spec, version, &mut out);
    // S1 (validation.go:86-99).
    selectors::validate_suspension(spec.suspension.as_ref(), &mut out);
    // The checks `version` does not have yet.
    out.retain(|v| checks(v.rule, version));
    out
}

/// A policy after admission: the spec Karmada would store, and why it would be refused.
#[derive(Clone, Debug)]
pub struct Admitted {
    /// The spec after CRD defaults and the mutating webhook.
    pub spec: PropagationSpec,
    /// The validating webhook's violations (empty: admitted).
    pub violations: Vec<Violation>,
}

/// The namespace the webhook receives for a policy: the PP's own, `None` for a CPP.
fn request_namespace(policy: &Policy) -> Option<&str> {
    match policy.kind {
        PolicyKind::PropagationPolicy => policy.meta.namespace.as_deref(),
        PolicyKind::ClusterPropagationPolicy => None,
    }
}

/// Defaults, then `ValidatePropagationSpec`: what a CREATE of this manifest would meet.
///
/// The permanent-id label checks are left out on purpose: manifests in git never carry the
/// label, the mutating webhook adds it on CREATE (M6), so "required" cannot fire for them; use
/// [`validate_stored`] for live objects and [`validate_update`] for updates.
pub fn admit(policy: &Policy, version: KarmadaVersion) -> Admitted {
    admit_spec(policy, policy.spec.clone(), version)
}

/// [`admit`] with the spec given apart from `policy` (whose own spec is not read), so a caller
/// that owns the policy can move the spec in rather than copy it.
pub fn admit_spec(policy: &Policy, mut spec: PropagationSpec, version: KarmadaVersion) -> Admitted {
    let namespace = request_namespace(policy);
    apply_defaults(policy.kind, namespace, &mut spec, version);
    let violations = validate_spec(policy.kind, namespace, &spec, version);
    Admitted { spec, violations }
}

/// `validatePolicy` (validating.go:87-99) for an object that already went through the mutating
/// webhook (a live object): the permanent-id label must be there, then the spec is validated.
/// The handler returns on the missing label before looking at the spec.
pub fn validate_stored(policy: &Policy, version: KarmadaVersion) -> Vec<Violation> {
    let label = policy.kind.permanent_id_label();
    if policy.meta.labels.get(label).is_none_or(|v| v.is_empty()) {
        return vec![Violation::new(
            "permanent-id-required",
            FieldPath::root().key("metadata").key("labels").key(label),
            None,
            format!(
                "label {label} is required, it should be set by the mutating admission webhook during creation"
            ),
        )];
    }
    admit(policy, version).violations
}

/// The validating webhook's answer to an update that changes `spec.schedulerName` (PP
/// validating.go:72-75, CPP :58-62).
pub const SCHEDULER_NAME_IMMUTABLE: &str = "the schedulerName should not be updated";

/// The scheduler name a policy is stored with: the CRD default `default-scheduler` when the
/// manifest omits it, and for `""` too, which the mutating webhook's round trip drops
/// (omitempty) and the API server defaults again (admission-chain.md §7.1).
pub fn stored_scheduler_name(name: Option<&str>) -> &str {
    name.filter(|s| !s.is_empty())
        .unwrap_or(crate::model::schedulers::DEFAULT_SCHEDULER)
}

/// Whether an update from a policy with scheduler name `old` to one with `new` changes it, which
/// `validateUpdate` refuses before any other check.
pub fn scheduler_name_changes(old: Option<&str>, new: Option<&str>) -> bool {
    stored_scheduler_name(old) != stored_scheduler_name(new)
}

/// `validateUpdate` (PP validating.go:71-85, CPP :58-68): on UPDATE, before the spec checks.
/// The handler returns the first failure only, so at most one violation comes back:
/// `spec.schedulerName` changed (both sides compared after the CRD default `default-scheduler`),
/// else the permanent-id label changed, added or removed.
pub fn validate_update(old: &Policy, new: &Policy) -> Vec<Violation> {
    let (old_name, new_name) = (&old.spec.scheduler_name, &new.spec.scheduler_name);
    if scheduler_name_changes(old_name.as_deref(), new_name.as_deref()) {
        return vec![Violation::new(
            "scheduler-name-immutable",
            FieldPath::parse("spec.schedulerName"),
            None,
            SCHEDULER_NAME_IMMUTABLE,
        )];
    }
    let label = new.kind.permanent_id_label();
    // Go map lookups: an absent label reads as "".
    let id = |p: &Policy| p.meta.labels.get(label).unwrap_or_default().to_string();
    if id(old) != id(new) {
        return vec![Violation::new(
            "permanent-id-immutable",
            FieldPath::root().key("metadata").key("labels").key(label),
            None,
            format!("label {label} is immutable, it can only be set by the system during creation"),
        )];
    }
    Vec::new()
}

/// OverridePolicy / ClusterOverridePolicy (§1.7): the OP mutating webhook's selector namespace
/// default, then `ValidateOverrideSpec` and `ValidateOverrideRules`, as `version` has them.
pub fn validate_override(op: &OverridePolicy, version: KarmadaVersion) -> Vec<Violation> {
    let mut out = overrides::validate_override(op, version);
    out.retain(|v| checks(v.rule, version));
    out
}

#[cfg(test)]
mod tests;
