//! Illegal actions through the library API (`Game::check_legal`, `apply`, `apply_legal`,
//! `action_from_words`, `parse_action`): each is refused with a reason, and the game is left as
//! it was (its full view, its count of changes and its recorded events are the same after).

use std::rc::Rc;

use tabula::view::view;
use tabula::{Action, Args, Error, Game, LoadOptions, Value};

use crate::guard::{Limits, guarded};

/// East Berlin at its first decision: the exile chooses Angela's ability.
fn east_berlin() -> Game {
    let rules = tabula::load("east-berlin", &LoadOptions::default()).expect("east-berlin loads");
    Game::recorded(Rc::new(rules), 2, 1).expect("a game starts")
}

/// The feature tour in its play phase: red, blue and green may roll, draw, walk or spin.
fn feature_tour() -> Game {
    let rules = tabula::load("tests/fixtures/features", &LoadOptions::default()).expect("the fixture loads");
    let game = Game::recorded(Rc::new(rules), 3, 1).expect("a game starts");
    assert_eq!(game.phase(), "play");
    game
}

/// What must not change when an action is refused.
fn snapshot(game: &Game) -> (tabula::view::View, u64, usize) {
    (view(game, None), game.state().changes(), game.events().len())
}

/// One way into the game for an action (`check_legal`, `apply` or `apply_legal`).
type Check = fn(&mut Game, &Action) -> Result<(), Error>;

/// `action` is refused by `check_legal`, `apply` and `apply_legal` with a reason containing
/// `reason`, and the game is unchanged.
fn refused(game: &mut Game, action: &Action, reason: &str) {
    let before = snapshot(game);
    let checks: [(&str, Check); 3] = [
        ("check_legal", |g, a| g.check_legal(a)),
        ("apply", |g, a| g.apply(a)),
        ("apply_legal", |g, a| g.apply_legal(a)),
    ];
    for (how, check) in checks {
        match check(game, action) {
            Err(Error::Illegal { reason: r, .. }) => assert!(r.contains(reason), "{how} {action:?}: reason `{r}`"),
            other => panic!("{how} {action:?}: expected a refusal saying `{reason}`, got {other:?}"),
        }
        assert!(snapshot(game) == before, "{how} {action:?} changed the game");
    }
}

/// The text is refused by `parse_action` with a message containing `message`.
fn unreadable(game: &Game, text: &str, message: &str) {
    match game.parse_action(text) {
        Err(e) => assert!(e.to_string().contains(message), "`{text}`: `{e}`"),
        Ok(a) => panic!("`{text}` was read as {a:?}"),
    }
}

fn run(case: &str, f: fn()) {
    guarded(case, Limits::default(), f);
}

#[test]
fn another_seat_than_the_prompted_one_is_refused() {
    run("wrong-seat", || {
        let mut game = east_berlin();
        let action = game.parse_action("police: choose_ability angela funding").expect("readable");
        refused(&mut game, &action, "police has nothing to decide: waiting for exile");
    });
}

#[test]
fn a_seat_id_past_the_last_seat_is_refused() {
    run("unknown-seat-id", || {
        let mut game = east_berlin();
        let mut action = game.parse_action("exile: choose_ability angela funding").expect("readable");
        action.seat = 200;
        refused(&mut game, &action, "no seat #200");
    });
}

#[test]
fn an_action_id_past_the_last_action_is_refused() {
    run("unknown-action-id", || {
        let mut game = east_berlin();
        let mut action = game.parse_action("exile: choose_ability angela funding").expect("readable");
        action.action = 9_999;
        refused(&mut game, &action, "no action #9999");
    });
}

#[test]
fn a_piece_other_than_the_prompted_one_is_refused() {
    run("wrong-fixed-argument", || {
        let mut game = east_berlin();
        let action = game.parse_action("exile: choose_ability bruno funding").expect("readable");
        refused(&mut game, &action, "expected one of: exile: choose_ability angela construction");
    });
}

#[test]
fn out_of_range_argument_ids_are_refused() {
    run("out-of-range-ids", || {
        let mut game = east_berlin();
        let good = game.parse_action("exile: choose_ability angela funding").expect("readable");
        for args in [
            vec![Value::Piece(60_000), good.args[1]],
            vec![good.args[0], Value::Word(u32::MAX)],
            vec![Value::Zone(u16::MAX), good.args[1]],
            vec![good.args[0], Value::Seat(u8::MAX)],
            vec![good.args[0], Value::Int(i64::MIN)],
        ] {
            let args = Args::from_slice(&args).expect("two arguments fit");
            refused(&mut game, &Action { args, ..good }, "expected one of: exile: choose_ability angela");
        }
    });
}

#[test]
fn the_wrong_number_of_arguments_is_refused() {
    run("argument-count", || {
        let mut game = east_berlin();
        let good = game.parse_action("exile: choose_ability angela funding").expect("readable");
        for args in [vec![], vec![good.args[0]], vec![good.args[0], good.args[1], good.args[1]]] {
            let args = Args::from_slice(&args).expect("three arguments fit");
            refused(&mut game, &Action { args, ..good }, "expected one of");
        }
    });
}

#[test]
fn a_standing_action_of_a_seat_not_playing_is_refused() {
    run("seat-not-playing", || {
        let rules = tabula::load("tests/fixtures/features", &LoadOptions::default()).expect("the fixture loads");
        let mut game = Game::recorded(Rc::new(rules), 2, 1).expect("a two-player game starts");
        let action = game.parse_action("green: roll").expect("green is a seat of the rules");
        refused(&mut game, &action, "green has nothing to decide now");
    });
}

#[test]
fn an_integer_argument_out_of_its_range_is_refused() {
    run("int-out-of-range", || {
        let mut game = feature_tour();
        for n in [i64::MIN, -1, 0, 2, i64::MAX] {
            let action = game.action_from_words("red", "spin", &[n.to_string()]).expect("readable");
            refused(&mut game, &action, "expected one of");
        }
    });
}

#[test]
fn an_action_of_another_phase_is_refused() {
    run("wrong-phase", || {
        let mut game = feature_tour();
        let action = game.action_from_words("red", "deal", &[] as &[&str]);
        assert!(matches!(action, Err(Error::Input(m)) if m.contains("no action named `deal`")));
        let mut game2 = east_berlin();
        let action = game2.parse_action("exile: checkpoint pay").expect("readable");
        refused(&mut game2, &action, "expected one of: exile: choose_ability angela");
        let walk = game.parse_action("red: walk b").expect("readable");
        game.apply(&walk).expect("red may walk");
    });
}

#[test]
fn every_action_after_the_end_is_refused() {
    run("after-the-end", || {
        let mut game = east_berlin();
        let mut agents = tabula::sim::agents_for(game.rules(), "random", 2, 1).expect("agents");
        tabula::sim::play_out(&mut game, &mut agents, 100_000).expect("the game ends");
        assert!(game.is_over());
        for text in ["exile: choose_ability angela funding", "police: investigate arrest_angela police_tunnel"] {
            let action = game.parse_action(text).expect("readable");
            refused(&mut game, &action, "the game is over");
        }
    });
}

#[test]
fn unreadable_actions_are_refused_with_what_is_wrong() {
    run("unreadable", || {
        let game = east_berlin();
        unreadable(&game, "", "expected `seat: action args...`");
        unreadable(&game, "exile", "expected `seat: action args...`");
        unreadable(&game, "exile:", "expected an action name after the seat");
        unreadable(&game, ":", "expected an action name after the seat");
        unreadable(&game, "nobody: choose_ability angela funding", "no seat named `nobody`");
        unreadable(&game, "exile: fly", "no action named `fly`");
        unreadable(&game, "exile: choose_ability angela", "choose_ability takes 2 arguments, found 1");
        unreadable(&game, "exile: choose_ability angela funding extra", "takes 2 arguments, found 3");
        unreadable(&game, "exile: choose_ability ghost funding", "`ghost` is not a valid member");
        unreadable(&game, "exile: choose_ability angela flying", "`flying` is not a valid ability");
        unreadable(&game, "exile: choose_ability angéla funding", "`angéla` is not a valid member");
        unreadable(&game, "exile: choose_ability \0 funding", "is not a valid member");
        let huge = format!("exile: choose_ability {} funding", "a".repeat(1 << 20));
        match game.parse_action(&huge) {
            Err(e) => assert!(e.to_string().len() < 300, "the message quotes the whole argument"),
            Ok(a) => panic!("read as {a:?}"),
        }
    });
}

#[test]
fn integer_arguments_that_are_no_integers_are_refused() {
    run("not-integers", || {
        let game = feature_tour();
        for word in ["", "1e5", "one", "99999999999999999999", "-", "0x10", "１"] {
            match game.action_from_words("red", "spin", &[word]) {
                Err(Error::Input(m)) => assert!(m.contains("is not a valid times for spin"), "`{word}`: {m}"),
                other => panic!("`{word}`: {other:?}"),
            }
        }
    });
}
