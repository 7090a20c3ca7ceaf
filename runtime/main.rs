//! The `tabula` command line: a thin layer over the library. Each subcommand parses its
//! arguments, calls the library, and prints; all rendering of errors goes through `diag`.

/// `out!` to standard output, except that a reader who went away (`tabula ... | head`) ends
/// the program quietly with success, as ripgrep does: nobody wants the rest of the output.
macro_rules! out {
    ($($arg:tt)*) => { $crate::write_stdout(format_args!($($arg)*)) };
}

/// `outln!` to standard output, ending quietly on a closed pipe (see `out!`).
macro_rules! outln {
    () => { $crate::write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

mod http;
mod play;
mod plot;
mod reload;
mod replay_cmd;
mod serve;
mod sim_cmd;
mod sweep_cmd;
mod view_cmd;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;

use clap::{Parser, Subcommand};
use tabula::diag::{Sources, counted, render};
use tabula::rules::load::{find_ruleset, list_rulesets, list_variants};
use tabula::sim::{SimOptions, simulate};
use tabula::{Error, LoadOptions, Rules, load};

/// mimalloc, not the system's allocator: the scripts make and drop small values (names, lists,
/// option maps) at every step, and glibc's `malloc` and `free` took a tenth of the instructions
/// of the costliest ruleset's simulations. The games are the same whichever allocates.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// tabula: a rules-as-data board-game engine.
///
/// Rulesets are folders of TOML and Rhai (under ./rulesets, or any path). Name one by its
/// folder name (`my-game`) or give its path.
#[derive(Parser)]
#[command(name = "tabula", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour in error messages: `auto` (when standard error is a terminal and NO_COLOR is not
    /// set), `always` or `never`.
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    color: Color,
}

/// When to colour error messages.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

/// Which ruleset, with which variants and parameter overrides.
#[derive(clap::Args, Clone)]
pub struct RulesetArgs {
    /// A ruleset name (see `tabula list`) or a path to a ruleset folder.
    pub ruleset: String,
    /// A variant: a name from the ruleset's variants/ folder, or a path to an overlay file of
    /// your own (`./my-variant.toml`, with an optional `my-variant.rhai` beside it); may be
    /// repeated, applied in order.
    #[arg(long = "variant", value_name = "VARIANT")]
    pub variants: Vec<String>,
    /// Override a parameter of [params], e.g. --set goal=12; may be repeated.
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_set)]
    pub sets: Vec<(String, String)>,
}

pub fn parse_set(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("expected NAME=VALUE, found `{text}`")),
    }
}

#[derive(Subcommand)]
enum Command {
    /// List the rulesets found, with their variants.
    List,
    /// Load, validate and compile a ruleset; print every problem with file, line and column;
    /// then play 10 random games, spread over every player count the ruleset allows.
    Check {
        #[command(flatten)]
        ruleset: RulesetArgs,
    },
    /// Play a game at the terminal. Each seat is shown only what it may know.
    Play {
        #[command(flatten)]
        table: play::TableArgs,
        /// Who plays a seat: `human`, `random`, `search` (`search:playouts=400`), or one of the
        /// ruleset's agents, as in `--seat red=human --seat blue=search`. Seats not given are played by the ruleset's
        /// default agent, except the first, which is yours (a resumed game seats them as the
        /// log records). At the prompt, type an option's number, `help` or `quit`.
        #[arg(long = "seat", value_name = "SEAT=human|random|search|AGENT", value_parser = parse_set)]
        seats: Vec<(String, String)>,
        /// Hot reload: when a file of the ruleset changes (checked before each of your decisions
        /// and when you press Enter), replay the game so far under the rules as saved and go on,
        /// or say at which line it stops fitting them and offer to go on from the line before.
        #[arg(long)]
        watch: bool,
        /// Show every screen in full: all that happened since your last turn, every zone and
        /// piece, every option (by default a screen is fitted to 40 lines of 120 columns, and
        /// `more` at the prompt shows it in full).
        #[arg(long)]
        verbose: bool,
    },
    /// Play many games with agents (the ruleset's default, or --agent and --seat) and report the
    /// balance: outcome and seat shares with 95% intervals, seat advantage, game length, speed.
    Sim(sim_cmd::SimArgs),
    /// Play a grid of parameter values (`--set goal=8..12 --set cost=4,5,6`), the same seeds in
    /// every cell, and tabulate (and with --out, plot) the balance of each cell.
    Sweep(sweep_cmd::SweepArgs),
    /// Replay game logs: print how the game ended (or the whole final state, or a seat's view,
    /// or a seat's copy of the log), and report the first line that does not fit the rules.
    /// Exits non-zero if one does not.
    Replay {
        /// The log file(s). With several, one line per log and a summary.
        #[arg(required = true)]
        logs: Vec<PathBuf>,
        /// Show what this seat knew at the end instead of a summary: look-alike pieces folded
        /// (`coin ×6`), lines wrapped at 120 columns, bookkeeping left out.
        #[arg(long, value_name = "SEAT")]
        view: Option<String>,
        /// With --view: every piece by name, none folded, lines not wrapped.
        #[arg(long, requires = "view")]
        verbose: bool,
        /// Print the whole final state (every zone, piece and property) instead of a summary.
        #[arg(long, conflicts_with = "view")]
        state: bool,
        /// Stop after line K of the log.
        #[arg(long, value_name = "K")]
        until: Option<usize>,
        /// Print the log as this seat saw it: others' secrets masked until revealed.
        #[arg(long, value_name = "SEAT", conflicts_with_all = ["view", "until"])]
        seat_log: Option<String>,
        /// Replay under these rules (a name or a folder) instead of the ones the log names, with
        /// the log's variants and overrides: a log of one's own ruleset kept elsewhere, or an old
        /// log under edited rules (replay stops at the first line that no longer fits).
        #[arg(long, value_name = "RULESET")]
        ruleset: Option<String>,
        /// Keep watching: whenever the log or a file of its ruleset changes, replay it again
        /// under the rules as they are then, and show the result (or the first line that no
        /// longer fits, or why the rules do not load). Stop with Ctrl-C.
        #[arg(long)]
        watch: bool,
    },
    /// Write a game log as one HTML page that steps through the game in a browser (a timeline,
    /// the board at each step, for everyone or each seat), or --serve it and follow the log live.
    View(view_cmd::ViewArgs),
    /// Play a game in browsers: one private link per human seat (each page shows that seat's
    /// table, what it was told, and its options), agents on the other seats; the log is written
    /// as the game goes. The HTTP interface the pages use is in docs/serve.md.
    Serve(serve::ServeArgs),
    /// List a ruleset's parameters ([params]) with their values, ranges and comments: what
    /// --set can change.
    Params {
        #[command(flatten)]
        ruleset: RulesetArgs,
    },
    /// Print the JSON Schema of game.toml (what schema/ruleset.schema.json holds).
    Schema,
}

pub fn load_rules(args: &RulesetArgs) -> Result<Rules, Error> {
    let options = LoadOptions { variants: args.variants.clone(), overrides: args.sets.clone() };
    load(&args.ruleset, &options)
}

/// Writes to standard output. A closed pipe ends the program with success; any other failure to
/// write (a full disk) ends it with an error, instead of the panic `out!` would give.
fn write_stdout(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    use std::io::IsTerminal;
    tabula::diag::use_color(match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    });
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprint!("{}", render(&e, &Sources::default()));
            ExitCode::FAILURE
        }
    }
}

/// In how many of `tabula check`'s games every option a phase's `options` hook lists is
/// checked against the actions' domains, built-in checks and `legal` hooks (and back), when
/// the ruleset is played by one player count (one game at each count otherwise): a few hook
/// calls per option, so not all ten.
const CHECKED_OPTIONS_GAMES: u64 = 3;
/// How many random games `tabula check` plays, spread over the player counts.
const CHECK_GAMES: u64 = 10;

/// Player counts in words: `2 to 6 players`, `2, 3 or 5 players`.
fn counts_in_words(counts: &[u8]) -> String {
    let consecutive = counts.windows(2).all(|w| w[1] == w[0] + 1);
    match counts {
        [] => "no player count".into(),
        [one] => counted((*one).into(), "player"),
        [first, _, .., last] if consecutive => format!("{first} to {last} players"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(u8::to_string).collect();
            format!("{} or {last} players", init.join(", "))
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::List => {
            let found = list_rulesets();
            if found.is_empty() {
                outln!("no rulesets found (looked in $TABULA_RULESETS, ./rulesets and the source tree)");
            }
            for (name, dir) in found {
                let variants = list_variants(&dir);
                let title = match load(dir.to_str().unwrap_or_default(), &LoadOptions::default()) {
                    Ok(r) if r.players.0 == r.players.1 => {
                        format!("{} ({})", r.name, counted(r.players.0.into(), "player"))
                    }
                    Ok(r) => format!("{} ({}-{} players)", r.name, r.players.0, r.players.1),
                    Err(_) => "(does not load: run `tabula check`)".to_string(),
                };
                let variants =
                    if variants.is_empty() { String::new() } else { format!("  variants: {}", variants.join(", ")) };
                outln!("{name:<14} {title}{variants}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { ruleset } => {
            find_ruleset(&ruleset.ruleset)?;
            match load_rules(&ruleset) {
                Ok(rules) => {
                    // A ruleset that loads can still fail when its hooks run: play a few games
                    // with random agents before calling it sound.
                    // The games are spread over every player count the ruleset allows: a rule
                    // may fail at one count only (a deal for six, a variant that excludes two).
                    let rules = Rc::new(rules);
                    let counts: Vec<u8> =
                        (rules.players.0..=rules.players.1).filter(|n| !rules.excluded_players.contains(n)).collect();
                    let per_count = CHECK_GAMES.div_ceil(counts.len().max(1) as u64);
                    let (mut played, mut checked) = (0, 0);
                    for &players in &counts {
                        let options = SimOptions {
                            games: per_count,
                            players: Some(players),
                            max_decisions: 100_000,
                            agent: Some("random".into()),
                            // One game at each count, or three at the only one.
                            check_options: if counts.len() == 1 { CHECKED_OPTIONS_GAMES.min(per_count) } else { 1 },
                            ..SimOptions::default()
                        };
                        let report = match simulate(rules.clone(), &options, &mut |_| {}) {
                            Ok(report) => report,
                            Err(e) => {
                                eprint!("{}", render(&e, &rules.sources));
                                eprintln!("{}: loads, but fails in play", ruleset.ruleset);
                                return Ok(ExitCode::FAILURE);
                            }
                        };
                        let unfinished = report.outcomes.get(tabula::balance::STOPPED).copied().unwrap_or(0);
                        if unfinished > 0 {
                            eprintln!(
                                "{}: loads, but {unfinished} of {per_count} random games at {} did not end within {} decisions",
                                ruleset.ruleset,
                                counted(players.into(), "player"),
                                options.max_decisions
                            );
                            return Ok(ExitCode::FAILURE);
                        }
                        played += per_count;
                        checked += options.check_options;
                    }
                    let at = match counts.as_slice() {
                        [one] => counted((*one).into(), "player"),
                        _ => format!("{}, {} at each count", counts_in_words(&counts), per_count),
                    };
                    outln!(
                        "{}: ok ({}, {}, {}, {}, {}; {played} random games played at {at}, the options hooks checked against the actions' own checks in {checked})",
                        rules.id,
                        counted(rules.zones.len(), "zone"),
                        counted(rules.pieces.len(), "piece"),
                        counted(rules.phases.len(), "phase"),
                        counted(rules.actions.len(), "action"),
                        counted(rules.hooks.len(), "script hook")
                    );
                    let (compiled, total) = rules.script_functions_compiled();
                    if compiled == total {
                        outln!("scripts: {}, all compiled", counted(total, "function"));
                    } else {
                        outln!(
                            "scripts: {compiled} of {} compiled, the rest run on Rhai's interpreter",
                            counted(total, "function")
                        );
                    }
                    for f in rules.script_fallbacks() {
                        outln!("  `{}` runs on Rhai: {}", f.function, f.reason);
                    }
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprint!("{}", render(&e, &Sources::default()));
                    eprintln!("{}: {}", ruleset.ruleset, e);
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        Command::Play { table: args, seats, watch, verbose } => {
            let Some(table) = args.open("play")? else {
                return Ok(ExitCode::FAILURE);
            };
            let rules = table.rules();
            if let Err(e) = table.play(&seats, args.log(), watch, verbose) {
                eprint!("{}", render(&e, &rules.sources));
                return Ok(ExitCode::FAILURE);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Replay { logs, view, verbose, state, until, seat_log, ruleset, watch } => {
            if logs.len() > 1 && (view.is_some() || state || until.is_some() || seat_log.is_some() || watch) {
                return Err(Error::Input(
                    "--view, --state, --until, --seat-log and --watch show one log: give one log (several logs are checked, a line each)"
                        .into(),
                ));
            }
            let show = replay_cmd::Show { view, verbose, state, until, seat_log, ruleset };
            if watch {
                return replay_cmd::watch(&logs[0], &show);
            }
            replay_cmd::run(&logs, &show)
        }
        Command::Params { ruleset } => {
            let rules = load_rules(&ruleset)?;
            print_params(&rules);
            Ok(ExitCode::SUCCESS)
        }
        Command::Sim(args) => sim_cmd::run(&args),
        Command::Sweep(args) => sweep_cmd::run(&args),
        Command::View(args) => view_cmd::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Schema => {
            out!("{}", tabula::rules::raw::json_schema());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `tabula params`: each parameter with its value, range, where it was set, and its comment.
fn print_params(rules: &Rules) {
    let variants = if rules.variants.is_empty() { String::new() } else { format!(" + {}", rules.variants.join(" + ")) };
    outln!("{}{variants}: {} parameters (--set NAME=VALUE changes one)", rules.id, rules.param_info.len());
    for p in &rules.param_info {
        let range = p.range.map(|(lo, hi)| format!("  range {lo} to {hi}")).unwrap_or_default();
        let origin = if p.overridden {
            "  (--set)".to_string()
        } else if p.file != 0 {
            let path = rules.sources.path(p.file);
            format!("  ({})", path.strip_prefix(&rules.dir).unwrap_or(path).display())
        } else {
            String::new()
        };
        outln!("{} = {}{range}{origin}", p.name, tabula::rules::params::show_value(&p.value));
        if !p.comment.is_empty() {
            outln!("    {}", p.comment);
        }
    }
}
