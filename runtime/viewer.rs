//! The replay viewer (`tabula view`): a game log replayed step by step into one self-contained
//! HTML page that draws each step's state in a browser.
//!
//! The page holds data only the library made: for each observer, its view at the first step
//! whole, then at every step what changed in it (and in the observer's options), what the
//! observer was told (`narrate`) and its copy of the step's log lines, all through the one
//! visibility rule. A page made for one seat holds nothing else, so that nothing it may not see
//! is in the file, not even out of sight in the page's data. The page's script only draws, and
//! rebuilds a step's view from the changes.
//!
//! Keeping changes rather than a whole view at every step is what keeps a page the size of its
//! game: a whole view at every step grows with steps times the table (a 6-player game of 2,550
//! actions made a page of 318 MB). A page still has limits, [`MAX_STEPS`] and
//! [`MAX_DATA_BYTES`]: past them, [`page`] refuses and names a [`Part`] of the log to view.

use std::ops::Range;
use std::rc::Rc;

use indexmap::IndexMap;
use serde::Serialize;

use crate::flow::Game;
use crate::log::{EntryKind, Log, ReplayError, replay_steps, seat_log};
use crate::narrate::narrate;
use crate::rules::{Layout, Rules, SeatId};
use crate::view::{PieceView, View, ZoneView, describe_options, view_but_zones, zone_inputs, zone_shown, zone_view};

/// The most steps (the setup, actions and clock lines) one page holds: its timeline lists every
/// step, and a page of 20,000 clock lines opened in headless Chromium in 7 s (measured on a busy
/// 2-core machine). A longer game is viewed a [`Part`] at a time.
pub const MAX_STEPS: usize = 20_000;

/// The most bytes of data one page holds, whatever the number of steps: the page's size is what
/// a browser takes time to read (measured in headless Chromium on a busy 2-core machine: 10 MB,
/// a 6-player game of 2,550 steps, opened in 9 s; 30 MB in 17 s; 61 MB in a minute).
pub const MAX_DATA_BYTES: usize = 32 << 20;

/// The part of a log a page shows, by lines of the log file: from the last step at or before
/// line `from` to the last step at or before line `until` (`None`: from the setup, to the end).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Part {
    /// The first line shown (the step at or before it).
    pub from: Option<usize>,
    /// The last line shown (the step at or before it).
    pub until: Option<usize>,
}

/// The whole game (or the part shown) for one observer: a seat, or everyone (`seat: None`).
#[derive(Clone, Debug, Serialize)]
pub struct Timeline {
    /// The seat this timeline is for (`None`: everything).
    pub seat: Option<String>,
    /// The number in the game of the first step shown (0: the setup).
    pub first: usize,
    /// The view at the first step shown, whole.
    pub start: View,
    /// One entry per step shown: the first step, then each action or clock line after it.
    pub steps: Vec<Step>,
    /// The kind of each piece the timeline shows (and of no other), for the page to draw it as
    /// `[layout.pieces]` says.
    pub kinds: IndexMap<String, String>,
}

/// One step of a game as an observer saw it.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// The step's line in the log file (everyone's timeline only: a seat's copy of a log has its
    /// own numbering).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The step's log lines as the observer sees them (other seats' secrets masked).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub text: Vec<String>,
    /// What the observer was told of the step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// What changed in the observer's view with the step (nothing, at the first step shown).
    #[serde(skip_serializing_if = "ViewChange::is_empty")]
    pub view: ViewChange,
    /// The options of each seat to decide or that may act out of turn (the observer's own only,
    /// in a seat's timeline) that changed since that seat last had them: the page keeps each
    /// seat's last options and shows those of the seats in the view's `to_act`, then the other
    /// seats' that are not empty (out of turn). A seat that no longer decides has its options
    /// emptied.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub options: IndexMap<String, Splice<String>>,
}

/// A list made from the one before it: its first `.0` items, then `.2`, then its last `.1` items
/// (one run of changes in a list, as when a piece enters or leaves a zone).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Splice<T>(pub usize, pub usize, pub Vec<T>);

impl<T: Clone + PartialEq> Splice<T> {
    /// The splice that makes `new` from `old`, or `None` when they are equal.
    pub fn between(old: &[T], new: &[T]) -> Option<Self> {
        if old == new {
            return None;
        }
        let front = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let back = old[front..].iter().rev().zip(new[front..].iter().rev()).take_while(|(a, b)| a == b).count();
        Some(Splice(front, back, new[front..new.len() - back].to_vec()))
    }

    /// The list this splice makes from `old`.
    pub fn apply(&self, old: &[T]) -> Vec<T> {
        let front = self.0.min(old.len());
        let back = self.1.min(old.len() - front);
        old[..front].iter().chain(&self.2).chain(&old[old.len() - back..]).cloned().collect()
    }
}

/// What changed in a view from one step to the next: the fields that changed, and in the
/// counters and zones, those that changed. Counters and zones are never removed (an observer
/// sees the same counters and zones all game).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ViewChange {
    /// The new phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The new game time in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<i64>,
    /// The new outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Option<String>>,
    /// The counters whose values changed, with their new values.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub counters: IndexMap<String, i64>,
    /// The zones that changed, and how.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub zones: IndexMap<String, ZoneChange>,
    /// The new seats to decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_act: Option<Vec<String>>,
    /// The new decision the observer faces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Option<String>>,
}

/// What changed in a zone as an observer sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ZoneChange {
    /// The new count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<Option<u32>>,
    /// The pieces seen, from those seen before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pieces: Option<Splice<PieceView>>,
    /// The new number of pieces the observer cannot identify.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<u32>,
}

impl ZoneChange {
    /// What changed from `old` to `new` (nothing: the default).
    pub fn between(old: &ZoneView, new: &ZoneView) -> Self {
        ZoneChange {
            count: changed(&old.count, &new.count),
            pieces: Splice::between(&old.pieces, &new.pieces),
            hidden: changed(&old.hidden, &new.hidden),
        }
    }
}

/// `Some(new)` when it differs from `old`.
fn changed<T: PartialEq + Clone>(old: &T, new: &T) -> Option<T> {
    (old != new).then(|| new.clone())
}

impl ViewChange {
    /// What changed from `old` to `new`.
    pub fn between(old: &View, new: &View) -> Self {
        let counters = new
            .counters
            .iter()
            .filter(|&(name, value)| old.counters.get(name) != Some(value))
            .map(|(name, &value)| (name.clone(), value))
            .collect();
        let empty = ZoneView { count: Some(0), pieces: Vec::new(), hidden: 0 };
        let zones = new
            .zones
            .iter()
            .filter_map(|(name, z)| {
                let change = ZoneChange::between(old.zones.get(name).unwrap_or(&empty), z);
                (change != ZoneChange::default()).then(|| (name.clone(), change))
            })
            .collect();
        ViewChange {
            phase: changed(&old.phase, &new.phase),
            clock_ms: changed(&old.clock_ms, &new.clock_ms),
            outcome: changed(&old.outcome, &new.outcome),
            counters,
            zones,
            to_act: changed(&old.to_act, &new.to_act),
            decision: changed(&old.decision, &new.decision),
        }
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        *self == ViewChange::default()
    }

    /// The view this change makes from `old` (what the page's script does, for the tests).
    pub fn apply(&self, old: &View) -> View {
        let mut new = old.clone();
        if let Some(phase) = &self.phase {
            new.phase = phase.clone();
        }
        if let Some(clock) = self.clock_ms {
            new.clock_ms = clock;
        }
        if let Some(outcome) = &self.outcome {
            new.outcome = outcome.clone();
        }
        for (name, &value) in &self.counters {
            new.counters.insert(name.clone(), value);
        }
        for (name, change) in &self.zones {
            let zone =
                new.zones.entry(name.clone()).or_insert(ZoneView { count: Some(0), pieces: Vec::new(), hidden: 0 });
            if let Some(count) = change.count {
                zone.count = count;
            }
            if let Some(pieces) = &change.pieces {
                zone.pieces = pieces.apply(&zone.pieces);
            }
            if let Some(hidden) = change.hidden {
                zone.hidden = hidden;
            }
        }
        if let Some(to_act) = &self.to_act {
            new.to_act = to_act.clone();
        }
        if let Some(decision) = &self.decision {
            new.decision = decision.clone();
        }
        new
    }
}

/// What the page needs to know of the rules to draw them: public definitions only (no piece is
/// named here: a page for a seat names only the pieces that seat sees).
#[derive(Clone, Debug, Serialize)]
pub struct Board {
    /// The game's name.
    pub title: String,
    /// The seats in play.
    pub seats: Vec<String>,
    /// Whether the game runs on a clock.
    pub real_time: bool,
    /// Edges between zones (a board graph): from, to, kind, one way.
    pub edges: Vec<(String, String, Option<String>, bool)>,
    /// Counters with their ranges (drawn as tracks when short), but those of seats not in the
    /// game.
    pub counters: IndexMap<String, (i64, i64)>,
    /// How the ruleset says the game is drawn (`[layout]`).
    pub layout: Layout,
}

/// The board of a ruleset as the page draws it.
pub fn board(rules: &Rules, players: u8) -> Board {
    let zone = |z: u16| rules.zones[z as usize].name.clone();
    Board {
        title: rules.name.clone(),
        seats: rules.seats.iter().take(players as usize).map(|s| s.name.clone()).collect(),
        real_time: rules.pace.is_some(),
        edges: rules
            .edges
            .iter()
            .map(|e| (zone(e.from), zone(e.to), e.kind.as_ref().map(|k| k.to_string()), e.one_way))
            .collect(),
        counters: (rules.counters.iter())
            .filter(|c| c.owner.is_none_or(|s| rules.seat_in_play(s, players)))
            .map(|c| (c.name.clone(), (c.min, c.max)))
            .collect(),
        layout: rules.layout.clone(),
    }
}

/// The page's data: the board and one timeline per observer on offer.
#[derive(Clone, Debug, Serialize)]
pub struct Page {
    /// The log file's name.
    pub log: String,
    /// What the page draws on.
    pub board: Board,
    /// The observers the page offers (everyone and each seat, or one seat).
    pub timelines: Vec<Timeline>,
}

/// The page of a log's `part` for `observers` (`None`: everyone; a seat's page offers that seat
/// alone), under `rules` with `players` seats; `name` is the log file's name. A log that does
/// not replay is refused at its line, and so is a part past [`MAX_STEPS`] or [`MAX_DATA_BYTES`],
/// with a part that fits.
pub fn page(
    log: &Log,
    rules: Rc<Rules>,
    players: u8,
    observers: &[Option<SeatId>],
    part: Part,
    name: &str,
) -> Result<Page, ReplayError> {
    page_within(log, rules, players, observers, part, name, Limits::default())
}

/// How much a page may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most steps (2 or more).
    pub steps: usize,
    /// The most bytes of data.
    pub bytes: usize,
}

impl Default for Limits {
    /// [`MAX_STEPS`] and [`MAX_DATA_BYTES`].
    fn default() -> Self {
        Limits { steps: MAX_STEPS, bytes: MAX_DATA_BYTES }
    }
}

/// [`page`] within other limits than a page's (for the tests: a page of [`MAX_DATA_BYTES`] takes
/// long to make).
pub fn page_within(
    log: &Log,
    rules: Rc<Rules>,
    players: u8,
    observers: &[Option<SeatId>],
    part: Part,
    name: &str,
    limits: Limits,
) -> Result<Page, ReplayError> {
    let most = limits.steps.max(2);
    let log = &cut(log, part.until);
    let lines: Vec<usize> = log.entries.iter().filter(|e| is_step(&e.kind)).map(|e| e.line).collect();
    // Step k is the setup (k = 0) or the k-th action or clock line; the page starts at the last
    // step at or before `from`.
    let first = part.from.map_or(0, |from| lines.iter().take_while(|&&l| l <= from).count());
    if lines.len() + 1 - first > most {
        // The first step that does not fit (step first + most) and the last that does.
        let over = lines[first + most - 1];
        let last = lines[first + most - 2];
        let message = format!(
            "a page holds at most {most} steps (actions and clock lines), and this line would be one more: \
             view a part of the log, as with --until {last}, then --from {over}"
        );
        return Err(ReplayError { line: over, message, warnings: Vec::new() });
    }
    let mut budget = Budget { left: limits.bytes, most: limits.bytes, lines: &lines };
    let timelines = timelines(log, rules.clone(), observers, first, &mut budget)?;
    Ok(Page { log: name.to_string(), board: board(&rules, players), timelines })
}

/// Whether an entry begins a step.
fn is_step(kind: &EntryKind) -> bool {
    matches!(kind, EntryKind::Action { .. } | EntryKind::Clock(_))
}

/// The log up to the last step at or before line `until`, with that step's chance lines (as
/// `tabula replay --until` replays it).
fn cut(log: &Log, until: Option<usize>) -> Log {
    let Some(until) = until else { return log.clone() };
    let end = log.entries.iter().position(|e| is_step(&e.kind) && e.line > until).unwrap_or(log.entries.len());
    Log { tags: log.tags.clone(), entries: log.entries[..end].to_vec() }
}

/// What is left of the bytes a page may hold as its timelines are made.
struct Budget<'a> {
    left: usize,
    most: usize,
    /// The line of each step after the setup, for the message.
    lines: &'a [usize],
}

impl Budget<'_> {
    /// Takes `bytes` for step number `k` in the game, or refuses at its line.
    fn take(&mut self, bytes: usize, k: usize) -> Result<(), ReplayError> {
        if bytes <= self.left {
            self.left -= bytes;
            return Ok(());
        }
        let line = self.lines.get(k.wrapping_sub(1)).copied().unwrap_or(1);
        let before = match k {
            2.. => format!("--until {}, then ", self.lines[k - 2]),
            _ => String::new(),
        };
        let most = match self.most {
            m if m >= 1 << 20 => format!("{} MB", m >> 20),
            m => format!("{m} bytes"),
        };
        let message = format!(
            "the page's data would pass {most} here, the most a page holds: view a part of the log, as with {before}--from {line}"
        );
        Err(ReplayError { line, message, warnings: Vec::new() })
    }
}

/// The length of a value in JSON.
fn json_len(value: &impl Serialize) -> usize {
    let mut count = Count(0);
    // Writing to a counter does not fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Counts the bytes written to it.
struct Count(usize);

impl std::io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An observer's view followed from step to step, each zone built again only when what it shows
/// may have changed (building every zone of a large table at every step was most of the time
/// a page took).
struct Follow {
    seat: Option<SeatId>,
    /// The view but its zones.
    head: View,
    /// Each zone's view, and the numbers of the state it was built from ([`zone_inputs`]).
    zones: Vec<(ZoneView, Vec<i64>)>,
    scratch: Vec<i64>,
}

impl Follow {
    fn new(game: &Game, seat: Option<SeatId>) -> Follow {
        let zones = (0..game.rules().zones.len() as u16)
            .map(|z| {
                let mut inputs = Vec::new();
                zone_inputs(game, z, &mut inputs);
                (zone_view(game, seat, z), inputs)
            })
            .collect();
        Follow { seat, head: view_but_zones(game, seat), zones, scratch: Vec::new() }
    }

    /// The whole view now.
    fn view(&self, game: &Game) -> View {
        let mut view = self.head.clone();
        let defs = game.rules();
        view.zones = (self.zones.iter().enumerate())
            .filter(|&(z, _)| zone_shown(defs, game.players(), z as u16))
            .map(|(z, (zone, _))| (defs.zones[z].name.clone(), zone.clone()))
            .collect();
        view
    }

    /// Follows the game to its state now: what changed in the view.
    fn step(&mut self, game: &Game) -> ViewChange {
        let head = view_but_zones(game, self.seat);
        let mut change = ViewChange::between(&self.head, &head);
        self.head = head;
        for (z, (zone, inputs)) in self.zones.iter_mut().enumerate() {
            zone_inputs(game, z as u16, &mut self.scratch);
            if self.scratch == *inputs {
                continue;
            }
            std::mem::swap(inputs, &mut self.scratch);
            let now = zone_view(game, self.seat, z as u16);
            let zone_change = ZoneChange::between(zone, &now);
            if zone_change != ZoneChange::default() && zone_shown(game.rules(), game.players(), z as u16) {
                change.zones.insert(game.rules().zones[z].name.clone(), zone_change);
            }
            *zone = now;
        }
        change
    }
}

/// One observer's timeline as it is made, step by step.
struct Observer {
    seat: Option<SeatId>,
    /// The log's lines as the observer sees them, grouped by step (the setup's first).
    texts: Vec<Vec<String>>,
    /// The view, once the first step shown is reached.
    follow: Option<Follow>,
    start: Option<View>,
    /// Each seat's last options.
    options: IndexMap<String, Vec<String>>,
    steps: Vec<Step>,
    /// The kind of each piece shown so far.
    kinds: IndexMap<String, String>,
}

impl Observer {
    fn new(log: &Log, rules: Rc<Rules>, seat: Option<SeatId>) -> Result<Observer, ReplayError> {
        // A seat's copy of the log masks other seats' secrets and drops every comment.
        let lines = match seat {
            Some(s) => seat_log(log, rules, s)?,
            None => log.clone(),
        };
        let mut texts: Vec<Vec<String>> = vec![Vec::new()];
        for entry in &lines.entries {
            if is_step(&entry.kind) {
                texts.push(Vec::new());
            }
            if let Some(step) = texts.last_mut() {
                step.push(entry.to_string());
            }
        }
        Ok(Observer {
            seat,
            texts,
            follow: None,
            start: None,
            options: IndexMap::new(),
            steps: Vec::new(),
            kinds: IndexMap::new(),
        })
    }

    /// Adds step number `k` in the game (`index`: its entry in `log`; `events`: the game's events
    /// it made), and says how many bytes of the page it takes.
    fn step(&mut self, game: &Game, log: &Log, k: usize, index: Option<usize>, events: Range<usize>) -> usize {
        let seat = self.seat;
        let mut bytes = 0;
        let view = match &mut self.follow {
            Some(follow) => follow.step(game),
            None => {
                let first = Follow::new(game, seat);
                let start = first.view(game);
                bytes += json_len(&start);
                self.start = Some(start);
                self.follow = Some(first);
                ViewChange::default()
            }
        };
        let mut options = IndexMap::new();
        // The seats the game waits for, and those that may act out of turn (with an option),
        // each with its options.
        let waited = game.to_act();
        let deciding: Vec<(SeatId, Vec<String>)> = (waited.iter().copied().chain(game.out_of_turn_seats()))
            .filter(|&s| seat.is_none_or(|own| own == s))
            .map(|s| (s, describe_options(game, s)))
            .filter(|(s, new)| !new.is_empty() || waited.contains(s))
            .collect();
        // A seat that decided and no longer does: its options end, so that the page does not
        // show them as out of turn.
        for (name, old) in self.options.iter_mut() {
            let gone = !old.is_empty() && !deciding.iter().any(|(s, _)| game.rules().seats[*s as usize].name == *name);
            if gone {
                options.insert(name.clone(), Splice(0, 0, Vec::new()));
                old.clear();
            }
        }
        for (s, new) in deciding {
            let name = &game.rules().seats[s as usize].name;
            let old = self.options.get(name).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(splice) = Splice::between(old, &new) {
                options.insert(name.clone(), splice);
                self.options.insert(name.clone(), new);
            } else if !self.options.contains_key(name) {
                // A seat with no options yet: the page must know it has none.
                options.insert(name.clone(), Splice(0, 0, Vec::new()));
                self.options.insert(name.clone(), new);
            }
        }
        let step = Step {
            line: if seat.is_none() { index.map(|i| log.entries[i].line) } else { None },
            text: self.texts.get(k).cloned().unwrap_or_default(),
            events: narrate(game, seat, &game.events()[events]),
            view,
            options,
        };
        bytes += json_len(&step);
        // The kinds of the pieces the observer sees for the first time: in its first view, or
        // entering a zone's list.
        let start = self.start.iter().filter(|_| self.steps.is_empty()).flat_map(|v| v.zones.values());
        let entering = step.view.zones.values().flat_map(|z| z.pieces.iter().flat_map(|p| &p.2));
        for piece in start.flat_map(|z| &z.pieces).chain(entering) {
            if let (false, Some(p)) = (self.kinds.contains_key(&piece.name), game.rules().piece(&piece.name)) {
                let kind = &game.rules().kinds[game.rules().pieces[p as usize].kind as usize].name;
                bytes += piece.name.len() + kind.len() + 6;
                self.kinds.insert(piece.name.clone(), kind.clone());
            }
        }
        self.steps.push(step);
        bytes
    }

    fn timeline(self, rules: &Rules, first: usize) -> Result<Timeline, ReplayError> {
        let seat = self.seat.map(|s| rules.seats[s as usize].name.clone());
        match self.start {
            Some(start) => Ok(Timeline { seat, first, start, steps: self.steps, kinds: self.kinds }),
            // Not reached: the replay calls every step, the setup first.
            None => Err(ReplayError { line: 1, message: "no step to show".into(), warnings: Vec::new() }),
        }
    }
}

/// The timelines of a log for `observers`, from step number `first` (0: the setup), made in one
/// replay.
fn timelines(
    log: &Log,
    rules: Rc<Rules>,
    observers: &[Option<SeatId>],
    first: usize,
    budget: &mut Budget,
) -> Result<Vec<Timeline>, ReplayError> {
    let mut made = Vec::new();
    for &seat in observers {
        made.push(Observer::new(log, rules.clone(), seat)?);
    }
    let mut k = 0;
    let mut over = Ok(());
    replay_steps(log, rules.clone(), &mut |game, index, events| {
        k += 1;
        if k - 1 < first || over.is_err() {
            return;
        }
        let bytes = made.iter_mut().map(|o| o.step(game, log, k - 1, index, events.clone())).sum();
        over = budget.take(bytes, k - 1);
    })?;
    over?;
    made.into_iter().map(|o| o.timeline(&rules, first)).collect()
}

/// The views of a timeline at each of its steps, rebuilt from its changes as the page's script
/// rebuilds them (for the tests).
pub fn views(timeline: &Timeline) -> Vec<View> {
    let mut views: Vec<View> = Vec::with_capacity(timeline.steps.len());
    for step in &timeline.steps {
        let next = step.view.apply(views.last().unwrap_or(&timeline.start));
        views.push(next);
    }
    views
}

/// The page: `viewer.html` with the data in it. The data is JSON inside a script element; `<`
/// is escaped so that no text of a game can close the element.
pub fn html(page: &Page) -> String {
    let data = serde_json::to_string(page).unwrap_or_default().replace('<', "\\u003c");
    include_str!("viewer.html").replace("/*TABULA_DATA*/null", &data)
}
