//! The search agent (`search`): information-set Monte Carlo search over the engine's own
//! decisions, for any ruleset, honest about what its seat may not see.
//!
//! At each decision the agent keeps a set of **particles**: games that could be the real one as
//! far as its seat can tell. A particle is a replay of the real game's history as the seat knows
//! it (HyperPlay's way for GDL-II): set up from a seed of the agent's own with the setup's chance
//! the seat saw stated (`secrecy::visible_chance_in`), then every action the seat was told of
//! taken again in turn, another seat's secret action with its arguments drawn afresh among those
//! the particle allows (`secrecy::redrawn`), the chance the seat saw stated and the rest drawn
//! from the particle's own generator. This is the information-set check's game B (`secrecy.rs`),
//! built by the same functions, drawn the way the real game drew where the seat saw it: a
//! shuffle or random pick of a zone the seat sees in part (a face-down pile, a bag) prefers the
//! pieces it then saw come out of that zone (`guided_chance`), and before a step the pieces the
//! step showed are put where the step takes them from (`prepare`). Otherwise a sample would draw
//! the pieces the seat saw only as often as chance does, and, its draws exchanged afterwards,
//! keep what the step did with them (a property naming the tile drawn) on the wrong pieces. A
//! particle is kept only if everything the seat was told is the same in it as in the real game:
//! the narration of every event since the last decision, its view and its legal actions. Particles are carried from one decision to the next and brought
//! up to date with the actions taken since (a particle filter); those that stop matching are
//! replaced by copies of the survivors (with a generator of their own), or, when none survives,
//! built afresh from the whole history, up to a number of tries. When no try matches, the agent
//! searches on the replays that failed the test (they are consistent with the history, not with
//! all it saw) and counts the decision as **approximate** (`SearchStats`).
//!
//! The search itself is at the root of the seat's decision, over **samples**: sample k is a
//! particle and a pair of seeds (the particle's chance, the playout agents'), the same for every
//! option (common random numbers), so that two options are compared on the same hidden state and
//! the same luck and a difference between them is the options' own. A playout applies an option
//! to a copy of the sample's particle and plays the copy on with the ruleset's default agent (or
//! `random`) on every seat, the engine's own flow (`sim::play_out`) answering prompts, running
//! real time, simultaneous phases, chance and the seats the rules play. A playout scores 1 when
//! the seat is among the outcome's winners (teams and shared outcomes as the ruleset declares
//! them), 0 when the game ended otherwise, and, when it was cut at the depth limit, the
//! ruleset's estimate of the seat's chance to win from what the seat sees there (`[game]
//! evaluate`, a script function given the seat's view), or 1/2 when the ruleset has none. The
//! budget is spent by sequential halving (Karnin, Koren & Somekh, 2013): in each round every
//! option still in plays the same new samples, and the worse half by mean is dropped, until
//! two are left; with `width` only the rollout agent's first answers are compared (asked again
//! without the answers it gave, for its next choice), so that a budget far smaller than the
//! options plays each several times. When the rollout agent has an answer of its own to the
//! decision (a ruleset's agent, asked as when it plays the seat), that answer is never dropped
//! and is played unless the best option did better than it on the same samples by two standard
//! errors (`margin`) of the mean difference, so that a budget too small to tell the options apart
//! plays as the rollout agent, not as the noise says; without one (random playouts), the best mean
//! is played. In real time waiting is one more option, as letting the game go on is out of turn.
//!
//! **Never peeks.** The agent reads of the real game only what reaches its seat: the actions of
//! the history, with the arguments of other seats' secret actions thrown away unread; the chance
//! its seat saw; its narration, view and legal actions. So for two games that differ only in
//! what the seat may not see, its particles, and its choice under the same seed, are the same;
//! the information-set test (`tests/it/secrecy.rs`) plays search seats in every ruleset to check
//! it. It needs a recorded game (`Game::recorded`): the simulator records its games when a seat
//! is played by `search`, and `play` always does.
//!
//! With a playout budget (`search:playouts=N`) the agent is deterministic: its generator is
//! seeded from its seat's agent seed, so the same game seed gives the same game on any machine
//! and with any number of threads. With a time budget (`search:ms=N`) it is not.
//!
//! **Threads** (`search:threads=N`): the playouts the current round will ask for, if none of
//! them fails, are played ahead on a pool of helper threads and the searching one (`pool.rs`),
//! and the search takes each result, by its particle, option and seeds, when it asks for it. A
//! playout depends on nothing else, so the search makes the same choices on any number of
//! threads; a failing playout only wastes the ones played ahead of it.

mod pool;

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::agent::{Agent, Decision, Plan, Turn};
use crate::diag::Error;
use crate::event::Event;
use crate::flow::Game;
use crate::narrate::narrate;
use crate::rng::Rng;
use crate::rules::Sight;
use crate::rules::{PieceId, Rules, SeatId, ZoneId};
use crate::secrecy::{redrawn_preferring, visible_chance_in};
use crate::state::{Action, Stated, StatedChance};
use crate::value::Value;
use crate::view::{can_see_piece, view};

/// How the search agent searches: `search:playouts=400,particles=16,depth=200,rollout=random`
/// (and `ms`, `tries`, `threads`, `margin`, `width`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Playouts a decision (the deterministic budget; default 100).
    pub playouts: u32,
    /// Milliseconds a decision instead of a playout count (not deterministic).
    pub ms: Option<u64>,
    /// Particles kept (samples of the hidden state).
    pub particles: u32,
    /// Decisions a playout may take before it is cut and scored by the ruleset's evaluation
    /// (1/2 without one).
    pub depth: u64,
    /// Fresh replays tried a decision when no particle survives.
    pub tries: u32,
    /// The agent playing every seat in the playouts: `random` or one of the ruleset's agents
    /// (default: the ruleset's `default_agent`).
    pub rollout: Option<String>,
    /// Threads playing the playouts, the searching one included (default 1). The choices are
    /// the same with any number.
    pub threads: u32,
    /// How many standard errors of the mean difference another option must do better than the
    /// rollout agent's answer by, on the same samples, to be played instead: in hundredths
    /// (`search:margin=1.5` is 150; default 200, two standard errors).
    pub margin: u32,
    /// The most options compared at a decision (`search:width=N`): the rollout agent's answers in
    /// its order of preference (asked again without the answers it gave), then others drawn at
    /// random. Unset: every option, or as many drawn at random as a fixed budget plays once.
    pub width: Option<u32>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            playouts: 100,
            ms: None,
            particles: 16,
            depth: 400,
            tries: 32,
            rollout: None,
            threads: 1,
            margin: DEFAULT_MARGIN,
            width: None,
        }
    }
}

impl SearchOptions {
    /// The options an agent name gives, `None` for a name that is not `search` or
    /// `search:key=value,...`; an error names the key or value that is wrong.
    pub fn parse(name: &str) -> Result<Option<SearchOptions>, Error> {
        let Some(rest) = name.strip_prefix("search") else { return Ok(None) };
        let given = match rest.strip_prefix(':') {
            Some(given) => given,
            None if rest.is_empty() => "",
            None => return Ok(None),
        };
        let mut options = SearchOptions::default();
        for pair in given.split(',').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').ok_or_else(|| {
                Error::Input(format!("agent `{name}`: `{pair}` is not key=value (for example search:playouts=400)"))
            })?;
            let number = |max: u64| -> Result<u64, Error> {
                value.parse::<u64>().ok().filter(|n| (1..=max).contains(n)).ok_or_else(|| {
                    Error::Input(format!("agent `{name}`: {key} must be a whole number from 1 to {max}, not `{value}`"))
                })
            };
            match key {
                "playouts" => options.playouts = number(10_000_000)? as u32,
                "ms" => options.ms = Some(number(3_600_000)?),
                "particles" => options.particles = number(10_000)? as u32,
                "depth" => options.depth = number(100_000_000)?,
                "tries" => options.tries = number(10_000)? as u32,
                "threads" => options.threads = number(MAX_THREADS)? as u32,
                "width" => {
                    let width = value.parse::<u32>().ok().filter(|w| (2..=100_000).contains(w));
                    options.width = Some(width.ok_or_else(|| {
                        Error::Input(format!(
                            "agent `{name}`: width must be a whole number from 2 to 100000 (with one option compared there is nothing to search), not `{value}`"
                        ))
                    })?);
                }
                "rollout" if value.starts_with("search") => {
                    return Err(Error::Input(format!("agent `{name}`: the playouts cannot be played by search")));
                }
                "rollout" => options.rollout = Some(value.to_string()),
                "margin" => {
                    options.margin = hundredths(value).filter(|m| *m <= 1_000).ok_or_else(|| {
                        Error::Input(format!(
                            "agent `{name}`: margin must be a number of standard errors from 0 to 10, with at most two decimals (1.5), not `{value}`"
                        ))
                    })?;
                }
                _ => {
                    return Err(Error::Input(format!(
                        "agent `{name}`: no option `{key}`; expected playouts, ms, particles, depth, tries, rollout, threads, margin or width"
                    )));
                }
            }
        }
        Ok(Some(options))
    }
}

/// A decimal number with at most two decimals (`1.5`, `2`, `0.25`) in hundredths: no float is
/// parsed, so that the option means the same on every machine.
fn hundredths(text: &str) -> Option<u32> {
    let (whole, part) = text.split_once('.').unwrap_or((text, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(part) || part.len() > 2 {
        return None;
    }
    let part = format!("{part:0<2}");
    whole.parse::<u32>().ok()?.checked_mul(100)?.checked_add(part.parse::<u32>().ok()?)
}

/// The most threads a search agent is given (`search:threads=N`).
const MAX_THREADS: u64 = 1024;

/// `kind` (an agent's name as `--seat` gives it) with `threads` set to every core the system
/// offers, when it is a search agent that names no thread count: for the seats people wait for
/// (`play`, `serve`). The choices are the same on any number of threads, so only the wait
/// changes; logs keep the name as given.
pub fn on_every_core(kind: &str) -> String {
    with_threads(kind, std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `kind` with `threads` set to `cores` where it is a search agent that names no thread count.
fn with_threads(kind: &str, cores: usize) -> String {
    match SearchOptions::parse(kind) {
        Ok(Some(_)) if cores > 1 && !kind.contains("threads=") => match kind.strip_prefix("search:") {
            Some(given) if !given.is_empty() => format!("{kind},threads={cores}"),
            _ => format!("search:threads={cores}"),
        },
        _ => kind.to_string(),
    }
}

/// What a search agent did, for reports and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Decisions searched (those with one option are taken without search).
    pub decisions: u64,
    /// Of those, decisions searched on replays that did not match all the seat saw.
    pub approximate: u64,
    /// Of those, decisions where it played another option than its rollout agent's answer
    /// (one of the ruleset's agents): how often the search changed what that agent would do.
    pub overruled: u64,
    /// Of those, decisions where no option had two playouts (a budget smaller than twice the
    /// options compared): one sample cannot show a difference of two standard errors, so at the
    /// default margin the rollout agent's answer stands in these whatever the playouts gave.
    pub unsampled: u64,
    /// Playouts played.
    pub playouts: u64,
    /// Particles built afresh from the whole history.
    pub rebuilt: u64,
    /// Particles dropped because they stopped matching what the seat saw.
    pub dropped: u64,
    /// Playouts the rules failed in (a script error on a sample): not counted, and their
    /// particle not played again in that decision.
    pub failed: u64,
    /// Playouts played by helper threads (`threads` above 1), including any played ahead that
    /// the search then did not ask for (after a playout failed). Which thread plays a playout
    /// depends on timing: unlike the rest, this count differs from run to run.
    pub helped: u64,
}

/// A sample of the game as the seat knows it.
#[derive(Clone)]
struct Particle {
    game: Game,
}

/// The search agent: see the module's documentation.
pub struct SearchAgent {
    rules: Rc<Rules>,
    options: SearchOptions,
    rng: Rng,
    particles: Vec<Particle>,
    /// How many of the real game's events the particles have been brought up to.
    synced: usize,
    /// Whether the particles matched everything the seat saw at the last update.
    consistent: bool,
    stats: SearchStats,
    /// The helper threads (`threads` above 1), started at the first search.
    pool: Option<pool::Pool>,
    /// Results of playouts played ahead on the pool, until the search asks for them.
    ahead: HashMap<pool::Key, pool::Played>,
}

impl SearchAgent {
    /// A search agent with its own seed; the rollout agent is checked here.
    pub fn new(rules: Rc<Rules>, options: SearchOptions, seed: u64) -> Result<Self, Error> {
        let rollout = options.rollout.clone().unwrap_or_else(|| rules.default_agent.clone());
        if rollout != "random" && !rules.agents.iter().any(|a| a.name == rollout) {
            let names: Vec<&str> =
                std::iter::once("random").chain(rules.agents.iter().map(|a| a.name.as_str())).collect();
            return Err(Error::Input(format!(
                "search: no agent `{rollout}` to play the playouts in {}; expected one of {}",
                rules.id,
                names.join(", ")
            )));
        }
        Ok(SearchAgent {
            rules,
            options,
            rng: Rng::seeded(seed),
            particles: Vec::new(),
            synced: 0,
            consistent: true,
            stats: SearchStats::default(),
            pool: None,
            ahead: HashMap::new(),
        })
    }

    /// What the agent did so far.
    pub fn stats(&self) -> &SearchStats {
        &self.stats
    }

    /// The rollout agent's name.
    fn rollout(&self) -> &str {
        self.options.rollout.as_deref().unwrap_or(&self.rules.default_agent)
    }

    /// Brings the particles up to the real game's present, as `seat` knows it: drops those that
    /// no longer match, refills from the survivors or afresh. `legal` are the seat's options now.
    fn update(&mut self, real: &Game, seat: SeatId, legal: &[Action]) -> Result<(), Error> {
        if !real.state().recording {
            return Err(Error::Input(
                "the search agent needs a recorded game (Game::recorded): it samples from the history".into(),
            ));
        }
        let events = real.events();
        if events.len() < self.synced {
            // Another game: start over.
            self.particles.clear();
            self.synced = 0;
        }
        let wanted = self.options.particles.max(1) as usize;
        let from = self.synced;
        let told = narrate(real, Some(seat), &events[from..]);
        let seen = view(real, Some(seat));
        let matches = |p: &Game, from_p: usize| -> bool {
            !p.is_over()
                && view(p, Some(seat)) == seen
                && p.legal_actions(seat).is_ok_and(|l| l == legal)
                && narrate(p, Some(seat), &p.events()[from_p..]) == told
        };
        // Bring the particles kept from the last decision up to date.
        let mut kept = Vec::new();
        if from > 0 {
            for mut particle in std::mem::take(&mut self.particles) {
                let start = particle.game.events().len();
                if self.replay(&mut particle.game, real, seat, from)? && matches(&particle.game, start) {
                    kept.push(particle);
                } else {
                    self.stats.dropped += 1;
                }
            }
        }
        // None left: build afresh from the whole history, as many tries as allowed.
        let mut failed: Vec<Particle> = Vec::new();
        if kept.is_empty() {
            let whole = narrate(real, Some(seat), events);
            for _ in 0..self.options.tries.max(1) {
                if kept.len() >= wanted {
                    break;
                }
                self.stats.rebuilt += 1;
                let Some(game) = self.fresh(real, seat)? else { continue };
                let fits = !game.is_over()
                    && view(&game, Some(seat)) == seen
                    && game.legal_actions(seat).is_ok_and(|l| l == legal)
                    && narrate(&game, Some(seat), game.events()) == whole;
                if fits {
                    kept.push(Particle { game });
                } else if failed.len() < wanted && !game.is_over() {
                    failed.push(Particle { game });
                }
            }
        }
        self.consistent = !kept.is_empty();
        if kept.is_empty() {
            kept = failed;
        }
        // Refill from the survivors, each copy with a generator of its own.
        let survivors = kept.len();
        for i in 0..wanted.saturating_sub(survivors) {
            if survivors == 0 {
                break;
            }
            let mut copy = kept[i % survivors].clone();
            copy.game.state_mut().rng = Rng::seeded(self.rng.next_u64());
            kept.push(copy);
        }
        // The particles keep no events already compared: copies stay cheap.
        for particle in &mut kept {
            particle.game.state_mut().events.clear();
        }
        self.particles = kept;
        self.synced = events.len();
        Ok(())
    }

    /// A particle built from the start: the setup from a seed of the agent's own with the
    /// setup's chance the seat saw, then the history replayed. `None` when the history cannot
    /// be replayed in it (an action it does not allow).
    fn fresh(&mut self, real: &Game, seat: SeatId) -> Result<Option<Game>, Error> {
        let events = real.events();
        let first = events.iter().position(is_seat_action).unwrap_or(events.len());
        let stated = guided_chance(real, seat, 0, first);
        let mut game = match Game::replaying(self.rules.clone(), real.players(), self.rng.next_u64(), stated) {
            Ok(game) => game,
            // A setup whose script fails on some draws: not a sample.
            Err(Error::Script(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        game.state_mut().stated = StatedChance::default();
        conform(&mut game, 0, real, 0, first, seat);
        Ok(self.replay(&mut game, real, seat, first)?.then_some(game))
    }

    /// Takes again in `game` the real game's actions from event `from` on, as a game differing
    /// only in what `seat` may not see would (`secrecy`'s game B): false when `game` does not
    /// allow one of them. After each step the pieces the seat saw come into sight are put where
    /// the sample showed others (`conform`).
    fn replay(&mut self, game: &mut Game, real: &Game, seat: SeatId, from: usize) -> Result<bool, Error> {
        let events = &real.events()[from..];
        let starts: Vec<usize> = (0..events.len()).filter(|&i| is_seat_action(&events[i])).collect();
        let real_time = self.rules.pace.is_some();
        // Where the sample's part of the step before began, and the real one's.
        let mut step: Option<(usize, usize)> = None;
        for (k, &at) in starts.iter().enumerate() {
            let Event::Acted { action, at: clock, .. } = &events[at] else { continue };
            if real_time && *clock > game.clock() && game.advance_clock(*clock).is_err() {
                return Ok(false);
            }
            if let Some((mine, theirs)) = step {
                conform(game, mine, real, from + theirs, from + at, seat);
            }
            if game.is_over() {
                return Ok(false);
            }
            let end = starts.get(k + 1).copied().unwrap_or(events.len());
            prepare(game, real, from + at, from + end, seat);
            game.state_mut().stated = guided_chance(real, seat, from + at, from + end);
            let taken = if action.seat == seat {
                Some(*action)
            } else {
                // Where the seat later saw the pieces such an action moves: the redraw prefers
                // arguments that agree (the test below stays exact).
                let later = if self.rules.actions[action.action as usize].secret {
                    revealed_at(real, seat, from + at, real.events().len())
                } else {
                    Vec::new()
                };
                let prefer = |a: &Action| agrees(&self.rules, a, &later);
                redrawn_preferring(game, action, &mut self.rng, &prefer)?
            };
            let Some(taken) = taken else { return Ok(false) };
            if game.check_legal(&taken).is_err() && !(taken.seat != seat && fit(game, &taken, seat)) {
                return Ok(false);
            }
            step = Some((game.events().len(), at));
            match game.apply_unchecked(&taken) {
                Ok(()) => {}
                // The particle's hidden state made a hook fail where the real game's did not.
                Err(Error::Script(_)) | Err(Error::Illegal { .. }) => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        if real_time && real.clock() > game.clock() && game.advance_clock(real.clock()).is_err() {
            return Ok(false);
        }
        if let Some((mine, theirs)) = step {
            conform(game, mine, real, from + theirs, real.events().len(), seat);
        }
        game.state_mut().stated = StatedChance::default();
        Ok(true)
    }

    /// The rollout agent's own answers to the real decision, as options of the search (letting
    /// the game go on is the option after the legal ones), its first answer first and up to
    /// `most`: each next one is its answer when asked again without those it gave (a `choose`
    /// agent's; an `act` agent gives its first answer only). Empty when the playouts are random
    /// (a random answer knows nothing). The agent is given the decision as the seat has it, as
    /// when it plays the seat (less the options it already chose), so nothing it may not see
    /// reaches it.
    fn answers(&self, decision: &Decision, may_pass: bool, most: usize) -> Result<Vec<usize>, Error> {
        let Some(mut agent) = crate::agent::ScriptAgent::new(self.rules.clone(), self.rollout()) else {
            return Ok(Vec::new());
        };
        let legal = decision.legal();
        // Asked as out of turn even when the seat must choose: an agent that plans its own
        // actions may wait where the flow asks it (a real-time game), and then gives no answer.
        let first = match agent.react(decision)? {
            Some(i) if i < legal.len() => i,
            Some(_) => return Ok(Vec::new()),
            None if may_pass => legal.len(),
            None => return Ok(Vec::new()),
        };
        let mut answers = vec![first];
        let mut left: Vec<usize> = (0..legal.len()).filter(|&i| i != first).collect();
        let mut options: Vec<Action> = Vec::new();
        // Only an agent that picks from the list can be asked for its next choice: an `act`
        // agent would work out the same action again.
        while answers.len() < most && !left.is_empty() && agent.chooses_from_a_list() {
            options.clear();
            options.extend(left.iter().map(|&i| legal[i]));
            match agent.react(&Decision::new(decision.game(), decision.seat(), &options))? {
                Some(j) if j < left.len() => answers.push(left.remove(j)),
                // No answer among the rest (it would let the game go on): the others are drawn.
                _ => break,
            }
        }
        Ok(answers)
    }

    /// Searches the decision's options (plus letting the game go on, with `may_pass`) and
    /// returns the index chosen (`legal.len()`: let it go on).
    fn search(&mut self, decision: &Decision, may_pass: bool) -> Result<usize, Error> {
        let (real, seat, legal) = (decision.game(), decision.seat(), decision.legal());
        let arms = legal.len() + usize::from(may_pass);
        if arms <= 1 {
            return Ok(0);
        }
        let ranked = match self.options.width {
            Some(width) if arms > width as usize => width as usize,
            _ => 1,
        };
        let answers = self.answers(decision, may_pass, ranked)?;
        let prior = answers.first().copied().filter(|&arm| arm < arms);
        self.update(real, seat, legal)?;
        self.stats.decisions += 1;
        if !self.consistent {
            self.stats.approximate += 1;
        }
        if self.particles.is_empty() {
            // Not one replay of the history: nothing to search on, the rollout agent answers.
            return Ok(prior.unwrap_or(0));
        }
        let started = Instant::now();
        let limit = self.options.ms.map(Duration::from_millis);
        let budget = if limit.is_some() { u32::MAX } else { self.options.playouts.max(1) };
        let out_of_budget = |spent: u32| match limit {
            Some(limit) => spent > 0 && started.elapsed() >= limit,
            None => spent >= budget,
        };
        let kinds: Arc<[String]> = vec![self.rollout().to_string(); real.players() as usize].into();
        let threads = self.options.threads.max(1) as usize;
        self.ahead.clear();
        let mut candidates = self.candidates(arms, &answers, budget);
        // `scores[arm][k]`: what the option's playout on sample k gave (`None`: not played, or
        // the rules failed on the sample). Sample k is one particle and one pair of seeds, the
        // same for every option (common random numbers): options are compared on the same
        // hidden state and the same luck, so a difference between them is the options'.
        let mut scores: Vec<Vec<Option<f64>>> = vec![Vec::new(); arms];
        let mut broken = vec![false; self.particles.len()];
        let mut spent = 0u32;
        'search: while candidates.len() > 1 && !out_of_budget(spent) {
            // A round: every option still in plays the same new samples, then the worse half
            // is dropped (sequential halving), the rollout agent's answer always kept. A fixed
            // budget is shared evenly among the rounds left; a time budget doubles the samples
            // each round.
            let samples = scores[candidates[0]].len() as u32;
            let per = match limit {
                None => {
                    let rounds = (candidates.len() as f64).log2().ceil().max(1.0) as u32;
                    ((budget - spent) / rounds / candidates.len() as u32).max(1)
                }
                Some(_) => samples.max(1),
            };
            for done in 0..per {
                let k = scores[candidates[0]].len();
                let count = self.particles.len();
                let Some(p) = (0..count).map(|i| (k + i) % count).find(|&p| !broken[p]) else { break 'search };
                let seeds = (self.rng.next_u64(), self.rng.next_u64());
                scores.iter_mut().for_each(|s| s.resize(k + 1, None));
                for (i, &arm) in candidates.iter().enumerate() {
                    if out_of_budget(spent) {
                        break 'search;
                    }
                    spent += 1;
                    let key = (p, arm, seeds);
                    if threads > 1 && !self.ahead.contains_key(&key) {
                        // Play ahead on every thread what this round will ask for next, if no
                        // playout fails (a fixed budget: up to the budget; a time budget: a
                        // few playouts a thread at a time, so that time is checked between).
                        let most = match limit {
                            None => (budget - spent + 1) as usize,
                            Some(_) => 4 * threads,
                        };
                        let later = Later { samples: (per - done - 1) as usize, k, broken: &broken, most };
                        let keys = self.upcoming(key, &candidates[i + 1..], &candidates, later);
                        self.play_ahead(keys, legal, seat, &kinds);
                    }
                    // A playout played ahead gives what it would give here: it depends on its
                    // particle, option and seeds alone.
                    let result = self.ahead.remove(&key).unwrap_or_else(|| self.playout(key, legal, seat, &kinds));
                    self.stats.playouts += 1;
                    scores[arm][k] = result?;
                    if scores[arm][k].is_none() {
                        // The rules failed on this sample (a script error, a stuck flow): a
                        // state the real game may never reach, as a sample that did not match
                        // all the seat saw can be. It is not played again in this decision.
                        self.stats.failed += 1;
                        broken[p] = true;
                        break;
                    }
                }
            }
            halve(&mut candidates, &scores, prior);
        }
        self.ahead.clear();
        // The best mean (ties: the first listed). The search improves on the rollout agent's
        // answer rather than replacing it: another option is played only when it did clearly
        // better on the same samples (`clearly_better`). With a budget too small to tell the
        // options apart, the agent plays as its rollout agent would, not as the noise says.
        let best = candidates
            .iter()
            .copied()
            .max_by(|&a, &b| mean(&scores[a]).total_cmp(&mean(&scores[b])).then(b.cmp(&a)))
            .unwrap_or(0);
        let margin = f64::from(self.options.margin) / 100.0;
        let played = match prior {
            Some(p) if p != best && !clearly_better(&scores[best], &scores[p], margin) => p,
            _ => best,
        };
        self.stats.overruled += u64::from(prior.is_some_and(|p| p != played));
        let played_twice = |s: &Vec<Option<f64>>| s.iter().filter(|x| x.is_some()).count() >= 2;
        self.stats.unsampled += u64::from(!scores.iter().any(played_twice));
        Ok(played)
    }

    /// The options to search, the rollout agent's answers first (`answers`, in its order of
    /// preference): all of them, or, when a fixed budget or `width` allows fewer, those answers
    /// and others drawn at random up to that number (in the order listed).
    fn candidates(&mut self, arms: usize, answers: &[usize], budget: u32) -> Vec<usize> {
        let width = self.options.width.map_or(usize::MAX, |w| w as usize);
        let room = (budget as usize).min(width).max(answers.len());
        let mut others: Vec<usize> = (0..arms).filter(|a| !answers.contains(a)).collect();
        while answers.len() + others.len() > room {
            let drop = self.rng.below(others.len() as u64) as usize;
            others.remove(drop);
        }
        answers.iter().copied().chain(others).collect()
    }

    /// The playout `key` (a particle, an option, and the seeds of the sample's chance and
    /// agents), played on this thread (see `play`).
    fn playout(&self, key: pool::Key, legal: &[Action], seat: SeatId, kinds: &[String]) -> Result<Option<f64>, Error> {
        let game = self.particles[key.0].game.clone();
        play(game, legal.get(key.1), seat, key.2, kinds, self.options.depth)
    }

    /// The playouts the search will ask for from `next` on, in order, if none of them fails:
    /// `next`, the options `rest` after it on its sample, then the options `candidates` on each
    /// of the round's samples still to come, their particles and seeds drawn as the search will
    /// draw them (from a copy of its generator).
    fn upcoming(&self, next: pool::Key, rest: &[usize], candidates: &[usize], later: Later) -> Vec<pool::Key> {
        let (p, _, seeds) = next;
        let mut keys = vec![next];
        keys.extend(rest.iter().map(|&arm| (p, arm, seeds)));
        let mut rng = self.rng.clone();
        let count = self.particles.len();
        for j in 1..=later.samples {
            if keys.len() >= later.most {
                break;
            }
            let k = later.k + j;
            let Some(p) = (0..count).map(|i| (k + i) % count).find(|&p| !later.broken[p]) else { break };
            let seeds = (rng.next_u64(), rng.next_u64());
            keys.extend(candidates.iter().map(|&arm| (p, arm, seeds)));
        }
        keys.truncate(later.most.max(1));
        keys
    }

    /// Plays `keys` on every thread (the pool is started at the first call) and keeps their
    /// results until the search asks for them.
    fn play_ahead(&mut self, keys: Vec<pool::Key>, legal: &[Action], seat: SeatId, kinds: &Arc<[String]>) {
        let helpers = self.options.threads.max(1) as usize - 1;
        let pool = self.pool.get_or_insert_with(|| pool::Pool::new(&self.rules.replica(), helpers));
        let jobs = keys
            .into_iter()
            .map(|key| pool::Job {
                key,
                state: Box::new(self.particles[key.0].game.state().clone()),
                action: legal.get(key.1).copied(),
                seat,
                kinds: kinds.clone(),
                depth: self.options.depth,
            })
            .collect();
        let (results, helped) = pool.run(&self.rules, jobs);
        self.stats.helped += helped as u64;
        self.ahead.extend(results);
    }
}

/// Where the search stands in a round, for `SearchAgent::upcoming`: the samples still to come
/// after the current one, the current sample's index, the particles the rules failed on, and
/// the most playouts to look ahead to.
struct Later<'a> {
    samples: usize,
    k: usize,
    broken: &'a [bool],
    most: usize,
}

/// One playout: `action` taken (none: the game let go on) in `game`, a copy of a particle, the
/// game played on by the agents `kinds` on every seat up to `depth` decisions, its chance and
/// agents seeded with `seeds`, and what its end is worth to `seat` (`score`). `None` when the
/// rules failed on the sample.
fn play(
    mut game: Game,
    action: Option<&Action>,
    seat: SeatId,
    seeds: (u64, u64),
    kinds: &[String],
    depth: u64,
) -> Result<Option<f64>, Error> {
    game.set_recording(false);
    game.state_mut().rng = Rng::seeded(seeds.0);
    if let Some(action) = action
        && game.check_legal(action).is_err()
    {
        // Only on an approximate particle: this option does not exist there.
        return Ok(Some(0.0));
    }
    let rules = game.rules().clone();
    let played = crate::sim::seated_agents(&rules, kinds, seeds.1).and_then(|mut agents| {
        if let Some(action) = action {
            game.apply_unchecked(action)?;
        }
        crate::sim::play_out(&mut game, &mut agents, depth)
    });
    match played {
        // A failing evaluation is the ruleset's error, on any sample: reported.
        Ok(_) | Err(Error::Unfinished(_)) => score(&game, seat).map(Some),
        Err(_) => Ok(None),
    }
}

/// Drops the worse half of the options still in by their mean (down to two; ties: the later
/// listed go), keeping the rollout agent's answer (`prior`) whatever its mean.
fn halve(candidates: &mut Vec<usize>, scores: &[Vec<Option<f64>>], prior: Option<usize>) {
    if candidates.len() <= 2 {
        return;
    }
    let keep = candidates.len().div_ceil(2);
    candidates.sort_by(|&a, &b| mean(&scores[b]).total_cmp(&mean(&scores[a])).then(a.cmp(&b)));
    let dropped_prior = prior.filter(|p| candidates[keep..].contains(p));
    candidates.truncate(keep);
    candidates.extend(dropped_prior);
}

/// The mean of an option's scores over the samples it was played on (0 for none).
fn mean(scores: &[Option<f64>]) -> f64 {
    let (sum, n) = scores.iter().flatten().fold((0.0, 0u32), |(sum, n), s| (sum + s, n + 1));
    if n == 0 { 0.0 } else { sum / f64::from(n) }
}

/// The pieces `seat` saw come into sight in `game`'s events `from..to`, each with the zone it
/// was seen in, in order: turned face up, or moved into a zone that shows the seat everything.
fn revealed(game: &Game, seat: SeatId, from: usize, to: usize) -> Vec<(PieceId, ZoneId)> {
    let mut out = Vec::new();
    for (_, piece, zone) in revealed_at(game, seat, from, to) {
        if !out.contains(&(piece, zone)) {
            out.push((piece, zone));
        }
    }
    out
}

/// [`revealed`] with each piece's event index, every time it came into sight (not only the
/// first).
fn revealed_at(game: &Game, seat: SeatId, from: usize, to: usize) -> Vec<(usize, PieceId, ZoneId)> {
    let defs = game.rules();
    let events = game.events();
    let sight = |z: ZoneId| defs.zones[z as usize].sight(seat);
    (from..to.min(events.len()))
        .filter_map(|i| match &events[i] {
            Event::Turned { piece, up: true } => Some((i, *piece, zone_at(game, *piece, from, i))),
            Event::Moved { piece, from: z, to } if sight(*to) == Sight::All && sight(*z) != Sight::All => {
                Some((i, *piece, *to))
            }
            _ => None,
        })
        .collect()
}

/// Whether a secret action's move agrees with where the seat later saw pieces (`later`, from
/// `revealed_at`): a piece it moves that came into sight afterwards goes where it was first seen;
/// a piece never seen afterwards goes to no zone where pieces were seen.
fn agrees(defs: &Rules, action: &Action, later: &[(usize, PieceId, ZoneId)]) -> bool {
    if later.is_empty() {
        return true;
    }
    let args = &action.args[..];
    let (piece, zone) = match defs.actions[action.action as usize].effect.moves {
        Some((p, z)) => (args.get(p), args.get(z)),
        None => (args.iter().find(|v| matches!(v, Value::Piece(_))), args.iter().find(|v| matches!(v, Value::Zone(_)))),
    };
    let (Some(Value::Piece(piece)), Some(Value::Zone(zone))) = (piece, zone) else { return true };
    match later.iter().find(|(_, p, _)| p == piece) {
        Some((_, _, seen)) => seen == zone,
        None => !later.iter().any(|(_, _, z)| z == zone),
    }
}

/// Where `piece` lay at `game`'s event `at`: where the last move before it (from event `from`)
/// took it, else where the next move after it took it from, else where it lies now.
fn zone_at(game: &Game, piece: PieceId, from: usize, at: usize) -> ZoneId {
    let events = game.events();
    let before = events[from..at].iter().rev().find_map(|e| match e {
        Event::Moved { piece: p, to, .. } if *p == piece => Some(*to),
        _ => None,
    });
    let after = || {
        events[at..].iter().find_map(|e| match e {
            Event::Moved { piece: p, from, .. } if *p == piece => Some(*from),
            _ => None,
        })
    };
    before.or_else(after).unwrap_or_else(|| game.state().zone_of(piece))
}

/// Whether two pieces may change places in a sample: each one's zone accepts the other's kind
/// (pieces of one kind always may).
fn exchangeable(game: &Game, x: PieceId, y: PieceId) -> bool {
    let defs = game.rules();
    let (kx, ky) = (defs.pieces[x as usize].kind, defs.pieces[y as usize].kind);
    let state = game.state();
    kx == ky || (defs.zones[state.zone_of(y) as usize].accepts(kx) && defs.zones[state.zone_of(x) as usize].accepts(ky))
}

/// Makes another seat's action legal in a sample where a piece it names lies elsewhere: the
/// piece changes places with one the seat cannot see in a zone of the acting seat's (its hand),
/// the first such exchange that makes the action legal. The seat saw the piece taken by that
/// seat, not where it was kept. Where one exchange is not enough (an action naming a set of
/// cards, several of them elsewhere in the sample), every piece it names that the seat cannot
/// see and that lies outside the acting seat's zones changes places with such a hidden piece of
/// the acting seat's that it does not name, and the action is tried with all of them in place.
/// False when nothing makes it legal (the sample is left as it was).
fn fit(game: &mut Game, action: &Action, seat: SeatId) -> bool {
    fit_one(game, action, seat) || fit_all(game, action, seat)
}

/// The single exchanges of [`fit`].
fn fit_one(game: &mut Game, action: &Action, seat: SeatId) -> bool {
    let defs = game.rules().clone();
    for value in &action.args[..] {
        let Value::Piece(p) = *value else { continue };
        if can_see_piece(game, Some(seat), p) {
            continue;
        }
        let candidates: Vec<PieceId> =
            (0..defs.pieces.len() as PieceId).filter(|&q| q != p && stand_in(game, action, seat, p, q)).collect();
        for q in candidates {
            game.state_mut().swap_unrecorded(p, q);
            if game.check_legal(action).is_ok() {
                return true;
            }
            game.state_mut().swap_unrecorded(p, q);
        }
    }
    false
}

/// Whether piece `q` may take the place of `p`, a piece another seat's `action` names, in
/// [`fit`]: it lies in a zone of the acting seat's, `seat` cannot see it, and each piece's zone
/// accepts the other's kind.
fn stand_in(game: &Game, action: &Action, seat: SeatId, p: PieceId, q: PieceId) -> bool {
    game.rules().zones[game.state().zone_of(q) as usize].owner == Some(action.seat)
        && !can_see_piece(game, Some(seat), q)
        && exchangeable(game, p, q)
}

/// The exchanges of [`fit`] made together, for every piece the action names (in a set too).
fn fit_all(game: &mut Game, action: &Action, seat: SeatId) -> bool {
    let defs = game.rules().clone();
    let params = &defs.actions[action.action as usize].params;
    let mut named: Vec<PieceId> = Vec::new();
    for (value, param) in action.args.iter().zip(params) {
        match (*value, &param.domain) {
            (Value::Piece(p), _) => named.push(p),
            (Value::Set(mask), crate::rules::Domain::Set(set)) => named.extend(set.members(mask)),
            _ => {}
        }
    }
    let mut swaps = Vec::new();
    for &p in &named {
        if can_see_piece(game, Some(seat), p) || defs.zones[game.state().zone_of(p) as usize].owner == Some(action.seat)
        {
            continue;
        }
        let found =
            (0..defs.pieces.len() as PieceId).find(|&q| !named.contains(&q) && stand_in(game, action, seat, p, q));
        let Some(q) = found else { break };
        game.state_mut().swap_unrecorded(p, q);
        swaps.push((p, q));
    }
    if !swaps.is_empty() && game.check_legal(action).is_ok() {
        return true;
    }
    for &(p, q) in swaps.iter().rev() {
        game.state_mut().swap_unrecorded(p, q);
    }
    false
}

/// Before a step is taken again in a sample: each piece the real step (`real`'s events
/// `from..to`) showed the seat come into sight, from a zone the seat was told it came from (or
/// where it was turned face up), is put there in the sample, in the place of a piece of the same
/// kind the seat cannot see there, unless the seat sees it elsewhere in the sample. From a pile,
/// the piece that the k-th move out of it in the step showed (the seat is told of the hidden
/// moves too) is put k-th from the top: draws come from the top. So the sample's step draws what
/// the real one drew where the rules draw by place, and an action naming that piece (a card
/// played from a hand) is legal in it.
fn prepare(game: &mut Game, real: &Game, from: usize, to: usize, seat: SeatId) {
    let defs = game.rules().clone();
    let sight = |z: ZoneId| defs.zones[z as usize].sight(seat);
    let events = real.events();
    let to = to.min(events.len());
    let wanted = revealed(real, seat, from, to);
    for (n, &(x, _)) in wanted.iter().enumerate() {
        // Where the seat saw it come from, and when: the first event of the step that shows it.
        let source = (from..to).find_map(|i| match &events[i] {
            Event::Moved { piece, from: z, .. } if *piece == x => Some((sight(*z) != Sight::None).then_some((i, *z))),
            Event::Turned { piece, up: true } if *piece == x => Some(Some((i, zone_at(real, x, from, i)))),
            _ => None,
        });
        let Some(Some((at, source))) = source else { continue };
        if can_see_piece(game, Some(seat), x) {
            continue;
        }
        let alike = |y: PieceId| exchangeable(game, x, y) && !can_see_piece(game, Some(seat), y);
        let pieces = game.state().pieces_in(&defs, source);
        let y = if defs.zones[source as usize].ordered {
            // The moves out of the pile the seat was told of: all, if it sees the pile in part;
            // else (a piece turned face up in a pile it does not see) those that showed a piece.
            let told = |to: ZoneId| sight(source) != Sight::None || sight(to) == Sight::All;
            let k = (from..at)
                .filter(|&i| matches!(&events[i], Event::Moved { from: z, to, .. } if *z == source && told(*to)))
                .count();
            match pieces.get(k) {
                Some(&y) if y == x => continue,
                // A piece wanted later may give its place: it is put in its own when its turn
                // comes, further down (those wanted earlier lie above).
                Some(&y) if alike(y) && !wanted[..n].iter().any(|&(w, _)| w == y) => Some(y),
                _ => None,
            }
        } else if game.state().zone_of(x) == source {
            continue;
        } else {
            pieces.into_iter().find(|&y| alike(y) && !wanted.iter().any(|&(w, _)| w == y))
        };
        if let Some(y) = y {
            game.state_mut().swap_unrecorded(x, y);
        }
    }
}

/// Redistributes what the seat cannot see in a sample: where the real game showed the seat
/// piece X come into sight in zone Z (`real`, its events `real_from..real_to`) and the sample did
/// not, but showed another piece Y of the same kind there that the real game did not, X and Y
/// change places in the sample (in its events since `from` too, so that its narration tells of
/// X), provided the seat had not seen X before in the sample. The seat could not tell the two
/// apart while both were hidden, so the sample stays one its history allows, only drawn the way
/// the real game drew. Without this, a sample would match a game in which hidden cards came out
/// only as often as a random deal gives the same cards.
fn conform(game: &mut Game, from: usize, real: &Game, real_from: usize, real_to: usize, seat: SeatId) {
    let wanted = revealed(real, seat, real_from, real_to);
    let from = from.min(game.events().len());
    // Each swap fixes one piece; a bound keeps a sample that cannot be fixed from looping.
    for _ in 0..wanted.len() {
        let got = revealed(game, seat, from, usize::MAX);
        let swap = wanted.iter().filter(|w| !got.contains(w)).find_map(|&(x, z)| {
            let shown_here = got.iter().any(|&(p, _)| p == x);
            if !shown_here && can_see_piece(game, Some(seat), x) {
                return None;
            }
            got.iter()
                .find(|&&(y, at)| at == z && y != x && exchangeable(game, x, y) && !wanted.contains(&(y, at)))
                .map(|&(y, _)| (x, y))
        });
        let Some((x, y)) = swap else { return };
        let state = game.state_mut();
        state.swap_unrecorded(x, y);
        let swap = |p: &mut PieceId| {
            if *p == x {
                *p = y;
            } else if *p == y {
                *p = x;
            }
        };
        for e in &mut state.events[from..] {
            match e {
                Event::Moved { piece, .. }
                | Event::Turned { piece, .. }
                | Event::Rolled { piece, .. }
                | Event::Picked { piece, .. } => swap(piece),
                Event::Shuffled { order, .. } => order.iter_mut().for_each(swap),
                _ => {}
            }
        }
    }
}

/// The chance of `real`'s events `from..to` as a sample should draw it, from what `seat` saw:
/// the outcomes it saw stated (`visible_chance_in`), and each shuffle or random pick of a zone it
/// sees in part (a face-down pile, a bag) stated as preferring the pieces it then saw come out of
/// that zone in that order, up to the zone's next shuffle (`Stated::Preferred`: a piece that
/// came out and stayed hidden is a hole, any piece), so that the sample draws them where the
/// rules draw by chance. The pieces are those the seat saw come out, never the real draw's
/// hidden outcome: a sample whose draws still differ fails the exact test.
fn guided_chance(real: &Game, seat: SeatId, from: usize, to: usize) -> StatedChance {
    let defs = real.rules();
    let events = &real.events()[from..to.min(real.events().len())];
    let sight = |z: ZoneId| defs.zones[z as usize].sight(seat);
    let mut chance = StatedChance { partial: true, ..StatedChance::default() };
    // What the seat saw come out of `zone` after event `i`, in order, up to its next shuffle: a
    // piece it saw, or `None` for one that stayed hidden (it was told that one left).
    let out_of = |zone: ZoneId, i: usize| -> Vec<Option<PieceId>> {
        let mut out = Vec::new();
        for e in &events[i + 1..] {
            match e {
                Event::Shuffled { zone: z, .. } if *z == zone => break,
                Event::Moved { piece, from, to } if *from == zone => {
                    out.push((sight(*to) == Sight::All).then_some(*piece));
                }
                _ => {}
            }
        }
        out
    };
    for (i, e) in events.iter().enumerate() {
        match e {
            Event::Shuffled { zone, .. } | Event::Picked { zone, .. } if sight(*zone) == Sight::All => {
                chance.queue.extend(visible_chance_in(real, seat, &events[i..=i]).queue);
            }
            Event::Rolled { .. } => chance.queue.extend(visible_chance_in(real, seat, &events[i..=i]).queue),
            // A zone the seat does not see at all: it is not told what leaves it.
            Event::Shuffled { zone, .. } | Event::Picked { zone, .. } if sight(*zone) == Sight::None => {}
            Event::Shuffled { zone, .. } | Event::Picked { zone, .. } => {
                let pieces = out_of(*zone, i);
                if pieces.iter().any(Option::is_some) {
                    chance.queue.push_back((0, Stated::Preferred { zone: *zone, pieces }));
                }
            }
            _ => {}
        }
    }
    chance
}

/// Whether an event is an action a seat took (not one the rules took for a seat they play:
/// replays take those again by themselves).
fn is_seat_action(e: &Event) -> bool {
    matches!(e, Event::Acted { by_rules: false, .. })
}

/// What a playout's end is worth to `seat`: 1 when it is among the winners, 0 when the game
/// ended otherwise; when the playout was cut before the end, the ruleset's estimate of the
/// seat's chance from its view (`[game] evaluate`), or 1/2 without one.
fn score(game: &Game, seat: SeatId) -> Result<f64, Error> {
    let rules = game.rules();
    match (game.state().outcome, rules.evaluate) {
        (Some(o), _) if rules.outcomes[o as usize].winners.contains(&seat) => Ok(1.0),
        (Some(_), _) => Ok(0.0),
        (None, Some(hook)) => estimate(rules, hook, game, seat).map(|percent| percent as f64 / 100.0),
        (None, None) => Ok(0.5),
    }
}

/// The ruleset's estimate of `seat`'s chance to win `game`, in percent (`[game] evaluate`), as the
/// search scores a playout it cuts short; `None` when the ruleset has no evaluation. For designers'
/// tests of their evaluation, and tools that show it.
pub fn evaluate(game: &Game, seat: SeatId) -> Result<Option<i64>, Error> {
    let rules = game.rules();
    rules.evaluate.map(|hook| estimate(rules, hook, game, seat)).transpose()
}

/// The ruleset's estimate (`[game] evaluate`, the function `hook`) of `seat`'s chance to win
/// `game`, in percent: the function is given the seat's view, as a script agent is, so it reads
/// nothing the seat may not see. Anything but a whole number from 0 to 100 is an error pointing
/// at the function's name in `game.toml`: a designer's mistake to be told of, not guessed at.
fn estimate(rules: &Rules, hook: crate::rules::HookId, game: &Game, seat: SeatId) -> Result<i64, Error> {
    let def = &rules.hooks[hook as usize];
    let answer = rules.scripts.call_agent_act(hook, game.state(), seat)?;
    let wrong = |found: String| {
        Error::Script(Box::new(
            crate::diag::Diagnostic::new(format!("the evaluation `{}` must return a percent", def.name))
                .at(def.file, def.span.clone())
                .expected("a whole number from 0 to 100: the seat's chance to win as the ruleset estimates it")
                .found(found),
        ))
    };
    match answer.as_int() {
        Ok(percent) if (0..=100).contains(&percent) => Ok(percent),
        Ok(percent) => Err(wrong(percent.to_string())),
        Err(kind) => Err(wrong(format!("a {kind}"))),
    }
}

/// How many standard errors (in hundredths) an option's playouts must do better than the rollout
/// agent's answer by for the search to play it instead, unless `search:margin` says otherwise:
/// two, so that among a dozen options the best-looking one seldom wins by noise alone
/// (one-sided, about 2% each), yet a few dozen samples can show a real difference.
const DEFAULT_MARGIN: u32 = 200;

/// Whether option `a` did better than option `b` on the samples both were played on by more than
/// `margin` standard errors of the mean difference (a paired comparison: the same particle and
/// luck for both, so what the sample gives both does not count as noise). The variance has a
/// floor, a quarter (a fair coin's) over the square of the number of samples: one or two samples
/// that happen to agree make no certainty, yet the floor fades fast enough for the small
/// differences a ruleset's evaluation gives cut playouts to count once they are consistent.
fn clearly_better(a: &[Option<f64>], b: &[Option<f64>], margin: f64) -> bool {
    let differences: Vec<f64> = a.iter().zip(b).filter_map(|(a, b)| Some((*a)? - (*b)?)).collect();
    if differences.is_empty() {
        return false;
    }
    let n = differences.len() as f64;
    let mean = differences.iter().sum::<f64>() / n;
    let spread = differences.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let error = (spread.max(0.25 / (n * n)) / n).sqrt();
    mean > margin * error
}

impl Agent for SearchAgent {
    /// In real time a seat may wait (until something changes): waiting is one more option of the
    /// search, as letting the game go on is out of turn. A turn-based game lists the options.
    fn plan(&mut self, turn: &Turn) -> Result<Plan, Error> {
        let game = turn.game();
        if game.rules().pace.is_none() {
            return Ok(Plan::Choose);
        }
        let mut legal = Vec::new();
        game.legal_actions_into(turn.seat(), &mut legal)?;
        if legal.is_empty() {
            return Ok(Plan::Wait);
        }
        let i = self.search(&Decision::new(game, turn.seat(), &legal), true)?;
        Ok(legal.get(i).map_or(Plan::Wait, |action| Plan::Take(*action)))
    }

    fn choose(&mut self, decision: &Decision) -> Result<usize, Error> {
        self.search(decision, false)
    }

    /// The stats but `helped`, which depends on the threads' timing (a run's report is the
    /// same from run to run).
    fn counts(&self) -> Vec<(&'static str, u64)> {
        let s = &self.stats;
        vec![
            ("decisions searched", s.decisions),
            ("on samples that did not match all it saw", s.approximate),
            ("played another option than its rollout agent's", s.overruled),
            ("where no option had two playouts", s.unsampled),
            ("playouts", s.playouts),
            ("playouts the rules failed in", s.failed),
            ("particles rebuilt from the whole history", s.rebuilt),
            ("particles dropped", s.dropped),
        ]
    }

    /// Letting the game go on is one more option of the search.
    fn react(&mut self, decision: &Decision) -> Result<Option<usize>, Error> {
        let legal = decision.legal();
        let i = self.search(decision, true)?;
        Ok((i < legal.len()).then_some(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(values: &[f64]) -> Vec<Option<f64>> {
        values.iter().copied().map(Some).collect()
    }

    /// Samples differ far more among themselves than the two options do on each: compared
    /// sample by sample the better option shows, where compared as two independent sets of
    /// playouts (means 0.53 against 0.43, each with a spread of about 0.3) it would not.
    #[test]
    fn options_are_compared_on_the_same_samples() {
        let worse = [0.0, 0.9, 0.2, 0.8, 0.1, 0.7, 0.3, 0.6, 0.4, 0.3];
        let better: Vec<f64> = worse.iter().map(|s| s + 0.1).collect();
        assert!(clearly_better(&scores(&better), &scores(&worse), 2.0));
        assert!(!clearly_better(&scores(&worse), &scores(&better), 2.0));
        // The same scores on different samples: no longer a difference the option makes.
        let mut shuffled = better.clone();
        shuffled.rotate_left(1);
        assert!(!clearly_better(&scores(&shuffled), &scores(&worse), 2.0));
    }

    /// A sample played by one option only (the rules failed on it for the other) is not
    /// compared, and one or two samples that happen to agree are not a certainty.
    #[test]
    fn a_few_agreeing_samples_are_not_enough() {
        assert!(!clearly_better(&scores(&[1.0]), &scores(&[0.0]), 2.0));
        assert!(!clearly_better(&[Some(1.0), None], &[Some(0.0), Some(0.0)], 2.0));
        assert!(clearly_better(&scores(&[1.0, 1.0, 1.0]), &scores(&[0.0, 0.0, 0.0]), 2.0));
        assert!(!clearly_better(&scores(&[0.6, 0.6, 0.6]), &scores(&[0.5, 0.5, 0.5]), 2.0));
    }

    /// A smaller margin lets a smaller difference through (`search:margin`): 0.6 against 0.5 on
    /// three samples is within the variance floor's two standard errors, not within half of one.
    #[test]
    fn the_margin_says_how_clear_a_difference_must_be() {
        let (a, b) = (scores(&[0.6, 0.6, 0.6]), scores(&[0.5, 0.5, 0.5]));
        assert!(!clearly_better(&a, &b, 2.0));
        assert!(clearly_better(&a, &b, 0.5));
        let parsed = ["1.5", "2", "0.25", "10.00", "0"].map(hundredths);
        assert_eq!(parsed, [Some(150), Some(200), Some(25), Some(1000), Some(0)]);
        for bad in ["", ".5", "1.", "1.234", "-1", "1e2", "x", "99999999999"] {
            assert_eq!(hundredths(bad), None, "{bad}");
        }
    }

    /// Each round keeps the better half, and the rollout agent's answer whatever it scored.
    #[test]
    fn halving_keeps_the_better_half_and_the_rollout_agents_answer() {
        let scores: Vec<Vec<Option<f64>>> = [0.1, 0.9, 0.5, 0.7, 0.3].iter().map(|&s| vec![Some(s)]).collect();
        let mut candidates = vec![0, 1, 2, 3, 4];
        halve(&mut candidates, &scores, None);
        assert_eq!(candidates, [1, 3, 2]);
        let mut candidates = vec![0, 1, 2, 3, 4];
        halve(&mut candidates, &scores, Some(0));
        assert_eq!(candidates, [1, 3, 2, 0]);
        halve(&mut candidates, &scores, Some(0));
        assert_eq!(candidates, [1, 3, 0]);
        let mut two = vec![4, 0];
        halve(&mut two, &scores, None);
        assert_eq!(two, [4, 0]);
    }

    /// People's seats search on every core unless told how many threads; other agents, and a
    /// search given its threads, are left as named.
    #[test]
    fn a_search_people_wait_for_is_given_every_core() {
        assert_eq!(with_threads("search", 4), "search:threads=4");
        assert_eq!(with_threads("search:", 4), "search:threads=4");
        assert_eq!(with_threads("search:playouts=9", 4), "search:playouts=9,threads=4");
        assert_eq!(with_threads("search:threads=1", 4), "search:threads=1");
        assert_eq!(with_threads("search:playouts=9", 1), "search:playouts=9");
        for other in ["random", "heuristic", "searcher", "search:bad"] {
            assert_eq!(with_threads(other, 4), other);
        }
        let options = SearchOptions::parse(&with_threads("search:playouts=9", 4)).expect("valid").expect("search");
        assert_eq!((options.playouts, options.threads), (9, 4));
    }

    #[test]
    fn a_mean_counts_the_samples_played() {
        assert_eq!(mean(&[Some(1.0), None, Some(0.0), Some(0.5)]), 0.5);
        assert_eq!(mean(&[None]), 0.0);
    }
}
