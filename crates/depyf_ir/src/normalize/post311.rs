//! What CPython 3.12 and later share, parameterized by the few facts that differ
//! between them ([`Family`]): where the NULL of a call sits, whether `KW_NAMES` or
//! `CALL_KW` names keyword arguments, what follows the `END_FOR` that `FOR_ITER`
//! jumps over, and whether `CALL_FUNCTION_EX` always has a kwargs slot. Each version
//! module states its `Family` and handles its own opcodes before calling [`op`].
//! Semantics from each version's `Lib/dis.py` documentation and `dis.stack_effect`.
//!
//! **`FOR_ITER` / `END_FOR`.** `dis` shows `FOR_ITER`'s jump landing on `END_FOR`
//! with the stack as if `next` had been pushed (`dis.stack_effect(FOR_ITER, jump=True)`
//! is +1) and `END_FOR` popping it together with the iterator. What runs is different:
//! the exhausted `FOR_ITER` pops the iterator (3.12-3.13) and jumps *over* `END_FOR`
//! (3.12), over `END_FOR` + `POP_TOP` (3.13), or over `END_FOR` onto `POP_ITER`, which
//! pops the iterator (3.14). The normalized [`Op::ForIter`] keeps the pre-3.12 meaning
//! (`(iter -- )` on the jump edge) and targets the first instruction after
//! [`Family::for_iter_skips`]; those skipped instructions (dead code) become `Nop`s. An
//! `END_FOR` that is not a `FOR_ITER` exit takes the error path.
//!
//! Exceptions, `with`, generators and coroutines, pattern matching and the type
//! parameter intrinsics take the error path until they are normalized.

use rustc_hash::FxHashMap as HashMap;

use depyf_bytecode::{Opname, table_for, Argval};

use super::common::{emit_same_everywhere, Cx};
use super::IrError;
use crate::{CallLayout, Op, UnaryOp};

/// The facts that distinguish 3.12 and later versions from each other.
pub(super) struct Family {
    /// Where the NULL of `LOAD_GLOBAL`, method `LOAD_ATTR`/`LOAD_SUPER_ATTR` and `CALL`
    /// sits: below the callable (3.12) or above it (3.13+).
    pub layout: CallLayout,
    /// Opnames after `FOR_ITER`'s target `END_FOR` that the exhausted loop also skips.
    pub for_iter_skips: &'static [&'static str],
    /// 3.14+: `CALL_FUNCTION_EX` has no oparg and always pops a kwargs slot, NULL
    /// (a `PUSH_NULL` right before) when there are no `**kwargs`.
    pub call_ex_kwargs_slot: bool,
    /// The version's own opcodes (and those it gives another meaning), tried before
    /// the shared ones. `None` for a version without opcodes of its own.
    pub own: Option<OwnOps>,
}

/// A version's normalizer of its own opcodes (see [`Family::own`]).
pub(super) struct OwnOps {
    /// The opnames that `op` may normalize: it is called for these only (a call per
    /// instruction, with its `Result<Option<Op>>` passed back, cost about 1% of a
    /// 3.15 run, issue #7). Debug builds check, at every other instruction, that `op`
    /// would have left it alone.
    pub opnames: &'static [Opname],
    /// The op of instruction `k`, `Ok(None)` for an opcode it leaves to the shared ones.
    pub op: fn(&Cx<'_>, usize) -> Result<Option<Op>, IrError>,
}

/// Where the `FOR_ITER`s of a code object go when their iterator is exhausted.
pub(super) struct Loops {
    /// `FOR_ITER` offset → normalized target.
    exits: HashMap<u32, u32>,
    /// By instruction index: whether the instruction is part of a `FOR_ITER`'s
    /// skipped tail (`END_FOR` and what follows it), which no control reaches. Empty
    /// for code without `FOR_ITER`. Asked for every instruction: an index, not a
    /// hash of the offset.
    dead: Vec<bool>,
}

impl Loops {
    /// Finds every `FOR_ITER`'s exit; errors if its target is not `END_FOR` followed by
    /// the family's skipped instructions.
    pub fn scan(cx: &Cx<'_>, fam: &Family) -> Result<Self, IrError> {
        let mut loops = Loops { exits: HashMap::default(), dead: Vec::new() };
        // The jump targets of the other instructions, sorted; made at the first
        // `FOR_ITER` (code without loops needs none).
        let mut other_targets: Option<Vec<u32>> = None;
        for (k, i) in cx.ins.iter().enumerate() {
            if i.id != Opname::FOR_ITER {
                continue;
            }
            let other_targets = other_targets.get_or_insert_with(|| {
                let mut t: Vec<u32> = cx.ins.iter().filter(|i| i.id != Opname::FOR_ITER).filter_map(|i| i.jump_target()).collect();
                t.sort_unstable();
                t
            });
            let bad = || cx.err(k, "FOR_ITER does not jump to END_FOR");
            let t = cx.at_offset(cx.target(k)).ok_or_else(bad)?;
            if cx.ins[t].opname != "END_FOR" {
                return Err(bad());
            }
            let mut last = t;
            for want in fam.for_iter_skips {
                last += 1;
                if cx.ins.get(last).map(|i| i.opname) != Some(*want) {
                    return Err(cx.err(k, format!("FOR_ITER's END_FOR is not followed by {want}")));
                }
            }
            if loops.dead.is_empty() {
                loops.dead = vec![false; cx.ins.len()];
            }
            for j in t..=last {
                if other_targets.binary_search(&cx.ins[j].offset).is_ok() {
                    return Err(cx.err(k, "another jump lands in FOR_ITER's END_FOR tail"));
                }
                loops.dead[j] = true;
            }
            loops.exits.insert(i.offset, cx.ins[last].end_offset());
        }
        Ok(loops)
    }

    /// Whether instruction `k` is part of a `FOR_ITER`'s skipped tail.
    pub fn is_dead(&self, k: usize) -> bool {
        self.dead.get(k).copied().unwrap_or(false)
    }
}

/// CPython 3.12+ has no backward conditional jumps: where 3.11 jumps back to a loop
/// header on a condition (`POP_JUMP_BACKWARD_IF_FALSE top`), 3.12+ jumps forward on
/// the opposite condition over an unconditional `JUMP_BACKWARD top`
/// (`Python/flowgraph.c` `normalize_jumps_in_block`). For a conditional jump `k`
/// whose target is right after such a `JUMP_BACKWARD` (a `NOT_TAKEN` may sit
/// between), which nothing else jumps to: `Some((the loop target, how many
/// instructions after k to drop))`, so that the pair reads as the one conditional
/// jump it was made from and the loop shapes are those of 3.11. `None` when the
/// `JUMP_BACKWARD` starts a line other than the test's (a `continue` statement).
fn backward_over(cx: &Cx<'_>, k: usize) -> Option<(u32, usize)> {
    let i = &cx.ins[k];
    if !matches!(i.id, Opname::POP_JUMP_IF_FALSE | Opname::POP_JUMP_IF_TRUE | Opname::POP_JUMP_IF_NONE | Opname::POP_JUMP_IF_NOT_NONE) {
        return None;
    }
    let mut j = k + 1;
    if cx.ins.get(j)?.opname == "NOT_TAKEN" {
        j += 1;
    }
    let back = cx.ins.get(j)?;
    let after = cx.ins.get(j + 1)?;
    if back.opname != "JUMP_BACKWARD" || i.jump_target()? != after.offset {
        return None;
    }
    // A `JUMP_BACKWARD` on a line of its own is the `continue` statement of
    // `if c: continue` (written on two lines), not the compiler's inversion of a
    // jump: kept as a block of its own, it reads back as that `if`, which 3.11
    // compiles the same way (a forward jump over the `continue`). The copy the
    // compiler makes keeps the line of the test.
    if back.starts_line && back.line_number.is_some() && back.line_number != i.line_number {
        return None;
    }
    let target = back.jump_target()?;
    let landed = |off: u32| cx.ins.iter().any(|x| x.jump_target() == Some(off));
    if cx.ins[k + 1..=j].iter().any(|x| landed(x.offset)) {
        return None;
    }
    Some((target, j - k))
}

/// Whether the `TO_BOOL` at `k` (CPython 3.13+) only feeds a truth test: the next
/// instruction (after its `EXTENDED_ARG` prefixes) is `POP_JUMP_IF_FALSE`/`_TRUE`
/// or `UNARY_NOT`, which read the truth of any value themselves (CPython 3.13
/// `Python/codegen.c` emits `TO_BOOL` before them). False when the converted value
/// itself is used (stored, returned, an operand).
fn to_bool_tests(cx: &Cx<'_>, k: usize) -> bool {
    let mut j = k + 1;
    while cx.ins.get(j).is_some_and(|i| i.opname == "EXTENDED_ARG") {
        j += 1;
    }
    cx.ins.get(j).is_some_and(|i| matches!(i.id, Opname::POP_JUMP_IF_FALSE | Opname::POP_JUMP_IF_TRUE | Opname::UNARY_NOT))
}

/// Normalizes instruction `k` with the meanings shared by 3.12 and later, the facts of
/// family `fam`. Inlined into each version's loop, where `fam` is a constant.
#[inline(always)]
pub(super) fn op(cx: &mut Cx<'_>, fam: &Family, loops: &Loops, k: usize) -> Result<(), IrError> {
    let i = &cx.ins[k];
    if loops.is_dead(k) {
        cx.emit(k, Op::Nop);
        return Ok(());
    }
    if let Some(own) = &fam.own {
        if own.opnames.contains(&i.id) {
            if let Some(op) = (own.op)(cx, k)? {
                cx.emit(k, op);
                return Ok(());
            }
        } else {
            debug_assert!(matches!((own.op)(cx, k), Ok(None)), "{} is normalized by the version's own ops but missing from their opnames", i.opname);
        }
    }
    // The `LOAD_CONST` of each shape loads `None`; most load something else.
    let shape = super::post311_exc::may_start_shape(i.id) && (i.id != Opname::LOAD_CONST || super::post311_exc::is_none(cx.code, i));
    if shape && super::post311_exc::op(cx, k)? {
        return Ok(());
    }
    // Only a conditional jump can be inverted over a `JUMP_BACKWARD` (asked here, the
    // other instructions skip the call).
    let conditional = matches!(i.id, Opname::POP_JUMP_IF_FALSE | Opname::POP_JUMP_IF_TRUE | Opname::POP_JUMP_IF_NONE | Opname::POP_JUMP_IF_NOT_NONE);
    if let Some((back, skipped)) = if conditional { backward_over(cx, k) } else { None } {
        // The jump as written, then turned around.
        if !emit_same_everywhere(cx, k)? {
            unreachable!("a conditional jump means the same everywhere");
        }
        let last = cx.out.last_mut().expect("just emitted");
        last.op = match last.op {
            Op::JumpIf { when, .. } => Op::JumpIf { when: !when, target: back },
            Op::JumpIfNone { when, .. } => Op::JumpIfNone { when: !when, target: back },
            _ => unreachable!("backward_over only accepts conditional jumps"),
        };
        cx.drop_more = skipped;
        return Ok(());
    }
    if emit_same_everywhere(cx, k)? {
        return Ok(());
    }
    let arg = cx.arg(k);
    let idx = cx.idx(k);
    let layout = fam.layout;
    let op = match i.id {
        // `TO_BOOL` before a conditional jump or a `UNARY_NOT` only prepares the test
        // (both take any value's truth): no op. Anywhere else its bool result is used
        // as a value: CPython 3.13+ `Python/flowgraph.c` (`optimize_basic_block`)
        // folds `not not x` (`TO_BOOL, UNARY_NOT, TO_BOOL, UNARY_NOT`) into a lone
        // `TO_BOOL`, which reads back as those two negations (`bool(x)` would be a
        // call). Dropping it would lose the conversion.
        Opname::TO_BOOL if !to_bool_tests(cx, k) => {
            cx.emit(k, Op::Unary(UnaryOp::Not));
            Op::Unary(UnaryOp::Not)
        }
        Opname::TO_BOOL | Opname::NOT_TAKEN => Op::Nop,
        // Inlined comprehensions (PEP 709) save the outer binding with
        // LOAD_FAST_AND_CLEAR and restore it with STORE_FAST; the clearing is not an
        // op of its own, the opname on the IrInstr still says it.
        // A cell of the enclosing function that an inlined comprehension also binds
        // reads as the plain load of the slot, like any save: the outliner
        // (`depyf_decompile` `inline_comp`) tells from the `MAKE_CELL` after it
        // whether the comprehension's variable is a cell too (a closure in it
        // captures it) or a plain local (the slot then holds plain values inside
        // the comprehension), and reads the comprehension's body accordingly.
        // CPython 3.12 `Python/compile.c` `push_inlined_comprehension_state`.
        // `MAKE_CELL` only starts the frame, or makes the cell of an inlined
        // comprehension right after saving that slot (above); the outliner reads it
        // as part of the comprehension's prologue.
        Opname::MAKE_CELL
            if cx.prev(k).is_some_and(|p| cx.ins[p].opname == "LOAD_FAST_AND_CLEAR") =>
        {
            let p = cx.prev(k).expect("checked");
            if cx.ins[p].oparg != i.oparg {
                return Err(cx.err(k, "MAKE_CELL after the save of another local of an inlined comprehension"));
            }
            Op::FrameSetup
        }
        Opname::LOAD_FAST_CHECK | Opname::LOAD_FAST_AND_CLEAR | Opname::LOAD_FAST_BORROW => Op::LoadFast(idx),
        Opname::LOAD_FAST_LOAD_FAST | Opname::STORE_FAST_LOAD_FAST | Opname::STORE_FAST_STORE_FAST
        | Opname::LOAD_FAST_BORROW_LOAD_FAST_BORROW => {
            let Argval::LocalPair(a, b) = i.argval else { return Err(cx.err(k, "no local pair")) };
            // Whether each access stores, from the opname (`STORE_FAST_LOAD_FAST`: the
            // first stores, the second loads).
            let (store1, store2) = match i.id {
                Opname::STORE_FAST_LOAD_FAST => (true, false),
                Opname::STORE_FAST_STORE_FAST => (true, true),
                _ => (false, false),
            };
            let one = |store: bool, x| if store { Op::StoreFast(x) } else { Op::LoadFast(x) };
            // The high nibble is the first access: `STORE_FAST_STORE_FAST` stores the
            // top of stack into it.
            let (op1, op2) = (one(store1, a as usize), one(store2, b as usize));
            cx.emit(k, op1);
            op2
        }
        Opname::LOAD_GLOBAL => {
            if arg & 1 == 1 {
                let (lo, hi) = match layout {
                    CallLayout::NullFirst => (Op::PushNull, Op::LoadGlobal(idx)),
                    _ => (Op::LoadGlobal(idx), Op::PushNull),
                };
                cx.emit(k, lo);
                hi
            } else {
                Op::LoadGlobal(idx)
            }
        }
        Opname::LOAD_ATTR if arg & 1 == 1 => Op::LoadMethod(idx, layout),
        Opname::LOAD_ATTR => Op::LoadAttr(idx),
        // Low bit: method load; second bit: two-argument `super(cls, obj)`.
        Opname::LOAD_SUPER_ATTR => Op::LoadSuperAttr { name: idx, method: (arg & 1 == 1).then_some(layout), two_args: arg & 2 != 0 },
        // 3.12 only (3.13 has CALL_KW).
        Opname::KW_NAMES => {
            cx.kwnames = Some(idx);
            Op::Nop
        }
        Opname::CALL => Op::Call { argc: arg, kwnames: cx.kwnames.take(), layout },
        Opname::CALL_KW => {
            let kw = cx.fold_kwnames(k)?;
            Op::Call { argc: arg, kwnames: Some(kw), layout }
        }
        Opname::CALL_FUNCTION_EX if fam.call_ex_kwargs_slot => {
            let null_kwargs = cx.prev(k).filter(|&j| cx.ins[j].opname == "PUSH_NULL");
            if let Some(j) = null_kwargs {
                cx.absorb(j);
            }
            Op::CallEx { has_kwargs: null_kwargs.is_none(), layout }
        }
        Opname::CALL_FUNCTION_EX => Op::CallEx { has_kwargs: arg & 1 == 1, layout },
        Opname::RETURN_CONST => {
            cx.emit(k, Op::LoadConst(idx));
            Op::Return
        }
        // `(container, start, stop -- value)`.
        Opname::BINARY_SLICE => {
            cx.emit(k, Op::BuildSlice(2));
            Op::BinarySubscr
        }
        // `(value, container, start, stop -- )`.
        Opname::STORE_SLICE => {
            cx.emit(k, Op::BuildSlice(2));
            Op::StoreSubscr
        }
        Opname::CALL_INTRINSIC_1 => {
            let table = table_for(cx.code.version).expect("decoded, so a table exists");
            match table.intrinsic1.get(arg as usize).copied() {
                Some("INTRINSIC_UNARY_POSITIVE") => Op::Unary(UnaryOp::Pos),
                Some("INTRINSIC_LIST_TO_TUPLE") => Op::ListToTuple,
                // `(module -- None)` and the compiler's POP_TOP of that None: together
                // the `(module -- )` of IMPORT_STAR.
                Some("INTRINSIC_IMPORT_STAR") if cx.next(k).map(|n| n.opname) == Some("POP_TOP") => {
                    cx.emit(k, Op::ImportStar);
                    cx.skip_next = true;
                    return Ok(());
                }
                Some(name @ ("INTRINSIC_TYPEVAR" | "INTRINSIC_PARAMSPEC" | "INTRINSIC_TYPEVARTUPLE" | "INTRINSIC_TYPEALIAS" | "INTRINSIC_SUBSCRIPT_GENERIC")) => Op::Intrinsic1(name),
                _ => return Err(cx.unsupported(k)),
            }
        }
        Opname::CALL_INTRINSIC_2 => {
            let table = table_for(cx.code.version).expect("decoded, so a table exists");
            match table.intrinsic2.get(arg as usize).copied() {
                Some(name @ ("INTRINSIC_SET_FUNCTION_TYPE_PARAMS" | "INTRINSIC_TYPEVAR_WITH_BOUND" | "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS")) => Op::Intrinsic2(name),
                _ => return Err(cx.unsupported(k)),
            }
        }
        // 3.12: flags as before 3.11; 3.13+: no oparg, SET_FUNCTION_ATTRIBUTE follows.
        Opname::MAKE_FUNCTION => Op::MakeFunction { flags: arg, qualname: false },
        Opname::SET_FUNCTION_ATTRIBUTE => Op::SetFunctionAttribute(arg),
        Opname::FORMAT_VALUE => Op::FormatValue { conversion: arg & 3, with_spec: arg & 4 != 0 },
        Opname::CONVERT_VALUE => Op::ConvertValue(arg),
        Opname::FORMAT_SIMPLE => Op::FormatValue { conversion: 0, with_spec: false },
        Opname::FORMAT_WITH_SPEC => Op::FormatValue { conversion: 0, with_spec: true },
        Opname::GET_ITER => Op::GetIter,
        Opname::FOR_ITER => Op::ForIter(loops.exits[&i.offset]),
        Opname::MATCH_SEQUENCE => Op::MatchSequence,
        Opname::MATCH_MAPPING => Op::MatchMapping,
        Opname::MATCH_KEYS => Op::MatchKeys,
        Opname::MATCH_CLASS => Op::MatchClass(arg),
        Opname::GET_LEN => Op::GetLen,
        _ => return Err(cx.unsupported(k)),
    };
    cx.emit(k, op);
    Ok(())
}

