//! Hot reload at the table (`tabula play --watch`): when a file of the ruleset changes, the game
//! so far is replayed under the rules as they are now. If it still fits, play goes on from the
//! same point; if not, the player is told at which line it stops fitting and may go on from the
//! line before it. Rules that do not load after an edit leave the game as it was.

use std::rc::Rc;

use tabula::diag::{Sources, render};
use tabula::log::{ReplayOptions, parse, record, replay_with, rules_for_in};
use tabula::{Error, Game};

/// The game replayed under the rules on disk now, or `None` to play on as before.
pub fn reload(game: &Game, seed: u64) -> Result<Option<Game>, Error> {
    let dir = game.rules().dir.display().to_string();
    // The game so far as a log (parsed back, so that line numbers are those of its text).
    let text = record(game, Some(seed)).to_string();
    let mut sources = Sources::default();
    let file = sources.add("the game so far", text.clone());
    let log = parse(&text, file).map_err(|d| Error::Input(d.message))?;
    let rules = match rules_for_in(&log, Some(&dir)) {
        Ok(rules) => Rc::new(rules),
        Err(e) => {
            eprint!("{}", render(&e.into_error(&sources, file), &sources));
            outln!("-- the rules as saved do not load: playing on under the rules as they were (save again to retry)");
            return Ok(None);
        }
    };
    let replayed =
        |until: Option<usize>| replay_with(&log, rules.clone(), &ReplayOptions { until_line: until, record: true });
    match replayed(None) {
        Ok(replay) => {
            outln!("-- reloaded the rules: the game so far fits them, and goes on");
            Ok(Some(replay.game))
        }
        Err(e) => {
            let line = text.lines().nth(e.line.saturating_sub(1)).unwrap_or_default();
            outln!(
                "-- reloaded the rules: the game so far stops fitting them at line {} (`{line}`): {}",
                e.line,
                e.message
            );
            out!("go on from the line before it, under the new rules? [y/N] ");
            let _ = std::io::Write::flush(&mut std::io::stdout());
            let mut answer = String::new();
            let _ = std::io::BufRead::read_line(&mut std::io::stdin().lock(), &mut answer);
            if !answer.trim().eq_ignore_ascii_case("y") {
                outln!("-- playing on under the rules as they were");
                return Ok(None);
            }
            match replayed(Some(e.line.saturating_sub(1))) {
                Ok(replay) => {
                    outln!("-- going on from line {} under the new rules", e.line.saturating_sub(1));
                    Ok(Some(replay.game))
                }
                Err(e) => {
                    outln!("-- cannot go back there ({}): playing on under the rules as they were", e.message);
                    Ok(None)
                }
            }
        }
    }
}
