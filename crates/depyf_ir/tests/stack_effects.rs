//! The normalized ops of every instruction have the stack effect that the version's own
//! `dis.stack_effect(opcode, oparg, jump=...)` gives.
//!
//! For each instruction that normalizes, the net effect of its ops (pushes minus pops,
//! on the fall-through edge, and on the jump edge for jumps: the ops before the jumping
//! op plus its [`Op::stack_effect_on`]`(true)`) must equal CPython's number. Known,
//! documented differences:
//!
//! - **Folds.** Some instructions are folded into a neighbour and become `Nop`s: the
//!   `LOAD_CONST` of the keyword names before `CALL_FUNCTION_KW` (3.8-3.10) and `CALL_KW`
//!   (3.13+), the `PUSH_NULL` of absent `**kwargs` before 3.14+ `CALL_FUNCTION_EX`, the
//!   `POP_TOP` after 3.12+ `CALL_INTRINSIC_1 INTRINSIC_IMPORT_STAR`, the `LOAD_CONST
//!   None` ×2, `CALL 2`, `POP_TOP` of a 3.12+ `with` exit after its first `LOAD_CONST`
//!   (one `WithExit`). The group is checked as a whole.
//! - **Groups.** Other folds are found without a rule of their own: an instruction
//!   whose ops are all `Nop`s (or that emits none) and that disagrees alone is checked
//!   with its neighbours. From it, the adjacent instructions that emit no op of their
//!   own and the first instruction beyond them on each side that does (no instruction
//!   on the error path between) form a run, which is cut into groups of at most one
//!   emitting instruction each (every cut is tried); the run agrees when some cut
//!   makes every group agree: the sums of the fall-through effects are equal and, on
//!   the jump edge, our effect up to the group's last jumping op equals `dis`'s up to
//!   the group's last branch whose target lies outside the group (the `SEND`/
//!   `JUMP_BACKWARD_NO_INTERRUPT` loop of a 3.12+ `yield from`/`await` stays inside).
//!   This covers `GET_YIELD_FROM_ITER; LOAD_CONST None; YIELD_FROM` (3.8-3.10), the
//!   3.12+ `yield from`/`await` (`GET_AWAITABLE` ... `END_SEND`, one op),
//!   `RETURN_GENERATOR; POP_TOP` (3.13+), 3.15's `LOAD_COMMON_CONSTANT`. A run that no
//!   cut makes agree is reported group by group (`group [...]`, the non-emitting
//!   instructions joined to the emitting one after them).
//! - **The first `send`'s value.** 3.10's `GEN_START` and 3.12's `POP_TOP` after
//!   `RETURN_GENERATOR` (3.12's `dis` says 0 for `RETURN_GENERATOR`) pop the value
//!   that resuming a new generator pushes; the IR starts a generator on an empty
//!   stack, so these `Nop`s are counted one more (`dis`'s -1 becomes 0).
//! - **`CLEANUP_THROW`, 3.12+.** The handler of a `yield from`/`await` receives the
//!   exception on top of the sub-iterator and the last value and leaves the two that
//!   the `END_SEND` it jumps back to expects; the IR's `YieldFrom`/`Await` covers the
//!   throw path, and the handler is `Nop`s. The exception pushed on entry is not on
//!   the IR's stack, so `CLEANUP_THROW` is counted one more (`dis`'s -1 becomes 0).
//! - **3.8's exception match.** `COMPARE_OP 10` and its `POP_JUMP_IF_FALSE` are one
//!   `JumpIfNotExcMatch`, checked as a whole (the branch on its own edge), and the
//!   `DUP_TOP` before them goes with them as on 3.9-3.10.
//! - **`FOR_ITER`'s jump, 3.12+.** CPython's number describes the jump as landing on
//!   `END_FOR` with `next` pushed (+1), `END_FOR` (and 3.13's `POP_TOP`) popping it and
//!   the iterator. The interpreter pops the iterator and jumps over them (3.12-3.13), or
//!   over `END_FOR` onto `POP_ITER` (3.14); the normalized `ForIter` does that directly
//!   and those skipped instructions are `Nop`s (see `normalize/post311.rs`). So the
//!   jump edge of `FOR_ITER` is compared with the sum of `dis`'s numbers for `FOR_ITER`
//!   (jump) and the skipped instructions, and the skipped ones are not checked alone.
//! - **`RETURN_VALUE`, 3.14+.** `bytecodes.c` writes it `(retval -- res)`, `res` being
//!   the value the caller receives, so `dis` says 0; in the returning frame it pops one
//!   ([`Op::Return`] is `(value -- )`). Nothing follows a return, so only the number
//!   differs; CPython's is lowered by one.
//! - **Exceptions before 3.11** (see `normalize/pre311_exc.rs`). CPython 3.9-3.10
//!   enter a handler with six more items (the saved `exc_info` triple and the
//!   exception's triple); the IR, in 3.11's shape, with one exception value that the
//!   handler's first op, a [`Op::PushExcInfo`] of no instruction, turns into two
//!   (`prev_exc, exc`). So: that `PushExcInfo` is not counted; the folds
//!   `DUP_TOP` (into the `JUMP_IF_NOT_EXC_MATCH` after it), `LOAD_CONST None;
//!   DUP_TOP; DUP_TOP; CALL_FUNCTION 3; POP_TOP` (one `WithExit`), `POP_TOP; STORE_x;
//!   POP_TOP` (into the store) and `POP_TOP; POP_TOP; POP_TOP` (into the first) are
//!   checked as wholes; and the instructions that consume a triple (those two
//!   groups, `POP_EXCEPT`, `RERAISE`) are checked at a third of `dis`'s number
//!   (one IR value for three items).
//! - **3.15's iterator index slot.** `GET_ITER` pushes the iterator and an index (or
//!   NULL) that the normalizer removes (`normalize/py315.rs`): `GET_ITER` is counted
//!   one less (its ops `GetIter` + `Nop`), likewise the `PUSH_NULL` of an index before
//!   `FOR_ITER` (a `Nop`), and a generator expression's own `GET_ITER` of `.0` (a
//!   `Nop`: its caller gets a `GetIter` instead) is counted one less too, `POP_ITER` and a `POP_TOP` of the index (a
//!   `Nop` there) one more, and `FOR_ITER`'s jump edge one more (it pops the index and
//!   the iterator). Every `GET_ITER` is counted one less, `yield from`'s `GET_ITER 3`
//!   included, and a `Nop` `END_SEND` one more (it pops that slot too).
//! - **3.14+'s `with`.** The entry `COPY 1; LOAD_SPECIAL; SWAP; SWAP; LOAD_SPECIAL;
//!   CALL 0` is one `BeforeWith` and the exit `None, None, None, CALL, POP_TOP` (3.12+)
//!   one `WithExit`, each checked as a whole; from 3.14 on `BeforeWith` is counted one
//!   less and `WithExit` and a `POP_TOP` of the hidden `self` of `__exit__` (a `Nop`)
//!   one more (`normalize/post314.rs`), except the `POP_TOP` after
//!   `RETURN_GENERATOR`.
//! - **`async with` (3.14+) and `async for` (3.12+).** The `async with` entry
//!   through the `END_SEND` of its `await` is one `BeforeAsyncWith` (counted one less,
//!   as `BeforeWith`), and the normal exit's `await` of `__aexit__(None, None, None)`
//!   and its `POP_TOP` are folded into its `WithExit`, each checked as a whole. The
//!   `END_ASYNC_FOR` handler (a `Nop`) that a `GET_ANEXT` (a `ForIter`) jumps to is
//!   folded into it on the jump edge only: the handler is entered at the depth before
//!   `GET_ANEXT` with the exception pushed, so that edge is `dis`'s `END_ASYNC_FOR`
//!   plus one. Inside folds, 3.15's `PUSH_NULL`/`END_SEND` of an `await` are counted
//!   as `dis` counts them (+1, -2).
//! - **3.14+'s inlined `all`/`any`/`tuple`/`list`/`set` of a generator expression.**
//!   The type test and the fast path are `Nop`s (the call after them stays), so those
//!   instructions are not checked.
//! - **3.8's `finally` protocol** (`normalize/pre311_exc.rs`). `dis` gives
//!   `BEGIN_FINALLY` +6, `END_FINALLY` and `POP_FINALLY` -6, `WITH_CLEANUP_START` +2,
//!   `WITH_CLEANUP_FINISH` -3: numbers that balance for the compiler's depth bound
//!   (CPython 3.8 `Python/compile.c`, `stack_effect`: `BEGIN_FINALLY` "actually
//!   pushes 1 value, but count 6 for balancing with END_FINALLY and POP_FINALLY"), not
//!   the effect of one path. The normalizer rewrites them into 3.9's paths, which are
//!   checked as paths ([`py38_finally`]): a `BEGIN_FINALLY` with the instructions its
//!   rewrite stands for (a finally body through its `END_FINALLY`, a `with` exit, the
//!   unbinding of `except E as name` and its `POP_EXCEPT`), where +6 and -6 balance;
//!   the exceptional exit of a `with` as one group on the path that suppresses the
//!   exception; the `WITH_CLEANUP_START; WITH_CLEANUP_FINISH; POP_FINALLY 0` of a
//!   `with` left by return/break/continue folded into its `BEGIN_FINALLY`'s
//!   `WithExit` (an `async with` has the await of `__aexit__`'s result, no ops and 0
//!   in all, before `WITH_CLEANUP_FINISH`); a `BEGIN_FINALLY` never reached (a `Nop`)
//!   not checked. An
//!   `END_FINALLY` that re-raises (`Reraise`) is 3.9's `RERAISE`, -3 (one IR value for
//!   the triple): `dis`'s -6 also counts the saved `exc_info` triple that unwinding
//!   pops after the raise, so it is counted 3 more. `CALL_FINALLY` runs the finally
//!   body and comes back to the next instruction (its `dis` jump effect +1 is the
//!   return address that `END_FINALLY` pops); the IR copies the body in its place, so
//!   it has no jump edge and is checked on the fall-through (0) only. A copy of a
//!   `finally` body with branches has IR offsets of its own (the others scaled): it
//!   is left out, the body being checked where it stands (its exceptional path),
//!   and its `BEGIN_FINALLY` is compared with `dis`'s `BEGIN_FINALLY` and
//!   `END_FINALLY` together (0).
//! - **3.8's `BUILD_*_UNPACK*`** (`normalize/py38.rs`): rewritten into 3.9's
//!   container-then-extend shape, whose ops sit on the items' instructions; each merge
//!   is checked with its items as one region ([`py38_unpack`]).
//! - `JUMP_IF_TRUE_OR_POP`/`JUMP_IF_FALSE_OR_POP` (3.8-3.11): `dis` says 0 on the jump
//!   and -1 on the fall-through, as executed, so they need no exception.
//!
//! `sample_per_version` always runs on the committed data in `tests/data/pyXY`
//! (`scripts/gen_ir_fixtures.py --source`); `stdlib_per_version` (ignored, run with
//! `cargo test -p depyf_ir --test stack_effects -- --ignored --nocapture`) compiles 250
//! standard library modules with every interpreter it finds and prints per-version
//! figures.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use depyf_bytecode::{decode, marshal, CodeObject, Constant, Instruction, PythonVersion};
use depyf_ir::{normalize_all, Op};

/// `(opcode, oparg)` → `(effect on jump, effect on fall-through)`; `None` where
/// `dis.stack_effect` raised.
type Effects = HashMap<(u8, Option<u32>), (Option<i64>, Option<i64>)>;

fn read_effects(path: &Path) -> Effects {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let arg = if f[1] == "-" { None } else { Some(f[1].parse().unwrap()) };
            ((f[0].parse().unwrap(), arg), (f[2].parse().ok(), f[3].parse().ok()))
        })
        .collect()
}

fn codes_of(c: &CodeObject, out: &mut Vec<CodeObject>) {
    out.push(c.clone());
    for k in &c.co_consts {
        if let Constant::Code(inner) = k {
            codes_of(inner, out);
        }
    }
}

fn load_marshal(path: &Path, v: PythonVersion, out: &mut Vec<CodeObject>) {
    let data = std::fs::read(path).unwrap();
    match marshal::loads(&data, v) {
        Ok(Constant::Code(c)) => codes_of(&c, out),
        other => panic!("{}: not a code object: {other:?}", path.display()),
    }
}

/// Per-version figures.
#[derive(Default, Debug)]
struct Figures {
    instructions: usize,
    normalized: usize,
    agree: usize,
    /// Opname → instructions on the error path.
    unsupported: BTreeMap<String, usize>,
    /// Code objects failed as a whole (decode, loop scan, 3.11 strict mode).
    failed_codes: BTreeMap<String, usize>,
    /// Disagreements: "opname oparg: ours vs dis".
    mismatches: BTreeMap<String, usize>,
}

fn net(ops: &[&Op], jump: bool) -> i64 {
    let mut sum = 0i64;
    for op in ops {
        if jump && op.jump_target().is_some() {
            let (p, q) = op.stack_effect_on(true);
            return sum + i64::from(q) - i64::from(p);
        }
        let (p, q) = op.stack_effect();
        sum += i64::from(q) - i64::from(p);
    }
    sum
}

fn is_jump(ops: &[&Op]) -> bool {
    ops.iter().any(|o| o.jump_target().is_some())
}

/// Instructions whose effect is accounted for in another one (see the module docs):
/// returns, for each instruction index folded away, the index it is checked with.
fn folds(v: PythonVersion, ins: &[Instruction], ops: &HashMap<u32, Vec<&Op>>) -> HashMap<usize, usize> {
    let mut m = HashMap::new();
    // (Before 3.11 a handler's first instruction also has the `PushExcInfo` of no
    // instruction.)
    let all_nop = |k: usize| {
        ops.get(&ins[k].offset).is_some_and(|o| o.iter().all(|o| **o == Op::Nop || (v < PythonVersion::PY311 && **o == Op::PushExcInfo)))
    };
    let prev = |k: usize| (0..k).rev().find(|&j| ins[j].opname != "EXTENDED_ARG");
    // The `END_SEND` that ends the `await` loop after instruction `k`, every
    // instruction up to it a `Nop`.
    let end_send_after = |k: usize| (k + 1..ins.len()).take_while(|&j| all_nop(j)).find(|&j| ins[j].opname == "END_SEND");
    for k in 0..ins.len() {
        match ins[k].opname {
            "CALL_FUNCTION_KW" | "CALL_KW" | "CALL_FUNCTION_EX" => {
                if let Some(j) = prev(k).filter(|&j| all_nop(j) && ins[j].opname != "NOP") {
                    m.insert(j, k);
                }
            }
            "CALL_INTRINSIC_1" if k + 1 < ins.len() && all_nop(k + 1) && ins[k + 1].opname == "POP_TOP" => {
                m.insert(k + 1, k);
            }
            // 3.14+ inlined `all(genexpr)` & co.: the test and fast path are dropped
            // (`Nop`s up to the fallback call's `PUSH_NULL`): not checked.
            "COPY" if v >= PythonVersion::PY314
                && all_nop(k)
                && ins.get(k + 1).is_some_and(|i| i.opname == "LOAD_COMMON_CONSTANT")
                && ins.get(k + 3).is_some_and(|i| i.opname == "POP_JUMP_IF_FALSE") =>
            {
                let t = ins[k + 3].jump_target().unwrap();
                for (j, i) in ins.iter().enumerate().skip(k) {
                    if i.offset >= t {
                        break;
                    }
                    m.insert(j, j);
                }
            }
            // 3.14+ `with` entry (`COPY 1` ... `CALL 0`, see `normalize/post314.rs`).
            "COPY" if ops.get(&ins[k].offset).is_some_and(|o| o.as_slice() == [&Op::BeforeWith]) => {
                for j in k + 1..(k + 6).min(ins.len()) {
                    m.insert(j, k);
                }
            }
            // 3.14+ `async with` entry (`COPY 1` ... `CALL 0; GET_AWAITABLE 1` and the
            // `await` loop through its `END_SEND`, see `normalize/post314.rs`).
            "COPY" if v >= PythonVersion::PY314 && ops.get(&ins[k].offset).is_some_and(|o| o.as_slice() == [&Op::BeforeAsyncWith]) => {
                if let Some(e) = end_send_after(k) {
                    for j in k + 1..=e {
                        m.insert(j, k);
                    }
                }
            }
            // 3.12+ `with` exit: three `None` loads, `CALL`, `POP_TOP`; 3.14+ `async
            // with`: the `await` of the call's result (`GET_AWAITABLE 2` through its
            // `END_SEND`) before the `POP_TOP`.
            _ if v >= PythonVersion::PY312 && ops.get(&ins[k].offset).is_some_and(|o| o.as_slice() == [&Op::WithExit]) => {
                let awaited = ins.get(k + 4).is_some_and(|i| i.opname == "GET_AWAITABLE" && i.oparg == Some(2));
                let last = if awaited { end_send_after(k + 4).map_or(k + 4, |e| e + 1) } else { k + 4 };
                for j in k + 1..=last.min(ins.len() - 1) {
                    m.insert(j, k);
                }
            }
            // 3.12+ `async for`: `GET_ANEXT` is a `ForIter` to the `END_ASYNC_FOR`
            // handler (a `Nop`), whose effect counts on that jump edge.
            "GET_ANEXT" if v >= PythonVersion::PY312 => {
                if let Some([Op::ForIter(t)]) = ops.get(&ins[k].offset).map(Vec::as_slice) {
                    if let Some(j) = ins.iter().position(|i| i.offset == *t).filter(|&j| ins[j].opname == "END_ASYNC_FOR" && all_nop(j)) {
                        m.insert(j, k);
                    }
                }
            }
            "FOR_ITER" if v >= PythonVersion::PY312 => {
                let t = ins[k].jump_target().unwrap();
                let mut j = ins.iter().position(|i| i.offset == t).unwrap();
                while j < ins.len() && all_nop(j) && ins[j].opname != "NOP" {
                    m.insert(j, k);
                    j += 1;
                }
            }
            _ => {}
        }
        // The normal exit of a `with` (3.9-3.10 and 3.12+): `exit(None, None, None)`
        // is one `WithExit` at the first `LOAD_CONST`.
        if ins[k].opname == "LOAD_CONST" && ops.get(&ins[k].offset).is_some_and(|o| o.as_slice() == [&Op::WithExit]) {
            // 3.9-3.10 `async with`: `GET_AWAITABLE; LOAD_CONST None; YIELD_FROM;
            // POP_TOP` after the call too.
            let awaited = v < PythonVersion::PY311 && ins.get(k + 4).is_some_and(|i| i.opname == "GET_AWAITABLE");
            for (j, x) in ins.iter().enumerate().skip(k + 1).take(if awaited { 7 } else { 4 }) {
                if all_nop(j) && x.opname != "NOP" {
                    m.insert(j, k);
                }
            }
        }
        // 3.8's finally protocol (module docs): a `BEGIN_FINALLY` that is a `Nop`
        // (never reached) is not checked; the `WITH_CLEANUP_START;
        // WITH_CLEANUP_FINISH; POP_FINALLY 0` of a `with` left by return, break or
        // continue are folded into the `WithExit` of the `BEGIN_FINALLY` before them.
        if v == PythonVersion::PY38 && ins[k].opname == "BEGIN_FINALLY" {
            if all_nop(k) {
                m.insert(k, k);
            } else if ops.get(&ins[k].offset).is_some_and(|o| o.as_slice() == [&Op::WithExit]) {
                // (`async with`: the await of `__aexit__`'s result between them.)
                let n = if ins.get(k + 2).is_some_and(|i| i.opname == "GET_AWAITABLE") { 7 } else { 4 };
                for j in k + 1..(k + n).min(ins.len()) {
                    m.insert(j, k);
                }
            }
        }
        // 3.8: `COMPARE_OP 10` (exception match) and its `POP_JUMP_IF_FALSE` are one
        // `JumpIfNotExcMatch`; the `DUP_TOP` before the tested class goes with them.
        if v == PythonVersion::PY38 && ins[k].opname == "COMPARE_OP" && ins[k].oparg == Some(10) && !all_nop(k) {
            // (`EXTENDED_ARG` prefixes of a far target may lie between them.)
            let j = (k + 1..ins.len()).find(|&j| ins[j].opname != "EXTENDED_ARG");
            if let Some(j) = j.filter(|&j| ins[j].opname == "POP_JUMP_IF_FALSE" && all_nop(j)) {
                m.insert(j, k);
            }
        }
        // 3.8-3.10 `async for` head (`normalize/pre311_exc.rs`): `SETUP_FINALLY` is the
        // `ForIter`, `GET_ANEXT; LOAD_CONST None; YIELD_FROM; POP_BLOCK` go with it on
        // its fall-through edge, the `END_ASYNC_FOR` it jumps to (a `Nop`) on its jump
        // edge (see `check`). 3.9-3.10 `async with`: `BEFORE_ASYNC_WITH` and the
        // `await` after it (through `SETUP_ASYNC_WITH`) are one `BeforeAsyncWith`, and
        // `WITH_EXCEPT_START` and its `await` one `WithExceptStart`.
        if v < PythonVersion::PY311 {
            let own = |k: usize| ops.get(&ins[k].offset).map(Vec::as_slice);
            match (ins[k].opname, own(k)) {
                ("SETUP_FINALLY", Some([Op::ForIter(t)])) => {
                    for j in k + 1..(k + 5).min(ins.len()) {
                        m.insert(j, k);
                    }
                    if let Some(e) = ins.iter().position(|i| i.offset == *t).filter(|&e| ins[e].opname == "END_ASYNC_FOR") {
                        m.insert(e, k);
                    }
                }
                ("BEFORE_ASYNC_WITH", Some([Op::BeforeAsyncWith])) => {
                    for j in k + 1..(k + 5).min(ins.len()) {
                        m.insert(j, k);
                    }
                }
                ("WITH_EXCEPT_START", Some([Op::WithExceptStart])) if ins.get(k + 1).is_some_and(|i| i.opname == "GET_AWAITABLE") => {
                    for j in k + 1..(k + 4).min(ins.len()) {
                        m.insert(j, k);
                    }
                }
                _ => {}
            }
        }
        if v < PythonVersion::PY311 {
            let is_store = |j: usize| ins.get(j).is_some_and(|i| i.opname.starts_with("STORE_"));
            let nop_pop = |j: usize| ins.get(j).is_some_and(|i| i.opname == "POP_TOP") && all_nop(j);
            match ins[k].opname {
                "DUP_TOP" if all_nop(k) && !m.contains_key(&k) => {
                    if let Some(j) = (k + 1..ins.len()).find(|&j| ins[j].opname == "JUMP_IF_NOT_EXC_MATCH" || (ins[j].opname == "COMPARE_OP" && ins[j].oparg == Some(10))) {
                        m.insert(k, j);
                    }
                }
                "POP_TOP" if nop_pop(k) && !m.contains_key(&k) => {
                    if is_store(k + 1) && nop_pop(k + 2) {
                        m.insert(k, k + 1);
                        m.insert(k + 2, k + 1);
                    } else if let Some(j) = [k.wrapping_sub(1), k.wrapping_sub(2)].into_iter().find(|&j| j < k && ins[j].opname == "POP_TOP" && !all_nop(j)) {
                        m.insert(k, j);
                    }
                }
                _ => {}
            }
        }
    }
    m
}

/// 3.14+: what the removed hidden slots change in instruction `i`'s effect
/// (see the module docs); `ops` are its normalized ops.
fn index_slot_fix(v: PythonVersion, i: &Instruction, after_return_generator: bool, ops: &[&Op], jump: bool) -> i64 {
    if v < PythonVersion::PY314 {
        return 0;
    }
    let has_nop = ops.iter().any(|o| **o == Op::Nop);
    match (i.opname, ops) {
        (_, [Op::BeforeWith] | [Op::BeforeAsyncWith]) => return -1,
        (_, [Op::WithExit]) => return 1,
        ("POP_TOP", _) if !after_return_generator && !ops.is_empty() && ops.iter().all(|o| **o == Op::Nop) => return 1,
        _ => {}
    }
    if v < PythonVersion::PY315 {
        return 0;
    }
    match i.opname {
        // Every `GET_ITER` (`GetIter` + `Nop`; a generator expression's own `GET_ITER`
        // of `.0`, a `Nop` as `.0` is read as the iterator already; `yield from`'s
        // `GET_ITER 3`) loses its index slot.
        "GET_ITER" => -1,
        "PUSH_NULL" if ops == [&Op::Nop] => -1,
        "POP_ITER" if has_nop => 1,
        "FOR_ITER" if jump => 1,
        _ => 0,
    }
}

fn check(v: PythonVersion, codes: &[CodeObject], eff: &Effects, fig: &mut Figures) {
    for code in codes {
        let ins = decode(code).expect("decodes");
        fig.instructions += ins.len();
        let (ir, errors) = match normalize_all(code) {
            Ok(x) => x,
            Err(e) => {
                *fig.failed_codes.entry(format!("{}: {}", e.opname, e.message)).or_default() += 1;
                continue;
            }
        };
        let failed: HashMap<u32, &str> = errors.iter().map(|e| (e.offset, e.opname.as_str())).collect();
        for e in &errors {
            *fig.unsupported.entry(e.opname.clone()).or_default() += 1;
        }
        let mut ops: HashMap<u32, Vec<&Op>> = HashMap::new();
        // 3.8 copies of finally bodies with branches scale the IR offsets (module
        // docs): an instruction's ops are at its offset times the scale, a copy's
        // between; the copies are left out and the instruction entering one noted.
        let offsets: HashSet<u32> = ins.iter().map(|i| i.offset).collect();
        let scaled = v == PythonVersion::PY38 && ir.iter().any(|i| !offsets.contains(&i.offset));
        let scale = if scaled { (ins.len() as u32 + 2).next_power_of_two() } else { 1 };
        let mut copied: HashSet<u32> = HashSet::new();
        for i in &ir {
            if i.offset.is_multiple_of(scale) {
                ops.entry(i.offset / scale).or_default().push(&i.op);
            } else {
                copied.insert(i.offset / scale);
            }
        }
        let folded = folds(v, &ins, &ops);
        let dis = |k: usize, jump: bool| {
            let i = &ins[k];
            let (j, f) = eff[&(i.opcode, i.oparg)];
            let fix = if v >= PythonVersion::PY314 && i.opname == "RETURN_VALUE" { -1 } else { 0 };
            // A folded instruction is counted with its partner, as CPython counts it.
            let after_rg = k > 0 && ins[k - 1].opname == "RETURN_GENERATOR";
            let fix = if folded.contains_key(&k) { fix } else { fix + index_slot_fix(v, i, after_rg, ops.get(&i.offset).map_or(&[][..], Vec::as_slice), jump) };
            let nop_only = ops.get(&i.offset).is_some_and(|o| o.iter().all(|o| **o == Op::Nop));
            // The exceptional entry of a 3.12+ `yield from`/`await` (module docs).
            let fix = if i.opname == "CLEANUP_THROW" && nop_only { fix + 1 } else { fix };
            // 3.10's `GEN_START` pops the value of the first `send` (module docs).
            let fix = if i.opname == "GEN_START" && nop_only { fix + 1 } else { fix };
            // Likewise 3.12's `POP_TOP` after `RETURN_GENERATOR` (whose `dis` number is 0
            // there; 3.13+ count the value at `RETURN_GENERATOR` and the pair sums to 0).
            let fix = if v == PythonVersion::PY312 && after_rg && i.opname == "POP_TOP" && nop_only { fix + 1 } else { fix };
            // 3.8's `END_FINALLY` that re-raises: dis's -6 also counts the saved
            // `exc_info` triple that unwinding pops after the raise (module docs).
            let reraise38 = v == PythonVersion::PY38 && i.opname == "END_FINALLY" && ops.get(&i.offset).is_some_and(|o| o.as_slice() == [&Op::Reraise]);
            let fix = if reraise38 { fix + 3 } else { fix };
            // 3.15's `END_SEND` also pops the removed NULL/index slot below the receiver.
            // (Not where it is folded: a folded `PUSH_NULL` of the slot is not counted
            // one less either, so the `await` sums to 0 as CPython counts it.)
            let fix = if v >= PythonVersion::PY315 && i.opname == "END_SEND" && nop_only && !folded.contains_key(&k) { fix + 1 } else { fix };
            if jump { j.map(|x| x + fix) } else { f.map(|x| x + fix) }
        };
        let mut special = if v == PythonVersion::PY38 { py38_finally(&ins, &ops, &copied, &folded, &failed, eff) } else { HashMap::new() };
        if v == PythonVersion::PY38 {
            for (k, r) in py38_unpack(&ins, &ops, &failed, &folded, eff) {
                if r.is_some() || !special.contains_key(&k) {
                    special.insert(k, r);
                }
            }
        }
        for r in special.values() {
            match r {
                Some(report) => *fig.mismatches.entry(report.clone()).or_default() += 1,
                None => fig.agree += 1,
            }
            fig.normalized += 1;
        }
        let mut units: Vec<Unit> = Vec::new();
        for (k, i) in ins.iter().enumerate() {
            if failed.contains_key(&i.offset) || folded.contains_key(&k) || special.contains_key(&k) {
                continue;
            }
            let mut mine = ops.get(&i.offset).cloned().unwrap_or_default();
            if v < PythonVersion::PY311 {
                // The handler entry of no instruction (see the module docs).
                mine.retain(|o| **o != Op::PushExcInfo);
            }
            let partners: Vec<usize> = folded.iter().filter(|(_, &to)| to == k).map(|(&from, _)| from).collect();
            // Consumes an exception triple (pre-3.11): one IR value for three items.
            let reraise38 = v == PythonVersion::PY38 && i.opname == "END_FINALLY" && mine.as_slice() == [&Op::Reraise];
            let triple = v < PythonVersion::PY311
                && (matches!(i.opname, "POP_EXCEPT" | "RERAISE") || reraise38 || ((i.opname == "POP_TOP" || i.opname.starts_with("STORE_")) && partners.iter().any(|&p| ins[p].opname == "POP_TOP")));
            let scale = if triple { 3 } else { 1 };
            // 3.12+ `async for` (folded `END_ASYNC_FOR`): the jump edge is the handler,
            // entered at the depth before `GET_ANEXT` with the exception pushed (+1),
            // and `END_ASYNC_FOR`, which pops it and the async iterator.
            let anext = i.opname == "GET_ANEXT" && !partners.is_empty();
            // 3.8-3.10 `async for` head: the jump edge enters the `END_ASYNC_FOR`
            // handler (`SETUP_FINALLY`'s jump effect) and `END_ASYNC_FOR` pops the
            // exception and the async iterator; the fall-through edge runs the step.
            let head38 = v < PythonVersion::PY311 && i.opname == "SETUP_FINALLY" && matches!(mine.as_slice(), [Op::ForIter(_)]);
            let theirs_on = |jump: bool| {
                if anext {
                    return if jump { partners.iter().map(|&p| dis(p, false)).sum::<Option<i64>>().map(|d| d + 1) } else { dis(k, false) };
                }
                if head38 {
                    let mut theirs = dis(k, jump);
                    for &p in partners.iter().filter(|&&p| (ins[p].opname == "END_ASYNC_FOR") == jump) {
                        theirs = theirs.and_then(|t| dis(p, false).map(|d| t + d));
                    }
                    return theirs;
                }
                let mut theirs = dis(k, jump);
                for &p in &partners {
                    // FOR_ITER's skipped instructions count on its jump edge only;
                    // the other folds on both edges.
                    if i.opname == "FOR_ITER" && !jump {
                        continue;
                    }
                    // A folded branch (3.8's exception match) counts on its own edge.
                    let edge = jump && ins[p].jump_target().is_some() && i.opname != "FOR_ITER";
                    theirs = theirs.and_then(|t| dis(p, edge).map(|d| t + d));
                }
                theirs
            };
            let ours_ft = net(&mine, false) * scale;
            let ours_j = is_jump(&mine).then(|| net(&mine, true) * scale);
            let theirs_ft = theirs_on(false);
            // 3.8's `CALL_FINALLY` calls the finally body and comes back to the next
            // instruction; the IR copies the body in place: no jump edge (module docs).
            let call38 = v == PythonVersion::PY38 && i.opname == "CALL_FINALLY" && !is_jump(&mine);
            let branches = !call38 && (anext || i.jump_target().is_some() || (i.opname != "FOR_ITER" && partners.iter().any(|&p| ins[p].jump_target().is_some())));
            let theirs_j = branches.then(|| theirs_on(true));
            let mut report = String::new();
            if Some(ours_ft) != theirs_ft {
                report = format!("{} {:?} jump=false: ours {ours_ft} vs dis {theirs_ft:?}", i.opname, i.oparg);
            }
            if let Some(oj) = ours_j {
                let tj = theirs_j.unwrap_or(theirs_ft);
                if Some(oj) != tj {
                    report = format!("{} {:?} jump=true: ours {oj} vs dis {tj:?}", i.opname, i.oparg);
                }
            }
            let emits = mine.iter().any(|o| **o != Op::Nop);
            // Only instructions folded into other units lie between it and the previous unit.
            let follows = units.last().is_some_and(|u: &Unit| (u.k + 1..k).all(|j| folded.contains_key(&j)));
            units.push(Unit { k, follows, emits, ours_ft, ours_j, theirs_ft, theirs_j, report });
        }
        fig.normalized += units.len();
        check_groups(&ins, &units, fig);
    }
}

/// CPython 3.8's merges of starred items (`BUILD_*_UNPACK*`) and the single `**m` of
/// a `CALL_FUNCTION_EX`, rewritten into 3.9's shape (`normalize/py38.rs`): the empty
/// container goes with the first item's first instruction and each extend with the
/// item's last, so they are checked as one region, from the first instruction of the
/// first item through the merge (through the `**m` argument's last instruction,
/// whose ops end with the `DictUpdate`): our ops there must read nothing below and
/// push exactly one value, as `dis`'s numbers summed over the region say. The region
/// is found walking back while composing our ops' `(pops, pushes)`. Returns, for
/// each instruction index of a region, `None` or the report of the disagreement.
fn py38_unpack(
    ins: &[Instruction],
    ops: &HashMap<u32, Vec<&Op>>,
    failed: &HashMap<u32, &str>,
    folded: &HashMap<usize, usize>,
    eff: &Effects,
) -> HashMap<usize, Option<String>> {
    let mut out = HashMap::new();
    let none: Vec<&Op> = Vec::new();
    let of = |k: usize| ops.get(&ins[k].offset).unwrap_or(&none);
    for (k, i) in ins.iter().enumerate() {
        let end = match i.opname {
            "BUILD_LIST_UNPACK" | "BUILD_TUPLE_UNPACK" | "BUILD_TUPLE_UNPACK_WITH_CALL" | "BUILD_SET_UNPACK" | "BUILD_MAP_UNPACK" | "BUILD_MAP_UNPACK_WITH_CALL" => k,
            "CALL_FUNCTION_EX" if k > 0 && of(k - 1).last().is_some_and(|o| matches!(o, Op::DictUpdate(1, true))) && !matches!(ins[k - 1].opname, "BUILD_MAP_UNPACK_WITH_CALL") => k - 1,
            _ => continue,
        };
        if failed.contains_key(&ins[end].offset) {
            continue;
        }
        // Walk back composing (consumed from below, left on top).
        let (mut consumed, mut left) = (0u32, 0u32);
        let mut start = None;
        for s in (0..=end).rev() {
            for op in of(s).iter().rev() {
                let (pop, push) = op.stack_effect();
                if push >= consumed {
                    left += push - consumed;
                    consumed = pop;
                } else {
                    consumed = pop + consumed - push;
                }
            }
            if consumed == 0 && left >= 1 {
                start = Some(s);
                break;
            }
        }
        let Some(start) = start else {
            out.insert(end, Some(format!("{} {:?}: no region found", i.opname, i.oparg)));
            continue;
        };
        let region = start..=end;
        let ours: i64 = region.clone().map(|s| net(of(s), false)).sum();
        let theirs: Option<i64> = region.clone().filter(|s| !folded.contains_key(s)).map(|s| eff[&(ins[s].opcode, ins[s].oparg)].1).sum();
        let branches = region.clone().any(|s| ins[s].jump_target().is_some() || is_jump(of(s)));
        let report = (left != 1 || branches || Some(ours) != theirs || Some(1) != theirs)
            .then(|| format!("{} {:?} region of {}: ours {ours} (left {left}) vs dis {theirs:?}", i.opname, i.oparg, end + 1 - start));
        for s in region {
            out.entry(s).or_insert(None);
        }
        out.insert(end, report);
    }
    out
}

/// CPython 3.8's finally protocol (see the module docs), checked by path rather than
/// one instruction at a time: returns, for each instruction index it checks, `None`
/// when it agrees or the report of the disagreement. Those instructions are left
/// out of the generic check.
///
/// - A `BEGIN_FINALLY` that the normalizer rewrote into the normal path through
///   what follows it (a copy of a straight-line `finally` body and a jump past its
///   `END_FINALLY`; a `with` exit `WithExit` and a jump past `WITH_CLEANUP_START;
///   WITH_CLEANUP_FINISH; END_FINALLY`; the unbinding of `except E as name` and
///   its `POP_EXCEPT`) is compared with the sum of `dis`'s numbers of the
///   instructions that path runs through: `BEGIN_FINALLY`'s +6 and `END_FINALLY`'s
///   -6 balance there (CPython 3.8 `Python/compile.c`, `stack_effect`: it pushes one
///   NULL, counted 6 to balance `END_FINALLY`), and `WITH_CLEANUP_START` (+2) with
///   `WITH_CLEANUP_FINISH` (-3) give the -1 of the exit function consumed.
///   `PopExcept` counts three (the saved `exc_info` triple).
/// - The exceptional exit of a `with`, `WITH_CLEANUP_START; WITH_CLEANUP_FINISH;
///   END_FINALLY`, is `WithExceptStart; JumpIf(true); Reraise` then `PopTop;
///   PopExcept; PopTop`, `Nop`: on the path that suppresses the exception the three
///   together pop the exit function (one item), the saved `exc_info` and the
///   exception (three each), -7, as `dis`'s +2, -3 and -6 do. The other path
///   re-raises: nothing follows it, so it is not compared.
fn py38_finally(
    ins: &[Instruction],
    ops: &HashMap<u32, Vec<&Op>>,
    copied: &HashSet<u32>,
    folded: &HashMap<usize, usize>,
    failed: &HashMap<u32, &str>,
    eff: &Effects,
) -> HashMap<usize, Option<String>> {
    // `dis.stack_effect` on the fall-through edge, as it is.
    let dis = |k: usize| eff[&(ins[k].opcode, ins[k].oparg)].1;
    let mut out = HashMap::new();
    let index_of = |off: u32| ins.iter().position(|i| i.offset == off);
    let of = |k: usize| -> Vec<&Op> { ops.get(&ins[k].offset).map_or(Vec::new(), |o| o.iter().copied().filter(|o| **o != Op::PushExcInfo).collect()) };
    let items = |o: &[&Op]| -> i64 {
        o.iter()
            .map(|op| {
                let (p, q) = op.stack_effect();
                let d = i64::from(q) - i64::from(p);
                if **op == Op::PopExcept { 3 * d } else { d }
            })
            .sum()
    };
    let names = |from: usize, n: usize| -> Vec<&str> { ins.iter().skip(from).take(n).map(|i| i.opname).collect() };
    let sum = |span: std::ops::RangeInclusive<usize>| -> Option<i64> { span.map(dis).sum() };
    for k in 0..ins.len() {
        if failed.contains_key(&ins[k].offset) || folded.contains_key(&k) {
            continue;
        }
        let mine = of(k);
        let (ours, span) = match (ins[k].opname, mine.as_slice()) {
            ("BEGIN_FINALLY", [.., Op::Jump(t)]) => {
                let end = match mine.as_slice() {
                    [Op::WithExit, Op::Jump(_)] if names(k + 1, 3) == ["WITH_CLEANUP_START", "WITH_CLEANUP_FINISH", "END_FINALLY"] => k + 3,
                    // `async with`: the await of `__aexit__`'s result (0 in all).
                    [Op::WithExit, Op::Jump(_)] if names(k + 1, 6) == ["WITH_CLEANUP_START", "GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM", "WITH_CLEANUP_FINISH", "END_FINALLY"] => k + 6,
                    [Op::PopExcept, ..] if names(k + 4, 2) == ["END_FINALLY", "POP_EXCEPT"] => k + 5,
                    // A copy of the straight-line body up to its END_FINALLY (the
                    // jump goes past it, threaded through a jump there).
                    _ => match (k + 1..ins.len()).find(|&j| ins[j].opname == "END_FINALLY") {
                        Some(e) if index_of(*t).is_some_and(|t| t > e) || ins.get(e + 1).and_then(|n| n.jump_target()) == Some(*t) => e,
                        _ => {
                            out.insert(k, Some(format!("BEGIN_FINALLY of an unknown rewrite {mine:?}")));
                            continue;
                        }
                    },
                };
                (items(&mine), k..=end)
            }
            // A copy of a body with branches (left out): the path is `BEGIN_FINALLY`,
            // the body (checked where it stands) and its `END_FINALLY`.
            ("BEGIN_FINALLY", [Op::Nop]) if copied.contains(&ins[k].offset) => {
                let Some(e) = (k + 1..ins.len()).find(|&j| ins[j].opname == "END_FINALLY") else { continue };
                let theirs = dis(k).and_then(|b| dis(e).map(|x| b + x));
                let report = (Some(0) != theirs).then(|| format!("3.8 finally path with a copy at BEGIN_FINALLY: ours 0 vs dis {theirs:?}"));
                out.insert(k, report);
                continue;
            }
            ("WITH_CLEANUP_START", [Op::WithExceptStart, Op::JumpIf { when: true, .. }, Op::Reraise])
                if names(k + 1, 2) == ["WITH_CLEANUP_FINISH", "END_FINALLY"] =>
            {
                // The first `PopTop` of WITH_CLEANUP_FINISH drops the exception: three
                // items, where `items` counts one.
                let suppress = net(&mine, true) + items(&of(k + 1)) + items(&of(k + 2)) - 2;
                out.insert(k + 1, None);
                out.insert(k + 2, None);
                (suppress, k..=k + 2)
            }
            // The same in an `async with`, with the await of `__aexit__`'s result
            // (no ops of its own) before WITH_CLEANUP_FINISH.
            ("WITH_CLEANUP_START", [Op::WithExceptStart, Op::JumpIf { when: true, .. }, Op::Reraise])
                if names(k + 1, 5) == ["GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM", "WITH_CLEANUP_FINISH", "END_FINALLY"] =>
            {
                let suppress = net(&mine, true) + items(&of(k + 4)) + items(&of(k + 5)) - 2;
                for j in k + 1..=k + 5 {
                    out.insert(j, None);
                }
                (suppress, k..=k + 5)
            }
            _ => continue,
        };
        let theirs = sum(span.clone());
        let report = (Some(ours) != theirs).then(|| {
            let names: Vec<String> = span.map(|j| format!("{} {:?}", ins[j].opname, ins[j].oparg)).collect();
            format!("3.8 finally path [{}]: ours {ours} vs dis {theirs:?}", names.join("; "))
        });
        out.insert(k, report);
    }
    out
}

/// The comparison of one CPython instruction (with the instructions folded into it by
/// [`folds`]): its IR ops' net effect and `dis`'s, on the fall-through edge and, for
/// jumps, on the jump edge.
struct Unit {
    /// Index of the instruction.
    k: usize,
    /// Whether only instructions folded into units lie between it and the previous unit.
    follows: bool,
    /// Whether it emits an op other than `Nop`.
    emits: bool,
    ours_ft: i64,
    /// Our effect on the jump edge, when one of its ops jumps.
    ours_j: Option<i64>,
    theirs_ft: Option<i64>,
    /// `dis`'s effect on the jump edge, when the instruction is a CPython branch.
    theirs_j: Option<Option<i64>>,
    /// The disagreement, empty if none.
    report: String,
}

/// Counts the units that agree alone, and checks the others by groups (see the module
/// docs, "Groups"): a disagreeing unit that emits no op of its own (a folded
/// instruction) is taken with its neighbouring units; a run of such units is cut into
/// groups of at most one emitting unit each so that every group's sums agree. What
/// cannot be cut so is reported group by group (each non-emitting unit joining the
/// emitting one after it).
fn check_groups(ins: &[Instruction], units: &[Unit], fig: &mut Figures) {
    let bad = |i: usize| !units[i].report.is_empty();
    let linked = |i: usize| i < units.len() && units[i].follows; // i-1 and i adjacent
    // From each disagreeing unit, the adjacent non-emitting units on both sides and the
    // first emitting unit beyond them.
    let mut inrun = vec![false; units.len()];
    for b in (0..units.len()).filter(|&i| bad(i)) {
        inrun[b] = true;
        let mut i = b;
        while i > 0 && linked(i) {
            i -= 1;
            inrun[i] = true;
            if units[i].emits {
                break;
            }
        }
        let mut i = b;
        while linked(i + 1) {
            i += 1;
            inrun[i] = true;
            if units[i].emits {
                break;
            }
        }
    }
    let mut n = 0;
    while n < units.len() {
        if !inrun[n] {
            fig.agree += 1;
            n += 1;
            continue;
        }
        let mut end = n + 1;
        while end < units.len() && inrun[end] && linked(end) {
            end += 1;
        }
        let run = &units[n..end];
        if !run.iter().any(|u| !u.emits) {
            for u in run {
                if u.report.is_empty() {
                    fig.agree += 1;
                } else {
                    *fig.mismatches.entry(u.report.clone()).or_default() += 1;
                }
            }
        } else if let Some(parts) = agreeing_partition(ins, run) {
            debug_assert!(parts.iter().all(|g| g.iter().filter(|u| u.emits).count() <= 1));
            fig.agree += run.len();
        } else {
            for g in partition(run, true) {
                if group_agrees(ins, g) {
                    fig.agree += g.len();
                } else {
                    let names: Vec<String> = g.iter().map(|u| format!("{} {:?}", ins[u.k].opname, ins[u.k].oparg)).collect();
                    let ours: i64 = g.iter().map(|u| u.ours_ft).sum();
                    let theirs: Option<i64> = g.iter().map(|u| u.theirs_ft).sum();
                    *fig.mismatches.entry(format!("group [{}]: ours {ours} vs dis {theirs:?}", names.join("; "))).or_default() += 1;
                }
            }
        }
        n = end;
    }
}

/// A cut of `run` into consecutive groups of at most one emitting unit each, every
/// group agreeing ([`group_agrees`]); `None` if there is none. (Dynamic programming
/// over the cut points; runs are short.)
fn agreeing_partition<'a>(ins: &[Instruction], run: &'a [Unit]) -> Option<Vec<&'a [Unit]>> {
    // back[i]: the start of the last group of an agreeing cut of run[..i].
    let mut back: Vec<Option<usize>> = vec![None; run.len() + 1];
    back[0] = Some(0);
    for i in 1..=run.len() {
        for j in (0..i).rev() {
            let g = &run[j..i];
            if g.iter().filter(|u| u.emits).count() > 1 {
                break;
            }
            if back[j].is_some() && group_agrees(ins, g) {
                back[i] = Some(j);
                break;
            }
        }
    }
    back[run.len()]?;
    let mut parts = Vec::new();
    let mut i = run.len();
    while i > 0 {
        let j = back[i].unwrap();
        parts.push(&run[j..i]);
        i = j;
    }
    parts.reverse();
    Some(parts)
}

/// Cuts a run of units into groups of at most one emitting unit: the non-emitting
/// units join the next emitting one (`forward`) or the previous one; those at the
/// run's end (start) join the last (first).
fn partition(run: &[Unit], forward: bool) -> Vec<&[Unit]> {
    let emitters: Vec<usize> = run.iter().enumerate().filter(|(_, u)| u.emits).map(|(i, _)| i).collect();
    if emitters.len() <= 1 {
        return vec![run];
    }
    let mut cuts = Vec::new();
    for w in emitters.windows(2) {
        cuts.push(if forward { w[0] + 1 } else { w[1] });
    }
    let mut parts = Vec::new();
    let mut from = 0;
    for c in cuts {
        parts.push(&run[from..c]);
        from = c;
    }
    parts.push(&run[from..]);
    parts
}

/// A group's check: the sums of the fall-through effects agree, and on the jump edge
/// the effect up to our last jumping op agrees with `dis`'s up to the group's last
/// branch whose target lies outside the group (branches inside the group, such as
/// `SEND` and `JUMP_BACKWARD_NO_INTERRUPT` of a 3.12+ `yield from`, are its own loop);
/// a `GET_ANEXT` with its folded `END_ASYNC_FOR` counts as a branch (its handler).
fn group_agrees(ins: &[Instruction], g: &[Unit]) -> bool {
    let ours: i64 = g.iter().map(|u| u.ours_ft).sum();
    let theirs: Option<i64> = g.iter().map(|u| u.theirs_ft).sum();
    if Some(ours) != theirs {
        return false;
    }
    let (lo, hi) = (ins[g[0].k].offset, ins[g[g.len() - 1].k].offset);
    let ours_j = g.iter().rposition(|u| u.ours_j.is_some()).map(|p| g[..p].iter().map(|u| u.ours_ft).sum::<i64>() + g[p].ours_j.unwrap());
    let theirs_j = g
        .iter()
        .rposition(|u| u.theirs_j.is_some() && (ins[u.k].opname == "GET_ANEXT" || ins[u.k].jump_target().is_some_and(|t| t < lo || t > hi)))
        .map(|p| g[..p].iter().map(|u| u.theirs_ft).sum::<Option<i64>>().and_then(|s| g[p].theirs_j.unwrap().map(|j| s + j)));
    match (ours_j, theirs_j) {
        (None, None) => true,
        (Some(o), Some(t)) => Some(o) == t,
        _ => false,
    }
}

fn summary(v: PythonVersion, fig: &Figures) -> String {
    let unsupported: usize = fig.unsupported.values().sum();
    let mut top: Vec<(&String, &usize)> = fig.unsupported.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1));
    let top: Vec<String> = top.iter().take(12).map(|(n, c)| format!("{n}:{c}")).collect();
    format!(
        "{v}: {} instructions, {} normalized ({} agree with dis.stack_effect), {unsupported} on the error path [{}], \
         code objects failed whole: {:?}, mismatches: {:?}",
        fig.instructions,
        fig.normalized,
        fig.agree,
        top.join(" "),
        fig.failed_codes,
        fig.mismatches
    )
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Versions with normalizers under test (3.11 has its own module).
const VERSIONS: &[PythonVersion] =
    &[
    PythonVersion::PY38,
    PythonVersion::PY39,
    PythonVersion::PY310,
    PythonVersion::PY312,
    PythonVersion::PY313,
    PythonVersion::PY314,
    PythonVersion::PY315,
];

#[test]
fn sample_per_version() {
    for &v in VERSIONS {
        let dir = data_dir().join(format!("py{}{}", v.major, v.minor));
        let mut codes = Vec::new();
        load_marshal(&dir.join("sample.marshal"), v, &mut codes);
        let mut fig = Figures::default();
        check(v, &codes, &read_effects(&dir.join("effects.txt")), &mut fig);
        println!("{}", summary(v, &fig));
        assert!(fig.mismatches.is_empty(), "{}", summary(v, &fig));
        assert!(fig.failed_codes.is_empty(), "{}", summary(v, &fig));
        assert!(fig.normalized > 0);
    }
}

/// The interpreter of version `v`: `$DEPYF_PYTHON_3_X` (as scripts/test.sh exports it),
/// pyenv's, or a Debian build unpacked by `../shared/tools/python-from-debian.sh` under
/// `target/python3.X/root` (scripts/_torch_pythons.sh) or `scratch/py3X/root` beside the
/// repository.
fn interpreter(v: PythonVersion) -> Option<PathBuf> {
    let tag = format!("{}{}", v.major, v.minor);
    if let Ok(p) = std::env::var(format!("DEPYF_PYTHON_{}_{}", v.major, v.minor)) {
        return Some(PathBuf::from(p));
    }
    let dotted = format!("{}.{}", v.major, v.minor);
    if let Ok(out) = Command::new("pyenv").args(["prefix", &dotted]).output() {
        let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("bin/python");
        if out.status.success() && p.exists() {
            return Some(p);
        }
    }
    let unpacked = ["root", "usr", "bin"].iter().collect::<PathBuf>().join(format!("python{dotted}"));
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    [repo.join(format!("target/python{dotted}")), repo.join(format!("../scratch/py{tag}"))]
        .into_iter()
        .map(|dir| dir.join(&unpacked))
        .find(|p| p.exists())
}

#[test]
#[ignore = "needs the CPython interpreters; prints per-version figures"]
fn stdlib_per_version() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/gen_ir_fixtures.py");
    let mut bad = Vec::new();
    for &v in VERSIONS {
        let Some(python) = interpreter(v) else {
            println!("{v}: no interpreter, skipped");
            continue;
        };
        let dir = std::env::temp_dir().join(format!("depyf_ir_stdlib_py{}{}", v.major, v.minor));
        let _ = std::fs::remove_dir_all(&dir);
        let st = Command::new(&python).arg(&script).args(["--stdlib", "250"]).arg(&dir).status().unwrap();
        assert!(st.success(), "{} failed", python.display());
        let mut codes = Vec::new();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "marshal")) {
            load_marshal(f, v, &mut codes);
        }
        let mut fig = Figures::default();
        check(v, &codes, &read_effects(&dir.join("effects.txt")), &mut fig);
        println!("{}", summary(v, &fig));
        if !fig.mismatches.is_empty() {
            bad.push(v);
        }
    }
    assert!(bad.is_empty(), "stack effects disagree for {bad:?}");
}
