//! Maps in compiled code: map literals (built in the order of their keys where their values are
//! computed), and the filter maps natives take (`#{ kind: "keeper", level: 2 }`), prepared at load.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};

use rhai::{Dynamic, Expr, Map, Position};
use rustc_hash::{FxHashMap, FxHasher};

use super::Eval;
use super::ctx::{Sizes, data_sizes, over_limit, pop_to, release, set};
use super::expr::{FnCompiler, literal};
use crate::script::board::{BuiltFilter, Filter, FilterArg};

impl FnCompiler<'_> {
    /// The filter a map argument becomes at load, and for a map with values computed at the
    /// call, the code that computes them; `None` for an argument that is not a map, or a map the
    /// rules reject or whose kind is computed.
    pub(super) fn filter_of(&mut self, e: &Expr) -> Option<(Prepared, Option<Eval>)> {
        if let Some(map) = literal_map(e) {
            let filter = Filter::new(self.rules(), &map).ok()?;
            return Some((Prepared::Literal(filter, Dynamic::from_map(map)), None));
        }
        let Expr::Map(x, _) = e else { return None };
        let (values, built, template, keys) = self.built_filter(&x.0, &x.1)?;
        Some((Prepared::Built(built, template, keys), Some(values)))
    }

    /// A filter map with values computed at the call, as a [`BuiltFilter`]: the code that
    /// computes the values (one value, or an array of them), checking sizes as building the
    /// map would; the filter; and the map of its literal values (`()` for the others) with the
    /// keys of the others, to build the map for a call that goes the ordinary way after all.
    fn built_filter(
        &mut self,
        entries: &[(rhai::Ident, Expr)],
        template: &Map,
    ) -> Option<(Eval, BuiltFilter, Map, Vec<rhai::Identifier>)> {
        let mut literals = template.clone();
        let mut keys = Vec::new();
        let mut steps = Vec::new();
        for (key, value) in entries {
            match literal(value) {
                Some(v) => {
                    steps.push((None, data_sizes(&v), value.position()));
                    literals.insert(key.name.as_str().into(), v);
                }
                None => {
                    steps.push((Some(self.expr(value).ok()?), Sizes::default(), value.position()));
                    keys.push(rhai::Identifier::from(key.name.as_str()));
                }
            }
        }
        let names = keys.iter().map(|k| k.as_str()).collect::<Vec<_>>();
        let built = BuiltFilter::new(self.rules(), &literals, &names)?;
        let single = built.computed() == 1;
        let values: Eval = Box::new(move |c| {
            let mut sizes = Sizes::MAP;
            let mut list = rhai::Array::new();
            let mut one = Dynamic::UNIT;
            for (code, literal_sizes, pos) in &steps {
                let item = match code {
                    None => *literal_sizes,
                    Some(code) => {
                        let value = code(c)?.flatten();
                        let value_sizes = data_sizes(&value);
                        if single {
                            one = value
                        } else {
                            list.push(value)
                        }
                        value_sizes
                    }
                };
                sizes = sizes.with(item, false);
                over_limit(sizes, *pos)?;
            }
            Ok(if single { one } else { Dynamic::from_array(list) })
        });
        Some((values, built, literals, keys))
    }
}

/// For a map literal whose template (`Rhai`'s map of its keys, each holding `()`) has exactly
/// the keys written, each once: for each of the template's keys in order, the index of the
/// entry written with it.
pub(super) fn by_key<'k>(template: &Map, keys: impl ExactSizeIterator<Item = &'k str>) -> Option<Vec<usize>> {
    let mut by_key = vec![usize::MAX; template.len()];
    if keys.len() != template.len() {
        return None;
    }
    for (i, key) in keys.enumerate() {
        let place = template.keys().position(|k| k.as_str() == key)?;
        if by_key[place] != usize::MAX {
            return None;
        }
        by_key[place] = i;
    }
    Some(by_key)
}

/// A map literal with values computed at the call, built as Rhai builds it (the values
/// evaluated and their sizes checked in the order written, into a copy of the template) but
/// without looking each key up: the values wait on the stack and are moved into the copy's
/// places in the order of its keys (`by_key`, see [`by_key`]). The copy is a spare map with the
/// same keys where one was given back ([`give_back`]), else a clone of the template.
pub(super) fn map_in_key_order(template: Map, values: Vec<(Eval, Position)>, by_key: Vec<usize>) -> Eval {
    let shape = shape_of(&template);
    Box::new(move |c| {
        let mark = c.stack.len();
        let mut sizes = Sizes::MAP;
        for (value, pos) in &values {
            let value = match value(c) {
                Ok(v) => v.flatten(),
                Err(e) => {
                    pop_to(&mut c.stack, mark);
                    return Err(e);
                }
            };
            sizes = sizes.with(data_sizes(&value), false);
            if let Err(e) = over_limit(sizes, *pos) {
                release(value);
                pop_to(&mut c.stack, mark);
                return Err(e);
            }
            c.stack.push(value);
        }
        let mut map = spare(shape, &template).unwrap_or_else(|| Dynamic::from_map(template.clone()));
        if let Some(mut places) = map.write_lock::<Map>() {
            for (place, &i) in places.values_mut().zip(&by_key) {
                set(place, std::mem::take(&mut c.stack[mark + i]));
            }
        }
        pop_to(&mut c.stack, mark);
        Ok(map)
    })
}

/// Maps given back, by the hash of their keys: an options hook lists the same few kinds of
/// option (`#{action: "move", pawn: p, to: to}`) at every decision, and a map the flow has read
/// can hold the next listing's option with the same keys without being allocated, copied and
/// freed again.
#[derive(Default)]
struct Spares {
    by_shape: FxHashMap<u64, Vec<Dynamic>>,
}

/// At most this many spare maps of one set of keys (per thread).
const SPARES_PER_SHAPE: usize = 256;
/// At most this many sets of keys are kept (per thread): a script that lists options under
/// ever new keys gets no spares for the new ones, and memory stays bounded.
const SPARE_SHAPES: usize = 64;
/// Maps with more keys than this are not kept (an option names a few parameters).
const SPARE_KEYS: usize = 8;

thread_local! {
    static SPARES: RefCell<Spares> = RefCell::new(Spares::default());
}

/// The hash of a map's keys, in order.
fn shape_of(map: &Map) -> u64 {
    let mut h = FxHasher::default();
    map.len().hash(&mut h);
    map.keys().for_each(|k| k.as_str().hash(&mut h));
    h.finish()
}

/// A spare map with exactly the keys of `template` (its values still the old ones), if any.
fn spare(shape: u64, template: &Map) -> Option<Dynamic> {
    SPARES.with_borrow_mut(|spares| {
        let list = spares.by_shape.get_mut(&shape)?;
        let spare = list.pop()?;
        let same = spare.read_lock::<Map>().is_some_and(|m| m.keys().eq(template.keys()));
        same.then_some(spare)
    })
}

/// Keeps the maps among `values` (a listing the flow has read) for map literals with the same
/// keys to fill in again; the rest are dropped. Only maps that are plain values (not read-only,
/// untagged; the engine's Rhai has no shared values) are kept, so a map filled in again is what
/// a fresh one would be, and only those of a few keys holding no list or map, so that what is
/// kept stays small.
pub(crate) fn give_back(values: rhai::Array) {
    let small = |m: &Map| m.len() <= SPARE_KEYS && m.values().all(|x| !x.is_array() && !x.is_map());
    SPARES.with_borrow_mut(|spares| {
        for v in values {
            let plain = v.is_map() && !v.is_read_only() && v.tag() == 0;
            let Some(shape) = plain.then(|| v.read_lock::<Map>().filter(|m| small(m)).map(|m| shape_of(&m))).flatten()
            else {
                continue;
            };
            if spares.by_shape.len() >= SPARE_SHAPES && !spares.by_shape.contains_key(&shape) {
                continue;
            }
            let list = spares.by_shape.entry(shape).or_default();
            if list.len() < SPARES_PER_SHAPE {
                list.push(v);
            }
        }
    });
}

/// What a call site's filter map became at load.
pub(super) enum Prepared {
    /// A literal map: its filter, and the map, for a call that goes the ordinary way after all.
    Literal(Filter, Dynamic),
    /// A map with values computed at the call: its filter, and for a call that goes the
    /// ordinary way, the map of its literal values (`()` for the others) and the keys of the
    /// computed ones.
    Built(BuiltFilter, Map, Vec<rhai::Identifier>),
}

impl Prepared {
    /// The filter as a native takes it, given what the argument's code yielded (`()` for a
    /// literal map).
    pub(super) fn arg<'a>(&'a self, values: &'a Dynamic) -> FilterArg<'a> {
        match self {
            Prepared::Literal(filter, _) => FilterArg::Prepared(filter),
            Prepared::Built(built, ..) => FilterArg::Built(built, values),
        }
    }

    /// The map the script wrote, from what the argument's code yielded.
    pub(super) fn map(&self, values: Dynamic) -> Dynamic {
        match self {
            Prepared::Literal(_, map) => map.clone(),
            Prepared::Built(_, literals, keys) => {
                let mut map = literals.clone();
                match keys.as_slice() {
                    [key] => {
                        map.insert(key.clone(), values);
                    }
                    keys => {
                        let values = values.into_array().unwrap_or_default();
                        map.extend(keys.iter().cloned().zip(values));
                    }
                }
                Dynamic::from_map(map)
            }
        }
    }
}

/// The value of a map of literals (`#{ kind: "keeper", level: 2 }`), or of a constant map
/// (Rhai's optimizer folds a map of constants into one).
pub(super) fn literal_map(e: &Expr) -> Option<Map> {
    if let Expr::DynamicConstant(v, _) = e {
        return v.read_lock::<Map>().map(|m| m.clone());
    }
    let Expr::Map(x, _) = e else { return None };
    let mut map: Map = x.1.clone();
    for (key, value) in &x.0 {
        map.insert(key.name.as_str().into(), literal(value)?);
    }
    Some(map)
}
