//! Command lines a user may type, however odd: each gives a clear error or does what it says,
//! and never crashes, hangs or plays something other than what was asked. The binary runs
//! under a deadline; a case that outlives it fails.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What `tabula` did with a command line.
struct Ran {
    /// The exit code (`None`: killed by a signal, an abort among them).
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `tabula args` with no input; kills it after `deadline`.
fn run(args: &[&str], deadline: Duration) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula");
    // Read both pipes on threads, so that a full pipe cannot stall the program.
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tabula {args:?} still ran after {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ran { code: status.code(), stdout: out.join().expect("stdout"), stderr: err.join().expect("stderr") }
}

/// The command fails with exit code 1 or 2 and a message holding `message`.
fn refused(args: &[&str], message: &str) {
    let ran = run(args, Duration::from_secs(60));
    assert!(matches!(ran.code, Some(1 | 2)), "tabula {args:?}: exit {:?}\n{}", ran.code, ran.stderr);
    assert!(ran.stderr.contains(message), "tabula {args:?} should say `{message}`:\n{}", ran.stderr);
}

/// The command succeeds; returns what it printed.
fn succeeds(args: &[&str]) -> String {
    let ran = run(args, Duration::from_secs(60));
    assert_eq!(ran.code, Some(0), "tabula {args:?}:\n{}", ran.stderr);
    ran.stdout
}

#[test]
fn a_sweep_over_every_integer_is_too_many_values_not_one() {
    // The distance between the ends once wrapped to nothing: one cell, the parameter ignored.
    refused(
        &["sweep", "east-berlin", "--set", "tunnel_length=-9223372036854775808..9223372036854775807", "--games", "1"],
        "18446744073709551616 values: at most 10000",
    );
}

#[test]
fn more_threads_than_games_or_cores_play_the_games_asked() {
    let out = succeeds(&["sim", "east-berlin", "--games", "3", "--threads", "1000", "--json"]);
    assert!(out.contains("\"games\":3,"), "{out}");
}

/// A script that fails in play is reported with its file, line and column, once, whichever
/// command played it and on however many threads.
#[test]
fn a_script_error_in_play_names_its_file_and_line_in_every_command() {
    let case = "tests/corpus/rulesets/script-throw";
    for args in [
        vec!["check", case],
        vec!["sim", case, "--games", "3", "--threads", "1"],
        vec!["sim", case, "--games", "3", "--threads", "2"],
        vec!["sweep", case, "--set", "rounds=1,2", "--games", "2", "--threads", "1"],
        vec!["sweep", case, "--set", "rounds=1,2", "--games", "2", "--threads", "2"],
        vec!["play", case, "--seat", "solo=random"],
    ] {
        let ran = run(&args, Duration::from_secs(60));
        assert_eq!(ran.code, Some(1), "tabula {args:?}:\n{}", ran.stderr);
        assert!(
            ran.stderr.starts_with("error: the table is not set (in hook `begin`)\n"),
            "tabula {args:?}: the error said once, first:\n{}",
            ran.stderr
        );
        assert!(ran.stderr.contains("script-throw/rules.rhai:3:5"), "tabula {args:?}: where:\n{}", ran.stderr);
        assert_eq!(ran.stderr.matches("error:").count(), 1, "tabula {args:?}:\n{}", ran.stderr);
    }
}

/// A log's header tag that does not fit is reported at its line by every command that reads
/// logs, worded as the tag is written (not as a command-line option).
#[test]
fn a_header_tag_that_does_not_fit_is_reported_at_its_line_by_every_command() {
    let log = "tests/corpus/logs/set-wrong-value.log";
    let out = crate::scratch_dir("cli-set-wrong-value").join("set-wrong-value.html");
    let out = out.to_str().expect("a path");
    for args in [vec!["replay", log], vec!["view", log, "--out", out], vec!["play", "--resume", log]] {
        let ran = run(&args, Duration::from_secs(60));
        assert_eq!(ran.code, Some(1), "tabula {args:?}:\n{}", ran.stderr);
        assert!(
            ran.stderr.starts_with("error: line 5: [set \"checkpoint_cost=abc\"]: expected an integer\n"),
            "tabula {args:?}:\n{}",
            ran.stderr
        );
        assert!(ran.stderr.contains("set-wrong-value.log:5:1"), "tabula {args:?}:\n{}", ran.stderr);
    }
    assert!(!std::path::Path::new(out).exists(), "no page is written for a log that does not fit");
}
