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

/// An empty scratch folder of this test process, `tabula-<name>-<process id>` in the system's
/// temporary folder. Whatever an earlier run left there is removed first: process ids repeat
/// (a fresh container gives the same ones each time), and a command that refuses to overwrite
/// earlier output must meet an empty folder.
pub fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
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

/// Makes sure a program the tests drive (tmux, say) is on this machine: installs its Debian
/// package when it is missing, as the README promises that `cargo test` needs nothing but the
/// Rust toolchain. A test that cannot get it fails, saying how to install it.
pub fn require_tool(program: &str, package: &str) {
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let present = || Command::new(program).arg("-V").output().is_ok_and(|o| o.status.success());
    if present() {
        return;
    }
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !apt(&["install", "-y", "-qq", package]) {
        apt(&["update", "-qq"]);
        apt(&["install", "-y", "-qq", package]);
    }
    assert!(present(), "this test needs `{program}`: install it (Debian: apt-get install {package})");
}

/// The folders of every shipped ruleset (each folder of `rulesets/` with a `game.toml`), sorted:
/// a test over them checks a new ruleset without naming it.
pub fn shipped_rulesets() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir("rulesets")
        .expect("rulesets")
        .map(|entry| entry.expect("entry").path())
        .filter(|dir| dir.join("game.toml").is_file())
        .map(|dir| dir.to_str().expect("utf-8 path").to_string())
        .collect();
    out.sort();
    out
}

/// Replays examples/logs/<ruleset>/<name> up to the line `back` lines before the first that
/// contains `mark` (0: that line included, 1: up to the line before it).
pub fn replay_example(ruleset: &str, name: &str, mark: &str, back: usize) -> tabula::Game {
    use tabula::log::{ReplayOptions, parse, replay_with, rules_for};
    let text = std::fs::read_to_string(format!("examples/logs/{ruleset}/{name}")).expect("log");
    let line = text.lines().position(|l| l.contains(mark)).unwrap_or_else(|| panic!("{mark} not in {name}")) + 1;
    let log = parse(&text, 0).expect("parses");
    let rules = std::rc::Rc::new(rules_for(&log).expect("rules"));
    let options = ReplayOptions { until_line: Some(line - back), record: false };
    replay_with(&log, rules, &options).unwrap_or_else(|e| panic!("line {}: {}", e.line, e.message)).game
}

/// Held by a test that turns the scripts' profile on and takes its rows
/// (`tabula::script::profile`): the rows are the process's, so two such tests at once would take
/// each other's.
pub static PROFILED: std::sync::Mutex<()> = std::sync::Mutex::new(());
