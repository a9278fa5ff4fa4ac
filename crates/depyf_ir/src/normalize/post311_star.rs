//! `try`/`except*` (PEP 654) of CPython 3.11 and later (shared by the 3.11 normalizer
//! and `post311_exc`). The handler's layout, from CPython 3.11 `Python/compile.c`
//! (`compiler_try_star_except`) and 3.12+ `Python/codegen.c`/`compile.c`:
//!
//! ```text
//! h:  PUSH_EXC_INFO                                      prev, exc
//!     COPY 1; BUILD_LIST 0; SWAP 2    (3.12+: BUILD_LIST 0; COPY 2)
//!                                                        prev, orig, list, rest
//!     for each clause `except* T [as e]: body`:
//!     T; CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE no     prev, orig, list, rest', match
//!     STORE e (or POP_TOP)                               prev, orig, list, rest'
//!     body      (protected by: [e = None; del e]; LIST_APPEND 3; POP_TOP; JUMP next)
//!     [e = None; del e]; JUMP next
//! no: POP_TOP
//! next: ...
//!     LIST_APPEND 1                   (3.12+ may copy it into each predecessor)
//!     PREP_RERAISE_STAR               (3.12+: CALL_INTRINSIC_2 INTRINSIC_PREP_RERAISE_STAR)
//!     COPY 1; POP_JUMP_IF_NOT_NONE L; POP_TOP; POP_EXCEPT; <after the try>
//! L:  SWAP 2; POP_EXCEPT; RERAISE 0
//! ```
//!
//! The set-up is [`Op::ExcStarSetup`], each test [`Op::CheckEgMatch`] (with the `COPY
//! 1` folded in) followed by an ordinary `JumpIfNone`, and the end [`Op::ExcStarEnd`]
//! (the re-raise of what is left, `L`, is what the statement does by itself; that
//! block is left unreached). The `LIST_APPEND`s onto the hidden list stay
//! `ListAppend`s (the decompiler drops them: they only collect what the clauses
//! raised). Any other use of these instructions is left to the caller, which refuses
//! it.

use depyf_bytecode::{Opname, table_for, CodeObject, Instruction, PythonVersion};

use crate::Op;

fn names_are(ins: &[Instruction], from: usize, want: &[(&str, Option<u32>)]) -> bool {
    ins.len() >= from + want.len()
        && ins[from..from + want.len()].iter().zip(want).all(|(i, (w, a))| i.opname == *w && a.is_none_or(|a| i.oparg == Some(a)))
}

/// Whether the straight-line code from instruction `k` reaches a `CHECK_EG_MATCH`
/// before any jump or exit (the first clause's test follows the set-up).
fn test_follows(ins: &[Instruction], k: usize) -> bool {
    for i in &ins[k..] {
        if i.opname == "CHECK_EG_MATCH" {
            return true;
        }
        if i.jump_target().is_some() || matches!(i.id, Opname::RETURN_VALUE | Opname::RETURN_CONST | Opname::RAISE_VARARGS | Opname::RERAISE | Opname::POP_EXCEPT) {
            return false;
        }
    }
    false
}

/// Whether instruction `k` is `PREP_RERAISE_STAR` (3.11) or `CALL_INTRINSIC_2
/// INTRINSIC_PREP_RERAISE_STAR` (3.12+).
fn is_prep_reraise(code: &CodeObject, i: &Instruction) -> bool {
    match i.id {
        Opname::PREP_RERAISE_STAR => true,
        Opname::CALL_INTRINSIC_2 => table_for(code.version)
            .and_then(|t| t.intrinsic2.get(i.oparg.unwrap_or(0) as usize).copied())
            .is_some_and(|n| n == "INTRINSIC_PREP_RERAISE_STAR"),
        _ => false,
    }
}

/// The op of instruction `k` when it starts one of the `except*` shapes above, with the
/// number of instructions after it folded into it (they become `Nop`s); `None` for
/// every other instruction.
pub(super) fn op(code: &CodeObject, ins: &[Instruction], k: usize) -> Option<(Op, usize)> {
    let i = &ins[k];
    let after_push = k > 0 && ins[k - 1].opname == "PUSH_EXC_INFO";
    match i.id {
        Opname::COPY if code.version == PythonVersion::PY311 && after_push => {
            let ok = names_are(ins, k, &[("COPY", Some(1)), ("BUILD_LIST", Some(0)), ("SWAP", Some(2))]) && test_follows(ins, k + 3);
            ok.then_some((Op::ExcStarSetup, 2))
        }
        Opname::BUILD_LIST if code.version >= PythonVersion::PY312 && after_push => {
            let ok = names_are(ins, k, &[("BUILD_LIST", Some(0)), ("COPY", Some(2))]) && test_follows(ins, k + 2);
            ok.then_some((Op::ExcStarSetup, 1))
        }
        Opname::CHECK_EG_MATCH if names_are(ins, k + 1, &[("COPY", Some(1))]) => Some((Op::CheckEgMatch, 1)),
        _ if is_prep_reraise(code, i) => {
            if !names_are(ins, k + 1, &[("COPY", Some(1))]) {
                return None;
            }
            let jump = ins.get(k + 2)?;
            if !matches!(jump.id, Opname::POP_JUMP_IF_NOT_NONE | Opname::POP_JUMP_FORWARD_IF_NOT_NONE) {
                return None;
            }
            let mut p = k + 3;
            if names_are(ins, p, &[("NOT_TAKEN", None)]) {
                p += 1;
            }
            if !names_are(ins, p, &[("POP_TOP", None)]) {
                return None;
            }
            // The jump's target re-raises what is left: `SWAP 2; POP_EXCEPT; RERAISE 0`.
            let t = ins.binary_search_by_key(&jump.jump_target()?, |x| x.offset).ok()?;
            names_are(ins, t, &[("SWAP", Some(2)), ("POP_EXCEPT", None), ("RERAISE", Some(0))]).then_some((Op::ExcStarEnd, p - k))
        }
        _ => None,
    }
}
