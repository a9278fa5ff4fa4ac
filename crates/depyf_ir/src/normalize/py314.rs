//! CPython 3.14 → [`Op`](crate::Op), through the 3.12+ family in `post311` (3.13's call
//! layout). New in 3.14: `LOAD_SMALL_INT`, `LOAD_COMMON_CONSTANT` (replaces
//! `LOAD_ASSERTION_ERROR`), `LOAD_FAST_BORROW*` (plain loads for the decompiler),
//! `NOT_TAKEN` (a marker after conditional jumps), `POP_ITER`, `BINARY_OP` with the
//! subscript kind (`NB_SUBSCR`) instead of `BINARY_SUBSCR`, `CALL_FUNCTION_EX` with an
//! always-present kwargs slot, no `RETURN_CONST` and no `BUILD_CONST_KEY_MAP`.
//! `with` through `LOAD_SPECIAL` with a hidden `self` slot, and the inlined fast path of
//! `all`/`any`/`tuple` over a generator expression: see `post314`.
//! `BUILD_TEMPLATE`/`BUILD_INTERPOLATION` build template strings (PEP 750).

use rustc_hash::FxHashMap as HashMap;

use depyf_bytecode::{Opname, CodeObject, Instruction};

use super::common::{Cx, Normalized};
use super::post311::{self, Family, Loops, OwnOps};
use super::{post314, IrError};
use crate::{CallLayout, Op};

/// CPython 3.14 `Python/bytecodes.c`: the exhausted `FOR_ITER` jumps over `END_FOR`
/// onto `POP_ITER`, which pops the iterator.
const FAMILY: Family =
    Family { layout: CallLayout::NullSecond, for_iter_skips: &["POP_ITER"], call_ex_kwargs_slot: true, own: Some(OwnOps { opnames: &OWN, op: own }) };

/// The opnames that [`own`] normalizes.
pub(super) const OWN: [Opname; 5] =
    [Opname::LOAD_SMALL_INT, Opname::LOAD_COMMON_CONSTANT, Opname::POP_ITER, Opname::BUILD_INTERPOLATION, Opname::BUILD_TEMPLATE];

/// `opcode._common_constants` of 3.15 (3.14 has the first five), as source text.
pub(super) const COMMON_CONSTANTS: [&str; 12] =
    ["AssertionError", "NotImplementedError", "tuple", "all", "any", "list", "set", "None", "''", "True", "False", "-1"];

/// The 3.14 opcodes that 3.13 does not have.
pub(super) fn own(cx: &Cx<'_>, k: usize) -> Result<Option<Op>, IrError> {
    Ok(Some(match cx.ins[k].id {
        Opname::LOAD_SMALL_INT => Op::LoadSmallInt(cx.arg(k)),
        // `dis._common_constants`: AssertionError, NotImplementedError, tuple, all, any
        // (3.15 adds list, set, None, '', True, False, -1).
        Opname::LOAD_COMMON_CONSTANT if cx.arg(k) == 0 => Op::LoadAssertionError,
        Opname::LOAD_COMMON_CONSTANT => match COMMON_CONSTANTS.get(cx.arg(k) as usize) {
            Some(c) if cx.code.version >= depyf_bytecode::PythonVersion::PY315 || (cx.arg(k) as usize) < 5 => Op::LoadCommonConstant(c),
            _ => return Err(cx.unsupported(k)),
        },
        // The POP_ITERs that FOR_ITER does not skip (`break`, `return` in a loop) pop
        // the iterator.
        Opname::POP_ITER => Op::PopTop,
        // Template strings (PEP 750); bit 1 of the oparg is set by the compiler and
        // not read by the interpreter.
        Opname::BUILD_INTERPOLATION => Op::BuildInterpolation { conversion: cx.arg(k) >> 2, with_spec: cx.arg(k) & 1 != 0 },
        Opname::BUILD_TEMPLATE => Op::BuildTemplate,
        _ => return Ok(None),
    }))
}

/// Normalizes, returning the ops and, per handler offset, the hidden slots (a `with`'s
/// `self` of `__exit__`, see `post314`) within its kept depth.
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
        _ => post311::op(cx, &FAMILY, &loops, k),
    })?;
    let mut fix = HashMap::default();
    if errors.is_empty() {
        fix = post314::drop_hidden_slots(code, ins, &mut ir, None)?;
    } else {
        // Another instruction emitted nothing: the `with` slots cannot be followed.
        for i in ins.iter().filter(|i| i.opname == "LOAD_SPECIAL") {
            errors.push(IrError::at(code, i, "hidden stack slot not followed (another instruction has no normalized form)"));
        }
    }
    Ok(((ir, errors), fix))
}

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    run(code, ins, lenient).map(|(n, _)| n)
}

/// For each exception handler (by offset) of 3.14 `code`, how many hidden slots lie
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
