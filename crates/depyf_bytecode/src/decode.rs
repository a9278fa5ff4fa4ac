//! Instruction decoding for every supported version: EXTENDED_ARG prefixes, inline CACHE
//! entries, jump targets and argument resolution. Rules follow each version's
//! `Lib/dis.py` (`_get_instructions_bytes`, `_get_jump_target`, `ArgResolver`).

use std::sync::OnceLock;

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
            line_table::for_each_range(code, |_, _, _| {})?;
            return Err(e);
        }
    };
    set_lines(code, &mut out)?;
    Ok(out)
}

/// The instructions of `code.co_code` (even length), without their lines: every
/// `line_number` is `None` and every `starts_line` false. Errors as [`decode`], but
/// for the line table's: the first instruction's error, in offset order.
fn instructions(code: &CodeObject, table: &'static OpcodeTable) -> Result<Vec<Instruction>, BytecodeError> {
    let infos = op_infos(table);
    let mut out = Vec::with_capacity(code.co_code.len() / 2);
    // Two passes, each a loop with little state: the instructions, then their
    // argvals. An instruction's argval error comes before the error of a later one
    // that stopped the first pass.
    let split = split(code, infos, table.extended_arg, &mut out);
    let off_boundary = resolve_all(code, table, infos, &mut out)?;
    split?;
    // Jumps must land on an instruction boundary.
    if let Some((offset, t)) = off_boundary {
        return Err(err(code, offset as usize, BytecodeErrorKind::BadJumpTarget(i64::from(t))));
    }
    Ok(out)
}

/// Appends the instructions of `code.co_code` (even length) to `out`, each with its
/// `oparg` (after `EXTENDED_ARG`) but `Argval::Plain`, until the end or the first
/// instruction that is an error (`UnknownOpcode`, `Truncated` caches, `EXTENDED_ARG`
/// overflow). `ext_op` is the version's `EXTENDED_ARG`.
#[inline(never)]
fn split(code: &CodeObject, infos: &[OpInfo; 256], ext_op: u8, out: &mut Vec<Instruction>) -> Result<(), BytecodeError> {
    let bytes = &code.co_code[..];
    let len = bytes.len();
    let mut ext: u32 = 0;
    let mut start = 0usize;
    let mut i = 0usize;
    while i + 1 < len {
        let op = bytes[i];
        let info = &infos[op as usize];
        let Some(name) = info.name else {
            return Err(err(code, i, BytecodeErrorKind::UnknownOpcode(op)));
        };
        let caches = info.caches;
        let next = i + 2 + 2 * caches as usize;
        if next > len {
            return Err(err(code, i, BytecodeErrorKind::Truncated));
        }
        let arg = ext | u32::from(bytes[i + 1]);
        out.push(Instruction {
            offset: i as u32,
            start_offset: start as u32,
            opcode: op,
            opname: name,
            id: info.id,
            oparg: if info.rule == ArgRule::NoArg { None } else { Some(arg) },
            argval: Argval::Plain,
            cache_units: caches,
            line_number: None,
            starts_line: false,
        });
        if op == ext_op {
            ext = arg << 8;
            if ext > (1 << 30) {
                return Err(err(code, i, BytecodeErrorKind::BadOparg("EXTENDED_ARG overflow".into())));
            }
        } else {
            ext = 0;
            start = next;
        }
        i = next;
    }
    Ok(())
}

/// Gives the instructions `out` of `code` their argvals, by the rules of `infos`, and
/// returns the first jump whose target is not an instruction's offset (nor the end of
/// the code): its offset and target. Errors: the first instruction's `BadOparg` or
/// `BadJumpTarget` (a target outside the code).
#[inline(never)]
fn resolve_all(code: &CodeObject, table: &OpcodeTable, infos: &[OpInfo; 256], out: &mut [Instruction]) -> Result<Option<(u32, u32)>, BytecodeError> {
    // Number of `LOCAL` slots, which free-variable opargs count past before 3.11.
    let free_base = if code.version >= PythonVersion::PY311 { 0 } else { code.co_nlocals() };
    let mut off_boundary = None;
    for k in 0..out.len() {
        let ins = &out[k];
        let rule = infos[ins.opcode as usize].rule;
        if let (Some(arg), false) = (ins.oparg, matches!(rule, ArgRule::NoArg | ArgRule::Plain)) {
            let argval = resolve(code, table, rule, free_base, ins.opname, arg, ins.offset, ins.end_offset() as usize)?;
            if let Argval::Jump(t) = argval {
                if off_boundary.is_none() && out.binary_search_by_key(&t, |x| x.offset).is_err() && t as usize != code.co_code.len() {
                    off_boundary = Some((out[k].offset, t));
                }
            }
            out[k].argval = argval;
        }
    }
    Ok(off_boundary)
}

/// Gives the instructions `out` of `code` (in offset order) their `line_number` and
/// `starts_line`. Errors: `BadTable` for a malformed line table. Not inlined, like
/// [`instructions`].
#[inline(never)]
fn set_lines(code: &CodeObject, out: &mut [Instruction]) -> Result<(), BytecodeError> {
    // 3.10+ decide the starts from the ranges as they come; before 3.10 they are
    // this version's `dis.findlinestarts`, walked along with the instructions below.
    let from_runs = code.version >= PythonVersion::PY310;
    let mut lines = Lines {
        out: &mut *out,
        p: 0,
        every_change: code.version >= PythonVersion::PY313,
        from_runs,
        before: None,
    };
    // The units up to `covered` have had their line; a stretch the table skips has none.
    let mut covered = 0;
    line_table::for_each_range(code, |start, end, line| {
        if start >= end {
            return;
        }
        if start > covered {
            lines.range(covered, start, None);
        }
        lines.range(start, end, line);
        covered = end;
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

/// Gives instructions the lines of the line table's ranges of code units, which come
/// in order, follow each other and are not empty.
struct Lines<'a> {
    /// The instructions, in offset order.
    out: &'a mut [Instruction],
    /// The first instruction not given a line yet.
    p: usize,
    /// 3.13+: every change of line starts one (a range without a line too, not kept).
    /// 3.10-3.12: a unit starts a line when its line differs from the last line before
    /// it that is not `None` (what `line_starts_in` compares each unit's line with).
    every_change: bool,
    /// Whether `starts_line` is decided here (3.10+).
    from_runs: bool,
    /// The line the next range's first unit is compared with (`None` at first).
    before: Option<u32>,
}

impl Lines<'_> {
    /// The code units `start..end` (not empty, right after the last range) have `line`.
    #[inline]
    fn range(&mut self, start: usize, end: usize, line: Option<u32>) {
        let out = &mut *self.out;
        let mut p = self.p;
        if line.is_some() {
            // All units of a range have its line: only its first unit can start one
            // (when it begins an instruction rather than a cache entry). A range with
            // the line of the one before starts none, as `before` is then that line.
            if self.from_runs && line != self.before {
                if let Some(i) = out.get_mut(p) {
                    if i.offset as usize == 2 * start {
                        i.starts_line = true;
                    }
                }
            }
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
        self.p = p;
        if self.every_change || line.is_some() {
            self.before = line;
        }
    }
}

/// How the oparg of one opcode becomes its [`Argval`], with the rules of the table's
/// version already applied (`dis` of that version: which table an oparg indexes, the
/// flag bits below the index, jump units and direction). Worked out once per version
/// ([`op_infos`]), so that decoding an instruction is one look-up and one `match`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ArgRule {
    /// No oparg: `oparg` is `None`.
    NoArg,
    /// An oparg with no table behind it (counts, flags, `EXTENDED_ARG`).
    Plain,
    /// A jump forward from the end of the instruction (after its caches) by the oparg
    /// times the factor (3.8-3.9 count bytes: 1; 3.10+ code units: 2).
    Forward(u8),
    /// A 3.11+ backward jump (`dis._is_backward_jump`): back from the end of the
    /// instruction by the oparg in code units.
    Backward,
    /// A jump to the oparg times the factor (before 3.11: bytes, 1; 3.10: units, 2).
    Absolute(u8),
    /// Index into `co_consts`.
    Const,
    /// Index into `co_names`, shifted right by this many flag bits (3.11+
    /// `LOAD_GLOBAL`, 3.12+ `LOAD_ATTR`, `LOAD_SUPER_ATTR`, 3.15+ `IMPORT_NAME`).
    Name(u8),
    /// Index into `co_localsplusnames`.
    Local,
    /// 3.13+ superinstructions: two local indexes, oparg nibbles high then low.
    LocalPair,
    /// Index into the cell and free variables (before 3.11 counted past the locals).
    Free,
    /// Index into `cmp_op`, shifted right by this many bits (3.12: 4, 3.13+: 5).
    Compare(u8),
}

/// What the decoder needs to know of one opcode number of a version.
#[derive(Clone, Copy, Debug)]
struct OpInfo {
    /// The opname, `None` for numbers the version does not define.
    name: Option<&'static str>,
    /// The same as an [`Opname`].
    id: Opname,
    /// Inline CACHE code units after the instruction.
    caches: u8,
    /// How the oparg is resolved.
    rule: ArgRule,
}

/// The [`OpInfo`] of every opcode number of `table`'s version, computed on first use
/// and kept for the process. The only place that turns the version's flags and `dis`
/// rules into [`ArgRule`]s.
fn op_infos(table: &'static OpcodeTable) -> &'static [OpInfo; 256] {
    static INFOS: [OnceLock<[OpInfo; 256]>; 8] = [const { OnceLock::new() }; 8];
    let slot = usize::from(table.version.minor.saturating_sub(8)).min(7);
    INFOS[slot].get_or_init(|| {
        let ids = table.ids();
        std::array::from_fn(|op| {
            let op = op as u8;
            let id = ids[op as usize];
            OpInfo { name: table.name(op), id, caches: table.cache_entries[op as usize], rule: arg_rule(table, op, id) }
        })
    })
}

/// The [`ArgRule`] of `op` (opname `id`) in `table`'s version. The first kind of table
/// among jump, const, name, local, free and compare that the flags name decides.
fn arg_rule(table: &OpcodeTable, op: u8, id: Opname) -> ArgRule {
    let v = table.version;
    let has = |flag: u16| table.has(op, flag);
    if !has(op_flags::HAS_ARG) {
        return ArgRule::NoArg;
    }
    if op == table.extended_arg {
        return ArgRule::Plain;
    }
    // Before 3.11 jump opargs count bytes (3.8-3.9) or code units (3.10).
    let scale = if v >= PythonVersion::PY310 { 2 } else { 1 };
    if has(op_flags::HAS_JREL) || has(op_flags::HAS_JABS) {
        return if v >= PythonVersion::PY311 {
            // 3.11+: relative to the end of the instruction, in code units.
            if has(op_flags::BACKWARD_JUMP) {
                ArgRule::Backward
            } else {
                ArgRule::Forward(2)
            }
        } else if has(op_flags::HAS_JABS) {
            ArgRule::Absolute(scale)
        } else {
            ArgRule::Forward(scale)
        };
    }
    if has(op_flags::HAS_CONST) {
        return ArgRule::Const;
    }
    if has(op_flags::HAS_NAME) {
        return ArgRule::Name(match id {
            Opname::LOAD_GLOBAL if v >= PythonVersion::PY311 => 1,
            Opname::LOAD_ATTR if v >= PythonVersion::PY312 => 1,
            Opname::LOAD_SUPER_ATTR => 2,
            // 3.15 packs the lazy/eager import flags into the low two bits.
            Opname::IMPORT_NAME if v >= PythonVersion::PY315 => 2,
            _ => 0,
        });
    }
    if has(op_flags::HAS_LOCAL) {
        let pair = matches!(
            id,
            Opname::LOAD_FAST_LOAD_FAST | Opname::LOAD_FAST_BORROW_LOAD_FAST_BORROW | Opname::STORE_FAST_LOAD_FAST | Opname::STORE_FAST_STORE_FAST
        );
        return if v >= PythonVersion::PY313 && pair { ArgRule::LocalPair } else { ArgRule::Local };
    }
    if has(op_flags::HAS_FREE) {
        return ArgRule::Free;
    }
    if has(op_flags::HAS_COMPARE) {
        return ArgRule::Compare(match (v.major, v.minor) {
            (3, 12) => 4,
            (3, m) if m >= 13 => 5,
            _ => 0,
        });
    }
    ArgRule::Plain
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

/// The [`Argval`] of oparg `arg` under `rule` (neither `NoArg` nor `Plain`), for the
/// instruction `name` at `offset` whose caches end at `end`; `free_base` is where
/// free-variable indexes start. Errors: `BadJumpTarget`, `BadOparg`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn resolve(
    code: &CodeObject,
    table: &OpcodeTable,
    rule: ArgRule,
    free_base: usize,
    name: &str,
    arg: u32,
    offset: u32,
    end: usize,
) -> Result<Argval, BytecodeError> {
    let a = arg as usize;
    let jump = |t: i64| {
        if t < 0 || t as usize > code.co_code.len() {
            Err(bad_jump(code, offset, t))
        } else {
            Ok(Argval::Jump(t as u32))
        }
    };
    let nlocalsplus = code.co_localsplusnames.len();
    match rule {
        ArgRule::Forward(scale) => jump(end as i64 + i64::from(arg) * i64::from(scale)),
        ArgRule::Backward => jump(end as i64 - 2 * i64::from(arg)),
        ArgRule::Absolute(scale) => jump(i64::from(arg) * i64::from(scale)),
        ArgRule::Const => Ok(Argval::Const(check(code, offset, name, arg, a, code.co_consts.len(), "co_consts")?)),
        ArgRule::Name(shift) => Ok(Argval::Name(check(code, offset, name, arg, a >> shift, code.co_names.len(), "co_names")?)),
        ArgRule::Local => Ok(Argval::Local(check(code, offset, name, arg, a, nlocalsplus, "co_localsplusnames")?)),
        ArgRule::LocalPair => {
            let hi = check(code, offset, name, arg, a >> 4, nlocalsplus, "co_localsplusnames")?;
            let lo = check(code, offset, name, arg, a & 15, nlocalsplus, "co_localsplusnames")?;
            Ok(Argval::LocalPair(hi, lo))
        }
        ArgRule::Free => Ok(Argval::Local(check(code, offset, name, arg, free_base + a, nlocalsplus, "cell and free variables")?)),
        ArgRule::Compare(shift) => Ok(Argval::Compare(check(code, offset, name, arg, a >> shift, table.cmp_op.len(), "cmp_op")?)),
        ArgRule::NoArg | ArgRule::Plain => Ok(Argval::Plain),
    }
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
