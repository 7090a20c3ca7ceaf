//! `tabula._tabula`: the Rust side of the `tabula` Python package.
//!
//! Everything here is a thin layer over the tabula library: rulesets are loaded, games played,
//! views built, logs written and replayed, simulations and sweeps run by the library's own code.
//! Nothing of a game's rules or of visibility is decided here. The Python modules beside it
//! (`python/tabula/`) turn the plain data this module returns into data frames and PettingZoo
//! environments.

use std::rc::Rc;

use indexmap::IndexMap;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tabula::balance::{GameRecord, Tally};
use tabula::diag::Sources;
use tabula::event::{describe_action, describe_value};
use tabula::log::{ReplayOptions, record, rules_for_in, seat_log};
use tabula::rules::raw::ParamValue;
use tabula::rules::{Domain, OutcomeKind, SeatId};
use tabula::sim::{Scheduler, SimOptions};
use tabula::sweep::{Axis, CellResult, cells};
use tabula::view::{View, view, zone_shown};
use tabula::{Action, Error, LoadOptions, Rules, Value};

create_exception!(
    tabula,
    TabulaError,
    PyException,
    "Anything tabula refuses: the message is the library's diagnostic, rendered as the command line prints it."
);
create_exception!(
    tabula,
    RulesetError,
    TabulaError,
    "A ruleset that does not load, or whose rules or scripts fail in play (file, line and column in the message)."
);
create_exception!(tabula, IllegalAction, TabulaError, "An action the rules refuse now; the game is unchanged.");
create_exception!(
    tabula,
    LogError,
    TabulaError,
    "A log that does not parse or does not fit the rules: `line` is its first line that does not fit."
);

/// The Python exception for a library error, its message rendered against `sources` (the
/// ruleset's files, or a log's text) as the command line renders it.
fn py_err(error: &Error, sources: &Sources) -> PyErr {
    let rendered = tabula::diag::render(error, sources);
    let text = if rendered.trim().is_empty() { error.to_string() } else { rendered.trim_end().to_string() };
    match error {
        Error::Illegal { .. } => IllegalAction::new_err(text),
        Error::Ruleset(..) | Error::Rules(_) | Error::Script(_) | Error::NotText(..) => RulesetError::new_err(text),
        Error::Log(..) => LogError::new_err(text),
        _ => TabulaError::new_err(text),
    }
}

/// A `LogError` carrying its line.
fn log_err(py: Python<'_>, line: usize, text: String) -> PyErr {
    let err = LogError::new_err(text);
    let _ = err.value(py).setattr("line", line);
    err
}

/// Load options from Python's variants and parameters (values written as `--set` takes them).
fn load_options(variants: Option<Vec<String>>, params: Option<&Bound<'_, PyDict>>) -> PyResult<LoadOptions> {
    let mut overrides = Vec::new();
    if let Some(params) = params {
        for (k, v) in params.iter() {
            overrides.push((k.str()?.to_string(), set_text(&v)?));
        }
    }
    Ok(LoadOptions { variants: variants.unwrap_or_default(), overrides })
}

/// A parameter's value as `--set` writes it: Python's `True`/`False` as `true`/`false`, the
/// rest as its text.
fn set_text(v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.to_string());
    }
    Ok(v.str()?.to_string())
}

fn load_rules(ruleset: &str, options: &LoadOptions) -> PyResult<Rules> {
    tabula::load(ruleset, options).map_err(|e| py_err(&e, &Sources::default()))
}

/// A loaded ruleset: its definitions and compiled scripts, shared by the games played from it.
#[pyclass(unsendable, module = "tabula._tabula", name = "Ruleset")]
pub struct PyRuleset {
    rules: Rc<Rules>,
    options: LoadOptions,
    name_or_path: String,
}

fn param_to_py<'py>(py: Python<'py>, v: &ParamValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        ParamValue::Int(i) => i.into_pyobject(py)?.into_any(),
        ParamValue::Text(t) => t.into_pyobject(py)?.into_any(),
        ParamValue::List(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(param_to_py(py, item)?)?;
            }
            list.into_any()
        }
        ParamValue::Table(entries) => {
            let table = PyDict::new(py);
            for (k, item) in entries {
                table.set_item(k, param_to_py(py, item)?)?;
            }
            table.into_any()
        }
    })
}

#[pymethods]
impl PyRuleset {
    /// Loads a ruleset by name (a folder under `rulesets/` or `$TABULA_RULESETS`) or path, with
    /// variants applied in order and parameters overridden as `--set` does.
    #[new]
    #[pyo3(signature = (ruleset, variants=None, params=None))]
    fn new(ruleset: &str, variants: Option<Vec<String>>, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let options = load_options(variants, params)?;
        let rules = load_rules(ruleset, &options)?;
        Ok(PyRuleset { rules: Rc::new(rules), options, name_or_path: ruleset.to_string() })
    }

    /// The ruleset's name as found (its folder's name).
    #[getter]
    fn id(&self) -> String {
        self.rules.id.clone()
    }

    /// The game's title.
    #[getter]
    fn name(&self) -> String {
        self.rules.name.clone()
    }

    /// What the ruleset was loaded from (the name or path given).
    #[getter]
    fn source(&self) -> String {
        self.name_or_path.clone()
    }

    /// The variants applied.
    #[getter]
    fn variants(&self) -> Vec<String> {
        self.rules.variants.clone()
    }

    /// The parameters overridden, as `--set` values.
    #[getter]
    fn overrides(&self) -> IndexMap<String, String> {
        self.rules.overrides.iter().cloned().collect()
    }

    /// Every parameter with its value (after variants and overrides).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (k, v) in &self.rules.params {
            out.set_item(k, param_to_py(py, v)?)?;
        }
        Ok(out)
    }

    /// Every seat a player may sit in, in turn order (seats played by the rules left out).
    #[getter]
    fn seats(&self) -> Vec<String> {
        self.rules.seats.iter().filter(|s| !s.by_rules).map(|s| s.name.clone()).collect()
    }

    /// The player counts the ruleset allows.
    #[getter]
    fn player_counts(&self) -> Vec<u8> {
        let (lo, hi) = self.rules.players;
        (lo..=hi).filter(|n| !self.rules.excluded_players.contains(n)).collect()
    }

    /// The player count played when none is given.
    #[getter]
    fn usual_players(&self) -> u8 {
        self.rules.usual_players
    }

    /// Every outcome's name, in the ruleset's order.
    #[getter]
    fn outcomes(&self) -> Vec<String> {
        self.rules.outcomes.iter().map(|o| o.name.clone()).collect()
    }

    /// The agents a seat may be played by: `random` and the ruleset's own.
    #[getter]
    fn agents(&self) -> Vec<String> {
        std::iter::once("random".to_string()).chain(self.rules.agents.iter().map(|a| a.name.clone())).collect()
    }

    /// The fingerprint of the rules (files, variants and overrides), as logs write it.
    #[getter]
    fn fingerprint(&self) -> String {
        format!("{:016x}", self.rules.fingerprint)
    }

    /// Starts a game from a seed (the first decision is pending when it returns). With
    /// `record=False` the game keeps no events (faster: no log, seat log or narration then).
    #[pyo3(signature = (seed=0, players=None, record=true))]
    fn game(&self, seed: u64, players: Option<u8>, record: bool) -> PyResult<PyGame> {
        PyGame::start(self.rules.clone(), players.unwrap_or(self.rules.usual_players), seed, record)
    }

    fn __repr__(&self) -> String {
        let mut text = format!("Ruleset({:?}", self.rules.id);
        if !self.options.variants.is_empty() {
            text.push_str(&format!(", variants={:?}", self.options.variants));
        }
        if !self.options.overrides.is_empty() {
            let params: Vec<String> = self.options.overrides.iter().map(|(k, v)| format!("{k:?}: {v:?}")).collect();
            text.push_str(&format!(", params={{{}}}", params.join(", ")));
        }
        text + ")"
    }
}

/// One action a seat may take (or took): structured, and as the log writes it.
#[pyclass(frozen, module = "tabula._tabula", name = "Action")]
pub struct PyAction {
    action: Action,
    fingerprint: u64,
    /// The seat's name.
    #[pyo3(get)]
    seat: String,
    /// The action's name.
    #[pyo3(get)]
    name: String,
    /// The log's own text: `seat: action arg arg`.
    #[pyo3(get)]
    text: String,
    args: Vec<(String, ArgValue)>,
}

/// An argument as Python sees it.
#[derive(Clone)]
enum ArgValue {
    Name(String),
    Int(i64),
    Names(Vec<String>),
}

impl PyAction {
    fn of(rules: &Rules, action: &Action) -> PyAction {
        let def = &rules.actions[action.action as usize];
        let args = def
            .params
            .iter()
            .zip(action.args.iter())
            .map(|(param, value)| {
                let v = match (value, &param.domain) {
                    (Value::Int(i), _) => ArgValue::Int(*i),
                    (Value::Set(mask), Domain::Set(set)) => {
                        ArgValue::Names(set.members(*mask).map(|p| describe_value(rules, &Value::Piece(p))).collect())
                    }
                    (v, _) => ArgValue::Name(describe_value(rules, v)),
                };
                (param.name.clone(), v)
            })
            .collect();
        PyAction {
            action: *action,
            fingerprint: rules.fingerprint,
            seat: rules.seats[action.seat as usize].name.clone(),
            name: def.name.clone(),
            text: describe_action(rules, action),
            args,
        }
    }
}

#[pymethods]
impl PyAction {
    /// The arguments by parameter name: names of pieces, zones, words and seats as strings,
    /// integers as ints, sets of pieces as lists of names.
    #[getter]
    fn args<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for (k, v) in &self.args {
            match v {
                ArgValue::Name(n) => out.set_item(k, n)?,
                ArgValue::Int(i) => out.set_item(k, i)?,
                ArgValue::Names(ns) => out.set_item(k, ns.clone())?,
            }
        }
        Ok(out)
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!("Action({:?})", self.text)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyAction>() {
            Ok(o) => o.get().action == self.action && o.get().fingerprint == self.fingerprint,
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.action.hash(&mut h);
        self.fingerprint.hash(&mut h);
        h.finish()
    }
}

/// A game in progress: the rules, the state, and the simulator's scheduler (who is asked next,
/// out of turn, and in real time when).
#[pyclass(unsendable, module = "tabula._tabula", name = "Game")]
pub struct PyGame {
    game: tabula::Game,
    seed: Option<u64>,
    scheduler: Scheduler,
    /// For each seat, the number of events when it last decided (what it has been told).
    told: Vec<usize>,
    /// The options of the last `legal_count`/`legal_actions` call, for `apply_index`, and the
    /// seat they are of: `None` once anything may have changed the game (every method that
    /// changes it forgets them).
    legal: Vec<Action>,
    legal_seat: Option<SeatId>,
    /// The players' seat names as Python strings, made once (`turn` hands them out at every
    /// decision).
    names: Vec<Py<pyo3::types::PyString>>,
}

impl PyGame {
    fn start(rules: Rc<Rules>, players: u8, seed: u64, recorded: bool) -> PyResult<PyGame> {
        let start = if recorded { tabula::Game::recorded } else { tabula::Game::new };
        let game = start(rules.clone(), players, seed).map_err(|e| py_err(&e, &rules.sources))?;
        Ok(PyGame::around(game, Some(seed)))
    }

    fn around(game: tabula::Game, seed: Option<u64>) -> PyGame {
        let scheduler = Scheduler::new(&game, SimOptions::default().max_decisions);
        let told = vec![0; game.players() as usize];
        let names = Python::attach(|py| {
            (0..game.players())
                .map(|s| pyo3::types::PyString::new(py, &game.rules().seats[s as usize].name).unbind())
                .collect()
        });
        PyGame { game, seed, scheduler, told, legal: Vec::new(), legal_seat: None, names }
    }

    fn err(&self, e: &Error) -> PyErr {
        py_err(e, &self.game.rules().sources)
    }

    /// A player's seat by name.
    fn seat(&self, name: &str) -> PyResult<SeatId> {
        let rules = self.game.rules();
        match rules.seat(name) {
            Some(s) if s < self.game.players() => Ok(s),
            _ => {
                let seats: Vec<&str> =
                    rules.seats.iter().take(self.game.players() as usize).map(|s| s.name.as_str()).collect();
                Err(TabulaError::new_err(format!(
                    "no seat `{name}` in this game{}; the seats are {}",
                    tabula::diag::did_you_mean(name, seats.iter().copied()),
                    seats.join(", ")
                )))
            }
        }
    }

    fn seat_name(&self, seat: SeatId) -> String {
        self.game.rules().seats[seat as usize].name.clone()
    }

    /// The options of `seat` now, listed once between two changes of the game.
    fn options(&mut self, seat: SeatId) -> PyResult<&[Action]> {
        if self.legal_seat != Some(seat) {
            self.legal_seat = None;
            self.game.legal_actions_into(seat, &mut self.legal).map_err(|e| py_err(&e, &self.game.rules().sources))?;
            self.legal_seat = Some(seat);
        }
        Ok(&self.legal)
    }

    /// Applies a checked action and tells the scheduler and the seat's narration.
    fn apply_action(&mut self, action: &Action) -> PyResult<()> {
        self.legal_seat = None;
        let before = self.game.state().changes();
        self.game.apply(action).map_err(|e| self.err(&e))?;
        self.scheduler.done(&self.game, action.seat, Some(action.action), before);
        if let Some(told) = self.told.get_mut(action.seat as usize) {
            *told = self.game.events().len();
        }
        Ok(())
    }

    /// The seat's observation vector (see `observation`).
    fn observation_vector(&self, seat: SeatId) -> Vec<i64> {
        observation(&self.game, seat)
    }
}

/// The numbers a seat's observation holds, built from its `view` alone (the layout, from the
/// rules and player count alone): for each counter people are shown, whether the seat sees it
/// and its value; for each zone shown, how many pieces the seat can tell it holds (-1: it
/// cannot tell) and how many of them it cannot identify; for each piece, the zone the seat sees
/// it in (0: not seen, else 1 + the zone's index), whether it lies face up, and its shown
/// properties (integers as they are, words as 1 + their index among the rules' words, a hidden
/// value -1, a piece's name 1 + its index); then the clock (ms), the phase's index, whether the
/// seat has a decision, and the outcome (0 while the game goes on, else 1 + its index).
fn observation(game: &tabula::Game, seat: SeatId) -> Vec<i64> {
    let rules = &**game.rules();
    let v: View = view(game, Some(seat));
    let players = game.players();
    let mut out = Vec::new();
    for def in &rules.counters {
        if def.shown && def.owner.is_none_or(|s| rules.seat_in_play(s, players)) {
            let value = v.counters.get(&def.name);
            out.extend([i64::from(value.is_some()), value.copied().unwrap_or(0)]);
        }
    }
    let zones: Vec<usize> = (0..rules.zones.len()).filter(|&z| zone_shown(rules, players, z as _)).collect();
    let mut piece_zone: IndexMap<&str, (usize, &tabula::view::PieceView)> = IndexMap::new();
    for (i, &z) in zones.iter().enumerate() {
        let zv = v.zones.get(&rules.zones[z].name);
        out.extend([zv.and_then(|zv| zv.count).map_or(-1, i64::from), zv.map_or(0, |zv| i64::from(zv.hidden))]);
        for p in zv.map(|zv| zv.pieces.as_slice()).unwrap_or_default() {
            piece_zone.insert(p.name.as_str(), (i + 1, p));
        }
    }
    for def in &rules.pieces {
        let kind = &rules.kinds[def.kind as usize];
        let shown = kind.props.iter().filter(|p| p.shown);
        match piece_zone.get(def.name.as_str()) {
            Some((zone, p)) => {
                out.extend([*zone as i64, i64::from(p.face_up)]);
                for prop in shown {
                    let text = p.props.get(&prop.name).map(String::as_str).unwrap_or(tabula::view::MASKED);
                    out.push(prop_number(rules, text));
                }
            }
            None => {
                out.extend([0, 0]);
                out.extend(shown.map(|_| 0));
            }
        }
    }
    let phase = rules.phases.iter().position(|p| p.name == v.phase).map_or(-1, |p| p as i64);
    let outcome = v.outcome.as_ref().and_then(|o| rules.outcomes.iter().position(|d| &d.name == o));
    out.extend([v.clock_ms, phase, i64::from(v.decision.is_some()), outcome.map_or(0, |o| o as i64 + 1)]);
    out
}

/// A shown property's text as a number (see `observation`).
fn prop_number(rules: &Rules, text: &str) -> i64 {
    if text == tabula::view::MASKED {
        return -1;
    }
    if let Ok(i) = text.parse::<i64>() {
        return i;
    }
    if let Some(p) = rules.piece(text) {
        return i64::from(p) + 1;
    }
    rules.symbol(text).map_or(-2, |s| i64::from(s) + 1)
}

fn view_to_py<'py>(py: Python<'py>, v: &View) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_string(v).unwrap_or_default();
    py.import("json")?.call_method1("loads", (json,))
}

#[pymethods]
impl PyGame {
    /// Starts a game of a ruleset (a name or path) from a seed.
    #[new]
    #[pyo3(signature = (ruleset, seed=0, players=None, variants=None, params=None))]
    fn new(
        ruleset: &Bound<'_, PyAny>,
        seed: u64,
        players: Option<u8>,
        variants: Option<Vec<String>>,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let rules = match ruleset.cast::<PyRuleset>() {
            Ok(r) => {
                if variants.is_some() || params.is_some() {
                    return Err(TabulaError::new_err("variants and params are given when loading a Ruleset"));
                }
                r.borrow().rules.clone()
            }
            Err(_) => Rc::new(load_rules(&ruleset.str()?.to_string(), &load_options(variants, params)?)?),
        };
        let players = players.unwrap_or(rules.usual_players);
        PyGame::start(rules, players, seed, true)
    }

    /// The ruleset's name.
    #[getter]
    fn ruleset(&self) -> String {
        self.game.rules().id.clone()
    }

    /// The game's seed (None for a log replayed without one).
    #[getter]
    fn seed(&self) -> Option<u64> {
        self.seed
    }

    /// The number of players.
    #[getter]
    fn players(&self) -> u8 {
        self.game.players()
    }

    /// The players' seats, in turn order.
    #[getter]
    fn seats(&self) -> Vec<String> {
        (0..self.game.players()).map(|s| self.seat_name(s)).collect()
    }

    /// The current phase.
    #[getter]
    fn phase(&self) -> String {
        self.game.phase().to_string()
    }

    /// Game time in milliseconds.
    #[getter]
    fn clock_ms(&self) -> i64 {
        self.game.clock()
    }

    /// Whether the game has ended.
    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// The outcome's name once the game has ended, else None.
    #[getter]
    fn outcome(&self) -> Option<String> {
        self.game.outcome().map(str::to_string)
    }

    /// The seats that won (empty while the game goes on, and for a draw or a loss of all).
    #[getter]
    fn winners(&self) -> Vec<String> {
        let record = GameRecord::of(&self.game, 0, 0, 0, &[]);
        if self.game.is_over() { record.winners } else { Vec::new() }
    }

    /// What kind of end the outcome is (`win`, `draw`, `loss`, `bound`...), None while the game
    /// goes on.
    #[getter]
    fn outcome_kind(&self) -> Option<String> {
        let rules = self.game.rules();
        let name = self.game.outcome()?;
        let def = rules.outcomes.iter().find(|o| o.name == name)?;
        Some(serde_json::to_value(def.kind).ok()?.as_str()?.to_string())
    }

    /// Each seat's reward from the outcome: 1 for a winner, -1 for a seat that did not win (0
    /// for everyone in a draw or a game stopped by a bound, and while the game goes on).
    fn rewards(&self) -> IndexMap<String, i64> {
        let winners = self.winners();
        let rules = self.game.rules();
        let kind = self.game.outcome().and_then(|n| rules.outcomes.iter().find(|o| o.name == n)).map(|o| o.kind);
        self.seats()
            .into_iter()
            .map(|s| {
                let r = match kind {
                    None | Some(OutcomeKind::Draw) | Some(OutcomeKind::Bound) => 0,
                    Some(_) if winners.contains(&s) => 1,
                    Some(_) => -1,
                };
                (s, r)
            })
            .collect()
    }

    /// The seats the game waits for now.
    fn to_act(&self) -> Vec<String> {
        self.game.acting().filter(|&s| s < self.game.players()).map(|s| self.seat_name(s)).collect()
    }

    /// The seats that may act out of turn now, in the order they are offered the chance.
    fn out_of_turn(&self) -> Vec<String> {
        self.game.out_of_turn_seats().map(|s| self.seat_name(s)).collect()
    }

    /// Every action `seat` may take now (empty when it has nothing to decide).
    fn legal_actions(&mut self, seat: &str) -> PyResult<Vec<PyAction>> {
        let s = self.seat(seat)?;
        let rules = self.game.rules().clone();
        Ok(self.options(s)?.iter().map(|a| PyAction::of(&rules, a)).collect())
    }

    /// The same actions as the log writes them.
    fn legal_texts(&mut self, seat: &str) -> PyResult<Vec<String>> {
        let s = self.seat(seat)?;
        let rules = self.game.rules().clone();
        Ok(self.options(s)?.iter().map(|a| describe_action(&rules, a)).collect())
    }

    /// How many actions `seat` may take now (the list `apply_index` picks from).
    fn legal_count(&mut self, seat: &str) -> PyResult<usize> {
        let s = self.seat(seat)?;
        Ok(self.options(s)?.len())
    }

    /// Applies an action: an `Action` from `legal_actions`, or its text as the log writes it.
    /// An illegal action raises `IllegalAction` and changes nothing.
    fn apply(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let action = match action.cast::<PyAction>() {
            Ok(a) => {
                let a = a.get();
                if a.fingerprint != self.game.rules().fingerprint {
                    return Err(IllegalAction::new_err(format!("{} is an action of other rules", a.text)));
                }
                a.action
            }
            Err(_) => {
                let text = action.str()?.to_string();
                self.game.parse_action(&text).map_err(|e| match e {
                    Error::Input(m) => IllegalAction::new_err(m),
                    other => self.err(&other),
                })?
            }
        };
        self.apply_action(&action)
    }

    /// Applies the `index`th of `seat`'s legal actions (as `legal_actions` lists them). A
    /// failing script hook (a bug of the ruleset) raises `RulesetError` and may leave the game
    /// part-changed, as in `tabula sim`: drop such a game.
    fn apply_index(&mut self, seat: &str, index: usize) -> PyResult<()> {
        let s = self.seat(seat)?;
        let options = self.options(s)?;
        let Some(action) = options.get(index).copied() else {
            return Err(IllegalAction::new_err(format!(
                "{seat} has {} legal action(s) now, not an action #{index}",
                options.len()
            )));
        };
        // Listed for this very state, so legal: applied as the simulator applies its agents'
        // choices, without the copy `apply` keeps to roll back a refused action.
        self.legal_seat = None;
        let before = self.game.state().changes();
        self.game.apply_unchecked(&action).map_err(|e| self.err(&e))?;
        self.scheduler.done(&self.game, action.seat, Some(action.action), before);
        if let Some(told) = self.told.get_mut(action.seat as usize) {
            *told = self.game.events().len();
        }
        Ok(())
    }

    /// The seat the simulator asks next, and whether it is offered a chance out of turn
    /// (`(seat, out_of_turn)`), or None once the game is over. In a real-time game this first
    /// moves the clock to that seat's moment, firing the timers it passes.
    fn next_turn(&mut self) -> PyResult<Option<(String, bool)>> {
        // In real time the clock moves, and timers may fire.
        self.legal_seat = None;
        let next = self.scheduler.next(&mut self.game).map_err(|e| py_err(&e, &self.game.rules().sources))?;
        Ok(next.map(|s| (self.seat_name(s), self.scheduler.out_of_turn())))
    }

    /// `next_turn` and the seat's `legal_count` in one call, for loops that decide again and
    /// again (an agent, a benchmark): `(seat, out_of_turn, options)`, or None once the game is
    /// over. `choose(i)` then takes the seat's `i`th option.
    fn turn(&mut self, py: Python<'_>) -> PyResult<Option<(Py<pyo3::types::PyString>, bool, usize)>> {
        self.legal_seat = None;
        let next = self.scheduler.next(&mut self.game).map_err(|e| py_err(&e, &self.game.rules().sources))?;
        let Some(seat) = next else { return Ok(None) };
        let count = self.options(seat)?.len();
        Ok(Some((self.names[seat as usize].clone_ref(py), self.scheduler.out_of_turn(), count)))
    }

    /// Takes the `index`th option of the seat `turn` last handed out (as `apply_index`).
    fn choose(&mut self, index: usize) -> PyResult<()> {
        let Some(seat) = self.legal_seat else {
            return Err(TabulaError::new_err("choose follows turn: no seat's options are listed now"));
        };
        let Some(action) = self.legal.get(index).copied() else {
            return Err(IllegalAction::new_err(format!(
                "{} has {} legal action(s) now, not an action #{index}",
                self.seat_name(seat),
                self.legal.len()
            )));
        };
        self.legal_seat = None;
        let before = self.game.state().changes();
        self.game.apply_unchecked(&action).map_err(|e| self.err(&e))?;
        self.scheduler.done(&self.game, seat, Some(action.action), before);
        if let Some(told) = self.told.get_mut(seat as usize) {
            *told = self.game.events().len();
        }
        Ok(())
    }

    /// The seat asked by `next_turn` lets its chance pass: out of turn, the game goes on; in
    /// real time, the seat waits until it sees a change.
    fn pass_turn(&mut self, seat: &str) -> PyResult<()> {
        let s = self.seat(seat)?;
        self.legal_seat = None;
        let changes = self.game.state().changes();
        self.scheduler.done(&self.game, s, None, changes);
        Ok(())
    }

    /// Whether the game is played in real time (seats act at game times; `next_turn` moves the
    /// clock).
    #[getter]
    fn real_time(&self) -> bool {
        self.scheduler.is_real_time()
    }

    /// What `seat` sees now as plain data (None: everything, for tools): phase, clock, outcome,
    /// counters, zones with their visible pieces, the seats to act, the seat's decision.
    #[pyo3(signature = (seat=None))]
    fn view<'py>(&self, py: Python<'py>, seat: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
        let s = seat.map(|s| self.seat(s)).transpose()?;
        view_to_py(py, &view(&self.game, s))
    }

    /// The view as the terminal shows it.
    #[pyo3(signature = (seat=None))]
    fn view_text(&self, seat: Option<&str>) -> PyResult<String> {
        let s = seat.map(|s| self.seat(s)).transpose()?;
        Ok(view(&self.game, s).render())
    }

    /// The seat's observation as numbers, built from its view alone (the PettingZoo
    /// environments' observation; the layout is described in python/README.md).
    fn observation(&self, seat: &str) -> PyResult<Vec<i64>> {
        Ok(self.observation_vector(self.seat(seat)?))
    }

    /// What `seat` has been told since its last decision (or the start), as the terminal
    /// narrates it: only what it could see.
    fn events(&self, seat: &str) -> PyResult<Vec<String>> {
        let s = self.seat(seat)?;
        let from = self.told[s as usize].min(self.game.events().len());
        Ok(tabula::narrate::narrate(&self.game, Some(s), &self.game.events()[from..]))
    }

    /// The game's log so far (the table's full record, seed included).
    fn log(&self) -> String {
        record(&self.game, self.seed).to_string()
    }

    /// The log as `seat` saw it: other seats' secrets masked, no seed.
    fn seat_log(&self, seat: &str) -> PyResult<String> {
        let s = self.seat(seat)?;
        let log = record(&self.game, self.seed);
        seat_log(&log, self.game.rules().clone(), s)
            .map(|l| l.to_string())
            .map_err(|e| TabulaError::new_err(format!("line {}: {}", e.line, e.message)))
    }

    /// An independent copy of the game (a search may copy every step).
    #[pyo3(name = "clone")]
    fn copy_game(&self) -> PyGame {
        PyGame {
            game: self.game.clone(),
            seed: self.seed,
            scheduler: self.scheduler.clone(),
            told: self.told.clone(),
            legal: Vec::new(),
            legal_seat: None,
            names: Python::attach(|py| self.names.iter().map(|n| n.clone_ref(py)).collect()),
        }
    }

    fn __copy__(&self) -> PyGame {
        self.copy_game()
    }

    fn __repr__(&self) -> String {
        format!(
            "Game({:?}, players={}, seed={:?}, phase={:?}{})",
            self.game.rules().id,
            self.game.players(),
            self.seed,
            self.game.phase(),
            self.game.outcome().map(|o| format!(", outcome={o:?}")).unwrap_or_default()
        )
    }
}

/// Replays a log (its text): the game after its last line, or `LogError` at the first line
/// that does not fit (with `line`). `ruleset` replays it under other rules (a name or folder).
#[pyfunction]
#[pyo3(signature = (text, ruleset=None))]
fn replay(py: Python<'_>, text: &str, ruleset: Option<&str>) -> PyResult<PyGame> {
    let mut sources = Sources::default();
    let file = sources.add("log", text.to_string());
    let log = tabula::log::parse(text, file).map_err(|d| {
        let line = d.span.as_ref().map_or(1, |span| text[..span.start.min(text.len())].matches('\n').count() + 1);
        let rendered = tabula::diag::render_diagnostics(std::slice::from_ref(&d), &sources);
        log_err(py, line, rendered.trim_end().to_string())
    })?;
    let rules = match rules_for_in(&log, ruleset) {
        Ok(rules) => Rc::new(rules),
        Err(tabula::log::LogRulesError::Header(e)) => {
            let d = e.diagnostic(&sources, file);
            let rendered = tabula::diag::render_diagnostics(std::slice::from_ref(&d), &sources);
            return Err(log_err(py, e.line, rendered.trim_end().to_string()));
        }
        Err(tabula::log::LogRulesError::Rules(e)) => return Err(py_err(&e, &Sources::default())),
    };
    let options = ReplayOptions { record: true, ..ReplayOptions::default() };
    match tabula::log::replay_with(&log, rules, &options) {
        Ok(replayed) => {
            let mut game = PyGame::around(replayed.game, log.int_tag("seed"));
            let n = game.game.events().len();
            game.told.iter_mut().for_each(|t| *t = n);
            Ok(game)
        }
        Err(e) => {
            let d = e.diagnostic(&sources, file);
            let rendered = tabula::diag::render_diagnostics(std::slice::from_ref(&d), &sources);
            Err(log_err(py, e.line, rendered.trim_end().to_string()))
        }
    }
}

/// Every ruleset found by name, with its variants: `[(name, [variant, ...]), ...]`.
#[pyfunction]
fn list_rulesets() -> Vec<(String, Vec<String>)> {
    tabula::rules::load::list_rulesets()
        .into_iter()
        .map(|(name, dir)| (name, tabula::rules::load::list_variants(&dir)))
        .collect()
}

/// The simulation options from Python's arguments.
fn sim_options(
    games: u64,
    seed: u64,
    players: Option<u8>,
    agent: Option<String>,
    seats: Option<IndexMap<String, String>>,
    record: Option<Vec<String>>,
) -> SimOptions {
    SimOptions {
        games,
        seed,
        players,
        agent,
        seat_agents: seats.unwrap_or_default().into_iter().collect(),
        record: record.unwrap_or_default(),
        keep_records: true,
        ..SimOptions::default()
    }
}

/// The rows of a simulation, one per game, as columns (`--csv`'s columns, the same values):
/// `{"game": [...], "seed": [...], ...}`, and the report (`--json`'s) as a JSON text.
#[pyfunction]
#[pyo3(signature = (ruleset, games=1000, seed=0, players=None, variants=None, params=None, agent=None, seats=None, record=None, threads=0))]
#[allow(clippy::too_many_arguments)]
fn sim_columns<'py>(
    py: Python<'py>,
    ruleset: &str,
    games: u64,
    seed: u64,
    players: Option<u8>,
    variants: Option<Vec<String>>,
    params: Option<&Bound<'_, PyDict>>,
    agent: Option<String>,
    seats: Option<IndexMap<String, String>>,
    record: Option<Vec<String>>,
    threads: usize,
) -> PyResult<(Bound<'py, PyDict>, String)> {
    if games == 0 {
        return Err(TabulaError::new_err("games must be 1 or more"));
    }
    let load = load_options(variants, params)?;
    let options = sim_options(games, seed, players, agent, seats, record);
    let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
    let report = py
        .detach(|| tabula::sim::simulate_parallel(ruleset, &load, &options, threads, &|_| {}))
        .map_err(|e| py_err(&e, &Sources::default()))?;
    let columns = record_columns(py, &report.records, &options.record)?;
    Ok((columns, serde_json::to_string(&report).unwrap_or_default()))
}

/// Game records as columns named as `--csv` names them.
fn record_columns<'py>(py: Python<'py>, records: &[GameRecord], record: &[String]) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("game", records.iter().map(|r| r.index).collect::<Vec<_>>())?;
    out.set_item("seed", records.iter().map(|r| r.seed).collect::<Vec<_>>())?;
    out.set_item("outcome", records.iter().map(|r| r.outcome.clone()).collect::<Vec<_>>())?;
    out.set_item("winners", records.iter().map(|r| r.winners.join(" ")).collect::<Vec<_>>())?;
    out.set_item("decisions", records.iter().map(|r| r.decisions).collect::<Vec<_>>())?;
    out.set_item("rounds", records.iter().map(|r| r.rounds).collect::<Vec<_>>())?;
    out.set_item("clock_ms", records.iter().map(|r| r.clock_ms).collect::<Vec<_>>())?;
    out.set_item("stopped", records.iter().map(|r| r.stopped).collect::<Vec<_>>())?;
    for name in record {
        out.set_item(name, records.iter().map(|r| r.counters.get(name).copied()).collect::<Vec<_>>())?;
    }
    Ok(out)
}

/// The cells of a sweep, in the order `tabula sweep` plays them: for each, the overrides its
/// games are played with (the parameters fixed in every cell, then the cell's own values), the
/// cell's values (what its row names), and its axis (one at a time).
#[pyfunction]
#[pyo3(signature = (axes, one_at_a_time=false))]
#[allow(clippy::type_complexity)]
fn sweep_cells(
    axes: Vec<(String, String)>,
    one_at_a_time: bool,
) -> PyResult<Vec<(Vec<(String, String)>, Vec<(String, String)>, Option<String>)>> {
    let axes: Vec<Axis> = axes
        .iter()
        .map(|(name, values)| Axis::parse(name, values))
        .collect::<Result<_, _>>()
        .map_err(|e| py_err(&e, &Sources::default()))?;
    let fixed: Vec<(String, String)> =
        axes.iter().filter(|a| a.values.len() == 1).map(|a| (a.name.clone(), a.values[0].clone())).collect();
    let grid = cells(&axes, one_at_a_time).map_err(|e| py_err(&e, &Sources::default()))?;
    Ok(grid
        .into_iter()
        .map(|c| {
            let mut overrides = fixed.clone();
            overrides.extend(c.values.clone());
            (overrides, c.values, c.axis)
        })
        .collect())
}

/// Plays games `start..end` of a run (game `i` seeded from the run's seed and `i` alone, as
/// `tabula sim` seeds it) and returns their tally as JSON: the part of a run one task plays
/// (`tabula.ray`). Tallies of parts add up to the tally of the whole run (`merge_tallies`).
#[pyfunction]
#[pyo3(signature = (ruleset, start, end, seed=0, players=None, variants=None, overrides=None, agent=None, seats=None))]
#[allow(clippy::too_many_arguments)]
fn play_part(
    py: Python<'_>,
    ruleset: &str,
    start: u64,
    end: u64,
    seed: u64,
    players: Option<u8>,
    variants: Option<Vec<String>>,
    overrides: Option<Vec<(String, String)>>,
    agent: Option<String>,
    seats: Option<IndexMap<String, String>>,
) -> PyResult<String> {
    let load = LoadOptions { variants: variants.unwrap_or_default(), overrides: overrides.unwrap_or_default() };
    let options = sim_options(end.saturating_sub(start), seed, players, agent, seats, None);
    let tally = py
        .detach(|| {
            let rules = Rc::new(tabula::load(ruleset, &load)?);
            tabula::sim::tally_games(&rules, &options, start..end).map_err(|e| match e {
                Error::Script(_) | Error::Rules(_) => Error::Rendered(tabula::diag::render(&e, &rules.sources)),
                other => other,
            })
        })
        .map_err(|e| py_err(&e, &Sources::default()))?;
    Ok(serde_json::to_string(&tally).unwrap_or_default())
}

/// A sweep's cell from the tallies of its parts (JSON, as `play_part` returns them), under the
/// rules loaded with `overrides` (what the outcomes and seats are): the row
/// `tabula sweep --json` prints for it, as JSON.
#[pyfunction]
#[pyo3(signature = (ruleset, tallies, values, axis=None, players=None, variants=None, overrides=None))]
#[allow(clippy::too_many_arguments)]
fn merge_cell(
    ruleset: &str,
    tallies: Vec<String>,
    values: Vec<(String, String)>,
    axis: Option<String>,
    players: Option<u8>,
    variants: Option<Vec<String>>,
    overrides: Option<Vec<(String, String)>>,
) -> PyResult<String> {
    let load = LoadOptions { variants: variants.unwrap_or_default(), overrides: overrides.unwrap_or_default() };
    let rules = load_rules(ruleset, &load)?;
    let mut tally = Tally::default();
    for part in &tallies {
        let part: Tally = serde_json::from_str(part).map_err(|e| TabulaError::new_err(format!("a tally: {e}")))?;
        tally.merge(part);
    }
    let players = players.unwrap_or(rules.usual_players);
    let result = CellResult {
        identity: String::new(),
        values: values.into_iter().collect(),
        axis,
        games: tally.games,
        balance: tally.balance(&rules, players),
    };
    Ok(serde_json::to_string(&result).unwrap_or_default())
}

/// Plays a sweep's cell as `tabula sweep` does (every cell's rules loaded with the cell's
/// values), returning its row as JSON (`tabula sweep --json`'s element).
#[pyfunction]
#[pyo3(signature = (ruleset, overrides, values, axis=None, games=1000, seed=0, players=None, variants=None, agent=None, seats=None, threads=0))]
#[allow(clippy::too_many_arguments)]
fn sweep_cell(
    py: Python<'_>,
    ruleset: &str,
    overrides: Vec<(String, String)>,
    values: Vec<(String, String)>,
    axis: Option<String>,
    games: u64,
    seed: u64,
    players: Option<u8>,
    variants: Option<Vec<String>>,
    agent: Option<String>,
    seats: Option<IndexMap<String, String>>,
    threads: usize,
) -> PyResult<String> {
    let load = LoadOptions { variants: variants.unwrap_or_default(), overrides };
    let mut options = sim_options(games, seed, players, agent, seats, None);
    options.keep_records = false;
    let threads = if threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { threads };
    let report = py
        .detach(|| tabula::sim::simulate_parallel(ruleset, &load, &options, threads, &|_| {}))
        .map_err(|e| py_err(&e, &Sources::default()))?;
    let result = CellResult {
        identity: String::new(),
        values: values.into_iter().collect(),
        axis,
        games: report.games,
        balance: report.balance,
    };
    Ok(serde_json::to_string(&result).unwrap_or_default())
}

/// Pairs of games that differ only in what `seat` may not see, at each step the information-set
/// check compares (`tabula::secrecy::paired_games`), apart from the start or from a shared
/// prefix: `[(game_a, game_b), ...]`.
#[pyfunction]
#[pyo3(signature = (ruleset, seat, seed=0, players=None, steps=40, share_prefix=false, variants=None, params=None))]
#[allow(clippy::too_many_arguments)]
fn secrecy_pairs(
    ruleset: &str,
    seat: &str,
    seed: u64,
    players: Option<u8>,
    steps: u64,
    share_prefix: bool,
    variants: Option<Vec<String>>,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<(PyGame, PyGame)>> {
    let rules = Rc::new(load_rules(ruleset, &load_options(variants, params)?)?);
    let players = players.unwrap_or(rules.usual_players);
    let Some(s) = rules.seat(seat).filter(|&s| s < players) else {
        return Err(TabulaError::new_err(format!("no seat `{seat}` in a game of {players}")));
    };
    let pairs = tabula::secrecy::paired_games(rules.clone(), players, s, seed, share_prefix, steps)
        .map_err(|e| py_err(&e, &rules.sources))?;
    Ok(pairs.into_iter().map(|(a, b)| (PyGame::around(a, None), PyGame::around(b, None))).collect())
}

/// The module: its classes, exceptions and functions.
#[pymodule]
fn _tabula(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<PyRuleset>()?;
    m.add_class::<PyGame>()?;
    m.add_class::<PyAction>()?;
    m.add("TabulaError", py.get_type::<TabulaError>())?;
    m.add("RulesetError", py.get_type::<RulesetError>())?;
    m.add("IllegalAction", py.get_type::<IllegalAction>())?;
    m.add("LogError", py.get_type::<LogError>())?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(list_rulesets, m)?)?;
    m.add_function(wrap_pyfunction!(sim_columns, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_cells, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_cell, m)?)?;
    m.add_function(wrap_pyfunction!(play_part, m)?)?;
    m.add_function(wrap_pyfunction!(merge_cell, m)?)?;
    m.add_function(wrap_pyfunction!(secrecy_pairs, m)?)?;
    Ok(())
}
