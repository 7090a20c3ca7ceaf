//! Game logs: the text format round-trips exactly, replay follows the rules line by line, stated
//! chance outcomes replace the generator, seats' copies keep secrets, and the CLI commands that
//! write and read logs work as a user runs them.

use crate::common::tabula;

use std::rc::Rc;

use tabula::agent::{Agent, Decision, RandomAgent};
use tabula::log::{EntryKind, Log, ReplayOptions, parse, parse_with_grammar, record, replay_with, seat_log};
use tabula::view::view;
use tabula::{Game, LoadOptions, Rules};

fn load(path: &str) -> Rc<Rules> {
    Rc::new(tabula::load(path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{path}: {e}")))
}

/// Random play that never picks the fixture's endless-loop action, and moves the game clock a
/// little before each action (so that timed logs and timers are exercised).
fn play_recorded(rules: &Rc<Rules>, seed: u64) -> Game {
    let mut game = Game::recorded(rules.clone(), rules.players.0, seed).expect("start");
    if rules.pace.is_some() {
        // A real-time ruleset: seats act at their pace, as in simulation.
        let mut agents = tabula::sim::random_agents(rules.players.0, seed);
        tabula::sim::play_out(&mut game, &mut agents, 100_000).expect("plays");
        return game;
    }
    let mut agent = RandomAgent::new(seed ^ 0x5eed);
    let timed = !rules.timers.is_empty();
    while !game.is_over() {
        if timed {
            game.advance_clock(game.clock() + 250).expect("clock");
            if game.is_over() {
                break;
            }
        }
        let seat = game.to_act()[0];
        let legal: Vec<_> = game
            .legal_actions(seat)
            .expect("legal")
            .into_iter()
            .filter(|a| rules.actions[a.action as usize].name != "spin")
            .collect();
        let choice = agent.choose(&Decision::new(&game, seat, &legal)).expect("a choice");
        game.apply(&legal[choice]).expect("apply");
    }
    game
}

fn rulesets_with_logs() -> Vec<Rc<Rules>> {
    let mut all: Vec<Rc<Rules>> = std::fs::read_dir("rulesets")
        .expect("rulesets")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("game.toml").is_file())
        .map(|p| load(p.to_str().expect("utf-8 path")))
        .collect();
    // The feature fixture has dice, a shuffle and timers: chance lines and game times.
    all.push(load("tests/fixtures/features"));
    all
}

#[test]
fn recorded_logs_print_and_parse_back_exactly() {
    for rules in rulesets_with_logs() {
        for seed in 0..60 {
            let game = play_recorded(&rules, seed);
            let log = record(&game, Some(seed));
            let text = log.to_string();
            let parsed = parse(&text, 0).unwrap_or_else(|e| panic!("{}: seed {seed}: {e:?}\n{text}", rules.id));
            assert_eq!(parsed, log, "{}: parse(print(log)) == log, seed {seed}", rules.id);
            assert_eq!(parsed.to_string(), text, "{}: print(parse(text)) is stable, seed {seed}", rules.id);
            assert_eq!(parse_with_grammar(&text, 0).expect("the grammar agrees"), log, "{}: seed {seed}", rules.id);
            // And the log replays to the same end.
            let replay = replay_with(&log, rules.clone(), &ReplayOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e:?}", rules.id));
            assert_eq!(view(&replay.game, None), view(&game, None), "{}: seed {seed}", rules.id);
        }
    }
}

#[test]
fn logs_with_chance_and_time_lines_are_what_a_person_would_write() {
    let rules = load("tests/fixtures/features");
    let text = record(&play_recorded(&rules, 3), Some(3)).to_string();
    assert!(text.contains("\n* shuffle deck card_"), "{text}");
    assert!(text.contains(": roll\n* roll die "), "{text}");
    assert!(text.contains("red 00:00.250: "), "{text}");
    assert!(
        text.starts_with("[ruleset \"features\"]\n[players 2]\n[seats \"red blue\"]\n[seed 3]\n[fingerprint \""),
        "{text}"
    );
}

#[test]
fn the_fast_scanner_and_the_grammar_agree_on_tricky_lines() {
    let lines = [
        "exile: assign angela tunnel",
        "  exile  :  assign   angela\ttunnel  ",
        "exile:assign angela tunnel",
        "exile 01:02.003: roll",
        "exile 1:02.003: roll",
        "exile 01:02.03: roll",
        "exile 01:02.003 : roll # late",
        "result police",
        "result: pass",
        "clock 03:00.000",
        "clock 03:00.000 # door",
        "clock 03:00.000: go",
        "clock: go",
        "clock 3:00.000",
        "result police extra",
        "* roll die_1 4",
        "*roll die_1 4",
        "* rolls die_1 4",
        "* shuffle deck",
        "police: investigate ? ?",
        "police: investigate ?x ?",
        "[ruleset \"east-berlin\"]",
        "[ ruleset \"a b\" ] # spaced",
        "[ruleset \"a#b\"]",
        "[ruleset \"say \\\"hi\\\"\"]",
        "[Ruleset \"x\"]",
        "[seed 18446744073709551615]",
        "[seed 18446744073709551616]",
        "[seed -1]",
        "# just a comment",
        "#",
        "",
        "   ",
        "exile: assign angela tunnel # why not",
        "exile: assign angela tunnel#tight",
        "exile: assign angéla tunnel",
        "exile: assign angela,tunnel",
        "exile assign",
        ": assign",
        "exile:",
        "exile: assign angela tunnel\r",
        "exile: a\rb",
    ];
    for line in lines {
        for text in [line.to_string(), format!("{line}\n"), format!("[players 2]\n{line}\nresult x\n")] {
            let fast = parse(&text, 0);
            let grammar = parse_with_grammar(&text, 0);
            match (&fast, &grammar) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text:?}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{text:?}: the fast path says {fast:?}, the grammar says {grammar:?}"),
            }
        }
    }
}

#[test]
fn the_police_copy_never_shows_where_a_chip_was_placed() {
    let rules = load("rulesets/east-berlin");
    let (exile, police) = (rules.seat("exile").unwrap(), rules.seat("police").unwrap());
    let mut masked = 0;
    for seed in 0..200 {
        let log = record(&play_recorded(&rules, seed), Some(seed));
        let police_copy = seat_log(&log, rules.clone(), police).expect("police copy");
        let exile_copy = seat_log(&log, rules.clone(), exile).expect("exile copy");
        for (theirs, mine) in [(&police_copy, "exile"), (&exile_copy, "police")] {
            for e in &theirs.entries {
                if let EntryKind::Action { seat, name, args, .. } = &e.kind
                    && seat == mine
                    && (name == "assign" || name == "investigate")
                    // A released member goes to the city face up, where the police sees it.
                    && !(name == "assign" && args.last().is_some_and(|a| a == "city") && !args.contains(&"?".into()))
                {
                    assert!(args.iter().all(|a| a == "?"), "seed {seed}: {seat}'s {name} shown to the other seat: {e}");
                    masked += 1;
                }
            }
        }
        // A seat's own actions are not masked in its own copy.
        let own: Vec<_> = police_copy
            .entries
            .iter()
            .filter(|e| matches!(&e.kind, EntryKind::Action { seat, .. } if seat == "police"))
            .collect();
        assert!(own.iter().all(|e| !e.to_string().contains('?')), "seed {seed}");
        // What the reveal shows arrives as a note, after the police's placements of the round.
        let text = police_copy.to_string();
        if let Some(note) = text.find("# revealed: ") {
            assert!(text[..note].contains("police: investigate"), "seed {seed}: a reveal before any placement");
        }
    }
    assert!(masked > 1000);
}

const EAST_BERLIN_HEADER: &str = "[ruleset \"east-berlin\"]\n[players 2]\n[seats \"exile police\"]\n[seed 0]\n";

#[test]
fn a_line_edited_to_break_a_rule_is_reported_at_that_line() {
    let text = format!(
        "{EAST_BERLIN_HEADER}
exile: choose_ability angela construction
exile: choose_ability bruno construction
exile: choose_ability carl construction
exile: choose_ability dan funding
exile: choose_ability erika funding
exile: choose_ability fine funding
exile: assign angela tunnel
exile: assign bruno tunnel
exile: assign carl tunnel
exile: assign dan funding
exile: assign erika funding
exile: assign fine funding
police: investigate arrest_angela police_tunnel
police: investigate arrest_bruno police_tunnel
police: investigate arrest_carl police_tunnel
# Phase 2: the tunnel area takes 3 cards at most; this fourth one was added by hand.
police: investigate arrest_dan police_tunnel
"
    );
    let log = parse(&text, 0).expect("parses");
    let err = replay_with(&log, load("rulesets/east-berlin"), &ReplayOptions::default()).expect_err("a fourth card");
    assert_eq!(err.line, 22, "{err:?}");
    assert!(err.message.contains("police: investigate arrest_dan police_tunnel not legal"), "{}", err.message);
    assert!(err.message.contains("police_tunnel already holds 3"), "{}", err.message);
}

#[test]
fn a_result_that_disagrees_with_the_rules_is_reported() {
    let rules = load("rulesets/east-berlin");
    let mut log = record(&play_recorded(&rules, 11), Some(11));
    let outcome = log.result().expect("a result").to_string();
    let other = if outcome == "police" { "exile" } else { "police" };
    let last = log.entries.len() - 1;
    log.entries[last].kind = EntryKind::Result(other.into());
    log.entries[last].line = 999;
    let err = replay_with(&log, rules, &ReplayOptions::default()).expect_err("wrong result");
    assert_eq!(err.line, 999);
    assert!(err.message.contains(&format!("ended `{other}`, the rules say `{outcome}`")), "{}", err.message);
}

fn without_seed(log: &Log) -> Log {
    Log { tags: log.tags.iter().filter(|t| t.name != "seed").cloned().collect(), entries: log.entries.clone() }
}

#[test]
fn a_log_that_states_its_dice_replays_identically_with_any_seed() {
    let rules = load("tests/fixtures/features");
    let game = play_recorded(&rules, 5);
    let log = record(&game, Some(5));
    assert!(
        log.entries.iter().any(|e| matches!(&e.kind, EntryKind::Chance { kind, .. } if kind == "roll")),
        "no dice rolled"
    );
    let expected = view(&game, None);
    for seed in [0u64, 1, 999, u64::MAX] {
        let mut reseeded = without_seed(&log);
        reseeded.tags.push(tabula::log::Tag {
            name: "seed".into(),
            value: tabula::log::TagValue::Int(seed),
            comment: None,
            line: 0,
        });
        let replay = replay_with(&reseeded, rules.clone(), &ReplayOptions::default()).expect("replays");
        assert_eq!(view(&replay.game, None), expected, "seed {seed}");
    }
    // With every outcome stated, no seed is needed at all.
    let replay = replay_with(&without_seed(&log), rules.clone(), &ReplayOptions::default()).expect("no seed needed");
    assert_eq!(view(&replay.game, None), expected);
    // Without the outcomes, the seed's generator makes the same ones...
    let bare = Log {
        tags: log.tags.clone(),
        entries: log.entries.iter().filter(|e| !matches!(e.kind, EntryKind::Chance { .. })).cloned().collect(),
    };
    let replay = replay_with(&bare, rules.clone(), &ReplayOptions::default()).expect("the seed draws them");
    assert_eq!(view(&replay.game, None), expected);
    // ...and with neither, the first chance is an error at its step.
    let err = replay_with(&without_seed(&bare), rules, &ReplayOptions::default()).expect_err("no seed, no outcomes");
    assert!(err.message.contains("states no outcome and has no seed"), "{}", err.message);
}

#[test]
fn a_stated_outcome_the_rules_do_not_make_is_reported() {
    let rules = load("tests/fixtures/features");
    let mut log = record(&play_recorded(&rules, 8), Some(8));
    let roll = log
        .entries
        .iter()
        .position(|e| matches!(&e.kind, EntryKind::Chance { kind, .. } if kind == "roll"))
        .expect("a roll");
    // Say the shuffle happened here instead of the roll.
    log.entries[roll].kind = EntryKind::Chance { kind: "random".into(), args: vec!["6".into(), "2".into()] };
    log.entries[roll].line = 77;
    let err = replay_with(&log, rules, &ReplayOptions::default()).expect_err("diverges");
    assert!(
        err.message.contains("the log states a random number at line 77, but the rules roll die here"),
        "{}",
        err.message
    );
}

#[test]
fn changed_rules_are_reported_and_replay_goes_on_to_the_first_divergence() {
    let rules = load("rulesets/east-berlin");
    let log = record(&play_recorded(&rules, 21), Some(21));
    let changed = Rc::new(
        tabula::load(
            "rulesets/east-berlin",
            &LoadOptions { variants: vec![], overrides: vec![("city_cards".into(), "0".into())] },
        )
        .unwrap(),
    );
    let outcome = replay_with(&log, changed, &ReplayOptions::default());
    let warnings = match &outcome {
        Ok(r) => r.warnings.clone(),
        Err(e) => e.warnings.clone(),
    };
    assert!(warnings.iter().any(|w| w.contains("the rules changed since this log was recorded")), "{warnings:?}");
    if let Err(e) = outcome {
        // With no place for a card in the city, the first city placement no longer fits.
        assert!(e.message.contains("police_city"), "{}", e.message);
    }
}

#[test]
fn until_stops_after_the_given_line() {
    let rules = load("rulesets/east-berlin");
    let log = record(&play_recorded(&rules, 4), Some(4));
    let text = log.to_string();
    let reparsed = parse(&text, 0).unwrap();
    let k = reparsed.entries[10].line;
    let replay = replay_with(&reparsed, rules, &ReplayOptions { until_line: Some(k), record: false }).expect("replays");
    assert_eq!(replay.actions, 11, "the actions on lines up to {k}");
    assert!(!replay.game.is_over());
}

// --- The command line ---------------------------------------------------------------------

/// A path in a scratch folder of the test's own (`name` is the file or folder in it).
fn scratch(name: &str) -> std::path::PathBuf {
    crate::common::scratch_dir(&format!("logs-{}", name.replace('.', "-"))).join(name)
}

#[test]
fn replay_reports_the_first_illegal_line_and_exits_non_zero() {
    let path = scratch("illegal.log");
    std::fs::write(
        &path,
        format!(
            "{EAST_BERLIN_HEADER}\nexile: choose_ability angela construction\nexile: choose_ability angela funding\n"
        ),
    )
    .unwrap();
    let (ok, _, err) = tabula(&["replay", path.to_str().unwrap()], "");
    assert!(!ok);
    assert!(err.contains("line 7: exile: choose_ability angela funding not legal"), "{err}");
    assert!(err.contains("illegal.log:7:1"), "{err}");
}

#[test]
fn replay_reports_syntax_errors_with_line_column_and_expectation() {
    let path = scratch("syntax.log");
    std::fs::write(&path, format!("{EAST_BERLIN_HEADER}\nexile assign angela tunnel\n")).unwrap();
    let (ok, _, err) = tabula(&["replay", path.to_str().unwrap()], "");
    assert!(!ok);
    assert!(err.contains("the log does not parse") && err.contains("syntax.log:6:7"), "{err}");
    assert!(err.contains("expected"), "{err}");
}

#[test]
fn sim_writes_logs_that_replay_shows_views_and_seat_copies_of() {
    let dir = scratch("sim-logs");
    let (ok, _, err) =
        tabula(&["sim", "east-berlin", "--games", "20", "--seed", "3", "--log", dir.to_str().unwrap()], "");
    assert!(ok, "{err}");
    let first = dir.join("game-000001.log");
    let logs: Vec<String> =
        (1..=20).map(|i| dir.join(format!("game-{i:06}.log")).to_string_lossy().into_owned()).collect();
    let mut args = vec!["replay"];
    args.extend(logs.iter().map(String::as_str));
    let (ok, out, err) = tabula(&args, "");
    assert!(ok, "{err}");
    assert_eq!(out.lines().filter(|l| l.contains(": ok, ")).count(), 20, "{out}");
    assert!(err.contains("replayed 20 logs") && err.contains("actions/s"), "{err}");

    let (ok, out, _) = tabula(&["replay", first.to_str().unwrap(), "--view", "police"], "");
    assert!(ok);
    assert!(out.starts_with("view of police: phase "), "{out}");
    let (ok, out, _) = tabula(&["replay", first.to_str().unwrap(), "--seat-log", "police"], "");
    assert!(ok);
    assert!(out.contains("exile: assign ? ?") && out.contains("# revealed: "), "{out}");
    let (ok, out, _) = tabula(&["replay", first.to_str().unwrap(), "--until", "12"], "");
    assert!(ok);
    assert!(out.contains("not over: phase setup") || out.contains("not over: phase assign"), "{out}");
    // By default, a summary: how the game ended and its counters, not its zones and pieces;
    // --state prints every zone.
    let (ok, out, _) = tabula(&["replay", first.to_str().unwrap()], "");
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("game over: "), "{out}");
    assert!(lines[1].starts_with("after ") && lines[1].contains("; counters: money "), "{out}");
    assert!(!out.contains("police_hand"), "{out}");
    let (ok, out, _) = tabula(&["replay", first.to_str().unwrap(), "--state"], "");
    assert!(ok);
    assert!(out.starts_with("view of everyone (omniscient)") && out.contains("police_"), "{out}");
}

#[test]
fn play_logs_as_it_goes_and_resume_finishes_the_game() {
    let path = scratch("played.log");
    // Twenty answers, then the input ends: the game stops mid-way, its log kept line by line.
    let (ok, _, err) =
        tabula(&["play", "east-berlin", "--seed", "9", "--log", path.to_str().unwrap()], &"1\n".repeat(20));
    assert!(ok, "{err}");
    let partial = std::fs::read_to_string(&path).unwrap();
    let exile_lines = partial.lines().filter(|l| l.starts_with("exile: ")).count();
    assert_eq!(exile_lines, 20, "{partial}");
    assert!(!partial.contains("result "));

    let (ok, out, err) = tabula(&["play", "--resume", path.to_str().unwrap()], &"1\n".repeat(3000));
    assert!(ok, "{err}");
    assert!(out.contains("resuming") && out.contains("game over: "), "{out}");
    let whole = std::fs::read_to_string(&path).unwrap();
    assert!(whole.starts_with(&partial), "resuming appends to the log");
    let result = whole.lines().last().unwrap_or_default().to_string();
    assert!(result.starts_with("result "), "{whole}");
    let (ok, _, err) = tabula(&["replay", path.to_str().unwrap()], "");
    assert!(ok, "the finished log replays: {err}");

    let (ok, _, err) = tabula(&["play", "--resume", path.to_str().unwrap()], "");
    assert!(!ok && err.contains("already over"), "{err}");
}

#[test]
fn a_seat_copy_keeps_no_seed_no_unknown_tag_and_no_comment() {
    let rules = load("rulesets/east-berlin");
    let police = rules.seat("police").unwrap();
    let log = record(&play_recorded(&rules, 5), Some(5));
    let mut text = log.to_string();
    // A writer's additions: an unknown tag, comments on tags, actions and clock lines.
    text = text.replacen("[players 2]", "[players 2] # angela digs\n[notes \"angela tunnel\"]", 1);
    text = text
        .lines()
        .map(|l| if l.starts_with("exile: assign angela") { format!("{l} # she digs") } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n");
    let parsed = parse(&text, 0).expect("parses");
    let copy = seat_log(&parsed, rules.clone(), police).expect("police copy").to_string();
    assert!(!copy.contains("[seed"), "the seed reproduces every hidden choice:\n{copy}");
    assert!(!copy.contains("[notes"), "an unknown tag may say anything:\n{copy}");
    assert!(!copy.contains("angela digs"), "a tag's comment is the writer's:\n{copy}");
    assert!(!copy.contains("she digs"), "an action's comment is the writer's:\n{copy}");
    assert!(
        copy.starts_with("[ruleset \"east-berlin\"]\n[players 2]\n[seats \"exile police\"]\n[fingerprint"),
        "{copy}"
    );
    // The full log keeps them all.
    let full = parse(&text, 0).expect("parses").to_string();
    assert!(full.contains("[seed 5]") && full.contains("[notes \"angela tunnel\"]"));
}

#[test]
fn a_released_member_sent_face_up_to_the_city_is_not_masked_for_the_police() {
    // released-member.log: a member released in Phase 6 must go to the city next round, face
    // up: the police sees the chip there, so its copy says so.
    let rules = load("rulesets/east-berlin");
    let text = std::fs::read_to_string("examples/logs/east-berlin/released-member.log").expect("log");
    let log = parse(&text, 0).expect("parses");
    let copy = seat_log(&log, rules.clone(), rules.seat("police").unwrap()).expect("police copy").to_string();
    let released: Vec<&str> = copy.lines().filter(|l| l.starts_with("exile: assign") && !l.contains('?')).collect();
    assert!(!released.is_empty(), "no assignment shown in the open:\n{copy}");
    assert!(released.iter().all(|l| l.ends_with(" city")), "{released:?}");
}
