//! The bytecode layer of depyf: CPython code objects of versions 3.8 through 3.15,
//! per-version opcode tables, instruction decoding, exception and line tables.
//!
//! It is the first stage of the pipeline (`bytecode -> ir -> cfg -> recover -> structure
//! -> idioms -> source`) and the only crate that knows opcode numbers; everything above
//! works on `depyf_ir`'s normalized instructions.
//!
//! Modules:
//! - [`code`]: [`CodeObject`] and [`Constant`], with CPython's field names;
//! - [`opcodes`]: generated opcode tables (`scripts/gen_opcodes.py`);
//! - [`decode`]: [`decode`](decode::decode) into [`Instruction`]s;
//! - [`exception_table`], [`line_table`]: the side tables;
//! - [`marshal`], [`pyc`]: reading `.pyc` files and marshalled code objects;
//! - [`repr`]: Python's `repr()` of constants;
//! - [`dis`]: a disassembler whose text equals each version's `dis.dis`.

//!
//! ```
//! use depyf_bytecode::{CodeObject, PythonVersion, decode};
//! let code = CodeObject {
//!     version: PythonVersion::PY311,
//!     co_argcount: 0, co_posonlyargcount: 0, co_kwonlyargcount: 0, co_stacksize: 1,
//!     co_flags: 0,
//!     // RESUME 0; LOAD_CONST 0; RETURN_VALUE
//!     co_code: vec![151, 0, 100, 0, 83, 0],
//!     co_consts: vec![depyf_bytecode::Constant::None],
//!     co_names: vec![], co_localsplusnames: vec![], co_localspluskinds: vec![],
//!     co_filename: "<doc>".into(), co_name: "f".into(), co_qualname: "f".into(),
//!     co_firstlineno: 1, co_linetable: vec![], co_exceptiontable: vec![],
//! };
//! let ins = decode(&code).unwrap();
//! assert_eq!(ins.iter().map(|i| i.opname).collect::<Vec<_>>(), ["RESUME", "LOAD_CONST", "RETURN_VALUE"]);
//! ```

pub mod code;
pub mod decode;
pub mod dis;
mod error;
pub mod exception_table;
pub mod line_table;
pub mod marshal;
pub mod pyc;
pub mod repr;
pub mod set_order;
pub mod opcodes;
mod version;

/// For the unit tests of this crate: every code object of the committed fixture `.pyc`
/// files of 3.8-3.15 (`fixtures/pyc/pyXY/*.pyc`), nested ones included, in turn.
#[cfg(test)]
pub(crate) fn for_each_fixture_code(f: &mut dyn FnMut(&CodeObject)) {
    fn walk(code: &CodeObject, f: &mut dyn FnMut(&CodeObject)) {
        f(code);
        for c in &code.co_consts {
            if let Constant::Code(inner) = c {
                walk(inner, f);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pyc");
    for dir in std::fs::read_dir(root).unwrap() {
        for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "pyc") {
                walk(&read_pyc(&std::fs::read(&path).unwrap()).unwrap().code, f);
            }
        }
    }
}

pub use code::{co_flags, local_kind, CodeObject, Constant, MAX_DECIMAL_BITS};
pub use decode::{decode, Argval, Instruction};
pub use error::{BytecodeError, BytecodeErrorKind};
pub use marshal::{MarshalError, MarshalErrorKind};
pub use pyc::{read_pyc, Pyc};
pub use exception_table::{parse_exception_table, ExceptionTableEntry};
pub use opcodes::{op_flags, table_for, OpcodeTable, Opname};
pub use version::PythonVersion;
