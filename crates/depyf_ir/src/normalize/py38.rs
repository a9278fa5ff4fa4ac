//! CPython 3.8 → [`Op`](crate::Op): everything is shared with the other pre-3.11
//! versions in `pre311`.
//!
//! 3.8 alone has `BUILD_LIST_UNPACK`, `BUILD_TUPLE_UNPACK(_WITH_CALL)`,
//! `BUILD_SET_UNPACK`, `BUILD_MAP_UNPACK(_WITH_CALL)`: they pop n iterables and push
//! their concatenation, while 3.9+ builds the empty container *below* the items and
//! extends it one at a time: [`unpack`] rewrites the ops of the items into 3.9's
//! shape, so the same source gives the same ops (straight-line items only). Its
//! `COMPARE_OP` also covers `in`/`is` (normalized) and `exception match` (with the
//! block stack and its `BEGIN_FINALLY`/`END_FINALLY`/`WITH_CLEANUP_*`, in `pre311_exc`).

use std::collections::BTreeSet;

use depyf_bytecode::{Opname, CodeObject, Instruction};

use super::common::{Cx, Normalized};
use super::{pre311, pre311_exc, IrError, IrInstr};
use crate::Op;

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction], lenient: bool) -> Result<Normalized, IrError> {
    // A block-stack shape not handled (try/finally, ...) fails the whole code object;
    // in lenient mode its instructions are normalized one by one instead, those of
    // the block stack taking the error path (none rewritten).
    let facts = match pre311_exc::Facts::scan(code, ins) {
        Err(_) if lenient => return Cx::new(code, ins, lenient).run(op),
        r => r?,
    };
    with_facts(code, ins, lenient, &facts)
}

/// [`normalize`] given the block-stack facts of `ins` (`pre311_exc::Facts::scan`).
pub(super) fn with_facts(code: &CodeObject, ins: &[Instruction], lenient: bool, facts: &pre311_exc::Facts) -> Result<Normalized, IrError> {
    let (mut ir, errors) = Cx::new(code, ins, lenient).run(|cx, k| if pre311_exc::op(cx, k, facts)? { Ok(()) } else { op(cx, k) })?;
    // Copies of finally bodies with branches get offsets of their own.
    pre311_exc::copy_offsets(code, ins, facts, &mut ir)?;
    pre311_exc::drop_last_pop38(ins, facts, &mut ir);
    Ok((ir, errors))
}

/// Normalizes instruction `k` outside the block-stack protocol: the merges of
/// starred items ([`unpack`]), then the meanings shared with 3.9-3.10
/// (`pre311::op`). Also used for the copies of `finally` bodies (`pre311_exc`).
pub(super) fn op(cx: &mut Cx<'_>, k: usize) -> Result<(), IrError> {
    if assertion_error(cx, k) {
        cx.emit(k, Op::LoadAssertionError);
        Ok(())
    } else if unpack(cx, k)? {
        Ok(())
    } else {
        pre311::op(cx, k)
    }
}

/// Whether instruction `k` is the `LOAD_GLOBAL AssertionError` of an `assert`: CPython
/// 3.8 `Python/compile.c` (`compiler_assert`) compiles `assert c, msg` into the jumps
/// of `c` ending in `POP_JUMP_IF_TRUE end`, then `LOAD_GLOBAL AssertionError`, `msg`
/// and `CALL_FUNCTION 1` (when there is a message), `RAISE_VARARGS 1`, `end:`; 3.9
/// loads the class with `LOAD_ASSERTION_ERROR` instead. The load is read as 3.9's when
/// the instruction before it is that `POP_JUMP_IF_TRUE` (no other instruction jumps to
/// the load) and the first `RAISE_VARARGS` after it raises one value, is the end of
/// the message (a `CALL_FUNCTION 1` right before it, or nothing in between) and is
/// followed by the jump's target. `if not c: raise AssertionError(msg)` compiles to the
/// same instructions (without `-O`), so the `assert` printed for it recompiles to
/// them; its test also keeps 3.8's `is`/`in` operators where `if not` folds them into
/// `is not`/`not in` (CPython `Python/ast_opt.c`), which would jump the other way.
fn assertion_error(cx: &Cx<'_>, k: usize) -> bool {
    let i = &cx.ins[k];
    if i.id != Opname::LOAD_GLOBAL || cx.code.co_names.get(cx.idx(k)).map(|n| &**n) != Some("AssertionError") {
        return false;
    }
    let Some(p) = cx.prev(k) else { return false };
    if cx.ins[p].opname != "POP_JUMP_IF_TRUE" || cx.ins.iter().any(|j| j.jump_target() == Some(i.offset)) {
        return false;
    }
    let Some(r) = (k + 1..cx.ins.len()).find(|&r| cx.ins[r].opname == "RAISE_VARARGS") else { return false };
    let message_ok = r == k + 1 || (cx.ins[r - 1].opname == "CALL_FUNCTION" && cx.arg(r - 1) == 1);
    cx.arg(r) == 1 && message_ok && cx.ins.get(r + 1).map(|n| n.offset) == cx.ins[p].jump_target()
}

/// What a 3.8 `BUILD_*_UNPACK*` merges into.
#[derive(Clone, Copy, PartialEq)]
enum Merge {
    /// `BUILD_LIST_UNPACK`.
    List,
    /// `BUILD_TUPLE_UNPACK` and `BUILD_TUPLE_UNPACK_WITH_CALL`.
    Tuple,
    /// `BUILD_SET_UNPACK`.
    Set,
    /// `BUILD_MAP_UNPACK` (`false`) and `BUILD_MAP_UNPACK_WITH_CALL` (`true`, which
    /// raises on a repeated key like 3.9's `DICT_MERGE`).
    Map(bool),
}

/// 3.8's `BUILD_LIST_UNPACK n`, `BUILD_TUPLE_UNPACK(_WITH_CALL) n`, `BUILD_SET_UNPACK n`
/// and `BUILD_MAP_UNPACK(_WITH_CALL) n` pop n iterables (mappings) and push their
/// concatenation (merge); CPython 3.8 `Python/compile.c` (`starunpack_helper`,
/// `compiler_call_helper`, `compiler_dict`) builds the plain items between stars
/// with `BUILD_TUPLE k` (`BUILD_SET k` in a set, `BUILD_MAP`/`BUILD_CONST_KEY_MAP` in
/// a dict or the keywords of a call). 3.9 instead builds the container first and
/// extends it item by item (`LIST_EXTEND`/`LIST_APPEND`/`LIST_TO_TUPLE`,
/// `SET_UPDATE`/`SET_ADD`, `DICT_UPDATE`/`DICT_MERGE`). Returns `Ok(false)` for any
/// other opcode. The ops already emitted for the n items are rewritten into 3.9's
/// shape: the empty container (or, for the first item built by `BUILD_TUPLE k`
/// / `BUILD_SET k` / a map build, that build turned into the container) goes in
/// front of the first item, an extend (or one append per element of a later
/// `BUILD_TUPLE k`/`BUILD_SET k` item) after each item. The items must be straight-line
/// code (no jump in them, no jump target inside but at their start, none on the
/// merge): anything else is an error naming the opcode.
fn unpack(cx: &mut Cx<'_>, k: usize) -> Result<bool, IrError> {
    let merge = match cx.ins[k].id {
        Opname::BUILD_LIST_UNPACK => Merge::List,
        Opname::BUILD_TUPLE_UNPACK | Opname::BUILD_TUPLE_UNPACK_WITH_CALL => Merge::Tuple,
        Opname::BUILD_SET_UNPACK => Merge::Set,
        Opname::BUILD_MAP_UNPACK => Merge::Map(false),
        Opname::BUILD_MAP_UNPACK_WITH_CALL => Merge::Map(true),
        Opname::CALL_FUNCTION_EX if cx.arg(k) & 1 == 1 => {
            single_kwargs(cx, k);
            return Ok(false);
        }
        _ => return Ok(false),
    };
    let n = cx.arg(k) as usize;
    let end = cx.out.len();
    let fail = |cx: &Cx<'_>| cx.err(k, "the items merged are not straight-line code, not supported by the decompiler yet");
    let starts = match item_starts(&cx.out, end, n) {
        Some(s) if n > 0 => s,
        _ => return Err(fail(cx)),
    };
    let targets: BTreeSet<u32> = cx.ins.iter().filter_map(|i| i.jump_target()).collect();
    let first = starts[0];
    let first_off = cx.out[first].offset;
    // No jump inside, none landing inside but at the start, none landing on the
    // merge (the items found walking back would then be only one branch's).
    let straight = !targets.contains(&cx.ins[k].offset)
        && (first..end).all(|i| {
            let o = &cx.out[i];
            o.op.jump_target().is_none() && (o.offset == first_off || !targets.contains(&o.offset))
        });
    if !straight {
        return Err(fail(cx));
    }
    // Each item's ops, taken out of `out` and put back with the 3.9 ops in between.
    let items: Vec<Vec<IrInstr>> = {
        let mut tail = cx.out.split_off(first);
        let mut v = Vec::with_capacity(n);
        for w in (0..n).rev() {
            v.push(tail.split_off(starts[w] - first));
        }
        v.reverse();
        v
    };
    let opname = cx.ins[k].opname;
    let at = |like: &IrInstr, op: Op| IrInstr { offset: like.offset, at: like.offset, op, line: like.line, opname };
    let (extend, append) = match merge {
        Merge::List | Merge::Tuple => (Op::ListExtend(1), Op::ListAppend(1)),
        Merge::Set => (Op::SetUpdate(1), Op::SetAdd(1)),
        Merge::Map(m) => (Op::DictUpdate(1, m), Op::DictUpdate(1, m)),
    };
    let merge_at = IrInstr { offset: cx.ins[k].offset, at: cx.ins[k].offset, op: Op::Nop, line: cx.ins[k].line_number, opname };
    let mut emitted_at_merge = false;
    for (j, mut item) in items.into_iter().enumerate() {
        // The op that pushes the item (`Nop`s of folded instructions may follow it).
        let last = item.iter().rposition(|o| o.op != Op::Nop).unwrap_or(item.len() - 1);
        // The op after the last item is the merge instruction's own.
        let after = if j + 1 == n { &merge_at } else { &item[item.len() - 1] };
        let extend_op = at(after, extend.clone());
        emitted_at_merge |= j + 1 == n;
        let built = match (merge, &item[last].op) {
            (Merge::List | Merge::Tuple, &Op::BuildTuple(e)) | (Merge::Set, &Op::BuildSet(e)) if e > 0 => Some(e),
            _ => None,
        };
        if j == 0 {
            match (merge, &item[last].op, built) {
                // The first item's own build becomes the container.
                (Merge::Set, _, Some(e)) => item[last].op = Op::BuildSet(e),
                (_, _, Some(e)) => item[last].op = Op::BuildList(e),
                (Merge::Map(_), Op::BuildMap(_) | Op::BuildConstKeyMap(_), _) => {}
                _ => {
                    let container = match merge {
                        Merge::List | Merge::Tuple => Op::BuildList(0),
                        Merge::Set => Op::BuildSet(0),
                        Merge::Map(_) => Op::BuildMap(0),
                    };
                    cx.out.push(at(&item[0], container));
                    cx.out.append(&mut item);
                    cx.out.push(extend_op);
                    continue;
                }
            }
            emitted_at_merge = false;
            cx.out.append(&mut item);
            continue;
        }
        match built {
            // A later run of plain elements: one append after each.
            Some(e) if item_starts(&item, last, e as usize).is_some_and(|s| s[0] == 0) => {
                let s = item_starts(&item, last, e as usize).expect("checked");
                item[last].op = append.clone();
                for &st in s.iter().skip(1).rev() {
                    let o = at(&item[st - 1], append.clone());
                    item.insert(st, o);
                }
                emitted_at_merge = false;
                cx.out.append(&mut item);
            }
            _ => {
                cx.out.append(&mut item);
                cx.out.push(extend_op);
            }
        }
    }
    if merge == Merge::Tuple {
        cx.emit(k, Op::ListToTuple);
    } else if !emitted_at_merge {
        cx.emit(k, Op::Nop);
    }
    Ok(true)
}

/// 3.8's `f(**m)` (one mapping and no keyword before or after it) passes `m` itself
/// to `CALL_FUNCTION_EX`, which copies it into a new dict (CPython 3.8
/// `Python/ceval.c`); 3.9 merges it into an empty dict first (`BUILD_MAP 0`,
/// `DICT_MERGE 1`). Rewrites the ops of the keyword argument into that shape when it
/// is not already a dict built right there (keywords `k=v`, or a merge) and is
/// straight-line code (no jump in it, none landing in it but at its start or on the
/// call); otherwise leaves them as they are.
fn single_kwargs(cx: &mut Cx<'_>, k: usize) {
    let end = cx.out.len();
    let Some(start) = item_starts(&cx.out, end, 1).map(|s| s[0]) else { return };
    let Some(last) = cx.out[start..].iter().rposition(|o| o.op != Op::Nop).map(|p| start + p) else { return };
    if matches!(cx.out[last].op, Op::BuildMap(_) | Op::BuildConstKeyMap(_) | Op::DictUpdate(..)) {
        return;
    }
    let targets: BTreeSet<u32> = cx.ins.iter().filter_map(|i| i.jump_target()).collect();
    let first_off = cx.out[start].offset;
    if targets.contains(&cx.ins[k].offset) || !cx.out[start..].iter().all(|o| o.op.jump_target().is_none() && (o.offset == first_off || !targets.contains(&o.offset))) {
        return;
    }
    let like = &cx.out[end - 1];
    let merge = IrInstr { offset: like.offset, at: like.offset, op: Op::DictUpdate(1, true), line: like.line, opname: like.opname };
    let s = &cx.out[start];
    let container = IrInstr { offset: s.offset, at: s.offset, op: Op::BuildMap(0), line: s.line, opname: s.opname };
    cx.out.push(merge);
    cx.out.insert(start, container);
}

/// The indices in `ops[..end]` where the computation of each of the top `n` stack
/// values at `end` starts (bottom value first): walking back, the first index from
/// which the ops up to `end` read nothing below and leave exactly that many values.
/// `None` when an op would produce two of them at once or the ops run out.
fn item_starts(ops: &[IrInstr], end: usize, n: usize) -> Option<Vec<usize>> {
    let mut starts = Vec::with_capacity(n);
    let (mut consumed, mut left) = (0u32, 0u32);
    let mut i = end;
    while starts.len() < n {
        i = i.checked_sub(1)?;
        let (pop, push) = ops[i].op.stack_effect();
        if push >= consumed {
            left += push - consumed;
            consumed = pop;
        } else {
            consumed = pop + consumed - push;
        }
        if consumed == 0 && left as usize > starts.len() {
            if left as usize != starts.len() + 1 {
                return None;
            }
            starts.push(i);
        }
    }
    starts.reverse();
    Some(starts)
}
