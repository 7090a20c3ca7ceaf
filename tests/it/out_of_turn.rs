//! Out-of-turn actions (a phase's `out_of_turn`), played on the fixture
//! `tests/fixtures/interrupts`: a race in turns where, between a seat's roll and its move, any
//! other seat may play its trip card. The game waits only for the seat on turn; the others are
//! offered their chance after each action, and letting it pass writes nothing.

use std::rc::Rc;

use tabula::agent::{Agent, ScriptAgent};
use tabula::event::describe_action;
use tabula::log::{ReplayOptions, parse, record, replay_with};
use tabula::sim::{play_out, random_agents};
use tabula::{Game, LoadOptions, Rules};

const FIXTURE: &str = "tests/fixtures/interrupts";

fn rules() -> Rc<Rules> {
    Rc::new(tabula::load(FIXTURE, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

/// A three-seat game dealt as `trip.log` deals it: red holds trip_1 and shield_1, blue trip_2
/// and shield_2, green trip_3 and shield_3.
fn dealt() -> Game {
    let text = "[ruleset \"interrupts\"]\n[players 3]\n[seats \"red blue green\"]\n[seed 1]\n\n\
                * shuffle deck trip_1 shield_1 trip_2 shield_2 trip_3 shield_3\n";
    let log = parse(text, 0).expect("parses");
    replay_with(&log, rules(), &ReplayOptions::default()).expect("replays").game
}

fn options(game: &Game, seat: &str) -> Vec<String> {
    let seat = game.rules().seat(seat).expect("seat");
    game.legal_actions(seat).expect("lists").iter().map(|a| describe_action(game.rules(), a)).collect()
}

/// A recorded three-seat game played to its end by `agents`, and its log.
fn played(rules: &Rc<Rules>, seed: u64, agents: &mut [Box<dyn Agent>]) -> (Game, tabula::log::Log) {
    let mut game = Game::recorded(rules.clone(), 3, seed).expect("starts");
    play_out(&mut game, agents, 10_000).expect("plays to the end");
    let log = record(&game, Some(seed));
    (game, log)
}

fn act(game: &mut Game, line: &str) {
    let action = game.parse_action(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    game.apply(&action).unwrap_or_else(|e| panic!("{line}: {e}"));
}

#[test]
fn a_seat_not_on_turn_may_trip_between_the_roll_and_the_move_and_the_game_waits_only_for_the_roller() {
    let mut game = dealt();
    assert_eq!(options(&game, "red"), ["red: roll"]);
    // Before the roll the trip card's `legal` hook refuses it: nobody has anything to do out of turn.
    assert!(options(&game, "blue").is_empty() && options(&game, "green").is_empty());
    act(&mut game, "red: roll");
    assert_eq!(options(&game, "red"), ["red: move"]);
    assert_eq!(options(&game, "blue"), ["blue: trip trip_2"]);
    assert_eq!(options(&game, "green"), ["green: trip trip_3"]);
    // The game waits for red alone: the others may act, but nobody waits for them.
    let red = game.rules().seat("red").unwrap();
    assert_eq!(game.to_act(), [red]);
    assert_eq!(game.out_of_turn_seats().collect::<Vec<_>>(), [1, 2]);
    // A card of one's own only: blue may not play green's.
    assert!(game.parse_action("blue: trip trip_3").and_then(|a| game.check_legal(&a)).is_err());
}

#[test]
fn the_prompt_an_out_of_turn_action_opens_is_answered_before_the_turn_goes_on() {
    let mut game = dealt();
    act(&mut game, "red: roll");
    act(&mut game, "green: trip trip_3");
    // Red's shield question comes before the move it was asked for first.
    assert_eq!(options(&game, "red"), ["red: shield use", "red: shield fall"]);
    // One trip a roll: blue may no longer trip.
    assert!(options(&game, "blue").is_empty());
    act(&mut game, "red: shield fall");
    assert_eq!(options(&game, "red"), ["red: move"]);
    act(&mut game, "red: move");
    let distance = tabula::view::view(&game, None).counters["distance.red"];
    assert_eq!(distance, 0, "the fall cost red its roll");
}

#[test]
fn a_hand_written_log_with_out_of_turn_lines_replays() {
    let (ok, out, err) = crate::common::tabula(&["replay", "tests/fixtures/interrupts/trip.log"], "");
    assert!(ok, "{out}{err}");
    // Red fell (0), blue kept its 5 with the shield; green is on turn.
    assert!(out.contains("to decide: green"), "{out}");
    assert!(out.contains("distance.red 0, distance.blue 5, distance.green 0"), "{out}");
}

#[test]
fn random_agents_trip_out_of_turn_and_every_game_replays_from_its_log() {
    let rules = rules();
    let mut trips = 0;
    for seed in 0..40 {
        let (game, log) = played(&rules, seed, &mut random_agents(3, seed));
        let text = log.to_string();
        trips += text.lines().filter(|l| l.contains(": trip ")).count();
        let replayed = replay_with(&log, rules.clone(), &ReplayOptions::default()).expect("replays");
        assert_eq!(replayed.game.outcome(), game.outcome(), "seed {seed}:\n{text}");
    }
    // A random agent takes its chance about as often as it lets it pass.
    assert!(trips > 10, "{trips} trips in 40 games");
}

#[test]
fn a_script_agent_lets_the_game_go_on_with_a_negative_answer() {
    // The fixture's `tripper` trips rolls of 5 or more only.
    let rules = rules();
    let mut seen = 0;
    for seed in 0..30 {
        let mut agents: Vec<Box<dyn Agent>> =
            (0..3).map(|_| Box::new(ScriptAgent::new(rules.clone(), "tripper").unwrap()) as Box<dyn Agent>).collect();
        let text = played(&rules, seed, &mut agents).1.to_string();
        let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty() && !l.starts_with('[')).collect();
        // The trip cards each seat holds, from the deal (two cards each from the top).
        let deck: Vec<&str> = lines[0].strip_prefix("* shuffle deck ").expect("the deal").split(' ').collect();
        let seats = ["red", "blue", "green"];
        let mut trips: Vec<usize> =
            (0..3).map(|k| deck[2 * k..2 * k + 2].iter().filter(|c| c.starts_with("trip")).count()).collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(roll) = line.strip_prefix("* roll die ") else { continue };
            let roller = lines[i - 1].strip_suffix(": roll").expect("a roll follows `roll`");
            let r = seats.iter().position(|s| *s == roller).unwrap();
            let next = lines.get(i + 1).copied().unwrap_or("");
            // The first seat after the roller holding a trip card is offered its chance first.
            let first = (1..3).map(|k| (r + k) % 3).find(|&s| trips[s] > 0);
            match first {
                Some(s) if roll.parse::<i64>().unwrap() >= 5 => {
                    assert!(
                        next.starts_with(&format!("{}: trip ", seats[s])),
                        "a {roll} not tripped by {}:\n{text}",
                        seats[s]
                    );
                    trips[s] -= 1;
                    seen += 1;
                }
                _ => assert!(!next.contains(": trip "), "tripped a {roll}:\n{text}"),
            }
        }
    }
    assert!(seen > 5, "{seen} trips");
}

#[test]
fn out_of_turn_actions_are_refused_in_a_real_time_game() {
    let dir = crate::common::scratch_dir("out-of-turn");
    let toml = std::fs::read_to_string(format!("{FIXTURE}/game.toml")).unwrap();
    std::fs::write(dir.join("game.toml"), toml.replace("start = \"deal\"", "start = \"deal\"\npace = 1000")).unwrap();
    std::fs::copy(format!("{FIXTURE}/rules.rhai"), dir.join("rules.rhai")).unwrap();
    let (ok, out, err) = crate::common::tabula(&["check", dir.to_str().unwrap()], "");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!ok, "{out}");
    assert!(err.contains("phase `turn` lists `out_of_turn` actions in a real-time game"), "{err}");
    assert!(err.contains("game.toml:"), "points at the line: {err}");
}

/// At the terminal a seat is asked for its chance out of turn, and Enter alone lets it pass.
#[test]
fn the_terminal_offers_a_chance_out_of_turn_and_enter_lets_it_pass() {
    // Seed 4 deals blue two trip cards; red, random, rolls first.
    let play = |input: &str, log: &std::path::Path| {
        let args = ["play", FIXTURE, "--seed", "4", "--players", "2", "--seat", "red=random", "--seat", "blue=human"];
        let mut args: Vec<&str> = args.to_vec();
        args.extend(["--log", log.to_str().unwrap(), "--force"]);
        let (ok, out, err) = crate::common::tabula(&args, input);
        assert!(ok, "{out}{err}");
        let written = std::fs::read_to_string(log).unwrap();
        let _ = std::fs::remove_file(log);
        (out, written)
    };
    let dir = std::env::temp_dir();
    let (out, log) = play(&"1\n".repeat(200), &dir.join(format!("tabula-oot-take-{}.log", std::process::id())));
    assert!(out.contains("You may act out of turn: type an option's number, or press Enter to let the game go on."));
    assert!(out.contains("waiting for: red\n  1. trip trip_1\n  2. trip trip_2"), "{out}");
    assert!(log.contains("blue: trip trip_1"), "{log}");
    let (out, log) = play(&"\n".repeat(200), &dir.join(format!("tabula-oot-pass-{}.log", std::process::id())));
    assert!(out.contains("You may act out of turn"), "{out}");
    assert!(!log.contains("blue: trip"), "{log}");
    assert!(log.contains("result "), "the game went on to its end: {log}");
}

/// What people are shown leaves out the bookkeeping (`shown = false`) and the seats that do not
/// play; the state keeps them, and the scripts read them.
#[test]
fn views_leave_out_bookkeeping_and_the_seats_not_in_the_game() {
    let game = Game::new(rules(), 2, 1).expect("starts");
    let all = tabula::view::view(&game, None);
    assert!(all.counters.contains_key("distance.red") && all.counters.contains_key("distance.blue"));
    assert!(!all.counters.contains_key("distance.green"), "green does not play: {:?}", all.counters);
    assert!(!all.counters.contains_key("tripped"), "bookkeeping: {:?}", all.counters);
    assert!(all.zones.contains_key("hand.blue") && !all.zones.contains_key("hand.green"));
    let text = all.render();
    assert!(!text.contains("green") && !text.contains("tripped"), "{text}");
    assert!(game.rules().counter("tripped").is_some(), "the state keeps the counter");
}
