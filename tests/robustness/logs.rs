//! Game logs: the hand-made corpus of `tests/corpus/logs/` (each file's first line says what it
//! tries) and monsters made here (binary garbage, a 10 MB line, a million lines). Each is read,
//! parsed and replayed as `tabula replay` does it; the test says what the user gets.

use std::path::Path;
use std::rc::Rc;

use tabula::diag::{MAX_LOG_BYTES, Sources, render, render_diagnostics};
use tabula::log::{ReplayError, ReplayOptions, parse, replay_with, rules_for};

use crate::guard::{Limits, guarded};

/// What a user gets from a log.
#[derive(Debug)]
pub enum Replayed {
    /// The log was refused with this message, as `tabula replay` prints it.
    Refused(String),
    /// The log replays: this many actions, and how the game stands.
    Fits(usize, String),
}

/// Reads, parses and replays a log file, as `tabula replay` does.
pub fn replay_file(path: &Path) -> Replayed {
    let mut sources = Sources::default();
    let file = match sources.read(path, MAX_LOG_BYTES) {
        Ok(file) => file,
        Err(e) => return Replayed::Refused(render(&e, &sources)),
    };
    let log = match parse(sources.text(file), file) {
        Ok(log) => log,
        Err(d) => return Replayed::Refused(render_diagnostics(&[*d], &sources)),
    };
    let at_line = |e: ReplayError| Replayed::Refused(render_diagnostics(&[e.diagnostic(&sources, file)], &sources));
    let rules = match rules_for(&log) {
        Ok(rules) => Rc::new(rules),
        Err(e) => return Replayed::Refused(render(&e.into_error(&sources, file), &sources)),
    };
    match replay_with(&log, rules, &ReplayOptions::default()) {
        Ok(r) => Replayed::Fits(r.actions, r.game.outcome().unwrap_or("not over").to_string()),
        Err(e) => at_line(e),
    }
}

/// The corpus log `tests/corpus/logs/<case>.log` is refused with `message`, at `line` (and,
/// for a syntax error, `column`).
fn refused(case: &str, place: &str, message: &str) {
    let path = format!("tests/corpus/logs/{case}.log");
    let outcome = guarded(case, Limits::default(), {
        let path = path.clone();
        move || replay_file(Path::new(&path))
    });
    let Replayed::Refused(text) = outcome else { panic!("{case}: expected an error, got {outcome:?}") };
    let place = format!("{path}:{place}");
    assert!(text.contains(&place), "{case}: the error should point at {place}:\n{text}");
    assert!(text.contains(message), "{case}: the error should say `{message}`:\n{text}");
}

mod corpus {
    use super::refused;

    #[test]
    fn a_log_cut_in_the_middle_of_a_line_is_refused_at_that_line() {
        refused("truncated", "15:1", "`di` is not a valid dice for roll");
    }

    #[test]
    fn a_log_cut_in_the_middle_of_the_header_is_refused_at_the_cut() {
        refused("truncated-header", "2:10", "the log does not parse");
    }

    #[test]
    fn swapped_chance_lines_are_refused_at_the_first_that_does_not_fit() {
        refused("shuffled", "6:1", "the log states a roll at line 6, but the rules roll die_1 here");
    }

    #[test]
    fn a_chance_line_of_the_wrong_die_after_an_action_is_refused_at_its_line() {
        refused("reroll-wrong-die", "14:1", "the log states a roll at line 14, but the rules roll die_1 here");
    }

    #[test]
    fn a_duplicated_action_is_refused_with_what_was_legal() {
        refused(
            "duplicated",
            "15:1",
            "red: free red not legal: the `legal` hook `can_free` refuses it; expected one of: red: roll die_1",
        );
    }

    #[test]
    fn game_time_going_backwards_is_refused() {
        refused("time-backwards", "15:1", "the clock cannot go back from 3000 to 2000 ms");
    }

    #[test]
    fn a_clock_line_going_backwards_is_refused() {
        refused("clock-backwards", "15:1", "the clock cannot go back from 3000 to 1000 ms");
    }

    #[test]
    fn a_face_the_die_lacks_is_refused() {
        refused("impossible-face", "6:1", "`seven` is no face of die_1");
    }

    #[test]
    fn a_word_of_the_rules_that_is_no_face_is_refused() {
        refused("face-of-nothing", "6:1", "the log states a roll at line 6, but the rules roll die_1 here");
    }

    #[test]
    fn a_shuffle_of_pieces_not_in_the_zone_is_refused() {
        refused("shuffle-foreign-pieces", "5:1", "the log states a shuffle at line 5, but the rules shuffle pile here");
    }

    #[test]
    fn a_shuffle_of_an_unknown_piece_is_refused() {
        refused("shuffle-unknown-piece", "5:1", "no piece named `ghost`");
    }

    #[test]
    fn a_chance_line_the_rules_did_not_need_is_refused() {
        refused("chance-not-needed", "15:1", "the log states a chance outcome the rules did not need here");
    }

    #[test]
    fn an_unknown_seat_is_refused() {
        refused("unknown-seat", "13:1", "no seat named `ghost`");
    }

    #[test]
    fn an_unknown_action_is_refused() {
        refused("unknown-action", "13:1", "no action named `fly`");
    }

    #[test]
    fn a_missing_argument_is_refused() {
        refused("wrong-argument-count", "13:1", "free takes 1 argument, found 0");
    }

    #[test]
    fn a_seat_s_masked_copy_is_refused() {
        refused("masked", "13:1", "masked arguments (a seat's copy of a log cannot be replayed)");
    }

    #[test]
    fn a_game_time_past_2_to_the_63_milliseconds_is_refused() {
        refused("time-overflow", "13:5", "game time out of range");
    }

    #[test]
    fn a_game_time_past_64_bits_of_minutes_is_refused() {
        refused("time-huge", "13:5", "game time out of range");
    }

    #[test]
    fn punctuation_where_an_entry_goes_is_refused_with_what_was_expected() {
        refused("garbage", "13:1", "the log does not parse");
    }

    #[test]
    fn an_unknown_ruleset_is_refused_at_its_tag() {
        refused("unknown-ruleset", "2:1", "no ruleset `no-such-game`");
    }

    #[test]
    fn an_unknown_variant_is_refused_at_its_tag() {
        refused("unknown-variant", "3:1", "line 3: [variant \"no-such-variant\"]: no such variant in");
    }

    /// Overrides in a log's header are the log's, not the command line's: refused at their own
    /// tag, worded as the tag is written.
    #[test]
    fn an_override_of_no_parameter_is_refused_at_its_tag() {
        refused(
            "set-unknown-parameter",
            "4:1",
            "line 4: [set \"tunnel_lenght=4\"]: the ruleset has no parameter `tunnel_lenght` (did you mean `tunnel_length`?)",
        );
    }

    #[test]
    fn an_override_with_a_value_its_parameter_does_not_take_is_refused_at_its_tag() {
        refused("set-wrong-value", "5:1", "line 5: [set \"checkpoint_cost=abc\"]: expected an integer");
    }

    #[test]
    fn too_many_players_are_refused_at_their_tag() {
        refused("too-many-players", "3:1", "[players 99]: Escape: The Curse of the Temple is played by 1 to 5 players");
    }

    #[test]
    fn seats_that_are_not_the_rules_are_refused_at_their_tag() {
        refused("wrong-seats", "4:1", "the log's seats are \"blue\", the rules' are \"red\"");
    }

    #[test]
    fn a_seed_past_64_bits_is_refused() {
        refused("seed-huge", "4:7", "integer out of range");
    }

    #[test]
    fn an_action_after_the_end_is_refused() {
        refused("after-the-end", "55:1", "exile: assign angela tunnel not legal: the game is over");
    }

    #[test]
    fn a_result_the_rules_do_not_reach_is_refused() {
        refused("wrong-result", "55:1", "the log says the game ended `exile`, the rules say `police`");
    }
}

/// Logs made here: too big or too binary to keep in the corpus.
mod generated {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::{Replayed, replay_file};
    use crate::guard::{Limits, guarded};

    /// Writes a scratch log file.
    fn scratch(case: &str, bytes: &[u8]) -> PathBuf {
        let path = crate::scratch_dir(&format!("robustness-log-{case}")).join(format!("{case}.log"));
        std::fs::write(&path, bytes).expect("write a scratch log");
        path
    }

    const HOST: &str = "[ruleset \"tests/corpus/rulesets/log-host\"]\n[players 1]\n";

    fn refused(case: &str, bytes: Vec<u8>, limits: Limits, place: &str, message: &str) {
        let path = scratch(case, &bytes);
        let shown = path.display().to_string();
        let outcome = guarded(case, limits, move || replay_file(&path));
        let Replayed::Refused(text) = outcome else { panic!("{case}: expected an error, got {outcome:?}") };
        assert!(text.contains(&format!("{shown}:{place}")), "{case}: the error should point at {place}:\n{text}");
        assert!(text.contains(message), "{case}: the error should say `{message}`:\n{text}");
        assert!(text.len() < 2_000, "{case}: the message is {} bytes long", text.len());
    }

    #[test]
    fn nul_bytes_in_a_line_are_refused_at_the_line() {
        let log = format!("{HOST}solo: tick\nsolo: ti\0ck\n");
        refused("nul", log.into_bytes(), Limits::default(), "4:9", "the log does not parse");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused_at_their_line() {
        let mut log = format!("{HOST}solo: tick\nsolo: ").into_bytes();
        log.extend([0xc3, 0x28, 0xff, b'\n']);
        refused("not-utf8", log, Limits::default(), "4:7", "the file is not text");
    }

    #[test]
    fn binary_garbage_is_refused() {
        let mut rng = tabula::rng::Rng::seeded(3);
        let bytes: Vec<u8> = (0..100_000).map(|_| rng.below(256) as u8).collect();
        refused("garbage", bytes, Limits::default(), "1:", "the file is not text");
    }

    #[test]
    fn a_10_mb_line_is_refused_and_not_quoted() {
        let log = format!("{HOST}solo: tick {}\n", "x".repeat(10 << 20));
        let limits = Limits { memory: 160 << 20, ..Limits::default() };
        refused("long-line", log.into_bytes(), limits, "3:1", "tick takes 0 arguments, found 1");
    }

    #[test]
    fn a_10_mb_line_of_punctuation_is_refused_and_not_quoted() {
        let log = format!("{HOST}solo: tick {}\n", "}".repeat(10 << 20));
        let limits = Limits { memory: 160 << 20, ..Limits::default() };
        refused("long-garbage", log.into_bytes(), limits, "3:12", "the log does not parse");
    }

    #[test]
    fn a_log_over_64_mb_is_refused_unread() {
        let log = format!("{HOST}{}", "solo: tick\n".repeat(6_200_000));
        refused("too-big", log.into_bytes(), Limits::default(), "", "larger than 64 MB, the most tabula reads");
    }

    #[test]
    fn more_than_two_million_lines_are_refused_unparsed() {
        let log = format!("{HOST}{}", "solo: tick\n".repeat(2_100_000));
        refused("two-million", log.into_bytes(), Limits::default(), "2000001:1", "the log has more than 2000000 lines");
    }

    #[test]
    fn a_million_valid_lines_are_replayed_in_bounded_time_and_memory() {
        let lines = 1_000_000;
        let log = format!("{HOST}{}", "solo: tick\n".repeat(lines));
        let path = scratch("million", log.as_bytes());
        // The whole log is held and parsed into entries, about 150 bytes a line (measured: 151
        // MB for these 11 MB, 2.4 s in a debug build; 0.34 s and 204 MB for `tabula replay`
        // in a release build). Logs are refused past 64 MB or 2,000,000 lines.
        let limits = Limits { time: Duration::from_secs(50), memory: 256 << 20 };
        match guarded("million", limits, move || replay_file(&path)) {
            Replayed::Fits(actions, outcome) => assert_eq!((actions, outcome.as_str()), (lines, "not over")),
            other => panic!("million: expected the log to fit, got {other:?}"),
        }
    }
}
