//! The decompiler's error type.

use std::fmt;

use depyf_bytecode::{CodeObject, PythonVersion};
use depyf_ir::IrError;

/// Why a code object could not be decompiled: the code object, the instruction (byte
/// offset, opname) and a message, e.g. `FOR_ITER: loops are not supported yet (in f
/// at offset 12, CPython 3.11)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecompileError {
    /// `co_qualname` of the code object.
    pub code_name: String,
    /// Byte offset of the instruction at fault (0 when the whole object is at fault).
    pub offset: u32,
    /// Opname of that instruction, empty when none applies.
    pub opname: String,
    /// CPython version of the bytecode.
    pub version: PythonVersion,
    /// What went wrong.
    pub message: String,
}

impl DecompileError {
    /// An error about `code` at `offset`.
    pub fn new(code: &CodeObject, offset: u32, opname: &str, message: impl Into<String>) -> Self {
        DecompileError {
            code_name: code.co_qualname.clone(),
            offset,
            opname: opname.to_string(),
            version: code.version,
            message: message.into(),
        }
    }
}

impl From<IrError> for DecompileError {
    fn from(e: IrError) -> Self {
        DecompileError { code_name: e.code_name, offset: e.offset, opname: e.opname, version: e.version, message: e.message }
    }
}

impl fmt::Display for DecompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.opname.is_empty() {
            write!(f, "{}: ", self.opname)?;
        }
        write!(f, "{} (in {} at offset {}, CPython {})", self.message, self.code_name, self.offset, self.version)
    }
}

impl std::error::Error for DecompileError {}
