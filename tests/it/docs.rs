//! The ruleset format reference (docs/ruleset-format.md) against the code: every key of
//! game.toml's schema and every native function the scripts' engine registers must be
//! documented there, with the argument types the engine registers, and nothing documented may be
//! gone from the code.
//!
//! The reference is read by its conventions: a key table follows a heading whose first code span
//! is the TOML path of the table (`[zones.<name>]`, `[phases.<name>].ask`), each row starting
//! with the key in backticks; a function is a heading such as
//! `` #### `game.move(piece: int, zone: string) -> ()` ``.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

const REFERENCE: &str = "docs/ruleset-format.md";

/// The reference without its fenced code blocks (a `# comment` in TOML is not a heading).
fn reference() -> String {
    let text = std::fs::read_to_string(REFERENCE).expect("docs/ruleset-format.md");
    let mut in_code = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The first `code span` of a line, if any.
fn first_code_span(line: &str) -> Option<&str> {
    let start = line.find('`')? + 1;
    let len = line[start..].find('`')?;
    Some(&line[start..start + len])
}

/// A TOML path as headings write it, reduced to the schema's: `[phases.<name>].ask` is
/// `phases.ask`, `[[edges]]` is `edges`, `game.toml` (the file itself) stays `game.toml`.
fn table_path(written: &str) -> String {
    let plain: String = written.chars().filter(|c| *c != '[' && *c != ']').collect();
    plain.split('.').filter(|part| !part.starts_with('<') && !part.is_empty()).collect::<Vec<_>>().join(".")
}

/// The key of a table row as written (`` `owner` ``, or `` `[zones.<name>]` `` in the overview).
fn row_key(written: &str) -> String {
    let plain: String = written.chars().filter(|c| *c != '[' && *c != ']').collect();
    plain.split('.').next().unwrap_or_default().to_string()
}

/// Documented keys: table path -> keys listed in the key tables under headings naming that path.
fn documented_keys(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut section: Option<String> = None;
    for line in text.lines() {
        if line.starts_with('#') {
            // Only headings naming a TOML table (`[zones.<name>]`) or the file open a key table.
            section = first_code_span(line).filter(|s| s.starts_with('[') || *s == "game.toml").map(table_path);
            continue;
        }
        if let (Some(path), Some(rest)) = (&section, line.strip_prefix("| `")) {
            let key = rest.split('`').next().unwrap_or_default();
            out.entry(path.clone()).or_default().insert(row_key(key));
        }
    }
    out
}

/// Resolves `$ref`s of the schema (`#/definitions/RawZone`).
fn resolve<'a>(schema: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.rsplit('/').next().unwrap_or_default();
            resolve(schema, &schema["definitions"][name])
        }
        None => node,
    }
}

/// Every (table path, key) of the schema: keys of objects reached through properties, map values
/// (`additionalProperties`), list items and alternatives (`anyOf`).
fn schema_keys(schema: &Value, node: &Value, path: &str, seen: &mut Vec<String>, out: &mut BTreeSet<(String, String)>) {
    if let Some(r) = node.get("$ref").and_then(Value::as_str) {
        // A definition met again on the way down is a recursive type (a table of parameter
        // values): it has no keys of its own to add.
        if seen.iter().any(|s| s == r) {
            return;
        }
        seen.push(r.to_string());
        schema_keys(schema, resolve(schema, node), path, seen, out);
        seen.pop();
        return;
    }
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        for (key, value) in properties {
            out.insert((path.to_string(), key.clone()));
            let below = if path == "game.toml" { key.clone() } else { format!("{path}.{key}") };
            schema_keys(schema, value, &below, seen, out);
        }
    }
    for nested in ["additionalProperties", "items"] {
        if let Some(inner) = node.get(nested).filter(|v| v.is_object()) {
            schema_keys(schema, inner, path, seen, out);
        }
    }
    for alternatives in ["anyOf", "oneOf", "allOf"] {
        for inner in node.get(alternatives).and_then(Value::as_array).into_iter().flatten() {
            schema_keys(schema, inner, path, seen, out);
        }
    }
}

#[test]
fn every_key_of_game_toml_is_in_the_reference_and_every_key_there_exists() {
    let schema: Value = serde_json::from_str(&tabula::rules::raw::json_schema()).expect("the schema is JSON");
    let mut keys = BTreeSet::new();
    schema_keys(&schema, &schema, "game.toml", &mut Vec::new(), &mut keys);
    // The walk must reach the nested tables, or the check below would pass on too little.
    for expected in [("game.toml", "zones"), ("zones", "others_see"), ("phases.ask", "each"), ("actions.params", "in")]
    {
        assert!(
            keys.contains(&(expected.0.to_string(), expected.1.to_string())),
            "the schema walk missed {expected:?}"
        );
    }

    let documented = documented_keys(&reference());
    let missing: Vec<String> = keys
        .iter()
        .filter(|(path, key)| !documented.get(path).is_some_and(|keys| keys.contains(key)))
        .map(|(path, key)| format!("`{key}` of {path}"))
        .collect();
    assert!(missing.is_empty(), "{REFERENCE} does not document these keys of game.toml: {missing:#?}");
    let stale: Vec<String> = documented
        .iter()
        .flat_map(|(path, keys)| keys.iter().map(move |key| (path.clone(), key.clone())))
        .filter(|entry| !keys.contains(entry))
        .map(|(path, key)| format!("`{key}` of {path}"))
        .collect();
    assert!(stale.is_empty(), "{REFERENCE} documents keys game.toml does not have: {stale:#?}");
}

/// A function as the reference or the engine describes it: the handle it is called on, its name
/// and its argument types (after the handle), in the reference's words.
type Signature = (String, String, Vec<String>);

/// The engine's type names in the reference's words.
fn type_word(rhai: &str) -> String {
    match rhai.trim() {
        "i64" => "int",
        "string" | "&str" | "ImmutableString" => "string",
        "bool" => "bool",
        "map" => "map",
        "array" => "array",
        t if t.ends_with("Dynamic") => "any",
        other => other,
    }
    .to_string()
}

/// Functions documented: headings such as `` #### `game.move(piece: int, zone: string) -> ()` ``,
/// with their return types as written.
fn documented_functions(text: &str) -> BTreeMap<Signature, String> {
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with('#')) {
        let Some(span) = first_code_span(line) else { continue };
        let Some((on, rest)) = span.split_once('.') else { continue };
        let Some((name, rest)) = rest.split_once('(') else { continue };
        if !["game", "view", "list"].contains(&on) {
            continue;
        }
        let (args, result) = rest.split_once(')').unwrap_or((rest, ""));
        let types = args
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| a.split_once(':').map_or("?", |(_, t)| t.trim()).to_string())
            .collect();
        let result = result.trim().trim_start_matches("->").trim().to_string();
        out.insert((on.to_string(), name.to_string(), types), result);
    }
    out
}

#[test]
fn every_script_function_is_in_the_reference_with_its_argument_types() {
    let registered = tabula::script::native_functions();
    // The engine must have been read: the handles' functions, and the helpers on lists.
    for (on, name) in [("game", "move"), ("game", "roll"), ("view", "counter"), ("list", "index_matching")] {
        assert!(registered.iter().any(|f| f.on == on && f.name == name), "{on}.{name} not found in the engine");
    }
    let documented = documented_functions(&reference());
    let mut missing = Vec::new();
    let mut engine = BTreeSet::new();
    for f in &registered {
        let types: Vec<String> = f.params.iter().map(|t| type_word(t)).collect();
        let signature = (f.on.to_string(), f.name.clone(), types);
        let want = type_word(&f.result);
        match documented.get(&signature) {
            None => missing.push(format!("{}.{}({})", signature.0, signature.1, signature.2.join(", "))),
            // A result of several possible types (`any`) is described in words; others must match.
            Some(result) if want != "any" && *result != want => {
                missing.push(format!("{}.{}: documented result `{result}`, the engine's is `{want}`", f.on, f.name))
            }
            Some(_) => {}
        }
        engine.insert(signature);
    }
    assert!(missing.is_empty(), "{REFERENCE} lacks these script functions (or their types differ): {missing:#?}");
    let stale: Vec<String> = documented
        .keys()
        .filter(|s| !engine.contains(*s))
        .map(|(on, name, types)| format!("{on}.{name}({})", types.join(", ")))
        .collect();
    assert!(stale.is_empty(), "{REFERENCE} documents functions the engine does not register: {stale:#?}");
}

#[test]
fn the_reference_is_linked_from_the_readme() {
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    assert!(readme.contains("docs/ruleset-format.md"), "README.md must link the ruleset format reference");
}
