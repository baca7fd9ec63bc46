//! `kubectl-karmada_policy`: kubectl runs it as `kubectl karmada-policy`.

use std::process::ExitCode;

// Allocation-heavy (a positioned node per YAML value): see Cargo.toml and README "Performance".
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    karmada_policy::cli::main()
}
