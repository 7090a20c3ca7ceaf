//! The command line, as a user runs it: `play` with answers piped in, `sim`, `list`, `schema`.

use crate::common::tabula;

#[test]
fn a_human_plays_a_whole_game_against_the_random_police() {
    let (ok, out, err) = tabula(&["play", "east-berlin", "--seed", "3"], &"1\n".repeat(3000));
    assert!(ok, "{err}");
    assert!(out.contains("decide: choose_ability angela <ability>"), "the exile is asked at setup");
    assert!(out.contains("game over: "), "the game ends: {}", &out[out.len().saturating_sub(500)..]);
    // The police's placements are secret: the exile is told that it acted, never where.
    assert!(out.contains("police: investigate ? ?"));
    assert!(!out.contains("police: investigate arrest"), "a police placement leaked to the exile's screen");
    // The exile is told what the round brought: the reveal and the tunnel.
    assert!(out.contains("is turned face up in police_"), "no reveal narrated");
    // The seed is a secret of the table until the game is over.
    let over = out.find("game over: ").expect("game over");
    assert!(!out[..over].contains("seed"), "the seed was shown before the end");
    assert!(out[over..].contains("seed 3"), "the seed is shown at the end");
    // Until the reveal (phases setup, assign, investigation) the exile's screens never list a
    // police card in an area; after it, the cards lie face up for both to see.
    let mut screens_before_reveal = 0;
    for screen in out.split("view of exile: phase ").skip(1) {
        let phase = screen.split_whitespace().next().unwrap_or_default();
        if ["setup", "assign", "investigation"].contains(&phase) {
            screens_before_reveal += 1;
            let screen = screen.split("\n\n").next().unwrap_or_default();
            for area in ["police_tunnel:", "police_funding:", "police_city:"] {
                assert!(!screen.contains(area), "the exile was shown {area} before the reveal:\n{screen}");
            }
        }
    }
    assert!(screens_before_reveal > 10, "too few screens checked");
}

#[test]
fn two_humans_at_one_screen_hand_it_over_between_turns() {
    let answers = "\n1\n".repeat(4000);
    let (ok, out, err) =
        tabula(&["play", "east-berlin", "--seed", "4", "--seat", "exile=human", "--seat", "police=human"], &answers);
    assert!(ok, "{err}");
    assert!(out.contains("Pass the screen to exile"));
    assert!(out.contains("Pass the screen to police"));
    assert!(out.contains("game over: "));
    // The screen changes hands only when the other seat is to move: the exile's six setup
    // choices come one after the other on one screen.
    let handovers = out.matches("Pass the screen to").count();
    let setup = out.split("phase assign").next().unwrap_or_default();
    assert_eq!(setup.matches("Pass the screen to").count(), 1, "{setup}");
    assert!(handovers < out.matches("view of ").count(), "a hand-over before every screen");
    // Standard output is not a terminal here: no escape codes, a plain separator instead.
    assert!(!out.contains('\x1b'), "escape codes written to a pipe");
}

#[test]
fn play_refuses_an_unknown_seat() {
    let (ok, _, err) = tabula(&["play", "east-berlin", "--seat", "spy=human"], "");
    assert!(!ok);
    assert!(err.contains("--seat spy: no such seat; expected one of exile, police"), "{err}");
}

#[test]
fn sim_json_has_the_fields_benchmarks_read() {
    let (ok, out, err) = tabula(&["sim", "east-berlin", "--games", "300", "--seed", "1", "--json"], "");
    assert!(ok, "{err}");
    let report: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(report["games"], 300);
    for field in ["seconds", "playouts_per_s", "decisions_per_game"] {
        assert!(report[field].as_f64().is_some_and(|v| v > 0.0), "{field}: {report}");
    }
    let outcomes = report["outcomes"].as_object().expect("outcomes");
    let mut names: Vec<&String> = outcomes.keys().collect();
    names.sort();
    assert_eq!(names, ["draw", "exile", "police"]);
    assert_eq!(outcomes.values().map(|v| v.as_u64().unwrap()).sum::<u64>(), 300);
}

#[test]
fn sim_summary_is_readable() {
    let (ok, out, err) = tabula(&["sim", "east-berlin", "--games", "50"], "");
    assert!(ok, "{err}");
    assert!(out.contains("east-berlin: 50 games, 2 players, random agents, seed 0"), "{out}");
    assert!(out.contains("decisions per game:") && out.contains("games/s"), "{out}");
}

#[test]
fn list_shows_the_shipped_rulesets() {
    let (ok, out, _) = tabula(&["list"], "");
    assert!(ok);
    assert!(
        out.contains("east-berlin")
            && out.contains("Escape from East Berlin (2 players)")
            && out.contains("Escape Plan (1-5 players)"),
        "{out}"
    );
}

#[test]
fn schema_prints_the_committed_schema() {
    let (ok, out, _) = tabula(&["schema"], "");
    assert!(ok);
    let committed = std::fs::read_to_string("schema/ruleset.schema.json").expect("schema file");
    assert!(out == committed, "`tabula schema` differs from schema/ruleset.schema.json");
}

#[test]
fn a_human_plays_a_real_time_game_with_agent_teammates() {
    // Before the terminal player used the simulator's scheduler, the first seat of a real-time
    // phase was always the one asked, and the agents never acted.
    let (ok, out, err) = tabula(&["play", "temple", "--players", "2", "--seed", "3"], &"1\n".repeat(2000));
    assert!(ok, "{err}");
    assert!(out.contains("blue: heuristic"), "{out}");
    assert!(out.lines().any(|l| l.trim_start().starts_with("blue: ")), "the heuristic teammate never acted");
    assert!(out.contains("game over: "));
}

#[test]
fn a_real_time_game_logged_at_the_terminal_replays_to_the_same_end() {
    // Agents on both seats: the game runs to its end, often lost on the clock (the collapse),
    // which no action of a seat ends. The log must still say so.
    let dir = crate::common::scratch_dir("cli-clock");
    for seed in ["1", "2", "3"] {
        let log = dir.join(format!("game-{seed}.log"));
        let _ = std::fs::remove_file(&log);
        let log = log.to_str().expect("path");
        let args = ["play", "temple", "--players", "2", "--seat", "red=heuristic", "--seed", seed, "--log", log];
        let (ok, out, err) = tabula(&args, "");
        assert!(ok, "{err}");
        let outcome = out.split("game over: ").nth(1).and_then(|s| s.split_whitespace().next()).expect("an outcome");
        let text = std::fs::read_to_string(log).expect("log");
        assert!(text.trim_end().ends_with(&format!("result {outcome}")), "seed {seed}: the log has no end:\n{text}");
        assert!(text.contains("[agents \"red=heuristic blue=heuristic\"]"), "who played is recorded");
        let (ok, replayed, err) = tabula(&["replay", log], "");
        assert!(ok, "seed {seed}: {err}");
        assert!(replayed.contains(&format!("game over: {outcome}")), "seed {seed}: {replayed}");
    }
}

/// The outcome rows of `tabula sim`'s summary: the names between the `outcome` and `seat` headers.
fn outcome_rows(out: &str) -> Vec<String> {
    out.lines()
        .skip_while(|l| !l.trim_start().starts_with("outcome "))
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with("seat "))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn sim_plays_the_usual_player_count_and_lists_the_outcomes_it_can_reach() {
    // Dig Your Way Out declares `usual_players = 4`: sim plays four prisoners unless told, and
    // the outcomes of the two seats out of play are not rows.
    let (ok, out, err) = tabula(&["sim", "blackgate", "--games", "2"], "");
    assert!(ok, "{err}");
    assert!(out.starts_with("blackgate: 2 games, 4 players,"), "{out}");
    assert_eq!(outcome_rows(&out), ["red", "blue", "green", "yellow", "draw"], "{out}");
    let (ok, out, err) = tabula(&["sim", "blackgate", "--games", "2", "--players", "2"], "");
    assert!(ok, "{err}");
    assert_eq!(outcome_rows(&out), ["red", "blue", "draw"], "{out}");
    // Colditz's joint escapes of two or three nationalities are possible only when they all
    // play; at 3 players (the German and two nationalities) only the pair of those two is.
    let (ok, out, err) = tabula(&["sim", "colditz", "--games", "1", "--players", "3"], "");
    assert!(ok, "{err}");
    assert_eq!(outcome_rows(&out), ["german", "american", "british", "american_british"], "{out}");
    // A cooperative win of every seat can happen with one adventurer, who is "1 player".
    let (ok, out, err) = tabula(&["sim", "temple", "--games", "1", "--players", "1"], "");
    assert!(ok, "{err}");
    assert!(out.starts_with("temple: 1 game, 1 player,"), "{out}");
    assert_eq!(outcome_rows(&out), ["win", "loss"], "{out}");
}

/// `--profile` says which script functions a run's time went to, and changes no game: the
/// report is the same as without it, but for the timing and the profile.
#[test]
fn sim_profile_says_where_the_scripts_time_went() {
    let run = |extra: &[&str]| {
        let mut args = vec!["sim", "temple", "--games", "4", "--seed", "3", "--agent", "random", "--json"];
        args.extend_from_slice(extra);
        let (ok, out, err) = tabula(&args, "");
        assert!(ok, "{err}");
        let mut report: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
        let profile = report.as_object_mut().and_then(|r| r.remove("profile"));
        for timing in ["seconds", "playouts_per_s"] {
            report.as_object_mut().map(|r| r.remove(timing));
        }
        (report, profile)
    };
    let (plain, none) = run(&["--threads", "1"]);
    assert_eq!(none, None, "a run not asked to profile has no profile");
    for threads in ["1", "2"] {
        let (profiled, profile) = run(&["--profile", "--threads", threads]);
        assert_eq!(profiled, plain, "profiling changed the games ({threads} threads)");
        let rows = profile.and_then(|p| p.as_array().cloned()).expect("a profile");
        let row =
            |name: &str| rows.iter().find(|r| r["function"] == name).unwrap_or_else(|| panic!("{name}: {rows:?}"));
        // "Setup" runs once a game (the setup phase's `on_enter`), on whichever thread.
        assert_eq!(row("setup")["calls"], 4, "{threads} threads");
        // Every option listing of a turn runs the phase's options hook.
        assert!(row("options")["calls"].as_u64().is_some_and(|n| n > 4), "{rows:?}");
        for r in &rows {
            let (own, total) = (r["self_seconds"].as_f64().unwrap(), r["total_seconds"].as_f64().unwrap());
            assert!(own <= total + 1e-9, "{r}");
        }
        // The natives the scripts call have rows of their own (`game.prop`, in every listing of
        // options), and count no operations.
        let prop = rows.iter().find(|r| r["function"] == "prop" && r["native"] == true).expect("game.prop's row");
        assert!(prop["calls"].as_u64().is_some_and(|n| n > 0) && prop["self_operations"] == 0, "{prop}");
        assert!(rows.iter().filter(|r| r["native"] == false).all(|r| r["self_operations"].as_u64().is_some()));
        let own: Vec<f64> = rows.iter().map(|r| r["self_seconds"].as_f64().unwrap()).collect();
        assert!(own.windows(2).all(|w| w[0] >= w[1]), "the costliest first: {own:?}");
    }
    let (ok, out, err) = tabula(&["sim", "temple", "--games", "2", "--agent", "random", "--profile"], "");
    assert!(ok, "{err}");
    assert!(out.contains("time in scripts: ") && out.contains(" costliest functions and natives:"), "{out}");
    assert!(out.lines().any(|l| l.trim_end().ends_with("   prop (native)")), "{out}");
    assert!(out.lines().any(|l| l.trim_end().ends_with("   options") && l.contains('%')), "{out}");
}
