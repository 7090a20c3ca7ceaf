//! Helpers shared by the integration tests: running the `tabula` binary, reading a game's notes.

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

/// The notes a game's scripts wrote (`game.note`), in order: how the fixtures of script natives
/// report what the natives returned.
pub fn notes_of(game: &tabula::Game) -> Vec<String> {
    game.events()
        .iter()
        .filter_map(|e| match e {
            tabula::event::Event::Note(text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}
