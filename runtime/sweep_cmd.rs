//! `tabula sweep`: a grid of parameter values, every cell played with the same seeds, printed as
//! a table and, with `--out DIR`, written as CSV, JSON and SVG plots. Cells finished before an
//! interruption are kept in DIR and reused when the same sweep runs again.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use indexmap::IndexMap;
use tabula::sim::simulate_parallel;
use tabula::sweep::{Axis, Cell, CellResult, cells, keep, kept, marginal};
use tabula::{Error, LoadOptions, load};

use crate::parse_set;
use crate::sim_cmd::{PlayArgs, progress_bar, spread_text, threads, write_file};

/// `tabula sweep`'s arguments.
#[derive(clap::Args, Clone)]
pub struct SweepArgs {
    /// A ruleset name (see `tabula list`) or a path to a ruleset folder.
    ruleset: String,
    /// A variant: a name from the ruleset's variants/ folder, or a path to an overlay file of
    /// your own (`./my-variant.toml`, with an optional `my-variant.rhai` beside it); may be
    /// repeated, applied in order.
    #[arg(long = "variant", value_name = "VARIANT")]
    variants: Vec<String>,
    /// A parameter and its values: `goal=8..12` (8 to 12), `goal=8..20/4` (every 4th),
    /// `cost=4,5,6` (a list), or `cost=5` (fixed in every cell). May be repeated.
    #[arg(long = "set", value_name = "NAME=VALUES", value_parser = parse_set)]
    sets: Vec<(String, String)>,
    /// Vary one parameter at a time (the others as the ruleset has them) instead of playing
    /// every combination.
    #[arg(long)]
    one_at_a_time: bool,
    #[command(flatten)]
    play: PlayArgs,
    /// Threads to play on (0, the default: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Write table.csv, table.json and the plots (share-<parameter>.svg, length.svg) into DIR,
    /// and keep each finished cell there, so that an interrupted sweep resumes.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the table as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `tabula sweep`.
pub fn run(args: &SweepArgs) -> Result<ExitCode, Error> {
    let axes: Vec<Axis> = args.sets.iter().map(|(name, values)| Axis::parse(name, values)).collect::<Result<_, _>>()?;
    let fixed: Vec<(String, String)> =
        axes.iter().filter(|a| a.values.len() == 1).map(|a| (a.name.clone(), a.values[0].clone())).collect();
    let grid = cells(&axes, args.one_at_a_time)?;
    let options = args.play.options();
    let bar = progress_bar(grid.len() as u64 * args.play.games, args.json, "games");
    let done = AtomicU64::new(0);
    // Every cell's rules are loaded first: a value of the wrong kind or out of range is refused
    // before anything is played, and the fingerprint says whether a kept cell had these rules.
    let mut loaded = Vec::with_capacity(grid.len());
    for cell in &grid {
        let mut overrides = fixed.clone();
        overrides.extend(cell.values.iter().cloned());
        let load_options = LoadOptions { variants: args.variants.clone(), overrides };
        let fingerprint = load(&args.ruleset, &load_options)?.fingerprint;
        loaded.push((load_options, identity(args, cell, fingerprint)));
    }
    let mut results = Vec::with_capacity(grid.len());
    let mut reused = 0;
    for (cell, (load_options, identity)) in grid.iter().zip(loaded) {
        if let Some(result) = args.out.as_deref().and_then(|dir| kept(dir, cell, &identity)) {
            done.fetch_add(args.play.games, Ordering::Relaxed);
            bar.set_position(done.load(Ordering::Relaxed));
            results.push(result);
            reused += 1;
            continue;
        }
        let report = simulate_parallel(&args.ruleset, &load_options, &options, threads(args.threads), &|_| {
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_multiple_of(64) {
                bar.set_position(n);
            }
        })?;
        let result = CellResult {
            identity,
            values: cell.values.iter().cloned().collect(),
            axis: cell.axis.clone(),
            games: report.games,
            balance: report.balance,
        };
        if let Some(dir) = &args.out {
            keep(dir, cell, &result)?;
        }
        results.push(result);
    }
    bar.finish_and_clear();
    if args.json {
        outln!("{}", serde_json::to_string(&results).unwrap_or_default());
    } else {
        if !fixed.is_empty() {
            let fixed: Vec<String> = fixed.iter().map(|(k, v)| format!("{k}={v}")).collect();
            outln!("in every cell: {}", fixed.join(" "));
        }
        out!("{}", table_text(&results));
        if reused > 0 {
            eprintln!("{reused} of {} cells were kept from an earlier run of this sweep", grid.len());
        }
    }
    if let Some(dir) = &args.out {
        write_file(&dir.join("table.csv"), &table_csv(&results))?;
        write_file(&dir.join("table.json"), &serde_json::to_string_pretty(&results).unwrap_or_default())?;
        let ruleset =
            load(&args.ruleset, &LoadOptions { variants: args.variants.clone(), ..LoadOptions::default() })?.id.clone();
        for axis in axes.iter().filter(|a| a.values.len() > 1) {
            let path = dir.join(format!("share-{}.svg", axis.name));
            crate::plot::share_plot(&path, &ruleset, &axis.name, &marginal(&results, &axis.name))?;
        }
        crate::plot::length_plot(&dir.join("length.svg"), &ruleset, &results)?;
        eprintln!("wrote {}: table.csv, table.json, share-*.svg, length.svg", dir.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Everything that decides a cell's games.
fn identity(args: &SweepArgs, cell: &Cell, fingerprint: u64) -> String {
    let p = &args.play;
    format!(
        "rules {fingerprint:016x}; players {:?}; agent {:?}; seats {:?}; seed {}; games {}; cell {:?}",
        p.players, p.agent, p.seats, p.seed, p.games, cell
    )
}

/// The table as text: one row per cell, its values, outcome shares and length.
fn table_text(results: &[CellResult]) -> String {
    let mut out = String::new();
    for r in results {
        let values: Vec<String> = r.values.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let values = if values.is_empty() { "(one cell)".to_string() } else { values.join(" ") };
        out.push_str(&format!("{values}: {} games\n", r.games));
        for (outcome, share) in &r.balance.outcome_shares {
            out.push_str(&format!("  {outcome:<14} {}\n", share.percent()));
        }
        out.push_str(&format!("  decisions      {}\n", spread_text(&r.balance.decisions, "")));
        if let Some(rounds) = &r.balance.rounds {
            out.push_str(&format!("  rounds         {}\n", spread_text(rounds, "")));
        }
    }
    out
}

/// The table as CSV: a row per cell, a column per parameter, then each outcome's share and
/// interval, then the length.
fn table_csv(results: &[CellResult]) -> String {
    let mut parameters: Vec<&String> = Vec::new();
    let mut outcomes: Vec<&String> = Vec::new();
    for r in results {
        parameters.extend(r.values.keys().filter(|k| !parameters.contains(k)).collect::<Vec<_>>());
        outcomes.extend(r.balance.outcome_shares.keys().filter(|k| !outcomes.contains(k)).collect::<Vec<_>>());
    }
    let mut header: Vec<String> = parameters.iter().map(|p| p.to_string()).collect();
    header.push("games".into());
    for o in &outcomes {
        header.extend([format!("{o}_share"), format!("{o}_low"), format!("{o}_high")]);
    }
    header.extend(
        ["decisions_mean", "decisions_median", "decisions_p10", "decisions_p90", "rounds_mean"].map(String::from),
    );
    let mut out = header.join(",") + "\n";
    for r in results {
        let mut row: Vec<String> = parameters.iter().map(|p| r.values.get(*p).cloned().unwrap_or_default()).collect();
        row.push(r.games.to_string());
        let none = IndexMap::new();
        let shares = if r.balance.outcome_shares.is_empty() { &none } else { &r.balance.outcome_shares };
        for o in &outcomes {
            let s = shares.get(*o).copied().unwrap_or_default();
            row.extend([format!("{:.4}", s.share), format!("{:.4}", s.low), format!("{:.4}", s.high)]);
        }
        let d = &r.balance.decisions;
        row.extend([d.mean, d.median, d.p10, d.p90].map(|v| format!("{v:.1}")));
        row.push(r.balance.rounds.map(|s| format!("{:.1}", s.mean)).unwrap_or_default());
        out.push_str(&(row.join(",") + "\n"));
    }
    out
}
