//! The general estimator (`pkg/estimator/client/general.go`): how many replicas of a template
//! one member cluster can take, from its `status.resourceSummary` and, with the
//! `CustomizedClusterResourceModeling` gate, its resource models. The accurate estimator
//! (karmada-scheduler-estimator, per node) is a service this tool cannot ask; where it runs,
//! the scheduler takes the smaller answer (`util.go` mergeReplicaResults).

use std::collections::BTreeMap;

use crate::model::cluster::{Cluster, ResourceList, ResourceSummary};

use super::quantity::{BadQuantity, Quantity};
use super::workload::{is_scalar_resource_name, Requirements};

/// What an estimate rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// No `status.resourceSummary`: the estimator answers 0.
    NoSummary,
    /// Allocatable minus allocated minus allocating pods (no requirements, or pods bind first).
    Pods,
    /// The summary's allocatable minus allocated minus allocating, per requested resource.
    Summary,
    /// A first-fit over nodes built from `spec.resourceModels` and `allocatableModelings`.
    Models,
}

/// One cluster's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    pub replicas: i32,
    pub basis: Basis,
}

/// A quantity of the Cluster object that does not parse, with where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Cluster {cluster}: {field}: {source}")]
pub struct CapacityError {
    pub cluster: String,
    pub field: String,
    #[source]
    pub source: BadQuantity,
}

/// `GeneralEstimator.maxAvailableReplicas` for one cluster (`general.go`). `resource_modeling`
/// is the scheduler's `CustomizedClusterResourceModeling` gate (on by default).
pub fn estimate(
    cluster: &Cluster,
    requirements: Option<&Requirements>,
    resource_modeling: bool,
) -> Result<Estimate, CapacityError> {
    let Some(summary) = &cluster.status.resource_summary else {
        return Ok(Estimate {
            replicas: 0,
            basis: Basis::NoSummary,
        });
    };
    let lists = Lists {
        summary,
        cluster: &cluster.name,
    };
    let allowed = lists.allowed_pods()?;
    let pods = Estimate {
        replicas: to_i32(allowed),
        basis: Basis::Pods,
    };
    if allowed <= 0 {
        return Ok(Estimate {
            replicas: 0,
            basis: Basis::Pods,
        });
    }
    let Some(req) = requirements else {
        return Ok(pods);
    };
    if resource_modeling && !summary.allocatable_modelings.is_empty() {
        // Without spec.resourceModels buildModelNodes fails and the summary is used instead.
        if let Some(n) = by_models(cluster, req)? {
            return Ok(Estimate {
                replicas: to_i32(n.min(allowed)),
                basis: Basis::Models,
            });
        }
    }
    let n = lists.by_summary(req)?;
    Ok(if n < allowed {
        Estimate {
            replicas: to_i32(n),
            basis: Basis::Summary,
        }
    } else {
        pods
    })
}

fn to_i32(n: i64) -> i32 {
    n.clamp(0, i64::from(i32::MAX)) as i32
}

/// The summary's three lists; a quantity is parsed when the estimator reads it (pods and the
/// requested resources only, as `general.go` does).
struct Lists<'a> {
    summary: &'a ResourceSummary,
    cluster: &'a str,
}

impl Lists<'_> {
    fn get(&self, list: &str, name: &str) -> Result<Option<Quantity>, CapacityError> {
        let l: &ResourceList = match list {
            "allocatable" => &self.summary.allocatable,
            "allocated" => &self.summary.allocated,
            _ => &self.summary.allocating,
        };
        l.get(name)
            .map(|q| Quantity::parse(&q.0))
            .transpose()
            .map_err(|source| CapacityError {
                cluster: self.cluster.to_string(),
                field: format!("status.resourceSummary.{list}.{name}"),
                source,
            })
    }

    /// `getAllowedPodNumber`: allocatable − allocated − allocating pods, 0 when not positive.
    fn allowed_pods(&self) -> Result<i64, CapacityError> {
        let pods =
            |list| Ok::<i64, CapacityError>(self.get(list, "pods")?.map_or(0, |q| q.value()));
        let n = pods("allocatable")? - pods("allocated")? - pods("allocating")?;
        Ok(n.max(0))
    }

    /// `getMaximumReplicasBasedOnClusterSummary`: per requested resource,
    /// ⌊available / request⌋ (cpu in millis); a resource the cluster does not list, or has
    /// none left of, gives 0.
    fn by_summary(&self, req: &Requirements) -> Result<i64, CapacityError> {
        let mut max = i64::MAX;
        for (name, request) in &req.resource_request {
            if request.value() <= 0 {
                continue;
            }
            let Some(allocatable) = self.get("allocatable", name)? else {
                return Ok(0);
            };
            let mut available = allocatable;
            if let Some(q) = self.get("allocated", name)? {
                available = available - q;
            }
            if let Some(q) = self.get("allocating", name)? {
                available = available - q;
            }
            if available.value() <= 0 {
                return Ok(0);
            }
            let n = if name == "cpu" {
                available.milli_value() / request.milli_value()
            } else {
                available.value() / request.value()
            };
            max = max.min(n);
        }
        Ok(max)
    }
}

/// Pods per model node (`general.go` maxPodsCountPerNode).
const PODS_PER_MODEL_NODE: i64 = 110;

/// `getMaximumReplicasBasedOnResourceModels`: nodes of each grade present in both
/// `spec.resourceModels` and `allocatableModelings` (count times, grade order), each with the
/// grade's minimum of every range and 110 pods; one replica at a time first-fit, which for
/// identical replicas is the sum over nodes of how many fit on each (`util.Resource.MaxDivided`).
/// `None` when the cluster has no `spec.resourceModels` (the estimator then falls back to the
/// summary).
fn by_models(cluster: &Cluster, req: &Requirements) -> Result<Option<i64>, CapacityError> {
    let models = &cluster.spec.resource_models;
    if models.is_empty() {
        return Ok(None);
    }
    let Some(summary) = &cluster.status.resource_summary else {
        return Ok(None);
    };
    let mut grades: BTreeMap<i64, BTreeMap<String, i64>> = BTreeMap::new();
    for (i, m) in models.iter().enumerate() {
        let mut node = BTreeMap::new();
        for (j, r) in m.ranges.iter().enumerate() {
            let q = Quantity::parse(&r.min.0).map_err(|source| CapacityError {
                cluster: cluster.name.clone(),
                field: format!("spec.resourceModels[{i}].ranges[{j}].min"),
                source,
            })?;
            if let Some(n) = node_amount(&r.name, q) {
                node.insert(r.name.clone(), n);
            }
        }
        node.insert("pods".into(), PODS_PER_MODEL_NODE);
        grades.insert(m.grade, node);
    }
    let mut counts: BTreeMap<i64, i64> = BTreeMap::new();
    for a in &summary.allocatable_modelings {
        *counts.entry(a.grade).or_default() += a.count;
    }
    let per_replica: Vec<(&String, i64)> = req
        .resource_request
        .iter()
        .filter_map(|(name, q)| node_amount(name, *q).map(|n| (name, n)))
        .filter(|(name, n)| *n > 0 && name.as_str() != "pods")
        .collect();
    let mut total: i64 = 0;
    for (grade, node) in &grades {
        let count = counts.get(grade).copied().unwrap_or(0);
        if count <= 0 {
            continue;
        }
        let mut fits = node["pods"];
        for (name, n) in &per_replica {
            fits = fits.min(node.get(*name).copied().unwrap_or(0) / n);
        }
        total = total.saturating_add(fits.saturating_mul(count));
    }
    Ok(Some(total.min(i64::from(i32::MAX))))
}

/// How `util.NewResource` keeps a node's resource: cpu in millis, memory, ephemeral storage
/// and scalar resources in units; other names are not kept.
fn node_amount(name: &str, q: Quantity) -> Option<i64> {
    match name {
        "cpu" => Some(q.milli_value()),
        "memory" | "ephemeral-storage" | "pods" => Some(q.value()),
        n if is_scalar_resource_name(n) => Some(q.value()),
        _ => None,
    }
}
