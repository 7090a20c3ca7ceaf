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

use rhai::{Engine, ImmutableString, RhaiFunc, RhaiNativeFunc, Variant};

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
}

impl Natives {
    /// tabula's natives of this name and arity, in the order registered, with their parameter
    /// types: the candidates a call site chooses from by its arguments' types.
    pub(crate) fn with_arity(&self, name: &str, arity: usize) -> Vec<(Vec<TypeId>, RhaiFunc)> {
        let list = self.by_name.get(name).map(Vec::as_slice).unwrap_or_default();
        list.iter().filter(|n| n.params.len() == arity).map(|n| (n.params.clone(), n.func.clone())).collect()
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

    /// Registers a custom type's name, as `Engine::register_type_with_name` does.
    pub(crate) fn register_type_with_name<T: Variant + Clone>(&mut self, name: &str) -> &mut Self {
        self.engine.register_type_with_name::<T>(name);
        self
    }
}
