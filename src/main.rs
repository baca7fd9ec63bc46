//! `kubectl-karmada_policy`: kubectl runs it as `kubectl karmada-policy`.

use std::process::ExitCode;

fn main() -> ExitCode {
    karmada_policy::cli::main()
}
