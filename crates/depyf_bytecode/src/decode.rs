//! Instruction decoding for every supported version: EXTENDED_ARG prefixes, inline CACHE
//! entries, jump targets and argument resolution. Rules follow each version's
//! `Lib/dis.py` (`_get_instructions_bytes`, `_get_jump_target`, `ArgResolver`).

use crate::opcodes::{op_flags, table_for, OpcodeTable, Opname};
use crate::{line_table, BytecodeError, BytecodeErrorKind, CodeObject, PythonVersion};

/// The resolved meaning of an oparg. Indexes are `u32` (an oparg is at most 32 bits
/// wide), which keeps an [`Instruction`] small: the decoder writes one for every
/// code unit that starts an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Argval {
    /// No argument, or one with no table behind it (counts, flags).
    Plain,
    /// Index into `co_consts`.
    Const(u32),
    /// Index into `co_names` (after removing 3.11+ flag bits).
    Name(u32),
    /// Index into `co_localsplusnames`.
    Local(u32),
    /// Two indexes into `co_localsplusnames` (3.13 superinstructions such as
    /// `LOAD_FAST_LOAD_FAST`, oparg nibbles high then low).
    LocalPair(u32, u32),
    /// A jump target in bytes.
    Jump(u32),
    /// Index into the version's `cmp_op`.
    Compare(u32),
}

/// One decoded instruction, with CPython's field names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// Byte offset of the opcode itself.
    pub offset: u32,
    /// Byte offset of the first EXTENDED_ARG prefix, or `offset`.
    pub start_offset: u32,
    /// The opcode number.
    pub opcode: u8,
    /// CPython's opname.
    pub opname: &'static str,
    /// The same opname as an [`Opname`], for matching without comparing strings.
    pub id: Opname,
    /// The oparg after EXTENDED_ARG, `None` for opcodes without argument.
    pub oparg: Option<u32>,
    /// What the oparg refers to.
    pub argval: Argval,
    /// Number of inline CACHE code units after the instruction (3.11+).
    pub cache_units: u8,
    /// Source line, if the line table has one.
    pub line_number: Option<u32>,
    /// Whether this instruction starts a new line: `dis.findlinestarts` of the code's
    /// own version reports its offset with a line (the bool meaning `starts_line` has
    /// in 3.13+; before 3.13 `dis` stored the line number there instead).
    pub starts_line: bool,
}

impl Instruction {
    /// Byte offset of the next instruction (after the inline caches).
    pub fn end_offset(&self) -> u32 {
        self.offset + 2 + 2 * u32::from(self.cache_units)
    }

    /// The jump target in bytes, for jump instructions.
    pub fn jump_target(&self) -> Option<u32> {
        match self.argval {
            Argval::Jump(t) => Some(t),
            _ => None,
        }
    }
}

fn err(code: &CodeObject, offset: usize, kind: BytecodeErrorKind) -> BytecodeError {
    BytecodeError { kind, code_name: code.co_qualname.clone(), offset }
}

/// The opcode table for `code`'s version, or an `UnsupportedVersion` error.
pub fn table_of(code: &CodeObject) -> Result<&'static OpcodeTable, BytecodeError> {
    table_for(code.version)
        .ok_or_else(|| err(code, 0, BytecodeErrorKind::UnsupportedVersion(code.version.to_string())))
}

/// Decodes `code.co_code` into instructions, EXTENDED_ARG prefixes included (as `dis`
/// shows them) and inline CACHE entries skipped.
///
/// Errors: `UnsupportedVersion`, `Truncated` (odd length or caches past the end),
/// `UnknownOpcode`, `BadOparg` (index out of its table) and `BadJumpTarget`, each with
/// the byte offset of the instruction.
pub fn decode(code: &CodeObject) -> Result<Vec<Instruction>, BytecodeError> {
    let table = table_of(code)?;
    let bytes = &code.co_code;
    if !bytes.len().is_multiple_of(2) {
        return Err(err(code, bytes.len() - 1, BytecodeErrorKind::Truncated));
    }
    // The instructions first, then their lines: a loop that does one thing at a time
    // keeps its state in registers. A malformed line table is reported before any
    // error of the instructions, as when the table was read first.
    let mut out = match instructions(code, table) {
        Ok(out) => out,
        Err(e) => {
            line_table::for_each_run(code, |_, _, _| {})?;
            return Err(e);
        }
    };
    set_lines(code, &mut out)?;
    Ok(out)
}

/// The instructions of `code.co_code` (even length), without their lines: every
/// `line_number` is `None` and every `starts_line` false. Errors as [`decode`], but
/// for the line table's.
fn instructions(code: &CodeObject, table: &'static OpcodeTable) -> Result<Vec<Instruction>, BytecodeError> {
    let ids = table.ids();
    let bytes = &code.co_code[..];
    let facts = Facts::of(code);
    let mut out = Vec::with_capacity(bytes.len() / 2);
    let mut ext: u32 = 0;
    let mut start = 0usize;
    let mut i = 0usize;
    while i + 1 < bytes.len() {
        let op = bytes[i];
        let raw = u32::from(bytes[i + 1]);
        let name = table.name(op).ok_or_else(|| err(code, i, BytecodeErrorKind::UnknownOpcode(op)))?;
        let has_arg = table.has(op, op_flags::HAS_ARG);
        let oparg = if has_arg { Some(ext | raw) } else { None };
        let caches = table.cache_entries[op as usize];
        let next = i + 2 + 2 * caches as usize;
        if next > bytes.len() {
            return Err(err(code, i, BytecodeErrorKind::Truncated));
        }
        let argval = if op == table.extended_arg {
            Argval::Plain
        } else {
            resolve(code, table, &facts, op, name, ids[op as usize], oparg, i as u32, caches)?
        };
        out.push(Instruction {
            offset: i as u32,
            start_offset: start as u32,
            opcode: op,
            opname: name,
            id: ids[op as usize],
            oparg,
            argval,
            cache_units: caches,
            line_number: None,
            starts_line: false,
        });
        if op == table.extended_arg {
            ext = (ext | raw) << 8;
            if ext > (1 << 30) {
                return Err(err(code, i, BytecodeErrorKind::BadOparg("EXTENDED_ARG overflow".into())));
            }
        } else {
            ext = 0;
            start = next;
        }
        i = next;
    }
    // Jumps must land on an instruction boundary.
    for ins in &out {
        if let Argval::Jump(t) = ins.argval {
            if out.binary_search_by_key(&t, |x| x.offset).is_err() && t as usize != bytes.len() {
                return Err(err(code, ins.offset as usize, BytecodeErrorKind::BadJumpTarget(i64::from(t))));
            }
        }
    }
    Ok(out)
}

/// Gives the instructions `out` of `code` (in offset order) their `line_number` and
/// `starts_line`. Errors: `BadTable` for a malformed line table.
fn set_lines(code: &CodeObject, out: &mut [Instruction]) -> Result<(), BytecodeError> {
    // 3.13+: every change of line starts one (a range without a line too, not
    // kept). 3.10-3.12: a unit starts a line when its line differs from the last
    // line before it that is not `None` (what `line_starts_in` compares each unit's
    // line with).
    let every_change = code.version >= PythonVersion::PY313;
    // 3.10+ decide the starts from the runs as they come; before 3.10 they are
    // this version's `dis.findlinestarts`, walked along with the instructions below.
    let from_runs = code.version >= PythonVersion::PY310;
    // The first instruction not given a line yet.
    let mut p = 0usize;
    // The line of the run before the current one (`None` before the first), and the
    // line `before` that a run's first unit is compared with.
    let mut prev: Option<Option<u32>> = None;
    let mut before: Option<u32> = None;
    line_table::for_each_run(code, |start, end, line| {
        if let Some(l) = prev {
            if every_change || l.is_some() {
                before = l;
            }
        }
        prev = Some(line);
        // The units of a run have its line: only the first unit of a run can start
        // one (when it begins an instruction rather than a cache entry).
        if from_runs && line.is_some() && line != before {
            if let Some(i) = out.get_mut(p) {
                if i.offset as usize == 2 * start {
                    i.starts_line = true;
                }
            }
        }
        if line.is_some() {
            while let Some(i) = out.get_mut(p) {
                if i.offset as usize >= 2 * end {
                    break;
                }
                i.line_number = line;
                p += 1;
            }
        } else {
            while out.get(p).is_some_and(|i| (i.offset as usize) < 2 * end) {
                p += 1;
            }
        }
    })?;
    if !from_runs {
        // Line starts exactly as this version's `dis.findlinestarts` reports them,
        // keeping only those that have a line; in increasing order, like the
        // instructions.
        let mut k = 0usize;
        for (o, l) in crate::dis::line_starts_in(code, &[])? {
            if l.is_none() {
                continue;
            }
            while k < out.len() && out[k].offset < o {
                k += 1;
            }
            if let Some(i) = out.get_mut(k) {
                if i.offset == o && i.line_number.is_some() {
                    i.starts_line = true;
                }
            }
        }
    }
    Ok(())
}

/// The version facts [`resolve`] needs, worked out once per code object.
struct Facts {
    /// 3.11+: relative jumps count code units after the inline caches.
    post311: bool,
    /// Before 3.11: jump opargs count bytes (3.8-3.9) or code units (3.10).
    jump_scale: i64,
    /// 3.11+ `LOAD_GLOBAL` keeps its NULL bit in the low bit.
    global_shift: bool,
    /// 3.12+ `LOAD_ATTR` keeps its method bit in the low bit.
    attr_shift: bool,
    /// 3.15+ `IMPORT_NAME` keeps its lazy/eager bits in the low two bits.
    import_shift: bool,
    /// 3.13+ superinstructions pack two locals into one oparg.
    local_pairs: bool,
    /// How far `COMPARE_OP`'s oparg is shifted (3.12: 4, 3.13+: 5).
    compare_shift: u32,
    /// Number of `LOCAL` slots, which free-variable opargs count past before 3.11.
    free_base: usize,
}

impl Facts {
    fn of(code: &CodeObject) -> Self {
        let v = code.version;
        Facts {
            post311: v >= PythonVersion::PY311,
            jump_scale: if v >= PythonVersion::PY310 { 2 } else { 1 },
            global_shift: v >= PythonVersion::PY311,
            attr_shift: v >= PythonVersion::PY312,
            import_shift: v >= PythonVersion::PY315,
            local_pairs: v >= PythonVersion::PY313,
            compare_shift: match (v.major, v.minor) {
                (3, 12) => 4,
                (3, m) if m >= 13 => 5,
                _ => 0,
            },
            free_base: if v >= PythonVersion::PY311 { 0 } else { code.co_nlocals() },
        }
    }
}

/// `idx` when it is below `len`, else the `BadOparg` error naming the table.
#[inline]
fn check(code: &CodeObject, offset: u32, name: &str, arg: u32, idx: usize, len: usize, what: &str) -> Result<u32, BytecodeError> {
    // Below a table length, so it fits: marshal lengths are 32-bit.
    if idx < len {
        Ok(idx as u32)
    } else {
        Err(bad_index(code, offset, name, arg, idx, len, what))
    }
}

#[cold]
#[inline(never)]
fn bad_index(code: &CodeObject, offset: u32, name: &str, arg: u32, idx: usize, len: usize, what: &str) -> BytecodeError {
    err(code, offset as usize, BytecodeErrorKind::BadOparg(format!("{name} {arg}: {what} index {idx} out of range ({len} entries)")))
}

#[cold]
#[inline(never)]
fn bad_jump(code: &CodeObject, offset: u32, t: i64) -> BytecodeError {
    err(code, offset as usize, BytecodeErrorKind::BadJumpTarget(t))
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn resolve(
    code: &CodeObject,
    table: &OpcodeTable,
    facts: &Facts,
    op: u8,
    name: &str,
    id: Opname,
    oparg: Option<u32>,
    offset: u32,
    caches: u8,
) -> Result<Argval, BytecodeError> {
    let Some(arg) = oparg else { return Ok(Argval::Plain) };
    let a = arg as usize;
    let flags = table.flags[op as usize];
    let has = |flag: u16| flags & flag == flag;
    if has(op_flags::HAS_JREL) || has(op_flags::HAS_JABS) {
        let t: i64 = if facts.post311 {
            let base = i64::from(offset) + 2 + 2 * i64::from(caches);
            if has(op_flags::BACKWARD_JUMP) {
                base - 2 * i64::from(arg)
            } else {
                base + 2 * i64::from(arg)
            }
        } else if has(op_flags::HAS_JABS) {
            i64::from(arg) * facts.jump_scale
        } else {
            i64::from(offset) + 2 + i64::from(arg) * facts.jump_scale
        };
        if t < 0 || t as usize > code.co_code.len() {
            return Err(bad_jump(code, offset, t));
        }
        return Ok(Argval::Jump(t as u32));
    }
    if has(op_flags::HAS_CONST) {
        return Ok(Argval::Const(check(code, offset, name, arg, a, code.co_consts.len(), "co_consts")?));
    }
    if has(op_flags::HAS_NAME) {
        let idx = match id {
            Opname::LOAD_GLOBAL if facts.global_shift => a >> 1,
            Opname::LOAD_ATTR if facts.attr_shift => a >> 1,
            Opname::LOAD_SUPER_ATTR => a >> 2,
            // 3.15 packs the lazy/eager import flags into the low two bits.
            Opname::IMPORT_NAME if facts.import_shift => a >> 2,
            _ => a,
        };
        return Ok(Argval::Name(check(code, offset, name, arg, idx, code.co_names.len(), "co_names")?));
    }
    let nlocalsplus = code.co_localsplusnames.len();
    if has(op_flags::HAS_LOCAL) {
        if facts.local_pairs && matches!(id, Opname::LOAD_FAST_LOAD_FAST | Opname::LOAD_FAST_BORROW_LOAD_FAST_BORROW | Opname::STORE_FAST_LOAD_FAST | Opname::STORE_FAST_STORE_FAST) {
            let hi = check(code, offset, name, arg, a >> 4, nlocalsplus, "co_localsplusnames")?;
            let lo = check(code, offset, name, arg, a & 15, nlocalsplus, "co_localsplusnames")?;
            return Ok(Argval::LocalPair(hi, lo));
        }
        return Ok(Argval::Local(check(code, offset, name, arg, a, nlocalsplus, "co_localsplusnames")?));
    }
    if has(op_flags::HAS_FREE) {
        let idx = facts.free_base + a;
        return Ok(Argval::Local(check(code, offset, name, arg, idx, nlocalsplus, "cell and free variables")?));
    }
    if has(op_flags::HAS_COMPARE) {
        let idx = a >> facts.compare_shift;
        return Ok(Argval::Compare(check(code, offset, name, arg, idx, table.cmp_op.len(), "cmp_op")?));
    }
    Ok(Argval::Plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `starts_line` is true exactly at the offsets with a line that
    /// `dis::line_starts` reports, for every code object of the fixture .pyc files
    /// of 3.8-3.15 (decode works it out without that list from 3.10 on).
    #[test]
    fn starts_line_is_what_dis_reports() {
        let mut n = 0;
        crate::for_each_fixture_code(&mut |code| {
            let starts: Vec<u32> = crate::dis::line_starts(code).unwrap().into_iter().filter(|(_, l)| l.is_some()).map(|(o, _)| o).collect();
            for i in decode(code).unwrap() {
                assert_eq!(i.starts_line, starts.contains(&i.offset), "{} {} at {}", code.version, code.co_qualname, i.offset);
                n += 1;
            }
        });
        assert!(n > 1000, "only {n} instructions checked");
    }

    /// A malformed line table is the error, also when an instruction is bad too (the
    /// table is read after the instructions, its error comes first).
    #[test]
    fn line_table_error_comes_before_instruction_errors() {
        let mut checked = false;
        crate::for_each_fixture_code(&mut |code| {
            if checked || code.version < PythonVersion::PY311 || code.co_code.is_empty() {
                return;
            }
            let table = table_of(code).unwrap();
            let unknown = (0..=255u8).find(|&op| table.name(op).is_none()).expect("an unused opcode number");
            let mut bad = code.clone();
            bad.co_code[0] = unknown;
            assert!(matches!(decode(&bad).unwrap_err().kind, BytecodeErrorKind::UnknownOpcode(_)));
            // A location entry without its start bit.
            bad.co_linetable = vec![0x00];
            assert!(matches!(decode(&bad).unwrap_err().kind, BytecodeErrorKind::BadTable(_)));
            bad.co_code = code.co_code.clone();
            assert!(matches!(decode(&bad).unwrap_err().kind, BytecodeErrorKind::BadTable(_)));
            checked = true;
        });
        assert!(checked, "no 3.11+ fixture code object");
    }
}
