//! The engine: pure functions that decide what Karmada decides. No I/O, no async, no printing.
//!
//! Its specification is `../shared/karmada/claim-and-preemption.md` (matching, ranking, claims,
//! preemption, events) and `../shared/karmada/validation-suspension-failover.md` (admission,
//! suspension, failover); each rule's code cites the section it implements.

pub mod admission;
pub mod suspension;
// Cluster-centric freeze and its lifting (issue 9).
pub mod freeze;

// The claim engine (claim-and-preemption.md): `selector` (§1.2, one selector vs one template),
// `rank` (§2.3/§3, one policy among the matching ones), `claim` (§4 claim keys, §1.4 filters),
// `state` (the indexed snapshot), `reconcile` (template reconcile, fresh match, preemption,
// the §7 restart model), `simulate` (controller events, preempt-check), `explain` (one
// template's decision).
pub mod claim;
// What a workload depends on, and the workloads that carry a template along (propagateDeps).
pub mod dependencies;
pub mod explain;
// Which documents `explain` of one template needs (issue 8).
pub mod explain_inputs;
// karmada-controller-manager's namespace controller: every Namespace to every cluster.
pub mod namespace_sync;
// Ownership changes of a change set (`lint --base`).
pub mod ownership;
// What a change does to the fleet, per member cluster (`plan`).
pub mod plan;
pub mod rank;
pub mod reconcile;
pub mod selector;
pub mod simulate;
pub mod state;
// The live chain of one template: claim → binding → Works (issue 7).
pub mod chain;
// The scheduler's filter stage (issue 22) and the override manager (issue 21), per member cluster.
pub mod check_notes;
pub mod delivery;
pub mod overrides;
// Cluster affinity matching, shared by placement, overrides and replicas.
pub mod cluster_match;
pub mod placement;
// How many replicas each member cluster receives after the filter stage (issue 35).
pub mod policy_view;
pub mod replicas;
// Replica changes of a change set (`lint --base`).
pub mod replica_changes;
// `explain pp/NAME` live: the held templates' bindings and Works (issue 21).
pub mod policy_live;
