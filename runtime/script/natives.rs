//! The table of tabula's native functions, kept beside Rhai's own registration so that compiled
//! scripts can call a native directly.
//!
//! Rhai resolves a native by hashing its name and argument types at every call, in caches it
//! builds afresh for each hook call, and offers no public way to reach a registered function
//! from outside. Each native is therefore registered twice through [`Registry`]: on the Rhai
//! engine, as before, and in [`Natives`], from which the compiler picks it by name, arity and
//! argument types, the way Rhai would.

use std::any::TypeId;
use std::collections::HashMap;
use std::rc::Rc;

use rhai::{Dynamic, Engine, ImmutableString, Map, RhaiFunc, RhaiNativeFunc, Variant};

use super::RhaiResult;
use super::board::FilterArg;
use crate::rules::defs::ZoneId;

/// One registered native: the types of its parameters (strings as `ImmutableString`, any type
/// as `Dynamic`) and the function.
struct Native {
    params: Vec<TypeId>,
    func: RhaiFunc,
}

/// tabula's natives by name, for the compiler.
#[derive(Default)]
pub(crate) struct Natives {
    by_name: HashMap<ImmutableString, Vec<Native>>,
    /// Direct forms by name and arity (see [`DirectForm`]).
    direct_forms: HashMap<(ImmutableString, usize), Vec<DirectForm>>,
}

/// What one argument of a [`DirectForm`] must be, after the handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Param {
    /// A zone's name: a literal is resolved at load, a name computed at the call is passed as
    /// a string (`Arg::Text`).
    Zone,
    /// A counter's name: a literal is resolved at load, a name computed at the call is passed
    /// as a string (`Arg::Text`).
    Counter,
    /// A piece's name: a literal is resolved at load, a name computed at the call is passed as
    /// a string (`Arg::Text`).
    Piece,
    /// A list of zone names written as a literal (`["hand", "table"]`): resolved at load.
    Zones,
    /// A string written as a literal, passed as it is (a property's name).
    Text,
    /// An integer, written or computed at the call.
    Int,
    /// A filter written as a map in the call (`#{ kind: "card" }`, `#{ at: here }`): turned
    /// into a filter at load, its computed values filled in at each call, where the ordinary
    /// form copies the map and reads it at every call.
    Filter,
    /// Any value, written or computed at the call (a property's new value), lent where it lies.
    Value,
}

/// One argument given to a [`DirectForm`]: a zone, counter or piece resolved at load or found
/// at the call by its prefix's table (`Id`), zones resolved at load, a string (a literal, or a
/// name computed at the call), an integer, a prepared filter, or any value.
#[derive(Clone, Copy)]
pub(crate) enum Arg<'a> {
    /// A zone, a counter or a piece, by id.
    Id(u16),
    /// Zones, by id.
    Ids(&'a [u16]),
    /// A literal string, or a name computed at the call.
    Text(&'a ImmutableString),
    /// An integer.
    Int(i64),
    /// A filter, prepared at load (its computed values filled in at the call).
    Filter(FilterArg<'a>),
    /// Any value: a literal, or what the code wrote there gave at the call.
    Value(&'a Dynamic),
}

impl<'a> Arg<'a> {
    /// The zone this argument gives, if it gives one: resolved at load, or a name.
    pub(crate) fn zone(self) -> Option<ZoneArg<'a>> {
        match self {
            Arg::Id(z) => Some(ZoneArg::Id(z)),
            Arg::Text(name) => Some(ZoneArg::Named(name)),
            _ => None,
        }
    }
}

/// A zone as a native is given it: resolved at load (a direct form's), or a script's string.
#[derive(Clone, Copy)]
pub(crate) enum ZoneArg<'a> {
    /// Resolved at load.
    Id(ZoneId),
    /// A script's string, looked up at the call.
    Named(&'a ImmutableString),
}

/// A handle that finds zones by name (the `Game` and `View` handles).
pub(crate) trait ZoneNames {
    /// The zone a script's string names, or the error that it names none.
    fn zone_named(&self, name: &ImmutableString) -> RhaiResult<ZoneId>;

    /// The zone an argument gives.
    fn zone_arg(&self, zone: ZoneArg) -> RhaiResult<ZoneId> {
        match zone {
            ZoneArg::Id(z) => Ok(z),
            ZoneArg::Named(name) => self.zone_named(name),
        }
    }
}

/// A native's form for call sites that name their zones and counters with literals, as hooks
/// mostly do (`game.add("score", 2)`, `game.count("hand")`): the compiler resolves the names
/// once, at load, and the call gives the native the ids and integers as they are, without
/// Rhai's calling protocol (arguments boxed, the native picked by their types, the result
/// boxed and its size checked) or a lookup of each name. A call whose computed arguments turn
/// out not to be integers goes the ordinary way, which picks the native Rhai would.
#[derive(Clone)]
pub(crate) struct DirectForm {
    /// What each argument after the handle must be.
    pub(crate) params: Vec<Param>,
    /// The native, given the handle (the method call's target) and the arguments; `None` when
    /// the handle is not of the type it takes.
    pub(crate) call: Rc<DirectCall>,
}

/// The function of a [`DirectForm`].
pub(crate) type DirectCall = dyn Fn(&Dynamic, &[Arg]) -> Option<RhaiResult<Dynamic>>;

impl Natives {
    /// tabula's natives of this name and arity, in the order registered, with their parameter
    /// types: the candidates a call site chooses from by its arguments' types.
    pub(crate) fn with_arity(&self, name: &str, arity: usize) -> Vec<(Vec<TypeId>, RhaiFunc)> {
        let list = self.by_name.get(name).map(Vec::as_slice).unwrap_or_default();
        list.iter().filter(|n| n.params.len() == arity).map(|n| (n.params.clone(), n.func.clone())).collect()
    }

    /// The direct forms of the natives of this name taking `arity` arguments after the handle.
    pub(crate) fn direct_forms(&self, name: &str, arity: usize) -> &[DirectForm] {
        self.direct_forms.get(&(ImmutableString::from(name), arity)).map(Vec::as_slice).unwrap_or_default()
    }
}

/// A native's result as a script value, made directly: `Dynamic::from` copies a list item by
/// item into a new one.
pub(crate) trait ScriptValue {
    /// The script value.
    fn into_script(self) -> Dynamic;
}

impl ScriptValue for i64 {
    fn into_script(self) -> Dynamic {
        Dynamic::from_int(self)
    }
}

impl ScriptValue for rhai::Array {
    fn into_script(self) -> Dynamic {
        Dynamic::from_array(self)
    }
}

/// Registers natives on a Rhai engine and in a [`Natives`] table at once. Its methods have the
/// names of `Engine`'s, so the registering code reads the same.
pub(crate) struct Registry<'a> {
    pub(crate) engine: &'a mut Engine,
    pub(crate) natives: &'a mut Natives,
}

impl Registry<'_> {
    /// Registers a native function, as `Engine::register_fn` does.
    pub(crate) fn register_fn<A: 'static, const N: usize, const X: bool, R: Variant + Clone, const F: bool, FN>(
        &mut self,
        name: &str,
        func: FN,
    ) -> &mut Self
    where
        FN: RhaiNativeFunc<A, N, X, R, F> + Clone + 'static,
    {
        let params = FN::param_types();
        let rhai_func = func.clone().into_rhai_function(true, false);
        let is_method = rhai_func.is_method();
        // Rhai keys `&str` and `String` parameters as `ImmutableString`, except the first one of
        // a function taking it by reference.
        let params = params
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let mapped = !is_method || i > 0;
                if mapped && (t == TypeId::of::<&str>() || t == TypeId::of::<String>()) {
                    TypeId::of::<ImmutableString>()
                } else {
                    t
                }
            })
            .collect::<Vec<_>>();
        let list = self.natives.by_name.entry(name.into()).or_default();
        list.retain(|n| n.params != params);
        list.push(Native { params, func: rhai_func });
        self.engine.register_fn(name, func);
        self
    }

    /// Registers the direct form of a native already registered (see [`DirectForm`]), for
    /// handles of type `H`; only compiled scripts call it. `call` returns `None` for arguments
    /// it does not take, and the call then goes the ordinary way.
    pub(crate) fn register_direct<H: Variant + Clone>(
        &mut self,
        name: &str,
        params: &[Param],
        call: impl Fn(&H, &[Arg]) -> Option<RhaiResult<Dynamic>> + 'static,
    ) -> &mut Self {
        let call = move |handle: &Dynamic, args: &[Arg]| call(&*handle.read_lock::<H>()?, args);
        let form = DirectForm { params: params.to_vec(), call: Rc::new(call) };
        self.natives.direct_forms.entry((name.into(), params.len())).or_default().push(form);
        self
    }

    /// Registers a native `name(handle, zone, filter)` of handle type `H`: its ordinary form,
    /// which reads the filter from the script's map at each call, and its direct form, given a
    /// filter prepared at load.
    pub(crate) fn register_zone_filter_fn<H: Variant + Clone, R: Variant + Clone + ScriptValue>(
        &mut self,
        name: &str,
        native: fn(&H, ZoneArg, FilterArg) -> RhaiResult<R>,
    ) -> &mut Self {
        self.register_fn(name, move |h: &mut H, zone: ImmutableString, filter: Map| -> RhaiResult<R> {
            native(h, ZoneArg::Named(&zone), FilterArg::Map(&filter))
        });
        self.register_direct(name, &[Param::Zone, Param::Filter], move |h: &H, args| match *args {
            [zone, Arg::Filter(filter)] => Some(native(h, zone.zone()?, filter).map(ScriptValue::into_script)),
            _ => None,
        })
    }

    /// Registers a custom type's name, as `Engine::register_type_with_name` does.
    pub(crate) fn register_type_with_name<T: Variant + Clone>(&mut self, name: &str) -> &mut Self {
        self.engine.register_type_with_name::<T>(name);
        self
    }
}
