//! CPython 3.10 → [`Op`](crate::Op): everything is shared with the other pre-3.11
//! versions in `pre311`; its block stack (`SETUP_FINALLY`, `SETUP_WITH`, `POP_BLOCK`,
//! `POP_EXCEPT`, `RERAISE`, ...) is normalized to 3.11's shape by `pre311_exc`.
//!
//! 3.10 counts jump arguments in code units (the decoder scales them) and added
//! `ROT_N` and `GEN_START` (in `pre311_gen`) and pattern matching, here: 3.10's
//! `MATCH_CLASS` and `MATCH_KEYS` push a success flag above their result (CPython
//! 3.10 `Python/ceval.c`), which the `POP_JUMP_IF_FALSE` right after pops; 3.11+ push
//! the result alone, `None` on failure, and test a copy with `POP_JUMP_IF_NONE`. The
//! pair becomes the 3.11 shape (`COPY 1; POP_JUMP_IF_NONE`: the same stack on both
//! edges). `COPY_DICT_WITHOUT_KEYS` (`**rest`) has an op of its own.

use depyf_bytecode::{Opname, CodeObject, Constant, Instruction};

use std::collections::BTreeSet;

use super::common::{Cx, Normalized};
use super::{pre311, pre311_exc, IrError, IrInstr};
use crate::Op;

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    // The block stack (`SETUP_*`, handlers) first: see `pre311_exc`.
    let facts = pre311_exc::Facts::scan(code, ins)?;
    with_facts(code, ins, lenient, &facts)
}

/// [`normalize`] given the block-stack facts of `ins` (`pre311_exc::Facts::scan`).
pub(super) fn with_facts(code: &CodeObject, ins: &[Instruction], lenient: bool, facts: &pre311_exc::Facts) -> Result<Normalized, IrError> {
    with_facts_and_ranges(code, ins, lenient, facts).map(|(n, _)| n)
}

/// [`with_facts`], and the protected ranges of the ops returned
/// (`pre311_exc::protected_ranges_with` of them) where they were worked out on the
/// way: when the copies of exit blocks were looked for and none was merged (the ops
/// are then those the ranges were worked out for).
pub(super) fn with_facts_and_ranges(code: &CodeObject, ins: &[Instruction], lenient: bool, facts: &pre311_exc::Facts) -> Result<(Normalized, Option<Vec<depyf_bytecode::ExceptionTableEntry>>), IrError> {
    let (ir, errors) = Cx::new(code, ins, lenient).run(|cx, k| {
        if pre311_exc::op(cx, k, facts)? || pattern_op(cx, k)? {
            Ok(())
        } else {
            pre311::op(cx, k)
        }
    })?;
    if !errors.is_empty() {
        return Ok(((ir, errors), None));
    }
    let (ir, ranges) = merge_copied_tails(code, ins, facts, ir);
    Ok(((ir, errors), ranges))
}

/// Undoes 3.10's copies of small exit blocks: CPython 3.10 `Python/compile.c`
/// (`extend_block`, called by `optimize_cfg`) copies a block that ends in
/// `RETURN_VALUE`/`RAISE_VARARGS`/`RERAISE` (at most four instructions) into every
/// block ending with an unconditional jump to it, line numbers included; 3.11 copies
/// only such blocks without a line number, so the same source has one shared tail
/// there (the code after a `try` or `with`, reached from the body, the `except`
/// clauses and a suppressing `__exit__`). Here the end of a straight-line run that
/// ends in [`Op::Return`], [`Op::Raise`] or [`Op::Reraise`] and has the same ops with
/// the same line numbers (ops without one are 3.11's copies too) as the end of an
/// earlier run becomes a jump to the earlier
/// one (the `Nop`s of `POP_BLOCK` before both included), and the jumps to the start
/// of the part dropped go to the earlier one directly: one tail, as in 3.11.
///
/// The same ops from the same lines are the same statements, so the code runs
/// alike: a run is merged only where (checked per op) the protected range is the
/// same, the stack depth at the merge point is the same, and the merged part does not
/// take values from below it (but the `__exit__` a [`Op::WithExit`] calls, which
/// belongs to the `with` both runs leave), nor has a jump target or handler entry
/// past its start, nor is `return None` alone (3.11 keeps the copies of the implicit
/// `return None`, whose line is the one before); runs alike for more than four ops
/// (3.10's copy size) are the compiler's own copies, which 3.11 has too, and stay;
/// so do runs alike for more than four ops counted back through a conditional jump
/// (the same `if` in two copies of a `finally` body).
/// The ops of a part after its new jump are left out (nothing reaches them). Returns `ir` unchanged when the depths cannot be walked, and for
/// code with a `match` statement (read from 3.10's own layout).
/// Also returns the protected ranges of `ir` when they were worked out and nothing
/// was merged (`ir` returned as it came).
fn merge_copied_tails(code: &CodeObject, ins: &[Instruction], facts: &pre311_exc::Facts, mut ir: Vec<IrInstr>) -> (Vec<IrInstr>, Option<Vec<depyf_bytecode::ExceptionTableEntry>>) {
    let ends: Vec<usize> = (0..ir.len()).filter(|&p| matches!(ir[p].op, Op::Return | Op::Raise(_) | Op::Reraise)).collect();
    // A `match` statement is read from 3.10's own layout (the copies of an or-pattern's
    // pops and of each case's tail); `ROT_N` moves an or-pattern's captures.
    let matches = ins.iter().any(|i| matches!(i.id, Opname::MATCH_CLASS | Opname::MATCH_KEYS | Opname::MATCH_SEQUENCE | Opname::MATCH_MAPPING | Opname::ROT_N));
    if matches || ends.len() < 2 || ends.len() > 400 {
        return (ir, None);
    }
    let ranges = if pre311_exc::uses_block_stack(ins) {
        match pre311_exc::protected_ranges_with(code, ins, &ir, facts) {
            Ok(r) => r,
            Err(_) => return (ir, None),
        }
    } else {
        Vec::new()
    };
    let Some(depth) = ir_depths(&ir, &ranges) else { return (ir, Some(ranges)) };
    let prot = |off: u32| ranges.iter().find(|r| r.start <= off && off < r.end).map(|r| (r.target, r.depth));
    let mut labels: BTreeSet<u32> = ir.iter().filter_map(|i| i.op.jump_target()).chain(ranges.iter().map(|r| r.target)).collect();
    let first_at = |ir: &[IrInstr], p: usize| p == 0 || ir[p - 1].offset != ir[p].offset;
    let prev_real = |ir: &[IrInstr], p: usize| (0..p).rev().find(|&x| ir[x].op != Op::Nop);
    let mut dropped = vec![false; ir.len()];
    // The ops after each new jump: no way leads to them (left out at the end).
    let mut gone = vec![false; ir.len()];
    // The ops of the runs ending at `a_end` and `b_end` that are alike, from the end
    // back (pairs of positions), up to an entry into the run of `b_end`.
    let alike = |ir: &[IrInstr], labels: &BTreeSet<u32>, a_end: usize, b_end: usize| -> Vec<(usize, usize)> {
        let (mut a, mut b) = (a_end, b_end);
        let mut pairs = Vec::new();
        if ir[a_end].op != ir[b_end].op {
            return pairs;
        }
        loop {
            let (x, y) = (&ir[a], &ir[b]);
            let plain = |p: usize| p == a_end || p == b_end || !(ir[p].op.jump_target().is_some() || ir[p].op.is_terminator() || ir[p].op == Op::PushExcInfo);
            if a == b || x.op != y.op || x.line.is_none() || x.line != y.line || !plain(a) || !plain(b) || prot(x.offset) != prot(y.offset) {
                break;
            }
            pairs.push((a, b));
            // The run of `b` (the one dropped) must have no entry past its start.
            let (Some(pa), Some(pb)) = (prev_real(ir, a), prev_real(ir, b)) else { break };
            // (Ops of one instruction share its offset: no entry between them.)
            if ir[pb].offset < ir[b].offset && labels.range(ir[pb].offset + 1..=ir[b].offset).next().is_some() {
                break;
            }
            (a, b) = (pa, pb);
        }
        pairs
    };
    // Runs alike for more than `MAX_COPY_SIZE` (4) ops are the compiler's own copies
    // (of a `finally` body before the code after it), which 3.11 has too: they stay,
    // and so do the other copies of their ends.
    // Alike is counted here through conditional jumps too (their targets aside):
    // `if c: raise E(x)` in two copies of a `finally` body is one source statement
    // copied by the compiler, whose four-op `raise` would else pass for a copied
    // exit block; merged, the copy of one exit would run into the other's code.
    let alike_through = |ir: &[IrInstr], a_end: usize, b_end: usize| -> usize {
        let bare = |o: &Op| {
            let mut o = o.clone();
            if o.jump_target().is_some() {
                pre311_exc::set_jump_target(&mut o, 0);
            }
            o
        };
        let (mut a, mut b) = (a_end, b_end);
        let (mut n, mut crossed) = (0, false);
        loop {
            let (x, y) = (&ir[a], &ir[b]);
            let cond = |o: &Op| o.jump_target().is_some() && !matches!(o, Op::Jump(_) | Op::ForIter(_));
            let plain = |p: usize| p == a_end || p == b_end || cond(&ir[p].op) || !(ir[p].op.jump_target().is_some() || ir[p].op.is_terminator() || ir[p].op == Op::PushExcInfo);
            if a == b || bare(&x.op) != bare(&y.op) || x.line.is_none() || x.line != y.line || !plain(a) || !plain(b) {
                break;
            }
            n += 1;
            crossed |= a != a_end && cond(&x.op);
            let (Some(pa), Some(pb)) = (prev_real(ir, a), prev_real(ir, b)) else { break };
            (a, b) = (pa, pb);
        }
        // Only through an `if`: other runs alike count as `alike` does.
        if crossed { n } else { 0 }
    };
    let mut long = vec![false; ir.len()];
    let mut merged = false;
    for (n, &b_end) in ends.iter().enumerate() {
        for &a_end in &ends[..n] {
            if alike(&ir, &labels, a_end, b_end).len() > 4 || alike_through(&ir, a_end, b_end) > 4 {
                long[a_end] = true;
                long[b_end] = true;
            }
        }
    }
    for (n, &b_end) in ends.iter().enumerate() {
        // The longest common end with an earlier run that is kept.
        let mut best: Option<(usize, usize, usize)> = None; // (len, a start, b start)
        for &a_end in &ends[..n] {
            if dropped[a_end] || long[a_end] || long[b_end] {
                continue;
            }
            let pairs = alike(&ir, &labels, a_end, b_end);
            // The longest part that takes nothing from below and whose kept copy a
            // jump can enter.
            for k in (0..pairs.len()).rev() {
                let (a0, b0) = pairs[k];
                let mut d: i64 = 0;
                let mut ok = true;
                for &(p, _) in pairs[..=k].iter().rev() {
                    let (pop, push) = if ir[p].op == Op::WithExit { (0, 0) } else { ir[p].op.stack_effect() };
                    d -= i64::from(pop);
                    ok &= d >= 0;
                    d += i64::from(push);
                }
                // `return None` alone: also the implicit return, which 3.11 copies
                // too (exits without a line number, given their predecessor's).
                let none = |o: &Op| matches!(o, Op::LoadConst(c) if matches!(code.co_consts.get(*c), Some(Constant::None)));
                let implicit = k == 1 && none(&ir[a0].op);
                if ok && !implicit && first_at(&ir, a0) && depth[a0].is_some() && depth[a0] == depth[b0] {
                    if best.is_none_or(|(l, _, _)| k + 1 > l) {
                        best = Some((k + 1, a0, b0));
                    }
                    break;
                }
            }
        }
        let Some((_, mut a0, mut b0)) = best else { continue };
        merged = true;
        // The `Nop`s before both (`POP_BLOCK`) go with them.
        let pop_block = |x: &IrInstr| x.op == Op::Nop && x.opname == "POP_BLOCK";
        while a0 > 0 && pop_block(&ir[a0 - 1]) && first_at(&ir, a0 - 1) {
            a0 -= 1;
        }
        while b0 > 0 && pop_block(&ir[b0 - 1]) && first_at(&ir, b0 - 1) && !labels.contains(&ir[b0].offset) {
            b0 -= 1;
        }
        let (from, to) = (ir[b0].offset, ir[a0].offset);
        ir[b0].op = Op::Jump(to);
        for p in b0 + 1..=b_end {
            ir[p].op = Op::Nop;
            gone[p] = true;
        }
        dropped[b_end] = true;
        // Jumps to the part dropped go to the kept one.
        if first_at(&ir, b0) {
            for x in ir.iter_mut() {
                if x.op.jump_target() == Some(from) && x.offset != from {
                    pre311_exc::set_jump_target(&mut x.op, to);
                }
            }
        }
        labels.insert(to);
    }
    if !merged {
        return (ir, Some(ranges));
    }
    let mut keep = gone.iter().map(|g| !g);
    ir.retain(|_| keep.next().unwrap_or(true));
    (ir, None)
}

/// The IR stack depth before each op of `ir` (`None` where not reached), walked from
/// the entry and from each handler of `ranges` (entered with the range's depth plus
/// the exception); `None` when some op is reached with two depths.
fn ir_depths(ir: &[IrInstr], ranges: &[depyf_bytecode::ExceptionTableEntry]) -> Option<Vec<Option<i64>>> {
    let at = |t: u32| ir.partition_point(|x| x.offset < t);
    let mut depth: Vec<Option<i64>> = vec![None; ir.len()];
    let mut work: Vec<(usize, i64)> = vec![(0, 0)];
    work.extend(ranges.iter().map(|r| (at(r.target), i64::from(r.depth) + 1)));
    while let Some((p, d)) = work.pop() {
        if p >= ir.len() {
            continue;
        }
        match depth[p] {
            Some(old) if old == d => continue,
            Some(_) => return None,
            None => depth[p] = Some(d),
        }
        let op = &ir[p].op;
        if let Some(t) = op.jump_target() {
            let (pop, push) = op.stack_effect_on(true);
            work.push((at(t), d - i64::from(pop) + i64::from(push)));
        }
        if !op.is_terminator() {
            let (pop, push) = op.stack_effect();
            work.push((p + 1, d - i64::from(pop) + i64::from(push)));
        }
    }
    Some(depth)
}

/// The pattern-matching opcodes (3.10 only before 3.11 renamed their shapes); `false`
/// for any other instruction.
fn pattern_op(cx: &mut Cx<'_>, k: usize) -> Result<bool, IrError> {
    let op = match cx.ins[k].id {
        Opname::MATCH_SEQUENCE => Op::MatchSequence,
        Opname::MATCH_MAPPING => Op::MatchMapping,
        Opname::GET_LEN => Op::GetLen,
        Opname::COPY_DICT_WITHOUT_KEYS => Op::CopyDictWithoutKeys,
        Opname::MATCH_CLASS | Opname::MATCH_KEYS => {
            // `(..., flag)` and `POP_JUMP_IF_FALSE fail` become `COPY 1;
            // POP_JUMP_IF_NONE fail` on the result.
            // (The jump may have `EXTENDED_ARG` prefixes.)
            let mut j = k + 1;
            while cx.ins.get(j).is_some_and(|i| i.opname == "EXTENDED_ARG") {
                j += 1;
            }
            let Some(jump) = cx.ins.get(j).filter(|i| i.opname == "POP_JUMP_IF_FALSE") else {
                return Err(cx.err(k, "a pattern test not followed by POP_JUMP_IF_FALSE"));
            };
            let target = jump.jump_target().ok_or_else(|| cx.err(k, "a jump without a target"))?;
            cx.emit(k, if cx.ins[k].opname == "MATCH_CLASS" { Op::MatchClass(cx.arg(k)) } else { Op::MatchKeys });
            cx.emit(j, Op::Copy(1));
            cx.emit(j, Op::JumpIfNone { when: true, target });
            cx.drop_more = j - k;
            return Ok(true);
        }
        _ => return Ok(false),
    };
    cx.emit(k, op);
    Ok(true)
}
