//! Parameters: the numbers (and words) of the rules that a designer tries other values of.
//!
//! A parameter is written plainly (`goal = 50`) or declared with the range of values that make
//! sense (`goal = { value = 50, range = [10, 100] }`). `--set` overrides are checked here, at the
//! argument and before anything uses them: against the kind of the value they replace, and
//! against the declared range. `tabula params` lists what this module knows of each parameter.

use indexmap::IndexMap;

use super::raw::{Located, ParamValue};
use crate::diag::{Diagnostic, Error, FileId, Sources, did_you_mean};

/// What `tabula params` shows of one parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    /// Its name in `[params]`.
    pub name: String,
    /// Its value after variants and overrides.
    pub value: ParamValue,
    /// The declared range of an integer parameter (or of each integer in a list), inclusive.
    pub range: Option<(i64, i64)>,
    /// The comment lines written just above it (and after it on its line), without `#`.
    pub comment: String,
    /// The file it was last written in (a variant, or `game.toml`).
    pub file: FileId,
    /// Whether `--set` gave its value.
    pub overridden: bool,
}

/// The parameters as merged from `game.toml` and its variants, by name.
pub(super) type MergedParams = IndexMap<String, (FileId, Located<ParamValue>)>;

/// One end of a declared range: a number, or the name of an integer parameter whose value (after
/// variants and `--set`) it is (`checkpoint_at = { value = 4, range = [1, "tunnel_length"] }`).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum End {
    /// This number.
    Int(i64),
    /// The value of this parameter.
    Param(String),
}

/// Declared ranges by parameter, with the file and place of the declaration.
pub(super) type DeclaredRanges = IndexMap<String, ([End; 2], FileId, std::ops::Range<usize>)>;

/// The declared ranges in numbers, each named end read from the parameters' final values. An end
/// that names no integer parameter is reported where the range is declared.
pub(super) fn resolve_ranges(
    params: &MergedParams,
    declared: &DeclaredRanges,
    diags: &mut Vec<Diagnostic>,
) -> IndexMap<String, (i64, i64)> {
    let mut out = IndexMap::new();
    for (name, (ends, file, span)) in declared {
        let end = |e: &End| -> Result<i64, String> {
            match e {
                End::Int(i) => Ok(*i),
                End::Param(p) => match params.get(p).map(|(_, v)| &v.value) {
                    Some(ParamValue::Int(i)) => Ok(*i),
                    Some(_) => Err(format!("the range of `{name}` ends at `{p}`, which is not an integer parameter")),
                    None => {
                        let known = params.keys().map(String::as_str);
                        Err(format!(
                            "the range of `{name}` ends at `{p}`, which is no parameter{}",
                            did_you_mean(p, known)
                        ))
                    }
                },
            }
        };
        match (end(&ends[0]), end(&ends[1])) {
            (Ok(lo), Ok(hi)) => {
                out.insert(name.clone(), (lo, hi));
            }
            (Err(message), _) | (_, Err(message)) => {
                diags.push(
                    Diagnostic::new(message)
                        .at(*file, span.clone())
                        .expected("an integer, or the name of an integer parameter"),
                );
            }
        }
    }
    out
}

/// Splits the parameters of one file declared as `{ value = ..., range = [lo, hi] }` into their
/// value and range. A table is a declaration when it has a `value` key and no key but `value`
/// and `range`. A variant that gives a plain value keeps the range the base declared.
pub(super) fn split_declarations(
    params: &mut IndexMap<String, Located<ParamValue>>,
    file: FileId,
    ranges: &mut DeclaredRanges,
    diags: &mut Vec<Diagnostic>,
) {
    for (name, located) in params.iter_mut() {
        let file = &file;
        let ParamValue::Table(table) = &located.value else { continue };
        if !table.contains_key("value") || table.keys().any(|k| k != "value" && k != "range") {
            continue;
        }
        let range = match table.get("range") {
            None => None,
            Some(ParamValue::List(ends)) => {
                let end = |v: &ParamValue| match v {
                    ParamValue::Int(i) => Some(End::Int(*i)),
                    ParamValue::Text(p) => Some(End::Param(p.clone())),
                    _ => None,
                };
                match ends.as_slice() {
                    [ParamValue::Int(lo), ParamValue::Int(hi)] if lo > hi => {
                        diags.push(
                            Diagnostic::new(format!("parameter `{name}`: a range is two integers, the smaller first"))
                                .at(*file, located.span.clone())
                                .expected("range = [min, max]"),
                        );
                        None
                    }
                    [lo, hi] if end(lo).is_some() && end(hi).is_some() => end(lo).zip(end(hi)).map(|(a, b)| [a, b]),
                    _ => {
                        diags.push(
                            Diagnostic::new(format!(
                                "parameter `{name}`: a range is two integers (or names of integer parameters), the smaller first"
                            ))
                            .at(*file, located.span.clone())
                            .expected("range = [min, max]"),
                        );
                        None
                    }
                }
            }
            Some(_) => {
                diags.push(
                    Diagnostic::new(format!("parameter `{name}`: a range is a list of two integers"))
                        .at(*file, located.span.clone())
                        .expected("range = [min, max]"),
                );
                None
            }
        };
        let value = table.get("value").cloned().unwrap_or(ParamValue::Int(0));
        if range.is_some() && !holds_integers(&value) {
            diags.push(
                Diagnostic::new(format!("parameter `{name}`: only integers (or lists of them) have a range"))
                    .at(*file, located.span.clone())
                    .expected("an integer value with its range"),
            );
        }
        located.value = value;
        if let Some(range) = range {
            ranges.insert(name.clone(), (range, *file, located.span.clone()));
        }
    }
}

/// Whether a value is an integer or a list of integers.
fn holds_integers(value: &ParamValue) -> bool {
    match value {
        ParamValue::Int(_) => true,
        ParamValue::List(items) => items.iter().all(|i| matches!(i, ParamValue::Int(_))),
        _ => false,
    }
}

/// Every integer of a value outside `range`, if one is.
fn outside(value: &ParamValue, (lo, hi): (i64, i64)) -> Option<i64> {
    match value {
        ParamValue::Int(i) => (!(lo..=hi).contains(i)).then_some(*i),
        ParamValue::List(items) => items.iter().find_map(|i| outside(i, (lo, hi))),
        _ => None,
    }
}

/// The range, in words, with the parameters its ends name: `1 to 10 (tunnel_length)`.
pub(super) fn range_text(name: &str, (lo, hi): (i64, i64), declared: &DeclaredRanges) -> String {
    let named: Vec<&str> = declared
        .get(name)
        .map(|(ends, ..)| {
            ends.iter()
                .filter_map(|e| match e {
                    End::Param(p) => Some(p.as_str()),
                    End::Int(_) => None,
                })
                .collect()
        })
        .unwrap_or_default();
    if named.is_empty() { format!("{lo} to {hi}") } else { format!("{lo} to {hi} ({})", named.join(", ")) }
}

/// A `--set` value outside its parameter's range, once every override is in: a range may end at
/// another parameter, which a later `--set` may change.
pub(super) fn check_overridden_ranges(
    params: &MergedParams,
    ranges: &IndexMap<String, (i64, i64)>,
    declared: &DeclaredRanges,
    overrides: &[(String, String)],
) -> Result<(), Error> {
    for (name, text) in overrides {
        let (Some(&range), Some((_, located))) = (ranges.get(name), params.get(name)) else { continue };
        if let Some(i) = outside(&located.value, range) {
            return Err(Error::Override {
                name: name.clone(),
                value: Some(crate::diag::clip(text, 60).to_string()),
                reason: format!("{i} is outside the range of `{name}`, {}", range_text(name, range, declared)),
            });
        }
    }
    Ok(())
}

/// Values outside their declared range, reported where the value is written (values given by
/// `--set` are [`check_overridden_ranges`]' to report).
pub(super) fn check_ranges(
    params: &MergedParams,
    ranges: &IndexMap<String, (i64, i64)>,
    declared: &DeclaredRanges,
    overridden: &[(String, String)],
    diags: &mut Vec<Diagnostic>,
) {
    for (name, &(lo, hi)) in ranges {
        if overridden.iter().any(|(n, _)| n == name) {
            continue;
        }
        let Some((file, located)) = params.get(name) else { continue };
        if let Some(i) = outside(&located.value, (lo, hi)) {
            diags.push(
                Diagnostic::new(format!("parameter `{name}` is {i}, outside its range"))
                    .at(*file, located.span.clone())
                    .expected(format!("a value from {}", range_text(name, (lo, hi), declared)))
                    .found(i.to_string()),
            );
        }
    }
}

/// The kind of a value, in words, for messages.
fn kind_of(value: &ParamValue) -> &'static str {
    match value {
        ParamValue::Int(_) => "an integer",
        ParamValue::Text(_) => "a word",
        ParamValue::List(items) if items.iter().all(|i| matches!(i, ParamValue::Int(_))) => "a list of integers",
        ParamValue::List(_) => "a list of words",
        ParamValue::Table(_) => "a table",
    }
}

/// Reads and checks the value of `--set name=text` against the parameter it replaces: the same
/// kind of value (a number for a number, a list for a list), and within the declared range.
pub(super) fn check_override(
    params: &MergedParams,
    ranges: &DeclaredRanges,
    name: &str,
    text: &str,
) -> Result<ParamValue, Error> {
    let Some((_, current)) = params.get(name) else {
        let known: Vec<&str> = params.keys().map(String::as_str).collect();
        let reason = if known.is_empty() {
            "the ruleset has no parameters (no [params] table)".to_string()
        } else {
            format!(
                "the ruleset has no parameter `{name}`{}; expected one of {} (`tabula params` lists them)",
                did_you_mean(name, known.iter().copied()),
                known.join(", ")
            )
        };
        return Err(Error::Override { name: name.to_string(), value: None, reason });
    };
    let current = &current.value;
    let shown = crate::diag::clip(text, 60);
    let wrong =
        |reason: String| Err(Error::Override { name: name.to_string(), value: Some(shown.to_string()), reason });
    let value = match current {
        ParamValue::Table(_) => {
            return wrong(format!(
                "`{name}` is a table of values (by player count or the like), which --set cannot replace; edit it in game.toml or a variant"
            ));
        }
        ParamValue::Int(_) => match text.trim().parse::<i64>() {
            Ok(i) => ParamValue::Int(i),
            Err(_) if looks_numeric(text) => {
                return wrong(format!("expected an integer from {} to {}", i64::MIN, i64::MAX));
            }
            Err(_) => return wrong("expected an integer".into()),
        },
        ParamValue::Text(_) => match read_toml(text) {
            Some(ParamValue::Text(t)) if is_word(&t) => ParamValue::Text(t),
            None if is_word(text.trim()) => ParamValue::Text(text.trim().to_string()),
            _ => return wrong("expected a word (letters, digits and `_`)".into()),
        },
        ParamValue::List(_) => match read_toml(text) {
            Some(list @ ParamValue::List(_)) if kind_of(&list) == kind_of(current) || list_is_empty(&list) => list,
            _ => return wrong(format!("expected {}, as in [1, 2, 3]", kind_of(current))),
        },
    };
    // A range of numbers is checked here, at the argument; one that ends at another parameter
    // once every override is in (`check_overridden_ranges`).
    if let Some(([End::Int(lo), End::Int(hi)], ..)) = ranges.get(name)
        && let Some(i) = outside(&value, (*lo, *hi))
    {
        return wrong(format!("{i} is outside the range of `{name}`, {lo} to {hi}"));
    }
    Ok(value)
}

fn list_is_empty(value: &ParamValue) -> bool {
    matches!(value, ParamValue::List(items) if items.is_empty())
}

fn looks_numeric(text: &str) -> bool {
    let t = text.trim().trim_start_matches(['-', '+']);
    !t.is_empty() && t.chars().all(|c| c.is_ascii_digit())
}

fn is_word(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A `--set` value read as a TOML value, if it is one.
fn read_toml(text: &str) -> Option<ParamValue> {
    #[derive(serde::Deserialize)]
    struct V {
        v: ParamValue,
    }
    toml::from_str::<V>(&format!("v = {text}")).ok().map(|v| v.v)
}

/// The comment written for the entry at `span`: the `#` lines above its line, and the comment
/// after it on its own line. Entries written one under the other share the comment above the
/// first (`# Both ends of the track.` over two lines of values), so other entries are passed over on
/// the way up; a blank line or a table header ends the search.
pub fn comment_at(sources: &Sources, file: FileId, span: &std::ops::Range<usize>) -> String {
    let text = sources.text(file);
    let line_start = text[..span.start.min(text.len())].rfind('\n').map_or(0, |n| n + 1);
    let mut above: Vec<&str> = Vec::new();
    for line in text[..line_start].lines().rev() {
        let line = line.trim_start();
        match line.strip_prefix('#') {
            Some(_) if line.starts_with("#:") => break,
            Some(comment) => above.push(comment.trim()),
            None if above.is_empty() && !line.is_empty() && !line.starts_with('[') => continue,
            None => break,
        }
    }
    above.reverse();
    let line_end = text[line_start..].find('\n').map_or(text.len(), |n| line_start + n);
    let own = &text[span.end.min(line_end)..line_end];
    if let Some((_, after)) = own.split_once('#') {
        above.push(after.trim());
    }
    above.join(" ")
}

/// A parameter's value as written in TOML.
pub fn show_value(value: &ParamValue) -> String {
    match value {
        ParamValue::Int(i) => i.to_string(),
        ParamValue::Text(t) => format!("\"{t}\""),
        ParamValue::List(items) => format!("[{}]", items.iter().map(show_value).collect::<Vec<_>>().join(", ")),
        ParamValue::Table(t) => {
            let entries: Vec<String> = t.iter().map(|(k, v)| format!("{k} = {}", show_value(v))).collect();
            format!("{{ {} }}", entries.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(entries: &[(&str, ParamValue)]) -> MergedParams {
        entries.iter().map(|(n, v)| (n.to_string(), (0, Located { value: v.clone(), span: 0..0 }))).collect()
    }

    #[test]
    fn an_override_must_be_of_the_kind_it_replaces_and_in_range() {
        let p = params(&[
            ("goal", ParamValue::Int(10)),
            ("first", ParamValue::Text("red".into())),
            ("faces", ParamValue::List(vec![ParamValue::Int(1)])),
            ("by_players", ParamValue::Table(IndexMap::new())),
        ]);
        let ranges: DeclaredRanges =
            [("goal".to_string(), ([End::Int(5), End::Int(20)], 0, 0..0))].into_iter().collect();
        let set = |n: &str, t: &str| check_override(&p, &ranges, n, t).map_err(|e| e.to_string());
        assert_eq!(set("goal", "12"), Ok(ParamValue::Int(12)));
        assert!(set("goal", "abc").unwrap_err().contains("expected an integer"));
        assert!(set("goal", "99999999999999999999").unwrap_err().contains("expected an integer from"));
        assert!(set("goal", "21").unwrap_err().contains("21 is outside the range of `goal`, 5 to 20"));
        assert!(set("gaol", "5").unwrap_err().contains("did you mean `goal`?"));
        assert_eq!(set("first", "blue"), Ok(ParamValue::Text("blue".into())));
        assert!(set("first", "3").unwrap_err().contains("expected a word"));
        assert_eq!(set("faces", "[2, 3]"), Ok(ParamValue::List(vec![ParamValue::Int(2), ParamValue::Int(3)])));
        assert!(set("faces", "[a]").unwrap_err().contains("expected a list of integers"));
        assert!(set("by_players", "3").unwrap_err().contains("which --set cannot replace"));
    }

    #[test]
    fn a_declaration_gives_the_value_and_its_range() {
        let table = |entries: &[(&str, ParamValue)]| {
            ParamValue::Table(entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
        };
        let range = |lo, hi| ParamValue::List(vec![ParamValue::Int(lo), ParamValue::Int(hi)]);
        let mut file: IndexMap<String, Located<ParamValue>> = [
            ("goal", table(&[("value", ParamValue::Int(10)), ("range", range(5, 20))])),
            ("bad", table(&[("value", ParamValue::Int(1)), ("range", range(9, 2))])),
            ("by_players", table(&[("2", ParamValue::Int(7))])),
        ]
        .into_iter()
        .map(|(n, v)| (n.to_string(), Located { value: v, span: 0..0 }))
        .collect();
        let (mut diags, mut ranges) = (Vec::new(), IndexMap::new());
        split_declarations(&mut file, 0, &mut ranges, &mut diags);
        let mut p: MergedParams = file.into_iter().map(|(n, v)| (n, (0, v))).collect();
        assert_eq!(ranges.get("goal").map(|r| &r.0), Some(&[End::Int(5), End::Int(20)]));
        assert_eq!(p["goal"].1.value, ParamValue::Int(10));
        assert_eq!(diags.len(), 1, "the reversed range is refused: {diags:?}");
        assert!(matches!(p["by_players"].1.value, ParamValue::Table(_)), "a plain table stays a table");
        let mut diags = Vec::new();
        p["goal"].1.value = ParamValue::Int(30);
        let resolved = resolve_ranges(&p, &ranges, &mut diags);
        check_ranges(&p, &resolved, &ranges, &[], &mut diags);
        assert_eq!(diags.len(), 1);
    }

    #[test]
    fn the_comment_of_a_parameter_is_the_lines_above_and_after_it() {
        let mut sources = Sources::default();
        let text = "[params]\n# The goal.\n# Rule 3.\ngoal = 10 # approximation\nlimit = 12\n\nother = 1\n";
        let file = sources.add("game.toml", text.to_string());
        let at = text.find("10").unwrap();
        assert_eq!(comment_at(&sources, file, &(at..at + 2)), "The goal. Rule 3. approximation");
        let at = text.find("12").unwrap();
        assert_eq!(comment_at(&sources, file, &(at..at + 2)), "The goal. Rule 3.", "shared with the line above");
        let at = text.find("1\n").unwrap();
        assert_eq!(comment_at(&sources, file, &(at..at + 1)), "", "a blank line ends the search");
    }

    #[test]
    fn a_range_may_end_at_another_parameter_as_overridden() {
        let p = params(&[("length", ParamValue::Int(10)), ("checkpoint", ParamValue::Int(4))]);
        let declared: DeclaredRanges =
            [("checkpoint".to_string(), ([End::Int(1), End::Param("length".into())], 0, 0..0))].into_iter().collect();
        let mut diags = Vec::new();
        assert_eq!(resolve_ranges(&p, &declared, &mut diags).get("checkpoint"), Some(&(1, 10)));
        // 50 passes the argument's own check, and is refused once the length is known.
        let mut p = p;
        p["checkpoint"].1.value = check_override(&p, &declared, "checkpoint", "50").unwrap();
        let resolved = resolve_ranges(&p, &declared, &mut diags);
        let overrides = [("checkpoint".to_string(), "50".to_string())];
        let err = check_overridden_ranges(&p, &resolved, &declared, &overrides).unwrap_err().to_string();
        assert!(err.contains("50 is outside the range of `checkpoint`, 1 to 10 (length)"), "{err}");
        // A longer tunnel makes room for it.
        p["length"].1.value = ParamValue::Int(60);
        let resolved = resolve_ranges(&p, &declared, &mut diags);
        assert!(check_overridden_ranges(&p, &resolved, &declared, &overrides).is_ok());
        // An end naming nothing is reported.
        let wrong: DeclaredRanges =
            [("checkpoint".to_string(), ([End::Int(1), End::Param("lenght".into())], 0, 0..0))].into_iter().collect();
        resolve_ranges(&p, &wrong, &mut diags);
        assert!(
            diags.iter().any(|d| d.message.contains("which is no parameter (did you mean `length`?)")),
            "{diags:?}"
        );
    }
}
