//! The replay viewer (`tabula view`): logs that made pages the size of their game squared, a log
//! named like a page, and clients of `--serve` that say nothing or too much. The pages are made
//! in process as `tabula view` makes them, under watch; the command itself is run for what
//! touches files and sockets.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::time::Duration;

use tabula::diag::{MAX_LOG_BYTES, Sources, render, render_diagnostics};
use tabula::log::{parse, rules_for, seat_log};
use tabula::viewer::{MAX_STEPS, Part, html, page};

use crate::guard::{Limits, guarded};

/// The page `tabula view LOG --seat SEAT` makes (`None`: for everyone), or the message that
/// says why there is none.
fn view_file(path: &Path, seat: Option<&str>) -> Result<String, String> {
    let mut sources = Sources::default();
    let file = sources.read(path, MAX_LOG_BYTES).map_err(|e| render(&e, &sources))?;
    let log = parse(sources.text(file), file).map_err(|d| render_diagnostics(&[*d], &sources))?;
    let rules = Rc::new(rules_for(&log).map_err(|e| render(&e.into_error(&sources, file), &sources))?);
    let players = log.int_tag("players").map_or(rules.players.0, |p| p as u8);
    let observers: Vec<Option<u8>> = match seat {
        Some(name) => vec![Some(rules.seat(name).expect("a seat of the game"))],
        None => std::iter::once(None).chain((0..players).map(Some)).collect(),
    };
    let made = page(&log, rules, players, &observers, Part::default(), "game.log");
    made.map(|p| html(&p)).map_err(|e| render_diagnostics(&[e.diagnostic(&sources, file)], &sources))
}

/// A scratch folder of the case's own.
fn scratch(case: &str) -> PathBuf {
    crate::scratch_dir(&format!("robustness-view-{case}"))
}

/// A Temple log of one adventurer that says nothing after its setup but `clock` lines, one
/// millisecond apart.
fn clock_lines(count: usize) -> String {
    let mut log = String::from("[ruleset \"temple\"]\n[players 1]\n[seats \"red\"]\n");
    log.push_str("* shuffle pile basic_7 basic_11 basic_2 basic_1 basic_3 basic_4 basic_5 basic_6 basic_8 basic_9 basic_10 basic_12 basic_13 gems_1 gems_2 gems_3 gems_4\n");
    for (die, face) in
        ["golden_mask", "black_mask", "black_mask", "adventurer", "adventurer", "key", "torch"].iter().enumerate()
    {
        log.push_str(&format!("* roll die_{} {face}\n", die + 1));
    }
    for ms in 1..=count {
        log.push_str(&format!("clock {:02}:{:02}.{:03}\n", ms / 60_000, ms / 1000 % 60, ms % 1000));
    }
    log
}

/// The header and setup of [`clock_lines`]: the first clock line is the next line.
const CLOCK_SETUP_LINES: usize = 11;

#[test]
fn a_6_player_team_game_makes_a_page_the_size_of_the_game() {
    // 2,935 actions. A game of 2,550 made a page of 42 MB for one seat (318 MB for everyone)
    // when each step held its whole view; each step now holds what changed, and a page stays
    // under 2 MB for one seat.
    let limits = Limits { time: Duration::from_secs(60), memory: 64 << 20 };
    let page =
        guarded("team game", limits, || view_file(Path::new("tests/corpus/logs/view-team-game.log"), Some("red")));
    let page = page.expect("the page is made");
    assert!(page.len() < 2 << 20, "the page for one seat takes {} bytes", page.len());
}

#[test]
fn five_thousand_clock_lines_make_a_page_the_size_of_the_game() {
    // 18 MB for one seat (72 MB for everyone) when each step held its whole view: 3.7 KB a
    // clock line. What changes at a clock line is the clock: 0.3 MB in all for this seat.
    let path = scratch("clock-5000").join("clock.log");
    std::fs::write(&path, clock_lines(5_000)).expect("write the log");
    let limits = Limits { time: Duration::from_secs(60), memory: 64 << 20 };
    let page = guarded("5000 clock lines", limits, move || view_file(&path, Some("red"))).expect("the page is made");
    assert!(page.len() < 500_000, "the page takes {} bytes, {} a clock line", page.len(), page.len() / 5_000);
}

#[test]
fn two_hundred_thousand_clock_lines_are_refused_with_the_part_a_page_holds() {
    // Killed after 65 s once, on its way to gigabytes; now refused before it is replayed.
    let path = scratch("clock-200000").join("clock.log");
    std::fs::write(&path, clock_lines(200_000)).expect("write the log");
    let shown = path.display().to_string();
    let limits = Limits { time: Duration::from_secs(30), memory: 128 << 20 };
    let refused = guarded("200000 clock lines", limits, move || view_file(&path, None)).expect_err("refused");
    let (over, last) = (CLOCK_SETUP_LINES + MAX_STEPS, CLOCK_SETUP_LINES + MAX_STEPS - 1);
    assert!(refused.contains(&format!("{shown}:{over}:1")), "{refused}");
    let part = format!(
        "a page holds at most {MAX_STEPS} steps (actions and clock lines), and this line would be one more: view a part of the log, as with --until {last}, then --from {over}"
    );
    assert!(refused.contains(&part), "{refused}");
}

#[test]
fn a_seat_s_copy_of_a_long_log_takes_time_in_proportion() {
    // A seat's page starts with the seat's copy of the log, made step by step: each step's lines
    // were found by a walk from the first step, and 200,000 clock lines took 10 s in a release
    // build before the page could begin (100,000 take under a second in a debug build now).
    let path = scratch("seat-copy").join("clock.log");
    std::fs::write(&path, clock_lines(100_000)).expect("write the log");
    let limits = Limits { time: Duration::from_secs(20), memory: 256 << 20 };
    let lines = guarded("seat copy of 100000 clock lines", limits, move || {
        let text = std::fs::read_to_string(&path).expect("the log");
        let log = parse(&text, 0).expect("parses");
        let rules = Rc::new(rules_for(&log).expect("rules"));
        seat_log(&log, rules, 0).expect("the seat's copy").entries.len()
    });
    // The setup's chance lines, the note of the two chambers it laid face up, every clock line.
    assert_eq!(lines, CLOCK_SETUP_LINES - 3 + 1 + 100_000);
}

/// Runs `tabula` with arguments; returns (success, stderr).
fn tabula(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).output().expect("run tabula");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_log_named_like_its_page_is_not_overwritten() {
    // A copy: were the log overwritten, the corpus would lose it.
    let dir = scratch("own-html");
    let log = dir.join("own.html");
    let text = std::fs::read_to_string("tests/corpus/logs/own.html").expect("corpus log");
    std::fs::write(&log, &text).expect("copy the log");
    let (ok, err) = tabula(&["view", log.to_str().unwrap()]);
    assert!(!ok, "tabula view made a page from own.html");
    assert!(
        err.contains(&format!("the page would overwrite the log {}: name the page with --out FILE", log.display())),
        "{err}"
    );
    // `--out` naming the log by another path is refused too.
    let other = dir.join(".").join("own.html");
    let (ok, err) = tabula(&["view", log.to_str().unwrap(), "--out", other.to_str().unwrap()]);
    assert!(!ok && err.contains("the page would overwrite the log"), "{err}");
    assert_eq!(std::fs::read_to_string(&log).expect("the log"), text, "the log was overwritten");
    // Any other name is written.
    let (ok, err) = tabula(&["view", log.to_str().unwrap(), "--out", dir.join("page.html").to_str().unwrap()]);
    assert!(ok, "{err}");
}

/// `tabula view LOG --serve` on a free port, stopped when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(log: &str) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .args(["view", log, "--serve", "--port", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run tabula view --serve");
        // "serving LOG on http://127.0.0.1:PORT/ (Ctrl-C stops)"
        let mut line = String::new();
        let _ = BufReader::new(child.stderr.take().expect("stderr")).read_line(&mut line);
        let address =
            line.split("http://").nth(1).and_then(|rest| rest.split('/').next()).unwrap_or_default().to_string();
        let server = Server { child, address };
        assert!(!server.address.ends_with(":0") && !server.address.is_empty(), "no address in `{line}`");
        server
    }

    /// A connection to the server that gives up reading after a few seconds.
    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(&self.address).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
        stream
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the server answered on `stream`, as text (what arrived before an error, if any).
fn answer(mut stream: &TcpStream) -> String {
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn a_client_that_says_nothing_does_not_hold_up_the_next() {
    let server = Server::start("tests/corpus/logs/own.html");
    let _silent = server.connect();
    let client = server.connect();
    (&client).write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").expect("send");
    let page = answer(&client);
    assert!(
        page.starts_with("HTTP/1.1 200 OK") && page.contains("<!doctype html>"),
        "{}",
        &page[..page.len().min(200)]
    );
}

#[test]
fn a_request_line_without_end_is_refused_unread() {
    let server = Server::start("tests/corpus/logs/own.html");
    let client = server.connect();
    // 32 MB without a newline, sent while the answer is awaited: the server answers after
    // 8 KB and closes, and the rest cannot be sent.
    let sending = client.try_clone().expect("clone");
    let sender = std::thread::spawn(move || {
        let mut sending = sending;
        let chunk = vec![b'a'; 1 << 20];
        let mut sent = 0;
        if sending.write_all(b"GET /").is_err() {
            return sent;
        }
        for _ in 0..32 {
            if sending.write_all(&chunk).is_err() {
                break;
            }
            sent += chunk.len();
        }
        sent
    });
    let answered = answer(&client);
    assert!(answered.starts_with("HTTP/1.1 431 Request Header Fields Too Large"), "{answered}");
    let _ = client.shutdown(std::net::Shutdown::Both);
    let sent = sender.join().expect("sender");
    assert!(sent < 32 << 20, "the server read all of the 32 MB");
}

#[test]
fn clients_past_the_most_served_at_once_are_told_to_come_back() {
    let server = Server::start("tests/corpus/logs/own.html");
    // 16 clients at once, saying nothing: the 17th is answered at once.
    let _silent: Vec<TcpStream> = (0..16).map(|_| server.connect()).collect();
    let client = server.connect();
    let answered = answer(&client);
    assert!(answered.starts_with("HTTP/1.1 503 Service Unavailable"), "{answered}");
}
