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
use crate::view::compact::cut;
use crate::view::{format_clock, may_show_prop, view};

/// The lines `seat` is told about `events`, which must be the latest events of `game` (the
/// game's state is the state after them). `None` narrates everything (an observer).
pub fn narrate(game: &Game, seat: Option<SeatId>, events: &[Event]) -> Vec<String> {
    narrate_marked(game, seat, events).into_iter().map(|(line, _)| line).collect()
}

/// [`narrate`], each line marked with whether it is a headline: an action, a phase, a timer,
/// something said to the seat, the game's end, or a change in one of the seat's own zones or
/// counters. The terminal's screen leads with the headlines when there is no room for all.
pub fn narrate_marked(game: &Game, seat: Option<SeatId>, events: &[Event]) -> Vec<(String, bool)> {
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
    let mine = |z: ZoneId| seat.is_some() && defs.zones[z as usize].owner == seat;
    let mut out = Vec::new();
    let mut headlines = Vec::new();
    for e in events {
        let headline = match e {
            Event::Moved { from, to, .. } => mine(*from) || mine(*to),
            Event::Turned { piece, .. } | Event::PropSet { piece, .. } | Event::Rolled { piece, .. } => {
                mine(zone_of[*piece as usize])
            }
            Event::Picked { zone, .. } | Event::Shuffled { zone, .. } => mine(*zone),
            Event::CounterSet { counter, .. } => seat.is_some() && defs.counters[*counter as usize].owner == seat,
            _ => true,
        };
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
                // The scripts' bookkeeping (`shown = false`) is not told, as it is not shown.
                if !prop.shown {
                    continue;
                }
                let shown = if may_show_prop(defs, state, seat, *p, *slot as usize - def.prop_base, *value) {
                    defs.show_prop(&prop.kind, *value)
                } else {
                    MASKED.to_string()
                };
                out.push(format!("{}: {} = {shown}", piece(*p), prop.name));
            }
            Event::CounterSet { counter, value } => {
                let def = &defs.counters[*counter as usize];
                if def.shown && crate::view::counter_shown(def, seat) {
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
        headlines.resize(out.len(), headline);
    }
    out.into_iter().zip(headlines).collect()
}

fn face_text(defs: &Defs, piece: PieceId, face: i64) -> String {
    let kind = &defs.kinds[defs.pieces[piece as usize].kind as usize];
    kind.props.iter().find(|p| p.name == "face").map(|p| defs.show_prop(&p.kind, face)).unwrap_or_default()
}

/// At least this many lines tell what happened since the seat's last screen (when something
/// did: the heading, two lines or a line and how many more, the blank line after), however long
/// the view: more when the view leaves room.
const TOLD_LINES: usize = 5;

/// Lines of the screen that are not the screen's own: the blank line before it, and the
/// prompt (or the out-of-turn note and the prompt) after it.
const PROMPT_LINES: usize = 3;

/// What the terminal shows `seat` when it must decide, in one screen of
/// [`SCREEN_LINES`](crate::view::SCREEN_LINES) lines of
/// [`SCREEN_WIDTH`](crate::view::SCREEN_WIDTH) columns: what happened since event `told`
/// (narrated for the seat; when that is long, the headlines of it: actions, phases and what
/// touched the seat's own zones), its compact view, and its options numbered from 1 (in
/// columns when there are many). [`details`] is all of it.
pub fn screen(game: &Game, seat: SeatId, told: usize, options: &[String]) -> String {
    let (width, height) = (crate::view::SCREEN_WIDTH, crate::view::SCREEN_LINES);
    let events = &game.events()[told.min(game.events().len())..];
    let lines = narrate_marked(game, Some(seat), events);
    let seat_name = &game.rules().seats[seat as usize].name;
    let menu = option_lines(options, seat_name, width, height / 4);
    // The view takes what it needs, leaving the story at least its few lines; the story then
    // takes the rest.
    let story_min = if lines.is_empty() { 0 } else { TOLD_LINES.min(lines.len() + 2) };
    let room = height.saturating_sub(PROMPT_LINES + menu.len() + story_min).max(8);
    let view_text = view(game, Some(seat)).render_fitted(width, room);
    let mut out = String::new();
    if !lines.is_empty() {
        out.push_str("since your last turn:\n");
        // The heading and the blank line after the story are lines of it too.
        let room = height.saturating_sub(PROMPT_LINES + menu.len() + view_text.lines().count() + 2).max(2);
        let shown: Vec<&String> = if lines.len() <= room {
            lines.iter().map(|(l, _)| l).collect()
        } else {
            let headlines: Vec<&String> = lines.iter().filter(|(_, h)| *h).map(|(l, _)| l).collect();
            let kept = &headlines[headlines.len().saturating_sub(room - 1)..];
            out.push_str(&format!("  ({} more lines: type `more`)\n", lines.len() - kept.len()));
            kept.to_vec()
        };
        for line in shown {
            out.push_str(&format!("  {}\n", cut(line, width - 2)));
        }
        out.push('\n');
    }
    out.push_str(&view_text);
    for line in menu {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Everything the seat was told since event `told`, its whole view, and every option: what
/// `more` shows at the prompt, and every screen with `tabula play --verbose`.
pub fn details(game: &Game, seat: SeatId, told: usize, options: &[String]) -> String {
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
    out.push_str(&view(game, Some(seat)).render());
    for (i, option) in options.iter().enumerate() {
        out.push_str(&format!("  {:>2}. {option}\n", i + 1));
    }
    out
}

/// The options numbered from 1, without the seat's name they all start with, in as many
/// columns as `width` holds (numbered down each column), in at most `max` lines: the last says
/// how many more `more` lists.
fn option_lines(options: &[String], seat: &str, width: usize, max: usize) -> Vec<String> {
    let prefix = format!("{seat}: ");
    let items: Vec<String> = options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{:>3}. {}", i + 1, o.strip_prefix(&prefix).unwrap_or(o)))
        .collect();
    if items.len() <= 6.min(max) {
        return items.iter().map(|i| cut(i, width)).collect();
    }
    let widest = items.iter().map(|i| i.chars().count()).max().unwrap_or(0) + 2;
    let columns = (width / widest).max(1);
    let (rows, shown) = match items.len().div_ceil(columns) {
        rows if rows <= max => (rows, items.len()),
        // The last line says how many are left out.
        _ => (max - 1, (max - 1) * columns),
    };
    let mut lines = Vec::new();
    for r in 0..rows {
        let mut line = String::new();
        for c in 0..columns {
            let k = c * rows + r;
            if k < shown
                && let Some(item) = items.get(k)
            {
                line.push_str(&format!("{item:<widest$}"));
            }
        }
        lines.push(cut(line.trim_end(), width));
    }
    if shown < items.len() {
        lines.push(format!("  ({} more options: type `more` to list them all)", items.len() - shown));
    }
    lines
}
