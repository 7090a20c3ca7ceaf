//! Architecture invariant 1: the runtime knows no game. Everything game-specific lives in
//! rulesets/; no game, role, card or rule name of the five escape games may appear in runtime/.

const GAME_WORDS: &[&str] = &[
    // Escape from East Berlin
    "exile",
    "police",
    "tunnel",
    "arrest",
    "checkpoint",
    "berlin",
    // Escape from Colditz
    "colditz",
    "guard",
    "prisoner",
    "escape kit",
    "appel",
    // Escape Plan
    "notoriety",
    "sandra",
    "safe house",
    // Dig Your Way Out (Blackgate)
    "blackgate",
    "cigarette",
    "michel",
    "beating",
    "shovel",
    // Escape: The Curse of the Temple
    "temple",
    "gem",
    "adventurer",
    "black mask",
    "golden mask",
];

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read runtime/") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_game_word_appears_in_the_runtime() {
    let mut files = Vec::new();
    rust_files(std::path::Path::new("runtime"), &mut files);
    assert!(files.len() > 5, "runtime/ sources not found");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read").to_lowercase();
        for (n, line) in text.lines().enumerate() {
            for word in GAME_WORDS {
                let hit = line.match_indices(word).any(|(i, _)| {
                    // Whole words only: "gem" must not match "management".
                    let before = line[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
                    let after = line[i + word.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric() || c == 's');
                    before && after
                });
                if hit {
                    found.push(format!("{}:{}: `{word}`", file.display(), n + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "game words in runtime/:\n{}", found.join("\n"));
}
