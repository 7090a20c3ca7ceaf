//! Calls to natives through their direct forms (see `natives::DirectForm`): `game.add("money",
//! 2)` with its counter resolved at load, called without Rhai's calling protocol. A name written
//! `"money." + seat` is found at the call from `seat` alone, in a table made at load of the
//! declared names that begin with `money.` (`names::ByRest`): no string is built or hashed.

use std::mem::ManuallyDrop;
use std::rc::Rc;

use rhai::{Dynamic, Expr, ImmutableString, Position};

use super::ctx::{Ctx, Res, check_size, fill_position, pop_to, release};
use super::expr::{FnCompiler, Join, KEYWORDS, NativeSite, literal, this};
use super::maps::Prepared;
use super::{C, Eval};
use crate::script::board::FilterArg;
use crate::script::names::ByRest;
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
    /// A zone, counter or piece, resolved at load.
    Id(u16),
    /// Zones, resolved at load.
    Ids(Vec<u16>),
    /// A literal string.
    Text(ImmutableString),
    /// A literal integer.
    Int(i64),
    /// An integer computed at the call.
    IntCode(Eval),
    /// A zone's, counter's or piece's name computed at the call.
    NameCode(Eval),
    /// A name written `"prefix" + code`, found at the call from the code's value.
    Prefixed(Box<Prefixed>),
    /// A filter prepared at load, with the code computing its values if it has some.
    Filter(Prepared, Option<Eval>),
    /// Any value written as a literal.
    Value(Dynamic),
    /// Any value computed at the call.
    ValueCode(Eval),
}

/// A zone's, counter's or piece's name written `"prefix" + code` (`"pool." + seat`,
/// `"track_" + n`): the code's value is looked up in the table of the declared names that begin
/// with the prefix, and only a value the table does not hold (a name the rules do not declare,
/// a value of another type) is joined to the prefix by the `+` as written, and then given to the
/// native as a computed name, which fails, or goes the ordinary way, as it did.
struct Prefixed {
    /// The code after the `+`.
    rest: Eval,
    /// The declared names beginning with the prefix, by the rest of their text.
    table: ByRest,
    /// The `+`, for a value the table does not hold.
    join: Join,
}

impl Prefixed {
    /// The name's value at the call: the code after the `+` is computed and looked up in the
    /// table; found there, the value is `()` and the name is given besides, else the value is
    /// what the `+` gives.
    fn compute(&self, c: &mut Ctx) -> Res<(Dynamic, Found<'_>)> {
        let rest = (self.rest)(c)?.flatten();
        let found = match (rest.as_immutable_string_ref(), rest.as_int()) {
            (Ok(text), _) => self.table.text(&text),
            (_, Ok(n)) => self.table.int(n),
            _ => None,
        };
        if found.is_some() {
            release(rest);
            return Ok((Dynamic::UNIT, found));
        }
        Ok((self.join.run(c, rest)?.flatten(), None))
    }
}

/// A name found in a prefix's table at the call: its id, and its whole name (for a call that
/// goes the ordinary way, which is given the name as the `+` would have built it).
type Found<'a> = Option<(u16, &'a ImmutableString)>;

impl Given {
    /// The argument a literal gives (code gives its value at the call).
    #[inline]
    fn literal_arg(&self) -> Arg<'_> {
        match self {
            Given::Id(id) => Arg::Id(*id),
            Given::Int(n) => Arg::Int(*n),
            Given::Text(t) => Arg::Text(t),
            Given::Ids(ids) => Arg::Ids(ids),
            Given::Filter(Prepared::Literal(filter, _), _) => Arg::Filter(FilterArg::Prepared(filter)),
            Given::Value(v) => Arg::Value(v),
            Given::Filter(Prepared::Built(..), _)
            | Given::IntCode(_)
            | Given::NameCode(_)
            | Given::Prefixed(_)
            | Given::ValueCode(_) => Arg::Int(0),
        }
    }

    /// The code the call runs for this argument, if any.
    fn code(&self) -> Option<&Eval> {
        match self {
            Given::IntCode(e) | Given::NameCode(e) | Given::ValueCode(e) | Given::Filter(_, Some(e)) => Some(e),
            Given::Prefixed(p) => Some(&p.rest),
            _ => None,
        }
    }
}

/// The arguments a call site's literals give (code's places hold 0 until filled at the call).
type LiteralArgs<'a> = [Arg<'a>; MOST];

self_cell::self_cell!(
    /// A call site's arguments as the compiler found them, kept with the arguments their
    /// literals give: those borrow the literals' texts, zone lists and filters, and are built
    /// once, at load, where building them at each call cost a literal call a third of its
    /// own instructions.
    struct Givens {
        owner: Vec<Given>,
        #[covariant]
        dependent: LiteralArgs,
    }
);

/// A method call on a variable (`game.add("money", 2)`) whose native has direct forms that fit
/// its arguments.
pub(super) struct DirectSite {
    /// The variable holding the handle.
    slot: usize,
    /// Where `this` is written, if the call is made on it.
    this: Option<Position>,
    given: Givens,
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
                (Param::Zone | Param::Counter | Param::Piece, Some(v)) => {
                    Given::Id(resolve(self, *param, v).unwrap_or_default())
                }
                (Param::Text, Some(v)) => Given::Text(v.clone().into_immutable_string().unwrap_or_default()),
                (Param::Int, Some(v)) => Given::Int(v.as_int().unwrap_or_default()),
                (Param::Value, Some(v)) => Given::Value(v.clone()),
                (Param::Value, None) => Given::ValueCode(self.expr(e)?),
                (Param::Zone | Param::Counter | Param::Piece, None) => match self.prefixed(*param, e)? {
                    Some(p) => Given::Prefixed(Box::new(p)),
                    None => Given::NameCode(self.expr(e)?),
                },
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
        let given = Givens::new(given, |given| {
            let mut args = [Arg::Int(0); MOST];
            for (arg, g) in args.iter_mut().zip(given) {
                *arg = g.literal_arg();
            }
            args
        });
        let direct = DirectSite { slot, this, given, forms, codes, literals, site };
        // Most calls write every argument as a literal (`game.add("money", 2)`): their own
        // closure calls the form with the arguments built above, nothing else.
        if direct.this.is_none() {
            match direct.codes.len() {
                0 => return Ok(Some(Box::new(move |c| direct.call_literal(c)))),
                1 if matches!(direct.given()[direct.codes[0]], Given::Prefixed(_)) => {
                    return Ok(Some(Box::new(move |c| direct.call_one_prefixed(c))));
                }
                1 => return Ok(Some(Box::new(move |c| direct.call_one(c)))),
                _ => {}
            }
        }
        Ok(Some(Box::new(move |c| direct.call(c))))
    }

    /// A name argument written `"prefix" + code` where declared names of that kind begin with
    /// the prefix, as a table of those names and the code.
    fn prefixed(&mut self, param: Param, e: &Expr) -> C<Option<Prefixed>> {
        let Expr::FnCall(f, pos) = e else { return Ok(None) };
        let [left, right] = f.args.as_slice() else { return Ok(None) };
        if f.op_token.is_none() || f.name != "+" {
            return Ok(None);
        }
        let Some(prefix) = literal(left).filter(Dynamic::is_string) else { return Ok(None) };
        let text = prefix.clone().into_immutable_string().unwrap_or_default();
        let defs = self.rules();
        let index = match param {
            Param::Zone => &defs.zone_index,
            Param::Counter => &defs.counter_index,
            Param::Piece => &defs.piece_index,
            _ => return Ok(None),
        };
        let Some(table) = ByRest::new(&text, index.iter().map(|(name, &id)| (name.as_str(), id))) else {
            return Ok(None);
        };
        let join = Join::new(self, prefix, *pos);
        Ok(Some(Prefixed { rest: self.expr(right)?, table, join }))
    }
}

/// Whether arguments `args` fit `params`: a zone, counter or piece a literal naming one or code
/// (its name checked at the call), zones a literal list of zone names, a text a literal string,
/// an integer a literal integer or code (checked at the call), a filter a map, a value anything.
fn fits(fc: &FnCompiler, params: &[Param], args: &[Expr]) -> bool {
    params.len() == args.len()
        && params.iter().zip(args).all(|(&param, e)| match (param, literal(e)) {
            (Param::Filter, _) => matches!(e, Expr::Map(..)) || matches!(e, Expr::DynamicConstant(v, _) if v.is_map()),
            (Param::Value, _) => true,
            (Param::Int | Param::Zone | Param::Counter | Param::Piece, None) => true,
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

/// The zone, counter or piece a literal names.
fn resolve(fc: &FnCompiler, param: Param, value: &Dynamic) -> Option<u16> {
    let name = value.read_lock::<ImmutableString>()?;
    match param {
        Param::Zone => fc.rules().zone(&name),
        Param::Counter => fc.rules().counter(&name),
        Param::Piece => fc.rules().piece(&name),
        _ => None,
    }
}

impl DirectSite {
    fn call(&self, c: &mut Ctx) -> Res<Dynamic> {
        // Arguments are evaluated in order, as Rhai does; only the computed ones do anything.
        // The values are released by hand (see `release`): Rust's drop code would call Rhai's
        // for each of them, mostly integers.
        let mut computed = ManuallyDrop::new([const { Dynamic::UNIT }; MOST]);
        let mut found: [Found; MOST] = [None; MOST];
        for &k in &self.codes {
            match self.compute(c, k) {
                Ok((v, f)) => {
                    release(std::mem::replace(&mut computed[k], v));
                    found[k] = f;
                }
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
        let result = {
            // Names computed at the call are lent where they lie.
            let names: [Option<_>; MOST] = std::array::from_fn(|k| match self.given().get(k) {
                Some(Given::NameCode(_) | Given::Prefixed(_)) => computed[k].as_immutable_string_ref().ok(),
                _ => None,
            });
            let mut args = *self.given.borrow_dependent();
            let fit = self.codes.iter().all(|&k| self.fill(k, &computed[k], names[k].as_deref(), found[k], &mut args));
            if fit { self.call_forms(c.slot_ref(self.slot), &args[..self.given().len()]) } else { None }
        };
        if let Some(result) = result {
            self.release(&mut computed);
            return self.finish(result);
        }
        self.call_ordinary(c, &mut computed, &found)
    }

    /// The value of argument `k`'s code, flattened, and for a name written with a prefix, the
    /// name found in the prefix's table (see [`Prefixed::compute`]).
    #[inline(always)]
    fn compute(&self, c: &mut Ctx, k: usize) -> Res<(Dynamic, Found<'_>)> {
        match &self.given()[k] {
            Given::Prefixed(p) => p.compute(c),
            given => match given.code() {
                Some(code) => Ok((code(c)?.flatten(), None)),
                None => Ok((Dynamic::UNIT, None)),
            },
        }
    }

    /// A call whose arguments are all literals: the arguments are the given ones.
    fn call_literal(&self, c: &mut Ctx) -> Res<Dynamic> {
        let args = self.given.borrow_dependent();
        match self.call_forms(c.slot_ref(self.slot), &args[..self.given().len()]) {
            Some(result) => self.finish(result),
            None => self.call_ordinary(c, &mut ManuallyDrop::new([const { Dynamic::UNIT }; MOST]), &[None; MOST]),
        }
    }

    /// A call with one argument computed at the call, the others literals (`game.move(member,
    /// "prison")`, `game.add("money", n)`): most calls that are not all literals. It does what
    /// `call` does without the loops over the computed arguments.
    fn call_one(&self, c: &mut Ctx) -> Res<Dynamic> {
        let k = self.codes[0];
        let value = match self.given()[k].code() {
            Some(code) => code(c)?.flatten(),
            None => Dynamic::UNIT,
        };
        self.call_one_with(c, k, value, None)
    }

    /// [`DirectSite::call_one`] for a call whose one computed argument is a name written with a
    /// prefix (`game.count("pool." + seat)`).
    fn call_one_prefixed(&self, c: &mut Ctx) -> Res<Dynamic> {
        let k = self.codes[0];
        let (value, found) = self.compute(c, k)?;
        self.call_one_with(c, k, value, found)
    }

    /// The rest of a call with one argument computed: argument `k`'s value, or the name found
    /// for it.
    #[inline(always)]
    fn call_one_with(&self, c: &mut Ctx, k: usize, value: Dynamic, found: Found) -> Res<Dynamic> {
        let given = &self.given()[k];
        let result = {
            // A name computed at the call is lent where it lies.
            let name = match given {
                Given::NameCode(_) | Given::Prefixed(_) => value.as_immutable_string_ref().ok(),
                _ => None,
            };
            let mut args = *self.given.borrow_dependent();
            let fits = self.fill(k, &value, name.as_deref(), found, &mut args);
            if fits { self.call_forms(c.slot_ref(self.slot), &args[..self.given().len()]) } else { None }
        };
        match result {
            Some(result) => {
                release(value);
                self.finish(result)
            }
            None => {
                let mut computed = ManuallyDrop::new([const { Dynamic::UNIT }; MOST]);
                computed[k] = value;
                let mut all_found = [None; MOST];
                all_found[k] = found;
                self.call_ordinary(c, &mut computed, &all_found)
            }
        }
    }

    /// The call's arguments as the compiler found them.
    #[inline]
    fn given(&self) -> &[Given] {
        self.given.borrow_owner()
    }

    /// Puts the value computed for argument `k` in its place among `args`, if it is of the type
    /// the forms take there (a name computed at the call is lent as `name`, one found in its
    /// prefix's table given by id).
    #[inline(always)]
    fn fill<'a>(
        &'a self,
        k: usize,
        value: &'a Dynamic,
        name: Option<&'a ImmutableString>,
        found: Found,
        args: &mut [Arg<'a>; MOST],
    ) -> bool {
        match &self.given()[k] {
            Given::IntCode(_) => value.as_int().map(|n| args[k] = Arg::Int(n)).is_ok(),
            Given::Prefixed(_) if found.is_some() => found.map(|(id, _)| args[k] = Arg::Id(id)).is_some(),
            Given::NameCode(_) | Given::Prefixed(_) => name.map(|name| args[k] = Arg::Text(name)).is_some(),
            Given::ValueCode(_) => {
                args[k] = Arg::Value(value);
                true
            }
            Given::Filter(filter, _) => {
                args[k] = Arg::Filter(filter.arg(value));
                true
            }
            _ => false,
        }
    }

    /// Calls the first form that takes the handle.
    #[inline]
    fn call_forms(&self, handle: &Dynamic, args: &[Arg]) -> Option<Res<Dynamic>> {
        if super::profile::on() {
            return self.call_forms_profiled(handle, args);
        }
        self.forms.iter().find_map(|form| form(handle, args))
    }

    /// [`DirectSite::call_forms`] under `tabula sim --profile`.
    #[cold]
    #[inline(never)]
    fn call_forms_profiled(&self, handle: &Dynamic, args: &[Arg]) -> Option<Res<Dynamic>> {
        let open = super::profile::enter(0);
        let result = self.forms.iter().find_map(|form| form(handle, args));
        match result {
            Some(_) => super::profile::leave_native(open, &self.site.name),
            None => super::profile::abandon(open),
        }
        result
    }

    /// A direct form's result, checked for size, its error placed at the call.
    #[inline]
    fn finish(&self, result: Res<Dynamic>) -> Res<Dynamic> {
        let pos = self.site.pos;
        result.and_then(|v| check_size(&v, pos).map(|()| v)).map_err(|e| fill_position(e, pos))
    }

    /// The ordinary way, with the values already computed (a name found in its prefix's table
    /// is given as the `+` would have built it).
    fn call_ordinary(&self, c: &mut Ctx, computed: &mut [Dynamic; MOST], found: &[Found; MOST]) -> Res<Dynamic> {
        let mark = c.stack.len();
        for (k, (literal, g)) in self.literals.iter().zip(self.given()).enumerate() {
            let value = match (g, found[k]) {
                (Given::Prefixed(_), Some((_, name))) => Dynamic::from(name.clone()),
                (Given::IntCode(_) | Given::NameCode(_) | Given::Prefixed(_) | Given::ValueCode(_), _) => {
                    std::mem::take(&mut computed[k])
                }
                (Given::Filter(filter, _), _) => filter.map(std::mem::take(&mut computed[k])),
                _ => literal.clone(),
            };
            c.stack.push(value);
        }
        self.release(computed);
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
}
