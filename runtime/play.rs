//! `tabula play`: a game at the terminal, humans and agents at one table.
//!
//! A human seat is shown what happened since its last turn and its own view only (built by
//! `tabula::narrate::screen`), then a numbered list of its legal actions. With two humans at one
//! screen, the screen and its scrollback are cleared and the next player is asked to take the
//! seat before anything of theirs is shown. The seed is a secret of the table until the game
//! ends (it reproduces every hidden chance outcome and the agents' choices), so it is shown only
//! then.

use std::cell::RefCell;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use tabula::agent::{Agent, Decision, RandomAgent, ScriptAgent};
use tabula::diag::{Sources, did_you_mean};
use tabula::log::{
    Recorder, ReplayOptions, Tag, TagValue, header_for, parse, replay_with, rules_for_in, ruleset_path_tag,
};
use tabula::rules::SeatId;
use tabula::sim::{agent_seed, play_out_observed};
use tabula::view::view;
use tabula::{Error, Game, Rules};

/// A fresh seed from the operating system's entropy (through the standard library's hash
/// keys), for games where none is given: unlike the time of day, nobody at the table can guess
/// it.
pub fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0x7461_6275_6c61);
    h.finish()
}

/// The screen shared by the humans at the table.
struct Screen {
    /// Whether more than one human shares it (then it is cleared between their turns).
    shared: bool,
    /// Whether standard output is a terminal (escape codes are written only to one).
    terminal: bool,
    /// The human who has the screen now.
    holder: Option<SeatId>,
    /// Set when a human typed `quit`.
    quit: bool,
    /// The ruleset's files, with `--watch`.
    watch: Option<crate::watch::Watch>,
    /// Set when a watched file changed: the game is reloaded before anyone decides.
    reload: bool,
    /// `--verbose`: every screen in full (`narrate::details`), not fitted to the terminal.
    verbose: bool,
}

/// Reads a human's choice from standard input.
struct Human {
    seat: SeatId,
    seat_name: String,
    screen: Rc<RefCell<Screen>>,
    /// The place in the event stream this seat's last screen ended at.
    told: usize,
}

impl Human {
    /// Hands the screen over if another human had it: clear it (scrollback too), say whose
    /// turn it is, and wait for them before showing anything.
    fn take_screen(&self) {
        let mut screen = self.screen.borrow_mut();
        if !screen.shared || screen.holder == Some(self.seat) {
            screen.holder = Some(self.seat);
            return;
        }
        screen.holder = Some(self.seat);
        if screen.terminal {
            // Go home (H), erase the screen (2J), then the scrollback (3J), in the order `clear`
            // uses: terminals that push a cleared screen into their scrollback (tmux, VTE) would
            // otherwise keep the previous player's last screen there.
            out!("\x1b[H\x1b[2J\x1b[3J");
        } else {
            outln!("\n{}", "-".repeat(60));
        }
        out!("Pass the screen to {}, then press Enter.", self.seat_name);
        let _ = std::io::stdout().flush();
        let _ = read_line();
    }
}

impl Agent for Human {
    fn choose(&mut self, decision: &Decision) -> Result<usize, Error> {
        // Without the choice to let the game go on, the answer is always an option.
        self.ask(decision, false).map(|k| k.unwrap_or(0))
    }

    fn react(&mut self, decision: &Decision) -> Result<Option<usize>, Error> {
        self.ask(decision, true)
    }
}

impl Human {
    /// Shows the seat its screen and reads its answer: an option, or (`out_of_turn`) Enter
    /// alone to let the game go on.
    fn ask(&mut self, decision: &Decision, out_of_turn: bool) -> Result<Option<usize>, Error> {
        self.take_screen();
        self.check_files()?;
        let since = self.told;
        if self.screen.borrow().verbose {
            outln!("\n{}", decision.details(since));
            self.told = decision.events_told();
        } else {
            outln!("\n{}", decision.screen(&mut self.told));
        }
        if out_of_turn {
            outln!("You may act out of turn: type an option's number, or press Enter to let the game go on.");
        }
        let n = decision.legal().len();
        loop {
            out!("{} > ", self.seat_name);
            let _ = std::io::stdout().flush();
            let Some(line) = read_line() else {
                outln!("\nend of input: leaving the game");
                return Err(self.quit());
            };
            // The rules may have changed while the screen waited: the answer was to a question
            // the new rules may not ask.
            self.check_files()?;
            match line.trim() {
                "quit" | "q" => return Err(self.quit()),
                "more" | "m" => outln!("{}", decision.details(since)),
                "help" | "h" | "?" => {
                    let enter =
                        if out_of_turn { "Enter alone lets the game go on" } else { "Enter alone takes the only one" };
                    outln!(
                        "Type the number of an option ({enter}), `more` (all that happened since your last turn, the \
                         whole view, every option), `help`, or `quit`."
                    );
                    for (name, description) in decision.help() {
                        outln!("  {name}: {}", if description.is_empty() { "(no description)" } else { &description });
                    }
                }
                "" if out_of_turn => return Ok(None),
                "" if n == 1 => return Ok(Some(0)),
                text => match text.parse::<usize>() {
                    Ok(k) if (1..=n).contains(&k) => return Ok(Some(k - 1)),
                    _ => outln!("type a number from 1 to {n}, `more`, `help` or `quit`"),
                },
            }
        }
    }
}

impl Human {
    /// With `--watch`: stops the game for a reload if a file of the ruleset changed.
    fn check_files(&self) -> Result<(), Error> {
        let mut screen = self.screen.borrow_mut();
        let changed = screen.watch.as_mut().and_then(|w| w.changed());
        if let Some(path) = changed {
            outln!("\n-- {} changed", path.display());
            screen.reload = true;
            return Err(Error::Input("the rules changed".into()));
        }
        Ok(())
    }

    fn quit(&self) -> Error {
        self.screen.borrow_mut().quit = true;
        Error::Input("the player left the game".into())
    }
}

fn read_line() -> Option<String> {
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

/// The log a game at the table is written to, line by line.
pub(crate) struct LogFile {
    /// Where it is written.
    pub(crate) path: PathBuf,
    file: std::fs::File,
    recorder: Recorder,
}

impl LogFile {
    /// Writes the whole log anew (after a reload: the rules' fingerprint changed, and the game
    /// may have gone back to an earlier line), then goes on appending.
    fn rewrite(&mut self, game: &Game, seed: u64, kinds: &[String]) -> Result<(), Error> {
        let mut file = std::fs::File::create(&self.path).map_err(io(&self.path))?;
        for tag in header_tags(game, seed, kinds) {
            writeln!(file, "{tag}").map_err(io(&self.path))?;
        }
        writeln!(file).map_err(io(&self.path))?;
        self.file = file;
        self.recorder = Recorder::default();
        self.write(game)
    }

    /// Whether the file holds every entry of `game` so far.
    pub(crate) fn holds(&self, game: &Game) -> bool {
        self.recorder.is_up_to_date(game)
    }

    /// Appends what happened since the last call, and flushes it, so that a crash or Ctrl-C
    /// loses nothing.
    pub(crate) fn write(&mut self, game: &Game) -> Result<(), Error> {
        for entry in self.recorder.take(game) {
            writeln!(self.file, "{entry}").map_err(io(&self.path))?;
        }
        self.file.flush().map_err(io(&self.path))
    }
}

/// The header of a log written at the table: the rules, the seed, and who plays each seat (so
/// that `--resume` seats them again).
fn header_tags(game: &Game, seed: u64, kinds: &[String]) -> Vec<Tag> {
    let rules = game.rules();
    let mut tags = header_for(rules, game.players(), Some(seed));
    tags.splice(1..1, ruleset_path_tag(rules));
    let agents: Vec<String> =
        kinds.iter().enumerate().map(|(s, kind)| format!("{}={kind}", rules.seats[s].name)).collect();
    tags.push(Tag { name: "agents".into(), value: TagValue::Text(agents.join(" ")), comment: None, line: 0 });
    tags
}

/// What `play` and `serve` share on their command lines: the game to open (a ruleset, or a log
/// to resume) and the file its log goes to.
#[derive(clap::Args, Clone, Debug)]
pub struct TableArgs {
    /// A ruleset name or path (not needed with --resume: the log names its rules).
    ruleset: Option<String>,
    /// A variant: a name from the ruleset's variants/ folder, or a path to an overlay file of
    /// your own (`./my-variant.toml`); may be repeated.
    #[arg(long = "variant", value_name = "VARIANT")]
    variants: Vec<String>,
    /// Override a parameter of [params]; may be repeated.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = crate::parse_set)]
    sets: Vec<(String, String)>,
    /// Player count (default: the ruleset's `usual_players`, else its smallest).
    #[arg(long)]
    players: Option<u8>,
    /// Write the game's log to FILE as it is played, one line per action, flushed at once.
    /// An existing FILE is refused (continue its game with --resume), unless --force.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// With --log: replace an existing FILE.
    #[arg(long, requires = "log")]
    force: bool,
    /// Continue the game logged in FILE where it stopped (and go on logging to it), seated as it
    /// records. The rules are the ones the log names, or the ruleset given before --resume (a
    /// name or a folder).
    #[arg(long, value_name = "FILE", conflicts_with = "log")]
    resume: Option<PathBuf>,
    /// The game's seed (default: a fresh random one). It is shown when the game ends, never
    /// before: it would tell every hidden card and the agents' choices.
    #[arg(long)]
    seed: Option<u64>,
}

impl TableArgs {
    /// Opens the table for `command` (`play` or `serve`): refuses to overwrite a log without
    /// --force, then resumes the log or sets up a new game. `None` when the setup failed in the
    /// rules' hooks (already told, with the scripts' source).
    pub fn open(&self, command: &str) -> Result<Option<Table>, Error> {
        if let Some(path) = &self.log
            && path.exists()
            && !self.force
        {
            return Err(Error::Input(format!(
                "{} already exists: `tabula {command} --resume {0}` continues its game, --force replaces it",
                path.display()
            )));
        }
        let ruleset = self.ruleset.clone().map(|ruleset| crate::RulesetArgs {
            ruleset,
            variants: self.variants.clone(),
            sets: self.sets.clone(),
        });
        Table::open(command, self.resume.as_deref(), ruleset, self.seed, self.players)
    }

    /// The file given with --log (a resumed table goes on writing to the log it resumed).
    pub fn log(&self) -> Option<&Path> {
        self.log.as_deref()
    }

    /// Whether the table continues a logged game.
    pub fn resumed(&self) -> bool {
        self.resume.is_some()
    }
}

/// A game at the terminal, who plays each seat, and the log it is written to.
pub struct Table {
    game: Game,
    seed: u64,
    /// Who plays each seat, as recorded in a resumed log (`human`, `random` or an agent).
    recorded_kinds: Option<Vec<(String, String)>>,
    log: Option<LogFile>,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

impl Table {
    /// A new game.
    pub fn new(rules: Rc<Rules>, seed: u64, players: Option<u8>) -> Result<Table, Error> {
        let players = players.unwrap_or(rules.usual_players);
        let game = Game::recorded(rules, players, seed)?;
        Ok(Table { game, seed, recorded_kinds: None, log: None })
    }

    /// The game logged in `path`, replayed to where it stopped; play goes on logging to it,
    /// with the seats played as they were (`[agents]` tag) unless told otherwise.
    pub fn resume(path: &Path, ruleset: Option<&str>) -> Result<Table, Error> {
        let text = std::fs::read_to_string(path).map_err(io(path))?;
        let mut sources = Sources::default();
        let file = sources.add(path, text.clone());
        let log = parse(&text, file).map_err(|d| Error::Log(d, Box::new(sources.clone())))?;
        let rules = Rc::new(rules_for_in(&log, ruleset).map_err(|e| e.into_error(&sources, file))?);
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
        let recorded_kinds = log.text_tag("agents").map(|text| {
            text.split_whitespace().filter_map(|pair| pair.split_once('=')).map(|(s, k)| (s.into(), k.into())).collect()
        });
        let file = std::fs::OpenOptions::new().append(true).open(path).map_err(io(path))?;
        outln!("resuming {} after {} actions", path.display(), replay.actions);
        let recorder = Recorder::after(&replay.game);
        let log = Some(LogFile { path: path.to_path_buf(), file, recorder });
        Ok(Table { game: replay.game, seed, recorded_kinds, log })
    }

    /// The table `play` and `serve` (`command`) start: the game of a log resumed (`ruleset` may
    /// name the rules to replay it with), or a new game of `ruleset`. A new game whose setup fails
    /// in the rules' hooks is told with the scripts' source, and gives `None`.
    fn open(
        command: &str,
        resume: Option<&Path>,
        ruleset: Option<crate::RulesetArgs>,
        seed: Option<u64>,
        players: Option<u8>,
    ) -> Result<Option<Table>, Error> {
        match (resume, ruleset) {
            (Some(file), ruleset) => Table::resume(file, ruleset.as_ref().map(|r| r.ruleset.as_str())).map(Some),
            (None, Some(ruleset)) => {
                let rules = Rc::new(crate::load_rules(&ruleset)?);
                let seed = seed.unwrap_or_else(fresh_seed);
                match Table::new(rules.clone(), seed, players) {
                    Ok(table) => Ok(Some(table)),
                    // Setting up runs the rules' hooks: a script error points into their files.
                    Err(e) => {
                        eprint!("{}", tabula::diag::render(&e, &rules.sources));
                        Ok(None)
                    }
                }
            }
            (None, None) => Err(Error::Input(format!("{command}: name a ruleset, or --resume a log"))),
        }
    }

    /// The rules being played.
    pub fn rules(&self) -> Rc<Rules> {
        self.game.rules().clone()
    }

    /// Who plays each seat: the first seat is yours and the others the ruleset's default agent
    /// (`all_human`: every seat is a human's), unless a resumed log says otherwise; `--seat`
    /// choices come last. A seat named twice is an error.
    fn seat_kinds(&self, seats: &[(String, String)], all_human: bool) -> Result<Vec<String>, Error> {
        let rules = self.game.rules();
        let players = self.game.players();
        let names: Vec<&str> = rules.seats.iter().take(players as usize).map(|s| s.name.as_str()).collect();
        let mut kinds: Vec<String> = (0..players)
            .map(|s| if s == 0 || all_human { "human".into() } else { rules.default_agent.clone() })
            .collect();
        let agent_names: Vec<&str> =
            ["human", "random", "search"].into_iter().chain(rules.agents.iter().map(|a| a.name.as_str())).collect();
        let recorded = self.recorded_kinds.iter().flatten();
        let mut named: Vec<&str> = Vec::new();
        for (k, (seat, kind)) in recorded.chain(seats).enumerate() {
            let Some(id) = names.iter().position(|n| n == seat) else {
                if rules.played_by_rules(seat) {
                    let message = format!(
                        "--seat {seat}: the rules play {seat}, nobody else; the seats are {}",
                        names.join(", ")
                    );
                    return Err(Error::Input(message));
                }
                let hint = did_you_mean(seat, names.iter().copied());
                return Err(Error::Input(format!(
                    "--seat {seat}: no such seat{hint}; expected one of {}",
                    names.join(", ")
                )));
            };
            if let Some(Err(e)) = kind.starts_with("search").then(|| tabula::search::SearchOptions::parse(kind)) {
                return Err(Error::Input(format!("--seat {seat}={kind}: {e}")));
            }
            let searching = matches!(tabula::search::SearchOptions::parse(kind), Ok(Some(_)));
            if !searching && !agent_names.contains(&kind.as_str()) {
                let hint = did_you_mean(kind, agent_names.iter().copied());
                return Err(Error::Input(format!(
                    "--seat {seat}={kind}: no such agent{hint}; expected one of {}",
                    agent_names.join(", ")
                )));
            }
            // Recorded kinds may be overridden; `--seat` may name a seat only once.
            let given = k >= self.recorded_kinds.as_ref().map_or(0, Vec::len);
            if given && named.contains(&seat.as_str()) {
                return Err(Error::Input(format!("--seat {seat} is given twice")));
            }
            if given {
                named.push(seat);
            }
            kinds[id] = kind.clone();
        }
        Ok(kinds)
    }

    /// Starts writing the game's log to `path` (a new game): the header, with who plays each
    /// seat so that `--resume` seats them again, then what happened so far.
    fn log_to(&mut self, path: &Path, kinds: &[String]) -> Result<(), Error> {
        let mut file = std::fs::File::create(path).map_err(io(path))?;
        for tag in header_tags(&self.game, self.seed, kinds) {
            writeln!(file, "{tag}").map_err(io(path))?;
        }
        writeln!(file).map_err(io(path))?;
        let mut log = LogFile { path: path.to_path_buf(), file, recorder: Recorder::default() };
        log.write(&self.game)?;
        self.log = Some(log);
        Ok(())
    }

    /// The table for `tabula serve`: who plays each seat (a human unless `--seat` or a resumed
    /// log says otherwise), with the log started when one is asked for.
    pub(crate) fn seated(mut self, seats: &[(String, String)], log: Option<&Path>) -> Result<Seated, Error> {
        let kinds = self.seat_kinds(seats, true)?;
        if let Some(path) = log {
            self.log_to(path, &kinds)?;
        }
        Ok(Seated { game: self.game, seed: self.seed, kinds, log: self.log })
    }

    /// Plays the game to its end at the terminal (or until a human quits). Turns come as in
    /// simulation: in turn order, or, in a real-time game, whenever a seat is ready (a human's
    /// action takes the same game time as an agent's).
    pub fn play(
        mut self,
        seats: &[(String, String)],
        log: Option<&Path>,
        watch: bool,
        verbose: bool,
    ) -> Result<(), Error> {
        let kinds = self.seat_kinds(seats, false)?;
        if let Some(path) = log {
            self.log_to(path, &kinds)?;
        }
        let humans = kinds.iter().filter(|k| *k == "human").count();
        let screen = Rc::new(RefCell::new(Screen {
            shared: humans > 1,
            terminal: std::io::stdout().is_terminal(),
            holder: None,
            quit: false,
            watch: watch.then(|| crate::watch::Watch::new(Some(&self.rules().dir), &[])),
            reload: false,
            verbose,
        }));
        let seed = self.seed;
        let rules = self.rules();
        outln!("{}", rules.name);
        for (s, kind) in kinds.iter().enumerate() {
            outln!("  {}: {kind}", rules.seats[s].name);
        }
        let Table { mut game, mut log, .. } = self;
        // Where the humans' narration starts: the setup is told; after a reload, what was told
        // is not told again.
        let mut told = 0;
        loop {
            let mut agents = seat_agents(&game, &kinds, &screen, seed, told)?;
            let mut write = |game: &Game| log.as_mut().map_or(Ok(()), |l| l.write(game));
            let played = play_out_observed(&mut game, &mut agents, 10_000_000, &mut write);
            let logged = log.as_ref().map(|l| l.path.display().to_string());
            match played {
                Err(_) if screen.borrow().quit => {
                    match logged {
                        Some(path) => outln!("the game is kept in {path}: `tabula play --resume {path}` goes on"),
                        None => outln!("the game was not logged (`--log FILE` keeps a game to resume)"),
                    }
                    return Ok(());
                }
                Err(_) if screen.borrow().reload => {
                    screen.borrow_mut().reload = false;
                    if let Some(reloaded) = crate::reload::reload(&game, seed)? {
                        game = reloaded;
                        told = game.events().len();
                        if let Some(l) = log.as_mut() {
                            l.rewrite(&game, seed, &kinds)?;
                        }
                    }
                }
                Err(e) => return Err(e),
                Ok(_) => {
                    // The game is over: nothing is secret any more.
                    outln!("\n{}", view(&game, None).render());
                    outln!("seed {seed}{}", logged.map(|p| format!(", log {p}")).unwrap_or_default());
                    return Ok(());
                }
            }
        }
    }
}

/// A table's game with its players chosen, for `tabula serve`.
pub(crate) struct Seated {
    /// The game, set up or resumed.
    pub(crate) game: Game,
    /// Its seed (a secret until the game ends).
    pub(crate) seed: u64,
    /// Who plays each seat: `human`, `random` or an agent's name.
    pub(crate) kinds: Vec<String>,
    /// The log being written, if any.
    pub(crate) log: Option<LogFile>,
}

/// The player of each seat: a human at the screen, the random agent, or a ruleset agent.
fn seat_agents(
    game: &Game,
    kinds: &[String],
    screen: &Rc<RefCell<Screen>>,
    seed: u64,
    told: usize,
) -> Result<Vec<Box<dyn Agent>>, Error> {
    let rules = game.rules();
    let mut agents: Vec<Box<dyn Agent>> = Vec::new();
    for (s, kind) in kinds.iter().enumerate() {
        agents.push(match kind.as_str() {
            "human" => Box::new(Human {
                seat: s as SeatId,
                seat_name: rules.seats[s].name.clone(),
                screen: screen.clone(),
                told,
            }),
            "random" => Box::new(RandomAgent::new(agent_seed(seed, s as u8))),
            // A person waits for this seat: its playouts run on every core (the same choices).
            name if name.starts_with("search") => {
                match tabula::search::SearchOptions::parse(&tabula::search::on_every_core(name))? {
                    Some(options) => {
                        Box::new(tabula::search::SearchAgent::new(rules.clone(), options, agent_seed(seed, s as u8))?)
                    }
                    None => return Err(Error::Input(format!("no agent `{name}`"))),
                }
            }
            name => Box::new(
                ScriptAgent::new(rules.clone(), name).ok_or_else(|| Error::Input(format!("no agent `{name}`")))?,
            ),
        });
    }
    Ok(agents)
}
