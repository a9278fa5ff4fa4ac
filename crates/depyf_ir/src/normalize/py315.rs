//! CPython 3.15 → [`Op`](crate::Op): 3.14 (`py314::own`) plus what 3.15 changed.
//!
//! - The iterator of a `for` loop takes two stack slots: `GET_ITER` pushes the
//!   iterator and an index (or NULL), `FOR_ITER` keeps both, `POP_ITER` pops both.
//!   [`Op::GetIter`]/[`Op::ForIter`] have one slot, so these take the error path.
//! - `IMPORT_NAME` keeps lazy/eager import flags in its low two bits (PEP 810 `lazy
//!   import`): a flagged import takes the error path rather than lose the flag.
//! - `LOAD_COMMON_CONSTANT` also loads `list`, `set`, `None`, `''`, `True`, `False`,
//!   `-1` (error path, as in 3.14 for all but `AssertionError`).

use depyf_bytecode::{CodeObject, Instruction};

use super::common::{Cx, Normalized};
use super::post311::{self, Family, Loops};
use super::{py314, IrError};
use crate::{CallLayout, Op};

const FAMILY: Family =
    Family { layout: CallLayout::NullSecond, for_iter_skips: &["POP_ITER"], call_ex_kwargs_slot: true, own };

fn own(cx: &Cx<'_>, k: usize) -> Result<Option<Op>, IrError> {
    match cx.ins[k].opname {
        "GET_ITER" | "FOR_ITER" | "POP_ITER" => {
            Err(cx.err(k, "two-slot iterators (3.15): not supported by the decompiler yet"))
        }
        "IMPORT_NAME" if cx.arg(k) & 3 != 0 => Err(cx.err(k, "lazy import: not supported by the decompiler yet")),
        _ => py314::own(cx, k),
    }
}

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    let cx = Cx::new(code, ins, lenient);
    let loops = Loops::scan(&cx, &FAMILY)?;
    cx.run(|cx, k| post311::op(cx, &FAMILY, &loops, k))
}
