//! What a served table (`tabula serve`) sends a seat: its view, what it was told since its last
//! decision, and its options. Built here, in the library, from the same seat-facing functions
//! as the terminal's screen (`view`, `narrate`, the legal actions), so that the information-set
//! test can compare it for two games that differ only in what the seat may not see.

use serde::Serialize;

use crate::event::describe_action;
use crate::flow::Game;
use crate::narrate::narrate_marked;
use crate::rules::SeatId;
use crate::value::Action;
use crate::view::{View, view};

/// The most lines of narration a message carries (the latest): a seat that has not decided for
/// a long while in a real-time game is told the end of the story.
pub const MAX_STORY_LINES: usize = 400;

/// How a seat is asked to act, as a message says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AskedNow {
    /// The game waits for this seat.
    Turn,
    /// The seat may act out of turn, or let the game go on (`pass`).
    OutOfTurn,
    /// A real-time game: the seat may act whenever it has options; nobody waits.
    RealTime,
}

/// One line a seat is told.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Told {
    /// The line.
    pub text: String,
    /// Whether it is a headline (an action, a phase, a timer, the end, a change of the seat's own).
    pub headline: bool,
}

/// What a served table sends one seat: everything in it is what the seat may see.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SeatMessage {
    /// Counts the messages that differed for this seat (the server sets it; 0 here). A client
    /// answers with the version of the options it chose from.
    pub version: u64,
    /// The seat's name.
    pub seat: String,
    /// The ruleset's name.
    pub game: String,
    /// Whether the game is played in real time (the clock runs on its own).
    pub real_time: bool,
    /// Whether and how the seat is asked to act now (`None`: it is not).
    pub asked: Option<AskedNow>,
    /// The seat's options, written as in logs (`seat: action args`), in the order a choice
    /// names them by (0 first).
    pub options: Vec<String>,
    /// What the seat was told since its last decision, oldest first (at most
    /// [`MAX_STORY_LINES`], the latest).
    pub story: Vec<Told>,
    /// How many lines of the story were left out at its start.
    pub story_cut: usize,
    /// The seat's view (its zones, counters, phase, clock, outcome).
    pub view: View,
}

/// The message for `seat` of `game`: its view, the story since event `told` (the end of the
/// game's event stream at the seat's last decision), and, when it is `asked`, the options
/// `legal` (the seat's legal actions, listed by the caller, who keeps them to apply a choice).
pub fn seat_message(game: &Game, seat: SeatId, told: usize, asked: Option<AskedNow>, legal: &[Action]) -> SeatMessage {
    let defs = &**game.rules();
    let events = &game.events()[told.min(game.events().len())..];
    let mut story: Vec<Told> =
        narrate_marked(game, Some(seat), events).into_iter().map(|(text, headline)| Told { text, headline }).collect();
    let story_cut = story.len().saturating_sub(MAX_STORY_LINES);
    story.drain(..story_cut);
    let options = if asked.is_some() { legal.iter().map(|a| describe_action(defs, a)).collect() } else { Vec::new() };
    SeatMessage {
        version: 0,
        seat: defs.seats[seat as usize].name.clone(),
        game: defs.name.clone(),
        real_time: defs.pace.is_some(),
        asked,
        options,
        story,
        story_cut,
        view: view(game, Some(seat)),
    }
}
