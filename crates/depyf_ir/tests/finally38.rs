//! CPython 3.8 leaves a `try/finally`, an `except E as name` clause or a `with` by
//! `return`, `break` or `continue` through `CALL_FINALLY` (the finally body run as a
//! subroutine) or `BEGIN_FINALLY; WITH_CLEANUP_*; POP_FINALLY` (CPython 3.8
//! `Python/compile.c`, `compiler_unwind_fblock`); 3.9 copies the finally body at each
//! exit instead. The normalizer rewrites 3.8 into 3.9's shape (`normalize/pre311_exc.rs`),
//! so the same source gives the same ops and the same protected ranges on both.
//!
//! Data: `tests/data/finally38/source.py` compiled by 3.8 (`py38.pyc`) and 3.9
//! (`py39.pyc`).

use std::collections::BTreeMap;
use std::path::Path;

use depyf_bytecode::{read_pyc, CodeObject};
use depyf_ir::{normalize, protected_ranges, IrInstr, Op};

fn functions(file: &str) -> BTreeMap<String, CodeObject> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/finally38").join(file);
    let pyc = read_pyc(&std::fs::read(&path).unwrap()).unwrap();
    pyc.code.nested_code().map(|c| (c.co_name.clone(), c.clone())).collect()
}

/// The ops reached from the entry or a handler, without `Nop`s (3.8 and 3.9 leave
/// different dead code after a `continue`).
fn live<'a>(code: &CodeObject, ir: &'a [IrInstr]) -> Vec<&'a IrInstr> {
    let kept: Vec<&IrInstr> = ir.iter().filter(|i| i.op != Op::Nop).collect();
    let at = |off: u32| kept.iter().position(|i| i.offset >= off);
    let mut seen = vec![false; kept.len()];
    let mut work = vec![0];
    work.extend(protected_ranges(code).unwrap().iter().filter_map(|r| at(r.target)));
    while let Some(k) = work.pop() {
        if k >= kept.len() || std::mem::replace(&mut seen[k], true) {
            continue;
        }
        let op = &kept[k].op;
        if let Some(t) = op.jump_target().and_then(at) {
            work.push(t);
        }
        if !op.is_terminator() {
            work.push(k + 1);
        }
    }
    kept.into_iter().zip(seen).filter(|(_, s)| *s).map(|(i, _)| i).collect()
}

/// The live ops, jump targets written as the index (in that list) of the op they
/// land on, so that two versions' layouts compare.
fn shape(code: &CodeObject, ir: &[IrInstr]) -> Vec<String> {
    let kept = live(code, ir);
    let at = |off: u32| kept.iter().position(|i| i.offset >= off).map_or("end".to_string(), |p| format!("@{p}"));
    kept.iter()
        .map(|i| match i.op.jump_target() {
            // The op's name and fields with the byte offset replaced.
            Some(t) => format!("{:?}", i.op).replace(&t.to_string(), &at(t)),
            None => format!("{:?}", i.op),
        })
        .collect()
}

/// Handler position (in [`shape`]'s list) and depth of every protected range, in order.
fn ranges(code: &CodeObject, ir: &[IrInstr]) -> Vec<(String, u32)> {
    let kept = live(code, ir);
    let mut out: Vec<(String, u32)> = Vec::new();
    for r in protected_ranges(code).unwrap() {
        let h = kept.iter().position(|i| i.offset >= r.target).map_or("end".to_string(), |p| format!("@{p}"));
        if out.last() != Some(&(h.clone(), r.depth)) {
            out.push((h, r.depth));
        }
    }
    out
}

/// The handler position (in [`shape`]'s list) and depth protecting each live op, or
/// `None`: which ops each range covers, not only the order of the ranges. `Swap`s
/// are left out: 3.8 moves a returned value below the exception (`ROT_FOUR`) before
/// the `POP_BLOCK` of an `except E as name` clause, 3.9 after it (CPython 3.8/3.9
/// `Python/compile.c`, `compiler_unwind_fblock`); a swap cannot raise.
fn protection(code: &CodeObject, ir: &[IrInstr]) -> Vec<Option<(String, u32)>> {
    let kept = live(code, ir);
    let table = protected_ranges(code).unwrap();
    kept.iter()
        .filter(|i| !matches!(i.op, Op::Swap(_)))
        .map(|i| {
            table.iter().find(|r| r.start <= i.offset && i.offset < r.end).map(|r| {
                let h = kept.iter().position(|x| x.offset >= r.target).map_or("end".to_string(), |p| format!("@{p}"));
                (h, r.depth)
            })
        })
        .collect()
}

#[test]
fn same_ops_and_ranges_as_39() {
    let f38 = functions("py38.pyc");
    let f39 = functions("py39.pyc");
    assert_eq!(f38.len(), 59);
    let mut compared = 0;
    for (name, c38) in &f38 {
        let c39 = &f39[name];
        let ir38 = normalize(c38).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ir39 = normalize(c39).unwrap();
        assert_eq!(shape(c38, &ir38), shape(c39, &ir39), "{name}");
        assert_eq!(ranges(c38, &ir38), ranges(c39, &ir39), "{name}");
        assert_eq!(protection(c38, &ir38), protection(c39, &ir39), "{name}");
        compared += 1;
    }
    assert_eq!(compared, 59);
}

#[test]
fn call_finally_and_pop_finally_are_rewritten() {
    let f38 = functions("py38.pyc");
    let has = |name: &str, op: &str| depyf_bytecode::decode(&f38[name]).unwrap().iter().any(|i| i.opname == op);
    // The data exercises what it claims to.
    for name in ["return_in_try", "break_continue_in_try", "return_in_except_as", "nested_finally", "break_in_try", "continue_in_try"] {
        assert!(has(name, "CALL_FINALLY"), "{name}");
    }
    for name in ["return_in_with", "break_in_with", "continue_in_with", "return_in_with_loop"] {
        assert!(has(name, "POP_FINALLY"), "{name}");
    }
    // `return g()` in try/finally: the call, 3.9's copy of `h()`, the return.
    let ir = normalize(&f38["return_in_try"]).unwrap();
    let ops: Vec<&Op> = ir.iter().map(|i| &i.op).filter(|o| **o != Op::Nop).collect();
    let ret = ops.iter().position(|o| **o == Op::Return).unwrap();
    assert!(matches!(ops[ret - 1], Op::PopTop), "{ops:?}");
    assert!(matches!(ops[ret - 2], Op::Call { argc: 0, .. }), "{ops:?}");
    assert!(matches!(ops[ret - 3], Op::LoadFast(1)), "{ops:?}");
    // `return b.read()` in a with: the value kept below the exit, one WithExit.
    let ir = normalize(&f38["return_in_with"]).unwrap();
    let ops: Vec<&Op> = ir.iter().map(|i| &i.op).filter(|o| **o != Op::Nop).collect();
    let ret = ops.iter().position(|o| **o == Op::Return).unwrap();
    assert_eq!(ops[ret - 2..=ret], [&Op::Swap(2), &Op::WithExit, &Op::Return]);
}

#[test]
fn a_finally_body_with_branches_has_copies_of_its_own() {
    // Its copies take offsets of their own, between those of the instruction that
    // enters them and the next one: the ops stay in offset order, every jump lands
    // on an op, and some op lies past the code's length (offsets are scaled).
    let f38 = functions("py38.pyc");
    for name in ["finally_if_else", "return_in_try_if_in_finally", "for_in_finally", "while_in_finally_return_in_try", "break_in_try_if_in_finally", "raise_in_finally"] {
        let ir = normalize(&f38[name]).unwrap();
        assert!(ir.windows(2).all(|w| w[0].offset <= w[1].offset), "{name}");
        for i in &ir {
            if let Some(t) = i.op.jump_target() {
                assert!(ir.iter().any(|x| x.offset == t), "{name}: jump to {t}");
            }
        }
        assert!(ir.last().unwrap().offset > f38[name].co_code.len() as u32, "{name}");
    }
    // Straight-line bodies keep the offsets of the code.
    let ir = normalize(&f38["return_in_try"]).unwrap();
    assert!(ir.last().unwrap().offset < f38["return_in_try"].co_code.len() as u32);
}

/// Prints the normalized ops and protected ranges of function `$FN` of the data on
/// 3.8 and 3.9 (a debugging aid: `FN=name cargo test -p depyf_ir --test finally38
/// dump_ir -- --ignored --nocapture`).
#[test]
#[ignore]
fn dump_ir() {
    let name = std::env::var("FN").unwrap();
    for (file, f) in [("py38", functions("py38.pyc")), ("py39", functions("py39.pyc"))] {
        let c = &f[&name];
        println!("== {file}");
        for i in normalize(c).unwrap() {
            println!("{:5} {:?}   [{}]", i.offset, i.op, i.opname);
        }
        println!("{:?}", protected_ranges(c).unwrap());
    }
}

#[test]
fn exits_of_a_finally_body_are_rewritten() {
    let f38 = functions("py38.pyc");
    let has = |name: &str, op: &str| depyf_bytecode::decode(&f38[name]).unwrap().iter().any(|i| i.opname == op);
    for name in ["return_in_finally", "return_value_in_finally", "break_in_finally", "continue_in_finally", "return_in_try_and_finally"] {
        assert!(has(name, "POP_FINALLY"), "{name}");
    }
    let ops = |name: &str| -> Vec<Op> { normalize(&f38[name]).unwrap().into_iter().map(|i| i.op).filter(|o| *o != Op::Nop).collect() };
    // `return x` in the finally body: the placeholder None is gone (the code starts
    // with `g()`), the normal path returns x, the handler drops the exception
    // below x, like 3.9's ROT_FOUR; POP_TOP x3; ROT_FOUR; POP_EXCEPT.
    let o = ops("return_value_in_finally");
    assert_eq!(o[0], Op::LoadFast(0), "{o:?}");
    assert_eq!(o[3..5], [Op::LoadFast(1), Op::Return], "{o:?}");
    assert_eq!(o[5..], [Op::PushExcInfo, Op::LoadFast(1), Op::Swap(2), Op::PopTop, Op::Swap(2), Op::PopExcept, Op::Return, Op::Reraise], "{o:?}");
    // `return g()` in the try body, `return h` in the finally body: g()'s value is
    // kept below the copy of the body, which drops it (3.9's POP_VALUE unwinding).
    let o = ops("return_in_try_and_finally");
    let call = Op::Call { argc: 0, kwnames: None, layout: depyf_ir::CallLayout::NoNull };
    assert_eq!(o[..7], [Op::LoadFast(0), call, Op::LoadFast(1), Op::Swap(2), Op::PopTop, Op::Return, Op::Return], "{o:?}");
    // The dead POP_TOP of the placeholder at the end of the code is left out.
    let ir = normalize(&f38["return_in_finally"]).unwrap();
    assert_eq!(ir.last().unwrap().op, Op::Reraise);
}

#[test]
fn blocks_inside_a_finally_body_are_copied_with_their_handlers() {
    let f38 = functions("py38.pyc");
    for (name, targets) in [("with_in_finally", 3), ("try_except_in_finally", 3), ("with_try_in_finally_return_in_finally", 5)] {
        let c = &f38[name];
        let ir = normalize(c).unwrap();
        // The try body's handler (the finally body), the blocks inside the finally
        // body on the exception path and in the copy on the normal path.
        let mut t: Vec<u32> = protected_ranges(c).unwrap().iter().map(|r| r.target).collect();
        t.sort();
        t.dedup();
        assert_eq!(t.len(), targets, "{name}: {t:?}");
        // Every handler starts with PushExcInfo, the copies' too.
        for off in t {
            let first = ir.iter().find(|i| i.offset >= off).unwrap();
            assert_eq!((first.offset, &first.op), (off, &Op::PushExcInfo), "{name}");
        }
    }
}

#[test]
fn a_try_finally_in_a_finally_body_is_copied_inside_the_copies() {
    let f38 = functions("py38.pyc");
    // Each function, the constant of its innermost finally body and the number of
    // its try/finally statements nested in one another.
    for (name, innermost, depth) in [("try_finally_in_finally", 3, 2), ("return_in_try_try_finally_in_finally", 3, 2), ("try_finally_in_finally_in_finally", 4, 3)] {
        let c = &f38[name];
        let ir = normalize(c).unwrap();
        // Offsets in order, every jump lands on an op, every handler on its
        // PushExcInfo.
        assert!(ir.windows(2).all(|w| w[0].offset <= w[1].offset), "{name}");
        for i in &ir {
            if let Some(t) = i.op.jump_target() {
                assert!(ir.iter().any(|x| x.offset == t), "{name}: jump to {t}");
            }
        }
        for r in protected_ranges(c).unwrap() {
            let first = ir.iter().find(|x| x.offset >= r.target).unwrap();
            assert_eq!((first.offset, &first.op), (r.target, &Op::PushExcInfo), "{name}");
        }
        // The innermost body runs on 2^depth paths (normal or exceptional way into
        // each finally body, 3.9's copies); the first line names the constant once.
        let k = c.co_consts.iter().position(|x| *x == depyf_bytecode::Constant::Int(innermost)).unwrap();
        let copies = ir.iter().filter(|x| matches!(x.op, Op::LoadConst(j) if j == k)).count();
        assert_eq!(copies, 1 + (1 << depth), "{name}");
    }
}

#[test]
fn async_with_exits_await_in_one_op() {
    let f38 = functions("py38.pyc");
    let has = |name: &str, op: &str| depyf_bytecode::decode(&f38[name]).unwrap().iter().any(|i| i.opname == op);
    for name in ["async_with", "async_with_return", "async_with_break_continue", "async_with_in_try_finally", "async_with_in_finally"] {
        assert!(has(name, "SETUP_ASYNC_WITH") && has(name, "WITH_CLEANUP_START"), "{name}");
    }
    assert!(has("async_with_return", "POP_FINALLY"));
    let ops = |name: &str| -> Vec<Op> { normalize(&f38[name]).unwrap().into_iter().map(|i| i.op).filter(|o| *o != Op::Nop).collect() };
    // `return g(x)` in an `async with`: the value kept below the awaited exit, one
    // WithExit; the handler awaits `__aexit__` in WithExceptStart.
    let o = ops("async_with_return");
    let ret = o.iter().position(|x| *x == Op::Return).unwrap();
    assert_eq!(o[ret - 2..=ret], [Op::Swap(2), Op::WithExit, Op::Return], "{o:?}");
    assert_eq!(o[0], Op::LoadFast(0), "{o:?}");
    assert_eq!(o[1], Op::BeforeAsyncWith, "{o:?}");
    let h = o.iter().position(|x| *x == Op::PushExcInfo).unwrap();
    assert_eq!(o[h + 1], Op::WithExceptStart, "{o:?}");
    assert!(matches!(o[h + 2], Op::JumpIf { when: true, .. }), "{o:?}");
    assert_eq!(o[h + 3], Op::Reraise, "{o:?}");
}
