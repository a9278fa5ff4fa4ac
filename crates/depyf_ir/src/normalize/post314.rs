//! What CPython 3.14 and later share beyond `post311`: stack slots that the
//! interpreter keeps for itself and no source expression stands for, which the
//! normalized ops (one slot per value, as in 3.13) leave out.
//!
//! - **The `self` of a `with`'s `__exit__` (3.14+).** `BEFORE_WITH` is gone: `with m`
//!   is `COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__; CALL 0`
//!   (CPython 3.14 `Python/codegen.c`, `codegen_with`), leaving `exit_func, self,
//!   result`, where 3.13 left `exit, result`. `LOAD_SPECIAL` is `(owner -- method,
//!   self_or_null)` (`Python/bytecodes.c`). The sequence is [`Op::BeforeWith`] (see
//!   [`with_enter`]); the exit calls `exit_func(self, None, None, None)` (`CALL 3` over
//!   three `None`s and a `POP_TOP`) are [`Op::WithExit`], and the handler's `POP_TOP` of
//!   `self` a `Nop`.
//! - **`async with` (3.14+)** is the same with `LOAD_SPECIAL 3 (__aexit__)`, `LOAD_SPECIAL
//!   2 (__aenter__)` and `GET_AWAITABLE 1` and an `await` after the `__aenter__()` call
//!   ([`Op::BeforeAsyncWith`], see [`async_with_enter`]); its normal exit awaits the
//!   result of `exit_func(self, None, None, None)` before the `POP_TOP` (the `await`
//!   is folded into [`Op::WithExit`]); the exceptional exit awaits what
//!   `WITH_EXCEPT_START` returns (read as `await __with_suppress__`).
//! - **The index of a `for` loop's iterator (3.15).** See `py315`.
//! - **The inlined fast path of `all`/`any`/`tuple`/`list`/`set` over a generator
//!   expression (3.14+)**, which has no source of its own: [`inlined_builtin_call`].
//!
//! [`drop_hidden_slots`] follows the slots along the control flow and the exception
//! edges and does the rewriting; the hidden slots it counts under each handler lower
//! the handlers' depths in `protected_ranges` (through each version's
//! `handler_hidden_slots`).

use rustc_hash::FxHashMap as HashMap;

use depyf_bytecode::{parse_exception_table, CodeObject, Constant, Instruction};

use super::common::Cx;
use super::{IrError, IrInstr};
use crate::Op;

/// The sequence of a 3.14+ `with` entry.
const WITH_ENTER: [(&str, u32); 6] = [("COPY", 1), ("LOAD_SPECIAL", 1), ("SWAP", 2), ("SWAP", 3), ("LOAD_SPECIAL", 0), ("CALL", 0)];

/// Whether instruction `k` starts `COPY 1; LOAD_SPECIAL 1 (__exit__); SWAP 2; SWAP 3;
/// LOAD_SPECIAL 0 (__enter__); CALL 0`. `LOAD_SPECIAL`'s oparg indexes
/// `dis._special_method_names` (`__enter__`, `__exit__`, `__aenter__`, `__aexit__`).
pub(super) fn is_with_enter(ins: &[Instruction], k: usize) -> bool {
    ins.len() >= k + WITH_ENTER.len()
        && WITH_ENTER.iter().enumerate().all(|(j, (name, arg))| ins[k + j].opname == *name && ins[k + j].oparg == Some(*arg))
}

/// Emits [`Op::BeforeWith`] for the `with` entry at `k` ([`is_with_enter`]); the five
/// instructions after it become `Nop`s.
pub(super) fn with_enter(cx: &mut Cx<'_>, k: usize) {
    cx.emit(k, Op::BeforeWith);
    cx.skip_more = WITH_ENTER.len() - 1;
}

/// The sequence of a 3.14+ `async with` entry, before the `await` of `__aenter__()`.
const ASYNC_WITH_ENTER: [(&str, u32); 7] =
    [("COPY", 1), ("LOAD_SPECIAL", 3), ("SWAP", 2), ("SWAP", 3), ("LOAD_SPECIAL", 2), ("CALL", 0), ("GET_AWAITABLE", 1)];

/// When instruction `k` starts the entry of a 3.14+ `async with` (CPython 3.14
/// `Python/codegen.c`, `codegen_async_with`): `COPY 1; LOAD_SPECIAL 3 (__aexit__);
/// SWAP 2; SWAP 3; LOAD_SPECIAL 2 (__aenter__); CALL 0; GET_AWAITABLE 1` and the
/// `await` loop after it, the number of instructions after `k` that belong to it.
/// `None` for anything else.
pub(super) fn async_with_enter(code: &CodeObject, ins: &[Instruction], k: usize) -> Option<usize> {
    let n = ASYNC_WITH_ENTER.len();
    let shape = ins.len() >= k + n && ASYNC_WITH_ENTER.iter().enumerate().all(|(j, (name, arg))| ins[k + j].opname == *name && ins[k + j].oparg == Some(*arg));
    if !shape {
        return None;
    }
    Some(n - 1 + super::post311_async::await_tail(code, ins, k + n - 1)?)
}

/// Emits [`Op::BeforeAsyncWith`] for the `async with` entry at `k` (`n` from
/// [`async_with_enter`]); the instructions after it become `Nop`s. Its exits are those
/// of a 3.14 `with` with an `await` after the `__exit__` call (see [`drop_hidden_slots`]).
pub(super) fn async_with_enter_emit(cx: &mut Cx<'_>, k: usize, n: usize) {
    cx.emit(k, Op::BeforeAsyncWith);
    cx.skip_more = n;
}

/// 3.14+ inlines `all`, `any`, `tuple` (3.15 also `list`, `set`) called on a
/// generator expression (CPython 3.14 `Python/codegen.c`,
/// `maybe_optimize_function_call`): `LOAD_GLOBAL f` (or the load of a local, cell or
/// module name `f`); `COPY 1; LOAD_COMMON_CONSTANT f;
/// IS_OP 0; POP_JUMP_IF_FALSE L` then a fast path that runs the loop itself, and at
/// `L` (`PUSH_NULL` ...) the ordinary call `f(genexpr)`, which does the same for the
/// builtin `f`. When instruction `k` is that `COPY 1`, returns the number of
/// instructions from it up to `L`: the test and the fast path, which become `Nop`s so
/// that the call alone is left (what the source says). `None` for anything else, or
/// when another jump or a handler lands inside.
pub(super) fn inlined_builtin_call(code: &CodeObject, ins: &[Instruction], k: usize) -> Option<usize> {
    let names = ["all", "any", "tuple", "list", "set"];
    let (load, copy) = (ins.get(k.checked_sub(1)?)?, &ins[k]);
    let (common, is, jump) = (ins.get(k + 1)?, ins.get(k + 2)?, ins.get(k + 3)?);
    // The function is loaded by its scope: a global or module name, or a local or cell
    // (`tuple=tuple` as a parameter, `functools._make_key`).
    let global = match load.argval {
        depyf_bytecode::Argval::Name(n) if load.opname == "LOAD_GLOBAL" && load.oparg? & 1 == 0 => code.co_names.get(n as usize)?,
        depyf_bytecode::Argval::Name(n) if load.opname == "LOAD_NAME" => code.co_names.get(n as usize)?,
        depyf_bytecode::Argval::Local(n) if matches!(load.opname, "LOAD_FAST" | "LOAD_FAST_BORROW" | "LOAD_FAST_CHECK" | "LOAD_DEREF") => code.co_localsplusnames.get(n as usize)?,
        // The second load of a superinstruction (`key += tuple(...)`).
        depyf_bytecode::Argval::LocalPair(_, n) if matches!(load.opname, "LOAD_FAST_LOAD_FAST" | "LOAD_FAST_BORROW_LOAD_FAST_BORROW") => code.co_localsplusnames.get(n as usize)?,
        _ => return None,
    };
    let constant = super::py314::COMMON_CONSTANTS.get(common.oparg? as usize)?;
    let shape = copy.opname == "COPY" && copy.oparg == Some(1)
        && common.opname == "LOAD_COMMON_CONSTANT"
        && *constant == &**global
        && names.contains(constant)
        && is.opname == "IS_OP" && is.oparg == Some(0)
        && jump.opname == "POP_JUMP_IF_FALSE";
    if !shape {
        return None;
    }
    let target = jump.jump_target()?;
    let end = ins.binary_search_by_key(&target, |i| i.offset).ok()?;
    if end <= k + 3 || ins[end].opname != "PUSH_NULL" {
        return None;
    }
    let (lo, hi) = (ins[k].offset, target);
    let inside = |t: u32| lo < t && t < hi;
    let jumps_in = ins[..k].iter().chain(&ins[end..]).any(|i| i.jump_target().is_some_and(inside));
    let handler_in = parse_exception_table(code).ok()?.iter().any(|r| inside(r.target));
    (!jumps_in && !handler_in).then_some(end - k)
}

fn loads_none(code: &CodeObject, op: &Op) -> bool {
    match op {
        Op::LoadConst(c) => matches!(code.co_consts.get(*c), Some(Constant::None)),
        Op::LoadCommonConstant(c) => *c == "None",
        _ => false,
    }
}

/// The op a 3.15 generator expression's call gets before it ([`Slot::Genexpr`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GenexprEntry {
    /// [`Op::GetIter`]: the first `for` of the generator expression is a plain one.
    Iter,
    /// [`Op::GetAIter`]: it is an `async for`.
    AIter,
}

/// A value-stack slot as [`drop_hidden_slots`] follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// A value of the program.
    Value,
    /// The index (or NULL) that 3.15's `GET_ITER` pushes above the iterator, or the
    /// `self` that 3.14's `with` keeps above `__exit__`.
    Index,
    /// A 3.15 generator expression's function, waiting for its iterable; the op that
    /// 3.14 put before the call (`GetIter`, or `GetAIter` for an async `for` first).
    Genexpr(GenexprEntry),
}

/// A value stack as [`drop_hidden_slots`] follows it: its depth and, bottom to top,
/// the slots that are not [`Slot::Value`] with their positions (counted from the
/// bottom, 0-based). Nearly every op only pops and pushes values, which is then a
/// subtraction and a look at the topmost such slot, where a slot per value made
/// every op copy and scan slots (issue #7 speed, 3.15: a `for` makes one).
/// Two stacks are equal when they have the same slots (the marks are kept sorted and
/// never hold a value, so the derived equality compares slot by slot).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Stack {
    len: u32,
    marks: smallvec::SmallVec<[(u32, Slot); 4]>,
}

impl Stack {
    fn len(&self) -> usize {
        self.len as usize
    }

    /// The slot at position `i` (from the bottom; `i < len`).
    fn get(&self, i: usize) -> Slot {
        self.marks.iter().rev().find(|m| m.0 as usize <= i).filter(|m| m.0 as usize == i).map_or(Slot::Value, |m| m.1)
    }

    fn last(&self) -> Option<Slot> {
        self.len().checked_sub(1).map(|i| self.get(i))
    }

    /// Sets the slot at position `i` (`i < len`), keeping the marks sorted.
    fn set(&mut self, i: usize, slot: Slot) {
        let at = self.marks.partition_point(|m| (m.0 as usize) < i);
        let here = self.marks.get(at).is_some_and(|m| m.0 as usize == i);
        match (here, slot) {
            (true, Slot::Value) => {
                self.marks.remove(at);
            }
            (true, _) => self.marks[at].1 = slot,
            (false, Slot::Value) => {}
            (false, _) => self.marks.insert(at, (i as u32, slot)),
        }
    }

    fn push(&mut self, slot: Slot) {
        if slot != Slot::Value {
            self.marks.push((self.len, slot));
        }
        self.len += 1;
    }

    fn push_values(&mut self, n: u32) {
        self.len += n;
    }

    fn pop(&mut self) -> Option<Slot> {
        self.len = self.len.checked_sub(1)?;
        match self.marks.last() {
            Some(&(p, slot)) if p == self.len => {
                self.marks.pop();
                Some(slot)
            }
            _ => Some(Slot::Value),
        }
    }

    /// Keeps the `n` bottom slots (`n <= len`).
    fn truncate(&mut self, n: usize) {
        self.len = n as u32;
        while self.marks.last().is_some_and(|m| m.0 as usize >= n) {
            self.marks.pop();
        }
    }

    /// The index slots among positions `lo..hi`.
    fn count_index(&self, lo: usize, hi: usize) -> u32 {
        self.marks.iter().filter(|m| m.1 == Slot::Index && (lo..hi).contains(&(m.0 as usize))).count() as u32
    }

    /// The `n` bottom slots, then `pushed` values (a handler's stack).
    fn prefix_then_values(&self, n: usize, pushed: u32) -> Stack {
        let kept = self.marks.iter().take_while(|m| (m.0 as usize) < n).copied().collect();
        Stack { len: n as u32 + pushed, marks: kept }
    }
}

/// Removes the hidden slots from normalized 3.14+ ops `ir` of instructions `ins`,
/// where they are still present: 3.15's `GET_ITER` is `GetIter` + `PushNull`, a
/// `PUSH_NULL` right before `FOR_ITER` is the index of an iterator already on the stack
/// (`any(genexpr)` inlined), 3.15's `POP_ITER` is two `PopTop`s, `ForIter` has the
/// index on top of the iterator (3.15), [`Op::BeforeWith`] leaves `exit_func, self,
/// result`, and a `with`'s exit is three `None` loads, a `Call` of 3 arguments and a
/// `PopTop`. Follows the kind of every stack slot along the control flow and the
/// exception edges, then turns the pushes and each `PopTop` of a hidden slot into
/// `Nop`s, each exit call into [`Op::WithExit`] (at the first `None` load, the rest
/// `Nop`s), and lowers the depth operands (`Swap`, `Copy`, `ListAppend`, `SetAdd`,
/// `MapAdd`, `ListExtend`, `SetUpdate`, `DictUpdate`) by the hidden slots they reach
/// over. With `genexpr_entry` (3.15), a call of a `<genexpr>` function gets the
/// `GetIter` or `GetAIter` that 3.15 moved into the generator (see `py315`) back
/// before it: `genexpr_entry` tells which from the generator's code object, `None`
/// for one whose start it does not know (then the call is left alone).
/// Returns, per handler offset, the hidden slots within its kept depth.
///
/// Errors (naming the instruction) where a path reaches an op with another stack
/// shape than an earlier path did, where an op other than those consumes, copies or
/// swaps an index slot, or where `FOR_ITER` does not find an iterator and its index on
/// top: shapes the compiler does not make.
pub(super) fn drop_hidden_slots(
    code: &CodeObject,
    ins: &[Instruction],
    ir: &mut Vec<IrInstr>,
    genexpr_entry: Option<fn(&CodeObject) -> Option<GenexprEntry>>,
) -> Result<HashMap<u32, u32>, IrError> {
    use Slot::{Genexpr, Index, Value};
    // Without an op that makes a hidden slot (no `with`, no 3.15 `for` or generator
    // expression: most code objects of 3.14), the walk below finds nothing to drop or
    // lower and every handler keeps none; it only copied stacks (a tenth of the time
    // of a whole 3.14 run, issue #7).
    let hides = |k: usize, i: &IrInstr| match i.op {
        Op::BeforeWith | Op::BeforeAsyncWith => true,
        Op::PushNull => i.opname == "GET_ITER" || ir.get(k + 1).is_some_and(|x| matches!(x.op, Op::ForIter(_))),
        Op::MakeFunction { .. } => k > 0 && genexpr_made(code, &ir[k - 1].op, genexpr_entry).is_some(),
        _ => false,
    };
    if !ir.iter().enumerate().any(|(k, i)| hides(k, i)) {
        return Ok(HashMap::default());
    }
    let err = |i: &IrInstr, m: String| IrError {
        code_name: code.co_qualname.clone(),
        offset: i.offset,
        opname: i.opname.to_string(),
        version: code.version,
        message: m,
    };
    let ranges = parse_exception_table(code).map_err(|e| IrError::from_bytecode(code, e))?;
    // The first op at an offset (the ops are in offset order).
    let first_at = |t: u32| -> Option<usize> {
        let k = ir.partition_point(|i| i.offset < t);
        (k < ir.len() && ir[k].offset == t).then_some(k)
    };
    // The handlers the compiler adds on its own have no source (their ranges are
    // dropped or take their handler's range, `protected_ranges`); a generator
    // expression's guard even keeps a depth deeper than the stack after its loop.
    let implicit: Vec<bool> = ranges
        .iter()
        .map(|r| ins.binary_search_by_key(&r.target, |i| i.offset).is_ok_and(|t| super::post311_exc::implicit_handler(code, ins, t)))
        .collect();
    let n = ir.len();
    // Per op, the handler ranges (not implicit) that cover it, in table order:
    // `cover[cover_at[k]..cover_at[k + 1]]`. Made once instead of scanning the whole
    // table at every visited op (the table is flat and its entries do not overlap
    // in what CPython writes, so this is about one entry per op). Without such a
    // range (most code objects) no op has one and nothing is made.
    let handled = implicit.iter().any(|&imp| !imp);
    let span = |r: &depyf_bytecode::ExceptionTableEntry| (ir.partition_point(|i| i.offset < r.start), ir.partition_point(|i| i.offset < r.end));
    let (mut cover_at, mut cover) = (Vec::new(), Vec::new());
    if handled {
        cover_at = vec![0usize; n + 1];
        for (r, _) in ranges.iter().zip(&implicit).filter(|(_, &imp)| !imp) {
            let (a, b) = span(r);
            for c in &mut cover_at[a + 1..b + 1] {
                *c += 1;
            }
        }
        for k in 0..n {
            cover_at[k + 1] += cover_at[k];
        }
        cover = vec![0usize; cover_at[n]];
        let mut fill = cover_at.clone();
        for (ri, (r, _)) in ranges.iter().zip(&implicit).enumerate().filter(|(_, (_, &imp))| !imp) {
            let (a, b) = span(r);
            for f in &mut fill[a..b] {
                cover[*f] = ri;
                *f += 1;
            }
        }
    }
    // Per range: the first op of its handler (looked up once, not at every op it
    // covers; `None` reported when an op of the range is visited), and the index of
    // its handler among the distinct handlers, for the hidden slots counted under it.
    let range_target: Vec<Option<usize>> = ranges.iter().map(|r| first_at(r.target)).collect();
    let mut handler_of: HashMap<u32, usize> = HashMap::default();
    let range_handler: Vec<usize> = ranges
        .iter()
        .map(|r| {
            let next = handler_of.len();
            *handler_of.entry(r.target).or_insert(next)
        })
        .collect();
    let mut handler_hidden: Vec<Option<u32>> = vec![None; handler_of.len()];
    // Where more than one path may arrive: the first op of a jump target or of a
    // handler. Any other op is reached only by falling through from the op before
    // it, so its stack is carried on from that op (visited just before, as a stored
    // state would be) instead of stored and compared. Per op, the index of its
    // stored stack in `state` (the entry's and the joins' only), or `NO_STATE`.
    const NO_STATE: u32 = u32::MAX;
    let mut state_of = vec![NO_STATE; n];
    let mut joins = 0u32;
    let targets = ir.iter().filter_map(|i| i.op.jump_target()).filter_map(first_at);
    let handler_targets = ranges.iter().zip(&implicit).filter(|(_, &imp)| !imp).filter_map(|(r, _)| first_at(r.target));
    for t in (0..n.min(1)).chain(targets).chain(handler_targets) {
        if state_of[t] == NO_STATE {
            state_of[t] = joins;
            joins += 1;
        }
    }
    let join = |k: usize| state_of[k] != NO_STATE;
    let mut state: Vec<Option<Stack>> = vec![None; joins as usize];
    // The ops rewritten, in the order decided (a later one for the same op wins).
    let mut rewrite: Vec<(usize, Op)> = Vec::new();
    let mut get_iter_before: Vec<(usize, GenexprEntry)> = Vec::new();
    let mut work: Vec<usize> = Vec::new();
    if n > 0 {
        state[0] = Some(Stack::default());
        work.push(0);
    }
    // The stack an op falls through with to an op that is not a join.
    let mut carried: Option<(usize, Stack)> = None;
    // Per op, reused: its handlers (first op, and the stack the handler starts with:
    // the slots below the handler's depth, then the exception and, with lasti, the
    // offset below it) and the stacks it leaves on its other edges.
    let mut handlers: Vec<(usize, Stack)> = Vec::new();
    let mut out: Vec<(usize, Stack)> = Vec::new();
    // The ops that the general path below gives the `_` arm whenever no hidden slot
    // lies among the slots they pop: the guards of the other arms they could meet
    // (`PopTop`, `SetFunctionAttribute`, a `Call` with arguments) look only at those
    // slots, while `CALL 0` looks one below (a generator expression's function). Such
    // an op, not covered by a handler, is taken in a tight loop that falls from op
    // to op without the per-op bookkeeping of the general path (nearly every op of a
    // 3.15 function with a `for`: a sixth fewer instructions for the walk).
    let plain = |op: &Op| {
        !matches!(
            op,
            Op::PushNull
                | Op::BeforeWith
                | Op::BeforeAsyncWith
                | Op::ForIter(_)
                | Op::Call { argc: 0, .. }
                | Op::Swap(_)
                | Op::Copy(_)
                | Op::ListAppend(_)
                | Op::ListExtend(_)
                | Op::SetAdd(_)
                | Op::SetUpdate(_)
                | Op::DictUpdate(..)
                | Op::MapAdd(_)
                | Op::MakeFunction { .. }
                | Op::Rot(_)
        ) && op.jump_target().is_none()
    };
    'paths: loop {
        let (mut k, mut s) = match carried.take() {
            Some(c) => c,
            None => match work.pop() {
                Some(k) => (k, state[state_of[k] as usize].clone().expect("queued with a state")),
                None => break,
            },
        };
        while !(handled && cover_at[k] != cover_at[k + 1]) && plain(&ir[k].op) {
            let op = &ir[k].op;
            let (p, q) = op.stack_effect();
            let Some(below) = s.len().checked_sub(p as usize) else { break };
            if s.marks.last().is_some_and(|m| (m.0 as usize) >= below) {
                break;
            }
            s.len = (below as u32) + q;
            if op.is_terminator() || k + 1 == n {
                continue 'paths;
            }
            if join(k + 1) {
                arrive(&mut state, &state_of, &mut work, k + 1, s).map_err(|m| err(&ir[k + 1], m))?;
                continue 'paths;
            }
            k += 1;
        }
        let here = &ir[k];
        handlers.clear();
        let covering = if handled { &cover[cover_at[k]..cover_at[k + 1]] } else { &[][..] };
        for &ri in covering {
            let r = &ranges[ri];
            let depth = r.depth as usize;
            if s.len() < depth {
                return Err(err(here, format!("the stack is shallower than the handler's depth {depth}")));
            }
            let fix = s.count_index(0, depth);
            if *handler_hidden[range_handler[ri]].get_or_insert(fix) != fix {
                return Err(err(here, "the handler's kept stack differs between its ranges".into()));
            }
            let t = range_target[ri].ok_or_else(|| err(here, format!("no instruction at handler offset {}", r.target)))?;
            handlers.push((t, s.prefix_then_values(depth, if r.lasti { 2 } else { 1 })));
        }
        let pop = |s: &mut Stack, p: u32, what: &str| -> Result<(), IrError> {
            for _ in 0..p {
                match s.pop() {
                    Some(Value | Genexpr(_)) => {}
                    Some(Index) => return Err(err(here, format!("{what} consumes an iterator index slot"))),
                    None => return Err(err(here, "stack underflow".into())),
                }
            }
            Ok(())
        };
        // Lowers depth operand `d` (counted from the top of `s`, 1-based) by the index
        // slots above the slot it names, which must be a value.
        let lower = |s: &Stack, d: u32| -> Result<u32, IrError> {
            let d = d as usize;
            if d == 0 || d > s.len() || s.get(s.len() - d) == Index {
                return Err(err(here, format!("depth operand {d} does not name a value")));
            }
            Ok((d as u32) - s.count_index(s.len() - d, s.len()))
        };
        let op = &here.op;
        let made = match op {
            Op::MakeFunction { .. } if k > 0 => genexpr_made(code, &ir[k - 1].op, genexpr_entry),
            _ => None,
        };
        let mut jump: Option<Stack> = None;
        match *op {
            Op::PushNull if here.opname == "GET_ITER" || ir.get(k + 1).is_some_and(|x| matches!(x.op, Op::ForIter(_))) => {
                s.push(Index);
                rewrite.push((k, Op::Nop));
            }
            Op::BeforeWith | Op::BeforeAsyncWith => {
                pop(&mut s, 1, here.opname)?;
                s.push(Value);
                s.push(Index);
                s.push(Value);
            }
            // 3.15: iterator and index; 3.14: the iterator alone.
            Op::ForIter(_) => {
                let slots = if s.len() >= 2 && s.get(s.len() - 1) == Index && s.get(s.len() - 2) == Value { 2 } else { 1 };
                if s.len() < slots || s.get(s.len() - slots) == Index {
                    return Err(err(here, "FOR_ITER without its iterator on top".into()));
                }
                let mut j = s.clone();
                j.truncate(j.len() - slots);
                jump = Some(j);
                s.push(Value);
            }
            Op::Call { argc, .. } if s.len() > argc as usize && s.get(s.len() - argc as usize - 1) == Index => {
                // `async with`: the result is awaited (`Op::Await` and the `Nop`s of its
                // loop) before the `POP_TOP`.
                let mut p = k + 1;
                let awaited = ir.get(p).is_some_and(|x| x.op == Op::Await);
                if awaited {
                    p += 1;
                    while ir.get(p).is_some_and(|x| x.op == Op::Nop) {
                        p += 1;
                    }
                }
                let next_pops = ir.get(p).is_some_and(|x| x.op == Op::PopTop);
                let nones = k >= 3 && ir[k - 3..k].iter().all(|x| loads_none(code, &x.op));
                if argc != 3 || !next_pops || !nones || s.len() < 5 || s.get(s.len() - 5) == Index {
                    return Err(err(here, "a call of a with's __exit__ that is not exit(None, None, None) with its result dropped".into()));
                }
                s.truncate(s.len() - 5);
                s.push(Value);
                rewrite.push((k - 3, Op::WithExit));
                rewrite.extend((k - 2..p + 1).map(|j| (j, Op::Nop)));
            }
            Op::PopTop if s.last() == Some(Index) => {
                s.pop();
                rewrite.push((k, Op::Nop));
            }
            Op::Swap(d) => {
                let du = d as usize;
                if du < 2 || du > s.len() {
                    return Err(err(here, format!("SWAP {d} deeper than the stack")));
                }
                let (top, other) = (s.len() - 1, s.len() - du);
                let (a, b) = (s.get(top), s.get(other));
                if a != Index && b != Index {
                    let d2 = lower(&s, d)?;
                    if d2 != d {
                        rewrite.push((k, Op::Swap(d2)));
                    }
                } else if s.count_index(other + 1, top) as usize == top - other - 1 {
                    // A value and a hidden slot with only hidden slots between (3.14's
                    // `return` in a `with` brings `self` above `__exit__` so: `SWAP 3;
                    // SWAP 2`): the values keep their order.
                    s.set(top, b);
                    s.set(other, a);
                    rewrite.push((k, Op::Nop));
                } else {
                    return Err(err(here, "SWAP of a hidden slot over values".into()));
                }
            }
            Op::Copy(d) => {
                let d2 = lower(&s, d)?;
                if d2 != d {
                    rewrite.push((k, Op::Copy(d2)));
                }
                s.push(Value);
            }
            Op::ListAppend(d) | Op::ListExtend(d) | Op::SetAdd(d) | Op::SetUpdate(d) | Op::DictUpdate(d, _) | Op::MapAdd(d) => {
                pop(&mut s, if matches!(op, Op::MapAdd(_)) { 2 } else { 1 }, here.opname)?;
                let d2 = lower(&s, d)?;
                if d2 != d {
                    rewrite.push((k, match op {
                        Op::ListAppend(_) => Op::ListAppend(d2),
                        Op::ListExtend(_) => Op::ListExtend(d2),
                        Op::SetAdd(_) => Op::SetAdd(d2),
                        Op::SetUpdate(_) => Op::SetUpdate(d2),
                        Op::DictUpdate(_, m) => Op::DictUpdate(d2, *m),
                        _ => Op::MapAdd(d2),
                    }));
                }
            }
            // 3.15: `<genexpr>` code made a function, its closure set, called with
            // the iterable (`CALL 0` over `function, iterable`); the generator calls
            // `iter()` (or `aiter()`) itself.
            Op::MakeFunction { .. } if made.is_some() => {
                let entry = made.expect("checked");
                let (p, _) = op.stack_effect();
                pop(&mut s, p, here.opname)?;
                s.push(Genexpr(entry));
            }
            Op::SetFunctionAttribute(_) if matches!(s.last(), Some(Genexpr(_))) => {
                let g = s.pop().expect("checked");
                pop(&mut s, 1, here.opname)?;
                s.push(g);
            }
            Op::Call { argc: 0, .. } if s.len() >= 2 && matches!(s.get(s.len() - 2), Genexpr(_)) => {
                let Genexpr(entry) = s.get(s.len() - 2) else { unreachable!("checked") };
                pop(&mut s, 2, here.opname)?;
                s.push(Value);
                get_iter_before.push((k, entry));
            }
            Op::Rot(d) => {
                if s.len() < d as usize || s.count_index(s.len() - d as usize, s.len()) > 0 {
                    return Err(err(here, "a rotation over an iterator index slot".into()));
                }
            }
            _ => {
                if op.jump_target().is_some() {
                    let (p, q) = op.stack_effect_on(true);
                    let mut j = s.clone();
                    pop(&mut j, p, here.opname)?;
                    j.push_values(q);
                    jump = Some(j);
                }
                let (p, q) = op.stack_effect();
                // Values only (nearly every op): dropped at once.
                match s.len().checked_sub(p as usize) {
                    Some(below) if s.marks.last().is_none_or(|m| (m.0 as usize) < below) => s.truncate(below),
                    _ => pop(&mut s, p, here.opname)?,
                }
                s.push_values(q);
            }
        }
        if let (Some(j), Some(t)) = (jump, op.jump_target()) {
            let t = first_at(t).ok_or_else(|| err(here, format!("no instruction at jump target {t}")))?;
            out.push((t, j));
        }
        let falls = !op.is_terminator() && k + 1 < n;
        for (t, h) in handlers.drain(..) {
            let at = state_of[t] as usize;
            match &state[at] {
                None => {
                    state[at] = Some(h);
                    work.push(t);
                }
                Some(old) if *old == h => {}
                Some(old) => {
                    return Err(err(&ir[t], format!("paths reach it with different stacks ({} and {} slots)", old.len(), h.len())));
                }
            }
        }
        if falls && !join(k + 1) {
            // Reached from here only: the next op to visit (it would be queued
            // last, so popped first).
            // (Most ops have no other way out: nothing to drain.)
            if !out.is_empty() {
                for (t, st) in out.drain(..) {
                    arrive(&mut state, &state_of, &mut work, t, st).map_err(|m| err(&ir[t], m))?;
                }
            }
            carried = Some((k + 1, s));
            continue;
        }
        if falls {
            out.push((k + 1, s));
        }
        for (t, st) in out.drain(..) {
            arrive(&mut state, &state_of, &mut work, t, st).map_err(|m| err(&ir[t], m))?;
        }
    }
    for (k, op) in rewrite {
        ir[k].op = op;
    }
    let handler_fix: HashMap<u32, u32> = handler_of.into_iter().filter_map(|(t, h)| Some((t, handler_hidden[h]?))).collect();
    get_iter_before.sort_unstable_by_key(|&(k, _)| k);
    for &(k, entry) in get_iter_before.iter().rev() {
        let mut g = ir[k].clone();
        g.op = match entry {
            GenexprEntry::Iter => Op::GetIter,
            GenexprEntry::AIter => Op::GetAIter,
        };
        ir.insert(k, g);
    }
    Ok(handler_fix)
}

/// [`drop_hidden_slots`]: when `load` (the op before a `MakeFunction`) loads the code
/// of a `<genexpr>` whose start `genexpr_entry` knows, the op its call gets before it.
fn genexpr_made(code: &CodeObject, load: &Op, genexpr_entry: Option<fn(&CodeObject) -> Option<GenexprEntry>>) -> Option<GenexprEntry> {
    let entry = genexpr_entry?;
    match load {
        Op::LoadConst(c) => match code.co_consts.get(*c) {
            Some(Constant::Code(g)) if g.co_name == "<genexpr>" => entry(g),
            _ => None,
        },
        _ => None,
    }
}

/// Undoes a 3.14+ jump threading in boolean value chains, so that `a and b or c`
/// reads as in 3.13. A value-keeping test (`COPY 1; [TO_BOOL;] POP_JUMP_IF_X L`)
/// whose target `L` is the `POP_TOP` right after another value-keeping test of the
/// opposite sense (`COPY 1; POP_JUMP_IF_NOT_X M; [NOT_TAKEN;] L: POP_TOP`) jumps with
/// a value that this second test would let fall through to `L`: CPython 3.14
/// `Python/flowgraph.c` (`optimize_basic_block`, a `JUMP_IF_FALSE` whose target
/// starts with a `JUMP_IF_TRUE` goes to that target's next block, and the reverse)
/// skips the second test. The jump is sent back to the second test's `COPY`, the
/// target 3.13 and earlier keep (`(a and b) or c`: `a`'s jump lands on the `or`'s
/// test), so that [`super::fuse_jump_or_pop`] makes both tests
/// [`Op::JumpIfOrPop`]s and recovery folds one expression.
///
/// Inputs: the normalized ops of a 3.14+ code object (`TO_BOOL` and `NOT_TAKEN`
/// are `Nop`s), before fusion. Only jump targets change; the value reaching `L`
/// is the same (the second test, on a value of the truth the first jump tested,
/// falls through to `L`).
pub(super) fn unthread_bool_jumps(ir: &mut [IrInstr]) {
    use super::prev_real;
    // The first op at an offset: the ops are in offset order, as `drop_hidden_slots`
    // (which ran before) reads them.
    debug_assert!(ir.windows(2).all(|w| w[0].offset <= w[1].offset));
    for j in 0..ir.len() {
        let Op::JumpIf { when, target } = ir[j].op else { continue };
        if !prev_real(ir, j).is_some_and(|p| ir[p].op == Op::Copy(1)) {
            continue;
        }
        let k = ir.partition_point(|i| i.offset < target);
        if k == ir.len() || ir[k].offset != target {
            continue;
        }
        if ir[k].op != Op::PopTop {
            continue;
        }
        let Some(j2) = prev_real(ir, k) else { continue };
        if j2 == j || !matches!(ir[j2].op, Op::JumpIf { when: w2, .. } if w2 != when) {
            continue;
        }
        let Some(c2) = prev_real(ir, j2) else { continue };
        if ir[c2].op != Op::Copy(1) {
            continue;
        }
        ir[j].op = Op::JumpIf { when, target: ir[c2].offset };
    }
}

/// [`drop_hidden_slots`]: a path reaches op `t` (a join: `state_of[t]` indexes its
/// stored stack in `state`) with stack `st`. The first path stores it and queues `t`
/// on `work`; a later one must bring the same stack (the message otherwise).
fn arrive(state: &mut [Option<Stack>], state_of: &[u32], work: &mut Vec<usize>, t: usize, st: Stack) -> Result<(), String> {
    let at = state_of[t] as usize;
    match &state[at] {
        None => {
            state[at] = Some(st);
            work.push(t);
            Ok(())
        }
        Some(old) if *old == st => Ok(()),
        Some(old) => Err(format!("paths reach it with different stacks ({} and {} slots)", old.len(), st.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::{GenexprEntry, Slot, Stack};

    /// `Stack` against the plain list of slots it stands for, over a fixed
    /// pseudo-random run of every operation: the same slots, counts and equality.
    #[test]
    fn stack_is_its_list_of_slots() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        let kinds = [Slot::Value, Slot::Value, Slot::Index, Slot::Genexpr(GenexprEntry::Iter), Slot::Genexpr(GenexprEntry::AIter)];
        let (mut s, mut v) = (Stack::default(), Vec::<Slot>::new());
        for step in 0..20_000 {
            match next(7) {
                0 | 1 => {
                    let k = kinds[next(kinds.len() as u64) as usize];
                    s.push(k);
                    v.push(k);
                }
                2 => {
                    let q = next(3) as u32;
                    s.push_values(q);
                    v.extend(std::iter::repeat_n(Slot::Value, q as usize));
                }
                3 => assert_eq!(s.pop(), v.pop(), "step {step}"),
                4 if !v.is_empty() => {
                    let n = next(v.len() as u64 + 1) as usize;
                    s.truncate(n);
                    v.truncate(n);
                }
                5 if !v.is_empty() => {
                    let (i, j) = (next(v.len() as u64) as usize, next(v.len() as u64) as usize);
                    let (a, b) = (s.get(i), s.get(j));
                    s.set(i, b);
                    s.set(j, a);
                    v.swap(i, j);
                }
                _ if !v.is_empty() => {
                    let n = next(v.len() as u64 + 1) as usize;
                    let pushed = next(3) as u32;
                    let p = s.prefix_then_values(n, pushed);
                    let mut w = v[..n].to_vec();
                    w.extend(std::iter::repeat_n(Slot::Value, pushed as usize));
                    let mut from_w = Stack::default();
                    w.iter().for_each(|&x| from_w.push(x));
                    assert_eq!(p, from_w, "step {step}");
                }
                _ => {}
            }
            assert_eq!(s.len(), v.len(), "step {step}");
            assert_eq!(s.last(), v.last().copied(), "step {step}");
            let (lo, hi) = (next(v.len() as u64 + 1) as usize, next(v.len() as u64 + 1) as usize);
            let (lo, hi) = (lo.min(hi), lo.max(hi));
            assert_eq!(s.count_index(lo, hi) as usize, v[lo..hi].iter().filter(|&&x| x == Slot::Index).count(), "step {step}");
            assert!((0..v.len()).all(|i| s.get(i) == v[i]), "step {step}");
            // Equal stacks are equal slot lists, and the other way round.
            let mut again = Stack::default();
            v.iter().for_each(|&x| again.push(x));
            assert_eq!(s, again, "step {step}");
            if v.len() > 200 {
                s.truncate(0);
                v.clear();
            }
        }
    }
}
