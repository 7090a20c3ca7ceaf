//! Simulation: many games played by agents, with the numbers a designer asks for.
//!
//! Game `i` of a run seeded `s` is seeded `Rng::derive_seed(s, i)`, and each seat's random agent
//! from that game seed, so any game of a run can be replayed on its own.

use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use indexmap::IndexMap;
use serde::Serialize;

use crate::agent::{Agent, Decision, Plan, RandomAgent, ScriptAgent, Turn};
pub use crate::balance::{Balance, GameRecord, Tally};
use crate::diag::Error;
use crate::flow::Game;
use crate::rng::Rng;
use crate::rules::load::LoadOptions;
use crate::rules::{ActionId, Rules, SeatId};
use crate::state::Action;
use crate::view::{seat_fingerprint, sight_fingerprint, sight_is_shared, table_fingerprint};

/// How to run a simulation.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// How many games.
    pub games: u64,
    /// The seed of the run.
    pub seed: u64,
    /// Player count (default: the ruleset's `usual_players`, else its smallest).
    pub players: Option<u8>,
    /// Decisions after which a game is stopped (a safety bound: such games are reported as
    /// `stopped`, and `tabula check` calls the ruleset unsound).
    pub max_decisions: u64,
    /// A folder to write one log per game into (`game-000001.log`...).
    pub log_dir: Option<std::path::PathBuf>,
    /// Which agent plays every seat: `random`, `search[:options]`, or one of the ruleset's `[agents]` (default: the
    /// ruleset's `default_agent`).
    pub agent: Option<String>,
    /// Agents for particular seats (seat name, agent), over `agent`.
    pub seat_agents: Vec<(String, String)>,
    /// Counters whose final values each game's record keeps (`--record`).
    pub record: Vec<String>,
    /// Whether the report keeps every game's record (`--csv`, `--jsonl`). Without them a run
    /// keeps only counts, so its memory does not grow with the number of games.
    pub keep_records: bool,
    /// In this many first games of the run, check at every step that each phase's `options`
    /// hook agrees with the actions' own checks (`Game::options_disagreement`; `tabula check`
    /// does): a disagreement stops the run with an error, since a game could take an option
    /// that replay refuses. The check costs a few hook calls per option listed.
    pub check_options: u64,
    /// Whether to profile the scripts: the report's `profile` then says where their time went
    /// (`tabula sim --profile`, `script::profile`). It changes no game.
    pub profile: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            games: 1000,
            seed: 0,
            players: None,
            max_decisions: 1_000_000,
            log_dir: None,
            agent: None,
            seat_agents: Vec::new(),
            record: Vec::new(),
            keep_records: false,
            check_options: 0,
            profile: false,
        }
    }
}

/// What a simulation found. `tabula sim --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct SimReport {
    /// The ruleset's name.
    pub ruleset: String,
    /// Variants in effect.
    pub variants: Vec<String>,
    /// Parameters overridden with `--set`, name -> value as given.
    pub set: IndexMap<String, String>,
    /// Player count.
    pub players: u8,
    /// The agent on the seats no `seat_agents` entry names.
    pub agent: String,
    /// The agent of each seat.
    pub agents: IndexMap<String, String>,
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
    /// Shares with confidence intervals, seats' wins and advantage, game length.
    #[serde(flatten)]
    pub balance: Balance,
    /// One record per game, in order, when `SimOptions::keep_records` asks for them (not
    /// printed: `--csv` and `--jsonl` write them); empty otherwise.
    #[serde(skip)]
    pub records: Vec<GameRecord>,
    /// What the seats' agents counted of their work (`Agent::counts`), summed over the games, by
    /// seat, then by what was counted; left out of the JSON when no agent counts anything.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub agent_counts: IndexMap<String, IndexMap<String, u64>>,
    /// Where the scripts' time went, by function, most first, when `SimOptions::profile` asks
    /// (left out of the JSON otherwise): the threads that played the games, summed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub profile: Vec<crate::script::profile::ProfileRow>,
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

/// Like `play_out`, calling `after_each` after every action, and after the clock moved the game
/// on by itself (a timer fired: the game may have ended on the clock).
pub fn play_out_observed(
    game: &mut Game,
    agents: &mut [Box<dyn Agent>],
    max_decisions: u64,
    after_each: &mut dyn FnMut(&Game) -> Result<(), Error>,
) -> Result<u64, Error> {
    let mut scheduler = Scheduler::new(game, max_decisions);
    let mut decisions = 0u64;
    // The options of each decision, listed into one buffer kept for the game.
    let mut legal = Vec::new();
    loop {
        let changes = game.state().changes();
        let next = scheduler.next(game)?;
        if game.state().changes() != changes {
            after_each(game)?;
        }
        let Some(seat) = next else { return Ok(decisions) };
        let before = game.state().changes();
        let taken = take_turn(game, agents, seat, &scheduler, &mut legal, after_each)?;
        scheduler.done(game, seat, taken, before);
        if taken.is_some() {
            decisions = counted(decisions, max_decisions)?;
        }
    }
}

/// `seat`'s agent plans, or chooses among the legal actions, and its action is applied; returns
/// the action taken, or `None` when the seat waits or lets the game go on (see `decide`).
fn take_turn(
    game: &mut Game,
    agents: &mut [Box<dyn Agent>],
    seat: u8,
    scheduler: &Scheduler,
    legal: &mut Vec<Action>,
    after_each: &mut dyn FnMut(&Game) -> Result<(), Error>,
) -> Result<Option<ActionId>, Error> {
    let asked =
        if scheduler.out_of_turn() { Asked::OutOfTurn } else { Asked::OnTurn { real_time: scheduler.is_real_time() } };
    let Some(action) = decide(&mut *agents[seat as usize], game, seat, asked, legal)? else { return Ok(None) };
    game.apply_unchecked(&action)?;
    after_each(game)?;
    Ok(Some(action.action))
}

/// How a seat is asked to act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    /// The game waits for the seat (`real_time`: or the seat acts when ready, and may wait).
    OnTurn {
        /// Whether the game is played in real time.
        real_time: bool,
    },
    /// The seat is offered a chance to act out of turn (`Game::may_act_out_of_turn`): it may
    /// let the game go on, and with no out-of-turn option it is not asked at all.
    OutOfTurn,
}

/// What `seat`'s agent does when asked (its plan, or its choice among the legal actions listed
/// into `legal`): the action to take, checked when the agent built it itself, or `None` when
/// the seat waits (real time) or lets the game go on (out of turn). A turn-based game waits
/// for the seat on turn, so waiting there is an error.
pub fn decide(
    agent: &mut dyn Agent,
    game: &Game,
    seat: SeatId,
    asked: Asked,
    legal: &mut Vec<Action>,
) -> Result<Option<Action>, Error> {
    let name = || game.rules().seats[seat as usize].name.clone();
    let real_time = match asked {
        Asked::OutOfTurn => {
            game.legal_actions_into(seat, legal)?;
            if legal.is_empty() {
                return Ok(None);
            }
            let choice = agent.react(&Decision::new(game, seat, legal))?;
            return Ok(choice.map(|i| legal[i.min(legal.len() - 1)]));
        }
        Asked::OnTurn { real_time } => real_time,
    };
    match agent.plan(&Turn::new(game, seat))? {
        Plan::Choose => {
            game.legal_actions_into(seat, legal)?;
            if legal.is_empty() {
                // Real time: nothing to do now (a player already out of the game).
                if real_time {
                    return Ok(None);
                }
                let message = format!("{} must decide in phase `{}` but has no legal action", name(), game.phase());
                return Err(Error::Input(message));
            }
            let choice = agent.choose(&Decision::new(game, seat, legal))?.min(legal.len() - 1);
            Ok(Some(legal[choice]))
        }
        Plan::Take(action) => {
            game.check_legal(&action)
                .map_err(|e| Error::Input(format!("the agent of {} took an illegal action: {e}", name())))?;
            Ok(Some(action))
        }
        Plan::Wait if real_time => Ok(None),
        Plan::Wait => Err(Error::Input(format!("the agent of {} waited, but the game waits for it", name()))),
    }
}

/// One more decision, or an error once a game has taken too many (a ruleset that never ends).
fn counted(decisions: u64, max_decisions: u64) -> Result<u64, Error> {
    if decisions + 1 >= max_decisions {
        return Err(Error::Unfinished(format!("the game did not end within {max_decisions} decisions")));
    }
    Ok(decisions + 1)
}

/// Who is asked to act next, and when.
///
/// Turn-based games ask the first seat that may act; after each action, before that, every
/// seat that may act out of turn (`Game::out_of_turn_seats`, in seat order from the one after
/// the seat on turn) is offered the chance once (`out_of_turn`). In real time (a ruleset with a `pace`) a
/// seat's agent needs `pace` ms of game time per action (or the action's own `time`): the seat
/// whose agent is ready first acts (ties go to the earlier seat), at that game time, after the
/// timers the clock passes on the way. A seat with nothing to do, or whose action changed
/// nothing (a roll that kept every die), waits until what *it* sees changes (its
/// `view::sight_fingerprint`): asking it again before would get the same answer, and waking it
/// on a change it cannot see would tell it that something hidden happened.
#[derive(Clone, Debug)]
pub struct Scheduler {
    pace: Option<i64>,
    /// When each seat's agent is ready to act again (game time).
    ready: Vec<i64>,
    /// For each waiting seat: what it saw when it began to wait.
    idle: Vec<Option<Idle>>,
    /// For each seat, the last fingerprint of its sight taken, at the change count it was
    /// taken: a seat woken by a change it sees and that then waits again is not fingerprinted
    /// twice for the same state.
    last_sight: Vec<Option<Idle>>,
    /// When every seat sees the table alike (`view::sight_is_shared`): the table's part of the
    /// fingerprints, at the change count it was taken, shared by the waiting seats.
    shared_table: Option<Option<Idle>>,
    /// The game time of the turn last handed out.
    at: i64,
    /// Turn-based: the seats still to be offered a chance out of turn since the last action.
    chances: Vec<SeatId>,
    /// Whether the seat last handed out is offered a chance out of turn.
    offered: bool,
    looks: u64,
    max_looks: u64,
}

/// What a waiting seat saw: the game's change count when last checked, and its sight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Idle {
    changes: u64,
    sight: u64,
}

impl Scheduler {
    /// A scheduler for `game`, giving up after `max_decisions` turns (ten times that many
    /// looks in real time, where seats may look and wait).
    pub fn new(game: &Game, max_decisions: u64) -> Self {
        Scheduler {
            pace: game.rules().pace,
            ready: vec![game.clock(); game.players() as usize],
            idle: vec![None; game.players() as usize],
            last_sight: vec![None; game.players() as usize],
            shared_table: sight_is_shared(game.rules()).then_some(None),
            at: game.clock(),
            chances: Vec::new(),
            offered: false,
            looks: 0,
            max_looks: max_decisions.saturating_mul(10),
        }
    }

    /// Whether seats act in real time.
    pub fn is_real_time(&self) -> bool {
        self.pace.is_some()
    }

    /// Whether the seat `next` handed out last is offered a chance to act out of turn (it may
    /// let the game go on) rather than being waited for.
    pub fn out_of_turn(&self) -> bool {
        self.offered
    }

    /// The seat to ask next, `None` once the game is over. In real time the clock is first moved
    /// to that seat's moment, firing the timers it passes.
    pub fn next(&mut self, game: &mut Game) -> Result<Option<SeatId>, Error> {
        let Some(pace) = self.pace else {
            self.offered = false;
            if game.is_over() {
                return Ok(None);
            }
            let Some(on_turn) = game.acting().next() else {
                return Err(Error::Input(format!(
                    "the game is stuck in phase `{}`: nobody may act and it is not over",
                    game.phase()
                )));
            };
            while !self.chances.is_empty() {
                let seat = self.chances.remove(0);
                if game.may_act_out_of_turn(seat) {
                    self.offered = true;
                    return Ok(Some(seat));
                }
            }
            return Ok(Some(on_turn));
        };
        while !game.is_over() {
            let mut chosen: Option<SeatId> = None;
            for s in game.acting() {
                if self.still_idle(game, s) {
                    continue;
                }
                let ready = &self.ready;
                if chosen.is_none_or(|c: SeatId| (ready[s as usize], s) < (ready[c as usize], c)) {
                    chosen = Some(s);
                }
            }
            let Some(seat) = chosen else {
                // Nobody may act: let the clock run to the next timer.
                match game.next_timer_at() {
                    Some(at) => game.advance_clock(at)?,
                    None => {
                        return Err(Error::Input(format!(
                            "the game is stuck in phase `{}`: nobody may act",
                            game.phase()
                        )));
                    }
                }
                continue;
            };
            let at = self.ready[seat as usize].max(game.clock());
            game.advance_clock(at)?;
            self.ready[seat as usize] = at.saturating_add(pace);
            self.at = at;
            self.looks += 1;
            if self.looks >= self.max_looks {
                return Err(Error::Unfinished(format!(
                    "the game did not end after {} turns of the agents",
                    self.looks
                )));
            }
            if !game.is_over() && game.acting().any(|s| s == seat) {
                return Ok(Some(seat));
            }
        }
        Ok(None)
    }

    /// Tells the scheduler how `seat`'s turn went: the action it took (`None`: it waited), and
    /// the game's change count before the turn.
    pub fn done(&mut self, game: &Game, seat: SeatId, taken: Option<ActionId>, changes_before: u64) {
        let Some(pace) = self.pace else {
            if taken.is_some() {
                self.chances.clear();
                self.chances.extend(game.out_of_turn_seats());
            }
            return;
        };
        let s = seat as usize;
        if let Some(action) = taken {
            // The seat is busy for as long as the chosen action takes.
            let took = game.rules().actions[action as usize].time.unwrap_or(pace);
            self.ready[s] = self.at.saturating_add(took.max(1));
        }
        let changes = game.state().changes();
        let changed = taken.is_some() && changes != changes_before;
        // Waiting, or an action that changed nothing: wait until the seat sees a change.
        self.idle[s] = (!changed).then(|| match self.last_sight[s] {
            Some(seen) if seen.changes == changes => seen,
            _ => Idle { changes, sight: self.fingerprint(game, seat) },
        });
        if let Some(idle) = self.idle[s] {
            self.last_sight[s] = Some(idle);
        }
    }

    /// A seat's timing as the scheduler keeps it: when it is next ready, and whether it waits
    /// for a change. Part of what a seat may learn (the information-set test compares it).
    pub fn timing(&self, seat: SeatId) -> (i64, bool) {
        (self.ready.get(seat as usize).copied().unwrap_or(0), self.idle.get(seat as usize).is_some_and(|i| i.is_some()))
    }

    /// `view::sight_fingerprint(game, seat)`, with the table's part taken once per change when
    /// every seat sees the table alike.
    fn fingerprint(&mut self, game: &Game, seat: SeatId) -> u64 {
        let Some(shared) = &mut self.shared_table else { return sight_fingerprint(game, seat) };
        let changes = game.state().changes();
        let table = match *shared {
            Some(Idle { changes: at, sight }) if at == changes => sight,
            _ => {
                let sight = table_fingerprint(game, seat);
                *shared = Some(Idle { changes, sight });
                sight
            }
        };
        seat_fingerprint(game, seat, table)
    }

    /// Whether a waiting seat still sees nothing new (checked cheaply when nothing changed).
    fn still_idle(&mut self, game: &Game, seat: SeatId) -> bool {
        let Some(idle) = self.idle[seat as usize] else { return false };
        let changes = game.state().changes();
        if changes == idle.changes {
            return true;
        }
        let sight = self.fingerprint(game, seat);
        self.last_sight[seat as usize] = Some(Idle { changes, sight });
        if sight == idle.sight {
            self.idle[seat as usize] = Some(Idle { changes, ..idle });
            true
        } else {
            self.idle[seat as usize] = None;
            false
        }
    }
}

/// The agents for a game seeded `game_seed`: `random`, or a ruleset agent, on every seat.
pub fn agents_for(rules: &Rc<Rules>, agent: &str, players: u8, game_seed: u64) -> Result<Vec<Box<dyn Agent>>, Error> {
    let kinds = vec![agent.to_string(); players as usize];
    seated_agents(rules, &kinds, game_seed)
}

/// The agent of each seat, by name (`random` or a ruleset agent), for a game seeded `game_seed`.
pub fn seated_agents(rules: &Rc<Rules>, kinds: &[String], game_seed: u64) -> Result<Vec<Box<dyn Agent>>, Error> {
    kinds
        .iter()
        .enumerate()
        .map(|(s, agent)| {
            if agent == "random" {
                return Ok(Box::new(RandomAgent::new(agent_seed(game_seed, s as u8))) as Box<dyn Agent>);
            }
            if let Some(options) = crate::search::SearchOptions::parse(agent)? {
                let searcher = crate::search::SearchAgent::new(rules.clone(), options, agent_seed(game_seed, s as u8))?;
                return Ok(Box::new(searcher) as Box<dyn Agent>);
            }
            ScriptAgent::new(rules.clone(), agent).map(|a| Box::new(a) as Box<dyn Agent>).ok_or_else(|| {
                let names: Vec<&str> =
                    ["random", "search"].into_iter().chain(rules.agents.iter().map(|a| a.name.as_str())).collect();
                Error::Input(format!(
                    "no agent `{agent}` in {}{}: expected one of {}",
                    rules.id,
                    crate::diag::did_you_mean(agent, names.iter().copied()),
                    names.join(", ")
                ))
            })
        })
        .collect()
}

/// The agent of each seat: `options.agent` (or the ruleset's default), and `seat_agents` over it.
fn seat_kinds(rules: &Rules, options: &SimOptions, players: u8) -> Result<Vec<String>, Error> {
    let agent = options.agent.clone().unwrap_or_else(|| rules.default_agent.clone());
    let mut kinds = vec![agent; players as usize];
    let names: Vec<&str> = rules.seats.iter().take(players as usize).map(|s| s.name.as_str()).collect();
    for (k, (seat, kind)) in options.seat_agents.iter().enumerate() {
        let Some(s) = names.iter().position(|n| n == seat) else {
            if rules.played_by_rules(seat) {
                let message =
                    format!("--seat {seat}: the rules play {seat}, no agent; the seats are {}", names.join(", "));
                return Err(Error::Input(message));
            }
            return Err(Error::Input(format!(
                "--seat {seat}: no such seat{}; expected one of {}",
                crate::diag::did_you_mean(seat, names.iter().copied()),
                names.join(", ")
            )));
        };
        if options.seat_agents[..k].iter().any(|(other, _)| other == seat) {
            return Err(Error::Input(format!("--seat {seat} is given twice")));
        }
        kinds[s] = kind.clone();
    }
    Ok(kinds)
}

/// Random agents for every seat of a game seeded `game_seed`.
pub fn random_agents(players: u8, game_seed: u64) -> Vec<Box<dyn Agent>> {
    (0..players).map(|s| Box::new(RandomAgent::new(agent_seed(game_seed, s))) as Box<dyn Agent>).collect()
}

/// Plays `options.games` games with agents, calling `progress` with each game's record.
pub fn simulate(
    rules: Rc<Rules>,
    options: &SimOptions,
    progress: &mut dyn FnMut(&GameRecord),
) -> Result<SimReport, Error> {
    let start = Instant::now();
    if options.profile {
        crate::script::profile::start();
    }
    let (tally, records) = play_games(&rules, options, 0..options.games, &mut |r| progress(r)).map_err(|(_, e)| e)?;
    report(&rules, options, tally, records, start.elapsed().as_secs_f64())
}

/// Like `simulate`, on `threads` threads: each loads its own copy of the rules from the files'
/// texts as read at the start (`Rules::replica`: rules hold the script engine, which stays on
/// its thread) and takes the run's next game until none is left. The games are the same as on
/// one thread (game `i` is seeded from the run's seed and `i` alone) and come back in order.
/// `progress` is called once per game, from any thread.
///
/// Threads the system refuses to start are done without: the others play their games, so a run
/// asked for more threads than the system allows still plays every game, the same games.
pub fn simulate_parallel(
    ruleset: &str,
    load: &LoadOptions,
    options: &SimOptions,
    threads: usize,
    progress: &(dyn Fn(&GameRecord) + Sync),
) -> Result<SimReport, Error> {
    simulate_on_threads(ruleset, load, options, threads, progress, &|_| None)
}

/// What a simulation thread brings back: its games' tally and records, or the index of its
/// failing game and the error, rendered (the rules it points into stay on the thread).
type ThreadResult = Result<(Tally, Vec<GameRecord>), (u64, String)>;

/// `simulate_parallel`, with each worker thread's stack size (`None`: the system's default), so
/// that a test can make the system refuse some of them.
fn simulate_on_threads(
    ruleset: &str,
    load: &LoadOptions,
    options: &SimOptions,
    threads: usize,
    progress: &(dyn Fn(&GameRecord) + Sync),
    stack_size: &dyn Fn(usize) -> Option<usize>,
) -> Result<SimReport, Error> {
    let rules = Rc::new(crate::rules::load::load(ruleset, load)?);
    // The rules stay here: an error that points into their files is rendered before it leaves.
    let rendered = |e: Error| match e {
        Error::Script(_) | Error::Rules(_) => Error::Rendered(crate::diag::render(&e, &rules.sources)),
        other => other,
    };
    let threads = threads.clamp(1, options.games.max(1).min(usize::MAX as u64) as usize);
    if threads == 1 {
        return simulate(rules.clone(), options, &mut |r| progress(r)).map_err(rendered);
    }
    if options.profile {
        crate::script::profile::start();
    }
    if let Some(dir) = &options.log_dir {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.clone(), source })?;
    }
    let start = Instant::now();
    // The queue of games: the index of the next one to play, and whether a game failed (then
    // no more are started).
    let next = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let queue = || {
        if failed.load(Ordering::Relaxed) {
            return None;
        }
        let i = next.fetch_add(1, Ordering::Relaxed);
        (i < options.games).then_some(i)
    };
    // Every thread plays by a copy of the rules loaded here, made from the files as they were
    // read then: a file changed during the run cannot make the threads' rules differ.
    let replica = rules.replica();
    let results: Vec<ThreadResult> = std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for t in 0..threads {
            let mut builder = std::thread::Builder::new().name(format!("sim-{t}"));
            if let Some(size) = stack_size(t) {
                builder = builder.stack_size(size);
            }
            let worker = builder.spawn_scoped(scope, || {
                // Errors cross threads as text: a rendered diagnostic needs the rules' sources.
                let rules = Rc::new(
                    replica.load().map_err(|e| (0, crate::diag::render(&e, &crate::diag::Sources::default())))?,
                );
                play_games(&rules, options, std::iter::from_fn(queue), &mut |r| progress(r)).map_err(|(i, e)| {
                    failed.store(true, Ordering::Relaxed);
                    (i, crate::diag::render(&e, &rules.sources))
                })
            });
            // A thread the system will not start is not needed: the others take its games.
            match worker {
                Ok(worker) => workers.push(worker),
                Err(_) => break,
            }
        }
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    let failed = Error::Input("a simulation thread failed".into());
                    Err((0, crate::diag::render(&failed, &crate::diag::Sources::default())))
                })
            })
            .collect()
    });
    if results.is_empty() {
        // Not one thread could start: play on this one.
        return simulate(rules.clone(), options, &mut |r| progress(r)).map_err(rendered);
    }
    let mut tally = Tally::default();
    let mut records = Vec::new();
    // The failure reported is that of the first failing game, whichever thread played it.
    let mut failure: Option<(u64, String)> = None;
    for result in results {
        match result {
            Ok((part, part_records)) => {
                tally.merge(part);
                records.extend(part_records);
            }
            Err((i, message)) => {
                if failure.as_ref().is_none_or(|(first, _)| i < *first) {
                    failure = Some((i, message));
                }
            }
        }
    }
    if let Some((_, message)) = failure {
        return Err(Error::Rendered(message));
    }
    records.sort_by_key(|r| r.index);
    report(&rules, options, tally, records, start.elapsed().as_secs_f64())
}

/// Plays the games of a run with the given indices (game `i` seeded from the run's seed and `i`
/// alone, as in a whole run) and returns their tally: a part of a run played elsewhere (another
/// process, another machine), whose tallies merge into the run's (`Tally::merge`).
pub fn tally_games(rules: &Rc<Rules>, options: &SimOptions, indices: std::ops::Range<u64>) -> Result<Tally, Error> {
    let options = SimOptions { keep_records: false, ..options.clone() };
    play_games(rules, &options, indices, &mut |_| {}).map(|(tally, _)| tally).map_err(|(_, e)| e)
}

/// Plays the games of a run with the given indices; returns their tally, and their records if
/// the options keep them, or the index of the game that failed and why.
fn play_games(
    rules: &Rc<Rules>,
    options: &SimOptions,
    indices: impl Iterator<Item = u64>,
    progress: &mut dyn FnMut(&GameRecord),
) -> Result<(Tally, Vec<GameRecord>), (u64, Error)> {
    let players = options.players.unwrap_or(rules.usual_players);
    let kinds = seat_kinds(rules, options, players).map_err(|e| (0, e))?;
    if let Some(dir) = &options.log_dir {
        std::fs::create_dir_all(dir).map_err(|source| (0, Error::Io { path: dir.clone(), source }))?;
    }
    let mut tally = Tally::default();
    let mut records = Vec::new();
    for i in indices {
        let (record, counts) = play_game(rules, options, &kinds, i).map_err(|e| (i, e))?;
        progress(&record);
        tally.add(&record);
        for (seat, counts) in rules.seats.iter().zip(&counts) {
            tally.add_agent_counts(&seat.name, counts);
        }
        if options.keep_records {
            records.push(record);
        }
    }
    crate::script::profile::flush();
    Ok((tally, records))
}

/// The command line that plays game `i` of a run again, as the last game of a shorter run (a
/// game's seed comes from the run's seed and its number): the ruleset by name where its name
/// finds it from any folder, else by its folder.
fn command_to_replay(rules: &Rules, options: &SimOptions, players: u8, i: u64) -> String {
    let ruleset = crate::rules::load::folder_not_found_by_name(rules)
        .map_or_else(|| rules.id.clone(), |folder| folder.display().to_string());
    let mut command = format!("tabula sim {ruleset} --seed {} --games {} --players {players}", options.seed, i + 1);
    for variant in &rules.variants {
        command.push_str(&format!(" --variant {variant}"));
    }
    for (name, value) in &rules.overrides {
        command.push_str(&format!(" --set {name}={value}"));
    }
    if let Some(agent) = &options.agent {
        command.push_str(&format!(" --agent {agent}"));
    }
    for (seat, agent) in &options.seat_agents {
        command.push_str(&format!(" --seat {seat}={agent}"));
    }
    command
}

/// What each seat's agent counted of its work in a game (`Agent::counts`), in seat order.
type AgentCounts = Vec<Vec<(&'static str, u64)>>;

/// Plays game `i` of a run (and writes its log if the run keeps logs): its record, and what
/// its agents counted of their work.
fn play_game(
    rules: &Rc<Rules>,
    options: &SimOptions,
    kinds: &[String],
    i: u64,
) -> Result<(GameRecord, AgentCounts), Error> {
    let players = options.players.unwrap_or(rules.usual_players);
    let game_seed = Rng::derive_seed(options.seed, i);
    // A search agent samples from the game's history: its games are recorded.
    let searching = kinds.iter().any(|k| k.starts_with("search"));
    let start_game = if options.log_dir.is_some() || searching { Game::recorded } else { Game::new };
    let again = || format!("to play it again: {}", command_to_replay(rules, options, players, i));
    let mut game = start_game(rules.clone(), players, game_seed).map_err(|e| match e {
        Error::Script(d) => Error::Script(Box::new(
            d.note(format!("while setting up game {i} of the run, seeded {game_seed}")).note(again()),
        )),
        other => other,
    })?;
    let mut agents = seated_agents(rules, kinds, game_seed)?;
    let mut check = |game: &Game| {
        for seat in 0..game.players() {
            if let Some(message) = game.options_disagreement(seat)? {
                return Err(Error::Rules(Box::new(crate::diag::Diagnostic::new(message))));
            }
        }
        Ok(())
    };
    let played = if i < options.check_options {
        check(&game).and_then(|()| play_out_observed(&mut game, &mut agents, options.max_decisions, &mut check))
    } else {
        play_out(&mut game, &mut agents, options.max_decisions)
    };
    let decisions = match played {
        Ok(decisions) => decisions,
        // A game past the safety bound is stopped and reported so, not an error of the run.
        Err(Error::Unfinished(_)) => options.max_decisions,
        Err(Error::Script(d)) => {
            let d = d.note(format!("in game {i} of the run, seeded {game_seed}")).note(again());
            return Err(Error::Script(Box::new(d)));
        }
        Err(Error::Rules(d)) => {
            let d = d.note(format!("in game {i} of the run, seeded {game_seed}")).note(again());
            return Err(Error::Rules(Box::new(d)));
        }
        Err(other) => return Err(Error::Input(format!("game {i} (seed {game_seed}): {other}"))),
    };
    if let Some(dir) = &options.log_dir {
        let path = dir.join(format!("game-{:06}.log", i + 1));
        let mut log = crate::log::record(&game, Some(game_seed));
        log.tags.splice(1..1, crate::log::ruleset_path_tag(rules));
        let text = log.to_string();
        std::fs::write(&path, text).map_err(|source| Error::Io { path, source })?;
    }
    let counts = agents.iter().map(|a| a.counts()).collect();
    Ok((GameRecord::of(&game, i, game_seed, decisions, &options.record), counts))
}

/// The report of a run from its games' tally (and records, if kept).
fn report(
    rules: &Rules,
    options: &SimOptions,
    tally: Tally,
    records: Vec<GameRecord>,
    seconds: f64,
) -> Result<SimReport, Error> {
    let players = options.players.unwrap_or(rules.usual_players);
    let kinds = seat_kinds(rules, options, players)?;
    for name in &options.record {
        if rules.counter(name).is_none() {
            let known: Vec<&str> = rules.counters.iter().map(|c| c.name.as_str()).collect();
            return Err(Error::Input(format!(
                "--record {name}: no counter `{name}`{}; expected one of {}",
                crate::diag::did_you_mean(name, known.iter().copied()),
                known.join(", ")
            )));
        }
    }
    // The ruleset's outcomes in its order, then the simulator's `stopped` if any game was.
    let mut outcomes: IndexMap<String, u64> =
        rules.outcomes.iter().map(|o| (o.name.clone(), tally.outcomes.get(&o.name).copied().unwrap_or(0))).collect();
    for (name, &n) in &tally.outcomes {
        outcomes.entry(name.clone()).or_insert(n);
    }
    let games = tally.games;
    let decisions = tally.decisions();
    Ok(SimReport {
        ruleset: rules.id.clone(),
        variants: rules.variants.clone(),
        set: rules.overrides.iter().cloned().collect(),
        players,
        agent: options.agent.clone().unwrap_or_else(|| rules.default_agent.clone()),
        agents: rules.seats.iter().map(|s| s.name.clone()).zip(kinds).collect(),
        seed: options.seed,
        games,
        seconds,
        playouts_per_s: if seconds > 0.0 { games as f64 / seconds } else { 0.0 },
        decisions_per_game: if games > 0 { decisions as f64 / games as f64 } else { 0.0 },
        outcomes,
        balance: tally.balance(rules, players),
        // In seat order, whichever thread's games were counted first.
        agent_counts: rules
            .seats
            .iter()
            .filter_map(|s| tally.agent_counts().get(&s.name).map(|counts| (s.name.clone(), counts.clone())))
            .collect(),
        records,
        profile: if options.profile { crate::script::profile::take() } else { Vec::new() },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run asked for more threads than the system will start plays every game on those it
    /// did start, the same games as on one thread. The system is made to refuse threads by
    /// asking for stacks larger than any address space.
    #[test]
    fn threads_the_system_refuses_are_done_without() {
        let options = SimOptions { games: 40, keep_records: true, ..SimOptions::default() };
        let load = LoadOptions::default();
        let one = simulate_parallel("examples/rulesets/dice-race", &load, &options, 1, &|_| {}).expect("one thread");
        for refused_from in [0, 1, 2] {
            let huge = |t: usize| (t >= refused_from).then_some(usize::MAX / 2);
            let many = simulate_on_threads("examples/rulesets/dice-race", &load, &options, 1000, &|_| {}, &huge)
                .unwrap_or_else(|e| panic!("threads refused from the {refused_from}th: {e}"));
            assert_eq!(many.games, 40);
            assert_eq!(many.outcomes, one.outcomes, "threads refused from the {refused_from}th");
            let seeds = |r: &SimReport| r.records.iter().map(|g| (g.index, g.seed, g.decisions)).collect::<Vec<_>>();
            assert_eq!(seeds(&many), seeds(&one));
        }
    }
}
