//! Calls to natives through their direct forms (see `natives::DirectForm`): `game.add("money",
//! 2)` with its counter resolved at load, called without Rhai's calling protocol.

use std::mem::ManuallyDrop;

use rhai::{Dynamic, Expr, FnCallExpr, ImmutableString, Position};

use super::ctx::{Ctx, Res, check_size, fill_position, pop_to, release};
use super::expr::{FnCompiler, KEYWORDS, NativeSite, literal};
use super::{C, Eval};
use crate::script::natives::{Arg, DirectCall, Param};

/// The most arguments after the handle a direct form takes.
const MOST: usize = 4;

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
    Code(Eval),
}

/// A method call on a variable (`game.add("money", 2)`) whose native has direct forms that fit
/// its arguments.
pub(super) struct DirectSite {
    /// The variable holding the handle.
    slot: usize,
    given: Vec<Given>,
    /// The fitting forms, tried in turn (each takes one type of handle).
    forms: Vec<std::rc::Rc<DirectCall>>,
    /// The literal arguments as values, for a call that goes the ordinary way.
    literals: Vec<Dynamic>,
    /// The ordinary way: every argument on the stack, the native picked by their types.
    site: NativeSite,
}

impl FnCompiler<'_> {
    /// Compiles `x.name(args)` on variable `x` as a direct call, if a native of that name has a
    /// direct form its arguments fit and no script function takes the call.
    pub(super) fn direct_call(&mut self, slot: usize, f: &FnCallExpr, pos: Position) -> C<Option<Eval>> {
        let arity = f.args.len();
        if arity > MOST || KEYWORDS.contains(&f.name.as_str()) || self.is_script_fn(&f.name, arity) {
            return Ok(None);
        }
        let forms = self.natives().direct_forms(&f.name, arity);
        // The forms whose every literal argument fits; they must agree on each argument.
        let fitting: Vec<_> = forms.iter().filter(|form| fits(self, &form.params, &f.args)).collect();
        let Some(first) = fitting.first() else { return Ok(None) };
        if fitting.iter().any(|form| form.params != first.params) {
            return Ok(None);
        }
        let params = first.params.clone();
        let forms = fitting.iter().map(|form| form.call.clone()).collect();
        let mut given = Vec::with_capacity(arity);
        let mut literals = Vec::with_capacity(arity);
        for (param, e) in params.iter().zip(&f.args) {
            let value = literal(e).or_else(|| literal_list(e));
            given.push(match (param, &value) {
                (Param::Zones, Some(v)) => Given::Ids(resolve_all(self, v).unwrap_or_default()),
                (Param::Zone, Some(v)) => Given::Id(resolve(self, *param, v).unwrap_or_default()),
                (Param::Counter, Some(v)) => Given::Id(resolve(self, *param, v).unwrap_or_default()),
                (Param::Text, Some(v)) => Given::Text(v.clone().into_immutable_string().unwrap_or_default()),
                (Param::Int, Some(v)) => Given::Int(v.as_int().unwrap_or_default()),
                (_, None) => Given::Code(self.expr(e)?),
            });
            literals.push(value.unwrap_or(Dynamic::UNIT));
        }
        let site = self.native_site(&f.name, arity + 1, pos);
        let direct = DirectSite { slot, given, forms, literals, site };
        Ok(Some(Box::new(move |c| direct.call(c))))
    }
}

/// Whether arguments `args` fit `params`: a zone or counter is a literal naming one, a text a
/// literal string, an integer a literal integer or code (checked at the call).
fn fits(fc: &FnCompiler, params: &[Param], args: &[Expr]) -> bool {
    params.len() == args.len()
        && params.iter().zip(args).all(|(&param, e)| match (param, literal(e)) {
            (Param::Int, None) => true,
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
        for (k, g) in self.given.iter().enumerate() {
            if let Given::Code(e) = g {
                match e(c) {
                    Ok(v) => release(std::mem::replace(&mut computed[k], v.flatten())),
                    Err(e) => {
                        computed.iter_mut().for_each(|v| release(std::mem::take(v)));
                        return Err(e);
                    }
                }
            }
        }
        let mut args = [Arg::Int(0); MOST];
        let mut direct = true;
        for (k, g) in self.given.iter().enumerate() {
            args[k] = match g {
                Given::Id(id) => Arg::Id(*id),
                Given::Ids(ids) => Arg::Ids(ids),
                Given::Text(t) => Arg::Text(t),
                Given::Int(n) => Arg::Int(*n),
                Given::Code(_) => match computed[k].as_int() {
                    Ok(n) => Arg::Int(n),
                    Err(_) => {
                        direct = false;
                        break;
                    }
                },
            };
        }
        if direct {
            let handle = c.slot_ref(self.slot);
            let args = &args[..self.given.len()];
            if let Some(result) = self.forms.iter().find_map(|form| form(handle, args)) {
                // Every computed value was an integer: nothing to release.
                let pos = self.site.pos;
                return result.and_then(|v| check_size(&v, pos).map(|()| v)).map_err(|e| fill_position(e, pos));
            }
        }
        // The ordinary way, with the values already computed.
        let mark = c.stack.len();
        for (k, literal) in self.literals.iter().enumerate() {
            let value = match self.given.get(k) {
                Some(Given::Code(_)) => std::mem::take(&mut computed[k]),
                _ => literal.clone(),
            };
            c.stack.push(value);
        }
        computed.iter_mut().for_each(|v| release(std::mem::take(v)));
        let result = self.site.call_on_slot(c, self.slot, mark);
        pop_to(&mut c.stack, mark);
        result
    }
}
