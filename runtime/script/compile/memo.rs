//! Remembered results of script functions called with plain values (and handles).
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
//! unchanged; the work its natives counted against the engine's allowance is counted again. A
//! call given a `view` is remembered so too, keyed by the view's seat besides its arguments:
//! what a seat sees depends on the seat, and on nothing the `View` natives do not note.
//!
//! Plain values include lists and maps of them, hashed and compared item by item. Calls given a
//! handle, a list or a map are remembered only while that pays (a trial of 64 look-ups, then
//! the running account of what hits saved against what look-ups and misses cost).

use std::cell::RefCell;
use std::hash::{Hash, Hasher};

use rhai::Dynamic;
use rustc_hash::{FxHashMap, FxHasher};

use crate::rules::defs::{Defs, SeatId};
use crate::script::reads;
use crate::script::values::same_value;
use crate::state::State;

/// At most this many results are kept per program (per thread), and at most [`MAX_ITEMS`] items
/// of lists and maps in their arguments and results: a table past either is emptied, and fills
/// again with the calls made from there. A function given a seat's situation as a map is called
/// with ever new ones as the game goes on, and only the last few are asked again: a table that
/// kept them all would grow with every game played.
const MAX_ENTRIES: usize = 1 << 16;

/// At most this many items of lists and maps are kept in a program's table (see
/// [`MAX_ENTRIES`]): a few megabytes.
const MAX_ITEMS: usize = 1 << 16;

/// One remembered call.
struct Entry {
    function: usize,
    /// The seat of the `view` it was given, if any.
    seat: Option<SeatId>,
    args: Box<[Dynamic]>,
    result: Dynamic,
    /// The operations the call counted, its own call among them.
    ops: u64,
    /// How many call levels deeper than the call itself the deepest call inside it checked.
    depth: usize,
    /// What the call read of the game, and the values it found (a call given the `game`).
    reads: Option<Read>,
    /// For a call given a handle, a list or a map: what giving its result back saves against
    /// running it, in rough instructions (negative where the look-up costs more; see [`cost`]).
    saves: i64,
    /// The items of lists and maps in its arguments and result.
    items: usize,
}

/// What a call given the `game` handle read of it (see `script/reads.rs`).
pub(super) struct Read {
    pub(super) what: Box<[reads::Read]>,
    pub(super) values: Box<[i64]>,
    /// The work its natives counted against the engine's allowance (`MAX_ENGINE_WORK`).
    pub(super) work: u64,
    /// How many reads its natives noted, repeats included (see `reads::Closed`).
    pub(super) noted: usize,
}

/// The game a call was given, to compare what it read with: its definitions, its state, and
/// the work counted so far in the running hook.
pub(super) struct Seen<'a> {
    pub(super) defs: &'a Defs,
    pub(super) state: &'a State,
    pub(super) work: u64,
    /// The seat of a `view` handle (`None` for the `game`).
    pub(super) seat: Option<SeatId>,
}

/// A call's key: a hash of the function, its arguments and the seat of a `view` it was given.
#[derive(Clone, Copy)]
pub(super) struct Key {
    pub(super) hash: u64,
    /// How many items its list and map arguments hold, nested ones counted: what hashing and
    /// comparing them costs.
    pub(super) items: usize,
}

/// A call's arguments as the memo sees them: those passed on the stack, and the lists and maps
/// lent from the caller's variables (`()` on the stack in their place), read where they lie.
#[derive(Clone, Copy)]
pub(super) struct Args<'a> {
    passed: &'a [Dynamic],
    /// The lent values by argument, if any is lent.
    lent: Option<&'a [Option<&'a Dynamic>; 8]>,
}

impl<'a> Args<'a> {
    /// Arguments all passed on the stack.
    pub(super) fn passed(passed: &'a [Dynamic]) -> Self {
        Args { passed, lent: None }
    }

    /// Arguments passed on the stack but those `lent` gives.
    pub(super) fn lent(passed: &'a [Dynamic], lent: &'a [Option<&'a Dynamic>; 8]) -> Self {
        Args { passed, lent: Some(lent) }
    }

    /// Argument `k` (of `len()`).
    fn get(&self, k: usize) -> &'a Dynamic {
        match self.lent {
            Some(lent) => lent.get(k).copied().flatten().unwrap_or(&self.passed[k]),
            None => &self.passed[k],
        }
    }

    fn len(&self) -> usize {
        self.passed.len()
    }

    /// A copy of the arguments, to remember.
    pub(super) fn to_owned(self) -> Box<[Dynamic]> {
        (0..self.len()).map(|k| self.get(k).clone()).collect()
    }
}

/// The remembered calls of a program, by a hash of the function and its arguments.
#[derive(Default)]
pub(super) struct Memo {
    table: RefCell<FxHashMap<u64, Vec<Entry>>>,
    entries: std::cell::Cell<usize>,
    /// The items of lists and maps in the arguments and results kept.
    items: std::cell::Cell<usize>,
    /// For each function, its calls given the game looked up, and what remembering them has
    /// gained so far (see [`Memo::worth_trying`]).
    tried: RefCell<Vec<Trial>>,
}

/// Calls given the game of a function looked up before it is judged (see [`Memo::worth_trying`]).
const TRIAL_CALLS: u64 = 64;

/// A function's calls given the game looked up so far, and what remembering them gained: what
/// the hits saved less what the look-ups and the keeping cost, in rough instructions.
#[derive(Clone, Copy, Default)]
struct Trial {
    lookups: u64,
    gain: i64,
}

/// What remembering a call given the game costs and saves, in rough instructions (only the
/// speed depends on them). Running the call costs its operations and the natives it calls that
/// read the game, each looking at what it notes; a look-up hashes and compares the arguments,
/// reads the same values again to compare them, and clones the result; a miss besides notes the
/// reads while the call runs, takes their values and keeps a copy of the result. A function of
/// a statement or two that reads a hand and gives back a map (`held_items`: one `tally`) saves
/// a little at a hit and costs more at a miss: unless its answers nearly always stand, it is
/// run. The constants were set by measuring whole games with cachegrind, not each function (a
/// native such as `count` notes a whole zone and looks at less of it).
mod cost {
    /// An operation of compiled code (a statement or a call, with the expressions in it).
    pub(super) const OPERATION: i64 = 100;
    /// A native that reads the game, besides the values it reads: its arguments converted, the
    /// names it is given looked up, its result built.
    pub(super) const NATIVE: i64 = 100;
    /// One value of what a call read of the game (a piece, a face, a property...), looked at
    /// by a native (a filter tested on a piece, a count kept).
    pub(super) const READ: i64 = 6;
    /// One value of what a call read of the game, taken or compared again.
    pub(super) const VALUE: i64 = 4;
    /// A look-up: the arguments hashed and compared, the reads listed again.
    pub(super) const LOOKUP: i64 = 120;
    /// An item of a list or a map in a result, cloned.
    pub(super) const ITEM: i64 = 20;
    /// A read noted, sorted and kept while a call to remember runs.
    pub(super) const NOTE: i64 = 15;
    /// An item of a list or a map in the arguments, hashed and compared.
    pub(super) const ARGUMENT: i64 = 40;
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
    /// The engine work to count again, for a call given the `game`.
    pub(super) work: u64,
}

impl Memo {
    /// The key of a call of `function` with `args`, if every argument is a plain value, or a list
    /// or a map of them; `lent` marks the arguments that are a handle (`()` in `args`), and
    /// `seat` is the seat of a `view` handle among them (what the call sees depends on it).
    pub(super) fn key(function: usize, args: Args, lent: u8, seat: Option<SeatId>) -> Option<Key> {
        let mut h = FxHasher::default();
        (function, lent, seat).hash(&mut h);
        let mut items = 0;
        for k in 0..args.len() {
            if !hash_value(&mut h, args.get(k), &mut items) {
                return None;
            }
        }
        Some(Key { hash: h.finish(), items })
    }

    /// Whether calls of `function` given the game are worth remembering: after a trial of
    /// [`TRIAL_CALLS`] look-ups, a function is run each time unless remembering it has gained
    /// more than it cost (see [`cost`]): one whose answers rarely stand (what it reads changes
    /// from one call to the next), and one so cheap that a look-up costs about what running it
    /// does. Only the speed depends on it.
    pub(super) fn worth_trying(&self, function: usize) -> bool {
        let tried = self.tried.borrow();
        let trial = tried.get(function).copied().unwrap_or_default();
        trial.lookups < TRIAL_CALLS || trial.gain >= 0
    }

    /// Counts what a look-up of a call of `function` given the game gained (a hit) or cost.
    fn tried(&self, function: usize, lookup: bool, gain: i64) {
        let mut tried = self.tried.borrow_mut();
        if tried.len() <= function {
            tried.resize(function + 1, Trial::default());
        }
        tried[function].lookups += u64::from(lookup);
        tried[function].gain = tried[function].gain.saturating_add(gain);
    }

    /// The remembered result of `function` on `args` (under `key`); `game` is the game a call
    /// given a handle (the `game` or a `view`) was given.
    pub(super) fn get(&self, key: Key, function: usize, args: Args, now: &Limits, game: Option<&Seen>) -> Lookup {
        let table = self.table.borrow();
        let seat = game.and_then(|g| g.seat);
        let judged = game.is_some() || key.items > 0;
        let lookup = cost::LOOKUP + cost::ARGUMENT * key.items as i64;
        let Some(entry) = table
            .get(&key.hash)
            .and_then(|v| v.iter().find(|e| e.function == function && e.seat == seat && same(&e.args, args)))
        else {
            if judged {
                self.tried(function, true, -lookup);
            }
            return Lookup::Absent;
        };
        let work = match (&entry.reads, game) {
            (None, None) => {
                if judged {
                    self.tried(function, true, entry.saves);
                }
                0
            }
            (Some(read), Some(game)) => {
                if !reads::unchanged(game.defs, game.state, &read.what, &read.values) {
                    // The game changed under it: run it, and remember it anew.
                    self.tried(function, true, -lookup - cost::VALUE * read.values.len() as i64);
                    return Lookup::Absent;
                }
                self.tried(function, true, entry.saves);
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
        key: Key,
        function: usize,
        args: Box<[Dynamic]>,
        seat: Option<SeatId>,
        result: &Dynamic,
        ops: u64,
        depth: usize,
        reads: Option<Read>,
    ) {
        let mut saves = 0;
        let sizes = super::ctx::data_sizes(result);
        let kept = key.items + sizes.arrays + sizes.maps;
        if reads.is_some() || key.items > 0 {
            let (values, noted) = reads.as_ref().map_or((0, 0), |r| (r.values.len() as i64, r.noted as i64));
            let items = cost::ITEM * (sizes.arrays + sizes.maps) as i64;
            let arguments = cost::ARGUMENT * key.items as i64;
            let ops = ops.min(crate::script::MAX_OPERATIONS) as i64;
            let run = cost::OPERATION * ops + cost::NATIVE * noted + cost::READ * values;
            saves = run - (cost::LOOKUP + arguments + cost::VALUE * values + items);
            // Remembering it cost the reads noted, their values taken, the arguments and the
            // result kept.
            self.tried(
                function,
                false,
                -(cost::NOTE * noted + cost::VALUE * values + cost::ITEM * key.items as i64 + items),
            );
        }
        let entry = Entry { function, seat, args, result: result.clone(), ops, depth, reads, saves, items: kept };
        let mut table = self.table.borrow_mut();
        let calls = table.entry(key.hash).or_default();
        match calls
            .iter_mut()
            .find(|e| e.function == function && e.seat == seat && same(&e.args, Args::passed(&entry.args)))
        {
            Some(old) => {
                self.items.set(self.items.get() - old.items + kept);
                *old = entry;
            }
            None => {
                if self.entries.get() >= MAX_ENTRIES || self.items.get() + kept > MAX_ITEMS {
                    // Full: empty it, and keep what the calls from here give.
                    table.clear();
                    self.entries.set(0);
                    self.items.set(0);
                }
                self.entries.set(self.entries.get() + 1);
                self.items.set(self.items.get() + kept);
                table.entry(key.hash).or_default().push(entry);
            }
        }
    }
}

/// Whether remembered arguments equal a call's, value for value and type for type.
fn same(a: &[Dynamic], b: Args) -> bool {
    match b.lent {
        None => a.len() == b.passed.len() && a.iter().zip(b.passed).all(|(x, y)| same_value(x, y)),
        Some(_) => a.len() == b.len() && a.iter().enumerate().all(|(k, x)| same_value(x, b.get(k))),
    }
}

/// Hashes a plain value, or a list or a map of them, counting the items of lists and maps in
/// `items`; `false` for anything else (a handle, a function pointer, a float...).
#[inline]
fn hash_value(h: &mut FxHasher, a: &Dynamic, items: &mut usize) -> bool {
    match hash_plain(h, a) {
        Some(hashed) => hashed,
        None => hash_values(h, a, items),
    }
}

/// [`hash_value`] for a plain value: whether it is one (and was hashed), `None` for a list or a
/// map, which [`hash_values`] hashes. Inlined: most arguments are plain.
#[inline(always)]
fn hash_plain(h: &mut FxHasher, a: &Dynamic) -> Option<bool> {
    Some(if a.is_int() {
        (2u8, a.as_int().unwrap_or_default()).hash(h);
        true
    } else if a.is_string() {
        4u8.hash(h);
        if let Some(s) = a.read_lock::<rhai::ImmutableString>() {
            s.as_str().hash(h);
        }
        true
    } else if a.is_bool() {
        (1u8, a.as_bool().unwrap_or_default()).hash(h);
        true
    } else if a.is_unit() {
        0u8.hash(h);
        true
    } else if a.is_char() {
        (3u8, a.as_char().unwrap_or_default()).hash(h);
        true
    } else if a.is_array() || a.is_map() {
        return None;
    } else {
        false
    })
}

/// [`hash_value`] for a list or a map.
fn hash_values(h: &mut FxHasher, a: &Dynamic, items: &mut usize) -> bool {
    if let Some(list) = a.read_lock::<rhai::Array>() {
        (5u8, list.len()).hash(h);
        *items += list.len();
        return list.iter().all(|v| hash_value(h, v, items));
    }
    if let Some(map) = a.read_lock::<rhai::Map>() {
        (6u8, map.len()).hash(h);
        *items += map.len();
        return map.iter().all(|(k, v)| {
            k.as_str().hash(h);
            hash_value(h, v, items)
        });
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls `function` `n` times with the same arguments, looked up and remembered as the
    /// compiled code does, on a game whose player count goes 2, 2, 3, 3, 2, 2...: a call of
    /// `ops` operations that reads `values` values of the game (with one native) and gives back
    /// `result`, whose answer stands every other call. How many were given back.
    fn calls(memo: &Memo, function: usize, ops: u64, values: usize, result: &Dynamic, n: usize) -> usize {
        let defs = Defs::default();
        let games = [State::initial(&defs, 2, 1), State::initial(&defs, 3, 1)];
        let args = [Dynamic::UNIT, Dynamic::from("red")];
        let mut given = 0;
        for call in 0..n {
            if !memo.worth_trying(function) {
                continue;
            }
            let state = &games[call / 2 % 2];
            let seen = Seen { defs: &defs, state, work: 0, seat: None };
            let key = Memo::key(function, Args::passed(&args), 1, None).expect("plain arguments");
            match memo.get(key, function, Args::passed(&args), &Limits { ops: 0, level: 0 }, Some(&seen)) {
                Lookup::Hit(_) => given += 1,
                Lookup::Absent => {
                    let what: Box<[reads::Read]> = vec![reads::Read::Players; values].into();
                    let mut now = Vec::new();
                    reads::values(&defs, state, &what, &mut now);
                    let read = Read { what, values: now.into(), work: 0, noted: 1 };
                    memo.put(key, function, args.clone().into(), None, result, ops, 0, Some(read));
                }
                Lookup::Run => {}
            }
        }
        given
    }

    #[test]
    fn a_function_is_remembered_only_where_its_hits_save_more_than_its_look_ups_cost() {
        // What a hand holds, item by item: a map of five counts.
        let hand: rhai::Map =
            ["wood", "spoon", "rope", "knife", "key"].into_iter().map(|k| (k.into(), Dynamic::from_int(1))).collect();
        let hand = Dynamic::from_map(hand);
        let memo = Memo::default();
        // Like `held_items`: one statement, one `tally` of a hand of 40 values, whose answer
        // stands every other call (a hit saves the statement, a miss costs the hand read
        // twice more and the map cloned): it is run after its trial.
        let cheap = calls(&memo, 0, 2, 40, &hand, 200);
        assert!(!memo.worth_trying(0));
        assert_eq!(cheap, TRIAL_CALLS as usize / 2);
        // The same reads and result behind fifty operations: remembered for good.
        let dear = calls(&memo, 1, 50, 40, &hand, 200);
        assert!(memo.worth_trying(1));
        assert_eq!(dear, 100);
    }
}
