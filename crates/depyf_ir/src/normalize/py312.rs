//! CPython 3.12 → [`Op`](crate::Op), through the 3.12+ family in `post311`: NULL below
//! the callable, `KW_NAMES` before `CALL`, method loads by `LOAD_ATTR`'s low bit,
//! `RETURN_CONST`, `BINARY_SLICE`/`STORE_SLICE`, `CALL_INTRINSIC_1`, inlined
//! comprehensions (`LOAD_FAST_AND_CLEAR`), `FOR_ITER` jumping over `END_FOR`.

use depyf_bytecode::{CodeObject, Instruction};

use super::common::{Cx, Normalized};
use super::post311::{self, Family, Loops};
use super::IrError;
use crate::CallLayout;

/// CPython 3.12 `Python/bytecodes.c`: `CALL` is `(callable_or_null, self_or_callable,
/// args -- res)`; the exhausted `FOR_ITER` pops the iterator and skips `END_FOR`.
const FAMILY: Family = Family { layout: CallLayout::NullFirst, for_iter_skips: &[], call_ex_kwargs_slot: false, own: None };

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    let cx = Cx::new(code, ins, lenient);
    let loops = Loops::scan(&cx, &FAMILY)?;
    cx.run(|cx, k| post311::op(cx, &FAMILY, &loops, k))
}
