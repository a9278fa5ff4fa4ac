//! `async for`, `async with` and async generators of CPython 3.11 to 3.13 (shared by
//! the 3.11 normalizer and `post311_exc`). Shapes from CPython 3.11-3.13
//! `Python/compile.c` (`compiler_async_for`, `compiler_async_with`, `ADDOP_YIELD`) and
//! `Python/bytecodes.c`:
//!
//! - An `await` is `LOAD_CONST None; SEND; YIELD_VALUE; RESUME; JUMP_BACKWARD_NO_INTERRUPT`
//!   after the instruction that made the awaitable, and from 3.12 an `END_SEND`, with
//!   the `CLEANUP_THROW` of `throw()` sometimes laid out right before it ([`await_tail`]).
//! - `async for x in it:` is `GET_AITER` ([`Op::GetAIter`]), then at the loop head
//!   `GET_ANEXT` and an `await`, protected by a handler `END_ASYNC_FOR` that ends the
//!   loop on `StopAsyncIteration` (and re-raises anything else). The head is one
//!   [`Op::ForIter`] jumping to that `END_ASYNC_FOR`, which is a `Nop`; the ranges
//!   that lead to it are dropped like the other implicit handlers (`implicit_handler`).
//! - `async with m as x:` is `BEFORE_ASYNC_WITH` and an `await` ([`Op::BeforeAsyncWith`]);
//!   its normal exit `exit(None, None, None)` is awaited and popped, its exceptional
//!   exit `WITH_EXCEPT_START` is awaited: [`Op::WithExit`] / [`Op::WithExceptStart`]
//!   with the awaits folded in.
//! - In an async generator, `yield v` wraps `v` first (3.11 `ASYNC_GEN_WRAP`, 3.12+
//!   `CALL_INTRINSIC_1 INTRINSIC_ASYNC_GEN_WRAP`) so that the event loop can tell it
//!   from an `await`'s yield: a `Nop` before the [`Op::Yield`].
//!
//! 3.14 enters `async with` through `LOAD_SPECIAL` (`post314::async_with_enter`; its
//! exits are read there and by `post311_exc`, with the `await` after the exit call);
//! its `async for` has the 3.12 shape (`END_ASYNC_FOR` gained an oparg for `dis`, a
//! `NOT_TAKEN` follows the `END_SEND`) and the async generator's wrap is unchanged, so
//! those are handled for 3.14+ too. 3.15's `await` loop starts with a `PUSH_NULL`
//! (the receiver's second slot, see [`await_tail`]).

use depyf_bytecode::{Opname, parse_exception_table, table_for, Argval, CodeObject, Constant, Instruction, PythonVersion};

use crate::Op;

/// A load of `None` (3.15 also `LOAD_COMMON_CONSTANT 7`, `opcode._common_constants[7]`).
fn is_none(code: &CodeObject, i: &Instruction) -> bool {
    match i.id {
        Opname::LOAD_CONST => matches!(i.argval, Argval::Const(c) if matches!(code.co_consts.get(c as usize), Some(Constant::None))),
        Opname::LOAD_COMMON_CONSTANT => code.version >= PythonVersion::PY315 && i.oparg == Some(7),
        _ => false,
    }
}

fn names_are(ins: &[Instruction], from: usize, want: &[&str]) -> bool {
    ins.len() >= from + want.len() && ins[from..from + want.len()].iter().zip(want).all(|(i, w)| i.opname == *w)
}

/// How many instructions after `k` make up the `await` loop of the awaitable that
/// instruction `k` pushed, or `None` when they are not one. 3.15 pushes a NULL for
/// the receiver's second slot first (`PUSH_NULL`) and may load `None` by
/// `LOAD_COMMON_CONSTANT` (CPython 3.15 `Python/codegen.c`, `ADDOP_YIELD`/`codegen_add_yield_from`).
pub(super) fn await_tail(code: &CodeObject, ins: &[Instruction], k: usize) -> Option<usize> {
    let from = if code.version >= PythonVersion::PY315 {
        if !names_are(ins, k + 1, &["PUSH_NULL"]) {
            return None;
        }
        k + 2
    } else {
        k + 1
    };
    let head = ["SEND", "YIELD_VALUE", "RESUME", "JUMP_BACKWARD_NO_INTERRUPT"];
    if !ins.get(from).is_some_and(|i| is_none(code, i)) || !names_are(ins, from + 1, &head) {
        return None;
    }
    let n = from + 4 - k;
    if code.version < PythonVersion::PY312 {
        return Some(n);
    }
    if names_are(ins, from + 5, &["END_SEND"]) {
        Some(n + 1)
    } else if names_are(ins, from + 5, &["CLEANUP_THROW", "END_SEND"]) {
        Some(n + 2)
    } else {
        None
    }
}

/// The `END_ASYNC_FOR` that ends the `async for` whose `GET_ANEXT` is instruction `k`:
/// the handler of the range protecting it.
fn end_async_for(code: &CodeObject, ins: &[Instruction], k: usize) -> Option<u32> {
    let at = ins[k].offset;
    let table = parse_exception_table(code).ok()?;
    let r = table.iter().find(|r| r.start <= at && at < r.end)?;
    let h = ins.binary_search_by_key(&r.target, |i| i.offset).ok()?;
    (ins[h].opname == "END_ASYNC_FOR" && !r.lasti).then_some(r.target)
}

/// The op of instruction `k` when it starts one of the shapes above, with the number of
/// instructions after it folded into it; `None` for every other instruction (an
/// `END_ASYNC_FOR`, `BEFORE_ASYNC_WITH` or `GET_ANEXT` outside them is left to the
/// caller, which refuses it).
pub(super) fn op(code: &CodeObject, ins: &[Instruction], k: usize) -> Option<(Op, usize)> {
    let i = &ins[k];
    // 3.14 enters `with` blocks through `LOAD_SPECIAL` (see `post314`); `async for`
    // and the async generator's wrap kept their shapes.
    if code.version > PythonVersion::PY313 && !matches!(i.id, Opname::CALL_INTRINSIC_1 | Opname::GET_AITER | Opname::GET_ANEXT | Opname::END_ASYNC_FOR) {
        return None;
    }
    match i.id {
        Opname::GET_AITER => Some((Op::GetAIter, 0)),
        Opname::GET_ANEXT => {
            let n = await_tail(code, ins, k)?;
            Some((Op::ForIter(end_async_for(code, ins, k)?), n))
        }
        // Only reached from an async `ForIter` (the exception ranges to it are dropped):
        // a `Nop` when a `GET_ANEXT` of the shape above ends there; otherwise (3.15's
        // `GET_ANEXT; PUSH_NULL; None; SEND ...` is not that shape) it is left to the
        // error path with its `GET_ANEXT`, not a `Nop` that stands for nothing.
        Opname::END_ASYNC_FOR => {
            let here = i.offset;
            let ends_one = ins
                .iter()
                .enumerate()
                .any(|(g, x)| x.opname == "GET_ANEXT" && await_tail(code, ins, g).is_some() && end_async_for(code, ins, g) == Some(here));
            ends_one.then_some((Op::Nop, 0))
        }
        Opname::BEFORE_ASYNC_WITH if names_are(ins, k + 1, &["GET_AWAITABLE"]) => {
            let n = await_tail(code, ins, k + 1)?;
            Some((Op::BeforeAsyncWith, n + 1))
        }
        Opname::WITH_EXCEPT_START if names_are(ins, k + 1, &["GET_AWAITABLE"]) => {
            let n = await_tail(code, ins, k + 1)?;
            Some((Op::WithExceptStart, n + 1))
        }
        // `exit(None, None, None)` awaited and its result dropped.
        Opname::LOAD_CONST if is_none(code, i) => {
            let call: &[&str] = if code.version < PythonVersion::PY312 { &["PRECALL", "CALL"] } else { &["CALL"] };
            let first = [is_none(code, ins.get(k + 1)?), is_none(code, ins.get(k + 2)?)];
            let after_null = k > 0 && ins[k - 1].opname == "PUSH_NULL";
            if first != [true, true] || after_null || !names_are(ins, k + 3, call) || ins[k + 2 + call.len()].oparg != Some(2) {
                return None;
            }
            let aw = k + 3 + call.len();
            if !names_are(ins, aw, &["GET_AWAITABLE"]) || ins[aw].oparg != Some(2) {
                return None;
            }
            let n = await_tail(code, ins, aw)?;
            names_are(ins, aw + n + 1, &["POP_TOP"]).then_some((Op::WithExit, aw + n + 1 - k))
        }
        Opname::ASYNC_GEN_WRAP if names_are(ins, k + 1, &["YIELD_VALUE"]) => Some((Op::Nop, 0)),
        Opname::CALL_INTRINSIC_1 if names_are(ins, k + 1, &["YIELD_VALUE"]) => {
            let table = table_for(code.version)?;
            (table.intrinsic1.get(i.oparg.unwrap_or(0) as usize).copied() == Some("INTRINSIC_ASYNC_GEN_WRAP")).then_some((Op::Nop, 0))
        }
        _ => None,
    }
}
