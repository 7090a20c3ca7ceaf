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
//!
//! A call given the `game` handle besides plain values is remembered the same way, with what it
//! read of the game and those values (`script/reads.rs`), and given back only while they are
//! unchanged; the work its natives counted against the engine's allowance is counted again.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};

use rhai::Dynamic;
use rustc_hash::{FxHashMap, FxHasher};

use crate::rules::defs::Defs;
use crate::script::reads;
use crate::state::State;

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
    /// What the call read of the game, and the values it found (a call given the `game`).
    reads: Option<Read>,
}

/// What a call given the `game` handle read of it (see `script/reads.rs`).
pub(super) struct Read {
    pub(super) what: Box<[reads::Read]>,
    pub(super) values: Box<[i64]>,
    /// The work its natives counted against the engine's allowance (`MAX_ENGINE_WORK`).
    pub(super) work: u64,
}

/// The game a call was given, to compare what it read with: its definitions, its state, and
/// the work counted so far in the running hook.
pub(super) struct Seen<'a> {
    pub(super) defs: &'a Defs,
    pub(super) state: &'a State,
    pub(super) work: u64,
}

/// The remembered calls of a program, by a hash of the function and its arguments.
#[derive(Default)]
pub(super) struct Memo {
    table: RefCell<FxHashMap<u64, Vec<Entry>>>,
    entries: std::cell::Cell<usize>,
    /// For each function, its calls given the game looked up, and how many were given a
    /// result back (see [`Memo::worth_trying`]).
    tried: RefCell<Vec<(u64, u64)>>,
}

/// Calls given the game of a function looked up before it is judged (see [`Memo::worth_trying`]).
const TRIAL_CALLS: u64 = 64;
/// After the trial, a function's calls given the game go on being remembered while at least one
/// look-up in this many gives a result back: a miss (noting what the call reads, keeping it)
/// costs about what a hit saves in a small function.
const LOOKUPS_PER_HIT: u64 = 3;

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
    /// The engine work to count again, for a call given the `game`.
    pub(super) work: u64,
}

impl Memo {
    /// The key of a call of `function` with `args`, if every argument is a plain value; `lent`
    /// marks the arguments that are the `game` handle (`()` in `args`).
    pub(super) fn key(function: usize, args: &[Dynamic], lent: u8) -> Option<u64> {
        let mut h = FxHasher::default();
        (function, lent).hash(&mut h);
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

    /// Whether calls of `function` given the game are worth remembering: a function whose
    /// answers rarely stand (what it reads changes from one call to the next) is run each time
    /// after a trial of [`TRIAL_CALLS`] calls. Only the speed depends on it.
    pub(super) fn worth_trying(&self, function: usize) -> bool {
        let tried = self.tried.borrow();
        let (calls, hits) = tried.get(function).copied().unwrap_or((0, 0));
        calls < TRIAL_CALLS || hits * LOOKUPS_PER_HIT >= calls
    }

    /// Counts a look-up of a call of `function` given the game, and whether it was a hit.
    fn tried(&self, function: usize, hit: u64) {
        let mut tried = self.tried.borrow_mut();
        if tried.len() <= function {
            tried.resize(function + 1, (0, 0));
        }
        tried[function].0 += 1;
        tried[function].1 += hit;
    }

    /// The remembered result of `function` on `args` (under `key`); `game` is the game a call
    /// given the `game` handle was given.
    pub(super) fn get(&self, key: u64, function: usize, args: &[Dynamic], now: &Limits, game: Option<&Seen>) -> Lookup {
        let table = self.table.borrow();
        let Some(entry) =
            table.get(&key).and_then(|v| v.iter().find(|e| e.function == function && same(&e.args, args)))
        else {
            if game.is_some() {
                self.tried(function, 0);
            }
            return if self.entries.get() < MAX_ENTRIES { Lookup::Absent } else { Lookup::Run };
        };
        let work = match (&entry.reads, game) {
            (None, None) => 0,
            (Some(read), Some(game)) => {
                if !reads::unchanged(game.defs, game.state, &read.what, &read.values) {
                    // The game changed under it: run it, and remember it anew.
                    self.tried(function, 0);
                    return Lookup::Absent;
                }
                self.tried(function, 1);
                if game.work + read.work > crate::script::MAX_ENGINE_WORK {
                    return Lookup::Run;
                }
                reads::note_all(&read.what);
                read.work
            }
            _ => return Lookup::Run,
        };
        let fits = now.ops + entry.ops <= crate::script::MAX_OPERATIONS
            && now.level + entry.depth <= crate::script::MAX_CALL_LEVELS;
        if fits {
            Lookup::Hit(Hit { result: entry.result.clone(), ops: entry.ops, depth: entry.depth, work })
        } else {
            Lookup::Run
        }
    }

    /// Remembers a call's result (in place of what was remembered of the same call before).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn put(
        &self,
        key: u64,
        function: usize,
        args: Box<[Dynamic]>,
        result: &Dynamic,
        ops: u64,
        depth: usize,
        reads: Option<Read>,
    ) {
        let entry = Entry { function, args, result: result.clone(), ops, depth, reads };
        let mut table = self.table.borrow_mut();
        let calls = table.entry(key).or_default();
        match calls.iter_mut().find(|e| e.function == function && same(&e.args, &entry.args)) {
            Some(old) => *old = entry,
            None => {
                self.entries.set(self.entries.get() + 1);
                calls.push(entry);
            }
        }
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
