//! The list of native functions the ruleset format reference must document (tests only).

/// A native function scripts can call, as the ruleset format reference lists it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NativeFunction {
    /// What it is called on: `game` (the handle hooks get), `view` (the handle script agents
    /// get) or `list` (helpers on plain arrays).
    pub on: &'static str,
    /// Its name.
    pub name: String,
    /// The types of its arguments after the handle or list, in Rhai's words: `i64`, `string`,
    /// `bool`, `map`, `array`, or `Dynamic` for a value of several possible types.
    pub params: Vec<String>,
    /// The type of its result, in the same words (`()` for none).
    pub result: String,
}

/// Every native function registered for the scripts (Rhai's standard library left out), one
/// entry per name and argument types: what `docs/ruleset-format.md` must document, checked by
/// `tests/it/docs.rs`. The engine is built with the same registrations `Scripts::compile` makes.
/// Only with the `script-signatures` feature (the tests turn it on): it needs Rhai's metadata.
pub fn native_functions() -> Vec<NativeFunction> {
    let (engine, _) = super::engine::new_engine();
    let mut out: Vec<NativeFunction> =
        engine.gen_fn_signatures(false).iter().filter_map(|s| parse_signature(s)).collect();
    out.sort();
    out.dedup();
    out
}

/// Reads a signature as Rhai's metadata writes it:
/// `move(_: &mut Game, _: i64, _: string) -> core::result::Result<(), ...>`.
fn parse_signature(signature: &str) -> Option<NativeFunction> {
    let (name, rest) = signature.split_once('(')?;
    let (args, result) = rest.split_once(')')?;
    let mut types = args.split(',').map(|a| a.rsplit(':').next().unwrap_or_default().trim().to_string());
    let on = match types.next()?.as_str() {
        "&mut Game" => "game",
        "&mut View" => "view",
        "&mut array" => "list",
        _ => return None,
    };
    let result = result.trim().trim_start_matches("->").trim();
    // A fallible function's result is `Result<T, error>`: the script sees `T`.
    let result = match result.strip_prefix("core::result::Result<") {
        Some(inner) => inner.split_once(",alloc::boxed::Box<").map_or(inner, |(ok, _)| ok),
        None => result,
    };
    let words = |t: &str| -> String {
        // A value shared behind `Rc` (a prepared rule) is the value's type to a script.
        let t = t.trim();
        let t = t.strip_prefix("alloc::rc::Rc<").and_then(|t| t.strip_suffix('>')).unwrap_or(t);
        if t.is_empty() || t == "()" {
            "()".into()
        } else if t.starts_with("alloc::vec::Vec<") {
            "array".into()
        } else if t.contains("BTreeMap<") {
            "map".into()
        } else {
            t.rsplit("::").next().unwrap_or(t).replace("ImmutableString", "string")
        }
    };
    Some(NativeFunction {
        on,
        name: name.to_string(),
        params: types.map(|t| words(&t)).collect(),
        result: words(result),
    })
}
