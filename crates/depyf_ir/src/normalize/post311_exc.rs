//! Exceptions, `with`, generators and coroutines of CPython 3.12 and later, in the
//! shape that 3.11 gives them (the ops `structure/exceptions.rs` reads):
//!
//! - `PUSH_EXC_INFO`, `POP_EXCEPT`, `CHECK_EXC_MATCH`, `RERAISE`, `BEFORE_WITH`,
//!   `WITH_EXCEPT_START`, `YIELD_VALUE` mean what they mean in 3.11.
//! - `RETURN_GENERATOR` and the `POP_TOP` of its result set up the frame: `Nop`s.
//! - `yield from x` / `await x` is `GET_YIELD_FROM_ITER`/`GET_AWAITABLE`, `LOAD_CONST
//!   None`, `SEND`, `YIELD_VALUE`, `RESUME`, `JUMP_BACKWARD_NO_INTERRUPT`, `END_SEND`:
//!   one [`Op::YieldFrom`]/[`Op::Await`]. A `throw()` into the delegated-to iterator
//!   goes to a `CLEANUP_THROW` handler (protecting the `YIELD_VALUE`) that jumps back
//!   to the `END_SEND`; that handler is part of the folded op, so its range is dropped
//!   ([`implicit_handler`]) and its two instructions are `Nop`s.
//! - A generator's body is protected by a handler `CALL_INTRINSIC_1
//!   INTRINSIC_STOPITERATION_ERROR; RERAISE 1` that turns a `StopIteration` escaping the
//!   body into `RuntimeError` (PEP 479): the compiler adds it to every generator, so it
//!   has no source of its own; its ranges are dropped and the intrinsic is a `Nop`.
//! - The normal exit of a `with` block, `exit(None, None, None)`, is `LOAD_CONST None`
//!   three times, `CALL 2`, `POP_TOP`: one [`Op::WithExit`].

use depyf_bytecode::{Opname, table_for, Argval, CodeObject, Constant, Instruction};

use super::common::Cx;
use super::IrError;
use crate::Op;

/// A load of `None`: `LOAD_CONST None`, or 3.15's `LOAD_COMMON_CONSTANT 7`
/// (`opcode._common_constants[7]` is `None`).
pub(super) fn is_none(code: &CodeObject, i: &Instruction) -> bool {
    match i.id {
        Opname::LOAD_CONST => matches!(i.argval, Argval::Const(c) if matches!(code.co_consts.get(c as usize), Some(Constant::None))),
        Opname::LOAD_COMMON_CONSTANT => code.version.minor >= 15 && i.oparg == Some(7),
        _ => false,
    }
}

fn opnames(ins: &[Instruction], from: usize, n: usize) -> Vec<&str> {
    ins[from..].iter().take(n).map(|x| x.opname).collect()
}

/// Whether the handler at instruction `k` is one the compiler adds on its own: the
/// generator's `StopIteration` guard, the `CLEANUP_THROW` of `yield from`/`await`, the
/// `END_ASYNC_FOR` of `async for` (reached through its `Op::ForIter` instead), or
/// the handler of an inlined comprehension (PEP 709) that puts back the outer values
/// of its `n - 1` hidden locals before re-raising: `SWAP 2; POP_TOP` (drops the
/// list/set/dict being built), `SWAP n`, `n - 1` stores, `RERAISE 0`.
pub(super) fn implicit_handler(code: &CodeObject, ins: &[Instruction], k: usize) -> bool {
    let i = &ins[k];
    match i.id {
        Opname::SWAP if i.oparg == Some(2) => {
            let rest = &ins[k + 1..];
            let (Some(pop), Some(swap)) = (rest.first(), rest.get(1)) else { return false };
            if pop.opname != "POP_TOP" || swap.opname != "SWAP" {
                return false;
            }
            let mut want = swap.oparg.unwrap_or(0).saturating_sub(1);
            for x in &rest[2..] {
                match x.id {
                    Opname::STORE_FAST | Opname::STORE_DEREF if want >= 1 => want -= 1,
                    Opname::STORE_FAST_STORE_FAST if want >= 2 => want -= 2,
                    Opname::RERAISE => return want == 0 && x.oparg == Some(0),
                    _ => return false,
                }
            }
            false
        }
        Opname::CLEANUP_THROW => true,
        Opname::END_ASYNC_FOR => true,
        Opname::CALL_INTRINSIC_1 => {
            let table = table_for(code.version).expect("decoded, so a table exists");
            table.intrinsic1.get(i.oparg.unwrap_or(0) as usize).copied() == Some("INTRINSIC_STOPITERATION_ERROR")
                && ins.get(k + 1).map(|n| n.opname) == Some("RERAISE")
        }
        _ => false,
    }
}

/// When the `CLEANUP_THROW` at `k` jumps back to its `END_SEND` (`JUMP_BACKWARD` or
/// `JUMP_BACKWARD_NO_INTERRUPT`, after `EXTENDED_ARG`s where the distance needs
/// them), the number of instructions after `k` up to that jump.
fn cleanup_throw_jump(ins: &[Instruction], k: usize) -> Option<usize> {
    let mut j = k + 1;
    while ins.get(j)?.opname == "EXTENDED_ARG" {
        j += 1;
    }
    matches!(ins[j].id, Opname::JUMP_BACKWARD | Opname::JUMP_BACKWARD_NO_INTERRUPT).then_some(j - k)
}

/// Whether an instruction with opname `id` can start a shape of [`op`]: one of its
/// own, of `post311_async::op` or of `post311_star::op`. Every other instruction (most
/// of them: loads, stores, calls) is left to the caller at once instead of being tried
/// against each shape. Keep in step with those three matches; debug builds check that
/// the other two claim nothing outside it. Callers ask it before [`op`] (inlined there,
/// it spares most instructions the call).
#[inline(always)]
pub(super) fn may_start_shape(id: Opname) -> bool {
    matches!(
        id,
        // post311_async::op
        Opname::GET_AITER
            | Opname::GET_ANEXT
            | Opname::END_ASYNC_FOR
            | Opname::BEFORE_ASYNC_WITH
            | Opname::WITH_EXCEPT_START
            | Opname::LOAD_CONST
            | Opname::ASYNC_GEN_WRAP
            | Opname::CALL_INTRINSIC_1
            // post311_star::op
            | Opname::COPY
            | Opname::BUILD_LIST
            | Opname::CHECK_EG_MATCH
            | Opname::PREP_RERAISE_STAR
            | Opname::CALL_INTRINSIC_2
            // op below
            | Opname::PUSH_EXC_INFO
            | Opname::POP_EXCEPT
            | Opname::CHECK_EXC_MATCH
            | Opname::RERAISE
            | Opname::BEFORE_WITH
            | Opname::YIELD_VALUE
            | Opname::RETURN_GENERATOR
            | Opname::GET_YIELD_FROM_ITER
            | Opname::GET_AWAITABLE
            | Opname::CLEANUP_THROW
    )
}

/// The op of instruction `k` when it belongs to exception handling, `with` or
/// generators (emitting it, with the instructions folded into it); `Ok(false)` for
/// the rest.
pub(super) fn op(cx: &mut Cx<'_>, k: usize) -> Result<bool, IrError> {
    let ins = cx.ins;
    let code = cx.code;
    let i = &ins[k];
    if !may_start_shape(i.id) {
        debug_assert!(
            super::post311_async::op(code, ins, k).is_none() && super::post311_star::op(code, ins, k).is_none(),
            "{} starts an async or except* shape but is missing from may_start_shape",
            i.opname
        );
        return Ok(false);
    }
    if let Some((op, n)) = super::post311_async::op(code, ins, k).or_else(|| super::post311_star::op(code, ins, k)) {
        cx.skip_more = n;
        cx.emit(k, op);
        return Ok(true);
    }
    let op = match i.id {
        Opname::PUSH_EXC_INFO => Op::PushExcInfo,
        Opname::POP_EXCEPT => Op::PopExcept,
        Opname::CHECK_EXC_MATCH => Op::CheckExcMatch,
        Opname::RERAISE => Op::Reraise,
        Opname::BEFORE_WITH => Op::BeforeWith,
        Opname::WITH_EXCEPT_START => Op::WithExceptStart,
        Opname::YIELD_VALUE => Op::Yield,
        Opname::RETURN_GENERATOR => {
            if cx.next(k).map(|n| n.opname) == Some("POP_TOP") {
                cx.skip_next = true;
            }
            Op::Nop
        }
        Opname::GET_YIELD_FROM_ITER | Opname::GET_AWAITABLE if super::post311_async::await_tail(code, ins, k).is_some() => {
            cx.skip_more = super::post311_async::await_tail(code, ins, k).unwrap_or(0);
            if i.opname == "GET_AWAITABLE" {
                Op::Await
            } else {
                Op::YieldFrom
            }
        }
        // The jump back may need an `EXTENDED_ARG` (a long function).
        Opname::CLEANUP_THROW if cleanup_throw_jump(ins, k).is_some() => {
            cx.skip_more = cleanup_throw_jump(ins, k).expect("checked");
            Op::Nop
        }
        Opname::CALL_INTRINSIC_1 if implicit_handler(code, ins, k) => Op::Nop,
        Opname::LOAD_CONST
            if is_none(code, i)
                && opnames(ins, k + 1, 4) == ["LOAD_CONST", "LOAD_CONST", "CALL", "POP_TOP"]
                && is_none(code, &ins[k + 1])
                && is_none(code, &ins[k + 2])
                && ins[k + 3].oparg == Some(2)
                && cx.prev(k).is_none_or(|j| ins[j].id != Opname::PUSH_NULL) =>
        {
            cx.skip_more = 4;
            Op::WithExit
        }
        _ => return Ok(false),
    };
    cx.emit(k, op);
    Ok(true)
}
