//! Script values and the engine's own: action arguments to and from script values, actions as
//! maps, and the helpers registered on plain lists.

use std::cell::RefCell;

use rhai::{Array, Dynamic, ImmutableString, Map};

use super::names::Names;
use super::natives::Registry;
use crate::rules::defs::{ActionId, Defs, Domain, PieceId, SeatId};
use crate::value::{Action, Value};

/// Converts a script value into an action argument of the given domain.
pub(crate) fn to_value(defs: &Defs, domain: &Domain, v: &Dynamic) -> Result<Value, String> {
    // The value's text, lent where it lies (most arguments are names), when a domain wants one.
    let text = || v.as_immutable_string_ref().ok();
    match domain {
        Domain::Piece(..) => match v.as_int() {
            Ok(id) if (0..defs.pieces.len() as i64).contains(&id) => Ok(Value::Piece(id as PieceId)),
            _ => text()
                .and_then(|t| defs.piece(&t))
                .map(Value::Piece)
                .ok_or_else(|| format!("expected a piece, found {v}")),
        },
        Domain::Zone(_) => text()
            .and_then(|t| defs.zone(&t))
            .map(Value::Zone)
            .ok_or_else(|| format!("expected a zone name, found {v}")),
        Domain::Word(_) => {
            text().and_then(|t| defs.symbol(&t)).map(Value::Word).ok_or_else(|| format!("expected a word, found {v}"))
        }
        Domain::Set(set) => {
            let items = v.read_lock::<Array>().ok_or_else(|| format!("expected a list of pieces, found {v}"))?;
            let mut mask = 0u64;
            for item in items.iter() {
                let piece = match item.as_int() {
                    Ok(id) if (0..defs.pieces.len() as i64).contains(&id) => Some(id as PieceId),
                    _ => item.clone().into_immutable_string().ok().and_then(|t| defs.piece(&t)),
                };
                let bit = piece
                    .and_then(|p| set.mask_of([p]))
                    .ok_or_else(|| format!("expected pieces the set may hold, found {item}"))?;
                if mask & bit != 0 {
                    return Err(format!("{item} is twice in the set"));
                }
                mask |= bit;
            }
            Ok(Value::Set(mask))
        }
        Domain::Int(..) => v.as_int().map(Value::Int).map_err(|_| format!("expected an integer, found {v}")),
        Domain::Seat => text()
            .and_then(|t| defs.seat(&t))
            .map(Value::Seat)
            .ok_or_else(|| format!("expected a seat name, found {v}")),
    }
}

/// An action argument as a script value (a set is a list of piece ids, in universe order).
pub(crate) fn from_value(defs: &Defs, domain: &Domain, v: &Value) -> Dynamic {
    match v {
        Value::Set(mask) => match domain {
            Domain::Set(set) => {
                Dynamic::from_array(set.members(*mask).map(|p| Dynamic::from_int(i64::from(p))).collect())
            }
            _ => Dynamic::UNIT,
        },
        Value::Piece(p) => Dynamic::from_int(i64::from(*p)),
        Value::Zone(z) => Dynamic::from(defs.zone_names[*z as usize].clone()),
        Value::Word(w) => Dynamic::from(defs.symbols[*w as usize].clone()),
        Value::Int(i) => Dynamic::from_int(*i),
        Value::Seat(s) => Dynamic::from(defs.seat_names[*s as usize].clone()),
    }
}

/// An action as scripts list and receive options: `#{action: "enter", to: "tile_3"}`.
pub(crate) fn action_map(defs: &Defs, action: &Action) -> Map {
    let def = &defs.actions[action.action as usize];
    let mut map = Map::new();
    map.insert("action".into(), Dynamic::from(ImmutableString::from(def.name.as_str())));
    for (name, value) in param_entries(defs, action) {
        map.insert(name.into(), value);
    }
    map
}

/// The action a script describes as `#{action: "...", <param>: value...}` for `seat`.
pub(crate) fn map_action(defs: &Defs, seat: SeatId, value: &Dynamic) -> Result<Action, String> {
    map_option(defs, None, seat, value, false).map(|option| option.action)
}

/// [`map_action`] for an option an `options` hook lists, which may leave parameters out when
/// `partial`: the action (a left-out parameter holds `Value::Int(0)`), which parameters were left
/// out (bit k: parameter k), for the engine to list their every value, and, when `partial`, the
/// lists of values given for parameters that take one value (`#{action: "move", pawn: p, to:
/// ["hall", "yard"]}`: one option per value, see [`MappedOption::each`]). With the scripts'
/// `names`, an action's and a zone's name are looked up once per string (a literal of the
/// scripts, a zone's name as natives give it), not hashed at every option.
pub(crate) fn map_option(
    defs: &Defs,
    names: Option<&Names>,
    seat: SeatId,
    value: &Dynamic,
    partial: bool,
) -> Result<MappedOption, String> {
    let map =
        value.read_lock::<Map>().ok_or_else(|| format!("expected a map like #{{action: \"...\"}}, found {value}"))?;
    let text =
        map.get("action").and_then(|a| a.as_immutable_string_ref().ok()).ok_or("the map has no `action` name")?;
    let name: &str = &text;
    let action = match names {
        Some(names) => names.actions.find(&text, |n| defs.action(n)),
        None => defs.action(name),
    };
    let action = action.ok_or_else(|| format!("no action named `{name}`"))?;
    let def = &defs.actions[action as usize];
    let mut args = crate::value::Args::new();
    let mut left_out = 0;
    let mut lists: Option<Box<Lists>> = None;
    for (k, p) in def.params.iter().enumerate() {
        let v = match map.get(p.name.as_str()) {
            // A list where one value is taken: an option for each of its values.
            Some(v) if v.is_array() && partial && !matches!(p.domain, Domain::Set(_)) => {
                let values = v
                    .read_lock::<Array>()
                    .iter()
                    .flat_map(|items| items.iter())
                    .map(|item| {
                        option_value(defs, names, &p.domain, item).map_err(|e| format!("{name}: {}: {e}", p.name))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                lists.get_or_insert_default().push((k, values));
                Value::Int(0)
            }
            Some(v) => option_value(defs, names, &p.domain, v).map_err(|e| format!("{name}: {}: {e}", p.name))?,
            None if partial => {
                left_out |= 1 << k;
                Value::Int(0)
            }
            None => return Err(format!("{name}: missing `{}`", p.name)),
        };
        args.push(v).map_err(|_| format!("{name}: too many parameters"))?;
    }
    Ok(MappedOption { action: Action { seat, action, args }, left_out, lists })
}

/// An option's argument from its value in the map: a zone's name looked up in the scripts'
/// `names` where given.
fn option_value(defs: &Defs, names: Option<&Names>, domain: &Domain, v: &Dynamic) -> Result<Value, String> {
    match (domain, names, v.as_immutable_string_ref()) {
        (Domain::Zone(_), Some(names), Ok(zone)) => names
            .zones
            .find(&zone, |n| defs.zone(n))
            .map(Value::Zone)
            .ok_or_else(|| format!("expected a zone name, found {v}")),
        _ => to_value(defs, domain, v),
    }
}

/// The parameters an option gives a list of values for, by index, with the values in the list's
/// order.
type Lists = Vec<(usize, Vec<Value>)>;

/// An option as an `options` hook lists it (see [`map_option`]).
pub(crate) struct MappedOption {
    /// The action, with `Value::Int(0)` for the parameters left out or given a list.
    pub(crate) action: Action,
    /// The parameters left out (bit k: parameter k), for the engine to list their every value.
    pub(crate) left_out: u32,
    /// The parameters given a list of values, if any (boxed: most options give none, and are
    /// passed around small).
    lists: Option<Box<Lists>>,
}

impl MappedOption {
    /// How many options it stands for: the product of its lists' lengths (saturating), 1 where
    /// it gives none. The parameters it leaves out are not counted: their domains bound them.
    pub(crate) fn count(&self) -> usize {
        self.lists
            .as_ref()
            .map_or(1, |lists| lists.iter().fold(1usize, |n, (_, values)| n.saturating_mul(values.len())))
    }

    /// Calls `f` with each action the option stands for: the action itself, or, where it gives
    /// lists, one for each combination of their values, in the lists' orders, the last
    /// parameter's fastest (as the engine lists a parameter's values). An empty list stands
    /// for no action.
    #[inline]
    pub(crate) fn each<E>(self, mut f: impl FnMut(Action) -> Result<(), E>) -> Result<(), E> {
        match self.lists {
            None => f(self.action),
            Some(lists) => each_listed(self.action, &lists, &mut f),
        }
    }
}

/// [`MappedOption::each`] for an option that gives lists: apart, so that the common case (no
/// list) stays small enough to be inlined where options are read.
#[inline(never)]
fn each_listed<E>(
    mut action: Action,
    lists: &[(usize, Vec<Value>)],
    f: &mut impl FnMut(Action) -> Result<(), E>,
) -> Result<(), E> {
    if lists.iter().any(|(_, values)| values.is_empty()) {
        return Ok(());
    }
    // An odometer over the lists: the last one turns fastest.
    let mut at = vec![0; lists.len()];
    loop {
        for ((k, values), &i) in lists.iter().zip(&at) {
            action.args[*k] = values[i];
        }
        f(action)?;
        let mut turned = false;
        for d in (0..lists.len()).rev() {
            at[d] += 1;
            if at[d] < lists[d].1.len() {
                turned = true;
                break;
            }
            at[d] = 0;
        }
        if !turned {
            return Ok(());
        }
    }
}

/// An action's parameters by name, with their values as scripts see them.
fn param_entries<'a>(defs: &'a Defs, action: &'a Action) -> impl Iterator<Item = (&'a str, Dynamic)> + 'a {
    let def = &defs.actions[action.action as usize];
    def.params.iter().zip(&action.args).map(|(p, v)| (p.name.as_str(), from_value(defs, &p.domain, v)))
}

/// The entries of the map of an action's arguments that `apply` and `legal` hooks receive: each
/// parameter by name, and `seat`.
fn args_entries<'a>(defs: &'a Defs, action: &'a Action) -> impl Iterator<Item = (&'a str, Dynamic)> + 'a {
    let seat = Dynamic::from(defs.seat_names[action.seat as usize].clone());
    param_entries(defs, action).chain(std::iter::once(("seat", seat)))
}

/// Writes `entries` into the places of a kept map that has their keys: how many it wrote, or
/// `None` where the map lacks one (it is then left half filled, for the caller to drop).
fn fill_in<'a>(map: &mut Map, entries: impl Iterator<Item = (&'a str, Dynamic)>) -> Option<usize> {
    let mut filled = 0;
    for (name, value) in entries {
        *map.get_mut(name)? = value;
        filled += 1;
    }
    Some(filled)
}

/// An action's arguments as the map `apply` and `legal` hooks receive (see `args_entries`).
fn args_map(defs: &Defs, action: &Action) -> Map {
    let mut map = Map::new();
    for (name, value) in args_entries(defs, action) {
        map.insert(name.into(), value);
    }
    map
}

/// The maps of action arguments compiled hooks gave back, one kept per action: building a map
/// (and dropping it after the hook) costs more than filling in the values of one that has the
/// right keys already. A map a hook changed in kind (keys added or removed, made read only) is
/// not reused.
#[derive(Default)]
pub(crate) struct ArgsMaps(RefCell<Vec<Option<Dynamic>>>);

impl ArgsMaps {
    /// The map of `action`'s arguments, as `args_map` builds it.
    pub(crate) fn take(&self, defs: &Defs, action: &Action) -> Dynamic {
        let kept = self.0.borrow_mut().get_mut(action.action as usize).and_then(Option::take);
        if let Some(mut map) = kept
            && refill(defs, action, &mut map)
        {
            return map;
        }
        Dynamic::from_map(args_map(defs, action))
    }

    /// Keeps a map a hook gave back for the next call of `action`'s hooks.
    pub(crate) fn keep(&self, action: ActionId, map: Dynamic) {
        // Values are never shared: rhai's closures are turned off (feature `no_closure`).
        if !map.is_map() || map.is_read_only() {
            return;
        }
        let mut kept = self.0.borrow_mut();
        let at = action as usize;
        if kept.len() <= at {
            kept.resize_with(at + 1, || None);
        }
        kept[at] = Some(map);
    }
}

/// The maps of the options given to `choose` agents, kept per action after the agent's call for
/// the next decision's options: an agent is given every option as a map at every decision, and
/// filling in a kept map with the right keys costs less than building one and dropping it after
/// the call. A map the agent changed in kind (keys added or removed, made read only) is not
/// reused.
#[derive(Default)]
pub(crate) struct OptionMaps(RefCell<Vec<Vec<Dynamic>>>);

/// At most this many kept maps per action (per thread): as many as a decision lists options of
/// one action, within reason.
const OPTION_MAPS_PER_ACTION: usize = 256;

impl OptionMaps {
    /// The options `actions` as maps, as `action_map` builds them.
    pub(crate) fn build(&self, defs: &Defs, actions: &[Action]) -> Array {
        let mut kept = self.0.borrow_mut();
        let mut take = |a: &Action| kept.get_mut(a.action as usize).and_then(Vec::pop);
        let mut option = |a: &Action| {
            if let Some(mut map) = take(a)
                && refill_option(defs, a, &mut map)
            {
                return map;
            }
            Dynamic::from_map(action_map(defs, a))
        };
        actions.iter().map(&mut option).collect()
    }

    /// Keeps the maps of `options` (built by [`OptionMaps::build`] for `actions`, as the agent
    /// left them) for the next decision.
    pub(crate) fn keep(&self, actions: &[Action], options: Array) {
        let mut kept = self.0.borrow_mut();
        for (a, map) in actions.iter().zip(options) {
            // Values are never shared: rhai's closures are turned off (feature `no_closure`).
            if !map.is_map() || map.is_read_only() {
                continue;
            }
            let at = a.action as usize;
            if kept.len() <= at {
                kept.resize_with(at + 1, Vec::new);
            }
            if kept[at].len() < OPTION_MAPS_PER_ACTION {
                kept[at].push(map);
            }
        }
    }
}

/// Fills in a kept map with `action` as an option, if it has exactly the keys `action_map`
/// gives: the same map as a new one, values and tag. The action's name is written only where
/// the map holds another (most kept maps were the same action's).
fn refill_option(defs: &Defs, action: &Action, map: &mut Dynamic) -> bool {
    map.set_tag(0);
    let Some(mut map) = map.write_lock::<Map>() else { return false };
    let def = &defs.actions[action.action as usize];
    // `action_map` writes the name first, and a parameter of the same name over it.
    let named = def.params.iter().all(|p| p.name != "action");
    if named {
        let Some(slot) = map.get_mut("action") else { return false };
        if !slot.as_immutable_string_ref().is_ok_and(|name| name.as_str() == def.name) {
            *slot = Dynamic::from(ImmutableString::from(def.name.as_str()));
        }
    }
    fill_in(&mut map, param_entries(defs, action)).is_some_and(|n| usize::from(named) + n == map.len())
}

/// Fills in a kept map with `action`'s arguments, if it has exactly the keys `args_map` gives:
/// the same map as a new one, values and tag. A map with other keys is left half filled, for
/// the caller to drop.
fn refill(defs: &Defs, action: &Action, map: &mut Dynamic) -> bool {
    map.set_tag(0);
    let Some(mut map) = map.write_lock::<Map>() else { return false };
    fill_in(&mut map, args_entries(defs, action)) == Some(map.len())
}

/// Helpers on plain script values, for agents reading their options.
pub(super) fn register_helpers(engine: &mut Registry) {
    // The index of the first map in `list` that has every key of `pattern` with its value, or
    // -1: `options.index_matching(#{ action: "move", to: "hall" })`.
    engine.register_fn("index_matching", |list: &mut Array, pattern: Map| -> i64 {
        let matches = |item: &Dynamic| {
            item.read_lock::<Map>().is_some_and(|m| {
                pattern.iter().all(|(k, want)| m.get(k.as_str()).is_some_and(|have| matches_value(have, want)))
            })
        };
        list.iter().position(matches).map_or(-1, |i| i as i64)
    });

    // For each word a map of `list` holds at `key`, the index of the first map holding it:
    // `options.first_indices("action")` tells at once which kinds of option there are and where
    // each begins, where a chain of `index_matching` calls walks the list once per kind.
    engine.register_fn("first_indices", |list: &mut Array, key: ImmutableString| -> Map {
        let mut out = Map::new();
        for (i, item) in list.iter().enumerate() {
            let Some(map) = item.read_lock::<Map>() else { continue };
            let Some(word) = map.get(key.as_str()).and_then(|v| v.read_lock::<ImmutableString>()) else { continue };
            if !out.contains_key(word.as_str()) {
                out.insert(word.as_str().into(), Dynamic::from_int(i as i64));
            }
        }
        out
    });

    // `list.contains(x)`, `x in list` and `list.index_of(x)` for numbers and words, compared
    // here. Rhai's own versions call the `==` operator once per element through a fresh call
    // context, which costs about a microsecond each (measured); they stay in use for other kinds.
    engine.register_fn("contains", |list: &mut Array, x: i64| holds_number(list, x));
    engine.register_fn("contains", |list: &mut Array, x: ImmutableString| holds_word(list, &x));
    engine.register_fn("index_of", |list: &mut Array, x: i64| {
        list.iter().position(|item| item.as_int() == Ok(x)).map_or(-1, |i| i as i64)
    });
    engine.register_fn("index_of", |list: &mut Array, x: ImmutableString| {
        list.iter().position(|item| is_word(item, &x)).map_or(-1, |i| i as i64)
    });
}

/// Whether `list` holds the number `x`: tabula's `contains` (`x in list`) for a number, which
/// the compiled scripts also answer in place (`compile/condition.rs`).
pub(super) fn holds_number(list: &Array, x: i64) -> bool {
    list.iter().any(|item| item.as_int() == Ok(x))
}

/// Whether `list` holds the word `x`: tabula's `contains` (`x in list`) for a text, which the
/// compiled scripts also answer in place (`compile/condition.rs`).
pub(super) fn holds_word(list: &Array, x: &str) -> bool {
    list.iter().any(|item| is_word(item, x))
}

/// Whether a script value is the string `word`.
fn is_word(item: &Dynamic, word: &str) -> bool {
    item.read_lock::<ImmutableString>().is_some_and(|s| s.as_str() == word)
}

/// Whether an option's value matches a pattern's (`index_matching`): integers, strings and
/// booleans, compared as [`same_value`] does; other kinds never match.
fn matches_value(a: &Dynamic, b: &Dynamic) -> bool {
    (a.is_int() || a.is_string() || a.is_bool()) && same_value(a, b)
}

/// Whether two plain values (or lists and maps of them) are equal, type for type: the memo's
/// test of a call's arguments (`compile/memo.rs`). Each kind is asked first: a failed conversion
/// costs Rhai the name of the type.
#[inline(always)]
pub(super) fn same_value(x: &Dynamic, y: &Dynamic) -> bool {
    if x.is_int() {
        y.is_int() && x.as_int().ok() == y.as_int().ok()
    } else if x.is_string() {
        match (x.read_lock::<rhai::ImmutableString>(), y.read_lock::<rhai::ImmutableString>()) {
            (Some(x), Some(y)) => x.as_str() == y.as_str(),
            _ => false,
        }
    } else if x.is_bool() {
        y.is_bool() && x.as_bool().ok() == y.as_bool().ok()
    } else if x.is_unit() {
        y.is_unit()
    } else if x.is_char() {
        y.is_char() && x.as_char().ok() == y.as_char().ok()
    } else {
        same_values(x, y)
    }
}

/// [`same_value`] for lists and maps.
fn same_values(x: &Dynamic, y: &Dynamic) -> bool {
    if let (Some(x), Some(y)) = (x.read_lock::<rhai::Array>(), y.read_lock::<rhai::Array>()) {
        return x.len() == y.len() && x.iter().zip(y.iter()).all(|(x, y)| same_value(x, y));
    }
    // Maps keep their keys in order.
    if let (Some(x), Some(y)) = (x.read_lock::<rhai::Map>(), y.read_lock::<rhai::Map>()) {
        return x.len() == y.len() && x.iter().zip(y.iter()).all(|((i, x), (j, y))| i == j && same_value(x, y));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `index_matching` compares words, numbers and booleans by value, and never one kind with
    /// another (the word "1" is not the number 1, nor 1 the boolean true).
    #[test]
    fn values_match_by_kind_and_value() {
        let word = |s: &str| Dynamic::from(ImmutableString::from(s));
        assert!(matches_value(&word("move"), &word("move")));
        assert!(!matches_value(&word("move"), &word("roll")));
        assert!(matches_value(&Dynamic::from(3_i64), &Dynamic::from(3_i64)));
        assert!(!matches_value(&Dynamic::from(3_i64), &Dynamic::from(4_i64)));
        assert!(matches_value(&Dynamic::from(true), &Dynamic::from(true)));
        assert!(!matches_value(&Dynamic::from(true), &Dynamic::from(false)));
        assert!(!matches_value(&word("1"), &Dynamic::from(1_i64)));
        assert!(!matches_value(&Dynamic::from(1_i64), &word("1")));
        assert!(!matches_value(&Dynamic::from(1_i64), &Dynamic::from(true)));
        assert!(!matches_value(&Dynamic::UNIT, &Dynamic::UNIT), "other kinds never match");
    }
}
