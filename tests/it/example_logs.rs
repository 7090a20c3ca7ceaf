//! The hand-written game logs in examples/logs/<ruleset>/, replayed against the rules their
//! headers name.
//!
//! Each log must replay to its end, and reach the outcome of its `result` line if it has one.
//! The final state is pinned as a snapshot: the omniscient view, what each seat sees, and each
//! seat's copy of the log (others' secret arguments masked, `# revealed:` notes after reveals).
//! A log added to examples/logs/ (in a sibling folder for another ruleset) is picked up here
//! without changing this file; its snapshot is written on the first run with
//! `INSTA_UPDATE=always` and must be checked by hand against the rulebook.

use std::fmt::Write;
use std::rc::Rc;

use tabula::log::{ReplayOptions, parse, parse_with_grammar, replay_with, rules_for, seat_log};
use tabula::view::view;

#[test]
fn example_logs_replay_to_their_stated_end() {
    insta::glob!("../../examples/logs", "**/*.log", |path| {
        let name = path.display();
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let log = parse(&text, 0).unwrap_or_else(|d| panic!("{name} does not parse: {d:?}"));
        // The fast scanner and the grammar read a hand-written log alike, and printing it back
        // loses nothing but layout.
        assert_eq!(parse_with_grammar(&text, 0).ok().as_ref(), Some(&log), "{name}: the two parsers differ");
        assert_eq!(parse(&log.to_string(), 0).ok().as_ref(), Some(&log), "{name}: printing changes the log");
        let rules = Rc::new(rules_for(&log).unwrap_or_else(|e| panic!("{name}: the rules do not load: {e}")));
        let replay = replay_with(&log, rules.clone(), &ReplayOptions::default())
            .unwrap_or_else(|e| panic!("{name}: line {}: {}", e.line, e.message));
        assert!(replay.warnings.is_empty(), "{name}: {:?}", replay.warnings);
        let game = &replay.game;
        if let Some(result) = log.result() {
            assert_eq!(game.outcome(), Some(result), "{name}: the outcome differs from the log's result line");
        }

        // What a seat is shown at the terminal (`tabula replay LOG --view SEAT`) fits a screen
        // of 40 lines of 120 columns.
        for seat in 0..game.players() {
            let text = view(game, Some(seat)).render_compact(120);
            let wide = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            assert!(
                text.lines().count() <= 40 && wide <= 120,
                "{name}, seat {seat}: {} lines, {wide} columns:\n{text}",
                text.lines().count()
            );
        }

        let mut out = String::new();
        out.push_str(&view(game, None).render());
        for seat in 0..game.players() {
            out.push('\n');
            out.push_str(&view(game, Some(seat)).render());
        }
        for seat in 0..game.players() {
            let copy = seat_log(&log, rules.clone(), seat)
                .unwrap_or_else(|e| panic!("{name}: seat {seat}'s copy: line {}: {}", e.line, e.message));
            let seat_name = &rules.seats[seat as usize].name;
            write!(out, "\n--- {seat_name}'s copy of the log ---\n{copy}").expect("writing to a String");
        }
        // Snapshots are named after the log's path under examples/logs/ (east-berlin/x.log),
        // not after the part the logs found have in common, which glob! would use: that name
        // would change when the first log of another ruleset arrives.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/logs");
        let relative = path.strip_prefix(&root).unwrap_or(path);
        let suffix: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        insta::with_settings!({ snapshot_suffix => suffix.join("/") }, {
            insta::assert_snapshot!(out);
        });
    });
}
