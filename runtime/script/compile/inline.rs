//! Method calls of script functions compiled into their callers.
//!
//! A call of a script function costs a frame, its arguments copied or lent and the way back:
//! about a thousand instructions, more than a body such as `(this.coins ?? 0) >=
//! game.prop(card, "cost")` costs to run. Rulesets are written with many such functions, named
//! after the rulebook and called on what they look at most (`hand.affords(game, card)`,
//! `game.standing(seat)`), for every option at every decision. A method call's result is never remembered (`memo.rs` remembers calls written
//! `f(args)`), so nothing is lost by compiling the function's body into the call, where the
//! function is small (at most [`MOST_NODES`] nodes of syntax, no closure): the arguments and the
//! body's variables go to slots of the caller's frame, emptied after the call; where every
//! argument is a variable or a literal, a variable the body leaves unchanged (`game`, a list it
//! only reads) is read where it lies; `this` is the variable the method is called on, in place,
//! as Rhai lends it. Calls written `f(args)` are left to the memo, whose answers save more than
//! the call (a function that lists the seats or builds a name is run once per argument).
//!
//! Nothing of Rhai's semantics changes: the call counts the operation and the call level it
//! counted (and fails at the same limits), an error inside comes out wrapped in the function's
//! name as from a call, a `return` gives the call's value, the body sees nothing of its caller
//! but what it is given, and the arguments are evaluated in their order, as a chain evaluates
//! them. Under `tabula sim --profile` the call is made the ordinary way, so that the profile
//! counts it.

use rhai::{AST, ASTNode, Dynamic, Expr, ImmutableString, Position, Shared, Stmt};

use super::ctx::{pop_to, set};
use super::expr::{FnCompiler, this};
use super::{C, Eval, Exec};

#[cfg(test)]
thread_local! {
    /// Compiles every call the ordinary way, to compare (`tests.rs`).
    pub(super) static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A function small enough to be compiled into its method calls: its statements and its
/// parameters' names.
pub(super) struct Inlinable {
    name: ImmutableString,
    params: Vec<ImmutableString>,
    body: Vec<Stmt>,
}

/// At most this many nodes of syntax (statements and expressions) in a function compiled into
/// its calls: each call compiles a copy.
const MOST_NODES: usize = 300;

/// The functions among `defs` small enough to be compiled into their method calls (by index;
/// `None` for the others): at most [`MOST_NODES`] nodes, no closure and no function pointer, at
/// most eight parameters.
pub(super) fn inlinable_functions(defs: &[Shared<rhai::ScriptFuncDef>]) -> Vec<Option<Inlinable>> {
    defs.iter()
        .map(|f| {
            let mut module = rhai::Module::new();
            module.set_script_fn(f.clone());
            let alone = AST::new([], module);
            let (mut body, mut nodes, mut fits) = (Vec::new(), 0, true);
            alone.walk(&mut |path: &[ASTNode]| {
                nodes += 1;
                match path {
                    [ASTNode::Stmt(s)] => body.push((*s).clone()),
                    [.., ASTNode::Expr(Expr::DynamicConstant(v, _))] if v.is::<rhai::FnPtr>() => fits = false,
                    _ => {}
                }
                fits &= nodes <= MOST_NODES;
                fits
            });
            (fits && !body.is_empty() && f.params.len() <= 8).then(|| Inlinable {
                name: f.name.clone(),
                params: f.params.iter().cloned().collect(),
                body,
            })
        })
        .collect()
}

/// What a method call compiled into its caller is made on: a variable of the caller (by
/// slot), or the caller's own `this` (where it is named, checked when the call is made).
#[derive(Clone, Copy)]
pub(super) enum On {
    Slot(usize),
    This(Position),
}

/// Where a parameter's value comes from.
enum Arg {
    /// A variable of the caller, read in place by the body under the parameter's name.
    InPlace(usize, ImmutableString),
    /// A value given to the parameter's slot.
    Given(Given),
}

/// A value given to a parameter's slot when the call is made.
enum Given {
    /// An argument, evaluated.
    Value(Eval),
    /// A variable of the caller, copied.
    Copy(usize),
}

impl FnCompiler<'_> {
    /// The method call of script function `f` on `on` with `args` at `pos`, compiled into the
    /// caller where `f` is small enough and its body compiles there; `ordinary` is the call
    /// made the ordinary way, which is used otherwise, and under `--profile`.
    pub(super) fn inline_call(&mut self, f: usize, on: On, args: &[Expr], pos: Position, ordinary: Eval) -> C<Eval> {
        match self.inlined(f, on, args, pos)? {
            Some((inlined, handles)) => Ok(Box::new(move |c| {
                // A variable read in place that the body gives to natives must be a handle,
                // which natives never change (a list given so would be changed in place).
                if super::profile::on() || handles.iter().any(|&slot| !crate::script::is_handle(c.slot_ref(slot))) {
                    ordinary(c)
                } else {
                    inlined(c)
                }
            })),
            None => Ok(ordinary),
        }
    }

    /// The call compiled into the caller, with the variables read in place that must hold a
    /// handle when it is made, or `None`.
    fn inlined(&mut self, f: usize, on: On, args: &[Expr], pos: Position) -> C<Option<(Eval, Vec<usize>)>> {
        #[cfg(test)]
        if OFF.get() {
            return Ok(None);
        }
        let Some(small) = self.inlinable(f) else { return Ok(None) };
        if self.is_inlining() || small.params.len() != args.len() {
            return Ok(None);
        }
        let (name, body, params) = (small.name.clone(), small.body.clone(), small.params.clone());
        let target = match on {
            On::Slot(slot) => slot,
            On::This(_) => 0,
        };
        // The arguments, compiled in the caller's scope. A variable is read in place (once)
        // only where no argument can change it (each is a variable or a literal): the
        // arguments are evaluated in their order, the variable read later, by the body.
        let simple = args.iter().all(|a| matches!(a, Expr::Variable(..)) || super::expr::literal(a).is_some());
        let mut plan = Vec::with_capacity(args.len());
        for (param, arg) in params.iter().zip(args) {
            plan.push(match arg {
                Expr::Variable(x, _, _) => {
                    let slot = self.lookup(&x.1)?;
                    let taken = plan.iter().any(|a| matches!(a, Arg::InPlace(s, _) if *s == slot));
                    if simple && !taken && slot != target && slot < 64 {
                        Arg::InPlace(slot, param.clone())
                    } else {
                        Arg::Given(Given::Copy(slot))
                    }
                }
                _ => Arg::Given(Given::Value(self.expr(arg)?)),
            });
        }
        let shown: Vec<(usize, ImmutableString)> =
            plan.iter().filter_map(|a| if let Arg::InPlace(s, n) = a { Some((*s, n.clone())) } else { None }).collect();
        let aliases: Vec<usize> = shown.iter().map(|(s, _)| *s).collect();
        // The body, in a scope of its own: the caller's variables hidden but those it reads in
        // place, each other parameter in a new slot, `this` the variable called on.
        let saved = self.enter_inlined(&shown, target);
        let mut given = Vec::with_capacity(plan.len());
        for (param, a) in params.iter().zip(plan) {
            if let Arg::Given(g) = a {
                given.push((self.declare(param), g));
            }
        }
        // The statements, as a function's body is compiled: the last gives the value (a
        // variable the body declared moved out: the caller's are not `let`s here).
        let compiled = body
            .iter()
            .enumerate()
            .map(|(k, s)| if k + 1 == body.len() { self.tail_stmt(s) } else { self.stmt(s) })
            .collect::<C<Vec<_>>>()
            .map(super::stmt::sequence);
        // A variable read in place must come out of the call as it went in.
        let (written, changed, slots) = self.leave_inlined(saved, &aliases);
        let body: Exec = match compiled {
            Ok(body) if written == 0 => body,
            _ => return Ok(None),
        };
        let handles = aliases.iter().enumerate().filter(|&(k, _)| changed & (1 << k) != 0).map(|(_, &s)| s).collect();
        let this_at = match on {
            On::This(at) => Some(at),
            On::Slot(_) => None,
        };
        Ok(Some((
            Box::new(move |c| {
                // Every argument is evaluated before any goes to its slot: an argument may be
                // a call compiled in too, whose slots are these.
                let mark = c.stack.len();
                for (_, g) in &given {
                    let v = match g {
                        Given::Value(eval) => match eval(c) {
                            Ok(v) => v.flatten(),
                            Err(e) => {
                                pop_to(&mut c.stack, mark);
                                return Err(e);
                            }
                        },
                        Given::Copy(from) => c.slot_ref(*from).clone().flatten(),
                    };
                    c.stack.push(v);
                }
                for (k, (slot, _)) in given.iter().enumerate() {
                    let v = std::mem::take(&mut c.stack[mark + k]);
                    set(c.slot(*slot), v);
                }
                pop_to(&mut c.stack, mark);
                if let Some(at) = this_at {
                    this(c, at)?;
                }
                c.enter_call(pos)?;
                let result = body(c);
                c.leave_call();
                // The slots of the parameters and of the body's variables are emptied, as a
                // frame is popped.
                for slot in slots.clone() {
                    set(c.slot(slot), Dynamic::UNIT);
                }
                c.returned(&name, result, pos)
            }),
            handles,
        )))
    }
}
