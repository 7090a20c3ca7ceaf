//! Helpers shared by the integration tests that run the `tabula` binary.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `tabula` with arguments and standard input; returns (success, stdout, stderr).
pub fn tabula(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula");
    // The program may stop before it has read all the input; a closed pipe is not an error.
    let _ = child.stdin.take().expect("stdin").write_all(input.as_bytes());
    let out = child.wait_with_output().expect("wait");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
