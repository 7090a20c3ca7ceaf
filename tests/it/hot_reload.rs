//! Hot reload: a designer edits the rules while a game is replayed (`replay --watch`) or played
//! (`play --watch`), and is told whether the game so far still fits them, and if not, where it
//! stops fitting.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A copy of the dice race in a scratch folder, to edit.
fn editable_dice_race(name: &str) -> PathBuf {
    let dir = crate::common::scratch_dir(&format!("reload-{name}"));
    let rules = dir.join("race");
    std::fs::create_dir_all(&rules).expect("scratch folder");
    for file in ["game.toml", "rules.rhai"] {
        std::fs::copy(Path::new("examples/rulesets/dice-race").join(file), rules.join(file)).expect("copy");
    }
    rules
}

/// Edits a file as a designer would, by replacing a line of it.
fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "`{from}` not in {}", path.display());
    std::fs::write(path, text.replace(from, to)).expect("write");
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula")
}

/// The lines a child writes, as they come.
fn lines_of(child: &mut Child) -> Receiver<String> {
    let (send, receive) = channel();
    let stdout = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// Reads lines until one contains `text`; returns everything read. Fails after 30 s of silence.
fn until(lines: &Receiver<String>, text: &str) -> String {
    let mut seen = String::new();
    loop {
        let line = lines.recv_timeout(Duration::from_secs(30)).unwrap_or_else(|_| panic!("no `{text}` in:\n{seen}"));
        seen.push_str(&line);
        seen.push('\n');
        if line.contains(text) {
            return seen;
        }
    }
}

#[test]
fn replay_watch_says_where_an_edited_rule_breaks_the_log() {
    let rules = editable_dice_race("replay");
    let log = "examples/rulesets/dice-race/short-race.log";
    let mut child = spawn(&["replay", log, "--ruleset", rules.to_str().unwrap(), "--watch"]);
    let lines = lines_of(&mut child);
    let first = until(&lines, "-- watching");
    assert!(first.contains("game over: red"), "{first}");
    // Busting on a 4: red's first roll (line 9: `* roll die 4`) now loses the turn, so red's
    // second roll, on line 10, is no longer red's to make.
    // (Edits change the file's length too: some file systems keep coarse modification times.)
    edit(&rules.join("game.toml"), "bust = 1 ", "bust = 4  ");
    let second = until(&lines, "-- watching");
    assert!(second.contains("game.toml changed: replaying under the rules as they are now"), "{second}");
    // A ruleset that does not load is reported, and the next good save picked up.
    edit(&rules.join("game.toml"), "bust = 4  ", "bust = = ");
    until(&lines, "-- watching");
    edit(&rules.join("game.toml"), "bust = = ", "bust = 1    ");
    let fourth = until(&lines, "-- watching");
    assert!(fourth.contains("game over: red"), "{fourth}");
    let _ = child.kill();
    let mut stderr = String::new();
    let _ = std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr);
    assert!(stderr.contains("error: line 10: red: turn roll not legal"), "{stderr}");
    assert!(stderr.contains("game.toml:"), "the broken save is shown at its place: {stderr}");
}

#[test]
fn play_watch_goes_on_under_the_edited_rules() {
    let rules = editable_dice_race("play");
    let log = rules.parent().unwrap().join("game.log");
    let args = ["play", rules.to_str().unwrap(), "--seat", "red=human", "--seat", "blue=random", "--seed", "7"];
    let mut child = spawn(&[&args[..], &["--watch", "--log", log.to_str().unwrap()]].concat());
    let lines = lines_of(&mut child);
    let mut input = child.stdin.take().expect("stdin");
    writeln!(input, "1").expect("answer");
    until(&lines, "red > ");
    // A higher goal: every turn so far is still played the same way.
    edit(&rules.join("game.toml"), "goal = 50", "goal = 60 ");
    writeln!(input, "1").expect("answer");
    let told = until(&lines, "-- reloaded the rules");
    assert!(told.contains("game.toml changed"), "{told}");
    assert!(told.contains("the game so far fits them, and goes on"), "a higher goal changes nothing so far: {told}");
    for _ in 0..400 {
        if writeln!(input, "1\n2").is_err() {
            break;
        }
    }
    drop(input);
    let rest = until(&lines, "seed 7");
    let _ = child.wait();
    assert!(rest.contains("game over: "), "{rest}");
    // The log was written anew under the new rules: it replays to the same end.
    let outcome = rest.split("game over: ").nth(1).and_then(|s| s.split_whitespace().next()).expect("an outcome");
    let replayed = Command::new(env!("CARGO_BIN_EXE_tabula")).args(["replay", log.to_str().unwrap()]).output();
    let replayed = replayed.expect("replay");
    let out = String::from_utf8_lossy(&replayed.stdout);
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stderr));
    assert!(out.contains(&format!("game over: {outcome}")), "{out}");
    let score: i64 = out
        .split("score.")
        .filter_map(|s| s.split_whitespace().nth(1)?.trim_end_matches(',').parse().ok())
        .max()
        .unwrap();
    assert!(score >= 60, "the game was won under the new goal: {out}");
}
