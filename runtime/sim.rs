//! Simulation: many games played by agents, with the numbers a designer asks for.
//!
//! Game `i` of a run seeded `s` is seeded `Rng::derive_seed(s, i)`, and each seat's random agent
//! from that game seed, so any game of a run can be replayed on its own.

use std::rc::Rc;
use std::time::Instant;

use indexmap::IndexMap;
use serde::Serialize;

use crate::agent::{Agent, Decision, Plan, RandomAgent, ScriptAgent, Turn};
use crate::diag::Error;
use crate::flow::Game;
use crate::rng::Rng;
use crate::rules::Rules;

/// How to run a simulation.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// How many games.
    pub games: u64,
    /// The seed of the run.
    pub seed: u64,
    /// Player count (default: the ruleset's smallest).
    pub players: Option<u8>,
    /// Decisions after which a game is abandoned as an error (a ruleset that never ends).
    pub max_decisions: u64,
    /// A folder to write one log per game into (`game-000001.log`...).
    pub log_dir: Option<std::path::PathBuf>,
    /// Which agent plays every seat: `random`, or one of the ruleset's `[agents]` (default: the
    /// ruleset's `default_agent`).
    pub agent: Option<String>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions { games: 1000, seed: 0, players: None, max_decisions: 1_000_000, log_dir: None, agent: None }
    }
}

/// What a simulation found. `tabula sim --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct SimReport {
    /// The ruleset's name.
    pub ruleset: String,
    /// Variants in effect.
    pub variants: Vec<String>,
    /// Player count.
    pub players: u8,
    /// The agent that played every seat.
    pub agent: String,
    /// The run's seed.
    pub seed: u64,
    /// Games played.
    pub games: u64,
    /// Wall-clock seconds the games took (not part of any game: reporting only).
    pub seconds: f64,
    /// Games per second.
    pub playouts_per_s: f64,
    /// Mean number of decision points per game, one-option decisions included.
    pub decisions_per_game: f64,
    /// Outcome name -> number of games that ended so.
    pub outcomes: IndexMap<String, u64>,
}

/// The seed of a seat's agent in a game seeded `game_seed`.
pub fn agent_seed(game_seed: u64, seat: u8) -> u64 {
    Rng::derive_seed(game_seed, 1 + u64::from(seat))
}

/// Plays a game to its end with one agent per seat; returns the number of decisions taken.
/// In a real-time ruleset (one with a `pace`) seats act when their agent is ready; otherwise,
/// when several seats may act at once, the first in seat order acts first.
pub fn play_out(game: &mut Game, agents: &mut [Box<dyn Agent>], max_decisions: u64) -> Result<u64, Error> {
    play_out_observed(game, agents, max_decisions, &mut |_| Ok(()))
}

/// Like `play_out`, calling `after_each` after every action (tests check invariants with it).
pub fn play_out_observed(
    game: &mut Game,
    agents: &mut [Box<dyn Agent>],
    max_decisions: u64,
    after_each: &mut dyn FnMut(&Game) -> Result<(), Error>,
) -> Result<u64, Error> {
    if let Some(pace) = game.rules().pace {
        return play_out_in_real_time(game, agents, pace, max_decisions, after_each);
    }
    let mut decisions = 0u64;
    while !game.is_over() {
        let Some(&seat) = game.to_act().first() else {
            return Err(Error::Input(format!(
                "the game is stuck in phase `{}`: nobody may act and it is not over",
                game.phase()
            )));
        };
        match agents[seat as usize].plan(&Turn::new(game, seat))? {
            Plan::Choose => {
                let legal = game.legal_actions(seat)?;
                if legal.is_empty() {
                    return Err(Error::Input(format!(
                        "{} must decide in phase `{}` but has no legal action",
                        game.rules().seats[seat as usize].name,
                        game.phase()
                    )));
                }
                take_turn(game, agents, seat, &legal, after_each)?;
            }
            Plan::Take(action) => take_planned(game, seat, &action, after_each)?,
            Plan::Wait => {
                return Err(Error::Input(format!(
                    "the agent of {} waited, but the game waits for it",
                    game.rules().seats[seat as usize].name
                )));
            }
        }
        decisions = counted(decisions, max_decisions)?;
    }
    Ok(decisions)
}

/// `seat`'s agent chooses among `legal`, and its choice is applied; returns the action taken.
fn take_turn<'a>(
    game: &mut Game,
    agents: &mut [Box<dyn Agent>],
    seat: u8,
    legal: &'a [crate::state::Action],
    after_each: &mut dyn FnMut(&Game) -> Result<(), Error>,
) -> Result<&'a crate::state::Action, Error> {
    let choice = agents[seat as usize].choose(&Decision::new(game, seat, legal))?.min(legal.len() - 1);
    game.apply_unchecked(&legal[choice])?;
    after_each(game)?;
    Ok(&legal[choice])
}

/// Applies the action an agent worked out itself, after checking that it is legal.
fn take_planned(
    game: &mut Game,
    seat: u8,
    action: &crate::state::Action,
    after_each: &mut dyn FnMut(&Game) -> Result<(), Error>,
) -> Result<(), Error> {
    game.check_legal(action).map_err(|e| {
        Error::Input(format!("the agent of {} took an illegal action: {e}", game.rules().seats[seat as usize].name))
    })?;
    game.apply_unchecked(action)?;
    after_each(game)
}

/// One more decision, or an error once a game has taken too many (a ruleset that never ends).
fn counted(decisions: u64, max_decisions: u64) -> Result<u64, Error> {
    if decisions + 1 >= max_decisions {
        return Err(Error::Input(format!("the game did not end within {max_decisions} decisions")));
    }
    Ok(decisions + 1)
}

/// Real time: a seat's agent needs `pace` ms of game time per action (or the action's own
/// `time`). The seat whose agent is ready first acts (ties go to the earlier seat), at that game
/// time, after the timers the clock passes on the way. A seat with nothing to do waits one pace
/// and looks again. A seat whose action changed nothing (a roll that kept every die) waits
/// until something in the game changes: asking it again before would get the same answer.
fn play_out_in_real_time(
    game: &mut Game,
    agents: &mut [Box<dyn Agent>],
    pace: i64,
    max_decisions: u64,
    after_each: &mut dyn FnMut(&Game) -> Result<(), Error>,
) -> Result<u64, Error> {
    let mut ready = vec![game.clock(); game.players() as usize];
    // For a seat whose last action changed nothing: the game's change count at that moment.
    let mut idle_since: Vec<Option<u64>> = vec![None; game.players() as usize];
    let (mut decisions, mut looks) = (0u64, 0u64);
    while !game.is_over() {
        let changes = game.state().changes();
        let waiting: Vec<u8> = game.to_act().into_iter().filter(|&s| idle_since[s as usize] != Some(changes)).collect();
        let Some(seat) = waiting.iter().copied().min_by_key(|&s| (ready[s as usize], s)) else {
            // Nobody may act: let the clock run to the next timer.
            match game.next_timer_at() {
                Some(at) => game.advance_clock(at)?,
                None => {
                    return Err(Error::Input(format!("the game is stuck in phase `{}`: nobody may act", game.phase())));
                }
            }
            continue;
        };
        let at = ready[seat as usize].max(game.clock());
        game.advance_clock(at)?;
        ready[seat as usize] = at + pace;
        looks += 1;
        if looks >= max_decisions.saturating_mul(10) {
            return Err(Error::Input(format!("the game did not end after {looks} turns of the agents")));
        }
        if game.is_over() || !game.to_act().contains(&seat) {
            continue;
        }
        let before = game.state().changes();
        let taken = match agents[seat as usize].plan(&Turn::new(game, seat))? {
            Plan::Choose => {
                let legal = game.legal_actions(seat)?;
                if legal.is_empty() {
                    // Nothing to do now (a player already out of the game): wait until something
                    // changes.
                    idle_since[seat as usize] = Some(before);
                    continue;
                }
                take_turn(game, agents, seat, &legal, after_each)?.action
            }
            Plan::Take(action) => {
                take_planned(game, seat, &action, after_each)?;
                action.action
            }
            Plan::Wait => {
                idle_since[seat as usize] = Some(before);
                continue;
            }
        };
        idle_since[seat as usize] = (game.state().changes() == before).then_some(before);
        // The seat is busy for as long as the chosen action takes.
        let took = game.rules().actions[taken as usize].time.unwrap_or(pace);
        ready[seat as usize] = at + took.max(1);
        decisions = counted(decisions, max_decisions)?;
    }
    Ok(decisions)
}

/// The agents for a game seeded `game_seed`: `random`, or a ruleset agent, on every seat.
pub fn agents_for(rules: &Rc<Rules>, agent: &str, players: u8, game_seed: u64) -> Result<Vec<Box<dyn Agent>>, Error> {
    if agent == "random" {
        return Ok(random_agents(players, game_seed));
    }
    (0..players)
        .map(|_| {
            ScriptAgent::new(rules.clone(), agent).map(|a| Box::new(a) as Box<dyn Agent>).ok_or_else(|| {
                let names: Vec<&str> =
                    std::iter::once("random").chain(rules.agents.iter().map(|a| a.name.as_str())).collect();
                Error::Input(format!("no agent `{agent}` in {}: expected one of {}", rules.id, names.join(", ")))
            })
        })
        .collect()
}

/// Random agents for every seat of a game seeded `game_seed`.
pub fn random_agents(players: u8, game_seed: u64) -> Vec<Box<dyn Agent>> {
    (0..players).map(|s| Box::new(RandomAgent::new(agent_seed(game_seed, s))) as Box<dyn Agent>).collect()
}

/// Plays `options.games` games with random agents, calling `progress` after each game.
pub fn simulate(rules: Rc<Rules>, options: &SimOptions, progress: &mut dyn FnMut(u64)) -> Result<SimReport, Error> {
    let players = options.players.unwrap_or(rules.players.0);
    let agent = options.agent.clone().unwrap_or_else(|| rules.default_agent.clone());
    let mut outcomes: IndexMap<String, u64> = rules.outcomes.iter().map(|o| (o.name.clone(), 0)).collect();
    let mut decisions = 0u64;
    if let Some(dir) = &options.log_dir {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.clone(), source })?;
    }
    let start = Instant::now();
    for i in 0..options.games {
        let game_seed = Rng::derive_seed(options.seed, i);
        let start_game = if options.log_dir.is_some() { Game::recorded } else { Game::new };
        let mut game = start_game(rules.clone(), players, game_seed).map_err(|e| match e {
            Error::Script(d) => {
                Error::Script(Box::new(d.note(format!("while setting up game {i} of the run, seeded {game_seed}"))))
            }
            other => other,
        })?;
        let mut agents = agents_for(&rules, &agent, players, game_seed)?;
        decisions += play_out(&mut game, &mut agents, options.max_decisions).map_err(|e| match e {
            Error::Script(d) => Error::Script(Box::new(d.note(format!("in game {i} of the run, seeded {game_seed}")))),
            other => Error::Input(format!("game {i} (seed {game_seed}): {other}")),
        })?;
        *outcomes.entry(game.outcome().unwrap_or("none").to_string()).or_default() += 1;
        if let Some(dir) = &options.log_dir {
            let path = dir.join(format!("game-{:06}.log", i + 1));
            let text = crate::log::record(&game, Some(game_seed)).to_string();
            std::fs::write(&path, text).map_err(|source| Error::Io { path, source })?;
        }
        progress(i + 1);
    }
    let seconds = start.elapsed().as_secs_f64();
    let games = options.games;
    Ok(SimReport {
        ruleset: rules.id.clone(),
        variants: rules.variants.clone(),
        players,
        agent,
        seed: options.seed,
        games,
        seconds,
        playouts_per_s: if seconds > 0.0 { games as f64 / seconds } else { 0.0 },
        decisions_per_game: if games > 0 { decisions as f64 / games as f64 } else { 0.0 },
        outcomes,
    })
}
