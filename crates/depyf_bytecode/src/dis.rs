//! A disassembler whose text equals what each CPython version's `dis.dis(code)` prints
//! for a code object (with `show_caches=False`, `adaptive=False`, `show_offsets=False`).
//!
//! The only intended difference: code objects print as `<code object f at 0x0000, ...>`,
//! since the real address differs in every process.
//!
//! Sources, per version (facts only): CPython `Lib/dis.py` `_disassemble_bytes`,
//! `Instruction._disassemble` (3.8-3.12), `Formatter.print_instruction_line` and
//! `ArgResolver.get_argval_argrepr` (3.13+), `_get_instructions_bytes` (3.8-3.12),
//! `findlabels`, `findlinestarts`, `_make_labels_map`, `_get_lineno_width` (3.13+) and
//! `_disassemble_recursive`.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use crate::opcodes::{op_flags, OpcodeTable};
use crate::repr::constant_repr;
use crate::{decode, line_table, parse_exception_table, BytecodeError, CodeObject, Constant, Instruction, PythonVersion};

const OPNAME_WIDTH: usize = 20;
const OPARG_WIDTH: usize = 5;

/// `dis.dis(code)`: the disassembly of `code`, then of every code object in its
/// `co_consts` (recursively), each introduced by a blank line and
/// `Disassembly of <code object ...>:`.
///
/// Errors: whatever [`decode`], [`parse_exception_table`] or the line tables report for
/// malformed bytecode (unknown opcodes, out-of-range opargs, bad tables).
pub fn dis(code: &CodeObject) -> Result<String, BytecodeError> {
    let mut out = String::new();
    dis_recursive(code, &mut out, 0)?;
    Ok(out)
}

fn dis_recursive(code: &CodeObject, out: &mut String, depth: usize) -> Result<(), BytecodeError> {
    disassemble_into(code, out)?;
    if depth > crate::marshal::MAX_DEPTH {
        return Ok(());
    }
    for c in &code.co_consts {
        if let Constant::Code(inner) = c {
            out.push('\n');
            let _ = writeln!(out, "Disassembly of {}:", constant_repr(c, code.version));
            dis_recursive(inner, out, depth + 1)?;
        }
    }
    Ok(())
}

/// `dis.disassemble(code)`: the disassembly of `code` alone (no nested code objects),
/// followed by its exception table (3.11+).
///
/// Errors as for [`dis`].
pub fn disassemble(code: &CodeObject) -> Result<String, BytecodeError> {
    let mut out = String::new();
    disassemble_into(code, &mut out)?;
    Ok(out)
}

/// The offsets that `findlinestarts` reports for `code`, with their line (`None` only
/// for 3.13+, where the start of a range without a line is reported too).
///
/// 3.8-3.9 walk `co_lnotab` as CPython 3.9 `Lib/dis.py` `findlinestarts` does; 3.10+
/// use the per-code-unit lines of [`line_table::unit_lines`] (what `co_lines()`
/// yields), skipping `None` lines and repeats of the last line before 3.13, and
/// reporting every change of line (`None` included) from 3.13 on.
///
/// Errors: `BadTable` for a malformed line table.
pub fn line_starts(code: &CodeObject) -> Result<Vec<(u32, Option<u32>)>, BytecodeError> {
    if code.version < PythonVersion::PY310 {
        return line_starts_in(code, &[]);
    }
    line_starts_in(code, &line_table::unit_lines(code)?)
}

/// [`line_starts`] given `lines`, the [`line_table::unit_lines`] of `code` (unused,
/// may be empty, before 3.10), so that a caller that has them does not compute them
/// again. Offsets come in increasing order.
pub(crate) fn line_starts_in(code: &CodeObject, lines: &[Option<u32>]) -> Result<Vec<(u32, Option<u32>)>, BytecodeError> {
    let v = code.version;
    let mut out = Vec::new();
    if v < PythonVersion::PY310 {
        let t = &code.co_linetable;
        let len = code.co_code.len() as u64;
        let mut last: Option<i64> = None;
        let mut line = i64::from(code.co_firstlineno);
        let mut addr: u64 = 0;
        let clamp = |l: i64| u32::try_from(l.max(0)).unwrap_or(u32::MAX);
        for pair in t.chunks_exact(2) {
            let (db, dl) = (pair[0], pair[1] as i8);
            if db != 0 {
                if last != Some(line) {
                    out.push((addr as u32, Some(clamp(line))));
                    last = Some(line);
                }
                addr += u64::from(db);
                if addr >= len {
                    return Ok(out);
                }
            }
            line += i64::from(dl);
        }
        if last != Some(line) {
            out.push((addr as u32, Some(clamp(line))));
        }
        return Ok(out);
    }
    if v < PythonVersion::PY313 {
        let mut last = None;
        for (u, l) in lines.iter().enumerate() {
            if l.is_some() && *l != last {
                out.push(((u * 2) as u32, *l));
                last = *l;
            }
        }
    } else {
        for (u, l) in lines.iter().enumerate() {
            if u == 0 || lines[u - 1] != *l {
                out.push(((u * 2) as u32, *l));
            }
        }
    }
    Ok(out)
}

/// Jump targets as `findlabels` computes them (every jump, forward or backward).
fn jump_targets(ins: &[Instruction]) -> BTreeSet<u32> {
    ins.iter().filter_map(Instruction::jump_target).collect()
}

fn disassemble_into(code: &CodeObject, out: &mut String) -> Result<(), BytecodeError> {
    let v = code.version;
    let table = decode::table_of(code)?;
    let ins = decode(code)?;
    let exc = if v >= PythonVersion::PY311 { parse_exception_table(code)? } else { Vec::new() };
    let starts = line_starts(code)?;
    let start_map: HashMap<u32, Option<u32>> = starts.iter().copied().collect();
    let mut targets = jump_targets(&ins);
    let modern = v >= PythonVersion::PY313;

    // Label numbering (3.13+) or the `>>` marker (before).
    let mut labels: HashMap<u32, usize> = HashMap::new();
    if modern {
        for e in &exc {
            targets.insert(e.start);
            targets.insert(e.end);
            targets.insert(e.target);
        }
        for (i, t) in targets.iter().enumerate() {
            labels.insert(*t, i + 1);
        }
    } else {
        for e in &exc {
            targets.insert(e.target);
        }
    }
    let label_width = 4 + labels.len().to_string().len();

    let lineno_width = if modern {
        // `_get_lineno_width`: `filter(None, ...)` drops both None and 0.
        let max = start_map.values().filter_map(|l| *l).filter(|l| *l != 0).max();
        match max {
            None => 0,
            Some(m) => {
                let w = 3.max(m.to_string().len());
                if w < 4 && start_map.values().any(Option::is_none) {
                    4
                } else {
                    w
                }
            }
        }
    } else {
        let show = v < PythonVersion::PY310 || !start_map.is_empty();
        match start_map.values().filter_map(|l| *l).max() {
            Some(m) if show && m >= 1000 => m.to_string().len(),
            _ if show && !start_map.is_empty() => 3,
            _ => 0,
        }
    };
    let maxoffset = code.co_code.len().saturating_sub(2);
    let offset_width = if maxoffset >= 10000 { maxoffset.to_string().len() } else { 4 };

    for i in &ins {
        let starts = start_map.get(&i.offset);
        if lineno_width > 0 && starts.is_some() && i.offset > 0 {
            out.push('\n');
        }
        let mut fields: Vec<String> = Vec::with_capacity(6);
        if lineno_width > 0 {
            fields.push(match starts {
                Some(Some(l)) => format!("{l:>lineno_width$}"),
                Some(None) => format!("{:>lineno_width$}", "--"),
                None => " ".repeat(lineno_width),
            });
        }
        let argrepr = argrepr(code, table, i, &labels);
        if modern {
            match labels.get(&i.offset) {
                Some(n) => fields.push(format!("{:>label_width$}", format!("L{n}:"))),
                None => fields.push(" ".repeat(label_width)),
            }
            fields.push("   ".into());
            fields.push(format!("{:<OPNAME_WIDTH$}", i.opname));
            if let Some(arg) = i.oparg {
                let w = OPARG_WIDTH.saturating_sub(i.opname.len().saturating_sub(OPNAME_WIDTH));
                fields.push(format!("{arg:>w$}"));
                if !argrepr.is_empty() {
                    fields.push(format!("({argrepr})"));
                }
            }
        } else {
            fields.push("   ".into());
            fields.push(if targets.contains(&i.offset) { ">>".into() } else { "  ".into() });
            fields.push(format!("{:>offset_width$}", i.offset));
            fields.push(format!("{:<OPNAME_WIDTH$}", i.opname));
            if let Some(arg) = i.oparg {
                fields.push(format!("{arg:>OPARG_WIDTH$}"));
                if !argrepr.is_empty() {
                    fields.push(format!("({argrepr})"));
                }
            }
        }
        let line = fields.join(" ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if !exc.is_empty() {
        out.push_str("ExceptionTable:\n");
        for e in &exc {
            let lasti = if e.lasti { " lasti" } else { "" };
            if modern {
                let l = |o: u32| labels.get(&o).copied().unwrap_or(0);
                let _ = writeln!(out, "  L{} to L{} -> L{} [{}]{lasti}", l(e.start), l(e.end), l(e.target), e.depth);
            } else {
                let _ = writeln!(out, "  {} to {} -> {} [{}]{lasti}", e.start, i64::from(e.end) - 2, e.target, e.depth);
            }
        }
    }
    Ok(())
}

/// The flag names of `MAKE_FUNCTION` (3.8-3.12) and `SET_FUNCTION_ATTRIBUTE` (3.13+).
const FUNCTION_FLAGS: [&str; 5] = ["defaults", "kwdefaults", "annotations", "closure", "annotate"];

/// The `argrepr` that `dis` shows in parentheses after the oparg (empty for none).
fn argrepr(code: &CodeObject, table: &OpcodeTable, i: &Instruction, labels: &HashMap<u32, usize>) -> String {
    let v = code.version;
    let Some(arg) = i.oparg else { return String::new() };
    let op = i.opcode;
    let name = i.opname;
    let has = |f: u16| table.has(op, f);
    let names = |idx: u32| code.co_names.get(idx as usize).map(|n| n.to_string()).unwrap_or_default();
    let local = |idx: u32| code.co_localsplusnames.get(idx as usize).map(|n| n.to_string()).unwrap_or_default();
    if has(op_flags::HAS_CONST) {
        // 3.11 resolves only LOAD_CONST (not KW_NAMES); other versions every hasconst.
        if v == PythonVersion::PY311 && name != "LOAD_CONST" {
            return String::new();
        }
        return code.co_consts.get(arg as usize).map(|c| constant_repr(c, v)).unwrap_or_default();
    }
    if has(op_flags::HAS_NAME) {
        let modern = v >= PythonVersion::PY313;
        let with = |n: String, extra: &str| if modern { format!("{n} + {extra}") } else { format!("{extra} + {n}") };
        return match name {
            "LOAD_GLOBAL" if v >= PythonVersion::PY311 => {
                let n = names(arg >> 1);
                if arg & 1 != 0 && !n.is_empty() {
                    with(n, "NULL")
                } else {
                    n
                }
            }
            "LOAD_ATTR" | "LOAD_SUPER_ATTR" if v >= PythonVersion::PY312 => {
                let n = names(if name == "LOAD_ATTR" { arg >> 1 } else { arg >> 2 });
                if arg & 1 != 0 && !n.is_empty() {
                    with(n, "NULL|self")
                } else {
                    n
                }
            }
            "IMPORT_NAME" if v >= PythonVersion::PY315 => {
                let n = names(arg >> 2);
                if arg & 1 != 0 && !n.is_empty() {
                    format!("{n} + lazy")
                } else if arg & 2 != 0 && !n.is_empty() {
                    format!("{n} + eager")
                } else {
                    n
                }
            }
            _ => names(arg),
        };
    }
    let is_jump = has(op_flags::HAS_JREL) || (has(op_flags::HAS_JABS) && v >= PythonVersion::PY310);
    if is_jump {
        let Some(t) = i.jump_target() else { return String::new() };
        if v >= PythonVersion::PY313 {
            let prep = if name == "END_ASYNC_FOR" { "from" } else { "to" };
            return format!("{prep} L{}", labels.get(&t).copied().unwrap_or(0));
        }
        return format!("to {t}");
    }
    if has(op_flags::HAS_JABS) {
        return String::new();
    }
    if v >= PythonVersion::PY313
        && matches!(name, "LOAD_FAST_LOAD_FAST" | "LOAD_FAST_BORROW_LOAD_FAST_BORROW" | "STORE_FAST_LOAD_FAST" | "STORE_FAST_STORE_FAST")
    {
        return format!("{}, {}", local(arg >> 4), local(arg & 15));
    }
    if has(op_flags::HAS_LOCAL) || has(op_flags::HAS_FREE) {
        let idx = if v < PythonVersion::PY311 && has(op_flags::HAS_FREE) { code.co_nlocals() as u32 + arg } else { arg };
        return local(idx);
    }
    if has(op_flags::HAS_COMPARE) {
        let (idx, boolean) = match v.minor {
            ..=11 => (arg, false),
            12 => (arg >> 4, false),
            _ => (arg >> 5, arg & 16 != 0),
        };
        let s = table.cmp_op.get(idx as usize).copied().unwrap_or("").to_string();
        return if boolean { format!("bool({s})") } else { s };
    }
    let conv = ["", "str", "repr", "ascii"];
    match name {
        "FORMAT_VALUE" => {
            let mut s = conv[(arg & 3) as usize].to_string();
            if arg & 4 != 0 {
                if !s.is_empty() {
                    s.push_str(", ");
                }
                s.push_str("with format");
            }
            s
        }
        "CONVERT_VALUE" => conv.get(arg as usize).copied().unwrap_or("").into(),
        "MAKE_FUNCTION" | "SET_FUNCTION_ATTRIBUTE" => {
            let n = if v >= PythonVersion::PY314 { 5 } else { 4 };
            FUNCTION_FLAGS[..n].iter().enumerate().filter(|(b, _)| arg & (1 << b) != 0).map(|(_, s)| *s).collect::<Vec<_>>().join(", ")
        }
        "BINARY_OP" => table.nb_ops.get(arg as usize).copied().unwrap_or("").into(),
        "CALL_INTRINSIC_1" => table.intrinsic1.get(arg as usize).copied().unwrap_or("").into(),
        "CALL_INTRINSIC_2" => table.intrinsic2.get(arg as usize).copied().unwrap_or("").into(),
        "LOAD_COMMON_CONSTANT" => table.common_constants.get(arg as usize).copied().unwrap_or("").into(),
        "LOAD_SPECIAL" => table.special_method_names.get(arg as usize).copied().unwrap_or("").into(),
        "IS_OP" if v >= PythonVersion::PY314 => (if arg != 0 { "is not" } else { "is" }).into(),
        "CONTAINS_OP" if v >= PythonVersion::PY314 => (if arg != 0 { "not in" } else { "in" }).into(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(version: PythonVersion, co_code: Vec<u8>, linetable: Vec<u8>) -> CodeObject {
        CodeObject {
            version,
            co_argcount: 0,
            co_posonlyargcount: 0,
            co_kwonlyargcount: 0,
            co_stacksize: 1,
            co_flags: 0,
            co_code,
            co_consts: vec![Constant::None, Constant::Str("it's".into())],
            co_names: vec!["x".into()],
            co_localsplusnames: vec![],
            co_localspluskinds: vec![],
            co_filename: "t.py".into(),
            co_name: "<module>".into(),
            co_qualname: "<module>".into(),
            co_firstlineno: 1,
            co_linetable: linetable,
            co_exceptiontable: vec![],
        }
    }

    #[test]
    fn py38_module() {
        // compile("x = \"it's\"", "t.py", "exec") under 3.8: LOAD_CONST 1; STORE_NAME 0;
        // LOAD_CONST 0; RETURN_VALUE, lnotab empty.
        let c = code(PythonVersion::PY38, vec![100, 1, 90, 0, 100, 0, 83, 0], vec![]);
        let text = dis(&c).unwrap();
        assert_eq!(
            text,
            "  1           0 LOAD_CONST               1 (\"it's\")\n              2 STORE_NAME               0 (x)\n              4 LOAD_CONST               0 (None)\n              6 RETURN_VALUE\n"
        );
    }

    #[test]
    fn py313_labels_and_lines() {
        // RESUME 0; LOAD_NAME 0; POP_JUMP_IF_FALSE 1 (+cache); NOP; RETURN_CONST 0.
        let t = crate::table_for(PythonVersion::PY313).unwrap();
        let op = |n: &str| t.opcode(n).unwrap();
        let bytes = vec![op("RESUME"), 0, op("LOAD_NAME"), 0, op("POP_JUMP_IF_FALSE"), 1, 0, 0, op("NOP"), 0, op("RETURN_CONST"), 0];
        // One location entry per unit: line 0 (first), then +1 ("no column" form).
        let lt = vec![0x80 | (13 << 3), 0, 0x80 | (13 << 3) | 4, 2];
        let c = code(PythonVersion::PY313, bytes, lt);
        let text = dis(&c).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "  1           RESUME                   0");
        assert_eq!(lines[2], "  2           LOAD_NAME                0 (x)");
        assert_eq!(lines[3], "              POP_JUMP_IF_FALSE        1 (to L1)");
        assert_eq!(lines[5], "      L1:     RETURN_CONST             0 (None)");
    }

    #[test]
    fn lnotab_starts() {
        let mut c = code(PythonVersion::PY39, vec![9, 0, 9, 0, 9, 0], vec![2, 1, 2, 0x7f, 0, 0x7f]);
        c.co_firstlineno = 10;
        assert_eq!(line_starts(&c).unwrap(), vec![(0, Some(10)), (2, Some(11)), (4, Some(265))]);
    }
}
