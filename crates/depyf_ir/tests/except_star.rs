//! `except*` (PEP 654) and 3.14+ `async with` normalize to the ops the decompiler
//! reads, on every version that has them: one `ExcStarSetup` right after the
//! handler's `PushExcInfo`, one `CheckEgMatch` per clause followed by a `JumpIfNone`,
//! one `ExcStarEnd`; `async with a as x, b as y` is two `BeforeAsyncWith` and two
//! `WithExit`s on each exit path, no instruction left unnormalized.
//!
//! Runs on the committed fixture `fixtures/pyc/pyXY/exceptstar311.pyc` (source
//! `fixtures/cases/exceptstar311.py`).

use std::path::Path;

use depyf_bytecode::{pyc::read_pyc, CodeObject, Constant, PythonVersion};
use depyf_ir::{normalize, Op};

const VERSIONS: [PythonVersion; 5] = [PythonVersion::PY311, PythonVersion::PY312, PythonVersion::PY313, PythonVersion::PY314, PythonVersion::PY315];

fn function(v: PythonVersion, name: &str) -> CodeObject {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../fixtures/pyc/py{}{}/exceptstar311.pyc", v.major, v.minor));
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let module = read_pyc(&data).unwrap().code;
    module
        .co_consts
        .iter()
        .find_map(|k| match k {
            Constant::Code(c) if c.co_name == name => Some((**c).clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {name} in {}", path.display()))
}

fn ops(v: PythonVersion, name: &str) -> Vec<Op> {
    normalize(&function(v, name)).unwrap_or_else(|e| panic!("{v} {name}: {e}")).into_iter().map(|i| i.op).collect()
}

fn count(ops: &[Op], f: impl Fn(&Op) -> bool) -> usize {
    ops.iter().filter(|o| f(o)).count()
}

#[test]
fn except_star_clauses_normalize() {
    for v in VERSIONS {
        let o = ops(v, "star_clauses");
        assert_eq!(count(&o, |x| *x == Op::ExcStarSetup), 1, "{v}");
        assert_eq!(count(&o, |x| *x == Op::CheckEgMatch), 2, "{v}");
        assert_eq!(count(&o, |x| *x == Op::ExcStarEnd), 1, "{v}");
        // The set-up follows the handler's entry; each test is followed (past `Nop`s)
        // by the jump on a `None` match.
        let real: Vec<&Op> = o.iter().filter(|x| **x != Op::Nop).collect();
        let setup = real.iter().position(|x| **x == Op::ExcStarSetup).unwrap();
        assert_eq!(*real[setup - 1], Op::PushExcInfo, "{v}");
        for (k, x) in real.iter().enumerate() {
            if **x == Op::CheckEgMatch {
                assert!(matches!(real[k + 1], Op::JumpIfNone { when: true, .. }), "{v}: {:?}", real[k + 1]);
            }
        }
        // Nested handlers: one set-up and one end each.
        let n = ops(v, "star_nested");
        assert_eq!(count(&n, |x| *x == Op::ExcStarSetup), 2, "{v}");
        assert_eq!(count(&n, |x| *x == Op::ExcStarEnd), 2, "{v}");
    }
}

#[test]
fn async_with_normalizes_on_every_version() {
    for v in VERSIONS {
        let o = ops(v, "async_with_items");
        assert_eq!(count(&o, |x| *x == Op::BeforeAsyncWith), 2, "{v}");
        // The normal exit and the `return` inside each leave both managers.
        assert_eq!(count(&o, |x| *x == Op::WithExit), 4, "{v}");
        assert_eq!(count(&o, |x| *x == Op::WithExceptStart), 2, "{v}");
    }
}
