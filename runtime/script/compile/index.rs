//! Indexing what is neither an array nor a map: a string's characters (`s[0]`, `s[1..3]`,
//! `s[0] = 'z'`), an integer's bits (`v[1]`, `v[0..4] = 3`), a blob's bytes, and values of other
//! types (whose error Rhai words). Rhai does that inside its interpreter, with rules of its own
//! (a negative index counts from the end when read, a character written at a negative index
//! goes where the same positive index is, each kind of target takes a value of one kind), and
//! offers no function to call for it: so the compiled code hands such a step to Rhai as a small
//! script of its own, `t[i]` or `t[i] op= v; t`, and places the errors where the script's own
//! code is. Arrays and maps, which scripts index all the time, are indexed in place (`chain.rs`).

use std::cell::OnceCell;
use std::fmt::Write as _;

use rhai::{AST, CallFnOptions, Dynamic, Engine, EvalAltResult, Position, Scope};

use super::ctx::{Ctx, Res};

/// Every assignment operator an index can be assigned with.
const ASSIGNMENTS: [&str; 12] = ["=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", "&=", "|=", "^="];

/// The part of an indexing that a line of the scripts stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Other,
    /// The variable the chain starts at.
    Root,
    /// The `[`.
    Bracket,
    /// The index.
    Index,
    /// The assignment operator.
    Assign,
}

/// Where the parts of an indexing are in the script being run.
#[derive(Clone, Copy)]
pub(super) struct Places {
    pub(super) root: Position,
    pub(super) bracket: Position,
    pub(super) index: Position,
    pub(super) assign: Position,
}

/// The scripts that index, compiled once for a ruleset's engine, and what each of their lines
/// stands for: every part is written on a line of its own, so that the line of an error's
/// position says which part it is at.
pub(super) struct Indexers {
    /// The scripts; `None` if they did not compile (a bug, which every indexing then reports).
    ast: Option<AST>,
    lines: Vec<Part>,
}

impl Indexers {
    fn new(engine: &Engine, source: Option<&str>) -> Indexers {
        let mut text = String::new();
        // Line 1 is the first; `lines[n]` is what line n stands for.
        let mut lines = vec![Part::Other];
        let mut line = |text: &mut String, part: Part, code: &str| {
            let _ = writeln!(text, "{code}");
            lines.push(part);
        };
        line(&mut text, Part::Other, "fn get(t, i) {");
        line(&mut text, Part::Root, "t");
        line(&mut text, Part::Bracket, "[");
        line(&mut text, Part::Index, "i");
        line(&mut text, Part::Other, "]");
        line(&mut text, Part::Other, "}");
        for (k, op) in ASSIGNMENTS.iter().enumerate() {
            line(&mut text, Part::Other, &format!("fn set{k}(t, i, v) {{"));
            line(&mut text, Part::Root, "t");
            line(&mut text, Part::Bracket, "[");
            line(&mut text, Part::Index, "i");
            line(&mut text, Part::Other, "]");
            line(&mut text, Part::Assign, op);
            line(&mut text, Part::Other, "v;");
            line(&mut text, Part::Other, "t");
            line(&mut text, Part::Other, "}");
        }
        let ast = engine.compile(&text).ok().map(|mut ast| {
            if let Some(source) = source {
                ast.set_source(source);
            }
            ast
        });
        Indexers { ast, lines }
    }

    /// Runs script function `name` with `args`, the errors placed in the script being run.
    fn run(&self, engine: &Engine, name: &str, args: impl rhai::FuncArgs, places: Places) -> Res<Dynamic> {
        let Some(ast) = &self.ast else {
            return Err("internal: the indexing scripts do not compile".into());
        };
        let options = CallFnOptions::new().eval_ast(false).rewind_scope(false);
        engine.call_fn_with_options::<Dynamic>(options, &mut Scope::new(), ast, name, args).map_err(|mut e| {
            self.place(&mut e, places);
            e
        })
    }

    /// Moves an error's positions from these scripts to the script being run.
    fn place(&self, err: &mut EvalAltResult, places: Places) {
        if let EvalAltResult::ErrorInFunctionCall(_, _, inner, _) = err {
            self.place(inner, places);
        }
        let part = err.position().line().and_then(|l| self.lines.get(l)).copied().unwrap_or(Part::Other);
        let to = match part {
            Part::Root => places.root,
            Part::Bracket => places.bracket,
            Part::Index => places.index,
            Part::Assign => places.assign,
            Part::Other => return,
        };
        err.set_position(to);
    }
}

/// The indexing scripts of a ruleset, compiled at their first use.
pub(super) type Kept = OnceCell<Indexers>;

fn indexers<'c>(c: &'c Ctx) -> &'c Indexers {
    c.prog().indexers.get_or_init(|| Indexers::new(c.engine, c.prog().source.as_deref()))
}

/// `target[idx]`, read.
pub(super) fn get(c: &mut Ctx, target: &Dynamic, idx: Dynamic, places: Places) -> Res<Dynamic> {
    indexers(c).run(c.engine, "get", (target.clone(), idx), places)
}

/// `target[idx] op= value` (`op` as written, `=` for a plain assignment).
pub(super) fn set(
    c: &mut Ctx,
    target: &mut Dynamic,
    idx: Dynamic,
    op: &str,
    value: Dynamic,
    places: Places,
) -> Res<()> {
    let Some(k) = ASSIGNMENTS.iter().position(|a| *a == op) else {
        return Err(format!("internal: no indexing for `{op}`").into());
    };
    *target = indexers(c).run(c.engine, &format!("set{k}"), (target.clone(), idx, value), places)?;
    Ok(())
}
