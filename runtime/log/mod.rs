//! Game logs: tabula's equivalent of chess's PGN. One game, one entry per line.
//!
//! A log is a header of tags (which rules, variants, overrides, players, seed, the rules
//! fingerprint, the engine) and the game as it happened: each action with its seat and game
//! time, each chance outcome (a roll, a shuffle, a random number, a piece picked at random),
//! each timer the clock passed, comments, and the result.
//! `parse` reads the text (grammar: `schema/log.pest`), `Display` prints it canonically, and
//! `print(parse(text))` is stable. `record` builds a log from a game, `replay` plays one back
//! against the rules, and `seat_log` shows one seat's copy.

mod parse;
mod quick;
mod record;
mod replay;

use std::fmt;

pub use parse::{MAX_LOG_LINES, parse, parse_with_grammar};
pub use record::{Recorder, header_for, record, ruleset_path_tag};
pub use replay::{
    LogRulesError, Replay, ReplayError, ReplayOptions, replay, replay_steps, replay_with, rules_for, rules_for_in,
    seat_log,
};

/// A parsed log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Log {
    /// Header tags, in the order written.
    pub tags: Vec<Tag>,
    /// Everything after the header, in the order written.
    pub entries: Vec<Entry>,
}

/// A header tag: `[name "text"]` or `[name 42]`.
#[derive(Clone, Debug, Eq)]
pub struct Tag {
    /// Its name.
    pub name: String,
    /// Its value.
    pub value: TagValue,
    /// A comment after it on the same line.
    pub comment: Option<String>,
    /// The 1-based line it was read from (0 for tags made in memory). Not compared.
    pub line: usize,
}

impl PartialEq for Tag {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.value == other.value && self.comment == other.comment
    }
}

/// The value of a tag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagValue {
    /// A quoted string.
    Text(String),
    /// A non-negative integer (a seed uses all 64 bits).
    Int(u64),
}

/// One line of a log after the header.
#[derive(Clone, Debug, Eq)]
pub struct Entry {
    /// What the line says.
    pub kind: EntryKind,
    /// A comment after it on the same line (or the whole line, for `EntryKind::Comment`).
    pub comment: Option<String>,
    /// The 1-based line it was read from (0 for entries made in memory). Not compared.
    pub line: usize,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.comment == other.comment
    }
}

/// What a log line says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// `seat [mm:ss.mmm]: action args...`
    Action {
        /// The seat acting.
        seat: String,
        /// Game time in milliseconds, if written.
        time: Option<i64>,
        /// The action's name.
        name: String,
        /// Its arguments as written (`?` when masked).
        args: Vec<String>,
    },
    /// `* roll|shuffle|random|pick args...`: a chance outcome the rules produced.
    Chance {
        /// `roll`, `shuffle`, `random` or `pick`.
        kind: String,
        /// Its arguments (`?` when masked).
        args: Vec<String>,
    },
    /// `clock mm:ss.mmm`: the game clock passed a timer at this time.
    Clock(i64),
    /// `result outcome`
    Result(String),
    /// A line holding only a comment.
    Comment,
}

/// The mask written for an argument a seat may not see.
pub use crate::view::MASKED;

impl Entry {
    /// An entry made in memory.
    pub fn new(kind: EntryKind) -> Self {
        Entry { kind, comment: None, line: 0 }
    }

    /// A comment line.
    pub fn comment(text: impl Into<String>) -> Self {
        Entry { kind: EntryKind::Comment, comment: Some(text.into()), line: 0 }
    }
}

impl Log {
    /// The first tag of a name.
    pub fn tag(&self, name: &str) -> Option<&TagValue> {
        self.tags.iter().find(|t| t.name == name).map(|t| &t.value)
    }

    /// The line of the first tag of a name (1 if the log has none, or was made in memory): where
    /// a problem with what the header says is shown.
    pub fn tag_line(&self, name: &str) -> usize {
        self.tags.iter().find(|t| t.name == name).map_or(1, |t| t.line.max(1))
    }

    /// Every tag of a name (variants and overrides repeat).
    pub fn tags_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a TagValue> + 'a {
        self.tags.iter().filter(move |t| t.name == name).map(|t| &t.value)
    }

    /// A text tag's value.
    pub fn text_tag(&self, name: &str) -> Option<&str> {
        match self.tag(name) {
            Some(TagValue::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// An integer tag's value.
    pub fn int_tag(&self, name: &str) -> Option<u64> {
        match self.tag(name) {
            Some(TagValue::Int(i)) => Some(*i),
            _ => None,
        }
    }

    /// The stated result, if any.
    pub fn result(&self) -> Option<&str> {
        self.entries.iter().rev().find_map(|e| match &e.kind {
            EntryKind::Result(r) => Some(r.as_str()),
            _ => None,
        })
    }

    /// How many action lines the log has.
    pub fn action_count(&self) -> usize {
        self.entries.iter().filter(|e| matches!(e.kind, EntryKind::Action { .. })).count()
    }
}

/// `mm:ss.mmm` for a game time in milliseconds.
pub fn format_time(ms: i64) -> String {
    crate::view::format_clock(ms)
}

fn write_comment(f: &mut fmt::Formatter<'_>, comment: &Option<String>, after_entry: bool) -> fmt::Result {
    // Comments are kept trimmed, so printing them back is stable.
    if let Some(c) = comment {
        if after_entry {
            f.write_str(" ")?;
        }
        f.write_str("#")?;
        if !c.trim().is_empty() {
            write!(f, " {}", c.trim())?;
        }
    }
    Ok(())
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            TagValue::Text(t) => write!(f, "[{} \"{}\"]", self.name, t.replace('\\', "\\\\").replace('"', "\\\""))?,
            TagValue::Int(i) => write!(f, "[{} {i}]", self.name)?,
        }
        write_comment(f, &self.comment, true)
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            EntryKind::Action { seat, time, name, args } => {
                f.write_str(seat)?;
                if let Some(t) = time {
                    write!(f, " {}", format_time(*t))?;
                }
                write!(f, ": {name}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
            }
            EntryKind::Chance { kind, args } => {
                write!(f, "* {kind}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
            }
            EntryKind::Result(r) => write!(f, "result {r}")?,
            EntryKind::Clock(t) => write!(f, "clock {}", format_time(*t))?,
            EntryKind::Comment => return write_comment(f, &self.comment, false),
        }
        write_comment(f, &self.comment, true)
    }
}

/// The canonical text: tags, a blank line, then one entry per line.
impl fmt::Display for Log {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for t in &self.tags {
            writeln!(f, "{t}")?;
        }
        if !self.tags.is_empty() && !self.entries.is_empty() {
            writeln!(f)?;
        }
        for e in &self.entries {
            writeln!(f, "{e}")?;
        }
        Ok(())
    }
}
