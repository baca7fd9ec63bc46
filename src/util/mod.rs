//! Helpers below every other layer: no knowledge of Karmada, policies or the command line.

pub mod profile;
