//! The replay viewer (`tabula view`): a game log replayed step by step into one self-contained
//! HTML page that draws each step's state in a browser.
//!
//! The page holds data only the library made: at every step, a seat's `view`, what the seat was
//! told (`narrate`), its options and its copy of the step's log lines, all through the one
//! visibility rule. A page made for one seat holds nothing else, so that nothing it may not see
//! is in the file, not even out of sight in the page's data. The page's script only draws.

use std::rc::Rc;

use indexmap::IndexMap;
use serde::Serialize;

use crate::log::{EntryKind, Log, ReplayError, replay_steps, seat_log};
use crate::narrate::narrate;
use crate::rules::raw::RawZoneLayout;
use crate::rules::{Rules, SeatId};
use crate::view::{View, describe_options, view};

/// The whole game for one observer: a seat, or everyone (`seat: None`).
#[derive(Clone, Debug, Serialize)]
pub struct Timeline {
    /// The seat this timeline is for (`None`: everything).
    pub seat: Option<String>,
    /// One entry per step: the setup, then each action or clock line.
    pub steps: Vec<Step>,
}

/// One step of a game as an observer saw it.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// The step's line in the log file (everyone's timeline only: a seat's copy of a log has its
    /// own numbering).
    pub line: Option<usize>,
    /// The step's log lines as the observer sees them (other seats' secrets masked).
    pub text: Vec<String>,
    /// What the observer was told of the step.
    pub events: Vec<String>,
    /// The state after the step, as the observer sees it.
    pub view: View,
    /// The options of each seat to decide (the observer's own only, in a seat's timeline).
    pub options: IndexMap<String, Vec<String>>,
}

/// What the page needs to know of the rules to draw them: public definitions only (no piece is
/// named here: a page for a seat names only the pieces that seat sees).
#[derive(Clone, Debug, Serialize)]
pub struct Board {
    /// The game's name.
    pub title: String,
    /// The seats in play.
    pub seats: Vec<String>,
    /// Whether the game runs on a clock.
    pub real_time: bool,
    /// Edges between zones (a board graph): from, to, kind, one way.
    pub edges: Vec<(String, String, Option<String>, bool)>,
    /// Counters with their ranges (drawn as tracks when short).
    pub counters: IndexMap<String, (i64, i64)>,
    /// `[layout]` hints by zone.
    pub layout: IndexMap<String, RawZoneLayout>,
}

/// The board of a ruleset as the page draws it.
pub fn board(rules: &Rules, players: u8) -> Board {
    let zone = |z: u16| rules.zones[z as usize].name.clone();
    Board {
        title: rules.name.clone(),
        seats: rules.seats.iter().take(players as usize).map(|s| s.name.clone()).collect(),
        real_time: rules.pace.is_some(),
        edges: rules
            .edges
            .iter()
            .map(|e| (zone(e.from), zone(e.to), e.kind.as_ref().map(|k| k.to_string()), e.one_way))
            .collect(),
        counters: rules.counters.iter().map(|c| (c.name.clone(), (c.min, c.max))).collect(),
        layout: rules.layout.clone(),
    }
}

/// The timeline of a log for `seat` (or everyone).
pub fn timeline(log: &Log, rules: Rc<Rules>, seat: Option<SeatId>) -> Result<Timeline, ReplayError> {
    // The log's lines as the observer sees them, grouped by step: a seat's copy masks other
    // seats' secrets and drops every comment.
    let lines = match seat {
        Some(s) => seat_log(log, rules.clone(), s)?,
        None => log.clone(),
    };
    let mut texts: Vec<Vec<String>> = vec![Vec::new()];
    for entry in &lines.entries {
        if matches!(entry.kind, EntryKind::Action { .. } | EntryKind::Clock(_)) {
            texts.push(Vec::new());
        }
        if let Some(step) = texts.last_mut() {
            step.push(entry.to_string());
        }
    }
    let mut steps = Vec::new();
    replay_steps(log, rules.clone(), &mut |game, index, events| {
        let options = game
            .to_act()
            .into_iter()
            .filter(|&s| seat.is_none_or(|own| own == s))
            .map(|s| (rules.seats[s as usize].name.clone(), describe_options(game, s)))
            .collect();
        steps.push(Step {
            line: if seat.is_none() { index.map(|i| log.entries[i].line) } else { None },
            text: texts.get(steps.len()).cloned().unwrap_or_default(),
            events: narrate(game, seat, &game.events()[events]),
            view: view(game, seat),
            options,
        });
    })?;
    Ok(Timeline { seat: seat.map(|s| rules.seats[s as usize].name.clone()), steps })
}

/// The page's data: the board and one timeline per observer on offer.
#[derive(Clone, Debug, Serialize)]
pub struct Page {
    /// The log file's name.
    pub log: String,
    /// What the page draws on.
    pub board: Board,
    /// The observers the page offers (everyone and each seat, or one seat).
    pub timelines: Vec<Timeline>,
}

/// The page: `viewer.html` with the data in it. The data is JSON inside a script element; `<`
/// is escaped so that no text of a game can close the element.
pub fn html(page: &Page) -> String {
    let data = serde_json::to_string(page).unwrap_or_default().replace('<', "\\u003c");
    include_str!("viewer.html").replace("/*TABULA_DATA*/null", &data)
}
