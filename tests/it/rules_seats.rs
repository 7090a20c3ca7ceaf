//! Seats the rules play (`played_by = "rules"`): a dummy runner in `tests/fixtures/automaton`
//! joins two-player games only, is never given the turn, and answers every prompt with its first
//! legal option; logs leave its moves out, and a replay makes them again.

use std::rc::Rc;

use tabula::event::Event;
use tabula::log::{EntryKind, ReplayOptions, record, replay_with};
use tabula::view::view;
use tabula::{Game, LoadOptions, Rules};

fn rules() -> Rc<Rules> {
    Rc::new(tabula::load("tests/fixtures/automaton", &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")))
}

fn steps(game: &Game, seat: &str) -> i64 {
    let rules = game.rules();
    game.state().counter(rules.counter(&format!("steps.{seat}")).expect("a counter"))
}

fn act(game: &mut Game, text: &str) {
    let action = game.parse_action(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    game.apply_legal(&action).unwrap_or_else(|e| panic!("{text}: {e}"));
}

/// Each seat's name in `to_act`, after every action.
fn to_act(game: &Game) -> Vec<String> {
    game.to_act().iter().map(|&s| game.rules().seats[s as usize].name.clone()).collect()
}

#[test]
fn the_rules_answer_for_their_seat_with_its_first_legal_option() {
    let rules = rules();
    let dummy = rules.seat("dummy").expect("the dummy seat");
    let mut game = Game::recorded(rules.clone(), 2, 1).expect("starts");
    assert_eq!(to_act(&game), ["red"]);
    // Red runs 3: the dummy may run 2 or 3 (its legal hook refuses 1), and 2 comes first.
    act(&mut game, "red: run 3");
    assert_eq!((steps(&game, "red"), steps(&game, "dummy")), (3, 2));
    // Blue, with fewer steps, is next; the dummy is never among those to act, and has nothing
    // to decide: its prompts are answered before anyone could see them.
    assert_eq!(to_act(&game), ["blue"]);
    assert!(game.legal_actions(dummy).expect("lists").is_empty());
    let by_hand = game.parse_action("dummy: dummy_run 3").expect("parses");
    assert!(game.apply_legal(&by_hand).is_err(), "nobody may move the dummy but the rules");
    act(&mut game, "blue: run 1");
    act(&mut game, "blue: run 1");
    assert_eq!(steps(&game, "dummy"), 6);
    assert_eq!(game.outcome(), Some("dummy"));
    // Three answers by the rules, each an event of the dummy's.
    let by_rules: Vec<String> = game
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::Acted { action, by_rules: true, .. } => Some(tabula::event::describe_action(&rules, action)),
            _ => None,
        })
        .collect();
    assert_eq!(by_rules, ["dummy: dummy_run 2"; 3]);
}

#[test]
fn logs_leave_out_what_the_rules_did_and_a_replay_does_it_again() {
    let rules = rules();
    let mut game = Game::recorded(rules.clone(), 2, 1).expect("starts");
    for text in ["red: run 3", "blue: run 1", "blue: run 1"] {
        act(&mut game, text);
    }
    let log = record(&game, Some(1));
    let actions: Vec<String> = log
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Action { seat, name, args, .. } => Some(format!("{seat}: {name} {}", args.join(" "))),
            _ => None,
        })
        .collect();
    assert_eq!(actions, ["red: run 3", "blue: run 1", "blue: run 1"]);
    let text = log.to_string();
    assert!(text.contains("[seats \"red blue\"]"), "the header lists the players' seats:\n{text}");
    let replay = replay_with(&log, rules, &ReplayOptions::default()).expect("replays");
    assert_eq!(view(&replay.game, None), view(&game, None));
    assert_eq!(replay.game.outcome(), Some("dummy"));
}

#[test]
fn a_seat_the_rules_play_stays_out_of_player_counts_it_does_not_join() {
    let rules = rules();
    // Two player seats: the dummy does not count towards the players the game allows.
    assert_eq!(rules.players, (1, 2));
    let mut game = Game::recorded(rules, 1, 1).expect("starts");
    act(&mut game, "red: run 3");
    act(&mut game, "red: run 3");
    assert_eq!((steps(&game, "red"), steps(&game, "dummy")), (6, 0));
    assert_eq!(game.outcome(), Some("red"));
}
