//! One step along the board graph under a rule given as data: `game.steps(from, rule)`.
//!
//! A ruleset whose pieces move space by space lists, at every decision, the next spaces of each
//! piece: which links it may cross (a locked door needs a key, a fence is crossed one way only)
//! and which spaces it may enter (a room holds three, an occupied space is entered only to
//! capture). Written in a script, that is a call of a script function for every link of every
//! piece. Here the script says once per listing what a piece may do, as a map, and the engine
//! walks the links `game.links` gives, in their order, and returns the spaces the rule lets the
//! piece reach, each once.
//!
//! The rule's keys, all optional:
//! - `cross`: by a link's kind (`plain` for a link without one), whether a piece may cross it in
//!   its direction: `true`, `false`, or a list of zones, meaning "where the link's `to` end (as
//!   `[[edges]]` writes it) is one of these". A kind left out is not crossed.
//! - `against`: the same, for crossing a one-way link against its direction (its `to` end is
//!   then where the piece stands). A kind left out is not crossed that way.
//! - `avoid`: zones never entered; a name ending in `*` stands for every zone whose name begins
//!   with what comes before it.
//! - `limit`: how many pieces make a space full (no limit when left out); `limits`: the same by
//!   zone (names and `*` patterns as in `avoid`; the exact name first, then the longest pattern),
//!   `()` for no limit.
//! - `passes`: a filter (as in `count_where`): a full space may still be entered when it holds a
//!   piece that matches (a capture).

use rhai::{Array, Dynamic, ImmutableString, Map};

use super::board::Filter;
use super::{RhaiResult, fail};
use crate::rules::defs::{Defs, EdgeDef, ZoneId};
use crate::state::State;

/// The rule's keys, to list in an error.
const KEYS: &str = "cross, against, avoid, limit, limits, passes";

/// Whether links of one kind may be crossed one way.
#[derive(Default)]
enum Allow {
    #[default]
    Never,
    Always,
    /// Where the link's `to` end is one of these zones.
    At(Vec<ZoneId>),
}

impl Allow {
    fn new(key: &str, kind: &str, v: &Dynamic, zone: &dyn Fn(&str) -> Option<ZoneId>) -> RhaiResult<Allow> {
        if let Ok(b) = v.as_bool() {
            return Ok(if b { Allow::Always } else { Allow::Never });
        }
        match v.read_lock::<Array>() {
            Some(list) => Ok(Allow::At(zone_names(&format!("{key}.{kind}"), &list, zone)?)),
            None => fail(format!("steps: `{key}.{kind}` must be true, false or a list of zones, not {v}")),
        }
    }

    fn allows(&self, end: ZoneId) -> bool {
        match self {
            Allow::Never => false,
            Allow::Always => true,
            Allow::At(zones) => zones.contains(&end),
        }
    }
}

/// The zones a list names (plain names only).
fn zone_names(key: &str, list: &Array, zone: &dyn Fn(&str) -> Option<ZoneId>) -> RhaiResult<Vec<ZoneId>> {
    list.iter()
        .map(|v| match v.read_lock::<ImmutableString>() {
            Some(name) => zone_named(key, &name, zone),
            None => fail(format!("steps: `{key}` must list zone names, not {v}")),
        })
        .collect()
}

/// The zone named `name`, in the rule's key `key`.
fn zone_named(key: &str, name: &str, zone: &dyn Fn(&str) -> Option<ZoneId>) -> RhaiResult<ZoneId> {
    zone(name).map_or_else(|| fail(format!("steps: `{key}`: no zone named `{name}`")), Ok)
}

/// How links of each kind may be crossed one way.
#[derive(Default)]
struct Crossing {
    plain: Allow,
    kinds: Vec<(ImmutableString, Allow)>,
}

impl Crossing {
    fn new(key: &str, v: &Dynamic, zone: &dyn Fn(&str) -> Option<ZoneId>) -> RhaiResult<Crossing> {
        let Some(map) = v.read_lock::<Map>() else {
            return fail(format!("steps: `{key}` must be a map from link kinds to true, false or zones, not {v}"));
        };
        let mut out = Crossing::default();
        for (kind, allow) in map.iter() {
            let allow = Allow::new(key, kind, allow, zone)?;
            if kind.as_str() == "plain" {
                out.plain = allow;
            } else {
                out.kinds.push((kind.as_str().into(), allow));
            }
        }
        Ok(out)
    }

    fn allows(&self, kind: Option<&str>, end: ZoneId) -> bool {
        match kind {
            None => self.plain.allows(end),
            Some(kind) => self.kinds.iter().find(|(k, _)| k.as_str() == kind).is_some_and(|(_, a)| a.allows(end)),
        }
    }
}

/// A zone name, or every zone whose name begins with a prefix (`room_*`).
enum Pattern {
    Zone(ZoneId),
    Prefix(String),
}

impl Pattern {
    fn new(key: &str, v: &str, zone: &dyn Fn(&str) -> Option<ZoneId>) -> RhaiResult<Pattern> {
        match v.strip_suffix('*') {
            Some(prefix) => Ok(Pattern::Prefix(prefix.to_string())),
            None => zone_named(key, v, zone).map(Pattern::Zone),
        }
    }

    /// How well the pattern names `z`: `None` when it does not, else longer for a closer match
    /// (an exact name above any prefix).
    fn matches(&self, defs: &Defs, z: ZoneId) -> Option<usize> {
        match self {
            Pattern::Zone(zone) => (*zone == z).then_some(usize::MAX),
            Pattern::Prefix(p) => defs.zone_names[z as usize].starts_with(p.as_str()).then_some(p.len()),
        }
    }
}

/// A rule of `game.steps` (see the module's documentation).
#[derive(Default)]
pub(super) struct StepRule {
    cross: Crossing,
    against: Crossing,
    avoid: Vec<Pattern>,
    limit: Option<i64>,
    limits: Vec<(Pattern, Option<i64>)>,
    passes: Option<Filter>,
}

impl StepRule {
    /// Reads a rule, `zone` naming zones as the handle does.
    pub(super) fn new(defs: &Defs, map: &Map, zone: &dyn Fn(&str) -> Option<ZoneId>) -> RhaiResult<StepRule> {
        let mut rule = StepRule::default();
        for (key, v) in map {
            match key.as_str() {
                "cross" => rule.cross = Crossing::new(key, v, zone)?,
                "against" => rule.against = Crossing::new(key, v, zone)?,
                "avoid" => {
                    let Some(list) = v.read_lock::<Array>() else {
                        return fail(format!("steps: `avoid` must be a list of zone names or patterns, not {v}"));
                    };
                    for name in list.iter() {
                        match name.read_lock::<ImmutableString>() {
                            Some(name) => rule.avoid.push(Pattern::new(key, &name, zone)?),
                            None => {
                                return fail(format!("steps: `avoid` must list zone names or patterns, not {name}"));
                            }
                        }
                    }
                }
                "limit" => rule.limit = Some(limit(key, v)?),
                "limits" => {
                    let Some(by) = v.read_lock::<Map>() else {
                        return fail(format!(
                            "steps: `limits` must be a map from zones or patterns to limits, not {v}"
                        ));
                    };
                    for (name, n) in by.iter() {
                        let n = if n.is_unit() { None } else { Some(limit(&format!("limits.{name}"), n)?) };
                        rule.limits.push((Pattern::new(key, name, zone)?, n));
                    }
                }
                "passes" => match v.read_lock::<Map>() {
                    Some(filter) => match Filter::new(defs, &filter) {
                        Ok(f) => rule.passes = Some(f),
                        Err(e) => return fail(format!("steps: `passes`: {}", message(&e))),
                    },
                    None => return fail(format!("steps: `passes` must be a filter map, not {v}")),
                },
                other => return fail(format!("steps: unknown rule key `{other}` (the keys are {KEYS})")),
            }
        }
        Ok(rule)
    }

    /// Whether a piece may cross `edge` from `from` as far as the link goes: its kind, its
    /// direction, and whether its far end is avoided. `None` when it may not; else the zone it
    /// reaches.
    fn crossing(&self, defs: &Defs, edge: &EdgeDef, from: ZoneId) -> Option<ZoneId> {
        let (to, against) = link_from(edge, from)?;
        let ways = if against { &self.against } else { &self.cross };
        if !ways.allows(edge.kind.as_deref(), edge.to) || self.avoid.iter().any(|p| p.matches(defs, to).is_some()) {
            return None;
        }
        Some(to)
    }

    /// The limit of zone `z`: the exact name's, else the longest pattern's, else `limit`.
    fn limit_of(&self, defs: &Defs, z: ZoneId) -> Option<i64> {
        let best =
            self.limits.iter().filter_map(|(p, n)| p.matches(defs, z).map(|len| (len, *n))).max_by_key(|(len, _)| *len);
        match best {
            Some((_, n)) => n,
            None => self.limit,
        }
    }
}

/// What an error says, without Rhai's "Runtime error" in front.
fn message(e: &rhai::EvalAltResult) -> String {
    match e {
        rhai::EvalAltResult::ErrorRuntime(v, _) => v.to_string(),
        other => other.to_string(),
    }
}

fn limit(key: &str, v: &Dynamic) -> RhaiResult<i64> {
    match v.as_int() {
        Ok(n) if n >= 0 => Ok(n),
        _ => fail(format!("steps: `{key}` must be a number of pieces (0 or more), not {v}")),
    }
}

/// The zone a link leads to from `from`, and whether that crosses it against its direction
/// (only a one-way link crossed from its `to` end); `None` when the link does not touch `from`.
pub(super) fn link_from(edge: &EdgeDef, from: ZoneId) -> Option<(ZoneId, bool)> {
    if edge.from == from {
        Some((edge.to, false))
    } else if edge.to == from {
        Some((edge.from, edge.one_way))
    } else {
        None
    }
}

/// A link as scripts see it: `#{to, kind, against}`.
pub(super) fn link_map(defs: &Defs, to: ZoneId, kind: Option<&ImmutableString>, against: bool) -> Dynamic {
    let mut link = Map::new();
    link.insert("to".into(), Dynamic::from(defs.zone_names[to as usize].clone()));
    link.insert("kind".into(), kind.cloned().map(Dynamic::from).unwrap_or(Dynamic::UNIT));
    link.insert("against".into(), Dynamic::from(against));
    Dynamic::from_map(link)
}

/// The spaces one step from `from` that `rule` lets a piece reach, each once, in the order of
/// the links that reach them (`game.links`). `read(zone)` gives the state for reading a zone's
/// pieces (noting the read); it is asked only of a space whose limit could stop the step.
pub(super) fn steps<'a>(
    defs: &Defs,
    from: ZoneId,
    rule: &StepRule,
    read: impl Fn(ZoneId) -> std::cell::Ref<'a, Box<State>>,
) -> Array {
    let mut reached: Vec<ZoneId> = Vec::new();
    for edge in defs.edges_of(from) {
        let Some(to) = rule.crossing(defs, edge, from) else { continue };
        if reached.contains(&to) {
            continue;
        }
        if let Some(limit) = rule.limit_of(defs, to) {
            let s = read(to);
            let full = i64::from(s.count(to)) >= limit;
            if full && !rule.passes.as_ref().is_some_and(|f| s.pieces_in_any_order(to).any(|p| f.matches(defs, &s, p)))
            {
                continue;
            }
        }
        reached.push(to);
    }
    reached.into_iter().map(|z| Dynamic::from(defs.zone_names[z as usize].clone())).collect()
}
