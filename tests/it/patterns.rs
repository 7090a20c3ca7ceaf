//! The patterns that docs/ruleset-format.md ("Patterns") teaches, played on the fixture
//! `tests/fixtures/roll-or-play` (a race to 12: roll the die or play a sprint card, in one
//! decision; the cards are the acting seat's own).

use std::rc::Rc;

use tabula::event::describe_action;
use tabula::{Game, LoadOptions};

const FIXTURE: &str = "tests/fixtures/roll-or-play";

fn new_game() -> Game {
    let rules = tabula::load(FIXTURE, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    Game::new(Rc::new(rules), 2, 7).expect("starts")
}

fn options(game: &Game, seat: &str) -> Vec<String> {
    let seat = game.rules().seat(seat).expect("seat");
    game.legal_actions(seat).expect("lists").iter().map(|a| describe_action(game.rules(), a)).collect()
}

#[test]
fn rolling_and_playing_a_card_are_options_of_one_decision_and_the_cards_are_ones_own() {
    let mut game = new_game();
    // Red chooses among the die and its own two cards; blue's cards are not among them.
    assert_eq!(options(&game, "red"), ["red: advance die", "red: advance red_sprint_1", "red: advance red_sprint_2"]);
    game.apply(&game.parse_action("red: advance red_sprint_2").unwrap()).unwrap();
    // Blue's turn: its own cards, and red's spent card is nowhere to be chosen.
    assert_eq!(
        options(&game, "blue"),
        ["blue: advance die", "blue: advance blue_sprint_1", "blue: advance blue_sprint_2"]
    );
    assert!(game.parse_action("blue: advance red_sprint_1").and_then(|a| game.check_legal(&a)).is_err());
    game.apply(&game.parse_action("blue: advance die").unwrap()).unwrap();
    assert_eq!(options(&game, "red"), ["red: advance die", "red: advance red_sprint_1"]);
    // Two sprints make 12: the card's choice ends the race.
    game.apply(&game.parse_action("red: advance red_sprint_1").unwrap()).unwrap();
    assert_eq!(game.outcome(), Some("red"));
}

#[test]
fn check_counts_in_words_and_says_when_every_function_is_compiled() {
    let (ok, out, err) = crate::common::tabula(&["check", FIXTURE], "");
    assert!(ok, "{err}");
    assert!(out.contains("(4 zones, 5 pieces, 2 phases, 1 action, 1 script hook;"), "{out}");
    assert!(out.contains("scripts: 1 function, all compiled"), "{out}");
    assert!(!out.contains("interpreter"), "{out}");
}

#[test]
fn a_line_said_to_one_seat_reaches_that_seat_alone() {
    // A recorded game keeps its events, which narration reads.
    let rules = tabula::load(FIXTURE, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let mut game = Game::recorded(Rc::new(rules), 2, 7).expect("starts");
    game.apply(&game.parse_action("red: advance red_sprint_2").unwrap()).unwrap();
    let told = |seat: u8| tabula::narrate::narrate(&game, Some(seat), game.events());
    let (red, blue) = (told(0), told(1));
    assert!(red.contains(&"red sprints".to_string()) && blue.contains(&"red sprints".to_string()), "{red:?} {blue:?}");
    assert!(red.contains(&"sprint cards left: 1".to_string()), "{red:?}");
    assert!(!blue.iter().any(|l| l.starts_with("sprint cards left")), "{blue:?}");
}

#[test]
fn a_parameter_of_several_kinds_lists_its_pieces_in_the_order_they_are_declared_whatever_the_order_of_its_kinds() {
    // The same race with the parameter's kinds written cards first: the options still come in
    // the order of the `[pieces]` table (the die, then the cards), as `legal_actions` promises.
    let dir = crate::common::scratch_dir("patterns-kinds-order");
    for file in ["game.toml", "rules.rhai"] {
        let text = std::fs::read_to_string(std::path::Path::new(FIXTURE).join(file)).expect("fixture");
        let kinds = r#"pieces = ["die", "card"]"#;
        assert!(file != "game.toml" || text.contains(kinds), "the fixture's parameter changed");
        let text = text.replace(kinds, r#"pieces = ["card", "die"]"#);
        std::fs::write(dir.join(file), text).expect("write");
    }
    let rules = tabula::load(dir.to_str().expect("path"), &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let game = Game::new(Rc::new(rules), 2, 7).expect("starts");
    assert_eq!(options(&game, "red"), ["red: advance die", "red: advance red_sprint_1", "red: advance red_sprint_2"]);
}
