//! The visibility rule on a bare state: whether a seat sees a piece, and whether it may be shown
//! a property's value. It needs only the definitions and the state, so that the script handles
//! (below the flow of play) apply the same rule as `view` (above it).

use crate::rules::defs::{CounterDef, CounterSight, Defs, PieceId, PropKind, SeatId, Sight, ZoneId};
use crate::state::State;

/// The mask written for what a seat may not see: an argument in its copy of a log, a property
/// or name in a script agent's view.
pub const MASKED: &str = "?";

/// The visibility rule itself: `seat` (or, with `None`, an omniscient observer) sees a piece in
/// `zone` when it lies face up or the zone shows that seat everything.
pub(crate) fn visible(defs: &Defs, state: &State, seat: Option<SeatId>, zone: ZoneId, piece: PieceId) -> bool {
    match seat {
        None => true,
        Some(s) => state.is_face_up(piece) || defs.zones[zone as usize].sight(s) == Sight::All,
    }
}

/// Whether a counter's value is shown to `seat` (everything to an omniscient observer, `None`).
pub(crate) fn counter_shown(def: &CounterDef, seat: Option<SeatId>) -> bool {
    match (seat, def.visible) {
        (None, _) | (_, CounterSight::All) => true,
        (Some(s), CounterSight::Owner) => def.owner == Some(s),
        (Some(_), CounterSight::None) => false,
    }
}

/// Whether every seat sees the table alike: no zone shows its owner more than the others, and
/// no counter is shown to its owner only. What a seat sees then does not depend on the seat
/// (the rules above read the seat only through a zone's owner and a counter's owner).
pub fn sight_is_shared(defs: &Defs) -> bool {
    defs.zones.iter().all(|z| z.owner.is_none() || z.owner_sees == z.others_see)
        && defs.counters.iter().all(|c| c.visible != CounterSight::Owner || c.owner.is_none())
}

/// Whether the value of property `index` of `piece` may be shown to `seat`. A reference to a
/// piece the seat cannot see would tell which piece it is (the card a player just drew), so it
/// is shown only when the referenced piece is seen, or when it is the value the ruleset
/// declares for the piece (printed on it: a card that names another piece), which is no secret.
pub(crate) fn may_show_prop(
    defs: &Defs,
    state: &State,
    seat: Option<SeatId>,
    piece: PieceId,
    index: usize,
    value: i64,
) -> bool {
    match referenced_piece(defs, piece, index, value) {
        Some(referenced) => {
            defs.pieces[piece as usize].props.get(index) == Some(&value)
                || visible(defs, state, seat, state.zone_of(referenced), referenced)
        }
        None => true,
    }
}

/// The piece that property `index` of `piece`, of value `value`, refers to, if it is a
/// reference to a piece (the only kind of property [`may_show_prop`] may hide).
pub(crate) fn referenced_piece(defs: &Defs, piece: PieceId, index: usize, value: i64) -> Option<PieceId> {
    let def = &defs.pieces[piece as usize];
    match defs.kinds[def.kind as usize].props.get(index).map(|p| &p.kind) {
        Some(PropKind::Piece(_)) if value >= 0 && (value as usize) < defs.pieces.len() => Some(value as PieceId),
        _ => None,
    }
}
