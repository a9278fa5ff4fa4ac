//! CPython 3.13 → [`Op`](crate::Op), through the 3.12+ family in `post311`: the NULL
//! (or `self`) goes *above* the callable, `CALL_KW` with the names tuple loaded right
//! before, `TO_BOOL` before conditional jumps, superinstructions over two locals,
//! `MAKE_FUNCTION` + `SET_FUNCTION_ATTRIBUTE`, `CONVERT_VALUE`/`FORMAT_SIMPLE`/
//! `FORMAT_WITH_SPEC`, `COMPARE_OP` with the bool-coercion bit (decoded away).

use depyf_bytecode::{CodeObject, Instruction};

use super::common::{Cx, Normalized};
use super::post311::{self, Family, Loops};
use super::IrError;
use crate::CallLayout;

/// CPython 3.13 `Python/bytecodes.c`: `CALL` is `(callable, self_or_null, args --
/// res)`; the exhausted `FOR_ITER` pops the iterator and skips `END_FOR` and the
/// `POP_TOP` after it.
const FAMILY: Family =
    Family { layout: CallLayout::NullSecond, for_iter_skips: &["POP_TOP"], call_ex_kwargs_slot: false, own: None };

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    let cx = Cx::new(code, ins, lenient);
    let loops = Loops::scan(&cx, &FAMILY)?;
    cx.run(|cx, k| post311::op(cx, &FAMILY, &loops, k))
}
