//! Candidate order and spread-constraint selection (`pkg/scheduler/core/spreadconstraint`):
//! which of the feasible clusters the scheduler keeps before it divides replicas.

use std::collections::BTreeMap;

use crate::model::cluster::Cluster;
use crate::model::policy::{Placement, SpreadConstraint};

/// `ClusterDetailInfo`: a feasible cluster with what selection reads.
#[derive(Clone, Debug)]
pub struct Candidate<'c> {
    pub cluster: &'c Cluster,
    /// Sum of the score plugins: ClusterLocality gives 100 to clusters already in the binding's
    /// `spec.clusters`, ClusterAffinity 0 (so 0 on a fresh schedule).
    pub score: i64,
    /// 0 for the term's own affinity, i + 1 for its i-th overflow affinity.
    pub overflow_order: i32,
    /// The estimate plus the replicas the binding already has there.
    pub available: i64,
    /// The estimate alone.
    pub allocatable: i32,
}

impl Candidate<'_> {
    pub fn name(&self) -> &str {
        &self.cluster.name
    }
}

/// `sortClusters` with the available-replicas comparison of `generateClustersInfo`: overflow
/// order ascending, score descending, available replicas descending, name ascending.
pub fn sort_candidates(list: &mut [Candidate<'_>]) {
    list.sort_by(|a, b| {
        a.overflow_order
            .cmp(&b.overflow_order)
            .then(b.score.cmp(&a.score))
            .then(b.available.cmp(&a.available))
            .then_with(|| a.name().cmp(b.name()))
    });
}

/// The replica strategy as selection sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrategyView {
    /// `shouldIgnoreSpreadConstraint`: Divided + Weighted with no weight preference, or a
    /// static list and no dynamic weight.
    pub ignores_spread: bool,
    /// `shouldIgnoreAvailableResource`: no replicaScheduling, or Duplicated.
    pub ignores_resources: bool,
    /// Duplicated for `calcGroupScore` (no replicaScheduling counts as Duplicated).
    pub duplicated: bool,
}

impl StrategyView {
    pub fn of(placement: &Placement) -> StrategyView {
        let rs = placement.replica_scheduling.as_ref();
        let ty = rs.map(|r| r.replica_scheduling_type.as_deref().unwrap_or("Divided"));
        let duplicated = ty.is_none_or(|t| t == "Duplicated");
        let ignores_spread = rs.is_some_and(|r| {
            ty == Some("Divided")
                && r.replica_division_preference.as_deref() == Some("Weighted")
                && r.weight_preference.as_ref().is_none_or(|w| {
                    !w.static_weight_list.is_empty()
                        && w.dynamic_weight.as_deref().unwrap_or("").is_empty()
                })
        });
        StrategyView {
            ignores_spread,
            ignores_resources: duplicated,
            duplicated,
        }
    }
}

/// The error `selectBestClustersBySpreadConstraints` returns when no spread constraint is by
/// region or by cluster (pkg/scheduler/core/spreadconstraint/select_clusters.go:54).
pub const UNSUPPORTED_SPREAD: &str = "just support cluster and region spread constraint";

/// A constraint's `spreadByField` as the mutating webhook leaves it: neither a field nor a label
/// spreads by cluster (`SetDefaultSpreadConstraints`, pkg/util/helper/policy.go:32-44). A
/// `spreadByLabel` constraint has no field (`""`).
pub fn spread_field(sc: &SpreadConstraint) -> &str {
    if sc.spread_by_field.is_empty() && sc.spread_by_label.is_empty() {
        "cluster"
    } else {
        &sc.spread_by_field
    }
}

/// How the scheduler's selection step reads a placement's spread constraints
/// (`SelectBestClusters`, pkg/scheduler/core/spreadconstraint/select_clusters.go:28-55): the
/// one answer the placement evaluation, `explain` and `lint` share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpreadSelection {
    /// No constraints, or `shouldIgnoreSpreadConstraint` skips them (`:29`, `:57-69`): every
    /// feasible cluster is selected.
    Every,
    /// A region constraint decides, with the cluster one (`:48-49`).
    Region,
    /// The cluster constraint decides (`:50-51`).
    Cluster,
    /// Neither a region nor a cluster constraint (only `spreadByLabel` ones: admission makes any
    /// `spreadByField` come with a cluster one, validation.go:303-310): every scheduling attempt
    /// fails with [`UNSUPPORTED_SPREAD`] (`:54`), whatever the clusters. `spreadByLabel` is read
    /// nowhere in pkg/scheduler.
    Unsupported,
}

impl SpreadSelection {
    pub fn of(placement: &Placement) -> SpreadSelection {
        let constraints = &placement.spread_constraints;
        if constraints.is_empty() || StrategyView::of(placement).ignores_spread {
            return SpreadSelection::Every;
        }
        let has = |f: &str| constraints.iter().any(|c| spread_field(c) == f);
        if has("region") {
            SpreadSelection::Region
        } else if has("cluster") {
            SpreadSelection::Cluster
        } else {
            SpreadSelection::Unsupported
        }
    }

    /// The indices of the constraints a region or cluster selection never reads: the zone,
    /// provider and `spreadByLabel` ones. Their groups are computed
    /// (`generateZoneInfo`/`generateProviderInfo`, group_clusters.go:380-416) but no selection
    /// uses them (select_clusters.go:48-53); a zone or provider constraint only makes the filter
    /// drop the clusters without that field
    /// (pkg/scheduler/framework/plugins/spreadconstraint/spread_constraint.go:55-62). Empty for
    /// the other selections (all or none of the constraints apply).
    pub fn unread(self, placement: &Placement) -> Vec<usize> {
        if !matches!(self, SpreadSelection::Region | SpreadSelection::Cluster) {
            return Vec::new();
        }
        placement
            .spread_constraints
            .iter()
            .enumerate()
            .filter(|(_, c)| !matches!(spread_field(c), "region" | "cluster"))
            .map(|(i, _)| i)
            .collect()
    }
}

/// `SelectBestClusters`: the selected clusters in their order, or the selection error (the
/// scheduler prefixes it with `failed to select clusters: `).
pub fn select_best<'c>(
    placement: &Placement,
    strategy: StrategyView,
    sorted: Vec<Candidate<'c>>,
    replicas: i32,
) -> Result<Vec<Candidate<'c>>, String> {
    let constraints = &placement.spread_constraints;
    if constraints.is_empty() || strategy.ignores_spread {
        return Ok(sorted);
    }
    let need = (!strategy.ignores_resources).then_some(replicas);
    // spreadConstraintMap: by spreadByField, the last one of a field wins.
    let by_field = |f: &str| constraints.iter().rev().find(|c| spread_field(c) == f);
    if let Some(region) = by_field("region") {
        let cluster = by_field("cluster").cloned().unwrap_or_default();
        return by_region(region, &cluster, placement, strategy, sorted, replicas);
    }
    if let Some(cluster) = by_field("cluster") {
        return by_cluster(cluster, sorted, need);
    }
    Err(UNSUPPORTED_SPREAD.into())
}

fn groups(n: Option<i64>) -> usize {
    n.unwrap_or(0).max(0) as usize
}

/// `selectBestClustersByCluster`: fewer clusters than minGroups fails; the first
/// `min(n, maxGroups)` are kept (an absent maxGroups is 0: none, karmada#4617); unless the
/// strategy ignores resources, richer clusters are swapped in until the replicas fit.
pub fn by_cluster<'c>(
    sc: &SpreadConstraint,
    mut clusters: Vec<Candidate<'c>>,
    need: Option<i32>,
) -> Result<Vec<Candidate<'c>>, String> {
    if clusters.len() < groups(sc.min_groups) {
        return Err(
            "the number of feasible clusters is less than spreadConstraint.MinGroups".into(),
        );
    }
    let count = clusters.len().min(groups(sc.max_groups));
    let Some(need) = need else {
        clusters.truncate(count);
        return Ok(clusters);
    };
    let mut rest = clusters.split_off(count);
    let mut picked = clusters;
    let fits = |p: &[Candidate<'_>]| p.iter().map(|c| c.available).sum::<i64>() >= i64::from(need);
    // selectClustersByAvailableResource: from the last picked backwards, swap in the richest
    // remaining cluster when it is richer.
    let mut i = picked.len();
    while !fits(&picked) && i > 0 {
        i -= 1;
        if let Some(j) = richest(&rest, picked[i].available) {
            std::mem::swap(&mut picked[i], &mut rest[j]);
        }
    }
    if !fits(&picked) {
        return Err(format!(
            "no enough resource when selecting {count} clusters"
        ));
    }
    Ok(picked)
}

/// `GetClusterWithMaxAvailableResource`: the first cluster with the most available replicas
/// above `floor`.
fn richest(list: &[Candidate<'_>], floor: i64) -> Option<usize> {
    let mut best = floor;
    let mut at = None;
    for (i, c) in list.iter().enumerate() {
        if c.available > best {
            best = c.available;
            at = Some(i);
        }
    }
    at
}

/// A region: its clusters in candidate order and its score (`RegionInfo`).
pub struct Region<'c> {
    pub name: String,
    pub clusters: Vec<Candidate<'c>>,
    pub score: i64,
}

/// `selectBestClustersByRegion` with `generateRegionInfo`: regions of the clusters that have
/// one, each scored by `calcGroupScore`.
fn by_region<'c>(
    region: &SpreadConstraint,
    cluster: &SpreadConstraint,
    placement: &Placement,
    strategy: StrategyView,
    sorted: Vec<Candidate<'c>>,
    replicas: i32,
) -> Result<Vec<Candidate<'c>>, String> {
    let mut by_name: BTreeMap<String, Vec<Candidate<'c>>> = BTreeMap::new();
    for c in sorted {
        if !c.cluster.spec.region.is_empty() {
            by_name
                .entry(c.cluster.spec.region.clone())
                .or_default()
                .push(c);
        }
    }
    let cluster_min = cluster_min_groups(placement);
    let regions: Vec<Region<'c>> = by_name
        .into_iter()
        .map(|(name, clusters)| {
            let score = group_score(
                &clusters,
                strategy,
                replicas,
                groups(region.min_groups),
                cluster_min,
            );
            Region {
                name,
                clusters,
                score,
            }
        })
        .collect();
    pick_regions(region, cluster, regions)
}

/// `selectBestClustersByRegion` over scored regions: the best region set (`selectGroups`),
/// the first cluster of each, then the best of the others up to the cluster maxGroups.
pub fn pick_regions<'c>(
    region: &SpreadConstraint,
    cluster: &SpreadConstraint,
    mut regions: Vec<Region<'c>>,
) -> Result<Vec<Candidate<'c>>, String> {
    if regions.len() < groups(region.min_groups) {
        return Err("the number of feasible region is less than spreadConstraint.MinGroups".into());
    }
    let infos: Vec<GroupInfo> = regions
        .iter()
        .map(|r| GroupInfo {
            name: r.name.clone(),
            value: r.clusters.len(),
            weight: r.score,
        })
        .collect();
    let chosen = select_groups(
        infos,
        groups(region.min_groups),
        groups(region.max_groups),
        groups(cluster.min_groups),
    );
    if chosen.is_empty() {
        return Err(
            "the number of clusters is less than the cluster spreadConstraint.MinGroups".into(),
        );
    }
    let mut selected = Vec::new();
    let mut rest = Vec::new();
    for g in &chosen {
        let Some(r) = regions.iter_mut().find(|r| r.name == g.name) else {
            continue;
        };
        let mut clusters = std::mem::take(&mut r.clusters);
        let tail = clusters.split_off(1.min(clusters.len()));
        selected.extend(clusters);
        rest.extend(tail);
    }
    let need = (rest.len() + selected.len()).min(groups(cluster.max_groups));
    if need > selected.len() {
        sort_candidates(&mut rest);
        let extra = need - selected.len();
        selected.extend(rest.into_iter().take(extra));
    }
    Ok(selected)
}

/// The last `cluster` constraint's minGroups (`calcGroupScore` reads it from the placement).
fn cluster_min_groups(placement: &Placement) -> usize {
    placement
        .spread_constraints
        .iter()
        .rev()
        .find(|c| c.spread_by_field == "cluster")
        .map_or(0, |c| groups(c.min_groups))
}

/// `calcGroupScore` (group_clusters.go): Duplicated counts the clusters that hold all the
/// replicas; Divided the replicas the best clusters reach toward ⌈replicas / minGroups⌉, in
/// thousands, plus the mean score.
fn group_score(
    clusters: &[Candidate<'_>],
    strategy: StrategyView,
    replicas: i32,
    min_groups: usize,
    cluster_min: usize,
) -> i64 {
    const UNIT: i64 = 1000;
    if strategy.duplicated {
        let valid: Vec<&Candidate<'_>> = clusters
            .iter()
            .filter(|c| c.available >= i64::from(replicas))
            .collect();
        if valid.is_empty() {
            return 0;
        }
        let n = valid.len() as i64;
        return n * UNIT + valid.iter().map(|c| c.score).sum::<i64>() / n;
    }
    let target = (f64::from(replicas) / min_groups as f64).ceil() as i64;
    let need = cluster_min.max(min_groups) as i64;
    let (mut sum, mut score, mut valid) = (0i64, 0i64, 0i64);
    for c in clusters {
        sum += c.available;
        score += c.score;
        valid += 1;
        if valid >= need && sum >= target {
            break;
        }
    }
    if sum < target {
        return sum * UNIT + score / clusters.len() as i64;
    }
    target * UNIT + score / valid
}

/// `GroupInfo` of select_groups.go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupInfo {
    pub name: String,
    pub value: usize,
    pub weight: i64,
}

/// A feasible path of the search (`dfsPath`).
#[derive(Clone, Debug)]
struct Path {
    id: usize,
    groups: Vec<GroupInfo>,
    weight: i64,
    value: usize,
}

/// `selectGroups`: every combination of groups (by ascending value, then weight descending,
/// name ascending) whose length is within [min, max] and whose values reach `target`, found
/// depth-first; the best by weight, then value, then discovery order, preferring a path that
/// is a strict prefix of the best.
pub fn select_groups(
    mut groups: Vec<GroupInfo>,
    min: usize,
    max: usize,
    target: usize,
) -> Vec<GroupInfo> {
    if groups.is_empty() {
        return Vec::new();
    }
    groups.sort_by(|a, b| {
        a.value
            .cmp(&b.value)
            .then(b.weight.cmp(&a.weight))
            .then_with(|| a.name.cmp(&b.name))
    });
    let mut paths = Vec::new();
    let mut stack = Vec::new();
    let mut next_id = 0;
    dfs(
        &groups,
        min,
        max,
        target,
        0,
        0,
        &mut stack,
        &mut paths,
        &mut next_id,
    );
    prioritize(paths).map(|p| p.groups).unwrap_or_default()
}

#[allow(clippy::too_many_arguments)]
fn dfs(
    groups: &[GroupInfo],
    min: usize,
    max: usize,
    target: usize,
    sum: usize,
    begin: usize,
    stack: &mut Vec<usize>,
    paths: &mut Vec<Path>,
    next_id: &mut usize,
) {
    if sum >= target && stack.len() >= min && stack.len() <= max {
        *next_id += 1;
        let mut chosen: Vec<GroupInfo> = stack.iter().map(|&i| groups[i].clone()).collect();
        let weight = chosen.iter().map(|g| g.weight).sum();
        let value = chosen.iter().map(|g| g.value).sum();
        chosen.sort_by(|a, b| b.weight.cmp(&a.weight).then_with(|| a.name.cmp(&b.name)));
        paths.push(Path {
            id: *next_id,
            groups: chosen,
            weight,
            value,
        });
        return;
    }
    if stack.len() >= max {
        return;
    }
    for i in begin..groups.len() {
        stack.push(i);
        dfs(
            groups,
            min,
            max,
            target,
            sum + groups[i].value,
            i + 1,
            stack,
            paths,
            next_id,
        );
        // "stop backtracking when we have to traverse all groups to satisfy the minimum".
        if groups.len() == min {
            break;
        }
        stack.pop();
    }
}

/// `prioritizePaths`.
fn prioritize(mut paths: Vec<Path>) -> Option<Path> {
    if paths.len() <= 1 {
        return paths.pop();
    }
    paths.sort_by(|a, b| {
        b.weight
            .cmp(&a.weight)
            .then(b.value.cmp(&a.value))
            .then(a.id.cmp(&b.id))
    });
    let mut best = 0;
    for i in 1..paths.len() {
        let (p, sub) = (&paths[best], &paths[i]);
        let prefix = sub.groups.len() < p.groups.len()
            && sub
                .groups
                .iter()
                .zip(&p.groups)
                .all(|(a, b)| a.name == b.name);
        if prefix {
            best = i;
        }
    }
    Some(paths.swap_remove(best))
}

#[cfg(test)]
mod selection_tests {
    use super::{SpreadSelection, UNSUPPORTED_SPREAD};
    use crate::model::policy::Placement;

    fn placement(v: serde_json::Value) -> Placement {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn only_region_or_cluster_constraints_select() {
        // select_clusters.go:48-54.
        let label = placement(serde_json::json!({"spreadConstraints": [
            {"spreadByLabel": "zone", "minGroups": 2, "maxGroups": 2}]}));
        assert_eq!(SpreadSelection::of(&label), SpreadSelection::Unsupported);
        assert!(SpreadSelection::Unsupported.unread(&label).is_empty());
        assert_eq!(
            UNSUPPORTED_SPREAD,
            "just support cluster and region spread constraint"
        );
        // Neither field nor label: the webhook's default, cluster.
        let bare = placement(serde_json::json!({"spreadConstraints": [{"maxGroups": 2}]}));
        assert_eq!(SpreadSelection::of(&bare), SpreadSelection::Cluster);
        let zone = placement(serde_json::json!({"spreadConstraints": [
            {"spreadByField": "zone", "minGroups": 2},
            {"spreadByField": "cluster", "minGroups": 2},
            {"spreadByField": "provider"},
            {"spreadByLabel": "rack"}]}));
        let sel = SpreadSelection::of(&zone);
        assert_eq!(sel, SpreadSelection::Cluster);
        assert_eq!(sel.unread(&zone), vec![0, 2, 3]);
        let region = placement(serde_json::json!({"spreadConstraints": [
            {"spreadByField": "cluster"}, {"spreadByField": "region"}, {"spreadByField": "zone"}]}));
        assert_eq!(SpreadSelection::of(&region), SpreadSelection::Region);
        assert_eq!(SpreadSelection::Region.unread(&region), vec![2]);
        // Static weights: shouldIgnoreSpreadConstraint (:57-69) skips them all.
        let mut weighted = label.clone();
        weighted.replica_scheduling = serde_json::from_value(serde_json::json!({
            "replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}))
        .unwrap();
        assert_eq!(SpreadSelection::of(&weighted), SpreadSelection::Every);
    }
}
