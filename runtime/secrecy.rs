//! The information-set check: two games that differ only in what one seat may not see must give
//! that seat the same everything.
//!
//! For a seat S, game A is played by agents; game B is played beside it, step by step, so that it
//! differs from A only in what S may not see:
//! - B has its own seed: the chance S cannot see (a hidden shuffle, a roll of a die S cannot
//!   see, a script's random draw) comes out differently, while the chance S sees is handed to B
//!   as A drew it (`StatedChance::partial`);
//! - when another seat takes a secret action in A, it takes the same action in B with arguments
//!   drawn afresh among its legal ones (what it kept, where it placed a card);
//! - everything else, S's own choices included, is copied.
//!
//! Half the pairs start apart (different seeds from the start: the seed itself is a secret the
//! seat logs must not carry); the others share a prefix and part at a random step.
//! After every step, every channel S receives must be the same in both games: its view, its
//! legal actions, its terminal screen and narration, what its script agents read through their
//! `View` handle and what they decide, and its real-time timing; and at the end its copy of the
//! log (for the pairs apart from the start: a pair that parts later has B's hidden piles put in a
//! new order, which no log of the rules can say). The
//! comparison for a pair stops when the rules show S something it could not see before (a piece
//! turned face up or moved into sight: the two games may then rightly differ), or when another
//! seat's options differ (that seat knows more, and may rightly act differently).

use std::rc::Rc;

use crate::agent::{Agent, RandomAgent, ScriptAgent};
use crate::diag::Error;
use crate::event::{Event, describe_action};
use crate::flow::Game;
use crate::log::{record, seat_log};
use crate::narrate::{narrate, screen};
use crate::rng::Rng;
use crate::rules::{PieceId, Rules, SeatId, Sight};
use crate::sim::{Asked, Scheduler};
use crate::state::{Action, Stated, StatedChance};
use crate::view::{can_see_piece, view};

/// How many pairs to play, and how.
#[derive(Clone, Debug)]
pub struct SecrecyOptions {
    /// Pairs of games (the observing seat goes round the table).
    pub pairs: u64,
    /// Seed of the run.
    pub seed: u64,
    /// Player count (default: every count the ruleset allows, in turn).
    pub players: Option<u8>,
    /// Steps after which a pair is left (the comparison is the point, not the game's end).
    pub max_steps: u64,
    /// The agent playing the observed seat in both games, by name as `--seat` takes it
    /// (`random`, `search:playouts=4`, one of the ruleset's agents; default: the ruleset's
    /// default agent). Its decisions in the two games must be the same.
    pub agent: Option<String>,
}

impl Default for SecrecyOptions {
    fn default() -> Self {
        SecrecyOptions { pairs: 40, seed: 0, players: None, max_steps: 400, agent: None }
    }
}

/// What the check compared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SecrecyReport {
    /// Pairs played.
    pub pairs: u64,
    /// Steps at which every channel was compared.
    pub steps_compared: u64,
    /// Of those, steps at which the two games' full states differed (the informative ones).
    pub steps_hidden_apart: u64,
}

/// Plays `options.pairs` information-set pairs and compares every channel; the first channel
/// that differs is returned as an error naming the seat, the channel, the step and both
/// versions.
pub fn check_secrecy(rules: Rc<Rules>, options: &SecrecyOptions) -> Result<SecrecyReport, Error> {
    let mut report = SecrecyReport::default();
    let (lo, hi) = rules.players;
    // The player counts the rules allow, taken in turn.
    let counts: Vec<u8> = (lo..=hi).filter(|n| !rules.excluded_players.contains(n)).collect();
    let kinds = counts.len().max(1) as u64;
    for i in 0..options.pairs {
        let players = options.players.unwrap_or(counts.get((i % kinds) as usize).copied().unwrap_or(lo));
        let seat = (i / kinds % u64::from(players)) as SeatId;
        let pair_seed = Rng::derive_seed(options.seed, i);
        // Apart from the start, or from a shared prefix: drawn from the pair's seed, so that
        // every seat and player count gets both kinds.
        let share_prefix = Rng::seeded(pair_seed).below(2) == 1;
        let mut pair = Pair::start(rules.clone(), players, seat, pair_seed, share_prefix, options.agent.as_deref())?;
        pair.run(options.max_steps, &mut report).map_err(|e| {
            Error::Input(format!(
                "information-set pair {i} ({players} players, seed {pair_seed}), seat {}: {e}",
                rules.seats[seat as usize].name
            ))
        })?;
        report.pairs += 1;
    }
    Ok(report)
}

/// The games of one information-set pair for `seat`, seeded from `seed`, apart from the start
/// or from a shared prefix of random length (`share_prefix`), at every step the check compares
/// while the two may not rightly differ: for a tool that checks a channel of its own (the
/// Python package compares its observations). At most `steps` steps; empty when the setup
/// already showed the seat hidden pieces, or the game ended within the shared prefix.
pub fn paired_games(
    rules: Rc<Rules>,
    players: u8,
    seat: SeatId,
    seed: u64,
    share_prefix: bool,
    steps: u64,
) -> Result<Vec<(Game, Game)>, Error> {
    let mut pair = Pair::start(rules, players, seat, seed, share_prefix, None)?;
    let mut out = Vec::new();
    if pair.shown_at_setup || pair.ended_in_prefix {
        return Ok(out);
    }
    for _ in 0..steps {
        out.push((pair.a.clone(), pair.b.clone()));
        if !pair.step(false)? {
            break;
        }
    }
    Ok(out)
}

/// Two games that differ only in what `seat` may not see.
struct Pair {
    rules: Rc<Rules>,
    seat: SeatId,
    a: Game,
    b: Game,
    seeds: (u64, u64),
    /// The scheduler of each game: a seat's timing is one of its channels.
    turns: (Scheduler, Scheduler),
    /// The agent that plays `seat` (the ruleset's default), one per game so that an agent
    /// with memory would show what it was told.
    own: (Box<dyn Agent>, Box<dyn Agent>),
    /// The other seats' agents in A, and the generator drawing their secret choices in B.
    others: Vec<Box<dyn Agent>>,
    resample: Rng,
    /// Where each game's narration for the seat stood at the last comparison.
    told: (usize, usize),
    /// Whether the setup already showed the seat hidden pieces (only the logs' headers are then
    /// compared).
    shown_at_setup: bool,
    /// Whether the game ended while B still followed A (the pair is then not compared).
    ended_in_prefix: bool,
    /// Whether B's hidden piles were put in a new order (B then has no log of its own).
    reordered: bool,
}

impl Pair {
    fn start(
        rules: Rc<Rules>,
        players: u8,
        seat: SeatId,
        seed: u64,
        share_prefix: bool,
        agent: Option<&str>,
    ) -> Result<Pair, Error> {
        let mut rng = Rng::seeded(seed);
        let seeds = (rng.next_u64(), rng.next_u64());
        let a = Game::recorded(rules.clone(), players, seeds.0)?;
        let b = if share_prefix {
            a.clone()
        } else {
            // The setup's chance the seat sees is B's too; the rest comes from B's own seed.
            Game::replaying(rules.clone(), players, seeds.1, visible_chance(&a, seat, 0))?
        };
        let own_agent = |rules: &Rc<Rules>, seed: u64| -> Result<Box<dyn Agent>, Error> {
            let name = agent.unwrap_or(&rules.default_agent);
            if name == "random" {
                return Ok(Box::new(RandomAgent::new(seed)));
            }
            if let Some(options) = crate::search::SearchOptions::parse(name)? {
                return Ok(Box::new(crate::search::SearchAgent::new(rules.clone(), options, seed)?));
            }
            ScriptAgent::new(rules.clone(), name)
                .map(|a| Box::new(a) as Box<dyn Agent>)
                .ok_or_else(|| Error::Input(format!("no agent `{name}`")))
        };
        let agent_seed = rng.next_u64();
        let own = (own_agent(&rules, agent_seed)?, own_agent(&rules, agent_seed)?);
        let others = (0..players).map(|_| Box::new(RandomAgent::new(rng.next_u64())) as Box<dyn Agent>).collect();
        let turns = (Scheduler::new(&a, 1_000_000), Scheduler::new(&b, 1_000_000));
        let mut pair = Pair {
            rules,
            seat,
            a,
            b,
            seeds,
            turns,
            own,
            others,
            resample: Rng::seeded(rng.next_u64()),
            told: (0, 0),
            shown_at_setup: false,
            ended_in_prefix: false,
            reordered: false,
        };
        // The setup may lay out pieces from hidden places (tiles from a shuffled pile): if the
        // seat sees any piece that did not start where it could see it, the two setups may
        // rightly look different.
        if !share_prefix {
            let defs = &pair.rules;
            let hidden_at_start = |p: usize| {
                let def = &defs.pieces[p];
                !def.face_up && defs.zones[def.zone as usize].sight(seat) != Sight::All
            };
            let (seen_a, seen_b) = (pair.seen(&pair.a), pair.seen(&pair.b));
            pair.shown_at_setup = (0..defs.pieces.len()).any(|p| (seen_a[p] || seen_b[p]) && hidden_at_start(p));
        }
        if share_prefix {
            // Play A alone for a while, B following exactly, then reseed B: from here on its
            // hidden chance is its own.
            let prefix = rng.below(60);
            for _ in 0..prefix {
                if !pair.step(true)? {
                    // The game ended before the games could part: nothing to compare.
                    pair.ended_in_prefix = true;
                    return Ok(pair);
                }
            }
            pair.b.state_mut().rng = Rng::seeded(seeds.1);
            pair.reorder_hidden_piles();
            pair.reordered = true;
            pair.told = (pair.a.events().len(), pair.b.events().len());
        }
        Ok(pair)
    }

    /// Compares the pair step by step until the window closes.
    fn run(&mut self, max_steps: u64, report: &mut SecrecyReport) -> Result<(), String> {
        if self.ended_in_prefix {
            return Ok(());
        }
        let steps = if self.shown_at_setup { 0 } else { max_steps };
        for step in 0..steps {
            self.compare().map_err(|e| format!("step {step}: {e}"))?;
            report.steps_compared += 1;
            if view(&self.a, None) != view(&self.b, None) {
                report.steps_hidden_apart += 1;
            }
            match self.step(false) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => return Err(format!("step {step}: {e}")),
            }
        }
        // A game whose piles were reordered outside the rules has no log that replays it: the
        // seat logs are compared for the pairs apart from the start.
        if self.reordered { Ok(()) } else { self.compare_seat_logs() }
    }

    /// One step in both games. Returns false when the window closes (the game is over, the
    /// rules showed the seat something new, or another seat may rightly act differently).
    /// With `follow`, B copies A exactly (the shared prefix).
    fn step(&mut self, follow: bool) -> Result<bool, Error> {
        // In real time another seat that waits in one game and not in the other (its secret
        // action changed something in one game only, which it knows) may rightly act at other
        // times, and so move the seat's turns: the games may differ from here.
        let others_apart =
            (0..self.a.players()).any(|s| s != self.seat && self.turns.0.timing(s) != self.turns.1.timing(s));
        if !follow && others_apart {
            return Ok(false);
        }
        // A first: its turn (the clock may fire timers), its actor's choice, the action.
        let seen_before = self.seen(&self.a);
        let events_a = self.a.events().len();
        let Some(actor) = self.turns.0.next(&mut self.a)? else { return Ok(false) };
        let changes_a_turn = self.a.state().changes();
        let timing_a = self.turns.0.timing(self.seat);
        let agent: &mut dyn Agent =
            if actor == self.seat { &mut *self.own.0 } else { &mut *self.others[actor as usize] };
        let taken_a = decide(agent, &self.a, actor, &self.turns.0)?;
        if let Some(action) = &taken_a {
            self.a.apply_unchecked(action)?;
        }
        self.turns.0.done(&self.a, actor, taken_a.as_ref().map(|a| a.action), changes_a_turn);
        // Then B, with the chance of A's step that the seat saw (all of it while following).
        let seen_before_b = self.seen(&self.b);
        let events_b = self.b.events().len();
        self.b.state_mut().stated =
            if follow { exactly(&self.a, events_a) } else { visible_chance(&self.a, self.seat, events_a) };
        let next_b = self.turns.1.next(&mut self.b)?;
        if !follow && timing_a != self.turns.1.timing(self.seat) {
            return Err(Error::Input(format!(
                "timing: the seat's turns stand at {timing_a:?} in one game and {:?} in the other",
                self.turns.1.timing(self.seat)
            )));
        }
        let Some(actor_b) = next_b else { return Ok(false) };
        if actor != actor_b || self.a.clock() != self.b.clock() {
            if !follow && (actor == self.seat || actor_b == self.seat) {
                return Err(Error::Input(format!(
                    "timing: {} acts at {} in one game, {} at {} in the other",
                    self.rules.seats[actor as usize].name,
                    self.a.clock(),
                    self.rules.seats[actor_b as usize].name,
                    self.b.clock()
                )));
            }
            return Ok(false);
        }
        let changes_b = self.b.state().changes();
        let taken_b = if actor == self.seat {
            // While following too: the seat's agent in B must have been told the same things.
            let b = decide(&mut *self.own.1, &self.b, actor, &self.turns.1)?;
            if b != taken_a {
                return Err(Error::Input(format!(
                    "agent: the seat's agent decides {taken_a:?} in one game, {b:?} in the other"
                )));
            }
            b
        } else if follow {
            taken_a
        } else {
            match &taken_a {
                Some(action) => match redrawn(&self.b, action, &mut self.resample)? {
                    Some(action) => Some(action),
                    None => return Ok(false),
                },
                None => None,
            }
        };
        if let Some(action) = &taken_b {
            if self.b.check_legal(action).is_err() {
                if actor == self.seat {
                    return Err(Error::Input(format!(
                        "legal actions: {} is legal in one game only",
                        describe_action(&self.rules, action)
                    )));
                }
                // The other seat's options differ: it knows something, and may act on it.
                return Ok(false);
            }
            self.b.apply_unchecked(action)?;
        }
        self.b.state_mut().stated = StatedChance::default();
        self.turns.1.done(&self.b, actor, taken_b.as_ref().map(|a| a.action), changes_b);
        if self.a.is_over() || self.b.is_over() {
            return Ok(false);
        }
        // The rules showed the seat something new: the games may rightly differ from here.
        let shown = |before: &[bool], game: &Game| before.iter().zip(self.seen(game)).any(|(b, a)| !b && a);
        // A pile the seat does not see whole was shuffled (a discard pile made a new deck): each
        // game drew its own order, so what comes out of it next may rightly differ, also cards
        // the seat saw before the shuffle.
        let defs = &self.rules;
        let shuffled_unseen = |game: &Game, from: usize| {
            game.events()[from.min(game.events().len())..].iter().any(
                |e| matches!(e, Event::Shuffled { zone, .. } if defs.zones[*zone as usize].sight(self.seat) != Sight::All),
            )
        };
        Ok(follow
            || (!shown(&seen_before, &self.a)
                && !shown(&seen_before_b, &self.b)
                && !shuffled_unseen(&self.a, events_a)
                && !shuffled_unseen(&self.b, events_b)))
    }

    /// Puts B's piles the seat cannot see into a new order (all but a top it sees): the cards
    /// still to come differ, which is what the seat must not learn early.
    fn reorder_hidden_piles(&mut self) {
        let defs = self.rules.clone();
        for (z, def) in defs.zones.iter().enumerate() {
            let z = z as crate::rules::ZoneId;
            let sight = def.sight(self.seat);
            let pieces = self.b.state().pieces_in(&defs, z);
            let face_down = pieces.iter().all(|&p| !self.b.state().is_face_up(p));
            if def.ordered && sight != Sight::All && face_down {
                let keep = usize::from(sight == Sight::Top);
                self.b.state_mut().reorder_unrecorded(&defs, z, keep, &mut self.resample);
            }
        }
    }

    /// Which pieces the seat sees now.
    fn seen(&self, game: &Game) -> Vec<bool> {
        (0..self.rules.pieces.len()).map(|p| can_see_piece(game, Some(self.seat), p as PieceId)).collect()
    }

    /// Every channel but the log, now.
    fn compare(&mut self) -> Result<(), String> {
        let seat = self.seat;
        same("view", &view(&self.a, Some(seat)), &view(&self.b, Some(seat)))?;
        let legal = |g: &Game| -> Vec<String> {
            g.legal_actions(seat).unwrap_or_default().iter().map(|a| describe_action(&self.rules, a)).collect()
        };
        let (legal_a, legal_b) = (legal(&self.a), legal(&self.b));
        same("legal actions", &legal_a, &legal_b)?;
        let told_a = narrate(&self.a, Some(seat), &self.a.events()[self.told.0..]);
        let told_b = narrate(&self.b, Some(seat), &self.b.events()[self.told.1..]);
        same("narration", &told_a, &told_b)?;
        same("screen", &screen(&self.a, seat, self.told.0, &legal_a), &screen(&self.b, seat, self.told.1, &legal_b))?;
        self.told = (self.a.events().len(), self.b.events().len());
        let probe = |g: &Game| self.rules.scripts.probe_view(g.state(), seat).map_err(|e| e.to_string());
        same("agent's view handle", &probe(&self.a)?, &probe(&self.b)?)?;
        Ok(())
    }

    /// The seat's copies of the two games' logs, up to where the pair stopped.
    fn compare_seat_logs(&mut self) -> Result<(), String> {
        let copy = |game: &Game, seed: u64| -> Result<String, String> {
            let log = record(game, Some(seed));
            seat_log(&log, self.rules.clone(), self.seat).map(|l| l.to_string()).map_err(|e| format!("{e:?}"))
        };
        let a = copy(&self.a, self.seeds.0)?;
        let b = copy(&self.b, self.seeds.1)?;
        // The last step may have shown the seat something (that is where the pair stopped):
        // compare up to the last step both copies agree the game went through.
        let (mut a_lines, mut b_lines): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
        // The games may stop a step apart (one acted before the other's turn showed they part):
        // compare the steps both went through, but the last (it may have shown the seat
        // something, and so may rightly differ).
        let steps = |lines: &[&str]| lines.iter().filter(|l| is_step(l)).count();
        let common = steps(&a_lines).min(steps(&b_lines)).saturating_sub(1);
        let cut = |lines: &mut Vec<&str>| {
            let end = lines.iter().enumerate().filter(|(_, l)| is_step(l)).nth(common).map_or(lines.len(), |(i, _)| i);
            lines.truncate(end);
        };
        cut(&mut a_lines);
        cut(&mut b_lines);
        if self.shown_at_setup {
            // The setup itself showed the seat different things: only the headers must agree.
            a_lines.retain(|l| l.starts_with('['));
            b_lines.retain(|l| l.starts_with('['));
        }
        same("seat log", &a_lines, &b_lines)
    }
}

/// Whether a log line begins a step (an action or a clock line).
fn is_step(line: &str) -> bool {
    !(line.is_empty()
        || line.starts_with('[')
        || line.starts_with('#')
        || line.starts_with('*')
        || line.starts_with("result"))
}

/// What an agent does at its turn, as the simulator asks it (`sim::decide`).
fn decide(agent: &mut dyn Agent, game: &Game, seat: SeatId, turns: &Scheduler) -> Result<Option<Action>, Error> {
    let asked = if turns.out_of_turn() { Asked::OutOfTurn } else { Asked::OnTurn { real_time: turns.is_real_time() } };
    crate::sim::decide(agent, game, seat, asked, &mut Vec::new())
}

/// Another seat's action as a game differing only in what the observing seat may not see takes
/// it: a secret action (`secret = true`) with its arguments drawn afresh among those `game` allows
/// for it (what was kept, where a card went), any other action as it was. `None` when `game`
/// allows no such secret action (the acting seat's options differ: it knows something). The
/// information-set check and the search agent's sampler (`search.rs`) both redraw this way.
pub(crate) fn redrawn(game: &Game, action: &Action, rng: &mut Rng) -> Result<Option<Action>, Error> {
    redrawn_preferring(game, action, rng, &|_| true)
}

/// [`redrawn`], drawing among the arguments `prefer` accepts when there are any (the search
/// agent prefers those that agree with what the seat saw later).
pub(crate) fn redrawn_preferring(
    game: &Game,
    action: &Action,
    rng: &mut Rng,
    prefer: &dyn Fn(&Action) -> bool,
) -> Result<Option<Action>, Error> {
    if !game.rules().actions[action.action as usize].secret {
        return Ok(Some(*action));
    }
    let legal: Vec<Action> =
        game.legal_actions(action.seat)?.into_iter().filter(|x| x.action == action.action).collect();
    let preferred: Vec<Action> = legal.iter().copied().filter(|a| prefer(a)).collect();
    let among = if preferred.is_empty() { &legal } else { &preferred };
    if among.is_empty() {
        return Ok(None);
    }
    Ok(Some(among[rng.index(among.len())]))
}

/// The chance outcomes of `game`'s events from `from` on that `seat` saw: rolls of dice it sees,
/// shuffles of zones it sees whole. Stated partially: the others are drawn afresh.
fn visible_chance(game: &Game, seat: SeatId, from: usize) -> StatedChance {
    visible_chance_in(game, seat, &game.events()[from..])
}

/// [`visible_chance`] of some of `game`'s events (`events`, a part of `game.events()`): the
/// chance outcomes `seat` saw, for another game to draw the same (`search.rs` samples so).
pub(crate) fn visible_chance_in(game: &Game, seat: SeatId, events: &[Event]) -> StatedChance {
    let defs = game.rules();
    let mut chance = StatedChance { partial: true, ..StatedChance::default() };
    for e in events {
        match e {
            Event::Rolled { piece, face } if can_see_piece(game, Some(seat), *piece) => {
                chance.queue.push_back((0, Stated::Roll { piece: *piece, face: *face }));
            }
            Event::Shuffled { zone, order } if defs.zones[*zone as usize].sight(seat) == Sight::All => {
                chance.queue.push_back((0, Stated::Shuffle { zone: *zone, order: order.clone() }));
            }
            // A piece taken at random from a zone the seat sees whole (its own hand).
            Event::Picked { zone, piece } if defs.zones[*zone as usize].sight(seat) == Sight::All => {
                chance.queue.push_back((0, Stated::Pick { zone: *zone, piece: *piece }));
            }
            _ => {}
        }
    }
    chance
}

/// Every chance outcome of `game`'s events from `from` on, for B to copy exactly.
fn exactly(game: &Game, from: usize) -> StatedChance {
    let mut chance = StatedChance::default();
    for e in &game.events()[from..] {
        let stated = match e {
            Event::Rolled { piece, face } => Stated::Roll { piece: *piece, face: *face },
            Event::Shuffled { zone, order } => Stated::Shuffle { zone: *zone, order: order.clone() },
            Event::Random { n, value } => Stated::Random { n: *n, value: *value },
            Event::Picked { zone, piece } => Stated::Pick { zone: *zone, piece: *piece },
            _ => continue,
        };
        chance.queue.push_back((0, stated));
    }
    chance
}

/// An error naming the channel and the first difference, unless both are the same.
fn same<T: std::fmt::Debug + PartialEq>(channel: &str, a: &T, b: &T) -> Result<(), String> {
    if a == b {
        return Ok(());
    }
    let (a, b) = (format!("{a:#?}"), format!("{b:#?}"));
    let at = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
    let line = |text: &str| text.lines().nth(at).unwrap_or("(ended)").trim().to_string();
    Err(format!("{channel} differs: `{}` in one game, `{}` in the other", line(&a), line(&b)))
}
