//! Discovery: the resource types the control plane serves (aggregated discovery, else the
//! legacy endpoints, else well-known names), and `TYPE` resolved against them as kubectl does.

use std::sync::atomic::{AtomicU64, Ordering};

use ::kube::core::{ApiResource, GroupVersionKind};

use super::kinds::{self, KarmadaKind, KindInfo};
use super::{Conn, KubeError, Served};

/// A served resource type, as discovery reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceType {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
    pub short: Vec<String>,
}

impl ResourceType {
    pub fn new(group: &str, version: &str, kind: &str, plural: &str, namespaced: bool) -> Self {
        ResourceType {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            plural: plural.into(),
            namespaced,
            short: Vec::new(),
        }
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `deployments.apps` (or `configmaps` for the core group), as kubectl names types.
    pub fn display(&self) -> String {
        self.info().display()
    }

    pub fn info(&self) -> KindInfo {
        KindInfo {
            group: self.group.clone(),
            kind: self.kind.clone(),
            plural: self.plural.clone(),
            short: self.short.clone(),
        }
    }

    /// The table entry of a Karmada kind, as a served type.
    pub fn karmada(k: &KarmadaKind) -> ResourceType {
        ResourceType {
            group: k.group.into(),
            version: k.version.into(),
            kind: k.kind.into(),
            plural: k.plural.into(),
            namespaced: k.namespaced,
            short: k.short.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// The prefix of object references: the first short name (`pp`, `deploy`), else
    /// `kind.group` in lower case (`work.work.karmada.io` would be noise: Karmada's own kinds
    /// without a short name use the kind alone).
    pub fn ref_prefix(&self) -> String {
        if let Some(s) = self.short.first() {
            return s.clone();
        }
        let kind = self.kind.to_ascii_lowercase();
        if self.group.is_empty() || self.group.ends_with("karmada.io") {
            kind
        } else {
            format!("{kind}.{}", self.group)
        }
    }
}

impl Served for ResourceType {
    fn api_resource(&self) -> ApiResource {
        ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk(&self.group, &self.version, &self.kind),
            &self.plural,
        )
    }

    fn namespaced(&self) -> bool {
        self.namespaced
    }
}

/// The types the server serves (preferred version of each group first).
#[derive(Clone, Debug, Default)]
pub struct Discovered {
    pub types: Vec<ResourceType>,
    /// Set when discovery could not be read and well-known names stand in.
    pub note: Option<String>,
}

impl Discovered {
    /// Resolves `TYPE` as kubectl does: kind, plural or short name, any case, optionally
    /// qualified `deployment.apps` / `deployments.v1.apps`.
    pub fn resolve(&self, ty: &str) -> Result<ResourceType, String> {
        let table: Vec<KindInfo> = self.types.iter().map(ResourceType::info).collect();
        let info = kinds::resolve(ty, &table, &[]).map_err(|e| match e {
            kinds::ResolveError::Unknown { choices, .. } => format!(
                "the server doesn't have a resource type \"{ty}\"; known types: {}",
                choices.join(", ")
            ),
            other => other.to_string(),
        })?;
        self.types
            .iter()
            .find(|t| t.group == info.group && t.kind == info.kind)
            .cloned()
            .ok_or_else(|| format!("the server doesn't have a resource type \"{ty}\""))
    }

    /// The served type for an `apiVersion` and kind (as written in a resource selector); the
    /// plural is guessed when discovery does not know it.
    pub fn for_kind(&self, api_version: &str, kind: &str) -> ResourceType {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        if let Some(t) = self
            .types
            .iter()
            .find(|t| t.group == group && t.version == version && t.kind == kind)
        {
            return t.clone();
        }
        let namespaced = super::scope::is_namespaced(api_version, kind);
        ResourceType::new(group, version, kind, &kinds::guess_plural(kind), namespaced)
    }

    /// Without discovery: the well-known kinds (at their usual versions) and Karmada's.
    fn fallback(note: String) -> Discovered {
        let mut types: Vec<ResourceType> = kinds::table(&[])
            .into_iter()
            .filter(|i| !i.is_karmada())
            .map(|i| {
                // Every well-known kind is served at v1 today.
                let version = "v1";
                let api_version = if i.group.is_empty() {
                    version.to_string()
                } else {
                    format!("{}/{version}", i.group)
                };
                let namespaced = super::scope::is_namespaced(&api_version, &i.kind);
                ResourceType {
                    group: i.group,
                    version: version.into(),
                    kind: i.kind,
                    plural: i.plural,
                    namespaced,
                    short: i.short,
                }
            })
            .collect();
        types.extend(kinds::KARMADA.iter().map(ResourceType::karmada));
        Discovered {
            types,
            note: Some(note),
        }
    }
}

/// Counts the requests the live source sends (the benchmark reports it; tests compare it with the
/// server's log).
#[derive(Debug, Default)]
pub struct Stats {
    requests: AtomicU64,
}

impl Stats {
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    pub fn count(&self, n: u64) {
        self.requests.fetch_add(n, Ordering::SeqCst);
    }
}

/// Aggregated discovery (`/api` and `/apis`, two requests); the legacy endpoints when the
/// server answers aggregated discovery with nothing (kube-rs then sees 0 groups and no error).
pub async fn discover(conn: &Conn, stats: &Stats) -> Discovered {
    let client = &conn.client;
    stats.count(2);
    let core = client.list_core_api_versions_aggregated().await;
    let groups = client.list_api_groups_aggregated().await;
    let mut types = Vec::new();
    let mut failed = None;
    for list in [core, groups] {
        match list {
            Ok(list) => {
                for g in list.items {
                    let group = g
                        .metadata
                        .as_ref()
                        .and_then(|m| m.name.clone())
                        .unwrap_or_default();
                    // The first version listed is the preferred one; keep each kind once.
                    for v in g.versions {
                        let version = v.version.unwrap_or_default();
                        for r in v.resources {
                            let Some(plural) = r.resource else { continue };
                            let kind = r.response_kind.and_then(|k| k.kind).unwrap_or_default();
                            if kind.is_empty() || plural.contains('/') {
                                continue;
                            }
                            if types
                                .iter()
                                .any(|t: &ResourceType| t.group == group && t.kind == kind)
                            {
                                continue;
                            }
                            types.push(ResourceType {
                                group: group.clone(),
                                version: version.clone(),
                                kind,
                                plural,
                                namespaced: r.scope.as_deref() == Some("Namespaced"),
                                short: r.short_names,
                            });
                        }
                    }
                }
            }
            Err(e) => failed = Some(KubeError::from_kube(e, &conn.server).server_message()),
        }
    }
    if types.is_empty() && failed.is_none() {
        types = legacy_discovery(conn, stats).await.unwrap_or_default();
    }
    if types.is_empty() {
        return Discovered::fallback(format!(
            "discovery unavailable ({}); using well-known resource types",
            failed.unwrap_or_else(|| "no resource types served".into())
        ));
    }
    Discovered { types, note: None }
}

async fn legacy_discovery(conn: &Conn, stats: &Stats) -> Option<Vec<ResourceType>> {
    let client = &conn.client;
    let mut types = Vec::new();
    stats.count(1);
    let core = client.list_core_api_resources("v1").await.ok();
    stats.count(1);
    let groups = client.list_api_groups().await.ok()?;
    let mut lists = Vec::new();
    if let Some(c) = core {
        lists.push((String::new(), "v1".to_string(), c));
    }
    for g in groups.groups {
        let Some(pv) = g.preferred_version.or_else(|| g.versions.first().cloned()) else {
            continue;
        };
        stats.count(1);
        if let Ok(l) = client.list_api_group_resources(&pv.group_version).await {
            lists.push((g.name.clone(), pv.version.clone(), l));
        }
    }
    for (group, version, list) in lists {
        for r in list.resources {
            if r.name.contains('/') {
                continue;
            }
            types.push(ResourceType {
                group: group.clone(),
                version: version.clone(),
                kind: r.kind,
                plural: r.name,
                namespaced: r.namespaced,
                short: r.short_names.unwrap_or_default(),
            });
        }
    }
    Some(types)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn discovered() -> Discovered {
        let mut deploy = ResourceType::new("apps", "v1", "Deployment", "deployments", true);
        deploy.short = vec!["deploy".into()];
        Discovered {
            types: vec![
                deploy,
                ResourceType::karmada(&kinds::PROPAGATION_POLICY),
                ResourceType::karmada(&kinds::CLUSTER_PROPAGATION_POLICY),
                ResourceType::karmada(&kinds::WORK),
            ],
            note: None,
        }
    }

    #[test]
    fn resolves_types_like_kubectl() {
        let d = discovered();
        for ty in ["deploy", "deployments", "Deployment", "deployment.apps"] {
            assert_eq!(d.resolve(ty).unwrap().plural, "deployments", "{ty}");
        }
        assert_eq!(d.resolve("pp").unwrap().kind, "PropagationPolicy");
        assert!(d.resolve("widgets").is_err());
        assert_eq!(
            d.for_kind("example.com/v1", "Widget").plural,
            "widgets",
            "unknown kinds get kubectl's guessed plural"
        );
    }
}
