//! The Rhai engine a ruleset's scripts run on: its limits, the natives registered on it, the
//! compilation of the script files with parameters as constants, and the diagnostics that name
//! where a script failed.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use rhai::{AST, Engine, EvalAltResult, Position, Scope};

use super::compile::Program;
use super::natives::{Natives, Registry};
use super::{MAX_CALL_LEVELS, MAX_DATA_SIZE, MAX_DEPTH, MAX_OPERATIONS, Scripts, TOO_DEEP};
use crate::diag::{Diagnostic, Error, FileId};
use crate::rules::defs::Defs;

/// A Rhai engine with the scripts' limits and every native function registered: the `Game`
/// handle's, the `View` handle's and the helpers on plain values.
pub(super) fn new_engine() -> (Engine, Natives) {
    let mut engine = Engine::new();
    let mut natives = Natives::default();
    engine.set_optimization_level(rhai::OptimizationLevel::Simple);
    engine.set_strict_variables(true);
    engine.set_max_operations(MAX_OPERATIONS);
    engine.set_max_call_levels(MAX_CALL_LEVELS);
    engine.set_max_expr_depths(64, 32);
    engine.set_max_string_size(MAX_DATA_SIZE);
    engine.set_max_array_size(MAX_DATA_SIZE);
    engine.set_max_map_size(MAX_DATA_SIZE);
    // Rhai's interpreter copies a variable's value to use it, at a cost its operation count
    // does not see: a value nested past `MAX_DEPTH` is refused when a variable holding it is
    // read, so that a loop wrapping a value in itself stops within a few rounds. (Compiled
    // scripts refuse it where it is built: `compile::ctx::over_limit`.)
    #[allow(deprecated)] // Rhai marks `on_var` "volatile" this way.
    engine.on_var(|name, index, context| {
        let scope = context.scope();
        let value = match index {
            0 => scope.get(name),
            // The variable's place counting from the last, which `iter_raw` gives first.
            i => scope.iter_raw().nth(i - 1).map(|(_, _, v)| v),
        };
        match value {
            Some(v) if (v.is_array() || v.is_map()) && super::nests_deeper(v, MAX_DEPTH) => {
                Err(EvalAltResult::ErrorDataTooLarge(TOO_DEEP.to_string(), Position::NONE).into())
            }
            _ => Ok(None),
        }
    });
    engine.on_print(|_| {});
    engine.on_debug(|_, _, _| {});
    let mut registry = Registry { engine: &mut engine, natives: &mut natives };
    super::game_api::register(&mut registry);
    super::view_api::register(&mut registry);
    super::values::register_helpers(&mut registry);
    (engine, natives)
}

impl Scripts {
    /// Compiles the script files in order, and checks that every hook the definitions name exists
    /// with the right arity. The first `base` files are the ruleset's own scripts: a function
    /// defined in two of them is an error (the later would silently replace the earlier for
    /// every caller). The files after them are variants' scripts, whose functions replace the
    /// base ones of the same name and arity on purpose.
    pub(crate) fn compile(defs: Rc<Defs>, files: &[FileId], base: usize) -> Result<Scripts, Error> {
        let (engine, natives) = new_engine();

        // Parameters are constants of the scripts: the optimizer folds them into the code, so
        // `goal` costs nothing at run time (`--set` takes effect because scripts are
        // compiled at each load).
        // Only numbers and words: Rhai folds those into functions, but not arrays or maps, which
        // would then be missing at run time. Lists and tables are read with `game.param`, and a
        // script naming one as a variable fails to compile (strict variables).
        let mut constants = Scope::new();
        for (name, value) in &defs.param_values {
            if is_identifier(name) && (value.is_int() || value.is_string()) {
                constants.push_constant_dynamic(name.clone(), value.clone());
            }
        }
        let mut ast = AST::empty();
        let mut fn_file = HashMap::new();
        let mut base_functions: HashMap<(String, usize), (FileId, usize)> = HashMap::new();
        let mut diags = Vec::new();
        for (i, &file) in files.iter().enumerate() {
            match engine.compile_with_scope(&constants, defs.sources.text(file)) {
                Ok(mut part) => {
                    part.set_source(defs.sources.path(file).display().to_string());
                    let defined_at = definition_offsets(defs.sources.text(file));
                    for f in part.iter_functions() {
                        let at = defined_at.get(f.name).copied().unwrap_or(0);
                        fn_file.insert(f.name.to_string(), (file, at));
                        if let Some(d) = takes_a_natives_place(&natives, f.name, f.params.len(), file, at) {
                            diags.push(d);
                        }
                        if i >= base {
                            continue;
                        }
                        let key = (f.name.to_string(), f.params.len());
                        if let Some(&(first, first_at)) = base_functions.get(&key)
                            && first != file
                        {
                            let (line, _) = defs.sources.line_col(first, first_at);
                            diags.push(
                                Diagnostic::new(format!(
                                    "`{}` with {} is defined in two scripts: this one would replace the one of {}:{line} for every caller",
                                    f.name,
                                    crate::diag::counted(f.params.len(), "argument"),
                                    defs.sources.path(first).display()
                                ))
                                // `fn name`, from where the definition starts.
                                .at(file, at..at + 3 + f.name.len())
                                .expected("one definition: rename one of them (scripts share one namespace)"),
                            );
                        } else {
                            base_functions.insert(key, (file, at));
                        }
                    }
                    ast = ast.merge(&part);
                }
                Err(e) => {
                    // Rhai stops at the first reserved word; name them all at once, and Rhai's
                    // own error too when it is about something else on another line.
                    let (reserved, lines) = reserved_words_used(&engine, &defs, file);
                    diags.extend(reserved);
                    let pos = e.position();
                    if lines.contains(&pos.line().unwrap_or(0)) {
                        continue;
                    }
                    let offset = defs.sources.offset(file, pos.line().unwrap_or(1), pos.position().unwrap_or(1));
                    diags.push(
                        Diagnostic::new(format!("script does not compile: {}", e.err_type()))
                            .at(file, offset..offset + 1)
                            .expected("valid Rhai"),
                    );
                }
            }
        }
        let functions: Vec<(String, usize)> =
            ast.iter_functions().map(|f| (f.name.to_string(), f.params.len())).collect();
        // A script that does not compile hides its functions: do not report them as missing.
        let hooks = if diags.is_empty() { defs.hooks.as_slice() } else { &[] };
        for h in hooks {
            if !functions.iter().any(|(n, a)| *n == h.name && *a == h.arity) {
                let similar: Vec<String> = functions
                    .iter()
                    .filter(|(n, _)| *n == h.name)
                    .map(|(n, a)| format!("{n} with {}", crate::diag::counted(*a, "argument")))
                    .collect();
                let hint = if similar.is_empty() {
                    crate::diag::did_you_mean(
                        &h.name,
                        functions.iter().filter(|(_, a)| *a == h.arity).map(|(n, _)| n.as_str()),
                    )
                } else {
                    String::new()
                };
                let arguments = crate::diag::counted(h.arity, "argument");
                let mut d = Diagnostic::new(format!("no script function `{}` taking {arguments}{hint}", h.name))
                    .at(h.file, h.span.clone())
                    .expected(format!(
                        "fn {}({}) in one of the ruleset's scripts",
                        h.name,
                        if h.arity == 1 { "game" } else { "game, args" }
                    ));
                if !similar.is_empty() {
                    d = d.found(similar.join(", "));
                }
                diags.push(d);
            }
        }
        if !diags.is_empty() {
            return Err(Error::Ruleset(diags, Box::new(defs.sources.clone())));
        }
        let program = (std::env::var_os("TABULA_INTERPRET").is_none_or(|v| v.is_empty() || v == "0")).then(|| {
            let hooks: Vec<(&str, usize)> = defs.hooks.iter().map(|h| (h.name.as_str(), h.arity)).collect();
            Program::compile(&ast, &natives, &defs, &hooks)
        });
        Ok(Scripts {
            program,
            engine,
            ast,
            cell: Rc::new(RefCell::new(Box::default())),
            defs,
            work: Rc::new(Cell::new(0)),
            scratch: Rc::default(),
            names: Rc::default(),
            fn_file,
            scope: RefCell::new(Scope::new()),
            handle: Cell::new(None),
            view_handle: Cell::new(None),
            args_maps: Default::default(),
            option_maps: Default::default(),
            touched: Rc::default(),
            listing: Cell::new(false),
            kept_copy: Cell::new(false),
            kept_listings: Default::default(),
        })
    }

    /// Turns a Rhai error into a diagnostic naming the script file, line and column where it
    /// happened (the innermost function call) and the hook that was running.
    ///
    /// Rhai reports where a script reached one of its limits (operations, call depth, data
    /// sizes) only as far as the function the limit was reached in: every function call on the
    /// way out replaces the position with its own, and the hook's own call, from here, has none.
    /// Such errors point at the definition of the hook that was running.
    pub(super) fn diagnose(&self, hook: &str, err: &EvalAltResult) -> Diagnostic {
        let mut function = hook.to_string();
        let mut position = Position::NONE;
        let mut e = err;
        // Positions inside `eval` count in the evaluated text, not in the script: the call to
        // `eval` is the place to show.
        let mut in_eval = false;
        while let EvalAltResult::ErrorInFunctionCall(name, _, inner, pos) = e {
            if !in_eval {
                if !name.is_empty() && self.fn_file.contains_key(name.as_str()) {
                    function = name.clone();
                }
                if !pos.is_none() {
                    position = *pos;
                }
            }
            in_eval |= name == "eval";
            e = inner;
        }
        if !in_eval && !e.position().is_none() {
            position = e.position();
        }
        let message = match e {
            EvalAltResult::ErrorRuntime(v, _) => v.to_string(),
            EvalAltResult::ErrorTooManyOperations(_) => {
                format!("the script ran more than {MAX_OPERATIONS} operations (an endless loop?)")
            }
            EvalAltResult::ErrorStackOverflow(_) => {
                format!("script functions called each other more than {MAX_CALL_LEVELS} deep (an endless recursion?)")
            }
            EvalAltResult::ErrorDataTooLarge(what, _) if what == TOO_DEEP => {
                format!("a script value grew too large: arrays and maps nested more than {MAX_DEPTH} deep")
            }
            EvalAltResult::ErrorDataTooLarge(what, _) => {
                format!("a script value grew too large: {} above {MAX_DATA_SIZE}", what.to_lowercase())
            }
            other => other.to_string().split(" (line ").next().unwrap_or_default().to_string(),
        };
        let mut d = Diagnostic::new(format!("{message} (in hook `{hook}`)"));
        match (self.fn_file.get(&function), position.line()) {
            (Some(&(file, _)), Some(line)) => {
                let offset = self.defs.sources.offset(file, line, position.position().unwrap_or(1));
                d = d.at(file, offset..offset + 1);
            }
            (Some(&(file, defined)), None) => {
                // A runaway loop is the likely place of too many operations: show the loops of
                // the function, the first one as the place.
                let text = self.defs.sources.text(file);
                let loops = match e {
                    EvalAltResult::ErrorTooManyOperations(_) => loops_in_function(&self.engine, text, defined),
                    _ => Vec::new(),
                };
                match loops.first() {
                    Some(&(at, len)) => {
                        let lines: Vec<String> = loops
                            .iter()
                            .map(|&(at, _)| text[..at].matches('\n').count().saturating_add(1).to_string())
                            .collect();
                        d = d.at(file, at..at + len).note(format!(
                            "the script engine does not say where in `{function}` it stopped; its loops are on line{} {}",
                            if lines.len() == 1 { "" } else { "s" },
                            lines.join(", ")
                        ));
                    }
                    None => {
                        d = d.at(file, defined..defined + 2).note(format!(
                            "the script engine does not say where in `{function}` it stopped: this is where `{function}` begins"
                        ));
                    }
                }
            }
            (None, _) => {}
        }
        d
    }
}

/// The loops (`loop`, `while`, `do`, `for`) of the function whose definition starts at byte
/// `defined` of `text`, as (byte offset, length) of their keywords, in order: from the
/// definition's first `{` to the brace that closes it.
fn loops_in_function(engine: &Engine, text: &str, defined: usize) -> Vec<(usize, usize)> {
    let Some(body) = text.get(defined..) else { return Vec::new() };
    // Byte offsets of the lines of `body`, to turn the lexer's line and column into an offset.
    let line_starts: Vec<usize> = std::iter::once(0).chain(body.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let inputs = [body];
    let (tokens, _) = engine.lex(&inputs);
    let mut depth = 0usize;
    let mut loops = Vec::new();
    for (token, pos) in tokens.take(body.len() + 1) {
        let keyword = match token {
            rhai::Token::EOF => break,
            rhai::Token::LeftBrace => {
                depth += 1;
                continue;
            }
            rhai::Token::RightBrace => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
                continue;
            }
            rhai::Token::Loop => "loop",
            rhai::Token::While => "while",
            rhai::Token::Do => "do",
            rhai::Token::For => "for",
            _ => continue,
        };
        let (Some(line), Some(column)) = (pos.line(), pos.position()) else { continue };
        // Rhai counts columns in characters, from 1.
        let Some(&start) = line_starts.get(line - 1) else { continue };
        let offset = body[start..].char_indices().nth(column - 1).map_or(start, |(i, _)| start + i);
        loops.push((defined + offset, keyword.len()));
    }
    loops
}

/// Rhai's keywords that are also its own functions (`print("x")`, `Fn("f")`, `this`): a script
/// may write them as calls, so they are a mistake only where the script names something.
const KEYWORD_FUNCTIONS: &[&str] =
    &["print", "debug", "type_of", "call", "curry", "eval", "Fn", "is_def_var", "is_def_fn", "is_shared", "this"];

/// Every word of a script file that Rhai reserves (`match`, `go`, `with`...) and that the script
/// uses as a name, each with its place and a word to use instead, and the lines they are on:
/// Rhai's own error names only the first, and a designer would find the others one `check` at a
/// time.
/// A script function that would answer the method calls of a native of the `game` or `view`
/// handle: Rhai binds `this` to the handle in `game.move(card, "discard")` and looks for a
/// script function `move` of two parameters first, so `fn move(game, args)` (an `apply` hook
/// named after the rule) would be called in the native's place, with the handle lost.
fn takes_a_natives_place(
    natives: &super::natives::Natives,
    name: &str,
    params: usize,
    file: crate::diag::FileId,
    at: usize,
) -> Option<Diagnostic> {
    use std::any::TypeId;
    let handles = [TypeId::of::<super::game_api::GameApi>(), TypeId::of::<super::view_api::SeatView>()];
    let native = natives.with_arity(name, params + 1);
    let (types, _) = native.iter().find(|(types, _)| types.first().is_some_and(|t| handles.contains(t)))?;
    let handle = if types[0] == handles[0] { "game" } else { "view" };
    let arguments: Vec<String> = (0..params).map(|i| ((b'a' + i as u8) as char).to_string()).collect();
    Some(
        Diagnostic::new(format!(
            "`{name}` with {} takes the place of the native `{handle}.{name}` wherever a script calls `{handle}.{name}({})`",
            crate::diag::counted(params, "argument"),
            arguments.join(", ")
        ))
        .at(file, at..at + 3 + name.len())
        .expected(format!("another name for the function (Rhai calls a script function of the same name and arguments before a native): `{name}_{}` or a name from the rulebook", if handle == "game" { "rule" } else { "choice" })),
    )
}

fn reserved_words_used(engine: &Engine, defs: &Defs, file: crate::diag::FileId) -> (Vec<Diagnostic>, Vec<usize>) {
    let text = defs.sources.text(file);
    let inputs = [text];
    let (tokens, _) = engine.lex(&inputs);
    let mut out = Vec::new();
    let mut lines = Vec::new();
    let mut previous = rhai::Token::EOF;
    // Every token takes at least one byte, so the count bounds the loop whatever the lexer does.
    for (token, pos) in tokens.take(text.len() + 1) {
        // The lexer keeps answering end-of-input once the text is read.
        if token == rhai::Token::EOF {
            break;
        }
        let naming = matches!(previous, rhai::Token::Let | rhai::Token::Const | rhai::Token::Fn | rhai::Token::Period);
        previous = token.clone();
        let rhai::Token::Reserved(word) = token else { continue };
        if !word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        if KEYWORD_FUNCTIONS.contains(&word.as_str()) && !naming {
            continue;
        }
        lines.push(pos.line().unwrap_or(0));
        let instead = if word.as_str() == "goto" { "go_to".to_string() } else { format!("{word}_") };
        let offset = defs.sources.offset(file, pos.line().unwrap_or(1), pos.position().unwrap_or(1));
        out.push(
            Diagnostic::new(format!(
                "`{word}` is a word Rhai reserves: it cannot name a function, a variable or a property"
            ))
            .at(file, offset..offset + word.len())
            .expected(format!("another name, such as `{instead}`"))
            .found(format!("`{word}`")),
        );
    }
    (out, lines)
}

/// Whether a parameter name can be a script constant: a Rhai identifier that is not one of
/// Rhai's keywords or reserved words (those parameters stay reachable with `game.param`).
fn is_identifier(name: &str) -> bool {
    const RESERVED: &[&str] = &[
        "as",
        "async",
        "await",
        "break",
        "call",
        "case",
        "catch",
        "const",
        "continue",
        "curry",
        "debug",
        "default",
        "do",
        "else",
        "eval",
        "exit",
        "export",
        "false",
        "fn",
        "Fn",
        "for",
        "global",
        "go",
        "goto",
        "if",
        "import",
        "in",
        "is_def_fn",
        "is_def_var",
        "is_shared",
        "let",
        "loop",
        "match",
        "module",
        "new",
        "nil",
        "null",
        "package",
        "print",
        "private",
        "protected",
        "public",
        "return",
        "shared",
        "spawn",
        "static",
        "super",
        "switch",
        "sync",
        "this",
        "thread",
        "throw",
        "true",
        "try",
        "type_of",
        "until",
        "use",
        "var",
        "void",
        "while",
        "with",
        "yield",
    ];
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&name)
}

/// The byte offset of the last definition of each script function in `text` (`fn name(`),
/// where a later definition replaces an earlier one, found in one walk over the text (looking
/// each function up in turn walked the whole text once a function: 40 million instructions at
/// each load of a ruleset of 1,800 lines).
fn definition_offsets(text: &str) -> HashMap<&str, usize> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut offsets = HashMap::new();
    for (at, _) in text.match_indices("fn") {
        if text[..at].ends_with(is_ident) {
            continue;
        }
        let rest = &text[at + 2..];
        let after_space = rest.trim_start_matches([' ', '\t']);
        if after_space.len() == rest.len() {
            continue;
        }
        let name_len = after_space.find(|c: char| !is_ident(c)).unwrap_or(after_space.len());
        let (name, after_name) = after_space.split_at(name_len);
        if !name.is_empty() && after_name.trim_start_matches([' ', '\t']).starts_with('(') {
            offsets.insert(name, at);
        }
    }
    offsets
}

#[cfg(test)]
mod tests {
    use super::definition_offsets;

    #[test]
    fn each_function_is_found_where_its_last_definition_begins() {
        let text = "fn begin(game) { often(game) }\n// a fn in a comment: fn\nfn  often\t(x) { x }\nfn oftener(x) { x }\nfnx(1);\nfn begin (game) { 2 }\n";
        let offsets = definition_offsets(text);
        // The later `begin` replaces the earlier one.
        assert_eq!(offsets.get("begin"), text.rfind("fn begin").as_ref());
        assert_eq!(offsets.get("often"), text.find("fn  often").as_ref());
        // A name that begins with another's is a name of its own.
        assert_eq!(offsets.get("oftener"), text.find("fn oftener").as_ref());
        // `fn` inside a word, or not followed by a space, defines nothing.
        assert_eq!(offsets.get("x"), None);
        assert_eq!(offsets.len(), 3, "{offsets:?}");
    }
}
