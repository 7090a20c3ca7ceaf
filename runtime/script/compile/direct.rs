//! Calls to natives through their direct forms (see `natives::DirectForm`): `game.add("money",
//! 2)` with its counter resolved at load, called without Rhai's calling protocol.

use std::mem::ManuallyDrop;
use std::rc::Rc;

use rhai::{Dynamic, Expr, ImmutableString, Position};

use super::ctx::{Ctx, Res, check_size, fill_position, pop_to, release};
use super::expr::{FnCompiler, KEYWORDS, NativeSite, Prepared, literal, this};
use super::{C, Eval};
use crate::script::natives::{Arg, DirectCall, Param};

/// The most arguments after the handle a direct form takes.
const MOST: usize = 3;

/// What a direct call is made on.
#[derive(Clone, Copy)]
pub(super) enum Target {
    /// A variable, by slot.
    Slot(usize),
    /// The running function's `this` (checked to be bound after the arguments, as Rhai does).
    This(Position),
}

/// One argument of a direct call site, as the compiler found it.
enum Given {
    /// A zone or counter, resolved at load.
    Id(u16),
    /// Zones, resolved at load.
    Ids(Vec<u16>),
    /// A literal string.
    Text(ImmutableString),
    /// A literal integer.
    Int(i64),
    /// An integer computed at the call.
    IntCode(Eval),
    /// A zone's name computed at the call.
    NameCode(Eval),
    /// A filter prepared at load, with the code computing its values if it has some.
    Filter(Prepared, Option<Eval>),
}

impl Given {
    /// The code the call runs for this argument, if any.
    fn code(&self) -> Option<&Eval> {
        match self {
            Given::IntCode(e) | Given::NameCode(e) | Given::Filter(_, Some(e)) => Some(e),
            _ => None,
        }
    }
}

/// A method call on a variable (`game.add("money", 2)`) whose native has direct forms that fit
/// its arguments.
pub(super) struct DirectSite {
    /// The variable holding the handle.
    slot: usize,
    /// Where `this` is written, if the call is made on it.
    this: Option<Position>,
    given: Vec<Given>,
    /// The fitting forms, tried in turn (each takes one type of handle).
    forms: Vec<Rc<DirectCall>>,
    /// The arguments computed at the call, by index.
    codes: Vec<usize>,
    /// The literal arguments as values, for a call that goes the ordinary way.
    literals: Vec<Dynamic>,
    /// The ordinary way: every argument on the stack, the native picked by their types.
    site: NativeSite,
}

impl FnCompiler<'_> {
    /// Compiles `x.name(args)` (or `name(x, args)`) on variable or `this` `x` as a direct call, if a
    /// native of that name has a direct form its arguments fit and no script function takes
    /// the call.
    pub(super) fn direct_call(
        &mut self,
        target: Target,
        name: &ImmutableString,
        args: &[Expr],
        pos: Position,
    ) -> C<Option<Eval>> {
        let arity = args.len();
        if arity > MOST || KEYWORDS.contains(&name.as_str()) || self.is_script_fn(name, arity) {
            return Ok(None);
        }
        let forms = self.natives().direct_forms(name, arity);
        // The forms whose every literal argument fits; they must agree on each argument.
        let fitting: Vec<_> = forms.iter().filter(|form| fits(self, &form.params, args)).collect();
        let Some(first) = fitting.first() else { return Ok(None) };
        if fitting.iter().any(|form| form.params != first.params) {
            return Ok(None);
        }
        let params = first.params.clone();
        let forms = fitting.iter().map(|form| form.call.clone()).collect();
        let mut given = Vec::with_capacity(arity);
        let mut literals = Vec::with_capacity(arity);
        for (param, e) in params.iter().zip(args) {
            // A list written out is a literal only where a list of zones is expected: elsewhere it
            // is code, whose value fails the check at the call and goes the ordinary way.
            let value = match param {
                Param::Zones => literal(e).or_else(|| literal_list(e)),
                _ => literal(e),
            };
            given.push(match (param, &value) {
                (Param::Filter, _) => {
                    // A map the rules reject is left to the ordinary way, which reports it.
                    let Some((filter, values)) = self.filter_of(e) else { return Ok(None) };
                    Given::Filter(filter, values)
                }
                (Param::Zones, Some(v)) => Given::Ids(resolve_all(self, v).unwrap_or_default()),
                (Param::Zone | Param::Counter, Some(v)) => Given::Id(resolve(self, *param, v).unwrap_or_default()),
                (Param::Text, Some(v)) => Given::Text(v.clone().into_immutable_string().unwrap_or_default()),
                (Param::Int, Some(v)) => Given::Int(v.as_int().unwrap_or_default()),
                (Param::Zone, None) => Given::NameCode(self.expr(e)?),
                (_, None) => Given::IntCode(self.expr(e)?),
            });
            literals.push(value.unwrap_or(Dynamic::UNIT));
        }
        let site = self.native_site(name, arity + 1, pos);
        let codes = (0..given.len()).filter(|&k| given[k].code().is_some()).collect();
        let (slot, this) = match target {
            Target::Slot(slot) => (slot, None),
            Target::This(at) => (0, Some(at)),
        };
        let direct = DirectSite { slot, this, given, forms, codes, literals, site };
        Ok(Some(Box::new(move |c| direct.call(c))))
    }
}

/// Whether arguments `args` fit `params`: a zone a literal naming one or code (its name checked
/// at the call), a counter a literal naming one, zones a literal list of zone names, a text a
/// literal string, an integer a literal integer or code (checked at the call), a filter a map.
fn fits(fc: &FnCompiler, params: &[Param], args: &[Expr]) -> bool {
    params.len() == args.len()
        && params.iter().zip(args).all(|(&param, e)| match (param, literal(e)) {
            (Param::Filter, _) => matches!(e, Expr::Map(..)) || matches!(e, Expr::DynamicConstant(v, _) if v.is_map()),
            (Param::Int | Param::Zone, None) => true,
            (Param::Int, Some(v)) => v.is_int(),
            (Param::Zones, v) => v.or_else(|| literal_list(e)).is_some_and(|v| resolve_all(fc, &v).is_some()),
            (_, None) => false,
            (Param::Text, Some(v)) => v.is_string(),
            (_, Some(v)) => resolve(fc, param, &v).is_some(),
        })
}

/// The zones a literal list names, if every item is a zone's name.
fn resolve_all(fc: &FnCompiler, list: &Dynamic) -> Option<Vec<u16>> {
    let list = list.read_lock::<rhai::Array>()?;
    list.iter().map(|name| resolve(fc, Param::Zone, name)).collect()
}

/// A list of literals written out (`["a", "b"]`), which Rhai's optimizer leaves as a list
/// expression.
fn literal_list(e: &Expr) -> Option<Dynamic> {
    let Expr::Array(items, _) = e else { return None };
    let items = items.iter().map(literal).collect::<Option<rhai::Array>>()?;
    Some(Dynamic::from_array(items))
}

/// The zone or counter a literal names.
fn resolve(fc: &FnCompiler, param: Param, value: &Dynamic) -> Option<u16> {
    let name = value.read_lock::<ImmutableString>()?;
    match param {
        Param::Zone => fc.rules().zone(&name),
        Param::Counter => fc.rules().counter(&name),
        _ => None,
    }
}

impl DirectSite {
    fn call(&self, c: &mut Ctx) -> Res<Dynamic> {
        // Arguments are evaluated in order, as Rhai does; only the computed ones do anything.
        // The values are released by hand (see `release`): Rust's drop code would call Rhai's
        // for each of them, mostly integers.
        let mut computed = ManuallyDrop::new([const { Dynamic::UNIT }; MOST]);
        for &k in &self.codes {
            let Some(code) = self.given[k].code() else { continue };
            match code(c) {
                Ok(v) => release(std::mem::replace(&mut computed[k], v.flatten())),
                Err(e) => {
                    self.release(&mut computed);
                    return Err(e);
                }
            }
        }
        if let Some(at) = self.this
            && let Err(e) = this(c, at)
        {
            self.release(&mut computed);
            return Err(e);
        }
        let fit = self.codes.iter().all(|&k| match self.given[k] {
            Given::IntCode(_) => computed[k].is_int(),
            Given::NameCode(_) => computed[k].is_string(),
            _ => true,
        });
        if fit {
            // Names computed at the call are lent where they lie, as strings.
            let names: [Option<_>; MOST] = std::array::from_fn(|k| match self.given.get(k) {
                Some(Given::NameCode(_)) => computed[k].as_immutable_string_ref().ok(),
                _ => None,
            });
            let result = self.call_direct(c.slot_ref(self.slot), &computed, &names);
            drop(names);
            if let Some(result) = result {
                self.release(&mut computed);
                let pos = self.site.pos;
                return result.and_then(|v| check_size(&v, pos).map(|()| v)).map_err(|e| fill_position(e, pos));
            }
        }
        // The ordinary way, with the values already computed.
        let mark = c.stack.len();
        for (k, (literal, g)) in self.literals.iter().zip(&self.given).enumerate() {
            let value = match g {
                Given::IntCode(_) | Given::NameCode(_) => std::mem::take(&mut computed[k]),
                Given::Filter(filter, _) => filter.map(std::mem::take(&mut computed[k])),
                _ => literal.clone(),
            };
            c.stack.push(value);
        }
        self.release(&mut computed);
        let result = self.site.call_on_slot(c, self.slot, mark);
        pop_to(&mut c.stack, mark);
        result
    }

    /// Releases the values computed for the call.
    fn release(&self, computed: &mut [Dynamic; MOST]) {
        for &k in &self.codes {
            release(std::mem::take(&mut computed[k]));
        }
    }

    /// Calls the first form that takes the handle, with the arguments: the given ones, the
    /// values computed and the names taken out of them.
    fn call_direct(
        &self,
        handle: &Dynamic,
        computed: &[Dynamic; MOST],
        names: &[Option<impl std::ops::Deref<Target = ImmutableString>>; MOST],
    ) -> Option<Res<Dynamic>> {
        let mut args = [Arg::Int(0); MOST];
        for (k, g) in self.given.iter().enumerate().take(MOST) {
            args[k] = match g {
                Given::Id(id) => Arg::Id(*id),
                Given::Int(n) => Arg::Int(*n),
                Given::IntCode(_) => Arg::Int(computed[k].as_int().unwrap_or_default()),
                Given::Text(t) => Arg::Text(t),
                Given::Ids(ids) => Arg::Ids(ids),
                Given::NameCode(_) => Arg::Text(names[k].as_deref()?),
                Given::Filter(filter, _) => Arg::Filter(filter.arg(&computed[k])),
            };
        }
        let args = &args[..self.given.len()];
        self.forms.iter().find_map(|form| form(handle, args))
    }
}
