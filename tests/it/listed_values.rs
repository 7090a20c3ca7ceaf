//! Options given as lists, on the fixture `tests/fixtures/listed_values`: an `options` hook may
//! give a list of values for a parameter that takes one (`#{action: "step", pawn: "pawn", to:
//! ["b", "d"]}`), which stands for one option per value, in the list's order, the last listed
//! parameter's values fastest; an empty list for none. A set parameter's list is the set itself.
//! Phase hooks and an action's own hook read lists alike, and a value outside the parameter's
//! domain fails the listing with the action and parameter named, and lists standing for more
//! options than a list may hold fail it too.

use std::rc::Rc;

use tabula::event::describe_action;
use tabula::log::{ReplayOptions, parse, record, replay_with};
use tabula::sim::{agents_for, play_out_observed};
use tabula::{Game, LoadOptions, Rules};

const FIXTURE: &str = "tests/fixtures/listed_values";

fn rules(variants: &[&str]) -> Rc<Rules> {
    let options = LoadOptions { variants: variants.iter().map(|v| v.to_string()).collect(), ..LoadOptions::default() };
    Rc::new(tabula::load(FIXTURE, &options).unwrap_or_else(|e| panic!("{e}")))
}

/// The error of the first listing of a game of the fixture with `variant`.
fn listing_error(variant: &str) -> String {
    let game = Game::new(rules(&[variant]), 1, 1).expect("starts");
    let seat = game.rules().seat("red").expect("seat");
    game.legal_actions(seat).expect_err("the listing fails").to_string()
}

fn options(game: &Game) -> Vec<String> {
    let seat = game.rules().seat("red").expect("seat");
    game.legal_actions(seat).expect("lists").iter().map(|a| describe_action(game.rules(), a)).collect()
}

#[test]
fn a_list_for_a_parameter_that_takes_one_value_is_an_option_per_value() {
    let game = Game::new(rules(&[]), 1, 1).expect("starts");
    assert_eq!(
        options(&game),
        [
            // The pawn stands on `a`: the one square next to it.
            "red: step pawn b",
            // Two lists: every pair, `m` (the last parameter) fastest.
            "red: mark 1 7",
            "red: mark 1 8",
            "red: mark 1 9",
            "red: mark 2 7",
            "red: mark 2 8",
            "red: mark 2 9",
            // `#{action: "mark", n: [], m: 0}` lists nothing. A set's list is one set.
            "red: roll die_1 die_2",
        ]
    );
}

#[test]
fn the_lists_follow_the_game_and_an_actions_own_hook_reads_them_too() {
    let mut game = Game::new(rules(&[]), 1, 1).expect("starts");
    game.apply(&game.parse_action("red: step pawn b").expect("parses")).expect("listed");
    // The step asks for a jump, whose own hook lists `[#{to: ["e", "a"]}, #{to: ["c"]}]`.
    assert_eq!(options(&game), ["red: jump e", "red: jump a", "red: jump c"]);
    game.apply(&game.parse_action("red: jump c").expect("parses")).expect("listed");
    assert_eq!(&options(&game)[..1], ["red: step pawn b"]);
    assert_eq!(options(&game)[1], "red: step pawn d");
    // An action given no list is not listed, and is refused.
    let refused = game.parse_action("red: mark 3 7").map_err(|e| e.to_string()).and_then(|a| {
        let mut g = game.clone();
        g.apply(&a).map_err(|e| e.to_string())
    });
    assert!(refused.is_err(), "`mark 3 7` is in no list: {refused:?}");
}

#[test]
fn a_value_of_a_list_outside_the_domain_fails_the_listing_and_says_where() {
    // A word where an integer is taken.
    let error = listing_error("wrong");
    assert!(error.contains("options hook `wrong_choices`: mark: n: expected an integer, found one"), "{error}");
}

#[test]
fn games_of_listed_options_replay_and_agree_with_the_actions_own_checks() {
    let rules = rules(&[]);
    for seed in 1..=5 {
        let mut game = Game::recorded(rules.clone(), 1, seed).expect("starts");
        let mut agents = agents_for(&rules, "random", 1, seed).expect("agents");
        let red = rules.seat("red").expect("seat");
        let mut checked = 0;
        play_out_observed(&mut game, &mut agents, 100, &mut |game| {
            if !game.is_over() {
                assert_eq!(game.options_disagreement(red).expect("checks"), None);
                checked += 1;
            }
            Ok(())
        })
        .expect("plays");
        assert!(checked >= 5, "six actions end the game: {checked} listings checked");
        let log = parse(&record(&game, Some(seed)).to_string(), 0).expect("parses");
        replay_with(&log, rules.clone(), &ReplayOptions::default()).expect("replays");
    }
}

/// Lists multiply: two lists of 200 values stand for 40,000 options, more than a listing may
/// stand for (as many as a list may hold, 10,000), and the listing fails rather than growing
/// without bound.
#[test]
fn lists_that_stand_for_too_many_options_fail_the_listing() {
    let error = listing_error("many");
    assert!(error.contains("options hook `many_choices`: the options listed stand for more than 10000"), "{error}");
}
