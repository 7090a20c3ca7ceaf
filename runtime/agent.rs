//! Agents: anything that picks one of a seat's legal actions.
//!
//! An agent is handed a `Decision`: its seat, its legal actions and, on request, its `View`.
//! It never gets the game itself, so an agent cannot read another seat's secrets.

use crate::flow::Game;
use crate::rng::Rng;
use crate::rules::SeatId;
use crate::state::Action;
use crate::view::{View, view};

/// What an agent is given when it must decide.
pub struct Decision<'a> {
    game: &'a Game,
    seat: SeatId,
    legal: &'a [Action],
}

impl<'a> Decision<'a> {
    /// A decision for `seat` among `legal` (its legal actions in `game`).
    pub fn new(game: &'a Game, seat: SeatId, legal: &'a [Action]) -> Self {
        Decision { game, seat, legal }
    }

    /// The seat deciding.
    pub fn seat(&self) -> SeatId {
        self.seat
    }

    /// The options, never empty.
    pub fn legal(&self) -> &[Action] {
        self.legal
    }

    /// What the seat knows of the game (built on request: random play never needs it).
    pub fn view(&self) -> View {
        view(self.game, Some(self.seat))
    }

    /// The options written as in logs (`seat: action args`).
    pub fn describe(&self, index: usize) -> String {
        crate::event::describe_action(self.game.rules(), &self.legal[index])
    }
}

/// Something that picks an action.
pub trait Agent {
    /// The index of the chosen action in `decision.legal()`.
    fn choose(&mut self, decision: &Decision) -> usize;
}

/// Picks uniformly at random among the legal actions, from its own seeded generator.
pub struct RandomAgent {
    rng: Rng,
}

impl RandomAgent {
    /// A random agent with its own seed.
    pub fn new(seed: u64) -> Self {
        RandomAgent { rng: Rng::seeded(seed) }
    }
}

impl Agent for RandomAgent {
    fn choose(&mut self, decision: &Decision) -> usize {
        self.rng.index(decision.legal().len())
    }
}

/// Always picks the first legal action: a deterministic baseline for tests.
pub struct FirstLegal;

impl Agent for FirstLegal {
    fn choose(&mut self, _decision: &Decision) -> usize {
        0
    }
}
