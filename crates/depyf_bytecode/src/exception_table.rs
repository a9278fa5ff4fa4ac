//! The 3.11+ exception table (CPython `InternalDocs/exception_handling.md`; 3.11-3.12
//! `Objects/exception_handling_notes.txt`).

use crate::line_table::read_exception_varint;
use crate::{BytecodeError, BytecodeErrorKind, CodeObject};

/// One protected range: an exception raised by an instruction whose offset lies in
/// `start..end` (half-open, in bytes) unwinds the value stack to `depth` items, pushes
/// the offset of the raising instruction if `lasti`, pushes the exception, and jumps to
/// `target` (bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExceptionTableEntry {
    /// First protected byte offset.
    pub start: u32,
    /// One past the last protected byte offset.
    pub end: u32,
    /// Handler byte offset.
    pub target: u32,
    /// Value-stack depth kept when the handler starts.
    pub depth: u32,
    /// Whether the offset of the raising instruction is pushed before the exception.
    pub lasti: bool,
}

/// Parses `code.co_exceptiontable`. Empty for versions before 3.11.
///
/// Errors with `BadTable` (offset into the table) on a truncated or out-of-range entry.
pub fn parse_exception_table(code: &CodeObject) -> Result<Vec<ExceptionTableEntry>, BytecodeError> {
    let t = &code.co_exceptiontable;
    let mut out = Vec::new();
    let mut pos = 0;
    let bad = |offset: usize, m: &str| BytecodeError {
        kind: BytecodeErrorKind::BadTable(m.to_string()),
        code_name: code.co_qualname.clone(),
        offset,
    };
    while pos < t.len() {
        let at = pos;
        if t[pos] & 128 == 0 {
            return Err(bad(at, "exception table entry without its start bit"));
        }
        let mut field = || read_exception_varint(t, &mut pos).ok_or_else(|| bad(at, "truncated entry"));
        let start = field()?;
        let length = field()?;
        let target = field()?;
        let dl = field()?;
        let start_b = u64::from(start) * 2;
        let end_b = (u64::from(start) + u64::from(length)) * 2;
        let target_b = u64::from(target) * 2;
        let len = code.co_code.len() as u64;
        if end_b > len || target_b >= len {
            return Err(bad(at, "entry points outside co_code"));
        }
        out.push(ExceptionTableEntry {
            start: start_b as u32,
            end: end_b as u32,
            target: target_b as u32,
            depth: dl >> 1,
            lasti: dl & 1 != 0,
        });
    }
    Ok(out)
}
