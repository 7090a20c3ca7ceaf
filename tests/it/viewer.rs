//! The replay viewer's pages (`tabula view`): a page for everyone offers every seat; a page for
//! one seat holds nothing that seat never sees, not even out of sight in its data. The pages are
//! checked in a real browser by `tests/browser/check` (run by CI).

use std::collections::BTreeSet;
use std::rc::Rc;

use tabula::log::{parse, replay_steps, rules_for, seat_log};
use tabula::narrate::narrate;
use tabula::view::{can_see_piece, view};
use tabula::viewer::{Limits, MAX_STEPS, Part, html, page, page_within, views};

use crate::common::tabula;

fn example_logs() -> Vec<std::path::PathBuf> {
    let mut logs: Vec<_> = std::fs::read_dir("examples/logs")
        .expect("examples/logs")
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten().map(|f| f.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    logs
}

/// Whether `text` names `name` as a whole word (`die_1` is not named by `die_10`).
fn names(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        !text[i + name.len()..].chars().next().is_some_and(part) && !text[..i].chars().next_back().is_some_and(part)
    })
}

#[test]
fn a_seats_page_names_no_piece_the_seat_never_sees() {
    let mut checked = 0;
    for path in example_logs() {
        let text = std::fs::read_to_string(&path).expect("log");
        let log = parse(&text, 0).expect("parses");
        let rules = Rc::new(rules_for(&log).expect("rules"));
        let players = log.int_tag("players").map_or(rules.players.0, |p| p as u8);
        for seat in 0..players {
            // The pieces the seat sees at the end of some step, or is told of during one (a card
            // turned up and shuffled back in the same step). What a seat is told is checked by
            // the information-set tests; this test checks that the page adds nothing to it.
            let mut seen = BTreeSet::new();
            replay_steps(&log, rules.clone(), &mut |game, _, events| {
                let told = narrate(game, Some(seat), &game.events()[events]).join("\n");
                for (p, piece) in rules.pieces.iter().enumerate() {
                    if can_see_piece(game, Some(seat), p as u16) || names(&told, &piece.name) {
                        seen.insert(p);
                    }
                }
            })
            .expect("replays");
            // And those its copy of the log names (a card played in the open names itself;
            // what a seat's copy may say is checked by the information-set tests).
            let copy = seat_log(&log, rules.clone(), seat).expect("seat log").to_string();
            for (p, piece) in rules.pieces.iter().enumerate() {
                if names(&copy, &piece.name) {
                    seen.insert(p);
                }
            }
            let made = page(&log, rules.clone(), players, &[Some(seat)], Part::default(), "game.log");
            let page = html(&made.expect("page"));
            for (p, piece) in rules.pieces.iter().enumerate() {
                if seen.contains(&p) {
                    continue;
                }
                // Whole names only: `die_1` is in `die_10`.
                let named = page.match_indices(&piece.name).any(|(i, _)| {
                    let next = page[i + piece.name.len()..].chars().next();
                    !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                        && !page[..i].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                });
                assert!(
                    !named,
                    "{}: the page for {} names {}, which it never sees",
                    path.display(),
                    rules.seats[seat as usize].name,
                    piece.name
                );
                checked += 1;
            }
            assert!(!page.contains("\"seat\":null"), "a seat's page holds everyone's timeline");
        }
    }
    assert!(checked > 50, "too few hidden pieces checked: {checked}");
}

/// A scratch folder of its own for a test.
fn scratch(name: &str) -> std::path::PathBuf {
    crate::common::scratch_dir(&format!("view-{name}"))
}

#[test]
fn the_page_for_everyone_offers_every_seat() {
    let dir = scratch("everyone");
    let out = dir.join("game.html");
    let log = "examples/logs/east-berlin/checkpoint-paid.log";
    let (ok, _, err) = tabula(&["view", log, "--out", out.to_str().unwrap()], "");
    assert!(ok, "{err}");
    let page = std::fs::read_to_string(&out).expect("page");
    assert!(page.starts_with("<!doctype html>") && !page.contains("/*TABULA_DATA*/"), "the data is in the page");
    for seat in ["\"seat\":null", "\"seat\":\"exile\"", "\"seat\":\"police\""] {
        assert!(page.contains(seat), "{seat}");
    }
    // Self-contained: nothing is fetched from elsewhere when opened from disk.
    for remote in ["https://", "src=\"", "href=\"http", "@import"] {
        assert!(!page.contains(remote), "{remote} in the page");
    }
    let (ok, _, err) = tabula(&["view", log, "--seat", "spy"], "");
    assert!(!ok);
    assert!(err.contains("no seat `spy` in this game: expected one of exile, police"), "{err}");
}

/// A page for everyone and each seat of an example log of every ruleset (one each, to keep the
/// test short: hidden hands, secret placements and reveals, a grid of laid tiles, a clock): the
/// views its changes rebuild, step by step, are the views of the game at those steps.
#[test]
fn a_page_s_changes_rebuild_the_view_at_every_step() {
    let mut steps = 0;
    for name in
        ["blackgate/team", "colditz/tunnel", "east-berlin/checkpoint-paid", "escape-plan/gas-can", "temple/escape"]
    {
        let path = std::path::PathBuf::from(format!("examples/logs/{name}.log"));
        let text = std::fs::read_to_string(&path).expect("log");
        let log = parse(&text, 0).expect("parses");
        let rules = Rc::new(rules_for(&log).expect("rules"));
        let players = log.int_tag("players").map_or(rules.players.0, |p| p as u8);
        let observers: Vec<Option<u8>> = std::iter::once(None).chain((0..players).map(Some)).collect();
        let made = page(&log, rules.clone(), players, &observers, Part::default(), "game.log").expect("page");
        for (timeline, &seat) in made.timelines.iter().zip(&observers) {
            let mut expected = Vec::new();
            replay_steps(&log, rules.clone(), &mut |game, _, _| expected.push(view(game, seat))).expect("replays");
            let rebuilt = views(timeline);
            assert_eq!(rebuilt.len(), expected.len(), "{}", path.display());
            for (k, (got, want)) in rebuilt.iter().zip(&expected).enumerate() {
                assert!(
                    got == want,
                    "{}, {:?}, step {k}: the page's view differs from the game's",
                    path.display(),
                    seat
                );
            }
            steps += expected.len();
        }
    }
    assert!(steps > 500, "too few steps checked: {steps}");
}

/// A page of a part of a log (`--from`, `--until`) holds the steps of the whole page between
/// them, with the same views; steps keep their numbers in the game.
#[test]
fn a_page_of_a_part_shows_the_same_steps_as_the_whole_page() {
    let text = std::fs::read_to_string("examples/logs/temple/escape.log").expect("log");
    let log = parse(&text, 0).expect("parses");
    let rules = Rc::new(rules_for(&log).expect("rules"));
    let whole = page(&log, rules.clone(), 2, &[None, Some(1)], Part::default(), "escape.log").expect("page");
    let lines: Vec<usize> = whole.timelines[0].steps.iter().filter_map(|s| s.line).collect();
    // From the line after the 5th step (the page starts at the 5th), to the 12th step's line.
    let part = Part { from: Some(lines[4] + 1), until: Some(lines[11]) };
    let some = page(&log, rules.clone(), 2, &[None, Some(1)], part, "escape.log").expect("page");
    for (w, p) in whole.timelines.iter().zip(&some.timelines) {
        assert_eq!(p.first, 5);
        assert_eq!(p.steps.len(), 8, "steps 5 to 12");
        assert_eq!(views(p), views(w)[5..=12].to_vec());
        let texts = |t: &tabula::viewer::Timeline, r: std::ops::Range<usize>| {
            t.steps[r].iter().map(|s| (s.line, s.text.clone(), s.events.clone())).collect::<Vec<_>>()
        };
        assert_eq!(texts(p, 0..8), texts(w, 5..13));
    }
}

/// A log with more steps than a page holds is refused at the first step past the limit, with
/// the options that view a part of it, and no page is written.
#[test]
fn a_log_longer_than_a_page_holds_is_refused_with_a_part_to_view() {
    let dir = scratch("too-long");
    let log = dir.join("long.log");
    let clock = |ms: usize| format!("clock {:02}:{:02}.{:03}\n", ms / 60_000, ms / 1000 % 60, ms % 1000);
    // The header and setup lines of Temple's solo log, then clock lines a millisecond apart.
    let solo = std::fs::read_to_string("examples/logs/temple/solo.log").expect("log");
    let setup: String = solo.lines().take_while(|l| !l.starts_with("red ")).map(|l| format!("{l}\n")).collect();
    let header = setup.lines().count();
    let text: String = std::iter::once(setup).chain((1..=MAX_STEPS).map(clock)).collect();
    std::fs::write(&log, text).expect("write");
    let (ok, _, err) = tabula(&["view", log.to_str().unwrap()], "");
    assert!(!ok, "a page of {} steps was made", MAX_STEPS + 1);
    // Step 0 is the setup: the clock line of step 20000 is the one past the limit.
    let (over, last) = (header + MAX_STEPS, header + MAX_STEPS - 1);
    assert!(err.contains(&format!("long.log:{over}:1")), "{err}");
    let said = format!(
        "a page holds at most {MAX_STEPS} steps (actions and clock lines), and this line would be one more: view a part of the log, as with --until {last}, then --from {over}"
    );
    assert!(err.contains(&said), "{err}");
    assert!(!dir.join("long.html").exists());
}

/// A page whose data would pass the bytes a page holds is refused at the step that passes them,
/// with the part before it, which fits. (60,000 bytes: escape.log's seats have every set of
/// their dice to roll among their options, so its setup and first action already take 30,000.)
#[test]
fn a_page_past_its_bytes_is_refused_with_a_part_that_fits() {
    let text = std::fs::read_to_string("examples/logs/temple/escape.log").expect("log");
    let log = parse(&text, 0).expect("parses");
    let rules = Rc::new(rules_for(&log).expect("rules"));
    let limits = Limits { bytes: 60_000, ..Limits::default() };
    let observers = [None, Some(0), Some(1)];
    let refused = page_within(&log, rules.clone(), 2, &observers, Part::default(), "escape.log", limits)
        .expect_err("more than 60,000 bytes");
    let (until, from) = refused
        .message
        .strip_prefix("the page's data would pass 60000 bytes here, the most a page holds: view a part of the log, as with --until ")
        .and_then(|rest| rest.split_once(", then --from "))
        .unwrap_or_else(|| panic!("{}", refused.message));
    assert_eq!(from, refused.line.to_string());
    let part = Part { from: None, until: Some(until.parse().expect("a line")) };
    let fits = page_within(&log, rules, 2, &observers, part, "escape.log", limits).expect("the part fits");
    let board = serde_json::to_string(&fits.board).expect("json").len();
    let all = serde_json::to_string(&fits).expect("json").len();
    // The board and the fields around the timelines (their seats, first steps) are not counted.
    assert!(all <= 60_000 + board + 200, "the board aside: {all} bytes, {board} of them the board");
}

/// A seat that may act out of turn has its options on the page: in Colditz's
/// appel-search-and-interrupt.log the American may play its interrupt card during the Security
/// Officer's turn, and its page (and everyone's) offers it, then empties its options once the
/// card is spent.
#[test]
fn a_page_offers_a_seats_options_out_of_turn() {
    let text = std::fs::read_to_string("examples/logs/colditz/appel-search-and-interrupt.log").expect("log");
    let log = parse(&text, 0).expect("parses");
    let rules = Rc::new(rules_for(&log).expect("rules"));
    let players = log.int_tag("players").map_or(rules.players.0, |p| p as u8);
    let american = rules.seat("american").expect("seat");
    let made = page(&log, rules.clone(), players, &[Some(american)], Part::default(), "game.log").expect("page");
    let timeline = &made.timelines[0];
    let mut options: Vec<String> = Vec::new();
    let (mut offered, mut emptied) = (false, false);
    for (step, view) in timeline.steps.iter().zip(views(timeline)) {
        if let Some(splice) = step.options.get("american") {
            options = splice.apply(&options);
        }
        let interrupt = options.iter().any(|o| o == "american: interrupt diversion_card_1");
        if interrupt {
            assert_eq!(view.to_act, ["german"], "out of turn: the game waits for the Security Officer");
            offered = true;
        } else if offered {
            emptied = true;
        }
    }
    assert!(offered && emptied, "offered {offered}, emptied {emptied}");
    // The page's script shows them under the seat's name, out of turn.
    assert!(html(&made).contains("may, out of turn:"));
}

/// Every name a `[layout]` uses is checked when the ruleset loads, as every other name is: an
/// unknown zone, kind of piece, property or counter is an error at the name, with the names it
/// could be.
#[test]
fn a_layout_names_only_what_its_ruleset_has() {
    let base = "[game]\nname = \"Layout\"\nstart = \"only\"\n\n[seats.solo]\n\n[components.die]\n\
                props.face = { range = [1, 6] }\n\n[pieces]\ndie = { type = \"die\", zone = \"table\" }\n\n\
                [zones.table]\n\n[counters.score]\nrange = [0, 9]\n\n[phases.only]\n\n[layout]\n";
    let line = base.lines().count() + 1;
    for (i, (layout, said, expected)) in [
        ("zones.tabel = { draw = \"row\" }", "[layout] names no zone `tabel`", "a zone: table"),
        ("pieces.dice = { shape = \"die\" }", "[layout] names no kind `dice`", "a kind: die"),
        ("pieces.die = { shape = \"pawn\", on = \"at\" }", "[layout] names no property `at` of `die`", "face"),
        ("grids.table = { rotation = \"rot\" }", "[layout] names no property `rot`", "a property: face"),
        ("counters = [\"scor\"]", "[layout] names no counter `scor`", "a counter: score"),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = scratch(&format!("layout-{i}"));
        std::fs::write(dir.join("game.toml"), format!("{base}{layout}\n")).expect("write");
        let (ok, _, err) = tabula(&["check", dir.to_str().expect("a path")], "");
        assert!(!ok, "{layout}: accepted");
        assert!(err.contains(said) && err.contains(expected), "{layout}:\n{err}");
        assert!(err.contains(&format!("game.toml:{line}:")), "{layout}: not at its line {line}:\n{err}");
    }
}
