//! Compiling statements: `let`, assignments, blocks, `if`, the loops, `switch`, `try`, `return`
//! and `throw`.

use std::hash::{BuildHasher, Hash, Hasher};

use rhai::{ASTFlags, BinaryExpr, Dynamic, EvalAltResult, Expr, Position, RangeCase, Stmt};

use super::ctx::{Ctx, Res, pop_to, release, set};
use super::expr::FnCompiler;
use super::ops::{self, Op};
use super::{C, Eval, Exec};

/// How a statement ends.
pub(crate) enum Flow {
    /// Normally, with its value (a block's value is its last statement's).
    Value(Dynamic),
    /// `break` (with a loop expression's value).
    Break(Dynamic),
    Continue,
    Return(Dynamic),
}

impl Flow {
    /// A `break`, `continue` or `return` inside an expression block leaves it as Rhai's own
    /// signal, caught by the loop or the function around it.
    pub(super) fn escape(self) -> Box<EvalAltResult> {
        match self {
            Flow::Return(v) => EvalAltResult::Return(v, Position::NONE).into(),
            Flow::Break(v) => EvalAltResult::LoopBreak(true, v, Position::NONE).into(),
            Flow::Continue => EvalAltResult::LoopBreak(false, Dynamic::UNIT, Position::NONE).into(),
            Flow::Value(_) => "internal: a value is not an escape".into(),
        }
    }
}

/// A loop body's error that is really a `break` or `continue` from inside an expression.
fn loop_signal(err: Box<EvalAltResult>) -> Res<Flow> {
    match *err {
        EvalAltResult::LoopBreak(true, v, _) => Ok(Flow::Break(v)),
        EvalAltResult::LoopBreak(false, ..) => Ok(Flow::Continue),
        _ => Err(err),
    }
}

/// Runs a loop body: `Some(flow)` when the loop must end with it.
#[inline]
fn round(c: &mut Ctx, body: &Exec, pos: Position) -> Res<Option<Flow>> {
    c.op(pos)?;
    let flow = match body(c) {
        Ok(flow) => flow,
        Err(err) => loop_signal(err)?,
    };
    Ok(match flow {
        Flow::Value(v) => {
            release(v);
            None
        }
        Flow::Continue => None,
        Flow::Break(v) => Some(Flow::Value(v)),
        Flow::Return(v) => Some(Flow::Return(v)),
    })
}

/// The value of `break x`, `return x` or `throw x`, or `()` when none is written.
fn value_or_unit(c: &mut Ctx, value: &Option<Eval>) -> Res<Dynamic> {
    value.as_ref().map_or(Ok(Dynamic::UNIT), |v| v(c))
}

fn unit() -> Exec {
    Box::new(|_| Ok(Flow::Value(Dynamic::UNIT)))
}

impl FnCompiler<'_> {
    /// A block: its statements in a scope of their own; its value is the last one's.
    pub(super) fn block(&mut self, stmts: &[Stmt]) -> C<Exec> {
        let mark = self.mark();
        let list = stmts.iter().map(|s| self.stmt(s)).collect::<C<Vec<_>>>();
        self.leave(mark);
        Ok(sequence(list?))
    }

    /// Compiles the last statement of a function's body: where it is a variable's name (`out`),
    /// the function's value, see [`FnCompiler::moved_out`].
    pub(super) fn tail_stmt(&mut self, s: &Stmt) -> C<Exec> {
        if let Stmt::Expr(e) = s
            && let Some(read) = self.moved_out(e)?
        {
            let pos = e.position();
            return Ok(Box::new(move |c| {
                c.op(pos)?;
                Ok(Flow::Value(read(c)?))
            }));
        }
        self.stmt(s)
    }

    /// What `return x` or a body's last statement `x` gives, where `x` is a variable the
    /// function declared with `let`: its value moved out rather than copied, for nothing of the
    /// function runs after it and its frame is dropped when it returns (a list of options built
    /// in a loop is not copied item by item). A parameter may hold what a caller lent (see
    /// `lend`) and a loop's variable an item of a list walked in place (`each_lent`): both must
    /// go back, and are read as any variable is. `None` for any other expression.
    fn moved_out(&mut self, e: &Expr) -> C<Option<Eval>> {
        let Expr::Variable(x, _, _) = e else { return Ok(None) };
        let slot = self.lookup(&x.1)?;
        if !self.is_let(slot) {
            return Ok(None);
        }
        Ok(Some(Box::new(move |c| Ok(std::mem::take(c.slot(slot)).flatten()))))
    }

    /// Compiles a statement.
    pub(super) fn stmt(&mut self, s: &Stmt) -> C<Exec> {
        Ok(match s {
            Stmt::Noop(_) => unit(),
            Stmt::Expr(e) => {
                let pos = e.position();
                let e = self.expr(e)?;
                Box::new(move |c| {
                    c.op(pos)?;
                    Ok(Flow::Value(e(c)?.flatten()))
                })
            }
            Stmt::FnCall(f, pos) => {
                let pos = *pos;
                let call = self.expr(&Expr::FnCall(f.clone(), pos))?;
                Box::new(move |c| {
                    c.op(pos)?;
                    Ok(Flow::Value(call(c)?))
                })
            }
            Stmt::Var(x, flags, pos) => {
                if flags.contains(ASTFlags::CONSTANT) || flags.contains(ASTFlags::EXPORTED) {
                    return Err("it declares a constant".into());
                }
                let (ident, init, _) = &**x;
                let init = self.expr(init)?;
                let slot = self.declare(&ident.name);
                self.declared_by_let(slot);
                let pos = *pos;
                Box::new(move |c| {
                    c.op(pos)?;
                    let v = init(c)?.flatten();
                    set(c.slot(slot), v);
                    Ok(Flow::Value(Dynamic::UNIT))
                })
            }
            Stmt::Assignment(x) => self.assignment(&x.0, &x.1)?,
            Stmt::Block(b) => self.block(b.statements())?,
            Stmt::If(x, pos) => {
                let cond = self.condition(&x.expr, x.expr.position())?;
                let body = self.block(x.body.statements())?;
                let branch = self.block(x.branch.statements())?;
                let pos = *pos;
                Box::new(move |c| {
                    c.op(pos)?;
                    if cond(c)? { body(c) } else { branch(c) }
                })
            }
            Stmt::While(x, pos) => {
                let forever = matches!(x.expr, Expr::Unit(..) | Expr::BoolConstant(true, ..));
                let cond = self.condition(&x.expr, x.expr.position())?;
                let body = self.block(x.body.statements())?;
                let pos = *pos;
                Box::new(move |c| {
                    c.op(pos)?;
                    loop {
                        if !forever && !cond(c)? {
                            return Ok(Flow::Value(Dynamic::UNIT));
                        }
                        if let Some(end) = round(c, &body, pos)? {
                            return Ok(end);
                        }
                    }
                })
            }
            Stmt::Do(x, flags, pos) => {
                let is_while = !flags.contains(ASTFlags::NEGATED);
                let cond = self.condition(&x.expr, x.expr.position())?;
                let body = self.block(x.body.statements())?;
                let pos = *pos;
                Box::new(move |c| {
                    c.op(pos)?;
                    loop {
                        if let Some(end) = round(c, &body, pos)? {
                            return Ok(end);
                        }
                        if cond(c)? ^ is_while {
                            return Ok(Flow::Value(Dynamic::UNIT));
                        }
                    }
                })
            }
            Stmt::For(x, pos) => self.for_loop(x, *pos)?,
            Stmt::BreakLoop(value, flags, pos) => {
                let is_break = flags.contains(ASTFlags::BREAK);
                let value = value.as_ref().map(|v| self.expr(v)).transpose()?;
                let pos = *pos;
                Box::new(move |c| {
                    c.op(pos)?;
                    let v = value_or_unit(c, &value)?;
                    Ok(if is_break { Flow::Break(v) } else { Flow::Continue })
                })
            }
            Stmt::Return(value, flags, pos) => {
                let is_throw = flags.contains(ASTFlags::BREAK);
                let moved = match value {
                    Some(v) if !is_throw => self.moved_out(v)?,
                    _ => None,
                };
                let value = match moved {
                    Some(read) => Some(read),
                    None => value.as_ref().map(|v| self.expr(v)).transpose()?,
                };
                let pos = *pos;
                Box::new(move |c| {
                    c.op(pos)?;
                    let v = value_or_unit(c, &value)?.flatten();
                    if is_throw { Err(EvalAltResult::ErrorRuntime(v, pos).into()) } else { Ok(Flow::Return(v)) }
                })
            }
            Stmt::Switch(x, pos) => self.switch(&x.0, &x.1, *pos)?,
            Stmt::TryCatch(x, pos) => {
                if !x.expr.is_unit() {
                    return Err("it names the error in `catch`".into());
                }
                let body = self.block(x.body.statements())?;
                let branch = self.block(x.branch.statements())?;
                let pos = *pos;
                Box::new(move |c| {
                    c.op(pos)?;
                    match body(c) {
                        Ok(flow) => Ok(flow),
                        Err(err) if err.is_pseudo_error() || !err.is_catchable() => Err(err),
                        Err(mut err) => match branch(c) {
                            Ok(Flow::Value(_)) => Ok(Flow::Value(Dynamic::UNIT)),
                            Ok(flow) => Ok(flow),
                            Err(again) => match *again {
                                // `throw;` in `catch` throws the error again.
                                EvalAltResult::ErrorRuntime(v, at) if v.is_unit() => {
                                    err.set_position(at);
                                    Err(err)
                                }
                                other => Err(other.into()),
                            },
                        },
                    }
                })
            }
            _ => return Err("it uses a statement the compiler does not cover".into()),
        })
    }

    /// `x = v`, `x op= v`, `this op= v` and assignments into chains.
    fn assignment(&mut self, op_info: &rhai::OpAssignment, x: &BinaryExpr) -> C<Exec> {
        let op = op_info
            .get_op_assignment_info()
            .map(|(_, _, _, op_assign, _, op)| (Op::from_syntax(op_assign), op_assign, op));
        let pos = op_info.position();
        let rhs = self.expr(&x.rhs)?;
        let (slot, this_pos) = match &x.lhs {
            Expr::Variable(v, _, _) => {
                let slot = self.lookup(&v.1)?;
                self.writes(slot);
                (slot, None)
            }
            Expr::ThisPtr(p) => {
                let (slot, pos) = self.this_slot(*p);
                if pos.is_none() {
                    self.writes(slot);
                }
                (slot, pos)
            }
            Expr::Dot(..) | Expr::Index(..) => return self.chain_assign(&x.lhs, op, rhs, pos),
            _ => return Err("it assigns to an expression the compiler does not cover".into()),
        };
        let lhs_pos = x.lhs.position();
        let step = super::expr::literal(&x.rhs).and_then(|k| k.as_int().ok());
        let general: Exec = Box::new(move |c| {
            c.op(pos)?;
            let value = rhs(c)?.flatten();
            if let Some(p) = this_pos {
                super::expr::this(c, p)?;
            }
            c.op(lhs_pos)?;
            match op {
                None => set(c.slot(slot), value),
                Some((op, op_assign, op_name)) => {
                    let (mut target, known) = c.take_sized(slot);
                    let result =
                        ops::assign_sized(c, op, (op_assign, op_name), &mut target, value, pos, lhs_pos, known);
                    let sizes = result.as_ref().ok().copied().flatten();
                    c.put_sized(slot, target, sizes);
                    result?;
                }
            }
            Ok(Flow::Value(Dynamic::UNIT))
        });
        // `count += 1`, `score -= 300`: an integer variable and an integer written in the line
        // are computed in place, with the same operations counted (the general way takes the
        // variable's value out, checks the kinds and puts the result back); overflow, and any
        // other kind, go the general way.
        let (Some(k), Some((op, ..)), None) = (step, op, this_pos) else { return Ok(general) };
        Ok(Box::new(move |c| {
            let result = c.slot_ref(slot).as_int().ok().and_then(|n| ops::ints(op, n, k));
            let Some(v) = result else { return general(c) };
            c.op(pos)?;
            c.op(lhs_pos)?;
            // An integer owns nothing: it is overwritten, not dropped.
            std::mem::forget(std::mem::replace(c.slot(slot), v));
            Ok(Flow::Value(Dynamic::UNIT))
        }))
    }

    /// `for x in list`, `for (x, i) in list`, over arrays, integer ranges, strings and blobs.
    fn for_loop(&mut self, x: &(rhai::Ident, Option<rhai::Ident>, rhai::FlowControl), pos: Position) -> C<Exec> {
        let (var, counter, flow) = x;
        // A literal list (`for tool in ["spoon", "pickaxe"]`) is walked where it lies: each
        // element is copied into the loop variable as from a copy of the list, without the copy.
        let listed = super::expr::literal(&flow.expr).and_then(|v| v.into_array().ok());
        // A range written in the loop (`for i in 0..n`) is counted through without making the
        // range, a value Rhai keeps in two boxes: its ends are evaluated, and where both are
        // integers the loop counts from one to the other; otherwise Rhai's operator makes what
        // it makes of them, as it would have.
        let iterable = match &flow.expr {
            Expr::FnCall(f, at)
                if f.op_token.is_some() && f.args.len() == 2 && matches!(f.name.as_str(), ".." | "..=") =>
            {
                let (from, to) = (self.expr(&f.args[0])?, self.expr(&f.args[1])?);
                Iterable::Range { from, to, inclusive: f.name == "..=", site: self.native_site(&f.name, 2, *at) }
            }
            e => Iterable::Code(self.expr(e)?),
        };
        let iter_pos = flow.expr.start_position();
        let source = match &flow.expr {
            Expr::Variable(x, _, _) => Some(self.lookup(&x.1)?),
            _ => None,
        };
        let mark = self.mark();
        let counter = counter.as_ref().map(|c| self.declare(&c.name));
        let var = self.declare(&var.name);
        let (body, names_source, changes_var) =
            self.naming(source.unwrap_or(usize::MAX), var, |fc| fc.block(flow.body.statements()));
        self.leave(mark);
        let body = body?;
        // A list in a variable the body never names, walked by a loop variable the body never
        // changes, is walked where it lies: each item is moved into the loop variable for its
        // round and back after it, whatever the round did, instead of copying the list and
        // every item. Nothing can tell: only the body could see the list, and it never does
        // (script functions see no caller's variables), and the item comes back as it went.
        let lent = source.filter(|_| !names_source && !changes_var);
        Ok(Box::new(move |c| {
            c.op(pos)?;
            let mut index: i64 = -1;
            let mut each = |c: &mut Ctx, value: Dynamic| -> Res<Option<Flow>> {
                index += 1;
                if let Some(slot) = counter {
                    set(c.slot(slot), Dynamic::from_int(index));
                }
                set(c.slot(var), value);
                round(c, &body, pos)
            };
            if let Some(list) = lent.filter(|&s| c.slot_ref(s).is_array()) {
                let end = each_lent(c, list, var, &mut each)?;
                return Ok(end.unwrap_or(Flow::Value(Dynamic::UNIT)));
            }
            if let Some(list) = &listed {
                let end = each_value(c, list.iter().map(|v| v.clone().flatten()), &mut each)?;
                return Ok(end.unwrap_or(Flow::Value(Dynamic::UNIT)));
            }
            let obj = match &iterable {
                Iterable::Code(code) => code(c)?.flatten(),
                Iterable::Range { from, to, inclusive, site } => {
                    let (a, b) = (from(c)?.flatten(), to(c)?.flatten());
                    if let (Ok(a), Ok(b)) = (a.as_int(), b.as_int()) {
                        let end = if *inclusive {
                            each_value(c, (a..=b).map(Dynamic::from_int), &mut each)?
                        } else {
                            each_value(c, (a..b).map(Dynamic::from_int), &mut each)?
                        };
                        return Ok(end.unwrap_or(Flow::Value(Dynamic::UNIT)));
                    }
                    let mark = c.stack.len();
                    c.stack.push(a);
                    c.stack.push(b);
                    let made = site.call(c, None, mark);
                    pop_to(&mut c.stack, mark);
                    made?.flatten()
                }
            };
            let end = if obj.is_array() {
                let array = obj.into_array().unwrap_or_default();
                each_value(c, array.into_iter().map(Dynamic::flatten), &mut each)?
            } else if let Some(r) = obj.read_lock::<std::ops::Range<i64>>().map(|r| r.clone()) {
                each_value(c, r.map(Dynamic::from_int), &mut each)?
            } else if let Some(r) = obj.read_lock::<std::ops::RangeInclusive<i64>>().map(|r| r.clone()) {
                each_value(c, r.map(Dynamic::from_int), &mut each)?
            } else if let Ok(s) = obj.as_immutable_string_ref() {
                let chars: Vec<char> = s.chars().collect();
                drop(s);
                each_value(c, chars.into_iter().map(Dynamic::from_char), &mut each)?
            } else if obj.is_blob() {
                // A blob's bytes, each a `u8` as Rhai's iterator gives them (not an integer).
                let bytes = obj.into_blob().unwrap_or_default();
                each_value(c, bytes.into_iter().map(Dynamic::from), &mut each)?
            } else {
                // Rhai's other iterators (stepped ranges, bits, characters from a position) are
                // of types it does not export: the functions making them are left to Rhai (see
                // `expr::ITERATORS`), and no other value can be walked.
                return Err(EvalAltResult::ErrorFor(iter_pos).into());
            };
            Ok(end.unwrap_or(Flow::Value(Dynamic::UNIT)))
        }))
    }

    /// `switch`: Rhai keeps only the hashes of the case values, so the value is hashed the way
    /// Rhai hashes it (see `switch_hash`).
    fn switch(&mut self, value: &Expr, cases: &rhai::SwitchCasesCollection, pos: Position) -> C<Exec> {
        let scrutinee = self.expr(value)?;
        let mut arms = Vec::with_capacity(cases.expressions.len());
        for e in &cases.expressions {
            let cond = match &e.lhs {
                Expr::BoolConstant(b, _) => CaseCondition::Always(*b),
                other => CaseCondition::Test(self.condition(other, other.position())?),
            };
            arms.push((cond, self.expr(&e.rhs)?));
        }
        let by_hash: std::collections::HashMap<u64, Vec<usize>> =
            cases.cases.iter().map(|(h, list)| (*h, list.blocks.to_vec())).collect();
        let ranges: Vec<RangeCase> = cases.ranges.to_vec();
        let default = cases.def_case;
        Ok(Box::new(move |c| {
            c.op(pos)?;
            let v = scrutinee(c)?;
            let mut chosen = None;
            if hashable(&v) {
                if let Some(list) = by_hash.get(&switch_hash(&v)) {
                    for &i in list {
                        if arms[i].0.holds(c)? {
                            chosen = Some(i);
                            break;
                        }
                    }
                }
                if chosen.is_none() {
                    let v = v.flatten_clone();
                    for r in ranges.iter().filter(|r| r.contains(&v)) {
                        if arms[r.index()].0.holds(c)? {
                            chosen = Some(r.index());
                            break;
                        }
                    }
                }
            }
            match chosen.or(default) {
                Some(i) => Ok(Flow::Value((arms[i].1)(c)?)),
                None => Ok(Flow::Value(Dynamic::UNIT)),
            }
        }))
    }
}

/// Runs a loop's body for each value until it ends the loop.
fn each_value(
    c: &mut Ctx,
    values: impl Iterator<Item = Dynamic>,
    each: &mut impl FnMut(&mut Ctx, Dynamic) -> Res<Option<Flow>>,
) -> Res<Option<Flow>> {
    for v in values {
        if let Some(end) = each(c, v)? {
            return Ok(Some(end));
        }
    }
    Ok(None)
}

/// Runs `each` on every item of the list in slot `list`, each moved into slot `var` for its
/// round (`each` puts it there) and moved back after it, even when the round fails: the list is
/// whole again whatever happens (see `for_loop`).
fn each_lent(
    c: &mut Ctx,
    list: usize,
    var: usize,
    each: &mut impl FnMut(&mut Ctx, Dynamic) -> Res<Option<Flow>>,
) -> Res<Option<Flow>> {
    let len = c.slot_ref(list).read_lock::<rhai::Array>().map_or(0, |l| l.len());
    for i in 0..len {
        let item = match c.slot(list).write_lock::<rhai::Array>() {
            Some(mut items) => items.get_mut(i).map(std::mem::take),
            None => None,
        };
        let Some(item) = item else { return Err("internal: a lent list changed in its loop".into()) };
        let end = each(c, item);
        let back = std::mem::take(c.slot(var));
        if let Some(mut items) = c.slot(list).write_lock::<rhai::Array>()
            && let Some(place) = items.get_mut(i)
        {
            set(place, back);
        }
        if let Some(end) = end? {
            return Ok(Some(end));
        }
    }
    Ok(None)
}

/// A `switch` case's condition.
enum CaseCondition {
    Always(bool),
    Test(super::condition::Condition),
}

impl CaseCondition {
    fn holds(&self, c: &mut Ctx) -> Res<bool> {
        match self {
            CaseCondition::Always(b) => Ok(*b),
            CaseCondition::Test(test) => test(c),
        }
    }
}

/// Runs statements in order; the value is the last one's.
pub(super) fn sequence(mut list: Vec<Exec>) -> Exec {
    match list.len() {
        0 => unit(),
        1 => list.pop().unwrap_or_else(unit),
        _ => Box::new(move |c| {
            let mut last = Dynamic::UNIT;
            for s in &list {
                match s(c)? {
                    Flow::Value(v) => release(std::mem::replace(&mut last, v)),
                    other => {
                        release(last);
                        return Ok(other);
                    }
                }
            }
            Ok(Flow::Value(last))
        }),
    }
}

/// Whether Rhai hashes this value to pick a `switch` case (otherwise only the default applies).
fn hashable(v: &Dynamic) -> bool {
    if v.is_unit() || v.is_bool() || v.is_string() || v.is_char() || v.is_int() {
        return true;
    }
    if let Some(a) = v.read_lock::<rhai::Array>() {
        return a.iter().all(hashable);
    }
    if let Some(m) = v.read_lock::<rhai::Map>() {
        return m.values().all(hashable);
    }
    false
}

/// The hash Rhai gives a `switch` value (its `calc_switch_value_hash`): the value's `Hash` fed
/// to the same `ahash` hasher with the same seed.
pub(super) fn switch_hash(v: &Dynamic) -> u64 {
    let mut hasher = match rhai::config::hashing::get_hashing_seed() {
        Some([a, b, c, d]) if (a | b | c | d) != 0 => ahash::RandomState::with_seeds(*a, *b, *c, *d).build_hasher(),
        _ => ahash::AHasher::default(),
    };
    v.hash(&mut hasher);
    hasher.finish()
}

/// What a `for` loop walks: a range written in its line, by its ends, or any other expression.
enum Iterable {
    /// `from..to`, or `from..=to` when `inclusive`; `site` is Rhai's operator, for ends that are
    /// not both integers.
    Range { from: Eval, to: Eval, inclusive: bool, site: super::expr::NativeSite },
    /// The expression's value.
    Code(Eval),
}
