//! Conditions compiled to a boolean: what `if`, `while`, `do`, a `switch` case's condition and
//! the parts of `&&` and `||` test. An expression compiled the ordinary way yields a value
//! (`Dynamic`), which the condition then checks to be a boolean and drops; a comparison of two
//! integers or two texts (`score > best`, `o.action == "move"`) is the commonest condition, and
//! is answered here as a `bool` at once, without making the value (a map's property is read
//! where it lies in the map); so are `key in map` with a text key, `x in list` with a number or
//! a text, and `text.starts_with(p)`, without the native call.
//! Anything else, and any comparison of other kinds of values, is computed as before
//! (`Binary::run`, Rhai's natives), so that the answers and every error are the same.

use std::any::TypeId;

use rhai::{Dynamic, Expr, FnCallExpr, Position};

use super::ctx::{Ctx, Res, release};
use super::expr::{Candidates, FnCompiler, Operand, Side};
use super::ops::{self, Op};
use super::{C, Eval};
use crate::script::values::{holds_number, holds_word};

/// A compiled condition: evaluates to a boolean (or fails as Rhai would).
pub(super) type Condition = Box<dyn Fn(&mut Ctx) -> Res<bool>>;

impl FnCompiler<'_> {
    /// Compiles `e` as a condition; `pos` is where a value that is not a boolean is reported
    /// (the condition's position, or the part's in `&&` and `||`).
    pub(super) fn condition(&mut self, e: &Expr, pos: Position) -> C<Condition> {
        match e {
            Expr::And(list, _) | Expr::Or(list, _) => {
                let is_and = matches!(e, Expr::And(..));
                let parts = list.iter().map(|x| self.condition(x, x.position())).collect::<C<Vec<_>>>()?;
                Ok(Box::new(move |c| {
                    for part in &parts {
                        if part(c)? != is_and {
                            return Ok(!is_and);
                        }
                    }
                    Ok(is_and)
                }))
            }
            Expr::FnCall(f, at) if f.op_token.is_some() && f.args.len() == 2 && is_comparison(&f.name) => {
                let general = self.comparison(f, *at, pos)?;
                self.property_comparison(f, general)
            }
            Expr::FnCall(f, at)
                if f.op_token.is_none() && f.name == "contains" && f.args.len() == 2 && !f.capture_parent_scope =>
            {
                let general = self.value_condition(e, pos)?;
                self.contains_in_place(f, *at, general)
            }
            Expr::Dot(x, flags, _)
                if !flags.contains(rhai::ASTFlags::NEGATED)
                    && matches!(&x.rhs, Expr::MethodCall(f, _) if f.name == "starts_with" && f.args.len() == 1) =>
            {
                let general = self.value_condition(e, pos)?;
                self.text_starts_with(x, general)
            }
            e => self.value_condition(e, pos),
        }
    }

    /// `name.starts_with("post_")` with a text in a variable and a text prefix, a constant or a
    /// variable: answered where the text lies, as Rhai's `starts_with` does (see
    /// [`FnCompiler::native_in_place`]).
    fn text_starts_with(&mut self, x: &rhai::BinaryExpr, general: Condition) -> C<Condition> {
        let (Expr::Variable(v, _, _), Expr::MethodCall(f, at)) = (&x.lhs, &x.rhs) else { return Ok(general) };
        self.native_in_place(
            (&f.name, 1),
            *at,
            (&v.1, &f.args[0]),
            |natives| natives.take_first(TypeId::of::<rhai::ImmutableString>()),
            general,
            |text, prefix| {
                let (text, prefix) = (text.as_immutable_string_ref().ok()?, prefix.as_immutable_string_ref().ok()?);
                Some(text.starts_with(prefix.as_str()))
            },
        )
    }

    /// A native's call on a variable with one argument, a constant or a variable (`key in map`,
    /// `text.starts_with(p)`), answered by `answer` where both lie, without the native call's
    /// protocol (its arguments pushed, its native picked, its value made and checked), where
    /// `answer` gives what Rhai's own function gives for those kinds. `general`, the call, answers
    /// where `answer` has none (other kinds of values), under `--profile` (which counts the
    /// natives called), and always where the scripts define a function `name` (the call means
    /// theirs: `name` and its arity as the call counts it) or `taken` says tabula's natives of
    /// that name may take the call (Rhai's function, whose answer `answer` gives, would not be
    /// the one called).
    fn native_in_place(
        &mut self,
        (name, arity): (&rhai::ImmutableString, usize),
        at: Position,
        (variable, argument): (&str, &Expr),
        taken: impl FnOnce(&Candidates) -> bool,
        general: Condition,
        answer: impl Fn(&Dynamic, &Dynamic) -> Option<bool> + 'static,
    ) -> C<Condition> {
        let taken = self.defines(name, arity) || taken(&self.native_site(name, 2, at).candidates);
        if !in_place(argument) || taken {
            return Ok(general);
        }
        let (target, argument) = (self.lookup(variable)?, self.operand(argument)?);
        Ok(Box::new(move |c| {
            if !super::profile::on()
                && let Some(holds) = answer(c.slot_ref(target), argument.read(c))
            {
                return Ok(holds);
            }
            general(c)
        }))
    }

    /// `e` compiled as an expression, its value checked to be a boolean.
    fn value_condition(&mut self, e: &Expr, pos: Position) -> C<Condition> {
        let value = self.expr(e)?;
        Ok(Box::new(move |c| {
            let v = value(c)?;
            boolean(c, v, pos)
        }))
    }

    /// `a op b` for one of the six comparisons: two integers or two texts compared here, other
    /// values by the operator as an expression computes it ([`Binary::run`](super::expr::Binary::run)).
    fn comparison(&mut self, f: &FnCallExpr, at: Position, pos: Position) -> C<Condition> {
        let op = Op::from_syntax(&f.name);
        let (a, b) = (self.operand(&f.args[0])?, self.operand(&f.args[1])?);
        let binary = self.binary(&f.name, at);
        Ok(match (a, b) {
            // The commonest: a variable against a constant, or two variables, read in place.
            (a @ (Operand::Slot(_) | Operand::Constant(_)), b @ (Operand::Slot(_) | Operand::Constant(_))) => {
                Box::new(move |c| match compare(op, a.read(c), b.read(c)) {
                    Some(holds) => Ok(holds),
                    None => {
                        let v = binary.run(c, Side::At(&a), Side::At(&b))?;
                        boolean(c, v, pos)
                    }
                })
            }
            // Rhai evaluates `a`, then `b`: a variable `a` is read before the code of `b` runs,
            // as the expression does it.
            (a, b) => Box::new(move |c| {
                let x = match &a {
                    Operand::Code(code) => Side::Computed(code(c)?.flatten()),
                    Operand::Slot(s) if matches!(b, Operand::Code(_)) => Side::Computed(c.slot(*s).clone().flatten()),
                    _ => Side::At(&a),
                };
                let y = match &b {
                    Operand::Code(code) => match code(c) {
                        Ok(v) => Side::Computed(v.flatten()),
                        Err(e) => {
                            x.release();
                            return Err(e);
                        }
                    },
                    _ => Side::At(&b),
                };
                match compare(op, x.read(c), y.read(c)) {
                    Some(holds) => {
                        x.release();
                        y.release();
                        Ok(holds)
                    }
                    None => {
                        let v = binary.run(c, x, y)?;
                        boolean(c, v, pos)
                    }
                }
            }),
        })
    }

    /// `key in map` or `x in list` (or `contains(map, key)`) with the map or list in a variable
    /// and the key a constant or a variable, answered where they lie (see
    /// [`FnCompiler::native_in_place`]): a map's keys looked in for a text key, as Rhai's
    /// `contains` on a map does; a list's items for a number or a text, as tabula's own
    /// `contains` on a list does (`values::holds_number`, `values::holds_word`: the same
    /// functions). A list and a key of another kind (a piece) keep the call; so does every call
    /// if tabula's natives named `contains` come to take maps, or lists with other keys.
    fn contains_in_place(&mut self, f: &FnCallExpr, at: Position, general: Condition) -> C<Condition> {
        let Expr::Variable(v, _, _) = &f.args[0] else { return Ok(general) };
        let taken = |natives: &Candidates| {
            let (list, number, text) =
                (TypeId::of::<rhai::Array>(), TypeId::of::<i64>(), TypeId::of::<rhai::ImmutableString>());
            natives.take_first(TypeId::of::<rhai::Map>())
                || !natives.taking_first_are(list, &[&[list, number], &[list, text]])
        };
        self.native_in_place((&f.name, 2), at, (&v.1, &f.args[1]), taken, general, |container, key| {
            if let Some(map) = container.read_lock::<rhai::Map>() {
                return Some(map.contains_key(key.as_immutable_string_ref().ok()?.as_str()));
            }
            let list = container.read_lock::<rhai::Array>()?;
            if let Ok(n) = key.as_int() {
                return Some(holds_number(&list, n));
            }
            Some(holds_word(&list, key.as_immutable_string_ref().ok()?.as_str()))
        })
    }

    /// `o.action == "move"`, `args.seat != seat`: a property of a map in a variable compared
    /// with a constant or a variable, read where it lies in the map (no copy of the value, no
    /// closure to fetch it); `general` answers when the variable holds no map or the values are
    /// not two integers or two texts, as it answers any comparison.
    fn property_comparison(&mut self, f: &FnCallExpr, general: Condition) -> C<Condition> {
        let op = Op::from_syntax(&f.name);
        let (prop, other, prop_first) = match (&f.args[0], &f.args[1]) {
            (a, b) if in_place(b) => match self.map_property(a)? {
                Some(prop) => (prop, b, true),
                None => return Ok(general),
            },
            (a, b) if in_place(a) => match self.map_property(b)? {
                Some(prop) => (prop, a, false),
                None => return Ok(general),
            },
            _ => return Ok(general),
        };
        let other = self.operand(other)?;
        let (slot, name) = prop;
        Ok(Box::new(move |c| {
            let holds = c.slot_ref(slot).read_lock::<rhai::Map>().and_then(|map| {
                let value = map.get(name.as_str()).unwrap_or(&Dynamic::UNIT);
                let other = other.read(c);
                if prop_first { compare(op, value, other) } else { compare(op, other, value) }
            });
            match holds {
                Some(holds) => Ok(holds),
                None => general(c),
            }
        }))
    }

    /// The variable and property name of `e` if it is `variable.name` (not `?.`, not a
    /// method call, not one of Rhai's iterator properties).
    fn map_property(&mut self, e: &Expr) -> C<Option<(usize, rhai::ImmutableString)>> {
        let Expr::Dot(x, flags, _) = e else { return Ok(None) };
        if flags.contains(rhai::ASTFlags::NEGATED) {
            return Ok(None);
        }
        let (Expr::Variable(v, _, _), Expr::Property(p, _)) = (&x.lhs, &x.rhs) else { return Ok(None) };
        if super::expr::ITERATORS.contains(&p.2.as_str()) {
            return Ok(None);
        }
        Ok(Some((self.lookup(&v.1)?, p.2.clone())))
    }
}

/// Whether `e` is read where it lies: a constant or a variable.
fn in_place(e: &Expr) -> bool {
    super::expr::literal(e).is_some() || matches!(e, Expr::Variable(..))
}

/// Whether `name` is one of the six comparison operators.
fn is_comparison(name: &str) -> bool {
    matches!(name, "==" | "!=" | "<" | "<=" | ">" | ">=")
}

/// `a op b` where both are integers or both texts, as `ops::inline` computes it; `None` for
/// any other pair.
#[inline]
fn compare(op: Op, a: &Dynamic, b: &Dynamic) -> Option<bool> {
    if let (Ok(x), Ok(y)) = (a.as_int(), b.as_int()) {
        return ops::compare(op, &x, &y);
    }
    if let (Ok(x), Ok(y)) = (a.as_immutable_string_ref(), b.as_immutable_string_ref()) {
        return ops::compare(op, x.as_str(), y.as_str());
    }
    None
}

/// A condition's value, which must be a boolean.
pub(super) fn boolean(c: &Ctx, v: Dynamic, pos: Position) -> Res<bool> {
    match v.as_bool() {
        Ok(b) => {
            release(v);
            Ok(b)
        }
        Err(t) => Err(super::mismatch(c.engine, "bool", t, pos)),
    }
}

/// A value an expression evaluated, as a [`Condition`] gives it: for `&&` and `||` written where a
/// value is wanted (`let ok = a && b`).
pub(super) fn as_value(test: Condition) -> Eval {
    Box::new(move |c| test(c).map(Dynamic::from_bool))
}
