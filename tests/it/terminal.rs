//! `tabula play` in a real terminal: tmux, driven with `send-keys` and read with `capture-pane`,
//! as a person at the keyboard sees it, scrollback included.
//!
//! Hot seat: two humans share one screen. When the screen is handed over, nothing of the
//! previous player's turns may be left anywhere the next player can scroll to. Terminals that
//! push a cleared screen into their scrollback (tmux does, by default) keep what was on it unless
//! the scrollback is erased after the clear.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::require_tool;

/// A tmux server of the test's own (its own socket), running one command in one pane.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `tabula` with `args` in a detached session of 120 x 40.
    fn start(name: &str, args: &[&str]) -> Tmux {
        require_tool("tmux", "tmux");
        let socket = format!("tabula-test-{}-{name}", std::process::id());
        let tmux = Tmux { socket };
        // The pane stays open after the game ends, so that its last screen can still be read.
        let mut command = vec![env!("CARGO_BIN_EXE_tabula").to_string()];
        command.extend(args.iter().map(|a| a.to_string()));
        let shell = format!("{}; sleep 60", command.join(" "));
        // A history long enough for every line of the test's turns (the default keeps 2,000).
        let out = tmux.run(&[
            "start-server",
            ";",
            "set-option",
            "-g",
            "history-limit",
            "100000",
            ";",
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            &shell,
        ]);
        assert!(out.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&out.stderr));
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux").args(["-L", &self.socket, "-f", "/dev/null"]).args(args).output().expect("run tmux")
    }

    /// What the pane shows now.
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p"]).stdout).into_owned()
    }

    /// Everything the player can scroll back to, and the screen.
    fn history(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-S", "-"]).stdout).into_owned()
    }

    fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend(keys);
        self.run(&args);
    }

    /// Waits until the last line written on the screen is one of `lines` (the program is waiting
    /// for the keyboard there), or the screen shows the game's end (its seed); returns the screen.
    fn wait_for_any(&self, lines: &[&str]) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            let last = written(&screen).last().copied().unwrap_or_default();
            if lines.contains(&last) || screen.contains("\nseed ") {
                return screen;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "waited for one of {lines:?}; the screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// The lines of a capture that hold something.
fn written(text: &str) -> Vec<&str> {
    text.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect()
}

/// Plays a hot-seat game of two humans, always taking the first option, through `handovers`
/// changes of player. At each hand-over the whole history must hold the hand-over message alone,
/// and once the next player has pressed Enter, nothing the previous player was shown.
fn hot_seat_keeps_each_screen(name: &str, args: &[&str], seats: [&str; 2], handovers: usize) {
    let tmux = Tmux::start(name, args);
    let mut holder: Option<&str> = None;
    let mut seen = 0;
    while seen < handovers {
        let handover = |s: &str| format!("Pass the screen to {s}, then press Enter.");
        let mut waits: Vec<String> = seats.iter().map(|s| handover(s)).collect();
        // A seat's prompt (capture-pane drops the space after it).
        waits.extend(seats.iter().map(|s| format!("{s} >")));
        let screen = tmux.wait_for_any(&waits.iter().map(String::as_str).collect::<Vec<_>>());
        // The seed is shown when the game is over.
        assert!(!screen.contains("\nseed "), "{name}: the game ended after {seen} hand-overs");
        let passing_to = seats.iter().find(|s| written(&screen).last() == Some(&handover(s).as_str()));
        let Some(&next) = passing_to else {
            // A decision of the holder's: take the first option, then wait for the program to have
            // read it (a new prompt or a hand-over), so that no prompt is answered twice.
            let is_prompt = |l: &&&str| seats.iter().any(|s| l.strip_prefix(s).is_some_and(|r| r.starts_with(" >")));
            let prompts = |history: &str| written(history).iter().filter(is_prompt).count();
            let before = prompts(&tmux.history());
            tmux.send(&["1", "Enter"]);
            let start = Instant::now();
            loop {
                let history = tmux.history();
                let last = written(&history).last().map(|l| l.to_string()).unwrap_or_default();
                if prompts(&history) > before || last.starts_with("Pass the screen") || history.contains("\nseed ") {
                    break;
                }
                assert!(start.elapsed() < Duration::from_secs(20), "{name}: the answer was not read:\n{history}");
                std::thread::sleep(Duration::from_millis(10));
            }
            continue;
        };
        let history = tmux.history();
        assert_eq!(
            written(&history),
            vec![handover(next).as_str()],
            "{name}: at the hand-over to {next}, the terminal's history holds more than the hand-over"
        );
        tmux.send(&["Enter"]);
        tmux.wait_for_any(&[&format!("{next} >")]);
        if let Some(previous) = holder.filter(|&p| p != next) {
            let history = tmux.history();
            for line in written(&history) {
                assert!(
                    !line.contains(&format!("view of {previous}")) && !line.starts_with(&format!("{previous} >")),
                    "{name}: {next} can scroll back to {previous}'s screen: {line}\nthe whole history:\n{history}"
                );
            }
            seen += 1;
        }
        holder = Some(next);
    }
}

#[test]
fn east_berlin_hot_seat_leaves_nothing_in_the_scrollback() {
    hot_seat_keeps_each_screen(
        "east-berlin",
        &["play", "east-berlin", "--seed", "7", "--seat", "exile=human", "--seat", "police=human"],
        ["exile", "police"],
        3,
    );
}

#[test]
fn dig_your_way_out_hot_seat_leaves_nothing_in_the_scrollback() {
    hot_seat_keeps_each_screen(
        "blackgate",
        &["play", "blackgate", "--players", "2", "--seed", "7", "--seat", "red=human", "--seat", "blue=human"],
        ["red", "blue"],
        3,
    );
}
