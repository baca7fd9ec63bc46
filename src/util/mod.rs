//! Helpers with no knowledge of Karmada or Kubernetes: the bottom layer every other module may use.

pub mod duration;
pub mod parallel;
pub mod profile;
