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
    load_and_play_on(dir, variants, false)
}

/// [`load_and_play`], with the scripts compiled or on Rhai's interpreter.
fn load_and_play_on(dir: &str, variants: &[&str], interpret: bool) -> Outcome {
    let options = LoadOptions { variants: variants.iter().map(|v| v.to_string()).collect(), overrides: Vec::new() };
    let rules = match tabula::load(dir, &options) {
        Ok(mut rules) => {
            if interpret {
                rules.interpret_scripts();
            }
            Rc::new(rules)
        }
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

/// [`refused`], with the scripts compiled and on Rhai's interpreter: both stop alike.
fn refused_both_ways(case: &str, place: &str, message: &str) {
    refused(case, place, message);
    let dir = format!("tests/corpus/rulesets/{case}");
    let interpreted = guarded(case, Limits::default(), {
        let dir = dir.clone();
        move || load_and_play_on(&dir, &[], true)
    });
    let Outcome::Refused(text) = interpreted else { panic!("{case}: expected an error, got {interpreted:?}") };
    let place = format!("{dir}/{place}");
    assert!(text.contains(&place), "{case}, interpreted: the error should point at {place}:\n{text}");
    assert!(text.contains(message), "{case}, interpreted: the error should say `{message}`:\n{text}");
}

/// [`plays`], with the scripts compiled and on Rhai's interpreter.
fn plays_both_ways(case: &str, outcome: &str) {
    plays(case, outcome);
    let dir = format!("tests/corpus/rulesets/{case}");
    match guarded(case, Limits::default(), move || load_and_play_on(&dir, &[], true)) {
        Outcome::Played(o) => assert_eq!(o, outcome, "{case}, interpreted"),
        other => panic!("{case}, interpreted: expected a game ending `{outcome}`, got {other:?}"),
    }
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
    use super::{plays, plays_both_ways, refused, refused_both_ways};

    #[test]
    fn an_endless_loop_is_stopped_by_the_operation_limit() {
        // Rhai does not say where the operations ran out: the error points at the loop.
        refused(
            "script-endless-loop",
            "rules.rhai:4:5",
            "the script ran more than 2000000 operations (an endless loop?)",
        );
        refused("script-endless-loop", "rules.rhai:4:5", "its loops are on line 4");
    }

    #[test]
    fn a_line_said_to_an_unknown_seat_is_refused_with_the_likely_seat() {
        refused_both_ways(
            "script-say-unknown-seat",
            "rules.rhai:3:",
            "say: no seat named `sollo` (did you mean `solo`?)",
        );
    }

    #[test]
    fn a_function_defined_in_two_scripts_is_refused_naming_both() {
        refused(
            "script-defined-twice",
            "more.rhai:2:1",
            "`begin` with 1 argument is defined in two scripts: this one would replace the one of tests/corpus/rulesets/script-defined-twice/rules.rhai:1",
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

    // Before the depth limit, these ran for seconds (each round copies the whole value) until
    // the size limit stopped them; the depth limit stops them after 64 rounds.
    #[test]
    fn a_map_nesting_in_itself_is_stopped_by_the_depth_limit() {
        refused_both_ways("script-nested-map-loop", "rules.rhai:2:1", "arrays and maps nested more than 64 deep");
    }

    #[test]
    fn an_array_nesting_in_itself_is_stopped_by_the_depth_limit() {
        refused_both_ways("script-nested-array-loop", "rules.rhai:2:1", "arrays and maps nested more than 64 deep");
    }

    // Forms of Rhai the compiled scripts refused where Rhai's interpreter runs them.
    #[test]
    fn a_string_in_a_variable_is_indexed_as_rhai_does() {
        refused_both_ways("script-string-index", "rules.rhai:8:7", "String index 5 out of bounds: only 5 characters");
    }

    #[test]
    fn an_integer_in_a_variable_is_a_bit_field_as_rhai_says() {
        refused_both_ways("script-bit-field", "rules.rhai:10:7", "Bit-field index 64 out of bounds: only 64 bits");
    }

    #[test]
    fn array_functions_call_closures_and_named_functions_back() {
        plays_both_ways("script-array-callbacks", "done");
    }

    #[test]
    fn for_walks_stepped_ranges_bits_and_characters() {
        plays_both_ways("script-stepped-ranges", "done");
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
    fn asking_a_seat_that_is_not_in_the_game_is_refused() {
        refused("script-ask-seat-out-of-play", "rules.rhai:3:", "`dummy` does not take part in a game of 1 players");
    }

    #[test]
    fn a_seat_played_by_the_rules_that_asks_itself_for_ever_is_stopped() {
        refused("script-rules-seat-loop", "game.toml:42:1", "the rules answered 10000 prompts of `dummy` in a row");
    }

    #[test]
    fn a_seat_played_by_the_rules_with_no_legal_option_is_an_error() {
        refused(
            "script-rules-seat-no-option",
            "game.toml:42:1",
            "`dummy` is played by the rules, and its prompt `refuse` has no legal option",
        );
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

mod game_toml {
    use super::{plays, refused};

    #[test]
    fn a_word_where_a_number_goes_says_what_was_expected() {
        refused("toml-wrong-type", "game.toml:4:11", "expected a player count (1 to 255) or [min, max]");
    }

    #[test]
    fn a_player_count_past_a_byte_is_refused() {
        refused("toml-players-too-many", "game.toml:4:11", "expected a player count (1 to 255) or [min, max]");
    }

    #[test]
    fn a_seat_played_by_an_unknown_kind_of_player_is_refused() {
        refused("toml-seat-played-by-unknown", "game.toml:7:13", "seat `a`: unknown `played_by = \"robot\"`");
    }

    #[test]
    fn a_player_seat_after_a_seat_played_by_the_rules_is_refused() {
        refused(
            "toml-rules-seat-first",
            "game.toml:8:1",
            "seat `a` is declared after `dummy`, a seat played by the rules",
        );
    }

    #[test]
    fn player_counts_on_a_player_seat_are_refused() {
        refused(
            "toml-player-seat-with-players",
            "game.toml:7:11",
            "seat `a`: `players` is for seats played by the rules",
        );
    }

    #[test]
    fn a_reversed_player_range_is_refused() {
        refused("toml-players-reversed", "game.toml:4:11", "player count out of range");
    }

    #[test]
    fn an_integer_past_64_bits_is_refused() {
        refused("toml-integer-too-big", "game.toml:15:9", "99999999999999999999");
    }

    #[test]
    fn a_million_copies_of_a_piece_are_refused() {
        refused("toml-piece-count-huge", "game.toml:15:9", "piece `marker` has a count out of range");
    }

    #[test]
    fn a_table_declared_twice_is_refused() {
        refused("toml-duplicate-table", "game.toml:11:8", "duplicate key");
    }

    #[test]
    fn a_key_written_twice_is_refused() {
        refused("toml-duplicate-key", "game.toml:4:1", "duplicate key");
    }

    #[test]
    fn an_empty_file_lists_what_is_missing() {
        refused("toml-empty", "game.toml:1:1", "`[game]` needs a `name`");
    }

    /// Every name a log writes must be one word of a log line, or the game would write logs
    /// that replay refuses. Each bad name is named where it is declared.
    #[test]
    fn names_a_log_cannot_write_are_refused_where_they_are_declared() {
        let case = "toml-names-not-log-words";
        refused(case, "game.toml:9:1", "the name `red team` in [seats] cannot be written in a log");
        refused(case, "game.toml:15:1", "the name `coin[1]` in [pieces] cannot be written in a log");
        refused(case, "game.toml:17:1", "the name `` in [zones] cannot be written in a log");
        refused(case, "game.toml:12:28", "the word `dark red` cannot be written in a log");
    }

    /// The usual player count, played when none is asked for, must be one the game allows.
    #[test]
    fn a_usual_player_count_the_game_excludes_is_refused() {
        refused("toml-usual-players-excluded", "game.toml:6:17", "the usual player count is not one the game allows");
    }

    /// A bad property value is shown as TOML writes it, not as Rust's debug text (`Int(9)`).
    #[test]
    fn a_bad_property_value_is_shown_as_written() {
        refused("toml-property-value-out-of-range", "game.toml:13:62", "found 9");
        refused("toml-property-value-out-of-range", "game.toml:14:61", "found \"high\"");
    }

    /// A set is written as its pieces to the end of a log line: only the last parameter may be
    /// one, and only pieces make one.
    #[test]
    fn a_set_parameter_must_be_last_and_of_pieces() {
        refused("toml-set-not-last", "game.toml:18:20", "set parameter `cards` of action `play` is not the last");
        refused("toml-set-of-words", "game.toml:9:20", "parameter `words` of action `say`: only pieces make a set");
    }

    /// Listing every set of 13 pieces would list 8,192 options: refused in play, with the way
    /// to bound it.
    #[test]
    fn a_set_with_too_many_options_is_refused_with_the_way_to_bound_it() {
        let dir = "tests/corpus/rulesets/flow-set-too-many-options".to_string();
        let outcome = crate::guard::guarded("flow-set-too-many-options", crate::guard::Limits::default(), move || {
            super::load_and_play(&dir, &[])
        });
        let super::Outcome::Refused(text) = outcome else { panic!("expected an error, got {outcome:?}") };
        assert!(
            text.contains(
                "has 8192 sets to choose from now (13 pieces): at most 4096 can be listed; bound it with `size`"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_unknown_phase_is_named_with_the_phases_that_exist() {
        refused("toml-unknown-phase", "game.toml:9:8", "unknown phase `nowhere`");
    }

    #[test]
    fn a_layout_naming_a_property_its_kind_lacks_is_refused_at_the_name() {
        refused("toml-layout-unknown-property", "game.toml:19:39", "[layout] names no property `fase` of `die`");
    }

    #[test]
    fn a_hook_no_script_defines_is_named() {
        refused("toml-missing-hook", "game.toml:12:12", "no script function `begin` taking 1 argument");
    }

    #[test]
    fn a_missing_script_file_is_named() {
        refused("toml-script-missing", "game.toml:4:12", "cannot read script `missing.rhai`");
    }

    #[test]
    fn a_script_without_end_is_refused_without_reading_it_all() {
        refused("toml-script-endless-file", "game.toml:4:12", "larger than 8 MB, the most tabula reads");
    }

    #[test]
    fn a_folder_given_as_a_script_is_refused() {
        refused("toml-script-folder", "game.toml:4:12", "cannot read script `.`");
    }

    #[test]
    fn a_reversed_property_range_is_refused_before_any_script_uses_it() {
        refused("toml-property-range-reversed", "game.toml:12:15", "property `level` of `token` has min 3 above max 0");
    }

    #[test]
    fn a_reversed_counter_range_is_refused() {
        refused("toml-counter-range-reversed", "game.toml:9:9", "counter `score` has min 10 above max 0");
    }

    #[test]
    fn a_parameter_range_over_every_integer_is_refused() {
        refused(
            "toml-parameter-range-extreme",
            "game.toml:11:20",
            "parameter `amount` of action `bid` has an unusable range",
        );
    }

    #[test]
    fn more_than_four_parameters_are_refused_at_the_fifth() {
        refused("toml-too-many-parameters", "game.toml:16:14", "action `juggle` has more than 4 parameters");
    }

    #[test]
    fn a_piece_without_a_type_is_refused_at_its_table() {
        refused("toml-piece-without-type", "game.toml:10:1", "piece `marker` needs a `type`");
    }

    #[test]
    fn an_agent_without_a_function_is_refused_at_its_table() {
        refused("toml-agent-without-function", "game.toml:8:1", "agent `lazy` needs `choose` or `act`");
    }

    #[test]
    fn the_largest_pace_does_not_overflow_the_game_clock() {
        plays("toml-pace-huge", "done");
    }

    #[test]
    fn the_longest_action_does_not_overflow_the_game_clock() {
        plays("toml-action-time-huge", "done");
    }

    #[test]
    fn phases_that_lead_to_each_other_without_asking_are_stopped() {
        refused(
            "flow-phase-cycle",
            "game.toml:11:1",
            "the flow went through 10000 phases without asking anyone anything",
        );
    }

    #[test]
    fn a_phase_with_nowhere_to_go_is_named() {
        refused("flow-phase-without-next", "game.toml:8:1", "phase `only` ended, but it has no `next`");
    }
}

mod variants {
    use super::{Outcome, load_and_play, refused_with};
    use crate::guard::{Limits, guarded};

    #[test]
    fn the_game_plays_without_a_variant() {
        let outcome = guarded("variants", Limits::default(), || load_and_play("tests/corpus/rulesets/variants", &[]));
        assert!(matches!(&outcome, Outcome::Played(o) if o == "done"), "{outcome:?}");
    }

    #[test]
    fn an_overlay_that_is_not_toml_is_refused_at_its_line() {
        refused_with("variants", &["bad-syntax"], "variants/bad-syntax.toml:2:16", "unclosed table");
    }

    #[test]
    fn an_overlay_starting_in_an_unknown_phase_is_refused() {
        refused_with("variants", &["unknown-start"], "variants/unknown-start.toml:3:9", "unknown phase `nowhere`");
    }

    #[test]
    fn an_overlay_naming_an_unknown_zone_is_refused() {
        refused_with("variants", &["unknown-zone"], "variants/unknown-zone.toml:4:8", "unknown zone `shelf`");
    }

    #[test]
    fn an_overlay_with_a_value_of_the_wrong_type_is_refused() {
        refused_with("variants", &["wrong-type"], "variants/wrong-type.toml:3:9", "invalid type: string \"high\"");
    }

    #[test]
    fn an_overlay_script_that_loops_for_ever_is_stopped_in_its_own_file() {
        refused_with(
            "variants",
            &["endless-hook"],
            "variants/endless-hook.rhai:3:5",
            "ran more than 2000000 operations",
        );
    }

    #[test]
    fn an_overlay_script_that_does_not_compile_is_refused_at_its_line() {
        refused_with("variants", &["script-syntax"], "variants/script-syntax.rhai:3:20", "script does not compile");
    }
}

/// Rulesets made by the test, too big or too binary to keep in the corpus.
mod generated {
    use super::{Outcome, load_and_play};
    use crate::guard::{Limits, guarded};

    /// A scratch ruleset folder holding `game_toml` (and `rules.rhai`, if given).
    fn scratch(case: &str, game_toml: &[u8], rules: Option<&[u8]>) -> String {
        let dir = crate::scratch_dir(&format!("robustness-{case}"));
        std::fs::write(dir.join("game.toml"), game_toml).expect("write game.toml");
        if let Some(rules) = rules {
            std::fs::write(dir.join("rules.rhai"), rules).expect("write rules.rhai");
        }
        dir.to_string_lossy().into_owned()
    }

    fn refused_at(case: &str, dir: String, place: &str, message: &str) {
        let shown = dir.clone();
        let outcome = guarded(case, Limits::default(), move || load_and_play(&dir, &[]));
        let Outcome::Refused(text) = outcome else { panic!("{case}: expected an error, got {outcome:?}") };
        let place = format!("{shown}/{place}");
        assert!(text.contains(&place), "{case}: the error should point at {place}:\n{text}");
        assert!(text.contains(message), "{case}: the error should say `{message}`:\n{text}");
    }

    const HOST: &str = "[game]\nname = \"Host\"\nstart = \"only\"\nscripts = [\"rules.rhai\"]\n[seats.solo]\n[phases.only]\nnext = \"only\"\n";

    #[test]
    fn a_parameter_nested_100_000_deep_is_refused() {
        let depth = 100_000;
        let text = format!("{HOST}[params]\ndeep = {}1{}\n", "[".repeat(depth), "]".repeat(depth));
        refused_at(
            "toml-deep-nesting",
            scratch("deep", text.as_bytes(), None),
            "game.toml:9:88",
            "cannot recurse further; max recursion depth met",
        );
    }

    #[test]
    fn nul_bytes_in_game_toml_are_refused_at_their_line() {
        let text = "[game]\nname = \"Nul\"\n\0\0\0\n";
        refused_at("toml-nul", scratch("nul", text.as_bytes(), None), "game.toml:3:4", "key with no value");
    }

    #[test]
    fn a_game_toml_that_is_not_utf8_is_refused_at_its_line() {
        let mut text = b"[game]\nname = \"Latin-1: ".to_vec();
        text.extend([0xe9, b'"', b'\n']);
        refused_at("toml-latin1", scratch("latin1", &text, None), "game.toml:2:18", "the file is not text");
    }

    #[test]
    fn a_script_that_is_not_utf8_is_refused_at_its_line() {
        let rules = b"// a script\nfn begin(game) { \xff\xfe }\n";
        refused_at(
            "rhai-binary",
            scratch("rhai-binary", HOST.as_bytes(), Some(rules)),
            "rules.rhai:2:18",
            "the file is not text",
        );
    }

    #[test]
    fn a_script_with_a_10_mb_line_is_refused_by_size() {
        let rules = format!("// {}\n", "x".repeat(10 << 20));
        refused_at(
            "rhai-10mb",
            scratch("rhai-10mb", HOST.as_bytes(), Some(rules.as_bytes())),
            "game.toml:4:",
            "larger than 8 MB",
        );
    }
}
