//! The state of one game: where every piece is, counters, the phase, pending prompts, the clock.
//!
//! Everything is a flat vector indexed by the ids of `rules::Defs`, so cloning a state (which
//! search agents do every step) is a handful of memcpys. Mutations go through the methods here,
//! which check bounds and record an event for each change; scripts reach them only through the
//! `script` module's API.

use std::collections::VecDeque;

use crate::event::Event;
use crate::rng::Rng;
use crate::rules::defs::{
    ActionId, CounterId, Defs, Facing, HookId, KindId, PhaseId, PieceId, PropKind, SeatId, SymId, ZoneId,
};
use crate::value::Fixed;
pub use crate::value::{Action, Value};

/// A pending decision: a seat must answer with an action, some of whose arguments are fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// Who decides.
    pub seat: SeatId,
    /// With which action.
    pub action: ActionId,
    /// Fixed arguments (`None`: the seat chooses).
    pub fixed: Fixed,
    /// Prompts opened by one `ask` share a group, so a failed `while` drops them together.
    pub group: u32,
    /// Checked when the prompt comes up; false drops the rest of its group.
    pub while_hook: Option<HookId>,
}

/// A chance outcome stated by a log, to be used instead of the generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stated {
    /// A die piece shows this face (encoded as its `face` property).
    Roll {
        /// The die.
        piece: PieceId,
        /// The face.
        face: i64,
    },
    /// A zone's pieces in this order, top first.
    Shuffle {
        /// The zone.
        zone: ZoneId,
        /// The order.
        order: Vec<PieceId>,
    },
    /// This piece of a zone, taken at random (`game.pick_random`).
    Pick {
        /// The zone.
        zone: ZoneId,
        /// The piece.
        piece: PieceId,
    },
    /// A random number in `0..n`.
    Random {
        /// The range.
        n: i64,
        /// The value.
        value: i64,
    },
    /// The next shuffle or random pick of a zone, drawn so that pieces come out of it in this
    /// order, where they are in the zone (`None`: any other piece): a shuffle puts them on top in
    /// this order, the rest in a drawn order; a pick takes the first, or, when it is `None` or
    /// not in the zone, a drawn piece that the list does not name. It fits any shuffle or pick of
    /// the zone. Never in a log: the search agent's sampler (`search.rs`) states the pieces its
    /// seat saw come out of a hidden zone so, for its sample to draw what the real game drew
    /// without being told what the seat may not see.
    Preferred {
        /// The zone.
        zone: ZoneId,
        /// The pieces in the order wanted out of the zone, top first.
        pieces: Vec<Option<PieceId>>,
    },
}

/// Chance outcomes a log states for the step being replayed, with their line numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatedChance {
    /// Outcomes not used yet, in order.
    pub queue: VecDeque<(usize, Stated)>,
    /// When set, a chance the log does not state is an error (a log without a seed).
    pub required: bool,
    /// When set, outcomes are stated for some draws only: a draw the first queued outcome does
    /// not fit comes from the generator, and the outcome waits for a draw it fits. The
    /// information-set test (`secrecy`) gives a game the chance a seat saw in another this way.
    pub partial: bool,
}

/// Why a piece may not move to a zone (`State::move_refused`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MoveRefused {
    /// The zone does not accept the piece's kind.
    Kind,
    /// The zone cannot be entered from where the piece is.
    Entry,
    /// The zone is full: it holds its capacity.
    Full(u32),
}

/// Where the current phase is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// `on_enter` has not run yet.
    Entering,
    /// Running: prompts and `resume` calls.
    Running,
}

/// The mutable state of one game.
#[derive(Clone, Debug)]
pub struct State {
    pub(crate) zone_of: Vec<ZoneId>,
    /// Each zone's pieces as a set of bits by piece id (`zone_of` seen the other way), so that
    /// listing a zone does not walk every piece.
    members: Members,
    /// Position key within ordered zones: higher is nearer the top.
    pub(crate) order: Vec<i64>,
    pub(crate) face_up: Vec<bool>,
    pub(crate) props: Vec<i64>,
    pub(crate) zone_count: Vec<u32>,
    pub(crate) counters: Vec<i64>,
    pub(crate) players: u8,
    pub(crate) phase: PhaseId,
    pub(crate) stage: Stage,
    pub(crate) prompts: VecDeque<Prompt>,
    pub(crate) next_group: u32,
    /// Whether a prompt of the current phase was answered since its `resume` last ran.
    pub(crate) answered: bool,
    /// A phase a script asked to go to once the current hook returns.
    pub(crate) goto: Option<PhaseId>,
    /// Game time in milliseconds.
    pub(crate) clock: i64,
    /// Index of the next timer to fire.
    pub(crate) next_timer: usize,
    pub(crate) outcome: Option<u16>,
    pub(crate) rng: Rng,
    top_key: i64,
    bottom_key: i64,
    /// Outcomes a replayed log states, used instead of the generator.
    pub(crate) stated: StatedChance,
    /// Events since the start (when recording) for logs, replays and tests.
    pub(crate) events: Vec<Event>,
    pub(crate) recording: bool,
    /// Changes so far (see `changes`).
    pub(crate) changes: u64,
    /// Which state this is, and which one a scratch state last copied (see [`Origin`]).
    origin: Origin,
}

/// What a scratch copy needs to know of a state (see [`State::copy_for_scratch`]): a number
/// of the state's own, fresh for every state made or cloned and for one edited outside the
/// rules; for a scratch state, the number and count of changes of the state it last copied;
/// and a list of the table entries (a piece's place and face, a property, a counter) changed
/// since a count of changes, kept once a scratch state has copied this one, or this state is a
/// scratch state. A copy then takes again only the entries either side changed since it last
/// copied, rather than every table. Never shown, never part of the game: a game and its clone
/// differ only in it, and its `Debug` shows nothing.
struct Origin {
    id: u64,
    scratch_of: Option<Copied>,
    /// The table entries changed while this state's count of changes went on from
    /// `touched_from` (`u64::MAX` while nothing is noted), in the order changed, repeats and all.
    touched: Vec<Touched>,
    touched_from: std::cell::Cell<u64>,
}

/// For a scratch state, what it last copied: the state's number and count of changes, and how
/// long that state's list of changed entries was then. (The list cannot have been emptied and
/// started again since if it still covers that copy: it starts again only at a later copy.)
#[derive(Clone, Copy, PartialEq, Eq)]
struct Copied {
    id: u64,
    changes: u64,
    listed: usize,
}

/// A table entry a change touched (see [`Origin`]).
#[derive(Clone, Copy, Debug)]
enum Touched {
    /// A piece's zone (and so its zone's members and counts) and its face.
    Piece(PieceId),
    /// A property's slot.
    Prop(u32),
    Counter(CounterId),
}

/// At most this many entries noted as changed; past it, none are noted until the next copy,
/// which copies every table.
const MOST_TOUCHED: usize = 256;

impl Origin {
    fn fresh() -> Origin {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Origin { id, scratch_of: None, touched: Vec::new(), touched_from: std::cell::Cell::new(u64::MAX) }
    }
}

impl Clone for Origin {
    /// A clone is another state: it goes its own way from here.
    fn clone(&self) -> Self {
        Origin::fresh()
    }
}

impl std::fmt::Debug for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Origin")
    }
}

impl State {
    /// Makes this state a copy of `from` for a hook that must not change the game (a `legal`
    /// or `options` hook, an agent): everything but the recorded events, with recording off.
    /// It reuses this state's buffers, so a scratch state kept between calls costs no
    /// allocation (a `clone` would allocate every list, and copy every event recorded so far).
    /// The tables that change only with a change of the game (where pieces are, which way up,
    /// their properties, the counters) are taken again entry by entry when this state last
    /// copied the same state (its origin) and both note what changed since (see [`Origin`]):
    /// the entries the scratch's hooks changed here and those the game changed there. The piece
    /// order is always copied: moving a piece to the top of the zone it is in changes the order
    /// and is not a change of the game.
    pub(crate) fn copy_for_scratch(&mut self, from: &State) {
        // Destructured so that a field added to `State` cannot be forgotten here.
        let State {
            zone_of,
            members,
            order,
            face_up,
            props,
            zone_count,
            counters,
            players,
            phase,
            stage,
            prompts,
            next_group,
            answered,
            goto,
            clock,
            next_timer,
            outcome,
            rng,
            top_key,
            bottom_key,
            stated,
            events: _,
            recording: _,
            changes,
            origin,
        } = from;
        // Taken again entry by entry where this state last copied `from` and both lists of what
        // changed cover everything after that copy: what the scratch's hooks changed here, and
        // what the game changed there.
        let listed = |o: &Origin, since: u64| o.touched_from.get() <= since;
        let again = self
            .origin
            .scratch_of
            .filter(|c| c.id == origin.id && listed(origin, c.changes) && listed(&self.origin, c.changes));
        if let Some(last) = again {
            // The game's list from where it stood at the last copy.
            let mine = std::mem::take(&mut self.origin.touched);
            for &t in mine.iter().chain(origin.touched.get(last.listed..).unwrap_or_default()) {
                self.take_entry(from, t);
            }
            self.origin.touched = mine;
            // Every test game checks that the entries taken make the tables whole.
            debug_assert!(
                self.zone_of == *zone_of
                    && self.members == *members
                    && self.face_up == *face_up
                    && self.props == *props
                    && self.zone_count == *zone_count
                    && self.counters == *counters,
                "a scratch copy taken entry by entry differs from the state it copies"
            );
        } else {
            self.zone_of.clone_from(zone_of);
            self.members.clone_from(members);
            self.face_up.clone_from(face_up);
            self.props.clone_from(props);
            self.zone_count.clone_from(zone_count);
            self.counters.clone_from(counters);
        }
        // From here on both sides note what they change, for the next copy; and this state is
        // another one now, for whoever copied it (a scratch state is not copied, but if it were,
        // its list just emptied would not tell what changed).
        self.origin.id = Origin::fresh().id;
        self.origin.touched.clear();
        self.origin.touched_from.set(*changes);
        if origin.touched_from.get() == u64::MAX {
            origin.touched_from.set(*changes);
        }
        self.origin.scratch_of = Some(Copied { id: origin.id, changes: *changes, listed: origin.touched.len() });
        self.order.clone_from(order);
        self.players = *players;
        self.phase = *phase;
        self.stage = *stage;
        self.prompts.clone_from(prompts);
        self.next_group = *next_group;
        self.answered = *answered;
        self.goto = *goto;
        self.clock = *clock;
        self.next_timer = *next_timer;
        self.outcome = *outcome;
        self.rng.clone_from(rng);
        self.top_key = *top_key;
        self.bottom_key = *bottom_key;
        self.stated.clone_from(stated);
        self.events.clear();
        self.recording = false;
        self.changes = *changes;
    }

    /// Takes one table entry from `from` (see [`State::copy_for_scratch`]).
    fn take_entry(&mut self, from: &State, t: Touched) {
        match t {
            Touched::Piece(p) => {
                let p = p as usize;
                let (Some(&here), Some(&there)) = (self.zone_of.get(p), from.zone_of.get(p)) else { return };
                if here != there {
                    self.members.moved(p as PieceId, here, there);
                    self.zone_count[here as usize] -= 1;
                    self.zone_count[there as usize] += 1;
                    self.zone_of[p] = there;
                }
                self.face_up[p] = from.face_up[p];
            }
            Touched::Prop(slot) => self.props[slot as usize] = from.props[slot as usize],
            Touched::Counter(c) => self.counters[c as usize] = from.counters[c as usize],
        }
    }

    /// Notes a table entry about to change, once a scratch state copies this one or this is
    /// one (see [`Origin`]). Called before the change's event, whose count of changes it is
    /// part of.
    #[inline]
    fn touch(&mut self, t: Touched) {
        if self.origin.touched_from.get() == u64::MAX {
            return;
        }
        if self.origin.touched.len() < MOST_TOUCHED {
            self.origin.touched.push(t);
        } else {
            // Too many: nothing is listed any more, until a scratch state copies this one again
            // (a game whose hooks seldom run on a copy stops paying for the list).
            self.origin.touched.clear();
            self.origin.touched_from.set(u64::MAX);
        }
    }
}

impl Default for State {
    fn default() -> Self {
        State {
            zone_of: Vec::new(),
            members: Members::default(),
            order: Vec::new(),
            face_up: Vec::new(),
            props: Vec::new(),
            zone_count: Vec::new(),
            counters: Vec::new(),
            players: 0,
            phase: 0,
            stage: Stage::Entering,
            prompts: VecDeque::new(),
            next_group: 0,
            answered: false,
            goto: None,
            clock: 0,
            next_timer: 0,
            outcome: None,
            rng: Rng::seeded(0),
            top_key: 0,
            bottom_key: 0,
            stated: StatedChance::default(),
            events: Vec::new(),
            recording: false,
            changes: 0,
            origin: Origin::fresh(),
        }
    }
}

impl State {
    /// Whether pending prompts wait only for the seats they ask: in a real-time game (one with a
    /// `pace`), during a phase of standing actions, a prompt holds its seat alone and the others
    /// play on, since the clock does not stop for one player's decision. Elsewhere the first
    /// prompt holds every seat until it is answered.
    pub(crate) fn prompts_per_seat(&self, defs: &Defs) -> bool {
        defs.pace.is_some() && defs.phases.get(self.phase as usize).is_some_and(|p| !p.actions.is_empty())
    }

    /// The prompt `seat` must answer now (with its place in the queue), if any.
    pub(crate) fn prompt_for(&self, defs: &Defs, seat: SeatId) -> Option<(usize, &Prompt)> {
        if self.prompts_per_seat(defs) {
            self.prompts.iter().enumerate().find(|(_, p)| p.seat == seat)
        } else {
            self.prompts.front().filter(|p| p.seat == seat).map(|p| (0, p))
        }
    }

    /// Whether the game waits for `seat` to decide: its prompt, or (no other seat's prompt
    /// holding it back) the phase's standing actions, the seat being active.
    pub(crate) fn waits_for(&self, defs: &Defs, seat: SeatId) -> bool {
        if self.outcome.is_some() || seat >= self.players {
            return false;
        }
        if self.prompt_for(defs, seat).is_some() {
            return true;
        }
        let phase = &defs.phases[self.phase as usize];
        !self.held_by_a_prompt(defs, seat) && !phase.actions.is_empty() && phase.active.contains(&seat)
    }

    /// Whether `seat` may act out of turn: the phase lists `out_of_turn` actions, the game is
    /// not waiting for this seat, the seat has no standing actions of the phase (a seat on turn
    /// stays on turn while another's prompt holds it back), and a player sits there.
    pub(crate) fn may_act_out_of_turn(&self, defs: &Defs, seat: SeatId) -> bool {
        let phase = &defs.phases[self.phase as usize];
        !phase.out_of_turn.is_empty()
            && self.outcome.is_none()
            && seat < self.players
            && !defs.seats[seat as usize].by_rules
            && (phase.actions.is_empty() || !phase.active.contains(&seat))
            && !self.waits_for(defs, seat)
    }

    /// Whether another seat's prompt holds `seat` back (everyone waits for it).
    pub(crate) fn held_by_a_prompt(&self, defs: &Defs, seat: SeatId) -> bool {
        !self.prompts_per_seat(defs) && self.prompts.front().is_some_and(|p| p.seat != seat)
    }
}

impl State {
    /// The state before anything happens: pieces in their starting zones, counters at their
    /// initial values, in the start phase (not yet entered).
    pub fn initial(defs: &Defs, players: u8, seed: u64) -> State {
        let n = defs.pieces.len();
        let mut s = State {
            zone_of: defs.pieces.iter().map(|p| p.zone).collect(),
            order: (0..n as i64).map(|i| -i).collect(),
            face_up: defs.pieces.iter().map(|p| p.face_up).collect(),
            props: defs.pieces.iter().flat_map(|p| p.props.iter().copied()).collect(),
            zone_count: vec![0; defs.zones.len()],
            counters: defs.counters.iter().map(|c| c.initial).collect(),
            players,
            phase: defs.start,
            rng: Rng::seeded(seed),
            top_key: 1,
            bottom_key: -(n as i64),
            ..State::default()
        };
        for &z in &s.zone_of {
            s.zone_count[z as usize] += 1;
        }
        s.members = Members::new(&s.zone_of, defs.zones.len());
        s
    }

    /// Notes a change of the game, and records it if the game is recorded. Inlined: most games
    /// are not recorded (simulation), and a move or a turn then only counts the change.
    #[inline]
    pub(crate) fn emit(&mut self, event: Event) {
        // Every change of the game goes through here, recorded or not: the count tells whether
        // anything happened between two moments (taking an action is not itself a change).
        if !matches!(event, Event::Acted { .. }) {
            self.changes += 1;
        }
        if self.recording {
            self.record(event);
        }
    }

    /// Keeps an event of a recorded game.
    #[inline(never)]
    fn record(&mut self, event: Event) {
        self.events.push(event);
    }

    /// How many changes the game has seen (moves, turns, properties, counters, chance, timers,
    /// phases...). An action after which this is unchanged changed nothing.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// The zone a piece is in.
    pub fn zone_of(&self, piece: PieceId) -> ZoneId {
        self.zone_of[piece as usize]
    }

    /// Whether a piece lies face up.
    pub fn is_face_up(&self, piece: PieceId) -> bool {
        self.face_up[piece as usize]
    }

    /// How many pieces a zone holds.
    pub fn count(&self, zone: ZoneId) -> u32 {
        self.zone_count[zone as usize]
    }

    /// The pieces of a zone: declaration order for unordered zones, top first for ordered ones.
    pub fn pieces_in(&self, defs: &Defs, zone: ZoneId) -> Vec<PieceId> {
        let mut out = Vec::with_capacity(self.count(zone) as usize);
        self.pieces_in_into(defs, zone, &mut out);
        out
    }

    /// [`State::pieces_in`] written into `out` (cleared first), so that a caller may reuse one
    /// list.
    pub fn pieces_in_into(&self, defs: &Defs, zone: ZoneId, out: &mut Vec<PieceId>) {
        out.clear();
        out.extend(self.pieces_in_any_order(zone));
        if defs.zones[zone as usize].ordered {
            out.sort_by_key(|&p| std::cmp::Reverse(self.order[p as usize]));
        }
    }

    /// The pieces of a zone in no particular order (in fact by id), without building a list:
    /// for counting.
    pub fn pieces_in_any_order(&self, zone: ZoneId) -> impl Iterator<Item = PieceId> + '_ {
        self.members.of(zone)
    }

    /// Queues one copy of `prompt` per piece lying in any of `zones`, in declaration order of
    /// the pieces, with the piece as its fixed argument `param` (a phase's `ask` with `each`).
    /// The zones' members are read as sets, not by testing every piece's zone.
    pub(crate) fn queue_prompts_for_pieces_in(&mut self, zones: &[ZoneId], prompt: Prompt, param: usize) {
        for piece in self.members.of_any(zones) {
            let mut each = prompt;
            if let Some(slot) = each.fixed.get_mut(param) {
                *slot = Some(Value::Piece(piece));
            }
            self.prompts.push_back(each);
        }
    }

    /// The top piece of a zone (the first listed), if any.
    pub fn top(&self, defs: &Defs, zone: ZoneId) -> Option<PieceId> {
        if defs.zones[zone as usize].ordered {
            self.pieces_in_any_order(zone).max_by_key(|&p| self.order[p as usize])
        } else {
            self.pieces_in_any_order(zone).next()
        }
    }

    /// How many pieces of kinds the zone accepts it holds (what its capacity limits).
    pub fn load(&self, defs: &Defs, zone: ZoneId) -> u32 {
        let z = &defs.zones[zone as usize];
        if z.accepts.is_none() {
            return self.count(zone);
        }
        self.pieces_in_any_order(zone).filter(|&p| z.accepts(defs.pieces[p as usize].kind)).count() as u32
    }

    /// Why `piece` may not move to `zone` by a player's action, or `None` if it may.
    pub fn move_refusal(&self, defs: &Defs, piece: PieceId, zone: ZoneId) -> Option<String> {
        let z = &defs.zones[zone as usize];
        let from = self.zone_of(piece);
        Some(match self.move_refused(defs, piece, zone)? {
            MoveRefused::Kind => {
                format!("{} does not take a {}", z.name, defs.kinds[defs.pieces[piece as usize].kind as usize].name)
            }
            MoveRefused::Entry => format!("{} cannot be entered from {}", z.name, defs.zones[from as usize].name),
            MoveRefused::Full(cap) => format!("{} already holds {cap}", z.name),
        })
    }

    /// Which check refuses moving `piece` to `zone`, if one does: `move_refusal` without the
    /// message, for listing legal actions (where most refusals are never reported).
    pub(crate) fn move_refused(&self, defs: &Defs, piece: PieceId, zone: ZoneId) -> Option<MoveRefused> {
        self.move_refused_as(defs, defs.pieces[piece as usize].kind, self.zone_of(piece), zone)
    }

    /// `move_refused` for a piece of `kind` lying in zone `from`: listing one piece's
    /// destinations reads these once.
    #[inline]
    pub(crate) fn move_refused_as(&self, defs: &Defs, kind: KindId, from: ZoneId, zone: ZoneId) -> Option<MoveRefused> {
        let z = &defs.zones[zone as usize];
        if from == zone {
            return None;
        }
        if !z.accepts(kind) {
            return Some(MoveRefused::Kind);
        }
        if let Some(sources) = &z.enter_from
            && !sources.contains(from)
        {
            return Some(MoveRefused::Entry);
        }
        // The load counts only the pieces of kinds the zone accepts, so a zone holding fewer
        // pieces than its capacity has room without counting them.
        if let Some(cap) = z.capacity
            && self.count(zone) >= cap
            && self.load(defs, zone) >= cap
        {
            return Some(MoveRefused::Full(cap));
        }
        None
    }

    /// Moves a piece to a zone (on top, for ordered zones), turning it as the zone says.
    pub fn move_piece(&mut self, defs: &Defs, piece: PieceId, zone: ZoneId) {
        self.move_piece_to(defs, piece, zone, true);
    }

    /// Moves a piece to the top or the bottom of a zone.
    pub fn move_piece_to(&mut self, defs: &Defs, piece: PieceId, zone: ZoneId, on_top: bool) {
        let from = self.zone_of(piece);
        let p = piece as usize;
        self.zone_count[from as usize] -= 1;
        self.zone_count[zone as usize] += 1;
        self.zone_of[p] = zone;
        self.members.moved(piece, from, zone);
        if on_top {
            self.order[p] = self.top_key;
            self.top_key += 1;
        } else {
            self.bottom_key -= 1;
            self.order[p] = self.bottom_key;
        }
        if from != zone {
            self.touch(Touched::Piece(piece));
            self.emit(Event::Moved { piece, from, to: zone });
        }
        match defs.zones[zone as usize].face {
            Facing::Keep => {}
            Facing::Up => self.turn(piece, true),
            Facing::Down => self.turn(piece, false),
        }
    }

    /// Turns a piece face up or down.
    #[inline]
    pub fn turn(&mut self, piece: PieceId, up: bool) {
        if self.face_up[piece as usize] != up {
            self.face_up[piece as usize] = up;
            self.touch(Touched::Piece(piece));
            self.emit(Event::Turned { piece, up });
        }
    }

    /// A piece's property by slot (see `Defs::prop_slot`).
    pub fn prop(&self, slot: usize) -> i64 {
        self.props[slot]
    }

    /// Sets a property, checking its domain.
    pub fn set_prop(&mut self, defs: &Defs, piece: PieceId, name: &str, value: i64) -> Result<(), String> {
        let slot = defs.check_prop(piece, name, value)?;
        self.set_prop_at(piece, slot, value);
        Ok(())
    }

    /// Sets the property at `slot` of the flat table (one of `piece`'s, `value` already checked
    /// against its domain).
    pub(crate) fn set_prop_at(&mut self, piece: PieceId, slot: usize, value: i64) {
        if self.props[slot] != value {
            self.props[slot] = value;
            self.touch(Touched::Prop(slot as u32));
            self.emit(Event::PropSet { piece, slot: slot as u32, value });
        }
    }

    /// A counter's value.
    pub fn counter(&self, counter: CounterId) -> i64 {
        self.counters[counter as usize]
    }

    /// Sets a counter, stopping at the ends of its range as a marker on a printed track does.
    /// Returns the value set.
    pub fn set_counter(&mut self, defs: &Defs, counter: CounterId, value: i64) -> i64 {
        let def = &defs.counters[counter as usize];
        let value = value.clamp(def.min, def.max);
        if self.counters[counter as usize] != value {
            self.counters[counter as usize] = value;
            self.touch(Touched::Counter(counter));
            self.emit(Event::CounterSet { counter, value });
        }
        value
    }

    /// The next stated outcome, if the log states one: it must be of the kind the rules need
    /// now (checked by `fits`), or the replay has diverged from the log.
    /// `what` words the draw for an error; it is called only to report one, so that drawing
    /// builds no message.
    fn take_stated(
        &mut self,
        what: impl Fn() -> String,
        fits: impl Fn(&Stated) -> bool,
    ) -> Result<Option<Stated>, String> {
        match self.stated.queue.front() {
            Some(_) if self.stated.partial && !fits(&self.stated.queue[0].1) => Ok(None),
            Some((line, s)) if !fits(s) => {
                Err(format!("the log states {} at line {line}, but the rules {} here", describe_stated(s), what()))
            }
            Some(_) => Ok(self.stated.queue.pop_front().map(|(_, s)| s)),
            None if self.stated.required => {
                Err(format!("the rules {} here, but the log states no outcome and has no seed to draw one", what()))
            }
            None => Ok(None),
        }
    }

    /// Shuffles an ordered zone with the game's generator (or as the replayed log says).
    pub fn shuffle(&mut self, defs: &Defs, zone: ZoneId) -> Result<(), String> {
        let mut pieces = self.pieces_in(defs, zone);
        let mut sorted = pieces.clone();
        sorted.sort_unstable();
        let what = || format!("shuffle {}", defs.zones[zone as usize].name);
        let stated = self.take_stated(what, |s| match s {
            Stated::Shuffle { zone: z, order } if *z == zone => {
                let mut o = order.clone();
                o.sort_unstable();
                o == sorted
            }
            Stated::Preferred { zone: z, .. } => *z == zone,
            _ => false,
        })?;
        match stated {
            // The log lists the order top first.
            Some(Stated::Shuffle { order, .. }) => pieces = order.into_iter().rev().collect(),
            Some(Stated::Preferred { pieces: wanted, .. }) => {
                // The pieces not named, in a drawn order; the top as wanted, a hole filled from
                // those; bottom first here, so the rest and then the top from its last.
                let mut rest: Vec<PieceId> = pieces.iter().copied().filter(|p| !wanted.contains(&Some(*p))).collect();
                self.rng.shuffle(&mut rest);
                let mut top = Vec::new();
                for w in wanted {
                    match w {
                        Some(p) if pieces.contains(&p) => top.push(p),
                        _ => top.extend(rest.pop()),
                    }
                }
                pieces = rest;
                pieces.extend(top.into_iter().rev());
            }
            _ => self.rng.shuffle(&mut pieces),
        }
        for &p in &pieces {
            self.order[p as usize] = self.top_key;
            self.top_key += 1;
        }
        // Top first, as `pieces_in` lists them.
        pieces.reverse();
        self.emit(Event::Shuffled { zone, order: pieces });
        Ok(())
    }

    /// Exchanges two pieces' places (zone, place in its order, face) without recording it: the
    /// search agent's sampler (`search.rs`) puts the piece its seat saw where its sample had
    /// another one the seat could not tell from it.
    pub(crate) fn swap_unrecorded(&mut self, a: PieceId, b: PieceId) {
        let (za, zb) = (self.zone_of(a), self.zone_of(b));
        if za != zb {
            self.members.moved(a, za, zb);
            self.members.moved(b, zb, za);
            self.zone_of.swap(a as usize, b as usize);
        }
        self.order.swap(a as usize, b as usize);
        self.face_up.swap(a as usize, b as usize);
        self.touch(Touched::Piece(a));
        self.touch(Touched::Piece(b));
        self.changes += 1;
    }

    /// Puts an ordered zone's pieces, but the first `keep` from the top, in a new order drawn
    /// from `rng`, recording nothing: for the information-set check only, which makes a game
    /// that differs from another in what a seat cannot see. Not a move of the rules.
    pub(crate) fn reorder_unrecorded(&mut self, defs: &Defs, zone: ZoneId, keep: usize, rng: &mut crate::rng::Rng) {
        let pieces = self.pieces_in(defs, zone);
        if pieces.len() <= keep + 1 {
            return;
        }
        let keys: Vec<i64> = pieces.iter().map(|&p| self.order[p as usize]).collect();
        let mut moved = pieces[keep..].to_vec();
        rng.shuffle(&mut moved);
        for (p, key) in pieces[..keep].iter().chain(&moved).zip(keys) {
            self.order[*p as usize] = key;
        }
        // Only the order changed, which scratch copies always take; a new origin all the same,
        // since this is another game now.
        self.origin.id = Origin::fresh().id;
    }

    /// A uniform integer in `0..n` from the game's generator (or the replayed log), recorded as
    /// a chance event.
    pub fn random(&mut self, n: u64) -> Result<i64, String> {
        let n = n.max(1);
        let stated = self.take_stated(
            || format!("draw a random number below {n}"),
            |s| matches!(s, Stated::Random { n: m, value } if *m as u64 == n && (0..*m).contains(value)),
        )?;
        let value = match stated {
            Some(Stated::Random { value, .. }) => value,
            _ => self.rng.below(n) as i64,
        };
        self.emit(Event::Random { n: n as i64, value });
        Ok(value)
    }

    /// One piece of a zone taken at random, each equally likely (or the piece the replayed log
    /// states), recorded as a chance event naming the zone and the piece; `None` if the zone is
    /// empty. What is done with it (a move) is up to the caller.
    pub fn pick_random(&mut self, defs: &Defs, zone: ZoneId) -> Result<Option<PieceId>, String> {
        let pieces = self.pieces_in(defs, zone);
        if pieces.is_empty() {
            return Ok(None);
        }
        let what = || format!("pick a piece of {} at random", defs.zones[zone as usize].name);
        let stated = self.take_stated(what, |s| match s {
            Stated::Pick { zone: z, piece } => *z == zone && pieces.contains(piece),
            Stated::Preferred { zone: z, .. } => *z == zone,
            _ => false,
        })?;
        let piece = match stated {
            Some(Stated::Pick { piece, .. }) => piece,
            Some(Stated::Preferred { pieces: wanted, .. }) => match wanted.first() {
                Some(Some(p)) if pieces.contains(p) => *p,
                // Any other piece: one the list does not name, if there is one.
                _ => {
                    let others: Vec<PieceId> = pieces.iter().copied().filter(|p| !wanted.contains(&Some(*p))).collect();
                    let among = if others.is_empty() { &pieces } else { &others };
                    among[self.rng.below(among.len() as u64) as usize]
                }
            },
            _ => pieces[self.rng.below(pieces.len() as u64) as usize],
        };
        self.emit(Event::Picked { zone, piece });
        Ok(Some(piece))
    }

    /// Rolls a die piece: a face of its die, equally likely (or as the replayed log says).
    pub fn roll(&mut self, defs: &Defs, piece: PieceId) -> Result<i64, String> {
        let kind = &defs.kinds[defs.pieces[piece as usize].kind as usize];
        let Some(die) = kind.die else {
            return Err(format!("{} is not a die", defs.pieces[piece as usize].name));
        };
        let faces = &defs.dice[die].faces;
        let what = || format!("roll {}", defs.pieces[piece as usize].name);
        let stated = self.take_stated(
            what,
            |s| matches!(s, Stated::Roll { piece: p, face } if *p == piece && faces.contains(face)),
        )?;
        let face = match stated {
            Some(Stated::Roll { face, .. }) => face,
            _ => faces[self.rng.below(faces.len() as u64) as usize],
        };
        let slot = defs.prop_slot(piece, "face").unwrap_or(0);
        self.props[slot] = face;
        self.touch(Touched::Prop(slot as u32));
        self.emit(Event::Rolled { piece, face });
        Ok(face)
    }

    /// Checks the invariants every state must keep, or says which one is broken.
    pub fn check_invariants(&self, defs: &Defs) -> Result<(), String> {
        let mut counts = vec![0u32; defs.zones.len()];
        for (p, &z) in self.zone_of.iter().enumerate() {
            let Some(c) = counts.get_mut(z as usize) else {
                return Err(format!("{} is in zone #{z}, which does not exist", defs.pieces[p].name));
            };
            *c += 1;
        }
        if counts != self.zone_count {
            return Err("zone counts disagree with piece locations".into());
        }
        if self.members != Members::new(&self.zone_of, defs.zones.len()) {
            return Err("zone members disagree with piece locations".into());
        }
        for (c, def) in defs.counters.iter().enumerate() {
            let v = self.counters[c];
            if !(def.min..=def.max).contains(&v) {
                return Err(format!("counter {} is {v}, outside {}..={}", def.name, def.min, def.max));
            }
        }
        for (p, def) in defs.pieces.iter().enumerate() {
            for (i, prop) in defs.kinds[def.kind as usize].props.iter().enumerate() {
                let v = self.props[def.prop_base + i];
                let ok = match &prop.kind {
                    PropKind::Word(words) => v >= 0 && words.contains(&(v as SymId)),
                    PropKind::Int(lo, hi) => (*lo..=*hi).contains(&v),
                    PropKind::Piece(_) => v >= -1 && v < defs.pieces.len() as i64,
                };
                if !ok {
                    return Err(format!("{}.{} holds {v}, outside its domain", defs.pieces[p].name, prop.name));
                }
            }
        }
        for (z, def) in defs.zones.iter().enumerate() {
            if let Some(cap) = def.capacity
                && self.load(defs, z as ZoneId) > cap
            {
                return Err(format!("{} holds more than its capacity {cap}", def.name));
            }
        }
        Ok(())
    }
}

fn describe_stated(s: &Stated) -> &'static str {
    match s {
        Stated::Roll { .. } => "a roll",
        Stated::Shuffle { .. } => "a shuffle",
        Stated::Random { .. } => "a random number",
        Stated::Pick { .. } => "a piece picked at random",
        Stated::Preferred { .. } => "a shuffle or a pick",
    }
}

/// Which pieces each zone holds: for each zone, a set of bits by piece id.
#[derive(Debug, Default, PartialEq, Eq)]
struct Members {
    /// Words per zone.
    stride: usize,
    bits: Vec<u64>,
}

impl Members {
    fn new(zone_of: &[ZoneId], zones: usize) -> Members {
        let stride = zone_of.len().div_ceil(64);
        let mut members = Members { stride, bits: vec![0; stride * zones] };
        for (p, &z) in zone_of.iter().enumerate() {
            if let Some(word) = members.bits.get_mut(z as usize * stride + p / 64) {
                *word |= 1 << (p % 64);
            }
        }
        members
    }

    fn moved(&mut self, piece: PieceId, from: ZoneId, to: ZoneId) {
        let (p, stride) = (piece as usize, self.stride);
        if let Some(word) = self.bits.get_mut(from as usize * stride + p / 64) {
            *word &= !(1 << (p % 64));
        }
        if let Some(word) = self.bits.get_mut(to as usize * stride + p / 64) {
            *word |= 1 << (p % 64);
        }
    }

    /// Word `w` of `zone`'s set (pieces `64 * w` to `64 * w + 63`), empty for a zone out of range.
    fn word(&self, zone: ZoneId, w: usize) -> u64 {
        self.bits.get(zone as usize * self.stride + w).copied().unwrap_or(0)
    }

    /// The pieces of any of `zones`, by id: the union of their sets, word by word.
    fn of_any<'a>(&'a self, zones: &'a [ZoneId]) -> impl Iterator<Item = PieceId> + 'a {
        (0..self.stride).flat_map(move |w| {
            let word = zones.iter().fold(0, |any, &z| any | self.word(z, w));
            bits(word).map(move |bit| (w * 64 + bit) as PieceId)
        })
    }

    /// The pieces of `zone`, by id.
    fn of(&self, zone: ZoneId) -> MemberIter<'_> {
        let start = (zone as usize * self.stride).min(self.bits.len());
        let words = &self.bits[start..(start + self.stride).min(self.bits.len())];
        MemberIter { words, w: 0, rest: words.first().copied().unwrap_or(0) }
    }
}

/// The positions of the bits set in `word`, lowest first.
fn bits(mut word: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || (word != 0).then(|| take_lowest(&mut word)))
}

/// Clears the lowest bit set in `word` (not 0) and gives its position.
#[inline]
fn take_lowest(word: &mut u64) -> usize {
    let bit = word.trailing_zeros() as usize;
    *word &= *word - 1;
    bit
}

/// The pieces of a zone's set, by id: a plain loop over its words, cheaper than a chain of
/// iterators (zones are read at every count, query and move check).
struct MemberIter<'a> {
    words: &'a [u64],
    /// The word being read.
    w: usize,
    /// Its bits not yet given.
    rest: u64,
}

impl Iterator for MemberIter<'_> {
    type Item = PieceId;

    #[inline]
    fn next(&mut self) -> Option<PieceId> {
        while self.rest == 0 {
            self.w += 1;
            self.rest = *self.words.get(self.w)?;
        }
        Some((self.w * 64 + take_lowest(&mut self.rest)) as PieceId)
    }
}

impl Clone for Members {
    fn clone(&self) -> Self {
        Members { stride: self.stride, bits: self.bits.clone() }
    }

    /// Reuses this set's buffer (a scratch state is copied over and over).
    fn clone_from(&mut self, other: &Members) {
        self.stride = other.stride;
        self.bits.clone_from(&other.bits);
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::{PieceId, ZoneId};

    #[test]
    fn a_scratch_copy_is_the_state_without_its_events() {
        let rules = crate::load("tests/fixtures/features", &crate::LoadOptions::default()).expect("fixture");
        let mut game = crate::Game::recorded(Rc::new(rules), 2, 7).expect("start");
        game.advance_clock(1500).expect("a timer fires");
        let original = game.state();
        assert!(!original.events.is_empty() && original.recording);

        // Into a state that already holds something else, as the scripts' scratch cell does.
        let mut scratch = original.clone();
        scratch.props.iter_mut().for_each(|p| *p += 1);
        scratch.counters.push(99);
        scratch.clock = -1;
        scratch.copy_for_scratch(original);

        let mut expected = original.clone();
        expected.events.clear();
        expected.recording = false;
        assert_eq!(format!("{scratch:?}"), format!("{expected:?}"));
    }

    /// A scratch state copied again from the same state takes again only the entries either
    /// side changed since (see `Origin`): whatever changed between, in the scratch, in the
    /// state, or too much to list, or from another state (a clone), it is the state again,
    /// every table.
    #[test]
    fn a_scratch_copy_taken_again_is_the_state_whatever_changed_between() {
        let rules = Rc::new(crate::load("tests/fixtures/features", &crate::LoadOptions::default()).expect("fixture"));
        let defs: &crate::rules::defs::Defs = &rules;
        let mut game = crate::Game::recorded(rules.clone(), 2, 7).expect("start");
        let same = |scratch: &super::State, state: &super::State| {
            let mut expected = state.clone();
            expected.events.clear();
            expected.recording = false;
            assert_eq!(format!("{scratch:?}"), format!("{expected:?}"));
        };
        let piece = (0..defs.pieces.len() as PieceId)
            .find(|&p| !defs.pieces[p as usize].props.is_empty())
            .expect("a piece with properties");
        let slot = defs.pieces[piece as usize].prop_base;
        // Another zone, where the piece keeps its face (a move alone, no turn with it).
        let other_zone = |s: &super::State| {
            let keeps = |z: ZoneId| match defs.zones[z as usize].face {
                crate::rules::defs::Facing::Keep => true,
                crate::rules::defs::Facing::Up => s.face_up[piece as usize],
                crate::rules::defs::Facing::Down => !s.face_up[piece as usize],
            };
            (0..defs.zones.len() as ZoneId).find(|&z| z != s.zone_of(piece) && keeps(z)).expect("another zone")
        };
        let other_value = |s: &super::State, c: usize| {
            let def = &defs.counters[c];
            if s.counter(c as u16) == def.min { def.max } else { def.min }
        };
        let mut scratch = super::State::default();
        scratch.copy_for_scratch(game.state());
        same(&scratch, game.state());
        // The scratch's hooks set a property twice, moved and turned a piece, set a counter.
        scratch.set_prop_at(piece, slot, scratch.prop(slot) + 1);
        scratch.set_prop_at(piece, slot, scratch.prop(slot) + 1);
        let zone = other_zone(&scratch);
        scratch.move_piece(defs, piece, zone);
        let up = !scratch.face_up[piece as usize];
        scratch.turn(piece, up);
        scratch.set_counter(defs, 0, other_value(&scratch, 0));
        scratch.copy_for_scratch(game.state());
        same(&scratch, game.state());
        // Only the order changed in the scratch (to the bottom of its own zone).
        let here = scratch.zone_of(piece);
        scratch.move_piece_to(defs, piece, here, false);
        scratch.copy_for_scratch(game.state());
        same(&scratch, game.state());
        // Only a piece turned in the scratch.
        let up = !scratch.face_up[piece as usize];
        scratch.turn(piece, up);
        scratch.copy_for_scratch(game.state());
        same(&scratch, game.state());
        // The game changed (a timer, and a piece moved and a property set on the state itself).
        game.advance_clock(1500).expect("a timer fires");
        scratch.copy_for_scratch(game.state());
        same(&scratch, game.state());
        let mut state = game.state().clone();
        scratch.copy_for_scratch(&state);
        let zone = other_zone(&state);
        state.move_piece(defs, piece, zone);
        state.set_prop_at(piece, slot, state.prop(slot) + 5);
        state.set_counter(defs, 0, other_value(&state, 0));
        scratch.set_prop_at(piece, slot, scratch.prop(slot) - 9);
        scratch.copy_for_scratch(&state);
        same(&scratch, &state);
        // More changes than either side lists, on the scratch, then on the state.
        for n in 0..=super::MOST_TOUCHED as i64 {
            scratch.set_prop_at(piece, slot, n + 1000);
        }
        scratch.copy_for_scratch(&state);
        same(&scratch, &state);
        for n in 0..=super::MOST_TOUCHED as i64 {
            state.set_prop_at(piece, slot, n + 2000);
        }
        scratch.copy_for_scratch(&state);
        same(&scratch, &state);
        // Changed again after the copy that followed: listed again from that copy.
        state.set_counter(defs, 0, other_value(&state, 0));
        scratch.copy_for_scratch(&state);
        same(&scratch, &state);
        // Another state at the same count of changes, with other tables (a clone).
        let mut other = state.clone();
        other.props[slot] += 1;
        scratch.copy_for_scratch(&other);
        same(&scratch, &other);
        // A state edited outside the rules (the order only).
        let mut rng = crate::rng::Rng::seeded(3);
        for z in 0..defs.zones.len() as ZoneId {
            other.reorder_unrecorded(defs, z, 0, &mut rng);
        }
        scratch.copy_for_scratch(&other);
        same(&scratch, &other);
    }

    #[test]
    fn a_zone_lists_the_pieces_it_holds_by_id_across_words_of_bits() {
        // 150 pieces in three zones (three words of bits per zone), then some moved.
        let mut zone_of: Vec<ZoneId> = (0..150).map(|p| (p % 3) as ZoneId).collect();
        let mut members = super::Members::new(&zone_of, 3);
        for (p, to) in [(0, 2), (64, 1), (149, 0), (127, 2), (128, 2)] {
            members.moved(p, zone_of[p as usize], to);
            zone_of[p as usize] = to;
        }
        for z in 0..3 {
            let expected: Vec<PieceId> = (0..150).filter(|&p| zone_of[p as usize] == z).collect();
            assert_eq!(members.of(z).collect::<Vec<_>>(), expected, "zone {z}");
        }
        assert_eq!(members, super::Members::new(&zone_of, 3));
        // A zone beyond the set holds nothing, rather than failing.
        assert_eq!(members.of(7).count(), 0);
        // Two zones together, in id order, skipping a word that neither has bits in.
        let mut zone_of: Vec<ZoneId> = vec![0; 200];
        for (p, z) in [(3, 1), (70, 2), (150, 1), (199, 2)] {
            zone_of[p] = z;
        }
        let members = super::Members::new(&zone_of, 3);
        assert_eq!(members.of(1).collect::<Vec<_>>(), [3, 150]);
        assert_eq!(members.of_any(&[2, 1]).collect::<Vec<_>>(), [3, 70, 150, 199]);
        assert_eq!(members.of_any(&[1, 7]).collect::<Vec<_>>(), [3, 150]);
        assert_eq!(members.of_any(&[]).count(), 0);
    }
}
