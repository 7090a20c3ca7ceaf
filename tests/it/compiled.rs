//! The scripts compiler against Rhai's interpreter: every shipped ruleset, example and fixture
//! plays the same games both ways, the probe fixture's snippets of Rhai give the values Rhai's
//! semantics give, and errors read the same. Rhai's language and library at large are compared
//! by `runtime/script/compile/tests.rs`, over snippets generated from tables.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use tabula::sim::{SimOptions, simulate};
use tabula::{Game, LoadOptions, Rules};

use crate::common::{notes_of, tabula};

fn load(path: &str, variants: &[&str], overrides: &[(&str, &str)], interpret: bool) -> Rules {
    let options = LoadOptions {
        variants: variants.iter().map(|v| v.to_string()).collect(),
        overrides: overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    let mut rules = tabula::load(path, &options).unwrap_or_else(|e| panic!("{path}: {e}"));
    if interpret {
        rules.interpret_scripts();
    }
    rules
}

/// Plays `games` games and returns every log's text (or the error), in order.
fn play(rules: Rules, games: u64, agent: Option<&str>, dir: &Path) -> Vec<String> {
    let _ = std::fs::remove_dir_all(dir);
    let options = SimOptions {
        games,
        seed: 11,
        agent: agent.map(str::to_string),
        log_dir: Some(dir.to_path_buf()),
        ..SimOptions::default()
    };
    let rules = Rc::new(rules);
    if let Err(e) = simulate(rules.clone(), &options, &mut |_| {}) {
        return vec![tabula::diag::render(&e, &rules.sources)];
    }
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("log folder").map(|e| e.expect("entry").path()).collect();
    files.sort();
    files.iter().map(|f| std::fs::read_to_string(f).expect("log")).collect()
}

/// The event streams (every move, note, roll and prompt the engine recorded) of the first
/// `games` games of a run, or the error that stopped one.
fn events(rules: Rules, games: u64, agent: Option<&str>) -> Vec<Result<Vec<tabula::event::Event>, String>> {
    let rules = Rc::new(rules);
    let players = rules.players.0;
    let agent = agent.unwrap_or(&rules.default_agent).to_string();
    (0..games)
        .map(|i| {
            let seed = tabula::rng::Rng::derive_seed(11, i);
            let mut game = Game::recorded(rules.clone(), players, seed).map_err(|e| e.to_string())?;
            let mut agents = tabula::sim::agents_for(&rules, &agent, players, seed).map_err(|e| e.to_string())?;
            tabula::sim::play_out(&mut game, &mut agents, 100_000).map_err(|e| e.to_string())?;
            Ok(game.events().to_vec())
        })
        .collect()
}

/// Plays the same games compiled and interpreted and asserts the logs are identical, and the
/// event streams of the first few.
fn same_games(path: &str, variants: &[&str], games: u64, agent: Option<&str>) {
    let streams = games.min(3);
    let compiled = events(load(path, variants, &[], false), streams, agent);
    let interpreted = events(load(path, variants, &[], true), streams, agent);
    for (i, (c, r)) in compiled.iter().zip(&interpreted).enumerate() {
        assert!(c == r, "{path} {variants:?}: the event streams of game {i} differ");
        // Some fixtures fail on purpose (an endless hook); the shipped rulesets must not.
        if path.starts_with("rulesets/") {
            assert!(c.as_ref().is_ok_and(|e| !e.is_empty()), "{path}: game {i} recorded nothing: {c:?}");
        }
    }
    let tag = format!("{}-{}-{}", path.replace('/', "_"), variants.join("_"), agent.unwrap_or("default"));
    let base = crate::common::scratch_dir(&format!("compiled-{tag}"));
    let compiled = play(load(path, variants, &[], false), games, agent, &base.join("compiled"));
    let interpreted = play(load(path, variants, &[], true), games, agent, &base.join("interpreted"));
    let _ = std::fs::remove_dir_all(&base);
    assert_eq!(compiled.len(), interpreted.len(), "{tag}: number of logs");
    for (i, (c, r)) in compiled.iter().zip(&interpreted).enumerate() {
        assert!(c == r, "{tag}: game {i} differs\n--- compiled\n{c}\n--- interpreted\n{r}");
    }
    assert!(!compiled.is_empty(), "{tag}: no game was played");
}

#[test]
fn east_berlin_plays_the_same_games_compiled_and_interpreted() {
    same_games("rulesets/east-berlin", &[], 200, Some("random"));
}

#[test]
fn temple_plays_the_same_games_compiled_and_interpreted() {
    same_games("rulesets/temple", &[], 12, Some("random"));
    same_games("rulesets/temple", &[], 4, None);
    same_games("rulesets/temple", &["experts"], 4, None);
    same_games("rulesets/temple", &["experts", "professionals"], 4, None);
}

#[test]
fn blackgate_plays_the_same_games_compiled_and_interpreted() {
    same_games("rulesets/blackgate", &[], 3, Some("random"));
    same_games("rulesets/blackgate", &[], 2, None);
    same_games("rulesets/blackgate", &["team"], 2, None);
}

#[test]
fn colditz_plays_the_same_games_compiled_and_interpreted() {
    same_games("rulesets/colditz", &[], 2, Some("random"));
    same_games("rulesets/colditz", &[], 1, None);
}

#[test]
fn escape_plan_plays_the_same_games_compiled_and_interpreted() {
    same_games("rulesets/escape-plan", &[], 3, Some("random"));
    same_games("rulesets/escape-plan", &[], 2, None);
}

#[test]
fn examples_and_fixtures_play_the_same_games_compiled_and_interpreted() {
    same_games("examples/rulesets/dice-race", &[], 20, None);
    for fixture in ["automaton", "features", "graph", "grid", "helpers", "realtime", "regions", "secrets", "compiled"] {
        same_games(&format!("tests/fixtures/{fixture}"), &[], 5, Some("random"));
    }
}

/// The probe's notes, compiled or interpreted.
fn probe_notes(interpret: bool) -> Vec<String> {
    let rules = Rc::new(load("tests/fixtures/compiled", &[], &[], interpret));
    let game = Game::recorded(rules, 1, 1).unwrap_or_else(|e| panic!("{e}"));
    notes_of(&game)
}

#[test]
fn the_probe_gives_what_rhai_gives() {
    let compiled = probe_notes(false);
    assert_eq!(compiled, probe_notes(true));
    // What Rhai's documented semantics give: integer division truncates, `%` keeps the sign of
    // the dividend, values of different types are not equal, `push(list, x)` with a variable
    // changes it as `list.push(x)` does, script functions get copies of their arguments, a
    // negative index counts from the end, a method-style call binds `this` by reference.
    let expected = [
        "arith -3 -1 8 1024 2 7 5 7 false",
        "compare true false true true false true true",
        "unlike false true false false false true true true",
        "assign 4 3 9 4",
        "logic true false 2",
        "strings abcde 5 bc x1 1x",
        "interpolated [1, \"two\", ()] #{\"k\": 1} c",
        "chars x-y-z-",
        "joins [\"x.a!\", \"x.b!\", \"x.a!\", \"x.b!\", \"x.!\", \"n1\", \"n2\", \"n1\", \"n-3\"]",
        "std true false 5 0 false true true -5 true n7",
        "arrays [10, 22, 3, 4, 5, 60] 7 5 6 6 true false",
        "grown 6 [1, 2, \"x\", 3] [] [1, 2]",
        "nested [[1, 2, 9], [30]] 9",
        "maps 11 2 3  7 [5, 2] true false",
        "keys 4",
        "loops [\"0a\", \"2c\", 0, 1, 2, 10, 20, 102, 103, 2] 3 6 5 1 144 early late [1, 2]",
        "switch [\"zero\", \"small\", \"some\", \"other\", \"other\", \"ex\", \"why\", \"other\"] 1",
        "methods 5 5 1 0 [1, 7] true",
        "handles 5 1 1",
        // total 6; pushing onto a copy (4, 4) leaves the list of 3; removing from a copy's inner
        // map (1) leaves 2; the list popped by the second argument before the first is read
        // (2 + 3), 2 left; popped again and pushed onto a copy (1 + 1 = 2); the copy returned
        // is the copy's to change (a stays 1); a failing call leaves the map whole (2); the
        // list of 2 passed down three calls.
        "lent [6, 4, 4, 3, 1, 2, 5, 2, 2, 1, 2, 2]",
        "errors [\"overflow\", \"bounds\", \"thrown\", \"native\", \"computed\"]",
        // Tokens 0..3 after the changes: red 0, blue 0, blue 5, red 2. A word the rules do not
        // know ("green") and a property no token has match nothing.
        "filters [2, 1, 2, [0, 3], 2, 0, 0, 2, 2]",
        // The same tokens, with the blue ones 1 and 2 (n 0 and 5).
        "computed [2, 1, 1, 0, 0, [1, 2], 5, 1, 1]",
        // Score's range is 0-10: 12 is held at 10, then -3 and +2. Token 0 goes to the table;
        // the bag is not ordered, so its top is its lowest id left, token 1; token 2 has n 5.
        // Tokens 1 and 2 turned face down stay so when no zone is revealed, not after the bag.
        // Raising n (range 0-9) by 7 stops at 9, lowering it by 20 at 0 (then it is set back
        // to 5). All four tokens are back in the bag, counted through `this`.
        "direct [10, 7, 9, 9, \"table\", 1, 1, 5, 9, 0, 1, 0, false, true, 4]",
        // Red's and blue's points set to 3 and bumped, their pools empty; tokens 1 and 4 are
        // pieces 0 and 3; a character after the prefix names no zone, and a map has no
        // `counter`.
        "named [4, 4, 0, 4, 4, 0, 0, 3, 4, \"no pool.r\", \"not the game\"]",
        // Entering with the four tokens in the bag (red, blue, blue, red; token 2's n is 5) and
        // the score at 9. Token 3 turned blue leaves one red in the bag, token 0 moved to the
        // table none; the score set to 4 and bumped twice; token 2's n raised to 6; then the
        // table's one token counted twice, and two once token 1 joined it.
        "remembered [0, 2, 9, 5, \"bag\", 1, 1, 0, \"table\", 4, 6, 5, 6, 6, 0, 2, 2]",
        // Characters counted, not bytes: "héllo, wörld" from 3 is "lo, wörld".
        "library [\"lo, wörld\", \"wörld\", \"héllo, wörld\", \"\", \"éllo\", \"wö\", \"örld\", \"\", \"\", \"\", \"abc\", \"\"] [3, 2, [1], (), 8, [7]] 3 5 0 overflow",
        // The first two tokens (n 0, red; n 0, blue) set and read back, the first one's `next`
        // the second (piece 1), then none.
        "props [4, 7, \"blue\", \"blue\", 1, (), 1, 2] [0, 0, \"red\", \"blue\"]",
        // Items of the maps' list (1, 2), the first two items by counter (10, 20), all but 2,
        // the first above 2, the third item after a throw in the loop and in a function
        // called (3, then 3 + 4), 2 + 2 from nested loops, the list's length; the maps and
        // the list as they were; the list grown while walked over its copy.
        "walked [1, 2, 10, 20, 1, 3, 4, 3, 3, 7, 4, 4] [1, 2, 3, 4] [#{\"a\": 1}, #{\"a\": 2}] [1, 2, 1, 2] 10",
        "built #{\"a\": 2, \"inner\": #{\"b\": 1, \"y\": [1]}, \"m\": 1, \"z\": 3} #{\"only\": 5} [\"a\", \"inner\", \"m\", \"z\"]",
        "joined [[1, 2, 3], [1, 2], [1, 2], [1, 2, 1, 2], [[1], [2, 3]], []] [1, 2] [3] [0, 1, 2, [4]] [3] [5, 6, 5, 6] 4",
        // Lists built and returned, early and at the end; the caller's list given back
        // (twice), its item 2 found by a loop; the inner block's `a` is another variable.
        // The caller's lists are whole after.
        "returned [[#{\"i\": 0}, #{\"i\": 1}], [2], [1, 0], [1, 2, 3], [1, 2, 3], 2, 2, [1]] [1, 2, 3] [[5, 6], [7]] [2, 1]",
        "pointer 13",
    ];
    assert_eq!(compiled, expected);
}

#[test]
fn only_what_the_compiler_does_not_cover_runs_on_rhai() {
    let rules = load("tests/fixtures/compiled", &[], &[], false);
    let fallbacks: Vec<(&str, &str)> =
        rules.script_fallbacks().iter().map(|f| (f.function.as_str(), f.reason.as_str())).collect();
    assert_eq!(
        fallbacks,
        [
            ("by_pointer", "it calls `call`, which the compiler leaves to Rhai"),
            ("left_to_rhai", "it calls `by_pointer`, which runs on Rhai"),
        ]
    );
    assert_eq!(rules.script_functions_compiled(), (59, 61));
    let (ok, out, _) = tabula(&["check", "tests/fixtures/compiled"], "");
    assert!(ok);
    assert!(out.contains("scripts: 59 of 61 functions compiled"), "{out}");
    assert!(out.contains("`by_pointer` runs on Rhai: it calls `call`"), "{out}");
}

#[test]
fn errors_read_the_same_compiled_and_interpreted() {
    for fail in 1..=28 {
        let fail = fail.to_string();
        let error = |interpret: bool| {
            let rules = Rc::new(load("tests/fixtures/compiled", &[], &[("fail", &fail)], interpret));
            match Game::new(rules.clone(), 1, 1) {
                Ok(_) => panic!("fail = {fail}: the probe did not fail"),
                Err(e) => tabula::diag::render(&e, &rules.sources),
            }
        };
        let compiled = error(false);
        assert_eq!(compiled, error(true), "fail = {fail}");
        let expected = match fail.as_str() {
            "1" => "Addition overflow",
            "2" => "out of bounds",
            "3" => "deep",
            "4" => "more than 2000000 operations",
            "5" => "more than 64 deep",
            "6" => "too large",
            "7" => "Function not found: count_where (Game, i64, map)",
            "8" => "no component kind named `nothing`",
            "9" => "Function not found: count_where (Game, i64, map)",
            "10" => "no zone named `nowhere`",
            "11" => "Function not found: add (Game, &str | ImmutableString | String, &str",
            "12" => "Function not found: count (map, &str",
            "13" => "99 is not a piece id",
            "14" => "no zone named `nowhere`",
            "15" => "Function not found: count (Game, array)",
            "16" => "Function not found: zone_of (Game, array)",
            "17" => "'this' not bound",
            "18" => "token_1 has no integer property `colour`",
            "19" => "no counter named `points.green`",
            "20" => "no zone named `pool.green`",
            "21" => "no piece named `token_9`",
            "22" => "no counter named `nothing`",
            "23" => "token_1.colour takes a word, not 3",
            "24" => "token_1.n cannot be 12 (its range is 0 to 9)",
            "25" => "token_1 has no property `nothing`",
            "26" | "27" | "28" => "size of array/blob above 10000",
            _ => unreachable!("fail = {fail}"),
        };
        assert!(compiled.contains(expected), "fail = {fail}: {compiled}");
    }
}
