//! Errors and their rendering: the one place where a problem becomes text for a person.
//!
//! Every error the runtime reports about its input carries where it comes from (a file and a
//! byte span or a line and column), what was expected and what was found. `render` turns it into
//! the familiar compiler-style message with the offending line quoted.

use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config};

/// Index of a file in [`Sources`].
pub type FileId = usize;

/// The most bytes read from one ruleset file (`game.toml`, a variant, a script): the largest
/// shipped script is a few dozen kilobytes.
pub const MAX_RULESET_FILE_BYTES: u64 = 8 << 20;

/// The most bytes read from one log: a log of a million actions is about 30 MB.
pub const MAX_LOG_BYTES: u64 = 64 << 20;

/// The text of every file a ruleset (or log) was read from, kept for error messages.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<(PathBuf, String)>,
}

impl Sources {
    /// Keeps a file's text and returns its id.
    pub fn add(&mut self, path: impl Into<PathBuf>, text: String) -> FileId {
        self.files.push((path.into(), text));
        self.files.len() - 1
    }

    /// Reads a text file of at most `limit` bytes and keeps it; returns its id. Reading stops
    /// past the limit, so a device or a pipe without end is refused rather than read for ever.
    /// Bytes that are not UTF-8 are an error at their line (the text is kept with them
    /// replaced, to quote it).
    pub fn read(&mut self, path: &Path, limit: u64) -> Result<FileId, Error> {
        let io = |source: std::io::Error| Error::Io { path: path.to_path_buf(), source };
        let too_large = || io(std::io::Error::other(format!("larger than {} MB, the most tabula reads", limit >> 20)));
        let file = std::fs::File::open(path).map_err(io)?;
        let size = file.metadata().ok().filter(|m| m.is_file()).map_or(0, |m| m.len());
        if size > limit {
            return Err(too_large());
        }
        // Room for the whole file at once (one more byte to see its end), not twice its size.
        let mut bytes = Vec::with_capacity(size as usize + 1);
        file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() as u64 > limit {
            return Err(too_large());
        }
        match String::from_utf8(bytes) {
            Ok(text) => Ok(self.add(path, text)),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                // The text before `at` is valid and stays as it is: `at` is where the first
                // replacement character (3 bytes) begins.
                let id = self.add(path, String::from_utf8_lossy(e.as_bytes()).into_owned());
                let d = Diagnostic::new("the file is not text: it holds bytes that are not UTF-8")
                    .at(id, at..at + 3)
                    .expected("UTF-8 text");
                Err(Error::NotText(Box::new(d), Box::new(self.clone())))
            }
        }
    }

    /// The path of a file.
    pub fn path(&self, id: FileId) -> &Path {
        &self.files[id].0
    }

    /// The text of a file.
    pub fn text(&self, id: FileId) -> &str {
        &self.files[id].1
    }

    /// The ids of the files kept, in the order they were added.
    pub fn ids(&self) -> std::ops::Range<FileId> {
        0..self.files.len()
    }

    /// The id of a file by path, if it was added.
    pub fn find(&self, path: &Path) -> Option<FileId> {
        self.files.iter().position(|(p, _)| p == path)
    }

    /// Byte offset of a 1-based line and column in a file (clamped to the text).
    pub fn offset(&self, id: FileId, line: usize, column: usize) -> usize {
        let text = self.text(id);
        let mut offset = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i + 1 == line {
                let col = column.saturating_sub(1);
                let within = l.char_indices().nth(col).map(|(b, _)| b).unwrap_or(l.len());
                return offset + within;
            }
            offset += l.len();
        }
        text.len()
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, id: FileId, offset: usize) -> (usize, usize) {
        let text = self.text(id);
        let offset = offset.min(text.len());
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map(|s| s.chars().count()).unwrap_or(0) + 1;
        (line, col)
    }
}

/// One problem found in a ruleset, a log or an action, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong, in one sentence.
    pub message: String,
    /// The file the problem is in, if it is in a file.
    pub file: Option<FileId>,
    /// Byte range of the offending text in that file.
    pub span: Option<Range<usize>>,
    /// What was expected there.
    pub expected: Option<String>,
    /// What was found instead.
    pub found: Option<String>,
    /// Further explanation.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A problem with no place attached yet.
    pub fn new(message: impl Into<String>) -> Self {
        Diagnostic { message: message.into(), file: None, span: None, expected: None, found: None, notes: Vec::new() }
    }

    /// Attaches the place of the problem.
    pub fn at(mut self, file: FileId, span: Range<usize>) -> Self {
        self.file = Some(file);
        self.span = Some(span);
        self
    }

    /// Says what was expected.
    pub fn expected(mut self, what: impl Into<String>) -> Self {
        self.expected = Some(what.into());
        self
    }

    /// Says what was found.
    pub fn found(mut self, what: impl Into<String>) -> Self {
        self.found = Some(what.into());
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// `path:line:column` of the problem, if it has a place.
    pub fn location(&self, sources: &Sources) -> Option<String> {
        let file = self.file?;
        let (line, col) = sources.line_col(file, self.span.as_ref()?.start);
        Some(format!("{}:{line}:{col}", sources.path(file).display()))
    }
}

/// A count and its noun, the noun plural unless the count is one: `1 problem`, `3 zones`.
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// Everything that can go wrong in the runtime.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The ruleset does not load: one or more problems in its files (whose texts come along,
    /// so the error can be rendered on its own).
    #[error("the ruleset has {}", counted(.0.len(), "problem"))]
    Ruleset(Vec<Diagnostic>, Box<Sources>),
    /// A log does not parse, or does not fit the rules (with the log's text, for rendering).
    #[error("{}", .0.message)]
    Log(Box<Diagnostic>, Box<Sources>),
    /// A file holds bytes that are not text (with its text, for rendering).
    #[error("{}", .0.message)]
    NotText(Box<Diagnostic>, Box<Sources>),
    /// The rules cannot go on, for a reason found only in play (a phase with nowhere to go):
    /// the diagnostic points into the ruleset's files.
    #[error("{}", .0.message)]
    Rules(Box<Diagnostic>),
    /// A script failed while a hook ran.
    #[error("script error: {}", .0.message)]
    Script(Box<Diagnostic>),
    /// An action was refused; the game is unchanged.
    #[error("{action} is not legal: {reason}")]
    Illegal {
        /// The action as written.
        action: String,
        /// Why it was refused.
        reason: String,
    },
    /// A file could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Bad input that is not in a file (a command-line value, a seat name).
    #[error("{0}")]
    Input(String),
    /// A variant the ruleset does not have (asked with `--variant`, or by a log's header).
    #[error("no variant `{variant}` in {ruleset}{reason}")]
    NoVariant {
        /// The variant asked for.
        variant: String,
        /// The ruleset's folder.
        ruleset: String,
        /// What was expected instead (the variants that exist).
        reason: String,
    },
    /// A parameter override the ruleset does not take (asked with `--set`, or by a log's
    /// header): no such parameter, or a value of the wrong kind or out of range.
    #[error("--set {name}{}: {reason}", .value.as_ref().map(|v| format!("={v}")).unwrap_or_default())]
    Override {
        /// The parameter.
        name: String,
        /// The value given, shown only when the parameter exists (clipped).
        value: Option<String>,
        /// Why it is refused.
        reason: String,
    },
    /// A game that did not end within the simulator's bound on decisions.
    #[error("{0}")]
    Unfinished(String),
    /// An error already rendered where the texts it points into were at hand (a game played on
    /// another thread, under rules loaded there): shown as it is.
    #[error("{}", .0.lines().next().unwrap_or_default().trim_start_matches("error: "))]
    Rendered(String),
}

impl Error {
    /// The diagnostics this error carries (one per problem).
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            Error::Ruleset(d, _) => d.clone(),
            Error::Script(d) | Error::Rules(d) | Error::Log(d, _) | Error::NotText(d, _) => vec![(**d).clone()],
            other => vec![Diagnostic::new(other.to_string())],
        }
    }
}

/// Renders an error the way a compiler does: `error: ...`, `┌─ file:line:col`, the line quoted
/// with the span underlined, then what was expected and found.
/// Ruleset errors carry their own file texts; other errors use `sources` (the ruleset's).
pub fn render(error: &Error, sources: &Sources) -> String {
    match error {
        Error::Ruleset(d, own) => render_diagnostics(d, own),
        Error::Log(d, own) | Error::NotText(d, own) => render_diagnostics(std::slice::from_ref(d), own),
        Error::Rendered(text) => text.clone(),
        other => render_diagnostics(&other.diagnostics(), sources),
    }
}

/// The longest message, note or value shown: a message may quote its input (an action as
/// written), and the input may be a line of 10 MB.
const MAX_SHOWN: usize = 500;

/// `text`, cut to `MAX_SHOWN` bytes with a mark saying so.
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    clip(text, MAX_SHOWN)
}

/// `text`, cut to at most `max` bytes (on a character boundary) with a mark saying so: for
/// input quoted in a message, which may be of any length.
pub fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes in all)", &text[..end], text.len()).into()
}

/// The name among `known` closest to `name`, if one is close enough to be a likely typo (an edit
/// distance of at most a third of its length, and at least one): for "did you mean" hints.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// " (did you mean `x`?)" when a known name is close to `name`, else nothing.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, known).map(|k| format!(" (did you mean `{k}`?)")).unwrap_or_default()
}

/// Edit distance over characters, a swap of two neighbours counting as one edit (`gaol` is one
/// edit from `goal`); names are short, so the quadratic table is fine. Long input (a pasted
/// paragraph) is not compared: it is no typo of a name.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    // d[i][j]: the distance between the first i characters of a and the first j of b.
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// Lines longer than this are not quoted: a message about a line of 10 MB would be 10 MB long.
/// The place is given as `path:line:column` with the text around it instead.
const MAX_QUOTED_LINE: usize = 300;

/// If the line a span begins in is too long to quote, where the span is and the text around it.
fn unquotable(sources: &Sources, file: FileId, span: &Range<usize>) -> Option<String> {
    let text = sources.text(file);
    let mut start = span.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |n| start + n);
    if line_end - line_start <= MAX_QUOTED_LINE {
        return None;
    }
    let before: String = text[line_start..start].chars().rev().take(30).collect::<Vec<_>>().into_iter().rev().collect();
    let after: String = text[start..line_end].chars().take(30).collect();
    let (line, column) = sources.line_col(file, start);
    Some(format!(
        "at {}:{line}:{column} (a line of {} bytes, not quoted): ...{before}[here]{after}...",
        sources.path(file).display(),
        line_end - line_start
    ))
}

/// Whether rendered diagnostics carry colour (ANSI escapes): set once by the command line.
static COLOR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns colour in rendered diagnostics on or off (off by default: the library's callers may
/// write them anywhere).
pub fn use_color(on: bool) {
    COLOR.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Renders one diagnostic, in colour when `use_color` said so.
fn emit(
    files: &SimpleFiles<String, &str>,
    config: &Config,
    diagnostic: &CsDiagnostic<usize>,
) -> Result<String, codespan_reporting::files::Error> {
    if COLOR.load(std::sync::atomic::Ordering::Relaxed) {
        let mut buffer = term::termcolor::Buffer::ansi();
        term::emit_to_write_style(&mut buffer, config, files, diagnostic)?;
        Ok(String::from_utf8_lossy(buffer.as_slice()).into_owned())
    } else {
        let mut text = String::new();
        term::emit_to_string(&mut text, config, files, diagnostic)?;
        Ok(text)
    }
}

/// Renders a list of diagnostics, one after the other.
pub fn render_diagnostics(diagnostics: &[Diagnostic], sources: &Sources) -> String {
    let mut files = SimpleFiles::new();
    for (path, text) in &sources.files {
        files.add(path.display().to_string(), text.as_str());
    }
    let config = Config::default();
    let mut out = String::new();
    for d in diagnostics {
        let mut cs = CsDiagnostic::error().with_message(shown(&d.message));
        let mut notes = Vec::new();
        let too_long = match (d.file, &d.span) {
            (Some(file), Some(span)) if file < sources.files.len() => unquotable(sources, file, span),
            _ => None,
        };
        if let Some(place) = too_long {
            notes.push(place);
            if let Some(found) = &d.found {
                notes.push(format!("found {}", shown(found)));
            }
        } else if let (Some(file), Some(span)) = (d.file, d.span.clone()) {
            let label = match &d.found {
                Some(found) => format!("found {}", shown(found)),
                None => String::new(),
            };
            cs = cs.with_labels(vec![Label::primary(file, span).with_message(label)]);
        }
        if let Some(expected) = &d.expected {
            notes.push(format!("expected {}", shown(expected)));
        }
        if d.file.is_none()
            && let Some(found) = &d.found
        {
            notes.push(format!("found {}", shown(found)));
        }
        notes.extend(d.notes.iter().map(|n| shown(n).into_owned()));
        cs = cs.with_notes(notes);
        match emit(&files, &config, &cs) {
            Ok(text) => out.push_str(&text),
            Err(_) => out.push_str(&format!("error: {}\n", d.message)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn a_typo_finds_the_name_it_was_meant_for() {
        let names = ["harbour", "north-sea", "goal", "track_length"];
        assert_eq!(closest("harbor", names), Some("harbour"));
        assert_eq!(closest("gaol", names), Some("goal"), "a swap is one edit");
        assert_eq!(closest("track_lenght", names), Some("track_length"));
        assert_eq!(closest("chess", names), None, "nothing close: no guess");
    }
}
