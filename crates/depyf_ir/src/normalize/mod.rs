//! Normalizers: one module per CPython version turns decoded [`Instruction`]s into
//! [`Op`]s. The dispatch below is the only place that chooses by version.
//!
//! Versions share code where they agree: `common` holds the state of one code object
//! and the opcodes that mean the same in every version, `pre311` what 3.8-3.10 share,
//! `post311` what 3.12+ share (with a per-version `Family` of facts). Every opcode
//! without a normalized form fails with `"not supported by the decompiler yet"`;
//! none is dropped.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;

use depyf_bytecode::{Opname, decode, BytecodeError, CodeObject, Instruction, PythonVersion};

use crate::Op;

mod common;
mod post311;
mod post311_async;
mod post311_exc;
mod post311_star;
mod post314;
mod pre311;
mod pre311_gen;
mod pre311_exc;
mod py310;
mod py311;
mod py312;
mod py313;
mod py314;
mod py315;
mod py38;
mod py39;

/// One normalized instruction. Several may share an `offset` when one CPython
/// instruction becomes several ops (3.11 `LOAD_GLOBAL` with its NULL bit is
/// `PushNull` + `LoadGlobal`); a jump to that offset lands on the first of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrInstr {
    /// Byte offset of the CPython instruction it comes from, the key of jump targets.
    /// 3.8 code whose `finally` bodies with branches are copied takes offsets of its
    /// own (see `pre311_exc::copy_offsets`): every op's offset is scaled and each
    /// copy's ops lie between two scaled offsets, so that each copy has targets of its
    /// own; [`IrInstr::at`] keeps the byte offset.
    pub offset: u32,
    /// Byte offset in `co_code` of the CPython instruction it comes from, for error
    /// messages: `offset` but in 3.8 code with copied `finally` bodies.
    pub at: u32,
    /// The operation.
    pub op: Op,
    /// Source line of that instruction, if any.
    pub line: Option<u32>,
    /// CPython's opname of that instruction (for error messages).
    pub opname: &'static str,
}

/// Why a code object could not be normalized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrError {
    /// `co_qualname` of the code object.
    pub code_name: String,
    /// Byte offset of the instruction at fault.
    pub offset: u32,
    /// Its opname (empty for errors of the bytecode layer without one).
    pub opname: String,
    /// The CPython version of the bytecode.
    pub version: PythonVersion,
    /// What is wrong, e.g. `"not supported by the decompiler yet"`.
    pub message: String,
}

impl fmt::Display for IrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.opname.is_empty() {
            write!(f, "{} (in {} at offset {}, CPython {})", self.message, self.code_name, self.offset, self.version)
        } else {
            write!(
                f,
                "{}: {} (in {} at offset {}, CPython {})",
                self.opname, self.message, self.code_name, self.offset, self.version
            )
        }
    }
}

impl std::error::Error for IrError {}

impl IrError {
    /// An error about instruction `ins` of `code`.
    pub fn at(code: &CodeObject, ins: &Instruction, message: impl Into<String>) -> Self {
        IrError {
            code_name: code.co_qualname.clone(),
            offset: ins.offset,
            opname: ins.opname.to_string(),
            version: code.version,
            message: message.into(),
        }
    }

    /// An error of the bytecode layer.
    pub fn from_bytecode(code: &CodeObject, e: BytecodeError) -> Self {
        IrError {
            code_name: code.co_qualname.clone(),
            offset: e.offset as u32,
            opname: String::new(),
            version: code.version,
            // The kind alone: this error names the code object and offset itself.
            message: e.kind.to_string(),
        }
    }
}

/// Decodes and normalizes `code`. Errors name the instruction (opname, byte offset)
/// that has no normalized form in this version yet, or the bytecode error.
pub fn normalize(code: &CodeObject) -> Result<Vec<IrInstr>, IrError> {
    let ins = decode(code).map_err(|e| IrError::from_bytecode(code, e))?;
    normalize_decoded(code, &ins)
}

/// [`normalize`] and [`protected_ranges`] together, decoding `code` once. Errors of
/// normalization come first, as when the two are called one after the other.
pub fn normalize_with_ranges(code: &CodeObject) -> Result<(Vec<IrInstr>, Vec<depyf_bytecode::ExceptionTableEntry>), IrError> {
    let ins = decode(code).map_err(|e| IrError::from_bytecode(code, e))?;
    normalize_decoded_with_ranges(code, &ins)
}

/// [`normalize_with_ranges`] of `code` whose instructions the caller has decoded
/// already (`ins`, `depyf_bytecode::decode(code)`), for a caller that reads them too.
/// Errors as [`normalize_with_ranges`], but those of decoding.
pub fn normalize_decoded_with_ranges(code: &CodeObject, ins: &[Instruction]) -> Result<(Vec<IrInstr>, Vec<depyf_bytecode::ExceptionTableEntry>), IrError> {
    // 3.14+: the ops and the handlers' hidden slots come from one run.
    // 3.8-3.10: the block-stack facts serve both the ops and the ranges (one walk).
    let mut facts = None;
    // 3.10: the ranges of the ops as normalized, when worked out on the way (valid
    // while the rewrites below change no op).
    let mut known = None;
    let ((mut ir, _), fix) = match (code.version.major, code.version.minor) {
        (3, 14) => py314::normalize_with_hidden_slots(code, ins)?,
        (3, 15) => py315::normalize_with_hidden_slots(code, ins)?,
        (3, m @ 8..=10) => {
            let f = facts.insert(pre311_exc::Facts::scan(code, ins)?);
            let r = match m {
                8 => py38::with_facts(code, ins, false, f)?,
                9 => py39::with_facts(code, ins, false, f)?,
                _ => {
                    let (r, ranges) = py310::with_facts_and_ranges(code, ins, false, f)?;
                    known = ranges;
                    r
                }
            };
            (r, HashMap::default())
        }
        _ => (dispatch_version(code, ins, false)?, HashMap::default()),
    };
    let unthreaded = unthread(code, &mut ir);
    let fused = fuse_jump_or_pop(&mut ir);
    let ranges = match (&facts, known) {
        (Some(_), Some(r)) if !unthreaded && !fused => r,
        (Some(f), _) => pre311_exc::protected_ranges_with(code, ins, &ir, f)?,
        (None, _) => protected_ranges_in(code, Some((ins, &ir)), Some(&fix))?,
    };
    Ok((ir, ranges))
}

fn normalize_decoded(code: &CodeObject, ins: &[Instruction]) -> Result<Vec<IrInstr>, IrError> {
    let (mut ir, _) = dispatch_version(code, ins, false)?;
    unthread(code, &mut ir);
    fuse_jump_or_pop(&mut ir);
    Ok(ir)
}

/// Like [`normalize`] (without its peephole fusions, so that every op still stands
/// for one instruction), but goes on past instructions without a normalized form: they
/// emit nothing and their errors are returned beside the ops (for coverage reports;
/// the ops are not a usable stream when errors are returned). Errors that concern the
/// whole code object (decoding, a `FOR_ITER` without its `END_FOR`) still fail it.
/// 3.11 is normalized strictly: its first error fails the code object.
pub fn normalize_all(code: &CodeObject) -> Result<(Vec<IrInstr>, Vec<IrError>), IrError> {
    dispatch(code, true)
}

fn dispatch(code: &CodeObject, lenient: bool) -> Result<(Vec<IrInstr>, Vec<IrError>), IrError> {
    let ins = decode(code).map_err(|e| IrError::from_bytecode(code, e))?;
    dispatch_version(code, &ins, lenient)
}

/// Undoes the jump threading that compilers do inside boolean value chains
/// (`a and b or c`), so that every version reads the chain as one shape: 3.8-3.11
/// through [`unthread_pop_jumps`], 3.14+ through `post314::unthread_bool_jumps`
/// (3.12 and 3.13 do not thread these jumps).
/// Returns whether some op changed (3.8-3.11; `true` for 3.14+, not tracked).
fn unthread(code: &CodeObject, ir: &mut [IrInstr]) -> bool {
    match (code.version.major, code.version.minor) {
        (3, 8..=11) => unthread_pop_jumps(ir),
        (3, 14..) => {
            post314::unthread_bool_jumps(ir);
            true
        }
        _ => false,
    }
}

/// The index of the first op at each IR offset of `ir` (a jump target names the offset
/// of an instruction; ops that one instruction became share its offset).
pub(super) fn first_op_at_offset(ir: &[IrInstr]) -> HashMap<u32, usize> {
    let mut at = HashMap::with_capacity_and_hasher(ir.len(), Default::default());
    for (k, i) in ir.iter().enumerate() {
        at.entry(i.offset).or_insert(k);
    }
    at
}

/// The index of the last op before index `k` of `ir` that is not an [`Op::Nop`].
pub(super) fn prev_real(ir: &[IrInstr], k: usize) -> Option<usize> {
    (0..k).rev().find(|&x| ir[x].op != Op::Nop)
}

/// 3.8-3.11: a `JUMP_IF_FALSE_OR_POP` whose target is a `JUMP_IF_TRUE_OR_POP` (or
/// the reverse) becomes a `POP_JUMP_IF_FALSE` to the instruction after that target
/// (CPython 3.8/3.9 `Python/peephole.c`, `PyCode_Optimize`; 3.10/3.11
/// `Python/compile.c`, `optimize_basic_block`): the kept value would fall through
/// the second test and be popped. Such a `POP_JUMP_IF_X L` where the op before `L`
/// is a fall-through [`Op::JumpIfOrPop`] of the other sense is made back into an
/// [`Op::JumpIfOrPop`] of sense X targeting that op, as in `(a and b) or c` before
/// the optimization. Only jump targets and the value kept on the jump edge change:
/// the value arriving at the second test falls through it, popped, to `L`.
/// Returns whether some op changed.
fn unthread_pop_jumps(ir: &mut [IrInstr]) -> bool {
    let mut changed = false;
    if !ir.iter().any(|i| matches!(i.op, Op::JumpIfOrPop { .. })) {
        return changed;
    }
    let at = first_op_at_offset(ir);
    for j in 0..ir.len() {
        let Op::JumpIf { when, target } = ir[j].op else { continue };
        let Some(&k) = at.get(&target) else { continue };
        let Some(j2) = prev_real(ir, k) else { continue };
        if j2 != j && matches!(ir[j2].op, Op::JumpIfOrPop { when: w2, .. } if w2 != when) {
            ir[j].op = Op::JumpIfOrPop { when, target: ir[j2].offset };
            changed = true;
        }
    }
    changed
}

/// `COPY 1; POP_JUMP_IF_X L; POP_TOP` keeps the tested value on the jump edge only:
/// that is [`Op::JumpIfOrPop`], which CPython 3.12+ no longer has as one
/// instruction (`a and b`, `a or b`, chained comparisons). Rewritten when nothing
/// else jumps to the `POP_TOP`. Returns whether some op changed.
fn fuse_jump_or_pop(ir: &mut [IrInstr]) -> bool {
    let mut changed = false;
    // The jump targets, sorted, made when a first candidate needs them (most code has
    // none). The rewrites keep every target: `JumpIfOrPop` jumps where the `JumpIf` did.
    let mut targets: Option<Vec<u32>> = None;
    let next_real = |ir: &[IrInstr], from: usize| (from..ir.len()).find(|&k| !matches!(ir[k].op, Op::Nop));
    let mut i = 0;
    while i < ir.len() {
        if matches!(ir[i].op, Op::Copy(1)) {
            if let Some(j) = next_real(ir, i + 1) {
                if let Op::JumpIf { when, target } = ir[j].op {
                    if let Some(k) = next_real(ir, j + 1) {
                        let targets = targets.get_or_insert_with(|| {
                            let mut t: Vec<u32> = ir.iter().filter_map(|x| x.op.jump_target()).collect();
                            t.sort_unstable();
                            t
                        });
                        let lands_between = ir[j + 1..=k].iter().any(|x| targets.binary_search(&x.offset).is_ok()) && ir[k].offset != ir[j].offset;
                        if matches!(ir[k].op, Op::PopTop) && !lands_between {
                            ir[i].op = Op::Nop;
                            ir[j].op = Op::JumpIfOrPop { when, target };
                            ir[k].op = Op::Nop;
                            changed = true;
                            i = k;
                        }
                    }
                }
            }
        }
        i += 1;
    }
    changed
}

fn dispatch_version(code: &CodeObject, ins: &[depyf_bytecode::Instruction], lenient: bool) -> Result<(Vec<IrInstr>, Vec<IrError>), IrError> {
    match (code.version.major, code.version.minor) {
        (3, 8) => py38::normalize(code, ins, lenient),
        (3, 9) => py39::normalize(code, ins, lenient),
        (3, 10) => py310::normalize(code, ins, lenient),
        (3, 11) => py311::normalize(code, ins).map(|ir| (ir, Vec::new())),
        (3, 12) => py312::normalize(code, ins, lenient),
        (3, 13) => py313::normalize(code, ins, lenient),
        (3, 14) => py314::normalize(code, ins, lenient),
        (3, 15) => py315::normalize(code, ins, lenient),
        _ => Err(IrError {
            code_name: code.co_qualname.clone(),
            offset: 0,
            opname: String::new(),
            version: code.version,
            message: format!("the decompiler does not handle CPython {} bytecode yet", code.version),
        }),
    }
}

/// The protected ranges of `code`, in the shape of the 3.11+ exception table
/// (half-open byte ranges, handler offset, stack depth kept, whether `lasti` is
/// pushed). For 3.8-3.10 they are derived from the block stack
/// (`SETUP_FINALLY`, `SETUP_WITH`, `POP_BLOCK`, `POP_EXCEPT`; see `pre311_exc`), with
/// depths in IR values and `lasti` false; this needs the code object to normalize
/// (its error otherwise).
///
/// From 3.14 on the depths leave out the hidden slots (see `post314`), like the ops;
/// from 3.12 on two ranges that only instructions that cannot raise (`NOT_TAKEN`, the
/// jumps of a loop's test) separate are one ([`join_over_not_taken`]); on 3.14 a range
/// takes in the test and jumps of a loop that ends it ([`extend_over_loop_test`]); from
/// 3.15 on a range takes in the `return <constant>` that follows it
/// ([`extend_over_constant_returns`]).
///
/// From 3.12 on, the handlers the compiler adds on its own (a generator's
/// `StopIteration` guard, the `CLEANUP_THROW` of `yield from`/`await`, the handler of
/// an inlined comprehension that restores its hidden locals; see `post311_exc`), and
/// from 3.11 the `END_ASYNC_FOR` that ends an `async for` (`post311_async`), have
/// no source: an exception in their ranges goes on to wherever an exception in the
/// handler itself goes, so each such range takes the handler's own range (its
/// handler, depth and `lasti`), or is left out when the handler is unprotected.
pub fn protected_ranges(code: &CodeObject) -> Result<Vec<depyf_bytecode::ExceptionTableEntry>, IrError> {
    protected_ranges_in(code, None, None)
}

/// Whether [`protected_ranges`] of `code` gives any range, without working out what
/// only the depths need (3.14+: the hidden slots under each handler, which take a
/// normalization of their own; they lower depths and never drop a range). Errors as
/// [`protected_ranges`], but those of that normalization.
pub fn has_protected_ranges(code: &CodeObject) -> Result<bool, IrError> {
    protected_ranges_in(code, None, Some(&HashMap::default())).map(|r| !r.is_empty())
}

/// [`protected_ranges`], with the decoded instructions and the normalized ops of
/// `code`, and for 3.14+ the handlers' hidden slots, when the caller has them (else
/// they are made here when needed).
fn protected_ranges_in(
    code: &CodeObject,
    known: Option<(&[Instruction], &[IrInstr])>,
    known_fix: Option<&HashMap<u32, u32>>,
) -> Result<Vec<depyf_bytecode::ExceptionTableEntry>, IrError> {
    if code.version.major == 3 && matches!(code.version.minor, 8..=10) {
        let (owned_ins, owned_ir);
        let (ins, ir) = match known {
            Some((ins, ir)) => {
                if !pre311_exc::uses_block_stack(ins) {
                    return Ok(Vec::new());
                }
                (ins, ir)
            }
            None => {
                owned_ins = decode(code).map_err(|e| IrError::from_bytecode(code, e))?;
                if !pre311_exc::uses_block_stack(&owned_ins) {
                    return Ok(Vec::new());
                }
                owned_ir = normalize(code)?;
                (&owned_ins[..], &owned_ir[..])
            }
        };
        return pre311_exc::protected_ranges(code, ins, ir);
    }
    let mut ranges = depyf_bytecode::parse_exception_table(code).map_err(|e| IrError::from_bytecode(code, e))?;
    if !(code.version.major == 3 && code.version.minor >= 11) || ranges.is_empty() {
        return Ok(ranges);
    }
    // 3.14+: the depths count the hidden slots that normalization removes.
    if code.version.minor >= 14 {
        let owned_fix;
        let fix = match known_fix {
            Some(f) => f,
            None => {
                owned_fix = if code.version.minor == 14 { py314::handler_hidden_slots(code)? } else { py315::handler_hidden_slots(code)? };
                &owned_fix
            }
        };
        for r in &mut ranges {
            r.depth -= fix.get(&r.target).copied().unwrap_or(0);
        }
    }
    let owned;
    let ins = match known {
        Some((ins, _)) => ins,
        None => {
            owned = decode(code).map_err(|e| IrError::from_bytecode(code, e))?;
            &owned[..]
        }
    };
    extend_over_nops(ins, &mut ranges);
    extend_back_over_nops(ins, &mut ranges);
    if code.version.minor >= 12 {
        ranges = join_over_not_taken(ins, ranges);
    }
    if code.version.minor == 14 {
        extend_over_loop_test(ins, &mut ranges);
    }
    if code.version.minor >= 15 {
        extend_over_constant_returns(ins, &mut ranges);
    }
    extend_over_merged_return(ins, &mut ranges);
    // 3.11 has only the `END_ASYNC_FOR` of `async for` (see `post311_async`).
    let old = code.version.minor == 11;
    let implicit = |target: u32| {
        ins.binary_search_by_key(&target, |i| i.offset).is_ok_and(|k| {
            if old {
                ins[k].opname == "END_ASYNC_FOR"
            } else {
                post311_exc::implicit_handler(code, ins, k)
            }
        })
    };
    let mut out = Vec::with_capacity(ranges.len());
    for r in &ranges {
        let mut r = *r;
        // Implicit handlers nest a few deep at most (a comprehension's restore handler
        // inside a generator's guard); the bound keeps a hostile table from looping.
        let mut hops = 0;
        while implicit(r.target) {
            hops += 1;
            match ranges.iter().find(|o| o.start <= r.target && r.target < o.end) {
                Some(o) if hops < 8 => {
                    r.target = o.target;
                    r.depth = o.depth;
                    r.lasti = o.lasti;
                }
                _ => break,
            }
        }
        if !implicit(r.target) {
            out.push(r);
        }
    }
    Ok(out)
}

/// 3.14+ leaves `NOT_TAKEN` (a marker that cannot raise, normalized to a `Nop`) out of
/// the exception table, so a conditional jump inside a `try` body splits its range in
/// two around it. CPython 3.12-3.14 (not 3.15) also leave out the `JUMP_BACKWARD`
/// (3.12), `POP_JUMP_IF_*; JUMP_BACKWARD` (3.13) or `POP_JUMP_IF_*; NOT_TAKEN;
/// JUMP_BACKWARD` (3.14) that the flow-graph pass writes for a conditional jump back
/// to a loop header (`while c:` or `if c:` at the end of a loop body inside a
/// `with`/`try` body; `Python/flowgraph.c`, `normalize_jumps_in_block`, runs after
/// the handlers are labelled). Joins
/// consecutive ranges with the same handler, depth and `lasti` when only such
/// instructions lie between them and every jump among them lands where that handler
/// protects too (inside the joined range or another range of it: a jump that leaves
/// the body is never joined over). Recompiling the
/// decompiled loop gives the same gap again, so reading it as protected changes
/// nothing. `ins` is the decoded code, `ranges` in table order.
fn join_over_not_taken(ins: &[Instruction], ranges: Vec<depyf_bytecode::ExceptionTableEntry>) -> Vec<depyf_bytecode::ExceptionTableEntry> {
    let all = &ranges;
    let mut out: Vec<depyf_bytecode::ExceptionTableEntry> = Vec::with_capacity(ranges.len());
    for &r in &ranges {
        if let Some(last) = out.last_mut() {
            let same = last.target == r.target && last.depth == r.depth && last.lasti == r.lasti;
            let (start, end) = (last.start, r.end);
            // A jump target protected by the same handler: inside the joined range,
            // or in another range of it (a loop header before a nested `try`).
            let inside = |t: u32| (start <= t && t < end) || all.iter().any(|o| o.target == r.target && o.depth == r.depth && o.lasti == r.lasti && o.start <= t && t < o.end);
            // The instructions between the two ranges (`ins` is in offset order),
            // looked at only for ranges of one handler.
            let gap_not_taken = || {
                let gap = ins.partition_point(|i| i.offset < last.end)..ins.partition_point(|i| i.offset < r.start);
                last.end <= r.start
                    && ins[gap].iter().all(|i| {
                        matches!(i.opname, "NOT_TAKEN" | "POP_JUMP_IF_FALSE" | "POP_JUMP_IF_TRUE" | "POP_JUMP_IF_NONE" | "POP_JUMP_IF_NOT_NONE" | "JUMP_BACKWARD")
                            && i.jump_target().is_none_or(inside)
                    })
            };
            if same && gap_not_taken() {
                last.end = r.end;
                continue;
            }
        }
        out.push(r);
    }
    out
}

/// CPython 3.14 also leaves out the `POP_JUMP_IF_*; NOT_TAKEN; JUMP_BACKWARD` of a
/// test that ends a loop's body when that loop ends a `try`/`with` body (`try: while
/// True: ...; if not x: break`): the range stops after the `TO_BOOL` (normalized to a
/// `Nop`, its truth test read as part of the jump), so the test, which runs inside
/// the body (`__bool__` may raise), seemed to lie outside it and was written after
/// the `try`. Extends a range over exactly that run right after it when no other
/// range covers it and the `JUMP_BACKWARD` lands inside a range of the same handler,
/// depth and `lasti` (the loop's header in the body). Those three instructions raise
/// nothing, so protecting them changes nothing else. `ins` is the decoded code.
fn extend_over_loop_test(ins: &[Instruction], ranges: &mut [depyf_bytecode::ExceptionTableEntry]) {
    let covered = |ranges: &[depyf_bytecode::ExceptionTableEntry], off: u32| ranges.iter().any(|r| r.start <= off && off < r.end);
    for k in 0..ranges.len() {
        let Ok(j) = ins.binary_search_by_key(&ranges[k].end, |i| i.offset) else { continue };
        let [test, not_taken, back] = match ins.get(j..j + 3) {
            Some([a, b, c]) => [a, b, c],
            _ => continue,
        };
        let shape = matches!(test.opname, "POP_JUMP_IF_FALSE" | "POP_JUMP_IF_TRUE" | "POP_JUMP_IF_NONE" | "POP_JUMP_IF_NOT_NONE")
            && not_taken.opname == "NOT_TAKEN"
            && back.opname == "JUMP_BACKWARD";
        if !shape || [test, not_taken, back].iter().any(|i| covered(ranges, i.offset)) {
            continue;
        }
        let r = ranges[k];
        let Some(t) = back.jump_target() else { continue };
        if !ranges.iter().any(|o| o.target == r.target && o.depth == r.depth && o.lasti == r.lasti && o.start <= t && t < o.end) {
            continue;
        }
        let Some(next) = ins.get(j + 3) else { continue };
        ranges[k].end = next.offset;
    }
}

/// CPython 3.11+ leaves the `NOP` of a `try:` (and of a `while True:` before it) out
/// of the exception table when it is a loop header inside a `with` or `try` body
/// (`with m: ... while True: try: ...`): nothing of the enclosing statement covers
/// it, so the loop seems to start outside that body. Extends a range over a run of
/// uncovered `NOP`s right after it when the instruction after the run starts a range
/// of another handler (the nested `try`) and a later range has the first range's
/// handler, depth and `lasti` (the enclosing body goes on past the run). A `NOP`
/// cannot raise, so protecting it changes nothing. `ins` is the decoded code,
/// `ranges` in table order (by start).
fn extend_over_nops(ins: &[Instruction], ranges: &mut [depyf_bytecode::ExceptionTableEntry]) {
    let covered = |ranges: &[depyf_bytecode::ExceptionTableEntry], off: u32| ranges.iter().any(|r| r.start <= off && off < r.end);
    for k in 0..ranges.len() {
        let Ok(mut j) = ins.binary_search_by_key(&ranges[k].end, |i| i.offset) else { continue };
        let first = j;
        while j < ins.len() && ins[j].opname == "NOP" && !covered(ranges, ins[j].offset) {
            j += 1;
        }
        if j == first || j >= ins.len() {
            continue;
        }
        let r = ranges[k];
        let at = ins[j].offset;
        let nested = ranges.iter().any(|o| o.start == at && o.target != r.target);
        // The handler code of a statement nested in the body before the run
        // (CPython 3.12+ lays it out after all other code) is no continuation of
        // the body, though the body's handler protects it too (the `POP_EXCEPT`
        // of a nested `with` or `except` clause): `try: with m: ... except E:
        // ...` then `while True: try: ...` has the loop after the `try`.
        let began = ranges.iter().filter(|o| o.target == r.target).map(|o| o.start).min().unwrap_or(r.start);
        let handler_code = |off: u32| ranges.iter().any(|q| q.target != r.target && began <= q.start && q.end <= r.end && at < q.target && q.target <= off);
        let goes_on = ranges.iter().any(|o| o.start > at && o.target == r.target && o.depth == r.depth && o.lasti == r.lasti && !handler_code(o.start));
        if nested && goes_on {
            ranges[k].end = at;
        }
    }
}

/// CPython 3.12+ also leaves out the `NOP` that ends a nested `with`/`try` body
/// after a loop (`try: with m: for x in y: ... <NOP> ...`: the `with` line marker
/// after `END_FOR`), so the enclosing body seems to end there and the nested
/// statement's normal exit seems to lie outside it. Extends a range back over a
/// run of uncovered `NOP`s right before it when the instruction before the run is
/// covered by a range of another handler (the nested body that just ended), an
/// earlier range ends before the run with the first range's handler, depth and
/// `lasti` (the enclosing body began before it) and no jump lands in the run (it
/// is reached from the nested body only). A `NOP` cannot raise, so protecting it
/// changes nothing. `ins` is the decoded code, `ranges` in table order (by start).
fn extend_back_over_nops(ins: &[Instruction], ranges: &mut [depyf_bytecode::ExceptionTableEntry]) {
    // The jump targets, made at the first uncovered `NOP` before a range (most code
    // has none).
    let mut targets: Option<rustc_hash::FxHashSet<u32>> = None;
    let covered = |ranges: &[depyf_bytecode::ExceptionTableEntry], off: u32| ranges.iter().any(|r| r.start <= off && off < r.end);
    for k in 0..ranges.len() {
        let Ok(end) = ins.binary_search_by_key(&ranges[k].start, |i| i.offset) else { continue };
        let mut j = end;
        while j > 0
            && ins[j - 1].opname == "NOP"
            && !covered(ranges, ins[j - 1].offset)
            && !targets.get_or_insert_with(|| ins.iter().filter_map(Instruction::jump_target).collect()).contains(&ins[j - 1].offset)
        {
            j -= 1;
        }
        if j == end || j == 0 {
            continue;
        }
        let r = ranges[k];
        let (before, at) = (ins[j - 1].offset, ins[j].offset);
        let nested_before = ranges.iter().any(|o| o.start <= before && before < o.end && o.target != r.target);
        let began_before = ranges.iter().any(|o| o.end <= at && o.target == r.target && o.depth == r.depth && o.lasti == r.lasti);
        if nested_before && began_before {
            ranges[k].start = at;
        }
    }
}

/// 3.15 leaves a `return <constant>` at the end of a `try` body (`LOAD_COMMON_CONSTANT`
/// or `LOAD_SMALL_INT`, `RETURN_VALUE`: nothing there can raise) out of the range, so
/// the body seems to leave it twice. Extends a range over such a run right after it
/// when the range is a `try` body's (its handler starts with `PUSH_EXC_INFO`), no jump
/// lands inside the run and no other range covers it: protecting
/// instructions that cannot raise changes nothing. `ins` is the decoded code.
fn extend_over_constant_returns(ins: &[Instruction], ranges: &mut [depyf_bytecode::ExceptionTableEntry]) {
    // The jump targets, made at the first run found (most ranges are followed by none).
    let mut targets: Option<rustc_hash::FxHashSet<u32>> = None;
    let covered = |ranges: &[depyf_bytecode::ExceptionTableEntry], off: u32| ranges.iter().any(|r| r.start <= off && off < r.end);
    let at = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    for k in 0..ranges.len() {
        // Only a `try` body's own range (its handler starts with PUSH_EXC_INFO).
        if at(ranges[k].target).map(|t| ins[t].opname) != Some("PUSH_EXC_INFO") {
            continue;
        }
        let Some(mut j) = at(ranges[k].end) else { continue };
        let start = j;
        while j < ins.len() && matches!(ins[j].id, Opname::LOAD_CONST | Opname::LOAD_COMMON_CONSTANT | Opname::LOAD_SMALL_INT | Opname::NOP | Opname::NOT_TAKEN) {
            j += 1;
        }
        if j == start || j >= ins.len() || ins[j].opname != "RETURN_VALUE" {
            continue;
        }
        let run = &ins[start..=j];
        let targets = targets.get_or_insert_with(|| ins.iter().filter_map(Instruction::jump_target).collect());
        if run.iter().any(|i| targets.contains(&i.offset) || covered(ranges, i.offset)) {
            continue;
        }
        ranges[k].end = ins[j].end_offset();
    }
}

/// 3.11+ leaves the join of `return a or b` (`and`, `x if c else y`) at the end of a
/// `try` body out of the body's range: the `RETURN_VALUE` where the branches of the
/// value meet, or inside a `for` loop the `SWAP 2; POP_TOP` that drops the iterator
/// before it, inside a `with` the `NOP` before the call of `__exit__`. The value is
/// computed under the handlers; those instructions cannot raise. Read as it is, the
/// folded `return a or b` lands after the `try` and runs outside its handlers. The
/// same holds for a statement's end there (an `if` at the end of a `try`/`finally`
/// body joins at its `NOP`), read as code after the body whose normal exit then
/// seems to skip the `finally`.
///
/// Extends a `try` body's range (its handler starts with `PUSH_EXC_INFO`) whose last
/// instruction falls into a run of such instructions (`NOP`, `NOT_TAKEN`, `SWAP`,
/// `POP_TOP`), every jump into the run coming from inside the range and no other range
/// covering it: up to the run's last jump target, or on to the `RETURN_VALUE` that ends
/// the run. Protecting an instruction that cannot raise changes nothing. `ins` is the
/// decoded code. (3.8-3.10: `pre311_exc::extend_over_popped_return`.)
fn extend_over_merged_return(ins: &[Instruction], ranges: &mut [depyf_bytecode::ExceptionTableEntry]) {
    let at = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    for k in 0..ranges.len() {
        let r = ranges[k];
        if at(r.target).map(|t| ins[t].opname) != Some("PUSH_EXC_INFO") {
            continue;
        }
        // Statement ends join here too (the end of an `if` that ends the body): the run
        // has no `POP_BLOCK` that would read as the end of the body (3.8-3.10).
        let Some(end) = merged_end(ins, r.start..r.end, &["NOP", "NOT_TAKEN", "SWAP", "POP_TOP"], false) else { continue };
        if ranges.iter().any(|o| o.start < end && r.end < o.end && o.start != r.start) {
            continue;
        }
        ranges[k].end = end;
    }
}

/// Where the protected range `range` of a `try` body should end to take in the join of
/// a returned value: `range`'s last instruction falls into a run of instructions named
/// in `inert` (ones that cannot raise), every jump into the run comes from inside
/// `range` and (with `value`) one brings a value there ([`join_in`]). The end is that of
/// the run's `RETURN_VALUE` when the run reaches one, else of its last jump target.
/// `None` when `range` ends otherwise. `ins` is the decoded code; the callers
/// (`extend_over_merged_return`, 3.11+, and `pre311_exc::extend_over_popped_return`)
/// give their version's `inert` instructions and say which handlers qualify.
fn merged_end(ins: &[Instruction], range: std::ops::Range<u32>, inert: &[&str], value: bool) -> Option<u32> {
    let at = |off: u32| ins.binary_search_by_key(&off, |i| i.offset).ok();
    let j = at(range.end).filter(|&j| j > 0 && range.contains(&ins[j - 1].offset))?;
    // The last instruction of the range goes on into the run.
    let last = &ins[j - 1];
    if matches!(last.opname, "RETURN_VALUE" | "RETURN_CONST" | "RAISE_VARARGS" | "RERAISE") || last.jump_target().is_some() && last.opname.starts_with("JUMP") && !last.opname.contains("_IF_") {
        return None;
    }
    let mut e = j;
    while e < ins.len() && inert.contains(&ins[e].opname) {
        e += 1;
    }
    let returns = e < ins.len() && ins[e].opname == "RETURN_VALUE";
    let run_end = if returns { ins[e].end_offset() } else { ins.get(e).map_or(u32::MAX, |i| i.offset) };
    let joined = join_in(ins, range, ins[j].offset..run_end, value)?;
    Some(if returns { run_end } else { at(joined).map_or(run_end, |t| ins[t].end_offset()) })
}

/// The last offset in `run` that a jump goes to, when every jump into `run` comes from
/// inside `range` and, with `value`, one of them brings a value there: the branches of `a or b` (`and`;
/// `JUMP_IF_*_OR_POP` before 3.12, `COPY 1` before a conditional jump after) or the first
/// branch of `x if c else y` (an unconditional jump after an instruction that leaves a
/// value). `None` otherwise: a jump to the end of a statement (a `with` suppressing an
/// exception, the end of an `if` body) joins no value. `ins` is the decoded code, 3.8+.
fn join_in(ins: &[Instruction], range: std::ops::Range<u32>, run: std::ops::Range<u32>, value: bool) -> Option<u32> {
    let mut joined = None;
    let mut carried = !value;
    for (k, i) in ins.iter().enumerate() {
        let Some(t) = i.jump_target().filter(|t| run.contains(t)) else { continue };
        if !range.contains(&i.offset) {
            return None;
        }
        joined = joined.max(Some(t));
        // The instruction before the jump, past 3.14's `TO_BOOL`.
        let before = ins[..k].iter().rev().find(|p| p.id != Opname::TO_BOOL).map(|p| p.opname);
        carried |= match i.opname {
            "JUMP_IF_TRUE_OR_POP" | "JUMP_IF_FALSE_OR_POP" => true,
            o if o.starts_with("POP_JUMP_") => before == Some("COPY"),
            "JUMP_FORWARD" | "JUMP_ABSOLUTE" | "JUMP" | "JUMP_NO_INTERRUPT" => before.is_some_and(leaves_value),
            _ => false,
        };
    }
    joined.filter(|_| carried)
}

/// Whether the instruction `opname`, before an unconditional jump, leaves the value of
/// an expression on the stack: a load, a call, an operator or a build, not the end of
/// a statement (stores, pops, deletions, block and handler exits).
fn leaves_value(opname: &str) -> bool {
    ["LOAD_", "CALL", "BINARY_", "UNARY_", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "BUILD_", "FORMAT_", "CONVERT_VALUE", "LIST_TO_TUPLE", "GET_AWAITABLE", "YIELD_VALUE", "COPY", "DUP_TOP", "TO_BOOL"]
        .iter()
        .any(|p| opname.starts_with(p))
}

#[cfg(test)]
mod tests {
    use depyf_bytecode::{Argval, ExceptionTableEntry, Instruction};

    use super::{extend_back_over_nops, extend_over_constant_returns, extend_over_loop_test, extend_over_merged_return, extend_over_nops, fuse_jump_or_pop, join_over_not_taken, post314, unthread_pop_jumps, IrInstr};
    use crate::Op;

    /// Ops at offsets 0, 2, 4, ...
    fn ir(ops: &[Op]) -> Vec<IrInstr> {
        ops.iter().enumerate().map(|(k, op)| IrInstr { offset: 2 * k as u32, at: 2 * k as u32, op: op.clone(), line: None, opname: "" }).collect()
    }

    #[test]
    fn threaded_and_before_or_jumps_to_the_or_test_again_pre311() {
        // `a and b or c` (3.8-3.11): LOAD a; POP_JUMP_IF_FALSE 8; LOAD b;
        // JUMP_IF_TRUE_OR_POP 10; 8: LOAD c; 10: RETURN
        let mut v = ir(&[Op::LoadGlobal(0), Op::JumpIf { when: false, target: 8 }, Op::LoadGlobal(1), Op::JumpIfOrPop { when: true, target: 10 }, Op::LoadGlobal(2), Op::Return]);
        unthread_pop_jumps(&mut v);
        assert_eq!(v[1].op, Op::JumpIfOrPop { when: false, target: 6 });
        // A jump of the same sense as the test before its target is left alone.
        let mut w = ir(&[Op::LoadGlobal(0), Op::JumpIf { when: true, target: 8 }, Op::LoadGlobal(1), Op::JumpIfOrPop { when: true, target: 10 }, Op::LoadGlobal(2), Op::Return]);
        unthread_pop_jumps(&mut w);
        assert_eq!(w[1].op, Op::JumpIf { when: true, target: 8 });
    }

    #[test]
    fn threaded_and_before_or_jumps_to_the_or_test_again_314() {
        // `a and b or c` (3.14): a; COPY 1; POP_JUMP_IF_FALSE L; POP_TOP; b; COPY 1;
        // POP_JUMP_IF_TRUE M; L: POP_TOP; c; M: RETURN
        let mut v = ir(&[
            Op::LoadGlobal(0),
            Op::Copy(1),
            Op::JumpIf { when: false, target: 14 },
            Op::PopTop,
            Op::LoadGlobal(1),
            Op::Copy(1),
            Op::JumpIf { when: true, target: 18 },
            Op::PopTop,
            Op::LoadGlobal(2),
            Op::Return,
        ]);
        post314::unthread_bool_jumps(&mut v);
        assert_eq!(v[2].op, Op::JumpIf { when: false, target: 10 });
        fuse_jump_or_pop(&mut v);
        assert_eq!(v[2].op, Op::JumpIfOrPop { when: false, target: 10 });
        assert_eq!(v[6].op, Op::JumpIfOrPop { when: true, target: 18 });
        assert_eq!([v[3].op.clone(), v[5].op.clone(), v[7].op.clone()], [Op::Nop, Op::Nop, Op::Nop]);
    }

    /// Instructions at offsets 0, 2, 4, ... without caches, `JUMP_FORWARD` to `t`
    /// written `("JUMP_FORWARD", Some(t))`.
    fn code(ops: &[(&'static str, Option<u32>)]) -> Vec<Instruction> {
        ops.iter()
            .enumerate()
            .map(|(k, &(opname, t))| Instruction {
                offset: 2 * k as u32,
                start_offset: 2 * k as u32,
                opcode: 0,
                opname,
                id: depyf_bytecode::opcodes::Opname::from_name(opname).expect("an opname"),
                oparg: t,
                argval: t.map_or(Argval::Plain, Argval::Jump),
                cache_units: 0,
                line_number: None,
                starts_line: false,
            })
            .collect()
    }

    fn range(start: u32, end: u32, target: u32) -> ExceptionTableEntry {
        ExceptionTableEntry { start, end, target, depth: 0, lasti: false }
    }

    #[test]
    fn range_takes_in_the_test_of_a_loop_that_ends_it_314() {
        // `try: while True: x = f(); if not x: break` (3.14): 0 NOP; 2 CALL;
        // 4 STORE_FAST; 6 LOAD_FAST; 8 TO_BOOL; 10 POP_JUMP_IF_FALSE 16;
        // 12 NOT_TAKEN; 14 JUMP_BACKWARD 0; 16 NOP (`break`). The table stops at 10.
        let ins = code(&[
            ("NOP", None),
            ("CALL", None),
            ("STORE_FAST", None),
            ("LOAD_FAST", None),
            ("TO_BOOL", None),
            ("POP_JUMP_IF_FALSE", Some(16)),
            ("NOT_TAKEN", None),
            ("JUMP_BACKWARD", Some(0)),
            ("NOP", None),
        ]);
        let mut ranges = vec![range(0, 10, 30)];
        extend_over_loop_test(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(0, 16, 30)]);
        // A loop whose header this range does not protect: left alone.
        let mut ranges = vec![range(2, 10, 30)];
        extend_over_loop_test(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(2, 10, 30)]);
        // The run covered by another range already: left alone.
        let mut ranges = vec![range(0, 10, 30), range(10, 16, 40)];
        extend_over_loop_test(&ins, &mut ranges);
        assert_eq!(ranges[0], range(0, 10, 30));
    }

    #[test]
    fn range_takes_in_the_join_of_a_returned_or_in_a_loop_and_a_with_312() {
        // `for i in a: try: return i or b` (3.12): 0 LOAD_FAST; 2 COPY 1;
        // 4 POP_JUMP_IF_TRUE 10; 6 POP_TOP; 8 LOAD_FAST; 10 SWAP 2; 12 POP_TOP;
        // 14 RETURN_VALUE; 16 PUSH_EXC_INFO. The table stops at the join, 10.
        let mut ins = code(&[
            ("LOAD_FAST", None),
            ("COPY", None),
            ("POP_JUMP_IF_TRUE", Some(10)),
            ("POP_TOP", None),
            ("LOAD_FAST", None),
            ("SWAP", None),
            ("POP_TOP", None),
            ("RETURN_VALUE", None),
            ("PUSH_EXC_INFO", None),
        ]);
        let mut ranges = vec![range(0, 10, 16)];
        extend_over_merged_return(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(0, 16, 16)], "on to the return");
        // In a `with` (the call of `__exit__` after the join, at 12): up to the join.
        ins[5] = code(&[("NOP", None)])[0].clone();
        ins[5].offset = 10;
        ins[6] = code(&[("LOAD_CONST", None)])[0].clone();
        ins[6].offset = 12;
        let mut ranges = vec![range(0, 10, 16)];
        extend_over_merged_return(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(0, 12, 16)], "over the join only");
        // A jump into the run from outside the range: left alone.
        ins[2] = code(&[("POP_JUMP_IF_TRUE", Some(10))])[0].clone();
        ins[2].offset = 4;
        let mut ranges = vec![range(0, 4, 16), range(6, 10, 16)];
        extend_over_merged_return(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(0, 4, 16), range(6, 10, 16)], "left alone");
    }

    #[test]
    fn ranges_split_by_not_taken_are_joined() {
        let ins = code(&[("LOAD_FAST", None), ("POP_JUMP_IF_TRUE", Some(8)), ("NOT_TAKEN", None), ("CALL", None), ("STORE_FAST", None)]);
        let joined = join_over_not_taken(&ins, vec![range(0, 4, 20), range(6, 10, 20)]);
        assert_eq!(joined, vec![range(0, 10, 20)]);
        // Another handler, or a gap with an instruction that can raise: kept apart.
        assert_eq!(join_over_not_taken(&ins, vec![range(0, 4, 20), range(6, 10, 22)]).len(), 2);
        assert_eq!(join_over_not_taken(&ins, vec![range(0, 6, 20), range(8, 10, 20)]).len(), 2);
    }

    #[test]
    fn ranges_split_by_a_backward_conditional_jump_are_joined_314() {
        // `with m: for x in s: while x: f()` (3.14): 0 FOR_ITER 14; 2 LOAD_FAST;
        // 4 POP_JUMP_IF_TRUE 10; 6 NOT_TAKEN; 8 JUMP_BACKWARD 0; 10 CALL;
        // 12 JUMP_BACKWARD 2; 14 END_FOR. The table leaves 4..10 out.
        let ins = code(&[
            ("FOR_ITER", Some(14)),
            ("LOAD_FAST", None),
            ("POP_JUMP_IF_TRUE", Some(10)),
            ("NOT_TAKEN", None),
            ("JUMP_BACKWARD", Some(0)),
            ("CALL", None),
            ("JUMP_BACKWARD", Some(2)),
            ("END_FOR", None),
        ]);
        assert_eq!(join_over_not_taken(&ins, vec![range(0, 4, 20), range(10, 16, 20)]), vec![range(0, 16, 20)]);
        // A jump in the gap that leaves the joined range: kept apart.
        assert_eq!(join_over_not_taken(&ins, vec![range(2, 4, 20), range(10, 16, 20)]).len(), 2);
        // A gap with a `CALL` (the `__exit__` of a `continue`): kept apart.
        assert_eq!(join_over_not_taken(&ins, vec![range(0, 4, 20), range(12, 16, 20)]).len(), 2);
    }

    #[test]
    fn a_with_body_takes_in_the_nop_of_a_try_at_a_loop_header() {
        // `with m: while True: try: a() except E: break` (3.12): 0 CALL (with body);
        // 2 NOP (`try:`, loop header, uncovered); 4 CALL (try body); 6 JUMP_BACKWARD 2.
        let ins = code(&[("CALL", None), ("NOP", None), ("CALL", None), ("JUMP_BACKWARD", Some(2)), ("RETURN_VALUE", None)]);
        let mut ranges = vec![range(0, 2, 20), range(4, 6, 30), range(6, 8, 20)];
        extend_over_nops(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(0, 4, 20), range(4, 6, 30), range(6, 8, 20)]);
        // Not when the enclosing body does not go on after the nested range.
        let mut ranges = vec![range(0, 2, 20), range(4, 6, 30)];
        extend_over_nops(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(0, 2, 20), range(4, 6, 30)]);
    }

    #[test]
    fn an_enclosing_body_takes_in_the_nop_after_a_nested_body() {
        // `try: with m: for x in y: f()` then more of the try body (3.12): 0 CALL
        // (try body), 2 CALL (with body), 4 NOP (uncovered), 6 CALL (try body again).
        let ins = code(&[("CALL", None), ("CALL", None), ("NOP", None), ("CALL", None), ("RETURN_VALUE", None)]);
        let mut ranges = vec![range(0, 2, 20), range(2, 4, 30), range(6, 8, 20)];
        extend_back_over_nops(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(0, 2, 20), range(2, 4, 30), range(4, 8, 20)]);
        // Not when the enclosing handler covers nothing before the run.
        let mut ranges = vec![range(2, 4, 30), range(6, 8, 20)];
        extend_back_over_nops(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(2, 4, 30), range(6, 8, 20)]);
        // Not when a jump lands on the NOP.
        let ins = code(&[("CALL", None), ("CALL", None), ("NOP", None), ("CALL", None), ("JUMP_BACKWARD", Some(4))]);
        let mut ranges = vec![range(0, 2, 20), range(2, 4, 30), range(6, 8, 20)];
        extend_back_over_nops(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(0, 2, 20), range(2, 4, 30), range(6, 8, 20)]);
    }

    #[test]
    fn a_try_body_takes_in_its_constant_return() {
        // 0 CALL, 2 LOAD_COMMON_CONSTANT, 4 RETURN_VALUE, 6 PUSH_EXC_INFO (handler).
        let ins = code(&[("CALL", None), ("LOAD_COMMON_CONSTANT", None), ("RETURN_VALUE", None), ("PUSH_EXC_INFO", None)]);
        let mut ranges = vec![range(0, 2, 6)];
        extend_over_constant_returns(&ins, &mut ranges);
        assert_eq!(ranges, vec![range(0, 6, 6)]);
        // Not when a jump lands on the return (it is shared with code outside).
        let mut ins2 = ins.clone();
        ins2[0] = code(&[("JUMP_FORWARD", Some(2))])[0].clone();
        let mut ranges = vec![range(0, 2, 6)];
        extend_over_constant_returns(&ins2, &mut ranges);
        assert_eq!(ranges, vec![range(0, 2, 6)]);
        // Not for a handler that is not a try body's (no PUSH_EXC_INFO).
        let mut ins3 = ins.clone();
        ins3[3].opname = "COPY";
        ins3[3].id = depyf_bytecode::opcodes::Opname::COPY;
        let mut ranges = vec![range(0, 2, 6)];
        extend_over_constant_returns(&ins3, &mut ranges);
        assert_eq!(ranges, vec![range(0, 2, 6)]);
    }
}
