//! Hot reload: noticing that a ruleset's files (or a log) changed on disk.
//!
//! Files are polled (their length and modification time, a few times a second): a ruleset is a
//! handful of small files, and polling needs no platform notification service.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tabula::log::{Log, parse};
use tabula::rules::load::find_ruleset;

/// The files watched, with what they looked like when last checked.
pub struct Watch {
    files: Vec<(PathBuf, Option<(SystemTime, u64)>)>,
}

/// How a file looks now: its modification time and length, or `None` if it is gone.
fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// Every file of a ruleset folder: `game.toml`, its scripts and its variants.
fn ruleset_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for folder in [dir.to_path_buf(), dir.join("variants")] {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml" || e == "rhai"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

/// The folder of the rules a log follows: the one given, or the one its header names.
pub fn ruleset_dir_of(log_path: &Path, ruleset: Option<&str>) -> Option<PathBuf> {
    if let Some(given) = ruleset {
        return find_ruleset(given).ok();
    }
    let text = std::fs::read_to_string(log_path).ok()?;
    let log: Log = parse(&text, 0).ok()?;
    let named = log.text_tag("ruleset")?;
    find_ruleset(named).ok().or_else(|| log.text_tag("ruleset_path").map(PathBuf::from))
}

impl Watch {
    /// Watches a ruleset folder's files and some others (a log).
    pub fn new(dir: Option<&Path>, others: &[&Path]) -> Watch {
        let mut paths: Vec<PathBuf> = dir.map(ruleset_files).unwrap_or_default();
        paths.extend(others.iter().map(|p| p.to_path_buf()));
        Watch { files: paths.into_iter().map(|p| (p.clone(), stamp(&p))).collect() }
    }

    /// The first watched file that changed since the last check, if one did.
    pub fn changed(&mut self) -> Option<PathBuf> {
        let mut first = None;
        for (path, seen) in &mut self.files {
            let now = stamp(path);
            if now != *seen {
                *seen = now;
                first.get_or_insert_with(|| path.clone());
            }
        }
        first
    }

    /// Waits until a watched file changes; returns it.
    pub fn wait(&mut self) -> PathBuf {
        loop {
            if let Some(path) = self.changed() {
                // Editors write a file in several steps: let the last one land.
                std::thread::sleep(Duration::from_millis(100));
                self.changed();
                return path;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}
