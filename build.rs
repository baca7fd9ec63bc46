//! Build metadata for `version -o json`: the git commit and the build date.
//!
//! The date is the commit's (or SOURCE_DATE_EPOCH's), not the clock's, so the same commit
//! builds the same binary. Outside a git checkout (a crates.io or container build without
//! .git) both fall back to "unknown" and SOURCE_DATE_EPOCH; KARMADA_POLICY_GIT_COMMIT overrides.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn main() {
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    println!("cargo:rerun-if-env-changed=KARMADA_POLICY_GIT_COMMIT");
    // Rebuild when HEAD moves (a branch ref or a detached HEAD).
    for file in ["HEAD", "logs/HEAD"] {
        if let Some(path) = git(&["rev-parse", "--git-path", file]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let commit = std::env::var("KARMADA_POLICY_GIT_COMMIT")
        .ok()
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    let epoch = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .or_else(|| git(&["log", "-1", "--format=%ct"]))
        .and_then(|s| s.parse::<i64>().ok());
    let date = match epoch {
        Some(secs) => {
            let (y, m, d) = civil(secs.div_euclid(86_400));
            format!("{y:04}-{m:02}-{d:02}")
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=KARMADA_POLICY_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=KARMADA_POLICY_BUILD_DATE={date}");
}
