//! Square grids of pieces: the pieces of a zone placed at the cells named by their integer
//! properties `x` and `y`, each linked to its orthogonal neighbours through piece-valued
//! properties named after the four directions. Looking up a cell (`cell`), placing a piece and
//! linking it both ways (`lay`), and the empty cells a placement rule allows (`fits`,
//! `free_cells`). Shared by the `Game` and `View` handles; a seat's grid holds only the pieces
//! it can see.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use rhai::{Array, Dynamic, ImmutableString, Map};

use super::board::Filter;
use super::{RhaiResult, fail};
use crate::rules::defs::{Defs, PieceId, PropKind, SeatId, ZoneId};
use crate::state::State;

/// The four directions, in the order of a `sides` array: +y, +x, -y, -x. The opposite of
/// direction `d` is `(d + 2) % 4`.
const STEPS: [(i64, i64); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

/// What looking at the cells around one occupied cell costs, in `MAX_ENGINE_WORK` units: its 8
/// neighbours, each tested against up to 12 cells and a filter.
pub(super) const CELL_WORK: usize = 8 * 13;

/// The eight cells around a cell, for `around`.
const AROUND: [(i64, i64); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// The cell `(dx, dy)` away, or `None` past the ends of the integers (no piece is there).
fn step((x, y): (i64, i64), (dx, dy): (i64, i64)) -> Option<(i64, i64)> {
    Some((x.checked_add(dx)?, y.checked_add(dy)?))
}

/// The cell of a piece: its integer properties `x` and `y`, if it has both.
fn coordinates(defs: &Defs, state: &State, piece: PieceId) -> Option<(i64, i64)> {
    let int = |name: &str| match defs.prop_ref(piece, name) {
        Some((slot, def)) if matches!(def.kind, PropKind::Int(..)) => Some(state.prop(slot)),
        _ => None,
    };
    Some((int("x")?, int("y")?))
}

/// The occupied cells of a zone: for each, the first piece of the zone (in zone order) placed
/// there. Pieces without integer `x` and `y`, `skip`, and pieces `seat` cannot see (none are
/// hidden for `None`) are left out.
pub(super) struct Grid {
    /// (Fx-hashed: a placement rule looks up a dozen cells for each cell it tries, and std's
    /// SipHash cost more than the look-ups.)
    cells: FxHashMap<(i64, i64), PieceId>,
}

/// The first piece of the zone (in zone order) at `(x, y)` that `seat` can see: the zone's
/// grid at that cell (see [`Grid`]), found without building the grid.
pub(super) fn cell(defs: &Defs, state: &State, zone: ZoneId, seat: Option<SeatId>, x: i64, y: i64) -> Option<PieceId> {
    let here = |&p: &PieceId| {
        coordinates(defs, state, p) == Some((x, y)) && crate::view::sight::visible(defs, state, seat, zone, p)
    };
    if defs.zones[zone as usize].ordered {
        state.pieces_in(defs, zone).into_iter().find(here)
    } else {
        state.pieces_in_any_order(zone).find(here)
    }
}

impl Grid {
    pub(super) fn of(defs: &Defs, state: &State, zone: ZoneId, seat: Option<SeatId>, skip: Option<PieceId>) -> Grid {
        let mut cells = FxHashMap::default();
        for p in state.pieces_in(defs, zone) {
            if Some(p) == skip || !crate::view::sight::visible(defs, state, seat, zone, p) {
                continue;
            }
            if let Some(at) = coordinates(defs, state, p) {
                cells.entry(at).or_insert(p);
            }
        }
        Grid { cells }
    }

    /// How many cells are occupied.
    pub(super) fn len(&self) -> usize {
        self.cells.len()
    }

    fn at_step(&self, cell: (i64, i64), by: (i64, i64)) -> Option<PieceId> {
        step(cell, by).and_then(|c| self.cells.get(&c).copied())
    }

    /// Whether the empty cell `(x, y)` satisfies `rule`.
    pub(super) fn fits(&self, defs: &Defs, state: &State, x: i64, y: i64, rule: &Rule) -> bool {
        if self.cells.contains_key(&(x, y)) {
            return false;
        }
        let sides = STEPS.iter().filter(|&&by| self.at_step((x, y), by).is_some()).count() as i64;
        if sides < rule.sides {
            return false;
        }
        if rule.around > 0 {
            let around = AROUND.iter().filter(|&&by| self.at_step((x, y), by).is_some()).count() as i64;
            if around < rule.around {
                return false;
            }
        }
        match &rule.matching {
            None => true,
            Some(f) => STEPS.iter().filter_map(|&by| self.at_step((x, y), by)).any(|p| f.matches(defs, state, p)),
        }
    }

    /// Every cell satisfying `rule`, ordered by `x`, then `y` (both increasing). Only cells
    /// around occupied ones are looked at, so `rule` must ask for a neighbour.
    pub(super) fn free_cells(&self, defs: &Defs, state: &State, rule: &Rule) -> RhaiResult<Array> {
        if rule.sides <= 0 && rule.around <= 0 && rule.matching.is_none() {
            return fail(
                "free_cells: the rule must ask for a neighbour (`sides` or `around` at least 1, or `prop`), \
                 or every cell of the endless plane would do",
            );
        }
        let candidates: BTreeSet<(i64, i64)> =
            self.cells.keys().flat_map(|&c| AROUND.iter().filter_map(move |&by| step(c, by))).collect();
        Ok(candidates
            .into_iter()
            .filter(|&(x, y)| self.fits(defs, state, x, y, rule))
            .map(|(x, y)| Dynamic::from_array(vec![Dynamic::from_int(x), Dynamic::from_int(y)]))
            .collect())
    }
}

/// A placement rule, from a script's `#{ sides: 1, around: 2, prop: "colour", value: "red" }`:
/// the cell is empty, at least `sides` of its 4 orthogonal neighbours and at least `around` of
/// the 8 cells around it are occupied, and (with `prop`) an orthogonal neighbour's property
/// `prop` has the value `value`. Every key is optional, but `prop` and `value` go together.
pub(super) struct Rule {
    sides: i64,
    around: i64,
    matching: Option<Filter>,
}

impl Rule {
    pub(super) fn new(defs: &Defs, map: &Map, seat: Option<SeatId>) -> RhaiResult<Rule> {
        let mut rule = Rule { sides: 0, around: 0, matching: None };
        let (mut prop, mut value): (Option<ImmutableString>, Option<Dynamic>) = (None, None);
        for (key, v) in map {
            match key.as_str() {
                "sides" | "around" => {
                    let most = if key.as_str() == "sides" { 4 } else { 8 };
                    let n = match v.as_int() {
                        Ok(n) if (0..=most).contains(&n) => n,
                        _ => return fail(format!("grid rule: `{key}` must be an integer from 0 to {most}, not {v}")),
                    };
                    if key.as_str() == "sides" {
                        rule.sides = n;
                    } else {
                        rule.around = n;
                    }
                }
                "prop" => match v.clone().into_immutable_string() {
                    Ok(name) => prop = Some(name),
                    Err(_) => return fail(format!("grid rule: `prop` must be a property name, not {v}")),
                },
                "value" => {
                    if !v.is_int() && !v.is_string() {
                        return fail(format!("grid rule: `value` must be an integer or a string, not {v}"));
                    }
                    value = Some(v.clone());
                }
                _ => {
                    return fail(format!(
                        "grid rule: unknown key `{key}` (the keys are `sides`, `around`, `prop` and `value`)"
                    ));
                }
            }
        }
        match (prop, value) {
            (None, None) => {}
            (Some(prop), Some(value)) => {
                let filter = Filter::new(defs, &Map::from_iter([(prop.as_str().into(), value)]))?;
                rule.matching = Some(match seat {
                    Some(s) => filter.seen_by(s),
                    None => filter,
                });
            }
            (Some(_), None) => return fail("grid rule: `prop` needs a `value`"),
            (None, Some(_)) => return fail("grid rule: `value` needs a `prop` (the property to compare)"),
        }
        Ok(rule)
    }
}

/// The four property names of a `sides` array (+y, +x, -y, -x).
pub(super) fn side_names(sides: &Array) -> RhaiResult<[ImmutableString; 4]> {
    let names: Vec<ImmutableString> = sides
        .iter()
        .map(|s| s.clone().into_immutable_string())
        .collect::<Result<_, _>>()
        .map_err(|t| format!("sides: expected property names, found a {t}"))?;
    names
        .try_into()
        .map_err(|n: Vec<_>| format!("sides: expected 4 property names (+y, +x, -y, -x), found {}", n.len()).into())
}

/// Moves `piece` (on top) into `zone`, sets its `x` and `y`, then, for each direction `d` in
/// the order of `sides` whose cell holds a piece (the first in zone order, not `piece`), sets
/// `piece`'s property `sides[d]` to that neighbour and the neighbour's `sides[(d + 2) % 4]` to
/// `piece`. Everything is checked first: on an error nothing has changed.
pub(super) fn lay(
    defs: &Defs,
    state: &mut State,
    piece: PieceId,
    zone: ZoneId,
    (x, y): (i64, i64),
    sides: &[ImmutableString; 4],
) -> Result<(), String> {
    defs.check_prop(piece, "x", x)?;
    defs.check_prop(piece, "y", y)?;
    for side in sides {
        if !defs.prop_def(piece, side).is_some_and(|d| matches!(d.kind, PropKind::Piece(_))) {
            return Err(format!("{} has no piece property `{side}`", defs.pieces[piece as usize].name));
        }
    }
    // Moving `piece` and setting its place changes no other piece's: the grid without it is
    // the same before and after.
    let grid = Grid::of(defs, state, zone, None, Some(piece));
    let mut links = Vec::new();
    for (d, &by) in STEPS.iter().enumerate() {
        if let Some(other) = grid.at_step((x, y), by) {
            defs.check_prop(piece, &sides[d], i64::from(other))?;
            defs.check_prop(other, &sides[(d + 2) % 4], i64::from(piece))?;
            links.push((d, other));
        }
    }
    state.move_piece(defs, piece, zone);
    state.set_prop(defs, piece, "x", x)?;
    state.set_prop(defs, piece, "y", y)?;
    for (d, other) in links {
        state.set_prop(defs, piece, &sides[d], i64::from(other))?;
        state.set_prop(defs, other, &sides[(d + 2) % 4], i64::from(piece))?;
    }
    Ok(())
}
