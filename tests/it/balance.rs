//! The designer's tools: the balance report of `tabula sim`, one row per game with `--csv` and
//! `--jsonl`, and `tabula sweep` over a grid of parameter values.

use std::path::PathBuf;

use crate::common::tabula;

fn scratch(name: &str) -> PathBuf {
    crate::common::scratch_dir(&format!("balance-{name}"))
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn the_report_has_intervals_seats_and_length() {
    let (ok, out, err) = tabula(&["sim", "east-berlin", "--games", "400", "--seed", "5", "--json"], "");
    assert!(ok, "{err}");
    let r = json(&out);
    let exile = &r["outcome_shares"]["exile"];
    let (count, share) = (exile["count"].as_u64().unwrap(), exile["share"].as_f64().unwrap());
    assert_eq!(count, r["outcomes"]["exile"].as_u64().unwrap());
    assert!((share - count as f64 / 400.0).abs() < 1e-12);
    assert!(exile["low"].as_f64().unwrap() < share && share < exile["high"].as_f64().unwrap());
    // East Berlin's two seats: whoever does not win loses, so their advantages are opposite.
    let (a, b) = (r["seat_advantage"]["exile"].as_f64().unwrap(), r["seat_advantage"]["police"].as_f64().unwrap());
    assert!((a + b).abs() < 1e-12 && a < 0.0, "the police wins most random games: {a} {b}");
    assert_eq!(r["seat_wins"]["police"]["count"], r["outcomes"]["police"]);
    // The draw at round 100 is a safety bound, not a rule: it counts as stopped.
    assert_eq!(r["stopped"]["count"], r["outcomes"]["draw"]);
    let rounds = &r["rounds"];
    assert!(rounds["p10"].as_f64().unwrap() <= rounds["median"].as_f64().unwrap());
    assert!(rounds["median"].as_f64().unwrap() <= rounds["p90"].as_f64().unwrap());
    assert!(r["game_seconds"].is_null(), "East Berlin is not played in real time");
}

#[test]
fn a_real_time_game_reports_its_game_time() {
    let (ok, out, err) = tabula(&["sim", "temple", "--players", "2", "--games", "6", "--json"], "");
    assert!(ok, "{err}");
    let r = json(&out);
    let time = r["game_seconds"]["p90"].as_f64().expect("game time");
    assert!(time > 0.0 && time <= 600.0, "the temple collapses at 10:00: {time}");
    // Temple's loss is everyone's: no draw.
    assert_eq!(r["draws"]["count"], 0);
}

#[test]
fn each_seat_may_have_its_own_agent() {
    let args = ["sim", "examples/rulesets/dice-race", "--games", "300", "--agent", "random", "--seat", "red=careful"];
    let (ok, out, err) = tabula(&args, "");
    assert!(ok, "{err}");
    assert!(out.contains("red=careful blue=random"), "{out}");
    let (ok, out, _) = tabula(&[&args[..], &["--json"]].concat(), "");
    assert!(ok);
    let r = json(&out);
    assert_eq!(r["agents"]["red"], "careful");
    let (ok, _, err) = tabula(&["sim", "east-berlin", "--seat", "polise=random"], "");
    assert!(!ok);
    assert!(err.contains("--seat polise: no such seat (did you mean `police`?)"), "{err}");
}

#[test]
fn threads_play_the_same_games() {
    let dir = scratch("threads");
    // The report and every log byte, whatever the number of threads (3 does not divide 200:
    // the threads play unequal shares).
    let run = |threads: &str| {
        let logs = dir.join(threads);
        let args = ["sim", "east-berlin", "--games", "200", "--json", "--threads", threads, "--log"];
        let (ok, out, err) = tabula(&[&args[..], &[logs.to_str().unwrap(), "--force"]].concat(), "");
        assert!(ok, "{err}");
        let mut r = json(&out);
        let object = r.as_object_mut().expect("object");
        object.remove("seconds");
        object.remove("playouts_per_s");
        let mut files: Vec<(String, String)> = std::fs::read_dir(&logs)
            .expect("logs")
            .map(|e| e.expect("entry").path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).expect("log")))
            .collect();
        files.sort();
        assert_eq!(files.len(), 200);
        (r, files)
    };
    let one = run("1");
    assert_eq!(one, run("3"));
    // The default is every core: the same games again.
    let (ok, out, err) = tabula(&["sim", "east-berlin", "--games", "200", "--json"], "");
    assert!(ok, "{err}");
    assert_eq!(json(&out)["outcomes"], one.0["outcomes"]);
}

#[test]
fn csv_and_jsonl_have_a_row_per_game() {
    let dir = scratch("rows");
    let (csv, jsonl) = (dir.join("games.csv"), dir.join("games.jsonl"));
    let args = ["sim", "east-berlin", "--games", "57", "--record", "money,tunnel", "--csv", csv.to_str().unwrap()];
    let (ok, _, err) = tabula(&[&args[..], &["--jsonl", jsonl.to_str().unwrap()]].concat(), "");
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&csv).expect("csv");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 57);
    assert_eq!(lines[0], "game,seed,outcome,winners,decisions,rounds,clock_ms,stopped,money,tunnel");
    for (i, line) in lines[1..].iter().enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[0], i.to_string());
        // A finished tunnel is the exile's win.
        assert_eq!(cells[2] == "exile", cells[9] == "10", "{line}");
    }
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .expect("jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert_eq!(rows.len(), 57);
    // The same names in both files; seeds as strings of digits, for they pass 2^63 (game 0's
    // is 16294208416658607535), beyond JavaScript's numbers and pandas' int64.
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["game"], i as u64, "{row}");
        let csv_seed = lines[i + 1].split(',').nth(1).unwrap();
        assert_eq!(row["seed"].as_str(), Some(csv_seed), "{row}");
    }
    assert!(rows.iter().any(|r| r["seed"].as_str().unwrap().parse::<u64>().unwrap() > 1 << 63));
    assert_eq!(rows[3]["counters"]["tunnel"].to_string(), lines[4].split(',').nth(9).unwrap());
    let (ok, _, err) = tabula(&["sim", "east-berlin", "--games", "1", "--record", "mony"], "");
    assert!(!ok);
    assert!(err.contains("no counter `mony` (did you mean `money`?)"), "{err}");
}

#[test]
fn a_sweep_cell_plays_the_games_sim_plays() {
    // Cells differ only by the rules: the cell at the ruleset's own value is the plain run.
    let (ok, out, err) =
        tabula(&["sweep", "east-berlin", "--set", "tunnel_length=9..11", "--games", "150", "--json"], "");
    assert!(ok, "{err}");
    let cells = json(&out);
    assert_eq!(cells.as_array().map(Vec::len), Some(3));
    let ten = &cells[1];
    assert_eq!(ten["values"]["tunnel_length"], "10");
    let (ok, out, err) = tabula(&["sim", "east-berlin", "--games", "150", "--json"], "");
    assert!(ok, "{err}");
    let sim = json(&out);
    assert_eq!(ten["balance"]["outcome_shares"], sim["outcome_shares"]);
    assert_eq!(ten["balance"]["decisions"], sim["decisions"]);
    // A longer tunnel is harder for the exile, in the same games.
    let exile = |c: &serde_json::Value| c["balance"]["outcome_shares"]["exile"]["count"].as_u64().unwrap();
    assert!(exile(&cells[0]) >= exile(&cells[2]), "{cells}");
}

#[test]
fn a_resumed_sweep_gives_the_same_table() {
    let (whole, resumed) = (scratch("whole"), scratch("resumed"));
    let sweep = |dir: &PathBuf| {
        let args =
            ["sweep", "east-berlin", "--set", "tunnel_length=8..9", "--set", "checkpoint_cost=4,6", "--games", "60"];
        let (ok, out, err) = tabula(&[&args[..], &["--out", dir.to_str().unwrap()]].concat(), "");
        assert!(ok, "{err}");
        (out, err)
    };
    sweep(&whole);
    sweep(&resumed);
    // Stopped half way: two of the four cells were never finished.
    let cells = resumed.join("cells");
    let mut kept: Vec<PathBuf> = std::fs::read_dir(&cells).expect("cells").flatten().map(|e| e.path()).collect();
    kept.sort();
    assert_eq!(kept.len(), 4);
    std::fs::remove_file(&kept[1]).expect("remove");
    std::fs::remove_file(&kept[3]).expect("remove");
    std::fs::remove_file(resumed.join("table.csv")).expect("remove");
    let (_, err) = sweep(&resumed);
    assert!(err.contains("2 of 4 cells were kept"), "{err}");
    let table = |dir: &PathBuf| std::fs::read_to_string(dir.join("table.csv")).expect("table");
    assert_eq!(table(&whole), table(&resumed));
    for (plot, names, ticks) in [
        (
            "share-tunnel_length.svg",
            "outcome share by tunnel_length (95% interval), all values of checkpoint_cost pooled",
            ["8", "9"],
        ),
        (
            "share-checkpoint_cost.svg",
            "outcome share by checkpoint_cost (95% interval), all values of tunnel_length pooled",
            ["4", "6"],
        ),
        ("length.svg", "tunnel_length / checkpoint_cost", ["", ""]),
    ] {
        let svg = std::fs::read_to_string(resumed.join(plot)).expect(plot);
        assert!(svg.starts_with("<svg") && svg.contains(names), "{plot}");
        if !ticks[0].is_empty() {
            // One tick per value swept, each labelled with its value (not round numbers between).
            let texts: Vec<&str> = svg
                .split("<text")
                .skip(1)
                .filter_map(|t| t.split('>').nth(1))
                .map(|t| t.split('<').next().unwrap_or("").trim())
                .collect();
            let numbers: Vec<&str> =
                texts.iter().copied().filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit())).collect();
            assert_eq!(numbers, ticks, "{plot}: {texts:?}");
        }
    }
    // A kept cell of other rules is not reused: another seed plays other games.
    let args = ["sweep", "east-berlin", "--set", "tunnel_length=8..9", "--set", "checkpoint_cost=4,6"];
    let more = ["--games", "60", "--seed", "1", "--out", resumed.to_str().unwrap()];
    let (ok, _, err) = tabula(&[&args[..], &more[..]].concat(), "");
    assert!(ok, "{err}");
    assert!(!err.contains("cells were kept"), "{err}");
}

#[test]
fn sweep_values_are_checked_before_anything_is_played() {
    let (ok, _, err) = tabula(&["sweep", "east-berlin", "--set", "tunnel_length=90..110", "--games", "5"], "");
    assert!(!ok);
    assert!(err.contains("101 is outside the range of `tunnel_length`, 1 to 100"), "{err}");
    let (ok, _, err) = tabula(&["sweep", "east-berlin", "--set", "tunnel_length=12..8"], "");
    assert!(!ok);
    assert!(err.contains("a range goes up"), "{err}");
}

#[test]
fn a_run_keeps_counts_not_games_unless_rows_are_asked_for() {
    // Without --csv or --jsonl a run keeps no record of each game (its memory stays flat); the
    // balance made from its counts is the one the records give.
    let rules = std::rc::Rc::new(tabula::load("east-berlin", &tabula::LoadOptions::default()).expect("load"));
    let counted = tabula::sim::SimOptions { games: 300, seed: 9, ..Default::default() };
    let kept = tabula::sim::SimOptions { keep_records: true, ..counted.clone() };
    let a = tabula::sim::simulate(rules.clone(), &counted, &mut |_| {}).expect("sim");
    let b = tabula::sim::simulate(rules.clone(), &kept, &mut |_| {}).expect("sim");
    assert!(a.records.is_empty());
    assert_eq!(b.records.len(), 300);
    assert_eq!(a.balance, b.balance);
    assert_eq!(a.balance, tabula::sim::Balance::of(&rules, 2, &b.records));
    assert_eq!(a.outcomes, b.outcomes);
    // Counts of parts of the run add up to the counts of the whole, whatever the split.
    let (mut first, mut second) = (tabula::sim::Tally::default(), tabula::sim::Tally::default());
    for (i, r) in b.records.iter().enumerate() {
        if i % 3 == 0 { first.add(r) } else { second.add(r) }
    }
    first.merge(second);
    assert_eq!(first.balance(&rules, 2), b.balance);
}
