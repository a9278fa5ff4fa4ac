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
//! CPython 3.15 saves the locals above the iterable itself and turns it into an
//! iterator after the result is built (`<iterable>; LOAD_FAST_AND_CLEAR ...; SWAP
//! n+1; BUILD_LIST 0; SWAP 2; GET_ITER`, CPython 3.15 `Python/codegen.c`
//! `codegen_comprehension`); the outlined op then gets that `GET_ITER` before it, as
//! in 3.12-3.14.
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
/// ops, and the locals the comprehensions save (for [`mark_hidden`]). Nested comprehensions are outlined first (the last prologue first), so an
/// outer one's body holds the op of the inner one. IR without
/// `LOAD_FAST_AND_CLEAR` (before 3.12, or no comprehension) comes back unchanged.
///
/// Errors: a `LOAD_FAST_AND_CLEAR` that does not start the layout above, a jump into
/// a comprehension from outside it, or a comprehension body that does not read as
/// one (see [`definitions::comprehension_of`]).
pub(crate) fn outline(code: &CodeObject, mut ir: Vec<IrInstr>, options: &Options) -> Result<(Vec<IrInstr>, Vec<Expr>, Vec<usize>), DecompileError> {
    let mut inlined = Vec::new();
    let saved: Vec<usize> = ir.iter().filter(|i| i.opname == "LOAD_FAST_AND_CLEAR").filter_map(|i| match i.op { Op::LoadFast(x) => Some(x), _ => None }).collect();
    if saved.is_empty() {
        return Ok((ir, inlined, saved));
    }
    // The enclosing code with one more local, `.0`, that the recovered loop iterates.
    let mut inner = code.clone();
    let dot0 = inner.co_localsplusnames.len();
    inner.co_localsplusnames.push(".0".into());
    inner.co_localspluskinds.push(local_kind::LOCAL);
    let mut k = ir.len();
    while k > 0 {
        k -= 1;
        if ir[k].opname != "LOAD_FAST_AND_CLEAR" || (k > 0 && (ir[k - 1].opname == "LOAD_FAST_AND_CLEAR" || is_comp_cell(&ir[k - 1]))) {
            continue;
        }
        let r = region(code, &ir, k, dot0)?;
        // A cell slot of the function that the comprehension binds as a plain local
        // holds plain values inside it: its body reads the slot as a local.
        let comp = if r.plain_cells.is_empty() {
            definitions::comprehension_of(&inner, &r.body, r.kind, options, &inlined)?
        } else {
            let mut plain = inner.clone();
            for &x in &r.plain_cells {
                plain.co_localspluskinds[x] = (plain.co_localspluskinds[x] & !local_kind::CELL) | local_kind::LOCAL;
            }
            definitions::comprehension_of(&plain, &r.body, r.kind, options, &inlined)?
        };
        let mut op = ir[k].clone();
        op.op = Op::InlinedComp(inlined.len());
        inlined.push(comp);
        let head: Vec<IrInstr> = r.late_iter.into_iter().chain(std::iter::once(op)).collect();
        // The epilogue first (it may lie after the handler, past the jump to it).
        let consumer = r.consumer.into_iter();
        match r.jump {
            None => {
                ir.splice(k..r.end, head.into_iter().chain(consumer));
            }
            Some(jump) => {
                // The jump stays: its target becomes the consumer (or a `Nop`).
                let mut landing: Vec<IrInstr> = consumer.collect();
                if landing.is_empty() {
                    let mut nop = ir[r.epilogue].clone();
                    nop.op = Op::Nop;
                    landing.push(nop);
                }
                landing[0].offset = ir[r.epilogue].offset;
                ir.splice(r.epilogue..r.end, landing);
                ir.splice(k..jump, head);
            }
        }
    }
    Ok((ir, inlined, saved))
}

/// `code` with the 3.12+ `CO_FAST_HIDDEN` kind set on the locals that only inlined
/// comprehensions bind, when `code` lacks it (code objects read from a live
/// interpreter, whose kinds Python does not expose): the locals saved by a prologue
/// that the outlined `ir` no longer reads, stores or deletes, but in the restore of
/// an implicit handler (`SWAP n`, `STORE_FAST`s, `RERAISE`). `None` when none is
/// missing. CPython 3.12 `Python/compile.c` (`push_inlined_comprehension_state`).
pub(crate) fn mark_hidden(code: &CodeObject, ir: &[IrInstr], saved: &[usize]) -> Option<CodeObject> {
    let in_handler = |j: usize| {
        let mut e = j;
        while ir.get(e).is_some_and(|i| matches!(i.op, Op::StoreFast(_))) {
            e += 1;
        }
        let mut b = j;
        while b > 0 && matches!(ir[b - 1].op, Op::StoreFast(_)) {
            b -= 1;
        }
        ir.get(e).is_some_and(|i| i.op == Op::Reraise) && b > 0 && matches!(ir[b - 1].op, Op::Swap(_))
    };
    let mut hidden: Vec<usize> = saved.iter().copied().filter(|&x| code.co_localspluskinds.get(x).is_some_and(|k| k & local_kind::HIDDEN == 0)).collect();
    hidden.sort_unstable();
    hidden.dedup();
    hidden.retain(|&x| {
        !ir.iter().enumerate().any(|(j, i)| matches!(i.op, Op::LoadFast(y) | Op::StoreFast(y) | Op::DeleteFast(y) if y == x) && !in_handler(j))
    });
    if hidden.is_empty() {
        return None;
    }
    let mut out = code.clone();
    for x in hidden {
        out.co_localspluskinds[x] |= local_kind::HIDDEN;
    }
    Some(out)
}

/// One inlined comprehension found by [`region`].
struct Region {
    /// The IR of its body in `<listcomp>` shape: `BUILD_*`, `.0` (local `dot0`),
    /// `GET_ITER`, the loops, `RETURN`.
    body: Vec<IrInstr>,
    /// `"<listcomp>"`, `"<setcomp>"` or `"<dictcomp>"`.
    kind: &'static str,
    /// The consumer of the result that the optimizer moved before the restores.
    consumer: Option<IrInstr>,
    /// The index of a `JUMP_FORWARD` after the loops that goes over the exception
    /// handler to the epilogue (CPython puts the handler there when the epilogue
    /// has more than one predecessor or is shared), if any.
    jump: Option<usize>,
    /// Where the epilogue starts and the index after it.
    epilogue: usize,
    end: usize,
    /// 3.15: the `GET_ITER` (`GET_AITER`) that follows the built result, moved to
    /// stand before the outlined op (at the prologue's offset).
    late_iter: Option<IrInstr>,
    /// The saved cell slots of the function that the comprehension binds as plain
    /// locals (no `MAKE_CELL` after their save): inside the body `LOAD_FAST`/
    /// `STORE_FAST` on them move plain values, not cells.
    plain_cells: Vec<usize>,
}

/// Whether `i` is the `MAKE_CELL` that follows the save of a local in the prologue
/// of an inlined comprehension (the comprehension's variable is a cell that a
/// closure in it captures): CPython 3.12 `Python/compile.c`
/// `push_inlined_comprehension_state`. The normalizer reads it as an
/// [`Op::FrameSetup`] and checks that it makes the cell of the slot saved just
/// before; the comprehension body then reaches that slot through the cell, as a
/// pre-3.12 `<listcomp>` code object reaches its own cell variable.
fn is_comp_cell(i: &IrInstr) -> bool {
    i.opname == "MAKE_CELL" && i.op == Op::FrameSetup
}

/// The inlined comprehension whose prologue starts at `ir[k]`.
fn region(code: &CodeObject, ir: &[IrInstr], k: usize, dot0: usize) -> Result<Region, DecompileError> {
    let err = |j: usize, m: &str| {
        let at = &ir[j.min(ir.len() - 1)];
        DecompileError::new(code, at.at, at.opname, format!("an inlined comprehension: {m}"))
    };
    let late = code.version >= depyf_bytecode::PythonVersion::PY315;
    let early_async = match k.checked_sub(1).map(|j| &ir[j].op) {
        _ if late => false,
        Some(Op::GetIter) => false,
        Some(Op::GetAIter) => true,
        _ => return Err(err(k, "the saved locals do not follow GET_ITER of the iterable")),
    };
    let mut saved = Vec::new();
    let mut plain_cells = Vec::new();
    let mut j = k;
    while j < ir.len() && ir[j].opname == "LOAD_FAST_AND_CLEAR" {
        let Op::LoadFast(x) = ir[j].op else { return Err(err(j, "a save that is not a local load")) };
        saved.push(x);
        j += 1;
        // The cell of a variable that a closure in the comprehension captures.
        if ir.get(j).is_some_and(is_comp_cell) {
            j += 1;
        } else if code.co_localspluskinds.get(x).is_some_and(|kd| kd & local_kind::CELL != 0) {
            plain_cells.push(x);
        }
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
    let mut f = j + 3;
    let mut late_iter = None;
    let is_async = if late {
        let is_async = match ir.get(f).map(|i| &i.op) {
            Some(Op::GetIter) => false,
            Some(Op::GetAIter) => true,
            _ => return Err(err(f, "no GET_ITER of the iterable after the result is built")),
        };
        let mut moved = ir[f].clone();
        moved.offset = ir[k].offset;
        late_iter = Some(moved);
        f += 1;
        // The index slot that 3.15's `GET_ITER` pushes, dropped by the normalizer.
        while ir.get(f).is_some_and(|i| i.op == Op::Nop && i.offset == ir[f - 1].offset) {
            f += 1;
        }
        is_async
    } else {
        early_async
    };
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
    let after_loop = ep;
    let (jump, ep) = match ir[ep].op {
        Op::Jump(t) if t > ir[ep].offset => match ir.iter().position(|i| i.offset == t) {
            Some(e) if ir[ep + 1..e].iter().all(|i| i.op.jump_target().is_none()) => (Some(ep), e),
            _ => return Err(err(ep, "the jump to the epilogue lands elsewhere")),
        },
        _ => (None, ep),
    };
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
    // No jump from outside lands inside (the instruction after it may be a target;
    // the jump over the handler is inside).
    let (lo, hi) = (ir[k].offset, ir.get(end).map_or(u32::MAX, |i| i.offset));
    let inside = |t: u32| t > lo && t < hi;
    if let Some(o) = (0..ir.len()).filter(|&o| o < k || o >= end).find(|&o| Some(o) != jump && ir[o].op.jump_target().is_some_and(inside)) {
        return Err(err(o, "a jump from outside lands inside it"));
    }
    if let Some(o) = (f..body_end).find(|&e| ir[e].op.jump_target().is_some_and(|t| t < ir[f].offset || t > exit)) {
        return Err(err(o, "a jump inside it leaves it"));
    }
    // A slot bound as a plain local is only read and stored as one in the body; a
    // nested comprehension (outlined before, reading the slot as the function's
    // cell) or a cell access to it is refused rather than misread.
    if !plain_cells.is_empty() {
        let cell_access = |op: &Op| match *op {
            Op::LoadDeref(y) | Op::StoreDeref(y) | Op::DeleteDeref(y) | Op::LoadClosure(y) | Op::DeleteFast(y) => plain_cells.contains(&y),
            Op::InlinedComp(_) => true,
            _ => false,
        };
        if let Some(o) = (f..body_end).find(|&e| cell_access(&ir[e].op)) {
            return Err(err(o, "a cell variable of its function that the comprehension binds as a plain local, used as a cell or by a nested comprehension: not supported by the decompiler yet"));
        }
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
    sub.extend(ir[f..after_loop].iter().cloned());
    let mut ret = ir[body_end].clone();
    ret.op = Op::Return;
    ret.opname = "RETURN_VALUE";
    sub.push(ret);
    Ok(Region { body: sub, kind, consumer, jump, epilogue: ep, end, late_iter, plain_cells })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use depyf_bytecode::{read_pyc, CodeObject, Constant};
    use depyf_ir::{normalize, Op};

    use super::outline;
    use crate::Options;

    /// The function `name` of the golden fixture `functions.pyc` of `tag` (`"py312"`).
    fn fixture(tag: &str, name: &str) -> CodeObject {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pyc").join(tag).join("functions.pyc");
        let module = read_pyc(&std::fs::read(&path).unwrap()).unwrap();
        module
            .code
            .co_consts
            .iter()
            .find_map(|c| match c {
                Constant::Code(c) if c.co_name == name => Some((**c).clone()),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn list_dict_set_comprehensions_become_one_op_each() {
        for tag in ["py312", "py313"] {
            let code = fixture(tag, "comprehensions");
            let (ir, inlined, saved) = outline(&code, normalize(&code).unwrap(), &Options::default()).unwrap();
            let printed: Vec<String> = inlined.iter().map(|e| depyf_source::print_expr(e)).collect();
            assert_eq!(printed, ["{x for x in .0}", "{x: x for x in .0}", "[x for x in .0 if x]"], "{tag}");
            assert_eq!(ir.iter().filter(|i| matches!(i.op, Op::InlinedComp(_))).count(), 3);
            // Only the ops keep the prologue's opname (for error messages).
            assert!(ir.iter().filter(|i| i.opname == "LOAD_FAST_AND_CLEAR").all(|i| matches!(i.op, Op::InlinedComp(_))));
            assert_eq!(saved.len(), 3);
        }
    }

    #[test]
    fn the_315_layout_gets_its_get_iter_before_the_op() {
        let code = fixture("py315", "comprehensions");
        let (ir, inlined, _) = outline(&code, normalize(&code).unwrap(), &Options::default()).unwrap();
        let printed: Vec<String> = inlined.iter().map(|e| depyf_source::print_expr(e)).collect();
        assert_eq!(printed, ["{x for x in .0}", "{x: x for x in .0}", "[x for x in .0 if x]"]);
        for (k, i) in ir.iter().enumerate().filter(|(_, i)| matches!(i.op, Op::InlinedComp(_))) {
            assert_eq!(ir[k - 1].op, Op::GetIter, "{k}");
            assert_eq!(ir[k - 1].offset, i.offset);
        }
    }

    #[test]
    fn a_prologue_without_its_swap_is_refused() {
        let code = fixture("py312", "comprehensions");
        let mut ir = normalize(&code).unwrap();
        let k = ir.iter().position(|i| i.opname == "LOAD_FAST_AND_CLEAR").unwrap();
        assert_eq!(ir[k + 1].op, Op::Swap(2));
        ir[k + 1].op = Op::Nop;
        let err = outline(&code, ir, &Options::default()).unwrap_err();
        assert!(err.to_string().contains("the saved locals are not followed by SWAP"), "{err}");
    }
}
