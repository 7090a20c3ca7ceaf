//! The `View` handle agents written in the scripts receive: the game as one seat may know it.

use std::cell::RefCell;
use std::rc::Rc;

use rhai::{Array, Dynamic, ImmutableString, Map};

use super::board::{
    Filter, FilterArg, filters, graph_count_within, graph_distance, graph_distances, graph_influence, link_names,
    linked, nearest, tally,
};
use super::game_api::{piece_named, prop_dynamic, team_of};
use super::grid::{Grid, Rule};
use super::names::Names;
use super::natives::{Arg, Param, Registry, ZoneArg, ZoneNames};
use super::reads::{self, Read};
use super::{RhaiResult, fail};
use crate::rules::defs::{CounterId, Defs, PieceId, SeatId, Sight, ZoneId};
use crate::state::State;

/// The handle agents written in the scripts receive as `view`: the game as one seat may know it.
/// Every method checks visibility (the rule of `view::sight`): pieces the seat cannot see are left
/// out of lists, and asking about one directly is an error.
#[derive(Clone)]
pub struct SeatView {
    pub(super) state: Rc<RefCell<Box<State>>>,
    pub(super) defs: Rc<Defs>,
    pub(super) seat: SeatId,
    /// Zone and counter names looked up lately.
    pub(super) names: Rc<Names>,
    /// A list of pieces the natives reuse (the same as the `Game` handle's).
    pub(super) scratch: Rc<std::cell::Cell<Vec<PieceId>>>,
}

impl SeatView {
    /// The state, to read, for a native that reads only `what` (see `reads.rs`: a remembered
    /// call is given back only while what it read is unchanged). What the seat may see of it
    /// depends on nothing else: a zone's sight and a counter's are part of the rules, and a
    /// piece's face is read with it (`Read::Zone`, `Read::FaceUp`).
    #[inline]
    fn read(&self, what: Read) -> std::cell::Ref<'_, Box<State>> {
        reads::note(what);
        self.state.borrow()
    }

    /// The state, to read, for a native that does not say what it reads: a call that runs it
    /// is not remembered (see `reads.rs`).
    fn state(&self) -> std::cell::Ref<'_, Box<State>> {
        reads::spoil();
        self.state.borrow()
    }

    fn zone(&self, name: &str) -> RhaiResult<ZoneId> {
        let found = self.names.zones.get(name).or_else(|| self.defs.zone(name));
        found.map_or_else(|| fail(format!("no zone named `{name}`")), Ok)
    }

    /// A piece the seat can see, or an error that does not say where it is.
    #[inline]
    fn seen(&self, id: i64) -> RhaiResult<PieceId> {
        if (0..self.defs.pieces.len() as i64).contains(&id) {
            let p = id as PieceId;
            // Whether it is seen depends on its face and its zone; its zone is read too.
            reads::note(Read::FaceUp(p));
            let s = self.read(Read::ZoneOf(p));
            if crate::view::sight::visible(&self.defs, &s, Some(self.seat), s.zone_of(p), p) {
                return Ok(p);
            }
        }
        fail(format!("{id} is not a piece this seat can see"))
    }

    /// The pieces of `zone` this seat sees that `keep` accepts, in the zone's order, as the
    /// array a script receives (listed in the scratch list the natives share).
    fn visible_in(&self, zone: ZoneId, keep: impl Fn(&State, PieceId) -> bool) -> Array {
        let mut list = self.scratch.take();
        let s = self.read(Read::Zone(zone));
        s.pieces_in_into(&self.defs, zone, &mut list);
        list.retain(|&p| crate::view::sight::visible(&self.defs, &s, Some(self.seat), zone, p) && keep(&s, p));
        let seen = list.iter().map(|&p| Dynamic::from_int(i64::from(p))).collect();
        drop(s);
        self.scratch.set(list);
        seen
    }
}

impl ZoneNames for SeatView {
    /// [`SeatView::zone`] for a script's string, which is remembered (see `names.rs`).
    fn zone_named(&self, name: &ImmutableString) -> RhaiResult<ZoneId> {
        let found = self.names.zones.find(name, |n| self.defs.zone(n));
        found.map_or_else(|| fail(format!("no zone named `{name}`")), Ok)
    }
}

/// `view.pieces_where(zone, filter)`: the pieces of the zone the seat sees that match, as the
/// seat knows them.
fn pieces_where(v: &SeatView, zone: ZoneArg, filter: FilterArg) -> RhaiResult<Array> {
    let z = v.zone_arg(zone)?;
    let f = filter.resolve(&v.defs)?;
    Ok(v.visible_in(z, |s, p| f.matches_as(&v.defs, s, p, Some(v.seat))))
}

/// `view.count_where(zone, filter)`: how many pieces of the zone the seat sees match, as the
/// seat knows them.
fn count_where(v: &SeatView, zone: ZoneArg, filter: FilterArg) -> RhaiResult<i64> {
    let z = v.zone_arg(zone)?;
    let f = filter.resolve(&v.defs)?;
    let s = v.read(Read::Zone(z));
    let seen = |&p: &PieceId| crate::view::sight::visible(&v.defs, &s, Some(v.seat), z, p);
    Ok(s.pieces_in_any_order(z).filter(seen).filter(|&p| f.matches_as(&v.defs, &s, p, Some(v.seat))).count() as i64)
}

/// `view.counter(name)`: a counter's value, if it is shown to the seat.
fn counter(v: &SeatView, c: CounterId) -> RhaiResult<i64> {
    let def = &v.defs.counters[c as usize];
    if !crate::view::sight::counter_shown(def, Some(v.seat)) {
        return fail(format!("counter `{}` is not shown to this seat", def.name));
    }
    Ok(v.read(Read::Counter(c)).counter(c))
}

/// `view.counter(name)` for a name given as a string, which is remembered (see `names.rs`).
fn counter_named(v: &SeatView, name: &ImmutableString) -> RhaiResult<i64> {
    let Some(c) = v.names.counters.find(name, |n| v.defs.counter(n)) else {
        return fail(format!("no counter named `{name}`"));
    };
    counter(v, c)
}

/// `view.count(zone)`: how many pieces of the zone the seat sees.
fn count(v: &SeatView, z: ZoneId) -> i64 {
    match v.defs.zones[z as usize].sight(v.seat) {
        Sight::None => {
            let s = v.read(Read::Zone(z));
            let seen = |&p: &PieceId| crate::view::sight::visible(&v.defs, &s, Some(v.seat), z, p);
            s.pieces_in_any_order(z).filter(seen).count() as i64
        }
        _ => i64::from(v.read(Read::Zone(z)).count(z)),
    }
}

/// `view.zone_of(piece)`: the name of the zone a piece the seat sees lies in.
fn zone_of(v: &SeatView, piece: i64) -> RhaiResult<ImmutableString> {
    let p = v.seen(piece)?;
    // (`seen` read where it lies.)
    Ok(v.defs.zone_names[v.state.borrow().zone_of(p) as usize].clone())
}

/// `view.prop(piece, name)`: a property of a piece the seat sees, as the seat knows it.
fn prop(v: &SeatView, piece: i64, name: &ImmutableString) -> RhaiResult<Dynamic> {
    let p = v.seen(piece)?;
    let Some((slot, def)) = v.names.prop(&v.defs, p, name) else {
        return fail(format!("{} has no property `{name}`", v.defs.pieces[p as usize].name));
    };
    let state = v.read(Read::Prop(slot as u32));
    let value = state.prop(slot);
    // A reference to a piece this seat cannot see would name it: the agent gets "?".
    let index = slot - v.defs.pieces[p as usize].prop_base;
    if !super::board::prop_shown(&v.defs, &state, Some(v.seat), p, index, value) {
        return Ok(Dynamic::from(crate::view::sight::MASKED));
    }
    Ok(prop_dynamic(&v.defs, &def.kind, value))
}

/// Registers the `View` handle and its natives.
pub(super) fn register(engine: &mut Registry) {
    engine.register_type_with_name::<SeatView>("View");
    engine.register_fn("seat", |v: &mut SeatView| v.defs.seat_names[v.seat as usize].clone());
    engine.register_fn("players", |v: &mut SeatView| i64::from(v.read(Read::Players).players));
    engine.register_fn("rules_seats", |v: &mut SeatView| -> Array {
        super::game_api::rules_seats(&v.defs, v.read(Read::Players).players)
    });
    engine.register_fn("team", |v: &mut SeatView, seat: &str| -> RhaiResult<Dynamic> { team_of(&v.defs, seat) });
    engine.register_fn("seats", |v: &mut SeatView| -> Array {
        let n = v.read(Read::Players).players as usize;
        v.defs.seat_names.iter().take(n).cloned().map(Dynamic::from).collect()
    });
    engine.register_fn("clock", |v: &mut SeatView| v.read(Read::Clock).clock);
    // The action the seat is asked for by a pending prompt (`"give"`), or `()`.
    engine.register_fn("prompt", |v: &mut SeatView| -> Dynamic {
        let s = v.state();
        match s.prompt_for(&v.defs, v.seat) {
            Some((_, p)) => Dynamic::from(v.defs.actions[p.action as usize].name.clone()),
            None => Dynamic::UNIT,
        }
    });
    // Whether the seat is offered a chance out of turn (its options are the phase's
    // `out_of_turn` actions, and it may let the game go on).
    engine.register_fn("out_of_turn", |v: &mut SeatView| v.state().may_act_out_of_turn(&v.defs, v.seat));
    engine.register_fn("phase", |v: &mut SeatView| v.defs.phase_names[v.read(Read::Phase).phase as usize].clone());
    // The hot natives have direct forms too, as the `Game` handle's (see `natives::DirectForm`).
    engine.register_fn("counter", |v: &mut SeatView, name: ImmutableString| -> RhaiResult<i64> {
        counter_named(v, &name)
    });
    engine.register_direct("counter", &[Param::Counter], |v: &SeatView, args| match args {
        [Arg::Id(c)] => Some(counter(v, *c).map(Dynamic::from_int)),
        [Arg::Text(name)] => Some(counter_named(v, name).map(Dynamic::from_int)),
        _ => None,
    });
    engine.register_fn("pieces", |v: &mut SeatView, zone: ImmutableString| -> RhaiResult<Array> {
        let z = v.zone_named(&zone)?;
        Ok(v.visible_in(z, |_, _| true))
    });
    engine.register_fn("count", |v: &mut SeatView, zone: ImmutableString| -> RhaiResult<i64> {
        let z = v.zone_named(&zone)?;
        Ok(count(v, z))
    });
    engine.register_direct("count", &[Param::Zone], |v: &SeatView, args| match *args {
        [zone] => Some(v.zone_arg(zone.zone()?).map(|z| Dynamic::from_int(count(v, z)))),
        _ => None,
    });
    engine.register_fn("zone_of", |v: &mut SeatView, piece: i64| -> RhaiResult<ImmutableString> { zone_of(v, piece) });
    engine.register_direct("zone_of", &[Param::Int], |v: &SeatView, args| match args {
        [Arg::Int(piece)] => Some(zone_of(v, *piece).map(Dynamic::from)),
        _ => None,
    });
    engine.register_fn("name", |v: &mut SeatView, piece: i64| -> RhaiResult<ImmutableString> {
        let p = v.seen(piece)?;
        Ok(v.defs.piece_names[p as usize].clone())
    });
    engine.register_fn("kind", |v: &mut SeatView, piece: i64| -> RhaiResult<ImmutableString> {
        let p = v.seen(piece)?;
        Ok(v.defs.kind_names[v.defs.pieces[p as usize].kind as usize].clone())
    });
    engine.register_fn("piece", |v: &mut SeatView, name: &str| -> RhaiResult<i64> {
        piece_named(&v.defs, name).and_then(|p| v.seen(p)).map(i64::from)
    });
    engine.register_direct("piece", &[Param::Piece], |v: &SeatView, args| {
        let p = match args {
            [Arg::Id(p)] => Ok(i64::from(*p)),
            [Arg::Text(name)] => piece_named(&v.defs, name),
            _ => return None,
        };
        Some(p.and_then(|p| v.seen(p)).map(|p| Dynamic::from_int(i64::from(p))))
    });
    engine.register_fn("prop", |v: &mut SeatView, piece: i64, name: ImmutableString| -> RhaiResult<Dynamic> {
        prop(v, piece, &name)
    });
    engine.register_direct("prop", &[Param::Int, Param::Text], |v: &SeatView, args| match args {
        [Arg::Int(piece), Arg::Text(name)] => Some(prop(v, *piece, name)),
        _ => None,
    });
    engine.register_zone_filter_fn("pieces_where", pieces_where);
    engine.register_zone_filter_fn("count_where", count_where);
    engine.register_fn("tally", |v: &mut SeatView, zone: &str, prop: &str| -> RhaiResult<Map> {
        let z = v.zone(zone)?;
        Ok(tally(&v.defs, &v.read(Read::Zone(z)), z, prop, Some(v.seat)))
    });
    engine.register_fn("nearest", |v: &mut SeatView, from: i64, links: Array, goal: Map| -> RhaiResult<Dynamic> {
        let p = v.seen(from)?;
        let goals = [Filter::new(&v.defs, &goal)?.seen_by(v.seat)];
        Ok(nearest(&v.defs, &v.state(), p, &link_names(&links)?, &goals, Some(v.seat), false))
    });
    engine.register_fn("nearest", |v: &mut SeatView, from: i64, links: Array, goals: Array| -> RhaiResult<Dynamic> {
        let p = v.seen(from)?;
        let goals: Vec<Filter> = filters(&v.defs, &goals)?.into_iter().map(|f| f.seen_by(v.seat)).collect();
        Ok(nearest(&v.defs, &v.state(), p, &link_names(&links)?, &goals, Some(v.seat), false))
    });
    engine.register_fn("linked", |v: &mut SeatView, from: i64, links: Array| -> RhaiResult<Array> {
        let p = v.seen(from)?;
        linked(&v.defs, &v.state(), p, &link_names(&links)?, Some(v.seat))
    });
    // Square grids of pieces (see `grid`): only the pieces this seat can see are on its grid.
    engine.register_fn("cell", |v: &mut SeatView, zone: &str, x: i64, y: i64| -> RhaiResult<Dynamic> {
        let z = v.zone(zone)?;
        let found = super::grid::cell(&v.defs, &v.state(), z, Some(v.seat), x, y);
        Ok(found.map_or(Dynamic::UNIT, |p| Dynamic::from_int(i64::from(p))))
    });
    engine.register_fn("fits", |v: &mut SeatView, zone: &str, x: i64, y: i64, rule: Map| -> RhaiResult<bool> {
        let z = v.zone(zone)?;
        let rule = Rule::new(&v.defs, &rule, Some(v.seat))?;
        let s = v.state();
        Ok(Grid::of(&v.defs, &s, z, Some(v.seat), None).fits(&v.defs, &s, x, y, &rule))
    });
    engine.register_fn("free_cells", |v: &mut SeatView, zone: &str, rule: Map| -> RhaiResult<Array> {
        let z = v.zone(zone)?;
        let rule = Rule::new(&v.defs, &rule, Some(v.seat))?;
        let s = v.state();
        Grid::of(&v.defs, &s, z, Some(v.seat), None).free_cells(&v.defs, &s, &rule)
    });
    // The board graph is printed on the board: every seat may read it.
    engine.register_fn("distances", |v: &mut SeatView, from: &str, most: i64| -> RhaiResult<Map> {
        graph_distances(&v.defs, &v.names, v.zone(from)?, most, false)
    });
    engine.register_fn("distances_to", |v: &mut SeatView, to: &str, most: i64| -> RhaiResult<Map> {
        graph_distances(&v.defs, &v.names, v.zone(to)?, most, true)
    });
    engine.register_fn("distance", |v: &mut SeatView, from: &str, to: &str| -> RhaiResult<Dynamic> {
        graph_distance(&v.defs, &v.names, v.zone(from)?, v.zone(to)?, || Ok(()))
    });
    // Asked in loops (how far each piece of a kind is from a space): the direct form takes the
    // names as they are, found by their strings.
    engine.register_direct("distance", &[Param::Zone, Param::Zone], |v: &SeatView, args| match *args {
        [from, to] => Some((|| {
            let from = v.zone_arg(from.zone().ok_or("distance: expected a zone")?)?;
            graph_distance(&v.defs, &v.names, from, v.zone_arg(to.zone().ok_or("distance: expected a zone")?)?, || {
                Ok(())
            })
        })()),
        _ => None,
    });
    engine.register_fn("influence", |v: &mut SeatView, sources: Array| -> RhaiResult<Map> {
        graph_influence(&v.defs, &v.names, &sources, |name| v.zone(name), || Ok(()))
    });
    engine.register_fn("count_within", |v: &mut SeatView, from: &str, most: i64, zones: Array| -> RhaiResult<i64> {
        graph_count_within(&v.defs, &v.names, v.zone(from)?, most, &zones, |name| v.zone(name), || Ok(()))
    });
    engine.register_direct(
        "count_within",
        &[Param::Zone, Param::Int, Param::Value],
        |v: &SeatView, args| match *args {
            [from, Arg::Int(most), Arg::Value(zones)] => Some(
                (|| {
                    let from = v.zone_arg(from.zone().ok_or("count_within: expected a zone")?)?;
                    match zones.read_lock::<Array>() {
                        Some(zones) => {
                            graph_count_within(&v.defs, &v.names, from, most, &zones, |name| v.zone(name), || Ok(()))
                        }
                        None => Err(format!("count_within: expected a list of zone names, not {zones}").into()),
                    }
                })()
                .map(Dynamic::from_int),
            ),
            _ => None,
        },
    );
    // Pure functions of what the agent gives: they read nothing of the game.
    engine.register_fn("rank", |_: &mut SeatView, keys: Map| super::ranking::rank(&keys));
    engine.register_fn("crossings", |_: &mut SeatView, before: i64, after: i64, lines: Array| {
        super::ranking::crossings(before, after, &lines)
    });
    engine.register_fn("param", |v: &mut SeatView, name: &str| -> RhaiResult<Dynamic> {
        v.defs.param_values.get(name).cloned().map_or_else(|| fail(format!("no parameter named `{name}`")), Ok)
    });
    engine.register_fn("param", |v: &mut SeatView, name: &str, key: Dynamic| -> RhaiResult<Dynamic> {
        super::game_api::param_entry(&v.defs, name, &key)
    });
}
