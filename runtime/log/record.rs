//! From a game to its log: the header that pins the rules, and one entry per action and chance
//! outcome, read off the game's recorded events.

use super::{Entry, EntryKind, Log, Tag, TagValue};
use crate::event::Event;
use crate::flow::Game;
use crate::rules::{Defs, PropKind, Rules};

/// The header of a log of a game of `rules` with `players` seats and this seed.
pub fn header_for(rules: &Rules, players: u8, seed: Option<u64>) -> Vec<Tag> {
    let tag = |name: &str, value: TagValue| Tag { name: name.into(), value, comment: None, line: 0 };
    let mut tags = vec![tag("ruleset", TagValue::Text(rules.id.clone()))];
    for v in &rules.variants {
        tags.push(tag("variant", TagValue::Text(v.clone())));
    }
    for (k, v) in &rules.overrides {
        tags.push(tag("set", TagValue::Text(format!("{k}={v}"))));
    }
    tags.push(tag("players", TagValue::Int(u64::from(players))));
    let seats: Vec<&str> = rules.seats.iter().take(players as usize).map(|s| s.name.as_str()).collect();
    tags.push(tag("seats", TagValue::Text(seats.join(" "))));
    if let Some(seed) = seed {
        tags.push(tag("seed", TagValue::Int(seed)));
    }
    tags.push(tag("fingerprint", TagValue::Text(format!("{:016x}", rules.fingerprint))));
    tags.push(tag("engine", TagValue::Text(format!("tabula {}", env!("CARGO_PKG_VERSION")))));
    tags
}

/// The `[ruleset_path]` tag of a log file written for a ruleset that its name does not find
/// from any working folder (one's own, in a folder of one's own, even the current one): its
/// folder, absolute, so that the log replays from anywhere on this machine. Files written by `play --log` and `sim --log` carry it after the
/// `[ruleset]` tag; logs made in memory do not (a path is no part of the game).
pub fn ruleset_path_tag(rules: &Rules) -> Option<Tag> {
    crate::rules::load::folder_not_found_by_name(rules).map(|folder| Tag {
        name: "ruleset_path".into(),
        value: TagValue::Text(folder.display().to_string()),
        comment: None,
        line: 0,
    })
}

/// A face as written in logs: its number or word.
fn face_text(defs: &Defs, piece: u16, face: i64) -> String {
    let kind = &defs.kinds[defs.pieces[piece as usize].kind as usize];
    match kind.props.iter().find(|p| p.name == "face").map(|p| &p.kind) {
        Some(k @ PropKind::Word(_)) => defs.show_prop(k, face),
        _ => face.to_string(),
    }
}

/// The log entry of an event, for events that go into logs (actions, chance, the end).
pub(crate) fn entry_of(defs: &Defs, event: &Event, timed: bool) -> Option<Entry> {
    let kind = match event {
        Event::Acted { by_rules: true, .. } => return None,
        Event::Acted { action, at, .. } => EntryKind::Action {
            seat: defs.seats[action.seat as usize].name.clone(),
            time: timed.then_some(*at),
            name: defs.actions[action.action as usize].name.clone(),
            args: crate::event::describe_args(defs, action),
        },
        Event::Rolled { piece, face } => EntryKind::Chance {
            kind: "roll".into(),
            args: vec![defs.pieces[*piece as usize].name.clone(), face_text(defs, *piece, *face)],
        },
        Event::Shuffled { zone, order } => EntryKind::Chance {
            kind: "shuffle".into(),
            args: std::iter::once(defs.zones[*zone as usize].name.clone())
                .chain(order.iter().map(|p| defs.pieces[*p as usize].name.clone()))
                .collect(),
        },
        Event::Picked { zone, piece } => EntryKind::Chance {
            kind: "pick".into(),
            args: vec![defs.zones[*zone as usize].name.clone(), defs.pieces[*piece as usize].name.clone()],
        },
        Event::Random { n, value } => {
            EntryKind::Chance { kind: "random".into(), args: vec![n.to_string(), value.to_string()] }
        }
        Event::Ended(o) => EntryKind::Result(defs.outcomes[*o as usize].name.clone()),
        Event::TimerFired(t) => {
            let timer = &defs.timers[*t as usize];
            return Some(Entry { kind: EntryKind::Clock(timer.at), comment: Some(timer.name.clone()), line: 0 });
        }
        _ => return None,
    };
    Some(Entry::new(kind))
}

/// The whole log of a recorded game (`Game::recorded`) so far.
pub fn record(game: &Game, seed: Option<u64>) -> Log {
    let mut recorder = Recorder::default();
    Log { tags: header_for(game.rules(), game.players(), seed), entries: recorder.take(game) }
}

/// Turns a recorded game's new events into log entries, a step at a time (for logs written
/// while the game is played).
#[derive(Debug, Default)]
pub struct Recorder {
    next_event: usize,
}

impl Recorder {
    /// A recorder that starts after the events the game already has (a resumed game).
    pub fn after(game: &Game) -> Self {
        Recorder { next_event: game.events().len() }
    }

    /// Whether [`Recorder::take`] would give nothing now: every event since the last call
    /// makes no entry.
    pub fn is_up_to_date(&self, game: &Game) -> bool {
        self.entries_since(game).next().is_none()
    }

    /// The entries for the events since the last call.
    pub fn take(&mut self, game: &Game) -> Vec<Entry> {
        let entries = self.entries_since(game).collect();
        self.next_event = game.events().len();
        entries
    }

    /// The entries of the events since the last [`Recorder::take`].
    fn entries_since<'g>(&self, game: &'g Game) -> impl Iterator<Item = Entry> + 'g {
        let defs = &**game.rules();
        // Real-time games (with timers) write each action's game time; turn-based ones do not.
        let timed = !defs.timers.is_empty();
        let events = &game.events()[self.next_event.min(game.events().len())..];
        events.iter().filter_map(move |e| entry_of(defs, e, timed))
    }
}
