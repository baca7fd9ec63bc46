//! The replica division (`pkg/scheduler/core/assignment.go`, `division_algorithm.go`, and the
//! Webster dispenser of `pkg/util/helper/binding.go` and `webstermethod.go`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::model::cluster::Cluster;
use crate::model::policy::StaticClusterWeight;

use crate::engine::cluster_match::cluster_matches;

/// One entry of a binding's `spec.clusters`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub cluster: String,
    pub replicas: i32,
}

impl Target {
    pub fn new(cluster: &str, replicas: i32) -> Target {
        Target {
            cluster: cluster.to_string(),
            replicas,
        }
    }
}

/// How Webster ties between parties with equal priority and equal seats are broken:
/// `tieBreakerByUID` (binding.go) orders names descending when the FNV-32a hash of the
/// template's uid is odd, ascending otherwise (and without a uid).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieBreak {
    Ascending,
    Descending,
}

impl TieBreak {
    pub fn of_uid(uid: Option<&str>) -> TieBreak {
        match uid {
            Some(u) if !u.is_empty() && fnv32a(u.as_bytes()) & 1 == 1 => TieBreak::Descending,
            _ => TieBreak::Ascending,
        }
    }
}

/// How replicas are apportioned by weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apportion {
    /// `Dispenser.AllocateByWeight` (`AllocateWebsterSeats`), from v1.16.0, ties by the
    /// template's uid.
    Webster(TieBreak),
    /// `Dispenser.TakeByWeight`, before v1.16.0 ([`take_by_weight`]).
    Floor,
}

impl From<TieBreak> for Apportion {
    fn from(tie: TieBreak) -> Apportion {
        Apportion::Webster(tie)
    }
}

/// What an apportionment gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Apportioned {
    pub targets: Vec<Target>,
    /// A replica left after the floors went to one of several clusters equal in weight and in
    /// last replicas, which Karmada before v1.16 orders at random (`ClusterWeightInfoList.Less`):
    /// another of them may get it.
    pub random_tie: bool,
}

/// `seats` apportioned by `votes`, with the clusters' last replicas (`last`, the binding's
/// `spec.clusters`) for [`Apportion::Floor`]'s order. Sorted by name.
pub fn apportion(
    seats: i32,
    votes: &[(String, i64)],
    last: &[Target],
    how: Apportion,
) -> Apportioned {
    match how {
        Apportion::Webster(tie) => Apportioned {
            targets: webster(seats, votes, &[], tie),
            random_tie: false,
        },
        Apportion::Floor => take_by_weight(seats, votes, last),
    }
}

/// `Dispenser.TakeByWeight` (`pkg/util/helper/binding.go:112-144` at v1.15.0): each cluster
/// its floor of `weight × seats / sum`, then the replicas left one each in the order weight
/// descending, last replicas descending, then at random (`ClusterWeightInfoList.Less`,
/// `:64-80`). A zero weight sum gives nothing.
pub fn take_by_weight(seats: i32, votes: &[(String, i64)], last: &[Target]) -> Apportioned {
    let sum: i64 = votes.iter().map(|(_, v)| *v).sum();
    if sum == 0 {
        return Apportioned::default();
    }
    let last_of = |name: &str| {
        last.iter()
            .find(|t| t.cluster == name)
            .map_or(0, |t| t.replicas)
    };
    let mut order: Vec<(&str, i64, i32)> = votes
        .iter()
        .map(|(n, v)| (n.as_str(), *v, last_of(n)))
        .collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)));
    let mut targets: Vec<Target> = order
        .iter()
        .map(|(n, v, _)| Target::new(n, (v * i64::from(seats) / sum) as i32))
        .collect();
    let left = (seats - targets.iter().map(|t| t.replicas).sum::<i32>()).max(0) as usize;
    for t in targets.iter_mut().take(left) {
        t.replicas += 1;
    }
    let key = |i: usize| order.get(i).map(|(_, v, l)| (*v, *l));
    let random_tie = left > 0 && key(left - 1) == key(left);
    targets.sort_by(|a, b| a.cluster.cmp(&b.cluster));
    Apportioned {
        targets,
        random_tie,
    }
}

/// FNV-1a, 32 bits (`hash/fnv` New32a).
fn fnv32a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

/// A party of the Webster apportionment, as the heap holds it: votes, seats, and the rank of
/// its name in the tie-break order (so that ties compare integers, not names).
#[derive(Clone, Copy, Debug)]
struct Party {
    votes: i64,
    seats: i32,
    /// 0 for the name served first on a tie.
    rank: u32,
    index: u32,
}

impl Party {
    /// `votes / (2·seats + 1)` in float64, as `WebsterPriorityQueue.Less` computes it.
    fn priority(&self) -> f64 {
        self.votes as f64 / f64::from(2 * self.seats + 1)
    }
}

impl PartialEq for Party {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Party {}
impl PartialOrd for Party {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Party {
    /// Greater = served first: higher priority; on a tie fewer seats, then the name in the
    /// tie-break order (`WebsterPriorityQueue.Less` with `tieBreakerByUID`).
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.priority(), other.priority());
        if a != b {
            return a.partial_cmp(&b).unwrap_or(Ordering::Equal);
        }
        other
            .seats
            .cmp(&self.seats)
            .then(other.rank.cmp(&self.rank))
    }
}

/// `AllocateWebsterSeats` through `Dispenser.AllocateByWeight`: `seats` new seats, one at a
/// time to the party with the highest priority; parties of `init` keep their seats (votes 0
/// unless weighted). The result is sorted by name. No parties, or a zero weight sum: `init`.
pub fn webster(seats: i32, votes: &[(String, i64)], init: &[Target], tie: TieBreak) -> Vec<Target> {
    if seats == 0 && !init.is_empty() {
        return init.to_vec(); // Dispenser.Done
    }
    if votes.iter().map(|(_, v)| *v).sum::<i64>() == 0 {
        return init.to_vec();
    }
    // One party per name (init first, votes override), in name order.
    let mut parties: std::collections::BTreeMap<&str, (i64, i32)> = init
        .iter()
        .map(|t| (t.cluster.as_str(), (0, t.replicas)))
        .collect();
    for (name, v) in votes {
        parties.entry(name.as_str()).or_insert((0, 0)).0 = *v;
    }
    let names: Vec<&str> = parties.keys().copied().collect();
    let n = names.len() as u32;
    let mut heap: BinaryHeap<Party> = parties
        .values()
        .enumerate()
        .map(|(i, (votes, seats))| Party {
            votes: *votes,
            seats: *seats,
            rank: match tie {
                TieBreak::Ascending => i as u32,
                TieBreak::Descending => n - 1 - i as u32,
            },
            index: i as u32,
        })
        .collect();
    for _ in 0..seats {
        let Some(mut p) = heap.pop() else { break };
        p.seats += 1;
        heap.push(p);
    }
    let mut out: Vec<(u32, i32)> = heap.into_iter().map(|p| (p.index, p.seats)).collect();
    out.sort_unstable();
    out.into_iter()
        .map(|(i, seats)| Target::new(names[i as usize], seats))
        .collect()
}

/// A cluster's static weight: the largest weight of the entries whose `targetCluster` matches
/// it, 0 when none does (`getStaticWeightInfoList`, division_algorithm.go).
pub fn static_weight(cluster: &Cluster, list: &[StaticClusterWeight]) -> i64 {
    list.iter()
        .filter(|e| cluster_matches(cluster, &e.target_cluster))
        .map(|e| e.weight)
        .fold(0, i64::max)
}

/// The weights the static strategy divides by, in candidate order: the clusters with a
/// positive weight; when none has one, every candidate with weight 1 (also Karmada's default
/// without a `weightPreference`, `getDefaultWeightPreference`).
pub fn static_weights(
    candidates: &[&Cluster],
    list: Option<&[StaticClusterWeight]>,
) -> Vec<(String, i64)> {
    let weighted: Vec<(String, i64)> = match list {
        Some(list) => candidates
            .iter()
            .map(|c| (c.name.clone(), static_weight(c, list)))
            .filter(|(_, w)| *w > 0)
            .collect(),
        None => Vec::new(),
    };
    if weighted.iter().map(|(_, w)| *w).sum::<i64>() != 0 {
        return weighted;
    }
    candidates.iter().map(|c| (c.name.clone(), 1)).collect()
}

/// `assignByStaticWeightStrategy`: the static weights apportioned by the release's method
/// (Webster from v1.16, `TakeByWeight` before, with the binding's `previous` replicas for its
/// order); zero shares included, the caller drops them as `removeZeroReplicasCluster` does.
pub fn by_static_weights(
    replicas: i32,
    weights: &[(String, i64)],
    previous: &[Target],
    how: Apportion,
) -> Apportioned {
    apportion(replicas, weights, previous, how)
}

/// Dynamic weights and Aggregated: the strategy kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dynamic {
    Weighted,
    Aggregated,
}

/// Why a dynamic division fails: `framework.UnschedulableError` (condition reason
/// Unschedulable), with the scheduler's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotEnough {
    pub available: i64,
}

impl NotEnough {
    pub fn message(&self) -> String {
        format!(
            "Clusters available replicas {} are not enough to schedule.",
            self.available
        )
    }
}

/// What a dynamic division read: each candidate's allocatable replicas, the clusters kept
/// (Aggregated's prefix) and whether Go's unstable sort could have kept other tied clusters.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DynamicTrace {
    pub weights: Vec<Target>,
    pub order_dependent: bool,
    /// See [`Apportioned::random_tie`].
    pub random_tie: bool,
}

/// `sort.Sort(TargetClustersList)`: available replicas descending. Go's sort is an insertion
/// sort (stable) up to 12 elements and pdqsort (not stable) beyond; this sort is stable, so
/// beyond 12 elements the order of equal entries may differ from Karmada's.
fn by_replicas_desc(list: &mut [Target]) {
    list.sort_by_key(|t| std::cmp::Reverse(t.replicas));
}

/// `assignByDynamicStrategy` in Steady mode (a binding without a reschedule trigger, which a
/// new binding is): scale up divides the replicas not yet assigned by each candidate's
/// allocatable replicas; scale down divides the new total by the previous assignment.
/// `candidates` are (name, allocatable replicas) in selection order; `previous` the binding's
/// `spec.clusters` (empty for a new binding).
pub fn dynamic(
    kind: Dynamic,
    replicas: i32,
    candidates: &[Target],
    previous: &[Target],
    how: Apportion,
) -> Result<(Vec<Target>, DynamicTrace), NotEnough> {
    // buildScheduledClusters: the previous targets still among the candidates.
    let scheduled: Vec<Target> = previous
        .iter()
        .filter(|p| candidates.iter().any(|c| c.cluster == p.cluster))
        .cloned()
        .collect();
    let assigned: i32 = scheduled.iter().map(|t| t.replicas).sum();
    match assigned.cmp(&replicas) {
        Ordering::Equal => Ok((scheduled, DynamicTrace::default())),
        Ordering::Greater => {
            // dynamicScaleDown: the previous replicas are the weights; nothing kept.
            let mut available = scheduled;
            by_replicas_desc(&mut available);
            divide(kind, replicas, available, &[], how)
        }
        Ordering::Less => {
            let mut available = candidates.to_vec();
            by_replicas_desc(&mut available);
            divide(kind, replicas - assigned, available, &scheduled, how)
        }
    }
}

/// `dynamicDivideReplicas`: fail below the target; Aggregated keeps the shortest prefix
/// (clusters holding replicas first) that covers it; Webster by available replicas; then the
/// previous replicas are added back (`MergeTargetClusters`).
fn divide(
    kind: Dynamic,
    target: i32,
    mut available: Vec<Target>,
    scheduled: &[Target],
    how: Apportion,
) -> Result<(Vec<Target>, DynamicTrace), NotEnough> {
    let sum: i64 = available.iter().map(|t| i64::from(t.replicas)).sum();
    if sum < i64::from(target) {
        return Err(NotEnough { available: sum });
    }
    let total = available.len();
    let mut order_dependent = false;
    if kind == Dynamic::Aggregated {
        // resortAvailableClusters: a stable partition, previous holders first.
        let holds = |t: &Target| {
            scheduled
                .iter()
                .any(|s| s.cluster == t.cluster && s.replicas > 0)
        };
        let (mut prior, rest): (Vec<Target>, Vec<Target>) = available.into_iter().partition(holds);
        prior.extend(rest);
        available = prior;
        let mut acc: i64 = 0;
        if let Some(i) = available.iter().position(|t| {
            acc += i64::from(t.replicas);
            acc >= i64::from(target)
        }) {
            order_dependent = total > 12
                && available
                    .get(i + 1)
                    .is_some_and(|next| next.replicas == available[i].replicas);
            available.truncate(i + 1);
        }
    }
    let weights: Vec<(String, i64)> = available
        .iter()
        .map(|t| (t.cluster.clone(), i64::from(t.replicas)))
        .collect();
    // `SpreadReplicasByTargetClusters` before v1.16: the last replicas are the scheduled ones.
    let divided = apportion(target, &weights, scheduled, how);
    Ok((
        merge(scheduled, divided.targets),
        DynamicTrace {
            weights: available,
            order_dependent,
            random_tie: divided.random_tie,
        },
    ))
}

/// `util.MergeTargetClusters`: the new shares plus the old ones; clusters only in the old list
/// follow (Go appends them in map order; here by name).
fn merge(old: &[Target], mut new: Vec<Target>) -> Vec<Target> {
    if old.is_empty() {
        return new;
    }
    if new.is_empty() {
        return old.to_vec();
    }
    let mut only_old: Vec<Target> = Vec::new();
    for o in old {
        match new.iter_mut().find(|n| n.cluster == o.cluster) {
            Some(n) => n.replicas += o.replicas,
            None => only_old.push(o.clone()),
        }
    }
    only_old.sort_by(|a, b| a.cluster.cmp(&b.cluster));
    new.extend(only_old);
    new
}

/// `removeZeroReplicasCluster`.
pub fn drop_zero(list: Vec<Target>) -> Vec<Target> {
    list.into_iter().filter(|t| t.replicas > 0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv32a_matches_go() {
        // hash/fnv New32a of "" and "a" (the Go package's documented vectors).
        assert_eq!(fnv32a(b""), 0x811c9dc5);
        assert_eq!(fnv32a(b"a"), 0xe40c292c);
    }
}
