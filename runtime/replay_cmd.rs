//! `tabula replay`: play logs back headlessly, show a seat's view or copy of the log, and report
//! the first line that no longer fits the rules.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Instant;

use tabula::diag::{MAX_LOG_BYTES, Sources, render, render_diagnostics};
use tabula::log::{ReplayOptions, parse, replay_with, rules_for_in, seat_log};
use tabula::view::view;
use tabula::{Error, Rules};

/// What to show of a replayed log.
pub struct Show {
    /// Print this seat's view at the end instead of a summary.
    pub view: Option<String>,
    /// With `view`: every piece by name (`View::render`), not the folded, wrapped form.
    pub verbose: bool,
    /// Print the whole final state (every zone, piece and property) instead of a summary.
    pub state: bool,
    /// Stop after this line.
    pub until: Option<usize>,
    /// Print the log as this seat saw it.
    pub seat_log: Option<String>,
    /// Replay under these rules instead of the ones the log names.
    pub ruleset: Option<String>,
}

/// Replays each log; prints what `show` asks for one log, or a line per log for several.
pub fn run(logs: &[PathBuf], show: &Show) -> Result<ExitCode, Error> {
    let single = logs.len() == 1;
    // Logs of the same rules share one load: rules are parsed and scripts compiled once.
    let mut loaded: HashMap<String, Rc<Rules>> = HashMap::new();
    let (mut actions, mut failed) = (0usize, 0usize);
    // Time spent playing actions back, apart from reading and parsing the files.
    let mut replaying = std::time::Duration::ZERO;
    let start = Instant::now();
    for path in logs {
        let mut sources = Sources::default();
        let file = match sources.read(path, MAX_LOG_BYTES) {
            Ok(file) => file,
            Err(e @ Error::NotText(..)) => {
                eprint!("{}", render(&e, &sources));
                failed += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        let log = match parse(sources.text(file), file) {
            Ok(log) => log,
            Err(d) => {
                eprint!("{}", render_diagnostics(&[*d], &sources));
                failed += 1;
                continue;
            }
        };
        let key: String = log
            .tags
            .iter()
            .filter(|t| ["ruleset", "variant", "set"].contains(&t.name.as_str()))
            .map(|t| t.to_string())
            .collect();
        let rules = match loaded.get(&key) {
            Some(r) => r.clone(),
            None => match rules_for_in(&log, show.ruleset.as_deref()) {
                Ok(r) => {
                    let r = Rc::new(r);
                    loaded.insert(key, r.clone());
                    r
                }
                Err(e) => {
                    eprint!("{}", render(&e.into_error(&sources, file), &sources));
                    failed += 1;
                    continue;
                }
            },
        };
        let seat_id = |name: &str| {
            rules.seat(name).ok_or_else(|| {
                let names: Vec<&str> = rules.seats.iter().map(|s| s.name.as_str()).collect();
                Error::Input(format!("no seat `{name}`: expected one of {}", names.join(", ")))
            })
        };
        if let Some(seat) = &show.seat_log {
            let seat = seat_id(seat)?;
            match seat_log(&log, rules.clone(), seat) {
                Ok(copy) => out!("{copy}"),
                Err(e) => {
                    eprint!("{}", render_diagnostics(&[e.diagnostic(&sources, file)], &sources));
                    failed += 1;
                }
            }
            continue;
        }
        let options = ReplayOptions { until_line: show.until, record: false };
        let started = Instant::now();
        let result = replay_with(&log, rules.clone(), &options);
        replaying += started.elapsed();
        match result {
            Ok(replay) => {
                actions += replay.actions;
                for w in &replay.warnings {
                    eprintln!("warning: {}: {w}", path.display());
                }
                if single {
                    let seat = show.view.as_deref().map(seat_id).transpose()?;
                    if seat.is_some() || show.state {
                        let all = view(&replay.game, seat);
                        let text = if show.state || show.verbose {
                            all.render()
                        } else {
                            all.render_compact(tabula::view::SCREEN_WIDTH)
                        };
                        outln!("{}", text.trim_end());
                    } else {
                        outln!("{}", summary(&replay.game, replay.actions));
                        eprintln!("(--state prints every zone and piece, --view SEAT what one seat knew)");
                    }
                } else {
                    outln!(
                        "{}: ok, {} actions, {}",
                        path.display(),
                        replay.actions,
                        replay.game.outcome().unwrap_or("not over")
                    );
                }
            }
            Err(e) => {
                eprint!("{}", render_diagnostics(&[e.diagnostic(&sources, file)], &sources));
                failed += 1;
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    if show.seat_log.is_none() {
        let play = replaying.as_secs_f64();
        let rate = if play > 0.0 { actions as f64 / play } else { 0.0 };
        let count = if logs.len() == 1 { "1 log".to_string() } else { format!("{} logs", logs.len()) };
        eprintln!(
            "replayed {count}: {actions} actions in {play:.3} s ({rate:.0} actions/s), {:.3} s with reading and parsing{}",
            seconds,
            if failed > 0 { format!("; {failed} did not fit the rules") } else { String::new() }
        );
    }
    Ok(if failed > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The end of a replayed game in a few lines: how it ended (or where it stands), and its
/// counters. The whole state, which runs to pages for the bigger games, is `--state`.
fn summary(game: &tabula::Game, actions: usize) -> String {
    let rules = game.rules();
    let mut out = match game.outcome() {
        Some(outcome) => {
            let description = rules.outcomes.iter().find(|o| o.name == outcome).map_or("", |o| o.description.as_str());
            if description.is_empty() {
                format!("game over: {outcome}")
            } else {
                format!("game over: {outcome} ({description})")
            }
        }
        None => {
            let deciding: Vec<&str> = game.to_act().iter().map(|&s| rules.seats[s as usize].name.as_str()).collect();
            let waiting =
                if deciding.is_empty() { String::new() } else { format!("; to decide: {}", deciding.join(", ")) };
            format!("not over: phase {}{waiting}", game.phase())
        }
    };
    let all = view(game, None);
    const SHOWN: usize = 24;
    let counters: Vec<String> = all.counters.iter().take(SHOWN).map(|(k, v)| format!("{k} {v}")).collect();
    let more = all.counters.len().saturating_sub(SHOWN);
    out.push_str(&format!("\nafter {}", tabula::diag::counted(actions, "action")));
    if !counters.is_empty() {
        out.push_str(&format!("; counters: {}", counters.join(", ")));
        if more > 0 {
            out.push_str(&format!(" and {more} more"));
        }
    }
    out
}

/// `replay LOG --watch`: replays the log, then again whenever it or a file of its ruleset
/// changes. A ruleset that does not load after an edit is reported, and the next good save is
/// picked up. Runs until interrupted.
pub fn watch(log: &Path, show: &Show) -> Result<ExitCode, Error> {
    let dir = crate::watch::ruleset_dir_of(log, show.ruleset.as_deref());
    let mut files = crate::watch::Watch::new(dir.as_deref(), &[log]);
    loop {
        // The outcome is shown; an error in the rules or the log is shown the same way.
        if let Err(e) = run(&[log.to_path_buf()], show) {
            eprint!("{}", render(&e, &Sources::default()));
        }
        outln!("-- watching {} and its ruleset; edit and save to replay again (Ctrl-C stops)", log.display());
        let changed = files.wait();
        outln!("\n-- {} changed: replaying under the rules as they are now", changed.display());
    }
}
