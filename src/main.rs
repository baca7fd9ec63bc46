//! `kubectl-karmada_policy`: kubectl runs it as `kubectl karmada-policy`.

use std::os::raw::{c_int, c_long};
use std::process::ExitCode;

// Allocation-heavy (a positioned node per YAML value): see Cargo.toml and docs/performance.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// mimalloc's option API (libmimalloc-sys declares it only with its `extended` feature, which
// pulls in another crate for two C types).
extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
}

/// `mi_option_purge_delay` in mimalloc's `mi_option_e`: 15 in both v2 and v3 (libmimalloc-sys
/// 0.1.49 builds v3 here: `MIMALLOC_VERBOSE=1` lists the options in enum order).
const MI_OPTION_PURGE_DELAY: c_int = 15;

fn main() -> ExitCode {
    // `lint` parses file after file, letting each tree go: by default mimalloc hands freed
    // memory back to the OS after 10 ms, and the next file faults it in again, which the kernel
    // serves with zeroed 2 MB huge pages: a third of a 100,000-document run went to clearing
    // pages. The process is short-lived, so keep freed memory for reuse (peak memory is the same).
    // SAFETY: setting an option is thread-safe and valid at any time; 15 and -1 are in range.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    karmada_policy::cli::main()
}
