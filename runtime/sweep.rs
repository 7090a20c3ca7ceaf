//! Parameter sweeps: the same games played under a grid of parameter values, so that the cells
//! of the grid differ only by the rules (every cell plays games seeded from the same run seed).
//!
//! `tabula sweep` prints the table; with an output folder each finished cell is kept there as
//! JSON, so that a sweep stopped half way picks up where it was (a cell is reused only if
//! everything that decides its games is unchanged, the rules' fingerprint included).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::balance::Balance;
use crate::diag::Error;

/// One swept parameter and the values it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// The parameter.
    pub name: String,
    /// Its values, as `--set` would give them.
    pub values: Vec<String>,
}

/// The most cells a sweep may have (a typo such as `1..100000` would otherwise run for days).
pub const MAX_CELLS: usize = 10_000;

impl Axis {
    /// Reads `name=8..12` (integers from 8 to 12), `name=8..12/2` (every other one),
    /// `name=4,5,6` (a list), or `name=7` (one value: a fixed override).
    pub fn parse(name: &str, values: &str) -> Result<Axis, Error> {
        let bad = |why: &str| Error::Input(format!("--set {name}={values}: {why}"));
        let values = values.trim();
        let list: Vec<String> = if let Some((from, to)) = values.split_once("..") {
            let (to, step) = match to.split_once('/') {
                Some((to, step)) => {
                    (to, step.trim().parse::<i64>().map_err(|_| bad("the step after `/` is no integer"))?)
                }
                None => (to, 1),
            };
            let from: i64 = from.trim().parse().map_err(|_| bad("expected integers, as in 8..12"))?;
            let to: i64 = to.trim().parse().map_err(|_| bad("expected integers, as in 8..12"))?;
            if step <= 0 || to < from {
                return Err(bad("a range goes up from its first value, by a step of 1 or more"));
            }
            // In 128 bits: the distance between two 64-bit integers may not fit in 64.
            let count = (i128::from(to) - i128::from(from)) / i128::from(step) + 1;
            if count > MAX_CELLS as i128 {
                return Err(bad(&format!("{count} values: at most {MAX_CELLS}")));
            }
            (0..count).map(|k| (i128::from(from) + k * i128::from(step)).to_string()).collect()
        } else if values.starts_with('[') {
            vec![values.to_string()]
        } else {
            values.split(',').map(|v| v.trim().to_string()).collect()
        };
        if list.iter().any(String::is_empty) {
            return Err(bad("an empty value"));
        }
        Ok(Axis { name: name.to_string(), values: list })
    }
}

/// One cell of a sweep: a value for each swept parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Parameter values, in the order of the axes.
    pub values: Vec<(String, String)>,
    /// With `--one-at-a-time`, the axis this cell varies (the others keep the ruleset's values).
    pub axis: Option<String>,
}

/// The cells of a sweep: every combination of the axes' values (the last axis varying
/// fastest), or, one at a time, each axis's values with the other parameters as the ruleset has
/// them.
pub fn cells(axes: &[Axis], one_at_a_time: bool) -> Result<Vec<Cell>, Error> {
    let swept: Vec<&Axis> = axes.iter().filter(|a| a.values.len() > 1).collect();
    let count: usize = if one_at_a_time {
        swept.iter().map(|a| a.values.len()).sum::<usize>().max(1)
    } else {
        swept.iter().try_fold(1usize, |n, a| n.checked_mul(a.values.len())).unwrap_or(usize::MAX)
    };
    if count > MAX_CELLS {
        return Err(Error::Input(format!("the sweep has {count} cells: at most {MAX_CELLS}")));
    }
    if one_at_a_time {
        let cells: Vec<Cell> = swept
            .iter()
            .flat_map(|a| {
                a.values.iter().map(|v| Cell { values: vec![(a.name.clone(), v.clone())], axis: Some(a.name.clone()) })
            })
            .collect();
        return Ok(if cells.is_empty() { vec![Cell { values: Vec::new(), axis: None }] } else { cells });
    }
    let mut cells = vec![Cell { values: Vec::new(), axis: None }];
    for a in swept {
        cells = cells
            .into_iter()
            .flat_map(|c| {
                a.values.iter().map(move |v| {
                    let mut values = c.values.clone();
                    values.push((a.name.clone(), v.clone()));
                    Cell { values, axis: None }
                })
            })
            .collect();
    }
    Ok(cells)
}

/// A finished cell, as kept in the output folder and written to `table.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// Everything that decides the cell's games (rules fingerprint, players, agents, seed,
    /// games, values): a kept cell is reused only if this is unchanged.
    pub identity: String,
    /// The swept parameters' values.
    pub values: IndexMap<String, String>,
    /// With `--one-at-a-time`, the parameter this cell varies.
    pub axis: Option<String>,
    /// Games played.
    pub games: u64,
    /// The balance of its games.
    pub balance: Balance,
}

/// The file a cell is kept in, named by its values (other characters than letters, digits and
/// `_-.` become `_`).
pub fn cell_file(dir: &std::path::Path, cell: &Cell) -> std::path::PathBuf {
    let mut name: String = cell
        .values
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "_-.=,".contains(c) { c } else { '_' })
        .collect();
    if let Some(axis) = &cell.axis {
        name = format!("{axis}@{name}");
    }
    if name.is_empty() {
        name = "base".into();
    }
    dir.join("cells").join(format!("{name}.json"))
}

/// A kept cell with this identity, if the folder holds one.
pub fn kept(dir: &std::path::Path, cell: &Cell, identity: &str) -> Option<CellResult> {
    let text = std::fs::read_to_string(cell_file(dir, cell)).ok()?;
    serde_json::from_str::<CellResult>(&text).ok().filter(|r| r.identity == identity)
}

/// Keeps a finished cell in the folder (written to a temporary file, then renamed, so that a
/// sweep stopped while writing leaves no half cell behind).
pub fn keep(dir: &std::path::Path, cell: &Cell, result: &CellResult) -> Result<(), Error> {
    let path = cell_file(dir, cell);
    let io = |source| Error::Io { path: path.clone(), source };
    std::fs::create_dir_all(dir.join("cells")).map_err(io)?;
    let temporary = path.with_extension("json.part");
    let text = serde_json::to_string_pretty(result).unwrap_or_default();
    std::fs::write(&temporary, text).map_err(io)?;
    std::fs::rename(&temporary, &path).map_err(io)
}

/// Games ending in each outcome, and games played: outcome -> (count, games).
pub type Tally = IndexMap<String, (u64, u64)>;

/// The marginal share of each outcome at each value of `axis`: the games of every cell with
/// that value pooled (in a grid, over the other parameters' values), for the share plots.
pub fn marginal(results: &[CellResult], axis: &str) -> Vec<(String, Tally)> {
    let mut by_value: Vec<(String, Tally)> = Vec::new();
    for r in results.iter().filter(|r| r.axis.as_deref().is_none_or(|a| a == axis)) {
        let Some(value) = r.values.get(axis) else { continue };
        let at = match by_value.iter().position(|(v, _)| v == value) {
            Some(i) => i,
            None => {
                by_value.push((value.clone(), IndexMap::new()));
                by_value.len() - 1
            }
        };
        for (outcome, share) in &r.balance.outcome_shares {
            let entry = by_value[at].1.entry(outcome.clone()).or_default();
            entry.0 += share.count;
            entry.1 += r.games;
        }
    }
    by_value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_read_ranges_steps_and_lists() {
        assert_eq!(Axis::parse("n", "8..12").unwrap().values, ["8", "9", "10", "11", "12"]);
        assert_eq!(Axis::parse("n", "2..9/3").unwrap().values, ["2", "5", "8"]);
        assert_eq!(Axis::parse("n", "4, 5,6").unwrap().values, ["4", "5", "6"]);
        assert_eq!(Axis::parse("n", "[1, 2]").unwrap().values, ["[1, 2]"]);
        assert!(Axis::parse("n", "12..8").is_err());
        assert!(Axis::parse("n", "a..b").is_err());
        assert!(Axis::parse("n", "1..100000000").is_err());
    }

    /// The distance between the ends of a range may not fit in 64 bits: it once wrapped, and
    /// the whole range of integers read as one value.
    #[test]
    fn ranges_at_the_ends_of_the_integers_neither_wrap_nor_overflow() {
        let whole = Axis::parse("n", "-9223372036854775808..9223372036854775807");
        assert!(whole.is_err_and(|e| e.to_string().contains("18446744073709551616 values: at most")));
        assert_eq!(
            Axis::parse("n", "9223372036854775806..9223372036854775807").unwrap().values,
            ["9223372036854775806", "9223372036854775807"]
        );
        assert_eq!(
            Axis::parse("n", "-9223372036854775808..9223372036854775807/9223372036854775807").unwrap().values,
            ["-9223372036854775808", "-1", "9223372036854775806"]
        );
    }

    #[test]
    fn a_grid_has_every_combination_and_one_at_a_time_each_value_once() {
        let axes =
            [Axis::parse("a", "1..3").unwrap(), Axis::parse("b", "x,y").unwrap(), Axis::parse("c", "7").unwrap()];
        let grid = cells(&axes, false).unwrap();
        assert_eq!(grid.len(), 6, "the fixed value is no axis");
        assert_eq!(grid[1].values, [("a".to_string(), "1".to_string()), ("b".to_string(), "y".to_string())]);
        let single = cells(&axes, true).unwrap();
        assert_eq!(single.len(), 5);
        assert_eq!(single[3].axis.as_deref(), Some("b"));
    }
}
