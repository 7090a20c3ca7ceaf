//! Script functions given the `view` remembered (`runtime/script/compile/memo.rs`), on the
//! fixture `tests/fixtures/seen_by`: two seats draw hidden cards, play them face up and pass; a
//! pointer names the card last drawn, hidden from the seat that did not draw it. The agent
//! chooses by three helpers given the view (one also given a list, one a map). Compiled, their
//! answers are given back per seat while what they read is unchanged: given back to the wrong
//! seat, or after what they read changed (a card the pointer names coming into sight), the
//! agent would choose otherwise than on Rhai's interpreter, where every call runs.

use std::rc::Rc;

use tabula::event::Event;
use tabula::{LoadOptions, Rules};

const FIXTURE: &str = "tests/fixtures/seen_by";

fn rules(interpret: bool) -> Rc<Rules> {
    let mut rules = tabula::load(FIXTURE, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    if interpret {
        rules.interpret_scripts();
    }
    Rc::new(rules)
}

/// The events of `games` games played by the fixture's agent on both seats.
fn games(interpret: bool, games: u64) -> Vec<Vec<Event>> {
    let rules = rules(interpret);
    (0..games)
        .map(|i| {
            let seed = tabula::rng::Rng::derive_seed(3, i);
            let mut game = tabula::Game::recorded(rules.clone(), 2, seed).expect("starts");
            let mut agents = tabula::sim::agents_for(&rules, "viewer", 2, seed).expect("agents");
            tabula::sim::play_out(&mut game, &mut agents, 1_000).expect("plays");
            assert!(game.is_over(), "game {i} did not end");
            game.events().to_vec()
        })
        .collect()
}

#[test]
fn helpers_given_the_view_answer_as_they_would_run() {
    let (compiled, interpreted) = (games(false, 40), games(true, 40));
    for (i, (c, r)) in compiled.iter().zip(&interpreted).enumerate() {
        assert!(c == r, "game {i}: the compiled agent chose otherwise than the interpreted one");
    }
}

#[test]
fn helpers_given_the_view_are_remembered() {
    // Profiled, a helper runs only when its answer is not given back: far fewer times than the
    // agent asks for it (once a decision; `weighed` twice, with two maps of weights).
    let _profiled = crate::common::PROFILED.lock().unwrap_or_else(|e| e.into_inner());
    tabula::script::profile::start();
    games(false, 20);
    tabula::script::profile::flush();
    let rows = tabula::script::profile::take();
    let calls = |name: &str| rows.iter().find(|r| r.function == name).map_or(0, |r| r.calls);
    let asked = calls("viewer");
    assert!(asked >= 20 * 40, "the agent ran {asked} times");
    for (helper, each) in [("values_in", 1), ("weighed", 2), ("pointed_value", 1)] {
        let ran = calls(helper);
        assert!(ran > 0 && ran * 4 < asked * each * 3, "{helper} ran {ran} times for {} calls", asked * each);
    }
}
