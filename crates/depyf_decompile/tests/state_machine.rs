//! The state-machine fallback (`src/state_machine.rs`) on hand-made CPython 3.11
//! bytecode: functions of `tests/state_machine_probe.py` whose jump before a rotated
//! `while` loop was sent into the middle of its body (`CodeType.replace`), an
//! irreducible loop with a `continue` that the structurer cannot write. The fixture
//! `data/state_machine/irreducible311.pyc` is that module with the three functions
//! patched (tests/test_state_machine.py runs the decompiled code on every version).

use std::collections::BTreeMap;
use std::path::Path;

use depyf_bytecode::{read_pyc, CodeObject};
use depyf_decompile::{decompile, Options};

/// `decompile(code)` on a thread with a large stack: structuring gives up only after
/// deep recursion, whose frames are large in unoptimized test builds.
fn source_of(code: &CodeObject) -> String {
    let code = code.clone();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || decompile(&code, &Options::default()).unwrap().source)
        .unwrap()
        .join()
        .unwrap()
}

fn functions() -> BTreeMap<String, CodeObject> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/state_machine/irreducible311.pyc");
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
