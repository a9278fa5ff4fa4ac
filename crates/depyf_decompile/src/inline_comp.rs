//! Inlined comprehensions (PEP 709, CPython 3.12+): a list/set/dict comprehension has
//! no code object of its own; its instructions sit in the enclosing code between a
//! save and a restore of the locals it binds. CPython 3.12 `Python/compile.c`
//! (`push_inlined_comprehension_state`, `pop_inlined_comprehension_state`) lays out,
//! after `GET_ITER` (`GET_AITER`) of the outermost iterable:
//!
//! ```text
//! LOAD_FAST_AND_CLEAR x1 ... LOAD_FAST_AND_CLEAR xn   save the hidden locals
//! SWAP n+1                                            the iterator back on top
//! BUILD_LIST 0 (BUILD_SET 0, BUILD_MAP 0); SWAP 2     the result below the iterator
//! FOR_ITER ... LIST_APPEND/SET_ADD/MAP_ADD ... END_FOR  the loops, as in `<listcomp>`
//! SWAP n+1; STORE_FAST xn ... STORE_FAST x1           restore, the result on top
//! ```
//!
//! The flow-graph optimizer (`apply_static_swaps`) may turn the restore `SWAP 2;
//! STORE_FAST x; STORE_FAST y` into `STORE_FAST y; STORE_FAST x`: the consumer of the
//! result (a store or `POP_TOP`) first, the restores after it. The handler that
//! restores the locals on an exception is dropped by the normalizer
//! (`post311_exc::implicit_handler`).
//!
//! [`outline`] replaces each such region by one [`Op::InlinedComp`] and recovers the
//! loops between the prologue and the epilogue the way a pre-3.12 `<listcomp>` code
//! object is recovered ([`crate::definitions::comprehension_of`]), its first loop
//! over a placeholder `.0` that the op's iterator replaces. Any other shape is an
//! error naming the instruction.

use depyf_bytecode::{local_kind, CodeObject};
use depyf_ir::{IrInstr, Op};
use depyf_source::Expr;

use crate::{definitions, DecompileError, Options};

/// Replaces the inlined comprehensions of `ir` (normalized from `code`) by
/// [`Op::InlinedComp`] ops; returns the new IR and the comprehensions, indexed by the
/// ops. Nested comprehensions are outlined first (the last prologue first), so an
/// outer one's body holds the op of the inner one. IR without
/// `LOAD_FAST_AND_CLEAR` (before 3.12, or no comprehension) comes back unchanged.
///
/// Errors: a `LOAD_FAST_AND_CLEAR` that does not start the layout above, a jump into
/// a comprehension from outside it, or a comprehension body that does not read as
/// one (see [`definitions::comprehension_of`]).
pub(crate) fn outline(code: &CodeObject, mut ir: Vec<IrInstr>, options: &Options) -> Result<(Vec<IrInstr>, Vec<Expr>), DecompileError> {
    let mut inlined = Vec::new();
    if !ir.iter().any(|i| i.opname == "LOAD_FAST_AND_CLEAR") {
        return Ok((ir, inlined));
    }
    // The enclosing code with one more local, `.0`, that the recovered loop iterates.
    let mut inner = code.clone();
    let dot0 = inner.co_localsplusnames.len();
    inner.co_localsplusnames.push(".0".to_string());
    inner.co_localspluskinds.push(local_kind::LOCAL);
    let mut k = ir.len();
    while k > 0 {
        k -= 1;
        if ir[k].opname != "LOAD_FAST_AND_CLEAR" || (k > 0 && ir[k - 1].opname == "LOAD_FAST_AND_CLEAR") {
            continue;
        }
        let (end, sub, kind, consumer) = region(code, &ir, k, dot0)?;
        let comp = definitions::comprehension_of(&inner, &sub, kind, options, &inlined)?;
        let mut op = ir[k].clone();
        op.op = Op::InlinedComp(inlined.len());
        inlined.push(comp);
        let mut replacement = vec![op];
        replacement.extend(consumer);
        ir.splice(k..end, replacement);
    }
    Ok((ir, inlined))
}

/// The inlined comprehension whose prologue starts at `ir[k]`: the index after its
/// epilogue, the IR of its body in `<listcomp>` shape (`BUILD_*`, `.0` (local
/// `dot0`), `GET_ITER`, the loops, `RETURN`), its kind (`"<listcomp>"` ...) and the
/// consumer of the result that the optimizer moved before the restores, if any.
fn region(code: &CodeObject, ir: &[IrInstr], k: usize, dot0: usize) -> Result<(usize, Vec<IrInstr>, &'static str, Option<IrInstr>), DecompileError> {
    let err = |j: usize, m: &str| {
        let at = &ir[j.min(ir.len() - 1)];
        DecompileError::new(code, at.offset, at.opname, format!("an inlined comprehension: {m}"))
    };
    let is_async = match k.checked_sub(1).map(|j| &ir[j].op) {
        Some(Op::GetIter) => false,
        Some(Op::GetAIter) => true,
        _ => return Err(err(k, "the saved locals do not follow GET_ITER of the iterable")),
    };
    let mut saved = Vec::new();
    let mut j = k;
    while j < ir.len() && ir[j].opname == "LOAD_FAST_AND_CLEAR" {
        let Op::LoadFast(x) = ir[j].op else { return Err(err(j, "a save that is not a local load")) };
        saved.push(x);
        j += 1;
    }
    let n = saved.len() as u32;
    if ir.get(j).map(|i| &i.op) != Some(&Op::Swap(n + 1)) {
        return Err(err(j, "the saved locals are not followed by SWAP"));
    }
    let kind = match ir.get(j + 1).map(|i| &i.op) {
        Some(Op::BuildList(0)) => "<listcomp>",
        Some(Op::BuildSet(0)) => "<setcomp>",
        Some(Op::BuildMap(0)) => "<dictcomp>",
        _ => return Err(err(j + 1, "no empty list, set or dict after the saved locals")),
    };
    if ir.get(j + 2).map(|i| &i.op) != Some(&Op::Swap(2)) {
        return Err(err(j + 2, "the result is not put below the iterator"));
    }
    let f = j + 3;
    let Some(Op::ForIter(exit)) = ir.get(f).map(|i| &i.op) else { return Err(err(f, "no loop over the iterator")) };
    let exit = *exit;
    let Some(ep) = (f + 1..ir.len()).find(|&e| ir[e].offset >= exit) else { return Err(err(f, "the loop has no exit")) };
    if ir[ep].offset != exit {
        return Err(err(ep, "the loop exit is not an instruction"));
    }
    // An `async for` exits through its `END_ASYNC_FOR` (a `Nop`), which stays in the body.
    let body_end = ep;
    let ep = if is_async && ir[ep].opname == "END_ASYNC_FOR" && ir[ep].op == Op::Nop { ep + 1 } else { ep };
    if ep >= ir.len() {
        return Err(err(ep, "the loop has no epilogue"));
    }
    // The epilogue: `SWAP n+1` and the restores in reverse order, or the consumer of
    // the result and then the restores (in any order: they store distinct locals).
    let stores_of = |from: usize| -> Option<Vec<usize>> {
        (from..from + saved.len()).map(|e| match ir.get(e).map(|i| &i.op) { Some(Op::StoreFast(x)) => Some(*x), _ => None }).collect()
    };
    let (end, consumer) = if ir[ep].op == Op::Swap(n + 1) {
        let mut want = saved.clone();
        want.reverse();
        if stores_of(ep + 1).as_ref() != Some(&want) {
            return Err(err(ep + 1, "the saved locals are not restored in order"));
        }
        (ep + 1 + saved.len(), None)
    } else {
        let consumer_ok = match ir[ep].op {
            Op::StoreFast(y) => !saved.contains(&y),
            Op::PopTop | Op::StoreName(_) | Op::StoreGlobal(_) | Op::StoreDeref(_) => true,
            _ => false,
        };
        let mut got = stores_of(ep + 1).unwrap_or_default();
        got.sort_unstable();
        let mut want = saved.clone();
        want.sort_unstable();
        if !consumer_ok || got != want {
            return Err(err(ep, "the result is not followed by the restore of the saved locals"));
        }
        (ep + 1 + saved.len(), Some(ir[ep].clone()))
    };
    // No jump from outside lands inside (the instruction after it may be a target).
    let (lo, hi) = (ir[k].offset, ir.get(end).map_or(u32::MAX, |i| i.offset));
    let inside = |t: u32| t > lo && t < hi;
    if let Some(o) = ir[..k].iter().chain(&ir[end..]).position(|i| i.op.jump_target().is_some_and(inside)) {
        let o = if o < k { o } else { o - k + end };
        return Err(err(o, "a jump from outside lands inside it"));
    }
    if let Some(o) = (f..body_end).find(|&e| ir[e].op.jump_target().is_some_and(|t| t < ir[f].offset || t > exit)) {
        return Err(err(o, "a jump inside it leaves it"));
    }
    let mut sub = vec![ir[j + 1].clone()];
    let mut load = ir[j + 2].clone();
    load.op = Op::LoadFast(dot0);
    load.opname = "LOAD_FAST";
    let mut get_iter = load.clone();
    get_iter.op = if is_async { Op::GetAIter } else { Op::GetIter };
    get_iter.opname = if is_async { "GET_AITER" } else { "GET_ITER" };
    sub.push(load);
    sub.push(get_iter);
    sub.extend(ir[f..ep].iter().cloned());
    let mut ret = ir[body_end].clone();
    ret.op = Op::Return;
    ret.opname = "RETURN_VALUE";
    sub.push(ret);
    Ok((end, sub, kind, consumer))
}
