//! The one place that maps Rust errors to Python exceptions.

use depyf_decompile::DecompileError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    depyf._core,
    DecompilationError,
    PyException,
    "A code object could not be decompiled. Attributes: code_name (str), offset (int, byte offset of the instruction), opname (str, may be empty), python_version (str, e.g. '3.11')."
);

/// Builds a `DecompilationError` carrying the fields of `e` as attributes.
pub fn to_py(py: Python<'_>, e: &DecompileError) -> PyErr {
    let err = DecompilationError::new_err(e.to_string());
    let value = err.value(py);
    let _ = value.setattr("code_name", &e.code_name);
    let _ = value.setattr("offset", e.offset);
    let _ = value.setattr("opname", &e.opname);
    let _ = value.setattr("python_version", e.version.to_string());
    let _ = value.setattr("message", &e.message);
    err
}
