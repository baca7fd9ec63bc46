//! Whether an override failure found on a template as written may not happen on the template
//! Karmada stores: karmada-apiserver stores a built-in kind with its defaults (the defaulting
//! functions of `k8s.io/kubernetes/pkg/apis/*/v1/defaults.go` run on every create and update),
//! so a patch of a field the file omits but the defaulting fills succeeds there. Both `lint`
//! (`override-fails`, which then says nothing) and `explain -f` (which says the failure is
//! uncertain) ask this one question.

use serde_json::Value;

/// Fields the API server writes into a built-in object that omits them (its defaulting:
/// `replicas: 1`, `imagePullPolicy`, `restartPolicy`, a Service's `type`...): a patch of one of
/// them succeeds on the stored template although the manifest lacks it.
const DEFAULTED: &[&str] = &[
    "replicas",
    "revisionHistoryLimit",
    "progressDeadlineSeconds",
    "podManagementPolicy",
    "restartPolicy",
    "dnsPolicy",
    "schedulerName",
    "terminationGracePeriodSeconds",
    "securityContext",
    "enableServiceLinks",
    "imagePullPolicy",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "resources",
    "protocol",
    "backoffLimit",
    "completions",
    "parallelism",
    "completionMode",
    "suspend",
    "concurrencyPolicy",
    "successfulJobsHistoryLimit",
    "failedJobsHistoryLimit",
    "type",
    "sessionAffinity",
    "ipFamilies",
    "ipFamilyPolicy",
    "internalTrafficPolicy",
    "clusterIP",
    "clusterIPs",
    "targetPort",
];

/// Defaulted with everything below them (a Deployment's `strategy` is a `RollingUpdate` of
/// 25% / 25%, a StatefulSet's or DaemonSet's `updateStrategy` a `RollingUpdate`).
const DEFAULTED_TREES: &[&str] = &["strategy", "updateStrategy", "rollingUpdate"];

/// The field the API server's defaulting may fill where the failing patch (its `message`, as
/// [`super::patch`] words it) found the file's `manifest` lacking: the JSON pointer of the
/// first missing part (a scalar it sets where the path ends, a tree it sets whole, a request
/// the container's limit gives). `None` when the failure is certain: a custom resource (no
/// defaults known here), a failure that is not a missing path, or a part nothing defaults.
pub fn defaulted_field(api_version: &str, manifest: &Value, message: &str) -> Option<String> {
    let group = crate::model::group_of(api_version);
    let built_in = !group.contains('.') || group.ends_with(".k8s.io");
    if !built_in {
        return None;
    }
    let path = missing_path(message)?;
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let unescape = |s: &str| s.replace("~1", "/").replace("~0", "~");
    // Walk to the first part the manifest lacks, keeping the way (a request's limit is its
    // container's, two levels up).
    let mut trail: Vec<&Value> = vec![manifest];
    for (i, raw) in segments.iter().enumerate() {
        let segment = unescape(raw);
        let at = trail[trail.len() - 1];
        let next = match at {
            Value::Object(map) => map.get(&segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|n| items.get(n)),
            _ => None,
        };
        let Some(next) = next else {
            let missing = segment.as_str();
            let rest = &segments[i + 1..];
            let resources = match (i.checked_sub(1).map(|p| segments[p]), rest) {
                // `.../resources/requests` missing, `rest` the resource name.
                (Some("resources"), [name]) if missing == "requests" => Some((at, unescape(name))),
                // `.../resources/requests/NAME` missing.
                (Some("requests"), []) => trail
                    .get(trail.len().wrapping_sub(2))
                    .map(|r| (*r, missing.to_string())),
                _ => None,
            };
            let from_limit = resources.is_some_and(|(r, name)| r["limits"].get(&name).is_some());
            let defaulted = DEFAULTED_TREES.contains(&missing)
                || (DEFAULTED.contains(&missing) && rest.is_empty())
                || from_limit;
            return defaulted.then(|| format!("/{}", segments[..=i].join("/")));
        };
        trail.push(next);
    }
    None
}

/// The path of a JSON patch that found it missing (`... doc is missing path: /a/b: missing
/// value`, quoted for add and remove; `doc is missing key` for a replace whose parent is there).
fn missing_path(message: &str) -> Option<&str> {
    let rest = message
        .split_once("doc is missing path: ")
        .or_else(|| message.split_once("doc is missing key: "))?
        .1;
    let path = rest.strip_suffix(": missing value").unwrap_or(rest);
    Some(path.trim_matches('"'))
}

#[cfg(test)]
mod tests {
    use super::defaulted_field;
    use serde_json::json;

    fn deployment(container: serde_json::Value) -> serde_json::Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "spec": {"template": {"spec": {"containers": [container]}}}})
    }

    #[test]
    fn a_scalar_the_defaulting_sets_is_named_by_its_pointer() {
        let d = deployment(json!({"name": "web", "image": "nginx"}));
        let replace =
            "replace operation does not apply: doc is missing key: /spec/replicas: missing value";
        assert_eq!(
            defaulted_field("apps/v1", &d, replace).as_deref(),
            Some("/spec/replicas")
        );
        // The same field deeper than where the defaulting stops is not rescued.
        let deeper = "add operation does not apply: doc is missing path: \"/spec/replicas/x\": missing value";
        assert_eq!(defaulted_field("apps/v1", &d, deeper), None);
        // A whole tree: a Deployment's strategy.
        let strategy = "replace operation does not apply: doc is missing path: /spec/strategy/rollingUpdate/maxSurge: missing value";
        assert_eq!(
            defaulted_field("apps/v1", &d, strategy).as_deref(),
            Some("/spec/strategy")
        );
    }

    #[test]
    fn a_request_is_defaulted_from_its_limit_only() {
        let memory = "replace operation does not apply: doc is missing path: /spec/template/spec/containers/0/resources/requests/memory: missing value";
        let bare = deployment(json!({"name": "web", "image": "nginx"}));
        // `resources` itself is missing, and the defaulting sets no request without a limit:
        // only `resources` as the path's end would be rescued.
        assert_eq!(defaulted_field("apps/v1", &bare, memory), None);
        let limited = deployment(
            json!({"name": "web", "image": "nginx", "resources": {"limits": {"memory": "1Gi"}}}),
        );
        assert_eq!(
            defaulted_field("apps/v1", &limited, memory).as_deref(),
            Some("/spec/template/spec/containers/0/resources/requests")
        );
        let cpu_only = deployment(
            json!({"name": "web", "image": "nginx", "resources": {"limits": {"cpu": "1"}}}),
        );
        assert_eq!(defaulted_field("apps/v1", &cpu_only, memory), None);
    }

    #[test]
    fn a_custom_resource_or_another_failure_is_certain() {
        let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {}});
        let replace =
            "replace operation does not apply: doc is missing key: /spec/replicas: missing value";
        assert_eq!(defaulted_field("example.com/v1", &w, replace), None);
        let d = deployment(json!({"name": "web", "image": "nginx"}));
        assert_eq!(
            defaulted_field("apps/v1", &d, "image overrider: invalid reference format"),
            None
        );
    }
}
