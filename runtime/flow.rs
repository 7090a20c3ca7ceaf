//! The flow of a game: phases, prompts, legal actions, applying actions, the clock.
//!
//! A `Game` is a loaded ruleset plus a `State`. After every change the engine runs the flow
//! forward until someone has to decide something (or the game is over): it enters phases, runs
//! their hooks, opens their prompts, and moves on when a phase has nothing left to ask. Legal
//! actions are enumerated from the pending prompt or the phase's standing actions, over the
//! parameters' domains, filtered by built-in checks (zone capacity, `accepts`, `enter_from`,
//! property domains) and the action's optional `legal` hook.

use std::rc::Rc;

use crate::diag::{Diagnostic, Error};
use crate::event::{Event, describe_action};
use crate::rules::{
    ActionDef, ActionId, Domain, HookId, MAX_INT_DOMAIN, MAX_SET_OPTIONS, PieceId, PropKind, Rules, SeatId, SetDomain,
    SymId, ZoneId, names_zone,
};
use crate::script::from_value;
use crate::state::{Action, Prompt, Stage, State, StatedChance, Value};
use crate::value::{Args, Fixed};

/// The built-in check an action fails (`Game::refused`), with what its message names.
enum Refused<'a> {
    /// The piece may not move to the zone (the zone's kinds, entries or capacity).
    Move(PieceId, ZoneId),
    /// The property may not take the value.
    Value(&'a str),
}

/// Phases the flow may pass through without anyone deciding anything before it is declared
/// stuck (a ruleset whose phases loop without asking).
const MAX_SILENT_PHASES: u32 = 10_000;
/// Prompts of seats played by the rules answered in a row, between two decisions of players,
/// before the flow is taken to be a loop.
const MAX_RULES_ANSWERS: u32 = 10_000;

/// Every set of `size` of the given bits (indices into a set's universe) that adds to `acc` only
/// bits from `bits[from..]`, in lexicographic order of their bits, into `out`.
fn subsets_of_size(bits: &[u32], size: usize, from: usize, acc: u64, out: &mut Vec<u64>) {
    if size == 0 {
        out.push(acc);
        return;
    }
    for i in from..=bits.len().saturating_sub(size) {
        if i < bits.len() {
            subsets_of_size(bits, size - 1, i + 1, acc | 1 << bits[i], out);
        }
    }
}

/// Whether an integer parameter's range can be listed (the loader refuses others; this keeps
/// the arithmetic safe for any two integers all the same).
fn listable(lo: i64, hi: i64) -> bool {
    hi.checked_sub(lo).is_some_and(|width| (0..MAX_INT_DOMAIN).contains(&width))
}

/// One game in progress: the rules it is played by and its state.
#[derive(Clone)]
pub struct Game {
    rules: Rc<Rules>,
    /// Boxed: hooks run on the state moved into the scripts' cell, and moving a box is a
    /// pointer swap.
    state: Box<State>,
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("rules", &self.rules.name)
            .field("phase", &self.state.phase)
            .finish_non_exhaustive()
    }
}

/// The most options one listing's maps may stand for, their lists' values multiplied out: as
/// many as a script's list may hold (`script::MAX_DATA_SIZE`), so that a map of a few lists
/// cannot make a listing of millions. The parameters a map leaves out are not counted: their
/// domains bound them.
const MOST_LISTED: usize = crate::script::MAX_DATA_SIZE;

/// What a listing whose maps stand for more than [`MOST_LISTED`] options is told.
fn too_many_listed() -> String {
    format!("the options listed stand for more than {MOST_LISTED} (the values of their lists multiplied out)")
}

impl Game {
    /// Starts a game for `players` seats (the first `players` seats of the ruleset) with the
    /// given seed, and runs the flow to the first decision.
    pub fn new(rules: Rc<Rules>, players: u8, seed: u64) -> Result<Game, Error> {
        Self::start(rules, players, seed, false)
    }

    /// Like `new`, but records every event (for logs, replays and tests).
    pub fn recorded(rules: Rc<Rules>, players: u8, seed: u64) -> Result<Game, Error> {
        Self::start(rules, players, seed, true)
    }

    /// Starts a recorded game whose setup uses the chance outcomes a log states (see
    /// `log::replay`).
    pub fn replaying(rules: Rc<Rules>, players: u8, seed: u64, stated: StatedChance) -> Result<Game, Error> {
        Self::start_with(rules, players, seed, true, stated)
    }

    fn start(rules: Rc<Rules>, players: u8, seed: u64, recording: bool) -> Result<Game, Error> {
        Self::start_with(rules, players, seed, recording, StatedChance::default())
    }

    fn start_with(
        rules: Rc<Rules>,
        players: u8,
        seed: u64,
        recording: bool,
        stated: StatedChance,
    ) -> Result<Game, Error> {
        let (lo, hi) = rules.players;
        if players < lo || players > hi || rules.excluded_players.contains(&players) {
            let counts: Vec<String> =
                (lo..=hi).filter(|n| !rules.excluded_players.contains(n)).map(|n| n.to_string()).collect();
            let counts = match counts.as_slice() {
                [one] => one.clone(),
                _ if rules.excluded_players.is_empty() => format!("{lo} to {hi}"),
                [first @ .., last] => format!("{} or {last}", first.join(", ")),
                [] => String::new(),
            };
            return Err(Error::Input(format!("{} is played by {counts} players, not {players}", rules.name)));
        }
        let mut state = State::initial(&rules, players, seed);
        state.recording = recording;
        state.stated = stated;
        let mut game = Game { rules, state: Box::new(state) };
        game.advance()?;
        Ok(game)
    }

    /// A game in `state`, played by `rules`: a state sent from another thread, played there
    /// by that thread's copy of the rules it was made with (`Rules::replica`).
    pub(crate) fn resumed(rules: Rc<Rules>, state: Box<State>) -> Game {
        Game { rules, state }
    }

    /// The rules the game is played by.
    pub fn rules(&self) -> &Rc<Rules> {
        &self.rules
    }

    /// The whole state, secrets included. Seat-facing code uses `view::view` instead.
    pub fn state(&self) -> &State {
        &self.state
    }

    pub(crate) fn state_mut(&mut self) -> &mut State {
        &mut self.state
    }

    /// The number of players.
    pub fn players(&self) -> u8 {
        self.state.players
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.state.outcome.is_some()
    }

    /// The outcome's name, once the game has ended.
    pub fn outcome(&self) -> Option<&str> {
        self.state.outcome.map(|o| self.rules.outcomes[o as usize].name.as_str())
    }

    /// Events recorded so far (empty unless the game was started with `recorded`).
    pub fn events(&self) -> &[Event] {
        &self.state.events
    }

    /// The current phase's name.
    pub fn phase(&self) -> &str {
        &self.rules.phases[self.state.phase as usize].name
    }

    /// Game time in milliseconds.
    pub fn clock(&self) -> i64 {
        self.state.clock
    }

    /// The first pending prompt, if any. In a turn-based game only its seat may act until it is
    /// answered; in real time it holds its own seat alone (`prompt_for`).
    pub fn prompt(&self) -> Option<&Prompt> {
        self.state.prompts.front()
    }

    /// The prompt `seat` must answer now, if any.
    pub fn prompt_for(&self, seat: SeatId) -> Option<&Prompt> {
        self.state.prompt_for(&self.rules, seat).map(|(_, p)| p)
    }

    /// The seats that may act now.
    pub fn to_act(&self) -> Vec<SeatId> {
        self.acting().collect()
    }

    /// The seats that may act now, in order, without building a list (`to_act`).
    pub fn acting(&self) -> impl Iterator<Item = SeatId> + '_ {
        let phase = &self.rules.phases[self.state.phase as usize];
        let standing: &[SeatId] = if phase.actions.is_empty() { &[] } else { &phase.active };
        let per_seat = self.state.prompts_per_seat(&self.rules);
        let (one, many): (Option<SeatId>, &[SeatId]) = match self.state.prompts.front() {
            _ if self.is_over() => (None, &[]),
            // Real time: the standing seats, and after them the seats asked that are not one.
            _ if per_seat => (None, standing),
            Some(p) => (Some(p.seat), &[]),
            None => (None, standing),
        };
        let players = self.state.players;
        let asked = if per_seat && !self.is_over() { 0..players } else { 0..0 };
        let prompts = &self.state.prompts;
        one.into_iter()
            .chain(many.iter().copied().filter(move |&s| s < players))
            .chain(asked.filter(move |s| !standing.contains(s) && prompts.iter().any(|p| p.seat == *s)))
    }

    /// Whether `seat` may act out of turn now: the phase lists `out_of_turn` actions, the game
    /// is not waiting for this seat, and a player sits there (not the rules). Turn-based games
    /// only (the loader refuses such actions in real time).
    pub fn may_act_out_of_turn(&self, seat: SeatId) -> bool {
        self.state.may_act_out_of_turn(&self.rules, seat)
    }

    /// The seats that may act out of turn now (`may_act_out_of_turn`), in seat order from the
    /// one after the seat the game waits for: the order in which they are offered the chance.
    pub fn out_of_turn_seats(&self) -> impl Iterator<Item = SeatId> + '_ {
        let players = self.state.players;
        let any = !self.rules.phases[self.state.phase as usize].out_of_turn.is_empty();
        // Asked after every action: a phase without out-of-turn actions (most) skips working out
        // who acts next.
        let after = if any { self.acting().next().map_or(0, |s| s + 1) } else { 0 };
        (0..if any { players } else { 0 })
            .map(move |k| (after + k) % players.max(1))
            .filter(move |&s| self.may_act_out_of_turn(s))
    }

    /// Every action `seat` may take now: its prompt's options, its standing actions, or its
    /// out-of-turn actions. Empty when the seat has nothing to decide.
    pub fn legal_actions(&self, seat: SeatId) -> Result<Vec<Action>, Error> {
        let mut out = Vec::new();
        self.legal_actions_into(seat, &mut out)?;
        Ok(out)
    }

    /// Like `legal_actions`, into `out` (emptied first): a caller that decides again and again
    /// (a simulation, a search) keeps one buffer, and listing the options allocates nothing.
    pub fn legal_actions_into(&self, seat: SeatId, out: &mut Vec<Action>) -> Result<(), Error> {
        out.clear();
        if self.is_over() {
            return Ok(());
        }
        if let Some((_, p)) = self.state.prompt_for(&self.rules, seat) {
            return self.enumerate(seat, p.action, &p.fixed, out);
        }
        let Some(actions) = self.unprompted_actions(seat) else { return Ok(()) };
        if let Some(hook) = self.rules.phases[self.state.phase as usize].options {
            return self.listed_options_into(hook, seat, out);
        }
        for &a in actions {
            let free = Fixed::filled(None, self.rules.actions[a as usize].params.len()).unwrap_or_default();
            self.enumerate(seat, a, &free, out)?;
        }
        Ok(())
    }

    /// The phase's actions `seat` may take now without a prompt of its own: its standing
    /// actions (the game waits for it), or its out-of-turn actions. `None` when it has a prompt
    /// to answer, or nothing it may do.
    fn unprompted_actions(&self, seat: SeatId) -> Option<&[ActionId]> {
        let phase = &self.rules.phases[self.state.phase as usize];
        if self.may_act_out_of_turn(seat) {
            return Some(&phase.out_of_turn);
        }
        let standing = !self.is_over()
            && self.state.prompt_for(&self.rules, seat).is_none()
            && !self.state.held_by_a_prompt(&self.rules, seat)
            && phase.active.contains(&seat)
            && seat < self.state.players;
        standing.then_some(&phase.actions)
    }

    /// Every standing (or out-of-turn) action of `seat` that the action's domains and `legal`
    /// hooks allow, ignoring the phase's `options` hook. In a phase with both, this must equal
    /// `legal_actions` (for the actions with a `legal` hook): tests of a ruleset check it.
    pub fn legal_by_hooks(&self, seat: SeatId) -> Result<Vec<Action>, Error> {
        let mut out = Vec::new();
        let Some(actions) = self.unprompted_actions(seat) else { return Ok(out) };
        for &a in actions {
            let free = Fixed::filled(None, self.rules.actions[a as usize].params.len()).unwrap_or_default();
            self.enumerate_domains(seat, a, &free, &mut out)?;
        }
        Ok(out)
    }

    /// Where an `options` hook (the phase's, or an action's own) and the actions' own checks
    /// disagree for `seat` now, worded for a designer: an option the hook lists that the
    /// action's domains, built-in checks or `legal` hook refuse (a simulated game could take it,
    /// and replay would refuse the log), or an action a `legal` hook accepts that the hook does
    /// not list. `None` when they agree, or when no `options` hook lists what `seat` decides.
    /// `tabula check` asks it at every step of its games.
    pub fn options_disagreement(&self, seat: SeatId) -> Result<Option<String>, Error> {
        let defs = &*self.rules;
        let phase = &defs.phases[self.state.phase as usize];
        if self.is_over() {
            return Ok(None);
        }
        let hook_name = |h: HookId| defs.hooks[h as usize].name.as_str();
        let free = |a: ActionId| Fixed::filled(None, defs.actions[a as usize].params.len()).unwrap_or_default();
        // A prompt's action with an `options` hook of its own.
        if let Some((_, p)) = self.state.prompt_for(defs, seat) {
            let def = &defs.actions[p.action as usize];
            let Some(hook) = def.options else { return Ok(None) };
            let mut listed = Vec::new();
            self.enumerate(seat, p.action, &p.fixed, &mut listed)?;
            let mut accepted = Vec::new();
            if def.legal.is_some() {
                self.enumerate_domains(seat, p.action, &p.fixed, &mut accepted)?;
            }
            return self.disagreement(hook_name(hook), &listed, &accepted);
        }
        let Some(actions) = self.unprompted_actions(seat) else { return Ok(None) };
        // The phase's `options` hook, for all its standing actions: compared both ways only for
        // the actions with a `legal` hook, since listing a part of the others is what it is for.
        if let Some(hook) = phase.options {
            let listed = self.listed_options(hook, seat)?;
            let mut accepted = Vec::new();
            for &a in actions.iter().filter(|&&a| defs.actions[a as usize].legal.is_some()) {
                self.enumerate_domains(seat, a, &free(a), &mut accepted)?;
            }
            return self.disagreement(hook_name(hook), &listed, &accepted);
        }
        // Standing actions with `options` hooks of their own.
        for &a in actions {
            let def = &defs.actions[a as usize];
            let Some(hook) = def.options else { continue };
            let mut listed = Vec::new();
            self.enumerate(seat, a, &free(a), &mut listed)?;
            let mut accepted = Vec::new();
            if def.legal.is_some() {
                self.enumerate_domains(seat, a, &free(a), &mut accepted)?;
            }
            if let Some(found) = self.disagreement(hook_name(hook), &listed, &accepted)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    /// Where the options an `options` hook listed disagree with the actions' own checks: one
    /// the domains, built-in checks or `legal` hook refuse, or one of `accepted` (what the
    /// domains and `legal` hooks allow) that the hook left out.
    fn disagreement(&self, hook_name: &str, listed: &[Action], accepted: &[Action]) -> Result<Option<String>, Error> {
        let defs = &*self.rules;
        for action in listed {
            // The checks `check_legal` makes of an action, but for the listing itself, which each
            // option would otherwise pay for again.
            let def = &defs.actions[action.action as usize];
            let reason = if !self.in_domains(action) {
                Some("an argument is outside its parameter's domain".to_string())
            } else if let Some(reason) = self.refusal(action) {
                Some(reason)
            } else if !self.passes_legal_hook(action)? {
                let hook = def.legal.map_or("", |h| defs.hooks[h as usize].name.as_str());
                Some(format!("the `legal` hook `{hook}` refuses it"))
            } else {
                None
            };
            if let Some(reason) = reason {
                return Ok(Some(format!(
                    "the options hook `{hook_name}` lists `{}`, which the rules refuse: {reason} (a game could take it, and replay would refuse its log)",
                    describe_action(defs, action)
                )));
            }
        }
        if let Some(action) = accepted.iter().find(|a| !listed.contains(a)) {
            return Ok(Some(format!(
                "the `legal` hook of `{}` accepts `{}`, which the options hook `{hook_name}` does not list",
                defs.actions[action.action as usize].name,
                describe_action(defs, action)
            )));
        }
        Ok(None)
    }

    /// The standing actions a phase's `options` hook lists for a seat (it runs on a copy of
    /// the state: listing options must not change the game).
    fn listed_options(&self, hook: HookId, seat: SeatId) -> Result<Vec<Action>, Error> {
        let mut out = Vec::new();
        self.listed_options_into(hook, seat, &mut out)?;
        Ok(out)
    }

    /// `listed_options` into `out`.
    fn listed_options_into(&self, hook: HookId, seat: SeatId, out: &mut Vec<Action>) -> Result<(), Error> {
        let defs = &*self.rules;
        let seat_name = rhai::Dynamic::from(defs.seat_names[seat as usize].clone());
        let (listed, keeping) =
            defs.scripts.options(hook, &self.state, seat, self.may_act_out_of_turn(seat), seat_name)?;
        let hook_name = &defs.hooks[hook as usize].name;
        let bad = |message: String| {
            Error::Script(Box::new(crate::diag::Diagnostic::new(format!("options hook `{hook_name}`: {message}"))))
        };
        let items = match listed {
            crate::script::Listed::Kept(items) => items,
            crate::script::Listed::Ran(listed) => {
                listed.into_array().map_err(|t| bad(format!("expected an array of options, found a {t}")))?
            }
        };
        // A seat out of turn may take only the phase's out-of-turn actions.
        let allowed = self.unprompted_actions(seat).unwrap_or_default();
        let which =
            if self.may_act_out_of_turn(seat) { "out-of-turn actions (the seat is not on turn)" } else { "actions" };
        out.reserve(items.len());
        let mut described = 0usize;
        for item in &items {
            let option = defs.scripts.listed_option(defs, seat, item).map_err(bad)?;
            described = described.saturating_add(option.count());
            if described > MOST_LISTED {
                return Err(bad(too_many_listed()));
            }
            let action = option.action.action;
            if !allowed.contains(&action) {
                return Err(bad(format!("`{}` is not one of the phase's {which}", defs.actions[action as usize].name)));
            }
            let left_out = option.left_out;
            // A list given for a parameter stands for an option per value, in its order.
            option.each(|mut action| {
                if left_out == 0 {
                    out.push(action);
                    return Ok(());
                }
                // The parameters the option leaves out take each of their values, natively, in
                // their domains' order: the hook vouches for the action (its `legal` hook is not
                // asked), the built-in checks still apply.
                let def = &defs.actions[action.action as usize];
                let mut fixed = [None; crate::value::MAX_PARAMS];
                for (k, v) in action.args.iter().enumerate() {
                    fixed[k] = (left_out & 1 << k == 0).then_some(*v);
                }
                let n = action.args.len();
                self.enumerate_from(def, 0, &fixed[..n], &mut action, false, out)
            })?;
        }
        defs.scripts.options_read(keeping, items);
        Ok(())
    }

    /// Lists the actions of `action` for `seat` that keep the `fixed` arguments, take the others
    /// from their parameters' domains, and pass the built-in checks and the `legal` hook: every
    /// combination, last parameter fastest (so options list in domain order).
    fn enumerate(
        &self,
        seat: SeatId,
        action: ActionId,
        fixed: &[Option<Value>],
        out: &mut Vec<Action>,
    ) -> Result<(), Error> {
        let def = &self.rules.actions[action as usize];
        if let Some(hook) = def.options {
            return self.action_options_into(def, action, hook, seat, fixed, out);
        }
        self.enumerate_domains(seat, action, fixed, out)
    }

    /// `enumerate` from the parameters' domains, whether or not the action lists its own
    /// options.
    fn enumerate_domains(
        &self,
        seat: SeatId,
        action: ActionId,
        fixed: &[Option<Value>],
        out: &mut Vec<Action>,
    ) -> Result<(), Error> {
        let def = &self.rules.actions[action as usize];
        let params = def.params.len().min(fixed.len());
        let args = Args::filled(Value::Int(0), params).unwrap_or_default();
        // The state stays as it is while its candidates are checked: their `legal` hooks may
        // share one scratch copy of it.
        let _listing = self.rules.scripts.listing();
        self.enumerate_from(def, 0, fixed, &mut Action { seat, action, args }, def.legal.is_some(), out)
    }

    /// The options an action's own `options` hook lists for `seat` (on a copy of the state),
    /// those that keep the `fixed` arguments, into `out`.
    fn action_options_into(
        &self,
        def: &ActionDef,
        action: ActionId,
        hook: HookId,
        seat: SeatId,
        fixed: &[Option<Value>],
        out: &mut Vec<Action>,
    ) -> Result<(), Error> {
        let defs = &*self.rules;
        // The hook gets the fixed arguments by name, and the seat, as `legal` hooks get theirs.
        let mut args = rhai::Map::new();
        for (p, v) in def.params.iter().zip(fixed) {
            if let Some(v) = v {
                args.insert(p.name.as_str().into(), from_value(defs, &p.domain, v));
            }
        }
        args.insert("seat".into(), rhai::Dynamic::from(defs.seat_names[seat as usize].clone()));
        let listed = defs.scripts.call_on_copy(hook, &self.state, Some(rhai::Dynamic::from_map(args)))?;
        let hook_name = &defs.hooks[hook as usize].name;
        let bad = |message: String| {
            Error::Script(Box::new(crate::diag::Diagnostic::new(format!(
                "options hook `{hook_name}` of action `{}`: {message}",
                def.name
            ))))
        };
        let items = listed.into_array().map_err(|t| bad(format!("expected an array of options, found a {t}")))?;
        let mut described = 0usize;
        for item in items {
            // `action` may be left out: it is this one.
            let item = match item.try_cast::<rhai::Map>() {
                Some(mut map) => {
                    map.entry("action".into()).or_insert_with(|| rhai::Dynamic::from(def.name.clone()));
                    rhai::Dynamic::from_map(map)
                }
                None => return Err(bad("expected maps of arguments, as #{x: 0, y: -1}".into())),
            };
            let listed = defs.scripts.listed_option(defs, seat, &item).map_err(bad)?;
            described = described.saturating_add(listed.count());
            if described > MOST_LISTED {
                return Err(bad(too_many_listed()));
            }
            if listed.action.action != action {
                return Err(bad(format!(
                    "lists `{}`, another action",
                    defs.actions[listed.action.action as usize].name
                )));
            }
            let left_out = listed.left_out;
            let kept = |k: usize| left_out & 1 << k == 0;
            listed.each(|mut option| {
                if !fixed.iter().zip(&option.args).enumerate().all(|(k, (f, a))| !kept(k) || f.is_none_or(|f| f == *a))
                {
                    return Ok(());
                }
                if left_out == 0 {
                    out.push(option);
                    return Ok(());
                }
                // Left out: each value the prompt does not fix (see `listed_options_into`).
                let mut each = [None; crate::value::MAX_PARAMS];
                for (k, v) in option.args.iter().enumerate() {
                    each[k] = if kept(k) { Some(*v) } else { fixed.get(k).copied().flatten() };
                }
                let n = option.args.len();
                self.enumerate_from(def, 0, &each[..n], &mut option, false, out)
            })?;
        }
        Ok(())
    }

    /// `enumerate` from parameter `k` on, the earlier ones set in `candidate`; each candidate
    /// checked by the action's `legal` hook if `hooked` (else by the built-in checks alone).
    fn enumerate_from(
        &self,
        def: &ActionDef,
        k: usize,
        fixed: &[Option<Value>],
        candidate: &mut Action,
        hooked: bool,
        out: &mut Vec<Action>,
    ) -> Result<(), Error> {
        if k == candidate.args.len() {
            return self.admit(def, candidate, hooked, out);
        }
        if let Some(v) = fixed[k] {
            candidate.args[k] = v;
            return self.enumerate_from(def, k + 1, fixed, candidate, hooked, out);
        }
        let defs = &*self.rules;
        // The last parameter's values are checked in place, without a call for each.
        let last = k + 1 == candidate.args.len();
        // The destination of a move whose piece is already chosen (`assign member area`), the
        // commonest listing: only the move's checks can refuse it (see `refused_by`).
        if last
            && let Domain::Zone(zones) = &def.params[k].domain
            && let Some((pi, zi)) = def.effect.moves
            && zi == k
            && let Some(&Value::Piece(piece)) = candidate.args.get(pi)
        {
            let (kind, from) = (defs.pieces[piece as usize].kind, self.state.zone_of(piece));
            for zone in zones.iter().map(|z| z.of(candidate.seat)) {
                if self.state.move_refused_as(defs, kind, from, zone).is_none() {
                    candidate.args[k] = Value::Zone(zone);
                    if !hooked || self.passes_legal_hook(candidate)? {
                        out.push(*candidate);
                    }
                }
            }
            return Ok(());
        }
        let mut each = |v: Value, candidate: &mut Action| {
            candidate.args[k] = v;
            if last {
                self.admit(def, candidate, hooked, out)
            } else {
                self.enumerate_from(def, k + 1, fixed, candidate, hooked, out)
            }
        };
        let seat = candidate.seat;
        match &def.params[k].domain {
            // The parameter's candidates were listed at load, in id order.
            Domain::Piece(_, within) => {
                for &p in &def.params[k].pieces {
                    if within.as_ref().is_none_or(|zs| names_zone(zs, seat, self.state.zone_of[p as usize])) {
                        each(Value::Piece(p), candidate)?;
                    }
                }
            }
            Domain::Set(set) => {
                for mask in self.set_options(&def.name, &def.params[k].name, set, seat)? {
                    each(Value::Set(mask), candidate)?;
                }
            }
            Domain::Zone(zones) => zones.iter().try_for_each(|z| each(Value::Zone(z.of(seat)), candidate))?,
            Domain::Word(words) => words.iter().try_for_each(|&w| each(Value::Word(w), candidate))?,
            Domain::Int(lo, hi) if listable(*lo, *hi) => {
                (*lo..=*hi).try_for_each(|i| each(Value::Int(i), candidate))?
            }
            Domain::Int(..) => {}
            Domain::Seat => (0..self.state.players).try_for_each(|s| each(Value::Seat(s), candidate))?,
        }
        Ok(())
    }

    /// The sets a set parameter may take when `seat` acts: every subset of the pieces it may
    /// choose among now, within its sizes, fewest pieces first (then in universe order). Too
    /// many to list is an error of the rules (`MAX_SET_OPTIONS`).
    fn set_options(&self, action: &str, param: &str, set: &SetDomain, seat: SeatId) -> Result<Vec<u64>, Error> {
        let available = self.set_candidates(set, seat);
        let n = available.count_ones();
        let (min, max) = (set.min.min(n + 1), set.max.min(n));
        // How many subsets there are: the sum of binomial coefficients, checked as it grows.
        let mut total = 0u64;
        let mut choose = 1u64;
        for size in 0..=max {
            if size >= min {
                total = total.saturating_add(choose);
            }
            choose = choose.saturating_mul(u64::from(n - size)) / u64::from(size + 1);
        }
        if total > MAX_SET_OPTIONS {
            return Err(Error::Rules(Box::new(crate::diag::Diagnostic::new(format!(
                "set parameter `{param}` of action `{action}` has {total} sets to choose from now ({n} pieces): at most {MAX_SET_OPTIONS} can be listed; bound it with `size`"
            )))));
        }
        let bits: Vec<u32> = (0..64).filter(|b| available >> b & 1 == 1).collect();
        let mut sets = Vec::with_capacity(total as usize);
        for size in min..=max {
            subsets_of_size(&bits, size as usize, 0, 0, &mut sets);
        }
        Ok(sets)
    }

    /// The pieces of a set parameter's universe that `seat` may choose among now (in its zones).
    fn set_candidates(&self, set: &SetDomain, seat: SeatId) -> u64 {
        set.universe.iter().enumerate().fold(0, |mask, (i, &p)| {
            let here = set.within.as_ref().is_none_or(|zs| names_zone(zs, seat, self.state.zone_of(p)));
            if here { mask | 1 << i } else { mask }
        })
    }

    /// Adds a complete candidate to `out` if the built-in checks and the `legal` hook allow it.
    /// The definition was looked up once for the whole listing: candidates are many.
    #[inline]
    fn admit(&self, def: &ActionDef, candidate: &Action, hooked: bool, out: &mut Vec<Action>) -> Result<(), Error> {
        if self.refused_by(def, candidate).is_none() && (!hooked || self.passes_legal_hook(candidate)?) {
            out.push(*candidate);
        }
        Ok(())
    }

    /// Which built-in check refuses a candidate, if one does. No message is built: listing
    /// options checks many candidates and reports none (`refusal` words the one reported).
    fn refused(&self, a: &Action) -> Option<Refused<'_>> {
        self.refused_by(&self.rules.actions[a.action as usize], a)
    }

    /// [`Game::refused`], given the action's definition.
    fn refused_by<'d>(&'d self, def: &'d ActionDef, a: &Action) -> Option<Refused<'d>> {
        let defs = &*self.rules;
        if let Some((pi, zi)) = def.effect.moves
            && let (Some(Value::Piece(p)), Some(Value::Zone(z))) = (a.args.get(pi), a.args.get(zi))
        {
            return self.state.move_refused(defs, *p, *z).map(|_| Refused::Move(*p, *z));
        }
        if let Some((pi, prop, vi)) = &def.effect.sets
            && let (Some(Value::Piece(p)), Some(v)) = (a.args.get(*pi), a.args.get(*vi))
            && !self.may_set(*p, prop, v)
        {
            return Some(Refused::Value(prop));
        }
        None
    }

    /// Why the built-in checks refuse a candidate, if they do.
    fn refusal(&self, a: &Action) -> Option<String> {
        match self.refused(a)? {
            Refused::Move(piece, zone) => self.state.move_refusal(&self.rules, piece, zone),
            Refused::Value(prop) => Some(format!("{prop} cannot take that value")),
        }
    }

    /// Whether an action's effect may set property `prop` of `piece` to `v`.
    fn may_set(&self, piece: PieceId, prop: &str, v: &Value) -> bool {
        match (self.rules.prop_def(piece, prop).map(|d| &d.kind), v) {
            (Some(PropKind::Word(words)), Value::Word(w)) => words.contains(w),
            (Some(PropKind::Int(lo, hi)), Value::Int(i)) => (lo..=hi).contains(&i),
            (Some(PropKind::Piece(_)), Value::Piece(_)) => true,
            _ => false,
        }
    }

    fn passes_legal_hook(&self, a: &Action) -> Result<bool, Error> {
        let Some(hook) = self.rules.actions[a.action as usize].legal else { return Ok(true) };
        // The legal hook must not change the game: it runs on a scratch copy.
        let answer = self.rules.scripts.call_action_hook_on_copy(hook, &self.state, a)?;
        Ok(crate::script::is_true(answer))
    }

    /// Applies an action after checking that it is legal. An illegal action is refused with the
    /// reason and changes nothing; so does one whose hooks fail.
    pub fn apply(&mut self, action: &Action) -> Result<(), Error> {
        self.check_legal(action)?;
        // The snapshot for rolling back leaves out the recorded events (they only grow, and
        // copying them at every action would make a long game quadratic).
        let events = std::mem::take(&mut self.state.events);
        let recorded = events.len();
        let before = self.state.clone();
        self.state.events = events;
        let result = self.apply_unchecked(action);
        if result.is_err() {
            let mut events = std::mem::take(&mut self.state.events);
            events.truncate(recorded);
            self.state = before;
            self.state.events = events;
        }
        result
    }

    /// Applies an action after checking that it is legal, like `apply`, but without keeping a
    /// copy to roll back to: if a hook then fails, the game is left as the hook left it. For
    /// callers that drop the game on error (replay).
    pub fn apply_legal(&mut self, action: &Action) -> Result<(), Error> {
        self.check_legal(action)?;
        self.apply_unchecked(action)
    }

    /// Whether `action` is one of `legal_actions(action.seat)`, decided without listing them
    /// all: it must answer the pending prompt (or be a standing action of an active seat), keep
    /// the prompt's fixed arguments, take its other arguments from their domains, and pass the
    /// built-in checks and the `legal` hook. The refusal says why.
    pub fn check_legal(&self, action: &Action) -> Result<(), Error> {
        let defs = &*self.rules;
        // An action built by a program may name ids the rules do not have.
        let unknown = if usize::from(action.seat) >= defs.seats.len() {
            Some(format!("no seat #{}", action.seat))
        } else if usize::from(action.action) >= defs.actions.len() {
            Some(format!("no action #{}", action.action))
        } else {
            None
        };
        if let Some(reason) = unknown {
            return Err(Error::Illegal { action: describe_action(defs, action), reason });
        }
        let prompt = self.state.prompt_for(defs, action.seat).map(|(_, p)| p);
        let answers = match prompt {
            _ if self.is_over() => false,
            Some(p) => {
                p.action == action.action && p.fixed.iter().zip(&action.args).all(|(f, a)| f.is_none_or(|f| f == *a))
            }
            None => self.unprompted_actions(action.seat).is_some_and(|actions| actions.contains(&action.action)),
        };
        let in_domains = self.in_domains(action);
        // Where an `options` hook lists the options (the phase's, or the action's own), an
        // action with its own `legal` hook is checked by that hook alone, without listing every
        // option (the two must agree: `tabula check` checks that they do).
        let has_legal_hook = defs.actions.get(action.action as usize).is_some_and(|d| d.legal.is_some());
        let own_options = defs.actions.get(action.action as usize).is_some_and(|d| d.options.is_some());
        let listed = match (prompt, defs.phases[self.state.phase as usize].options) {
            _ if !answers || has_legal_hook => true,
            (None, Some(hook)) => self.listed_options(hook, action.seat)?.contains(action),
            // An action listed by its own `options` hook, asked or standing.
            (prompt, _) if own_options => {
                let mut listed = Vec::new();
                match prompt {
                    Some(p) => self.enumerate(action.seat, p.action, &p.fixed, &mut listed)?,
                    None => {
                        let free = Fixed::filled(None, action.args.len()).unwrap_or_default();
                        self.enumerate(action.seat, action.action, &free, &mut listed)?;
                    }
                }
                listed.contains(action)
            }
            _ => true,
        };
        if answers && listed && in_domains && self.refused(action).is_none() && self.passes_legal_hook(action)? {
            return Ok(());
        }
        let legal = self.legal_actions(action.seat)?;
        Err(Error::Illegal { action: describe_action(defs, action), reason: self.why_illegal(action, &legal) })
    }

    /// Whether every argument of an action is one of its parameter's candidates.
    fn in_domains(&self, action: &Action) -> bool {
        self.rules.actions.get(action.action as usize).is_some_and(|d| {
            d.params.len() == action.args.len()
                && d.params.iter().zip(&action.args).all(|(p, a)| self.in_domain(&p.domain, action.seat, a))
        })
    }

    /// Whether a value is one of a domain's candidates when `seat` acts (as `enumerate` lists
    /// them).
    fn in_domain(&self, domain: &Domain, seat: SeatId, value: &Value) -> bool {
        match (domain, value) {
            (Domain::Piece(kinds, within), Value::Piece(p)) => {
                self.rules.pieces.get(*p as usize).is_some_and(|d| kinds.contains(&d.kind))
                    && within.as_ref().is_none_or(|zs| names_zone(zs, seat, self.state.zone_of[*p as usize]))
            }
            (Domain::Set(set), Value::Set(mask)) => {
                *mask & !self.set_candidates(set, seat) == 0 && (set.min..=set.max).contains(&mask.count_ones())
            }
            (Domain::Zone(zones), Value::Zone(z)) => names_zone(zones, seat, *z),
            (Domain::Word(words), Value::Word(w)) => words.contains(w),
            (Domain::Int(lo, hi), Value::Int(i)) => listable(*lo, *hi) && (lo..=hi).contains(&i),
            (Domain::Seat, Value::Seat(s)) => *s < self.state.players,
            _ => false,
        }
    }

    /// Turns event recording on or off (a replay that only checks a log need not record).
    pub fn set_recording(&mut self, on: bool) {
        self.state.recording = on;
    }

    fn why_illegal(&self, action: &Action, legal: &[Action]) -> String {
        let defs = &*self.rules;
        let seat = &defs.seats.get(action.seat as usize).map(|s| s.name.as_str()).unwrap_or("?");
        if self.is_over() {
            return "the game is over".into();
        }
        if legal.is_empty() {
            return match self.state.prompts.front() {
                Some(p) => format!("{seat} has nothing to decide: waiting for {}", defs.seats[p.seat as usize].name),
                None => format!("{seat} has nothing to decide now"),
            };
        }
        // The built-in checks look at the arguments: only for arguments the rules have.
        if let Some(reason) = self.in_domains(action).then(|| self.refusal(action)).flatten() {
            return reason;
        }
        let options: Vec<String> = legal.iter().take(12).map(|a| describe_action(defs, a)).collect();
        let expected =
            format!("expected one of: {}{}", options.join(", "), if legal.len() > 12 { ", ..." } else { "" });
        // An action the phase's `options` hook lists may still be refused by its `legal` hook
        // (`check` reports such a ruleset): say which refused it.
        let hook = defs.actions.get(action.action as usize).and_then(|d| d.legal);
        match hook {
            Some(hook) if self.in_domains(action) && !self.passes_legal_hook(action).unwrap_or(true) => {
                format!("the `legal` hook `{}` refuses it; {expected}", defs.hooks[hook as usize].name)
            }
            _ => expected,
        }
    }

    /// Applies an action taken from `legal_actions` without checking it again (simulation).
    pub fn apply_unchecked(&mut self, action: &Action) -> Result<(), Error> {
        self.perform(action, false)?;
        self.advance()
    }

    /// An action's effects and `apply` hook, without running the flow on: taken by a seat, or
    /// (`by_rules`) by the engine for a seat the rules move.
    fn perform(&mut self, action: &Action, by_rules: bool) -> Result<(), Error> {
        let defs = self.rules.clone();
        // The prompts an action out of turn opens are answered before the game goes on (an
        // offer's answer before the turn it interrupted): they go to the front of the queue.
        let out_of_turn = (!by_rules && self.may_act_out_of_turn(action.seat)).then_some(self.state.next_group);
        if let Some((i, p)) = self.state.prompt_for(&defs, action.seat)
            && p.action == action.action
        {
            self.state.prompts.remove(i);
            self.state.answered = true;
        }
        if self.state.recording {
            self.state.emit(Event::Acted { action: *action, at: self.state.clock, by_rules });
        }
        let def = &defs.actions[action.action as usize];
        if let Some((pi, zi)) = def.effect.moves
            && let (Some(Value::Piece(p)), Some(Value::Zone(z))) = (action.args.get(pi), action.args.get(zi))
        {
            self.state.move_piece(&defs, *p, *z);
        }
        if let Some((pi, prop, vi)) = &def.effect.sets
            && let Some(Value::Piece(p)) = action.args.get(*pi)
        {
            let value = match action.args.get(*vi) {
                Some(Value::Word(w)) => i64::from(*w),
                Some(Value::Int(i)) => *i,
                Some(Value::Piece(q)) => i64::from(*q),
                Some(Value::Zone(z)) => i64::from(*z),
                Some(Value::Seat(s)) => i64::from(*s),
                // The loader refuses a set as the value an effect sets.
                Some(Value::Set(_)) | None => 0,
            };
            self.state
                .set_prop(&defs, *p, prop, value)
                .map_err(|reason| Error::Illegal { action: describe_action(&defs, action), reason })?;
        }
        if let Some(hook) = def.apply {
            defs.scripts.run_action_hook(hook, &mut self.state, action)?;
        }
        if let Some(first_new) = out_of_turn
            && self.state.next_group != first_new
        {
            // A stable sort: the new prompts first, each part in its own order.
            self.state.prompts.make_contiguous().sort_by_key(|p| p.group < first_new);
        }
        Ok(())
    }

    /// Answers the pending prompt of a seat the rules move with its first legal option (the
    /// rules word their prompts so that the move they want comes first, or is the only one).
    fn answer_for_rules(&mut self, seat: SeatId) -> Result<(), Error> {
        let Some((_, prompt)) = self.state.prompt_for(&self.rules, seat) else { return Ok(()) };
        let (action, fixed) = (prompt.action, prompt.fixed);
        let mut options = Vec::new();
        self.enumerate(seat, action, &fixed, &mut options)?;
        let Some(first) = options.first().copied() else {
            let defs = &*self.rules;
            let message = format!(
                "`{}` is played by the rules, and its prompt `{}` has no legal option",
                defs.seats[seat as usize].name, defs.actions[action as usize].name
            );
            let phase = &defs.phases[self.state.phase as usize];
            let d = Diagnostic::new(message)
                .at(phase.file, phase.span.clone())
                .note("the rules answer a prompt of such a seat with its first legal option: the script must ask only when there is one");
            return Err(Error::Rules(Box::new(d)));
        };
        self.perform(&first, true)
    }

    /// Moves the game clock forward to `ms`, firing the timers it passes in order.
    pub fn advance_clock(&mut self, ms: i64) -> Result<(), Error> {
        if ms < self.state.clock {
            return Err(Error::Input(format!("the clock cannot go back from {} to {ms} ms", self.state.clock)));
        }
        let defs = self.rules.clone();
        while let Some(t) = defs.timers.get(self.state.next_timer) {
            if t.at > ms || self.is_over() {
                break;
            }
            self.state.clock = t.at;
            self.state.emit(Event::TimerFired(self.state.next_timer as u16));
            self.state.next_timer += 1;
            defs.scripts.run(t.hook, &mut self.state, None)?;
            self.advance()?;
        }
        if !self.is_over() {
            self.state.clock = ms;
        }
        Ok(())
    }

    /// The game time of the next timer, if one is left.
    pub fn next_timer_at(&self) -> Option<i64> {
        self.rules.timers.get(self.state.next_timer).map(|t| t.at)
    }

    /// Runs the flow until a seat has to decide or the game is over.
    fn advance(&mut self) -> Result<(), Error> {
        let defs = self.rules.clone();
        let mut silent_phases = 0u32;
        let mut answered_by_rules = 0u32;
        loop {
            if self.state.outcome.is_some() {
                self.state.prompts.clear();
                return Ok(());
            }
            // The prompt the flow looks at: the first, or in real time the first the rules settle
            // themselves (a seat they play, a `while` to check); the players' prompts wait for
            // their seats while the others play on.
            let per_seat = self.state.prompts_per_seat(&defs);
            let next = if per_seat {
                self.state
                    .prompts
                    .iter()
                    .position(|p| p.while_hook.is_some() || defs.seats[p.seat as usize].by_rules)
                    .or(if self.state.prompts.is_empty() { None } else { Some(usize::MAX) })
            } else if self.state.prompts.is_empty() {
                None
            } else {
                Some(0)
            };
            if next == Some(usize::MAX) {
                return Ok(());
            }
            if let Some(front) = next.and_then(|i| self.state.prompts.get_mut(i)) {
                let Some(hook) = front.while_hook.take() else {
                    let seat = front.seat;
                    if defs.seats[seat as usize].by_rules {
                        answered_by_rules += 1;
                        if answered_by_rules > MAX_RULES_ANSWERS {
                            let message = format!(
                                "the rules answered {MAX_RULES_ANSWERS} prompts of `{}` in a row without a player deciding",
                                defs.seats[seat as usize].name
                            );
                            let phase = &defs.phases[self.state.phase as usize];
                            let d = Diagnostic::new(message)
                                .at(phase.file, phase.span.clone())
                                .note("a prompt of a seat played by the rules that asks that seat again never ends");
                            return Err(Error::Rules(Box::new(d)));
                        }
                        self.answer_for_rules(seat)?;
                        continue;
                    }
                    return Ok(());
                };
                let group = front.group;
                let keep = crate::script::is_true(defs.scripts.call(hook, &mut self.state, None)?);
                if !keep {
                    self.state.prompts.retain(|p| p.group != group);
                }
                continue;
            }
            let phase = &defs.phases[self.state.phase as usize];
            if let Some(target) = self.state.goto.take() {
                if let Some(h) = phase.on_exit {
                    defs.scripts.run(h, &mut self.state, None)?;
                }
                self.enter(target);
                silent_phases += 1;
            } else if self.state.stage == Stage::Entering {
                self.state.stage = Stage::Running;
                self.state.emit(Event::PhaseEntered(self.state.phase));
                if let Some(h) = phase.on_enter {
                    defs.scripts.run(h, &mut self.state, None)?;
                }
                if self.state.outcome.is_none() && self.state.goto.is_none() {
                    self.open_asks();
                }
            } else {
                if let Some(h) = phase.resume.filter(|_| self.state.answered) {
                    self.state.answered = false;
                    let groups = self.state.next_group;
                    defs.scripts.run(h, &mut self.state, None)?;
                    if self.state.next_group != groups || self.state.goto.is_some() || self.state.outcome.is_some() {
                        continue;
                    }
                }
                if !phase.actions.is_empty() {
                    return Ok(());
                }
                if let Some(h) = phase.on_exit {
                    defs.scripts.run(h, &mut self.state, None)?;
                }
                if self.state.outcome.is_some() {
                    continue;
                }
                let Some(next) = self.state.goto.take().or(phase.next) else {
                    let message = format!(
                        "phase `{}` ended, but it has no `next` and no script chose one with game.goto",
                        phase.name
                    );
                    let d = Diagnostic::new(message).at(phase.file, phase.span.clone()).expected(
                        "`next = \"<phase>\"`, an `ask` or standing `actions` (or a hook that ends the game)",
                    );
                    return Err(Error::Rules(Box::new(d)));
                };
                self.enter(next);
                silent_phases += 1;
            }
            if silent_phases > MAX_SILENT_PHASES {
                let last = &defs.phases[self.state.phase as usize];
                let message = format!(
                    "the flow went through {MAX_SILENT_PHASES} phases without asking anyone anything (last: `{}`)",
                    last.name
                );
                let d = Diagnostic::new(message)
                    .at(last.file, last.span.clone())
                    .note("phases that open no prompt and have no standing actions lead on at once: one of them must ask, or end the game");
                return Err(Error::Rules(Box::new(d)));
            }
        }
    }

    fn enter(&mut self, phase: u16) {
        self.state.phase = phase;
        self.state.stage = Stage::Entering;
        self.state.answered = false;
    }

    /// Opens the current phase's declared prompts: one per piece of the `each` zones, in
    /// declaration order of the pieces, or a single one for an `ask` without `each`.
    fn open_asks(&mut self) {
        let defs = self.rules.clone();
        for ask in &defs.phases[self.state.phase as usize].ask {
            let group = self.state.next_group;
            self.state.next_group += 1;
            let params = defs.actions[ask.action as usize].params.len();
            let prompt =
                |fixed| Prompt { seat: ask.seat, action: ask.action, fixed, group, while_hook: ask.while_hook };
            let free = Fixed::filled(None, params).unwrap_or_default();
            let Some(each) = &ask.each else {
                self.state.prompts.push_back(prompt(free));
                continue;
            };
            self.state.queue_prompts_for_pieces_in(&each.zones, prompt(free), each.param);
        }
    }

    /// Parses an action written as in logs (`seat: action arg arg`) against the rules.
    pub fn parse_action(&self, text: &str) -> Result<Action, Error> {
        let (seat, rest) =
            text.split_once(':').ok_or_else(|| Error::Input(format!("`{text}`: expected `seat: action args...`")))?;
        let mut words = rest.split_whitespace();
        let name =
            words.next().ok_or_else(|| Error::Input(format!("`{text}`: expected an action name after the seat")))?;
        let args: Vec<&str> = words.collect();
        self.action_from_words(seat.trim(), name, &args)
    }

    /// An action from its seat, name and arguments as written in logs.
    pub fn action_from_words<S: AsRef<str>>(&self, seat: &str, name: &str, words: &[S]) -> Result<Action, Error> {
        let defs = &*self.rules;
        let seat_id = defs.seat(seat).ok_or_else(|| {
            let seats = defs.seats.iter().map(|s| s.name.as_str());
            Error::Input(format!("no seat named `{seat}`{}", crate::diag::did_you_mean(seat, seats)))
        })?;
        let action = defs.action(name).ok_or_else(|| {
            let known: Vec<&str> = defs.actions.iter().map(|a| a.name.as_str()).collect();
            Error::Input(format!(
                "no action named `{name}`{}; the actions are {}",
                crate::diag::did_you_mean(name, known.iter().copied()),
                known.join(", ")
            ))
        })?;
        let def = &defs.actions[action as usize];
        // A set, always the last parameter, takes the words left: its pieces, none or many.
        let set = match def.params.last().map(|p| &p.domain) {
            Some(Domain::Set(set)) => Some(set),
            _ => None,
        };
        let single = def.params.len() - usize::from(set.is_some());
        let fits = if set.is_some() { words.len() >= single } else { words.len() == single };
        if !fits {
            let more = if set.is_some() { " and a set of pieces" } else { "" };
            return Err(Error::Input(format!(
                "{name} takes {}{more}, found {}",
                crate::diag::counted(single, "argument"),
                words.len()
            )));
        }
        let mut args = Args::new();
        for (p, w) in def.params.iter().zip(words).take(single) {
            let w = w.as_ref();
            let v = match &p.domain {
                Domain::Set(_) => None,
                Domain::Piece(..) => defs.piece(w).map(Value::Piece),
                Domain::Zone(_) => defs.zone(w).map(Value::Zone),
                Domain::Word(_) => defs.symbol(w).map(|s: SymId| Value::Word(s)),
                Domain::Int(..) => w.parse().ok().map(Value::Int),
                Domain::Seat => defs.seat(w).map(Value::Seat),
            };
            let v = v.ok_or_else(|| not_in_domain(defs, seat_id, name, &p.name, &p.domain, w))?;
            args.push(v).map_err(|_| Error::Input(format!("{name} takes too many arguments")))?;
        }
        if let (Some(set), Some(param)) = (set, def.params.last()) {
            let mut mask = 0u64;
            for w in &words[single..] {
                let w = w.as_ref();
                let bit = defs
                    .piece(w)
                    .and_then(|p| set.mask_of([p]))
                    .ok_or_else(|| not_in_domain(defs, seat_id, name, &param.name, &param.domain, w))?;
                if mask & bit != 0 {
                    return Err(Error::Input(format!("{w} is twice in the {} of {name}", param.name)));
                }
                mask |= bit;
            }
            args.push(Value::Set(mask)).map_err(|_| Error::Input(format!("{name} takes too many arguments")))?;
        }
        Ok(Action { seat: seat_id, action, args })
    }

    /// An action's argument by parameter name, as a script would see it (for tests and tools).
    pub fn arg(&self, action: &Action, param: &str) -> Option<rhai::Dynamic> {
        let def = &self.rules.actions[action.action as usize];
        let i = def.params.iter().position(|p| p.name == param)?;
        Some(from_value(&self.rules, &def.params[i].domain, action.args.get(i)?))
    }

    /// The zone id of a zone name (for tools).
    pub fn zone(&self, name: &str) -> Option<ZoneId> {
        self.rules.zone(name)
    }
}

/// The error for a word that is no value of a parameter's domain, as a person reads it: what it
/// is not, the likely name it mistypes, and the names the domain holds (`` `tabel` is not a
/// valid area for place (did you mean `table`?); area is one of table, hand ``).
fn not_in_domain(defs: &Rules, seat: SeatId, action: &str, param: &str, domain: &Domain, word: &str) -> Error {
    let names = domain_names(defs, seat, domain);
    let hint = crate::diag::did_you_mean(word, names.iter().map(String::as_str));
    let shown: Vec<&str> = names.iter().take(12).map(String::as_str).collect();
    let more =
        if names.len() > shown.len() { format!(" and {} more", names.len() - shown.len()) } else { String::new() };
    let known = match domain {
        Domain::Int(lo, hi) => format!("; {param} is an integer from {lo} to {hi}"),
        _ if names.is_empty() => String::new(),
        _ => format!("; {param} is one of {}{more}", shown.join(", ")),
    };
    Error::Input(format!("`{}` is not a valid {param} for {action}{hint}{known}", crate::diag::clip(word, 60)))
}

/// The names a parameter's domain holds when `seat` acts, whatever the state: the pieces of its
/// kinds (wherever they lie), its zones, its words, or the seats.
fn domain_names(defs: &Rules, seat: SeatId, domain: &Domain) -> Vec<String> {
    let pieces_of = |kinds: &[crate::rules::KindId]| -> Vec<String> {
        defs.pieces.iter().filter(|p| kinds.contains(&p.kind)).map(|p| p.name.clone()).collect()
    };
    match domain {
        Domain::Piece(kinds, _) => pieces_of(kinds),
        Domain::Set(set) => pieces_of(&set.kinds),
        Domain::Zone(zones) => zones.iter().map(|z| defs.zones[z.of(seat) as usize].name.clone()).collect(),
        Domain::Word(words) => words.iter().map(|&w| defs.symbols[w as usize].to_string()).collect(),
        Domain::Int(..) => Vec::new(),
        Domain::Seat => defs.seats.iter().map(|s| s.name.clone()).collect(),
    }
}
