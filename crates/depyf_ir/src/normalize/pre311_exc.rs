//! The block stack of CPython 3.9 and 3.10 (`SETUP_FINALLY`, `SETUP_WITH`,
//! `SETUP_ASYNC_WITH`, `POP_BLOCK`, `POP_EXCEPT`) as protected ranges in the shape of
//! the 3.11 exception table, and their handlers in the ops of 3.11.
//!
//! The compiler's block stack is static (CPython 3.10 `Python/compile.c`,
//! `compiler_push_fblock`; `Python/ceval.c`, `PyFrame_BlockSetup` and the unwinding
//! at `exception_unwind`): `SETUP_*` pushes a handler block that records the stack
//! level, `POP_BLOCK` pops it, and a handler, once entered, is itself an
//! `EXCEPT_HANDLER` block until `POP_EXCEPT`. [`simulate`] walks the instructions
//! with that stack; an instruction is protected by the topmost handler block on it
//! (an `EXCEPT_HANDLER` block above it is unwound first, restoring the exception
//! being handled: what 3.11's `COPY 3; POP_EXCEPT; RERAISE 1` clean-up does).
//!
//! **One value per exception.** Before 3.11 a handler is entered with six more
//! stack items: the saved `exc_info` triple and the exception's (traceback, value,
//! type) triple; 3.11 has one `exc` that `PUSH_EXC_INFO` turns into `prev_exc, exc`.
//! The IR uses 3.11's shape for every version:
//!
//! - every protected range has `lasti: false` and the depth counted in IR values;
//!   each handler of a `try` or `with` starts with an [`Op::PushExcInfo`] that comes
//!   from no instruction (emitted at the handler's offset before its first op); the
//!   handler of the implicit `try/finally` that unbinds `except E as name` is a
//!   clean-up handler and gets none, as in 3.11;
//! - `DUP_TOP; <type>; JUMP_IF_NOT_EXC_MATCH L` is `<type>; CHECK_EXC_MATCH;
//!   POP_JUMP_IF_FALSE L` (the `DUP_TOP` is a `Nop`);
//! - the triple is consumed by one op: `POP_TOP; STORE_x name; POP_TOP` is one
//!   store, `POP_TOP; POP_TOP; POP_TOP` one [`Op::PopTop`]; `POP_EXCEPT` pops the
//!   one `prev_exc` value, `RERAISE` the one `exc`;
//! - `ROT_FOUR` that moves a returned value below the saved `exc_info` (or below the
//!   triple of a `finally`) is [`Op::Swap`]`(2)`;
//! - the normal exit of a `with`, `LOAD_CONST None; DUP_TOP; DUP_TOP;
//!   CALL_FUNCTION 3; POP_TOP`, is one [`Op::WithExit`].
//!
//! **CPython 3.8** (`Python/ceval.c` of 3.8: `BEGIN_FINALLY`, `END_FINALLY`,
//! `WITH_CLEANUP_START`/`FINISH`) shares one handler between the normal and the
//! exceptional exit where 3.9 copies it; the shapes handled are rewritten to 3.9's:
//!
//! - `COMPARE_OP 10` (exception match) + `POP_JUMP_IF_FALSE L` is
//!   `CHECK_EXC_MATCH; POP_JUMP_IF_FALSE L`;
//! - `END_FINALLY` with an exception on top (the no-match end of `except` clauses,
//!   the end of the handler unbinding `except E as name`) is `RERAISE`;
//! - `POP_BLOCK; BEGIN_FINALLY` falling into the unbinding handler of `except E as
//!   name` is 3.9's copy on the normal path: `POP_EXCEPT; name = None; del name`
//!   and a jump to where the clause's `POP_EXCEPT; JUMP` goes;
//! - `POP_BLOCK; BEGIN_FINALLY` falling into `WITH_CLEANUP_START;
//!   WITH_CLEANUP_FINISH; END_FINALLY` is [`Op::WithExit`] and a jump past it; the
//!   handler itself is `WITH_EXCEPT_START; POP_JUMP_IF_TRUE; RERAISE;` then the
//!   triple, `POP_EXCEPT` and the exit popped (3.9's shape).
//!
//! - `POP_BLOCK; BEGIN_FINALLY` falling into a `finally` body is 3.9's copy of that
//!   body and a jump past its `END_FINALLY`; that `END_FINALLY`, reached by an
//!   exception only, is `RERAISE`.
//!
//! - `CALL_FINALLY` (after `POP_BLOCK`, or `POP_BLOCK; POP_EXCEPT` in an `except E
//!   as name` clause): `return`, `break` or `continue` leaving a `try/finally` or
//!   such a clause (CPython 3.8 `Python/compile.c`, `compiler_unwind_fblock`) calls
//!   the finally body as a subroutine: 3.9's copy of the body in place of the
//!   call, falling through to what follows;
//! - `POP_BLOCK; [ROT_TWO;] BEGIN_FINALLY; WITH_CLEANUP_START; WITH_CLEANUP_FINISH;
//!   POP_FINALLY 0`, the same leaving a `with`, is one [`Op::WithExit`];
//! - a `BEGIN_FINALLY` that is never reached (after a try body that ends with
//!   `return`, `break` or `continue`) is a `Nop`.
//!
//! A copy of a straight-line body takes the offset of the instruction entering it.
//! A body with branches (`if`, loops, `raise`) needs offsets of its own: then every
//! IR offset of the code object is its instruction's offset times a scale, and each
//! copy takes the offsets between those of the instruction entering it and the
//! next one ([`copy_offsets`]); [`protected_ranges`] gives the copy the range of
//! that instruction, as 3.9 does.
//!
//! **`async for` and `async with` (3.8-3.10)** (CPython 3.10 `Python/compile.c`,
//! `compiler_async_for`, `compiler_async_with`), in 3.11's ops (see `post311_async`):
//!
//! - the loop head `SETUP_FINALLY end; GET_ANEXT; LOAD_CONST None; YIELD_FROM;
//!   POP_BLOCK`, whose handler `end` is the `END_ASYNC_FOR` that ends the loop on
//!   `StopAsyncIteration` ([`Kind::AsyncFor`]), is one [`Op::ForIter`] jumping to that
//!   `END_ASYNC_FOR` (a `Nop`, entered with the iterator popped like the jump of
//!   `FOR_ITER`), its `IrInstr::opname` `GET_ANEXT`; the handler is no protected range
//!   (the instructions of the head belong to the enclosing one);
//! - `BEFORE_ASYNC_WITH; GET_AWAITABLE; LOAD_CONST None; YIELD_FROM` is
//!   [`Op::BeforeAsyncWith`] and the `SETUP_ASYNC_WITH` after it a `Nop`; the exits
//!   await `__aexit__`: `LOAD_CONST None; DUP_TOP; DUP_TOP; CALL_FUNCTION 3;
//!   GET_AWAITABLE; LOAD_CONST None; YIELD_FROM; POP_TOP` is [`Op::WithExit`] and
//!   `WITH_EXCEPT_START; GET_AWAITABLE; LOAD_CONST None; YIELD_FROM`
//!   [`Op::WithExceptStart`]. 3.8 shares the exits as for `with` above, with
//!   `GET_AWAITABLE; LOAD_CONST None; YIELD_FROM` between `WITH_CLEANUP_START` and
//!   `WITH_CLEANUP_FINISH` ([`cleanup38`]): folded into the same ops.
//!
//! - `return`, `break` or `continue` inside a `finally` body: the `try` is wrapped
//!   in a placeholder value (`LOAD_CONST None` before it, `POP_TOP` after the
//!   body's `END_FINALLY`; both `Nop`s, see `Facts::try2`) and the exit is
//!   `POP_FINALLY p; [ROT_TWO;] POP_TOP` (see [`exit38`]): reached by an exception
//!   it is 3.9's `[ROT_FOUR;] POP_TOP; POP_TOP; POP_TOP; [ROT_FOUR;] POP_EXCEPT`;
//!   in a copy of the body it pops nothing 3.9 has (a `Nop`), and a `return` in
//!   the `try` body that puts its value in the placeholder's place
//!   (`POP_BLOCK; ROT_TWO; POP_TOP; CALL_FINALLY`) is 3.9's value kept below the
//!   copy.
//!   An exit that also leaves a `try/except` around the `try/finally` pops its block
//!   after the placeholder (`POP_BLOCK`, a `Nop`); in the copies, the ops after it
//!   lie outside that `try`'s range, as in 3.9's ([`protected_ranges`]).
//!
//! - a `finally` body with blocks of its own (`try/except`, `with`, `except E as
//!   name`) is copied with them: each copy has offsets of its own, and the
//!   instructions inside a copied block are protected by the copy of its handler,
//!   at the depth its copied `SETUP_*` records ([`protected_ranges`]).
//!
//! - a `try/finally` inside a `finally` body: each copy of the outer body holds a
//!   copy of the inner one where the inner `BEGIN_FINALLY`
//!   enters it, with offsets of its own between those of the enclosing copy's
//!   slots (see [`Facts::scale`], [`copy_offsets`]), as 3.9 compiles the inner
//!   statement again in each copy of the outer body.
//!
//! An exit (`return`, `break`, `continue`) from a block inside a `finally` body is
//! not rewritten: it fails normalization.

use std::collections::{BTreeMap, BTreeSet};

use depyf_bytecode::{Opname, Argval, CodeObject, Constant, ExceptionTableEntry, Instruction};

use super::common::Cx;
use super::{IrError, IrInstr};
use crate::Op;

/// What a handler block entered by an exception does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `except` clauses: the triple is consumed at the start of each clause.
    Except,
    /// A `finally` body: it runs with the triple on the stack and re-raises.
    Finally,
    /// The exceptional exit of a `with` (`WITH_EXCEPT_START`).
    With,
    /// The implicit `try/finally` that unbinds `except E as name`.
    NameCleanup,
    /// The `END_ASYNC_FOR` that ends an `async for` (see [`async_for_head`]): no
    /// handler of the IR.
    AsyncFor,
}

/// One entry of the static block stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Blk {
    /// A `SETUP_*` block: handler instruction index and its kind.
    Setup { handler: usize, kind: Kind },
    /// An entered handler (`EXCEPT_HANDLER`), until `POP_EXCEPT`.
    Handler(Kind),
}

fn is_none(code: &CodeObject, i: &Instruction) -> bool {
    i.opname == "LOAD_CONST" && matches!(i.argval, Argval::Const(c) if matches!(code.co_consts.get(c as usize), Some(Constant::None)))
}

fn is_store(name: &str) -> bool {
    matches!(name, "STORE_FAST" | "STORE_NAME" | "STORE_GLOBAL" | "STORE_DEREF")
}

fn names(ins: &[Instruction], from: usize, n: usize) -> Vec<&'static str> {
    ins.get(from..).unwrap_or(&[]).iter().take(n).map(|x| x.opname).collect()
}

/// When instruction `k` is the head of an `async for` (`SETUP_FINALLY end;
/// GET_ANEXT; LOAD_CONST None; YIELD_FROM; POP_BLOCK` with `END_ASYNC_FOR` at `end`;
/// CPython 3.8-3.10 `Python/compile.c`, `compiler_async_for`), the index of that
/// `END_ASYNC_FOR`.
pub(super) fn async_for_head(code: &CodeObject, ins: &[Instruction], k: usize) -> Option<usize> {
    if ins[k].opname != "SETUP_FINALLY" || names(ins, k + 1, 4) != ["GET_ANEXT", "LOAD_CONST", "YIELD_FROM", "POP_BLOCK"] || !is_none(code, &ins[k + 2]) {
        return None;
    }
    let t = ins.binary_search_by_key(&ins[k].jump_target()?, |i| i.offset).ok()?;
    (ins[t].opname == "END_ASYNC_FOR").then_some(t)
}

/// Whether instruction `k` is an `END_ASYNC_FOR` that ends an `async for` of the
/// shape of [`async_for_head`].
fn ends_async_for(code: &CodeObject, ins: &[Instruction], k: usize) -> bool {
    ins[k].opname == "END_ASYNC_FOR" && (0..ins.len()).any(|h| ins[h].jump_target() == Some(ins[k].offset) && async_for_head(code, ins, h) == Some(k))
}

/// Whether the `await` of `GET_AWAITABLE; LOAD_CONST None; YIELD_FROM` starts at `k`.
fn awaits_at(code: &CodeObject, ins: &[Instruction], k: usize) -> bool {
    names(ins, k, 3) == ["GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM"] && is_none(code, &ins[k + 1])
}

/// 3.8: when `WITH_CLEANUP_START; WITH_CLEANUP_FINISH` (a `with`) or
/// `WITH_CLEANUP_START; GET_AWAITABLE; LOAD_CONST None; YIELD_FROM;
/// WITH_CLEANUP_FINISH` (an `async with`, whose `__aexit__` result is awaited;
/// CPython 3.8 `Python/compile.c`, `compiler_async_with`) starts at `k`, the index
/// of that `WITH_CLEANUP_FINISH`.
fn cleanup38(ins: &[Instruction], k: usize) -> Option<usize> {
    if ins.get(k)?.opname != "WITH_CLEANUP_START" {
        return None;
    }
    let awaits = names(ins, k + 1, 3) == ["GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM"];
    let f = if awaits { k + 4 } else { k + 1 };
    (ins.get(f)?.opname == "WITH_CLEANUP_FINISH").then_some(f)
}

/// 3.8: whether the `WITH_CLEANUP_FINISH` at `f` ends a [`cleanup38`] sequence.
fn ends_cleanup38(ins: &[Instruction], f: usize) -> bool {
    (f >= 1 && cleanup38(ins, f - 1) == Some(f)) || (f >= 4 && cleanup38(ins, f - 4) == Some(f))
}

/// Whether `i` pushes a block (CPython 3.8-3.10 `SETUP_FINALLY`, `SETUP_WITH`,
/// `SETUP_ASYNC_WITH`; `SETUP_ANNOTATIONS` does not, nor any other op).
fn is_block_setup(i: &Instruction) -> bool {
    matches!(i.id, Opname::SETUP_FINALLY | Opname::SETUP_WITH | Opname::SETUP_ASYNC_WITH)
}

/// Whether the instructions use the block stack (3.9-3.10 `SETUP_*`).
pub(super) fn uses_block_stack(ins: &[Instruction]) -> bool {
    ins.iter().any(|i| matches!(i.id, Opname::SETUP_FINALLY | Opname::SETUP_WITH | Opname::SETUP_ASYNC_WITH))
}

/// The kind of the handler that the `SETUP_*` instruction `k` installs.
fn kind_of(code: &CodeObject, ins: &[Instruction], k: usize, index_of: &dyn Fn(u32) -> Option<usize>) -> Result<(usize, Kind), IrError> {
    let i = &ins[k];
    let err = |m: &str| IrError::at(code, i, m);
    let t = i.jump_target().and_then(index_of).ok_or_else(|| err("handler target is not an instruction"))?;
    if i.opname != "SETUP_FINALLY" {
        return Ok((t, Kind::With));
    }
    if ins[t].opname == "END_ASYNC_FOR" {
        return match async_for_head(code, ins, k) {
            Some(_) => Ok((t, Kind::AsyncFor)),
            None => Err(err("an async for head of an unknown shape")),
        };
    }
    // `POP_TOP; STORE name; POP_TOP; SETUP_FINALLY` binds the exception to a name and
    // protects the clause with `name = None; del name; RERAISE`.
    let binds = k >= 3 && ins[k - 3].opname == "POP_TOP" && is_store(ins[k - 2].opname) && ins[k - 1].opname == "POP_TOP";
    let h = names(ins, t, 4);
    if binds {
        let unbinds = h.len() == 4
            && is_none(code, &ins[t])
            && is_store(h[1])
            && h[2].starts_with("DELETE_")
            && (h[3] == "RERAISE" || h[3] == "END_FINALLY" && code.version.minor == 8)
            && ins[t + 1].argval == ins[k - 2].argval
            && ins[t + 2].argval == ins[k - 2].argval;
        if !unbinds {
            return Err(err("an except clause bound to a name without its unbinding handler"));
        }
        return Ok((t, Kind::NameCleanup));
    }
    if h.first() == Some(&"DUP_TOP") || h.len() >= 3 && h[..3] == ["POP_TOP", "POP_TOP", "POP_TOP"] {
        Ok((t, Kind::Except))
    } else {
        Ok((t, Kind::Finally))
    }
}

/// The block stack after each instruction (`None`: not reached), by a walk of the
/// normal control flow from the entry and from every handler.
///
/// Errors: an instruction reached with two different block stacks, `POP_BLOCK` or
/// `POP_EXCEPT` without the block they pop.
pub(super) fn simulate(code: &CodeObject, ins: &[Instruction]) -> Result<Vec<Option<Vec<Blk>>>, IrError> {
    let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    // The stack on entry of each instruction.
    let mut before: Vec<Option<Vec<Blk>>> = vec![None; ins.len()];
    let mut after: Vec<Option<Vec<Blk>>> = vec![None; ins.len()];
    let mut work = Vec::new();
    let reach = |k: usize, st: Vec<Blk>, before: &mut Vec<Option<Vec<Blk>>>, work: &mut Vec<usize>, from: &Instruction| -> Result<(), IrError> {
        match &before[k] {
            None => {
                before[k] = Some(st);
                work.push(k);
                Ok(())
            }
            Some(old) if *old == st => Ok(()),
            Some(_) => Err(IrError::at(code, &ins[k], format!("reached with two different block stacks (one from offset {})", from.offset))),
        }
    };
    if !ins.is_empty() {
        before[0] = Some(Vec::new());
        work.push(0);
    }
    while let Some(k) = work.pop() {
        let i = &ins[k];
        let mut st = before[k].clone().expect("queued with a stack");
        match i.id {
            Opname::SETUP_FINALLY | Opname::SETUP_WITH | Opname::SETUP_ASYNC_WITH => {
                let (t, kind) = kind_of(code, ins, k, &index_of)?;
                let mut hs = st.clone();
                hs.push(Blk::Handler(kind));
                reach(t, hs, &mut before, &mut work, i)?;
                st.push(Blk::Setup { handler: t, kind });
            }
            Opname::POP_BLOCK => match st.pop() {
                Some(Blk::Setup { .. }) => {}
                _ => return Err(IrError::at(code, i, "POP_BLOCK without a SETUP block")),
            },
            // `END_ASYNC_FOR` ends an `async for` by popping its entered handler.
            Opname::POP_EXCEPT | Opname::END_ASYNC_FOR => match st.pop() {
                Some(Blk::Handler(_)) => {}
                _ => return Err(IrError::at(code, i, "POP_EXCEPT outside an exception handler")),
            },
            _ => {}
        }
        let mut ends = ends_flow(i.opname);
        if code.version.minor == 8 {
            match py38_step(code, ins, k, &mut st)? {
                Step38::Through => {}
                Step38::Ends => ends = true,
                Step38::JumpTo(t) => {
                    reach(t, st.clone(), &mut before, &mut work, i)?;
                    ends = true;
                }
                Step38::Skip(n) => {
                    // Folded into instruction k: same block stack, not walked.
                    for j in k + 1..=k + n {
                        before[j] = Some(st.clone());
                        after[j] = Some(st.clone());
                    }
                    if k + n + 1 < ins.len() {
                        reach(k + n + 1, st.clone(), &mut before, &mut work, i)?;
                    }
                    ends = true;
                }
            }
        }
        if !is_block_setup(i) && !matches!(i.id, Opname::CALL_FINALLY | Opname::BEGIN_FINALLY) {
            if let Some(t) = i.jump_target() {
                let t = index_of(t).ok_or_else(|| IrError::at(code, i, "jump target is not an instruction"))?;
                reach(t, st.clone(), &mut before, &mut work, i)?;
            }
        }
        if !ends && k + 1 < ins.len() {
            reach(k + 1, st.clone(), &mut before, &mut work, i)?;
        }
        after[k] = Some(st);
    }
    Ok(after)
}

/// What a 3.8 instruction does to the block-stack walk of [`simulate`].
enum Step38 {
    /// Falls through (a jump it has is followed by the caller).
    Through,
    /// Ends the flow (a re-raise).
    Ends,
    /// Goes on at that instruction index only.
    JumpTo(usize),
    /// The next that many instructions are folded into this one (they keep its
    /// block stack and are not walked); goes on after them.
    Skip(usize),
}

/// How the 3.8 `BEGIN_FINALLY` at `k` (after its `POP_BLOCK`) is rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Begin38 {
    /// Falls into the handler at `k + 1` that unbinds `except E as name`
    /// (`LOAD_CONST None; STORE; DELETE; END_FINALLY; POP_EXCEPT`): the clause's
    /// normal exit; goes on at the instruction index given.
    Unbind(usize),
    /// Falls into `WITH_CLEANUP_START; WITH_CLEANUP_FINISH; END_FINALLY` at `k + 1`
    /// (with the await of `__aexit__`'s result between the two in an `async with`,
    /// see [`cleanup38`]): the normal exit of a `with`; the index of that
    /// `WITH_CLEANUP_FINISH` (goes on two instructions after it).
    With(usize),
    /// Followed by `WITH_CLEANUP_START; WITH_CLEANUP_FINISH; POP_FINALLY 0` (the
    /// await between the two in an `async with`; the index of the
    /// `WITH_CLEANUP_FINISH`), after
    /// `POP_BLOCK` (and `ROT_TWO` when a returned value is kept): a `return`,
    /// `break` or `continue` leaving a `with` (CPython 3.8 `Python/compile.c`,
    /// `compiler_unwind_fblock`, case `WITH`). `BEGIN_FINALLY` pushes NULL,
    /// `WITH_CLEANUP_START` calls `__exit__(None, None, None)` in place of the exit
    /// function, `WITH_CLEANUP_FINISH` drops the result and `POP_FINALLY 0` the
    /// NULL (CPython 3.8 `Python/ceval.c`): one [`Op::WithExit`], the rest folded.
    WithPop(usize),
    /// Falls into a `finally` body without jumps that ends with the `END_FINALLY` at
    /// the index given: 3.9's copy of the body on the normal path, then a jump past
    /// that `END_FINALLY`.
    Finally(usize),
}

/// The index of the `END_FINALLY` that ends the `finally` body starting at `h`
/// when that body can be copied, and whether it is straight-line code; `None` when
/// it cannot.
///
/// A body can be copied when its block ops (`SETUP_*`, `POP_BLOCK`, `*FINALLY*`,
/// `*EXCEPT*`, `WITH_*`) are the exits of [`exit38`] at its top level and the
/// `try/except`, `with`, `async with`, `except E as name` and `try/finally` blocks
/// inside it (the `finally` body of a `try/finally` inside it one that can be
/// copied in turn, whose copies nest in this one's; no exit from inside a block),
/// it has no `return`
/// but in those exits (a yield or `await` is copied like any op), every jump in
/// it lands inside it (its `END_FINALLY` included) but the exits', and nothing
/// outside it lands inside it past its first instruction. Straight-line code (no
/// jump, no `raise`, no block) is copied into the offset of the instruction that
/// enters it; a body with branches (`if`, loops, `raise`, blocks) needs offsets of
/// its own for its copies (see [`Facts::scale`]).
fn finally_body(ins: &[Instruction], h: usize) -> Option<(usize, bool)> {
    let mut j = h;
    let mut straight = true;
    // The last instruction of each exit (`return`, `break`, `continue`) of the body.
    let mut exits: BTreeSet<usize> = BTreeSet::new();
    // Blocks opened inside the body (`try/except`, `with`, `except E as name`),
    // each closed by its own END_FINALLY (CPython 3.8 `Python/compile.c`,
    // `compiler_try_except`, `compiler_with`); checked against the block stack by
    // `Facts::scan` (`check_body_end`).
    let mut open = 0usize;
    let e = loop {
        let x = ins.get(j)?;
        match x.id {
            Opname::END_FINALLY if open == 0 => break j,
            Opname::END_FINALLY => open -= 1,
            Opname::POP_FINALLY if open == 0 => {
                let last = exit38(ins, j)?;
                // Leaving blocks around the `try/finally`: its copies' ranges end
                // inside them (offsets of their own).
                straight &= !ins[j..last].iter().any(|x| x.opname == "POP_BLOCK");
                exits.insert(last);
                j = last + 1;
                continue;
            }
            Opname::SETUP_FINALLY | Opname::SETUP_WITH => {
                open += 1;
                straight = false;
            }
            // The normal exit of a `with`, of an `except E as name` clause or of a
            // `try/finally` whose own `finally` body can be copied (the copies of
            // this body then hold copies of that one).
            Opname::BEGIN_FINALLY => {
                let n = names(ins, j + 1, 4);
                let with = cleanup38(ins, j + 1).is_some_and(|f| ins.get(f + 1).is_some_and(|x| x.opname == "END_FINALLY"));
                let unbind = n.len() == 4 && n[0] == "LOAD_CONST" && is_store(n[1]) && n[2].starts_with("DELETE_") && n[3] == "END_FINALLY";
                let handler = ins.get(j + 1).map(|x| x.offset);
                let nested_try = ins[j - 1].opname == "POP_BLOCK"
                    && ins[h..j].iter().any(|s| s.opname == "SETUP_FINALLY" && s.jump_target() == handler)
                    && finally_body(ins, j + 1).is_some();
                if open == 0 || !(with || unbind || nested_try) {
                    return None;
                }
            }
            Opname::POP_BLOCK | Opname::POP_EXCEPT | Opname::WITH_CLEANUP_START | Opname::WITH_CLEANUP_FINISH if open > 0 => {}
            // The entry of an `async with` (its exits are the `WITH_CLEANUP_*` above).
            Opname::SETUP_ASYNC_WITH => {
                open += 1;
                straight = false;
            }
            _ => {
                let plain = !x.opname.contains("FINALLY")
                    && !x.opname.contains("BLOCK")
                    && !x.opname.contains("EXCEPT")
                    && !is_block_setup(x)
                    && !x.opname.starts_with("WITH_")
                    && x.opname != "RETURN_VALUE";
                if !plain {
                    return None;
                }
                straight &= x.opname != "RAISE_VARARGS";
            }
        }
        j += 1;
    };
    let (lo, hi) = (ins[h].offset, ins[e].offset);
    let inside = |t: u32| lo <= t && t <= hi;
    for (k, x) in ins.iter().enumerate() {
        let Some(t) = x.jump_target() else { continue };
        if (h..e).contains(&k) {
            if inside(t) {
                straight = false;
            } else if !exits.contains(&k) {
                return None;
            }
        } else if inside(t) && t != lo {
            return None;
        }
    }
    Some((e, straight))
}

/// 3.8: the index of the last instruction of the exit of a `finally` body that
/// starts with the `POP_FINALLY p` at `j`: `return`, `break` or `continue` inside
/// the body (CPython 3.8 `Python/compile.c`, `compiler_unwind_fblock`, case
/// `FINALLY_END`): `POP_FINALLY p` (`p` = 1 when the returned value is above what
/// it pops), `ROT_TWO` when `p` = 1, `POP_TOP` (the placeholder pushed before the
/// `try`, see [`Facts::try2`]), then the unwinding of enclosing loops (`ROT_TWO`,
/// `POP_TOP`), a `LOAD_CONST` of the returned constant, the `POP_BLOCK` of each
/// `try/except` around the `try/finally` that it leaves, and the `RETURN_VALUE` or
/// jump that leaves. `None` for any other shape (an enclosing `with` or `except`
/// clause to leave as well, ...).
fn exit38(ins: &[Instruction], j: usize) -> Option<usize> {
    let p = ins[j].oparg?;
    let mut k = j + 1;
    match p {
        0 => {}
        1 if ins.get(k)?.opname == "ROT_TWO" => k += 1,
        _ => return None,
    }
    if ins.get(k)?.opname != "POP_TOP" {
        return None;
    }
    k += 1;
    // Nothing lands inside the exit.
    let lands = |a: usize, b: usize| ins.iter().any(|y| y.jump_target().is_some_and(|t| ins[a].offset <= t && t <= ins[b].offset));
    loop {
        let x = ins.get(k)?;
        match x.id {
            // `POP_BLOCK`: leaving a `try/except` around the `try/finally` too.
            Opname::POP_TOP | Opname::ROT_TWO | Opname::LOAD_CONST | Opname::EXTENDED_ARG | Opname::POP_BLOCK => k += 1,
            Opname::RETURN_VALUE | Opname::JUMP_ABSOLUTE | Opname::JUMP_FORWARD => return (!lands(j + 1, k)).then_some(k),
            _ => return None,
        }
    }
}

/// The rewrite of the 3.8 `BEGIN_FINALLY` at `k`, or the error for the shapes not
/// handled (a `finally` body, `async with`).
fn begin38(code: &CodeObject, ins: &[Instruction], k: usize) -> Result<Begin38, IrError> {
    let err = || IrError::at(code, &ins[k], "BEGIN_FINALLY into a finally body (3.8 try/finally is not handled)");
    let cleanup = cleanup38(ins, k + 1);
    if let Some(f) = cleanup.filter(|&f| ins.get(f + 1).is_some_and(|x| x.opname == "POP_FINALLY" && x.oparg == Some(0))) {
        let after_pop_block =
            k >= 1 && ins[k - 1].opname == "POP_BLOCK" || k >= 2 && ins[k - 1].opname == "ROT_TWO" && ins[k - 2].opname == "POP_BLOCK";
        let landed_on = ins[k + 1..=f + 1].iter().any(|x| ins.iter().any(|y| y.jump_target() == Some(x.offset)));
        if after_pop_block && !landed_on {
            return Ok(Begin38::WithPop(f));
        }
        return Err(IrError::at(code, &ins[k], "BEGIN_FINALLY; WITH_CLEANUP_START; WITH_CLEANUP_FINISH; POP_FINALLY of an unknown shape"));
    }
    if k == 0 || ins[k - 1].opname != "POP_BLOCK" {
        return Err(err());
    }
    let h = names(ins, k + 1, 6);
    if let Some(f) = cleanup.filter(|&f| ins.get(f + 1).is_some_and(|x| x.opname == "END_FINALLY")) {
        return Ok(Begin38::With(f));
    }
    // The kind of the SETUP_FINALLY whose handler follows (not the unbinding of
    // `except E as name`, whose body has the same ops).
    let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    let mut finally_handler = false;
    for (s, x) in ins.iter().enumerate() {
        if x.opname == "SETUP_FINALLY" && x.jump_target() == ins.get(k + 1).map(|n| n.offset) {
            finally_handler |= kind_of(code, ins, s, &index_of)?.1 == Kind::Finally;
        }
    }
    if finally_handler {
        if let Some((e, _)) = finally_body(ins, k + 1).filter(|&(e, _)| e + 1 < ins.len()) {
            return Ok(Begin38::Finally(e));
        }
        return Err(IrError::at(
            code,
            &ins[k],
            "BEGIN_FINALLY into a finally body with a return, break or continue inside one of its blocks, or a jump across its bounds (not handled in 3.8)",
        ));
    }
    if h.first() == Some(&"WITH_CLEANUP_START") {
        return Err(IrError::at(code, &ins[k], "BEGIN_FINALLY into the exit of a with of an unknown shape"));
    }
    if h.len() == 6 && is_none(code, &ins[k + 1]) && is_store(h[1]) && h[2].starts_with("DELETE_") && h[3] == "END_FINALLY" && h[4] == "POP_EXCEPT" {
        let after = &ins[k + 6];
        let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
        let t = if matches!(after.id, Opname::JUMP_FORWARD | Opname::JUMP_ABSOLUTE) {
            after.jump_target().and_then(index_of).ok_or_else(err)?
        } else {
            k + 6
        };
        return Ok(Begin38::Unbind(t));
    }
    Err(err())
}

/// The 3.8 block-stack step of instruction `k` with block stack `st` (updated).
fn py38_step(code: &CodeObject, ins: &[Instruction], k: usize, st: &mut Vec<Blk>) -> Result<Step38, IrError> {
    let i = &ins[k];
    match i.id {
        Opname::BEGIN_FINALLY => match begin38(code, ins, k)? {
            Begin38::With(f) => Ok(Step38::JumpTo(f + 2)),
            Begin38::WithPop(f) => Ok(Step38::Skip(f + 1 - k)),
            Begin38::Finally(e) => Ok(Step38::JumpTo(e + 1)),
            Begin38::Unbind(t) => match st.pop() {
                Some(Blk::Handler(Kind::Except)) => Ok(Step38::JumpTo(t)),
                _ => Err(IrError::at(code, i, "BEGIN_FINALLY of an except clause outside its handler")),
            },
        },
        // With the exception on top (the handler of a `with`), pops the handler
        // when `__exit__` suppresses it; END_FINALLY re-raises otherwise.
        Opname::WITH_CLEANUP_FINISH => match st.pop() {
            Some(Blk::Handler(Kind::With)) if ins.get(k + 1).is_some_and(|x| x.opname == "END_FINALLY") && ends_cleanup38(ins, k) => Ok(Step38::Through),
            _ => Err(IrError::at(code, i, "WITH_CLEANUP_FINISH of an unknown shape")),
        },
        Opname::END_FINALLY => match end_finally38(code, ins, k, st)? {
            Op::Reraise => Ok(Step38::Ends),
            _ => Ok(Step38::Through),
        },
        Opname::CALL_FINALLY => {
            call38(code, ins, k)?;
            Ok(Step38::Through)
        }
        // `POP_FINALLY` of a `with` exit is folded into its `BEGIN_FINALLY` (never
        // walked); the others leave a finally body by return/break/continue: on
        // this path (the body entered by an exception) it drops the exception and
        // the handler block (CPython 3.8 `Python/ceval.c`, `POP_FINALLY`).
        Opname::POP_FINALLY if exit38(ins, k).is_some() && st.last() == Some(&Blk::Handler(Kind::Finally)) => {
            st.pop();
            Ok(Step38::Through)
        }
        Opname::POP_FINALLY => Err(IrError::at(
            code,
            i,
            "POP_FINALLY of an unknown shape (return, break or continue inside a 3.8 finally body nested in another block)",
        )),
        _ => Ok(Step38::Through),
    }
}

/// The 3.8 `CALL_FINALLY` at `k`: `return`, `break` or `continue` leaving a
/// `try/finally` body (after `POP_BLOCK`), or leaving an `except E as name` clause
/// (after `POP_BLOCK; POP_EXCEPT`, into the handler unbinding `name`); CPython 3.8
/// `Python/compile.c`, `compiler_unwind_fblock`, cases `FINALLY_TRY` and
/// `HANDLER_CLEANUP`. At run time it pushes the address of the next instruction and
/// jumps to the finally body, whose `END_FINALLY` pops that address and jumps back
/// (CPython 3.8 `Python/ceval.c`, `CALL_FINALLY`, `END_FINALLY`). 3.9 copies the body
/// there instead; so does the IR: returns the index of the body's `END_FINALLY`
/// (the body is `target..end`) and what the copy runs above ([`Held`]); the call
/// falls through to the next instruction.
///
/// When the body itself has an exit (a `try` with a placeholder, see
/// [`Facts::try2`]), the call is `POP_BLOCK; CALL_FINALLY; POP_TOP` (the
/// placeholder dropped after the call) or, for a returned value, `POP_BLOCK;
/// ROT_TWO; POP_TOP; CALL_FINALLY` (the value put in the placeholder's place).
///
/// Errors: another shape, a body that cannot be copied (see [`finally_body`]).
fn call38(code: &CodeObject, ins: &[Instruction], k: usize) -> Result<(usize, Held), IrError> {
    let i = &ins[k];
    let err = |m: &str| IrError::at(code, i, m);
    // The instructions before it, its EXTENDED_ARG prefixes left out.
    let p = ins[..k].iter().rposition(|x| x.opname != "EXTENDED_ARG");
    let name = |j: Option<usize>| j.map(|j| ins[j].opname);
    let back = |n: usize| name(p.and_then(|p| p.checked_sub(n)));
    let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    let t = i.jump_target().and_then(index_of).ok_or_else(|| err("CALL_FINALLY target is not an instruction"))?;
    let mut kinds = Vec::new();
    for (s, x) in ins.iter().enumerate() {
        if x.opname == "SETUP_FINALLY" && x.jump_target() == Some(ins[t].offset) {
            kinds.push(kind_of(code, ins, s, &index_of)?.1);
        }
    }
    if kinds.is_empty() || !kinds.iter().all(|&kd| matches!(kd, Kind::Finally | Kind::NameCleanup)) {
        return Err(err("CALL_FINALLY to a handler that is not a finally body"));
    }
    const REFUSED: &str = "CALL_FINALLY into a finally body with a return, break or continue inside one of its blocks, or a jump across its bounds (not handled in 3.8)";
    let e = finally_body(ins, t).map(|(e, _)| e).ok_or_else(|| err(REFUSED))?;
    let held = if has_exit38(ins, t, e) {
        if back(0) == Some("POP_BLOCK") && ins.get(k + 1).is_some_and(|x| x.opname == "POP_TOP") {
            Held::Placeholder
        } else if back(0) == Some("POP_TOP") && back(1) == Some("ROT_TWO") && back(2) == Some("POP_BLOCK") {
            Held::Value
        } else {
            return Err(err("CALL_FINALLY into a finally body with a return, break or continue, of an unknown shape"));
        }
    } else {
        let after_pop_block = match back(0) {
            Some("POP_BLOCK") => true,
            Some("POP_EXCEPT") => back(1) == Some("POP_BLOCK"),
            _ => false,
        };
        if !after_pop_block {
            return Err(err("CALL_FINALLY not after POP_BLOCK (an unknown 3.8 shape)"));
        }
        Held::Nothing
    };
    Ok((e, held))
}

/// 3.8: whether the `finally` body `h..e` (see [`finally_body`]) has blocks of its
/// own (`try/except`, `with`).
fn nested38(ins: &[Instruction], h: usize, e: usize) -> bool {
    ins[h..e].iter().any(is_block_setup)
}

/// 3.8: checks the `finally` body `h..=e` (see [`finally_body`], which pairs the
/// blocks inside it with their `END_FINALLY` by position) against the block stack
/// `stacks` ([`simulate`]): every instruction reached in it runs inside the
/// handler (the stack of its `SETUP_FINALLY`, the handler entered on top) but
/// those after the `POP_FINALLY` of an exit, and `e` closes it.
///
/// Errors: an instruction of the body outside the handler.
fn check_body_end(code: &CodeObject, ins: &[Instruction], stacks: &[Option<Vec<Blk>>], h: usize, e: usize) -> Result<(), IrError> {
    let Some(s) = ins.iter().position(|x| x.opname == "SETUP_FINALLY" && x.jump_target() == Some(ins[h].offset)) else {
        return Err(IrError::at(code, &ins[h], "a finally body without its SETUP_FINALLY"));
    };
    let Some(st) = &stacks[s] else { return Ok(()) };
    let mut want = st.clone();
    let Some(Blk::Setup { kind, .. }) = want.pop() else { return Err(IrError::at(code, &ins[s], "SETUP_FINALLY without its block")) };
    want.push(Blk::Handler(kind));
    let mut exit_until = None;
    for j in h..=e {
        if ins[j].opname == "POP_FINALLY" {
            exit_until = exit38(ins, j);
        }
        let Some(got) = &stacks[j] else { continue };
        let leaving = exit_until.is_some_and(|l| j <= l);
        if !leaving && !got.starts_with(&want) || j == e && *got != want {
            return Err(IrError::at(code, &ins[j], "a 3.8 finally body whose blocks do not close where expected"));
        }
    }
    Ok(())
}

/// 3.8: whether the `finally` body `h..e` (see [`finally_body`]) has an exit of its
/// own (`POP_FINALLY`, see [`exit38`]).
fn has_exit38(ins: &[Instruction], h: usize, e: usize) -> bool {
    ins[h..e].iter().any(|x| x.opname == "POP_FINALLY")
}

/// 3.8: what a copy of a `finally` body runs above, which its exits
/// (`POP_FINALLY p; [ROT_TWO;] POP_TOP`, see [`exit38`]) drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    /// The body has no exit.
    Nothing,
    /// The placeholder `None` pushed before the `try` ([`Facts::try2`]): 3.9 has
    /// no such value, the exit's three instructions are `Nop`s.
    Placeholder,
    /// The value of a `return` in the `try` body, in the placeholder's place: 3.9
    /// drops it too (`POP_TOP`), only `POP_FINALLY` is a `Nop`.
    Value,
}

/// The op of the 3.8 `END_FINALLY` at `k` whose block stack is `st`: a re-raise
/// in an `except` handler, nothing after `WITH_CLEANUP_FINISH` (which has re-raised
/// or dropped the exception by then, see [`py38_step`]).
fn end_finally38(code: &CodeObject, ins: &[Instruction], k: usize, st: &[Blk]) -> Result<Op, IrError> {
    if k > 0 && ins[k - 1].opname == "WITH_CLEANUP_FINISH" {
        // Not suppressed: the exception is still on top and END_FINALLY re-raises
        // it; the ops of WITH_CLEANUP_START spell that re-raise.
        return Ok(Op::Nop);
    }
    match running(st) {
        // A finally body is entered only by an exception (its normal entries are
        // the copies made at BEGIN_FINALLY and CALL_FINALLY): it re-raises.
        Some(Kind::Except | Kind::NameCleanup | Kind::Finally) => Ok(Op::Reraise),
        _ => Err(IrError::at(code, &ins[k], "END_FINALLY of a finally body (3.8 try/finally is not handled)")),
    }
}

/// The innermost handler block of a stack (entered handlers above it are unwound
/// first).
fn innermost(st: &[Blk]) -> Option<(usize, Kind)> {
    // The head of an `async for` is one op protected by the enclosing handler.
    st.iter().rev().find_map(|b| match *b {
        Blk::Setup { kind: Kind::AsyncFor, .. } => None,
        Blk::Setup { handler, kind } => Some((handler, kind)),
        Blk::Handler(_) => None,
    })
}

/// The kind of the handler being run (the topmost entered handler).
fn running(st: &[Blk]) -> Option<Kind> {
    st.iter().rev().find_map(|b| match *b {
        Blk::Handler(k) => Some(k),
        Blk::Setup { .. } => None,
    })
}

/// Facts of one code object for [`op`]: the instructions that start a handler
/// with an [`Op::PushExcInfo`], and the replacement ops of the instructions that
/// touch the exception triple.
#[derive(Default)]
pub(super) struct Facts {
    /// The [`simulate`] result the facts were read from (empty when the code uses no
    /// block stack), kept for [`protected_ranges_with`]: the walk is done once.
    stacks: Vec<Option<Vec<Blk>>>,
    entries: BTreeSet<usize>,
    /// The handler entries (in `entries`) that a jump also reaches: a loop whose
    /// head is the first instruction of a handler (`while True: try: ...` as the
    /// first statement of a `finally` body, CPython 3.9-3.10 `Python/compile.c`
    /// `compiler_while`, which lays the loop head at the handler's offset). The
    /// jump lands after the exception is pushed (on the 3.8-3.10 block stack the
    /// handler is entered once), so the [`Op::PushExcInfo`] gets an offset of its
    /// own, one below the instruction's ([`split_entries`]): 3.11 lays out
    /// `PUSH_EXC_INFO` before the loop's head too. Offsets not scaled only.
    split: BTreeSet<usize>,
    plan: BTreeMap<usize, Op>,
    /// 3.8: the rewrite of each reached `BEGIN_FINALLY`.
    begin38: BTreeMap<usize, Begin38>,
    /// 3.8: each reached `CALL_FINALLY`, the `END_FINALLY` of its body and what
    /// the copy runs above ([`call38`]).
    call38: BTreeMap<usize, (usize, Held)>,
    /// 3.8: the handlers (first instruction of the `finally` body) of the
    /// `try/finally` statements whose `finally` body has a `return`, `break` or
    /// `continue` of its own: CPython 3.8 `Python/compile.c` (`compiler_try_finally`,
    /// block `FINALLY_TRY2`) pushes a placeholder `None` before `SETUP_FINALLY`, for
    /// the value of a `return` in the `try` body, and pops it after the body's
    /// `END_FINALLY`. 3.9 has none: both are `Nop`s (in `plan`), and so are the
    /// instructions moving or dropping it ([`call38`], [`exit38`]).
    try2: BTreeSet<usize>,
    /// 3.8: the `POP_FINALLY p` starting each exit of such a body ([`exit38`]), with
    /// `p`. Reached by an exception (the handler itself), it drops the exception and
    /// the handler like 3.9's `POP_TOP; POP_TOP; POP_TOP; POP_EXCEPT` (with the two
    /// `ROT_FOUR` around them that keep a returned value on top when `p` = 1).
    pop38: BTreeMap<usize, u32>,
    /// 3.8: the last instruction is the `POP_TOP` of a placeholder: unreachable
    /// (the `finally` body before it never ends normally) and left out of the ops
    /// ([`drop_last_pop38`]), as 3.9 has no such instruction.
    last_pop38: bool,
    /// 3.8: 1, or, when a `finally` body with branches is copied, the factor by
    /// which every IR offset is the instruction's byte offset (see [`copy_offsets`]):
    /// instruction offset `o` is IR offset `o * scale`, and the copy entered at
    /// offset `b` takes the IR offsets `b * scale + u * (1 + i)` for body
    /// instruction `i`, `u = scale / step`, so that its branches have targets of
    /// their own. A copy nested in a copy (a `try/finally` inside a `finally`
    /// body) takes the offsets between those of its entering instruction's slot
    /// and the next one likewise, with unit `u / step`: `scale` is `step` to the
    /// power of the deepest nesting.
    pub(super) scale: u32,
    /// 3.8, with `scale > 1`: the factor between the slots of a copy and those of
    /// a copy nested in it (a power of two above the number of instructions).
    step: u32,
    /// 3.8, with `scale > 1`: the copies emitted, in order ([`op`] fills it).
    copies: std::cell::RefCell<Vec<Copy38>>,
    /// By instruction index: whether `split`, `entries`, `pop38` or `plan` holds it
    /// (empty when none holds any). [`op`] asks for every instruction; most are in
    /// none of them, and one look here spares four tree searches.
    marked: Vec<bool>,
}

/// One copy of a 3.8 `finally` body in the normalized ops, when offsets are scaled.
#[derive(Clone, Copy, Debug)]
struct Copy38 {
    /// Positions in the ops: `start..end` (a copy nested in this one lies inside).
    start: usize,
    end: usize,
    /// The `BEGIN_FINALLY` or `CALL_FINALLY` entering it, the body's first
    /// instruction and its `END_FINALLY`.
    at: usize,
    from: usize,
    to: usize,
    /// Entered by `BEGIN_FINALLY`: a jump to its `END_FINALLY` goes past the
    /// handler.
    begin: bool,
}

impl Facts {
    /// 3.8: finds the `try/finally` statements with a placeholder ([`Facts::try2`])
    /// and plans their instructions: the placeholder's `LOAD_CONST None` and the
    /// `POP_TOP` after the `END_FINALLY` are `Nop`s; each exit of the body
    /// ([`exit38`]) is recorded in `pop38`, its `ROT_TWO` and `POP_TOP` after the
    /// `POP_FINALLY` are `Nop`s (they move and drop the placeholder).
    ///
    /// Errors: a `finally` body with an exit without the placeholder around it.
    fn scan_try2(&mut self, code: &CodeObject, ins: &[Instruction]) -> Result<(), IrError> {
        let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
        for (k, i) in ins.iter().enumerate() {
            if i.opname != "SETUP_FINALLY" {
                continue;
            }
            let (t, kind) = kind_of(code, ins, k, &index_of)?;
            if kind != Kind::Finally {
                continue;
            }
            let Some((e, _)) = finally_body(ins, t) else { continue };
            if !has_exit38(ins, t, e) {
                continue;
            }
            let placeholder = k >= 1 && is_none(code, &ins[k - 1]) && ins.get(e + 1).is_some_and(|x| x.opname == "POP_TOP");
            if !placeholder {
                return Err(IrError::at(code, i, "a 3.8 finally body with a return, break or continue without the placeholder value around its try"));
            }
            self.try2.insert(t);
            self.plan.insert(k - 1, Op::Nop);
            self.plan.insert(e + 1, Op::Nop);
            if e + 2 == ins.len() {
                self.last_pop38 = true;
            }
            for (j, x) in ins.iter().enumerate().take(e).skip(t) {
                if x.opname == "POP_FINALLY" {
                    let p = x.oparg.unwrap_or(0);
                    self.pop38.insert(j, p);
                    for n in j + 1..=j + 1 + p as usize {
                        self.plan.insert(n, Op::Nop);
                    }
                }
            }
        }
        Ok(())
    }

    /// 3.8: the body entered by the `BEGIN_FINALLY` or `CALL_FINALLY` at `k` (a
    /// copy), as its first instruction and its `END_FINALLY`; `None` for another
    /// instruction.
    fn copied_body(&self, ins: &[Instruction], k: usize) -> Option<(usize, usize)> {
        match (self.begin38.get(&k), self.call38.get(&k)) {
            (Some(&Begin38::Finally(e)), _) => Some((k + 1, e)),
            (_, Some(&(e, _))) => ins[k].jump_target().and_then(|t| ins.binary_search_by_key(&t, |i| i.offset).ok()).map(|t| (t, e)),
            _ => None,
        }
    }

    /// 3.8: how deep the copies of the body entered at `k` nest (1 without a copy
    /// inside it, 0 when `k` enters no copy).
    fn copy_depth(&self, ins: &[Instruction], k: usize) -> u32 {
        match self.copied_body(ins, k) {
            Some((from, to)) => 1 + (from..to).filter(|&j| j != k).map(|j| self.copy_depth(ins, j)).max().unwrap_or(0),
            None => 0,
        }
    }

    /// Scans `ins` (3.9-3.10): see the module docs for what is rewritten.
    pub(super) fn scan(code: &CodeObject, ins: &[Instruction]) -> Result<Facts, IrError> {
        if !uses_block_stack(ins) {
            return Ok(Facts { scale: 1, ..Facts::default() });
        }
        let stacks = simulate(code, ins)?;
        let mut f = Facts::scan_with(code, ins, &stacks)?;
        f.stacks = stacks;
        Ok(f)
    }

    /// [`Facts::scan`] of code that uses the block stack, given its [`simulate`]
    /// result `stacks` (so that a caller that has them does not walk the code again).
    fn scan_with(code: &CodeObject, ins: &[Instruction], stacks: &[Option<Vec<Blk>>]) -> Result<Facts, IrError> {
        let mut f = Facts { scale: 1, ..Facts::default() };
        let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
        if code.version.minor == 8 {
            f.scan_try2(code, ins)?;
        }
        // Where the exception triple is on top at the start of an except clause (dead
        // code included: 3.9 keeps unreachable copies of handlers, normalized alike).
        let mut clause_starts = BTreeSet::new();
        for (k, i) in ins.iter().enumerate() {
            if is_block_setup(i) {
                let (t, kind) = kind_of(code, ins, k, &index_of)?;
                if !matches!(kind, Kind::NameCleanup | Kind::AsyncFor) {
                    f.entries.insert(t);
                }
                if kind == Kind::Except {
                    clause_starts.insert(t);
                }
            }
            if let Some(j) = exc_match_jump(ins, k) {
                clause_starts.insert(j + 1);
                if let Some(t) = ins[j].jump_target().and_then(index_of) {
                    clause_starts.insert(t);
                }
            }
            if i.opname == "JUMP_IF_NOT_EXC_MATCH" {
                clause_starts.insert(k + 1);
                if let Some(t) = i.jump_target().and_then(index_of) {
                    clause_starts.insert(t);
                }
            }
        }
        let pops3 = |k: usize| names(ins, k, 3) == ["POP_TOP", "POP_TOP", "POP_TOP"];
        for &k in &clause_starts {
            let n = names(ins, k, 3);
            match n.as_slice() {
                ["DUP_TOP", ..] => {
                    f.plan.insert(k, Op::Nop);
                }
                ["POP_TOP", s, "POP_TOP"] if is_store(s) => {
                    f.plan.insert(k, Op::Nop);
                    f.plan.insert(k + 2, Op::Nop);
                }
                _ if pops3(k) => {
                    f.plan.insert(k, Op::PopTop);
                    f.plan.insert(k + 1, Op::Nop);
                    f.plan.insert(k + 2, Op::Nop);
                }
                ["RERAISE", ..] => {}
                // Re-raises: decided with the other END_FINALLYs below.
                ["END_FINALLY", ..] if code.version.minor == 8 => {}
                _ => return Err(IrError::at(code, &ins[k], "an except clause of an unknown shape")),
            }
        }
        let pop_except_next = |mut j: usize| {
            while ins.get(j).is_some_and(|x| x.opname == "POP_BLOCK") {
                j += 1;
            }
            ins.get(j).is_some_and(|x| x.opname == "POP_EXCEPT")
        };
        for (k, i) in ins.iter().enumerate() {
            // 3.8 keeps an unreachable END_FINALLY after the last except clause (3.9 a
            // RERAISE).
            if code.version.minor == 8 && i.opname == "END_FINALLY" && stacks[k].is_none() {
                f.plan.insert(k, Op::Reraise);
            }
            let Some(st) = &stacks[k] else { continue };
            // The stack of `k` is the one after it; for the ops below (no block
            // effect) it is also the one before.
            let run = running(st);
            if code.version.minor == 8 {
                match i.id {
                    Opname::END_FINALLY => {
                        f.plan.insert(k, end_finally38(code, ins, k, st)?);
                    }
                    Opname::BEGIN_FINALLY => {
                        f.begin38.insert(k, begin38(code, ins, k)?);
                    }
                    Opname::CALL_FINALLY => {
                        let (e, held) = call38(code, ins, k)?;
                        f.call38.insert(k, (e, held));
                        // The placeholder: dropped after the call, or replaced by
                        // the returned value before it.
                        match held {
                            Held::Placeholder => {
                                f.plan.insert(k + 1, Op::Nop);
                            }
                            Held::Value => {
                                let p = ins[..k].iter().rposition(|x| x.opname != "EXTENDED_ARG").expect("checked by call38");
                                f.plan.insert(p, Op::Nop);
                                f.plan.insert(p - 1, Op::Nop);
                            }
                            Held::Nothing => {}
                        }
                    }
                    _ => {}
                }
            }
            match i.id {
                // A finally body or the end of a `with` handler drops the triple before
                // `POP_EXCEPT` (a `return` value may sit below it, moved by ROT_FOUR).
                Opname::POP_TOP if matches!(run, Some(Kind::Finally | Kind::With)) && pops3(k) && !f.plan.contains_key(&k) => {
                    let j = if ins.get(k + 3).is_some_and(|x| x.opname == "ROT_FOUR") { k + 4 } else { k + 3 };
                    if pop_except_next(j) {
                        f.plan.insert(k, Op::PopTop);
                        f.plan.insert(k + 1, Op::Nop);
                        f.plan.insert(k + 2, Op::Nop);
                    }
                }
                Opname::ROT_FOUR if run.is_some() => {
                    let before_triple = matches!(run, Some(Kind::Finally | Kind::With)) && pops3(k + 1);
                    if before_triple || pop_except_next(k + 1) {
                        f.plan.insert(k, Op::Swap(2));
                    }
                }
                _ => {}
            }
        }
        // 3.8: the bodies copied close where expected.
        for (&k, b) in &f.begin38 {
            if let Begin38::Finally(e) = *b {
                check_body_end(code, ins, stacks, k + 1, e)?;
            }
        }
        for (&k, &(e, _)) in &f.call38 {
            let t = ins[k].jump_target().and_then(index_of).ok_or_else(|| IrError::at(code, &ins[k], "CALL_FINALLY target is not an instruction"))?;
            check_body_end(code, ins, stacks, t, e)?;
        }
        // 3.8: a body with branches entered on a normal path needs offsets of its own.
        let branchy = |h: usize| finally_body(ins, h).is_some_and(|(_, straight)| !straight);
        let needs = f.begin38.iter().any(|(&k, b)| matches!(b, Begin38::Finally(_)) && branchy(k + 1))
            || f.call38.keys().any(|&k| ins[k].jump_target().and_then(index_of).is_some_and(branchy));
        if needs {
            let step = (ins.len() as u64 + 2).next_power_of_two();
            let depth = f.begin38.keys().chain(f.call38.keys()).map(|&k| f.copy_depth(ins, k)).max().unwrap_or(1);
            let scale = (0..depth).try_fold(1u64, |a, _| a.checked_mul(step).filter(|&x| x < u64::from(u32::MAX)));
            let last = ins.last().map_or(0, |i| u64::from(i.offset) + 2);
            match scale.and_then(|sc| last.checked_mul(sc).filter(|&x| x < u64::from(u32::MAX)).map(|_| sc)) {
                Some(sc) => {
                    f.scale = sc as u32;
                    f.step = step as u32;
                }
                None => return Err(IrError::at(code, &ins[0], "a 3.8 finally body with branches in a code object too large to copy it")),
            }
        }
        // Handler entries that a jump reaches too (see `Facts::split`).
        for (j, i) in ins.iter().enumerate() {
            // 3.8's `CALL_FINALLY` enters the body as a copy (see the module docs).
            if is_block_setup(i) || i.opname == "CALL_FINALLY" || stacks[j].is_none() {
                continue;
            }
            if let Some(t) = i.jump_target().and_then(index_of).filter(|t| f.entries.contains(t)) {
                if f.scale > 1 {
                    return Err(IrError::at(
                        code,
                        &ins[t],
                        format!("a handler whose first instruction (offset {}) is also the target of a jump (a loop starting a finally body), in a 3.8 finally body copied with branches: not supported by the decompiler yet", ins[t].offset),
                    ));
                }
                if t == 0 || ins[t - 1].offset + 1 >= ins[t].offset {
                    return Err(IrError::at(code, &ins[t], "a handler entry that is also a jump target, with no offset free before it"));
                }
                f.split.insert(t);
            }
        }
        f.marked = vec![false; ins.len()];
        for &k in f.split.iter().chain(&f.entries).chain(f.pop38.keys()).chain(f.plan.keys()) {
            if let Some(m) = f.marked.get_mut(k) {
                *m = true;
            }
        }
        Ok(f)
    }
}

/// 3.8: when instruction `k` is `COMPARE_OP 10` (exception match) followed by its
/// `POP_JUMP_IF_FALSE` (with the `EXTENDED_ARG` prefixes of a far target between
/// them), the index of that jump (CPython 3.8 `Python/compile.c`,
/// `compiler_try_except`).
fn exc_match_jump(ins: &[Instruction], k: usize) -> Option<usize> {
    if !(ins[k].opname == "COMPARE_OP" && ins[k].oparg == Some(10)) {
        return None;
    }
    let j = (k + 1..ins.len()).find(|&j| ins[j].opname != "EXTENDED_ARG")?;
    (ins[j].opname == "POP_JUMP_IF_FALSE").then_some(j)
}

/// The op of instruction `k` when it belongs to the block stack or an exception
/// handler (emitting it); `Ok(false)` for the rest. Inlined: most instructions are
/// none of [`op_at`]'s and leave here without the call.
#[inline(always)]
pub(super) fn op(cx: &mut Cx<'_>, k: usize, facts: &Facts) -> Result<bool, IrError> {
    if !facts.marked.get(k).copied().unwrap_or(false) && !may_be_block_op(cx.code, &cx.ins[k]) {
        return Ok(false);
    }
    op_at(cx, k, facts, true)
}

/// Whether [`op_at`] may take instruction `i` when the facts mark nothing at it: the
/// opcodes of its match (a `LOAD_CONST` only of `None`). Keep in step with that match.
#[inline(always)]
fn may_be_block_op(code: &CodeObject, i: &Instruction) -> bool {
    match i.id {
        Opname::SETUP_FINALLY
        | Opname::END_ASYNC_FOR
        | Opname::BEFORE_ASYNC_WITH
        | Opname::SETUP_ASYNC_WITH
        | Opname::WITH_EXCEPT_START
        | Opname::POP_BLOCK
        | Opname::SETUP_WITH
        | Opname::POP_EXCEPT
        | Opname::RERAISE
        | Opname::BEGIN_FINALLY
        | Opname::CALL_FINALLY
        | Opname::WITH_CLEANUP_START
        | Opname::WITH_CLEANUP_FINISH
        | Opname::COMPARE_OP
        | Opname::JUMP_IF_NOT_EXC_MATCH => true,
        Opname::LOAD_CONST => is_none(code, i),
        _ => false,
    }
}

/// [`op`]; without `entry`, a handler starting at `k` is not entered there (no
/// [`Op::PushExcInfo`]): the first instruction of a copy of a `finally` body.
fn op_at(cx: &mut Cx<'_>, k: usize, facts: &Facts, entry: bool) -> Result<bool, IrError> {
    if facts.marked.get(k).copied().unwrap_or(false) {
        if entry && facts.split.contains(&k) {
            let i = &cx.ins[k];
            cx.out.push(IrInstr { offset: i.offset - 1, at: i.offset, op: Op::PushExcInfo, line: i.line_number, opname: i.opname });
        } else if entry && facts.entries.contains(&k) {
            cx.emit(k, Op::PushExcInfo);
        }
        // 3.8, an exit of a finally body reached by an exception: 3.9's `[ROT_FOUR;]
        // POP_TOP; POP_TOP; POP_TOP; [ROT_FOUR;] POP_EXCEPT`.
        if let Some(&p) = facts.pop38.get(&k) {
            if p == 1 {
                cx.emit(k, Op::Swap(2));
            }
            cx.emit(k, Op::PopTop);
            if p == 1 {
                cx.emit(k, Op::Swap(2));
            }
            cx.emit(k, Op::PopExcept);
            return Ok(true);
        }
        if let Some(op) = facts.plan.get(&k) {
            cx.emit(k, op.clone());
            return Ok(true);
        }
    }
    let ins = cx.ins;
    let code = cx.code;
    let i = &ins[k];
    let op = match i.id {
        // See the module docs (`async for`, `async with`).
        Opname::SETUP_FINALLY => match async_for_head(code, ins, k) {
            Some(t) => {
                cx.out.push(IrInstr { offset: i.offset, at: i.offset, op: Op::ForIter(ins[t].offset), line: ins[k + 1].line_number, opname: ins[k + 1].opname });
                cx.drop_more = 4;
                return Ok(true);
            }
            None => Op::Nop,
        },
        Opname::END_ASYNC_FOR if ends_async_for(code, ins, k) => Op::Nop,
        Opname::BEFORE_ASYNC_WITH if awaits_at(code, ins, k + 1) && names(ins, k + 4, 1) == ["SETUP_ASYNC_WITH"] => {
            cx.skip_more = 3;
            Op::BeforeAsyncWith
        }
        Opname::SETUP_ASYNC_WITH if k >= 4 && ins[k - 4].opname == "BEFORE_ASYNC_WITH" => Op::Nop,
        Opname::WITH_EXCEPT_START if awaits_at(code, ins, k + 1) => {
            cx.skip_more = 3;
            Op::WithExceptStart
        }
        Opname::POP_BLOCK => Op::Nop,
        Opname::SETUP_WITH => Op::BeforeWith,
        Opname::POP_EXCEPT => Op::PopExcept,
        Opname::RERAISE => Op::Reraise,
        Opname::WITH_EXCEPT_START => Op::WithExceptStart,
        // 3.8: see the module docs; the ops of the handler's start at the offset of
        // BEGIN_FINALLY.
        Opname::BEGIN_FINALLY => match facts.begin38.get(&k) {
            Some(&Begin38::With(f)) => {
                cx.emit(k, Op::WithExit);
                Op::Jump(threaded(ins, f + 2))
            }
            Some(&Begin38::Unbind(t)) => {
                cx.emit(k, Op::PopExcept);
                for j in k + 1..k + 4 {
                    let n = cx.out.len();
                    super::py38::op(cx, j)?;
                    for o in &mut cx.out[n..] {
                        o.offset = i.offset;
                        o.at = i.offset;
                        o.line = i.line_number;
                        o.opname = i.opname;
                    }
                }
                Op::Jump(ins[t].offset)
            }
            Some(&Begin38::Finally(e)) => {
                let held = if facts.try2.contains(&(k + 1)) { Held::Placeholder } else { Held::Nothing };
                if facts.scale > 1 {
                    cx.emit(k, Op::Nop);
                    copy_finally(cx, k, k + 1, e, facts, held)?;
                    return Ok(true);
                }
                copy_finally(cx, k, k + 1, e, facts, held)?;
                // A body ending with a `return` goes nowhere after it.
                if cx.out.iter().rev().find(|o| o.op != Op::Nop).is_some_and(|o| o.op.is_terminator()) {
                    Op::Nop
                } else {
                    let a = after_end(ins, facts, k + 1, e).ok_or_else(|| cx.err(k, "a finally body that falls off the end of the code"))?;
                    Op::Jump(threaded(ins, a))
                }
            }
            Some(&Begin38::WithPop(f)) => {
                cx.skip_more = f + 1 - k;
                Op::WithExit
            }
            // Not reached (dead code after a `return`, `break` or `continue` at the
            // end of a try body): nothing.
            None => Op::Nop,
        },
        Opname::CALL_FINALLY => match facts.call38.get(&k) {
            Some(&(e, held)) => {
                cx.emit(k, Op::Nop);
                let t = cx.at_offset(cx.target(k)).ok_or_else(|| cx.err(k, "CALL_FINALLY target is not an instruction"))?;
                copy_finally(cx, k, t, e, facts, held)?;
                return Ok(true);
            }
            None => return Ok(false),
        },
        // 3.8, the exceptional exit of a `with`: `__exit__(type, value, tb)`, then a
        // re-raise unless it returned true.
        // (`async with`: `await __aexit__(type, value, tb)`, the await folded.)
        Opname::WITH_CLEANUP_START
            if code.version.minor == 8 && cleanup38(ins, k).is_some_and(|f| ins.get(f + 1).is_some_and(|x| x.opname == "END_FINALLY")) =>
        {
            let f = cleanup38(ins, k).expect("checked");
            cx.emit(k, Op::WithExceptStart);
            cx.emit(k, Op::JumpIf { when: true, target: ins[f].offset });
            cx.skip_more = f - k - 1;
            Op::Reraise
        }
        // Suppressed: the triple, the handler and the exit function are dropped.
        Opname::WITH_CLEANUP_FINISH if code.version.minor == 8 && ends_cleanup38(ins, k) => {
            cx.emit(k, Op::PopTop);
            cx.emit(k, Op::PopExcept);
            Op::PopTop
        }
        Opname::COMPARE_OP if exc_match_jump(ins, k).is_some() => {
            let j = exc_match_jump(ins, k).expect("checked");
            cx.emit(k, Op::CheckExcMatch);
            cx.skip_more = j - k;
            Op::JumpIf { when: false, target: cx.target(j) }
        }
        Opname::JUMP_IF_NOT_EXC_MATCH => {
            cx.emit(k, Op::CheckExcMatch);
            Op::JumpIf { when: false, target: cx.target(k) }
        }
        // `exit(None, None, None)`: the normal exit of a `with`.
        Opname::LOAD_CONST
            if is_none(code, i)
                && names(ins, k + 1, 4) == ["DUP_TOP", "DUP_TOP", "CALL_FUNCTION", "POP_TOP"]
                && ins[k + 3].oparg == Some(3) =>
        {
            cx.skip_more = 4;
            Op::WithExit
        }
        // `await exit(None, None, None)`: the normal exit of an `async with`.
        Opname::LOAD_CONST
            if is_none(code, i)
                && names(ins, k + 1, 3) == ["DUP_TOP", "DUP_TOP", "CALL_FUNCTION"]
                && ins[k + 3].oparg == Some(3)
                && awaits_at(code, ins, k + 4)
                && names(ins, k + 7, 1) == ["POP_TOP"] =>
        {
            cx.skip_more = 7;
            Op::WithExit
        }
        _ => return Ok(false),
    };
    cx.emit(k, op);
    Ok(true)
}

/// 3.8: the offset where a jump to instruction `j` goes: the target of the jump at
/// `j` if it is an unconditional jump, as 3.9's jump threading makes its copies of a
/// `finally` body or a `with` exit jump (CPython 3.9 `Python/peephole.c`), else `j`'s.
fn threaded(ins: &[Instruction], j: usize) -> u32 {
    match ins[j].id {
        Opname::JUMP_ABSOLUTE | Opname::JUMP_FORWARD => ins[j].jump_target().unwrap_or(ins[j].offset),
        _ => ins[j].offset,
    }
}

/// 3.8: emits the ops of the `finally` body `from..end` (`end` its `END_FINALLY`,
/// see [`finally_body`]) for instruction `k`, the `BEGIN_FINALLY` or
/// `CALL_FINALLY` that enters it on a normal path: 3.9's copy of the body there
/// (CPython 3.9 `Python/compile.c`, `compiler_try_finally` and
/// `compiler_unwind_fblock`, case `FINALLY_TRY`).
///
/// Without `scaled`, the body is straight-line code and its ops take `k`'s offset.
/// With it (the code object's `Facts`, `scale > 1`), the ops keep the offsets and
/// lines of the body's instructions, the `END_FINALLY` becomes a jump past the
/// handler (entered by `BEGIN_FINALLY`) or a `Nop` falling through to the
/// instruction after `k` (`CALL_FINALLY`), and the copy is recorded for
/// [`copy_offsets`], which gives it offsets of its own.
fn copy_finally(cx: &mut Cx<'_>, k: usize, from: usize, end: usize, facts: &Facts, held: Held) -> Result<(), IrError> {
    let scaled = facts.scale > 1;
    let nested = nested38(cx.ins, from, end);
    if nested && !scaled {
        return Err(cx.err(k, "a finally body with blocks of its own copied without offsets of its own"));
    }
    // The body's ops emitted with their own offsets first (folds look back by
    // offset), then moved to k's.
    let n = cx.out.len();
    // Recorded before the copies nested in it (`copy_offsets` reads them in order).
    let slot = scaled.then(|| {
        let mut c = facts.copies.borrow_mut();
        c.push(Copy38 { start: n, end: n, at: k, from, to: end, begin: cx.ins[k].opname == "BEGIN_FINALLY" });
        c.len() - 1
    });
    let mut j = from;
    while j < end {
        // An exit of the body: on a normal path `POP_FINALLY` pops nothing 3.9 has;
        // the `ROT_TWO; POP_TOP` after it drop the placeholder (a `Nop` too) or the
        // returned value of the try body (kept).
        if let Some(&p) = facts.pop38.get(&j) {
            cx.emit(j, Op::Nop);
            j += 1;
            for _ in 0..=p {
                // Not as planned for the exception path (`Nop`s): they drop the value.
                if held == Held::Placeholder {
                    cx.emit(j, Op::Nop);
                } else {
                    super::py38::op(cx, j)?;
                }
                j += 1;
            }
            continue;
        }
        // A body with blocks of its own: their ops as on the exception path; the
        // `POP_BLOCK` of an exit leaving a `try/except` around the `try/finally`
        // (see `exit38`) pops nothing of the IR.
        if cx.ins[j].id == Opname::POP_BLOCK && !nested {
            cx.emit(j, Op::Nop);
        } else if !nested || !op_at(cx, j, facts, j != from)? {
            super::py38::op(cx, j)?;
        }
        j += 1;
        while cx.skip_more > 0 || cx.skip_next {
            if cx.skip_more > 0 {
                cx.skip_more -= 1;
            } else {
                cx.skip_next = false;
            }
            j += 1;
        }
    }
    if j != end || cx.drop_more > 0 {
        return Err(cx.err(k, "a finally body folded past its END_FINALLY"));
    }
    if held != Held::Nothing && !facts.pop38.keys().any(|j| (from..end).contains(j)) {
        return Err(cx.err(k, "a copy of a finally body with a placeholder but no exit"));
    }
    if let Some(slot) = slot {
        let begin = cx.ins[k].opname == "BEGIN_FINALLY";
        // Past the end of the code: the body never reaches its END_FINALLY.
        let last = match after_end(cx.ins, facts, from, end) {
            Some(a) if begin => Op::Jump(threaded(cx.ins, a)),
            _ => Op::Nop,
        };
        cx.emit(end, last);
        facts.copies.borrow_mut()[slot].end = cx.out.len();
        return Ok(());
    }
    let i = &cx.ins[k];
    for o in &mut cx.out[n..] {
        o.offset = i.offset;
        o.at = i.offset;
        o.line = i.line_number;
        o.opname = i.opname;
    }
    Ok(())
}

/// 3.8: the index of the instruction after the `finally` body `from..=end` (its
/// `END_FINALLY` at `end`): `end + 1`, or `end + 2` past the `POP_TOP` of the
/// placeholder ([`Facts::try2`], a `Nop`); `None` past the end of the code (the
/// body never ends normally).
fn after_end(ins: &[Instruction], facts: &Facts, from: usize, end: usize) -> Option<usize> {
    let a = if facts.try2.contains(&from) { end + 2 } else { end + 1 };
    (a < ins.len()).then_some(a)
}

/// 3.8, when a `finally` body with branches was copied (`facts.scale > 1`): gives
/// the ops of `ir` their final offsets. An op of instruction offset `o` outside the
/// copies takes `o * scale`; an op of the copy entered at IR offset `b`, from body
/// instruction `from + i`, takes `b + u * (1 + i)`, `u` the copy's unit (see
/// [`Facts::scale`]; a copy nested in a copy is entered at its entering
/// instruction's slot in the enclosing copy). Jump targets follow: a target inside
/// the body (its `END_FINALLY` included) is the copy's own, except that in a copy
/// entered by `BEGIN_FINALLY` a jump to the `END_FINALLY` goes where that copy's
/// last jump goes before its own threading, the instruction after the
/// `END_FINALLY` (3.9's jump threading is one pass in instruction order, CPython
/// 3.9 `Python/peephole.c`: a forward jump to a jump takes that jump's target as
/// compiled; `FOR_ITER` is not threaded). Likewise in a copy entered by
/// `CALL_FINALLY`, when the instruction after the call is a jump, a jump to the
/// `END_FINALLY` takes that jump's target, and when it is `RETURN_VALUE`, an
/// unconditional jump to the `END_FINALLY` is a return (the same peephole
/// replaces a jump to a return by the return). Any other target is resolved in
/// the enclosing copy likewise (without the threading when it comes from one), and
/// outside every copy target `t` is `t * scale`.
///
/// Errors: a copy whose ops are not where [`copy_finally`] put them.
pub(super) fn copy_offsets(code: &CodeObject, ins: &[Instruction], facts: &Facts, ir: &mut [IrInstr]) -> Result<(), IrError> {
    let s = facts.scale;
    if s <= 1 {
        return Ok(());
    }
    let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    let copies = facts.copies.borrow();
    // The copies holding the op being given its offset, outermost first.
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    for (p, x) in ir.iter_mut().enumerate() {
        while open.last().is_some_and(|&c| copies[c].end <= p) {
            open.pop();
        }
        while next < copies.len() && copies[next].start <= p {
            if copies[next].end > p {
                open.push(next);
            }
            next += 1;
        }
        if open.is_empty() {
            x.offset *= s;
            if let Some(t) = x.op.jump_target() {
                set_jump_target(&mut x.op, t * s);
            }
            continue;
        }
        let chain: Vec<Copy38> = open.iter().map(|&c| copies[c]).collect();
        let bad = || IrError::at(code, &ins[chain[0].at], "a copy of a finally body out of place");
        // The IR offset entering each copy of the chain and the unit of its slots.
        let mut bases: Vec<(u32, u32)> = Vec::with_capacity(chain.len());
        let mut b = ins[chain[0].at].offset * s;
        let mut u = s;
        for (l, c) in chain.iter().enumerate() {
            u /= facts.step;
            if u == 0 {
                return Err(bad());
            }
            bases.push((b, u));
            if let Some(inner) = chain.get(l + 1) {
                if !(c.from..=c.to).contains(&inner.at) {
                    return Err(bad());
                }
                b += u * (1 + (inner.at - c.from) as u32);
            }
        }
        // The slot of instruction offset `off` in the copy at level `l`.
        let slot = |l: usize, off: u32| {
            let c = &chain[l];
            index_of(off).filter(|&j| (c.from..=c.to).contains(&j)).map(|j| bases[l].0 + bases[l].1 * (1 + (j - c.from) as u32))
        };
        let last = chain.len() - 1;
        x.offset = slot(last, x.offset).ok_or_else(bad)?;
        let Some(mut t) = x.op.jump_target() else { continue };
        // Target `t` resolved from the innermost copy outwards; `threads` until a
        // copy's END_FINALLY has been threaded once.
        let mut threads = !matches!(x.op, Op::ForIter(_));
        let mut nt = None;
        for l in (0..=last).rev() {
            let c = &chain[l];
            let (lo, hi) = (ins[c.from].offset, ins[c.to].offset);
            if !(lo <= t && t <= hi) {
                continue;
            }
            if t == hi && threads {
                // After a CALL_FINALLY: what its copy falls into
                // (past the `POP_TOP` of a placeholder, a `Nop`).
                let placeholder = facts.call38.get(&c.at).is_some_and(|&(_, h)| h == Held::Placeholder);
                let after = ins.get(if placeholder { c.at + 2 } else { c.at + 1 }).ok_or_else(bad)?;
                if c.begin {
                    t = ins[after_end(ins, facts, c.from, c.to).ok_or_else(bad)?].offset;
                    threads = false;
                    continue;
                } else if matches!(after.id, Opname::JUMP_ABSOLUTE | Opname::JUMP_FORWARD) {
                    t = after.jump_target().ok_or_else(bad)?;
                    threads = false;
                    continue;
                } else if after.opname == "RETURN_VALUE" && matches!(x.op, Op::Jump(_)) {
                    x.op = Op::Return;
                    break;
                }
            }
            nt = Some(slot(l, t).ok_or_else(bad)?);
            break;
        }
        if x.op == Op::Return {
            continue;
        }
        set_jump_target(&mut x.op, nt.unwrap_or(t * s));
    }
    Ok(())
}

/// 3.8: removes the `Nop` of the last instruction when it is the `POP_TOP` of a
/// placeholder ([`Facts::try2`]) and nothing jumps to it: it is dead code after the
/// `finally` body's `END_FINALLY` (which only re-raises on that path) and would fall
/// off the end of the code.
pub(super) fn drop_last_pop38(ins: &[Instruction], facts: &Facts, ir: &mut Vec<IrInstr>) {
    let Some(last) = ins.last() else { return };
    if !facts.last_pop38 || ir.last().is_none_or(|x| x.op != Op::Nop || x.opname != "POP_TOP") {
        return;
    }
    let off = ir.last().expect("checked").offset;
    if last.offset * facts.scale == off && !ir.iter().any(|x| x.op.jump_target() == Some(off)) {
        ir.pop();
    }
}

/// Sets the jump target of a jump op (nothing for other ops).
pub(super) fn set_jump_target(op: &mut Op, to: u32) {
    match op {
        Op::Jump(t) | Op::JumpIf { target: t, .. } | Op::JumpIfNone { target: t, .. } | Op::JumpIfOrPop { target: t, .. } | Op::ForIter(t) => *t = to,
        _ => {}
    }
}

/// The protected ranges of a 3.9-3.10 code object (see the module docs), from its
/// instructions and its normalized ops `ir`. Empty when it has no `SETUP_*`.
/// The IR stack depth that each reached `SETUP_*` instruction records (its
/// handler is entered with that many values plus the exception), by a walk of the
/// instructions with their ops `ir` from the entry and every handler.
///
/// Errors: an instruction reached with two depths, a stack underflow.
fn levels(code: &CodeObject, ins: &[Instruction], ir: &[IrInstr]) -> Result<BTreeMap<usize, u32>, IrError> {
    let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    // IR ops of each instruction, in IR order: those of instruction k are the
    // `owned[first[k]..first[k + 1]]` (pairs of instruction and IR index), one
    // allocation for all instead of one per instruction.
    // The ops come in instruction order but where a normalizer moved one: a cursor
    // finds their instructions, with a binary search for an op behind it.
    let mut owned: Vec<(usize, usize)> = Vec::with_capacity(ir.len());
    let mut c = 0usize;
    for (j, x) in ir.iter().enumerate() {
        let k = if ins.get(c).is_some_and(|i| i.offset <= x.offset) {
            while ins.get(c + 1).is_some_and(|i| i.offset <= x.offset) {
                c += 1;
            }
            (ins[c].offset == x.offset).then_some(c)
        } else {
            index_of(x.offset)
        };
        if let Some(k) = k {
            owned.push((k, j));
        }
    }
    owned.sort_unstable();
    let mut first = vec![0usize; ins.len() + 1];
    for &(k, _) in &owned {
        first[k + 1] += 1;
    }
    for k in 0..ins.len() {
        first[k + 1] += first[k];
    }
    let ops_of = |k: usize| owned[first[k]..first[k + 1]].iter().map(|&(_, j)| &ir[j].op);
    let split = split_entries(ins, ir);
    // IR stack depth before each instruction, from the entry and every handler
    // (entered with the range's depth plus the exception).
    let mut depth: Vec<Option<i64>> = vec![None; ins.len()];
    // Handler depth of each SETUP_* instruction (the stack level it records).
    let mut level: BTreeMap<usize, u32> = BTreeMap::new();
    let mut work = Vec::new();
    if !ins.is_empty() {
        depth[0] = Some(0);
        work.push(0);
    }
    let bad = |k: usize, m: String| IrError::at(code, &ins[k], m);
    // Successors of the instruction being walked, with their depths (reused).
    let mut succ: Vec<(usize, i64)> = Vec::new();
    while let Some(k) = work.pop() {
        let d0 = depth[k].expect("queued with a depth");
        let mut d = d0;
        let mut jump = None;
        for op in ops_of(k) {
            if op.jump_target().is_some() {
                let (p, q) = op.stack_effect_on(true);
                jump = Some(d + i64::from(q) - i64::from(p));
            }
            let (p, q) = op.stack_effect();
            d += i64::from(q) - i64::from(p);
            if d < 0 {
                return Err(bad(k, "stack underflow in the block-stack walk".into()));
            }
        }
        succ.clear();
        let i = &ins[k];
        if is_block_setup(i) {
            // SETUP_FINALLY records the level before it; SETUP_WITH and
            // SETUP_ASYNC_WITH the level below the value they push.
            let lv = if i.opname == "SETUP_FINALLY" { d } else { d - 1 };
            let lv = u32::try_from(lv).map_err(|_| bad(k, "negative handler depth".into()))?;
            level.insert(k, lv);
            let t = i.jump_target().and_then(index_of).ok_or_else(|| bad(k, "handler target is not an instruction".into()))?;
            // The `END_ASYNC_FOR` of an `async for` head is reached by its `ForIter`.
            // A split entry's `PushExcInfo` is no op of `t` (see `Facts::split`).
            if async_for_head(code, ins, k).is_none() {
                succ.push((t, i64::from(lv) + if split.contains(&t) { 2 } else { 1 }));
            }
        }
        let last = ops_of(k).rev().find(|o| !matches!(o, Op::Nop));
        if let (Some(j), Some(t)) = (jump, ops_of(k).find_map(|o| o.jump_target())) {
            succ.push((index_of(t).ok_or_else(|| bad(k, "jump target is not an instruction".into()))?, j));
        }
        let ends = last.is_some_and(|o| o.is_terminator()) || ends_flow(i.opname);
        // Ops folded into an earlier instruction (`Nop`s) do not end the flow.
        if !ends && k + 1 < ins.len() {
            succ.push((k + 1, d));
        }
        for (s, ds) in succ.drain(..) {
            reach_with_depth(&mut depth, &mut work, s, ds).map_err(|old| bad(s, format!("reached with stack depths {old} and {ds}")))?;
        }
    }
    Ok(level)
}

/// The handler entries whose [`Op::PushExcInfo`] has an offset of its own, one
/// below the instruction's, because a jump reaches the instruction too (see
/// `Facts::split`): by index, read from the ops `ir`.
fn split_entries(ins: &[Instruction], ir: &[IrInstr]) -> BTreeSet<usize> {
    let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    ir.iter()
        .filter(|x| matches!(x.op, Op::PushExcInfo) && index_of(x.offset).is_none())
        .filter_map(|x| index_of(x.offset + 1))
        .collect()
}

/// Whether a 3.8-3.10 instruction named `opname` never falls through to the next one.
fn ends_flow(opname: &str) -> bool {
    matches!(opname, "RETURN_VALUE" | "RAISE_VARARGS" | "RERAISE" | "JUMP_FORWARD" | "JUMP_ABSOLUTE")
}

/// One step of the depth walks ([`levels`], [`levels_by_ops`]): position `s` is
/// reached with depth `d`; the first time it is recorded and queued on `work`.
/// `Err(old)` when `s` was reached before with another depth `old`.
fn reach_with_depth(depth: &mut [Option<i64>], work: &mut Vec<usize>, s: usize, d: i64) -> Result<(), i64> {
    match depth[s] {
        None => {
            depth[s] = Some(d);
            work.push(s);
            Ok(())
        }
        Some(old) if old == d => Ok(()),
        Some(old) => Err(old),
    }
}

/// The depth recorded by each reached `SETUP_*` instruction (by index) and by each
/// copy of one in a `finally` body (by IR offset), see [`levels_by_ops`].
type Levels = (BTreeMap<usize, u32>, BTreeMap<u32, u32>);

/// [`levels`] for 3.8 code whose IR offsets are scaled by `scale` (copies of
/// `finally` bodies with branches, see [`copy_offsets`]): the walk goes op by op,
/// a jump landing on the first op at or after its target; the ops of instruction
/// `k` are those at offset `ins[k].offset * scale`, the copies' ops lie between.
///
/// A `SETUP_*` copied with a `finally` body (see [`nested38`]) records its level
/// too, in the second map, by the IR offset of its copy, and enters the copy of
/// its handler.
///
/// Errors: an op reached with two depths, a stack underflow.
fn levels_by_ops(code: &CodeObject, ins: &[Instruction], ir: &[IrInstr], scale: u32, step: u32) -> Result<Levels, IrError> {
    let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    let bad = |p: usize, m: String| IrError::at(code, &ins[index_of(ir[p].offset / scale).unwrap_or(0)], m);
    let pos = |t: u32| ir.partition_point(|x| x.offset < t);
    let mut depth: Vec<Option<i64>> = vec![None; ir.len()];
    let mut level: BTreeMap<usize, u32> = BTreeMap::new();
    let mut copy_level: BTreeMap<u32, u32> = BTreeMap::new();
    let mut work = Vec::new();
    if !ir.is_empty() {
        depth[0] = Some(0);
        work.push(0);
    }
    while let Some(p) = work.pop() {
        let d = depth[p].expect("queued with a depth");
        let x = &ir[p];
        let mut succ: Vec<(usize, i64)> = Vec::new();
        if let Some(t) = x.op.jump_target() {
            let (a, b) = x.op.stack_effect_on(true);
            succ.push((pos(t), d + i64::from(b) - i64::from(a)));
        }
        let (a, b) = x.op.stack_effect();
        let d2 = d + i64::from(b) - i64::from(a);
        if d2 < 0 {
            return Err(bad(p, "stack underflow in the block-stack walk".into()));
        }
        let mut ends = x.op.is_terminator();
        // The last op of an instruction (not of a copy): SETUP_* enters its
        // handler, and what ends the instruction's flow ends it.
        let own = if x.offset.is_multiple_of(scale) { index_of(x.offset / scale) } else { None };
        if let Some(k) = own.filter(|_| ir.get(p + 1).is_none_or(|n| n.offset != x.offset)) {
            let i = &ins[k];
            if is_block_setup(i) {
                let lv = if i.opname == "SETUP_FINALLY" { d2 } else { d2 - 1 };
                let lv = u32::try_from(lv).map_err(|_| bad(p, "negative handler depth".into()))?;
                level.insert(k, lv);
                let t = i.jump_target().ok_or_else(|| bad(p, "handler target is not an instruction".into()))?;
                // The `END_ASYNC_FOR` of an `async for` head is reached by its `ForIter`.
                if async_for_head(code, ins, k).is_none() {
                    succ.push((pos(t * scale), i64::from(lv) + 1));
                }
            }
            ends |= ends_flow(i.opname);
        } else if let Some((base, u, j, from)) = copied(ins, x.offset, scale, step).filter(|_| ir.get(p + 1).is_none_or(|n| n.offset != x.offset)) {
            // The last op of a copied SETUP_*: enters the copy of its handler.
            let i = &ins[j];
            if is_block_setup(i) {
                let lv = if i.opname == "SETUP_FINALLY" { d2 } else { d2 - 1 };
                let lv = u32::try_from(lv).map_err(|_| bad(p, "negative handler depth".into()))?;
                copy_level.insert(x.offset, lv);
                let h = i.jump_target().and_then(index_of).filter(|&h| h > from).ok_or_else(|| bad(p, "handler target is not in the finally body".into()))?;
                succ.push((pos(base + u * (1 + (h - from) as u32)), i64::from(lv) + 1));
            }
        }
        if !ends && p + 1 < ir.len() {
            succ.push((p + 1, d2));
        }
        for (q, dq) in succ.into_iter().filter(|&(q, _)| q < ir.len()) {
            reach_with_depth(&mut depth, &mut work, q, dq).map_err(|old| bad(q, format!("reached with stack depths {old} and {dq}")))?;
        }
    }
    Ok((level, copy_level))
}

/// 3.8 with scaled offsets ([`copy_offsets`]): for the IR offset `off` of an op of
/// a copy of a `finally` body, the IR offset entering the innermost copy holding it
/// (that of the `BEGIN_FINALLY` or `CALL_FINALLY`, or of its slot in the enclosing
/// copy), the unit of that copy's slots, the index of the body instruction copied
/// and that of the body's first instruction. `None` for the offset of an
/// instruction of the code or of an entering instruction in a copy.
fn copied(ins: &[Instruction], off: u32, scale: u32, step: u32) -> Option<(u32, u32, usize, usize)> {
    if off.is_multiple_of(scale) || step < 2 {
        return None;
    }
    let index_of = |o: u32| ins.binary_search_by_key(&o, |i| i.offset).ok();
    let mut at = index_of(off / scale)?;
    let mut base = off / scale * scale;
    let mut u = scale;
    let mut found = None;
    while u > 1 && !(off - base).is_multiple_of(u) {
        let from = match ins[at].id {
            Opname::BEGIN_FINALLY => at + 1,
            Opname::CALL_FINALLY => index_of(ins[at].jump_target()?)?,
            _ => return None,
        };
        u /= step;
        let d = (off - base) / u;
        if d == 0 {
            return None;
        }
        let j = from + (d - 1) as usize;
        found = Some((base, u, j, from));
        base += d * u;
        at = j;
    }
    found.filter(|_| off == base)
}

/// Appends the range `start..end` protected by `r` (handler IR offset and depth;
/// `None`: unprotected) to `out`, merged with the last range when they touch.
fn push_range(out: &mut Vec<ExceptionTableEntry>, start: u32, end: u32, r: Option<(u32, u32)>) {
    let Some((target, depth)) = r else { return };
    match out.last_mut() {
        Some(x) if x.end == start && x.target == target && x.depth == depth => x.end = end,
        _ => out.push(ExceptionTableEntry { start, end, target, depth, lasti: false }),
    }
}

/// 3.8 with scaled offsets: what [`protected_ranges`] knows to give the copies of
/// `finally` bodies their ranges.
struct CopyRanges<'a> {
    code: &'a CodeObject,
    ins: &'a [Instruction],
    facts: &'a Facts,
    stacks: &'a [Option<Vec<Blk>>],
    /// The `SETUP_*` instruction of each handler.
    setup_of: &'a BTreeMap<usize, usize>,
    /// The depth recorded by each copied `SETUP_*`, by IR offset ([`levels_by_ops`]).
    copy_level: &'a BTreeMap<u32, u32>,
    /// The depth recorded by each `SETUP_*` of the code, by index ([`levels_by_ops`]).
    level: &'a BTreeMap<usize, u32>,
    scale: u32,
    step: u32,
}

impl CopyRanges<'_> {
    /// The ranges of `b..end`: the ops of instruction `k` at IR offset `b`, then the
    /// copy of the body `k` enters, its body instruction `j` at `b + u * (1 + j -
    /// from)`, a copy nested in it likewise with unit `u / step`. The entering ops
    /// and the copy are protected by `own`, but for the instructions inside a block
    /// opened in the body, protected by the copy of its handler at the depth its
    /// copied `SETUP_*` records.
    ///
    /// Errors: a body without its `SETUP_FINALLY`, a copied block whose depth is
    /// unknown.
    fn copy_ranges(&self, out: &mut Vec<ExceptionTableEntry>, k: usize, b: u32, u: u32, end: u32, own: Option<(u32, u32)>) -> Result<(), IrError> {
        let ins = self.ins;
        let Some((from, to)) = self.facts.copied_body(ins, k) else {
            push_range(out, b, end, own);
            return Ok(());
        };
        let bad = |k: usize, m: &str| IrError::at(self.code, &ins[k], m);
        let entry = ins
            .iter()
            .position(|x| x.opname == "SETUP_FINALLY" && x.jump_target() == Some(ins[from].offset))
            .and_then(|s| self.stacks[s].as_ref())
            .map(Vec::len)
            .ok_or_else(|| bad(from, "a finally body without its SETUP_FINALLY"))?;
        push_range(out, b, b + u, own);
        let slot = |j: usize| b + u * (1 + (j - from) as u32);
        for j in from..=to {
            let st = self.stacks[j].as_ref().map(|st| if is_block_setup(&ins[j]) { &st[..st.len() - 1] } else { &st[..] });
            let inner = st.and_then(|sj| innermost(sj.get(entry..).unwrap_or(&[])));
            let r = match inner {
                Some((h, _)) => {
                    let s = self.setup_of[&h];
                    let lv = self.copy_level.get(&slot(s)).ok_or_else(|| bad(s, "a copied SETUP block whose stack depth is unknown"))?;
                    Some((slot(h), *lv))
                }
                // An exit of the body past its handler and blocks around the
                // `try/finally` (`POP_FINALLY ... POP_BLOCK`, see `exit38`): what is
                // left is the stack of the instruction entering the copy, less
                // those blocks, as on the exception path.
                None if st.is_some_and(|sj| sj.len() < entry) => {
                    if u * self.step != self.scale {
                        return Err(bad(j, "an exit of a finally body leaving blocks around it, in a copy nested in a copy"));
                    }
                    match st.and_then(innermost) {
                        Some((h, _)) => {
                            let s = self.setup_of[&h];
                            Some((ins[h].offset * self.scale, *self.level.get(&s).ok_or_else(|| bad(s, "a SETUP block whose stack depth is unknown"))?))
                        }
                        None => None,
                    }
                }
                None => own,
            };
            if j != k && u >= self.step && self.facts.copied_body(ins, j).is_some() {
                self.copy_ranges(out, j, slot(j), u / self.step, slot(j) + u, r)?;
            } else {
                push_range(out, slot(j), slot(j) + u, r);
            }
        }
        push_range(out, slot(to) + u, end, own);
        Ok(())
    }
}

/// The protected ranges of a 3.8-3.10 code object (see the module docs), from its
/// instructions and its normalized ops `ir`; empty without `SETUP_*`. In 3.8 a
/// copy of a `finally` body lies in the range of the instruction entering it, but
/// for the instructions inside the blocks of the body, protected by the copies of
/// their handlers.
///
/// Errors: those of [`simulate`] and of the depth walks, a copied block whose depth
/// is unknown.
/// The `break` or `continue` that ends a `try` body (before its `except` clauses),
/// told from the dead code after it: CPython 3.8 and 3.9 (`Python/compile.c`,
/// `compiler_try_except`) emit the body's own `POP_BLOCK; JUMP_FORWARD` after the
/// body's last statement even when that statement jumps away, and only their
/// peephole pass drops what follows a `RETURN_VALUE`. So `POP_BLOCK; [POP_TOP;]
/// JUMP_ABSOLUTE` (the unwinding of `compiler_unwind_fblock` and the jump of the
/// `break` or `continue`) followed by an unreachable `POP_BLOCK; JUMP_*` is a
/// statement of the body, while the same jump reached through the body's
/// `POP_BLOCK; JUMP_FORWARD` (threaded by the peephole pass) is an `else:` or code
/// after the `try`. That `POP_BLOCK` and the instructions after it are given the
/// block stack before it (index -> stack), so they lie in the body's protected range
/// (they cannot raise) and structuring reads the jump inside the body. 3.10 drops
/// the dead code, and both sources compile the same there.
fn exit_tails(code: &CodeObject, ins: &[Instruction], stacks: &[Option<Vec<Blk>>]) -> BTreeMap<usize, Vec<Blk>> {
    let mut out = BTreeMap::new();
    if code.version.minor > 9 {
        return out;
    }
    let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    for k in 1..ins.len() {
        if ins[k].id != Opname::POP_BLOCK {
            continue;
        }
        let (Some(st), Some(prev)) = (&stacks[k], &stacks[k - 1]) else { continue };
        // The body's last instruction falls into the `POP_BLOCK` with the `try`'s
        // block on top.
        let popped = prev.len() == st.len() + 1 && prev[..st.len()] == st[..] && matches!(prev.last(), Some(Blk::Setup { kind: Kind::Except, .. }));
        if !popped || ends_flow(ins[k - 1].opname) {
            continue;
        }
        // (An `EXTENDED_ARG` is part of the instruction after it.)
        let real = |mut j: usize| {
            while ins.get(j).is_some_and(|i| i.id == Opname::EXTENDED_ARG) {
                j += 1;
            }
            j
        };
        let mut j = real(k + 1);
        if ins.get(j).is_some_and(|i| i.id == Opname::POP_TOP) {
            j = real(j + 1);
        }
        let jumps = ins.get(j).is_some_and(|i| i.id == Opname::JUMP_ABSOLUTE && stacks[j].is_some());
        let (d1, d2) = (real(j + 1), real(real(j + 1) + 1));
        let dead = ins.get(d1).is_some_and(|i| i.id == Opname::POP_BLOCK && stacks[d1].is_none())
            && ins.get(d2).is_some_and(|i| matches!(i.id, Opname::JUMP_FORWARD | Opname::JUMP_ABSOLUTE) && stacks[d2].is_none());
        if !(jumps && dead) {
            continue;
        }
        // A loop in a `finally` body: its `break` goes to the body's `END_FINALLY`
        // (3.8) or `RERAISE` (3.9's copy in the handler), where structuring reads
        // the loop's follow only with the jump outside the `try`; 3.9's copy on the
        // normal path, which cannot be told from other code here, must read the
        // same. Such code is left as it was read before.
        let to_end = ins[j].jump_target().and_then(index_of).is_some_and(|t| matches!(ins[t].id, Opname::END_FINALLY | Opname::RERAISE));
        if to_end || st.contains(&Blk::Handler(Kind::Finally)) {
            return BTreeMap::new();
        }
        for t in k..=j {
            out.insert(t, prev.clone());
        }
    }
    out
}

pub(super) fn protected_ranges(code: &CodeObject, ins: &[Instruction], ir: &[IrInstr]) -> Result<Vec<ExceptionTableEntry>, IrError> {
    if !uses_block_stack(ins) {
        return Ok(Vec::new());
    }
    let stacks = simulate(code, ins)?;
    // 3.8 with copies of finally bodies with branches: IR offsets are scaled.
    let facts = if code.version.minor == 8 { Some(Facts::scan_with(code, ins, &stacks)?) } else { None };
    ranges_of(code, ins, ir, &stacks, facts.as_ref())
}

/// [`protected_ranges`] given `facts`, the [`Facts::scan`] of the same `ins`: its
/// block-stack walk (and for 3.8 the facts themselves) are not worked out again.
pub(super) fn protected_ranges_with(code: &CodeObject, ins: &[Instruction], ir: &[IrInstr], facts: &Facts) -> Result<Vec<ExceptionTableEntry>, IrError> {
    if !uses_block_stack(ins) {
        return Ok(Vec::new());
    }
    ranges_of(code, ins, ir, &facts.stacks, (code.version.minor == 8).then_some(facts))
}

/// [`protected_ranges`] from the block stacks `stacks` ([`simulate`]) and, for 3.8,
/// the [`Facts`] read from them.
fn ranges_of(code: &CodeObject, ins: &[Instruction], ir: &[IrInstr], stacks: &[Option<Vec<Blk>>], facts: Option<&Facts>) -> Result<Vec<ExceptionTableEntry>, IrError> {
    let index_of = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    let bad = |k: usize, m: String| IrError::at(code, &ins[k], m);
    let scale = facts.map_or(1, |f| f.scale);
    let (level, copy_level) = if scale > 1 { levels_by_ops(code, ins, ir, scale, facts.map_or(1, |f| f.step))? } else { (levels(code, ins, ir)?, BTreeMap::new()) };
    // Each reached instruction is protected by the innermost SETUP block on its
    // stack; the SETUP instruction recording that block gives the depth.
    let mut setup_of: BTreeMap<usize, usize> = BTreeMap::new();
    for (k, i) in ins.iter().enumerate() {
        if is_block_setup(i) && stacks[k].is_some() {
            let t = i.jump_target().and_then(index_of).expect("checked by the walk");
            setup_of.insert(t, k);
        }
    }
    // A SETUP_* instruction lies outside its own range, as 3.11's `BEFORE_WITH`
    // (and the NOP of `try:`) does.
    let trimmed = |k: usize| stacks[k].as_ref().map(|st| if is_block_setup(&ins[k]) { &st[..st.len() - 1] } else { &st[..] });
    // Unscaled offsets only: a split entry starts one below its instruction.
    let split = if scale == 1 { split_entries(ins, ir) } else { BTreeSet::new() };
    let at = |k: usize| ins[k].offset - u32::from(split.contains(&k));
    let tails = exit_tails(code, ins, stacks);
    let mut out: Vec<ExceptionTableEntry> = Vec::new();
    for (k, i) in ins.iter().enumerate() {
        let Some(st) = tails.get(&k).map(|v| &v[..]).or_else(|| trimmed(k)) else { continue };
        let own = match innermost(st) {
            Some((h, _)) => {
                let s = setup_of[&h];
                Some((at(h) * scale, *level.get(&s).ok_or_else(|| bad(s, "a SETUP block whose stack depth is unknown".into()))?))
            }
            None => None,
        };
        // With scaled offsets, the copies entered at k lie inside k's range, but for
        // the instructions inside the blocks of their bodies (see `copy_ranges`).
        let start = at(k) * scale;
        let end = if k + 1 < ins.len() { at(k + 1) * scale } else { (i.offset + 2) * scale };
        match facts.filter(|_| scale > 1) {
            Some(f) if f.copied_body(ins, k).is_some() => {
                let step = f.step;
                let cx = CopyRanges { code, ins, facts: f, stacks, setup_of: &setup_of, copy_level: &copy_level, level: &level, scale, step };
                cx.copy_ranges(&mut out, k, start, scale / step, end, own)?;
            }
            _ => push_range(&mut out, start, end, own),
        }
    }
    if scale == 1 {
        extend_over_popped_return(ins, ir, &mut out);
    }
    Ok(out)
}

/// 3.8-3.10 leave the join of `return a or b` (`and`) at the end of a `try` body out
/// of the body's range: the branches of the value meet at the body's `POP_BLOCK`, which
/// the range ends before. The value is computed under the handlers; what follows it
/// up to the return (`POP_BLOCK`s, the `ROT_TWO; POP_TOP` that drops a `for` loop's
/// iterator, the `RETURN_VALUE`) cannot raise. Read as it is, the folded `return a or
/// b` lands after the `try` and runs outside its handlers (the 3.11+ counterpart is
/// `extend_over_merged_return` in `normalize/mod.rs`).
///
/// For the range of a `try` body (its handler starts with [`Op::PushExcInfo`] in `ir`)
/// whose last instruction falls into such a run of instructions that cannot raise,
/// where every jump into the run comes from inside the range: extends the range over
/// the run up to its last jump target, and on to the run's `RETURN_VALUE` when the
/// run reaches one. The pieces of enclosing blocks' ranges inside the extension (they
/// cover only `POP_BLOCK`s there) are dropped: protecting an instruction that cannot
/// raise by one handler or another changes nothing. `ins` is the decoded code, `out`
/// ranges in its (unscaled) offsets, one handler per instruction.
fn extend_over_popped_return(ins: &[Instruction], ir: &[IrInstr], out: &mut Vec<ExceptionTableEntry>) {
    let mut k = 0;
    while k < out.len() {
        let r = out[k];
        k += 1;
        if ir.iter().find(|i| i.offset == r.target).map(|i| &i.op) != Some(&Op::PushExcInfo) {
            continue;
        }
        // Only a value's join: where a statement ends (a `with` that suppressed an
        // exception goes on) the `POP_BLOCK` is the end of the body as written.
        let Some(end) = super::merged_end(ins, r.start..r.end, &["POP_BLOCK", "NOP", "ROT_TWO", "POP_TOP"], true) else { continue };
        // Other ranges meeting the extension must lie inside it.
        if out.iter().any(|o| o.start != r.start && o.start < end && r.end < o.end && !(r.end <= o.start && o.end <= end)) {
            continue;
        }
        out.retain(|o| o.start == r.start || !(r.end <= o.start && o.end <= end));
        k = out.iter().position(|o| o.start == r.start).expect("kept") + 1;
        out[k - 1].end = end;
    }
}

