//! CPython 3.15 → [`Op`](crate::Op): 3.14 (`py314::own`) plus what 3.15 changed.
//!
//! - The iterator of a `for` loop takes two stack slots (CPython 3.15
//!   `Python/bytecodes.c`): `GET_ITER` is `(iterable -- iter, index_or_null)`, `FOR_ITER`
//!   reads both and pushes the next value, `POP_ITER` is `(iter, index_or_null -- )`, and
//!   leaving a loop early (`break`, `return`, an exception handler's exit) pops the two
//!   with two `POP_TOP`s. The second slot is the interpreter's own (a list/tuple index or
//!   NULL) and no source expression stands for it, so [`post314::drop_hidden_slots`](super::post314::drop_hidden_slots) removes it:
//!   the normalized stream has the one-slot iterator of [`Op::GetIter`]/[`Op::ForIter`]
//!   that every other version has, and the depth operands (`SWAP`, `COPY`,
//!   `LIST_APPEND`, ...) and the handlers' stack depths ([`handler_hidden_slots`]) no
//!   longer count it.
//! - A generator expression takes the iterable, not `iter(iterable)`: `LOAD_CONST
//!   <genexpr>; MAKE_FUNCTION; <iterable>; CALL 0`, and the generator runs `LOAD_FAST
//!   .0; GET_ITER` before `RETURN_GENERATOR` (an async one whose first `for` is an
//!   `async for`: `LOAD_FAST_BORROW .0; GET_AITER`). Both sides are normalized to the
//!   3.14 convention (a `GetIter` or `GetAIter` before the call, none in the
//!   generator; [`genexpr_entry`] tells the caller which).
//! - `await x` is `GET_AWAITABLE; PUSH_NULL; None; SEND ...` and `yield from x`
//!   `GET_ITER; None; SEND ...`: the receiver also has two slots ([`delegation`]).
//! - `IMPORT_NAME` keeps lazy/eager import flags in its low two bits (PEP 810 `lazy
//!   import`): the eager flag that the compiler gives imports where `lazy` is not
//!   allowed (functions, class bodies, `try` blocks) is a plain import; the lazy flag
//!   is [`Op::LazyImportName`](crate::Op::LazyImportName).
//! - `LOAD_COMMON_CONSTANT` also loads `list`, `set`, `None`, `''`, `True`, `False`,
//!   `-1` (see `py314`).

use rustc_hash::FxHashMap as HashMap;

use depyf_bytecode::{Opname, CodeObject, Instruction};

use super::common::{Cx, Normalized};
use super::post311::{self, Family, Loops, OwnOps};
use super::post314::GenexprEntry;
use super::{post314, py314, IrError};
use crate::{CallLayout, Op};

const FAMILY: Family =
    Family { layout: CallLayout::NullSecond, for_iter_skips: &["POP_ITER"], call_ex_kwargs_slot: true, own: Some(OwnOps { opnames: &OWN, op: own }) };

/// The opnames that [`own`] normalizes: 3.14's and `IMPORT_NAME`.
const OWN: [Opname; 6] = {
    let mut all = [Opname::IMPORT_NAME; 6];
    let mut i = 0;
    while i < py314::OWN.len() {
        all[i] = py314::OWN[i];
        i += 1;
    }
    all
};

fn own(cx: &Cx<'_>, k: usize) -> Result<Option<Op>, IrError> {
    match cx.ins[k].id {
        // Bit 1 (eager) is what the compiler gives a plain `import` where `lazy import`
        // is not allowed (PEP 810: in functions, class bodies and `try` blocks), so a
        // plain `import` there makes it again; no syntax asks for it.
        Opname::IMPORT_NAME if cx.arg(k) & 3 == 2 => Ok(Some(Op::ImportName(cx.idx(k)))),
        // Bit 0: `lazy import` / `lazy from ... import` (CPython 3.15 `Python/codegen.c`).
        Opname::IMPORT_NAME if cx.arg(k) & 3 == 1 => Ok(Some(Op::LazyImportName(cx.idx(k)))),
        Opname::IMPORT_NAME if cx.arg(k) & 3 != 0 => Err(cx.err(k, "an import both lazy and eager")),
        _ => py314::own(cx, k),
    }
}

/// The opnames whose ops [`post314::drop_hidden_slots`] rewrites; in lenient mode,
/// when it cannot run, their instructions are reported as errors (their ops still
/// count the hidden slots).
const HIDDEN_SLOT_OPS: [&str; 4] = ["GET_ITER", "FOR_ITER", "POP_ITER", "LOAD_SPECIAL"];

/// Normalizes, returning the ops and, per handler offset, the hidden slots within its
/// kept depth (see `post314`).
fn run(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<(Normalized, HashMap<u32, u32>), IrError> {
    let cx = Cx::new(code, ins, lenient);
    let loops = Loops::scan(&cx, &FAMILY)?;
    let (mut ir, mut errors) = cx.run(|cx, k| match cx.ins[k].id {
        Opname::COPY if post314::inlined_builtin_call(cx.code, cx.ins, k).is_some() => {
            let n = post314::inlined_builtin_call(cx.code, cx.ins, k).expect("checked");
            cx.emit(k, Op::Nop);
            cx.skip_more = n - 1;
            Ok(())
        }
        Opname::COPY if post314::async_with_enter(cx.code, cx.ins, k).is_some() => {
            let n = post314::async_with_enter(cx.code, cx.ins, k).expect("checked");
            post314::async_with_enter_emit(cx, k, n);
            Ok(())
        }
        Opname::COPY if post314::is_with_enter(cx.ins, k) => {
            post314::with_enter(cx, k);
            Ok(())
        }
        // The index slot is pushed as a `PushNull` that `drop_hidden_slots` recognizes
        // by its opname and removes.
        // A generator expression gets its iterable (`.0`) and calls `iter()` on it
        // before `RETURN_GENERATOR`; the caller's `GetIter` stands for it (see
        // `post314::drop_hidden_slots`), so `.0` is the iterator as before 3.15.
        Opname::GET_AWAITABLE | Opname::GET_ITER if delegation(code, ins, k).is_some() => {
            let (op, n) = delegation(code, ins, k).expect("checked");
            cx.emit(k, op);
            cx.skip_more = n;
            Ok(())
        }
        Opname::GET_ITER | Opname::GET_AITER if genexpr_iter(code, ins, k) => {
            cx.emit(k, Op::Nop);
            Ok(())
        }
        Opname::GET_ITER => {
            cx.emit(k, Op::GetIter);
            cx.emit(k, Op::PushNull);
            Ok(())
        }
        Opname::POP_ITER if !loops.is_dead(k) => {
            cx.emit(k, Op::PopTop);
            cx.emit(k, Op::PopTop);
            Ok(())
        }
        _ => post311::op(cx, &FAMILY, &loops, k),
    })?;
    let mut fix = HashMap::default();
    if errors.is_empty() {
        fix = post314::drop_hidden_slots(code, ins, &mut ir, Some(genexpr_entry))?;
    } else {
        // Another instruction emitted nothing: the stack cannot be followed.
        for i in ins.iter().filter(|i| HIDDEN_SLOT_OPS.contains(&i.opname)) {
            errors.push(IrError::at(code, i, "hidden stack slot not followed (another instruction has no normalized form)"));
        }
    }
    Ok(((ir, errors), fix))
}

/// `await x` / `yield from x` at instruction `k`: `GET_AWAITABLE; PUSH_NULL` or
/// `GET_ITER` (each leaving the receiver and an index or NULL), then `None`, `SEND`,
/// `YIELD_VALUE`, `RESUME`, `JUMP_BACKWARD_NO_INTERRUPT`, possibly `CLEANUP_THROW`, `END_SEND`
/// (`(receiver, index_or_null, value -- value)`): one [`Op::Await`]/[`Op::YieldFrom`] and the
/// number of instructions after `k` folded into it (the `CLEANUP_THROW` handler is
/// dropped as in 3.12+, see `post311_exc`).
fn delegation(code: &CodeObject, ins: &[Instruction], k: usize) -> Option<(Op, usize)> {
    let (op, from) = match ins[k].id {
        Opname::GET_AWAITABLE if ins.get(k + 1)?.opname == "PUSH_NULL" => (Op::Await, k + 2),
        Opname::GET_ITER => (Op::YieldFrom, k + 1),
        _ => return None,
    };
    let none = ins.get(from)?;
    let is_none = none.opname == "LOAD_COMMON_CONSTANT" && none.oparg == Some(7)
        || none.opname == "LOAD_CONST" && matches!(none.argval, depyf_bytecode::Argval::Const(c) if matches!(code.co_consts.get(c as usize), Some(depyf_bytecode::Constant::None)));
    let rest = ["SEND", "YIELD_VALUE", "RESUME", "JUMP_BACKWARD_NO_INTERRUPT"];
    let ok = is_none && rest.iter().enumerate().all(|(j, n)| ins.get(from + 1 + j).is_some_and(|i| i.opname == *n));
    if !ok {
        return None;
    }
    // `END_SEND`, with the `CLEANUP_THROW` of `throw()` laid out right before it where
    // the loop does not fall through to it (e.g. inside an `except` clause), as in
    // `post311_async::await_tail`.
    let end = from + rest.len() + 1;
    let last = match (ins.get(end).map(|i| i.id), ins.get(end + 1).map(|i| i.id)) {
        (Some(Opname::END_SEND), _) => end,
        (Some(Opname::CLEANUP_THROW), Some(Opname::END_SEND)) => end + 1,
        _ => return None,
    };
    Some((op, last - k))
}

/// Whether instruction `k` of `code` is the `GET_ITER` (or, when the first `for` is an
/// `async for`, `GET_AITER`) of a 3.15 `<genexpr>` on its argument `.0` that starts it
/// (`LOAD_FAST` or, with an `async for`, `LOAD_FAST_BORROW`)
/// (before `RETURN_GENERATOR`, which the decompiler's reading of generator
/// expressions may have turned into a `NOP`). CPython 3.15 `Python/codegen.c`
/// (`codegen_comprehension`: the generator expression's outermost iterable is passed
/// as it is and turned into an iterator inside).
fn genexpr_iter(code: &CodeObject, ins: &[Instruction], k: usize) -> bool {
    code.co_name == "<genexpr>"
        && code.co_localsplusnames.first().is_some_and(|n| &**n == ".0")
        && matches!(ins[k].id, Opname::GET_ITER | Opname::GET_AITER)
        && k >= 1
        && matches!(ins[k - 1].id, Opname::LOAD_FAST | Opname::LOAD_FAST_BORROW)
        && ins[k - 1].oparg == Some(0)
        && ins[..k - 1].iter().all(|i| matches!(i.id, Opname::RESUME | Opname::COPY_FREE_VARS | Opname::MAKE_CELL | Opname::NOP))
}

/// For the code object `g` of a 3.15 `<genexpr>`, the op that the 3.14 convention has
/// before its call: [`GenexprEntry::Iter`] when it starts with the `LOAD_FAST .0;
/// GET_ITER` of [`genexpr_iter`], [`GenexprEntry::AIter`] with `LOAD_FAST .0;
/// GET_AITER` (an `async for` first); `None` when it starts otherwise or does not
/// decode (its call is then not rewritten, and the decompiler refuses it).
fn genexpr_entry(g: &CodeObject) -> Option<GenexprEntry> {
    let ins = depyf_bytecode::decode(g).ok()?;
    let k = ins.iter().position(|i| !matches!(i.id, Opname::RESUME | Opname::COPY_FREE_VARS | Opname::MAKE_CELL | Opname::NOP))? + 1;
    if k >= ins.len() || !genexpr_iter(g, &ins, k) {
        return None;
    }
    Some(if ins[k].id == Opname::GET_AITER { GenexprEntry::AIter } else { GenexprEntry::Iter })
}

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    run(code, ins, lenient).map(|(n, _)| n)
}

/// For each exception handler (by offset) of 3.15 `code`, how many hidden slots lie
/// within the stack depth the exception table keeps for it. Errors as
/// [`super::normalize`].
pub(super) fn handler_hidden_slots(code: &CodeObject) -> Result<HashMap<u32, u32>, IrError> {
    let ins = depyf_bytecode::decode(code).map_err(|e| IrError::from_bytecode(code, e))?;
    run(code, &ins, false).map(|(_, fix)| fix)
}

/// [`normalize`] (strict) and [`handler_hidden_slots`] from one run.
pub(super) fn normalize_with_hidden_slots(code: &CodeObject, ins: &[Instruction]) -> Result<(Normalized, HashMap<u32, u32>), IrError> {
    run(code, ins, false)
}
