//! Events: what happened, one change at a time, in the order it happened.
//!
//! The engine records an event for every change of state (when recording is on). The event
//! stream is what determinism is checked against, what logs and replays are built from, and,
//! passed through `view`, what a seat is told.

use crate::rules::defs::{CounterId, Defs, Domain, PhaseId, PieceId, ZoneId};
use crate::value::{Action, Value};

/// One change of the game state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A phase began.
    PhaseEntered(PhaseId),
    /// A seat took an action at a game time (before its effects, which follow as events).
    Acted {
        /// The action.
        action: Action,
        /// The game clock when it was taken, in milliseconds.
        at: i64,
        /// Taken by the rules for a seat they move (`played_by = "rules"`): a consequence of
        /// what came before, so logs leave it out and replays take it again by themselves.
        by_rules: bool,
    },
    /// A piece changed zone.
    Moved {
        /// The piece.
        piece: PieceId,
        /// Where it was.
        from: ZoneId,
        /// Where it is now.
        to: ZoneId,
    },
    /// A piece was turned.
    Turned {
        /// The piece.
        piece: PieceId,
        /// Face up after the turn.
        up: bool,
    },
    /// A property changed.
    PropSet {
        /// The piece.
        piece: PieceId,
        /// The property slot.
        slot: u32,
        /// The new value, encoded.
        value: i64,
    },
    /// A counter changed.
    CounterSet {
        /// The counter.
        counter: CounterId,
        /// Its new value.
        value: i64,
    },
    /// A die piece was rolled (chance).
    Rolled {
        /// The die.
        piece: PieceId,
        /// The face rolled, encoded as the `face` property stores it.
        face: i64,
    },
    /// A zone was shuffled (chance): its pieces, top first.
    Shuffled {
        /// The zone.
        zone: ZoneId,
        /// The new order.
        order: Vec<PieceId>,
    },
    /// A script drew a random number (chance).
    Random {
        /// The range, `0..n`.
        n: i64,
        /// The value drawn.
        value: i64,
    },
    /// A script took a piece of a zone at random (chance).
    Picked {
        /// The zone it was taken from.
        zone: ZoneId,
        /// The piece.
        piece: PieceId,
    },
    /// The clock reached a timer.
    TimerFired(u16),
    /// A script wrote a note for the log.
    Note(String),
    /// The game ended.
    Ended(u16),
}

impl Event {
    /// The event as one line of text, for people (tests, `--events` output).
    pub fn describe(&self, defs: &Defs) -> String {
        let piece = |p: &PieceId| defs.pieces[*p as usize].name.as_str();
        let zone = |z: &ZoneId| defs.zones[*z as usize].name.as_str();
        match self {
            Event::PhaseEntered(p) => format!("phase {}", defs.phases[*p as usize].name),
            Event::Acted { action, .. } => format!("act {}", describe_action(defs, action)),
            Event::Moved { piece: p, from, to } => format!("move {} {} -> {}", piece(p), zone(from), zone(to)),
            Event::Turned { piece: p, up } => format!("turn {} {}", piece(p), if *up { "up" } else { "down" }),
            Event::PropSet { piece: p, slot, value } => {
                let def = &defs.pieces[*p as usize];
                let prop = &defs.kinds[def.kind as usize].props[*slot as usize - def.prop_base];
                format!("set {}.{} = {}", piece(p), prop.name, defs.show_prop(&prop.kind, *value))
            }
            Event::CounterSet { counter, value } => {
                format!("counter {} = {value}", defs.counters[*counter as usize].name)
            }
            Event::Rolled { piece: p, face } => {
                let kind = &defs.kinds[defs.pieces[*p as usize].kind as usize];
                let shown = kind
                    .props
                    .iter()
                    .find(|pr| pr.name == "face")
                    .map(|pr| defs.show_prop(&pr.kind, *face))
                    .unwrap_or_default();
                format!("roll {} {shown}", piece(p))
            }
            Event::Shuffled { zone: z, order } => {
                format!("shuffle {} [{}]", zone(z), order.iter().map(piece).collect::<Vec<_>>().join(" "))
            }
            Event::Random { n, value } => format!("random {value} of {n}"),
            Event::Picked { zone: z, piece: p } => format!("pick {} {}", zone(z), piece(p)),
            Event::TimerFired(t) => format!("timer {}", defs.timers[*t as usize].name),
            Event::Note(text) => format!("note {text}"),
            Event::Ended(o) => format!("end {}", defs.outcomes[*o as usize].name),
        }
    }
}

/// One argument as written in logs and on screen: names for pieces, zones, words and seats. An
/// id the rules do not have (an action built by a program, not read) is written `piece #12`.
pub fn describe_value(defs: &Defs, value: &Value) -> String {
    let name = |found: Option<&str>, what: &str, id: u64| found.map_or_else(|| format!("{what} #{id}"), str::to_string);
    match value {
        Value::Piece(p) => name(defs.pieces.get(*p as usize).map(|d| d.name.as_str()), "piece", u64::from(*p)),
        Value::Zone(z) => name(defs.zones.get(*z as usize).map(|d| d.name.as_str()), "zone", u64::from(*z)),
        Value::Word(w) => name(defs.symbols.get(*w as usize).map(|s| s.as_str()), "word", u64::from(*w)),
        Value::Int(i) => i.to_string(),
        Value::Seat(s) => name(defs.seats.get(*s as usize).map(|d| d.name.as_str()), "seat", u64::from(*s)),
        // A set's pieces need its parameter (`describe_args`): alone, it is its mask.
        Value::Set(mask) => format!("set #{mask:x}"),
    }
}

/// An action's arguments as written in logs, a word each; a set is as many words as it holds
/// pieces (none for the empty set).
pub fn describe_args(defs: &Defs, action: &Action) -> Vec<String> {
    let params = defs.actions.get(action.action as usize).map(|a| a.params.as_slice()).unwrap_or_default();
    let mut out = Vec::with_capacity(action.args.len());
    for (i, v) in action.args.iter().enumerate() {
        match (v, params.get(i).map(|p| &p.domain)) {
            (Value::Set(mask), Some(Domain::Set(set))) => {
                out.extend(set.members(*mask).map(|p| describe_value(defs, &Value::Piece(p))))
            }
            _ => out.push(describe_value(defs, v)),
        }
    }
    out
}

/// An action as written in logs: `seat: action arg arg` (with `#id` for ids the rules do not
/// have, as `describe_value`).
pub fn describe_action(defs: &Defs, action: &Action) -> String {
    let seat = describe_value(defs, &Value::Seat(action.seat));
    let name = defs
        .actions
        .get(action.action as usize)
        .map_or_else(|| format!("action #{}", action.action), |a| a.name.clone());
    let mut out = format!("{seat}: {name}");
    for word in describe_args(defs, action) {
        out.push(' ');
        out.push_str(&word);
    }
    out
}

/// Whether a name can be written as one word of a log line (`schema/log.pest`'s `word`:
/// letters, digits, `_`, `-` and `.`). Every name a log writes (seats, actions, pieces, zones,
/// outcomes, the words of properties, parameters and dice) must be one, or a game could write
/// a log that no replay reads back; the loader refuses any other.
pub fn is_log_word(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}
