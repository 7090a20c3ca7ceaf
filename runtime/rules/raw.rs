//! The ruleset files as written: serde structures that mirror `game.toml` one to one.
//!
//! Loading happens in two steps (see `load.rs`): these raw structures keep the byte span of
//! every value a diagnostic may need to point at, then a validation pass resolves names into
//! ids. Keeping the two apart is what lets errors name file, line and column even for
//! references that only turn out to be wrong once the whole file is read. The JSON Schema that
//! editors use to complete `game.toml` is generated from these types (`tabula schema`).

use std::ops::Range;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

/// A value together with the byte range it came from in its file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Located<T> {
    /// The value as deserialized.
    pub value: T,
    /// Byte offsets of the value in its source file.
    pub span: Range<usize>,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = toml::Spanned::<T>::deserialize(deserializer)?;
        let span = spanned.span();
        Ok(Located { value: spanned.into_inner(), span })
    }
}

impl<T: JsonSchema> JsonSchema for Located<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// A name written in the file (of a zone, a piece type, a phase...), with its place.
pub type Name = Located<String>;

/// A whole ruleset file: `game.toml`, or a variant overlay in `variants/`.
///
/// Every table is keyed by the name scripts and logs use. Order is kept: seats play in the order
/// they are written, and pieces of one zone are listed in the order they are declared.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "tabula ruleset (game.toml)")]
pub struct RawRuleset {
    /// What the game is and how it starts. Required in `game.toml`; an overlay may change fields.
    pub game: Option<RawGame>,
    /// Named numbers and words of the rules. Scripts read them with `game.param("name")`, numeric
    /// fields elsewhere may name them instead of a number, and `--set name=value` overrides them.
    #[serde(default)]
    pub params: IndexMap<String, Located<ParamValue>>,
    /// Player positions, in turn order. A seat's key is its role (`red`, `blue`, `thief`).
    #[serde(default)]
    pub seats: IndexMap<String, RawSeat>,
    /// How a game can end. A game ends when a script calls `game.end("name")`.
    #[serde(default)]
    pub outcomes: IndexMap<String, RawOutcome>,
    /// Kinds of pieces and the properties every piece of the kind carries.
    #[serde(default)]
    pub components: IndexMap<String, RawComponent>,
    /// The pieces in the box: each lives in exactly one zone at all times.
    #[serde(default)]
    pub pieces: IndexMap<String, RawPiece>,
    /// Places a piece can be: areas, hands, decks, tracks, board spaces.
    #[serde(default)]
    pub zones: IndexMap<String, RawZone>,
    /// Bounded integers: money, rounds, a score, a marker on a track.
    #[serde(default)]
    pub counters: IndexMap<String, RawCounter>,
    /// Kinds of dice and their faces. A die in play is a piece whose component names the die.
    #[serde(default)]
    pub dice: IndexMap<String, RawDie>,
    /// Links between zones that form a board graph (board spaces), with properties.
    #[serde(default)]
    pub edges: Vec<RawEdge>,
    /// The phases of the game, each a step of the flow.
    #[serde(default)]
    pub phases: IndexMap<String, RawPhase>,
    /// What seats can do: typed parameters with enumerable domains, an effect and hooks.
    #[serde(default)]
    pub actions: IndexMap<String, RawAction>,
    /// Moments on the game clock that fire a hook (real-time games).
    #[serde(default)]
    pub timers: IndexMap<String, RawTimer>,
    /// Agents written in the ruleset's scripts (heuristic players for simulation).
    #[serde(default)]
    pub agents: IndexMap<String, RawAgent>,
    /// Hints for drawing the game (`tabula view`): nothing in play depends on them.
    pub layout: Option<RawLayout>,
}

/// `[layout]`: how `tabula view` draws the game. Without it, zones are boxes in declaration
/// order, a board graph is laid out by springs and pieces with `x` and `y` properties on a grid.
/// With zones given a `draw`, the page opens on those zones (in the order written here) and
/// keeps the others in a side panel.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLayout {
    /// Per zone: how to draw it and where (board graphs), its colour and its label, as in
    /// `zones.hall = { x = 3, y = 1, colour = "#c8b46e", label = "Great hall" }`.
    #[serde(default)]
    pub zones: IndexMap<String, RawZoneLayout>,
    /// Per kind of piece: how its pieces are drawn, as in
    /// `pieces.die = { shape = "die", label = "face" }`.
    #[serde(default)]
    pub pieces: IndexMap<String, RawPieceLayout>,
    /// Per zone drawn as a grid (`draw = "grid"`): which properties of its pieces are their
    /// sides' passages, and how they turn.
    #[serde(default)]
    pub grids: IndexMap<String, RawGridLayout>,
    /// The counters shown beside the board, in this order (a per-seat counter's base name
    /// covers every seat's). The others are kept in a side panel. Without it, every counter is
    /// shown beside the board.
    pub counters: Option<Vec<Name>>,
}

/// How one zone is drawn.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawZoneLayout {
    /// Column of the zone's node when the zones form a board graph, or of the zone's place on
    /// the board (any unit: the drawing is scaled to fit).
    pub x: Option<i64>,
    /// Row of the zone's node (down the page).
    pub y: Option<i64>,
    /// A CSS colour for the zone.
    pub colour: Option<String>,
    /// The name shown instead of the zone's key.
    pub label: Option<String>,
    /// How the zone is drawn on the board; a zone without it (and without `x` and `y`) is kept
    /// in a side panel when some zone has it.
    pub draw: Option<ZoneDraw>,
}

/// How a zone is drawn on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneDraw {
    /// Its pieces side by side, each as its kind is drawn.
    Row,
    /// A place on the board (at its `x` and `y` when given), its pieces standing in it.
    Place,
    /// A pile: one piece (its top, when seen) with the number of pieces under it.
    Pile,
    /// A hand of cards, fanned.
    Hand,
    /// Pieces laid at their whole-number `x` and `y` properties, as tiles (`[layout.grids]`).
    Grid,
    /// Not drawn itself: its pieces are drawn on the pieces their `on` property names
    /// (`[layout.pieces]`), figures on the tiles they stand on.
    On,
}

/// How the pieces of one kind are drawn.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPieceLayout {
    /// The piece's shape.
    pub shape: Option<PieceShape>,
    /// A property whose value is written on the piece (a die's face, a card's title); without
    /// it, the piece's name.
    pub label: Option<Name>,
    /// A CSS colour for every piece of the kind.
    pub colour: Option<String>,
    /// A property whose value gives the piece's colour: through `colours`, or the value itself
    /// taken as a CSS colour (a seat named `red`).
    pub colour_from: Option<Name>,
    /// The colour of each value of `colour_from`.
    #[serde(default)]
    pub colours: IndexMap<String, String>,
    /// A piece-valued property that puts the piece on another piece (a figure's chamber): the
    /// piece is drawn on that piece when it is drawn, in its own zone otherwise.
    pub on: Option<Name>,
}

/// The shape a piece is drawn as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PieceShape {
    /// A standing figure.
    Pawn,
    /// A card: its label, the other shown properties small.
    Card,
    /// A square tile.
    Tile,
    /// A die showing its label (its face).
    Die,
    /// A round token.
    Token,
}

/// How the pieces of a zone drawn as a grid show their sides.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawGridLayout {
    /// The properties of the pieces' four sides: a side whose value is a piece or a number
    /// other than 0 is a passage, drawn open.
    pub sides: Option<RawSides>,
    /// A property counting the quarter turns clockwise the piece lies turned by: its printed
    /// sides turn with it.
    pub rotation: Option<Name>,
    /// Whether `y` grows up the page (north is `y + 1`); by default it grows down.
    #[serde(default)]
    pub y_up: bool,
}

/// The properties giving a grid piece's four sides, as printed.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSides {
    /// The top side's property.
    pub north: Name,
    /// The right side's property.
    pub east: Name,
    /// The bottom side's property.
    pub south: Name,
    /// The left side's property.
    pub west: Name,
}

/// An `[agents.<name>]` entry: a player written in Rhai.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAgent {
    /// How it plays.
    pub description: Option<String>,
    /// Script function `(view, options) -> index`: `view` shows only what the seat may know,
    /// `options` are the legal actions as maps (`#{action: "roll", keep: "key"}`). An agent has
    /// either `choose` or `act`.
    pub choose: Option<Name>,
    /// Script function `(view) -> action`: works out the action itself and returns it as a map
    /// (`#{action: "roll", keep: "key"}`), or `()` to wait (real time). The engine checks it
    /// like any action. Faster than `choose` where listing every option costs more than
    /// deciding: the list is never built.
    pub act: Option<Name>,
}

/// The `[game]` table.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawGame {
    /// The published name of the game.
    pub name: Option<String>,
    /// Who published it, and when; shown by `tabula list`.
    pub about: Option<String>,
    /// Player counts the rules allow: one number, or `[min, max]`.
    pub players: Option<Located<Players>>,
    /// Counts within `players` that the rules do not allow (a team game for 4 or 6: `[5]`).
    pub excluded_players: Option<Located<Vec<u8>>>,
    /// The count most tables play: what `sim`, `sweep` and `play` play when not told (default:
    /// the smallest count allowed).
    pub usual_players: Option<Located<u8>>,
    /// Rhai files with the phase logic, relative to the ruleset folder, compiled in this order.
    pub scripts: Option<Vec<Name>>,
    /// The phase the game starts in.
    pub start: Option<Name>,
    /// Real-time games: the game time (ms) an agent takes for one action in simulation, a number
    /// or a parameter. Seats then act when their agent is ready, earliest first.
    pub pace: Option<Located<IntOrParam>>,
    /// The agent `tabula sim` uses when none is named: `random`, or one of `[agents]`.
    pub default_agent: Option<Name>,
    /// A script function `(view) -> integer` estimating, from a seat's view, its chance to win
    /// in percent (0 to 100): the search agent scores a playout it cuts short with it.
    pub evaluate: Option<Name>,
    /// The counter that counts rounds, so that balance reports give the game's length in rounds.
    pub rounds: Option<Name>,
}

/// A player count, or an inclusive range of them.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged, expecting = "expected a player count (1 to 255) or [min, max]")]
pub enum Players {
    /// Exactly this many players.
    Exactly(u8),
    /// `[min, max]`, both included.
    Range([u8; 2]),
}

/// A parameter value: a number, a word, or a list of either.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// A word (a symbol).
    Text(String),
    /// A list of integers or words.
    List(Vec<ParamValue>),
    /// A table of values by key, such as values by player count (`{ 2 = 7, 3 = 11 }`). Keys are
    /// strings: scripts read `game.param("goal", "2")` (or `game.param("goal")["2"]`).
    Table(IndexMap<String, ParamValue>),
}

/// An integer written in place, or the name of an integer parameter.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged, expecting = "expected an integer or the name of an integer parameter")]
pub enum IntOrParam {
    /// A number.
    Int(i64),
    /// The name of a parameter in `[params]` holding a number.
    Param(String),
}

/// A `[seats.<role>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSeat {
    /// Who this seat is, for people reading the rules.
    pub description: Option<String>,
    /// The team the seat belongs to, if the game has teams.
    pub team: Option<String>,
    /// Who moves the seat: `"players"` (the default: a person or an agent) or `"rules"` (an
    /// automaton such as a dummy player or an inspector: no agent or person plays it, and the
    /// engine answers each of its prompts with the first legal option, so its moves are the
    /// rules' own). Seats played by the rules are declared after every other seat.
    pub played_by: Option<Located<String>>,
    /// For a seat played by the rules: the player counts it joins (every count when left out).
    pub players: Option<Located<Vec<u8>>>,
}

/// An `[outcomes.<name>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawOutcome {
    /// Seats that win with this outcome; empty for a draw or a shared loss.
    #[serde(default)]
    pub winners: Vec<Name>,
    /// What kind of end it is, for balance reports: `win` (the default when it has winners),
    /// `draw` (the default without), `loss` (everyone loses), or `bound` (a safety bound that is
    /// no rule of the game stopped it: such games are reported as stopped).
    pub kind: Option<Located<String>>,
    /// What happened, in the words of the rulebook.
    pub description: Option<String>,
}

/// A `[components.<kind>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawComponent {
    /// Properties every piece of this kind carries, with their domains.
    #[serde(default)]
    pub props: IndexMap<String, Located<RawProp>>,
    /// Makes the pieces dice of this kind (from `[dice]`): they get a `face` property.
    pub die: Option<Name>,
}

/// The domain of a property: exactly one of `one_of`, `range` or `piece`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawProp {
    /// The property is one of these words.
    pub one_of: Option<Vec<String>>,
    /// The property is an integer in `[min, max]`, both included.
    pub range: Option<[IntOrParam; 2]>,
    /// The property names a piece of this component kind.
    pub piece: Option<String>,
    /// The value at the start (a word, a number or a piece name); defaults to the first word,
    /// the minimum, or no piece.
    pub initial: Option<ParamValue>,
    /// Whether people are shown the property (default true). `false` marks bookkeeping the
    /// scripts keep (which sides of a tile are still free): it stays in the state, the agents'
    /// views and the logs, but the terminal and `replay --view` do not print it.
    pub shown: Option<bool>,
}

/// A `[pieces.<name>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPiece {
    /// The component kind.
    #[serde(rename = "type")]
    pub kind: Option<Name>,
    /// The zone the piece starts in.
    pub zone: Option<Name>,
    /// Several identical pieces: named `<name>_1` .. `<name>_<count>`.
    pub count: Option<Located<IntOrParam>>,
    /// Starting values of properties, overriding the kind's initial values.
    #[serde(default)]
    pub props: IndexMap<String, Located<ParamValue>>,
    /// Whether the piece starts face up (default: as its zone's `face`, else up).
    pub face_up: Option<bool>,
}

/// What a seat sees of a zone's pieces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sight {
    /// Every piece, face up or down.
    #[default]
    All,
    /// How many pieces there are, and the face-up ones.
    Count,
    /// How many, and the top piece of an ordered zone, and the face-up ones.
    Top,
    /// Only the face-up pieces: not even how many others there are.
    None,
}

/// How a piece's face changes when it enters a zone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Facing {
    /// Pieces keep the face they had.
    #[default]
    Keep,
    /// Pieces are turned face up.
    Up,
    /// Pieces are turned face down.
    Down,
}

/// A `[zones.<name>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawZone {
    /// What the zone is on the table.
    pub description: Option<String>,
    /// The seat that owns the zone (its hand, its side of the board).
    pub owner: Option<Name>,
    /// One zone per seat, named `<name>.<seat>` and owned by that seat.
    #[serde(default)]
    pub per_seat: bool,
    /// An ordered zone (deck, track, discard pile) keeps the order pieces came in; an unordered
    /// one lists its pieces in declaration order.
    #[serde(default)]
    pub ordered: bool,
    /// The most pieces the zone holds (counting only pieces of the kinds it accepts).
    pub capacity: Option<Located<IntOrParam>>,
    /// Component kinds that may enter the zone (default: any).
    pub accepts: Option<Vec<Name>>,
    /// Zones whose pieces may move here (default: any). A move from elsewhere is not legal.
    pub enter_from: Option<Vec<Name>>,
    /// How pieces are turned when they enter.
    #[serde(default)]
    pub face: Facing,
    /// What the owner sees (default: all).
    #[serde(default)]
    pub owner_sees: Sight,
    /// What everyone else sees (default: all).
    #[serde(default)]
    pub others_see: Sight,
    /// Whether people are shown the zone (default true). `false` marks a place the scripts keep
    /// for themselves (pieces out of play, a scratch pile): the terminal, `replay --view` and
    /// `tabula view` leave it out; seats' sight and agents' views are as without it.
    pub shown: Option<bool>,
}

/// What seats see of a counter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CounterSight {
    /// Everyone sees it.
    #[default]
    All,
    /// Only its seat (per-seat counters) sees it.
    Owner,
    /// Nobody: bookkeeping for the scripts.
    None,
}

/// A `[counters.<name>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCounter {
    /// What the counter tracks on the table.
    pub description: Option<String>,
    /// `[min, max]`, both included. Adding past an end stops at the end, as a marker on a
    /// printed track does.
    pub range: Located<[IntOrParam; 2]>,
    /// The value at the start (default: the minimum).
    pub initial: Option<Located<IntOrParam>>,
    /// One counter per seat, named `<name>.<seat>`.
    #[serde(default)]
    pub per_seat: bool,
    /// Who sees the value.
    #[serde(default)]
    pub visible: CounterSight,
    /// Whether people are shown the counter (default true). `false` marks bookkeeping the
    /// scripts keep (a step of a procedure, a flag): the terminal, `replay --view` and `tabula
    /// view` leave it out, while agents still read it as `visible` allows.
    pub shown: Option<bool>,
}

/// A `[dice.<kind>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDie {
    /// The faces, each equally likely: numbers or words (a word may repeat).
    pub faces: Located<Vec<ParamValue>>,
}

/// An `[[edges]]` entry: a link between two zones of a board graph.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawEdge {
    /// One end.
    pub from: Name,
    /// The other end.
    pub to: Name,
    /// A link that can only be crossed from `from` to `to`.
    #[serde(default)]
    pub one_way: bool,
    /// A word describing the link (a door, a wire fence), for scripts to test.
    pub kind: Option<String>,
}

/// Prompts a phase opens on entry: one decision, or one per piece of some zones (`each`), in
/// declaration order of the pieces.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAsk {
    /// The seat that decides.
    pub seat: Name,
    /// The action the seat answers with. With `each`, its first piece parameter is bound to
    /// each piece; without, the seat chooses every argument.
    pub action: Name,
    /// Zones whose pieces are asked about, merged in declaration order of the pieces: one prompt
    /// per piece lying there when the phase begins. Without `each`, one prompt.
    pub each: Option<Vec<Name>>,
    /// A script function `(game) -> bool` checked before each of these prompts; once it returns
    /// false, the remaining prompts of this ask are dropped.
    #[serde(rename = "while")]
    pub while_hook: Option<Name>,
}

/// A `[phases.<name>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPhase {
    /// What happens in the phase, in the rulebook's words.
    pub description: Option<String>,
    /// Script function `(game)` run when the phase begins.
    pub on_enter: Option<Name>,
    /// Prompts opened after `on_enter`.
    #[serde(default)]
    pub ask: Vec<RawAsk>,
    /// Script function `(game)` run after a prompt of this phase is answered, once no prompt is
    /// pending; the phase ends when it opens no new prompt (and chooses no other phase).
    pub resume: Option<Name>,
    /// Script function `(game)` run when the phase ends.
    pub on_exit: Option<Name>,
    /// Actions any active seat may take at any time while the phase lasts (real-time and
    /// simultaneous phases). Such a phase ends only when a script calls `game.goto`.
    #[serde(default)]
    pub actions: Vec<Name>,
    /// Seats that may take the phase's standing actions (default: all).
    pub active: Option<Vec<Name>>,
    /// Script function `(game, seat) -> array` listing a seat's legal standing actions as maps
    /// (`#{action: "enter", to: "tile_3"}`), in one call instead of one `legal` call per
    /// candidate. When given, it decides which standing actions are legal.
    pub options: Option<Name>,
    /// Actions the other players may take out of turn, at any moment the phase waits for
    /// someone else (a card played "at any time", a trade between two players while a third is
    /// on turn), in a turn-based game. The game does not wait for them: after each action,
    /// each seat that may is offered the chance in seat order, and letting it pass writes
    /// nothing. With an `options` hook, the hook lists these seats' options too.
    #[serde(default)]
    pub out_of_turn: Vec<Name>,
    /// The phase that follows (a script may choose another with `game.goto`).
    pub next: Option<Name>,
}

/// One parameter of an action. Exactly one domain key is given.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawParam {
    /// The name scripts and logs use for the argument.
    pub name: Name,
    /// A piece of this component kind...
    pub piece: Option<Name>,
    /// ...or of any of these kinds...
    pub pieces: Option<Vec<Name>>,
    /// ...lying in one of these zones (default: any zone).
    #[serde(rename = "in")]
    pub within: Option<Vec<Name>>,
    /// One of these zones.
    pub zone: Option<Vec<Name>>,
    /// One of these words.
    pub one_of: Option<Vec<String>>,
    /// An integer in `[min, max]`.
    pub range: Option<[IntOrParam; 2]>,
    /// One of the seats.
    #[serde(default)]
    pub seat: bool,
    /// With `piece` or `pieces`: the value is any set of such pieces (the player chooses which),
    /// written in logs as its pieces, one word each (none for the empty set). Only the last
    /// parameter may be a set.
    #[serde(default)]
    pub set: bool,
    /// With `set`: the fewest and the most pieces the set may hold (default: any number).
    pub size: Option<[u32; 2]>,
}

/// What an action does without a script (fast, and checked by the engine).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawEffect {
    /// Moves the piece given by this parameter...
    #[serde(rename = "move")]
    pub move_piece: Option<Name>,
    /// ...to the zone given by this parameter. The move must respect the zone's capacity,
    /// `accepts` and `enter_from`; destinations that do not are not legal.
    pub to: Option<Name>,
    /// Sets a property: `[piece parameter, property, value parameter]`.
    pub set: Option<[Name; 3]>,
}

/// An `[actions.<name>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAction {
    /// What the action is, in the rulebook's words.
    pub description: Option<String>,
    /// Typed parameters, in the order logs write them.
    #[serde(default)]
    pub params: Vec<RawParam>,
    /// Built-in effect applied before `apply`.
    pub effect: Option<RawEffect>,
    /// Script function `(game, args) -> bool` filtering candidates beyond the built-in checks.
    pub legal: Option<Name>,
    /// Script function `(game, args) -> array` listing the action's options as maps
    /// (`#{action: "lay", x: 0, y: -1}`, `action` optional) when it is asked, instead of every
    /// combination of the parameters' values: `args` holds the prompt's fixed arguments and
    /// `seat`. Options not matching the fixed arguments are left out.
    pub options: Option<Name>,
    /// Script function `(game, args)` run when the action is taken.
    pub apply: Option<Name>,
    /// The arguments are secret: other seats see that the action was taken, not with what.
    #[serde(default)]
    pub secret: bool,
    /// Real-time games: the game time (ms) a simulated agent needs for this action (default:
    /// the game's `pace`).
    pub time: Option<Located<IntOrParam>>,
}

/// A `[timers.<name>]` entry.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTimer {
    /// Game time in milliseconds at which the timer fires.
    pub at: Located<IntOrParam>,
    /// Script function `(game)` run when the clock reaches `at`.
    pub hook: Name,
}

/// The JSON Schema of `game.toml`, as editors (taplo, Even Better TOML) read it.
pub fn json_schema() -> String {
    let settings = schemars::generate::SchemaSettings::draft07();
    let schema = settings.into_generator().into_root_schema_for::<RawRuleset>();
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

impl Default for IntOrParam {
    fn default() -> Self {
        IntOrParam::Int(0)
    }
}
