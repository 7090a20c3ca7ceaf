//! The resolved definitions of a ruleset (`Defs`): every seat, kind, piece, zone, counter, phase,
//! action, timer and hook with names resolved to integer ids. They sit below the state, which
//! refers to them by index, and never change during a game.

use std::path::PathBuf;

use indexmap::IndexMap;
use rhai::{Dynamic, ImmutableString};

pub use super::raw::{CounterSight, Facing, ParamValue, Sight};
use super::{params, raw};
use crate::diag::{FileId, Sources};

/// Name indices are read by scripts at every call, so they use a fast (non-cryptographic) hash.
pub(crate) type NameMap<V> = rustc_hash::FxHashMap<String, V>;

/// How `tabula view` draws the game (`[layout]`), its names checked at load: nothing in play
/// depends on it.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Layout {
    /// How each zone is drawn, by zone name (a per-seat zone's base name covers all its seats'
    /// zones), in the order written.
    pub zones: IndexMap<String, raw::RawZoneLayout>,
    /// How the pieces of each kind are drawn, by kind.
    pub pieces: IndexMap<String, PieceLayout>,
    /// The sides of the pieces of zones drawn as grids, by zone name.
    pub grids: IndexMap<String, GridLayout>,
    /// The counters shown beside the board, in order (base names of per-seat counters), or
    /// `None`: all of them.
    pub counters: Option<Vec<String>>,
}

/// How the pieces of one kind are drawn (`[layout.pieces.<kind>]`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PieceLayout {
    /// The shape (`None`: a plain label).
    pub shape: Option<raw::PieceShape>,
    /// The property written on the piece (`None`: its name).
    pub label: Option<String>,
    /// A colour for every piece of the kind.
    pub colour: Option<String>,
    /// The property giving the piece's colour.
    pub colour_from: Option<String>,
    /// The colour of each value of `colour_from`.
    pub colours: IndexMap<String, String>,
    /// The piece-valued property putting the piece on another piece.
    pub on: Option<String>,
}

/// How the pieces of a zone drawn as a grid show their sides (`[layout.grids.<zone>]`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct GridLayout {
    /// The properties of the north, east, south and west sides, as printed.
    pub sides: Option<[String; 4]>,
    /// The property counting quarter turns clockwise.
    pub rotation: Option<String>,
    /// Whether `y` grows up the page.
    pub y_up: bool,
}

/// Index of a seat in `Defs::seats` (turn order).
pub type SeatId = u8;
/// Index of a zone in `Defs::zones`.
pub type ZoneId = u16;
/// Index of a piece in `Defs::pieces`.
pub type PieceId = u16;
/// Index of a component kind in `Defs::kinds`.
pub type KindId = u16;
/// Index of a counter in `Defs::counters`.
pub type CounterId = u16;
/// Index of a phase in `Defs::phases`.
pub type PhaseId = u16;
/// Index of an action in `Defs::actions`.
pub type ActionId = u16;
/// Index of a word in `Defs::symbols`.
pub type SymId = u32;
/// Index of a script hook in `Defs::hooks`.
pub type HookId = u16;

/// The most values an integer parameter of an action may range over: legal actions list them.
pub const MAX_INT_DOMAIN: i64 = 1_000;

/// The most copies of one piece a ruleset may declare with `count`.
pub const MAX_PIECE_COUNT: i64 = 10_000;

/// Every definition of a ruleset, with names resolved to indices.
#[derive(Debug, Default)]
pub struct Defs {
    /// The game's published name.
    pub name: String,
    /// The ruleset's short name (its folder name).
    pub id: String,
    /// Publisher and year, for `tabula list`.
    pub about: String,
    /// The ruleset folder.
    pub dir: PathBuf,
    /// Variants applied, in order.
    pub variants: Vec<String>,
    /// `--set` overrides applied, in order, as written.
    pub overrides: Vec<(String, String)>,
    /// A hash of every file read and every override: two loads with the same fingerprint play
    /// the same games.
    pub fingerprint: u64,
    /// The text of every file read, for error messages.
    pub sources: Sources,
    /// Allowed player counts, inclusive.
    pub players: (u8, u8),
    /// Counts within `players` that are not allowed (`[game] excluded_players`).
    pub excluded_players: Vec<u8>,
    /// The count played when none is asked for (`[game] usual_players`, else the smallest).
    pub usual_players: u8,
    /// Seats in turn order.
    pub seats: Vec<SeatDef>,
    /// Ways the game can end.
    pub outcomes: Vec<OutcomeDef>,
    /// Named parameters after overrides, as written.
    pub params: IndexMap<String, ParamValue>,
    /// The same parameters with their declared ranges and comments, for `tabula params`.
    pub param_info: Vec<params::ParamInfo>,
    /// The same parameters as script values, converted once.
    pub(crate) param_values: NameMap<Dynamic>,
    /// Interned words used by properties, dice faces and parameters.
    pub symbols: Vec<ImmutableString>,
    pub(crate) symbol_index: NameMap<SymId>,
    /// Component kinds.
    pub kinds: Vec<KindDef>,
    /// Every piece in the box.
    pub pieces: Vec<PieceDef>,
    /// Every zone (per-seat zones expanded to one per seat).
    pub zones: Vec<ZoneDef>,
    /// Every counter (per-seat counters expanded).
    pub counters: Vec<CounterDef>,
    /// Kinds of dice.
    pub dice: Vec<DieDef>,
    /// Links of the board graph.
    pub edges: Vec<EdgeDef>,
    /// For each zone, the indices in `edges` of the links that start or end there, in the order
    /// of `edges`: the board's natives walk a zone's links without scanning the whole board.
    pub(crate) edges_at: Vec<Vec<u32>>,
    /// Phases of the flow.
    pub phases: Vec<PhaseDef>,
    /// Actions seats can take.
    pub actions: Vec<ActionDef>,
    /// Timers, sorted by the time they fire.
    pub timers: Vec<TimerDef>,
    /// Script functions the definitions name.
    pub hooks: Vec<HookDef>,
    /// The first phase.
    pub start: PhaseId,
    /// Real-time games: game time (ms) an agent takes per action in simulation.
    pub pace: Option<i64>,
    /// Agents written in the scripts.
    pub agents: Vec<AgentDef>,
    /// The agent simulation uses by default (`random` or an agent's name).
    pub default_agent: String,
    /// The ruleset's estimate of a seat's chance to win from its view (`[game] evaluate`,
    /// `fn f(view) -> percent`), which the search agent scores playouts cut short with.
    pub evaluate: Option<HookId>,
    /// The counter that counts rounds (`[game] rounds`), for balance reports.
    pub rounds: Option<CounterId>,
    /// How `tabula view` draws the game (`[layout]`), its names checked.
    pub layout: Layout,
    /// Total number of property slots over all pieces.
    pub prop_slots: usize,
    pub(crate) zone_index: NameMap<ZoneId>,
    /// Per-seat zone families by name (`hand`), each with its zone of seat 0.
    pub(crate) zone_families: NameMap<ZoneId>,
    pub(crate) piece_index: NameMap<PieceId>,
    pub(crate) counter_index: NameMap<CounterId>,
    pub(crate) phase_index: NameMap<PhaseId>,
    pub(crate) action_index: NameMap<ActionId>,
    pub(crate) outcome_index: NameMap<u16>,
    pub(crate) seat_index: NameMap<SeatId>,
    /// Script names of zones, pieces, seats and phases, made once so scripts get them cheaply.
    pub(crate) zone_names: Vec<ImmutableString>,
    pub(crate) piece_names: Vec<ImmutableString>,
    pub(crate) seat_names: Vec<ImmutableString>,
    pub(crate) phase_names: Vec<ImmutableString>,
    pub(crate) kind_names: Vec<ImmutableString>,
}

/// A seat.
#[derive(Clone, Debug)]
pub struct SeatDef {
    /// Its role name.
    pub name: String,
    /// Its team, if any.
    pub team: Option<String>,
    /// Whether the rules move it (`played_by = "rules"`): no agent or person plays it, and its
    /// prompts are answered with their first legal option.
    pub by_rules: bool,
    /// For a seat played by the rules, the player counts it joins (empty: every count).
    pub joins: Vec<u8>,
}

/// A way the game ends.
#[derive(Clone, Debug)]
pub struct OutcomeDef {
    /// Its name (`draw`, `win`, `loss`, or a seat's role).
    pub name: String,
    /// Seats that win.
    pub winners: Vec<SeatId>,
    /// The rulebook's words.
    pub description: String,
    /// What kind of end it is, for balance reports.
    pub kind: OutcomeKind,
}

/// What kind of end an outcome is, for balance reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeKind {
    /// Someone wins.
    Win,
    /// Nobody wins, nobody loses.
    Draw,
    /// Everyone loses (a cooperative game lost).
    Loss,
    /// A safety bound that is no rule of the game stopped it.
    Bound,
}

/// The domain of a property.
#[derive(Clone, Debug, PartialEq)]
pub enum PropKind {
    /// One of these words.
    Word(Vec<SymId>),
    /// An integer in `[min, max]`.
    Int(i64, i64),
    /// A piece of this kind (or none: stored as -1).
    Piece(KindId),
}

/// A property of a component kind.
#[derive(Clone, Debug)]
pub struct PropDef {
    /// Its name.
    pub name: String,
    /// Its domain.
    pub kind: PropKind,
    /// Its value at the start, encoded as stored (word id, integer, piece id or -1).
    pub initial: i64,
    /// Whether people are shown it (`shown = false` marks the scripts' bookkeeping).
    pub shown: bool,
}

/// A component kind.
#[derive(Clone, Debug)]
pub struct KindDef {
    /// Its name.
    pub name: String,
    /// Its properties, in declaration order.
    pub props: Vec<PropDef>,
    /// The die kind, if pieces of this kind are dice (their `face` is a property).
    pub die: Option<usize>,
    /// Property name -> slot: scripts name a property at every read, so a lookup must not
    /// scan the list (a chamber tile can have thirty properties).
    pub(crate) prop_index: NameMap<usize>,
}

impl KindDef {
    /// A kind with its properties.
    pub(crate) fn new(name: String, props: Vec<PropDef>, die: Option<usize>) -> KindDef {
        let prop_index = props.iter().enumerate().map(|(i, p)| (p.name.clone(), i)).collect();
        KindDef { name, props, die, prop_index }
    }

    /// Replaces the properties (the loader learns them after the kind's name).
    pub(crate) fn set_props(&mut self, props: Vec<PropDef>) {
        self.prop_index = props.iter().enumerate().map(|(i, p)| (p.name.clone(), i)).collect();
        self.props = props;
    }

    /// The slot of a property within a piece of this kind.
    pub fn prop(&self, name: &str) -> Option<usize> {
        self.prop_index.get(name).copied()
    }
}

/// A piece.
#[derive(Clone, Debug)]
pub struct PieceDef {
    /// Its unique name.
    pub name: String,
    /// Its component kind.
    pub kind: KindId,
    /// The zone it starts in.
    pub zone: ZoneId,
    /// Starting property values, one per property of its kind.
    pub props: Vec<i64>,
    /// Where its properties start in the state's flat property table.
    pub prop_base: usize,
    /// Whether it starts face up.
    pub face_up: bool,
}

/// A set of ids (of kinds, of zones) kept as bits: the move checks test membership for every
/// candidate of every listing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdSet {
    words: Vec<u64>,
}

impl IdSet {
    /// Whether `id` is in the set.
    #[inline]
    pub fn contains(&self, id: u16) -> bool {
        self.words.get(usize::from(id) / 64).is_some_and(|word| word >> (id % 64) & 1 != 0)
    }
}

impl FromIterator<u16> for IdSet {
    fn from_iter<I: IntoIterator<Item = u16>>(ids: I) -> Self {
        let mut set = IdSet::default();
        for id in ids {
            let (word, bit) = (usize::from(id) / 64, id % 64);
            if set.words.len() <= word {
                set.words.resize(word + 1, 0);
            }
            set.words[word] |= 1 << bit;
        }
        set
    }
}

/// A zone.
#[derive(Clone, Debug)]
pub struct ZoneDef {
    /// Its unique name (`hand.red` for per-seat zones).
    pub name: String,
    /// Its owner.
    pub owner: Option<SeatId>,
    /// Whether it keeps the order pieces entered in.
    pub ordered: bool,
    /// The most pieces of accepted kinds it holds.
    pub capacity: Option<u32>,
    /// Kinds that may enter (None: any).
    pub accepts: Option<IdSet>,
    /// Zones pieces may come from (None: any).
    pub enter_from: Option<IdSet>,
    /// How entering pieces are turned.
    pub face: Facing,
    /// What the owner sees.
    pub owner_sees: Sight,
    /// What the other seats see.
    pub others_see: Sight,
    /// Whether people are shown it (`shown = false`: bookkeeping, left out of views).
    pub shown: bool,
}

impl ZoneDef {
    /// What `seat` sees of this zone.
    pub fn sight(&self, seat: SeatId) -> Sight {
        if self.owner == Some(seat) { self.owner_sees } else { self.others_see }
    }

    /// Whether pieces of `kind` count against the capacity and may enter.
    pub fn accepts(&self, kind: KindId) -> bool {
        self.accepts.as_ref().is_none_or(|k| k.contains(kind))
    }
}

/// A counter.
#[derive(Clone, Debug)]
pub struct CounterDef {
    /// Its unique name (`money.red` for per-seat counters).
    pub name: String,
    /// Lowest value.
    pub min: i64,
    /// Highest value.
    pub max: i64,
    /// Starting value.
    pub initial: i64,
    /// The seat it belongs to (per-seat counters).
    pub owner: Option<SeatId>,
    /// Who sees it.
    pub visible: CounterSight,
    /// Whether people are shown it (`shown = false`: bookkeeping, left out of views).
    pub shown: bool,
}

/// A kind of die.
#[derive(Clone, Debug)]
pub struct DieDef {
    /// Its name.
    pub name: String,
    /// Its faces, encoded as the `face` property stores them.
    pub faces: Vec<i64>,
}

/// A link of the board graph.
#[derive(Clone, Debug)]
pub struct EdgeDef {
    /// One end.
    pub from: ZoneId,
    /// The other end.
    pub to: ZoneId,
    /// Crossable only from `from` to `to`.
    pub one_way: bool,
    /// Its kind, if given.
    pub kind: Option<ImmutableString>,
}

/// Prompts opened by a phase on entry: one, or one for each piece of some zones.
#[derive(Clone, Debug)]
pub struct AskDef {
    /// Who answers.
    pub seat: SeatId,
    /// With which action.
    pub action: ActionId,
    /// One prompt per piece of these zones (`None`: a single prompt, every argument free).
    pub each: Option<EachPiece>,
    /// Checked before each prompt; false drops the rest.
    pub while_hook: Option<HookId>,
}

/// The pieces an `ask` opens a prompt for, and where the piece goes in the action.
#[derive(Clone, Debug)]
pub struct EachPiece {
    /// The action's parameter bound to each piece.
    pub param: usize,
    /// Zones whose pieces are asked about.
    pub zones: Vec<ZoneId>,
}

/// A phase.
#[derive(Clone, Debug)]
pub struct PhaseDef {
    /// Its name.
    pub name: String,
    /// Hook run on entry.
    pub on_enter: Option<HookId>,
    /// Prompts opened on entry.
    pub ask: Vec<AskDef>,
    /// Hook run after a prompt of the phase is answered, once none is pending.
    pub resume: Option<HookId>,
    /// Hook run on exit.
    pub on_exit: Option<HookId>,
    /// Standing actions.
    pub actions: Vec<ActionId>,
    /// Seats that may take standing actions.
    pub active: Vec<SeatId>,
    /// Hook listing a seat's legal standing actions in one call.
    pub options: Option<HookId>,
    /// Actions the seats the game is not waiting for may take out of turn (turn-based games).
    pub out_of_turn: Vec<ActionId>,
    /// The following phase.
    pub next: Option<PhaseId>,
    /// Where the phase is declared (its `[phases.<name>]` table), for errors found in play.
    pub file: FileId,
    /// Byte range of its declaration in that file.
    pub span: std::ops::Range<usize>,
}

/// A zone a parameter's domain names: one zone, or a per-seat zone named by its family
/// (`in = ["hand"]` for a per-seat `hand`), which is the acting seat's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneRef {
    /// This zone.
    Fixed(ZoneId),
    /// The acting seat's zone of a per-seat family, given by the family's zone of seat 0 (the
    /// family's zones follow one another in seat order).
    Own(ZoneId),
}

impl ZoneRef {
    /// The zone meant when `seat` acts.
    #[inline]
    pub fn of(self, seat: SeatId) -> ZoneId {
        match self {
            ZoneRef::Fixed(z) => z,
            ZoneRef::Own(first) => first + ZoneId::from(seat),
        }
    }
}

/// Whether `zone` is one of `zones` when `seat` acts.
pub fn names_zone(zones: &[ZoneRef], seat: SeatId, zone: ZoneId) -> bool {
    zones.iter().any(|z| z.of(seat) == zone)
}

/// The most pieces a set parameter chooses among (its universe: every piece of its kinds), so
/// that a set is one 64-bit mask.
pub const MAX_SET_UNIVERSE: usize = 64;

/// The most options a set parameter may list at one decision (subsets of the pieces it may
/// choose among, within its sizes): beyond, listing the options is refused with the reason.
pub const MAX_SET_OPTIONS: u64 = 4096;

/// The domain of a parameter whose value is a set of pieces (`set = true`).
#[derive(Clone, Debug, PartialEq)]
pub struct SetDomain {
    /// Pieces of these kinds...
    pub kinds: Vec<KindId>,
    /// ...lying in these zones (`None`: anywhere).
    pub within: Option<Vec<ZoneRef>>,
    /// Every piece of the kinds, in id order: bit `i` of a set is `universe[i]`.
    pub universe: Vec<PieceId>,
    /// The fewest pieces a set holds.
    pub min: u32,
    /// The most pieces a set holds.
    pub max: u32,
}

impl SetDomain {
    /// The pieces of a set, in universe order.
    pub fn members(&self, mask: u64) -> impl Iterator<Item = PieceId> + '_ {
        self.universe.iter().enumerate().filter(move |(i, _)| mask >> i & 1 == 1).map(|(_, &p)| p)
    }

    /// The set of these pieces, or `None` if one is outside the universe.
    pub fn mask_of(&self, pieces: impl IntoIterator<Item = PieceId>) -> Option<u64> {
        pieces.into_iter().try_fold(0u64, |mask, p| self.universe.iter().position(|&u| u == p).map(|i| mask | 1 << i))
    }
}

/// The domain of an action parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Domain {
    /// A piece of one of these kinds, optionally only in some zones.
    Piece(Vec<KindId>, Option<Vec<ZoneRef>>),
    /// Any set of pieces of some kinds (within sizes), optionally only in some zones.
    Set(SetDomain),
    /// One of these zones.
    Zone(Vec<ZoneRef>),
    /// One of these words.
    Word(Vec<SymId>),
    /// An integer in `[min, max]`.
    Int(i64, i64),
    /// A seat.
    Seat,
}

/// A parameter of an action.
#[derive(Clone, Debug)]
pub struct ParamDef {
    /// Its name.
    pub name: String,
    /// Its domain.
    pub domain: Domain,
    /// A piece parameter's candidates, whatever their zone: every piece of its kinds, in id
    /// order (filled at load; empty for other domains). Listing options walks this rather than
    /// asking every piece of the game its kind.
    pub pieces: Vec<PieceId>,
}

/// The built-in effect of an action.
#[derive(Clone, Debug, Default)]
pub struct Effect {
    /// Move the piece of parameter `.0` to the zone of parameter `.1`.
    pub moves: Option<(usize, usize)>,
    /// Set property slot `.1` of the piece of parameter `.0` to the value of parameter `.2`.
    pub sets: Option<(usize, String, usize)>,
}

/// An action.
#[derive(Clone, Debug)]
pub struct ActionDef {
    /// Its name.
    pub name: String,
    /// Its parameters.
    pub params: Vec<ParamDef>,
    /// Its built-in effect.
    pub effect: Effect,
    /// Extra legality filter.
    pub legal: Option<HookId>,
    /// Hook listing the action's options when it is asked (instead of its domains).
    pub options: Option<HookId>,
    /// Hook run when taken.
    pub apply: Option<HookId>,
    /// Whether its arguments are hidden from other seats.
    pub secret: bool,
    /// Game time a simulated agent needs for it (None: the game's pace).
    pub time: Option<i64>,
    /// What the action is, in the rulebook's words (shown to players who ask for help).
    pub description: String,
}

/// An agent written in the scripts.
#[derive(Clone, Debug)]
pub struct AgentDef {
    /// Its name.
    pub name: String,
    /// How it decides.
    pub decides: AgentHook,
}

/// The script function an agent decides with.
#[derive(Clone, Copy, Debug)]
pub enum AgentHook {
    /// `choose(view, options) -> index`: picks one of the listed legal actions.
    Choose(HookId),
    /// `act(view) -> action or ()`: works out its action, which the engine then checks.
    Act(HookId),
}

/// A timer.
#[derive(Clone, Debug)]
pub struct TimerDef {
    /// Its name.
    pub name: String,
    /// When it fires, in game milliseconds.
    pub at: i64,
    /// What runs.
    pub hook: HookId,
}

/// A script function named by the definitions.
#[derive(Clone, Debug)]
pub struct HookDef {
    /// The function's name.
    pub name: String,
    /// How many arguments it takes.
    pub arity: usize,
    /// Where it is named, for errors.
    pub file: FileId,
    /// Byte span of the name.
    pub span: std::ops::Range<usize>,
}

impl Defs {
    /// The links that start or end at `zone`, in the order of `edges` (a link from a zone to
    /// itself once).
    pub(crate) fn edges_of(&self, zone: ZoneId) -> impl Iterator<Item = &EdgeDef> + '_ {
        self.edges_at.get(zone as usize).into_iter().flatten().filter_map(|&i| self.edges.get(i as usize))
    }

    /// Fills in `edges_at` from `edges`, once they are all known.
    pub(crate) fn index_edges(&mut self) {
        let mut at = vec![Vec::new(); self.zone_names.len()];
        for (i, e) in self.edges.iter().enumerate() {
            let i = i as u32;
            if let Some(list) = at.get_mut(e.from as usize) {
                list.push(i);
            }
            if e.to != e.from
                && let Some(list) = at.get_mut(e.to as usize)
            {
                list.push(i);
            }
        }
        self.edges_at = at;
    }

    /// A zone by name.
    pub fn zone(&self, name: &str) -> Option<ZoneId> {
        self.zone_index.get(name).copied()
    }
    /// A piece by name.
    pub fn piece(&self, name: &str) -> Option<PieceId> {
        self.piece_index.get(name).copied()
    }
    /// A counter by name.
    pub fn counter(&self, name: &str) -> Option<CounterId> {
        self.counter_index.get(name).copied()
    }
    /// A phase by name.
    pub fn phase(&self, name: &str) -> Option<PhaseId> {
        self.phase_index.get(name).copied()
    }
    /// An action by name.
    pub fn action(&self, name: &str) -> Option<ActionId> {
        self.action_index.get(name).copied()
    }
    /// A seat by name.
    pub fn seat(&self, name: &str) -> Option<SeatId> {
        self.seat_index.get(name).copied()
    }
    /// Whether the seat of this name is played by the rules (`played_by = "rules"`): no agent
    /// or person may be given it.
    pub fn played_by_rules(&self, name: &str) -> bool {
        self.seat(name).is_some_and(|s| self.seats[s as usize].by_rules)
    }
    /// Whether a seat takes part in a game of `players` players: one of the first `players`
    /// seats, or a seat played by the rules that joins that count. (Seats played by the rules
    /// come after every player's seat, so the first `players` seats are always players'.)
    pub fn seat_in_play(&self, seat: SeatId, players: u8) -> bool {
        match self.seats.get(seat as usize) {
            Some(def) if def.by_rules => def.joins.is_empty() || def.joins.contains(&players),
            Some(_) => seat < players,
            None => false,
        }
    }
    /// Whether an outcome can end a game of `players` players. An outcome without winners (a
    /// draw, a loss) always can. An outcome with winners needs at least one of them in play,
    /// and is not possible when the winners in play are exactly those of another outcome whose
    /// winners are all in play: at 2 players, a joint win `red_green` would be won by red
    /// alone, which is the outcome `red`. A cooperative win of every seat stays possible at
    /// every count.
    pub fn outcome_possible(&self, outcome: u16, players: u8) -> bool {
        let Some(def) = self.outcomes.get(outcome as usize) else { return false };
        if def.winners.is_empty() {
            return true;
        }
        let in_play = |o: &OutcomeDef| -> Vec<SeatId> {
            o.winners.iter().copied().filter(|&s| self.seat_in_play(s, players)).collect()
        };
        let winners = in_play(def);
        if winners.is_empty() {
            return false;
        }
        winners.len() == def.winners.len()
            || !self.outcomes.iter().any(|o| o.winners.len() == winners.len() && in_play(o) == winners)
    }
    /// An outcome by name.
    pub fn outcome(&self, name: &str) -> Option<u16> {
        self.outcome_index.get(name).copied()
    }
    /// A word's id, if the ruleset uses it.
    pub fn symbol(&self, word: &str) -> Option<SymId> {
        self.symbol_index.get(word).copied()
    }
    /// The property slot of a piece's property by name.
    pub fn prop_slot(&self, piece: PieceId, prop: &str) -> Option<usize> {
        let def = self.pieces.get(piece as usize)?;
        Some(def.prop_base + self.kinds[def.kind as usize].prop(prop)?)
    }
    /// The definition of a piece's property by name.
    pub fn prop_def(&self, piece: PieceId, prop: &str) -> Option<&PropDef> {
        self.prop_ref(piece, prop).map(|(_, d)| d)
    }
    /// A piece's property by name: its slot in the state and its definition, in one lookup.
    pub fn prop_ref(&self, piece: PieceId, prop: &str) -> Option<(usize, &PropDef)> {
        let def = self.pieces.get(piece as usize)?;
        let kind = &self.kinds[def.kind as usize];
        let i = kind.prop(prop)?;
        Some((def.prop_base + i, &kind.props[i]))
    }
    /// The slot of a piece's property `name` if it can hold `value` (a word of its list, an
    /// integer in its range, a piece of its kind or -1 for none), or why not.
    pub fn check_prop(&self, piece: PieceId, name: &str, value: i64) -> Result<usize, String> {
        let Some((slot, def)) = self.prop_ref(piece, name) else {
            return Err(format!("{} has no property `{name}`", self.pieces[piece as usize].name));
        };
        self.check_prop_value(piece, name, def, value).map(|()| slot)
    }

    /// Whether property `name` of `piece`, defined by `def` (its definition found already), can
    /// hold `value`, or why not, in [`Defs::check_prop`]'s words.
    pub fn check_prop_value(&self, piece: PieceId, name: &str, def: &PropDef, value: i64) -> Result<(), String> {
        let ok = match &def.kind {
            PropKind::Word(words) => words.contains(&(value as SymId)) && value >= 0,
            PropKind::Int(lo, hi) => (*lo..=*hi).contains(&value),
            PropKind::Piece(kind) => value == -1 || self.pieces.get(value as usize).is_some_and(|p| p.kind == *kind),
        };
        if ok {
            return Ok(());
        }
        let shown = match &def.kind {
            PropKind::Int(lo, hi) => format!("{value} (its range is {lo} to {hi})"),
            other => format!("`{}`", self.show_prop(other, value)),
        };
        Err(format!("{}.{name} cannot be {shown}", self.pieces[piece as usize].name))
    }
    /// A readable rendering of a stored property value.
    pub fn show_prop(&self, kind: &PropKind, value: i64) -> String {
        match kind {
            PropKind::Word(_) => self.symbols.get(value as usize).map(|s| s.to_string()).unwrap_or_default(),
            PropKind::Int(..) => value.to_string(),
            PropKind::Piece(_) => {
                if value < 0 {
                    "none".into()
                } else {
                    self.pieces.get(value as usize).map(|p| p.name.clone()).unwrap_or_default()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::IdSet;

    #[test]
    fn an_id_set_holds_the_ids_it_was_made_of_across_words() {
        let set: IdSet = [3, 64, 200, 3].into_iter().collect();
        let held: Vec<u16> = (0..300).filter(|&id| set.contains(id)).collect();
        assert_eq!(held, [3, 64, 200]);
        // Far beyond its last word, it holds nothing rather than failing.
        assert!(!set.contains(u16::MAX));
        assert!(!IdSet::default().contains(0));
    }
}
