//! The usual mistakes at the command line, and what tabula says about them: each answer names
//! the place (the argument, or the file and line) and what was expected.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::common::tabula;

/// A scratch folder of this test process, emptied.
fn scratch(name: &str) -> PathBuf {
    crate::common::scratch_dir(&format!("mistakes-{name}"))
}

/// A copy of a shipped example log with one line replaced, in a scratch folder.
fn altered_log(dir: &std::path::Path, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string("examples/logs/east-berlin/checkpoint-paid.log").expect("example log");
    assert!(text.contains(from), "the example log no longer has `{from}`");
    let path = dir.join("altered.log");
    std::fs::write(&path, text.replacen(from, to, 1)).expect("write");
    path.to_str().expect("utf-8").to_string()
}

/// Runs `tabula args` and closes its standard output at once, as `| head` does once it has read
/// enough: the exit status and what was written to standard error.
fn run_with_reader_gone(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tabula");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    (out.status, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly() {
    // Enough output to fill a pipe: the reader closes it before tabula is done writing.
    let log = "examples/logs/east-berlin/checkpoint-paid.log";
    let args: Vec<&str> = std::iter::once("replay").chain(std::iter::repeat_n(log, 3000)).collect();
    let (status, err) = run_with_reader_gone(&args);
    assert!(!err.contains("panicked"), "{err}");
    assert!(status.success(), "exit status {status:?}: {err}");
}

#[test]
fn set_values_are_checked_against_the_parameter() {
    let cases = [
        ("tunnel_length=abc", "--set tunnel_length=abc: expected an integer"),
        ("tunnel_length=99999999999999999999", "expected an integer from"),
        ("tunnel_length=500", "500 is outside the range of `tunnel_length`, 1 to 100"),
        ("tunnel_lenght=12", "no parameter `tunnel_lenght` (did you mean `tunnel_length`?)"),
    ];
    for (set, message) in cases {
        let (ok, _, err) = tabula(&["sim", "east-berlin", "--games", "1", "--set", set], "");
        assert!(!ok, "--set {set} was accepted");
        assert!(err.contains(message), "--set {set}: {err}");
        assert!(!err.contains("game.toml"), "an argument's mistake is not the ruleset file's: {err}");
    }
    let (ok, _, err) = tabula(&["sim", "temple", "--games", "1", "--set", "depot_gems=3"], "");
    assert!(!ok);
    assert!(err.contains("`depot_gems` is a table of values"), "{err}");
    // Temple's supply holds 25 dice, five for each of five players.
    let (ok, _, err) = tabula(&["sim", "temple", "--games", "1", "--set", "dice_per_player=1000"], "");
    assert!(!ok);
    assert!(err.contains("outside the range of `dice_per_player`, 1 to 5"), "{err}");
}

#[test]
fn sim_shows_the_overrides_it_played_with() {
    let (ok, out, err) = tabula(&["sim", "east-berlin", "--games", "5", "--set", "tunnel_length=8"], "");
    assert!(ok, "{err}");
    assert!(out.contains("east-berlin: 5 games, 2 players, random agents, seed 0, tunnel_length=8"), "{out}");
    let (ok, out, err) = tabula(&["sim", "east-berlin", "--games", "5", "--set", "tunnel_length=8", "--json"], "");
    assert!(ok, "{err}");
    let report: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
    assert_eq!(report["set"]["tunnel_length"], "8");
}

#[test]
fn params_lists_values_ranges_and_the_rulebook_comments() {
    let (ok, out, err) = tabula(&["params", "east-berlin"], "");
    assert!(ok, "{err}");
    assert!(out.contains("tunnel_length = 10  range 1 to 100\n"), "{out}");
    assert!(out.contains("    approximation: the printed tunnel sheet is not in the text."), "{out}");
    assert!(out.contains("checkpoint_cost = 5  range 0 to 100\n    Both checkpoints: \"[M] Pay 5 money.\""), "{out}");
    let (ok, out, err) = tabula(&["params", "temple", "--variant", "experts", "--set", "fate_gems=3"], "");
    assert!(ok, "{err}");
    assert!(out.contains("extra_gems = 3  range 0 to 30  (variants/experts.toml)"), "{out}");
    assert!(out.contains("fate_gems = 3  range 0 to 20  (--set)"), "{out}");
    assert!(out.contains("depot_gems = { 1 = 7, 2 = 7, 3 = 11, 4 = 14, 5 = 16 }"), "{out}");
}

#[test]
fn nothing_is_overwritten_without_force() {
    let dir = scratch("overwrite");
    let log = dir.join("game.log");
    std::fs::write(&log, "a finished game\n").expect("write");
    let log = log.to_str().expect("utf-8");
    let (ok, _, err) = tabula(&["play", "east-berlin", "--seat", "exile=random", "--log", log], "");
    assert!(!ok);
    assert!(err.contains("already exists: `tabula play --resume"), "{err}");
    assert_eq!(std::fs::read_to_string(log).expect("read"), "a finished game\n", "the file was touched");

    let logs = dir.join("logs");
    let logs = logs.to_str().expect("utf-8");
    let (ok, _, err) = tabula(&["sim", "east-berlin", "--games", "3", "--log", logs], "");
    assert!(ok, "{err}");
    let (ok, _, err) = tabula(&["sim", "east-berlin", "--games", "1", "--log", logs], "");
    assert!(!ok, "a second run mixed its logs with the first one's");
    assert!(err.contains("already holds 3 log(s) of an earlier run"), "{err}");
    let (ok, _, err) = tabula(&["sim", "east-berlin", "--games", "1", "--log", logs, "--force"], "");
    assert!(ok, "{err}");
    let left: Vec<_> = std::fs::read_dir(logs).expect("logs").flatten().collect();
    assert_eq!(left.len(), 1, "--force replaces the old run's logs");
}

#[test]
fn replay_errors_point_at_the_line_at_fault() {
    let dir = scratch("replay");
    let cases = [
        ("[players 2]", "[players 3]", "line 2: [players 3]: Escape from East Berlin is played by 2 players"),
        ("exile: assign angela tunnel", "exile assign angela tunnel", "expected `:` after the seat"),
        (
            "police: investigate",
            "police: investigat",
            "no action named `investigat` (did you mean `investigate`?); the actions are choose_ability, assign",
        ),
    ];
    for (from, to, message) in cases {
        let log = altered_log(&dir, from, to);
        let (ok, _, err) = tabula(&["replay", &log], "");
        assert!(!ok, "{to}");
        assert!(err.contains(message), "{to}: {err}");
    }
    let (ok, _, err) = tabula(&["replay", "README.md"], "");
    assert!(!ok);
    assert!(err.contains("error: not a tabula log") && err.contains("README.md:3:"), "{err}");
}

#[test]
fn a_log_of_ones_own_ruleset_replays_from_anywhere() {
    let dir = scratch("own");
    let log = dir.join("race.log");
    let log = log.to_str().expect("utf-8");
    let args = ["play", "examples/rulesets/dice-race", "--seat", "red=random", "--seat", "blue=random"];
    let (ok, out, err) = tabula(&[&args[..], &["--seed", "5", "--log", log]].concat(), "");
    assert!(ok, "{err}");
    let outcome = out.split("game over: ").nth(1).and_then(|s| s.split_whitespace().next()).expect("an end");
    let text = std::fs::read_to_string(log).expect("log");
    assert!(text.contains("[ruleset_path \""), "the folder is recorded:\n{text}");
    // From another folder, the name `dice-race` finds nothing: the recorded folder does.
    let replayed = Command::new(env!("CARGO_BIN_EXE_tabula")).args(["replay", log]).current_dir(&dir).output();
    let replayed = replayed.expect("run tabula");
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stderr));
    assert!(String::from_utf8_lossy(&replayed.stdout).contains(&format!("game over: {outcome}")));
    // --ruleset replays it under a copy of the rules kept elsewhere.
    let (ok, out, err) = tabula(&["replay", log, "--ruleset", "examples/rulesets/dice-race"], "");
    assert!(ok, "{err}");
    assert!(out.contains(&format!("game over: {outcome}")), "{out}");
}

#[test]
fn arguments_that_make_no_sense_are_refused() {
    let log = "examples/logs/east-berlin/checkpoint-paid.log";
    let (ok, _, err) = tabula(&["replay", log, log, "--view", "police"], "");
    assert!(!ok, "--view was ignored");
    assert!(err.contains("--view, --state, --until, --seat-log and --watch show one log"), "{err}");
    let (ok, _, err) = tabula(&["sim", "east-berlin", "--games", "0"], "");
    assert!(!ok);
    assert!(err.contains("0 is not in 1.."), "{err}");
    let (ok, _, err) = tabula(&["sim", "templ"], "");
    assert!(!ok);
    assert!(err.contains("no ruleset `templ` (did you mean `temple`?)"), "{err}");
    let (ok, _, err) = tabula(&["sim", "temple", "--variant", "expert"], "");
    assert!(!ok);
    assert!(err.contains("no variant `expert` in temple (did you mean `experts`?)"), "{err}");
    assert_eq!(err.matches("no variant").count(), 1, "said once: {err}");
}

#[test]
fn bookkeeping_properties_are_kept_off_the_screen() {
    // Temple's chambers keep which sides are free and what an entry needs for the scripts; the
    // printed tile (its openings, cost and gems) is what a person sees.
    let (ok, out, err) = tabula(&["replay", "examples/logs/temple/escape.log", "--view", "red", "--verbose"], "");
    assert!(ok, "{err}");
    assert!(out.contains("cost="), "the printed tile is shown: {out}");
    for bookkeeping in ["north_free=", "frontier=", "need_torch=", "north_pass="] {
        assert!(!out.contains(bookkeeping), "{bookkeeping} shown:\n{out}");
    }
    // The compact form draws the chambers as a map: their cost and gems in the cells.
    let (ok, out, err) = tabula(&["replay", "examples/logs/temple/escape.log", "--view", "red"], "");
    assert!(ok, "{err}");
    assert!(out.contains("|gems_1 key_tor") && out.contains("gems=3"), "the printed tile is shown: {out}");
    for bookkeeping in ["free", "frontier", "need", "pass"] {
        assert!(!out.contains(bookkeeping), "{bookkeeping} shown:\n{out}");
    }
}

#[test]
fn a_player_count_the_rules_exclude_is_refused() {
    // Team mode is for two even teams: `players = [4, 6]` with `excluded_players = [5]`.
    let (ok, _, err) = tabula(&["sim", "blackgate", "--variant", "team", "--players", "5", "--games", "1"], "");
    assert!(!ok, "five players were seated in two teams");
    assert!(err.contains("Dig Your Way Out is played by 4 or 6 players, not 5"), "{err}");
}

#[test]
fn a_seat_the_rules_play_cannot_be_given_an_agent() {
    // Sandra plays the two-player game of Escape Plan as `[seats.sandra] played_by = "rules"`.
    let play: &[&str] = &["play", "escape-plan", "--players", "2", "--seat", "sandra=random"];
    let sim: &[&str] = &["sim", "escape-plan", "--players", "2", "--games", "1", "--seat", "sandra=random"];
    for args in [play, sim] {
        let command = args[0];
        let (ok, _, err) = tabula(args, "");
        assert!(!ok, "{command}: Sandra was given an agent");
        assert!(err.contains("--seat sandra: the rules play sandra"), "{command}: {err}");
        assert!(err.contains("the seats are red, blue"), "{command}: {err}");
    }
}

/// Copies a folder's files (one level) into another.
fn copy_folder(from: &str, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("read folder") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().expect("name"))).expect("copy");
        }
    }
}

/// A designer's own ruleset in the current folder (`./card-dash`): its logs record its folder,
/// so that they replay from anywhere, not only from where they were written.
#[test]
fn logs_of_a_ruleset_in_the_current_folder_replay_from_anywhere() {
    let dir = scratch("own-ruleset");
    copy_folder("examples/rulesets/dice-race", &dir.join("card-dash"));
    let run = |args: &[&str], cwd: &std::path::Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).current_dir(cwd).output().expect("run");
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (ok, err) = run(&["sim", "./card-dash", "--games", "2", "--log", "logs"], &dir);
    assert!(ok, "{err}");
    let log = dir.join("logs/game-000001.log");
    let text = std::fs::read_to_string(&log).expect("a log");
    assert!(text.contains("[ruleset_path "), "the log records its ruleset's folder:\n{text}");
    let elsewhere = scratch("elsewhere");
    let (ok, err) = run(&["replay", log.to_str().expect("utf-8")], &elsewhere);
    assert!(ok, "the log replays from another folder: {err}");
}

/// A modder's overlay kept outside the shipped ruleset (`--variant ./short.toml`, with its
/// `short.rhai`) plays, and its logs name the file so that they replay from anywhere.
#[test]
fn a_variant_overlay_of_ones_own_is_applied_and_logged_by_its_path() {
    let dir = scratch("own-variant");
    std::fs::write(dir.join("short.toml"), "[params]\ngoal = 12\n").expect("write");
    // The variant's script replaces a base function: the careful agent stops at once.
    std::fs::write(dir.join("short.rhai"), "fn careful(view, options) { options.len() - 1 }\n").expect("write");
    let run = |args: &[&str], cwd: &std::path::Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_tabula")).args(args).current_dir(cwd).output().expect("run");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let ruleset = std::fs::canonicalize("examples/rulesets/dice-race").expect("ruleset");
    let ruleset = ruleset.to_str().expect("utf-8");
    let (ok, out, err) = run(&["params", ruleset, "--variant", "./short.toml"], &dir);
    assert!(ok, "{err}");
    assert!(out.contains("goal = 12"), "{out}");
    let (ok, _, err) = run(&["sim", ruleset, "--variant", "short.toml", "--games", "2", "--log", "logs"], &dir);
    assert!(ok, "{err}");
    let log = dir.join("logs/game-000001.log");
    let text = std::fs::read_to_string(&log).expect("a log");
    let abs = dir.canonicalize().expect("dir").join("short.toml");
    assert!(text.contains(&format!("[variant \"{}\"]", abs.display())), "{text}");
    let (ok, out, err) = run(&["replay", log.to_str().expect("utf-8")], &scratch("variant-elsewhere"));
    assert!(ok, "the log replays from another folder: {err}{out}");
    let (ok, _, err) = run(&["sim", ruleset, "--variant", "./nothing.toml", "--games", "1"], &dir);
    assert!(!ok && err.contains("no such overlay file"), "{err}");
}

#[test]
fn a_mistyped_name_in_a_log_gets_the_likely_name_and_the_names_it_could_be() {
    let dir = scratch("typo");
    let log = altered_log(&dir, "exile: assign angela tunnel", "exile: assign angla tunnel");
    let (ok, _, err) = tabula(&["replay", &log], "");
    assert!(!ok);
    assert!(err.contains(":22:"), "{err}");
    assert!(
        err.contains("`angla` is not a valid member for assign (did you mean `angela`?); member is one of angela, bruno, carl, dan, erika, fine"),
        "{err}"
    );
    let log = altered_log(&dir, "exile: assign angela tunnel", "exile: assign angela tunel");
    let (ok, _, err) = tabula(&["replay", &log], "");
    assert!(!ok);
    assert!(
        err.contains(
            "`tunel` is not a valid area for assign (did you mean `tunnel`?); area is one of tunnel, funding, city"
        ),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_mistyped_seat_or_agent_for_play_gets_the_likely_name() {
    let (ok, _, err) = tabula(&["play", "east-berlin", "--seat", "exil=human"], "");
    assert!(!ok);
    assert!(err.contains("--seat exil: no such seat (did you mean `exile`?); expected one of exile, police"), "{err}");
    let (ok, _, err) = tabula(&["play", "east-berlin", "--seat", "exile=humn"], "");
    assert!(!ok);
    assert!(err.contains("no such agent (did you mean `human`?)"), "{err}");
}

#[test]
fn a_failing_game_of_a_run_comes_with_the_command_that_plays_it_again() {
    let ruleset = "tests/corpus/rulesets/script-endless-loop";
    let (ok, _, err) = tabula(&["sim", ruleset, "--games", "3", "--seed", "7"], "");
    assert!(!ok);
    let folder = std::fs::canonicalize(ruleset).unwrap();
    let command = format!("tabula sim {} --seed 7 --games 1 --players 1", folder.display());
    assert!(err.contains(&format!("to play it again: {command}")), "{err}");
    // The command does play the same failing game.
    let words: Vec<&str> = command.split_whitespace().skip(1).collect();
    let (ok, _, again) = tabula(&words, "");
    assert!(!ok);
    assert!(again.contains("in game 0 of the run") || again.contains("game 0 of the run"), "{again}");
    let seeded = |text: &str| text.lines().find(|l| l.contains("seeded")).map(str::to_string);
    assert_eq!(seeded(&err), seeded(&again), "the same game");
}

#[test]
fn rows_written_to_a_pipe_whose_reader_goes_away_end_quietly() {
    // `tabula sim ... --jsonl /dev/stdout | head -1`: the reader leaves after one row.
    let (status, err) = run_with_reader_gone(&["sim", "east-berlin", "--games", "400", "--jsonl", "/dev/stdout"]);
    assert!(!err.contains("Broken pipe") && !err.contains("panicked"), "{err}");
    assert!(status.success(), "exit status {status:?}: {err}");
}

#[test]
fn every_integer_parameter_of_a_shipped_ruleset_declares_its_range() {
    // A value --set outside what makes sense is refused instead of played silently.
    use tabula::rules::ParamValue;
    let mut unranged = Vec::new();
    for ruleset in ["east-berlin", "blackgate", "escape-plan", "colditz", "temple"] {
        let rules = tabula::load(ruleset, &tabula::LoadOptions::default()).expect("loads");
        for p in &rules.param_info {
            let integers = match &p.value {
                ParamValue::Int(_) => true,
                ParamValue::List(items) => !items.is_empty() && items.iter().all(|i| matches!(i, ParamValue::Int(_))),
                _ => false,
            };
            if integers && p.range.is_none() {
                unranged.push(format!("{ruleset}: {}", p.name));
            }
        }
    }
    assert!(unranged.is_empty(), "parameters without a range:\n{}", unranged.join("\n"));
    // East Berlin's checkpoint lies on the tunnel, however long it is made.
    let (ok, _, err) = tabula(&["sim", "east-berlin", "--games", "1", "--set", "checkpoint_1_at=50"], "");
    assert!(!ok);
    assert!(err.contains("50 is outside the range of `checkpoint_1_at`, 0 to 10 (tunnel_length)"), "{err}");
}
