//! The state-machine fallback (`src/state_machine.rs`) on hand-made CPython 3.11
//! bytecode: functions of `tests/state_machine_probe.py` whose jump before a rotated
//! `while` loop was sent into the middle of its body (`CodeType.replace`), an
//! irreducible loop with a `continue` that the structurer cannot write. The fixture
//! `data/state_machine/irreducible311.pyc` is that module with the three functions
//! patched (tests/test_state_machine.py runs the decompiled code on every version).
//! `data/state_machine/irreducible312.pyc` has the probe's CPython 3.12 functions
//! with inlined comprehensions (PEP 709) and one with a `try`, patched the same way
//! (written by `tests/state_machine_fixture.py`).

use std::collections::BTreeMap;
use std::path::Path;

use depyf_bytecode::{read_pyc, CodeObject};
use depyf_decompile::{decompile, DecompileError, Options};

/// `decompile(code)` on a thread with a large stack: structuring gives up only after
/// deep recursion, whose frames are large in unoptimized test builds.
fn result_of(code: &CodeObject) -> Result<String, DecompileError> {
    let code = code.clone();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || decompile(&code, &Options::default()).map(|d| d.source))
        .unwrap()
        .join()
        .unwrap()
}

fn source_of(code: &CodeObject) -> String {
    result_of(code).unwrap()
}

fn functions() -> BTreeMap<String, CodeObject> {
    functions_of("irreducible311.pyc")
}

/// The functions of `tests/data/state_machine/<name>`.
fn functions_of(name: &str) -> BTreeMap<String, CodeObject> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/state_machine").join(name);
    let pyc = read_pyc(&std::fs::read(path).unwrap()).unwrap();
    pyc.code.nested_code().map(|c| (c.co_name.clone(), c.clone())).collect()
}

#[test]
fn irreducible_loop_becomes_a_state_machine() {
    let f = functions();
    let out = source_of(&f["into_loop_continue"]);
    print!("{out}");
    assert_eq!(out, EXPECTED);
}

#[test]
fn for_loops_and_generators_in_a_state_machine() {
    let f = functions();
    let after_for = source_of(&f["into_loop_after_for"]);
    // The `for` iterator lives in a generator over the iterable, stepped by a `for`
    // statement that breaks at once; `break` out of the loop lets go of it.
    assert!(after_for.contains("__depyf_it_0__ = (__depyf_x__ for __depyf_x__ in xs)"), "{after_for}");
    assert!(after_for.contains("__depyf_it_0__ = None"), "{after_for}");
    let generator = source_of(&f["into_loop_generator"]);
    assert!(generator.contains("__depyf_state__ = 0") && generator.contains("yield t"), "{generator}");
}

/// A 3.12 irreducible loop holding inlined comprehensions: each comprehension has a
/// protected range in the exception table (its handler restores the hidden locals),
/// yet the function is a state machine with each comprehension written whole inside
/// one state.
#[test]
fn inlined_comprehensions_sit_inside_states() {
    let f = functions_of("irreducible312.pyc");
    let cases = [
        ("comp_list", &["ys = [x * 2 for x in xs if x % 2]"][..]),
        ("comp_set_dict", &["s = {x % 5 for x in xs}", "d = {x: k for k, x in enumerate(xs) if k != n}"][..]),
        ("comp_nested", &["grid = [[y * x for y in range(x)] for x in xs if x != n]"][..]),
        ("comp_cells", &["fs = [lambda: x for x in xs]"][..]),
        ("comp_generator", &["yield [x + t for x in xs]"][..]),
    ];
    for (name, comps) in cases {
        let code = &f[name];
        let ranges = depyf_bytecode::parse_exception_table(code).unwrap();
        assert!(!ranges.is_empty(), "{name}: no protected range in the fixture");
        let out = source_of(code);
        assert!(out.contains("__depyf_state__ = 0"), "{out}");
        for c in comps {
            assert!(out.contains(&format!("            {c}\n")), "{name}: no `{c}` in a state:\n{out}");
        }
        // The comprehension's loop is no state and needs no iterator temporary.
        assert!(!out.contains("__depyf_it_"), "{out}");
    }
    // `x`, live across the comprehension that binds its own `x`, is the function's.
    let list = source_of(&f["comp_list"]);
    assert!(list.contains("            x = 7\n") && list.contains("            return t, x\n"), "{list}");
}

/// The same irreducible loop with a `try` in it: other protected ranges keep the
/// state machine out, and the error says why.
#[test]
fn exception_handling_keeps_the_state_machine_out() {
    let f = functions_of("irreducible312.pyc");
    let e = result_of(&f["with_try"]).unwrap_err();
    assert_eq!(e.code_name, "with_try");
    assert!(e.message.contains("control flow too tangled to structure"), "{e:?}");
    assert!(e.message.ends_with("; no state-machine fallback for code with exception handling"), "{e:?}");
}

/// State 1 is the middle of the loop, where the patched jump lands; state 2 the
/// loop's test before it (the `continue`), state 4 its first statement.
const EXPECTED: &str = "\
def into_loop_continue(a, n):
    __depyf_state__ = 0
    while True:
        if __depyf_state__ == 0:
            t = 0
            if a:
                t = 1000
                __depyf_state__ = 1
                continue
            t = 1
            __depyf_state__ = 2
            continue
        if __depyf_state__ == 1:
            n -= 1
            if t % 3 == 0:
                __depyf_state__ = 2
                continue
            t += 2
            if t > 5000:
                __depyf_state__ = 3
                continue
            if not n > 0:
                __depyf_state__ = 3
                continue
            __depyf_state__ = 4
            continue
        if __depyf_state__ == 2:
            if n > 0:
                __depyf_state__ = 4
                continue
            __depyf_state__ = 3
            continue
        if __depyf_state__ == 3:
            return t
        if __depyf_state__ == 4:
            t += n
            __depyf_state__ = 1
            continue
";
