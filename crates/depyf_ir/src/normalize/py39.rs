//! CPython 3.9 → [`Op`](crate::Op): everything is shared with the other pre-3.11
//! versions in `pre311`; its block stack (`SETUP_FINALLY`, `SETUP_WITH`, `POP_BLOCK`,
//! `POP_EXCEPT`, `RERAISE`, ...) is normalized to 3.11's shape by `pre311_exc`.
//!
//! 3.9 added `LIST_TO_TUPLE`, `LIST_EXTEND`, `SET_UPDATE`, `DICT_UPDATE`, `DICT_MERGE`,
//! `IS_OP`, `CONTAINS_OP`, `LOAD_ASSERTION_ERROR` (all in `common`).

use depyf_bytecode::{CodeObject, Instruction};

use super::common::{Cx, Normalized};
use super::{pre311, pre311_exc, IrError};

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    // The block stack (`SETUP_*`, handlers) first: see `pre311_exc`.
    let facts = pre311_exc::Facts::scan(code, ins)?;
    with_facts(code, ins, lenient, &facts)
}

/// [`normalize`] given the block-stack facts of `ins` (`pre311_exc::Facts::scan`).
pub(super) fn with_facts(code: &CodeObject, ins: &[Instruction], lenient: bool, facts: &pre311_exc::Facts) -> Result<Normalized, IrError> {
    Cx::new(code, ins, lenient).run(|cx, k| if pre311_exc::op(cx, k, facts)? { Ok(()) } else { pre311::op(cx, k) })
}
