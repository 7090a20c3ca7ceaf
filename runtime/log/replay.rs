//! Playing a log back against the rules, and one seat's copy of a log.
//!
//! A log is replayed a step at a time: the setup (everything before the first action), then
//! each action or clock line with the lines after it up to the next one. Chance outcomes stated in a step
//! are handed to the engine for that step and must be exactly the ones the rules need; where a
//! log states none, the seed's generator draws them. The first line that does not fit the rules
//! stops the replay with its line number and the reason.

use std::ops::Range;
use std::rc::Rc;

use super::{Entry, EntryKind, Log, MASKED, Tag, TagValue};
use crate::diag::{Diagnostic, Error, FileId, Sources};
use crate::event::Event;
use crate::flow::Game;
use crate::rules::load::LoadOptions;
use crate::rules::{PieceId, PropKind, Rules, SeatId, Sight};
use crate::state::{Stated, StatedChance};
use crate::view::can_see_piece;

/// How far to replay.
#[derive(Clone, Debug, Default)]
pub struct ReplayOptions {
    /// Stop after this line: actions on later lines are not played.
    pub until_line: Option<usize>,
    /// Record the replayed game's events (for a seat's copy, or to go on logging the game).
    pub record: bool,
}

/// A replayed game.
#[derive(Debug)]
pub struct Replay {
    /// The game after the last line replayed.
    pub game: Game,
    /// How many actions were replayed.
    pub actions: usize,
    /// Things worth saying that did not stop the replay (changed rules).
    pub warnings: Vec<String>,
}

/// The first line of a log that does not fit the rules, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
    /// Warnings gathered before it (a changed fingerprint explains many divergences).
    pub warnings: Vec<String>,
}

impl ReplayError {
    fn at(line: usize, message: impl Into<String>) -> Self {
        ReplayError { line, message: message.into(), warnings: Vec::new() }
    }

    /// The error as a diagnostic pointing at its line of the log file.
    pub fn diagnostic(&self, sources: &Sources, file: FileId) -> Diagnostic {
        let start = sources.offset(file, self.line.max(1), 1);
        let text = sources.text(file);
        let end = text[start..].find('\n').map(|n| start + n).unwrap_or(text.len());
        let mut d = Diagnostic::new(format!("line {}: {}", self.line, self.message)).at(file, start..end.max(start));
        for w in &self.warnings {
            d = d.note(w.clone());
        }
        d
    }
}

/// Why the rules a log names could not be had.
#[derive(Debug, thiserror::Error)]
pub enum LogRulesError {
    /// What a header tag says does not fit: no such ruleset, variant or parameter, or a value a
    /// parameter does not take. At the tag's line, worded as the tag is written.
    #[error("line {}: {}", .0.line, .0.message)]
    Header(ReplayError),
    /// The ruleset's own files do not load (the error carries their texts).
    #[error("{0}")]
    Rules(Error),
}

impl LogRulesError {
    /// The error to report for a log read from `file` of `sources`: a header problem points at
    /// its line of the log.
    pub fn into_error(self, sources: &Sources, file: FileId) -> Error {
        match self {
            LogRulesError::Header(e) => Error::Log(Box::new(e.diagnostic(sources, file)), Box::new(sources.clone())),
            LogRulesError::Rules(e) => e,
        }
    }
}

/// The rules a log names in its header (ruleset, variants, overrides), loaded.
pub fn rules_for(log: &Log) -> Result<Rules, LogRulesError> {
    rules_for_in(log, None)
}

/// The rules of a log, with the variants and overrides its header names, taken from `ruleset`
/// (a name or a folder) when given: the way to replay a log under edited rules kept elsewhere,
/// or a log of a ruleset that is not found by name. Without it, the `[ruleset]` name is looked
/// up as usual and, failing that, the folder the `[ruleset_path]` tag recorded.
pub fn rules_for_in(log: &Log, ruleset: Option<&str>) -> Result<Rules, LogRulesError> {
    let at_tag = |tag: Option<&Tag>, message: String| {
        LogRulesError::Header(ReplayError::at(tag.map_or(1, |t| t.line.max(1)), message))
    };
    let Some(named) = log.text_tag("ruleset") else {
        return Err(at_tag(None, "the log has no [ruleset \"...\"] tag: which rules does it follow?".into()));
    };
    let ruleset = match (ruleset, log.text_tag("ruleset_path")) {
        (Some(given), _) => given,
        (None, Some(path)) if crate::rules::load::find_ruleset(named).is_err() => path,
        _ => named,
    };
    let tags = |name: &'static str| log.tags.iter().filter(move |t| t.name == name);
    let mut variants = Vec::new();
    for tag in tags("variant") {
        match &tag.value {
            TagValue::Text(t) => variants.push(t.clone()),
            TagValue::Int(i) => return Err(at_tag(Some(tag), format!("[variant {i}]: expected a variant's name"))),
        }
    }
    let mut overrides = Vec::new();
    for tag in tags("set") {
        match &tag.value {
            TagValue::Text(t) => match t.split_once('=') {
                Some((k, v)) => overrides.push((k.trim().to_string(), v.trim().to_string())),
                None => return Err(at_tag(Some(tag), format!("[set \"{t}\"]: expected \"name=value\""))),
            },
            TagValue::Int(i) => return Err(at_tag(Some(tag), format!("[set {i}]: expected \"name=value\""))),
        }
    }
    let options = LoadOptions { variants, overrides };
    crate::rules::load::load(ruleset, &options).map_err(|e| match e {
        Error::NoVariant { variant, ruleset, reason } => {
            let tag = tags("variant").find(|t| t.value == TagValue::Text(variant.clone()));
            at_tag(tag, format!("[variant \"{variant}\"]: no such variant in {ruleset}{reason}"))
        }
        Error::Override { name, reason, .. } => {
            let tag = tags("set").find(
                |t| matches!(&t.value, TagValue::Text(s) if s.split_once('=').is_some_and(|(k, _)| k.trim() == name)),
            );
            let written = match tag.map(|t| &t.value) {
                Some(TagValue::Text(s)) => crate::diag::clip(s, 60).into_owned(),
                _ => name,
            };
            at_tag(tag, format!("[set \"{written}\"]: {}", reason.replace("--set", "[set]")))
        }
        // No such ruleset: what the `[ruleset]` tag names.
        Error::Input(message) => at_tag(tags("ruleset").next(), message),
        other => LogRulesError::Rules(other),
    })
}

/// Replays a log against the rules its header names.
pub fn replay(log: &Log, options: &ReplayOptions) -> Result<Result<Replay, ReplayError>, Error> {
    let rules = match rules_for(log) {
        Ok(rules) => Rc::new(rules),
        // A header that does not fit is the log's first line that does not fit.
        Err(LogRulesError::Header(e)) => return Ok(Err(e)),
        Err(LogRulesError::Rules(e)) => return Err(e),
    };
    Ok(replay_with(log, rules, options))
}

/// Replays a log against the given rules.
pub fn replay_with(log: &Log, rules: Rc<Rules>, options: &ReplayOptions) -> Result<Replay, ReplayError> {
    walk(log, rules, options, &mut |_, _, _| {})
}

/// Converts a chance line into the outcome the engine should use.
fn stated(rules: &Rules, entry: &Entry) -> Result<Option<(usize, Stated)>, ReplayError> {
    let EntryKind::Chance { kind, args } = &entry.kind else { return Ok(None) };
    let line = entry.line;
    if args.iter().any(|a| a == MASKED) {
        return Err(ReplayError::at(line, "a masked outcome: a seat's copy of a log cannot be replayed"));
    }
    let piece = |name: &str| rules.piece(name).ok_or_else(|| ReplayError::at(line, format!("no piece named `{name}`")));
    let number =
        |text: &str| text.parse::<i64>().map_err(|_| ReplayError::at(line, format!("`{text}` is not a number")));
    let outcome = match (kind.as_str(), args.as_slice()) {
        ("roll", [die, face]) => {
            let p = piece(die)?;
            let kind = &rules.kinds[rules.pieces[p as usize].kind as usize];
            let face = match kind.props.iter().find(|pr| pr.name == "face").map(|pr| &pr.kind) {
                Some(PropKind::Word(_)) => i64::from(
                    rules.symbol(face).ok_or_else(|| ReplayError::at(line, format!("`{face}` is no face of {die}")))?,
                ),
                Some(_) => number(face)?,
                None => return Err(ReplayError::at(line, format!("{die} is not a die"))),
            };
            Stated::Roll { piece: p, face }
        }
        ("shuffle", [zone, pieces @ ..]) => {
            let z = rules.zone(zone).ok_or_else(|| ReplayError::at(line, format!("no zone named `{zone}`")))?;
            Stated::Shuffle { zone: z, order: pieces.iter().map(|p| piece(p)).collect::<Result<_, _>>()? }
        }
        ("random", [n, value]) => Stated::Random { n: number(n)?, value: number(value)? },
        ("pick", [zone, p]) => {
            let z = rules.zone(zone).ok_or_else(|| ReplayError::at(line, format!("no zone named `{zone}`")))?;
            Stated::Pick { zone: z, piece: piece(p)? }
        }
        (kind, _) => return Err(ReplayError::at(line, format!("`* {kind}` has the wrong number of arguments"))),
    };
    Ok(Some((line, outcome)))
}

/// The outcomes stated by a step's lines.
fn window(rules: &Rules, entries: &[Entry], required: bool) -> Result<StatedChance, ReplayError> {
    let mut chance = StatedChance { required, ..StatedChance::default() };
    for e in entries {
        if let Some(s) = stated(rules, e)? {
            chance.queue.push_back(s);
        }
    }
    Ok(chance)
}

fn unused(game: &Game) -> Result<(), ReplayError> {
    match game.state().stated.queue.front() {
        Some((line, _)) => Err(ReplayError::at(*line, "the log states a chance outcome the rules did not need here")),
        None => Ok(()),
    }
}

/// The line of a stated outcome that did not fit, from the message that says so ("the log
/// states a roll at line 12, but ...").
fn stated_line(message: &str) -> Option<usize> {
    let after = message.split_once("the log states ")?.1.split_once(" at line ")?.1;
    after.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// The indices of the entries that begin a step: actions, and clock lines.
fn steps(log: &Log) -> Vec<usize> {
    log.entries
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.kind, EntryKind::Action { .. } | EntryKind::Clock(_)))
        .map(|(i, _)| i)
        .collect()
}

/// Called after each replayed step with the game, the index of the step's action (None for the
/// setup) and the range of events the step added.
type OnStep<'a> = dyn FnMut(&Game, Option<usize>, Range<usize>) + 'a;

/// Replays a log (recording events), calling `on_step` after the setup and after each step
/// with the game, the index in `log.entries` of the step's action or clock line (`None` for the
/// setup), and the range of the game's events the step made: for tools that show a game step by
/// step (`tabula view`).
pub fn replay_steps(log: &Log, rules: Rc<Rules>, on_step: &mut OnStep) -> Result<Replay, ReplayError> {
    walk(log, rules, &ReplayOptions { record: true, ..ReplayOptions::default() }, on_step)
}

fn walk(log: &Log, rules: Rc<Rules>, options: &ReplayOptions, on_step: &mut OnStep) -> Result<Replay, ReplayError> {
    let mut warnings = Vec::new();
    if let Some(fp) = log.text_tag("fingerprint") {
        let now = format!("{:016x}", rules.fingerprint);
        if fp != now {
            warnings.push(format!(
                "the rules changed since this log was recorded (fingerprint {fp}, now {now}): replaying up to the first line that no longer fits"
            ));
        }
    }
    let fail = |e: ReplayError, w: &Vec<String>| ReplayError { warnings: w.clone(), ..e };
    let (fewest, most) = rules.players;
    let players = match log.int_tag("players") {
        Some(p) if (u64::from(fewest)..=u64::from(most)).contains(&p) => p as u8,
        Some(p) if (1..=255).contains(&p) => {
            let counts = if fewest == most { fewest.to_string() } else { format!("{fewest} to {most}") };
            let message = format!("[players {p}]: {} is played by {counts} players", rules.name);
            return Err(fail(ReplayError::at(log.tag_line("players"), message), &warnings));
        }
        Some(p) => {
            let message = format!("[players {p}]: not a player count");
            return Err(fail(ReplayError::at(log.tag_line("players"), message), &warnings));
        }
        None => rules.players.0,
    };
    if let Some(seats) = log.text_tag("seats") {
        let expected: Vec<&str> = rules.seats.iter().take(players as usize).map(|s| s.name.as_str()).collect();
        if seats.split_whitespace().collect::<Vec<_>>() != expected {
            let message = format!("the log's seats are \"{seats}\", the rules' are \"{}\"", expected.join(" "));
            return Err(fail(ReplayError::at(log.tag_line("seats"), message), &warnings));
        }
    }
    let seed = log.int_tag("seed");
    let actions = steps(log);
    let first = actions.first().copied().unwrap_or(log.entries.len());
    let setup = window(&rules, &log.entries[..first], seed.is_none()).map_err(|e| fail(e, &warnings))?;
    let stated_lines: Vec<usize> = setup.queue.iter().map(|(line, _)| *line).collect();
    let mut game = Game::replaying(rules.clone(), players, seed.unwrap_or(0), setup).map_err(|e| {
        let message = e.to_string();
        // A stated outcome the setup did not make is named, with its line, in the message (the
        // state that knew it is gone with the failed game); otherwise the setup's first line.
        let line = stated_line(&message)
            .filter(|line| stated_lines.contains(line))
            .or(stated_lines.first().copied())
            .or(log.entries.iter().find(|e| !matches!(e.kind, EntryKind::Comment)).map(|e| e.line))
            .unwrap_or(1);
        fail(ReplayError::at(line, message), &warnings)
    })?;
    game.set_recording(options.record);
    unused(&game).map_err(|e| fail(e, &warnings))?;
    on_step(&game, None, 0..game.events().len());
    let mut replayed = 0;
    for (k, &i) in actions.iter().enumerate() {
        let entry = &log.entries[i];
        if options.until_line.is_some_and(|until| entry.line > until) {
            break;
        }
        let line = entry.line;
        let next = actions.get(k + 1).copied().unwrap_or(log.entries.len());
        // An error about a stated outcome of this step is shown at that outcome's line.
        let last_line = log.entries[next - 1].line;
        let at = |message: String| {
            let stated = stated_line(&message).filter(|l| (line..=last_line).contains(l));
            ReplayError::at(stated.unwrap_or(line), message)
        };
        if let EntryKind::Clock(t) = &entry.kind {
            game.state_mut().stated =
                window(&rules, &log.entries[i + 1..next], seed.is_none()).map_err(|e| fail(e, &warnings))?;
            let before = game.events().len();
            game.advance_clock(*t).map_err(|e| fail(at(e.to_string()), &warnings))?;
            unused(&game).map_err(|e| fail(e, &warnings))?;
            on_step(&game, Some(i), before..game.events().len());
            continue;
        }
        let EntryKind::Action { seat, time, name, args } = &entry.kind else { continue };
        // The action as written, for messages only.
        let text = || crate::diag::clip(format!("{seat}: {name} {}", args.join(" ")).trim_end(), 100).into_owned();
        if args.iter().any(|a| a == MASKED) {
            let message = format!("{}: masked arguments (a seat's copy of a log cannot be replayed)", text());
            return Err(fail(ReplayError::at(line, message), &warnings));
        }
        game.state_mut().stated =
            window(&rules, &log.entries[i + 1..next], seed.is_none()).map_err(|e| fail(e, &warnings))?;
        let before = game.events().len();
        if let Some(t) = time {
            game.advance_clock(*t).map_err(|e| fail(at(e.to_string()), &warnings))?;
        }
        let action = game
            .action_from_words(seat, name, args)
            .map_err(|e| fail(ReplayError::at(line, format!("{}: {e}", text())), &warnings))?;
        game.apply_legal(&action).map_err(|e| {
            let message = match e {
                Error::Illegal { action, reason } => format!("{action} not legal: {reason}"),
                Error::Script(d) => format!("{}: {}", text(), d.message),
                other => format!("{}: {other}", text()),
            };
            fail(at(message), &warnings)
        })?;
        unused(&game).map_err(|e| fail(e, &warnings))?;
        replayed += 1;
        on_step(&game, Some(i), before..game.events().len());
    }
    let stopped_early = options.until_line.is_some_and(|u| actions.iter().any(|&i| log.entries[i].line > u));
    if !stopped_early
        && let Some(e) = log.entries.iter().rev().find(|e| matches!(e.kind, EntryKind::Result(_)))
        && let EntryKind::Result(r) = &e.kind
        && game.outcome() != Some(r.as_str())
    {
        let message = match game.outcome() {
            Some(o) => format!("the log says the game ended `{r}`, the rules say `{o}`"),
            None => format!("the log says the game ended `{r}`, but under the rules it is not over"),
        };
        return Err(fail(ReplayError::at(e.line, message), &warnings));
    }
    Ok(Replay { game, actions: replayed, warnings })
}

/// The log as `seat` saw it: the arguments of other seats' secret actions masked, chance
/// outcomes the seat could not see masked, a `# revealed:` note where hidden pieces were turned
/// face up for it to see, and none of the comments written into the log (their writer saw
/// everything).
pub fn seat_log(log: &Log, rules: Rc<Rules>, seat: SeatId) -> Result<Log, ReplayError> {
    let mut out = Log { tags: public_tags(log), entries: Vec::new() };
    let actions = steps(log);
    let first = actions.first().copied().unwrap_or(log.entries.len());
    let defs = rules.clone();
    walk(log, rules, &ReplayOptions { record: true, ..ReplayOptions::default() }, &mut |game, index, events| {
        let lines = match index {
            None => 0..first,
            Some(i) => {
                // The steps are in order: the next one is found by halving, not by a walk from
                // the first (which made a seat's copy of a long log take the square of its length).
                let next = actions.get(actions.partition_point(|&a| a <= i)).copied().unwrap_or(log.entries.len());
                i..next
            }
        };
        let step = &game.events()[events];
        let note = revealed(&defs, game, seat, step).map(|pieces| Entry::comment(format!("revealed: {pieces}")));
        let mut note = note.into_iter();
        for entry in &log.entries[lines] {
            match entry.kind {
                // Comments written into a log are the writer's, who saw everything: a seat's
                // copy leaves them out rather than risk a secret in their words.
                EntryKind::Comment => continue,
                // What the step revealed comes before the end of the game.
                EntryKind::Result(_) => out.entries.extend(note.by_ref()),
                _ => {}
            }
            let mut entry = mask(&defs, game, seat, step, entry);
            // A clock line says which timers the clock passed: their names come from the
            // rules (public), never from what the writer put after the line.
            entry.comment = match entry.kind {
                EntryKind::Clock(_) => timers_fired(&defs, step),
                _ => None,
            };
            out.entries.push(entry);
        }
        out.entries.extend(note);
    })?;
    Ok(out)
}

/// The header tags a seat may see: the known public ones, without their comments. The seed is
/// left out (it reproduces every hidden chance outcome and the other seats' random agents), and
/// so is every tag tabula does not know (a writer's `[notes "..."]` may hold anything).
fn public_tags(log: &Log) -> Vec<super::Tag> {
    log.tags
        .iter()
        .filter(|t| PUBLIC_TAGS.contains(&t.name.as_str()))
        .map(|t| super::Tag { comment: None, ..t.clone() })
        .collect()
}

/// Header tags that say which rules a game follows and who sat where: nothing hidden.
pub const PUBLIC_TAGS: &[&str] =
    &["ruleset", "ruleset_path", "variant", "set", "players", "seats", "agents", "fingerprint", "engine"];

/// The names of the timers a step fired, as the comment of its clock line.
fn timers_fired(rules: &Rules, step: &[Event]) -> Option<String> {
    let names: Vec<&str> = step
        .iter()
        .filter_map(|e| match e {
            Event::TimerFired(t) => Some(rules.timers[*t as usize].name.as_str()),
            _ => None,
        })
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// The pieces `seat` could not see before a step and can see after it (turned face up, or
/// moved where the seat sees them: a tile laid from a face-down pile), each with the zone it
/// lay in when it was turned face up (a piece may move on in the same step: an arrested member
/// to prison), or where it is now.
fn revealed(rules: &Rules, game: &Game, seat: SeatId, step: &[Event]) -> Option<String> {
    let state = game.state();
    let mut shown: Vec<PieceId> = Vec::new();
    let mut considered: Vec<PieceId> = Vec::new();
    for e in step {
        let piece = match e {
            Event::Moved { piece, .. } | Event::Turned { piece, .. } => *piece,
            _ => continue,
        };
        if considered.contains(&piece) {
            continue;
        }
        considered.push(piece);
        if !seen_before_step(rules, game, seat, step, piece) && can_see_piece(game, Some(seat), piece) {
            shown.push(piece);
        }
    }
    let describe = |piece: PieceId| {
        let turned_at = step.iter().position(|e| matches!(e, Event::Turned { piece: p, up: true } if *p == piece));
        let zone = turned_at
            .and_then(|i| {
                step[i + 1..].iter().find_map(|later| match later {
                    Event::Moved { piece: p, from, .. } if *p == piece => Some(*from),
                    _ => None,
                })
            })
            .unwrap_or_else(|| state.zone_of(piece));
        format!("{} in {}", rules.pieces[piece as usize].name, rules.zones[zone as usize].name)
    };
    (!shown.is_empty()).then(|| shown.into_iter().map(describe).collect::<Vec<_>>().join(", "))
}

/// Whether `seat` saw `piece` before `step`: where and how the piece lay then is told by its
/// first move in the step (where from) and its first turn (how it lay), or else by the present.
fn seen_before_step(rules: &Rules, game: &Game, seat: SeatId, step: &[Event], piece: PieceId) -> bool {
    let state = game.state();
    let zone_before = step
        .iter()
        .find_map(|e| match e {
            Event::Moved { piece: p, from, .. } if *p == piece => Some(*from),
            _ => None,
        })
        .unwrap_or_else(|| state.zone_of(piece));
    let up_before = step
        .iter()
        .find_map(|e| match e {
            Event::Turned { piece: p, up } if *p == piece => Some(!up),
            _ => None,
        })
        .unwrap_or_else(|| state.is_face_up(piece));
    up_before || rules.zones[zone_before as usize].sight(seat) == Sight::All
}

/// One entry as `seat` may see it (after the step it belongs to).
fn mask(rules: &Rules, game: &Game, seat: SeatId, step: &[Event], entry: &Entry) -> Entry {
    let mut e = entry.clone();
    let masked = |n: usize| vec![MASKED.to_string(); n];
    match &mut e.kind {
        EntryKind::Action { seat: actor, name, args, .. } => {
            let def = rules.action(name).map(|a| &rules.actions[a as usize]);
            if let Some(def) = def.filter(|d| d.secret)
                && rules.seat(actor) != Some(seat)
                && !seen_in_the_open(rules, game, seat, step, def, args)
            {
                // One mask per parameter: a set's pieces would tell how many it holds.
                *args = masked(def.params.len());
            }
        }
        EntryKind::Chance { kind, args } => match kind.as_str() {
            "roll" => {
                let visible =
                    args.first().and_then(|d| rules.piece(d)).is_some_and(|p| can_see_piece(game, Some(seat), p));
                if !visible && args.len() == 2 {
                    args[1] = MASKED.into();
                }
            }
            // A piece taken at random is shown to the seats that saw it where it lay.
            "pick" => {
                let seen = args.get(1).and_then(|p| rules.piece(p)).is_some_and(|p| {
                    seen_before_step(rules, game, seat, step, p)
                        || args
                            .first()
                            .and_then(|z| rules.zone(z))
                            .is_some_and(|z| rules.zones[z as usize].sight(seat) == Sight::All)
                });
                if !seen && args.len() == 2 {
                    args[1] = MASKED.into();
                }
            }
            "shuffle" => {
                let sees_all = args
                    .first()
                    .and_then(|z| rules.zone(z))
                    .is_some_and(|z| rules.zones[z as usize].sight(seat) == Sight::All);
                if !sees_all {
                    let n = args.len().saturating_sub(1);
                    args.truncate(1);
                    args.extend(masked(n.min(1)));
                }
            }
            _ => {
                if args.len() == 2 {
                    args[1] = MASKED.into();
                }
            }
        },
        EntryKind::Result(_) | EntryKind::Clock(_) | EntryKind::Comment => {}
    }
    e
}

/// Whether a secret action's arguments were in plain sight of `seat` all along: every piece it
/// names lay where the seat saw it before the step and lies where it sees it after, and every
/// zone it names holds one of those pieces (a chip sent face up to an area). A piece shown only
/// by what the step went on to do (a reveal after the last placement) keeps its action masked.
fn seen_in_the_open(
    rules: &Rules,
    game: &Game,
    seat: SeatId,
    step: &[Event],
    def: &crate::rules::ActionDef,
    args: &[String],
) -> bool {
    let pieces: Vec<Option<PieceId>> = def
        .params
        .iter()
        .zip(args)
        .filter(|(p, _)| matches!(p.domain, crate::rules::Domain::Piece(..)))
        .map(|(_, word)| rules.piece(word))
        .collect();
    let all_seen = pieces
        .iter()
        .all(|p| p.is_some_and(|p| seen_before_step(rules, game, seat, step, p) && can_see_piece(game, Some(seat), p)));
    !pieces.is_empty()
        && all_seen
        && def.params.len() == args.len()
        && def.params.iter().zip(args).all(|(param, word)| match &param.domain {
            crate::rules::Domain::Piece(..) => true,
            crate::rules::Domain::Zone(_) => {
                rules.zone(word).is_some_and(|z| pieces.iter().flatten().any(|&p| game.state().zone_of(p) == z))
            }
            _ => false,
        })
}
