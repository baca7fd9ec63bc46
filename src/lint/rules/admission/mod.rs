//! Karmada's admission chain as lint rules: an error here means the API server would reject
//! the object. For PropagationPolicy and ClusterPropagationPolicy the whole chain runs in the
//! API server's order (`crate::engine::admission::chain`: strict decoding, the mutating
//! webhook's Go round trip, the CRD schema, the validating webhook), so its schema findings are
//! reported here too. The checks live in the engine; this unit documents the admission ids
//! ([`docs`]) and turns the engine's refusals into findings: per object, and for `--base` the
//! update rules (`validateUpdate`).

pub mod docs;

use std::collections::HashMap;

use crate::engine::admission::chain::{self, Verdict};
use crate::engine::admission::documents::Admissions;
use crate::engine::admission::{self, override_chain, taint_chain};
use crate::lint::finding::{Finding, Severity};
use crate::lint::options::LintOptions;
use crate::lint::phase::{Check, History, Rule};
use crate::model::{
    Inventory, KarmadaVersion, ObjectMeta, ObjectRef, OverridePolicy, Policy, PolicyKind,
    PolicyRef, POLICY_API_VERSION,
};

pub use docs::{rule, AdmissionRule, RULES};

pub static RULE: Rule = Rule {
    docs: &docs::DOCS,
    checks: &[
        Check::PerObject(|o| check(o.inventory, o.admissions, o.opts)),
        Check::History(update_check),
    ],
};

pub fn check(inventory: &Inventory, admissions: &Admissions, opts: &LintOptions) -> Vec<Finding> {
    let version = opts.version();
    let mut out = policy_findings(inventory, admissions, version);
    for op in inventory.overrides() {
        let Some(verdict) = admissions.get_override(op.doc) else {
            continue;
        };
        let object = override_object_ref(op);
        out.extend(verdict_findings(
            inventory, op.doc, &object, verdict, version,
        ));
    }
    out.extend(taint_policy_findings(inventory, opts));
    out
}

/// Every ClusterTaintPolicy document through its chain (`taint_chain`), from Karmada 1.14;
/// before, the kind is not served and the document is `unserved-karmada-kind`'s.
fn taint_policy_findings(inventory: &Inventory, opts: &LintOptions) -> Vec<Finding> {
    let version = opts.version();
    let mut out = Vec::new();
    for (doc, d) in inventory.documents.iter().enumerate() {
        let text = |key: &str| d.root.get(key).and_then(crate::source::Node::as_str);
        if text("kind") != Some(taint_chain::KIND) || text("apiVersion") != Some(POLICY_API_VERSION)
        {
            continue;
        }
        let manifest = d.root.to_json();
        let allow = opts.allow_no_execute_taint_policy;
        let Some(verdict) = taint_chain::admit_taint_policy(&manifest, version, allow) else {
            continue;
        };
        if verdict.is_admitted() {
            continue;
        }
        let object = ObjectRef {
            api_version: POLICY_API_VERSION.to_string(),
            kind: taint_chain::KIND.to_string(),
            namespace: None,
            name: ObjectMeta::from_node(d.root.get("metadata")).name,
        };
        for mut f in verdict_findings(inventory, doc, &object, &verdict, version) {
            if f.rule == "taint-no-execute-not-allowed" {
                // Karmada's text names no flag: say which one, and where this tool reads it.
                f.message = format!(
                    "{} (karmada-webhook's `--{}`, off unless `.karmada-policy.yaml` sets `webhookFlags: {{{}: true}}`)",
                    f.message,
                    taint_chain::ALLOW_NO_EXECUTE_FLAG,
                    taint_chain::ALLOW_NO_EXECUTE_FLAG
                );
            }
            // Only artifacts/deploy registers this webhook: the Helm chart, the operator and
            // karmadactl init store the policy as it is.
            f.message.push_str(
                "; refused where the clustertaintpolicy.karmada.io webhook is registered (artifacts/deploy; the Helm chart, the operator and karmadactl init register none)",
            );
            out.push(f);
        }
    }
    out
}

/// Every PP/CPP document's verdict (the chain ran once over them, typed or not: a document the
/// engine cannot use still has findings).
fn policy_findings(
    inventory: &Inventory,
    admissions: &Admissions,
    version: KarmadaVersion,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for a in admissions.iter().filter(|a| !a.verdict.is_admitted()) {
        let meta = ObjectMeta::from_node(inventory.documents[a.doc].root.get("metadata"));
        let object = ObjectRef {
            api_version: POLICY_API_VERSION.to_string(),
            kind: a.kind.as_str().to_string(),
            namespace: a.namespace.clone(),
            name: meta.name.clone(),
        };
        out.extend(verdict_findings(
            inventory, a.doc, &object, &a.verdict, version,
        ));
    }
    out
}

/// For a rule about a field the object lacks, the field that makes it required: where a
/// rendered object's finding is traced to (the line that wrote it is the line to edit).
pub fn cause_of_absent(rule: &str) -> Option<&'static str> {
    match rule {
        // validation.go:46-48: application failover needs propagateDeps.
        "application-failover-requires-propagate-deps" => Some("spec.failover.application"),
        _ => None,
    }
}

/// The findings of a refused object: its first refusing stage's refusals (the verdict), then
/// what the later stages refuse, marked as reported once those are fixed.
fn verdict_findings(
    inventory: &Inventory,
    doc: usize,
    object: &ObjectRef,
    verdict: &Verdict,
    version: KarmadaVersion,
) -> Vec<Finding> {
    let first = verdict.refusals.iter().map(|r| (r, false));
    let later = verdict.after_fix.iter().map(|l| (&l.refusal, true));
    first
        .chain(later)
        .map(|(r, after_fix)| {
            let f = refusal_finding(inventory, doc, object, r, version);
            if after_fix {
                // The API server's message is the first refusal's, not this one's.
                f.after_fix()
            } else {
                f.api_server_message(verdict.api_server_message.clone())
            }
        })
        .collect()
}

/// One refusal as a finding on its document; an unknown field's message ends with what it was
/// probably meant to be (the API server's own message, kept beside it, has no such hint).
fn refusal_finding(
    inventory: &Inventory,
    doc: usize,
    object: &ObjectRef,
    r: &chain::Refusal,
    version: KarmadaVersion,
) -> Finding {
    let d = &inventory.documents[doc];
    let severity = rule(r.rule).map_or(Severity::Error, |a| a.default_severity());
    let rule = rule(r.rule)
        .map(|a| a.id)
        .or_else(|| {
            super::schema::DOCS
                .iter()
                .find(|s| s.id == r.rule)
                .map(|s| s.id)
        })
        .unwrap_or(crate::schema::CONSTRAINT);
    let span = if r.at_key {
        d.root.locate(&r.field)
    } else {
        d.root.locate_value(&r.field)
    };
    let hint = (r.rule == crate::schema::UNKNOWN_FIELD)
        .then(|| crate::schema::unknown_field_hint(&object.kind, version, &r.field))
        .flatten();
    let message = match hint {
        Some(hint) => format!("{}; {hint}", r.message),
        None => r.message.clone(),
    };
    let mut f = Finding::new(rule, severity, message)
        .at(&d.source, span)
        .field(r.field.to_string())
        .object(object.clone());
    f.doc = Some(doc);
    f
}

/// `--base`: the policies the change updates, judged as the API server judges an UPDATE.
pub struct UpdateAdmission {
    /// The objects whose CREATE-chain findings at head give way to `findings`.
    pub objects: Vec<ObjectRef>,
    /// Each updated object's verdict on UPDATE (its first refusal, then what later stages
    /// refuse), located on the head document, but for `changed`.
    pub findings: Vec<Finding>,
    /// The CRD schema errors of values the update changes (ratcheting does not cover them): the
    /// change itself is refused there, whatever the base held, so these are always new.
    pub changed: Vec<Finding>,
    /// CRD schema errors of values the update leaves as stored: the API server lets them through
    /// (validation ratcheting, Kubernetes 1.30 and later), so they are an existing problem of the
    /// stored object, not a refusal of the change. Warnings, marked `ratcheted`.
    pub ratcheted: Vec<Finding>,
    /// The updated objects the API server admits: with what it stores, also those a CREATE
    /// would refuse (validation ratcheting).
    pub admitted: Vec<ObjectRef>,
    /// The updated policies whose base copy the run's release refuses and an older one admits:
    /// stored before an upgrade, they take part in the base's decisions, where a CREATE of the
    /// base would leave them out ([`mark_admitted`] on the base).
    pub stored_before_upgrade: Vec<ObjectRef>,
}

impl UpdateAdmission {
    /// The head's findings with the updated objects' CREATE verdicts replaced by their UPDATE
    /// verdicts.
    pub fn replace(&self, head: Vec<Finding>) -> Vec<Finding> {
        let create_verdict = |f: &Finding| {
            is_chain_rule(f.rule) && f.object.as_ref().is_some_and(|o| self.objects.contains(o))
        };
        let mut out: Vec<Finding> = head.into_iter().filter(|f| !create_verdict(f)).collect();
        out.extend(self.findings.iter().cloned());
        out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        out
    }
}

/// Each side's policies as the control plane holds them ([`Inventory::applied_policies`]), by
/// reference: an update replaces the base's last copy by the head's.
fn applied_by_reference(inventory: &Inventory) -> HashMap<PolicyRef, &Policy> {
    inventory
        .applied_policies()
        .into_iter()
        .map(|p| (p.reference(), p))
        .collect()
}

/// The UPDATE chain for policy `p` (its manifest `new_json`, stored as `old_json`), in the
/// request's namespace as the API server has it.
fn update_of(
    p: &Policy,
    new_json: &serde_json::Value,
    old_json: &serde_json::Value,
    version: crate::model::KarmadaVersion,
) -> Verdict {
    chain::admit_update(p.kind, new_json, old_json, request_namespace(p), version)
}

/// The namespace of the API server's request for `p`: a PP's own or the default one.
fn request_namespace(p: &Policy) -> Option<&str> {
    match p.kind {
        PolicyKind::PropagationPolicy => Some(p.meta.namespace.as_deref().unwrap_or("default")),
        PolicyKind::ClusterPropagationPolicy => None,
    }
}

/// A rule the admission chain reports (an admission or schema rule).
fn is_chain_rule(id: &str) -> bool {
    rule(id).is_some() || super::schema::DOCS.iter().any(|s| s.id == id)
}

/// Ratcheting is on by default from Kubernetes 1.30 (`CRDValidationRatcheting`, GA in 1.33):
/// the kube-apiserver Karmada installs is that recent from Karmada 1.12 on
/// (`operator/pkg/constants/constants.go` `KubeDefaultVersion`: v1.29.6 in v1.11.0, v1.31.3
/// in v1.12.0).
pub fn ratchets(version: crate::model::KarmadaVersion) -> bool {
    version >= crate::model::KarmadaVersion::new(1, 12)
}

/// Every policy and override policy of `head` with a counterpart in `base` whose manifest
/// changed (an unchanged one is not sent again), through the UPDATE chain. The files say
/// nothing of the release the base was applied under: a base copy that some release up to the
/// run's admits may be stored, one that none admits never was, and its head is a CREATE (as
/// `plan` judges it).
pub fn update_admission(base: &Inventory, head: &Inventory, opts: &LintOptions) -> UpdateAdmission {
    let mut out = UpdateAdmission {
        objects: Vec::new(),
        findings: Vec::new(),
        changed: Vec::new(),
        ratcheted: Vec::new(),
        admitted: Vec::new(),
        stored_before_upgrade: Vec::new(),
    };
    let version = opts.version();
    if !ratchets(version) {
        return out;
    }
    let base_policies = applied_by_reference(base);
    for p in head.applied_policies() {
        let Some(old) = base_policies.get(&p.reference()) else {
            continue;
        };
        let (new_json, old_json) = (
            head.documents[p.doc].root.to_json(),
            base.documents[old.doc].root.to_json(),
        );
        if new_json == old_json {
            continue;
        }
        let namespace = request_namespace(old);
        match chain::newest_admitting_release(old.kind, &old_json, namespace, version) {
            None => continue,
            Some(stored_by) if stored_by != version => {
                out.stored_before_upgrade
                    .push(super::policy_object_ref(old));
            }
            Some(_) => {}
        }
        let verdict = update_of(p, &new_json, &old_json, version);
        out.add(head, p.doc, super::policy_object_ref(p), &verdict, version);
    }
    let override_key = |op: &OverridePolicy| {
        (
            op.cluster_scoped,
            op.meta.namespace.clone(),
            op.meta.name.clone(),
        )
    };
    let base_overrides: HashMap<_, &OverridePolicy> =
        base.overrides().map(|op| (override_key(op), op)).collect();
    for op in head.applied_overrides() {
        let Some(old) = base_overrides.get(&override_key(op)) else {
            continue;
        };
        let (new_json, old_json) = (
            head.documents[op.doc].root.to_json(),
            base.documents[old.doc].root.to_json(),
        );
        if new_json == old_json
            || !override_chain::override_admitted_by_some_release(old, &old_json, version)
        {
            continue;
        }
        let verdict = override_chain::admit_override_update(op, &new_json, &old_json, version);
        out.add(head, op.doc, override_object_ref(op), &verdict, version);
    }
    out
}

impl UpdateAdmission {
    fn add(
        &mut self,
        head: &Inventory,
        doc: usize,
        object: ObjectRef,
        verdict: &Verdict,
        version: KarmadaVersion,
    ) {
        let schema_stage = verdict
            .refusals
            .iter()
            .map(|_| verdict.stage == Some(chain::Stage::Schema))
            .chain(
                verdict
                    .after_fix
                    .iter()
                    .map(|l| l.stage == chain::Stage::Schema),
            );
        for (f, schema_stage) in verdict_findings(head, doc, &object, verdict, version)
            .into_iter()
            .zip(schema_stage)
        {
            let is_schema = super::schema::DOCS.iter().any(|s| s.id == f.rule);
            if schema_stage && is_schema {
                self.changed.push(f);
            } else {
                self.findings.push(f);
            }
        }
        self.ratcheted.extend(
            verdict
                .ratcheted
                .iter()
                .map(|r| into_ratcheted(refusal_finding(head, doc, &object, r, version))),
        );
        if verdict.is_admitted() {
            self.admitted.push(object.clone());
        }
        self.objects.push(object);
    }
}

/// Marks the policies of `inventory` the API server admits as updates (`admitted`, from
/// [`UpdateAdmission`] or [`Ratcheted`]) as admitted: stored, they claim and match as any
/// admitted policy does, though a CREATE of the same manifest would be refused.
pub fn mark_admitted(inventory: &mut Inventory, admitted: &[ObjectRef]) {
    if admitted.is_empty() {
        return;
    }
    for object in &mut inventory.objects {
        match object {
            crate::model::Object::Policy(p) if admitted.contains(&super::policy_object_ref(p)) => {
                p.admission = crate::model::Admission::Admitted;
            }
            crate::model::Object::Override(op) if admitted.contains(&override_object_ref(op)) => {
                op.admission = crate::model::Admission::Admitted;
            }
            _ => {}
        }
    }
}

/// A schema error the update leaves as stored: a warning of an existing problem, not a refusal.
fn into_ratcheted(mut f: Finding) -> Finding {
    f.severity = Severity::Warning;
    f.message = format!("{} ({RATCHETED_NOTE})", f.message);
    f.api_server_message = None;
    f.ratcheted = true;
    f
}

/// `--base` over a GitOps repository, one environment: the head's admission findings of each
/// object the environment's control plane already stores (its counterpart in `base`, the same
/// environment at the base) replaced by what the API server answers an UPDATE, for the part
/// validation ratcheting changes. A controller re-applies every object it owns, changed or
/// not, so an object is sent again when its manifest changed or when the release did (a
/// Karmada upgrade whose CRD refuses a value the stored object holds): the schema errors of
/// values left as stored become warnings marked `ratcheted`, and the validating webhook's
/// refusals, which CREATE reports only after those are fixed, become the verdict. Findings
/// traced to the repository's files keep their places; only their standing changes.
pub fn ratchet_updates(
    findings: Vec<Finding>,
    head: &Inventory,
    base: &Inventory,
    version: crate::model::KarmadaVersion,
    same_release: bool,
) -> Ratcheted {
    let unchanged = |findings| Ratcheted {
        findings,
        admitted: Vec::new(),
    };
    if !ratchets(version) {
        return unchanged(findings);
    }
    let mut verdicts: HashMap<ObjectRef, Verdict> = HashMap::new();
    for f in findings
        .iter()
        .filter(|f| is_chain_rule(f.rule) && !f.after_fix)
    {
        let Some(object) = &f.object else { continue };
        if verdicts.contains_key(object) {
            continue;
        }
        if let Some(v) = stored_update(head, base, object, version, same_release) {
            verdicts.insert(object.clone(), v);
        }
    }
    if verdicts.is_empty() {
        return unchanged(findings);
    }
    let admitted = verdicts
        .iter()
        .filter(|(_, v)| v.is_admitted())
        .map(|(o, _)| o.clone())
        .collect();
    let findings = findings
        .into_iter()
        .filter_map(|f| {
            let verdict = f
                .object
                .as_ref()
                .filter(|_| is_chain_rule(f.rule))
                .and_then(|o| verdicts.get(o));
            match verdict {
                Some(v) => on_update(f, v),
                None => Some(f),
            }
        })
        .collect();
    Ratcheted { findings, admitted }
}

/// What [`ratchet_updates`] makes of an environment's admission findings.
pub struct Ratcheted {
    pub findings: Vec<Finding>,
    /// The objects a CREATE would refuse that the API server admits as updates: stored, they
    /// keep taking part in the control plane's decisions.
    pub admitted: Vec<ObjectRef>,
}

/// The UPDATE verdict of `object` against its stored counterpart, when validation ratcheting
/// lets some of its schema errors through (otherwise UPDATE answers as CREATE did).
fn stored_update(
    head: &Inventory,
    base: &Inventory,
    object: &ObjectRef,
    version: crate::model::KarmadaVersion,
    same_release: bool,
) -> Option<Verdict> {
    let manifests = |new: usize, old: usize| {
        let pair = (
            head.documents[new].root.to_json(),
            base.documents[old].root.to_json(),
        );
        // Neither the object nor the release changed: the answer is the base's.
        (!(same_release && pair.0 == pair.1)).then_some(pair)
    };
    let verdict = if let Some(p) = head
        .policies()
        .filter(|p| &super::policy_object_ref(p) == object)
        .last()
    {
        // A policy the base's admission refused was never stored: applying it is a CREATE.
        let old = base
            .admitted_policies()
            .filter(|o| o.reference() == p.reference())
            .last()?;
        let (new_json, old_json) = manifests(p.doc, old.doc)?;
        update_of(p, &new_json, &old_json, version)
    } else {
        let op = head
            .overrides()
            .filter(|op| &override_object_ref(op) == object)
            .last()?;
        let old = base
            .overrides()
            .filter(|o| override_object_ref(o) == override_object_ref(op))
            .last()?;
        let (new_json, old_json) = manifests(op.doc, old.doc)?;
        override_chain::admit_override_update(op, &new_json, &old_json, version)
    };
    (!verdict.ratcheted.is_empty()).then_some(verdict)
}

/// One admission finding of an object the API server stores, as its UPDATE verdict has it.
fn on_update(mut f: Finding, verdict: &Verdict) -> Option<Finding> {
    let is_schema = super::schema::DOCS.iter().any(|s| s.id == f.rule);
    let named = verdict
        .ratcheted
        .iter()
        .any(|r| r.rule == f.rule && f.field.as_deref() == Some(r.field.to_string().as_str()));
    match verdict.stage {
        // Every schema error let through; the validating webhook passes or refuses.
        None | Some(chain::Stage::ValidatingWebhook) if !f.after_fix && is_schema => {
            Some(into_ratcheted(f))
        }
        None => None,
        // The webhook judged the stored value where CREATE's after-fix judged a stand-in for
        // a refused one (the CRD default): only what it refuses on the update stands.
        Some(chain::Stage::ValidatingWebhook) if f.after_fix => {
            let refused = verdict.refusals.iter().any(|r| {
                r.rule == f.rule && f.field.as_deref() == Some(r.field.to_string().as_str())
            });
            if !refused {
                return None;
            }
            f.after_fix = false;
            f.api_server_message = verdict.api_server_message.clone();
            Some(f)
        }
        Some(chain::Stage::Schema) if !f.after_fix && named => Some(into_ratcheted(f)),
        _ => Some(f),
    }
}

/// Why a schema error of an update is a warning.
const RATCHETED_NOTE: &str = "unchanged since the base: the API server keeps accepting the stored \
     value on update (CRD validation ratcheting), but refuses any change to it that is still invalid";

fn override_object_ref(op: &OverridePolicy) -> ObjectRef {
    ObjectRef {
        api_version: POLICY_API_VERSION.to_string(),
        kind: if op.cluster_scoped {
            "ClusterOverridePolicy"
        } else {
            "OverridePolicy"
        }
        .to_string(),
        namespace: op.meta.namespace.clone(),
        name: op.meta.name.clone(),
    }
}

/// The update rules in `--base` mode: nothing without a base side.
fn update_check(h: &History<'_>) -> Vec<Finding> {
    h.base
        .map_or_else(Vec::new, |base| update_findings(base, h.inventory))
}

/// `validateUpdate` returns before `ValidatePropagationSpec` runs (admission-chain.md §6.1):
/// for a policy whose update is refused, the head's validating-webhook findings are not what
/// Karmada reports, so they are dropped. Schema findings stay: that stage runs first.
pub fn short_circuited_by_updates(head: Vec<Finding>, updates: &[Finding]) -> Vec<Finding> {
    if updates.is_empty() {
        return head;
    }
    head.into_iter()
        .filter(|f| {
            let webhook = rule(f.rule).is_some();
            !(webhook
                && updates
                    .iter()
                    .any(|u| u.object.is_some() && u.object == f.object))
        })
        .collect()
}

/// `validateUpdate` for every policy on both sides (Karmada rejects the update: the change
/// cannot be applied as it is), located on the head document.
pub fn update_findings(base: &Inventory, head: &Inventory) -> Vec<Finding> {
    let base_policies = applied_by_reference(base);
    let mut out = Vec::new();
    for p in head.applied_policies() {
        let Some(old) = base_policies.get(&p.reference()) else {
            continue;
        };
        for v in admission::validate_update(old, p) {
            let d = &head.documents[p.doc];
            let rule = rule(v.rule).map_or("admission", |r| r.id);
            let before = match v.rule {
                "scheduler-name-immutable" => old
                    .spec
                    .scheduler_name
                    .clone()
                    .unwrap_or_else(|| "default-scheduler".into()),
                _ => old
                    .meta
                    .labels
                    .get(p.kind.permanent_id_label())
                    .map(str::to_string)
                    .unwrap_or_else(|| "<none>".into()),
            };
            let mut f = Finding::new(
                rule,
                Severity::Error,
                format!("{} (was `{before}` at the base)", v.message),
            )
            .at(&d.source, d.root.locate(&v.field))
            .field(v.field.to_string())
            .object(super::policy_object_ref(p));
            f.doc = Some(p.doc);
            out.push(f);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_support::{inventory, pp};

    #[test]
    fn scheduler_name_change_is_an_update_error_at_head() {
        let base = inventory("b.yaml", &pp("a", "  schedulerName: default-scheduler\n"));
        let head = inventory("h.yaml", &pp("a", "  schedulerName: custom\n"));
        let f = update_findings(&base, &head);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "scheduler-name-immutable");
        assert_eq!(f[0].field.as_deref(), Some("spec.schedulerName"));
        assert_eq!(f[0].location.as_ref().unwrap().span.start.line, 8);
        assert!(update_findings(&base, &base).is_empty());
    }

    /// Two copies of one policy in one side (LavredisG/karmada's `artifacts/example`: one with
    /// `schedulerName: default`, one without) are the duplicate-identity rule's: an unchanged
    /// side updates nothing. What is compared is each side's last copy, as applied in order.
    #[test]
    fn copies_within_a_side_are_not_an_update() {
        let copies = format!("{}{}", pp("a", "  schedulerName: custom\n"), pp("a", ""));
        let base = inventory("b.yaml", &copies);
        let head = inventory("h.yaml", &copies);
        assert!(update_findings(&base, &head).is_empty());
        let opts = LintOptions::default();
        assert!(update_admission(&base, &head, &opts).objects.is_empty());
        // The last copy changed: that is the update.
        let changed = format!(
            "{}{}",
            pp("a", "  schedulerName: custom\n"),
            pp("a", "  schedulerName: other\n")
        );
        let head = inventory("h.yaml", &changed);
        let f = update_findings(&base, &head);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].location.as_ref().unwrap().span.start.line, 20);
    }

    /// Stored under 1.17 with `purgeMode: Graciously` (outside 1.19's enum), then changed under
    /// 1.19 to a spread constraint the validating webhook refuses (`ValidatePropagationSpec`:
    /// maxGroups lower than minGroups). CREATE stops at the schema; the UPDATE lets the stored
    /// value through (ratcheting) and the webhook's refusal becomes the verdict.
    #[test]
    fn an_update_ratchets_the_stored_value_and_the_webhook_decides() {
        use crate::model::KarmadaVersion;
        let (v117, v119) = (KarmadaVersion::new(1, 17), KarmadaVersion::new(1, 19));
        let failover = "  propagateDeps: true\n  failover:\n    application:\n      decisionConditions:\n        tolerationSeconds: 60\n      purgeMode: Graciously\n";
        let mut base = inventory("b.yaml", &pp("a", failover));
        Admissions::of(&base, v117).mark(&mut base);
        let spread = "  placement:\n    spreadConstraints:\n      - {spreadByField: cluster, minGroups: 3, maxGroups: 2}\n";
        let head = inventory("h.yaml", &pp("a", &format!("{failover}{spread}")));
        let created = policy_findings(&head, &Admissions::of(&head, v119), v119);
        let standing = |fs: &[Finding]| -> Vec<(&str, Severity, bool, bool)> {
            fs.iter()
                .map(|f| (f.rule, f.severity, f.after_fix, f.ratcheted))
                .collect()
        };
        let webhook = created
            .iter()
            .find(|f| f.after_fix)
            .expect("a later refusal")
            .rule;
        // After the enum is fixed (Gracefully) the request goes through the mutating webhook
        // again, which fills the grace period: only the spread constraint is refused then.
        assert_eq!(
            standing(&created),
            [
                ("schema-enum", Severity::Error, false, false),
                (webhook, Severity::Error, true, false)
            ]
        );
        let ratcheted = ratchet_updates(created.clone(), &head, &base, v119, false);
        // The webhook refuses the update: the policy stays out of the decisions.
        assert!(ratcheted.admitted.is_empty());
        let updated = ratcheted.findings;
        assert_eq!(
            standing(&updated),
            [
                ("schema-enum", Severity::Warning, false, true),
                (webhook, Severity::Error, false, false)
            ]
        );
        // Before 1.12 the API server does not ratchet; a base that never stored it, neither.
        let old = KarmadaVersion::new(1, 11);
        assert_eq!(
            standing(&ratchet_updates(created.clone(), &head, &base, old, false).findings),
            standing(&created)
        );
        let mut refused = inventory("b.yaml", &pp("a", spread));
        Admissions::of(&refused, v117).mark(&mut refused);
        assert_eq!(
            standing(&ratchet_updates(created.clone(), &head, &refused, v119, false).findings),
            standing(&created)
        );
    }
}
