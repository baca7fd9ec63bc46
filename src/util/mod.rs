//! Helpers with no knowledge of Karmada or Kubernetes: the bottom layer every other module may use.

pub mod duration;
pub mod parallel;
pub mod profile;
pub mod time;

/// Prints `warning: TEXT` on stderr, kubectl's form (a closed stderr is ignored).
pub fn warn(text: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "warning: {text}");
}
