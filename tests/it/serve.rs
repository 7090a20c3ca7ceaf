//! `tabula serve`: a game played over HTTP, one private link per human seat. These tests drive
//! the server as any client may (docs/serve.md): they read each seat's message, choose among its
//! options, and check that the game ends, that its log replays, that a seat is never sent a
//! piece it has not seen, that a wrong token gets nothing, and that silent or endless clients
//! hold up nobody. Whatever the server sends a seat is built by `tabula::seat_message`, which
//! the last tests compare for games that differ only in what the seat may not see.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tabula::log::{parse, replay_steps, rules_for};
use tabula::seat_message::{AskedNow, seat_message};
use tabula::secrecy::paired_games;
use tabula::view::view;
use tabula::{Game, LoadOptions, load};

/// `tabula serve` on a free port, stopped when dropped.
struct Server {
    child: Child,
    address: String,
    /// Each human seat's name and its link's path (`/seat/TOKEN/`).
    seats: Vec<(String, String)>,
}

impl Server {
    /// Starts `tabula serve` with `args` and reads the links it prints (`players` seats).
    fn start(args: &[&str], players: usize) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
            .arg("serve")
            .args(args)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("run tabula serve");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut lines: Vec<String> = Vec::new();
        // What comes before the links (`resuming ...`) is left out.
        while lines.len() <= players {
            let mut line = String::new();
            if out.read_line(&mut line).expect("a line") == 0 {
                break;
            }
            if !lines.is_empty() || line.contains("serving on") {
                lines.push(line);
            }
        }
        // The rest of the output (the end of the game) is read and dropped as it comes.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        // "NAME: serving on http://127.0.0.1:PORT/ (Ctrl-C stops)", then "  SEAT: LINK" or "  SEAT: AGENT".
        let address =
            lines[0].split("http://").nth(1).and_then(|r| r.split('/').next()).unwrap_or_default().to_string();
        let seats = lines[1..]
            .iter()
            .filter_map(|l| {
                let (seat, rest) = l.trim().split_once(": ")?;
                let path = rest.strip_prefix(&format!("http://{address}"))?;
                Some((seat.to_string(), path.to_string()))
            })
            .collect();
        Server { child, address, seats }
    }

    /// The link's path of a seat.
    fn link(&self, seat: &str) -> &str {
        &self.seats.iter().find(|(s, _)| s == seat).unwrap_or_else(|| panic!("no link for {seat}")).1
    }

    /// One request: (status, body).
    fn request(&self, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.address).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.address,
            body.len()
        );
        stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes())).expect("send");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let status = answer.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let body = answer.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
        (status, body)
    }

    /// A seat's message.
    fn state(&self, seat: &str) -> Value {
        let (status, body) = self.request("GET", &format!("{}state", self.link(seat)), "");
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"))
    }

    /// The seat's message once it asks the seat to choose: the first one may only tell what
    /// happened before (the game's first prompt comes a moment after the links are printed, and
    /// later on a busy machine).
    fn state_when_asked(&self, seat: &str) -> Value {
        let mut m = self.state(seat);
        for _ in 0..50 {
            if !m["asked"].is_null() {
                return m;
            }
            let version = m["version"].as_u64().unwrap_or(0);
            let (status, body) = self.request("GET", &format!("{}state?after={version}", self.link(seat)), "");
            assert_eq!(status, 200, "{body}");
            m = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        }
        panic!("{seat} was never asked: {m}")
    }

    /// Chooses option `option` of the message of version `version`: the status.
    fn act(&self, seat: &str, version: u64, option: usize) -> (u16, String) {
        self.request(
            "POST",
            &format!("{}act", self.link(seat)),
            &format!("{{\"version\":{version},\"option\":{option}}}"),
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn scratch(name: &str) -> PathBuf {
    crate::common::scratch_dir(&format!("serve-{name}"))
}

/// A small generator for the players' choices (the test's own, so that games repeat).
struct Choices(u64);

impl Choices {
    fn pick(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Whether `text` holds `name` as a whole name (not as a part of a longer one).
fn names(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(part) && !text[i + name.len()..].chars().next().is_some_and(part)
    })
}

/// For each seat of the game logged in `log_text`, the pieces it has not seen at any step so
/// far (never in its view): what nothing sent to it may name.
fn never_seen(log_text: &str, seats: &[&str]) -> Vec<BTreeSet<String>> {
    let log = parse(log_text, 0).expect("the log parses");
    let rules = Rc::new(rules_for(&log).expect("the log's rules"));
    let ids: Vec<u8> = seats.iter().map(|s| rules.seat(s).expect("a seat")).collect();
    let mut seen: Vec<BTreeSet<String>> = vec![BTreeSet::new(); seats.len()];
    let mut all = BTreeSet::new();
    let mut look = |game: &Game, _: Option<usize>, _: std::ops::Range<usize>| {
        for z in view(game, None).zones.values() {
            all.extend(z.pieces.iter().map(|p| p.name.clone()));
        }
        for (k, &seat) in ids.iter().enumerate() {
            for z in view(game, Some(seat)).zones.values() {
                seen[k].extend(z.pieces.iter().map(|p| p.name.clone()));
            }
        }
    };
    replay_steps(&log, rules.clone(), &mut look).expect("the log replays");
    seen.into_iter().map(|s| all.difference(&s).cloned().collect()).collect()
}

/// Plays the game served by `server` to its end: each human seat asked picks an option at
/// random. After each choice, checks that what each seat is sent (its message and its page's
/// data) names no piece it has not seen so far. Returns the outcome.
fn play_to_the_end(server: &Server, seats: &[&str], log: &std::path::Path, choices: &mut Choices) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut checked = 0;
    loop {
        assert!(Instant::now() < deadline, "the game did not end in time");
        let messages: Vec<Value> = seats.iter().map(|s| server.state(s)).collect();
        if let Some(outcome) = messages[0]["view"]["outcome"].as_str() {
            return outcome.to_string();
        }
        // Every few choices, what each seat was sent is held against what it has seen (the log
        // so far, replayed: the server writes it before it sends a message).
        if checked % 5 == 0 {
            let sent: Vec<String> = seats
                .iter()
                .zip(&messages)
                .map(|(seat, message)| {
                    let (status, data) = server.request("GET", &format!("{}data.json", server.link(seat)), "");
                    assert_eq!(status, 200);
                    format!("{message}\n{data}")
                })
                .collect();
            // Read after what was sent: in real time the game may have gone on meanwhile, and the
            // log then shows more, never less, than the seats were sent.
            let hidden = never_seen(&std::fs::read_to_string(log).expect("the log"), seats);
            for (k, seat) in seats.iter().enumerate() {
                for name in &hidden[k] {
                    assert!(!names(&sent[k], name), "{seat} was sent `{name}`, which it never saw");
                }
            }
        }
        checked += 1;
        let mut acted = false;
        for (k, seat) in seats.iter().enumerate() {
            let m = &messages[k];
            let n = m["options"].as_array().map_or(0, Vec::len);
            if m["asked"].is_null() || n == 0 {
                continue;
            }
            let (status, body) = server.act(seat, m["version"].as_u64().unwrap_or(0), choices.pick(n));
            // In real time a message may be outdated by the time the choice arrives.
            assert!(status == 200 || status == 409, "{status}: {body}");
            acted = true;
            break;
        }
        if !acted {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// `tabula replay LOG` accepts the log: (success, its output).
fn replays(log: &std::path::Path) -> (bool, String) {
    let (ok, out, err) = crate::common::tabula(&["replay", log.to_str().expect("path")], "");
    (ok, format!("{out}{err}"))
}

#[test]
fn two_people_play_east_berlin_over_http_and_its_log_replays() {
    let dir = scratch("east-berlin");
    let log = dir.join("game.log");
    let server = Server::start(&["east-berlin", "--seed", "11", "--log", log.to_str().unwrap()], 2);
    assert_eq!(server.seats.len(), 2, "a link per seat: {:?}", server.seats);
    let outcome = play_to_the_end(&server, &["exile", "police"], &log, &mut Choices(5));
    let (ok, replayed) = replays(&log);
    assert!(ok && replayed.contains(&format!("game over: {outcome}")), "{replayed}");
    // The end is told to both, and choices are refused from then on.
    let police = server.state("police");
    assert_eq!(police["view"]["outcome"].as_str(), Some(outcome.as_str()));
    assert_eq!(server.act("police", police["version"].as_u64().unwrap(), 0).0, 409);
}

#[test]
fn a_real_time_temple_game_with_an_agent_is_played_to_its_end() {
    let dir = scratch("temple");
    let log = dir.join("game.log");
    // Three adventurers, green an agent; the temple collapses after 20 s of game time, played
    // 20 times as fast as the wall clock.
    let args = ["temple", "--players", "3", "--seat", "green=heuristic", "--set", "collapse_ms=20000"];
    let server =
        Server::start(&[&args[..], &["--speed", "20", "--seed", "4", "--log", log.to_str().unwrap()]].concat(), 3);
    assert_eq!(server.seats.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(), ["red", "blue"]);
    let outcome = play_to_the_end(&server, &["red", "blue"], &log, &mut Choices(9));
    let (ok, replayed) = replays(&log);
    assert!(ok && replayed.contains(&format!("game over: {outcome}")), "{replayed}");
    let text = std::fs::read_to_string(&log).expect("log");
    assert!(text.lines().any(|l| l.starts_with("green ")), "the agent played:\n{text}");
    assert!(text.lines().any(|l| l.starts_with("red ")) && text.lines().any(|l| l.starts_with("blue ")), "{text}");
}

#[test]
fn a_stopped_server_resumes_from_its_log() {
    let dir = scratch("resume");
    let log = dir.join("game.log");
    let mut choices = Choices(3);
    {
        let server = Server::start(&["east-berlin", "--seed", "2", "--log", log.to_str().unwrap()], 2);
        let mut taken = 0;
        while taken < 6 {
            for seat in ["exile", "police"] {
                let m = server.state(seat);
                let n = m["options"].as_array().unwrap().len();
                if n > 0 {
                    assert_eq!(server.act(seat, m["version"].as_u64().unwrap(), choices.pick(n)).0, 200);
                    taken += 1;
                }
            }
        }
    }
    let before = std::fs::read_to_string(&log).expect("log");
    // The game goes on from the log, with new links, to its end, and the log is one game.
    let server = Server::start(&["--resume", log.to_str().unwrap()], 2);
    let outcome = play_to_the_end(&server, &["exile", "police"], &log, &mut choices);
    let after = std::fs::read_to_string(&log).expect("log");
    assert!(after.starts_with(&before), "the log was rewritten, not continued");
    let (ok, replayed) = replays(&log);
    assert!(ok && replayed.contains(&format!("game over: {outcome}")), "{replayed}");
}

/// A choice is in the log before the server answers it, or tells any page of it: a page that
/// reads the log (or a server stopped) right after the news finds the move there. (Test builds
/// of the server also check it at every message they publish: there, a message ahead of the log
/// stops the server, and every test of this file fails.)
#[test]
fn a_choice_is_in_the_log_before_it_is_answered() {
    let dir = scratch("logged-first");
    let log = dir.join("game.log");
    let server = Server::start(&["east-berlin", "--seed", "7", "--log", log.to_str().unwrap()], 2);
    let mut choices = Choices(8);
    let mut taken = 0;
    while taken < 20 {
        for seat in ["exile", "police"] {
            let m = server.state(seat);
            let n = m["options"].as_array().map_or(0, Vec::len);
            if m["asked"].is_null() || n == 0 {
                continue;
            }
            assert_eq!(server.act(seat, m["version"].as_u64().unwrap(), choices.pick(n)).0, 200);
            taken += 1;
            let text = std::fs::read_to_string(&log).expect("log");
            let logged = text.lines().filter(|l| l.starts_with("exile: ") || l.starts_with("police: ")).count();
            assert_eq!(logged, taken, "the log holds {logged} of the {taken} choices answered:\n{text}");
        }
    }
}

#[test]
fn a_wrong_or_missing_token_sees_nothing() {
    let server = Server::start(&["east-berlin", "--seed", "1"], 2);
    let good = server.link("exile").to_string();
    let wrong = format!("/seat/{}/", "0".repeat(32));
    for path in
        ["/", "/seat/", "/seat//state", "/data.json", &format!("{wrong}state"), &format!("{wrong}data.json"), &wrong]
    {
        let (status, body) = server.request("GET", path, "");
        assert_eq!(status, 404, "{path}: {body}");
        assert!(!body.contains("exile") && !body.contains("money"), "{path}: {body}");
    }
    let (status, _) = server.request("POST", &format!("{wrong}act"), "{\"version\":1,\"option\":0}");
    assert_eq!(status, 404);
    // A token differing in its last character is another token.
    let near = format!("{}x/state", &good[..good.len() - 2]);
    assert_eq!(server.request("GET", &near, "").0, 404);
    assert_eq!(server.request("GET", &format!("{good}state"), "").0, 200);
}

#[test]
fn bad_choices_are_refused_and_change_nothing() {
    let server = Server::start(&["east-berlin", "--seed", "1"], 2);
    let m = server.state_when_asked("exile");
    let version = m["version"].as_u64().unwrap();
    let act = |body: &str| server.request("POST", &format!("{}act", server.link("exile")), body);
    assert_eq!(act("{\"version\":").0, 400);
    assert_eq!(act(&format!("{{\"version\":{version},\"option\":999}}")).0, 400);
    assert_eq!(act(&format!("{{\"version\":{},\"option\":0}}", version + 7)).0, 409);
    // The police is not asked: its choice is refused.
    let police = server.state("police");
    assert!(police["asked"].is_null());
    assert_eq!(server.act("police", police["version"].as_u64().unwrap(), 0).0, 409);
    // A body past the limit is refused unread.
    let (status, _) = act(&format!("{{\"version\":{version},\"pad\":\"{}\"}}", "x".repeat(64 << 10)));
    assert_eq!(status, 413);
    assert_eq!(server.state("exile"), m, "a refused choice changed the game");
    // A long poll answers at once when the message is newer than the version given.
    let (status, body) = server.request("GET", &format!("{}state?after=0", server.link("exile")), "");
    assert_eq!((status, serde_json::from_str::<Value>(&body).unwrap()), (200, m));
}

#[test]
fn a_silent_client_or_an_endless_request_line_holds_up_no_seat() {
    let server = Server::start(&["east-berlin", "--seed", "1"], 2);
    let _silent: Vec<TcpStream> = (0..4).map(|_| TcpStream::connect(&server.address).expect("connect")).collect();
    let endless = TcpStream::connect(&server.address).expect("connect");
    let sender = std::thread::spawn(move || {
        let mut endless = endless;
        let chunk = vec![b'a'; 64 << 10];
        let _ = endless.write_all(b"GET /");
        for _ in 0..256 {
            if endless.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    std::thread::sleep(Duration::from_millis(100));
    for seat in ["exile", "police"] {
        let start = Instant::now();
        let (status, page) = server.request("GET", server.link(seat), "");
        assert!(status == 200 && page.contains("<!doctype html>"), "{status}");
        server.state(seat);
        assert!(start.elapsed() < Duration::from_secs(1), "{seat} waited {:?}", start.elapsed());
    }
    let _ = sender.join();
}

/// What `tabula serve` sends a seat (`seat_message`: its view, story, and options) is the same
/// in two games that differ only in what that seat may not see (`secrecy::paired_games`).
fn messages_keep_secrets(path: &str, players: u8, pairs: u64, steps: u64) -> usize {
    let rules = Rc::new(load(path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{path}: {e}")));
    let mut compared = 0;
    for seat in 0..players {
        for seed in 0..pairs {
            for (a, b) in paired_games(rules.clone(), players, seat, seed, seed % 2 == 1, steps).expect("pairs") {
                let message = |game: &Game| {
                    let legal = game.legal_actions(seat).unwrap_or_default();
                    let asked = if rules.pace.is_some() {
                        (!legal.is_empty()).then_some(AskedNow::RealTime)
                    } else {
                        game.acting().any(|s| s == seat).then_some(AskedNow::Turn)
                    };
                    serde_json::to_string(&seat_message(game, seat, 0, asked, &legal)).expect("json")
                };
                assert_eq!(message(&a), message(&b), "{path}: seat {seat}, seed {seed}");
                compared += 1;
            }
        }
    }
    compared
}

#[test]
fn what_the_server_sends_a_seat_keeps_the_other_seats_secrets() {
    let counts = [
        messages_keep_secrets("rulesets/east-berlin", 2, 6, 40),
        messages_keep_secrets("tests/fixtures/secrets", 2, 6, 40),
        messages_keep_secrets("rulesets/temple", 3, 2, 25),
    ];
    eprintln!("{counts:?}");
}

#[test]
fn a_seat_asked_out_of_turn_may_act_or_let_the_game_go_on() {
    let dir = scratch("interrupts");
    let log = dir.join("game.log");
    let server = Server::start(
        &["tests/fixtures/interrupts", "--players", "3", "--seed", "6", "--log", log.to_str().unwrap()],
        3,
    );
    let seats = ["red", "blue", "green"];
    let mut choices = Choices(8);
    let (mut passed, mut tripped) = (0, 0);
    let deadline = Instant::now() + Duration::from_secs(60);
    let outcome = loop {
        assert!(Instant::now() < deadline, "the game did not end in time");
        let messages: Vec<Value> = seats.iter().map(|s| server.state(s)).collect();
        if let Some(outcome) = messages[0]["view"]["outcome"].as_str() {
            break outcome.to_string();
        }
        let Some(m) = messages.iter().find(|m| !m["asked"].is_null()) else {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        let (seat, version) = (m["seat"].as_str().unwrap(), m["version"].as_u64().unwrap());
        let n = m["options"].as_array().unwrap().len();
        let act = |body: String| server.request("POST", &format!("{}act", server.link(seat)), &body);
        // The seats' messages are read one after the other: on a busy machine one may still be
        // the last action's while another is already the next one's. A choice from a message the
        // table has moved on from is refused as such (409), and the messages are read again.
        const MOVED_ON: u16 = 409;
        if m["asked"] == "out_of_turn" {
            // Letting the game go on is not an option on turn, only out of turn.
            if choices.pick(2) == 0 {
                match act(format!("{{\"version\":{version},\"pass\":true}}")).0 {
                    MOVED_ON => continue,
                    status => assert_eq!(status, 200),
                }
                passed += 1;
                continue;
            }
        } else {
            match act(format!("{{\"version\":{version},\"pass\":true}}")).0 {
                MOVED_ON => continue,
                status => assert_eq!(status, 400),
            }
        }
        match server.act(seat, version, choices.pick(n)).0 {
            MOVED_ON => continue,
            status => assert_eq!(status, 200),
        }
        tripped += usize::from(m["asked"] == "out_of_turn");
    };
    assert!(passed > 0 && tripped > 0, "passed {passed}, tripped {tripped}");
    let (ok, replayed) = replays(&log);
    assert!(ok && replayed.contains(&format!("game over: {outcome}")), "{replayed}");
}

#[test]
fn a_port_in_use_is_refused_before_the_log_is_begun() {
    let server = Server::start(&["east-berlin", "--seed", "1"], 2);
    let port = server.address.rsplit(':').next().expect("a port");
    let log = scratch("port").join("game.log");
    let (ok, _, err) =
        crate::common::tabula(&["serve", "east-berlin", "--port", port, "--log", log.to_str().unwrap()], "");
    assert!(!ok && err.contains(port), "{err}");
    assert!(!log.exists(), "the log was begun");
}
