//! Compiling expressions: constants, variables, literals, logic, and calls to script functions,
//! tabula's natives and Rhai's own functions.

use std::any::TypeId;
use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::Write as _;

use rhai::{Dynamic, Engine, EvalAltResult, Expr, FnCallExpr, ImmutableString, Map, Position, RhaiFunc};

use super::ctx::{
    Calls, Ctx, Res, Sizes, check_size, data_sizes, fill_position, over_limit, pop_to, push_args, release, set,
};
use super::inline::Inlinable;
use super::maps::{by_key, literal_map, map_in_key_order};
use super::memo::{Args, Hit, Key, Limits, Lookup, Memo, Seen};
use super::ops::{self, Op};
use super::{C, Eval};
use crate::rules::defs::{Defs, SeatId};
use crate::script::game_api::GameApi;
use crate::script::natives::Natives;
use crate::script::reads;
use crate::script::view_api::SeatView;

/// Names Rhai handles itself when called like functions: the compiler leaves them to Rhai.
pub(super) const KEYWORDS: &[&str] = &[
    "Fn",
    "call",
    "curry",
    "eval",
    "type_of",
    "print",
    "debug",
    "is_def_fn",
    "is_def_var",
    "is_shared",
    "this",
    "global",
];

/// Rhai's functions (and properties) that make values only Rhai can walk with `for` (stepped
/// ranges, an integer's bits, a string's characters from a position): a function calling one is
/// left to Rhai, so that such a value never reaches compiled code.
pub(super) const ITERATORS: &[&str] = &["range", "bits", "chars"];

/// Natives that only read the target they are given by reference (`list.len()`, `x in list`,
/// `m.keys()`): a parameter given to them stays unchanged, and may be lent (see `lend`). Any
/// other native given a variable by reference may change it.
const READING_NATIVES: &[&str] = &[
    "contains",
    "len",
    "is_empty",
    "keys",
    "values",
    "index_of",
    "get",
    "to_string",
    "to_debug",
    "type_of",
    "starts_with",
    "ends_with",
    "sub_string",
    "index_matching",
    "first_indices",
];

/// The parameters (bit k: parameter k, at most 8) of a function with `slots` slots (`this`
/// first) outside `slot_set`, a bit set of slots.
fn params_outside(slots: usize, slot_set: u64) -> u8 {
    let params = slots.min(9);
    (0..8).filter(|k| k + 1 < params && slot_set & (1 << (k + 1)) == 0).fold(0, |m, k| m | (1 << k))
}

/// What compiles one script function: the variables in scope (by slot) and what it calls.
pub(super) struct FnCompiler<'a> {
    index: &'a HashMap<(ImmutableString, usize), usize>,
    natives: &'a Natives,
    /// The ruleset's definitions, which literal filters are prepared against.
    rules: &'a Defs,
    /// The frame's slot names: `this` first, then the parameters and the locals in scope.
    names: Vec<ImmutableString>,
    /// The slots of variables declared with `let` (the first 64), for `return` to move them.
    lets: u64,
    max: usize,
    callees: Vec<usize>,
    /// Slots the function may write (assignments, and method calls of script functions, whose
    /// `this` may be written), as a bit set over the first 64.
    written: u64,
    /// Slots whose value the function may change in place: those it may write, and those it
    /// gives by reference to a native that may change its target (`list.push(x)`,
    /// `m.remove(k)`), as a bit set over the first 64.
    changed: u64,
    /// Slots named since [`FnCompiler::naming`] last began counting (every use of a variable
    /// goes through [`FnCompiler::lookup`]), as a bit set over the first 64; a slot past them
    /// sets every bit.
    named: std::cell::Cell<u64>,
    /// The functions of the program small enough to be compiled into their calls (by index;
    /// see `inline.rs`).
    inlinable: &'a [Option<Inlinable>],
    /// While a function's body is compiled into a method call: the caller's variable that is
    /// its `this`.
    this_as: Option<usize>,
    /// Whether a function's body is being compiled into a call.
    inlining: bool,
}

/// What compiling a function's body into a call changed of the compiler, to restore.
pub(super) struct Inlined {
    names: Vec<ImmutableString>,
    written: u64,
    changed: u64,
    lets: u64,
    max: usize,
    this_as: Option<usize>,
}

/// The natives a call might mean: tabula's of that name and arity, chosen by argument types at
/// the call.
#[derive(Clone)]
pub(super) struct Candidates(Vec<(Vec<TypeId>, RhaiFunc)>);

impl Candidates {
    /// Whether one of them takes a value of type `t` first (or any value).
    pub(super) fn take_first(&self, t: TypeId) -> bool {
        self.0.iter().any(|(params, _)| params.first().is_some_and(|p| *p == t || *p == TypeId::of::<Dynamic>()))
    }

    /// Whether those of them taking a value of type `first` (or any value) first are exactly
    /// natives taking `signatures`, one each, in any order.
    pub(super) fn taking_first_are(&self, first: TypeId, signatures: &[&[TypeId]]) -> bool {
        let taking: Vec<&[TypeId]> = self
            .0
            .iter()
            .map(|(params, _)| params.as_slice())
            .filter(|params| params.first().is_some_and(|p| *p == first || *p == TypeId::of::<Dynamic>()))
            .collect();
        taking.len() == signatures.len() && signatures.iter().all(|s| taking.contains(s))
    }

    /// The native the arguments' types select, as Rhai chooses: the last registered whose
    /// parameter types are exactly the arguments', else the last that takes them as `Dynamic`
    /// (its place in the list).
    #[inline]
    fn pick(&self, args: &[TypeId]) -> Option<usize> {
        let fits = |params: &[TypeId], exact: bool| {
            params.iter().zip(args).all(|(p, a)| p == a || (!exact && *p == TypeId::of::<Dynamic>()))
        };
        if let [(params, _)] = self.0.as_slice() {
            // One candidate (the usual case): it fits or nothing of tabula's does.
            return (params.len() <= args.len() && fits(params, false)).then_some(0);
        }
        let list = &self.0;
        list.iter().rposition(|(p, _)| fits(p, true)).or_else(|| list.iter().rposition(|(p, _)| fits(p, false)))
    }

    /// [`Candidates::pick`] for these arguments, remembered at the call site by their kinds
    /// (see [`kinds`]): a call site meets the same kinds of arguments call after call, and
    /// comparing each argument's type with each candidate's parameters cost more than the
    /// call of a small native itself (`x in list`).
    fn pick_at(&self, last: &Cell<(u32, Option<usize>)>, args: &[&Dynamic]) -> Option<&RhaiFunc> {
        if self.0.is_empty() {
            return None;
        }
        let kinds = kinds(args);
        let (known, picked) = last.get();
        let picked = if kinds != 0 && kinds == known {
            picked
        } else {
            let types = ArgTypes::of(args.iter().copied());
            let picked = self.pick(types.as_slice());
            last.set((kinds, picked));
            picked
        };
        picked.and_then(|k| self.0.get(k)).map(|(_, f)| f)
    }
}

/// The kinds of a call's arguments, packed into a number (three bits each, after a leading 1),
/// for the values whose kind says their type (integers, texts, maps, lists, booleans, `()`);
/// 0 where one is of another type, or there are more than nine.
fn kinds(args: &[&Dynamic]) -> u32 {
    if args.len() > 9 {
        return 0;
    }
    let mut packed = 1;
    for v in args {
        let kind = if v.is_int() {
            1
        } else if v.is_string() {
            2
        } else if v.is_map() {
            3
        } else if v.is_array() {
            4
        } else if v.is_bool() {
            5
        } else if v.is_unit() {
            6
        } else {
            return 0;
        };
        packed = packed << 3 | kind;
    }
    packed
}

/// The types of a call's arguments, each found once (a native with several candidates compares
/// them with each candidate's parameters), in place for up to eight.
enum ArgTypes {
    Few([TypeId; 8], usize),
    Many(Vec<TypeId>),
}

impl ArgTypes {
    fn of<'v>(args: impl Iterator<Item = &'v Dynamic>) -> ArgTypes {
        let mut types = [TypeId::of::<()>(); 8];
        let mut n = 0;
        let mut args = args.peekable();
        while let Some(v) = args.next_if(|_| n < 8) {
            types[n] = v.type_id();
            n += 1;
        }
        if args.peek().is_none() {
            return ArgTypes::Few(types, n);
        }
        ArgTypes::Many(types.into_iter().chain(args.map(Dynamic::type_id)).collect())
    }

    fn as_slice(&self) -> &[TypeId] {
        match self {
            ArgTypes::Few(types, n) => &types[..*n],
            ArgTypes::Many(types) => types,
        }
    }
}

impl<'a> FnCompiler<'a> {
    pub(super) fn new(
        index: &'a HashMap<(ImmutableString, usize), usize>,
        natives: &'a Natives,
        rules: &'a Defs,
        params: &[ImmutableString],
        inlinable: &'a [Option<Inlinable>],
    ) -> Self {
        let mut names = vec![ImmutableString::from("this")];
        names.extend(params.iter().cloned());
        let max = names.len();
        FnCompiler {
            lets: 0,
            index,
            natives,
            rules,
            names,
            max,
            callees: Vec::new(),
            written: 0,
            changed: 0,
            named: std::cell::Cell::new(0),
            inlinable,
            this_as: None,
            inlining: false,
        }
    }

    /// tabula's natives, which calls are compiled against.
    pub(super) fn natives(&self) -> &'a Natives {
        self.natives
    }

    /// The ruleset's definitions, which literal names are resolved against.
    pub(super) fn rules(&self) -> &'a Defs {
        self.rules
    }

    /// Whether a script function of this name takes `params` parameters (a method call's
    /// target is its `this`, not one of them).
    pub(super) fn is_script_fn(&self, name: &ImmutableString, params: usize) -> bool {
        self.index.contains_key(&(name.clone(), params))
    }

    pub(super) fn max_slots(&self) -> usize {
        self.max
    }

    /// Notes functions a function pointer the function makes may call (see `feed_bodies`).
    pub(super) fn points_to(&mut self, functions: impl Iterator<Item = usize>) {
        self.callees.extend(functions);
    }

    pub(super) fn callees(&self) -> Vec<usize> {
        let mut c = self.callees.clone();
        c.sort_unstable();
        c.dedup();
        c
    }

    /// Notes that `slot` may be written.
    pub(super) fn writes(&mut self, slot: usize) {
        self.written |= 1u64.checked_shl(slot as u32).unwrap_or(0);
        if slot >= 64 {
            self.written = u64::MAX;
        }
        self.changes(slot);
    }

    /// Notes that the value in `slot` may be changed in place.
    pub(super) fn changes(&mut self, slot: usize) {
        self.changed |= 1u64.checked_shl(slot as u32).unwrap_or(0);
        if slot >= 64 {
            self.changed = u64::MAX;
        }
    }

    /// Notes that `slot` is given by reference to the native `name`, which changes it unless it
    /// only reads (see [`READING_NATIVES`]).
    pub(super) fn gives_to_native(&mut self, slot: usize, name: &str) {
        if !READING_NATIVES.contains(&name) {
            self.changes(slot);
        }
    }

    /// The parameters (by index, at most 8) the function never writes: a caller may lend it a
    /// handle for them instead of a copy (see `call`).
    pub(super) fn read_only_params(&self) -> u8 {
        params_outside(self.max, self.written)
    }

    /// The parameters (by index, at most 8) whose value the function never changes: a caller
    /// may lend it a list or a map for them instead of a copy (see `call`).
    pub(super) fn unchanged_params(&self) -> u8 {
        params_outside(self.max, self.changed)
    }

    /// Whether the variable in `slot` was declared with `let` (not a parameter, not a loop's
    /// variable).
    pub(super) fn is_let(&self, slot: usize) -> bool {
        slot < 64 && self.lets & (1 << slot) != 0
    }

    /// Notes that the variable just declared in `slot` was declared with `let`.
    pub(super) fn declared_by_let(&mut self, slot: usize) {
        if slot < 64 {
            self.lets |= 1 << slot;
        }
    }

    /// A new variable in scope: its slot.
    pub(super) fn declare(&mut self, name: &ImmutableString) -> usize {
        // A slot left by a block's variable may now hold a loop's: `let` says so again.
        if self.names.len() < 64 {
            self.lets &= !(1 << self.names.len());
        }
        self.names.push(name.clone());
        self.max = self.max.max(self.names.len());
        self.names.len() - 1
    }

    /// Compiles what `compile` compiles, and says whether it named `slot` and whether it may
    /// change `changes`' value (see [`FnCompiler::changes`]); what is noted of the function
    /// stays as if nothing were asked.
    pub(super) fn naming<T>(
        &mut self,
        slot: usize,
        changes: usize,
        compile: impl FnOnce(&mut Self) -> T,
    ) -> (T, bool, bool) {
        let bit = |s: usize| 1u64.checked_shl(s as u32).unwrap_or(u64::MAX);
        let (named, changed) = (self.named.replace(0), self.changed);
        self.changed &= !bit(changes);
        let out = compile(self);
        let (now_named, now_changed) = (self.named.get(), self.changed);
        self.named.set(named | now_named);
        self.changed |= changed;
        (out, now_named & bit(slot) != 0, now_changed & bit(changes) != 0)
    }

    /// Function `f`, if it is small enough to be compiled into its calls (see `inline.rs`).
    pub(super) fn inlinable(&self, f: usize) -> Option<&'a Inlinable> {
        self.inlinable.get(f).and_then(Option::as_ref)
    }

    /// Whether a function's body is being compiled into a call (which compiles no call of its
    /// own into it).
    pub(super) fn is_inlining(&self) -> bool {
        self.inlining
    }

    /// Begins compiling a function's body into a call: the caller's variables are hidden but
    /// `shown`, each under the name of the parameter it is read in place as (by slot), none of
    /// them counts as declared with `let` (so none is moved out), `this` is the variable
    /// `this_as`, and the changes noted of `shown` start afresh. [`FnCompiler::leave_inlined`]
    /// restores it all.
    pub(super) fn enter_inlined(&mut self, shown: &[(usize, ImmutableString)], this_as: usize) -> Inlined {
        let names = self.names.clone();
        let lets = std::mem::take(&mut self.lets);
        let max = std::mem::replace(&mut self.max, self.names.len());
        for (slot, name) in self.names.iter_mut().enumerate() {
            // No variable is named with the empty string.
            *name = shown.iter().find(|(s, _)| *s == slot).map_or_else(ImmutableString::new, |(_, n)| n.clone());
        }
        let shown: Vec<usize> = shown.iter().map(|(slot, _)| *slot).collect();
        let (written, changed) = (self.written, self.changed);
        for &slot in &shown {
            self.written &= !(1u64 << slot);
            self.changed &= !(1u64 << slot);
        }
        self.inlining = true;
        Inlined { names, written, changed, lets, max, this_as: self.this_as.replace(this_as) }
    }

    /// Ends what [`FnCompiler::enter_inlined`] began (dropping the parameters' and the body's
    /// variables); says which of the variables `shown` (bit k: `shown[k]`) the body may assign
    /// to, which it may change otherwise (give to a native that changes its target, which a
    /// handle never is), and the slots the parameters and the body's variables took.
    pub(super) fn leave_inlined(&mut self, saved: Inlined, shown: &[usize]) -> (u8, u8, std::ops::Range<usize>) {
        let bits = |set: u64| {
            shown.iter().enumerate().filter(|&(_, &slot)| set & (1u64 << slot) != 0).fold(0u8, |m, (k, _)| m | (1 << k))
        };
        let (written, changed) = (bits(self.written), bits(self.changed));
        let slots = saved.names.len()..self.max;
        self.names = saved.names;
        self.written |= saved.written;
        self.changed |= saved.changed;
        self.lets = saved.lets;
        self.max = self.max.max(saved.max);
        self.this_as = saved.this_as;
        self.inlining = false;
        (written, changed & !written, slots)
    }

    /// Where `this` is: slot 0 of the frame, to check at `pos` that a method call bound it, or,
    /// in a method's body compiled into its call, the variable it was called on.
    pub(super) fn this_slot(&mut self, pos: Position) -> (usize, Option<Position>) {
        match self.this_as {
            Some(slot) => {
                self.named.set(self.named.get() | 1u64.checked_shl(slot as u32).unwrap_or(u64::MAX));
                (slot, None)
            }
            None => (0, Some(pos)),
        }
    }

    /// The scope's size now, to drop a block's variables at its end with `leave`.
    pub(super) fn mark(&self) -> usize {
        self.names.len()
    }

    pub(super) fn leave(&mut self, mark: usize) {
        self.names.truncate(mark);
    }

    pub(super) fn lookup(&self, name: &str) -> C<usize> {
        // Slot 0 is `this`, which scripts cannot name as a variable.
        match self.names.iter().rposition(|n| n == name) {
            Some(slot) if slot > 0 => {
                self.named.set(self.named.get() | 1u64.checked_shl(slot as u32).unwrap_or(u64::MAX));
                Ok(slot)
            }
            _ => Err(format!("it reads `{name}`, which is not one of its variables")),
        }
    }

    /// The variables among a call's arguments that may be lent to the function called (see
    /// [`lend`]), by argument: the first eight, each in its first place only.
    fn lendable(&self, args: &[Expr]) -> Vec<Option<usize>> {
        let mut lendable: Vec<Option<usize>> = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let slot = match a {
                Expr::Variable(x, _, _) if k < 8 => self.lookup(&x.1).ok(),
                _ => None,
            };
            lendable.push(slot.filter(|s| !lendable.contains(&Some(*s))));
        }
        lendable
    }

    /// Compiles an expression.
    pub(super) fn expr(&mut self, e: &Expr) -> C<Eval> {
        Ok(match e {
            Expr::DynamicConstant(v, _) => constant((**v).clone()),
            Expr::BoolConstant(b, _) => constant(Dynamic::from_bool(*b)),
            Expr::IntegerConstant(i, _) => constant(Dynamic::from_int(*i)),
            Expr::CharConstant(c, _) => constant(Dynamic::from_char(*c)),
            Expr::StringConstant(s, _) => constant(Dynamic::from(s.clone())),
            Expr::Unit(_) => constant(Dynamic::UNIT),
            Expr::Variable(x, _, _) => {
                let slot = self.lookup(&x.1)?;
                Box::new(move |c| Ok(c.slot_ref(slot).clone()))
            }
            Expr::ThisPtr(pos) => match self.this_slot(*pos) {
                (slot, None) => Box::new(move |c| Ok(c.slot_ref(slot).clone())),
                (_, Some(pos)) => Box::new(move |c| this(c, pos).map(|t| t.clone())),
            },
            Expr::InterpolatedString(parts, _) => self.interpolated(parts)?,
            Expr::Array(items, _) => {
                let items = items.iter().map(|i| Ok((self.expr(i)?, i.position()))).collect::<C<Vec<_>>>()?;
                Box::new(move |c| {
                    let mut array = rhai::Array::with_capacity(items.len());
                    let mut sizes = Sizes::ARRAY;
                    for (item, pos) in &items {
                        let value = item(c)?.flatten();
                        sizes = sizes.with(data_sizes(&value), true);
                        over_limit(sizes, *pos)?;
                        array.push(value);
                    }
                    Ok(Dynamic::from_array(array))
                })
            }
            Expr::Map(..) if literal_map(e).is_some() => {
                // A map of literals (a filter, mostly) is built once and copied at each use.
                constant(Dynamic::from_map(literal_map(e).unwrap_or_default()))
            }
            Expr::Map(x, _) => {
                let template: Map = x.1.clone();
                let entries =
                    x.0.iter()
                        .map(|(k, v)| Ok((k.name.clone(), self.expr(v)?, v.position())))
                        .collect::<C<Vec<_>>>()?;
                if let Some(by_key) = by_key(&template, entries.iter().map(|(k, ..)| k.as_str())) {
                    let values = entries.into_iter().map(|(_, value, pos)| (value, pos)).collect();
                    return Ok(map_in_key_order(template, values, by_key));
                }
                Box::new(move |c| {
                    let mut map = template.clone();
                    let mut sizes = Sizes::MAP;
                    for (key, value, pos) in &entries {
                        let value = value(c)?.flatten();
                        sizes = sizes.with(data_sizes(&value), false);
                        over_limit(sizes, *pos)?;
                        map.insert(key.as_str().into(), value);
                    }
                    Ok(Dynamic::from_map(map))
                })
            }
            // Each part a boolean (see `condition.rs`), the first that decides giving the value.
            Expr::And(..) | Expr::Or(..) => super::condition::as_value(self.condition(e, e.position())?),
            Expr::Coalesce(list, _) => {
                let parts = list.iter().map(|x| self.expr(x)).collect::<C<Vec<_>>>()?;
                Box::new(move |c| {
                    let mut value = Dynamic::UNIT;
                    for part in &parts {
                        value = part(c)?;
                        if !value.is_unit() {
                            break;
                        }
                    }
                    Ok(value)
                })
            }
            Expr::Stmt(block) => {
                let body = self.block(block.statements())?;
                Box::new(move |c| match body(c)? {
                    super::stmt::Flow::Value(v) => Ok(v),
                    other => Err(other.escape()),
                })
            }
            Expr::FnCall(f, pos) => self.call(f, *pos)?,
            Expr::Dot(..) | Expr::Index(..) => self.chain_read(e)?,
            other => return Err(format!("it uses an expression the compiler does not cover ({})", kind(other))),
        })
    }

    /// `` `text ${x} more` ``: each part as text, as Rhai's `to_string` writes it.
    fn interpolated(&mut self, parts: &[Expr]) -> C<Eval> {
        let parts = parts.iter().map(|p| Ok((self.expr(p)?, p.position()))).collect::<C<Vec<_>>>()?;
        Ok(Box::new(move |c| {
            let mut text = String::new();
            for (part, pos) in &parts {
                let mut item = part(c)?.flatten();
                if item.is_string() || item.is_int() || item.is_bool() || item.is_char() {
                    let _ = write!(text, "{item}");
                } else {
                    let shown = c.call_rhai("to_string", true, &mut [&mut item], *pos)?;
                    let _ = write!(text, "{shown}");
                }
                over_limit(Sizes { strings: text.len(), ..Sizes::default() }, *pos)?;
            }
            Ok(Dynamic::from(ImmutableString::from(text)))
        }))
    }

    /// A call of compiled script function `index` written `name(args)`, made the ordinary way:
    /// a frame of its own, its arguments copied or lent, its result looked up among those
    /// remembered (`memo.rs`).
    fn script_call(&mut self, index: usize, f: &FnCallExpr, pos: Position) -> C<Eval> {
        let args = f.args.iter().map(|a| self.expr(a)).collect::<C<Vec<_>>>()?;
        // Arguments that are plain variables are read after the others are evaluated, as
        // Rhai reads them (`f(list, list.pop())` gives `f` the list popped), and may lend a
        // handle, a list or a map (see `lend`); a variable given twice is read so, and
        // lends, only in its first place.
        let lendable = self.lendable(&f.args);
        Ok(Box::new(move |c| {
            let base = c.stack.len();
            c.stack.push(Dynamic::UNIT);
            for (k, a) in args.iter().enumerate() {
                if lendable[k].is_some() {
                    c.stack.push(Dynamic::UNIT);
                    continue;
                }
                match a(c) {
                    Ok(v) => c.stack.push(v.flatten()),
                    Err(e) => {
                        pop_to(&mut c.stack, base);
                        return Err(e);
                    }
                }
            }
            let (lent, lent_values) = lendings(c, index, base, &lendable);
            // Called with plain values only (or lists and maps of them), the function's
            // result is that of its last call with the same ones (see `memo.rs`); given a
            // handle too (the `game`, or a `view` of a seat), while what that call read of
            // the game is unchanged (`script/reads.rs`). Calls given a handle or lent a list
            // or a map are remembered only where it has paid so far (`Memo::worth_trying`).
            let handles = lent & !lent_values;
            let game = if handles == 0 { None } else { lent_handle(&lendable, handles) };
            let (mut work, mut seat) = (0, None);
            let remember = if handles != 0 && game.is_none() {
                None
            } else {
                match look_up(c, index, base, &lendable, (lent_values, handles), game) {
                    Memoized::Hit(hit) => {
                        c.calls.ops += hit.ops;
                        c.calls.peak = c.calls.peak.max(c.calls.level + hit.depth);
                        pop_to(&mut c.stack, base);
                        return Ok(hit.result);
                    }
                    Memoized::Remember { key, args, seat: s, work: w } => {
                        (work, seat) = (w, s);
                        Some((key, args))
                    }
                    Memoized::Run => None,
                }
            };
            let recording = (remember.is_some() && game.is_some()).then(reads::open);
            let (ops, level, peak, called_back) = (c.calls.ops, c.calls.level, c.calls.peak, c.calls.called_back);
            c.calls.peak = level;
            lend(c, base, &lendable, lent);
            let (result, this) = c.enter_lending(index, base, false, pos, lent);
            release(this);
            give_back(c, &lendable, lent);
            let depth = c.calls.peak - level;
            c.calls.peak = c.calls.peak.max(peak);
            let read = match (recording, &result) {
                (None, _) => None,
                (Some(call), Ok(_)) => reads::close(call),
                (Some(call), Err(_)) => {
                    reads::abandon(call);
                    None
                }
            };
            if let (Some((key, args)), Ok(v)) = (remember, &result)
                && c.calls.called_back == called_back
            {
                let read = match (game, read) {
                    (None, _) => Some(None),
                    (Some(slot), Some(what)) => read_values(c, slot, what, work).map(Some),
                    (Some(_), None) => None,
                };
                if let Some(read) = read {
                    c.prog().memo.put(key, index, args, seat, v, c.calls.ops - ops, depth, read);
                }
            }
            result
        }))
    }

    /// A function call written `name(args)`, or an operator.
    fn call(&mut self, f: &FnCallExpr, pos: Position) -> C<Eval> {
        let name = f.name.clone();
        if f.op_token.is_some() {
            return self.operator(f, pos);
        }
        if KEYWORDS.contains(&name.as_str()) {
            return Err(format!("it calls `{name}`, which the compiler leaves to Rhai"));
        }
        if f.capture_parent_scope {
            return Err(format!("it calls `{name}!`, which sees the caller's variables"));
        }
        let script = self.index.get(&(name.clone(), f.args.len())).copied();
        if script.is_none() && ITERATORS.contains(&name.as_str()) {
            return Err(iterator(&name));
        }
        if let Some(index) = script {
            self.callees.push(index);
            return self.script_call(index, f, pos);
        }
        // A native: the first argument, if it is a variable, goes by reference (Rhai makes
        // `push(list, x)` a method call on `list`).
        let (first_slot, this_pos) = match f.args.first() {
            Some(Expr::Variable(x, _, _)) => (Some(self.lookup(&x.1)?), None),
            Some(Expr::ThisPtr(p)) => {
                let (slot, pos) = self.this_slot(*p);
                (Some(slot), pos)
            }
            _ => (None, None),
        };
        if let Some(slot) = first_slot {
            self.gives_to_native(slot, &name);
        }
        // `count_where(game, "hand", #{ kind: "key" })` is the method call, written as a function.
        if let (Some(slot), None) = (first_slot, this_pos)
            && let Some(direct) = self.direct_call(super::direct::Target::Slot(slot), &name, &f.args[1..], pos)?
        {
            return Ok(direct);
        }
        let skip = usize::from(first_slot.is_some());
        let args = f.args.iter().skip(skip).map(|a| self.expr(a)).collect::<C<Vec<_>>>()?;
        let site = self.native_site(&name, f.args.len(), pos);
        Ok(Box::new(move |c| {
            // `f(this, ...)` outside a method call fails on `this` before the other arguments.
            if let Some(p) = this_pos {
                this(c, p)?;
            }
            let mark = c.stack.len();
            push_args(c, &args)?;
            let result = match first_slot {
                Some(slot) => site.call_on_slot(c, slot, mark),
                None => site.call(c, None, mark),
            };
            pop_to(&mut c.stack, mark);
            result
        }))
    }

    /// A unary or binary operator.
    fn operator(&mut self, f: &FnCallExpr, pos: Position) -> C<Eval> {
        let name = f.name.clone();
        match f.args.as_slice() {
            [x] => {
                let x = self.expr(x)?;
                Ok(Box::new(move |c| {
                    let mut v = x(c)?.flatten();
                    match name.as_str() {
                        "!" if v.is_bool() => return Ok(Dynamic::from_bool(!v.as_bool().unwrap_or_default())),
                        "-" if v.is_int() => {
                            let n = v.as_int().unwrap_or_default();
                            return n
                                .checked_neg()
                                .map(Dynamic::from_int)
                                .ok_or_else(|| EvalAltResult::ErrorArithmetic("integer overflow".into(), pos).into());
                        }
                        _ => {}
                    }
                    c.call_rhai(&name, false, &mut [&mut v], pos)
                }))
            }
            [a, b] => {
                let op = Op::from_syntax(&name);
                let (a, b) = (self.operand(a)?, self.operand(b)?);
                let binary = self.binary(&name, pos);
                // The commonest operations, `count(...) > 0` or `position == 3`, have an integer
                // constant on the right: an integer on the left is computed here, at once.
                if let Operand::Constant(k) = &b
                    && let Ok(k) = k.as_int()
                {
                    match a {
                        Operand::Code(f) => {
                            return Ok(Box::new(move |c| {
                                let x = f(c)?.flatten();
                                if let Ok(n) = x.as_int()
                                    && let Some(v) = ops::ints(op, n, k)
                                {
                                    release(x);
                                    return Ok(v);
                                }
                                binary.run(c, Side::Computed(x), Side::At(&b))
                            }));
                        }
                        Operand::Slot(slot) => {
                            return Ok(Box::new(move |c| {
                                if let Ok(n) = c.slot_ref(slot).as_int()
                                    && let Some(v) = ops::ints(op, n, k)
                                {
                                    return Ok(v);
                                }
                                binary.run(c, Side::At(&Operand::Slot(slot)), Side::At(&b))
                            }));
                        }
                        Operand::Constant(_) => {}
                    }
                }
                Ok(Box::new(move |c| {
                    // Rhai evaluates `a`, then `b`. A variable or a constant is read in place,
                    // without a copy: reading has no effect, so it may come after the other
                    // operand unless that one is code that might change the variable.
                    let x = match &a {
                        Operand::Code(f) => Side::Computed(f(c)?.flatten()),
                        Operand::Slot(s) if matches!(b, Operand::Code(_)) => {
                            Side::Computed(c.slot(*s).clone().flatten())
                        }
                        _ => Side::At(&a),
                    };
                    let y = match &b {
                        Operand::Code(f) => Side::Computed(f(c)?.flatten()),
                        _ => Side::At(&b),
                    };
                    binary.run(c, x, y)
                }))
            }
            _ => Err(format!("it uses operator `{name}` with {} operands", f.args.len())),
        }
    }

    /// The site of binary operator `name` at `pos`.
    pub(super) fn binary(&self, name: &ImmutableString, pos: Position) -> Binary {
        Binary { op: Op::from_syntax(name), site: self.native_site(name, 2, pos), joins: ops::Joins::default() }
    }

    /// An operator's operand: a constant or a variable is read in place.
    pub(super) fn operand(&mut self, e: &Expr) -> C<Operand> {
        if let Some(v) = literal(e) {
            return Ok(Operand::Constant(v));
        }
        if let Expr::Variable(x, _, _) = e {
            return Ok(Operand::Slot(self.lookup(&x.1)?));
        }
        Ok(Operand::Code(self.expr(e)?))
    }

    /// A call site of the native `name` taking `arity` arguments: tabula's natives of that
    /// name and arity, else Rhai's (computed here for a few of its standard functions).
    pub(super) fn native_site(&self, name: &ImmutableString, arity: usize, pos: Position) -> NativeSite {
        NativeSite {
            last_pick: Cell::new((0, None)),
            name: name.clone(),
            candidates: Candidates(self.natives.with_arity(name, arity)),
            pos,
            std: ops::Std::named(name, arity),
            reads_only: READING_NATIVES.contains(&name.as_str()),
        }
    }

    /// Whether the scripts define a function `name` of `arity` parameters (which a call
    /// `name(args)` means rather than a native of that name).
    pub(super) fn defines(&self, name: &str, arity: usize) -> bool {
        self.index.contains_key(&(ImmutableString::from(name), arity))
    }

    /// The compiled script function a method call `x.name(args)` means, if any: one with as many
    /// parameters as the call has arguments (`x` becomes `this`).
    pub(super) fn method_target(&mut self, name: &ImmutableString, args: usize) -> Option<usize> {
        let &i = self.index.get(&(name.clone(), args))?;
        self.callees.push(i);
        Some(i)
    }
}

/// An operand of a binary operator (see [`FnCompiler::operand`]).
/// A binary operator's site: computed inline where `ops` can, else by Rhai's native.
pub(super) struct Binary {
    op: Op,
    site: NativeSite,
    joins: ops::Joins,
}

/// An operand's value for [`Binary::run`]: computed, or a constant or variable read in place.
pub(super) enum Side<'a> {
    Computed(Dynamic),
    At(&'a Operand),
}

impl Side<'_> {
    pub(super) fn read<'c>(&'c self, c: &'c Ctx) -> &'c Dynamic {
        match self {
            Side::Computed(v) => v,
            Side::At(operand) => operand.read(c),
        }
    }

    fn into_value(self, c: &Ctx) -> Dynamic {
        match self {
            Side::Computed(v) => v,
            Side::At(operand) => operand.read(c).clone(),
        }
    }

    pub(super) fn release(self) {
        if let Side::Computed(v) = self {
            release(v);
        }
    }
}

impl Binary {
    /// `x op y`, computed inline where `ops` can, else by Rhai's native.
    pub(super) fn run(&self, c: &mut Ctx, x: Side, y: Side) -> Res<Dynamic> {
        let inline = {
            let (x, y) = (x.read(c), y.read(c));
            let joined = if self.op == Op::Add { self.joins.add(x, y) } else { None };
            joined.or_else(|| ops::inline(self.op, x, y))
        };
        if let Some(v) = inline {
            x.release();
            y.release();
            return Ok(v);
        }
        let lists = self.op == Op::Add && x.read(c).is_array() && y.read(c).is_array();
        let (x, y) = (x.into_value(c), y.into_value(c));
        if lists {
            // Rhai checks the result's size as it checks any function's, and not how deep it
            // nests (the engine's own limit, which the interpreter checks where a variable is
            // read).
            let v = ops::concat(x, y);
            let sizes = Sizes { depth: 0, ..data_sizes(&v) };
            return over_limit(sizes, self.site.pos).map(|()| v);
        }
        let mark = c.stack.len();
        c.stack.push(x);
        c.stack.push(y);
        let result = self.site.call(c, None, mark);
        pop_to(&mut c.stack, mark);
        result
    }
}

/// `prefix + value` for a literal text `prefix`, as the `+` written there computes it (its kept
/// joins, the inline forms, or Rhai's native): what a name written `"pool." + seat` comes to
/// when the table of names with its prefix does not hold the value (see `direct.rs`).
pub(super) struct Join {
    binary: Binary,
    prefix: Operand,
}

impl Join {
    /// The `+` at `pos`, with its literal left operand.
    pub(super) fn new(fc: &FnCompiler, prefix: Dynamic, pos: Position) -> Self {
        let binary = Binary { op: Op::Add, site: fc.native_site(&"+".into(), 2, pos), joins: ops::Joins::default() };
        Join { binary, prefix: Operand::Constant(prefix) }
    }

    /// `prefix + value`.
    pub(super) fn run(&self, c: &mut Ctx, value: Dynamic) -> Res<Dynamic> {
        self.binary.run(c, Side::At(&self.prefix), Side::Computed(value))
    }
}

pub(super) enum Operand {
    Constant(Dynamic),
    Slot(usize),
    Code(Eval),
}

impl Operand {
    /// The value of a constant or a variable, where it is (`()` for code, which is evaluated
    /// instead).
    pub(super) fn read<'c>(&'c self, c: &'c Ctx) -> &'c Dynamic {
        match self {
            Operand::Constant(v) => v,
            Operand::Slot(s) => c.slot_ref(*s),
            Operand::Code(_) => &Dynamic::UNIT,
        }
    }
}

/// A call site of a native (tabula's, or else Rhai's), resolved by argument types at the call.
pub(super) struct NativeSite {
    /// The kinds of the arguments of the last call and the candidate they picked (see
    /// [`Candidates::pick_at`]).
    last_pick: Cell<(u32, Option<usize>)>,
    pub(super) name: ImmutableString,
    pub(super) candidates: Candidates,
    pub(super) pos: Position,
    /// A function of Rhai's standard library the compiler computes itself, if this is one.
    pub(super) std: Option<ops::Std>,
    /// Whether the native only reads a target it is given by reference ([`READING_NATIVES`]):
    /// Rhai checks the target's size after the call, in case it grew, and one that only read it
    /// left it as it was, within the limits (`x in m`, on a map of hundreds of entries, would
    /// otherwise walk it all at each call).
    pub(super) reads_only: bool,
}

impl NativeSite {
    /// Calls the native with `first` (if any: a method call's target, or a variable passed by
    /// reference) and the arguments on the stack from `from`, which it may consume. A native
    /// not taking its first argument by reference gets a copy of `first`.
    pub(super) fn call(&self, c: &mut Ctx, first: Option<&mut Dynamic>, from: usize) -> Res<Dynamic> {
        let (engine, store, stack) = c.split();
        self.call_with(engine, store, first, &mut stack[from..])
    }

    /// [`NativeSite::call`] with variable `slot` of the running function first, passed where it
    /// is (as Rhai passes a variable by reference).
    pub(super) fn call_on_slot(&self, c: &mut Ctx, slot: usize, from: usize) -> Res<Dynamic> {
        if self.std == Some(ops::Std::Push)
            && let Some(pushed) = self.push_onto_slot(c, slot, from)
        {
            return pushed;
        }
        let at = c.base + slot;
        c.forget_sizes(slot);
        let (engine, store, stack) = c.split();
        // A frame's slots lie below the arguments pushed for its calls.
        let (frame, rest) = stack.split_at_mut(from);
        match frame.get_mut(at) {
            Some(target) => self.call_with(engine, store, Some(target), rest),
            None => Err("internal: a variable outside its frame".into()),
        }
    }

    /// `list.push(item)` on variable `slot`, keeping the list's data sizes known as `list +=
    /// item` does ([`Ctx::take_sized`]): Rhai checks the list's sizes after every push, and
    /// walking the whole list each time made building a list of options item by item cost the
    /// square of its length. `None` when this is not Rhai's own `push` of one item onto a list
    /// (then [`NativeSite::call_with`] decides, as before).
    fn push_onto_slot(&self, c: &mut Ctx, slot: usize, from: usize) -> Option<Res<Dynamic>> {
        if c.stack.len() != from + 1 || !c.slot_ref(slot).is_array() {
            return None;
        }
        let types = [TypeId::of::<rhai::Array>(), c.stack[from].type_id()];
        if self.candidates.pick(&types).is_some() {
            return None;
        }
        let item = c.stack.pop()?;
        let (mut list, known) = c.take_sized(slot);
        let before = known.unwrap_or_else(|| data_sizes(&list));
        let after = before.with(data_sizes(&item), true);
        if let Some(mut items) = list.write_lock::<rhai::Array>() {
            items.push(item);
        }
        let checked = over_limit(after, self.pos);
        c.put_sized(slot, list, checked.is_ok().then_some(after));
        Some(checked.map(|()| Dynamic::UNIT))
    }

    fn call_with(
        &self,
        engine: &Engine,
        store: &mut Calls,
        first: Option<&mut Dynamic>,
        rest: &mut [Dynamic],
    ) -> Res<Dynamic> {
        if super::profile::on() {
            return self.call_profiled(engine, store, first, rest);
        }
        self.call_unprofiled(engine, store, first, rest)
    }

    /// [`NativeSite::call_with`] under `tabula sim --profile`: kept out of the way of the
    /// ordinary call.
    #[cold]
    #[inline(never)]
    fn call_profiled(
        &self,
        engine: &Engine,
        store: &mut Calls,
        first: Option<&mut Dynamic>,
        rest: &mut [Dynamic],
    ) -> Res<Dynamic> {
        let open = super::profile::enter(0);
        let result = self.call_unprofiled(engine, store, first, rest);
        super::profile::leave_native(open, &self.name);
        result
    }

    /// [`NativeSite::call_with`], not profiled.
    #[inline(always)]
    fn call_unprofiled(
        &self,
        engine: &Engine,
        store: &mut Calls,
        first: Option<&mut Dynamic>,
        rest: &mut [Dynamic],
    ) -> Res<Dynamic> {
        let pos = self.pos;
        let by_ref = first.is_some();
        // Most natives of Rhai's library have no namesake of tabula's: no types to compare.
        let picked = if self.candidates.0.is_empty() {
            None
        } else {
            let mut args: [&Dynamic; 9] = [&Dynamic::UNIT; 9];
            let mut n = 0;
            for v in first.as_deref().into_iter().chain(rest.iter()) {
                if let Some(place) = args.get_mut(n) {
                    *place = v;
                }
                n += 1;
            }
            match args.get(..n) {
                Some(args) => self.candidates.pick_at(&self.last_pick, args),
                None => self
                    .candidates
                    .pick(ArgTypes::of(first.as_deref().into_iter().chain(rest.iter())).as_slice())
                    .and_then(|k| self.candidates.0.get(k))
                    .map(|(_, f)| f),
            }
        };
        if let Some(func) = picked {
            let Some(native) = func.get_native_fn() else {
                return Err("internal: a native without a Rust function".into());
            };
            let mut copy;
            let first = match first {
                Some(f) if !func.is_method() => {
                    copy = f.clone();
                    Some(&mut copy)
                }
                other => other,
            };
            return with_refs(first, rest, |refs| {
                let v = native(None, refs)?;
                check_size(&v, pos)?;
                // Rhai checks the size of an argument passed by reference, which may have grown.
                match refs.first() {
                    Some(target) if by_ref && !self.reads_only => check_size(target, pos),
                    _ => Ok(()),
                }
                .map(|()| v)
            })
            .map_err(|e| fill_position(e, pos));
        }
        with_refs(first, rest, |refs| {
            if let Some(v) = self.std.and_then(|f| f.call(refs)) {
                return match refs.first() {
                    Some(target) if by_ref && !self.reads_only => check_size(target, pos).map(|()| v),
                    _ => Ok(v),
                };
            }
            super::ctx::call_rhai(engine, store, &self.name, by_ref, refs, pos)
        })
    }
}

/// Runs `f` with mutable references to `first` (if any) and `rest`, without allocating for up
/// to six arguments.
pub(super) fn with_refs<R>(
    first: Option<&mut Dynamic>,
    rest: &mut [Dynamic],
    f: impl FnOnce(&mut [&mut Dynamic]) -> R,
) -> R {
    match (first, rest) {
        (None, []) => f(&mut []),
        (None, [a]) => f(&mut [a]),
        (None, [a, b]) => f(&mut [a, b]),
        (None, [a, b, c]) => f(&mut [a, b, c]),
        (None, [a, b, c, d]) => f(&mut [a, b, c, d]),
        (None, [a, b, c, d, e]) => f(&mut [a, b, c, d, e]),
        (Some(t), []) => f(&mut [t]),
        (Some(t), [a]) => f(&mut [t, a]),
        (Some(t), [a, b]) => f(&mut [t, a, b]),
        (Some(t), [a, b, c]) => f(&mut [t, a, b, c]),
        (Some(t), [a, b, c, d]) => f(&mut [t, a, b, c, d]),
        (first, more) => {
            let mut refs: Vec<&mut Dynamic> = first.into_iter().chain(more.iter_mut()).collect();
            f(&mut refs)
        }
    }
}

/// Lends the callee the handles (`game`, `view`) that plain variables pass to its read-only
/// parameters, and the lists and maps they pass to parameters it never changes, instead of
/// copies: a handle's copy is a new box, a list's or a map's copies every item, and a parameter
/// never written (or, for a list or a map, never changed in place either) cannot tell what was
/// lent from a copy (the natives never change a handle itself). The arguments were evaluated
/// with placeholders in the lent places (reading a variable has no effect, and Rhai reads a
/// variable argument after evaluating the others); the values are moved in after all of them,
/// from the caller's slots, and moved back when the call returns (`give_back`), whatever it
/// returned.
/// Which of the variables given as arguments (`lendable`, by argument) compiled function `f`
/// may be lent (a bit set), and which of those are lists or maps (see `call`): a handle to a
/// parameter it never assigns, a list or a map to one whose value it never changes. The others
/// are copied onto the stack (from `base + 1`), in their argument's place.
fn lendings(c: &mut Ctx, f: usize, base: usize, lendable: &[Option<usize>]) -> (u8, u8) {
    let read_only = c.prog().read_only_params(f);
    let unchanged = c.prog().unchanged_params(f);
    let (mut lent, mut lent_values) = (0u8, 0u8);
    for (k, from) in lendable.iter().enumerate() {
        let Some(slot) = *from else { continue };
        let v = c.slot(slot);
        let handle = read_only & (1 << k) != 0 && crate::script::is_handle(v);
        // (No value is shared between variables: closures are off, `no_closure`.)
        let value = !handle && unchanged & (1 << k) != 0 && (v.is_array() || v.is_map());
        if handle || value {
            lent |= 1 << k;
            lent_values |= u8::from(value) << k;
        } else {
            let copied = v.clone().flatten();
            set(&mut c.stack[base + 1 + k], copied);
        }
    }
    (lent, lent_values)
}

/// Moves the lent arguments (`lent`, a bit set over `lendable`) from the caller's variables onto
/// the stack, from `base + 1`.
fn lend(c: &mut Ctx, base: usize, lendable: &[Option<usize>], lent: u8) {
    for (k, from) in lendable.iter().enumerate() {
        if let (Some(slot), true) = (*from, lent & (1 << k) != 0) {
            let original = std::mem::take(c.slot(slot));
            set(&mut c.stack[base + 1 + k], original);
        }
    }
}

/// Puts lent handles, lists and maps back in the caller's slots.
fn give_back(c: &mut Ctx, lendable: &[Option<usize>], lent: u8) {
    for (k, from) in lendable.iter().enumerate() {
        if let (Some(slot), true) = (*from, lent & (1 << k) != 0) {
            let handle = std::mem::take(&mut c.lent_back[k]);
            set(c.slot(slot), handle);
        }
    }
}

/// The running function's `this`, or Rhai's error when it was not called as a method.
pub(super) fn this<'c>(c: &'c mut Ctx, pos: Position) -> Res<&'c mut Dynamic> {
    if c.this_bound { Ok(c.slot(0)) } else { Err(EvalAltResult::ErrorUnboundThis(pos).into()) }
}

/// Why a function making one of Rhai's own iterators is left to Rhai (see [`ITERATORS`]).
pub(super) fn iterator(name: &str) -> String {
    format!("it calls `{name}`, whose iterator the compiler leaves to Rhai")
}

/// The value of a literal expression (a number, a word, a constant the optimizer folded).
pub(super) fn literal(e: &Expr) -> Option<Dynamic> {
    Some(match e {
        Expr::DynamicConstant(v, _) => (**v).clone(),
        Expr::BoolConstant(b, _) => Dynamic::from_bool(*b),
        Expr::IntegerConstant(i, _) => Dynamic::from_int(*i),
        Expr::CharConstant(c, _) => Dynamic::from_char(*c),
        Expr::StringConstant(s, _) => Dynamic::from(s.clone()),
        Expr::Unit(_) => Dynamic::UNIT,
        _ => return None,
    })
}

fn constant(v: Dynamic) -> Eval {
    // Plain values and strings are made afresh rather than copied through `Dynamic::clone`,
    // which is not inlined (a value with a tag or marked read-only keeps being copied).
    if v.tag() != 0 || v.is_read_only() {
        return Box::new(move |_| Ok(v.clone()));
    }
    if let Ok(n) = v.as_int() {
        return Box::new(move |_| Ok(Dynamic::from_int(n)));
    }
    if let Ok(b) = v.as_bool() {
        return Box::new(move |_| Ok(Dynamic::from_bool(b)));
    }
    if v.is_unit() {
        return Box::new(|_| Ok(Dynamic::UNIT));
    }
    if let Some(s) = v.read_lock::<ImmutableString>().map(|s| s.clone()) {
        return Box::new(move |_| Ok(Dynamic::from(s.clone())));
    }
    Box::new(move |_| Ok(v.clone()))
}

/// A short name for a kind of expression, for fallback reasons.
fn kind(e: &Expr) -> &'static str {
    match e {
        Expr::Property(..) => "a property outside a chain",
        Expr::MethodCall(..) => "a method call outside a chain",
        _ => "an unusual expression",
    }
}

/// The caller's slot holding the handle a call lends (`lent` marks the handles among its
/// arguments), if it lends one only: the `game`, or a `view` (what a call given a view sees
/// depends on its seat, which the memo keys on too).
fn lent_handle(lendable: &[Option<usize>], lent: u8) -> Option<usize> {
    let mut handle = None;
    for (k, from) in lendable.iter().enumerate() {
        if let (Some(slot), true) = (*from, lent & (1 << k) != 0) {
            if handle.is_some() {
                return None;
            }
            handle = Some(slot);
        }
    }
    handle
}

/// What the memo says of a call (see [`look_up`]).
enum Memoized {
    /// Its result, remembered.
    Hit(Hit),
    /// Run it and remember what it gives, under `key` with these arguments; given a `view`,
    /// of `seat`; `work`: the engine work the `game` had counted before it.
    Remember { key: Key, args: Box<[Dynamic]>, seat: Option<SeatId>, work: u64 },
    /// Run it and forget it.
    Run,
}

/// Looks a call of `function` (its arguments on the stack from `base + 1`) up in the memo,
/// comparing what it read with the game its handle (in the caller's `slot`) shows. `lent`: the
/// arguments lent as values (lists and maps, read in the caller's slots) and as handles.
#[inline(always)]
fn look_up(
    c: &Ctx,
    function: usize,
    base: usize,
    lendable: &[Option<usize>],
    (values, handles): (u8, u8),
    slot: Option<usize>,
) -> Memoized {
    let memo = &c.prog().memo;
    let passed = &c.stack[base + 1..];
    // Calls given a handle, a list or a map are remembered only where it has paid so far (a list
    // passed is known once the arguments are hashed).
    let judged = slot.is_some() || values != 0;
    if judged && !memo.worth_trying(function) {
        return Memoized::Run;
    }
    let mut lent = [None; 8];
    if values != 0 {
        for (k, from) in lendable.iter().enumerate() {
            if let (Some(from), true) = (*from, values & (1 << k) != 0) {
                lent[k] = Some(&c.stack[c.base + from]);
            }
        }
    }
    let args = if values == 0 { Args::passed(passed) } else { Args::lent(passed, &lent) };
    let handle = slot.map(|slot| &c.stack[c.base + slot]);
    let game = handle.and_then(|h| h.read_lock::<GameApi>());
    let view = if game.is_none() { handle.and_then(|h| h.read_lock::<SeatView>()) } else { None };
    if handle.is_some() && game.is_none() && view.is_none() {
        return Memoized::Run;
    }
    let seat = view.as_ref().map(|v| v.seat);
    let Some(key) = Memo::key(function, args, handles, seat) else { return Memoized::Run };
    if !judged && key.items > 0 && !memo.worth_trying(function) {
        return Memoized::Run;
    }
    let now = Limits { ops: c.calls.ops, level: c.calls.level };
    let mut work = 0;
    let found = if let Some(g) = &game {
        work = g.work.get();
        let state = g.state.borrow();
        let found = memo.get(key, function, args, &now, Some(&Seen { defs: &g.defs, state: &state, work, seat: None }));
        if let Lookup::Hit(hit) = &found {
            g.work.set(work + hit.work);
        }
        found
    } else if let Some(v) = &view {
        let state = v.state.borrow();
        memo.get(key, function, args, &now, Some(&Seen { defs: &v.defs, state: &state, work: 0, seat }))
    } else {
        memo.get(key, function, args, &now, None)
    };
    match found {
        Lookup::Hit(hit) => Memoized::Hit(hit),
        Lookup::Absent => Memoized::Remember { key, args: args.to_owned(), seat, work },
        Lookup::Run => Memoized::Run,
    }
}

/// What a call given the `game` (in the caller's `slot`) read of it, with the values now (the
/// call changed nothing, or it would not be remembered) and the engine work it counted (from
/// `before`).
fn read_values(c: &Ctx, slot: usize, what: reads::Closed, before: u64) -> Option<super::memo::Read> {
    let handle = &c.stack[c.base + slot];
    let mut values = Vec::new();
    let work = if let Some(g) = handle.read_lock::<GameApi>() {
        reads::values(&g.defs, &g.state.borrow(), &what.reads, &mut values);
        g.work.get().saturating_sub(before)
    } else {
        let v = handle.read_lock::<SeatView>()?;
        reads::values(&v.defs, &v.state.borrow(), &what.reads, &mut values);
        0
    };
    Some(super::memo::Read { what: what.reads, values: values.into_boxed_slice(), work, noted: what.noted })
}
