//! `game.steps` (tests/fixtures/steps): the spaces one step away that a rule given as data lets
//! a piece reach, one rule key at a time, and the errors a bad rule gives.

use std::rc::Rc;

use tabula::{Game, LoadOptions};

use crate::common::notes_of;

#[test]
fn steps_follow_the_rule_key_by_key() {
    let rules =
        Rc::new(tabula::load("tests/fixtures/steps", &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")));
    let game = Game::recorded(rules, 1, 1).expect("start");
    assert_eq!(
        notes_of(&game),
        [
            // No kind named: nothing is crossed.
            "nothing: []",
            // room_b is linked to the hall twice (both ways): listed once.
            r#"plain: ["room_a", "yard", "room_b"]"#,
            r#"door: ["room_a", "yard", "cell", "room_b"]"#,
            r#"door shut: ["room_a", "yard", "room_b"]"#,
            // The wire is one-way: forward from the yard; back from out only under `against`.
            r#"wire: ["out"]"#,
            "wire back: []",
            r#"wire back allowed: ["yard"]"#,
            // A list of zones names the link's `to` end (out), whichever way it is crossed.
            r#"wire at out: ["out"]"#,
            "wire at yard: []",
            r#"back at out: ["yard"]"#,
            r#"avoid yard: ["room_a", "room_b"]"#,
            r#"avoid rooms: ["yard"]"#,
            // room_a holds one pawn, room_b two, the yard the guard: all full at 1.
            "limit 1: []",
            // Rooms hold two (room_b is full), the yard any number.
            r#"limits: ["room_a", "yard"]"#,
            // room_b's own limit (3) over the rooms' (2); no `limit`, so the yard has none.
            r#"exact over pattern: ["room_a", "yard", "room_b"]"#,
            // Full spaces, but the yard holds a guard.
            r#"passes: ["yard"]"#,
            // Full spaces holding a pawn may be entered, the empty cell too, not the yard.
            r#"prepared: ["room_a", "cell", "room_b"]"#,
            r#"prepared again: ["room_a", "cell", "room_b"]"#,
            "unknown key: steps: unknown rule key `crossing` (the keys are cross, against, avoid, limit, limits, passes)",
            "bad kind value: steps: `cross.door` must be true, false or a list of zones, not 1",
            "no such zone: steps: `avoid`: no zone named `attic`",
            "negative limit: steps: `limit` must be a number of pieces (0 or more), not -1",
            "bad filter: steps: `passes`: no component kind named `dragon`",
            "cross not a map: steps: `cross` must be a map from link kinds to true, false or zones, not 5",
            "zones not names: steps: `cross.plain` must list zone names, not 1",
            "avoid not names: steps: `avoid` must list zone names or patterns, not 1",
            "bad limit by pattern: steps: `limits.*` must be a number of pieces (0 or more), not -2",
            "passes not a map: steps: `passes` must be a filter map, not 3",
        ]
    );
    assert_eq!(game.outcome(), Some("done"));
}
