//! Rulesets, variants and scripts from `tests/corpus/rulesets/`: each case is loaded and, if it
//! loads, played by random agents with every event recorded (as `tabula play --log` and replay
//! do). The test says what the user must get: the error's message and where it points.

use std::rc::Rc;

use tabula::LoadOptions;
use tabula::diag::{Sources, render};
use tabula::sim::{agents_for, play_out};

use crate::guard::{Limits, guarded};

/// What a user gets from a ruleset: the rendered error, or how the game ended.
#[derive(Debug)]
pub enum Outcome {
    /// Loading or playing failed with this message, as `tabula check` prints it.
    Refused(String),
    /// A game was played to this outcome.
    Played(String),
}

/// Loads a ruleset (with variants) and plays one recorded game with random agents.
pub fn load_and_play(dir: &str, variants: &[&str]) -> Outcome {
    let options = LoadOptions { variants: variants.iter().map(|v| v.to_string()).collect(), overrides: Vec::new() };
    let rules = match tabula::load(dir, &options) {
        Ok(rules) => Rc::new(rules),
        Err(e) => return Outcome::Refused(render(&e, &Sources::default())),
    };
    let players = rules.players.0;
    let played = tabula::Game::recorded(rules.clone(), players, 7).and_then(|mut game| {
        let mut agents = agents_for(&rules, "random", players, 7)?;
        play_out(&mut game, &mut agents, 10_000)?;
        Ok(game.outcome().unwrap_or("not over").to_string())
    });
    match played {
        Ok(outcome) => Outcome::Played(outcome),
        Err(e) => Outcome::Refused(render(&e, &rules.sources)),
    }
}

/// The case `tests/corpus/rulesets/<case>` gives an error containing `message`, pointing at
/// `place` (`file:line:` under the case's folder).
fn refused(case: &str, place: &str, message: &str) {
    refused_with(case, &[], place, message);
}

fn refused_with(case: &str, variants: &'static [&'static str], place: &str, message: &str) {
    let dir = format!("tests/corpus/rulesets/{case}");
    let outcome = guarded(case, Limits::default(), {
        let dir = dir.clone();
        move || load_and_play(&dir, variants)
    });
    let Outcome::Refused(text) = outcome else { panic!("{case}: expected an error, got {outcome:?}") };
    let place = format!("{dir}/{place}");
    assert!(text.contains(&place), "{case}: the error should point at {place}:\n{text}");
    assert!(text.contains(message), "{case}: the error should say `{message}`:\n{text}");
}

/// The case plays to the end: the engine accepts what it tries (clamping, as the rules say).
fn plays(case: &str, outcome: &str) {
    let dir = format!("tests/corpus/rulesets/{case}");
    match guarded(case, Limits::default(), move || load_and_play(&dir, &[])) {
        Outcome::Played(o) => assert_eq!(o, outcome, "{case}"),
        other => panic!("{case}: expected a game ending `{outcome}`, got {other:?}"),
    }
}

mod scripts {
    use super::{plays, refused};

    #[test]
    fn an_endless_loop_is_stopped_by_the_operation_limit() {
        refused(
            "script-endless-loop",
            "rules.rhai:2:1",
            "the script ran more than 2000000 operations (an endless loop?)",
        );
    }

    #[test]
    fn endless_recursion_is_stopped_by_the_call_depth_limit() {
        refused(
            "script-endless-recursion",
            "rules.rhai:6:1",
            "called each other more than 64 deep (an endless recursion?)",
        );
    }

    #[test]
    fn a_deeply_nested_expression_is_refused_when_compiled() {
        refused("script-deep-expression", "rules.rhai:3:", "Expression exceeds maximum complexity");
    }

    #[test]
    fn a_huge_string_is_stopped_by_the_string_size_limit() {
        refused("script-huge-string", "rules.rhai:2:1", "a script value grew too large: length of string above 10000");
    }

    #[test]
    fn a_huge_array_is_stopped_by_the_array_size_limit() {
        refused("script-huge-array", "rules.rhai:2:1", "a script value grew too large: size of array/blob above 10000");
    }

    #[test]
    fn a_map_grown_by_indexing_is_stopped_by_the_operation_limit() {
        refused("script-huge-map", "rules.rhai:4:1", "the script ran more than 2000000 operations");
    }

    #[test]
    fn a_huge_blob_is_refused_before_it_is_allocated() {
        refused("script-huge-blob", "rules.rhai:2:1", "a script value grew too large: size of array/blob above 10000");
    }

    #[test]
    fn big_strings_in_one_array_add_up_to_the_string_limit() {
        refused("script-array-of-big-strings", "rules.rhai:2:1", "too large: length of string above 10000");
    }

    #[test]
    fn arrays_nested_in_themselves_are_counted_through_the_nesting() {
        refused("script-nested-arrays", "rules.rhai:2:1", "too large: size of array/blob above 10000");
    }

    #[test]
    fn wrong_argument_types_name_the_function_and_the_types() {
        refused("script-wrong-argument-types", "rules.rhai:3:", "Function not found: move (Game, &str");
    }

    #[test]
    fn an_unknown_zone_is_named() {
        refused("script-unknown-zone", "rules.rhai:4:", "no zone named `tabel`");
    }

    #[test]
    fn an_unknown_piece_is_named() {
        refused("script-unknown-piece", "rules.rhai:3:", "no piece named `ghost`");
    }

    #[test]
    fn a_negative_piece_id_is_refused() {
        refused("script-negative-piece-id", "rules.rhai:3:", "-1 is not a piece id");
    }

    #[test]
    fn a_huge_piece_id_is_refused() {
        refused("script-huge-piece-id", "rules.rhai:3:", "9223372036854775807 is not a piece id");
    }

    #[test]
    fn an_unknown_property_is_named() {
        refused("script-unknown-property", "rules.rhai:4:", "marker has no property `colour`");
    }

    #[test]
    fn a_property_outside_its_range_is_refused() {
        refused("script-property-out-of-range", "rules.rhai:4:", "marker.level cannot be 99 (its range is 0 to 3)");
    }

    #[test]
    fn a_word_for_a_number_property_is_refused() {
        refused("script-property-wrong-type", "rules.rhai:4:", "marker.level takes an integer, not high");
    }

    #[test]
    fn an_unknown_counter_is_named() {
        refused("script-unknown-counter", "rules.rhai:3:", "no counter named `scores`");
    }

    #[test]
    fn extreme_counter_and_property_values_stop_at_the_ends_of_their_ranges() {
        plays("script-extreme-counter-values", "done");
    }

    #[test]
    fn a_random_number_below_zero_is_refused() {
        refused("script-random-out-of-range", "rules.rhai:3:", "random(-5): the range must be positive");
    }

    #[test]
    fn a_random_number_below_the_largest_integer_is_drawn() {
        plays("script-random-huge-range", "done");
    }

    #[test]
    fn rolling_a_piece_that_is_no_die_is_refused() {
        refused("script-roll-not-a-die", "rules.rhai:3:", "marker is not a die");
    }

    #[test]
    fn ending_with_an_unknown_outcome_is_refused() {
        refused("script-end-unknown-outcome", "rules.rhai:3:", "no outcome named `victory`");
    }

    #[test]
    fn asking_an_unknown_seat_is_refused() {
        refused("script-ask-unknown-seat", "rules.rhai:3:", "no seat named `nobody`");
    }

    #[test]
    fn asking_for_an_unknown_action_is_refused() {
        refused("script-ask-unknown-action", "rules.rhai:3:", "no action named `jump`");
    }

    #[test]
    fn asking_with_an_argument_of_the_wrong_kind_is_refused() {
        refused("script-ask-bad-argument", "rules.rhai:3:", "ask pick: token: expected a piece, found table");
    }

    #[test]
    fn a_flood_of_prompts_is_stopped() {
        refused("script-ask-flood", "rules.rhai:3:", "the script asked too much of the engine");
    }

    #[test]
    fn a_flood_of_notes_is_stopped_before_it_fills_memory() {
        refused("script-note-flood", "rules.rhai:5:", "the script asked too much of the engine");
    }

    #[test]
    fn a_flood_of_shuffles_is_stopped() {
        refused("script-shuffle-flood", "rules.rhai:3:", "the script asked too much of the engine");
    }

    #[test]
    fn integer_overflow_is_an_error() {
        refused("script-integer-overflow", "rules.rhai:4:", "Addition overflow");
    }

    #[test]
    fn division_by_zero_is_an_error() {
        refused("script-division-by-zero", "rules.rhai:4:", "Division by zero");
    }

    #[test]
    fn a_script_s_own_error_reaches_the_user() {
        refused("script-throw", "rules.rhai:3:", "the table is not set");
    }

    #[test]
    fn eval_is_no_way_around_the_operation_limit() {
        refused("script-eval", "rules.rhai:3:", "ran more than 2000000 operations");
    }
}
