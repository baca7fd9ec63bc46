//! `-o json`: the documented, stable contract
//! `{"findings":[{"rule","severity","message","file","line","column","endLine","endColumn","field",
//! "object":{"apiVersion","kind","namespace","name"},"related":[{"file","line","column","message"}],
//! "apiServerMessage"?, "afterFix"?, "ratcheted"?,
//! "partners"?:[{"policy":{...},"reason","templates":[{...}]}]}],
//! "summary":{"files","documents","policies","errors","warnings","infos"},
//! "environments"?:[{"name","target","karmadaApiServer","karmadaVersion","karmadaInstallation",
//! "schedulers","unrendered"}]}`
//! (`environments`: over a GitOps repository only).
//! Field names are never renamed once released; new fields may be added.

use serde::Serialize;

use crate::engine::ownership::OwnershipChange;
use crate::lint::Finding;
use crate::model::ObjectRef;

use super::Summary;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonFinding<'a> {
    rule: &'a str,
    severity: &'a str,
    message: &'a str,
    file: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    end_line: Option<u32>,
    end_column: Option<u32>,
    field: Option<&'a str>,
    object: Option<&'a ObjectRef>,
    related: Vec<JsonRelated<'a>>,
    /// Admission and schema findings only: the API server's whole message for the object.
    #[serde(skip_serializing_if = "Option::is_none")]
    api_server_message: Option<&'a str>,
    /// `true` for a refusal the API server reports only once the object's first refusal is
    /// fixed (a later stage of the admission chain); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    after_fix: bool,
    /// `lint --base`: `true` for a schema error the update leaves as stored, which the API
    /// server lets through (validation ratcheting); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    ratcheted: bool,
    /// Grouped findings only (`overlap`): every policy of the group and every template.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    partners: Vec<JsonPartner<'a>>,
}

/// A partner of a grouped finding: `{"policy":{object},"reason","templates":[{object}]}`.
#[derive(Serialize)]
struct JsonPartner<'a> {
    policy: &'a ObjectRef,
    reason: &'a str,
    templates: &'a [ObjectRef],
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    file: &'a str,
    /// `null` for a live object (its `file` is the object reference).
    line: Option<u32>,
    column: Option<u32>,
    message: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    findings: Vec<JsonFinding<'a>>,
    summary: &'a Summary,
    /// Only in `lint --base` mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    ownership_changes: Option<Vec<serde_json::Value>>,
    /// Only over a GitOps repository.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    environments: Vec<JsonEnvironment<'a>>,
}

/// `{"name","target","karmadaApiServer","karmadaVersion","karmadaInstallation","schedulers",
/// "unrendered"}`:
/// an environment, the API server it targets, whether that is a Karmada API server (only those
/// are linted), the release it was linted for, the repository's Karmada installation read
/// for it (`null` when none): `{"object","file","line","release":{"version","file","line"}?,
/// "featureGates":[{"name","enabled","file","line"}],
/// "controllerManagerFlags":[{"name","value","file","line"}]}` (`value` a bool: for
/// `controllers`, whether the namespace controller runs; for
/// `skipped-propagating-namespaces` its patterns), and the scheduler names its
/// karmada-schedulers serve besides `default-scheduler` (a karmada-scheduler Deployment's
/// `--scheduler-name`, the operator's extraArgs): `[{"name","object","file","line"}]` (the
/// configuration's `schedulers:` are not repeated), and where its roots that did not render are
/// reported (`["FILE:LINE:COL"]`, their findings say why): their objects are not linted.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonEnvironment<'a> {
    name: &'a str,
    target: &'a str,
    karmada_api_server: bool,
    karmada_version: Option<&'a str>,
    karmada_installation: Option<serde_json::Value>,
    schedulers: Vec<serde_json::Value>,
    unrendered: Vec<&'a str>,
}

fn installation_json(i: &crate::model::installation::Installation) -> serde_json::Value {
    serde_json::json!({
        "object": i.object,
        "file": i.at.file,
        "line": i.at.line,
        "release": i.release.as_ref().map(|r| serde_json::json!({
            "version": r.value.to_string(),
            "file": r.at.file,
            "line": r.at.line,
        })),
        "featureGates": i.gates.iter().map(|(name, g)| serde_json::json!({
            "name": name,
            "enabled": g.value,
            "file": g.at.file,
            "line": g.at.line,
        })).collect::<Vec<_>>(),
        "controllerManagerFlags": i.flags.iter().map(|(name, f)| serde_json::json!({
            "name": name,
            "value": f.value,
            "file": f.at.file,
            "line": f.at.line,
        })).chain(i.skipped_namespaces.iter().map(|s| serde_json::json!({
            "name": crate::model::controller_flags::SKIPPED_NAMESPACES,
            "value": s.value,
            "file": s.at.file,
            "line": s.at.line,
        }))).collect::<Vec<_>>(),
    })
}

pub fn render(findings: &[Finding], summary: &Summary) -> String {
    report(findings, summary, None, &[])
}

/// A lint run's report: with `"ownershipChanges"` in `--base` mode (see
/// [`render_with_ownership`]) and `"environments"` over a GitOps repository.
pub fn render_report(
    findings: &[Finding],
    summary: &Summary,
    ownership: Option<&[OwnershipChange]>,
    environments: &[crate::lint::gitops::EnvironmentInfo],
) -> String {
    report(
        findings,
        summary,
        ownership.map(ownership_json),
        environments,
    )
}

/// `lint --base`: the same report plus
/// `"ownershipChanges":[{"resource","before","after","blockedBy":[{"policy","reason","message"}],
/// "environments"?, "replicas"?}]` (`environments`: over a GitOps repository, where the change
/// happens; `replicas`: `{"clusters": [{"cluster","before","after"}]}` when the replicas a
/// member cluster receives change),
/// where `resource` is an object reference and `before`/`after`/`policy` are the OWNER shape of
/// `explain` (`{"kind","namespace"?,"name"}`, `null` for unclaimed).
pub fn render_with_ownership(
    findings: &[Finding],
    summary: &Summary,
    ownership: &[OwnershipChange],
) -> String {
    report(findings, summary, Some(ownership_json(ownership)), &[])
}

fn ownership_json(ownership: &[OwnershipChange]) -> Vec<serde_json::Value> {
    ownership
        .iter()
        .map(|c| {
            let mut v = serde_json::json!({
                "resource": c.resource,
                "before": c.before,
                "after": c.after,
                "preempted": c.preempted,
                "blockedBy": c.blocked_by.iter().map(|b| serde_json::json!({
                    "policy": b.policy,
                    "reason": b.reason.code(),
                    "message": super::explain::block_message(&b.reason),
                })).collect::<Vec<_>>(),
            });
            // Over a GitOps repository only: the environments the change happens in.
            if !c.environments.is_empty() {
                v["environments"] = serde_json::json!(c.environments);
            }
            // With Cluster objects in the inputs, when the replicas some cluster receives change.
            if let Some(r) = &c.replicas {
                v["replicas"] = super::replicas::shift_json(r);
            }
            v
        })
        .collect()
}

fn report(
    findings: &[Finding],
    summary: &Summary,
    ownership_changes: Option<Vec<serde_json::Value>>,
    environments: &[crate::lint::gitops::EnvironmentInfo],
) -> String {
    let report = Report {
        findings: findings.iter().map(to_json).collect(),
        summary,
        ownership_changes,
        environments: environments
            .iter()
            .map(|e| JsonEnvironment {
                name: &e.name,
                target: &e.target,
                karmada_api_server: e.karmada,
                karmada_version: e.version.as_deref(),
                karmada_installation: e.installation.as_ref().map(installation_json),
                schedulers: e
                    .schedulers
                    .iter()
                    .map(|s| {
                        serde_json::json!({
                            "name": s.name,
                            "object": s.object,
                            "file": s.at.file,
                            "line": s.at.line,
                        })
                    })
                    .collect(),
                unrendered: e.unrendered.iter().map(|r| r.at.as_str()).collect(),
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&report).expect("findings serialize");
    s.push('\n');
    s
}

fn to_json(f: &Finding) -> JsonFinding<'_> {
    let loc = f.location.as_ref();
    // A live object has no position: `file` is its reference, line and column are null.
    let pos = loc.filter(|l| !l.is_object());
    JsonFinding {
        rule: f.rule,
        severity: f.severity.as_str(),
        message: &f.message,
        file: loc.map(|l| l.source.name.as_str()),
        line: pos.map(|l| l.span.start.line),
        column: pos.map(|l| l.span.start.col),
        end_line: pos.map(|l| l.span.end.line.max(l.span.start.line)),
        end_column: pos.map(|l| {
            if l.span.end.line > l.span.start.line || l.span.end.col > l.span.start.col {
                l.span.end.col
            } else {
                l.span.start.col
            }
        }),
        field: f.field.as_deref(),
        object: f.object.as_ref(),
        related: f
            .related
            .iter()
            .map(|r| JsonRelated {
                file: &r.location.source.name,
                line: (!r.location.is_object()).then_some(r.location.span.start.line),
                column: (!r.location.is_object()).then_some(r.location.span.start.col),
                message: &r.message,
            })
            .collect(),
        api_server_message: f.api_server_message.as_deref(),
        after_fix: f.after_fix,
        ratcheted: f.ratcheted,
        partners: f
            .partners
            .iter()
            .map(|p| JsonPartner {
                policy: &p.policy,
                reason: &p.reason,
                templates: &p.templates,
            })
            .collect(),
    }
}
