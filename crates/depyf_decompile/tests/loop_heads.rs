//! Loops that used to reach the structurer's duplication limit (issue #5): a
//! `while True:` whose `continue` goes to the `NOP` of the `while` line while the end
//! of its body jumps past it (two heads of one loop, CPython 3.10-3.13), and a
//! `while True: try: ...; break / except: ...` loop in a `finally` body, whose copy
//! for the exceptional exit is handler code. Each decompiles to the source it was
//! compiled from (`source.py`, written as depyf prints it), except where noted.
//!
//! Data in `tests/data/loop_heads`: `source.py` compiled by CPython 3.10-3.13
//! (`py3X.pyc`, unchecked-hash pycs).

mod common;
use common::defs;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use depyf_bytecode::{read_pyc, CodeObject};
use depyf_decompile::{decompile, Options};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/loop_heads")
}

fn functions(file: &str) -> BTreeMap<String, CodeObject> {
    let pyc = read_pyc(&std::fs::read(data().join(file)).unwrap()).unwrap();
    pyc.code.nested_code().map(|c| (c.co_name.clone(), c.clone())).collect()
}

#[test]
fn loops_with_two_heads_and_loops_in_finally_copies() {
    let expected = defs(&std::fs::read_to_string(data().join("source.py")).unwrap());
    assert_eq!(expected.len(), 3);
    for v in ["py310", "py311", "py312", "py313"] {
        let funcs = functions(&format!("{v}.pyc"));
        assert_eq!(funcs.len(), 3, "{v}");
        for (name, code) in &funcs {
            let out = decompile(code, &Options::default()).unwrap_or_else(|e| panic!("{v} {name}: {e}"));
            if (v == "py310" || v == "py311") && name == "loop_in_finally" {
                // 3.10-3.11 compile `try: f(); break` and `try: f() / except: ... /
                // else: break` alike; the `else` reading is printed (in both copies).
                assert!(out.source.contains("        else:\n                break\n"), "{v} {name}:\n{}", out.source);
                continue;
            }
            assert_eq!(out.source, expected[name], "{v} {name}");
        }
    }
}
