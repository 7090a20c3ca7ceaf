//! Operators: integer, boolean and string arithmetic and comparisons inline, as Rhai's built-in
//! operators compute them; anything else (other types, overflow, division by zero, whose error
//! messages are Rhai's) is handed to Rhai.

use rhai::{Dynamic, ImmutableString, Position};

use super::ctx::{Ctx, Res};
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
            _ => Op::Other,
        }
    }
}

/// `a op b` on integers, or `None` where Rhai must say what happens (overflow, division by
/// zero, an operator computed elsewhere).
#[inline]
fn ints(op: Op, a: i64, b: i64) -> Option<Dynamic> {
    Some(match op {
        Op::Add => Dynamic::from_int(a.checked_add(b)?),
        Op::Sub => Dynamic::from_int(a.checked_sub(b)?),
        Op::Mul => Dynamic::from_int(a.checked_mul(b)?),
        Op::Div => Dynamic::from_int(a.checked_div(b)?),
        Op::Rem => Dynamic::from_int(a.checked_rem(b)?),
        Op::Eq => Dynamic::from_bool(a == b),
        Op::Ne => Dynamic::from_bool(a != b),
        Op::Lt => Dynamic::from_bool(a < b),
        Op::Le => Dynamic::from_bool(a <= b),
        Op::Gt => Dynamic::from_bool(a > b),
        Op::Ge => Dynamic::from_bool(a >= b),
        Op::BitAnd => Dynamic::from_int(a & b),
        Op::BitOr => Dynamic::from_int(a | b),
        Op::BitXor => Dynamic::from_int(a ^ b),
        Op::Other => return None,
    })
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
        Op::Eq => Dynamic::from_bool(a == b),
        Op::Ne => Dynamic::from_bool(a != b),
        Op::Lt => Dynamic::from_bool(a < b),
        Op::Le => Dynamic::from_bool(a <= b),
        Op::Gt => Dynamic::from_bool(a > b),
        Op::Ge => Dynamic::from_bool(a >= b),
        _ => return None,
    })
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
    None
}

/// `a op b` (written `name`): inline when it can be, else Rhai's operator.
pub(super) fn binary(ctx: &mut Ctx, op: Op, name: &str, mut a: Dynamic, mut b: Dynamic, pos: Position) -> Res<Dynamic> {
    if let Some(v) = inline(op, &a, &b) {
        return Ok(v);
    }
    ctx.call_rhai(name, false, &mut [&mut a, &mut b], pos)
}

/// `target op= value` as Rhai runs it: its op-assignment if it has one for these types, else
/// `target = target op value`; then the size check.
pub(super) fn assign(
    ctx: &mut Ctx,
    op: Op,
    syntax: (&str, &str),
    target: &mut Dynamic,
    mut value: Dynamic,
    pos: Position,
    root: Position,
) -> Res<()> {
    if let Some(v) = inline(op, target, &value) {
        *target = v;
        return Ok(());
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
    super::ctx::check_size(target, root)
}
