//! A direct scanner for plain log lines: the fast path of `parse`.
//!
//! It accepts a subset of the grammar in `schema/log.pest` (words of letters, digits, `_`, `-`
//! and `.`; tags with plain strings; comments) and returns `None` as soon as a line is anything
//! else, so that pest reads the whole log and reports any error. `tests/it/logs.rs` checks that
//! both paths build the same `Log` wherever this one answers.

use super::{Entry, EntryKind, Log, Tag, TagValue};

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A cursor over one line's body (the text before any comment).
struct Scan<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Scan<'a> {
    fn spaces(&mut self) -> usize {
        let start = self.i;
        while self.i < self.s.len() && is_space(self.s[self.i]) {
            self.i += 1;
        }
        self.i - start
    }

    fn word(&mut self) -> Option<&'a str> {
        let start = self.i;
        while self.i < self.s.len() && is_word(self.s[self.i]) {
            self.i += 1;
        }
        (self.i > start).then(|| std::str::from_utf8(&self.s[start..self.i]).ok()).flatten()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn done(&self) -> bool {
        self.i == self.s.len()
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        self.i - start
    }

    /// `(sp ~ arg)*` to the end of the body.
    fn args(&mut self) -> Option<Vec<String>> {
        let mut args = Vec::new();
        while !self.done() {
            if self.spaces() == 0 {
                return None;
            }
            if self.eat(b'?') {
                args.push(super::MASKED.to_string());
            } else {
                args.push(self.word()?.to_string());
            }
        }
        Some(args)
    }
}

/// `mm:ss.mmm` at the cursor, in milliseconds.
fn time(scan: &mut Scan) -> Option<i64> {
    let start = scan.i;
    if scan.digits() < 2 || !scan.eat(b':') || scan.digits() != 2 || !scan.eat(b'.') || scan.digits() != 3 {
        return None;
    }
    let text = std::str::from_utf8(&scan.s[start..scan.i]).ok()?;
    let (m, rest) = text.split_once(':')?;
    let (sec, ms) = rest.split_once('.')?;
    m.parse::<i64>().ok()?.checked_mul(60_000)?.checked_add(sec.parse::<i64>().ok()? * 1000 + ms.parse::<i64>().ok()?)
}

enum Line {
    Blank,
    Tag(Tag),
    Entry(EntryKind),
}

fn line(body: &str) -> Option<Line> {
    let mut scan = Scan { s: body.trim_end_matches([' ', '\t']).as_bytes(), i: 0 };
    scan.spaces();
    if scan.done() {
        return Some(Line::Blank);
    }
    if scan.eat(b'[') {
        scan.spaces();
        let name = scan.word()?;
        if !name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            return None;
        }
        if scan.spaces() == 0 {
            return None;
        }
        let value = if scan.eat(b'"') {
            let start = scan.i;
            while scan.i < scan.s.len() && scan.s[scan.i] != b'"' {
                if scan.s[scan.i] == b'\\' {
                    return None;
                }
                scan.i += 1;
            }
            let text = std::str::from_utf8(&scan.s[start..scan.i]).ok()?.to_string();
            if !scan.eat(b'"') {
                return None;
            }
            TagValue::Text(text)
        } else {
            let start = scan.i;
            if scan.digits() == 0 {
                return None;
            }
            TagValue::Int(std::str::from_utf8(&scan.s[start..scan.i]).ok()?.parse().ok()?)
        };
        scan.spaces();
        return (scan.eat(b']') && scan.done())
            .then(|| Line::Tag(Tag { name: name.to_string(), value, comment: None, line: 0 }));
    }
    if scan.eat(b'*') {
        scan.spaces();
        let kind = scan.word()?;
        if !matches!(kind, "roll" | "shuffle" | "random" | "pick") {
            return None;
        }
        let args = scan.args()?;
        return Some(Line::Entry(EntryKind::Chance { kind: kind.to_string(), args }));
    }
    let seat = scan.word()?;
    let after_seat = scan.i;
    if seat == "result" && scan.spaces() > 0 {
        // `result <outcome>`, unless this is the action of a seat named `result`.
        if let Some(name) = scan.word()
            && scan.done()
        {
            return Some(Line::Entry(EntryKind::Result(name.to_string())));
        }
        scan.i = after_seat;
    }
    if seat == "clock" && scan.spaces() > 0 && scan.s.get(scan.i).is_some_and(u8::is_ascii_digit) {
        // `clock mm:ss.mmm`, unless this is the action of a seat named `clock`.
        let at = time(&mut scan)?;
        if scan.done() {
            return Some(Line::Entry(EntryKind::Clock(at)));
        }
        scan.i = after_seat;
    }
    let mut at = None;
    if scan.spaces() > 0 && scan.s.get(scan.i).is_some_and(u8::is_ascii_digit) {
        at = Some(time(&mut scan)?);
        scan.spaces();
    }
    if !scan.eat(b':') {
        return None;
    }
    scan.spaces();
    let name = scan.word()?;
    let args = scan.args()?;
    Some(Line::Entry(EntryKind::Action { seat: seat.to_string(), time: at, name: name.to_string(), args }))
}

/// The log, if every line is plain; `None` sends the text to the grammar.
pub fn parse(text: &str) -> Option<Log> {
    let mut log = Log::default();
    for (i, raw) in text.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.contains('\r') || raw.contains('"') && raw.contains('#') {
            return None;
        }
        let (body, comment) = match raw.find('#') {
            Some(at) => (&raw[..at], Some(raw[at + 1..].trim().to_string())),
            None => (raw, None),
        };
        match line(body)? {
            Line::Blank => {
                if comment.is_some() {
                    log.entries.push(Entry { kind: EntryKind::Comment, comment, line: i + 1 });
                }
            }
            Line::Tag(mut tag) => {
                tag.comment = comment;
                tag.line = i + 1;
                log.tags.push(tag);
            }
            Line::Entry(kind) => log.entries.push(Entry { kind, comment, line: i + 1 }),
        }
    }
    Some(log)
}
