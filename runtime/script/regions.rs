//! Movement over a board of linked pieces costed by regions: a piece's region is the value of one
//! of its properties, and a step to a piece of another region is a region change. Pieces matching
//! a `jumps` filter are all linked to each other (a network across the board). Two searches share
//! one rule map: the cheapest way to every piece (`region_costs`) and the simple paths between
//! two pieces with a given number of changes (`region_paths`). Pure functions of the rules and
//! the state, charged through `charge` by the work they do.

use std::cell::RefCell;

use rhai::{Array, Dynamic, ImmutableString, Map};

use super::board::{Filter, link_names};
use super::{RhaiResult, fail};
use crate::rules::defs::{Defs, PieceId, PropDef, PropKind};
use crate::state::State;

const RULE_KEYS: &str = "links, region, enter, jumps, weight";

/// A script's rule map, checked once:
/// `#{ links: [...], region: "prop", enter: #{...}, jumps: #{...}, weight: "prop" or #{name: n} }`.
pub(super) struct Rule {
    links: Vec<ImmutableString>,
    region: ImmutableString,
    enter: Option<Filter>,
    jumps: Option<Filter>,
    weight: Weight,
}

/// What leaving a piece adds to the cost after the region changes (a tie-breaker).
enum Weight {
    None,
    /// An integer property of the piece left.
    Prop(ImmutableString),
    /// Piece names to integers; pieces not named weigh 0.
    Table(Map),
}

impl Rule {
    pub(super) fn new(defs: &Defs, map: &Map) -> RhaiResult<Rule> {
        for key in map.keys() {
            if !RULE_KEYS.split(", ").any(|k| k == key.as_str()) {
                return fail(format!("region rule: unknown key `{key}` (expected {RULE_KEYS})"));
            }
        }
        let links = match map.get("links").map(|l| l.read_lock::<Array>().map(|a| a.clone())) {
            Some(Some(links)) => link_names(&links)?,
            Some(None) => return fail("region rule: `links` must be an array of property names"),
            None => return fail("region rule: `links` is missing (the piece properties to step along)"),
        };
        let region = match map.get("region") {
            Some(r) => r
                .clone()
                .into_immutable_string()
                .map_err(|t| format!("region rule: `region` must be a property name, not a {t}"))?,
            None => return fail("region rule: `region` is missing (the property whose value is a piece's region)"),
        };
        let filter = |key: &str| -> RhaiResult<Option<Filter>> {
            match map.get(key) {
                None => Ok(None),
                Some(f) => match f.read_lock::<Map>() {
                    Some(f) => Ok(Some(Filter::new(defs, &f)?)),
                    None => fail(format!("region rule: `{key}` must be a filter such as #{{ open: 1 }}, not {f}")),
                },
            }
        };
        let weight = match map.get("weight") {
            None => Weight::None,
            Some(w) if w.is_string() => Weight::Prop(w.clone().into_immutable_string().unwrap_or_default()),
            Some(w) => match w.read_lock::<Map>() {
                Some(table) => {
                    for (name, n) in table.iter() {
                        if !n.is_int() {
                            return fail(format!("region rule: `weight` of `{name}` must be an integer, not {n}"));
                        }
                    }
                    Weight::Table(table.clone())
                }
                None => {
                    return fail(format!(
                        "region rule: `weight` must be a property name or a map of piece names to integers, not {w}"
                    ));
                }
            },
        };
        Ok(Rule { links, region, enter: filter("enter")?, jumps: filter("jumps")?, weight })
    }
}

/// The pieces of the start's zone, in zone order, with what the searches read of each.
struct Board<'a> {
    defs: &'a Defs,
    state: &'a State,
    rule: &'a Rule,
    pieces: Vec<PieceId>,
    /// A piece's position in `pieces`, for every piece of the rules (`usize::MAX` if elsewhere).
    at: Vec<usize>,
    /// The jump network's pieces that may be entered, in zone order.
    jumps: Vec<usize>,
    is_jump: Vec<bool>,
    may_enter: Vec<bool>,
    /// Where the properties the rule names lie within each kind of piece (see [`Board::named`]),
    /// looked up by name once per kind and search rather than at every piece a search visits
    /// (`None` until a piece of the kind is visited).
    kinds: RefCell<Vec<Option<KindProps>>>,
}

/// Where each property the rule names lies within one kind of piece (its index among the kind's
/// properties, `None` if the kind has none of that name), in the order of [`Board::named`].
type KindProps = Box<[Option<usize>]>;

/// The properties the rule names, as [`Board::named`] takes them: the region, the weight (if
/// a property), then each link from `LINKS` on, in the rule's order.
const REGION: usize = 0;
const WEIGHT: usize = 1;
const LINKS: usize = 2;

/// One way out of a piece: where to, whether it changes region, whether it is a jump.
#[derive(Clone, Copy)]
struct Step {
    to: usize,
    change: bool,
    jump: bool,
}

impl<'a> Board<'a> {
    fn new(defs: &'a Defs, state: &'a State, rule: &'a Rule, start: PieceId) -> Board<'a> {
        let pieces = state.pieces_in(defs, state.zone_of(start));
        let mut at = vec![usize::MAX; defs.pieces.len()];
        for (i, &p) in pieces.iter().enumerate() {
            at[p as usize] = i;
        }
        let may_enter: Vec<bool> =
            pieces.iter().map(|&p| rule.enter.as_ref().is_none_or(|f| f.matches(defs, state, p))).collect();
        let is_jump: Vec<bool> =
            pieces.iter().map(|&p| rule.jumps.as_ref().is_some_and(|f| f.matches(defs, state, p))).collect();
        let jumps = (0..pieces.len()).filter(|&i| is_jump[i] && may_enter[i]).collect();
        let kinds = RefCell::new(vec![None; defs.kinds.len()]);
        Board { defs, state, rule, pieces, at, jumps, is_jump, may_enter, kinds }
    }

    fn name(&self, i: usize) -> &str {
        &self.defs.pieces[self.pieces[i] as usize].name
    }

    /// The slot and definition of piece `i`'s property `which` of those the rule names
    /// (`REGION`, `WEIGHT`, `LINKS + k`), as `Defs::prop_ref` finds them by name.
    fn named(&self, i: usize, which: usize) -> Option<(usize, &'a PropDef)> {
        let def = &self.defs.pieces[self.pieces[i] as usize];
        let kind = &self.defs.kinds[def.kind as usize];
        let mut kinds = self.kinds.borrow_mut();
        let known = kinds[def.kind as usize].get_or_insert_with(|| {
            let weight = match &self.rule.weight {
                Weight::Prop(prop) => kind.prop(prop),
                _ => None,
            };
            let links = self.rule.links.iter().map(|link| kind.prop(link));
            [kind.prop(&self.rule.region), weight].into_iter().chain(links).collect()
        });
        let at = (*known.get(which)?)?;
        Some((def.prop_base + at, &kind.props[at]))
    }

    /// The value of property `prop` of piece `i`, the rule's `which` (`what` the rule uses it
    /// for, in errors); with `int`, only an integer property will do.
    fn prop(&self, i: usize, prop: &str, which: usize, what: &str, int: bool) -> RhaiResult<i64> {
        match self.named(i, which) {
            Some((_, def)) if int && !matches!(def.kind, PropKind::Int(..)) => {
                fail(format!("region rule: {}.{prop} (the {what}) is not an integer", self.name(i)))
            }
            Some((slot, _)) => Ok(self.state.prop(slot)),
            None => fail(format!("region rule: {} has no property `{prop}` (the {what})", self.name(i))),
        }
    }

    fn region(&self, i: usize) -> RhaiResult<i64> {
        self.prop(i, &self.rule.region, REGION, "region", false)
    }

    /// What leaving piece `i` costs besides region changes.
    fn weight(&self, i: usize) -> RhaiResult<i64> {
        match &self.rule.weight {
            Weight::None => Ok(0),
            Weight::Prop(prop) => self.prop(i, prop, WEIGHT, "weight", true),
            Weight::Table(table) => Ok(table.get(self.name(i)).and_then(|n| n.as_int().ok()).unwrap_or(0)),
        }
    }

    /// The steps out of piece `i`: along its links in their order (to pieces of the zone that
    /// may be entered), then, from a piece of the jump network, to every other one in zone order.
    fn steps(&self, i: usize, out: &mut Vec<Step>) -> RhaiResult<()> {
        out.clear();
        let here = self.region(i)?;
        for (k, link) in self.rule.links.iter().enumerate() {
            let Some((slot, def)) = self.named(i, LINKS + k) else {
                return fail(format!("region rule: {} has no property `{link}` (a link)", self.name(i)));
            };
            if !matches!(def.kind, PropKind::Piece(_)) {
                return fail(format!("region rule: {}.{link} (a link) is not a piece", self.name(i)));
            }
            let next = self.state.prop(slot);
            let Some(&j) = usize::try_from(next).ok().and_then(|n| self.at.get(n)) else { continue };
            if j == usize::MAX || !self.may_enter[j] {
                continue;
            }
            out.push(Step { to: j, change: self.region(j)? != here, jump: false });
        }
        if self.is_jump[i] {
            out.extend(self.jumps.iter().filter(|&&j| j != i).map(|&j| Step { to: j, change: false, jump: true }));
        }
        Ok(())
    }
}

/// `region_costs(start, rule)`: the cheapest way from `start` to every piece of its zone it can
/// reach, as `#{name: #{changes, weight, jumps, via}}`. A way is cheaper with fewer region
/// changes, then with less weight (summed over the pieces left). The search takes, each round,
/// the first piece in zone order among those not done with the least cost, and a piece's way is
/// replaced only by a strictly cheaper one: equal ways are settled by zone and link order.
/// `jumps` counts the jumps on the way, `via` is the piece before (`()` for `start`).
pub(super) fn costs(
    defs: &Defs,
    state: &State,
    rule: &Rule,
    start: PieceId,
    charge: &mut dyn FnMut(usize) -> RhaiResult<()>,
) -> RhaiResult<Map> {
    let board = Board::new(defs, state, rule, start);
    let n = board.pieces.len();
    charge(n)?;
    let s = board.at[start as usize];
    // (changes, weight) of the best way found so far, the piece before, jumps on the way.
    let mut best: Vec<Option<(i64, i64)>> = vec![None; n];
    let mut via: Vec<Option<usize>> = vec![None; n];
    let mut jumps = vec![0i64; n];
    let mut done = vec![false; n];
    best[s] = Some((0, 0));
    let mut steps = Vec::new();
    loop {
        charge(n)?;
        let mut next: Option<(usize, (i64, i64))> = None;
        for i in 0..n {
            if let (false, Some(d)) = (done[i], best[i])
                && next.is_none_or(|(_, b)| d < b)
            {
                next = Some((i, d));
            }
        }
        let Some((i, (changes, weight))) = next else { break };
        done[i] = true;
        board.steps(i, &mut steps)?;
        charge(steps.len())?;
        let left = board.weight(i)?;
        for step in &steps {
            let j = step.to;
            let way = (changes + i64::from(step.change), weight.saturating_add(left));
            if !done[j] && best[j].is_none_or(|b| way < b) {
                best[j] = Some(way);
                via[j] = Some(i);
                jumps[j] = jumps[i] + i64::from(step.jump);
            }
        }
    }
    // Each way's map is a copy of one map of the four keys, its values written in the keys'
    // order: cheaper than inserting four keys into a new map for every piece reached.
    const KEYS: [&str; 4] = ["changes", "jumps", "via", "weight"];
    debug_assert!(KEYS.is_sorted(), "a map lists its keys in their order");
    let template: Map = KEYS.iter().map(|&k| (k.into(), Dynamic::UNIT)).collect();
    let mut out = Map::new();
    for i in 0..n {
        let Some((changes, weight)) = best[i] else { continue };
        let via = via[i].map_or(Dynamic::UNIT, |v| Dynamic::from_int(i64::from(board.pieces[v])));
        let values = [Dynamic::from_int(changes), Dynamic::from_int(jumps[i]), via, Dynamic::from_int(weight)];
        let mut way = template.clone();
        for (place, value) in way.values_mut().zip(values) {
            *place = value;
        }
        out.insert(board.name(i).into(), Dynamic::from_map(way));
    }
    Ok(out)
}

/// Which paths `region_paths` keeps: those whose number of changes lies in the range for their
/// kind (a path that jumped at least once, or not).
pub(super) struct Keep {
    walked: Option<(i64, i64)>,
    jumped: Option<(i64, i64)>,
}

impl Keep {
    /// An integer (at most that many changes, either kind) or
    /// `#{ without_jump: [lo, hi], with_jump: [lo, hi] }` (a kind left out is not kept).
    pub(super) fn new(changes: &Dynamic) -> RhaiResult<Keep> {
        if let Ok(most) = changes.as_int() {
            return Ok(Keep { walked: Some((0, most)), jumped: Some((0, most)) });
        }
        let Some(map) = changes.read_lock::<Map>() else {
            return fail(format!(
                "region_paths: `changes` must be an integer or #{{ without_jump: [lo, hi], with_jump: [lo, hi] }}, not {changes}"
            ));
        };
        let mut keep = Keep { walked: None, jumped: None };
        for (key, range) in map.iter() {
            let bounds = range.read_lock::<Array>().and_then(|r| match r.as_slice() {
                [lo, hi] => Some((lo.as_int().ok()?, hi.as_int().ok()?)),
                _ => None,
            });
            let Some(bounds) = bounds else {
                return fail(format!("region_paths: `{key}` must be [least, most] changes, not {range}"));
            };
            match key.as_str() {
                "without_jump" => keep.walked = Some(bounds),
                "with_jump" => keep.jumped = Some(bounds),
                _ => return fail(format!("region_paths: unknown key `{key}` (expected without_jump, with_jump)")),
            }
        }
        Ok(keep)
    }

    fn keeps(&self, changes: i64, jumped: bool) -> bool {
        let range = if jumped { self.jumped } else { self.walked };
        range.is_some_and(|(lo, hi)| lo <= changes && changes <= hi)
    }

    /// No path with more changes than this is kept (nor can it lead to one).
    fn most(&self) -> i64 {
        [self.walked, self.jumped].iter().flatten().map(|r| r.1).max().unwrap_or(-1)
    }
}

/// `region_paths(start, end, rule, changes, max_paths)`: simple paths from `start` to `end`
/// (pieces in travel order, both ends included) as `#{pieces, changes, jumps}`, at most
/// `max_paths` of them. Depth first: the last step found is followed first (steps along the links
/// in order, then jumps in zone order), a path stops at `end`, and a path is dropped once it has
/// more changes than `changes` allows.
pub(super) fn paths(
    defs: &Defs,
    state: &State,
    rule: &Rule,
    (start, end): (PieceId, PieceId),
    keep: &Keep,
    max_paths: usize,
    charge: &mut dyn FnMut(usize) -> RhaiResult<()>,
) -> RhaiResult<Array> {
    let board = Board::new(defs, state, rule, start);
    charge(board.pieces.len())?;
    let mut found = Array::new();
    let (s, e) = (board.at[start as usize], board.at.get(end as usize).copied().unwrap_or(usize::MAX));
    if e == usize::MAX {
        return Ok(found);
    }
    let most = keep.most();
    // Paths to go on with: the piece that ends each, its length, changes and jumps. The search
    // is depth first, so the path to a piece taken off `todo` is `path` as it stands, cut to
    // the piece's place: what was walked since the piece was put on went deeper than it.
    let mut todo: Vec<(usize, usize, i64, i64)> = vec![(s, 1, 0, 0)];
    let mut path: Vec<usize> = Vec::new();
    // Each piece's steps, worked out at its first visit (the board does not change during the
    // search, and a depth-first search visits a piece once for every path through it).
    let mut steps: Vec<Option<Vec<Step>>> = vec![None; board.pieces.len()];
    while found.len() < max_paths
        && let Some((here, len, changes, jumps)) = todo.pop()
    {
        path.truncate(len - 1);
        path.push(here);
        if here == e {
            if keep.keeps(changes, jumps > 0) {
                let mut out = Map::new();
                let pieces = path.iter().map(|&i| Dynamic::from_int(i64::from(board.pieces[i]))).collect();
                out.insert("pieces".into(), Dynamic::from_array(pieces));
                out.insert("changes".into(), Dynamic::from_int(changes));
                out.insert("jumps".into(), Dynamic::from_int(jumps));
                found.push(Dynamic::from_map(out));
            }
            continue;
        }
        let out = match &mut steps[here] {
            Some(known) => known,
            place => {
                let mut out = Vec::new();
                board.steps(here, &mut out)?;
                place.insert(out)
            }
        };
        charge(out.len().saturating_mul(len) + 1)?;
        for step in out.iter() {
            let changes = changes + i64::from(step.change);
            if changes <= most && !path.contains(&step.to) {
                todo.push((step.to, len + 1, changes, jumps + i64::from(step.jump)));
            }
        }
    }
    Ok(found)
}
