//! `ValidateFailover` (validation.go:315-391; validation-suspension-failover.md §1.5):
//! application failover, then cluster failover. F0 (application failover needs propagateDeps)
//! runs before this, in `validate_spec`.

use super::defaults::{graceful_word, is_graceful_purge};
use super::labels::{label_key_errors, Wording};
use super::render::go_quote;
use super::Violation;
use crate::model::policy::{FailoverBehavior, StatePreservation};
use crate::model::KarmadaVersion;
use crate::source::FieldPath;

pub(super) fn validate_failover(
    failover: Option<&FailoverBehavior>,
    version: KarmadaVersion,
    out: &mut Vec<Violation>,
) {
    let Some(f) = failover else {
        return;
    };
    if let Some(app) = &f.application {
        let path = FieldPath::parse("spec.failover.application");
        // :336-338. The Go code dereferences tolerationSeconds without a nil check; the CRD
        // default (300) makes it always set, so an unset value is treated as 300 here.
        let toleration = app
            .decision_conditions
            .as_ref()
            .and_then(|d| d.toleration_seconds)
            .unwrap_or(300);
        if toleration < 0 {
            out.push(Violation::new(
                "toleration-seconds-negative",
                path.clone()
                    .key("decisionConditions")
                    .key("tolerationSeconds"),
                Some(toleration.to_string()),
                "must be greater than or equal to 0",
            ));
        }
        // :340-352. The graceful modes and the messages' wording follow the release (see
        // `is_graceful_purge`): "gracefully" from 1.15, "graciously" before.
        let word = graceful_word(version);
        let is_graceful = is_graceful_purge(app.purge_mode.as_deref().unwrap_or(""), version);
        let grace_path = path.clone().key("gracePeriodSeconds");
        if let (false, Some(g)) = (is_graceful, app.grace_period_seconds) {
            out.push(Violation::new(
                "grace-period-without-gracefully",
                grace_path.clone(),
                Some(g.to_string()),
                format!("only takes effect when purgeMode is {word}"),
            ));
        }
        // Unreachable after the mutating webhook (M5 fills 600); kept for raw specs.
        if is_graceful && app.grace_period_seconds.is_none() {
            out.push(Violation::new(
                "grace-period-required",
                grace_path.clone(),
                Some("null".into()),
                format!("should not be empty when purgeMode is {word}"),
            ));
        }
        if let Some(g) = app.grace_period_seconds.filter(|g| *g <= 0) {
            out.push(Violation::new(
                "grace-period-not-positive",
                grace_path,
                Some(g.to_string()),
                "must be greater than 0",
            ));
        }
        // :354-356.
        validate_state_preservation(app.state_preservation.as_ref(), path, version, out);
    }
    if let Some(c) = &f.cluster {
        // :361-373. The purge mode is only checked by the CRD enum.
        validate_state_preservation(
            c.state_preservation.as_ref(),
            FieldPath::parse("spec.failover.cluster"),
            version,
            out,
        );
    }
}

/// `metav1validation.ValidateLabelName` on every alias (:389-391; from 1.15, see
/// `checked_from`); `jsonPath` is not checked.
fn validate_state_preservation(
    sp: Option<&StatePreservation>,
    parent: FieldPath,
    version: KarmadaVersion,
    out: &mut Vec<Violation>,
) {
    let Some(sp) = sp else {
        return;
    };
    for (i, rule) in sp.rules.iter().enumerate() {
        let path = parent
            .clone()
            .key("statePreservation")
            .key("rules")
            .index(i)
            .key("aliasLabelName");
        for msg in label_key_errors(&rule.alias_label_name, Wording::of_karmada(version)) {
            out.push(Violation::new(
                "state-preservation-alias-invalid",
                path.clone(),
                Some(go_quote(&rule.alias_label_name)),
                msg,
            ));
        }
    }
}
