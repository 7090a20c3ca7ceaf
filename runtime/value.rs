//! Plain values of the rules: an action and its typed arguments. They sit below the state (which
//! records them) and the event stream (which describes them), and refer to definitions by id.

use std::fmt;
use std::ops::{Deref, DerefMut};

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
    /// A set of pieces: bit `i` is the `i`th piece of its parameter's universe
    /// (`rules::SetDomain`). Its meaning needs the parameter.
    Set(u64),
}

/// An action taken, or that could be taken, by a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Action {
    /// Who acts.
    pub seat: SeatId,
    /// The action's definition.
    pub action: ActionId,
    /// One value per parameter, in declaration order.
    pub args: Args,
}

// Inline lists of an action's arguments: an action has at most `MAX_PARAMS` parameters (the
// loader refuses more), so its arguments, and a prompt's fixed ones, fit in a small array kept
// in place. Actions are then `Copy`, and enumerating, copying or checking them allocates
// nothing (a simulation lists the legal actions at every decision).

/// The most parameters an action may declare.
pub const MAX_PARAMS: usize = 4;

/// Defines an inline list type of at most `MAX_PARAMS` items of `$item` (a `Copy` type),
/// unused slots holding `$filler`, which never shows: the list reads as the slice of its items.
macro_rules! inline_list {
    ($(#[$doc:meta])* $name:ident, $item:ty, $filler:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name {
            len: u8,
            items: [$item; MAX_PARAMS],
        }

        impl $name {
            /// No items.
            pub const fn new() -> Self {
                $name { len: 0, items: [$filler; MAX_PARAMS] }
            }

            /// `len` copies of `item`, or `None` if that is more than `MAX_PARAMS`.
            pub fn filled(item: $item, len: usize) -> Option<Self> {
                let mut out = Self::new();
                for _ in 0..len {
                    out.push(item).ok()?;
                }
                Some(out)
            }

            /// These items, or `None` if there are more than `MAX_PARAMS`.
            pub fn from_slice(items: &[$item]) -> Option<Self> {
                let mut out = Self::new();
                for &item in items {
                    out.push(item).ok()?;
                }
                Some(out)
            }

            /// Adds an item at the end, or gives it back when the list is full.
            pub fn push(&mut self, item: $item) -> Result<(), $item> {
                let Some(slot) = self.items.get_mut(self.len as usize) else { return Err(item) };
                *slot = item;
                self.len += 1;
                Ok(())
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl Deref for $name {
            type Target = [$item];
            fn deref(&self) -> &[$item] {
                &self.items[..self.len as usize]
            }
        }

        impl DerefMut for $name {
            fn deref_mut(&mut self) -> &mut [$item] {
                &mut self.items[..self.len as usize]
            }
        }

        impl<'a> IntoIterator for &'a $name {
            type Item = &'a $item;
            type IntoIter = std::slice::Iter<'a, $item>;
            fn into_iter(self) -> Self::IntoIter {
                self.iter()
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                **self == **other
            }
        }

        impl Eq for $name {}

        impl std::hash::Hash for $name {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                (**self).hash(state)
            }
        }

        // Written as the list of its items, as a `Vec` would be.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.iter()).finish()
            }
        }
    };
}

inline_list!(
    /// An action's arguments, one per parameter in declaration order.
    Args,
    Value,
    Value::Int(0)
);

inline_list!(
    /// A prompt's arguments, one per parameter: `Some` where the prompt fixes it.
    Fixed,
    Option<Value>,
    None
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_reads_as_its_items_and_refuses_a_fifth() {
        let mut args = Args::from_slice(&[Value::Piece(3), Value::Int(-1)]).expect("two fit");
        assert_eq!(&*args, &[Value::Piece(3), Value::Int(-1)]);
        assert_eq!(format!("{args:?}"), format!("{:?}", vec![Value::Piece(3), Value::Int(-1)]));
        assert_ne!(args, Args::from_slice(&[Value::Piece(3)]).expect("one fits"));
        args.push(Value::Seat(0)).expect("a third fits");
        args.push(Value::Seat(1)).expect("a fourth fits");
        assert_eq!(args.push(Value::Seat(2)), Err(Value::Seat(2)));
        assert!(Args::from_slice(&[Value::Int(0); 5]).is_none());
        assert_eq!(Fixed::filled(None, 3).map(|f| f.len()), Some(3));
        assert!(Fixed::filled(None, 5).is_none());
    }
}
