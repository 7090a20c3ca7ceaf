//! Where the scripts' time goes: each compiled script function's calls, the time spent in it
//! (its own, and with everything it calls) and the Rhai operations it counted, for `tabula sim
//! --profile`.
//!
//! Off unless [`start`] turned it on: then a call of a function or a native costs one load of a
//! flag. On, each call of a compiled function or a native reads the clock twice and adds to a table of the thread it runs on, kept
//! per program (the rules' scripts and the agents' are two) by function index, so that nothing
//! is hashed or allocated per call. A thread's table joins the process's at [`flush`] (the
//! simulator flushes each thread after its games); [`take`] hands the sums over.
//!
//! Natives (tabula's, `steps`, `region_costs`..., and Rhai's own functions the compiled code
//! calls, `sort`, `keys`...) have rows of their own, by name: their time is not their caller's.
//! Functions left to Rhai's interpreter count as the calling function's own. A function that
//! calls itself counts its inner calls in its total again, as every profiler of call trees does.
//! Calls and operations do not depend on the machine; times do.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::Serialize;

/// Whether calls are being profiled, in every thread.
static ON: AtomicBool = AtomicBool::new(false);

/// The sums of the threads flushed so far, by function name.
static FLUSHED: Mutex<Option<HashMap<String, ProfileRow>>> = Mutex::new(None);

/// One script function's (or native's) sums.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ProfileRow {
    /// The function's name.
    pub function: String,
    /// Times it was called.
    pub calls: u64,
    /// Seconds spent in it, less those spent in the compiled functions and natives it called.
    pub self_seconds: f64,
    /// Seconds spent in it and everything it called.
    pub total_seconds: f64,
    /// Rhai operations it counted itself (each statement, expression and call counts one):
    /// the same on every machine. None for a native.
    pub self_operations: u64,
    /// Whether this is a native (tabula's or Rhai's), not a script function.
    pub native: bool,
}

/// A function's sums in one thread, before they are named.
#[derive(Clone, Copy, Default)]
struct Sums {
    calls: u64,
    self_nanos: u64,
    total_nanos: u64,
    self_ops: u64,
}

/// One thread's table: for each program (by address) its functions' sums by index and names;
/// and, for each call under way, the time and operations of the calls made inside it so far.
#[derive(Default)]
struct Table {
    programs: Vec<(usize, Vec<Sums>, Vec<String>)>,
    /// The natives' sums, by name.
    natives: HashMap<String, Sums>,
    open: Vec<(u64, u64)>,
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::default());
}

/// Turns profiling on for every thread, from empty tables.
pub fn start() {
    *FLUSHED.lock().unwrap_or_else(|e| e.into_inner()) = Some(HashMap::new());
    TABLE.with(|t| *t.borrow_mut() = Table::default());
    ON.store(true, Ordering::Relaxed);
}

/// Whether calls are profiled now.
#[inline]
pub(super) fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// A call under way: when it started, and the operations counted before it.
pub(super) struct Open {
    at: Instant,
    ops: u64,
}

/// Notes the start of a call, with the operations counted so far in the hook call.
pub(super) fn enter(ops: u64) -> Open {
    TABLE.with(|t| t.borrow_mut().open.push((0, 0)));
    Open { at: Instant::now(), ops }
}

/// Notes the end of the call `open` began: function `f` (named `name`) of the program at
/// `program`, with `ops` operations counted by then.
pub(super) fn leave(open: Open, program: usize, f: usize, name: &str, ops: u64) {
    TABLE.with(|t| {
        let t = &mut *t.borrow_mut();
        let (nanos, own_nanos, own_ops) = close(t, &open, ops);
        let at = match t.programs.iter().position(|(p, ..)| *p == program) {
            Some(at) => at,
            None => {
                t.programs.push((program, Vec::new(), Vec::new()));
                t.programs.len() - 1
            }
        };
        let (_, sums, names) = &mut t.programs[at];
        if sums.len() <= f {
            sums.resize(f + 1, Sums::default());
            names.resize(f + 1, String::new());
        }
        if names[f].is_empty() {
            names[f] = name.to_string();
        }
        sums[f].add(nanos, own_nanos, own_ops);
    });
}

/// Notes the end of the call of native `name` that `open` began (begun with no operations:
/// a native counts none).
pub(super) fn leave_native(open: Open, name: &str) {
    TABLE.with(|t| {
        let t = &mut *t.borrow_mut();
        let (nanos, own_nanos, _) = close(t, &open, open.ops);
        match t.natives.get_mut(name) {
            Some(s) => s.add(nanos, own_nanos, 0),
            None => {
                let mut s = Sums::default();
                s.add(nanos, own_nanos, 0);
                t.natives.insert(name.to_string(), s);
            }
        }
    });
}

/// Forgets the call `open` began, which did not happen after all (no direct form of a native
/// fitted: the ordinary call that follows is noted instead). Its time is its caller's own.
pub(super) fn abandon(open: Open) {
    let _ = open;
    TABLE.with(|t| t.borrow_mut().open.pop());
}

/// Ends a call in the table: its time in all, its own time and its own operations (less those
/// of the calls made inside it); its time and operations are added to the call around it.
fn close(t: &mut Table, open: &Open, ops: u64) -> (u64, u64, u64) {
    let nanos = u64::try_from(open.at.elapsed().as_nanos()).unwrap_or(u64::MAX);
    let ops = ops.saturating_sub(open.ops);
    let (inner_nanos, inner_ops) = t.open.pop().unwrap_or_default();
    if let Some(outer) = t.open.last_mut() {
        outer.0 += nanos;
        outer.1 += ops;
    }
    (nanos, nanos.saturating_sub(inner_nanos), ops.saturating_sub(inner_ops))
}

impl Sums {
    fn add(&mut self, nanos: u64, own_nanos: u64, own_ops: u64) {
        self.calls += 1;
        self.total_nanos += nanos;
        self.self_nanos += own_nanos;
        self.self_ops += own_ops;
    }
}

/// Adds this thread's table to the process's, and empties it. Nothing when profiling is off.
pub fn flush() {
    if !on() {
        return;
    }
    let table = TABLE.with(|t| std::mem::take(&mut *t.borrow_mut()));
    let mut flushed = FLUSHED.lock().unwrap_or_else(|e| e.into_inner());
    let rows = flushed.get_or_insert_with(HashMap::new);
    let scripts = table.programs.into_iter().flat_map(|(_, sums, names)| sums.into_iter().zip(names));
    let natives = table.natives.into_iter().map(|(name, s)| (s, name));
    for (s, name, native) in scripts.map(|(s, n)| (s, n, false)).chain(natives.map(|(s, n)| (s, n, true))) {
        if s.calls == 0 {
            continue;
        }
        // A native and a script function may share a name (a script's `roll` beside
        // `game.roll`): they are kept apart.
        let key = if native { format!("{name} (native)") } else { name.clone() };
        let row = rows.entry(key).or_insert_with(|| ProfileRow { function: name, native, ..ProfileRow::default() });
        row.calls += s.calls;
        row.self_seconds += s.self_nanos as f64 / 1e9;
        row.total_seconds += s.total_nanos as f64 / 1e9;
        row.self_operations += s.self_ops;
    }
}

/// Turns profiling off and gives the sums of the threads flushed, most time first (ties by
/// name). Empty when profiling was never started.
pub fn take() -> Vec<ProfileRow> {
    ON.store(false, Ordering::Relaxed);
    let rows = FLUSHED.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
    let mut rows: Vec<ProfileRow> = rows.into_values().collect();
    rows.sort_by(|a, b| b.self_seconds.total_cmp(&a.self_seconds).then_with(|| a.function.cmp(&b.function)));
    rows
}
