//! Every screen `tabula play` shows a person fits a terminal of 40 lines of 120 columns: a few
//! games of every shipped ruleset, played by random agents, with the screen each seat would be
//! shown at each of its decisions (`Decision::screen`, what `tabula play` prints) measured.
//! A new ruleset under `rulesets/` is checked without being named here.

use std::rc::Rc;

use tabula::agent::{Agent, Decision, RandomAgent};
use tabula::sim::play_out;
use tabula::{Game, LoadOptions, load};

/// A random player that keeps the screens it was shown.
struct Looking {
    random: RandomAgent,
    told: usize,
    screens: Rc<std::cell::RefCell<Vec<String>>>,
}

impl Agent for Looking {
    fn choose(&mut self, decision: &Decision) -> Result<usize, tabula::Error> {
        self.screens.borrow_mut().push(decision.screen(&mut self.told));
        self.random.choose(decision)
    }
}

#[test]
fn every_decision_screen_fits_forty_lines_of_a_hundred_and_twenty_columns() {
    for path in crate::common::shipped_rulesets() {
        let path = path.as_str();
        let rules = Rc::new(load(path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{path}: {e}")));
        let (smallest, largest) = rules.players;
        let mut checked = 0;
        // The fewest and the most players: the most seats make the longest screens.
        for (seed, players) in [(1, smallest), (2, largest)] {
            let screens = Rc::new(std::cell::RefCell::new(Vec::new()));
            let mut game = Game::new(rules.clone(), players, seed).unwrap_or_else(|e| panic!("{path}: {e}"));
            let mut agents: Vec<Box<dyn Agent>> = (0..game.players())
                .map(|s| {
                    Box::new(Looking {
                        random: RandomAgent::new(seed * 10 + s as u64),
                        told: 0,
                        screens: screens.clone(),
                    }) as Box<dyn Agent>
                })
                .collect();
            // A few hundred decisions: a game's start, its middle, and for the short ones its end.
            let _ = play_out(&mut game, &mut agents, 300);
            for screen in screens.borrow().iter() {
                // The blank line before the screen and the prompt after it are the terminal's too.
                let lines = screen.lines().count() + 2;
                let wide = screen.lines().map(|l| l.chars().count()).max().unwrap_or(0);
                assert!(
                    lines <= 40 && wide <= 120,
                    "{path}, {players} players: {lines} lines, {wide} columns:\n{screen}"
                );
                checked += 1;
            }
        }
        assert!(checked > 50, "{path}: only {checked} screens checked");
    }
}
