//! A parameter whose value is a set of pieces (`set = true`), on the fixture `tests/fixtures/sets`
//! ("Sixes": each seat re-rolls any one, two or three of its own three dice). The options are
//! every set the sizes allow, among the acting seat's own pieces; a log writes a set as its
//! pieces, one word each; scripts get and give it as a list of pieces; a seat's copy of a log
//! masks a secret set as one `?`.

use std::rc::Rc;

use tabula::event::describe_action;
use tabula::log::{ReplayOptions, parse, record, replay_with, seat_log};
use tabula::sim::{agents_for, play_out};
use tabula::{Game, LoadOptions, Rules};

use crate::common::notes_of;

const FIXTURE: &str = "tests/fixtures/sets";

fn rules(variants: &[&str]) -> Rc<Rules> {
    let options = LoadOptions { variants: variants.iter().map(|v| v.to_string()).collect(), ..LoadOptions::default() };
    Rc::new(tabula::load(FIXTURE, &options).unwrap_or_else(|e| panic!("{e}")))
}

fn options(game: &Game, seat: &str) -> Vec<String> {
    let seat = game.rules().seat(seat).expect("seat");
    game.legal_actions(seat).expect("lists").iter().map(|a| describe_action(game.rules(), a)).collect()
}

#[test]
fn the_options_are_every_set_of_the_seats_own_pieces_within_the_sizes() {
    let game = Game::new(rules(&[]), 2, 1).expect("starts");
    // Three dice, one to three of them: 3 + 3 + 1 sets, fewest first, then in piece order.
    assert_eq!(
        options(&game, "red"),
        [
            "red: reroll red_die_1",
            "red: reroll red_die_2",
            "red: reroll red_die_3",
            "red: reroll red_die_1 red_die_2",
            "red: reroll red_die_1 red_die_3",
            "red: reroll red_die_2 red_die_3",
            "red: reroll red_die_1 red_die_2 red_die_3",
        ]
    );
    assert!(options(&game, "blue").is_empty(), "red's turn: blue has nothing to decide");
}

#[test]
fn a_set_reaches_the_hook_as_a_list_of_its_pieces() {
    let mut game = Game::recorded(rules(&[]), 2, 1).expect("starts");
    let action = game.parse_action("red: reroll red_die_1 red_die_3").expect("parses");
    game.apply(&action).expect("legal");
    assert_eq!(notes_of(&game), ["reroll 2"]);
    let rolled: Vec<String> = game
        .events()
        .iter()
        .filter_map(|e| match e {
            tabula::event::Event::Rolled { piece, .. } => Some(game.rules().pieces[*piece as usize].name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(rolled, ["red_die_1", "red_die_3"]);
}

#[test]
fn sets_outside_the_domain_are_refused_with_the_reason() {
    let game = Game::new(rules(&[]), 2, 1).expect("starts");
    let refused = |line: &str| {
        let err = match game.parse_action(line) {
            Err(e) => e,
            Ok(action) => game.clone().apply(&action).expect_err(line),
        };
        err.to_string()
    };
    // Another seat's die, no die at all (the fewest is one), a die twice, no such piece.
    assert!(refused("red: reroll blue_die_1").contains("not legal"), "{}", refused("red: reroll blue_die_1"));
    assert!(refused("red: reroll").contains("not legal"));
    assert!(refused("red: reroll red_die_1 red_die_1").contains("red_die_1 is twice in the dice of reroll"));
    assert!(refused("red: reroll red_die_9").contains("`red_die_9` is not a valid dice for reroll"));
}

/// Random games written as logs read back to the same games: a set's words are its pieces.
#[test]
fn logs_of_sets_replay_to_the_same_game() {
    let rules = rules(&[]);
    for seed in 0..20 {
        let mut game = Game::recorded(rules.clone(), 2, seed).expect("starts");
        let mut agents = agents_for(&rules, "random", 2, seed).expect("agents");
        play_out(&mut game, &mut agents, 1000).expect("plays");
        let text = record(&game, Some(seed)).to_string();
        assert!(text.lines().any(|l| l.starts_with("red: reroll red_die_")), "{text}");
        let log = parse(&text, 0).expect("parses");
        let replay = replay_with(&log, rules.clone(), &ReplayOptions { record: true, ..ReplayOptions::default() })
            .unwrap_or_else(|e| panic!("seed {seed}: line {}: {}\n{text}", e.line, e.message));
        assert_eq!(replay.game.events(), game.events(), "seed {seed}");
        assert_eq!(record(&replay.game, Some(seed)).to_string(), text, "seed {seed}");
    }
}

/// The greedy agent (`act`) gives its set as a list of pieces: it keeps its sixes.
#[test]
fn an_agent_gives_a_set_as_a_list_of_pieces() {
    let rules = rules(&[]);
    let mut game = Game::recorded(rules.clone(), 2, 3).expect("starts");
    let mut agents = agents_for(&rules, "greedy", 2, 3).expect("agents");
    play_out(&mut game, &mut agents, 1000).expect("plays");
    assert!(game.is_over());
    let text = record(&game, Some(3)).to_string();
    let log = parse(&text, 0).expect("parses");
    replay_with(&log, rules, &ReplayOptions::default()).expect("the agent's sets are legal");
}

/// A secret set is one `?` in another seat's copy of the log: its pieces would tell how many
/// dice the seat rolled again, before the rolls do.
#[test]
fn a_secret_set_is_masked_as_one_word() {
    let rules = rules(&["secret"]);
    let mut game = Game::recorded(rules.clone(), 2, 5).expect("starts");
    let action = game.parse_action("red: reroll red_die_1 red_die_2").expect("parses");
    game.apply(&action).expect("legal");
    let log = record(&game, Some(5));
    let blue = seat_log(&log, rules.clone(), rules.seat("blue").expect("blue")).expect("blue's copy");
    let text = blue.to_string();
    assert!(text.lines().any(|l| l == "red: reroll ?"), "{text}");
    let red = seat_log(&log, rules.clone(), rules.seat("red").expect("red")).expect("red's copy");
    assert!(red.to_string().lines().any(|l| l == "red: reroll red_die_1 red_die_2"), "{red}");
}

/// An action may list its own options with a script (`options`), where listing every set and
/// filtering would be wasteful: the options are the script's, and an unlisted set is refused.
#[test]
fn an_actions_own_options_hook_lists_its_options() {
    let rules = rules(&["listed"]);
    let mut game = Game::recorded(rules.clone(), 2, 1).expect("starts");
    // Every die starts at 1: each alone, then the three that are not sixes.
    assert_eq!(
        options(&game, "red"),
        [
            "red: reroll red_die_1",
            "red: reroll red_die_2",
            "red: reroll red_die_3",
            "red: reroll red_die_1 red_die_2 red_die_3"
        ]
    );
    let unlisted = game.parse_action("red: reroll red_die_1 red_die_2").expect("parses");
    let err = game.clone().apply(&unlisted).expect_err("not listed");
    assert!(err.to_string().contains("not legal"), "{err}");
    let listed = game.parse_action("red: reroll red_die_1 red_die_2 red_die_3").expect("parses");
    game.apply(&listed).expect("listed");
    let mut agents = agents_for(&rules, "random", 2, 1).expect("agents");
    play_out(&mut game, &mut agents, 1000).expect("plays");
    let text = record(&game, Some(1)).to_string();
    let log = parse(&text, 0).expect("parses");
    replay_with(&log, rules, &ReplayOptions::default()).expect("replays");
}

/// An option that leaves a parameter out offers every value of it: the `options` hook lists
/// `#{}` for `reroll`, and the engine lists every set of the seat's dice, natively, in the order
/// it lists a set parameter's values (fewest first, then in piece order).
#[test]
fn an_option_that_leaves_a_parameter_out_offers_its_every_value() {
    let rules = rules(&["any"]);
    let mut game = Game::recorded(rules.clone(), 2, 1).expect("starts");
    let every = options(&Game::new(self::rules(&[]), 2, 1).expect("starts"), "red");
    assert_eq!(every.len(), 7);
    assert_eq!(options(&game, "red"), every);
    game.apply(&game.parse_action("red: reroll red_die_2").expect("parses")).expect("listed");
    // The second roll: the hook lists one set, written out.
    assert_eq!(options(&game, "red"), ["red: reroll red_die_1 red_die_2 red_die_3"]);
    let mut agents = agents_for(&rules, "random", 2, 1).expect("agents");
    play_out(&mut game, &mut agents, 1000).expect("plays");
    let log = parse(&record(&game, Some(1)).to_string(), 0).expect("parses");
    replay_with(&log, rules, &ReplayOptions::default()).expect("replays");
}
