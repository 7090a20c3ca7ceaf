//! Operators: integer, boolean and string arithmetic and comparisons inline, as Rhai's built-in
//! operators compute them; anything else (other types, overflow, division by zero, whose error
//! messages are Rhai's) is handed to Rhai.

use std::cell::RefCell;

use rhai::{Dynamic, ImmutableString, Position};

use super::ctx::{Ctx, Res, Sizes, data_sizes, over_limit, release, set};
use crate::script::MAX_DATA_SIZE;

/// A binary operator the compiler computes inline for some types.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    BitXor,
    /// `<<` and `>>`.
    Shl,
    Shr,
    /// `..` and `..=`.
    Range,
    RangeInclusive,
    /// Any other operator: always Rhai's.
    Other,
}

impl Op {
    /// The operator written `syntax` (`+`, `==`, ...); op-assignments name their operator.
    pub(super) fn from_syntax(syntax: &str) -> Op {
        match syntax {
            "+" | "+=" => Op::Add,
            "-" | "-=" => Op::Sub,
            "*" | "*=" => Op::Mul,
            "/" | "/=" => Op::Div,
            "%" | "%=" => Op::Rem,
            "==" => Op::Eq,
            "!=" => Op::Ne,
            "<" => Op::Lt,
            "<=" => Op::Le,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "&" | "&=" => Op::BitAnd,
            "|" | "|=" => Op::BitOr,
            "^" | "^=" => Op::BitXor,
            "<<" | "<<=" => Op::Shl,
            ">>" | ">>=" => Op::Shr,
            ".." => Op::Range,
            "..=" => Op::RangeInclusive,
            _ => Op::Other,
        }
    }
}

/// `a op b` on integers, or `None` where Rhai must say what happens (overflow, division by
/// zero, an operator computed elsewhere).
#[inline]
pub(super) fn ints(op: Op, a: i64, b: i64) -> Option<Dynamic> {
    if let Some(holds) = compare(op, &a, &b) {
        return Some(Dynamic::from_bool(holds));
    }
    Some(match op {
        Op::Add => Dynamic::from_int(a.checked_add(b)?),
        Op::Sub => Dynamic::from_int(a.checked_sub(b)?),
        Op::Mul => Dynamic::from_int(a.checked_mul(b)?),
        Op::Div => Dynamic::from_int(a.checked_div(b)?),
        Op::Rem => Dynamic::from_int(a.checked_rem(b)?),
        Op::BitAnd => Dynamic::from_int(a & b),
        Op::BitOr => Dynamic::from_int(a | b),
        Op::BitXor => Dynamic::from_int(a ^ b),
        Op::Shl => Dynamic::from_int(shift_left(a, b)),
        Op::Shr => Dynamic::from_int(shift_right(a, b)),
        Op::Range => Dynamic::from(a..b),
        Op::RangeInclusive => Dynamic::from(a..=b),
        _ => return None,
    })
}

/// `a << b` as Rhai's checked arithmetic computes it: a negative shift goes the other way, a
/// shift past the integer's width gives 0.
fn shift_left(a: i64, b: i64) -> i64 {
    match u32::try_from(b) {
        Ok(b) => a.checked_shl(b).unwrap_or(0),
        Err(_) if b < 0 => shift_right(a, b.checked_abs().unwrap_or(i64::MAX)),
        Err(_) => 0,
    }
}

/// `a >> b` as Rhai's checked arithmetic computes it: a negative shift goes the other way, a
/// shift past the integer's width gives the sign (0 or -1).
fn shift_right(a: i64, b: i64) -> i64 {
    match u32::try_from(b) {
        Ok(b) => a.checked_shr(b).unwrap_or_else(|| a.wrapping_shr(u32::MAX)),
        Err(_) if b < 0 => shift_left(a, b.checked_abs().unwrap_or(i64::MAX)),
        Err(_) => a.wrapping_shr(u32::MAX),
    }
}

/// `a op b` for the six comparisons, on values of one ordered kind (numbers, texts).
#[inline]
pub(super) fn compare<T: PartialOrd + ?Sized>(op: Op, a: &T, b: &T) -> Option<bool> {
    Some(match op {
        Op::Eq => a == b,
        Op::Ne => a != b,
        Op::Lt => a < b,
        Op::Le => a <= b,
        Op::Gt => a > b,
        Op::Ge => a >= b,
        _ => return None,
    })
}

/// A comparison of values of different kinds (or of two units), as Rhai's built-in operators
/// answer it: only equal when both are `()`, never ordered. Not for a string against a
/// character, which Rhai compares as text, nor for the engine's own types, whose natives may
/// define the operator.
fn unlike(op: Op, a: &Dynamic, b: &Dynamic) -> Option<Dynamic> {
    if a.is_variant() || b.is_variant() || a.is_blob() || b.is_blob() {
        return None;
    }
    let both_unit = a.is_unit() && b.is_unit();
    if !both_unit && (a.type_id() == b.type_id() || (a.is_string() && b.is_char()) || (a.is_char() && b.is_string())) {
        return None;
    }
    match op {
        Op::Eq => Some(Dynamic::from_bool(both_unit)),
        Op::Ne => Some(Dynamic::from_bool(!both_unit)),
        Op::Lt | Op::Le | Op::Gt | Op::Ge => Some(Dynamic::FALSE),
        _ => None,
    }
}

fn bools(op: Op, a: bool, b: bool) -> Option<Dynamic> {
    Some(Dynamic::from_bool(match op {
        Op::Eq => a == b,
        Op::Ne => a != b,
        Op::BitAnd => a & b,
        Op::BitOr => a | b,
        Op::BitXor => a ^ b,
        _ => return None,
    }))
}

fn strings(op: Op, a: &ImmutableString, b: &ImmutableString) -> Option<Dynamic> {
    if let Some(holds) = compare(op, a.as_str(), b.as_str()) {
        return Some(Dynamic::from_bool(holds));
    }
    Some(match op {
        Op::Add if a.len() + b.len() <= MAX_DATA_SIZE => {
            if b.is_empty() {
                Dynamic::from(a.clone())
            } else if a.is_empty() {
                Dynamic::from(b.clone())
            } else {
                let mut s = String::with_capacity(a.len() + b.len());
                s.push_str(a);
                s.push_str(b);
                Dynamic::from(ImmutableString::from(s))
            }
        }
        _ => return None,
    })
}

/// The texts one `+` in the scripts joined last, each kept with what it was made of, so that
/// `"hand." + seat` in a loop builds each zone's name once rather than at every round. Rhai's
/// strings are shared and copied on write, so handing out the same string again is not
/// observable.
#[derive(Default)]
pub(super) struct Joins(RefCell<Vec<(ImmutableString, Joined, ImmutableString)>>);

/// What was added to a text.
#[derive(PartialEq)]
enum Joined {
    Text(ImmutableString),
    Number(i64),
}

impl Joins {
    /// How many joins one `+` keeps: a loop over the seats, or over a handful of names.
    const KEPT: usize = 8;
    /// Longer texts are not kept, not to hold on to a string built up piece by piece.
    const LONGEST: usize = 64;

    /// `a + b` for a text `a` and a text or a number `b`, as [`inline`] computes it, from the
    /// kept joins when it was computed lately.
    pub(super) fn add(&self, a: &Dynamic, b: &Dynamic) -> Option<Dynamic> {
        let x = a.as_immutable_string_ref().ok()?;
        let y = match (b.as_immutable_string_ref(), b.as_int()) {
            (Ok(y), _) if !x.is_empty() && !y.is_empty() => Joined::Text(y.clone()),
            (_, Ok(n)) => Joined::Number(n),
            _ => return None,
        };
        let mut kept = self.0.try_borrow_mut().ok()?;
        if let Some((_, _, joined)) = kept.iter().find(|(k, j, _)| *j == y && *k == *x) {
            return Some(Dynamic::from(joined.clone()));
        }
        let joined = inline(Op::Add, a, b)?;
        if let Ok(text) = joined.as_immutable_string_ref()
            && text.len() <= Self::LONGEST
        {
            if kept.len() == Self::KEPT {
                kept.remove(0);
            }
            kept.push((x.clone(), y, text.clone()));
        }
        Some(joined)
    }
}

/// The inline result of `a op b`, if the compiler computes it for these types.
#[inline]
pub(super) fn inline(op: Op, a: &Dynamic, b: &Dynamic) -> Option<Dynamic> {
    if let (Ok(x), Ok(y)) = (a.as_int(), b.as_int()) {
        return ints(op, x, y);
    }
    if let (Ok(x), Ok(y)) = (a.as_bool(), b.as_bool()) {
        return bools(op, x, y);
    }
    if let (Ok(x), Ok(y)) = (a.as_immutable_string_ref(), b.as_immutable_string_ref()) {
        return strings(op, &x, &y);
    }
    if let (Op::Add, Ok(x), Ok(y)) = (op, a.as_immutable_string_ref(), b.as_int()) {
        // `text + number`: Rhai's `+` writes the number after the text.
        let mut s = String::with_capacity(x.len() + 20);
        s.push_str(&x);
        s.push_str(&y.to_string());
        return (s.len() <= MAX_DATA_SIZE).then(|| Dynamic::from(ImmutableString::from(s)));
    }
    unlike(op, a, b)
}

/// `target op= value` as Rhai runs it: its op-assignment if it has one for these types, else
/// `target = target op value`; then the size check.
pub(super) fn assign(
    ctx: &mut Ctx,
    op: Op,
    syntax: (&str, &str),
    target: &mut Dynamic,
    value: Dynamic,
    pos: Position,
    root: Position,
) -> Res<()> {
    assign_sized(ctx, op, syntax, target, value, pos, root, None).map(|_| ())
}

/// [`assign`], given the target's data sizes when they are known, and giving them after a push
/// (`list += item`): the list's sizes are then its sizes before plus the item's, the same
/// figures the whole walk of the list finds, without walking it.
#[allow(clippy::too_many_arguments)]
pub(super) fn assign_sized(
    ctx: &mut Ctx,
    op: Op,
    syntax: (&str, &str),
    target: &mut Dynamic,
    mut value: Dynamic,
    pos: Position,
    root: Position,
    known: Option<Sizes>,
) -> Res<Option<Sizes>> {
    if let Some(v) = inline(op, target, &value) {
        // Released, not dropped: most are integers, which Rhai's drop code would be called for.
        set(target, v);
        release(value);
        return Ok(None);
    }
    // `list += other` appends the other list's items as Rhai's built-in `+=` on two lists does:
    // nothing for an empty list; else the target's size checked before (not how deep it nests,
    // the engine's own limit), and not after. The sizes after are the two lists' added up, known
    // from here on: a listing that appends each piece's options (`out += piece_steps(game, p)`)
    // would otherwise walk the whole list again at each piece.
    if op == Op::Add && value.is_array() && target.is_array() {
        if value.as_array_ref().is_ok_and(|items| items.is_empty()) {
            return Ok(known);
        }
        let before = match known {
            Some(sizes) => sizes,
            None => data_sizes(target),
        };
        if target.as_array_ref().is_ok_and(|list| !list.is_empty()) {
            over_limit(Sizes { depth: 0, ..before }, pos)?;
        }
        let added = data_sizes(&value);
        let items = std::mem::take(&mut value).into_array().unwrap_or_default();
        if let Some(mut list) = target.write_lock::<rhai::Array>() {
            if list.is_empty() {
                *list = items;
            } else {
                list.extend(items);
            }
        }
        return Ok(Some(before.joined(added)));
    }
    // `list += x` pushes `x` when it is not a list (Rhai's `+=` on a list is its `push`, or its
    // `append` for a list).
    if op == Op::Add
        && !value.is_array()
        && let Some(mut list) = target.write_lock::<rhai::Array>()
    {
        let item = known.map(|_| data_sizes(&value));
        list.push(value);
        drop(list);
        let sizes = match (known, item) {
            (Some(before), Some(item)) => before.with(item, true),
            _ => data_sizes(target),
        };
        over_limit(sizes, root)?;
        return Ok(Some(sizes));
    }
    let (op_assign, op_name) = syntax;
    match ctx.call_rhai(op_assign, true, &mut [&mut *target, &mut value], pos) {
        Ok(_) => {}
        Err(err) if matches!(&*err, rhai::EvalAltResult::ErrorFunctionNotFound(f, ..) if f.starts_with(op_assign)) => {
            let v = ctx.call_rhai(op_name, true, &mut [&mut *target, &mut value], pos)?;
            *target = v;
        }
        Err(err) => return Err(err),
    }
    super::ctx::check_size(target, root).map(|()| None)
}

/// `a + b` for two lists, as Rhai's library computes it (`concat`): the items of `a`, then
/// those of `b`. The caller checks the result's size, as Rhai checks a function's result.
pub(super) fn concat(a: Dynamic, b: Dynamic) -> Dynamic {
    let (mut a, b) = (a.into_array().unwrap_or_default(), b.into_array().unwrap_or_default());
    if a.is_empty() {
        a = b;
    } else {
        a.extend(b);
    }
    Dynamic::from_array(a)
}

/// Functions of Rhai's standard library the compiler computes itself, as the library does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Std {
    Len,
    IsEmpty,
    Min,
    Max,
    Contains,
    Push,
    StartsWith,
    ToString,
    Truncate,
    Abs,
    SubString,
    Pop,
}

impl Std {
    /// The function `name` taking `arity` arguments, if the compiler computes it.
    pub(super) fn named(name: &str, arity: usize) -> Option<Std> {
        Some(match (name, arity) {
            ("len", 1) => Std::Len,
            ("is_empty", 1) => Std::IsEmpty,
            ("min", 2) => Std::Min,
            ("max", 2) => Std::Max,
            ("contains", 2) => Std::Contains,
            ("push", 2) => Std::Push,
            ("starts_with", 2) => Std::StartsWith,
            ("to_string", 1) => Std::ToString,
            ("truncate", 2) => Std::Truncate,
            ("abs", 1) => Std::Abs,
            ("sub_string", 2 | 3) => Std::SubString,
            ("pop", 1) => Std::Pop,
            _ => return None,
        })
    }

    /// The result for these arguments, or `None` when they are of other kinds (Rhai decides).
    /// `push` changes its first argument.
    pub(super) fn call(self, args: &mut [&mut Dynamic]) -> Option<Dynamic> {
        use rhai::{Array, Map};
        let as_int = |v: usize| i64::try_from(v).unwrap_or(i64::MAX);
        match (self, args) {
            (Std::Len, [a]) => {
                if let Some(list) = a.read_lock::<Array>() {
                    Some(Dynamic::from_int(as_int(list.len())))
                } else if let Some(map) = a.read_lock::<Map>() {
                    Some(Dynamic::from_int(as_int(map.len())))
                } else {
                    let s = a.as_immutable_string_ref().ok()?;
                    Some(Dynamic::from_int(as_int(s.chars().count())))
                }
            }
            (Std::IsEmpty, [a]) => {
                if let Some(list) = a.read_lock::<Array>() {
                    Some(Dynamic::from_bool(list.is_empty()))
                } else {
                    a.read_lock::<Map>().map(|m| Dynamic::from_bool(m.is_empty()))
                }
            }
            (Std::Min, [a, b]) => {
                let (x, y) = (a.as_int().ok()?, b.as_int().ok()?);
                Some(Dynamic::from_int(if x <= y { x } else { y }))
            }
            (Std::Max, [a, b]) => {
                let (x, y) = (a.as_int().ok()?, b.as_int().ok()?);
                Some(Dynamic::from_int(if x >= y { x } else { y }))
            }
            (Std::Contains, [a, b]) => {
                let map = a.read_lock::<Map>()?;
                let key = b.as_immutable_string_ref().ok()?;
                Some(Dynamic::from_bool(map.contains_key(key.as_str())))
            }
            (Std::StartsWith, [a, b]) => {
                let (s, prefix) = (a.as_immutable_string_ref().ok()?, b.as_immutable_string_ref().ok()?);
                Some(Dynamic::from_bool(s.starts_with(prefix.as_str())))
            }
            (Std::ToString, [a]) => {
                let n = a.as_int().ok()?;
                Some(Dynamic::from(ImmutableString::from(n.to_string())))
            }
            (Std::Push, [a, b]) => {
                let mut list = a.write_lock::<Array>()?;
                list.push(std::mem::take(*b));
                Some(Dynamic::UNIT)
            }
            (Std::Truncate, [a, b]) => {
                // As the library's `truncate`: a length of 0 or less empties the list.
                let len = b.as_int().ok()?;
                let mut list = a.write_lock::<Array>()?;
                list.truncate(usize::try_from(len).unwrap_or(0));
                Some(Dynamic::UNIT)
            }
            // The library's `abs` fails on the one integer without a positive counterpart:
            // Rhai says so.
            (Std::Abs, [a]) => a.as_int().ok()?.checked_abs().map(Dynamic::from_int),
            (Std::SubString, [s, start]) => {
                let (text, start) = (s.as_immutable_string_ref().ok()?, start.as_int().ok()?);
                // As the library's: from `start` to the end, given as the text's length in bytes.
                let len = i64::try_from(text.len()).unwrap_or(i64::MAX);
                Some(Dynamic::from(sub_string(&text, start, len)))
            }
            (Std::SubString, [s, start, len]) => {
                let (text, start, len) = (s.as_immutable_string_ref().ok()?, start.as_int().ok()?, len.as_int().ok()?);
                Some(Dynamic::from(sub_string(&text, start, len)))
            }
            (Std::Pop, [a]) => {
                let mut list = a.write_lock::<Array>()?;
                Some(list.pop().unwrap_or(Dynamic::UNIT))
            }
            _ => None,
        }
    }
}

/// `text.sub_string(start, len)` as Rhai's library computes it, counting characters: a negative
/// `start` counts from the end (before the first character, from the first), a `start` past
/// the end or a `len` of 0 or less gives an empty text, and `len` stops at the end.
fn sub_string(text: &str, start: i64, len: i64) -> ImmutableString {
    if text.is_empty() || len <= 0 {
        return ImmutableString::new();
    }
    let chars = text.chars().count();
    let offset = if start < 0 {
        let Ok(back) = usize::try_from(start.unsigned_abs()) else { return ImmutableString::new() };
        chars.saturating_sub(back)
    } else {
        match usize::try_from(start) {
            Ok(start) if start < chars => start,
            _ => return ImmutableString::new(),
        }
    };
    let len = usize::try_from(len)
        .ok()
        .filter(|len| len.checked_add(offset).is_some_and(|end| end <= chars))
        .unwrap_or(chars - offset);
    text.chars().skip(offset).take(len).collect::<String>().into()
}
