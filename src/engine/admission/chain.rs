//! The whole admission chain of one PropagationPolicy or ClusterPropagationPolicy manifest, in
//! the API server's order (admission-chain.md §1.2), each stage ending the request when it
//! refuses:
//!
//! 1. decode: the strict ObjectMeta round trip (a metadata type error is a 400), pruning of
//!    unknown fields, `null`s without a default dropped, CRD structural defaults;
//! 2. strict field validation (kubectl's default): any unknown field is a 400;
//! 3. Karmada's mutating webhook: the Go decode (a value the Go types cannot hold is a 400
//!    with the decoder's message), the `SetDefault*` steps, `json.Marshal` of the structs;
//! 4. CRD defaults again, on the patched object;
//! 5. ObjectMeta (`metadata.name`, PP `metadata.namespace`) and CRD schema validation: one 422;
//! 6. Karmada's validating webhook (`ValidatePropagationSpec`): a 403.
//!
//! Pure: the manifest comes in as JSON, a [`Verdict`] goes out with the line `kubectl apply`
//! would print.

use serde::Deserialize;
use serde_json::{Map, Value as Json};

use crate::model::{KarmadaVersion, PolicyKind, PropagationSpec};
use crate::schema::{self, structural};
use crate::source::FieldPath;

use super::labels::{dns1123_subdomain_errors, Wording};
use super::{aggregate, is_graceful_purge, validate_spec, webhook_name, Violation};
use crate::model::gotypes::{self, GoStruct};

/// The stage that refused the object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The ObjectMeta round trip at decode (400).
    MetadataDecode,
    /// Strict field validation at decode (400).
    StrictDecode,
    /// The mutating webhook's Go decode (400).
    MutatingWebhook,
    /// ObjectMeta and CRD schema validation after mutation (422).
    Schema,
    /// The validating webhook (403).
    ValidatingWebhook,
}

/// One reason the object is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// A rule id: a schema rule (`schema-unknown-field`, `schema-type`, …) or an admission rule.
    pub rule: &'static str,
    /// The field, with list indexes, as the API server names it.
    pub field: FieldPath,
    /// The detail as the stage reports it (without the request-level prefix).
    pub message: String,
    /// Whether the finding points at the field's key (an unknown field) rather than its value.
    pub at_key: bool,
}

/// A refusal of a stage after the first refusing one: what the API server would answer once
/// the earlier causes are fixed (the request never gets there today).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaterRefusal {
    pub stage: Stage,
    pub refusal: Refusal,
}

/// What the API server does with the manifest.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The first stage that refuses, which ends the request; `None`: admitted.
    pub stage: Option<Stage>,
    /// That stage's refusals.
    pub refusals: Vec<Refusal>,
    /// The `Status.message` the API server returns, as `kubectl apply` prints it after
    /// `Error from server (…): error when creating "…": `.
    pub api_server_message: Option<String>,
    /// The spec Karmada stores (after both webhooks' mutation and the second defaulting), when
    /// the object got that far.
    pub spec: Option<PropagationSpec>,
    /// What the stages after `stage` refuse, each stage run on the object with the earlier
    /// causes taken out (an unknown field pruned, a value Go cannot decode dropped), so one run
    /// lists everything to fix. Not part of the verdict: empty when admitted.
    pub after_fix: Vec<LaterRefusal>,
    /// On UPDATE ([`admit_update`]): CRD schema errors in values the update leaves as stored,
    /// which the API server's validation ratcheting lets through (they are not in `refusals`).
    pub ratcheted: Vec<Refusal>,
}

impl Verdict {
    pub fn is_admitted(&self) -> bool {
        self.stage.is_none()
    }

    pub(super) fn admitted(spec: Option<PropagationSpec>) -> Verdict {
        Verdict {
            stage: None,
            refusals: Vec::new(),
            api_server_message: None,
            spec,
            after_fix: Vec::new(),
            ratcheted: Vec::new(),
        }
    }

    pub(super) fn refused(stage: Stage, refusals: Vec<Refusal>, message: String) -> Verdict {
        Verdict {
            stage: Some(stage),
            refusals,
            api_server_message: Some(message),
            spec: None,
            after_fix: Vec::new(),
            ratcheted: Vec::new(),
        }
    }
}

/// The chain's progress through the stages: the first refusing stage's verdict, then what the
/// later stages refuse.
pub(super) struct Progress {
    /// The object as the last stage run left it (the validating webhook's input when nothing
    /// refused).
    pub object: Json,
    pub first: Option<Verdict>,
    pub after_fix: Vec<LaterRefusal>,
    pub ratcheted: Vec<Refusal>,
}

impl Progress {
    fn refuse(&mut self, stage: Stage, refusals: Vec<Refusal>, message: impl FnOnce() -> String) {
        if refusals.is_empty() {
            return;
        }
        if self.first.is_none() {
            self.first = Some(Verdict::refused(stage, refusals, message()));
            return;
        }
        for refusal in refusals {
            let seen = self
                .first_refusals()
                .chain(self.after_fix.iter().map(|l| &l.refusal));
            let repeated = seen
                .into_iter()
                .any(|r| r.rule == refusal.rule && r.field == refusal.field);
            if !repeated {
                self.after_fix.push(LaterRefusal { stage, refusal });
            }
        }
    }

    fn first_refusals(&self) -> impl Iterator<Item = &Refusal> {
        self.first.iter().flat_map(|v| v.refusals.iter())
    }

    /// The verdict: the first refusal's, or `admitted` (its spec) when none refused.
    pub fn verdict(self, admitted: impl FnOnce() -> Verdict) -> Verdict {
        let mut verdict = self.first.unwrap_or_else(admitted);
        verdict.after_fix = self.after_fix;
        verdict.ratcheted = self.ratcheted;
        verdict
    }

    /// The validating webhook's verdict on the stored spec: the first refusal, or after fix.
    pub fn webhook(&mut self, webhook: &str, violations: &[Violation]) {
        if let Some(denied) = webhook_denial(webhook, violations) {
            let message = denied.api_server_message.unwrap_or_default();
            self.refuse(Stage::ValidatingWebhook, denied.refusals, || message);
        }
    }
}

/// What the chain needs to know of a kind.
#[derive(Clone, Copy, Debug)]
pub(super) struct KindFacts {
    pub kind: &'static str,
    pub namespaced: bool,
    /// The Go struct Karmada's mutating webhook decodes the object into, and the one of its
    /// `spec`; `None`: the kind has no mutating webhook (ClusterOverridePolicy).
    pub mutating: Option<(&'static GoStruct, &'static GoStruct)>,
    /// The webhook's name, as denials print it.
    pub webhook: &'static str,
}

fn facts(kind: PolicyKind) -> KindFacts {
    let root = match kind {
        PolicyKind::PropagationPolicy => &gotypes::PROPAGATION_POLICY,
        PolicyKind::ClusterPropagationPolicy => &gotypes::CLUSTER_PROPAGATION_POLICY,
    };
    KindFacts {
        kind: kind.as_str(),
        namespaced: kind == PolicyKind::PropagationPolicy,
        mutating: Some((root, &gotypes::PROPAGATION_SPEC)),
        webhook: webhook_name(kind),
    }
}

/// The version part of `apiVersion` (`v1alpha1`), as decode errors print it.
fn version_of(object: &Json) -> String {
    let api_version = object
        .get("apiVersion")
        .and_then(Json::as_str)
        .unwrap_or("");
    api_version
        .rsplit_once('/')
        .map_or(api_version, |(_, v)| v)
        .to_string()
}

/// `<Kind> in version "v1alpha1" cannot be handled as a <Kind>: ` (`handlers/rest.go:251-253`).
fn decode_prefix(kind: &str, object: &Json) -> String {
    format!(
        "{kind} in version \"{}\" cannot be handled as a {kind}: ",
        version_of(object)
    )
}

/// Runs the CREATE chain on `manifest` (`namespace`: the request namespace of a PP, that is its
/// own or the default one; ignored for a CPP).
pub fn admit_manifest(
    kind: PolicyKind,
    manifest: &Json,
    namespace: Option<&str>,
    version: KarmadaVersion,
) -> Verdict {
    admit(kind, manifest, namespace, version, None)
}

/// The newest Karmada release this tool knows, up to `version`, that admits `manifest` on
/// CREATE: whether the API server can hold it as a stored object. A manifest no release admits
/// (`None`) was never stored, so the next apply of its object is a CREATE, and validation
/// ratcheting, which keeps only what a stored object holds, has nothing to keep; one only an
/// older release admits may be stored from before an upgrade whose CRD refuses it.
pub fn newest_admitting_release(
    kind: PolicyKind,
    manifest: &Json,
    namespace: Option<&str>,
    version: KarmadaVersion,
) -> Option<KarmadaVersion> {
    releases_up_to(version).find(|&v| admit_manifest(kind, manifest, namespace, v).is_admitted())
}

/// The releases this tool knows from `version` down to the oldest.
pub(crate) fn releases_up_to(version: KarmadaVersion) -> impl Iterator<Item = KarmadaVersion> {
    let newest = version.clamp(KarmadaVersion::OLDEST, KarmadaVersion::LATEST);
    (KarmadaVersion::OLDEST.minor..=newest.minor)
        .rev()
        .map(move |minor| KarmadaVersion::new(newest.major, minor))
}

/// Runs the chain of an UPDATE from the stored `old` manifest to `manifest`: the CREATE chain,
/// with the CRD schema validation ratcheting (admission-chain.md §5.4,
/// apiextensions-apiserver `pkg/apiserver/validation/ratcheting.go`): a schema error in a value
/// the update leaves as stored is let through and listed in [`Verdict::ratcheted`]. Karmada's
/// `validateUpdate` checks are not run here (`super::validate_update`).
pub fn admit_update(
    kind: PolicyKind,
    manifest: &Json,
    old: &Json,
    namespace: Option<&str>,
    version: KarmadaVersion,
) -> Verdict {
    let stored = stored_object(facts(kind), old, namespace, version, |spec| {
        mutate_propagation(kind, namespace, spec, version)
    });
    admit(kind, manifest, namespace, version, Some(&stored))
}

/// The spec as the mutating webhook leaves it: round trip, Karmada's defaulting, round trip.
fn mutate_propagation(
    kind: PolicyKind,
    namespace: Option<&str>,
    spec: &mut Json,
    version: KarmadaVersion,
) {
    let request_namespace = match kind {
        PolicyKind::PropagationPolicy => namespace,
        PolicyKind::ClusterPropagationPolicy => None,
    };
    *spec = gotypes::round_trip(Some(std::mem::take(spec)), &gotypes::PROPAGATION_SPEC);
    // The webhook marshals the whole spec again; the values it did not set are already in
    // marshaled form, so only the objects `mutate` set a field of are marshaled again.
    if mutate(kind, request_namespace, spec, version) == Marshal::Spec {
        *spec = gotypes::round_trip(Some(std::mem::take(spec)), &gotypes::PROPAGATION_SPEC);
    }
}

fn admit(
    kind: PolicyKind,
    manifest: &Json,
    namespace: Option<&str>,
    version: KarmadaVersion,
    stored: Option<&Json>,
) -> Verdict {
    let request_namespace = match kind {
        PolicyKind::PropagationPolicy => namespace,
        PolicyKind::ClusterPropagationPolicy => None,
    };
    let mut progress = admit_to_schema(facts(kind), manifest, namespace, version, stored, |spec| {
        mutate_propagation(kind, namespace, spec, version)
    });
    if without_enum_refusals(&mut progress, facts(kind).kind, version) {
        // The fixed request goes through the mutating webhook again: `purgeMode: Gracefully`
        // (the fix of `Graciously`, or the CRD default standing in for a value taken out)
        // gets its 600 seconds there (`SetDefaultGracePeriodSeconds`,
        // pkg/util/helper/policy.go), so the fix is not refused for lacking a grace period.
        if let Some(spec) = progress.object.get_mut("spec") {
            mutate_propagation(kind, namespace, spec, version);
        }
    }
    // 6. The validating webhook, on the stored form.
    let mut spec: Option<PropagationSpec> = progress
        .object
        .get("spec")
        .and_then(|s| PropagationSpec::deserialize(s).ok());
    // Without a spec only an unrendered placeholder (`${clusters}` for a list) gets here: its
    // value is unknown, so the webhook's verdict is too. A `null` the schema refused (a missing
    // `resourceSelectors`, which the round trip writes as null) is replaced when it is fixed:
    // the webhook judges the rest for after-fix.
    let fallback;
    let judged = match &spec {
        Some(spec) => Some(spec),
        None => {
            fallback = refused_nulls_left_out(&progress);
            fallback.as_ref()
        }
    };
    if let Some(spec) = judged {
        let violations = validate_spec(kind, request_namespace, spec, version);
        progress.webhook(webhook_name(kind), &violations);
    }
    let refused_by_webhook = progress
        .first
        .as_ref()
        .is_some_and(|v| v.stage == Some(Stage::ValidatingWebhook));
    // The spec goes to the verdict either way, moved: an admitted one's, or the stored form
    // the webhook denied (its spec is known); the chain's earlier refusals keep theirs.
    let mut verdict = progress.verdict(|| Verdict::admitted(spec.take()));
    if refused_by_webhook {
        verdict.spec = spec;
    }
    verdict
}

/// The object of an UPDATE's stored side as the API server reads it back and validates it
/// against: decoded (pruned, defaulted) and, as stored, mutated by the webhook.
pub(super) fn stored_object(
    facts: KindFacts,
    manifest: &Json,
    namespace: Option<&str>,
    version: KarmadaVersion,
    mutate_spec: impl FnOnce(&mut Json),
) -> Json {
    admit_to_schema(facts, manifest, namespace, version, None, mutate_spec).object
}

/// Steps 1 to 5 of the chain for any kind: decode (metadata round trip, pruning, nulls,
/// defaults), strict fields, the namespace the request carries, the mutating webhook (its Go
/// decode, then `mutate_spec` on `spec`: the round trip and the kind's defaulting), defaults
/// again, ObjectMeta and the CRD schema (ratcheted against `stored` on UPDATE). The first
/// refusing stage decides; the later ones still run, on the object with the earlier causes
/// taken out, for [`Verdict::after_fix`].
pub(super) fn admit_to_schema(
    facts: KindFacts,
    manifest: &Json,
    namespace: Option<&str>,
    version: KarmadaVersion,
    stored: Option<&Json>,
    mutate_spec: impl FnOnce(&mut Json),
) -> Progress {
    let schema =
        schema::structural_schema(facts.kind, version).expect("policy kinds have a schema");
    let mut run = Run {
        facts,
        manifest,
        schema,
        progress: Progress {
            object: manifest.clone(),
            first: None,
            after_fix: Vec::new(),
            ratcheted: Vec::new(),
        },
        dropped: Vec::new(),
        unknown: Vec::new(),
    };
    run.decode();
    run.request_namespace(namespace);
    if let Some((root, _)) = facts.mutating {
        run.mutating_webhook(root, version, mutate_spec);
    }
    run.validate(version, stored);
    run.progress
}

/// One object's way through steps 1 to 5.
struct Run<'a> {
    facts: KindFacts,
    manifest: &'a Json,
    schema: &'static structural::Structural,
    progress: Progress,
    /// Values taken out because Go could not decode them: not judged again by the schema.
    dropped: Vec<FieldPath>,
    /// The unknown fields strict decoding names.
    unknown: Vec<FieldPath>,
}

impl Run<'_> {
    /// Steps 1 and 2: decode (the ObjectMeta round trip, coerce.go; pruning, nulls, defaults),
    /// then strict field validation.
    fn decode(&mut self) {
        let kind = self.facts.kind;
        for e in type_errors(&mut self.progress.object, &mut self.dropped, |o| {
            let meta = o.get("metadata")?;
            gotypes::first_type_error(
                meta,
                &gotypes::OBJECT_META,
                FieldPath::root().key("metadata"),
            )
        }) {
            let message = format!("{}{}", decode_prefix(kind, self.manifest), e.message);
            self.progress.refuse(
                Stage::MetadataDecode,
                vec![type_refusal(e.at, e.message)],
                || message,
            );
        }
        let object = &mut self.progress.object;
        self.unknown = structural::prune_unknown(object, self.schema);
        structural::prune_nulls(object, Some(self.schema));
        structural::apply_defaults(object, self.schema);
        if !self.unknown.is_empty() {
            let (refusals, message) =
                strict_decode_error(kind, self.manifest, self.unknown.clone());
            self.progress
                .refuse(Stage::StrictDecode, refusals, || message);
        }
    }

    /// The namespace the request carries: a cluster-scoped kind's is cleared
    /// (registry/rest/meta.go:62-65).
    fn request_namespace(&mut self, namespace: Option<&str>) {
        if let Some(Json::Object(meta)) = self.progress.object.get_mut("metadata") {
            match (self.facts.namespaced, namespace) {
                (false, _) => {
                    meta.remove("namespace");
                }
                (true, Some(ns)) if !meta.contains_key("namespace") => {
                    meta.insert("namespace".into(), Json::String(ns.to_string()));
                }
                _ => {}
            }
        }
    }

    /// Steps 3 and 4: the mutating webhook (its Go decode, then `mutate_spec`), CRD defaults
    /// again (dispatcher.go:390), without null pruning.
    fn mutating_webhook(
        &mut self,
        root: &'static GoStruct,
        version: KarmadaVersion,
        mutate_spec: impl FnOnce(&mut Json),
    ) {
        let webhook = self.facts.webhook;
        for e in type_errors(&mut self.progress.object, &mut self.dropped, |o| {
            gotypes::first_type_error(o, root, FieldPath::root())
        }) {
            let message = format!(
                "admission webhook \"{webhook}\" denied the request: {}",
                e.message
            );
            self.progress.refuse(
                Stage::MutatingWebhook,
                vec![type_refusal(e.at, e.message)],
                || message,
            );
        }
        // What the PP/CPP handler refuses itself, once the object decodes.
        let kind = PolicyKind::from_kind(self.facts.kind);
        let name = self
            .progress
            .object
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Json::as_str)
            .unwrap_or("");
        if let Some(v) = kind.and_then(|kind| super::mutating_refusal(kind, name, version)) {
            let message = format!(
                "admission webhook \"{webhook}\" denied the request: {}",
                v.karmada_error()
            );
            let refusal = Refusal {
                rule: v.rule,
                field: v.field,
                message: v.message,
                at_key: false,
            };
            self.progress
                .refuse(Stage::MutatingWebhook, vec![refusal], || message);
        }
        let object = &mut self.progress.object;
        let mut spec = object
            .get_mut("spec")
            .map(std::mem::take)
            .unwrap_or(Json::Null);
        mutate_spec(&mut spec);
        if let Json::Object(map) = object {
            map.insert("spec".into(), spec);
        }
        structural::apply_defaults(object, self.schema);
    }

    /// Step 5: ObjectMeta and the CRD schema (one 422); on UPDATE the schema is ratcheted
    /// against `stored`.
    fn validate(&mut self, version: KarmadaVersion, stored: Option<&Json>) {
        let object = &self.progress.object;
        let mut refusals = object_meta_refusals(self.facts.namespaced, object);
        let mut schema_refusals: Vec<Refusal> =
            schema::validate_object(self.facts.kind, object, version)
                .into_iter()
                .filter(|v| !self.dropped.iter().any(|d| v.field.0.starts_with(&d.0)))
                .map(|v| Refusal {
                    rule: v.rule,
                    at_key: v.rule == schema::UNKNOWN_FIELD || v.rule == schema::REQUIRED,
                    field: v.field,
                    message: v.message,
                })
                .collect();
        if let Some(stored) = stored {
            let (ratcheted, kept) = schema_refusals
                .into_iter()
                .partition(|r| super::ratchet::is_ratcheted(r.rule, &r.field, object, stored));
            schema_refusals = kept;
            self.progress.ratcheted = ratcheted;
        }
        refusals.extend(schema_refusals);
        if self.progress.first.is_some() {
            refusals.retain(|r| !left_by_a_typo(r, self.manifest, &self.unknown));
        }
        if !refusals.is_empty() {
            let message = invalid_message(self.facts.kind, &self.progress.object, &refusals);
            self.progress.refuse(Stage::Schema, refusals, || message);
        }
    }
}

/// The spec without its `null` fields, when the schema refused the object: what the validating
/// webhook judges for [`Verdict::after_fix`] once those are fixed. `None` otherwise, or when it
/// still does not decode (a placeholder where a list belongs).
fn refused_nulls_left_out(progress: &Progress) -> Option<PropagationSpec> {
    let refused = progress
        .first
        .as_ref()
        .is_some_and(|v| v.stage == Some(Stage::Schema));
    let Some(Json::Object(spec)) = progress.object.get("spec").filter(|_| refused) else {
        return None;
    };
    let mut spec = spec.clone();
    spec.retain(|_, v| !v.is_null());
    PropagationSpec::deserialize(&Json::Object(spec)).ok()
}

/// The object the validating webhook judges for [`Verdict::after_fix`] once the schema refused
/// a value outside its enum, as the fix leaves it: a purge mode of the old spelling renamed
/// (`Graciously` by `Gracefully`, the one spelling 1.19 keeps), else the value taken out and the CRD's default
/// (if any) standing in for it, the fix's value being unknown. (`purgeMode: Graciously` is then
/// not also judged as a purge mode other than Gracefully.) Only on the request's own path: an
/// UPDATE's stored side keeps its values, which ratcheting compares. Whether it changed the
/// object (then the mutating webhook has to see it again).
fn without_enum_refusals(progress: &mut Progress, kind: &str, version: KarmadaVersion) -> bool {
    let refused: Vec<FieldPath> = progress
        .first
        .iter()
        .filter(|v| v.stage == Some(Stage::Schema))
        .flat_map(|v| &v.refusals)
        .filter(|r| r.rule == schema::ENUM)
        .map(|r| r.field.clone())
        .collect();
    let (mut taken, mut renamed_any) = (false, false);
    for at in &refused {
        if let Some(value) = value_mut(&mut progress.object, &at.0) {
            let renamed = matches!(at.0.last(), Some(crate::source::Seg::Key(k)) if k == "purgeMode")
                && value
                    .as_str()
                    .and_then(super::defaults::renamed_purge_mode)
                    .map(|new| *value = Json::String(new.to_string()))
                    .is_some();
            if renamed {
                renamed_any = true;
                continue;
            }
        }
        taken |= take_out(&mut progress.object, at);
    }
    if let Some(schema) = schema::structural_schema(kind, version).filter(|_| taken) {
        structural::apply_defaults(&mut progress.object, schema);
    }
    taken || renamed_any
}

/// A missing field beside an unknown one (`resourceSelector:` for `resourceSelectors:`): most
/// likely the same field misspelled, so fixing the unknown field fixes this one too. Only
/// refusals reported after the first are left out this way.
fn left_by_a_typo(r: &Refusal, manifest: &Json, unknown: &[FieldPath]) -> bool {
    let Some((_, parent)) = r.field.0.split_last() else {
        return false;
    };
    let absent = super::ratchet::value_at(manifest, &r.field).is_none_or(Json::is_null);
    absent
        && unknown
            .iter()
            .any(|u| u.0.split_last().is_some_and(|(_, p)| p == parent))
}

/// Every value `first` finds Go cannot decode, in order: each is taken out of `object` (a key
/// removed, a list item made `null`) before looking for the next, as fixing it would.
fn type_errors(
    object: &mut Json,
    dropped: &mut Vec<FieldPath>,
    first: impl Fn(&Json) -> Option<gotypes::TypeError>,
) -> Vec<gotypes::TypeError> {
    let mut out = Vec::new();
    while let Some(e) = first(object) {
        if !take_out(object, &e.at) || out.len() > 1000 {
            out.push(e);
            break;
        }
        dropped.push(e.at.clone());
        out.push(e);
    }
    out
}

/// The value at the path `at`, if there is one.
fn value_mut<'j>(object: &'j mut Json, at: &[crate::source::Seg]) -> Option<&'j mut Json> {
    use crate::source::Seg;
    at.iter().try_fold(object, |node, seg| match (seg, node) {
        (Seg::Key(k), Json::Object(m)) => m.get_mut(k),
        (Seg::Index(i), Json::Array(a)) => a.get_mut(*i),
        _ => None,
    })
}

/// Removes the value at `at` (a list item becomes `null`); `false` when nothing was there.
fn take_out(object: &mut Json, at: &FieldPath) -> bool {
    use crate::source::Seg;
    let Some((last, parents)) = at.0.split_last() else {
        return false;
    };
    match (last, value_mut(object, parents)) {
        (Seg::Key(k), Some(Json::Object(m))) => m.shift_remove(k).is_some(),
        (Seg::Index(i), Some(Json::Array(a))) => a.get_mut(*i).is_some_and(|v| {
            let was_null = v.is_null();
            *v = Json::Null;
            !was_null
        }),
        _ => false,
    }
}

/// The validating webhook `webhook` denying for `violations` (403 `admission webhook "…"
/// denied the request: …`), or `None` when there are none.
pub(super) fn webhook_denial(webhook: &str, violations: &[Violation]) -> Option<Verdict> {
    let msg = aggregate(violations)?;
    let refusals = violations
        .iter()
        .map(|v| Refusal {
            rule: v.rule,
            field: v.field.clone(),
            message: v.message.clone(),
            at_key: true,
        })
        .collect();
    Some(Verdict::refused(
        Stage::ValidatingWebhook,
        refusals,
        format!("admission webhook \"{webhook}\" denied the request: {msg}"),
    ))
}

fn type_refusal(at: FieldPath, message: String) -> Refusal {
    Refusal {
        rule: schema::TYPE,
        field: at,
        message,
        at_key: false,
    }
}

/// `strict decoding error: unknown field "a", unknown field "b"` (§2.1): the refusals and the
/// message.
fn strict_decode_error(
    kind: &str,
    manifest: &Json,
    unknown: Vec<FieldPath>,
) -> (Vec<Refusal>, String) {
    let listed: Vec<String> = unknown
        .iter()
        .map(|p| format!("unknown field \"{p}\""))
        .collect();
    let message = format!(
        "{}strict decoding error: {}",
        decode_prefix(kind, manifest),
        listed.join(", ")
    );
    let refusals = unknown
        .into_iter()
        .zip(listed)
        .map(|(field, message)| Refusal {
            rule: schema::UNKNOWN_FIELD,
            field,
            message,
            at_key: true,
        })
        .collect();
    (refusals, message)
}

/// `<Kind>.policy.karmada.io "<name>" is invalid: <e>` or `… is invalid: [<e1>, <e2>]`, identical
/// strings once (§5.2). The schema errors' real order is a Go map's: ours is by field.
fn invalid_message(kind: &str, object: &Json, refusals: &[Refusal]) -> String {
    let name = object
        .pointer("/metadata/name")
        .and_then(Json::as_str)
        .unwrap_or("");
    let mut seen = std::collections::HashSet::new();
    let errors: Vec<&str> = refusals
        .iter()
        .map(|r| r.message.as_str())
        .filter(|m| seen.insert(*m))
        .collect();
    let body = match errors.as_slice() {
        [one] => (*one).to_string(),
        many => format!("[{}]", many.join(", ")),
    };
    format!(
        "{kind}.policy.karmada.io {} is invalid: {body}",
        serde_json::Value::String(name.to_string())
    )
}

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";

/// `IsDNS1123Label` (`util/validation/validation.go:155-182`), as `ValidateNamespaceName` uses it.
fn dns1123_label_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(Wording::UtilValidation.max_len_error(63));
    }
    let lower_alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let b = value.as_bytes();
    let ok = !b.is_empty()
        && lower_alnum(b[0])
        && lower_alnum(b[b.len() - 1])
        && b.iter().all(|&c| lower_alnum(c) || c == b'-');
    if !ok {
        errs.push(super::labels::regex_error(
            DNS1123_LABEL_ERR_MSG,
            DNS1123_LABEL_FMT,
            &["my-name", "123-abc"],
        ));
    }
    errs
}

/// `ValidateObjectMetaAccessor(obj, namespaced, NameIsDNSSubdomain, "metadata")` for the name
/// and namespace (§5.1): `metadata.name: Invalid value: "My_Policy": a lowercase RFC 1123 …`.
fn object_meta_refusals(namespaced: bool, object: &Json) -> Vec<Refusal> {
    let mut out = Vec::new();
    let meta = object.get("metadata");
    let text = |key: &str| {
        meta.and_then(|m| m.get(key))
            .and_then(Json::as_str)
            .unwrap_or("")
    };
    // Unrendered templating (`${NAME}`, `{{ .Values.name }}`) is reported by the input checks;
    // the rendered name is unknown here.
    let templated = |v: &str| v.contains("${") || v.contains("{{");
    let name = text("name");
    let generate_name = text("generateName");
    if templated(name) || templated(generate_name) {
        return out;
    }
    let name_field = FieldPath::root().key("metadata").key("name");
    if name.is_empty() && generate_name.is_empty() {
        out.push(Refusal {
            rule: schema::CONSTRAINT,
            field: name_field,
            message: "metadata.name: Required value: name or generateName is required".into(),
            at_key: false,
        });
    } else if !name.is_empty() {
        // The API server's util/validation, whose MaxLenError counts "characters" in every
        // Kubernetes release Karmada installs (util/validation/validation.go:198-209,425-427
        // @v1.19.0-rc.0's vendored v0.36).
        for detail in dns1123_subdomain_errors(name, Wording::UtilValidation) {
            out.push(Refusal {
                rule: schema::CONSTRAINT,
                field: name_field.clone(),
                message: format!("metadata.name: Invalid value: {}: {detail}", quoted(name)),
                at_key: false,
            });
        }
    }
    if namespaced {
        let namespace = text("namespace");
        let field = FieldPath::root().key("metadata").key("namespace");
        if templated(namespace) {
            return out;
        }
        if namespace.is_empty() {
            out.push(Refusal {
                rule: schema::CONSTRAINT,
                field,
                message: "metadata.namespace: Required value".into(),
                at_key: false,
            });
        } else {
            for detail in dns1123_label_errors(namespace) {
                out.push(Refusal {
                    rule: schema::CONSTRAINT,
                    field: field.clone(),
                    message: format!(
                        "metadata.namespace: Invalid value: {}: {detail}",
                        quoted(namespace)
                    ),
                    at_key: false,
                });
            }
        }
    }
    out
}

/// Go's `%q` for the plain ASCII names validated here.
fn quoted(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// What of the spec [`mutate`] leaves to marshal again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marshal {
    /// Nothing, or only objects below the spec, which `mutate` marshaled itself.
    Done,
    /// The spec itself gained a field (`propagateDeps`).
    Spec,
}

/// The mutating webhook's `SetDefault*` steps (§3.1 steps 2-6) on the round-tripped spec, where
/// an absent key is the Go zero value: the helpers cannot tell `""` from absent. Each object a
/// step sets a field of is marshaled again, as the webhook's `json.Marshal` of the whole object
/// leaves it.
fn mutate(
    kind: PolicyKind,
    namespace: Option<&str>,
    spec: &mut Json,
    version: KarmadaVersion,
) -> Marshal {
    let Json::Object(spec) = spec else {
        return Marshal::Done;
    };
    let text = |m: &Map<String, Json>, key: &str| {
        m.get(key).and_then(Json::as_str).unwrap_or("").to_string()
    };
    // Step 2 (PP only): selectors without a namespace get the request namespace.
    if let (PolicyKind::PropagationPolicy, Some(ns)) = (kind, namespace.filter(|n| !n.is_empty())) {
        for rs in objects_mut(spec.get_mut("resourceSelectors")) {
            if text(rs, "namespace").is_empty() {
                rs.insert("namespace".into(), Json::String(ns.to_string()));
                gotypes::remarshal(rs, &gotypes::RESOURCE_SELECTOR);
            }
        }
    }
    // Step 3: spread constraints.
    let placement = spec.get_mut("placement").and_then(Json::as_object_mut);
    if let Some(placement) = placement {
        for c in objects_mut(placement.get_mut("spreadConstraints")) {
            let mut set = false;
            if text(c, "spreadByLabel").is_empty() && text(c, "spreadByField").is_empty() {
                c.insert("spreadByField".into(), Json::String("cluster".into()));
                set = true;
            }
            if c.get("minGroups").and_then(Json::as_i64).unwrap_or(0) == 0 {
                c.insert("minGroups".into(), Json::from(1));
                set = true;
            }
            if set {
                gotypes::remarshal(c, &gotypes::SPREAD_CONSTRAINT);
            }
        }
        // Step 5: Divided as decoded, without a preference, divides by weight.
        if let Some(rs) = placement
            .get_mut("replicaScheduling")
            .and_then(Json::as_object_mut)
        {
            if text(rs, "replicaSchedulingType") == "Divided"
                && text(rs, "replicaDivisionPreference").is_empty()
            {
                rs.insert(
                    "replicaDivisionPreference".into(),
                    Json::String("Weighted".into()),
                );
                gotypes::remarshal(rs, &gotypes::REPLICA_SCHEDULING);
            }
        }
    }
    // Step 6: graceful purge as decoded, without a grace period, gets 600 seconds.
    let app = spec
        .get_mut("failover")
        .and_then(Json::as_object_mut)
        .and_then(|f| f.get_mut("application"))
        .and_then(Json::as_object_mut);
    if let Some(app) = app {
        if is_graceful_purge(&text(app, "purgeMode"), version)
            && !app.contains_key("gracePeriodSeconds")
        {
            app.insert("gracePeriodSeconds".into(), Json::from(600));
            gotypes::remarshal(app, &gotypes::APPLICATION_FAILOVER);
        }
    }
    // Step 4: a ServiceImport selector propagates dependencies.
    let service_import = objects(spec.get("resourceSelectors")).any(|rs| {
        text(rs, "kind") == "ServiceImport"
            && text(rs, "apiVersion") == "multicluster.x-k8s.io/v1alpha1"
    });
    if service_import {
        spec.insert("propagateDeps".into(), Json::Bool(true));
        return Marshal::Spec;
    }
    Marshal::Done
}

fn objects(v: Option<&Json>) -> impl Iterator<Item = &Map<String, Json>> {
    v.and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_object)
}

fn objects_mut(v: Option<&mut Json>) -> impl Iterator<Item = &mut Map<String, Json>> {
    v.and_then(Json::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Json::as_object_mut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{load, Source};

    /// The chain's verdict on a YAML manifest (a PP's request namespace is `apps`, §8).
    fn verdict(yaml: &str) -> Verdict {
        verdict_at(yaml, KarmadaVersion::LATEST)
    }

    fn verdict_at(yaml: &str, version: KarmadaVersion) -> Verdict {
        let doc = load(Source::new("t.yaml", yaml)).documents.remove(0);
        let json = doc.root.to_json();
        let kind = PolicyKind::from_kind(json["kind"].as_str().unwrap()).unwrap();
        let ns = json
            .pointer("/metadata/namespace")
            .and_then(Json::as_str)
            .unwrap_or("apps")
            .to_string();
        admit_manifest(kind, &json, Some(&ns), version)
    }

    fn message(yaml: &str) -> String {
        verdict(yaml).api_server_message.unwrap_or_default()
    }

    const PP: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n";
    const CPP: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\n";

    #[test]
    fn ex1_a_required_selector_kind_is_filled_by_the_round_trip() {
        let v = verdict(&format!(
            "{CPP}metadata: {{name: ex1}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, name: app-config}}]\n"
        ));
        assert!(v.is_admitted(), "{:?}", v.api_server_message);
        let spec = v.spec.unwrap();
        assert_eq!(spec.resource_selectors[0].kind, "");
        assert_eq!(spec.resource_selectors[0].namespace, "");
    }

    #[test]
    fn ex2_a_required_weight_is_filled_with_zero_and_then_refused_by_the_schema() {
        assert_eq!(
            message(&format!(
                "{PP}metadata: {{name: ex2, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: web}}]\n  placement:\n    replicaScheduling:\n      replicaDivisionPreference: Weighted\n      weightPreference: {{staticWeightList: [{{targetCluster: {{clusterNames: [m1]}}}}]}}\n"
            )),
            "PropagationPolicy.policy.karmada.io \"ex2\" is invalid: spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight: Invalid value: 0: spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight in body should be greater than or equal to 1"
        );
    }

    #[test]
    fn ex3_an_empty_purge_mode_is_dropped_re_defaulted_and_then_lacks_a_grace_period() {
        let v = verdict(&format!(
            "{CPP}metadata: {{name: ex3}}\nspec:\n  propagateDeps: true\n  resourceSelectors: [{{apiVersion: apps/v1, kind: StatefulSet}}]\n  failover: {{application: {{decisionConditions: {{tolerationSeconds: 60}}, purgeMode: \"\"}}}}\n"
        ));
        assert_eq!(v.stage, Some(Stage::ValidatingWebhook));
        assert_eq!(
            v.api_server_message.unwrap(),
            "admission webhook \"clusterpropagationpolicy.karmada.io\" denied the request: spec.failover.application.gracePeriodSeconds: Invalid value: null: should not be empty when purgeMode is gracefully"
        );
        assert_eq!(
            v.refusals[0].field.to_string(),
            "spec.failover.application.gracePeriodSeconds"
        );
    }

    #[test]
    fn ex4_empty_lists_vanish_before_the_co_existence_rule() {
        let v = verdict(&format!(
            "{CPP}metadata: {{name: ex4}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  placement: {{clusterAffinity: {{exclude: [m3]}}, clusterAffinities: [], spreadConstraints: []}}\n"
        ));
        assert!(v.is_admitted(), "{:?}", v.api_server_message);
    }

    #[test]
    fn ex5_an_int32_overflow_is_the_mutating_webhooks_decode_error() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: ex5, namespace: apps}}\nspec:\n  propagateDeps: true\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  failover: {{application: {{decisionConditions: {{}}, gracePeriodSeconds: 4294967296}}}}\n"
        ));
        assert_eq!(v.stage, Some(Stage::MutatingWebhook));
        assert_eq!(
            v.api_server_message.unwrap(),
            "admission webhook \"propagationpolicy.karmada.io\" denied the request: json: cannot unmarshal number 4294967296 into Go struct field ApplicationFailoverBehavior.spec.failover.application.gracePeriodSeconds of type int32"
        );
        assert_eq!(
            v.refusals[0].field.to_string(),
            "spec.failover.application.gracePeriodSeconds"
        );
    }

    #[test]
    fn ex6_only_the_first_type_error_in_sorted_key_order_is_reported() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: ex6, namespace: apps}}\nspec:\n  priority: high\n  placement: {{spreadConstraints: [{{spreadByField: cluster, maxGroups: two}}]}}\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n"
        ));
        assert_eq!(v.refusals.len(), 1);
        assert_eq!(
            v.api_server_message.unwrap(),
            "admission webhook \"propagationpolicy.karmada.io\" denied the request: json: cannot unmarshal string into Go struct field SpreadConstraint.spec.placement.spreadConstraints.maxGroups of type int"
        );
    }

    #[test]
    fn ex7_the_validating_webhook_renders_the_mutated_struct() {
        assert_eq!(
            message(&format!(
                "{PP}metadata: {{name: ex7, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  placement: {{clusterAffinity: {{clusterNames: [m1]}}, clusterAffinities: [{{affinityName: g1, clusterNames: [m2]}}]}}\n"
            )),
            "admission webhook \"propagationpolicy.karmada.io\" denied the request: spec.placement: Invalid value: {\"clusterAffinity\":{\"clusterNames\":[\"m1\"]},\"clusterAffinities\":[{\"affinityName\":\"g1\",\"clusterNames\":[\"m2\"]}]}: clusterAffinities cannot co-exist with clusterAffinity"
        );
    }

    #[test]
    fn ex8_unknown_fields_are_a_strict_decoding_error_before_any_webhook() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: ex8, namespace: apps, foo: 1}}\nspec:\n  zeta: 1\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, extra: x}}]\n  alpha: 2\n  priority: high\n"
        ));
        assert_eq!(v.stage, Some(Stage::StrictDecode));
        assert_eq!(
            v.api_server_message.unwrap(),
            "PropagationPolicy in version \"v1alpha1\" cannot be handled as a PropagationPolicy: strict decoding error: unknown field \"metadata.foo\", unknown field \"spec.alpha\", unknown field \"spec.resourceSelectors[0].extra\", unknown field \"spec.zeta\""
        );
        assert_eq!(v.refusals.len(), 4);
    }

    /// Each stage's refusals, after the first (kubeconform-style: everything to fix at once).
    fn after_fix(v: &Verdict) -> Vec<(Stage, &'static str, String)> {
        v.after_fix
            .iter()
            .map(|l| (l.stage, l.refusal.rule, l.refusal.field.to_string()))
            .collect()
    }

    #[test]
    fn later_stages_are_run_on_the_object_with_the_earlier_causes_taken_out() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: typo, namespace: apps}}\nspec:\n  resourceSelector: [{{apiVersion: apps/v1, kind: Deployment}}]\n  priority: high\n  preemption: Sometimes\n"
        ));
        // The verdict is the first refusing stage's, as the API server answers today.
        assert_eq!(v.stage, Some(Stage::StrictDecode));
        assert_eq!(v.refusals.len(), 1);
        assert_eq!(
            v.api_server_message.as_deref(),
            Some("PropagationPolicy in version \"v1alpha1\" cannot be handled as a PropagationPolicy: strict decoding error: unknown field \"spec.resourceSelector\"")
        );
        // Then the webhook's Go decode (the string priority), the schema (the enum). The
        // missing `resourceSelectors` beside the unknown `resourceSelector` is the same typo.
        assert_eq!(
            after_fix(&v),
            [
                (
                    Stage::MutatingWebhook,
                    "schema-type",
                    "spec.priority".into()
                ),
                (Stage::Schema, "schema-enum", "spec.preemption".into()),
            ]
        );
    }

    /// A value outside the enum is replaced when it is fixed: an old purge mode by its new
    /// spelling (`Graciously` by `Gracefully`, with which a grace period is right;
    /// `Immediately` by `Directly`, with which it is not), another by the CRD's default.
    #[test]
    fn after_an_enum_refusal_the_webhook_judges_the_fixed_value() {
        let immediately = verdict(&format!(
            "{PP}metadata: {{name: pm, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  propagateDeps: true\n  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 60}}\n      purgeMode: Immediately\n      gracePeriodSeconds: 600\n"
        ));
        assert_eq!(
            after_fix(&immediately),
            [(
                Stage::ValidatingWebhook,
                "grace-period-without-gracefully",
                "spec.failover.application.gracePeriodSeconds".into()
            )]
        );
        let v = verdict(&format!(
            "{PP}metadata: {{name: pm, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 60}}\n      purgeMode: Graciously\n      gracePeriodSeconds: 600\n"
        ));
        assert_eq!(v.stage, Some(Stage::Schema));
        assert_eq!(
            after_fix(&v),
            [(
                Stage::ValidatingWebhook,
                "application-failover-requires-propagate-deps",
                "spec.propagateDeps".into()
            )]
        );
    }

    /// Without `resourceSelectors` (the round trip writes null, the schema refuses its type),
    /// the webhook still judges the rest for after-fix.
    #[test]
    fn after_a_missing_list_the_webhook_judges_the_rest() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: nosel, namespace: apps}}\nspec:\n  failover:\n    application:\n      decisionConditions: {{tolerationSeconds: 300}}\n      purgeMode: Never\n"
        ));
        assert_eq!(v.stage, Some(Stage::Schema));
        assert_eq!(v.refusals[0].field.to_string(), "spec.resourceSelectors");
        assert_eq!(
            after_fix(&v),
            [(
                Stage::ValidatingWebhook,
                "application-failover-requires-propagate-deps",
                "spec.propagateDeps".into()
            )]
        );
    }

    #[test]
    fn every_type_error_is_listed_the_first_one_decides() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: t, namespace: apps}}\nspec:\n  priority: high\n  placement: {{spreadConstraints: [{{spreadByField: cluster, maxGroups: two}}]}}\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  failover: {{application: {{decisionConditions: {{}}}}}}\n"
        ));
        // Go reports the first value it cannot decode in key order (§3.2): placement first.
        assert_eq!(v.stage, Some(Stage::MutatingWebhook));
        assert_eq!(
            v.refusals[0].field.to_string(),
            "spec.placement.spreadConstraints[0].maxGroups"
        );
        assert_eq!(
            after_fix(&v),
            [
                (
                    Stage::MutatingWebhook,
                    "schema-type",
                    "spec.priority".into()
                ),
                (
                    Stage::ValidatingWebhook,
                    "application-failover-requires-propagate-deps",
                    "spec.propagateDeps".into()
                ),
            ]
        );
        // An admitted object has nothing after fix.
        assert!(verdict(&format!(
            "{PP}metadata: {{name: ok, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n"
        ))
        .after_fix
        .is_empty());
    }

    #[test]
    fn an_update_that_keeps_an_invalid_value_is_ratcheted() {
        // admission-chain.md §5.4; apiextensions-apiserver pkg/apiserver/validation/ratcheting.go:
        // `purgeMode: Graciously`, valid under 1.17, outside 1.19's enum.
        let doc = |mode: &str, toleration: u32| {
            format!("{PP}metadata: {{name: pm, namespace: apps}}\nspec:\n  propagateDeps: true\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  failover: {{application: {{purgeMode: {mode}, decisionConditions: {{tolerationSeconds: {toleration}}}}}}}\n")
        };
        let json = |yaml: &str| {
            load(Source::new("t.yaml", yaml))
                .documents
                .remove(0)
                .root
                .to_json()
        };
        let kind = PolicyKind::PropagationPolicy;
        let v119 = KarmadaVersion::new(1, 19);
        let stored = json(&doc("Graciously", 60));
        assert_eq!(
            admit_manifest(kind, &stored, Some("apps"), v119).stage,
            Some(Stage::Schema)
        );
        // Another field of the same object changes: the stored purgeMode is let through.
        let update = admit_update(
            kind,
            &json(&doc("Graciously", 120)),
            &stored,
            Some("apps"),
            v119,
        );
        assert!(update.is_admitted(), "{:?}", update.api_server_message);
        assert_eq!(
            update
                .ratcheted
                .iter()
                .map(|r| r.field.to_string())
                .collect::<Vec<_>>(),
            ["spec.failover.application.purgeMode"]
        );
        // The webhook is not ratcheted: 1.19 no longer reads Graciously as graceful, so a grace
        // period beside it is denied (validation.go, ValidateApplicationFailover).
        let graced =
            json(&doc("Graciously", 60).replace("purgeMode", "gracePeriodSeconds: 600, purgeMode"));
        let denied = admit_update(kind, &graced, &graced, Some("apps"), v119);
        assert_eq!(denied.stage, Some(Stage::ValidatingWebhook));
        assert_eq!(denied.ratcheted.len(), 1);
        // Changing the value itself is validated as on CREATE.
        let changed = admit_update(
            kind,
            &json(&doc("Immediately", 60)),
            &stored,
            Some("apps"),
            v119,
        );
        assert_eq!(changed.stage, Some(Stage::Schema));
        assert!(changed.ratcheted.is_empty());
        // Stored under 1.17, the value may be what the API server holds after an upgrade; a
        // value no release admits (below the minimum of 1 the CRD has always had) never was.
        assert_eq!(
            newest_admitting_release(kind, &stored, Some("apps"), v119),
            Some(KarmadaVersion::new(1, 18))
        );
        let weight = json(&format!("{PP}metadata: {{name: w, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  placement:\n    replicaScheduling:\n      replicaSchedulingType: Divided\n      replicaDivisionPreference: Weighted\n      weightPreference:\n        staticWeightList: [{{targetCluster: {{clusterNames: [m1]}}, weight: 0}}]\n"));
        assert_eq!(
            newest_admitting_release(kind, &weight, Some("apps"), v119),
            None
        );
    }

    #[test]
    fn the_releases_up_to_one_are_the_known_ones_newest_first() {
        let minors = |v| releases_up_to(v).map(|v| v.minor).collect::<Vec<_>>();
        assert_eq!(minors(KarmadaVersion::new(1, 12)), [12, 11, 10]);
        assert_eq!(minors(KarmadaVersion::new(1, 9)), [10]);
        assert_eq!(minors(KarmadaVersion::new(1, 40)).len(), 10);
    }

    #[test]
    fn a_metadata_type_error_fails_the_decode() {
        assert_eq!(
            message(&format!(
                "{PP}metadata: {{name: m, namespace: apps, labels: {{a: 1}}}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap}}]\n"
            )),
            "PropagationPolicy in version \"v1alpha1\" cannot be handled as a PropagationPolicy: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string"
        );
    }

    #[test]
    fn metadata_name_must_be_a_dns_subdomain() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: My_Policy, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap}}]\n"
        ));
        assert_eq!(v.stage, Some(Stage::Schema));
        assert_eq!(v.refusals[0].field.to_string(), "metadata.name");
        assert_eq!(
            v.api_server_message.unwrap(),
            "PropagationPolicy.policy.karmada.io \"My_Policy\" is invalid: metadata.name: Invalid value: \"My_Policy\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
        );
    }

    /// Karmada 1.10's PP/CPP mutating webhook refuses a name over 63 characters with a 400
    /// (pkg/webhook/propagationpolicy/mutating.go:77-78, clusterpropagationpolicy/
    /// mutating.go:69-70 @v1.10.0); 1.11 dropped the check.
    #[test]
    fn karmada_1_10_refuses_a_policy_name_over_63_characters() {
        let name = "a".repeat(64);
        let pp = format!(
            "{PP}metadata: {{name: {name}, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap}}]\n"
        );
        let v = verdict_at(&pp, KarmadaVersion::new(1, 10));
        assert_eq!(v.stage, Some(Stage::MutatingWebhook));
        assert_eq!(v.refusals.len(), 1);
        assert_eq!(v.refusals[0].rule, "policy-name-too-long");
        assert_eq!(v.refusals[0].field.to_string(), "metadata.name");
        assert_eq!(
            v.api_server_message.as_deref(),
            Some("admission webhook \"propagationpolicy.karmada.io\" denied the request: PropagationPolicy's name should be no more than 63 characters")
        );
        let cpp = format!(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: ClusterPropagationPolicy\nmetadata: {{name: {name}}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap}}]\n"
        );
        assert_eq!(
            verdict_at(&cpp, KarmadaVersion::new(1, 10)).api_server_message.as_deref(),
            Some("admission webhook \"clusterpropagationpolicy.karmada.io\" denied the request: ClusterPropagationPolicy's name should be no more than 63 characters")
        );
        assert!(verdict_at(&pp, KarmadaVersion::new(1, 11)).is_admitted());
        let short = pp.replace(&name, &"a".repeat(63));
        assert!(verdict_at(&short, KarmadaVersion::new(1, 10)).is_admitted());
    }

    /// The API server names and namespaces are checked with apimachinery's util/validation,
    /// whose MaxLenError counts "characters" in every release (validation.go:425-427 of the
    /// v0.36 Karmada 1.19 vendors, and of every older one).
    #[test]
    fn a_long_name_is_counted_in_characters() {
        let name = "a".repeat(254);
        let v = verdict(&format!(
            "{PP}metadata: {{name: {name}, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap}}]\n"
        ));
        assert_eq!(v.refusals.len(), 1, "{:?}", v.refusals);
        assert_eq!(
            v.refusals[0].message,
            format!(
                "metadata.name: Invalid value: \"{name}\": must be no more than 253 characters"
            )
        );
    }

    #[test]
    fn a_missing_spec_is_a_null_selector_list_not_a_required_error() {
        assert_eq!(
            message(&format!("{CPP}metadata: {{name: nospec}}\n")),
            "ClusterPropagationPolicy.policy.karmada.io \"nospec\" is invalid: spec.resourceSelectors: Invalid value: \"null\": spec.resourceSelectors in body must be of type array: \"null\""
        );
    }

    #[test]
    fn a_null_scalar_is_absent_and_a_null_list_item_a_zero_struct() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: nulls, namespace: apps}}\nspec:\n  schedulerName: null\n  resourceSelectors: [{{apiVersion: v1, kind: ConfigMap, name: null}}]\n  placement: {{spreadConstraints: [null]}}\n"
        ));
        assert!(v.is_admitted(), "{:?}", v.api_server_message);
        let spec = v.spec.unwrap();
        assert_eq!(spec.scheduler_name.as_deref(), Some("default-scheduler"));
        let c = &spec.placement.unwrap().spread_constraints[0];
        assert_eq!(
            (c.spread_by_field.as_str(), c.min_groups),
            ("cluster", Some(1))
        );
    }

    #[test]
    fn decision_conditions_are_materialized_and_defaulted() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: dc, namespace: apps}}\nspec:\n  propagateDeps: true\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  failover: {{application: {{}}}}\n"
        ));
        assert!(v.is_admitted(), "{:?}", v.api_server_message);
        let app = v.spec.unwrap().failover.unwrap().application.unwrap();
        assert_eq!(
            app.decision_conditions.unwrap().toleration_seconds,
            Some(300)
        );
        assert_eq!(app.grace_period_seconds, Some(600));
    }

    #[test]
    fn an_empty_spread_by_field_beside_a_label_is_dropped() {
        let v = verdict(&format!(
            "{PP}metadata: {{name: sp, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  placement: {{spreadConstraints: [{{spreadByLabel: zone, spreadByField: \"\"}}]}}\n"
        ));
        assert!(v.is_admitted(), "{:?}", v.api_server_message);
    }

    #[test]
    fn an_empty_replica_scheduling_type_is_divided_without_weighted() {
        // §3.1: the webhook does not see Divided, the re-default brings it back.
        let v = verdict(&format!(
            "{PP}metadata: {{name: rs, namespace: apps}}\nspec:\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  placement: {{replicaScheduling: {{replicaSchedulingType: \"\"}}}}\n"
        ));
        let rs = v
            .spec
            .unwrap()
            .placement
            .unwrap()
            .replica_scheduling
            .unwrap();
        assert_eq!(rs.replica_scheduling_type.as_deref(), Some("Divided"));
        assert_eq!(rs.replica_division_preference, None);
    }

    fn policy(yaml: &str) -> crate::model::Policy {
        let docs = load(Source::new("t.yaml", yaml)).documents;
        let inv = crate::model::Inventory::from_documents(docs, "apps");
        let p = inv.policies().next().expect("a policy").clone();
        p
    }

    const STORED: &str = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata:\n  name: web\n  namespace: apps\n  labels: {propagationpolicy.karmada.io/permanent-id: 6b7bf6a4-0d1c-4a8e-9f43-3a1c2b9e0f11}\nspec:\n  schedulerName: default-scheduler\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]\n";

    #[test]
    fn ex9_an_empty_scheduler_name_on_update_is_not_a_change() {
        let old = policy(STORED);
        let new =
            policy(&STORED.replace("schedulerName: default-scheduler", "schedulerName: \"\""));
        assert!(super::super::validate_update(&old, &new).is_empty());
        let removed = policy(&STORED.replace("  schedulerName: default-scheduler\n", ""));
        assert!(super::super::validate_update(&old, &removed).is_empty());
    }

    #[test]
    fn ex10_the_update_checks_come_first_and_alone() {
        let old = policy(STORED);
        let new = policy(&STORED.replace(
            "schedulerName: default-scheduler",
            "schedulerName: foo\n  placement: {spreadConstraints: [{spreadByField: region}]}",
        ));
        let v = super::super::validate_update(&old, &new);
        assert_eq!(v.len(), 1);
        assert_eq!(
            super::super::denial(PolicyKind::PropagationPolicy, &v).unwrap(),
            "admission webhook \"propagationpolicy.karmada.io\" denied the request: the schedulerName should not be updated"
        );
    }

    #[test]
    fn karmada_1_17_accepts_both_purge_mode_spellings() {
        let doc = |mode: &str| {
            format!("{PP}metadata: {{name: pm, namespace: apps}}\nspec:\n  propagateDeps: true\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  failover: {{application: {{purgeMode: {mode}}}}}\n")
        };
        let v117 = KarmadaVersion::new(1, 17);
        for mode in ["Gracefully", "Graciously", "Directly", "Immediately"] {
            let v = verdict_at(&doc(mode), v117);
            assert!(v.is_admitted(), "{mode}: {:?}", v.api_server_message);
        }
        let app = verdict_at(&doc("Gracefully"), v117)
            .spec
            .unwrap()
            .failover
            .unwrap()
            .application
            .unwrap();
        assert_eq!(app.grace_period_seconds, Some(600));
        assert_eq!(
            verdict(&doc("Graciously")).api_server_message.unwrap(),
            "PropagationPolicy.policy.karmada.io \"pm\" is invalid: spec.failover.application.purgeMode: Unsupported value: \"Graciously\": supported values: \"Directly\", \"Gracefully\", \"Never\""
        );
    }

    /// `purgeMode: Graciously` without a grace period at each release boundary: the mutating
    /// webhook gives it 600 seconds while it means Gracefully (up to 1.18,
    /// `SetDefaultGracePeriodSeconds`, pkg/util/helper/policy.go); from 1.19 the CRD enum refuses
    /// it, and its fix, `Gracefully`, gets the 600 seconds from the webhook too: only the enum
    /// refusal is reported, never a missing grace period.
    #[test]
    fn graciously_without_a_grace_period_at_each_release_boundary() {
        let doc = |mode: &str| {
            format!("{PP}metadata: {{name: pm, namespace: apps}}\nspec:\n  propagateDeps: true\n  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]\n  failover: {{application: {{decisionConditions: {{tolerationSeconds: 60}}, purgeMode: {mode}}}}}\n")
        };
        let grace = |v: Verdict| {
            let app = v.spec.and_then(|s| s.failover).and_then(|f| f.application);
            app.and_then(|a| a.grace_period_seconds)
        };
        for minor in [14, 15, 18] {
            let v = verdict_at(&doc("Graciously"), KarmadaVersion::new(1, minor));
            assert!(v.is_admitted(), "1.{minor}: {:?}", v.api_server_message);
            assert_eq!(grace(v), Some(600), "1.{minor}");
        }
        // `Gracefully` is in the enum from 1.15 on.
        let v114 = verdict_at(&doc("Gracefully"), KarmadaVersion::new(1, 14));
        assert_eq!(v114.stage, Some(Stage::Schema));
        let v115 = verdict_at(&doc("Gracefully"), KarmadaVersion::new(1, 15));
        assert_eq!(grace(v115), Some(600));
        for v in [KarmadaVersion::new(1, 19), KarmadaVersion::LATEST] {
            let refused = verdict_at(&doc("Graciously"), v);
            assert_eq!(refused.stage, Some(Stage::Schema));
            let rules: Vec<&str> = refused.refusals.iter().map(|r| r.rule).collect();
            assert_eq!(rules, [schema::ENUM]);
            assert_eq!(after_fix(&refused), []);
            // A value with no new spelling is taken out: the CRD default Gracefully stands in,
            // and the webhook fills its grace period as well.
            let other = verdict_at(&doc("Slowly"), v);
            assert_eq!(other.stage, Some(Stage::Schema));
            assert_eq!(after_fix(&other), []);
        }
    }

    /// The defaulted spec as the chain marshals it (only the changed objects again) and as a
    /// second marshal of the whole spec leaves it, each as JSON text, so key order counts.
    fn marshaled_again(kind: PolicyKind, ns: Option<&str>, spec: &Json) -> (String, String) {
        let mut local = gotypes::round_trip(Some(spec.clone()), &gotypes::PROPAGATION_SPEC);
        if mutate(kind, ns, &mut local, KarmadaVersion::LATEST) == Marshal::Spec {
            local = gotypes::round_trip(Some(local), &gotypes::PROPAGATION_SPEC);
        }
        let whole = gotypes::round_trip(Some(local.clone()), &gotypes::PROPAGATION_SPEC);
        (local.to_string(), whole.to_string())
    }

    /// Marshaling again only the objects the defaulting set a field of leaves the spec as a
    /// second marshal of the whole spec does, key order included: on every policy of the test
    /// data and the corpus, and on each defaulting step.
    #[test]
    fn marshaling_the_changed_objects_again_equals_marshaling_the_spec() {
        let steps = [
            "resourceSelectors: [{name: a, kind: Deployment, apiVersion: apps/v1, labelSelector: {matchLabels: {a: b}}}]",
            "resourceSelectors: [{kind: ServiceImport, apiVersion: multicluster.x-k8s.io/v1alpha1}]\nplacement: {clusterAffinity: {clusterNames: [a]}}",
            "placement: {spreadConstraints: [{maxGroups: 2}, {spreadByLabel: zone, minGroups: 0}, {minGroups: 3, spreadByField: region}]}",
            "placement: {replicaScheduling: {weightPreference: {dynamicWeight: AvailableReplicas}, replicaSchedulingType: Divided}}",
            "failover: {application: {statePreservation: {rules: []}, purgeMode: Gracefully, decisionConditions: {tolerationSeconds: 30}}}",
        ];
        let mut specs: Vec<Json> = steps.iter().map(|s| spec_of(s)).collect();
        for doc in crate::source::test_data_documents() {
            let json = doc.root.to_json();
            let policy = json["kind"].as_str().and_then(PolicyKind::from_kind);
            if let (Some(_), Some(spec)) = (policy, json.get("spec")) {
                specs.push(spec.clone());
            }
        }
        assert!(specs.len() > 100, "the data has specs: {}", specs.len());
        for spec in &specs {
            for kind in [
                PolicyKind::PropagationPolicy,
                PolicyKind::ClusterPropagationPolicy,
            ] {
                let (local, whole) = marshaled_again(kind, Some("apps"), spec);
                assert_eq!(local, whole, "{kind:?} {spec}");
            }
        }
    }

    fn spec_of(yaml: &str) -> Json {
        load(Source::new("t.yaml", yaml))
            .documents
            .remove(0)
            .root
            .to_json()
    }
}
