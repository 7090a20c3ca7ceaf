//! `tabula play`: a game at the terminal, humans and agents at one table.
//!
//! A human seat is shown its own view only (built by `tabula::view`) and a numbered list of its
//! legal actions. With two humans at one screen, the screen is cleared and the next player is
//! asked to take the seat before anything of theirs is shown.

use std::io::{BufRead, Write};
use std::path::Path;
use std::rc::Rc;

use tabula::agent::{Agent, Decision, RandomAgent, ScriptAgent};
use tabula::diag::Sources;
use tabula::event::Event;
use tabula::event::describe_action;
use tabula::log::{Recorder, ReplayOptions, header_for, parse, replay_with, rules_for};
use tabula::sim::{agent_seed, play_out_observed};
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

/// Appends what happened since the last call to the log, and flushes it, so that a crash or
/// Ctrl-C loses nothing.
fn write_log(log: &mut Option<(std::fs::File, Recorder)>, game: &Game) -> Result<(), Error> {
    if let Some((file, recorder)) = log {
        for entry in recorder.take(game) {
            writeln!(file, "{entry}").map_err(|source| Error::Io { path: "log".into(), source })?;
        }
        file.flush().map_err(|source| Error::Io { path: "log".into(), source })?;
    }
    Ok(())
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
            write_log(&mut table.log, &table.game)?;
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

    /// Plays the game to its end at the terminal. Turns come as in simulation: in turn order,
    /// or, in a real-time game, whenever a seat is ready (a human's action takes the same game
    /// time as an agent's).
    pub fn play(self, seats: &[(String, String)]) -> Result<(), Error> {
        let rules = self.rules();
        let players = self.game.players();
        let seed = self.seed;
        let mut kinds: Vec<String> =
            (0..players).map(|s| if s == 0 { "human".into() } else { rules.default_agent.clone() }).collect();
        let agent_names: Vec<&str> =
            ["human", "random"].into_iter().chain(rules.agents.iter().map(|a| a.name.as_str())).collect();
        for (seat, kind) in seats {
            let Some(id) = rules.seat(seat).filter(|&s| s < players) else {
                let names: Vec<&str> = rules.seats.iter().take(players as usize).map(|s| s.name.as_str()).collect();
                return Err(Error::Input(format!("--seat {seat}: expected one of {}", names.join(", "))));
            };
            if !agent_names.contains(&kind.as_str()) {
                return Err(Error::Input(format!("--seat {seat}={kind}: expected one of {}", agent_names.join(", "))));
            }
            kinds[id as usize] = kind.clone();
        }
        let humans = kinds.iter().filter(|k| *k == "human").count();
        let mut agents: Vec<Box<dyn Agent>> = Vec::new();
        for (s, kind) in kinds.iter().enumerate() {
            agents.push(match kind.as_str() {
                "human" => Box::new(Human { seat_name: rules.seats[s].name.clone(), shared_screen: humans > 1 }),
                "random" => Box::new(RandomAgent::new(agent_seed(seed, s as u8))),
                name => Box::new(
                    ScriptAgent::new(rules.clone(), name).ok_or_else(|| Error::Input(format!("no agent `{name}`")))?,
                ),
            });
        }
        println!("{} — seed {seed}", rules.name);
        for (s, kind) in kinds.iter().enumerate() {
            println!("  {}: {kind}", rules.seats[s].name);
        }
        let Table { mut game, mut log, .. } = self;
        let mut told = game.events().len();
        let mut after_each = |game: &Game| -> Result<(), Error> {
            // Tell the humans what the agents did, without the arguments of secret actions.
            for event in &game.events()[told..] {
                if let Event::Acted { action, .. } = event
                    && kinds[action.seat as usize] != "human"
                    && humans > 0
                {
                    let def = &rules.actions[action.action as usize];
                    if def.secret {
                        println!("{} takes a secret {} action", rules.seats[action.seat as usize].name, def.name);
                    } else {
                        println!("{}", describe_action(&rules, action));
                    }
                }
            }
            told = game.events().len();
            write_log(&mut log, game)
        };
        play_out_observed(&mut game, &mut agents, 10_000_000, &mut after_each)?;
        println!("\n{}", view(&game, None).render());
        Ok(())
    }
}
