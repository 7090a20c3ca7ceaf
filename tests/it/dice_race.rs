//! The example ruleset designers copy (examples/rulesets/dice-race/): it loads, passes
//! `tabula check`, its random and scripted games end, and its hand-written log replays to the
//! result it states.

use std::process::Command;
use std::rc::Rc;

use tabula::log::{ReplayOptions, TagValue, parse, replay_with};
use tabula::sim::{SimOptions, simulate};
use tabula::{LoadOptions, Rules};

const FOLDER: &str = "examples/rulesets/dice-race";

fn rules(options: &LoadOptions) -> Rc<Rules> {
    Rc::new(tabula::load(FOLDER, options).unwrap_or_else(|e| panic!("{FOLDER} does not load: {e}")))
}

#[test]
fn it_passes_tabula_check() {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula")).args(["check", FOLDER]).output().expect("run tabula");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("dice-race: ok"));
}

#[test]
fn random_and_careful_games_end_with_a_winner() {
    let rules = rules(&LoadOptions::default());
    for agent in ["random", "careful"] {
        let options = SimOptions {
            games: 300,
            seed: 3,
            max_decisions: 10_000,
            agent: Some(agent.into()),
            ..SimOptions::default()
        };
        let report = simulate(rules.clone(), &options, &mut |_| {}).unwrap_or_else(|e| panic!("{agent}: {e}"));
        assert_eq!(report.outcomes.values().sum::<u64>(), 300, "{agent}: {:?}", report.outcomes);
        // Both seats win some games: the race is not decided by the seating.
        assert!(report.outcomes.values().all(|&n| n > 50), "{agent}: {:?}", report.outcomes);
    }
}

/// The example log, and the rules it names loaded from the example folder (a log names its
/// ruleset by name, which is not on the ruleset path here) with the overrides it records.
fn example_log(text: &str) -> (tabula::log::Log, Rc<Rules>) {
    let log = parse(text, 0).unwrap_or_else(|d| panic!("the example log does not parse: {d:?}"));
    assert_eq!(log.text_tag("ruleset"), Some("dice-race"));
    let overrides = log
        .tags_named("set")
        .filter_map(|t| match t {
            TagValue::Text(t) => t.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())),
            TagValue::Int(_) => None,
        })
        .collect();
    let rules = rules(&LoadOptions { overrides, ..LoadOptions::default() });
    (log, rules)
}

#[test]
fn the_example_log_replays_to_its_result() {
    let text = std::fs::read_to_string(format!("{FOLDER}/short-race.log")).expect("short-race.log");
    let (log, rules) = example_log(&text);
    let replay = replay_with(&log, rules, &ReplayOptions::default())
        .unwrap_or_else(|e| panic!("line {}: {}", e.line, e.message));
    assert_eq!(replay.actions, 6);
    assert_eq!(replay.game.outcome(), Some("red"));
    assert_eq!(log.result(), Some("red"));
    let view = tabula::view::view(&replay.game, None).render();
    assert!(view.contains("score.red 10, score.blue 0"), "{view}");

    // The replay checks the log: had red rolled a 1 at the end, red would have busted, and the
    // game would not be over at the `result` line (line 19).
    let busted = text.replace("* roll die 3", "* roll die 1");
    let (log, rules) = example_log(&busted);
    let error = replay_with(&log, rules, &ReplayOptions::default()).expect_err("red busts: no result yet");
    assert_eq!(error.line, 19, "{}", error.message);
    assert!(error.message.contains("not over"), "{}", error.message);
    // And stopping before the first roll (line 13) is refused by the `legal` hook.
    let early = text.replacen("blue: turn roll", "blue: turn stop", 1);
    let (log, rules) = example_log(&early);
    let error = replay_with(&log, rules, &ReplayOptions::default()).expect_err("stopping with nothing at stake");
    assert_eq!(error.line, 13, "{}", error.message);
    assert!(error.message.contains("not legal"), "{}", error.message);
}
