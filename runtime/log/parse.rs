//! From log text to `Log`: the pest grammar in `schema/log.pest`, and the one place its parse
//! tree is turned into typed entries.

use pest::Parser;
use pest_derive::Parser;

use super::{Entry, EntryKind, Log, Tag, TagValue};
use crate::diag::{Diagnostic, FileId};

#[derive(Parser)]
#[grammar = "schema/log.pest"]
struct LogGrammar;

/// What a rule of the grammar is, in words, for "expected ..." messages.
fn describe(rule: &Rule) -> &'static str {
    match rule {
        Rule::tag => "a header tag `[name value]`",
        Rule::tag_name => "a tag name",
        Rule::string => "a quoted string",
        Rule::integer => "an integer",
        Rule::action => "an action `seat: action args`",
        Rule::seat => "a seat",
        Rule::time => "a game time mm:ss.mmm",
        Rule::name => "a name",
        Rule::arg => "an argument",
        Rule::chance => "a chance outcome `* roll|shuffle|random|pick ...`",
        Rule::chance_kind => "`roll`, `shuffle`, `random` or `pick`",
        Rule::result => "`result <outcome>`",
        Rule::clock => "`clock mm:ss.mmm`",
        Rule::comment => "a comment `# ...`",
        Rule::EOI => "the end of the line",
        _ => "a log entry",
    }
}

/// Parses a log. `file` is where the text came from, for the diagnostic of a syntax error.
///
/// Logs made of plain lines (what tabula writes, and most of what people write) are read by a
/// direct scanner that accepts a subset of the grammar and builds the same `Log`; any other log
/// (or any error) goes through the pest grammar, which is the authority on the format.
pub fn parse(text: &str, file: FileId) -> Result<Log, Box<Diagnostic>> {
    too_long(text, file)?;
    match super::quick::parse(text) {
        Some(log) => Ok(log),
        None => parse_with_grammar(text, file),
    }
}

/// The most lines a log may have. A parsed line takes about 180 bytes, so memory stays below
/// half a gigabyte however short the lines are (a log of a million actions is fine).
pub const MAX_LOG_LINES: usize = 2_000_000;

/// An error at the first line past `MAX_LOG_LINES`, if the text has more lines.
fn too_long(text: &str, file: FileId) -> Result<(), Box<Diagnostic>> {
    match text.match_indices('\n').nth(MAX_LOG_LINES - 1) {
        Some((at, _)) if at + 1 < text.len() => Err(Box::new(
            Diagnostic::new(format!("the log has more than {MAX_LOG_LINES} lines, the most tabula reads"))
                .at(file, at + 1..at + 1),
        )),
        _ => Ok(()),
    }
}

/// A grammar error said in the terms of the mistakes people make: a file that is no log at all
/// (a README given by mistake), or an action written without the colon after its seat.
fn explain(text: &str, at: usize, diagnostic: Diagnostic) -> Diagnostic {
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    let line = &text[line_start..line_end];
    let body = line.split('#').next().unwrap_or_default().trim();
    // The first line with an entry: a log begins with its header tags.
    let first_entry = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#'));
    if first_entry == Some(line.trim()) && !body.starts_with('[') {
        return Diagnostic { message: "not a tabula log".into(), ..diagnostic }
            .expected("a log: header tags such as `[ruleset \"my-game\"]` first, then one entry per line")
            .found(format!("`{}`", crate::diag::clip(body, 40)));
    }
    let first = body.split_whitespace().next().unwrap_or_default();
    let plain_word = !first.is_empty() && first.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
    if plain_word && !body.contains(':') && !["result", "clock"].contains(&first) {
        return diagnostic
            .expected("`:` after the seat, as in `red: move pawn_1 hall`")
            .found(format!("`{}`", crate::diag::clip(body, 40)));
    }
    diagnostic
}

/// Parses a log with the pest grammar alone.
pub fn parse_with_grammar(text: &str, file: FileId) -> Result<Log, Box<Diagnostic>> {
    too_long(text, file)?;
    let mut pairs = LogGrammar::parse(Rule::log, text).map_err(|e| {
        let span = match e.location {
            pest::error::InputLocation::Pos(p) => p..(p + 1).min(text.len()).max(p),
            pest::error::InputLocation::Span((a, b)) => a..b,
        };
        let expected = match &e.variant {
            pest::error::ErrorVariant::ParsingError { positives, .. } => {
                let mut names: Vec<&str> = positives.iter().map(describe).collect();
                names.dedup();
                names.join(" or ")
            }
            pest::error::ErrorVariant::CustomError { message } => message.clone(),
        };
        let found = text[span.start.min(text.len())..].chars().take_while(|c| *c != '\n').take(20).collect::<String>();
        let found = if found.is_empty() { "the end of the line".to_string() } else { format!("`{found}`") };
        Box::new(explain(
            text,
            span.start,
            Diagnostic::new("the log does not parse").at(file, span).expected(expected).found(found),
        ))
    })?;
    let mut log = Log::default();
    let root = pairs.next().map(|p| p.into_inner()).into_iter().flatten();
    // Line numbers are counted as we go: pest's `line_col` scans from the start each time.
    let (mut line_no, mut counted_to) = (1usize, 0usize);
    for line in root {
        if line.as_rule() != Rule::line {
            continue;
        }
        let start = line.as_span().start();
        line_no += text.as_bytes()[counted_to..start].iter().filter(|&&b| b == b'\n').count();
        counted_to = start;
        let mut kind = None;
        let mut comment = None;
        for part in line.into_inner() {
            match part.as_rule() {
                Rule::comment => comment = Some(part.as_str()[1..].trim().to_string()),
                Rule::tag => {
                    let mut inner = part.into_inner();
                    let name = inner.next().map(|p| p.as_str().to_string()).unwrap_or_default();
                    let value = match inner.next() {
                        Some(v) if v.as_rule() == Rule::integer => match v.as_str().parse::<u64>() {
                            Ok(i) => TagValue::Int(i),
                            Err(_) => {
                                let span = v.as_span();
                                return Err(Box::new(
                                    Diagnostic::new("integer out of range")
                                        .at(file, span.start()..span.end())
                                        .expected("an integer below 2^64"),
                                ));
                            }
                        },
                        Some(v) => {
                            let raw = v.into_inner().next().map(|t| t.as_str()).unwrap_or_default();
                            TagValue::Text(raw.replace("\\\"", "\"").replace("\\\\", "\\"))
                        }
                        None => TagValue::Text(String::new()),
                    };
                    log.tags.push(Tag { name, value, comment: None, line: line_no });
                    kind = Some(None);
                }
                Rule::action => {
                    let mut seat = String::new();
                    let mut time = None;
                    let mut name = String::new();
                    let mut args = Vec::new();
                    for p in part.into_inner() {
                        match p.as_rule() {
                            Rule::seat => seat = p.as_str().to_string(),
                            Rule::time => time = Some(time_at(&p, file)?),
                            Rule::name => name = p.as_str().to_string(),
                            Rule::arg => args.push(p.as_str().to_string()),
                            _ => {}
                        }
                    }
                    kind = Some(Some(EntryKind::Action { seat, time, name, args }));
                }
                Rule::chance => {
                    let mut inner = part.into_inner();
                    let chance = inner.next().map(|p| p.as_str().to_string()).unwrap_or_default();
                    let args = inner.map(|p| p.as_str().to_string()).collect();
                    kind = Some(Some(EntryKind::Chance { kind: chance, args }));
                }
                Rule::result => {
                    let name = part.into_inner().next().map(|p| p.as_str().to_string()).unwrap_or_default();
                    kind = Some(Some(EntryKind::Result(name)));
                }
                Rule::clock => {
                    let time = match part.into_inner().next() {
                        Some(p) => time_at(&p, file)?,
                        None => 0,
                    };
                    kind = Some(Some(EntryKind::Clock(time)));
                }
                _ => {}
            }
        }
        match kind {
            // A tag: its comment belongs to it.
            Some(None) => {
                if let Some(t) = log.tags.last_mut() {
                    t.comment = comment;
                }
            }
            Some(Some(kind)) => log.entries.push(Entry { kind, comment, line: line_no }),
            None if comment.is_some() => log.entries.push(Entry { kind: EntryKind::Comment, comment, line: line_no }),
            None => {}
        }
    }
    // Comment lines before the first entry belong to the header's neighbourhood; a comment line
    // between tags is kept in order as an entry, which canonical printing puts after the tags.
    Ok(log)
}

/// `mm:ss.mmm` to milliseconds (the grammar guarantees the shape), or `None` for more minutes
/// than milliseconds can count.
fn parse_time(text: &str) -> Option<i64> {
    let (minutes, rest) = text.split_once(':')?;
    let (seconds, millis) = rest.split_once('.')?;
    let n = |s: &str| s.parse::<i64>().ok();
    n(minutes)?.checked_mul(60_000)?.checked_add(n(seconds)? * 1000 + n(millis)?)
}

/// The game time a `time` pair of the grammar says, or an error at it.
fn time_at(pair: &pest::iterators::Pair<Rule>, file: FileId) -> Result<i64, Box<Diagnostic>> {
    parse_time(pair.as_str()).ok_or_else(|| {
        let span = pair.as_span();
        Box::new(
            Diagnostic::new("game time out of range")
                .at(file, span.start()..span.end())
                .expected("at most 153722867280912 minutes")
                .found(format!("`{}`", pair.as_str())),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_milliseconds() {
        assert_eq!(parse_time("00:00.000"), Some(0));
        assert_eq!(parse_time("03:12.500"), Some(192_500));
        assert_eq!(parse_time("125:00.001"), Some(7_500_001));
        assert_eq!(parse_time("99999999999999999999:00.000"), None);
    }

    #[test]
    fn a_small_log_parses_and_prints_back() {
        let text = "[ruleset \"my-game\"] # the game\n[seed 42]\n\n# setup\nblue: choose colour green\nred 01:02.003: roll # fast\n* roll die_1 4\nblue: place ? ?\nresult blue\n";
        let log = parse(text, 0).expect("parses");
        assert_eq!(log.tags.len(), 2);
        assert_eq!(log.text_tag("ruleset"), Some("my-game"));
        assert_eq!(log.int_tag("seed"), Some(42));
        assert_eq!(log.entries.len(), 6);
        assert_eq!(
            log.entries[2].kind,
            EntryKind::Action { seat: "red".into(), time: Some(62_003), name: "roll".into(), args: vec![] }
        );
        assert_eq!(log.entries[2].line, 6);
        assert_eq!(log.result(), Some("blue"));
        assert_eq!(log.to_string(), text);
    }

    #[test]
    fn syntax_errors_name_line_column_and_expectation() {
        let err = parse("[seed 42]\nblue place card\n", 0).expect_err("no colon");
        assert_eq!(err.span.as_ref().map(|s| s.start), Some(15));
        assert!(
            err.expected.as_deref().unwrap_or_default().contains("a game time") || err.expected.is_some(),
            "{err:?}"
        );
    }
}
