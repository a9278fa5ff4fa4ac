//! The one error type of this crate.

use std::fmt;

/// What went wrong while decoding bytecode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BytecodeErrorKind {
    /// No opcode table for this version, e.g. bytecode of CPython 3.7.
    UnsupportedVersion(String),
    /// `co_code` has an odd length or ends inside an instruction's inline caches.
    Truncated,
    /// A byte that is no opcode of this version, e.g. `opcode 252 is not defined in 3.11`.
    UnknownOpcode(u8),
    /// An oparg that indexes past its table, e.g. `LOAD_CONST 7` with 3 constants.
    BadOparg(String),
    /// A jump whose target lies outside `co_code` or inside an instruction.
    BadJumpTarget(i64),
    /// A malformed exception or line table.
    BadTable(String),
}

/// A bytecode error with its location: the code object's qualified name and the byte
/// offset of the instruction (or table entry) at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct BytecodeError {
    /// What went wrong.
    pub kind: BytecodeErrorKind,
    /// `co_qualname` of the code object.
    pub code_name: String,
    /// Byte offset in `co_code` (or in the table for `BadTable`).
    pub offset: usize,
}

/// What went wrong, without where (callers that name the code object and offset
/// themselves print this alone).
impl fmt::Display for BytecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BytecodeErrorKind::UnsupportedVersion(v) => write!(f, "unsupported Python version {v}"),
            BytecodeErrorKind::Truncated => write!(f, "bytecode ends inside an instruction"),
            BytecodeErrorKind::UnknownOpcode(op) => write!(f, "unknown opcode {op}"),
            BytecodeErrorKind::BadOparg(m) => write!(f, "bad oparg: {m}"),
            BytecodeErrorKind::BadJumpTarget(t) => write!(f, "jump to invalid offset {t}"),
            BytecodeErrorKind::BadTable(m) => write!(f, "malformed table: {m}"),
        }
    }
}

impl fmt::Display for BytecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (in {} at offset {})", self.kind, self.code_name, self.offset)
    }
}
