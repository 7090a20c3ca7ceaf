//! tabula: a rules-as-data board-game engine.
//!
//! A ruleset folder (TOML components plus Rhai phase logic) is loaded once into [`rules::Rules`];
//! a [`flow::Game`] plays it: zones, pieces, counters, dice, phases, prompts and a clock, with
//! every seat seeing only its [`view::View`]. See `ARCHITECTURE.md` for the map of the code.

pub mod agent;
pub mod balance;
pub mod diag;
pub mod event;
pub mod flow;
pub mod log;
pub mod narrate;
pub mod rng;
pub mod rules;
pub mod script;
pub mod search;
pub mod seat_message;
pub mod secrecy;
pub mod sim;
pub mod state;
pub mod stats;
pub mod sweep;
pub mod value;
pub mod view;
pub mod viewer;

pub use diag::{Diagnostic, Error};
pub use flow::Game;
pub use rules::Rules;
pub use rules::load::{LoadOptions, load};
pub use value::{Action, Args, Value};
