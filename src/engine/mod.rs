//! The engine: pure functions that decide what Karmada decides. No I/O, no async, no printing.
//!
//! Its specification is `../shared/karmada/claim-and-preemption.md` (matching, ranking, claims,
//! preemption, events) and `../shared/karmada/validation-suspension-failover.md` (admission,
//! suspension, failover); each rule's code cites the section it implements.

pub mod admission;
pub mod suspension;
// Cluster-centric freeze and its lifting (issue 9).
pub mod freeze;

// The claim engine (claim-and-preemption.md).
pub mod claim;
pub mod rank;
pub mod reconcile;
pub mod selector;
pub mod state;
pub mod simulate;
pub mod explain;
pub mod kinds;
// The live chain of one template: claim → binding → Works (issue 7).
pub mod chain;
