//! The runtime's generic features, on a small ruleset made for them (tests/fixtures/features):
//! per-seat zones and counters, dice, shuffled decks, a board graph, timers on the game clock,
//! standing actions for several seats, `legal` hooks, variants, `--set`, and script limits.

use std::rc::Rc;

use tabula::event::Event;
use tabula::view::view;
use tabula::{Error, Game, LoadOptions, Rules};

const FIXTURE: &str = "tests/fixtures/features";

fn rules_with(options: LoadOptions) -> Rc<Rules> {
    Rc::new(tabula::load(FIXTURE, &options).unwrap_or_else(|e| panic!("{e}")))
}

fn rules() -> Rc<Rules> {
    rules_with(LoadOptions::default())
}

fn act(game: &mut Game, line: &str) -> Result<(), Error> {
    let action = game.parse_action(line)?;
    game.apply(&action)
}

fn counter(game: &Game, name: &str) -> i64 {
    game.state().counter(game.rules().counter(name).expect("counter"))
}

#[test]
fn per_seat_zones_and_counters_are_one_per_seat() {
    let rules = rules();
    for seat in ["red", "blue", "green"] {
        assert!(rules.zone(&format!("hand.{seat}")).is_some());
        assert!(rules.counter(&format!("score.{seat}")).is_some());
    }
    let game = Game::new(rules.clone(), 2, 1).expect("start");
    // Two players: red and blue were dealt `hand_size` cards each; green does not play.
    let hand = |seat: &str| game.state().count(rules.zone(&format!("hand.{seat}")).unwrap());
    assert_eq!((hand("red"), hand("blue"), hand("green")), (2, 2, 0));
    assert_eq!(game.state().count(rules.zone("deck").unwrap()), 3);
}

#[test]
fn player_count_outside_the_rules_is_refused() {
    let err = Game::new(rules(), 4, 1).expect_err("four players");
    assert!(err.to_string().contains("2 to 3 players"), "{err}");
}

#[test]
fn standing_actions_are_open_to_every_active_seat() {
    let game = Game::new(rules(), 3, 1).expect("start");
    let names: Vec<&str> = game.to_act().iter().map(|&s| game.rules().seats[s as usize].name.as_str()).collect();
    assert_eq!(names, ["red", "blue", "green"]);
    for seat in 0..3 {
        let legal = game.legal_actions(seat).expect("legal");
        let names: Vec<&str> = legal.iter().map(|a| game.rules().actions[a.action as usize].name.as_str()).collect();
        // `walk` is offered only to b, the one zone reachable from a.
        assert_eq!(names, ["roll", "draw", "walk", "spin"], "seat {seat}");
    }
}

#[test]
fn dice_rolls_are_seeded_and_within_the_faces() {
    // A goal out of reach, so that the game goes on for the three rolls.
    let rules = rules_with(LoadOptions { variants: vec![], overrides: vec![("goal".into(), "100".into())] });
    let play = |seed| {
        let mut game = Game::recorded(rules.clone(), 2, seed).expect("start");
        for _ in 0..3 {
            act(&mut game, "red: roll").expect("roll");
        }
        let rolls: Vec<i64> = game
            .events()
            .iter()
            .filter_map(|e| if let Event::Rolled { face, .. } = e { Some(*face) } else { None })
            .collect();
        (rolls, counter(&game, "score.red"))
    };
    let (a, score) = play(5);
    assert_eq!(a.len(), 3);
    assert!(a.iter().all(|f| (1..=6).contains(f)), "{a:?}");
    assert_eq!(score, a.iter().sum::<i64>());
    assert_eq!(play(5).0, a, "same seed, same rolls");
    assert_ne!((0..20).map(|s| play(s).0).collect::<std::collections::BTreeSet<_>>().len(), 1, "seeds differ");
}

#[test]
fn the_deck_is_shuffled_by_the_seed() {
    let deal = |seed| {
        let game = Game::recorded(rules(), 2, seed).expect("start");
        game.events()
            .iter()
            .find_map(|e| if let Event::Shuffled { order, .. } = e { Some(order.clone()) } else { None })
            .expect("a shuffle")
    };
    assert_eq!(deal(3), deal(3));
    assert!((0..10).any(|s| deal(s) != deal(3)));
}

#[test]
fn the_board_graph_respects_one_way_links() {
    let mut game = Game::new(rules(), 2, 1).expect("start");
    // a -> b is one way (a drop): from a, only b; from b, c (two-way) but not back to a.
    assert!(act(&mut game, "red: walk c").is_err());
    act(&mut game, "red: walk b").expect("a to b");
    let legal: Vec<String> =
        tabula::view::describe_options(&game, 0).into_iter().filter(|a| a.contains("walk")).collect();
    assert_eq!(legal, ["red: walk c"]);
    let err = act(&mut game, "red: walk a").expect_err("b to a is against the drop");
    assert!(err.to_string().contains("not legal"), "{err}");
}

#[test]
fn a_legal_hook_filters_and_the_refusal_changes_nothing() {
    let mut game = Game::new(rules(), 2, 1).expect("start");
    for _ in 0..3 {
        act(&mut game, "blue: draw").expect("a card is left");
    }
    let before = view(&game, None);
    let err = act(&mut game, "red: draw").expect_err("the deck is empty");
    assert!(matches!(err, Error::Illegal { .. }), "{err}");
    assert_eq!(view(&game, None), before);
}

#[test]
fn a_legal_hook_filters_the_destinations_a_move_action_lists() {
    // Variant `carry`: the pawn (in a) may be carried to any of a, b and c by a built-in move,
    // but the action's `legal` hook allows only c. Listing and applying must agree, although
    // the hook changes the map of arguments it is given (which the engine may fill in again
    // for the next call rather than build anew).
    let rules = rules_with(LoadOptions { variants: vec!["carry".into()], overrides: vec![] });
    let mut game = Game::new(rules, 2, 1).expect("start");
    let carry: Vec<String> =
        tabula::view::describe_options(&game, 0).into_iter().filter(|a| a.contains("carry")).collect();
    assert_eq!(carry, ["red: carry pawn c"]);
    assert!(act(&mut game, "red: carry pawn b").is_err());
    act(&mut game, "red: carry pawn c").expect("the hook allows c");
}

#[test]
fn timers_fire_in_order_as_the_clock_passes_them() {
    let mut game = Game::recorded(rules(), 2, 1).expect("start");
    game.advance_clock(999).expect("clock");
    assert_eq!(counter(&game, "ticks"), 0);
    game.advance_clock(2500).expect("clock");
    assert_eq!(counter(&game, "ticks"), 1);
    assert!(game.events().iter().any(|e| *e == Event::Note("tick at 1000".into())), "the hook saw the timer's time");
    assert!(!game.is_over());
    game.advance_clock(3000).expect("clock");
    assert_eq!(game.outcome(), Some("finished"), "the alarm at alarm_at = 3000 ends the game");
    assert!(game.advance_clock(100).is_err(), "the clock does not go back");
}

#[test]
fn a_runaway_script_is_stopped_and_leaves_the_game_unchanged() {
    let mut game = Game::new(rules(), 2, 1).expect("start");
    let before = view(&game, None);
    let err = act(&mut game, "red: spin 1").expect_err("endless loop");
    assert!(matches!(err, Error::Script(_)), "{err}");
    assert!(err.to_string().contains("operations"), "{err}");
    assert_eq!(view(&game, None), before);
}

#[test]
fn variants_and_overrides_change_parameters() {
    let quick = rules_with(LoadOptions { variants: vec!["quick".into()], overrides: vec![] });
    assert_eq!(quick.params["goal"], tabula::rules::ParamValue::Int(4));
    let game = Game::new(quick.clone(), 2, 1).expect("start");
    assert_eq!(game.state().count(quick.zone("hand.red").unwrap()), 1, "hand_size 1 in the quick variant");

    let set =
        rules_with(LoadOptions { variants: vec!["quick".into()], overrides: vec![("hand_size".into(), "0".into())] });
    let game = Game::new(set.clone(), 2, 1).expect("start");
    assert_eq!(game.state().count(set.zone("hand.red").unwrap()), 0, "--set applies after the variant");
    assert_ne!(set.fingerprint, quick.fingerprint);
    assert_ne!(quick.fingerprint, rules().fingerprint);

    let err = tabula::load(FIXTURE, &LoadOptions { variants: vec!["slow".into()], overrides: vec![] })
        .expect_err("no such variant");
    assert!(err.to_string().contains("expected one of carry, quick"), "{err}");
}

#[test]
fn scripts_misusing_the_api_get_errors_not_panics() {
    let rules = rules();
    let game = Game::new(rules.clone(), 2, 1).expect("start");
    // Actions written by hand are parsed against the rules.
    for bad in ["red roll", "purple: roll", "red: fly", "red: walk", "red: walk d", "red: spin x"] {
        assert!(game.parse_action(bad).is_err(), "{bad}");
    }
}

#[test]
fn script_helpers_search_lists_pick_dice_walk_links_rank_and_cross_lines() {
    let rules =
        Rc::new(tabula::load("tests/fixtures/helpers", &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")));
    let game = Game::recorded(rules, 1, 1).expect("start");
    let notes: Vec<&str> = game
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::Note(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        notes,
        [
            // A number is not found by its digits, nor a word by a number.
            "contains [true, true, false, true, false, true]",
            "index_of [2, 1, -1, -1]",
            // spot_3 shows 2, spot_1 shows 0, nothing else shows 0, spot_2 shows 1.
            r#"pick ["spot_3", "spot_1", "spot_2"]"#,
            // The first goal wins even when the second is nearer: first step, target, and the
            // steps to it (spot_1 -> spot_2 -> spot_3).
            r#"nearest ["spot_2", "spot_3"] in 2"#,
            // A goal no piece matches gives way to the next, one step away.
            r#"nearest ["spot_2", "spot_2"] in 1"#,
            r#"nearest ["spot_2", "spot_2"] in 1"#,
            "nearest ",
            // Best first; names tied on every key share a group, in the map's (sorted) order.
            r#"rank [["gold"], ["blue"], ["green", "red"]]"#,
            r#"rank [["a", "b", "c"]]"#,
            // One name; no names; no keys at all (a full tie).
            r#"rank [["solo"]] [] [["a", "b"]]"#,
            "rank error: rank: `a` must have an array of integers, not 3",
            "rank error: rank: `a` has a key that is not an integer: x",
            "rank error: rank: `a` has 2 keys and `b` 1: every name needs as many",
            "rank error: rank: `a` has a key that is not an integer: true",
            // Nothing crossed; several lines at once; downwards in decreasing order; reaching a
            // line crosses it going up, and leaving it crosses it going down; no move.
            "crossings [[], [3, 6, 9], [9, 6, 3], [6], [6], []]",
            // Unsorted lines are crossed in order of value, a line given twice twice; below zero.
            "crossings [[3, 3, 6, 9], [9, 6, 3, 3], [-3]]",
            "crossings error: crossings: the lines must be integers, not two",
            // `param(name, key)` gives what `param(name)[key]` gives.
            "param [5, 5, 9, (), ()]",
            "param error: parameter `prices` is a table: its keys are strings, not 1",
            "param error: parameter `lines` is a list of 3 items: no item 3",
            "param error: parameter `lines` is a list of 3 items: no item x",
            r#"param error: parameter `goal` is neither a table nor a list: read it with param("goal")"#,
            "param error: no parameter named `nothing`",
        ]
    );
}

/// A replica of loaded rules (what another thread loads its own copy from) gives the same rules
/// as the files were when read, variants, overrides and interpreted scripts included, even after
/// the files change, and on another thread.
#[test]
fn a_replica_loads_the_rules_as_they_were_read() {
    let dir = crate::common::scratch_dir("replica");
    std::fs::create_dir_all(dir.join("variants")).expect("scratch folder");
    for file in ["game.toml", "rules.rhai", "variants/carry.toml", "variants/carry.rhai"] {
        std::fs::copy(std::path::Path::new(FIXTURE).join(file), dir.join(file)).expect("copy");
    }
    let options = LoadOptions { variants: vec!["carry".into()], overrides: vec![("hand_size".into(), "1".into())] };
    let path = dir.to_str().expect("a path in UTF-8");
    let mut rules = tabula::load(path, &options).expect("the copy loads");
    rules.interpret_scripts();
    let replica = rules.replica();
    let toml = std::fs::read_to_string(dir.join("game.toml")).expect("game.toml");
    std::fs::write(dir.join("game.toml"), toml.replace("goal = 10", "goal = 7")).expect("write");
    let script = std::fs::read_to_string(dir.join("variants/carry.rhai")).expect("carry.rhai");
    std::fs::write(dir.join("variants/carry.rhai"), script + "\nfn added() { 1 }\n").expect("write");
    let now = tabula::load(path, &options).expect("the changed copy loads");
    assert_ne!(now.fingerprint, rules.fingerprint, "the files did change");
    let copy = std::thread::spawn(move || {
        let copy = replica.load().expect("the replica loads");
        (copy.fingerprint, copy.params["goal"].clone(), copy.script_functions_compiled(), copy.scripts_interpreted())
    })
    .join()
    .expect("the thread ends");
    let _ = std::fs::remove_dir_all(&dir);
    let functions = rules.script_functions_compiled();
    assert_eq!(copy, (rules.fingerprint, rules.params["goal"].clone(), functions, true));
    assert_eq!(copy.1, tabula::rules::ParamValue::Int(10));
    assert_ne!(now.script_functions_compiled().1, functions.1, "the variant's script changed");
}
