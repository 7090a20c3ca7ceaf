//! Dot and index chains: `args.seat`, `list[i]`, `game.counter("x")`, `map.rule_fn(game, x)`
//! (a script function with `this`), `a.b[i].c`, and assignments into them (`m.x = 1`,
//! `list[i] += 2`).
//!
//! As in Rhai, the arguments of every step are evaluated first, then the chain is walked on
//! the base: a variable is walked in place (a method call changes it, as `list.push(x)` does),
//! any other base on a temporary value.

use rhai::{ASTFlags, Dynamic, EvalAltResult, Expr, ImmutableString, Position};

use super::ctx::{Ctx, Res, pop_to, push_args, set};
use super::direct::Target;
use super::expr::{FnCompiler, ITERATORS, KEYWORDS, NativeSite, iterator, this};
use super::index;
use super::inline::On;
use super::ops::{self, Op};
use super::{C, Eval, Exec, stmt::Flow};
use crate::script::{MAX_DEPTH, TOO_DEEP, nests_deeper};

/// One step of a chain.
enum Step {
    /// `.name` on a map (or a getter).
    Prop(ImmutableString, Position),
    /// `[i]`: the index is evaluated with the chain's arguments. Where the index starts, and
    /// where its `[` is.
    Index(Eval, Position, Position),
    /// `.name(args)`: a script function with `this`, or a native taking the target first.
    Method { site: NativeSite, script: Option<usize>, args: Vec<Eval>, name: ImmutableString },
}

impl Step {
    fn arity(&self) -> usize {
        match self {
            Step::Prop(..) => 0,
            Step::Index(..) => 1,
            Step::Method { args, .. } => args.len(),
        }
    }
}

/// Where a chain starts.
enum Base {
    Slot(usize),
    This(Position),
    Value(Eval),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dot,
    Index,
}

struct Chain {
    base: Base,
    steps: Vec<Step>,
    /// Where the chain starts (its variable, or `this`), which Rhai names when an assignment
    /// makes a value too large.
    root: Position,
}

impl FnCompiler<'_> {
    /// Reads a chain's value.
    pub(super) fn chain_read(&mut self, e: &Expr) -> C<Eval> {
        // `x.f(args)` on a variable or `this`, where `f` has a direct form (see `direct.rs`).
        if let Expr::Dot(x, flags, _) = e
            && !flags.contains(ASTFlags::NEGATED)
            && let Expr::MethodCall(f, pos) = &x.rhs
        {
            let target = match &x.lhs {
                Expr::Variable(v, _, _) => {
                    let slot = self.lookup(&v.1)?;
                    self.gives_to_native(slot, &f.name);
                    Some(Target::Slot(slot))
                }
                Expr::ThisPtr(at) => match self.this_slot(*at) {
                    (slot, None) => {
                        self.gives_to_native(slot, &f.name);
                        Some(Target::Slot(slot))
                    }
                    (_, Some(at)) => Some(Target::This(at)),
                },
                _ => None,
            };
            if let Some(target) = target
                && let Some(direct) = self.direct_call(target, &f.name, &f.args, *pos)?
            {
                return Ok(direct);
            }
        }
        let mut chain = self.chain(e)?;
        // `x.f(game, here)` or `this.f(game)` with a script function `f`, which may be small
        // enough to be compiled into the caller (`inline.rs`).
        let on = match chain.base {
            Base::Slot(slot) => Some(On::Slot(slot)),
            Base::This(at) => Some(On::This(at)),
            Base::Value(_) => None,
        };
        if let (Some(on), [Step::Method { script: Some(f), .. }], Expr::Dot(x, ..)) = (on, chain.steps.as_slice(), e)
            && let Expr::MethodCall(call, pos) = &x.rhs
        {
            let f = *f;
            let ordinary: Eval = Box::new(move |c| {
                let mark = c.stack.len();
                let result = chain.run(c, mark, None);
                pop_to(&mut c.stack, mark);
                result
            });
            return self.inline_call(f, on, &call.args, *pos, ordinary);
        }
        // The most common chains get a closure of their own: `x.f(args)` with a native `f`
        // (`game.counter("round")`), and `x.name` (`args.seat`).
        if let (Base::Slot(slot), [_]) = (&chain.base, chain.steps.as_slice()) {
            let slot = *slot;
            match chain.steps.pop() {
                Some(Step::Method { site, script: None, args, .. }) => {
                    return Ok(Box::new(move |c| {
                        let mark = c.stack.len();
                        push_args(c, &args)?;
                        let result = site.call_on_slot(c, slot, mark);
                        pop_to(&mut c.stack, mark);
                        result
                    }));
                }
                Some(Step::Prop(name, pos)) => {
                    return Ok(Box::new(move |c| {
                        // Reading a map's property leaves the map's known sizes known.
                        if let Some(map) = c.slot_ref(slot).read_lock::<rhai::Map>() {
                            return Ok(map.get(name.as_str()).cloned().unwrap_or(Dynamic::UNIT));
                        }
                        let mut target = std::mem::take(c.slot(slot));
                        let result = c.call_rhai(&format!("get${name}"), true, &mut [&mut target], pos);
                        set(c.slot(slot), target);
                        result
                    }));
                }
                Some(step) => chain.steps.push(step),
                None => {}
            }
        }
        Ok(Box::new(move |c| {
            let mark = c.stack.len();
            let result = chain.run(c, mark, None);
            pop_to(&mut c.stack, mark);
            result
        }))
    }

    /// `chain = value` or `chain op= value`.
    pub(super) fn chain_assign(
        &mut self,
        lhs: &Expr,
        op: Option<(Op, &'static str, &'static str)>,
        rhs: Eval,
        pos: Position,
    ) -> C<Exec> {
        let chain = self.chain(lhs)?;
        if let Base::Slot(slot) = chain.base {
            self.writes(slot);
        }
        if chain.steps.iter().any(|s| matches!(s, Step::Method { .. })) {
            return Err("it assigns through a method call".into());
        }
        let root = chain.root;
        // The value goes as many levels down as the chain has steps: what it may nest.
        let room = MAX_DEPTH.saturating_sub(chain.steps.len());
        Ok(Box::new(move |c| {
            let value = rhs(c)?.flatten();
            if (value.is_array() || value.is_map()) && nests_deeper(&value, room) {
                return Err(EvalAltResult::ErrorDataTooLarge(TOO_DEEP.to_string(), pos).into());
            }
            let mark = c.stack.len();
            let result = chain.run(c, mark, Some((op, value, pos, root)));
            pop_to(&mut c.stack, mark);
            result.map(|_| Flow::Value(Dynamic::UNIT))
        }))
    }

    fn chain(&mut self, e: &Expr) -> C<Chain> {
        let (x, flags, kind) = match e {
            Expr::Dot(x, f, _) => (x, *f, Kind::Dot),
            Expr::Index(x, f, _) => (x, *f, Kind::Index),
            _ => return Err("internal: not a chain".into()),
        };
        if flags.contains(ASTFlags::NEGATED) {
            return Err("it uses `?.` or `?[`".into());
        }
        let mut steps = Vec::new();
        self.steps(kind, &x.rhs, flags, e.position(), &mut steps)?;
        let base = match &x.lhs {
            Expr::Variable(v, _, _) => {
                let slot = self.lookup(&v.1)?;
                self.based_on(slot, &steps);
                Base::Slot(slot)
            }
            Expr::ThisPtr(pos) => match self.this_slot(*pos) {
                (slot, None) => {
                    self.based_on(slot, &steps);
                    Base::Slot(slot)
                }
                (_, Some(pos)) => Base::This(pos),
            },
            other => Base::Value(self.expr(other)?),
        };
        Ok(Chain { base, steps, root: x.lhs.position() })
    }

    /// Notes what walking `steps` on the variable in `slot` may do to it. Walking a chain may
    /// write its base: an assignment into it, or a method call (a script function's `this`, a
    /// native changing its target). Only lent handles care, and natives never change a handle;
    /// but a script function could assign to `this`. A native method may change the value it
    /// is called on, and with it the base's (`sit.held.remove(k)`): a parameter so changed is
    /// not lent (see `expr::lend`).
    fn based_on(&mut self, slot: usize, steps: &[Step]) {
        if steps.iter().any(|s| matches!(s, Step::Method { script: Some(_), .. })) {
            self.writes(slot);
        }
        for step in steps {
            if let Step::Method { script: None, name, .. } = step {
                self.gives_to_native(slot, name);
            }
        }
    }

    /// The steps of a chain's right-hand side, of `kind` (Rhai nests chains to the right; a
    /// node marked `BREAK` ends the chain, its right side being a whole index expression).
    /// `at` is where the node whose kind the first step takes is (its `[` or `.`).
    fn steps(&mut self, kind: Kind, rhs: &Expr, flags: ASTFlags, at: Position, out: &mut Vec<Step>) -> C<()> {
        if kind == Kind::Index && flags.contains(ASTFlags::BREAK) {
            out.push(self.step(kind, rhs, at)?);
            return Ok(());
        }
        match rhs {
            Expr::Dot(x, f, _) | Expr::Index(x, f, _) => {
                if f.contains(ASTFlags::NEGATED) {
                    return Err("it uses `?.` or `?[`".into());
                }
                out.push(self.step(kind, &x.lhs, at)?);
                let next = if matches!(rhs, Expr::Dot(..)) { Kind::Dot } else { Kind::Index };
                self.steps(next, &x.rhs, *f, rhs.position(), out)
            }
            leaf => {
                out.push(self.step(kind, leaf, at)?);
                Ok(())
            }
        }
    }

    fn step(&mut self, kind: Kind, e: &Expr, at: Position) -> C<Step> {
        match (kind, e) {
            (Kind::Index, e) => Ok(Step::Index(self.expr(e)?, e.start_position(), at)),
            (Kind::Dot, Expr::Property(p, pos)) => {
                // `text.chars` and `number.bits` are iterators too (a map's property of that name
                // is left to Rhai with them).
                if ITERATORS.contains(&p.2.as_str()) {
                    return Err(iterator(&format!(".{}", p.2)));
                }
                Ok(Step::Prop(p.2.clone(), *pos))
            }
            (Kind::Dot, Expr::MethodCall(f, pos)) => {
                let name = f.name.clone();
                if KEYWORDS.contains(&name.as_str()) {
                    return Err(format!("it calls `.{name}`, which the compiler leaves to Rhai"));
                }
                let args = f.args.iter().map(|a| self.expr(a)).collect::<C<Vec<_>>>()?;
                let script = self.method_target(&name, args.len());
                if script.is_none() && ITERATORS.contains(&name.as_str()) {
                    return Err(iterator(&format!(".{name}")));
                }
                let site = self.native_site(&name, args.len() + 1, *pos);
                Ok(Step::Method { site, script, args, name })
            }
            _ => Err("it uses a chain the compiler does not cover".into()),
        }
    }
}

/// What an assignment at the end of a chain does: the operator (none for `=`) with its syntax,
/// the value, and the positions of the operator and of the chain.
type Assign = (Option<(Op, &'static str, &'static str)>, Dynamic, Position, Position);

impl Chain {
    /// Evaluates every step's arguments onto the stack from `mark`, then walks the chain.
    fn run(&self, c: &mut Ctx, mark: usize, assign: Option<Assign>) -> Res<Dynamic> {
        for step in &self.steps {
            match step {
                Step::Prop(..) => {}
                Step::Index(e, ..) => {
                    let v = e(c)?.flatten();
                    c.stack.push(v);
                }
                Step::Method { args, .. } => {
                    for a in args {
                        let v = a(c)?.flatten();
                        c.stack.push(v);
                    }
                }
            }
        }
        let slot = match &self.base {
            Base::Slot(slot) => *slot,
            Base::This(pos) => {
                this(c, *pos)?;
                0
            }
            Base::Value(e) => {
                let mut target = e(c)?.flatten();
                return walk(c, &mut target, &self.steps, mark, assign);
            }
        };
        let mut target = std::mem::take(c.slot(slot));
        let result = walk(c, &mut target, &self.steps, mark, assign);
        set(c.slot(slot), target);
        result
    }
}

/// Applies `steps` to `target`, their arguments on the stack from `at`; the last step reads
/// the value, or assigns to it.
fn walk(c: &mut Ctx, target: &mut Dynamic, steps: &[Step], at: usize, assign: Option<Assign>) -> Res<Dynamic> {
    let Some((step, rest)) = steps.split_first() else {
        return match assign {
            None => Ok(target.clone()),
            Some((None, value, _, _)) => {
                *target = value;
                Ok(Dynamic::UNIT)
            }
            Some((Some((op, op_assign, op_name)), value, pos, root)) => {
                ops::assign(c, op, (op_assign, op_name), target, value, pos, root).map(|()| Dynamic::UNIT)
            }
        };
    };
    let next = at + step.arity();
    let last = rest.is_empty();
    match step {
        Step::Prop(name, pos) => {
            if target.is_map() {
                let mut map = target.as_map_mut().map_err(|_| internal())?;
                if last && assign.is_some() && !map.contains_key(name.as_str()) {
                    map.insert(name.as_str().into(), Dynamic::UNIT);
                }
                match map.get_mut(name.as_str()) {
                    Some(v) => walk(c, v, rest, next, assign),
                    None => walk(c, &mut Dynamic::UNIT.clone(), rest, next, assign),
                }
            } else if let (true, Some((None, value, _, _))) = (last, &assign) {
                let mut value = value.clone();
                c.call_rhai(&format!("set${name}"), true, &mut [target, &mut value], *pos).map(|_| Dynamic::UNIT)
            } else {
                let mut v = c.call_rhai(&format!("get${name}"), true, &mut [target], *pos)?;
                walk(c, &mut v, rest, next, assign)
            }
        }
        Step::Index(_, pos, bracket) => {
            let idx = std::mem::take(&mut c.stack[at]);
            if target.is_array() {
                let mut array = target.as_array_mut().map_err(|_| internal())?;
                let i = idx.as_int().map_err(|t| super::mismatch(c.engine, "i64", t, *pos))?;
                let len = array.len();
                match element(len, i) {
                    Some(k) => walk(c, &mut array[k], rest, next, assign),
                    None => Err(EvalAltResult::ErrorArrayBounds(len, i, *pos).into()),
                }
            } else if target.is_map() {
                let mut map = target.as_map_mut().map_err(|_| internal())?;
                let key = match idx.read_lock::<ImmutableString>() {
                    Some(k) => k.clone(),
                    None => {
                        let t = idx.type_name();
                        return Err(super::mismatch(c.engine, std::any::type_name::<ImmutableString>(), t, *pos));
                    }
                };
                if assign.is_some() && !map.contains_key(key.as_str()) {
                    map.insert(key.as_str().into(), Dynamic::UNIT);
                }
                match map.get_mut(key.as_str()) {
                    Some(v) => walk(c, v, rest, next, assign),
                    None => walk(c, &mut Dynamic::UNIT.clone(), rest, next, assign),
                }
            } else {
                // A string, an integer, or another kind of value: indexed by Rhai.
                let places =
                    |assign: Position, root: Position| index::Places { root, bracket: *bracket, index: *pos, assign };
                match assign {
                    Some((op, value, at_op, root)) if last => {
                        let op = op.map_or("=", |(_, syntax, _)| syntax);
                        index::set(c, target, idx, op, value, places(at_op, root)).map(|()| Dynamic::UNIT)
                    }
                    // Reading a character or a bit gives a copy; what the rest of the chain
                    // assigns to it is lost, as with Rhai (which finds no indexer to write it
                    // back with).
                    _ => {
                        let mut v = index::get(c, target, idx, places(Position::NONE, Position::NONE))?;
                        walk(c, &mut v, rest, next, assign)
                    }
                }
            }
        }
        Step::Method { site, script, args, .. } => {
            let n = args.len();
            let pos = site.pos;
            let value = match script {
                Some(f) => {
                    let base = c.stack.len();
                    c.stack.push(std::mem::take(target));
                    for k in 0..n {
                        let v = std::mem::take(&mut c.stack[at + k]);
                        c.stack.push(v);
                    }
                    let (result, this) = c.enter(*f, base, true, pos);
                    *target = this;
                    result?
                }
                None => {
                    // The arguments are the `n` values from `at`; any after them belong to
                    // later steps, so they are moved to the top of the stack for the call.
                    let top = c.stack.len();
                    if at + n == top {
                        site.call(c, Some(target), at)?
                    } else {
                        for k in 0..n {
                            let v = std::mem::take(&mut c.stack[at + k]);
                            c.stack.push(v);
                        }
                        let result = site.call(c, Some(target), top);
                        pop_to(&mut c.stack, top);
                        result?
                    }
                }
            };
            if rest.is_empty() && assign.is_none() {
                return Ok(value);
            }
            let mut value = value;
            walk(c, &mut value, rest, next, assign)
        }
    }
}

/// The element `i` of an array of `len` names, counting from the end when negative (Rhai's
/// `calc_index`).
fn element(len: usize, i: i64) -> Option<usize> {
    if i < 0 {
        let back = usize::try_from(i.unsigned_abs()).ok()?;
        (back <= len && len > 0).then(|| len - back)
    } else {
        usize::try_from(i).ok().filter(|&k| k < len)
    }
}

fn internal() -> Box<EvalAltResult> {
    "internal: a value changed kind during a chain".into()
}
