//! What CPython 3.8, 3.9 and 3.10 share: no NULL below plain callables, the dedicated
//! `BINARY_*`/`INPLACE_*` opcodes, `ROT_*`/`DUP_TOP*`, absolute `JUMP_ABSOLUTE` and
//! `POP_JUMP_IF_*` (the decoder turns every jump argument into a byte offset), the
//! qualified name on the stack for `MAKE_FUNCTION`. Semantics from each version's
//! `Lib/dis.py` documentation (`Doc/library/dis.rst`) and `dis.stack_effect`.
//!
//! Generators and coroutines are normalized in `pre311_gen`, the block-stack opcodes
//! (`SETUP_FINALLY`, `SETUP_WITH`, `POP_BLOCK`, `POP_EXCEPT`, `RERAISE`,
//! `WITH_EXCEPT_START`, 3.8's `BEGIN_FINALLY`/`END_FINALLY`/`WITH_CLEANUP_*`) in
//! `pre311_exc` (with 3.8's `CALL_FINALLY` and the `POP_FINALLY` of a `with` exit); 3.10's
//! pattern matching (`MATCH_*`) in `py310`.

use depyf_bytecode::Opname;

use super::common::{emit_same_everywhere, pre311_binary, Cx};
use super::{pre311_gen, IrError};
use crate::{CallLayout, Op};

/// Normalizes instruction `k` with the 3.8-3.10 meanings.
pub(super) fn op(cx: &mut Cx<'_>, k: usize) -> Result<(), IrError> {
    if emit_same_everywhere(cx, k)? {
        return Ok(());
    }
    if pre311_gen::op(cx, k)? {
        return Ok(());
    }
    let arg = cx.arg(k);
    let idx = cx.idx(k);
    let op = match cx.ins[k].id {
        Opname::LOAD_GLOBAL => Op::LoadGlobal(idx),
        Opname::LOAD_ATTR => Op::LoadAttr(idx),
        Opname::LOAD_METHOD => Op::LoadMethod(idx, CallLayout::NullFirst),
        // `(callable, args * n -- result)`.
        Opname::CALL_FUNCTION => Op::Call { argc: arg, kwnames: None, layout: CallLayout::NoNull },
        // `(callable, args * n, kwnames -- result)`, kwnames pushed by the LOAD_CONST
        // right before.
        Opname::CALL_FUNCTION_KW => {
            let kw = cx.fold_kwnames(k)?;
            Op::Call { argc: arg, kwnames: Some(kw), layout: CallLayout::NoNull }
        }
        // `(meth_or_null, self_or_callable, args * n -- result)` after LOAD_METHOD.
        Opname::CALL_METHOD => Op::Call { argc: arg, kwnames: None, layout: CallLayout::NullFirst },
        Opname::CALL_FUNCTION_EX => Op::CallEx { has_kwargs: arg & 1 == 1, layout: CallLayout::NoNull },
        Opname::ROT_TWO => Op::Swap(2),
        Opname::ROT_THREE => Op::Rot(3),
        Opname::ROT_FOUR => Op::Rot(4),
        Opname::ROT_N => Op::Rot(arg),
        Opname::DUP_TOP => Op::Copy(1),
        Opname::DUP_TOP_TWO => {
            cx.emit(k, Op::Copy(2));
            Op::Copy(2)
        }
        Opname::JUMP_IF_TRUE_OR_POP => Op::JumpIfOrPop { when: true, target: cx.target(k) },
        Opname::JUMP_IF_FALSE_OR_POP => Op::JumpIfOrPop { when: false, target: cx.target(k) },
        // `(defaults?, kwdefaults?, annotations?, closure?, code, qualname -- func)`.
        Opname::MAKE_FUNCTION => Op::MakeFunction { flags: arg, qualname: true },
        // Low two bits: conversion; 0x04: a format spec is on top.
        Opname::FORMAT_VALUE => Op::FormatValue { conversion: arg & 3, with_spec: arg & 4 != 0 },
        Opname::GET_ITER => Op::GetIter,
        // Before 3.12 FOR_ITER pops the exhausted iterator itself.
        Opname::FOR_ITER => Op::ForIter(cx.target(k)),
        // `( -- value)`: the class body's locals first, then the cell: 3.12 spells it
        // LOAD_LOCALS + LOAD_FROM_DICT_OR_DEREF.
        Opname::LOAD_CLASSDEREF => {
            cx.emit(k, Op::LoadLocals);
            Op::LoadFromDictOr(idx, true)
        }
        // The dedicated `BINARY_*`/`INPLACE_*` opcodes (none of them is matched above).
        _ => match pre311_binary(cx.ins[k].opname) {
            Some((op, inplace)) => Op::Binary(op, inplace),
            None => return Err(cx.unsupported(k)),
        },
    };
    cx.emit(k, op);
    Ok(())
}
