//! The integration tests, in one test binary so that the library and its dependencies are linked
//! once (as ripgrep's `tests/` does); `tests/robustness/` is the other binary, because it counts
//! every allocation through its own global allocator.
//!
//! Each module reads like an example of one part of tabula: a ruleset (from `rulesets/`,
//! `examples/rulesets/` or `tests/fixtures/`), what is done with it, and what must come out.
//! Run one module with `cargo test --test it logs::`. Snapshots live in `tests/it/snapshots/`,
//! named `it__<module>__<test>.snap`.

mod agent_options;
mod balance;
mod blackgate;
mod board_graph;
mod check;
mod cli;
mod cli_mistakes;
mod colditz;
mod common;
mod compiled;
mod dice_race;
mod docs;
mod east_berlin_scenarios;
mod escape_plan;
mod example_logs;
mod features;
mod grid;
mod hot_reload;
mod kept_listings;
mod listed_values;
mod logs;
mod out_of_turn;
mod patterns;
mod playouts;
mod realtime;
mod regions;
mod rules_seats;
mod runtime_knows_no_game;
mod schema;
mod screens;
mod search;
mod secrecy;
mod seen_by;
mod serve;
mod sets;
mod steps;
mod temple;
mod terminal;
mod viewer;
