//! Visibility: what one seat may know of the game. The only place secrets are filtered.
//!
//! A seat sees a piece (its name and properties) when the piece lies face up, or when the zone
//! it is in shows that seat everything (`owner_sees`/`others_see = "all"`). Otherwise the zone's
//! sight decides what is left: how many pieces (`count`), also the top one (`top`), or nothing
//! at all (`none`). Counters are shown per their `visible` setting. Everything a seat is given
//! (the terminal, agents, a seat's log) is built from `view`.

pub(crate) mod compact;
pub(crate) mod sight;

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::Serialize;

use crate::event::describe_action;
use crate::flow::Game;
use crate::rules::{Defs, PieceId, PropKind, SeatId, Sight, ZoneId};
pub use sight::MASKED;
pub use sight::sight_is_shared;
pub(crate) use sight::{counter_shown, may_show_prop, visible};

/// What one seat (or, with no seat, an omniscient observer) knows of the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct View {
    /// The seat this view is for (`None`: everything, for tests and tools).
    pub seat: Option<String>,
    /// The current phase.
    pub phase: String,
    /// Game time in milliseconds.
    pub clock_ms: i64,
    /// The outcome, once the game is over.
    pub outcome: Option<String>,
    /// Counters the seat may see.
    pub counters: IndexMap<String, i64>,
    /// Every zone, with what the seat may see of it.
    pub zones: IndexMap<String, ZoneView>,
    /// Seats that must decide now.
    pub to_act: Vec<String>,
    /// The decision this seat faces, if any, as the action with its fixed arguments.
    pub decision: Option<String>,
    /// The seats in the game, in order: the compact form writes each seat's counters and zones
    /// (`money.red`, `hand.red`) under it. Not sent to the viewer, which knows them.
    #[serde(skip)]
    pub seats: Vec<String>,
    /// How the pieces of the zones drawn as grids show their sides (the ruleset's `[layout]
    /// grids`), by zone: the compact form draws the passages from them. Not sent to the
    /// viewer, which has the layout.
    #[serde(skip)]
    pub grid_sides: BTreeMap<String, GridSides>,
}

/// The properties giving the sides of a grid zone's pieces (`[layout.grids.<zone>] sides`), as
/// printed (north, east, south, west), and the one turning them (`rotation`, quarter turns
/// clockwise).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GridSides {
    /// The north, east, south and west sides' properties.
    pub sides: [String; 4],
    /// The property counting quarter turns clockwise, if the pieces turn.
    pub rotation: Option<String>,
}

/// What a seat sees of a zone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ZoneView {
    /// How many pieces it holds (`None`: the seat cannot tell).
    pub count: Option<u32>,
    /// The pieces the seat can see, in zone order.
    pub pieces: Vec<PieceView>,
    /// How many pieces are there that the seat cannot identify (when it can tell).
    pub hidden: u32,
}

/// A piece as a seat sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PieceView {
    /// Its name.
    pub name: String,
    /// Whether it lies face up.
    pub face_up: bool,
    /// Its properties, rendered.
    pub props: IndexMap<String, String>,
}

fn sees_piece(game: &Game, seat: Option<SeatId>, zone: ZoneId, piece: PieceId) -> bool {
    visible(game.rules(), game.state(), seat, zone, piece)
}

fn piece_view(defs: &Defs, game: &Game, seat: Option<SeatId>, piece: PieceId) -> PieceView {
    let def = &defs.pieces[piece as usize];
    let kind = &defs.kinds[def.kind as usize];
    let state = game.state();
    let props = kind
        .props
        .iter()
        .enumerate()
        .filter(|(_, p)| p.shown)
        .map(|(i, p)| {
            let value = state.prop(def.prop_base + i);
            let shown = if may_show_prop(defs, state, seat, piece, i, value) {
                defs.show_prop(&p.kind, value)
            } else {
                crate::log::MASKED.to_string()
            };
            (p.name.clone(), shown)
        })
        .collect();
    PieceView { name: def.name.clone(), face_up: game.state().is_face_up(piece), props }
}

/// Whether `seat` may see where a piece is and what it is (used for events and logs too).
pub fn can_see_piece(game: &Game, seat: Option<SeatId>, piece: PieceId) -> bool {
    let zone = game.state().zone_of(piece);
    sees_piece(game, seat, zone, piece)
}

/// The sides of the zones shown whose `[layout] grids` entry names them (a per-seat zone's base
/// name covers each seat's), by zone.
fn grid_sides(defs: &Defs, players: u8) -> BTreeMap<String, GridSides> {
    (0..defs.zones.len() as ZoneId)
        .filter(|&z| zone_shown(defs, players, z))
        .filter_map(|z| {
            let name = &defs.zones[z as usize].name;
            let base = name.split('.').next().unwrap_or(name);
            let grid = defs.layout.grids.get(name).or_else(|| defs.layout.grids.get(base))?;
            let sides = grid.sides.clone()?;
            Some((name.clone(), GridSides { sides, rotation: grid.rotation.clone() }))
        })
        .collect()
}

/// What `seat` (or, with `None`, an omniscient observer) knows now, as people are shown it:
/// without the zones and counters the rules mark `shown = false`, or that belong to a seat not
/// in this game.
pub fn view(game: &Game, seat: Option<SeatId>) -> View {
    let defs = &**game.rules();
    let mut view = view_but_zones(game, seat);
    view.zones = (0..defs.zones.len() as ZoneId)
        .filter(|&z| zone_shown(defs, game.players(), z))
        .map(|z| (defs.zones[z as usize].name.clone(), zone_view(game, seat, z)))
        .collect();
    view
}

/// Whether people are shown zone `z` in a game of `players`: not bookkeeping (`shown = false`),
/// and not the zone of a seat that does not play.
pub fn zone_shown(defs: &Defs, players: u8, z: ZoneId) -> bool {
    let def = &defs.zones[z as usize];
    def.shown && def.owner.is_none_or(|s| defs.seat_in_play(s, players))
}

/// What `seat` sees of zone `z` now (one zone of [`view`]).
pub fn zone_view(game: &Game, seat: Option<SeatId>, z: ZoneId) -> ZoneView {
    let defs = &**game.rules();
    let def = &defs.zones[z as usize];
    let sight = seat.map(|s| def.sight(s)).unwrap_or(Sight::All);
    let all = game.state().pieces_in(defs, z);
    let mut pieces = Vec::new();
    let top = all.first().copied();
    for &p in &all {
        let shown = sees_piece(game, seat, z, p) || (sight == Sight::Top && def.ordered && Some(p) == top);
        if shown {
            pieces.push(piece_view(defs, game, seat, p));
        }
    }
    let count = (sight != Sight::None).then_some(all.len() as u32);
    let hidden = count.map(|c| c - pieces.len() as u32).unwrap_or(0);
    ZoneView { count, pieces, hidden }
}

/// Everything of the state that [`zone_view`] reads for zone `z`, whatever the seat, written
/// into `out` (cleared first) as numbers: the zone's pieces in order, whether each lies face up,
/// the values of their shown properties and, for a property naming a piece, where that piece
/// lies and whether face up (what decides if the name may be shown). Equal numbers at two
/// moments mean an equal zone view for every seat, without building it: `tabula view` builds
/// again only the zones whose numbers changed.
pub fn zone_inputs(game: &Game, z: ZoneId, out: &mut Vec<i64>) {
    let defs = &**game.rules();
    let state = game.state();
    out.clear();
    let mut pieces = Vec::new();
    state.pieces_in_into(defs, z, &mut pieces);
    for p in pieces {
        let def = &defs.pieces[p as usize];
        out.extend([i64::from(p), i64::from(state.is_face_up(p))]);
        for (i, prop) in defs.kinds[def.kind as usize].props.iter().enumerate().filter(|(_, p)| p.shown) {
            let value = state.prop(def.prop_base + i);
            out.push(value);
            if matches!(prop.kind, PropKind::Piece(_)) && value >= 0 && (value as usize) < defs.pieces.len() {
                let referenced = value as PieceId;
                out.extend([i64::from(state.zone_of(referenced)), i64::from(state.is_face_up(referenced))]);
            }
        }
    }
}

/// Everything of [`view`] but the zones (its `zones` are left empty): for a tool that follows
/// the zones itself, zone by zone.
pub fn view_but_zones(game: &Game, seat: Option<SeatId>) -> View {
    let defs = &**game.rules();
    let state = game.state();
    let mut counters = IndexMap::new();
    for (c, def) in defs.counters.iter().enumerate() {
        // Bookkeeping, and the counters of seats that do not play, are not shown to people.
        let shown = def.shown && def.owner.is_none_or(|s| defs.seat_in_play(s, game.players()));
        if shown && counter_shown(def, seat) {
            counters.insert(def.name.clone(), state.counter(c as u16));
        }
    }
    let zones = IndexMap::new();
    let decision = match seat.and_then(|s| game.prompt_for(s)) {
        Some(p) => {
            let def = &defs.actions[p.action as usize];
            let fixed: Vec<String> = def
                .params
                .iter()
                .zip(&p.fixed)
                .map(|(param, v)| match v {
                    Some(v) => crate::event::describe_value(defs, v),
                    None => format!("<{}>", param.name),
                })
                .collect();
            Some(format!("{} {}", def.name, fixed.join(" ")).trim_end().to_string())
        }
        _ => None,
    };
    View {
        seat: seat.map(|s| defs.seats[s as usize].name.clone()),
        phase: game.phase().to_string(),
        clock_ms: game.clock(),
        outcome: game.outcome().map(str::to_string),
        counters,
        zones,
        to_act: game.to_act().iter().map(|&s| defs.seats[s as usize].name.clone()).collect(),
        decision,
        seats: (0..defs.seats.len() as SeatId)
            .filter(|&s| defs.seat_in_play(s, game.players()))
            .map(|s| defs.seats[s as usize].name.clone())
            .collect(),
        grid_sides: grid_sides(defs, game.players()),
    }
}

/// A fingerprint of what `seat` sees now, the clock aside: equal views give equal fingerprints
/// (and different ones, different fingerprints but for hash collisions). The real-time
/// scheduler wakes a waiting seat when its fingerprint changes, so that a change the seat cannot
/// see does not tell it, by waking it, that something happened. Built without allocating: it is
/// taken for every waiting seat after every change.
pub fn sight_fingerprint(game: &Game, seat: SeatId) -> u64 {
    seat_fingerprint(game, seat, table_fingerprint(game, seat))
}

/// The part of [`sight_fingerprint`] that is what `seat` sees of the table (phase, outcome,
/// counters, pieces, timers); the rest is who may act and the seat's own prompt. It is the same
/// for every seat when [`sight_is_shared`], so a scheduler may take it once per change for all.
pub fn table_fingerprint(game: &Game, seat: SeatId) -> u64 {
    use std::hash::Hasher;
    let defs = &**game.rules();
    let state = game.state();
    let mut h = rustc_hash::FxHasher::default();
    h.write_u16(state.phase);
    h.write_i32(state.outcome.map_or(-1, i32::from));
    for (c, def) in defs.counters.iter().enumerate() {
        if counter_shown(def, Some(seat)) {
            h.write_i64(state.counter(c as u16));
        }
    }
    let write_piece = |h: &mut rustc_hash::FxHasher, z: ZoneId, p: PieceId| {
        h.write_u16(z);
        h.write_u16(p);
        h.write_u8(u8::from(state.is_face_up(p)));
        let piece = &defs.pieces[p as usize];
        let props = &defs.kinds[piece.kind as usize].props;
        let values = state.props.get(piece.prop_base..piece.prop_base + props.len()).unwrap_or_default();
        for (i, (def, &value)) in props.iter().zip(values).enumerate() {
            // Only a reference to another piece can be hidden (see `may_show_prop`).
            let shown = !matches!(def.kind, PropKind::Piece(_)) || may_show_prop(defs, state, Some(seat), p, i, value);
            h.write_i64(if shown { value } else { i64::MIN });
        }
    };
    // Pieces of unordered zones in one pass, in id order.
    for p in 0..defs.pieces.len() as PieceId {
        let z = state.zone_of(p);
        if !defs.zones[z as usize].ordered && visible(defs, state, Some(seat), z, p) {
            write_piece(&mut h, z, p);
        }
    }
    for (z, def) in defs.zones.iter().enumerate() {
        let z = z as ZoneId;
        let sight = def.sight(seat);
        if sight != Sight::None {
            h.write_u32(state.count(z));
        }
        // Ordered zones in their order (the order of what is seen is seen too).
        if def.ordered && state.count(z) > 0 {
            let pieces = state.pieces_in(defs, z);
            let top = pieces.first().copied().filter(|_| sight == Sight::Top);
            for p in pieces {
                if visible(defs, state, Some(seat), z, p) || Some(p) == top {
                    write_piece(&mut h, z, p);
                }
            }
        }
    }
    // Timers are public: a timer that fires is seen by everyone, even if it changes nothing.
    h.write_usize(state.next_timer);
    h.finish()
}

/// [`sight_fingerprint`] from the seat's [`table_fingerprint`]: who may act, and the seat's
/// own prompt.
pub fn seat_fingerprint(game: &Game, seat: SeatId, table: u64) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write_u64(table);
    for s in game.acting() {
        h.write_u8(s);
    }
    if let Some(p) = game.prompt_for(seat) {
        h.write_u16(p.action);
        std::hash::Hash::hash(&p.fixed, &mut h);
    }
    h.finish()
}

impl View {
    /// The view as text: one line per counter set and per non-empty zone, every piece by name.
    /// Used by snapshot tests and `--verbose`.
    pub fn render(&self) -> String {
        self.render_full()
    }

    /// The view as people read it at a terminal `width` columns wide, in at most
    /// [`SCREEN_LINES`] lines: see [`View::render_fitted`].
    pub fn render_compact(&self, width: usize) -> String {
        self.render_fitted(width, SCREEN_LINES)
    }

    /// Every counter, zone and piece, as `render` writes them.
    fn render_full(&self) -> String {
        let mut out = String::new();
        let who = self.seat.as_deref().unwrap_or("everyone (omniscient)");
        out.push_str(&format!("view of {who}: phase {}", self.phase));
        if self.clock_ms != 0 {
            out.push_str(&format!(", clock {}", format_clock(self.clock_ms)));
        }
        out.push('\n');
        if let Some(o) = &self.outcome {
            out.push_str(&format!("game over: {o}\n"));
        }
        let line =
            |out: &mut String, head: &str, items: &[String]| out.push_str(&format!("{head}{}\n", items.join(", ")));
        if !self.counters.is_empty() {
            let items: Vec<String> = self.counters.iter().map(|(k, v)| format!("{k} {v}")).collect();
            line(&mut out, "counters: ", &items);
        }
        for (name, z) in &self.zones {
            if z.count == Some(0) || (z.count.is_none() && z.pieces.is_empty()) {
                continue;
            }
            let mut items: Vec<String> = z.pieces.iter().map(|p| piece_text(p).0).collect();
            if z.hidden > 0 {
                items.push(format!("{} hidden", z.hidden));
            }
            line(&mut out, &format!("  {name}: "), &items);
        }
        if let Some(d) = &self.decision {
            out.push_str(&format!("decide: {d}\n"));
        } else if !self.to_act.is_empty() {
            out.push_str(&format!("waiting for: {}\n", self.to_act.join(", ")));
        }
        out
    }
}

/// A piece as `render` writes it, and the same without its name (what two pieces must share to
/// be folded together).
fn piece_text(p: &PieceView) -> (String, String) {
    let props: Vec<String> = p.props.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let face = if p.face_up { "" } else { " (face down)" };
    let looks = if props.is_empty() { face.to_string() } else { format!("[{}]{face}", props.join(" ")) };
    (format!("{}{looks}", p.name), looks)
}

/// A piece's name without the number `count` gives it (`coin` for `coin_3`).
fn base_name(name: &str) -> &str {
    match name.rsplit_once('_') {
        Some((base, n)) if !base.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

/// Writes `head` and the items joined by commas, breaking lines at item boundaries so that
/// each fits in `width` columns (continuation lines indented by four), and an item too long
/// for a line of its own at its spaces (indented by six).
fn wrap_items(out: &mut String, head: &str, items: &[String], width: usize) {
    let mut line = head.to_string();
    let mut first = true;
    for (k, item) in items.iter().enumerate() {
        let sep = if k + 1 < items.len() { "," } else { "" };
        let piece = format!("{}{item}{sep}", if first { "" } else { " " });
        if line.chars().count() + piece.chars().count() <= width {
            line.push_str(&piece);
        } else {
            if !first {
                out.push_str(line.trim_end());
                out.push('\n');
                line = "    ".to_string();
            }
            // The item word by word: a piece with many properties is longer than a line.
            let text = format!("{item}{sep}");
            for (w, word) in text.split(' ').enumerate() {
                let space = if w == 0 { "" } else { " " };
                if w > 0 && line.chars().count() + 1 + word.chars().count() > width {
                    out.push_str(line.trim_end());
                    out.push('\n');
                    line = format!("      {word}");
                } else {
                    line.push_str(space);
                    line.push_str(word);
                }
            }
        }
        first = false;
    }
    out.push_str(&line);
    out.push('\n');
}

/// The width of the terminal's screens: the views are wrapped to it.
pub const SCREEN_WIDTH: usize = 120;

/// The height of the terminal's screens: a decision's screen (what changed, the view, the
/// options and the prompt) fits in it.
pub const SCREEN_LINES: usize = 40;

/// `mm:ss.mmm` for a game time in milliseconds.
pub fn format_clock(ms: i64) -> String {
    format!("{:02}:{:02}.{:03}", ms / 60_000, (ms / 1000) % 60, ms % 1000)
}

/// The legal actions of a seat as text, numbered from 1 (the terminal player's menu).
pub fn describe_options(game: &Game, seat: SeatId) -> Vec<String> {
    let defs = &**game.rules();
    game.legal_actions(seat).unwrap_or_default().iter().map(|a| describe_action(defs, a)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_wrap_at_item_boundaries_within_the_width() {
        let items: Vec<String> = (1..=30).map(|i| format!("item_{i}")).collect();
        let mut out = String::new();
        wrap_items(&mut out, "  zone: ", &items, 40);
        assert!(out.lines().all(|l| l.chars().count() <= 40), "{out}");
        assert!(out.starts_with("  zone: item_1, item_2,") && out.lines().nth(1).unwrap().starts_with("    item_"));
        // Every item is still there, once, in order.
        let joined: Vec<&str> = out.split([',', '\n', ' ']).filter(|w| w.starts_with("item_")).collect();
        assert_eq!(joined, items.iter().map(String::as_str).collect::<Vec<_>>());
    }

    #[test]
    fn an_item_longer_than_a_line_breaks_at_its_spaces() {
        let long = format!("tile_1[{}]", (0..12).map(|i| format!("side_{i}=1")).collect::<Vec<_>>().join(" "));
        let items = vec!["a".to_string(), long.clone(), "b".to_string()];
        let mut out = String::new();
        wrap_items(&mut out, "  zone: ", &items, 40);
        assert!(out.lines().all(|l| l.chars().count() <= 40), "{out}");
        assert!(out.lines().any(|l| l.starts_with("      side_")), "{out}");
        let words: Vec<&str> = out.split_whitespace().collect();
        assert_eq!(words.join(" "), format!("zone: a, {long}, b"));
    }
}
