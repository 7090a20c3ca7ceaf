//! What a compiled hook call runs with: the frames of its script functions on one stack, the
//! operation and call-depth limits, and the calls it makes into tabula's natives and into Rhai.

#![allow(deprecated)] // Rhai marks its internal call-context types "volatile" this way.

use std::cell::RefCell;

use rhai::{Array, Dynamic, Engine, EvalAltResult, Map, NativeCallContext, NativeCallContextStore, Position};

use super::Program;
use super::stmt::Flow;
use crate::script::{MAX_CALL_LEVELS, MAX_DATA_SIZE, MAX_OPERATIONS};

pub(crate) type Res<T> = Result<T, Box<EvalAltResult>>;

/// Drops a value, without the call to Rhai's drop code for values that own nothing (`()`,
/// numbers, booleans): most values a compiled hook drops are those, and that call is a good
/// part of what a hook costs.
#[inline]
pub(in crate::script) fn release(v: Dynamic) {
    if v.is_unit() || v.is_int() || v.is_bool() {
        std::mem::forget(v);
    } else {
        drop(v);
    }
}

/// `*place = v`, releasing the value it held (see [`release`]).
#[inline]
pub(super) fn set(place: &mut Dynamic, v: Dynamic) {
    release(std::mem::replace(place, v));
}

/// `stack.truncate(len)`, releasing each value (see [`release`]).
#[inline]
pub(super) fn pop_to(stack: &mut Vec<Dynamic>, len: usize) {
    while stack.len() > len {
        if let Some(v) = stack.pop() {
            release(v);
        }
    }
}

/// The call context Rhai's own functions are called with, made at the first such call.
pub(super) type ContextStore = Option<NativeCallContextStore>;

/// The state of one compiled hook call.
pub(crate) struct Ctx<'a> {
    pub(super) prog: &'a Program,
    pub(super) engine: &'a Engine,
    /// A Rhai call context, to call Rhai's own functions (its standard library and operators),
    /// made at the first such call.
    call_context: Option<NativeCallContextStore>,
    /// Every frame: a function's `this`, parameters and locals, from `base`.
    pub(super) stack: Vec<Dynamic>,
    pub(super) base: usize,
    /// Whether the running function was called as a method (has a `this`).
    pub(super) this_bound: bool,
    /// Operations so far (statements, loop rounds and calls), against `MAX_OPERATIONS`.
    ops: u64,
    /// How deep script functions call each other, against `MAX_CALL_LEVELS`.
    level: usize,
    /// The hook's first argument (the handle) as its frame ended, for the caller to reuse.
    pub(super) handle_back: Option<Dynamic>,
    /// Whether the hook was given a second argument, and that argument as its frame ended
    /// (an action's arguments map, which the caller may reuse).
    extra_given: bool,
    pub(super) extra_back: Option<Dynamic>,
    /// Handles lent to the parameters of the function that just returned (see `expr::lend`).
    pub(super) lent_back: std::mem::ManuallyDrop<[Dynamic; 8]>,
    /// Which places of `lent_back` were ever filled (bit k: place k), to release only those.
    lent_filled: u8,
}

thread_local! {
    /// Frames kept between hook calls, so that a call allocates no stack.
    static STACK: RefCell<Vec<Dynamic>> = const { RefCell::new(Vec::new()) };
}

impl Drop for Ctx<'_> {
    fn drop(&mut self) {
        // `lent_back` is kept from Rust's drop code, which would call Rhai's for each of the
        // eight (mostly `()`, and most hooks lend nothing).
        for k in 0..8 {
            if self.lent_filled & (1 << k) != 0 {
                release(std::mem::take(&mut self.lent_back[k]));
            }
        }
    }
}

impl<'a> Ctx<'a> {
    pub(super) fn new(prog: &'a Program, engine: &'a Engine) -> Ctx<'a> {
        let stack = STACK.with(|s| std::mem::take(&mut *s.borrow_mut()));
        Ctx {
            prog,
            engine,
            call_context: None,
            stack,
            base: 0,
            this_bound: false,
            ops: 0,
            level: 0,
            handle_back: None,
            extra_given: false,
            extra_back: None,
            lent_back: std::mem::ManuallyDrop::new(Default::default()),
            lent_filled: 0,
        }
    }

    /// Gives the stack back for the next call.
    pub(super) fn finish(mut self) {
        self.stack.clear();
        STACK.with(|s| *s.borrow_mut() = std::mem::take(&mut self.stack));
    }

    /// Counts one operation, or stops a runaway script.
    #[inline]
    pub(super) fn op(&mut self, pos: Position) -> Res<()> {
        self.ops += 1;
        if self.ops > MAX_OPERATIONS {
            return Err(EvalAltResult::ErrorTooManyOperations(pos).into());
        }
        Ok(())
    }

    #[inline]
    /// A slot of the running function's frame, to read.
    pub(super) fn slot_ref(&self, slot: usize) -> &Dynamic {
        &self.stack[self.base + slot]
    }

    pub(super) fn slot(&mut self, slot: usize) -> &mut Dynamic {
        let at = self.base + slot;
        &mut self.stack[at]
    }

    /// Calls compiled hook function `f` with the game's (or a view's) handle and the hook's
    /// other argument, if any, as Rhai's `call_script_fn` does: the call counts an operation
    /// and a level, and an error inside is wrapped in the function's name (limits pass through
    /// with the call's position).
    pub(super) fn call_function(
        &mut self,
        f: usize,
        handle: Dynamic,
        extra: Option<Dynamic>,
        pos: Position,
    ) -> Res<Dynamic> {
        let new_base = self.stack.len();
        self.stack.push(Dynamic::UNIT);
        self.stack.push(handle);
        self.extra_given = extra.is_some();
        self.stack.extend(extra);
        let (result, this) = self.enter(f, new_base, false, pos);
        release(this);
        result
    }

    /// Runs function `f` whose frame starts at `new_base`, with `this` and the arguments pushed
    /// already. Returns the result and the final `this` (whatever happened), and pops the frame.
    pub(super) fn enter(&mut self, f: usize, new_base: usize, bound: bool, pos: Position) -> (Res<Dynamic>, Dynamic) {
        self.enter_lending(f, new_base, bound, pos, 0)
    }

    /// `enter`, also moving the parameters in `lent` (a bit set) to `lent_back` before the
    /// frame is popped.
    pub(super) fn enter_lending(
        &mut self,
        f: usize,
        new_base: usize,
        bound: bool,
        pos: Position,
        lent: u8,
    ) -> (Res<Dynamic>, Dynamic) {
        let Some(function) = self.prog.functions.get(f).and_then(Option::as_ref) else {
            let this = std::mem::take(&mut self.stack[new_base]);
            self.take_lent(new_base, lent);
            pop_to(&mut self.stack, new_base);
            return (Err("internal: a compiled call to a function that is not compiled".into()), this);
        };
        let result = self.op(pos).and_then(|()| {
            if self.level > MAX_CALL_LEVELS {
                return Err(EvalAltResult::ErrorStackOverflow(pos).into());
            }
            Ok(())
        });
        if let Err(e) = result {
            let this = std::mem::take(&mut self.stack[new_base]);
            self.take_lent(new_base, lent);
            pop_to(&mut self.stack, new_base);
            return (Err(e), this);
        }
        // Pushed rather than `resize`d: `resize` clones `()` through `Dynamic::clone`.
        let frame_end = new_base + function.slots;
        while self.stack.len() < frame_end {
            self.stack.push(Dynamic::UNIT);
        }
        self.stack.truncate(frame_end);
        let (old_base, old_bound) = (self.base, self.this_bound);
        self.base = new_base;
        self.this_bound = bound;
        self.level += 1;
        let result = (function.body)(self);
        self.level -= 1;
        self.base = old_base;
        self.this_bound = old_bound;
        let this = std::mem::take(&mut self.stack[new_base]);
        if self.level == 0 && function.slots > 1 {
            self.handle_back = Some(std::mem::take(&mut self.stack[new_base + 1]));
            if self.extra_given && function.slots > 2 {
                self.extra_back = Some(std::mem::take(&mut self.stack[new_base + 2]));
            }
        }
        self.take_lent(new_base, lent);
        pop_to(&mut self.stack, new_base);
        let result = match result {
            Ok(Flow::Value(v) | Flow::Return(v) | Flow::Break(v)) => Ok(v.flatten()),
            Ok(Flow::Continue) => Ok(Dynamic::UNIT),
            // A `return` inside an expression comes out as Rhai's own `Return` signal.
            Err(err) if matches!(*err, EvalAltResult::Return(..)) => match *err {
                EvalAltResult::Return(v, _) => Ok(v.flatten()),
                _ => Ok(Dynamic::UNIT),
            },
            Err(mut err) if err.is_system_exception() => {
                err.set_position(pos);
                Err(err)
            }
            Err(err) => {
                Err(EvalAltResult::ErrorInFunctionCall(function.name.to_string(), String::new(), err, pos).into())
            }
        };
        (result, this)
    }

    fn take_lent(&mut self, base: usize, lent: u8) {
        if lent == 0 {
            return;
        }
        self.lent_filled |= lent;
        for k in 0..8 {
            if lent & (1 << k) != 0
                && let Some(v) = self.stack.get_mut(base + 1 + k)
            {
                release(std::mem::replace(&mut self.lent_back[k], std::mem::take(v)));
            }
        }
    }

    /// Calls one of Rhai's own functions or operators by name, through Rhai's resolution.
    pub(super) fn call_rhai(
        &mut self,
        name: &str,
        is_ref_mut: bool,
        args: &mut [&mut Dynamic],
        pos: Position,
    ) -> Res<Dynamic> {
        call_rhai(self.engine, &mut self.call_context, name, is_ref_mut, args, pos)
    }

    /// The engine, the Rhai call context and the stack, borrowed apart (a native's arguments
    /// sit on the stack while it is called).
    pub(super) fn split(&mut self) -> (&'a Engine, &mut ContextStore, &mut Vec<Dynamic>) {
        (self.engine, &mut self.call_context, &mut self.stack)
    }
}

/// Calls one of Rhai's own functions or operators by name, through Rhai's resolution, with a
/// call context made at the first such call.
pub(super) fn call_rhai(
    engine: &Engine,
    store: &mut Option<NativeCallContextStore>,
    name: &str,
    is_ref_mut: bool,
    args: &mut [&mut Dynamic],
    pos: Position,
) -> Res<Dynamic> {
    let store = store.get_or_insert_with(|| NativeCallContextStore {
        fn_name: String::new(),
        source: None,
        global: engine.new_global_runtime_state(),
        pos: Position::NONE,
    });
    let context = NativeCallContext::from_stored_data(engine, store);
    context.call_native_fn_raw(name, is_ref_mut, args).map_err(|e| fill_position(e, pos))
}

/// Fails as Rhai does when a script value grows past the scripts' data limits.
pub(super) fn check_size(value: &Dynamic, pos: Position) -> Res<()> {
    if !(value.is_array() || value.is_map() || value.is_string()) {
        return Ok(());
    }
    over_limit(data_sizes(value), pos)
}

/// Rhai's error when data sizes (elements of arrays, entries of maps, bytes of strings) pass
/// the scripts' limits.
pub(super) fn over_limit((arrays, maps, strings): (usize, usize, usize), pos: Position) -> Res<()> {
    let what = if strings > MAX_DATA_SIZE {
        "Length of string"
    } else if arrays > MAX_DATA_SIZE {
        "Size of array/BLOB"
    } else if maps > MAX_DATA_SIZE {
        "Size of object map"
    } else {
        return Ok(());
    };
    Err(EvalAltResult::ErrorDataTooLarge(what.to_string(), pos).into())
}

/// Evaluates arguments onto the stack in order; on an error, the stack is back at its height.
pub(super) fn push_args(c: &mut Ctx, args: &[super::Eval]) -> Res<()> {
    let mark = c.stack.len();
    for a in args {
        match a(c) {
            Ok(v) => c.stack.push(v.flatten()),
            Err(e) => {
                pop_to(&mut c.stack, mark);
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Elements of arrays, entries of maps and bytes of strings in a value, through nesting, as
/// Rhai counts them.
pub(super) fn data_sizes(value: &Dynamic) -> (usize, usize, usize) {
    // Most values are plain: no need to ask for each kind of container.
    let plain = |v: &Dynamic| v.is_int() || v.is_unit() || v.is_bool();
    if plain(value) {
        return (0, 0, 0);
    }
    // Items are mostly plain too (lists of pieces): they are counted without a call each.
    let inner = |v: &Dynamic| if plain(v) { (0, 0, 0) } else { data_sizes(v) };
    if let Some(a) = value.read_lock::<Array>() {
        a.iter().fold((0, 0, 0), |(x, m, s), v| {
            let (dx, dm, ds) = inner(v);
            (x + 1 + dx, m + dm, s + ds)
        })
    } else if let Some(map) = value.read_lock::<Map>() {
        map.values().fold((0, 0, 0), |(x, m, s), v| {
            let (dx, dm, ds) = inner(v);
            (x + dx, m + 1 + dm, s + ds)
        })
    } else if let Ok(s) = value.as_immutable_string_ref() {
        (0, 0, s.len())
    } else {
        (0, 0, 0)
    }
}

/// Gives an error the position of the call that made it, if it has none (Rhai's
/// `fill_position`).
pub(super) fn fill_position(mut err: Box<EvalAltResult>, pos: Position) -> Box<EvalAltResult> {
    if err.position().is_none() {
        err.set_position(pos);
    }
    err
}
