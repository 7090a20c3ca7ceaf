//! Plain values of the rules: an action and its typed arguments. They sit below the state (which
//! records them) and the event stream (which describes them), and refer to definitions by id.

use crate::rules::defs::{ActionId, PieceId, SeatId, SymId, ZoneId};

/// A typed argument of an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// A piece.
    Piece(PieceId),
    /// A zone.
    Zone(ZoneId),
    /// A word.
    Word(SymId),
    /// An integer.
    Int(i64),
    /// A seat.
    Seat(SeatId),
}

/// An action taken, or that could be taken, by a seat.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Action {
    /// Who acts.
    pub seat: SeatId,
    /// The action's definition.
    pub action: ActionId,
    /// One value per parameter, in declaration order.
    pub args: Vec<Value>,
}
