//! Running the real binary from an integration test: the command, its output as text, and a
//! run with piped stdin (optionally with a hang guard). Include with `#[path = "support/run.rs"] mod run;`
//! (the test API server of `support/mod.rs` stays out of tests that do not need it).

#![allow(dead_code)] // each test file uses a different part

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_kubectl-karmada_policy");

/// The binary, run in the crate's directory, colour left to `--color` (no NO_COLOR), no
/// backtraces.
pub fn bin() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("NO_COLOR").env("RUST_BACKTRACE", "0");
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Starts the binary (in `dir`, else the test's directory) with `NO_COLOR` and `stdin` written.
fn spawn_piped(dir: Option<&Path>, args: &[&str], stdin: Option<&[u8]>) -> Child {
    let mut cmd = Command::new(BIN);
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    let mut child = cmd
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the binary");
    if let Some(bytes) = stdin {
        use std::io::Write;
        // The binary may stop reading early; a closed pipe is not the test's failure.
        let _ = child.stdin.take().expect("stdin").write_all(bytes);
    }
    child
}

/// Runs the binary with `NO_COLOR` and `stdin` (in `dir`, else the test's directory).
pub fn run_piped(dir: Option<&Path>, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let child = spawn_piped(dir, args, stdin);
    child.wait_with_output().expect("wait for the binary")
}

/// As [`run_piped`], but fails the test if the binary runs longer than 60 s.
pub fn run_piped_within_60s(dir: Option<&Path>, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = spawn_piped(dir, args, stdin);
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{args:?} hung for 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
