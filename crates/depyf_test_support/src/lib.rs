//! Test helpers for depyf (not published).
//!
//! The semantic suite (`scripts/run_semantics.py`, driven by `tests/test_semantics.py`)
//! decompiles each case function with the interpreter it runs on. From 3.9 it uses the
//! extension `depyf._core`; CPython 3.8 cannot load it (PyO3 dropped 3.8), so there the
//! runner marshals the code objects into a file and calls the `depyf-sem` binary of this
//! crate, which reads them with `depyf_bytecode` and answers with
//! [`depyf_decompile::decompile`] / [`depyf_decompile::compare`].
//!
//! The file format is plain `marshal.dumps(tuple)`, without a `.pyc` header:
//!
//! - `depyf-sem decompile 3.8 FILE`: FILE holds a tuple of code objects; prints one JSON
//!   object per line, `{"source": ...}` or `{"error": ...}`, in order.
//! - `depyf-sem compare 3.8 FILE`: FILE holds a tuple of `(original, recompiled)` pairs;
//!   prints `{"verdict": ..., "detail": ...}` per pair.
//!
//! ```
//! assert_eq!(depyf_test_support::json_string("a\"b\n"), "\"a\\\"b\\n\"");
//! ```

use depyf_bytecode::{marshal, CodeObject, Constant, PythonVersion};
use depyf_decompile::{compare, decompile, Options};

/// `s` as a JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Parses `"3.8"` into a version.
pub fn parse_version(text: &str) -> Option<PythonVersion> {
    let (major, minor) = text.split_once('.')?;
    Some(PythonVersion::new(major.parse().ok()?, minor.parse().ok()?))
}

/// The elements of the marshalled tuple in `data`.
pub fn load_tuple(data: &[u8], version: PythonVersion) -> Result<Vec<Constant>, String> {
    match marshal::loads(data, version).map_err(|e| e.to_string())? {
        Constant::Tuple(items) => Ok(items),
        other => Err(format!("expected a marshalled tuple, got {other:?}")),
    }
}

fn code(c: &Constant) -> Result<&CodeObject, String> {
    match c {
        Constant::Code(code) => Ok(code),
        other => Err(format!("expected a code object, got {other:?}")),
    }
}

/// One JSON line per code object of the tuple: its decompiled source or the error.
pub fn decompile_lines(items: &[Constant]) -> Result<Vec<String>, String> {
    items
        .iter()
        .map(|c| {
            let code = code(c)?;
            Ok(match decompile(code, &Options::default()) {
                Ok(out) => format!("{{\"source\": {}}}", json_string(&out.source)),
                Err(e) => format!("{{\"error\": {}}}", json_string(&e.to_string())),
            })
        })
        .collect()
}

/// One JSON line per `(original, recompiled)` pair: the verdict of [`compare`].
pub fn compare_lines(items: &[Constant]) -> Result<Vec<String>, String> {
    items
        .iter()
        .map(|pair| {
            let Constant::Tuple(p) = pair else { return Err(format!("expected a pair, got {pair:?}")) };
            let [a, b] = p.as_slice() else { return Err("expected a pair of code objects".into()) };
            let (verdict, detail) = compare(code(a)?, code(b)?, &Options::default());
            Ok(format!("{{\"verdict\": {}, \"detail\": {}}}", json_string(verdict.as_str()), json_string(&detail)))
        })
        .collect()
}
