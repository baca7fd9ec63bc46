//! Which GitOps controller manages an object, from the labels and annotations it stamps on what
//! it applies: a live edit of such an object is reverted at its next sync, so `suspend` warns.

use serde_json::Value;

/// The controller named by the object's `metadata.labels` or `metadata.annotations` keys:
/// Flux (`kustomize.toolkit.fluxcd.io/*`, `helm.toolkit.fluxcd.io/*`) or Argo CD
/// (`argocd.argoproj.io/*`).
pub fn gitops_owner(obj: &Value) -> Option<&'static str> {
    let keys = ["labels", "annotations"].into_iter().flat_map(|f| {
        obj["metadata"][f]
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys())
    });
    for k in keys {
        if k.starts_with("kustomize.toolkit.fluxcd.io/") || k.starts_with("helm.toolkit.fluxcd.io/")
        {
            return Some("Flux");
        }
        if k.starts_with("argocd.argoproj.io/") {
            return Some("Argo CD");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gitops_labels_are_recognised() {
        let o = json!({"metadata":{"labels":{"kustomize.toolkit.fluxcd.io/name":"apps"}}});
        assert_eq!(gitops_owner(&o), Some("Flux"));
        let o = json!({"metadata":{"annotations":{"argocd.argoproj.io/tracking-id":"x"}}});
        assert_eq!(gitops_owner(&o), Some("Argo CD"));
        assert_eq!(gitops_owner(&json!({"metadata":{}})), None);
    }
}
