//! Movement costed by region changes (`game.region_costs`, `game.region_paths`) on a board drawn
//! by hand (tests/fixtures/regions, drawn in its game.toml): cells in two regions, linked
//! north/east/south/west, hubs all linked to each other (jumps), a closed cell and police on
//! some cells as a tie-breaker. Every expected value below is worked out by hand from the map.

use std::rc::Rc;

use crate::common::notes_of;
use tabula::{Game, LoadOptions};

fn notes() -> Vec<String> {
    let rules =
        Rc::new(tabula::load("tests/fixtures/regions", &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")));
    notes_of(&Game::recorded(rules, 1, 1).expect("start"))
}

#[test]
fn costs_count_region_changes_then_weight_with_jumps_and_closed_cells() {
    let notes = notes();
    assert_eq!(
        notes[..6],
        [
            // From a: the land cells at no change (c before e in the board's order, so f is
            // reached from c first, and e's equal way does not replace it); d is sea (1 change);
            // g is closed, h has no links.
            r#"walk from a ["a:0/0/0/", "b:0/0/0/a", "c:0/0/0/b", "d:1/0/0/a", "e:0/0/0/b", "f:0/0/0/c", "g:-", "h:-"]"#,
            // From the sea cell d every land cell is one change away.
            r#"walk from d ["a:1/0/0/d", "b:1/0/0/a", "c:1/0/0/b", "d:0/0/0/", "e:1/0/0/d", "f:1/0/0/c", "g:-", "h:-"]"#,
            // Without the enter filter the closed cell is reached.
            "no enter filter: g g:0/0/0/c",
            // Hubs d, f, h: from f (land) a jump reaches d (sea) with no change, better than the
            // walk from a, and h, which has no links.
            r#"jumps ["a:0/0/0/", "b:0/0/0/a", "c:0/0/0/b", "d:0/0/1/f", "e:0/0/0/b", "f:0/0/0/c", "g:-", "h:0/0/1/f"]"#,
            // Police left behind break ties: a b c (2 + 3 = 5) loses to a b e (2 + 1 = 3).
            r#"weight cops ["a:0/0/0/", "b:0/0/0/a", "c:0/2/0/b", "d:0/3/1/f", "e:0/2/0/b", "f:0/3/0/e", "g:-", "h:0/3/1/f"]"#,
            // A table of weights by name: c weighs 4, the rest nothing.
            r#"weight table ["a:0/0/0/", "b:0/0/0/a", "c:0/0/0/b", "d:0/0/1/f", "e:0/0/0/b", "f:0/0/0/e", "g:-", "h:0/0/1/f"]"#,
        ]
    );
}

#[test]
fn paths_come_depth_first_last_step_first_within_the_change_limit() {
    let notes = notes();
    assert_eq!(
        notes[6..11],
        [
            // a's steps are b then d: d's subtree comes first; d's steps are e (a change), then
            // the jumps to f and h; h's only way on is its jump to f. Jumps are counted.
            r#"paths ["adhf 1/2", "adf 1/1", "adef 2/0", "adebcf 2/0", "abedhf 1/2", "abedf 1/1", "abef 0/0", "abcf 0/0"]"#,
            r#"paths no change ["abef 0/0", "abcf 0/0"]"#,
            r#"paths first 3 ["adhf 1/2", "adf 1/1", "adef 2/0"]"#,
            // Only paths that jumped, with 1 change; max_paths counts the paths kept.
            r#"paths jumped 3 ["adhf 1/2", "adf 1/1", "abedhf 1/2"]"#,
            // A path from a piece to itself; a piece of another zone is out of reach.
            r#"paths to self ["a 0/0"] off board []"#,
        ]
    );
}

#[test]
fn bad_rules_and_arguments_are_script_errors() {
    let notes = notes();
    assert_eq!(
        notes[11..28],
        [
            "error: region rule: unknown key `jumpz` (expected links, region, enter, jumps, weight)",
            "error: region rule: `links` is missing (the piece properties to step along)",
            "error: region rule: `links` must be an array of property names",
            "error: region rule: `region` is missing (the property whose value is a piece's region)",
            "error: region rule: `region` must be a property name, not a i64",
            "error: region rule: a has no property `up` (a link)",
            "error: region rule: a has no property `height` (the region)",
            "error: region rule: a.area (the weight) is not an integer",
            "error: region rule: `weight` of `b` must be an integer, not two",
            "error: region rule: `enter` must be a filter such as #{ open: 1 }, not 1",
            "error: no component kind named `boat`",
            "error: 99 is not a piece id",
            "error: region rule: flag has no property `area` (the region)",
            "error: region_paths: `changes` must be an integer or #{ without_jump: [lo, hi], with_jump: [lo, hi] }, not x",
            "error: region_paths: unknown key `most` (expected without_jump, with_jump)",
            "error: region_paths: `with_jump` must be [least, most] changes, not [1]",
            "error: region_paths: max_paths must not be negative, not -1",
        ]
    );
}

#[test]
fn searches_in_remembered_calls_see_every_change_of_the_board() {
    // From a to c: no change (a b c), four paths, two sea cells (d first), f linked to c and e.
    // With b closed, 2 changes (a d e f c, d is sea); with d land, 0, and h the one sea cell;
    // with f's link north to c cut, no way (b, the other way in, is closed), two paths left (a b
    // c and a d e b c: paths ignore the enter filter) and one link; the link back, 0 changes and
    // two links; with a moved off the board, no way and no path.
    assert_eq!(notes()[28..], [r#"remembered [0, 4, 2, "d", 2, 2, 0, 1, "h", -1, 2, 1, 0, 2, -1, 0]"#]);
}

#[test]
fn a_runaway_loop_over_region_costs_is_stopped() {
    let options = LoadOptions { variants: vec![], overrides: vec![("runaway".into(), "1".into())] };
    let rules = Rc::new(tabula::load("tests/fixtures/regions", &options).unwrap_or_else(|e| panic!("{e}")));
    let Err(err) = Game::recorded(rules, 1, 1) else { panic!("the loop must be stopped") };
    let text = err.to_string();
    assert!(text.contains("the script asked too much of the engine"), "{text}");
}
