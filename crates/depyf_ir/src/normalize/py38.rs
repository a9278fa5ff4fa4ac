//! CPython 3.8 → [`Op`](crate::Op): everything is shared with the other pre-3.11
//! versions in `pre311`.
//!
//! 3.8 alone has `BUILD_LIST_UNPACK`, `BUILD_TUPLE_UNPACK(_WITH_CALL)`,
//! `BUILD_SET_UNPACK`, `BUILD_MAP_UNPACK(_WITH_CALL)`: they pop n iterables and push
//! their concatenation, while 3.9+ builds the empty container *below* the items and
//! extends it one at a time. No sequence of normalized ops means exactly that without
//! rotations that later stages would have to undo, so they take the error path. Its
//! `COMPARE_OP` also covers `in`/`is` (normalized) and `exception match` (with the
//! block stack and its `BEGIN_FINALLY`/`END_FINALLY`/`WITH_CLEANUP_*`, in `pre311_exc`).

use depyf_bytecode::{CodeObject, Instruction};

use super::common::{Cx, Normalized};
use super::{pre311, pre311_exc, IrError};

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    // A block-stack shape not handled (try/finally, ...) fails the whole code object;
    // in lenient mode its instructions are normalized one by one instead, those of
    // the block stack taking the error path (none rewritten).
    let facts = match pre311_exc::Facts::scan(code, ins) {
        Err(_) if lenient => return Cx::new(code, ins, lenient).run(pre311::op),
        r => r?,
    };
    let (mut ir, errors) = Cx::new(code, ins, lenient).run(|cx, k| if pre311_exc::op(cx, k, &facts)? { Ok(()) } else { pre311::op(cx, k) })?;
    // Copies of finally bodies with branches get offsets of their own.
    pre311_exc::copy_offsets(code, ins, &facts, &mut ir)?;
    Ok((ir, errors))
}
