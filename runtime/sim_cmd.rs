//! `tabula sim`: many games with agents, and the balance report a designer reads: outcome and
//! seat shares with their 95% intervals, the advantage of each seat position, draws and games
//! stopped by a safety bound, and the game's length. `--csv`/`--jsonl` write one row per game.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use tabula::balance::{GameRecord, csv_header, csv_row};
use tabula::sim::{SimOptions, SimReport, simulate_parallel};
use tabula::stats::Spread;
use tabula::{Error, LoadOptions};

use crate::{RulesetArgs, parse_set};

/// The options `sim` and `sweep` share: how the games are played.
#[derive(clap::Args, Clone)]
pub struct PlayArgs {
    /// How many games (1 or more).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Seed of the run: game i is seeded from (seed, i), whatever the thread that plays it.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Player count (default: the ruleset's `usual_players`, else its smallest). The summary
    /// lists the outcomes this count can reach.
    #[arg(long)]
    pub players: Option<u8>,
    /// The agent on every seat: `random`, `search` (with options: `search:playouts=400`,
    /// `search:ms=50`, see the README), or one of the ruleset's [agents] (default: the
    /// ruleset's default_agent).
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,
    /// The agent of one seat, over --agent: `--seat red=heuristic --seat blue=random`.
    #[arg(long = "seat", value_name = "SEAT=AGENT", value_parser = parse_set)]
    pub seats: Vec<(String, String)>,
}

impl PlayArgs {
    /// The simulation options these arguments ask for.
    pub fn options(&self) -> SimOptions {
        SimOptions {
            games: self.games,
            seed: self.seed,
            players: self.players,
            agent: self.agent.clone(),
            seat_agents: self.seats.clone(),
            ..SimOptions::default()
        }
    }
}

/// `tabula sim`'s arguments.
#[derive(clap::Args, Clone)]
pub struct SimArgs {
    #[command(flatten)]
    ruleset: RulesetArgs,
    #[command(flatten)]
    play: PlayArgs,
    /// Threads to play on (0, the default: one per core). Games, logs and report are the same
    /// on any number; each thread loads the ruleset itself (the script engine stays on its
    /// thread), so more threads than cores only slow the run. Threads the system will not
    /// start are done without.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print one JSON object instead of a summary.
    #[arg(long)]
    json: bool,
    /// Write one log per game into DIR (game-000001.log, ...). A folder that holds the logs
    /// of an earlier run is refused, unless --force (which removes them first).
    #[arg(long, value_name = "DIR")]
    log: Option<PathBuf>,
    /// With --log: replace the logs of an earlier run in DIR.
    #[arg(long, requires = "log")]
    force: bool,
    /// Write one CSV row per game to FILE: game, seed, outcome, winners, decisions, rounds,
    /// clock_ms, stopped, and the --record counters.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write one JSON object per game (a line each) to FILE, with the same fields.
    #[arg(long, value_name = "FILE")]
    jsonl: Option<PathBuf>,
    /// Counters whose final values each game's row keeps, as in `--record money,score.red`.
    #[arg(long, value_name = "COUNTER,...", value_delimiter = ',')]
    record: Vec<String>,
    /// Also say where the scripts' time went: each script function's calls, the time spent in
    /// it (its own, then with everything it calls) and its Rhai operations, the costliest
    /// first, and the natives the scripts call (`region_paths (native)`) beside them (with
    /// --json: `profile`). The games are the same; the run is a little slower.
    #[arg(long)]
    profile: bool,
}

/// The number of threads `0` stands for: one per core.
pub fn threads(asked: usize) -> usize {
    if asked == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { asked }
}

/// Runs `tabula sim`.
pub fn run(args: &SimArgs) -> Result<ExitCode, Error> {
    if let Some(dir) = &args.log {
        make_room_for_logs(dir, args.force)?;
    }
    let mut options = args.play.options();
    options.log_dir = args.log.clone();
    options.record = args.record.clone();
    options.profile = args.profile;
    // Records are kept only to be written: without them memory stays flat however many games.
    options.keep_records = args.csv.is_some() || args.jsonl.is_some();
    let load = LoadOptions { variants: args.ruleset.variants.clone(), overrides: args.ruleset.sets.clone() };
    let bar = progress_bar(args.play.games, args.json, "games");
    let done = AtomicU64::new(0);
    let report = simulate_parallel(&args.ruleset.ruleset, &load, &options, threads(args.threads), &|_| {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(64) || n == args.play.games {
            bar.set_position(n);
        }
    });
    bar.finish_and_clear();
    let report = report?;
    if let Some(path) = &args.csv {
        let mut text = csv_header(&args.record) + "\n";
        for r in &report.records {
            text.push_str(&csv_row(r, &args.record));
            text.push('\n');
        }
        write_file(path, &text)?;
    }
    if let Some(path) = &args.jsonl {
        let lines: Vec<String> =
            report.records.iter().map(|r: &GameRecord| serde_json::to_string(r).unwrap_or_default()).collect();
        write_file(path, &(lines.join("\n") + "\n"))?;
    }
    if args.json {
        outln!("{}", serde_json::to_string(&report).unwrap_or_default());
    } else {
        print_summary(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes a whole file, naming it in the error. A reader that goes away (`--jsonl /dev/stdout |
/// head`) ends the writing quietly, as it ends printed output.
pub fn write_file(path: &Path, text: &str) -> Result<(), Error> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let mut file = std::fs::File::create(path).map_err(io)?;
    match file.write_all(text.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(io),
    }
}

/// A progress bar on stderr, hidden when the output is JSON or stderr is not a terminal.
pub fn progress_bar(total: u64, json: bool, unit: &'static str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if json || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit}  {{rate}}  eta {{eta}}");
    let style = indicatif::ProgressStyle::with_template(&template)
        .map(|s| {
            s.with_key("rate", move |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0} {unit}/s", state.per_sec());
            })
        })
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// Refuses a log folder holding the logs of an earlier run (they would mix with the new ones),
/// or, with `force`, removes them.
fn make_room_for_logs(dir: &Path, force: bool) -> Result<(), Error> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let mut old: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("game-") && n.ends_with(".log"))
        })
        .collect();
    if old.is_empty() {
        return Ok(());
    }
    if !force {
        old.sort();
        return Err(Error::Input(format!(
            "{} already holds {} log(s) of an earlier run ({}...): choose another folder, or --force to replace them",
            dir.display(),
            old.len(),
            old[0].display()
        )));
    }
    for path in old {
        std::fs::remove_file(&path).map_err(|source| Error::Io { path, source })?;
    }
    Ok(())
}

/// `items` joined by commas into lines of at most `width` characters (an item longer than that
/// on a line of its own).
fn wrapped(items: &[String], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item = if i + 1 < items.len() { format!("{item},") } else { item.clone() };
        match lines.last_mut() {
            Some(line) if line.len() + 1 + item.len() <= width => {
                line.push(' ');
                line.push_str(&item);
            }
            _ => lines.push(item),
        }
    }
    lines
}

/// A spread as `mean 81.9, median 80, 10%-90% 62-104`.
pub fn spread_text(s: &Spread, unit: &str) -> String {
    format!("mean {:.1}{unit}, median {:.0}{unit}, 10%-90% {:.0}-{:.0}{unit}", s.mean, s.median, s.p10, s.p90)
}

fn print_summary(r: &SimReport) {
    let variants = if r.variants.is_empty() { String::new() } else { format!(" + {}", r.variants.join(" + ")) };
    let sets: String = r.set.iter().map(|(k, v)| format!(", {k}={v}")).collect();
    let mixed = r.agents.values().any(|a| *a != r.agent);
    let agents = if mixed {
        r.agents.iter().map(|(s, a)| format!("{s}={a}")).collect::<Vec<_>>().join(" ")
    } else {
        format!("{} agents", r.agent)
    };
    outln!(
        "{}{variants}: {} game{}, {}, {agents}, seed {}{sets}",
        r.ruleset,
        r.games,
        if r.games == 1 { "" } else { "s" },
        tabula::diag::counted(r.players.into(), "player"),
        r.seed
    );
    // One width for both tables, wide enough for the longest name.
    let width =
        r.balance.outcome_shares.keys().chain(r.balance.seat_wins.keys()).map(|n| n.len()).max().unwrap_or(0).max(14);
    outln!("  {:<width$} {:>7}   share (95% interval)", "outcome", "games");
    for (name, share) in &r.balance.outcome_shares {
        outln!("  {name:<width$} {:>7}   {}", share.count, share.percent());
    }
    outln!("  {:<width$} {:>7}   share (95% interval)   advantage", "seat", "wins");
    for (seat, share) in &r.balance.seat_wins {
        let advantage = r.balance.seat_advantage.get(seat).copied().unwrap_or(0.0);
        outln!("  {seat:<width$} {:>7}   {:<22} {:+.1} points", share.count, share.percent(), 100.0 * advantage);
    }
    outln!("  draws: {}; stopped by a safety bound: {}", r.balance.draws.percent(), r.balance.stopped.percent());
    outln!("  decisions per game: {}", spread_text(&r.balance.decisions, ""));
    if let Some(rounds) = &r.balance.rounds {
        outln!("  rounds per game: {}", spread_text(rounds, ""));
    }
    if let Some(time) = &r.balance.game_seconds {
        outln!("  game time: {}", spread_text(time, " s"));
    }
    for (seat, counts) in &r.agent_counts {
        // What a seat's agent counted of its work, summed over the games (the search agent's
        // decisions searched, playouts...), under its name, wrapped to fit a terminal.
        outln!("  {seat}'s agent ({}):", r.agents.get(seat).map_or("", String::as_str));
        let counts: Vec<String> = counts.iter().map(|(what, n)| format!("{n} {what}")).collect();
        for line in wrapped(&counts, 76) {
            outln!("    {line}");
        }
    }
    outln!("  {:.2} s, {:.0} games/s", r.seconds, r.playouts_per_s);
    print_profile(&r.profile);
}

/// The rows of a script profile that took the most time: enough to find where a ruleset's
/// time goes (`--json` has every row).
const PROFILE_ROWS: usize = 25;

/// `--profile`'s table: each function's (or native's) own time and its time with what it calls,
/// as shares of the time in scripts, then its calls and its own operations a call.
fn print_profile(rows: &[tabula::script::profile::ProfileRow]) {
    if rows.is_empty() {
        return;
    }
    let in_scripts: f64 = rows.iter().map(|r| r.self_seconds).sum();
    let share = |s: f64| if in_scripts > 0.0 { 100.0 * s / in_scripts } else { 0.0 };
    outln!(
        "  time in scripts: {in_scripts:.3} s; the {} costliest functions and natives:",
        PROFILE_ROWS.min(rows.len())
    );
    outln!("  {:>7} {:>7} {:>10} {:>9}   function", "self", "total", "calls", "ops/call");
    for r in rows.iter().take(PROFILE_ROWS) {
        let (per_call, native) = if r.native {
            ("-".to_string(), " (native)")
        } else {
            (format!("{:.0}", r.self_operations as f64 / r.calls.max(1) as f64), "")
        };
        outln!(
            "  {:>6.1}% {:>6.1}% {:>10} {:>9}   {}{native}",
            share(r.self_seconds),
            share(r.total_seconds),
            r.calls,
            per_call,
            r.function
        );
    }
}
