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

    /// The game, for agents inside the crate that apply visibility themselves.
    pub(crate) fn game(&self) -> &Game {
        self.game
    }

    /// The terminal's screen for this decision: what happened since the last screen (`told`,
    /// the place in the game's event stream it ended at, updated here; start at 0), narrated for
    /// this seat, then its view and its numbered options. See `narrate::screen`.
    pub fn screen(&self, told: &mut usize) -> String {
        let options: Vec<String> = (0..self.legal.len()).map(|i| self.describe(i)).collect();
        let text = crate::narrate::screen(self.game, self.seat, *told, &options);
        *told = self.game.events().len();
        text
    }

    /// Everything behind [`Decision::screen`] (see `narrate::details`): all that happened
    /// since event `told`, the whole view, every option.
    pub fn details(&self, told: usize) -> String {
        let options: Vec<String> = (0..self.legal.len()).map(|i| self.describe(i)).collect();
        crate::narrate::details(self.game, self.seat, told, &options)
    }

    /// Where the game's event stream ends now: what a screen shown now has told.
    pub fn events_told(&self) -> usize {
        self.game.events().len()
    }

    /// What the ruleset says of an action (its `description`), for a player asking for help.
    pub fn help(&self) -> Vec<(String, String)> {
        let defs = self.game.rules();
        let mut seen: Vec<u16> = Vec::new();
        let mut out = Vec::new();
        for a in self.legal {
            if !seen.contains(&a.action) {
                seen.push(a.action);
                let def = &defs.actions[a.action as usize];
                out.push((def.name.clone(), def.description.clone()));
            }
        }
        out
    }

    /// The options written as in logs (`seat: action args`).
    pub fn describe(&self, index: usize) -> String {
        crate::event::describe_action(self.game.rules(), &self.legal[index])
    }
}

/// A seat's moment to act, before any option is listed: for agents that work out their action
/// themselves (`Agent::plan`).
pub struct Turn<'a> {
    game: &'a Game,
    seat: SeatId,
}

impl<'a> Turn<'a> {
    /// `seat`'s turn in `game`.
    pub fn new(game: &'a Game, seat: SeatId) -> Self {
        Turn { game, seat }
    }

    /// The seat to act.
    pub fn seat(&self) -> SeatId {
        self.seat
    }

    /// What the seat knows of the game.
    pub fn view(&self) -> View {
        view(self.game, Some(self.seat))
    }

    /// The game, for agents inside the crate that apply visibility themselves.
    pub(crate) fn game(&self) -> &Game {
        self.game
    }
}

/// What an agent makes of its turn before seeing the options.
#[derive(Clone, Debug, PartialEq)]
pub enum Plan {
    /// List the legal actions and let me `choose` (what most agents do).
    Choose,
    /// Take this action (the caller checks that it is legal).
    Take(Action),
    /// Do nothing for now (real time: the seat waits until something changes).
    Wait,
}

/// Something that picks an action.
pub trait Agent {
    /// The index of the chosen action in `decision.legal()`, or why none could be chosen (an
    /// agent written in a script can fail).
    fn choose(&mut self, decision: &Decision) -> Result<usize, crate::Error>;

    /// Asked first at every turn. An agent that works its action out itself returns it here,
    /// and the options are never listed (listing them can cost more than deciding). The
    /// default asks for the list.
    fn plan(&mut self, _turn: &Turn) -> Result<Plan, crate::Error> {
        Ok(Plan::Choose)
    }

    /// Offered a chance to act out of turn (a phase's `out_of_turn` actions: the game does not
    /// wait for this seat): the index of the option to take in `decision.legal()`, or `None` to
    /// let the game go on. The default lets it go on.
    fn react(&mut self, _decision: &Decision) -> Result<Option<usize>, crate::Error> {
        Ok(None)
    }

    /// What the agent counted of its work in the game so far, as (what, how many): a run's
    /// report sums them by seat (`tabula sim` prints them, its JSON has them as `agent_counts`),
    /// so that a designer sees what an agent cost and how it fared (the search agent: decisions
    /// searched, on samples that did not match all it saw, playouts...). Most agents count
    /// nothing.
    fn counts(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
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
    fn choose(&mut self, decision: &Decision) -> Result<usize, crate::Error> {
        if decision.legal().is_empty() {
            return Err(crate::Error::Input("the random agent was given no option to choose from".into()));
        }
        Ok(self.rng.index(decision.legal().len()))
    }

    /// Uniformly among the options and letting the game go on.
    fn react(&mut self, decision: &Decision) -> Result<Option<usize>, crate::Error> {
        let n = decision.legal().len();
        let i = self.rng.index(n + 1);
        Ok((i < n).then_some(i))
    }
}

/// Always picks the first legal action: a deterministic baseline for tests.
pub struct FirstLegal;

impl Agent for FirstLegal {
    fn choose(&mut self, _decision: &Decision) -> Result<usize, crate::Error> {
        Ok(0)
    }
}

/// An agent written in the ruleset's scripts (`[agents.<name>]`). A `choose` agent gets the
/// seat's `view` (only what the seat may know) and the options as maps, and returns an index;
/// an `act` agent gets the view alone and returns the action as a map, or `()` to wait.
pub struct ScriptAgent {
    rules: std::rc::Rc<crate::rules::Rules>,
    decides: crate::rules::AgentHook,
    name: String,
}

impl ScriptAgent {
    /// The ruleset's agent of that name, if it has one.
    pub fn new(rules: std::rc::Rc<crate::rules::Rules>, name: &str) -> Option<Self> {
        let def = rules.agents.iter().find(|a| a.name == name)?;
        let decides = def.decides;
        Some(ScriptAgent { rules, decides, name: name.to_string() })
    }

    /// Whether it picks one of the options listed (a `choose` agent), so that asked again with
    /// fewer of them it gives its next choice; an `act` agent works out its one action itself.
    pub fn chooses_from_a_list(&self) -> bool {
        matches!(self.decides, crate::rules::AgentHook::Choose(_))
    }
}

impl ScriptAgent {
    /// Calls a `choose` function with the options as maps: `Some(index)`, or `None` for a
    /// negative answer (letting the game go on, when offered a chance out of turn).
    fn call_choose(&self, hook: crate::rules::HookId, decision: &Decision) -> Result<Option<usize>, crate::Error> {
        let defs = &self.rules;
        let index = defs.scripts.call_agent(hook, decision.game().state(), decision.seat(), decision.legal())?;
        if index < 0 {
            return Ok(None);
        }
        if index < decision.legal().len() as i64 {
            Ok(Some(index as usize))
        } else {
            Err(self.out_of_range(index, decision))
        }
    }

    fn out_of_range(&self, index: i64, decision: &Decision) -> crate::Error {
        crate::Error::Input(format!("agent `{}` chose option {index} of {}", self.name, decision.legal().len()))
    }
}

impl Agent for ScriptAgent {
    fn choose(&mut self, decision: &Decision) -> Result<usize, crate::Error> {
        let hook = match self.decides {
            crate::rules::AgentHook::Choose(hook) => hook,
            // An `act` agent asked to choose (a caller that lists first): find its action.
            crate::rules::AgentHook::Act(_) => {
                let plan = self.plan(&Turn::new(decision.game(), decision.seat()))?;
                return match plan {
                    Plan::Take(action) => decision.legal().iter().position(|a| *a == action).ok_or_else(|| {
                        crate::Error::Input(format!(
                            "agent `{}` chose `{}`, which is not one of its options",
                            self.name,
                            crate::event::describe_action(&self.rules, &action)
                        ))
                    }),
                    _ => Err(crate::Error::Input(format!("agent `{}` waited where it had to choose", self.name))),
                };
            }
        };
        match self.call_choose(hook, decision)? {
            Some(index) => Ok(index),
            None => Err(self.out_of_range(-1, decision)),
        }
    }

    /// A `choose` agent returns a negative index to let the game go on; an `act` agent returns
    /// `()` (it waits).
    fn react(&mut self, decision: &Decision) -> Result<Option<usize>, crate::Error> {
        match self.decides {
            crate::rules::AgentHook::Choose(hook) => self.call_choose(hook, decision),
            crate::rules::AgentHook::Act(_) => match self.plan(&Turn::new(decision.game(), decision.seat()))? {
                Plan::Take(action) => match decision.legal().iter().position(|a| *a == action) {
                    Some(i) => Ok(Some(i)),
                    None => Err(crate::Error::Input(format!(
                        "agent `{}` chose `{}`, which is not one of its options",
                        self.name,
                        crate::event::describe_action(&self.rules, &action)
                    ))),
                },
                Plan::Wait | Plan::Choose => Ok(None),
            },
        }
    }

    fn plan(&mut self, turn: &Turn) -> Result<Plan, crate::Error> {
        let crate::rules::AgentHook::Act(hook) = self.decides else { return Ok(Plan::Choose) };
        let defs = &self.rules;
        let value = defs.scripts.call_agent_act(hook, turn.game().state(), turn.seat())?;
        if value.is_unit() {
            return Ok(Plan::Wait);
        }
        crate::script::map_action(defs, turn.seat(), &value)
            .map(Plan::Take)
            .map_err(|e| crate::Error::Input(format!("agent `{}` returned no action it could take: {e}", self.name)))
    }
}
