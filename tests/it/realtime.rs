//! Real-time play and agents written in a ruleset's scripts, on a small ruleset made for them
//! (tests/fixtures/realtime): seats act at their agent's pace, timers fire between actions, a
//! phase's `options` hook lists the legal actions, and a script agent sees only its seat's view.

use crate::common::tabula;

use std::rc::Rc;

use tabula::log::{EntryKind, ReplayOptions, record, replay_with};
use tabula::sim::{SimOptions, agents_for, play_out, simulate};
use tabula::{Error, Game, LoadOptions, Rules};

fn rules() -> Rc<Rules> {
    Rc::new(tabula::load("tests/fixtures/realtime", &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

fn play(agent: &str, seed: u64) -> Result<Game, Error> {
    let rules = rules();
    let mut game = Game::recorded(rules.clone(), 2, seed)?;
    let mut agents = agents_for(&rules, agent, 2, seed)?;
    play_out(&mut game, &mut agents, 10_000)?;
    Ok(game)
}

/// The log lines of a game of seed 1 with `tokens` tokens, every seat played by `agent`.
fn play_with_tokens(tokens: u32, agent: &str) -> Result<Vec<String>, Error> {
    let overrides = vec![("tokens".into(), tokens.to_string())];
    let rules = Rc::new(tabula::load("tests/fixtures/realtime", &LoadOptions { variants: vec![], overrides })?);
    let mut game = Game::recorded(rules.clone(), 2, 1)?;
    let mut agents = agents_for(&rules, agent, 2, 1)?;
    play_out(&mut game, &mut agents, 10_000)?;
    Ok(record(&game, Some(1)).entries.iter().map(|e| e.to_string()).collect())
}

#[test]
fn seats_act_at_their_pace_with_ties_to_the_earlier_seat() {
    let game = play("eager", 1).expect("plays");
    let log = record(&game, Some(1));
    let lines: Vec<String> = log.entries.iter().map(|e| e.to_string()).collect();
    // pace_ms = 15000: red and blue act at 0:00, 0:15, ... ; red first at each tie.
    assert_eq!(lines[0], "red 00:00.000: take");
    assert_eq!(lines[1], "blue 00:00.000: take");
    assert_eq!(lines[2], "red 00:15.000: take");
    // The gong at 1:00 fires before the actions of 1:00; the end at 2:00 stops the game.
    let gong = lines.iter().position(|l| l == "clock 01:00.000 # gong").expect("the gong");
    assert_eq!(lines[gong + 1], "red 01:00.000: take");
    assert_eq!(&lines[lines.len() - 2..], ["clock 02:00.000 # end", "result time_up"]);
    // 8 turns of each seat before 2:00, every one a take while tokens last (20 tokens).
    assert_eq!(log.action_count(), 16);
    let gongs = game.state().counter(game.rules().counter("gongs").unwrap());
    assert_eq!(gongs, 1);
}

#[test]
fn a_real_time_log_replays_with_its_times_and_clock_lines() {
    let game = play("eager", 2).expect("plays");
    let log = record(&game, Some(2));
    assert!(log.entries.iter().any(|e| matches!(e.kind, EntryKind::Clock(60_000))));
    let replay = replay_with(&log, rules(), &ReplayOptions::default()).expect("replays");
    assert_eq!(replay.game.outcome(), Some("time_up"));
    assert_eq!(tabula::view::view(&replay.game, None), tabula::view::view(&game, None));
}

#[test]
fn the_options_hook_decides_which_standing_actions_are_legal() {
    let rules = rules();
    let mut game = Game::new(rules.clone(), 2, 1).expect("start");
    let names = |g: &Game| -> Vec<String> { tabula::view::describe_options(g, 0) };
    assert_eq!(names(&game), ["red: rest", "red: take"]);
    for _ in 0..20 {
        let take = game.parse_action("red: take").unwrap();
        game.apply(&take).expect("a token is left");
    }
    // The pool is empty: the hook no longer lists `take`, so it is refused.
    assert_eq!(names(&game), ["red: rest"]);
    let err = game.apply(&game.parse_action("red: take").unwrap()).expect_err("nothing to take");
    assert!(matches!(err, Error::Illegal { .. }), "{err}");
}

#[test]
fn a_script_agent_cannot_see_another_seats_secret() {
    let err = play("peeker", 1).expect_err("the view refuses");
    let text = err.to_string();
    assert!(text.contains("is not a piece this seat can see"), "{text}");
    assert!(!text.contains("showed another seat's secret"), "{text}");
}

#[test]
fn sim_uses_the_default_agent_or_the_one_named() {
    let report = simulate(rules(), &SimOptions { games: 5, ..SimOptions::default() }, &mut |_| {}).expect("sim");
    assert_eq!(report.agent, "eager");
    assert_eq!(report.decisions_per_game, 16.0);
    let random = SimOptions { games: 5, agent: Some("random".into()), ..SimOptions::default() };
    assert_eq!(simulate(rules(), &random, &mut |_| {}).expect("sim").agent, "random");
    let (ok, _, err) = tabula(&["sim", "tests/fixtures/realtime", "--agent", "genius"], "");
    assert!(!ok);
    assert!(
        err.contains("no agent `genius` in realtime: expected one of random, search, eager, grabber, cheat, peeker"),
        "{err}"
    );
    // Said once, not wrapped by the run that failed ("error: error: no agent ...").
    assert!(err.starts_with("error: no agent") && !err.contains("error: error"), "{err}");
}

#[test]
fn a_seat_whose_action_changed_nothing_waits_until_something_happens() {
    let lines = play_with_tokens(4, "eager").expect("plays");
    // Four tokens are taken; then resting changes nothing, so both seats wait: nobody is asked
    // at 0:45, only after the gong at 1:00 changes something, and not again before the end.
    assert_eq!(
        lines,
        [
            "red 00:00.000: take",
            "blue 00:00.000: take",
            "red 00:15.000: take",
            "blue 00:15.000: take",
            "red 00:30.000: rest",
            "blue 00:30.000: rest",
            "clock 01:00.000 # gong",
            "red 01:00.000: rest",
            "blue 01:00.000: rest",
            "clock 02:00.000 # end",
            "result time_up",
        ]
    );
}

#[test]
fn an_act_agent_returns_its_action_and_waits_when_it_has_none() {
    let lines = play_with_tokens(3, "grabber").expect("plays");
    // No option is ever listed: the agent returns `take`, the engine checks it with the `legal`
    // hook. With the pool empty it returns `()` and waits, until the gong changes something.
    assert_eq!(
        lines,
        [
            "red 00:00.000: take",
            "blue 00:00.000: take",
            "red 00:15.000: take",
            "clock 01:00.000 # gong",
            "clock 02:00.000 # end",
            "result time_up"
        ]
    );
}

#[test]
fn an_act_agent_taking_an_illegal_action_is_stopped_with_the_reason() {
    let err = play_with_tokens(1, "cheat").expect_err("the second take is refused").to_string();
    assert!(err.contains("the agent of blue took an illegal action") && err.contains("blue: take"), "{err}");
}

#[test]
fn seats_share_the_table_part_of_their_sight_only_when_they_see_the_table_alike() {
    use tabula::view::{sight_is_shared, table_fingerprint};
    let load = |name: &str| Rc::new(tabula::load(name, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")));
    // Temple: everything lies open, so every seat sees the same table, and the scheduler may
    // fingerprint it once for all of them.
    let temple = load("rulesets/temple");
    assert!(sight_is_shared(&temple));
    let game = Game::new(temple, 4, 3).expect("start");
    let tables: Vec<u64> = (0..4).map(|s| table_fingerprint(&game, s)).collect();
    assert!(tables.windows(2).all(|w| w[0] == w[1]), "{tables:?}");
    // East Berlin: each side holds a hand the other cannot see, so each has a table of its own.
    let east_berlin = load("rulesets/east-berlin");
    assert!(!sight_is_shared(&east_berlin));
    let game = Game::new(east_berlin, 2, 3).expect("start");
    assert_ne!(table_fingerprint(&game, 0), table_fingerprint(&game, 1));
}

/// In real time a prompt holds only the seat it asks: while red decides whether to keep the
/// token it took, blue goes on taking tokens, and answers its own prompt in its own time.
#[test]
fn a_prompt_in_real_time_holds_only_the_seat_it_asks() {
    let options = LoadOptions { variants: vec!["ask".into()], ..LoadOptions::default() };
    let rules = Rc::new(tabula::load("tests/fixtures/realtime", &options).unwrap_or_else(|e| panic!("{e}")));
    let mut game = Game::new(rules.clone(), 2, 1).expect("starts");
    let (red, blue) = (rules.seat("red").unwrap(), rules.seat("blue").unwrap());
    let names = |game: &Game, seat| -> Vec<String> {
        game.legal_actions(seat)
            .expect("lists")
            .iter()
            .map(|a| tabula::event::describe_action(game.rules(), a))
            .collect()
    };
    let act = |game: &mut Game, line: &str| {
        let action = game.parse_action(line).expect("parses");
        game.apply(&action).unwrap_or_else(|e| panic!("{line}: {e}"));
    };
    act(&mut game, "red: take");
    assert_eq!(names(&game, red), ["red: keep keep", "red: keep return"], "red decides");
    assert_eq!(names(&game, blue), ["blue: rest", "blue: take"], "blue plays on");
    assert_eq!(game.to_act(), [red, blue]);
    act(&mut game, "blue: take");
    assert_eq!(names(&game, blue), ["blue: keep keep", "blue: keep return"]);
    // Red's standing actions wait for its answer; an answer out of turn is refused.
    let err = game.apply(&game.parse_action("red: take").expect("parses")).expect_err("red must answer first");
    assert!(err.to_string().contains("not legal"), "{err}");
    act(&mut game, "blue: keep return");
    act(&mut game, "red: keep keep");
    assert_eq!(names(&game, red), ["red: rest", "red: take"]);
    let taken = |seat: &str| game.state().count(rules.zone(&format!("taken.{seat}")).unwrap());
    assert_eq!((taken("red"), taken("blue")), (1, 0));
    // Simulated games with both seats asked replay from their logs.
    for seed in 0..5 {
        let mut game = Game::recorded(rules.clone(), 2, seed).expect("starts");
        let mut agents = agents_for(&rules, "random", 2, seed).expect("agents");
        play_out(&mut game, &mut agents, 10_000).expect("plays");
        let log = record(&game, Some(seed));
        replay_with(&log, rules.clone(), &ReplayOptions::default()).expect("replays");
    }
}
