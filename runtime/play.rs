//! `tabula play`: a game at the terminal, humans and agents at one table.
//!
//! A human seat is shown its own view only (built by `tabula::view`) and a numbered list of its
//! legal actions. With two humans at one screen, the screen is cleared and the next player is
//! asked to take the seat before anything of theirs is shown.

use std::io::{BufRead, Write};
use std::path::Path;
use std::rc::Rc;

use tabula::agent::{Agent, Decision, RandomAgent};
use tabula::diag::Sources;
use tabula::event::describe_action;
use tabula::log::{Recorder, ReplayOptions, header_for, parse, replay_with, rules_for};
use tabula::sim::agent_seed;
use tabula::view::view;
use tabula::{Error, Game, Rules};

/// A seed from the time of day, for games where none is given (printed so it can be replayed).
pub fn seed_from_time() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

/// Reads a human's choice from standard input.
struct Human {
    seat_name: String,
    /// Whether more than one human shares the screen (then the screen is hidden between turns).
    shared_screen: bool,
}

impl Agent for Human {
    fn choose(&mut self, decision: &Decision) -> Result<usize, Error> {
        if self.shared_screen {
            print!("\x1b[2J\x1b[H");
            print!("Pass the screen to {}, then press Enter.", self.seat_name);
            let _ = std::io::stdout().flush();
            let _ = read_line();
        }
        println!("\n{}", decision.view().render());
        for i in 0..decision.legal().len() {
            println!("  {:>2}. {}", i + 1, decision.describe(i));
        }
        loop {
            print!("{} > ", self.seat_name);
            let _ = std::io::stdout().flush();
            let Some(line) = read_line() else {
                println!("\nend of input: leaving the game");
                std::process::exit(0);
            };
            match line.trim().parse::<usize>() {
                Ok(n) if (1..=decision.legal().len()).contains(&n) => return Ok(n - 1),
                _ if decision.legal().len() == 1 && line.trim().is_empty() => return Ok(0),
                _ => println!("type a number from 1 to {}", decision.legal().len()),
            }
        }
    }
}

fn read_line() -> Option<String> {
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

/// A game at the terminal, and the log it is written to.
pub struct Table {
    game: Game,
    seed: u64,
    log: Option<(std::fs::File, Recorder)>,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

impl Table {
    /// A new game; with `log`, its log is written to that file as the game goes.
    pub fn new(rules: Rc<Rules>, seed: u64, players: Option<u8>, log: Option<&Path>) -> Result<Table, Error> {
        let players = players.unwrap_or(rules.players.0);
        let game = Game::recorded(rules.clone(), players, seed)?;
        let mut table = Table { game, seed, log: None };
        if let Some(path) = log {
            let mut file = std::fs::File::create(path).map_err(io(path))?;
            for tag in header_for(&rules, players, Some(seed)) {
                writeln!(file, "{tag}").map_err(io(path))?;
            }
            writeln!(file).map_err(io(path))?;
            table.log = Some((file, Recorder::default()));
            table.write_log()?;
        }
        Ok(table)
    }

    /// The game logged in `path`, replayed to where it stopped; play goes on logging to it.
    pub fn resume(path: &Path) -> Result<Table, Error> {
        let text = std::fs::read_to_string(path).map_err(io(path))?;
        let mut sources = Sources::default();
        let file = sources.add(path, text.clone());
        let log = parse(&text, file).map_err(|d| Error::Log(d, Box::new(sources.clone())))?;
        let rules = Rc::new(rules_for(&log)?);
        let replay = replay_with(&log, rules, &ReplayOptions { record: true, ..ReplayOptions::default() })
            .map_err(|e| Error::Log(Box::new(e.diagnostic(&sources, file)), Box::new(sources.clone())))?;
        if replay.game.is_over() {
            return Err(Error::Input(format!(
                "the game in {} is already over ({})",
                path.display(),
                replay.game.outcome().unwrap_or("")
            )));
        }
        let seed = log.int_tag("seed").unwrap_or(0);
        let out = std::fs::OpenOptions::new().append(true).open(path).map_err(io(path))?;
        println!("resuming {} after {} actions", path.display(), replay.actions);
        let recorder = Recorder::after(&replay.game);
        Ok(Table { game: replay.game, seed, log: Some((out, recorder)) })
    }

    /// The rules being played.
    pub fn rules(&self) -> Rc<Rules> {
        self.game.rules().clone()
    }

    /// Appends what happened since the last call to the log, and flushes it, so that a crash
    /// or Ctrl-C loses nothing.
    fn write_log(&mut self) -> Result<(), Error> {
        if let Some((file, recorder)) = &mut self.log {
            for entry in recorder.take(&self.game) {
                writeln!(file, "{entry}").map_err(|source| Error::Io { path: "log".into(), source })?;
            }
            file.flush().map_err(|source| Error::Io { path: "log".into(), source })?;
        }
        Ok(())
    }

    /// Plays the game to its end at the terminal.
    pub fn play(mut self, seats: &[(String, String)]) -> Result<(), Error> {
        let rules = self.rules();
        let players = self.game.players();
        let seed = self.seed;
        let mut kinds: Vec<&str> = (0..players).map(|s| if s == 0 { "human" } else { "random" }).collect();
        for (seat, kind) in seats {
            let Some(id) = rules.seat(seat).filter(|&s| s < players) else {
                let names: Vec<&str> = rules.seats.iter().take(players as usize).map(|s| s.name.as_str()).collect();
                return Err(Error::Input(format!("--seat {seat}: expected one of {}", names.join(", "))));
            };
            if kind != "human" && kind != "random" {
                return Err(Error::Input(format!("--seat {seat}={kind}: expected human or random")));
            }
            kinds[id as usize] = if kind == "human" { "human" } else { "random" };
        }
        let humans = kinds.iter().filter(|k| **k == "human").count();
        let mut agents: Vec<Box<dyn Agent>> = kinds
            .iter()
            .enumerate()
            .map(|(s, kind)| -> Box<dyn Agent> {
                if *kind == "human" {
                    Box::new(Human { seat_name: rules.seats[s].name.clone(), shared_screen: humans > 1 })
                } else {
                    Box::new(RandomAgent::new(agent_seed(seed, s as u8)))
                }
            })
            .collect();
        println!("{} — seed {seed}", rules.name);
        for (s, kind) in kinds.iter().enumerate() {
            println!("  {}: {kind}", rules.seats[s].name);
        }
        while !self.game.is_over() {
            let Some(&seat) = self.game.to_act().first() else {
                return Err(Error::Input(format!("the game is stuck in phase `{}`", self.game.phase())));
            };
            let legal = self.game.legal_actions(seat)?;
            if legal.is_empty() {
                return Err(Error::Input(format!("{} has no legal action", rules.seats[seat as usize].name)));
            }
            let choice = agents[seat as usize].choose(&Decision::new(&self.game, seat, &legal))?.min(legal.len() - 1);
            if kinds[seat as usize] != "human" && humans > 0 {
                // Say that an agent acted without saying how when its action is secret.
                let def = &rules.actions[legal[choice].action as usize];
                if def.secret {
                    println!("{} takes a secret {} action", rules.seats[seat as usize].name, def.name);
                } else {
                    println!("{}", describe_action(&rules, &legal[choice]));
                }
            }
            self.game.apply(&legal[choice])?;
            self.write_log()?;
        }
        println!("\n{}", view(&self.game, None).render());
        Ok(())
    }
}
