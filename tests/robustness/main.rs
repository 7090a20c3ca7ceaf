//! Bad input never panics, hangs or eats the machine: it gives an error that names the file and
//! the line. Every input path is covered, grouped by module:
//!
//! - `rulesets`: `game.toml`, variant overlays and Rhai scripts from the hand-made corpus in
//!   `tests/corpus/rulesets/` (one folder per case; its `game.toml` says what it tries);
//! - `logs`: game logs from `tests/corpus/logs/` and generated monsters (a 10 MB line, a
//!   million lines, binary garbage);
//! - `cli`: command lines however odd (ranges at the ends of the integers, more threads than
//!   the system starts), run through the binary under a deadline;
//! - `actions`: illegal actions through the library API, refused with a reason and leaving the
//!   game unchanged;
//! - `mutation`: a deterministic mutation harness over the corpus and the shipped rulesets and
//!   logs. It runs a bounded number of cases; `TABULA_FUZZ_CASES=100000 cargo test --test
//!   robustness mutation` runs that many per input instead (the default keeps this whole test
//!   binary well under a minute in a debug build);
//! - `viewer`: logs whose pages grew with the square of the game, a log named like its page,
//!   and clients of `tabula view --serve` that say nothing or too much.
//!
//! Each case runs under `guard::guarded`: in its own thread, with a deadline and a count of the
//! memory it allocates.

mod actions;
mod cli;
mod guard;
mod logs;
mod mutation;
mod rulesets;
mod viewer;

/// An empty scratch folder of this test process, `tabula-<name>-<process id>` in the system's
/// temporary folder. Whatever an earlier run left there is removed first: process ids repeat
/// (a fresh container gives the same ones each time), and a command that refuses to overwrite
/// earlier output must meet an empty folder.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

#[global_allocator]
static ALLOCATOR: guard::Counting = guard::Counting;
