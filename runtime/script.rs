//! The Rhai bridge: compiles a ruleset's scripts once and runs its hooks against a game state.
//!
//! Scripts see the game only through the `Game` handle registered here; every method checks its
//! arguments and changes state through `State`'s methods, which keep the invariants and record
//! events. While a hook runs, the state is moved into a cell the handle shares (a swap, not a
//! copy) and moved back afterwards. Scripts run under operation, depth and size limits, so a
//! runaway script is an error rather than a hang.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use rhai::{AST, Array, CallFnOptions, Dynamic, Engine, EvalAltResult, ImmutableString, Map, Position, Scope};

use crate::diag::{Diagnostic, Error, FileId};
use crate::event::Event;
use crate::rules::{Defs, Domain, HookId, PieceId, PropKind, SeatId, Sight, ZoneId};
use crate::state::{Action, Prompt, State, Value};

/// Most operations one hook call may perform before it is stopped as a runaway.
pub const MAX_OPERATIONS: u64 = 2_000_000;

/// How deep script functions may call each other (an endless recursion stops here, long
/// before the native stack runs out).
pub const MAX_CALL_LEVELS: usize = 64;

/// The longest string, and the most elements an array or map may hold, in a script (counted
/// through nesting: an array of strings holds their characters too).
pub const MAX_DATA_SIZE: usize = 10_000;

type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// The most work one hook call may make the engine do on its behalf, in pieces looked at (and
/// bytes of notes written, prompts opened). A single operation of the script can ask the engine
/// to walk every piece (`game.pieces`, `game.shuffle`, ...), so the operation limit alone would
/// let a loop of such calls run for an hour, or record gigabytes of events. The shipped rulesets
/// need at most a few thousand in any hook call (measured over their simulations).
pub const MAX_ENGINE_WORK: u64 = 2_000_000;

/// What opening a prompt counts for in `MAX_ENGINE_WORK` (prompts are kept until answered):
/// a hook may open 10,000.
const PROMPT_WORK: usize = 200;

/// The handle scripts receive as `game`.
#[derive(Clone)]
pub struct GameApi {
    state: Rc<RefCell<State>>,
    defs: Rc<Defs>,
    /// Work done for the running hook so far (see `MAX_ENGINE_WORK`).
    work: Rc<Cell<u64>>,
}

/// The handle agents written in the scripts receive as `view`: the game as one seat may know it.
/// Every method checks visibility (the rule of `view.rs`): pieces the seat cannot see are left
/// out of lists, and asking about one directly is an error.
#[derive(Clone)]
pub struct SeatView {
    state: Rc<RefCell<State>>,
    defs: Rc<Defs>,
    seat: SeatId,
}

impl SeatView {
    fn zone(&self, name: &str) -> RhaiResult<ZoneId> {
        self.defs.zone(name).map_or_else(|| fail(format!("no zone named `{name}`")), Ok)
    }

    /// A piece the seat can see, or an error that does not say where it is.
    fn seen(&self, id: i64) -> RhaiResult<PieceId> {
        let s = self.state.borrow();
        if (0..self.defs.pieces.len() as i64).contains(&id) {
            let p = id as PieceId;
            if crate::view::visible(&self.defs, &s, Some(self.seat), s.zone_of(p), p) {
                return Ok(p);
            }
        }
        fail(format!("{id} is not a piece this seat can see"))
    }

    fn visible_in(&self, zone: ZoneId) -> Vec<PieceId> {
        let s = self.state.borrow();
        s.pieces_in(&self.defs, zone)
            .into_iter()
            .filter(|&p| crate::view::visible(&self.defs, &s, Some(self.seat), zone, p))
            .collect()
    }
}

/// Helpers on plain script values, for agents reading their options.
fn register_helpers(engine: &mut Engine) {
    // The index of the first map in `list` that has every key of `pattern` with its value, or
    // -1: `options.index_matching(#{ action: "move", to: "hall" })`.
    engine.register_fn("index_matching", |list: &mut Array, pattern: Map| -> i64 {
        let matches = |item: &Dynamic| {
            item.read_lock::<Map>().is_some_and(|m| {
                pattern.iter().all(|(k, want)| m.get(k.as_str()).is_some_and(|have| same_value(have, want)))
            })
        };
        list.iter().position(matches).map_or(-1, |i| i as i64)
    });

    // `list.contains(x)`, `x in list` and `list.index_of(x)` for numbers and words, compared
    // here. Rhai's own versions call the `==` operator once per element through a fresh call
    // context, which costs about a microsecond each (measured); they stay in use for other kinds.
    engine.register_fn("contains", |list: &mut Array, x: i64| list.iter().any(|item| item.as_int() == Ok(x)));
    engine.register_fn("contains", |list: &mut Array, x: ImmutableString| list.iter().any(|item| is_word(item, &x)));
    engine.register_fn("index_of", |list: &mut Array, x: i64| {
        list.iter().position(|item| item.as_int() == Ok(x)).map_or(-1, |i| i as i64)
    });
    engine.register_fn("index_of", |list: &mut Array, x: ImmutableString| {
        list.iter().position(|item| is_word(item, &x)).map_or(-1, |i| i as i64)
    });
}

/// Whether a script value is the string `word`.
fn is_word(item: &Dynamic, word: &str) -> bool {
    item.read_lock::<ImmutableString>().is_some_and(|s| s.as_str() == word)
}

/// Whether two script values are equal (integers, strings, booleans; other kinds never match).
fn same_value(a: &Dynamic, b: &Dynamic) -> bool {
    if let (Ok(x), Ok(y)) = (a.as_int(), b.as_int()) {
        return x == y;
    }
    if let (Ok(x), Ok(y)) = (a.as_bool(), b.as_bool()) {
        return x == y;
    }
    match (a.read_lock::<ImmutableString>(), b.read_lock::<ImmutableString>()) {
        (Some(x), Some(y)) => *x == *y,
        _ => false,
    }
}

fn register_view(engine: &mut Engine) {
    engine.register_type_with_name::<SeatView>("View");
    engine.register_fn("seat", |v: &mut SeatView| v.defs.seat_names[v.seat as usize].clone());
    engine.register_fn("players", |v: &mut SeatView| i64::from(v.state.borrow().players));
    engine.register_fn("team", |v: &mut SeatView, seat: &str| -> RhaiResult<Dynamic> { team_of(&v.defs, seat) });
    engine.register_fn("seats", |v: &mut SeatView| -> Array {
        let n = v.state.borrow().players as usize;
        v.defs.seat_names.iter().take(n).cloned().map(Dynamic::from).collect()
    });
    engine.register_fn("clock", |v: &mut SeatView| v.state.borrow().clock);
    // The action the seat is asked for by a pending prompt (`"give"`), or `()`.
    engine.register_fn("prompt", |v: &mut SeatView| -> Dynamic {
        let s = v.state.borrow();
        match s.prompts.front() {
            Some(p) if p.seat == v.seat => Dynamic::from(v.defs.actions[p.action as usize].name.clone()),
            _ => Dynamic::UNIT,
        }
    });
    engine.register_fn("phase", |v: &mut SeatView| v.defs.phase_names[v.state.borrow().phase as usize].clone());
    engine.register_fn("counter", |v: &mut SeatView, name: &str| -> RhaiResult<i64> {
        let Some(c) = v.defs.counter(name) else { return fail(format!("no counter named `{name}`")) };
        let def = &v.defs.counters[c as usize];
        let shown = match def.visible {
            crate::rules::CounterSight::All => true,
            crate::rules::CounterSight::Owner => def.owner == Some(v.seat),
            crate::rules::CounterSight::None => false,
        };
        if !shown {
            return fail(format!("counter `{name}` is not shown to this seat"));
        }
        Ok(v.state.borrow().counter(c))
    });
    engine.register_fn("pieces", |v: &mut SeatView, zone: &str| -> RhaiResult<Array> {
        let z = v.zone(zone)?;
        Ok(v.visible_in(z).into_iter().map(|p| Dynamic::from_int(i64::from(p))).collect())
    });
    engine.register_fn("count", |v: &mut SeatView, zone: &str| -> RhaiResult<i64> {
        let z = v.zone(zone)?;
        match v.defs.zones[z as usize].sight(v.seat) {
            Sight::None => Ok(v.visible_in(z).len() as i64),
            _ => Ok(i64::from(v.state.borrow().count(z))),
        }
    });
    engine.register_fn("zone_of", |v: &mut SeatView, piece: i64| -> RhaiResult<ImmutableString> {
        let p = v.seen(piece)?;
        Ok(v.defs.zone_names[v.state.borrow().zone_of(p) as usize].clone())
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
        let Some(p) = v.defs.piece(name) else { return fail(format!("no piece named `{name}`")) };
        v.seen(i64::from(p)).map(i64::from)
    });
    engine.register_fn("prop", |v: &mut SeatView, piece: i64, name: &str| -> RhaiResult<Dynamic> {
        let p = v.seen(piece)?;
        let Some((slot, def)) = v.defs.prop_ref(p, name) else {
            return fail(format!("{} has no property `{name}`", v.defs.pieces[p as usize].name));
        };
        let state = v.state.borrow();
        let value = state.prop(slot);
        // A reference to a piece this seat cannot see would name it: the agent gets "?".
        let index = slot - v.defs.pieces[p as usize].prop_base;
        if !crate::view::may_show_prop(&v.defs, &state, Some(v.seat), p, index, value) {
            return Ok(Dynamic::from(crate::log::MASKED));
        }
        Ok(prop_dynamic(&v.defs, &def.kind, value))
    });
    engine.register_fn("pieces_where", |v: &mut SeatView, zone: &str, filter: Map| -> RhaiResult<Array> {
        let z = v.zone(zone)?;
        let f = Filter::new(&v.defs, &filter)?.seen_by(v.seat);
        let s = v.state.borrow();
        let seen = v.visible_in(z);
        Ok(seen.into_iter().filter(|&p| f.matches(&v.defs, &s, p)).map(|p| Dynamic::from_int(i64::from(p))).collect())
    });
    engine.register_fn("count_where", |v: &mut SeatView, zone: &str, filter: Map| -> RhaiResult<i64> {
        let z = v.zone(zone)?;
        let f = Filter::new(&v.defs, &filter)?.seen_by(v.seat);
        let s = v.state.borrow();
        let seen = |&p: &PieceId| crate::view::visible(&v.defs, &s, Some(v.seat), z, p);
        Ok(s.pieces_in_any_order(z).filter(seen).filter(|&p| f.matches(&v.defs, &s, p)).count() as i64)
    });
    engine.register_fn("tally", |v: &mut SeatView, zone: &str, prop: &str| -> RhaiResult<Map> {
        let z = v.zone(zone)?;
        Ok(tally(&v.defs, &v.state.borrow(), z, prop, Some(v.seat)))
    });
    engine.register_fn("nearest", |v: &mut SeatView, from: i64, links: Array, goal: Map| -> RhaiResult<Dynamic> {
        let p = v.seen(from)?;
        let goals = [Filter::new(&v.defs, &goal)?.seen_by(v.seat)];
        Ok(nearest(&v.defs, &v.state.borrow(), p, &link_names(&links)?, &goals, Some(v.seat)))
    });
    engine.register_fn("nearest", |v: &mut SeatView, from: i64, links: Array, goals: Array| -> RhaiResult<Dynamic> {
        let p = v.seen(from)?;
        let goals: Vec<Filter> = filters(&v.defs, &goals)?.into_iter().map(|f| f.seen_by(v.seat)).collect();
        Ok(nearest(&v.defs, &v.state.borrow(), p, &link_names(&links)?, &goals, Some(v.seat)))
    });
    engine.register_fn("linked", |v: &mut SeatView, from: i64, links: Array| -> RhaiResult<Array> {
        let p = v.seen(from)?;
        linked(&v.defs, &v.state.borrow(), p, &link_names(&links)?, Some(v.seat))
    });
    // The board graph is printed on the board: every seat may read it.
    engine.register_fn("distances", |v: &mut SeatView, from: &str, most: i64| -> RhaiResult<Map> {
        graph_distances(&v.defs, v.zone(from)?, most, false)
    });
    engine.register_fn("distances_to", |v: &mut SeatView, to: &str, most: i64| -> RhaiResult<Map> {
        graph_distances(&v.defs, v.zone(to)?, most, true)
    });
    engine.register_fn("param", |v: &mut SeatView, name: &str| -> RhaiResult<Dynamic> {
        v.defs.param_values.get(name).cloned().map_or_else(|| fail(format!("no parameter named `{name}`")), Ok)
    });
}

/// Compiled scripts of one ruleset and the engine that runs them.
pub(crate) struct Scripts {
    engine: Engine,
    ast: AST,
    cell: Rc<RefCell<State>>,
    defs: Rc<Defs>,
    /// Engine work done for the running hook (see `MAX_ENGINE_WORK`).
    work: Rc<Cell<u64>>,
    /// The file defining each script function, to name it in errors, and the byte offset of
    /// its definition there.
    fn_file: HashMap<String, (FileId, usize)>,
}

/// `game.goto(phase)` / `game.go_to(phase)`: leave the phase once the hook returns.
fn goto(g: &mut GameApi, phase: &str) -> RhaiResult<()> {
    match g.defs.phase(phase) {
        Some(p) => {
            g.state.borrow_mut().goto = Some(p);
            Ok(())
        }
        None => fail(format!("no phase named `{phase}`")),
    }
}

/// A seat's `team` (a string), or () if it has none.
fn team_of(defs: &Defs, seat: &str) -> RhaiResult<Dynamic> {
    match defs.seat(seat) {
        Some(s) => Ok(defs.seats[s as usize].team.clone().map_or(Dynamic::UNIT, Dynamic::from)),
        None => fail(format!("no seat named `{seat}`")),
    }
}

fn fail<T>(message: impl Into<String>) -> RhaiResult<T> {
    Err(message.into().into())
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

    fn zone(&self, name: &str) -> RhaiResult<ZoneId> {
        match self.defs.zone(name) {
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

    fn counter(&self, name: &str) -> RhaiResult<u16> {
        match self.defs.counter(name) {
            Some(c) => Ok(c),
            None => fail(format!("no counter named `{name}`")),
        }
    }
}

/// A property value as a script sees it: words as strings, pieces as ids (or `()`).
fn prop_dynamic(defs: &Defs, kind: &PropKind, value: i64) -> Dynamic {
    match kind {
        PropKind::Word(_) => defs.symbols.get(value as usize).cloned().map(Dynamic::from).unwrap_or(Dynamic::UNIT),
        PropKind::Int(..) => Dynamic::from_int(value),
        PropKind::Piece(_) if value < 0 => Dynamic::UNIT,
        PropKind::Piece(_) => Dynamic::from_int(value),
    }
}

/// Converts a script value into an action argument of the given domain.
pub(crate) fn to_value(defs: &Defs, domain: &Domain, v: &Dynamic) -> Result<Value, String> {
    let text = v.clone().into_immutable_string().ok();
    match domain {
        Domain::Piece(..) => match v.as_int() {
            Ok(id) if (0..defs.pieces.len() as i64).contains(&id) => Ok(Value::Piece(id as PieceId)),
            _ => text
                .and_then(|t| defs.piece(&t))
                .map(Value::Piece)
                .ok_or_else(|| format!("expected a piece, found {v}")),
        },
        Domain::Zone(_) => {
            text.and_then(|t| defs.zone(&t)).map(Value::Zone).ok_or_else(|| format!("expected a zone name, found {v}"))
        }
        Domain::Word(_) => {
            text.and_then(|t| defs.symbol(&t)).map(Value::Word).ok_or_else(|| format!("expected a word, found {v}"))
        }
        Domain::Int(..) => v.as_int().map(Value::Int).map_err(|_| format!("expected an integer, found {v}")),
        Domain::Seat => {
            text.and_then(|t| defs.seat(&t)).map(Value::Seat).ok_or_else(|| format!("expected a seat name, found {v}"))
        }
    }
}

/// An action argument as a script value.
pub(crate) fn from_value(defs: &Defs, v: &Value) -> Dynamic {
    match v {
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
    for (p, v) in def.params.iter().zip(&action.args) {
        map.insert(p.name.as_str().into(), from_value(defs, v));
    }
    map
}

/// The action a script describes as `#{action: "...", <param>: value...}` for `seat`.
pub(crate) fn map_action(defs: &Defs, seat: SeatId, value: &Dynamic) -> Result<Action, String> {
    let map =
        value.read_lock::<Map>().ok_or_else(|| format!("expected a map like #{{action: \"...\"}}, found {value}"))?;
    let name =
        map.get("action").and_then(|a| a.clone().into_immutable_string().ok()).ok_or("the map has no `action` name")?;
    let action = defs.action(&name).ok_or_else(|| format!("no action named `{name}`"))?;
    let def = &defs.actions[action as usize];
    let mut args = Vec::with_capacity(def.params.len());
    for p in &def.params {
        let v = map.get(p.name.as_str()).ok_or_else(|| format!("{name}: missing `{}`", p.name))?;
        args.push(to_value(defs, &p.domain, v).map_err(|e| format!("{name}: {}: {e}", p.name))?);
    }
    Ok(Action { seat, action, args })
}

/// An action's arguments as the map `apply` and `legal` hooks receive, plus `seat`.
pub(crate) fn args_map(defs: &Defs, action: &Action) -> Map {
    let def = &defs.actions[action.action as usize];
    let mut map = Map::new();
    for (p, v) in def.params.iter().zip(&action.args) {
        map.insert(p.name.as_str().into(), from_value(defs, v));
    }
    map.insert("seat".into(), Dynamic::from(defs.seat_names[action.seat as usize].clone()));
    map
}

fn register_api(engine: &mut Engine) {
    engine.register_type_with_name::<GameApi>("Game");

    // Parameters and players.
    engine.register_fn("param", |g: &mut GameApi, name: &str| -> RhaiResult<Dynamic> {
        match g.defs.param_values.get(name) {
            Some(v) => Ok(v.clone()),
            None => fail(format!("no parameter named `{name}`")),
        }
    });
    engine.register_fn("players", |g: &mut GameApi| i64::from(g.state.borrow().players));
    engine.register_fn("seats", |g: &mut GameApi| -> Array {
        let n = g.state.borrow().players as usize;
        g.defs.seat_names.iter().take(n).cloned().map(Dynamic::from).collect()
    });

    // Counters.
    engine.register_fn("counter", |g: &mut GameApi, name: &str| -> RhaiResult<i64> {
        let c = g.counter(name)?;
        Ok(g.state.borrow().counter(c))
    });
    engine.register_fn("set_counter", |g: &mut GameApi, name: &str, value: i64| -> RhaiResult<i64> {
        let c = g.counter(name)?;
        Ok(g.state.borrow_mut().set_counter(&g.defs, c, value))
    });
    engine.register_fn("add", |g: &mut GameApi, name: &str, delta: i64| -> RhaiResult<i64> {
        let c = g.counter(name)?;
        let mut s = g.state.borrow_mut();
        let v = s.counter(c).saturating_add(delta);
        Ok(s.set_counter(&g.defs, c, v))
    });

    // Zones and pieces.
    engine.register_fn("pieces", |g: &mut GameApi, zone: &str| -> RhaiResult<Array> {
        g.scan()?;
        let z = g.zone(zone)?;
        Ok(g.state.borrow().pieces_in(&g.defs, z).into_iter().map(|p| Dynamic::from_int(i64::from(p))).collect())
    });
    engine.register_fn("count", |g: &mut GameApi, zone: &str| -> RhaiResult<i64> {
        let z = g.zone(zone)?;
        Ok(i64::from(g.state.borrow().count(z)))
    });
    engine.register_fn("top", |g: &mut GameApi, zone: &str| -> RhaiResult<Dynamic> {
        g.scan()?;
        let z = g.zone(zone)?;
        Ok(g.state.borrow().top(&g.defs, z).map(|p| Dynamic::from_int(i64::from(p))).unwrap_or(Dynamic::UNIT))
    });
    engine.register_fn("zone_of", |g: &mut GameApi, piece: i64| -> RhaiResult<ImmutableString> {
        let p = g.piece(piece)?;
        Ok(g.defs.zone_names[g.state.borrow().zone_of(p) as usize].clone())
    });
    engine.register_fn("owner", |g: &mut GameApi, zone: &str| -> RhaiResult<Dynamic> {
        let z = g.zone(zone)?;
        Ok(g.defs.zones[z as usize]
            .owner
            .map(|s| Dynamic::from(g.defs.seat_names[s as usize].clone()))
            .unwrap_or(Dynamic::UNIT))
    });
    engine.register_fn("move", |g: &mut GameApi, piece: i64, zone: &str| -> RhaiResult<()> {
        let (p, z) = (g.piece(piece)?, g.zone(zone)?);
        g.state.borrow_mut().move_piece(&g.defs, p, z);
        Ok(())
    });
    engine.register_fn("move_bottom", |g: &mut GameApi, piece: i64, zone: &str| -> RhaiResult<()> {
        let (p, z) = (g.piece(piece)?, g.zone(zone)?);
        g.state.borrow_mut().move_piece_to(&g.defs, p, z, false);
        Ok(())
    });
    engine.register_fn("move_all", |g: &mut GameApi, from: &str, to: &str| -> RhaiResult<i64> {
        g.scan()?;
        let (from, to) = (g.zone(from)?, g.zone(to)?);
        let mut s = g.state.borrow_mut();
        let pieces = s.pieces_in(&g.defs, from);
        for &p in pieces.iter().rev() {
            s.move_piece(&g.defs, p, to);
        }
        Ok(pieces.len() as i64)
    });
    engine.register_fn("turn", |g: &mut GameApi, piece: i64, up: bool| -> RhaiResult<()> {
        let p = g.piece(piece)?;
        g.state.borrow_mut().turn(p, up);
        Ok(())
    });
    engine.register_fn("reveal", |g: &mut GameApi, zone: &str| -> RhaiResult<()> {
        g.scan()?;
        let z = g.zone(zone)?;
        let mut s = g.state.borrow_mut();
        for p in s.pieces_in(&g.defs, z) {
            s.turn(p, true);
        }
        Ok(())
    });
    engine.register_fn("reveal", |g: &mut GameApi, zones: Array| -> RhaiResult<()> {
        g.scan()?;
        for zone in zones {
            g.scan()?;
            let name = zone.into_immutable_string().map_err(|t| format!("reveal: expected zone names, found a {t}"))?;
            let z = g.zone(&name)?;
            let mut s = g.state.borrow_mut();
            for p in s.pieces_in(&g.defs, z) {
                s.turn(p, true);
            }
        }
        Ok(())
    });
    engine.register_fn("is_face_up", |g: &mut GameApi, piece: i64| -> RhaiResult<bool> {
        let p = g.piece(piece)?;
        Ok(g.state.borrow().is_face_up(p))
    });
    engine.register_fn("name", |g: &mut GameApi, piece: i64| -> RhaiResult<ImmutableString> {
        let p = g.piece(piece)?;
        Ok(g.defs.piece_names[p as usize].clone())
    });
    engine.register_fn("piece", |g: &mut GameApi, name: &str| -> RhaiResult<i64> {
        match g.defs.piece(name) {
            Some(p) => Ok(i64::from(p)),
            None => fail(format!("no piece named `{name}`")),
        }
    });
    engine.register_fn("kind", |g: &mut GameApi, piece: i64| -> RhaiResult<ImmutableString> {
        let p = g.piece(piece)?;
        Ok(g.defs.kind_names[g.defs.pieces[p as usize].kind as usize].clone())
    });
    engine.register_fn("prop", |g: &mut GameApi, piece: i64, name: &str| -> RhaiResult<Dynamic> {
        let p = g.piece(piece)?;
        let Some((slot, def)) = g.defs.prop_ref(p, name) else {
            return fail(format!("{} has no property `{name}`", g.defs.pieces[p as usize].name));
        };
        Ok(prop_dynamic(&g.defs, &def.kind, g.state.borrow().prop(slot)))
    });
    engine.register_fn("set_prop", |g: &mut GameApi, piece: i64, name: &str, value: Dynamic| -> RhaiResult<()> {
        let p = g.piece(piece)?;
        let Some(def) = g.defs.prop_def(p, name) else {
            return fail(format!("{} has no property `{name}`", g.defs.pieces[p as usize].name));
        };
        let encoded = match &def.kind {
            PropKind::Word(_) => match value.clone().into_immutable_string().ok().and_then(|t| g.defs.symbol(&t)) {
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
        g.state.borrow_mut().set_prop(&g.defs, p, name, encoded).map_err(Into::into)
    });

    // Bulk queries: one native call instead of a script loop (faster, and shorter to read).
    engine.register_fn("tally", |g: &mut GameApi, zone: &str, prop: &str| -> RhaiResult<Map> {
        g.scan()?;
        let z = g.zone(zone)?;
        Ok(tally(&g.defs, &g.state.borrow(), z, prop, None))
    });
    engine.register_fn("nearest", |g: &mut GameApi, from: i64, links: Array, goal: Map| -> RhaiResult<Dynamic> {
        g.scan()?;
        let p = g.piece(from)?;
        let goals = [Filter::new(&g.defs, &goal)?];
        Ok(nearest(&g.defs, &g.state.borrow(), p, &link_names(&links)?, &goals, None))
    });
    engine.register_fn("nearest", |g: &mut GameApi, from: i64, links: Array, goals: Array| -> RhaiResult<Dynamic> {
        g.scan()?;
        let p = g.piece(from)?;
        let goals = filters(&g.defs, &goals)?;
        Ok(nearest(&g.defs, &g.state.borrow(), p, &link_names(&links)?, &goals, None))
    });
    engine.register_fn("linked", |g: &mut GameApi, from: i64, links: Array| -> RhaiResult<Array> {
        g.scan()?;
        let p = g.piece(from)?;
        linked(&g.defs, &g.state.borrow(), p, &link_names(&links)?, None)
    });
    engine.register_fn("count_where", |g: &mut GameApi, zone: &str, filter: Map| -> RhaiResult<i64> {
        g.scan()?;
        let z = g.zone(zone)?;
        let f = Filter::new(&g.defs, &filter)?;
        let s = g.state.borrow();
        Ok(s.pieces_in_any_order(z).filter(|&p| f.matches(&g.defs, &s, p)).count() as i64)
    });
    engine.register_fn("pieces_where", |g: &mut GameApi, zone: &str, filter: Map| -> RhaiResult<Array> {
        g.scan()?;
        let z = g.zone(zone)?;
        let f = Filter::new(&g.defs, &filter)?;
        let s = g.state.borrow();
        Ok(s.pieces_in(&g.defs, z)
            .into_iter()
            .filter(|&p| f.matches(&g.defs, &s, p))
            .map(|p| Dynamic::from_int(i64::from(p)))
            .collect())
    });
    // One piece of `zone` for each of `values`, in order: the first (in the zone's order) whose
    // `prop` has that value and that is not picked yet; values no piece left has are skipped.
    // Dice spent on a list of faces: `game.pick(pool, "face", ["key", "torch"])`.
    engine.register_fn("pick", |g: &mut GameApi, zone: &str, prop: &str, values: Array| -> RhaiResult<Array> {
        let z = g.zone(zone)?;
        let s = g.state.borrow();
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
    engine.register_fn("move_where", |g: &mut GameApi, from: &str, filter: Map, to: &str| -> RhaiResult<i64> {
        g.scan()?;
        let (from, to) = (g.zone(from)?, g.zone(to)?);
        let f = Filter::new(&g.defs, &filter)?;
        let mut s = g.state.borrow_mut();
        let chosen: Vec<PieceId> =
            s.pieces_in(&g.defs, from).into_iter().filter(|&p| f.matches(&g.defs, &s, p)).collect();
        for &p in chosen.iter().rev() {
            s.move_piece(&g.defs, p, to);
        }
        Ok(chosen.len() as i64)
    });
    engine.register_fn("sum", |g: &mut GameApi, zone: &str, prop: &str| -> RhaiResult<i64> {
        g.scan()?;
        sum_where(g, zone, prop, &Map::new())
    });
    engine.register_fn("sum_where", |g: &mut GameApi, zone: &str, prop: &str, filter: Map| -> RhaiResult<i64> {
        g.scan()?;
        sum_where(g, zone, prop, &filter)
    });
    engine.register_fn("raise", |g: &mut GameApi, piece: i64, prop: &str, delta: i64| -> RhaiResult<i64> {
        let p = g.piece(piece)?;
        let Some(PropKind::Int(lo, hi)) = g.defs.prop_def(p, prop).map(|d| d.kind.clone()) else {
            return fail(format!("{} has no integer property `{prop}`", g.defs.pieces[p as usize].name));
        };
        let slot = g.defs.prop_slot(p, prop).unwrap_or(0);
        let mut s = g.state.borrow_mut();
        let value = s.prop(slot).saturating_add(delta).clamp(lo, hi);
        s.set_prop(&g.defs, p, prop, value)?;
        Ok(value)
    });

    // Flow.
    engine.register_fn("ask", |g: &mut GameApi, seat: &str, action: &str| -> RhaiResult<()> {
        ask(g, seat, action, &Map::new())
    });
    engine.register_fn("ask", |g: &mut GameApi, seat: &str, action: &str, fixed: Map| -> RhaiResult<()> {
        ask(g, seat, action, &fixed)
    });
    // `goto` is a reserved word of Rhai, so a script cannot call it by that name: `go_to` is the
    // same function under a name scripts can write.
    engine.register_fn("goto", goto);
    engine.register_fn("go_to", goto);
    engine.register_fn("end", |g: &mut GameApi, outcome: &str| -> RhaiResult<()> {
        let Some(o) = g.defs.outcome(outcome) else {
            return fail(format!("no outcome named `{outcome}`"));
        };
        let mut s = g.state.borrow_mut();
        if s.outcome.is_none() {
            s.outcome = Some(o);
            s.prompts.clear();
            s.emit(Event::Ended(o));
        }
        Ok(())
    });
    engine.register_fn("is_over", |g: &mut GameApi| g.state.borrow().outcome.is_some());
    // Prompts opened and not answered yet: a hook that goes on with a chain of prompts (a
    // combat answered in turn across seats) checks that none is still waiting.
    engine.register_fn("prompts", |g: &mut GameApi| g.state.borrow().prompts.len() as i64);
    engine.register_fn("team", |g: &mut GameApi, seat: &str| -> RhaiResult<Dynamic> { team_of(&g.defs, seat) });
    engine.register_fn("phase", |g: &mut GameApi| g.defs.phase_names[g.state.borrow().phase as usize].clone());
    engine.register_fn("clock", |g: &mut GameApi| g.state.borrow().clock);
    // Recorded games keep every note: their length counts as work.
    engine.register_fn("note", |g: &mut GameApi, text: &str| -> RhaiResult<()> {
        g.charge(text.len())?;
        g.state.borrow_mut().emit(Event::Note(text.to_string()));
        Ok(())
    });

    // Chance.
    engine.register_fn("random", |g: &mut GameApi, n: i64| -> RhaiResult<i64> {
        if n <= 0 {
            return fail(format!("random({n}): the range must be positive"));
        }
        g.state.borrow_mut().random(n as u64).map_err(Into::into)
    });
    // A piece of a zone taken at random: a chance outcome of its own (`* pick zone piece` in
    // logs), shown in a seat's copy only if that seat saw the piece where it lay.
    engine.register_fn("pick_random", |g: &mut GameApi, zone: &str| -> RhaiResult<Dynamic> {
        g.scan()?;
        let z = g.zone(zone)?;
        let picked = g.state.borrow_mut().pick_random(&g.defs, z)?;
        Ok(picked.map_or(Dynamic::UNIT, |p| Dynamic::from_int(i64::from(p))))
    });
    // The top piece of a deck to another zone; an empty deck is first made again from its
    // discard pile, shuffled. () when both are empty.
    engine.register_fn("draw", |g: &mut GameApi, from: &str, to: &str, refill: &str| -> RhaiResult<Dynamic> {
        g.scan()?;
        let (from, to, refill) = (g.zone(from)?, g.zone(to)?, g.zone(refill)?);
        let mut s = g.state.borrow_mut();
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
        g.state.borrow_mut().shuffle(&g.defs, z).map_err(Into::into)
    });
    engine.register_fn("roll", |g: &mut GameApi, piece: i64| -> RhaiResult<Dynamic> {
        let p = g.piece(piece)?;
        let face = g.state.borrow_mut().roll(&g.defs, p)?;
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
        let mut s = g.state.borrow_mut();
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
        for e in &g.defs.edges {
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
        let e = g.defs.edges.iter().find(|e| (e.from == a && e.to == b) || (!e.one_way && e.from == b && e.to == a));
        Ok(e.and_then(|e| e.kind.clone()).map(Dynamic::from).unwrap_or(Dynamic::UNIT))
    });
    engine.register_fn("links", |g: &mut GameApi, zone: &str| -> RhaiResult<Array> {
        g.charge(g.defs.edges.len())?;
        let z = g.zone(zone)?;
        let mut out = Array::new();
        for e in &g.defs.edges {
            let (to, against) = match (e.from == z, e.to == z) {
                (true, _) => (e.to, false),
                (false, true) => (e.from, e.one_way),
                _ => continue,
            };
            let mut link = Map::new();
            link.insert("to".into(), Dynamic::from(g.defs.zone_names[to as usize].clone()));
            link.insert("kind".into(), e.kind.clone().map(Dynamic::from).unwrap_or(Dynamic::UNIT));
            link.insert("against".into(), Dynamic::from(against));
            out.push(Dynamic::from_map(link));
        }
        Ok(out)
    });
    engine.register_fn("distances", |g: &mut GameApi, from: &str, most: i64| -> RhaiResult<Map> {
        g.charge(g.defs.edges.len().saturating_mul(g.defs.zone_names.len()))?;
        graph_distances(&g.defs, g.zone(from)?, most, false)
    });
    engine.register_fn("distances_to", |g: &mut GameApi, to: &str, most: i64| -> RhaiResult<Map> {
        g.charge(g.defs.edges.len().saturating_mul(g.defs.zone_names.len()))?;
        graph_distances(&g.defs, g.zone(to)?, most, true)
    });
}

/// Distances in edges from `start` (respecting `one_way`) to every zone at most `most` away; with
/// `towards`, from every zone to `start` (one-way edges walked backwards).
fn graph_distances(defs: &Defs, start: ZoneId, most: i64, towards: bool) -> RhaiResult<Map> {
    let mut steps: Vec<Option<i64>> = vec![None; defs.zone_names.len()];
    steps[start as usize] = Some(0);
    let mut frontier = vec![false; defs.zone_names.len()];
    frontier[start as usize] = true;
    let mut d = 0;
    while d < most && frontier.iter().any(|&f| f) {
        d += 1;
        let mut next = vec![false; defs.zone_names.len()];
        for e in &defs.edges {
            for (a, b, forward) in [(e.from, e.to, true), (e.to, e.from, false)] {
                if (forward != towards || !e.one_way) && frontier[a as usize] && steps[b as usize].is_none() {
                    steps[b as usize] = Some(d);
                    next[b as usize] = true;
                }
            }
        }
        frontier = next;
    }
    let mut out = Map::new();
    for (z, s) in steps.iter().enumerate() {
        if let Some(s) = s {
            out.insert(defs.zone_names[z].as_str().into(), Dynamic::from(*s));
        }
    }
    Ok(out)
}

/// Whether a parameter name can be a script constant: a Rhai identifier that is not one of
/// Rhai's keywords or reserved words (those parameters stay reachable with `game.param`).
fn is_identifier(name: &str) -> bool {
    const RESERVED: &[&str] = &[
        "as",
        "async",
        "await",
        "break",
        "call",
        "case",
        "catch",
        "const",
        "continue",
        "curry",
        "debug",
        "default",
        "do",
        "else",
        "eval",
        "exit",
        "export",
        "false",
        "fn",
        "Fn",
        "for",
        "global",
        "go",
        "goto",
        "if",
        "import",
        "in",
        "is_def_fn",
        "is_def_var",
        "is_shared",
        "let",
        "loop",
        "match",
        "module",
        "new",
        "nil",
        "null",
        "package",
        "print",
        "private",
        "protected",
        "public",
        "return",
        "shared",
        "spawn",
        "static",
        "super",
        "switch",
        "sync",
        "this",
        "thread",
        "throw",
        "true",
        "try",
        "type_of",
        "until",
        "use",
        "var",
        "void",
        "while",
        "with",
        "yield",
    ];
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&name)
}

fn sum_where(g: &GameApi, zone: &str, prop: &str, filter: &Map) -> RhaiResult<i64> {
    let z = g.zone(zone)?;
    let f = Filter::new(&g.defs, filter)?;
    let s = g.state.borrow();
    let mut total = 0i64;
    for p in s.pieces_in(&g.defs, z) {
        if f.matches(&g.defs, &s, p) {
            match g.defs.prop_slot(p, prop) {
                Some(slot) => total = total.saturating_add(s.prop(slot)),
                None => return fail(format!("{} has no property `{prop}`", g.defs.pieces[p as usize].name)),
            }
        }
    }
    Ok(total)
}

/// Counts the pieces of a zone by the value of a property: `#{red: 2, blue: 1}`. Only
/// pieces `seat` can see are counted (all of them for `None`).
fn tally(defs: &Defs, state: &State, zone: ZoneId, prop: &str, seat: Option<SeatId>) -> Map {
    let mut out = Map::new();
    // The counts do not depend on the order of the pieces.
    for p in state.pieces_in_any_order(zone) {
        if !crate::view::visible(defs, state, seat, zone, p) {
            continue;
        }
        let Some((slot, def)) = defs.prop_ref(p, prop) else { continue };
        let value = state.prop(slot);
        // Words (dice faces) are counted under their own name, with no string built; a
        // reference to a piece the seat cannot see is counted under "?".
        let name: std::borrow::Cow<str> = match (&def.kind, defs.symbols.get(value as usize)) {
            (PropKind::Word(_), Some(word)) => word.as_str().into(),
            (_, _)
                if !crate::view::may_show_prop(
                    defs,
                    state,
                    seat,
                    p,
                    slot - defs.pieces[p as usize].prop_base,
                    value,
                ) =>
            {
                crate::log::MASKED.into()
            }
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
/// that any reachable piece matches (goals in order of preference), as `[first step, target]`,
/// or `()` if none is reachable. Only pieces `seat` can see are walked through (all of them for
/// `None`); links are followed in the order given.
fn nearest(
    defs: &Defs,
    state: &State,
    from: PieceId,
    links: &[ImmutableString],
    goals: &[Filter],
    seat: Option<SeatId>,
) -> Dynamic {
    // One walk serves every goal: the order in which pieces are reached does not depend on what
    // is looked for. `reached` lists them nearest first, each with its first step.
    let mut reached: Vec<(PieceId, PieceId)> = Vec::new();
    let mut seen = vec![false; defs.pieces.len()];
    seen[from as usize] = true;
    let mut next_to_visit = 0;
    let mut here = from;
    // The links' slots within each kind of piece met, looked up once per kind.
    let mut link_slots: Vec<(u16, Vec<Option<usize>>)> = Vec::new();
    loop {
        let step_to_here = if here == from { None } else { Some(reached[next_to_visit - 1].1) };
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
            if !crate::view::visible(defs, state, seat, state.zone_of(next), next) {
                continue;
            }
            seen[next as usize] = true;
            reached.push((next, step_to_here.unwrap_or(next)));
        }
        let Some(&(piece, _)) = reached.get(next_to_visit) else { break };
        next_to_visit += 1;
        here = piece;
    }
    for goal in goals {
        if let Some(&(target, step)) = reached.iter().find(|&&(p, _)| goal.matches(defs, state, p)) {
            return Dynamic::from_array(vec![Dynamic::from_int(i64::from(step)), Dynamic::from_int(i64::from(target))]);
        }
    }
    Dynamic::UNIT
}

/// The pieces piece `from` links to through its piece-valued properties `links`, in that order,
/// leaving out links that are unset (and pieces `seat` cannot see). A name that is not a
/// piece-valued property of `from` is an error, so that a misspelt link is not silently empty.
fn linked(
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
        if crate::view::visible(defs, state, seat, state.zone_of(next), next) {
            out.push(Dynamic::from_int(i64::from(next)));
        }
    }
    Ok(out)
}

fn link_names(links: &Array) -> RhaiResult<Vec<ImmutableString>> {
    links
        .iter()
        .map(|l| {
            l.clone().into_immutable_string().map_err(|t| format!("links: expected property names, found a {t}").into())
        })
        .collect()
}

/// Filters from a list of maps (goals in order of preference).
fn filters(defs: &Defs, maps: &Array) -> RhaiResult<Vec<Filter>> {
    maps.iter()
        .map(|m| match m.read_lock::<Map>() {
            Some(map) => Filter::new(defs, &map),
            None => fail(format!("goals: expected maps such as #{{ role: \"exit\" }}, found a {}", m.type_name())),
        })
        .collect()
}

/// A script's `#{prop: value, kind: "name"}` filter: a piece matches when it has every listed
/// property with the listed value (and is of the listed kind). Pieces without one of the
/// properties do not match.
struct Filter {
    kind: Option<u16>,
    props: Vec<PropTest>,
    /// The seat whose agent asks (`None` in rule hooks): a piece-valued property that refers to
    /// a piece this seat cannot see matches nothing, or a filter would tell which piece it is.
    seat: Option<SeatId>,
}

/// One `prop: value` of a filter, resolved once: the wanted value as the state stores it, and
/// the property's index within the last kind of piece looked at (filters mostly look at pieces
/// of one kind, so names are not looked up again for every piece).
struct PropTest {
    name: ImmutableString,
    /// The value as an integer, for integer and piece properties.
    int: Option<i64>,
    /// The value as a word: `Some(None)` for a string that is no word of the rules (it matches
    /// no piece), `None` for a value that is not a string.
    word: Option<Option<crate::rules::SymId>>,
    memo: std::cell::Cell<Option<(u16, Option<usize>)>>,
}

impl Filter {
    fn new(defs: &Defs, map: &Map) -> RhaiResult<Filter> {
        let mut f = Filter { kind: None, props: Vec::new(), seat: None };
        for (k, v) in map {
            if k.as_str() == "kind" {
                let name =
                    v.clone().into_immutable_string().map_err(|_| format!("kind: expected a kind name, found {v}"))?;
                match defs.kinds.iter().position(|d| d.name == name.as_str()) {
                    Some(i) => f.kind = Some(i as u16),
                    None => return fail(format!("no component kind named `{name}`")),
                }
            } else {
                f.props.push(PropTest {
                    name: k.as_str().into(),
                    int: v.as_int().ok(),
                    word: v.read_lock::<ImmutableString>().map(|w| defs.symbol(&w)),
                    memo: std::cell::Cell::new(None),
                });
            }
        }
        Ok(f)
    }

    /// The filter as `seat`'s agent may use it.
    fn seen_by(mut self, seat: SeatId) -> Filter {
        self.seat = Some(seat);
        self
    }

    fn matches(&self, defs: &Defs, state: &State, piece: PieceId) -> bool {
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
                    test.int == Some(value)
                        && (self.seat.is_none() || crate::view::may_show_prop(defs, state, self.seat, piece, i, value))
                }
            }
        })
    }
}

fn ask(g: &mut GameApi, seat: &str, action: &str, fixed: &Map) -> RhaiResult<()> {
    // A prompt is kept until it is answered: a hook opening them in a loop fills memory.
    g.charge(PROMPT_WORK)?;
    let defs = &g.defs;
    let Some(seat_id) = defs.seat(seat) else { return fail(format!("no seat named `{seat}`")) };
    let Some(action_id) = defs.action(action) else { return fail(format!("no action named `{action}`")) };
    let def = &defs.actions[action_id as usize];
    let mut args = vec![None; def.params.len()];
    for (key, value) in fixed {
        let Some(i) = def.params.iter().position(|p| p.name == key.as_str()) else {
            return fail(format!("action `{action}` has no parameter `{key}`"));
        };
        args[i] =
            Some(to_value(defs, &def.params[i].domain, value).map_err(|e| format!("ask {action}: {}: {e}", key))?);
    }
    let mut s = g.state.borrow_mut();
    let group = s.next_group;
    s.next_group += 1;
    s.prompts.push_back(Prompt { seat: seat_id, action: action_id, fixed: args, group, while_hook: None });
    s.changes += 1;
    Ok(())
}

impl Scripts {
    /// Compiles the script files (in order; later definitions of a function replace earlier
    /// ones) and checks that every hook the definitions name exists with the right arity.
    pub(crate) fn compile(defs: Rc<Defs>, files: &[FileId]) -> Result<Scripts, Error> {
        let mut engine = Engine::new();
        engine.set_optimization_level(rhai::OptimizationLevel::Simple);
        engine.set_strict_variables(true);
        engine.set_max_operations(MAX_OPERATIONS);
        engine.set_max_call_levels(MAX_CALL_LEVELS);
        engine.set_max_expr_depths(64, 32);
        engine.set_max_string_size(MAX_DATA_SIZE);
        engine.set_max_array_size(MAX_DATA_SIZE);
        engine.set_max_map_size(MAX_DATA_SIZE);
        engine.on_print(|_| {});
        engine.on_debug(|_, _, _| {});
        register_api(&mut engine);
        register_view(&mut engine);
        register_helpers(&mut engine);

        // Parameters are constants of the scripts: the optimizer folds them into the code, so
        // `goal` costs nothing at run time (`--set` takes effect because scripts are
        // compiled at each load).
        // Only numbers and words: Rhai folds those into functions, but not arrays or maps, which
        // would then be missing at run time. Lists and tables are read with `game.param`, and a
        // script naming one as a variable fails to compile (strict variables).
        let mut constants = Scope::new();
        for (name, value) in &defs.param_values {
            if is_identifier(name) && (value.is_int() || value.is_string()) {
                constants.push_constant_dynamic(name.clone(), value.clone());
            }
        }
        let mut ast = AST::empty();
        let mut fn_file = HashMap::new();
        let mut diags = Vec::new();
        for &file in files {
            match engine.compile_with_scope(&constants, defs.sources.text(file)) {
                Ok(mut part) => {
                    part.set_source(defs.sources.path(file).display().to_string());
                    for f in part.iter_functions() {
                        let at = definition_offset(defs.sources.text(file), f.name).unwrap_or(0);
                        fn_file.insert(f.name.to_string(), (file, at));
                    }
                    ast = ast.merge(&part);
                }
                Err(e) => {
                    let pos = e.position();
                    let offset = defs.sources.offset(file, pos.line().unwrap_or(1), pos.position().unwrap_or(1));
                    diags.push(
                        Diagnostic::new(format!("script does not compile: {}", e.err_type()))
                            .at(file, offset..offset + 1)
                            .expected("valid Rhai"),
                    );
                }
            }
        }
        let functions: Vec<(String, usize)> =
            ast.iter_functions().map(|f| (f.name.to_string(), f.params.len())).collect();
        // A script that does not compile hides its functions: do not report them as missing.
        let hooks = if diags.is_empty() { defs.hooks.as_slice() } else { &[] };
        for h in hooks {
            if !functions.iter().any(|(n, a)| *n == h.name && *a == h.arity) {
                let similar: Vec<String> = functions
                    .iter()
                    .filter(|(n, _)| *n == h.name)
                    .map(|(n, a)| format!("{n} with {a} argument(s)"))
                    .collect();
                let mut d = Diagnostic::new(format!("no script function `{}` taking {} argument(s)", h.name, h.arity))
                    .at(h.file, h.span.clone())
                    .expected(format!(
                        "fn {}({}) in one of the ruleset's scripts",
                        h.name,
                        if h.arity == 1 { "game" } else { "game, args" }
                    ));
                if !similar.is_empty() {
                    d = d.found(similar.join(", "));
                }
                diags.push(d);
            }
        }
        if !diags.is_empty() {
            return Err(Error::Ruleset(diags, Box::new(defs.sources.clone())));
        }
        Ok(Scripts {
            engine,
            ast,
            cell: Rc::new(RefCell::new(State::default())),
            defs,
            work: Rc::new(Cell::new(0)),
            fn_file,
        })
    }

    /// Runs a hook with the game (and, for action hooks, the action's arguments). The state is
    /// moved into the scripts' cell for the call and back out, whatever the result.
    pub(crate) fn call(&self, hook: HookId, state: &mut State, args: Option<Map>) -> Result<Dynamic, Error> {
        self.call_with(hook, state, args.map(Dynamic::from_map))
    }

    /// Runs a hook with the game and one more argument of any kind.
    pub(crate) fn call_with(&self, hook: HookId, state: &mut State, extra: Option<Dynamic>) -> Result<Dynamic, Error> {
        std::mem::swap(state, &mut *self.cell.borrow_mut());
        let result = self.call_in_cell(hook, extra);
        std::mem::swap(state, &mut *self.cell.borrow_mut());
        result
    }

    /// Runs a hook that must not change the game (a `legal` or `options` hook) on a scratch copy
    /// of `state`, kept in the scripts' cell between calls so that copying allocates nothing.
    pub(crate) fn call_on_copy(&self, hook: HookId, state: &State, extra: Option<Dynamic>) -> Result<Dynamic, Error> {
        self.cell.borrow_mut().copy_for_scratch(state);
        self.call_in_cell(hook, extra)
    }

    /// Runs a hook on the state in the scripts' cell.
    fn call_in_cell(&self, hook: HookId, extra: Option<Dynamic>) -> Result<Dynamic, Error> {
        let name = &self.defs.hooks[hook as usize].name;
        self.work.set(0);
        let api = GameApi { state: self.cell.clone(), defs: self.defs.clone(), work: self.work.clone() };
        let options = CallFnOptions::new().eval_ast(false).rewind_scope(false);
        let mut scope = Scope::new();
        let result = match extra {
            None => self.engine.call_fn_with_options::<Dynamic>(options, &mut scope, &self.ast, name, (api,)),
            Some(arg) => self.engine.call_fn_with_options::<Dynamic>(options, &mut scope, &self.ast, name, (api, arg)),
        };
        result.map_err(|e| Error::Script(Box::new(self.diagnose(name, &e))))
    }

    /// Asks an agent written in the scripts to choose among `options` for `seat`. The agent sees
    /// the game through a `View` handle that shows only what the seat may know; it works on a
    /// copy of the state, so it cannot change the game.
    pub(crate) fn call_agent(&self, hook: HookId, state: &State, seat: SeatId, options: Array) -> Result<i64, Error> {
        let name = &self.defs.hooks[hook as usize].name;
        self.call_view(hook, state, seat, Some(options))?.as_int().map_err(|t| {
            Error::Script(Box::new(Diagnostic::new(format!(
                "agent `{name}` must return the index of an option, not a {t}"
            ))))
        })
    }

    /// Asks an agent written in the scripts for the action `seat` takes (a map, or `()` to
    /// wait), seeing the game as `call_agent` does.
    pub(crate) fn call_agent_act(&self, hook: HookId, state: &State, seat: SeatId) -> Result<Dynamic, Error> {
        self.call_view(hook, state, seat, None)
    }

    fn call_view(&self, hook: HookId, state: &State, seat: SeatId, options: Option<Array>) -> Result<Dynamic, Error> {
        let name = &self.defs.hooks[hook as usize].name;
        self.cell.borrow_mut().copy_for_scratch(state);
        let view = SeatView { state: self.cell.clone(), defs: self.defs.clone(), seat };
        let call_options = CallFnOptions::new().eval_ast(false).rewind_scope(false);
        let mut scope = Scope::new();
        let result = match options {
            Some(options) => {
                self.engine.call_fn_with_options::<Dynamic>(call_options, &mut scope, &self.ast, name, (view, options))
            }
            None => self.engine.call_fn_with_options::<Dynamic>(call_options, &mut scope, &self.ast, name, (view,)),
        };
        result.map_err(|e| Error::Script(Box::new(self.diagnose(name, &e))))
    }

    /// Everything a script agent of `seat` can read through its `View` handle, as text: every
    /// zone's count and visible pieces, each piece's name, kind, zone and properties, the
    /// counters shown, the phase and the prompt. Read through the handle's own functions (a
    /// probe script on the scripts' engine), so that the information-set test compares what an
    /// agent really gets.
    pub(crate) fn probe_view(&self, state: &State, seat: SeatId) -> Result<String, Error> {
        const PROBE: &str = r#"
            fn probe(view, zones, counters, props) {
                let out = [view.seat(), view.phase(), view.prompt(), view.players()];
                for c in counters { try { out += [c, view.counter(c)]; } catch { out += [c, "not shown"]; } }
                for z in zones {
                    out += [z, view.count(z)];
                    for p in view.pieces(z) {
                        out += [p, view.name(p), view.kind(p), view.zone_of(p)];
                        for name in props { try { out += [name, view.prop(p, name)]; } catch { } }
                        out += [view.piece(view.name(p))];
                    }
                    out += [view.tally(z, "face")];
                }
                out
            }
        "#;
        // The probe runs zone by zone (counters with the first), so that a large ruleset stays
        // within the scripts' limit on the size of an array.
        let ast = self.engine.compile(PROBE).map_err(|e| Error::Input(format!("view probe: {e}")))?;
        self.cell.borrow_mut().copy_for_scratch(state);
        let view = SeatView { state: self.cell.clone(), defs: self.defs.clone(), seat };
        let names = |list: &[ImmutableString]| -> Array { list.iter().cloned().map(Dynamic::from).collect() };
        let mut props: Vec<ImmutableString> = self
            .defs
            .kinds
            .iter()
            .flat_map(|k| k.props.iter().map(|p| ImmutableString::from(p.name.as_str())))
            .collect();
        props.sort();
        props.dedup();
        let counters: Vec<ImmutableString> = self.defs.counters.iter().map(|c| c.name.as_str().into()).collect();
        let mut text = Vec::new();
        for (i, zone) in self.defs.zone_names.iter().enumerate() {
            let counters = if i == 0 { names(&counters) } else { Array::new() };
            let args = (view.clone(), names(std::slice::from_ref(zone)), counters, names(&props));
            let options = CallFnOptions::new().eval_ast(false);
            let out = self
                .engine
                .call_fn_with_options::<Array>(options, &mut Scope::new(), &ast, "probe", args)
                .map_err(|e| Error::Input(format!("view probe: {e}")))?;
            text.extend(out.iter().map(|v| v.to_string()));
        }
        Ok(text.join(" "))
    }

    /// Runs a hook whose return value does not matter.
    pub(crate) fn run(&self, hook: HookId, state: &mut State, args: Option<Map>) -> Result<(), Error> {
        self.call(hook, state, args).map(drop)
    }

    /// Turns a Rhai error into a diagnostic naming the script file, line and column where it
    /// happened (the innermost function call) and the hook that was running.
    ///
    /// Rhai reports where a script reached one of its limits (operations, call depth, data
    /// sizes) only as far as the function the limit was reached in: every function call on the
    /// way out replaces the position with its own, and the hook's own call, from here, has none.
    /// Such errors point at the definition of the hook that was running.
    fn diagnose(&self, hook: &str, err: &EvalAltResult) -> Diagnostic {
        let mut function = hook.to_string();
        let mut position = Position::NONE;
        let mut e = err;
        // Positions inside `eval` count in the evaluated text, not in the script: the call to
        // `eval` is the place to show.
        let mut in_eval = false;
        while let EvalAltResult::ErrorInFunctionCall(name, _, inner, pos) = e {
            if !in_eval {
                if !name.is_empty() && self.fn_file.contains_key(name.as_str()) {
                    function = name.clone();
                }
                if !pos.is_none() {
                    position = *pos;
                }
            }
            in_eval |= name == "eval";
            e = inner;
        }
        if !in_eval && !e.position().is_none() {
            position = e.position();
        }
        let message = match e {
            EvalAltResult::ErrorRuntime(v, _) => v.to_string(),
            EvalAltResult::ErrorTooManyOperations(_) => {
                format!("the script ran more than {MAX_OPERATIONS} operations (an endless loop?)")
            }
            EvalAltResult::ErrorStackOverflow(_) => {
                format!("script functions called each other more than {MAX_CALL_LEVELS} deep (an endless recursion?)")
            }
            EvalAltResult::ErrorDataTooLarge(what, _) => {
                format!("a script value grew too large: {} above {MAX_DATA_SIZE}", what.to_lowercase())
            }
            other => other.to_string().split(" (line ").next().unwrap_or_default().to_string(),
        };
        let mut d = Diagnostic::new(format!("{message} (in hook `{hook}`)"));
        match (self.fn_file.get(&function), position.line()) {
            (Some(&(file, _)), Some(line)) => {
                let offset = self.defs.sources.offset(file, line, position.position().unwrap_or(1));
                d = d.at(file, offset..offset + 1);
            }
            (Some(&(file, defined)), None) => {
                d = d.at(file, defined..defined + 2).note(format!(
                    "the script engine does not say where in `{function}` it stopped: this is where `{function}` begins"
                ));
            }
            (None, _) => {}
        }
        d
    }
}

/// A native function scripts can call, as the ruleset format reference lists it.
#[cfg(feature = "script-signatures")]
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NativeFunction {
    /// What it is called on: `game` (the handle hooks get), `view` (the handle script agents
    /// get) or `list` (helpers on plain arrays).
    pub on: &'static str,
    /// Its name.
    pub name: String,
    /// The types of its arguments after the handle or list, in Rhai's words: `i64`, `string`,
    /// `bool`, `map`, `array`, or `Dynamic` for a value of several possible types.
    pub params: Vec<String>,
    /// The type of its result, in the same words (`()` for none).
    pub result: String,
}

/// Every native function registered for the scripts (Rhai's standard library left out), one
/// entry per name and argument types: what `docs/ruleset-format.md` must document, checked by
/// `tests/it/docs.rs`. The engine is built with the same registrations `Scripts::compile` makes.
/// Only with the `script-signatures` feature (the tests turn it on): it needs Rhai's metadata.
#[cfg(feature = "script-signatures")]
pub fn native_functions() -> Vec<NativeFunction> {
    let mut engine = Engine::new();
    register_api(&mut engine);
    register_view(&mut engine);
    register_helpers(&mut engine);
    let mut out: Vec<NativeFunction> =
        engine.gen_fn_signatures(false).iter().filter_map(|s| parse_signature(s)).collect();
    out.sort();
    out.dedup();
    out
}

/// Reads a signature as Rhai's metadata writes it:
/// `move(_: &mut Game, _: i64, _: string) -> core::result::Result<(), ...>`.
#[cfg(feature = "script-signatures")]
fn parse_signature(signature: &str) -> Option<NativeFunction> {
    let (name, rest) = signature.split_once('(')?;
    let (args, result) = rest.split_once(')')?;
    let mut types = args.split(',').map(|a| a.rsplit(':').next().unwrap_or_default().trim().to_string());
    let on = match types.next()?.as_str() {
        "&mut Game" => "game",
        "&mut View" => "view",
        "&mut array" => "list",
        _ => return None,
    };
    let result = result.trim().trim_start_matches("->").trim();
    // A fallible function's result is `Result<T, error>`: the script sees `T`.
    let result = match result.strip_prefix("core::result::Result<") {
        Some(inner) => inner.split_once(",alloc::boxed::Box<").map_or(inner, |(ok, _)| ok),
        None => result,
    };
    let words = |t: &str| -> String {
        let t = t.trim();
        if t.is_empty() || t == "()" {
            "()".into()
        } else if t.starts_with("alloc::vec::Vec<") {
            "array".into()
        } else if t.contains("BTreeMap<") {
            "map".into()
        } else {
            t.rsplit("::").next().unwrap_or(t).replace("ImmutableString", "string")
        }
    };
    Some(NativeFunction {
        on,
        name: name.to_string(),
        params: types.map(|t| words(&t)).collect(),
        result: words(result),
    })
}

/// The byte offset of the last definition of script function `name` in `text` (`fn name(`),
/// where a later definition replaces an earlier one.
fn definition_offset(text: &str, name: &str) -> Option<usize> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices("fn")
        .filter(|&(at, _)| !text[..at].ends_with(is_ident))
        .filter(|&(at, _)| {
            let rest = &text[at + 2..];
            let after_space = rest.trim_start_matches([' ', '\t']);
            after_space.len() < rest.len()
                && after_space.strip_prefix(name).is_some_and(|r| r.trim_start_matches([' ', '\t']).starts_with('('))
        })
        .map(|(at, _)| at)
        .last()
}
