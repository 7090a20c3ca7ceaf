//! What the search agent costs and how well it samples, in one ruleset: plays games with one
//! seat played by `search` (the others by the ruleset's default agent, or `--others`), and prints
//! its wins, how many of its decisions were searched on samples that matched all the seat saw,
//! and the CPU time a searched decision took.
//!
//! ```text
//! cargo run --release --example search -- RULESET SEAT [search:playouts=100] [games] [players] [others]
//! ```

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use tabula::agent::{Agent, Decision, Plan, Turn};
use tabula::search::{SearchAgent, SearchOptions, SearchStats};
use tabula::sim::{agent_seed, play_out, seated_agents};
use tabula::{Game, LoadOptions};

/// The search agent, shared so that its statistics can be read after the game.
struct Shared(Rc<RefCell<SearchAgent>>);

impl Agent for Shared {
    fn plan(&mut self, turn: &Turn) -> Result<Plan, tabula::Error> {
        self.0.borrow_mut().plan(turn)
    }
    fn choose(&mut self, decision: &Decision) -> Result<usize, tabula::Error> {
        self.0.borrow_mut().choose(decision)
    }
    fn react(&mut self, decision: &Decision) -> Result<Option<usize>, tabula::Error> {
        self.0.borrow_mut().react(decision)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_string());
    let rules = Rc::new(tabula::load(&arg(0, "east-berlin"), &LoadOptions::default())?);
    let seat_name = arg(1, &rules.seats[0].name);
    let spec = arg(2, "search");
    let games: u64 = arg(3, "10").parse()?;
    let players: u8 = arg(4, &rules.usual_players.to_string()).parse()?;
    let others = arg(5, &rules.default_agent);
    let seat = rules.seats.iter().position(|s| s.name == seat_name).ok_or("no such seat")? as u8;
    let options = SearchOptions::parse(&spec)?.ok_or("not a search agent")?;
    let (mut wins, mut total, mut decisions) = (0u64, SearchStats::default(), 0u64);
    let started = Instant::now();
    for i in 0..games {
        let seed = tabula::rng::Rng::derive_seed(0, i);
        let mut game = Game::recorded(rules.clone(), players, seed)?;
        let kinds = vec![others.clone(); players as usize];
        let mut agents = seated_agents(&rules, &kinds, seed)?;
        let searcher = Rc::new(RefCell::new(SearchAgent::new(rules.clone(), options.clone(), agent_seed(seed, seat))?));
        agents[seat as usize] = Box::new(Shared(searcher.clone()));
        decisions += match play_out(&mut game, &mut agents, 100_000) {
            Ok(n) => n,
            Err(e) => {
                println!("game {i} stopped: {e}");
                100_000
            }
        };
        let outcome = game.outcome().and_then(|name| rules.outcomes.iter().find(|o| o.name == name));
        wins += u64::from(outcome.is_some_and(|o| o.winners.contains(&seat)));
        let s = searcher.borrow().stats().clone();
        println!(
            "game {i}: {} ({} decisions searched, {} approximate)",
            game.outcome().unwrap_or("stopped"),
            s.decisions,
            s.approximate
        );
        total.decisions += s.decisions;
        total.approximate += s.approximate;
        total.playouts += s.playouts;
        total.rebuilt += s.rebuilt;
        total.dropped += s.dropped;
        total.failed += s.failed;
        total.overruled += s.overruled;
        total.unsampled += s.unsampled;
        total.helped += s.helped;
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{seat_name}={spec}: {wins}/{games} wins; {} decisions a game, {} searched ({} approximate, {} playing another option than the rollout agent's, {} where no option had two playouts), {} playouts, {} particles rebuilt, {} dropped, {} playouts failed, {} played by helper threads; {:.1} ms a searched decision (wall clock)",
        decisions / games.max(1),
        total.decisions,
        total.approximate,
        total.overruled,
        total.unsampled,
        total.playouts,
        total.rebuilt,
        total.dropped,
        total.failed,
        total.helped,
        1000.0 * seconds / total.decisions.max(1) as f64
    );
    Ok(())
}
