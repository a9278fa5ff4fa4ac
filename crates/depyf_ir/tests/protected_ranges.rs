//! The protected ranges that `protected_ranges` derives from the 3.9-3.10 block stack
//! have the shape of 3.11's exception table for the same source: the same `try` and
//! `with` handlers (starting with `PushExcInfo`, a `with` one going on with
//! `WithExceptStart`) at the same stack depths, and the same clean-up handler that
//! unbinds `except E as name`. 3.11's own clean-up handlers (`COPY 3; POP_EXCEPT;
//! RERAISE 1`, with `lasti`) have no 3.9-3.10 counterpart: there the entered handler
//! is a block that unwinding pops.
//!
//! Runs on the committed `tests/data/pyXY/sample.marshal` (function `exceptions` of
//! `tests/data/sample.py`).

use std::path::Path;

use depyf_bytecode::{marshal, CodeObject, Constant, ExceptionTableEntry, PythonVersion};
use depyf_ir::{normalize, protected_ranges, Op};

fn find(c: &CodeObject, name: &str) -> Option<CodeObject> {
    if c.co_name == name {
        return Some(c.clone());
    }
    c.co_consts.iter().find_map(|k| match k {
        Constant::Code(inner) => find(inner, name),
        _ => None,
    })
}

fn sample(v: PythonVersion, name: &str) -> CodeObject {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/py{}{}/sample.marshal", v.major, v.minor));
    let data = std::fs::read(&path).unwrap();
    let Ok(Constant::Code(c)) = marshal::loads(&data, v) else { panic!("{}: not a code object", path.display()) };
    find(&c, name).unwrap_or_else(|| panic!("no {name} in {}", path.display()))
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Handler {
    /// `try`: the handler starts with `PushExcInfo`.
    Try,
    /// `with`: `PushExcInfo; WithExceptStart`.
    With,
    /// The handler that unbinds `except E as name` (`name = None; del name; reraise`).
    Unbind,
}

/// `(handler kind, depth)` of every handler a range goes to, in layout order of the
/// handlers, 3.11's `lasti` clean-up handlers left out.
fn shape(v: PythonVersion, name: &str) -> Vec<(Handler, u32)> {
    let code = sample(v, name);
    let ir = normalize(&code).unwrap();
    let ranges = protected_ranges(&code).unwrap();
    let mut targets: Vec<&ExceptionTableEntry> = Vec::new();
    for r in &ranges {
        if !targets.iter().any(|t| t.target == r.target) {
            targets.push(r);
        }
    }
    targets.sort_by_key(|r| r.target);
    let mut out = Vec::new();
    for r in targets {
        let ops: Vec<&Op> = ir.iter().skip_while(|i| i.offset < r.target).map(|i| &i.op).filter(|o| **o != Op::Nop).take(3).collect();
        let kind = match ops.as_slice() {
            [Op::PushExcInfo, Op::WithExceptStart, ..] => Handler::With,
            [Op::PushExcInfo, ..] => Handler::Try,
            [Op::LoadConst(_), Op::StoreFast(_), Op::DeleteFast(_)] => Handler::Unbind,
            _ if r.lasti => continue,
            other => panic!("{v}: unknown handler {other:?}"),
        };
        assert!(!(v < PythonVersion::PY311 && r.lasti), "{v}: lasti before 3.11");
        out.push((kind, r.depth));
    }
    out
}

#[test]
fn same_shape_as_311() {
    let want = shape(PythonVersion::PY311, "exceptions");
    // try/finally around try/except (depth 0), the `as e` unbinding (the previous
    // exception below: depth 1), the two `with` items (their exits: 1 and 2), the
    // try/finally in the `for` loop (the iterator: 1), the last try/except and its
    // `as e` unbinding.
    use Handler::*;
    assert_eq!(want, [(Try, 0), (Unbind, 1), (Try, 0), (With, 2), (With, 1), (Try, 1), (Try, 0), (Unbind, 1)]);
    // 3.8 too: its BEGIN_FINALLY/CALL_FINALLY/END_FINALLY/WITH_CLEANUP_* are
    // rewritten to 3.9's shape (`normalize/pre311_exc.rs`).
    for v in [PythonVersion::PY38, PythonVersion::PY39, PythonVersion::PY310] {
        assert_eq!(shape(v, "exceptions"), want, "{v}");
    }
}

#[test]
fn ranges_are_half_open_sorted_and_disjoint() {
    for v in [PythonVersion::PY38, PythonVersion::PY39, PythonVersion::PY310] {
        let code = sample(v, "exceptions");
        let ranges = protected_ranges(&code).unwrap();
        assert!(!ranges.is_empty());
        for w in ranges.windows(2) {
            assert!(w[0].start < w[0].end && w[0].end <= w[1].start, "{v}: {w:?}");
        }
    }
}


#[test]
fn no_block_stack_no_ranges() {
    for v in [PythonVersion::PY38, PythonVersion::PY39, PythonVersion::PY310] {
        let code = sample(v, "ops");
        assert_eq!(protected_ranges(&code).unwrap(), Vec::new(), "{v}");
    }
}
