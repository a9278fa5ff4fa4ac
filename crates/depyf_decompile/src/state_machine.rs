//! The fallback for control flow that no structure fits: a small state machine.
//!
//! When [`crate::structure`] gives up on a function (a loop entered in its middle,
//! which hand-made or TorchDynamo bytecode may have, too much duplication, nesting
//! too deep), the blocks that recovery made are written as the states of one loop:
//!
//! ```text
//! __depyf_state__ = 0
//! while True:
//!     if __depyf_state__ == 0:
//!         <statements of block 0>
//!         if <condition>:
//!             <block only reached from here, written in place>
//!         __depyf_state__ = 1
//!         continue
//!     if __depyf_state__ == 1:
//!         ...
//! ```
//!
//! Every path through the states runs the statements of the blocks in the order
//! the bytecode runs them, which is what structuring relies on as well: recovery
//! already assigns every value that stays on the stack across a block boundary to a
//! temporary at the end of each predecessor (`recover::entry_stack`). Only the
//! iterators of `for` loops stay on the stack unnamed; recovery run with
//! [`crate::recover::Naming::iter_temps`] names them by stack depth (one live value per
//! depth), as a generator over the iterable, `(x for x in v)`, whose `for` statement
//! calls `iter(v)` exactly once as `GET_ITER` does and which is its own iterator; a
//! `FOR_ITER` step is `for item in it: break` with an `else:` that goes to the
//! exhausted state. No builtin name is read, so a function that shadows `iter` or
//! `next` runs the same.
//!
//! Scope: functions (`CO_OPTIMIZED`) other than lambdas, comprehensions and
//! compiler-made functions (names in `<>`, `__annotate__`, parameters like `.format`), with no exception handling (no protected range: handler
//! entry stacks and `try` semantics have no state form here) and no `match`
//! statement (its patterns are folded from structured code). The output is correct
//! code, never bytecode-identical to the original. A function left out because of
//! a protected range fails with the structurer's error and [`HANDLERS_NOTE`].
//!
//! Inlined comprehensions (PEP 709, CPython 3.12+) are in scope although each one
//! has a protected range of its own in the exception table: its handler only puts
//! back the locals the comprehension hid and re-raises, so it is no `try` of the
//! source. Two earlier stages leave nothing of it to the states: the normalizer
//! drops the range (`depyf_ir` `protected_ranges`, `post311_exc::implicit_handler`:
//! a range whose handler is implicit goes to the handler of the range around that
//! handler, if any, or is dropped), and `inline_comp::outline` folds the prologue,
//! loops and epilogue into one `Op::InlinedComp` before the CFG is built, so the
//! whole comprehension is one expression inside one block (one state, or part of
//! one) whose value recovery names like any other. The handler's own instructions
//! stay in the IR with no edge to them: unreachable blocks, which get no state.
//! A comprehension inside a `try` body gets the `try`'s handler instead, and that
//! function stays out of scope like any other with exception handling. (The
//! `StopIteration` guard of 3.12+ generators is dropped the same way.)

use std::collections::BTreeMap;

use depyf_bytecode::{co_flags, CodeObject, Constant};
use depyf_cfg::{BlockId, Cfg, Terminator};
use depyf_source::{Expr, Stmt};

use crate::recover::{Recovered, ITER_PREFIX};

/// The variable that holds the current state.
const STATE: &str = "__depyf_state__";
/// What the names the state machine invents start with: code that has a name with
/// this prefix does not get a state machine.
const PREFIX: &str = "__depyf_";
/// The environment variable that forces the state machine on every function it
/// applies to (tests of the fallback over the whole semantic suite): set and not
/// `0`.
pub const FORCE_ENV: &str = "DEPYF_FORCE_STATE_MACHINE";
/// What is added to the structurer's error of a function that the state machine
/// would stand for but for its protected ranges (`try`, `with`, `async for`
/// outside comprehensions, handlers the normalizer does not drop).
pub(crate) const HANDLERS_NOTE: &str = "no state-machine fallback for code with exception handling";
/// How deeply blocks reached from one place are written inside the arm of an `if`
/// before they become states of their own.
const MAX_INLINE_DEPTH: usize = 16;

/// Whether the fallback is forced ([`FORCE_ENV`]) on the code whose CFG is `cfg`:
/// only where there is control flow (more than one block). Straight-line code gains
/// nothing, and the 3.12-3.13 functions of type alias values and type parameter
/// bounds, which their callers read as one `return`, are straight-line.
pub(crate) fn forced(cfg: &Cfg) -> bool {
    cfg.blocks.len() > 1 && std::env::var_os(FORCE_ENV).is_some_and(|v| v != "0" && !v.is_empty())
}

/// Whether the state machine may stand for `code`, whose CFG is `cfg`: a function
/// (not a lambda, comprehension, `__annotate__` or other compiler-made function:
/// their callers read a structured body) without protected ranges, whose names do
/// not start with the state machine's prefix. `class_annotate`: see
/// `recover::Naming::class_annotate` (never).
pub(crate) fn applies(code: &CodeObject, cfg: &Cfg, class_annotate: bool) -> bool {
    applies_but_handlers(code, class_annotate) && cfg.blocks.iter().all(|b| b.handler.is_none())
}

/// Whether the state machine is left out of `code`, whose CFG is `cfg`, only because
/// of its protected ranges (see [`applies`], [`HANDLERS_NOTE`]).
pub(crate) fn refused_for_handlers(code: &CodeObject, cfg: &Cfg, class_annotate: bool) -> bool {
    applies_but_handlers(code, class_annotate) && cfg.blocks.iter().any(|b| b.handler.is_some())
}

/// [`applies`] without the condition on protected ranges.
fn applies_but_handlers(code: &CodeObject, class_annotate: bool) -> bool {
    code.co_flags & co_flags::OPTIMIZED != 0
        && !class_annotate
        && !code.co_name.starts_with('<')
        && code.co_name != "__annotate__"
        // `.format` (3.14+ lazily evaluated values) and `.defaults`: compiler-made.
        && !code.co_localsplusnames.iter().any(|n| n.starts_with('.'))
        && !code.co_names.iter().chain(&code.co_localsplusnames).any(|n| n.starts_with(PREFIX))
}

/// The body of the function whose CFG is `cfg` as a state machine over its blocks,
/// recovered in `rec` with [`crate::recover::Naming::iter_temps`].
///
/// Errors (a message): a reachable block that recovery could not read, a `for` over
/// an iterator not named by recovery (`async for`), a block that ends in `return` or
/// `raise` without that statement.
pub(crate) fn build(cfg: &Cfg, rec: &Recovered) -> Result<Vec<Stmt>, String> {
    let succs = |b: BlockId| -> Vec<BlockId> {
        if let Some(m) = rec.blocks[b.index()].collapsed_to {
            return vec![skip_empty(cfg, rec, m)];
        }
        match cfg.blocks[b.index()].term {
            Terminator::Return | Terminator::Raise => Vec::new(),
            Terminator::FallThrough(s) | Terminator::Jump(s) => vec![skip_empty(cfg, rec, s)],
            Terminator::Branch { jump, fall } => vec![skip_empty(cfg, rec, fall), skip_empty(cfg, rec, jump)],
        }
    };
    // Ways into each block along the edges the states take, from the entry.
    let n = cfg.blocks.len();
    let mut ins = vec![0usize; n];
    let mut seen = vec![false; n];
    let mut work = vec![BlockId(0)];
    seen[0] = true;
    while let Some(b) = work.pop() {
        for s in succs(b) {
            ins[s.index()] += 1;
            if !seen[s.index()] {
                seen[s.index()] = true;
                work.push(s);
            }
        }
    }
    let mut m = Machine { cfg, rec, ins, states: BTreeMap::new(), order: Vec::new() };
    m.state_of(BlockId(0));
    let mut arms = Vec::new();
    let mut next = 0;
    while next < m.order.len() {
        let b = m.order[next];
        next += 1;
        let mut body = Vec::new();
        m.block(b, &mut body, 0)?;
        let test = Expr::Compare(Box::new(Expr::name(STATE)), vec![("==", int(m.states[&b]))]);
        arms.push(Stmt::If(test, body, Vec::new()));
    }
    Ok(vec![Stmt::Assign(vec![Expr::name(STATE)], int(0)), Stmt::While(Expr::Const(Constant::Bool(true)), arms, Vec::new())])
}

/// Where going to block `b` leads once blocks without statements that only go on
/// to one other block (`NOP`s and jumps left by the compiler) are passed over; a
/// cycle of such blocks (`while True: pass`) stays where it starts.
fn skip_empty(cfg: &Cfg, rec: &Recovered, mut b: BlockId) -> BlockId {
    let start = b;
    for _ in 0..cfg.blocks.len() {
        let code = &rec.blocks[b.index()];
        let next = match cfg.blocks[b.index()].term {
            Terminator::FallThrough(s) | Terminator::Jump(s) => s,
            _ => return b,
        };
        if !code.stmts.is_empty() || code.error.is_some() || code.collapsed_to.is_some() || code.for_loop.is_some() || b == BlockId(0) {
            return b;
        }
        b = next;
        if b == start {
            return b;
        }
    }
    start
}

fn int(k: usize) -> Expr {
    Expr::Const(Constant::Int(k as i64))
}

/// The state machine being written.
struct Machine<'a> {
    cfg: &'a Cfg,
    rec: &'a Recovered,
    /// How many edges lead to each block from the reachable blocks.
    ins: Vec<usize>,
    /// The state number of each block that has one.
    states: BTreeMap<BlockId, usize>,
    /// The blocks with states, in the order of their numbers.
    order: Vec<BlockId>,
}

impl Machine<'_> {
    fn state_of(&mut self, b: BlockId) -> usize {
        if let Some(&k) = self.states.get(&b) {
            return k;
        }
        let k = self.order.len();
        self.states.insert(b, k);
        self.order.push(b);
        k
    }

    /// Appends the statements that go on at block `b` to `out`: the block itself
    /// when only this edge leads there (and the nesting allows), else the change of
    /// state. What it appends never falls through.
    fn goto(&mut self, b: BlockId, out: &mut Vec<Stmt>, depth: usize) -> Result<(), String> {
        let b = skip_empty(self.cfg, self.rec, b);
        if self.ins[b.index()] == 1 && b != BlockId(0) && depth < MAX_INLINE_DEPTH && !self.states.contains_key(&b) {
            return self.block(b, out, depth + 1);
        }
        let k = self.state_of(b);
        out.push(Stmt::Assign(vec![Expr::name(STATE)], int(k)));
        out.push(Stmt::Continue);
        Ok(())
    }

    /// Appends block `b` and where it goes to `out`.
    fn block(&mut self, b: BlockId, out: &mut Vec<Stmt>, depth: usize) -> Result<(), String> {
        let code = &self.rec.blocks[b.index()];
        if let Some(e) = &code.error {
            return Err(e.to_string());
        }
        out.extend(code.stmts.iter().cloned());
        if let Some(m) = code.collapsed_to {
            return self.goto(m, out, depth);
        }
        match self.cfg.blocks[b.index()].term {
            Terminator::Return | Terminator::Raise => {
                if !matches!(code.stmts.last(), Some(Stmt::Return(_) | Stmt::Raise(..))) {
                    return Err(format!("block {b} ends without its return or raise statement"));
                }
                Ok(())
            }
            Terminator::FallThrough(s) | Terminator::Jump(s) => self.goto(s, out, depth),
            Terminator::Branch { jump, fall } => {
                if let Some((iter, item)) = &code.for_loop {
                    // `for item in it: break` + `else: <exhausted>`; the `continue`
                    // and `break` of the arms belong to the state loop (an `else`
                    // clause is outside its `for`).
                    if !matches!(iter, Expr::Name(n) if n.starts_with(ITER_PREFIX)) {
                        return Err(format!("a for loop at block {b} over an iterator that is not named"));
                    }
                    let mut exhausted = Vec::new();
                    self.goto(jump, &mut exhausted, depth)?;
                    out.push(Stmt::For(Expr::name(item), iter.clone(), vec![Stmt::Break], exhausted));
                    return self.goto(fall, out, depth);
                }
                let cond = code.fall_condition.clone().ok_or_else(|| format!("a branch at block {b} without its condition"))?;
                let mut then = Vec::new();
                self.goto(fall, &mut then, depth)?;
                out.push(Stmt::If(cond, then, Vec::new()));
                self.goto(jump, out, depth)
            }
        }
    }
}
