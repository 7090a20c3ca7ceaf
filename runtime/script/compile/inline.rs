//! Calls of small script functions compiled into their callers.
//!
//! A call of a script function costs a frame, its arguments copied or lent, a look-up among
//! the remembered results (`memo.rs`) and the way back: about a thousand instructions, more
//! than a body such as `(this.key ?? 0) >= game.prop(chamber, "need_key")` costs to run.
//! Rulesets are written with many such functions, named after the rulebook
//! (`faces.pays_entry(game, chamber)`, `game.standing(seat)`), called for every option at every
//! decision. So a call of a function whose body is one expression that calls no script
//! function (a *tiny* function) is compiled into its caller: the arguments go to slots of the
//! caller's frame, or, where an argument is a variable of the parameter's own name that the
//! body leaves unchanged (`game` given as `game`), the body reads that variable where it lies;
//! a method's `this` is the variable it is called on, in place, as Rhai lends it. A method call
//! (`game.free_faces(seat)`) is compiled so whatever its body (a few hundred nodes of syntax at
//! most, without closures): its results are never remembered, so nothing is lost; a function
//! call only where the function is tiny, since a remembered result may save more than the call.
//!
//! Nothing of Rhai's semantics changes: the call counts the operation and the call level it
//! counted (and fails at the same limits), an error inside comes out wrapped in the function's
//! name as from a call, a `return` gives the call's value, the body sees nothing of its caller
//! but what it is given, and a variable is read after the other arguments are evaluated, as
//! Rhai reads it. Only remembered results are not looked up, which is speed alone. Under
//! `tabula sim --profile` the call is made the ordinary way, so that the profile counts it.

use rhai::{AST, ASTNode, Dynamic, Expr, ImmutableString, Position, Shared, Stmt};

use super::ctx::set;
use super::expr::{FnCompiler, this};
use super::{C, Eval, Exec};

#[cfg(test)]
thread_local! {
    /// Compiles every call the ordinary way, to compare (`tests.rs`).
    pub(super) static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A function small enough to be compiled into its calls: its statements, its parameters'
/// names, whether it uses `this`, and whether it is *tiny*: one expression, without a block or
/// a call of a script function inside.
pub(super) struct Inlinable {
    name: ImmutableString,
    params: Vec<ImmutableString>,
    body: Vec<Stmt>,
    uses_this: bool,
    tiny: bool,
}

/// At most this many nodes of syntax (statements and expressions) in a function compiled into
/// its calls: each call compiles a copy.
const MOST_NODES: usize = 300;

/// The functions among `defs` small enough to be compiled into their calls (by index; `None`
/// for the others): at most [`MOST_NODES`] nodes, no closure and no function pointer; those
/// that are tiny are compiled into every call, the others into method calls (`x.f(...)`,
/// whose results are never remembered: see `memo.rs`) only.
pub(super) fn inlinable_functions(
    defs: &[Shared<rhai::ScriptFuncDef>],
    index: &std::collections::HashMap<(ImmutableString, usize), usize>,
) -> Vec<Option<Inlinable>> {
    defs.iter()
        .map(|f| {
            let mut module = rhai::Module::new();
            module.set_script_fn(f.clone());
            let alone = AST::new([], module);
            let (mut body, mut nodes, mut fits, mut tiny, mut uses_this) = (Vec::new(), 0, true, true, false);
            alone.walk(&mut |path: &[ASTNode]| {
                nodes += 1;
                match path {
                    [ASTNode::Stmt(s)] => {
                        tiny &= body.is_empty() && matches!(s, Stmt::Expr(_) | Stmt::FnCall(..));
                        body.push((*s).clone());
                    }
                    [.., ASTNode::Stmt(_)] => tiny = false,
                    [.., ASTNode::Expr(e)] => match e {
                        Expr::Stmt(_) => tiny = false,
                        Expr::FnCall(call, _) | Expr::MethodCall(call, _)
                            if index.contains_key(&(call.name.clone(), call.args.len())) =>
                        {
                            tiny = false;
                        }
                        Expr::DynamicConstant(v, _) if v.is::<rhai::FnPtr>() => fits = false,
                        Expr::ThisPtr(_) => uses_this = true,
                        _ => {}
                    },
                    _ => {}
                }
                fits &= nodes <= MOST_NODES;
                fits
            });
            (fits && !body.is_empty() && f.params.len() <= 8).then(|| Inlinable {
                name: f.name.clone(),
                params: f.params.iter().cloned().collect(),
                body,
                uses_this,
                tiny,
            })
        })
        .collect()
}

/// What a call compiled into its caller is made on: nothing (a function call), a variable of the caller
/// (by slot), or the caller's own `this` (where it is named, checked when the call is made).
#[derive(Clone, Copy)]
pub(super) enum On {
    Nothing,
    Slot(usize),
    This(Position),
}

/// Where a parameter's value comes from.
enum Given {
    /// A variable of the caller of the parameter's own name, read in place by the body.
    Alias(usize),
    /// An argument, evaluated into the parameter's slot.
    Value(Eval),
    /// A variable of the caller, copied into the parameter's slot after the other arguments.
    Copy(usize),
}

impl FnCompiler<'_> {
    /// The call of script function `f` on `on` with `args` at `pos`, compiled into the caller
    /// where `f` is small enough (tiny, for a function call) and its body compiles there;
    /// `ordinary` compiles the call made the ordinary way, which is used otherwise, and under
    /// `--profile`.
    pub(super) fn inline_call(
        &mut self,
        f: usize,
        on: On,
        args: &[Expr],
        pos: Position,
        ordinary: impl FnOnce(&mut Self) -> C<Eval>,
    ) -> C<Eval> {
        let ordinary = ordinary(self)?;
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
        let method = !matches!(on, On::Nothing);
        if self.is_inlining() || small.params.len() != args.len() || (small.uses_this || !small.tiny) && !method {
            return Ok(None);
        }
        let (name, body, params) = (small.name.clone(), small.body.clone(), small.params.clone());
        let target = match on {
            On::Slot(slot) => Some(slot),
            On::This(_) => Some(0),
            On::Nothing => None,
        };
        // The arguments, compiled in the caller's scope. A variable is read in place only
        // where no argument can change it (each is a variable or a literal): a function reads
        // its variables after the other arguments are evaluated, a method in their order.
        let simple = args.iter().all(|a| matches!(a, Expr::Variable(..)) || super::expr::literal(a).is_some());
        let mut plan = Vec::with_capacity(args.len());
        for (param, arg) in params.iter().zip(args) {
            plan.push(match arg {
                Expr::Variable(x, _, _) => {
                    let slot = self.lookup(&x.1)?;
                    if simple && x.1.as_str() == param.as_str() && Some(slot) != target && slot < 64 {
                        Given::Alias(slot)
                    } else {
                        Given::Copy(slot)
                    }
                }
                _ => Given::Value(self.expr(arg)?),
            });
        }
        let aliases: Vec<usize> =
            plan.iter().filter_map(|g| if let Given::Alias(s) = g { Some(*s) } else { None }).collect();
        // The body, in a scope of its own: the caller's variables hidden but those it reads in
        // place, each other parameter in a new slot, `this` the variable called on.
        let saved = self.enter_inlined(&aliases, target);
        let mut given = Vec::with_capacity(plan.len());
        for (param, g) in params.iter().zip(plan) {
            if !matches!(g, Given::Alias(_)) {
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
        // A function's variables after the other arguments, as Rhai reads them (a method's
        // arguments are evaluated in order, as a chain evaluates them: `chain.rs`).
        if matches!(on, On::Nothing) {
            given.sort_by_key(|(_, g)| matches!(g, Given::Copy(_)));
        }
        let this_at = match on {
            On::This(at) => Some(at),
            _ => None,
        };
        Ok(Some((
            Box::new(move |c| {
                for (slot, g) in &given {
                    let v = match g {
                        Given::Value(eval) => eval(c)?.flatten(),
                        Given::Copy(from) => c.slot_ref(*from).clone().flatten(),
                        Given::Alias(_) => continue,
                    };
                    set(c.slot(*slot), v);
                }
                if let Some(at) = this_at {
                    this(c, at)?;
                }
                c.enter_inline(pos)?;
                let result = body(c);
                c.leave_inline();
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
