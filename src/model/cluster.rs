//! Member clusters (`cluster.karmada.io/v1alpha1` Cluster objects) as the suspension engine
//! reads them: the Ready condition and the taints.

use serde_json::Value as J;

/// What a member cluster looks like to the control plane (from `cluster.karmada.io` Clusters).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterHealth {
    pub name: String,
    /// The `Ready` condition: `Some(false)` when NotReady or Unknown.
    pub ready: Option<bool>,
    /// Taints as `key:effect`.
    pub taints: Vec<(String, String)>,
}

/// The Ready condition and taints of a Cluster object.
pub fn cluster_health(c: &J) -> ClusterHealth {
    let ready = c["status"]["conditions"].as_array().and_then(|conds| {
        conds
            .iter()
            .find(|x| x["type"] == "Ready")
            .map(|x| x["status"] == "True")
    });
    let taints = c["spec"]["taints"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .map(|t| {
                    (
                        t["key"].as_str().unwrap_or("").to_string(),
                        t["effect"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    ClusterHealth {
        name: c["metadata"]["name"].as_str().unwrap_or("").to_string(),
        ready,
        taints,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_health_reads_ready_and_taints() {
        let c = serde_json::json!({"metadata":{"name":"m1"},
            "spec":{"taints":[{"key":"k","effect":"NoExecute"}]},
            "status":{"conditions":[{"type":"Ready","status":"False"}]}});
        let h = cluster_health(&c);
        assert_eq!(h.ready, Some(false));
        assert_eq!(h.taints, vec![("k".to_string(), "NoExecute".to_string())]);
    }
}
