//! Remembered results of script functions called with plain values only.
//!
//! A script function sees nothing but its arguments (Rhai functions do not see the caller's
//! variables, and the scripts' constants are folded in when they are compiled). Called with
//! no handle (no `game`, no `view`: only `()`, booleans, integers, characters and strings), a
//! compiled function cannot reach the game, so its result depends on its arguments alone:
//! `space_type("room_chapel")` is `"room"` at every call. Such a call's result is remembered
//! the first time, with what the call cost against the scripts' limits, and the next call with
//! equal arguments gives it back instead of running the function again: the same value, the
//! same operations counted, and it fails the same way where the run would have passed a limit
//! (it then runs, and fails where it fails).
//!
//! Helpers like that run for every link of every piece at every decision, which is why this
//! pays: a board game may read the type of a space off its name tens of thousands of times a game.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};

use rhai::Dynamic;
use rustc_hash::{FxHashMap, FxHasher};

/// At most this many results are kept per program (per thread): a ruleset calling a function
/// with ever new arguments stops filling the table there (the calls past it simply run).
const MAX_ENTRIES: usize = 1 << 16;

/// One remembered call.
struct Entry {
    function: usize,
    args: Box<[Dynamic]>,
    result: Dynamic,
    /// The operations the call counted, its own call among them.
    ops: u64,
    /// How many call levels deeper than the call itself the deepest call inside it checked.
    depth: usize,
}

/// The remembered calls of a program, by a hash of the function and its arguments.
#[derive(Default)]
pub(super) struct Memo {
    table: RefCell<FxHashMap<u64, Vec<Entry>>>,
    entries: std::cell::Cell<usize>,
}

/// What a call's limits were when it looked its result up: the caller adds the operations a
/// remembered call counted, if they fit.
pub(super) struct Limits {
    pub(super) ops: u64,
    pub(super) level: usize,
}

/// What looking a call up found.
pub(super) enum Lookup {
    /// Its result: no need to run it.
    Hit(Hit),
    /// Nothing yet: run it, and remember what it gives.
    Absent,
    /// Run it and forget it: remembered, but from here it would pass a limit (it runs, to fail
    /// where it fails), or the table is full.
    Run,
}

/// A remembered result, with the operations to count for it.
pub(super) struct Hit {
    pub(super) result: Dynamic,
    pub(super) ops: u64,
    /// The call levels it went down (see `Entry::depth`): a call around it went that deep too.
    pub(super) depth: usize,
}

impl Memo {
    /// The key of a call of `function` with `args`, if every argument is a plain value.
    pub(super) fn key(function: usize, args: &[Dynamic]) -> Option<u64> {
        let mut h = FxHasher::default();
        function.hash(&mut h);
        for a in args {
            if a.is_unit() {
                0u8.hash(&mut h);
            } else if let Ok(b) = a.as_bool() {
                (1u8, b).hash(&mut h);
            } else if let Ok(n) = a.as_int() {
                (2u8, n).hash(&mut h);
            } else if let Ok(c) = a.as_char() {
                (3u8, c).hash(&mut h);
            } else if let Some(s) = a.read_lock::<rhai::ImmutableString>() {
                4u8.hash(&mut h);
                s.as_str().hash(&mut h);
            } else {
                return None;
            }
        }
        Some(h.finish())
    }

    /// The remembered result of `function` on `args` (under `key`).
    pub(super) fn get(&self, key: u64, function: usize, args: &[Dynamic], now: &Limits) -> Lookup {
        let table = self.table.borrow();
        let Some(entry) =
            table.get(&key).and_then(|v| v.iter().find(|e| e.function == function && same(&e.args, args)))
        else {
            return if self.entries.get() < MAX_ENTRIES { Lookup::Absent } else { Lookup::Run };
        };
        let fits = now.ops + entry.ops <= crate::script::MAX_OPERATIONS
            && now.level + entry.depth <= crate::script::MAX_CALL_LEVELS;
        if fits {
            Lookup::Hit(Hit { result: entry.result.clone(), ops: entry.ops, depth: entry.depth })
        } else {
            Lookup::Run
        }
    }

    /// Remembers a call's result.
    pub(super) fn put(
        &self,
        key: u64,
        function: usize,
        args: Box<[Dynamic]>,
        result: &Dynamic,
        ops: u64,
        depth: usize,
    ) {
        self.entries.set(self.entries.get() + 1);
        let entry = Entry { function, args, result: result.clone(), ops, depth };
        self.table.borrow_mut().entry(key).or_default().push(entry);
    }
}

/// Whether two lists of plain values are equal, value for value and type for type.
fn same(a: &[Dynamic], b: &[Dynamic]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            if x.type_id() != y.type_id() {
                return false;
            }
            match (x.read_lock::<rhai::ImmutableString>(), y.read_lock::<rhai::ImmutableString>()) {
                (Some(x), Some(y)) => x.as_str() == y.as_str(),
                _ => {
                    x.as_int().ok() == y.as_int().ok()
                        && x.as_bool().ok() == y.as_bool().ok()
                        && x.as_char().ok() == y.as_char().ok()
                }
            }
        })
}
