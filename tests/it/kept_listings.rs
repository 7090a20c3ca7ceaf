//! Options listings kept between decisions (`runtime/script/listings.rs`), on the fixture
//! `tests/fixtures/kept_listings`: three seats take turns working for coins and giving tokens
//! away; out of turn, a seat may bid a token while it holds a coin. The listings given back
//! without running the hook must be exactly those the hook would list, and most out-of-turn
//! listings should be given back (a seat's coins and tokens seldom change on another's turn).

use std::rc::Rc;

use tabula::value::Action;
use tabula::{Game, LoadOptions, Rules};

const FIXTURE: &str = "tests/fixtures/kept_listings";

fn rules(interpret: bool) -> Rc<Rules> {
    let mut rules = tabula::load(FIXTURE, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    if interpret {
        rules.interpret_scripts();
    }
    Rc::new(rules)
}

/// Every seat's options, in seat order: what the simulator asks at each step of a game with
/// out-of-turn actions.
fn everyone(game: &Game) -> Vec<Vec<Action>> {
    (0..game.players()).map(|seat| game.legal_actions(seat).unwrap_or_else(|e| panic!("{e}"))).collect()
}

/// Plays a game from `seed`, each step an option of any seat drawn by a small generator of our
/// own, on every game given (the same actions on each); calls `step` with each game's options
/// before each action. Returns how many listings were asked of each game.
fn play(games: &mut [Game], seed: u64, mut step: impl FnMut(&[Vec<Vec<Action>>])) -> usize {
    let mut draw = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut listings = 0;
    for _ in 0..400 {
        if games[0].is_over() {
            break;
        }
        let options: Vec<Vec<Vec<Action>>> = games.iter().map(everyone).collect();
        listings += options[0].len();
        step(&options);
        let all: Vec<Action> = options[0].iter().flatten().copied().collect();
        draw = draw.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let chosen = all[(draw >> 33) as usize % all.len()];
        for game in games.iter_mut() {
            game.apply(&chosen).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
    assert!(games[0].is_over(), "seed {seed}: the game did not end");
    listings
}

#[test]
fn a_listing_given_back_is_the_one_the_hook_would_list() {
    // The same game compiled (listings kept) and on Rhai's interpreter (each listing run), from
    // twenty seeds: at every step, every seat's options are the same.
    for seed in 0..20 {
        let mut games =
            [Game::new(rules(false), 3, seed).expect("starts"), Game::new(rules(true), 3, seed).expect("starts")];
        play(&mut games, seed, |options| assert_eq!(options[0], options[1], "seed {seed}"));
    }
}

#[test]
fn most_listings_out_of_turn_are_given_back() {
    // Profiled, the options hook runs once per listing it makes: far fewer times than
    // listings are asked (three a step: the seat on turn's, and two out of turn).
    let _profiled = crate::common::PROFILED.lock().unwrap_or_else(|e| e.into_inner());
    tabula::script::profile::start();
    let mut asked = 0;
    for seed in 0..10 {
        let mut games = [Game::new(rules(false), 3, seed).expect("starts")];
        asked += play(&mut games, seed, |_| {});
    }
    tabula::script::profile::flush();
    let rows = tabula::script::profile::take();
    let ran = rows.iter().find(|r| r.function == "kept_listing_options").map_or(0, |r| r.calls) as usize;
    assert!(ran > 0, "the hook never ran: {rows:?}");
    assert!(ran * 3 < asked * 2, "the hook ran {ran} times for {asked} listings");
}
