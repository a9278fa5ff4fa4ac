//! `depyf._core`: the Python extension. It reads live code objects and maps errors; it
//! holds no decompilation logic.

use std::collections::HashMap;

use depyf_decompile::{compare as compare_code, decompile as decompile_code, Options};
use pyo3::prelude::*;

mod code;
mod errors;

pub use errors::DecompilationError;

/// The result of `decompile`.
#[pyclass(module = "depyf._core", frozen, get_all)]
pub struct DecompileResult {
    /// Complete source: `def name(params):` and its body (module code: the body).
    source: String,
    /// Names used in `source` for constants without a literal form -> index in `co_consts`.
    opaque_constants: HashMap<String, usize>,
}

#[pymethods]
impl DecompileResult {
    fn __repr__(&self) -> String {
        format!("DecompileResult(source={:?}, opaque_constants={:?})", self.source, self.opaque_constants)
    }
}

/// decompile(code, name=None, const_prefix=None) -> DecompileResult
///
/// Decompiles a code object of the running interpreter into a complete definition.
/// `name` renames the printed `def`; `const_prefix` (default "__const") prefixes the
/// names of constants without a literal form (`<prefix>_<index>`), which the caller must
/// bind before running recompiled code.
///
/// Raises DecompilationError (with code_name, offset, opname, python_version) for code
/// the decompiler cannot handle, TypeError if `code` is not a code object.
///
/// >>> def f(x): return x + 1
/// >>> print(decompile(f.__code__).source, end="")
/// def f(x):
///     return x + 1
#[pyfunction]
#[pyo3(signature = (code, name=None, const_prefix=None))]
fn decompile(py: Python<'_>, code: &Bound<'_, PyAny>, name: Option<String>, const_prefix: Option<String>) -> PyResult<DecompileResult> {
    let version = code::running_version(py)?;
    let c = code::read_code(py, code, version)?;
    let options = Options { function_name: name, const_prefix: const_prefix.unwrap_or_else(|| "__const".into()), ..Options::default() };
    let out = py
        .detach(|| contain(&c, || decompile_code(&c, &options)))
        .map_err(|e| errors::to_py(py, &e))?;
    Ok(DecompileResult { source: out.source, opaque_constants: out.opaque_constants.into_iter().collect() })
}

/// compare(original, recompiled) -> tuple[str, str]
///
/// Checks recompiled code against the original: "identical" (same normalized
/// instruction streams), "equivalent" (same calls, loads, stores, returns and branches
/// after recovery, temporaries renumbered) or "differs", with a detail saying where.
/// Raises TypeError if an argument is not a code object.
#[pyfunction]
#[pyo3(signature = (original, recompiled, const_prefix=None))]
fn compare(py: Python<'_>, original: &Bound<'_, PyAny>, recompiled: &Bound<'_, PyAny>, const_prefix: Option<String>) -> PyResult<(String, String)> {
    let version = code::running_version(py)?;
    let a = code::read_code(py, original, version)?;
    let b = code::read_code(py, recompiled, version)?;
    let options = Options { function_name: None, const_prefix: const_prefix.unwrap_or_else(|| "__const".into()), ..Options::default() };
    let (verdict, detail) = py
        .detach(|| contain(&a, || Ok(compare_code(&a, &b, &options))))
        .map_err(|e| errors::to_py(py, &e))?;
    Ok((verdict.as_str().to_string(), detail))
}

/// Runs `f` with at least [`depyf_decompile::STACK_BYTES`] of stack (on a fresh stack
/// segment, via the `stacker` crate, when the calling thread has less left: a Python
/// thread may have 256 KiB after `threading.stack_size`), turning a panic (a bug of
/// ours, never the input's fault) into a `DecompileError` about `code`, so that Python
/// sees a `DecompilationError`, not a `PanicException` that `except Exception` would
/// miss.
fn contain<T>(code: &depyf_bytecode::CodeObject, f: impl FnOnce() -> Result<T, depyf_decompile::DecompileError>) -> Result<T, depyf_decompile::DecompileError> {
    let outcome = stacker::maybe_grow(depyf_decompile::STACK_BYTES, depyf_decompile::STACK_BYTES, || std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    match outcome {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            Err(depyf_decompile::DecompileError::new(code, 0, "", format!("internal error of depyf (please report it): {what}")))
        }
    }
}

/// The extension module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<DecompileResult>()?;
    m.add_function(wrap_pyfunction!(decompile, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add("DecompilationError", m.py().get_type::<DecompilationError>())?;
    Ok(())
}
