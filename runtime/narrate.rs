//! What a seat is told: the events since it last looked, through its visibility, and the
//! screen the terminal shows it when it must decide.
//!
//! Narration follows the same rule as `view`: a seat sees a piece while it lies face up or in a
//! zone that shows that seat everything. Events carry no visibility of their own, so the pieces'
//! zones and faces at the time of each event are rebuilt by walking the events back from the
//! present state, then forward again. What the seat could not see is told only as far as the
//! counts it sees (a piece leaves a hand it sees the size of), or not at all.

use crate::event::{Event, describe_action};
use crate::flow::Game;
use crate::log::MASKED;
use crate::rules::{Defs, PieceId, SeatId, Sight, ZoneId};
use crate::view::{format_clock, may_show_prop, view};

/// The lines `seat` is told about `events`, which must be the latest events of `game` (the
/// game's state is the state after them). `None` narrates everything (an observer).
pub fn narrate(game: &Game, seat: Option<SeatId>, events: &[Event]) -> Vec<String> {
    let defs = &**game.rules();
    let state = game.state();
    // Where each piece lay, and how, before the first of these events.
    let mut zone_of: Vec<ZoneId> = (0..defs.pieces.len()).map(|p| state.zone_of(p as PieceId)).collect();
    let mut face_up: Vec<bool> = (0..defs.pieces.len()).map(|p| state.is_face_up(p as PieceId)).collect();
    for e in events.iter().rev() {
        match e {
            Event::Moved { piece, from, .. } => zone_of[*piece as usize] = *from,
            Event::Turned { piece, up } => face_up[*piece as usize] = !up,
            _ => {}
        }
    }
    let sight = |z: ZoneId| seat.map_or(Sight::All, |s| defs.zones[z as usize].sight(s));
    let sees = |z: ZoneId, up: bool| up || sight(z) == Sight::All;
    let piece = |p: PieceId| defs.pieces[p as usize].name.as_str();
    let zone = |z: ZoneId| defs.zones[z as usize].name.as_str();
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::PhaseEntered(p) => out.push(format!("phase {}", defs.phases[*p as usize].name)),
            Event::Acted { action, .. } => {
                let def = &defs.actions[action.action as usize];
                let line = if def.secret && seat.is_some_and(|s| s != action.seat) {
                    let masked = vec![MASKED; action.args.len()].join(" ");
                    format!("{}: {} {masked}", defs.seats[action.seat as usize].name, def.name).trim_end().to_string()
                } else {
                    describe_action(defs, action)
                };
                out.push(line);
            }
            Event::Moved { piece: p, from, to } => {
                let up = face_up[*p as usize];
                let (before, after) = (sees(*from, up), sees(*to, up));
                zone_of[*p as usize] = *to;
                let line = match (before, after) {
                    (true, true) => format!("{} moves from {} to {}", piece(*p), zone(*from), zone(*to)),
                    (false, true) if sight(*from) != Sight::None => {
                        format!("{} comes from {} to {}", piece(*p), zone(*from), zone(*to))
                    }
                    (false, true) => format!("{} comes to {}", piece(*p), zone(*to)),
                    (true, false) if sight(*to) != Sight::None => {
                        format!("{} leaves {} for {}", piece(*p), zone(*from), zone(*to))
                    }
                    (true, false) => format!("{} leaves {}", piece(*p), zone(*from)),
                    (false, false) => match (sight(*from) != Sight::None, sight(*to) != Sight::None) {
                        (true, true) => format!("a hidden piece moves from {} to {}", zone(*from), zone(*to)),
                        (true, false) => format!("a hidden piece leaves {}", zone(*from)),
                        (false, true) => format!("a hidden piece comes to {}", zone(*to)),
                        (false, false) => continue,
                    },
                };
                out.push(line);
            }
            Event::Turned { piece: p, up } => {
                let z = zone_of[*p as usize];
                let seen_before = sees(z, !up);
                face_up[*p as usize] = *up;
                if *up && !seen_before {
                    out.push(format!("{} is turned face up in {}", piece(*p), zone(z)));
                } else if !up && !sees(z, false) {
                    out.push(format!("{} is turned face down in {}", piece(*p), zone(z)));
                }
            }
            Event::PropSet { piece: p, slot, value } => {
                if !sees(zone_of[*p as usize], face_up[*p as usize]) {
                    continue;
                }
                let def = &defs.pieces[*p as usize];
                let prop = &defs.kinds[def.kind as usize].props[*slot as usize - def.prop_base];
                let shown = if may_show_prop(defs, state, seat, *p, *slot as usize - def.prop_base, *value) {
                    defs.show_prop(&prop.kind, *value)
                } else {
                    MASKED.to_string()
                };
                out.push(format!("{}: {} = {shown}", piece(*p), prop.name));
            }
            Event::CounterSet { counter, value } => {
                let def = &defs.counters[*counter as usize];
                if crate::view::counter_shown(def, seat) {
                    out.push(format!("{} = {value}", def.name));
                }
            }
            Event::Rolled { piece: p, face } => {
                if sees(zone_of[*p as usize], face_up[*p as usize]) {
                    out.push(format!("{} rolls {}", piece(*p), face_text(defs, *p, *face)));
                }
            }
            Event::Shuffled { zone: z, .. } => {
                if sight(*z) != Sight::None {
                    out.push(format!("{} is shuffled", zone(*z)));
                }
            }
            Event::Picked { zone: z, piece: p } => {
                if sees(*z, face_up[*p as usize]) {
                    out.push(format!("{} is taken at random from {}", piece(*p), zone(*z)));
                } else if sight(*z) != Sight::None {
                    out.push(format!("a piece is taken at random from {}", zone(*z)));
                }
            }
            // A script's random draw decides something hidden, or shows in what follows.
            Event::Random { .. } | Event::Note(_) => {}
            Event::Said { seats, text } => {
                if seat.is_none_or(|s| seats & (1u32 << s) != 0) {
                    out.push(text.clone());
                }
            }
            Event::TimerFired(t) => {
                let timer = &defs.timers[*t as usize];
                out.push(format!("clock {}: {}", format_clock(timer.at), timer.name));
            }
            Event::Ended(o) => out.push(format!("game over: {}", defs.outcomes[*o as usize].name)),
        }
    }
    out
}

fn face_text(defs: &Defs, piece: PieceId, face: i64) -> String {
    let kind = &defs.kinds[defs.pieces[piece as usize].kind as usize];
    kind.props.iter().find(|p| p.name == "face").map(|p| defs.show_prop(&p.kind, face)).unwrap_or_default()
}

/// What the terminal shows `seat` when it must decide: what happened since event `told`
/// (narrated for the seat), its view, and its options numbered from 1.
pub fn screen(game: &Game, seat: SeatId, told: usize, options: &[String]) -> String {
    let mut out = String::new();
    let events = &game.events()[told.min(game.events().len())..];
    let lines = narrate(game, Some(seat), events);
    if !lines.is_empty() {
        out.push_str("since your last turn:\n");
        for line in lines {
            out.push_str(&format!("  {line}\n"));
        }
        out.push('\n');
    }
    out.push_str(&view(game, Some(seat)).render_compact(crate::view::SCREEN_WIDTH));
    for (i, option) in options.iter().enumerate() {
        out.push_str(&format!("  {:>2}. {option}\n", i + 1));
    }
    out
}
