//! Embedding tabula: load a ruleset, play a game with your own agent, read a seat's view, and
//! measure what a search agent pays to clone the game at every step.
//!
//! ```text
//! cargo run --release --example embed [ruleset]      # default: east-berlin
//! ```

use std::rc::Rc;
use std::time::Instant;

use tabula::agent::{Agent, Decision, RandomAgent};
use tabula::view::view;
use tabula::{Game, LoadOptions};

/// An agent of your own: here, the first option that is not "keep it in hand" or "stay".
struct Eager;

impl Agent for Eager {
    fn choose(&mut self, decision: &Decision) -> Result<usize, tabula::Error> {
        Ok((0..decision.legal().len())
            .find(|&i| {
                let text = decision.describe(i);
                !text.ends_with("_hand") && !text.ends_with(" stay")
            })
            .unwrap_or(0))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ruleset = std::env::args().nth(1).unwrap_or_else(|| "east-berlin".into());
    let rules = Rc::new(tabula::load(&ruleset, &LoadOptions::default())?);
    let mut game = Game::new(rules.clone(), rules.players.0, 7)?;
    let mut agents: Vec<Box<dyn Agent>> = vec![Box::new(Eager), Box::new(RandomAgent::new(7))];
    agents.resize_with(rules.players.0 as usize, || Box::new(RandomAgent::new(8)));

    // Play, cloning the game before every decision as a search agent would.
    let (mut clones, mut clone_time) = (0u32, std::time::Duration::ZERO);
    while !game.is_over() {
        let seat = game.to_act()[0];
        let legal = game.legal_actions(seat)?;
        let start = Instant::now();
        for _ in 0..100 {
            std::hint::black_box(game.clone());
        }
        clone_time += start.elapsed();
        clones += 100;
        let choice = agents[seat as usize].choose(&Decision::new(&game, seat, &legal))?;
        game.apply(&legal[choice])?;
    }
    println!("{}", view(&game, None).render());
    println!("outcome: {}", game.outcome().unwrap_or("none"));
    println!(
        "cloning the game: {:.0} ns per clone ({clones} clones)",
        clone_time.as_nanos() as f64 / f64::from(clones)
    );
    Ok(())
}
