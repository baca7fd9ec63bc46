//! Live names for shell completion (policy names, namespaces, clusters, contexts), read
//! through the kubeconfig with a short deadline: the user is waiting at TAB, so a read that
//! fails or takes too long completes nothing rather than printing an error into the prompt.

use std::time::Duration;

use crate::kube::kinds::{self, KarmadaKind};
use crate::kube::{self, ConnectOptions};

/// How long a live lookup may take before completion gives up.
pub const LIVE_TIMEOUT: Duration = Duration::from_secs(2);

/// Where live candidates come from (the control plane, or nothing in tests of the parser).
pub trait LiveNames {
    /// Policies of `kind` (a PropagationPolicy or ClusterPropagationPolicy) by name.
    fn policies(&self, kind: &KarmadaKind, namespace: Option<&str>) -> Vec<String>;
    /// Objects of the type `ty` names (`deploy`, `deployment.apps`, as kubectl resolves it
    /// through discovery) by name, in `namespace` (else the context's) when namespaced.
    fn templates(&self, ty: &str, namespace: Option<&str>) -> Vec<String>;
    fn namespaces(&self) -> Vec<String>;
    fn clusters(&self) -> Vec<String>;
    fn contexts(&self) -> Vec<String>;
}

/// Live names through the kubeconfig; any failure completes nothing.
pub struct Kube {
    pub opts: ConnectOptions,
}

impl Kube {
    fn with_conn<T: Default>(&self, f: impl AsyncFnOnce(&kube::Conn) -> Option<T>) -> T {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return T::default();
        };
        rt.block_on(async {
            let go = async {
                let conn = kube::connect(&self.opts).await.ok()?;
                f(&conn).await
            };
            tokio::time::timeout(LIVE_TIMEOUT, go)
                .await
                .ok()
                .flatten()
                .unwrap_or_default()
        })
    }
}

impl LiveNames for Kube {
    fn policies(&self, kind: &KarmadaKind, namespace: Option<&str>) -> Vec<String> {
        self.with_conn(async |conn: &kube::Conn| {
            let ns = kind
                .namespaced
                .then(|| namespace.unwrap_or(&conn.namespace).to_string());
            let list = conn.list(kind, ns.as_deref(), None).await.ok()?;
            Some(list.iter().filter_map(object_name).collect())
        })
    }

    fn templates(&self, ty: &str, namespace: Option<&str>) -> Vec<String> {
        self.with_conn(async |conn: &kube::Conn| {
            let found = kube::discovery::discover(conn, &Default::default()).await;
            let t = found.resolve(ty).ok()?;
            let ns = t
                .namespaced
                .then(|| namespace.unwrap_or(&conn.namespace).to_string());
            let list = conn.list(&t, ns.as_deref(), None).await.ok()?;
            Some(list.iter().filter_map(object_name).collect())
        })
    }

    fn namespaces(&self) -> Vec<String> {
        self.with_conn(async |conn: &kube::Conn| conn.list_namespaces().await.ok())
    }

    fn clusters(&self) -> Vec<String> {
        self.with_conn(async |conn: &kube::Conn| {
            let list = conn.list(&kinds::CLUSTER, None, None).await.ok()?;
            Some(list.iter().filter_map(object_name).collect())
        })
    }

    fn contexts(&self) -> Vec<String> {
        kube::context_names(self.opts.kubeconfig.as_deref())
    }
}

fn object_name(o: &serde_json::Value) -> Option<String> {
    o["metadata"]["name"].as_str().map(str::to_string)
}
