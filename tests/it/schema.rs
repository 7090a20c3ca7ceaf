//! The JSON Schema editors use for game.toml is generated from the runtime's definition types;
//! the copy in schema/ must be what the code generates now.

#[test]
fn schema_file_is_current() {
    let generated = tabula::rules::raw::json_schema();
    let on_disk = std::fs::read_to_string("schema/ruleset.schema.json").unwrap_or_default();
    assert!(
        generated == on_disk,
        "schema/ruleset.schema.json is stale: run `cargo run -- schema > schema/ruleset.schema.json`"
    );
}

#[test]
fn schema_describes_the_sections_of_game_toml() {
    let schema: serde_json::Value = serde_json::from_str(&tabula::rules::raw::json_schema()).expect("valid JSON");
    let properties = schema["properties"].as_object().expect("top-level properties");
    for section in
        ["game", "params", "seats", "components", "pieces", "zones", "counters", "phases", "actions", "timers"]
    {
        assert!(properties.contains_key(section), "missing section {section}");
    }
    // Unknown keys are errors in tabula, so editors must flag them too.
    assert_eq!(schema["additionalProperties"], serde_json::Value::Bool(false));
}

#[test]
fn every_game_toml_points_editors_at_the_schema() {
    for entry in std::fs::read_dir("rulesets").expect("rulesets folder") {
        let path = entry.expect("entry").path().join("game.toml");
        if path.is_file() {
            let text = std::fs::read_to_string(&path).expect("read");
            assert!(
                text.starts_with("#:schema ../../schema/ruleset.schema.json"),
                "{} must start with `#:schema ../../schema/ruleset.schema.json`",
                path.display()
            );
        }
    }
}
