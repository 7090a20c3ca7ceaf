//! The Rhai bridge: compiles a ruleset's scripts once and runs its hooks against a game state.
//!
//! Scripts see the game only through the `Game` handle registered here; every method checks its
//! arguments and changes state through `State`'s methods, which keep the invariants and record
//! events. While a hook runs, the state is moved into a cell the handle shares (a swap, not a
//! copy) and moved back afterwards. Scripts run under operation, depth and size limits, so a
//! runaway script is an error rather than a hang.

mod board;
mod compile;
mod engine;
mod game_api;
mod grid;
mod listings;
mod names;
mod natives;
mod ranking;
mod reads;
mod regions;
#[cfg(feature = "script-signatures")]
mod signatures;
mod steps;
mod values;
mod view_api;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use rhai::{AST, Array, CallFnOptions, Dynamic, Engine, EvalAltResult, ImmutableString, Map, Scope};

use crate::diag::{Diagnostic, Error, FileId};
use crate::rules::defs::{Defs, HookId, PieceId, SeatId};
use crate::state::State;
use crate::value::Action;

pub use compile::Fallback;
use compile::Program;
pub use compile::profile;
use game_api::GameApi;
#[cfg(feature = "script-signatures")]
pub use signatures::{NativeFunction, native_functions};
pub(crate) use values::{MappedOption, from_value, map_action, map_option};
use view_api::SeatView;

/// Most operations one hook call may perform before it is stopped as a runaway.
pub const MAX_OPERATIONS: u64 = 2_000_000;

/// How deep script functions may call each other (an endless recursion stops here, long
/// before the native stack runs out).
pub const MAX_CALL_LEVELS: usize = 64;

/// The longest string, and the most elements an array or map may hold, in a script (counted
/// through nesting: an array of strings holds their characters too).
pub const MAX_DATA_SIZE: usize = 10_000;

/// How deep arrays and maps may nest in a script value (`[[1]]` is 2 deep). Copying a value
/// costs its size, and Rhai copies a variable's value to use it: a loop wrapping a value in
/// itself (`m = #{ inner: m }`) would cost the square of its depth, seconds of work that the
/// operation limit does not see, before the size limit stopped it.
pub const MAX_DEPTH: usize = 64;

/// What Rhai's size error (`ErrorDataTooLarge`) names when a value nests deeper than
/// [`MAX_DEPTH`].
pub(crate) const TOO_DEEP: &str = "Nesting of arrays and maps";

/// Whether arrays and maps nest more than `limit` deep in a value.
pub(crate) fn nests_deeper(value: &Dynamic, limit: usize) -> bool {
    // Most items are plain values (numbers, names): they are passed over without trying to
    // read them as each kind of container (the interpreter asks this at every variable read).
    let deeper = |v: &Dynamic| (v.is_array() || v.is_map()) && nests_deeper(v, limit - 1);
    if let Some(list) = value.read_lock::<Array>() {
        limit == 0 || list.iter().any(deeper)
    } else if let Some(map) = value.read_lock::<Map>() {
        limit == 0 || map.values().any(deeper)
    } else {
        false
    }
}

type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// The most work one hook call may make the engine do on its behalf, in pieces looked at (and
/// bytes of notes written, prompts opened). A single operation of the script can ask the engine
/// to walk every piece (`game.pieces`, `game.shuffle`, ...), so the operation limit alone would
/// let a loop of such calls run for an hour, or record gigabytes of events. The shipped rulesets
/// need at most a few thousand in any hook call (measured over their simulations).
pub const MAX_ENGINE_WORK: u64 = 2_000_000;

/// What opening a prompt counts for in `MAX_ENGINE_WORK` (prompts are kept until answered):
/// a hook may open 10,000.
const PROMPT_WORK: usize = 200;

fn fail<T>(message: impl Into<String>) -> RhaiResult<T> {
    Err(message.into().into())
}

/// Whether a hook's answer is `true` (anything else is false), the answer released without
/// Rhai's drop code when it owns nothing.
pub(crate) fn is_true(answer: Dynamic) -> bool {
    let yes = answer.as_bool().unwrap_or(false);
    compile::release(answer);
    yes
}

/// Whether a script value is a `Game` or `View` handle: its natives never change the handle
/// itself, so sharing one is the same as copying it (see `compile::expr::lend`).
pub(crate) fn is_handle(v: &Dynamic) -> bool {
    v.is::<GameApi>() || v.is::<SeatView>()
}

/// Compiled scripts of one ruleset and the engine that runs them.
pub(crate) struct Scripts {
    /// The script functions compiled to closures; `None` when every hook runs on Rhai's
    /// interpreter (`TABULA_INTERPRET=1`, or `Rules::interpret_scripts`).
    program: Option<Program>,
    engine: Engine,
    ast: AST,
    cell: Rc<RefCell<Box<State>>>,
    defs: Rc<Defs>,
    /// Engine work done for the running hook (see `MAX_ENGINE_WORK`).
    work: Rc<Cell<u64>>,
    /// A list of pieces natives reuse between calls (see `GameApi::scratch`).
    scratch: Rc<Cell<Vec<PieceId>>>,
    /// Zone and counter names looked up lately (see `names.rs`).
    names: Rc<names::Names>,
    /// The file defining each script function, to name it in errors, and the byte offset of
    /// its definition there.
    fn_file: HashMap<String, (FileId, usize)>,
    /// The scope hooks run in, emptied before each call: Rhai pushes the hook's arguments onto
    /// it, and a scope kept between calls has room for them already (a new one would allocate
    /// at each call).
    scope: RefCell<Scope<'static>>,
    /// The `game` handle compiled hooks are lent, boxed once (see `call_in_cell`).
    handle: Cell<Option<Dynamic>>,
    /// The `view` handle compiled agents are lent, boxed once and set to the asking seat at
    /// each call (see `call_view`).
    view_handle: Cell<Option<Dynamic>>,
    /// The maps of action arguments given back by compiled hooks, for the next call.
    args_maps: values::ArgsMaps,
    /// The maps of options compiled `choose` agents were given, for the next decision.
    option_maps: values::OptionMaps,
    /// Whether a native changed the state in the cell (see `GameApi::touched`).
    touched: Rc<Cell<bool>>,
    /// Whether a listing of options is under way (see [`Scripts::listing`]).
    listing: Cell<bool>,
    /// Whether the cell holds a copy of the state of the listing under way that no hook has
    /// changed: the next `legal` hook of the listing runs on it as it is.
    kept_copy: Cell<bool>,
    /// Options hooks' listings kept between decisions (see `listings.rs`).
    kept_listings: listings::KeptListings,
}

/// An options hook's list (see [`Scripts::options`]): a kept one, or what the hook returned.
pub(crate) enum Listed {
    Kept(Array),
    Ran(Dynamic),
}

/// A listing of options under way (see [`Scripts::listing`]); it ends when this is dropped.
pub(crate) struct Listing<'a>(&'a Scripts);

impl Drop for Listing<'_> {
    fn drop(&mut self) {
        self.0.listing.set(false);
        self.0.kept_copy.set(false);
    }
}

impl Scripts {
    /// Runs a hook with the game (and, for action hooks, the action's arguments). The state is
    /// moved into the scripts' cell for the call and back out, whatever the result: it is boxed,
    /// so that each move swaps a pointer rather than the whole state.
    pub(crate) fn call(&self, hook: HookId, state: &mut Box<State>, args: Option<Map>) -> Result<Dynamic, Error> {
        self.call_with(hook, state, args.map(Dynamic::from_map))
    }

    /// Runs a hook with the game and one more argument of any kind.
    pub(crate) fn call_with(
        &self,
        hook: HookId,
        state: &mut Box<State>,
        extra: Option<Dynamic>,
    ) -> Result<Dynamic, Error> {
        self.kept_copy.set(false);
        std::mem::swap(state, &mut *self.cell.borrow_mut());
        let result = self.call_in_cell(hook, extra);
        std::mem::swap(state, &mut *self.cell.borrow_mut());
        result
    }

    /// Runs an action's `apply` hook with the game and the action's arguments as a map (the
    /// map a compiled hook gives back is filled in again for the next call, rather than built).
    pub(crate) fn run_action_hook(&self, hook: HookId, state: &mut Box<State>, action: &Action) -> Result<(), Error> {
        self.kept_copy.set(false);
        std::mem::swap(state, &mut *self.cell.borrow_mut());
        let result = self.call_with_args(hook, action);
        std::mem::swap(state, &mut *self.cell.borrow_mut());
        result.map(compile::release)
    }

    /// Runs an action's `legal` hook on a scratch copy of `state` (see `call_on_copy`), with
    /// the action's arguments as `run_action_hook` gives them.
    ///
    /// Within a listing ([`Scripts::listing`]), the candidates' hooks share one copy, made for
    /// the first: the state does not change while options are listed, so the copy is made
    /// again only after a hook changed it.
    pub(crate) fn call_action_hook_on_copy(
        &self,
        hook: HookId,
        state: &State,
        action: &Action,
    ) -> Result<Dynamic, Error> {
        if !(self.listing.get() && self.kept_copy.get() && !self.touched.get()) {
            self.cell.borrow_mut().copy_for_scratch(state);
        }
        self.touched.set(false);
        let result = self.call_with_args(hook, action);
        self.kept_copy.set(self.listing.get());
        result
    }

    /// Starts a listing of options on a state that does not change until the returned `Listing`
    /// is dropped: the `legal` hooks of its candidates may share one scratch copy.
    pub(crate) fn listing(&self) -> Listing<'_> {
        self.kept_copy.set(false);
        self.listing.set(true);
        Listing(self)
    }

    /// Runs a hook on the state in the scripts' cell with an action's arguments.
    fn call_with_args(&self, hook: HookId, action: &Action) -> Result<Dynamic, Error> {
        let args = self.args_maps.take(&self.defs, action);
        let (result, back) = self.call_in_cell_giving_back(hook, Some(args));
        if let Some(back) = back {
            self.args_maps.keep(action.action, back);
        }
        result
    }

    /// The option an `options` hook's item describes for `seat`: its action, the parameters it
    /// leaves out and the lists of values it gives (see [`map_option`]), with the names the
    /// scripts pass looked up once per string.
    pub(crate) fn listed_option(&self, defs: &Defs, seat: SeatId, item: &Dynamic) -> Result<MappedOption, String> {
        map_option(defs, Some(&self.names), seat, item, true)
    }

    /// The options `hook` lists for `seat` (named `seat_name`) in `state`: the listing kept from
    /// an earlier call while nothing it read has changed (see `listings.rs`), else the hook's
    /// list, run on a copy. Give the list to [`Scripts::options_read`] once read.
    pub(crate) fn options(
        &self,
        hook: HookId,
        state: &State,
        seat: SeatId,
        out_of_turn: bool,
        seat_name: Dynamic,
    ) -> Result<(Listed, listings::Keeping), Error> {
        use listings::Keeping;
        // A seat's listings on turn and out of turn are kept apart: the first change with
        // every action, the second seldom.
        let key = u32::from(seat) * 2 + u32::from(out_of_turn);
        if self.compiled(hook).is_none() || self.program.is_none() {
            return Ok((Listed::Ran(self.call_on_copy(hook, state, Some(seat_name))?), Keeping::Not));
        }
        if let Some(items) = self.kept_listings.lend(&self.defs, state, hook, key) {
            return Ok((Listed::Kept(items), Keeping::Lent { hook, key }));
        }
        let Some(noting) = self.kept_listings.start(hook, key) else {
            return Ok((Listed::Ran(self.call_on_copy(hook, state, Some(seat_name))?), Keeping::Not));
        };
        let listed = self.call_on_copy(hook, state, Some(seat_name));
        let keeping = self.kept_listings.made(&self.defs, state, noting, listed.is_ok());
        Ok((Listed::Ran(listed?), keeping))
    }

    /// Takes back a list [`Scripts::options`] gave, once the flow has read it.
    pub(crate) fn options_read(&self, keeping: listings::Keeping, items: Array) {
        self.kept_listings.done(keeping, items, |spare| self.give_back_options(spare));
    }

    /// Runs a hook that must not change the game (a `legal` or `options` hook) on a scratch copy
    /// of `state`, kept in the scripts' cell between calls so that copying allocates nothing.
    pub(crate) fn call_on_copy(&self, hook: HookId, state: &State, extra: Option<Dynamic>) -> Result<Dynamic, Error> {
        self.kept_copy.set(false);
        self.cell.borrow_mut().copy_for_scratch(state);
        self.call_in_cell(hook, extra)
    }

    /// Runs a hook on the state in the scripts' cell.
    fn call_in_cell(&self, hook: HookId, extra: Option<Dynamic>) -> Result<Dynamic, Error> {
        self.call_in_cell_giving_back(hook, extra).0
    }

    /// `call_in_cell`, also giving back the extra argument as a compiled hook left it.
    fn call_in_cell_giving_back(
        &self,
        hook: HookId,
        extra: Option<Dynamic>,
    ) -> (Result<Dynamic, Error>, Option<Dynamic>) {
        let name = &self.defs.hooks[hook as usize].name;
        self.work.set(0);
        let api = || GameApi {
            state: self.cell.clone(),
            defs: self.defs.clone(),
            work: self.work.clone(),
            scratch: self.scratch.clone(),
            names: self.names.clone(),
            touched: self.touched.clone(),
        };
        if let (Some(f), Some(program)) = (self.compiled(hook), &self.program) {
            // The handle is the same for every call: one boxed copy is kept and lent to each.
            let handle = self.handle.take().unwrap_or_else(|| Dynamic::from(api()));
            let (result, back, extra) = program.run_hook(&self.engine, f, handle, extra);
            if let Some(back) = back.filter(|h| h.is::<GameApi>()) {
                self.handle.set(Some(back));
            }
            return (result.map_err(|e| Error::Script(Box::new(self.diagnose(name, &e)))), extra);
        }
        let api = api();
        let options = CallFnOptions::new().eval_ast(false).rewind_scope(false);
        let mut kept = self.scope.try_borrow_mut();
        let mut fresh = Scope::new();
        let scope = kept.as_deref_mut().map_or(&mut fresh, |s| s.clear());
        let result = match extra {
            None => self.engine.call_fn_with_options::<Dynamic>(options, scope, &self.ast, name, (api,)),
            Some(arg) => self.engine.call_fn_with_options::<Dynamic>(options, scope, &self.ast, name, (api, arg)),
        };
        (result.map_err(|e| Error::Script(Box::new(self.diagnose(name, &e)))), None)
    }

    /// Asks an agent written in the scripts to choose among `options` for `seat`. The agent sees
    /// the game through a `View` handle that shows only what the seat may know; it works on a
    /// copy of the state, so it cannot change the game.
    pub(crate) fn call_agent(
        &self,
        hook: HookId,
        state: &State,
        seat: SeatId,
        options: &[Action],
    ) -> Result<i64, Error> {
        let name = &self.defs.hooks[hook as usize].name;
        let maps = self.option_maps.build(&self.defs, options);
        let (answer, back) = self.call_view(hook, state, seat, Some(maps));
        if let Some(maps) = back.and_then(|maps| maps.try_cast::<Array>()) {
            self.option_maps.keep(options, maps);
        }
        answer?.as_int().map_err(|t| {
            Error::Script(Box::new(Diagnostic::new(format!(
                "agent `{name}` must return the index of an option, not a {t}"
            ))))
        })
    }

    /// Asks an agent written in the scripts for the action `seat` takes (a map, or `()` to
    /// wait), seeing the game as `call_agent` does.
    pub(crate) fn call_agent_act(&self, hook: HookId, state: &State, seat: SeatId) -> Result<Dynamic, Error> {
        self.call_view(hook, state, seat, None).0
    }

    /// Calls agent `hook` with `seat`'s view and the options, if any; compiled, it gives back
    /// the options as the agent left them.
    fn call_view(
        &self,
        hook: HookId,
        state: &State,
        seat: SeatId,
        options: Option<Array>,
    ) -> (Result<Dynamic, Error>, Option<Dynamic>) {
        let name = &self.defs.hooks[hook as usize].name;
        self.kept_copy.set(false);
        self.cell.borrow_mut().copy_for_scratch(state);
        let view = || SeatView {
            state: self.cell.clone(),
            defs: self.defs.clone(),
            seat,
            names: self.names.clone(),
            scratch: self.scratch.clone(),
        };
        if let (Some(f), Some(program)) = (self.compiled(hook), &self.program) {
            let extra = options.map(Dynamic::from_array);
            // As with the `game` handle, one boxed view is kept between calls; only its seat
            // changes.
            let mut handle = self.view_handle.take().unwrap_or_else(|| Dynamic::from(view()));
            match handle.write_lock::<SeatView>() {
                Some(mut kept) => kept.seat = seat,
                None => handle = Dynamic::from(view()),
            }
            let (result, back, extra) = program.run_hook(&self.engine, f, handle, extra);
            if let Some(back) = back.filter(|h| h.is::<SeatView>()) {
                self.view_handle.set(Some(back));
            }
            return (result.map_err(|e| Error::Script(Box::new(self.diagnose(name, &e)))), extra);
        }
        let view = view();
        let call_options = CallFnOptions::new().eval_ast(false).rewind_scope(false);
        let mut kept = self.scope.try_borrow_mut();
        let mut fresh = Scope::new();
        let scope = kept.as_deref_mut().map_or(&mut fresh, |s| s.clear());
        let result = match options {
            Some(options) => {
                self.engine.call_fn_with_options::<Dynamic>(call_options, scope, &self.ast, name, (view, options))
            }
            None => self.engine.call_fn_with_options::<Dynamic>(call_options, scope, &self.ast, name, (view,)),
        };
        (result.map_err(|e| Error::Script(Box::new(self.diagnose(name, &e)))), None)
    }

    /// Everything a script agent of `seat` can read through its `View` handle, as text: every
    /// zone's count and visible pieces, each piece's name, kind, zone and properties, the
    /// counters shown, the phase and the prompt. Read through the handle's own functions (a
    /// probe script on the scripts' engine), so that the information-set test compares what an
    /// agent really gets.
    pub(crate) fn probe_view(&self, state: &State, seat: SeatId) -> Result<String, Error> {
        const PROBE: &str = r#"
            fn probe(view, zones, counters, props) {
                let out = [view.seat(), view.phase(), view.prompt(), view.players()];
                for c in counters { try { out += [c, view.counter(c)]; } catch { out += [c, "not shown"]; } }
                for z in zones {
                    out += [z, view.count(z)];
                    for p in view.pieces(z) {
                        out += [p, view.name(p), view.kind(p), view.zone_of(p)];
                        for name in props { try { out += [name, view.prop(p, name)]; } catch { } }
                        out += [view.piece(view.name(p))];
                    }
                    out += [view.tally(z, "face")];
                }
                out
            }
        "#;
        // The probe runs zone by zone (counters with the first), so that a large ruleset stays
        // within the scripts' limit on the size of an array.
        let ast = self.engine.compile(PROBE).map_err(|e| Error::Input(format!("view probe: {e}")))?;
        self.kept_copy.set(false);
        self.cell.borrow_mut().copy_for_scratch(state);
        let view = SeatView {
            state: self.cell.clone(),
            defs: self.defs.clone(),
            seat,
            names: self.names.clone(),
            scratch: self.scratch.clone(),
        };
        let names = |list: &[ImmutableString]| -> Array { list.iter().cloned().map(Dynamic::from).collect() };
        let mut props: Vec<ImmutableString> = self
            .defs
            .kinds
            .iter()
            .flat_map(|k| k.props.iter().map(|p| ImmutableString::from(p.name.as_str())))
            .collect();
        props.sort();
        props.dedup();
        let counters: Vec<ImmutableString> = self.defs.counters.iter().map(|c| c.name.as_str().into()).collect();
        let mut text = Vec::new();
        for (i, zone) in self.defs.zone_names.iter().enumerate() {
            let counters = if i == 0 { names(&counters) } else { Array::new() };
            let args = (view.clone(), names(std::slice::from_ref(zone)), counters, names(&props));
            let options = CallFnOptions::new().eval_ast(false);
            let out = self
                .engine
                .call_fn_with_options::<Array>(options, &mut Scope::new(), &ast, "probe", args)
                .map_err(|e| Error::Input(format!("view probe: {e}")))?;
            text.extend(out.iter().map(|v| v.to_string()));
        }
        Ok(text.join(" "))
    }

    /// Takes back the options a listing gave once the flow has read them: their maps are
    /// filled in again by the compiled code's next options with the same keys (see
    /// `compile::give_back`). Rhai's interpreter makes its maps itself: they are dropped.
    pub(crate) fn give_back_options(&self, options: Array) {
        if self.program.is_some() {
            compile::give_back(options);
        }
    }

    /// The compiled function running `hook`, if it and everything it calls are compiled.
    fn compiled(&self, hook: HookId) -> Option<usize> {
        *self.program.as_ref()?.hooks.get(hook as usize)?
    }

    /// Runs every hook on Rhai's interpreter from now on (the reference the compiler is
    /// checked against).
    pub(crate) fn interpret(&mut self) {
        self.program = None;
    }

    /// Whether every hook runs on the interpreter.
    pub(crate) fn interpreted(&self) -> bool {
        self.program.is_none()
    }

    /// The script functions left to Rhai's interpreter, and why (empty when nothing is compiled).
    pub(crate) fn fallbacks(&self) -> &[Fallback] {
        self.program.as_ref().map(|p| p.fallbacks.as_slice()).unwrap_or_default()
    }

    /// How many script functions run compiled, of how many.
    pub(crate) fn functions_compiled(&self) -> (usize, usize) {
        let total = self.ast.iter_functions().count();
        (total - self.fallbacks().len(), total)
    }

    /// Runs a hook whose return value does not matter.
    pub(crate) fn run(&self, hook: HookId, state: &mut Box<State>, args: Option<Map>) -> Result<(), Error> {
        self.call(hook, state, args).map(compile::release)
    }
}
