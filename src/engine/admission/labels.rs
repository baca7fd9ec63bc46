//! Label keys and values as Kubernetes validates them, with apimachinery's exact messages.
//!
//! - `IsLabelKey` (a.k.a. `IsQualifiedName`) and `IsLabelValue`:
//!   `vendor/k8s.io/apimachinery/pkg/api/validate/content/kube.go:43-72`;
//! - `IsDNS1123Subdomain` (used for a key's prefix): `content/dns.go`;
//! - `MaxLenError` ("must be no more than N bytes"), `EmptyError` ("must be non-empty") and
//!   `RegexError` (the "(e.g. 'a',  or 'b', regex used for validation is '…')" form, with its
//!   doubled space) from `content/errors.go`.
//!
//! Those are the texts of apimachinery v0.35 and later. The older `util/validation` words two
//! of them differently ([`Wording`]), and Karmada releases vendor either.
//!
//! `metav1validation.ValidateLabelName` reports each `IsLabelKey` message as its own error, so
//! the functions here return every message, in apimachinery's order.

use crate::model::KarmadaVersion;

/// Which apimachinery words a message.
///
/// Up to v0.34, `k8s.io/apimachinery/pkg/util/validation` has its own `IsQualifiedName`,
/// `IsValidLabelValue` and `IsDNS1123Subdomain`, whose `MaxLenError` counts "characters" and
/// whose key with two `/` is "a qualified name …" (`validation.go:41-70,455-457 @v1.16.0`).
/// From v0.35, `IsQualifiedName` and `IsValidLabelValue` are `api/validate/content`'s
/// `IsLabelKey` and `IsLabelValue`, which count "bytes" and say "a valid label key …"
/// (`util/validation/validation.go:36,153`, `content/errors.go:34-36`, `content/kube.go:43-72
/// @v1.17.0`). `util/validation`'s own `IsDNS1123Subdomain`/`IsDNS1123Label`, which the API
/// server uses for `metadata.name` and `metadata.namespace`, keep "characters" in every
/// version (`util/validation/validation.go:167-209,425-427 @v1.19.0-rc.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wording {
    /// `k8s.io/apimachinery/pkg/util/validation` (≤ v0.34, and its DNS checks in every version).
    UtilValidation,
    /// `k8s.io/apimachinery/pkg/api/validate/content` (v0.35 and later).
    Content,
}

impl Wording {
    /// The wording of the label checks in Karmada's webhook at `version`: the vendored
    /// apimachinery is v0.29.4-v0.34.1 in 1.10-1.16, v0.35.0 from 1.17 (go.mod at the tags,
    /// the same in every patch release of a minor).
    pub(crate) fn of_karmada(version: KarmadaVersion) -> Wording {
        if version.at_least(1, 17) {
            Wording::Content
        } else {
            Wording::UtilValidation
        }
    }

    /// `MaxLenError`.
    pub(crate) fn max_len_error(self, length: usize) -> String {
        match self {
            Wording::UtilValidation => format!("must be no more than {length} characters"),
            Wording::Content => format!("must be no more than {length} bytes"),
        }
    }

    /// How the message for a key with more than one `/` names a key.
    fn a_key(self) -> &'static str {
        match self {
            Wording::UtilValidation => "a qualified name",
            Wording::Content => "a valid label key",
        }
    }
}

const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_ERR_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_MAX_LENGTH: usize = 63;

const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX_LENGTH: usize = 63;

const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;

pub(crate) fn empty_error() -> &'static str {
    "must be non-empty"
}

/// `RegexError(msg, fmt, examples...)`: note the `', ` after every example, which yields the
/// doubled space ("'MyName',  or 'my.name'") Kubernetes users know.
pub(crate) fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut out = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push('\'');
        out.push_str(e);
        out.push_str("', ");
    }
    out.push_str(&format!("regex used for validation is '{fmt}')"));
    out
}

fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$` (`isValidLabelKeyName`).
fn is_valid_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    match b.len() {
        0 => false,
        1 => is_alnum(b[0]),
        n => {
            is_alnum(b[0])
                && is_alnum(b[n - 1])
                && b[1..n - 1]
                    .iter()
                    .all(|&c| is_alnum(c) || c == b'-' || c == b'_' || c == b'.')
        }
    }
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`.
fn matches_dns1123_subdomain(s: &str) -> bool {
    let lower_alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !s.is_empty()
        && s.split('.').all(|part| {
            let b = part.as_bytes();
            !b.is_empty()
                && lower_alnum(b[0])
                && lower_alnum(b[b.len() - 1])
                && b.iter().all(|&c| lower_alnum(c) || c == b'-')
        })
}

/// `IsDNS1123Subdomain`, worded by `wording`.
pub(crate) fn dns1123_subdomain_errors(value: &str, wording: Wording) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(wording.max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !matches_dns1123_subdomain(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsLabelKey` (apimachinery v0.35 and later): see [`label_key_errors`].
pub(crate) fn is_label_key(value: &str) -> Vec<String> {
    label_key_errors(value, Wording::Content)
}

/// `IsLabelValue` (apimachinery v0.35 and later): see [`label_value_errors`].
pub(crate) fn is_label_value(value: &str) -> Vec<String> {
    label_value_errors(value, Wording::Content)
}

/// `IsLabelKey` / `IsQualifiedName`: an optional DNS-subdomain prefix, a `/`, and a name,
/// worded by `wording` (the prefix with the same apimachinery's `IsDNS1123Subdomain`).
pub(crate) fn label_key_errors(value: &str, wording: Wording) -> Vec<String> {
    let mut errs = Vec::new();
    let name =
        match value.split_once('/') {
            None => value,
            Some((_, suffix)) if suffix.contains('/') => {
                errs.push(format!(
                "{} {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                wording.a_key(),
                regex_error(LABEL_KEY_ERR_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
                return errs;
            }
            Some((prefix, suffix)) => {
                if prefix.is_empty() {
                    errs.push(format!("prefix part {}", empty_error()));
                } else {
                    errs.extend(
                        dns1123_subdomain_errors(prefix, wording)
                            .into_iter()
                            .map(|m| format!("prefix part {m}")),
                    );
                }
                suffix
            }
        };
    if name.is_empty() {
        errs.push(format!("name part {}", empty_error()));
    } else if name.len() > LABEL_KEY_MAX_LENGTH {
        errs.push(format!(
            "name part {}",
            wording.max_len_error(LABEL_KEY_MAX_LENGTH)
        ));
    }
    if !is_valid_label_key_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_ERR_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `IsLabelValue` (`IsValidLabelValue`): empty, or a label-key-shaped name of at most 63 bytes,
/// worded by `wording`.
pub(crate) fn label_value_errors(value: &str, wording: Wording) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(wording.max_len_error(LABEL_VALUE_MAX_LENGTH));
    }
    if !value.is_empty() && !is_valid_label_key_name(value) {
        errs.push(regex_error(
            LABEL_VALUE_ERR_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME_PART: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

    #[test]
    fn valid_keys() {
        for k in ["a", "app.group", "example.com/state-key", "A_b-9", "x/y"] {
            assert!(is_label_key(k).is_empty(), "{k}: {:?}", is_label_key(k));
        }
    }

    /// Karmada's own expectations (validation_test.go, TestValidateApplicationFailover).
    #[test]
    fn karmada_test_messages() {
        assert_eq!(is_label_key("-invalid-label"), vec![NAME_PART.to_string()]);
        assert_eq!(is_label_key("invalid@label"), vec![NAME_PART.to_string()]);
        assert_eq!(
            is_label_key(&"a".repeat(64)),
            vec!["name part must be no more than 63 bytes".to_string()]
        );
        assert_eq!(
            is_label_key("INVALID.COM/my-state"),
            vec!["prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_string()]
        );
    }

    #[test]
    fn empty_name_reports_both_messages() {
        assert_eq!(
            is_label_key(""),
            vec![
                "name part must be non-empty".to_string(),
                NAME_PART.to_string()
            ]
        );
        assert_eq!(
            is_label_key("/x"),
            vec!["prefix part must be non-empty".to_string()]
        );
    }

    #[test]
    fn too_many_slashes() {
        let errs = is_label_key("a/b/c");
        assert_eq!(errs.len(), 1);
        assert!(errs[0].starts_with("a valid label key must consist of"));
        assert!(errs[0].ends_with(
            "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ));
    }

    /// apimachinery up to v0.34 (Karmada 1.10-1.16) counts characters and calls a key with two
    /// `/` "a qualified name" (util/validation/validation.go:41-70,455-457 @v1.16.0).
    #[test]
    fn util_validation_wording() {
        let old = Wording::UtilValidation;
        assert_eq!(
            label_key_errors(&"a".repeat(64), old),
            vec!["name part must be no more than 63 characters".to_string()]
        );
        assert_eq!(
            label_value_errors(&"a".repeat(64), old),
            vec!["must be no more than 63 characters".to_string()]
        );
        let errs = label_key_errors("a/b/c", old);
        assert_eq!(errs.len(), 1);
        assert!(
            errs[0].starts_with("a qualified name must consist of"),
            "{errs:?}"
        );
        assert_eq!(
            label_key_errors(&format!("{}/x", "a".repeat(254)), old),
            vec!["prefix part must be no more than 253 characters".to_string()]
        );
        assert_eq!(
            label_key_errors(&format!("{}/x", "a".repeat(254)), Wording::Content),
            vec!["prefix part must be no more than 253 bytes".to_string()]
        );
        // The messages that are the same in both.
        assert_eq!(
            label_key_errors("-invalid-label", old),
            label_key_errors("-invalid-label", Wording::Content)
        );
        assert_eq!(
            Wording::of_karmada(KarmadaVersion::new(1, 16)),
            Wording::UtilValidation
        );
        assert_eq!(
            Wording::of_karmada(KarmadaVersion::new(1, 17)),
            Wording::Content
        );
    }

    #[test]
    fn label_values() {
        assert!(is_label_value("").is_empty());
        assert!(is_label_value("my_value").is_empty());
        assert_eq!(is_label_value("-x").len(), 1);
        assert_eq!(
            is_label_value(&"a".repeat(64)),
            vec!["must be no more than 63 bytes".to_string()]
        );
    }
}
