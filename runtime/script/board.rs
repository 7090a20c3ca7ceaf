//! Filters over pieces and walks over boards: `#{prop: value}` filters, counting by a property,
//! boards made of pieces linked by properties (`nearest`, `linked`) and the zone graph's
//! distances. Shared by the `Game` and `View` handles; a seat's walks see only what it may.

use rhai::{Array, Dynamic, ImmutableString, Map};

use super::{RhaiResult, fail};
use crate::rules::defs::{Defs, PieceId, PropKind, SeatId, SymId, ZoneId};
use crate::state::State;

/// Distances in edges from `start` (respecting `one_way`) to every zone at most `most` away; with
/// `towards`, from every zone to `start` (one-way edges walked backwards).
///
/// The board never changes: a result is kept in `names` and copied for the next call asking the
/// same (building the map of a large board costs several times more than copying it).
pub(super) fn graph_distances(
    defs: &Defs,
    names: &super::names::Names,
    start: ZoneId,
    most: i64,
    towards: bool,
) -> RhaiResult<Map> {
    // Past the number of zones, every bound gives the same distances.
    let key = (start, most.clamp(-1, defs.zone_names.len() as i64), towards);
    if let Some(kept) = names.distances.borrow().get(&key) {
        return Ok(kept.clone());
    }
    let out = walk_distances(defs, start, most, towards);
    let mut kept = names.distances.borrow_mut();
    // A bound on what is kept: a script asking ever new questions gets them walked.
    if kept.len() < 4096 {
        kept.insert(key, out.clone());
    }
    Ok(out)
}

/// The distance in edges from `from` to `to` along the board graph (respecting `one_way`), or
/// `()` when `to` cannot be reached: one number where `distances` gives a map of the board. The
/// distances to `to` from every zone are walked once and kept in `names` (a list of numbers a
/// zone: at most the number of zones squared in all), so that asking how far many zones are from
/// one goal, or one zone from many, costs a look-up each. `walked` is told when a walk is done,
/// for the caller to charge it.
pub(super) fn graph_distance(
    defs: &Defs,
    names: &super::names::Names,
    from: ZoneId,
    to: ZoneId,
    walked: impl FnOnce() -> RhaiResult<()>,
) -> RhaiResult<Dynamic> {
    with_steps(defs, &names.distances_to, to, true, walked, |towards| Ok(distance_of(towards, from)))
}

/// How many of `zones` (zone names, resolved by `zone`) lie at most `most` steps from `from`
/// along the board graph (respecting `one_way`; a zone listed twice counts twice): what a loop
/// counting `distance(from, z) <= most` over them counts, with a look-up each. The distances
/// from `from` to every zone are walked once and kept in `names`, as [`graph_distance`] keeps
/// those to a zone. `walked` is told when a walk is done, for the caller to charge it.
pub(super) fn graph_count_within(
    defs: &Defs,
    names: &super::names::Names,
    from: ZoneId,
    most: i64,
    zones: &rhai::Array,
    zone: impl Fn(&str) -> RhaiResult<ZoneId>,
    walked: impl FnOnce() -> RhaiResult<()>,
) -> RhaiResult<i64> {
    let count = |steps: &[i32]| -> RhaiResult<i64> {
        let mut n = 0;
        for z in zones {
            let Ok(name) = z.as_immutable_string_ref() else {
                return Err(format!("count_within: expected zone names, found {z}").into());
            };
            let d = steps.get(zone(&name)? as usize).copied().unwrap_or(-1);
            if d >= 0 && i64::from(d) <= most {
                n += 1;
            }
        }
        Ok(n)
    };
    with_steps(defs, &names.distances_from, from, false, walked, count)
}

/// `influence(sources)`: an influence map of the board graph. Each source `[from, weight,
/// reach]` (or `[from, weight, reach, divisor]`) gives every zone at most `reach` edges from
/// `from` (as `distance` walks, respecting `one_way`) `weight * (reach + 1 - d) / divisor`, `d`
/// its distance (integer arithmetic, divided per source; the divisor is 1 unless given); the map
/// gives each zone some source reaches the sum of what the sources give it. What an agent
/// computes with a loop of `distance` calls over sources and spaces (how much a piece is wanted
/// on each space, near the pieces it could chase), in one call: the distances from each source
/// are walked once and kept in `names`, as `count_within` keeps them. `walked` is told of each
/// walk, for the caller to charge it.
pub(super) fn graph_influence(
    defs: &Defs,
    names: &super::names::Names,
    sources: &Array,
    zone: impl Fn(&str) -> RhaiResult<ZoneId>,
    walked: impl Fn() -> RhaiResult<()>,
) -> RhaiResult<Map> {
    let mut sums: Vec<Option<i64>> = vec![None; defs.zone_names.len()];
    for source in sources {
        let (from, weight, reach, divisor) = influence_source(source, &zone)?;
        with_steps(defs, &names.distances_from, from, false, &walked, |steps| {
            for (z, &d) in steps.iter().enumerate() {
                let d = i64::from(d);
                if d < 0 || d > reach {
                    continue;
                }
                let share = (reach - d).checked_add(1).and_then(|n| weight.checked_mul(n)).map(|v| v / divisor);
                let sum = share.and_then(|v| sums[z].unwrap_or(0).checked_add(v));
                sums[z] = Some(sum.ok_or("influence: the sums pass the largest integer")?);
            }
            Ok(())
        })?;
    }
    let mut out = Map::new();
    for (z, sum) in sums.into_iter().enumerate() {
        if let Some(sum) = sum {
            out.insert(defs.zone_names[z].as_str().into(), Dynamic::from_int(sum));
        }
    }
    Ok(out)
}

/// One source of [`graph_influence`]: its zone, weight, reach and divisor.
fn influence_source(
    source: &Dynamic,
    zone: &impl Fn(&str) -> RhaiResult<ZoneId>,
) -> RhaiResult<(ZoneId, i64, i64, i64)> {
    let shape = || {
        fail(format!("influence: a source is [zone, weight, reach] or [zone, weight, reach, divisor], not {source}"))
    };
    let Some(items) = source.read_lock::<Array>() else { return shape() };
    let ints: Option<Vec<i64>> = items.iter().skip(1).map(|v| v.as_int().ok()).collect();
    let (Some(name), Some(ints)) = (items.first().and_then(|v| v.read_lock::<ImmutableString>()), ints) else {
        return shape();
    };
    let (weight, reach, divisor) = match ints[..] {
        [weight, reach] => (weight, reach, 1),
        [weight, reach, divisor] => (weight, reach, divisor),
        _ => return shape(),
    };
    if divisor <= 0 {
        return fail(format!("influence: the divisor must be 1 or more, not {divisor} (in {source})"));
    }
    Ok((zone(&name)?, weight, reach, divisor))
}

/// Runs `f` on the distances from every zone to `zone` (`towards`) or from `zone` to every zone
/// (-1: unreachable), kept in `kept` after the first walk (`walked` is told of it, for the
/// caller to charge it).
fn with_steps<R>(
    defs: &Defs,
    kept: &std::cell::RefCell<rustc_hash::FxHashMap<ZoneId, Box<[i32]>>>,
    zone: ZoneId,
    towards: bool,
    walked: impl FnOnce() -> RhaiResult<()>,
    f: impl FnOnce(&[i32]) -> RhaiResult<R>,
) -> RhaiResult<R> {
    if let Some(steps) = kept.borrow().get(&zone) {
        return f(steps);
    }
    walked()?;
    let steps: Box<[i32]> = walk(defs, zone, i64::MAX, towards).iter().map(|s| s.map_or(-1, |d| d as i32)).collect();
    let result = f(&steps);
    kept.borrow_mut().insert(zone, steps);
    result
}

fn distance_of(steps: &[i32], from: ZoneId) -> Dynamic {
    match steps.get(from as usize) {
        Some(&d) if d >= 0 => Dynamic::from_int(i64::from(d)),
        _ => Dynamic::UNIT,
    }
}

/// The map of [`graph_distances`]: each zone within `most` of `start`, by name.
fn walk_distances(defs: &Defs, start: ZoneId, most: i64, towards: bool) -> Map {
    let mut out = Map::new();
    for (z, s) in walk(defs, start, most, towards).iter().enumerate() {
        if let Some(s) = s {
            out.insert(defs.zone_names[z].as_str().into(), Dynamic::from(*s));
        }
    }
    out
}

/// The breadth-first walk from `start` (with `towards`, to it: one-way edges walked backwards)
/// at most `most` edges far: each zone's distance, by zone id.
fn walk(defs: &Defs, start: ZoneId, most: i64, towards: bool) -> Vec<Option<i64>> {
    let mut steps: Vec<Option<i64>> = vec![None; defs.zone_names.len()];
    steps[start as usize] = Some(0);
    // The zones reached at the last distance; each step walks only their links.
    let mut frontier = vec![start];
    let mut next = Vec::new();
    let mut d = 0;
    while d < most && !frontier.is_empty() {
        d += 1;
        for &a in &frontier {
            for e in defs.edges_of(a) {
                for (x, b, forward) in [(e.from, e.to, true), (e.to, e.from, false)] {
                    if x == a && (forward != towards || !e.one_way) && steps[b as usize].is_none() {
                        steps[b as usize] = Some(d);
                        next.push(b);
                    }
                }
            }
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
    steps
}

/// Whether property `index` of `piece`, of value `value`, may be shown to `seat`
/// (`view::sight::may_show_prop`), noting what that read of the game (`reads.rs`): a reference
/// to another piece is shown as it is only while that piece is seen, so its face and its zone
/// are read.
#[inline]
pub(super) fn prop_shown(
    defs: &Defs,
    state: &State,
    seat: Option<SeatId>,
    piece: PieceId,
    index: usize,
    value: i64,
) -> bool {
    // Everything is shown to an omniscient reader, and every property but a reference to another
    // piece to everyone.
    if seat.is_none() {
        return true;
    }
    let Some(referenced) = crate::view::sight::referenced_piece(defs, piece, index, value) else { return true };
    super::reads::note(super::reads::Read::FaceUp(referenced));
    super::reads::note(super::reads::Read::ZoneOf(referenced));
    crate::view::sight::may_show_prop(defs, state, seat, piece, index, value)
}

/// Counts the pieces of a zone by the value of a property: `#{red: 2, blue: 1}`. Only
/// pieces `seat` can see are counted (all of them for `None`).
pub(super) fn tally(defs: &Defs, state: &State, zone: ZoneId, prop: &str, seat: Option<SeatId>) -> Map {
    let mut out = Map::new();
    // The property's index within the last kind of piece met: a zone mostly holds one kind.
    let mut memo: Option<(u16, Option<usize>)> = None;
    // The counts do not depend on the order of the pieces.
    for p in state.pieces_in_any_order(zone) {
        if !crate::view::sight::visible(defs, state, seat, zone, p) {
            continue;
        }
        let piece = &defs.pieces[p as usize];
        let index = match memo {
            Some((kind, index)) if kind == piece.kind => index,
            _ => {
                let index = defs.kinds[piece.kind as usize].prop(prop);
                memo = Some((piece.kind, index));
                index
            }
        };
        let Some(index) = index else { continue };
        let (slot, def) = (piece.prop_base + index, &defs.kinds[piece.kind as usize].props[index]);
        let value = state.prop(slot);
        // Words (dice faces) are counted under their own name, with no string built; a
        // reference to a piece the seat cannot see is counted under "?".
        let name: std::borrow::Cow<str> = match (&def.kind, defs.symbols.get(value as usize)) {
            (PropKind::Word(_), Some(word)) => word.as_str().into(),
            (_, _) if !prop_shown(defs, state, seat, p, index, value) => crate::view::sight::MASKED.into(),
            _ => defs.show_prop(&def.kind, value).into(),
        };
        match out.get_mut(name.as_ref()) {
            Some(n) => *n = Dynamic::from_int(n.as_int().unwrap_or(0) + 1),
            None => {
                out.insert(name.as_ref().into(), Dynamic::from_int(1));
            }
        }
    }
    out
}

/// Breadth-first search from piece `from` over piece-valued properties `links` (a board made of
/// pieces, such as tiles laid during play): the nearest other piece matching the first of `goals`
/// that any reachable piece matches (goals in order of preference), as `[first step, target,
/// steps]` (the steps from `from` to the target: how far it is), or `()` if none is reachable.
/// Only pieces `seat` can see are walked through (all of them for `None`); links are followed in
/// the order given.
///
/// With `noting`, it notes what it reads for a remembered call (`reads.rs`): the zone of every
/// piece it walks through, with that zone's pieces and their properties. That covers the links
/// it follows and what the goals test (properties of the pieces reached), and where each of
/// those pieces lies; a piece it does not reach matters only once a link of one it reaches
/// changes.
pub(super) fn nearest(
    defs: &Defs,
    state: &State,
    from: PieceId,
    links: &[ImmutableString],
    goals: &[Filter],
    seat: Option<SeatId>,
    noting: bool,
) -> Dynamic {
    // The walk's lists are kept from one call to the next (agents ask for the nearest goal at
    // every decision): taken out for the call (a call within it would find fresh ones) and put
    // back after.
    thread_local! {
        static WALK: std::cell::Cell<Walk> = Default::default();
    }
    let (mut reached, mut seen) = WALK.take();
    // One walk serves every goal: the order in which pieces are reached does not depend on what
    // is looked for. `reached` lists them nearest first, each with its first step and its
    // distance in steps.
    reached.clear();
    seen.clear();
    seen.resize(defs.pieces.len(), false);
    seen[from as usize] = true;
    let mut next_to_visit = 0;
    let mut here = from;
    // The zone noted last: a board's pieces mostly lie in one zone, noted once.
    let mut noted: Option<ZoneId> = None;
    // The links' slots within each kind of piece met, looked up once per kind.
    let mut link_slots: Vec<(u16, Vec<Option<usize>>)> = Vec::new();
    loop {
        let (step_to_here, steps_to_here) =
            if here == from { (None, 0) } else { (Some(reached[next_to_visit - 1].1), reached[next_to_visit - 1].2) };
        if noting && noted != Some(state.zone_of(here)) {
            noted = Some(state.zone_of(here));
            super::reads::note(super::reads::Read::Zone(state.zone_of(here)));
        }
        let piece = &defs.pieces[here as usize];
        let slots = match link_slots.iter().position(|(k, _)| *k == piece.kind) {
            Some(i) => i,
            None => {
                let kind = &defs.kinds[piece.kind as usize];
                let slots = links
                    .iter()
                    .map(|l| kind.prop(l).filter(|&i| matches!(kind.props[i].kind, PropKind::Piece(_))))
                    .collect();
                link_slots.push((piece.kind, slots));
                link_slots.len() - 1
            }
        };
        for slot in link_slots[slots].1.iter().flatten() {
            let next = state.prop(piece.prop_base + slot);
            if next < 0 || next as usize >= defs.pieces.len() || seen[next as usize] {
                continue;
            }
            let next = next as PieceId;
            if !crate::view::sight::visible(defs, state, seat, state.zone_of(next), next) {
                continue;
            }
            seen[next as usize] = true;
            reached.push((next, step_to_here.unwrap_or(next), steps_to_here + 1));
        }
        let Some(&(piece, _, _)) = reached.get(next_to_visit) else { break };
        next_to_visit += 1;
        here = piece;
    }
    let found = goals.iter().find_map(|goal| reached.iter().find(|&&(p, _, _)| goal.matches(defs, state, p)));
    let result = match found {
        Some(&(target, step, steps)) => Dynamic::from_array(vec![
            Dynamic::from_int(i64::from(step)),
            Dynamic::from_int(i64::from(target)),
            Dynamic::from_int(i64::from(steps)),
        ]),
        None => Dynamic::UNIT,
    };
    WALK.set((reached, seen));
    result
}

/// The lists of [`nearest`]'s walk: the pieces reached, each with its first step and its
/// distance in steps, and which pieces were seen.
type Walk = (Vec<(PieceId, PieceId, u32)>, Vec<bool>);

/// The pieces piece `from` links to through its piece-valued properties `links`, in that order,
/// leaving out links that are unset (and pieces `seat` cannot see). A name that is not a
/// piece-valued property of `from` is an error, so that a misspelt link is not silently empty.
pub(super) fn linked(
    defs: &Defs,
    state: &State,
    from: PieceId,
    links: &[ImmutableString],
    seat: Option<SeatId>,
) -> RhaiResult<Array> {
    let mut out = Array::new();
    for link in links {
        let Some((slot, def)) = defs.prop_ref(from, link) else {
            return fail(format!("{} has no property `{link}`", defs.pieces[from as usize].name));
        };
        if !matches!(def.kind, PropKind::Piece(_)) {
            return fail(format!("{}.{link} is not a piece", defs.pieces[from as usize].name));
        }
        let next = state.prop(slot);
        if next < 0 || next as usize >= defs.pieces.len() {
            continue;
        }
        let next = next as PieceId;
        if crate::view::sight::visible(defs, state, seat, state.zone_of(next), next) {
            out.push(Dynamic::from_int(i64::from(next)));
        }
    }
    Ok(out)
}

pub(super) fn link_names(links: &Array) -> RhaiResult<Vec<ImmutableString>> {
    links
        .iter()
        .map(|l| {
            l.clone().into_immutable_string().map_err(|t| format!("links: expected property names, found a {t}").into())
        })
        .collect()
}

/// Filters from a list of maps (goals in order of preference).
pub(super) fn filters(defs: &Defs, maps: &Array) -> RhaiResult<Vec<Filter>> {
    maps.iter()
        .map(|m| match m.read_lock::<Map>() {
            Some(map) => Filter::new(defs, &map),
            None => fail(format!("goals: expected maps such as #{{ role: \"exit\" }}, found a {}", m.type_name())),
        })
        .collect()
}

/// A filter a native is given: a script's map, read at the call; a literal map the compiler
/// prepared at load; or a map written with values computed at the call (`#{ at: here }`), which
/// the compiler turned into a [`BuiltFilter`] and the values the call computed (see
/// `natives::DirectForm`).
#[derive(Clone, Copy)]
pub(super) enum FilterArg<'a> {
    Map(&'a Map),
    Prepared(&'a Filter),
    /// The values are one value, or an array of them when the map computes several.
    Built(&'a BuiltFilter, &'a Dynamic),
}

impl<'a> FilterArg<'a> {
    /// The filter, read from the map if it is one (where a bad map is reported).
    pub(super) fn resolve(self, defs: &Defs) -> RhaiResult<FilterRef<'a>> {
        match self {
            FilterArg::Map(map) => Filter::new(defs, map).map(FilterRef::Owned),
            FilterArg::Prepared(f) => Ok(FilterRef::Borrowed(f)),
            FilterArg::Built(built, values) => Ok(built.fill(defs, values)),
        }
    }
}

/// A filter as a native reads it (see [`FilterArg::resolve`]).
pub(super) enum FilterRef<'a> {
    Owned(Filter),
    Borrowed(&'a Filter),
    /// A [`BuiltFilter`]'s own filter, filled in for this call.
    Filled(std::cell::RefMut<'a, Filter>),
}

impl std::ops::Deref for FilterRef<'_> {
    type Target = Filter;
    fn deref(&self) -> &Filter {
        match self {
            FilterRef::Owned(f) => f,
            FilterRef::Borrowed(f) => f,
            FilterRef::Filled(f) => f,
        }
    }
}

/// A filter map whose values are partly computed at the call, such as `#{ at: here }`, turned
/// into a filter at load with those values left blank: each call fills them in, where building
/// the map would allocate it and parsing it would look every name up again.
pub(super) struct BuiltFilter {
    /// The filter filled in at each call. It keeps what its tests learn about the pieces'
    /// kinds from one call to the next.
    filter: std::cell::RefCell<Filter>,
    /// The filter as prepared, for a call made while `filter` is in use (a native never calls
    /// a script, so this is only a safeguard).
    blank: Filter,
    /// For each value computed at the call, in the map's order, its test in the filter.
    computed: Vec<usize>,
}

impl BuiltFilter {
    /// The filter of `map`, a map of the literal values with `()` for those computed at the
    /// call, whose keys are `computed` in the order they are computed. `None` if the rules
    /// reject the map (an unknown kind), or if the kind is one of the computed values.
    pub(super) fn new(defs: &Defs, map: &Map, computed: &[&str]) -> Option<BuiltFilter> {
        let blank = Filter::new(defs, map).ok()?;
        let computed = computed
            .iter()
            .map(|&key| blank.props.iter().position(|t| t.name.as_str() == key))
            .collect::<Option<Vec<_>>>()?;
        Some(BuiltFilter { filter: std::cell::RefCell::new(blank.clone()), blank, computed })
    }

    /// How many values each call computes.
    pub(super) fn computed(&self) -> usize {
        self.computed.len()
    }

    fn fill<'a>(&'a self, defs: &Defs, values: &Dynamic) -> FilterRef<'a> {
        let list = values.read_lock::<Array>();
        let values = match &list {
            Some(list) if self.computed.len() > 1 => list.as_slice(),
            _ => std::slice::from_ref(values),
        };
        let set = |f: &mut Filter| {
            for (&test, value) in self.computed.iter().zip(values) {
                f.props[test].set(defs, value);
            }
        };
        match self.filter.try_borrow_mut() {
            Ok(mut f) => {
                set(&mut f);
                FilterRef::Filled(f)
            }
            Err(_) => {
                let mut f = self.blank.clone();
                set(&mut f);
                FilterRef::Owned(f)
            }
        }
    }
}

/// A script's `#{prop: value, kind: "name"}` filter: a piece matches when it has every listed
/// property with the listed value (and is of the listed kind). Pieces without one of the
/// properties do not match.
#[derive(Clone)]
pub(super) struct Filter {
    kind: Option<u16>,
    props: Vec<PropTest>,
    /// The seat whose agent asks (`None` in rule hooks): a piece-valued property that refers to
    /// a piece this seat cannot see matches nothing, or a filter would tell which piece it is.
    seat: Option<SeatId>,
}

/// One `prop: value` of a filter, resolved once: the wanted value as the state stores it, and
/// the property's index within the last kind of piece looked at (filters mostly look at pieces
/// of one kind, so names are not looked up again for every piece).
#[derive(Clone)]
struct PropTest {
    name: rhai::Identifier,
    /// The value as an integer, for integer and piece properties.
    int: Option<i64>,
    /// The value as a word: `Some(None)` for a string that is no word of the rules (it matches
    /// no piece), `None` for a value that is not a string.
    word: Option<Option<SymId>>,
    memo: std::cell::Cell<Option<(u16, Option<usize>)>>,
}

impl PropTest {
    /// Sets the wanted value.
    fn set(&mut self, defs: &Defs, value: &Dynamic) {
        self.int = value.as_int().ok();
        self.word = value.read_lock::<ImmutableString>().map(|w| defs.symbol(&w));
    }
}

impl Filter {
    pub(super) fn new(defs: &Defs, map: &Map) -> RhaiResult<Filter> {
        let mut f = Filter { kind: None, props: Vec::with_capacity(map.len()), seat: None };
        for (k, v) in map {
            if k.as_str() == "kind" {
                let name =
                    v.clone().into_immutable_string().map_err(|_| format!("kind: expected a kind name, found {v}"))?;
                match defs.kinds.iter().position(|d| d.name == name.as_str()) {
                    Some(i) => f.kind = Some(i as u16),
                    None => return fail(format!("no component kind named `{name}`")),
                }
            } else {
                let mut test = PropTest { name: k.clone(), int: None, word: None, memo: std::cell::Cell::new(None) };
                test.set(defs, v);
                f.props.push(test);
            }
        }
        Ok(f)
    }

    /// The filter as `seat`'s agent may use it.
    pub(super) fn seen_by(mut self, seat: SeatId) -> Filter {
        self.seat = Some(seat);
        self
    }

    pub(super) fn matches(&self, defs: &Defs, state: &State, piece: PieceId) -> bool {
        self.matches_as(defs, state, piece, self.seat)
    }

    /// Whether `piece` matches, as `seat`'s agent may know (`None`: as the rules know). A
    /// filter prepared once for every caller is asked this way.
    pub(super) fn matches_as(&self, defs: &Defs, state: &State, piece: PieceId, seat: Option<SeatId>) -> bool {
        let def = &defs.pieces[piece as usize];
        if self.kind.is_some_and(|k| def.kind != k) {
            return false;
        }
        let kind = &defs.kinds[def.kind as usize];
        self.props.iter().all(|test| {
            let index = match test.memo.get() {
                Some((k, index)) if k == def.kind => index,
                _ => {
                    let index = kind.prop(&test.name);
                    test.memo.set(Some((def.kind, index)));
                    index
                }
            };
            let Some(i) = index else { return false };
            let value = state.prop(def.prop_base + i);
            match &kind.props[i].kind {
                PropKind::Word(_) => test.word.flatten().is_some_and(|w| i64::from(w) == value),
                PropKind::Int(..) => test.int == Some(value),
                PropKind::Piece(_) => {
                    test.int == Some(value) && (seat.is_none() || prop_shown(defs, state, seat, piece, i, value))
                }
            }
        })
    }
}
