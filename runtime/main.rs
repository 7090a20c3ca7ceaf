//! The `tabula` command line: a thin layer over the library. Each subcommand parses its
//! arguments, calls the library, and prints; all rendering of errors goes through `diag`.

mod play;
mod replay_cmd;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;

use clap::{Parser, Subcommand};
use tabula::diag::{Sources, render};
use tabula::rules::load::{find_ruleset, list_rulesets, list_variants};
use tabula::sim::{SimOptions, SimReport, simulate};
use tabula::{Error, LoadOptions, Rules, load};

/// tabula: a rules-as-data board-game engine.
///
/// Rulesets are folders of TOML and Rhai (under ./rulesets, or any path). Name one by its
/// folder name (`my-game`) or give its path.
#[derive(Parser)]
#[command(name = "tabula", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which ruleset, with which variants and parameter overrides.
#[derive(clap::Args, Clone)]
struct RulesetArgs {
    /// A ruleset name (see `tabula list`) or a path to a ruleset folder.
    ruleset: String,
    /// A variant from the ruleset's variants/ folder; may be repeated, applied in order.
    #[arg(long = "variant", value_name = "VARIANT")]
    variants: Vec<String>,
    /// Override a parameter of [params], e.g. --set goal=12; may be repeated.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    sets: Vec<(String, String)>,
}

fn parse_set(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("expected NAME=VALUE, found `{text}`")),
    }
}

#[derive(Subcommand)]
enum Command {
    /// List the rulesets found, with their variants.
    List,
    /// Load, validate and compile a ruleset; print every problem with file, line and column.
    Check {
        #[command(flatten)]
        ruleset: RulesetArgs,
    },
    /// Play a game at the terminal. Each seat is shown only what it may know.
    Play {
        /// A ruleset name or path (not needed with --resume: the log names its rules).
        ruleset: Option<String>,
        /// A variant from the ruleset's variants/ folder; may be repeated.
        #[arg(long = "variant", value_name = "VARIANT")]
        variants: Vec<String>,
        /// Override a parameter of [params]; may be repeated.
        #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
        sets: Vec<(String, String)>,
        /// Write the game's log to FILE as it is played, one line per action, flushed at once.
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        /// Continue the game logged in FILE where it stopped (and go on logging to it).
        #[arg(long, value_name = "FILE", conflicts_with = "log")]
        resume: Option<PathBuf>,
        /// Who plays a seat: `human`, `random`, or one of the ruleset's agents, as in
        /// `--seat red=human --seat blue=random`. Seats not given are played by the ruleset's
        /// default agent, except the first, which is yours (a resumed game seats them as the
        /// log records). At the prompt, type an option's number, `help` or `quit`.
        #[arg(long = "seat", value_name = "SEAT=human|random|AGENT", value_parser = parse_set)]
        seats: Vec<(String, String)>,
        /// The game's seed (default: a fresh random one). It is shown when the game ends, never
        /// before: it would tell every hidden card and the agents' choices.
        #[arg(long)]
        seed: Option<u64>,
        /// Player count (default: the ruleset's smallest).
        #[arg(long)]
        players: Option<u8>,
    },
    /// Play many games with random agents and report outcomes, game length and speed.
    Sim {
        #[command(flatten)]
        ruleset: RulesetArgs,
        /// How many games.
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// Seed of the run: game i is seeded from (seed, i).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Player count (default: the ruleset's smallest).
        #[arg(long)]
        players: Option<u8>,
        /// Print one JSON object instead of a summary.
        #[arg(long)]
        json: bool,
        /// Write one log per game into DIR (game-000001.log, ...).
        #[arg(long, value_name = "DIR")]
        log: Option<PathBuf>,
        /// The agent on every seat: `random`, or one of the ruleset's [agents] (default: the
        /// ruleset's default_agent).
        #[arg(long, value_name = "AGENT")]
        agent: Option<String>,
    },
    /// Replay game logs: print the final state (or a seat's view, or a seat's copy of the log),
    /// and report the first line that does not fit the rules. Exits non-zero if one does not.
    Replay {
        /// The log file(s). With several, one line per log and a summary.
        #[arg(required = true)]
        logs: Vec<PathBuf>,
        /// Show what this seat knew at the end instead of the whole state.
        #[arg(long, value_name = "SEAT")]
        view: Option<String>,
        /// Stop after line K of the log.
        #[arg(long, value_name = "K")]
        until: Option<usize>,
        /// Print the log as this seat saw it: others' secrets masked until revealed.
        #[arg(long, value_name = "SEAT", conflicts_with_all = ["view", "until"])]
        seat_log: Option<String>,
    },
    /// Print the JSON Schema of game.toml (what schema/ruleset.schema.json holds).
    Schema,
}

fn load_rules(args: &RulesetArgs) -> Result<Rules, Error> {
    let options = LoadOptions { variants: args.variants.clone(), overrides: args.sets.clone() };
    load(&args.ruleset, &options)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprint!("{}", render(&e, &Sources::default()));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::List => {
            let found = list_rulesets();
            if found.is_empty() {
                println!("no rulesets found (looked in $TABULA_RULESETS, ./rulesets and the source tree)");
            }
            for (name, dir) in found {
                let variants = list_variants(&dir);
                let title = match load(dir.to_str().unwrap_or_default(), &LoadOptions::default()) {
                    Ok(r) => format!("{} ({}-{} players)", r.name, r.players.0, r.players.1),
                    Err(_) => "(does not load: run `tabula check`)".to_string(),
                };
                let variants =
                    if variants.is_empty() { String::new() } else { format!("  variants: {}", variants.join(", ")) };
                println!("{name:<14} {title}{variants}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { ruleset } => {
            find_ruleset(&ruleset.ruleset)?;
            match load_rules(&ruleset) {
                Ok(rules) => {
                    // A ruleset that loads can still fail when its hooks run: play a few games
                    // with random agents before calling it sound.
                    let rules = Rc::new(rules);
                    let options = SimOptions { games: 10, max_decisions: 100_000, ..SimOptions::default() };
                    if let Err(e) = simulate(rules.clone(), &options, &mut |_| {}) {
                        eprint!("{}", render(&e, &rules.sources));
                        eprintln!("{}: loads, but fails in play", ruleset.ruleset);
                        return Ok(ExitCode::FAILURE);
                    }
                    println!(
                        "{}: ok ({} zones, {} pieces, {} phases, {} actions, {} script hooks; 10 random games played)",
                        rules.id,
                        rules.zones.len(),
                        rules.pieces.len(),
                        rules.phases.len(),
                        rules.actions.len(),
                        rules.hooks.len()
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprint!("{}", render(&e, &Sources::default()));
                    eprintln!("{}: {}", ruleset.ruleset, e);
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        Command::Play { ruleset, variants, sets, log, resume, seats, seed, players } => {
            let table = match (resume, ruleset) {
                (Some(file), _) => play::Table::resume(&file)?,
                (None, Some(ruleset)) => {
                    let rules = Rc::new(load_rules(&RulesetArgs { ruleset, variants, sets })?);
                    let seed = seed.unwrap_or_else(play::fresh_seed);
                    play::Table::new(rules, seed, players)?
                }
                (None, None) => return Err(Error::Input("play: name a ruleset, or --resume a log".into())),
            };
            let rules = table.rules();
            if let Err(e) = table.play(&seats, log.as_deref()) {
                eprint!("{}", render(&e, &rules.sources));
                return Ok(ExitCode::FAILURE);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Replay { logs, view, until, seat_log } => {
            replay_cmd::run(&logs, &replay_cmd::Show { view, until, seat_log })
        }
        Command::Sim { ruleset, games, seed, players, json, log, agent } => {
            let rules = Rc::new(load_rules(&ruleset)?);
            let options = SimOptions { games, seed, players, log_dir: log, agent, ..SimOptions::default() };
            let bar = progress_bar(games, json);
            let report = simulate(rules.clone(), &options, &mut |done| {
                if done % 64 == 0 || done == games {
                    bar.set_position(done)
                }
            });
            bar.finish_and_clear();
            match report {
                Ok(report) if json => println!("{}", serde_json::to_string(&report).unwrap_or_default()),
                Ok(report) => print_summary(&report),
                Err(e) => {
                    eprint!("{}", render(&e, &rules.sources));
                    return Ok(ExitCode::FAILURE);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Schema => {
            print!("{}", tabula::rules::raw::json_schema());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A progress bar on stderr, hidden when the output is JSON or stderr is not a terminal.
fn progress_bar(games: u64, json: bool) -> indicatif::ProgressBar {
    if json || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(games);
    let style = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games  {per_sec}  eta {eta}")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

fn print_summary(r: &SimReport) {
    let variants = if r.variants.is_empty() { String::new() } else { format!(" + {}", r.variants.join(" + ")) };
    println!("{}{variants}: {} games, {} players, {} agents, seed {}", r.ruleset, r.games, r.players, r.agent, r.seed);
    for (name, count) in &r.outcomes {
        let share = if r.games > 0 { 100.0 * *count as f64 / r.games as f64 } else { 0.0 };
        println!("  {name:<10} {count:>8}  {share:5.1}%");
    }
    println!("  decisions per game: {:.1}", r.decisions_per_game);
    println!("  {:.2} s, {:.0} games/s", r.seconds, r.playouts_per_s);
}
