//! CPython 3.10 → [`Op`](crate::Op): everything is shared with the other pre-3.11
//! versions in `pre311`; its block stack (`SETUP_FINALLY`, `SETUP_WITH`, `POP_BLOCK`,
//! `POP_EXCEPT`, `RERAISE`, ...) is normalized to 3.11's shape by `pre311_exc`.
//!
//! 3.10 counts jump arguments in code units (the decoder scales them) and added
//! `ROT_N` and `GEN_START` (in `pre311_gen`) and pattern matching, here: 3.10's
//! `MATCH_CLASS` and `MATCH_KEYS` push a success flag above their result (CPython
//! 3.10 `Python/ceval.c`), which the `POP_JUMP_IF_FALSE` right after pops; 3.11+ push
//! the result alone, `None` on failure, and test a copy with `POP_JUMP_IF_NONE`. The
//! pair becomes the 3.11 shape (`COPY 1; POP_JUMP_IF_NONE`: the same stack on both
//! edges). `COPY_DICT_WITHOUT_KEYS` (`**rest`) has an op of its own.

use depyf_bytecode::{Opname, CodeObject, Instruction};

use super::common::{Cx, Normalized};
use super::{pre311, pre311_exc, IrError};
use crate::Op;

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    // The block stack (`SETUP_*`, handlers) first: see `pre311_exc`.
    let facts = pre311_exc::Facts::scan(code, ins)?;
    Cx::new(code, ins, lenient).run(|cx, k| {
        if pre311_exc::op(cx, k, &facts)? || pattern_op(cx, k)? {
            Ok(())
        } else {
            pre311::op(cx, k)
        }
    })
}

/// The pattern-matching opcodes (3.10 only before 3.11 renamed their shapes); `false`
/// for any other instruction.
fn pattern_op(cx: &mut Cx<'_>, k: usize) -> Result<bool, IrError> {
    let op = match cx.ins[k].id {
        Opname::MATCH_SEQUENCE => Op::MatchSequence,
        Opname::MATCH_MAPPING => Op::MatchMapping,
        Opname::GET_LEN => Op::GetLen,
        Opname::COPY_DICT_WITHOUT_KEYS => Op::CopyDictWithoutKeys,
        Opname::MATCH_CLASS | Opname::MATCH_KEYS => {
            // `(..., flag)` and `POP_JUMP_IF_FALSE fail` become `COPY 1;
            // POP_JUMP_IF_NONE fail` on the result.
            // (The jump may have `EXTENDED_ARG` prefixes.)
            let mut j = k + 1;
            while cx.ins.get(j).is_some_and(|i| i.opname == "EXTENDED_ARG") {
                j += 1;
            }
            let Some(jump) = cx.ins.get(j).filter(|i| i.opname == "POP_JUMP_IF_FALSE") else {
                return Err(cx.err(k, "a pattern test not followed by POP_JUMP_IF_FALSE"));
            };
            let target = jump.jump_target().ok_or_else(|| cx.err(k, "a jump without a target"))?;
            cx.emit(k, if cx.ins[k].opname == "MATCH_CLASS" { Op::MatchClass(cx.arg(k)) } else { Op::MatchKeys });
            cx.emit(j, Op::Copy(1));
            cx.emit(j, Op::JumpIfNone { when: true, target });
            cx.drop_more = j - k;
            return Ok(true);
        }
        _ => return Ok(false),
    };
    cx.emit(k, op);
    Ok(true)
}
