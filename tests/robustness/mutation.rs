//! The mutation harness: corpus files and shipped rulesets and logs, mutated at random.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::rc::Rc;

use tabula::LoadOptions;
use tabula::rng::Rng;

/// The text with a few random edits: characters deleted, duplicated, replaced by structural
/// characters, or lines swapped.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    const NOISE: &[char] =
        &['[', ']', '"', '=', '#', ':', '*', '?', '{', '}', ',', '\n', ' ', '0', '9', '-', '.', 'é', '\t'];
    for _ in 0..1 + rng.below(4) {
        if chars.is_empty() {
            break;
        }
        let at = rng.index(chars.len());
        match rng.below(4) {
            0 => {
                chars.remove(at);
            }
            1 => {
                let c = chars[at];
                chars.insert(at, c);
            }
            2 => chars[at] = NOISE[rng.index(NOISE.len())],
            _ => {
                let end = (at + 1 + rng.index(40)).min(chars.len());
                chars.drain(at..end);
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn corrupted_logs_give_errors_not_panics() {
    let mut rng = Rng::seeded(11);
    let mut rules = std::collections::HashMap::new();
    for dir in ["examples/logs/east-berlin", "examples/logs/temple"] {
        for entry in std::fs::read_dir(dir).expect("logs") {
            let path = entry.expect("entry").path();
            let text = std::fs::read_to_string(&path).expect("read");
            for case in 0..60 {
                let bad = mutate(&text, &mut rng);
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    let Ok(log) = tabula::log::parse(&bad, 0) else { return };
                    let Some(name) = log.text_tag("ruleset").map(str::to_string) else { return };
                    let loaded =
                        rules.entry(name.clone()).or_insert_with(|| tabula::log::rules_for(&log).ok().map(Rc::new));
                    if let Some(r) = loaded {
                        let _ = tabula::log::replay_with(&log, r.clone(), &tabula::log::ReplayOptions::default());
                        let _ = tabula::log::seat_log(&log, r.clone(), 0);
                    }
                }));
                assert!(outcome.is_ok(), "{}: case {case} panicked:\n{bad}", path.display());
            }
        }
    }
}

fn copy_ruleset(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("scratch");
    for entry in std::fs::read_dir(from).expect("ruleset") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().expect("name"))).expect("copy");
        }
    }
}

#[test]
fn corrupted_rulesets_and_scripts_give_errors_not_panics() {
    let mut rng = Rng::seeded(12);
    let scratch = crate::scratch_dir("robustness-mutation");
    for (ruleset, files) in
        [("rulesets/east-berlin", ["game.toml", "rules.rhai"]), ("rulesets/temple", ["game.toml", "rules.rhai"])]
    {
        let dir = scratch.join(Path::new(ruleset).file_name().expect("name"));
        copy_ruleset(Path::new(ruleset), &dir);
        for file in files {
            let original = std::fs::read_to_string(Path::new(ruleset).join(file)).expect("read");
            for case in 0..40 {
                let bad = mutate(&original, &mut rng);
                std::fs::write(dir.join(file), &bad).expect("write");
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    if let Ok(rules) = tabula::load(dir.to_str().expect("path"), &LoadOptions::default()) {
                        let rules = Rc::new(rules);
                        let options = tabula::sim::SimOptions { games: 2, max_decisions: 20_000, ..Default::default() };
                        let _ = tabula::sim::simulate(rules, &options, &mut |_| {});
                    }
                }));
                assert!(outcome.is_ok(), "{ruleset}/{file}: case {case} panicked:\n{bad}");
            }
            std::fs::write(dir.join(file), &original).expect("restore");
        }
    }
}
