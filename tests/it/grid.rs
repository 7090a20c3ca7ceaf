//! Square grids of pieces (`game.lay`, `game.cell`, `game.fits`, `game.free_cells`), on the
//! fixture `tests/fixtures/grid`: its one hook lays five squares and notes what the natives
//! answer, then what its mistakes give; a script agent reads the grid through its seat's view.
//!
//! The squares: a (0, 0) red, b (1, 0) blue, c (0, 1) blue, d (1, 1) red, e (2, -1) blue; sides
//! are `n e s w` (+y, +x, -y, -x).

use std::rc::Rc;

use crate::common::notes_of;
use tabula::agent::{Agent, Decision, ScriptAgent};
use tabula::{Game, LoadOptions};

fn start(overrides: &[(&str, &str)]) -> Result<Game, tabula::Error> {
    let options = LoadOptions {
        variants: vec![],
        overrides: overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    let rules = Rc::new(tabula::load("tests/fixtures/grid", &options).unwrap_or_else(|e| panic!("{e}")));
    Game::recorded(rules, 1, 1)
}

fn notes() -> Vec<String> {
    notes_of(&start(&[]).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn laying_links_both_ways_and_cells_are_found_by_place() {
    let notes = notes();
    assert_eq!(
        notes[..6],
        [
            // a was laid first, alone; b east of it, c north of it, d north of b and east of c;
            // e touches none of them by a side.
            "links a: c b - -",
            "links b: d - - a",
            "links c: - d a -",
            "links d: - - b c",
            "links e: - - - -",
            // Hits on the board and in the yard; misses on an empty cell and beside the block.
            r#"cell ["d", "e", "-", "-", "post"]"#,
        ]
    );
}

#[test]
fn fits_checks_emptiness_sides_around_and_a_matching_side() {
    let notes = notes();
    assert_eq!(
        notes[6..10],
        [
            // An occupied cell never fits; an empty one far away fits an empty rule.
            "fits taken [false, true]",
            // (2, 0) has b west and e south: 2 sides, not 3.
            "fits sides [true, false]",
            // Around (2, 0): b, d and e.
            "fits around [true, false]",
            // Its sides are blue; (-1, 0) has red a east of it.
            "fits match [true, false, true]",
        ]
    );
}

#[test]
fn free_cells_lists_fitting_cells_by_x_then_y() {
    let notes = notes();
    assert_eq!(
        notes[10..16],
        [
            "free sides 1 [[-1, 0], [-1, 1], [0, -1], [0, 2], [1, -1], [1, 2], [2, -2], [2, 0], [2, 1], [3, -1]]",
            // (2, -2) and (3, -1) touch only e.
            "free sides 1 around 2 [[-1, 0], [-1, 1], [0, -1], [0, 2], [1, -1], [1, 2], [2, 0], [2, 1]]",
            "free sides 2 [[1, -1], [2, 0]]",
            "free around 3 [[1, -1], [2, 0]]",
            // Beside a (0, 0) and d (1, 1), the red ones.
            "free red [[-1, 0], [0, -1], [1, 2], [2, 1]]",
            "free none []",
        ]
    );
}

#[test]
fn mistakes_are_errors_and_a_failed_lay_changes_nothing() {
    let notes = notes();
    assert_eq!(
        notes[16..28],
        [
            "bad key error: grid rule: unknown key `side` (the keys are `sides`, `around`, `prop` and `value`)",
            "bad type error: grid rule: `sides` must be an integer from 0 to 4, not two",
            "bad range error: grid rule: `around` must be an integer from 0 to 8, not 9",
            "no value error: grid rule: `prop` needs a `value`",
            "bad match error: grid rule: `prop` must be a property name, not 3",
            "endless error: free_cells: the rule must ask for a neighbour (`sides` or `around` at least 1, or `prop`), or every cell of the endless plane would do",
            "no zone error: no zone named `nowhere`",
            "three sides error: sides: expected 4 property names (+y, +x, -y, -x), found 3",
            "not a link error: f has no piece property `colour`",
            "off the range error: f.x cannot be 20 (its range is -9 to 9)",
            "wrong kind error: f.n cannot be `post`",
            "f still box 0 0",
        ]
    );
}

#[test]
fn grid_natives_in_remembered_calls_see_every_change() {
    // e at (2, -1), blue: (2, 0) touches b and e, neither red; two cells have 2 sides. e turned
    // red: (2, 0) touches a red square. e moved to (3, -1): (2, -1) is empty, (2, 0) touches b
    // alone (blue), and no cell has 2 sides. e back as it was: as at first. The nearest red
    // square from c is d (beside it), a once d is blue, and d again once it is red.
    assert_eq!(notes()[28], r#"remembered ["e", false, 2, true, "-", false, 0, "e", false, 2, "d", "a", "d"]"#);
}

#[test]
fn a_seat_sees_the_grid_of_the_pieces_it_sees() {
    let game = start(&[]).unwrap_or_else(|e| panic!("{e}"));
    // e turned face down is still on the rules' grid...
    assert_eq!(notes_of(&game)[29..], ["hidden e [[1, -1], [2, 0]]"]);
    // ...but not on red's: (2, -1) is empty there, (2, 0) touches only b, no cell has 2 sides,
    // and only b and c are blue.
    let seat = game.to_act()[0];
    let legal = game.legal_actions(seat).unwrap_or_else(|e| panic!("{e}"));
    let mut looker = ScriptAgent::new(game.rules().clone(), "looker").expect("the fixture's agent");
    let Err(err) = looker.choose(&Decision::new(&game, seat, &legal)) else {
        panic!("the agent fails with what it saw")
    };
    let text = err.to_string();
    assert!(text.contains(r#"looked: ["d", (), false, true, [], [[-1, 1], [0, 2], [1, -1], [2, 0]]]"#), "{text}");
}

#[test]
fn a_runaway_loop_over_free_cells_is_stopped() {
    let Err(err) = start(&[("runaway", "1")]) else { panic!("the loop must be stopped") };
    let text = err.to_string();
    assert!(text.contains("the script asked too much of the engine"), "{text}");
}
