//! Zone, counter and property names as scripts pass them, looked up once per string.
//!
//! Hooks name the same zones and counters over and over (`game.count("track")` at every
//! round), and looking a name up hashes and compares its text each time. Here a name is
//! remembered by the identity of the string that carried it: a literal of the scripts is one
//! string for the whole game, and a name a `+` builds in a loop is kept by that `+` (see
//! `compile::ops::Joins`). A remembered string is held by the cache, so no other string can
//! take its place in memory while it is there, and Rhai's strings never change once shared:
//! the same address and length always mean the same text.

use std::cell::RefCell;

use rhai::ImmutableString;
use rustc_hash::FxHashMap;

/// A small cache from a name's string to an id (a zone's, a counter's), direct-mapped by the
/// string's address. A name may also be remembered within a scope, such as a property's name
/// within a kind of piece (the scope is 0 for names of the whole ruleset).
pub(crate) struct NameCache {
    slots: RefCell<Vec<Option<(ImmutableString, u16, u16)>>>,
}

impl Default for NameCache {
    fn default() -> Self {
        NameCache { slots: RefCell::new(vec![None; Self::SLOTS]) }
    }
}

impl NameCache {
    /// How many names it remembers at most: more than a ruleset's hot names (a power of two).
    const SLOTS: usize = 256;

    /// The slot of a string: its address and the scope, mixed by a multiplication (Fibonacci
    /// hashing), so that strings allocated side by side spread over the slots.
    fn slot(name: &str, scope: u16) -> usize {
        let key = (name.as_ptr() as usize as u64) ^ (u64::from(scope) << 48);
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::SLOTS.ilog2())) as usize
    }

    /// The id remembered for this very string, if any.
    pub(crate) fn get(&self, name: &str) -> Option<u16> {
        self.get_in(0, name)
    }

    /// The id remembered for this very string within `scope`, if any.
    pub(crate) fn get_in(&self, scope: u16, name: &str) -> Option<u16> {
        let slots = self.slots.try_borrow().ok()?;
        match &slots[Self::slot(name, scope)] {
            Some((kept, s, id)) if kept.as_ptr() == name.as_ptr() && kept.len() == name.len() && *s == scope => {
                Some(*id)
            }
            _ => None,
        }
    }

    /// Remembers `id` for the string `name` within `scope` (an empty string is not remembered:
    /// it has no text of its own to tell it apart).
    fn put(&self, scope: u16, name: &ImmutableString, id: u16) {
        if name.is_empty() {
            return;
        }
        if let Ok(mut slots) = self.slots.try_borrow_mut() {
            slots[Self::slot(name, scope)] = Some((name.clone(), scope, id));
        }
    }

    /// The id of `name`: remembered, or found by `find` and remembered.
    pub(crate) fn find(&self, name: &ImmutableString, find: impl FnOnce(&str) -> Option<u16>) -> Option<u16> {
        self.find_in(0, name, find)
    }

    /// The id of `name` within `scope`: remembered, or found by `find` and remembered.
    pub(crate) fn find_in(
        &self,
        scope: u16,
        name: &ImmutableString,
        find: impl FnOnce(&str) -> Option<u16>,
    ) -> Option<u16> {
        if let Some(id) = self.get_in(scope, name) {
            return Some(id);
        }
        let id = find(name)?;
        self.put(scope, name, id);
        Some(id)
    }
}

/// The names hooks and agents pass, remembered for the scripts of one loaded ruleset.
#[derive(Default)]
pub(crate) struct Names {
    /// Action names, as `options` hooks list them (`#{action: "move", ...}`).
    pub(crate) actions: NameCache,
    pub(crate) zones: NameCache,
    pub(crate) counters: NameCache,
    /// Property names, within each kind of piece (the scope is the kind).
    pub(crate) props: NameCache,
    /// The board graph's distances asked so far, by start, bound and direction (see
    /// `board::graph_distances`): the graph never changes, and agents ask the same ones
    /// at every decision.
    pub(crate) distances: RefCell<FxHashMap<(crate::rules::ZoneId, i64, bool), rhai::Map>>,
    /// The distances to a zone from every zone (-1: unreachable), by that zone, walked once
    /// for `distance` (see `board::graph_distance`).
    pub(crate) distances_to: RefCell<FxHashMap<crate::rules::ZoneId, Box<[i32]>>>,
    /// The distances from a zone to every zone (-1: unreachable), by that zone, walked once for
    /// `count_within` (see `board::graph_count_within`).
    pub(crate) distances_from: RefCell<FxHashMap<crate::rules::ZoneId, Box<[i32]>>>,
}

impl Names {
    /// The slot of `piece`'s property `name` and its definition, the name looked up once per
    /// string and kind.
    pub(crate) fn prop<'d>(
        &self,
        defs: &'d crate::rules::Defs,
        piece: crate::rules::PieceId,
        name: &ImmutableString,
    ) -> Option<(usize, &'d crate::rules::PropDef)> {
        let def = defs.pieces.get(piece as usize)?;
        let kind = &defs.kinds[def.kind as usize];
        let i = self.props.find_in(def.kind, name, |n| kind.prop(n).and_then(|i| u16::try_from(i).ok()))?;
        Some((def.prop_base + usize::from(i), kind.props.get(usize::from(i))?))
    }
}

/// The declared names (of zones, counters or pieces) that begin with one prefix, by the rest of
/// their text, so that a name a script writes `"pool." + seat` is found from `seat` alone: no
/// string is built, and only the rest is compared, not hashed. A name whose rest is an integer
/// as Rhai writes one (`"track_" + 3` gives `track_3`) is found from the integer too.
pub(crate) struct ByRest {
    /// Each name's rest, id and whole name, ordered by the rest's length, then its bytes.
    texts: Vec<(Box<str>, u16, ImmutableString)>,
    /// The integers that are rests, with the index of their name in `texts`, in order.
    ints: Vec<(i64, usize)>,
}

impl ByRest {
    /// The table of `names` (each with its id) that begin with `prefix`, if any does.
    pub(crate) fn new<'n>(prefix: &str, names: impl IntoIterator<Item = (&'n str, u16)>) -> Option<Self> {
        let mut texts: Vec<(Box<str>, u16, ImmutableString)> = names
            .into_iter()
            .filter_map(|(name, id)| Some((name.strip_prefix(prefix)?.into(), id, ImmutableString::from(name))))
            .collect();
        if texts.is_empty() {
            return None;
        }
        texts.sort_by(|a, b| Self::order(&a.0, &b.0));
        let mut ints: Vec<(i64, usize)> = texts
            .iter()
            .enumerate()
            .filter_map(|(i, (rest, ..))| rest.parse::<i64>().ok().filter(|n| n.to_string() == **rest).map(|n| (n, i)))
            .collect();
        ints.sort_unstable();
        Some(ByRest { texts, ints })
    }

    /// The table's order: by length, then by bytes (comparing lengths first settles most).
    fn order(a: &str, b: &str) -> std::cmp::Ordering {
        a.len().cmp(&b.len()).then_with(|| a.as_bytes().cmp(b.as_bytes()))
    }

    /// The id and whole name of the name that is the prefix followed by `rest`.
    #[inline]
    pub(crate) fn text(&self, rest: &str) -> Option<(u16, &ImmutableString)> {
        let i = self.texts.binary_search_by(|(r, ..)| Self::order(r, rest)).ok()?;
        let (_, id, name) = &self.texts[i];
        Some((*id, name))
    }

    /// The id and whole name of the name that is the prefix followed by integer `n`.
    #[inline]
    pub(crate) fn int(&self, n: i64) -> Option<(u16, &ImmutableString)> {
        let i = self.ints.binary_search_by(|(m, _)| m.cmp(&n)).ok()?;
        let (_, id, name) = &self.texts[self.ints[i].1];
        Some((*id, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_remembered_by_its_string_not_its_text() {
        let cache = NameCache::default();
        let track = ImmutableString::from("track");
        assert_eq!(cache.find(&track, |n| (n == "track").then_some(3)), Some(3));
        // The same string (a copy shares it) is found without looking it up again.
        assert_eq!(cache.find(&track.clone(), |_| None), Some(3));
        // The same text in another string, or a part of the kept one, is looked up afresh.
        assert_eq!(cache.find(&ImmutableString::from("track"), |_| Some(7)), Some(7));
        assert_eq!(cache.get(&track[..3]), None);
        // A name the lookup does not know is not remembered.
        let nowhere = ImmutableString::from("nowhere");
        assert_eq!(cache.find(&nowhere, |_| None), None);
        assert_eq!(cache.get(&nowhere), None);
        // Within a scope, the same string may mean another id.
        assert_eq!(cache.find_in(2, &track, |_| Some(9)), Some(9));
        assert_eq!(cache.get_in(2, &track), Some(9));
        assert_eq!(cache.get_in(5, &track), None);
    }

    #[test]
    fn names_are_found_by_what_follows_their_prefix() {
        let names = [("pool.red", 4), ("pool.blue", 7), ("pool", 1), ("track_3", 9), ("track_03", 2), ("pools.red", 5)];
        let pools = ByRest::new("pool.", names).expect("names begin with `pool.`");
        assert_eq!(pools.text("red").map(|(id, name)| (id, name.as_str())), Some((4, "pool.red")));
        assert_eq!(pools.text("blue").map(|(id, _)| id), Some(7));
        assert_eq!(pools.text("green"), None);
        assert_eq!(pools.text(""), None);
        assert_eq!(pools.int(3), None);
        // Only `track_3` is written as Rhai writes 3; `track_03` is found by its text alone.
        let tracks = ByRest::new("track_", names).expect("names begin with `track_`");
        assert_eq!(tracks.int(3).map(|(id, _)| id), Some(9));
        assert_eq!(tracks.text("03").map(|(id, _)| id), Some(2));
        assert_eq!(tracks.int(-3), None);
        assert!(ByRest::new("nothing.", names).is_none());
    }
}
