//! CPython 3.8 merges starred items with `BUILD_LIST_UNPACK`, `BUILD_TUPLE_UNPACK(_WITH_CALL)`,
//! `BUILD_SET_UNPACK` and `BUILD_MAP_UNPACK(_WITH_CALL)` (CPython 3.8 `Python/compile.c`,
//! `starunpack_helper`, `compiler_call_helper`, `compiler_dict`); 3.9 builds the container
//! first and extends it (`LIST_EXTEND`, `SET_UPDATE`, `DICT_UPDATE`, `DICT_MERGE`,
//! `LIST_TO_TUPLE`). The normalizer rewrites 3.8 into 3.9's shape (`normalize/py38.rs`),
//! so the same source gives the same ops on both.
//!
//! Data: `tests/data/unpack38/source.py` compiled by 3.8 (`py38.pyc`) and 3.9 (`py39.pyc`).

use std::collections::BTreeMap;
use std::path::Path;

use depyf_bytecode::{decode, read_pyc, CodeObject};
use depyf_ir::{normalize, Op};

fn functions(file: &str) -> BTreeMap<String, CodeObject> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/unpack38").join(file);
    let pyc = read_pyc(&std::fs::read(&path).unwrap()).unwrap();
    pyc.code.nested_code().map(|c| (c.co_name.clone(), c.clone())).collect()
}

/// The ops without `Nop`s, constants written as their value (the two versions
/// number `co_consts` differently) and jump targets as the index (in that list) of
/// the op they land on.
fn ops(code: &CodeObject) -> Vec<String> {
    let ir = normalize(code).unwrap_or_else(|e| panic!("{}: {e}", code.co_name));
    let kept: Vec<_> = ir.iter().filter(|i| i.op != Op::Nop).collect();
    let at = |off: u32| kept.iter().position(|i| i.offset >= off).map_or("end".to_string(), |p| format!("@{p}"));
    kept.iter()
        .map(|i| match i.op {
            Op::LoadConst(c) => format!("LoadConst({:?})", code.co_consts[c]),
            ref op => match op.jump_target() {
                Some(t) => format!("{op:?}").replace(&t.to_string(), &at(t)),
                None => format!("{op:?}"),
            },
        })
        .collect()
}

/// The 3.8 op names a function's code uses.
fn uses(code: &CodeObject, op: &str) -> bool {
    decode(code).unwrap().iter().any(|i| i.opname == op)
}

#[test]
fn same_ops_as_39() {
    let f38 = functions("py38.pyc");
    let f39 = functions("py39.pyc");
    assert_eq!(f38.len(), 25);
    // 3.8's peephole folds the constant run `1` into `(1,)`, extended as one item.
    let folded = ["tuple_one", "ternary_item", "one_item_branch", "kwargs_branch"];
    let mut compared = 0;
    for (name, c38) in &f38 {
        if folded.contains(&name.as_str()) {
            continue;
        }
        assert_eq!(ops(c38), ops(&f39[name]), "{name}");
        compared += 1;
    }
    assert_eq!(compared, 21);
}

#[test]
fn every_merge_opcode_is_covered() {
    let f38 = functions("py38.pyc");
    for op in ["BUILD_LIST_UNPACK", "BUILD_TUPLE_UNPACK", "BUILD_TUPLE_UNPACK_WITH_CALL", "BUILD_SET_UNPACK", "BUILD_MAP_UNPACK", "BUILD_MAP_UNPACK_WITH_CALL"] {
        assert!(f38.values().any(|c| uses(c, op)), "{op}");
    }
    assert!(!f38.values().any(|c| uses(c, "LIST_EXTEND")));
}

#[test]
fn a_folded_constant_run_is_extended() {
    let f38 = functions("py38.pyc");
    let got = ops(&f38["tuple_one"]);
    assert_eq!(got, ["BuildList(0)", "LoadFast(0)", "ListExtend(1)", "LoadConst(Tuple([Int(1)]))", "ListExtend(1)", "ListToTuple", "Return"]);
}

#[test]
fn an_item_with_a_branch_is_an_error() {
    let f38 = functions("py38.pyc");
    // A jump lands inside the items, or on the merge (the walk back would see only
    // the `else` branch).
    for name in ["ternary_item", "one_item_branch"] {
        let e = normalize(&f38[name]).unwrap_err().to_string();
        assert!(e.contains("BUILD_LIST_UNPACK") && e.contains("straight-line"), "{name}: {e}");
    }
}

#[test]
fn a_single_kwargs_with_a_branch_stays_as_it_is() {
    let f38 = functions("py38.pyc");
    let got = ops(&f38["kwargs_branch"]);
    assert_eq!(got, ["LoadFast(0)", "BuildTuple(0)", "LoadFast(1)", "JumpIfOrPop { when: true, target: @5 }", "LoadFast(2)", "CallEx { has_kwargs: true, layout: NoNull }", "Return"]);
}
