//! Generators and coroutines of CPython 3.8, 3.9 and 3.10, in the shape that 3.11
//! gives them (semantics from each version's `Python/ceval.c` and `Doc/library/dis.rst`):
//!
//! - `YIELD_VALUE` is `(value -- sent)`: [`Op::Yield`].
//! - 3.10 `GEN_START kind` pops the value of the first `send()` (always `None`) that
//!   the interpreter pushes before running a generator's first instruction; the
//!   normalized stack starts empty instead, so it is a `Nop`.
//! - `yield from x` is `GET_YIELD_FROM_ITER; LOAD_CONST None; YIELD_FROM` and `await x`
//!   is `GET_AWAITABLE; LOAD_CONST None; YIELD_FROM`: `YIELD_FROM` re-runs itself (by
//!   moving the frame's `f_lasti` back) until the delegated-to iterator is exhausted, so
//!   there is no loop in the bytecode, and the three are one [`Op::YieldFrom`] /
//!   [`Op::Await`]. The `async with`/`async for` shapes of the block stack are read
//!   in `pre311_exc` (`GET_AITER` here is [`Op::GetAIter`]); any other use of
//!   `YIELD_FROM` takes the error path.

use depyf_bytecode::{Opname, Argval, Constant};

use super::common::Cx;
use super::IrError;
use crate::Op;

/// The op of instruction `k` when it belongs to generators or coroutines (emitting it,
/// with the instructions folded into it); `Ok(false)` for the rest.
pub(super) fn op(cx: &mut Cx<'_>, k: usize) -> Result<bool, IrError> {
    let ins = cx.ins;
    let i = &ins[k];
    let op = match i.id {
        Opname::YIELD_VALUE => Op::Yield,
        // `aiter(x)` of an `async for`; its head is read in `pre311_exc`.
        Opname::GET_AITER => Op::GetAIter,
        Opname::GEN_START => Op::Nop,
        Opname::GET_YIELD_FROM_ITER | Opname::GET_AWAITABLE => {
            let none = ins.get(k + 1).is_some_and(|n| {
                n.opname == "LOAD_CONST" && matches!(n.argval, Argval::Const(c) if matches!(cx.code.co_consts.get(c as usize), Some(Constant::None)))
            });
            if !none || ins.get(k + 2).map(|n| n.opname) != Some("YIELD_FROM") {
                return Err(cx.err(k, "not followed by LOAD_CONST None; YIELD_FROM"));
            }
            cx.skip_more = 2;
            if i.opname == "GET_AWAITABLE" {
                Op::Await
            } else {
                Op::YieldFrom
            }
        }
        _ => return Ok(false),
    };
    cx.emit(k, op);
    Ok(true)
}
