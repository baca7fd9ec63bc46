//! `kubectl-karmada_policy`: kubectl runs it as `kubectl karmada-policy`.

use std::process::ExitCode;

// Allocation-heavy (a positioned node per YAML value): see Cargo.toml and docs/performance.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    keep_small_pages();
    karmada_policy::cli::main()
}

/// Turns transparent huge pages off for this process. mimalloc asks for them (`MADV_HUGEPAGE`
/// on its arenas), and the kernel then backs a region touched once, even by a small block,
/// with a whole 2 MB page: peak memory of `lint` on 100,000 documents went from 116 to 145 MB
/// and that of `lint --base` from 133 to 182 MB, for no measurable gain in time
/// (docs/performance.md). Set from `main`: the first arena may be mapped (and advised) before,
/// and the process-wide flag overrides the advice. Other systems have no such setting.
/// With small pages, mimalloc's own return of freed memory (after its purge delay) is cheap
/// again: huge pages faulted back in were cleared 2 MB at a time, which is why this binary once
/// kept every freed page instead.
fn keep_small_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes one integer argument and changes only this process's
    // memory policy; an old kernel that does not know it answers EINVAL, which is harmless.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
