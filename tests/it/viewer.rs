//! The replay viewer's pages (`tabula view`): a page for everyone offers every seat; a page for
//! one seat holds nothing that seat never sees, not even out of sight in its data. The pages are
//! checked in a real browser by `tests/browser/check` (run by CI).

use std::collections::BTreeSet;
use std::rc::Rc;

use tabula::log::{parse, replay_steps, rules_for, seat_log};
use tabula::narrate::narrate;
use tabula::view::can_see_piece;
use tabula::viewer::{Page, board, html, timeline};

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
            let t = timeline(&log, rules.clone(), Some(seat)).expect("timeline");
            let page = html(&Page { log: "game.log".into(), board: board(&rules, players), timelines: vec![t] });
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

#[test]
fn the_page_for_everyone_offers_every_seat() {
    let dir = std::env::temp_dir().join(format!("tabula-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
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
