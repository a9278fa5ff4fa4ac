//! The normalized instruction stream: what "bytecode-identical" means for
//! verification. NOPs are dropped and jump targets become indexes into the stream,
//! so two code objects compare equal when they run the same operations on the same
//! operands (by value, not by table position) along the same jumps.

use depyf_bytecode::CodeObject;

use crate::{IrInstr, Op};

/// One op with operands replaced by what they name, e.g. `LoadFast("x")`,
/// `LoadConst("1")`, `JumpIf { when: false, target: 7 }` (stream index).
pub fn stream(code: &CodeObject, ir: &[IrInstr]) -> Vec<String> {
    let mut kept: Vec<&IrInstr> = ir.iter().filter(|i| !matches!(i.op, Op::Nop)).collect();
    // 3.13+ class bodies store their first line number (3.14+ with LOAD_SMALL_INT
    // below 256): line numbers don't count.
    let firstlineno = |i: &IrInstr| matches!(i.op, Op::StoreName(n) if code.co_names.get(n).is_some_and(|s| &**s == "__firstlineno__"));
    if let Some(k) = kept.iter().position(|i| firstlineno(i)) {
        if k > 0 && matches!(kept[k - 1].op, Op::LoadConst(_) | Op::LoadSmallInt(_)) {
            kept.drain(k - 1..=k);
        }
    }
    let index_of = |offset: u32| kept.iter().position(|i| i.offset >= offset).unwrap_or(kept.len());
    let local = |i: usize| code.co_localsplusnames.get(i).cloned().unwrap_or_default();
    let name = |i: usize| code.co_names.get(i).cloned().unwrap_or_default();
    let mut out: Vec<String> = kept.iter()
        .map(|ins| match &ins.op {
            Op::LoadConst(i) => match code.co_consts.get(*i) {
                // A nested code object compares by what it runs, not by its line
                // numbers, file name or docstring slot.
                Some(depyf_bytecode::Constant::Code(c)) => format!("LoadConst({})", code_summary(c)),
                Some(c) => format!("LoadConst({})", canonical_const(c)),
                None => "LoadConst(None)".into(),
            },
            Op::LoadFast(i) => format!("LoadFast({})", local(*i)),
            Op::StoreFast(i) => format!("StoreFast({})", local(*i)),
            Op::DeleteFast(i) => format!("DeleteFast({})", local(*i)),
            Op::LoadDeref(i) => format!("LoadDeref({})", local(*i)),
            Op::StoreDeref(i) => format!("StoreDeref({})", local(*i)),
            Op::DeleteDeref(i) => format!("DeleteDeref({})", local(*i)),
            Op::LoadClosure(i) => format!("LoadClosure({})", local(*i)),
            Op::LoadGlobal(i) => format!("LoadGlobal({})", name(*i)),
            Op::StoreGlobal(i) => format!("StoreGlobal({})", name(*i)),
            Op::DeleteGlobal(i) => format!("DeleteGlobal({})", name(*i)),
            Op::LoadName(i) => format!("LoadName({})", name(*i)),
            Op::StoreName(i) => format!("StoreName({})", name(*i)),
            Op::DeleteName(i) => format!("DeleteName({})", name(*i)),
            Op::LoadAttr(i) => format!("LoadAttr({})", name(*i)),
            Op::StoreAttr(i) => format!("StoreAttr({})", name(*i)),
            Op::DeleteAttr(i) => format!("DeleteAttr({})", name(*i)),
            Op::LoadMethod(i, layout) => format!("LoadMethod({}, {layout:?})", name(*i)),
            Op::Call { argc, kwnames, layout } => {
                format!("Call({argc}, {:?}, {layout:?})", kwnames.and_then(|k| code.co_consts.get(k)))
            }
            Op::ImportName(i) => format!("ImportName({})", name(*i)),
            Op::LazyImportName(i) => format!("LazyImportName({})", name(*i)),
            Op::ImportFrom(i) => format!("ImportFrom({})", name(*i)),
            Op::ForIter(t) => format!("ForIter({})", index_of(*t)),
            Op::JumpIfOrPop { when, target } => format!("JumpIfOrPop({when}, {})", index_of(*target)),
            Op::Jump(t) => format!("Jump({})", index_of(*t)),
            Op::JumpIf { when, target } => format!("JumpIf({when}, {})", index_of(*target)),
            Op::JumpIfNone { when, target } => format!("JumpIfNone({when}, {})", index_of(*target)),
            other => format!("{other:?}"),
        })
        .collect();
    // The protected ranges, in stream indexes (3.11+ exception table).
    match crate::protected_ranges(code) {
        Ok(ranges) => out.extend(ranges.iter().map(|r| {
            format!("Protect({}..{} -> {}, depth {}, lasti {})", index_of(r.start), index_of(r.end), index_of(r.target), r.depth, r.lasti)
        })),
        Err(e) => out.push(format!("bad exception table: {}", e.message)),
    }
    out
}

/// A constant as text, with the items of a `frozenset` sorted: two equal frozensets
/// built in another order (a set display compiled again) iterate differently.
fn canonical_const(c: &depyf_bytecode::Constant) -> String {
    use depyf_bytecode::Constant;
    match c {
        Constant::FrozenSet(items) => {
            let mut parts: Vec<String> = items.iter().map(canonical_const).collect();
            parts.sort();
            format!("FrozenSet([{}])", parts.join(", "))
        }
        Constant::Tuple(items) => format!("Tuple([{}])", items.iter().map(canonical_const).collect::<Vec<_>>().join(", ")),
        c => format!("{c:?}"),
    }
}

/// `CO_FUTURE_*` flags (`Include/cpython/code.h`, 3.8-3.15): they record which
/// `from __future__` imports the enclosing module had, not what the code runs (with
/// `annotations`, the annotations the ops load are strings either way).
const FUTURE_FLAGS: u32 = 0x01fe_0000;

/// A nested code object as verification sees it: its name, signature, flags, local
/// names and normalized stream (or the normalization error).
fn code_summary(c: &CodeObject) -> String {
    let body = match crate::normalize(c) {
        Ok(ir) => stream(c, &ir).join("; "),
        Err(e) => format!("unnormalized: {}", e.message),
    };
    format!(
        "code {} args {}/{}/{} flags {:#x} locals {:?} [{body}]",
        c.co_name, c.co_argcount, c.co_posonlyargcount, c.co_kwonlyargcount, c.co_flags & !FUTURE_FLAGS, c.co_localsplusnames
    )
}
