//! The scripts compiler against Rhai's interpreter, over Rhai's language and standard library:
//! snippets generated from the tables below (every operator on every pair of kinds of value,
//! indexing, every iterable `for` takes, the callbacks of arrays and maps...) each run as a hook,
//! compiled and interpreted, must give the same value, or the same error at the same place.
//!
//! A snippet the compiler leaves to Rhai runs on the interpreter both ways: the test also checks
//! that what is left to Rhai is only what `tabula check` says is (function pointers made with
//! `Fn`, `curry`, `call`...), so that a form cannot pass by being left out.

use std::fmt::Write as _;
use std::rc::Rc;

use rhai::{AST, CallFnOptions, Dynamic, Engine, EvalAltResult, Scope};

use super::Program;
use crate::rules::defs::Defs;
use crate::script::engine::new_engine;
use crate::script::game_api::GameApi;

/// A value of each kind a script can hold, as an expression. (Rhai's other iterators, whose
/// functions are left to Rhai, are walked by `for` below.)
const KINDS: &[&str] =
    &["7", "true", "'a'", "\"abc\"", "[1, 2]", "#{ a: 1 }", "()", "|x| x", "0..3", "blob(2, 7)", "game"];

/// Integers at the edges of arithmetic (overflow, division by zero, shifts past the width).
const INTS: &[&str] = &["7", "-2", "0", "64", "9223372036854775807", "-9223372036854775808"];

/// Every binary operator.
const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "**", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=", "in", "??", "..", "..=",
];

/// Every operator-assignment.
const ASSIGNMENTS: &[&str] = &["=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", "&=", "|=", "^="];

/// What is indexed, and with what.
const INDEXED: &[&str] = &[
    "\"abc\"",
    "\"héllo\"",
    "\"\"",
    "7",
    "-1",
    "[1, 2, 3]",
    "#{ a: 1 }",
    "blob(3, 9)",
    "true",
    "'c'",
    "()",
    "game",
    "0..3",
];
const INDICES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-3",
    "-4",
    "63",
    "64",
    "-64",
    "-65",
    "9223372036854775807",
    "-9223372036854775808",
    "\"a\"",
    "'a'",
    "0..2",
    "1..=2",
    "-2..-1",
    "2..1",
    "0..64",
    "0..=63",
    "60..70",
    "()",
    "true",
];
/// Values written through an index.
const WRITTEN: &[&str] = &["'z'", "true", "5", "\"zz\""];

/// What `for` walks.
const ITERABLES: &[&str] = &[
    "[1, \"two\", 'c']",
    "[]",
    "\"héllo\"",
    "\"\"",
    "0..4",
    "3..1",
    "1..=3",
    "3..=3",
    "range(0, 10, 3)",
    "range(10, 0, -1)",
    "range(10, 0, -3)",
    "range(0, 10, -1)",
    "range(0..10, 4)",
    "range(0, 10, 0)",
    "range(1, 4)",
    "bits(13)",
    "bits(13, 1)",
    "bits(13, 1, 2)",
    "bits(13, 0..3)",
    "bits(-1, 60)",
    "bits(1, 64)",
    "13.bits()",
    "\"héllo\".chars()",
    "chars(\"héllo\", 1)",
    "chars(\"héllo\", -2)",
    "chars(\"héllo\", 1, 2)",
    "chars(\"héllo\", 1..3)",
    "\"abc\".chars",
    "13.bits",
    "#{ a: 1, b: 2 }.keys()",
    "#{ a: 1, b: 2 }.values()",
    "blob(3, 200)",
    "7",
    "#{ a: 1 }",
    "()",
    "true",
    "game",
];

/// Callbacks of arrays: (method, extra arguments before the callback, callbacks).
const ARRAY_CALLBACKS: &[(&str, &str, &[&str])] = &[
    ("map", "", FORMS),
    ("filter", "", FORMS),
    ("all", "", FORMS),
    ("some", "", FORMS),
    ("find", "", FORMS),
    ("find_map", "", FORMS),
    ("retain", "", FORMS),
    ("drain", "", FORMS),
    ("index_of", "", FORMS),
    ("for_each", "", FORMS),
    ("reduce", "", REDUCERS),
    ("reduce", "0, ", REDUCERS),
    ("reduce_rev", "", REDUCERS),
    ("reduce_rev", "10, ", REDUCERS),
    ("sort", "", COMPARERS),
    ("dedup", "", COMPARERS),
];

/// Callbacks of maps.
const MAP_CALLBACKS: &[(&str, &str, &[&str])] =
    &[("map", "", PAIRS), ("filter", "", PAIRS), ("retain", "", PAIRS), ("drain", "", PAIRS)];

/// Callbacks taking an element (and its index).
const FORMS: &[&str] = &[
    "|x| x > 1",
    "|x, i| x > i",
    "|| this > 1",
    "|x, i, j| true",
    "Fn(\"above_one\")",
    "Fn(\"above_index\")",
    "Fn(\"this_above_one\")",
    "Fn(\"missing\")",
    "|x| x + \"a\" - 1",
    "|x| throw x",
    "|x| { this }",
    "Fn(\"above_index\").curry(5)",
];

/// Callbacks taking an accumulated value, an element (and its index).
const REDUCERS: &[&str] =
    &["|a, x| a + x", "|a, x, i| a + x * i", "|a| a", "Fn(\"add\")", "Fn(\"add_index\")", "|a, x| a + \"b\" - 1"];

/// Callbacks comparing two elements.
const COMPARERS: &[&str] = &["|a, b| b - a", "|a, b| a == b", "Fn(\"compare\")", "|a| 0"];

/// Callbacks of maps, taking a key and a value.
const PAIRS: &[&str] = &["|k, v| v > 1", "|k| k == \"a\"", "|k, v, w| true", "Fn(\"pair_above_one\")"];

/// Statements and calls on a value `a` of each kind: the functions of Rhai's library the
/// compiler computes itself (`len`, `is_empty`, `contains`, `push`, `min`...), properties,
/// conditions, `switch`, `??`, text, and errors caught.
const USES: &[&str] = &[
    "a.len()",
    "len(a)",
    "a.len",
    "a.is_empty()",
    "a.to_string()",
    "a.contains(1)",
    "a.contains(\"a\")",
    "1 in a",
    "\"a\" in a",
    "min(a, 3)",
    "max(3, a)",
    "a.push(1); a",
    "push(a, 1); a",
    "a.truncate(1); a",
    "a.starts_with(\"a\")",
    "a.sub_string(1, 2)",
    "a.keys()",
    "a.foo",
    "a.foo = 1; a",
    "a.foo += 1; a",
    "a.foo.bar",
    "`<${a}>`",
    "\"x\" + a",
    "a + \"x\"",
    "a ?? 5",
    "if a { 1 } else { 2 }",
    "while a { break 3; }",
    "do { break; } while a",
    "switch a { 7 => 1, \"abc\" => 2, 'a' => 3, () => 4, true => 5, 0..10 => 6, _ => 7 }",
    // Comparisons as conditions (answered as booleans at once, see `condition.rs`), of every kind
    // against integers, texts, `()` and each other, and inside `&&` and `||`.
    "if a == 1 { 1 } else { 2 }",
    "if a < \"b\" { 1 } else { 2 }",
    "if 2 >= a { 1 } else { 2 }",
    "if a != () && a > 0 { 1 } else { 2 }",
    "if a == a || a { 1 } else { 2 }",
    "if a && a == 1 { 1 } else { 2 }",
    "let k = a <= a.len() && a != 2; k",
    "while a > 3 { break 3; }",
    "do { break; } while a != a",
    "switch 7 { 7 if a == 7 => 1, 7 if a => 2, _ => 3 }",
    // A map's property compared in place (see `condition.rs`), on a map holding each kind, on
    // each kind itself (a getter, an error), on either side.
    "let m = #{ foo: a }; if m.foo == 7 { 1 } else { 2 }",
    "let m = #{ foo: a }; if \"abc\" < m.foo { 1 } else { 2 }",
    "let m = #{ foo: a }; let k = a; if m.foo == k && k != m.foo { 1 } else { 2 }",
    "let m = #{ foo: a }; if m.bar != () || m.foo >= 0 { 1 } else { 2 }",
    "if a.foo == 1 { 1 } else { 2 }",
    "if a.len == 2 { 1 } else { 2 }",
    // `in` as a condition: a map's keys and a list's numbers and texts looked in where they
    // lie (see `condition.rs`), any other kind the native's way; a list of every kind, holding
    // `a` or not, looked in for `a` and for values of each kind.
    "if \"a\" in a { 1 } else { 2 }",
    "let l = [1, \"1\", true, (), 'a', [1], #{ a: 1 }]; if a in l { 1 } else { 2 }",
    "let l = [a, 2, \"b\"]; if a in l && !(3 in l) && \"b\" in l { 1 } else { 2 }",
    "let k = a; let l = [\"a\", 7, \"abc\"]; if k in l || contains(l, k) { 1 } else { 2 }",
    "let l = [-1, 0]; if a in l || 0 in l { 1 } else { 2 }",
    "if 1 in a { 1 } else { 2 }",
    "if 'a' in a { 1 } else { 2 }",
    "let k = \"a\"; if k in a && !(\"b\" in a) { 1 } else { 2 }",
    "if contains(a, \"a\") || a in #{ a: 1 } { 1 } else { 2 }",
    // `starts_with` as a condition: a text in a variable answered where it lies.
    "if a.starts_with(\"ab\") { 1 } else { 2 }",
    "let p = a; if \"abc\".starts_with(p) || a.starts_with(p) { 1 } else { 2 }",
    "if a.starts_with('a') { 1 } else { 2 }",
    "try { a + 1 } catch { 0 }",
    "try { throw a; } catch { 1 }",
    "throw a",
    "return a",
    "let b = a; b = 1; a",
    "let x = { a };\nx",
];

/// Scripts running into the limits: strings, arrays and maps growing past the size limit,
/// values nesting in themselves past the depth limit (each way a value can take in another).
/// Each stops with Rhai's error, after little work. (Endless loops are `errors_read_the_same`'s,
/// in `tests/it/compiled.rs`.)
const LIMITS: &[&str] = &[
    // A result remembered (`memo.rs`) is given back only where the call would pass the limits:
    // the second `busy` passes the operations limit, the `rec` inside `nest` the call depth.
    "busy(420000) + busy(420000)",
    "busy(420000) + busy(420000) + busy(420000)",
    "rec(30) + nest(30)",
    "rec(30) + nest(40)",
    "rec(30) + nest(20) + rec(30)",
    "let s = \"0123456789\"; loop { s += s; }",
    "let l = [\"0123456789\"]; loop { l[0] += l[0]; }",
    "let m = #{ s: \"0123456789\" }; loop { m.s += m.s; }",
    "let l = [1]; loop { l += l; }",
    "let m = #{}; loop { m = #{ a: m }; }",
    "let a = []; loop { a = [a]; }",
    "let m = #{}; loop { m.a = m; }",
    "let l = []; loop { l.push(l); }",
    "let l = []; loop { l += [l]; }",
    "let m = #{}; loop { m.a = #{ b: m }; }",
    "let l = [[]]; loop { l[0] = [l[0]]; }",
    "let a = []; loop { a = wrap(a); }",
    "let m = #{}; loop { m.grow(); }",
    "let a = []; for i in 0..63 { a = [a]; } a.len()",
    "let a = []; for i in 0..64 { a = [a]; } a.len()",
    // Pushes onto a list whose sizes the compiled code keeps from one push to the next, with
    // the list, or what it holds, grown in other ways between them.
    "let l = []; loop { l += \"0123456789\"; }",
    "let l = []; loop { l += 1; }",
    "let l = [[]]; loop { l += \"0123456789\"; l[0] += [1, 2, 3]; }",
    "let l = []; loop { l += 1; l.push(\"0123456789\"); }",
    "let l = [[]]; loop { l += 1; l.grow_first(); }",
    "let l = []; loop { l += pushed(); }",
    "let l = []; let a = []; loop { a = [a]; l += a; }",
    "let l = []; loop { l += #{ s: \"0123456789\" }; l[l.len() - 1].s += \"0123456789\"; }",
    "let l = []; let k = []; loop { l += 1; k = l; k += \"0123456789\"; l = k; }",
    // Lists appended (`l += other`), after which the sizes are known too, with pushes and
    // other growth between them.
    "let l = []; loop { l += [\"0123456789\"]; }",
    "let l = []; loop { l += [1, 2]; l += \"0123456789\"; }",
    "let l = []; loop { l += pushed(); l += [\"0123456789\", [1]]; }",
    "let l = [[]]; loop { l += [[1]]; l[0] += [1, 2, 3]; }",
    "let l = []; loop { l += [#{ s: \"0123456789\" }]; l[0].s += \"0123456789\"; }",
    "let l = []; let k = []; loop { l += []; k += [l.len()]; l += k; }",
    // Pushes onto two and three lists in turn (the sizes of two are kept, see `Ctx::sized`).
    "let l = []; let k = []; loop { l += \"0123456789\"; k += 1; }",
    "let l = []; let k = []; loop { k += [1]; l += \"0123456789\"; }",
    "let l = []; let k = []; let m = []; loop { l += \"0123456789\"; k += \"0123456789\"; m += 1; }",
    "let l = []; let k = []; loop { l += 1; k += l; }",
    // An integer or another list changed between two pushes (the list's sizes stay known).
    "let l = []; let i = 0; loop { l += \"0123456789\"; i += 1; l.push(i); }",
    "let l = []; let k = []; loop { l.push(\"0123456789\"); k += 1; l += [k.len()]; k = l; }",
    "let l = []; let k = [\"0123456789\"]; loop { l += k; k += l.len(); l += 1; }",
    // (Rhai's size errors say no position: a list given another's sizes shows as an error where
    // there is none.)
    "let l = []; let k = []; for i in 0..950 { l += [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]; k += \"x\"; } k.len()",
    // Natives that only read the list or map they are given (its size is not checked again).
    "let l = []; loop { l += \"0123456789\"; if \"x\" in l { break; } l.len(); }",
    "let m = #{}; loop { m[`k${m.len()}`] = \"0123456789\"; if \"x\" in m { break; } m.keys(); }",
    "let s = \"0123456789\"; loop { s += s; s.contains(\"x\"); s.sub_string(1); }",
    // The same with `push`, which keeps the sizes as `+=` does.
    "let l = []; loop { l.push(\"0123456789\"); }",
    "let l = []; loop { push(l, \"0123456789\"); }",
    "let l = []; loop { l.push(1); }",
    "let l = [[]]; loop { l.push(\"0123456789\"); l[0] += [1, 2, 3]; }",
    "let l = [[]]; loop { l.push(1); l.grow_first(); }",
    "let l = []; loop { l.push(pushed()); }",
    "let l = []; let a = []; loop { a = [a]; l.push(a); }",
    "let l = []; loop { l.push(#{ s: \"0123456789\" }); l[l.len() - 1].s += \"0123456789\"; }",
    "let l = []; let k = []; loop { l.push(1); k = l; k.push(\"0123456789\"); l = k; }",
    "let l = []; loop { l.push(1); l += \"0123456789\"; l.push([l.len()]); }",
];

/// Method calls compiled into their callers (`inline.rs`), with variables given (read in
/// place) and values, a list the body changes (copied after all), `this` changed in place, the
/// variable called on given too, the caller's variable given back (not moved out of its slot),
/// an error inside, `this` in a method and outside one, a loop, a `return`, a parameter
/// shadowed, a variable given back, recursion to the call-depth limit, calls compiled in given
/// as arguments to another (whose slots are the same), the limits inside; and
/// function calls (`f(x)`, made the ordinary way) beside them.
const INLINED: &[&str] = &[
    "let x = 1; above_one(x)",
    "let x = 5; let i = 2; above_index(x, i)",
    "let i = 5; let x = 2; above_index(i, x)",
    "let a = 1; let x = 2; add(x, a)",
    "let l = [1]; let r = pushes(l); [l, r]",
    "let l = [1]; let r = l.this_push(); [l, r]",
    "let l = [1]; l.this_plus(l)",
    "let x = [1]; let l = [2]; l.this_plus(x)",
    "let x = 1; fails(x)",
    "let x = [1]; x.fails_on_this(x)",
    "let v = [5]; v.outer()",
    "outer()",
    "let t = 3; t.this_above_one()",
    "this_above_one()",
    "let x = [1, 2]; let v = 0; let y = v.id_of(x); [x, y]",
    "let x = 0; x.two(x.one(1), x.one(2))",
    "let x = 0; x.two(x.one(1), x.two(x.one(2), 3))",
    "let l = [1]; let v = 0; let r = v.pushes_onto(l); [l, r]",
    "let l = [3]; let x = l.keeps(); [l, x]",
    // Methods of several statements, compiled into their calls too.
    "let a = 1; a.add_all([1, 2])",
    "let l = []; let r = l.grow_by(2); [l, r]",
    "let l = []; let r = l.grow_by(1); [l, r]",
    "let v = [1]; v.shadow(1)",
    "let l = [1, 2]; let r = l.keeps(); let b = 5; [l, r, b]",
    "let v = 1; v.throws_late(2)",
    "let v = 0; v.countdown(60)",
    "let v = 0; v.countdown(70)",
    "let k = 0; loop { k += add(k, 1); }",
    "let s = \"0123456789\"; loop { s = add(s, s); }",
];

/// Method calls compiled into their callers at the edge of the operations limit, which the
/// compiled code counts its own way (ARCHITECTURE.md, invariant 8): some pass it with one
/// operation fewer a call (at 5, 6 or 7 operations a round), as the ordinary call would not.
const INLINED_AT_THE_EDGE: &[&str] = &[
    "let k = 0; let l = [1]; for i in 0..300000 { k += l.this_plus(1).len(); } k",
    "let k = 0; let l = [1]; for i in 0..370000 { k += l.this_plus(1).len(); } k",
    "let k = 0; let l = [1]; for i in 0..450000 { k += l.this_plus(1).len(); } k",
    "let k = 0; let l = 1; for i in 0..200000 { k += l.add_all([i]); } k",
    "let k = 0; let l = 1; for i in 0..250000 { k += l.add_all([i]); } k",
    "let k = 0; let l = 1; for i in 0..300000 { k += l.add_all([i]); } k",
];

/// Script functions the snippets call by name.
const HELPERS: &str = r#"
fn above_one(x) { x > 1 }
fn above_index(x, i) { x > i }
fn this_above_one() { this > 1 }
fn add(a, x) { a + x }
fn add_index(a, x, i) { a + x * i }
fn compare(a, b) { a - b }
fn pair_above_one(k, v) { v > 1 }
fn deep(n) { if n == 0 { 0 } else { [n].map(|x| deep(x - 1))[0] + 1 } }
fn rec(n) { if n == 0 { 0 } else { rec(n - 1) + 1 } }
fn wrap(x) { [x] }
fn grow() { this = #{ inner: this }; }
fn grow_first() { this[0] += ["0123456789"]; }
fn pushed() { let k = []; k += "0123456789"; k += 1; k }
fn busy(n) { let k = 0; for i in 0..n { k += i; } k }
fn nest(n) { if n == 0 { rec(30) } else { nest(n - 1) } }
fn nest_tiny(n) { if n == 0 { above_one(2) } else { nest_tiny(n - 1) } }
fn pushes(l) { l.push(1) }
fn this_push() { this.push(2) }
fn this_plus(x) { this + x }
fn fails(x) { x + "a" - 1 }
fn fails_on_this(x) { this + x + "a" - 1 }
fn outer() { this.this_plus([1]) }
fn id_of(x) { x }
fn one(n) { n + 10 }
fn two(a, b) { [a, b] }
fn pushes_onto(l) { l.push(1) }
fn add_all(l) { let t = this; for x in l { t += x; } t }
fn grow_by(n) { this.push(n); if n > 1 { return this.len(); } 0 }
fn shadow(x) { let x = x + 1; x }
fn keeps() { let out = this; out }
fn throws_late(x) { let y = x; y + "a" - 1 }
fn countdown(n) { if n == 0 { 0 } else { this.countdown(n - 1) + 1 } }
"#;

/// The snippets: each the body of a hook `fn sN(game)`.
fn snippets() -> Vec<String> {
    let mut out = Vec::new();
    // Operators, on variables (the optimizer folds constants) and on constants.
    for a in KINDS {
        for b in KINDS {
            for op in OPERATORS {
                out.push(format!("let a = {a}; let b = {b};\na {op} b"));
            }
        }
        for op in ["-", "!", "+"] {
            out.push(format!("let a = {a};\n{op}a"));
        }
    }
    for a in INTS {
        for b in INTS {
            for op in OPERATORS {
                out.push(format!("let a = {a}; let b = {b};\na {op} b"));
                out.push(format!("{a} {op} {b}"));
            }
        }
    }
    for a in KINDS {
        for b in KINDS {
            for op in ASSIGNMENTS {
                out.push(format!("let a = {a}; let b = {b};\na {op} b;\na"));
            }
        }
    }
    // An integer written in the line, computed in place where the variable holds an integer
    // (see `FnCompiler::assignment`), at the edges of arithmetic too.
    for a in KINDS.iter().chain(INTS) {
        for k in INTS {
            for op in ASSIGNMENTS {
                out.push(format!("let a = {a};\na {op} {k};\na"));
            }
        }
    }
    // One call site meeting arguments of other kinds in turn: the native it picked for the last
    // kinds is remembered (see `Candidates::pick_at`).
    for keys in ["1, \"a\"", "\"a\", 1", "'a', 1, ()"] {
        out.push(format!(
            "let r = []; for v in [[1, \"a\"], #{{ a: 1 }}, [2], #{{ b: 2 }}, [\"b\", 1], \"abc\"] {{ for k in [{keys}] {{ r.push(k in v); }} }} r"
        ));
    }
    // The same through an index and a property, for fewer kinds (the operator is the same).
    for a in &KINDS[..7] {
        for b in &KINDS[..7] {
            for op in ASSIGNMENTS {
                out.push(format!("let l = [{a}];\nl[0] {op} {b};\nl"));
                out.push(format!("let m = #{{ x: {a} }};\nm.x {op} {b};\nm"));
            }
        }
    }
    // Indexing: read, written, through a chain.
    for t in INDEXED {
        for i in INDICES {
            out.push(format!("let t = {t};\nt[{i}]"));
            out.push(format!("let m = #{{ t: {t} }};\nm.t[{i}]"));
            out.push(format!("{t}[{i}]"));
            for v in WRITTEN {
                out.push(format!("let t = {t};\nt[{i}] = {v};\nt"));
            }
            for op in ["+=", "|="] {
                out.push(format!("let t = {t};\nt[{i}] {op} 1;\nt"));
            }
            out.push(format!("let m = #{{ t: {t} }};\nm.t[{i}] = 'z';\nm"));
            out.push(format!("let l = [{t}];\nl[0][{i}] = true;\nl"));
            out.push(format!("let t = {t};\nt[{i}].x = 1;\nt"));
            out.push(format!("let t = {t};\nt[{i}][0] = 1;\nt"));
        }
    }
    // Loops.
    for it in ITERABLES {
        out.push(format!("let out = [];\nfor x in {it} {{ out.push(x); }}\nout"));
        out.push(format!("let out = [];\nfor (x, i) in {it} {{ if i == 1 {{ continue; }} out.push([x, i]); }}\nout"));
        out.push(format!(
            "let it = {it};\nlet out = [];\nfor x in it {{ out.push(x); if out.len() == 2 {{ break; }} }}\nout"
        ));
        out.push(format!("let n = 0;\nfor x in {it} {{ n += 1; }}\nn"));
    }
    // Callbacks.
    for (method, extra, forms) in ARRAY_CALLBACKS {
        for f in *forms {
            out.push(format!("let l = [3, 1, 2];\nlet r = l.{method}({extra}{f});\n[r, l]"));
            out.push(format!("let l = [3, 1, 2];\n{method}(l, {extra}{f})"));
        }
    }
    for (method, extra, forms) in MAP_CALLBACKS {
        for f in *forms {
            out.push(format!("let m = #{{ a: 1, b: 2 }};\nlet r = m.{method}({extra}{f});\n[r, m]"));
        }
    }
    for a in KINDS {
        for u in USES {
            out.push(format!("let a = {a};\n{u}"));
        }
    }
    // Recursion to the call-depth limit, through callbacks and not.
    for n in [10, 19, 20, 21, 22, 30, 40] {
        out.push(format!("deep({n})"));
    }
    for n in [60, 61, 62, 63, 64, 65] {
        out.push(format!("rec({n})"));
    }
    // The same with a call compiled into its caller at the deepest level.
    for n in [61, 62, 63, 64] {
        out.push(format!("nest_tiny({n})"));
    }
    out.extend(LIMITS.iter().map(|s| s.to_string()));
    out.extend(INLINED.iter().map(|s| s.to_string()));
    // Rhai's parser refuses some of these (a literal indexed by a literal of the wrong kind,
    // `()[0]`; `for` over a literal number): refused alike both ways, they are left out.
    let (parser, _) = new_engine();
    out.retain(|body| parser.compile(format!("fn f(game) {{\n{body}\n}}")).is_ok());
    out
}

/// A value, or an error, as compared: the kind and the value, or the error's whole text (its
/// message, the functions it went through and every position). Rhai's `call_fn` unwraps the
/// error of the function it calls, as the compiled hook's caller does (`Scripts::diagnose`).
fn outcome(result: Result<Dynamic, Box<EvalAltResult>>, hook: &str) -> String {
    match result {
        Ok(v) => format!("{} {v:?}", v.type_name()),
        Err(e) => match *e {
            EvalAltResult::ErrorInFunctionCall(name, _, inner, _) if name == hook => format!("error: {inner}"),
            e => format!("error: {e}"),
        },
    }
}

/// Snippets compiled together (Rhai counts lines in 16 bits: one text holds fewer than 65,536).
struct Batch {
    engine: Engine,
    ast: AST,
    program: Program,
    bodies: Vec<String>,
}

/// Compiles snippets as hooks `s0`, `s1`... of one script, and the compiler's program of it.
fn compile(bodies: Vec<String>) -> Batch {
    let (engine, natives) = new_engine();
    let mut text = String::from(HELPERS);
    for (i, body) in bodies.iter().enumerate() {
        let _ = write!(text, "\nfn s{i}(game) {{\n{body}\n}}\n");
    }
    let mut ast = engine.compile(&text).unwrap_or_else(|e| panic!("the snippets do not compile: {e}"));
    ast.set_source("snippets.rhai");
    let names: Vec<String> = (0..bodies.len()).map(|i| format!("s{i}")).collect();
    let hooks: Vec<(&str, usize)> = names.iter().map(|n| (n.as_str(), 1)).collect();
    let program = Program::compile(&ast, &natives, &Defs::default(), &hooks);
    Batch { engine, ast, program, bodies }
}

/// A `game` handle, on an empty game (the snippets use it as a value of the engine's own type).
fn handle() -> Dynamic {
    Dynamic::from(GameApi {
        state: Rc::default(),
        defs: Rc::new(Defs::default()),
        work: Rc::default(),
        scratch: Rc::default(),
        names: Rc::default(),
        touched: Rc::default(),
    })
}

/// Why a snippet is left to Rhai, if it should be: what `tabula check` says.
fn left_to_rhai(body: &str) -> Option<&'static str> {
    const LEFT: &[(&str, &str)] = &[
        ("curry", "it calls `.curry`, which the compiler leaves to Rhai"),
        ("range(", "it calls `range`, whose iterator the compiler leaves to Rhai"),
        (".bits", "it calls `.bits`, whose iterator the compiler leaves to Rhai"),
        ("bits(", "it calls `bits`, whose iterator the compiler leaves to Rhai"),
        (".chars", "it calls `.chars`, whose iterator the compiler leaves to Rhai"),
        ("chars(", "it calls `chars`, whose iterator the compiler leaves to Rhai"),
    ];
    LEFT.iter().find(|(mark, _)| body.contains(mark)).map(|(_, why)| *why)
}

#[test]
fn generated_snippets_give_what_rhai_gives() {
    let mut differ = Vec::new();
    let mut refused = 0;
    let mut misplaced = Vec::new();
    let mut total = 0;
    for chunk in snippets().chunks(2500) {
        let batch = compile(chunk.to_vec());
        total += batch.bodies.len();
        for (i, body) in batch.bodies.iter().enumerate() {
            let name = format!("s{i}");
            let why = batch.program.fallbacks.iter().find(|f| f.function == name).map(|f| f.reason.as_str());
            if why != left_to_rhai(body) {
                misplaced.push(format!("{body}\n  left to Rhai because: {why:?}"));
            }
            let Some(f) = batch.program.hooks[i] else { continue };
            let options = CallFnOptions::new().eval_ast(false).rewind_scope(false);
            let args = (handle(),);
            let interpreted =
                outcome(batch.engine.call_fn_with_options(options, &mut Scope::new(), &batch.ast, &name, args), &name);
            let compiled = outcome(batch.program.run_hook(&batch.engine, f, handle(), None).0, &name);
            if compiled != interpreted {
                refused += usize::from(compiled.starts_with("error") && !interpreted.starts_with("error"));
                differ.push(format!("{body}\n  compiled:    {compiled}\n  interpreted: {interpreted}"));
            }
        }
    }
    let shown = |list: &[String]| list.iter().take(30).cloned().collect::<Vec<_>>().join("\n\n");
    assert!(
        differ.is_empty(),
        "{} of {total} snippets differ from Rhai compiled, {refused} of them failing where Rhai runs:\n\n{}",
        differ.len(),
        shown(&differ)
    );
    assert!(misplaced.is_empty(), "snippets compiled or left to Rhai unexpectedly:\n\n{}", shown(&misplaced));
}

#[test]
fn calls_compiled_into_their_callers_give_what_calls_give() {
    let bodies: Vec<String> = INLINED.iter().chain(INLINED_AT_THE_EDGE).map(|s| s.to_string()).collect();
    let run = |inline: bool| {
        super::inline::OFF.set(!inline);
        let batch = compile(bodies.clone());
        super::inline::OFF.set(false);
        (0..bodies.len())
            .map(|i| match batch.program.hooks[i] {
                Some(f) => outcome(batch.program.run_hook(&batch.engine, f, handle(), None).0, &format!("s{i}")),
                None => "left to Rhai".to_string(),
            })
            .collect::<Vec<_>>()
    };
    let (inlined, called) = (run(true), run(false));
    for ((body, a), b) in bodies.iter().zip(&inlined).zip(&called) {
        assert_eq!(a, b, "{body}\n  compiled into the caller: {a}\n  called: {b}");
    }
}
