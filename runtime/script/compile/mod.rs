//! The scripts compiler: turns a ruleset's Rhai functions into Rust closures at load.
//!
//! Rhai walks its syntax tree at every call and, for every hook call, builds fresh caches and
//! resolves each function by hashing its name and argument types. The compiler does that work
//! once: variables become slots in a frame, calls to script functions become indices, tabula's
//! natives are picked from the [`Natives`] table by argument types at the call (no hashing), and
//! integer, boolean and string operators and a few functions of Rhai's standard library run
//! inline, computed as Rhai computes them. Everything else (the rest of the standard library,
//! operators on other kinds of values, indexing what is neither an array nor a map, every error
//! message) goes through Rhai itself, so the semantics are Rhai's. A closure given to one of
//! Rhai's functions (`list.map(|x| x + 1)`) is called back by Rhai, on its interpreter.
//!
//! A function uses only what the compiler covers, or it is left to Rhai: calling a function
//! pointer (`call`, `curry`, `Fn` of a computed name), `eval`, `print`, `type_of`, a named
//! `catch` variable, `const`, Rhai's iterators `range` (stepped), `bits` and `chars`, and
//! functions that call such a function or make a function pointer to one. A hook runs compiled
//! only if its whole call tree is compiled; [`Program::fallbacks`] says which functions are not,
//! and why (`tabula check` prints it). `tests/it/compiled.rs` plays every shipped ruleset both
//! ways and compares the games, and runs a probe of Rhai snippets both ways; `tests.rs` runs
//! snippets generated over Rhai's language and library both ways.
//!
//! Files: `ctx.rs` holds what a compiled call runs with (frames, limits, calls into Rhai),
//! `expr.rs`, `stmt.rs` and `chain.rs` compile expressions, statements and dot/index chains,
//! `condition.rs` the conditions of `if`, loops and `switch` and the parts of `&&` and `||`,
//! `index.rs` hands Rhai the indexing of strings, integers and other values, `ops.rs` the
//! operators and the standard functions computed inline, `memo.rs` the results of calls made
//! with plain values only, remembered, `inline.rs` the method calls of small functions
//! compiled into their callers, `profile.rs` the time each function takes, when asked (`tabula
//! sim --profile`).

mod chain;
mod condition;
mod ctx;
mod direct;
mod expr;
mod index;
mod inline;
mod maps;
pub(crate) use maps::give_back;
mod memo;
mod ops;
pub mod profile;
mod stmt;
#[cfg(test)]
mod tests;

pub(super) use ctx::release;

use std::collections::HashMap;

use rhai::{AST, ASTNode, Dynamic, Engine, EvalAltResult, ImmutableString, ScriptFuncDef, Shared};

pub(crate) use ctx::Ctx;
use ctx::Res;
use expr::FnCompiler;
use stmt::Flow;

use super::natives::Natives;
use crate::rules::defs::Defs;

/// A compiled expression: evaluates to a value.
type Eval = Box<dyn Fn(&mut Ctx) -> Res<Dynamic>>;
/// A compiled statement: runs, and says how control goes on.
type Exec = Box<dyn Fn(&mut Ctx) -> Res<Flow>>;

/// Why a construct cannot be compiled (the function falls back to Rhai).
type Unsupported = String;
type C<T> = Result<T, Unsupported>;

/// One compiled script function.
struct Function {
    name: ImmutableString,
    /// Frame slots: `this`, the parameters, then every local.
    slots: usize,
    body: Exec,
    /// Compiled functions this one calls (indices into `Program::functions`).
    callees: Vec<usize>,
    /// The parameters it never writes (bit k: parameter k).
    read_only: u8,
    /// The parameters whose value it never changes, in place or by assignment (bit k:
    /// parameter k).
    unchanged: u8,
}

/// A script function left to Rhai, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// The function's name.
    pub function: String,
    /// Why it is not compiled, in a sentence.
    pub reason: String,
}

/// A ruleset's compiled script functions.
pub(crate) struct Program {
    /// Every script function, by index; `None` for one left to Rhai.
    functions: Vec<Option<Function>>,
    /// For each hook (by `HookId`), the compiled function running it, if it and everything it
    /// calls are compiled.
    pub(crate) hooks: Vec<Option<usize>>,
    /// The functions left to Rhai, and why.
    pub(crate) fallbacks: Vec<Fallback>,
    /// The script functions as Rhai holds them, and the scripts' source, for Rhai's functions
    /// that call a script function back (see `ctx::Calls`).
    lib: Shared<rhai::Module>,
    source: Option<ImmutableString>,
    /// The scripts that index strings, integers and other values (see `index.rs`).
    indexers: index::Kept,
    /// Results of calls made with plain values only (see `memo.rs`).
    memo: memo::Memo,
}

impl Program {
    /// Compiles every script function of the scripts' merged syntax tree that the compiler
    /// covers.
    pub(crate) fn compile(ast: &AST, natives: &Natives, rules: &Defs, hooks: &[(&str, usize)]) -> Program {
        let defs: Vec<Shared<ScriptFuncDef>> = ast.iter_fn_def().cloned().collect();
        let index: HashMap<(ImmutableString, usize), usize> =
            defs.iter().enumerate().map(|(i, f)| ((f.name.clone(), f.params.len()), i)).collect();
        let inlinable = inline::inlinable_functions(&defs);
        let mut building: Vec<Building> = defs
            .iter()
            .map(|f| Building {
                fc: FnCompiler::new(&index, natives, rules, &f.params, &inlinable),
                body: Vec::new(),
                failed: None,
            })
            .collect();
        feed_bodies(&defs, &mut building);
        let mut functions = Vec::with_capacity(defs.len());
        let mut reasons: Vec<Option<String>> = Vec::with_capacity(defs.len());
        for (b, f) in building.into_iter().zip(&defs) {
            match b.failed {
                None => {
                    functions.push(Some(Function {
                        name: f.name.clone(),
                        slots: b.fc.max_slots(),
                        callees: b.fc.callees(),
                        read_only: b.fc.read_only_params(),
                        unchanged: b.fc.unchanged_params(),
                        body: stmt::sequence(b.body),
                    }));
                    reasons.push(None);
                }
                Some(why) => {
                    functions.push(None);
                    reasons.push(Some(why));
                }
            }
        }
        // A function runs compiled only if everything it calls does: compiled code never calls
        // back into Rhai's interpreter for a script function.
        let mut runnable: Vec<bool> = functions.iter().map(Option::is_some).collect();
        loop {
            let mut changed = false;
            for i in 0..functions.len() {
                if !runnable[i] {
                    continue;
                }
                let callees = functions[i].as_ref().map(|f| f.callees.as_slice()).unwrap_or_default();
                if let Some(&bad) = callees.iter().find(|&&c| !runnable[c]) {
                    runnable[i] = false;
                    reasons[i] = Some(if defs[bad].name.starts_with("anon$") {
                        // A closure has no name to give: say why it runs on Rhai instead.
                        let why = reasons[bad].clone().unwrap_or_default();
                        format!("a closure it makes runs on Rhai ({why})")
                    } else {
                        format!("it calls `{}`, which runs on Rhai", defs[bad].name)
                    });
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut fallbacks: Vec<Fallback> = defs
            .iter()
            .zip(&reasons)
            .filter_map(|(f, r)| r.as_ref().map(|r| Fallback { function: f.name.to_string(), reason: r.clone() }))
            .collect();
        fallbacks.sort_by(|a, b| a.function.cmp(&b.function));
        let hooks = hooks
            .iter()
            .map(|&(name, arity)| index.get(&(ImmutableString::from(name), arity)).copied().filter(|&i| runnable[i]))
            .collect();
        Program {
            functions,
            hooks,
            fallbacks,
            lib: ast.shared_lib().clone(),
            source: ast.source().map(Into::into),
            indexers: index::Kept::new(),
            memo: memo::Memo::default(),
        }
    }

    /// The parameters of compiled function `f` that it never writes (bit k: parameter k).
    pub(super) fn read_only_params(&self, f: usize) -> u8 {
        self.functions.get(f).and_then(Option::as_ref).map_or(0, |f| f.read_only)
    }

    /// The parameters of compiled function `f` whose value it never changes (bit k: parameter
    /// k): a list or a map may be lent to them.
    pub(super) fn unchanged_params(&self, f: usize) -> u8 {
        self.functions.get(f).and_then(Option::as_ref).map_or(0, |f| f.unchanged)
    }

    /// Runs compiled function `f` as a hook, with its arguments, the way Rhai's `call_fn` would:
    /// errors inside come out wrapped in the hook's name.
    /// Also gives back the handle and the other argument as the hook left them (a hook may
    /// assign to its parameters).
    pub(crate) fn run_hook(
        &self,
        engine: &Engine,
        f: usize,
        handle: Dynamic,
        extra: Option<Dynamic>,
    ) -> (Res<Dynamic>, Option<Dynamic>, Option<Dynamic>) {
        let mut ctx = Ctx::new(self, engine);
        let result = ctx.call_function(f, handle, extra, rhai::Position::NONE);
        let handle = ctx.handle_back.take();
        let extra = ctx.extra_back.take();
        ctx.finish();
        (result, handle, extra)
    }
}

/// A script function being compiled: its compiler, the statements so far, or why it cannot be.
struct Building<'a> {
    fc: FnCompiler<'a>,
    body: Vec<Exec>,
    failed: Option<String>,
}

/// Compiles the body of each function.
///
/// Rhai does not let a function's body be read directly, but it walks every statement of a
/// syntax tree in order: each function is put alone in a tree of its own (cheap: the body is
/// shared), whose top-level statements are then exactly the function's.
fn feed_bodies(defs: &[Shared<ScriptFuncDef>], building: &mut [Building]) {
    let mut by_name: HashMap<&ImmutableString, Vec<usize>> = HashMap::new();
    for (i, f) in defs.iter().enumerate() {
        by_name.entry(&f.name).or_default().push(i);
    }
    for (i, f) in defs.iter().enumerate() {
        let mut module = rhai::Module::new();
        module.set_script_fn(f.clone());
        let alone = AST::new([], module);
        let b = &mut building[i];
        let mut pointed = Vec::new();
        // The last of the body's statements gives the function's value (see `tail_stmt`).
        let mut statements = 0;
        alone.walk(&mut |path: &[ASTNode]| {
            statements += usize::from(matches!(path, [ASTNode::Stmt(_)]));
            true
        });
        alone.walk(&mut |path: &[ASTNode]| {
            if let [ASTNode::Stmt(s)] = path
                && b.failed.is_none()
            {
                let last = b.body.len() + 1 == statements;
                match if last { b.fc.tail_stmt(s) } else { b.fc.stmt(s) } {
                    Ok(e) => b.body.push(e),
                    Err(why) => b.failed = Some(why),
                }
            }
            if let Some(ASTNode::Expr(rhai::Expr::DynamicConstant(v, _))) = path.last() {
                pointers(v, &mut pointed);
            }
            true
        });
        // A function pointer the function makes (a closure, `Fn("name")` of a literal name)
        // counts as a call of the functions it may mean: Rhai's functions call them back on
        // the interpreter (see `ctx::Calls`), and what they give back must be values compiled
        // code can use (see `expr::ITERATORS`).
        for name in &pointed {
            b.fc.points_to(by_name.get(name).into_iter().flatten().copied());
        }
    }
}

/// The names of the function pointers in a constant value, through arrays and maps.
fn pointers(v: &Dynamic, out: &mut Vec<ImmutableString>) {
    if let Some(f) = v.read_lock::<rhai::FnPtr>() {
        out.push(f.fn_name().into());
    } else if let Some(list) = v.read_lock::<rhai::Array>() {
        list.iter().for_each(|v| pointers(v, out));
    } else if let Some(map) = v.read_lock::<rhai::Map>() {
        map.values().for_each(|v| pointers(v, out));
    }
}

/// The error Rhai gives for a value of the wrong type (`expected` as a Rust type name).
fn mismatch(engine: &Engine, expected: &str, found: &str, pos: rhai::Position) -> Box<EvalAltResult> {
    EvalAltResult::ErrorMismatchDataType(engine.map_type_name(expected).to_string(), found.to_string(), pos).into()
}
