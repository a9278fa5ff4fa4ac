//! Fuzzes the .pyc reader and everything a disassembly touches: header, marshal,
//! instruction decoding, exception and line tables, repr, frozenset ordering.
//!
//! The first byte picks a version, so mutated inputs reach every version's code-object
//! layout and opcode table even when the magic number is broken.
#![no_main]

use depyf_bytecode::{dis, marshal, parse_exception_table, pyc, Constant, PythonVersion};
use libfuzzer_sys::fuzz_target;

fn walk(c: &Constant) {
    if let Constant::Code(code) = c {
        let _ = dis::disassemble(code);
        let _ = parse_exception_table(code);
        let _ = depyf_bytecode::line_table::unit_lines(code);
        for k in &code.co_consts {
            walk(k);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = pyc::read_pyc(data) {
        let _ = dis::dis(&p.code);
    }
    if let Some((&sel, rest)) = data.split_first() {
        let versions = PythonVersion::SUPPORTED;
        let v = versions[sel as usize % versions.len()];
        if let Ok(c) = marshal::loads(rest, v) {
            walk(&c);
            let _ = depyf_bytecode::repr::constant_repr(&c, v);
        }
    }
});
