//! The speed benchmark: for every shipped ruleset, games per second on one thread and heap
//! allocations per game, with the random agent and with the ruleset's own agent, as the
//! Markdown table README.md shows.
//!
//! ```text
//! cargo run --release --example bench                   # the table (about a minute)
//! cargo run --release --example bench -- --seconds 10   # longer runs, steadier figures
//! cargo run --release --example bench -- east-berlin    # only the rulesets named
//! ```
//!
//! Each row plays games seeded 0, 1, 2... until it has played `--games` of them or spent
//! `--seconds`, whichever comes first, so a slow ruleset plays fewer games. Allocations are
//! counted by this program's own global allocator (around mimalloc, the `tabula` command's):
//! "after setup" counts from the moment the game is set up and its agents made to the game's end
//! (what a playout costs a search agent), "with setup" the whole game. A game is timed with its
//! setup. The CPU time per decision is the thread's own (Linux's `/proc/thread-self/schedstat`;
//! wall time elsewhere): on a shared machine it moves less than games per second, but compare
//! builds side by side all the same.

use std::alloc::{GlobalAlloc, Layout};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tabula::rng::Rng;
use tabula::sim::{play_out, seated_agents};
use tabula::{Game, LoadOptions};

/// Counts every allocation (and reallocation) the program makes, on any thread.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed to mimalloc unchanged; only a counter changes here.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One row of the table: a ruleset, its player count.
struct Case {
    ruleset: &'static str,
    players: Option<u8>,
}

/// The shipped rulesets, each at the player count its README measures.
const CASES: &[Case] = &[
    Case { ruleset: "east-berlin", players: None },
    Case { ruleset: "temple", players: Some(4) },
    Case { ruleset: "colditz", players: None },
    Case { ruleset: "blackgate", players: None },
    Case { ruleset: "escape-plan", players: Some(3) },
];

/// What one row measured.
struct Row {
    games: u64,
    seconds: f64,
    decisions: u64,
    cpu_seconds: f64,
    after_setup: u64,
    with_setup: u64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut max_games = 2000u64;
    let mut budget = Duration::from_secs(4);
    let mut only: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--games" => max_games = args.next().ok_or("--games needs a number")?.parse()?,
            "--seconds" => budget = Duration::from_secs_f64(args.next().ok_or("--seconds needs a number")?.parse()?),
            name if !name.starts_with('-') => only.push(name.to_string()),
            other => {
                return Err(format!("unknown option {other}; expected --games N, --seconds S or ruleset names").into());
            }
        }
    }
    println!(
        "| ruleset | players | agent | games/s (one thread) | decisions/game | CPU µs/decision | allocations/game after setup | allocations/game with setup | games played |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for case in CASES.iter().filter(|c| only.is_empty() || only.iter().any(|o| o == c.ruleset)) {
        let rules = Rc::new(tabula::load(case.ruleset, &LoadOptions::default())?);
        let players = case.players.unwrap_or(rules.players.0);
        // The random agent, and the ruleset's own where it has one.
        let mut agents = vec!["random".to_string()];
        if rules.default_agent != "random" {
            agents.push(rules.default_agent.clone());
        }
        for agent in agents {
            let row = measure(&rules, players, &agent, max_games, budget)?;
            let games = row.games as f64;
            println!(
                "| {} | {players} | {agent} | {:.0} | {:.0} | {:.1} | {:.0} | {:.0} | {} |",
                case.ruleset,
                games / row.seconds,
                row.decisions as f64 / games,
                row.cpu_seconds * 1e6 / row.decisions.max(1) as f64,
                row.after_setup as f64 / games,
                row.with_setup as f64 / games,
                row.games
            );
        }
    }
    Ok(())
}

/// Plays games seeded 0, 1, 2... with `agent` on every seat until `max_games` or `budget`.
fn measure(
    rules: &Rc<tabula::Rules>,
    players: u8,
    agent: &str,
    max_games: u64,
    budget: Duration,
) -> Result<Row, tabula::Error> {
    let kinds = vec![agent.to_string(); players as usize];
    let mut row = Row { games: 0, seconds: 0.0, decisions: 0, cpu_seconds: 0.0, after_setup: 0, with_setup: 0 };
    let start = Instant::now();
    let cpu_start = thread_cpu_seconds();
    while row.games < max_games && (row.games == 0 || start.elapsed() < budget) {
        // Seeded as `tabula sim --seed 0` seeds its games.
        let seed = Rng::derive_seed(0, row.games);
        let before_setup = ALLOCATIONS.load(Ordering::Relaxed);
        let mut game = Game::new(rules.clone(), players, seed)?;
        let mut seats = seated_agents(rules, &kinds, seed)?;
        let after_setup = ALLOCATIONS.load(Ordering::Relaxed);
        row.decisions += play_out(&mut game, &mut seats, 1_000_000)?;
        let end = ALLOCATIONS.load(Ordering::Relaxed);
        row.after_setup += end - after_setup;
        row.with_setup += end - before_setup;
        row.games += 1;
    }
    row.seconds = start.elapsed().as_secs_f64();
    row.cpu_seconds = match (cpu_start, thread_cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => row.seconds,
    };
    Ok(row)
}

/// The CPU time this thread has run, in seconds, where the system tells it (Linux).
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanoseconds: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanoseconds as f64 / 1e9)
}
