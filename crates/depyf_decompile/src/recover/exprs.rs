//! Recovery of expressions and definitions: functions, lambdas, closures,
//! comprehensions, classes, f-strings, imports, asserts, dict/set building.

use depyf_ir::{IrInstr, Op};

use super::BlockState;
use crate::DecompileError;

impl BlockState<'_, '_> {
    /// Interprets one op of this module's kind; returns how many following ops it
    /// consumed (as `step` does).
    pub(super) fn step_expr(&mut self, _op: &Op, _next: &[IrInstr]) -> Result<usize, DecompileError> {
        Err(self.err("not supported by the decompiler yet"))
    }
}
