//! The `Game` handle rule hooks receive: every native a hook may call to read or change the
//! game, each checking its arguments and changing state through `State`'s methods, and the
//! limit on the engine work one hook call may ask for.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rhai::{Array, Dynamic, ImmutableString, Map};

use super::board::{
    Filter, FilterArg, filters, graph_count_within, graph_distance, graph_distances, graph_influence, link_names,
    linked, nearest, tally,
};
use super::grid::{CELL_WORK, Grid, Rule, side_names};
use super::names::Names;
use super::natives::{Arg, Param, Registry, ZoneArg, ZoneNames};
use super::reads::Read;
use super::steps::{StepRule, link_from, link_map, steps};
use super::values::to_value;
use super::{MAX_ENGINE_WORK, PROMPT_WORK, RhaiResult, fail};
use crate::event::Event;
use crate::rules::defs::{CounterId, Defs, PieceId, PropDef, PropKind, ZoneId};
use crate::state::{Prompt, State};

/// The handle scripts receive as `game`.
#[derive(Clone)]
pub struct GameApi {
    pub(super) state: Rc<RefCell<Box<State>>>,
    pub(super) defs: Rc<Defs>,
    /// Work done for the running hook so far (see `MAX_ENGINE_WORK`).
    pub(super) work: Rc<Cell<u64>>,
    /// A list of pieces the natives reuse, so that listing a zone allocates only the array a
    /// script receives (see [`GameApi::in_zone`]).
    pub(super) scratch: Rc<Cell<Vec<PieceId>>>,
    /// Zone and counter names looked up lately.
    pub(super) names: Rc<Names>,
    /// Set by every native that changes the state (through [`GameApi::state_mut`]): whether a
    /// `legal` hook changed the scratch copy it ran on, which must then be copied again for
    /// the next candidate (see `Scripts::call_action_hook_on_copy`).
    pub(super) touched: Rc<Cell<bool>>,
}

/// `game.goto(phase)` / `game.go_to(phase)`: leave the phase once the hook returns.
fn goto(g: &mut GameApi, phase: &str) -> RhaiResult<()> {
    match g.defs.phase(phase) {
        Some(p) => {
            g.state_mut().goto = Some(p);
            Ok(())
        }
        None => fail(format!("no phase named `{phase}`")),
    }
}

/// A seat's `team` (a string), or () if it has none.
pub(super) fn team_of(defs: &Defs, seat: &str) -> RhaiResult<Dynamic> {
    match defs.seat(seat) {
        Some(s) => Ok(defs.seats[s as usize].team.clone().map_or(Dynamic::UNIT, Dynamic::from)),
        None => fail(format!("no seat named `{seat}`")),
    }
}

impl GameApi {
    /// Counts `units` of work for the running hook, or stops it once it has done too much.
    fn charge(&self, units: usize) -> RhaiResult<()> {
        let done = self.work.get().saturating_add(units as u64);
        self.work.set(done);
        if done > MAX_ENGINE_WORK {
            return fail(format!(
                "the script asked too much of the engine: more than {MAX_ENGINE_WORK} pieces looked at, bytes noted or prompts opened \
                 (x{PROMPT_WORK}) in one hook call (an endless loop?)"
            ));
        }
        Ok(())
    }

    /// Counts a walk over every piece (what listing or searching a zone costs).
    fn scan(&self) -> RhaiResult<()> {
        self.charge(self.defs.pieces.len() + 1)
    }

    /// Runs `f` on the state and the pieces of `zone` in the zone's order, listed in the
    /// shared scratch list (which `f` may change: keep only some, for instance).
    fn in_zone<R>(&self, zone: ZoneId, f: impl FnOnce(&State, &mut Vec<PieceId>) -> R) -> R {
        let mut list = self.scratch.take();
        let s = self.read(Read::Zone(zone));
        s.pieces_in_into(&self.defs, zone, &mut list);
        let result = f(&s, &mut list);
        drop(s);
        self.scratch.set(list);
        result
    }

    /// [`GameApi::in_zone`], for `f` to change the state.
    fn in_zone_mut<R>(&self, zone: ZoneId, f: impl FnOnce(&mut State, &mut Vec<PieceId>) -> R) -> R {
        let mut list = self.scratch.take();
        let mut s = self.state_mut();
        s.pieces_in_into(&self.defs, zone, &mut list);
        let result = f(&mut s, &mut list);
        drop(s);
        self.scratch.set(list);
        result
    }

    /// The state, to read, for a native that reads only `what` (see `reads.rs`: a remembered
    /// call is given back only while what it read is unchanged).
    pub(super) fn read(&self, what: Read) -> std::cell::Ref<'_, Box<State>> {
        super::reads::note(what);
        self.state.borrow()
    }

    /// The state, to read, for a native that reads each of `what` (see [`GameApi::read`]).
    pub(super) fn read_each(&self, what: impl IntoIterator<Item = Read>) -> std::cell::Ref<'_, Box<State>> {
        what.into_iter().for_each(super::reads::note);
        self.state.borrow()
    }

    /// The state, to read, for a search over the board `start` lies on (`region_costs`,
    /// `region_paths`): it reads where `start` lies, and that zone's pieces in their order with
    /// their faces and properties (the links, regions, weights and filters it follows are
    /// properties of those pieces; a link to a piece elsewhere is not followed).
    fn read_board_of(&self, start: PieceId) -> std::cell::Ref<'_, Box<State>> {
        let s = self.read(Read::ZoneOf(start));
        super::reads::note(Read::Zone(s.zone_of(start)));
        s
    }

    /// The state, to read, for a native that does not say what it reads: a call that runs it
    /// is not remembered (see `reads.rs`).
    pub(super) fn state(&self) -> std::cell::Ref<'_, Box<State>> {
        super::reads::spoil();
        self.state.borrow()
    }

    /// The state, to change: every native that changes the game borrows it here (and a call
    /// that changes the game is not remembered, see `reads.rs`).
    pub(super) fn state_mut(&self) -> std::cell::RefMut<'_, Box<State>> {
        super::reads::spoil();
        self.touched.set(true);
        self.state.borrow_mut()
    }

    fn zone(&self, name: &str) -> RhaiResult<ZoneId> {
        match self.names.zones.get(name).or_else(|| self.defs.zone(name)) {
            Some(z) => Ok(z),
            None => fail(format!("no zone named `{name}`")),
        }
    }

    fn piece(&self, id: i64) -> RhaiResult<PieceId> {
        if (0..self.defs.pieces.len() as i64).contains(&id) {
            Ok(id as PieceId)
        } else {
            fail(format!("{id} is not a piece id"))
        }
    }

    fn counter(&self, name: &ImmutableString) -> RhaiResult<u16> {
        match self.names.counters.find(name, |n| self.defs.counter(n)) {
            Some(c) => Ok(c),
            None => fail(format!("no counter named `{name}`")),
        }
    }
}

impl ZoneNames for GameApi {
    /// [`GameApi::zone`] for a script's string, which is remembered (see `names.rs`).
    fn zone_named(&self, name: &ImmutableString) -> RhaiResult<ZoneId> {
        match self.names.zones.find(name, |n| self.defs.zone(n)) {
            Some(z) => Ok(z),
            None => fail(format!("no zone named `{name}`")),
        }
    }
}

/// A property value as a script sees it: words as strings, pieces as ids (or `()`).
pub(super) fn prop_dynamic(defs: &Defs, kind: &PropKind, value: i64) -> Dynamic {
    match kind {
        PropKind::Word(_) => defs.symbols.get(value as usize).cloned().map(Dynamic::from).unwrap_or(Dynamic::UNIT),
        PropKind::Int(..) => Dynamic::from_int(value),
        PropKind::Piece(_) if value < 0 => Dynamic::UNIT,
        PropKind::Piece(_) => Dynamic::from_int(value),
    }
}

/// The counter a direct form's argument gives: resolved at load or by its prefix's table, or a
/// name computed at the call, looked up as the ordinary form does (`None` for another argument).
fn counter_arg(g: &GameApi, arg: &Arg) -> Option<RhaiResult<u16>> {
    match arg {
        Arg::Id(c) => Some(Ok(*c)),
        Arg::Text(name) => Some(g.counter(name)),
        _ => None,
    }
}

/// The piece a name names, or the error that it names none (both handles' `piece`).
pub(super) fn piece_named(defs: &Defs, name: &str) -> RhaiResult<i64> {
    match defs.piece(name) {
        Some(p) => Ok(i64::from(p)),
        None => fail(format!("no piece named `{name}`")),
    }
}

/// Registers the `Game` handle and its natives.
pub(super) fn register(engine: &mut Registry) {
    engine.register_type_with_name::<GameApi>("Game");

    // Parameters and players.
    engine.register_fn("param", |g: &mut GameApi, name: &str| -> RhaiResult<Dynamic> {
        match g.defs.param_values.get(name) {
            Some(v) => Ok(v.clone()),
            None => fail(format!("no parameter named `{name}`")),
        }
    });
    // One entry of a table (or list) parameter, without copying the whole table first.
    engine.register_fn("param", |g: &mut GameApi, name: &str, key: Dynamic| -> RhaiResult<Dynamic> {
        param_entry(&g.defs, name, &key)
    });
    engine.register_fn("players", |g: &mut GameApi| i64::from(g.read(Read::Players).players));
    engine.register_fn("seats", |g: &mut GameApi| -> Array {
        let n = g.read(Read::Players).players as usize;
        g.defs.seat_names.iter().take(n).cloned().map(Dynamic::from).collect()
    });
    engine
        .register_fn("rules_seats", |g: &mut GameApi| -> Array { rules_seats(&g.defs, g.read(Read::Players).players) });

    // Counters. The hot natives have direct forms too, which compiled scripts call with the
    // names they write resolved at load or found by their prefix's table at the call (see
    // `natives::DirectForm`), or a name computed at the call, looked up as the ordinary form
    // looks it up.
    engine.register_fn("counter", |g: &mut GameApi, name: ImmutableString| -> RhaiResult<i64> {
        let c = g.counter(&name)?;
        Ok(g.read(Read::Counter(c)).counter(c))
    });
    engine.register_direct("counter", &[Param::Counter], |g: &GameApi, args| {
        let c = counter_arg(g, args.first()?)?;
        Some(c.map(|c| Dynamic::from_int(g.read(Read::Counter(c)).counter(c))))
    });
    engine.register_fn("set_counter", |g: &mut GameApi, name: ImmutableString, value: i64| -> RhaiResult<i64> {
        let c = g.counter(&name)?;
        Ok(g.state_mut().set_counter(&g.defs, c, value))
    });
    engine.register_direct("set_counter", &[Param::Counter, Param::Int], |g: &GameApi, args| match args {
        [c, Arg::Int(value)] => {
            Some(counter_arg(g, c)?.map(|c| Dynamic::from_int(g.state_mut().set_counter(&g.defs, c, *value))))
        }
        _ => None,
    });
    engine.register_fn("add", |g: &mut GameApi, name: ImmutableString, delta: i64| -> RhaiResult<i64> {
        let c = g.counter(&name)?;
        Ok(add(g, c, delta))
    });
    engine.register_direct("add", &[Param::Counter, Param::Int], |g: &GameApi, args| match args {
        [c, Arg::Int(delta)] => Some(counter_arg(g, c)?.map(|c| Dynamic::from_int(add(g, c, *delta)))),
        _ => None,
    });

    // Zones and pieces.
    engine.register_fn("pieces", |g: &mut GameApi, zone: ImmutableString| -> RhaiResult<Array> {
        g.scan()?;
        let z = g.zone_named(&zone)?;
        Ok(g.in_zone(z, |_, pieces| piece_array(pieces)))
    });
    engine.register_direct("pieces", &[Param::Zone], |g: &GameApi, args| match *args {
        [zone] => {
            let zone = zone.zone()?;
            Some(
                g.scan()
                    .and_then(|()| g.zone_arg(zone))
                    .map(|z| Dynamic::from_array(g.in_zone(z, |_, p| piece_array(p)))),
            )
        }
        _ => None,
    });
    engine.register_fn("count", |g: &mut GameApi, zone: ImmutableString| -> RhaiResult<i64> {
        let z = g.zone_named(&zone)?;
        Ok(i64::from(g.read(Read::Zone(z)).count(z)))
    });
    engine.register_direct("count", &[Param::Zone], |g: &GameApi, args| match *args {
        [zone] => Some(g.zone_arg(zone.zone()?).map(|z| Dynamic::from_int(i64::from(g.read(Read::Zone(z)).count(z))))),
        _ => None,
    });
    engine.register_fn("top", |g: &mut GameApi, zone: ImmutableString| -> RhaiResult<Dynamic> {
        g.scan()?;
        let z = g.zone_named(&zone)?;
        Ok(top(g, z))
    });
    engine.register_direct("top", &[Param::Zone], |g: &GameApi, args| match *args {
        [zone] => {
            let zone = zone.zone()?;
            Some(g.scan().and_then(|()| g.zone_arg(zone)).map(|z| top(g, z)))
        }
        _ => None,
    });
    engine.register_fn("zone_of", |g: &mut GameApi, piece: i64| -> RhaiResult<ImmutableString> { zone_of(g, piece) });
    engine.register_direct("zone_of", &[Param::Int], |g: &GameApi, args| match args {
        [Arg::Int(piece)] => Some(zone_of(g, *piece).map(Dynamic::from)),
        _ => None,
    });
    engine.register_fn("owner", |g: &mut GameApi, zone: ImmutableString| -> RhaiResult<Dynamic> {
        let z = g.zone_named(&zone)?;
        Ok(g.defs.zones[z as usize]
            .owner
            .map(|s| Dynamic::from(g.defs.seat_names[s as usize].clone()))
            .unwrap_or(Dynamic::UNIT))
    });
    engine.register_fn("move", |g: &mut GameApi, piece: i64, zone: ImmutableString| -> RhaiResult<()> {
        let (p, z) = (g.piece(piece)?, g.zone_named(&zone)?);
        g.state_mut().move_piece(&g.defs, p, z);
        Ok(())
    });
    engine.register_direct("move", &[Param::Int, Param::Zone], |g: &GameApi, args| match *args {
        [Arg::Int(piece), zone] => {
            let zone = zone.zone()?;
            Some(g.piece(piece).and_then(|p| Ok((p, g.zone_arg(zone)?))).map(|(p, z)| {
                g.state_mut().move_piece(&g.defs, p, z);
                Dynamic::UNIT
            }))
        }
        _ => None,
    });
    engine.register_fn("move_bottom", |g: &mut GameApi, piece: i64, zone: ImmutableString| -> RhaiResult<()> {
        let (p, z) = (g.piece(piece)?, g.zone_named(&zone)?);
        g.state_mut().move_piece_to(&g.defs, p, z, false);
        Ok(())
    });
    engine.register_fn("move_all", |g: &mut GameApi, from: ImmutableString, to: ImmutableString| -> RhaiResult<i64> {
        g.scan()?;
        let (from, to) = (g.zone_named(&from)?, g.zone_named(&to)?);
        Ok(move_all(g, from, to))
    });
    engine.register_direct("move_all", &[Param::Zone, Param::Zone], |g: &GameApi, args| match *args {
        [from, to] => {
            let (from, to) = (from.zone()?, to.zone()?);
            Some((|| {
                g.scan()?;
                let (from, to) = (g.zone_arg(from)?, g.zone_arg(to)?);
                Ok(Dynamic::from_int(move_all(g, from, to)))
            })())
        }
        _ => None,
    });
    engine.register_fn("turn", |g: &mut GameApi, piece: i64, up: bool| -> RhaiResult<()> {
        let p = g.piece(piece)?;
        g.state_mut().turn(p, up);
        Ok(())
    });
    engine.register_fn("reveal", |g: &mut GameApi, zone: ImmutableString| -> RhaiResult<()> {
        g.scan()?;
        reveal(g, g.zone_named(&zone)?);
        Ok(())
    });
    engine.register_direct("reveal", &[Param::Zones], |g: &GameApi, args| match args {
        [Arg::Ids(zones)] => Some((|| {
            g.scan()?;
            for &z in zones.iter() {
                g.scan()?;
                reveal(g, z);
            }
            Ok(Dynamic::UNIT)
        })()),
        _ => None,
    });
    engine.register_fn("reveal", |g: &mut GameApi, zones: Array| -> RhaiResult<()> {
        g.scan()?;
        for zone in zones {
            g.scan()?;
            let name = zone.into_immutable_string().map_err(|t| format!("reveal: expected zone names, found a {t}"))?;
            reveal(g, g.zone_named(&name)?);
        }
        Ok(())
    });
    engine.register_fn("is_face_up", |g: &mut GameApi, piece: i64| -> RhaiResult<bool> {
        let p = g.piece(piece)?;
        Ok(g.read(Read::FaceUp(p)).is_face_up(p))
    });
    engine.register_fn("name", |g: &mut GameApi, piece: i64| -> RhaiResult<ImmutableString> {
        let p = g.piece(piece)?;
        Ok(g.defs.piece_names[p as usize].clone())
    });
    engine.register_fn("piece", |g: &mut GameApi, name: &str| -> RhaiResult<i64> { piece_named(&g.defs, name) });
    engine.register_direct("piece", &[Param::Piece], |g: &GameApi, args| match args {
        [Arg::Id(p)] => Some(Ok(Dynamic::from_int(i64::from(*p)))),
        [Arg::Text(name)] => Some(piece_named(&g.defs, name).map(Dynamic::from_int)),
        _ => None,
    });
    engine.register_fn("kind", |g: &mut GameApi, piece: i64| -> RhaiResult<ImmutableString> {
        let p = g.piece(piece)?;
        Ok(g.defs.kind_names[g.defs.pieces[p as usize].kind as usize].clone())
    });
    engine.register_fn("prop", |g: &mut GameApi, piece: i64, name: ImmutableString| -> RhaiResult<Dynamic> {
        prop(g, piece, &name)
    });
    engine.register_direct("prop", &[Param::Int, Param::Text], |g: &GameApi, args| match args {
        [Arg::Int(piece), Arg::Text(name)] => Some(prop(g, *piece, name)),
        _ => None,
    });
    engine.register_fn("set_prop", |g: &mut GameApi, piece: i64, name: &str, value: Dynamic| -> RhaiResult<()> {
        set_prop(g, piece, name, None, &value)
    });
    engine.register_direct("set_prop", &[Param::Int, Param::Text, Param::Value], |g: &GameApi, args| match args {
        [Arg::Int(piece), Arg::Text(name), Arg::Value(value)] => {
            Some(set_prop(g, *piece, name, Some(name), value).map(|()| Dynamic::UNIT))
        }
        _ => None,
    });

    // Bulk queries: one native call instead of a script loop (faster, and shorter to read).
    engine.register_fn("tally", |g: &mut GameApi, zone: &str, prop: &str| -> RhaiResult<Map> {
        g.scan()?;
        let z = g.zone(zone)?;
        Ok(tally(&g.defs, &g.read(Read::Zone(z)), z, prop, None))
    });
    engine.register_fn("nearest", |g: &mut GameApi, from: i64, links: Array, goal: Map| -> RhaiResult<Dynamic> {
        g.scan()?;
        let p = g.piece(from)?;
        let goals = [Filter::new(&g.defs, &goal)?];
        Ok(nearest(&g.defs, &g.state.borrow(), p, &link_names(&links)?, &goals, None, true))
    });
    engine.register_fn("nearest", |g: &mut GameApi, from: i64, links: Array, goals: Array| -> RhaiResult<Dynamic> {
        g.scan()?;
        let p = g.piece(from)?;
        let goals = filters(&g.defs, &goals)?;
        Ok(nearest(&g.defs, &g.state.borrow(), p, &link_names(&links)?, &goals, None, true))
    });
    engine.register_fn("linked", |g: &mut GameApi, from: i64, links: Array| -> RhaiResult<Array> {
        g.scan()?;
        let p = g.piece(from)?;
        let links = link_names(&links)?;
        // It reads the links of `from` alone: the rules see every piece, wherever it lies.
        let reads = links.iter().filter_map(|link| g.defs.prop_ref(p, link)).map(|(slot, _)| Read::Prop(slot as u32));
        linked(&g.defs, &g.read_each(reads), p, &links, None)
    });
    engine.register_zone_filter_fn("count_where", count_where);
    engine.register_zone_filter_fn("pieces_where", pieces_where);
    // One piece of `zone` for each of `values`, in order: the first (in the zone's order) whose
    // `prop` has that value and that is not picked yet; values no piece left has are skipped.
    // Dice spent on a list of faces: `game.pick(pool, "face", ["key", "torch"])`.
    engine.register_fn("pick", |g: &mut GameApi, zone: &str, prop: &str, values: Array| -> RhaiResult<Array> {
        let z = g.zone(zone)?;
        let s = g.read(Read::Zone(z));
        let mut left = s.pieces_in(&g.defs, z);
        let mut picked = Array::new();
        for value in values {
            g.scan()?;
            let f = Filter::new(&g.defs, &Map::from_iter([(prop.into(), value)]))?;
            if let Some(i) = left.iter().position(|&p| f.matches(&g.defs, &s, p)) {
                picked.push(Dynamic::from_int(i64::from(left.remove(i))));
            }
        }
        Ok(picked)
    });
    engine.register_fn(
        "move_where",
        |g: &mut GameApi, from: ImmutableString, filter: Map, to: ImmutableString| -> RhaiResult<i64> {
            move_where(g, ZoneArg::Named(&from), FilterArg::Map(&filter), ZoneArg::Named(&to))
        },
    );
    engine.register_direct("move_where", &[Param::Zone, Param::Filter, Param::Zone], |g: &GameApi, args| match *args {
        [from, Arg::Filter(f), to] => Some(move_where(g, from.zone()?, f, to.zone()?).map(Dynamic::from)),
        _ => None,
    });
    engine.register_fn("sum", |g: &mut GameApi, zone: ImmutableString, prop: &str| -> RhaiResult<i64> {
        g.scan()?;
        sum_where(g, ZoneArg::Named(&zone), prop, FilterArg::Map(&Map::new()))
    });
    engine.register_fn(
        "sum_where",
        |g: &mut GameApi, zone: ImmutableString, prop: &str, filter: Map| -> RhaiResult<i64> {
            g.scan()?;
            sum_where(g, ZoneArg::Named(&zone), prop, FilterArg::Map(&filter))
        },
    );
    engine.register_direct("sum_where", &[Param::Zone, Param::Text, Param::Filter], |g: &GameApi, args| match *args {
        [zone, Arg::Text(prop), Arg::Filter(f)] => {
            let zone = zone.zone()?;
            Some(g.scan().and_then(|()| sum_where(g, zone, prop, f)).map(Dynamic::from))
        }
        _ => None,
    });
    engine.register_fn("raise", |g: &mut GameApi, piece: i64, prop: ImmutableString, delta: i64| -> RhaiResult<i64> {
        raise(g, piece, &prop, delta)
    });
    engine.register_direct("raise", &[Param::Int, Param::Text, Param::Int], |g: &GameApi, args| match *args {
        [Arg::Int(piece), Arg::Text(prop), Arg::Int(delta)] => Some(raise(g, piece, prop, delta).map(Dynamic::from)),
        _ => None,
    });

    // Square grids of pieces placed by their `x` and `y` (see `grid`): each call reads the
    // zone once; `free_cells` is charged for the cells it looks at too.
    engine.register_fn("cell", |g: &mut GameApi, zone: &str, x: i64, y: i64| -> RhaiResult<Dynamic> {
        g.scan()?;
        let z = g.zone(zone)?;
        let found = super::grid::cell(&g.defs, &g.read(Read::Zone(z)), z, None, x, y);
        Ok(found.map_or(Dynamic::UNIT, |p| Dynamic::from_int(i64::from(p))))
    });
    engine.register_fn(
        "lay",
        |g: &mut GameApi, piece: i64, zone: &str, x: i64, y: i64, sides: Array| -> RhaiResult<()> {
            g.scan()?;
            let (p, z) = (g.piece(piece)?, g.zone(zone)?);
            let sides = side_names(&sides)?;
            super::grid::lay(&g.defs, &mut g.state_mut(), p, z, (x, y), &sides).map_err(Into::into)
        },
    );
    engine.register_fn("fits", |g: &mut GameApi, zone: &str, x: i64, y: i64, rule: Map| -> RhaiResult<bool> {
        g.scan()?;
        let z = g.zone(zone)?;
        let rule = Rule::new(&g.defs, &rule, None)?;
        let s = g.read(Read::Zone(z));
        Ok(Grid::of(&g.defs, &s, z, None, None).fits(&g.defs, &s, x, y, &rule))
    });
    engine.register_fn("free_cells", |g: &mut GameApi, zone: &str, rule: Map| -> RhaiResult<Array> {
        g.scan()?;
        let z = g.zone(zone)?;
        let rule = Rule::new(&g.defs, &rule, None)?;
        let s = g.read(Read::Zone(z));
        let grid = Grid::of(&g.defs, &s, z, None, None);
        g.charge(grid.len().saturating_mul(CELL_WORK))?;
        grid.free_cells(&g.defs, &s, &rule)
    });

    // Ranking and tracks: pure functions of what the script gives (see `ranking`), charged by
    // its size since one call can be asked to sort a map of thousands in a loop.
    engine.register_fn("rank", |g: &mut GameApi, keys: Map| -> RhaiResult<Array> {
        g.charge(keys.len())?;
        super::ranking::rank(&keys)
    });
    engine.register_fn("crossings", |g: &mut GameApi, before: i64, after: i64, lines: Array| -> RhaiResult<Array> {
        g.charge(lines.len())?;
        super::ranking::crossings(before, after, &lines)
    });

    // Movement costed by region changes over a board of linked pieces (see `regions`), charged
    // by the pieces looked at and the steps tried.
    engine.register_fn("region_costs", |g: &mut GameApi, start: i64, rule: Map| -> RhaiResult<Map> {
        let p = g.piece(start)?;
        let rule = super::regions::Rule::new(&g.defs, &rule)?;
        super::regions::costs(&g.defs, &g.read_board_of(p), &rule, p, &mut |n| g.charge(n))
    });
    engine.register_fn(
        "region_paths",
        |g: &mut GameApi, start: i64, end: i64, rule: Map, changes: Dynamic, max_paths: i64| -> RhaiResult<Array> {
            let ends = (g.piece(start)?, g.piece(end)?);
            let rule = super::regions::Rule::new(&g.defs, &rule)?;
            let keep = super::regions::Keep::new(&changes)?;
            let Ok(max_paths) = usize::try_from(max_paths) else {
                return fail(format!("region_paths: max_paths must not be negative, not {max_paths}"));
            };
            super::regions::paths(&g.defs, &g.read_board_of(ends.0), &rule, ends, &keep, max_paths, &mut |n| {
                g.charge(n)
            })
        },
    );

    // Flow.
    engine.register_fn("ask", |g: &mut GameApi, seat: &str, action: &str| -> RhaiResult<()> {
        ask(g, seat, action, &Map::new())
    });
    engine.register_fn("ask", |g: &mut GameApi, seat: &str, action: &str, fixed: Map| -> RhaiResult<()> {
        ask(g, seat, action, &fixed)
    });
    // The flow's *goto*, under the name `go_to`: Rhai reserves `goto`, so no script can call that.
    engine.register_fn("go_to", goto);
    engine.register_fn("end", |g: &mut GameApi, outcome: &str| -> RhaiResult<()> {
        let Some(o) = g.defs.outcome(outcome) else {
            return fail(format!("no outcome named `{outcome}`"));
        };
        let mut s = g.state_mut();
        if s.outcome.is_none() {
            s.outcome = Some(o);
            s.prompts.clear();
            s.emit(Event::Ended(o));
        }
        Ok(())
    });
    engine.register_fn("is_over", |g: &mut GameApi| g.read(Read::Outcome).outcome.is_some());
    // Prompts opened and not answered yet: a hook that goes on with a chain of prompts (a
    // combat answered in turn across seats) checks that none is still waiting.
    engine.register_fn("prompts", |g: &mut GameApi| g.read(Read::Prompts).prompts.len() as i64);
    engine.register_fn("team", |g: &mut GameApi, seat: &str| -> RhaiResult<Dynamic> { team_of(&g.defs, seat) });
    engine.register_fn("phase", |g: &mut GameApi| g.defs.phase_names[g.read(Read::Phase).phase as usize].clone());
    engine.register_fn("clock", |g: &mut GameApi| g.read(Read::Clock).clock);
    // Narration: a line told to every seat, or to some seats (a name or a list of names).
    engine.register_fn("say", |g: &mut GameApi, text: &str| -> RhaiResult<()> { say(g, u32::MAX, text) });
    engine.register_fn("say", |g: &mut GameApi, seat: &str, text: &str| -> RhaiResult<()> {
        let seats = seat_mask(&g.defs, std::slice::from_ref(&Dynamic::from(seat.to_string())))?;
        say(g, seats, text)
    });
    engine.register_fn("say", |g: &mut GameApi, seats: Array, text: &str| -> RhaiResult<()> {
        let seats = seat_mask(&g.defs, &seats)?;
        say(g, seats, text)
    });
    // Recorded games keep every note: their length counts as work.
    engine.register_fn("note", |g: &mut GameApi, text: &str| -> RhaiResult<()> {
        g.charge(text.len())?;
        g.state_mut().emit(Event::Note(text.to_string()));
        Ok(())
    });

    // Chance.
    engine.register_fn("random", |g: &mut GameApi, n: i64| -> RhaiResult<i64> {
        if n <= 0 {
            return fail(format!("random({n}): the range must be positive"));
        }
        g.state_mut().random(n as u64).map_err(Into::into)
    });
    // A piece of a zone taken at random: a chance outcome of its own (`* pick zone piece` in
    // logs), shown in a seat's copy only if that seat saw the piece where it lay.
    engine.register_fn("pick_random", |g: &mut GameApi, zone: &str| -> RhaiResult<Dynamic> {
        g.scan()?;
        let z = g.zone(zone)?;
        let picked = g.state_mut().pick_random(&g.defs, z)?;
        Ok(picked.map_or(Dynamic::UNIT, |p| Dynamic::from_int(i64::from(p))))
    });
    // The top piece of a deck to another zone; an empty deck is first made again from its
    // discard pile, shuffled. () when both are empty.
    engine.register_fn("draw", |g: &mut GameApi, from: &str, to: &str, refill: &str| -> RhaiResult<Dynamic> {
        g.scan()?;
        let (from, to, refill) = (g.zone(from)?, g.zone(to)?, g.zone(refill)?);
        let mut s = g.state_mut();
        if s.count(from) == 0 && s.count(refill) > 0 {
            for p in s.pieces_in(&g.defs, refill).into_iter().rev() {
                s.move_piece(&g.defs, p, from);
            }
            s.shuffle(&g.defs, from)?;
        }
        let Some(top) = s.top(&g.defs, from) else { return Ok(Dynamic::UNIT) };
        s.move_piece(&g.defs, top, to);
        Ok(Dynamic::from_int(i64::from(top)))
    });
    engine.register_fn("shuffle", |g: &mut GameApi, zone: &str| -> RhaiResult<()> {
        g.scan()?;
        let z = g.zone(zone)?;
        g.state_mut().shuffle(&g.defs, z).map_err(Into::into)
    });
    engine.register_fn("roll", |g: &mut GameApi, piece: i64| -> RhaiResult<Dynamic> {
        let p = g.piece(piece)?;
        let face = g.state_mut().roll(&g.defs, p)?;
        let kind = &g.defs.kinds[g.defs.pieces[p as usize].kind as usize];
        let prop =
            kind.props.iter().find(|pr| pr.name == "face").map(|pr| pr.kind.clone()).unwrap_or(PropKind::Int(0, 0));
        Ok(prop_dynamic(&g.defs, &prop, face))
    });

    // Rolls every die in a zone, in the zone's order, except those showing `keep` (a face; a
    // word that is no face keeps none). Returns how many were rolled.
    engine.register_fn("roll_keeping", |g: &mut GameApi, zone: &str, keep: &str| -> RhaiResult<i64> {
        g.scan()?;
        let z = g.zone(zone)?;
        let keep = g.defs.symbol(keep).map(i64::from);
        let mut s = g.state_mut();
        let mut rolled = 0;
        for p in s.pieces_in(&g.defs, z) {
            let shows = g.defs.prop_slot(p, "face").map(|slot| s.prop(slot));
            if shows.is_none() || shows != keep {
                s.roll(&g.defs, p)?;
                rolled += 1;
            }
        }
        Ok(rolled)
    });

    // The board graph.
    engine.register_fn("neighbors", |g: &mut GameApi, zone: &str| -> RhaiResult<Array> {
        g.charge(g.defs.edges.len())?;
        let z = g.zone(zone)?;
        let mut out = Array::new();
        for e in g.defs.edges_of(z) {
            if e.from == z {
                out.push(Dynamic::from(g.defs.zone_names[e.to as usize].clone()));
            } else if e.to == z && !e.one_way {
                out.push(Dynamic::from(g.defs.zone_names[e.from as usize].clone()));
            }
        }
        Ok(out)
    });
    engine.register_fn("edge_kind", |g: &mut GameApi, from: &str, to: &str| -> RhaiResult<Dynamic> {
        g.charge(g.defs.edges.len())?;
        let (a, b) = (g.zone(from)?, g.zone(to)?);
        let e = g.defs.edges_of(a).find(|e| (e.from == a && e.to == b) || (!e.one_way && e.from == b && e.to == a));
        Ok(e.and_then(|e| e.kind.clone()).map(Dynamic::from).unwrap_or(Dynamic::UNIT))
    });
    engine.register_fn("links", |g: &mut GameApi, zone: &str| -> RhaiResult<Array> {
        g.charge(g.defs.edges.len())?;
        let z = g.zone(zone)?;
        Ok(g.defs
            .edges_of(z)
            .filter_map(|e| link_from(e, z).map(|(to, against)| link_map(&g.defs, to, e.kind.as_ref(), against)))
            .collect())
    });
    // A rule is read once (`step_rule`) and used for every piece of a listing; `steps` also
    // takes the map itself, read again at each call.
    engine.register_type_with_name::<Rc<StepRule>>("StepRule");
    engine.register_fn("step_rule", |g: &mut GameApi, rule: Map| -> RhaiResult<Rc<StepRule>> {
        Ok(Rc::new(step_rule(g, &rule)?))
    });
    engine.register_fn("steps", |g: &mut GameApi, zone: &str, rule: Map| -> RhaiResult<Array> {
        let z = g.zone(zone)?;
        step_from(g, z, &step_rule(g, &rule)?)
    });
    engine.register_fn("steps", |g: &mut GameApi, zone: &str, rule: Rc<StepRule>| -> RhaiResult<Array> {
        let z = g.zone(zone)?;
        step_from(g, z, &rule)
    });
    // The direct form lends the rule where it lies, a prepared one or a map.
    engine.register_direct("steps", &[Param::Zone, Param::Value], |g: &GameApi, args| match *args {
        [zone, Arg::Value(rule)] => Some((|| {
            let z = g.zone_arg(zone.zone().ok_or("steps: expected a zone")?)?;
            if let Some(rule) = rule.read_lock::<Rc<StepRule>>() {
                return step_from(g, z, &rule).map(Dynamic::from_array);
            }
            match rule.read_lock::<Map>() {
                Some(rule) => step_from(g, z, &step_rule(g, &rule)?).map(Dynamic::from_array),
                None => fail(format!("steps: the rule must be a map or a step rule, not {rule}")),
            }
        })()),
        _ => None,
    });
    engine.register_fn("distance", |g: &mut GameApi, from: &str, to: &str| -> RhaiResult<Dynamic> {
        distance(g, g.zone(from)?, g.zone(to)?)
    });
    engine.register_direct("distance", &[Param::Zone, Param::Zone], |g: &GameApi, args| match *args {
        [from, to] => Some((|| {
            let from = g.zone_arg(from.zone().ok_or("distance: expected a zone")?)?;
            distance(g, from, g.zone_arg(to.zone().ok_or("distance: expected a zone")?)?)
        })()),
        _ => None,
    });
    engine.register_fn("count_within", |g: &mut GameApi, from: &str, most: i64, zones: Array| -> RhaiResult<i64> {
        count_within(g, g.zone(from)?, most, &zones)
    });
    engine.register_direct("count_within", &[Param::Zone, Param::Int, Param::Value], |g: &GameApi, args| match *args {
        [from, Arg::Int(most), Arg::Value(zones)] => Some(
            (|| {
                let from = g.zone_arg(from.zone().ok_or("count_within: expected a zone")?)?;
                match zones.read_lock::<Array>() {
                    Some(zones) => count_within(g, from, most, &zones),
                    None => fail(format!("count_within: expected a list of zone names, not {zones}")),
                }
            })()
            .map(Dynamic::from_int),
        ),
        _ => None,
    });
    engine.register_fn("influence", |g: &mut GameApi, sources: Array| -> RhaiResult<Map> {
        // Each source adds to the zones it reaches: work in the number of zones.
        g.charge(sources.len().saturating_mul(g.defs.zone_names.len()))?;
        let walk = || g.charge(g.defs.edges.len().saturating_mul(g.defs.zone_names.len()));
        graph_influence(&g.defs, &g.names, &sources, |name| g.zone(name), walk)
    });
    engine.register_fn("distances", |g: &mut GameApi, from: &str, most: i64| -> RhaiResult<Map> {
        g.charge(g.defs.edges.len().saturating_mul(g.defs.zone_names.len()))?;
        graph_distances(&g.defs, &g.names, g.zone(from)?, most, false)
    });
    engine.register_fn("distances_to", |g: &mut GameApi, to: &str, most: i64| -> RhaiResult<Map> {
        g.charge(g.defs.edges.len().saturating_mul(g.defs.zone_names.len()))?;
        graph_distances(&g.defs, &g.names, g.zone(to)?, most, true)
    });
}

/// `step_rule(rule)`: the rule of `steps` read from a script's map.
fn step_rule(g: &GameApi, rule: &Map) -> RhaiResult<StepRule> {
    StepRule::new(&g.defs, rule, &|name| g.zone(name).ok())
}

/// `steps(zone, rule)`: the spaces one step from `zone` the rule lets a piece reach (see
/// `script/steps.rs`).
fn step_from(g: &GameApi, z: ZoneId, rule: &StepRule) -> RhaiResult<Array> {
    g.charge(g.defs.edges.len())?;
    Ok(steps(&g.defs, z, rule, |to| g.read(Read::Zone(to))))
}

/// `distance(from, to)`, the walk to `to` charged as `distances` charges its walk.
fn distance(g: &GameApi, from: ZoneId, to: ZoneId) -> RhaiResult<Dynamic> {
    graph_distance(&g.defs, &g.names, from, to, || g.charge(g.defs.edges.len().saturating_mul(g.defs.zone_names.len())))
}

/// `count_within(from, most, zones)`, the walk from `from` charged as `distances` charges its
/// walk.
fn count_within(g: &GameApi, from: ZoneId, most: i64, zones: &Array) -> RhaiResult<i64> {
    let charge = || g.charge(g.defs.edges.len().saturating_mul(g.defs.zone_names.len()));
    graph_count_within(&g.defs, &g.names, from, most, zones, |name| g.zone(name), charge)
}

/// `add(counter, delta)`: the counter moved by `delta` (within its range); its new value.
fn add(g: &GameApi, c: CounterId, delta: i64) -> i64 {
    let mut s = g.state_mut();
    let v = s.counter(c).saturating_add(delta);
    s.set_counter(&g.defs, c, v)
}

/// `top(zone)`: the zone's top piece, or `()`.
fn top(g: &GameApi, z: ZoneId) -> Dynamic {
    g.read(Read::Zone(z)).top(&g.defs, z).map(|p| Dynamic::from_int(i64::from(p))).unwrap_or(Dynamic::UNIT)
}

/// `zone_of(piece)`: the name of the zone the piece lies in.
fn zone_of(g: &GameApi, piece: i64) -> RhaiResult<ImmutableString> {
    let p = g.piece(piece)?;
    Ok(g.defs.zone_names[g.read(Read::ZoneOf(p)).zone_of(p) as usize].clone())
}

/// `move_all(from, to)`: moves every piece, keeping their order; returns how many moved.
fn move_all(g: &GameApi, from: ZoneId, to: ZoneId) -> i64 {
    g.in_zone_mut(from, |s, pieces| {
        for &p in pieces.iter().rev() {
            s.move_piece(&g.defs, p, to);
        }
        pieces.len() as i64
    })
}

/// `prop(piece, name)`: a property's value.
fn prop(g: &GameApi, piece: i64, name: &ImmutableString) -> RhaiResult<Dynamic> {
    let p = g.piece(piece)?;
    let Some((slot, def)) = g.names.prop(&g.defs, p, name) else {
        return fail(format!("{} has no property `{name}`", g.defs.pieces[p as usize].name));
    };
    Ok(prop_dynamic(&g.defs, &def.kind, g.read(Read::Prop(slot as u32)).prop(slot)))
}

/// `set_prop(piece, name, value)`: sets a property to a word of its list, an integer in its
/// range, or a piece of its kind (`()` for none). A name the compiled code kept (a literal) is
/// `kept` besides, and looked up by the string that carries it (`names.rs`), not by its text.
fn set_prop(g: &GameApi, piece: i64, name: &str, kept: Option<&ImmutableString>, value: &Dynamic) -> RhaiResult<()> {
    let p = g.piece(piece)?;
    let found = match kept {
        Some(kept) => g.names.prop(&g.defs, p, kept),
        None => g.defs.prop_ref(p, name),
    };
    let Some((slot, def)) = found else {
        return fail(format!("{} has no property `{name}`", g.defs.pieces[p as usize].name));
    };
    let encoded = match &def.kind {
        PropKind::Word(_) => match value.as_immutable_string_ref().ok().and_then(|t| g.defs.symbol(&t)) {
            Some(s) => i64::from(s),
            None => return fail(format!("{}.{name} takes a word, not {value}", g.defs.pieces[p as usize].name)),
        },
        PropKind::Int(..) => value
            .as_int()
            .map_err(|_| format!("{}.{name} takes an integer, not {value}", g.defs.pieces[p as usize].name))?,
        PropKind::Piece(_) if value.is_unit() => -1,
        PropKind::Piece(_) => value
            .as_int()
            .map_err(|_| format!("{}.{name} takes a piece id, not {value}", g.defs.pieces[p as usize].name))?,
    };
    let mut s = g.state_mut();
    g.defs.check_prop_value(p, name, def, encoded)?;
    s.set_prop_at(p, slot, encoded);
    Ok(())
}

/// `raise(piece, prop, delta)`: adds `delta` to an integer property, stopping at the ends of its
/// range; returns the value set.
fn raise(g: &GameApi, piece: i64, prop: &ImmutableString, delta: i64) -> RhaiResult<i64> {
    let p = g.piece(piece)?;
    let Some((slot, PropDef { kind: PropKind::Int(lo, hi), .. })) = g.names.prop(&g.defs, p, prop) else {
        return fail(format!("{} has no integer property `{prop}`", g.defs.pieces[p as usize].name));
    };
    let mut s = g.state_mut();
    let value = s.prop(slot).saturating_add(delta).clamp(*lo, *hi);
    s.set_prop_at(p, slot, value);
    Ok(value)
}

/// `count_where(zone, filter)`: how many pieces of the zone match.
fn count_where(g: &GameApi, zone: ZoneArg, filter: FilterArg) -> RhaiResult<i64> {
    g.scan()?;
    let z = g.zone_arg(zone)?;
    let f = filter.resolve(&g.defs)?;
    let s = g.read(Read::Zone(z));
    Ok(s.pieces_in_any_order(z).filter(|&p| f.matches(&g.defs, &s, p)).count() as i64)
}

/// `pieces_where(zone, filter)`: the pieces of the zone that match, in the zone's order.
fn pieces_where(g: &GameApi, zone: ZoneArg, filter: FilterArg) -> RhaiResult<Array> {
    g.scan()?;
    let z = g.zone_arg(zone)?;
    let f = filter.resolve(&g.defs)?;
    Ok(g.in_zone(z, |s, pieces| {
        pieces.retain(|&p| f.matches(&g.defs, s, p));
        piece_array(pieces)
    }))
}

/// `move_where(from, filter, to)`: moves the pieces that match, keeping their order (the last
/// listed moves first, so the first listed ends on top); returns how many moved.
fn move_where(g: &GameApi, from: ZoneArg, filter: FilterArg, to: ZoneArg) -> RhaiResult<i64> {
    g.scan()?;
    let (from, to) = (g.zone_arg(from)?, g.zone_arg(to)?);
    let f = filter.resolve(&g.defs)?;
    Ok(g.in_zone_mut(from, |s, pieces| {
        pieces.retain(|&p| f.matches(&g.defs, s, p));
        for &p in pieces.iter().rev() {
            s.move_piece(&g.defs, p, to);
        }
        pieces.len() as i64
    }))
}

/// `reveal(zone)`: turns every piece of the zone face up.
fn reveal(g: &GameApi, zone: ZoneId) {
    g.in_zone_mut(zone, |s, pieces| {
        for &p in pieces.iter() {
            s.turn(p, true);
        }
    });
}

/// Piece ids as the array a script receives.
fn piece_array(pieces: &[PieceId]) -> Array {
    pieces.iter().map(|&p| Dynamic::from_int(i64::from(p))).collect()
}

/// `sum_where(zone, prop, filter)`: the total of `prop` over the pieces that match.
fn sum_where(g: &GameApi, zone: ZoneArg, prop: &str, filter: FilterArg) -> RhaiResult<i64> {
    let z = g.zone_arg(zone)?;
    let f = filter.resolve(&g.defs)?;
    g.in_zone(z, |s, pieces| {
        let mut total = 0i64;
        for &p in pieces.iter() {
            if f.matches(&g.defs, s, p) {
                match g.defs.prop_slot(p, prop) {
                    Some(slot) => total = total.saturating_add(s.prop(slot)),
                    None => return fail(format!("{} has no property `{prop}`", g.defs.pieces[p as usize].name)),
                }
            }
        }
        Ok(total)
    })
}

fn ask(g: &mut GameApi, seat: &str, action: &str, fixed: &Map) -> RhaiResult<()> {
    // A prompt is kept until it is answered: a hook opening them in a loop fills memory.
    g.charge(PROMPT_WORK)?;
    let defs = &g.defs;
    let Some(seat_id) = defs.seat(seat) else { return fail(format!("no seat named `{seat}`")) };
    let players = g.state().players;
    if !defs.seat_in_play(seat_id, players) {
        return fail(format!("ask: `{seat}` does not take part in a game of {players} players"));
    }
    let Some(action_id) = defs.action(action) else { return fail(format!("no action named `{action}`")) };
    let def = &defs.actions[action_id as usize];
    let mut args = crate::value::Fixed::filled(None, def.params.len()).unwrap_or_default();
    for (key, value) in fixed {
        let Some(i) = def.params.iter().position(|p| p.name == key.as_str()) else {
            return fail(format!("action `{action}` has no parameter `{key}`"));
        };
        args[i] =
            Some(to_value(defs, &def.params[i].domain, value).map_err(|e| format!("ask {action}: {}: {e}", key))?);
    }
    let mut s = g.state_mut();
    let group = s.next_group;
    s.next_group += 1;
    s.prompts.push_back(Prompt { seat: seat_id, action: action_id, fixed: args, group, while_hook: None });
    s.changes += 1;
    Ok(())
}

/// `rules_seats()`: the seats the rules move (`played_by = "rules"`) that take part in a game
/// of `players` players, in declaration order.
pub(super) fn rules_seats(defs: &Defs, players: u8) -> Array {
    (0..defs.seats.len() as crate::rules::defs::SeatId)
        .filter(|&s| defs.seats[s as usize].by_rules && defs.seat_in_play(s, players))
        .map(|s| Dynamic::from(defs.seat_names[s as usize].clone()))
        .collect()
}

/// Tells `seats` (a mask) a line of narration. Its length counts as work, as a note's does.
fn say(g: &mut GameApi, seats: u32, text: &str) -> RhaiResult<()> {
    g.charge(text.len())?;
    g.state_mut().emit(Event::Said { seats, text: text.to_string() });
    Ok(())
}

/// The mask of the seats named in a script's list (`["red", "blue"]`).
fn seat_mask(defs: &Defs, names: &[Dynamic]) -> RhaiResult<u32> {
    let mut mask = 0u32;
    for name in names {
        let Some(text) = name.clone().try_cast::<ImmutableString>() else {
            return fail(format!("say: expected seat names, found {}", name.type_name()));
        };
        let Some(seat) = defs.seat(&text) else {
            let known = defs.seats.iter().map(|s| s.name.as_str());
            return fail(format!("say: no seat named `{text}`{}", crate::diag::did_you_mean(&text, known)));
        };
        mask |= 1u32 << seat;
    }
    Ok(mask)
}

/// `param(name, key)`: the entry `key` of a table parameter (`()` where the table has no such
/// key, as `game.param(name)[key]` gives), or item `key` of a list parameter.
pub(super) fn param_entry(defs: &Defs, name: &str, key: &Dynamic) -> RhaiResult<Dynamic> {
    let Some(value) = defs.param_values.get(name) else { return fail(format!("no parameter named `{name}`")) };
    if let Some(table) = value.read_lock::<Map>() {
        return match key.read_lock::<ImmutableString>() {
            Some(k) => Ok(table.get(k.as_str()).cloned().unwrap_or(Dynamic::UNIT)),
            None => fail(format!("parameter `{name}` is a table: its keys are strings, not {key}")),
        };
    }
    if let Some(list) = value.read_lock::<Array>() {
        return match key.as_int().ok().and_then(|i| usize::try_from(i).ok()).and_then(|i| list.get(i)) {
            Some(item) => Ok(item.clone()),
            None => fail(format!("parameter `{name}` is a list of {} items: no item {key}", list.len())),
        };
    }
    fail(format!("parameter `{name}` is neither a table nor a list: read it with param(\"{name}\")"))
}
