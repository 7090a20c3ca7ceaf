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
