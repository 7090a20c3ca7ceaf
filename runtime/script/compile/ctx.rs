//! What a compiled hook call runs with: the frames of its script functions on one stack, the
//! operation and call-depth limits, and the calls it makes into tabula's natives and into Rhai.

#![allow(deprecated)] // Rhai marks its internal call-context types "volatile" this way.

use std::cell::RefCell;

use rhai::{Dynamic, Engine, EvalAltResult, ImmutableString, NativeCallContext, NativeCallContextStore, Position};

use super::Program;
use super::stmt::Flow;
use crate::script::{MAX_CALL_LEVELS, MAX_DATA_SIZE, MAX_DEPTH, MAX_OPERATIONS, TOO_DEEP};

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

/// What a compiled hook call needs to call Rhai's own functions (its standard library and
/// operators): the call contexts, made at the first such call, and the limits' counts, which a
/// call handing Rhai a function pointer passes on.
pub(super) struct Calls<'a> {
    /// The program running: its functions, and the scripts as Rhai holds them.
    prog: &'a Program,
    /// The context of a call into Rhai.
    plain: Option<NativeCallContextStore>,
    /// The context of a call given a function pointer (`list.map(|x| x + 1)`, `list.filter(
    /// Fn("keep"))`): it holds the scripts, so that Rhai's function calls the script function
    /// back as Rhai's interpreter does (with the element, then the element and its index), and
    /// it runs on the interpreter. Kept apart: a context with scripts costs every call a look
    /// in them. Boxed: few hooks need it, and every hook call moves its `Ctx`.
    callbacks: Option<Box<NativeCallContextStore>>,
    /// Operations so far (statements, loop rounds and calls), against `MAX_OPERATIONS`.
    pub(super) ops: u64,
    /// How deep script functions call each other, against `MAX_CALL_LEVELS`.
    pub(super) level: usize,
    /// The deepest level checked against `MAX_CALL_LEVELS` since the outermost remembered
    /// call began (see `memo.rs`).
    pub(super) peak: usize,
    /// How many calls handed Rhai a function pointer to call back (see `memo.rs`: a call
    /// that did is not remembered, its callees' levels being counted by Rhai).
    pub(super) called_back: u64,
}

/// The state of one compiled hook call.
pub(crate) struct Ctx<'a> {
    pub(super) engine: &'a Engine,
    /// Calls into Rhai, and the limits' counts.
    pub(super) calls: Calls<'a>,
    /// Every frame: a function's `this`, parameters and locals, from `base`.
    pub(super) stack: Vec<Dynamic>,
    pub(super) base: usize,
    /// Whether the running function was called as a method (has a `this`).
    pub(super) this_bound: bool,
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
    /// The data sizes of the lists in up to two slots of the stack (their indices from the
    /// bottom), the one pushed onto last first, known since the last `list += item` on each (see
    /// [`Ctx::take_sized`]): the next push then adds the item's sizes instead of walking the
    /// whole list again, which made building a list of options item by item cost the square of
    /// its length. Two, because a listing often builds two lists in one loop (the steps of each
    /// piece, and the pieces that may also be recalled): with one, each push onto the one made
    /// the next onto the other walk its whole list. Forgotten whenever that slot may be written
    /// otherwise: at each access to it through [`Ctx::slot`], when a function is entered or left
    /// above it, and when a native is given it by reference (`NativeSite::call_on_slot`).
    /// `sized_at[k]` is [`NOWHERE`] where place k holds nothing: forgetting a slot's sizes, done
    /// at every write of a variable, is then two comparisons.
    sized_at: [usize; 2],
    sized: [Sizes; 2],
}

/// The place of [`Ctx::sized_at`] that holds no slot's sizes.
const NOWHERE: usize = usize::MAX;

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
            engine,
            calls: Calls { prog, plain: None, callbacks: None, ops: 0, level: 0, peak: 0, called_back: 0 },
            stack,
            base: 0,
            this_bound: false,
            handle_back: None,
            extra_given: false,
            extra_back: None,
            lent_back: std::mem::ManuallyDrop::new(Default::default()),
            lent_filled: 0,
            sized_at: [NOWHERE; 2],
            sized: [Sizes::default(); 2],
        }
    }

    /// The program running.
    pub(super) fn prog(&self) -> &'a Program {
        self.calls.prog
    }

    /// Gives the stack back for the next call.
    pub(super) fn finish(mut self) {
        self.stack.clear();
        STACK.with(|s| *s.borrow_mut() = std::mem::take(&mut self.stack));
    }

    /// Counts one operation, or stops a runaway script.
    #[inline]
    pub(super) fn op(&mut self, pos: Position) -> Res<()> {
        self.calls.ops += 1;
        if self.calls.ops > MAX_OPERATIONS {
            return Err(EvalAltResult::ErrorTooManyOperations(pos).into());
        }
        Ok(())
    }

    #[inline]
    /// A slot of the running function's frame, to read.
    pub(super) fn slot_ref(&self, slot: usize) -> &Dynamic {
        &self.stack[self.base + slot]
    }

    /// A slot of the running function's frame, to write (which forgets its known sizes).
    #[inline]
    pub(super) fn slot(&mut self, slot: usize) -> &mut Dynamic {
        self.forget_sizes(slot);
        &mut self.stack[self.base + slot]
    }

    /// Takes a slot's value out for `target op= value`, with its data sizes when they are known
    /// from the last push onto it (see [`Ctx::put_sized`]).
    #[inline]
    pub(super) fn take_sized(&mut self, slot: usize) -> (Dynamic, Option<Sizes>) {
        let at = self.base + slot;
        // The sizes known of another slot stay known: `i += 1` between two pushes onto a list
        // leaves the list's sizes as they were.
        let known = self.sized_at.iter().position(|&s| s == at).map(|k| {
            self.sized_at[k] = NOWHERE;
            self.sized[k]
        });
        (std::mem::take(&mut self.stack[at]), known)
    }

    /// Puts back the value [`Ctx::take_sized`] took, with its data sizes if they are known.
    #[inline]
    pub(super) fn put_sized(&mut self, slot: usize, value: Dynamic, sizes: Option<Sizes>) {
        let at = self.base + slot;
        set(&mut self.stack[at], value);
        if let Some(sizes) = sizes {
            // The other slot's sizes, if any, move to second place (`take_sized` emptied this
            // slot's place); the older of two others is forgotten.
            if self.sized_at[0] != NOWHERE {
                self.sized_at[1] = self.sized_at[0];
                self.sized[1] = self.sized[0];
            }
            self.sized_at[0] = at;
            self.sized[0] = sizes;
        }
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
        // Known sizes of a slot at or above the new frame's base belonged to a frame gone.
        self.forget_sizes_from(new_base);
        let Some(function) = self.calls.prog.functions.get(f).and_then(Option::as_ref) else {
            let this = std::mem::take(&mut self.stack[new_base]);
            self.take_lent(new_base, lent);
            pop_to(&mut self.stack, new_base);
            return (Err("internal: a compiled call to a function that is not compiled".into()), this);
        };
        if let Err(e) = self.enter_call(pos) {
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
        let result = if super::profile::on() { self.run_profiled(f) } else { (function.body)(self) };
        // The callee's own frame is popped; the caller's slots, below it, were reached only
        // through `slot` (its lent handles and `this` are moved out that way).
        self.forget_sizes_from(new_base);
        self.leave_call();
        self.base = old_base;
        self.this_bound = old_bound;
        let this = std::mem::take(&mut self.stack[new_base]);
        if self.calls.level == 0 && function.slots > 1 {
            self.handle_back = Some(std::mem::take(&mut self.stack[new_base + 1]));
            if self.extra_given && function.slots > 2 {
                self.extra_back = Some(std::mem::take(&mut self.stack[new_base + 2]));
            }
        }
        self.take_lent(new_base, lent);
        pop_to(&mut self.stack, new_base);
        (self.returned(&function.name, result, pos), this)
    }

    /// What a call of script function `name` at `pos` gives, from what its body gave: its
    /// value, or its error as Rhai's interpreter gives it (wrapped in the function's name and the
    /// scripts' source, or, for a limit, at the call's position).
    #[inline]
    pub(super) fn returned(&self, name: &ImmutableString, result: Res<Flow>, pos: Position) -> Res<Dynamic> {
        match result {
            Ok(Flow::Value(v) | Flow::Return(v) | Flow::Break(v)) => Ok(v.flatten()),
            Ok(Flow::Continue) => Ok(Dynamic::UNIT),
            Err(err) => self.failed(name, err, pos),
        }
    }

    /// [`Ctx::returned`] for an error.
    #[cold]
    #[inline(never)]
    fn failed(&self, name: &ImmutableString, err: Box<EvalAltResult>, pos: Position) -> Res<Dynamic> {
        match err {
            // A `return` inside an expression comes out as Rhai's own `Return` signal.
            err if matches!(*err, EvalAltResult::Return(..)) => match *err {
                EvalAltResult::Return(v, _) => Ok(v.flatten()),
                _ => Ok(Dynamic::UNIT),
            },
            mut err if err.is_system_exception() => {
                err.set_position(pos);
                Err(err)
            }
            err => {
                // As Rhai's interpreter, naming the scripts' source.
                let source = self.calls.prog.source.as_ref().map_or_else(String::new, |s| s.to_string());
                Err(EvalAltResult::ErrorInFunctionCall(name.to_string(), source, err, pos).into())
            }
        }
    }

    /// Enters a call of a script function at `pos` (made the ordinary way, or compiled into
    /// its caller: `inline.rs`): the call counts an operation and a level, checked against the
    /// limits.
    #[inline]
    pub(super) fn enter_call(&mut self, pos: Position) -> Res<()> {
        self.op(pos)?;
        if self.calls.level > MAX_CALL_LEVELS {
            return Err(EvalAltResult::ErrorStackOverflow(pos).into());
        }
        self.calls.peak = self.calls.peak.max(self.calls.level);
        self.calls.level += 1;
        Ok(())
    }

    /// Leaves a call [`Ctx::enter_call`] entered.
    #[inline]
    pub(super) fn leave_call(&mut self) {
        self.calls.level -= 1;
    }

    /// Runs the body of compiled function `f` under `tabula sim --profile`: kept out of the way
    /// of the ordinary call.
    #[cold]
    #[inline(never)]
    fn run_profiled(&mut self, f: usize) -> Res<Flow> {
        let Some(function) = self.calls.prog.functions.get(f).and_then(Option::as_ref) else {
            return Err("internal: a compiled call to a function that is not compiled".into());
        };
        let open = super::profile::enter(self.calls.ops);
        let result = (function.body)(self);
        let program = std::ptr::from_ref(self.calls.prog).addr();
        super::profile::leave(open, program, f, &function.name, self.calls.ops);
        result
    }

    fn take_lent(&mut self, base: usize, lent: u8) {
        if lent == 0 {
            return;
        }
        self.lent_filled |= lent;
        // The lent parameters' bits, lowest first (most calls lend one: the handle).
        let mut bits = lent;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(v) = self.stack.get_mut(base + 1 + k) {
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
        call_rhai(self.engine, &mut self.calls, name, is_ref_mut, args, pos)
    }

    /// Forgets the data sizes known of a slot of the running function's frame, which is about
    /// to be written otherwise than through [`Ctx::slot`].
    #[inline]
    pub(super) fn forget_sizes(&mut self, slot: usize) {
        let at = self.base + slot;
        for s in &mut self.sized_at {
            if *s == at {
                *s = NOWHERE;
            }
        }
    }

    /// Forgets the data sizes known of any slot from `at` (on the stack) up.
    #[inline]
    fn forget_sizes_from(&mut self, at: usize) {
        // `NOWHERE` is above every slot: made `NOWHERE` again.
        for s in &mut self.sized_at {
            if *s >= at {
                *s = NOWHERE;
            }
        }
    }

    /// The engine, the calls into Rhai and the stack, borrowed apart (a native's arguments
    /// sit on the stack while it is called). Whoever writes a frame's slot through it forgets
    /// the slot's known sizes first ([`Ctx::forget_sizes`]).
    pub(super) fn split(&mut self) -> (&'a Engine, &mut Calls<'a>, &mut Vec<Dynamic>) {
        (self.engine, &mut self.calls, &mut self.stack)
    }
}

/// Calls one of Rhai's own functions or operators by name, through Rhai's resolution, with a
/// call context made at the first such call.
pub(super) fn call_rhai(
    engine: &Engine,
    calls: &mut Calls,
    name: &str,
    is_ref_mut: bool,
    args: &mut [&mut Dynamic],
    pos: Position,
) -> Res<Dynamic> {
    let store = if args.iter().any(|a| a.is_fnptr()) {
        calls.called_back += 1;
        let prog = calls.prog;
        let store = calls.callbacks.get_or_insert_with(|| {
            Box::new({
                // As Rhai's `call_fn` sets them up for a hook: the scripts, and their source.
                let mut global = engine.new_global_runtime_state();
                global.lib.push(prog.lib.clone());
                global.source = prog.source.clone();
                NativeCallContextStore {
                    fn_name: String::new(),
                    source: prog.source.as_ref().map(|s| s.to_string()),
                    global,
                    pos: Position::NONE,
                }
            })
        });
        // A function called back counts its operations and levels from where the compiled
        // code is, as on the interpreter (where they are not counted back either: Rhai's
        // function gets the interpreter's state to read, not to change). Rhai counts a hook's
        // body as level 0, the compiled code as level 1.
        store.global.num_operations = calls.ops;
        store.global.level = calls.level.saturating_sub(1);
        // Errors of the function called back are placed at the call, as on the interpreter.
        store.pos = pos;
        store
    } else {
        calls.plain.get_or_insert_with(|| NativeCallContextStore {
            fn_name: String::new(),
            source: None,
            global: engine.new_global_runtime_state(),
            pos: Position::NONE,
        })
    };
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
/// the scripts' limits, or when arrays and maps nest deeper than `MAX_DEPTH`.
pub(super) fn over_limit(sizes: Sizes, pos: Position) -> Res<()> {
    let what = if sizes.strings > MAX_DATA_SIZE {
        "Length of string"
    } else if sizes.arrays > MAX_DATA_SIZE {
        "Size of array/BLOB"
    } else if sizes.maps > MAX_DATA_SIZE {
        "Size of object map"
    } else if sizes.depth > MAX_DEPTH {
        TOO_DEEP
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
/// Rhai counts them; and how deep arrays and maps nest in it (`[[1]]` is 2 deep, a value that is
/// neither 0).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(super) struct Sizes {
    pub(super) arrays: usize,
    pub(super) maps: usize,
    pub(super) strings: usize,
    pub(super) depth: usize,
}

impl Sizes {
    /// The sizes of an empty array.
    pub(super) const ARRAY: Sizes = Sizes { arrays: 0, maps: 0, strings: 0, depth: 1 };
    /// The sizes of an empty map.
    pub(super) const MAP: Sizes = Sizes { arrays: 0, maps: 0, strings: 0, depth: 1 };

    /// The sizes of a list holding the items of a list of these sizes, then those of a list of
    /// sizes `other`.
    #[inline]
    pub(super) fn joined(self, other: Sizes) -> Sizes {
        Sizes {
            arrays: self.arrays + other.arrays,
            maps: self.maps + other.maps,
            strings: self.strings + other.strings,
            depth: self.depth.max(other.depth),
        }
    }

    /// These sizes (an array's, or a map's) with one more item, of sizes `item`.
    #[inline]
    pub(super) fn with(self, item: Sizes, array: bool) -> Sizes {
        Sizes {
            arrays: self.arrays + item.arrays + usize::from(array),
            maps: self.maps + item.maps + usize::from(!array),
            strings: self.strings + item.strings,
            depth: self.depth.max(item.depth + 1),
        }
    }
}

/// The [`Sizes`] of a value.
pub(super) fn data_sizes(value: &Dynamic) -> Sizes {
    // Asked of every item pushed onto a list and every value a native gives back, so the kinds
    // are told apart by Rhai's cheap tests (not by a lock for each kind of container), and the
    // items most lists and maps hold (integers, words) are counted in place, without a call.
    if value.is_string() {
        return Sizes { strings: string_len(value), ..Sizes::default() };
    }
    let mut sizes = Sizes { depth: 1, ..Sizes::default() };
    let mut add = |v: &Dynamic| {
        if v.is_int() || v.is_unit() || v.is_bool() || v.is_char() {
            return;
        }
        if v.is_string() {
            sizes.strings += string_len(v);
            return;
        }
        let inner = data_sizes(v);
        sizes.arrays += inner.arrays;
        sizes.maps += inner.maps;
        sizes.strings += inner.strings;
        sizes.depth = sizes.depth.max(inner.depth + 1);
    };
    if value.is_array() {
        let Ok(a) = value.as_array_ref() else { return Sizes::default() };
        a.iter().for_each(&mut add);
        sizes.arrays += a.len();
    } else if value.is_map() {
        let Ok(map) = value.as_map_ref() else { return Sizes::default() };
        map.values().for_each(&mut add);
        sizes.maps += map.len();
    } else {
        return Sizes::default();
    }
    sizes
}

/// The length in bytes of a string value (0 for anything else).
fn string_len(value: &Dynamic) -> usize {
    value.as_immutable_string_ref().map_or(0, |s| s.len())
}

/// Gives an error the position of the call that made it, if it has none (Rhai's
/// `fill_position`).
pub(super) fn fill_position(mut err: Box<EvalAltResult>, pos: Position) -> Box<EvalAltResult> {
    if err.position().is_none() {
        err.set_position(pos);
    }
    err
}
