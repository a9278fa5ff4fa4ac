//! CPython 3.8 `try/finally`, `except E as name`, `with` and `async with` left by
//! `return`, `break` or `continue`, also from inside a `finally` body, and
//! `try/finally` nested in a `finally` body (`CALL_FINALLY`, `POP_FINALLY`; CPython 3.8 `Python/compile.c`,
//! `compiler_unwind_fblock`) decompile to what the same source gives on 3.9, and that
//! source round-trips: compiled again by 3.8 (`recompiled38.pyc`, committed since Rust
//! tests run no interpreter) it is identical or equivalent to the original.
//!
//! Data in `crates/depyf_ir/tests/data/finally38` (see its `source.py`).

mod common;
use common::defs;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use depyf_bytecode::{read_pyc, CodeObject};
use depyf_decompile::{compare, decompile, Options};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../depyf_ir/tests/data/finally38")
}

fn functions(file: &str) -> BTreeMap<String, CodeObject> {
    let pyc = read_pyc(&std::fs::read(data().join(file)).unwrap()).unwrap();
    pyc.code.nested_code().map(|c| (c.co_name.clone(), c.clone())).collect()
}

#[test]
fn decompiles_like_39_and_round_trips() {
    let f38 = functions("py38.pyc");
    let f39 = functions("py39.pyc");
    let twins = functions("recompiled38.pyc");
    let expected = defs(&std::fs::read_to_string(data().join("recompiled38.py")).unwrap());
    let mut round_trips = Vec::new();
    for (name, code) in &f38 {
        let on39 = decompile(&f39[name], &Options::default());
        match decompile(code, &Options::default()) {
            Ok(out) => {
                assert_eq!(out.source, on39.as_ref().unwrap().source, "{name}: not 3.9's source");
                assert_eq!(Some(&out.source), expected.get(name), "{name}: not the stored source");
                let (verdict, detail) = compare(code, &twins[name], &Options::default());
                assert!(matches!(verdict.as_str(), "identical" | "equivalent"), "{name}: {}: {detail}", verdict.as_str());
                round_trips.push(name.as_str());
            }
            // What 3.9 cannot structure yet either (a try or with body with several
            // exits, some finally bodies with branches).
            Err(e) => {
                // The same refusal; where it is reported (the branch of the block
                // being structured) is the offset in each version's own bytecode.
                let e39 = on39.expect_err(name);
                assert_eq!(e.message, e39.message, "{name}");
            }
        }
    }
    assert_eq!(
        round_trips,
        [
            "async_with",
            "async_with_break_continue",
            "async_with_in_finally",
            "async_with_in_try_finally",
            "async_with_return",
            "await_in_finally",
            "break_continue_in_try",
            "break_in_finally",
            "break_in_finally_in_try_except",
            "break_in_try",
            "break_in_try_return_in_finally",
            "break_in_try_with_in_finally",
            "break_in_with",
            "break_in_with_call",
            "close_like",
            "continue_in_finally",
            "continue_in_try",
            "continue_in_try_if_in_finally",
            "continue_in_with",
            "finally_if_else",
            "finally_if_in_try_finally",
            "for_in_finally",
            "if_at_end_of_finally",
            "long_loop_in_finally",
            "nested_finally",
            "raise_in_finally",
            "return_const_in_try",
            "return_const_in_try_and_finally",
            "return_in_except_as",
            "return_in_finally",
            "return_in_finally_if",
            "return_in_finally_in_loop",
            "return_in_finally_in_try_except",
            "return_in_try",
            "return_in_try_and_finally",
            "return_in_try_and_finally_with_try",
            "return_in_try_except_as_in_finally",
            "return_in_try_if_else_in_finally",
            "return_in_try_if_in_finally",
            "return_in_try_try_finally_in_finally",
            "return_in_with",
            "return_in_with_loop",
            "return_value_in_finally",
            "return_value_in_finally_in_try_except",
            "try_except_else_in_finally",
            "try_except_in_finally",
            "try_except_in_finally_in_finally",
            "try_finally_in_finally",
            "try_finally_in_finally_branches",
            "try_finally_in_finally_in_finally",
            "try_finally_in_finally_in_loop",
            "try_finally_in_with_in_finally",
            "while_break_in_try",
            "with_in_finally",
            "with_try_in_finally_return_in_finally",
            "yield_from_in_finally_return_in_try",
            "yield_in_finally"
        ]
    );
}
