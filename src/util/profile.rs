//! Phase timings on stderr when `KARMADA_POLICY_TIMINGS` is set (a benchmarking aid, like the
//! hidden `lint --parse-only`; not a stable interface): milliseconds since the start, and the
//! process's memory from Linux `/proc`.

/// A stopwatch that prints a line per [`Clock::lap`], or nothing when timings are off.
pub struct Clock(Option<std::time::Instant>);

impl Clock {
    pub fn start() -> Clock {
        Clock(std::env::var_os("KARMADA_POLICY_TIMINGS").map(|_| std::time::Instant::now()))
    }

    pub fn lap(&self, phase: &str) {
        if let Some(start) = self.0 {
            let (now, peak) = rss_mb();
            eprintln!(
                "timing: {:>8.1} ms  {now:>5} MB ({peak:>5} MB peak)  {phase}",
                start.elapsed().as_secs_f64() * 1e3,
            );
        }
    }
}

/// The process's resident memory now and at its peak so far in MB (Linux `VmRSS`, `VmHWM`),
/// 0 where unknown.
fn rss_mb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
