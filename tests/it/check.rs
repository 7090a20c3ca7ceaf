//! `tabula check` on broken rulesets: each fixture under tests/fixtures/broken/ has one problem,
//! and the report must name the file, line and column, what was expected and what was found.

use std::process::Command;

fn check(path: &str) -> (bool, String) {
    check_with(&[path])
}

/// `tabula check` with these arguments: whether it passed, and its standard error.
fn check_with(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula")).arg("check").args(args).output().expect("run tabula");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `tabula check` on a scratch copy of the `rhai-syntax` fixture's game.toml (edited by `toml`)
/// with `script` as its rules.rhai.
fn check_scratch(name: &str, toml: impl Fn(String) -> String, script: &str) -> (bool, String) {
    let dir = crate::common::scratch_dir(&format!("check-{name}"));
    let base = std::fs::read_to_string("tests/fixtures/broken/rhai-syntax/game.toml").unwrap();
    std::fs::write(dir.join("game.toml"), toml(base)).unwrap();
    std::fs::write(dir.join("rules.rhai"), script).unwrap();
    let result = check(dir.to_str().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[test]
fn unknown_key_is_reported_at_its_line_with_the_keys_expected() {
    let (ok, err) = check("tests/fixtures/broken/unknown-key");
    assert!(!ok);
    assert!(err.contains("tests/fixtures/broken/unknown-key/game.toml:9:1"), "{err}");
    assert!(err.contains("unknown field `capacty` (did you mean `capacity`?)"), "{err}");
    assert!(err.contains("expected one of") && err.contains("`capacity`"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn missing_key_is_reported_as_expected_not_as_found() {
    let (ok, err) = check("tests/fixtures/broken/missing-key");
    assert!(!ok);
    assert!(err.contains("tests/fixtures/broken/missing-key/game.toml:11:8"), "{err}");
    assert!(err.contains("missing field `seat`"), "{err}");
    assert!(err.contains("expected a `seat` key in this table"), "{err}");
    // The missing key was not found: a "found `seat`" label would say the opposite.
    assert!(!err.contains("found"), "{err}");
}

#[test]
fn an_agent_with_both_choose_and_act_is_refused_at_its_line() {
    let (ok, err) = check("tests/fixtures/broken/agent-both");
    assert!(!ok);
    assert!(err.contains("agent `cheat` has both `choose` and `act`"), "{err}");
    assert!(err.contains("tests/fixtures/broken/agent-both/game.toml:"), "{err}");
    assert!(err.contains("`choose` picks from the listed options, `act` returns an action"), "{err}");
}

#[test]
fn reference_to_a_missing_zone_names_the_zones_that_exist() {
    let (ok, err) = check("tests/fixtures/broken/unknown-zone");
    assert!(!ok);
    assert!(err.contains("tests/fixtures/broken/unknown-zone/game.toml:14:8"), "{err}");
    assert!(err.contains("unknown zone `tabel`"), "{err}");
    assert!(err.contains("found `tabel`") && err.contains("one of `table`"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn rhai_syntax_error_points_into_the_script() {
    let (ok, err) = check("tests/fixtures/broken/rhai-syntax");
    assert!(!ok);
    assert!(err.contains("tests/fixtures/broken/rhai-syntax/rules.rhai:3:"), "{err}");
    assert!(err.contains("Expecting ')'"), "{err}");
    // The broken script must not also produce "missing function" noise.
    assert!(!err.contains("no script function"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn every_reserved_word_a_script_uses_is_named_at_once_with_a_word_to_use_instead() {
    // Rhai's own error names only the first reserved word (`with`, line 3); check names all six
    // uses of `with`, `go` and `match`, each where it stands.
    let (ok, err) = check("tests/fixtures/broken/rhai-reserved");
    assert!(!ok);
    let at = |place: &str| err.contains(&format!("tests/fixtures/broken/rhai-reserved/rules.rhai:{place}"));
    for place in ["3:9", "4:8", "7:9", "7:14", "7:20", "10:4"] {
        assert!(at(place), "no error at {place}:\n{err}");
    }
    assert!(err.contains("`match` is a word Rhai reserves") && err.contains("such as `match_`"), "{err}");
    assert!(err.contains("`go` is a word Rhai reserves") && err.contains("such as `go_`"), "{err}");
    assert_eq!(err.matches("Rhai reserves").count(), 6, "{err}");
}

#[test]
fn a_function_that_would_answer_a_natives_method_calls_is_named_at_its_definition() {
    // `fn move(game, args)` answers `game.move(card, "discard")` in the native's place (Rhai binds
    // `this` and looks for a script function of two parameters first). `fn roll(game, args)`
    // does not: the native `game.roll(die)` takes one argument.
    let script = "fn begin(game) { }\n\nfn roll(game, args) { }\n\nfn move(game, args) {\n    game.move(args.card, \"discard\");\n}\n";
    let (ok, err) = check_scratch("native-place", |toml| toml, script);
    assert!(!ok, "{err}");
    assert!(
        err.contains("`move` with 2 arguments takes the place of the native `game.move` wherever a script calls `game.move(a, b)`"),
        "{err}"
    );
    assert!(err.contains("rules.rhai:5:1"), "at the definition: {err}");
    assert!(!err.contains("`roll`"), "{err}");
}

#[test]
fn rhais_own_functions_are_not_reserved_words_when_called() {
    // `print`, `Fn`, `type_of` are keywords that scripts call: a syntax error elsewhere in the
    // file is reported as itself, not as a use of reserved words.
    let script = "fn begin(game) {\n    print(type_of(Fn(\"begin\")));\n    if (1 > 0 { }\n}\n";
    let (ok, err) = check_scratch("keywords", |toml| toml, script);
    assert!(!ok);
    assert!(!err.contains("Rhai reserves"), "{err}");
    assert!(err.contains("rules.rhai:3:") && err.contains("Expecting ')'"), "{err}");
}

#[test]
fn rhai_error_while_a_hook_runs_names_the_script_line() {
    let (ok, err) = check("tests/fixtures/broken/rhai-runtime");
    assert!(!ok);
    assert!(err.contains("tests/fixtures/broken/rhai-runtime/rules.rhai:5:"), "{err}");
    assert!(err.contains("no zone named `tabel`") && err.contains("hook `begin`"), "{err}");
    // The failing game's seed, and the folder in the command that plays it again, depend on the
    // run and the machine; the rest of the report is pinned.
    assert!(err.contains("to play it again: tabula sim ") && err.contains("rhai-runtime --seed "), "{err}");
    let stable: String =
        err.lines().filter(|l| !l.contains("seeded") && !l.contains("to play it again")).collect::<Vec<_>>().join("\n");
    insta::assert_snapshot!(stable);
}

#[test]
fn shipped_rulesets_pass_check() {
    let mut checked = 0;
    for entry in std::fs::read_dir("rulesets").expect("rulesets folder") {
        let dir = entry.expect("entry").path();
        if !dir.join("game.toml").is_file() {
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_tabula")).arg("check").arg(&dir).output().expect("run tabula");
        assert!(out.status.success(), "{}: {}", dir.display(), String::from_utf8_lossy(&out.stderr));
        checked += 1;
    }
    assert!(checked >= 1, "no ruleset found under rulesets/");
}

#[test]
fn unknown_ruleset_lists_the_known_ones() {
    let (ok, err) = check("no-such-game");
    assert!(!ok);
    assert!(err.contains("no ruleset `no-such-game`") && err.contains("east-berlin"), "{err}");
}

#[test]
fn bad_override_is_refused_with_the_parameters_that_exist() {
    let out = Command::new(env!("CARGO_BIN_EXE_tabula"))
        .args(["sim", "east-berlin", "--games", "1", "--set", "tunel_length=3"])
        .output()
        .expect("run tabula");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no parameter `tunel_length`") && err.contains("tunnel_length"), "{err}");
}

/// A phase's `options` hook that lists an option the action's own checks refuse lets a game
/// take it, and replay then refuses the game's log: `check` finds the disagreement, whether a
/// `legal` hook or a parameter's domain refuses the option.
#[test]
fn options_that_the_actions_refuse_are_found_by_check() {
    let fixture = "tests/fixtures/broken/options-disagree";
    let (ok, err) = check(fixture);
    assert!(!ok, "{err}");
    assert!(
        err.contains("the options hook `options` lists `solo: take 3`, which the rules refuse: the `legal` hook `can_take` refuses it"),
        "{err}"
    );
    let (ok, err) = check_with(&[fixture, "--variant", "domain"]);
    assert!(!ok, "{err}");
    assert!(
        err.contains("lists `solo: step 9`, which the rules refuse: an argument is outside its parameter's domain"),
        "{err}"
    );
}

/// The other way round: an action that its `legal` hook accepts, which the options hook does
/// not list, is one replay takes and play never offers.
#[test]
fn legal_actions_the_options_leave_out_are_found_by_check() {
    let (ok, err) = check_with(&["tests/fixtures/broken/options-disagree", "--variant", "missing"]);
    assert!(!ok, "{err}");
    assert!(
        err.contains(
            "the `legal` hook of `take` accepts `solo: take 2`, which the options hook `options` does not list"
        ),
        "{err}"
    );
}

/// An action's own `options` hook (here with no phase `options` hook) is checked the same way.
#[test]
fn an_actions_own_options_that_its_legal_hook_refuses_are_found_by_check() {
    let (ok, err) = check_with(&["tests/fixtures/broken/options-disagree", "--variant", "action-options"]);
    assert!(!ok, "{err}");
    assert!(
        err.contains("the options hook `take_options` lists `solo: take 3`, which the rules refuse: the `legal` hook `can_take` refuses it"),
        "{err}"
    );
}

#[test]
fn a_mistyped_hook_gets_the_likely_function() {
    let misnamed = |toml: String| toml.replace("on_enter = \"begin\"", "on_enter = \"begn\"");
    let (ok, err) = check_scratch("hook", misnamed, "fn begin(game) {\n    game.end(\"done\");\n}\n");
    assert!(!ok);
    assert!(err.contains("no script function `begn` taking 1 argument (did you mean `begin`?)"), "{err}");
}

#[test]
fn check_plays_every_player_count_and_names_the_one_that_fails() {
    let (ok, out, err) = crate::common::tabula(&["check", "tests/fixtures/interrupts"], "");
    assert!(ok, "{err}");
    assert!(out.contains("10 random games played at 2 or 3 players, 5 at each count"), "{out}");
    // A deal that fails with three players only is found, and the command that plays the failing
    // game again says so.
    let dir = crate::common::scratch_dir("check-counts");
    std::fs::copy("tests/fixtures/interrupts/game.toml", dir.join("game.toml")).unwrap();
    let script = std::fs::read_to_string("tests/fixtures/interrupts/rules.rhai").unwrap();
    let script = script
        .replace("fn deal(game) {", "fn deal(game) {\n    if game.players() == 3 { throw \"no deal for three\"; }");
    std::fs::write(dir.join("rules.rhai"), script).unwrap();
    let (ok, err) = check(dir.to_str().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!ok, "{err}");
    assert!(err.contains("no deal for three") && err.contains("--players 3"), "{err}");
}
